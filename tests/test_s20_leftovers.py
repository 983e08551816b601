"""Session 20 leftovers: saved-tensor version checks (0-d scans, take, scatter_reduce), out=
resizing (narrow_copy, gather, take_along_dim), norm double backward at zero, float32
matrix_exp, LBFGS with a tensor lr, and the LinAlgError class name. Expected values are torch
2.13's, obtained by running it."""

from __future__ import annotations

import io
import math
import pickle
import warnings

import numpy as np
import pytest

import minitorch
from minitorch.autograd import gradcheck, gradgradcheck

_HINT = (
    " Hint: enable anomaly detection to find the operation that failed to compute its gradient, "
    "with torch.autograd.set_detect_anomaly(True, check_nan=False)."
)


def _modified(what: str, current: int = 1, expected: int = 0) -> str:
    return (
        "one of the variables needed for gradient computation has been modified by an inplace "
        f"operation: {what} is at version {current}; expected version {expected} instead." + _HINT
    )


def _raises_modified(fn, what: str):
    with pytest.raises(RuntimeError) as info:
        fn()
    assert str(info.value) == _modified(what)


# --- 1. version checks ---


@pytest.mark.parametrize("op", ["cummax", "cummin"])
def test_cum_extreme_0d_checks_indices_and_input(op):
    def indices_changed():
        x = minitorch.tensor(2.0, requires_grad=True)
        v, i = getattr(minitorch, op)(x * 1, 0)
        i.add_(1)
        v.backward()

    def input_changed():
        x = minitorch.tensor(2.0, requires_grad=True)
        y = x * 1
        v, _ = getattr(minitorch, op)(y, 0)
        y.mul_(2)
        v.backward()

    _raises_modified(indices_changed, "[torch.LongTensor []]")
    _raises_modified(input_changed, "[torch.FloatTensor []], which is output 0 of Mul,")


def test_cum_extreme_0d_node_and_gradient():
    x = minitorch.tensor(2.0, dtype=minitorch.float64, requires_grad=True)
    v, i = minitorch.cummax(x, 0)
    assert type(v.grad_fn).__name__ == "CummaxBackward0"
    assert i.tolist() == 0
    v.backward(retain_graph=True)
    assert x.grad.tolist() == 1.0
    v2 = minitorch.cummin(x, 0)[0]
    v2.backward()
    # torch's node saved the indices, freed by the first backward
    with pytest.raises(RuntimeError, match="Trying to backward through the graph a second time"):
        v2.backward()
    assert gradcheck(lambda t: minitorch.cummin(t, 0)[0], (x,))
    assert gradgradcheck(lambda t: minitorch.cummax(t, 0)[0] * t, (x,))


@pytest.mark.parametrize(
    "op, node", [(minitorch.cumprod, "Cumprod"), (minitorch.logcumsumexp, "Logcumsumexp")]
)
def test_scan_0d_saves_input_and_result(op, node):
    def result_changed():
        x = minitorch.tensor(2.0, requires_grad=True)
        v = op(x * 1, 0)
        v.add_(1)
        v.backward()

    def input_changed():
        x = minitorch.tensor(2.0, requires_grad=True)
        y = x * 1
        v = op(y, 0)
        y.add_(1)
        v.backward()

    _raises_modified(result_changed, f"[torch.FloatTensor []], which is output 0 of {node},")
    _raises_modified(input_changed, "[torch.FloatTensor []], which is output 0 of Add,")
    x = minitorch.tensor(-math.inf, requires_grad=True)
    y = op(x, 0)
    assert type(y.grad_fn).__name__ == node + "Backward0"
    (g,) = minitorch.autograd.grad(y, x, create_graph=True)
    assert g.tolist() == 1.0  # torch passes the gradient straight through, even at -inf
    x64 = minitorch.tensor(0.7, dtype=minitorch.float64, requires_grad=True)
    assert gradcheck(lambda t: op(t, 0), (x64,))
    assert gradgradcheck(lambda t: op(t, 0) * t, (x64,))
    if op is minitorch.cumprod:  # integers scan as int64; out= takes the 0-d result
        assert minitorch.cumprod(minitorch.tensor(3), 0).tolist() == 3
        assert minitorch.cumprod(minitorch.tensor(True), 0).dtype == minitorch.int64
        out = minitorch.empty(())
        minitorch.cumprod(minitorch.tensor(2.0), 0, out=out)
        assert out.tolist() == 2.0


@pytest.mark.parametrize("shape", [(), (3,), (2, 3)])
def test_take_checks_input(shape):
    def input_changed():
        x = minitorch.ones(shape, requires_grad=True)
        y = x * 1
        v = minitorch.take(y, minitorch.tensor([0, 0]))
        y.add_(1)
        v.sum().backward()

    _raises_modified(input_changed, f"[torch.FloatTensor {list(shape)}], which is output 0 of Add,")


@pytest.mark.parametrize("reduce", ["sum", "prod", "mean", "amax", "amin"])
def test_scatter_reduce_checks_index_first(reduce):
    def changed():
        x = minitorch.zeros(2, 3, requires_grad=True)
        y = x * 1
        idx = minitorch.tensor([[0, 1]])
        src = minitorch.ones(1, 2, requires_grad=True)
        r = minitorch.scatter_reduce(y, 1, idx, src, reduce)
        idx.add_(0)
        y.add_(0)  # torch names the index, not self
        r.sum().backward()

    _raises_modified(changed, "[torch.LongTensor [1, 2]]")
    # an index left alone: the gradients, to second order
    rng = np.random.default_rng(0)
    x = minitorch.tensor(rng.standard_normal((2, 3)), requires_grad=True)
    src = minitorch.tensor(rng.standard_normal((2, 2)) + 3.0, requires_grad=True)
    idx = minitorch.tensor([[0, 2], [1, 1]])
    fn = lambda a, s: minitorch.scatter_reduce(a, 1, idx, s, reduce)  # noqa: E731
    assert gradcheck(fn, (x, src))
    assert gradgradcheck(fn, (x, src))


# --- 2. out= resizing ---


def test_narrow_copy_resizes_out_silently():
    x = minitorch.arange(12.0).reshape(3, 4)
    for out in (minitorch.zeros(5), minitorch.zeros(2, 3), minitorch.zeros(20)[2:5]):
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            r = minitorch.narrow_copy(x, 1, 1, 2, out=out)
        assert r is out
        assert out.shape == (3, 2)
        assert out.tolist() == [[1.0, 2.0], [5.0, 6.0], [9.0, 10.0]]


def test_gather_resizes_out_before_overlap_check():
    x = minitorch.arange(12.0)
    ptr = x.data_ptr()
    with pytest.warns(UserWarning, match=r"had shape \[12\], which does not match .* \[3\]"):
        with pytest.raises(RuntimeError, match="refer to a single memory location"):
            minitorch.gather(x, 0, minitorch.tensor([0, 2, 4]), out=x)
    assert x.shape == (3,) and x.data_ptr() == ptr  # resized in place first, as torch's


@pytest.mark.parametrize("dim", [None, 1])
def test_take_along_dim_refuses_out_overlapping_input(dim):
    x = minitorch.arange(12.0).reshape(3, 4)
    idx = minitorch.tensor([0, 2]) if dim is None else minitorch.tensor([[0, 2]])
    with pytest.warns(UserWarning, match="was resized"):
        with pytest.raises(RuntimeError, match="refer to a single memory location"):
            minitorch.take_along_dim(x, idx, dim, out=x)
    assert x.shape == ((2,) if dim is None else (3, 2))


def test_take_along_dim_out_that_grows():
    x = minitorch.arange(4.0).reshape(1, 4)
    with pytest.warns(UserWarning, match="was resized"):
        r = minitorch.take_along_dim(x, minitorch.zeros(3, 4, dtype=minitorch.long), 1, out=x)
    assert r is x and x.tolist() == [[0.0] * 4] * 3


# --- 3. norm double backward at zero ---

_V = [1.0, 2.0, 3.0]
# torch's second derivative at a zero vector: NaN where its backward meets 0 * inf
_AT_ZERO = {0.5: True, -1: True, -2: True, 1.5: True, 2.5: True, 3: False, 4: False}


def test_vector_norm_gradgrad_at_zero():
    for ord, nan in _AT_ZERO.items():
        for norm in (minitorch.linalg.vector_norm, minitorch.linalg.norm):
            x = minitorch.zeros(3, dtype=minitorch.float64, requires_grad=True)
            (g,) = minitorch.autograd.grad(norm(x, ord), x, create_graph=True)
            (h,) = minitorch.autograd.grad((g * minitorch.tensor(_V, dtype=g.dtype)).sum(), x)
            assert g.tolist() == [0.0] * 3
            expected = [math.nan] * 3 if nan else [0.0] * 3
            np.testing.assert_array_equal(h.numpy(), expected, err_msg=f"ord={ord}")
    # p > 1, p != 2: torch zeroes the scaled gradient at a zero norm (a NaN upstream too);
    # p < 1: it multiplies, so NaN stays
    for ord, expected in ((1.5, 0.0), (3, 0.0), (0.5, math.nan)):
        x = minitorch.zeros(2, dtype=minitorch.float64, requires_grad=True)
        y = minitorch.linalg.vector_norm(x, ord)
        (g,) = minitorch.autograd.grad(y, x, minitorch.tensor(math.nan, dtype=y.dtype))
        np.testing.assert_array_equal(g.numpy(), [expected] * 2, err_msg=f"ord={ord}")


_ZERO_ELEMENT = {
    2.5: [math.nan, 1.4305525483882564, 0.7152762741941285],
    0.5: [math.nan, -2.474873734152916, -1.2374368670764584],
    1.5: [math.nan, 0.8264613140039041, 0.41323065700195194],
    3: [0.0, 1.4380826430976126, 0.7190413215488065],
    -1: [math.nan, 0.0, 0.0],
}


def test_vector_norm_gradgrad_with_a_zero_element():
    rng = np.random.default_rng(1)
    for ord, expected in _ZERO_ELEMENT.items():
        x = minitorch.tensor([0.0, 1.0, -2.0], dtype=minitorch.float64, requires_grad=True)
        (g,) = minitorch.autograd.grad(minitorch.linalg.vector_norm(x, ord), x, create_graph=True)
        (h,) = minitorch.autograd.grad((g * minitorch.tensor(_V, dtype=g.dtype)).sum(), x)
        np.testing.assert_allclose(h.numpy(), expected, rtol=1e-12, err_msg=f"ord={ord}")
        # away from zero the derivatives stay right
        x = minitorch.tensor(rng.standard_normal((2, 3)), requires_grad=True)
        fn = lambda t, o=ord: minitorch.linalg.vector_norm(t, o, dim=1)  # noqa: E731
        assert gradcheck(fn, (x,))
        assert gradgradcheck(fn, (x,))


# --- 4. matrix_exp in float32 ---


def test_matrix_exp_float32_rounds_float64_once():
    a = [[4.0, 1.0], [1.0, 3.0]]
    r = minitorch.linalg.matrix_exp(minitorch.tensor(a))
    assert r.dtype == minitorch.float32
    exact = np.array(
        [[76.28980484865924, 40.45875363809333], [40.45875363809333, 35.83105121056591]]
    )
    np.testing.assert_allclose(r.numpy(), exact, rtol=1e-7)  # the float32 Padé strayed 2.6e-6
    r64 = minitorch.linalg.matrix_exp(minitorch.tensor(a, dtype=minitorch.float64))
    np.testing.assert_array_equal(r.numpy(), r64.numpy().astype(np.float32))
    torch_f32 = [[76.28981018066406, 40.458744049072266], [40.45874786376953, 35.83103942871094]]
    np.testing.assert_allclose(r.numpy(), torch_f32, rtol=1e-6)


# --- 5. LBFGS with a tensor lr ---


def _lbfgs(lr, line_search_fn=None, steps=2):
    w = minitorch.nn.Parameter(minitorch.tensor([1.0, -2.0, 0.5]))
    opt = minitorch.optim.LBFGS([w], lr=lr, line_search_fn=line_search_fn)

    def closure():
        opt.zero_grad()
        loss = ((w - 3) ** 2).sum() + (w**4).sum() * 0.01
        loss.backward()
        return loss

    for _ in range(steps):
        opt.step(closure)
    return w, opt


@pytest.mark.parametrize("line_search_fn", [None, "strong_wolfe"])
def test_lbfgs_tensor_lr_state_t_is_the_lr(line_search_fn):
    lr = minitorch.tensor(0.5)
    w, opt = _lbfgs(lr, line_search_fn)
    t = opt.state[w]["t"]
    assert t is lr  # torch keeps the lr tensor itself as the last step length
    expected = {
        None: [2.6343438625335693, 2.634316921234131, 2.634340763092041],
        "strong_wolfe": [2.6343477, 2.6343307, 2.6343453],
    }[line_search_fn]
    np.testing.assert_allclose(w.detach().numpy(), expected, rtol=1e-6)
    squeezed = _lbfgs(minitorch.tensor([0.5]))[1]
    t = squeezed.state[squeezed.param_groups[0]["params"][0]]["t"]
    assert isinstance(t, minitorch.Tensor) and t.shape == () and t.dtype == minitorch.float32


def test_lbfgs_float64_tensor_lr_strong_wolfe_follows_torch():
    # torch's step lengths are then float64 tensors: its path differs from a float lr's
    w, opt = _lbfgs(minitorch.tensor(0.5, dtype=minitorch.float64), "strong_wolfe")
    st = opt.state[w]
    assert st["t"] == 0 and not isinstance(st["t"], minitorch.Tensor)
    assert st["func_evals"] == 35
    np.testing.assert_allclose(w.detach().numpy(), [2.6342807, 2.6341619, 2.6342635], rtol=1e-6)


def test_lbfgs_tensor_lr_state_dict_round_trip():
    lr = minitorch.tensor(0.5, dtype=minitorch.float64)
    w, opt = _lbfgs(lr)
    sd = opt.state_dict()
    assert sd["state"][0]["t"] is lr and sd["param_groups"][0]["lr"] is lr
    buf = io.BytesIO()
    minitorch.save(sd, buf)
    buf.seek(0)
    opt2 = minitorch.optim.LBFGS([w], lr=0.1)
    opt2.load_state_dict(minitorch.load(buf))
    t = opt2.state[w]["t"]
    assert isinstance(t, minitorch.Tensor) and t.dtype == minitorch.float32  # the param's dtype
    assert t.tolist() == 0.5
    assert opt2.param_groups[0]["lr"].dtype == minitorch.float64


# --- 6. LinAlgError ---


def test_linalg_error_class_is_named_as_torch():
    loc, cf = minitorch.zeros(2), minitorch.tensor([[1.0], [1.0]])
    d = minitorch.distributions.LowRankMultivariateNormal
    with pytest.raises(minitorch.linalg.LinAlgError) as info:
        d(loc, cf, minitorch.tensor([-0.5, -0.5])).log_prob(minitorch.zeros(2))
    cls = type(info.value)
    assert cls.__name__ == "_LinAlgError" and cls.__module__ == "minitorch._C"
    assert cls is minitorch._C._LinAlgError and issubclass(cls, RuntimeError)
    again = pickle.loads(pickle.dumps(info.value))
    assert type(again) is cls and str(again) == str(info.value)


def test_index_reduce_refuses_a_changed_index():
    x = minitorch.rand(4, 3, dtype=minitorch.float64, requires_grad=True)
    s = minitorch.rand(2, 3, dtype=minitorch.float64, requires_grad=True)
    i = minitorch.tensor([0, 2])
    y = x.index_reduce(0, i, s, "prod")
    i.add_(1)
    with pytest.raises(RuntimeError, match=r"\[torch.LongTensor \[2\]\] is at version 1; expected"):
        y.sum().backward()


def test_cat_out_overlapping_an_input_is_refused():
    msg = "some elements of the input tensor and the written-to tensor refer to a single memory"
    x, y = minitorch.zeros(0), minitorch.randn(4, 6)
    with pytest.raises(RuntimeError, match=msg):
        minitorch.cat((x, y), out=y)  # out is an input, as is
    with pytest.raises(RuntimeError, match=msg):
        minitorch.cat((x, y), out=x)  # out is an input, once resized
    with pytest.raises(RuntimeError, match=msg):
        minitorch.cat((y[:2], y[2:]), out=y[:4])
    assert minitorch.cat((x, x), out=x).shape == (0,)  # an empty result writes nothing
    out = minitorch.empty(0)
    assert minitorch.cat((y, y[:1]), out=out) is out and out.shape == (5, 6)


def test_rsub_refuses_a_number_first():
    with pytest.raises(TypeError, match=r"rsub\(\) received an invalid combination of arguments"):
        minitorch.rsub(2, minitorch.tensor([1, 2, 3]))
    assert minitorch.rsub(minitorch.tensor([1, 2, 3]), 2).tolist() == [1, 0, -1]


def test_inplace_on_an_expanded_view_of_a_leaf_gets_the_view_error_first():
    x = minitorch.randn(3, requires_grad=True)
    with pytest.raises(RuntimeError, match="a view of a leaf Variable that requires grad"):
        x.expand(2, 3).add_(1)
    with minitorch.no_grad(), pytest.raises(RuntimeError, match="more than one element"):
        x.expand(2, 3).add_(1)


@pytest.mark.parametrize(
    "key, name",
    [
        ("x[1:3]", "SliceBackwardBackward0"),
        ("x[:]", "SliceBackwardBackward0"),
        ("x[1]", "SelectBackwardBackward0"),
        ("x[1:3, 2]", "SliceBackwardBackward0"),
        ("x[2, 1:3]", "SelectBackwardBackward0"),
        ("x[None, 1]", "SqueezeBackward1"),
        ("x[:, None, 1:2]", "SqueezeBackward1"),
        ("x[i]", "IndexPutImplBackward0"),
        ("x[i, 1:]", "SliceBackwardBackward0"),
        ("x[x > 0.5]", "IndexPutImplBackward0"),
        ("x[...]", "NoneType"),
    ],
)
def test_index_double_backward_node_names(key, name):
    # torch's names for the node of an index's backward (the first view op's backward)
    x = minitorch.rand(5, 4, dtype=minitorch.float64, requires_grad=True)
    i = minitorch.tensor([0, 2, 2])  # noqa: F841 (read by eval)
    y = eval(key)
    g = minitorch.ones_like(y, requires_grad=True)
    (gx,) = minitorch.autograd.grad(y, x, g, create_graph=True)
    assert type(gx.grad_fn).__name__ == name
