"""Session 33 (helper sae): torch-free regression tests of the library fixes the sparse-
autoencoder programs of tests/reference/test_s33_sae_reference.py found: topk's and kthvalue's k
read as torch's SymInt; scatter_'s parser errors and the in-place scatters' refusal of src being
self; Tensor.norm's signature; F.normalize(p=None); vector_norm's complex order; index_copy_'s
and index_put_'s argument positions; nonzero's as_tuple; nn.init.orthogonal_'s gain and
uniform_ of a non-tensor; Parameter's requires_grad; the base autograd.Function's apply;
gradcheck of non-tensor outputs. torch's messages are written here as literals."""

from __future__ import annotations

import numpy as np
import pytest

import minitorch as mt

F = mt.nn.functional

OVERLAP = (
    "unsupported operation: some elements of the input tensor and the written-to tensor refer to "
    "a single memory location. Please clone() the tensor before performing the operation."
)


def _message(exc_type, fn):
    with pytest.raises(exc_type) as info:
        fn()
    return str(info.value)


def _x(*shape):
    return mt.randn(*shape, generator=mt.Generator().manual_seed(0))


@pytest.mark.parametrize("k", [mt.tensor([2]), mt.tensor([[2]]), mt.tensor([2], dtype=mt.uint8)])
def test_topk_and_kthvalue_read_a_one_element_integer_tensor_k(k):
    x = _x(3, 5)
    np.testing.assert_array_equal(x.topk(k).values.numpy(), x.topk(2).values.numpy())
    np.testing.assert_array_equal(
        mt.topk(x, k, 0).indices.numpy(), mt.topk(x, 2, 0).indices.numpy()
    )
    np.testing.assert_array_equal(x.kthvalue(k).values.numpy(), x.kthvalue(2).values.numpy())


K_ERROR = "{}(): argument 'k' (position {}) must be int, not {}"


@pytest.mark.parametrize(
    "call, message",
    [
        (lambda x: x.topk(mt.tensor([2.0])), K_ERROR.format("topk", 1, "Tensor")),
        (lambda x: mt.topk(x, mt.tensor([1, 2])), K_ERROR.format("topk", 2, "Tensor")),
        (lambda x: x.topk(2.0), K_ERROR.format("topk", 1, "float")),
        (lambda x: x.kthvalue(mt.tensor([2.0])), K_ERROR.format("kthvalue", 1, "Tensor")),
        (lambda x: mt.kthvalue(x, True), K_ERROR.format("kthvalue", 2, "bool")),
    ],
)
def test_topk_and_kthvalue_refuse_other_k(call, message):
    assert _message(TypeError, lambda: call(_x(3, 5))) == message


SCATTER_FORMS = (
    " * (int dim, Tensor index, Tensor src)\n{0}"
    " * (int dim, Tensor index, Tensor src, *, str reduce)\n"
    " * (int dim, Tensor index, Number value)\n{1}"
    " * (int dim, Tensor index, Number value, *, str reduce)\n"
)


def test_scatter_inplace_argument_errors_list_its_overloads():
    x, i = _x(3, 4), mt.tensor([[0, 1]])
    head = (
        "scatter_() received an invalid combination of arguments - got ({}), but expected one of:\n"
    )
    assert _message(TypeError, lambda: x.scatter_(1, i)) == head.format(
        "int, Tensor"
    ) + SCATTER_FORMS.format("", "")
    why = "      didn't match because some of the arguments have invalid types: "
    why += "(int, Tensor, !str!)\n"
    assert _message(TypeError, lambda: x.scatter_(1, i, "a")) == head.format(
        "int, Tensor, str"
    ) + SCATTER_FORMS.format(why, why)
    bad_kw = "      didn't match because some of the keywords were incorrect: reduce\n"
    assert _message(TypeError, lambda: x.scatter_(1, i, reduce="add")) == head.format(
        "int, Tensor, reduce=str"
    ) + SCATTER_FORMS.format(bad_kw, bad_kw)


def test_inplace_scatters_refuse_src_being_self():
    i = mt.tensor([[0, 1]])
    for call in (
        lambda x: x.scatter_(1, i, x),
        lambda x: x.scatter_(1, i, x.view(3, 4)),
        lambda x: x.scatter_add_(1, i, x),
        lambda x: x.scatter_reduce_(1, i, x, "amax"),
    ):
        assert _message(RuntimeError, lambda call=call: call(_x(3, 4))) == OVERLAP
    x = _x(3, 4)
    x.scatter_(1, i, x[:, :2])  # (not dense: torch's check gives up, so no error)
    # the arguments and shapes are checked first
    assert (
        _message(TypeError, lambda: x.scatter_reduce_(0, i, x, 1))
        == "scatter_reduce_(): argument 'reduce' (position 4) must be str, not int"
    )
    assert _message(RuntimeError, lambda: x.scatter_(1, i, x.double())) == (
        "scatter(): Expected self.dtype to be equal to src.dtype"
    )


def test_tensor_norm_has_torchs_python_signature():
    x = _x(3, 4)
    assert x.norm(2, 1, True, mt.float64).dtype is mt.float64
    assert (
        _message(TypeError, lambda: x.norm(2, 1, True, None, 5))
        == "Tensor.norm() takes from 1 to 5 positional arguments but 6 were given"
    )
    assert (
        _message(TypeError, lambda: x.norm(2, dim=1, out=mt.empty(3)))
        == "Tensor.norm() got an unexpected keyword argument 'out'"
    )


def test_normalize_p_none_is_the_two_norm():
    x = _x(4, 5)
    np.testing.assert_allclose(F.normalize(x, p=None).numpy(), F.normalize(x).numpy(), rtol=1e-6)


def test_vector_norm_refuses_a_complex_order_after_the_dtype():
    x = _x(3)
    msg = "linalg.vector_norm: Expected a non-complex scalar as the order of norm."
    assert _message(RuntimeError, lambda: mt.linalg.vector_norm(x, 1j)) == msg
    assert _message(RuntimeError, lambda: x.norm(p=2.0j)) == msg
    assert _message(RuntimeError, lambda: mt.linalg.vector_norm(mt.ones(3, dtype=mt.long), 1j)) == (
        "linalg.vector_norm: Expected a floating point or complex tensor as input. Got Long"
    )


def test_index_copy_inplace_names_the_methods_positions_before_the_overlap():
    x = _x(3)
    assert (
        _message(TypeError, lambda: x.index_copy_(0, [0], x))
        == "index_copy_(): argument 'index' (position 2) must be Tensor, not list"
    )
    assert (
        _message(TypeError, lambda: x.index_copy_(0.0, mt.tensor([0]), x))
        == "index_copy_(): argument 'dim' (position 1) must be int, not float"
    )
    assert (
        _message(TypeError, lambda: mt.zeros(5, 3).index_copy_(0, mt.tensor([0]), [1.0]))
        == "index_copy_(): argument 'source' (position 3) must be Tensor, not list"
    )
    assert _message(RuntimeError, lambda: x.index_copy_(0, mt.tensor([0, 1, 2]), x)) == OVERLAP


def test_nonzero_as_tuple_must_be_bool():
    x = _x(3)
    for v, name in ((1, "int"), (None, "NoneType")):
        assert (
            _message(TypeError, lambda v=v: x.nonzero(as_tuple=v))
            == f"nonzero(): argument 'as_tuple' must be bool, not {name}"
        )
    assert (
        _message(TypeError, lambda: mt.nonzero(None, as_tuple=1))
        == "nonzero(): argument 'input' (position 1) must be Tensor, not NoneType"
    )


def test_orthogonal_gain_is_tensor_mul():
    g = mt.Generator().manual_seed(1)
    w = mt.nn.init.orthogonal_(mt.empty(3, 4), gain=2.0, generator=g)
    np.testing.assert_allclose((w @ w.t()).numpy(), 4 * np.eye(3), atol=1e-5)
    assert (
        _message(TypeError, lambda: mt.nn.init.orthogonal_(mt.empty(3, 4), gain="a"))
        == "mul_(): argument 'other' (position 1) must be Tensor, not str"
    )


def test_init_uniform_of_a_list():
    assert (
        _message(AttributeError, lambda: mt.nn.init.uniform_([1.0]))
        == "'list' object has no attribute 'uniform_'"
    )


@pytest.mark.parametrize("flag, name", [(1, "int"), (None, "NoneType")])
def test_parameter_requires_grad_must_be_bool(flag, name):
    assert _message(TypeError, lambda: mt.nn.Parameter(mt.ones(2), flag)) == (
        f"_make_subclass(): argument 'require_grad' (position 3) must be bool, not {name}"
    )


def test_base_function_apply_and_forward():
    msg = "You must implement the forward function for custom autograd.Function."
    x = mt.ones(2, requires_grad=True)
    assert _message(NotImplementedError, lambda: mt.autograd.Function.apply(x)) == msg
    assert _message(NotImplementedError, lambda: mt.autograd.Function.forward(None, x)) == msg


def test_gradcheck_of_a_non_tensor_output():
    x = mt.ones(2, dtype=mt.float64, requires_grad=True)
    for out, name in ((3, "int"), (None, "NoneType")):
        assert (
            _message(
                AttributeError, lambda out=out: mt.autograd.gradcheck(lambda t: (t, out), (x,))
            )
            == f"'{name}' object has no attribute 'requires_grad'"
        )
    assert mt.autograd.gradcheck(lambda t: [t * 2], (x,))


def test_index_put_names_the_position_of_indices():
    x, i = mt.ones(3), mt.tensor([0])
    msg = "{}(): argument 'indices'{} must be tuple of Tensors, not Tensor"
    assert _message(TypeError, lambda: x.index_put_(i, mt.ones(1))) == msg.format(
        "index_put_", " (position 1)"
    )
    assert _message(TypeError, lambda: mt.index_put(x, i, mt.ones(1))) == msg.format(
        "index_put", " (position 2)"
    )
    assert _message(TypeError, lambda: x.index_put_(indices=i, values=mt.ones(1))) == msg.format(
        "index_put_", ""
    )
