"""Session 34 (helper ibp): neural-network verification and certified-robustness programs
written the way such code is written in torch, run under torch and minitorch with the same seeds
and compared record by record: interval bound propagation through Linear/Conv2d/ReLU/Flatten in
the clamp(min=0)/clamp(max=0) split and the centre/radius form with abs weights (MLPs, CNNs,
residual blocks with circular padding, eval-mode BatchNorm folding, pooling, bound modules with
buffers and state_dict, an operator-overloading Interval class, input splitting); CROWN's
backward linear relaxation with slopes u/(u-l) by where/clamp, alpha-CROWN's slopes optimised by
Adam and clamp_ into [0, 1], CROWN-IBP, the Wong-Kolter dual, a DeepPoly-style unrolled
convolution and its conv_transpose2d adjoint; certified training mixing natural and worst-case
logits with eps/kappa schedules, LambdaLR, clip_grad_norm_ and verified accuracy over a
DataLoader; attacks (L-inf PGD with a seeded random start, FGSM, L2 PGD with renorm, APGD's DLR
and CW losses, BPDA through a straight-through Function and EOT); Lipschitz bounds (power
iteration against matrix_norm(ord=2)/svdvals, a convolution's norm via its adjoint, the
spectral_norm hook and parametrization, orthogonal parametrizations, GroupSort, Bjorck, a custom
spectral parametrization, GloRo margins, gradient-norm regularisation, Jacobians by
autograd.functional and func); the errors users hit (input gradients without requires_grad,
clamp with min > max and without bounds, conv weight/channel/dtype mismatches, shape errors of
the bound matmuls, Adam on non-leaves); and the _saved_* attributes of the recorded graph.
float64 must agree to 1e-10 of each record's scale, float32 to 1e-4; texts exactly.

Found and fixed:
- grad_fn of clamp (ClampBackward0/1, ClampMinBackward0/1, ClampMaxBackward0/1, clamp_, clip)
  had no _saved_self/_saved_min/_saved_max (torch: the number bounds as given, the tensor
  bounds, None where a bound is absent; the one-sided nodes show their own bound only); where's
  had no _saved_condition, hardtanh's (relu6's) no _saved_min_val/_saved_max_val/_saved_self,
  leaky_relu's no _saved_negative_slope/_saved_self, ConvolutionBackward0 none of _saved_input,
  _saved_weight, _saved_stride, _saved_padding, _saved_dilation, _saved_groups,
  _saved_transposed, _saved_output_padding, _saved_bias_sym_sizes_opt, DotBackward0 none of
  _saved_self/_saved_tensor (None where not needed). A Function whose nodes
  take several torch names lists each name's attributes in _saved_shown.
- F.relu6 passed float bounds (torch's relu6 is hardtanh(0, 6): _saved_max_val is 6).
- nn.Hardtanh's bound check said "Hardtanh: max_val (...) must be ..." (torch: no prefix), was
  an assert (gone under python -O) and refused a NaN bound (torch: `max_val <= min_val` is
  false, so accepted); its deprecation warnings said "rename to" (torch 2.13: "renamed to").
- The error for a saved tensor changed in place named a bool or bfloat16 tensor
  torch.BoolTensor/torch.BFloat16Tensor (torch: its backend type, CPUBoolType, CPUBFloat16Type,
  CUDABoolType: those dtypes have no legacy tensor class).
- Conv modules' repr compared padding, dilation and output_padding with defaults as long as
  kernel_size: Conv2d(3, 4, (3, 3, 3)) showed padding=(0, 0), dilation and output_padding
  (torch compares each tuple with its own length and shows none).

Known and left (documented):
- ClampBackward1 of clamp(x, 0-d tensor, number) (torch reads the tensor as a number) saves
  the 0-d tensors where torch's _saved_min/_saved_max are Python numbers: reading the value
  would be a host read in library code.
- The in-place nodes' _saved_self (clamp_, hardtanh_) is the input before the op with its own
  grad_fn, where torch saves a clone (grad_fn=<CloneBackward0>); leaky_relu_'s node has no
  _saved_result (torch's LeakyReluBackward1 saves the result, not self).
- An uneven padding='same' (even kernels): torch pads the input first and its node saves the
  padded input and padding 0; minitorch's saves the unpadded input (the padding reads 0 too).
- bfloat16 clamp: the node is ToCopyBackward0 (minitorch computes in float32 and casts back);
  torch's is ClampBackward1. Gradients agree.
- NumPy's "invalid value encountered in subtract" RuntimeWarning of softmax/log_softmax/
  cross_entropy on +inf logits is silenced by minitorch's module filter only: code that sets
  warnings.simplefilter("always") sees it (torch warns nothing). Not recorded here.
- torch.* functions (F.linear, relu) do not dispatch to a Tensor subclass's
  __torch_function__ (minitorch refuses with a TypeError): an Interval tensor subclass in the
  style of some verification libraries does not run; the programs use a plain Interval class.
- x * c with c of another dtype (int64, float16) saves the promoted copy of c: changing c in
  place before backward raises nothing (torch saves c itself and raises).
- .item() inside func.vmap runs per sample (torch raises); see vmap's docstring.
- Python-level argument errors (clamp(1, 0, 2) on a method, unknown keywords) read as Python's
  TypeError, not torch's parser listing.
- The records run on the CPU only; the strict test device and CuPy are not exercised here."""

from __future__ import annotations

import pytest

from tests.reference._one_thread import one_torch_thread  # noqa: F401 - an autouse fixture
from tests.reference._programs import assert_program_matches, seeded_gen
from tests.reference._programs import seeded_rand as _rand
from tests.reference._programs import seeded_randn as _randn

torch = pytest.importorskip("torch")


PROGRAMS = [
    "ibp_mlp", "ibp_conv", "ibp_modules", "ibp_pool_bn", "crown_mlp", "alpha_crown",
    "crown_ibp", "certified_training", "eps_schedule", "pgd_linf", "fgsm_batch", "pgd_l2",
    "power_iteration", "conv_lipschitz", "spectral_norm_modules", "grad_errors",
    "clamp_semantics", "conv_errors", "linear_errors", "relu_kinks", "spec_matrix",
    "input_splitting", "lip_regularizer", "jacobian_lipschitz", "interval_class",
    "deeppoly_conv", "verified_stats", "adam_clamp_errors", "sigmoid_bounds",
    "orthogonal_layers", "custom_parametrization", "hooks_bounds", "dlr_apgd", "bpda_eot",
    "gloro_margins", "resnet_ibp", "wong_kolter", "bound_training_amp", "saved_tensors",
    "module_checks",
]  # fmt: skip


@pytest.mark.parametrize("dt", ["float64", "float32"])
@pytest.mark.parametrize("name", PROGRAMS)
def test_program_matches_torch(name, dt):
    assert_program_matches(globals()["p_" + name], torch, dt)


# --- helpers ---


def _mlp(lib, dt, seed, sizes=(6, 10, 8, 3)):
    nn = lib.nn
    lib.manual_seed(seed)
    layers = []
    for i, (a, b) in enumerate(zip(sizes[:-1], sizes[1:], strict=False)):
        layers.append(nn.Linear(a, b))
        if i < len(sizes) - 2:
            layers.append(nn.ReLU())
    return nn.Sequential(*layers).to(dt)


def _cnn(lib, dt, seed):
    nn = lib.nn
    lib.manual_seed(seed)
    return nn.Sequential(
        nn.Conv2d(1, 4, 3, stride=2, padding=1), nn.ReLU(),
        nn.Conv2d(4, 6, 3, stride=1, padding=1), nn.ReLU(), nn.Flatten(),
        nn.Linear(6 * 4 * 4, 12), nn.ReLU(), nn.Linear(12, 4),
    ).to(dt)  # fmt: skip


def _ibp_linear(lib, lo, hi, w, b):
    """(lower, upper) through x @ w.T + b with the positive/negative weight split."""
    wp, wn = w.clamp(min=0), w.clamp(max=0)
    l_out = lo @ wp.t() + hi @ wn.t()
    u_out = hi @ wp.t() + lo @ wn.t()
    if b is not None:
        l_out, u_out = l_out + b, u_out + b
    return l_out, u_out


def _ibp_conv(lib, lo, hi, conv):
    """(lower, upper) through a Conv2d in the centre/radius form with abs weights."""
    F = lib.nn.functional
    mid, rad = (hi + lo) / 2, (hi - lo) / 2
    kw = dict(stride=conv.stride, padding=conv.padding, dilation=conv.dilation, groups=conv.groups)
    mid = F.conv2d(mid, conv.weight, conv.bias, **kw)
    rad = F.conv2d(rad, conv.weight.abs(), None, **kw)
    return mid - rad, mid + rad


def _ibp(lib, model, lo, hi):
    """Interval bounds of every layer of a Sequential: the list of (lower, upper) pairs."""
    nn = lib.nn
    out = []
    for layer in model:
        if isinstance(layer, nn.Linear):
            lo, hi = _ibp_linear(lib, lo, hi, layer.weight, layer.bias)
        elif isinstance(layer, nn.Conv2d):
            lo, hi = _ibp_conv(lib, lo, hi, layer)
        elif isinstance(layer, nn.ReLU):
            lo, hi = lo.clamp(min=0), hi.clamp(min=0)
        elif isinstance(layer, nn.Flatten):
            lo, hi = layer(lo), layer(hi)
        else:
            raise TypeError(type(layer).__name__)
        out.append((lo, hi))
    return out


def _crown_slopes(lib, lo, hi):
    """CROWN's ReLU relaxation: upper slope u/(u-l) and intercept, adaptive lower slope."""
    denom = (hi - lo).clamp(min=1e-12)
    up = lib.where(lo >= 0, lib.ones_like(lo), lib.where(hi <= 0, lib.zeros_like(lo), hi / denom))
    icpt = lib.where((lo < 0) & (hi > 0), -lo * up, lib.zeros_like(lo))
    low = (hi > -lo).to(lo.dtype)
    low = lib.where(lo >= 0, lib.ones_like(lo), lib.where(hi <= 0, lib.zeros_like(lo), low))
    return up, icpt, low


def _crown_mlp(lib, lins, bounds, x_lo, x_hi, C, alphas=None):
    """Backward CROWN through Linear/ReLU layers (lins) with the pre-activation bounds of each
    hidden layer; returns the lower bound of C @ f(x) over the box."""
    A = C
    const = lib.zeros(C.shape[:2], dtype=C.dtype)
    for k in range(len(lins) - 1, -1, -1):
        w, b = lins[k].weight, lins[k].bias
        const = const + A @ b
        A = A @ w
        if k == 0:
            break
        lo, hi = bounds[k - 1]
        up, icpt, low = _crown_slopes(lib, lo, hi)
        low = low.unsqueeze(1)
        if alphas is not None:
            amb = (lo < 0) & (hi > 0)
            low = lib.where(amb.unsqueeze(1), alphas[k - 1], low)
        pos, neg = A.clamp(min=0), A.clamp(max=0)
        const = const + (neg * icpt.unsqueeze(1)).sum(-1)
        A = pos * low + neg * up.unsqueeze(1)
    mid, rad = (x_hi + x_lo) / 2, (x_hi - x_lo) / 2
    centre = (A @ mid.unsqueeze(-1)).squeeze(-1)
    return centre - (A.abs() @ rad.unsqueeze(-1)).squeeze(-1) + const


def _spec(lib, y, n):
    """The verification specification C (B, n-1, n): e_y - e_j for every j != y."""
    eye = lib.eye(n, dtype=lib.get_default_dtype())
    C = eye[y].unsqueeze(1) - eye.unsqueeze(0)
    keep = y.unsqueeze(1) != lib.arange(n).unsqueeze(0)
    return C[keep].view(y.shape[0], n - 1, n)


# --- interval bound propagation ---


def p_ibp_mlp(lib, dt, rec):
    """IBP through an MLP in both forms (clamp split and centre/radius with abs); they agree;
    bounds contain sampled points; gradients of the bound width with respect to the weights."""
    m = _mlp(lib, dt, 1)
    x = _rand(lib, dt, 2, 5, 6)
    eps = 0.1
    lo, hi = (x - eps).clamp(0, 1), (x + eps).clamp(0, 1)
    bounds = _ibp(lib, m, lo, hi)
    for i, (lb, ub) in enumerate(bounds):
        rec(f"l{i}", lb)
        rec(f"u{i}", ub)
    mid, rad = (hi + lo) / 2, (hi - lo) / 2
    for layer in m:
        if isinstance(layer, lib.nn.Linear):
            mid = lib.nn.functional.linear(mid, layer.weight, layer.bias)
            rad = lib.nn.functional.linear(rad, layer.weight.abs())
        else:
            mid, rad = (
                (layer(mid + rad) + layer(mid - rad)) / 2,
                (layer(mid + rad) - layer(mid - rad)) / 2,
            )
    rec("cr.l", mid - rad)
    rec("cr.u", mid + rad)
    noise = _rand(lib, dt, 3, 50, 1, 6) * 2 - 1
    pts = (x.unsqueeze(0) + eps * noise).clamp(0, 1)
    with lib.no_grad():
        z = m(pts)
    lb, ub = bounds[-1]
    rec("inside", bool(((z >= lb - 1e-6) & (z <= ub + 1e-6)).all()))
    width = (ub - lb).sum()
    width.backward()
    rec("width", width)
    rec("g0", m[0].weight.grad)
    rec("g0b", m[0].bias.grad)
    rec("g4", m[4].weight.grad)
    rec("g4b", str(m[4].bias.grad))


def p_ibp_conv(lib, dt, rec):
    """IBP through a CNN (Conv2d stride/padding, ReLU, Flatten, Linear), in the clamp-split form
    for the convolutions too, and the IBP loss (worst-case logits) with its gradients."""
    F = lib.nn.functional
    m = _cnn(lib, dt, 2)
    x = _rand(lib, dt, 4, 3, 1, 8, 8)
    y = lib.tensor([0, 3, 1])
    eps = 2 / 255
    lo, hi = (x - eps).clamp(min=0), (x + eps).clamp(max=1)
    bounds = _ibp(lib, m, lo, hi)
    for i, (lb, ub) in enumerate(bounds):
        rec(f"w{i}", (ub - lb).mean(dim=tuple(range(1, lb.dim()))))
    conv = m[0]
    wp, wn = conv.weight.clamp(min=0), conv.weight.clamp(max=0)
    l1 = F.conv2d(lo, wp, conv.bias, stride=2, padding=1) + F.conv2d(hi, wn, stride=2, padding=1)
    u1 = F.conv2d(hi, wp, conv.bias, stride=2, padding=1) + F.conv2d(lo, wn, stride=2, padding=1)
    rec("split.l", l1)
    rec("split.u", u1)
    lz, uz = bounds[-1]
    onehot = F.one_hot(y, 4).bool()
    worst = lib.where(onehot, lz, uz)
    loss = F.cross_entropy(worst, y)
    loss.backward()
    rec("loss", loss)
    rec("g.conv0", m[0].weight.grad)
    rec("g.conv2b", m[2].bias.grad)
    rec("g.fc", m[7].weight.grad)
    rec("grad_fn", type(worst.grad_fn).__name__)


def p_ibp_modules(lib, dt, rec):
    """IBP written as modules: a BoundedModule wrapper whose forward takes (lower, upper) as a
    tuple, registered buffers for eps, the bounds of an nn.Sequential of BoundLinear/BoundReLU,
    state_dict round trip, and interval checks under no_grad."""
    nn = lib.nn

    class BoundLinear(nn.Module):
        def __init__(self, lin):
            super().__init__()
            self.lin = lin

        def forward(self, bounds):
            lo, hi = bounds
            c, r = (hi + lo) / 2, (hi - lo) / 2
            c = self.lin(c)
            r = r @ self.lin.weight.abs().T
            return c - r, c + r

    class BoundReLU(nn.Module):
        def forward(self, bounds):
            return tuple(b.relu() for b in bounds)

    class Bounded(nn.Module):
        def __init__(self, model, eps):
            super().__init__()
            self.model = model
            self.register_buffer("eps", lib.tensor(eps, dtype=dt))
            mods = [BoundLinear(m) if isinstance(m, nn.Linear) else BoundReLU() for m in model]
            self.bound = nn.Sequential(*mods)

        def forward(self, x):
            return self.bound((x - self.eps, x + self.eps))

    m = _mlp(lib, dt, 3, (5, 7, 7, 4))
    bm = Bounded(m, 0.05)
    x = _randn(lib, dt, 5, 3, 5)
    lo, hi = bm(x)
    rec("lo", lo)
    rec("hi", hi)
    rec("keys", str(list(bm.state_dict().keys())))
    rec("eps.buf", bm.eps)
    bm.eps.fill_(0.2)
    lo2, hi2 = bm(x)
    rec("wider", bool(((hi2 - lo2) >= (hi - lo)).all()))
    sd = bm.state_dict()
    bm2 = Bounded(_mlp(lib, dt, 9, (5, 7, 7, 4)), 0.0)
    rec("load", str(bm2.load_state_dict(sd)))
    rec("same", lib.stack(bm2(x)) - lib.stack(bm(x)))
    with lib.no_grad():
        lo3, hi3 = bm(x)
    rec("nograd.req", str(lo3.requires_grad))
    rec("n.params", sum(p.numel() for p in bm.parameters()))


def p_ibp_pool_bn(lib, dt, rec):
    """IBP through AvgPool2d (monotone linear: bounds pass through), MaxPool2d (monotone),
    eval-mode BatchNorm2d folded into a scale and shift (a negative scale swaps the bounds), and
    a Linear with BatchNorm1d folded into its weights."""
    F = lib.nn.functional
    nn = lib.nn
    lib.manual_seed(4)
    bn = nn.BatchNorm2d(3).to(dt)
    with lib.no_grad():
        bn.weight.copy_(lib.tensor([1.5, -0.7, 0.3], dtype=dt))
        bn.bias.uniform_(-0.2, 0.2)
        bn.running_mean.normal_()
        bn.running_var.uniform_(0.5, 2.0)
    bn.eval()
    x = _randn(lib, dt, 5, 2, 3, 6, 6)
    lo, hi = x - 0.1, x + 0.1
    scale = bn.weight / lib.sqrt(bn.running_var + bn.eps)
    shift = bn.bias - bn.running_mean * scale
    s, t = scale.view(1, -1, 1, 1), shift.view(1, -1, 1, 1)
    l_bn = lib.minimum(lo * s, hi * s) + t
    u_bn = lib.maximum(lo * s, hi * s) + t
    rec("bn.l", l_bn)
    rec("bn.u", u_bn)
    rec("bn.mid", bn(x) - (l_bn + u_bn) / 2)
    rec("avg.l", F.avg_pool2d(l_bn, 2))
    rec("avg.u", nn.AvgPool2d(3, stride=2, padding=1)(u_bn))
    rec("max.l", F.max_pool2d(l_bn.relu(), 2))
    rec("max.u", nn.MaxPool2d(2)(u_bn.relu()))
    rec("adapt", F.adaptive_avg_pool2d(u_bn, 1).flatten(1))
    lin = nn.Linear(4, 3).to(dt)
    bn1 = nn.BatchNorm1d(3).to(dt)
    bn1(lin(_randn(lib, dt, 6, 8, 4)))
    bn1.eval()
    sc = bn1.weight / (bn1.running_var + bn1.eps).sqrt()
    w_f = lin.weight * sc[:, None]
    b_f = (lin.bias - bn1.running_mean) * sc + bn1.bias
    z = _randn(lib, dt, 7, 5, 4)
    rec("fold", bn1(lin(z)) - F.linear(z, w_f, b_f))
    fl, fu = _ibp_linear(lib, z - 0.05, z + 0.05, w_f, b_f)
    rec("fold.l", fl)
    rec("fold.u", fu)


# --- linear relaxations ---


def p_crown_mlp(lib, dt, rec):
    """CROWN on a 3-layer MLP: IBP for the intermediate bounds, then the backward linear
    relaxation with slopes u/(u-l) by where/clamp; its margin bound is tighter than IBP's."""
    m = _mlp(lib, dt, 5)
    lins = [m[0], m[2], m[4]]
    x = _rand(lib, dt, 6, 4, 6)
    y = lib.tensor([0, 2, 1, 2])
    eps = 0.03
    lo, hi = x - eps, x + eps
    bounds = _ibp(lib, m, lo, hi)
    pre = [bounds[0], bounds[2]]
    up, icpt, low = _crown_slopes(lib, *pre[0])
    rec("slope.up", up)
    rec("icpt", icpt)
    rec("slope.low", low)
    C = _spec(lib, y, 3).to(dt)
    rec("C", C)
    lb = _crown_mlp(lib, lins, pre, lo, hi, C)
    rec("crown.lb", lb)
    lz, uz = bounds[-1]
    ibp_lb = (C.clamp(min=0) @ lz.unsqueeze(-1) + C.clamp(max=0) @ uz.unsqueeze(-1)).squeeze(-1)
    rec("ibp.lb", ibp_lb)
    rec("tighter", bool((lb >= ibp_lb - 1e-9).all()))
    with lib.no_grad():
        z = m(x)
    rec("sound", bool((lb <= (C @ z.unsqueeze(-1)).squeeze(-1) + 1e-9).all()))
    lb.sum().backward()
    rec("g0", m[0].weight.grad)
    rec("g2b", m[2].bias.grad)


def p_alpha_crown(lib, dt, rec):
    """alpha-CROWN: the lower ReLU slopes of the ambiguous neurons are parameters optimised by
    Adam to maximise the bound, clamped back into [0, 1] with clamp_ under no_grad."""
    m = _mlp(lib, dt, 6, (5, 12, 12, 3))
    for p in m.parameters():
        p.requires_grad_(False)
    lins = [m[0], m[2], m[4]]
    x = _rand(lib, dt, 7, 3, 5)
    y = lib.tensor([1, 0, 2])
    lo, hi = x - 0.08, x + 0.08
    bounds = _ibp(lib, m, lo, hi)
    pre = [bounds[0], bounds[2]]
    C = _spec(lib, y, 3).to(dt)
    alphas = []
    for lb_, ub_ in pre:
        a = (ub_ > -lb_).to(dt).unsqueeze(1).expand(-1, 2, -1).clone()
        alphas.append(a.requires_grad_())
    a0 = [a.detach().clone() for a in alphas]
    base = _crown_mlp(lib, lins, pre, lo, hi, C)
    rec("base", base)
    opt = lib.optim.Adam(alphas, lr=0.1)
    for step in range(6):
        opt.zero_grad()
        lb = _crown_mlp(lib, lins, pre, lo, hi, C, alphas=[a for a in alphas])
        loss = -lb.sum()
        loss.backward()
        opt.step()
        with lib.no_grad():
            for a in alphas:
                a.clamp_(0, 1)
        rec(f"loss{step}", loss)
    rec("alpha0", alphas[0])
    rec("alpha1.moved", (alphas[1] - a0[1]).abs().sum())
    rec("in.range", bool(all(((a >= 0) & (a <= 1)).all() for a in alphas)))
    rec("state.step", opt.state[alphas[0]]["step"])
    rec("exp_avg", opt.state[alphas[1]]["exp_avg"])
    with lib.no_grad():
        final = _crown_mlp(lib, lins, pre, lo, hi, C, alphas=alphas)
    rec("final", final)


def p_crown_ibp(lib, dt, rec):
    """CROWN-IBP: the IBP bounds for intermediate layers and a CROWN final layer, mixed with a
    beta that decays; the loss is cross entropy on -lower_bound padded with a zero column."""
    F = lib.nn.functional
    m = _mlp(lib, dt, 7, (4, 8, 3))
    x = _randn(lib, dt, 8, 6, 4)
    y = lib.tensor([0, 1, 2, 0, 1, 2])
    lo, hi = x - 0.1, x + 0.1
    bounds = _ibp(lib, m, lo, hi)
    C = _spec(lib, y, 3).to(dt)
    crown = _crown_mlp(lib, [m[0], m[2]], [bounds[0]], lo, hi, C)
    lz, uz = bounds[-1]
    ibp = (C.clamp(min=0) @ lz.unsqueeze(-1) + C.clamp(max=0) @ uz.unsqueeze(-1)).squeeze(-1)
    for beta in (1.0, 0.5, 0.0):
        lb = beta * crown + (1 - beta) * ibp
        logits = lib.cat([lib.zeros(lb.shape[0], 1, dtype=dt), -lb], dim=1)
        loss = F.cross_entropy(logits, lib.zeros(lb.shape[0], dtype=lib.long))
        rec(f"loss.{beta}", loss)
    g = lib.autograd.grad(loss, m[0].weight, retain_graph=True)[0]
    rec("g.w0", g)
    g2 = lib.autograd.grad(loss, [m[2].weight, m[2].bias], allow_unused=True)
    rec("g.w2", g2[0])
    rec("g.b2", g2[1])


# --- certified training ---


def p_certified_training(lib, dt, rec):
    """IBP certified training: kappa * natural CE + (1 - kappa) * worst-case CE, with an eps that
    ramps linearly over the steps; SGD with momentum; the verified error at the end."""
    F = lib.nn.functional
    m = _mlp(lib, dt, 8, (4, 16, 3))
    X = _rand(lib, dt, 9, 24, 4)
    Y = (X[:, 0] * 3).long().clamp(max=2)
    opt = lib.optim.SGD(m.parameters(), lr=0.1, momentum=0.9)
    steps, eps_max = 6, 0.05
    for step in range(steps):
        eps = eps_max * min(1.0, step / (steps - 2))
        kappa = max(0.5, 1 - step / steps)
        for i in range(0, 24, 8):
            xb, yb = X[i : i + 8], Y[i : i + 8]
            nat = m(xb)
            lz, uz = _ibp(lib, m, (xb - eps).clamp(0, 1), (xb + eps).clamp(0, 1))[-1]
            worst = uz.scatter(1, yb[:, None], lz.gather(1, yb[:, None]))
            loss = kappa * F.cross_entropy(nat, yb) + (1 - kappa) * F.cross_entropy(worst, yb)
            opt.zero_grad()
            loss.backward()
            opt.step()
        rec(f"loss{step}", loss)
        rec(f"eps{step}", eps)
    with lib.no_grad():
        lz, uz = _ibp(lib, m, (X - eps_max).clamp(0, 1), (X + eps_max).clamp(0, 1))[-1]
        worst = uz.scatter(1, Y[:, None], lz.gather(1, Y[:, None]))
        ver = (worst.argmax(1) == Y).float().mean()
    rec("worst", worst)
    rec("verified", ver)
    rec.params("p", m)


def p_eps_schedule(lib, dt, rec):
    """Certified-training schedules: a smooth-ramp eps (exponential then linear), kappa, and a
    LambdaLR warmup with the lr recorded each step; the optimizer's param_groups after it."""
    import math

    def smooth_eps(step, start, end, eps, mid=0.25):
        if step < start:
            return 0.0
        if step >= end:
            return eps
        t = (step - start) / (end - start)
        if t < mid:
            return eps * (t / mid) ** 4 * mid
        return eps * (mid + (t - mid) / (1 - mid) * (1 - mid))

    rec("sched", [smooth_eps(s, 2, 12, 8 / 255) for s in range(15)])
    m = _mlp(lib, dt, 10, (3, 5, 2))
    opt = lib.optim.Adam(m.parameters(), lr=1e-2)
    sch = lib.optim.lr_scheduler.LambdaLR(opt, lambda s: min(1.0, (s + 1) / 4))
    x = _rand(lib, dt, 11, 10, 3)
    y = lib.tensor([0, 1] * 5)
    lrs = []
    for step in range(6):
        eps = smooth_eps(step, 1, 5, 0.1)
        lz, uz = _ibp(lib, m, x - eps, x + eps)[-1]
        worst = lib.where(lib.nn.functional.one_hot(y, 2) > 0, lz, uz)
        loss = lib.nn.functional.cross_entropy(worst, y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        sch.step()
        lrs.append(opt.param_groups[0]["lr"])
        rec(f"l{step}", loss)
    rec("lrs", lrs)
    rec("last_lr", sch.get_last_lr())
    rec("cos", [0.5 * (1 + math.cos(math.pi * s / 5)) for s in range(6)])
    rec.params("p", m)


# --- attacks ---


def p_pgd_linf(lib, dt, rec):
    """L-inf PGD with a random start drawn from a seeded generator, steps of alpha * sign(grad)
    from autograd.grad, projection by clamp with tensor bounds (x - eps, x + eps) and [0, 1]."""
    F = lib.nn.functional
    m = _cnn(lib, dt, 12)
    m.eval()
    x = _rand(lib, dt, 13, 4, 1, 8, 8)
    y = lib.tensor([0, 1, 2, 3])
    eps, alpha = 0.1, 0.03
    g = seeded_gen(lib, 14)
    delta = lib.empty_like(x).uniform_(-eps, eps, generator=g)
    xa = (x + delta).clamp(0, 1).detach()
    rec("start", xa)
    for k in range(5):
        xa.requires_grad_(True)
        loss = F.cross_entropy(m(xa), y)
        (grad,) = lib.autograd.grad(loss, [xa])
        xa = xa.detach() + alpha * grad.sign()
        xa = lib.clamp(xa, min=x - eps, max=x + eps).clamp(0.0, 1.0)
        rec(f"loss{k}", loss)
    rec("adv", xa)
    rec("linf", (xa - x).abs().amax(dim=(1, 2, 3)))
    rec("in.ball", bool(((xa - x).abs() <= eps + 1e-7).all()))
    xb = lib.max(lib.min(xa + 0.5, x + eps), x - eps)
    rec("minmax", xb)
    r = lib.rand(2, 3, generator=g, dtype=dt)
    rec("gen.next", r)
    rec("gen.state.len", g.get_state().numel())
    g2 = seeded_gen(lib, 14)
    rec("uniform.again", lib.empty(4, 1, 8, 8, dtype=dt).uniform_(-eps, eps, generator=g2) - delta)


def p_fgsm_batch(lib, dt, rec):
    """FGSM on a batch with x.requires_grad_(), loss.backward(), x.grad.sign(); x.grad after
    zero_(); a targeted step; the attack success rate; the grad of a non-leaf warns."""
    F = lib.nn.functional
    m = _mlp(lib, dt, 15, (6, 9, 4))
    x = _rand(lib, dt, 16, 8, 6)
    y = lib.tensor([0, 1, 2, 3, 0, 1, 2, 3])
    xa = x.clone().requires_grad_()
    loss = F.cross_entropy(m(xa), y, reduction="sum")
    loss.backward()
    rec("grad", xa.grad)
    adv = (xa + 0.2 * xa.grad.sign()).clamp(0, 1).detach()
    rec("adv", adv)
    rec("success", (m(adv).argmax(1) != y).sum())
    xa.grad.zero_()
    rec("zeroed", xa.grad)
    t = (y + 1) % 4
    loss_t = F.nll_loss(F.log_softmax(m(xa), dim=1), t)
    loss_t.backward()
    rec("grad.t", xa.grad)
    adv_t = (xa - 0.2 * xa.grad.sign()).clamp(0, 1)
    rec("adv.t.req", adv_t.requires_grad)
    xn = x * 1.0
    xn.requires_grad_()
    h = xn * 2
    rec.warns("nonleaf.grad", lambda: h.grad)
    rec("xn.leaf", xn.is_leaf)


def p_pgd_l2(lib, dt, rec):
    """L2 PGD: gradient normalised by its per-sample norm (flatten, norm, view, clamp_min),
    projection onto the L2 ball by renorm and by a factor min(1, eps/norm)."""
    F = lib.nn.functional
    m = _cnn(lib, dt, 17)
    x = _rand(lib, dt, 18, 3, 1, 8, 8)
    y = lib.tensor([2, 0, 1])
    eps, alpha = 0.5, 0.2
    delta = lib.zeros_like(x, requires_grad=True)
    for k in range(4):
        loss = F.cross_entropy(m(x + delta), y)
        loss.backward()
        gn = delta.grad.flatten(1).norm(p=2, dim=1).clamp_min(1e-12).view(-1, 1, 1, 1)
        delta.data.add_(alpha * delta.grad / gn)
        n = delta.data.flatten(1).norm(dim=1).view(-1, 1, 1, 1)
        delta.data.mul_(lib.clamp(eps / n, max=1.0))
        delta.data = (x + delta.data).clamp(0, 1) - x
        delta.grad.zero_()
        rec(f"loss{k}", loss)
    rec("delta", delta)
    rec("norms", lib.linalg.vector_norm(delta.detach(), dim=(1, 2, 3)))
    rn = delta.detach().renorm(p=2, dim=0, maxnorm=0.3)
    rec("renorm", rn)
    rec("renorm.n", rn.flatten(1).norm(dim=1))


# --- Lipschitz bounds ---


def p_power_iteration(lib, dt, rec):
    """Spectral norms by power iteration (normalize, mv) against linalg.matrix_norm(ord=2),
    svdvals, linalg.norm(ord=2) and the -2 norm; the product bound of an MLP and its gradient."""
    F = lib.nn.functional
    m = _mlp(lib, dt, 19, (5, 8, 6, 3))
    Ws = [m[0].weight, m[2].weight, m[4].weight]
    g = seeded_gen(lib, 20)
    sig = []
    for W in Ws:
        u = F.normalize(lib.randn(W.shape[0], generator=g, dtype=dt), dim=0)
        with lib.no_grad():
            for _ in range(200):
                v = F.normalize(lib.mv(W.t(), u), dim=0)
                u = F.normalize(lib.mv(W, v), dim=0)
        sig.append(u @ W @ v)
    rec("sig.pi", lib.stack(sig))
    rec("sig.mn", lib.stack([lib.linalg.matrix_norm(W, ord=2) for W in Ws]))
    rec("sig.norm", lib.stack([lib.linalg.norm(W, 2) for W in Ws]))
    rec("sig.min", lib.linalg.matrix_norm(Ws[2], ord=-2))
    rec("svdvals", lib.linalg.svdvals(Ws[1]))
    rec("batched", lib.linalg.matrix_norm(lib.stack([Ws[1], Ws[1] * 2]), ord=2))
    rec("ord.inf", lib.linalg.matrix_norm(Ws[0], ord=float("inf")))
    rec("ord.1", lib.linalg.matrix_norm(Ws[0], ord=1))
    L = lib.stack([lib.linalg.matrix_norm(W, ord=2) for W in Ws]).prod()
    L.backward()
    rec("L", L)
    rec("L.g0", Ws[0].grad)
    rec("L.g2", Ws[2].grad)
    s = lib.linalg.svdvals(Ws[1])
    (gs,) = lib.autograd.grad(s.sum(), Ws[1])
    rec("svd.g", gs)
    rec("fro", lib.linalg.matrix_norm(Ws[1], "fro"))
    rec("nuc", lib.linalg.matrix_norm(Ws[1], "nuc"))


def p_conv_lipschitz(lib, dt, rec):
    """The spectral norm of a convolution by power iteration with conv2d and conv_transpose2d
    (its adjoint), checked against the adjoint identity and an explicit Jacobian's svdvals."""
    F = lib.nn.functional
    lib.manual_seed(21)
    conv = lib.nn.Conv2d(2, 3, 3, stride=1, padding=1, bias=False).to(dt)
    W = conv.weight.detach()
    g = seeded_gen(lib, 22)
    u = lib.randn(1, 2, 5, 5, generator=g, dtype=dt)
    y = lib.randn(1, 3, 5, 5, generator=g, dtype=dt)
    rec(
        "adjoint",
        (F.conv2d(u, W, padding=1) * y).sum() - (u * F.conv_transpose2d(y, W, padding=1)).sum(),
    )
    for _ in range(100):
        u = u / u.norm()
        v = F.conv2d(u, W, padding=1)
        u = F.conv_transpose2d(v, W, padding=1)
    sigma = F.conv2d(u / u.norm(), W, padding=1).norm()
    rec("sigma", sigma)
    eye = lib.eye(50, dtype=dt).view(50, 2, 5, 5)
    J = F.conv2d(eye, W, padding=1).flatten(1).t()
    rec("J.shape", str(tuple(J.shape)))
    rec("svd.max", lib.linalg.svdvals(J)[0])
    rec("mn", lib.linalg.matrix_norm(J, ord=2))
    rec("bound.fro", W.flatten(1).norm() * 3)


def p_spectral_norm_modules(lib, dt, rec):
    """The spectral_norm parametrization and the older nn.utils.spectral_norm hook: u/v buffers,
    weight after power iterations in train mode, eval mode not iterating, remove_parametrizations
    and the n_power_iterations argument; a Conv2d under the parametrization."""
    nn = lib.nn
    lib.manual_seed(23)
    lin = nn.utils.parametrizations.spectral_norm(nn.Linear(5, 4).to(dt), n_power_iterations=3)
    x = _randn(lib, dt, 24, 6, 5)
    lin(x)
    out = lin(x)
    rec("out", out)
    rec("u", lin.parametrizations.weight[0]._u)
    rec("v", lin.parametrizations.weight[0]._v)
    rec("sv", lib.linalg.matrix_norm(lin.weight.detach(), ord=2))
    out.sum().backward()
    rec("g.orig", lin.parametrizations.weight.original.grad)
    lin.eval()
    w1 = lin.weight.detach().clone()
    lin(x)
    rec("eval.same", lin.weight - w1)
    nn.utils.parametrize.remove_parametrizations(lin, "weight")
    rec("removed", str(type(lin.weight).__name__))
    lib.manual_seed(25)
    old = nn.utils.spectral_norm(nn.Linear(5, 4).to(dt))
    old(x)
    rec("old.u", old.weight_u)
    rec("old.w", old.weight)
    rec("old.keys", str(sorted(old.state_dict().keys())))
    lib.manual_seed(26)
    conv = nn.utils.parametrizations.spectral_norm(nn.Conv2d(2, 3, 3).to(dt))
    conv(_randn(lib, dt, 27, 1, 2, 5, 5))
    rec("conv.sv", lib.linalg.matrix_norm(conv.weight.detach().flatten(1), ord=2))


# --- errors users hit ---


def p_grad_errors(lib, dt, rec):
    """Input gradients asked of tensors that do not require grad; grad of a non-scalar; grad
    twice without retain_graph; allow_unused; .grad of an input that was never marked; a saved
    bool mask and a ReLU output changed in place before backward."""
    m = _mlp(lib, dt, 28, (3, 4, 2))
    x = _rand(lib, dt, 29, 2, 3)
    rec.err("grad.noreq", lambda: lib.autograd.grad(m(x).sum(), x))
    for p in m.parameters():
        p.requires_grad_(False)
    rec.err("backward.noreq", lambda: m(x).sum().backward())
    for p in m.parameters():
        p.requires_grad_(True)
    out = m(x).sum()
    out.backward()
    rec("x.grad", str(x.grad))
    xr = x.clone().requires_grad_()
    rec.err("nonscalar", lambda: m(xr).backward())
    rec.err("nonscalar.grad", lambda: lib.autograd.grad(m(xr), xr))
    z = m(xr).sum()
    lib.autograd.grad(z, xr)
    rec.err("twice", lambda: lib.autograd.grad(z, xr))
    w = lib.ones(2, dtype=dt, requires_grad=True)
    rec.err("unused", lambda: lib.autograd.grad(m(xr).sum(), [xr, w]))
    rec("unused.ok", str(lib.autograd.grad(m(xr).sum(), [xr, w], allow_unused=True)[1]))
    rec.err("req.int", lambda: lib.tensor([1, 2]).requires_grad_())
    rec.err("detach.grad", lambda: lib.autograd.grad(m(xr).detach().sum(), xr))
    rec.err("grad.int.out", lambda: lib.autograd.grad(m(xr).argmax(), xr))
    amb = xr > 0.5
    relaxed = lib.where(amb, xr * 0.5, xr)
    amb.logical_not_()  # an unstable-neuron mask changed after it was saved
    rec.err("mask.modified", lambda: relaxed.sum().backward())
    h = lib.nn.functional.relu(xr * 1)
    h.clamp_(max=0.75)
    rec.err("relu.modified", lambda: h.sum().backward())


def p_clamp_semantics(lib, dt, rec):
    """clamp with min > max (every element becomes max), tensor bounds with broadcasting and
    min > max per element, NaN passing through, gradients at the bounds (clamp passes the
    gradient at x == min, relu does not), clamp_min/clamp_max, the errors of clamp() with no
    bound and of mixing a tensor with a number."""
    x = lib.tensor([-2.0, -0.5, 0.0, 0.5, 1.0, 2.0, float("nan")], dtype=dt)
    rec("min>max", lib.clamp(x, min=1.0, max=0.0))
    rec("min>max.m", x.clamp(0.5, -0.5))
    lo = lib.tensor([0.0, 0.0, 1.0, 1.0, -1.0, 3.0, 0.0], dtype=dt)
    hi = lib.tensor([1.0, -1.0, 0.5, 2.0, 0.0, 1.0, 1.0], dtype=dt)
    rec("tensor", lib.clamp(x, lo, hi))
    rec("tensor.min", lib.clamp(x, min=lo))
    rec("tensor.max", x.clamp(max=hi))
    rec("bcast", lib.clamp(x.view(7, 1), lo[:3], hi[:3]))
    rec("nan.bound", lib.clamp(x[:3], min=lib.tensor([float("nan"), 0, 0], dtype=dt)))
    xg = lib.tensor([-1.0, 0.0, 0.5, 1.0, 2.0], dtype=dt, requires_grad=True)
    (g,) = lib.autograd.grad(xg.clamp(0, 1).sum(), xg)
    rec("g.clamp", g)
    (g,) = lib.autograd.grad(xg.relu().sum(), xg)
    rec("g.relu", g)
    (g,) = lib.autograd.grad(xg.clamp(min=1.0, max=0.0).sum(), xg)
    rec("g.inverted", g)
    lt = lib.tensor([0.0, 0.0, 0.0, 0.0, 0.0], dtype=dt, requires_grad=True)
    ht = lib.tensor([1.0, 1.0, 0.4, 1.0, 1.0], dtype=dt, requires_grad=True)
    gx, gl, gh = lib.autograd.grad(lib.clamp(xg, lt, ht).sum(), [xg, lt, ht])
    rec("gt.x", gx)
    rec("gt.lo", gl)
    rec("gt.hi", gh)
    rec("clamp_min", x.clamp_min(0.25))
    rec("clamp_max", lib.clamp_max(x, 0.25))
    rec.err("none", lambda: lib.clamp(x))
    rec.err("none.m", lambda: x.clamp())
    rec.err("none.inplace", lambda: x.clone().clamp_())
    rec.err("int.out", lambda: lib.tensor([1, 5, 9]).clamp_(0.5, 3.5))
    rec("int", lib.tensor([1, 5, 9]).clamp(2, 7))
    rec("int.float", lib.tensor([1, 5, 9]).clamp(0.5, 3.5))
    rec("clip", lib.clip(x, -1, 1))
    rec("min>max.int", lib.tensor([1, 5, 9]).clamp(6, 2))


def p_conv_errors(lib, dt, rec):
    """The conv errors users hit: channel mismatch, a 3-d weight for conv2d, a kernel bigger
    than the padded input, groups that do not divide the channels, a bias of the wrong size,
    conv_transpose2d's weight/input mismatch, the wrong dtype of the weight."""
    F = lib.nn.functional
    x = _randn(lib, dt, 30, 2, 3, 5, 5)
    w = _randn(lib, dt, 31, 4, 2, 3, 3)
    rec.err("channels", lambda: F.conv2d(x, w))
    rec.err("w3d", lambda: F.conv2d(x, w[:, 0]))
    rec.err("kernel", lambda: F.conv2d(x, _randn(lib, dt, 32, 4, 3, 7, 7)))
    rec.err("groups", lambda: F.conv2d(x, _randn(lib, dt, 33, 4, 1, 3, 3), groups=2))
    rec.err("groups.out", lambda: F.conv2d(x[:, :2], _randn(lib, dt, 33, 3, 1, 3, 3), groups=2))
    rec.err("bias", lambda: F.conv2d(x, _randn(lib, dt, 34, 4, 3, 3, 3), lib.zeros(3, dtype=dt)))
    rec.err("transpose", lambda: F.conv_transpose2d(x, w))
    rec.err("dtype", lambda: F.conv2d(x, w.float() if dt == lib.float64 else w.double()))
    rec.err("input2d", lambda: F.conv2d(x[0, 0], w))
    conv = lib.nn.Conv2d(3, 4, 3).to(dt)
    rec.err("module", lambda: conv(x[:, :2]))
    rec.err("module.5d", lambda: conv(x.unsqueeze(0)))
    rec("unbatched", conv(x[0]).shape)
    rec.err("stride0", lambda: F.conv2d(x, _randn(lib, dt, 35, 4, 3, 3, 3), stride=0))
    rec.err("pad.neg", lambda: F.conv2d(x, _randn(lib, dt, 35, 4, 3, 3, 3), padding=-1))
    rec.err(
        "pad.str", lambda: F.conv2d(x, _randn(lib, dt, 35, 4, 3, 3, 3), padding="same", stride=2)
    )


def p_linear_errors(lib, dt, rec):
    """Shape errors of the interval propagation: matmul of bounds with a transposed weight of
    the wrong size, F.linear with a mismatched bias, broadcasting bounds of other shapes, an
    integer label tensor where a float is wanted, and the one_hot errors."""
    F = lib.nn.functional
    lo = _randn(lib, dt, 36, 4, 5)
    w = _randn(lib, dt, 37, 3, 6)
    rec.err("matmul", lambda: lo @ w.clamp(min=0).t())
    rec.err("linear", lambda: F.linear(lo, w))
    rec.err("linear.bias", lambda: F.linear(lo, w[:, :5], lib.zeros(4, dtype=dt)))
    rec.err("bcast", lambda: lo + _randn(lib, dt, 38, 3, 5))
    rec.err("mm", lambda: lib.mm(lo, w))
    rec.err("bmm", lambda: lib.bmm(lo.unsqueeze(0), w.unsqueeze(0)))
    rec.err("onehot.neg", lambda: F.one_hot(lib.tensor([0, -1]), 3))
    rec.err("onehot.big", lambda: F.one_hot(lib.tensor([0, 3]), 3))
    rec.err("onehot.float", lambda: F.one_hot(lib.tensor([0.0, 1.0]), 3))
    rec.err("ce.float", lambda: F.cross_entropy(lo, lib.tensor([0.0, 1.0, 2.0, 1.0])))
    rec.err("ce.shape", lambda: F.cross_entropy(lo, lib.tensor([0, 1, 2])))
    rec.err("where", lambda: lib.where(lo > 0, lo, w))
    rec.err("gather", lambda: lo.gather(1, lib.tensor([[0], [5], [1], [2]])))
    rec.err("mv", lambda: lib.mv(w, lo[0]))


def p_relu_kinks(lib, dt, rec):
    """Gradients at the kinks verification code hits: relu, clamp, abs, sign, max/min of equal
    values (split), where with ties, and F.relu(inplace=True) on a non-leaf."""
    F = lib.nn.functional
    x = lib.tensor([-1.0, 0.0, 1.0, 0.0], dtype=dt, requires_grad=True)
    for name, fn in [
        ("relu", F.relu),
        ("abs", lib.abs),
        ("sign", lib.sign),
        ("clampmin", lambda t: t.clamp(min=0)),
        ("hardtanh", lambda t: F.hardtanh(t, 0.0, 1.0)),
        ("relu6", F.relu6),
        ("leaky", lambda t: F.leaky_relu(t, 0.1)),
        ("maxz", lambda t: lib.maximum(t, lib.zeros_like(t))),
        ("max.self", lambda t: lib.max(t)),
        ("amax", lambda t: t.amax()),
        ("minimum.tie", lambda t: lib.minimum(t, t.detach())),
        ("where.ge", lambda t: lib.where(t >= 0, t, 0.1 * t)),
    ]:
        (g,) = lib.autograd.grad(fn(x).sum(), x)
        rec("g." + name, g)
    h = x * 2
    F.relu(h, inplace=True)
    h.sum().backward()
    rec("inplace.g", x.grad)
    rec("inplace.fn", type(h.grad_fn).__name__)
    rec.err("inplace.leaf", lambda: F.relu(x, inplace=True))
    rec.err("inplace.leaf.clamp", lambda: x.clamp_(min=0))


def p_spec_matrix(lib, dt, rec):
    """Building verification specifications: eye-based C, the margin bound from IBP bounds with
    C split into positive/negative parts, elision of the last layer (C @ W folded into a new
    linear layer), masked_fill with -inf, and the certified count."""
    m = _mlp(lib, dt, 39, (4, 6, 5))
    x = _randn(lib, dt, 40, 5, 4)
    y = lib.tensor([4, 0, 2, 1, 3])
    C = _spec(lib, y, 5).to(dt)
    rec("C", C)
    bounds = _ibp(lib, m, x - 0.05, x + 0.05)
    lh, uh = bounds[1]
    W, b = m[2].weight, m[2].bias
    Wc = C @ W
    bc = C @ b
    mid, rad = (uh + lh) / 2, (uh - lh) / 2
    elided = (Wc @ mid.unsqueeze(-1)).squeeze(-1) + bc - (Wc.abs() @ rad.unsqueeze(-1)).squeeze(-1)
    rec("elided", elided)
    lz, uz = bounds[-1]
    naive = lz.gather(1, y[:, None]) - uz
    naive = naive.masked_fill(lib.nn.functional.one_hot(y, 5).bool(), float("inf"))
    rec("naive", naive)
    rec("naive.min", naive.min(dim=1).values)
    rec("elided.min", elided.amin(1))
    rec("cert", (elided.amin(1) > 0).sum())
    rec("tighter", bool((elided.amin(1) >= naive.min(1).values - 1e-9).all()))
    others = lib.arange(5).expand(5, 5)[lib.arange(5).unsqueeze(0) != y.unsqueeze(1)]
    rec("others", others)
    rec("einsum", lib.einsum("bkn,bn->bk", C, m(x)))


def p_input_splitting(lib, dt, rec):
    """Input splitting (branch and bound on the input box): bisect the widest dimension with
    argmax/gather/scatter, bound every sub-box with IBP, keep the unverified ones, repeat; the
    lower bound grows monotonically."""
    m = _mlp(lib, dt, 41, (2, 8, 8, 1))
    lo = lib.tensor([[-0.5, -0.25]], dtype=dt)
    hi = lib.tensor([[0.25, 0.5]], dtype=dt)
    best = []
    for it in range(5):
        lz, _ = _ibp(lib, m, lo, hi)[-1]
        best.append(lz.min())
        rec(f"n{it}", lo.shape[0])
        width = hi - lo
        d = width.argmax(dim=1, keepdim=True)
        mid = (lo.gather(1, d) + hi.gather(1, d)) / 2
        lo = lib.cat([lo, lo.scatter(1, d, mid)])
        hi = lib.cat([hi.scatter(1, d, mid), hi])
    rec("best", lib.stack(best))
    rec("boxes.lo", lo)
    rec("boxes.hi", hi)
    lz, uz = _ibp(lib, m, lo, hi)[-1]
    rec("final.lo", lz.min())
    rec("final.hi", uz.max())
    keep = (lz < 0.0).squeeze(1)
    rec("keep", keep)
    rec("kept.lo", lo[keep])
    grid = lib.stack(
        lib.meshgrid(
            lib.linspace(-0.5, 0.25, 9, dtype=dt),
            lib.linspace(-0.25, 0.5, 9, dtype=dt),
            indexing="ij",
        ),
        -1,
    )
    with lib.no_grad():
        vals = m(grid.view(-1, 2))
    rec("sampled.min", vals.min())
    rec("sound", bool(vals.min() >= lz.min() - 1e-9))


def p_lip_regularizer(lib, dt, rec):
    """Gradient-norm (local Lipschitz) regularisation: input gradients with create_graph=True,
    their norm penalised and back-propagated to the weights (double backward through ReLU and
    cross entropy), a few Adam steps."""
    F = lib.nn.functional
    m = _mlp(lib, dt, 42, (4, 10, 3))
    X = _randn(lib, dt, 43, 12, 4)
    Y = lib.arange(12) % 3
    opt = lib.optim.Adam(m.parameters(), lr=0.01)
    for step in range(4):
        x = X.clone().requires_grad_(True)
        loss = F.cross_entropy(m(x), Y)
        (gx,) = lib.autograd.grad(loss, x, create_graph=True)
        pen = gx.flatten(1).norm(dim=1).pow(2).mean()
        total = loss + 10.0 * pen
        opt.zero_grad()
        total.backward()
        rec(f"pen{step}", pen)
        rec(f"g{step}", m[0].weight.grad)
        opt.step()
    rec.params("p", m)
    x = X.clone().requires_grad_(True)
    out = F.softplus(m(x)).sum()
    (gx,) = lib.autograd.grad(out, x, create_graph=True)
    (hx,) = lib.autograd.grad(gx.pow(2).sum(), x)
    rec("softplus.hess", hx)


def p_jacobian_lipschitz(lib, dt, rec):
    """Local Lipschitz estimates from Jacobians: autograd.functional.jacobian, func.jacrev with
    vmap over a batch, their spectral norms (matrix_norm ord=2 batched), and a Jacobian-vector
    check by jvp."""
    m = _mlp(lib, dt, 44, (4, 7, 3))
    x = _randn(lib, dt, 45, 5, 4)
    J = lib.autograd.functional.jacobian(lambda v: m(v), x[0])
    rec("J", J)
    Jb = lib.func.vmap(lib.func.jacrev(lambda v: m(v)))(x)
    rec("Jb", Jb)
    rec("norms", lib.linalg.matrix_norm(Jb, ord=2))
    rec("max", lib.linalg.matrix_norm(Jb, ord=2).max())
    v = _randn(lib, dt, 46, 4)
    _, jv = lib.autograd.functional.jvp(lambda t: m(t), x[0], v)
    rec("jvp", jv - J @ v)
    _, vj = lib.autograd.functional.vjp(lambda t: m(t), x[0], lib.ones(3, dtype=dt))
    rec("vjp", vj)
    params = dict(m.named_parameters())
    jp = lib.func.jacrev(lambda p, t: lib.func.functional_call(m, p, (t,)))(params, x[0])
    rec("jp.0", jp["0.weight"])


def p_interval_class(lib, dt, rec):
    """An Interval class with operator overloads (+, -, @, scalar *, relu, exp) as verification
    libraries write them, used to bound a small network and a composition with exp/log-sum-exp;
    the bounds contain samples."""

    class Interval:
        def __init__(self, lo, hi):
            self.lo, self.hi = lo, hi

        def __add__(self, other):
            if isinstance(other, Interval):
                return Interval(self.lo + other.lo, self.hi + other.hi)
            return Interval(self.lo + other, self.hi + other)

        def __neg__(self):
            return Interval(-self.hi, -self.lo)

        def __sub__(self, other):
            return self + (-other)

        def __mul__(self, c):
            if isinstance(c, float | int):
                return (
                    Interval(self.lo * c, self.hi * c)
                    if c >= 0
                    else Interval(self.hi * c, self.lo * c)
                )
            cands = lib.stack([self.lo * c, self.hi * c])
            return Interval(cands.min(0).values, cands.max(0).values)

        def __matmul__(self, w):
            return Interval(
                self.lo @ w.clamp(min=0) + self.hi @ w.clamp(max=0),
                self.hi @ w.clamp(min=0) + self.lo @ w.clamp(max=0),
            )

        def relu(self):
            return Interval(self.lo.relu(), self.hi.relu())

        def exp(self):
            return Interval(self.lo.exp(), self.hi.exp())

    m = _mlp(lib, dt, 47, (3, 5, 2))
    x = _randn(lib, dt, 48, 4, 3)
    iv = Interval(x - 0.1, x + 0.1)
    h = (iv @ m[0].weight.t() + m[0].bias).relu()
    z = h @ m[2].weight.t() + m[2].bias
    rec("z.lo", z.lo)
    rec("z.hi", z.hi)
    neg = -z * -0.5
    rec("neg.lo", neg.lo)
    sig = z * lib.tensor([1.0, -2.0], dtype=dt)
    rec("mul.hi", sig.hi)
    e = z.exp()
    lse_lo = e.lo.sum(1).log()
    lse_hi = e.hi.sum(1).log()
    rec("lse.lo", lse_lo)
    rec("lse.hi", lse_hi)
    d = z - z
    rec("self.sub", d.hi - d.lo)
    with lib.no_grad():
        pts = x.unsqueeze(0) + 0.1 * (_rand(lib, dt, 49, 30, 4, 3) * 2 - 1)
        lse = m(pts).logsumexp(-1)
    rec("sound", bool(((lse >= lse_lo - 1e-9) & (lse <= lse_hi + 1e-9)).all()))


def p_deeppoly_conv(lib, dt, rec):
    """A linear relaxation through a convolution done by unrolling it to a matrix (the Jacobian
    from conv2d of an identity batch), a symbolic upper/lower back-substitution with einsum, and
    the same bounds via conv_transpose2d (the adjoint) without the matrix."""
    F = lib.nn.functional
    lib.manual_seed(50)
    conv = lib.nn.Conv2d(1, 2, 3, stride=2, padding=1).to(dt)
    x = _rand(lib, dt, 51, 2, 1, 6, 6)
    eps = 0.05
    n_in = 36
    eye = lib.eye(n_in, dtype=dt).view(n_in, 1, 6, 6)
    Wm = F.conv2d(eye, conv.weight, padding=1, stride=2).flatten(1).t()
    rec("Wm.shape", str(tuple(Wm.shape)))
    out = conv(x).flatten(1)
    rec("unrolled", out - (x.flatten(1) @ Wm.t() + conv.bias.repeat_interleave(9)))
    c = _randn(lib, dt, 52, 3, 18)
    A = lib.einsum("kj,ji->ki", c, Wm)
    centre = lib.einsum("ki,bi->bk", A, x.flatten(1)) + c @ conv.bias.repeat_interleave(9)
    lb = centre - eps * A.abs().sum(1)
    rec("lb", lb)
    At = F.conv_transpose2d(c.view(3, 2, 3, 3), conv.weight, stride=2, padding=1, output_padding=1)
    rec("adjoint", At.flatten(1) - A)
    rec("adjoint.shape", str(tuple(At.shape)))


def p_verified_stats(lib, dt, rec):
    """Verified accuracy over a DataLoader: clean accuracy, PGD accuracy and IBP verified accuracy
    per batch accumulated with torch.no_grad and .sum().item(); eval() mode; the final dict."""
    F = lib.nn.functional
    m = _mlp(lib, dt, 53, (4, 12, 3))
    X = _rand(lib, dt, 54, 20, 4)
    Y = (X.sum(1) * 1.5).long().clamp(0, 2)
    ds = lib.utils.data.TensorDataset(X, Y)
    dl = lib.utils.data.DataLoader(ds, batch_size=6)
    m.eval()
    clean = adv = ver = 0
    eps = 0.02
    for xb, yb in dl:
        with lib.no_grad():
            clean += (m(xb).argmax(1) == yb).sum().item()
            lz, uz = _ibp(lib, m, (xb - eps).clamp(0, 1), (xb + eps).clamp(0, 1))[-1]
            worst = lib.where(F.one_hot(yb, 3).bool(), lz, uz)
            ver += (worst.argmax(1) == yb).sum().item()
        xa = xb.clone()
        for _ in range(3):
            xa.requires_grad_(True)
            (g,) = lib.autograd.grad(F.cross_entropy(m(xa), yb), xa)
            xa = (xa.detach() + 0.01 * g.sign()).clamp(xb - eps, xb + eps).clamp(0, 1)
        with lib.no_grad():
            adv += (m(xa).argmax(1) == yb).sum().item()
    stats = {"clean": clean / len(ds), "pgd": adv / len(ds), "verified": ver / len(ds)}
    rec("stats", str({k: round(v, 6) for k, v in stats.items()}))
    rec("order", bool(stats["clean"] >= stats["pgd"] >= stats["verified"]))
    rec("n.batches", len(dl))


def p_adam_clamp_errors(lib, dt, rec):
    """Mistakes with optimised relaxation parameters: clamp_ on a leaf that requires grad outside
    no_grad, Adam on a non-leaf tensor, a parameter listed twice, and the working patterns
    (.data.clamp_, no_grad clamp_, a Parameter)."""
    a = lib.full((3,), 0.5, dtype=dt, requires_grad=True)
    rec.err("clamp_.leaf", lambda: a.clamp_(0, 1))
    rec.err("adam.nonleaf", lambda: lib.optim.Adam([a * 2], lr=0.1))
    rec.err("adam.dup", lambda: lib.optim.Adam([a, a], lr=0.1))
    rec.err("adam.lr", lambda: lib.optim.Adam([a], lr=-1.0))
    rec.err("adam.betas", lambda: lib.optim.Adam([a], betas=(1.0, 0.9)))
    opt = lib.optim.Adam([a], lr=0.3)
    (a * lib.tensor([1.0, -1.0, 5.0], dtype=dt)).sum().backward()
    opt.step()
    rec("after", a)
    a.data.clamp_(0, 1)
    rec("data.clamp", a)
    rec("version", a._version)
    p = lib.nn.Parameter(lib.tensor([1.5, -0.5], dtype=dt))
    with lib.no_grad():
        p.clamp_(min=0, max=1)
    rec("param", p)
    rec("param.repr", repr(p))
    rec("param.req", p.requires_grad)


def p_sigmoid_bounds(lib, dt, rec):
    """IBP through monotone activations (sigmoid, tanh, softplus, elu), the chord/tangent
    relaxation of sigmoid on an interval with where for the convex/concave parts, and the
    softmax bounds from interval logits (lower: exp(l_i) / (exp(l_i) + sum_j exp(u_j)))."""
    F = lib.nn.functional
    x = _randn(lib, dt, 55, 4, 6)
    lo, hi = x - 0.3, x + 0.3
    for name, fn in [("sig", lib.sigmoid), ("tanh", lib.tanh), ("sp", F.softplus), ("elu", F.elu)]:
        rec(name + ".l", fn(lo))
        rec(name + ".u", fn(hi))
    sl, su = lib.sigmoid(lo), lib.sigmoid(hi)
    chord = (su - sl) / (hi - lo)
    tang_l = sl * (1 - sl)
    upper_slope = lib.where(hi <= 0, chord, lib.where(lo >= 0, tang_l, lib.minimum(chord, tang_l)))
    rec("up.slope", upper_slope)
    logits_lo, logits_hi = lo[:, :3], hi[:, :3]
    el, eu = logits_lo.exp(), logits_hi.exp()
    tot_u = eu.sum(1, keepdim=True)
    tot_l = el.sum(1, keepdim=True)
    p_lo = el / (el + tot_u - eu)
    p_hi = eu / (eu + tot_l - el)
    rec("p.lo", p_lo)
    rec("p.hi", p_hi)
    sm = F.softmax(x[:, :3], dim=1)
    rec("sound", bool(((sm >= p_lo) & (sm <= p_hi)).all()))


# --- Lipschitz-constrained layers ---


def p_orthogonal_layers(lib, dt, rec):
    """1-Lipschitz networks: the orthogonal parametrization with each map (matrix_exp, cayley,
    householder, a wide and a tall weight), GroupSort and MaxMin activations, Bjorck
    orthonormalisation iterations, and an Adam step through the parametrization."""
    nn = lib.nn
    x = _randn(lib, dt, 60, 3, 4)
    for kind in ("matrix_exp", "cayley", "householder"):
        lib.manual_seed(61)
        lin = nn.utils.parametrizations.orthogonal(nn.Linear(4, 4).to(dt), orthogonal_map=kind)
        w = lin.weight
        rec(kind + ".wwt", w @ w.T)
        rec(kind + ".w", w)
        opt = lib.optim.Adam(lin.parameters(), lr=0.05)
        lin(x).pow(2).sum().backward()
        rec(kind + ".g", lin.parametrizations.weight.original.grad)
        opt.step()
        rec(kind + ".after", lin.weight)
    lib.manual_seed(62)
    wide = nn.utils.parametrizations.orthogonal(nn.Linear(5, 3).to(dt))
    rec("wide", wide.weight @ wide.weight.T)
    lib.manual_seed(63)
    tall = nn.utils.parametrizations.orthogonal(nn.Linear(3, 5).to(dt))
    rec("tall", tall.weight.T @ tall.weight)
    z = _randn(lib, dt, 64, 3, 8)
    rec("groupsort", z.view(3, 4, 2).sort(dim=-1).values.view(3, 8))
    rec("maxmin", lib.cat([lib.maximum(z[:, :4], z[:, 4:]), lib.minimum(z[:, :4], z[:, 4:])], 1))
    rec("gs.norm", z.view(3, 4, 2).sort(dim=-1, descending=True)[0].flatten(1).norm(dim=1))
    w = _randn(lib, dt, 65, 4, 4) * 0.4
    w = w / lib.linalg.matrix_norm(w, ord=2)
    for _ in range(20):
        w = 1.5 * w - 0.5 * w @ w.t() @ w
    rec("bjorck", w @ w.t())


def p_custom_parametrization(lib, dt, rec):
    """Spectral normalisation as a user parametrization (W / max(1, sigma / c)) with the spectral
    norm from svdvals, register_parametrization, parametrize.cached(), is_parametrized, a
    right_inverse used when assigning the weight, and the module's repr."""
    nn = lib.nn
    P = nn.utils.parametrize

    class SpecClip(nn.Module):
        def __init__(self, c):
            super().__init__()
            self.c = c

        def forward(self, w):
            s = lib.linalg.svdvals(w)[0]
            return w / lib.clamp(s / self.c, min=1.0)

        def right_inverse(self, w):
            return w

    lib.manual_seed(66)
    lin = nn.Linear(4, 3).to(dt)
    P.register_parametrization(lin, "weight", SpecClip(0.5))
    rec("is", P.is_parametrized(lin))
    rec("is.bias", P.is_parametrized(lin, "bias"))
    rec("sv", lib.linalg.svdvals(lin.weight))
    x = _randn(lib, dt, 67, 6, 4)
    with P.cached():
        y = lin(x) + lin(2 * x)
    rec("y", y)
    y.sum().backward()
    rec("g", lin.parametrizations.weight.original.grad)
    with lib.no_grad():
        lin.weight = _randn(lib, dt, 68, 3, 4) * 0.1
    rec("assigned", lin.parametrizations.weight.original)
    rec("assigned.w", lin.weight)
    rec("repr", repr(lin).replace("minitorch", "torch"))
    rec("keys", str(list(lin.state_dict().keys())))
    P.remove_parametrizations(lin, "weight", leave_parametrized=True)
    rec("left", lin.weight)
    rec("is.after", P.is_parametrized(lin))


def p_hooks_bounds(lib, dt, rec):
    """Bounds on recorded activations: forward hooks collecting every ReLU's input, a forward
    pre-hook, a backward hook on the input tensor (gradient masking check), full backward hooks
    on a module, and removing the handles."""
    F = lib.nn.functional
    m = _mlp(lib, dt, 69, (5, 8, 8, 3))
    acts = []
    handles = [mod.register_forward_hook(lambda mod, i, o: acts.append(i[0].detach()))
               for mod in m if isinstance(mod, lib.nn.ReLU)]  # fmt: skip
    pre = []
    handles.append(m[0].register_forward_pre_hook(lambda mod, i: pre.append(i[0].shape)))
    x = _randn(lib, dt, 70, 4, 5)
    m(x)
    rec("n.acts", len(acts))
    rec("act0", acts[0])
    rec("pre", str(pre))
    bounds = _ibp(lib, m, x - 0.1, x + 0.1)
    rec("inside0", bool(((acts[0] >= bounds[0][0]) & (acts[0] <= bounds[0][1])).all()))
    unstable = ((bounds[0][0] < 0) & (bounds[0][1] > 0)).sum(1)
    rec("unstable", unstable)
    grads = []
    xi = x.clone().requires_grad_()
    hx = xi.register_hook(lambda g: grads.append(g.clone()) or g * 0.5)
    bw = []
    hb = m[2].register_full_backward_hook(lambda mod, gi, go: bw.append((gi[0], go[0])))
    loss = F.cross_entropy(m(xi), lib.tensor([0, 1, 2, 0]))
    loss.backward()
    rec("hooked", grads[0])
    rec("scaled", xi.grad)
    rec("bw.in", bw[0][0])
    rec("bw.out", bw[0][1])
    for h in [*handles, hx, hb]:
        h.remove()
    acts.clear()
    m(x)
    rec("removed", len(acts))


def p_dlr_apgd(lib, dt, rec):
    """AutoAttack's pieces: the DLR loss (sorted logits), the CW margin with a masked max, APGD's
    momentum step with step-size halving at checkpoints, and the best-loss bookkeeping with
    where over the batch."""
    F = lib.nn.functional
    m = _mlp(lib, dt, 71, (6, 12, 5))
    x = _rand(lib, dt, 72, 6, 6)
    y = lib.tensor([0, 1, 2, 3, 4, 0])

    def dlr(z, y):
        zs, ind = z.sort(dim=1)
        top_is_y = (ind[:, -1] == y).to(z.dtype)
        zy = z.gather(1, y[:, None]).squeeze(1)
        other = zs[:, -2] * top_is_y + zs[:, -1] * (1 - top_is_y)
        return -(zy - other) / (zs[:, -1] - zs[:, -3] + 1e-12)

    def cw(z, y):
        onehot = F.one_hot(y, z.shape[1]).bool()
        zy = z[onehot]
        zo = z.masked_fill(onehot, -1e4).max(1).values
        return (zo - zy).clamp(min=-50)

    rec("dlr", dlr(m(x), y))
    rec("cw", cw(m(x), y))
    eps, step = 0.1, 0.05
    xa = x.clone()
    best = dlr(m(x), y).detach()
    best_x = x.clone()
    prev = x.clone()
    for k in range(6):
        xa.requires_grad_(True)
        loss = dlr(m(xa), y)
        (g,) = lib.autograd.grad(loss.sum(), xa)
        with lib.no_grad():
            z = (xa + step * g.sign()).clamp(x - eps, x + eps).clamp(0, 1)
            a = 0.75 if k > 0 else 1.0
            new = (xa + a * (z - xa) + (1 - a) * (xa - prev)).clamp(x - eps, x + eps).clamp(0, 1)
            prev = xa.detach()
            improved = loss.detach() > best
            best = lib.where(improved, loss.detach(), best)
            best_x = lib.where(improved[:, None], xa.detach(), best_x)
            xa = new
        if k in (2, 4):
            step /= 2
        rec(f"loss{k}", loss)
    rec("best", best)
    rec("best_x", best_x)
    rec("cw.g", lib.autograd.grad(cw(m(x.requires_grad_()), y).sum(), x)[0])


def p_bpda_eot(lib, dt, rec):
    """Attacks on defended models: BPDA through a quantising defence with a straight-through
    custom autograd.Function, EOT over random transforms drawn from a generator, averaged
    gradients; the Function's needs_input_grad and mark_non_differentiable."""
    F = lib.nn.functional

    class Quantize(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x, levels):
            ctx.save_for_backward(x)
            return lib.round(x * (levels - 1)) / (levels - 1)

        @staticmethod
        def backward(ctx, grad):
            (x,) = ctx.saved_tensors
            inside = ((x >= 0) & (x <= 1)).to(grad.dtype)
            return grad * inside, None

    class ArgmaxIdx(lib.autograd.Function):
        @staticmethod
        def forward(ctx, z):
            idx = z.argmax(1)
            ctx.mark_non_differentiable(idx)
            return z * 1.0, idx

        @staticmethod
        def backward(ctx, g, g_idx):
            return g

    m = _mlp(lib, dt, 73, (6, 10, 3))
    x = _rand(lib, dt, 74, 5, 6) * 1.2 - 0.1
    y = lib.tensor([0, 1, 2, 1, 0])
    xa = x.clone().requires_grad_()
    q = Quantize.apply(xa, 8)
    rec("q", q)
    z, idx = ArgmaxIdx.apply(m(q))
    rec("idx.req", idx.requires_grad)
    F.cross_entropy(z, y).backward()
    rec("bpda.g", xa.grad)
    gen = seeded_gen(lib, 75)
    acc = lib.zeros_like(x)
    for _ in range(4):
        shift = lib.randn(5, 1, generator=gen, dtype=dt) * 0.05
        scale = 1 + 0.1 * lib.rand(5, 1, generator=gen, dtype=dt)
        xi = x.clone().requires_grad_()
        loss = F.cross_entropy(m(Quantize.apply(xi * scale + shift, 16)), y)
        acc += lib.autograd.grad(loss, xi)[0]
    rec("eot.g", acc / 4)
    rec("eot.adv", (x + 0.05 * acc.sign()).clamp(0, 1))


def p_gloro_margins(lib, dt, rec):
    """Lipschitz margins per class pair (GloRo): the last layer's row differences by cdist and
    by broadcasting, a global bound from the hidden layers' spectral norms, the bottom logit
    (the worst-case extra class) and its cross entropy with gradients."""
    F = lib.nn.functional
    m = _mlp(lib, dt, 76, (4, 9, 4))
    W = m[2].weight
    pair = lib.cdist(W, W)
    rec("cdist", pair)
    diff = (W.unsqueeze(0) - W.unsqueeze(1)).norm(dim=-1)
    rec("diff", diff)
    K_hidden = lib.linalg.matrix_norm(m[0].weight, ord=2)
    rec("K", K_hidden)
    x = _randn(lib, dt, 77, 6, 4)
    y = lib.tensor([0, 1, 2, 3, 0, 1])
    z = m(x)
    eps = 0.1
    Kij = diff[y] * K_hidden
    bot = (z + eps * Kij).masked_fill(F.one_hot(y, 4).bool(), float("-inf")).amax(1, keepdim=True)
    rec("bot", bot)
    logits = lib.cat([z, bot], dim=1)
    loss = F.cross_entropy(logits, y)
    loss.backward()
    rec("loss", loss)
    rec("g.w2", W.grad)
    rec("g.w0", m[0].weight.grad)
    pred = logits.argmax(1)
    rec("certified", (pred == y))
    rec.err("cdist.shape", lambda: lib.cdist(W, W[:, :3]))
    rec.err("cdist.p", lambda: lib.cdist(W, W, p=-1))
    rec("cdist.inf", lib.cdist(W, W[:2], p=float("inf")))


def p_resnet_ibp(lib, dt, rec):
    """IBP through a residual block (bounds of a sum are sums of bounds), F.pad with constant
    padding of bounds, grouped and dilated convolutions with abs weights, circular padding done
    by F.pad before a padding-free conv."""
    F = lib.nn.functional
    nn = lib.nn
    lib.manual_seed(78)
    c1 = nn.Conv2d(4, 4, 3, padding=2, dilation=2, groups=2).to(dt)
    c2 = nn.Conv2d(4, 4, 3, padding=1, padding_mode="circular").to(dt)
    x = _randn(lib, dt, 79, 2, 4, 6, 6)
    lo, hi = x - 0.05, x + 0.05
    l1, u1 = _ibp_conv(lib, lo, hi, c1)
    l1, u1 = l1.relu(), u1.relu()
    mid, rad = (u1 + l1) / 2, (u1 - l1) / 2
    midp, radp = (
        F.pad(mid, (1, 1, 1, 1), mode="circular"),
        F.pad(rad, (1, 1, 1, 1), mode="circular"),
    )
    m2 = F.conv2d(midp, c2.weight, c2.bias)
    r2 = F.conv2d(radp, c2.weight.abs())
    l2, u2 = m2 - r2 + lo, m2 + r2 + hi
    rec("l2", l2)
    rec("u2", u2)
    with lib.no_grad():
        out = c2(c1(x).relu()) + x
    rec("inside", bool(((out >= l2 - 1e-9) & (out <= u2 + 1e-9)).all()))
    rec("mid", out - (l2 + u2) / 2)
    pl = F.pad(l2, (1, 0, 2, 0), value=0.0)
    rec("pad.shape", str(tuple(pl.shape)))
    rec("pad.rep", F.pad(u2, (1, 1, 1, 1), mode="replicate")[:, 0, 0])


def p_wong_kolter(lib, dt, rec):
    """The convex outer adversarial polytope (Wong and Kolter) for a 2-layer network: the dual
    variables nu through Linear layers and ReLU slopes u/(u-l) with where, the objective J
    with its l1 term, the robust loss from -J and its gradients."""
    F = lib.nn.functional
    m = _mlp(lib, dt, 80, (5, 10, 3))
    W1, b1, W2, b2 = m[0].weight, m[0].bias, m[2].weight, m[2].bias
    x = _rand(lib, dt, 81, 4, 5)
    y = lib.tensor([0, 1, 2, 1])
    eps = 0.05
    zh = x @ W1.t() + b1
    rad = eps * W1.abs().sum(1)
    lo, hi = zh - rad, zh + rad
    I_pos = lo >= 0
    I_amb = (lo < 0) & (hi > 0)
    d = lib.where(I_pos, lib.ones_like(lo), lib.where(I_amb, hi / (hi - lo), lib.zeros_like(lo)))
    c = lib.eye(3, dtype=dt)[y].unsqueeze(1) - lib.eye(3, dtype=dt).unsqueeze(0)
    nu3 = -c
    nu2_hat = nu3 @ W2
    nu2 = d.unsqueeze(1) * nu2_hat
    nu1_hat = nu2 @ W1
    J = -(nu3 @ b2) - (nu2 @ b1) - (nu1_hat @ x.unsqueeze(-1)).squeeze(-1)
    J = J - eps * nu1_hat.abs().sum(-1)
    J = J + ((lo * I_amb.to(dt)).unsqueeze(1) * nu2.clamp(min=0)).sum(-1)
    rec("d", d)
    rec("J", J)
    loss = F.cross_entropy(-J, y)
    loss.backward()
    rec("loss", loss)
    rec("g1", W1.grad)
    rec("g2b", b2.grad)
    with lib.no_grad():
        margins = (c @ m(x).unsqueeze(-1)).squeeze(-1)
    rec("sound", bool((J <= margins + 1e-9).all()))


def p_bound_training_amp(lib, dt, rec):
    """An IBP training loop written with torch idioms around it: torch.no_grad eval, model.train
    toggles, a clip_grad_norm_ on the bound loss, optimizer.zero_grad(set_to_none=False), a
    state_dict snapshot restored after a diverging step."""
    import copy

    F = lib.nn.functional
    m = _mlp(lib, dt, 82, (4, 12, 3))
    X = _randn(lib, dt, 83, 16, 4)
    Y = lib.arange(16) % 3
    opt = lib.optim.SGD(m.parameters(), lr=0.2)
    snap = copy.deepcopy(m.state_dict())
    norms = []
    for step in range(4):
        m.train()
        opt.zero_grad(set_to_none=False)
        lz, uz = _ibp(lib, m, X - 0.1, X + 0.1)[-1]
        loss = F.cross_entropy(lib.where(F.one_hot(Y, 3).bool(), lz, uz), Y)
        loss.backward()
        norms.append(lib.nn.utils.clip_grad_norm_(m.parameters(), max_norm=0.5))
        opt.step()
        m.eval()
        with lib.no_grad():
            rec(f"acc{step}", (m(X).argmax(1) == Y).float().mean())
        rec(f"loss{step}", loss)
    rec("norms", lib.stack(norms))
    rec.params("p", m)
    m.load_state_dict(snap)
    rec.params("restored", m)
    rec("grad.kept", m[0].weight.grad)
    rec.err(
        "clip.nonfinite",
        lambda: (
            m[0].weight.grad.fill_(float("nan")),
            lib.nn.utils.clip_grad_norm_(m.parameters(), 1.0, error_if_nonfinite=True),
        ),
    )


# --- graph introspection and module checks ---


def p_saved_tensors(lib, dt, rec):
    """What bound-propagation tools read off a recorded graph: the grad_fn names of clamp (number
    and tensor bounds, clamp_min/clamp_max, in place), where, hardtanh/relu6, leaky_relu and the
    convolutions (direct, grouped, 'same', 1-d, transposed with an output size), and their
    _saved_* attributes (the bounds as numbers or tensors, None where not given; the geometry)."""
    F = lib.nn.functional
    x0 = _randn(lib, dt, 90, 3, 4)
    lo, hi = -x0.abs()[0], x0.abs()[1]

    def show(tag, out):
        node = out.grad_fn
        keys = sorted(k for k in dir(node) if k.startswith("_saved_"))
        rec(tag + ".node", type(node).__name__)
        rec(tag + ".keys", str(keys))
        for k in keys:
            v = getattr(node, k)
            if v is None or isinstance(v, bool | int | float):
                rec(tag + "." + k, repr(v))
            else:
                rec(tag + "." + k, v)

    x = x0.clone().requires_grad_()
    show("clamp", x.clamp(-0.5, 0.5))
    show("clamp.int", lib.clamp(x, min=0))
    show("clamp.max", x.clamp(max=1.25))
    show("clamp.t", x.clamp(lo, hi))
    show("clamp.tmin", lib.clamp(x, min=lo))
    show("clamp_min", x.clamp_min(0.1))
    show("clamp_max.t", lib.clamp_max(x, hi))
    show("clip", x.clip(-1, 1))
    show("where", lib.where(x > 0, x, 0.1 * x))
    show("where.s", lib.where(x > 0, x, 0.0))
    show("hardtanh", F.hardtanh(x, -0.25, 0.75))
    show("relu6", F.relu6(x))
    show("module.relu6", lib.nn.ReLU6()(x))
    show("leaky", F.leaky_relu(x, 0.05))
    show("leaky.mod", lib.nn.LeakyReLU()(x))
    y = x * 1
    y.clamp_(0, 1)
    rec("inplace.node", type(y.grad_fn).__name__)
    rec("inplace.min", repr(y.grad_fn._saved_min))
    rec("inplace.keys", str(sorted(k for k in dir(y.grad_fn) if k.startswith("_saved_"))))
    z = x * 1
    F.leaky_relu(z, 0.2, inplace=True)
    rec("leaky_.node", type(z.grad_fn).__name__)
    rec("leaky_.slope", repr(z.grad_fn._saved_negative_slope))
    rec.err("no.max", lambda: x.clamp_min(0.1).grad_fn._saved_max)
    rec.err("no.self", lambda: z.grad_fn._saved_self)
    lib.manual_seed(93)
    img = _rand(lib, dt, 94, 2, 2, 7, 7).requires_grad_()
    conv = lib.nn.Conv2d(2, 4, 3, stride=2, padding=1, dilation=1).to(dt)
    show("conv", conv(img))
    show("conv.abs", F.conv2d(img, conv.weight.abs(), None, stride=(2, 1), padding=(0, 2)))
    show("conv.groups", F.conv2d(img, _randn(lib, dt, 95, 4, 1, 3, 3), groups=2, dilation=2))
    show("conv.same", F.conv2d(img, conv.weight, padding="same"))
    show("conv1d", F.conv1d(img[:, :, 0], conv.weight[:, :, 0], stride=2))
    convT = lib.nn.ConvTranspose2d(2, 3, 3, stride=2, padding=1, output_padding=1).to(dt)
    show("convT", convT(img))
    show("convT.size", convT(img, output_size=(13, 14)))
    show("convT.adj", F.conv_transpose2d(img, conv.weight.transpose(0, 1)[:2], stride=3))
    u = _randn(lib, dt, 96, 3).requires_grad_()
    v = _randn(lib, dt, 97, 4)
    W = _randn(lib, dt, 98, 3, 4).requires_grad_()
    show("sigma", u @ W @ v)  # a power-iteration estimate u^T W v: DotBackward0
    show("dot", lib.dot(v, v * u.sum()))


def p_module_checks(lib, dt, rec):
    """Module construction checks and reprs met when building verified networks: Hardtanh's
    bounds (equal bounds refused, a NaN bound accepted), its deprecated keywords, ReLU6 and
    Conv2d reprs, a Conv2d built with a kernel_size of the wrong length, and its forward error."""
    nn = lib.nn
    rec.err("hardtanh.eq", lambda: nn.Hardtanh(1.0, 1.0))
    rec.err("hardtanh.inv", lambda: nn.Hardtanh(0.5, -0.5))
    rec("hardtanh.nan", repr(nn.Hardtanh(float("nan"), 1.0)))
    rec.warns("hardtanh.old", lambda: nn.Hardtanh(min_value=-2.0, max_value=2.0))
    rec("relu6", repr(nn.ReLU6(inplace=True)))
    lib.manual_seed(91)
    rec("conv", repr(nn.Conv2d(1, 4, 3, stride=2, padding=1)))
    rec("conv.same", repr(nn.Conv2d(2, 4, 3, padding="same", padding_mode="circular", bias=False)))
    bad = nn.Conv2d(1, 2, (3, 3, 3))
    rec("conv.bad", repr(bad))
    rec("conv.bad.w", str(tuple(bad.weight.shape)))
    rec.err("conv.bad.fwd", lambda: bad(_randn(lib, lib.float32, 92, 1, 1, 5, 5)))
    rec("convT", repr(nn.ConvTranspose2d(4, 2, 3, stride=2, output_padding=1, dilation=2)))
    rec("conv1d", repr(nn.Conv1d(2, 2, (3,), padding=(0,), dilation=(2,))))
