"""Session 38 (helper methout): torch-free regression tests of the library fixes the sweep of
tests/reference/test_s38_methout_reference.py found: Tensor methods given out= or input= (which
only the function forms take) raise torch's method parser errors -- the unexpected keyword of a
method of one overload (after a missing or ill-typed argument), the "invalid combination"
listing of the method's overloads otherwise -- instead of writing into out; the methods of no
parameters (trace, corrcoef, geqrf) and torch's Python-level ones (lu, eig, symeig, solve,
lstsq) refuse keywords with torch's wording; new_ones/new_zeros/new_empty miss "size" first;
invalid_arguments parses an op of one overload whatever the count, names unknown keywords in
the call's order, says "got multiple values" for a parameter given twice and takes None for a
parameter whose default is None. torch's messages are written here as literals."""

from __future__ import annotations

import pytest

import minitorch as mt
from minitorch._ops._parser_errors import invalid_arguments


def _message(exc_type, fn):
    with pytest.raises(exc_type) as info:
        fn()
    return str(info.value)


def _x():
    return mt.rand(3, 4, generator=mt.Generator().manual_seed(0), dtype=mt.float64) + 0.5


SUM_LIST = (
    "sum() received an invalid combination of arguments - got ({got}), but expected one of:\n"
    " * (*, torch.dtype dtype = None)\n"
    " * (tuple of ints dim, bool keepdim = False, *, torch.dtype dtype = None)\n"
)


@pytest.mark.parametrize(
    "call, msg",
    [
        (lambda x, o: x.sum(0, out=o), "sum() got an unexpected keyword argument 'out'"),
        (lambda x, o: x.sum(dim=1, keepdim=True, out=o),
         "sum() got an unexpected keyword argument 'out'"),
        (lambda x, o: x.sum(out=o), SUM_LIST.format(got="out=Tensor, ")),
        (lambda x, o: x.sum(input=x), SUM_LIST.format(got="input=Tensor, ")),
        (lambda x, o: x.mean(0, out=o), "mean() got an unexpected keyword argument 'out'"),
        (lambda x, o: x.prod(0, out=o), "prod() got an unexpected keyword argument 'out'"),
        (lambda x, o: x.amax(out=o), "amax() got an unexpected keyword argument 'out'"),
        (lambda x, o: x.amin(1, out=o), "amin() got an unexpected keyword argument 'out'"),
        (lambda x, o: x.argmin(out=o), "argmin() got an unexpected keyword argument 'out'"),
        (lambda x, o: x.argmax(0, out=o), "argmax() got an unexpected keyword argument 'out'"),
        (lambda x, o: x.nansum(out=o), "nansum() got an unexpected keyword argument 'out'"),
        (lambda x, o: x.nanmean(input=x), "nanmean() got an unexpected keyword argument 'input'"),
        (lambda x, o: x.diff(out=o), "diff() got an unexpected keyword argument 'out'"),
        (lambda x, o: x.logsumexp(0, out=o),
         "logsumexp() got an unexpected keyword argument 'out'"),
        (lambda x, o: x.logsumexp(input=x), 'logsumexp() missing 1 required positional arguments: '
         '"dim"'),
        (lambda x, o: x.median(0, out=o), "median() got an unexpected keyword argument 'out'"),
        (lambda x, o: x.cumsum(out=o), 'cumsum() missing 1 required positional arguments: "dim"'),
        (lambda x, o: x.cumsum(0, input=x, out=o),
         "cumsum() got an unexpected keyword argument 'input'"),
        (lambda x, o: x.cumsum(0, dim=1, out=o), "cumsum() got multiple values for argument 'dim'"),
        (lambda x, o: x.cummax(out=o), 'cummax() missing 1 required positional arguments: "dim"'),
        (lambda x, o: x.sum(0, out=o, foo=1), "sum() got an unexpected keyword argument 'out'"),
        (lambda x, o: x.sum(0, foo=1, out=o), "sum() got an unexpected keyword argument 'foo'"),
        (lambda x, o: x.amax("a", out=o),
         "amax(): argument 'dim' (position 1) must be tuple of ints, not str"),
        (lambda x, o: x.aminmax(0, out=o),
         "aminmax() takes 0 positional arguments but 1 was given"),
        (lambda x, o: x.matmul(mt.eye(4, dtype=mt.float64), out=o),
         "matmul() got an unexpected keyword argument 'out'"),
        (lambda x, o: x.bmm(x, out=o), "bmm() got an unexpected keyword argument 'out'"),
        (lambda x, o: x.dot(x, input=x), "dot() got an unexpected keyword argument 'input'"),
        (lambda x, o: x.ger(out=o), 'ger() missing 1 required positional arguments: "vec2"'),
        (lambda x, o: x.cross(out=o), 'cross() missing 1 required positional arguments: "other"'),
        (lambda x, o: x.ormqr(out=o),
         'ormqr() missing 2 required positional argument: "input2", "input3"'),
        (lambda x, o: x.narrow_copy(0, 0, 2, out=o),
         "narrow_copy() got an unexpected keyword argument 'out'"),
        (lambda x, o: x.index_reduce(0, mt.tensor([0, 2]), x[:2], "prod", out=o),
         "index_reduce() got an unexpected keyword argument 'out'"),
        (lambda x, o: x.cov(1, out=o), "cov() takes 0 positional arguments but 1 was given"),
        (lambda x, o: x.cov(fweights=None, input=x),
         "cov() got an unexpected keyword argument 'input'"),
    ],
)  # fmt: skip
def test_methods_refuse_out_and_input(call, msg):
    x, o = _x(), mt.zeros(3, 4, dtype=mt.float64)
    before = o.clone()
    assert _message(TypeError, lambda: call(x, o)) == msg
    assert mt.equal(o, before)  # nothing was written


def test_reductions_with_several_overloads_list_the_methods():
    x, o = _x(), mt.zeros(4, dtype=mt.float64)
    assert _message(TypeError, lambda: x.std(0, out=o)) == (
        "std() received an invalid combination of arguments - got (int, out=Tensor), but "
        "expected one of:\n"
        " * (tuple of ints dim, bool unbiased = True, bool keepdim = False)\n"
        " * (tuple of ints dim = None, *, Number correction = None, bool keepdim = False)\n"
        " * (bool unbiased = True)\n"
    )
    assert _message(TypeError, lambda: x.all(0, out=o)) == (
        "all() received an invalid combination of arguments - got (int, out=Tensor), but "
        "expected one of:\n * ()\n"
        " * (tuple of ints dim = None, bool keepdim = False)\n"
        "      didn't match because some of the keywords were incorrect: out\n"
        " * (int dim, bool keepdim = False)\n"
        "      didn't match because some of the keywords were incorrect: out\n"
    )
    quantile = (
        "quantile() received an invalid combination of arguments - got (float, out=Tensor), but "
        "expected one of:\n"
        ' * (Tensor q, int dim = None, bool keepdim = False, *, str interpolation = "linear")\n'
        ' * (float q, int dim = None, bool keepdim = False, *, str interpolation = "linear")\n'
    )
    assert _message(TypeError, lambda: x.quantile(0.5, out=o)) == quantile
    sort = (
        "sort() received an invalid combination of arguments - got (int, out=Tensor), but "
        "expected one of:\n"
        " * (*, bool stable, int dim = -1, bool descending = False)\n"
        " * (int dim = -1, bool descending = False)\n"
        "      didn't match because some of the keywords were incorrect: out\n"
    )
    assert _message(TypeError, lambda: x.sort(0, out=o)) == sort
    assert _message(TypeError, lambda: x.max(input=x)) == (
        "max() received an invalid combination of arguments - got (input=Tensor, ), but "
        "expected one of:\n * ()\n"
        "      didn't match because some of the keywords were incorrect: input\n"
        " * (Tensor other)\n"
        "      didn't match because some of the keywords were incorrect: input\n"
        " * (int dim, bool keepdim = False)\n"
    )
    assert _message(TypeError, lambda: x.histogram(4, input=x)) == (
        "histogram() received an invalid combination of arguments - got (int, input=Tensor), "
        "but expected one of:\n"
        " * (Tensor bins, *, Tensor weight = None, bool density = False)\n"
        " * (int bins = 100, *, tuple of floats range = None, Tensor weight = None, bool "
        "density = False)\n"
    )


def test_methods_of_no_parameters_and_python_methods():
    x = _x()
    m = x[:, :3]
    assert _message(TypeError, lambda: m.trace(out=m)) == (
        "TensorBase.trace() takes no keyword arguments"
    )
    assert _message(TypeError, lambda: m.trace(1)) == (
        "TensorBase.trace() takes no arguments (1 given)"
    )
    assert _message(TypeError, lambda: x.corrcoef(input=x)) == (
        "TensorBase.corrcoef() takes no keyword arguments"
    )
    assert _message(TypeError, lambda: m.geqrf(out=(m, m))) == (
        "TensorBase.geqrf() takes no keyword arguments"
    )
    assert _message(TypeError, lambda: m.lu(out=m)) == (
        "Tensor.lu() got an unexpected keyword argument 'out'"
    )
    assert _message(TypeError, lambda: m.lu(True, False, 1)) == (
        "Tensor.lu() takes from 1 to 3 positional arguments but 4 were given"
    )
    assert _message(TypeError, lambda: m.eig(out=m)) == (
        "Tensor.eig() got an unexpected keyword argument 'out'"
    )
    assert _message(TypeError, lambda: m.lstsq(m, 1)) == (
        "Tensor.lstsq() takes 2 positional arguments but 3 were given"
    )
    assert _message(RuntimeError, lambda: m.solve(m)).startswith(
        "This function was deprecated since version 1.9 and is now removed."
    )
    np_trace = m.trace()  # the plain calls still compute
    assert abs(float(np_trace) - float(m.diagonal().sum())) < 1e-12


@pytest.mark.parametrize("name", ["new_ones", "new_zeros", "new_empty"])
def test_new_factories_miss_size_before_out(name):
    x = _x()
    fn = getattr(x, name)
    assert _message(TypeError, lambda: fn(out=x)) == (
        f'{name}() missing 1 required positional arguments: "size"'
    )
    assert _message(TypeError, lambda: fn(2, out=x)) == (
        f"{name}() got an unexpected keyword argument 'out'"
    )


def test_invalid_arguments_of_one_overload():
    # parsed against its one overload whatever the count: the first unknown keyword of the call
    assert str(invalid_arguments("f", ("int dim",), (0,), {"b": 1, "a": 2})) == (
        "f() got an unexpected keyword argument 'a'"  # (kwargs come in the listing's order)
    )
    assert str(invalid_arguments("f", ("int dim, int n = 1",), (0,), {"dim": 1})) == (
        "f() got multiple values for argument 'dim'"
    )
    # None where the default is None is taken; a required one is still named missing
    assert str(invalid_arguments("f", ("Tensor w = None, int d",), (None,), {"x": 1})) == (
        'f() missing 1 required positional arguments: "d"'
    )


def test_function_forms_still_take_out():
    x = _x()
    o = mt.empty(4, dtype=mt.float64)
    assert mt.sum(x, 0, out=o) is o
    assert mt.allclose(o, x.sum(0))
    r = mt.empty(3, dtype=mt.float64)
    mt.var(input=x, dim=1, out=r)
    assert mt.allclose(r, x.var(dim=1))
    assert mt.allclose(x.mean(dim=1, keepdim=True), mt.mean(x, 1, True))
