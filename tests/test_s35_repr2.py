"""Session 35 (helper repr2): torch-free regression tests of the library fixes the printing
programs of tests/reference/test_s35_repr2_reference.py found: a dual tensor's repr inside a
forward-AD level (the tangent suffix, no grad suffix for a dual of a primal needing none,
ViewBackward0 for a dual of a tensor requiring grad); set_default_dtype's TypeError for the
float8 dtypes; padding and pooling modules given a float size (kept and printed as torch's,
refused at forward by the functional); Upsample refusing a list scale_factor; torch.device's
argument-parser errors (the "didn't match" line, "Tensor", no or three arguments, keywords,
bytes). torch's texts are written here as literals."""

from __future__ import annotations

import pytest

import minitorch as mt

fwAD = mt.autograd.forward_ad


def _message(exc_type, fn):
    with pytest.raises(exc_type) as info:
        fn()
    return str(info.value)


def test_dual_repr_shows_tangent():
    with fwAD.dual_level():
        d = fwAD.make_dual(mt.tensor([1.0, 2.0]), mt.tensor([0.5, 0.25]))
        assert repr(d) == "tensor([1., 2.], tangent=tensor([0.5000, 0.2500]))"
        assert str([d]) == "[tensor([1., 2.], tangent=tensor([0.5000, 0.2500]))]"
        assert repr((d * d).sum()) == "tensor(5., tangent=2.0)"  # a 0-d tangent as f"{t}"
        assert repr(mt.ones(2)) == "tensor([1., 1.])"
        assert (
            repr(mt.ones(2, requires_grad=True) * 2) == "tensor([2., 2.], grad_fn=<MulBackward0>)"
        )
        leaf = mt.tensor([3.0, 4.0], requires_grad=True)
        g = fwAD.make_dual(leaf, mt.tensor([0.5, 0.25]))
        want = "tensor([3., 4.], grad_fn=<ViewBackward0>, tangent=tensor([0.5000, 0.2500]))"
        assert repr(g) == want
    assert repr(d) == "tensor([1., 2.])"
    assert repr(g) == "tensor([3., 4.], grad_fn=<ViewBackward0>)"


def test_dual_repr_wraps_tangent_suffix():
    mt.set_printoptions(linewidth=40)
    try:
        with fwAD.dual_level():
            d = fwAD.make_dual(
                mt.tensor([1.0, 2.0], dtype=mt.float64), mt.ones(2, dtype=mt.float64)
            )
            assert repr(d) == (
                "tensor([1., 2.], dtype=torch.float64,\n"
                "       tangent=tensor([1., 1.], dtype=torch.float64))"
            )
    finally:
        mt.set_printoptions(profile="default")


@pytest.mark.parametrize(
    "name, storage",
    [
        ("float8_e4m3fn", "Float8_e4m3fn"),
        ("float8_e5m2", "Float8_e5m2"),
        ("float8_e4m3fnuz", "Float8_e4m3fnuz"),
        ("float8_e5m2fnuz", "Float8_e5m2fnuz"),
        ("float8_e8m0fnu", "Float8_e8m0fnu"),
    ],
)
def test_set_default_dtype_refuses_float8(name, storage):
    msg = _message(TypeError, lambda: mt.set_default_dtype(getattr(mt, name)))
    assert msg == f"couldn't find storage object {storage}Storage"
    assert mt.get_default_dtype() is mt.float32
    assert repr(mt.tensor([1.5])) == "tensor([1.5000])"


def test_set_default_dtype_other_errors_unchanged():
    rule = "only floating-point types are supported as the default type"
    assert _message(TypeError, lambda: mt.set_default_dtype(mt.int64)) == rule
    assert (
        _message(TypeError, lambda: mt.set_default_dtype("float64"))
        == f"invalid dtype object: {rule}"
    )


@pytest.mark.parametrize(
    "make, text",
    [
        (lambda: mt.nn.ZeroPad2d((3 - 1) / 2), "ZeroPad2d((1.0, 1.0, 1.0, 1.0))"),
        (lambda: mt.nn.ReflectionPad1d(1.0), "ReflectionPad1d((1.0, 1.0))"),
        (lambda: mt.nn.ReplicationPad3d(1.0), "ReplicationPad3d((1.0, 1.0, 1.0, 1.0, 1.0, 1.0))"),
        (lambda: mt.nn.ConstantPad1d(2.0, 1.5), "ConstantPad1d(padding=(2.0, 2.0), value=1.5)"),
        (
            lambda: mt.nn.AvgPool1d(2.0),
            "AvgPool1d(kernel_size=(2.0,), stride=(2.0,), padding=(0,))",
        ),
        (
            lambda: mt.nn.MaxUnpool2d(2.0),
            "MaxUnpool2d(kernel_size=(2.0, 2.0), stride=(2.0, 2.0), padding=(0, 0))",
        ),
    ],
)
def test_float_sized_modules_print_as_torch(make, text):
    assert repr(make()) == text


def test_float_sized_modules_refused_at_forward():
    x = mt.ones(1, 1, 4, 4)
    pad = (
        "pad(): argument 'pad' (position 2) must be tuple of ints, but found element of type "
        "float at pos 0"
    )
    assert _message(TypeError, lambda: mt.nn.ZeroPad2d(1.0)(x)) == pad
    assert _message(TypeError, lambda: mt.nn.ReflectionPad2d(1.0)(x)) == pad
    avg = (
        "avg_pool1d(): argument 'kernel_size' (position 2) must be tuple of ints, but found "
        "element of type float at pos 0"
    )
    assert _message(TypeError, lambda: mt.nn.AvgPool1d(2.0)(x[0, 0])) == avg
    # an int still pads every side
    assert tuple(mt.nn.ZeroPad2d(1)(x).shape) == (1, 1, 6, 6)
    assert mt.nn.ZeroPad2d(1).padding == (1, 1, 1, 1)


def test_upsample_scale_factor_list_refused_as_torch():
    msg = _message(TypeError, lambda: mt.nn.Upsample(scale_factor=[2.0, 1.5], mode="bilinear"))
    assert msg == "float() argument must be a string or a real number, not 'list'"
    up = mt.nn.Upsample(scale_factor=(2, 1.5), mode="bilinear")
    assert repr(up) == "Upsample(scale_factor=(2.0, 1.5), mode='bilinear')"


_SIGS = " * (torch.device device)\n{} * (str type, int index = -1)\n"
_WHY = "      didn't match because some of the arguments have invalid types: (!{}!)\n"


@pytest.mark.parametrize(
    "args, got, shown",
    [
        ((None,), "NoneType", "NoneType"),
        ((True,), "bool", "bool"),
        (([1, 2.0],), "list", "list of [int, float]"),
        (((1,),), "tuple", "tuple of (int,)"),
        (((),), "tuple", "tuple of ()"),
        ((mt.ones(1),), "Tensor", "Tensor"),
    ],
)
def test_device_one_bad_argument(args, got, shown):
    msg = _message(TypeError, lambda: mt.device(*args))
    head = f"device() received an invalid combination of arguments - got ({got}), but expected "
    assert msg == head + "one of:\n" + _SIGS.format(_WHY.format(shown))


def test_device_argument_counts_and_keywords():
    head = (
        "device() received an invalid combination of arguments - got ({}), but expected one of:\n"
    )
    assert _message(TypeError, lambda: mt.device()) == head.format("") + _SIGS.format("")
    three = _message(TypeError, lambda: mt.device("cpu", 1, 2))
    assert three == head.format("str, int, int") + _SIGS.format("")
    none2 = "device(): argument 'type' (position 1) must be str, not NoneType"
    assert _message(TypeError, lambda: mt.device(None, None)) == none2
    twice = "device() got multiple values for argument 'type'"
    assert _message(TypeError, lambda: mt.device("cpu", type="cpu")) == twice
    unknown = "device() got an unexpected keyword argument 'foo'"
    assert _message(TypeError, lambda: mt.device(type="cpu", foo=1)) == unknown
    assert mt.device(type="cuda", index=None) is mt.device("cuda")
    assert mt.device(device=mt.device("cuda:1")) is mt.device("cuda", 1)
    assert mt.device(b"cuda:2") is mt.device("cuda", 2)
    assert repr(mt.device("cpu", index=0)) == "device(type='cpu', index=0)"


def test_dual_repr_does_not_raise_when_tangent_unavailable():
    # exp saves its result; an in-place op on it leaves no tangent to compute (a documented
    # difference of minitorch's forward AD): the tensor still prints, without one
    with fwAD.dual_level():
        d = fwAD.make_dual(mt.tensor([1.0, 2.0]), mt.tensor([0.5, 0.25]))
        y = d.exp()
        y.add_(1)
        assert repr(y).startswith("tensor([3.7183, 8.3891]")
        assert "tangent" not in repr(y)
