"""Session 29 (helper imgproc): torch-free regression tests of the library fixes the image
processing reference programs (tests/reference/test_s29_imgproc_reference.py) led to. The
expected messages and warnings are torch 2.13's, written as literals."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import minitorch as mt

F64 = mt.float64

_BYTE_FILL = "masked_fill_ only supports boolean masks, but got mask with dtype unsigned char"


def _calls(fn):
    """(error text or None, warning messages) of fn()."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            fn()
            err = None
        except Exception as e:  # noqa: BLE001 - the exception is the result
            err = f"{type(e).__name__}: {e}"
    return err, [str(w.message) for w in caught]


@pytest.mark.parametrize("method", ["index_put_", "index_put"])
def test_index_put_one_value_at_a_uint8_mask_raises_without_the_uint8_warning(method):
    # torch runs it as masked_fill_ (bool masks only) before reading the mask as an index
    x = mt.arange(10.0)
    mask = mt.tensor([0, 1] * 5, dtype=mt.uint8)
    for value in (mt.tensor(1.0), mt.tensor([1.0])):
        err, warned = _calls(lambda v=value: getattr(x, method)((mask,), v))
        assert err == "RuntimeError: " + _BYTE_FILL
        assert warned == []


def test_index_put_uint8_mask_of_the_wrong_shape_is_an_index_error_without_the_warning():
    x = mt.arange(10.0)
    err, warned = _calls(lambda: x.index_put_((mt.tensor([0, 1] * 4, dtype=mt.uint8),),
                                              mt.tensor(1.0)))  # fmt: skip
    assert err == (
        "IndexError: The shape of the mask [8] at index 0 does not match the shape of the "
        "indexed tensor [10] at index 0"
    )
    assert warned == []


def test_index_put_uint8_mask_with_many_values_or_accumulating_warns_and_writes():
    x = mt.arange(10.0)
    mask = mt.tensor([0, 1] * 5, dtype=mt.uint8)
    deprecated = (
        "indexing with dtype torch.uint8 is now deprecated, please use a dtype torch.bool instead."
    )
    with pytest.warns(UserWarning, match="indexing with dtype torch.uint8"):
        out = x.index_put((mask,), mt.arange(5.0))
    np.testing.assert_array_equal(out.numpy(), [0, 0, 2, 1, 4, 2, 6, 3, 8, 4])
    err, warned = _calls(lambda: x.clone().index_put_((mask,), mt.tensor(1.0), accumulate=True))
    assert err is None and warned == [deprecated]


def test_index_put_values_not_a_tensor_names_its_position():
    x = mt.zeros(3)
    idx = (mt.tensor([0]),)
    cases = [
        (lambda: x.index_put_(idx, 1.0), "index_put_(): argument 'values' (position 2)"),
        (lambda: x.index_put(idx, 1.0), "index_put(): argument 'values' (position 2)"),
        (lambda: mt.index_put(x, idx, 1.0), "index_put(): argument 'values' (position 3)"),
        (lambda: mt.index_put_(x, idx, 1.0), "index_put_(): argument 'values' (position 3)"),
        (lambda: x.index_put_(idx, values=1.0), "index_put_(): argument 'values'"),
    ]
    for fn, head in cases:
        with pytest.raises(TypeError) as info:
            fn()
        assert str(info.value) == head + " must be Tensor, not float"


def test_antialias_resize_keeps_a_nan_pixel_inside_its_windows():
    # a depth map with an invalid (NaN) pixel: torch's kernels sum each output's window only, so
    # the outputs whose window misses the NaN stay finite
    F = mt.nn.functional
    x = mt.tensor([[[[1.0, 2, float("nan"), 4, 5, 6, 7, 8]]]], dtype=F64)
    out = F.interpolate(x, size=(1, 3), mode="bilinear", antialias=True)
    np.testing.assert_allclose(out.numpy().ravel(), [np.nan, np.nan, 6.894736842105262])
    out = F.interpolate(x, size=(1, 4), mode="bicubic", antialias=True)
    np.testing.assert_allclose(out.numpy().ravel(), [np.nan, np.nan, np.nan, 7.456066945606695])
    img = mt.arange(30.0, dtype=F64).view(1, 1, 5, 6) / 7
    img[0, 0, 1, 1] = float("nan")
    out = F.interpolate(img, size=(2, 3), mode="bilinear", antialias=True)
    want = [[np.nan, np.nan, 1.4693877551020404], [np.nan, np.nan, 3.183673469387754]]
    np.testing.assert_allclose(out.numpy()[0, 0], want, rtol=1e-14)
    # uint8 resizes (the same resampler) are unchanged: exact integers
    u8 = (mt.arange(48).view(1, 1, 6, 8) * 5).to(mt.uint8)
    got = F.interpolate(u8, size=(3, 3), mode="bilinear", antialias=True)
    assert got.dtype == mt.uint8
    assert got.tolist() == [[[[35, 47, 58], [106, 118, 129], [177, 189, 200]]]]
