"""torch's grad_fn names for the fused layer kernels (the name a printed layer output shows)."""

from __future__ import annotations

import pytest

import minitorch as mt
import minitorch.nn.functional as F


@pytest.mark.parametrize(
    "shape, bias, name",
    [
        ((4, 3), True, "AddmmBackward0"),
        ((4, 3), False, "MmBackward0"),
        ((2, 4, 3), True, "ViewBackward0"),
        ((2, 4, 3), False, "UnsafeViewBackward0"),
        ((3,), True, "ViewBackward0"),
        ((3,), False, "SqueezeBackward4"),
    ],
)
def test_linear_node_names(shape, bias, name):
    w = mt.ones(5, 3, requires_grad=True)
    b = mt.zeros(5, requires_grad=True) if bias else None
    out = F.linear(mt.ones(*shape), w, b)
    assert type(out.grad_fn).__name__ == name
    assert repr(out).endswith(f"grad_fn=<{name}>)")


def test_layer_norm_node_name():
    out = mt.nn.LayerNorm(3)(mt.ones(2, 3))
    assert type(out.grad_fn).__name__ == "NativeLayerNormBackward0"


def test_addmm_family_and_vector_matmul_node_names():
    m = mt.ones(2, 3, requires_grad=True)
    v = mt.ones(3, requires_grad=True)
    assert type(mt.addmm(mt.zeros(2, 2), m, m.t()).grad_fn).__name__ == "AddmmBackward0"
    assert type(mt.addmm(mt.zeros(2), m, m.t(), beta=0).grad_fn).__name__ == "AddmmBackward0"
    assert type(mt.addmv(mt.zeros(2), m, v).grad_fn).__name__ == "AddmvBackward0"
    assert type((v @ m.t()).grad_fn).__name__ == "SqueezeBackward4"
    assert type((m[None] @ v).grad_fn).__name__ == "UnsafeViewBackward0"
    # the renamed node is the composite's own: an input's node keeps its name
    x = mt.ones(2, 2, requires_grad=True) * 1
    assert type(mt.addmm(x, m, m.t(), alpha=0).grad_fn).__name__ == "AddmmBackward0"
    assert type(x.grad_fn).__name__ == "MulBackward0"


@pytest.mark.parametrize(
    "fn, name, slope",
    [
        (F.elu, "EluBackward1", 1.0),
        (F.selu, "EluBackward1", 1.0507009873554805),  # selu's scale
        (F.celu, "CeluBackward1", 1.0),
        (F.leaky_relu, "LeakyReluBackward1", 1.0),
    ],
)
def test_inplace_activation_node_names(fn, name, slope):
    x = mt.ones(3, requires_grad=True)
    y = x * 1
    fn(y, inplace=True)
    assert type(y.grad_fn).__name__ == name
    y.sum().backward()  # the renamed node still runs the activation's backward
    assert x.grad.tolist() == pytest.approx([slope] * 3)


@pytest.mark.parametrize(
    "make, name",
    [
        (lambda x: F.mse_loss(x, mt.zeros(2, 3, 4)), "MseLossBackward0"),
        (lambda x: F.binary_cross_entropy_with_logits(x, mt.ones(2, 3, 4)),
         "BinaryCrossEntropyWithLogitsBackward0"),
        (lambda x: F.batch_norm(x, None, None, training=True), "NativeBatchNormBackward0"),
        (lambda x: F.group_norm(x, 3), "NativeGroupNormBackward0"),
        (lambda x: F.pad(x, (1, 1)), "ConstantPadNdBackward0"),
        (lambda x: F.pad(x, (1, 1), mode="reflect"), "ReflectionPad1DBackward0"),
        (lambda x: F.interpolate(x, scale_factor=2), "UpsampleNearest1DBackward0"),
        (lambda x: F.nll_loss(x, mt.zeros(2, 4, dtype=mt.long)), "NllLoss2DBackward0"),
        (lambda x: F.embedding(mt.tensor([0, 1]), x[0]), "EmbeddingBackward0"),
    ],
)  # fmt: skip
def test_nn_composite_node_names(make, name):
    x = mt.ones(2, 3, 4, requires_grad=True)
    out = make(x)
    assert type(out.grad_fn).__name__ == name
    out.sum().backward()
    assert x.grad is not None and tuple(x.grad.shape) == (2, 3, 4)


def test_arithmetic_node_names():
    x = mt.ones(3, requires_grad=True)
    t = mt.zeros(3)
    names = {
        "ClampBackward1": x.clamp(0, 1),
        "ClampBackward0": x.clamp(t, t + 1),
        "ClampMinBackward0": x.clamp_min(0),
        "ClampMaxBackward1": mt.clamp_max(x, t),
        "RsubBackward1": 1 - x,
        "RsubBackward0": mt.rsub(x, t),
        "PowBackward2": 2**x,
    }
    for name, out in names.items():
        assert type(out.grad_fn).__name__ == name
    (2**x).sum().backward()
    assert x.grad.tolist() == pytest.approx([2 * 0.6931471805599453] * 3)


@pytest.mark.parametrize(
    "equation, shapes, name",
    [
        ("ij,jk->ik", [(2, 3), (3, 4)], "ViewBackward0"),  # contracted by bmm, viewed back
        ("ij,j->j", [(2, 3), (3,)], "ViewBackward0"),  # i summed at the last pair
        ("i,j->ij", [(2,), (3,)], "MulBackward0"),  # nothing summed: a broadcast multiply
        ("ij,jk,kl->ijkl", [(2, 3), (3, 4), (4, 5)], "MulBackward0"),
        ("ij,jk,kl->il", [(2, 3), (3, 4), (4, 5)], "ViewBackward0"),
        ("ij->ji", [(2, 3)], "PermuteBackward0"),
        ("ii->", [(3, 3)], "SumBackward1"),
    ],
)
def test_einsum_node_names(equation, shapes, name):
    ops = [mt.ones(*s, requires_grad=True) for s in shapes]
    assert type(mt.einsum(equation, *ops).grad_fn).__name__ == name


def test_tensordot_and_inner_end_in_a_view():
    # torch computes them as an mm between reshapes: the printed node is the final view
    a = mt.ones(2, 3, requires_grad=True)
    for out in (
        mt.tensordot(a, mt.ones(3, 4), 1),
        mt.tensordot(a, mt.ones(2, 3), 2),
        mt.inner(a, mt.ones(5, 3)),
    ):
        assert type(out.grad_fn).__name__ == "ViewBackward0"


def test_softmax_double_backward_node_name():
    a = mt.ones(2, 3, requires_grad=True)
    (g,) = mt.autograd.grad((F.softmax(a, 1) * mt.arange(3.0)).sum(), a, create_graph=True)
    assert type(g.grad_fn).__name__ == "SoftmaxBackwardDataBackward0"
