"""The README's "Differences from PyTorch" that are cheap to check, pinned.

Each test names the README claim it holds to. A test here failing means minitorch changed: if it
now matches PyTorch, delete the test and the README's sentence together.
"""

from __future__ import annotations

import struct
import warnings

import numpy as np
import pytest

import minitorch
import minitorch.nn.functional as F


def test_version_is_minitorchs_own():
    """README: `torch.__version__` is minitorch's own (`0.1.0`, a `TorchVersion`): code gating
    on PyTorch's version takes its old-PyTorch branch."""
    v = minitorch.__version__
    assert v == "0.1.0"
    assert type(v).__name__ == "TorchVersion"
    assert not v >= "2.0"


@pytest.mark.parametrize("device", ["mps", "xpu:0"])
def test_tensors_on_other_device_types_raise(device):
    """README: tensors live on cpu, cuda and meta only; other device types can be made and
    compared, but making a tensor there raises a RuntimeError."""
    assert minitorch.device(device) == minitorch.device(device)
    with pytest.raises(RuntimeError, match="tensors live on cpu, cuda or meta only"):
        minitorch.zeros(2, device=device)


def test_dtype_repr_reads_torch():
    """README: dtype reprs print as `torch.float32`, not `minitorch.float32`."""
    assert repr(minitorch.float32) == "torch.float32"


def test_float8_tensors_of_one_dtype_compute():
    """README: two float8 tensors of one dtype compute here (PyTorch: NotImplementedError), a
    number meeting one is refused as PyTorch refuses it, and `.numpy()` gives an ml_dtypes array."""
    pytest.importorskip("ml_dtypes")
    a = minitorch.ones(3).to(minitorch.float8_e4m3fn)
    np.testing.assert_array_equal((a + a).float().numpy(), [2.0, 2.0, 2.0])
    np.testing.assert_array_equal(a.sum().float().numpy(), 3.0)
    assert str(a.numpy().dtype) == "float8_e4m3fn"
    with pytest.raises(NotImplementedError, match="mul_cpu_reduced_float"):
        a * 0.5


def test_uint16_kernels_pytorch_lacks_compute():
    """README: uint16/uint32/uint64 refuse promotion as PyTorch does, but kernels PyTorch lacks
    for them (add, neg, max, flip) compute here."""
    u = minitorch.from_numpy(np.array([1, 2], dtype=np.uint16))
    np.testing.assert_array_equal((u + u).numpy(), np.array([2, 4], dtype=np.uint16))
    np.testing.assert_array_equal((-u).numpy(), np.array([65535, 65534], dtype=np.uint16))
    np.testing.assert_array_equal(u.flip(0).numpy(), np.array([2, 1], dtype=np.uint16))
    with pytest.raises(RuntimeError, match="Promotion for uint16, uint32, uint64 types"):
        u + minitorch.ones(2, dtype=minitorch.int32)


def test_complex_and_fft_out_of_scope():
    """README: complex dtypes are out of scope for now, and so is `torch.fft`."""
    assert not hasattr(minitorch, "complex64")
    assert not hasattr(minitorch, "fft")
    with pytest.raises(TypeError, match="no complex dtypes"):
        minitorch.tensor([1 + 2j])


def test_sparse_embedding_gives_dense_gradient():
    """README: `Embedding(sparse=True)` gives a dense gradient."""
    e = minitorch.nn.Embedding(5, 3, sparse=True)
    e(minitorch.tensor([1, 2])).sum().backward()
    assert e.weight.grad.layout == minitorch.strided
    assert not e.weight.grad.is_sparse


def test_sparse_adam_updates_rows_with_nonzero_gradient():
    """README: `optim.SparseAdam` updates the rows with a nonzero gradient (PyTorch: the rows
    looked up, and it refuses dense gradients)."""
    e = minitorch.nn.Embedding(4, 2, sparse=True)
    opt = minitorch.optim.SparseAdam(e.parameters(), lr=0.1)
    e(minitorch.tensor([1])).sum().backward()
    opt.step()
    opt.zero_grad()
    before = e.weight.detach().clone()
    # row 1 is looked up again with a zero gradient: its momentum would move it in PyTorch
    out = e(minitorch.tensor([0, 1])) * minitorch.tensor([[1.0, 1.0], [0.0, 0.0]])
    out.sum().backward()
    opt.step()
    moved = (e.weight.detach() != before).any(1).tolist()
    assert moved == [True, False, False, False]


@pytest.mark.filterwarnings("ignore::DeprecationWarning")
def test_compile_and_jit_pass_through():
    """README: `torch.compile` returns a function as it is given, `jit.script`/`jit.trace`
    return what they are given, and `torch.jit.save`/`load` raise."""
    m = minitorch.nn.Linear(2, 2)

    def fn(x):
        return x + 1

    assert minitorch.compile(fn) is fn
    assert minitorch.jit.script(m) is m
    assert minitorch.jit.trace(m, minitorch.ones(1, 2)) is m
    with pytest.raises(NotImplementedError, match="minitorch has no TorchScript"):
        minitorch.jit.save(m, "unused.pt")


def test_empty_is_zero_filled():
    """README: `empty()` is zero-filled (NaN or the integer maximum under
    `use_deterministic_algorithms(True)`, as PyTorch fills it then)."""
    np.testing.assert_array_equal(minitorch.empty(5).numpy(), np.zeros(5, np.float32))
    minitorch.use_deterministic_algorithms(True)
    try:
        assert np.isnan(minitorch.empty(2).numpy()).all()
        assert minitorch.empty(2, dtype=minitorch.int64).tolist() == [2**63 - 1] * 2
    finally:
        minitorch.use_deterministic_algorithms(False)


def test_np_asarray_of_tensor_requiring_grad():
    """README: `np.asarray(t)` works on a tensor that requires grad; `t.numpy()` keeps
    PyTorch's error."""
    t = minitorch.ones(2, requires_grad=True)
    np.testing.assert_array_equal(np.asarray(t), np.ones(2, np.float32))
    with pytest.raises(RuntimeError, match="Can't call numpy\\(\\) on Tensor that requires grad"):
        t.numpy()


def test_numpy_functions_with_an_op_return_tensors():
    """README: NumPy functions minitorch has an op for return Tensors and keep the graph; others
    return NumPy's result; bool ufuncs give bool tensors (PyTorch: uint8)."""
    a = minitorch.tensor([1.0, float("nan")], requires_grad=True)
    cat = np.concatenate([a, a])
    assert isinstance(cat, minitorch.Tensor) and cat.grad_fn is not None
    assert isinstance(np.mean(a), minitorch.Tensor)
    assert isinstance(np.unique(np.arange(3)), np.ndarray)
    isnan = np.isnan(a.detach())
    assert isinstance(isnan, minitorch.Tensor) and isnan.dtype == minitorch.bool
    assert (~isnan).tolist() == [True, False]


def test_memory_numpy_cannot_write_stays_read_only():
    """README: over memory NumPy refuses to write (`np.frombuffer` of `bytes`), in-place ops
    raise (PyTorch writes into the immutable object)."""
    buf = np.frombuffer(bytes(16), dtype=np.float32)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # not writable: warned as in PyTorch
        t = minitorch.from_numpy(buf)
    with pytest.raises(ValueError, match="read-only"):
        t.add_(1)
    assert t.tolist() == [0.0] * 4


def test_inference_tensor_refuses_in_place_before_writing():
    """README: an in-place op on an inference tensor outside inference_mode raises with the
    tensor unchanged (PyTorch's `zero_`/`uniform_` write first); `.data` of one is normal."""
    with minitorch.inference_mode():
        t = minitorch.ones(3)
    for op in (lambda: t.zero_(), lambda: t.uniform_()):
        with pytest.raises(RuntimeError, match="Inplace update to inference tensor"):
            op()
        assert t.tolist() == [1.0, 1.0, 1.0]
    assert t.is_inference() and not t.data.is_inference()


def test_floating_point_warnings_are_filtered():
    """README: `log(0)` and `1/0` give inf silently through a warnings filter; a filter the
    caller installs after it takes precedence and shows the RuntimeWarning."""
    with warnings.catch_warnings(record=True) as seen:
        out = minitorch.log(minitorch.zeros(1))
    assert out.tolist() == [float("-inf")] and not seen
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        minitorch.log(minitorch.zeros(1))
    assert [w.category for w in seen] == [RuntimeWarning]


def test_non_blocking_is_accepted_on_the_cpu():
    """README: `non_blocking=True` is accepted and ignored on the CPU."""
    t = minitorch.ones(2)
    assert t.to("cpu", non_blocking=True).tolist() == [1.0, 1.0]


def test_share_memory_leaves_earlier_views():
    """README: views taken before `share_memory_()` keep the old memory."""
    t = minitorch.zeros(3)
    view = t[:2]
    t.share_memory_()
    assert t.is_shared() and not view.is_shared()


def test_distributed_has_no_backend():
    """README: `torch.distributed.is_available()` is False; `DistributedDataParallel` exists
    but raises on construction."""
    assert minitorch.distributed.is_available() is False
    with pytest.raises(ValueError, match="process group has not been initialized"):
        minitorch.nn.parallel.DistributedDataParallel(minitorch.nn.Linear(2, 2))


def test_mixing_two_layouts_gives_row_major():
    """README: an op mixing two layouts returns a row-major output (PyTorch follows the first
    operand), so `.view()` works here where it raises in PyTorch."""
    x = minitorch.randn(2, 3, 4, 5).to(memory_format=minitorch.channels_last)
    out = x + minitorch.randn(2, 3, 4, 5)
    assert out.is_contiguous()
    assert out.view(2, -1).shape == (2, 60)


def test_keepdim_reduction_size_one_stride():
    """README: reductions lay out their results as PyTorch, keepdim=True of a channels_last
    input included (session 47; before, the size-1 dim kept the input's stride, 1)."""
    x = minitorch.randn(2, 3, 4, 5).to(memory_format=minitorch.channels_last)
    assert x.sum(1, keepdim=True).stride() == (20, 20, 5, 1)


def test_interpolate_nearest_gradient_follows_the_forward():
    """README: `interpolate(mode="nearest")` with a non-integer scale sends each output's
    gradient to the input it was read from (PyTorch's 1-d backward: [0, 1, 2, 3] here)."""
    x = minitorch.arange(4.0).reshape(1, 1, 4).requires_grad_()
    y = F.interpolate(x, scale_factor=1.2253797849030406, mode="nearest")
    assert y.flatten().tolist() == [0.0, 0.0, 1.0, 2.0]
    y.backward(minitorch.arange(4.0).reshape(1, 1, 4))
    assert x.grad.flatten().tolist() == [1.0, 2.0, 3.0, 0.0]


def _names(fn, depth):
    """The node names of the first `depth` levels of a graph, level by level."""
    levels, frontier = [], [fn]
    for _ in range(depth):
        levels.append([type(f).__name__ for f in frontier if f is not None])
        frontier = [g for f in frontier if f is not None for g, _ in f.next_functions]
    return levels


def test_graph_below_the_first_node_differs_for_some_functions():
    """README: still different below their first node: a batched matmul's views, circular
    padding, `bilinear` and `einsum` (PyTorch: BmmBackward0, CopySlices/SliceBackward0,
    TrilinearBackward0, PermuteBackward0 there)."""
    a = minitorch.randn(2, 3, 4, requires_grad=True)
    b = minitorch.randn(2, 4, 5, requires_grad=True)
    assert _names(minitorch.matmul(a, b).grad_fn, 2)[1] == ["AccumulateGrad", "AccumulateGrad"]
    x = minitorch.randn(1, 1, 4, 4, requires_grad=True)
    assert _names(F.pad(x, (1, 1, 1, 1), mode="circular").grad_fn, 2) == [
        ["CopySlices"],
        ["AccumulateGrad"],
    ]
    u = minitorch.randn(3, 4, requires_grad=True)
    assert _names(minitorch.einsum("ij,kj->ik", u, u).grad_fn, 2)[1] == [
        "AccumulateGrad",
        "AccumulateGrad",
    ]
    bilinear = minitorch.nn.Bilinear(4, 4, 2)(u, u)
    assert _names(bilinear.grad_fn, 3)[2] == ["ViewBackward0", "AccumulateGrad"]


def test_vmap_runs_the_function_per_sample():
    """README: `vmap` runs the function once per batch element, so `.item()` and data-dependent
    control flow, which torch's vmap refuses, run."""
    calls = []

    def f(v):
        calls.append(v.shape)
        return v * v[0].item() if v.sum() > 0 else -v

    out = minitorch.func.vmap(f)(minitorch.ones(4, 3))
    assert calls == [(3,)] * 4
    np.testing.assert_array_equal(out.numpy(), np.ones((4, 3), np.float32))


def test_forward_ad_is_computed_in_reverse_mode():
    """README: dual tensors show `requires_grad=True` and a `grad_fn`, and code under
    `no_grad()` carries no tangent (PyTorch's forward mode ignores `no_grad`)."""
    fwad = minitorch.autograd.forward_ad
    with fwad.dual_level():
        d = fwad.make_dual(minitorch.tensor([1.0, 2.0]), minitorch.tensor([1.0, 0.5]))
        assert d.requires_grad and d.grad_fn is not None
        with minitorch.no_grad():
            y = d.exp()
        assert fwad.unpack_dual(y).tangent is None
        np.testing.assert_allclose(fwad.unpack_dual(d * d).tangent.numpy(), [2.0, 2.0])


def test_cdist_is_differentiable_twice():
    """README: every built-in op is differentiable twice: a double backward through `cdist`
    gives the second derivative (PyTorch: not implemented)."""
    gen = np.random.default_rng(0)
    p = minitorch.tensor(gen.standard_normal((3, 2)), requires_grad=True)
    q = minitorch.tensor(gen.standard_normal((4, 2)))
    assert minitorch.autograd.gradgradcheck(lambda p: minitorch.cdist(p, q), (p,))


def test_index_arrays_bypass_saved_tensors_hooks():
    """README: arrays some built-in ops keep besides saved tensors (indices) are not passed
    through `saved_tensors_hooks` (PyTorch packs max's and sort's int64 indices)."""
    x = minitorch.randn(5, requires_grad=True)
    packed = []
    with minitorch.autograd.graph.saved_tensors_hooks(lambda t: packed.append(t) or t, lambda t: t):
        x.max(0)
        x.sort()
    assert packed == []


def test_onnx_export_raises():
    """README: `torch.onnx.export` raises; `torch.onnx.is_in_onnx_export()` answers False."""
    assert minitorch.onnx.is_in_onnx_export() is False
    with pytest.raises(RuntimeError, match="cannot export ONNX models"):
        minitorch.onnx.export(minitorch.nn.Linear(2, 2), (minitorch.ones(1, 2),), "unused.onnx")


def test_older_64_byte_rng_state_loads_reproducibly():
    """README: an older minitorch's 64-byte generator state still loads: the stream restarts
    from its bytes, reproducibly (PyTorch refuses any size but 5056)."""
    record = struct.pack("<8sIIIIQQQQQ", b"mtPCG64\0", 1, 0, 0, 0, 7, 1, 2, 3, 4)
    state = minitorch.tensor(list(record), dtype=minitorch.uint8)
    minitorch.set_rng_state(state)
    first = minitorch.rand(3).tolist()
    assert minitorch.initial_seed() == 7
    minitorch.set_rng_state(state)
    assert minitorch.rand(3).tolist() == first


def test_subclass_torch_function_for_methods_only():
    """README: a subclass's own `__torch_function__` is called for its Tensor methods and
    operators; a `torch.*` function reaching a built-in op with it raises a TypeError."""
    seen = []

    class Logged(minitorch.Tensor):
        @classmethod
        def __torch_function__(cls, func, types, args=(), kwargs=None):
            seen.append(func.__name__)
            return super().__torch_function__(func, types, args, kwargs or {})

    s = minitorch.ones(3).as_subclass(Logged)
    assert type(s.exp()) is Logged and type(s + 1) is Logged
    assert seen == ["exp", "add"]
    with pytest.raises(TypeError, match="not for torch.\\* functions"):
        minitorch.exp(s)


def test_lstsq_default_driver_is_computed_as_gelsd():
    """README: `linalg.lstsq`'s default CPU driver `gelsy` is computed as `gelsd`: with an
    explicit `rcond` on a rank-deficient matrix, the default gives `gelsd`'s rank and solution
    (PyTorch's pivoted-QR `gelsy` can count another rank)."""
    gen = np.random.default_rng(0)
    a = gen.standard_normal((6, 3)) @ gen.standard_normal((3, 5))
    a[:, 0] *= 1e-4
    b = minitorch.tensor(gen.standard_normal((6, 2)))
    a = minitorch.tensor(a)
    default = minitorch.linalg.lstsq(a, b, rcond=1e-3)
    gelsd = minitorch.linalg.lstsq(a, b, rcond=1e-3, driver="gelsd")
    assert int(default.rank) == int(gelsd.rank) == 3  # PyTorch's gelsy: 1
    np.testing.assert_array_equal(default.solution.numpy(), gelsd.solution.numpy())
