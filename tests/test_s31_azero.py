"""Session 31 (helper azero): torch-free checks of the library fixes the AlphaZero / MuZero
programs in tests/reference/test_s31_azero_reference.py found, with torch 2.13's values and
messages written out: masked_scatter's argument checks (source dtype first, in torch's words;
the mask's dtype named as torch names it; a uint8 mask's deprecation warning) and the
masked-scatter of Dirichlet noise into the legal moves of a root prior; and the
DeprecationWarning of torch's device-specific autocast state functions."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import minitorch as mt


def _legal():
    return mt.tensor([[True, False, True], [False, True, True]])


def test_masked_scatter_mixes_noise_into_legal_moves():
    prior = mt.tensor([[0.5, 0.0, 0.5], [0.0, 0.25, 0.75]], dtype=mt.float64)
    eta = mt.tensor([0.1, 0.9, 0.3, 0.7], dtype=mt.float64)
    mixed = prior.masked_scatter(_legal(), 0.75 * prior[_legal()] + 0.25 * eta)
    np.testing.assert_allclose(
        mixed.numpy(), [[0.4, 0.0, 0.6], [0.0, 0.2625, 0.7375]], rtol=1e-15, atol=0
    )
    buf = mt.zeros(2, 3)
    buf.masked_scatter_(_legal(), mt.tensor([1.0, 2.0, 3.0, 4.0]))
    assert buf.tolist() == [[1.0, 0.0, 2.0], [0.0, 3.0, 4.0]]


@pytest.mark.parametrize("inplace", [False, True])
@pytest.mark.parametrize(
    "self_dtype, source_dtype, names",
    [
        (mt.float32, mt.int64, "Float and Long"),
        (mt.float32, mt.float16, "Float and Half"),
        (mt.bfloat16, mt.float16, "BFloat16 and Half"),
        (mt.int64, mt.float32, "Long and Float"),
        (mt.float32, mt.bool, "Float and Bool"),
    ],
)
def test_masked_scatter_source_dtype_message(inplace, self_dtype, source_dtype, names):
    x = mt.zeros(2, 3, dtype=self_dtype)
    src = mt.ones(4, dtype=source_dtype)
    op = x.masked_scatter_ if inplace else x.masked_scatter
    # torch's text: the op without the underscore, and no space after "got"
    want = f"masked_scatter: expected self and source to have same dtypes but got{names}"
    with pytest.raises(RuntimeError) as e:
        op(_legal(), src)
    assert str(e.value) == want


@pytest.mark.parametrize(
    "mask_dtype, name", [(mt.int64, "Long"), (mt.int32, "Int"), (mt.float32, "Float")]
)
def test_masked_scatter_mask_dtype_message(mask_dtype, name):
    x = mt.zeros(2, 3)
    for op in (x.masked_scatter, x.masked_scatter_, lambda m, s: mt.masked_scatter(x, m, s)):
        with pytest.raises(RuntimeError) as e:
            op(_legal().to(mask_dtype), mt.ones(4))
        assert str(e.value) == (
            f"masked_scatter_ only supports boolean masks, but got mask with dtype {name}"
        )


def test_masked_scatter_source_dtype_is_checked_before_the_mask():
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with pytest.raises(RuntimeError, match="gotFloat and Long"):
            mt.zeros(3).masked_scatter(mt.tensor([1, 0, 1], dtype=mt.uint8), mt.tensor([1, 2]))
    assert caught == []  # torch warns about a uint8 mask only once the dtypes agree


@pytest.mark.parametrize("inplace", [False, True])
def test_masked_scatter_uint8_mask_warns_then_raises(inplace):
    x = mt.zeros(3)
    op = x.masked_scatter_ if inplace else x.masked_scatter
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with pytest.raises(RuntimeError) as e:
            op(mt.tensor([1, 0, 1], dtype=mt.uint8), mt.tensor([1.0, 2.0]))
    assert str(e.value) == (
        "masked_scatter_ only supports boolean masks, but got mask with dtype Byte"
    )
    assert [(w.category, str(w.message)) for w in caught] == [
        (
            UserWarning,
            "masked_scatter_ received a mask with dtype torch.uint8, this behavior is now "
            "deprecated,please use a mask with dtype torch.bool instead.",
        )
    ]
    assert caught[0].filename == __file__


def test_masked_fill_keeps_its_own_dtype_names():
    # masked_fill names the mask's dtype by its C++ type, unlike masked_scatter
    with pytest.raises(RuntimeError) as e:
        mt.zeros(3).masked_fill(mt.tensor([1, 0, 1], dtype=mt.uint8), 1.0)
    assert str(e.value) == (
        "masked_fill_ only supports boolean masks, but got mask with dtype unsigned char"
    )
    with pytest.raises(RuntimeError) as e:
        mt.zeros(3).masked_fill_(mt.tensor([1, 0, 1]), 1.0)
    assert str(e.value) == (
        "masked_fill_ only supports boolean masks, but got mask with dtype long int"
    )


@pytest.mark.parametrize(
    "call, args, want",
    [
        ("get_autocast_cpu_dtype()", (), "get_autocast_dtype('cpu')"),
        ("get_autocast_gpu_dtype()", (), "get_autocast_dtype('cuda')"),
        ("is_autocast_cpu_enabled()", (), "is_autocast_enabled('cpu')"),
        ("set_autocast_cpu_dtype(dtype)", (mt.bfloat16,), "set_autocast_dtype('cpu', dtype)"),
        ("set_autocast_gpu_dtype(dtype)", (mt.float16,), "set_autocast_dtype('cuda', dtype)"),
        ("set_autocast_cpu_enabled(enabled)", (False,), "set_autocast_enabled('cpu', enabled)"),
    ],
)
def test_device_specific_autocast_state_functions_warn_deprecated(call, args, want):
    fn = getattr(mt, call.split("(")[0])
    for _ in range(2):  # at every call, as torch's
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            fn(*args)
        assert [(w.category, str(w.message)) for w in caught] == [
            (DeprecationWarning, f"torch.{call} is deprecated. Please use torch.{want} instead.")
        ]
        assert caught[0].filename == __file__
    assert mt.get_autocast_dtype("cpu") is mt.bfloat16
    assert mt.get_autocast_dtype("cuda") is mt.float16
    assert not mt.is_autocast_enabled("cpu")
