"""Session 31 (helper style): torch-free checks of the style-transfer building blocks the
reference programs in tests/reference/test_s31_style_reference.py lean on, and of the one library
difference the session fixed: torch warns once per process (TORCH_WARN_ONCE) when it wraps a
read-only NumPy array or buffer, where minitorch warned on every call (an image pipeline reading
frames as read-only arrays printed it for every frame), and the buffer warning lacked torch's
closing sentence. The values below are torch 2.13's."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import minitorch as mt
from minitorch import _settings

F64 = mt.float64


def _close(got, want, err_msg=""):
    np.testing.assert_allclose(np.asarray(got, dtype=float), want, rtol=1e-12, atol=1e-14,
                               err_msg=err_msg)  # fmt: skip


def _read_only(shape=(2, 3)):
    a = np.arange(float(np.prod(shape))).reshape(shape)
    a.flags.writeable = False
    return a


@pytest.mark.parametrize("make", [mt.from_numpy, mt.as_tensor, mt.asarray])
def test_read_only_array_warns_once_per_process(make, monkeypatch):
    monkeypatch.setattr(_settings, "_warned_once", set())
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for _ in range(3):
            make(_read_only())
    assert [str(w.message)[:37] for w in caught] == ["The given NumPy array is not writable"]
    assert caught[0].category is UserWarning
    assert caught[0].filename == __file__  # pointed at the user's line


def test_read_only_buffer_warns_once_per_process(monkeypatch):
    monkeypatch.setattr(_settings, "_warned_once", set())
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for _ in range(3):
            t = mt.frombuffer(b"\x01\x02\x03\x04", dtype=mt.uint8)
    assert t.tolist() == [1, 2, 3, 4]
    assert [str(w.message)[:33] for w in caught] == ["The given buffer is not writable,"]
    assert str(caught[0].message).endswith(
        "before converting it to a tensor. This type of warning will be suppressed for the rest "
        "of this program."
    )
    assert caught[0].filename == __file__


def test_read_only_warnings_every_time_with_warn_always(monkeypatch):
    monkeypatch.setattr(_settings, "_warned_once", set())
    monkeypatch.setitem(_settings._state, "warn_always", True)  # torch.set_warn_always(True)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        mt.from_numpy(_read_only())
        mt.from_numpy(_read_only())
        mt.frombuffer(b"\x01\x02", dtype=mt.uint8)
        mt.frombuffer(b"\x01\x02", dtype=mt.uint8)
    assert len(caught) == 4


def test_read_only_array_is_still_shared_and_writable_through():
    a = _read_only((3,))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        t = mt.from_numpy(a)
    t += 1
    assert a.tolist() == [1.0, 2.0, 3.0]


def test_antialiased_downscale_values():
    x = mt.arange(24, dtype=F64).reshape(1, 2, 3, 4) / 23
    F = mt.nn.functional
    _close(
        F.interpolate(x, size=(2, 3), mode="bilinear", antialias=True).flatten(),
        [0.07826086956521737, 0.13043478260869565, 0.18260869565217389, 0.29565217391304344,
         0.34782608695652173, 0.39999999999999997, 0.5999999999999999, 0.6521739130434782,
         0.7043478260869565, 0.8173913043478259, 0.8695652173913043, 0.9217391304347826],
    )  # fmt: skip
    _close(
        F.interpolate(x, size=(2, 3), mode="bicubic", antialias=True, align_corners=True).flatten(),
        [0.1296196948522219, 0.19535769963623767, 0.24723176260475338, 0.3457455664074877,
         0.41148357119150347, 0.4633576341600192, 0.6513588252870045, 0.7170968300710203,
         0.7689708930395361, 0.8674846968422704, 0.9332227016262862, 0.9850967645948019],
    )  # fmt: skip


def test_gram_adain_stats_and_histogram_matching():
    x = mt.arange(24, dtype=F64).reshape(1, 2, 3, 4) / 23
    f = x.view(1, 2, 12)
    _close(
        (mt.bmm(f, f.transpose(1, 2)) / x.numel()).flatten(),
        [0.03985507246376812, 0.10223692501575299, 0.10223692501575299, 0.3007246376811594],
    )
    std = (x.var((2, 3), unbiased=False) + 1e-5).sqrt()
    _close(std.flatten(), [0.15012255023219118, 0.15012255023219126])
    src = mt.tensor([[0.3, 0.1, 0.2, 0.9]], dtype=F64)
    ref = mt.tensor([[5.0, 7.0, 6.0, 8.0]], dtype=F64)
    _, idx = src.sort(1)
    assert mt.empty_like(src).scatter_(1, idx, ref.sort(1).values).tolist() == [
        [7.0, 5.0, 6.0, 8.0]
    ]
    u8 = x.mul(255).round().byte()
    assert u8.dtype == mt.uint8
    assert u8[0, 0].tolist() == [[0, 11, 22, 33], [44, 55, 67, 78], [89, 100, 111, 122]]
