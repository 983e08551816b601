"""Session 35 (helper reg): regularisation and augmentation in training loops whose randomness
must equal torch's after the same seed, run under torch and minitorch and compared record by
record: F.dropout/dropout1d/2d/3d/alpha_dropout/feature_alpha_dropout (training on and off, in
place, p = 0 and 1, unbatched inputs and dropout2d's/dropout3d's warnings, transposed and
sliced inputs, float16/bfloat16, in place through views, double backward and a gradient
penalty through a dropout layer), the nn.Dropout* modules in train and eval mode, bernoulli and
bernoulli_ with float and tensor p, generators and out=, timm's DropPath (per-sample masks),
mixup with torch.distributions.Beta and randperm, cutmix boxes, random erasing, SpecAugment
masks, DropConnect / locked / embedding dropout, zoneout, label smoothing in cross_entropy,
weight decay by hand against SGD/Adam/AdamW (param groups), gradient noise with randn_like,
rrelu in training, RNG state replay and fork_rng; and torch's errors (p outside [0, 1], wrong
ranks, argument types). float64 must agree to 1e-10 of each record's scale, float32 to 1e-4.

Found and fixed:
- A NaN p (which passes the Python range check) went on to bernoulli_'s "expects p to be in
  [0, 1]" error, or in eval mode returned the input; torch's kernel raises "dropout probability
  has to be between 0 and 1, but got nan" (all dropout variants, modules too, eval mode too).
- Dropout of an empty float input while training (p in (0, 1]) returned a new tensor; torch's
  kernel returns the input itself (dropout, alpha_dropout, feature variants); feature_dropout
  and feature_alpha_dropout of an empty 1-d input raised the rank error, torch returns it.
- F.dropout(list, p, False) (and p = 0) returned the list; torch's parser raises "dropout():
  argument 'input' (position 1) must be Tensor, not list" (dropout_ and feature_dropout_ named).
- torch.dropout & co (8 aten functions) gave Python's "missing 1 required positional argument:
  'train'"; now torch's parser's 'missing 1 required positional arguments: "train"' (from the
  first missing argument on, singular "argument" for two or more).
- Tensor.bernoulli_ with a p that is no number (str, None, complex, list) said "argument 'p'
  must be float"; now torch's overload TypeError. Its, bernoulli's and Tensor.bernoulli's
  overload errors list keywords as torch's parser does (p=str, after the other keywords, in the
  reverse of the call's order, with the trailing ", "); x.bernoulli(p, generator=g) with a bad
  p is torch's "argument 'p' must be float".
- torch.native_dropout(x, 1.5, True) raised F.dropout's ValueError; torch does not check p
  there (bernoulli_(1 - p) refuses it: "bernoulli_ expects p to be in [0, 1], but got
  p=-0.5"), and its missing/extra-argument TypeErrors are the parser's, as above.
- torch.bernoulli(p, out=int64/bool/uint8 tensor) raised "result type Float can't be cast";
  torch draws into out of any dtype. bernoulli(x, out=[1]) is torch's overload TypeError.

Known and left (documented):
- NumPy RuntimeWarnings (divide by zero in log) leak from xlogy and div (Beta.log_prob at 0,
  Beta.mode); library-wide, not recorded here.
- torch.bernoulli(x, p_tensor, out=x, generator=g): torch adds "didn't match because some of
  the keywords were incorrect" lines to its overload error; not reproduced.
- x.bernoulli(p=None, generator=1): torch's "argument 'p' must be float, not NoneType";
  minitorch lists the overloads.
- The records run on the CPU only; the strict test device and CuPy are not exercised here."""

from __future__ import annotations

import numpy as np
import pytest

from tests.reference._one_thread import one_torch_thread  # noqa: F401 - an autouse fixture
from tests.reference._programs import assert_calls_match, assert_program_matches, run_calls
from tests.reference._programs import seeded_randn as _randn

torch = pytest.importorskip("torch")


PROGRAMS = [
    "dropout_basic", "dropout_nd", "alpha", "modules", "bernoulli", "drop_path", "mixup",
    "cutmix", "label_smoothing", "weight_decay", "grad_noise", "rrelu", "errors", "mlp_train",
    "noncontig", "rng_replay", "random_erasing", "spec_augment", "dropconnect", "zoneout",
    "reduced_dtypes", "double_backward", "modes", "inplace_views", "empty_and_nan",
]  # fmt: skip


@pytest.mark.parametrize("dt", ["float64", "float32"])
@pytest.mark.parametrize("name", PROGRAMS)
def test_program_matches_torch(name, dt):
    assert_program_matches(globals()["p_" + name], torch, dt)


# --- the programs: each takes the library, a dtype and a recorder ---


def p_dropout_basic(lib, dt, rec):
    F = lib.nn.functional
    x0 = _randn(lib, dt, 1, 4, 6)
    w = _randn(lib, dt, 2, 4, 6)
    lib.manual_seed(0)
    for p in (0.0, 0.2, 0.5, 0.9, 1.0):
        for training in (True, False):
            x = x0.clone().requires_grad_(True)
            out = F.dropout(x, p=p, training=training)
            (out * w).sum().backward()
            tag = f"{p}.{int(training)}"
            rec(tag, out)
            rec(tag + ".g", x.grad)
            rec(tag + ".same", out is x)
            rec(tag + ".fn", type(out.grad_fn).__name__ if out.grad_fn is not None else "None")
    # in place on a non-leaf, the mask's gradient
    x = x0.clone().requires_grad_(True)
    y = x * 2
    out = F.dropout(y, 0.3, True, True)
    rec("inplace.same", out is y)
    (out * w).sum().backward()
    rec("inplace", out)
    rec("inplace.g", x.grad)
    # in place, eval mode and p=1
    y = x0.clone()
    rec("inplace.eval", F.dropout(y, 0.3, False, True) is y)
    rec("inplace.p1", F.dropout(y, 1.0, True, True))
    rec("p1.y", y)
    # torch.dropout / torch.dropout_ / Tensor-level
    z = x0.clone()
    rec("torch.dropout", lib.dropout(z, 0.4, True))
    rec("torch.dropout_", lib.dropout_(z, 0.4, True))
    rec("z", z)
    rec("feature_dropout", lib.feature_dropout(x0.reshape(2, 2, 6), 0.5, True))
    rec("alpha_dropout", lib.alpha_dropout(x0, 0.5, True))
    # a half-kept count over a large tensor
    big = lib.ones(2000, dtype=dt)
    out = F.dropout(big, 0.25)
    rec("big.sum", out.sum())
    rec("big.kept", (out != 0).sum())


def p_dropout_nd(lib, dt, rec):
    F = lib.nn.functional
    lib.manual_seed(1)
    shapes = {
        "dropout1d": [(3, 5), (2, 3, 5)],
        "dropout2d": [(3, 4, 5), (2, 3, 4, 5), (2, 3, 2, 2, 2)],
        "dropout3d": [(3, 2, 2, 2), (2, 3, 2, 2, 2), (2, 3, 4)],
    }
    for fname, shs in shapes.items():
        fn = getattr(F, fname)
        for shape in shs:
            x = _randn(lib, dt, len(shape), *shape).requires_grad_(True)
            w = _randn(lib, dt, 9, *shape)
            tag = f"{fname}.{len(shape)}"
            out = rec.warns(tag + ".warns", lambda fn=fn, x=x: fn(x, 0.5, True))
            (out * w).sum().backward()
            rec(tag, out)
            rec(tag + ".g", x.grad)
            rec(tag + ".eval", fn(x, 0.5, False))
            y = x.detach().clone()
            out2 = rec.warns(tag + ".inpl.warns", lambda fn=fn, y=y: fn(y, 0.4, True, True))
            rec(tag + ".inpl.same", out2 is y)
            rec(tag + ".inpl", y)
    rec.err("d1.4d", lambda: F.dropout1d(lib.ones(1, 2, 3, 4, dtype=dt)))
    rec.err("d1.1d", lambda: F.dropout1d(lib.ones(4, dtype=dt)))
    rec.err("d2.1d", lambda: F.dropout2d(lib.ones(4, dtype=dt)))


def p_alpha(lib, dt, rec):
    F = lib.nn.functional
    lib.manual_seed(2)
    x0 = F.selu(_randn(lib, dt, 3, 4, 3, 5))
    w = _randn(lib, dt, 4, 4, 3, 5)
    for fname in ("alpha_dropout", "feature_alpha_dropout"):
        fn = getattr(F, fname)
        for p in (0.0, 0.1, 0.5, 1.0):
            x = x0.clone().requires_grad_(True)
            out = fn(x, p, True)
            (out * w).sum().backward()
            tag = f"{fname}.{p}"
            rec(tag, out)
            rec(tag + ".g", x.grad)
        rec(fname + ".default_eval", fn(x0, 0.5) is x0)
        y = x0.clone()
        out = fn(y, 0.2, True, True)
        rec(fname + ".inpl.same", out is y)
        rec(fname + ".inpl", y)
    # statistics are kept (approximately) over a big tensor
    big = F.selu(lib.randn(4000, dtype=dt))
    out = F.alpha_dropout(big, 0.2, True)
    rec("big.mean", out.mean())
    rec("big.std", out.std())
    rec.err("fad.1d", lambda: F.feature_alpha_dropout(lib.ones(3, dtype=dt), 0.5, True))


def p_modules(lib, dt, rec):
    nn = lib.nn
    lib.manual_seed(3)
    mods = [
        nn.Dropout(0.3), nn.Dropout(p=0.5, inplace=True), nn.Dropout1d(0.4), nn.Dropout2d(0.4),
        nn.Dropout3d(0.4), nn.AlphaDropout(0.3), nn.FeatureAlphaDropout(0.3),
    ]  # fmt: skip
    shapes = [(4, 6), (4, 6), (2, 3, 4), (2, 3, 2, 2), (2, 3, 2, 2, 2), (4, 6), (2, 3, 2, 2)]
    for i, (m, shape) in enumerate(zip(mods, shapes, strict=True)):
        rec(f"repr{i}", repr(m))
        x0 = _randn(lib, dt, 10 + i, *shape)
        m.train()
        x = x0.clone().requires_grad_(True)
        y = x * 1.0
        out = m(y)
        out.pow(2).sum().backward()
        rec(f"train{i}", out)
        rec(f"grad{i}", x.grad)
        m.eval()
        rec(f"eval{i}", m(x0.clone()))
        rec(f"eval_same{i}", m(x0) is x0)
        rec(f"training{i}", m.training)
    seq = nn.Sequential(nn.Linear(5, 8), nn.ReLU(), nn.Dropout(0.5), nn.Linear(8, 2)).to(dt)
    rec("seq.repr", repr(seq))
    rec("seq.train", seq(lib.randn(3, 5, dtype=dt)))
    seq.eval()
    rec("seq.eval", seq(lib.randn(3, 5, dtype=dt)))


def p_bernoulli(lib, dt, rec):
    g = lib.Generator().manual_seed(4)
    p = lib.rand(3, 5, generator=g, dtype=dt)
    rec("b.gen", lib.bernoulli(p, generator=g))
    lib.manual_seed(5)
    rec("b.global", lib.bernoulli(p))
    rec("b.p", lib.bernoulli(p, 0.3))
    rec("b.method", p.bernoulli())
    rec("b.method.p", p.bernoulli(0.7, generator=g))
    x = lib.empty(3, 5, dtype=dt)
    rec("b_.float", x.bernoulli_(0.25))
    rec("b_.tensor", x.bernoulli_(p))
    rec("b_.gen", x.bernoulli_(p, generator=g))
    rec("b_.tensor64", x.bernoulli_(p.double()))
    rec("b_.bcast", x.bernoulli_(p[:1]))
    rec("b_.0d", x.bernoulli_(lib.tensor(0.6, dtype=dt)))
    i = lib.zeros(3, 5, dtype=lib.int64)
    rec("b_.int", i.bernoulli_(0.5))
    bo = lib.zeros(3, 5, dtype=lib.bool)
    rec("b_.bool", bo.bernoulli_(p))
    out = lib.empty(3, 5, dtype=dt)
    rec("b.out", lib.bernoulli(p, generator=g, out=out))
    rec("b.edges", lib.bernoulli(lib.tensor([0.0, 1.0, 0.0, 1.0], dtype=dt)))
    rec.err("b.p_big", lambda: lib.bernoulli(lib.tensor([0.5, 1.5], dtype=dt)))
    rec.err("b.p_neg", lambda: lib.bernoulli(lib.tensor([-0.5, 0.5], dtype=dt)))
    rec.err("b_.p_big", lambda: x.bernoulli_(1.5))
    rec.err("b_.p_neg", lambda: x.bernoulli_(-0.1))
    rec.err("b_.p_tensor_big", lambda: x.bernoulli_(p + 1))
    rec.err("b.int", lambda: lib.bernoulli(lib.ones(3, dtype=lib.int64)))
    rec.err("b_.shape", lambda: x.bernoulli_(lib.rand(4, dtype=dt)))
    # requires_grad p: the sample has no gradient
    q = p.clone().requires_grad_(True)
    s = lib.bernoulli(q)
    rec("b.rg", s.requires_grad)


def _drop_path(lib, x, drop_prob, training, scale_by_keep=True):
    """timm's drop_path."""
    if drop_prob == 0.0 or not training:
        return x
    keep_prob = 1 - drop_prob
    shape = (x.shape[0],) + (1,) * (x.ndim - 1)
    random_tensor = x.new_empty(shape).bernoulli_(keep_prob)
    if keep_prob > 0.0 and scale_by_keep:
        random_tensor.div_(keep_prob)
    return x * random_tensor


def _drop_path_rand(lib, x, drop_prob, training):
    """The older (rand + floor) drop_path."""
    if drop_prob == 0.0 or not training:
        return x
    keep_prob = 1 - drop_prob
    shape = (x.shape[0],) + (1,) * (x.ndim - 1)
    random_tensor = keep_prob + lib.rand(shape, dtype=x.dtype, device=x.device)
    random_tensor.floor_()
    return x.div(keep_prob) * random_tensor


def p_drop_path(lib, dt, rec):
    nn = lib.nn
    lib.manual_seed(6)

    class Block(nn.Module):
        def __init__(self, dim, dp):
            super().__init__()
            self.norm = nn.LayerNorm(dim)
            self.fc = nn.Linear(dim, dim)
            self.dp = dp

        def forward(self, x):
            return x + _drop_path(lib, self.fc(self.norm(x)), self.dp, self.training)

    dprs = [v.item() for v in lib.linspace(0, 0.3, 4)]
    model = nn.Sequential(*[Block(6, d) for d in dprs]).to(dt)
    x = lib.randn(8, 3, 6, dtype=dt)
    out = model(x)
    out.pow(2).mean().backward()
    rec("out", out)
    rec.params("m", model, grads=True)
    model.eval()
    rec("eval", model(x))
    xr = lib.randn(8, 2, 3, dtype=dt, requires_grad=True)
    o = _drop_path_rand(lib, xr, 0.4, True)
    o.sum().backward()
    rec("rand", o)
    rec("rand.g", xr.grad)
    rec("noscale", _drop_path(lib, xr, 0.5, True, scale_by_keep=False))
    rec("dp1", _drop_path(lib, xr, 1.0, True))


def p_mixup(lib, dt, rec):
    F = lib.nn.functional
    lib.manual_seed(7)
    model = lib.nn.Linear(6, 4).to(dt)
    opt = lib.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    beta = lib.distributions.Beta(lib.tensor(0.4, dtype=dt), lib.tensor(0.4, dtype=dt))
    for step in range(3):
        x = lib.randn(5, 6, dtype=dt)
        y = lib.randint(0, 4, (5,))
        lam = beta.sample()
        perm = lib.randperm(5)
        xm = lam * x + (1 - lam) * x[perm]
        out = model(xm)
        loss = lam * F.cross_entropy(out, y) + (1 - lam) * F.cross_entropy(out, y[perm])
        opt.zero_grad()
        loss.backward()
        opt.step()
        rec(f"lam{step}", lam)
        rec(f"perm{step}", perm)
        rec(f"loss{step}", loss)
    rec.params("m", model)
    # soft targets (one-hot mixing) and a per-sample lam
    y1 = F.one_hot(lib.randint(0, 4, (5,)), 4).to(dt)
    perm = lib.randperm(5)
    lam = lib.distributions.Beta(1.0, 1.0).sample((5,)).to(dt)
    ym = lam[:, None] * y1 + (1 - lam[:, None]) * y1[perm]
    rec("ym", ym)
    logits = lib.randn(5, 4, dtype=dt, requires_grad=True)
    loss = F.cross_entropy(logits, ym)
    loss.backward()
    rec("soft.loss", loss)
    rec("soft.g", logits.grad)
    # numpy-free rsample of a Beta with a gradient
    a = lib.tensor([0.5, 2.0], dtype=dt, requires_grad=True)
    s = lib.distributions.Beta(a, a.detach() + 1).rsample((3,))
    s.sum().backward()
    rec("rsample", s)
    rec("rsample.g", a.grad)


def p_cutmix(lib, dt, rec):
    lib.manual_seed(8)
    x = lib.randn(4, 3, 8, 10, dtype=dt)
    y = lib.randint(0, 5, (4,))
    for step in range(3):
        lam = lib.distributions.Beta(1.0, 1.0).sample().item()
        H, W = x.shape[2:]
        cut_rat = (1.0 - lam) ** 0.5
        cut_w, cut_h = int(W * cut_rat), int(H * cut_rat)
        cx = lib.randint(W, (1,)).item()
        cy = lib.randint(H, (1,)).item()
        x1, x2 = max(cx - cut_w // 2, 0), min(cx + cut_w // 2, W)
        y1, y2 = max(cy - cut_h // 2, 0), min(cy + cut_h // 2, H)
        perm = lib.randperm(4)
        xc = x.clone()
        xc[:, :, y1:y2, x1:x2] = x[perm, :, y1:y2, x1:x2]
        lam_adj = 1 - ((x2 - x1) * (y2 - y1) / (W * H))
        rec(f"box{step}", [x1, x2, y1, y2])
        rec(f"lam{step}", lam_adj)
        rec(f"x{step}", xc)
        rec(f"y{step}", y[perm])
    # torchvision-style: uniform box via torch.rand, flip via rand < 0.5
    flip = lib.rand(4) < 0.5
    xf = lib.where(flip[:, None, None, None], x.flip(-1), x)
    rec("flip", xf)
    rec("jitter", x * (1 + 0.2 * (lib.rand(4, 3, 1, 1, dtype=dt) - 0.5)))


def p_label_smoothing(lib, dt, rec):
    F = lib.nn.functional
    lib.manual_seed(9)
    logits = lib.randn(6, 5, dtype=dt, requires_grad=True)
    y = lib.tensor([0, 4, 2, -100, 1, 3])
    w = lib.rand(5, dtype=dt)
    for ls in (0.0, 0.1, 0.5, 1.0):
        for red in ("mean", "sum", "none"):
            for weight in (None, w):
                loss = F.cross_entropy(logits, y, weight=weight, label_smoothing=ls, reduction=red)
                tag = f"{ls}.{red}.{weight is not None}"
                rec(tag, loss)
                (g,) = lib.autograd.grad(loss.sum(), logits)
                rec(tag + ".g", g)
    # by hand: (1 - eps) * nll + eps * mean(-log_softmax)
    yy = lib.tensor([0, 4, 2, 3, 1, 3])
    lp = F.log_softmax(logits, -1)
    manual = 0.9 * F.nll_loss(lp, yy) + 0.1 * (-lp.mean(-1)).mean()
    rec("manual", manual)
    rec("builtin", F.cross_entropy(logits, yy, label_smoothing=0.1))
    # soft targets and a module
    t = F.softmax(lib.randn(6, 5, dtype=dt), -1)
    rec("soft", F.cross_entropy(logits, t, label_smoothing=0.2))
    crit = lib.nn.CrossEntropyLoss(label_smoothing=0.15, ignore_index=-100)
    rec("module", crit(logits, y))
    # (N, C, d) inputs
    x3 = lib.randn(2, 4, 3, dtype=dt)
    y3 = lib.randint(0, 4, (2, 3))
    rec("3d", F.cross_entropy(x3, y3, label_smoothing=0.3))
    rec.err("ls.neg", lambda: F.cross_entropy(logits, yy, label_smoothing=-0.1))
    rec.err("ls.big", lambda: F.cross_entropy(logits, yy, label_smoothing=1.5))
    rec.err("ls.module", lambda: lib.nn.CrossEntropyLoss(label_smoothing=2.0)(logits, yy))


def p_weight_decay(lib, dt, rec):
    lib.manual_seed(10)
    base = lib.nn.Linear(4, 3).to(dt)
    x = lib.randn(6, 4, dtype=dt)
    t = lib.randn(6, 3, dtype=dt)

    def run(opt_fn, manual=None):
        m = lib.nn.Linear(4, 3).to(dt)
        m.load_state_dict(base.state_dict())
        opt = opt_fn(m.parameters())
        for _ in range(4):
            opt.zero_grad()
            loss = (m(x) - t).pow(2).mean()
            if manual == "l2":
                loss = loss + 0.5 * 0.01 * sum(p.pow(2).sum() for p in m.parameters())
            loss.backward()
            if manual == "decoupled":
                with lib.no_grad():
                    for p in m.parameters():
                        p.mul_(1 - 0.001 * 0.01)
            opt.step()
        return m

    optim = lib.optim
    runs = {
        "sgd_wd": run(lambda ps: optim.SGD(ps, lr=0.1, weight_decay=0.01)),
        "sgd_l2": run(lambda ps: optim.SGD(ps, lr=0.1), "l2"),
        "adamw": run(lambda ps: optim.AdamW(ps, lr=0.001, weight_decay=0.01)),
        "adam_dec": run(lambda ps: optim.Adam(ps, lr=0.001), "decoupled"),
        "adam_wd": run(lambda ps: optim.Adam(ps, lr=0.001, weight_decay=0.01)),
        "adam_dwd": run(
            lambda ps: optim.Adam(ps, lr=0.001, weight_decay=0.01, decoupled_weight_decay=True)
        ),
    }
    for k, m in runs.items():
        rec.params(k, m)
    # no decay on biases / norms: two param groups
    m = lib.nn.Sequential(lib.nn.Linear(4, 3), lib.nn.LayerNorm(3)).to(dt)
    decay = [p for n, p in m.named_parameters() if p.ndim > 1]
    no_decay = [p for n, p in m.named_parameters() if p.ndim <= 1]
    groups = [{"params": decay, "weight_decay": 0.05}, {"params": no_decay, "weight_decay": 0.0}]
    opt = optim.AdamW(groups, lr=0.01)
    for _ in range(3):
        opt.zero_grad()
        m(x).pow(2).sum().backward()
        opt.step()
    rec.params("groups", m)
    rec.err("wd.neg", lambda: optim.AdamW(m.parameters(), weight_decay=-0.1))
    rec.err("wd.sgd.neg", lambda: optim.SGD(m.parameters(), lr=0.1, weight_decay=-1.0))


def p_grad_noise(lib, dt, rec):
    lib.manual_seed(11)
    m = lib.nn.Sequential(lib.nn.Linear(4, 5), lib.nn.Tanh(), lib.nn.Linear(5, 1)).to(dt)
    opt = lib.optim.SGD(m.parameters(), lr=0.05)
    x = lib.randn(8, 4, dtype=dt)
    t = lib.randn(8, 1, dtype=dt)
    for step in range(4):
        opt.zero_grad()
        loss = (m(x) - t).pow(2).mean()
        loss.backward()
        sigma = (0.01 / (1 + step) ** 0.55) ** 0.5
        for p in m.parameters():
            p.grad.add_(lib.randn_like(p.grad) * sigma)
        lib.nn.utils.clip_grad_norm_(m.parameters(), 1.0)
        opt.step()
        rec(f"loss{step}", loss)
    rec.params("m", m, grads=True)
    # noise with a generator and normal_
    g = lib.Generator().manual_seed(12)
    p0 = next(m.parameters())
    rec("normal_", lib.empty_like(p0).normal_(0, 0.1, generator=g))
    rec("normal", lib.normal(0.0, 0.2, size=(3, 2), generator=g, dtype=dt))
    rec("randn_like.g", lib.randn_like(p0))
    # input noise augmentation
    rec("noisy", x + 0.1 * lib.randn_like(x))
    rec("rand_like", lib.rand_like(x))


def p_rrelu(lib, dt, rec):
    F = lib.nn.functional
    lib.manual_seed(13)
    x0 = _randn(lib, dt, 14, 4, 5)
    w = _randn(lib, dt, 15, 4, 5)
    for training in (True, False):
        x = x0.clone().requires_grad_(True)
        out = F.rrelu(x, 0.1, 0.3, training=training)
        (out * w).sum().backward()
        rec(f"out{int(training)}", out)
        rec(f"g{int(training)}", x.grad)
    m = lib.nn.RReLU(0.2, 0.4)
    rec("repr", repr(m))
    rec("mod.train", m(x0))
    m.eval()
    rec("mod.eval", m(x0))
    y = x0.clone()
    out = F.rrelu_(y, training=True)
    rec("inpl.same", out is y)
    rec("inpl", y)
    m2 = lib.nn.RReLU(inplace=True)
    y = x0.clone()
    rec("mod.inpl", m2(y))
    rec("mod.inpl.y", y)
    rec.err("lower>upper", lambda: F.rrelu(x0, 0.5, 0.1, training=True))


def p_errors(lib, dt, rec):
    F = lib.nn.functional
    nn = lib.nn
    x = lib.ones(2, 3, 4, 5, dtype=dt)
    for fname in ("dropout", "dropout1d", "dropout2d", "dropout3d", "alpha_dropout",
                  "feature_alpha_dropout"):  # fmt: skip
        fn = getattr(F, fname)
        xx = x[0] if fname == "dropout1d" else x
        for p in (-0.1, 1.5, 1.0000001):
            rec.err(f"{fname}.{p}", lambda fn=fn, p=p, xx=xx: fn(xx, p, True))
    for cls in ("Dropout", "Dropout1d", "Dropout2d", "Dropout3d", "AlphaDropout",
                "FeatureAlphaDropout"):  # fmt: skip
        rec.err(cls + ".neg", lambda cls=cls: getattr(nn, cls)(-0.5))
        rec.err(cls + ".big", lambda cls=cls: getattr(nn, cls)(2))
    rec.err("dropout.train_str", lambda: F.dropout(x, 0.5, "yes"))
    rec.err("dropout.list", lambda: F.dropout([1.0, 2.0], 0.5))
    rec.err("dropout.int", lambda: F.dropout(lib.ones(3, dtype=lib.int64), 0.5))
    rec.err("dropout.int.eval", lambda: F.dropout(lib.ones(3, dtype=lib.int64), 0.5, False))
    rec.err("dropout.leaf_inplace", lambda: F.dropout(x.clone().requires_grad_(), 0.5, True, True))
    rec.err("dropout3d.2d", lambda: F.dropout3d(lib.ones(3, 4, dtype=dt), 0.5))
    rec.err("feature.1d", lambda: lib.feature_dropout(lib.ones(3, dtype=dt), 0.5, True))


def p_mlp_train(lib, dt, rec):
    nn = lib.nn
    F = nn.functional
    lib.manual_seed(16)
    model = nn.Sequential(
        nn.Linear(6, 10), nn.ReLU(), nn.Dropout(0.3), nn.Linear(10, 10), nn.GELU(),
        nn.AlphaDropout(0.1), nn.Linear(10, 3),
    ).to(dt)  # fmt: skip
    opt = lib.optim.AdamW(model.parameters(), lr=0.01, weight_decay=0.05)
    x = lib.randn(12, 6, dtype=dt)
    y = lib.randint(0, 3, (12,))
    for step in range(4):
        model.train()
        perm = lib.randperm(12)
        for b in perm.split(4):
            opt.zero_grad()
            loss = F.cross_entropy(model(x[b]), y[b], label_smoothing=0.1)
            loss.backward()
            opt.step()
        rec(f"loss{step}", loss)
        model.eval()
        with lib.no_grad():
            rec(f"eval{step}", model(x))
    rec.params("m", model)


def p_noncontig(lib, dt, rec):
    F = lib.nn.functional
    lib.manual_seed(17)
    x = _randn(lib, dt, 18, 5, 4)
    rec("t", F.dropout(x.t(), 0.5))
    rec("slice", F.dropout(x[:, ::2], 0.5))
    rec("expand", F.dropout(x[:1].expand(3, 4), 0.5))
    rec("chlast", F.dropout2d(x.reshape(1, 5, 2, 2).permute(0, 2, 3, 1), 0.5))
    y = x.t()
    out = F.dropout(y, 0.5, inplace=True)
    rec("inpl.t", x)
    rec("inpl.same", out is y)
    rec("bern.t", lib.empty(4, 5, dtype=dt).t().bernoulli_(0.5))
    rec("bern.tp", lib.empty(4, 5, dtype=dt).t().bernoulli_(lib.rand(5, 4, dtype=dt)))
    rec("bern.p_t", lib.bernoulli(lib.rand(4, 5, dtype=dt).t()))


def p_rng_replay(lib, dt, rec):
    F = lib.nn.functional
    lib.manual_seed(19)
    x = lib.randn(4, 6, dtype=dt)
    state = lib.get_rng_state()
    a = F.dropout(x, 0.5)
    lib.set_rng_state(state)
    b = F.dropout(x, 0.5)
    rec("a", a)
    rec("replay", lib.equal(a, b))
    with lib.random.fork_rng():
        c = F.dropout(x, 0.5)
    d = F.dropout(x, 0.5)
    rec("fork", lib.equal(c, d))
    rec("initial_seed", lib.initial_seed())
    g = lib.Generator()
    g.manual_seed(20)
    gs = g.get_state()
    m1 = lib.bernoulli(lib.full((3, 4), 0.5, dtype=dt), generator=g)
    g.set_state(gs)
    m2 = lib.bernoulli(lib.full((3, 4), 0.5, dtype=dt), generator=g)
    rec("gen.replay", lib.equal(m1, m2))
    rec("m1", m1)


def p_random_erasing(lib, dt, rec):
    """torchvision's RandomErasing.get_params, written out."""
    import math

    lib.manual_seed(21)
    img = lib.rand(3, 12, 10, dtype=dt)
    area = 12 * 10
    log_ratio = lib.log(lib.tensor((0.3, 3.3)))
    for trial in range(6):
        if lib.rand(1) >= 0.5:
            rec(f"skip{trial}", True)
            continue
        for _ in range(10):
            erase_area = area * lib.empty(1).uniform_(0.02, 0.33).item()
            aspect_ratio = math.exp(lib.empty(1).uniform_(log_ratio[0], log_ratio[1]).item())
            h = int(round(math.sqrt(erase_area * aspect_ratio)))
            w = int(round(math.sqrt(erase_area / aspect_ratio)))
            if not (h < 12 and w < 10):
                continue
            v = lib.empty([3, h, w], dtype=lib.float32).normal_().to(dt)
            i = lib.randint(0, 12 - h + 1, size=(1,)).item()
            j = lib.randint(0, 10 - w + 1, size=(1,)).item()
            img = img.clone()
            img[..., i : i + h, j : j + w] = v
            rec(f"box{trial}", [i, j, h, w])
            break
    rec("img", img)


def p_spec_augment(lib, dt, rec):
    lib.manual_seed(22)
    spec = lib.randn(2, 16, 20, dtype=dt)
    # torchaudio's mask_along_axis_iid
    for axis, param in ((1, 5), (2, 7)):
        value = lib.rand(2, dtype=dt) * param
        min_value = lib.rand(2, dtype=dt) * (spec.size(axis) - value)
        mask_start = min_value.long()[..., None, None]
        mask_end = (min_value.long() + value.long())[..., None, None]
        mask = lib.arange(0, spec.size(axis), dtype=dt)
        if axis == 1:
            mask = mask[:, None]
        spec = spec.masked_fill((mask >= mask_start) & (mask < mask_end), 0.0)
        rec(f"axis{axis}", spec)
    # time warping-free random gain and a mask's gradient
    x = spec.clone().requires_grad_(True)
    keep = lib.rand(2, 1, 20) > 0.2
    out = (x * keep).mean()
    out.backward()
    rec("g", x.grad)


def p_dropconnect(lib, dt, rec):
    nn = lib.nn
    F = nn.functional
    lib.manual_seed(23)
    lin = nn.Linear(5, 4).to(dt)
    x = lib.randn(3, 5, dtype=dt)
    for step in range(2):
        w = F.dropout(lin.weight, 0.3, training=True)  # the weight-drop of AWD-LSTM
        out = F.linear(x, w, lin.bias)
        out.pow(2).sum().backward()
        rec(f"out{step}", out)
    rec("gw", lin.weight.grad)
    rec("gb", lin.bias.grad)
    # a variational (locked) mask shared over time
    seq = lib.randn(5, 2, 4, dtype=dt, requires_grad=True)
    mask = seq.new_empty(1, 2, 4).bernoulli_(0.7) / 0.7
    out = seq * mask
    out.sum().backward()
    rec("locked", out)
    rec("locked.g", seq.grad)
    # embedding dropout: rows of the embedding matrix
    emb = nn.Embedding(6, 3).to(dt)
    m = emb.weight.new_empty((6, 1)).bernoulli_(0.9).expand_as(emb.weight) / 0.9
    out = F.embedding(lib.tensor([[0, 2, 5], [1, 1, 3]]), emb.weight * m)
    out.sum().backward()
    rec("emb", out)
    rec("emb.g", emb.weight.grad)


def p_zoneout(lib, dt, rec):
    nn = lib.nn
    lib.manual_seed(24)
    cell = nn.GRUCell(3, 4).to(dt)
    x = lib.randn(5, 2, 3, dtype=dt)
    h = lib.zeros(2, 4, dtype=dt)
    for t in range(5):
        h_new = cell(x[t], h)
        mask = lib.empty_like(h).bernoulli_(0.2)  # zoneout: keep the old state where 1
        h = mask * h + (1 - mask) * h_new
        rec(f"h{t}", h)
    h.sum().backward()
    rec.params("cell", cell, grads=True)


def p_reduced_dtypes(lib, dt, rec):
    F = lib.nn.functional
    lib.manual_seed(25)
    x = _randn(lib, dt, 26, 6, 7)
    for low in (lib.float16, lib.bfloat16):
        xl = x.to(low)
        rec(f"{low}.dropout", F.dropout(xl, 0.3).to(dt))
        rec(f"{low}.dropout2d", F.dropout2d(xl.reshape(1, 6, 7, 1), 0.3).to(dt))
        rec(f"{low}.bern", lib.empty(3, 4, dtype=low).bernoulli_(0.3).to(dt))
        rec(f"{low}.bern_t", lib.bernoulli(lib.rand(3, 4, dtype=dt).to(low)).to(dt))
    rec("bf16.alpha", F.alpha_dropout(x.to(lib.bfloat16), 0.3, True).to(dt))
    rec("bf16.rrelu", F.rrelu(x.to(lib.bfloat16), training=True).to(dt))
    rec("after", lib.rand(3, dtype=dt))


def p_double_backward(lib, dt, rec):
    F = lib.nn.functional
    lib.manual_seed(27)
    x = _randn(lib, dt, 28, 3, 4).requires_grad_(True)
    for name, fn in (
        ("dropout", lambda t: F.dropout(t, 0.4)),
        ("dropout2d", lambda t: F.dropout2d(t.reshape(1, 3, 2, 2), 0.4)),
        ("alpha", lambda t: F.alpha_dropout(t, 0.4, True)),
        ("rrelu", lambda t: F.rrelu(t, training=True)),
    ):
        out = fn(x.tanh())
        (g,) = lib.autograd.grad(out.pow(2).sum(), x, create_graph=True)
        (gg,) = lib.autograd.grad(g.pow(2).sum(), x)
        rec(name + ".g", g)
        rec(name + ".gg", gg)
    # a gradient penalty through a dropout layer
    m = lib.nn.Sequential(lib.nn.Linear(4, 6), lib.nn.Dropout(0.3), lib.nn.Linear(6, 1)).to(dt)
    xi = lib.randn(5, 4, dtype=dt, requires_grad=True)
    (gx,) = lib.autograd.grad(m(xi).sum(), xi, create_graph=True)
    gp = (gx.norm(2, dim=1) - 1).pow(2).mean()
    gp.backward()
    rec("gp", gp)
    rec.params("gp.m", m, grads=True)


def p_modes(lib, dt, rec):
    F = lib.nn.functional
    lib.manual_seed(29)
    x = _randn(lib, dt, 30, 4, 5)
    with lib.no_grad():
        a = F.dropout(x.clone().requires_grad_(), 0.5)
        rec("no_grad", a)
        rec("no_grad.rg", a.requires_grad)
    with lib.inference_mode():
        b = F.dropout(x, 0.5)
        rec("inference", b)
        rec("inference.flag", b.is_inference())
        rec("inference.mod", lib.nn.Dropout(0.2)(x))
    m = lib.nn.Dropout(0.5)
    m.train(False)
    rec("eval.same", m(x) is x)
    m.requires_grad_(False)
    rec("m.params", len(list(m.parameters())))
    rec("state", str(m.state_dict()))
    rec("extra_repr", m.extra_repr())
    rec("p", m.p)
    m.p = 0.9
    m.train()
    rec("p.set", m(x))
    rec("np_p", F.dropout(x, np.float32(0.3)))
    rec("int_p", F.dropout(x, 1))
    rec("bool_p", F.dropout(x, False))


def p_inplace_views(lib, dt, rec):
    F = lib.nn.functional
    lib.manual_seed(31)
    x0 = _randn(lib, dt, 32, 4, 6)
    w = _randn(lib, dt, 33, 4, 6)
    # in place through a view of a non-leaf: the base's gradient sees the mask
    x = x0.clone().requires_grad_(True)
    y = x * 1.5
    v = y[:, 2:]
    F.dropout(v, 0.5, True, True)
    rec("view.fn", type(y.grad_fn).__name__)
    (y * w).sum().backward()
    rec("view.y", y)
    rec("view.g", x.grad)
    # channel dropout in place on a transposed view
    x = x0.clone().requires_grad_(True)
    y = (x + 0).reshape(2, 2, 6).transpose(1, 2)
    F.dropout1d(y, 0.5, True, True)
    y.sum().backward()
    rec("t1d.g", x.grad)
    # a view of a leaf: torch's error
    leaf = x0.clone().requires_grad_(True)
    rec.err("leaf.view", lambda: F.dropout(leaf[1:], 0.5, True, True))
    rec.err("leaf.view.eval", lambda: F.dropout(leaf[1:], 0.5, False, True))
    rec.err("leaf.view.p0", lambda: F.dropout(leaf[1:], 0.0, True, True))
    # saved tensors modified in place after dropout
    x = x0.clone().requires_grad_(True)
    y = x.exp()
    z = F.dropout(y, 0.3)
    y.mul_(2)
    rec.err("saved", lambda: z.sum().backward())
    x = x0.clone().requires_grad_(True)
    y = x.exp()
    z = F.dropout(y, 0.3, inplace=True)
    rec.err("inplace.saved", lambda: z.sum().backward())
    rec("inplace.saved.g", x.grad)
    # Parameters go through as Tensors
    p = lib.nn.Parameter(x0.clone())
    out = F.dropout(p, 0.5)
    rec("param.type", type(out).__name__)
    rec("param", out)
    rec("param.eval.same", F.dropout(p, 0.5, False) is p)


def p_empty_and_nan(lib, dt, rec):
    F = lib.nn.functional
    lib.manual_seed(34)
    e = lib.empty(0, 3, dtype=dt)
    for name, fn in (
        ("dropout", lambda t, p: F.dropout(t, p)),
        ("dropout.eval", lambda t, p: F.dropout(t, p, False)),
        ("dropout_", lambda t, p: F.dropout(t, p, True, True)),
        ("alpha", lambda t, p: F.alpha_dropout(t, p, True)),
        ("feature", lambda t, p: lib.feature_dropout(t, p, True)),
        ("feature_alpha", lambda t, p: lib.feature_alpha_dropout(t, p, True)),
    ):
        for p in (0.5, 1.0):
            rec(f"{name}.{p}.same", fn(e, p) is e)
        rec(f"{name}.1d", fn(lib.empty(0, dtype=dt), 0.5).shape)
        rec(f"{name}.int", fn(lib.empty(0, dtype=lib.int64), 0.5).dtype)
        rec.err(f"{name}.nan", lambda fn=fn: fn(lib.ones(2, 3, dtype=dt), float("nan")))
        rec.err(f"{name}.nan.empty", lambda fn=fn: fn(e, float("nan")))
    rec("after", lib.rand(4, dtype=dt))  # an empty input draws nothing
    m = lib.nn.Dropout(float("nan"))
    rec("nan.repr", repr(m))
    rec.err("nan.train", lambda: m(lib.ones(3, dtype=dt)))
    m.eval()
    rec.err("nan.eval", lambda: m(lib.ones(3, dtype=dt)))
    rec.err("d2.nan", lambda: F.dropout2d(lib.ones(1, 2, 3, 3, dtype=dt), float("nan"), False))
    rec.err("d1.nan", lambda: F.dropout1d(lib.ones(2, 3, dtype=dt), float("nan")))
    rec.err("d3.nan", lambda: F.dropout3d(lib.ones(2, 3, 3, 3, dtype=dt), float("nan")))
    # bernoulli into an out of another dtype
    g = lib.Generator().manual_seed(35)
    p = lib.rand(3, 4, dtype=dt, generator=g)
    for odt in (lib.int64, lib.bool, lib.float64, lib.float32, lib.uint8):
        out = lib.zeros(2, dtype=odt)
        rec(f"out.{odt}", lib.bernoulli(p, generator=g, out=out))
        rec(f"out.{odt}.shape", out.shape)


CALLS = [
    "F.dropout([1.0], 0.5, False)", "F.dropout([1.0], 0.0, True)",
    "F.dropout([1.0], 0.5, True, True)",
    "F.dropout(None, 0.5, False, True)", "F.dropout(x, float('nan'), 'a')",
    "torch.feature_dropout([1.0], 0.5, True)", "torch.feature_dropout_([1.0], 0.0, False)",
    "torch.dropout(x, 0.5)", "torch.dropout(x)", "torch.dropout()", "torch.dropout(x, p=0.5)",
    "torch.dropout(x, train=True)", "torch.dropout(p=0.5, train=True)", "torch.dropout(input=x)",
    "torch.dropout(x, 0.5, True, p=0.4)", "torch.dropout(x, 0.5, True, True)",
    "torch.alpha_dropout(x)", "torch.feature_dropout_(x)", "torch.feature_alpha_dropout(x, 0.5)",
    "torch.alpha_dropout_(x, train=True)", "torch.dropout_(x, float('nan'), False)",
    "x.bernoulli_('a')", "x.bernoulli_(None)", "x.bernoulli_(p=None)", "x.bernoulli_(p='a')",
    "x.bernoulli_(p=1j)", "x.bernoulli_(1 + 0j)", "x.bernoulli_([0.5])", "x.bernoulli_(p=(1, 2))",
    "x.bernoulli_('a', generator=g)", "x.bernoulli_(p='a', generator=g)",
    "x.bernoulli_(None, generator=g)", "x.bernoulli_(p=x, generator=1)",
    "x.bernoulli_(x, generator=1)", "x.bernoulli_(generator=1)", "x.bernoulli_(p=0.5, generator=1)",
    "x.bernoulli_(0.5, generator=1)", "x.bernoulli(p=x)", "x.bernoulli(x)", "x.bernoulli(p='a')",
    "x.bernoulli('a', generator=g)", "x.bernoulli(p='a', generator=g)",
    "x.bernoulli(p=x, generator=g)", "x.bernoulli(generator=1)", "x.bernoulli(0.5, generator=1)",
    "torch.bernoulli(x, 'a')", "torch.bernoulli(x, p='a')",
    "torch.bernoulli(x, p='a', generator=g)",
    "torch.bernoulli(x, p=x)", "torch.bernoulli(input=x, p=x)", "torch.bernoulli(x, p=x, out=x)",
    "torch.bernoulli(x, x, out=x)", "torch.bernoulli(p=x, input=x, generator=g)",
    "torch.bernoulli(x, generator=1)", "torch.bernoulli(x, generator=1, out=x)",
    "torch.bernoulli(x, out=x, generator=1)", "torch.bernoulli(input=x, generator=1)",
    "torch.bernoulli(x, 0.5, generator=1)", "torch.bernoulli(x, p=0.5, generator=1)",
    "torch.bernoulli(x.requires_grad_(), out=xi)", "torch.bernoulli(x, out=[1])",
    "torch.native_dropout(x, 1.5, True)", "torch.native_dropout(x, -0.5, True)",
    "torch.native_dropout(x, -0.5, False)", "torch.native_dropout(x)",
    "torch.native_dropout(x, 0.5, True, 1)", "torch.native_dropout(x, 2, True)",
]  # fmt: skip


def p_calls(lib, rec):
    env = dict(
        torch=lib, F=lib.nn.functional, x=lib.rand(4, 5), g=lib.Generator(),
        xi=lib.zeros(4, 5, dtype=lib.int64),
    )  # fmt: skip
    run_calls(CALLS, env, rec)


def test_calls_match_torch():
    assert_calls_match(p_calls, torch)
