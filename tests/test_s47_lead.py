"""Session 47, lead: the node of a view regenerated after its base changed in place is torch's
AsStridedBackward0, showing the view's size, stride and storage offset and nothing of the ops
that made the view (NOTE [ The node of a regenerated view ])."""

from __future__ import annotations

import math

import pytest

import minitorch

VIEWS = {
    "slice": (lambda y: y[1:3], (2, 6), (6, 1), 6),
    "t_select": (lambda y: y.t()[0], (4,), (6,), 0),
    "flat_step": (lambda y: y.view(24)[3:9:2], (3,), (2,), 3),
    "transpose": (lambda y: y.transpose(0, 1), (6, 4), (1, 6), 0),
    "expand": (lambda y: y.expand(2, 4, 6), (2, 4, 6), (0, 6, 1), 0),
    "diagonal": (lambda y: y.diagonal(), (4,), (7,), 0),
    "column": (lambda y: y[:, 1], (4,), (6,), 1),
}


def _regenerated(make):
    x = minitorch.randn(4, 6, requires_grad=True)
    y = x * 1
    v = make(y)
    y.mul_(2)
    return x, v, v.grad_fn


@pytest.mark.parametrize("name", sorted(VIEWS))
def test_regenerated_view_node_shows_its_geometry(name):
    make, size, stride, offset = VIEWS[name]
    _, _, g = _regenerated(make)
    assert type(g).__name__ == "AsStridedBackward0"
    assert g._saved_size == size
    assert g._saved_stride == stride
    assert g._saved_storage_offset == offset
    saved = [a for a in dir(g) if a.startswith(("_saved_", "_raw_saved_"))]
    assert saved == ["_saved_size", "_saved_storage_offset", "_saved_stride"]


def test_replayed_ops_saved_values_are_hidden():
    _, _, g = _regenerated(lambda y: y[1:3])
    with pytest.raises(AttributeError, match="AsStridedBackward0.*_saved_dim"):
        g._saved_dim  # noqa: B018 (SliceBackward0's, not torch's AsStridedBackward0's)


def test_offset_counts_from_the_storage_and_survives_backward():
    big = minitorch.randn(10, 6, requires_grad=True)
    base = (big * 1)[2:8]
    v = base[1:3, 2:]
    base.mul_(2)
    g = v.grad_fn
    assert (g._saved_size, g._saved_stride, g._saved_storage_offset) == ((2, 4), (6, 1), 20)
    v.sum().backward()
    assert g._saved_size == (2, 4)  # sizes are not saved tensors: readable after backward
    assert big.grad.sum().item() == 16.0


def test_a_view_not_regenerated_keeps_its_own_node():
    y = minitorch.randn(4, 6, requires_grad=True) * 1
    v = y[1:3]
    assert type(v.grad_fn).__name__ == "SliceBackward0"
    assert v.grad_fn._saved_start == 1


# --- add/sub with a 0-d tensor alpha: rounded once, as with a number alpha --------------------
# torch's parser reads a 0-d tensor alpha as a number, and its kernel fuses alpha * other + input
# (one rounding). LBFGS's two-loop recursion (q.add_(y, alpha=-al[i]), al[i] a 0-d tensor) drifted
# from torch's in float32 when the product was rounded first.


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("n", [7, 5000])
def test_tensor_alpha_rounds_as_a_number_alpha(dtype, n):
    g = minitorch.Generator().manual_seed(n)
    dt = getattr(minitorch, dtype)
    x = minitorch.randn(n, generator=g, dtype=dt) * 100
    y = minitorch.randn(n, generator=g, dtype=dt) * 100
    for value in (0.780529797077179, -1.3e-3, 3):
        t = minitorch.tensor(value)  # float32 (or int64 for 3): read in x's dtype
        number = float(t.to(dt).item())
        cases = [
            (x.add(y, alpha=t), x.add(y, alpha=number)),
            (x.sub(y, alpha=t), x.sub(y, alpha=number)),
            (x.clone().add_(y, alpha=t), x.clone().add_(y, alpha=number)),
            (x.clone().sub_(y, alpha=t), x.clone().sub_(y, alpha=number)),
            (x.add(2.5, alpha=t), x.add(2.5, alpha=number)),
        ]
        for got, want in cases:
            assert got.dtype == want.dtype
            assert minitorch.equal(got, want)


def test_tensor_alpha_known_case_and_graph():
    q = minitorch.tensor([-499.5425109863281])
    y = minitorch.tensor([654.5425109863281])
    alpha = minitorch.tensor(0.780529797077179)
    # the product rounded first would give 11.347412109375
    assert q.add(y, alpha=alpha).item() == 11.347398757934570
    qg = q.clone().requires_grad_()
    out = qg.add(y, alpha=alpha)
    assert out.item() == 11.347398757934570
    assert type(out.grad_fn).__name__ == "AddBackward0"
    out.backward()
    assert qg.grad.item() == 1.0


# --- half-precision attention: the weights' rounding passes the gradient through ---------------


def _sdpa_grads(dt, causal, exact):
    g = minitorch.Generator().manual_seed(0)
    q, k, v = (minitorch.randn(2, 2, 5, 4, generator=g).to(dt) for _ in range(3))
    w = minitorch.randn(2, 2, 5, 4, generator=g).to(dt)
    if exact:  # the same half inputs, computed in float64
        q, k, v, w = (t.double() for t in (q, k, v, w))
    q, k, v = (t.requires_grad_() for t in (q, k, v))
    o = minitorch.nn.functional.scaled_dot_product_attention(q, k, v, is_causal=causal)
    (o * w).sum().backward()
    return [t.detach().double() for t in (o, q.grad, k.grad, v.grad)]


@pytest.mark.parametrize("causal", [False, True])
@pytest.mark.parametrize("name", ["bfloat16", "float16"])
def test_half_attention_gradients_are_not_rounded_twice(name, causal):
    # The forward rounds the attention weights to the half dtype for their product with v (as
    # torch's flash kernel); the backward works in float32. Rounding the weights' gradient too
    # put grad_k 3x further from the float64 result than torch's (bfloat16: 0.013 of its
    # largest value, torch 0.0045); now 0.0018.
    got = _sdpa_grads(getattr(minitorch, name), causal, False)
    want = _sdpa_grads(getattr(minitorch, name), causal, True)
    bound = {"bfloat16": 0.0035, "float16": 0.00045}[name]
    for x, y in zip(got[1:], want[1:], strict=True):
        assert ((x - y).abs().max() / y.abs().max()).item() < bound


def test_float_of_a_multi_element_tensor_requiring_grad_warns_first(monkeypatch):
    # torch warns (once per process) before its size error
    from minitorch import _settings

    seen = []
    monkeypatch.setattr(_settings, "warn_once", lambda key, *a, **k: seen.append(key))
    x = minitorch.tensor([1.0, 2.0], requires_grad=True)
    for convert in (float, complex):
        with pytest.raises(ValueError, match="only one element tensors"):
            convert(x)
    assert seen == ["scalar_of_grad", "scalar_of_grad"]


# --- number ** tensor: the gradient takes the log of the number itself ------------------------


def test_number_base_pow_gradient_logs_the_number_not_its_rounding():
    # 65535 rounds to inf in float16; torch's PowBackward2 multiplies by log(65535) = 11.09 (a
    # double), so 65535 ** 0 has the gradient 11.09 and 65535 ** -1.1 (0 in float16) 0, not nan
    t = minitorch.tensor([7.0, -1.1, 0.3, 0.0, -2.0], dtype=minitorch.float16, requires_grad=True)
    (65535**t).sum().backward()
    assert t.grad.tolist() == [float("inf"), 0.0, float("inf"), 11.09375, 0.0]
    # float32: out * float32(log(0.1)), not out * log(float32(0.1))
    x = minitorch.tensor([0.0, 1.0, -2.0], requires_grad=True)
    (0.1**x).sum().backward()
    out = 0.1 ** x.detach()
    assert minitorch.equal(x.grad, out * math.log(0.1))
    # 0 ** b: zero where b >= 0, as before
    z = minitorch.tensor([0.0, 2.0, -1.0], dtype=minitorch.float64, requires_grad=True)
    (0.0**z).sum().backward()
    assert z.grad.tolist()[:2] == [0.0, 0.0]
