"""Session 37 (helper argmissing3): torch-free regression tests of the library fixes the
argument sweeps of tests/reference/test_s37_argmissing3_reference.py found: torch's parser
wording for tril/triu/diag/diagonal/flatten/unbind/t/clone called without input (and their
counts with arguments too many), the overload listings of squeeze/movedim/moveaxis/
tensor_split, rand_like/randn_like/randint_like and linspace/logspace/eye called without their
arguments or with too many, new_full/new_tensor without their size/data, x.size(1, 2),
x.stride(0, 1), x.item(1) and x.tolist(1). torch's messages are written here as literals."""

from __future__ import annotations

import numpy as np
import pytest

import minitorch as mt


def _message(fn):
    with pytest.raises(TypeError) as info:
        fn()
    return str(info.value)


def _env():
    g = mt.Generator().manual_seed(0)
    return dict(mt=mt, x=mt.randn(2, 3, generator=g), m=mt.randn(3, 3, generator=g))


# fmt: off
CASES = [
    ('mt.tril()', 'tril() missing 1 required positional arguments: "input"'),
    ('mt.triu()', 'triu() missing 1 required positional arguments: "input"'),
    ('mt.diag()', 'diag() missing 1 required positional arguments: "input"'),
    ('mt.diagonal()', 'diagonal() missing 1 required positional arguments: "input"'),
    ('mt.flatten()', 'flatten() missing 1 required positional arguments: "input"'),
    ('mt.unbind()', 'unbind() missing 1 required positional arguments: "input"'),
    ('mt.t()', 't() missing 1 required positional arguments: "input"'),
    ('mt.clone()', 'clone() missing 1 required positional arguments: "input"'),
    ('mt.squeeze(dim=(0,))', 'squeeze() missing 1 required positional arguments: "input"'),
    ('mt.tril(m, 0, 0)', 'tril() takes from 1 to 2 positional arguments but 3 were given'),
    ('mt.clone(x, 1)', 'clone() takes 1 positional argument but 2 were given'),
    ('mt.t(x, 1)', 't() takes 1 positional argument but 2 were given'),
    ('mt.flatten(x, 0, 1, 1)', 'flatten() takes from 1 to 3 positional arguments but 4 were given'),
    ('mt.diagonal(x, 0, 0, 1, 1)',
     'diagonal() takes from 1 to 4 positional arguments but 5 were given'),
    ('mt.rand_like(dtype=mt.float64)',
     'rand_like() missing 1 required positional arguments: "input"'),
    ('mt.randn_like(foo=1)', 'randn_like() missing 1 required positional arguments: "input"'),
    ('mt.eye(dtype=mt.float64)', 'eye() missing 1 required positional arguments: "n"'),
    ('mt.eye(m=3)', 'eye() missing 1 required positional arguments: "n"'),
    ('x.new_full()', 'new_full() missing 2 required positional argument: "size", "fill_value"'),
    ('x.new_full((2,))', 'new_full() missing 1 required positional arguments: "fill_value"'),
    ('x.new_full((2,), 1.0, 1)', 'new_full() takes 2 positional arguments but 3 were given'),
    ('x.new_tensor()', 'new_tensor() missing 1 required positional arguments: "data"'),
    ('x.new_tensor(dtype=mt.float64)',
     'new_tensor() missing 1 required positional arguments: "data"'),
    ('x.new_tensor([1], 1)', 'new_tensor() takes 1 positional argument but 2 were given'),
    ('x.size(1, 2)', 'size() takes from 0 to 1 positional arguments but 2 were given'),
    ('x.size(1, 2, 3)', 'size() takes from 0 to 1 positional arguments but 3 were given'),
    ('x.stride(0, 1)', 'stride() takes from 0 to 1 positional arguments but 2 were given'),
    ('x.item(1)', 'TensorBase.item() takes no arguments (1 given)'),
    ('x.tolist(1, 2)', 'TensorBase.tolist() takes no arguments (2 given)'),
]
# fmt: on


@pytest.mark.parametrize("code,want", CASES)
def test_torchs_parser_wording(code, want):
    env = _env()
    assert _message(lambda: eval(code, env)) == want  # noqa: S307


_LIKE = ("torch.memory_format memory_format = None, torch.dtype dtype = None, torch.layout "
         "layout = None, torch.device device = None, bool pin_memory = False, bool "
         "requires_grad = False")  # fmt: skip
_LIKE_FORMS = (f"Tensor input, *, torch.Generator generator, {_LIKE}", f"Tensor input, *, {_LIKE}")
_RANGE = ("*, Tensor out = None, torch.dtype dtype = None, torch.layout layout = None, "
          "torch.device device = None, bool pin_memory = False, bool requires_grad = False")
_LINSPACE_FORMS = tuple(f"{a} start, {b} end, int steps, {_RANGE}"
                        for a, b in (("Tensor", "Tensor"), ("Number", "Tensor"),
                                     ("Tensor", "Number"), ("Number", "Number")))
_LOGSPACE_FORMS = tuple(f.replace("int steps, ", "int steps, float base = 10.0, ")
                        for f in _LINSPACE_FORMS)
_EYE_FORMS = (f"int n, {_RANGE}", f"int n, int m, {_RANGE}")
_RANDINT_FORMS = tuple(f"Tensor input, {h}, *, {g}{_LIKE}"
                       for h in ("int low, int high", "Tensor high", "int high")
                       for g in ("torch.Generator generator, ", ""))  # fmt: skip


def _listing(op, got, forms):
    head = f"{op}() received an invalid combination of arguments - got {got}, but expected one of:"
    return head + "\n" + "".join(f" * ({form})\n" for form in forms)


LISTINGS = [
    ("mt.rand_like()", _listing("rand_like", "()", _LIKE_FORMS)),
    ("mt.rand_like(x, 0)", _listing("rand_like", "(Tensor, int)", _LIKE_FORMS)),
    ("mt.randn_like(x, mt.float64)",
     _listing("randn_like", "(Tensor, torch.dtype)", _LIKE_FORMS)),
    ("mt.randn_like(x, foo=1)", _listing("randn_like", "(Tensor, foo=int)", _LIKE_FORMS)),
    ("mt.rand_like(x, foo=1, dtype=mt.float64)",
     _listing("rand_like", "(Tensor, dtype=torch.dtype, foo=int)", _LIKE_FORMS)),
    ("mt.randint_like()", _listing("randint_like", "()", _RANDINT_FORMS)),
    ("mt.randint_like(high=3)", _listing("randint_like", "(high=int, )", _RANDINT_FORMS)),
    ("mt.randint_like(x, 1, 2, 3)",
     _listing("randint_like", "(Tensor, int, int, int)", _RANDINT_FORMS)),
    ("mt.randint_like(x, 3, foo=1)",
     _listing("randint_like", "(Tensor, int, foo=int)", _RANDINT_FORMS)),
    ("mt.linspace()", _listing("linspace", "()", _LINSPACE_FORMS)),
    ("mt.linspace(0)", _listing("linspace", "(int)", _LINSPACE_FORMS)),
    ("mt.linspace(start=0)", _listing("linspace", "(start=int, )", _LINSPACE_FORMS)),
    ("mt.linspace(0, 1, 5, 0)", _listing("linspace", "(int, int, int, int)", _LINSPACE_FORMS)),
    ("mt.logspace()", _listing("logspace", "()", _LOGSPACE_FORMS)),
    ("mt.logspace(0, 1, 5, 10, 0)",
     _listing("logspace", "(int, int, int, int, int)", _LOGSPACE_FORMS)),
    ("mt.logspace(0, 1, 5, foo=1)", _listing("logspace", "(int, int, int, foo=int)",
                                             _LOGSPACE_FORMS)),
    ("mt.eye()", _listing("eye", "()", _EYE_FORMS)),
    ("mt.eye(2, 3, 4)", _listing("eye", "(int, int, int)", _EYE_FORMS)),
    ("mt.eye(n=2, foo=1)", _listing("eye", "(foo=int, n=int, )", _EYE_FORMS)),
    ("mt.squeeze()", _listing("squeeze", "()", ("Tensor input", "Tensor input, int dim",
                                                "Tensor input, tuple of ints dim"))),
    ("mt.squeeze(x, 1, 0)", _listing("squeeze", "(Tensor, int, int)", (
        "Tensor input", "Tensor input, int dim", "Tensor input, tuple of ints dim"))),
    ("mt.movedim()", _listing("movedim", "()", (
        "Tensor input, int source, int destination",
        "Tensor input, tuple of ints source, tuple of ints destination"))),
    ("mt.movedim(x, 0)", _listing("movedim", "(Tensor, int)", (
        "Tensor input, int source, int destination",
        "Tensor input, tuple of ints source, tuple of ints destination"))),
    ("mt.moveaxis(x, 0, 1, 2)", _listing("moveaxis", "(Tensor, int, int, int)", (
        "Tensor input, int source, int destination",
        "Tensor input, tuple of ints source, tuple of ints destination"))),
    ("x.movedim(0, 1, 2)", _listing("movedim", "(int, int, int)", (
        "int source, int destination", "tuple of ints source, tuple of ints destination"))),
    ("mt.tensor_split()", _listing("tensor_split", "()", (
        "Tensor input, tuple of ints indices, int dim = 0",
        "Tensor input, Tensor tensor_indices_or_sections, int dim = 0",
        "Tensor input, int sections, int dim = 0"))),
    ("x.tensor_split(1, 0, 0)", _listing("tensor_split", "(int, int, int)", (
        "tuple of ints indices, int dim = 0", "Tensor tensor_indices_or_sections, int dim = 0",
        "int sections, int dim = 0"))),
]  # fmt: skip


@pytest.mark.parametrize("code,want", LISTINGS)
def test_overloaded_calls_list_their_overloads(code, want):
    env = _env()
    assert _message(lambda: eval(code, env)) == want  # noqa: S307


def test_results_unchanged():
    g = mt.Generator().manual_seed(1)
    x = mt.randn(3, 4, generator=g, dtype=mt.float64)
    a = x.numpy()
    np.testing.assert_allclose(mt.tril(x, -1).numpy(), np.tril(a, -1))
    np.testing.assert_allclose(mt.triu(input=x).numpy(), np.triu(a))
    np.testing.assert_allclose(mt.diagonal(x, 1).numpy(), np.diagonal(a, 1))
    np.testing.assert_allclose(mt.diag(x).numpy(), np.diag(a))
    np.testing.assert_allclose(mt.flatten(x[None], 1).numpy(), a.reshape(1, 12))
    np.testing.assert_allclose(mt.unbind(x, 1)[2].numpy(), a[:, 2])
    np.testing.assert_allclose(mt.t(x).numpy(), a.T)
    np.testing.assert_allclose(mt.clone(x).numpy(), a)
    np.testing.assert_allclose(mt.squeeze(x[None], 0).numpy(), a)
    np.testing.assert_allclose(mt.movedim(x, 0, 1).numpy(), a.T)
    np.testing.assert_allclose(x.moveaxis(1, 0).numpy(), a.T)
    np.testing.assert_allclose(mt.tensor_split(x, 2, 1)[1].numpy(), a[:, 2:])
    np.testing.assert_allclose(x.tensor_split((1,))[1].numpy(), a[1:])
    np.testing.assert_allclose(mt.linspace(0, 1, 5, dtype=mt.float64).numpy(),
                               np.linspace(0, 1, 5), rtol=1e-15)  # fmt: skip
    np.testing.assert_allclose(mt.logspace(0, 2, 3, dtype=mt.float64).numpy(), [1, 10, 100])
    np.testing.assert_allclose(mt.eye(2, 3).numpy(), np.eye(2, 3))
    np.testing.assert_allclose(x.new_full((2,), 1.5).numpy(), [1.5, 1.5])
    np.testing.assert_allclose(x.new_tensor([1, 2]).numpy(), [1.0, 2.0])
    assert x.new_tensor([1]).dtype is mt.float64
    assert x.size(1) == 4 and x.size() == (3, 4) and x.stride(0) == 4 and x.stride() == (4, 1)
    assert x[0, 0].item() == a[0, 0] and x.tolist() == a.tolist()
    r = mt.rand_like(x, generator=mt.Generator().manual_seed(3))
    assert r.shape == x.shape and r.dtype is mt.float64
    r2 = mt.rand_like(x, generator=mt.Generator().manual_seed(3))
    np.testing.assert_array_equal(r.numpy(), r2.numpy())
    i = mt.randint_like(x, 2, 5, generator=mt.Generator().manual_seed(4))
    assert i.dtype is mt.float64 and ((i >= 2) & (i < 5)).all()
    j = mt.randint_like(x, 3)
    assert ((j >= 0) & (j < 3)).all()
