"""Session-21 leftovers found by the fuzzers (h18): BCE-with-logits gradient accuracy, sort's
stable node name, broadcast_shapes / device('') / cholesky messages, strides of empty views.
Expected values are torch 2.13's, obtained by running it."""

import numpy as np
import pytest

import minitorch
from minitorch.autograd import gradcheck, gradgradcheck

F = minitorch.nn.functional


# --- binary_cross_entropy_with_logits: the logits' gradient is sigmoid(x) - t, computed stably

_X = [-40.0, -30.0, -13.8, -5.0, 0.0, 2.0, 30.0]
_T = [0.0, 0.0, 0.0, 0.3, 1.0, 0.5, 1.0]
_PW = [0.5, 2.0, 3.0, 1.5, 0.25, 4.0, 2.0]
_W = [1.0, 2.0, 0.5, 1.0, 3.0, 1.0, 2.0]
_BCE_GRADS = [  # (pos_weight, weight, reduction): torch's x.grad under an all-ones upstream
    (False, False, "sum", [4.248354255291589e-18, 9.357622968839299e-14, 1.015630439496253e-06,
                           -0.29330714907571515, -0.5, 0.3807970779778823,
                           -9.348077867343818e-14]),
    (True, False, "mean", [6.069077507559413e-19, 1.336803281262757e-14, 1.45090062785179e-07,
                           -0.06318617449101034, -0.017857142857142856, 0.028856099277815135,
                           -2.6708793906696624e-14]),
    (False, True, "sum", [4.248354255291589e-18, 1.8715245937678598e-13, 5.078152197481265e-07,
                          -0.29330714907571515, -1.5, 0.3807970779778823,
                          -1.8696155734687636e-13]),
    (True, True, "none", [4.248354255291589e-18, 1.8715245937678598e-13, 5.078152197481265e-07,
                          -0.44230322143707235, -0.375, 0.20199269494470595,
                          -3.739231146937527e-13]),
]  # fmt: skip


@pytest.mark.parametrize("use_pw, use_w, reduction, expected", _BCE_GRADS)
def test_bce_with_logits_grad_keeps_relative_accuracy(use_pw, use_w, reduction, expected):
    x = minitorch.tensor(_X, dtype=minitorch.float64, requires_grad=True)
    t = minitorch.tensor(_T, dtype=minitorch.float64)
    kw = {}
    if use_pw:
        kw["pos_weight"] = minitorch.tensor(_PW, dtype=minitorch.float64)
    if use_w:
        kw["weight"] = minitorch.tensor(_W, dtype=minitorch.float64)
    out = F.binary_cross_entropy_with_logits(x, t, reduction=reduction, **kw)
    assert type(out.grad_fn).__name__ == "BinaryCrossEntropyWithLogitsBackward0"
    out.backward(minitorch.ones_like(out))
    np.testing.assert_allclose(x.grad.numpy(), expected, rtol=1e-13, atol=0, err_msg=str(kw))


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_bce_with_logits_gradcheck(reduction):
    g = minitorch.Generator().manual_seed(0)
    x = (minitorch.randn(3, 4, dtype=minitorch.float64, generator=g) * 4).requires_grad_()
    t = minitorch.rand(3, 4, dtype=minitorch.float64, generator=g)
    pw = minitorch.rand(4, dtype=minitorch.float64, generator=g) + 0.5
    w = minitorch.rand(3, 4, dtype=minitorch.float64, generator=g) + 0.5
    for kw in ({}, {"pos_weight": pw}, {"weight": w, "pos_weight": pw}):

        def f(a, b, kw=kw):
            return F.binary_cross_entropy_with_logits(a, b, reduction=reduction, **kw)

        for target in (t, t.clone().requires_grad_()):
            assert gradcheck(f, (x, target))
            assert gradgradcheck(f, (x, target))


# --- sort: the `stable=` overload is torch's SortBackward1


def test_sort_stable_node_name():
    x = minitorch.tensor([3.0, 1.0, 2.0], requires_grad=True)
    names = [
        minitorch.sort(x, stable=True)[0].grad_fn,
        minitorch.sort(x, stable=False)[0].grad_fn,
        minitorch.sort(x, dim=0, descending=True, stable=None)[0].grad_fn,
        x.sort(stable=True)[0].grad_fn,
        minitorch.sort(x)[0].grad_fn,
        x.sort(0, True)[0].grad_fn,
        x.msort().grad_fn,
    ]
    got = [type(n).__name__ for n in names]
    assert got == ["SortBackward1"] * 4 + ["SortBackward0"] * 3
    v = minitorch.sort(x, stable=True, descending=True).values
    v.backward(minitorch.tensor([1.0, 2.0, 3.0]))
    np.testing.assert_array_equal(x.grad.numpy(), [1.0, 3.0, 2.0])


# --- broadcast_shapes: a shape shows as it was given


@pytest.mark.parametrize(
    "shapes, error, message",
    [
        (
            ((2,), minitorch.Size([3])),
            RuntimeError,
            "Attempting to broadcast a dimension of length 3 at -1! Mismatching argument at index "
            "1 had torch.Size([3]); but expected shape should be broadcastable to [2]",
        ),
        (
            ([1, 2], [3, 1], [4]),
            RuntimeError,
            "Attempting to broadcast a dimension of length 4 at -1! Mismatching argument at index "
            "2 had [4]; but expected shape should be broadcastable to [3, 2]",
        ),
        (((-1,),), ValueError, "Attempting to broadcast a dimension with negative length!"),
        (
            ((2,), (-1,)),
            RuntimeError,
            "Attempting to broadcast a dimension of length -1 at -1! Mismatching argument at index "
            "1 had (-1,); but expected shape should be broadcastable to [2]",
        ),
        (
            (2.0,),
            RuntimeError,
            "Input shapes should be of type ints, a tuple of ints, or a list of ints, got 2.0",
        ),
    ],
)
def test_broadcast_shapes_errors(shapes, error, message):
    with pytest.raises(error) as info:
        minitorch.broadcast_shapes(*shapes)
    assert str(info.value) == message


def test_broadcast_shapes_skips_none():
    assert minitorch.broadcast_shapes((2,), None) == minitorch.Size([2])
    assert minitorch.broadcast_shapes(None) == minitorch.Size([])
    assert minitorch.broadcast_shapes((2, 1), [1, 3], minitorch.Size([4, 1, 1])) == (4, 2, 3)


# --- device('')


@pytest.mark.parametrize(
    "call",
    [
        lambda: minitorch.device(""),
        lambda: minitorch.device("", 0),
        lambda: minitorch.zeros(2, device=""),
        lambda: minitorch.zeros(2).to(""),
    ],
)
def test_empty_device_string(call):
    with pytest.raises(RuntimeError) as info:
        call()
    assert str(info.value) == "Device string must not be empty"


# --- cholesky family: linalg.cholesky's messages, torch.cholesky's kernel error


def test_positive_definite_check_on_integers():
    constraints = minitorch.distributions.constraints
    with pytest.raises(RuntimeError) as info:
        constraints.positive_definite.check(minitorch.eye(2, dtype=minitorch.int64))
    assert str(info.value) == (
        "linalg.cholesky: Expected a floating point or complex tensor as input. Got Long"
    )


@pytest.mark.parametrize(
    "call, error, message",
    [
        (
            lambda: minitorch.linalg.cholesky_ex(minitorch.zeros(3)),
            RuntimeError,
            "linalg.cholesky: The input tensor A must have at least 2 dimensions.",
        ),
        (
            lambda: minitorch.linalg.cholesky_ex(minitorch.zeros(2, 3, dtype=minitorch.int64)),
            RuntimeError,
            "linalg.cholesky: A must be batches of square matrices, but they are 2 by 3 matrices",
        ),
        (
            lambda: minitorch.linalg.cholesky(minitorch.zeros(2, 3, dtype=minitorch.int64)),
            RuntimeError,
            "linalg.cholesky: A must be batches of square matrices, but they are 2 by 3 matrices",
        ),
        (
            lambda: minitorch.linalg.cholesky_ex(5),
            TypeError,
            "linalg_cholesky_ex(): argument 'input' (position 1) must be Tensor, not int",
        ),
        (
            lambda: minitorch.linalg.cholesky([[1.0]]),
            TypeError,
            "linalg_cholesky(): argument 'input' (position 1) must be Tensor, not list",
        ),
        (
            lambda: minitorch.cholesky(None),
            TypeError,
            "cholesky(): argument 'input' (position 1) must be Tensor, not NoneType",
        ),
        (
            lambda: minitorch.cholesky(minitorch.zeros(3)),
            RuntimeError,
            "cholesky: The input tensor A must have at least 2 dimensions.",
        ),
        (
            lambda: minitorch.cholesky(minitorch.zeros(2, 3)),
            RuntimeError,
            "cholesky: A must be batches of square matrices, but they are 2 by 3 matrices",
        ),
        (
            lambda: minitorch.cholesky(minitorch.eye(2, dtype=minitorch.int32)),
            NotImplementedError,
            "\"cholesky_cpu\" not implemented for 'Int'",
        ),
    ],
)
@pytest.mark.filterwarnings("ignore:torch.cholesky is deprecated")
def test_cholesky_messages(call, error, message):
    with pytest.raises(error) as info:
        call()
    assert str(info.value) == message


@pytest.mark.filterwarnings("ignore:torch.cholesky is deprecated")
def test_cholesky_of_empty_integer_matrix():
    out = minitorch.cholesky(minitorch.zeros(2, 0, 0, dtype=minitorch.int32))
    assert out.dtype == minitorch.int32 and out.shape == (2, 0, 0)


# --- strides of empty views: those of the view op, as torch's


@pytest.mark.parametrize(
    "make, shape, stride",
    [
        (lambda x: x[:, :0], (4, 0), (6, 1)),
        (lambda x: x[:, 1:1], (4, 0), (6, 1)),
        (lambda x: x[1:1, ::2], (0, 3), (6, 2)),
        (lambda x: x.narrow(1, 0, 0), (4, 0), (6, 1)),
        (lambda x: x.split([6, 0], 1)[1], (4, 0), (6, 1)),
        (lambda x: x.t()[:0], (0, 4), (1, 6)),
        (lambda x: x[:, :0].t(), (0, 4), (1, 6)),
        (lambda x: x[..., :0, None], (4, 0, 1), (6, 1, 1)),
        (lambda x: x[:1].expand(0, 6), (0, 6), (0, 1)),
        (lambda x: x.reshape(2, 2, 6)[:, :0, ::3], (2, 0, 2), (12, 6, 3)),
        (lambda x: minitorch.empty(1, 3).expand(0, 3), (0, 3), (0, 1)),
    ],
)
def test_empty_view_strides(make, shape, stride):
    t = make(minitorch.empty(4, 6))
    assert tuple(t.shape) == shape
    assert t.stride() == stride
    assert t.is_contiguous()
