"""Session 36 (helper gbdt): torch-free regression tests of the library fixes the gradient-boosted
tree programs of tests/reference/test_s36_gbdt_reference.py found: torch's parser wording for
the Tensor methods scatter_add_, scatter_reduce(_), index_add_, index_put_, index_copy(_),
put(_), index_reduce(_), take_along_dim, bincount, argmax, argmin, amax and amin given too many
or too few positional arguments, and for torch.bincount(); the overloads listed for
quantile/nanquantile without q, randperm() without n (a keyword given: "missing n") and
clamp/clip (function and methods) given a fourth positional argument or no input; the position
of a non-tensor index of x.scatter_add_; index_add's complex alpha converted to a real dtype as
c10's checked conversion does. torch's messages are written here as literals."""

from __future__ import annotations

import numpy as np
import pytest

import minitorch as mt


def _message(exc_type, fn):
    with pytest.raises(exc_type) as info:
        fn()
    return str(info.value)


X = mt.zeros(3)
I = mt.tensor([0, 1, 1])  # noqa: E741
S = mt.ones(3)


@pytest.mark.parametrize(
    "call, message",
    [
        (
            lambda: X.scatter_add_(0, I, S, 1),
            "scatter_add_() takes 3 positional arguments but 4 were given",
        ),
        (
            lambda: X.scatter_add_(0, I),
            'scatter_add_() missing 1 required positional arguments: "src"',
        ),
        (
            lambda: X.scatter_add_(),
            'scatter_add_() missing 3 required positional argument: "dim", "index", "src"',
        ),
        (
            lambda: X.scatter_reduce(0, I, S),
            'scatter_reduce() missing 1 required positional arguments: "reduce"',
        ),
        (
            lambda: X.scatter_reduce(0, I, S, "sum", True, 1),
            "scatter_reduce() takes 4 positional arguments but 6 were given",
        ),
        (
            lambda: X.scatter_reduce_(0, I, S, "sum", True),
            "scatter_reduce_() takes 4 positional arguments but 5 were given",
        ),
        (
            lambda: X.scatter_reduce_(0, I, S),
            'scatter_reduce_() missing 1 required positional arguments: "reduce"',
        ),
        (
            lambda: X.index_add_(0, I, S, 2),
            "index_add_() takes 3 positional arguments but 4 were given",
        ),
        (
            lambda: X.index_add_(0, I),
            'index_add_() missing 1 required positional arguments: "source"',
        ),
        (
            lambda: X.index_add_(),
            'index_add_() missing 3 required positional argument: "dim", "index", "source"',
        ),
        (
            lambda: X.index_put_((I,), S, True, 1),
            "index_put_() takes from 2 to 3 positional arguments but 4 were given",
        ),
        (
            lambda: X.index_put_((I,)),
            'index_put_() missing 1 required positional arguments: "values"',
        ),
        (
            lambda: I.bincount(None, 0, 1),
            "bincount() takes from 0 to 2 positional arguments but 3 were given",
        ),
        (lambda: mt.bincount(), 'bincount() missing 1 required positional arguments: "input"'),
        (
            lambda: mt.bincount(I, None, 0, 1),
            "bincount() takes from 1 to 3 positional arguments but 4 were given",
        ),
        (
            lambda: X.argmax(0, False, 1),
            "argmax() takes from 0 to 2 positional arguments but 3 were given",
        ),
        (
            lambda: X.argmin(0, False, 1),
            "argmin() takes from 0 to 2 positional arguments but 3 were given",
        ),
        (
            lambda: X.take_along_dim(I, 0, 1),
            "take_along_dim() takes from 1 to 2 positional arguments but 3 were given",
        ),
        (
            lambda: X.take_along_dim(),
            'take_along_dim() missing 1 required positional arguments: "indices"',
        ),
        (
            lambda: X.index_copy_(0, I),
            'index_copy_() missing 1 required positional arguments: "source"',
        ),
        (
            lambda: X.index_copy(0, I, S, 1),
            "index_copy() takes 3 positional arguments but 4 were given",
        ),
        (
            lambda: X.put_(I, S, True, 1),
            "put_() takes from 2 to 3 positional arguments but 4 were given",
        ),
        (lambda: X.put(I), 'put() missing 1 required positional arguments: "source"'),
        (
            lambda: X.amax(0, False, 1),
            "amax() takes from 0 to 2 positional arguments but 3 were given",
        ),
        (
            lambda: X.amin(0, False, 1),
            "amin() takes from 0 to 2 positional arguments but 3 were given",
        ),
        (
            lambda: X.index_reduce(0, I, S),
            'index_reduce() missing 1 required positional arguments: "reduce"',
        ),
        (
            lambda: X.index_reduce_(0, I, S, "prod", True),
            "index_reduce_() takes 4 positional arguments but 5 were given",
        ),
        (
            lambda: X.scatter_add_(0, [0], S),
            "scatter_add_(): argument 'index' (position 2) must be Tensor, not list",
        ),
        (
            lambda: X.scatter_add_(0.5, I, S),
            "scatter_add_(): argument 'dim' (position 1) must be int, not float",
        ),
        (
            lambda: X.scatter_add_(dim=0, index=[0], src=S),
            "scatter_add_(): argument 'index' must be Tensor, not list",
        ),
    ],
)
def test_parser_errors(call, message):
    assert _message(TypeError, call) == message


def test_keyword_calls_still_work():
    out = mt.zeros(3).index_put_(indices=(I,), values=S, accumulate=True)
    np.testing.assert_array_equal(out.numpy(), [1.0, 2.0, 0.0])
    out = mt.zeros(3).scatter_reduce_(0, I, S, reduce="amax", include_self=False)
    np.testing.assert_array_equal(out.numpy(), [1.0, 1.0, 0.0])
    out = mt.zeros(3).index_add_(0, I, S, alpha=2)
    np.testing.assert_array_equal(out.numpy(), [2.0, 4.0, 0.0])
    np.testing.assert_array_equal(I.bincount(minlength=4).numpy(), [1, 2, 0, 0])
    np.testing.assert_array_equal(mt.bincount(input=I).numpy(), [1, 2])


@pytest.mark.parametrize(
    "dtype, name",
    [
        (mt.float32, "float"),
        (mt.float64, "double"),
        (mt.int64, "int64_t"),
        (mt.float16, "c10::Half"),
    ],
)
def test_index_add_complex_alpha(dtype, name):
    x, s = mt.zeros(3, dtype=dtype), mt.tensor([1, 2, 3]).to(dtype)
    msg = f"value cannot be converted to type {name} without overflow"
    assert _message(RuntimeError, lambda: x.index_add(0, I, s, alpha=1 + 1j)) == msg
    assert _message(RuntimeError, lambda: x.clone().index_add_(0, I, s, alpha=-2j)) == msg


def test_index_add_complex_alpha_real_values():
    s = mt.tensor([1.0, 2.0, 3.0])
    out = mt.zeros(3).index_add(0, I, s, alpha=1.5 + 0j)
    np.testing.assert_allclose(out.numpy(), [1.5, 7.5, 0.0])
    out = mt.zeros(3, dtype=mt.int32).index_add(0, I, s.int(), alpha=-1.7 + 0j)
    np.testing.assert_array_equal(out.numpy(), [-1, -5, 0])
    out = mt.zeros(3, dtype=mt.bool).index_add(0, I, s.bool(), alpha=1j)  # nonzero: True
    np.testing.assert_array_equal(out.numpy(), [True, True, False])


QUANTILE_FORMS = (
    'Tensor q, int dim = None, bool keepdim = False, *, str interpolation = "linear"',
    'float q, int dim = None, bool keepdim = False, *, str interpolation = "linear"',
)
OUT = ", Tensor out = None"


def _listing(op, got, forms):
    listed = "".join(f" * ({f})\n" for f in forms)
    return (
        f"{op}() received an invalid combination of arguments - got ({got}), but expected one "
        f"of:\n{listed}"
    )


def test_quantile_without_q():
    forms = [f"Tensor input, {f}{OUT}" for f in QUANTILE_FORMS]
    assert _message(TypeError, lambda: mt.quantile(X)) == _listing("quantile", "Tensor", forms)
    assert _message(TypeError, lambda: mt.quantile()) == _listing("quantile", "", forms)
    assert _message(TypeError, lambda: X.nanquantile()) == _listing(
        "nanquantile", "", QUANTILE_FORMS
    )
    assert _message(TypeError, lambda: mt.quantile(X, dim=0)) == _listing(
        "quantile", "Tensor, dim=int", forms
    )
    np.testing.assert_allclose(mt.quantile(input=X, q=0.5).numpy(), 0.0)


def test_randperm_without_n():
    kw = (
        "Tensor out = None, torch.dtype dtype = None, torch.layout layout = None, "
        "torch.device device = None, bool pin_memory = False, bool requires_grad = False"
    )
    forms = (f"int n, *, torch.Generator generator, {kw}", f"int n, *, {kw}")
    assert _message(TypeError, lambda: mt.randperm()) == _listing("randperm", "", forms)
    missing = 'randperm() missing 1 required positional arguments: "n"'
    assert _message(TypeError, lambda: mt.randperm(dtype=mt.int32)) == missing
    assert _message(TypeError, lambda: mt.randperm(generator=None)) == missing
    assert mt.randperm(n=3).shape == (3,)


CLAMP_FORMS = (
    "Tensor input, Tensor min = None, Tensor max = None, *, Tensor out = None",
    "Tensor input, Number min = None, Number max = None, *, Tensor out = None",
)
CLAMP_METHOD_FORMS = (
    "Tensor min = None, Tensor max = None",
    "Number min = None, Number max = None",
)


@pytest.mark.parametrize(
    "call, op, got, method",
    [
        (lambda: mt.clamp(X, 0, 1, 2), "clamp", "Tensor, int, int, int", False),
        (lambda: mt.clip(X, 0, 1, 2), "clip", "Tensor, int, int, int", False),
        (lambda: mt.clamp(), "clamp", "", False),
        (lambda: mt.clamp(X, None, None, 2), "clamp", "Tensor, NoneType, NoneType, int", False),
        (lambda: X.clamp(0, 1, 2), "clamp", "int, int, int", True),
        (lambda: X.clamp_(0, 1, 2), "clamp_", "int, int, int", True),
        (lambda: X.clip(0, 1, 2), "clip", "int, int, int", True),
        (lambda: X.clip_(0, 1.5, 2), "clip_", "int, float, int", True),
    ],
)
def test_clamp_extra_positional(call, op, got, method):
    forms = CLAMP_METHOD_FORMS if method else CLAMP_FORMS
    assert _message(TypeError, call) == _listing(op, got, forms)
