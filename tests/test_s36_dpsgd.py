"""Session 36 (helper dpsgd): torch-free regression tests of the library fixes the
differential-privacy and per-sample-gradient programs of
tests/reference/test_s36_dpsgd_reference.py found: torch.normal's parser errors (mean
required, a bare int size, a fourth positional argument, factory keywords beside tensor
arguments, a missing argument before a later one's type); a Generator named torch._C.Generator
in argument errors; tensor_split's parser error for split indices whose first element is no
int, and the method forms of hsplit's; vmap's AssertionError for a chunked empty batch;
Tensor.requires_grad_ refused inside torch.func transforms. torch's messages are written here
as literals."""

from __future__ import annotations

import pytest

import minitorch as mt


def _message(exc_type, fn):
    with pytest.raises(exc_type) as info:
        fn()
    return str(info.value)


_NORMAL_FORMS = (
    " * (Tensor mean, Tensor std, *, torch.Generator generator = None, Tensor out = None)\n"
    " * (Tensor mean, float std = 1, *, torch.Generator generator = None, Tensor out = None)\n"
    " * (float mean, Tensor std, *, torch.Generator generator = None, Tensor out = None)\n"
    " * (float mean, float std, tuple of ints size, *, torch.Generator generator = None, "
    "Tensor out = None, torch.dtype dtype = None, torch.layout layout = None, torch.device "
    "device = None, bool pin_memory = False, bool requires_grad = False)\n"
)


def _normal_invalid(got):
    return (
        f"normal() received an invalid combination of arguments - got ({got}), but expected "
        f"one of:\n{_NORMAL_FORMS}"
    )


def test_normal_parser_errors():
    g = mt.Generator().manual_seed(0)
    t = mt.zeros(2)
    assert _message(TypeError, lambda: mt.normal(0.0, 1.0, size=3)) == _normal_invalid(
        "float, float, size=int"
    )
    assert _message(TypeError, lambda: mt.normal(0.0, 1.0, 3)) == _normal_invalid(
        "float, float, int"
    )
    assert _message(TypeError, lambda: mt.normal(0.0, 1.0, (3,), g)) == _normal_invalid(
        "float, float, tuple, torch._C.Generator"
    )
    assert _message(TypeError, lambda: mt.normal(0.0, 1.0, size=(3.5,))) == _normal_invalid(
        "float, float, size=tuple"
    )
    assert _message(TypeError, lambda: mt.normal(0.0, 1.0, size=None)) == _normal_invalid(
        "float, float, size=NoneType"
    )
    assert _message(TypeError, lambda: mt.normal("a", 1.0, (3,))) == _normal_invalid(
        "str, float, tuple"
    )
    assert _message(TypeError, lambda: mt.normal()) == _normal_invalid("")
    assert _message(TypeError, lambda: mt.normal(0.0, size=(2,))) == _normal_invalid(
        "float, size=tuple"
    )
    assert _message(TypeError, lambda: mt.normal(t, t, dtype=mt.float64)) == _normal_invalid(
        "Tensor, Tensor, dtype=torch.dtype"
    )
    assert _message(TypeError, lambda: mt.normal(t, out=3)) == _normal_invalid("Tensor, out=int")
    assert _message(TypeError, lambda: mt.normal(0.0, 1.0, (2,), pin_memory="a")) == (
        _normal_invalid("float, float, tuple, pin_memory=str")
    )


def test_normal_named_argument_errors():
    g = mt.Generator().manual_seed(0)
    # one overload takes that many arguments: its first bad one is named, a missing one first
    assert _message(TypeError, lambda: mt.normal(0.0)) == (
        "normal(): argument 'mean' (position 1) must be Tensor, not float"
    )
    assert _message(TypeError, lambda: mt.normal(std=1.0)) == (
        'normal() missing 1 required positional arguments: "mean"'
    )
    assert _message(TypeError, lambda: mt.normal(std=mt.ones(2))) == (
        'normal() missing 1 required positional arguments: "mean"'
    )
    assert _message(TypeError, lambda: mt.normal(size=(2,))) == (
        'normal() missing 1 required positional arguments: "mean"'
    )
    assert _message(TypeError, lambda: mt.normal(0.0, 1.0, (3,), generator=g, dtype=3)) == (
        "normal(): argument 'dtype' must be torch.dtype, not int"
    )
    assert _message(
        TypeError, lambda: mt.normal(0.0, 1.0, (3,), generator=3, dtype=mt.float32)
    ) == ("normal(): argument 'generator' must be torch.Generator, not int")
    assert (
        _message(
            TypeError,
            lambda: mt.normal(
                0.0, 1.0, (3,), generator=g, dtype=mt.float64, device="cpu", requires_grad=1
            ),
        )
        == "normal(): argument 'requires_grad' must be bool, not int"
    )


def test_normal_valid_forms_still_draw():
    t = mt.zeros(3, dtype=mt.float64)
    a = mt.normal(t, generator=mt.Generator().manual_seed(1))
    b = mt.normal(t, 1.0, generator=mt.Generator().manual_seed(1))
    assert mt.equal(a, b)
    c = mt.normal(0, 2.0, (2, 3), generator=mt.Generator().manual_seed(2), dtype=mt.float64)
    assert c.shape == (2, 3) and c.dtype is mt.float64
    d = mt.normal(mean=t, std=0.5)
    assert d.shape == (3,)


def _split_invalid(got, why, forms):
    lines = [f"tensor_split() received an invalid combination of arguments - got ({got}), but "
             "expected one of:\n"]  # fmt: skip
    for form in forms:
        lines.append(f" * ({form})\n")
        if why:
            lines.append(f"      didn't match because {why}\n")
    return "".join(lines)


_SPLIT_FORMS = ("tuple of ints indices, int dim = 0", "Tensor tensor_indices_or_sections, "
                "int dim = 0", "int sections, int dim = 0")  # fmt: skip


def test_tensor_split_first_index_not_int():
    x = mt.ones(3, 2)
    assert _message(TypeError, lambda: x.tensor_split((True, 2), dim=0)) == _split_invalid(
        "tuple, dim=int", "some of the keywords were incorrect: dim", _SPLIT_FORMS
    )
    why = "some of the arguments have invalid types: (!tuple of (bool, int)!, !int!)"
    assert _message(TypeError, lambda: x.tensor_split((True, 2), 0)) == _split_invalid(
        "tuple, int", why, _SPLIT_FORMS
    )
    assert _message(TypeError, lambda: mt.tensor_split(x, (True, 2))) == _split_invalid(
        "Tensor, tuple", None, tuple("Tensor input, " + f for f in _SPLIT_FORMS)
    )
    assert _message(TypeError, lambda: x.tensor_split((1.5, 2))) == _split_invalid(
        "tuple", None, _SPLIT_FORMS
    )
    # a later bad element is read when the tuple is unpacked; a later bool is taken
    assert _message(TypeError, lambda: x.tensor_split((1, 1.5))) == (
        "tensor_split(): argument 'indices' failed to unpack the object at pos 2 with error "
        '"type must be tuple of ints,but got float"'
    )
    assert [p.shape[0] for p in x.tensor_split((2, True))] == [2, 0, 2]


def test_hsplit_method_lists_its_method_forms():
    x = mt.ones(4, 4)
    bad = "!tuple of (bool, int)!"
    assert _message(TypeError, lambda: x.hsplit((True, 1))) == (
        "hsplit() received an invalid combination of arguments - got (tuple), but expected one "
        "of:\n"
        " * (int sections)\n"
        f"      didn't match because some of the arguments have invalid types: ({bad})\n"
        " * (tuple of ints indices)\n"
        f"      didn't match because some of the arguments have invalid types: ({bad})\n"
    )
    assert _message(TypeError, lambda: mt.hsplit(x, (True, 1))).startswith(
        "hsplit() received an invalid combination of arguments - got (Tensor, tuple), but "
        "expected one of:\n * (Tensor input, int sections)\n"
    )


def test_vmap_chunked_empty_batch():
    # torch's chunked vmap asserts on the outputs of its chunks, of which an empty batch has none
    x = mt.ones(3, 2)
    assert _message(AssertionError, lambda: mt.func.vmap(lambda a: a, chunk_size=2)(x[:0])) == (
        "arg_spec must not be None"
    )
    out = mt.func.vmap(lambda a: a * 2, chunk_size=10**30)(x)
    assert mt.equal(out, x * 2)
    assert mt.func.vmap(lambda a: a * 2)(x[:0]).shape == (0, 2)  # unchunked: an empty result


_REQUIRES_GRAD_IN_TRANSFORM = (
    "You are attempting to call Tensor.requires_grad_() (or perhaps using "
    "torch.autograd.functional.* APIs) inside of a function being transformed by a functorch "
    "transform. This is unsupported, please attempt to use the functorch transforms (e.g. grad, "
    "vjp, jacrev, jacfwd, hessian) or call requires_grad_() outside of a function being "
    "transformed instead."
)


@pytest.mark.parametrize(
    "call",
    [
        lambda F, x: F.grad(lambda a: a.requires_grad_().sum())(x),
        lambda F, x: F.vmap(lambda a: a.clone().requires_grad_(False))(x),
        lambda F, x: F.jacrev(lambda a: a.requires_grad_())(x),
        lambda F, x: F.grad(lambda a: mt.autograd.functional.jacobian(lambda b: b * 2, a).sum())(x),
    ],
)
def test_requires_grad_refused_inside_transforms(call):
    x = mt.randn(3, 2, generator=mt.Generator().manual_seed(0))
    assert _message(RuntimeError, lambda: call(mt.func, x)) == _REQUIRES_GRAD_IN_TRANSFORM


def test_requires_grad_allowed_around_transforms():
    x = mt.randn(3, 2, generator=mt.Generator().manual_seed(0), dtype=mt.float64)
    F = mt.func
    # the setter, a factory's requires_grad=, a Parameter, and the transforms' own leaves
    g = F.grad(lambda a: (setattr(a, "requires_grad", True), (a**2).sum())[1])(x)
    assert mt.allclose(g, 2 * x)
    F.vmap(lambda a: a + mt.zeros(2, dtype=mt.float64, requires_grad=True))(x)
    F.vmap(lambda a: a + mt.nn.Parameter(mt.zeros(2, dtype=mt.float64)))(x)
    h = F.vmap(F.hessian(lambda a: (a**3).sum()))(x)
    assert mt.allclose(h, mt.diag_embed(6 * x))
    assert x.clone().requires_grad_().requires_grad  # outside a transform
