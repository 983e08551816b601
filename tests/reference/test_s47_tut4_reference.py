"""Session 47 (helper tut4): NumPy-style experiments and notebook use, run under torch and
minitorch with the same inputs and compared record by record (texts exactly, "torch" read as
"minitorch"; values to 1e-10 of their scale in float64, 1e-4 in float32 unless a program says).

- printing: a seeded sweep of tensors of every dtype and size (0-d, empty, summarised, wide) with
  nan/inf/-0.0, huge/tiny/mixed magnitudes, requires_grad, under random set_printoptions
  combinations; the named tuples of max/sort/topk/median/mode/kthvalue/cummax/aminmax/eigh/qr/
  slogdet/lstsq/std_mean and their grad_fn suffixes; Size/dtype/device/finfo/Parameter reprs.
- the mistakes students make, as the error texts (and warnings) they read: shape mismatches in
  matmul/Linear/cat/view, view of a non-contiguous tensor, wrong target dtypes and shapes for
  cross_entropy/nll_loss/CrossEntropyLoss with probabilities, backward twice or on a non-scalar,
  in-place ops on a leaf requiring grad, .numpy() of a tensor requiring grad, item()/bool()/int()
  of a multi-element tensor, indices out of range.
- numerical experiments: autograd.functional jacobian/hessian/vjp/jvp/vhp/hvp and torch.func,
  Rosenbrock minimised with Adam-family optimizers (200 steps) and with LBFGS (strong Wolfe,
  float64), least squares by lstsq/solve/pinv/qr/svd/eigh, einsum contractions, statistics
  (quantile, median, mode, histc, bincount, unique, cumsum/cumprod, sort/argsort/topk/kthvalue),
  seeded distributions (Normal, Categorical and others: samples, log_prob, entropy, shapes),
  where/clamp/masked ops, integer/bool promotion in mixed arithmetic, in-place ops on views, and
  the "Learning PyTorch with Examples" polynomial fits (manual updates under no_grad, an
  nn.Sequential with RMSprop, a custom autograd.Function).

Found and not fixed here (reported; repros in the session's tut4_repros.py): add/sub/add_/
sub_ with a 0-d tensor alpha round the product before adding (torch reads alpha as a number and
fuses), which sends float32 LBFGS on Rosenbrock elsewhere (so only float64 LBFGS is compared);
a NumPy scalar on the left of a tensor operator takes minitorch's __array_ufunc__ route, not
the reflected operator: np.float64(3) / t divides (torch: reciprocal(t) * 3, MulBackward0),
np.float64(2.7) * a half tensor rounds 2.7 to the half dtype first, and np.int64(-3) < a uint8
tensor compares without torch's wrap of the number into uint8; softshrink writes -0. between
-lambd and 0 where torch's vectorised loop writes +0.; float() of a many-element tensor
requiring grad does not give torch's "Converting a tensor with requires_grad=True" warning."""

from __future__ import annotations

import math
import random

import numpy as np
import pytest

from tests.reference._one_thread import one_torch_thread  # noqa: F401 - an autouse fixture
from tests.reference._programs import (
    Rec,
    assert_program_matches,
    assert_records_match,
    run_program,
    seeded_randn,
)

torch = pytest.importorskip("torch")


@pytest.fixture(autouse=True)
def _default_printoptions():
    """Every test leaves both libraries' print options at their defaults."""
    import minitorch

    yield
    for lib in (torch, minitorch):
        lib.set_printoptions(profile="default")
        lib.set_printoptions(sci_mode=None)


def _evals(codes, env, rec):
    """Records each expression's error (or "no error") and then the repr of its value."""
    for code in codes:
        out = rec.err(code, lambda code=code: eval(code, env))  # noqa: S307
        if out is not None:
            rec(code + " ->", repr(out))


def _execs(codes, env, rec):
    """Runs each statement block in a copy of env; records its error and then repr(out)."""
    for code in codes:
        scope = dict(env)
        rec.err(code, lambda code=code, scope=scope: exec(code, scope))  # noqa: S102
        if "out" in scope:
            rec(code + " ->", repr(scope["out"]))


def _matches(prog, **options):
    import minitorch

    want = run_program(prog, torch, rec=Rec(), **options)
    got = run_program(prog, minitorch, rec=Rec(), **options)
    assert_records_match(want, got, 0.0, rename=True)


# --- printing ---

_DTYPES = ["float32", "float64", "float16", "bfloat16", "int64", "int32", "int16", "int8", "uint8"]
_DTYPES += ["bool"]
_OPTIONS = [
    ("precision", [0, 1, 2, 3, 6, 10]),
    ("threshold", [3, 10, 100, 1000]),
    ("edgeitems", [0, 1, 2, 3, 5]),
    ("linewidth", [20, 40, 80, 150]),
    ("sci_mode", [None, True, False]),
]


def _print_cases(seed, n):
    """n (array, dtype name, print options, requires_grad) drawn from `seed`."""
    pick = random.Random(seed)
    cases = []
    while len(cases) < n:
        nd = pick.choice([0, 1, 1, 2, 2, 3, 4])
        shape = tuple(pick.choice([0, 1, 2, 3, 5, 7, 12, 40]) for _ in range(nd))
        if math.prod(shape) > 4000:
            continue
        dt = pick.choice(_DTYPES)
        rng = np.random.default_rng(len(cases))
        kind = pick.choice(["normal", "big", "tiny", "mixed", "ints", "special", "round"])
        a = rng.standard_normal(shape)
        if kind == "big":
            a *= 10.0 ** rng.integers(3, 12)
        elif kind == "tiny":
            a *= 10.0 ** -rng.integers(3, 12)
        elif kind == "mixed":
            a *= 10.0 ** rng.integers(-8, 8, size=shape)
        elif kind == "ints":
            a = np.round(a * 100)
        elif kind == "round":
            a = np.round(a, 1)
        elif kind == "special":
            r = rng.random(shape)
            a = np.where(r < 0.15, np.nan, a)
            a = np.where((r >= 0.15) & (r < 0.3), np.inf * np.sign(a), a)
            a = np.where((r >= 0.3) & (r < 0.4), -0.0, a)
        if not dt.startswith(("float", "bfloat")):
            a = np.nan_to_num(a, nan=0.0, posinf=100.0, neginf=-100.0)
            lo, hi = {"int8": (-128, 127), "uint8": (0, 255), "int16": (-30000, 30000)}.get(
                dt, (-(2**31), 2**31 - 1)
            )
            a = np.clip(np.abs(a) if dt == "uint8" else a, lo, hi)
        opts = {}
        if pick.random() < 0.6:
            for key, values in _OPTIONS:
                if pick.random() < 0.4:
                    opts[key] = pick.choice(values)
        grad = dt.startswith(("float", "bfloat")) and pick.random() < 0.2
        cases.append((a, dt, opts, grad))
    return cases


_PRINT_CASES = _print_cases(47, 240)


def _printing(lib, rec):
    for i, (a, dt, opts, grad) in enumerate(_PRINT_CASES):
        try:
            lib.set_printoptions(**opts)
            t = lib.tensor(a.astype(bool) if dt == "bool" else a).to(getattr(lib, dt))
            if grad:
                t = t.requires_grad_() * 1
            rec(f"repr{i} {dt} {a.shape} {opts}", repr(t))
            rec(f"str{i}", str(t))
        finally:
            lib.set_printoptions(profile="default")
            lib.set_printoptions(sci_mode=None)


def test_printing_sweep_matches():
    _matches(_printing)


_NAMED = [
    "m.max(dim=1)",
    "m.min(0, keepdim=True)",
    "m.sort()",
    "m.sort(descending=True, stable=True)",
    "v.topk(2)",
    "v.topk(2, largest=False, sorted=True)",
    "iv.kthvalue(2)",
    "v.median(0)",
    "m.median(1)",
    "iv.mode()",
    "m.cummax(1)",
    "m.cummin(0)",
    "v.aminmax()",
    "lib.std_mean(v)",
    "lib.var_mean(m, 1)",
    "lib.linalg.eigh(lib.eye(2) * 2)",
    "lib.linalg.qr(lib.eye(2))",
    "lib.linalg.slogdet(lib.eye(2))",
    "lib.linalg.lstsq(lib.eye(2), lib.ones(2, 1))",
    "lib.linalg.svd(lib.eye(2))",
    "lib.frexp(v)",
    "iv.unique(return_counts=True)",
    "str(m.max(dim=1))",
    "type(m.max(1)).__name__",
    "m.max(1)._fields",
    "m.max(1)[1]",
    "vg.max(0)",
    "vg.sort()",
    "vg.topk(1)",
    "mg.min(1, keepdim=True)",
    "mg.median(1)",
    "mg.mode(1)",
    "mg.kthvalue(1, 1)",
    "mg.cummax(1)",
    "lib.std_mean(mg, 1)",
    "lib.aminmax(mg)",
    "lib.linalg.slogdet(mg.t() @ mg + lib.eye(2))",
    "lib.linalg.qr(mg.t())",
    "mg.split(1, 1)",
    "mg.unbind(1)",
    "lib.linalg.inv_ex(mg.t() @ mg + lib.eye(2))",
    "lib.Size([2, 3])",
    "lib.Size([])",
    "m.shape[1:]",
    "m.shape + (1,)",
    "str(m.shape)",
    "m.dtype",
    "str(lib.half)",
    "m.device",
    "str(m.device)",
    "lib.device('cpu', 0)",
    "lib.device('cuda:1')",
    "m.t().stride()",
    "lib.finfo(lib.float16)",
    "lib.iinfo(lib.uint8)",
    "lib.nn.Parameter(lib.zeros(2))",
    "lib.nn.Parameter(lib.tensor(2.0), requires_grad=False)",
    "m.type()",
    "iv.type()",
    "format(lib.tensor(3.5), '.2f')",
    "'%d' % lib.tensor(3)",
    "f'{lib.tensor(3):5d}'",
    "lib.tensor(1.0, requires_grad=True).exp()",
    "lib.zeros(0, 2, requires_grad=True) * 2",
    "lib.tensor([1.0, 2.0], dtype=lib.float16, requires_grad=True) * 3",
    "lib.tensor([[1.0, 2.0]], requires_grad=True).t()",
    "lib.tensor([-0.0, 1e-10])",
]


def _named_tuples(lib, rec):
    env = {
        "lib": lib,
        "m": lib.tensor([[3.0, 1.0], [2.0, 5.0]]),
        "v": lib.tensor([3.0, 1.0, 2.0]),
        "iv": lib.tensor([3, 1, 3, 2]),
        "vg": lib.tensor([3.0, 1.0, 2.0], requires_grad=True),
        "mg": lib.tensor([[1.0, 2.0]], requires_grad=True),
    }
    _evals(_NAMED, env, rec)


def test_named_tuples_and_reprs_match():
    _matches(_named_tuples)


# --- the mistakes students make ---

_SETUP = """
a = lib.ones(2, 3); b = lib.ones(4, 5); v = lib.ones(3); w = lib.ones(4)
lin = lib.nn.Linear(3, 4); lin8 = lib.nn.Linear(8, 4)
logits = lib.randn(4, 5, generator=lib.Generator().manual_seed(0))
tgt = lib.tensor([1, 0, 4, 2])
F = lib.nn.functional
m = lib.tensor([[1.0, 2.0], [3.0, 4.0]])
x = lib.tensor([1.0, 2.0, 3.0], requires_grad=True)
"""

_MISTAKES = [
    "a @ b",
    "lib.mm(a, b)",
    "v @ w",
    "lib.dot(v, w)",
    "lib.bmm(a, b)",
    "lib.mv(a, w)",
    "lib.ones(2, 3, 4) @ lib.ones(2, 5, 6)",
    "lib.ones(3, 2, 3) @ lib.ones(4, 3, 5)",
    "a @ lib.ones(3, dtype=lib.float64)",
    "a @ lib.ones(3, dtype=lib.int64)",
    "lib.ones(()) @ a",
    "lin(lib.ones(2, 5))",
    "lin8(lib.ones(2, 3, 4))",
    "lin(lib.ones(5))",
    "lin(lib.ones(3, dtype=lib.float64))",
    "lin(lib.ones(2, 3, dtype=lib.int64))",
    "F.linear(a, lib.ones(4, 2))",
    "lib.cat([a, b])",
    "lib.cat([a, b], dim=1)",
    "lib.cat([a, v])",
    "lib.cat([a, a], dim=2)",
    "lib.cat([])",
    "lib.cat(a)",
    "lib.cat((a, 1))",
    "lib.stack([a, b])",
    "lib.hstack([a, w])",
    "a.view(4)",
    "a.view(-1, -1)",
    "a.view(-1, 4)",
    "a.t().view(6)",
    "a.t().view(-1)",
    "a.permute(1, 0).view(3, 2)",
    "a.view(3, 2.0)",
    "a.reshape(5)",
    "a.permute(1)",
    "a.permute(0, 0)",
    "a.transpose(0, 2)",
    "a.expand(3, 3)",
    "a.flatten(0, 2)",
    "a[:, ::2].view(4)",
    "F.cross_entropy(logits, tgt.float())",
    "F.cross_entropy(logits, tgt.int())",
    "F.cross_entropy(logits, tgt.to(lib.uint8))",
    "F.cross_entropy(logits, tgt.double())",
    "F.cross_entropy(logits, tgt.view(4, 1))",
    "F.cross_entropy(logits, tgt[:3])",
    "F.cross_entropy(logits, lib.tensor([1, 0, 5, 2]))",
    "F.cross_entropy(logits, lib.tensor([1, 0, -1, 2]))",
    "F.cross_entropy(logits, lib.ones(4, 4))",
    "F.cross_entropy(logits, lib.ones(5))",
    "F.cross_entropy(logits, lib.ones(4))",
    "F.cross_entropy(logits[0], lib.tensor([1]))",
    "F.cross_entropy(logits, tgt.bool())",
    "F.cross_entropy(logits.long(), tgt)",
    "F.cross_entropy(logits, lib.ones(4, 5, dtype=lib.int64))",
    "lib.nn.CrossEntropyLoss()(logits, lib.softmax(logits, 1)[:, :4])",
    "lib.nn.CrossEntropyLoss()(logits, lib.softmax(logits, 1).t())",
    "lib.nn.CrossEntropyLoss()(logits, lib.softmax(logits, 1).double())",
    "lib.nn.CrossEntropyLoss()(logits, lib.softmax(logits, 1).half())",
    "lib.nn.CrossEntropyLoss(ignore_index=1)(logits, lib.softmax(logits, 1))",
    "lib.nn.CrossEntropyLoss(weight=lib.ones(4))(logits, tgt)",
    "lib.nn.CrossEntropyLoss()(logits.unsqueeze(2), tgt)",
    "lib.nn.CrossEntropyLoss(label_smoothing=1.5)(logits, tgt)",
    "F.nll_loss(logits, tgt.float())",
    "F.nll_loss(logits, tgt[:2])",
    "F.nll_loss(logits, lib.tensor([1, 0, 7, 2]))",
    "F.nll_loss(logits, lib.softmax(logits, 1))",
    "F.nll_loss(logits[0], tgt)",
    "lib.nn.NLLLoss()(logits, tgt.byte())",
    "F.nll_loss(logits.double(), tgt, weight=lib.ones(5))",
    "F.binary_cross_entropy(lib.sigmoid(logits), tgt)",
    "F.binary_cross_entropy_with_logits(logits, lib.ones(4, 5).long())",
    "F.mse_loss(logits, tgt)",
    "F.mse_loss(logits, lib.ones(5))",
    "F.mse_loss(logits, lib.ones(4))",
    "x.add_(1)",
    "x.zero_()",
    "x.mul_(2)",
    "x.clamp_(0, 1)",
    "x.copy_(lib.zeros(3))",
    "x.relu_()",
    "x.numpy()",
    "(x * 2).numpy()",
    "float(x)",
    "x.item()",
    "m.item()",
    "lib.tensor([]).item()",
    "int(m)",
    "bool(m)",
    "bool(lib.tensor([]))",
    "not m",
    "any(m)",
    "[1, 2][lib.tensor(1.0)]",
    "range(lib.tensor(3.0))",
    "lib.zeros(2)[lib.tensor(1.0)]",
    "m[2]",
    "m[0, 2]",
    "m[-3]",
    "m[:, 5]",
    "m[0][2]",
    "m[lib.tensor([0, 2])]",
    "m[[0, 2]]",
    "m[lib.tensor([True, False, True])]",
    "m[0, 0, 0]",
    "m[..., 3]",
    "lib.tensor(1.0)[0]",
    "lib.zeros(0)[0]",
    "m.select(0, 2)",
    "m.index_select(0, lib.tensor([2]))",
    "m.gather(1, lib.tensor([[2], [0]]))",
    "m[lib.tensor([0, 1]).float()]",
    "m[1.0]",
    "m['a']",
]

_MISTAKE_BLOCKS = [
    "y = (x * x).sum(); y.backward(); y.backward()",
    "y = x.exp().sum(); y.backward(); y.backward()",
    "y = (x * 2).sum(); y.backward(); y.backward(); out = x.grad",
    "y = x.sin().sum(); y.backward(retain_graph=True); y.backward(); out = x.grad",
    "y = x.softmax(0)[0]; y.backward(); y.backward()",
    "y = x * 2; y.backward()",
    "y = x * 2; y.backward(lib.ones(2))",
    "y = x * 2; y.backward(lib.ones(3, dtype=lib.float64)); out = x.grad",
    "y = x * 2; y.backward(2.0)",
    "y = x.sum(); y.backward(lib.ones(2))",
    "lib.autograd.grad(x * 2, x)",
    "out = lib.autograd.grad((x * 2).sum(), [x, lib.ones(2, requires_grad=True)])",
    "out = lib.autograd.grad(lib.ones(2).sum(), x)",
    "x += 1",
    "x[0] = 5",
    "with lib.no_grad(): x.add_(1)\nout = x",
    "y = x * 2; y.requires_grad = False",
    "y = x.exp(); y.add_(1); y.sum().backward()",
    "y = x * 1; z = y * y; y[0] = 0; z.sum().backward()",
    "y = x.tanh(); v = y[1:]; v.mul_(2); y.sum().backward()",
    "y = x.pow(2); v = y[1:]; v.mul_(2); y.sum().backward(); out = x.grad",
    "y = x * 1; v = y[0]; y.add_(1); out = (v, v._version, y._version)",
    "y = lib.zeros(3).expand(2, 3); y[0, 0] = 1",
    "w = x.detach(); w -= 0.1 * x.grad",
]


def _mistakes(lib, rec):
    env = {"lib": lib}
    exec(_SETUP, env)  # noqa: S102
    _evals(_MISTAKES, env, rec)
    _execs(_MISTAKE_BLOCKS, env, rec)


def test_student_mistakes_match():
    _matches(_mistakes, keep_warnings=_kept)


def _kept(w):
    """The warnings compared: not torch's note on an empty ATEN_CPU_CAPABILITY (the pinned
    environment), nor its "Converting a tensor with requires_grad=True to a scalar", which it
    gives before float()'s ValueError for a many-element tensor and minitorch does not
    (reported)."""
    msg = str(w.message)
    return "ATEN_CPU_CAPABILITY" not in msg and "Converting a tensor" not in msg


# --- numerical experiments ---


def _functional(lib, dt, rec):
    F = lib.autograd.functional
    x = lib.tensor([0.5, -1.3, 2.1], dtype=dt)
    A = lib.tensor([[2.0, 1.0, 0.0], [1.0, 3.0, 1.0], [0.0, 1.0, 4.0]], dtype=dt)

    def f(v):
        return (v[0] * v[1]).exp() * v[2].sin() + (v**3).sum() * v[1]

    def g(v):
        return lib.stack([(v[0] * v[1]).exp() * v[2], v.sin().sum() * v[0]])

    def h(a, b):
        return (a * b).sum() + (a**2 * b).sum()

    def two(a, b):
        return a * b, a + b

    def ros(v):
        return (1 - v[0]) ** 2 + 100 * (v[1] - v[0] ** 2) ** 2

    rec("jac", F.jacobian(g, x))
    rec("jac_fwd", F.jacobian(g, x, strategy="forward-mode", vectorize=True))
    rec("jac_vec", F.jacobian(g, x, vectorize=True))
    rec("hess", F.hessian(f, x))
    rec("hess_ros", F.hessian(ros, lib.tensor([1.5, 0.5], dtype=dt)))
    rec("quad", F.hessian(lambda v: v @ A @ v, x))
    for i, t in enumerate(F.jacobian(h, (x, x * 2))):
        rec(f"jac_h{i}", t)
    for i, row in enumerate(F.hessian(h, (x, x * 2))):
        for j, t in enumerate(row):
            rec(f"hess_h{i}{j}", t)
    for i, row in enumerate(F.jacobian(two, (x, x))):
        for j, t in enumerate(row):
            rec(f"jac_two{i}{j}", t)
    for name, (out, grad) in {
        "vjp": F.vjp(g, x, lib.ones(2, dtype=dt)),
        "vjp_f": F.vjp(f, x),
        "jvp": F.jvp(g, x, lib.ones(3, dtype=dt)),
        "vhp": F.vhp(f, x, x),
        "hvp": F.hvp(f, x, x),
    }.items():
        rec(name + ".out", out)
        rec(name + ".grad", grad)
    rec.err("jvp_bad_v", lambda: F.jvp(f, x, lib.ones(2, dtype=dt)))
    rec.err("strict", lambda: F.jacobian(lambda v: lib.ones(2, dtype=dt), x, strict=True))
    rec.err("not_tensor", lambda: F.jacobian(lambda v: 3.0, x))
    rec("unused", F.jacobian(lambda v: lib.ones(2, dtype=dt), x))
    rec("func.jacrev", lib.func.jacrev(g)(x))
    rec("func.jacfwd", lib.func.jacfwd(g)(x))
    rec("func.grad", lib.func.grad(f)(x))
    grad, value = lib.func.grad_and_value(ros)(lib.tensor([1.5, 0.5], dtype=dt))
    rec("func.grad_and_value", lib.cat([grad, value.reshape(1)]))
    rec("func.vmap_dot", lib.func.vmap(lib.dot)(A, A))


@pytest.mark.parametrize("dt", ["float32", "float64"])
def test_autograd_functional_matches(dt):
    assert_program_matches(_functional, torch, dt)


def _rosenbrock(lib, dt, rec):
    def ros(v):
        return (1 - v[0]) ** 2 + 100 * (v[1] - v[0] ** 2) ** 2

    for name, kw in [
        ("Adam", {"lr": 0.05}),
        ("Adam", {"lr": 0.05, "amsgrad": True, "betas": (0.8, 0.9)}),
        ("AdamW", {"lr": 0.05, "weight_decay": 0.1}),
        ("NAdam", {"lr": 0.02}),
        ("Adamax", {"lr": 0.05}),
        ("SGD", {"lr": 1e-4, "momentum": 0.9, "nesterov": True}),
        ("RMSprop", {"lr": 1e-3, "centered": True}),
        ("Adagrad", {"lr": 0.1}),
    ]:
        x = lib.tensor([-1.5, 2.0], dtype=dt, requires_grad=True)
        opt = getattr(lib.optim, name)([x], **kw)
        losses = []
        for _ in range(200):
            opt.zero_grad()
            loss = ros(x)
            loss.backward()
            opt.step()
            losses.append(loss.item())
        rec(f"{name}{sorted(kw)}.losses", losses)
        rec(f"{name}{sorted(kw)}.x", x)


@pytest.mark.parametrize("dt", ["float32", "float64"])
def test_rosenbrock_adam_family_matches(dt):
    # float32 to 1e-6 of scale: torch's vectorised optimizer kernels round differently on
    # different CPUs (Adam with amsgrad read 2 ulps apart on an AMD EPYC, bit for bit elsewhere)
    assert_program_matches(_rosenbrock, torch, dt, tol=0.0 if dt == "float64" else 1e-6)


def _lbfgs(lib, dt, rec):
    def ros(v):
        return (1 - v[0]) ** 2 + 100 * (v[1] - v[0] ** 2) ** 2

    for i, kw in enumerate(
        [
            {"line_search_fn": "strong_wolfe"},
            {
                "line_search_fn": "strong_wolfe",
                "tolerance_grad": 1e-12,
                "tolerance_change": 1e-15,
                "max_iter": 50,
            },
        ]
    ):
        x = lib.tensor([-1.5, 2.0], dtype=dt, requires_grad=True)
        opt = lib.optim.LBFGS([x], **kw)

        def closure(opt=opt, x=x):
            opt.zero_grad()
            loss = ros(x)
            loss.backward()
            return loss

        for step in range(4):
            rec(f"{i}.loss{step}", opt.step(closure))
            rec(f"{i}.x{step}", x)
        rec(f"{i}.evals", [opt.state[x]["func_evals"], opt.state[x]["n_iter"]])


def test_rosenbrock_lbfgs_float64_matches():
    # float32 is left out: see the module's docstring (a 0-d tensor alpha)
    assert_program_matches(_lbfgs, torch, "float64", tol=1e-8)


def _least_squares(lib, dt, rec):
    A = seeded_randn(lib, dt, 3, 8, 3)
    b = seeded_randn(lib, dt, 4, 8, 2)
    S = A.t() @ A
    res = lib.linalg.lstsq(A, b)
    rec("lstsq", res.solution)
    rec("lstsq.shapes", repr([tuple(t.shape) for t in res]))
    for driver in ("gelsd", "gelss", "gelsy"):
        rec("lstsq." + driver, lib.linalg.lstsq(A, b, driver=driver).solution)
    rec("lstsq.vector_b", lib.linalg.lstsq(A, b[:, 0]).solution)
    rec("solve_normal", lib.linalg.solve(S, A.t() @ b))
    rec("solve_left_false", lib.linalg.solve(S, b[:3].t(), left=False))
    rec("pinv", lib.linalg.pinv(A) @ b)
    rec("pinv_hermitian", lib.linalg.pinv(S, hermitian=True))
    Q, R = lib.linalg.qr(A)
    rec("qr", lib.linalg.solve_triangular(R, Q.t() @ b, upper=True))
    rec("qr.R", R)
    U, s, Vh = lib.linalg.svd(A, full_matrices=False)
    rec("svd.s", s)
    rec("svd_solve", Vh.t() @ ((U.t() @ b) / s.unsqueeze(1)))
    evals, evecs = lib.linalg.eigh(S)
    rec("eigh.values", evals)
    rec("eigh_solve", evecs @ ((evecs.t() @ (A.t() @ b)) / evals.unsqueeze(1)))
    L = lib.linalg.cholesky(S)
    rec("cholesky_solve", lib.cholesky_solve(A.t() @ b, L))
    rec("residual", lib.linalg.vector_norm(A @ res.solution - b, dim=0))
    rec.err("solve_singular", lambda: lib.linalg.solve(lib.zeros(3, 3, dtype=dt), b[:3]))
    rec.err("lstsq_rows", lambda: lib.linalg.lstsq(A, b[:5]))
    rec.err("cholesky_neg", lambda: lib.linalg.cholesky(-S))


@pytest.mark.parametrize("dt", ["float32", "float64"])
def test_least_squares_matches(dt):
    assert_program_matches(_least_squares, torch, dt)


def _einsum(lib, dt, rec):
    A = seeded_randn(lib, dt, 5, 6, 3)
    S = seeded_randn(lib, dt, 6, 3, 3)
    B = seeded_randn(lib, dt, 7, 2, 3, 3)
    for eq, ops in [
        ("ij,jk->ik", (A, S)),
        ("ij,ij->", (A, A)),
        ("ii", (S,)),
        ("ii->i", (S,)),
        ("ij->ji", (A,)),
        ("i,j->ij", (A[0], A[1])),
        ("bij,bjk->bik", (B, B)),
        ("...ij,...jk", (B, S)),
        ("ij,jk", (A, S)),
        ("i j , j k -> i k", (A, S)),
        ("ijk->", (B,)),
        ("bij,jk,bkl->bil", (B, S, B)),
        ("iij->j", (B[:, :2, :2],)),
    ]:
        rec(eq, lib.einsum(eq, *ops))
    rec("list", lib.einsum("ij,jk->ik", [A, S]))
    rec("sublist", lib.einsum(A, [0, 1], S, [1, 2], [0, 2]))
    ints = lib.arange(6).reshape(2, 3)
    rec("ints", lib.einsum("ij,kj->ik", ints, ints))
    rec("bools", lib.einsum("ij->j", ints > 2))
    for eq, ops in [
        ("ij,jk->ik", "A, A"),
        ("ij,jk->ikl", "A, S"),
        ("ij,jk->ik", "A"),
        ("ij,jk->ik", "A, S.float() if A.dtype == lib.float64 else S.double()"),
        ("ij,jk->ik", "A, S.int()"),
    ]:
        rec.err(eq + " " + ops, lambda eq=eq, ops=ops: eval(f"lib.einsum('{eq}', {ops})"))  # noqa: S307


@pytest.mark.parametrize("dt", ["float32", "float64"])
def test_einsum_matches(dt):
    assert_program_matches(_einsum, torch, dt)


_STATS = [
    "lib.quantile(v, 0.3)",
    "lib.quantile(v, lib.tensor([0.1, 0.5, 0.9]))",
    "lib.quantile(v, 0.3, interpolation='lower')",
    "lib.quantile(v, 0.3, interpolation='higher')",
    "lib.quantile(v, 0.3, interpolation='nearest')",
    "lib.quantile(v, 0.3, interpolation='midpoint')",
    "lib.quantile(M, 0.5, dim=1, keepdim=True)",
    "lib.quantile(M, lib.tensor([0.25, 0.75]), dim=0)",
    "lib.quantile(iv, 0.5)",
    "lib.quantile(v, 1.5)",
    "lib.quantile(v.double(), lib.tensor([0.5]))",
    "lib.nanquantile(nv, 0.5)",
    "lib.quantile(nv, 0.5)",
    "lib.median(v)",
    "v.median(0)",
    "M.median(dim=0, keepdim=True)",
    "iv.median()",
    "nv.median()",
    "nv.nanmedian()",
    "lib.tensor([]).median()",
    "lib.mode(iv)",
    "M.mode(0)",
    "lib.tensor([5, 5, 2, 2]).mode()",
    "lib.histc(v, bins=4)",
    "lib.histc(v, bins=4, min=0, max=5)",
    "lib.histc(iv, bins=4)",
    "lib.histc(v, bins=3, min=5, max=1)",
    "lib.histc(lib.tensor([1.0, 1.0]), bins=3)",
    "lib.histogram(v, bins=4)",
    "lib.histogram(v, bins=lib.tensor([0.0, 2.0, 10.0]))",
    "lib.histogram(v, bins=3, density=True)",
    "lib.bincount(iv)",
    "lib.bincount(iv, minlength=12)",
    "lib.bincount(iv, weights=v)",
    "lib.bincount(iv, weights=v.double())",
    "lib.bincount(v)",
    "lib.bincount(lib.tensor([-1, 2]))",
    "lib.bincount(lib.tensor([], dtype=lib.int64))",
    "lib.bincount(iv.view(1, -1))",
    "lib.bincount(iv.to(lib.uint8))",
    "lib.bincount(iv, weights=iv)",
    "lib.unique(iv)",
    "lib.unique(iv, return_inverse=True, return_counts=True)",
    "lib.unique(iv, sorted=False)",
    "lib.unique(lib.tensor([[1, 2], [1, 2], [0, 1]]), dim=0, return_counts=True)",
    "lib.unique_consecutive(lib.tensor([1, 1, 2, 2, 3, 1]), return_counts=True)",
    "v.unique(return_counts=True)",
    "lib.unique(lib.tensor([True, False, True]), return_counts=True)",
    "lib.cumsum(iv, 0)",
    "lib.cumsum(iv.int(), 0).dtype",
    "lib.cumsum(lib.tensor([True, True]), 0)",
    "lib.cumsum(iv.to(lib.uint8), 0).dtype",
    "lib.cumsum(v, 0, dtype=lib.float64)",
    "lib.cumprod(v, 0)",
    "lib.cumprod(iv, 0)",
    "lib.cumprod(lib.tensor([2] * 70), 0)[-1]",
    "lib.cumprod(iv.to(lib.int8), 0)",
    "M.cumsum(-1)",
    "M.cumsum(2)",
    "lib.cumsum(lib.tensor(3.0), 0)",
    "lib.cumsum(v)",
    "lib.logcumsumexp(v, 0)",
    "lib.sort(v, stable=True)",
    "lib.sort(iv, descending=True, stable=True)",
    "lib.argsort(v, stable=True)",
    "lib.argsort(iv, descending=True, stable=True)",
    "lib.sort(lib.tensor([3.0, float('nan'), 1.0, -0.0, 0.0]), stable=True)",
    "lib.sort(lib.tensor([3.0, float('nan'), 1.0, float('-inf')]), descending=True)",
    "lib.topk(v, 3)",
    "lib.topk(v, 3, largest=False)",
    "lib.topk(iv, 3)",
    "lib.topk(v, 12)",
    "lib.topk(v, 0)",
    "lib.topk(M, 2, dim=0)",
    "lib.topk(nv, 2)",
    "lib.kthvalue(v, 3)",
    "lib.kthvalue(v, 12)",
    "lib.kthvalue(M, 2, dim=0)",
    "lib.kthvalue(M, 1, 1, True)",
    "lib.kthvalue(nv, 3)",
    "lib.msort(M)",
    "lib.var_mean(v)",
    "lib.std(v, correction=0)",
    "lib.var(lib.tensor([1.0]))",
    "lib.std(iv)",
    "lib.mean(iv)",
    "lib.mean(iv, dtype=lib.float64)",
    "lib.sum(iv).dtype",
    "lib.prod(iv.int()).dtype",
    "nv.max()",
    "nv.argmax()",
    "lib.cov(M)",
    "lib.corrcoef(M)",
    "lib.diff(iv, n=2)",
    "lib.bucketize(v, lib.tensor([2.0, 4.0]), right=True)",
    "lib.searchsorted(lib.tensor([1.0, 3.0, 5.0]), lib.tensor([2.0, 5.0]))",
]


def _statistics(lib, rec):
    env = {
        "lib": lib,
        "v": lib.tensor([3.0, 1.0, 4.0, 1.0, 5.0, 9.0, 2.0, 6.0, 5.0, 3.0, 5.0]),
        "iv": lib.tensor([3, 1, 4, 1, 5, 9, 2, 6, 5, 3, 5]),
        "M": lib.tensor([[3.0, 1.0, 4.0], [1.0, 5.0, 9.0], [2.0, 6.0, 5.0]]),
        "nv": lib.tensor([1.0, float("nan"), 3.0]),
    }
    _evals(_STATS, env, rec)


def test_statistics_match():
    _matches(_statistics)


_DISTRIBUTIONS = [
    "n.sample()",
    "n.sample((3,))",
    "n.rsample((2, 1))",
    "n.batch_shape",
    "n.event_shape",
    "n.log_prob(lib.tensor([0.5, 0.5]))",
    "n.log_prob(lib.zeros(3, 2))",
    "n.log_prob(lib.zeros(3))",
    "n.entropy()",
    "n.cdf(lib.tensor([0.5, 0.5]))",
    "n.icdf(lib.tensor([0.1, 0.9]))",
    "n.stddev",
    "n",
    "n.expand((3, 2)).sample().shape",
    "D.Normal(0.0, 1.0).sample((2,))",
    "D.Normal(0.0, 1.0).batch_shape",
    "D.Normal(0.0, -1.0)",
    "D.Normal(lib.zeros(2), lib.ones(3))",
    "D.Normal(0.0, 1.0).log_prob(1)",
    "D.Normal(lib.zeros(2, dtype=lib.float64), 1.0).sample()",
    "c.sample()",
    "c.sample((4,))",
    "c.log_prob(lib.tensor([0, 2]))",
    "c.log_prob(lib.tensor(1))",
    "c.log_prob(lib.tensor([[0], [1], [2]]))",
    "c.log_prob(lib.tensor([0, 3]))",
    "c.log_prob(lib.tensor([0.5, 1.0]))",
    "c.log_prob(lib.tensor([0, 1, 2]))",
    "c.entropy()",
    "c.probs",
    "c.logits",
    "c.param_shape",
    "c.enumerate_support()",
    "c.mode",
    "c",
    "cp",
    "cp.sample((5,))",
    "cp.entropy()",
    "cp.log_prob(lib.arange(3))",
    "D.Categorical(probs=lib.tensor([0.2, -0.3, 1.1]))",
    "D.Categorical(logits=lib.tensor([0.0, float('-inf')])).entropy()",
    "D.Categorical(probs=lib.tensor([1.0, 0.0])).entropy()",
    "D.Categorical(probs=lib.tensor([[0.5, 0.5]])).sample((2, 3)).shape",
    "D.Categorical(lib.tensor([1.0, 2.0]), lib.tensor([0.0, 1.0]))",
    "D.Categorical()",
    "D.Categorical(logits=lib.tensor(1.0))",
    "D.Bernoulli(0.3).sample((5,))",
    "D.Bernoulli(logits=lib.tensor([0.0, 2.0])).log_prob(lib.tensor([1.0, 0.0]))",
    "D.Uniform(0.0, 2.0).log_prob(lib.tensor([1.0, 3.0]))",
    "D.MultivariateNormal(lib.zeros(2), cov).log_prob(lib.ones(3, 2))",
    "D.kl_divergence(n, D.Normal(lib.zeros(2), lib.ones(2)))",
    "D.kl_divergence(c, D.Categorical(logits=lib.zeros(2, 3)))",
    "D.kl_divergence(n, c)",
    "D.Independent(n, 1).log_prob(lib.zeros(2))",
    "D.Independent(n, 1).sample((3,))",
    "D.Multinomial(5, probs=lib.tensor([0.2, 0.3, 0.5])).sample((2,))",
    "D.Beta(2.0, 3.0).sample((2,))",
    "D.Gamma(2.0, 3.0).sample((2,))",
    "D.Poisson(3.0).sample((4,))",
    "D.Dirichlet(lib.tensor([1.0, 2.0, 3.0])).sample()",
    "D.Binomial(10, 0.3).sample((4,))",
    "lib.multinomial(lib.tensor([0.1, 0.2, 0.7]), 4, replacement=True)",
    "lib.bernoulli(lib.full((4,), 0.5))",
    "lib.empty(3).uniform_(-1, 1)",
    "lib.randperm(6)",
    "lib.randint(5, (3,), dtype=lib.int8)",
    "lib.rand(2, dtype=lib.float16)",
]


def _distributions(lib, rec):
    lib.manual_seed(0)
    D = lib.distributions
    env = {
        "lib": lib,
        "D": D,
        "n": D.Normal(lib.tensor([0.0, 1.0]), lib.tensor([1.0, 2.0])),
        "c": D.Categorical(logits=lib.tensor([[0.1, 0.5, -1.0], [2.0, 0.0, 0.0]])),
        "cp": D.Categorical(probs=lib.tensor([0.2, 0.3, 0.5])),
        "cov": lib.tensor([[2.0, 0.5], [0.5, 1.0]]),
    }
    _evals(_DISTRIBUTIONS, env, rec)


def test_seeded_distributions_match():
    _matches(_distributions)


_OPERANDS = ["i8", "u8", "i32", "i64", "bt", "f16", "bf", "f32", "f64"]
_SCALARS = ["2", "2.5", "True", "-1", "300", "lib.tensor(2)", "lib.tensor(2.5, dtype=lib.float64)"]
_PROMOTION = [f"({a} {op} {b}).dtype" for a in _OPERANDS for b in _OPERANDS for op in "+*/-<"]
_PROMOTION += [f"{a} // {b}" for a in _OPERANDS for b in ("i8", "f16", "u8")]
_PROMOTION += [f"{a} {op} {s}" for a in _OPERANDS for s in _SCALARS for op in "+*-"]
_PROMOTION += [f"{s} {op} {a}" for a in _OPERANDS for s in _SCALARS for op in "*-"]
_PROMOTION += [
    f"{a}.clone().__iadd__({b})"
    for a in _OPERANDS
    for b in ("2", "2.5", "f64", "i64", "bt", "lib.tensor(2.5)")
]
_PROMOTION += [
    f"lib.where(bt, {a}, {b})"
    for a in ("i8", "f16", "2", "2.5", "f64")
    for b in ("u8", "i64", "0", "0.5", "bf", "lib.tensor(1.5, dtype=lib.float64)")
]
_PROMOTION += [
    "lib.where(x > 5)",
    "lib.where(x > 5, x, 0)",
    "lib.where(x > 5, 1, 0)",
    "lib.where(x > 5, 1.0, 0)",
    "lib.where(x > 5, x.int(), 0.5)",
    "lib.where(x, x, 0)",
    "lib.where(x > 5, x, lib.zeros(2))",
    "x.clamp(2, 5)",
    "x.clamp(max=lib.tensor([1.0, 2.0, 3.0, 4.0]))",
    "x.clamp()",
    "x.clamp(5, 2)",
    "x.long().clamp(2.5, 5)",
    "x.long().clamp(min=lib.tensor(2.5))",
    "x.clamp(float('nan'), 3)",
    "x.long().clamp_(2.5)",
    "x.masked_fill(x > 5, 0.5)",
    "x.long().masked_fill(x > 5, 0.5)",
    "x.masked_fill(x > 5, lib.tensor([1.0]))",
    "x.masked_fill(x.long(), 0)",
    "x.masked_fill(lib.tensor([True, False, True, False]), -1)",
    "x.masked_fill(lib.tensor([True, False]), -1)",
    "x.masked_select(x > 5)",
    "x.masked_scatter(x > 5, lib.zeros(12) - 1)",
    "x.long().masked_fill(x > 5, float('inf'))",
    "x.int().masked_fill(x > 5, 2**40)",
]


def _promotion(lib, rec):
    env = {
        "lib": lib,
        "i8": lib.tensor([100, -100], dtype=lib.int8),
        "u8": lib.tensor([200, 3], dtype=lib.uint8),
        "i32": lib.tensor([1, 2], dtype=lib.int32),
        "i64": lib.tensor([1, 2]),
        "bt": lib.tensor([True, True]),
        "f16": lib.tensor([1.5, 2.5], dtype=lib.float16),
        "bf": lib.tensor([1.5, 2.5], dtype=lib.bfloat16),
        "f32": lib.tensor([1.5, 2.5]),
        "f64": lib.tensor([1.5, 2.5], dtype=lib.float64),
        "x": lib.arange(12.0).view(3, 4),
    }
    _evals(_PROMOTION, env, rec)


def test_promotion_where_clamp_masked_match():
    _matches(_promotion)


_VIEW_BLOCKS = [
    "y = x.clone(); v = y[1]; v.mul_(10); out = y",
    "y = x.clone(); v = y[:, 1]; v += 100; out = (y, v.is_contiguous(), v._version, y._version)",
    "y = x.clone(); y.t()[0].zero_(); out = y",
    "y = x.clone(); y[y > 5] = 0; out = y",
    "y = x.clone(); y[:, ::2] *= -1; out = y",
    "y = x.clone(); v = y.view(12); v[::3] = 7; out = y",
    "y = x.clone(); y.diagonal().fill_(-1); out = y",
    "y = x.clone(); v = y.reshape(4, 3); v[0, 0] = 99; out = y",
    "y = x.clone(); v = y.t().reshape(12); v[0] = 99; out = y",
    "y = x.clone(); v = y.T.flatten(); v.add_(1); out = y",
    "y = x.clone(); y.view(-1).clamp_(3, 7); out = y",
    "y = x.clone(); v = y[1:, 1:]; v.t_(); out = (v, y)",
    "y = x.clone(); v = y.expand(2, 3, 4); v.add_(1)",
    "y = x.clone(); y.narrow(1, 1, 2).copy_(lib.ones(3, 2)); out = y",
    "y = x.clone(); y.unfold(1, 2, 1).mul_(0)",
    "y = x.clone(); y[:, 0] = y[:, 1]; out = y",
    "y = x.clone(); y[1:] += y[:-1]; out = y",
    "y = x.clone(); v = y[0]; y.zero_(); out = v",
    "y = x.clone(); y.T[:] = 0; out = y",
    "y = x.clone(); y.mT.add_(1); out = y",
    "y = x.long(); y[0] += 0.5; out = y",
    "y = x.long(); y /= 2",
    "y = x.long(); y *= 1.5",
    "y = x.int(); y += lib.tensor([1, 2, 3, 4]); out = y",
    "y = x.bool(); y += 1",
    "y = lib.tensor([100, -100], dtype=lib.int8); y += 100; out = y",
    "y = lib.tensor([200, 3], dtype=lib.uint8); y -= 4; out = y",
    "y = x.clone().requires_grad_(); v = y[0]; v.mul_(2)",
    "y = x.clone().requires_grad_() * 1; v = y[0]; v.mul_(2); y.sum().backward(); "
    "out = (y.grad_fn.name(), v.grad_fn.name())",
    "y = x.clone().requires_grad_(); z = y * 1; z[:, 1:].mul_(z[:, :1]); z.sum().backward(); "
    "out = (z, y.grad)",
    "y = x.clone().requires_grad_(); z = y.t() * 1; w = z.view(-1)",
]


def _inplace_views(lib, rec):
    _execs(_VIEW_BLOCKS, {"lib": lib, "x": lib.arange(12.0).view(3, 4)}, rec)


def test_inplace_ops_on_views_match():
    _matches(_inplace_views)


def _polynomial(lib, dt, rec):
    """The polynomial fits of "Learning PyTorch with Examples"."""
    x = lib.linspace(-math.pi, math.pi, 2000, dtype=dt)
    y = lib.sin(x)
    a, b, c, d = (lib.tensor(v, dtype=dt, requires_grad=True) for v in (0.1, -0.2, 0.3, 0.05))
    for t in range(300):
        loss = (a + b * x + c * x**2 + d * x**3 - y).pow(2).sum()
        if t % 50 == 0:
            rec(f"loss{t}", loss)
        loss.backward()
        with lib.no_grad():
            a -= 1e-6 * a.grad
            b -= 1e-6 * b.grad
            c -= 1e-6 * c.grad
            d -= 1e-6 * d.grad
            a.grad = None
            b.grad = None
            c.grad.zero_()
            d.grad.zero_()
    rec("coefficients", lib.stack([a, b, c, d]))
    xx = x.unsqueeze(-1).pow(lib.tensor([1, 2, 3]))
    model = lib.nn.Sequential(lib.nn.Linear(3, 1, dtype=dt), lib.nn.Flatten(0, 1))
    with lib.no_grad():
        model[0].weight.copy_(lib.tensor([[0.1, -0.1, 0.02]], dtype=dt))
        model[0].bias.fill_(0.05)
    loss_fn = lib.nn.MSELoss(reduction="sum")
    opt = lib.optim.RMSprop(model.parameters(), lr=1e-3)
    for t in range(100):
        loss = loss_fn(model(xx), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        if t % 20 == 0:
            rec(f"nn_loss{t}", loss)
    rec.params("model", model, grads=True)

    class P3(lib.autograd.Function):
        @staticmethod
        def forward(ctx, inp):
            ctx.save_for_backward(inp)
            return 0.5 * (5 * inp**3 - 3 * inp)

        @staticmethod
        def backward(ctx, grad):
            (inp,) = ctx.saved_tensors
            return grad * 1.5 * (5 * inp**2 - 1)

    ps = [lib.tensor(v, dtype=dt, requires_grad=True) for v in (0.0, -1.0, 0.0, 0.3)]
    for t in range(200):
        loss = (ps[0] + ps[1] * P3.apply(ps[2] + ps[3] * x) - y).pow(2).sum()
        loss.backward()
        with lib.no_grad():
            for p in ps:
                p -= 5e-6 * p.grad
                p.grad = None
        if t % 40 == 0:
            rec(f"p3_loss{t}", loss)
    rec("p3", lib.stack(ps))
    w = lib.tensor([1.0, 2.0], dtype=dt, requires_grad=True)
    rec.err("inplace_leaf", lambda: w.sub_(1))
    rec.err("grad_none", lambda: w - 0.1 * w.grad)
    rec.err("zero_none_grad", lambda: w.grad.zero_())
    rec.err("data_sub", lambda: w.data.sub_(0.1))
    rec("w", w)


@pytest.mark.parametrize("dt", ["float32", "float64"])
def test_polynomial_fit_programs_match(dt):
    # float32: the sums over 2000 points round in another order (the pinned environment's
    # kernels too): the final gradients agree to about 1.5e-4 of their scale
    assert_program_matches(_polynomial, torch, dt, tol=1e-3 if dt == "float32" else None)
