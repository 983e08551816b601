"""Session 46 (helper attrs): grad_fn._saved_* of the view, join and index nodes (torch's values,
written out here; tests/reference/test_s46_attrs_reference.py compares them with torch itself),
what renamed nodes show, and the data-level backward of indexing and narrow (bit for bit the
gradients of their Tensor-level backward)."""

from __future__ import annotations

import numpy as np
import pytest

import minitorch
from minitorch.autograd.function import name_node

U = 1 << 64  # torch reads an int64 back unsigned: -1 shows as U - 1
NO_STOP = (1 << 63) - 1


def _x(*shape, dtype=minitorch.float64, seed=0):
    g = np.random.default_rng(seed)
    return minitorch.tensor(g.standard_normal(shape), dtype=dtype, requires_grad=True)


def _saved(t) -> tuple:
    fn = t.grad_fn
    return fn.name(), {a[7:]: getattr(fn, a) for a in dir(fn) if a.startswith("_saved_")}


SIZES = (4, 5, 6)


def _slice(dim, start, end, step=1, sizes=SIZES):
    return "SliceBackward0", {
        "dim": dim,
        "start": start,
        "end": end,
        "step": step,
        "self_sym_sizes": sizes,
    }


def _select(dim, index, sizes=SIZES):
    return "SelectBackward0", {"dim": dim, "index": index, "self_sym_sizes": sizes}


KEYS = [
    (lambda x: x[1], _select(0, 1)),
    (lambda x: x[-1], _select(0, U - 1)),
    (lambda x: x[1:3], _slice(0, 1, 3)),
    (lambda x: x[:, 1:3], _slice(1, 1, 3)),
    (lambda x: x[2:], _slice(0, 2, NO_STOP)),
    (lambda x: x[-3:], _slice(0, U - 3, NO_STOP)),
    (lambda x: x[:-1], _slice(0, 0, U - 1)),
    (lambda x: x[-10:2], _slice(0, U - 10, 2)),
    (lambda x: x[:10], _slice(0, 0, 10)),
    (lambda x: x[3:1], _slice(0, 3, 1)),
    (lambda x: x[1::2], _slice(0, 1, NO_STOP, 2)),
    (lambda x: x[:, 1:-1:2], _slice(1, 1, U - 1, 2)),
    (lambda x: x[:], _slice(0, 0, NO_STOP)),
    (lambda x: x[:, :, 2:], _slice(2, 2, NO_STOP)),
    (lambda x: x[1, 2:4], _slice(0, 2, 4, sizes=(5, 6))),  # torch's last node (of x[1])
    (lambda x: x[1:3, 2], _select(1, 2, sizes=(2, 5, 6))),
    (lambda x: x[1, -2], _select(0, U - 2, sizes=(5, 6))),
    (lambda x: x[..., 1], _select(2, 1)),
    (lambda x: x[None, 1], _select(1, 1, sizes=(1, 4, 5, 6))),
    (lambda x: x[:, None], ("UnsqueezeBackward0", {"dim": 1})),
    (lambda x: x[..., None], ("UnsqueezeBackward0", {"dim": 3})),
    (lambda x: x[np.int64(-1)], _select(0, U - 1)),
    (lambda x: x[minitorch.tensor(2)], _select(0, 2)),
    (lambda x: x[np.int64(1) :], _slice(0, 1, NO_STOP)),
    (lambda x: x.narrow(1, 1, 2), _slice(1, 1, 3)),
    (lambda x: x.narrow(-1, 1, 2), _slice(U - 1, 1, 3)),
    (lambda x: x.narrow(0, -2, 2), _slice(0, 2, 4)),
    (lambda x: x.select(1, -2), _select(1, U - 2)),
    (lambda x: x.tensor_split(2, 1)[1], _slice(1, 3, 5)),
    (lambda x: x[:, :, 0:0], _slice(2, 0, 0)),
    (lambda x: x[:, :, 0:0][:, 1], _select(1, 1, sizes=(4, 5, 0))),
    (lambda x: x[..., :], ("AliasBackward0", {})),
    (lambda x: x[:, :], ("AliasBackward0", {})),
]


@pytest.mark.parametrize("i", range(len(KEYS)))
def test_basic_key_saved_values_and_types(i):
    call, (name, want) = KEYS[i]
    got_name, got = _saved(call(_x(*SIZES)))
    assert got_name == name
    assert got == want
    for k, v in got.items():  # ints, and sizes as a tuple of ints (torch's types)
        if k == "self_sym_sizes":
            assert type(v) is tuple and all(type(s) is int for s in v)
        else:
            assert type(v) is int, (k, type(v))


def test_views_without_recording_and_no_grad_keep_no_node():
    x = _x(*SIZES)
    with minitorch.no_grad():
        assert x[1:3].grad_fn is None and x.narrow(1, 1, 2).grad_fn is None
    assert x.detach()[:, -1].grad_fn is None


def test_squeeze_join_and_index_nodes():
    c = _x(4, 1, 5, 1)
    y = _x(4, 5)
    sizes = (4, 1, 5, 1)
    assert _saved(c.squeeze()) == ("SqueezeBackward0", {"self_sym_sizes": sizes})
    assert _saved(c.squeeze(-1)) == ("SqueezeBackward1", {"dim": U - 1, "self_sym_sizes": sizes})
    # a dim not of size 1 is saved all the same (torch's)
    assert _saved(c.squeeze(0)) == ("SqueezeBackward1", {"dim": 0, "self_sym_sizes": sizes})
    assert _saved(c.squeeze(np.int64(1)))[1]["dim"] == 1
    got = _saved(c.squeeze([1, -1]))
    assert got == ("SqueezeBackward2", {"dim": (1, U - 1), "self_sym_sizes": sizes})
    assert _saved(minitorch.cat([y, y], -1)) == ("CatBackward0", {"dim": U - 1})
    assert _saved(minitorch.cat([y, y], 1)) == ("CatBackward0", {"dim": 1})
    assert _saved(minitorch.stack([y, y], -2)) == ("StackBackward0", {"dim": U - 2})
    assert _saved(minitorch.stack([y, y])) == ("StackBackward0", {"dim": 0})


def test_index_nodes_save_the_tensors_of_the_call():
    y = _x(4, 5)
    idx = minitorch.tensor([0, 2])
    mask = y.detach() > 0
    src = _x(2, seed=1)
    name, got = _saved(y.index_put((idx,), y[0, :1], accumulate=True))
    assert name == "IndexPutBackward0" and got["accumulate"] is True
    assert len(got["indices"]) == 1 and got["indices"][0] is idx
    z = y * 1
    z[:, idx] = y[:, :2]
    name, got = _saved(z)
    assert name == "IndexPutBackward0" and got["accumulate"] is False
    assert got["indices"][0] is None and got["indices"][1] is idx
    z = y * 1
    z[[0, 1]] = y[:2]
    assert _saved(z)[1]["indices"][0].tolist() == [0, 1]  # a list, as a tensor
    name, got = _saved(y.index_copy(-1, idx, y[:, :2].detach()))
    assert name == "IndexCopyBackward0"
    assert got["dim"] == U - 1 and got["index"] is idx and got["source"] is None
    assert got["source_dim"] == 2
    s = y[:, :2]
    assert _saved(y.detach().index_copy(1, idx, s))[1]["source"] is s
    assert _saved(y.index_fill(-1, idx, 0.5)) == (
        "IndexFillBackward0",
        {"dim": U - 1, "index": idx},
    )
    name, got = _saved(y.detach().put(idx, src, accumulate=True))
    assert name == "PutBackward0" and got == {"accumulate": True, "index": idx, "source": src}
    assert _saved(y.put(idx, src.detach()))[1]["source"] is None
    assert _saved(y.take(idx)) == ("TakeBackward0", {"index": idx, "self": y})
    m0 = mask[0]
    assert _saved(y.masked_select(m0)) == ("MaskedSelectBackward0", {"mask": m0, "self": y})
    name, got = _saved(y.masked_scatter(mask, y * 2))
    assert name == "MaskedScatterBackward0"
    assert got["mask"] is mask and got["source_sym_sizes"] == (4, 5)


def test_saved_index_tensors_are_freed_by_backward_numbers_are_not():
    y = _x(4, 5)
    idx = minitorch.tensor([0, 2])
    p = y.index_put((idx,), y[0, :1])
    t = y.take(idx)
    s = y[:, 1:-1]
    (p.sum() + t.sum() + s.sum()).backward()
    for fn, attr in ((p.grad_fn, "_saved_indices"), (t.grad_fn, "_saved_self")):
        with pytest.raises(RuntimeError, match="backward through the graph a second time"):
            getattr(fn, attr)
    assert p.grad_fn._saved_accumulate is False
    assert (s.grad_fn._saved_start, s.grad_fn._saved_end) == (1, U - 1)


def test_renamed_nodes_show_none_of_the_ops_values():
    # NOTE [ Saved values under another node name ]: a view regenerated after its base changed
    # in place is torch's AsStridedBackward0; a composite's node takes the composite's name
    base = minitorch.zeros(4, 5, dtype=minitorch.float64)
    views = [base[1], base[:, -2:], base.narrow(1, 0, 2), base[:, :1].squeeze(1)]
    views += [base.view(20), base.unsqueeze(0), base.transpose(0, 1), base.permute(1, 0)]
    base.mul_(_x(4, 5))
    for v in views:
        fn = v.grad_fn
        assert fn.name() == "AsStridedBackward0"
        # only as_strided's geometry (NOTE [ The node of a regenerated view ])
        assert [a for a in dir(fn) if a.startswith("_saved_")] == [
            "_saved_size", "_saved_storage_offset", "_saved_stride"
        ]
        assert fn._saved_size == tuple(v.shape)
        with pytest.raises(AttributeError):
            fn._saved_dim  # noqa: B018
    x = _x(3, 1)
    out = name_node(x.squeeze(-1), "LinalgSolveExBackward0")
    assert not [a for a in dir(out.grad_fn) if a.startswith("_saved_")]
    out = name_node(x[1:], "SomeCompositeBackward0")
    assert not [a for a in dir(out.grad_fn) if a.startswith("_saved_")]
    # a node renamed to one of its op's own names keeps them (max_pool1d's squeeze)
    out = name_node(_x(3, 1, 2).squeeze(-2), "SqueezeBackward1")
    assert out.grad_fn._saved_dim == U - 2


def test_nodes_made_by_a_backward_read_their_parsed_key():
    # x[1:3]'s double backward records a slice of the upstream gradient's gradient: its key
    # is the parsed one (no call gave it)
    x = _x(4, 3)
    v = minitorch.ones(2, 3, dtype=minitorch.float64, requires_grad=True)
    (g,) = minitorch.autograd.grad(x[1:3], x, v, create_graph=True)
    w = minitorch.ones(4, 3, dtype=minitorch.float64, requires_grad=True)
    (gg,) = minitorch.autograd.grad(g, v, w, create_graph=True)
    assert _saved(gg) == _slice(0, 1, 3, sizes=(4, 3))


KEYED = [
    lambda x: x[1],
    lambda x: x[-1, 1:],
    lambda x: x[:, 1:3],
    lambda x: x[::2, None, -1],
    lambda x: x[..., 1:],
    lambda x: x[2:2],
    lambda x: x[:, 5:],
    lambda x: x.narrow(1, 1, 2),
    lambda x: x.narrow(-1, 0, 0),
    lambda x: x.narrow(0, -2, 2),
    lambda x: x.tensor_split(3, 1)[2],
]


@pytest.mark.parametrize("i", range(len(KEYED)))
def test_data_backward_gives_the_tensor_backwards_gradient(i):
    # backward() runs the data-level backward (arrays), a create_graph grad the Tensor one: the
    # same bits, a -0.0 upstream value keeping its sign
    call = KEYED[i]
    x = _x(4, 5, dtype=minitorch.float32, seed=i)
    out = call(x)
    g = np.random.default_rng(i).standard_normal(out.shape).astype(np.float32)
    g.reshape(-1)[:1] = -0.0
    up = minitorch.tensor(g)
    out.backward(up)
    data = x.grad.numpy().copy()
    (tensor,) = minitorch.autograd.grad(call(x), x, up, create_graph=True)
    np.testing.assert_array_equal(data, tensor.detach().numpy())
    assert np.array_equal(np.signbit(data), np.signbit(tensor.detach().numpy()))
    assert x.grad.dtype is minitorch.float32 and x.grad.shape == x.shape


@pytest.mark.parametrize("i", range(len(KEYED)))
def test_indexing_and_narrow_gradcheck(i):
    call = KEYED[i]
    x = _x(4, 5, seed=i)
    assert minitorch.autograd.gradcheck(call, (x,))
    assert minitorch.autograd.gradgradcheck(call, (x,))
