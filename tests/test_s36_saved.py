"""Session 36 (helper saved): torch-free regression tests of the grad_fn._saved_* attributes the
introspection programs of tests/reference/test_s36_saved_reference.py found missing:
AddmmBackward0 (nn.Linear and torch.addmm), MmBackward0 (mm, matmul, bias-free Linear),
BmmBackward0, MvBackward0, IndexBackward0, SortBackward0 / TopkBackward0, SplitBackward0 /
SplitWithSizesBackward0 / UnbindBackward0 and Softmax / LogSoftmax (a negative dim as given),
EmbeddingBackward0 and AddBackward0 / SubBackward0's alpha. torch's values and messages are
written here as literals."""

from __future__ import annotations

import numpy as np
import pytest

import minitorch as mt

F = mt.nn.functional

FREED = (
    "Trying to backward through the graph a second time (or directly access saved tensors after "
    "they have already been freed). Saved intermediate values of the graph are freed when you "
    "call .backward() or autograd.grad(). Specify retain_graph=True if you need to backward "
    "through the graph a second time or if you need to access saved tensors after calling "
    "backward."
)
MINUS_ONE = 2**64 - 1  # torch's binding reads a saved int64 -1 back unsigned


def _gen(seed):
    return mt.Generator().manual_seed(seed)


def _randn(seed, *shape):
    return mt.randn(*shape, generator=_gen(seed), dtype=mt.float64)


def _saved_names(node):
    return [k for k in dir(node) if k.startswith("_saved_")]


def _freed(fn):
    with pytest.raises(RuntimeError) as info:
        fn()
    assert str(info.value) == FREED


ADDMM_NAMES = [
    "_saved_alpha", "_saved_beta", "_saved_mat1", "_saved_mat1_sym_sizes",
    "_saved_mat1_sym_strides", "_saved_mat2", "_saved_mat2_sym_sizes", "_saved_mat2_sym_strides",
]  # fmt: skip
MM_NAMES = [
    "_saved_mat2", "_saved_mat2_sym_sizes", "_saved_mat2_sym_strides", "_saved_self",
    "_saved_self_sym_sizes", "_saved_self_sym_strides",
]  # fmt: skip


def test_linear_node_saves_operands_as_torch():
    mt.manual_seed(0)
    lin = mt.nn.Linear(3, 5).double()
    x = _randn(1, 4, 3).requires_grad_(True)
    y = lin(x)
    n = y.grad_fn
    assert n.name() == "AddmmBackward0"
    assert _saved_names(n) == ADDMM_NAMES
    assert n._saved_mat1 is x
    assert n._saved_mat2._base is lin.weight
    np.testing.assert_array_equal(n._saved_mat2.detach().numpy(), lin.weight.detach().numpy().T)
    assert (n._saved_alpha, n._saved_beta) == (1, 1)
    assert n._saved_mat1_sym_sizes == (4, 3) and n._saved_mat1_sym_strides == (3, 1)
    assert n._saved_mat2_sym_sizes == (3, 5) and n._saved_mat2_sym_strides == (1, 3)
    assert type(n._raw_saved_mat1).__name__ == "SavedTensor"
    y.sum().backward()
    assert n._saved_alpha == 1 and n._saved_mat1_sym_sizes == (4, 3)
    _freed(lambda: n._saved_mat1)
    _freed(lambda: n._saved_mat2)


def test_linear_input_without_grad_and_frozen_weight():
    mt.manual_seed(1)
    lin = mt.nn.Linear(4, 2).double()
    x = _randn(2, 6, 4)
    n = lin(x).grad_fn  # mat2 is kept for mat1's gradient only: None; mat1's strides ()
    assert n._saved_mat1 is x and n._saved_mat2 is None
    assert n._saved_mat1_sym_strides == () and n._saved_mat2_sym_strides == (1, 4)
    lin.weight.requires_grad_(False)
    xr = x.clone().requires_grad_(True)
    y = lin(xr)
    n = y.grad_fn
    assert n._saved_mat1 is None and n._saved_mat2._base is lin.weight
    assert n._saved_mat1_sym_strides == (4, 1) and n._saved_mat2_sym_strides == ()
    assert n._saved_mat2_sym_sizes == (4, 2)
    y.sum().backward()
    assert n._saved_mat1 is None  # still None once freed, as torch's
    _freed(lambda: n._saved_mat2)


def test_linear_without_bias_is_mm():
    lin = mt.nn.Linear(3, 4, bias=False).double()
    x = _randn(3, 2, 3).requires_grad_(True)
    n = lin(x).grad_fn
    assert n.name() == "MmBackward0"
    assert _saved_names(n) == MM_NAMES
    assert n._saved_self is x
    assert (n._saved_self_sym_sizes, n._saved_self_sym_strides) == ((2, 3), (3, 1))
    assert (n._saved_mat2_sym_sizes, n._saved_mat2_sym_strides) == ((3, 4), (1, 3))
    xt = _randn(4, 3, 2).t().requires_grad_(True)  # a column-major input: its own strides
    assert lin(xt).grad_fn._saved_self_sym_strides == (1, 2)


@pytest.mark.parametrize("needs", [(1, 1, 1), (0, 1, 0), (0, 0, 1), (1, 0, 1)])
def test_addmm_node_saves_as_torch(needs):
    rb, r1, r2 = (bool(v) for v in needs)
    b = _randn(5, 5).requires_grad_(rb)
    m1 = _randn(6, 4, 3).requires_grad_(r1)
    m2 = _randn(7, 3, 5).requires_grad_(r2)
    y = mt.addmm(b, m1, m2, beta=0.5, alpha=2)
    n = y.grad_fn
    assert n.name() == "AddmmBackward0"
    assert _saved_names(n) == ADDMM_NAMES
    assert (n._saved_alpha, n._saved_beta) == (2, 0.5)
    assert n._saved_mat1 is (m1 if r2 else None)
    assert n._saved_mat2 is (m2 if r1 else None)
    assert n._saved_mat1_sym_sizes == (4, 3) and n._saved_mat2_sym_sizes == (3, 5)
    assert n._saved_mat1_sym_strides == ((3, 1) if r1 else ())
    assert n._saved_mat2_sym_strides == ((5, 1) if r2 else ())
    y.sum().backward()
    assert n._saved_alpha == 2
    if r2:
        _freed(lambda: n._saved_mat1)
    else:
        assert n._saved_mat1 is None


@pytest.mark.parametrize("needs", [(1, 1), (1, 0), (0, 1)])
def test_mm_node_saves_as_torch(needs):
    ra, rb = (bool(v) for v in needs)
    a = _randn(8, 4, 3).requires_grad_(ra)
    b = _randn(9, 3, 6).requires_grad_(rb)
    for n in (mt.mm(a, b).grad_fn, (a @ b).grad_fn):
        assert n.name() == "MmBackward0"
        assert n._saved_self is (a if rb else None)
        assert n._saved_mat2 is (b if ra else None)
        assert (n._saved_self_sym_sizes, n._saved_mat2_sym_sizes) == ((4, 3), (3, 6))
        assert n._saved_self_sym_strides == ((3, 1) if ra else ())
        assert n._saved_mat2_sym_strides == ((6, 1) if rb else ())


def test_bmm_and_mv_nodes():
    a = _randn(10, 2, 3, 4).requires_grad_(True)
    b = _randn(11, 2, 4, 5)
    n = mt.bmm(a, b).grad_fn
    assert _saved_names(n) == ["_saved_mat2", "_saved_self"]
    assert n._saved_self is None and n._saved_mat2 is b
    m = _randn(12, 3, 4).requires_grad_(True)
    v = _randn(13, 4)
    y = mt.mv(m, v)
    n = y.grad_fn
    assert _saved_names(n) == ["_saved_self", "_saved_vec"]
    assert n._saved_self is None and n._saved_vec is v
    y.sum().backward()
    assert n._saved_self is None
    _freed(lambda: n._saved_vec)


def _index_parts(node):
    return tuple(None if t is None else t.tolist() for t in node._saved_indices)


def test_index_node_saves_indices_and_view_sizes():
    x = _randn(14, 4, 5, 6).requires_grad_(True)
    i = mt.tensor([0, 2])
    m1 = mt.tensor([True, False, True, True])
    cases = [
        ((i,), ([0, 2],), (4, 5, 6)),
        ((slice(None), i), (None, [0, 2]), (4, 5, 6)),
        ((Ellipsis, i), (None, None, [0, 2]), (4, 5, 6)),
        ((1, i), ([0, 2],), (5, 6)),
        ((slice(1, 3), i), (None, [0, 2]), (2, 5, 6)),
        ((i, slice(1, 3)), ([0, 2],), (4, 2, 6)),
        ((None, i), (None, [0, 2]), (1, 4, 5, 6)),
        ((i, None), ([0, 2],), (4, 1, 5, 6)),
        ((m1, 2), ([True, False, True, True],), (4, 6)),
        ((slice(None), [1, 2], [0, 3]), (None, [1, 2], [0, 3]), (4, 5, 6)),
        ((i, Ellipsis, i), ([0, 2], None, [0, 2]), (4, 5, 6)),
        ((slice(2, None), slice(None, None, 2), i), (None, None, [0, 2]), (2, 3, 6)),
        ((-1, slice(None), [0, 5]), (None, [0, 5]), (5, 6)),
    ]
    for key, indices, sizes in cases:
        n = x[key].grad_fn
        assert n.name() == "IndexBackward0", key
        assert _saved_names(n) == ["_saved_indices", "_saved_self_sym_sizes"], key
        assert _index_parts(n) == indices, key
        assert n._saved_self_sym_sizes == sizes, key
    n = x[i].grad_fn
    assert n._saved_indices[0] is i
    n = x[[0, 1]].grad_fn  # a list is saved as the tensor it converts to
    assert n._saved_indices[0].dtype is mt.int64
    y = x[i]
    y.sum().backward()
    _freed(lambda: y.grad_fn._saved_indices)
    assert y.grad_fn._saved_self_sym_sizes == (4, 5, 6)


def test_sort_and_topk_nodes():
    x = _randn(15, 4, 6).requires_grad_(True)
    cases = [
        (lambda: x.sort(1, descending=True), "SortBackward0", 1),
        (lambda: x.sort(), "SortBackward0", MINUS_ONE),
        (lambda: mt.sort(x, dim=0, stable=True), "SortBackward1", 0),
        (lambda: x.topk(2), "TopkBackward0", MINUS_ONE),
        (lambda: x.topk(3, dim=-2), "TopkBackward0", 2**64 - 2),
        (lambda: x.topk(3, dim=0, largest=False), "TopkBackward0", 0),
    ]
    for call, name, dim in cases:
        v, i = call()
        n = v.grad_fn
        assert n.name() == name
        assert _saved_names(n) == ["_saved_dim", "_saved_indices", "_saved_self_sym_sizes"]
        assert n._saved_dim == dim
        assert n._saved_indices is i
        assert n._saved_self_sym_sizes == (4, 6)
    v, i = x.topk(2)
    v.sum().backward()
    _freed(lambda: v.grad_fn._saved_indices)
    assert v.grad_fn._saved_dim == MINUS_ONE


def _saved(node):
    return {k[7:]: getattr(node, k) for k in _saved_names(node)}


def test_split_chunk_unbind_nodes():
    x = _randn(16, 4, 6).requires_grad_(True)
    cases = [
        (lambda: x.split(2), "SplitBackward0", {"dim": 0, "split_size": 2}),
        (lambda: x.split(4, -1), "SplitBackward0", {"dim": MINUS_ONE, "split_size": 4}),
        (lambda: x.split([1, 3]), "SplitWithSizesBackward0", {"dim": 0, "split_sizes": (1, 3)}),
        (
            lambda: mt.split(x, [2, 4], dim=-1),
            "SplitWithSizesBackward0",
            {"dim": MINUS_ONE, "split_sizes": (2, 4)},
        ),
        (lambda: x.chunk(3, 1), "SplitBackward0", {"dim": 1, "split_size": 2}),
        (lambda: x.chunk(2, -1), "SplitBackward0", {"dim": MINUS_ONE, "split_size": 3}),
        (lambda: x.split(5, 1), "SplitBackward0", {"dim": 1, "split_size": 5}),
    ]
    for call, name, want in cases:
        n = call()[0].grad_fn
        assert n.name() == name
        assert _saved(n) == {**want, "self_sym_sizes": (4, 6)}
    assert _saved(x.unbind(-1)[0].grad_fn) == {"dim": MINUS_ONE}
    assert _saved(x.unbind(1)[0].grad_fn) == {"dim": 1}


def test_embedding_node():
    w = _randn(17, 10, 3).requires_grad_(True)
    idx = mt.tensor([[1, 0], [3, 3]])
    keys = ["indices", "padding_idx", "scale_grad_by_freq", "sparse", "weight_sym_argsize_0"]
    cases = [
        ({}, MINUS_ONE, False, False),
        ({"padding_idx": 0}, 0, False, False),
        ({"padding_idx": -2}, 8, False, False),
        ({"scale_grad_by_freq": True}, MINUS_ONE, True, False),
        ({"sparse": True}, MINUS_ONE, False, True),
    ]
    for kw, pad, freq, sparse in cases:
        n = F.embedding(idx, w, **kw).grad_fn
        assert n.name() == "EmbeddingBackward0"
        assert _saved_names(n) == ["_saved_" + k for k in keys]
        assert n._saved_indices is idx
        assert (n._saved_padding_idx, n._saved_scale_grad_by_freq) == (pad, freq)
        assert (n._saved_sparse, n._saved_weight_sym_argsize_0) == (sparse, 10)
    emb = mt.nn.Embedding(5, 2, padding_idx=1)
    y = emb(mt.tensor([1, 2]))
    assert y.grad_fn._saved_padding_idx == 1
    y.sum().backward()
    _freed(lambda: y.grad_fn._saved_indices)
    assert y.grad_fn._saved_padding_idx == 1


def test_add_sub_alpha():
    x = _randn(18, 3).requires_grad_(True)
    y = _randn(19, 3).requires_grad_(True)
    z = _randn(20, 3)
    cases = [
        (lambda: x + y, "AddBackward0", 1),
        (lambda: x - 2, "SubBackward0", 1),
        (lambda: 2 - x, "RsubBackward1", 1),
        (lambda: mt.add(x, y, alpha=2), "AddBackward0", 2),
        (lambda: mt.sub(x, y, alpha=0.5), "SubBackward0", 0.5),
        (lambda: mt.add(z, x, alpha=3), "AddBackward0", 3),
        (lambda: (x * 1).sub_(y, alpha=2), "SubBackward0", 2),
        (lambda: x.add(1.5, alpha=2), "AddBackward0", 2),
    ]
    for call, name, alpha in cases:
        n = call().grad_fn
        assert n.name() == name
        assert _saved_names(n) == ["_saved_alpha"]
        assert n._saved_alpha == alpha


def test_softmax_dim_as_given():
    x = _randn(21, 3, 4).requires_grad_(True)
    assert x.softmax(-1).grad_fn._saved_dim == MINUS_ONE
    assert F.softmax(x, dim=1).grad_fn._saved_dim == 1
    assert F.log_softmax(x, dim=-2).grad_fn._saved_dim == 2**64 - 2
    assert mt.log_softmax(x, 0).grad_fn._saved_dim == 0
