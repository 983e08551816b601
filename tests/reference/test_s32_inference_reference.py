"""Session 32: inference tensors (NOTE [ Inference tensors ] in minitorch/autograd/grad_mode.py)
compared with torch program by program: which tensors inference_mode makes inference tensors
(results, factories, views of either kind of tensor, detach, clones, parameters and buffers of
modules built inside), what reads of them are free outside (ops that save nothing, views, copies
into normal tensors, numpy), and torch's refusals outside inference mode: saving one for backward
(mul, matmul, a Linear built inside, a custom Function's save_for_backward, saved-tensor hooks),
an in-place change (operators, fast paths of optimizer updates, setitem, out=, copy_, fill_,
metadata changes, batch norm's running statistics), requires_grad and nn.Parameter, `_version`.
float64 must agree to 1e-10 of each record's scale, float32 to 1e-4; texts exactly.

Known and left (documented):
- `.data` of an inference tensor is a normal tensor here (torch's is an inference tensor whose
  in-place changes torch allows nonetheless); the programs record only what both allow.
- torch refuses to save an inference tensor before the op's own argument checks (a shape
  mismatch of x * w reports the inference tensor); minitorch runs the forward first.
- torch's F.linear gives no gradient to a weight made in inference mode (its transposed view
  is cut from the weight's graph), minitorch gives the gradient: the programs record neither.
- index_add with an inference source or index: torch saves neither when only the input needs
  a gradient, minitorch refuses (it keeps the index for any backward); not recorded.
- Where torch's kernel writes before its inference check (zero_, x[i] = v, uniform_, an
  optimizer's step outside inference mode), minitorch refuses before writing: the programs
  record the error, not the data after (tests/autograd/test_inference_tensors.py checks that
  minitorch's is unchanged)."""

from __future__ import annotations

import pytest

from tests.reference._one_thread import one_torch_thread  # noqa: F401 - an autouse fixture
from tests.reference._programs import assert_program_matches

torch = pytest.importorskip("torch")

DTYPES = ["float32", "float64"]


def prog_which_are_inference(lib, dt, rec):
    n = lib.arange(6, dtype=dt).reshape(2, 3)
    with lib.inference_mode():
        x = lib.ones(2, 3, dtype=dt)
        made = {
            "factory": x,
            "result": x * 2 + n,
            "of_normal": n.exp(),
            "view_of_normal": n[0],
            "t_of_normal": n.t(),
            "detach_of_normal": n.detach(),
            "view_of_inference": x[:, 1:],
            "detach_of_inference": x.detach(),
            "clone_of_normal": n.clone(),
            "tensor": lib.tensor([1.0, 2.0], dtype=dt),
            "randn": lib.randn(3, dtype=dt),
            "zeros_like": lib.zeros_like(n),
            "sum": n.sum(),
            "max": n.max(dim=1).values,
            "argmax": n.argmax(dim=1),
            "split": n.split(1)[0],
            "unbind": n.unbind(1)[2],
        }
        for k, t in made.items():
            rec("in." + k, str(t.is_inference()))
        rec("in.mode", str(lib.is_inference_mode_enabled()))
        rec("in.requires_grad", str(lib.ones(2, requires_grad=True).requires_grad))
        y = x * 3
        y.add_(1)  # in place inside: allowed
        x[0, 0] = 5.0
        rec("in.y", y)
        rec("in.x", x)
    rec("out.factory", str(x.is_inference()))
    rec("out.view", str(x[1].is_inference()))
    rec("out.view_t", str(x.t().is_inference()))
    rec("out.detach", str(x.detach().is_inference()))
    rec("out.result", str((x + 1).is_inference()))
    rec("out.clone", str(x.clone().is_inference()))
    rec("out.fn", str(lib.is_inference(x)))
    rec("out.normal", str(n.is_inference()))
    with lib.no_grad():
        rec("nograd.result", str((x * 2).is_inference()))
    with lib.inference_mode(False):
        rec("false.result", str(lib.ones(2).is_inference()))
    with lib.inference_mode():
        with lib.inference_mode(False):
            rec("nested_false.result", str(lib.ones(2).is_inference()))
        rec("nested.result", str(lib.ones(2).is_inference()))

    @lib.inference_mode()
    def decorated(t):
        return t * 2

    rec("decorated", str(decorated(n).is_inference()))


def prog_reading_outside(lib, dt, rec):
    g = lib.Generator().manual_seed(0)
    w = lib.randn(3, 3, dtype=dt, generator=g, requires_grad=True)
    n = lib.randn(3, dtype=dt, generator=g)
    with lib.inference_mode():
        x = lib.randn(3, dtype=dt, generator=g)
    rec("add", w + x)  # add saves nothing: allowed, and a normal result
    rec("sub", (x - w).is_inference())
    rec("exp", x.exp())
    rec("sum", x.sum())
    rec("numpy", x.numpy())
    rec("tolist", str(x.tolist()))
    rec("item", x[0].item())
    rec("view", x.view(3, 1))
    rec("grad_fn", str(x.grad_fn))
    rec("leaf", str(x.is_leaf))
    rec("requires_grad", str(x.requires_grad))
    rec("copy_into_normal", n.copy_(x))
    rec("stack", lib.stack([x, n]))
    out = (w.sum(0) + x).sum()
    out.backward()
    rec("w.grad", w.grad)
    rec.err("err.version", lambda: x._version)
    with lib.inference_mode():
        rec.err("err.version_inside", lambda: x._version)
        rec("normal_version_inside", n._version)


def prog_saving_refused(lib, dt, rec):
    g = lib.Generator().manual_seed(1)
    w = lib.randn(3, dtype=dt, generator=g, requires_grad=True)
    with lib.inference_mode():
        x = lib.randn(3, dtype=dt, generator=g)
        m = lib.nn.Linear(3, 2, dtype=dt)
        feats = lib.randn(4, 3, dtype=dt, generator=g)
    rec.err("mul", lambda: x * w)
    rec.err("rmul", lambda: w * x)
    rec.err("matmul", lambda: w @ x)
    rec.err("div", lambda: w / x)
    rec.err("tanh_mul", lambda: (w * 1).tanh() * x)
    rec.err("view_mul", lambda: w * x[None])
    rec.err("pow", lambda: w**x)
    rec.err("where", lambda: lib.where(x > 0, w, x))
    i = x[:2].long()
    mask = x > x.mean()
    rec.err("gather", lambda: lib.gather(w, 0, i))
    rec.err("index", lambda: w[i])
    rec.err("index_select", lambda: w.index_select(0, i))
    rec.err("mask", lambda: w[mask])
    rec.err("masked_fill", lambda: w.masked_fill(mask, 0.0))
    rec.err("embedding", lambda: lib.nn.functional.embedding(i.abs(), w[:, None]))
    rec.err("cross_entropy", lambda: lib.nn.functional.cross_entropy(w[None], i[:1].abs()))
    rec.err("scatter", lambda: w.scatter(0, i.abs(), 1.0))
    rec("param_inference", str(m.weight.is_inference()))
    rec("param_requires_grad", str(m.weight.requires_grad))
    # a Linear built inside trains its inputs' graph: the weight is saved only for x's gradient
    inp = lib.randn(4, 3, dtype=dt, generator=g)
    rec.err("linear", lambda: m(inp).pow(2).sum().backward())
    rec.err("linear_needs_weight", lambda: m(inp.requires_grad_()))
    # features computed in inference mode, then a head trained on them
    head = lib.nn.Linear(3, 2, dtype=dt)
    lib.nn.init.constant_(head.weight, 0.5)
    rec.err("head_on_features", lambda: head(feats).sum().backward())
    rec("head.w.grad", head.weight.grad)
    head.weight.grad = None
    head(feats.clone()).sum().backward()
    rec("head_on_clone.w.grad", head.weight.grad)

    class Square(lib.autograd.Function):
        @staticmethod
        def forward(ctx, a, b):
            ctx.save_for_backward(a, b)
            return a * b

        @staticmethod
        def backward(ctx, g):
            a, b = ctx.saved_tensors
            return g * b, g * a

    rec.err("custom_save", lambda: Square.apply(w, x))
    with lib.autograd.graph.saved_tensors_hooks(lambda t: t, lambda t: t):
        rec.err("hooked", lambda: x * w)
    with lib.inference_mode(), lib.inference_mode(False):
        rec.err("nested_false", lambda: x * w)
        y = lib.ones(3, dtype=dt) * w
        rec("nested_false.normal", str(y.is_inference()))


def prog_inplace_refused(lib, dt, rec):
    n = lib.ones(3, dtype=dt)
    with lib.inference_mode():
        x = lib.ones(3, dtype=dt)
        v = n[1:]  # a normal view taken inside
        p = lib.nn.Parameter(lib.ones(2, dtype=dt))
    calls = {
        "add_": lambda: x.add_(1),
        "iadd": lambda: x.__iadd__(n),
        "sub_alpha": lambda: x.sub_(n, alpha=0.5),
        "mul_": lambda: x.mul_(2.0),
        "div_": lambda: x.div_(n),
        "zero_": lambda: x.zero_(),
        "fill_": lambda: x.fill_(3.0),
        "clamp_": lambda: x.clamp_(0.0, 0.5),
        "exp_": lambda: x.exp_(),
        "addcmul_": lambda: x.addcmul_(n, n, value=0.1),
        "lerp_": lambda: x.lerp_(n, 0.5),
        "setitem": lambda: x.__setitem__(0, 1.0),
        "setitem_mask": lambda: x.__setitem__(x > 0, 1.0),
        "index_put_": lambda: x.index_put_((lib.tensor([0]),), lib.tensor(2.0, dtype=dt)),
        "masked_fill_": lambda: x.masked_fill_(lib.tensor([True, False, True]), 1.0),
        "index_fill_": lambda: x.index_fill_(0, lib.tensor([1]), 1.0),
        "copy_": lambda: x.copy_(n),
        "out": lambda: lib.exp(n, out=x),
        "unsqueeze_": lambda: x.unsqueeze_(0),
        "uniform_": lambda: x.uniform_(),
        "normal_init": lambda: lib.nn.init.normal_(x),
        "view_add_": lambda: x[1:].add_(1),
    }
    for k, f in calls.items():
        rec.err(k, f)
    with lib.no_grad():
        rec.err("nograd.add_", lambda: x.add_(1))
    rec.err("param.add_", lambda: p.add_(1))
    rec("normal_view_inside.add_", v.add_(1))
    rec("n", n)
    rec("detach_", str(x.detach_().is_inference()))
    rec("requires_grad_false", str(x.requires_grad_(False).requires_grad))
    with lib.inference_mode():  # (some of torch's kernels above wrote before refusing)
        flat = x.view(-1)
        flat.fill_(2.0)
        flat.add_(1)
        flat[0] = 7.0
        rec("inside", flat)


def prog_requires_grad_refused(lib, dt, rec):
    with lib.inference_mode():
        x = lib.ones(3, dtype=dt)
        i = lib.ones(3, dtype=lib.int64)
        z = lib.zeros(2, dtype=dt, requires_grad=True)
        inside = lib.ones(2, dtype=dt).requires_grad_()
        rec("inside.requires_grad_", str(inside.requires_grad))
        q = lib.nn.Parameter(lib.ones(2, dtype=dt))
        rec("inside.param", str(q.is_inference()))
    rec.err("requires_grad_", lambda: x.requires_grad_())
    rec.err("setter", lambda: setattr(x, "requires_grad", True))
    rec.err("int.requires_grad_", lambda: i.requires_grad_())
    rec.err("int.setter", lambda: setattr(i, "requires_grad", True))
    rec.err("parameter", lambda: lib.nn.Parameter(x))
    rec("parameter_no_grad", str(lib.nn.Parameter(x, requires_grad=False).is_inference()))
    rec.err("retain_grad", lambda: x.retain_grad())
    rec.err("hook", lambda: x.register_hook(lambda g: g))
    rec("z.requires_grad", str(z.requires_grad))
    (z * 2).sum().backward()
    rec("z.grad", z.grad)
    rec.err("z.add_", lambda: z.add_(1))


def prog_module_built_inside(lib, dt, rec):
    lib.manual_seed(0)
    with lib.inference_mode():
        net = lib.nn.Sequential(lib.nn.Linear(3, 4), lib.nn.BatchNorm1d(4), lib.nn.ReLU())
        net = net.to(dt)
    for name, t in net.state_dict().items():
        rec("inference." + name, str(t.is_inference()))
    x = lib.randn(5, 3, dtype=dt)
    net.eval()
    rec.err("eval_forward", lambda: net(x))  # the running statistics saved for backward
    with lib.no_grad():
        rec("eval_out", net(x))
    net.train()
    rec.err("train_forward", lambda: net(x))  # batch norm's running statistics change in place
    opt = lib.optim.SGD(net.parameters(), lr=0.1)
    net[1].track_running_stats = False
    net[1].running_mean = None
    net[1].running_var = None
    rec.err("batch_stats_forward", lambda: net(x))  # its weight saved for the input's gradient
    for p in net.parameters():  # (torch's linear loses an inference weight's gradient)
        p.grad = lib.ones_like(p)
    rec.err("sgd_step", opt.step)
    sd = {k: v.clone() for k, v in net.state_dict().items()}
    with lib.inference_mode():
        fresh = lib.nn.Linear(3, 4).to(dt)
    fresh_sd = {"weight": sd["0.weight"], "bias": sd["0.bias"]}
    rec.err("load_into_inference", lambda: fresh.load_state_dict(fresh_sd))
    plain = lib.nn.Linear(3, 4).to(dt)
    with lib.inference_mode():
        inf_sd = {"weight": lib.ones(4, 3, dtype=dt), "bias": lib.zeros(4)}
    rec.err("load_from_inference", lambda: plain.load_state_dict(inf_sd))
    rec("loaded", plain.weight)
    rec("loaded_is_inference", str(plain.weight.is_inference()))


@pytest.mark.parametrize("dt", DTYPES)
@pytest.mark.parametrize(
    "prog",
    [
        prog_which_are_inference,
        prog_reading_outside,
        prog_saving_refused,
        prog_inplace_refused,
        prog_requires_grad_refused,
        prog_module_built_inside,
    ],
    ids=lambda p: p.__name__[5:],
)
def test_inference_program(prog, dt):
    assert_program_matches(prog, torch, dt)
