"""Keyword-argument errors worded as torch's argument parser words them, checked without torch
(tests/reference/test_s40_kwfuzz_reference.py compares the whole sweep with torch)."""

from __future__ import annotations

import pytest

import minitorch as mt


@pytest.fixture
def x():
    return mt.arange(24.0).reshape(2, 3, 4)


@pytest.mark.parametrize(
    "call, words",
    [
        # an unknown keyword to an op of several overloads: the overloads are listed
        (lambda x: x.std(foo=1), "std() received an invalid combination of arguments - got "
         "(foo=int, ), but expected one of:\n * (tuple of ints dim, bool unbiased = True, "),
        (lambda x: x.var(dim=1, bogus=2), "var() received an invalid combination of arguments "
         "- got (bogus=int, dim=int, ), but expected one of:\n * (tuple of ints dim, bool "),
        (lambda x: mt.squeeze(x, foo=1), "squeeze() received an invalid combination of "
         "arguments - got (Tensor, foo=int), but expected one of:\n * (Tensor input)\n"),
        (lambda x: x.sort(descending=True, foo=None), "sort() received an invalid combination "
         "of arguments - got (foo=NoneType, descending=bool, ), but expected one of:"),
        # ... or what the one overload that fits the count misses first
        (lambda x: x.sum(dtype=mt.float64, foo=None),
         'sum() missing 1 required positional arguments: "dim"'),
        # NumPy's spellings named as the call wrote them
        (lambda x: x.cumsum(1, axis=1), "cumsum() got an unexpected keyword argument 'axis'"),
        (lambda x: x.sum(1, axis=1), "sum() got an unexpected keyword argument 'axis'"),
        (lambda x: x.sum(1, True, keepdims=True),
         "sum() got an unexpected keyword argument 'keepdims'"),
        (lambda x: x.argmax(1, axis=1), "argmax() got an unexpected keyword argument 'axis'"),
        (lambda x: x.amin(keepdim=True, axis=1, dim=1),
         "amin() got an unexpected keyword argument 'axis'"),
        (lambda x: x.argsort(keepdims=True), "argsort() received an invalid combination of "
         "arguments - got (keepdims=bool, ), but expected one of:"),
        (lambda x: x.sum(keepdims=True), "sum() received an invalid combination of arguments - "
         "got (keepdims=bool, ), but expected one of:\n * (*, torch.dtype dtype = None)\n"),
        # keywords of the wrong type
        (lambda x: x.sum(keepdim=None), "sum() received an invalid combination of arguments - "
         "got (keepdim=NoneType, ), but expected one of:"),
        (lambda x: x.mean(dtype="a"), "mean() received an invalid combination of arguments - "
         "got (dtype=str, ), but expected one of:"),
        (lambda x: x.prod(1, dtype="a"), "prod(): argument 'dtype' must be torch.dtype, not str"),
        (lambda x: x.squeeze([1.5]), "squeeze() received an invalid combination of arguments - "
         "got (list), but expected one of:"),
        (lambda x: x.squeeze(0, 2.5), "squeeze(): argument 'dim' failed to unpack the object "
         'at pos 2 with error "type must be tuple of ints,but got float"'),
        (lambda x: x.numpy(force=1), "numpy(): argument 'force' must be bool, not int"),
        # to(): the keywords in the reverse of the call's order; one fitting overload
        (lambda x: x.to(dtype=mt.float64, foo=1), "to() received an invalid combination of "
         "arguments - got (foo=int, dtype=torch.dtype, ), but expected one of:"),
        (lambda x: x.to("cpu", mt.float64, False, False, False),
         "to() takes from 0 to 4 positional arguments but 5 were given"),
    ],
)  # fmt: skip
def test_keyword_errors_read_as_torch(x, call, words):
    with pytest.raises(TypeError) as info:
        call(x)
    assert str(info.value).startswith(words), str(info.value)


def test_good_keyword_calls_still_work(x):
    assert x.sum(dim=1, keepdim=True).shape == (2, 1, 4)
    assert x.sum(axis=1, keepdims=True).shape == (2, 1, 4)
    assert x.mean(1, dtype=mt.float64).dtype == mt.float64
    assert x.prod(dim=2, dtype=mt.float64).shape == (2, 3)
    assert x.std(dim=1, correction=0).shape == (2, 4)
    assert x.cumsum(axis=1)[0, 2, 0].item() == 0.0 + 4.0 + 8.0
    assert x.argmax(axis=2, keepdims=True).shape == (2, 3, 1)
    assert x.squeeze((0, 1)).shape == (2, 3, 4)
    assert x.to(dtype=mt.float64, copy=True).dtype == mt.float64
    assert x.numpy(force=True).shape == (2, 3, 4)
