"""Session 30 (helper review): programs over the areas that session 30's commits changed,
compared with torch: F.linear's addmm and matmul-plus-in-place-bias paths (2-D biases,
non-contiguous batches, double backward), matmul's folding of a batch times a vector or a matrix,
a gradient penalty through convolutions and grid_sample (their double-backward nodes),
slogdet/solve_ex at singular matrices, index_reduce in half precision, float8 casts (e4m3fn
saturation, NaN bits, e8m0fnu rounding), the meta device (a model built and trained on it, the
in-place modification error of a saved output) and randn/normal_ tails.

The review found three library differences, all fixed: a meta tensor's saved output changed in
place named torch.FloatTensor in autograd's error (torch: MetaFloatType); casts into the float8
dtypes read device arrays on the host (np.asarray, .any()) so failed on the strict device; and
F.linear of a 2-D input with a 2-D bias added the bias after mm (AddBackward0) where torch runs
one addmm (AddmmBackward0, with addmm's shape errors).

Known and left:
- float8 tensors: torch's CPU kernels refuse tensor-tensor add/sub, neg, sum, mean, max, dot
  ("add_stub" not implemented for 'Float8_e4m3fn' ...); minitorch computes them (only the
  arithmetic with numbers is refused). Refusing them without a cost on the per-op fast paths
  needs a check inside each kernel: not a local fix.
- F.linear of a contiguous 1-D input with a bias that is not 1-D: torch takes its addmm path
  for some shapes ((1, 3), (6, 1): ViewBackward0 over AddmmBackward0, or addmm's error) and
  matmul plus an in-place add for others ((1, 1), (2, 3)); minitorch always takes the latter,
  and a 1-D bias that is not the hot path's ((1,)) gives AddBackward0 where torch's is
  ViewBackward0. The rule torch follows there was not pinned down.
- A gradient penalty through conv2d of an empty batch: torch's double backward leaves the
  weight's gradient None, minitorch gives zeros.
"""

from __future__ import annotations

import pytest

from tests.reference._one_thread import one_torch_thread  # noqa: F401 - an autouse fixture
from tests.reference._programs import assert_program_matches

torch = pytest.importorskip("torch")


PROGRAMS = [
    "linear_paths", "matmul_folds", "conv_penalty", "grid_sample_penalty", "singular_solves",
    "index_reduce_half", "float8_casts", "meta_model", "randn_tails",
]  # fmt: skip


@pytest.mark.parametrize("dt", ["float64", "float32"])
@pytest.mark.parametrize("name", PROGRAMS)
def test_program_matches_torch(name, dt):
    assert_program_matches(globals()["p_" + name], torch, dt)


def _each(rec, name, *values):
    """Records each value under its own name (tensors compared by value, not as one text)."""
    for i, v in enumerate(values):
        rec(f"{name}.{i}", v)


def p_linear_paths(lib, dt, rec):
    F = lib.nn.functional
    d = dt
    lib.manual_seed(0)
    w = lib.randn(3, 4, dtype=d, requires_grad=True)
    for label, x, b in [
        ("c2d", lib.randn(5, 2, 4, dtype=d), lib.randn(2, 3, dtype=d)),
        ("nc2d", lib.randn(2, 5, 4, dtype=d).transpose(0, 1), lib.randn(2, 3, dtype=d)),
        ("nc1d", lib.randn(2, 5, 4, dtype=d).transpose(0, 1), lib.randn(3, dtype=d)),
        ("vec", lib.randn(4, dtype=d), lib.randn(3, dtype=d)),
        ("mat", lib.randn(6, 4, dtype=d), lib.randn(6, 3, dtype=d)),
    ]:
        x.requires_grad_()
        b.requires_grad_()
        y = F.linear(x, w, b)
        rec(f"{label}.y", y)
        rec(f"{label}.fn", type(y.grad_fn).__name__)
        rec(f"{label}.version", y._version)
        (gx,) = lib.autograd.grad(y.tanh().sum(), x, create_graph=True)
        rec(f"{label}.gx", gx)
        gw, gb = lib.autograd.grad(gx.pow(2).sum(), (w, b))
        rec(f"{label}.gw", gw)
        rec(f"{label}.gb", gb)
    x = lib.randn(4, dtype=d)
    rec.err("vec_2d_bias", lambda: F.linear(x, w, lib.randn(2, 3, dtype=d)))
    xs = lib.randn(2, 5, 4, dtype=d).transpose(0, 1)
    rec.err("wide_bias", lambda: F.linear(xs, w, lib.randn(4, 5, 2, 3, dtype=d)))
    if d is lib.float32:  # the matmul path's in-place add keeps the product's dtype
        rec("f64_bias", F.linear(xs, w.detach(), lib.randn(3, dtype=lib.float64)))


def p_matmul_folds(lib, dt, rec):
    d = dt
    lib.manual_seed(1)
    for label, a in [
        ("c", lib.randn(4, 3, 5, dtype=d)),
        ("nc", lib.randn(3, 4, 5, dtype=d).transpose(0, 1)),
        ("empty", lib.randn(3, 0, 5, dtype=d).transpose(0, 1)),
    ]:
        a.requires_grad_()
        v = lib.randn(5, dtype=d, requires_grad=True)
        m = lib.randn(5, 2, dtype=d, requires_grad=True)
        y, z = a @ v, a @ m
        rec(f"{label}.y", y)
        rec(f"{label}.z", z)
        _each(rec, f"{label}.fns", type(y.grad_fn).__name__, type(z.grad_fn).__name__)
        (ga,) = lib.autograd.grad((y.sin().sum() + z.cos().sum()), a, create_graph=True)
        gv, gm = lib.autograd.grad(ga.pow(2).sum(), (v, m))
        _each(rec, f"{label}.grads", ga.detach(), gv, gm)
    rec.err("bad_vec", lambda: lib.randn(4, 3, 5, dtype=d) @ lib.randn(4, dtype=d))
    o = lib.empty(4, 3, dtype=d)
    r = lib.matmul(lib.randn(4, 3, 5, dtype=d), lib.randn(5, dtype=d), out=o)
    rec("out", [r, o, r is o])


def p_conv_penalty(lib, dt, rec):
    F = lib.nn.functional
    d = dt
    lib.manual_seed(2)
    critic = lib.nn.Sequential(
        lib.nn.Conv2d(3, 6, 3, stride=2, padding=1),
        lib.nn.LeakyReLU(0.2),
        lib.nn.Conv2d(6, 4, 3, groups=2, dilation=2),
        lib.nn.Flatten(),
    ).to(d)
    for p in critic.parameters():
        p.requires_grad_(False)  # a frozen critic: the penalty reaches the images only
    real = lib.randn(2, 3, 12, 12, dtype=d)
    fake = lib.randn(2, 3, 12, 12, dtype=d, requires_grad=True)
    eps = lib.rand(2, 1, 1, 1, dtype=d)
    mix = eps * real + (1 - eps) * fake
    out = critic(mix).sum(1)
    (g,) = lib.autograd.grad(out.sum(), mix, create_graph=True)
    rec("g.fn", type(g.grad_fn).__name__)
    pen = ((g.flatten(1).norm(dim=1) - 1) ** 2).mean()
    pen.backward()
    rec("pen", pen)
    rec("fake.grad", fake.grad)
    x = lib.randn(1, 2, 7, dtype=d, requires_grad=True)
    w = lib.randn(2, 2, 3, dtype=d, requires_grad=True)
    y = F.conv_transpose1d(x, w, stride=2, output_padding=1)
    gx, gw = lib.autograd.grad(y.pow(3).sum(), (x, w), create_graph=True)
    (gx.sum() + gw.pow(2).sum()).backward()
    _each(rec, "tconv", gx.detach(), gw.detach(), x.grad, w.grad)


def p_grid_sample_penalty(lib, dt, rec):
    F = lib.nn.functional
    d = dt
    lib.manual_seed(3)
    img = lib.randn(2, 3, 6, 6, dtype=d, requires_grad=True)
    theta = (lib.eye(2, 3, dtype=d) + 0.1 * lib.randn(2, 2, 3, dtype=d)).requires_grad_()
    for mode, pad in [("bilinear", "zeros"), ("bilinear", "border"), ("nearest", "reflection")]:
        grid = F.affine_grid(theta, (2, 3, 5, 5), align_corners=False)
        y = F.grid_sample(img, grid, mode=mode, padding_mode=pad, align_corners=False)
        gi, gg = lib.autograd.grad(y.pow(2).sum(), (img, grid), create_graph=True)
        rec(f"{mode}.{pad}.fn", type(gi.grad_fn).__name__)
        _each(rec, f"{mode}.{pad}.g", gi.detach(), gg.detach())
        gi2, gt2 = lib.autograd.grad(gi.pow(2).sum() + gg.pow(2).sum(), (img, theta))
        _each(rec, f"{mode}.{pad}.gg", gi2, gt2)


def p_singular_solves(lib, dt, rec):
    d = dt
    a = lib.tensor([[1.0, 2.0, 3.0], [2.0, 4.0, 6.0], [0.0, 1.0, 1.0]], dtype=d)
    ok = lib.tensor([[2.0, 1.0, 0.0], [1.0, 3.0, 1.0], [0.0, 1.0, 4.0]], dtype=d)
    batch = lib.stack([ok, a]).requires_grad_()
    sign, logabs = lib.linalg.slogdet(batch)
    logabs.sum().backward()
    # the singular element's sign, logabs and gradient follow the LAPACK build's last pivot
    # (0, or a rounding residue: they differed between torch's MKL and NumPy's OpenBLAS on an
    # AVX-512 machine): the regular one only
    _each(rec, "slogdet", sign[0], logabs[0].detach(), batch.grad[0])
    m = a.clone().requires_grad_()
    b = lib.ones(3, 2, dtype=d, requires_grad=True)
    x, info = lib.linalg.solve_ex(m, b)
    x.sum().backward()
    _each(rec, "solve_ex", x.detach(), info, m.grad, b.grad)
    m2 = ok.clone().requires_grad_()
    x, info = lib.linalg.solve_ex(m2, lib.ones(2, 3, dtype=d), left=False)
    (gm,) = lib.autograd.grad(x.pow(2).sum(), m2, create_graph=True)
    gm.sum().backward()
    _each(rec, "solve_ex_right", x.detach(), gm.detach(), m2.grad)
    rec.err("solve_singular", lambda: lib.linalg.solve(a, lib.ones(3, dtype=d)))


def p_index_reduce_half(lib, dt, rec):
    lib.manual_seed(4)
    index = lib.tensor([0, 2, 2, 4, 2])
    for h in (lib.float16, lib.bfloat16):
        x = (lib.randn(5, 3) * 10).to(h)
        src = (lib.randn(5, 3) * 10).to(h)
        for reduce in ("mean", "prod", "amax", "amin"):
            for inc in (True, False):
                r = x.index_reduce(0, index, src, reduce, include_self=inc)
                rec(f"{h}.{reduce}.{inc}", r.float())
    x = lib.arange(15, dtype=dt).reshape(5, 3)
    rec("float.mean", x.index_reduce_(0, index, lib.ones(5, 3, dtype=x.dtype) * 7, "mean"))


def p_float8_casts(lib, dt, rec):
    d = dt
    vals = [0.0, -0.0, 1e-9, 0.0017, 0.3, 1.0625, 240.0, 448.0, 449.0, 464.0, 500.0, 57344.0,
            61440.0, 1e6, float("inf"), -float("inf"), float("nan"), -float("nan"), -1e6,
            2.0**-10, 2.0**-17, 2.0**-127]  # fmt: skip
    x = lib.tensor(vals, dtype=d)
    for name in ("float8_e4m3fn", "float8_e5m2", "float8_e4m3fnuz", "float8_e5m2fnuz",
                 "float8_e8m0fnu"):  # fmt: skip
        f8 = getattr(lib, name)
        y = x.to(f8)
        rec(f"{name}.bits", y.view(lib.uint8))
        rec(f"{name}.back", y.to(d))
        rec(f"{name}.repr", repr(y[:6]))
        rec(f"{name}.finfo", [lib.finfo(f8).max, lib.finfo(f8).eps, lib.finfo(f8).tiny])
    a = lib.tensor([[1.0, 2.0], [3.0, 4.0]], dtype=d).to(lib.float8_e4m3fn)
    rec("mm", lib.mm(a, a).to(d))
    rec.err("mul_number", lambda: a * 2)
    rec.err("promote", lambda: a + lib.ones(2, 2, dtype=d))


def p_meta_model(lib, dt, rec):
    d = dt
    with lib.device("meta"):
        model = lib.nn.Sequential(lib.nn.Linear(4, 8), lib.nn.GELU(), lib.nn.Linear(8, 2)).to(d)
    x = lib.randn(5, 4, device="meta", dtype=d)
    loss = model(x).logsumexp(1).mean()
    loss.backward()
    rec("loss", repr(loss))
    rec("grads", [repr(p.grad) for p in model.parameters()])
    rec("ptrs", [x.data_ptr(), x[2:].data_ptr(), x.get_device(), x.is_meta])
    rec.err("item", lambda: loss.item())
    rec.err("cpu", lambda: loss.cpu())
    a = lib.ones(3, device="meta", dtype=d, requires_grad=True)
    s = a.sigmoid()
    s.mul_(2)
    rec.err("modified_output", lambda: s.sum().backward())
    e = a.exp()
    e.add_(1)
    rec.err("modified_exp", lambda: e.sum().backward())
    model.to_empty(device="cpu")
    rec("to_empty", [(p.shape, str(p.device), p.dtype) for p in model.parameters()])


def p_randn_tails(lib, dt, rec):
    d = dt
    for n in (1, 15, 16, 17, 33, 100, 257):
        lib.manual_seed(n)
        rec(f"randn.{n}", lib.randn(n, dtype=d))
        rec(f"normal.{n}", lib.empty(n, dtype=d).normal_(2.0, 3.0))
    g = lib.Generator().manual_seed(7)
    rec("gen", lib.randn(3, 7, dtype=d, generator=g))
    lib.manual_seed(8)
    rec("half", lib.randn(19, dtype=lib.float16).to(d))
