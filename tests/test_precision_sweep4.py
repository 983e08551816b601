"""Drop-in fixes from the precision and examples sweeps: dtype.to_real/to_complex, the is_*
argument checks, torch.__future__, fused optimizer steps, range factory arguments, the norms'
dtype= narrowing, conv dtype messages, torch.spmm / torch.sparse and half-input norm nodes."""

from __future__ import annotations

import numpy as np
import pytest

import minitorch as torch
import minitorch.nn.functional as F

# --- dtype.to_real / to_complex ---


def test_dtype_to_real_is_itself():
    for dt in (torch.float32, torch.float16, torch.bfloat16, torch.int64, torch.bool):
        assert dt.to_real() is dt


def test_dtype_to_complex_raises():
    with pytest.raises(RuntimeError, match="Unknown Complex ScalarType for Long"):
        torch.int64.to_complex()
    with pytest.raises(TypeError, match="no complex dtypes"):
        torch.float64.to_complex()


# --- is_floating_point of a non-tensor ---


@pytest.mark.parametrize("arg, shown", [(1.0, "float"), ([1.0], "list"), (None, "NoneType")])
def test_is_floating_point_non_tensor(arg, shown):
    msg = rf"is_floating_point\(\): argument 'input' \(position 1\) must be Tensor, not {shown}"
    with pytest.raises(TypeError, match=msg):
        torch.is_floating_point(arg)
    assert torch.is_floating_point(torch.ones(1)) is True
    assert torch.is_floating_point(torch.ones(1, dtype=torch.int64)) is False


# --- torch.__future__ ---


def test_future_flags():
    fut = torch.__future__
    assert fut.get_overwrite_module_params_on_conversion() is False
    assert fut.get_swap_module_params_on_conversion() is False
    try:
        fut.set_swap_module_params_on_conversion(True)
        fut.set_overwrite_module_params_on_conversion(True)
        assert fut.get_swap_module_params_on_conversion() is True
        assert fut.get_overwrite_module_params_on_conversion() is True
    finally:
        fut.set_swap_module_params_on_conversion(False)
        fut.set_overwrite_module_params_on_conversion(False)


# --- fused optimizers ---


@pytest.mark.parametrize("name", ["Adam", "AdamW", "Adagrad"])
def test_fused_step_is_float32_under_float64_default(name):
    old = torch.get_default_dtype()
    torch.set_default_dtype(torch.float64)
    try:
        p = torch.nn.Parameter(torch.ones(2))
        p.grad = torch.ones(2)
        opt = getattr(torch.optim, name)([p], lr=0.1, fused=True)
        opt.step()
        assert opt.state[p]["step"].dtype is torch.float32
        assert p.dtype is torch.float64
        q = torch.nn.Parameter(torch.ones(2))
        q.grad = torch.ones(2)
        plain = getattr(torch.optim, name)([q], lr=0.1)
        plain.step()
        assert plain.state[q]["step"].dtype is torch.float64
        np.testing.assert_array_equal(p.detach().numpy(), q.detach().numpy())
    finally:
        torch.set_default_dtype(old)


def test_fused_capturable_adam_steps_on_cpu():
    p = torch.nn.Parameter(torch.ones(2))
    p.grad = torch.ones(2)
    opt = torch.optim.Adam([p], fused=True, capturable=True)
    opt.step()
    opt.step()
    np.testing.assert_allclose(p.detach().numpy(), [0.998, 0.998], rtol=1e-6)
    p.grad = torch.ones(2)
    with pytest.raises(AssertionError, match="capturable=True"):
        torch.optim.Adam([p], capturable=True).step()


# --- range factories ---


def test_linspace_logspace_pin_memory_and_indices_requires_grad():
    assert torch.linspace(0, 1, 3, pin_memory=False).tolist() == [0.0, 0.5, 1.0]
    np.testing.assert_allclose(torch.logspace(0, 1, 3, pin_memory=False).numpy(), [1, 10**0.5, 10])
    got = torch.tril_indices(3, 3, requires_grad=False).tolist()
    assert got == [[0, 1, 1, 2, 2, 2], [0, 0, 1, 0, 1, 2]]
    assert torch.triu_indices(2, 2, requires_grad=False).tolist() == [[0, 0, 1], [0, 1, 1]]
    msg = "Only Tensors of floating point and complex dtype can require gradients"
    for fn in (torch.tril_indices, torch.triu_indices):
        with pytest.raises(RuntimeError, match=msg):
            fn(3, 3, requires_grad=True)


# --- norms' dtype= ---


def test_vector_norm_dtype_narrowing_raises():
    x = torch.tensor([3.0, 4.0], dtype=torch.float64)
    msg = (
        r"linalg.vector_norm: the dtype of the input \(Double\) should be convertible without "
        r"narrowing to the specified dtype \(Float\)"
    )
    with pytest.raises(RuntimeError, match=msg):
        torch.linalg.vector_norm(x, dtype=torch.float32)
    with pytest.raises(RuntimeError, match=msg):
        torch.norm(x, dtype=torch.float32)
    with pytest.raises(RuntimeError, match=r"\(Half\) .* \(BFloat16\)"):
        torch.linalg.vector_norm(x.half(), dtype=torch.bfloat16)
    widened = torch.linalg.vector_norm(x.half(), dtype=torch.float32)
    assert widened.dtype is torch.float32 and widened.item() == 5.0


def test_matrix_norm_dtype_checks():
    m = torch.tensor([[3.0, 4.0], [1.0, 2.0]], dtype=torch.float64)
    for ord in ("fro", 1, "nuc"):
        with pytest.raises(RuntimeError, match=r"linalg.matrix_norm: the dtype of the input"):
            torch.linalg.matrix_norm(m, ord=ord, dtype=torch.float32)
    with pytest.raises(RuntimeError, match="Expected a floating point or complex tensor"):
        torch.linalg.matrix_norm(m.long(), dtype=torch.float64)
    with pytest.raises(RuntimeError, match="dtype should be floating point or complex"):
        torch.linalg.matrix_norm(m, dtype=torch.int64)
    r = torch.linalg.matrix_norm(m.float(), ord=1, dtype=torch.float64)
    assert r.dtype is torch.float64 and r.item() == 6.0


# --- conv dtype messages ---


@pytest.mark.parametrize("n", [1, 2, 3])
def test_conv_dtype_mismatch_messages(n):
    conv = getattr(F, f"conv{n}d")
    x = torch.zeros((1, 1) + (4,) * n, dtype=torch.uint8)
    w = torch.zeros((2, 1) + (3,) * n)
    with pytest.raises(RuntimeError, match=r"^expected scalar type Byte but found Float$"):
        conv(x, w)
    msg = r"^Input type \(unsigned char\) and bias type \(float\) should be the same$"
    with pytest.raises(RuntimeError, match=msg):
        conv(x, w, torch.zeros(2))
    msg = r"^Input type \(double\) and bias type \(float\) should be the same$"
    with pytest.raises(RuntimeError, match=msg):
        conv(x.double(), w, torch.zeros(2))
    with pytest.raises(RuntimeError, match=r"^expected scalar type Float but found Double$"):
        conv(x.float(), w.double())
    with pytest.raises(RuntimeError, match=r"Input type \(torch.HalfTensor\).*MKLDNN"):
        conv(x.half(), w)


def test_conv_transpose_dtype_checks():
    x = torch.zeros(1, 1, 4, 4)
    w = torch.zeros(1, 2, 3, 3)
    with pytest.raises(NotImplementedError, match="slow_conv_transpose2d_out_cpu.*'Byte'"):
        F.conv_transpose2d(x.byte(), w)
    with pytest.raises(RuntimeError, match=r"^expected scalar type Double but found Float$"):
        F.conv_transpose2d(x.double(), w, torch.zeros(2, dtype=torch.float64))
    out = F.conv_transpose2d(x, w, torch.ones(2, dtype=torch.float64))  # the bias is cast
    assert out.dtype is torch.float32 and out.sum().item() == 2 * 36


# --- torch.spmm / torch.sparse on dense tensors ---


def test_spmm_and_sparse_namespace_on_dense():
    rng = np.random.default_rng(0)
    a, b, c = (rng.standard_normal(s) for s in ((3, 4), (4, 2), (3, 2)))
    ta, tb, tc = (torch.tensor(v) for v in (a, b, c))
    np.testing.assert_allclose(torch.spmm(ta, tb).numpy(), a @ b, rtol=1e-12)
    np.testing.assert_allclose(torch.sparse.mm(ta, tb).numpy(), a @ b, rtol=1e-12)
    got = torch.sparse.addmm(tc, ta, tb, beta=2.0, alpha=3.0).numpy()
    np.testing.assert_allclose(got, 2 * c + 3 * (a @ b), rtol=1e-12)
    with pytest.raises(RuntimeError, match="cannot be multiplied"):
        torch.spmm(ta, ta)
    ta.requires_grad_()
    assert torch.autograd.gradcheck(lambda m: torch.sparse.mm(m, tb), (ta,))
    assert torch.autograd.gradgradcheck(lambda m: torch.sparse.addmm(tc, m, tb), (ta,))


# --- half inputs of the norms: one node, torch's ---


def _half_input():
    rng = np.random.default_rng(0)
    return torch.tensor(rng.standard_normal((3, 4, 2)).astype(np.float32)).half()


@pytest.mark.parametrize(
    "make, name",
    [
        (lambda: torch.nn.LayerNorm(2), "NativeLayerNormBackward0"),
        (lambda: torch.nn.BatchNorm1d(4), "NativeBatchNormBackward0"),
        (lambda: torch.nn.BatchNorm1d(4).eval(), "NativeBatchNormBackward0"),
        (lambda: torch.nn.GroupNorm(2, 4), "NativeGroupNormBackward0"),
        (lambda: torch.nn.BatchNorm1d(4).half(), "NativeBatchNormBackward0"),
    ],
)
def test_half_input_norm_is_one_node(make, name):
    m = make()
    x = _half_input().requires_grad_()
    y = m(x)
    assert y.dtype is torch.float16
    assert y.grad_fn.name() == name
    nxt = [type(f).__name__ for f, _ in y.grad_fn.next_functions]
    assert nxt == ["AccumulateGrad"] * 3
    up = torch.arange(24.0).reshape(3, 4, 2)
    (y.float() * up).sum().backward()
    # the gradients are those of the same computation on a float32 input (rounded to half)
    x32 = x.detach().float().requires_grad_()
    m32 = make().float()
    (m32(x32) * up).sum().backward()
    np.testing.assert_allclose(x.grad.float().numpy(), x32.grad.numpy(), rtol=2e-2, atol=2e-2)
    np.testing.assert_allclose(
        m.weight.grad.float().numpy(), m32.weight.grad.numpy(), rtol=2e-2, atol=5e-2
    )
