"""Session 27 (robust): library fixes found by the robustness/uncertainty programs, with torch's
behaviour (torch 2.13) written as literals."""

from __future__ import annotations

import numpy as np
import pytest

import minitorch as torch

F = torch.nn.functional

_ANY_TYPEERROR = "any() received an invalid combination of arguments - got ({}), but expected"


@pytest.mark.parametrize(
    ("var", "got"),
    [(2, "bool"), (True, "bool"), (np.int64(2), "numpy.bool"), (np.float32(2.0), "numpy.bool")],
)
def test_gaussian_nll_loss_takes_only_a_python_float_as_scalar_var(var, got):
    # torch: `isinstance(var, float)` picks the scalar path; anything else reaches
    # torch.any(var < 0), which refuses the Python/NumPy bool
    with pytest.raises(TypeError) as e:
        F.gaussian_nll_loss(torch.ones(3), torch.zeros(3), var)
    assert str(e.value).startswith(_ANY_TYPEERROR.format(got))
    with pytest.raises(TypeError, match=r"got \(numpy.ndarray\)"):
        F.gaussian_nll_loss(torch.ones(3), torch.zeros(3), np.array([1.0, 2.0, 3.0]))


def test_gaussian_nll_loss_python_float_var_still_works():
    # torch: tensor(0.5966) for both (np.float64 is a float); a negative float is a ValueError
    for var in (2.0, np.float64(2.0)):
        out = F.gaussian_nll_loss(torch.ones(3), torch.zeros(3), var)
        assert abs(out.item() - 0.5965735902799727) < 1e-6
    out = torch.nn.GaussianNLLLoss(full=True)(torch.ones(2), torch.zeros(2), 0.5)
    assert abs(out.item() - 1.5723649429247) < 1e-6
    with pytest.raises(ValueError, match="var has negative entry/entries"):
        F.gaussian_nll_loss(torch.ones(3), torch.zeros(3), -1.0)


@pytest.mark.parametrize(
    ("fill", "message"),
    [
        (lambda t, v: t.uniform_(-v, 0.5), "uniform_(): argument 'from' (position 1)"),
        (lambda t, v: t.uniform_(0.0, v), "uniform_(): argument 'to' (position 2)"),
        (lambda t, v: t.normal_(v), "normal_(): argument 'mean' (position 1)"),
        (lambda t, v: t.log_normal_(v), "log_normal_(): argument 'mean' (position 1)"),
        (lambda t, v: t.exponential_(v), "exponential_(): argument 'lambd' (position 1)"),
        (lambda t, v: t.cauchy_(v), "cauchy_(): argument 'median' (position 1)"),
        (lambda t, v: t.geometric_(v), "geometric_(): argument 'p' (position 1)"),
    ],
)
def test_random_fills_refuse_a_number_tensor_that_requires_grad(fill, message):
    # torch's argument parser reads a 0-d tensor as a float only when it does not require grad:
    # `delta.uniform_(-eps, eps)` with a learnable eps is a TypeError there
    eps = torch.tensor(0.3, requires_grad=True)
    with pytest.raises(TypeError) as e:
        fill(torch.empty(3), eps)
    assert str(e.value) == message + " must be float, not Tensor"
    torch.manual_seed(0)
    out = fill(torch.empty(3), eps.detach())  # the detached 0-d tensor is read as its number
    assert out.shape == (3,)


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda x, v: x.renorm(2, 0, v), "renorm(): argument 'maxnorm' (position 3)"),
        (lambda x, v: x.renorm_(2, 0, v), "renorm_(): argument 'maxnorm' (position 3)"),
        (lambda x, v: x.renorm(v, 0, 1.0), "renorm(): argument 'p' (position 1)"),
        (lambda x, v: x.renorm(p=2, dim=0, maxnorm=v), "renorm(): argument 'maxnorm'"),
        (lambda x, v: torch.renorm(x, 2, 0, v), "renorm(): argument 'maxnorm' (position 4)"),
        (lambda x, v: torch.renorm(x, v, 0, 1.0), "renorm(): argument 'p' (position 2)"),
    ],
)
def test_renorm_reads_p_and_maxnorm_as_torch_scalars(call, message):
    # torch: a 0-d tensor that requires grad, a 1-d tensor, None or a str is no Scalar
    # (TypeError); before, a learnable eps gave "RenormBackward0: the composite used a tensor
    # not in its input" and a 1-d tensor broadcast silently
    x = torch.ones(2, 2)
    for v, kind in [
        (torch.tensor(0.5, requires_grad=True), "Tensor"),
        (torch.tensor([0.5]), "Tensor"),
        ("a", "str"),
        (None, "NoneType"),
    ]:
        with pytest.raises(TypeError) as e:
            call(x.clone(), v)
        assert str(e.value) == f"{message} must be Number, not {kind}"


def test_renorm_scalar_forms_match_torch():
    x = torch.ones(2, 2)
    # torch: a 0-d tensor without grad and a NumPy scalar are read as numbers (sum 1.41421342);
    # p=True is p=1 (sum 2.0); complex orders are refused after the arguments are parsed
    for maxnorm in (torch.tensor(0.5, dtype=torch.float64), np.float32(0.5)):
        out = x.renorm(2, 0, maxnorm)
        assert out.dtype == torch.float32
        assert abs(out.sum().item() - 1.4142134189605713) < 1e-6
    assert x.renorm(True, 0, 1).sum().item() == 2.0
    with pytest.raises(RuntimeError, match="^renorm: p must be real-valued$"):
        x.renorm(1j, 0, -1)
    with pytest.raises(RuntimeError, match="^renorm: maxnorm must be real-valued$"):
        x.renorm(2, 0, 1j)
    with pytest.raises(RuntimeError, match="^renorm: non-positive-norm not supported$"):
        x.renorm(-1, 0, 1j)
