"""Session 39 (helper dupargs): torch-free regression tests of the library fixes the sweep of
tests/reference/test_s39_dupargs_reference.py found: an argument given twice to an op of several
overloads lists them (the NumPy-alias wrapper asks _parser_errors.given_twice_error); a
positional None at its default stays in the listings' "got (...)"; an explicit unbiased=None is
refused; scatter's src beside value=; view's keywords beside sizes; slice_scatter's and
slice_copy's dim and step; split's list of sizes with a bad dim (split_with_sizes); a bool
dim beside an unbiased in var; a NumPy integer dim in the reductions' parser check. torch's
messages are written here as literals."""

from __future__ import annotations

import numpy as np
import pytest

import minitorch as mt


def _message(fn):
    with pytest.raises(TypeError) as info:
        fn()
    return str(info.value)


@pytest.fixture
def x():
    return mt.arange(6.0, dtype=mt.float64).reshape(2, 3)


_VAR_FORMS = (
    " * (Tensor input, tuple of ints dim, bool unbiased = True, bool keepdim = False, *, Tensor "
    "out = None)\n * (Tensor input, tuple of ints dim = None, *, Number correction = None, bool "
    "keepdim = False, Tensor out = None)\n * (Tensor input, bool unbiased = True)\n"
)
_QUANTILE_FORMS = (
    ' * (Tensor q, int dim = None, bool keepdim = False, *, str interpolation = "linear")\n'
    ' * (float q, int dim = None, bool keepdim = False, *, str interpolation = "linear")\n'
)


def test_an_argument_given_twice_lists_the_overloads(x):
    assert _message(lambda: x.all(1, dim=1)) == (
        "all() received an invalid combination of arguments - got (int, dim=int), but expected "
        "one of:\n * ()\n * (tuple of ints dim = None, bool keepdim = False)\n      didn't match "
        "because some of the keywords were incorrect: dim\n * (int dim, bool keepdim = False)\n"
        "      didn't match because some of the keywords were incorrect: dim\n"
    )
    assert _message(lambda: mt.var(x, 1, dim=1)) == (
        "var() received an invalid combination of arguments - got (Tensor, int, dim=int), but "
        "expected one of:\n" + _VAR_FORMS
    )
    assert _message(lambda: x.median(1, True, keepdim=True)) == (
        "median() received an invalid combination of arguments - got (int, bool, keepdim=bool), "
        "but expected one of:\n * ()\n * (int dim, bool keepdim = False)\n"
    )
    assert _message(lambda: x.squeeze_(1, dim=1)) == (
        "squeeze_() received an invalid combination of arguments - got (int, dim=int), but "
        "expected one of:\n * ()\n * (int dim)\n * (tuple of ints dim)\n"
    )
    assert _message(lambda: mt.narrow(x, 1, 0, 2, dim=1)) == (
        "narrow() received an invalid combination of arguments - got (Tensor, int, int, int, "
        "dim=int), but expected one of:\n * (Tensor input, int dim, Tensor start, int length)\n"
        " * (Tensor input, int dim, int start, int length)\n"
    )
    assert _message(lambda: x.quantile(0.5, 1, dim=1)) == (
        "quantile() received an invalid combination of arguments - got (float, int, dim=int), "
        "but expected one of:\n" + _QUANTILE_FORMS
    )


def test_an_argument_given_twice_to_one_fitting_overload_names_it(x):
    # torch.median's function forms: only the dim overload has four parameters (out= included)
    assert _message(lambda: mt.median(x, 1, True, keepdim=True)) == (
        "median() got multiple values for argument 'keepdim'"
    )
    assert _message(lambda: x.topk(2, 1, dim=1)) == "topk() got multiple values for argument 'dim'"


def test_a_positional_none_stays_in_the_listing(x):
    assert _message(lambda: x.all(None, None)) == (
        "all() received an invalid combination of arguments - got (NoneType, NoneType), but "
        "expected one of:\n * ()\n * (tuple of ints dim = None, bool keepdim = False)\n      "
        "didn't match because some of the arguments have invalid types: (!NoneType!, !NoneType!)"
        "\n * (int dim, bool keepdim = False)\n      didn't match because some of the arguments "
        "have invalid types: (!NoneType!, !NoneType!)\n"
    )
    assert _message(lambda: x.tensor_split(2, None)).startswith(
        "tensor_split() received an invalid combination of arguments - got (int, NoneType), but"
    )
    assert _message(lambda: x.quantile(0.5, None, None)) == (
        "quantile() received an invalid combination of arguments - got (float, NoneType, "
        "NoneType), but expected one of:\n" + _QUANTILE_FORMS
    )
    assert x.all(None).item() is False  # (a None dim alone is every dim)


def test_unbiased_none_is_refused(x):
    assert _message(lambda: x.var(1, None)) == (
        "var() received an invalid combination of arguments - got (int, NoneType), but expected "
        "one of:\n * (tuple of ints dim, bool unbiased = True, bool keepdim = False)\n * (tuple "
        "of ints dim = None, *, Number correction = None, bool keepdim = False)\n * (bool "
        "unbiased = True)\n"
    )
    assert _message(lambda: x.std(unbiased=None)).endswith(
        "didn't match because some of the keywords were incorrect: unbiased\n"
    )
    assert _message(lambda: mt.var_mean(x, 1, unbiased=None)).startswith(
        "var_mean() received an invalid combination of arguments - got (Tensor, int, "
        "unbiased=NoneType), but expected one of:\n"
    )
    np.testing.assert_allclose(x.var(1).numpy(), [1.0, 1.0])
    np.testing.assert_allclose(x.std(1, unbiased=False).numpy() ** 2, [2 / 3, 2 / 3])
    y = x.clone().requires_grad_()
    assert y.var(1, unbiased=False).grad_fn._saved_correction == 0
    assert y.var(1).grad_fn._saved_correction == 1
    assert y.var(False).grad_fn._saved_correction == 0


def test_a_bool_dim_beside_unbiased_is_refused(x):
    assert _message(lambda: x.var(True, 1)) == (
        "var() received an invalid combination of arguments - got (bool, int), but expected one "
        "of:\n * (tuple of ints dim, bool unbiased = True, bool keepdim = False)\n * (tuple of "
        "ints dim = None, *, Number correction = None, bool keepdim = False)\n * (bool unbiased "
        "= True)\n"
    )
    assert _message(lambda: x.var(True, correction=1)).startswith(
        "var() received an invalid combination of arguments - got (bool, correction=int), but"
    )
    np.testing.assert_allclose(x.var(False).item(), 35 / 12)


def test_scatter_src_beside_value_is_refused(x):
    gi = mt.zeros(2, 3, dtype=mt.int64)
    assert _message(lambda: x.scatter(1, gi, 1.5, value=1.5)) == (
        "scatter() received an invalid combination of arguments - got (int, Tensor, float, "
        "value=float), but expected one of:\n * (int dim, Tensor index, Tensor src)\n * (int dim,"
        " Tensor index, Tensor src, *, str reduce)\n * (int dim, Tensor index, Number value)\n *"
        " (int dim, Tensor index, Number value, *, str reduce)\n"
    )
    assert _message(lambda: mt.scatter(x, 1, gi, x, value=1.5)).startswith(
        "scatter() received an invalid combination of arguments - got (Tensor, int, Tensor, "
        "Tensor, value=float), but expected one of:\n"
    )
    assert _message(lambda: x.clone().scatter_(1, gi, x, value=1.5)).startswith(
        "scatter_() received an invalid combination of arguments"
    )
    assert x.scatter(1, gi, value=2.0)[:, 0].tolist() == [2.0, 2.0]


def test_view_sizes_beside_keywords_list_its_overloads(x):
    assert _message(lambda: x.view(2, 3, size=6)) == (
        "view() received an invalid combination of arguments - got (int, int, size=int), but "
        "expected one of:\n * (torch.dtype dtype)\n * (tuple of ints size)\n"
    )
    assert _message(lambda: x.view(foo=1)) == (
        "view() received an invalid combination of arguments - got (foo=int, ), but expected one"
        " of:\n * (torch.dtype dtype)\n      didn't match because some of the keywords were "
        "incorrect: foo\n * (tuple of ints size)\n      didn't match because some of the keywords"
        " were incorrect: foo\n"
    )
    assert x.view(size=(3, 2)).shape == (3, 2)


def test_slice_scatter_dim_and_step_types(x):
    assert _message(lambda: x.slice_scatter(x, None)) == (
        "slice_scatter(): argument 'dim' (position 2) must be int, not NoneType"
    )
    assert _message(lambda: mt.slice_scatter(x, x, 0, None, None, None)) == (
        "slice_scatter(): argument 'step' (position 6) must be int, not NoneType"
    )
    assert _message(lambda: x.slice_scatter(x, step=None)) == (
        "slice_scatter(): argument 'step' must be int, not NoneType"
    )
    assert _message(lambda: mt.slice_copy(x, None)) == (
        "slice_copy(): argument 'dim' (position 2) must be int, not NoneType"
    )
    src = mt.zeros(2, 2, dtype=mt.float64)
    assert x.slice_scatter(src, 1, np.int64(0), 3, np.int64(2)).tolist() == [
        [0.0, 1.0, 0.0],
        [0.0, 4.0, 0.0],
    ]


def test_split_sizes_with_a_bad_dim_name_split_with_sizes(x):
    assert _message(lambda: x.split([1, 2], None)) == (
        "split_with_sizes(): argument 'dim' (position 3) must be int, not NoneType"
    )
    assert _message(lambda: mt.split(x, (1, 2), dim="a")) == (
        "split_with_sizes(): argument 'dim' (position 3) must be int, not str"
    )
    assert _message(lambda: x.split(2, None)).startswith("split() received an invalid combination")


def test_numpy_integer_dims_fit_the_reductions(x):
    assert _message(lambda: x.sum(np.int64(1), np.bool_(True))) == (
        "sum(): argument 'keepdim' (position 2) must be bool, not numpy.bool"
    )
    assert _message(lambda: x.sum([np.int64(1)], "a")) == (
        "sum(): argument 'keepdim' (position 2) must be bool, not str"
    )
    assert x.sum(np.int64(1)).tolist() == [3.0, 12.0]
