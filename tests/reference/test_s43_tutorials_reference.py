"""Session 43, tutorial programs against torch: what they found. An unseeded program draws
other numbers in every run under both libraries (torch seeds its default CPU generator from
/dev/urandom; a new Generator() has the fixed default seed in both), and an LSTM fed an
unsorted PackedSequence with a malformed hx raises torch's error (hx[0] is permuted before
hx[1] is read); the char-RNN program that found it (RNN/GRU/LSTM on a packed batch with an
initial state) records the same values as torch. Saved empty tensors load with torch's strides,
from either library's file."""

from __future__ import annotations

import io
import os
import subprocess
import sys

import pytest

import minitorch

from ._programs import assert_calls_match, assert_program_matches, run_calls

torch = pytest.importorskip("torch")

_DRAW = (
    "import importlib, sys; t = importlib.import_module(sys.argv[1]); "
    "print(t.initial_seed(), t.rand(2).tolist(), t.Generator().initial_seed())"
)


def _unseeded(lib: str, runs: int) -> list[list[str]]:
    """(initial seed, rand(2), a new Generator's seed) of `runs` fresh unseeded processes."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [os.getcwd(), env.get("PYTHONPATH")]))
    out = []
    for _ in range(runs):
        done = subprocess.run(
            [sys.executable, "-c", _DRAW, lib], capture_output=True, text=True, env=env, check=True
        )
        out.append(done.stdout.split())
    return out


def test_unseeded_runs_differ_as_in_torch():
    # torch (one run: its import is slow): the default CPU seed is not the fixed one a new
    # Generator gets, so it comes from the OS (getDefaultCPUGenerator)
    (t,) = _unseeded("torch", 1)
    assert t[-1] == str(torch.Generator().initial_seed()) == "67280421310721" != t[0]
    a, b = _unseeded("minitorch", 2)
    assert a[-1] == b[-1] == "67280421310721" != a[0]
    assert a[0] != b[0] and a[1:3] != b[1:3], "two unseeded runs drew the same numbers"


_HX = {
    "t132": "z(1, 3, 2)",
    "t232": "z(2, 3, 2)",
    "t32": "z(3, 2)",
    "t2132": "z(2, 1, 3, 2)",
    "t122": "z(1, 2, 2)",
    "t12": "z(1, 2)",
    "t2": "z(2)",
    "tup1": "(z(1, 3, 2),)",
    "tup3": "(z(1, 3, 2),) * 3",
    "tupbad": "(z(1, 2, 2), z(1, 3, 2))",
    "tupbad2": "(z(1, 3, 2), z(1, 2, 2))",
    "list": "[z(1, 3, 2), z(1, 3, 2)]",
    "mixed": "(z(1, 3, 2), 3)",
    "mixed0": "(3, z(1, 3, 2))",
    "t5": "z(2, 5, 2)",
    "t1x": "z(1, 1, 2)",
    "tuple2d": "(z(3, 2), z(3, 2))",
}


def _lstm_hx_calls(lib, rec):
    U = lib.nn.utils.rnn
    padded = lib.arange(45.0).reshape(3, 5, 3) / 45
    env = {
        "m": lib.nn.LSTM(3, 2),
        "z": lib.zeros,
        "unsorted": U.pack_padded_sequence(
            padded, [2, 5, 3], batch_first=True, enforce_sorted=False
        ),
        "b3": padded.transpose(0, 1)[:4],
        "unb": padded[0],
    }
    cases = [f"m({inp}, {hx})" for inp in ("unsorted", "b3", "unb") for hx in _HX.values()]
    run_calls(cases, env, rec)


def test_lstm_malformed_hx_errors_match():
    assert_calls_match(_lstm_hx_calls, torch)


def _packed_char_rnn(lib, dt, rec):
    """The char-RNN tutorial's packed batch with an initial state, each recurrent kind."""
    U = lib.nn.utils.rnn
    lib.manual_seed(0)
    seqs = [lib.randn(n, 3, dtype=dt) for n in (2, 5, 3)]
    packed = U.pack_sequence(seqs, enforce_sorted=False)
    rec("batch_sizes", packed.batch_sizes)
    rec("sorted_indices", packed.sorted_indices)
    for cls in (lib.nn.RNN, lib.nn.GRU, lib.nn.LSTM):
        lib.manual_seed(1)
        m = cls(3, 4, num_layers=2, bidirectional=True, dtype=dt)
        h0 = lib.randn(4, 3, 4, dtype=dt)
        hx = (h0, lib.randn(4, 3, 4, dtype=dt)) if cls is lib.nn.LSTM else h0
        out, h_n = m(packed, hx)
        states = h_n if cls is lib.nn.LSTM else (h_n,)
        padded, lengths = U.pad_packed_sequence(out, batch_first=True, padding_value=-9.0)
        rec(f"{cls.__name__}.out", padded)
        rec(f"{cls.__name__}.lengths", lengths)
        for i, s in enumerate(states):
            rec(f"{cls.__name__}.state{i}", s)
        (padded.sum() + sum(s.sum() for s in states)).backward()
        rec.params(cls.__name__, m, grads=True)


@pytest.mark.parametrize("dt", ["float32", "float64"])
def test_packed_char_rnn_program_matches(dt):
    assert_program_matches(_packed_char_rnn, torch, dt)


_EMPTY = [
    "lib.ones(0, 3).t()",
    "lib.empty_strided((2, 0), (5, 7))",
    "lib.ones(2, 0, 3).permute(2, 0, 1)",
    "lib.empty_strided((2, 0, 2), (0, 0, 0))",
    "lib.ones(0, 3, dtype=lib.float16).t()",
    "lib.ones(0, 3)",
    "lib.ones(4, 3)[:, :0]",
    "lib.ones(3, 4)[:0]",
]


def _saved(lib, legacy):
    buf = io.BytesIO()
    made = [eval(code, {"lib": lib}) for code in _EMPTY]  # noqa: S307
    lib.save(made, buf, _use_new_zipfile_serialization=not legacy)
    return buf.getvalue()


def _layouts(tensors):
    return [(tuple(t.shape), t.stride(), t.storage_offset(), str(t.dtype)) for t in tensors]


@pytest.mark.parametrize("legacy", [False, True])
def test_empty_tensors_load_with_torchs_strides(legacy):
    want = _layouts(torch.load(io.BytesIO(_saved(torch, legacy))))
    assert _layouts(minitorch.load(io.BytesIO(_saved(torch, legacy)))) == want
    assert _layouts(minitorch.load(io.BytesIO(_saved(minitorch, legacy)))) == want
    assert _layouts(torch.load(io.BytesIO(_saved(minitorch, legacy)))) == want
