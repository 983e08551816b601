"""Hostile and damaged checkpoints: code-execution payloads are refused before anything runs, and
fuzzed bytes raise only the documented errors (RuntimeError, pickle.UnpicklingError)."""

from __future__ import annotations

import io
import os
import pickle
import subprocess
import zipfile
from collections import OrderedDict

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import minitorch
from minitorch import serialization
from minitorch._serialization_pickle import dumps, torch_global
from minitorch._serialization_storage import StoragePlan

DOCUMENTED = (RuntimeError, pickle.UnpicklingError)


def _checkpoint(obj, protocol: int = 2) -> bytes:
    """What minitorch.save writes for `obj`, whatever `obj` pickles to (payloads included)."""
    plan = StoragePlan(lambda name: torch_global("torch", name))
    buf = io.BytesIO()
    serialization._write_checkpoint(buf, dumps(obj, protocol, plan), plan.storages)
    return buf.getvalue()


def _rezip(data: bytes, pkl: bytes) -> bytes:
    """The checkpoint `data` with its data.pkl replaced (valid zip, valid CRCs)."""
    out = io.BytesIO()
    with zipfile.ZipFile(io.BytesIO(data)) as src, zipfile.ZipFile(out, "w") as dst:
        for info in src.infolist():
            body = pkl if info.filename.endswith("/data.pkl") else src.read(info)
            dst.writestr(info.filename, body)
    return out.getvalue()


def _pickle_of(data: bytes) -> bytes:
    with zipfile.ZipFile(io.BytesIO(data)) as zf:
        return zf.read("archive/data.pkl")


# --- payloads ---------------------------------------------------------------------------------


class _Reduce:
    """Unpickles as func(*args)."""

    def __init__(self, func, *args):
        self.func, self.args = func, args

    def __reduce__(self):
        return (self.func, self.args)


class _Evil:
    """An arbitrary class whose unpickling runs code (its __setstate__ creates the marker)."""

    def __init__(self, marker):
        self.marker = str(marker)

    def __setstate__(self, state):
        open(state["marker"], "w").close()


# (the global the refusal names, the payload, the pickle protocol)
PAYLOADS = [
    ("posix.system", lambda m: _Reduce(os.system, f"touch {m}"), 2),
    ("eval", lambda m: _Reduce(eval, f"open({str(m)!r}, 'w').close()"), 2),
    ("exec", lambda m: _Reduce(exec, f"open({str(m)!r}, 'w').close()"), 4),
    ("subprocess.Popen", lambda m: _Reduce(subprocess.Popen, ["touch", str(m)]), 2),
    (f"{__name__}._Evil", _Evil, 2),  # GLOBAL + NEWOBJ + BUILD of an arbitrary class
    (f"{__name__}._Evil", _Evil, 4),  # STACK_GLOBAL + NEWOBJ + BUILD
]


@pytest.mark.parametrize(
    ("name", "make", "protocol"), PAYLOADS, ids=[str(p[::2]) for p in PAYLOADS]
)
def test_code_execution_payloads_are_refused(name, make, protocol, tmp_path):
    marker = tmp_path / "pwned"
    state = OrderedDict(weight=minitorch.randn(3, 2), bias=minitorch.zeros(2))
    data = _checkpoint({"state_dict": state, "extra": [1, make(marker)]}, protocol)
    with pytest.raises(pickle.UnpicklingError, match=f"GLOBAL {name} was not an allowed"):
        minitorch.load(io.BytesIO(data))
    with pytest.raises(pickle.UnpicklingError, match=f"GLOBAL {name} was not an allowed"):
        minitorch.load(io.BytesIO(data), weights_only=True, map_location="cpu")
    assert not marker.exists()


def test_weights_only_false_is_an_explicit_opt_in(tmp_path):
    marker = tmp_path / "ran"
    data = _checkpoint({"obj": _Evil(marker), "w": minitorch.ones(2)})
    minitorch.load(io.BytesIO(data), weights_only=False)
    assert marker.exists()  # the payload is real: only the default keeps it from running


def test_whole_modules_need_weights_only_false():
    model = minitorch.nn.Linear(2, 3)
    buf = io.BytesIO()
    minitorch.save(model, buf)
    with pytest.raises(pickle.UnpicklingError, match="Weights only load failed"):
        minitorch.load(io.BytesIO(buf.getvalue()))
    loaded = minitorch.load(io.BytesIO(buf.getvalue()), weights_only=False)
    assert type(loaded) is minitorch.nn.Linear
    assert loaded.weight.tolist() == model.weight.tolist()


def _tensor_pickle() -> bytes:
    return _pickle_of(_checkpoint(minitorch.arange(4.0)))


HAND_WRITTEN = {
    # REDUCE of an allowlisted global that is not an allowlisted callable (Tensor(10**12))
    "reduce-tensor-class": b"\x80\x02ctorch\nTensor\n\x8a\x05\x00\x10\xa5\xd4\xe8\x85R.",
    "builtins.getattr": b"\x80\x02c__builtin__\ngetattr\n.",
    "torch-internal": b"\x80\x02ctorch._C\n_nn\n.",
    "codecs-other-encoding": (
        b"\x80\x02c_codecs\nencode\nX\x01\x00\x00\x00aX\x05\x00\x00\x00rot13\x86R."
    ),
    "ext-registry": b"\x80\x02\x82\x01.",
    "protocol-0-persid": b"P0\n.",
}


@pytest.mark.parametrize("name", list(HAND_WRITTEN))
def test_hand_written_hostile_pickles(name):
    data = _rezip(_checkpoint(minitorch.arange(4.0)), HAND_WRITTEN[name])
    with pytest.raises(pickle.UnpicklingError):
        minitorch.load(io.BytesIO(data))


@pytest.mark.parametrize(
    "tail",
    [
        b"}X\x05\x00\x00\x00_dataK\x01sb.",  # BUILD on a tensor (set its raw array)
        b"K\x00K\x07s.",  # SETITEM on a tensor (runs indexing)
        b"K\x07a.",  # APPEND to a tensor
    ],
)
def test_operations_on_rebuilt_tensors_are_refused(tail):
    pkl = _tensor_pickle()
    assert pkl.endswith(b".")
    data = _rezip(_checkpoint(minitorch.arange(4.0)), pkl[:-1] + tail)
    with pytest.raises(pickle.UnpicklingError, match="Unsupported"):
        minitorch.load(io.BytesIO(data))


# --- fuzzing ----------------------------------------------------------------------------------

_x = minitorch.arange(6.0)
_VALID = _checkpoint(
    {
        "x": _x,
        "view": _x[1:4],
        "t": _x.view(2, 3).t(),
        "p": minitorch.nn.Parameter(minitorch.ones(2)),
        "sd": OrderedDict(a=minitorch.tensor([1, 2]), b=minitorch.tensor([True])),
        "misc": [1, 2.5, "s", None, (3, 4), {5: 6}, b"raw", minitorch.float16],
    }
)
_PKL = _pickle_of(_VALID)
_FUZZ = settings(max_examples=150, deadline=None, suppress_health_check=list(HealthCheck))


def _load_or_documented_error(data: bytes) -> None:
    try:
        minitorch.load(io.BytesIO(data))
    except DOCUMENTED:
        pass


def _mutations(size: int):
    return st.lists(
        st.tuples(st.integers(0, size - 1), st.integers(0, 255)), min_size=1, max_size=6
    )


def _apply(data: bytes, mutations) -> bytes:
    out = bytearray(data)
    for i, b in mutations:
        out[i] = b
    return bytes(out)


def test_the_fuzzed_checkpoint_is_valid():
    out = minitorch.load(io.BytesIO(_VALID))
    assert out["view"].tolist() == [1.0, 2.0, 3.0] and out["misc"][-1] is minitorch.float16
    assert minitorch.load(io.BytesIO(_rezip(_VALID, _PKL)))["t"].stride() == (1, 3)


@_FUZZ
@given(_mutations(len(_VALID)))
def test_mutated_checkpoint_bytes(mutations):
    _load_or_documented_error(_apply(_VALID, mutations))


@_FUZZ
@given(st.integers(0, len(_VALID)), st.binary(max_size=16), st.integers(0, 16))
def test_spliced_checkpoint_bytes(at, inserted, removed):
    _load_or_documented_error(_VALID[:at] + inserted + _VALID[at + removed :])


@_FUZZ
@given(_mutations(len(_PKL)))
def test_mutated_pickles_in_valid_archives(mutations):
    # the archive stays valid (CRCs recomputed), so the bytes reach the unpickler itself
    _load_or_documented_error(_rezip(_VALID, _apply(_PKL, mutations)))


@_FUZZ
@given(st.integers(0, len(_PKL) - 1), st.binary(min_size=1, max_size=12))
def test_spliced_pickles_in_valid_archives(at, inserted):
    _load_or_documented_error(_rezip(_VALID, _PKL[:at] + inserted + _PKL[at:]))
