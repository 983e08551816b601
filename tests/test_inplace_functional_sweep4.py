"""Sweep 4 of in-place variants and rare nn.functional ops: module paths, gradients at the
branch points of the exponential activations, errors torch raises, and node names."""

import math

import pytest

import minitorch as torch
import minitorch.nn.functional as F
from minitorch.autograd import gradcheck, gradgradcheck


def _name(t):
    return type(t.grad_fn).__name__


# --- nn.modules paths ---


def test_torch_module_paths_for_instancenorm_fold_channelshuffle():
    from minitorch.nn.modules.channelshuffle import ChannelShuffle
    from minitorch.nn.modules.fold import Fold, Unfold
    from minitorch.nn.modules.instancenorm import (
        InstanceNorm1d,
        InstanceNorm2d,
        LazyInstanceNorm3d,
        _InstanceNorm,
    )

    assert (
        InstanceNorm1d is torch.nn.InstanceNorm1d
        and LazyInstanceNorm3d is torch.nn.LazyInstanceNorm3d
    )
    assert issubclass(InstanceNorm2d, _InstanceNorm)
    assert (Fold, Unfold, ChannelShuffle) == (
        torch.nn.Fold,
        torch.nn.Unfold,
        torch.nn.ChannelShuffle,
    )
    assert torch.nn.modules.instancenorm.__all__[0] == "InstanceNorm1d"


# --- pdist p=0 ---


def test_pdist_p0_gives_zero_gradient_and_nan_for_nan():
    x = torch.tensor([[0.0, 1.0, 2.0], [1.0, 1.0, 0.0], [3.0, 0.0, 2.0]], requires_grad=True)
    d = F.pdist(x, p=0)
    assert d.tolist() == [2.0, 2.0, 3.0]
    d.sum().backward()
    assert x.grad is not None and x.grad.tolist() == [[0.0] * 3] * 3
    nan, inf = float("nan"), float("inf")
    v = F.pdist(torch.tensor([[nan, 0.0], [0.0, 0.0], [inf, 1.0]]), p=0).tolist()
    assert math.isnan(v[0]) and math.isnan(v[1]) and v[2] == 2.0


# --- elu family / softplus: branch points ---


_ELUS = [F.elu, F.selu, lambda t: F.celu(t, 0.5)]


@pytest.mark.parametrize("f", _ELUS)
def test_elu_family_second_derivative_zero_at_zero(f):
    x = torch.tensor([0.0, -1.0], dtype=torch.float64, requires_grad=True)
    (g,) = torch.autograd.grad(f(x).sum(), x, create_graph=True)
    (g2,) = torch.autograd.grad(g.sum(), x)
    assert g2[0].item() == 0.0 and g2[1].item() > 0
    y = torch.tensor([-1.3, -0.2, 0.4, 1.1], dtype=torch.float64, requires_grad=True)
    assert gradcheck(f, (y,)) and gradgradcheck(f, (y,))


@pytest.mark.parametrize(
    ("f", "slope"), [(F.elu, 1.0), (F.selu, 1.0507009873554805), (F.celu, 1.0)]
)
def test_elu_family_gradient_at_nan_takes_linear_branch(f, slope):
    for create_graph in (False, True):
        x = torch.tensor([float("nan"), 2.0], dtype=torch.float64, requires_grad=True)
        (g,) = torch.autograd.grad(f(x).sum(), x, create_graph=create_graph)
        assert g.tolist() == pytest.approx([slope, slope])


def test_softplus_second_derivative_zero_at_threshold():
    x = torch.tensor([2.5, 2.0], dtype=torch.float64, requires_grad=True)  # beta * 2.5 == 5
    (g,) = torch.autograd.grad(F.softplus(x, beta=2, threshold=5).sum(), x, create_graph=True)
    s = 1 / (1 + math.exp(-5.0))
    assert g[0].item() == pytest.approx(s)  # first derivative there: the sigmoid branch
    (g2,) = torch.autograd.grad(g.sum(), x)
    s4 = 1 / (1 + math.exp(-4.0))
    assert g2.tolist() == pytest.approx([0.0, 2 * s4 * (1 - s4)])


# --- errors torch raises ---


def test_rrelu_bound_checks():
    x = torch.randn(2, 3)
    for training in (False, True):
        with pytest.raises(RuntimeError, match="Lower bound should be less than or equal"):
            F.rrelu(x, 0.5, 0.1, training=training)
    with pytest.raises(RuntimeError, match="rrelu: lower bound must be finite, got nan"):
        F.rrelu(x, float("nan"), 0.2)
    with pytest.raises(RuntimeError, match="rrelu: upper bound must be finite, got inf"):
        F.rrelu(x, 0.1, float("inf"), training=True)


def test_glu_refuses_non_float():
    with pytest.raises(NotImplementedError, match="\"glu_cpu\" not implemented for 'Long'"):
        F.glu(torch.tensor([1, 2]))
    with pytest.raises(RuntimeError, match="Halving dimension must be even"):  # checked first
        F.glu(torch.tensor([1]))


def test_interpolate_recompute_with_size_and_infinite_scale():
    x = torch.randn(1, 2, 4, 5)
    with pytest.raises(ValueError, match="recompute_scale_factor is not meaningful"):
        F.interpolate(x, size=3, recompute_scale_factor=True)
    for sf in (float("inf"), float("nan"), 1e30, (2.0, float("inf"))):
        with pytest.raises(RuntimeError, match="cannot be converted to type int64_t"):
            F.interpolate(x, scale_factor=sf)
    with pytest.raises(OverflowError):  # torch floors in Python here
        F.interpolate(x, scale_factor=float("inf"), recompute_scale_factor=True)
    assert F.interpolate(x, scale_factor=1.5).shape == (1, 2, 6, 7)


def test_copy_and_mask_shape_errors_name_the_mismatch():
    msg = "tensor a \\({}\\) must match the size of tensor b \\({}\\) at non-singleton dimension {}"
    with pytest.raises(RuntimeError, match=msg.format(3, 4, 0)):
        torch.zeros(3, 4).copy_(torch.ones(4, 4))
    with pytest.raises(RuntimeError, match=msg.format(2, 3, 1)):
        torch.zeros(5, 2, 4).copy_(torch.ones(3, 1))
    with pytest.raises(RuntimeError, match=msg.format(4, 3, 0)):  # the mask is tensor a
        torch.masked_select(torch.zeros(3, 4), torch.ones(4, 4, dtype=torch.bool))
    with pytest.raises(RuntimeError, match=msg.format(4, 3, 0)):
        torch.zeros(3, 4).masked_scatter(torch.ones(4, 4, dtype=torch.bool), torch.ones(16))
    with pytest.raises(
        RuntimeError,
        match="tensor \\(3\\) must match the existing size \\(4\\) at non-singleton dimension 0",
    ):
        torch.zeros(3, 4).masked_scatter_(torch.ones(4, 4, dtype=torch.bool), torch.ones(16))
    with pytest.raises(RuntimeError, match="expanded size of the tensor \\(1\\)"):
        torch.zeros(3, 1).masked_scatter_(torch.ones(3, 4, dtype=torch.bool), torch.ones(16))
    y = torch.zeros(3, 4).masked_scatter_(
        torch.tensor([True, False, True, False]), torch.arange(12.0)
    )
    assert y[1].tolist() == [2.0, 0.0, 3.0, 0.0]


def test_hardtanh_unsigned_with_negative_limits():
    u = torch.tensor([0, 1, 2], dtype=torch.uint8)
    with pytest.raises(
        RuntimeError, match="cannot do hardtanh on an unsigned type with negative limits"
    ):
        F.hardtanh_(u)
    with pytest.raises(RuntimeError, match="unsigned type with negative limits"):
        F.hardtanh(u)
    assert F.hardtanh(u, 0.0, 1.0).tolist() == [0, 1, 1]


def test_uniform_bounds_checks():
    with pytest.raises(RuntimeError, match="to is out of bounds for float"):
        torch.zeros(2).uniform_(0, float("inf"))
    with pytest.raises(RuntimeError, match="from is out of bounds for float"):
        torch.zeros(2).uniform_(-1e39, 0)
    with pytest.raises(RuntimeError, match="to is out of bounds for c10::Half"):
        torch.zeros(2, dtype=torch.float16).uniform_(0, 1e5)
    with pytest.raises(
        RuntimeError, match="numeric_limits<Double>::max\\(\\), but found to=1e\\+308"
    ):
        torch.zeros(2, dtype=torch.float64).uniform_(-1e308, 1e308)
    v = torch.zeros(100, dtype=torch.float64).uniform_(-2, 3)
    assert -2 <= v.min().item() and v.max().item() < 3


# --- node names ---


def test_tensor_overload_node_names():
    x = torch.ones(3, requires_grad=True)
    idx = torch.tensor([0])
    assert _name((x * 1).index_fill_(0, idx, torch.tensor(2.0))) == "IndexFillBackward1"
    assert _name((x * 1).index_fill(0, idx, torch.tensor(2.0))) == "IndexFillBackward1"
    assert _name((x * 1).index_fill(0, idx, 2.0)) == "IndexFillBackward0"
    assert _name((x * 1).polygamma_(1)) == "PolygammaBackward1"
    assert _name((x * 1).polygamma(1)) == "PolygammaBackward0"
    for op in ("eq", "ne", "lt", "le", "gt", "ge"):
        cap = op.capitalize()
        assert _name(getattr(x * 1, op + "_")(x * 2)) == cap + "Backward1"
        assert _name(getattr(x * 1, op + "_")(torch.tensor(2.0))) == cap + "Backward1"
        assert _name(getattr(x * 1, op + "_")(2.0)) == cap + "Backward0"
    y = x * 1
    y.lt_(x * 2).sum().backward()
    assert x.grad.tolist() == [0.0, 0.0, 0.0]


# --- out= dtype strictness ---


def test_out_must_have_input_dtype():
    a = torch.arange(6.0).reshape(2, 3)
    f64 = torch.float64
    expected = "Expected out tensor to have dtype float, but got double instead"
    with pytest.raises(RuntimeError, match=expected):
        torch.tril(a, out=torch.empty(2, 3, dtype=f64))
    with pytest.raises(RuntimeError, match=expected):
        torch.triu(a, out=torch.empty(2, 3, dtype=f64))
    i = torch.zeros(2, 1, dtype=torch.long)
    with pytest.raises(RuntimeError, match=expected):
        torch.gather(a, 1, i, out=torch.empty(2, 1, dtype=f64))
    with pytest.raises(RuntimeError, match="dtype long int, but got float instead"):
        torch.tril(torch.ones(2, 2, dtype=torch.long), out=torch.empty(2, 2))
    with pytest.raises(
        RuntimeError, match="index_select\\(\\): self and result must have the same"
    ):
        torch.index_select(a, 0, torch.tensor([1]), out=torch.empty(1, 3, dtype=f64))
    with pytest.raises(
        RuntimeError, match="masked_select\\(\\): self and result must have the same"
    ):
        torch.masked_select(a, a > 2, out=torch.empty(0, dtype=f64))
    out = torch.empty(2, 3)
    assert torch.tril(a, out=out) is out and out.tolist() == [[0.0, 0.0, 0.0], [3.0, 4.0, 0.0]]
    assert torch.gather(a, 1, i, out=torch.empty(2, 1)).tolist() == [[0.0], [3.0]]
