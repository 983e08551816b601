"""torch.func / autograd.functional sweep 7: forward mode's dtypes in jacfwd, jvp and
jacobian(strategy="forward-mode"), integer outputs and primals there, vmap's chunk_size types."""

from __future__ import annotations

import numpy as np
import pytest

import minitorch as mt
import minitorch.autograd.functional as AF
from minitorch.autograd import gradcheck, gradgradcheck
from minitorch.func import jacfwd, jacrev, jvp, vmap


def _np(t):
    return t.detach().cpu().numpy()


# --- jacfwd / jacobian(strategy="forward-mode"): blocks in the output's dtype ---


def test_jacfwd_block_takes_output_dtype():
    x = mt.tensor([1.0, 2.0])
    j = jacfwd(lambda a: a.double() * 2)(x)
    assert j.dtype == mt.float64
    np.testing.assert_array_equal(_np(j), 2 * np.eye(2), err_msg="jacfwd a.double() * 2")
    j = jacfwd(lambda a: a.double().sin())(x)
    assert j.dtype == mt.float64
    np.testing.assert_allclose(_np(j), np.diag(np.cos([1.0, 2.0])), rtol=1e-6, err_msg="sin")
    j = jacfwd(lambda a: a.float() * 2)(x.double())
    assert j.dtype == mt.float32
    # one block per output, each in that output's dtype
    j64, j32, j16 = jacfwd(lambda a: (a.double(), a * 2, a.half()))(x)
    assert (j64.dtype, j32.dtype, j16.dtype) == (mt.float64, mt.float32, mt.float16)
    np.testing.assert_array_equal(_np(j16), np.eye(2), err_msg="a.half()")
    ja, jb = jacfwd(lambda a, b: a * b, argnums=(0, 1))(x, x.double())
    assert ja.dtype == jb.dtype == mt.float64
    np.testing.assert_array_equal(_np(ja), np.diag([1.0, 2.0]), err_msg="d(a*b)/da")
    # jacrev keeps the input's dtype
    assert jacrev(lambda a: a.double() * 2)(x).dtype == mt.float32


def test_jacfwd_integer_and_bool_outputs_get_zero_blocks():
    x = mt.tensor([1.5, 2.5])
    ji, jf = jacfwd(lambda a: (a.floor().long(), a * 2))(x)
    assert ji.dtype == mt.int64 and tuple(ji.shape) == (2, 2)
    np.testing.assert_array_equal(_np(ji), np.zeros((2, 2)), err_msg="int output")
    np.testing.assert_array_equal(_np(jf), 2 * np.eye(2), err_msg="float output")
    jb = jacfwd(lambda a: a > 2)(x)
    assert jb.dtype == mt.bool and not _np(jb).any()


def test_jacfwd_integer_primal_is_a_value_error():
    with pytest.raises(
        ValueError, match="Expected primal to be floating point or complex, but got: torch.int64"
    ):
        jacfwd(lambda a: a * 2)(mt.arange(3))
    with pytest.raises(ValueError, match="got: torch.bool"):
        jacfwd(lambda a: a * 2)(mt.tensor([True]))
    with pytest.raises(ValueError, match="got: torch.int64"):
        jacfwd(lambda t: t[0] * 2)((mt.ones(2), mt.arange(2)))
    # an integer argument that is not differentiated is fine
    j = jacfwd(lambda a, b: a * b, argnums=0)(mt.ones(2), mt.arange(2))
    np.testing.assert_array_equal(_np(j), np.diag([0.0, 1.0]), err_msg="int other argument")
    with pytest.raises(RuntimeError, match="only Tensors of floating point dtype"):
        jacrev(lambda a: a * 2)(mt.arange(3))  # reverse mode: torch's RuntimeError


def test_jacrev_integer_output_message_names_vjp():
    with pytest.raises(RuntimeError, match=r"^vjp\(f, \.\.\.\): All outputs of f must be"):
        jacrev(lambda a: a.long())(mt.ones(2))


def test_autograd_jacobian_forward_mode_dtypes():
    x = mt.tensor([1.0, 2.0])

    def fwd(f, inputs):
        return AF.jacobian(f, inputs, vectorize=True, strategy="forward-mode")

    j = fwd(lambda a: a.double() * 2, x)
    assert j.dtype == mt.float64
    np.testing.assert_array_equal(_np(j), 2 * np.eye(2), err_msg="forward-mode a.double() * 2")
    assert AF.jacobian(lambda a: a.double() * 2, x, vectorize=True).dtype == mt.float32
    (j00, j01), (j10, j11) = fwd(lambda a, b: (a.double() * b, a.half()), (x, x))
    assert (j00.dtype, j01.dtype, j10.dtype, j11.dtype) == (mt.float64,) * 2 + (mt.float16,) * 2
    ji = fwd(lambda a: a.long(), x)
    assert ji.dtype == mt.int64 and not _np(ji).any()
    with pytest.raises(ValueError, match="Expected primal to be floating point or complex"):
        fwd(lambda a: a * 2, mt.arange(2))
    # hessian's outer forward-mode Jacobian is taken of the gradient (the input's dtype)
    h = AF.hessian(
        lambda a: (a.double() ** 3).sum(), x, vectorize=True, outer_jacobian_strategy="forward-mode"
    )
    assert h.dtype == mt.float32
    np.testing.assert_allclose(_np(h), np.diag([6.0, 12.0]), rtol=1e-6, err_msg="hessian")


def test_jacfwd_cast_block_keeps_the_outer_graph():
    # d/dx sum(jacfwd(a -> a.double() ** 2)(x)) = d/dx sum(2 x) = 2, through the float64 block
    x = mt.tensor([1.0, 3.0], requires_grad=True)
    j = jacfwd(lambda a: a.double() ** 2)(x)
    assert j.dtype == mt.float64 and j.requires_grad
    (g,) = mt.autograd.grad(j.sum(), x)
    np.testing.assert_allclose(_np(g), [2.0, 2.0], rtol=1e-6, err_msg="grad through jacfwd")


# --- jvp: integer outputs, tangent dtypes ---


def test_jvp_integer_and_bool_outputs_get_zero_tangents():
    x = mt.tensor([1.5, 2.5])
    (oi, of), (ti, tf) = jvp(lambda a: (a.floor().long(), a * 2), (x,), (mt.ones(2),))
    assert oi.dtype == ti.dtype == mt.int64
    np.testing.assert_array_equal(_np(oi), [1, 2], err_msg="int output")
    np.testing.assert_array_equal(_np(ti), [0, 0], err_msg="int tangent")
    np.testing.assert_array_equal(_np(tf), [2.0, 2.0], err_msg="float tangent")
    o, t = jvp(lambda a: a > 2, (x,), (mt.ones(2),))
    assert t.dtype == mt.bool and not _np(t).any()
    o, t = jvp(lambda a: mt.arange(2), (x,), (mt.ones(2),))
    assert t.dtype == mt.int64 and not _np(t).any()


def test_jvp_with_integer_outputs_is_twice_differentiable():
    v = mt.tensor(np.random.default_rng(0).standard_normal(3))

    def f(x):
        return jvp(lambda a: (a.floor().long(), a.sin() * a), (x,), (v,))[1][1]

    x = mt.tensor(np.random.default_rng(1).standard_normal(3), requires_grad=True)
    assert gradcheck(f, (x,))
    assert gradgradcheck(f, (x,))


@pytest.mark.parametrize(
    "fn, primal, tangent, want",
    [
        # a wider tangent promotes through f, as torch's pointwise formulas do
        ("a * 2", mt.float32, mt.float64, mt.float64),
        ("a.sin()", mt.float32, mt.float64, mt.float64),
        ("a.sum()", mt.float32, mt.float64, mt.float64),
        ("a.double()", mt.float32, mt.float64, mt.float64),
        ("a * 2", mt.float16, mt.float32, mt.float32),
        ("a * 2", mt.bfloat16, mt.float16, mt.float32),
        # a cast down in f converts the tangent too
        ("a.half()", mt.float32, mt.float64, mt.float16),
        ("a.float()", mt.float64, mt.float32, mt.float32),
        # a narrower tangent through a nonlinear f takes the primal's dtype
        ("a.sin()", mt.float64, mt.float32, mt.float64),
        # equal dtypes: the output's dtype
        ("a.double()", mt.float32, mt.float32, mt.float64),
        ("a.float()", mt.float64, mt.float64, mt.float32),
    ],
)
def test_jvp_tangent_dtype(fn, primal, tangent, want):
    f = eval(f"lambda a: {fn}")
    x = mt.tensor([0.5, 1.0], dtype=primal)
    v = mt.tensor([1.0, -2.0], dtype=tangent)
    out, t = jvp(f, (x,), (v,))
    assert t.dtype == want, (fn, primal, tangent, t.dtype)
    # the numbers are the reverse-mode JVP's, in the primal's precision
    ref = jvp(f, (x,), (v.to(primal),))[1]
    np.testing.assert_allclose(
        _np(t).astype(np.float64), _np(ref).astype(np.float64), rtol=1e-3, err_msg=fn
    )


def test_jvp_tangent_dtype_values():
    x = mt.tensor([1.0, 2.0])
    v = mt.tensor([0.25, -1.5], dtype=mt.float64)
    _, t = jvp(lambda a: a.sin() * 3, (x,), (v,))
    assert t.dtype == mt.float64
    np.testing.assert_allclose(_np(t), 3 * np.cos([1.0, 2.0]) * [0.25, -1.5], rtol=1e-6)


# --- vmap: chunk_size types ---


def test_vmap_chunk_size_types():
    x = mt.ones(4, 2)
    f = vmap(lambda a: a * 2, chunk_size=2.0)  # accepted here, refused on the call (as torch)
    with pytest.raises(TypeError, match="chunk_size"):
        f(x)
    with pytest.raises(TypeError, match="chunk_size"):
        vmap(lambda a: a * 2, chunk_size=True)(x)
    with pytest.raises(TypeError):
        vmap(lambda a: a * 2, chunk_size="2")
    with pytest.raises(ValueError, match="chunk_size should be None or greater than 0"):
        vmap(lambda a: a * 2, chunk_size=0)
    out = vmap(lambda a: a * 2, chunk_size=np.int64(3))(x)
    np.testing.assert_array_equal(_np(out), 2 * np.ones((4, 2)), err_msg="numpy int chunk_size")


def test_vmap_returning_a_python_number_is_a_value_error():
    # torch raises this ValueError for a Python float output (.item() is refused before it)
    with pytest.raises(ValueError, match="must only return Tensors, got type <class 'float'>"):
        vmap(lambda a: a.sum().item())(mt.ones(2, 3))
