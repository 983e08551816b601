"""Session 25 (tabular / time-series programs): fixes found by running data-science programs under
torch and minitorch. Expected values are torch 2.13's, stated as literals."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import minitorch as mt


@pytest.fixture
def warn_always():
    old = mt.is_warn_always_enabled()
    mt.set_warn_always(True)
    yield
    mt.set_warn_always(old)


def test_index_reduce_warns_that_it_is_beta(warn_always):
    x = mt.ones(3)
    with pytest.warns(UserWarning, match=r"^index_reduce\(\) is in beta and the API may change"):
        out = x.index_reduce(0, mt.tensor([0, 0]), mt.tensor([2.0, 3.0]), "prod")
    np.testing.assert_array_equal(out.numpy(), [6.0, 1.0, 1.0])
    with pytest.warns(UserWarning, match=r"index_reduce\(\) is in beta"):
        x.index_reduce_(0, mt.tensor([1]), mt.tensor([4.0]), "amax")
    np.testing.assert_array_equal(x.numpy(), [1.0, 4.0, 1.0])


def test_index_reduce_checks_arguments_before_warning(warn_always):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(RuntimeError, match="Expected reduce to be one of prod, mean, amax or"):
            mt.ones(3).index_reduce(0, mt.tensor([0]), mt.ones(1), "sum")


@pytest.mark.parametrize(
    ("reduce", "include_self", "kernel"),
    [
        ("amax", True, "index_func_"),
        ("prod", True, "index_func_"),
        ("mean", True, "index_func_"),
        ("amin", False, "index_reduce_func_exclude_input_init"),
    ],
)
def test_index_reduce_has_no_bool_kernel(reduce, include_self, kernel):
    b = mt.tensor([True, False, True])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        with pytest.raises(NotImplementedError) as e:
            b.index_reduce(0, mt.tensor([0]), mt.tensor([False]), reduce, include_self=include_self)
    assert str(e.value) == f"\"{kernel}\" not implemented for 'Bool'"


@pytest.mark.parametrize("cls", ["Embedding", "EmbeddingBag"])
def test_from_pretrained_of_a_numpy_matrix_fails_as_torch(cls):
    # GloVe vectors loaded with NumPy passed straight in: torch asks the array for .dim()
    make = getattr(mt.nn, cls).from_pretrained
    with pytest.raises(AttributeError, match=r"^'numpy.ndarray' object has no attribute 'dim'$"):
        make(np.eye(3))
    with pytest.raises(AttributeError, match=r"^'list' object has no attribute 'dim'$"):
        make([[1.0, 2.0]])
    with pytest.raises(AssertionError, match="Embeddings parameter is expected to be 2-dim"):
        make(mt.ones(3))
    emb = make(mt.from_numpy(np.eye(3)))
    assert emb.weight.dtype == mt.float64 and not emb.weight.requires_grad
