"""Session-22 leftovers: prelu's gradients, activation modules' argument errors, str/bytes/...
index keys, F.linear's error order, add/sub with alpha=True, threshold's overflow checks.
Expected values are torch 2.13's, obtained by running it."""

import warnings

import numpy as np
import pytest

import minitorch as torch
import minitorch.nn.functional as F
from minitorch.autograd import gradcheck, gradgradcheck

_VALID = (
    "only integers, slices (`:`), ellipsis (`...`), None and long or byte Variables are valid "
    "indices (got {})"
)


def _raises(exc, msg, fn, *args, **kwargs):
    with pytest.raises(exc) as info:
        fn(*args, **kwargs)
    assert str(info.value) == msg


# --- 1. prelu ---


@pytest.mark.parametrize("w", [float("inf"), float("-inf")])
def test_prelu_infinite_weight_keeps_positive_gradient(w):
    x = torch.tensor([1.0, -1.0, 0.0, 2.0], dtype=torch.float64, requires_grad=True)
    weight = torch.tensor([w], dtype=torch.float64, requires_grad=True)
    g = torch.tensor([1.0, 2.0, 3.0, 4.0], dtype=torch.float64)
    gx, gw = torch.autograd.grad(F.prelu(x, weight), (x, weight), g)
    np.testing.assert_array_equal(gx.numpy(), [1.0, 2.0 * w, 3.0 * w, 4.0])
    np.testing.assert_array_equal(gw.numpy(), [-2.0])


def test_prelu_second_derivatives_at_zero():
    # torch: the double backward takes x = 0 on the positive branch
    x = torch.tensor([0.0, 1.0, -1.0], dtype=torch.float64, requires_grad=True)
    w = torch.tensor([0.25], dtype=torch.float64, requires_grad=True)
    g = torch.tensor([1.0, 2.0, 3.0], dtype=torch.float64, requires_grad=True)
    gx, gw = torch.autograd.grad(F.prelu(x, w), (x, w), g, create_graph=True)
    assert gx.grad_fn.name() == "PreluKernelBackwardBackward0"
    np.testing.assert_array_equal(gx.detach().numpy(), [0.25, 2.0, 0.75])
    u = torch.tensor([-1.0, -0.5, 0.0], dtype=torch.float64)
    v = torch.tensor([3.0], dtype=torch.float64)
    rx, rw, rg = torch.autograd.grad((gx, gw), (x, w, g), (u, v), retain_graph=True)
    np.testing.assert_array_equal(rx.numpy(), [0.0, 0.0, 9.0])
    np.testing.assert_array_equal(rw.numpy(), [0.0])
    np.testing.assert_array_equal(rg.numpy(), [-1.0, -0.5, -3.0])
    rx, rw, _ = torch.autograd.grad(gw, (x, w, g), v, allow_unused=True)
    np.testing.assert_array_equal(rx.numpy(), [0.0, 0.0, 9.0])
    np.testing.assert_array_equal(rw.numpy(), [0.0])  # (a zero tensor, as torch, not None)


def test_prelu_gradcheck_and_weight_edges():
    gen = np.random.default_rng(0)
    x = torch.tensor(gen.standard_normal((2, 3, 4)), requires_grad=True)
    w = torch.tensor([0.3, -1.7, 2.9], dtype=torch.float64, requires_grad=True)
    assert gradcheck(F.prelu, (x, w))
    assert gradgradcheck(F.prelu, (x, w))
    v = torch.tensor(gen.standard_normal(5), requires_grad=True)
    w1 = torch.tensor([0.3], dtype=torch.float64, requires_grad=True)
    assert gradcheck(F.prelu, (v, w1)) and gradgradcheck(F.prelu, (v, w1))
    # torch uses a weight of the input's ndim as it is, and reshapes the others
    names = []
    for xs, ws in [((), ()), ((), (1,)), ((4,), ()), ((4,), (1,)), ((2, 3), (1,))]:
        a = torch.ones(xs, dtype=torch.float64, requires_grad=True)
        b = torch.ones(ws, dtype=torch.float64, requires_grad=True)
        names.append(F.prelu(a, b).grad_fn.next_functions[1][0].name())
    acc = "torch::autograd::AccumulateGrad"
    assert names == [acc, "ViewBackward0", "ViewBackward0", acc, "ViewBackward0"]


# --- 2. activation modules' argument errors ---


@pytest.mark.parametrize(
    "cls", ["ReLU", "SELU", "SiLU", "Mish", "Hardsigmoid", "Hardswish", "CELU", "Softmax"]
)
def test_activation_module_errors_name_the_class(cls):
    m = getattr(torch.nn, cls)()
    _raises(
        TypeError,
        f"{cls}.forward() got an unexpected keyword argument 'scale'",
        m,
        torch.ones(2, 3),
        scale=1,
    )
    _raises(
        TypeError,
        f"{cls}.__init__() got an unexpected keyword argument 'bogus'",
        getattr(torch.nn, cls),
        bogus=1,
    )


def test_softshrink_logsoftmax_init_errors():
    _raises(
        TypeError,
        "Softshrink.__init__() takes from 1 to 2 positional arguments but 4 were given",
        torch.nn.Softshrink,
        1,
        2,
        3,
    )
    _raises(
        TypeError,
        "LogSoftmax.forward() missing 1 required positional argument: 'input'",
        torch.nn.LogSoftmax(),
    )


# --- 3. index keys torch refuses ---


class _Plain:
    pass


@pytest.mark.parametrize(
    "shape, key, exc, msg",
    [
        ((3,), "st", IndexError, "too many indices for tensor of dimension 1"),
        ((2, 3), "abc", IndexError, "too many indices for tensor of dimension 2"),
        ((2, 3), "st", TypeError, "new(): invalid data type 'str'"),
        ((3,), "a", TypeError, "new(): invalid data type 'str'"),
        ((), "st", IndexError, "too many indices for tensor of dimension 0"),
        ((), 1.5, IndexError, "too many indices for tensor of dimension 0"),
        ((), b"ab", IndexError, "too many indices for tensor of dimension 0"),
        ((), {}, IndexError, "too many indices for tensor of dimension 0"),
        ((3,), b"ab", TypeError, "new(): invalid data type 'bytes'"),
        ((3,), 1.5, IndexError, _VALID.format("float")),
        ((3,), {1: 2}, IndexError, _VALID.format("dict")),
        ((3,), {1}, IndexError, _VALID.format("set")),
        ((3,), _Plain(), IndexError, _VALID.format("_Plain")),
        ((3,), object(), IndexError, _VALID.format("object")),
        ((3,), np.float64(1.5), IndexError, _VALID.format("numpy.float64")),
        ((3,), (1.5, 0), IndexError, "too many indices for tensor of dimension 1"),
        ((2, 3), (5, "a"), IndexError, "index 5 is out of bounds for dimension 0 with size 2"),
        ((2, 3), ("a", 5), TypeError, "new(): invalid data type 'str'"),
        ((2, 3), (0, ["a"]), TypeError, "new(): invalid data type 'str'"),
        ((2, 3), (0, [None, "a"]), RuntimeError, "Could not infer dtype of NoneType"),
        ((2, 3), (0, [1j]), TypeError, "'complex' object cannot be interpreted as an integer"),
    ],
)
def test_refused_index_keys(shape, key, exc, msg):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        _raises(exc, msg, lambda: torch.zeros(shape)[key])

        def put():
            torch.zeros(shape)[key] = 1.0

        _raises(exc, msg, put)


def test_str_key_warns_as_a_sequence():
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        with pytest.raises(IndexError):
            torch.zeros(3)["st"]
    assert len(w) == 1 and "non-tuple sequence" in str(w[0].message)


# --- 4. F.linear's errors ---


def test_linear_errors():
    x = torch.ones(2, 3)
    msg = "linear(): argument '{}' (position {}) must be Tensor, not {}"
    _raises(TypeError, msg.format("weight", 2, "ReLU"), F.linear, x, torch.nn.ReLU())
    _raises(
        TypeError, msg.format("bias", 3, "ReLU"), F.linear, x, torch.ones(4, 3), torch.nn.ReLU()
    )
    _raises(TypeError, msg.format("bias", 3, "float"), F.linear, x, torch.ones(4, 3), 1.0)
    f64 = torch.float64
    dtypes = "self and mat2 must have the same dtype, but got Float and Double"
    _raises(RuntimeError, dtypes, F.linear, x, torch.ones(3, dtype=f64), torch.ones(1))
    _raises(RuntimeError, dtypes, F.linear, x, torch.ones(4, 5, dtype=f64), torch.ones(4))
    _raises(
        RuntimeError,
        "self and mat2 must have the same dtype, but got Float and Long",
        F.linear,
        x,
        torch.ones(3, dtype=torch.int64),
        torch.ones(1),
    )
    for inp, rows in ((x, 2), (torch.ones(3), 1), (torch.ones(2, 2, 2, 3), 8)):
        _raises(
            RuntimeError,
            "The expanded size of the tensor (4) must match the existing size (5) at "
            f"non-singleton dimension 1.  Target sizes: [{rows}, 4].  Tensor sizes: [5]",
            F.linear,
            inp,
            torch.ones(4, 3),
            torch.ones(5),
        )
    _raises(
        RuntimeError,
        "t() expects a tensor with <= 2 dimensions, but self is 3D",
        F.linear,
        x,
        torch.ones(2, 3, 4),
        torch.ones(4),
    )


# --- 5. add / sub with a bool or float alpha equal to 1 ---


def test_add_sub_alpha_true_and_one_point_zero():
    bool_msg = "Boolean alpha only supported for Boolean results."
    int_msg = "For integral input tensors, argument alpha must not be a floating point number."
    f, i, h = torch.ones(3), torch.ones(3, dtype=torch.int64), torch.ones(3, dtype=torch.float16)
    for op in (torch.add, torch.sub):
        _raises(RuntimeError, bool_msg, op, f, f, alpha=True)
        _raises(RuntimeError, bool_msg, op, i, 1, alpha=True)
        _raises(RuntimeError, bool_msg, op, h, h, alpha=True)
        _raises(RuntimeError, bool_msg, op, h, 1, alpha=False)
        _raises(RuntimeError, int_msg, op, i, i, alpha=1.0)
        _raises(RuntimeError, int_msg, op, i, 1, alpha=np.float64(1.0))
        assert op(f, f, alpha=1.0).tolist() == op(f, f).tolist()
        assert op(i, i, alpha=np.int64(1)).tolist() == op(i, i).tolist()
    b = torch.tensor([True, False, False])
    assert torch.add(b, torch.tensor([False, False, True]), alpha=True).tolist() == [
        True,
        False,
        True,
    ]
    x = torch.ones(3, requires_grad=True)
    r = torch.add(x, x.detach(), alpha=1.0)
    assert r.grad_fn.name() == "AddBackward0"
    assert r.grad_fn.next_functions[0][0].name() == "torch::autograd::AccumulateGrad"


# --- 6. threshold's overflow checks ---


@pytest.mark.parametrize(
    "dt, th, value, expected",
    [
        (torch.uint8, 300, 0, "uint8_t"),
        (torch.uint8, 0, 300, "uint8_t"),
        (torch.uint8, -256, 0, "uint8_t"),
        (torch.uint8, -1.0, 0, "uint8_t"),
        (torch.uint8, 0, float("nan"), "uint8_t"),
        (torch.uint8, -1, 0, [0, 0, 0, 0]),
        (torch.uint8, -255, 0, [0, 0, 2, 100]),
        (torch.uint8, 1.5, -1, [255, 255, 2, 100]),
        (torch.int8, 127.5, 0, "int8_t"),
        (torch.int8, 0, 128, "int8_t"),
        (torch.int32, 0, 1e10, "int"),
        (torch.int64, 2**63, 0, "int64_t"),
        (torch.float16, 0, 1e10, "c10::Half"),
        (torch.float16, 1e10, 0, [0.0, 0.0, 0.0, 0.0]),
        (torch.float16, 1e300, 1e10, "float"),
        (torch.bfloat16, 0, 1e300, "c10::BFloat16"),
        (torch.float32, 1e300, 0, "float"),
        (torch.float32, 0, float("inf"), [float("inf"), 1.0, 2.0, 100.0]),
    ],
)
def test_threshold_checked_conversions(dt, th, value, expected):
    x = torch.tensor([0, 1, 2, 100]).to(dt)
    for inplace in (False, True):
        if isinstance(expected, str):
            msg = f"value cannot be converted to type {expected} without overflow"
            _raises(RuntimeError, msg, F.threshold, x.clone(), th, value, inplace)
        else:
            assert F.threshold(x.clone(), th, value, inplace).tolist() == expected
