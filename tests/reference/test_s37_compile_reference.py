"""Session 37 (helper compile): graph-compilation entry points as users call them, run under torch
and minitorch (which has no compiler) with the same seeds and compared record by record:
torch.compile on an nn.Module and on plain functions, as a call and as a decorator with and
without arguments (mode=, fullgraph=, dynamic=, backend= 'eager' / a callable,
options=, disable=); the compiled module's type, repr, `_orig_mod`, state_dict keys and
parameter names (the `_orig_mod.` prefix), attribute reads and writes passed through to the
original, its training mode, len, deepcopy, dtype moves, hooks, checkpoints saved from a compiled
model and loaded into a plain one (and the errors of loading the other way); Module.compile in
place; training small models through a compiled module (SGD with momentum, Adam, a BatchNorm's
running statistics, gradient accumulation, dynamic batch sizes) with losses, gradients and
parameters identical to eager; torch.compiler.disable / allow_in_graph / reset / is_compiling,
torch._dynamo.disable / reset / config; torch.jit.trace of modules and functions (a tensor, a
tuple or keyword example inputs; the traced object's numbers and gradients on new inputs; the
errors of a bad example or an output the tracer cannot record), torch.jit.script of functions
and modules with @ignore / @unused / @export methods, torch.jit.annotate, torch.jit.Final,
is_scripting / is_tracing outside TorchScript, freeze's errors; and the argument errors of
compile. float64 must agree to 1e-10 of each record's scale, float32 to 1e-4; texts exactly.

Found and fixed:
- torch.compile(module) returned the module itself: now an OptimizedModule as torch's, with the
  original as its child `_orig_mod` (repr "OptimizedModule(\\n  (_orig_mod): ...)", state_dict
  keys and parameter names prefixed `_orig_mod.`, loading an unprefixed state_dict fails with
  torch's missing/unexpected keys), attribute reads, writes and deletes passed to the original
  (`compiled.weight`, `compiled.foo = 1` sets it on the original), `training` the original's,
  len() the original's ("Linear does not support len()"), deepcopy copying the original;
  disable=True returns the module itself, as torch.
- torch.jit.trace returned its argument without running it: now it runs it once on the example
  inputs (a tensor is one argument, any other iterable the argument tuple, example_kwarg_inputs
  the keywords), so a bad example fails at trace time with the module's own error, and an output
  the tracer cannot record raises torch's RuntimeError (None: "The traced function didn't return
  any values! ...", a number: "Only tensors, lists, tuples of tensors, or dictionary of tensors
  can be output from traced functions", a dict under strict=True: "Encountering a dict at the
  output of the tracer ..."); a module method other than forward raises torch's AttributeError
  ("trace doesn't support compiling individual module's functions. ...").
- compile's argument checks in torch's order: decorator form (`compile(mode=...)`) checks
  nothing until applied, and applied to None raises "Model can't be None"; mode and options
  are checked only for the inductor backend (another backend is handed them when it compiles),
  options that are no dict give inductor's "'list' object has no attribute 'items'"
  AttributeError (was a TypeError); dynamic that is no bool gives torch's AssertionError
  "Expected enable to be a bool, got <class 'int'>" after the backend checks, and not when
  disable=True (was a TypeError, also for fullgraph, which torch does not check).
- torch._dynamo.optimize(...)(module) returned the module: now an OptimizedModule (the module
  itself with disable=True), as torch.

Known and left (documented):
- Nothing is traced or compiled: inside a compiled function torch.compiler.is_compiling() and
  torch._dynamo.is_compiling() are True in torch and False here, inside a traced call
  torch.jit.is_tracing() is True in torch; a callable backend is never called. Not recorded.
- torch.compile(fn) of a plain function returns the function itself (torch wraps it; the
  wrapper has `__wrapped__`); torch.compile of an OptimizedModule gives torch a function, here
  another OptimizedModule. Not recorded.
- jit.trace and jit.script return the Python object, which runs the Python code on each call:
  input-dependent control flow follows each call's inputs (torch replays the example's branch),
  side effects happen once per call, and check_trace does not rerun the function (torch runs it
  three times and its graph twice, so a train-mode BatchNorm's statistics move five times).
  The programs trace in eval mode and record no such differences.
- jit.freeze of a plain (not scripted) module: torch raises "Freezing expects a ScriptModule as
  input ..."; script() returns the module here, so freeze cannot tell and accepts it. Not
  recorded. jit.save / jit.load raise NotImplementedError (no TorchScript archives).
- The reprs of scripted and traced modules (torch: RecursiveScriptModule(original_name=...))
  are the plain module's here. Not recorded.
- An error raised inside a compiled module's call (a shape mismatch) is torch's dynamo
  TorchRuntimeError ("RuntimeError when making fake tensor call ..." with FakeTensor reprs);
  here the op's own RuntimeError. Not recorded.
- Inductor's option names and types (options={"nope": 1}: "Unexpected optimization option
  ...") are not checked (that check needs torch._inductor's config, ~600 keys).
- mode= and options= checks that need torch's inductor imported (seconds) are tested only in
  tests/test_s37_compile.py, with torch's messages as literals.
"""

from __future__ import annotations

import copy
import typing

import pytest

from tests.reference._one_thread import one_torch_thread  # noqa: F401 - an autouse fixture
from tests.reference._programs import assert_calls_match, assert_program_matches, run_calls
from tests.reference._programs import seeded_randn as _randn

torch = pytest.importorskip("torch")


PROGRAMS = [
    "module_repr", "module_state_dict", "module_train_sgd", "module_train_adam",
    "module_batchnorm", "fn_forms", "fn_grads", "module_method_compile", "deepcopy_and_dtype",
    "hooks", "dynamic_batches", "grad_accumulation", "disable_regions", "trace_module",
    "trace_function", "trace_kwargs", "script_module", "script_function", "annotate_final",
    "checkpoint_roundtrip", "optimizer_state", "dynamo_optimize",
]  # fmt: skip
# programs whose records do not depend on the float dtype: run in float64 only
STRUCTURE = [
    "module_attrs", "sequential_len", "decorator_args", "dynamo_config", "trace_errors",
    "wrapper_registry",
]  # fmt: skip


@pytest.mark.parametrize("dt", ["float64", "float32"])
@pytest.mark.parametrize("name", PROGRAMS)
def test_program_matches_torch(name, dt):
    assert_program_matches(globals()["p_" + name], torch, dt)


@pytest.mark.parametrize("name", STRUCTURE)
def test_structure_matches_torch(name):
    assert_program_matches(globals()["p_" + name], torch, "float64")


def test_compile_argument_errors_match_torch():
    assert_calls_match(p_compile_errors, torch)


# --- helpers ---


def _mlp(lib, dt, seed=0, hidden=5):
    lib.manual_seed(seed)
    return lib.nn.Sequential(lib.nn.Linear(4, hidden), lib.nn.Tanh(), lib.nn.Linear(hidden, 3)).to(
        dt
    )


class _Block:
    """A module class built per library (a residual MLP block with a LayerNorm)."""

    @staticmethod
    def make(lib, dt, seed=0):
        class Block(lib.nn.Module):
            def __init__(self):
                super().__init__()
                self.norm = lib.nn.LayerNorm(4)
                self.fc1 = lib.nn.Linear(4, 6)
                self.fc2 = lib.nn.Linear(6, 4)
                self.register_buffer("scale", lib.ones(4) * 0.5)

            def forward(self, x):
                return x + self.scale * self.fc2(lib.nn.functional.gelu(self.fc1(self.norm(x))))

        lib.manual_seed(seed)
        return Block().to(dt)


def _reset(lib):
    lib.compiler.reset()


# --- torch.compile on modules ---


def p_module_repr(lib, dt, rec):
    _reset(lib)
    m = _mlp(lib, dt)
    c = lib.compile(m, backend="eager")
    rec("type", type(c).__name__)
    rec("isinstance", str(isinstance(c, lib._dynamo.eval_frame.OptimizedModule)))
    rec("is_module", str(isinstance(c, lib.nn.Module)))
    rec("not_sequential", str(isinstance(c, lib.nn.Sequential)))
    rec("repr", repr(c))
    rec("orig_is_m", str(c._orig_mod is m))
    rec("children", str([type(ch).__name__ for ch in c.children()]))
    rec("named_modules", str([n for n, _ in c.named_modules()]))
    rec("named_parameters", str([n for n, _ in c.named_parameters()]))
    rec(
        "same_params", str(all(a is b for a, b in zip(c.parameters(), m.parameters(), strict=True)))
    )
    x = _randn(lib, dt, 1, 6, 4)
    rec("out", c(x))
    rec("eager", m(x))
    rec("get_submodule", str(c.get_submodule("_orig_mod.0") is m[0]))


def p_module_state_dict(lib, dt, rec):
    _reset(lib)
    blk = _Block.make(lib, dt)
    c = lib.compile(blk, backend="eager")
    sd = c.state_dict()
    rec("keys", str(list(sd)))
    rec("orig_keys", str(list(c._orig_mod.state_dict())))
    rec("buffers", str([n for n, _ in c.named_buffers()]))
    fresh = _Block.make(lib, dt, seed=1)
    rec.err("load_prefixed_into_plain", lambda: fresh.load_state_dict(sd))
    rec("strict_false", repr(fresh.load_state_dict(sd, strict=False)))
    stripped = {k.removeprefix("_orig_mod."): v for k, v in sd.items()}
    rec("strip_load", repr(fresh.load_state_dict(stripped)))
    x = _randn(lib, dt, 2, 3, 4)
    rec("fresh_out", fresh(x))
    rec("compiled_out", c(x))
    other = lib.compile(_Block.make(lib, dt, seed=2), backend="eager")
    rec.err("load_plain_into_compiled", lambda: other.load_state_dict(blk.state_dict()))
    rec("load_compiled_into_compiled", repr(other.load_state_dict(sd)))
    rec("other_out", other(x))
    rec("orig_load", repr(other._orig_mod.load_state_dict(_Block.make(lib, dt, 3).state_dict())))
    rec("other_out2", other(x))


def p_module_attrs(lib, dt, rec):
    _reset(lib)
    lib.manual_seed(1)
    lin = lib.nn.Linear(3, 2).to(dt)
    c = lib.compile(lin, backend="eager")
    rec("weight_is", str(c.weight is lin.weight))
    rec("in_features", c.in_features)
    rec("training", str(c.training))
    rec("eval_returns", type(c.eval()).__name__)
    rec("after_eval", str((c.training, lin.training)))
    lin.train()
    rec("after_orig_train", str(c.training))
    c.train(False)
    rec("train_false", str(lin.training))
    c.train()
    c.tag = "hello"
    rec("setattr_forwarded", str((lin.tag, "tag" in vars(c))))
    del c.tag
    rec("delattr_forwarded", str(hasattr(lin, "tag")))
    rec.err("missing_attr", lambda: c.no_such_thing)
    rec.err("len", lambda: len(c))
    rec.err("subscript", lambda: c[0])
    with lib.no_grad():
        c.weight.mul_(2)
    rec("weight_after", lin.weight)
    c.bias = lib.nn.Parameter(lib.zeros(2, dtype=dt))
    rec("bias_replaced", str([n for n, _ in c.named_parameters()]))
    rec("bias_on_orig", lin.bias)
    rec("dir_has_weight", str("weight" in dir(c) and "_orig_mod" in dir(c)))


def p_sequential_len(lib, dt, rec):
    _reset(lib)
    m = _mlp(lib, dt)
    c = lib.compile(m, backend="eager", mode="reduce-overhead")
    rec("len", len(c))
    rec.err("iter", lambda: list(c))
    rec("orig_iter", str([type(x).__name__ for x in c._orig_mod]))
    rec("modules", len(list(c.modules())))


def _train(lib, model, opt, xs, ys, rec, prefix):
    loss_fn = lib.nn.MSELoss()
    for i, (x, y) in enumerate(zip(xs, ys, strict=True)):
        opt.zero_grad()
        loss = loss_fn(model(x), y)
        loss.backward()
        opt.step()
        rec(f"{prefix}.loss{i}", loss)


def p_module_train_sgd(lib, dt, rec):
    _reset(lib)
    xs = [_randn(lib, dt, 10 + i, 8, 4) for i in range(3)]
    ys = [_randn(lib, dt, 20 + i, 8, 3) for i in range(3)]
    eager = _mlp(lib, dt)
    _train(lib, eager, lib.optim.SGD(eager.parameters(), lr=0.1, momentum=0.9), xs, ys, rec, "e")
    m = _mlp(lib, dt)
    c = lib.compile(m, backend="eager", fullgraph=True)
    _train(lib, c, lib.optim.SGD(c.parameters(), lr=0.1, momentum=0.9), xs, ys, rec, "c")
    rec.params("c", c, grads=True)
    for (n, p), q in zip(c.named_parameters(), eager.parameters(), strict=True):
        rec("same." + n, (p - q).abs().max())


def p_module_train_adam(lib, dt, rec):
    _reset(lib)
    blk = _Block.make(lib, dt)
    c = lib.compile(blk, backend="eager", dynamic=False)
    opt = lib.optim.Adam(c.parameters(), lr=0.05, weight_decay=0.01)
    x = _randn(lib, dt, 5, 6, 4)
    target = _randn(lib, dt, 6, 6, 4)
    for i in range(4):
        opt.zero_grad(set_to_none=True)
        loss = (c(x) - target).pow(2).mean()
        loss.backward()
        opt.step()
        rec(f"loss{i}", loss)
    rec.params("p", blk, grads=True)
    rec("state_keys", str(sorted(opt.state_dict()["state"])))


def p_module_batchnorm(lib, dt, rec):
    _reset(lib)
    lib.manual_seed(3)
    net = lib.nn.Sequential(
        lib.nn.Linear(4, 6), lib.nn.BatchNorm1d(6), lib.nn.ReLU(), lib.nn.Linear(6, 2)
    ).to(dt)
    c = lib.compile(net, backend="eager")
    opt = lib.optim.SGD(c.parameters(), lr=0.05)
    for i in range(3):
        x = _randn(lib, dt, 30 + i, 10, 4)
        opt.zero_grad()
        loss = c(x).square().mean()
        loss.backward()
        opt.step()
        rec(f"loss{i}", loss)
    rec("running_mean", net[1].running_mean)
    rec("running_var", net[1].running_var)
    rec("num_batches", net[1].num_batches_tracked)
    rec("sd_bn_keys", str([k for k in c.state_dict() if ".1." in k]))
    c.eval()
    rec("eval_flag", str(net[1].training))
    rec("eval_out", c(_randn(lib, dt, 40, 3, 4)))


# --- torch.compile on functions ---


def p_fn_forms(lib, dt, rec):
    _reset(lib)

    def gelu_ish(x, y):
        return 0.5 * x * (1 + lib.tanh(0.79788456 * (x + 0.044715 * x**3))) + y.sin()

    plain = lib.compile(gelu_ish, backend="eager")
    rec("name", plain.__name__)
    rec("callable", str(callable(plain)))

    @lib.compile(backend="eager")
    def decorated(x):
        return lib.softmax(x, dim=-1) * x.shape[-1]

    @lib.compile(backend="eager", mode=None)
    def flipped(x):
        return x.cumsum(0).flip(0)

    x = _randn(lib, dt, 1, 4, 5)
    y = _randn(lib, dt, 2, 4, 5)
    rec("plain", plain(x, y))
    rec("plain_eager", gelu_ish(x, y))
    rec("decorated", decorated(x))
    rec("decorated_name", decorated.__name__)
    rec("flipped", flipped(y))
    rec("lambda", lib.compile(lambda a: a.abs().sqrt() + 1, backend="eager")(x))
    rec("disabled", lib.compile(gelu_ish, disable=True)(x, y))
    rec("disabled_is", str(lib.compile(gelu_ish, disable=True) is gelu_ish))
    partial = lib.compile(backend="eager", fullgraph=True)
    rec("partial_applied", partial(lambda a: a * 3)(y))


def p_fn_grads(lib, dt, rec):
    _reset(lib)

    @lib.compile(backend="eager", dynamic=True)
    def loss_fn(w, x, t):
        logits = x @ w
        return lib.nn.functional.cross_entropy(logits, t)

    w = _randn(lib, dt, 3, 4, 3).requires_grad_()
    for i, n in enumerate((6, 9)):
        x = _randn(lib, dt, 10 + i, n, 4)
        t = lib.arange(n) % 3
        loss = loss_fn(w, x, t)
        (g,) = lib.autograd.grad(loss, w, create_graph=True)
        (gg,) = lib.autograd.grad(g.square().sum(), w)
        rec(f"loss{i}", loss)
        rec(f"grad{i}", g)
        rec(f"gradgrad{i}", gg)


def p_decorator_args(lib, dt, rec):
    _reset(lib)
    calls = []

    def my_backend(gm, example_inputs):
        calls.append(len(example_inputs))
        return gm.forward

    x = _randn(lib, dt, 5, 3, 3)
    for kw in (
        {"mode": "default", "backend": "eager"},
        {"mode": "max-autotune-no-cudagraphs", "backend": "eager"},
        {"options": {"trace.enabled": False}, "backend": "eager"},
        {"backend": my_backend},
        {"backend": "eager", "fullgraph": True, "dynamic": None},
    ):
        name = ",".join(sorted(kw))

        def f(a):
            return (a @ a.mT).tril() - a.diagonal().sum()

        compiled = lib.compile(**kw)(f) if "mode" not in kw else None
        if compiled is not None:
            rec("out." + name, compiled(x))
        else:
            rec("made." + name, str(callable(lib.compile(f, **kw))))
    lib.manual_seed(3)
    m = lib.nn.Linear(3, 3).to(dt)
    with_backend = lib.compile(m, backend=my_backend)
    rec("callable_backend_type", type(with_backend).__name__)


def p_module_method_compile(lib, dt, rec):
    _reset(lib)
    m = _mlp(lib, dt)
    rec("returns", str(m.compile(backend="eager")))
    rec("type", type(m).__name__)
    rec("keys", str(list(m.state_dict())))
    x = _randn(lib, dt, 2, 4, 4)
    rec("out", m(x))
    rec.err("bad_mode", lambda: _mlp(lib, dt).compile(mode="fastest"))


def p_deepcopy_and_dtype(lib, dt, rec):
    _reset(lib)
    m = _mlp(lib, lib.float32)
    c = lib.compile(m, backend="eager")
    d = copy.deepcopy(c)
    rec("copy_type", type(d).__name__)
    rec("copy_orig_distinct", str(d._orig_mod is m))
    rec("copy_keys", str(list(d.state_dict())))
    moved = c.to(dt)
    rec("to_returns_self", str(moved is c))
    rec("orig_dtype", str(m[0].weight.dtype).split(".")[-1])
    rec("copy_dtype_kept", str(d._orig_mod[0].weight.dtype).split(".")[-1])
    rec("double_is_self", str(c.double() is c))
    c.to(dt)
    x = _randn(lib, dt, 9, 2, 4)
    rec("out", c(x))
    with lib.no_grad():
        d._orig_mod[0].weight.zero_()
    rec("orig_untouched", m[0].weight)


def p_hooks(lib, dt, rec):
    _reset(lib)
    m = _mlp(lib, dt)
    seen = []
    m[0].register_forward_hook(lambda mod, args, out: seen.append(("inner", tuple(out.shape))))
    m.register_forward_pre_hook(lambda mod, args: (args[0] * 2,))
    c = lib.compile(m, backend="eager")
    c.register_forward_hook(lambda mod, args, out: out + 1)
    x = _randn(lib, dt, 4, 3, 4)
    rec("out", c(x))
    rec("eager_plus1", m(x) + 1)
    rec("seen", str(seen))


def p_dynamic_batches(lib, dt, rec):
    _reset(lib)
    m = _Block.make(lib, dt)
    c = lib.compile(m, backend="eager", dynamic=True)
    for b in (1, 7):
        x = _randn(lib, dt, 50 + b, b, 4)
        rec(f"b{b}", c(x))
    lib._dynamo.mark_dynamic(x, 0)
    rec("marked", c(x))


def p_grad_accumulation(lib, dt, rec):
    _reset(lib)
    m = _mlp(lib, dt, seed=7)
    c = lib.compile(m, backend="eager")
    opt = lib.optim.SGD(c.parameters(), lr=0.1)
    opt.zero_grad()
    for i in range(3):
        x = _randn(lib, dt, 60 + i, 4, 4)
        (c(x).pow(2).sum() / 3).backward()
    rec.params("acc", c, grads=True)
    opt.step()
    rec.params("stepped", m)
    ref = _mlp(lib, dt, seed=7)
    for i in range(3):
        x = _randn(lib, dt, 60 + i, 4, 4)
        (ref(x).pow(2).sum() / 3).backward()
    rec.params("ref", ref, grads=True)


def p_disable_regions(lib, dt, rec):
    _reset(lib)

    @lib.compiler.disable
    def host_side(t):
        return t.detach().clone() * 0 + t.mean()

    @lib._dynamo.disable(recursive=False)
    def helper(t):
        return t.exp()

    @lib.compiler.disable(recursive=True)
    def helper2(t):
        return t.log1p()

    scaled = lib.compiler.allow_in_graph(lambda t: t * 4)

    class Net(lib.nn.Module):
        def __init__(self):
            super().__init__()
            self.lin = lib.nn.Linear(3, 3)

        def forward(self, x):
            h = self.lin(x)
            return helper(h) + host_side(h) + helper2(h.abs()) + scaled(h)

    lib.manual_seed(11)
    net = Net().to(dt)
    c = lib.compile(net, backend="eager")
    x = _randn(lib, dt, 70, 4, 3)
    out = c(x)
    rec("out", out)
    out.sum().backward()
    rec("grad_w", net.lin.weight.grad)
    rec("is_compiling_outside", str(lib.compiler.is_compiling()))
    rec("dynamo_is_compiling", str(lib._dynamo.is_compiling()))
    rec("reset", str(lib._dynamo.reset()))
    rec("compiler_reset", str(lib.compiler.reset()))
    rec("allow_is", str(lib._dynamo.allow_in_graph(helper2) is helper2))
    rec("after_reset", c(x))


def p_dynamo_config(lib, dt, rec):
    _reset(lib)
    cfg = lib._dynamo.config
    rec("cache_size_limit", cfg.cache_size_limit)
    rec("suppress_errors", str(cfg.suppress_errors))
    old = cfg.suppress_errors
    cfg.suppress_errors = True
    rec("set", str(cfg.suppress_errors))
    cfg.suppress_errors = old
    with cfg.patch(cache_size_limit=3):
        rec("patched", cfg.cache_size_limit)
    rec("restored", cfg.cache_size_limit)
    with cfg.patch("verbose", True):
        rec("patched_verbose", str(cfg.verbose))
    rec("verbose", str(cfg.verbose))
    lib.manual_seed(4)
    c = lib.compile(lib.nn.Linear(2, 2).to(dt), backend="eager")
    rec("out_shape", str(tuple(c(lib.ones(3, 2, dtype=dt)).shape)))


def p_compile_errors(lib, rec):
    # (mode, options and backend checks that need torch's inductor imported are left to
    # tests/test_s37_compile.py: the import alone takes seconds)
    env = {"torch": lib, "m": lib.nn.Linear(2, 2), "f": lambda a: a}
    run_calls(
        [
            "torch.compile(m, mode='default', options={'a': 1})",
            "torch.compile(m, backend='no_such_backend')",
            "torch.compile(m, backend='no_such_backend', dynamic='yes')",
            "torch.compile(m, backend='eager', dynamic=1)",
            "torch.compile(m, backend='eager', fullgraph='yes')",
            "torch.compile(m, backend='eager', options=3)",
            "torch.compile(3)",
            "torch.compile(3, disable=True)",
            "torch.compile(None)",
            "torch.compile(None, backend='no_such_backend')",
            "torch.compile(backend='eager')(None)",
            "torch.compile(3, backend='eager', dynamic=1)",
            "torch.compile(m, backend='eager', dynamic=1, disable=True)",
            "torch._dynamo.optimize('eager', dynamic=1, disable=True)",
            "torch.compile(f, fullgrpah=True)",
            "torch.compile(f, backend='eager', mode=None, options=None)",
            "torch.compiler.disable(3)",
            "torch._dynamo.optimize('eager', dynamic='yes')",
            "torch._dynamo.optimize(3)",
            "torch.jit.annotate(int, 3)",
        ],
        env,
        rec,
    )


# --- torch.jit ---


def p_trace_module(lib, dt, rec):
    blk = _Block.make(lib, dt).eval()
    x = _randn(lib, dt, 80, 2, 4)
    traced = lib.jit.trace(blk, x)
    traced_tuple = lib.jit.trace(blk, (x,), check_trace=False)
    traced_list = lib.jit.trace(blk, [x], check_tolerance=1e-3)
    y = _randn(lib, dt, 81, 5, 4)
    rec("same_shape", traced(x))
    rec("new_batch", traced(y))
    rec("tuple", traced_tuple(y))
    rec("list", traced_list(y))
    rec("eager", blk(y))
    rec("keys", str(list(traced.state_dict())))
    rec("training", str(traced.training))
    rec("is_tracing", str(lib.jit.is_tracing()))
    rec("forward_method", lib.jit.trace(blk.forward, x)(y))
    # gradients through the traced module
    y.requires_grad_()
    traced(y).sum().backward()
    rec("grad_y", y.grad)
    rec("grad_fc1", blk.fc1.weight.grad)


def p_trace_function(lib, dt, rec):
    def pair(a, b):
        return a * b + a.sin(), (a - b).abs().max(dim=-1).values

    a = _randn(lib, dt, 90, 3, 4)
    b = _randn(lib, dt, 91, 3, 4)
    traced = lib.jit.trace(pair, (a, b))
    a2 = _randn(lib, dt, 92, 3, 4).requires_grad_()
    b2 = _randn(lib, dt, 93, 3, 4)
    out, mx = traced(a2, b2)
    rec("out", out)
    rec("max", mx)
    (out.sum() + mx.sum()).backward()
    rec("grad", a2.grad)
    single = lib.jit.trace(lambda t: t.softmax(0), a)
    rec("single", single(b))
    listed = lib.jit.trace(lambda t: [t, t * 2], (a,))
    rec("list_out", str(type(listed(b)).__name__))
    nested = lib.jit.trace(lambda t: (t, (t + 1, t - 1)), (a,))
    rec("nested", nested(b)[1][0])
    loose = lib.jit.trace(lambda t: {"y": t * 3}, (a,), strict=False)
    rec("dict_out", loose(b)["y"])


def p_trace_kwargs(lib, dt, rec):
    class TwoIn(lib.nn.Module):
        def __init__(self):
            super().__init__()
            self.lin = lib.nn.Linear(4, 2)

        def forward(self, x, mask=None):
            h = self.lin(x)
            return h if mask is None else h * mask

    lib.manual_seed(5)
    m = TwoIn().to(dt).eval()
    x = _randn(lib, dt, 100, 3, 4)
    mask = (_randn(lib, dt, 101, 3, 2) > 0).to(dt)
    traced = lib.jit.trace(m, example_kwarg_inputs={"x": x, "mask": mask})
    rec("kw", traced(x=x, mask=mask))
    traced2 = lib.jit.trace(m, (x, mask))
    rec("pos", traced2(x, mask))


def p_trace_errors(lib, dt, rec):
    lib.manual_seed(2)
    lin = lib.nn.Linear(3, 2).to(dt).eval()
    x = _randn(lib, dt, 110, 2, 3)
    rec.err("wrong_shape", lambda: lib.jit.trace(lin, _randn(lib, dt, 111, 2, 5)))
    rec.err("too_many", lambda: lib.jit.trace(lin, (x, x)))
    rec.err("fn_too_many", lambda: lib.jit.trace(lambda a: a, (x, x)))
    rec.err("int_example", lambda: lib.jit.trace(lambda a: a, 3))
    rec.err("int_example_module", lambda: lib.jit.trace(lin, 3))
    rec.err("no_example_fn", lambda: lib.jit.trace(lambda a: a))
    rec.err("no_example_module", lambda: lib.jit.trace(lin))
    rec.err("returns_none", lambda: lib.jit.trace(lambda a: None, (x,)))
    rec.err("returns_int", lambda: lib.jit.trace(lambda a: 3, (x,)))
    rec.err("returns_tuple_int", lambda: lib.jit.trace(lambda a: (a, 1), (x,)))
    rec.err("returns_dict", lambda: lib.jit.trace(lambda a: {"a": a}, (x,)))
    rec.err("returns_tolist", lambda: lib.jit.trace(lambda a: a.tolist(), (x,)))
    rec.err("method", lambda: lib.jit.trace(lin.extra_repr, (x,)))
    rec.err("freeze_training", lambda: lib.jit.freeze(lib.jit.script(lib.nn.Linear(2, 2))))


def p_script_module(lib, dt, rec):
    debug_log = []

    class Net(lib.nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = lib.nn.Linear(4, 3)

        def forward(self, x):
            h = self.fc(x).relu()
            self.note(h)
            return h * 2

        @lib.jit.ignore
        def note(self, h):
            debug_log.append(tuple(h.shape))

        @lib.jit.unused
        def extra(self, h):
            return h

        @lib.jit.export
        def embed(self, x):
            return self.fc(x)

        @lib.jit.ignore(drop=False)
        def dropped(self):
            return "kept"

    lib.manual_seed(21)
    net = Net().to(dt)
    s = lib.jit.script(net)
    x = _randn(lib, dt, 120, 5, 4)
    rec("out", s(x))
    rec("embed", s.embed(x))
    rec("log", str(debug_log))
    rec("dropped", net.dropped())
    rec("keys", str(list(s.state_dict())))
    frozen = lib.jit.freeze(lib.jit.script(net.eval()))
    rec("frozen", frozen(x))
    rec("opt_inference", lib.jit.optimize_for_inference(lib.jit.script(net))(x))


def p_script_function(lib, dt, rec):
    Tensor = lib.Tensor  # TorchScript resolves annotations by name in this frame

    @lib.jit.script
    def fused(x: Tensor, alpha: float = 0.5) -> Tensor:
        if x.dim() == 2:
            return x.clamp(min=0) * alpha
        return x.sum(0)

    def poly(x: Tensor, n: int) -> Tensor:
        out = lib.zeros_like(x)
        for i in range(n):
            out = out + x**i
        return out

    scripted_poly = lib.jit.script(poly)
    x = _randn(lib, dt, 130, 3, 4)
    rec("fused2d", fused(x))
    rec("fused2d_alpha", fused(x, 2.0))
    rec("fused3d", fused(x.unsqueeze(0).expand(2, 3, 4)))
    rec("poly", scripted_poly(x, 4))
    rec("is_scripting", str(lib.jit.is_scripting()))
    rec("script_if_tracing", lib.jit.script_if_tracing(poly)(x, 2))


def p_annotate_final(lib, dt, rec):
    Tensor = lib.Tensor  # resolved by name, as TorchScript does

    class Cfg(lib.nn.Module):
        # `scale: torch.jit.Final[float]`, as written in a file without `from __future__ import
        # annotations` (TorchScript cannot read a Final from a string annotation)
        __annotations__ = {"scale": lib.jit.Final[float]}  # noqa: RUF012

        def __init__(self):
            super().__init__()
            self.scale = 3.0
            self.lin = lib.nn.Linear(2, 2)

        def forward(self, x):
            acc = lib.jit.annotate(typing.List[Tensor], [])  # noqa: UP006 - as users write
            acc.append(self.lin(x) * self.scale)
            idx = lib.jit.annotate(typing.Optional[int], None)  # noqa: UP045
            return acc[0] if idx is None else acc[idx]

    lib.manual_seed(31)
    m = Cfg().to(dt)
    s = lib.jit.script(m)
    x = _randn(lib, dt, 140, 3, 2)
    rec("out", s(x))
    rec("scale", s.scale)
    rec("annotate_list", str(lib.jit.annotate(typing.List[int], [])))  # noqa: UP006
    rec("annotate_dict", str(lib.jit.annotate(dict[str, int], {"a": 1})))
    rec("final_is_typing", str(lib.jit.Final is typing.Final))
    rec("isinstance", str(lib.jit.isinstance([1, 2], typing.List[int])))  # noqa: UP006


# --- checkpoints and optimizers through compiled modules ---


def p_checkpoint_roundtrip(lib, dt, rec):
    import io

    _reset(lib)
    m = _mlp(lib, dt, seed=8)
    c = lib.compile(m, backend="eager")
    buf = io.BytesIO()
    lib.save(c.state_dict(), buf)
    buf.seek(0)
    sd = lib.load(buf)
    rec("loaded_keys", str(list(sd)))
    plain = _mlp(lib, dt, seed=9)
    # the usual fix: strip the prefix (or save c._orig_mod.state_dict())
    stripped = {k.replace("_orig_mod.", ""): v for k, v in sd.items()}
    rec("strip", repr(plain.load_state_dict(stripped)))
    x = _randn(lib, dt, 150, 2, 4)
    rec("plain_out", plain(x))
    rec("compiled_out", c(x))
    buf2 = io.BytesIO()
    lib.save(c._orig_mod.state_dict(), buf2)
    buf2.seek(0)
    rec("orig_keys", str(list(lib.load(buf2))))
    unwrapped = getattr(c, "_orig_mod", c)
    rec("unwrapped_type", type(unwrapped).__name__)


def p_optimizer_state(lib, dt, rec):
    _reset(lib)
    m = _mlp(lib, dt, seed=12)
    c = lib.compile(m, backend="eager")
    opt = lib.optim.AdamW(c.parameters(), lr=0.01)
    sched = lib.optim.lr_scheduler.StepLR(opt, step_size=1, gamma=0.5)
    x = _randn(lib, dt, 160, 4, 4)
    for i in range(3):
        opt.zero_grad()
        loss = c(x).logsumexp(-1).mean()
        loss.backward()
        opt.step()
        sched.step()
        rec(f"loss{i}", loss)
        rec(f"lr{i}", opt.param_groups[0]["lr"])
    st = opt.state_dict()
    rec("param_ids", str(st["param_groups"][0]["params"]))
    rec("exp_avg0", st["state"][0]["exp_avg"])
    rec("step0", st["state"][0]["step"])
    m2 = _mlp(lib, dt, seed=12)
    opt2 = lib.optim.AdamW(m2.parameters(), lr=0.01)
    opt2.load_state_dict(st)
    rec("loaded_exp_avg_sq", opt2.state_dict()["state"][3]["exp_avg_sq"])


def p_wrapper_registry(lib, dt, rec):
    import io
    import pickle

    _reset(lib)
    lib.manual_seed(13)
    lin = lib.nn.Linear(3, 2).to(dt)
    c = lib.compile(lin, backend="eager")
    c.training = False
    rec("training_set", str((lin.training, c.training)))
    rec("requires_grad_", type(c.requires_grad_(False)).__name__)
    rec("orig_requires_grad", str(lin.weight.requires_grad))
    c.register_buffer("buf", lib.ones(1, dtype=dt))  # on the wrapper itself
    rec("buffer_keys", str(list(c.state_dict())))
    c.add_module("extra", lib.nn.ReLU())
    c.head = lib.nn.Tanh()  # an attribute: set on the original
    rec("children", str([n for n, _ in c.named_children()]))
    c.alpha = lib.nn.Parameter(lib.ones(1, dtype=dt))
    rec("params", str([n for n, _ in c.named_parameters()]))
    buf = io.BytesIO()
    lib.save(c, buf)
    buf.seek(0)
    loaded = lib.load(buf, weights_only=False)
    rec("saved_type", type(loaded).__name__)
    rec("saved_keys", str(list(loaded.state_dict())))
    rec("pickled_type", type(pickle.loads(pickle.dumps(c))).__name__)
    x = _randn(lib, dt, 170, 2, 3)
    rec("loaded_out", loaded(x))
    rec("out", c(x))


def p_dynamo_optimize(lib, dt, rec):
    _reset(lib)
    m = _mlp(lib, dt, seed=14)
    opt_m = lib._dynamo.optimize("eager")(m)
    rec("type", type(opt_m).__name__)
    rec("keys", str(list(opt_m.state_dict())))
    rec("disabled", type(lib._dynamo.optimize("eager", disable=True)(m)).__name__)
    rec("nopython", type(lib._dynamo.optimize("eager", nopython=True)(m)).__name__)

    @lib._dynamo.optimize("eager")
    def f(a):
        return a.relu() - a.neg().relu()

    x = _randn(lib, dt, 180, 3, 4)
    rec("fn", f(x))
    rec("module", opt_m(x))
    rec.err("not_callable", lambda: lib._dynamo.optimize("eager")(3))
    rec.err("bad_backend", lambda: lib._dynamo.optimize("nope"))
    rec("explain", str(lib._dynamo.explain(f)(x).graph_count >= 0))
