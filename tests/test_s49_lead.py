"""Session 49, lead: `import minitorch` loads no numpy.random (the CPU stream's engine is made at
the first draw); sum and mean with a dim=None given are torch's dim overload (SumBackward1 and
MeanBackward1, showing _saved_dim None); logsumexp's shift is the max clamped to the finite
range, which gives the results the old shift by 0 where the max is infinite gave."""

import json
import subprocess
import sys

import numpy as np
import pytest

import minitorch as torch
from minitorch._backend import torch_stream
from minitorch._ops import reduction
from minitorch.autograd import gradcheck, gradgradcheck


def _fresh(code: str):
    """What code prints (as JSON) in a fresh interpreter."""
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return json.loads(out.stdout)


# --- import ---


def test_import_loads_no_numpy_random_and_the_first_draw_is_the_seeded_stream():
    loaded, after, drawn = _fresh(
        "import json, sys, minitorch as mt; before = 'numpy.random' in sys.modules; "
        "mt.manual_seed(3); x = mt.randn(5).tolist(); "
        "print(json.dumps([before, 'numpy.random' in sys.modules, x]))"
    )
    assert loaded is False and after is True  # made by the first draw
    torch.manual_seed(3)
    assert drawn == torch.randn(5).tolist()


def test_an_unseeded_default_generator_draws_after_a_lazy_import():
    # the default generator seeds itself from the OS at import: its state is the seed's
    seed, first = _fresh(
        "import json, minitorch as mt; s = mt.initial_seed(); "
        "print(json.dumps([s, mt.rand(3).tolist()]))"
    )
    g = torch.Generator().manual_seed(seed)
    assert first == torch.rand(3, generator=g).tolist()


def test_the_seed_sequence_is_made_once():
    torch_stream._engine()
    seq = torch_stream._UNSEEDED
    torch_stream._engine()
    assert seq is not None and torch_stream._UNSEEDED is seq


# --- sum and mean with dim=None given ---

GIVEN_NONE = {
    "x.sum(dim=None)": (lambda x: x.sum(dim=None), "SumBackward1", None, False, ()),
    "x.sum(None, True)": (lambda x: x.sum(None, True), "SumBackward1", None, True, (1, 1, 1)),
    "torch.sum(x, None)": (lambda x: torch.sum(x, None), "SumBackward1", None, False, ()),
    "x.sum(axis=None)": (lambda x: x.sum(axis=None), "SumBackward1", None, False, ()),
    "x.sum(None, dtype=float64)": (
        lambda x: x.sum(None, dtype=torch.float64),
        "SumBackward1",
        None,
        False,
        (),
    ),
    "x.mean(dim=None)": (lambda x: x.mean(dim=None), "MeanBackward1", None, False, ()),
    "x.mean(None, True)": (lambda x: x.mean(None, True), "MeanBackward1", None, True, (1, 1, 1)),
    "x.mean(axis=None)": (lambda x: x.mean(axis=None), "MeanBackward1", None, False, ()),
    "x.mean(axis=None, keepdims=True)": (
        lambda x: x.mean(axis=None, keepdims=True),
        "MeanBackward1",
        None,
        True,
        (1, 1, 1),
    ),
    "x.mean(None, dtype=float16)": (
        lambda x: x.mean(None, dtype=torch.float16),
        "MeanBackward1",
        None,
        False,
        (),
    ),
    # the full overloads, as before
    "x.sum()": (lambda x: x.sum(), "SumBackward0", "absent", None, ()),
    "x.mean()": (lambda x: x.mean(), "MeanBackward0", "absent", None, ()),
    "x.mean(dtype=float16)": (
        lambda x: x.mean(dtype=torch.float16),
        "MeanBackward0",
        "absent",
        None,
        (),
    ),
    "x.sum(dim=())": (lambda x: x.sum(dim=()), "SumBackward1", (), False, ()),
}


@pytest.mark.parametrize("call", list(GIVEN_NONE))
def test_a_given_none_dim_is_the_dim_overload(call):
    fn, name, dim, keepdim, shape = GIVEN_NONE[call]
    x = torch.arange(24.0).reshape(2, 3, 4).requires_grad_()
    y = fn(x)
    node = y.grad_fn
    assert node.name() == name and type(node).__name__ == name
    assert tuple(y.shape) == shape
    assert node._saved_self_sym_sizes == (2, 3, 4)
    if dim == "absent":
        assert not hasattr(node, "_saved_dim") and not hasattr(node, "_saved_keepdim")
    else:
        assert node._saved_dim == dim and node._saved_keepdim is keepdim
    # the values and gradient of the full reduction
    want = 276.0 if name.startswith("Sum") else 11.5
    assert y.item() == want
    (g,) = torch.autograd.grad(y.sum(), x)
    np.testing.assert_allclose(
        g.numpy(),
        np.full((2, 3, 4), 1.0 if want == 276.0 else 1 / 24),
        rtol=1e-3 if "float16" in call else 1e-7,
    )


@pytest.mark.parametrize("keepdim", [False, True])
@pytest.mark.parametrize("op", ["sum", "mean"])
def test_dim_none_reductions_are_twice_differentiable(op, keepdim):
    x = torch.randn(3, 4, dtype=torch.float64, generator=torch.Generator().manual_seed(1))
    x.requires_grad_()

    def f(t):
        return getattr(t, op)(None, keepdim) ** 2

    assert type(f(x).grad_fn.next_functions[0][0]).__name__ == op.capitalize() + "Backward1"
    assert gradcheck(f, (x,)) and gradgradcheck(f, (x,))


def test_dim_none_on_a_tensor_needing_no_grad_and_with_out():
    x = torch.arange(6.0).reshape(2, 3)
    assert x.sum(None).item() == 15.0 and x.mean(None, True).shape == (1, 1)
    out = torch.empty(())
    torch.sum(x, None, out=out)
    assert out.item() == 15.0
    torch.mean(x, None, out=out)
    assert out.item() == 2.5
    with pytest.raises(RuntimeError, match="can't be cast to the desired output type Long"):
        torch.mean(x, axis=None, out=torch.empty((), dtype=torch.int64))


# --- logsumexp's shift ---


def _shifted_by_zero(x, dims, keepdim):
    """logsumexp with an infinite max replaced by 0 (the shift before this session)."""
    m = x.max(axis=dims, keepdims=True)
    m = np.where(np.isinf(m), 0, m)
    with np.errstate(all="ignore"):
        out = np.log(np.add.reduce(np.exp(x - m), axis=dims, keepdims=True)) + m
    return np.asarray(out if keepdim else np.squeeze(out, axis=dims), dtype=x.dtype)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_logsumexp_of_rows_with_infinities_and_nans(dtype):
    rng = np.random.default_rng(49)
    specials = np.array([np.inf, -np.inf, np.nan, 0.0, -0.0, 1e38, -1e38, 3e38, 700.0, -700.0])
    for _ in range(300):
        shape = (int(rng.integers(1, 5)), int(rng.integers(1, 6)))
        x = (rng.standard_normal(shape) * rng.choice([1.0, 100.0, 1e30])).astype(dtype)
        mask = rng.random(shape) < rng.choice([0.0, 0.3, 0.9])
        x[mask] = rng.choice(specials, size=int(mask.sum()))
        for dims in [(0,), (1,), (0, 1)]:
            for keepdim in (False, True):
                want = _shifted_by_zero(x, dims, keepdim)
                got = torch.logsumexp(torch.from_numpy(x), dims, keepdim).numpy()
                assert got.dtype == want.dtype and got.shape == want.shape
                np.testing.assert_array_equal(got, want)
    # the rows the shift is about: all -inf, and holding +inf
    x = torch.tensor([[-np.inf, -np.inf], [np.inf, 1.0], [np.inf, -np.inf], [np.nan, np.inf]])
    assert torch.logsumexp(x, 1).tolist()[:3] == [-np.inf, np.inf, np.inf]
    assert np.isnan(torch.logsumexp(x, 1)[3].item())


def test_the_finite_shift_clamps_only_infinities():
    m = np.array([[np.inf], [-np.inf], [np.nan], [2.5], [-3e38]], dtype=np.float32)
    got = reduction._finite_shift(np, m)
    big = np.finfo(np.float32).max
    assert got.dtype == np.float32 and got.shape == m.shape
    np.testing.assert_array_equal(got[:, 0], [big, -big, np.nan, 2.5, np.float32(-3e38)])


# --- cumprod's and quantile's grad_fn attributes ---


@pytest.mark.parametrize("dim, shown", [(-1, 2**64 - 1), (1, 1), (-2, 2**64 - 2), (0, 0)])
def test_cumprod_shows_its_dim_as_given(dim, shown):
    x = torch.arange(1.0, 7.0).reshape(2, 3).requires_grad_()
    y = x.cumprod(dim)
    assert y.grad_fn.name() == "CumprodBackward0" and y.grad_fn._saved_dim == shown
    # the gradient is the dim's, whichever way it was given
    (g,) = torch.autograd.grad(y.sum(), x)
    (want,) = torch.autograd.grad(x.cumprod(dim % 2).sum(), x)
    np.testing.assert_array_equal(g.numpy(), want.numpy())


QUANTILE = {  # call -> the result's shape (torch's squeeze input is that shape + (1,))
    "q": (lambda x: x.quantile(0.3), ()),
    "q, -1": (lambda x: x.quantile(0.3, -1), (2, 3)),
    "q, 1, keepdim": (lambda x: x.quantile(0.3, 1, True), (2, 1, 4)),
    "q tensor, 1": (lambda x: x.quantile(torch.tensor([0.3, 0.5]), 1), (2, 2, 4)),
    "0-d q tensor, 1": (lambda x: x.quantile(torch.tensor(0.3), 1), (2, 4)),
    "q, None, keepdim": (lambda x: x.quantile(0.3, None, True), (1, 1, 1)),
    "lower": (lambda x: x.quantile(0.3, interpolation="lower"), ()),
    "nanquantile, 0": (lambda x: x.nanquantile(0.7, 0), (3, 4)),
}


@pytest.mark.parametrize("call", list(QUANTILE))
def test_quantiles_last_node_is_a_squeeze_of_the_last_dim(call):
    fn, shape = QUANTILE[call]
    x = (torch.arange(24.0).reshape(2, 3, 4) % 5).requires_grad_()
    y = fn(x)
    node = y.grad_fn
    assert tuple(y.shape) == shape and node.name() == "SqueezeBackward4"
    assert node._saved_dim == 2**64 - 1 and node._saved_self_sym_sizes == shape + (1,)
    assert y._base is not None  # a view of the composite's last result, as torch's squeeze
    (g,) = torch.autograd.grad(y.sum(), x)
    assert g.shape == x.shape and abs(g.sum().item() - y.numel()) < 1e-5  # weights sum to 1
    # an in-place op on the result still differentiates (CopySlices, as any view of a result)
    z = fn(x).clone() if y.ndim == 0 else fn(x)
    z.mul_(2)
    (g2,) = torch.autograd.grad(z.sum(), x)
    np.testing.assert_allclose(g2.numpy(), 2 * g.numpy())


# --- remainder, div(rounding_mode=) and xlogy with a number: their nodes as torch's ---


def _pair():
    x = torch.tensor([[1.5, -2.0, 3.0]], dtype=torch.float64, requires_grad=True)
    y = torch.tensor([[2.0, 0.5, -1.0]], dtype=torch.float64, requires_grad=True)
    return x, y


def test_remainder_saves_its_operands_only_for_the_divisors_gradient():
    x, y = _pair()
    node = torch.remainder(x, y).grad_fn
    assert node.name() == "RemainderBackward1"
    assert node._saved_self is x and node._saved_other is y
    node = torch.remainder(x, y.detach()).grad_fn
    assert node._saved_self is None and node._saved_other is None
    # the gradients, to the divisor too: -grad * floor(x / y)
    gx, gy = torch.autograd.grad(torch.remainder(x, y).sum(), (x, y))
    np.testing.assert_array_equal(gx.numpy(), [[1.0, 1.0, 1.0]])
    np.testing.assert_array_equal(gy.numpy(), [[-0.0, 4.0, 3.0]])
    # a saved divisor changed in place is found at backward, as torch's
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        w = y * 1
        z = torch.remainder(x, w)
        w.add_(1)
        z.sum().backward()


@pytest.mark.parametrize("mode", ["floor", "trunc"])
def test_rounded_division_shows_its_operands_and_mode(mode):
    x, y = _pair()
    node = torch.div(x, y, rounding_mode=mode).grad_fn
    assert node.name() == "DivBackward2" and node._saved_rounding_mode == mode
    assert node._saved_self is x and node._saved_other is y
    node = torch.div(x, y.detach(), rounding_mode=mode).grad_fn
    assert node._saved_self is None and node._saved_other is not None
    node = torch.div(x, 2, rounding_mode=mode).grad_fn
    assert node._saved_self is None and node._saved_other.item() == 2
    assert node._saved_other.dtype == torch.int64
    gx, gy = torch.autograd.grad(torch.div(x, y, rounding_mode=mode).sum(), (x, y))
    assert gx.abs().sum().item() == 0 and gy.abs().sum().item() == 0  # a step function


def test_xlogy_with_a_number_lists_the_tensors_edge_alone():
    x = torch.tensor([1.5, 2.0], dtype=torch.float64, requires_grad=True)
    for y, name in [
        (torch.xlogy(x, 2.0), "XlogyBackward2"),
        (torch.xlogy(2.0, x), "XlogyBackward1"),
    ]:
        node = y.grad_fn
        assert node.name() == name
        assert [type(f).__name__ for f, _ in node.next_functions] == ["AccumulateGrad"]
    assert gradcheck(lambda t: torch.xlogy(t, 2.0) + torch.xlogy(3.0, t), (x,))
    assert gradgradcheck(lambda t: torch.xlogy(t, 2.0) + torch.xlogy(3.0, t), (x,))


# --- torch's parser errors first: a wrongly typed argument before the op's own checks ---

PARSER_FIRST = {
    "x.cumprod_(dim=True, dtype=int64)": (
        lambda x: x.cumprod_(dim=True, dtype=torch.int64),
        "cumprod_(): argument 'dim' must be int, not bool",
    ),
    "x.cumprod_(None, dtype=int64)": (
        lambda x: x.cumprod_(None, dtype=torch.int64),
        "cumprod_(): argument 'dim' (position 1) must be int, not NoneType",
    ),
    "x.cumsum_(dim=True, dtype=int64)": (
        lambda x: x.cumsum_(dim=True, dtype=torch.int64),
        "cumsum_(): argument 'dim' must be int, not bool",
    ),
    "renorm(1-d, dim=True)": (
        lambda x: torch.renorm(torch.ones(3), 1.5, dim=True, maxnorm=0.5),
        "renorm(): argument 'dim' must be int, not bool",
    ),
    "renorm(1-d, 1.0)": (
        lambda x: torch.renorm(torch.ones(3), 1.5, 1.0, 0.5),
        "renorm(): argument 'dim' (position 3) must be int, not float",
    ),
    "x.swapaxes(1, 1.0)": (
        lambda x: x.swapaxes(1, 1.0),
        "swapaxes(): argument 'axis1' (position 2) must be int, not float",
    ),
    "x.swapaxes(axis0=1, axis1=True)": (
        lambda x: x.swapaxes(axis0=1, axis1=True),
        "swapaxes(): argument 'axis1' must be int, not bool",
    ),
    "lstm_cell(..., b_hh=1)": (
        lambda x: torch.lstm_cell(
            torch.ones(2, 3), (torch.ones(2, 4),) * 2, torch.ones(16, 3), torch.ones(16, 4), b_hh=1
        ),
        "lstm_cell(): argument 'b_hh' must be Tensor, not int",
    ),
    "rnn_tanh_cell(..., b_ih=3)": (
        lambda x: torch.rnn_tanh_cell(
            torch.ones(2, 3), torch.ones(2, 4), torch.ones(4, 3), torch.ones(4, 4), b_ih=3
        ),
        "rnn_tanh_cell(): argument 'b_ih' must be Tensor, not int",
    ),
}


@pytest.mark.parametrize("call", list(PARSER_FIRST))
def test_a_wrongly_typed_argument_is_refused_first(call):
    fn, message = PARSER_FIRST[call]
    with pytest.raises(TypeError) as info:
        fn(torch.ones(2, 3, dtype=torch.float64))
    assert str(info.value) == message


def test_the_same_calls_well_typed():
    x = torch.ones(2, 3, dtype=torch.float64)
    with pytest.raises(RuntimeError, match="Bad in-place call"):  # the dtype check, then
        x.cumprod_(1, dtype=torch.int64)
    assert x.swapaxes(0, 1).shape == (3, 2) and x.swapaxes(0, 1).grad_fn is None
    y = x.clone().requires_grad_()
    assert y.swapaxes(-1, 0).grad_fn.name() == "TransposeBackward0"
    assert y.swapaxes(-1, 0).grad_fn._saved_dim0 == 2**64 - 1


# --- the nodes of Scalar overloads (scalar_node): the number alone, as given ---


def test_scalar_overload_nodes_show_their_number_alone():
    x = torch.tensor([[1.5, -2.0, 3.0], [0.5, 0.25, -1.0]], dtype=torch.float64)
    x.requires_grad_()
    half = torch.special.ndtr(x).grad_fn  # (erf(x * sqrt(1/2)) + 1) * 0.5
    assert half.name() == "MulBackward1" and half._saved_other == 0.5
    assert type(half._saved_other) is float
    assert [n for n in dir(half) if "saved" in n] == ["_saved_other"]
    for hidden in ("_raw_saved_other", "_saved_self", "_raw_saved_self"):
        with pytest.raises(AttributeError):
            getattr(half, hidden)
    plus = half.next_functions[0][0]
    assert plus.name() == "AddBackward1" and not [n for n in dir(plus) if "saved" in n]
    with pytest.raises(AttributeError):
        _ = plus._saved_alpha
    spacing = torch.trapezoid(x).grad_fn  # (sum - (first + last) * 0.5) * dx, dx 1 by default
    assert spacing.name() == "MulBackward1" and spacing._saved_other == 1
    # the ordinary nodes of the same ops are untouched: a 0-d tensor, raw entries, self
    node = (x * 0.5).grad_fn
    assert node.name() == "MulBackward0" and node._saved_other.item() == 0.5
    assert node._saved_self is None and node._raw_saved_other is not None
    assert (x + 1).grad_fn._saved_alpha == 1
    # and the gradients through them
    assert gradcheck(torch.special.ndtr, (x,)) and gradgradcheck(torch.special.ndtr, (x,))
