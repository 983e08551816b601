"""Session 43, tutorial programs: what they found, torch-free. The CPU's default generator is
seeded from the OS as torch's is (an unseeded program draws other numbers in every run;
NOTE [ Default seeds ] in minitorch/random.py), seeds from the OS take 64 bits, and an LSTM on
an unsorted PackedSequence permutes hx[0] before it reads hx[1], so a malformed hx (a Tensor
in place of the (h_0, c_0) pair) fails in that index_select, as in torch. A saved empty tensor
loads with its saved strides (a transposed one, empty_strided's), as in torch."""

from __future__ import annotations

import io
import os
import subprocess
import sys

import numpy as np
import pytest

import minitorch
from minitorch import nn
from minitorch.nn.utils import rnn as rnn_utils

_DRAW = (
    "import minitorch; g = minitorch.Generator(); "
    "print(minitorch.initial_seed(), minitorch.rand(3).tolist(), g.initial_seed())"
)


def _fresh_run() -> list[str]:
    """What a fresh interpreter draws without a seed: (initial seed, rand(3), a new
    Generator's seed) as texts."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [os.getcwd(), env.get("PYTHONPATH")]))
    out = subprocess.run(
        [sys.executable, "-c", _DRAW], capture_output=True, text=True, env=env, check=True
    )
    seed, rest = out.stdout.strip().split(" ", 1)
    values, new_seed = rest.rsplit(" ", 1)
    return [seed, values, new_seed]


def test_unseeded_processes_draw_other_numbers_new_generators_do_not():
    a, b = _fresh_run(), _fresh_run()
    assert a[0] != b[0], "the default CPU generator must be seeded from the OS in each process"
    assert a[1] != b[1]
    assert 0 <= int(a[0]) < 2**64
    # torch seeds a new Generator() with its fixed default seed
    assert a[2] == b[2] == "67280421310721"


def test_seed_from_os_takes_64_bits(monkeypatch):
    monkeypatch.setattr(minitorch.random.os, "urandom", lambda n: b"\xff" * n)
    assert minitorch.seed() == 2**64 - 1
    assert minitorch.initial_seed() == 2**64 - 1
    drawn = minitorch.rand(4)
    minitorch.manual_seed(2**64 - 1)
    np.testing.assert_array_equal(drawn.numpy(), minitorch.rand(4).numpy())
    g = minitorch.Generator()
    assert g.seed() == 2**64 - 1 and g.initial_seed() == 2**64 - 1
    monkeypatch.setattr(minitorch.random.os, "urandom", lambda n: bytes(range(1, n + 1)))
    assert minitorch.seed() == int.from_bytes(bytes(range(1, 9)), "little")


def _unsorted_packed():
    padded = minitorch.randn(3, 5, 3, generator=minitorch.Generator().manual_seed(0))
    return rnn_utils.pack_padded_sequence(padded, [2, 5, 3], batch_first=True, enforce_sorted=False)


@pytest.mark.parametrize(
    "hx",
    [
        minitorch.zeros(1, 3, 2),  # a Tensor for the pair: hx[0] is (3, 2)
        minitorch.zeros(2, 3, 2),
        minitorch.zeros(1, 2, 2),
        (minitorch.zeros(3, 2), minitorch.zeros(3, 2)),  # 2-D states with a packed input
    ],
)
def test_lstm_packed_permutes_hx0_before_reading_hx1(hx):
    lstm = nn.LSTM(3, 2)
    with pytest.raises(RuntimeError, match=r"^INDICES element is out of DATA bounds, id=2 "):
        lstm(_unsorted_packed(), hx)


@pytest.mark.parametrize(
    "hx, error, message",
    [
        (minitorch.zeros(3, 2), IndexError, r"^Dimension out of range \(expected to be in range"),
        (minitorch.zeros(1, 1, 3, 2), IndexError, r"^index 1 is out of bounds for dimension 0"),
        ((minitorch.zeros(1, 3, 2), 3), AttributeError, "'int' object has no attribute"),
    ],
)
def test_lstm_packed_malformed_hx_other_errors(hx, error, message):
    with pytest.raises(error, match=message):
        nn.LSTM(3, 2)(_unsorted_packed(), hx)


def test_lstm_packed_well_formed_hx_unchanged():
    # the new check costs nothing and changes nothing for a well-formed pair
    minitorch.manual_seed(1)
    lstm = nn.LSTM(3, 4, num_layers=2, bidirectional=True)
    gen = minitorch.Generator().manual_seed(2)
    seqs = [minitorch.randn(n, 3, generator=gen) for n in (2, 5, 3)]
    h0, c0 = minitorch.randn(4, 3, 4, generator=gen), minitorch.randn(4, 3, 4, generator=gen)
    packed = rnn_utils.pack_sequence(seqs, enforce_sorted=False)
    out, (h_n, c_n) = lstm(packed, (h0, c0))
    padded, lengths = rnn_utils.pad_packed_sequence(out, batch_first=True)
    assert lengths.tolist() == [2, 5, 3]
    for i, s in enumerate(seqs):
        o_i, (h_i, c_i) = lstm(s.unsqueeze(1), (h0[:, i : i + 1], c0[:, i : i + 1]))
        np.testing.assert_allclose(
            padded[i, : len(s)].detach().numpy(), o_i[:, 0].detach().numpy(), atol=1e-6
        )
        np.testing.assert_allclose(
            h_n[:, i].detach().numpy(), h_i[:, 0].detach().numpy(), atol=1e-6
        )
        np.testing.assert_allclose(
            c_n[:, i].detach().numpy(), c_i[:, 0].detach().numpy(), atol=1e-6
        )


_EMPTY = [
    (lambda: minitorch.ones(0, 3).t(), (1, 3)),
    (lambda: minitorch.empty_strided((2, 0), (5, 7)), (5, 7)),
    (lambda: minitorch.ones(2, 0, 3).permute(2, 0, 1), (1, 3, 3)),
    (lambda: minitorch.empty_strided((2, 0, 2), (0, 0, 0)), (0, 0, 0)),
    (lambda: minitorch.ones(0, 3, dtype=minitorch.float16).t(), (1, 3)),
    (lambda: minitorch.ones(0, 3), (3, 1)),
    (lambda: minitorch.ones(4, 3)[:, :0], (3, 1)),  # an empty view of a storage, as before
]


@pytest.mark.parametrize("make, stride", _EMPTY)
@pytest.mark.parametrize("how", ["zip", "legacy", "mmap", "weights_only=False"])
def test_load_keeps_strides_of_empty_tensors(make, stride, how, tmp_path):
    t = make()
    assert t.stride() == stride
    path = tmp_path / "empty.pt"
    minitorch.save({"t": t}, path, _use_new_zipfile_serialization=how != "legacy")
    kw = {"mmap": True} if how == "mmap" else {}
    if how == "weights_only=False":
        kw["weights_only"] = False
    r = minitorch.load(path, **kw)["t"]
    assert (tuple(r.shape), r.stride(), r.dtype) == (tuple(t.shape), stride, t.dtype)
    assert r.is_contiguous() and r.storage_offset() == 0
    buf = io.BytesIO()
    minitorch.save(r, buf)  # and again: a re-save keeps them
    buf.seek(0)
    assert minitorch.load(buf).stride() == stride
