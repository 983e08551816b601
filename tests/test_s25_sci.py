"""Session 25 (sci): fixes found by scientific-computing programs run against torch, with torch's
values and messages as literals: trapezoid / cumulative_trapezoid with an `x` of another rank
than `y`, and linalg.solve_triangular's argument checks."""

import numpy as np
import pytest

import minitorch as torch
from minitorch.autograd import gradcheck, gradgradcheck


def _msg(fn):
    with pytest.raises(Exception) as e:
        fn()
    return type(e.value).__name__, str(e.value)


# --- trapezoid: torch slices x at y's (wrapped) dim, after viewing a lower-rank x with leading
# ones; a 1-D x of the wrong length gets torch's short message ---


@pytest.mark.parametrize("op", ["trapezoid", "cumulative_trapezoid"])
def test_trapezoid_1d_x_length_message(op):
    f = getattr(torch, op)
    assert _msg(lambda: f(torch.ones(5), torch.ones(4))) == (
        "RuntimeError",
        f"{op}: There must be one `x` value for each sample point",
    )


def test_trapezoid_lower_rank_x_slices_y_dim():
    y = torch.arange(30.0, dtype=torch.float64).reshape(2, 3, 5) / 7
    x = torch.tensor([[0.0, 1, 3, 4, 7], [0, 2, 3, 5, 6], [1, 2, 3, 4, 5]], dtype=torch.float64)
    # x viewed as (1, 3, 5): along dim 0 it has no widths, so the integral is 0 (torch's values)
    out = torch.trapezoid(y, x, dim=0)
    assert out.shape == (3, 5)
    np.testing.assert_array_equal(out.numpy(), np.zeros((3, 5)))
    assert torch.cumulative_trapezoid(y, x, dim=0).shape == (0, 3, 5)
    want = [
        [1.0714285714285714, 0.5, 0.0, -0.7142857142857143, -2.5714285714285716],
        [3.2142857142857144, 2.642857142857143, 0.0, -0.7142857142857143, -6.857142857142858],
    ]
    np.testing.assert_allclose(torch.trapezoid(y, x, dim=1).numpy(), want, rtol=1e-12)


@pytest.mark.parametrize("op", ["trapezoid", "cumulative_trapezoid"])
def test_trapezoid_higher_rank_x_broadcast_errors(op):
    f = getattr(torch, op)
    # torch slices the (4, 3, 5) x at y's dim 1 (not x's last dim): the shapes then disagree
    assert _msg(lambda: f(torch.ones(3, 5), torch.ones(4, 3, 5), dim=-1)) == (
        "RuntimeError",
        "The size of tensor a (4) must match the size of tensor b (5) at non-singleton dimension 2",
    )
    assert _msg(lambda: f(torch.ones(3, 5), torch.ones(2, 3, 5), dim=0)) == (
        "RuntimeError",
        "The size of tensor a (2) must match the size of tensor b (3) at non-singleton dimension 1",
    )


@pytest.mark.parametrize("op", ["trapezoid", "cumulative_trapezoid"])
@pytest.mark.parametrize("dim", [0, 1])
def test_trapezoid_lower_rank_x_gradients(op, dim):
    f = getattr(torch, op)
    rs = np.random.RandomState(0)
    y = torch.from_numpy(rs.randn(2, 3, 4)).requires_grad_(True)
    x = torch.from_numpy(np.cumsum(rs.rand(3, 4), axis=1)).requires_grad_(True)
    # torch's value: widths of x viewed as (1, 3, 4), taken along y's dim (none along dim 0)
    yn, xn = y.detach().numpy(), x.detach().numpy()[None]
    pair = np.take(yn, range(1, yn.shape[dim]), dim) + np.take(yn, range(yn.shape[dim] - 1), dim)
    areas = pair * np.diff(xn, axis=dim) / 2
    want = areas.sum(dim) if op == "trapezoid" else np.cumsum(areas, axis=dim)
    np.testing.assert_allclose(f(y, x, dim=dim).detach().numpy(), want, rtol=1e-12)
    assert gradcheck(lambda a, b: f(a, b, dim=dim), (y, x))
    assert gradgradcheck(lambda a, b: f(a, b, dim=dim), (y, x))


# --- linalg.solve_triangular: `upper` is required (scipy users expect lower=False by default),
# and the flags are bools, in torch's parser's words ---


def test_solve_triangular_missing_upper():
    A, B = torch.eye(2, dtype=torch.float64), torch.ones(2, 1, dtype=torch.float64)
    assert _msg(lambda: torch.linalg.solve_triangular(A, B)) == (
        "TypeError",
        'linalg_solve_triangular() missing 1 required positional arguments: "upper"',
    )
    T = torch.tensor([[2.0, 1.0], [0.0, 4.0]], dtype=torch.float64)
    B = torch.tensor([[3.0], [8.0]], dtype=torch.float64)
    np.testing.assert_allclose(
        torch.linalg.solve_triangular(T, B, upper=True).numpy(), [[0.5], [2.0]], rtol=1e-15
    )
    np.testing.assert_allclose(
        torch.linalg.solve_triangular(T.mT, B.mT, upper=False, left=False).numpy(),
        [[0.5, 2.0]],
        rtol=1e-15,
    )


@pytest.mark.parametrize(
    "kw, want",
    [
        ({"upper": None}, "argument 'upper' must be bool, not NoneType"),
        ({"upper": 1}, "argument 'upper' must be bool, not int"),
        ({"upper": True, "left": torch.tensor(True)}, "argument 'left' must be bool, not Tensor"),
        ({"upper": True, "unitriangular": 0}, "argument 'unitriangular' must be bool, not int"),
    ],
)
def test_solve_triangular_flags_are_bools(kw, want):
    A, B = torch.eye(2, dtype=torch.float64), torch.ones(2, 1, dtype=torch.float64)
    assert _msg(lambda: torch.linalg.solve_triangular(A, B, **kw)) == (
        "TypeError",
        f"linalg_solve_triangular(): {want}",
    )
