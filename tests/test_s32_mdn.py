"""Session 32 (helper mdn): torch-free regression tests of the library fixes the mixture-density
and probabilistic-regression programs of tests/reference/test_s32_mdn_reference.py found:
igamma/zeta's missing first-argument derivative raises only when that gradient is wanted, the
CPU gamma samplers behind Gamma/Chi2/StudentT refuse half dtypes, Laplace draws its uniform as
uniform_ does, and binomial's argument checks (torch's values and messages, written here as
literals)."""

from __future__ import annotations

import numpy as np
import pytest

import minitorch as mt

D = mt.distributions


def _gamma_cdf_graph():
    a = mt.tensor([2.0, 5.0], requires_grad=True)
    b = mt.ones(2, requires_grad=True)
    out = D.Gamma(a, b).cdf(mt.tensor([0.3, 1.2])).sum()
    return a, b, out


IGAMMA = "the derivative for 'igamma: input' is not implemented."


def test_igamma_grad_of_the_second_argument_alone():
    a, b, out = _gamma_cdf_graph()
    (g,) = mt.autograd.grad(out, [b], retain_graph=True)
    np.testing.assert_allclose(g.numpy(), [0.06667364, 0.03122782], rtol=1e-5)
    out.backward(inputs=[b], retain_graph=True)
    np.testing.assert_allclose(b.grad.numpy(), [0.06667364, 0.03122782], rtol=1e-5)
    assert a.grad is None
    # the full backward, or a gradient through the first argument, still raises torch's error
    with pytest.raises(NotImplementedError) as info:
        out.backward()
    assert str(info.value) == IGAMMA
    with pytest.raises(NotImplementedError):
        mt.autograd.grad(out, [a])
    x = mt.ones(2, requires_grad=True)  # the first argument depends on the input asked for
    with pytest.raises(NotImplementedError) as info:
        mt.autograd.grad(mt.igamma(x * 2, x).sum(), [x])
    assert str(info.value) == IGAMMA


def test_igammac_and_zeta_grad_of_the_second_argument_alone():
    a = mt.tensor([2.0, 5.0], requires_grad=True)
    x = mt.tensor([0.3, 1.2], requires_grad=True)
    (g,) = mt.autograd.grad(mt.special.gammaincc(a, x).sum(), [x])
    np.testing.assert_allclose(g.numpy(), [-0.22224547, -0.02602318], rtol=1e-5)
    s = mt.tensor([2.0, 3.0], requires_grad=True)
    q = mt.tensor([1.0, 2.0], requires_grad=True)
    z = mt.special.zeta(s, q).sum()
    (gq,) = mt.autograd.grad(z, [q], retain_graph=True)
    np.testing.assert_allclose(gq.numpy(), [-2.4041138, -0.2469697], rtol=1e-5)
    with pytest.raises(NotImplementedError, match="the derivative for 'zeta' is not implemented"):
        mt.autograd.grad(z, [s])


@pytest.mark.parametrize("dtype, label", [(mt.float16, "Half"), (mt.bfloat16, "BFloat16")])
def test_gamma_family_samplers_refuse_half_dtypes_on_the_cpu(dtype, label):
    o = mt.ones(2, dtype=dtype)
    gamma = f"\"gamma_cpu\" not implemented for '{label}'"
    calls = [
        lambda: D.Gamma(o, o).sample(),
        lambda: D.Gamma(o.clone().requires_grad_(), o).rsample((2,)),
        lambda: D.Chi2(o).sample(),
        lambda: D.StudentT(o).sample(),
    ]
    for call in calls:
        with pytest.raises(NotImplementedError) as info:
            call()
        assert str(info.value) == gamma
    dirichlet = f"\"dirichlet\" not implemented for '{label}'"
    for call in (
        lambda: D.Beta(o.clone().requires_grad_(), o).rsample(),
        lambda: D.Dirichlet(o.clone().requires_grad_()).rsample(),
    ):
        with pytest.raises(NotImplementedError) as info:
            call()
        assert str(info.value) == dirichlet


def test_gamma_samples_in_float_dtypes_unchanged():
    mt.manual_seed(0)
    g = D.Gamma(mt.full((3,), 2.0), mt.ones(3)).rsample((2,))
    assert g.dtype == mt.float32 and g.shape == (2, 3) and bool((g > 0).all())


def test_laplace_half_draws_round_once():
    # torch: u = uniform_(eps - 1, 1) in the dtype (computed in float, rounded once)
    mt.manual_seed(0)
    s = D.Laplace(mt.zeros(2, dtype=mt.float16), mt.ones(2, dtype=mt.float16)).sample((2,))
    want = [[-0.00701904, 0.76904297], [-1.7275391, -1.3271484]]
    np.testing.assert_array_equal(s.float().numpy(), np.array(want, dtype=np.float16))
    mt.manual_seed(0)
    s = D.Laplace(mt.zeros(2, dtype=mt.bfloat16), mt.ones(2, dtype=mt.bfloat16)).sample((2,))
    want = [[-0.0035552978515625, 0.7734375], [-1.6953125, -1.3125]]
    np.testing.assert_array_equal(s.float().numpy(), np.array(want, dtype=np.float32))


@pytest.mark.parametrize(
    "call, kind, message",
    [
        (
            lambda: mt.binomial(mt.ones(2, dtype=mt.float64), mt.ones(2)),
            RuntimeError,
            "Found dtype Float but expected Double",
        ),
        (
            lambda: mt.binomial(mt.ones(2), mt.ones(3, dtype=mt.half)),
            RuntimeError,
            "The size of tensor a (2) must match the size of tensor b (3) at non-singleton "
            "dimension 0",
        ),
        (
            lambda: mt.binomial(mt.ones(2), mt.ones(2, dtype=mt.int64)),
            ValueError,
            "binomial only supports floating-point dtypes for prob, got: Long",
        ),
        (
            lambda: mt.binomial(mt.ones(2, dtype=mt.int32), mt.ones(2)),
            ValueError,
            "binomial only supports floating-point dtypes for count, got: Int",
        ),
        (
            lambda: mt.binomial(mt.ones(0, dtype=mt.half), mt.ones(0, dtype=mt.half)),
            NotImplementedError,
            "\"binomial_cpu\" not implemented for 'Half'",
        ),
        (
            lambda: D.Binomial(10, mt.full((2,), 0.5, dtype=mt.bfloat16)).sample(),
            NotImplementedError,
            "\"binomial_cpu\" not implemented for 'BFloat16'",
        ),
    ],
)
def test_binomial_checks(call, kind, message):
    with pytest.raises(kind) as info:
        call()
    assert str(info.value) == message


def test_sample_n_warns_torchs_future_warning():
    d = D.Normal(mt.zeros(2), mt.ones(2))
    with pytest.warns(FutureWarning) as caught:
        s = d.sample_n(3)
    assert s.shape == (3, 2)
    assert [str(w.message) for w in caught] == [
        "`sample_n(n)` will be deprecated. Use `sample((n,))` instead."
    ]
