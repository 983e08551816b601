"""Session 24: storage offsets, strides and storage sharing of empty views against torch (a
seeded slice of chains like tools/fuzz/strides.py's), strides of size-1 dims through view,
reshape, squeeze and unflatten, and save/load of empty and size-1 views in both directions."""

import io
import random

import pytest

import minitorch

torch = pytest.importorskip("torch")


def _start(lib, kind, shape):
    n = 1
    for s in shape:
        n *= s
    if kind == "sliced":  # a stepped slice of a bigger tensor
        big = [s * 2 + 1 for s in shape]
        m = 1
        for s in big:
            m *= s
        t = lib.arange(float(m)).reshape(big)
        return t[tuple(slice(1, 1 + 2 * s, 2) if s else slice(1, 1) for s in shape)]
    t = lib.arange(float(n))
    if kind == "transposed":
        return t.reshape(shape[::-1]).permute(tuple(range(len(shape) - 1, -1, -1)))
    return t.reshape(shape)


def _step(r, shape):
    """A random view op that may give an empty result: (name, args)."""
    nd = len(shape)
    d = r.randrange(nd)
    n = shape[d]
    op = r.choice(["slice", "slice", "narrow", "select", "split", "unbind", "as_strided"])
    if op == "slice":
        a = r.randint(0, n + 1)
        return op, (d, a, r.choice([a, a + r.randint(0, 2), None]), r.choice([1, 1, 2, 3]))
    if op == "narrow":
        a = r.randint(0, n)
        return op, (d, a, r.randint(0, n - a))
    if op == "select":
        return (op, (d, r.randrange(n))) if n else ("slice", (d, 0, 0, 1))
    if op == "split":
        cut = sorted(r.randint(0, n) for _ in range(2))
        sizes = [cut[0], cut[1] - cut[0], n - cut[1]]
        return op, (d, sizes, r.randrange(3))
    if op == "unbind":
        return (op, (d, r.randrange(n))) if n else ("slice", (d, n, n, 2))
    return op, (r.randint(0, 8),)


def _apply(t, op, args):
    if op == "slice":
        d, a, b, st = args
        return t[(slice(None),) * d + (slice(a, b, st),)]
    if op == "narrow":
        return t.narrow(*args)
    if op == "select":
        return t.select(*args)
    if op == "split":
        d, sizes, i = args
        return t.split(sizes, d)[i]
    if op == "unbind":
        d, i = args
        return t.unbind(d)[i]
    (offset,) = args
    return t.as_strided((0, 2), (2, 1), t.storage_offset() + offset)


def _layout(t, base):
    return (
        tuple(t.shape),
        tuple(t.stride()),
        t.storage_offset(),
        t.untyped_storage().nbytes(),
        t.untyped_storage().data_ptr() == base.untyped_storage().data_ptr(),
        t.data_ptr() == 0 if t.numel() == 0 else t.data_ptr() - base.data_ptr(),
        t.is_set_to(t.detach()),
    )


@pytest.mark.parametrize("seed", range(300))
def test_empty_view_chains(seed):
    r = random.Random(seed)
    kind = r.choice(["contiguous", "transposed", "sliced"])
    shape = tuple(r.choice([0, 1, 2, 3]) for _ in range(r.randint(1, 3)))
    a0, b0 = _start(torch, kind, shape), _start(minitorch, kind, shape)
    a, b = a0, b0
    for _ in range(3):
        if not a.ndim:
            break
        op, args = _step(r, tuple(a.shape))
        a, b = _apply(a, op, args), _apply(b, op, args)
        assert _layout(b, b0) == _layout(a, a0), (kind, shape, op, args)


def _size_one_step(r, t):
    """A random view/reshape/squeeze/unflatten of t that gives or keeps size-1 dims."""
    shape = list(t.shape)
    op = r.choice(["view", "reshape", "squeeze", "unflatten", "unsqueeze_view"])
    if op == "squeeze":
        ones = [d for d, s in enumerate(shape) if s == 1]
        return "squeeze", (tuple(r.sample(ones, r.randint(0, len(ones)))),)
    if op == "unflatten" and shape:
        d = r.randrange(len(shape))
        return "unflatten", (d, (1, shape[d]) if r.random() < 0.5 else (shape[d], 1))
    new = [s for s in shape if s != 1]
    for _ in range(r.randint(1, 2)):
        new.insert(r.randint(0, len(new)), 1)
    return ("reshape" if op == "reshape" else "view"), (tuple(new),)


def _strides_of_real_dims(t):
    return tuple((n, st if n != 1 else None) for n, st in zip(t.shape, t.stride(), strict=True))


@pytest.mark.parametrize("seed", range(200))
def test_size_one_view_chains(seed):
    r = random.Random(seed)
    kind = r.choice(["contiguous", "transposed", "sliced"])
    shape = tuple(r.choice([1, 1, 2, 3]) for _ in range(r.randint(1, 4)))
    a, b = _start(torch, kind, shape), _start(minitorch, kind, shape)
    for _ in range(3):
        op, args = _size_one_step(r, a)
        try:
            a = getattr(a, op)(*args)
        except RuntimeError:  # a view the strides forbid
            with pytest.raises(RuntimeError):
                getattr(b, op)(*args)
            return
        b = getattr(b, op)(*args)
        # (a size-1 dim's stride addresses nothing: NumPy's choice is kept there)
        assert (_strides_of_real_dims(b), b.storage_offset()) == (
            _strides_of_real_dims(a),
            a.storage_offset(),
        ), (kind, shape, op, args)
        assert b.tolist() == a.tolist()


def _views(lib):
    x = lib.arange(6.0)
    z = lib.zeros(3, 0, 2)
    m = lib.arange(12.0).reshape(3, 4)
    c = lib.arange(24.0).reshape(2, 3, 4)
    return [x, x[6:], x[3:3], x[0:0:2], x[4:], z, z[2], z[1:], z[:, :, 1], m[:, 4:], m[3:],
            m[1:2, 2:3], m[:, 1:2], m[2:3], c[1:, 2:, 3:], c[:, 3:], c[2:], x.narrow(0, 6, 0),
            m.split([3, 0])[1]]  # fmt: skip


def _described(ts, lib):
    ptrs = [t.untyped_storage().data_ptr() for t in ts]
    return [
        (tuple(t.shape), tuple(t.stride()), t.storage_offset(), t.untyped_storage().nbytes(),
         ptrs.index(p), t.tolist())
        for t, p in zip(ts, ptrs, strict=True)
    ]  # fmt: skip


@pytest.mark.parametrize("legacy", [False, True])
@pytest.mark.parametrize("writer,reader", [("torch", "mt"), ("mt", "torch"), ("mt", "mt")])
def test_save_load_empty_and_size_one_views(writer, reader, legacy):
    libs = {"torch": torch, "mt": minitorch}
    src, dst = libs[writer], libs[reader]
    buf = io.BytesIO()
    src.save(_views(src), buf, _use_new_zipfile_serialization=not legacy)
    buf.seek(0)
    got = dst.load(buf)
    ref = io.BytesIO()
    torch.save(_views(torch), ref)
    ref.seek(0)
    assert _described(got, dst) == _described(torch.load(ref), torch)
