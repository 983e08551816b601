"""Sweep 7 fixes: Generator.manual_seed's argument types, flip's dims argument, antialias
interpolate of half types on CPU, and orthogonal(householder) on empty matrices."""

from __future__ import annotations

import enum

import numpy as np
import pytest

import minitorch as mt
import minitorch.nn.functional as F
from minitorch import nn
from minitorch.autograd import gradcheck, gradgradcheck

# --- Generator.manual_seed / set_offset ---


@pytest.mark.parametrize("seed", [np.int64(5), np.int32(5), np.uint8(5), np.int64(-1)])
def test_generator_manual_seed_numpy_int_is_type_error(seed):
    # torch's type check takes NumPy integers, its unpacking into a C long does not
    g = mt.Generator()
    with pytest.raises(TypeError, match="^an integer is required$"):
        g.manual_seed(seed)
    assert g.initial_seed() == 67280421310721  # untouched
    with pytest.raises(TypeError, match="^an integer is required$"):
        g.set_offset(seed)


@pytest.mark.parametrize(
    "seed, name",
    [(5.0, "float"), ("5", "str"), (True, "bool"), (np.float64(5), "numpy.float64")],
)
def test_generator_manual_seed_non_integers_stay_runtime_errors(seed, name):
    with pytest.raises(RuntimeError, match=f"^manual_seed expected a long, but got {name}$"):
        mt.Generator().manual_seed(seed)


def test_generator_manual_seed_takes_int_subclasses():
    class Seed(enum.IntEnum):
        A = 7

    class MyInt(int):
        pass

    assert mt.Generator().manual_seed(Seed.A).initial_seed() == 7
    assert type(mt.Generator().manual_seed(Seed.A).initial_seed()) is int
    assert mt.Generator().manual_seed(MyInt(-1)).initial_seed() == 2**64 - 1
    with pytest.raises(RuntimeError, match="does not use offset"):
        mt.Generator().set_offset(MyInt(3))  # past the type check, as torch
    a = mt.rand(3, generator=mt.Generator().manual_seed(Seed.A))
    b = mt.rand(3, generator=mt.Generator().manual_seed(7))
    np.testing.assert_array_equal(a.numpy(), b.numpy())


def test_module_manual_seed_still_takes_numpy_ints():
    assert mt.manual_seed(np.int64(5)).initial_seed() == 5
    assert mt.manual_seed(np.int32(6)).initial_seed() == 6
    a = mt.rand(3)
    mt.manual_seed(6)
    np.testing.assert_array_equal(a.numpy(), mt.rand(3).numpy())


# --- flip's dims ---


def _x():
    return mt.arange(24).view(2, 3, 4)


_X = np.arange(24).reshape(2, 3, 4)


@pytest.mark.parametrize(
    "dims, name",
    [
        (1, "int"),
        (np.int64(1), "numpy.int64"),
        (mt.tensor(1), "Tensor"),
        (mt.tensor([1]), "Tensor"),
        (range(1, 3), "range"),
        (np.array([1]), "numpy.ndarray"),
        (None, "NoneType"),
        (1.0, "float"),
        ({1}, "set"),
    ],
)
def test_torch_flip_dims_must_be_a_sequence(dims, name):
    msg = f"^flip\\(\\): argument 'dims' \\(position 2\\) must be tuple of ints, not {name}$"
    with pytest.raises(TypeError, match=msg):
        mt.flip(_x(), dims)


def test_torch_flip_sequences():
    np.testing.assert_array_equal(mt.flip(_x(), (1,)).numpy(), _X[:, ::-1])
    np.testing.assert_array_equal(mt.flip(_x(), [1, 2]).numpy(), _X[:, ::-1, ::-1])
    np.testing.assert_array_equal(mt.flip(_x(), dims=[np.int64(2)]).numpy(), _X[:, :, ::-1])
    np.testing.assert_array_equal(mt.flip(_x(), mt.Size([0])).numpy(), _X[::-1])
    np.testing.assert_array_equal(mt.flip(_x(), [mt.tensor([2])]).numpy(), _X[:, :, ::-1])
    np.testing.assert_array_equal(mt.flip(_x(), ()).numpy(), _X)
    with pytest.raises(TypeError, match="found element of type float at pos 0"):
        mt.flip(_x(), (1.0,))


def test_tensor_flip_varargs_take_one_int_like():
    for d in (1, np.int64(1), mt.tensor(1), mt.tensor([1]), np.array(1)):
        np.testing.assert_array_equal(_x().flip(d).numpy(), _X[:, ::-1], err_msg=repr(d))
    np.testing.assert_array_equal(_x().flip(1, 2).numpy(), _X[:, ::-1, ::-1])
    np.testing.assert_array_equal(_x().flip((1, 2)).numpy(), _X[:, ::-1, ::-1])
    np.testing.assert_array_equal(_x().flip([0]).numpy(), _X[::-1])
    np.testing.assert_array_equal(_x().flip(dims=[0]).numpy(), _X[::-1])
    np.testing.assert_array_equal(mt.Tensor.flip(_x(), 2).numpy(), _X[:, :, ::-1])


@pytest.mark.parametrize(
    "call, msg",
    [
        (lambda x: x.flip(dims=1), "argument 'dims' must be tuple of ints, not int"),
        (
            lambda x: x.flip(True),
            "argument 'dims' \\(position 1\\) must be tuple of ints, not bool",
        ),
        (
            lambda x: x.flip(1.0),
            "argument 'dims' \\(position 1\\) must be tuple of ints, not float",
        ),
        (lambda x: x.flip(None), "\\(position 1\\) must be tuple of ints, not NoneType"),
        (lambda x: x.flip(mt.tensor([1, 2])), "\\(position 1\\) must be tuple of ints, not Tensor"),
        (lambda x: x.flip(mt.tensor(1.0)), "\\(position 1\\) must be tuple of ints, not Tensor"),
        (lambda x: x.flip(range(2)), "\\(position 1\\) must be tuple of ints, not range"),
        (lambda x: x.flip(dims=mt.tensor([1])), "'dims' must be tuple of ints, not Tensor"),
        (lambda x: x.flip(1, dims=(2,)), "got multiple values for argument 'dims'"),
        (lambda x: x.flip(), 'missing 1 required positional arguments: "dims"'),
    ],
)
def test_tensor_flip_bad_dims(call, msg):
    with pytest.raises(TypeError, match=msg):
        call(_x())


def test_flip_gradients():
    x = mt.tensor(np.random.default_rng(0).standard_normal((2, 3)), requires_grad=True)
    assert gradcheck(lambda t: t.flip(1) * t, (x,))
    assert gradgradcheck(lambda t: mt.flip(t, [0, 1]) * t, (x,))


# --- interpolate(antialias=True) of float16 / bfloat16 ---


@pytest.mark.parametrize("dt, name", [(mt.float16, "Half"), (mt.bfloat16, "BFloat16")])
@pytest.mark.parametrize("mode", ["bilinear", "bicubic"])
@pytest.mark.parametrize(
    "shape, kw",
    [
        ((1, 2, 8, 8), dict(size=(4, 4))),
        ((1, 2, 8, 8), dict(size=(16, 16))),
        ((1, 2, 8, 8), dict(size=(8, 4))),
        ((1, 2, 8, 8), dict(scale_factor=0.5)),
        ((0, 2, 8, 8), dict(size=(4, 4))),  # an empty batch: torch dispatches before the copy
    ],
)
def test_antialias_half_types_not_implemented_on_cpu(dt, name, mode, shape, kw):
    x = mt.rand(*shape).to(dt)
    msg = f"^\"compute_index_ranges_weights\" not implemented for '{name}'$"
    with pytest.raises(NotImplementedError, match=msg):
        F.interpolate(x, mode=mode, antialias=True, **kw)


@pytest.mark.parametrize("dt", [mt.float16, mt.bfloat16])
def test_antialias_half_types_same_size_and_plain_modes_still_work(dt):
    x = mt.rand(1, 2, 8, 8).to(dt)
    same = F.interpolate(x, size=(8, 8), mode="bicubic", antialias=True)
    assert same.dtype == dt
    np.testing.assert_array_equal(same.float().numpy(), x.float().numpy())
    assert F.interpolate(x, size=(4, 4), mode="bilinear").dtype == dt  # no antialias: computes


@pytest.mark.parametrize("dt", [mt.float16, mt.bfloat16])
def test_antialias_half_types_compute_off_cpu(dt):
    # torch's CUDA antialias kernels take half types (in float32); the strict test device
    # stands in for CUDA
    x = mt.tensor(np.random.default_rng(5).standard_normal((1, 2, 9, 7)).astype(np.float32))
    xh = x.to("strict").to(dt)
    out = F.interpolate(xh, size=(4, 3), mode="bicubic", antialias=True)
    assert out.dtype == dt and out.device.type == "strict"
    ref = F.interpolate(x.to(dt).float(), size=(4, 3), mode="bicubic", antialias=True).to(dt)
    np.testing.assert_array_equal(out.cpu().float().numpy(), ref.float().numpy())


def test_antialias_float64_gradients_unchanged():
    x = mt.tensor(np.random.default_rng(1).standard_normal((1, 1, 6, 5)), requires_grad=True)
    assert gradcheck(lambda t: F.interpolate(t, size=(3, 2), mode="bilinear", antialias=True), (x,))


# --- orthogonal(householder) of an empty matrix ---


class _Holder(nn.Module):
    def __init__(self, shape):
        super().__init__()
        self.w = nn.Parameter(mt.zeros(*shape, dtype=mt.float64))


@pytest.mark.parametrize(
    "shape, triv, fn",
    [
        ((0, 3), False, "TransposeBackward0"),
        ((0, 3), True, "TransposeBackward0"),
        ((3, 0), False, "MulBackward0"),
        ((3, 0), True, "MmBackward0"),
        ((2, 0, 3), False, "TransposeBackward0"),
        ((2, 3, 0), False, "MulBackward0"),
        ((0, 2, 3), False, "TransposeBackward0"),
        ((0, 0), False, "MulBackward0"),
        ((0, 3, 3), False, "MulBackward0"),
    ],
)
def test_orthogonal_householder_empty_keeps_graph(shape, triv, fn):
    m = _Holder(shape)
    nn.utils.parametrizations.orthogonal(
        m, "w", orthogonal_map="householder", use_trivialization=triv
    )
    w = m.w
    assert w.shape == shape and w.dtype == mt.float64
    assert w.requires_grad and type(w.grad_fn).__name__ == fn
    w.sum().backward()  # runs; torch's empty householder_product gives no gradient
    assert m.parametrizations.w.original.grad is None


@pytest.mark.filterwarnings("ignore:Initializing zero-element tensors")
def test_orthogonal_householder_empty_linear():
    lin = nn.Linear(3, 0).double()
    nn.utils.parametrizations.orthogonal(lin, orthogonal_map="householder")
    assert lin.weight.requires_grad
    assert type(lin.weight.grad_fn).__name__ == "TransposeBackward0"
    out = lin(mt.ones(2, 3, dtype=mt.float64))
    assert out.shape == (2, 0)
    out.sum().backward()
    assert lin.parametrizations.weight.original.grad is None


def test_orthogonal_householder_nonempty_unchanged():
    m = _Holder((4, 3))
    with mt.no_grad():
        m.w.copy_(mt.tensor(np.random.default_rng(2).standard_normal((4, 3))))
    nn.utils.parametrizations.orthogonal(
        m, "w", orthogonal_map="householder", use_trivialization=False
    )
    q = m.w.detach().numpy()
    np.testing.assert_allclose(q.T @ q, np.eye(3), atol=1e-12)
    orth = m.parametrizations.w[0]
    x = m.parametrizations.w.original.detach()
    # the diagonal picks signs through .int() (a step), so differentiate the reflectors only
    diag = x - x.tril(-1)
    low = x.tril(-1).clone().requires_grad_()
    assert gradcheck(lambda t: orth(t.tril(-1) + diag), (low,))
    assert gradgradcheck(lambda t: orth(t.tril(-1) + diag), (low,))


# --- integer masks and repeats ---


def test_uint8_mask_of_the_wrong_shape_in_setitem_is_an_index_error():
    x = mt.arange(6)
    with pytest.raises(IndexError, match=r"The shape of the mask \[3\] at index 0 does not match"):
        x[mt.tensor([1, 0, 1], dtype=mt.uint8)] = 7
    with pytest.raises(RuntimeError, match="masked_fill_ only supports boolean masks"):
        x[mt.tensor([1, 0, 1, 0, 0, 0], dtype=mt.uint8)] = 7  # the right shape: masked_fill_'s
    assert x.tolist() == [0, 1, 2, 3, 4, 5]


@pytest.mark.parametrize(
    "dt, name", [(mt.uint8, "Byte"), (mt.int8, "Char"), (mt.int16, "Short"), (mt.bool, "Bool")]
)
def test_repeat_interleave_takes_int32_or_int64_repeats(dt, name):
    x = mt.tensor([10, 11, 12])
    msg = f"\"repeat_interleave_cpu\" not implemented for '{name}'"
    for reps in (mt.tensor([1, 0, 1]).to(dt), mt.tensor(1).to(dt)):
        with pytest.raises(NotImplementedError, match=msg):
            x.repeat_interleave(reps)
        with pytest.raises(NotImplementedError, match=msg):
            mt.repeat_interleave(x, reps)
    assert x.repeat_interleave(mt.tensor([1, 0, 2], dtype=mt.int32)).tolist() == [10, 12, 12]


# --- ecosystem details ---


def test_data_ptr_of_a_tensor_without_elements_is_zero():
    assert mt.zeros(0).data_ptr() == 0 and mt.empty(0, 3).data_ptr() == 0
    assert mt.zeros(3)[3:].data_ptr() == 0
    x = mt.zeros(3)
    assert x[1:].data_ptr() == x.data_ptr() + 4


def test_tensor_of_sequences_reads_items_by_index():
    # a pandas-like sequence: iterates as Python numbers, indexes as NumPy scalars (torch reads
    # items by index, so the NumPy dtype counts)
    class Column:
        def __init__(self, values):
            self._v = np.asarray(values)

        def __len__(self):
            return len(self._v)

        def __getitem__(self, i):
            return self._v[i]

        def __iter__(self):
            return iter(self._v.tolist())

    t = mt.tensor([Column([1.5, 2.5]), Column([3.0, 4.0])])
    assert t.dtype is mt.float64 and t.tolist() == [[1.5, 2.5], [3.0, 4.0]]
    assert mt.tensor([Column(np.array([1, 2], np.int32))]).dtype is mt.int32


def test_nn_modules_package_imports_under_another_name():
    # sys.modules["torch"] = minitorch, then `from torch.nn.modules.conv import _ConvNd` (thop)
    import subprocess
    import sys

    code = (
        "import sys, minitorch; sys.modules['torch'] = minitorch\n"
        "from torch.nn.modules.conv import _ConvNd\n"
        "import torch.nn.modules.batchnorm\n"
        "print('ok', _ConvNd.__name__)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "ok _ConvNd"


# --- training-loop details ---


@pytest.mark.parametrize("op", ["lt", "le", "gt", "ge", "eq", "ne"])
def test_comparison_functions_take_the_tensor_first(op):
    t = mt.ones(2)
    with pytest.raises(TypeError, match=rf"{op}\(\) received an invalid combination of arguments"):
        getattr(mt, op)(0.5, t)
    assert getattr(mt, op)(t, 0.5).dtype is mt.bool  # (Tensor, Number) works
    assert (0.5 < t).tolist() == [True, True]  # the operators reflect onto the tensor


@pytest.mark.parametrize(
    "make, dt, want",
    [
        (lambda: mt.nn.RNN(4, 3, batch_first=True), mt.float32, mt.bfloat16),
        (lambda: mt.nn.RNN(4, 3, nonlinearity="relu", num_layers=2), mt.float16, mt.bfloat16),
        (lambda: mt.nn.GRU(4, 3, batch_first=True), mt.float32, mt.float32),
        (lambda: mt.nn.GRU(4, 3, batch_first=True), mt.bfloat16, mt.bfloat16),
        (lambda: mt.nn.GRU(4, 3, batch_first=True), mt.float16, mt.float32),
        (lambda: mt.nn.LSTM(4, 3, batch_first=True), mt.float32, mt.bfloat16),
    ],
)
def test_recurrent_layers_under_cpu_autocast_take_torchs_dtypes(make, dt, want):
    mod = make()
    x = mt.ones(2, 5, 4, dtype=dt)
    with mt.autocast("cpu", dtype=mt.bfloat16):
        out, h = mod(x)
    assert out.dtype is want and (h[0] if isinstance(h, tuple) else h).dtype is want


def test_packed_rnn_under_cpu_autocast_is_lowered():
    rnn = mt.nn.RNN(4, 3)
    packed = mt.nn.utils.rnn.pack_padded_sequence(mt.ones(5, 2, 4), [5, 3])
    with mt.autocast("cpu", dtype=mt.bfloat16):
        out, h = rnn(packed)
    assert out.data.dtype is mt.bfloat16 and h.dtype is mt.bfloat16


@pytest.mark.parametrize("dt", [mt.bfloat16, mt.float16])
def test_half_rms_norm_scales_by_the_weight_in_float32_and_rounds_once(dt):
    rng = np.random.default_rng(16)
    x = mt.tensor(rng.standard_normal((64, 32)).astype(np.float32)).to(dt)
    w = mt.tensor(rng.standard_normal(32).astype(np.float32)).to(dt)
    out = mt.nn.functional.rms_norm(x, (32,), w, 1e-6)
    xf = x.float().numpy().astype(np.float64)
    once = xf / np.sqrt((xf**2).mean(-1, keepdims=True) + 1e-6) * w.float().numpy()
    want = mt.tensor(once.astype(np.float32)).to(dt)
    assert out.dtype is dt
    assert (out != want).sum().item() <= 2  # float32 against float64 rsqrt: an odd tie at most
    twice = (
        mt.tensor((xf / np.sqrt((xf**2).mean(-1, keepdims=True) + 1e-6)).astype(np.float32)).to(dt)
        * w
    )
    assert (out != twice).sum().item() > 100  # the old double rounding


# --- diffusion-sampler details ---


def test_softmax_backward_data_is_softmaxs_gradient():
    rng = np.random.default_rng(0)
    x = mt.tensor(rng.standard_normal((2, 3)), requires_grad=True)
    y = mt.softmax(x, 1)
    g = mt.tensor(rng.standard_normal((2, 3)))
    (want,) = mt.autograd.grad(y, x, g, retain_graph=True)
    got = mt._softmax_backward_data(g, y, -1, mt.float64)
    np.testing.assert_allclose(got.detach().numpy(), want.numpy(), rtol=1e-12)
    assert type(got.grad_fn).__name__ == "SoftmaxBackwardDataBackward0"  # differentiable again
    assert mt._softmax_backward_data(g.float(), y.float(), 1, mt.float16).dtype is mt.float16


def test_mha_with_kdim_checks_the_key_and_value_features():
    m = mt.nn.MultiheadAttention(8, 2, kdim=5, vdim=5, batch_first=True)
    q = mt.ones(2, 3, 8)
    with pytest.raises(AssertionError, match=r"expecting key weights shape of \(8, 6\)"):
        m(q, mt.ones(2, 4, 6), mt.ones(2, 4, 5))
    with pytest.raises(AssertionError, match=r"expecting value weights shape of \(8, 6\)"):
        m(q, mt.ones(2, 4, 5), mt.ones(2, 4, 6))
    assert m(q, mt.ones(2, 4, 5), mt.ones(2, 4, 5))[0].shape == (2, 3, 8)


def test_solve_refuses_a_0d_right_hand_side():
    A = mt.eye(1)
    for fn in (mt.linalg.solve, mt.linalg.solve_ex):
        with pytest.raises(RuntimeError, match="B must have at least 2 dimensions"):
            fn(A, mt.tensor(2.0))


@pytest.mark.parametrize("dt", [mt.float16, mt.bfloat16])
def test_half_add_sub_round_a_tensor_alpha_as_a_number(dt):
    rng = np.random.default_rng(0)
    x = mt.tensor(rng.standard_normal(1000).astype(np.float32)).to(dt)
    e = mt.tensor(rng.standard_normal(1000).astype(np.float32)).to(dt)
    sigma = mt.tensor(14.614643096923828)
    for fn in (mt.sub, mt.add):
        got = fn(x, e, alpha=sigma)
        assert got.dtype is dt and mt.equal(got, fn(x, e, alpha=sigma.item()))
    assert mt.equal(x.clone().sub_(e, alpha=sigma), mt.sub(x, e, alpha=14.614643096923828))


# --- global settings ---


def test_put_under_deterministic_algorithms():
    x = mt.zeros(5)
    idx, src = mt.tensor([0, 1, 1, 3]), mt.tensor([1.0, 2.0, 3.0, 4.0])
    try:
        mt.use_deterministic_algorithms(True)
        with pytest.raises(RuntimeError, match="put_ does not have a deterministic implementation"):
            x.clone().put_(idx, src)
        assert mt.put(x, idx, src, accumulate=True).tolist() == [1.0, 5.0, 0.0, 4.0, 0.0]
        mt.use_deterministic_algorithms(True, warn_only=True)
        with pytest.warns(UserWarning, match="put_ does not have a deterministic"):
            x.clone().put_(idx, src)
    finally:
        mt.use_deterministic_algorithms(False)
    x.clone().put_(idx, src)  # no check when determinism is off


def test_grad_mode_decorator_context_manager_base():
    from minitorch.autograd import grad_mode
    from minitorch.utils import _contextlib

    assert grad_mode._DecoratorContextManager is _contextlib._DecoratorContextManager
    assert isinstance(mt.no_grad(), grad_mode._DecoratorContextManager)


def test_empty_in_deterministic_mode_fills_as_torch():
    from minitorch.utils import deterministic

    assert mt.empty(2).tolist() == [0.0, 0.0]
    try:
        mt.use_deterministic_algorithms(True)
        assert mt.empty(2).isnan().all() and mt.empty_like(mt.ones(3)).isnan().all()
        assert mt.empty(2, dtype=mt.int8).tolist() == [127, 127]
        assert mt.zeros(1, dtype=mt.int64).new_empty(2).tolist() == [2**63 - 1] * 2
        assert mt.empty(2, dtype=mt.bool).tolist() == [True, True]
        assert mt.empty_strided((2,), (1,), dtype=mt.uint8).tolist() == [255, 255]
        deterministic.fill_uninitialized_memory = False
        assert mt.empty(2).tolist() == [0.0, 0.0]
    finally:
        deterministic.fill_uninitialized_memory = True
        mt.use_deterministic_algorithms(False)
