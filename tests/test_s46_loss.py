"""The recorded losses of session 46: cross_entropy / nll_loss of the common call record their
two nodes without the full path's checks (recorded_nll), mse_loss and
binary_cross_entropy_with_logits are one node each (NOTE [ One-node mse_loss ], NOTE [ One-node
binary_cross_entropy_with_logits ]), and the softmax forwards of a few rows take the no-grad
path's kernel. Each gives what the full path (the fast paths' switch off, as a profile) gives,
bit for bit: values, first and second order gradients, grad_fn names, edges and _saved_*
values, and the errors of a graph freed or changed in place. Also: nll_loss's sums, and
softmax backward's sums over a dim other than the last, warn nothing for inf + -inf (torch is
silent), where NumPy's warning came from numpy/_core/_methods.py, past minitorch's filter."""

import warnings

import numpy as np
import pytest

import minitorch as torch
from minitorch._ops import nn_kernels
from tests._fastpath import full_path

F = torch.nn.functional


def randn(*shape, dtype=torch.float32, seed=0, scale=2.0):
    g = torch.Generator().manual_seed(seed)
    return (torch.randn(shape, generator=g, dtype=torch.float64) * scale).to(dtype)


def bits(t):
    return None if t is None else t.detach().numpy().copy()


def same_array(a, b, what):
    assert (a is None) == (b is None), what
    if a is not None:
        assert a.dtype == b.dtype and a.shape == b.shape, what
        assert a.strides == b.strides, what
        np.testing.assert_array_equal(a.view(f"u{a.itemsize}"), b.view(f"u{b.itemsize}"), what)


def graph_of(fn):
    """What the result of fn() shows: its grad_fn's name, edges (by node name) and _saved_*."""
    fn_ = fn.grad_fn
    if fn_ is None:
        return None
    saved = {}
    for k in dir(fn_):
        if k.startswith("_saved_"):
            v = getattr(fn_, k)
            saved[k] = bits(v) if isinstance(v, torch.Tensor) else v
    edges = tuple(None if f is None else type(f).__name__ for f, _ in fn_.next_functions)
    return type(fn_).__name__, edges, saved


def run(make, inputs, grad_seed=3):
    """(value, graph, gradients, second-order gradients, the gradients of a plain backward) of
    make(*inputs), for the inputs that require grad."""
    out = make(*inputs)
    leaves = [a for a in inputs if isinstance(a, torch.Tensor) and a.requires_grad]
    res = {"value": bits(out), "graph": graph_of(out)}
    if not out.requires_grad:
        return res
    g = randn(*out.shape, dtype=out.dtype, seed=grad_seed) if out.ndim else None
    grads = torch.autograd.grad(out, leaves, g, create_graph=True)
    res["grads"] = [bits(x) for x in grads]
    res["grad_fns"] = [type(x.grad_fn).__name__ for x in grads]
    total = sum((x * x).sum() for x in grads if x.requires_grad)
    if isinstance(total, torch.Tensor):
        res["second"] = [bits(x) for x in torch.autograd.grad(total, leaves, allow_unused=True)]
    for a in leaves:
        a.grad = None
    make(*inputs).backward(g)
    res["backward"] = [bits(a.grad) for a in leaves]
    return res


def compare(make, inputs):
    """make(*inputs) on its route and on the full path: the same everything."""
    fast = run(make, inputs)
    with full_path():
        full = run(make, inputs)
    assert fast.keys() == full.keys()
    for k in fast:
        if k == "graph":
            a, b = fast[k], full[k]
            assert (a is None) == (b is None)
            if a is not None:
                assert a[:2] == b[:2]
                assert a[2].keys() == b[2].keys()
                for name in a[2]:
                    x, y = a[2][name], b[2][name]
                    if isinstance(x, np.ndarray):
                        same_array(x, y, name)
                    else:
                        assert x == y, name
        elif k == "grad_fns":
            assert fast[k] == full[k]
        elif isinstance(fast[k], list):
            assert len(fast[k]) == len(full[k])
            for x, y in zip(fast[k], full[k], strict=True):
                same_array(x, y, k)
        else:
            same_array(fast[k], full[k], k)
    return fast


DTYPES = (torch.float32, torch.float64)
REDUCTIONS = ("mean", "sum", "none")


# --- cross_entropy and nll_loss ---

TARGET = [0, 3, 1, 1, 2, 0]


@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("dtype", DTYPES, ids=str)
@pytest.mark.parametrize("ignore_index", [-100, 1, 4])
@pytest.mark.parametrize("loss", ["cross_entropy", "nll_loss"])
def test_recorded_nll_matches_the_full_path(loss, ignore_index, dtype, reduction):
    x = randn(6, 4, dtype=dtype).requires_grad_()
    t = torch.tensor(TARGET)
    fn = getattr(F, loss)
    res = compare(lambda x, t: fn(x, t, reduction=reduction, ignore_index=ignore_index), (x, t))
    assert res["graph"][0] == "NllLossBackward0"


@pytest.mark.parametrize(
    "case",
    [
        lambda x, t: F.cross_entropy(x, torch.tensor([0, -100, 1, 3, 2, 0])),  # an ignored id
        lambda x, t: F.cross_entropy(x, torch.full((6,), -100)),  # all ignored: NaN
        lambda x, t: F.cross_entropy(x, t.to(torch.uint8)),
        lambda x, t: F.cross_entropy(x, t, weight=torch.arange(1.0, 5.0)),
        lambda x, t: F.cross_entropy(x, t, label_smoothing=0.1),
        lambda x, t: F.cross_entropy(x.t().contiguous().t(), t),  # column-major scores
        lambda x, t: torch.nn.CrossEntropyLoss()(x, t),
        lambda x, t: F.nll_loss(F.log_softmax(x, 1), t),
    ],
)
def test_recorded_nll_other_calls(case):
    compare(case, (randn(6, 4).requires_grad_(), torch.tensor(TARGET)))


def test_recorded_nll_out_of_range_ids_raise_as_before():
    x = randn(3, 4).requires_grad_()
    for t, v in (([0, 4, 1], 4), ([0, -2, 1], -2)):
        for fn in (F.cross_entropy, F.nll_loss):
            with pytest.raises(IndexError, match=f"Target {v} is out of bounds."):
                fn(x, torch.tensor(t))


def test_recorded_nll_errors_of_a_changed_or_freed_graph():
    x = randn(6, 4).requires_grad_()
    for fn in (F.cross_entropy, F.nll_loss):
        messages = []
        for route in (None, full_path):
            with route() if route else _nothing():
                t = torch.tensor(TARGET)
                loss = fn(x, t)
                t.add_(0)
                with pytest.raises(RuntimeError, match="modified by an inplace operation") as e:
                    loss.backward()
                messages.append(str(e.value))
                loss = fn(x, torch.tensor(TARGET))
                loss.backward()
                with pytest.raises(RuntimeError, match="backward through the graph a second"):
                    loss.grad_fn._saved_self  # noqa: B018
        assert messages[0] == messages[1]
        assert "[torch.LongTensor [6]]" in messages[0]


class _nothing:
    def __enter__(self):
        pass

    def __exit__(self, *exc):
        pass


def test_recorded_nll_node_has_two_inputs_without_a_weight():
    x = randn(6, 4).requires_grad_()
    loss = F.nll_loss(x, torch.tensor(TARGET))
    assert len(loss.grad_fn._next) == 2  # (the binary op's recording)
    assert len(loss.grad_fn.next_functions) == 1
    loss = F.nll_loss(x, torch.tensor(TARGET), weight=torch.ones(4))
    assert len(loss.grad_fn._next) == 3


# --- NumPy's warnings from its Python reductions ---


def _kernel_filters_only():
    """A context recording every warning behind minitorch's own filter, as a user's default
    setup has it (pytest's filters removed)."""
    ctx = warnings.catch_warnings(record=True)
    caught = ctx.__enter__()
    warnings.simplefilter("always")
    warnings.filterwarnings("ignore", category=RuntimeWarning, module=torch._KERNEL_MODULES)
    return ctx, caught


@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize(
    "case",
    ["infs", "inf_weights", "overflow"],
)
def test_nll_loss_sums_warn_nothing(case, reduction):
    inf = float("inf")
    x = torch.tensor([[inf, 0.0], [-inf, 0.0]], requires_grad=True)
    t, kwargs = torch.tensor([0, 0]), {}
    if case == "inf_weights":
        x = torch.ones(2, 2, requires_grad=True)
        t, kwargs = torch.tensor([0, 1]), {"weight": torch.tensor([inf, -inf])}
    elif case == "overflow":
        x = torch.full((3, 4), -3e38, requires_grad=True)
        t = torch.tensor([0, 1, 2])
    ctx, caught = _kernel_filters_only()
    try:
        loss = F.nll_loss(x, t, reduction=reduction, **kwargs)
        loss.sum().backward()
        if reduction == "sum":
            loss.grad_fn  # noqa: B018
    finally:
        ctx.__exit__(None, None, None)
    assert not [str(w.message) for w in caught]


def test_softmax_backward_over_a_leading_dim_warns_nothing():
    inf = float("inf")
    x = torch.tensor([[inf, 1.0], [-inf, 2.0], [float("nan"), 1.0]], requires_grad=True)
    g = torch.tensor([[inf, -inf], [1.0, 1.0], [-inf, inf]])
    ctx, caught = _kernel_filters_only()
    try:
        F.softmax(x, 0).backward(g)
    finally:
        ctx.__exit__(None, None, None)
    assert not [str(w.message) for w in caught]
    assert torch.isnan(x.grad).all()  # (the sums are nan, as torch's)


# --- mse_loss ---


@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("dtype", DTYPES, ids=str)
@pytest.mark.parametrize(
    "layout", ["plain", "target_grad", "target_only", "same", "transposed", "big", "1d"]
)
def test_mse_loss_one_node_matches_the_full_path(layout, dtype, reduction):
    shape = (64, 300) if layout == "big" else (7,) if layout == "1d" else (8, 16)
    x = randn(*shape, dtype=dtype).requires_grad_()
    t = randn(*shape, dtype=dtype, seed=1)
    if layout == "target_grad":
        t.requires_grad_()
    elif layout == "target_only":
        x.requires_grad_(False)
        t.requires_grad_()
    elif layout == "same":
        t = x
    elif layout == "transposed":
        x = randn(16, 8, dtype=dtype).t().requires_grad_()
    res = compare(lambda x, t: F.mse_loss(x, t, reduction=reduction), (x, t))
    assert res["graph"][0] == "MseLossBackward0"
    assert res["graph"][2]["_saved_reduction"] == {"none": 0, "mean": 1, "sum": 2}[reduction]


@pytest.mark.parametrize(
    "case",
    [
        lambda x, t: F.mse_loss(x, t.to(torch.float64)),  # mixed dtypes: the composite
        lambda x, t: F.mse_loss(x, t[0]),  # broadcast (warns)
        lambda x, t: F.mse_loss(x.half(), t.half()),
        lambda x, t: F.mse_loss(x[:0], t[:0]),
        lambda x, t: F.mse_loss(x, t, size_average=False),
        lambda x, t: torch.nn.MSELoss()(x, t),
        lambda x, t: F.mse_loss(x * float("inf"), t),
    ],
)
@pytest.mark.filterwarnings("ignore::UserWarning")
def test_mse_loss_other_calls(case):
    compare(case, (randn(4, 5).requires_grad_(), randn(4, 5, seed=1)))


def test_mse_loss_without_grad_and_saved_values():
    x, t = randn(4, 5), randn(4, 5, seed=1)
    compare(F.mse_loss, (x, t))
    x.requires_grad_()
    loss = F.mse_loss(x, t, reduction="sum")
    assert loss.grad_fn._saved_self is x and loss.grad_fn._saved_target is t
    assert loss.grad_fn._saved_reduction == 2
    t.add_(1)
    with pytest.raises(RuntimeError, match=r"\[torch.FloatTensor \[4, 5\]\] is at version 1"):
        loss.grad_fn._saved_target  # noqa: B018
    assert loss.grad_fn._saved_self is x  # (only the tensor read is checked)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        loss.backward()
    loss = F.mse_loss(x, t)
    loss.backward()
    with pytest.raises(RuntimeError, match="backward through the graph a second"):
        loss.grad_fn._saved_self  # noqa: B018
    assert loss.grad_fn._saved_reduction == 1


def test_mse_loss_gradcheck():
    x = randn(3, 4, dtype=torch.float64).requires_grad_()
    t = randn(3, 4, dtype=torch.float64, seed=1).requires_grad_()
    for reduction in REDUCTIONS:
        fn = lambda x, t, r=reduction: F.mse_loss(x, t, reduction=r)  # noqa: E731
        assert torch.autograd.gradcheck(fn, (x, t))
        assert torch.autograd.gradgradcheck(fn, (x, t))


# --- binary_cross_entropy_with_logits ---

_WEIGHT = torch.linspace(0.5, 1.5, 5)


@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("dtype", DTYPES, ids=str)
@pytest.mark.parametrize("layout", ["labels", "soft", "target_grad", "target_only", "big", "1d"])
def test_bce_with_logits_one_node_matches_the_full_path(layout, dtype, reduction):
    shape = (64, 300) if layout == "big" else (7,) if layout == "1d" else (8, 16)
    x = randn(*shape, dtype=dtype, scale=30.0 if layout == "big" else 2.0).requires_grad_()
    t = (randn(*shape, dtype=dtype, seed=1) > 0).to(dtype)
    if layout != "labels":
        t = torch.rand(shape, generator=torch.Generator().manual_seed(2), dtype=dtype)
    if layout in ("target_grad", "target_only"):
        t.requires_grad_()
        x.requires_grad_(layout == "target_grad")
    make = lambda x, t: F.binary_cross_entropy_with_logits(x, t, reduction=reduction)  # noqa: E731
    res = compare(make, (x, t))
    assert res["graph"][0] == "BinaryCrossEntropyWithLogitsBackward0"
    assert res["graph"][2]["_saved_weight"] is None
    assert res["graph"][2]["_saved_pos_weight"] is None


@pytest.mark.parametrize(
    "case",
    [
        lambda x, t: F.binary_cross_entropy_with_logits(x, t.double()),  # mixed: the composite
        lambda x, t: F.binary_cross_entropy_with_logits(x, t, weight=_WEIGHT),
        lambda x, t: F.binary_cross_entropy_with_logits(x, t, pos_weight=_WEIGHT),
        lambda x, t: F.binary_cross_entropy_with_logits(x.t(), t.t()),  # column-major
        lambda x, t: F.binary_cross_entropy_with_logits(x.half(), t.half()),
        lambda x, t: F.binary_cross_entropy_with_logits(x[:0], t[:0]),
        lambda x, t: torch.nn.BCEWithLogitsLoss()(x, t),
    ],
)
def test_bce_with_logits_other_calls(case):
    x = randn(4, 5).requires_grad_()
    compare(case, (x, (randn(4, 5, seed=1) > 0).float()))


def test_bce_with_logits_infinite_logits_warn_nothing():
    inf = float("inf")
    x = torch.tensor([inf, -inf, float("nan"), 1.0], requires_grad=True)
    t = torch.tensor([1.0, 0.0, 0.0, 1.0])
    ctx, caught = _kernel_filters_only()
    try:
        for reduction in REDUCTIONS:
            F.binary_cross_entropy_with_logits(x, t, reduction=reduction).sum().backward()
    finally:
        ctx.__exit__(None, None, None)
    assert not [str(w.message) for w in caught]
    compare(F.binary_cross_entropy_with_logits, (x, t))


def test_bce_with_logits_gradcheck():
    x = randn(3, 4, dtype=torch.float64).requires_grad_()
    t = torch.rand(3, 4, generator=torch.Generator().manual_seed(1), dtype=torch.float64)
    t.requires_grad_()
    for reduction in REDUCTIONS:
        fn = lambda x, t, r=reduction: F.binary_cross_entropy_with_logits(x, t, reduction=r)  # noqa: E731
        assert torch.autograd.gradcheck(fn, (x, t))
        assert torch.autograd.gradgradcheck(fn, (x, t))


# --- softmax of a few rows, recorded ---


@pytest.mark.parametrize("dim", [0, 1, -1])
@pytest.mark.parametrize("dtype", DTYPES, ids=str)
@pytest.mark.parametrize("fn", [F.softmax, F.log_softmax])
@pytest.mark.parametrize("shape", [(3, 4), (40, 4), (4,), (2, 3, 5)])
def test_recorded_softmax_matches_the_kernel(shape, fn, dtype, dim):
    if dim >= len(shape):
        pytest.skip("no such dim")
    x = randn(*shape, dtype=dtype).requires_grad_()
    out = fn(x, dim)
    d = dim % len(shape)
    if fn is F.softmax:  # the kernel's general route
        want = nn_kernels.Softmax.kernel(np, x.detach().numpy(), d)
    else:
        want = nn_kernels.LogSoftmax.kernel(np, x.detach().numpy(), d, True)
    same_array(bits(out), want, "value")
    with torch.no_grad():
        again = fn(x, dim)  # (the no-grad fast path: the same kernel)
    same_array(bits(out), bits(again), "no-grad value")
    compare(lambda x: fn(x, dim), (x,))


def test_bce_with_logits_weighted_backward_warns_nothing():
    # the data-level backward's -x * weight at an infinite logit of weight 0: nan, silently
    x = torch.tensor([-float("inf"), 1.0], requires_grad=True)
    t = torch.tensor([1.0, 0.0], requires_grad=True)
    ctx, caught = _kernel_filters_only()
    try:
        F.binary_cross_entropy_with_logits(x, t, weight=torch.tensor([0.0, 1.0])).backward()
    finally:
        ctx.__exit__(None, None, None)
    assert not [str(w.message) for w in caught]
    assert torch.isnan(t.grad[0]) and not torch.isnan(t.grad[1])
