"""Session 29 (helper ext2): extending torch the modern way, as research code and the "Python
custom operators" tutorial do it, run under torch and minitorch with the same seeds and compared
record by record: custom ops over NumPy kernels (numpy_sin, a data-dependent nonzero, a mutating
op, tensor lists, optional tensors, scalars/dtypes/devices with defaults, keyword-only
arguments), register_autograd with setup_context and needs_input_grad, gradcheck and
gradgradcheck through custom ops, register_fake + opcheck (successes and failures),
register_kernel per device, Library DEF/FRAGMENT/IMPL with CPU and CompositeImplicitAutograd
kernels, torch.ops overload packets and schemas, custom ops inside trained nn.Modules saved and
loaded by state_dict, autograd.Function with setup_context and vmap / generate_vmap_rule under
torch.func, FlopCounterMode for MLP / CNN / transformer MFU estimates (custom_mapping, depth,
tables), ModuleTracker, queue_callback from hooks, and the errors users meet.

Known and left (not compared):
- infer_schema's list of valid types is shortened, and a missing kernel's NotImplementedError
  lists only the backends that have one (see test_library_reference.py).
- register_vmap's rule and a Function's vmap staticmethod are stored, not called: minitorch's
  vmap runs the operator once per sample (so the kernel sees unbatched inputs, and torch's check
  of what a vmap staticmethod returns does not happen).
- opcheck runs no fake tracing: its test_aot_dispatch_* run the kernel and its backward, so a
  fake with too few outputs fails test_faketensor only. A fake on the meta device is refused
  (minitorch has no meta device).
- Library.impl of an operator not defined yet raises here (torch registers the kernel ahead of
  the definition); register_autograd(None) raises here at registration.
- torch's ModuleTracker files some backward FLOPs of nn.TransformerEncoderLayer under its
  dropouts: only the totals are compared (see test_flop_counter_reference.py).
- torch._ops.OpOverload has no minitorch._ops counterpart (that package holds the built-in ops):
  isinstance checks use minitorch.library.OpOverload."""

import contextlib
import importlib.util
import io
import re

import numpy as np
import pytest

from tests.reference._one_thread import one_torch_thread  # noqa: F401 - an autouse fixture
from tests.reference._programs import assert_program_matches

torch = pytest.importorskip("torch")


def _clean(text: str) -> str:
    text = re.sub(r"<module '[\w.]+' from '[^']*'>", "<module>", text)
    text = re.sub(r" at 0x[0-9a-f]+", "", text)
    return re.sub(r"registered at [^ ]+:\d+", "registered at <site>", text)


def _err(rec, name, fn):
    try:
        out = fn()
    except Exception as e:  # noqa: BLE001 - the exception is the record
        rec(name, f"{type(e).__name__}: {_clean(str(e))}")
        return None
    rec(name, "no error")
    return out


def _ns(base, dt):
    """A namespace per dtype: a program run twice in one process defines its operators anew."""
    return base + "_" + str(dt).split(".")[-1]


def _np(t):
    return t.detach().cpu().numpy()


# --- custom ops over NumPy kernels ---


def _table(fc, *depth):
    """fc's table: torch's get_table needs the optional `tabulate` package (CI has none), so
    both libraries record a placeholder without it."""
    if importlib.util.find_spec("tabulate") is None:
        return "(tabulate is not installed)"
    return fc.get_table(*depth)


def p_numpy_sin(L, dt, rec):
    """The tutorial's numpy_sin with a fake, an autograd formula that reads needs_input_grad,
    checked by gradcheck / gradgradcheck / opcheck, then used in a small fit."""
    T = L.Tensor

    @L.library.custom_op(_ns("ext2_sin", dt) + "::numpy_sin", mutates_args=())
    def numpy_sin(x: T, scale: float = 1.0) -> T:
        return L.from_numpy(np.sin(_np(x)) * scale).to(x.device)

    @numpy_sin.register_fake
    def _(x, scale=1.0):
        return L.empty_like(x)

    def setup_context(ctx, inputs, output):
        x, scale = inputs
        ctx.scale = scale
        ctx.save_for_backward(x)
        needs.append(str(ctx.needs_input_grad))

    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        return grad * x.cos() * ctx.scale, None

    needs = []
    numpy_sin.register_autograd(backward, setup_context=setup_context)
    L.manual_seed(0)
    x = L.randn(5, dtype=dt, requires_grad=True)
    y = numpy_sin(x, 2.0)
    rec("y", y)
    rec("grad_fn", type(y.grad_fn).__name__)
    (g,) = L.autograd.grad(y.sum(), x, create_graph=True)
    rec("g", g)
    (gg,) = L.autograd.grad(g.sum(), x)
    rec("gg", gg)
    rec("needs", str(needs))
    if dt == L.float64:
        rec("gradcheck", str(L.autograd.gradcheck(lambda t: numpy_sin(t, 0.5), (x,))))
        rec("gradgradcheck", str(L.autograd.gradgradcheck(lambda t: numpy_sin(t, 0.5), (x,))))
    rec("opcheck", str(L.library.opcheck(numpy_sin, (x, 3.0))))
    rec("ops", getattr(L.ops, _ns("ext2_sin", dt)).numpy_sin.default(x.detach(), scale=0.5))
    # a fit of amplitude and phase through the custom op
    a = L.tensor(0.5, dtype=dt, requires_grad=True)
    ph = L.tensor(0.1, dtype=dt, requires_grad=True)
    t = L.linspace(0, 3, 20, dtype=dt)
    target = 1.5 * L.sin(t + 0.7)
    opt = L.optim.Adam([a, ph], lr=0.05)
    for _ in range(30):
        opt.zero_grad()
        loss = ((a * numpy_sin(t + ph) - target) ** 2).mean()
        loss.backward()
        opt.step()
    rec("fit", L.stack([a, ph, loss]))


def p_numpy_nonzero(L, rec):
    """A data-dependent output: nonzero by NumPy, its fake asking for a dynamic size."""
    T = L.Tensor

    @L.library.custom_op("ext2_nz::numpy_nonzero", mutates_args=())
    def numpy_nonzero(x: T) -> T:
        res = np.stack(np.nonzero(_np(x)), axis=1)
        return L.tensor(res, device=x.device)

    @numpy_nonzero.register_fake
    def _(x):
        ctx = L.library.get_ctx()
        nnz = ctx.new_dynamic_size()
        return x.new_empty(nnz, x.dim(), dtype=L.int64)

    x = L.tensor([[0.0, 1.0, 0.0], [2.0, 0.0, 3.0]])
    out = numpy_nonzero(x)
    rec("out", out)
    rec("dtype", str(out.dtype))
    rec("matches", bool((out == L.nonzero(x)).all()))
    rec("opcheck", str(L.library.opcheck(numpy_nonzero, (x,))))
    rec("empty", numpy_nonzero(L.zeros(3, 2)).shape)


def p_mutation(L, rec):
    """In-place ops with mutates_args: the version counter, opcheck's schema test, mutating a
    tensor list and an out= style operator."""
    T = L.Tensor

    @L.library.custom_op("ext2_mut::numpy_sin_", mutates_args={"x"})
    def numpy_sin_(x: T) -> None:
        a = _np(x)
        np.sin(a, out=a)

    x = L.linspace(0, 1, 4)
    v = x._version
    rec("returns", str(numpy_sin_(x)))
    rec("x", x)
    rec("version bump", x._version - v)
    rec("schema", str(L.ops.ext2_mut.numpy_sin_.default._schema))

    @L.library.custom_op("ext2_mut::add_into", mutates_args=("out",))
    def add_into(a: T, b: T, out: T) -> None:
        out.copy_(a + b)

    out = L.empty(3)
    v = out._version
    add_into(L.ones(3), L.full((3,), 2.0), out)
    rec("out", out)
    rec("out version", out._version - v)
    rec("opcheck add_into", str(L.library.opcheck(add_into, (L.ones(3), L.ones(3), L.empty(3)))))

    @L.library.custom_op("ext2_mut::zero_all", mutates_args=("xs",))
    def zero_all(xs: list[T]) -> None:
        for t in xs:
            t.zero_()

    xs = [L.ones(2), L.ones(3)]
    vs = [t._version for t in xs]
    zero_all(xs)
    rec("zeroed", L.cat(xs))
    rec("list versions", [t._version - v for t, v in zip(xs, vs, strict=True)])
    rec("list schema", str(L.ops.ext2_mut.zero_all.default._schema))

    @L.library.custom_op("ext2_mut::unknown", mutates_args="unknown")
    def unknown(x: T, y: T) -> T:
        return x + y

    rec("unknown schema", str(L.ops.ext2_mut.unknown.default._schema))
    leaf = L.ones(2, requires_grad=True)
    _err(rec, "mutate leaf", lambda: numpy_sin_(leaf))


def p_argument_kinds(L, rec):
    """Tensor lists, optional tensors, ints / floats / bools / str / dtype / device with defaults
    and keyword-only arguments, as one op; its schema, defaults and the values it sees."""
    T = L.Tensor
    seen = []

    @L.library.custom_op("ext2_args::combine", mutates_args=())
    def combine(
        xs: list[T],
        w: T | None = None,
        n: int = 2,
        eps: float = 1e-6,
        flag: bool = False,
        mode: str = "sum",
        dtype: L.dtype | None = None,
        sizes: list[int] | None = None,
        *,
        alpha: float = 1.0,
        dev: L.device | None = None,
    ) -> tuple[T, T]:
        seen.append(f"{n} {eps} {flag} {mode} {dtype} {sizes} {alpha} {dev}")
        s = L.stack(xs).sum(0) if mode == "sum" else L.stack(xs).mean(0)
        if w is not None:
            s = s * w
        out = s * n * alpha + eps
        if dtype is not None:
            out = out.to(dtype)
        return out, out.abs() if flag else out.clone()

    rec("schema", str(L.ops.ext2_args.combine.default._schema))
    xs = [L.arange(3.0), L.ones(3)]
    rec("plain", combine(xs)[0])
    rec("all", combine(xs, L.full((3,), 2.0), 3, 0.5, True, "mean", L.float64, [1, 2], alpha=2.0,
                        dev=L.device("cpu"))[1])  # fmt: skip
    rec("keywords", combine(xs=xs, mode="mean", n=1)[0])
    rec("dtype out", str(combine(xs, dtype=L.float16)[0].dtype))
    rec("seen", " | ".join(seen))
    _err(rec, "alpha positional", lambda: combine(xs, None, 2, 0.1, False, "sum", None, None, 2.0))
    _err(rec, "bad dtype", lambda: combine(xs, dtype="float32"))
    _err(rec, "bad list", lambda: combine(xs, sizes=[1.5]))
    _err(rec, "bad str", lambda: combine(xs, mode=3))
    _err(rec, "not a list", lambda: combine(L.ones(3)))
    rec("tuple ok", combine((L.ones(2), L.ones(2)))[0])
    a = L.ones(3, requires_grad=True)
    b = L.ones(3, requires_grad=True)
    out = combine([a, b])
    rec("no formula grad_fn", type(out[0].grad_fn).__name__)


def p_autograd_formula(L, dt, rec):
    """A two-input op with non-tensor arguments: setup_context saves what needs_input_grad asks
    for, backward gives None for the rest; first and second derivatives against the same
    function written with built-in ops."""
    T = L.Tensor

    @L.library.custom_op(_ns("ext2_ag", dt) + "::scaled_mm", mutates_args=())
    def scaled_mm(a: T, b: T, alpha: float, transpose: bool = False) -> T:
        bb = _np(b).T if transpose else _np(b)
        return L.from_numpy(alpha * (_np(a) @ bb))

    calls = []

    def setup_context(ctx, inputs, output):
        a, b, alpha, transpose = inputs
        ctx.alpha, ctx.transpose = alpha, transpose
        ctx.save_for_backward(a if ctx.needs_input_grad[1] else None,
                              b if ctx.needs_input_grad[0] else None)  # fmt: skip

    def backward(ctx, grad):
        a, b = ctx.saved_tensors
        calls.append(str(ctx.needs_input_grad))
        bt = b.t() if ctx.transpose and b is not None else b
        ga = grad @ bt.t() * ctx.alpha if ctx.needs_input_grad[0] else None
        gb = None
        if ctx.needs_input_grad[1]:
            gb = a.t() @ grad * ctx.alpha
            if ctx.transpose:
                gb = gb.t()
        return ga, gb, None, None

    scaled_mm.register_autograd(backward, setup_context=setup_context)
    L.manual_seed(1)
    a = L.randn(3, 4, dtype=dt, requires_grad=True)
    b = L.randn(5, 4, dtype=dt, requires_grad=True)
    out = scaled_mm(a, b, 0.5, True)
    ref = 0.5 * a @ b.t()
    rec("out", out)
    rec("same", L.allclose(out, ref))
    gout = L.randn(3, 5, dtype=dt)
    ga, gb = L.autograd.grad(out, (a, b), gout, create_graph=True)
    rec("ga", ga)
    rec("gb", gb)
    (h,) = L.autograd.grad((ga**2).sum() + (gb * gb).sum(), b)
    rec("second", h)
    only_a = scaled_mm(a, b.detach(), 2.0, True)
    only_a.sum().backward()
    rec("a.grad", a.grad)
    rec("calls", " ".join(calls))
    if dt == L.float64:
        for tr in (True, False):

            def fn(x, y, tr=tr):
                return scaled_mm(x, y if tr else y.t(), 0.7, tr)

            rec(f"gradcheck {tr}", str(L.autograd.gradcheck(fn, (a, b))))
            rec(f"gradgradcheck {tr}", str(L.autograd.gradgradcheck(fn, (a, b))))


def p_opcheck_kinds(L, rec):
    """opcheck on correct and broken registrations, raising and not, and with chosen tests."""
    T = L.Tensor

    @L.library.custom_op("ext2_oc::good", mutates_args=())
    def good(x: T, k: int = 2) -> tuple[T, T]:
        return x * k, x.sum(0)

    good.register_fake(lambda x, k=2: (L.empty_like(x), x.new_empty(x.shape[1:])))
    good.register_autograd(
        lambda ctx, g1, g2: (g1 * ctx.k + g2, None),
        setup_context=lambda ctx, inputs, output: setattr(ctx, "k", inputs[1]),
    )
    x = L.randn(3, 2, requires_grad=True)
    rec("good", str(L.library.opcheck(good, (x,), {"k": 3})))
    rec("good overload", str(L.library.opcheck(L.ops.ext2_oc.good.default, (x, 4))))
    _err(rec, "packet", lambda: L.library.opcheck(L.ops.ext2_oc.good, (x,)))
    _err(rec, "bad utils", lambda: L.library.opcheck(good, (x,), test_utils=("test_nothing",)))

    @L.library.custom_op("ext2_oc::few_outputs", mutates_args=())
    def few_outputs(x: T) -> tuple[T, T]:
        return x.clone(), x.clone()

    few_outputs.register_fake(lambda x: (L.empty_like(x),))
    res = L.library.opcheck(few_outputs, (L.ones(2),), raise_exception=False)
    # (torch's test_aot_dispatch_dynamic then fails on its fake outputs; minitorch runs no fake)
    rec("few", f"{type(res['test_faketensor']).__name__}: {res['test_faketensor']}")

    @L.library.custom_op("ext2_oc::wrong_rank", mutates_args=())
    def wrong_rank(x: T) -> T:
        return x.clone()

    wrong_rank.register_fake(lambda x: x.new_empty(x.shape[0], 1))
    _err(rec, "rank", lambda: L.library.opcheck(wrong_rank, (L.ones(2),)))

    @L.library.custom_op("ext2_oc::mutates_silently", mutates_args=())
    def mutates_silently(x: T, y: T) -> T:
        y.mul_(2)
        return x + y

    mutates_silently.register_fake(lambda x, y: L.empty_like(x))
    res = L.library.opcheck(mutates_silently, (L.ones(2), L.ones(2)), raise_exception=False)
    rec("silent", str({k: v if isinstance(v, str) else str(v) for k, v in res.items()}))
    rec("schema only", str(L.library.opcheck(good, (x,), test_utils="test_schema")))


def p_library_def_impl(L, rec):
    """Operators defined by schema text in a DEF library, kernels in FRAGMENT / IMPL libraries
    (CPU, CompositeImplicitAutograd), overloads chosen by the packet, autograd registered by
    name, and the libraries' lifetimes."""
    lib = L.library.Library("ext2_lib", "DEF")
    lib.define("clamp_mul(Tensor x, float lo, float hi, Scalar k=2) -> Tensor")
    lib.define("clamp_mul.list(Tensor[] xs, float lo, float hi) -> Tensor[]")
    lib.define("softclip(Tensor x, *, float beta=1.) -> Tensor")
    impl_lib = L.library.Library("ext2_lib", "IMPL", "CPU")

    def clamp_mul(x, lo, hi, k=2):
        return L.from_numpy(np.clip(_np(x), lo, hi) * k)

    impl_lib.impl("clamp_mul", clamp_mul)
    impl_lib.impl("clamp_mul.list", lambda xs, lo, hi: [t.clamp(lo, hi) for t in xs])
    comp = L.library.Library("ext2_lib", "FRAGMENT")
    comp.impl("softclip", lambda x, beta=1.0: L.tanh(x * beta) / beta,
              "CompositeImplicitAutograd")  # fmt: skip
    x = L.linspace(-2, 2, 5)
    rec("default", L.ops.ext2_lib.clamp_mul(x, -1.0, 1.0))
    rec("k", L.ops.ext2_lib.clamp_mul(x, -1.0, 1.0, 3))
    rec("k float", L.ops.ext2_lib.clamp_mul.default(x, -1.0, 1.0, k=0.5))
    rec("list", L.cat(L.ops.ext2_lib.clamp_mul.list([x, x * 2], -1.0, 1.0)))
    rec("packet picks list", L.cat(L.ops.ext2_lib.clamp_mul([x, x], 0.0, 1.0)))
    rec("overloads", str(sorted(L.ops.ext2_lib.clamp_mul.overloads())))
    rec("schemas", " | ".join(str(getattr(L.ops.ext2_lib.clamp_mul, o)._schema)
                              for o in ("default", "list")))  # fmt: skip
    rec("softclip schema", str(L.ops.ext2_lib.softclip.default._schema))
    xr = x.clone().requires_grad_()
    y = L.ops.ext2_lib.softclip(xr, beta=2.0)
    y.sum().backward()
    rec("softclip grad", xr.grad)
    rec("softclip grad_fn", type(y.grad_fn).__name__)
    # an autograd formula registered on the Library op by name
    L.library.register_autograd(
        "ext2_lib::clamp_mul",
        lambda ctx, g: (g * ctx.mask * ctx.k, None, None, None),
        setup_context=lambda ctx, inputs, output: (
            setattr(ctx, "mask", (inputs[0] >= inputs[1]) & (inputs[0] <= inputs[2])),
            setattr(ctx, "k", inputs[3]),
        ),
    )
    xr = L.linspace(-2, 2, 5, requires_grad=True)
    out = L.ops.ext2_lib.clamp_mul(xr, -1.0, 1.0, 3)
    rec("formula grad_fn", type(out.grad_fn).__name__)
    out.sum().backward()
    rec("clamp grad", xr.grad)
    _err(rec, "define on IMPL", lambda: impl_lib.define("nope(Tensor x) -> Tensor"))
    _err(rec, "bad type", lambda: lib.define("bad(Tensor x, flot y) -> Tensor"))
    _err(rec, "missing kernel", lambda: lib.define("orphan(Tensor x) -> Tensor")
         or L.ops.ext2_lib.orphan(L.ones(1)))  # fmt: skip
    del comp
    import gc

    gc.collect()
    try:  # the first sentence: torch's list of backends is its own
        L.ops.ext2_lib.softclip(L.ones(2))
    except NotImplementedError as e:
        rec("after del", str(e).split(" This could be")[0])


def p_register_kernel(L, rec):
    """custom_op with device_types, register_kernel per device and the default kernel."""
    T = L.Tensor
    log = []

    @L.library.custom_op("ext2_dev::affine", mutates_args=(), device_types="cpu")
    def affine(x: T, w: float, b: float) -> T:
        log.append("cpu-only")
        return x * w + b

    rec("cpu", affine(L.ones(2), 2.0, 1.0))

    @L.library.custom_op("ext2_dev::gelu_np", mutates_args=())
    def gelu_np(x: T) -> T:
        log.append("default")
        return L.nn.functional.gelu(x)

    rec("default", gelu_np(L.linspace(-1, 1, 3)))

    @gelu_np.register_kernel("cpu")
    def _(x):
        log.append("numpy")
        a = _np(x)
        return L.from_numpy(0.5 * a * (1 + np.tanh(0.7978845608028654 * (a + 0.044715 * a**3))))

    rec("numpy kernel", gelu_np(L.linspace(-1, 1, 3)))
    L.library.register_kernel("ext2_dev::affine", "cpu", lambda x, w, b: (log.append("again"),
                              x * w - b)[1])  # fmt: skip
    rec("replaced", affine(L.ones(2), 2.0, 1.0))
    rec("log", " ".join(log))
    _err(rec, "bad device", lambda: gelu_np.register_kernel("tpu")(lambda x: x))


def p_custom_op_module(L, dt, rec):
    """A custom op inside an nn.Module (a NumPy RMS-norm with its gradient registered), trained
    with AdamW and a scheduler, saved and loaded through state_dict."""
    T = L.Tensor

    @L.library.custom_op(_ns("ext2_mod", dt) + "::rms_norm", mutates_args=())
    def rms_norm(x: T, weight: T, eps: float = 1e-6) -> T:
        a, w = _np(x), _np(weight)
        r = 1.0 / np.sqrt((a * a).mean(-1, keepdims=True) + eps)
        return L.from_numpy((a * r * w).astype(a.dtype))

    @rms_norm.register_fake
    def _(x, weight, eps=1e-6):
        return L.empty_like(x)

    def setup_context(ctx, inputs, output):
        x, w, eps = inputs
        ctx.save_for_backward(x, w)
        ctx.eps = eps

    def backward(ctx, grad):
        x, w = ctx.saved_tensors
        r = (x.pow(2).mean(-1, keepdim=True) + ctx.eps).rsqrt()
        xhat = x * r
        gx = grad * w
        gx = r * (gx - xhat * (gx * xhat).mean(-1, keepdim=True))
        gw = (grad * xhat).reshape(-1, x.shape[-1]).sum(0)
        return gx, gw, None

    rms_norm.register_autograd(backward, setup_context=setup_context)

    class RMSNorm(L.nn.Module):
        def __init__(self, d):
            super().__init__()
            self.weight = L.nn.Parameter(L.ones(d, dtype=dt))

        def forward(self, x):
            return rms_norm(x, self.weight, 1e-5)

    class Net(L.nn.Module):
        def __init__(self):
            super().__init__()
            self.fc1 = L.nn.Linear(6, 8, dtype=dt)
            self.norm = RMSNorm(8)
            self.fc2 = L.nn.Linear(8, 2, dtype=dt)

        def forward(self, x):
            return self.fc2(L.nn.functional.silu(self.norm(self.fc1(x))))

    L.manual_seed(3)
    net = Net()
    opt = L.optim.AdamW(net.parameters(), lr=0.02, weight_decay=0.01)
    sched = L.optim.lr_scheduler.StepLR(opt, 3, gamma=0.5)
    X = L.randn(16, 6, dtype=dt)
    Y = L.randint(0, 2, (16,))
    for step in range(6):
        opt.zero_grad()
        loss = L.nn.functional.cross_entropy(net(X), Y)
        loss.backward()
        opt.step()
        sched.step()
        rec(f"loss{step}", loss)
    rec.params("p", net, grads=True)
    h = L.randn(2, 8, dtype=dt, requires_grad=True)
    rec("opcheck", str(L.library.opcheck(rms_norm, (h, net.norm.weight.detach(), 1e-5))))
    buf = io.BytesIO()
    L.save({"model": net.state_dict(), "opt": opt.state_dict()}, buf)
    buf.seek(0)
    state = L.load(buf)
    net2 = Net()
    rec("load", str(net2.load_state_dict(state["model"])))
    rec("same out", net2(X))
    if dt == L.float64:
        x = L.randn(2, 8, dtype=dt, requires_grad=True)
        w = L.randn(8, dtype=dt, requires_grad=True)
        rec("gradcheck", str(L.autograd.gradcheck(rms_norm, (x, w))))


def p_optional_and_keyword_grads(L, dt, rec):
    """A NumPy linear op with an optional bias and a keyword-only activation flag: gradients for
    the tensors present, None for the absent bias, keyword_only_inputs in setup_context, and
    gradcheck with and without the bias."""
    T = L.Tensor

    @L.library.custom_op(_ns("ext2_opt", dt) + "::np_linear", mutates_args=())
    def np_linear(x: T, w: T, b: T | None = None, *, relu: bool = False) -> T:
        out = _np(x) @ _np(w).T
        if b is not None:
            out = out + _np(b)
        if relu:
            out = np.maximum(out, 0)
        return L.from_numpy(np.ascontiguousarray(out))

    def setup_context(ctx, inputs, keyword_only_inputs, output):
        x, w, b = inputs
        ctx.save_for_backward(x, w, output)
        ctx.relu = keyword_only_inputs["relu"]
        ctx.has_bias = b is not None

    def backward(ctx, grad):
        x, w, out = ctx.saved_tensors
        if ctx.relu:
            grad = grad * (out > 0).to(grad.dtype)
        gx = grad @ w if ctx.needs_input_grad[0] else None
        gw = grad.t() @ x if ctx.needs_input_grad[1] else None
        gb = grad.sum(0) if ctx.has_bias and ctx.needs_input_grad[2] else None
        return gx, gw, gb

    np_linear.register_autograd(backward, setup_context=setup_context)
    np_linear.register_fake(lambda x, w, b=None, *, relu=False: x.new_empty(x.shape[0], w.shape[0]))
    L.manual_seed(5)
    x = L.randn(6, 4, dtype=dt, requires_grad=True)
    w = L.randn(3, 4, dtype=dt, requires_grad=True)
    b = L.randn(3, dtype=dt, requires_grad=True)
    for relu in (False, True):
        for bias in (None, b):
            out = np_linear(x, w, bias, relu=relu)
            grads = L.autograd.grad(out.pow(2).sum(), [x, w] + ([b] if bias is not None else []))
            for i, g in enumerate(grads):
                rec(f"g{i} relu={relu} bias={bias is not None}", g)
    rec("schema", str(getattr(L.ops, _ns("ext2_opt", dt)).np_linear.default._schema))
    rec("opcheck", str(L.library.opcheck(np_linear, (x, w, b), {"relu": True})))
    if dt == L.float64:
        rec("gradcheck", str(L.autograd.gradcheck(lambda x, w, b: np_linear(x, w, b), (x, w, b))))
        rec("gradcheck nb", str(L.autograd.gradcheck(lambda x, w: np_linear(x, w), (x, w))))


def p_optimizer_in_backward(L, dt, rec):
    """The "optimizer in backward" pattern: a per-parameter SGD step from a post-accumulate-grad
    hook, grads freed at once, and a queue_callback that logs the step when backward ends."""
    nn = L.nn
    L.manual_seed(6)
    model = nn.Sequential(nn.Linear(5, 8), nn.ReLU(), nn.Linear(8, 1)).to(dt)
    opts = {p: L.optim.SGD([p], lr=0.05, momentum=0.9) for p in model.parameters()}
    engine = L.autograd.Variable._execution_engine
    log = []

    def step_hook(p):
        opts[p].step()
        opts[p].zero_grad()
        if not log or log[-1] != "queued":
            engine.queue_callback(lambda: log.append("step done"))
            log.append("queued")

    for p in model.parameters():
        p.register_post_accumulate_grad_hook(step_hook)
    X = L.randn(20, 5, dtype=dt)
    Y = (X[:, :1] * 2 - X[:, 1:2]).tanh()
    for i in range(4):
        loss = nn.functional.mse_loss(model(X), Y)
        loss.backward()
        rec(f"loss{i}", loss)
        log.append(f"grads none {all(p.grad is None for p in model.parameters())}")
    rec("log", str(log))
    rec.params("p", model)


def p_flops_gpt(L, rec):
    """Training-step FLOPs of a tiny GPT (embedding, causal attention by matmuls, MLP, tied
    head) against the 6 N D estimate, and the MFU it implies for a measured step time."""
    fcm = _flop_module(L)
    nn = L.nn
    L.manual_seed(7)
    V, D, H, S, B = 50, 32, 4, 8, 3

    class Layer(nn.Module):
        def __init__(self):
            super().__init__()
            self.ln1, self.ln2 = nn.LayerNorm(D), nn.LayerNorm(D)
            self.qkv, self.out = nn.Linear(D, 3 * D), nn.Linear(D, D)
            self.fc, self.proj = nn.Linear(D, 4 * D), nn.Linear(4 * D, D)

        def forward(self, x):
            b, s, _ = x.shape
            q, k, v = self.qkv(self.ln1(x)).split(D, -1)
            q, k, v = (t.view(b, s, H, D // H).transpose(1, 2) for t in (q, k, v))
            att = q @ k.transpose(-1, -2) / (D // H) ** 0.5
            mask = L.ones(s, s, dtype=L.bool).tril()
            att = att.masked_fill(~mask, float("-inf")).softmax(-1)
            y = (att @ v).transpose(1, 2).reshape(b, s, D)
            x = x + self.out(y)
            return x + self.proj(nn.functional.gelu(self.fc(self.ln2(x))))

    class GPT(nn.Module):
        def __init__(self):
            super().__init__()
            self.tok = nn.Embedding(V, D)
            self.pos = nn.Embedding(S, D)
            self.layers = nn.ModuleList([Layer(), Layer()])
            self.ln = nn.LayerNorm(D)

        def forward(self, idx):
            x = self.tok(idx) + self.pos(L.arange(idx.shape[1]))
            for layer in self.layers:
                x = layer(x)
            return self.ln(x) @ self.tok.weight.t()

    model = GPT()
    idx = L.randint(0, V, (B, S))
    with fcm.FlopCounterMode(display=False, depth=3) as fc:
        logits = model(idx)
        loss = nn.functional.cross_entropy(logits.view(-1, V), idx.view(-1))
        loss.backward()
    total = fc.get_total_flops()
    n = sum(p.numel() for n_, p in model.named_parameters() if "pos" not in n_)
    rec("loss", loss)
    rec("total", total)
    rec("ratio to 6ND", total / (6 * n * B * S))
    rec("counts", _counts(fc))
    rec("table", _table(fc, 2))
    rec("mfu", f"{total / 0.5 / 1e9:.4f} GFLOP/s")


def p_explicit_schema_and_lists(L, rec):
    """custom_op with a schema written out (a mutated buffer and a tensor-list output), ops
    returning lists with gradients, impl() in its decorator and list-of-keys forms, and
    Library.impl on an OpOverload."""
    T = L.Tensor

    @L.library.custom_op(
        "ext2_sch::ema_update", mutates_args=("avg",),
        schema="(Tensor(a!) avg, Tensor x, float decay) -> ()",
    )  # fmt: skip
    def ema_update(avg, x, decay):
        avg.mul_(decay).add_(x, alpha=1 - decay)

    avg = L.zeros(3)
    for i in range(3):
        ema_update(avg, L.full((3,), float(i + 1)), 0.9)
    rec("avg", avg)
    rec("avg version", avg._version)
    rec("schema", str(L.ops.ext2_sch.ema_update.default._schema))

    @L.library.custom_op("ext2_sch::split_scale", mutates_args=())
    def split_scale(x: T, sections: int, scales: list[float]) -> list[T]:
        return [c * s for c, s in zip(x.chunk(sections), scales, strict=True)]

    split_scale.register_autograd(
        lambda ctx, grads: (L.cat([g * s for g, s in zip(grads, ctx.scales, strict=True)]),
                            None, None),
        setup_context=lambda ctx, inputs, output: setattr(ctx, "scales", inputs[2]),
    )  # fmt: skip
    split_scale.register_fake(lambda x, sections, scales: list(L.empty_like(x).chunk(sections)))
    x = L.arange(6.0, requires_grad=True)
    parts = split_scale(x, 3, [1.0, 2.0, 3.0])
    rec("parts", str([p.tolist() for p in parts]))
    rec("type", type(parts).__name__)
    (parts[0].sum() + (parts[2] ** 2).sum()).backward()
    rec("x.grad", x.grad)
    args = (x.detach().requires_grad_(), 2, [1.0, 0.5])
    _err(rec, "opcheck aliasing fake", lambda: L.library.opcheck(split_scale, args))

    @split_scale.register_fake
    def _(x, sections, scales):
        return [c.new_empty(c.shape) for c in x.chunk(sections)]

    rec("opcheck", str(L.library.opcheck(split_scale, args)))

    @split_scale.register_fake
    def _(x, sections, scales):
        return [x] + [c.new_empty(c.shape) for c in x.chunk(sections)][1:]

    _err(rec, "opcheck fake returns input", lambda: L.library.opcheck(split_scale, args))
    rec("list schema", str(L.ops.ext2_sch.split_scale.default._schema))
    L.library.define("ext2_sch::twice", "(Tensor x) -> Tensor")

    @L.library.impl("ext2_sch::twice", ["cpu", "cuda"])
    def twice(x):
        return x * 2

    rec("twice", L.ops.ext2_sch.twice(L.ones(2)))
    lib = L.library.Library("ext2_sch", "FRAGMENT")
    lib.define("thrice(Tensor x) -> Tensor")
    lib.impl(L.ops.ext2_sch.thrice.default, lambda x: x * 3, "CompositeExplicitAutograd")
    rec("thrice", L.ops.ext2_sch.thrice(L.ones(2)))
    y = L.ones(2, requires_grad=True)
    out = L.ops.ext2_sch.thrice(y)
    rec("thrice grad_fn", type(out.grad_fn).__name__ if out.grad_fn is not None else "None")
    rec("thrice requires_grad", out.requires_grad)


def p_custom_op_under_func(L, dt, rec):
    """A custom op with a registered autograd formula and vmap rule under torch.func: grad,
    jacrev, vmap (the rule's results), per-sample gradients, and a wrong formula caught by
    gradcheck."""
    T = L.Tensor
    ns = _ns("ext2_func", dt)

    @L.library.custom_op(ns + "::np_softplus", mutates_args=())
    def np_softplus(x: T, beta: float = 1.0) -> T:
        a = _np(x)
        return L.from_numpy(np.logaddexp(0.0, beta * a) / beta)

    def setup_context(ctx, inputs, output):
        ctx.save_for_backward(inputs[0])
        ctx.beta = inputs[1]

    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        return grad * L.sigmoid(ctx.beta * x), None

    np_softplus.register_autograd(backward, setup_context=setup_context)

    def vmap_rule(info, in_dims, x, beta=1.0):
        return np_softplus(x, beta), in_dims[0]

    np_softplus.register_vmap(vmap_rule)
    L.manual_seed(8)
    x = L.randn(4, 3, dtype=dt)
    rec("vmap", L.func.vmap(np_softplus, in_dims=(1, None))(x, 2.0))
    # torch's custom ops are refused by the gradient transforms (their generated Function has
    # no setup_context), and so are minitorch's
    _err(rec, "grad", lambda: L.func.grad(lambda t: np_softplus(t, 2.0).sum())(x))
    _err(rec, "jacrev", lambda: L.func.jacrev(lambda t: np_softplus(t))(x[0]))
    w = L.randn(3, 2, dtype=dt)  # (minitorch's vmap runs the kernel per sample, torch the rule)
    rec("vmap matmul", L.func.vmap(lambda xi: np_softplus(xi @ w))(x))
    rec("autograd", L.autograd.functional.jacobian(lambda t: np_softplus(t), x[0]))
    rec("hessian", L.autograd.functional.hessian(lambda t: np_softplus(t).sum(), x[0]))
    np_softplus.register_autograd(lambda ctx, g: (g * 0.5, None))
    xr = x.clone().requires_grad_()
    ok = L.autograd.gradcheck(lambda t: np_softplus(t), (xr,), raise_exception=False,
                              eps=1e-6, atol=1e-5)  # fmt: skip
    rec("gradcheck wrong", str(ok))
    try:
        L.autograd.gradcheck(lambda t: np_softplus(t), (xr,), eps=1e-6, atol=1e-5)
    except Exception as e:  # noqa: BLE001 - the exception is the record
        rec("gradcheck error", f"{type(e).__name__}: {str(e).splitlines()[0]}")


def p_library_grad_modes(L, rec):
    """A Library operator with a CPU kernel and a formula registered by name: outputs'
    requires_grad and grad_fn under no_grad, inference_mode, with and without inputs that need
    gradients, and retain_graph through it."""
    lib = L.library.Library("ext2_gm", "DEF")
    lib.define("cube(Tensor x) -> Tensor")
    lib.impl("cube", lambda x: L.from_numpy(_np(x) ** 3), "CPU")
    L.library.register_autograd(
        "ext2_gm::cube",
        lambda ctx, g: g * 3 * ctx.saved_tensors[0] ** 2,
        setup_context=lambda ctx, inputs, output: ctx.save_for_backward(inputs[0]),
    )
    x = L.tensor([1.0, -2.0, 0.5], requires_grad=True)
    y = L.ops.ext2_gm.cube(x)
    rec("grad_fn", type(y.grad_fn).__name__)
    rec("requires", y.requires_grad)
    y.sum().backward(retain_graph=True)
    y.sum().backward()
    rec("x.grad twice", x.grad)
    with L.no_grad():
        z = L.ops.ext2_gm.cube(x)
    rec("no_grad", f"{z.requires_grad} {z.grad_fn}")
    with L.inference_mode():
        z = L.ops.ext2_gm.cube(x)
    rec("inference", z.requires_grad)
    z = L.ops.ext2_gm.cube(x.detach())
    rec("detached", f"{z.requires_grad} {z.grad_fn}")
    (g,) = L.autograd.grad(L.ops.ext2_gm.cube(x).sum(), x, create_graph=True)
    rec("create_graph", f"{g.requires_grad} {type(g.grad_fn).__name__}")
    (gg,) = L.autograd.grad(g.sum(), x)
    rec("gg", gg)


def p_tracker_backward(L, rec):
    """ModuleTracker's parents seen from the backward of each layer of an MLP (a full backward
    hook records them) and after the backward; a memory profiler's per-module accounting."""
    from importlib import import_module

    ModuleTracker = import_module(f"{L.__name__}.utils.module_tracker").ModuleTracker
    nn = L.nn
    L.manual_seed(9)
    model = nn.Sequential(nn.Linear(4, 6), nn.ReLU(), nn.Linear(6, 2))
    fw, bw = [], []
    with ModuleTracker() as tracker:
        hooks = []
        for name, m in model.named_children():
            hooks.append(
                m.register_forward_hook(
                    lambda mod, a, o, name=name: fw.append(f"{name} {sorted(tracker.parents)}")
                )
            )
            hooks.append(m.register_full_backward_hook(
                lambda mod, gi, go, name=name: bw.append(f"{name} {tracker.is_bw}")))  # fmt: skip
        x = L.randn(3, 4, requires_grad=True)
        model(x).sum().backward()
        rec("after", str(sorted(tracker.parents)))
        for h in hooks:
            h.remove()
    rec("fw", fw)
    rec("bw", bw)


def p_schema_introspection(L, rec):
    """What graph passes read off an operator's schema: argument names, types, defaults,
    keyword-only flags, alias annotations and mutability; kernels registered; namespace listing."""
    lib = L.library.Library("ext2_intro", "DEF")
    lib.define(
        "f(Tensor(a!) x, Tensor? y, Tensor[] z, Tensor?[] w, SymInt n, SymInt[2] s, Scalar c, "
        "ScalarType t, Device d, str st, bool b, *, float k=2., int[]? i=None, "
        "float[] fl=[1., 2.]) -> (Tensor(a!), Tensor[])"
    )
    lib.define("g(Tensor x) -> Tensor")
    lib.impl("g", lambda x: x + 1, "CPU")
    sch = L.ops.ext2_intro.f.default._schema
    rec("names", [a.name for a in sch.arguments])
    rec("types", str([str(a.type) for a in sch.arguments]))
    rec("returns", str([str(r.type) for r in sch.returns]))
    rec("defaults", str([a.default_value for a in sch.arguments]))
    rec("kwarg_only", [a.kwarg_only for a in sch.arguments])
    infos = [a.alias_info for a in sch.arguments]
    rec("alias", str([None if i is None else (i.is_write, sorted(i.before_set)) for i in infos]))
    rec("ret alias", str(sch.returns[0].alias_info.is_write))
    rec("mutable", [sch.is_mutable, L.ops.ext2_intro.g.default._schema.is_mutable])
    rec("text", str(sch))
    g = L.ops.ext2_intro.g
    rec("kernels", [g.default.has_kernel_for_dispatch_key(k) for k in ("CPU", "CUDA")])
    rec("f kernels", [L.ops.ext2_intro.f.default.has_kernel_for_dispatch_key("CPU")])
    rec("tags", str(g.default.tags))
    rec("qualified", g._qualified_op_name)
    rec("dir", [n for n in dir(L.ops.ext2_intro) if not n.startswith("_")][-2:])
    rec("hasattr", [hasattr(L.ops.ext2_intro, "g"), hasattr(L.ops.ext2_intro, "h")])


def p_device_defaults_and_kernel_toggle(L, rec):
    """Device defaults in an inferred schema, get_ctx outside a fake, and set_kernel_enabled
    switching a registered kernel off and on (the wrapped function runs meanwhile)."""
    T = L.Tensor
    seen = []

    @L.library.custom_op("ext2_tog::to_dev", mutates_args=())
    def to_dev(x: T, dev: L.device = L.device("cpu"), dev2: L.device | None = None) -> T:  # noqa: B008
        seen.append(str(dev))
        return x.to(dev).clone()

    rec("inferred", to_dev._schema)
    rec("registered", str(L.ops.ext2_tog.to_dev.default._schema))
    rec("call", to_dev(L.ones(2)))
    rec("seen", seen)
    rec("get_ctx", str(L.library.get_ctx()))

    @L.library.custom_op("ext2_tog::scale", mutates_args=(), device_types="cpu")
    def scale(x: T) -> T:
        return x * 2

    scale.register_kernel("cpu")(lambda x: x * 3)
    got = [scale(L.ones(1))]
    with scale.set_kernel_enabled("cpu", False):
        got.append(scale(L.ones(1)))
        with scale.set_kernel_enabled("cpu", True):
            got.append(scale(L.ones(1)))
        got.append(scale(L.ones(1)))
    got.append(scale(L.ones(1)))
    rec("toggled", L.cat(got))


# --- autograd.Function with setup_context under torch.func ---


def p_function_vmap(L, dt, rec):
    """autograd.Function in the functorch style: forward without ctx, setup_context, a vmap
    staticmethod or generate_vmap_rule, under vmap / grad / jacrev / vjp."""
    func = L.func

    class NumpyCube(L.autograd.Function):
        @staticmethod
        def forward(x, dim):
            return x**3, 3 * x**2

        @staticmethod
        def setup_context(ctx, inputs, output):
            x, dim = inputs
            ctx.save_for_backward(x, output[1])
            ctx.dim = dim

        @staticmethod
        def backward(ctx, grad_out, grad_dx):
            x, dx = ctx.saved_tensors
            return grad_out * dx + grad_dx * 6 * x, None

        @staticmethod
        def vmap(info, in_dims, x, dim):
            x_bdim, _ = in_dims
            x = x.movedim(x_bdim, 0)
            return NumpyCube.apply(x, dim), (0, 0)

    class Sort(L.autograd.Function):
        generate_vmap_rule = True

        @staticmethod
        def forward(x, dim):
            v, i = L.sort(x, dim)
            return v, i

        @staticmethod
        def setup_context(ctx, inputs, output):
            _, dim = inputs
            ctx.mark_non_differentiable(output[1])
            ctx.save_for_backward(output[1])
            ctx.dim = dim

        @staticmethod
        def backward(ctx, gv, gi):
            (idx,) = ctx.saved_tensors
            return L.zeros_like(gv).scatter(ctx.dim, idx, gv), None

    L.manual_seed(4)
    x = L.randn(3, 4, dtype=dt)
    y, dy = func.vmap(NumpyCube.apply, in_dims=(1, None))(x, 0)
    rec("vmapped", y)
    rec("vmapped d", dy)
    g = func.grad(lambda t: NumpyCube.apply(t, 0)[0].sum())(x)
    rec("grad", g)
    j = func.jacrev(lambda t: NumpyCube.apply(t, 0)[0])(x[0])
    rec("jacrev", j)
    psg = func.vmap(func.grad(lambda t: (NumpyCube.apply(t, 0)[0] * t).sum()))(x)
    rec("vmap grad", psg)
    vals, idx = func.vmap(Sort.apply, in_dims=(0, None))(x, 0)
    rec("sorted", vals)
    rec("idx", idx)
    w = L.randn(4, dtype=dt)
    gs = func.grad(lambda t: (Sort.apply(t, 0)[0] * w).sum())(x[0])
    rec("sort grad", gs)
    per = func.vmap(func.grad(lambda t: (Sort.apply(t, 0)[0] * w).sum()))(x)
    rec("vmap sort grad", per)
    out, vjp = func.vjp(lambda t: Sort.apply(t, 0)[0], x[1])
    rec("vjp", vjp(w)[0])
    xr = x.clone().requires_grad_()
    c, dc = NumpyCube.apply(xr, 0)
    (c.sum() + dc.sum()).backward()
    rec("plain backward", xr.grad)
    rec("grad_fn", type(c.grad_fn).__name__)


def p_function_errors(L, rec):
    """What a Function with setup_context refuses under torch.func."""

    class NoVmap(L.autograd.Function):
        @staticmethod
        def forward(x):
            return x * 2

        @staticmethod
        def setup_context(ctx, inputs, output):
            pass

        @staticmethod
        def backward(ctx, g):
            return g * 2

    class OldStyle(L.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def backward(ctx, g):
            return g * 2

    x = L.ones(2, 3)
    _err(rec, "no vmap", lambda: L.func.vmap(NoVmap.apply)(x))
    rec("grad ok", L.func.grad(lambda t: NoVmap.apply(t).sum())(x))
    _err(rec, "old style grad", lambda: L.func.grad(lambda t: OldStyle.apply(t).sum())(x))
    _err(rec, "old style vmap", lambda: L.func.vmap(OldStyle.apply)(x))

    # (torch checks what a vmap staticmethod returns; minitorch's vmap never calls it)

    class Both(L.autograd.Function):
        generate_vmap_rule = True

        @staticmethod
        def forward(x):
            return x * 2

        @staticmethod
        def setup_context(ctx, inputs, output):
            pass

        @staticmethod
        def backward(ctx, g):
            return g * 2

        @staticmethod
        def vmap(info, in_dims, x):
            return x * 2, 0

    _err(rec, "both", lambda: L.func.vmap(Both.apply)(x))


# --- FLOP counting ---


def _flop_module(L):
    from importlib import import_module

    return import_module(f"{L.__name__}.utils.flop_counter")


def _counts(fc):
    return str({
        k: {str(op): n for op, n in sorted(v.items(), key=lambda kv: str(kv[0]))}
        for k, v in sorted(fc.get_flop_counts().items())
    })  # fmt: skip


def p_flops_mlp(L, rec):
    """MFU of an MLP training step: forward + backward FLOPs per module, a depth-1 table, the
    per-token FLOPs against 6 N and the suffix helpers."""
    fcm = _flop_module(L)
    L.manual_seed(0)
    model = L.nn.Sequential(
        L.nn.Linear(64, 256), L.nn.GELU(), L.nn.Linear(256, 256), L.nn.ReLU(),
        L.nn.Linear(256, 10),
    )  # fmt: skip
    x = L.randn(32, 64)
    with fcm.FlopCounterMode(display=False, depth=1) as fc:
        loss = L.nn.functional.cross_entropy(model(x), L.randint(0, 10, (32,)))
        loss.backward()
    total = fc.get_total_flops()
    n_params = sum(p.numel() for p in model.parameters() if p.dim() == 2)
    rec("total", total)
    rec("per token over 6N", total / (32 * 6 * n_params))
    rec("counts", _counts(fc))
    rec("mfu", f"{total / 0.01 / 1e12:.6f} TFLOP/s")
    rec("table", _table(fc, 1))
    rec("suffix", [fcm.get_suffix_str(n) for n in (5, 5000, 5_000_000, 12_345_678_901)])
    rec("convert", fcm.convert_num_with_suffix(total, fcm.get_suffix_str(total)))
    rec("pct", fcm.convert_to_percent_str(3, 7))
    with fcm.FlopCounterMode(display=False) as fc2, L.no_grad():
        model(x)
    rec("inference", fc2.get_total_flops())


def p_flops_cnn(L, rec):
    """A small CNN's forward and backward FLOPs, printed as the display table (tabulate)."""
    fcm = _flop_module(L)
    L.manual_seed(0)
    nn = L.nn

    class Block(nn.Module):
        def __init__(self, c):
            super().__init__()
            self.conv = nn.Conv2d(c, c, 3, padding=1, bias=False)
            self.bn = nn.BatchNorm2d(c)

        def forward(self, x):
            return L.relu(self.bn(self.conv(x)) + x)

    class CNN(nn.Module):
        def __init__(self):
            super().__init__()
            self.stem = nn.Conv2d(3, 8, 3, stride=2, padding=1)
            self.blocks = nn.Sequential(Block(8), Block(8))
            self.up = nn.ConvTranspose2d(8, 4, 2, stride=2)
            self.head = nn.Linear(4, 5)

        def forward(self, x):
            h = self.up(self.blocks(self.stem(x)))
            return self.head(h.mean((2, 3)))

    model = CNN()
    x = L.randn(2, 3, 16, 16)
    buf = io.StringIO()
    shown = importlib.util.find_spec("tabulate") is not None  # torch's display needs it
    with contextlib.redirect_stdout(buf):
        with fcm.FlopCounterMode(depth=3, display=shown) as fc:
            model(x).sum().backward()
    rec("total", fc.get_total_flops())
    rec("counts", _counts(fc))
    rec("printed", buf.getvalue())
    x2 = L.randn(2, 3, 16, 16, requires_grad=True)
    with fcm.FlopCounterMode(display=False) as fc:
        model(x2).sum().backward()
    rec("with input grad", _counts(fc))


def p_flops_transformer(L, rec):
    """A pre-norm transformer block (manual attention with matmuls and einsum) and an
    nn.TransformerEncoderLayer: counts per module and depth-limited tables."""
    fcm = _flop_module(L)
    nn = L.nn
    L.manual_seed(0)

    class Attention(nn.Module):
        def __init__(self, d, h):
            super().__init__()
            self.h = h
            self.qkv = nn.Linear(d, 3 * d, bias=False)
            self.proj = nn.Linear(d, d)

        def forward(self, x):
            b, t, d = x.shape
            q, k, v = self.qkv(x).view(b, t, 3, self.h, d // self.h).permute(2, 0, 3, 1, 4)
            att = (q @ k.transpose(-2, -1)) / (d // self.h) ** 0.5
            att = att.softmax(-1)
            y = L.einsum("bhts,bhsd->bhtd", att, v)
            return self.proj(y.transpose(1, 2).reshape(b, t, d))

    class Block(nn.Module):
        def __init__(self, d, h):
            super().__init__()
            self.ln1 = nn.LayerNorm(d)
            self.attn = Attention(d, h)
            self.ln2 = nn.LayerNorm(d)
            self.mlp = nn.Sequential(nn.Linear(d, 4 * d), nn.GELU(), nn.Linear(4 * d, d))

        def forward(self, x):
            x = x + self.attn(self.ln1(x))
            return x + self.mlp(self.ln2(x))

    block = Block(16, 2)
    x = L.randn(2, 5, 16)
    with fcm.FlopCounterMode(display=False, depth=2) as fc:
        block(x).pow(2).mean().backward()
    rec("block", _counts(fc))
    rec("table2", _table(fc))
    rec("table inf", _table(fc, 5))
    enc = nn.TransformerEncoderLayer(16, 2, 32, dropout=0.0, batch_first=True)
    with fcm.FlopCounterMode(display=False) as fc:
        enc(x).sum().backward()
    # torch files some backward products under the dropouts (its tracker's backward hooks): only
    # the totals are compared (see test_flop_counter_reference.py)
    rec(
        "encoder",
        str(
            {
                str(k): v
                for k, v in sorted(
                    fc.get_flop_counts()["Global"].items(), key=lambda kv: str(kv[0])
                )
            }
        ),
    )


def p_flops_custom_mapping(L, rec):
    """A custom op counted through custom_mapping (and register_flop_formula's decorator); the
    ops inside it are not counted again."""
    fcm = _flop_module(L)
    T = L.Tensor

    @L.library.custom_op("ext2_flop::fused_linear", mutates_args=())
    def fused_linear(x: T, w: T) -> T:
        return L.relu(x @ w.t())

    @fused_linear.register_fake
    def _(x, w):
        return x.new_empty(x.shape[0], w.shape[0])

    def formula(x_shape, w_shape, *args, out_shape=None, **kwargs):
        return 2 * x_shape[0] * x_shape[1] * w_shape[0] + x_shape[0] * w_shape[0]

    x, w = L.ones(4, 8), L.ones(3, 8)
    mapping = {L.ops.ext2_flop.fused_linear: formula}
    with fcm.FlopCounterMode(display=False, custom_mapping=mapping) as fc:
        fused_linear(x, w)
        L.ops.ext2_flop.fused_linear.default(x, w)
        x @ w.t()
    rec("counts", _counts(fc))
    with fcm.FlopCounterMode(display=False) as fc:
        fused_linear(x, w)
    rec("unmapped", _counts(fc))

    def raw(x, w, *args, out_val=None, **kwargs):
        return 7 * x.shape[0]

    raw = fcm.register_flop_formula([], get_raw=True)(raw)
    mapping = {L.ops.ext2_flop.fused_linear.default: raw}
    with fcm.FlopCounterMode(display=False, custom_mapping=mapping) as fc:
        fused_linear(x, w)
    rec("raw", _counts(fc))
    with fcm.FlopCounterMode(display=False) as fc:
        rec.warns("mods", lambda: fcm.FlopCounterMode(mods=[1], display=False))
        L.mm(x, w.t())
    rec("mm", fc.get_total_flops())


# --- ModuleTracker and engine callbacks ---


def p_module_tracker(L, rec):
    """ModuleTracker's parents seen from inside forwards (a hook records them), and is_bw in
    a tensor hook during backward."""
    from importlib import import_module

    ModuleTracker = import_module(f"{L.__name__}.utils.module_tracker").ModuleTracker
    nn = L.nn
    seen = []

    class Probe(nn.Module):
        def __init__(self, tracker_box):
            super().__init__()
            self.box = tracker_box

        def forward(self, x):
            seen.append(str(sorted(self.box[0].parents)))
            return x

    box = [None]

    class Inner(nn.Module):
        def __init__(self):
            super().__init__()
            self.lin = nn.Linear(3, 3)
            self.probe = Probe(box)

        def forward(self, x):
            return self.probe(self.lin(x))

    class Outer(nn.Module):
        def __init__(self):
            super().__init__()
            self.a = Inner()
            self.b = nn.Sequential(Inner(), nn.Tanh())

        def forward(self, x):
            return self.b(self.a(x))

    L.manual_seed(0)
    model = Outer()
    x = L.randn(2, 3, requires_grad=True)
    bw = []
    with ModuleTracker() as tracker:
        box[0] = tracker
        rec("before", str(sorted(tracker.parents)))
        y = model(x)
        rec("after fw", str(sorted(tracker.parents)))
        rec("is_bw fw", str(tracker.is_bw))
        y.register_hook(lambda g: bw.append(f"{tracker.is_bw}") or g)
        x.register_hook(lambda g: bw.append(f"x {tracker.is_bw}") or g)
        y.sum().backward()
        rec("after bw", str(sorted(tracker.parents)))
    rec("seen", seen)
    rec("bw", bw)


def p_queue_callback(L, rec):
    """Variable._execution_engine.queue_callback from tensor and module hooks: callbacks run
    once after the whole backward, in order, and can read the accumulated grads."""
    nn = L.nn
    L.manual_seed(0)
    model = nn.Sequential(nn.Linear(4, 3), nn.Tanh(), nn.Linear(3, 1))
    log = []
    engine = L.autograd.Variable._execution_engine

    def grad_norm_cb():
        n = sum(p.grad.pow(2).sum() for p in model.parameters())
        log.append(f"cb total {float(n):.10f}")

    def hook(name):
        def fn(g):
            log.append(f"hook {name}")
            if name == "out":
                engine.queue_callback(grad_norm_cb)
                engine.queue_callback(lambda: log.append("second callback"))
            return g

        return fn

    x = L.randn(5, 4)
    h = model[0](x)
    h.register_hook(hook("hidden"))
    out = model[2](model[1](h))
    out.register_hook(hook("out"))
    out.sum().backward()
    rec("log", log)
    log.clear()

    def bw_hook(mod, gin, gout):
        engine.queue_callback(lambda: log.append(f"module cb {type(mod).__name__}"))

    handle = model[2].register_full_backward_hook(bw_hook)
    model.zero_grad()
    model(x).sum().backward()
    handle.remove()
    rec("module log", log)
    _err(rec, "outside backward", lambda: engine.queue_callback(lambda: None))


def p_errors(L, rec):
    """The errors users meet writing custom ops."""
    T = L.Tensor

    def bad_ann(x: T, y: dict) -> T: ...

    def bad_ret(x: T) -> dict: ...

    def no_ann(x: T, n) -> T: ...

    def tup(x: T, dims: tuple[int, int]) -> T: ...

    def tup_mixed(x: T, dims: tuple[int, float]) -> T: ...

    def lazy(x: T, y: "NotDefinedAnywhere") -> T: ...  # noqa: F821

    cases = [("dict arg", bad_ann), ("dict ret", bad_ret), ("no ann", no_ann), ("tuple", tup),
             ("tuple mixed", tup_mixed), ("lazy", lazy)]  # fmt: skip
    for name, fn in cases:
        try:  # torch's list of the valid types is its own
            L.library.custom_op("ext2_err::" + name.replace(" ", "_"), mutates_args=())(fn)
        except ValueError as e:
            rec(name, str(e).split("The valid types")[0])
    _err(rec, "no ns", lambda: L.library.custom_op("noname", mutates_args=())(lambda x: x))

    @L.library.custom_op("ext2_err::returns_input", mutates_args=())
    def returns_input(x: T) -> T:
        return x

    @L.library.custom_op("ext2_err::returns_view", mutates_args=())
    def returns_view(x: T) -> T:
        return x[1:]

    @L.library.custom_op("ext2_err::returns_list", mutates_args=())
    def returns_list(x: T) -> list[T]:
        return [x.clone(), x.clone()]

    @L.library.custom_op("ext2_err::no_backward", mutates_args=())
    def no_backward(x: T) -> T:
        return x * 2

    _err(rec, "alias", lambda: returns_input(L.ones(3)))
    _err(rec, "view", lambda: returns_view(L.ones(3)))
    rec("list", str(type(returns_list(L.ones(3))).__name__))
    a = L.ones(3, requires_grad=True)
    _err(rec, "no formula", lambda: no_backward(a).sum().backward())
    _err(rec, "wrong grads", lambda: (no_backward.register_autograd(lambda ctx, g: (g, g)),
                                      no_backward(a).sum().backward()))  # fmt: skip
    no_backward.register_autograd(lambda ctx, g: g.sum())
    _err(rec, "wrong shape", lambda: no_backward(a).sum().backward())
    _err(rec, "register unknown", lambda: L.library.register_fake("ext2_err::none", lambda x: x))
    _err(rec, "bad schema", lambda: L.library.define("ext2_err3::f", "(Tensor x -> Tensor"))
    _err(rec, "bad device_types", lambda: L.library.custom_op("ext2_err::dev", mutates_args=(),
         device_types="tpu")(no_ann))  # fmt: skip


PROGRAMS_DT = [
    p_numpy_sin, p_autograd_formula, p_custom_op_module, p_function_vmap,
    p_optional_and_keyword_grads, p_optimizer_in_backward, p_custom_op_under_func,
]  # fmt: skip
PROGRAMS = [
    p_numpy_nonzero, p_mutation, p_argument_kinds, p_opcheck_kinds, p_library_def_impl,
    p_register_kernel, p_function_errors, p_flops_mlp, p_flops_cnn, p_flops_transformer,
    p_flops_custom_mapping, p_module_tracker, p_queue_callback, p_errors, p_flops_gpt,
    p_explicit_schema_and_lists, p_library_grad_modes, p_tracker_backward,
    p_schema_introspection, p_device_defaults_and_kernel_toggle,
]  # fmt: skip


@pytest.mark.parametrize("dt", ["float64", "float32"])
@pytest.mark.parametrize("prog", PROGRAMS_DT, ids=lambda p: p.__name__)
def test_program_dt(prog, dt):
    assert_program_matches(prog, torch, dt)


@pytest.mark.parametrize("prog", PROGRAMS, ids=lambda p: p.__name__)
def test_program(prog):
    assert_program_matches(lambda L, dt, rec: prog(L, rec), torch, "float32")
