"""Fixes found by session 22's differential fuzzers outside the helpers' own files."""

import math
import subprocess
import sys
import warnings

import pytest

import minitorch as torch


def test_clone_channels_last_copies_an_input_already_in_that_layout():
    # torch: clone always copies; a channels_last clone of a tensor already laid out so (or of
    # one whose channels are size 1) must not alias it
    for x in (
        torch.zeros(1, 1, 3, 4),
        torch.zeros(2, 3, 4, 5).contiguous(memory_format=torch.channels_last),
    ):
        c = x.clone(memory_format=torch.channels_last)
        x.add_(1)
        assert c.sum().item() == 0
        assert c.is_contiguous(memory_format=torch.channels_last)
    x = torch.zeros(2, 3, 4, 5, 6).contiguous(memory_format=torch.channels_last_3d)
    c = x.clone(memory_format=torch.channels_last_3d)
    x.add_(1)
    assert c.sum().item() == 0


def test_index_ops_on_a_0d_tensor_with_an_empty_index():
    # torch: an empty index fills/copies nothing into a 0-d tensor; index_select wants one value
    x = torch.tensor(5.0)
    empty = torch.tensor([], dtype=torch.long)
    assert x.index_fill_(0, empty, 7.0).item() == 5.0
    assert x.index_fill(0, empty, 7.0).item() == 5.0
    assert x.index_copy_(0, empty, torch.tensor([])).item() == 5.0
    assert x.index_fill(0, torch.tensor([0]), 7.0).item() == 7.0
    with pytest.raises(RuntimeError, match=r"Index to scalar can have only 1 value, got 0 value"):
        x.index_select(0, empty)
    g = torch.tensor(2.0, dtype=torch.float64, requires_grad=True)
    (g * 1).index_fill(0, empty, 3.0).backward()
    assert g.grad.item() == 1.0


def test_index_ops_out_of_range_and_dtype_texts():
    cases = [
        (lambda: torch.zeros(3).index_select(0, torch.tensor([3])), IndexError,
         "index out of range in self"),
        (lambda: torch.zeros(3, 2).index_select(0, torch.tensor([-1])), IndexError,
         "index out of range in self"),
        (lambda: torch.zeros(3).index_add_(0, torch.tensor([3]), torch.ones(1)), IndexError,
         "index out of range in self"),
        (lambda: torch.zeros(3, 2).index_add_(0, torch.tensor([3]), torch.ones(1, 2)),
         RuntimeError, "index 3 is out of bounds for dimension 0 with size 3"),
        (lambda: torch.zeros(3).index_fill_(0, torch.tensor([-4]), 1.0), IndexError,
         "index -4 is out of bounds for dimension 0 with size 3"),
        (lambda: torch.zeros(3).index_copy_(0, torch.tensor([3]), torch.ones(1)), IndexError,
         "index_copy_(): index 3 is out of bounds for dimension 0 with size 3"),
        (lambda: torch.zeros(3).index_add(0, torch.tensor([1], dtype=torch.short), torch.ones(1)),
         RuntimeError, "index_add_(): Expected dtype int32/int64 for index but got: Short"),
        (lambda: torch.zeros(0).take(torch.tensor([0])), IndexError,
         "take(): tried to take from an empty tensor"),
        (lambda: torch.zeros(0).put_(torch.tensor([0]), torch.ones(1)), IndexError,
         "put_(): Tried to put elements into an empty tensor"),
    ]  # fmt: skip
    for fn, err, text in cases:
        with pytest.raises(err) as info:
            fn()
        assert str(info.value) == text


def test_range_factories_edge_cases_as_torch():
    nan = float("nan")
    with pytest.raises(RuntimeError, match="step must be nonzero"):
        torch.arange(0, 5, nan)
    with pytest.raises(RuntimeError, match="step must be nonzero"):
        torch.arange(0, 5, nan, dtype=torch.int64)
    with pytest.raises(  # torch's parser refuses it before the deprecation warning
        TypeError, match='range\\(\\) missing 1 required positional arguments: "end"'
    ):
        torch.range(3)
    # bool: torch fills 0 or 1 element of any dtype, refuses more
    assert torch.linspace(3, 1, 1, dtype=torch.bool).tolist() == [True]
    assert torch.linspace(0, 1, 0, dtype=torch.bool).shape == (0,)
    assert torch.logspace(0, 1, 0, dtype=torch.bool).shape == (0,)
    with pytest.raises(NotImplementedError, match="linspace_cpu"):
        torch.linspace(0, 1, 2, dtype=torch.bool)
    # integer dtypes: nan/inf/out-of-range endpoints are c10's overflow error, also for one step
    for args, dt, name in [
        ((nan, 1, 3), torch.int64, "int64_t"),
        ((0, float("inf"), 3), torch.int32, "int"),
        ((nan, 1, 1), torch.int16, "int16_t"),
        ((300, 1, 1), torch.uint8, "uint8_t"),
    ]:
        with pytest.raises(RuntimeError, match=f"converted to type {name} without overflow"):
            torch.linspace(*args, dtype=dt)
    with pytest.raises(RuntimeError, match="int64_t without overflow"):
        torch.logspace(nan, 1, 1, dtype=torch.int64)
    assert torch.linspace(-1, 1, 1, dtype=torch.uint8).tolist() == [255]
    assert torch.linspace(nan, 1, 0, dtype=torch.int16).shape == (0,)
    assert torch.logspace(nan, 1, 0, dtype=torch.int64).shape == (0,)
    # C's pow: 0 ** negative is inf, -0 ** odd negative -inf; a negative base ** 0.5 nan
    assert torch.logspace(-1, 1, 3, base=0.0).tolist() == [float("inf"), 1.0, 0.0]
    assert torch.logspace(-1, 1, 3, base=-0.0).tolist() == [float("-inf"), 1.0, -0.0]
    assert math.isnan(torch.logspace(0.5, 1, 1, base=-2).item())
    assert torch.logspace(0, 1, 1, base=-2).tolist() == [1.0]


def test_pixel_unshuffle_of_an_empty_input_keeps_its_shape():
    # torch returns an empty input's copy as it is
    x = torch.zeros(0, 1, 4, 4, requires_grad=True)
    y = torch.nn.functional.pixel_unshuffle(x, 2)
    assert y.shape == (0, 1, 4, 4) and type(y.grad_fn).__name__ == "PixelUnshuffleBackward0"
    assert torch.nn.functional.pixel_unshuffle(torch.zeros(2, 0, 4, 4), 2).shape == (2, 0, 4, 4)
    with pytest.raises(RuntimeError, match="divisible by downscale_factor"):
        torch.nn.functional.pixel_unshuffle(torch.zeros(0, 1, 3, 4), 2)


def test_same_padding_with_an_even_kernel_warns_once(fresh_once):
    x = torch.zeros(1, 2, 5)
    with pytest.warns(UserWarning, match="padding='same' with even kernel lengths and odd"):
        assert torch.nn.functional.conv1d(x, torch.zeros(4, 2, 2), padding="same").shape == (
            1,
            4,
            5,
        )
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        torch.nn.functional.conv1d(x, torch.zeros(4, 2, 2), padding="same")  # once per process
        torch.nn.functional.conv1d(x, torch.zeros(4, 2, 3), padding="same")


def test_summing_inf_and_minus_inf_gradients_is_silent():
    # torch: the node's incoming gradients inf and -inf sum to nan without a warning. minitorch's
    # import-time filter holds NumPy's RuntimeWarning (pytest replaces the filters around each
    # test, so a fresh interpreter that shows every RuntimeWarning runs it)
    code = (
        "import math, minitorch as torch\n"
        "x = torch.tensor([1.0], requires_grad=True)\n"
        "(x * float('inf') + x * float('-inf')).sum().backward()\n"
        "assert math.isnan(x.grad.item())\n"
    )
    done = subprocess.run(
        [sys.executable, "-W", "always::RuntimeWarning", "-c", code], capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    assert "RuntimeWarning" not in done.stderr, done.stderr


def test_inplace_add_sub_check_a_bool_or_float_alpha_as_add():
    # torch: the in-place forms make add's alpha checks (the fast in-place path skipped them)
    with pytest.raises(RuntimeError, match="Boolean alpha only supported for Boolean results"):
        torch.zeros(3).add_(torch.ones(3), alpha=True)
    with pytest.raises(RuntimeError, match="Boolean alpha only supported for Boolean results"):
        torch.zeros(3).sub_(1, alpha=False)
    with pytest.raises(RuntimeError, match="integral input tensors, argument alpha must not"):
        torch.zeros(3, dtype=torch.long).add_(torch.ones(3, dtype=torch.long), alpha=1.0)
    b = torch.zeros(3, dtype=torch.bool).add_(torch.ones(3, dtype=torch.bool), alpha=True)
    assert b.tolist() == [True, True, True]
    assert torch.zeros(3).add_(torch.ones(3), alpha=1.0).tolist() == [1.0, 1.0, 1.0]
    assert torch.zeros(3).sub_(torch.ones(3), alpha=2).tolist() == [-2.0, -2.0, -2.0]
