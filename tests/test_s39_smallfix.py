"""Session 39 (helper smallfix): torch-free regression tests of the library fixes that
tests/reference/test_s39_smallfix_reference.py found: argument positions in as_strided's,
slice_scatter's, poisson's and diff's TypeErrors; torch's parser listings for bernoulli given
extra or unknown arguments and for scatter given a fifth positional one; diff's positional type
before a keyword given twice; unique_consecutive's boolean_dispatch names; split refusing a NumPy
integer; unsafe_split refusing a list of sizes. torch's messages are written here as literals."""

from __future__ import annotations

import numpy as np
import pytest

import minitorch as mt


def _message(fn, exc_type=TypeError):
    with pytest.raises(exc_type) as info:
        fn()
    return str(info.value)


X = mt.arange(6.0).reshape(2, 3)


@pytest.mark.parametrize(
    "call, msg",
    [
        (lambda: X.as_strided("a"),
         "as_strided(): argument 'size' (position 1) must be tuple of ints, not str"),
        (lambda: mt.as_strided(X, "a"),
         "as_strided(): argument 'size' (position 2) must be tuple of ints, not str"),
        (lambda: mt.as_strided(X, (2,)), 'as_strided() missing 1 required positional arguments: '
         '"stride"'),
        (lambda: mt.as_strided(X, (2,), (1,), 1.0),
         "as_strided(): argument 'storage_offset' (position 4) must be int, not float"),
        (lambda: X.as_strided((2,), (1,), storage_offset=1.0),
         "as_strided(): argument 'storage_offset' must be int, not float"),
        (lambda: X.slice_scatter(X, 0, 1.5),
         "slice_scatter(): argument 'start' (position 3) must be int, not float"),
        (lambda: mt.slice_scatter(X, X, 9, 1.5),
         "slice_scatter(): argument 'start' (position 4) must be int, not float"),
        (lambda: mt.slice_scatter(X, X, 0, end=1.0),
         "slice_scatter(): argument 'end' must be int, not float"),
        (lambda: mt.poisson(mt.ones(3), 5),
         "poisson(): argument 'generator' (position 2) must be torch.Generator, not int"),
        (lambda: mt.poisson(), 'poisson() missing 1 required positional arguments: "input"'),
        (lambda: mt.poisson(mt.ones(3), None, 6),
         "poisson() takes from 1 to 2 positional arguments but 3 were given"),
        (lambda: mt.diff(X, 1, -1, 1, prepend=1),
         "diff(): argument 'prepend' (position 4) must be Tensor, not int"),
        (lambda: X.diff(1, -1, None, 1),
         "diff(): argument 'append' (position 4) must be Tensor, not int"),
        (lambda: mt.diff(X, 1, -1, X, prepend=X),
         "diff() got multiple values for argument 'prepend'"),
        (lambda: X.split(np.int64(2)), "split_with_sizes(): argument 'split_sizes' (position 2) "
         "must be tuple of ints, not numpy.int64"),
        (lambda: X.unsafe_split([1, 1]),
         "unsafe_split(): argument 'split_size' (position 1) must be int, not list"),
        (lambda: mt.unsafe_split(X, [1, 2], 1),
         "unsafe_split(): argument 'split_size' (position 2) must be int, not list"),
    ],
)  # fmt: skip
def test_argument_type_errors(call, msg):
    assert _message(call) == msg


V = mt.tensor([1, 1, 2, 2, 3])


_GIVEN_TWICE = "() got multiple values for argument "


@pytest.mark.parametrize(
    "call, name",
    [
        (lambda: mt.unique_consecutive(V, True, return_inverse=False),
         "_consecutive_return_counts" + _GIVEN_TWICE + "'return_inverse'"),
        (lambda: mt.unique_consecutive(V, True, True, return_counts=False),
         "_consecutive_return_inverse" + _GIVEN_TWICE + "'return_counts'"),
        (lambda: mt.unique_consecutive(V, False, False, None, dim=0),
         "_consecutive_return_output" + _GIVEN_TWICE + "'dim'"),
        (lambda: mt.unique_consecutive(V, True, True, 0, 1),
         "_consecutive_return_inverse_and_counts() takes from 1 to 4 positional arguments but 5 "
         "were given"),
        (lambda: mt.unique_consecutive(V, foo=1),
         "_consecutive_return_output() got an unexpected keyword argument 'foo'"),
        (lambda: V.unique_consecutive(True, return_inverse=False),
         "Tensor.unique_consecutive" + _GIVEN_TWICE + "'return_inverse'"),
        (lambda: mt.unique_consecutive(V, 1),
         "unique_consecutive(): argument 'return_inverse' must be bool, not int"),
    ],
)  # fmt: skip
def test_unique_consecutive_dispatch_names(call, name):
    assert _message(call) == name


def test_unique_consecutive_values_and_signature():
    import inspect

    out, inv, cnt = mt.unique_consecutive(V, True, True)
    assert (out.tolist(), inv.tolist(), cnt.tolist()) == ([1, 2, 3], [0, 0, 1, 1, 2], [2, 2, 1])
    assert list(inspect.signature(mt.unique_consecutive).parameters)[:2] == [
        "input",
        "return_inverse",
    ]


P = mt.full((3,), 0.5)
_BERN = (
    " * (Tensor input, *, torch.Generator generator = None, Tensor out = None)\n"
    " * (Tensor input, float p, *, torch.Generator generator = None)\n"
)
_BERN_M = (
    " * (*, torch.Generator generator = None)\n * (float p, *, torch.Generator generator = None)\n"
)
_HEAD = (
    "bernoulli() received an invalid combination of arguments - got ({}), but expected one of:\n"
)


def test_bernoulli_parser_listings():
    assert _message(lambda: mt.bernoulli(P, 0.5, None, 3)) == _HEAD.format(
        "Tensor, float, NoneType, int"
    ) + (
        " * (Tensor input, *, torch.Generator generator = None, Tensor out = None)\n"
        "      didn't match because some of the arguments have invalid types: (Tensor, !float!, "
        "!NoneType!, !int!)\n"
        " * (Tensor input, float p, *, torch.Generator generator = None)\n"
        "      didn't match because some of the arguments have invalid types: (Tensor, float, "
        "!NoneType!, !int!)\n"
    )
    assert _message(lambda: P.bernoulli(0.5, None, 3)) == _HEAD.format("float, NoneType, int") + (
        " * (*, torch.Generator generator = None)\n"
        " * (float p, *, torch.Generator generator = None)\n"
        "      didn't match because some of the arguments have invalid types: (float, !NoneType!, "
        "!int!)\n"
    )
    assert _message(lambda: mt.bernoulli()) == _HEAD.format("") + _BERN
    assert _message(lambda: mt.bernoulli(P, foo=1)) == _HEAD.format("Tensor, foo=int") + _BERN
    assert (
        _message(lambda: mt.bernoulli(P, None, foo=2))
        == _HEAD.format("Tensor, NoneType, foo=int") + _BERN
    )
    assert _message(lambda: P.bernoulli(foo=1)) == _HEAD.format("foo=int, ") + _BERN_M
    g = mt.Generator().manual_seed(0)
    assert mt.bernoulli(P, 0.5, generator=g).shape == (3,)  # (correct calls unchanged)


def test_scatter_fifth_positional_lists_overloads():
    i = mt.zeros(2, 3, dtype=mt.long)
    want = (
        "scatter() received an invalid combination of arguments - got (Tensor, int, Tensor, "
        "Tensor, int), but expected one of:\n"
        " * (Tensor input, int dim, Tensor index, Tensor src, *, Tensor out = None)\n"
        " * (Tensor input, int dim, Tensor index, Tensor src, *, str reduce, Tensor out = None)\n"
        " * (Tensor input, int dim, Tensor index, Number value, *, Tensor out = None)\n"
        " * (Tensor input, int dim, Tensor index, Number value, *, str reduce, Tensor out = None)\n"
    )
    assert _message(lambda: mt.scatter(X, 0, i, X, 5)) == want
    method = (
        "(int, Tensor, Tensor, int), but expected one of:\n"
        " * (int dim, Tensor index, Tensor src)\n"
        " * (int dim, Tensor index, Tensor src, *, str reduce)\n"
        " * (int dim, Tensor index, Number value)\n"
        " * (int dim, Tensor index, Number value, *, str reduce)\n"
    )
    assert _message(lambda: X.scatter(0, i, X, 5)) == (
        "scatter() received an invalid combination of arguments - got " + method
    )
    assert _message(lambda: X.clone().scatter_(0, i, X, 5)) == (
        "scatter_() received an invalid combination of arguments - got " + method
    )
    assert X.scatter(0, i, 1.5, reduce="add").tolist() == [[3.0, 4.0, 5.0], [3.0, 4.0, 5.0]]


def test_split_and_unsafe_split_still_take_their_forms():
    assert [t.shape[1] for t in X.split(mt.tensor(2), 1)] == [2, 1]
    assert [t.shape[1] for t in X.split([np.int64(2), 1], 1)] == [2, 1]
    assert [t.shape[1] for t in X.unsafe_split(2, 1)] == [2, 1]
    parts = X.unsafe_split_with_sizes([1, 2], 1)
    assert [t.shape[1] for t in parts] == [1, 2]
    assert X.slice_scatter(mt.zeros(1, 3), 0, mt.tensor(1)).tolist() == [[0, 1, 2], [0, 0, 0]]
