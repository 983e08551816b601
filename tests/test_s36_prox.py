"""Session 36 (helper prox): torch-free regression tests of the library fixes the proximal and
sparse-coding programs of tests/reference/test_s36_prox_reference.py found: Tensor.hardshrink's
argument position in its TypeError, and the _saved_* attributes of the nodes those programs
build (SoftshrinkBackward0 / HardshrinkBackward0, LinalgVectorNormBackward0, RenormBackward0,
CumsumBackward0, LinalgSvdBackward0, DiagEmbedBackward0, KthvalueBackward0,
ConstantPadNdBackward0 and the
reflection / replication padding nodes), and torch.gradient's keywords as torch's argument
parser reads them. torch's messages and values are written here as literals."""

from __future__ import annotations

import numpy as np
import pytest

import minitorch as mt

F = mt.nn.functional
NEG1 = 2**64 - 1  # a dim of -1 as torch's binding reads a saved int64 back
NEG2 = 2**64 - 2


def _x(*shape, seed=0):
    g = mt.Generator().manual_seed(seed)
    return mt.randn(*shape, generator=g, dtype=mt.float64).requires_grad_(True)


def _saved(node) -> list:
    return sorted(k for k in dir(node) if k.startswith("_saved_"))


def _find(t, name):
    """The first node named `name` in t's graph (breadth first)."""
    todo = [t.grad_fn]
    while todo:
        fn = todo.pop(0)
        if fn is None:
            continue
        if type(fn).__name__ == name:
            return fn
        todo.extend(f for f, _ in fn.next_functions)
    raise AssertionError(f"no {name} in the graph")


def test_hardshrink_method_names_its_own_position():
    x = mt.ones(3)
    with pytest.raises(TypeError) as info:
        x.hardshrink("a")
    assert str(info.value) == "hardshrink(): argument 'lambd' (position 1) must be Number, not str"
    with pytest.raises(TypeError) as info:
        x.hardshrink(lambd=None)
    assert str(info.value) == "hardshrink(): argument 'lambd' must be Number, not NoneType"
    with pytest.raises(TypeError) as info:
        F.hardshrink(x, "a")  # (the function's position stays 2)
    assert str(info.value) == "hardshrink(): argument 'lambd' (position 2) must be Number, not str"
    np.testing.assert_array_equal(x.hardshrink(mt.tensor(0.7)).numpy(), [1.0, 1.0, 1.0])


@pytest.mark.parametrize(
    "fn, lambd, name",
    [
        (F.softshrink, 0.3, "SoftshrinkBackward0"),
        (F.hardshrink, 1, "HardshrinkBackward0"),
        (F.softshrink, mt.tensor(0.5), "SoftshrinkBackward0"),
    ],
)
def test_shrink_nodes_save_self_and_lambd(fn, lambd, name):
    x = _x(4, 3)
    node = fn(x, lambd).grad_fn
    assert type(node).__name__ == name
    assert _saved(node) == ["_saved_lambd", "_saved_self"]
    assert node._saved_self is x
    want = 0.5 if isinstance(lambd, mt.Tensor) else lambd
    assert repr(node._saved_lambd) == repr(want)


def test_vector_norm_node_saves_its_arguments_as_given():
    x = _x(5, 4)
    node = mt.linalg.vector_norm(x).grad_fn
    assert _saved(node) == [
        "_saved_dim", "_saved_keepdim", "_saved_ord", "_saved_result", "_saved_self",
    ]  # fmt: skip
    assert node._saved_dim is None and repr(node._saved_ord) == "2"
    assert node._saved_self is x and node._saved_result.shape == ()
    node = mt.linalg.vector_norm(x, 1, -1).grad_fn
    assert (node._saved_dim, node._saved_ord, node._saved_keepdim) == ((NEG1,), 1, False)
    node = mt.linalg.vector_norm(x, 2.0, [0, -1], True).grad_fn
    assert (node._saved_dim, repr(node._saved_ord), node._saved_keepdim) == ((0, NEG1), "2.0", True)
    assert node._saved_result.shape == (1, 1)
    node = mt.linalg.vector_norm(x, float("inf"), 0).grad_fn
    assert (node._saved_dim, node._saved_ord) == ((0,), float("inf"))
    assert repr(mt.linalg.norm(x, dim=1).grad_fn._saved_ord) == "2.0"  # linalg.norm's default
    assert repr(mt.linalg.norm(x).grad_fn._saved_ord) == "2.0"
    assert repr(x.norm(p=1, dim=0).grad_fn._saved_ord) == "1"
    assert mt.linalg.matrix_norm(x).grad_fn._saved_dim == (0, 1)  # (matrix_norm wraps them)
    node = _find(F.normalize(x, dim=-1), "LinalgVectorNormBackward0")
    assert (node._saved_dim, repr(node._saved_ord), node._saved_keepdim) == ((NEG1,), "2.0", True)


def test_renorm_node_saves_its_arguments():
    x = _x(5, 4)
    y = x.renorm(2, -1, 1)
    node = y.grad_fn
    assert type(node).__name__ == "RenormBackward0"
    assert _saved(node) == ["_saved_dim", "_saved_maxnorm", "_saved_p", "_saved_self"]
    assert (node._saved_p, node._saved_dim, node._saved_maxnorm) == (2, NEG1, 1)
    assert node._saved_self is x
    node = x.renorm(2.5, 1, mt.tensor(1.5)).grad_fn
    assert (node._saved_p, node._saved_dim, node._saved_maxnorm) == (2.5, 1, 1.5)
    y.sum().backward()
    with pytest.raises(RuntimeError, match="^Trying to backward through the graph a second"):
        y.grad_fn._saved_self  # noqa: B018 - freed by the backward, as torch's
    assert y.grad_fn._saved_p == 2


def test_cumsum_node_saves_the_dim_as_given():
    x = _x(3, 4)
    assert [x.cumsum(d).grad_fn._saved_dim for d in (0, 1, -1, -2)] == [0, 1, NEG1, NEG2]
    assert mt.cumsum(x, 1, dtype=mt.float32).grad_fn._saved_dim == 1
    assert _saved(x.cumsum(-1).grad_fn) == ["_saved_dim"]


@pytest.mark.parametrize(
    "call, shapes, full",
    [
        (lambda x: mt.linalg.svd(x)[1], ((5, 5), (4,), (4, 4)), True),
        (lambda x: mt.linalg.svd(x.mT, full_matrices=False)[0], ((4, 4), (4,), (4, 5)), False),
        (lambda x: mt.linalg.svdvals(x), ((5, 4), (4,), (4, 4)), False),
        (lambda x: mt.svd(x)[1], ((5, 4), (4,), (4, 4)), False),
    ],
)
def test_svd_node_saves_its_factors(call, shapes, full):
    node = call(_x(5, 4)).grad_fn
    assert type(node).__name__ == "LinalgSvdBackward0"
    assert _saved(node) == [
        "_saved_S", "_saved_S_sym_argsize_minus_1", "_saved_U", "_saved_Vh",
        "_saved_full_matrices",
    ]  # fmt: skip
    got = tuple(tuple(getattr(node, k).shape) for k in ("_saved_U", "_saved_S", "_saved_Vh"))
    assert got == shapes
    assert node._saved_full_matrices is full and node._saved_S_sym_argsize_minus_1 == 4


def test_kthvalue_node_saves_its_arguments_as_given():
    x = _x(4, 5)
    r = x.kthvalue(2, 1, True)
    node = r.values.grad_fn
    assert type(node).__name__ == "KthvalueBackward0"
    assert _saved(node) == [
        "_saved_dim", "_saved_indices", "_saved_keepdim", "_saved_self_sym_sizes",
    ]  # fmt: skip
    assert (node._saved_dim, node._saved_keepdim, node._saved_self_sym_sizes) == (1, True, (4, 5))
    assert node._saved_indices is r.indices
    node = mt.kthvalue(x, 2, dim=-2).values.grad_fn
    assert (node._saved_dim, node._saved_keepdim, tuple(node._saved_indices.shape)) == (
        NEG2,
        False,
        (5,),
    )
    node = x[0, 0].kthvalue(1).values.grad_fn
    assert (node._saved_dim, node._saved_self_sym_sizes) == (NEG1, ())
    r = x.kthvalue(3, np.int64(0))
    r.values.sum().backward()
    assert r.values.grad_fn._saved_dim == 0
    with pytest.raises(RuntimeError, match="^Trying to backward through the graph a second"):
        r.values.grad_fn._saved_indices  # noqa: B018 - freed by the backward, as torch's


def test_diag_embed_node_saves_its_arguments_as_given():
    x = _x(3)
    got = [
        (n._saved_offset, n._saved_dim1, n._saved_dim2)
        for n in (
            mt.diag(x).grad_fn,
            mt.diag(x, 1).grad_fn,
            mt.diag_embed(x, 0, 0, 1).grad_fn,
            mt.diag_embed(x, -1, 1, 0).grad_fn,
            mt.diagflat(x).grad_fn,
        )
    ]
    assert got == [(0, NEG2, NEG1), (1, NEG2, NEG1), (0, 0, 1), (NEG1, 1, 0), (0, NEG2, NEG1)]
    # diag and diagflat now pass diag_embed's default dims: the same matrices and gradients
    np.testing.assert_array_equal(mt.diag(x, -1).detach().numpy(), np.diag(x.detach().numpy(), -1))
    assert mt.autograd.gradcheck(lambda t: mt.diag(t, 1), (x,))
    assert mt.autograd.gradgradcheck(lambda t: mt.diagflat(t.outer(t), -1), (x,))


def test_pad_nodes_save_the_pads_as_given():
    x = _x(2, 3, 4, 5)
    x3 = _x(3, 4, 5)

    def saved(y):
        node = y.grad_fn
        return type(node).__name__, {k: getattr(node, k) for k in _saved(node)}

    assert saved(F.pad(x, (1, 2, 1, 1, 0, 1))) == (
        "ConstantPadNdBackward0",
        {"_saved_pad": (1, 2, 1, 1, 0, 1)},
    )
    assert saved(F.pad(x, (-1, 2)))[1] == {"_saved_pad": (NEG1, 2)}
    assert saved(F.pad(x, (-1, -2)))[1] == {"_saved_pad": (NEG1, NEG2)}
    node = F.pad(x3, (-1, 2), mode="reflect").grad_fn
    assert type(node).__name__ == "ReflectionPad1DBackward0"
    assert node._saved_padding == (NEG1, 2) and node._saved_self is x3
    node = F.pad(x, (1, 2, 1, 1), mode="replicate").grad_fn
    assert type(node).__name__ == "ReplicationPad2DBackward0"
    assert node._saved_padding == (1, 2, 1, 1) and node._saved_self is x
    assert _saved(F.pad(x3, (1, 2), mode="circular").grad_fn) == []  # CopySlices
    g = mt.autograd.grad(F.pad(x3, (1, 2), mode="reflect").pow(2).sum(), x3, create_graph=True)[0]
    assert type(g.grad_fn).__name__ == "ReflectionPad1DBackwardBackward0"
    assert _saved(g.grad_fn) == ["_saved_padding"] and g.grad_fn._saved_padding == (1, 2)
    small = _x(1, 2, 4)
    assert mt.autograd.gradgradcheck(lambda t: F.pad(t, (2, 1), mode="reflect").pow(2), (small,))


_GRADIENT_FORMS = (
    " * (Tensor input, *, tuple of ints dim, int edge_order = 1)\n"
    " * (Tensor input, *, Number spacing, tuple of ints dim, int edge_order = 1)\n"
    " * (Tensor input, *, Number spacing = None, int dim = None, int edge_order = 1)\n"
    " * (Tensor input, *, tuple of Scalars spacing, int dim = None, int edge_order = 1)\n"
    " * (Tensor input, *, tuple of Scalars spacing, tuple of ints dim, int edge_order = 1)\n"
    " * (Tensor input, *, tuple of Tensors spacing, int dim = None, int edge_order = 1)\n"
    " * (Tensor input, *, tuple of Tensors spacing, tuple of ints dim, int edge_order = 1)\n"
)


def _gradient_error(u, **kwargs) -> str:
    with pytest.raises(TypeError) as info:
        mt.gradient(u, **kwargs)
    return str(info.value)


@pytest.mark.parametrize(
    "kwargs, got",
    [
        (dict(spacing="a"), "spacing=str"),
        (dict(spacing={1: 2}), "spacing=dict"),
        (dict(spacing=range(2)), "spacing=range"),
        (dict(dim="a"), "dim=str"),
        (dict(dim=1.5), "dim=float"),
        (dict(dim=True), "dim=bool"),
        (dict(dim=(0.0,)), "dim=tuple"),
        (dict(edge_order=1.5), "edge_order=float"),
        (dict(edge_order=None), "edge_order=NoneType"),
        (dict(edge_order=True), "edge_order=bool"),
        (dict(spacing="a", dim=0), "dim=int, spacing=str"),
        (dict(dim="a", edge_order=1.5), "edge_order=float, dim=str"),
        (dict(spacing=[mt.arange(3.0)], dim=1.5), "dim=float, spacing=list"),
        (dict(spacing=(), dim=1.5), "dim=float, spacing=tuple"),
    ],
)
def test_gradient_keywords_no_overload_takes(kwargs, got):
    u = mt.arange(12.0).reshape(3, 4)
    want = (
        f"gradient() received an invalid combination of arguments - got (Tensor, {got}), but "
        "expected one of:\n" + _GRADIENT_FORMS
    )
    assert _gradient_error(u, **kwargs) == want


def test_gradient_keyword_errors_of_torchs_later_checks():
    u = mt.arange(12.0).reshape(3, 4)
    # a number first in a spacing tuple: torch's last overload (tuple of Tensors) names it
    want = "expected Tensor as element {} in argument 1, but got {}"
    assert _gradient_error(u, spacing=(1,), dim=1.5) == want.format(0, "int")
    assert _gradient_error(u, spacing=(1.0, 2.0), edge_order=1.5) == want.format(0, "float")
    assert _gradient_error(u, spacing=(mt.arange(3.0), 1.0), dim=1.5) == want.format(1, "float")
    assert _gradient_error(u, spacing=(1, 2), dim=(0, "a")) == (
        "gradient(): argument 'dim' failed to unpack the object at pos 2 with error "
        '"type must be tuple of ints,but got str"'
    )


def test_gradient_reads_numpy_ints_and_bools_as_torch_does():
    u = mt.arange(12.0).reshape(3, 4) ** 2
    want = mt.gradient(u, spacing=2, dim=1, edge_order=2)[0].numpy()
    got = mt.gradient(u, spacing=np.int64(2), dim=np.int64(1), edge_order=np.int64(2))
    assert len(got) == 1
    np.testing.assert_array_equal(got[0].numpy(), want)
    np.testing.assert_array_equal(mt.gradient(u, spacing=True)[0].numpy(), mt.gradient(u)[0])
    got = mt.gradient(u, dim=[0, 1], spacing=np.float64(0.5))
    np.testing.assert_array_equal(got[1].numpy(), mt.gradient(u, spacing=0.5)[1].numpy())
