"""The view fast path (NOTE [ The view fast path ] in minitorch/_ops/shape.py): a view op that
records no node returns what Function.apply returns (same memory, base, version counter, replay
chain and grad-mode bookkeeping), and views keep torch's semantics in every mode."""

import warnings

import numpy as np
import pytest

import minitorch as torch
from minitorch._ops import indexing, shape
from minitorch.autograd import function


class full_path:  # noqa: N801 (a context manager, named as the lead's test names it)
    """Turns the fast paths off, as a profile does (the full path's result is the reference)."""

    def __enter__(self):
        function.fast_path[0] = False

    def __exit__(self, *exc):
        function.fast_path[0] = True


def fresh(shape_, seed=0, dtype=torch.float32):
    """A tensor of `shape_` that owns its memory (as an op's result does)."""
    g = torch.Generator().manual_seed(seed)
    return (torch.randn(shape_, generator=g, dtype=torch.float64) * 3).to(dtype) * 1


# (name, input maker, op): the inputs cover contiguous, transposed, sliced, 0-d and empty ones
INPUTS = {
    "c": lambda: fresh((4, 6)),
    "t": lambda: fresh((6, 4)).t(),
    "s": lambda: fresh((5, 6))[1:, ::2],
    "3d": lambda: fresh((2, 3, 4)),
    "col": lambda: fresh((4, 1)),
    "0d": lambda: fresh(()),
    "empty": lambda: fresh((0, 3)),
    "int": lambda: fresh((4, 6)).to(torch.int64),
}
OPS = {
    "view": ("c 3d col int 0d empty", lambda x: x.view(-1)),
    "view2": ("c int", lambda x: x.view(2, -1, 3)),
    "view_tuple": ("c", lambda x: x.view((3, 8))),
    "reshape": ("c t s 3d col 0d empty int", lambda x: x.reshape(-1)),
    "reshape2": ("c t 3d", lambda x: x.reshape(2, -1)),
    "flatten": ("c t s 3d col 0d empty", lambda x: x.flatten()),
    "flatten1": ("3d", lambda x: x.flatten(1)),
    "flatten_neg": ("3d", lambda x: x.flatten(-2, -1)),
    "unflatten": ("c", lambda x: x.unflatten(1, (2, 3))),
    "unflatten_neg": ("3d", lambda x: x.unflatten(-1, [2, -1])),
    "unsqueeze": ("c t s 3d 0d empty int", lambda x: x.unsqueeze(0)),
    "unsqueeze_end": ("c t s col", lambda x: x.unsqueeze(-1)),
    "unsqueeze_mid": ("c t s 3d", lambda x: x.unsqueeze(1)),
    "squeeze": ("c col 0d empty", lambda x: x.squeeze()),
    "squeeze1": ("col c", lambda x: x.squeeze(1)),
    "squeeze_neg": ("col", lambda x: x.squeeze(-1)),
    "squeeze_dims": ("col 3d", lambda x: x.squeeze((0, 1))),
    "permute": ("3d", lambda x: x.permute(2, 0, 1)),
    "permute_neg": ("3d", lambda x: x.permute(-1, 0, -2)),
    "transpose": ("c t s 3d col empty int", lambda x: x.transpose(0, 1)),
    "transpose_same": ("c 0d", lambda x: x.transpose(0, -1)),
    "t": ("c t s col 0d empty", lambda x: x.t()),
    "T": ("c t", lambda x: x.T),
    "mT": ("c 3d", lambda x: x.mT),
    "expand": ("col", lambda x: x.expand(4, 5)),
    "expand_lead": ("col", lambda x: x.expand(2, 4, 3)),
    "expand_keep": ("c", lambda x: x.expand(3, -1, -1)),
    "expand_one": ("col", lambda x: x.expand(1, 4, 1)),
    "expand_as": ("col", lambda x: x.expand_as(torch.zeros(2, 4, 7))),
    "view_as": ("c int", lambda x: x.view_as(torch.zeros(6, 4))),
    "reshape_as": ("c t s", lambda x: x.reshape_as(torch.zeros(x.numel()))),
    "int": ("c t s 3d", lambda x: x[1]),
    "neg_int": ("c 3d", lambda x: x[-1]),
    "slice": ("c t s 3d", lambda x: x[1:3]),
    "slice_step": ("c 3d", lambda x: x[::2]),
    "empty_slice": ("c", lambda x: x[3:3]),
    "int_slice": ("c t s 3d", lambda x: x[0, 1:]),
    "slice_int": ("c 3d", lambda x: x[:, -2]),
    "none": ("c t 0d 3d", lambda x: x[..., None]),
    "none_first": ("c 0d", lambda x: x[None]),
    "ellipsis": ("c 0d", lambda x: x[...]),
    "mixed": ("3d", lambda x: x[None, 1, ..., 2:, None]),
    "narrow": ("c t s", lambda x: x.narrow(0, 1, 2)),
    "narrow_mid": ("3d", lambda x: x.narrow(1, 1, 2)),
    "narrow_neg": ("c 3d", lambda x: x.narrow(-1, -3, 2)),
    "narrow_empty": ("c", lambda x: x.narrow(1, 2, 0)),
    "select": ("c t s 3d", lambda x: x.select(1, 2)),
    "select_neg": ("3d", lambda x: x.select(-1, -1)),
    "torch_select": ("c", lambda x: torch.select(x, 0, 1)),
    "torch_ops": ("3d", lambda x: torch.transpose(torch.flatten(torch.unsqueeze(x, 1), 2), 0, 1)),
}
CASES = [(op, name) for op, (names, _) in OPS.items() for name in names.split()]


def chain_of(t):
    return [(cls, args, dict(kw)) for cls, args, kw in t._view_chain]


def same_view(fast, full, x):
    """fast (the fast path's result) is what the full path made of x."""
    assert type(fast) is type(full) is torch.Tensor
    assert (fast.shape, fast.dtype, fast.stride()) == (full.shape, full.dtype, full.stride())
    assert fast.storage_offset() == full.storage_offset()
    np.testing.assert_array_equal(fast.numpy(), full.numpy())
    assert fast._data.flags.writeable == full._data.flags.writeable
    assert (fast.requires_grad, fast.is_leaf) == (full.requires_grad, full.is_leaf)
    assert fast.grad_fn is None and full.grad_fn is None
    assert fast._base is full._base
    if full._base is None:  # a reshape that copies
        assert fast is not x and not np.shares_memory(fast.numpy(), x.numpy())
        return
    base = x if x._base is None else x._base
    assert fast._base is base and fast._vc is x._vc
    assert fast._is_view() and fast.untyped_storage().data_ptr() == x.untyped_storage().data_ptr()
    assert chain_of(fast) == chain_of(full)
    assert fast._view_version == full._view_version
    for key in ("_no_grad_view", "_rg_inherited"):
        assert fast.__dict__.get(key) == full.__dict__.get(key), key


@pytest.mark.parametrize(("op", "name"), CASES)
@pytest.mark.parametrize("mode", ["no_grad", "grad", "no_grad_of_requiring"])
def test_fast_path_makes_the_full_paths_view(op, name, mode):
    x = INPUTS[name]()
    fn = OPS[op][1]
    if mode == "no_grad_of_requiring":
        if not x.dtype.is_floating_point:
            return
        (x if x._base is None else x._base).requires_grad_()  # (x's views: under no_grad)
        assert x.requires_grad
    grad = mode == "grad"
    with torch.set_grad_enabled(grad):
        fast = fn(x)
        with full_path():
            full = fn(x)
        same_view(fast, full, x)
        if grad and fast._base is not None:  # registered as a view taken with grad mode on
            views = fast._base.__dict__["_grad_views"]  # (NOTE [ Views and grad mode ])
            live = views.live()
            assert any(v is fast for v in live) and any(v is full for v in live)


@pytest.mark.parametrize(
    ("cls", "fn"),
    [
        (shape.View, lambda x: x.view(-1)),
        (shape.View, lambda x: x.reshape(3, 4)),
        (shape.Permute, lambda x: x.permute(1, 0)),
        (shape.Transpose, lambda x: x.transpose(0, 1)),
        (shape.TransposeT, lambda x: x.t()),
        (shape.Unsqueeze, lambda x: x.unsqueeze(0)),
        (shape.Expand, lambda x: x[:1].expand(5, 4)),
        (shape.Narrow, lambda x: x.narrow(0, 1, 2)),
        (indexing.SelectIndex, lambda x: x[0]),
        (indexing.SliceIndex, lambda x: x[1:]),
        (indexing.UnsqueezeIndex, lambda x: x[:, None]),
    ],
)
def test_fast_path_skips_apply_only_with_nothing_to_record(cls, fn, monkeypatch):
    calls = []

    def counting(c, *args, **kwargs):  # the full path of the view op cls, counted
        calls.append(c)
        return function.Function.apply.__func__(c, *args, **kwargs)

    monkeypatch.setattr(cls, "apply", classmethod(counting))
    x = fresh((3, 4))
    with torch.no_grad():
        fn(x)
    fn(x)  # grad mode, nothing requires grad
    with torch.inference_mode():
        fn(x)
    assert calls == []
    with full_path():
        fn(x)
    assert len(calls) == 1
    r = x.detach().requires_grad_()
    out = fn(r)  # recorded: record_view_apply, not apply (NOTE [ The recorded fast path ])
    assert len(calls) == 1 and out.grad_fn is not None
    with torch.no_grad():
        fn(r)  # nothing recorded: a leaf view that inherits requires_grad
    assert len(calls) == 1
    with full_path():
        fn(r)  # recorded on the full path: apply
    assert len(calls) == 2


def test_subclasses_and_other_devices_take_the_full_path():
    seen = []

    class Logged(torch.Tensor):
        @classmethod
        def __torch_function__(cls, func, types, args=(), kwargs=None):
            seen.append(func.__name__)
            return super().__torch_function__(func, types, args, kwargs or {})

    x = fresh((3, 4)).as_subclass(Logged)
    with torch.no_grad():
        outs = [x.view(-1), x.t(), x[0], x.unsqueeze(0), x.permute(1, 0)]
    assert all(type(o) is Logged and o._is_view() for o in outs)
    assert seen == ["view", "t", "getitem", "unsqueeze", "permute"], seen
    meta = torch.randn(3, 4, device="meta")
    with torch.no_grad():
        assert meta.view(-1).device.type == "meta" and meta.t().shape == (4, 3)
        assert meta[0]._base is meta


def test_profile_sees_the_views():
    x = fresh((4, 4))
    with torch.no_grad(), torch.profiler.profile() as prof:
        x.view(-1)
        x.t()
        x[0]
        x.unsqueeze(0)
    names = [e.key for e in prof.key_averages()]
    for op in ("View", "TransposeT", "SelectIndex", "Unsqueeze"):
        assert op in names, (op, names)
    assert function.fast_path[0]


def test_views_share_memory_and_the_version_counter():
    x = fresh((4, 6))
    with torch.no_grad():
        views = [x.view(-1), x.t(), x[1], x[:, 2:], x.unsqueeze(0), x.narrow(1, 1, 2)]
    for v in views:
        assert v._base is x and v._version == x._version
    views[1][0, 1] = 7.0  # x[1, 0]
    assert x[1, 0].item() == 7.0 and views[2][0].item() == 7.0
    assert all(v._version == x._version == 1 for v in views)
    x.add_(1)
    assert views[0][6].item() == 8.0 and all(v._version == 2 for v in views)
    vv = views[0].view(4, 6)[1:]  # a view of a view: its base is the root
    assert vv._base is x and vv._version == 2


def test_inplace_through_views_gives_the_gradients():
    w = torch.arange(6.0).requires_grad_()
    buf = torch.zeros(2, 3)  # requires no grad: its grad-mode views follow it
    row = buf[0]
    flat = buf.view(-1)
    assert any(v is row for v in buf.__dict__["_grad_views"].live())
    buf[1] = w[3:] * 2  # buf gains history through a view
    assert buf.requires_grad and row.requires_grad and flat.requires_grad
    buf[0] = w[:3]
    loss = (flat * torch.arange(1.0, 7.0)).sum() + (row * 5).sum()
    loss.backward()
    np.testing.assert_array_equal(w.grad.numpy(), [6, 7, 8, 8, 10, 12])
    # regenerated from the base (NOTE [ In-place through views ])
    assert type(flat.grad_fn).__name__ == type(row.grad_fn).__name__ == "AsStridedBackward0"


def test_view_taken_under_no_grad_of_a_base_requiring_grad():
    x = torch.randn(3, 4, requires_grad=True)
    with torch.no_grad():
        v = x.view(-1)
        s = x[0]
    assert v.requires_grad and v.is_leaf and v.grad_fn is None
    assert v._no_grad_view is True and v._rg_inherited
    with pytest.raises(RuntimeError, match="A view was created in no_grad mode and is being"):
        v.mul_(2)
    (s * 3).sum().backward()  # its gradient is dropped: no edge to x
    assert x.grad is None
    with torch.inference_mode():
        iv = x.t()
    assert iv._no_grad_view == "inference" and iv.requires_grad
    with pytest.raises(RuntimeError, match="A view was created in inference mode"):
        iv.mul_(2)


def test_inference_mode_views():
    x = fresh((3, 4))
    with torch.inference_mode():
        y = fresh((3, 4))
        vx, vy = x.view(-1), y[0]
        vt = y.t()
    assert not vx.is_inference() and vy.is_inference() and vt.is_inference()
    assert vx._base is x and vy._base is y
    with pytest.raises(RuntimeError, match="Inplace update to inference tensor"):
        vy.add_(1)
    vx.add_(1)  # a view of a normal tensor is a normal tensor
    assert x._version == 1


def test_view_of_a_view_after_the_base_changed_shape():
    x = torch.arange(12.0).reshape(3, 4) * 1
    v = x.view(-1)[2:]
    x.t_()  # the chain was recorded against the old shape
    w = torch.ones(10, requires_grad=True)
    v.mul_(w)  # replays as one as_strided of the base
    assert x.requires_grad and type(v.grad_fn).__name__ == "AsStridedBackward0"
    x.sum().backward()
    np.testing.assert_array_equal(w.grad.numpy(), np.arange(2.0, 12.0))


def test_errors_are_torchs():
    x = fresh((4, 6))
    t = x.t()
    cases = [
        (lambda: t.view(-1), RuntimeError, "view size is not compatible with input tensor's"),
        (lambda: x.view(-1, -1), RuntimeError, "only one dimension can be inferred"),
        (lambda: x.view(5, -1), RuntimeError, r"shape '\[5, -1\]' is invalid for input of size"),
        (lambda: x.view(7), RuntimeError, r"shape '\[7\]' is invalid for input of size 24"),
        (lambda: x.view(-2, 3), RuntimeError, "invalid shape dimension -2"),
        (lambda: x.view(2.0, 12), TypeError, "view"),
        (lambda: x.reshape(0, -1), RuntimeError, "is invalid for input of size 24"),
        (lambda: torch.zeros(0, 3).view(0, -1), RuntimeError, "cannot reshape tensor of 0"),
        (lambda: x.expand(3, 6), RuntimeError, "must match the existing size"),
        (lambda: x.expand(-1, 4, 6), RuntimeError, "isn't allowed in a leading, non-existing"),
        (lambda: x.expand(6), RuntimeError, "the number of sizes provided"),
        (lambda: x.narrow(0, 3, 2), RuntimeError, r"start \(3\) \+ length \(2\) exceeds"),
        (lambda: x.permute(0, 0), RuntimeError, "duplicate dims"),
        (lambda: x.transpose(0, 2), IndexError, "Dimension out of range"),
        (lambda: x.unsqueeze(3), IndexError, "Dimension out of range"),
        (lambda: x.squeeze(2), IndexError, "Dimension out of range"),
        (lambda: x.select(0, 4), IndexError, "select\\(\\): index 4 out of range"),
        (lambda: x[4], IndexError, "index 4 is out of bounds for dimension 0 with size 4"),
        (lambda: x[0, 6], IndexError, "index 6 is out of bounds for dimension 1 with size 6"),
        (lambda: x[0, 0, 0], IndexError, "too many indices for tensor of dimension 2"),
        (lambda: x[::-1], ValueError, "step must be greater than zero"),
        (lambda: x.flatten(2), IndexError, "Dimension out of range"),
        (lambda: x.flatten(1, 0), RuntimeError, "start_dim cannot come after end_dim"),
        (lambda: x.unflatten(1, (4, 2)), RuntimeError, "don't multiply up to the size of dim 1"),
    ]
    for mode in (torch.no_grad, torch.enable_grad):
        for fn, err, text in cases:
            with mode():
                try:
                    fn()
                except err as e:
                    got = str(e)
                else:
                    got = None
                with full_path():
                    with pytest.raises(err, match=text) as full:
                        fn()
            assert got == str(full.value), (got, str(full.value))


def test_expand_of_an_array_owning_its_memory_is_numpys_broadcast():
    for shape_, sizes in [((4, 1), (4, 5)), ((1, 3), (2, 6, 3)), ((2, 3), (4, 2, 3))]:
        x = fresh(shape_, dtype=torch.float64)
        assert x._data.base is None
        out = x.expand(*sizes)
        ref = np.broadcast_to(x._data, sizes)
        assert out._data.base is x._data and ref.base is x._data
        assert out._data.strides == ref.strides and not out._data.flags.writeable
        np.testing.assert_array_equal(out.numpy(), ref)
        with pytest.raises(ValueError, match="read-only"):
            out._data[0] = 1


def test_contiguous_returns_self():
    x = fresh((3, 4))
    assert x.contiguous() is x
    t = x.t().contiguous()
    assert t.is_contiguous() and t._base is None and t.stride() == (3, 1)


def test_no_registry_where_none_is_needed():
    x = fresh((3, 4))
    with torch.no_grad():
        x.view(-1)
        x[0]
    assert "_grad_views" not in x.__dict__  # views taken under no_grad are not registered
    r = torch.randn(3, 4, requires_grad=True)
    r.view(-1)
    r.t()
    assert "_grad_views" not in r.__dict__  # (a base requiring grad: its views have history)
    v = x.t()
    reg = x.__dict__["_grad_views"]
    assert reg.live() == [v]
    del v
    assert reg.live() == []  # a dead view leaves the registry (its reference at the next prune)


def test_gradients_through_view_ops_are_torchs_formulas():
    x = torch.arange(24.0).reshape(2, 3, 4).requires_grad_()
    g = torch.arange(24.0)
    parts = [
        x.view(-1),
        x.reshape(4, 6).t().reshape(-1),
        x.permute(2, 0, 1).flatten(),
        x.transpose(0, 2).reshape(-1),
        x.unsqueeze(1).squeeze(1).view(24),
        x.expand(1, 2, 3, 4).flatten(),
        x.mT.flatten(),
    ]
    for p in parts:
        x.grad = None
        (p * g).sum().backward()
        back = torch.zeros(24)
        # the gradient of p's element i lands where p read it from: same as x.flatten() order
        idx = p.detach().long()
        back[idx] = g
        np.testing.assert_array_equal(x.grad.flatten().numpy(), back.numpy())
    x.grad = None
    (x[1, :, 1:3].sum() + x.narrow(2, 0, 1).sum() * 2 + x.select(1, 2).sum() * 3).backward()
    want = np.zeros((2, 3, 4))
    want[1, :, 1:3] += 1
    want[:, :, 0] += 2
    want[:, 2, :] += 3
    np.testing.assert_array_equal(x.grad.numpy(), want)
    names = [
        type(f(x).grad_fn).__name__
        for f in (
            lambda t: t.view(-1),
            lambda t: t.t() if t.dim() == 2 else t[0].t(),
            lambda t: t[0],
            lambda t: t[0, 1:],
            lambda t: t[..., None],
            lambda t: t.narrow(0, 0, 1),
            lambda t: t.transpose(0, 1),
        )
    ]
    assert names == [
        "ViewBackward0",
        "TBackward0",
        "SelectBackward0",
        "SliceBackward0",
        "UnsqueezeBackward0",
        "SliceBackward0",
        "TransposeBackward0",
    ]


def test_basic_key_is_parse_keys_plan():
    """getitem reads keys of ints, slices, None and one Ellipsis without the plan (basic_key):
    where it answers, its key and view are parse_key's."""
    from minitorch._ops._index_key import basic_key, parse_key

    rng = np.random.default_rng(0)
    pool = [0, 1, -1, 2, -3, 5, None, Ellipsis, slice(None), slice(1, None), slice(None, -1),
            slice(0, 2), slice(-2, None, 2), slice(None, 9), slice(3, 1), slice(0, 3, 1),
            slice(1, 2, 3), True, 1.0]  # fmt: skip
    answered = 0
    for shape_ in [(), (4,), (3, 1), (2, 3, 4), (0, 5)]:
        t = torch.zeros(shape_)
        for _ in range(300):
            n = int(rng.integers(0, 5))
            key = tuple(pool[i] for i in rng.integers(0, len(pool), n))
            if n == 1 and rng.random() < 0.3:
                key = key[0]
            with full_path():
                full = _outcome(lambda: t[key])  # noqa: B023
            fast = _outcome(lambda: t[key])  # noqa: B023
            if isinstance(full, str):  # the same error, or the same view
                assert fast == full, (shape_, key)
            else:
                assert (fast.shape, fast.stride()) == (full.shape, full.stride()), (shape_, key)
                assert chain_of(fast) == chain_of(full), (shape_, key)
            got = basic_key(shape_, key)
            if got is None:
                continue
            answered += 1
            plan = parse_key(t, key, read=True)
            assert plan.adv is None and got == (plan.basic, plan.view_name), (shape_, key)
    assert answered > 500


def _outcome(fn):
    """fn()'s result, or its error as "Type: message"."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return fn()
    except Exception as e:  # noqa: BLE001 (any error: compared by type and message)
        return f"{type(e).__name__}: {e}"
