"""Edge cases of reductions where minitorch once differed from torch: quantile's q range and
infinite data, linalg.norm's string orders, empty negative-order norms, sum/nansum out= dtypes,
nanmean's dtype check."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest

import minitorch as torch

inf = math.inf


@pytest.mark.parametrize("fn", [torch.quantile, torch.nanquantile])
@pytest.mark.parametrize("q", [[-0.1, 0.5], [0.5, 1.5], [math.nan]])
def test_quantile_tensor_q_out_of_range_raises(fn, q):
    x = torch.tensor([1.0, 2.0, 3.0])
    with pytest.raises(RuntimeError, match=r"quantile\(\) q values must be in the range \[0, 1\]"):
        fn(x, torch.tensor(q))


def test_quantile_infinite_data_uses_lerp_from_nearer_end():
    r = torch.quantile(torch.tensor([-inf, 0.0, 1.0, inf]), torch.tensor([0.1, 0.3, 0.9]))
    np.testing.assert_array_equal(r.numpy(), np.array([math.nan, -inf, math.nan], "float32"))
    r = torch.quantile(torch.tensor([1.0, 2.0, inf]), torch.tensor([0.7, 0.9]))
    np.testing.assert_array_equal(r.numpy(), np.array([inf, math.nan], "float32"))
    r = torch.quantile(
        torch.tensor([-inf, 0.0, 1.0, inf]),
        torch.tensor([0.1, 0.5, 0.9]),
        interpolation="midpoint",
    )
    np.testing.assert_array_equal(r.numpy(), np.array([-inf, 0.5, math.nan], "float32"))


def test_quantile_lerp_gradients():
    x = torch.tensor([0.3, -1.2, 2.5, 0.7, 1.1], dtype=torch.float64, requires_grad=True)
    q = torch.tensor([0.1, 0.45, 0.8], dtype=torch.float64)
    assert torch.autograd.gradcheck(lambda a: torch.quantile(a, q), (x,))
    assert torch.autograd.gradgradcheck(lambda a: torch.quantile(a, q), (x,))


@pytest.mark.parametrize(
    "call, msg",
    [
        (
            lambda: torch.linalg.norm(torch.ones(3), "fro"),
            "linalg.matrix_norm: The input tensor A must have at least 2 dimensions.",
        ),
        (
            lambda: torch.linalg.norm(torch.ones(2, 3), "nuc", dim=-1),
            "linalg.matrix_norm: dim must be a 2-tuple. Got -1",
        ),
        (
            lambda: torch.linalg.norm(torch.ones(2, 3), "fro", dim=(0,)),
            "linalg.matrix_norm: dim must be a 2-tuple. Got 0",
        ),
        (
            lambda: torch.linalg.norm(torch.ones(2, 3, 4), None, dim=(0, 1, 2)),
            "linalg.norm: If dim is specified, it must be of length 1 or 2. Got [0, 1, 2]",
        ),
        (
            lambda: torch.linalg.norm(torch.ones(3), "bad"),
            "linalg.matrix_norm: Order bad not supported.",
        ),
    ],
)
def test_linalg_norm_string_ord_errors(call, msg):
    with pytest.raises(RuntimeError) as e:
        call()
    assert str(e.value) == msg


def test_linalg_norm_string_ord_values_unchanged():
    a = torch.tensor([[3.0, 4.0], [0.0, 0.0]])
    np.testing.assert_allclose(torch.linalg.norm(a, "fro").numpy(), 5.0)
    np.testing.assert_allclose(torch.linalg.norm(a).numpy(), 5.0)
    np.testing.assert_allclose(torch.linalg.norm(a, dim=1).numpy(), [5.0, 0.0])


@pytest.mark.parametrize(
    "call, where",
    [
        (lambda: torch.linalg.vector_norm(torch.zeros(0), -2), "-2 norm on an empty tensor"),
        (lambda: torch.linalg.vector_norm(torch.zeros(0), -0.5), "-0.5 norm on an empty tensor"),
        (lambda: torch.zeros(0, 3).norm(-1), "-1 norm on an empty tensor"),
        (lambda: torch.linalg.norm(torch.zeros(0), -1), "-1 norm on an empty tensor"),
        (
            lambda: torch.linalg.vector_norm(torch.zeros(3, 0), -1, dim=-1),
            "-1 norm on the dimension -1because this dimension is empty",
        ),
        (
            lambda: torch.linalg.vector_norm(torch.zeros(0, 3), -inf, dim=(1, 0)),
            "-inf norm on the dimension 0because this dimension is empty",
        ),
    ],
)
def test_negative_order_norm_of_empty_raises(call, where):
    with pytest.raises(RuntimeError) as e:
        call()
    assert str(e.value).startswith(f"linalg.vector_norm cannot compute the {where}")
    assert str(e.value).endswith("the operation does not have an identity")


def test_negative_order_norm_over_nonempty_dim_of_empty_tensor():
    assert torch.linalg.vector_norm(torch.zeros(0, 3), -1, dim=1).shape == (0,)
    np.testing.assert_array_equal(torch.linalg.vector_norm(torch.zeros(0, 3), 1).numpy(), 0.0)


def test_sum_out_computes_in_out_dtype():
    x = torch.tensor([[0.4, 0.7], [0.4, 0.7], [0.4, 0.7]])
    o = torch.empty(0, dtype=torch.long)
    torch.sum(x, 0, out=o)
    np.testing.assert_array_equal(o.numpy(), [0, 0])
    o = torch.empty(0, dtype=torch.float64)
    torch.sum(x, 0, out=o)
    expect = np.array([[0.4, 0.7]] * 3, "float32").astype("float64").sum(0)
    np.testing.assert_array_equal(o.numpy(), expect)
    o = torch.empty(0, dtype=torch.float16)
    torch.sum(x, 0, out=o)
    np.testing.assert_array_equal(o.numpy(), np.array([1.19921875, 2.1015625], "float16"))


def test_nansum_out_computes_in_out_dtype():
    x = torch.tensor([[0.4, math.nan], [0.4, 0.7], [0.4, 0.7]])
    o = torch.empty(0, dtype=torch.float64)
    torch.nansum(x, 0, out=o)
    expect = np.array([0.4, 0.4, 0.4], "float32").astype("float64").sum()
    np.testing.assert_array_equal(o.numpy()[0], expect)
    with pytest.raises(NotImplementedError, match="not implemented for 'Long'"):
        torch.nansum(x, 0, out=torch.empty(0, dtype=torch.long))


@pytest.mark.parametrize("dtype", [torch.float64, torch.int32])
def test_nanmean_int_input_with_dtype_raises_naming_input(dtype):
    x = torch.tensor([1, 2], dtype=torch.int8)
    with pytest.raises(RuntimeError) as e:
        torch.nanmean(x, dtype=dtype)
    assert str(e.value) == (
        "nanmean(): expected input to have floating point or complex dtype but got Char"
    )


# --- inf + -inf sums to nan without NumPy's RuntimeWarning (NOTE [ Reductions call the ufunc ]) ---


def _under_minitorch_filter_only(fn):
    """Runs fn with every warning an error except what minitorch's own import-time filter
    ignores (the kernels' RuntimeWarnings), as in a script without filters of its own."""
    with warnings.catch_warnings():
        warnings.resetwarnings()
        warnings.simplefilter("error")
        warnings.filterwarnings("ignore", category=RuntimeWarning, module=torch._KERNEL_MODULES)
        return fn()


@pytest.mark.parametrize(
    "name",
    [
        "sum",
        "mean",
        "nansum",
        "nanmean",
        "var",
        "std",
        "var_mean",
        "std_mean",
        "cumsum",
        "layer_norm",
    ],
)
def test_sums_of_opposite_infinities_are_quiet_nan(name):
    x = torch.tensor([[inf, -inf, 1.0], [2.0, 0.0, 0.5]], requires_grad=True)
    calls = {
        "cumsum": lambda: torch.cumsum(x, 1),
        "layer_norm": lambda: torch.nn.functional.layer_norm(x, (3,)),
        "var_mean": lambda: torch.var_mean(x, 1)[0],
        "std_mean": lambda: torch.std_mean(x, 1)[0],
    }
    call = calls.get(name, lambda: getattr(torch, name)(x, 1))
    out = _under_minitorch_filter_only(call)
    row0 = out.detach().numpy()[0]
    assert np.isnan(row0[-1] if name == "cumsum" else row0).all(), out
    assert np.isfinite(out.detach().numpy()[1]).all(), out
