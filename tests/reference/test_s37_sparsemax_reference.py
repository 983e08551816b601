"""Session 37 (helper sparsemax): sparse and discrete activations written the way users write them
in torch, run under torch and minitorch with the same seeds and compared record by record:
sparsemax and entmax-1.5 by sort(descending=True)/cumsum/arange/gather/clamp (entmax package
style: the forward composed, and custom autograd.Functions with their own backward, gradcheck'd
away from the kinks), Gumbel-softmax (F.gumbel_softmax with tau, hard straight-through, dim, and a
user's version on a fixed uniform noise tensor), straight-through estimators (round, sign with a
hardtanh gradient, one-hot argmax), top-k masking by topk and scatter, the softmax temperature
family (softmax/log_softmax with dtype=, softmin), relu6/hardtanh/hardsigmoid/hardswish and the
shrink functions at exactly their kinks, sign/sgn, round/floor/ceil/trunc/frac gradients, clamp
gradients at equality (numbers and tensor bounds), and where/maximum/minimum/max/amax gradients on
ties (torch splits them evenly). float64 must agree to 1e-10 of each record's scale, float32 to
1e-4; texts exactly.

Found and fixed:
- A bfloat16 clamp with number bounds (clamp, clip, clamp_min, clamp_max, relu6 is hardtanh's)
  was a float32 clamp under a ToCopyBackward0 (clamp_min/clamp_max renamed that cast node, so
  their _saved_self was a float32 copy); now one ClampBackward1 node over the bfloat16 input,
  clipped in float32 and rounded back inside its forward, as torch's.
- F.relu6 of a non-tensor raised hardtanh's TypeError; torch's relu6 parser names relu6 (the
  nn.ReLU6 module still names hardtanh, as torch's, a Hardtanh subclass).
- hardsigmoid's, hardswish's and threshold's nodes had no _saved_self/_raw_saved_self (and
  threshold no _saved_threshold), which torchviz's make_dot(show_saved=True) reads; their
  in-place forms show the input as it was before (torch keeps the original).

Known and left (documented):
- Forward-mode AD at exact ties: torch's jvp formulas for clamp with one tensor bound and for
  fmax give the bound's (other's) tangent on a tie, while their backward formulas give the
  input's; minitorch takes tangents from its backward (NOTE [ Tangents through double
  backward ]), so those tie tangents differ. Not recorded.
- Double backward of hardsigmoid: torch raises "derivative for aten::hardsigmoid_backward is
  not implemented"; minitorch gives the (zero) second derivative. Not recorded.
- hardtanh/relu6/clamp gradients at a NaN input depend on torch's SIMD path (the vectorized
  kernel gives 0, the scalar tail passes the gradient); not recorded.
- torch's sgn/sign gradients are ZeroTensors (no numpy()); the programs record a clone.
- minitorch has no complex dtypes, so the complex sgn (z/|z|) and its gradient, and torch's
  complex errors for sign/maximum, are not covered.
- Signed zeros: fmax(0., -0.) and amax([0., -0.]) give -0. in minitorch, +0. in torch.
- Nodes whose _saved_* come from _saved_attrs (gather, sort, topk, max(dim), scatter, cummax
  of 0-d) have no _raw_saved_* for those tensors; sgn and cummax nodes show no _saved_* at all.
- float16/bfloat16 add/sub with an alpha (x.add(y, alpha=2)) record ToCopyBackward0 over a
  float32 AddBackward0 (torch: one AddBackward0/SubBackward0); outside this domain.
- Unknown keywords to Tensor methods give Python's "Tensor.topk() got an unexpected keyword
  argument" (torch: "topk() got ..." or its parser's listing); Tensor.sort(out=None) is
  accepted (torch's parser refuses it).
- The records run on the CPU only; the strict test device and CuPy are not exercised here."""

from __future__ import annotations

import pytest

from tests.reference._one_thread import one_torch_thread  # noqa: F401 - an autouse fixture
from tests.reference._programs import assert_program_matches
from tests.reference._programs import seeded_rand as _rand
from tests.reference._programs import seeded_randn as _randn

torch = pytest.importorskip("torch")


PROGRAMS = [
    "sparsemax_composed", "sparsemax_function", "sparsemax_dims", "entmax15_composed",
    "entmax15_function", "sparse_gradcheck", "gumbel_builtin", "gumbel_fixed_noise",
    "ste_round", "ste_sign", "ste_onehot", "topk_mask", "softmax_dtype", "softmin_temp",
    "kinks_hard", "kinks_shrink", "sign_sgn", "rounding_grads", "clamp_ties",
    "clamp_tensor_bounds", "max_ties", "where_ties", "softmax_errors", "activation_errors",
    "sparsemax_loss", "double_backward", "relaxed_dists", "sort_ties",
    "masked_sparse", "entmax_bisect", "gumbel_train", "kink_modules", "clamp_bf16",
    "saved_attrs", "ste_variants",
]  # fmt: skip


@pytest.mark.parametrize("dt", ["float64", "float32"])
@pytest.mark.parametrize("name", PROGRAMS)
def test_program_matches_torch(name, dt):
    assert_program_matches(globals()["p_" + name], torch, dt)


# --- the user's code: sparsemax and entmax-1.5 as the entmax package writes them ---


def _ix_like(lib, x, dim):
    """1..d along dim, shaped to broadcast against x (entmax's _make_ix_like)."""
    d = x.size(dim)
    rho = lib.arange(1, d + 1, device=x.device, dtype=x.dtype)
    view = [1] * x.dim()
    view[0] = -1
    return rho.view(view).transpose(0, dim)


def _sparsemax_tau(lib, x, dim):
    srt, _ = lib.sort(x, dim=dim, descending=True)
    cs = srt.cumsum(dim) - 1
    rhos = _ix_like(lib, srt, dim)
    support = rhos * srt > cs
    size = support.sum(dim=dim).unsqueeze(dim)
    tau = cs.gather(dim, size - 1)
    tau = tau / size.to(x.dtype)
    return tau, size


def _sparsemax(lib, x, dim=-1):
    """Sparsemax composed from differentiable ops (autograd through sort/gather/clamp)."""
    x = x - x.max(dim=dim, keepdim=True).values
    tau, _ = _sparsemax_tau(lib, x, dim)
    return lib.clamp(x - tau, min=0)


def _entmax15_tau(lib, x, dim):
    srt, _ = lib.sort(x, descending=True, dim=dim)
    rho = _ix_like(lib, x, dim)
    mean = srt.cumsum(dim) / rho
    mean_sq = (srt**2).cumsum(dim) / rho
    ss = rho * (mean_sq - mean**2)
    delta = (1 - ss) / rho
    delta_nz = lib.clamp(delta, 0)
    tau = mean - lib.sqrt(delta_nz)
    size = (tau <= srt).sum(dim).unsqueeze(dim)
    return tau.gather(dim, size - 1), size


def _entmax15(lib, x, dim=-1):
    x = x / 2
    x = x - x.max(dim, keepdim=True)[0]
    tau, _ = _entmax15_tau(lib, x, dim)
    return lib.clamp(x - tau, min=0) ** 2


def _functions(lib):
    """The entmax package's autograd.Functions, built against lib."""

    class SparsemaxFunction(lib.autograd.Function):
        @classmethod
        def forward(cls, ctx, x, dim=-1):
            ctx.dim = dim
            max_val, _ = x.max(dim=dim, keepdim=True)
            x = x - max_val
            tau, size = _sparsemax_tau(lib, x, dim)
            out = lib.clamp(x - tau, min=0)
            ctx.save_for_backward(size, out)
            return out

        @classmethod
        def backward(cls, ctx, grad_output):
            size, out = ctx.saved_tensors
            dim = ctx.dim
            grad_input = grad_output.clone()
            grad_input[out == 0] = 0
            v_hat = grad_input.sum(dim=dim) / size.to(out.dtype).squeeze(dim)
            v_hat = v_hat.unsqueeze(dim)
            grad_input = lib.where(out != 0, grad_input - v_hat, grad_input)
            return grad_input, None

    class Entmax15Function(lib.autograd.Function):
        @classmethod
        def forward(cls, ctx, x, dim=0):
            ctx.dim = dim
            max_val, _ = x.max(dim=dim, keepdim=True)
            x = (x - max_val) / 2
            tau, _ = _entmax15_tau(lib, x, dim)
            y = lib.clamp(x - tau, min=0) ** 2
            ctx.save_for_backward(y)
            return y

        @classmethod
        def backward(cls, ctx, dy):
            (y,) = ctx.saved_tensors
            gppr = y.sqrt()
            dx = dy * gppr
            q = dx.sum(ctx.dim) / gppr.sum(ctx.dim)
            q = q.unsqueeze(ctx.dim)
            dx -= q * gppr
            return dx, None

    class SignSTE(lib.autograd.Function):
        """sign forward, hardtanh's gradient backward (BinaryConnect / BNN)."""

        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x.sign()

        @staticmethod
        def backward(ctx, grad):
            (x,) = ctx.saved_tensors
            return grad * (x.abs() <= 1).to(grad.dtype)

    return SparsemaxFunction, Entmax15Function, SignSTE


# --- the programs: each takes the library, a dtype and a recorder ---


def p_sparsemax_composed(lib, dt, rec):
    x = (_randn(lib, dt, 1, 4, 7) * 1.5).requires_grad_(True)
    y = _sparsemax(lib, x)
    rec("y", y)
    rec("sum", y.sum(-1))
    rec("nnz", (y > 0).sum(-1))
    w = _randn(lib, dt, 2, 4, 7)
    (y * w).sum().backward()
    rec("gx", x.grad)
    # a flat row: uniform output; a dominant entry: one-hot
    rec("flat", _sparsemax(lib, lib.zeros(2, 5, dtype=dt)))
    rec("onehot", _sparsemax(lib, lib.tensor([[10.0, 0.0, -1.0, 2.0]], dtype=dt)))
    tau, size = _sparsemax_tau(lib, x.detach(), -1)
    rec("tau", tau)
    rec("size", size)


def p_sparsemax_function(lib, dt, rec):
    Sparsemax, _, _ = _functions(lib)
    x = (_randn(lib, dt, 3, 3, 6) * 2).requires_grad_(True)
    y = Sparsemax.apply(x, -1)
    rec("y", y)
    rec("grad_fn", type(y.grad_fn).__name__)
    w = _randn(lib, dt, 4, 3, 6)
    (y * w).sum().backward()
    rec("gx", x.grad)
    # the composed version gives the same gradient
    x2 = x.detach().clone().requires_grad_(True)
    (_sparsemax(lib, x2) * w).sum().backward()
    rec("gx_composed", x2.grad)
    rec("same", lib.allclose(x.grad, x2.grad))

    # a module wrapper, as nn code holds it
    class SparsemaxModule(lib.nn.Module):
        def __init__(self, dim=-1):
            super().__init__()
            self.dim = dim

        def forward(self, x):
            return Sparsemax.apply(x, self.dim)

    m = SparsemaxModule(dim=1)
    z = _randn(lib, dt, 5, 2, 5, 3)
    rec("module", m(z))
    rec("module_sum", m(z).sum(1))


def p_sparsemax_dims(lib, dt, rec):
    Sparsemax, _, _ = _functions(lib)
    x0 = _randn(lib, dt, 6, 3, 4, 5) * 1.7
    w = _randn(lib, dt, 7, 3, 4, 5)
    for dim in (0, 1, 2, -1, -2):
        x = x0.clone().requires_grad_(True)
        y = Sparsemax.apply(x, dim)
        rec(f"y{dim}", y)
        (y * w).sum().backward()
        rec(f"g{dim}", x.grad)
        rec(f"c{dim}", _sparsemax(lib, x0, dim))
    # non-contiguous input (transposed)
    xt = x0.transpose(0, 2).requires_grad_(True)
    yt = Sparsemax.apply(xt, 1)
    rec("yt", yt)
    yt.pow(2).sum().backward()
    rec("gt", xt.grad)
    # 1-d and a single-element dim
    rec("one", _sparsemax(lib, lib.tensor([0.3, -0.2, 0.9], dtype=dt), 0))
    rec("single", _sparsemax(lib, x0[:, :1], 1))


def p_entmax15_composed(lib, dt, rec):
    x = (_randn(lib, dt, 8, 4, 6) * 2).requires_grad_(True)
    y = _entmax15(lib, x)
    rec("y", y)
    rec("sum", y.sum(-1))
    rec("nnz", (y > 0).sum(-1))
    w = _randn(lib, dt, 9, 4, 6)
    (y * w).sum().backward()
    rec("gx", x.grad)
    tau, size = _entmax15_tau(lib, x.detach() / 2, -1)
    rec("tau", tau)
    rec("size", size)
    rec("flat", _entmax15(lib, lib.zeros(1, 4, dtype=dt)))


def p_entmax15_function(lib, dt, rec):
    _, Entmax15, _ = _functions(lib)
    x = (_randn(lib, dt, 10, 5, 3) * 2).requires_grad_(True)
    y = Entmax15.apply(x, 0)
    rec("y", y)
    rec("sum", y.sum(0))
    w = _randn(lib, dt, 11, 5, 3)
    (y * w).sum().backward()
    rec("gx", x.grad)
    x2 = x.detach().clone().requires_grad_(True)
    (_entmax15(lib, x2, 0) * w).sum().backward()
    rec("gx_composed", x2.grad)
    # bigger temperature: denser; smaller: sparser
    for t in (0.5, 1.0, 4.0):
        rec(f"nnz_t{t}", (Entmax15.apply(x.detach() / t, 0) > 0).sum(0))


def p_sparse_gradcheck(lib, dt, rec):
    Sparsemax, Entmax15, SignSTE = _functions(lib)
    # double the inputs (gradcheck wants float64); points away from the support's edges
    x = lib.tensor(
        [[0.9, 0.1, -1.5, 0.45], [2.0, -0.3, 0.8, 1.1], [0.0, 0.35, -2.0, 0.7]],
        dtype=lib.float64,
        requires_grad=True,
    )
    rec("sparsemax", lib.autograd.gradcheck(lambda t: Sparsemax.apply(t, -1), (x,)))
    rec("sparsemax0", lib.autograd.gradcheck(lambda t: Sparsemax.apply(t, 0), (x,)))
    rec("entmax", lib.autograd.gradcheck(lambda t: Entmax15.apply(t, -1), (x,)))
    rec("entmax0", lib.autograd.gradcheck(lambda t: Entmax15.apply(t, 0), (x,)))
    rec("composed", lib.autograd.gradcheck(lambda t: _sparsemax(lib, t, -1), (x,)))
    rec("composed15", lib.autograd.gradcheck(lambda t: _entmax15(lib, t, -1), (x,)))
    rec("gg15", lib.autograd.gradgradcheck(lambda t: _entmax15(lib, t, -1), (x,)))
    # sign's hardtanh STE is not the derivative of sign: gradcheck says so
    z = lib.tensor([0.3, -0.6, 1.7], dtype=lib.float64, requires_grad=True)
    rec("ste", lib.autograd.gradcheck(SignSTE.apply, (z,), raise_exception=False))
    rec.err("ste_raise", lambda: lib.autograd.gradcheck(SignSTE.apply, (z,)))
    # in dt: the jacobians agree
    xd = x.detach().to(dt)
    rec("jac", lib.autograd.functional.jacobian(lambda t: Sparsemax.apply(t, -1), xd[0]))
    rec("jac15", lib.autograd.functional.jacobian(lambda t: Entmax15.apply(t, -1), xd[1]))


def p_gumbel_builtin(lib, dt, rec):
    F = lib.nn.functional
    logits = _randn(lib, dt, 12, 4, 5).requires_grad_(True)
    w = _randn(lib, dt, 13, 4, 5)
    for tau in (0.1, 0.5, 1.0, 3.0):
        for hard in (False, True):
            lib.manual_seed(100)
            y = F.gumbel_softmax(logits, tau=tau, hard=hard)
            rec(f"y.{tau}.{hard}", y)
            (g,) = lib.autograd.grad((y * w).sum(), logits)
            rec(f"g.{tau}.{hard}", g)
    lib.manual_seed(7)
    y0 = F.gumbel_softmax(logits, tau=0.7, hard=True, dim=0)
    rec("dim0", y0)
    rec("dim0_sum", y0.sum(0))
    rec("grad_fn", type(y0.grad_fn).__name__)
    lib.manual_seed(8)
    y3 = F.gumbel_softmax(logits.detach().view(2, 2, 5), tau=1.0, dim=1)
    rec("dim1_3d", y3)
    # non-contiguous logits draw their noise row-major
    lib.manual_seed(9)
    rec("t", F.gumbel_softmax(logits.detach().t(), tau=0.5))
    lib.manual_seed(9)
    rec("t_contig", F.gumbel_softmax(logits.detach().t().contiguous(), tau=0.5))
    rec.warns("eps", lambda: F.gumbel_softmax(logits.detach(), eps=1e-5))
    rec.err("int", lambda: F.gumbel_softmax(lib.tensor([[1, 2, 3]])))


def p_gumbel_fixed_noise(lib, dt, rec):
    """A user's Gumbel-softmax on a fixed uniform tensor (no RNG in the comparison)."""
    F = lib.nn.functional
    logits = _randn(lib, dt, 14, 3, 6).requires_grad_(True)
    u = _rand(lib, dt, 15, 3, 6) * 0.98 + 0.01
    g = -lib.log(-lib.log(u))
    rec("gumbel", g)
    for tau in (0.2, 1.0, 5.0):
        y_soft = F.softmax((logits + g) / tau, dim=-1)
        idx = y_soft.max(-1, keepdim=True)[1]
        y_hard = lib.zeros_like(logits).scatter_(-1, idx, 1.0)
        y = y_hard - y_soft.detach() + y_soft
        rec(f"soft{tau}", y_soft)
        rec(f"hard{tau}", y)
        rec(f"idx{tau}", idx)
        (gr,) = lib.autograd.grad((y * lib.arange(6, dtype=dt)).sum(), logits)
        rec(f"grad{tau}", gr)
    # annealed temperature, as a training loop would decay it
    tau = 2.0
    outs = []
    for _step in range(4):
        tau = max(0.3, tau * 0.6)
        outs.append(F.softmax((logits.detach() + g) / tau, -1))
    rec("anneal", lib.stack(outs))
    # the log-space form
    rec("log_soft", F.log_softmax((logits.detach() + g) / 0.5, dim=-1))


def p_ste_round(lib, dt, rec):
    x = (_randn(lib, dt, 16, 10) * 3).requires_grad_(True)
    q = x + (x.round() - x).detach()
    rec("q", q)
    (q * lib.arange(10, dtype=dt)).sum().backward()
    rec("gx", x.grad)
    # fake quantization with a scale (LSQ-like, grad to the scale through the division)
    s = lib.tensor(0.37, dtype=dt, requires_grad=True)
    x.grad = None
    v = x / s
    vq = (v + (v.round() - v).detach()).clamp(-4, 3)
    out = vq * s
    rec("fq", out)
    out.pow(2).sum().backward()
    rec("gx_fq", x.grad)
    rec("gs", s.grad)
    # half-way points round to even; their gradient through the STE is one
    h = lib.tensor([-2.5, -1.5, -0.5, 0.5, 1.5, 2.5], dtype=dt, requires_grad=True)
    r = h + (h.round() - h).detach()
    rec("even", r)
    r.sum().backward()
    rec("g_even", h.grad)
    rec("decimals", lib.tensor([1.2345, -0.0051, 2.675], dtype=dt).round(decimals=2))


def p_ste_sign(lib, dt, rec):
    _, _, SignSTE = _functions(lib)
    x = lib.tensor([-2.0, -1.0, -0.5, 0.0, 0.5, 1.0, 2.0], dtype=dt, requires_grad=True)
    y = SignSTE.apply(x)
    rec("y", y)
    y.backward(lib.arange(1, 8, dtype=dt))
    rec("gx", x.grad)
    # the same STE written with detach and hardtanh, as binarized nets do
    x2 = x.detach().clone().requires_grad_(True)
    ht = lib.nn.functional.hardtanh(x2)
    b = ht + (x2.sign() - ht).detach()
    rec("b", b)
    b.backward(lib.arange(1, 8, dtype=dt))
    rec("gx2", x2.grad)
    # a binarized linear layer step
    lin = lib.nn.Linear(5, 3, dtype=dt)
    with lib.no_grad():
        lin.weight.copy_(_randn(lib, dt, 17, 3, 5) * 0.7)
        lin.bias.zero_()
    inp = _randn(lib, dt, 18, 4, 5)
    out = lib.nn.functional.linear(inp, SignSTE.apply(lin.weight), lin.bias)
    rec("bin_out", out)
    out.pow(2).mean().backward()
    rec("bin_gw", lin.weight.grad)
    rec("bin_gb", lin.bias.grad)


def p_ste_onehot(lib, dt, rec):
    F = lib.nn.functional
    logits = _randn(lib, dt, 19, 5, 4).requires_grad_(True)
    p = F.softmax(logits, -1)
    idx = p.argmax(-1)
    onehot = F.one_hot(idx, 4).to(dt)
    y = onehot + p - p.detach()
    rec("y", y)
    rec("onehot_dtype", str(F.one_hot(idx, 4).dtype))
    codebook = _randn(lib, dt, 20, 4, 3)
    z = y @ codebook
    rec("z", z)
    z.pow(2).sum().backward()
    rec("g", logits.grad)
    # VQ-VAE style: straight-through on the quantized vector
    ze = _randn(lib, dt, 21, 6, 3).requires_grad_(True)
    d = (ze.unsqueeze(1) - codebook.unsqueeze(0)).pow(2).sum(-1)
    k = d.argmin(-1)
    zq = codebook[k]
    zst = ze + (zq - ze).detach()
    rec("k", k)
    rec("zst", zst)
    (zst * lib.linspace(-1, 1, 3, dtype=dt)).sum().backward()
    rec("gze", ze.grad)


def p_topk_mask(lib, dt, rec):
    F = lib.nn.functional
    x = (_randn(lib, dt, 22, 3, 8) * 2).requires_grad_(True)
    vals, idx = x.topk(3, dim=-1)
    rec("vals", vals)
    rec("idx", idx)
    mask = lib.full_like(x, float("-inf")).scatter(-1, idx, vals)
    p = F.softmax(mask, -1)
    rec("p", p)
    (p * _randn(lib, dt, 23, 3, 8)).sum().backward()
    rec("gx", x.grad)
    # top-k by a boolean mask from the k-th value
    x.grad = None
    kth = x.topk(2, dim=-1).values[..., -1:]
    masked = x.masked_fill(x < kth, float("-inf"))
    q = F.softmax(masked, -1)
    rec("q", q)
    q[:, 0].sum().backward()
    rec("gx2", x.grad)
    # smallest, unsorted, along dim 0
    v2, i2 = x.detach().topk(2, dim=0, largest=False)
    rec("small", v2)
    rec("small_i", i2)
    v3, i3 = lib.topk(x.detach(), 4, sorted=True)
    rec("sorted", v3)
    # top-k sparsified activations (k-sparse autoencoder): scatter into zeros
    h = (_randn(lib, dt, 24, 4, 6)).requires_grad_(True)
    tv, ti = h.topk(2, -1)
    sparse = lib.zeros_like(h).scatter(-1, ti, F.relu(tv))
    rec("ksparse", sparse)
    (sparse * lib.arange(6, dtype=dt)).sum().backward()
    rec("gh", h.grad)
    rec.err("k_big", lambda: x.topk(9, dim=-1))
    rec.err("k_neg", lambda: x.topk(-1))


def _lsm_grad(lib, x, dim):
    """The float64 gradient of sum(log_softmax(x, dim) * arange) for x."""
    x = x.double().requires_grad_(True)
    ly = lib.nn.functional.log_softmax(x, dim=dim)
    n = x.shape[dim]
    (g,) = lib.autograd.grad((ly * lib.arange(n, dtype=lib.float64)).sum(), x)
    return g.to(x.dtype)


def p_softmax_dtype(lib, dt, rec):
    F = lib.nn.functional
    x = _randn(lib, dt, 25, 3, 5).requires_grad_(True)
    for other in ("float64", "float32"):
        o = getattr(lib, other)
        # a float32 result of float64 logits is an ulp from torch's (its vectorized exp): the
        # record is its float64 distance to the float64 result, and its dtype
        ref = F.softmax(x.detach(), dim=-1, dtype=lib.float64)
        y = F.softmax(x, dim=-1, dtype=o)
        rec(f"sm.{other}", str(y.dtype))
        rec(f"sm.{other}.ok", bool((y.double() - ref).abs().max() < 1e-6))
        ly = F.log_softmax(x, dim=1, dtype=o)
        lref = F.log_softmax(x.detach(), dim=1, dtype=lib.float64)
        rec(f"lsm.{other}.ok", bool((ly.double() - lref).abs().max() < 1e-5))
        (g,) = lib.autograd.grad((ly * lib.arange(5, dtype=o)).sum(), x)
        rec(f"glsm.{other}.ok", bool((g - _lsm_grad(lib, x.detach(), 1)).abs().max() < 1e-4))
        rec(f"glsm.{other}.dtype", str(g.dtype))
        tsm = lib.softmax(x, 0, dtype=o).double() - lib.softmax(x, 0, dtype=lib.float64)
        rec(f"tsm.{other}.ok", bool(tsm.abs().max() < 1e-6))
        rec(f"meth.{other}.ok", bool((x.softmax(-1, dtype=o).double() - ref).abs().max() < 1e-6))
        rec(f"lmeth.{other}", str(x.log_softmax(dim=-1, dtype=o).dtype))
    # temperatures
    for t in (0.05, 1.0, 20.0):
        rec(f"temp{t}", F.softmax(x / t, -1))
    # integer input with a float dtype
    ints = lib.tensor([[1, 2, 3], [0, 0, 5]])
    rec("int_dtype", F.softmax(ints, -1, dtype=dt))
    rec("int_log", F.log_softmax(ints, 1, dtype=dt))
    rec.err("int_nodtype", lambda: F.softmax(ints, -1))
    rec.err("int_log_nodtype", lambda: F.log_softmax(ints, -1))
    # big logits, -inf entries, all -inf rows
    big = lib.tensor([[1000.0, 0.0, -1000.0], [float("-inf"), 1.0, float("-inf")]], dtype=dt)
    rec("big", F.softmax(big, -1))
    rec("big_log", F.log_softmax(big, -1))
    allinf = lib.full((2, 3), float("-inf"), dtype=dt)
    rec("allinf", F.softmax(allinf, -1))
    rec("nn_softmax", lib.nn.Softmax(dim=0)(x.detach()))
    rec("nn_logsoftmax", lib.nn.LogSoftmax(dim=1)(x.detach()))
    rec("nn_softmax2d", lib.nn.Softmax2d()(_randn(lib, dt, 26, 2, 3, 2, 2)))
    rec("empty", F.softmax(lib.zeros(0, 3, dtype=dt), -1))


def p_softmin_temp(lib, dt, rec):
    F = lib.nn.functional
    x = _randn(lib, dt, 27, 4, 3).requires_grad_(True)
    y = F.softmin(x, dim=1)
    rec("softmin", y)
    rec("same", lib.allclose(y, F.softmax(-x, 1)))
    (y * lib.arange(3, dtype=dt)).sum().backward()
    rec("g", x.grad)
    rec("softmin0", F.softmin(x.detach(), 0))
    other = lib.float64 if dt == lib.float32 else lib.float32
    rec("softmin_dtype", F.softmin(x.detach(), -1, dtype=other))
    rec("module", lib.nn.Softmin(dim=-1)(x.detach()))
    rec("repr", repr(lib.nn.Softmin(dim=-1)))
    rec("repr_sm", repr(lib.nn.Softmax(dim=1)))
    rec("repr_lsm", repr(lib.nn.LogSoftmax(dim=None)))
    # a learnable temperature
    logt = lib.tensor(0.3, dtype=dt, requires_grad=True)
    p = F.softmax(x.detach() / logt.exp(), -1)
    ent = -(p * p.log()).sum(-1).mean()
    ent.backward()
    rec("ent", ent)
    rec("glogt", logt.grad)


def p_kinks_hard(lib, dt, rec):
    F = lib.nn.functional
    pts = [-4.0, -3.0, -1.0, -0.5, 0.0, 0.5, 1.0, 3.0, 4.0, 6.0, 7.0]
    fns = {
        "relu": F.relu,
        "relu6": F.relu6,
        "hardtanh": F.hardtanh,
        "hardtanh_m": lambda t: F.hardtanh(t, -0.5, 3.0),
        "hardsigmoid": F.hardsigmoid,
        "hardswish": F.hardswish,
        "leaky": lambda t: F.leaky_relu(t, 0.1),
        "elu": F.elu,
        "celu": lambda t: F.celu(t, 2.0),
        "selu": F.selu,
        "threshold": lambda t: F.threshold(t, 1.0, -2.0),
        "relu6_mod": lib.nn.ReLU6(),
        "hardtanh_mod": lib.nn.Hardtanh(-1.0, 4.0),
        "prelu": lambda t: F.prelu(t, lib.tensor([0.25], dtype=dt)),
        "rrelu_eval": lambda t: F.rrelu(t, training=False),
        "clamp": lambda t: t.clamp(-1.0, 3.0),
        "abs": lib.abs,
    }
    for name, fn in fns.items():
        x = lib.tensor(pts, dtype=dt, requires_grad=True)
        y = fn(x)
        rec(name, y)
        y.backward(lib.linspace(1, 2, len(pts), dtype=dt))
        rec(name + ".g", x.grad)
    # in-place versions on a non-leaf keep the kink gradients
    for name in ("relu_", "relu6", "hardtanh_", "hardsigmoid", "hardswish"):
        x = lib.tensor(pts, dtype=dt, requires_grad=True)
        z = x * 1.0
        fn = getattr(F, name)
        y = fn(z, inplace=True) if not name.endswith("_") else fn(z)
        y.sum().backward()
        rec(name + ".inplace.g", x.grad)
    # double backward of hardswish (piecewise quadratic)
    x = lib.tensor(pts, dtype=dt, requires_grad=True)
    (g,) = lib.autograd.grad(F.hardswish(x).sum(), x, create_graph=True)
    (gg,) = lib.autograd.grad(g.sum(), x)
    rec("hardswish.gg", gg)


def p_kinks_shrink(lib, dt, rec):
    F = lib.nn.functional
    pts = [-1.0, -0.5, -0.25, 0.0, 0.25, 0.5, 1.0]
    for name, fn in {
        "hardshrink": F.hardshrink,
        "hardshrink_l": lambda t: F.hardshrink(t, 0.25),
        "softshrink": F.softshrink,
        "softshrink_l": lambda t: F.softshrink(t, lambd=0.25),
        "tanhshrink": F.tanhshrink,
        "mod_hard": lib.nn.Hardshrink(0.5),
        "mod_soft": lib.nn.Softshrink(0.25),
    }.items():
        x = lib.tensor(pts, dtype=dt, requires_grad=True)
        y = fn(x)
        rec(name, y)
        y.backward(lib.arange(1, 8, dtype=dt))
        rec(name + ".g", x.grad)
    rec.err("softshrink_neg", lambda: F.softshrink(lib.tensor(pts, dtype=dt), -0.5))
    rec("reprs", repr(lib.nn.Hardshrink(0.3)) + repr(lib.nn.Softshrink()))


def p_sign_sgn(lib, dt, rec):
    x = lib.tensor([-2.0, -0.0, 0.0, 1.5, float("inf"), float("-inf")], dtype=dt,
                   requires_grad=True)  # fmt: skip
    for name in ("sign", "sgn"):
        y = getattr(lib, name)(x)
        rec(name, y)
        (g,) = lib.autograd.grad(y.sum(), x)
        rec(name + ".g", g.clone())  # torch's sgn gives a ZeroTensor, which has no numpy()
        rec(name + ".grad_fn", type(y.grad_fn).__name__)
    rec("signbit", lib.signbit(x.detach()))
    rec("copysign", lib.copysign(lib.ones(6, dtype=dt), x.detach()))
    rec("nan_sign", lib.sign(lib.tensor([float("nan")], dtype=dt)))
    rec("int_sign", lib.sign(lib.tensor([-3, 0, 4])))
    rec("bool_sign", lib.sign(lib.tensor([True, False])))
    # sign inside a loss (the gradient is zero, the loss still moves through x)
    w = lib.tensor([0.3, -0.2, 0.0], dtype=dt, requires_grad=True)
    loss = (w.sign() * w).sum() + w.abs().sum()
    loss.backward()
    rec("l1g", w.grad)


def p_rounding_grads(lib, dt, rec):
    x0 = lib.tensor([-2.5, -1.5, -0.7, -0.0, 0.2, 0.5, 1.5, 2.49], dtype=dt)
    for name in ("round", "floor", "ceil", "trunc", "frac", "fix"):
        x = x0.clone().requires_grad_(True)
        y = getattr(lib, name)(x)
        rec(name, y)
        y.backward(lib.arange(1, 9, dtype=dt))
        rec(name + ".g", x.grad)
        rec(name + ".grad_fn", type(y.grad_fn).__name__)
    x = x0.clone().requires_grad_(True)
    y = lib.round(x, decimals=1)
    rec("round1", y)
    y.sum().backward()
    rec("round1.g", x.grad)
    # double backward of a rounding op
    x = x0.clone().requires_grad_(True)
    (g,) = lib.autograd.grad((lib.floor(x) * x).sum(), x, create_graph=True)
    rec("floor_x.g", g)
    (gg,) = lib.autograd.grad(g.sum(), x)
    rec("floor_x.gg", gg)
    rec("int_round", lib.round(lib.tensor([3, -2])))
    rec.err("int_round_dec", lambda: lib.round(lib.tensor([3, -2]), decimals=1))
    rec("remainder", lib.remainder(x0, 1.0))
    xr = x0.clone().requires_grad_(True)
    lib.remainder(xr, 0.75).sum().backward()
    rec("remainder.g", xr.grad)
    xf = x0.clone().requires_grad_(True)
    lib.fmod(xf, 0.75).sum().backward()
    rec("fmod.g", xf.grad)


def p_clamp_ties(lib, dt, rec):
    x0 = lib.tensor([-2.0, -1.0, -0.5, 0.0, 0.5, 1.0, 2.0], dtype=dt)
    up = lib.arange(1, 8, dtype=dt)
    cases = {
        "both": lambda t: t.clamp(-1.0, 1.0),
        "min": lambda t: t.clamp(min=-0.5),
        "max": lambda t: t.clamp(max=0.5),
        "clamp_min": lambda t: t.clamp_min(0.0),
        "clamp_max": lambda t: t.clamp_max(0.0),
        "clip": lambda t: lib.clip(t, -1.0, 1.0),
        "inverted": lambda t: t.clamp(1.0, -1.0),
        "equal": lambda t: t.clamp(0.5, 0.5),
        "int_bounds": lambda t: t.clamp(-1, 1),
    }
    for name, fn in cases.items():
        x = x0.clone().requires_grad_(True)
        y = fn(x)
        rec(name, y)
        y.backward(up)
        rec(name + ".g", x.grad)
    x = x0.clone().requires_grad_(True)
    z = x * 1.0
    z.clamp_(-1.0, 1.0)
    z.backward(up)
    rec("inplace.g", x.grad)
    # NaN passes through clamp; its gradient
    xn = lib.tensor([float("nan"), 0.5, 3.0], dtype=dt, requires_grad=True)
    yn = xn.clamp(0.0, 1.0)
    rec("nan", yn)
    yn.sum().backward()
    rec("nan.g", xn.grad)
    rec.err("none", lambda: x0.clamp())
    rec("int_tensor", lib.tensor([-3, 0, 5]).clamp(-1, 2))
    rec("int_float_bounds", lib.tensor([-3, 0, 5]).clamp(-1.5, 2.5))


def p_clamp_tensor_bounds(lib, dt, rec):
    x = lib.tensor([-2.0, -1.0, 0.0, 1.0, 2.0, 0.5], dtype=dt, requires_grad=True)
    lo = lib.tensor([-1.0, -1.0, 0.0, 0.0, 2.5, 0.5], dtype=dt, requires_grad=True)
    hi = lib.tensor([1.0, 1.0, 0.0, 1.0, 3.0, 0.5], dtype=dt, requires_grad=True)
    y = lib.clamp(x, lo, hi)
    rec("y", y)
    y.backward(lib.arange(1, 7, dtype=dt))
    rec("gx", x.grad)
    rec("glo", lo.grad)
    rec("ghi", hi.grad)
    for t in (x, lo, hi):
        t.grad = None
    y = lib.clamp(x, min=lo)
    y.backward(lib.arange(1, 7, dtype=dt))
    rec("min.gx", x.grad)
    rec("min.glo", lo.grad)
    for t in (x, lo, hi):
        t.grad = None
    y = x.clamp(max=hi)
    y.backward(lib.arange(1, 7, dtype=dt))
    rec("max.gx", x.grad)
    rec("max.ghi", hi.grad)
    for t in (x, lo, hi):
        t.grad = None
    # broadcast bounds, per-channel
    xb = _randn(lib, dt, 28, 3, 4).requires_grad_(True)
    lob = lib.tensor([[-0.5], [0.0], [-2.0]], dtype=dt, requires_grad=True)
    yb = lib.clamp(xb, min=lob, max=lib.tensor([1.0], dtype=dt))
    rec("yb", yb)
    yb.sum().backward()
    rec("gxb", xb.grad)
    rec("glob", lob.grad)
    # clamp_min/clamp_max by tensors, and torch.maximum as a clamp
    xm = lib.tensor([0.0, 1.0, 2.0], dtype=dt, requires_grad=True)
    b = lib.tensor([1.0, 1.0, 1.0], dtype=dt, requires_grad=True)
    ym = lib.clamp_min(xm, b)
    ym.backward(lib.tensor([1.0, 2.0, 4.0], dtype=dt))
    rec("cmin.gx", xm.grad)
    rec("cmin.gb", b.grad)
    xm.grad = None
    b.grad = None
    lib.clamp_max(xm, b).backward(lib.tensor([1.0, 2.0, 4.0], dtype=dt))
    rec("cmax.gx", xm.grad)
    rec("cmax.gb", b.grad)


def p_max_ties(lib, dt, rec):
    a0 = lib.tensor([[1.0, 3.0, 3.0], [2.0, 2.0, 2.0], [0.0, -1.0, 5.0]], dtype=dt)
    b0 = lib.tensor([[1.0, 4.0, 3.0], [2.0, 1.0, 2.0], [0.0, -1.0, 6.0]], dtype=dt)
    up = lib.arange(1, 10, dtype=dt).view(3, 3)
    for name in ("maximum", "minimum", "fmax", "fmin", "max", "min"):
        a = a0.clone().requires_grad_(True)
        b = b0.clone().requires_grad_(True)
        y = getattr(lib, name)(a, b)
        rec(name, y)
        y.backward(up)
        rec(name + ".ga", a.grad)
        rec(name + ".gb", b.grad)
    # full reductions split ties evenly; dim reductions pick the returned index
    for name in ("max", "min", "amax", "amin"):
        a = a0.clone().requires_grad_(True)
        getattr(lib, name)(a).backward()
        rec(name + ".full.g", a.grad)
    for name in ("amax", "amin"):
        a = a0.clone().requires_grad_(True)
        y = getattr(lib, name)(a, dim=1)
        y.backward(lib.tensor([1.0, 2.0, 3.0], dtype=dt))
        rec(name + ".dim.g", a.grad)
    a = a0.clone().requires_grad_(True)
    v, i = a.max(dim=1)
    rec("max.idx", i)
    v.backward(lib.tensor([1.0, 2.0, 3.0], dtype=dt))
    rec("max.dim.g", a.grad)
    a = a0.clone().requires_grad_(True)
    lib.logsumexp(a, 1).sum().backward()
    rec("lse.g", a.grad)
    # maximum with a broadcast scalar tensor, ties with it
    a = a0.clone().requires_grad_(True)
    c = lib.tensor(2.0, dtype=dt, requires_grad=True)
    lib.maximum(a, c).sum().backward()
    rec("bcast.ga", a.grad)
    rec("bcast.gc", c.grad)
    # norm-inf ties
    a = a0.clone().requires_grad_(True)
    lib.linalg.vector_norm(a, float("inf")).backward()
    rec("norminf.g", a.grad)
    # NaN propagation in maximum vs fmax
    n = lib.tensor([float("nan"), 1.0], dtype=dt)
    rec("nan_max", lib.maximum(n, lib.tensor([0.0, float("nan")], dtype=dt)))
    rec("nan_fmax", lib.fmax(n, lib.tensor([0.0, float("nan")], dtype=dt)))


def p_where_ties(lib, dt, rec):
    x = lib.tensor([-1.0, 0.0, 1.0, 2.0], dtype=dt, requires_grad=True)
    y = lib.tensor([0.0, 0.0, 3.0, 2.0], dtype=dt, requires_grad=True)
    up = lib.tensor([1.0, 2.0, 4.0, 8.0], dtype=dt)
    out = lib.where(x >= y, x, y)
    out.backward(up)
    rec("ge.gx", x.grad)
    rec("ge.gy", y.grad)
    x.grad = None
    y.grad = None
    out = lib.where(x > 0, x, lib.zeros_like(x))
    out.backward(up)
    rec("relu_where.g", x.grad)
    x.grad = None
    # where with a scalar branch and a NaN-safe where (the double-where trick)
    safe = lib.where(x > 0, x, lib.ones_like(x))
    out = lib.where(x > 0, lib.log(safe), lib.zeros_like(x))
    out.backward(up)
    rec("safe_log.g", x.grad)
    x.grad = None
    out = lib.where(x > 0, lib.log(x), lib.tensor(0.0, dtype=dt))
    out.backward(up)
    rec("unsafe_log.g", x.grad)
    x.grad = None
    out = lib.where(x < 1, 0.5, x)
    rec("scalar", out)
    out.backward(up)
    rec("scalar.g", x.grad)
    # smooth maximum vs hard maximum at ties
    a = lib.tensor([1.0, 2.0], dtype=dt, requires_grad=True)
    b = lib.tensor([1.0, 1.0], dtype=dt, requires_grad=True)
    m = lib.maximum(a, b) + lib.minimum(a, b)
    m.backward(lib.tensor([1.0, 1.0], dtype=dt))
    rec("maxmin.ga", a.grad)
    rec("maxmin.gb", b.grad)
    # relu as maximum with zero: gradient 0.5 at zero, relu's is 0
    z = lib.tensor([-1.0, 0.0, 1.0], dtype=dt, requires_grad=True)
    lib.maximum(z, lib.zeros_like(z)).sum().backward()
    rec("max0.g", z.grad)
    z.grad = None
    lib.relu(z).sum().backward()
    rec("relu.g", z.grad)
    z.grad = None
    z.clamp(min=0).sum().backward()
    rec("clampmin0.g", z.grad)


def p_softmax_errors(lib, dt, rec):
    F = lib.nn.functional
    x = _randn(lib, dt, 29, 2, 3)
    rec.err("dim3", lambda: F.softmax(x, 3))
    rec.err("dim_neg", lambda: F.log_softmax(x, -3))
    rec.err("dim_float", lambda: F.softmax(x, 1.0))
    rec.err("dtype_int", lambda: F.softmax(x, -1, dtype=lib.int64))
    rec.err("softmin_dim", lambda: F.softmin(x, 5))
    rec.err("topk_dim", lambda: x.topk(1, dim=2))
    rec.err("sort_dim", lambda: lib.sort(x, dim=4, descending=True))
    rec.err("gather_dim", lambda: x.gather(1, lib.tensor([[0, 3]])))
    rec.err("gather_dtype", lambda: x.gather(1, lib.tensor([[0.0]])))
    rec.err("scatter_shape", lambda: lib.zeros(2, 3).scatter(1, lib.tensor([[0, 1, 2, 0]]), 1.0))
    rec.err("cumsum_dim", lambda: x.cumsum(2))
    rec.err("gumbel_tau_str", lambda: F.gumbel_softmax(x, tau="a"))
    rec.warns("implicit_dim", lambda: F.softmax(x))
    rec.warns("implicit_dim_log", lambda: F.log_softmax(x))
    rec.warns("implicit_min", lambda: F.softmin(x))
    rec("implicit_vals", F.softmax(x))
    rec("implicit_3d", F.softmax(_randn(lib, dt, 30, 2, 2, 3)))


def p_activation_errors(lib, dt, rec):
    F = lib.nn.functional
    ints = lib.tensor([-3, 0, 2, 7])
    for name in ("relu", "relu6", "hardtanh", "hardsigmoid", "hardswish", "elu", "leaky_relu",
                 "hardshrink", "softshrink", "threshold"):  # fmt: skip
        fn = getattr(F, name)
        if name == "threshold":
            rec.err(name, lambda fn=fn: fn(ints, 1, 0))
        else:
            rec.err(name, lambda fn=fn: fn(ints))
    rec.err("hardtanh_bounds", lambda: F.hardtanh(lib.zeros(2, dtype=dt), 1.0, -1.0))
    rec.err("clamp_bool", lambda: lib.tensor([True, False]).clamp(0, 1))
    rec.err("round_bool", lambda: lib.tensor([True]).round())
    rec.err("floor_int", lambda: lib.floor(ints))
    rec.err("relu6_list", lambda: F.relu6([1.0]))
    rec.err("relu6_module_list", lambda: lib.nn.ReLU6()([1.0]))
    rec.err("relu_int_inplace", lambda: F.relu(ints.clone(), inplace=True))
    x = lib.tensor([1.0, -1.0], dtype=dt, requires_grad=True)
    rec.err("leaf_inplace", lambda: F.relu6(x, inplace=True))
    rec.err("leaf_hardtanh_", lambda: F.hardtanh_(x))


def p_sparsemax_loss(lib, dt, rec):
    """The sparsemax loss (Martins & Astudillo 2016) against targets, and a few SGD steps of a
    linear classifier with a sparsemax output."""
    Sparsemax, Entmax15, _ = _functions(lib)
    x = _randn(lib, dt, 31, 6, 4)
    target = lib.tensor([0, 3, 1, 1, 2, 0])
    lin = lib.nn.Linear(4, 5, dtype=dt)
    with lib.no_grad():
        lin.weight.copy_(_randn(lib, dt, 32, 5, 4) * 0.5)
        lin.bias.copy_(_randn(lib, dt, 33, 5) * 0.1)
    opt = lib.optim.SGD(lin.parameters(), lr=0.5, momentum=0.9)
    losses = []
    for _step in range(5):
        z = lin(x)
        p = Sparsemax.apply(z, -1)
        tau = z.gather(1, target.unsqueeze(1)).squeeze(1)
        # sparsemax loss: -z_y + 0.5 * sum_j (z_j^2 - tau_j^2)_{j in S} + 0.5
        zs = z - z.max(-1, keepdim=True).values
        thr, _ = _sparsemax_tau(lib, zs.detach(), -1)
        thr = thr + z.max(-1, keepdim=True).values.detach()
        supp = (p > 0).to(dt)
        loss = (-tau + 0.5 * ((z**2 - thr**2) * supp).sum(-1) + 0.5).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
        losses.append(loss.detach())
    rec("losses", lib.stack(losses))
    rec("w", lin.weight)
    rec("b", lin.bias)
    # entmax as an attention over keys
    q = _randn(lib, dt, 34, 2, 3, 4)
    k = _randn(lib, dt, 35, 2, 5, 4)
    v = _randn(lib, dt, 36, 2, 5, 4)
    scores = q @ k.transpose(-1, -2) / 2.0
    att = Entmax15.apply(scores, -1)
    rec("att", att)
    rec("att_out", att @ v)
    rec("att_nnz", (att > 0).sum(-1))


def p_double_backward(lib, dt, rec):
    """Hessian-vector products through the piecewise-linear/quadratic activations and the
    composed sparsemax (zero second derivative within a piece)."""
    F = lib.nn.functional
    x = (_randn(lib, dt, 37, 8) * 3).requires_grad_(True)
    v = _randn(lib, dt, 38, 8)
    for name, fn in {
        "relu6": F.relu6,
        "hardswish": F.hardswish,
        "softshrink": F.softshrink,
        "clamp": lambda t: t.clamp(-1, 1) * t,
        "maximum": lambda t: lib.maximum(t, t.flip(0)) * t,
        "sparsemax": lambda t: _sparsemax(lib, t, 0) * t,
        "entmax": lambda t: _entmax15(lib, t, 0),
        "round_ste": lambda t: (t + (t.round() - t).detach()) ** 2,
    }.items():
        (g,) = lib.autograd.grad(fn(x).sum(), x, create_graph=True)
        rec(name + ".g", g)
        (hv,) = lib.autograd.grad((g * v).sum(), x, allow_unused=True)
        rec(name + ".hv", hv if hv is not None else "None")


def p_relaxed_dists(lib, dt, rec):
    """The Gumbel family in torch.distributions: relaxed categoricals and the straight-through
    one-hot categorical."""
    D = lib.distributions
    logits = _randn(lib, dt, 40, 3, 4).requires_grad_(True)
    temp = lib.tensor(0.6, dtype=dt)
    d = D.RelaxedOneHotCategorical(temp, logits=logits)
    lib.manual_seed(41)
    s = d.rsample((2,))
    rec("rsample", s)
    rec("log_prob", d.log_prob(s))
    (g,) = lib.autograd.grad(d.log_prob(s.detach()).sum() + (s * s).sum(), logits)
    rec("g", g)
    rec("batch", str((d.batch_shape, d.event_shape)))
    b = D.RelaxedBernoulli(temp, logits=logits[:, 0])
    lib.manual_seed(42)
    sb = b.rsample()
    rec("bern", sb)
    rec("bern_lp", b.log_prob(sb))
    st = D.OneHotCategoricalStraightThrough(logits=logits)
    lib.manual_seed(43)
    x = st.rsample()
    rec("st", x)
    (gs,) = lib.autograd.grad((x * lib.arange(4, dtype=dt)).sum(), logits)
    rec("st_g", gs)
    rec("st_lp", st.log_prob(x.detach()))
    rec("st_ent", st.entropy())
    rec.err("bad_temp", lambda: D.RelaxedOneHotCategorical(temp, probs=lib.tensor([0.5, 0.6])))


def p_sort_ties(lib, dt, rec):
    """Exact ties in the inputs (not computed): torch's CPU sort is stable, argmax/argmin take
    the first, max/min(dim) return the first index, kthvalue/median pick their own."""
    x0 = lib.tensor([[3.0, 1.0, 3.0, 2.0, 1.0, 3.0], [0.0, 0.0, -1.0, 0.0, 5.0, 5.0]], dtype=dt)
    for desc in (False, True):
        v, i = lib.sort(x0, dim=-1, descending=desc, stable=True)
        rec(f"sort{int(desc)}", v)
        rec(f"sorti{int(desc)}", i)
        rec(f"argsort{int(desc)}", lib.argsort(x0, dim=1, descending=desc, stable=True))
    rec("argmax", x0.argmax(-1))
    rec("argmin", x0.argmin(1))
    rec("argmax_flat", x0.argmax())
    rec("max_i", x0.max(1).indices)
    rec("min_i", x0.min(1).indices)
    x = x0.clone().requires_grad_(True)
    rec.err("sort_pos_stable", lambda: lib.sort(x, -1, descending=True, stable=True))
    v, i = lib.sort(x, dim=-1, descending=True, stable=True)
    v.backward(lib.arange(12, dtype=dt).view(2, 6))
    rec("sort.g", x.grad)
    x = x0.clone().requires_grad_(True)
    v, i = lib.cummax(x, 1)
    rec("cummax", v)
    rec("cummax_i", i)
    v.sum().backward()
    rec("cummax.g", x.grad)
    x = x0.clone().requires_grad_(True)
    v, i = lib.cummin(x, 1)
    rec("cummin_i", i)
    v.sum().backward()
    rec("cummin.g", x.grad)
    x = x0.clone().requires_grad_(True)
    lib.amax(x, 1).sum().backward()
    rec("amax.g", x.grad)
    # scatter_reduce amax/amin split the gradient between ties
    for reduce in ("amax", "amin"):
        for inc in (True, False):
            src = lib.tensor([1.0, 3.0, 3.0, 2.0, 2.0], dtype=dt, requires_grad=True)
            base = lib.tensor([3.0, 2.0], dtype=dt, requires_grad=True)
            idx = lib.tensor([0, 0, 0, 1, 1])
            out = base.scatter_reduce(0, idx, src, reduce=reduce, include_self=inc)
            rec(f"sr.{reduce}.{inc}", out)
            out.backward(lib.tensor([1.0, 10.0], dtype=dt))
            rec(f"sr.{reduce}.{inc}.gsrc", src.grad)
            rec(f"sr.{reduce}.{inc}.gbase", base.grad)


def p_masked_sparse(lib, dt, rec):
    """Sparsemax and entmax-1.5 over attention scores with masked (-inf) positions."""
    Sparsemax, Entmax15, _ = _functions(lib)
    s0 = _randn(lib, dt, 42, 3, 6) * 1.5
    mask = lib.tensor([[1, 1, 1, 1, 0, 0], [1, 0, 1, 0, 1, 1], [1, 1, 1, 1, 1, 1]]).bool()
    s = s0.masked_fill(~mask, float("-inf")).requires_grad_(True)
    y = Sparsemax.apply(s, -1)
    rec("y", y)
    w = _randn(lib, dt, 43, 3, 6)
    (y * w).sum().backward()
    rec("g", s.grad.masked_fill(~mask, 0.0))
    rec("g_masked", s.grad[~mask])
    s.grad = None
    y15 = Entmax15.apply(s, -1)
    rec("y15", y15)
    (y15 * w).sum().backward()
    rec("g15", s.grad.masked_fill(~mask, 0.0))
    # the composed sparsemax through masked_fill of a leaf
    s1 = s0.clone().requires_grad_(True)
    yc = _sparsemax(lib, s1.masked_fill(~mask, float("-inf")))
    rec("yc", yc)
    (yc * w).sum().backward()
    rec("gc", s1.grad)
    # softmax over the same mask, and a fully masked row (NaN) guarded with nan_to_num
    sm = lib.softmax(s0.masked_fill(~mask, float("-inf")), -1)
    rec("softmax", sm)
    full = s0.masked_fill(lib.ones_like(mask), float("-inf"))
    rec("allmasked", lib.softmax(full, -1))
    rec("guarded", lib.softmax(full, -1).nan_to_num(0.0))


def _p(lib, x, alpha):
    return lib.clamp(x, min=0) ** (1 / (alpha - 1))


def _entmax_bisect(lib, x, alpha, dim=-1, n_iter=50):
    """entmax-alpha by bisection on the threshold (the entmax package's forward)."""
    shape = list(x.shape)
    shape[dim] = 1
    alpha = alpha.expand(*shape)
    d = x.shape[dim]
    x = x * (alpha - 1)
    max_val, _ = x.max(dim=dim, keepdim=True)
    tau_lo = max_val - 1
    tau_hi = max_val - (1 / d) ** (alpha - 1)
    f_lo = _p(lib, x - tau_lo, alpha).sum(dim) - 1
    dm = tau_hi - tau_lo
    for _ in range(n_iter):
        dm = dm / 2
        tau_m = tau_lo + dm
        p_m = _p(lib, x - tau_m, alpha)
        f_m = p_m.sum(dim) - 1
        mask = (f_m * f_lo >= 0).unsqueeze(dim)
        tau_lo = lib.where(mask, tau_m, tau_lo)
    return p_m / p_m.sum(dim=dim, keepdim=True)


def p_entmax_bisect(lib, dt, rec):
    x = _randn(lib, dt, 44, 4, 5) * 2
    for a in (1.25, 1.5, 2.0, 3.0):
        alpha = lib.tensor(a, dtype=dt)
        y = _entmax_bisect(lib, x, alpha)
        rec(f"y{a}", y)
        rec(f"sum{a}", y.sum(-1))
    # alpha 1.5 and 2 agree with the exact sort-based entmax-1.5 and sparsemax
    rec("vs15", _entmax15(lib, x))
    rec("vs2", _sparsemax(lib, x))
    # gradient through the last bisection step (the package's backward is the closed form)
    xg = x.clone().requires_grad_(True)
    y = _entmax_bisect(lib, xg, lib.tensor(1.5, dtype=dt), n_iter=40)
    (y * _randn(lib, dt, 45, 4, 5)).sum().backward()
    rec("g_has_nan", bool(xg.grad.isnan().any()))


def p_gumbel_train(lib, dt, rec):
    """A categorical bottleneck trained through F.gumbel_softmax(hard=True) with a decaying
    temperature: the noise draws from the default generator (seeded), the model's init too."""
    F = lib.nn.functional
    lib.manual_seed(46)
    enc = lib.nn.Linear(5, 4, dtype=dt)
    dec = lib.nn.Linear(4, 5, dtype=dt)
    params = list(enc.parameters()) + list(dec.parameters())
    opt = lib.optim.Adam(params, lr=0.05)
    x = _randn(lib, dt, 47, 8, 5)
    tau = 1.5
    for step in range(4):
        logits = enc(x)
        z = F.gumbel_softmax(logits, tau=tau, hard=step % 2 == 1)
        recon = dec(z)
        loss = F.mse_loss(recon, x)
        kl = (F.softmax(logits, -1) * F.log_softmax(logits, -1)).sum(-1).mean()
        total = loss + 0.1 * kl
        opt.zero_grad()
        total.backward()
        rec(f"z{step}", z)
        rec(f"loss{step}", total)
        rec(f"g{step}", enc.weight.grad)
        opt.step()
        tau = max(0.5, tau * 0.7)
    rec.params("enc", enc)


def p_kink_modules(lib, dt, rec):
    """The piecewise-linear activations as modules in a network (inplace where allowed), at
    inputs placed on their kinks, with reprs and the nodes they record."""
    nn = lib.nn
    mods = [
        nn.ReLU6(inplace=True), nn.Hardtanh(-2.0, 2.0), nn.Hardsigmoid(), nn.Hardswish(),
        nn.Threshold(0.5, -1.0), nn.Hardshrink(0.5), nn.Softshrink(0.5), nn.LeakyReLU(0.1, True),
        nn.ReLU(inplace=True), nn.Softsign(), nn.Tanhshrink(),
    ]  # fmt: skip
    x0 = lib.tensor([[-3.0, -2.0, -0.5, 0.0, 0.5, 2.0, 3.0, 6.0]], dtype=dt)
    for m in mods:
        name = type(m).__name__
        rec(name + ".repr", repr(m))
        lin = nn.Linear(8, 8, bias=False, dtype=dt)
        with lib.no_grad():
            lin.weight.copy_(lib.eye(8, dtype=dt))
        x = x0.clone().requires_grad_(True)
        y = m(lin(x))
        rec(name, y)
        rec(name + ".fn", type(y.grad_fn).__name__)
        y.backward(lib.arange(1, 9, dtype=dt).view(1, 8))
        rec(name + ".gx", x.grad)
        rec(name + ".gw", lin.weight.grad)
    seq = nn.Sequential(nn.Linear(8, 4, dtype=dt), nn.ReLU6(), nn.Linear(4, 2, dtype=dt))
    rec("seq", repr(seq))


def p_clamp_bf16(lib, dt, rec):
    """bfloat16 clamps with number bounds: one node over the bfloat16 input, as torch's."""
    x = lib.tensor([-1.5, 0.0, 0.1, 0.3, 2.0, -0.7, 1.0], dtype=lib.bfloat16, requires_grad=True)
    for name, fn in {
        "both": lambda t: t.clamp(-1.0, 1.0),
        "min": lambda t: t.clamp(min=0.1),
        "max": lambda t: lib.clip(t, max=-0.7),
        "clamp_min": lambda t: t.clamp_min(0.1),
        "clamp_max": lambda t: lib.clamp_max(t, 0.3),
        "relu6": lambda t: lib.nn.functional.relu6(t * 4),
    }.items():
        y = fn(x)
        rec(name, y)
        node = y.grad_fn
        rec(name + ".fn", type(node).__name__)
        rec(name + ".saved_dtype", str(node._saved_self.dtype))
        rec(name + ".next", type(node.next_functions[0][0]).__name__)
        (g,) = lib.autograd.grad(y.sum(), x)
        rec(name + ".g", g.to(dt))


def p_saved_attrs(lib, dt, rec):
    """What graph drawers (torchviz's make_dot(show_saved=True)) read off the nodes of these
    activations: the _saved_* names dir() lists, and their values."""
    F = lib.nn.functional
    x = lib.tensor([-3.5, -1.5, 0.3, 2.0, 3.0], dtype=dt, requires_grad=True)
    for name, fn in {
        "hardsigmoid": F.hardsigmoid,
        "hardsigmoid_": lambda t: F.hardsigmoid(t, inplace=True),
        "hardswish": F.hardswish,
        "hardswish_": lambda t: F.hardswish(t, inplace=True),
        "threshold": lambda t: F.threshold(t, 0.5, -1.0),
        "threshold_int": lambda t: F.threshold(t, 1, 2),
        "threshold_": lambda t: F.threshold_(t, 0.25, 0.0),
        "Threshold": lib.nn.Threshold(0.1, 20.0),
        "hardtanh": lambda t: F.hardtanh(t, -2.0, 2.5),
        "relu6": F.relu6,
        "clamp": lambda t: t.clamp(-1.0, 1.0),
        "clamp_min": lambda t: t.clamp_min(0.0),
        "softshrink": lambda t: F.softshrink(t, 0.3),
        "hardshrink": F.hardshrink,
        "leaky": lambda t: F.leaky_relu(t, 0.1),
        "sort": lambda t: t.sort(descending=True)[0],
        "topk": lambda t: t.topk(2)[0],
        "gather": lambda t: t.gather(0, lib.tensor([4, 0, 2])),
        "softmax": lambda t: F.softmax(t, 0),
        "log_softmax": lambda t: F.log_softmax(t, 0),
    }.items():
        z = x * 1.0
        y = fn(z)
        node = y.grad_fn
        names = [k for k in dir(node) if k.startswith("_saved_")]
        rec(name + ".fn", type(node).__name__)
        rec(name + ".names", str(names))
        for k in names:
            v = getattr(node, k)
            if hasattr(v, "shape"):
                rec(f"{name}.{k}", v)
                rec(f"{name}.{k}.is_input", v is z)
            else:
                rec(f"{name}.{k}", repr(v))
        if name.startswith(("hard", "threshold", "Threshold")):
            rec(name + ".raw", type(getattr(node, "_raw_saved_self", None)).__name__)


def p_ste_variants(lib, dt, rec):
    """The other ways users write straight-through estimators: `.data` assignment, an in-place
    rounding under no_grad, register_hook on the quantized tensor, and a clipped STE
    (x.clamp(-1, 1) forward, the identity's gradient inside the clip range only)."""
    x0 = _randn(lib, dt, 48, 6) * 2
    up = lib.arange(1, 7, dtype=dt)
    x = x0.clone().requires_grad_(True)
    y = x * 1.0
    y.data = y.data.round()
    rec("data", y)
    y.backward(up)
    rec("data.g", x.grad)
    x = x0.clone().requires_grad_(True)
    y = x * 1.0
    with lib.no_grad():
        y.copy_(y.round())
    rec("nograd", y)
    rec("nograd.version", y._version)
    y.backward(up)
    rec("nograd.g", x.grad)
    x = x0.clone().requires_grad_(True)
    y = x.round()
    seen = []
    x.register_hook(lambda g: seen.append(g.clone()) or g + 1.0)
    y.backward(up)
    rec("hooked", seen[0])
    rec("hooked.g", x.grad)
    x = x0.clone().requires_grad_(True)
    clipped = x.clamp(-1.0, 1.0)
    q = clipped + (lib.sign(clipped) - clipped).detach()
    rec("clipped", q)
    q.backward(up)
    rec("clipped.g", x.grad)
    # a learned step size (LSQ) with its gradient scale
    x = x0.clone().requires_grad_(True)
    s = lib.tensor([0.5], dtype=dt, requires_grad=True)
    g = 1.0 / (x.numel() * 7) ** 0.5
    s_scaled = (s - s * g).detach() + s * g
    v = (x / s_scaled).clamp(-8, 7)
    vq = (v.round() - v).detach() + v
    out = vq * s_scaled
    rec("lsq", out)
    out.backward(up)
    rec("lsq.gx", x.grad)
    rec("lsq.gs", s.grad)
