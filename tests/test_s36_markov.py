"""Session 36 (helper markov): torch-free regression tests of the library fixes the Markov-chain
and HMM programs of tests/reference/test_s36_markov_reference.py found: the parser errors of
matrix_power and matrix_exp (an argument left out, one too many, an n beyond int64), the n = -1
matrix power and linalg.inv refusing an out= of another dtype before they factor (a singular
matrix then gives that error, not LinAlgError), and multinomial reading a one-element integer
tensor of any rank as its num_samples (torch's SymInt). torch's messages are written here as
literals."""

from __future__ import annotations

import pytest

import minitorch as mt


def _message(exc_type, fn):
    with pytest.raises(exc_type) as info:
        fn()
    return str(info.value)


P = mt.full((3, 3), 1.0 / 3)


MISSING_N = 'missing 1 required positional arguments: "n"'
MISSING_BOTH = 'missing 2 required positional argument: "input", "n"'
MISSING_INPUT = 'missing 1 required positional arguments: "input"'
ONE_OF_TWO = "takes 1 positional argument but 2 were given"
TWO_OF_THREE = "takes 2 positional arguments but 3 were given"


@pytest.mark.parametrize(
    "call, message",
    [
        (lambda: mt.linalg.matrix_power(P), "linalg_matrix_power() " + MISSING_N),
        (lambda: mt.linalg.matrix_power(), "linalg_matrix_power() " + MISSING_BOTH),
        (lambda: mt.linalg.matrix_power(n=2), "linalg_matrix_power() " + MISSING_BOTH),
        (lambda: mt.matrix_power(P), "matrix_power() " + MISSING_N),
        (lambda: mt.matrix_power(n=3), "matrix_power() " + MISSING_BOTH),
        (lambda: P.matrix_power(), "matrix_power() " + MISSING_N),
        (lambda: P.matrix_power(2, 3), "matrix_power() " + ONE_OF_TWO),
        (lambda: mt.matrix_power(P, 2, 3), "matrix_power() " + TWO_OF_THREE),
        (lambda: mt.linalg.matrix_power(P, 2, 3), "linalg_matrix_power() " + TWO_OF_THREE),
        (lambda: mt.linalg.matrix_exp(), "linalg_matrix_exp() " + MISSING_INPUT),
        (lambda: mt.matrix_exp(), "matrix_exp() " + MISSING_INPUT),
        (lambda: mt.linalg.matrix_exp(P, 2), "linalg_matrix_exp() " + ONE_OF_TWO),
        (lambda: mt.matrix_exp(P, 2), "matrix_exp() " + ONE_OF_TWO),
    ],
)
def test_matrix_power_and_exp_parser_errors(call, message):
    assert _message(TypeError, call) == message


@pytest.mark.parametrize(
    "call",
    [
        lambda: mt.linalg.matrix_power(P, 2**63),
        lambda: mt.linalg.matrix_power(P, -(2**63) - 1),
        lambda: mt.matrix_power(P, 10**30),
        lambda: P.matrix_power(2**64),
    ],
)
def test_matrix_power_n_beyond_int64(call):
    assert _message(ValueError, call) == "Overflow when unpacking long long"


def test_matrix_power_n_at_int64_edges_runs():
    out = mt.linalg.matrix_power(P, 2**62)
    assert out.shape == (3, 3)


SINGULAR = mt.zeros(3, 3)
DOUBLE_OUT = "Expected out tensor to have dtype float, but got double instead"


@pytest.mark.parametrize(
    "call",
    [
        lambda: mt.linalg.inv(SINGULAR, out=mt.empty(3, 3, dtype=mt.float64)),
        lambda: mt.inverse(SINGULAR, out=mt.empty(3, 3, dtype=mt.float64)),
        lambda: mt.linalg.matrix_power(SINGULAR, -1, out=mt.empty(3, 3, dtype=mt.float64)),
        lambda: mt.linalg.matrix_power(mt.eye(3), -1, out=mt.empty(3, 3, dtype=mt.float64)),
    ],
)
def test_inverse_refuses_out_dtype_before_factoring(call):
    assert _message(RuntimeError, call) == DOUBLE_OUT


def test_singular_power_below_minus_one_factors_first():
    msg = _message(
        mt.linalg.LinAlgError,
        lambda: mt.linalg.matrix_power(SINGULAR, -2, out=mt.empty(3, 3, dtype=mt.float64)),
    )
    assert msg.startswith("linalg.inv: The diagonal element 1 is zero")


def test_matrix_power_minus_one_into_out():
    a = mt.tensor([[2.0, 1.0], [1.0, 3.0]], dtype=mt.float64, requires_grad=True)
    out = mt.empty(0, dtype=mt.float64)
    with mt.no_grad():
        mt.linalg.matrix_power(a, -1, out=out)
    want = mt.tensor([[0.6, -0.2], [-0.2, 0.4]], dtype=mt.float64)
    assert mt.allclose(out, want)
    res = mt.linalg.matrix_power(a, -1)
    assert type(res.grad_fn).__name__ == "LinalgInvExBackward0"
    res.sum().backward()
    assert mt.allclose(a.grad, -(want.sum(0, keepdim=True).T * want.sum(1, keepdim=True).T))
    assert mt.autograd.gradcheck(
        lambda x: mt.linalg.matrix_power(x, -1), (a.detach().requires_grad_(),)
    )


@pytest.mark.parametrize("k", [mt.tensor([2]), mt.tensor([[2]], dtype=mt.uint8), mt.tensor(2)])
def test_multinomial_one_element_integer_num_samples(k):
    probs = mt.tensor([[0.2, 0.3, 0.5], [0.6, 0.1, 0.3]])
    got = mt.multinomial(probs, k, generator=mt.Generator().manual_seed(5))
    want = mt.multinomial(probs, 2, generator=mt.Generator().manual_seed(5))
    assert mt.equal(got, want)
    assert probs.multinomial(k, True, generator=mt.Generator().manual_seed(5)).shape == (2, 2)


@pytest.mark.parametrize("k", [mt.tensor([2.0]), mt.tensor([2, 1])])
def test_multinomial_other_tensor_num_samples_refused(k):
    msg = "multinomial(): argument 'num_samples' (position 2) must be int, not Tensor"
    assert _message(TypeError, lambda: mt.multinomial(mt.ones(2, 3), k)) == msg
