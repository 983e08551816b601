"""Session 47's softmax and cross entropy calls: the common recorded softmax / log_softmax
(common_softmax records Softmax's or LogSoftmax's node without _prepare's checks) and the
common recorded nll_loss (NOTE [ The common recorded nll_loss ]: every row counted, NllLoss's
node marked `common`, its data-level backward writing -g directly). Each gives what the full
path (the fast paths' switch off, as a profile) gives, bit for bit: values, first and second
order gradients, grad_fn names, edges and _saved_* values, errors. Each test also checks that
the route it means was taken, so that it fails if the route is gone."""

import numpy as np
import pytest

import minitorch as torch
from minitorch._ops import nn_kernels
from tests._fastpath import both, error_of, full_path
from tests.test_s46_loss import compare, randn, same_array

F = torch.nn.functional

DTYPES = (torch.float32, torch.float64)
REDUCTIONS = ("mean", "sum", "none")

SOFTMAXES = {
    "F.softmax": lambda x, d: F.softmax(x, d),
    "F.log_softmax": lambda x, d: F.log_softmax(x, dim=d),
    "torch.softmax": lambda x, d: torch.softmax(x, d),
    "torch.log_softmax": lambda x, d: torch.log_softmax(x, d),
    "method.softmax": lambda x, d: x.softmax(d),
    "method.log_softmax": lambda x, d: x.log_softmax(d),
}
SHAPE_DIMS = [((3, 4), -1), ((3, 4), 0), ((40, 7), 1), ((2, 3, 5), -2), ((2, 3, 5), 2), ((5,), 0)]


# --- softmax and log_softmax recorded ---


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
@pytest.mark.parametrize("shape_dim", SHAPE_DIMS, ids=str)
@pytest.mark.parametrize("name", list(SOFTMAXES))
def test_recorded_softmax_matches_the_full_path(name, shape_dim, dtype):
    shape, dim = shape_dim
    fn = SOFTMAXES[name]
    x = randn(*shape, dtype=dtype).requires_grad_()
    res = compare(lambda x: fn(x, dim), (x,))
    node, edges, saved = res["graph"]
    log = "log" in name
    assert node == ("LogSoftmaxBackward0" if log else "SoftmaxBackward0")
    assert edges == ("AccumulateGrad",)
    assert saved["_saved_dim"] == dim % 2**64  # as given, read unsigned, as torch's
    # and the no-grad call of the same input, on both routes
    with torch.no_grad():
        same_array(*(t.numpy() for t in both(lambda: fn(x, dim))), name)


def test_recorded_softmax_takes_the_common_route(monkeypatch):
    x = randn(3, 4).requires_grad_()
    calls = []
    orig = nn_kernels._prepare
    monkeypatch.setattr(nn_kernels, "_prepare", lambda *a, **k: calls.append(a) or orig(*a, **k))
    torch.softmax(x, -1)
    torch.log_softmax(x, 1)
    x.softmax(0)
    assert calls == []  # the common recorded call skips _prepare
    with full_path():
        torch.softmax(x, -1)
    assert len(calls) == 1


@pytest.mark.parametrize("name", list(SOFTMAXES))
def test_recorded_softmax_other_calls_take_the_full_path(name):
    """Inputs the common route leaves alone: half, integer dims as bools, a 0-d input, a
    dim out of range, an int64 input; each gives the full path's result or error."""
    fn = SOFTMAXES[name]
    x = randn(3, 4).requires_grad_()
    for case in (
        lambda: fn(randn(3, 4, dtype=torch.float16).requires_grad_(), -1),
        lambda: fn(randn(dtype=torch.float64).requires_grad_(), 0),
        lambda: fn(x, True),
        lambda: fn(x, 2),
        lambda: fn(x, -3),
        lambda: fn(torch.arange(6).reshape(2, 3), 1),
        lambda: fn(torch.arange(6.0).reshape(2, 3).requires_grad_(), 1.0),
    ):
        fast = _outcome(case)
        with full_path():
            full = _outcome(case)
        assert fast[0] == full[0]
        if fast[0] == "value":
            same_array(fast[1], full[1], name)
            assert fast[2] == full[2]
        else:
            assert fast[1] == full[1]


def _outcome(fn):
    try:
        out = fn()
    except Exception:  # noqa: BLE001 (compared by type and message)
        return ("error", error_of(fn))
    name = None if out.grad_fn is None else type(out.grad_fn).__name__
    return ("value", out.detach().numpy().copy(), name)


def test_recorded_softmax_special_values_and_upstream_zeros():
    """Rows of -inf, +inf and nan, and upstream gradients of signed zeros (NOTE [ Signed zeros
    of softmax backward ]): the same bits on both routes, as a plain backward too."""
    inf, nan = float("inf"), float("nan")
    for dtype in DTYPES:
        data = [[1.0, -inf, 2.0, 3.0], [-inf, -inf, -inf, -inf], [inf, 1.0, 0.0, 2.0]]
        data += [[nan, 1.0, 2.0, 3.0], [0.0, 0.0, 0.0, 0.0]]
        g = torch.tensor(
            [[-0.0] * 4, [0.0, -0.0, 0.0, -0.0], [1.0, -0.0, 2.0, 0.5], [-0.0] * 4, [-0.0] * 4],
            dtype=dtype,
        )
        for fn in (F.softmax, F.log_softmax):
            got = []
            for route in (None, full_path):
                x = torch.tensor(data, dtype=dtype, requires_grad=True)
                if route is None:
                    y = fn(x, -1)
                else:
                    with route():
                        y = fn(x, -1)
                y.backward(g)
                got.append((y.detach().numpy().copy(), x.grad.numpy().copy()))
            for a, b in zip(got[0], got[1], strict=True):
                same_array(a, b, fn.__name__)


def test_recorded_softmax_under_inference_and_no_grad_records_nothing():
    x = randn(3, 4).requires_grad_()
    with torch.no_grad():
        assert torch.softmax(x, -1).grad_fn is None
    with torch.inference_mode():
        y = F.log_softmax(x, -1)
        assert y.grad_fn is None and y.is_inference()
    assert F.log_softmax(x, -1).grad_fn is not None


# --- cross_entropy and nll_loss recorded: the common node ---

TARGET = [0, 3, 1, 1, 2, 0]


@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("dtype", DTYPES, ids=str)
@pytest.mark.parametrize("ignore_index", [-100, -1, 4, 10**9])
@pytest.mark.parametrize("loss", ["cross_entropy", "nll_loss"])
def test_common_recorded_nll_matches_the_full_path(loss, ignore_index, dtype, reduction):
    x = randn(6, 4, dtype=dtype).requires_grad_()
    t = torch.tensor(TARGET)
    fn = getattr(F, loss)
    res = compare(lambda x, t: fn(x, t, reduction=reduction, ignore_index=ignore_index), (x, t))
    assert res["graph"][0] == "NllLossBackward0"
    out = fn(x, t, reduction=reduction, ignore_index=ignore_index)
    assert out.grad_fn.common is True  # the route of NOTE [ The common recorded nll_loss ]
    with full_path():
        out = fn(x, t, reduction=reduction, ignore_index=ignore_index)
    assert out.grad_fn.common is False


@pytest.mark.parametrize("shape", [(1, 3), (40, 10), (300, 2)])
def test_common_recorded_nll_shapes(shape):
    n, c = shape
    g = torch.Generator().manual_seed(5)
    t = torch.randint(0, c, (n,), generator=g)
    for dtype in DTYPES:
        x = randn(n, c, dtype=dtype, seed=n).requires_grad_()
        for reduction in REDUCTIONS:
            compare(lambda x, t: F.cross_entropy(x, t, reduction=reduction), (x, t))  # noqa: B023
        compare(lambda x, t: torch.nn.CrossEntropyLoss()(x, t), (x, t))


def test_common_recorded_nll_an_ignore_index_in_range_keeps_the_general_node():
    x = randn(6, 4).requires_grad_()
    t = torch.tensor(TARGET)
    assert F.cross_entropy(x, t, ignore_index=2).grad_fn.common is False
    assert F.cross_entropy(x, t, ignore_index=0).grad_fn.common is False
    assert F.cross_entropy(x, t).grad_fn.common is True


def _grads(make, x, g, **kw):
    x.grad = None
    make().backward(g, **kw)
    return x.grad.numpy().copy()


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
def test_common_recorded_nll_upstream_gradients(dtype):
    """Upstream gradients of another dtype, of inf or nan, of -0., broadcast ('none' loss
    .sum() backward), and a backward run twice (retain_graph): the full path's bits."""
    x = randn(6, 4, dtype=dtype).requires_grad_()
    t = torch.tensor(TARGET)
    other = torch.float64 if dtype is torch.float32 else torch.float32
    inf, nan = float("inf"), float("nan")
    cases = [
        ("mean", torch.tensor(2.5, dtype=dtype)),
        ("mean", torch.tensor(inf, dtype=dtype)),
        ("sum", torch.tensor(nan, dtype=dtype)),
        ("sum", torch.tensor(-0.0, dtype=dtype)),
        ("none", randn(6, dtype=dtype, seed=4)),
        ("none", torch.tensor([0.0, -0.0, inf, -inf, nan, 1.0], dtype=dtype)),
        ("none", randn(12, dtype=dtype, seed=4)[::2]),  # a strided gradient
    ]
    for reduction, g in cases:
        for gg in (g, g.to(other)):

            def make(reduction=reduction):
                return F.cross_entropy(x, t, reduction=reduction)

            fast = _outcome_grad(make, x, gg)
            with full_path():
                full = _outcome_grad(make, x, gg)
            assert fast[0] == full[0], (reduction, gg)
            if fast[0] == "value":
                same_array(fast[1], full[1], reduction)
            else:
                assert fast[1] == full[1]
    # a 'none' loss reduced by .sum(): its gradient arrives broadcast
    a = _grads(lambda: F.cross_entropy(x, t, reduction="none").sum(), x, None)
    with full_path():
        b = _grads(lambda: F.cross_entropy(x, t, reduction="none").sum(), x, None)
    same_array(a, b, "broadcast")
    # twice through one graph
    loss = F.cross_entropy(x, t)
    x.grad = None
    loss.backward(retain_graph=True)
    loss.backward()
    a = x.grad.numpy().copy()
    with full_path():
        loss = F.cross_entropy(x, t)
        x.grad = None
        loss.backward(retain_graph=True)
        loss.backward()
    same_array(a, x.grad.numpy(), "twice")


def _outcome_grad(make, x, g):
    try:
        return ("value", _grads(make, x, g))
    except Exception:  # noqa: BLE001 (compared by type and message)
        return ("error", error_of(lambda: _grads(make, x, g)))


def test_common_recorded_nll_saved_values_and_errors():
    x = randn(6, 4).requires_grad_()
    for reduction, total in (("mean", 6.0), ("sum", 6.0), ("none", 0.0)):
        loss = F.cross_entropy(x, torch.tensor(TARGET), reduction=reduction)
        fn = loss.grad_fn
        assert fn.common is True
        assert fn._saved_total_weight.item() == total
        assert fn._saved_total_weight.dtype is torch.float32
        assert fn._saved_weight is None
        assert fn._saved_ignore_index == 2**64 - 100
        assert fn._saved_reduction == {"none": 0, "mean": 1, "sum": 2}[reduction]
        same_array(fn._saved_self.detach().numpy(), F.log_softmax(x, 1).detach().numpy(), "self")
        np.testing.assert_array_equal(fn._saved_target.numpy(), TARGET)
    # a target changed in place: the same error as the full path's
    messages = []
    for route in (None, full_path):
        t = torch.tensor(TARGET)
        if route is None:
            loss = F.cross_entropy(x, t)
        else:
            with route():
                loss = F.cross_entropy(x, t)
        t.add_(0)
        with pytest.raises(RuntimeError, match="modified by an inplace operation") as e:
            loss.backward()
        messages.append(str(e.value))
    assert messages[0] == messages[1]


def test_common_recorded_nll_second_order_through_the_node():
    """create_graph: the gradient's own graph (NllLoss's Tensor-level backward) is the full
    path's, and differentiates to the same bits."""
    for dtype in DTYPES:
        got = []
        for route in (None, full_path):
            x = randn(6, 4, dtype=dtype).requires_grad_()
            t = torch.tensor(TARGET)
            if route is None:
                loss = F.cross_entropy(x, t)
            else:
                with route():
                    loss = F.cross_entropy(x, t)
            (gx,) = torch.autograd.grad(loss, x, create_graph=True)
            (ggx,) = torch.autograd.grad((gx * gx).sum(), x)
            got.append((gx.detach().numpy().copy(), ggx.numpy().copy(), type(gx.grad_fn)))
        same_array(got[0][0], got[1][0], "grad")
        same_array(got[0][1], got[1][1], "second")
        assert got[0][2] is got[1][2]


# --- cross_entropy without a node: the small rows' reductions inlined ---


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
@pytest.mark.parametrize("shape", [(6, 4), (1, 3), (31, 10), (32, 10), (300, 7)], ids=str)
def test_plain_cross_entropy_matches_the_full_path(shape, dtype):
    n, c = shape
    t = torch.randint(0, c, (n,), generator=torch.Generator().manual_seed(n))
    inf, nan = float("inf"), float("nan")
    x = randn(n, c, dtype=dtype, seed=c, scale=30.0)
    special = x.clone()
    special[0, 0] = -inf
    special[-1, :] = nan if n > 1 else inf
    for a in (x, special, x.t().contiguous().t()):  # (a column-major one: the general route)
        for reduction in REDUCTIONS:
            for ignore_index in (-100, c):
                fast, full = both(
                    lambda: F.cross_entropy(a, t, reduction=reduction, ignore_index=ignore_index)  # noqa: B023
                )
                same_array(fast.numpy(), full.numpy(), (reduction, ignore_index))
