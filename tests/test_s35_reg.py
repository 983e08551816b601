"""Session 35 (helper reg): torch-free regression tests of the library fixes the regularisation
programs of tests/reference/test_s35_reg_reference.py found: dropout's refusal of a NaN p (the
kernel's RuntimeError, in eval mode too), an empty input returned itself while training, a
non-tensor input refused in eval mode; torch.dropout & co's (and native_dropout's) parser
errors for missing and extra arguments; native_dropout's p left to bernoulli_, as in torch;
bernoulli_'s overload TypeError for a p that is no number (keywords listed as torch's parser
lists them), bernoulli's out= of any dtype and its overload TypeError for an out that is no
tensor. torch's messages are written here as literals."""

from __future__ import annotations

import pytest

import minitorch as mt

F = mt.nn.functional

NAN_P = "dropout probability has to be between 0 and 1, but got nan"


def _message(exc_type, fn):
    with pytest.raises(exc_type) as info:
        fn()
    return str(info.value)


@pytest.mark.parametrize(
    "fn",
    [
        lambda x: F.dropout(x, float("nan")),
        lambda x: F.dropout(x, float("nan"), False),
        lambda x: F.dropout(x, float("nan"), True, True),
        lambda x: F.alpha_dropout(x, float("nan"), True),
        lambda x: F.alpha_dropout(x, float("nan"), False),
        lambda x: F.feature_alpha_dropout(x, float("nan"), True),
        lambda x: F.dropout1d(x, float("nan")),
        lambda x: F.dropout2d(x[None, :, :, None], float("nan"), False),
        lambda x: F.dropout3d(x[None, None], float("nan")),
        lambda x: mt.nn.Dropout(float("nan"))(x),
        lambda x: mt.nn.Dropout(float("nan")).eval()(x),
        lambda x: F.dropout(x[:0], float("nan")),
    ],
)
def test_dropout_nan_p_is_refused(fn):
    x = mt.ones(2, 3)
    assert _message(RuntimeError, lambda: fn(x)) == NAN_P


def test_dropout_nan_p_after_the_train_type_check():
    msg = _message(TypeError, lambda: F.dropout(mt.ones(2), float("nan"), "a"))
    assert msg == "dropout(): argument 'train' (position 3) must be bool, not str"


@pytest.mark.parametrize(
    "fn",
    [
        lambda e: F.dropout(e, 0.5),
        lambda e: F.dropout(e, 1.0),
        lambda e: F.dropout(e, 0.5, True, True),
        lambda e: F.alpha_dropout(e, 0.5, True),
        lambda e: F.alpha_dropout(e, 1.0, True),
        lambda e: mt.feature_dropout(e, 0.5, True),
        lambda e: mt.feature_alpha_dropout(e, 0.5, True),
    ],
)
@pytest.mark.parametrize(
    "shape, dtype", [((0, 3), mt.float32), ((0,), mt.float64), ((0,), mt.int64)]
)
def test_dropout_of_an_empty_input_is_the_input(fn, shape, dtype):
    e = mt.empty(shape, dtype=dtype)
    mt.manual_seed(0)
    assert fn(e) is e
    after = mt.rand(3)
    mt.manual_seed(0)
    assert mt.equal(after, mt.rand(3))  # nothing drawn


@pytest.mark.parametrize(
    "call, message",
    [
        (lambda: F.dropout([1.0], 0.5, False), "dropout(): argument 'input' (position 1)"),
        (lambda: F.dropout([1.0], 0.0, True), "dropout(): argument 'input' (position 1)"),
        (lambda: F.dropout(None, 0.5, False, True), "dropout_(): argument 'input' (position 1)"),
        (lambda: mt.feature_dropout_([1.0], 0.0, False), "feature_dropout_(): argument 'input'"),
    ],
)
def test_dropout_refuses_a_non_tensor_in_eval_mode(call, message):
    assert _message(TypeError, call).startswith(message)


@pytest.mark.parametrize(
    "call, message",
    [
        (
            lambda x: mt.dropout(x, 0.5),
            'dropout() missing 1 required positional arguments: "train"',
        ),
        (
            lambda x: mt.dropout(x, train=True),
            'dropout() missing 2 required positional argument: "p", "train"',
        ),
        (
            lambda x: mt.alpha_dropout_(),
            'alpha_dropout_() missing 3 required positional argument: "input", "p", "train"',
        ),
        (
            lambda x: mt.feature_dropout(p=0.5, train=True),
            'feature_dropout() missing 3 required positional argument: "input", "p", "train"',
        ),
        (
            lambda x: mt.feature_alpha_dropout(x, 0.5, True, True),
            "feature_alpha_dropout() takes 3 positional arguments but 4 were given",
        ),
        (
            lambda x: mt.native_dropout(x),
            'native_dropout() missing 2 required positional argument: "p", "train"',
        ),
    ],
)
def test_aten_dropout_argument_errors(call, message):
    assert _message(TypeError, lambda: call(mt.ones(3))) == message


BERNOULLI_ = (
    "but expected one of:\n"
    " * (Tensor p, *, torch.Generator generator = None)\n"
    " * (float p = 0.5, *, torch.Generator generator = None)\n"
)
BERNOULLI = (
    "but expected one of:\n"
    " * (Tensor input, *, torch.Generator generator = None, Tensor out = None)\n"
    " * (Tensor input, float p, *, torch.Generator generator = None)\n"
)


def _invalid(op, got, forms):
    return f"{op}() received an invalid combination of arguments - got ({got}), {forms}"


@pytest.mark.parametrize(
    "call, got",
    [
        (lambda x, g: x.bernoulli_("a"), "str"),
        (lambda x, g: x.bernoulli_(None), "NoneType"),
        (lambda x, g: x.bernoulli_(p=None), "p=NoneType, "),
        (lambda x, g: x.bernoulli_(p=1j), "p=complex, "),
        (lambda x, g: x.bernoulli_([0.5]), "list"),
        (lambda x, g: x.bernoulli_("a", generator=g), "str, generator=torch._C.Generator"),
        (lambda x, g: x.bernoulli_(p="a", generator=g), "generator=torch._C.Generator, p=str, "),
        (lambda x, g: x.bernoulli_(p=x, generator=1), "generator=int, p=Tensor, "),
        (lambda x, g: x.bernoulli_(generator=1), "generator=int, "),
    ],
)
def test_bernoulli__overload_errors(call, got):
    x, g = mt.rand(3), mt.Generator()
    assert _message(TypeError, lambda: call(x, g)) == _invalid("bernoulli_", got, BERNOULLI_)


@pytest.mark.parametrize(
    "call, got",
    [
        (
            lambda x, g: mt.bernoulli(x, p="a", generator=g),
            "Tensor, generator=torch._C.Generator, p=str",
        ),
        (lambda x, g: mt.bernoulli(input=x, p=x), "p=Tensor, input=Tensor, "),
        (lambda x, g: mt.bernoulli(x, out=x, generator=1), "Tensor, generator=int, out=Tensor"),
        (lambda x, g: mt.bernoulli(x, generator=1, out=x), "Tensor, out=Tensor, generator=int"),
        (lambda x, g: mt.bernoulli(x, out=[1]), "Tensor, out=list"),
    ],
)
def test_bernoulli_overload_errors(call, got):
    x, g = mt.rand(3), mt.Generator()
    assert _message(TypeError, lambda: call(x, g)) == _invalid("bernoulli", got, BERNOULLI)


def test_bernoulli_method_with_a_generator_names_p():
    x, g = mt.rand(3), mt.Generator()
    msg = _message(TypeError, lambda: x.bernoulli(p="a", generator=g))
    assert msg == "bernoulli(): argument 'p' must be float, not str"
    msg = _message(TypeError, lambda: x.bernoulli("a", generator=g))
    assert msg == "bernoulli(): argument 'p' (position 1) must be float, not str"


@pytest.mark.parametrize("dtype", [mt.int64, mt.bool, mt.uint8, mt.float64])
def test_bernoulli_out_of_any_dtype(dtype):
    p = mt.rand(3, 4, generator=mt.Generator().manual_seed(1))
    want = mt.bernoulli(p, generator=mt.Generator().manual_seed(2))
    out = mt.empty(0, dtype=dtype)
    got = mt.bernoulli(p, generator=mt.Generator().manual_seed(2), out=out)
    assert got is out and out.dtype is dtype and out.shape == (3, 4)
    assert mt.equal(out, want.to(dtype))


@pytest.mark.parametrize("p, shown", [(1.5, "-0.5"), (-0.5, "1.5"), (2, "-1")])
def test_native_dropout_leaves_p_to_bernoulli(p, shown):
    msg = _message(RuntimeError, lambda: mt.native_dropout(mt.ones(3), p, True))
    assert msg == f"bernoulli_ expects p to be in [0, 1], but got p={shown}"
    out, mask = mt.native_dropout(mt.ones(3), p, False)  # eval mode: unchecked
    assert mt.equal(out, mt.ones(3)) and bool(mask.all())
