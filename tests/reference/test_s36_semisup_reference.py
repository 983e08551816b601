"""Session 36 (helper semisup): semi-supervised and teacher-student training programs written
the way such code is written in torch, run under torch and minitorch with the same seeds and
compared record by record: FixMatch steps (softmax max, threshold masks, mask.float().mean(),
cross_entropy reduction='none' times the mask, empty and all/none-confident batches),
pseudo-labelling with label smoothing, FlexMatch class-wise thresholds (bincount), distribution
alignment, UDA's TSA; mean teachers as AveragedModel with get_ema_multi_avg_fn / get_ema_avg_fn
/ a custom avg_fn / a custom multi_avg_fn (the (device, dtype) groups and the counts it sees),
use_buffers=True (BatchNorm buffers, int32 and int64 counters), the default running mean (SWA),
n_averaged, state_dict keys ('module.' prefix, n_averaged) loaded into AveragedModels and plain
models, save/load, tied and weight_norm-parametrized models, hooks copied; copy.deepcopy of
models and optimizers; EMA by lerp_ under no_grad (number, 0-d and full tensor weights) and by
_foreach_lerp_ / _foreach_mul_ + _foreach_add_(alpha) (mixed dtypes, views, float16/bfloat16,
autograd through the out-of-place forms), warm-up decays over state_dict, functional_call with
EMA weights; consistency losses (MSE of softmaxes, KL with and without log_target, JS, entropy,
soft-target cross_entropy), MixMatch sharpening and mixup, Noisy-Student dropout, Hinton
distillation, inference-mode teachers; SWA loops with CosineAnnealingLR then SWALR (cos and
linear, anneal_epochs 0/1/3/5, per-group swa_lr, SequentialLR, ChainedScheduler, tensor lrs,
state_dict round trips) and update_bn (DataLoaders, lists, generators, momentum None, the
errors of odd batches); torch's errors and warnings of swa_utils, SWALR and update_bn
arguments; and an argument sweep of the _foreach ops EMA code calls. float64 must agree to
1e-10 of each record's scale, float32 to 1e-4; texts exactly.

Found and fixed (minitorch/_foreach.py):
- torch's "received an invalid combination of arguments" TypeError listed "didn't match" lines
  only when no keyword was given and never for alpha overloads; torch's formatter writes them
  for each overload with as many entries as arguments given (its "*" counted), naming the
  keywords it has no name for ("weights", "value", "scalars", "other") or marking every
  argument, kwargs included (!weights=float!); addcmul/addcdiv now list their overloads too.
- _foreach_add_(xs, 1.0, alpha=2) and _foreach_add_(xs, [1.0, 2.0], alpha=2) ran (torch: the
  invalid-combination TypeError; "expected Tensor as element 0 in argument 1, but got float");
  alpha given to mul/div/maximum/pow, a non-number alpha and a third positional argument
  gave Python's or the per-tensor method's errors; sub's single alpha overload gives torch's
  "argument 'other' (position 2) must be tuple of Tensors", "argument 'alpha' must be Number"
  and "takes 2 positional arguments but 3 were given". A 0-d tensor alpha or scalar= is a
  Number, as torch's parser reads it.
- operands by keyword were taken whatever their kind (scalars=2.0, other=2.0 ran) and other=
  was not seen as a keyword at all; torch refuses them; unknown keywords give the overload
  list rather than "unexpected keyword argument"; _foreach_pow_ lists no (Number self) form.
- _foreach_lerp_(xs, ys, tensor([0.3, 0.2])) broadcast the 1-d weight (torch: invalid
  combination); a missing or extra weight, weights= with numbers or weight= with tensors gave
  Python's errors; a list weight that is not all numbers is read as tensors, element by
  element ("expected Tensor as element 0 in argument 2"), and the ends are read before it.
- _foreach_addcmul/addcdiv: value='x', value=None, tensor=1, a list with a non-number and a
  fifth argument now give torch's invalid combination; value=tensor(2.0) is a number (it was
  taken as packed scalars and refused as 0-d).
- _foreach_norm(xs, 'fro') named linalg_vector_norm; now torch's "_foreach_norm(): argument
  'ord' (position 2) must be Number, not str" (no position by keyword), and dtype's type.

Known and left (documented):
- _foreach_lerp(xs, ys, 0.3+1j) on real tensors runs here; torch raises "value cannot be
  converted to type float without overflow". Not recorded.
- Half/bfloat16 add/sub with alpha (and so _foreach_add_/_foreach_sub_ with alpha): torch's
  CPU kernel rounds alpha * other to the half type before the add in the scalar tail of its
  vector loop (the last n mod 16 elements under AVX2) and once in the vector body; minitorch
  rounds once everywhere. Where the tail starts depends on the SIMD width; not recorded.
- Multi-keyword invalid-combination messages list the keywords in torch's hash-map order
  (alpha=2, foo=1 shows "foo=int, alpha=int"); minitorch lists them as given. Not recorded.
- A Linear bias feeding a BatchNorm gets a rounding-noise gradient that Adam turns into a full
  step; the programs' nets have no bias before their BatchNorm.
- The records run on the CPU only; the strict test device and CuPy are not exercised here."""

# ruff: noqa: E501  (the argument sweep lists calls as written)

from __future__ import annotations

import copy

import pytest

from tests.reference._one_thread import one_torch_thread  # noqa: F401 - an autouse fixture
from tests.reference._programs import assert_calls_match, assert_program_matches, run_calls
from tests.reference._programs import seeded_randn as _randn

torch = pytest.importorskip("torch")


PROGRAMS = [
    "fixmatch_step", "pseudo_label_train", "mean_teacher_ema", "ema_custom_avg_fn",
    "ema_avg_fn_vs_multi", "swa_default", "swa_use_buffers", "avg_fn_arguments",
    "multi_avg_fn_groups", "averaged_state_dict", "manual_lerp_ema", "foreach_ema_variants",
    "consistency_losses", "mixmatch_sharpen", "swalr_sequences", "swalr_state",
    "swalr_errors", "swa_errors", "update_bn_loaders", "deepcopy_teacher",
    "swa_train_loop", "distill_temperature", "ema_warmup_decay", "foreach_errors",
    "half_ema", "inference_teacher", "flexmatch_thresholds", "sequential_swalr",
    "dropout_noisy_student", "averaged_io",
    "foreach_mixed", "update_bn_errors", "masked_losses", "functional_ema", "parametrized_ema",
    "ignore_index_pseudo", "fixmatch_loaders",
]  # fmt: skip


FOREACH_CALLS = [
    'lib._foreach_lerp_(a, b)',
    "lib._foreach_lerp_(a, b, 'x')",
    'lib._foreach_lerp_(a, b, lib.tensor(0.3))',
    'lib._foreach_lerp_(a, b, lib.tensor(0.3, dtype=lib.float64))',
    'lib._foreach_lerp_(a, b, lib.tensor([0.3, 0.2]))',
    'lib._foreach_lerp_(a, b, weight=0.3)',
    'lib._foreach_lerp_(a, b, weights=0.3)',
    'lib._foreach_lerp_(a, b, (0.1, 0.2))',
    'lib._foreach_lerp_(a, 0.5, 0.3)',
    'lib._foreach_lerp_(a[0], b[0], 0.3)',
    'lib._foreach_lerp_(tuple(a), tuple(b), 0.3)',
    'lib._foreach_lerp_(a, b, None)',
    'lib._foreach_lerp(a, b, 1)',
    'lib._foreach_lerp(a, b, True)',
    'lib._foreach_mul_(a, lib.tensor(2.0))',
    'lib._foreach_mul_(a, lib.tensor([2.0, 3.0]))',
    "lib._foreach_mul_(a, 'x')",
    'lib._foreach_mul_(a, b, alpha=2)',
    "lib._foreach_add_(a, b, alpha='x')",
    'lib._foreach_add_(a, 1.0, alpha=2)',
    'lib._foreach_add_(a, lib.tensor(1.0), alpha=2)',
    'lib._foreach_add_(a, [1.0, 2.0], alpha=2)',
    'lib._foreach_add_(a, None)',
    'lib._foreach_add_(a, b, 2)',
    'lib._foreach_sub_(a, b, alpha=0.5)',
    'lib._foreach_sub_(i, i, alpha=0.5)',
    'lib._foreach_add_(i, i, alpha=0.5)',
    'lib._foreach_mul_(i, 0.5)',
    'lib._foreach_lerp_(i, i, 0.5)',
    'lib._foreach_lerp_(a, i, 0.5)',
    "lib._foreach_lerp_(a, b, [0.1, 'x'])",
    'lib._foreach_copy_(a, i)',
    'lib._foreach_copy_(a, b[:1])',
    'lib._foreach_addcmul_(a, b, b, value=0.5)',
    "lib._foreach_addcdiv_(a, b, c, value='x')",
    'lib._foreach_div_(a, 0)',
    'lib._foreach_div_(i, 2)',
    'lib._foreach_zero_(a[0])',
    'lib._foreach_norm(a, ord=3)',
    "lib._foreach_norm(a, 'fro')",
    'lib._foreach_norm(i)',
    "lib.lerp(a[0], b[0], 'x')",
    'a[0].lerp_(b[0], weight=2)',
    'a[0].lerp_(b[0], lib.tensor([0.1, 0.2, 0.3]))',
    'a[0].lerp_(lib.ones(3, 2), 0.5)',
    'a[0].lerp(lib.ones(3, 2), 0.5).shape',
    'lib.lerp(a[0], i[0], 0.5)',
    "swa.get_ema_avg_fn('x')",
    'swa.get_ema_multi_avg_fn(None)',
    'swa.get_ema_avg_fn(decay=lib.tensor(0.5))',
    "swa.get_ema_multi_avg_fn(float('nan'))",
    'swa.AveragedModel(None)',
    "swa.AveragedModel(lib.nn.Linear(2, 2), 'cpu', None, None, True, 5)",
    "swa.AveragedModel(lib.nn.Linear(2, 2), device='meta').n_averaged",
    'swa.AveragedModel(lib.nn.Linear(2, 2), foo=1)',
    'swa.update_bn(None, lib.nn.BatchNorm1d(2))',
    'swa.update_bn([lib.ones(2, 2)], None)',
    "swa.update_bn([{'x': lib.ones(2, 2)}], lib.nn.BatchNorm1d(2))",
    'swa.update_bn([lib.ones(2, 3)], lib.nn.BatchNorm1d(2))',
    'swa.update_bn([lib.ones(1, 2)], lib.nn.BatchNorm1d(2))',
    'swa.update_bn([], lib.nn.BatchNorm1d(2))',
    'swa.SWALR(None, 0.1)',
    "swa.SWALR(opt, 'x')",
    'swa.SWALR(opt, None).get_last_lr()',
    'swa.SWALR(opt, 0.1, anneal_epochs=None)',
    "swa.SWALR(opt, 0.1, 5, 'cos', -1, 3)",
    "swa.SWALR(opt, 0.1, anneal_strategy='Cos')",
    'swa.SWALR(opt, swa_lrs=0.1)',
    'swa.SWALR(opt, 0.1, last_epoch=-2)',
    'swa.SWALR(opt, lib.tensor(0.1)).get_last_lr()',
    "lib._foreach_mul_(tuple(a), 'x')",
    'lib._foreach_lerp_(tuple(a), tuple(b), lib.ones(2))',
    'lib._foreach_lerp_(tuple(a), tuple(b), weights=0.2)',
    "lib._foreach_lerp_(tuple(a), (1.0, 2.0), 'x')",
    "lib._foreach_lerp_(tuple(a), tuple(b), (0.1, 'x'))",
    'lib._foreach_lerp_(tuple(a), tuple(b), (0.1, 0.2), 1)',
    'lib._foreach_mul_(a, lib.ones(2))',
    'lib._foreach_add_(a, lib.ones(2), alpha=2)',
    'lib._foreach_add_(a, lib.tensor(2.), alpha=2)[0]',
    'lib._foreach_add_(a, [lib.tensor(2.), lib.tensor(1.)], alpha=2)[0]',
    'lib._foreach_lerp_(a, b, [lib.tensor(0.1), lib.tensor(0.2)])[0]',
    'lib._foreach_lerp_(a, b, [lib.ones(3)*.1, lib.ones(2,2)*.2])[0]',
    'lib._foreach_lerp_(a, b, (0.1, 0.2))[0]',
    'lib._foreach_lerp_(a, b, lib.tensor(1, dtype=lib.long))[0]',
    'lib._foreach_lerp_(a, b, True)[0]',
    "lib._foreach_lerp_(a, 'x', 0.2)",
    'lib._foreach_lerp_(a, b, 0.2, weights=b)',
    'lib._foreach_lerp_(a, b, weight=[0.3, 0.2])[0]',
    'lib._foreach_lerp_(a, b, weight=b)',
    'lib._foreach_lerp_(a, b, weights=b)[0]',
    'lib._foreach_lerp_(a, b, weights=[0.1,0.2])',
    'lib._foreach_lerp_(a, b, 0.3, 0.2)',
    'lib._foreach_lerp_(a, b, weight=lib.tensor(0.3))[0]',
    "lib._foreach_sub_(a, b, alpha='x')",
    'lib._foreach_sub_(a, [1.0, 2.0], alpha=2)',
    'lib._foreach_sub_(a, lib.tensor(1.), alpha=2)',
    'lib._foreach_sub_(a, b, 2)',
    'lib._foreach_sub(a, b, alpha=None)',
    'lib._foreach_sub_(a, 1.0, alpha=2)',
    'lib._foreach_sub(a, b, alpha=2)[1]',
    "lib._foreach_add(a, [1.0, 'x'])",
    'lib._foreach_add(a, [1.0, b[0]])',
    'lib._foreach_add(a, [b[0], 1.0])',
    'lib._foreach_maximum(a, 1.0, alpha=2)',
    'lib._foreach_pow(a, b, alpha=2)',
    'lib._foreach_div(a, b, 1)',
    'lib._foreach_mul(a, scalar=2.0)[0]',
    'lib._foreach_mul(a, scalars=2.0)',
    'lib._foreach_add(a, alpha=2)',
    'lib._foreach_add(a)',
    'lib._foreach_add(self=a, other=b)[0]',
    'lib._foreach_lerp(self=a, tensors1=b, weight=0.5)[0]',
    'lib._foreach_lerp(a, tensors1=b, weights=b)[0]',
    'lib._foreach_add(a, b, alpha=None)',
    'lib._foreach_mul(a, other=b)[0]',
    'lib._foreach_mul(a, other=2.0)',
    'lib._foreach_mul(a, scalars=[2.0, 3.0])[1]',
    'lib._foreach_pow(a, exponent=2.0)[0]',
    'lib._foreach_pow(a, scalar=2.0)',
    'lib._foreach_add(a, b, alpha=2)[0]',
    'lib._foreach_add_(a, other=b, alpha=2)[0]',
    'lib._foreach_addcmul(a, b, b, value=None)',
    'lib._foreach_addcmul(a, b, b, 2.0)[0]',
    "lib._foreach_addcmul(a, b, b, [1.0,'x'])",
    'lib._foreach_addcmul(a, b, b, lib.tensor(2.0))',
    'lib._foreach_addcmul(a, b, b, value=lib.tensor(2.0))[0]',
    'lib._foreach_addcmul(a, b, b, tensor=1)',
    'lib._foreach_addcmul(a, tensor1=b, tensor2=c)[0]',
    'lib._foreach_addcmul_(a, b, c, 0.5, 1)',
    'lib._foreach_addcmul_(a, b)',
    'lib._foreach_addcmul_(a, b, c, scalars=[1.0,2.0])[1]',
    'lib._foreach_addcmul_(a, b, c, scalars=lib.tensor([1.0,2.0]))[1]',
    'lib._foreach_addcdiv_(a, c, c, [0.5, 2.0])[1]',
    'lib._foreach_addcdiv_(a, c, c, value=0.5)[1]',
    'lib._foreach_norm(a, 2, None, 1)',
    'lib._foreach_norm(a, p=2)',
    "lib._foreach_norm(a, ord=float('inf'))[0]",
    'lib._foreach_norm(a, ord=None)',
    "lib._foreach_norm(a, 2, 'x')",
    "lib._foreach_norm(a, dtype='x')",
    'lib._foreach_norm(a, 2, lib.float64)[0]',
    'lib._foreach_add_(a, b, alpha=lib.tensor(2.))[0]',
    'lib._foreach_sub_(a, b, alpha=lib.tensor(2.))[0]',
    'lib._foreach_add_(a, lib.tensor(1.), alpha=lib.tensor(2.))[0]',
    'lib._foreach_mul_(a, scalar=lib.tensor(2.))[0]',
    'lib._foreach_mul_(a, other=lib.tensor(2.))[0]',
    'lib._foreach_mul_(a, foo=lib.tensor(2.))',
    'lib._foreach_add_(a, b, alpha=lib.ones(2))',
    'lib._foreach_lerp_(a, b, weight=lib.tensor([0.5]))',
    'lib._foreach_clamp_min_(a, other=b)[0]',
    'lib._foreach_maximum(a, other=2.0)',
    'lib._foreach_pow(2.0, exponent=b)[0]',
    'lib._foreach_pow_(a, scalar=2.0)',
]  # fmt: skip


@pytest.mark.parametrize("dt", ["float64", "float32"])
@pytest.mark.parametrize("name", PROGRAMS)
def test_program_matches_torch(name, dt):
    assert_program_matches(globals()["p_" + name], torch, dt)


def _calls_env(lib):
    return {
        "lib": lib,
        "swa": lib.optim.swa_utils,
        "a": [lib.ones(3), lib.ones(2, 2)],
        "b": [lib.zeros(3), lib.zeros(2, 2)],
        "c": [lib.ones(3) * 2, lib.ones(2, 2) * 2],
        "i": [lib.ones(3, dtype=lib.long), lib.ones(2, 2, dtype=lib.long)],
        "opt": lib.optim.SGD([lib.nn.Parameter(lib.ones(2))], lr=0.1),
    }


def p_calls(lib, rec):
    """The argument sweep: each call gets fresh lists and a fresh optimizer."""
    for code in FOREACH_CALLS:
        run_calls([code], _calls_env(lib), rec)


def test_argument_errors_match_torch():
    assert_calls_match(p_calls, torch)


# --- helpers ---


def _net(lib, dt, seed=0, bn=True, n_in=5, hidden=7, n_out=3):
    lib.manual_seed(seed)
    # no bias before a BatchNorm: its gradient is rounding noise, which Adam turns into a step
    layers = [lib.nn.Linear(n_in, hidden, bias=not bn)]
    if bn:
        layers.append(lib.nn.BatchNorm1d(hidden))
    layers += [lib.nn.ReLU(), lib.nn.Linear(hidden, n_out)]
    return lib.nn.Sequential(*layers).to(dt)


def _batch(lib, dt, seed, n=8, n_in=5, n_out=3):
    x = _randn(lib, dt, seed, n, n_in)
    y = lib.randint(0, n_out, (n,), generator=lib.Generator().manual_seed(seed + 100))
    return x, y


def _fixmatch_loss(lib, model, xl, yl, xw, xs, threshold, rec=None, tag=""):
    F = lib.nn.functional
    sup = F.cross_entropy(model(xl), yl)
    with lib.no_grad():
        probs = lib.softmax(model(xw), dim=-1)
    max_probs, targets_u = lib.max(probs, dim=-1)
    mask = max_probs.ge(threshold).float()
    unsup = (F.cross_entropy(model(xs), targets_u, reduction="none") * mask).mean()
    if rec is not None:
        rec(tag + "max_probs", max_probs)
        rec(tag + "targets_u", targets_u)
        rec(tag + "mask", mask)
        rec(tag + "mask_rate", mask.mean())
    return sup + 1.0 * unsup


# --- the programs ---


def p_fixmatch_step(lib, dt, rec):
    model = _net(lib, dt, 1)
    opt = lib.optim.SGD(model.parameters(), lr=0.1, momentum=0.9, nesterov=True, weight_decay=5e-4)
    xl, yl = _batch(lib, dt, 2)
    xu = _randn(lib, dt, 3, 16, 5)
    xw = xu + 0.05 * _randn(lib, dt, 4, 16, 5)
    xs = xu + 0.5 * _randn(lib, dt, 5, 16, 5)
    for step in range(3):
        opt.zero_grad()
        loss = _fixmatch_loss(lib, model, xl, yl, xw, xs, 0.4, rec, f"s{step}.")
        loss.backward()
        rec(f"s{step}.loss", loss)
        rec.params(f"s{step}", model, grads=True)
        opt.step()
    rec.params("final", model)
    rec("bn.mean", model[1].running_mean)
    rec("bn.var", model[1].running_var)
    rec("bn.n", model[1].num_batches_tracked)


def p_pseudo_label_train(lib, dt, rec):
    F = lib.nn.functional
    model = _net(lib, dt, 7, bn=False)
    opt = lib.optim.Adam(model.parameters(), lr=0.01)
    xl, yl = _batch(lib, dt, 8)
    xu = _randn(lib, dt, 9, 12, 5)
    for step in range(4):
        model.eval()
        with lib.no_grad():
            logits_u = model(xu)
        conf, pseudo = logits_u.softmax(-1).max(1)
        keep = conf > 0.45
        rec(f"{step}.keep", keep)
        rec(f"{step}.n_keep", keep.sum())
        model.train()
        opt.zero_grad()
        loss = F.cross_entropy(model(xl), yl, label_smoothing=0.1)
        if keep.any():
            u_loss = F.cross_entropy(model(xu[keep]), pseudo[keep])
            loss = loss + min(1.0, step / 2) * u_loss
        loss.backward()
        opt.step()
        rec(f"{step}.loss", loss)
    rec.params("final", model)


def p_mean_teacher_ema(lib, dt, rec):
    swa = lib.optim.swa_utils
    F = lib.nn.functional
    student = _net(lib, dt, 11)
    teacher = swa.AveragedModel(
        student, multi_avg_fn=swa.get_ema_multi_avg_fn(0.9), use_buffers=True
    )
    opt = lib.optim.SGD(student.parameters(), lr=0.05)
    xl, yl = _batch(lib, dt, 12)
    xu = _randn(lib, dt, 13, 10, 5)
    for step in range(4):
        opt.zero_grad()
        s_out = student(xu + 0.1 * _randn(lib, dt, 20 + step, 10, 5))
        with lib.no_grad():
            t_out = teacher(xu + 0.1 * _randn(lib, dt, 30 + step, 10, 5))
        cons = F.mse_loss(s_out.softmax(1), t_out.softmax(1))
        loss = F.cross_entropy(student(xl), yl) + 2.0 * cons
        loss.backward()
        opt.step()
        teacher.update_parameters(student)
        rec(f"{step}.cons", cons)
        rec(f"{step}.n_averaged", teacher.n_averaged)
    rec.params("teacher", teacher)
    for n, b in teacher.named_buffers():
        rec("tbuf." + n, b)
    rec("keys", str(list(teacher.state_dict().keys())))
    teacher.eval()
    rec("teacher_eval", teacher(xl))


def p_ema_custom_avg_fn(lib, dt, rec):
    swa = lib.optim.swa_utils
    model = _net(lib, dt, 14)
    decay = 0.8

    def ema_avg(avg, cur, num_averaged):
        return decay * avg + (1 - decay) * cur

    ema = swa.AveragedModel(model, avg_fn=ema_avg)
    opt = lib.optim.AdamW(model.parameters(), lr=0.02)
    x, y = _batch(lib, dt, 15)
    for step in range(3):
        opt.zero_grad()
        lib.nn.functional.cross_entropy(model(x), y).backward()
        opt.step()
        ema.update_parameters(model)
        rec.params(f"{step}.ema", ema)
    for n, b in ema.named_buffers():
        rec("buf." + n, b)


def p_ema_avg_fn_vs_multi(lib, dt, rec):
    swa = lib.optim.swa_utils
    model = _net(lib, dt, 16, bn=False)
    a = swa.AveragedModel(model, avg_fn=swa.get_ema_avg_fn(0.75))
    b = swa.AveragedModel(model, multi_avg_fn=swa.get_ema_multi_avg_fn(0.75))
    c = swa.AveragedModel(model, avg_fn=swa.get_swa_avg_fn())
    d = swa.AveragedModel(model, multi_avg_fn=swa.get_swa_multi_avg_fn())
    for step in range(4):
        with lib.no_grad():
            for i, p in enumerate(model.parameters()):
                p.add_(_randn(lib, dt, 40 + 10 * step + i, *p.shape) * 0.3)
        for m in (a, b, c, d):
            m.update_parameters(model)
    for tag, m in zip("abcd", (a, b, c, d), strict=True):
        rec.params(tag, m)
        rec(tag + ".n", m.n_averaged)


def p_swa_default(lib, dt, rec):
    swa = lib.optim.swa_utils
    model = _net(lib, dt, 17)
    avg = swa.AveragedModel(model)
    rec("n0", avg.n_averaged)
    rec("n0.dtype", str(avg.n_averaged.dtype))
    rec("repr", repr(avg))
    snapshots = []
    for step in range(3):
        with lib.no_grad():
            for i, p in enumerate(model.parameters()):
                p.mul_(0.9).add_(_randn(lib, dt, 60 + 10 * step + i, *p.shape))
            model[1].running_mean.add_(float(step + 1))
        snapshots.append([p.detach().clone() for p in model.parameters()])
        avg.update_parameters(model)
    for i, p in enumerate(avg.parameters()):
        mean = sum(s[i] for s in snapshots) / 3
        rec(f"p{i}", p)
        rec(f"dev{i}", (p - mean).abs().max())
    rec("running_mean", avg.module[1].running_mean)
    rec("requires_grad", str([p.requires_grad for p in avg.parameters()]))
    rec("is_copy", str([p is q for p, q in zip(avg.parameters(), model.parameters(), strict=True)]))


def p_swa_use_buffers(lib, dt, rec):
    swa = lib.optim.swa_utils
    model = _net(lib, dt, 18)
    avg = swa.AveragedModel(model, use_buffers=True)
    ema = swa.AveragedModel(model, multi_avg_fn=swa.get_ema_multi_avg_fn(0.5), use_buffers=True)
    for step in range(3):
        model.train()
        model(_randn(lib, dt, 70 + step, 6, 5))
        avg.update_parameters(model)
        ema.update_parameters(model)
    for tag, m in (("avg", avg), ("ema", ema)):
        for n, b in m.named_buffers():
            rec(f"{tag}.{n}", b)
        rec.params(tag, m)
    swam = swa.AveragedModel(model, multi_avg_fn=swa.get_swa_multi_avg_fn(), use_buffers=True)
    swam.update_parameters(model)
    rec.err("swa_multi_int", lambda: swam.update_parameters(model))


def p_avg_fn_arguments(lib, dt, rec):
    swa = lib.optim.swa_utils
    model = _net(lib, dt, 19, bn=False, hidden=3)
    seen = []

    def avg_fn(avg, cur, n):
        seen.append(
            (
                type(n).__name__,
                str(n.dtype) if hasattr(n, "dtype") else "",
                int(n),
                tuple(avg.shape),
            )
        )
        return avg + (cur - avg) / (n + 1)

    m = swa.AveragedModel(model, avg_fn=avg_fn)
    for _step in range(3):
        with lib.no_grad():
            model[0].weight.add_(1.0)
        m.update_parameters(model)
    rec("seen", str(seen).replace("torch.", ""))
    rec.params("m", m)
    out = avg_fn(m.module[0].weight, model[0].weight, m.n_averaged)
    rec("out.dtype", str(out.dtype).replace("torch.", ""))
    rec("out", out)


def p_multi_avg_fn_groups(lib, dt, rec):
    swa = lib.optim.swa_utils
    model = _net(lib, dt, 21)
    model[3].half_buf = None
    model[3].register_buffer("counter", lib.zeros(2, dtype=lib.int32))
    calls = []

    def multi(avg_list, cur_list, n):
        calls.append((len(avg_list), str(avg_list[0].dtype).replace("torch.", ""), int(n)))
        for a, c in zip(avg_list, cur_list, strict=True):
            a.copy_(a * 0.5 + c * 0.5)

    m = swa.AveragedModel(model, multi_avg_fn=multi, use_buffers=True)
    for _step in range(3):
        with lib.no_grad():
            model[3].counter.add_(3)
            for p in model.parameters():
                p.add_(0.25)
        m.update_parameters(model)
    rec("calls", str(calls))
    rec("counter", m.module[3].counter)
    rec.params("m", m)


def p_averaged_state_dict(lib, dt, rec):
    swa = lib.optim.swa_utils
    model = _net(lib, dt, 22)
    m = swa.AveragedModel(model, multi_avg_fn=swa.get_ema_multi_avg_fn(0.9))
    m.update_parameters(model)
    with lib.no_grad():
        for p in model.parameters():
            p.mul_(1.5)
    m.update_parameters(model)
    sd = m.state_dict()
    rec("keys", str(list(sd.keys())))
    rec("n_averaged", sd["n_averaged"])
    m2 = swa.AveragedModel(_net(lib, dt, 23))
    rec("load", str(m2.load_state_dict(sd)))
    rec.params("m2", m2)
    rec("n2", m2.n_averaged)
    plain = _net(lib, dt, 24)
    stripped = {k[len("module.") :]: v for k, v in sd.items() if k.startswith("module.")}
    rec("load_plain", str(plain.load_state_dict(stripped)))
    rec.err("load_prefixed", lambda: plain.load_state_dict(sd))
    r = plain.load_state_dict(sd, strict=False)
    rec("missing", str(r.missing_keys))
    rec("unexpected", str(r.unexpected_keys))
    rec("named_modules", str([n for n, _ in m.named_modules()]))


def p_manual_lerp_ema(lib, dt, rec):
    student = _net(lib, dt, 25, bn=False)
    teacher = copy.deepcopy(student)
    for p in teacher.parameters():
        p.requires_grad_(False)
    opt = lib.optim.SGD(student.parameters(), lr=0.1)
    x, y = _batch(lib, dt, 26)
    for step in range(3):
        opt.zero_grad()
        lib.nn.functional.cross_entropy(student(x), y).backward()
        opt.step()
        with lib.no_grad():
            for t, s in zip(teacher.parameters(), student.parameters(), strict=True):
                t.lerp_(s, 0.1)
            rec(f"{step}.v", teacher[0].weight._version)
        rec.params(f"{step}.t", teacher)
    with lib.no_grad():
        for t, s in zip(teacher.parameters(), student.parameters(), strict=True):
            t.lerp_(s, lib.tensor(0.3, dtype=dt))
    rec.params("tensor_w", teacher)
    w = lib.full_like(teacher[0].weight, 0.2)
    w[0] = 0.7
    with lib.no_grad():
        teacher[0].weight.lerp_(student[0].weight, w)
    rec("weight_w", teacher[0].weight)
    rec("req", str([p.requires_grad for p in teacher.parameters()]))
    rec.err("lerp_leaf", lambda: student[0].weight.lerp_(teacher[0].weight, 0.5))


def p_foreach_ema_variants(lib, dt, rec):
    student = _net(lib, dt, 27, bn=False)
    t1, t2, t3 = (copy.deepcopy(student) for _ in range(3))
    with lib.no_grad():
        for i, p in enumerate(student.parameters()):
            p.add_(_randn(lib, dt, 80 + i, *p.shape))
    decay = 0.7
    sp = list(student.parameters())
    with lib.no_grad():
        lib._foreach_lerp_(list(t1.parameters()), sp, 1 - decay)
        tp2 = list(t2.parameters())
        lib._foreach_mul_(tp2, decay)
        lib._foreach_add_(tp2, sp, alpha=1 - decay)
        tp3 = list(t3.parameters())
        lib._foreach_mul_(tp3, [decay] * len(tp3))
        lib._foreach_add_(tp3, lib._foreach_mul(sp, 1 - decay))
    rec.params("t1", t1)
    rec.params("t2", t2)
    rec.params("t3", t3)
    rec(
        "d12",
        max((a - b).abs().max() for a, b in zip(t1.parameters(), t2.parameters(), strict=True)),
    )
    with lib.no_grad():
        lib._foreach_lerp_(list(t1.parameters()), sp, list(t2.parameters()))
    rec.params("t1_tw", t1)
    with lib.no_grad():
        lib._foreach_lerp_(list(t2.parameters()), sp, [0.1, 0.2, 0.3, 0.4])
    rec.params("t2_sw", t2)
    with lib.no_grad():
        out = lib._foreach_lerp(sp, list(t3.parameters()), 0.25)
    rec("out", out[0])
    norms = lib._foreach_norm(sp)
    rec("norms", lib.stack(norms))


def p_consistency_losses(lib, dt, rec):
    F = lib.nn.functional
    s = _randn(lib, dt, 90, 6, 4).requires_grad_(True)
    t = _randn(lib, dt, 91, 6, 4)
    losses = {
        "mse_soft": F.mse_loss(s.softmax(1), t.softmax(1)),
        "mse_sum": F.mse_loss(s.softmax(1), t.softmax(1), reduction="sum") / s.shape[0],
        "kl_bm": F.kl_div(s.log_softmax(1), t.softmax(1), reduction="batchmean"),
        "kl_lt": F.kl_div(
            s.log_softmax(1), t.log_softmax(1), reduction="batchmean", log_target=True
        ),
        "kl_none": F.kl_div(s.log_softmax(1), t.log_softmax(1), reduction="none", log_target=True)
        .sum(1)
        .mean(),
        "kl_sum": F.kl_div(F.log_softmax(s, -1), F.softmax(t, -1), reduction="sum"),
        "kl_rev": F.kl_div(
            t.log_softmax(1), s.log_softmax(1), reduction="batchmean", log_target=True
        ),
        "js": 0.5
        * (
            F.kl_div(((s.softmax(1) + t.softmax(1)) / 2).log(), s.softmax(1), reduction="batchmean")
            + F.kl_div(
                ((s.softmax(1) + t.softmax(1)) / 2).log(), t.softmax(1), reduction="batchmean"
            )
        ),
        "ent": -(s.softmax(1) * s.log_softmax(1)).sum(1).mean(),
        "soft_ce": F.cross_entropy(s, t.softmax(1)),
        "klmod": lib.nn.KLDivLoss(reduction="batchmean", log_target=True)(
            s.log_softmax(1), t.log_softmax(1)
        ),
    }
    for k, v in losses.items():
        (g,) = lib.autograd.grad(v, s, retain_graph=True)
        rec(k, v)
        rec(k + ".g", g)
    rec.warns("kl_mean_warn", lambda: F.kl_div(s.log_softmax(1), t.softmax(1)))
    rec.warns("kl_mean_none", lambda: F.kl_div(s.log_softmax(1), t.softmax(1), reduction="mean"))


def p_mixmatch_sharpen(lib, dt, rec):
    F = lib.nn.functional
    model = _net(lib, dt, 31, bn=False)
    xu = _randn(lib, dt, 32, 5, 5)
    K = 2
    with lib.no_grad():
        outs = [model(xu + 0.1 * _randn(lib, dt, 33 + k, 5, 5)).softmax(1) for k in range(K)]
        p = sum(outs) / K
        T = 0.5
        pt = p ** (1 / T)
        targets_u = pt / pt.sum(dim=1, keepdim=True)
    rec("p", p)
    rec("targets_u", targets_u)
    rec("rowsum", targets_u.sum(1))
    xl, yl = _batch(lib, dt, 34, n=5)
    tl = F.one_hot(yl, 3).to(dt)
    all_x = lib.cat([xl, xu], 0)
    all_t = lib.cat([tl, targets_u], 0)
    idx = lib.randperm(all_x.size(0), generator=lib.Generator().manual_seed(35))
    lam = 0.7
    lam = max(lam, 1 - lam)
    mixed_x = lam * all_x + (1 - lam) * all_x[idx]
    mixed_t = lam * all_t + (1 - lam) * all_t[idx]
    logits = model(mixed_x)
    lx = -lib.mean(lib.sum(F.log_softmax(logits[:5], dim=1) * mixed_t[:5], dim=1))
    lu = lib.mean((lib.softmax(logits[5:], dim=1) - mixed_t[5:]) ** 2)
    loss = lx + 75 * lu
    loss.backward()
    rec("lx", lx)
    rec("lu", lu)
    rec.params("m", model, grads=True)
    rec("sharp_pow", targets_u.pow(2).div(targets_u.pow(2).sum(-1, keepdim=True)))


def _sched_params(lib, dt):
    lib.manual_seed(0)
    a = lib.nn.Linear(2, 2).to(dt)
    b = lib.nn.Linear(2, 1).to(dt)
    return a, b


def p_swalr_sequences(lib, dt, rec):
    swa = lib.optim.swa_utils
    for strategy in ("cos", "linear"):
        for epochs in (0, 1, 3, 5):
            a, b = _sched_params(lib, dt)
            opt = lib.optim.SGD(
                [{"params": a.parameters()}, {"params": b.parameters(), "lr": 0.3}], lr=0.1
            )
            sched = swa.SWALR(
                opt, swa_lr=[0.02, 0.05], anneal_epochs=epochs, anneal_strategy=strategy
            )
            lrs = [sched.get_last_lr()]
            for _ in range(7):
                opt.step()
                sched.step()
                lrs.append(sched.get_last_lr())
            rec(f"{strategy}.{epochs}", lrs)
            rec(f"{strategy}.{epochs}.groups", [g["lr"] for g in opt.param_groups])
    # the SWA recipe: cosine annealing, then SWALR from swa_start
    a, b = _sched_params(lib, dt)
    opt = lib.optim.SGD(list(a.parameters()) + list(b.parameters()), lr=0.5, momentum=0.9)
    cos = lib.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=10)
    swa_sched = swa.SWALR(opt, swa_lr=0.05, anneal_epochs=3)
    lrs = []
    for epoch in range(10):
        opt.step()
        if epoch >= 5:
            swa_sched.step()
        else:
            cos.step()
        lrs.append(opt.param_groups[0]["lr"])
    rec("recipe", lrs)
    rec("swa_lr_key", opt.param_groups[0]["swa_lr"])
    rec("initial_lr", opt.param_groups[0]["initial_lr"])


def p_swalr_state(lib, dt, rec):
    swa = lib.optim.swa_utils
    a, b = _sched_params(lib, dt)
    opt = lib.optim.Adam(a.parameters(), lr=0.01)
    sched = swa.SWALR(opt, swa_lr=0.001, anneal_epochs=4, anneal_strategy="linear")
    for _ in range(2):
        opt.step()
        sched.step()
    sd = sched.state_dict()
    rec("keys", str(sorted(sd.keys())))
    rec(
        "vals",
        str(
            {
                k: sd[k]
                for k in (
                    "anneal_epochs",
                    "_anneal_strategy",
                    "last_epoch",
                    "_step_count",
                    "base_lrs",
                    "_last_lr",
                )
            }
        ),
    )
    rec("has_anneal_func", "anneal_func" in sd)
    rec.warns("get_lr", lambda: sched.get_lr())
    a2, _ = _sched_params(lib, dt)
    opt2 = lib.optim.Adam(a2.parameters(), lr=0.01)
    s2 = swa.SWALR(opt2, swa_lr=0.5, anneal_epochs=1)
    s2.load_state_dict(sd)
    opt2.param_groups[0]["lr"] = opt.param_groups[0]["lr"]
    opt2.param_groups[0]["swa_lr"] = 0.001
    seq = []
    for _ in range(4):
        opt.step()
        sched.step()
        opt2.step()
        s2.step()
        seq.append((sched.get_last_lr()[0], s2.get_last_lr()[0]))
    rec("seq", seq)
    rec("strategy", s2._anneal_strategy)
    rec("func", s2.anneal_func.__name__)
    rec("bool_epochs", swa.SWALR(opt2, swa_lr=0.1, anneal_epochs=True).anneal_epochs)


def p_swalr_errors(lib, dt, rec):
    swa = lib.optim.swa_utils
    a, b = _sched_params(lib, dt)
    opt = lib.optim.SGD([{"params": a.parameters()}, {"params": b.parameters()}], lr=0.1)
    rec.err("strategy", lambda: swa.SWALR(opt, swa_lr=0.01, anneal_strategy="exp"))
    rec.err("strategy_none", lambda: swa.SWALR(opt, swa_lr=0.01, anneal_strategy=None))
    rec.err("epochs_neg", lambda: swa.SWALR(opt, swa_lr=0.01, anneal_epochs=-1))
    rec.err("epochs_float", lambda: swa.SWALR(opt, swa_lr=0.01, anneal_epochs=2.5))
    rec.err("epochs_str", lambda: swa.SWALR(opt, swa_lr=0.01, anneal_epochs="3"))
    rec.err("lr_len", lambda: swa.SWALR(opt, swa_lr=[0.01, 0.02, 0.03]))
    rec.err("lr_tuple", lambda: swa.SWALR(opt, swa_lr=(0.01,)))
    opt2 = lib.optim.SGD(a.parameters(), lr=0.1)
    rec.err("resume", lambda: swa.SWALR(opt2, swa_lr=0.01, last_epoch=3))
    rec.err("not_opt", lambda: swa.SWALR(a, swa_lr=0.01))
    rec.err("no_swa_lr", lambda: swa.SWALR(opt))
    s = swa.SWALR(opt2, swa_lr=0.01, anneal_epochs=2)
    rec.warns("get_lr_warn", lambda: s.get_lr())
    rec.warns("step_epoch", lambda: s.step(1))


def p_swa_errors(lib, dt, rec):
    swa = lib.optim.swa_utils
    model = _net(lib, dt, 40)
    rec.err(
        "both",
        lambda: swa.AveragedModel(
            model, avg_fn=swa.get_ema_avg_fn(), multi_avg_fn=swa.get_ema_multi_avg_fn()
        ),
    )
    rec.err("decay_hi", lambda: swa.get_ema_multi_avg_fn(1.5))
    rec.err("decay_lo", lambda: swa.get_ema_avg_fn(-0.1))
    rec.err("decay_1", lambda: swa.get_ema_avg_fn(1) and "ok")
    m = swa.AveragedModel(model, avg_fn=swa.get_ema_multi_avg_fn(0.9))
    m.update_parameters(model)
    rec.err("multi_as_avg", lambda: m.update_parameters(model))
    other = _net(lib, dt, 41, bn=False)
    m2 = swa.AveragedModel(model)
    rec.err("mismatch", lambda: m2.update_parameters(other))
    m3 = swa.AveragedModel(other)
    rec.err("mismatch_shape", lambda: m3.update_parameters(_net(lib, dt, 42, bn=False, hidden=4)))
    rec.err("no_module", lambda: swa.AveragedModel(model).update_parameters(None))
    m4 = swa.AveragedModel(model)
    rec.err("forward_kw", lambda: tuple(m4(input=_randn(lib, dt, 43, 3, 5)).shape))
    rec.err(
        "bad_avg_fn",
        lambda: (
            swa.AveragedModel(other, avg_fn=lambda a, c: a).update_parameters(other)
            or swa.AveragedModel(other, avg_fn=lambda a, c: a)
        ),
    )
    m5 = swa.AveragedModel(other, avg_fn=lambda a, c: a)
    m5.update_parameters(other)
    rec.err("bad_avg_fn2", lambda: m5.update_parameters(other))


def p_update_bn_loaders(lib, dt, rec):
    swa = lib.optim.swa_utils
    data = _randn(lib, dt, 50, 12, 5) * 2 + 1
    ys = lib.zeros(12, dtype=lib.long)
    ds = lib.utils.data.TensorDataset(data, ys)
    for tag, loader in (
        ("tuple", lib.utils.data.DataLoader(ds, batch_size=5)),
        ("tensor", [data[:4], data[4:9], data[9:]]),
        ("list", [[data[:6], ys[:6]], [data[6:], ys[6:]]]),
    ):
        model = _net(lib, dt, 51)
        model[1].momentum = 0.3
        model.eval()
        swa.update_bn(loader, model)
        rec(tag + ".mean", model[1].running_mean)
        rec(tag + ".var", model[1].running_var)
        rec(tag + ".n", model[1].num_batches_tracked)
        rec(tag + ".momentum", model[1].momentum)
        rec(tag + ".training", model.training)
    model = _net(lib, dt, 52, bn=False)
    swa.update_bn([data], model)
    rec.params("nobn", model)
    avg = swa.AveragedModel(_net(lib, dt, 53))
    swa.update_bn(lib.utils.data.DataLoader(ds, batch_size=4), avg, device="cpu")
    rec("avg.mean", avg.module[1].running_mean)
    rec("avg.var", avg.module[1].running_var)
    bn = lib.nn.BatchNorm1d(5, momentum=None).to(dt)
    swa.update_bn([data[:3], data[3:]], bn)
    rec("none.mom", str(bn.momentum))
    rec("none.mean", bn.running_mean)
    bn2 = lib.nn.BatchNorm1d(5, track_running_stats=False).to(dt)
    rec.err("no_stats", lambda: swa.update_bn([data], bn2))


def p_deepcopy_teacher(lib, dt, rec):
    model = _net(lib, dt, 54)
    opt = lib.optim.Adam(model.parameters(), lr=0.01, betas=(0.8, 0.99))
    x, y = _batch(lib, dt, 55)
    lib.nn.functional.cross_entropy(model(x), y).backward()
    opt.step()
    teacher = copy.deepcopy(model)
    opt2 = copy.deepcopy(opt)
    rec(
        "same_param",
        str([p is q for p, q in zip(teacher.parameters(), model.parameters(), strict=True)]),
    )
    rec("grad_copied", teacher[0].weight.grad)
    rec("opt2_params_are_model", opt2.param_groups[0]["params"][0] is model[0].weight)
    rec("opt2_state_keys", str(sorted(opt2.state_dict()["state"][0].keys())))
    rec("opt2_step", opt2.state_dict()["state"][0]["step"])
    opt2.step()
    rec("after_opt2", opt2.param_groups[0]["params"][0])
    rec("model_after", model[0].weight)
    teacher.load_state_dict(model.state_dict())
    rec.params("teacher", teacher)
    t2 = type(model)(*[copy.deepcopy(m) for m in model])
    rec(
        "t2_eq",
        max((a - b).abs().max() for a, b in zip(t2.parameters(), model.parameters(), strict=True)),
    )
    opt.zero_grad(set_to_none=False)
    rec("zeroed", model[0].weight.grad.abs().sum())
    rec("teacher_grad_kept", teacher[0].weight.grad is None)


def p_swa_train_loop(lib, dt, rec):
    swa = lib.optim.swa_utils
    F = lib.nn.functional
    model = _net(lib, dt, 56)
    opt = lib.optim.SGD(model.parameters(), lr=0.2, momentum=0.9, weight_decay=1e-4)
    sched = lib.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=6)
    swa_model = swa.AveragedModel(model)
    swa_sched = swa.SWALR(opt, swa_lr=0.05, anneal_epochs=2, anneal_strategy="linear")
    data = _randn(lib, dt, 57, 16, 5)
    ys = (data[:, 0] > 0).long() + (data[:, 1] > 0.5).long()
    ds = lib.utils.data.TensorDataset(data, ys)
    loader = lib.utils.data.DataLoader(ds, batch_size=8, shuffle=False)
    for epoch in range(6):
        for xb, yb in loader:
            opt.zero_grad()
            F.cross_entropy(model(xb), yb).backward()
            opt.step()
        if epoch >= 3:
            swa_model.update_parameters(model)
            swa_sched.step()
        else:
            sched.step()
        rec(f"{epoch}.lr", opt.param_groups[0]["lr"])
    swa.update_bn(loader, swa_model)
    rec.params("swa", swa_model)
    rec("bn.mean", swa_model.module[1].running_mean)
    rec("bn.var", swa_model.module[1].running_var)
    swa_model.eval()
    rec("pred", swa_model(data))
    rec("n", swa_model.n_averaged)


def p_distill_temperature(lib, dt, rec):
    F = lib.nn.functional
    teacher = _net(lib, dt, 58, bn=False, hidden=9)
    student = _net(lib, dt, 59, bn=False, hidden=4)
    teacher.eval()
    opt = lib.optim.SGD(student.parameters(), lr=0.1)
    x, y = _batch(lib, dt, 60)
    T = 3.0
    for step in range(3):
        with lib.no_grad():
            t_logits = teacher(x)
        s_logits = student(x)
        soft = F.kl_div(
            F.log_softmax(s_logits / T, dim=-1),
            F.softmax(t_logits / T, dim=-1),
            reduction="batchmean",
        ) * (T * T)
        hard = F.cross_entropy(s_logits, y)
        loss = 0.7 * soft + 0.3 * hard
        opt.zero_grad()
        loss.backward()
        opt.step()
        rec(f"{step}.soft", soft)
        rec(f"{step}.hard", hard)
    rec.params("student", student)


def p_ema_warmup_decay(lib, dt, rec):
    model = _net(lib, dt, 61, bn=False)
    ema = copy.deepcopy(model).requires_grad_(False)
    x, y = _batch(lib, dt, 62)
    opt = lib.optim.RMSprop(model.parameters(), lr=0.01)
    for step in range(5):
        opt.zero_grad()
        lib.nn.functional.cross_entropy(model(x), y).backward()
        opt.step()
        decay = min(0.999, (1 + step) / (10 + step))
        with lib.no_grad():
            msd = model.state_dict()
            for k, v in ema.state_dict().items():
                if v.dtype.is_floating_point:
                    v.mul_(decay).add_(msd[k].detach(), alpha=1 - decay)
        rec(f"{step}.decay", decay)
    rec.params("ema", ema)
    rec("ema_out", ema(x))


def p_foreach_errors(lib, dt, rec):
    a = [lib.ones(2, dtype=dt), lib.ones(3, dtype=dt)]
    b = [lib.zeros(2, dtype=dt), lib.zeros(3, dtype=dt)]
    rec.err("len", lambda: lib._foreach_lerp_(a, b[:1], 0.5))
    rec.err("shape", lambda: lib._foreach_lerp_(a, b[::-1], 0.5))
    rec.err("weights_len", lambda: lib._foreach_lerp_(a, b, [0.5]))
    rec.err("add_len", lambda: lib._foreach_add_(a, b[:1]))
    rec.err("mul_list_len", lambda: lib._foreach_mul_(a, [1.0]))
    rec.err("empty", lambda: lib._foreach_lerp_([], [], 0.5))
    rec.err(
        "int_lerp",
        lambda: lib._foreach_lerp_(
            [lib.ones(2, dtype=lib.long)], [lib.ones(2, dtype=lib.long)], 0.5
        ),
    )
    rec.err(
        "dtype_mix",
        lambda: lib._foreach_lerp_(
            a, [x.float() if dt == lib.float64 else x.double() for x in b], 0.5
        ),
    )
    rec.err("lerp_mix", lambda: a[0].lerp_(b[0].to(lib.float16), 0.5))
    rec.err("lerp_w_dtype", lambda: a[0].lerp(b[0], lib.tensor(0.5, dtype=lib.float16)))
    rec("ok", lib._foreach_lerp(a, b, 0.25)[1])


def p_half_ema(lib, dt, rec):
    swa = lib.optim.swa_utils
    for half in (lib.float16, lib.bfloat16):
        model = _net(lib, dt, 63, bn=False).to(half)
        ema = swa.AveragedModel(model, multi_avg_fn=swa.get_ema_multi_avg_fn(0.9))
        ema2 = copy.deepcopy(model)
        for step in range(3):
            with lib.no_grad():
                for i, p in enumerate(model.parameters()):
                    p.add_(_randn(lib, dt, 64 + 10 * step + i, *p.shape).to(half))
                for e, p in zip(ema2.parameters(), model.parameters(), strict=True):
                    e.lerp_(p, 0.1)
                    e.lerp_(p, 0.75)
            ema.update_parameters(model)
        rec.params(f"{half}.ema", ema)
        rec.params(f"{half}.ema2", ema2)
        swam = swa.AveragedModel(model)
        for _ in range(3):
            swam.update_parameters(model)
            with lib.no_grad():
                model[0].weight.mul_(1.1)
        rec.params(f"{half}.swa", swam)


def p_inference_teacher(lib, dt, rec):
    F = lib.nn.functional
    teacher = _net(lib, dt, 70, bn=False)
    student = _net(lib, dt, 71, bn=False)
    x = _randn(lib, dt, 72, 4, 5)
    with lib.inference_mode():
        t_out = teacher(x)
    rec("is_inf", t_out.is_inference())
    s_out = student(x)
    rec.err("mse_inference", lambda: F.mse_loss(s_out, t_out).backward())
    loss = F.mse_loss(s_out, t_out.clone())
    loss.backward()
    rec("g", student[0].weight.grad)
    rec.err(
        "soft_inference",
        lambda: F.kl_div(s_out.log_softmax(1), t_out.softmax(1), reduction="batchmean"),
    )
    rec.err("inplace_inference", lambda: t_out.mul_(2))
    with lib.no_grad():
        t2 = teacher(x)
    rec("nograd_req", t2.requires_grad)
    rec("detach_req", teacher(x).detach().requires_grad)
    rec.err("inf_param_update", lambda: _inf_update(lib, teacher, student))


def _inf_update(lib, teacher, student):
    with lib.inference_mode():
        for t, s in zip(teacher.parameters(), student.parameters(), strict=True):
            t.lerp_(s, 0.5)
    return "done"


def p_flexmatch_thresholds(lib, dt, rec):
    C = 4
    logits = _randn(lib, dt, 73, 20, C) * 2
    probs = logits.softmax(-1)
    max_probs, pseudo = probs.max(dim=-1)
    rec("repr_type", type(probs.max(dim=-1)).__name__)
    selected = max_probs > 0.6
    counts = lib.bincount(pseudo[selected], minlength=C)
    rec("counts", counts)
    learning = counts.to(dt) / counts.max().clamp(min=1)
    warm = counts.to(dt) / lib.clamp(counts.sum(), min=1)
    rec("learning", learning)
    rec("warm", warm)
    thresh = 0.95 * (learning / (2 - learning))
    rec("thresh", thresh)
    mask = max_probs.ge(thresh[pseudo]).to(dt)
    rec("mask", mask)
    rec("mask_where", lib.where(max_probs > thresh[pseudo], 1.0, 0.0))
    p_model = probs.mean(0)
    p_target = lib.ones(C, dtype=dt) / C
    aligned = probs * p_target / p_model
    aligned = aligned / aligned.sum(dim=-1, keepdim=True)
    rec("aligned", aligned)
    tsa = lib.exp(lib.tensor((0.3 - 1) * 5, dtype=dt))
    rec("tsa", tsa)
    top2 = probs.topk(2, dim=-1)
    rec("margin", top2.values[:, 0] - top2.values[:, 1])
    ema_p = lib.zeros(C, dtype=dt)
    for k in range(3):
        ema_p.mul_(0.999).add_(probs[k::3].mean(0), alpha=0.001)
    rec("ema_p", ema_p)
    onehot = lib.zeros_like(probs).scatter_(1, pseudo.unsqueeze(1), 1.0)
    rec("onehot", onehot)


def p_sequential_swalr(lib, dt, rec):
    swa = lib.optim.swa_utils
    a, b = _sched_params(lib, dt)
    opt = lib.optim.SGD(a.parameters(), lr=0.4)
    s1 = lib.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=4)
    s2 = swa.SWALR(opt, swa_lr=0.01, anneal_epochs=3)
    seq = lib.optim.lr_scheduler.SequentialLR(opt, [s1, s2], milestones=[4])
    lrs = []
    for _ in range(9):
        opt.step()
        seq.step()
        lrs.append(seq.get_last_lr()[0])
    rec("seq", lrs)
    a, b = _sched_params(lib, dt)
    opt = lib.optim.SGD(a.parameters(), lr=0.4)
    c1 = lib.optim.lr_scheduler.ExponentialLR(opt, gamma=0.9)
    c2 = swa.SWALR(opt, swa_lr=0.05, anneal_epochs=4, anneal_strategy="linear")
    ch = lib.optim.lr_scheduler.ChainedScheduler([c1, c2])
    lrs = []
    for _ in range(6):
        opt.step()
        ch.step()
        lrs.append(opt.param_groups[0]["lr"])
    rec("chained", lrs)
    a, b = _sched_params(lib, dt)
    opt = lib.optim.SGD(a.parameters(), lr=lib.tensor(0.4, dtype=lib.float64))
    s = swa.SWALR(opt, swa_lr=0.1, anneal_epochs=2)
    lrs = []
    for _ in range(4):
        opt.step()
        s.step()
        lr = opt.param_groups[0]["lr"]
        lrs.append(lr)
        rec("tensor_lr_type", type(lr).__name__)
    rec("tensor_lrs", lib.stack(lrs))
    rec("last_type", type(s.get_last_lr()[0]).__name__)


def p_dropout_noisy_student(lib, dt, rec):
    F = lib.nn.functional
    lib.manual_seed(74)
    student = lib.nn.Sequential(
        lib.nn.Linear(5, 8), lib.nn.ReLU(), lib.nn.Dropout(0.3), lib.nn.Linear(8, 3)
    ).to(dt)
    teacher = copy.deepcopy(student).eval()
    x = _randn(lib, dt, 75, 6, 5)
    with lib.no_grad():
        soft = teacher(x).softmax(-1)
    opt = lib.optim.SGD(student.parameters(), lr=0.2)
    lib.manual_seed(76)
    for step in range(3):
        opt.zero_grad()
        out = student(x)
        loss = F.cross_entropy(out, soft)
        loss.backward()
        opt.step()
        rec(f"{step}.loss", loss)
    rec.params("student", student)
    rec("teacher_training", str([m.training for m in teacher.modules()]))


def p_averaged_io(lib, dt, rec):
    import io

    swa = lib.optim.swa_utils
    model = _net(lib, dt, 77)
    m = swa.AveragedModel(model, use_buffers=True)
    m.update_parameters(model)
    m.update_parameters(model)
    buf = io.BytesIO()
    lib.save(m.state_dict(), buf)
    buf.seek(0)
    sd = lib.load(buf, weights_only=True)
    rec("keys", str(list(sd)))
    rec("n", sd["n_averaged"])
    h = copy.deepcopy(m).half()
    rec("half_n_dtype", str(h.n_averaged.dtype).replace("torch.", ""))
    rec("half_w_dtype", str(h.module[0].weight.dtype).replace("torch.", ""))
    m2 = swa.AveragedModel(model, device="cpu")
    rec("dev", str(m2.n_averaged.device))
    rec("copy_n", copy.deepcopy(m).n_averaged)
    tied = lib.nn.Sequential(lib.nn.Linear(3, 3), lib.nn.Linear(3, 3)).to(dt)
    tied[1].weight = tied[0].weight
    mt = swa.AveragedModel(tied)
    rec("tied_count", len(list(mt.parameters())))
    rec("tied_shared", mt.module[0].weight is mt.module[1].weight)
    with lib.no_grad():
        tied[0].weight.add_(1.0)
    mt.update_parameters(tied)
    mt.update_parameters(tied)
    rec.params("tied", mt)
    rec("sd_keys_tied", str(list(mt.state_dict().keys())))


def p_foreach_mixed(lib, dt, rec):
    other = lib.float32 if dt == lib.float64 else lib.float64
    xs = [_randn(lib, dt, 100, 3), _randn(lib, other, 101, 2, 2), _randn(lib, dt, 102, 4)[::2]]
    ys = [_randn(lib, dt, 103, 3), _randn(lib, other, 104, 2, 2), _randn(lib, dt, 105, 2)]
    lib._foreach_lerp_(xs, ys, 0.3)
    rec("lerp_mixed", lib.cat([x.double().flatten() for x in xs]))
    lib._foreach_mul_(xs, lib.tensor(0.5, dtype=dt))
    rec("mul_t", lib.cat([x.double().flatten() for x in xs]))
    rec("dtypes", str([str(x.dtype) for x in xs]).replace("torch.", ""))
    base = _randn(lib, dt, 106, 6)
    view = base[1::2]
    lib._foreach_add_([view], [lib.ones(3, dtype=dt)], alpha=2)
    rec("base", base)
    rec.err(
        "f32_plus_f64",
        lambda: lib._foreach_add_(
            [lib.ones(2, dtype=lib.float32)], [lib.ones(2, dtype=lib.float64)]
        ),
    )
    rec.err(
        "int_plus_float",
        lambda: lib._foreach_add_([lib.ones(2, dtype=lib.long)], [lib.ones(2, dtype=dt)]),
    )
    rec.err("mul_int_by_float", lambda: lib._foreach_mul_([lib.ones(2, dtype=lib.long)], 0.5))
    leaf = lib.ones(3, dtype=dt, requires_grad=True)
    rec.err("leaf", lambda: lib._foreach_lerp_([leaf], [lib.zeros(3, dtype=dt)], 0.5))
    rec.err("leaf_mul", lambda: lib._foreach_mul_([leaf], 0.5))
    a = _randn(lib, dt, 107, 4).requires_grad_(True)
    b = _randn(lib, dt, 108, 4).requires_grad_(True)
    (out,) = lib._foreach_lerp([a], [b], 0.25)
    (out * lib.arange(4, dtype=dt)).sum().backward()
    rec("ga", a.grad)
    rec("gb", b.grad)
    (o2,) = lib._foreach_mul([a], [b])
    (o3,) = lib._foreach_add([o2], [a], alpha=3)
    g = lib.autograd.grad(o3.sum(), [a, b])
    rec("g_mul_add", lib.stack(g))
    same = lib.ones(2, dtype=dt)
    lib._foreach_add_([same, same], [lib.ones(2, dtype=dt), lib.ones(2, dtype=dt)])
    rec("same_twice", same)


def p_update_bn_errors(lib, dt, rec):
    swa = lib.optim.swa_utils
    model = _net(lib, dt, 110)
    data = _randn(lib, dt, 111, 6, 5)
    rec.err("dict_batch", lambda: swa.update_bn([{"x": data}], model))
    rec("after_dict.mean", model[1].running_mean)
    rec("after_dict.mom", model[1].momentum)
    rec("after_dict.training", model.training)
    rec.err("bad_shape", lambda: swa.update_bn([data[:, :4]], model))
    rec.err("one_sample", lambda: swa.update_bn([data[:1]], model))
    rec.err("tuple_empty", lambda: swa.update_bn([()], model))
    rec.err("gen", lambda: swa.update_bn((d for d in [data]), model))
    rec("gen.mean", model[1].running_mean)
    rec.err("wrong_dtype", lambda: swa.update_bn([data.to(lib.float16)], model))


def p_masked_losses(lib, dt, rec):
    F = lib.nn.functional
    logits_w = _randn(lib, dt, 112, 6, 4)
    logits_s = _randn(lib, dt, 113, 6, 4).requires_grad_(True)
    probs = logits_w.softmax(-1)
    for thr in (0.0, 0.5, 1.1):
        conf, pl = probs.max(-1)
        mask = conf.ge(thr)
        ce = F.cross_entropy(logits_s, pl, reduction="none")
        l1 = (ce * mask.float()).mean()
        l2 = (ce * mask).sum() / mask.sum().clamp(min=1)
        l3 = ce[mask].mean()
        rec(f"{thr}.mask_mean", mask.float().mean())
        rec(f"{thr}.l1", l1)
        rec(f"{thr}.l2", l2)
        rec(f"{thr}.l3", l3)
        rec(f"{thr}.g", lib.autograd.grad(l1 + l2, logits_s)[0])
    empty = lib.zeros(0, 4, dtype=dt)
    rec("empty_mask_mean", empty.max(-1).values.ge(0.5).float().mean())
    rec("empty_ce", F.cross_entropy(empty, lib.zeros(0, dtype=lib.long), reduction="none"))
    rec("empty_ce_mean", F.cross_entropy(empty, lib.zeros(0, dtype=lib.long)))
    hard = lib.where(probs > 0.4, 1.0, 0.0)
    rec("hard", hard)
    rec("soft_sharp_T0", (probs ** (1 / 1e-3)).sum(-1))
    ls = F.cross_entropy(logits_s, probs.argmax(-1), label_smoothing=0.2, reduction="none")
    rec("ls", ls)
    rec("ent", lib.distributions.Categorical(logits=logits_w).entropy())
    rec("ent_probs", lib.distributions.Categorical(probs=probs).entropy())
    rec(
        "kl_cat",
        lib.distributions.kl_divergence(
            lib.distributions.Categorical(logits=logits_w),
            lib.distributions.Categorical(logits=logits_s.detach()),
        ),
    )


def p_functional_ema(lib, dt, rec):
    model = _net(lib, dt, 114, bn=False)
    ema_params = {k: v.detach().clone() for k, v in model.named_parameters()}
    x, y = _batch(lib, dt, 115)
    opt = lib.optim.SGD(model.parameters(), lr=0.2, momentum=0.5)
    for _step in range(3):
        opt.zero_grad()
        lib.nn.functional.cross_entropy(model(x), y).backward()
        opt.step()
        with lib.no_grad():
            names = list(ema_params)
            lib._foreach_lerp_(
                [ema_params[n] for n in names],
                [dict(model.named_parameters())[n] for n in names],
                0.2,
            )
    out = lib.func.functional_call(model, ema_params, (x,))
    rec("ema_out", out)
    rec("model_out", model(x))
    vec = lib.nn.utils.parameters_to_vector(ema_params.values())
    rec("vec", vec)
    other = copy.deepcopy(model)
    lib.nn.utils.vector_to_parameters(vec, other.parameters())
    rec("copied", other(x))
    rec("dist", (lib.nn.utils.parameters_to_vector(model.parameters()) - vec).norm())


def p_parametrized_ema(lib, dt, rec):
    swa = lib.optim.swa_utils
    lib.manual_seed(116)
    model = lib.nn.Sequential(lib.nn.Linear(4, 3), lib.nn.Tanh(), lib.nn.Linear(3, 2)).to(dt)
    lib.nn.utils.parametrizations.weight_norm(model[0])
    ema = swa.AveragedModel(model, multi_avg_fn=swa.get_ema_multi_avg_fn(0.5))
    rec("names", str([n for n, _ in ema.named_parameters()]))
    x = _randn(lib, dt, 117, 5, 4)
    opt = lib.optim.Adam(model.parameters(), lr=0.05)
    for _step in range(3):
        opt.zero_grad()
        model(x).pow(2).mean().backward()
        opt.step()
        ema.update_parameters(model)
    rec.params("ema", ema)
    rec("ema_w", ema.module[0].weight)
    rec("ema_out", ema(x))
    rec("keys", str(list(ema.state_dict())))
    calls = []
    model[2].register_forward_hook(lambda m, i, o: calls.append(tuple(o.shape)))
    ema2 = swa.AveragedModel(model)
    ema2(x)
    rec("hook_copied", str(calls))


def p_ignore_index_pseudo(lib, dt, rec):
    F = lib.nn.functional
    logits_w = _randn(lib, dt, 120, 8, 5)
    logits_s = _randn(lib, dt, 121, 8, 5).requires_grad_(True)
    conf, pl = logits_w.softmax(-1).max(1)
    for thr, ignore in ((0.35, -1), (0.9, -100), (2.0, -1)):
        target = pl.clone()
        target[conf < thr] = ignore
        rec(f"{thr}.target", target)
        loss = F.cross_entropy(logits_s, target, ignore_index=ignore)
        rec(f"{thr}.mean", loss)
        rec(f"{thr}.none", F.cross_entropy(logits_s, target, ignore_index=ignore, reduction="none"))
        rec(f"{thr}.sum", F.cross_entropy(logits_s, target, ignore_index=ignore, reduction="sum"))
        rec(
            f"{thr}.ls", F.cross_entropy(logits_s, target, ignore_index=ignore, label_smoothing=0.1)
        )
        if not lib.isnan(loss):
            rec(f"{thr}.g", lib.autograd.grad(loss, logits_s)[0])
    rec.err("bad_target", lambda: F.cross_entropy(logits_s, pl - 1))
    rec.err("onehot_neg", lambda: F.one_hot(pl - 1, 5))
    rec("onehot_auto", F.one_hot(pl))
    rec.warns("softmax_implicit", lambda: F.softmax(logits_w))
    rec.warns("log_softmax_implicit", lambda: F.log_softmax(logits_w))
    rec("implicit", F.softmax(logits_w) - logits_w.softmax(1))
    rec("keepdim", lib.max(logits_w.softmax(1), 1, keepdim=True).values)
    noise = lib.rand(8, 5, generator=lib.Generator().manual_seed(122), dtype=dt)
    drop = lib.bernoulli(
        lib.full((8, 5), 0.7, dtype=dt), generator=lib.Generator().manual_seed(123)
    )
    rec("noise", noise)
    rec("drop", drop)


def _cnn(lib, dt, seed):
    lib.manual_seed(seed)
    nn = lib.nn
    return nn.Sequential(
        nn.Conv2d(1, 4, 3, padding=1, bias=False),
        nn.BatchNorm2d(4),
        nn.ReLU(),
        nn.AdaptiveAvgPool2d(2),
        nn.Flatten(),
        nn.Linear(16, 3),
    ).to(dt)


def _strong_aug(lib, x, gen):
    """A flip of half the batch and a random 1-pixel shift (pad, then crop)."""
    flip = lib.rand(x.shape[0], generator=gen, dtype=x.dtype) < 0.5
    x = lib.where(flip[:, None, None, None], x.flip(-1), x)
    padded = lib.nn.functional.pad(x, (1, 1, 1, 1), mode="reflect")
    i, j = lib.randint(0, 3, (2,), generator=gen).tolist()
    return padded[..., i : i + x.shape[-2], j : j + x.shape[-1]]


def p_fixmatch_loaders(lib, dt, rec):
    F = lib.nn.functional
    swa = lib.optim.swa_utils
    model = _cnn(lib, dt, 130)
    ema = swa.AveragedModel(model, multi_avg_fn=swa.get_ema_multi_avg_fn(0.9), use_buffers=True)
    opt = lib.optim.SGD(model.parameters(), lr=0.05, momentum=0.9, nesterov=True)
    sched = lib.optim.lr_scheduler.LambdaLR(opt, lambda s: max(0.0, 1 - s / 10))
    xl = _randn(lib, dt, 131, 6, 1, 6, 6)
    yl = lib.randint(0, 3, (6,), generator=lib.Generator().manual_seed(132))
    xu = _randn(lib, dt, 133, 10, 1, 6, 6)
    ds_l = lib.utils.data.TensorDataset(xl, yl)
    ds_u = lib.utils.data.TensorDataset(xu)
    gl, gu = lib.Generator().manual_seed(134), lib.Generator().manual_seed(135)
    dl_l = lib.utils.data.DataLoader(ds_l, batch_size=4, shuffle=True, generator=gl, drop_last=True)
    dl_u = lib.utils.data.DataLoader(ds_u, batch_size=4, shuffle=True, generator=gu)
    it_l, it_u = iter(dl_l), iter(dl_u)
    aug = lib.Generator().manual_seed(136)
    for step in range(5):
        try:
            bx, by = next(it_l)
        except StopIteration:
            it_l = iter(dl_l)
            bx, by = next(it_l)
        try:
            (ub,) = next(it_u)
        except StopIteration:
            it_u = iter(dl_u)
            (ub,) = next(it_u)
        weak = ub.flip(-1)
        strong = _strong_aug(lib, ub, aug)
        inputs = lib.cat([bx, weak, strong])
        logits = model(inputs)
        lx, lw, ls = logits.split([bx.shape[0], ub.shape[0], ub.shape[0]])
        probs = lw.detach().softmax(-1)
        conf, pl = probs.max(-1)
        mask = conf.ge(0.4).float()
        loss = F.cross_entropy(lx, by) + (F.cross_entropy(ls, pl, reduction="none") * mask).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
        sched.step()
        ema.update_parameters(model)
        rec(f"{step}.loss", loss)
        rec(f"{step}.mask", mask)
        rec(f"{step}.lr", sched.get_last_lr()[0])
    rec.params("model", model)
    rec.params("ema", ema)
    for n, b in ema.named_buffers():
        rec("ebuf." + n, b)
    ema.eval()
    rec("ema_out", ema(xu))
