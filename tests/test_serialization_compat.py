"""Checkpoint compatibility: globals marked safe for weights_only loads (add_safe_globals and
friends) and torch's legacy (pre-1.6, non-zip) format, written and read."""

from __future__ import annotations

import argparse
import base64
import dataclasses
import enum
import io
import os
import pickle

import numpy as np
import pytest

import minitorch
from minitorch import serialization

# torch.save({'w': torch.arange(3.), 'v': torch.arange(6.)[2:4]}, f,
#            _use_new_zipfile_serialization=False), written by PyTorch 2.x
TORCH_LEGACY = base64.b64decode(
    "gAKKCmz8nEb5IGqoUBkugAJN6QMugAJ9cQAoWBAAAABwcm90b2NvbF92ZXJzaW9ucQFN6QNYDQAAAGxpdHRsZV9l"
    "bmRpYW5xAohYCgAAAHR5cGVfc2l6ZXNxA31xBChYBQAAAHNob3J0cQVLAlgDAAAAaW50cQZLBFgEAAAAbG9uZ3EH"
    "SwR1dS6AAn1xAChYAQAAAHdxAWN0b3JjaC5fdXRpbHMKX3JlYnVpbGRfdGVuc29yX3YyCnECKChYBwAAAHN0b3Jh"
    "Z2VxA2N0b3JjaApGbG9hdFN0b3JhZ2UKcQRYDgAAADkzOTcwOTE1NTQ0Nzg0cQVYAwAAAGNwdXEGSwNOdHEHUUsA"
    "SwOFcQhLAYVxCYljY29sbGVjdGlvbnMKT3JkZXJlZERpY3QKcQopUnELdHEMUnENWAEAAAB2cQ5oAigoaANoBFgO"
    "AAAAOTM5NzA4MzAwODA2MjRxD2gGSwZOdHEQUUsCSwKFcRFLAYVxEoloCilScRN0cRRScRV1LoACXXEAKFgOAAAA"
    "OTM5NzA4MzAwODA2MjRxAVgOAAAAOTM5NzA5MTU1NDQ3ODRxAmUuBgAAAAAAAAAAAAAAAACAPwAAAEAAAEBAAACA"
    "QAAAoEADAAAAAAAAAAAAAAAAAIA/AAAAQA=="
)


class Color(enum.Enum):
    RED = 1


@dataclasses.dataclass
class Config:
    lr: float
    name: str


class Slotted:
    __slots__ = ("a",)

    def __init__(self, a):
        self.a = a


class Custom:
    def __init__(self, x):
        self.x = x

    def __getstate__(self):
        return {"y": self.x}

    def __setstate__(self, state):
        self.x = state["y"] * 10


@pytest.fixture(autouse=True)
def _no_safe_globals():
    serialization.clear_safe_globals()
    yield
    serialization.clear_safe_globals()


def _saved(obj, **kwargs) -> io.BytesIO:
    buf = io.BytesIO()
    minitorch.save(obj, buf, **kwargs)
    buf.seek(0)
    return buf


# --- safe globals ---


def test_add_safe_globals_lets_weights_only_load_build_them():
    obj = {"args": argparse.Namespace(lr=0.1), "w": minitorch.ones(2)}
    with pytest.raises(pickle.UnpicklingError, match="argparse.Namespace.*add_safe_globals"):
        minitorch.load(_saved(obj))
    serialization.add_safe_globals([argparse.Namespace])
    assert serialization.get_safe_globals() == [argparse.Namespace]
    out = minitorch.load(_saved(obj))
    assert out["args"] == argparse.Namespace(lr=0.1)
    np.testing.assert_array_equal(out["w"].numpy(), [1.0, 1.0])
    serialization.clear_safe_globals()
    assert serialization.get_safe_globals() == []
    with pytest.raises(pickle.UnpicklingError):
        minitorch.load(_saved(obj))


def test_safe_globals_reduce_newobj_and_build_paths():
    obj = {"c": Color.RED, "cfg": Config(0.1, "x"), "s": Slotted(3), "u": Custom(2)}
    serialization.add_safe_globals([Color, Config, Slotted, Custom])
    out = minitorch.load(_saved(obj))
    assert out["c"] is Color.RED  # REDUCE of the class
    assert out["cfg"] == Config(0.1, "x")  # NEWOBJ + BUILD into __dict__
    assert out["s"].a == 3  # BUILD of slot state
    assert out["u"].x == 20  # BUILD through __setstate__


def test_safe_globals_context_manager_removes_on_exit():
    obj = {"args": argparse.Namespace(lr=0.1)}
    serialization.add_safe_globals([Config])
    with serialization.safe_globals([argparse.Namespace]):
        assert set(serialization.get_safe_globals()) == {Config, argparse.Namespace}
        assert minitorch.load(_saved(obj))["args"].lr == 0.1
    assert serialization.get_safe_globals() == [Config]
    with pytest.raises(pickle.UnpicklingError):
        minitorch.load(_saved(obj))


def test_safe_globals_tuple_form_names_the_global():
    obj = {"s": Slotted(1)}
    serialization.add_safe_globals([(Slotted, "elsewhere.Slotted")])
    with pytest.raises(pickle.UnpicklingError):
        minitorch.load(_saved(obj))  # the checkpoint names it by its own module
    serialization.add_safe_globals([(Slotted, f"{__name__}.Slotted")])
    assert minitorch.load(_saved(obj))["s"].a == 1


def test_malformed_safe_global_entries_raise_as_torch():
    serialization.add_safe_globals([(Slotted, "a", "b")])
    with pytest.raises(ValueError, match="tuple of length 2"):
        minitorch.load(_saved({"w": minitorch.ones(1)}))
    serialization.clear_safe_globals()
    serialization.add_safe_globals([(Slotted, 3)])
    with pytest.raises(TypeError, match="str of callable full path"):
        minitorch.load(_saved({"w": minitorch.ones(1)}))


def test_safe_globals_never_unblock_os_and_sys():
    serialization.add_safe_globals([os.getcwd, (os.getcwd, "os.getcwd")])
    for name in ("posix", "os"):
        payload = pickle.dumps({"f": os.getcwd}, protocol=2).replace(
            f"c{os.getcwd.__module__}\ngetcwd".encode(), f"c{name}\ngetcwd".encode()
        )
        buf = _saved({"f": None})
        with pytest.raises(pickle.UnpicklingError, match=f"module {name} is blocked"):
            minitorch.load(io.BytesIO(_replace_pickle(buf.getvalue(), payload)))


def _replace_pickle(checkpoint: bytes, payload: bytes) -> bytes:
    """The checkpoint with its data.pkl replaced (a hand-made hostile file)."""
    import zipfile

    src = zipfile.ZipFile(io.BytesIO(checkpoint))
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as dst:
        for info in src.infolist():
            data = payload if info.filename.endswith("data.pkl") else src.read(info)
            dst.writestr(info.filename, data)
    return out.getvalue()


def test_get_unsafe_globals_in_checkpoint():
    obj = {"args": argparse.Namespace(lr=0.1), "cfg": Config(1.0, "a"), "w": minitorch.ones(2)}
    buf = _saved(obj)
    assert sorted(serialization.get_unsafe_globals_in_checkpoint(buf)) == [
        "argparse.Namespace",
        f"{__name__}.Config",
    ]
    serialization.add_safe_globals([Config])
    buf.seek(0)
    assert serialization.get_unsafe_globals_in_checkpoint(buf) == ["argparse.Namespace"]
    with pytest.raises(ValueError, match="checkpoint"):
        serialization.get_unsafe_globals_in_checkpoint(io.BytesIO(pickle.dumps(1)))


# --- the legacy format ---


def test_reads_a_legacy_file_written_by_torch():
    for weights_only in (True, False):
        out = minitorch.load(io.BytesIO(TORCH_LEGACY), weights_only=weights_only)
        np.testing.assert_array_equal(out["w"].numpy(), [0.0, 1.0, 2.0])
        np.testing.assert_array_equal(out["v"].numpy(), [2.0, 3.0])
        assert out["w"].dtype == minitorch.float32


def test_legacy_round_trip_keeps_values_types_and_sharing(tmp_path):
    base = minitorch.arange(10.0)
    obj = {
        "base": base,
        "view": base[2:5],
        "t": minitorch.arange(6.0).reshape(2, 3).t(),
        "i": minitorch.tensor([1, -2]),
        "h": minitorch.ones(3, dtype=minitorch.float16),
        "b": minitorch.tensor([True, False]),
        "p": minitorch.nn.Parameter(minitorch.ones(2, 2)),
        "n": 5,
    }
    path = tmp_path / "legacy.pt"
    minitorch.save(obj, path, _use_new_zipfile_serialization=False)
    assert path.read_bytes()[:1] == b"\x80"  # a pickle stream, not a zip archive
    for weights_only in (True, False):
        out = minitorch.load(path, weights_only=weights_only)
        for key in ("base", "view", "t", "i", "h", "b", "p"):
            np.testing.assert_array_equal(
                out[key].detach().numpy(), obj[key].detach().numpy(), err_msg=key
            )
            assert out[key].dtype == obj[key].dtype, key
        assert out["t"].stride() == (1, 3)
        assert isinstance(out["p"], minitorch.nn.Parameter) and out["n"] == 5
        out["base"][3] = 100.0  # base and view share one storage record
        assert out["view"][1].item() == 100.0


def test_legacy_load_honours_map_location(device):
    buf = _saved({"w": minitorch.arange(4.0)}, _use_new_zipfile_serialization=False)
    seen = []

    def ml(storage, location):
        seen.append(location)
        return storage.to(device)

    out = minitorch.load(buf, map_location=ml)
    assert seen == ["cpu"] and out["w"].device.type == minitorch.device(device).type
    np.testing.assert_array_equal(out["w"].cpu().numpy(), [0.0, 1.0, 2.0, 3.0])
    buf.seek(0)
    out = minitorch.load(buf, map_location=device)
    np.testing.assert_array_equal(out["w"].cpu().numpy(), [0.0, 1.0, 2.0, 3.0])


def test_legacy_load_refuses_mmap_and_unsafe_globals(tmp_path):
    path = tmp_path / "legacy.pt"
    minitorch.save({"w": minitorch.ones(1)}, path, _use_new_zipfile_serialization=False)
    with pytest.raises(RuntimeError, match="mmap can only be used"):
        minitorch.load(path, mmap=True)
    buf = _saved({"a": argparse.Namespace(x=1)}, _use_new_zipfile_serialization=False)
    with pytest.raises(pickle.UnpicklingError, match="argparse.Namespace"):
        minitorch.load(buf)
    buf.seek(0)
    assert minitorch.load(buf, weights_only=False)["a"].x == 1


def test_truncated_legacy_file_is_a_clear_error():
    data = _saved({"w": minitorch.arange(8.0)}, _use_new_zipfile_serialization=False).getvalue()
    with pytest.raises(RuntimeError, match="truncated or corrupted"):
        minitorch.load(io.BytesIO(data[:-5]))


def test_plain_pickle_is_still_refused():
    with pytest.raises(RuntimeError, match="plain pickle"):
        minitorch.load(io.BytesIO(pickle.dumps({"a": 1}, protocol=2)))


def test_save_without_byteorder_record():
    import zipfile

    buf = _saved({"w": minitorch.ones(2)}, _disable_byteorder_record=True)
    assert not any(n.endswith("/byteorder") for n in zipfile.ZipFile(buf).namelist())
    buf.seek(0)
    np.testing.assert_array_equal(minitorch.load(buf)["w"].numpy(), [1.0, 1.0])
