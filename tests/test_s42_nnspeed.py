"""The cheaper nn paths of session 42: F.linear's no-grad fast path and its direct recorded path,
the softmax family's fast paths (NOTE [ The no-grad fast path ]), cross_entropy's checks,
Linear reading its parameters from their registry (NOTE [ Parameters read from their registry ])
and a module call without hooks. Each returns what the full path returns, bit for bit, and every
hook still fires in torch's order."""

import numpy as np
import pytest

import minitorch as torch
from minitorch._ops import nn_kernels
from minitorch.autograd import function

nn = torch.nn
F = torch.nn.functional

FLOATS = (torch.float32, torch.float64, torch.float16, torch.bfloat16)


class full_path:
    """Turns the fast paths off, as a profile does (the full path's result is the reference)."""

    def __enter__(self):
        function.fast_path[0] = False

    def __exit__(self, *exc):
        function.fast_path[0] = True


def randn(*shape, dtype=torch.float32, seed=0, requires_grad=False):
    g = torch.Generator().manual_seed(seed)
    t = (torch.randn(shape, generator=g, dtype=torch.float64) * 2).to(dtype)
    return t.requires_grad_() if requires_grad else t


def bits(t):
    a = t.detach()
    if a.dtype is torch.bfloat16:
        a = a.view(torch.int16)
    return a.numpy()


def same(fast, full):
    """fast and full are one result: type, dtype, shape, strides, history, version, bits."""
    assert type(fast) is type(full)
    assert (fast.dtype, fast.shape, fast.device) == (full.dtype, full.shape, full.device)
    assert fast.stride() == full.stride()
    assert (fast.requires_grad, fast.is_leaf, fast._version) == (
        full.requires_grad,
        full.is_leaf,
        full._version,
    )
    assert (fast._base is None) == (full._base is None)
    assert type(fast.grad_fn) is type(full.grad_fn)
    np.testing.assert_array_equal(bits(fast), bits(full))  # NaN where NaN, signed zeros too


def both(fn, grad=False):
    """fn() with the fast paths on, then off (under no_grad unless grad)."""
    with torch.enable_grad() if grad else torch.no_grad():
        fast = fn()
        with full_path():
            full = fn()
    return fast, full


# --- F.linear ---

LINEAR_CASES = {
    "matrix": lambda dt: (randn(5, 4, dtype=dt), randn(3, 4, dtype=dt, seed=1)),
    "rows_strided": lambda dt: (randn(10, 4, dtype=dt)[::2], randn(3, 4, dtype=dt, seed=1)),
    "x_column_major": lambda dt: (randn(4, 5, dtype=dt).t(), randn(3, 4, dtype=dt, seed=1)),
    "w_column_major": lambda dt: (randn(5, 4, dtype=dt), randn(4, 3, dtype=dt, seed=1).t()),
    "x_cols_strided": lambda dt: (randn(5, 8, dtype=dt)[:, ::2], randn(3, 4, dtype=dt, seed=1)),
    "vector": lambda dt: (randn(4, dtype=dt), randn(3, 4, dtype=dt, seed=1)),
    "batched": lambda dt: (randn(2, 5, 4, dtype=dt), randn(3, 4, dtype=dt, seed=1)),
    "no_rows": lambda dt: (randn(0, 4, dtype=dt), randn(3, 4, dtype=dt, seed=1)),
    "no_features": lambda dt: (randn(5, 0, dtype=dt), randn(3, 0, dtype=dt, seed=1)),
    "one_by_one": lambda dt: (randn(1, 1, dtype=dt), randn(1, 1, dtype=dt, seed=1)),
    "inner_one": lambda dt: (randn(3, 1, dtype=dt), randn(2, 1, dtype=dt, seed=1)),
    "bias_rows_blas": lambda dt: (randn(300, 16, dtype=dt), randn(256, 16, dtype=dt, seed=1)),
}


@pytest.mark.parametrize("case", list(LINEAR_CASES))
@pytest.mark.parametrize("dtype", FLOATS, ids=str)
@pytest.mark.parametrize("bias", [True, False], ids=["bias", "no_bias"])
@pytest.mark.parametrize("params", [False, True], ids=["tensors", "parameters"])
def test_linear_matches_the_full_path(case, dtype, bias, params):
    x, w = LINEAR_CASES[case](dtype)
    b = randn(w.shape[0], dtype=dtype, seed=2) if bias else None
    if params:  # parameters that require grad, as a Linear's (nothing recorded under no_grad)
        w = nn.Parameter(w)
        b = nn.Parameter(b) if bias else None
    same(*both(lambda: F.linear(x, w, b)))
    if not params:  # nothing requires grad: nothing recorded in grad mode either
        same(*both(lambda: F.linear(x, w, b), grad=True))


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64], ids=str)
def test_linear_fast_path_computes_the_forward_product(dtype):
    x, w, b = randn(6, 5, dtype=dtype), randn(4, 5, dtype=dtype, seed=1), randn(4, dtype=dtype)
    xd, wd, bd = x.numpy(), w.numpy(), b.numpy()
    with torch.no_grad():
        out = F.linear(x, w, b)
        assert out._base is None and out.grad_fn is None and out._version == 0
        np.testing.assert_array_equal(out.numpy(), xd.dot(wd.T) + bd)  # the one GEMM, then + b
        np.testing.assert_array_equal(F.linear(x, w).numpy(), xd.dot(wd.T))
    ref = xd.astype(np.float64) @ wd.T.astype(np.float64) + bd
    np.testing.assert_allclose(out.numpy(), ref, rtol=1e-5 if dtype is torch.float32 else 1e-12)


def test_linear_errors_are_the_full_paths():
    x, w, b = randn(5, 4), randn(3, 4, seed=1), randn(3, seed=2)
    bad = {
        "in_features": lambda: F.linear(randn(5, 5), w, b),
        "bias_size": lambda: F.linear(x, w, randn(4)),
        "dtypes": lambda: F.linear(x.double(), w, b),
        "0-d": lambda: F.linear(randn(), w, b),
        "vector_weight": lambda: F.linear(x, randn(4), b),
        "extra": lambda: F.linear(x, w, b, 1),
        "list": lambda: F.linear([1.0], w, b),
    }
    for name, call in bad.items():
        with pytest.raises(Exception) as full:  # noqa: PT011 (the message is compared below)
            with torch.no_grad(), full_path():
                call()
        for grad in (False, True):
            with pytest.raises(full.type) as fast:  # noqa: PT012
                with torch.enable_grad() if grad else torch.no_grad():
                    call()
            assert str(fast.value) == str(full.value), name
    same(*both(lambda: F.linear(x.long(), w.long(), b.long())))  # integers: no fast path


@pytest.mark.parametrize("bias", [True, False], ids=["bias", "no_bias"])
@pytest.mark.parametrize("layout", ["row_major", "x_column_major", "batched", "vector"])
def test_linear_recorded_graph_is_linear_kernels(bias, layout):
    """The direct recorded path (a matrix input) builds linear_kernel's graph: torch's addmm (mm
    without a bias) of TBackward0 of the weight, the same saved tensors and gradients."""
    shape = {"row_major": (5, 4), "x_column_major": (4, 5), "batched": (2, 5, 4), "vector": (4,)}
    x0 = randn(*shape[layout], dtype=torch.float64)
    if layout == "x_column_major":
        x0 = x0.t()
    upstream = randn(*(x0.shape[:-1] + (3,)), dtype=torch.float64, seed=7)
    results = []
    for direct in (True, False):
        x = x0.detach().requires_grad_()
        w = nn.Parameter(randn(3, 4, dtype=torch.float64, seed=1))
        b = nn.Parameter(randn(3, dtype=torch.float64, seed=2)) if bias else None
        out = F.linear(x, w, b) if direct else nn_kernels.linear_kernel(x, w, b)
        fn = out.grad_fn
        names = [type(f).__name__ if f is not None else None for f, _ in fn.next_functions]
        saved = sorted(k for k in dir(fn) if k.startswith("_saved_"))
        (gx,) = torch.autograd.grad(out, x, upstream, create_graph=True)
        (ggx,) = torch.autograd.grad(gx.sum(), w)  # second order: d(sum(grad_x))/dw
        out.backward(upstream)
        grads = (x.grad, w.grad) + ((b.grad,) if bias else ())
        results.append((out, type(fn).__name__, names, saved, grads, ggx))
    (out, name, names, saved, grads, ggx), ref = results
    same(out, ref[0])
    assert (name, names, saved) == ref[1:4]
    for g, rg in zip(grads + (ggx,), ref[4] + (ref[5],), strict=True):
        np.testing.assert_array_equal(g.numpy(), rg.numpy())
    if layout == "row_major":
        assert name == ("AddmmBackward0" if bias else "MmBackward0")
        assert "TBackward0" in names


def test_linear_profile_and_inference_mode():
    x, w, b = randn(5, 4), randn(3, 4, seed=1), randn(3, seed=2)
    with torch.no_grad(), torch.profiler.profile() as prof:
        F.linear(x, w, b)
        F.softmax(x, 1)
        torch.log_softmax(x, 0)
    names = [e.key for e in prof.key_averages()]
    for op in ("TransposeT", "Linear", "Softmax", "LogSoftmax"):  # the full path's ops
        assert op in names, (op, names)
    with torch.inference_mode():
        outs = [F.linear(x, w, b), F.softmax(x, 1), F.log_softmax(x, -1), x.softmax(0)]
    for out in outs:
        assert out.is_inference()


def test_flop_counter_counts_the_fast_paths_products():
    from minitorch.utils.flop_counter import FlopCounterMode

    x, w, b = randn(5, 4), randn(3, 4, seed=1), randn(3, seed=2)
    with torch.no_grad():
        for bias in (b, None):
            with FlopCounterMode(display=False) as counter:
                out = F.linear(x, w, bias)
            assert counter.get_total_flops() == 2 * 5 * 4 * 3
            same(out, F.linear(x, w, bias))


def test_subclasses_still_dispatch():
    class Sub(torch.Tensor):  # torch's default __torch_function__: results are Subs
        pass

    seen = []

    class Logged(torch.Tensor):  # its own: called for methods only (NOTE [ Tensor subclasses ])
        @classmethod
        def __torch_function__(cls, func, types, args=(), kwargs=None):
            seen.append(func.__name__)
            return super().__torch_function__(func, types, args, kwargs or {})

    x, w, b = randn(5, 4), randn(3, 4, seed=1), randn(3, seed=2)
    with torch.no_grad():
        outs = [
            F.linear(x.as_subclass(Sub), w, b),
            F.linear(x, w.as_subclass(Sub)),
            F.softmax(x.as_subclass(Sub), 1),
            torch.log_softmax(x.as_subclass(Sub), 0),
            x.as_subclass(Sub).softmax(-1),
        ]
        refs = [F.linear(x, w, b), F.linear(x, w), F.softmax(x, 1), torch.log_softmax(x, 0)]
        refs.append(x.softmax(-1))
        for out, ref in zip(outs, refs, strict=True):
            assert type(out) is Sub and out.stride() == ref.stride() and out.grad_fn is None
            np.testing.assert_array_equal(bits(out), bits(ref))
        with pytest.raises(TypeError, match=r"not for torch.\* functions \(here LinearMm\)"):
            F.linear(x, w.as_subclass(Logged))
        assert seen == ["t"]  # the weight's transpose went through its method


def test_linear_under_cpu_autocast_is_autocasts():
    x, w, b = randn(5, 4), randn(3, 4, seed=1), randn(3, seed=2)
    with torch.no_grad():
        with torch.autocast("cpu", dtype=torch.bfloat16):
            out = F.linear(x, w, b)
        with full_path(), torch.autocast("cpu", dtype=torch.bfloat16):
            ref = F.linear(x, w, b)
    assert out.dtype is torch.bfloat16
    same(out, ref)


# --- the softmax family ---

SOFTMAX_OPS = {
    "F.softmax": F.softmax,
    "F.log_softmax": F.log_softmax,
    "torch.softmax": torch.softmax,
    "torch.log_softmax": torch.log_softmax,
    "Tensor.softmax": torch.Tensor.softmax,
    "Tensor.log_softmax": torch.Tensor.log_softmax,
}

SPECIAL = [
    [1.0, float("inf"), 2.0],
    [float("-inf")] * 3,
    [float("nan"), 0.0, 1.0],
    [-0.0, 0.0, -0.0],
    [1e30, -1e30, 0.0],
    [-0.0, float("-inf"), float("-inf")],
]


@pytest.mark.parametrize("op", list(SOFTMAX_OPS))
@pytest.mark.parametrize("dtype", FLOATS, ids=str)
@pytest.mark.parametrize(
    "shape,dims",
    [((4, 6), (-1, 0, 1, -2)), ((2, 3, 5), (-1, 0, 1, 2, -3)), ((5,), (0, -1)), ((0, 3), (0, 1))],
    ids=str,
)
def test_softmax_family_matches_the_full_path(op, dtype, shape, dims):
    fn = SOFTMAX_OPS[op]
    x = randn(*shape, dtype=dtype)
    for dim in dims:
        same(*both(lambda dim=dim: fn(x, dim)))
        same(*both(lambda dim=dim: fn(x, dim), grad=True))  # nothing requires grad
        if x.dim() == 2:
            same(*both(lambda dim=dim: fn(x.t(), dim)))  # a transposed input
    special = torch.tensor(SPECIAL, dtype=dtype)
    for dim in (-1, 0, 1):
        same(*both(lambda dim=dim: fn(special, dim)))


@pytest.mark.parametrize("op", list(SOFTMAX_OPS))
def test_softmax_family_values_and_errors(op):
    fn = SOFTMAX_OPS[op]
    x = randn(4, 6, dtype=torch.float64)
    with torch.no_grad():
        out = fn(x, 1).numpy()
    a = x.numpy()
    e = np.exp(a - a.max(1, keepdims=True))
    ref = e / e.sum(1, keepdims=True)
    np.testing.assert_allclose(out, np.log(ref) if "log" in op else ref, rtol=1e-13, atol=1e-15)
    bad = [(lambda: fn(x, 2)), (lambda: fn(x, -3)), (lambda: fn(x.long(), 1))]
    bad += [(lambda: fn(x, True)), (lambda: fn(x, 1.0)), (lambda: fn(randn(), 1))]
    for call in bad:
        with pytest.raises(Exception) as full:  # noqa: PT011 (compared below)
            with torch.no_grad(), full_path():
                call()
        with pytest.raises(full.type) as fast:  # noqa: PT012
            with torch.no_grad():
                call()
        assert str(fast.value) == str(full.value)


def test_softmax_family_records_where_grad_is_needed():
    x = randn(4, 6, requires_grad=True)
    upstream = randn(4, 6, seed=3)
    for name, fn in SOFTMAX_OPS.items():
        out = fn(x, -1)
        want = "LogSoftmaxBackward0" if "log" in name else "SoftmaxBackward0"
        assert type(out.grad_fn).__name__ == want
        assert out.grad_fn._saved_dim == 2**64 - 1  # -1 as given, read as torch shows it
        (g,) = torch.autograd.grad(out, x, upstream)
        with full_path():
            (g_full,) = torch.autograd.grad(fn(x, -1), x, upstream)
        np.testing.assert_array_equal(g.numpy(), g_full.numpy())
    with torch.no_grad():
        assert F.softmax(x, 1).grad_fn is None and not F.softmax(x, 1).requires_grad
    for dtype in (torch.float32, torch.float16):  # a 0-d input: one class (its kernel's branch)
        for fn in (torch.softmax, torch.log_softmax):
            x0 = torch.tensor(1.5, dtype=dtype, requires_grad=True)
            out = fn(x0, 0)
            assert type(out.grad_fn._saved_result._data) is np.ndarray
            assert out.item() == (0.0 if fn is torch.log_softmax else 1.0)
            (g,) = torch.autograd.grad(out, x0, torch.tensor(2.0, dtype=dtype), create_graph=True)
            assert g.dtype is dtype and g.shape == () and g.item() == 0.0


def test_softmax_implicit_dim_and_dtype_keep_the_full_path():
    x = randn(4, 6)
    with pytest.warns(UserWarning, match="Implicit dimension choice for softmax"):
        out = F.softmax(x)
    with torch.no_grad(), full_path(), pytest.warns(UserWarning):
        same(out, F.softmax(x))
    same(*both(lambda: F.softmax(x, 1, dtype=torch.float64)))
    same(*both(lambda: torch.log_softmax(x, 1, dtype=torch.float64)))
    with torch.no_grad():
        target = torch.empty(4, 6)
        assert torch.softmax(x, 1, out=target) is target


def test_softmax_warnings_stay_in_the_kernels():
    x = torch.tensor(SPECIAL)
    import warnings

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("default")  # (minitorch's kernel-module filter still applies)
        warnings.filterwarnings(
            "ignore", category=RuntimeWarning, module=r"minitorch\.(_ops|_backend|_dtype)"
        )
        with torch.no_grad():
            for fn in SOFTMAX_OPS.values():
                fn(x, 1)
    assert not caught, [str(w.message) for w in caught]


# --- cross_entropy ---

CE_CASES = {
    "mean": lambda lg, t: F.cross_entropy(lg, t),
    "sum": lambda lg, t: F.cross_entropy(lg, t, reduction="sum"),
    "none": lambda lg, t: F.cross_entropy(lg, t, reduction="none"),
    "ignored": lambda lg, t: F.cross_entropy(lg, torch.where(t == 1, -100, t)),
    "all_ignored": lambda lg, t: F.cross_entropy(lg, torch.full_like(t, -100)),
    "ignore_index": lambda lg, t: F.cross_entropy(lg, t, ignore_index=2),
    "negative_ignored": lambda lg, t: F.cross_entropy(lg, t - 1, ignore_index=-1),
    "uint8": lambda lg, t: F.cross_entropy(lg, t.to(torch.uint8)),
    "uint8_none": lambda lg, t: F.cross_entropy(lg, t.to(torch.uint8), reduction="none"),
    "weight": lambda lg, t: F.cross_entropy(lg, t, weight=torch.arange(1.0, 6.0).to(lg.dtype)),
    "smoothing": lambda lg, t: F.cross_entropy(lg, t, label_smoothing=0.2),
    "strided_target": lambda lg, t: F.cross_entropy(lg, torch.stack([t, t], 1)[:, 0]),
    "legacy": lambda lg, t: F.cross_entropy(lg, t, size_average=False),
    "nll_loss": lambda lg, t: F.nll_loss(lg, t),
    "nll_loss_sum": lambda lg, t: F.nll_loss(lg, t, reduction="sum"),
}


@pytest.mark.filterwarnings("ignore:size_average and reduce args will be deprecated")
@pytest.mark.parametrize("case", list(CE_CASES))
@pytest.mark.parametrize("dtype", FLOATS, ids=str)
def test_cross_entropy_matches_the_full_path(case, dtype):
    lg = randn(8, 5, dtype=dtype)
    t = torch.tensor([0, 1, 2, 3, 4, 0, 1, 2])
    same(*both(lambda: CE_CASES[case](lg, t)))
    same(*both(lambda: CE_CASES[case](lg, t), grad=True))
    lg.requires_grad_()
    loss, full = both(lambda: CE_CASES[case](lg, t), grad=True)
    (g,) = torch.autograd.grad(loss.sum(), lg)
    (g_full,) = torch.autograd.grad(full.sum(), lg)
    np.testing.assert_array_equal(bits(g), bits(g_full))


def test_cross_entropy_values():
    lg = randn(32, 10, dtype=torch.float64)
    t = torch.tensor(np.random.default_rng(0).integers(0, 10, 32))
    a = lg.numpy()
    logp = a - a.max(1, keepdims=True)
    logp -= np.log(np.exp(logp).sum(1, keepdims=True))
    want = -logp[np.arange(32), t.numpy()]
    with torch.no_grad():
        np.testing.assert_allclose(F.cross_entropy(lg, t).item(), want.mean(), rtol=1e-13)
        np.testing.assert_allclose(
            F.cross_entropy(lg, t, reduction="none").numpy(), want, rtol=1e-13
        )
    lg.requires_grad_()
    F.cross_entropy(lg, t).backward()
    onehot = np.eye(10)[t.numpy()]
    np.testing.assert_allclose(lg.grad.numpy(), (np.exp(logp) - onehot) / 32, atol=1e-15)


@pytest.mark.parametrize(
    "target,kwargs",
    [
        ([0, 1, 2, 3, 5, 0, 1, 2], {}),
        ([0, 1, -2, 3, 4, 0, 1, 2], {}),
        ([0, 1, -100, 3, 7, 0, 1, 2], {}),
        ([0, 1, -2, 3, 4, 0, 1, 2], {"ignore_index": 1}),
        ([0, 1, -(2**62), 3, 4, 0, 1, 2], {}),
        ([0, 1, 2, 3, 4, 0, 1, 2**62], {"reduction": "none"}),
    ],
    ids=str,
)
def test_cross_entropy_target_errors(target, kwargs):
    lg = randn(8, 5)
    t = torch.tensor(target)
    with pytest.raises(IndexError) as full:
        with torch.no_grad(), full_path():
            F.cross_entropy(lg, t, **kwargs)
    bad = next(v for v in target if v != kwargs.get("ignore_index", -100) and not 0 <= v < 5)
    assert str(full.value) == f"Target {bad} is out of bounds."
    for grad in (False, True):
        with pytest.raises(IndexError, match=f"^Target {bad} is out of bounds.$"):
            with torch.enable_grad() if grad else torch.no_grad():
                F.cross_entropy(lg.requires_grad_(grad), t, **kwargs)
        with pytest.raises(IndexError, match=f"^Target {bad} is out of bounds.$"):
            F.nll_loss(lg, t, **kwargs)
    with torch.no_grad():  # a target that is in range passes the check
        F.cross_entropy(lg, torch.where((t < 0) | (t >= 5), 4, t), **kwargs)


def test_cross_entropy_shape_errors():
    lg = randn(8, 5)
    t = torch.tensor([0, 1, 2, 3, 4, 0, 1, 2])
    with pytest.raises(ValueError, match=r"Expected input batch_size \(8\) to match target"):
        F.cross_entropy(lg, t[:5])
    with pytest.raises(RuntimeError, match="multi-target not supported"):
        F.cross_entropy(lg, t.reshape(8, 1))
    with pytest.raises(RuntimeError, match="expected target dtype to be Long or Byte"):
        F.cross_entropy(lg, t.short())
    with pytest.raises(RuntimeError, match="expected target dtype to be Long or Byte, but got Int"):
        F.cross_entropy(lg, t.int())
    with pytest.raises(ValueError, match="avg is not a valid value for reduction"):
        F.cross_entropy(lg, t, reduction="avg")


# --- modules ---


def test_linear_module_is_f_linear_of_its_parameters():
    torch.manual_seed(0)
    x = randn(6, 4)
    for bias in (True, False):
        lin = nn.Linear(4, 3, bias=bias)
        for grad in (False, True):
            with torch.enable_grad() if grad else torch.no_grad():
                out, ref = lin(x), F.linear(x, lin.weight, lin.bias)
            same(out, ref)
            assert out.requires_grad == grad
        lin(input=x).sum().backward()  # by keyword
        np.testing.assert_array_equal(lin.weight.grad.numpy(), np.tile(x.numpy().sum(0), (3, 1)))


def test_linear_module_sees_what_attribute_lookup_sees():
    torch.manual_seed(0)
    x = randn(6, 4)

    class Masked(nn.Linear):  # a subclass whose weight is a property over the parameter
        mask = None

        @property
        def weight(self):
            try:
                w = self._parameters["weight"]
            except KeyError:  # (Module.register_parameter asks hasattr first)
                raise AttributeError("weight") from None
            return w if self.mask is None else w * self.mask

    m = Masked(4, 3)
    m.mask = torch.tensor([[1.0, 0.0, 1.0, 0.0]])
    same(m(x), F.linear(x, m._parameters["weight"] * m.mask, m.bias))

    lin = nn.Linear(4, 3)
    torch.nn.utils.prune.l1_unstructured(lin, "weight", amount=0.5)  # weight moved out
    assert "weight" not in lin._parameters
    same(lin(x), F.linear(x, lin.weight, lin.bias))
    assert (lin.weight == 0).sum().item() == 6

    lin = torch.nn.utils.parametrizations.weight_norm(nn.Linear(4, 3))  # a generated class
    same(lin(x), F.linear(x, lin.weight, lin.bias))

    lin = nn.Linear(4, 3)
    w, b = randn(3, 4, seed=5), randn(3, seed=6)
    out = torch.func.functional_call(lin, {"weight": w, "bias": b}, (x,))
    same(out, F.linear(x, w, b))

    def swap(module, args):  # a pre-hook that replaces the parameter
        module.weight = nn.Parameter(torch.zeros(3, 4))

    lin.register_forward_pre_hook(swap)
    np.testing.assert_array_equal(lin(x).detach().numpy(), np.tile(lin.bias.detach(), (6, 1)))

    del lin.bias
    with pytest.raises(AttributeError, match="^'Linear' object has no attribute 'bias'$"):
        lin(x)


def test_module_call_passes_arguments_as_given():
    class Scaled(nn.Module):
        def forward(self, x, scale=2.0, *, shift=0.0):
            return x * scale + shift

    m, x = Scaled(), randn(3)
    same(m(x), x * 2.0)
    same(m(x, 3.0), x * 3.0)
    same(m(x, shift=1.0), x * 2.0 + 1.0)
    same(m(x=x, scale=0.5), x * 0.5)
    with pytest.raises(TypeError, match="missing 1 required positional argument: 'x'"):
        m()
    with pytest.raises(TypeError, match="got an unexpected keyword argument 'bad'"):
        m(x, bad=1)


def test_module_hooks_fire_in_order():
    """Every kind of hook, registered on a Linear and globally, fires in torch's order (the
    order the reference test reads from torch), and the call is plain again once they are
    removed."""
    log = []
    torch.manual_seed(0)
    lin = nn.Linear(4, 3)
    x = randn(5, 4, requires_grad=True)
    mod = torch.nn.modules.module
    handles = [
        mod.register_module_forward_pre_hook(lambda m, a: log.append("global_pre")),
        mod.register_module_forward_hook(lambda m, a, o: log.append("global_fwd")),
        mod.register_module_full_backward_pre_hook(lambda m, g: log.append("global_bw_pre")),
        mod.register_module_full_backward_hook(lambda m, gi, go: log.append("global_bw")),
        lin.register_forward_pre_hook(lambda m, a: log.append("pre")),
        lin.register_forward_pre_hook(
            lambda m, a, k: log.append(("pre_kw", sorted(k))), with_kwargs=True
        ),
        lin.register_forward_pre_hook(lambda m, a: log.append("pre_first"), prepend=True),
        lin.register_forward_hook(lambda m, a, o: log.append("fwd")),
        lin.register_forward_hook(
            lambda m, a, k, o: log.append(("fwd_kw", sorted(k))), with_kwargs=True
        ),
        lin.register_forward_hook(lambda m, a, o: log.append("fwd_always"), always_call=True),
        lin.register_full_backward_pre_hook(lambda m, g: log.append("bw_pre")),
        lin.register_full_backward_hook(lambda m, gi, go: log.append("bw")),
    ]
    try:
        lin(x).sum().backward()
        lin(input=x)
    finally:
        for h in handles:
            h.remove()
    assert log == HOOK_ORDER
    log.clear()
    with torch.no_grad():
        same(lin(x), F.linear(x, lin.weight, lin.bias))
    lin(x).sum().backward()
    assert log == []


HOOK_ORDER = [
    "global_pre", "pre_first", "pre", ("pre_kw", []), "global_fwd", "fwd", ("fwd_kw", []),
    "fwd_always", "global_bw_pre", "bw_pre", "global_bw", "bw",
    "global_pre", "pre_first", "pre", ("pre_kw", ["input"]), "global_fwd", "fwd",
    ("fwd_kw", ["input"]), "fwd_always",
]  # fmt: skip


def test_relu_module_and_function():
    x = randn(5, 4)
    same(*both(lambda: nn.ReLU()(x)))
    same(*both(lambda: F.relu(x), grad=True))
    y = x.clone()
    out = nn.ReLU(inplace=True)(y)
    assert out is y and y._version == 1
    np.testing.assert_array_equal(out.numpy(), np.maximum(x.numpy(), 0))
    for bad in (lambda: F.relu(x > 0), lambda: F.relu(x > 0, inplace=True)):
        with pytest.raises(RuntimeError, match="^Boolean inputs not supported for relu$"):
            bad()
    with pytest.raises(TypeError, match="relu"):
        F.relu([1.0])
    xg = x.clone().requires_grad_()
    assert type(nn.ReLU()(xg).grad_fn).__name__ == "ReluBackward0"


def test_sequential_mlp():
    torch.manual_seed(0)
    mlp = nn.Sequential(
        nn.Linear(32, 64), nn.ReLU(), nn.Linear(64, 64), nn.ReLU(), nn.Linear(64, 10)
    )
    x = randn(32, 32)
    with torch.no_grad():
        out = mlp(x)
        h = x
        for m in mlp:
            h = m(h)
        same(out, h)
        with full_path():
            same(out, mlp(x))
    grads = []
    for fast in (True, False):
        mlp.zero_grad()
        function.fast_path[0] = fast
        try:
            mlp(x).square().sum().backward()
        finally:
            function.fast_path[0] = True
        grads.append([p.grad.clone() for p in mlp.parameters()])
    for g, g_full in zip(*grads, strict=True):
        np.testing.assert_array_equal(g.numpy(), g_full.numpy())

    class Reversed(nn.Sequential):  # a subclass's own __iter__ is still what forward walks
        def __iter__(self):
            return reversed(list(self._modules.values()))

    rev = Reversed(nn.Linear(4, 8), nn.Linear(8, 4))
    x = randn(2, 8)
    same(rev(x), rev[0](rev[1](x)))  # (2, 8) -> (2, 4) -> (2, 8): walked backwards
