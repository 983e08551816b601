"""Session 24 fuzz leftovers: float16 norm gradients, distributions' errors for Python numbers,
autocast's promote check for cat/stack, jacobian(vectorize=True, create_graph=True) flags and the
binary ops' "must be Tensor" errors. Expected values were obtained by running torch 2.13."""

import math

import pytest

import minitorch
from minitorch import _autocast_state
from minitorch.autograd import gradcheck, gradgradcheck

F = minitorch.nn.functional
D = minitorch.distributions


# --- 1. vector_norm's gradient in half precision ---


def test_float16_norm_grad_small_norm_is_finite():
    # 1 / out overflowed float16 for a norm under 2**-16: torch divides a by the norm
    x = minitorch.tensor([1e-7, 0.0], dtype=minitorch.float16, requires_grad=True)
    minitorch.linalg.vector_norm(x).backward()
    assert x.grad.tolist() == [1.0, 0.0]


def test_float16_norm_grad_rounds_like_torch():
    x = minitorch.tensor([300.0, 400.0], dtype=minitorch.float16, requires_grad=True)
    minitorch.linalg.vector_norm(x).backward()
    assert x.grad.tolist() == [0.60009765625, 0.7998046875]
    # a zero norm's masked gradient, and bfloat16 (whose range never overflowed)
    x = minitorch.tensor([0.0, 0.0], dtype=minitorch.float16, requires_grad=True)
    minitorch.linalg.vector_norm(x).backward()
    assert x.grad.tolist() == [0.0, 0.0]
    y = minitorch.tensor([1e-7, 1e-8], dtype=minitorch.bfloat16, requires_grad=True)
    minitorch.linalg.vector_norm(y).backward()
    assert y.grad.tolist() == [0.99609375, 0.099609375]


def test_float16_triplet_margin_loss_grad():
    a = minitorch.tensor([[0.5, 0.25], [1.0, -1.0]], dtype=minitorch.float16, requires_grad=True)
    p = minitorch.tensor([[0.5, 0.25], [0.0, 0.5]], dtype=minitorch.float16)
    n = minitorch.tensor([[0.5, 0.25], [2.0, 1.0]], dtype=minitorch.float16)
    loss = F.triplet_margin_loss(a, p, n)
    loss.backward()
    assert loss.item() == 0.783203125
    assert a.grad.tolist() == [[0.0, 0.0], [0.5009765625, 0.03125]]
    # float64 keeps its path (a masked 1 / out), twice differentiable
    gen = minitorch.Generator().manual_seed(0)
    x = minitorch.randn(3, 4, generator=gen, dtype=minitorch.float64, requires_grad=True)

    def f(t):
        return minitorch.linalg.vector_norm(t, dim=1)

    assert gradcheck(f, (x,))
    assert gradgradcheck(f, (x,))


# --- 2. distributions given a Python number ---


@pytest.mark.parametrize(
    "make, method, msg",
    [
        (
            lambda: D.Binomial(5, minitorch.tensor(0.3), validate_args=False),
            "log_prob",
            "lgamma(): argument 'input' (position 1) must be Tensor, not float",
        ),
        (
            lambda: D.FisherSnedecor(
                minitorch.tensor(2.0), minitorch.tensor(3.0), validate_args=False
            ),
            "log_prob",
            "log(): argument 'input' (position 1) must be Tensor, not float",
        ),
        (
            lambda: D.Cauchy(minitorch.tensor(0.0), minitorch.tensor(1.0)),
            "icdf",
            "tan(): argument 'input' (position 1) must be Tensor, not float",
        ),
        (
            lambda: D.HalfCauchy(minitorch.tensor(1.0)),
            "icdf",
            "tan(): argument 'input' (position 1) must be Tensor, not float",
        ),
        (
            lambda: D.Exponential(minitorch.tensor(2.0)),
            "icdf",
            "log1p(): argument 'input' (position 1) must be Tensor, not float",
        ),
        (
            lambda: D.GeneralizedPareto(
                minitorch.tensor(0.0), minitorch.tensor(1.0), minitorch.tensor(0.2)
            ),
            "icdf",
            "log1p(): argument 'input' (position 1) must be Tensor, not float",
        ),
    ],
)
def test_distribution_number_value_type_error(make, method, msg):
    with pytest.raises(TypeError) as info:
        getattr(make(), method)(0.5)
    assert str(info.value) == msg
    # validated: torch's ValueError first; tensors take the same formulas as before
    with pytest.raises(ValueError, match="The value argument to log_prob must be a Tensor"):
        D.Binomial(5, minitorch.tensor(0.3)).log_prob(1.0)
    b = D.Binomial(5, minitorch.tensor(0.3, dtype=minitorch.float64))
    assert math.isclose(
        b.log_prob(minitorch.tensor(1.0)).item(), -1.0212346676467656, rel_tol=1e-12
    )
    e = D.Exponential(minitorch.tensor(2.0, dtype=minitorch.float64))
    assert math.isclose(e.icdf(minitorch.tensor(0.5)).item(), math.log(2) / 2, rel_tol=1e-6)


# --- 3. autocast's promote check of cat / stack ---

_PRIORITIZE = "Unexpected floating ScalarType in at::autocast::prioritize"


def _t(dt):
    return minitorch.ones(2, 3, dtype=dt)


def test_check_join_refuses_the_other_half_dtype():
    f16, bf16, f32, f64 = (
        minitorch.float16,
        minitorch.bfloat16,
        minitorch.float32,
        minitorch.float64,
    )
    with minitorch.autocast("cpu", dtype=bf16):
        for dts in ([f16, f32], [f64, f16], [f16, f16], [minitorch.int64, f16]):
            with pytest.raises(RuntimeError, match=_PRIORITIZE):
                _autocast_state.check_join([_t(d) for d in dts])
        for dts in ([bf16, f32], [f64, bf16], [f32, f32], [minitorch.int64, bf16]):
            _autocast_state.check_join([_t(d) for d in dts])
    with minitorch.autocast("cpu", dtype=f16):
        with pytest.raises(RuntimeError, match=_PRIORITIZE):
            _autocast_state.check_join([_t(bf16), _t(bf16)])
        _autocast_state.check_join([_t(f16), _t(f32)])
    _autocast_state.check_join([_t(f16), _t(bf16)])  # autocast off: no check
    _autocast_state.check_join([])


# --- 4. jacobian(vectorize=True, create_graph=True): one graph per input ---


def _flags(r):
    return [t.requires_grad for t in r]


def test_vectorized_jacobian_blocks_share_the_inputs_graph():
    x = minitorch.tensor([1.0, 2.0, 3.0], dtype=minitorch.float64)
    AF = minitorch.autograd.functional

    def f(a):
        return a.sin(), (a * 3).sum()

    r = AF.jacobian(f, x, create_graph=True, vectorize=True)
    assert _flags(r) == [True, True]
    assert r[1].tolist() == [3.0, 3.0, 3.0]
    r = AF.jacobian(f, x, create_graph=True, vectorize=False)
    assert _flags(r) == [True, False]
    r = AF.jacobian(f, x, create_graph=False, vectorize=True)
    assert _flags(r) == [False, False]

    y = minitorch.tensor([0.5, 0.2, 0.1], dtype=minitorch.float64)
    r = AF.jacobian(
        lambda a, b: (a.mean() * b.sin(), (a * 3).sum(-1)),
        (x, y),
        create_graph=True,
        vectorize=True,
    )
    assert [_flags(row) for row in r] == [[True, True], [True, True]]
    # an input no output depends on with a graph keeps torch's constant zeros
    r = AF.jacobian(lambda a, b: (a * 3, a.sum() * 2), (x, y), create_graph=True, vectorize=True)
    assert [_flags(row) for row in r] == [[False, False], [False, False]]


# --- 5. binary ops' operand type errors ---


def test_binary_op_operand_type_messages():
    # torch's words: "(position N)" after 'other', 1 in a method's call, 2 in a function's
    # (none by keyword, which minitorch does not tell apart)
    x = minitorch.ones(2)
    cases = [
        (lambda: x.mul("a"), "mul(): argument 'other' (position 1) must be Tensor, not str"),
        (
            lambda: minitorch.Tensor.mul(x, "a"),
            "mul(): argument 'other' (position 1) must be Tensor, not str",
        ),
        (
            lambda: minitorch.mul(x, "a"),
            "mul(): argument 'other' (position 2) must be Tensor, not str",
        ),
        (
            lambda: minitorch.add(x, None),
            "add(): argument 'other' (position 2) must be Tensor, not NoneType",
        ),
        (lambda: x.div([1]), "div(): argument 'other' (position 1) must be Tensor, not list"),
        (
            lambda: minitorch.add(None, x),
            "add(): argument 'input' (position 1) must be Tensor, not NoneType",
        ),
        (
            lambda: minitorch.sub("a", x),
            "sub(): argument 'input' (position 1) must be Tensor, not str",
        ),
    ]
    for fn, msg in cases:
        with pytest.raises(TypeError) as info:
            fn()
        assert str(info.value) == msg
    # numbers on either side still work, and the operators still defer to Python
    assert minitorch.add(1.5, x).tolist() == [2.5, 2.5]
    assert (x * 2).tolist() == [2.0, 2.0]
    with pytest.raises(TypeError, match="unsupported operand type"):
        _ = "a" - x


def test_cat_and_stack_under_autocast_refuse_a_third_float_dtype():
    # torch 2.13's promote check of the joins: float16 inside a bfloat16 CPU region
    for join in (minitorch.cat, minitorch.stack, minitorch.hstack):
        with minitorch.autocast("cpu", dtype=minitorch.bfloat16):
            with pytest.raises(RuntimeError, match="Unexpected floating ScalarType"):
                join([minitorch.ones(2).half(), minitorch.ones(2).half()])
            assert join([minitorch.ones(2), minitorch.ones(2).double()]).dtype == minitorch.float64
