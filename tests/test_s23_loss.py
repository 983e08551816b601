"""Session 23 loss fuzzing against torch 2.13: kl_div's legacy size_average/reduce pair with
reduction='batchmean' (torch still divides by the batch size), multilabel_margin_loss's CPU
dtype check and the order of its target checks."""

from __future__ import annotations

import warnings

import pytest

import minitorch
import minitorch.nn.functional as F
from minitorch.autograd import gradcheck, gradgradcheck

# --- kl_div: the legacy pair with reduction='batchmean' ---

_KL_X = [[-1.0, -2.0], [-0.5, -0.1], [-3.0, -1.0]]
_KL_T = [[0.2, 0.8], [0.5, 0.5], [0.0, 1.0]]


@pytest.mark.parametrize(
    "size_average, reduce, expected, grad",
    [
        # 'none' by the pair, then divided by the batch size (3): torch's values
        (
            False,
            False,
            [
                [-0.04062919416227336, 0.47382838631621077],
                [-0.03219119675999088, -0.09885786342665755],
                [0.0, 0.3333333333333333],
            ],
            [[-0.06666666666666667, -0.26666666666666666], [-0.16666666666666666] * 2,
             [-0.0, -0.3333333333333333]],
        ),
        (True, None, 0.10591391088343706,
         [[-0.011111111111111112, -0.044444444444444446], [-0.027777777777777776] * 2,
          [-0.0, -0.05555555555555555]]),
        (False, None, 0.6354834653006224,
         [[-0.06666666666666667, -0.26666666666666666], [-0.16666666666666666] * 2,
          [-0.0, -0.3333333333333333]]),
    ],
)  # fmt: skip
def test_kl_div_legacy_pair_with_batchmean_divides_by_batch(size_average, reduce, expected, grad):
    x = minitorch.tensor(_KL_X, dtype=minitorch.float64, requires_grad=True)
    t = minitorch.tensor(_KL_T, dtype=minitorch.float64)
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        out = F.kl_div(x, t, size_average, reduce, "batchmean")
    assert any("size_average and reduce args will be deprecated" in str(m.message) for m in w)
    if out.ndim == 0:
        assert out.item() == pytest.approx(expected, rel=1e-14)
    else:
        for row, exp in zip(out.tolist(), expected, strict=True):
            assert row == pytest.approx(exp, rel=1e-14)
    (g,) = minitorch.autograd.grad(out.sum(), x)
    for row, exp in zip(g.tolist(), grad, strict=True):
        assert row == pytest.approx(exp, rel=1e-14)

    def f(a):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return F.kl_div(a, t, size_average, reduce, "batchmean")

    assert gradcheck(f, (x,))
    assert gradgradcheck(f, (x,))


def test_kl_div_legacy_pair_with_batchmean_1d_and_0d():
    t = minitorch.tensor([0.2, 0.8], dtype=minitorch.float64)
    x = minitorch.tensor([-1.0, -2.0], dtype=minitorch.float64)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        # a 1-d input's "batch" is its length (torch: size(0))
        assert F.kl_div(x, t, False, None, "batchmean").item() == pytest.approx(
            0.6497987882309062, rel=1e-14
        )
        # a 0-d input is not divided
        out = F.kl_div(x[0], t[0], False, False, "batchmean")
        assert out.item() == pytest.approx(-0.12188758248682008, rel=1e-14)
        # an empty batch: torch's 0 / 0
        e = F.kl_div(x.reshape(2, 1)[:0], t.reshape(2, 1)[:0], False, None, "batchmean")
        assert e.isnan().item()


# --- multilabel_margin_loss: CPU dtypes, check order ---


@pytest.mark.parametrize("dtype, name", [("float16", "Half"), ("bfloat16", "BFloat16")])
def test_multilabel_margin_loss_half_not_implemented_on_cpu(dtype, name):
    dt = getattr(minitorch, dtype)
    msg = f"\"multilabel_margin_loss_forward_out_frame\" not implemented for '{name}'"
    target = minitorch.tensor([[0, -1, 0], [0, 1, 2]])
    with pytest.raises(NotImplementedError, match=msg):
        F.multilabel_margin_loss(minitorch.zeros(2, 3, dtype=dt), target)
    with pytest.raises(NotImplementedError, match=msg):
        F.multilabel_margin_loss(minitorch.zeros(3, dtype=dt), target[1])
    with pytest.raises(NotImplementedError, match=msg):  # (before the Long check)
        F.multilabel_margin_loss(minitorch.zeros(2, 3, dtype=dt), target.to(minitorch.int32))
    with pytest.raises(NotImplementedError, match=msg):
        minitorch.nn.MultiLabelMarginLoss()(minitorch.zeros(2, 3, dtype=dt), target)


def test_multilabel_margin_loss_range_check_before_dtype_checks():
    bad = minitorch.tensor([[0, -1, 0], [0, 1, 5]])
    for dt in (minitorch.float16, minitorch.float32):
        for tdt in (minitorch.int64, minitorch.int32, minitorch.float32):
            with pytest.raises(RuntimeError, match="argument #2 'target' is out of range"):
                F.multilabel_margin_loss(minitorch.zeros(2, 3, dtype=dt), bad.to(tdt))
    good = minitorch.tensor([[0, -1, 0], [0, 1, 2]], dtype=minitorch.float32)
    with pytest.raises(RuntimeError, match="expected scalar type Long but found Float"):
        F.multilabel_margin_loss(minitorch.zeros(2, 3), good)
    # float32 / float64 still compute (torch: 1/3)
    out = F.multilabel_margin_loss(minitorch.zeros(2, 3), good.long())
    assert out.item() == pytest.approx(0.3333333432674408, rel=1e-7)


# --- nll_loss / cross_entropy: torch's order of the target, weight and shape checks ---


@pytest.mark.parametrize("fn", [F.nll_loss, F.cross_entropy])
@pytest.mark.parametrize(
    "shape, t_shape, t_dtype, weight, exc, msg",
    [
        # the target's dtype before the 1-d size, the 0-d target and the spatial size checks
        ((4,), (2,), "int32", None, RuntimeError, "to be Long or Byte, but got Int"),
        ((4,), (2,), "float64", None, RuntimeError, "but got Double"),
        ((0, 4), (), "int32", None, RuntimeError, "but got Int"),
        ((3, 4, 2, 2), (3, 4, 2), "int32", None, RuntimeError, "but got Int"),
        # the weight's size before the spatial size and the Byte checks
        ((3, 4, 2, 2), (3, 4, 2), "int64", 3, RuntimeError, "defined either for all or no classes"),
        ((3, 4, 2), (3, 2), "uint8", 3, RuntimeError, "defined either for all or no classes"),
        # the weight's dtype before the spatial Byte check
        ((3, 4, 2), (3, 2), "uint8", "float32", RuntimeError, "type Double but found Float"),
        ((3, 4, 2, 2), (3, 2, 2), "uint8", "float32", RuntimeError, "but found Float"),
        # unchanged: the batch check first
        ((3, 4), (2,), "int32", None, ValueError, "Expected input batch_size \\(3\\)"),
    ],
)  # fmt: skip
def test_nll_check_order(fn, shape, t_shape, t_dtype, weight, exc, msg):
    x = minitorch.zeros(shape, dtype=minitorch.float64)
    t = minitorch.zeros(t_shape, dtype=getattr(minitorch, t_dtype))
    kw = {}
    if weight == "float32":
        kw["weight"] = minitorch.ones(shape[1])
    elif weight is not None:
        kw["weight"] = minitorch.ones(weight, dtype=minitorch.float64)
    with pytest.raises(exc, match=msg):
        fn(x, t, **kw)


# --- weighted mse / l1 / huber: torch's Python path ---

_RX = [[0.5, -1.0, 2.0], [1.5, 0.25, -0.75]]
_RT = [[0.0, -1.0, 1.0], [2.0, 1.0, 0.0]]
_RW = [[1.0, 2.0, 0.5], [0.0, 1.5, 3.0]]


@pytest.mark.parametrize("name", ["mse_loss", "l1_loss", "huber_loss"])
def test_weighted_regression_reduction_checked_as_torch(name):
    x = minitorch.tensor(_RX, dtype=minitorch.float64)
    t = minitorch.tensor(_RT, dtype=minitorch.float64)
    w = minitorch.tensor(_RW, dtype=minitorch.float64)
    msg = "Invalid reduction mode: elementwise_mean. Expected one of 'none', 'mean', 'sum'."
    with pytest.raises(ValueError, match=msg):  # (no deprecation alias on this path)
        getattr(F, name)(x, t, reduction="elementwise_mean", weight=w)
    with pytest.raises(ValueError, match="Invalid reduction mode: avg"):
        getattr(F, name)(x, t, reduction="avg", weight=w)
    if name != "huber_loss":  # the subtraction comes first: a bool target fails there
        with pytest.raises(RuntimeError, match="Subtraction, the `-` operator, with a bool"):
            getattr(F, name)(x, t.bool(), reduction="elementwise_mean", weight=w)


@pytest.mark.parametrize(
    "name, reduction, value, grad",
    [
        ("mse_loss", "mean", 0.41015625, [[0.125, 0.0, 0.125], [-0.0, -0.28125, -0.5625]]),
        ("mse_loss", "sum", 3.28125, [[1.0, 0.0, 1.0], [-0.0, -2.25, -4.5]]),
        ("l1_loss", "mean", 0.546875, [[0.125, 0.0, 0.0625], [-0.0, -0.1875, -0.375]]),
        ("l1_loss", "sum", 4.375, [[1.0, 0.0, 0.5], [-0.0, -1.5, -3.0]]),
        ("huber_loss", "mean", 0.2734375,
         [[0.08333333333333333, 0.0, 0.08333333333333333], [-0.0, -0.1875, -0.375]]),
        ("huber_loss", "sum", 1.640625, [[0.5, 0.0, 0.5], [-0.0, -1.125, -2.25]]),
    ],
)  # fmt: skip
def test_weighted_regression_values(name, reduction, value, grad):
    x = minitorch.tensor(_RX, dtype=minitorch.float64, requires_grad=True)
    t = minitorch.tensor(_RT, dtype=minitorch.float64)
    w = minitorch.tensor(_RW, dtype=minitorch.float64)
    out = getattr(F, name)(x, t, reduction=reduction, weight=w)
    assert out.item() == pytest.approx(value, rel=1e-15)
    (g,) = minitorch.autograd.grad(out, x)
    assert g.tolist() == grad


def test_weighted_mse_legacy_pair():
    x = minitorch.tensor(_RX, dtype=minitorch.float64)
    t = minitorch.tensor(_RT, dtype=minitorch.float64)
    w = minitorch.tensor(_RW, dtype=minitorch.float64)
    with pytest.warns(UserWarning, match="please use reduction='sum' instead"):
        assert F.mse_loss(x, t, False, None, weight=w).item() == 3.28125


def test_smooth_l1_beta_zero_bool_target_fails_at_subtraction():
    x = minitorch.tensor([0.5, 2.0])
    with pytest.raises(RuntimeError, match="Subtraction, the `-` operator, with a bool"):
        F.smooth_l1_loss(x, minitorch.tensor([True, False]), beta=0.0)
    # beta > 0 promotes (torch's smooth_l1 kernel): 0.8125 in float32
    assert F.smooth_l1_loss(x, minitorch.tensor([True, False])).item() == 0.8125


# --- poisson_nll_loss(full=True): the Stirling term added in place ---


def test_poisson_full_half_input_integer_counts_stays_half():
    x = minitorch.tensor([0.5, 1.5, 0.25], dtype=minitorch.float16)
    t = minitorch.tensor([0, 3, 5])
    out = F.poisson_nll_loss(x, t, full=True, reduction="none")
    assert out.dtype is minitorch.float16
    assert out.tolist() == [1.6484375, 1.744140625, 4.8046875]  # torch's
    out = F.poisson_nll_loss(x, t, log_input=False, full=True, reduction="sum")
    assert out.dtype is minitorch.float16 and out.item() == 14.5


# --- multilabel_margin_loss: a vector's target; multilabel_soft_margin_loss's check order ---


def test_multilabel_margin_loss_vector_input_refuses_matrix_target():
    for xs, ts in (((5,), (1, 5)), ((), (1, 1)), ((3,), (3, 1))):
        t = minitorch.zeros(ts, dtype=minitorch.int64)
        with pytest.raises(RuntimeError, match="inconsistent target size"):
            F.multilabel_margin_loss(minitorch.zeros(xs), t)
    for xs, ts in (((), ()), ((), (1,)), ((1,), ())):
        t = minitorch.zeros(ts, dtype=minitorch.int64)
        assert F.multilabel_margin_loss(minitorch.zeros(xs), t).item() == 0.0


def test_multilabel_soft_margin_loss_check_order():
    with pytest.raises(IndexError, match="Dimension specified as -1 but tensor has no dimensions"):
        F.multilabel_soft_margin_loss(minitorch.tensor(0.5), minitorch.tensor([1.0, 0.0]))
    # the shapes' broadcast error before the reduction's name
    with pytest.raises(RuntimeError, match="The size of tensor a \\(3\\) must match"):
        F.multilabel_soft_margin_loss(
            minitorch.zeros(3, 6), minitorch.zeros(3, 3), reduction="batchmean"
        )
    with pytest.raises(ValueError, match="batchmean is not valid"):
        F.multilabel_soft_margin_loss(
            minitorch.zeros(3, 6), minitorch.zeros(3, 6), reduction="batchmean"
        )


# --- ctc_loss: unbatched log_probs with lengths for several samples ---


def test_ctc_unbatched_lengths_of_wrong_size():
    lp = minitorch.randn(5, 4, generator=minitorch.Generator().manual_seed(0)).log_softmax(1)
    tg = minitorch.tensor([1, 2])
    t = minitorch.tensor
    for il, tl, which in (
        (t([5, 5, 5]), t(2), "input_lengths"),
        (t(5), t([2, 2]), "target_lengths"),
        (t([[5, 5]]), t([2]), "input_lengths"),
        (minitorch.zeros(0, dtype=minitorch.int64), t(2), "input_lengths"),
    ):
        with pytest.raises(RuntimeError, match=f"{which} must be of size batch_size"):
            F.ctc_loss(lp, tg, il, tl)
    for il, tl in ((t(5), t(2)), (t([5]), t([2])), (t([[5]]), t([[2]]))):
        assert F.ctc_loss(lp, tg, il, tl, reduction="none").shape == ()


# --- regression losses broadcast the pair first (torch's broadcast_tensors) ---


@pytest.mark.parametrize(
    "name, value, gx, gt",
    [
        ("mse_loss", 2.0625, [-0.5, 0.5, -1.5], 1.5),
        ("l1_loss", 1.25, [-0.333251953125, 0.333251953125, -0.333251953125], 0.3333333333333333),
        ("smooth_l1_loss", 0.7708333333333334, [-0.25, 0.25, -0.333251953125],
         0.3333333333333333),
    ],
)  # fmt: skip
def test_regression_0d_double_target_promotes_once_expanded(name, value, gx, gt):
    x = minitorch.tensor([0.5, 2.0, -1.0], dtype=minitorch.float16, requires_grad=True)
    t = minitorch.tensor(1.25, dtype=minitorch.float64, requires_grad=True)
    with pytest.warns(UserWarning, match="Using a target size"):
        out = getattr(F, name)(x, t)
    assert out.dtype is minitorch.float64  # torch's: the expanded target is no longer 0-d
    assert out.item() == pytest.approx(value, rel=1e-12)
    out.backward()
    assert x.grad.dtype is minitorch.float16 and x.grad.tolist() == gx
    assert t.grad.item() == pytest.approx(gt, rel=1e-12)


@pytest.mark.parametrize("name", ["mse_loss", "l1_loss", "smooth_l1_loss", "huber_loss"])
def test_regression_shape_error_before_reduction_check(name):
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        with pytest.raises(RuntimeError, match="The size of tensor a \\(3\\) must match"):
            getattr(F, name)(
                minitorch.zeros(3, 2), minitorch.zeros(6, 2), reduction="elementwise_mean"
            )
    # only the size warning: torch fails before it reads the reduction's name
    assert [str(m.message)[:19] for m in w] == ["Using a target size"]


@pytest.mark.parametrize(
    "name, none, mean",
    [("mse_loss", [6.75], 2.25), ("l1_loss", [4.5], 1.5), ("huber_loss", [3.0], 3.0)],
)
def test_weighted_regression_weight_matches_unexpanded_input(name, none, mean):
    x = minitorch.tensor(0.5, dtype=minitorch.float64)
    t = minitorch.tensor([2.0], dtype=minitorch.float64)
    w = minitorch.tensor(3.0, dtype=minitorch.float64)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert getattr(F, name)(x, t, reduction="none", weight=w).tolist() == none
        assert getattr(F, name)(x, t, weight=w).item() == mean
