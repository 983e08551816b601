"""Session 34 (helper nnutils): torch.nn.utils programs written the way users write them in torch,
run under torch and minitorch with the same seeds and compared record by record: parametrize
(register_parametrization of a symmetric map, right_inverse to one tensor and to a sequence,
chained parametrizations, cached() and its call counts, unsafe, buffers, the Parametrized*
class, state_dict keys, SGD through the parametrization, remove_parametrizations with
leave_parametrized True/False, the registration errors); parametrizations.orthogonal
(matrix_exp, cayley, householder, use_trivialization=False, tall/wide/batched, gradients),
spectral_norm (power iterations, train/eval, conv weights, _u/_v) and weight_norm (dims, None);
the legacy weight_norm/spectral_norm hooks (weight_g/weight_v, weight_orig/weight_u/weight_v
keys, removal, double registration, state_dict round trips, a pre-version-1 spectral-norm
checkpoint whose v is solved from the saved weight); double backward through every
reparametrization; prune (l1_unstructured, random_unstructured/structured under a seed,
ln_structured with n=2/1/inf, global_unstructured with importance_scores and a custom threshold
method, custom_from_mask, identity, PruningContainer, remove, is_pruned, dtype changes, the
amount errors); fusion (fuse_conv_bn_eval plain/bias-free/transposed/grouped/1-d,
fuse_linear_bn_eval incl. a 1-feature BatchNorm, fuse_*_weights, the eval-only assertions);
clip_grad_norm_ (foreach None/False/ True, norm types 1, 2, 3.5, inf, -inf, "fro"'s error,
error_if_nonfinite with NaN and inf), clip_grad_value_, get_total_norm / clip_grads_with_norm_
(split clipping, total norms that are no 0-d tensor); parameters_to_vector /
vector_to_parameters; func.functional_call with tied weights, several dicts, strict, and over
modules reparametrized by parametrize, prune and the legacy hooks;
convert_conv2d/3d_weight_memory_format; the deprecation warnings. float64 must agree to 1e-10 of
each record's scale, float32 to 1e-4; texts exactly.

Found and fixed:
- clip_grads_with_norm_ (and so clip_grad_norm_) multiplied every gradient by the clip
  coefficient tensor by tensor on every path, so a total_norm that is no 0-d tensor broadcast
  (or raised a broadcast error); torch scales each device's gradients by _foreach_mul_ unless
  foreach=False and raises "scalar tensor expected to be 0 dim but it has 1 dimensions and 1
  elements." (nn/utils/clip_grad.py; foreach=False keeps the per-tensor mul_).

Known and left (documented):
- minitorch has no complex dtypes: orthogonal of complex weights and clip_grad_norm_ of complex
  gradients (which torch supports) are not recorded; the programs use batched real matrices.
- No sparse tensors: clip_grad_norm_ of a sparse gradient (torch's NotImplementedError for
  linalg_vector_norm on SparseCPU) is not recorded.
- nn.utils.stateless.functional_call accepts a tuple of dicts (documented difference; torch's
  deprecated wrapper fails with "'tuple' object has no attribute 'keys'").
- orthogonal of a rank-deficient square weight (e.g. all ones): torch and minitorch both scale
  Q by sgn(diag(R)) of geqrf, whose zero pivots come out 0 or ~1e-17 by rounding, so the
  columns kept differ; not recorded (singular pivots). Likewise a legacy spectral-norm
  checkpoint of a wide weight solves v through pinverse of a singular W^T W (float32 gives
  rounding-decided values, minitorch NaN): the program uses a tall weight.
- fuse_conv_bn_eval(transpose=True) of a grouped ConvTranspose fails in torch too (its scale
  is laid over dim 1 of all out_channels); recorded as torch's broadcast error.
- torch.nn.utils.prune needs `import torch.nn.utils.prune`; minitorch also exposes it as an
  attribute of nn.utils. The programs import it by module path.
- The records run on the CPU only; the strict test device and CuPy are not exercised here."""

from __future__ import annotations

import importlib

import pytest

from tests.reference._one_thread import one_torch_thread  # noqa: F401 - an autouse fixture
from tests.reference._programs import assert_program_matches
from tests.reference._programs import seeded_randn as _randn

torch = pytest.importorskip("torch")


PROGRAMS = [
    "param_symmetric", "param_right_inverse", "param_cached", "param_orthogonal",
    "param_spectral", "param_weight_norm", "param_remove", "param_errors",
    "legacy_weight_norm", "legacy_spectral_norm", "prune_l1", "prune_random",
    "prune_ln_structured", "prune_global", "prune_custom_mask", "prune_errors",
    "fuse_conv_bn", "fuse_linear_bn", "clip_norm", "clip_norm_inf", "clip_nonfinite",
    "clip_value", "total_norm", "vec_params", "functional_call", "functional_call_errors",
    "memory_format", "prune_custom_method", "legacy_sn_checkpoint", "param_double_backward",
    "fuse_grouped", "orth_batch", "reparam_functional_call", "deprecations", "clip_norm_shapes",
]  # fmt: skip


@pytest.mark.parametrize("dt", ["float64", "float32"])
@pytest.mark.parametrize("name", PROGRAMS)
def test_program_matches_torch(name, dt):
    assert_program_matches(globals()["p_" + name], torch, dt)


def _linear(lib, dt, seed, i, o, bias=True):
    lib.manual_seed(seed)
    return lib.nn.Linear(i, o, bias=bias).to(dt)


# --- parametrize ---


def p_param_symmetric(lib, dt, rec):
    P = lib.nn.utils.parametrize

    class Symmetric(lib.nn.Module):
        def forward(self, X):
            return X.triu() + X.triu(1).transpose(-1, -2)

    m = _linear(lib, dt, 0, 4, 4)
    P.register_parametrization(m, "weight", Symmetric())
    rec("is_param", str(P.is_parametrized(m)))
    rec("is_param_w", str(P.is_parametrized(m, "weight")))
    rec("is_param_b", str(P.is_parametrized(m, "bias")))
    rec("w", m.weight)
    rec("orig", m.parametrizations.weight.original)
    rec("names", str([n for n, _ in m.named_parameters()]))
    rec("sd", str(list(m.state_dict().keys())))
    rec("cls", type(m).__name__)
    x = _randn(lib, dt, 1, 3, 4)
    m(x).pow(2).sum().backward()
    rec("g", m.parametrizations.weight.original.grad)
    rec("gb", m.bias.grad)
    opt = lib.optim.SGD(m.parameters(), lr=0.1)
    opt.step()
    rec("w2", m.weight)
    rec("sym", m.weight - m.weight.T)


def p_param_right_inverse(lib, dt, rec):
    P = lib.nn.utils.parametrize

    class Exp(lib.nn.Module):
        def forward(self, X):
            return X.exp()

        def right_inverse(self, Y):
            return Y.log()

    class Split(lib.nn.Module):
        def forward(self, a, b):
            return a + b

        def right_inverse(self, X):
            return X * 0.25, X * 0.75

    m = _linear(lib, dt, 1, 3, 2)
    with lib.no_grad():
        m.weight.abs_().add_(0.1)
    w0 = m.weight.detach().clone()
    P.register_parametrization(m, "weight", Exp())
    rec("orig", m.parametrizations.weight.original)
    rec("w", m.weight - w0)
    m.weight = w0 * 2
    rec("orig2", m.parametrizations.weight.original)
    rec("w2", m.weight)
    m2 = _linear(lib, dt, 2, 3, 2)
    P.register_parametrization(m2, "bias", Split())
    rec("o0", m2.parametrizations.bias.original0)
    rec("o1", m2.parametrizations.bias.original1)
    rec("b", m2.bias)
    rec("names", str(sorted(m2.state_dict().keys())))
    m2(_randn(lib, dt, 3, 5, 3)).sum().backward()
    rec("g0", m2.parametrizations.bias.original0.grad)
    rec("g1", m2.parametrizations.bias.original1.grad)
    # chained parametrizations
    P.register_parametrization(m, "weight", Exp())
    rec("chain", m.weight)
    rec("nparam", str(len(m.parametrizations.weight)))


def p_param_cached(lib, dt, rec):
    P = lib.nn.utils.parametrize
    calls = []

    class Scale(lib.nn.Module):
        def forward(self, X):
            calls.append(1)
            return X * 3

    m = _linear(lib, dt, 3, 4, 4)
    P.register_parametrization(m, "weight", Scale())
    x = _randn(lib, dt, 4, 2, 4)
    with P.cached():
        y = m(x) + m(x)
        w1 = m.weight
        w2 = m.weight
        rec("same", str(w1 is w2))
    rec("calls", str(len(calls)))
    y.sum().backward()
    rec("g", m.parametrizations.weight.original.grad)
    calls.clear()
    m(x)
    m(x)
    rec("calls2", str(len(calls)))


def p_param_orthogonal(lib, dt, rec):
    PZ = lib.nn.utils.parametrizations
    for shape, kw in (
        ((5, 3), {}),
        ((3, 5), {}),
        ((4, 4), {"orthogonal_map": "cayley"}),
        ((4, 4), {"orthogonal_map": "householder"}),
        ((5, 3), {"orthogonal_map": "householder"}),
        ((4, 4), {"use_trivialization": False}),
    ):
        lib.manual_seed(5)
        m = lib.nn.Linear(shape[1], shape[0]).to(dt)
        PZ.orthogonal(m, **kw)
        w = m.weight
        tag = f"{shape}{sorted(kw.items())}"
        rec(tag + ".w", w)
        k = min(shape)
        eye = lib.eye(k, dtype=dt)
        gram = w.T @ w if shape[0] >= shape[1] else w @ w.T
        rec(tag + ".orth", gram - eye)
        m(_randn(lib, dt, 6, 2, shape[1])).pow(2).sum().backward()
        orig = m.parametrizations.weight.original
        rec(tag + ".g", orig.grad)
        rec(tag + ".sd", str(sorted(m.state_dict().keys())))


def p_param_spectral(lib, dt, rec):
    PZ = lib.nn.utils.parametrizations
    lib.manual_seed(7)
    m = lib.nn.Linear(5, 4).to(dt)
    PZ.spectral_norm(m, n_power_iterations=3)
    rec("sd", str(sorted(m.state_dict().keys())))
    rec("u", m.parametrizations.weight[0]._u)
    rec("v", m.parametrizations.weight[0]._v)
    for i in range(3):
        w = m.weight
        rec(f"w{i}", w)
        rec(f"sv{i}", lib.linalg.matrix_norm(w, ord=2))
    m.eval()
    rec("w_eval", m.weight)
    m.train()
    m(_randn(lib, dt, 8, 3, 5)).sum().backward()
    rec("g", m.parametrizations.weight.original.grad)
    lib.manual_seed(8)
    c = lib.nn.Conv2d(2, 3, 3).to(dt)
    PZ.spectral_norm(c, dim=0, eps=1e-8)
    rec("cw", c.weight)
    rec("cu", c.parametrizations.weight[0]._u)


def p_param_weight_norm(lib, dt, rec):
    PZ = lib.nn.utils.parametrizations
    lib.manual_seed(9)
    m = lib.nn.Linear(4, 3).to(dt)
    w0 = m.weight.detach().clone()
    PZ.weight_norm(m)
    rec("sd", str(sorted(m.state_dict().keys())))
    rec("g", m.parametrizations.weight.original0)
    rec("v", m.parametrizations.weight.original1)
    rec("w", m.weight - w0)
    m(_randn(lib, dt, 10, 2, 4)).pow(2).sum().backward()
    rec("gg", m.parametrizations.weight.original0.grad)
    rec("gv", m.parametrizations.weight.original1.grad)
    lib.manual_seed(10)
    c = lib.nn.Conv1d(2, 3, 3).to(dt)
    PZ.weight_norm(c, dim=1)
    rec("cg", c.parametrizations.weight.original0)
    lib.manual_seed(10)
    c2 = lib.nn.Conv1d(2, 3, 3).to(dt)
    PZ.weight_norm(c2, dim=None)
    rec("cg_none", c2.parametrizations.weight.original0)
    rec("cw_none", c2.weight)


def _Double(lib):
    class Double(lib.nn.Module):
        def forward(self, X):
            return X * 2

        def right_inverse(self, X):
            return X / 2

    return Double()


def p_param_remove(lib, dt, rec):
    P = lib.nn.utils.parametrize
    PZ = lib.nn.utils.parametrizations
    lib.manual_seed(11)
    m = lib.nn.Linear(4, 4).to(dt)
    PZ.orthogonal(m)
    w = m.weight.detach().clone()
    P.remove_parametrizations(m, "weight")
    rec("cls", type(m).__name__)
    rec("w", m.weight - w)
    rec("isparam", str(isinstance(m.weight, lib.nn.Parameter)))
    rec("names", str([n for n, _ in m.named_parameters()]))
    rec("has", str(hasattr(m, "parametrizations")))
    lib.manual_seed(11)
    m2 = lib.nn.Linear(4, 4).to(dt)
    w0 = m2.weight.detach().clone()
    P.register_parametrization(m2, "weight", _Double(lib))
    P.remove_parametrizations(m2, "weight", leave_parametrized=False)
    rec("w_orig", m2.weight - w0)
    rec("sd", str(list(m2.state_dict().keys())))
    lib.manual_seed(12)
    m3 = lib.nn.Linear(3, 3).to(dt)
    PZ.weight_norm(m3)
    rec.err("leave_false_multi", lambda: P.remove_parametrizations(m3, "weight", False))
    rec.err("not_param", lambda: P.remove_parametrizations(m3, "bias"))


def p_param_errors(lib, dt, rec):
    P = lib.nn.utils.parametrize

    class Bad(lib.nn.Module):
        def forward(self, X):
            return X[0]

    class ToInt(lib.nn.Module):
        def forward(self, X):
            return X.long()

    class NoInv(lib.nn.Module):
        def forward(self, X):
            return X * 2

    m = _linear(lib, dt, 13, 3, 3)
    rec.err("shape", lambda: P.register_parametrization(m, "weight", Bad()))
    rec.err("dtype", lambda: P.register_parametrization(m, "weight", ToInt()))
    rec.err("missing", lambda: P.register_parametrization(m, "nope", NoInv()))
    P.register_parametrization(m, "weight", NoInv())

    def assign():
        m.weight = lib.zeros(3, 3, dtype=dt)

    rec.err("no_inverse", assign)
    rec.err(
        "bad_map",
        lambda: lib.nn.utils.parametrizations.orthogonal(
            _linear(lib, dt, 1, 3, 3), orthogonal_map="foo"
        ),
    )


def p_legacy_weight_norm(lib, dt, rec):
    U = lib.nn.utils
    lib.manual_seed(14)
    m = lib.nn.Linear(4, 3).to(dt)
    w0 = m.weight.detach().clone()
    U.weight_norm(m, name="weight")
    rec("sd", str(list(m.state_dict().keys())))
    rec("names", str([n for n, _ in m.named_parameters()]))
    rec("g", m.weight_g)
    rec("v", m.weight_v)
    rec("w", m.weight - w0)
    m(_randn(lib, dt, 15, 2, 4)).sum().backward()
    rec("gg", m.weight_g.grad)
    rec("gv", m.weight_v.grad)
    with lib.no_grad():
        m.weight_g.mul_(2)
    m(_randn(lib, dt, 15, 2, 4))
    rec("w2", m.weight)
    U.remove_weight_norm(m)
    rec("sd2", str(list(m.state_dict().keys())))
    rec("w3", m.weight)
    rec.err("remove_twice", lambda: U.remove_weight_norm(m))
    lib.manual_seed(14)
    c = lib.nn.Conv2d(2, 3, 2).to(dt)
    U.weight_norm(c, dim=None)
    rec("cg", c.weight_g)
    U.weight_norm(lib.nn.Linear(2, 2), "bias")
    rec.err("twice", lambda: U.weight_norm(c))


def p_legacy_spectral_norm(lib, dt, rec):
    U = lib.nn.utils
    lib.manual_seed(16)
    m = lib.nn.Linear(5, 4).to(dt)
    U.spectral_norm(m)
    rec("sd", str(list(m.state_dict().keys())))
    rec("names", str([n for n, _ in m.named_parameters()]))
    rec("u", m.weight_u)
    rec("v", m.weight_v)
    x = _randn(lib, dt, 17, 3, 5)
    for i in range(3):
        rec(f"y{i}", m(x))
    m.eval()
    rec("y_eval", m(x))
    m.train()
    m(x).sum().backward()
    rec("g", m.weight_orig.grad)
    sd = m.state_dict()
    lib.manual_seed(18)
    m2 = lib.nn.Linear(5, 4).to(dt)
    U.spectral_norm(m2)
    m2.load_state_dict(sd)
    m2.eval()
    rec("y_loaded", m2(x))
    U.remove_spectral_norm(m)
    rec("sd2", str(list(m.state_dict().keys())))
    rec.err("remove_twice", lambda: U.remove_spectral_norm(m))


# --- prune ---


def _prune(lib):
    """The prune module: torch needs `import torch.nn.utils.prune`."""
    return importlib.import_module(lib.__name__ + ".nn.utils.prune")


def p_prune_l1(lib, dt, rec):
    prune = _prune(lib)
    lib.manual_seed(19)
    m = lib.nn.Linear(6, 5).to(dt)
    prune.l1_unstructured(m, "weight", amount=0.3)
    rec("mask", m.weight_mask)
    rec("w", m.weight)
    rec("names", str([n for n, _ in m.named_parameters()]))
    rec("buffers", str([n for n, _ in m.named_buffers()]))
    rec("sd", str(list(m.state_dict().keys())))
    rec("pruned", str(prune.is_pruned(m)))
    prune.l1_unstructured(m, "weight", amount=4)
    rec("mask2", m.weight_mask)
    rec("nzero", (m.weight == 0).sum())
    m(_randn(lib, dt, 20, 3, 6)).sum().backward()
    rec("g", m.weight_orig.grad)
    prune.l1_unstructured(m, "bias", amount=0.0)
    rec("bmask", m.bias_mask)
    prune.remove(m, "weight")
    rec("names2", str([n for n, _ in m.named_parameters()]))
    rec("w2", m.weight)
    rec("pruned2", str(prune.is_pruned(m)))
    rec("hooks", str(len(m._forward_pre_hooks)))


def p_prune_random(lib, dt, rec):
    prune = _prune(lib)
    lib.manual_seed(21)
    m = lib.nn.Linear(8, 6).to(dt)
    lib.manual_seed(22)
    prune.random_unstructured(m, "weight", amount=0.5)
    rec("nzero", (m.weight_mask == 0).sum())
    rec("n", str(int((m.weight_mask == 0).sum())))
    lib.manual_seed(23)
    c = lib.nn.Conv2d(4, 6, 3).to(dt)
    lib.manual_seed(24)
    prune.random_structured(c, "weight", amount=0.5, dim=0)
    rec("rows", (c.weight_mask.flatten(1).sum(1) == 0).sum())


def p_prune_ln_structured(lib, dt, rec):
    prune = _prune(lib)
    lib.manual_seed(25)
    c = lib.nn.Conv2d(3, 6, 3).to(dt)
    prune.ln_structured(c, "weight", amount=0.5, n=2, dim=0)
    rec("mask", c.weight_mask.flatten(1).sum(1))
    prune.ln_structured(c, "weight", amount=1, n=1, dim=1)
    rec("mask2", c.weight_mask.sum((0, 2, 3)))
    lib.manual_seed(26)
    m = lib.nn.Linear(5, 4).to(dt)
    prune.ln_structured(m, "weight", amount=2, n=float("inf"), dim=1)
    rec("lmask", m.weight_mask)
    x = _randn(lib, dt, 27, 2, 3, 8, 8)
    rec("y", c(x))
    container = prune.PruningContainer
    rec("hook", type(c._forward_pre_hooks[next(iter(c._forward_pre_hooks))]).__name__)
    rec(
        "iscont", str(isinstance(c._forward_pre_hooks[next(iter(c._forward_pre_hooks))], container))
    )


def p_prune_global(lib, dt, rec):
    prune = _prune(lib)
    lib.manual_seed(28)
    net = lib.nn.Sequential(lib.nn.Linear(4, 6), lib.nn.ReLU(), lib.nn.Linear(6, 3)).to(dt)
    params = [(net[0], "weight"), (net[2], "weight"), (net[0], "bias")]
    prune.global_unstructured(params, pruning_method=prune.L1Unstructured, amount=0.4)
    for i, (mod, name) in enumerate(params):
        rec(f"mask{i}", getattr(mod, name + "_mask"))
    total = sum(int((getattr(mm, n) == 0).sum()) for mm, n in params)
    rec("total", str(total))
    prune.global_unstructured(params, pruning_method=prune.L1Unstructured, amount=5)
    rec("total2", str(sum(int((getattr(mm, n) == 0).sum()) for mm, n in params)))
    net(_randn(lib, dt, 29, 3, 4)).sum().backward()
    rec("g0", net[0].weight_orig.grad)
    for mm, n in params:
        prune.remove(mm, n)
    rec("sd", str(list(net.state_dict().keys())))


def p_prune_custom_mask(lib, dt, rec):
    prune = _prune(lib)
    lib.manual_seed(30)
    m = lib.nn.Linear(3, 3).to(dt)
    mask = lib.tensor([[1, 0, 1], [0, 1, 0], [1, 1, 0]])
    prune.custom_from_mask(m, "weight", mask)
    rec("mask", m.weight_mask)
    rec("w", m.weight)
    prune.identity(m, "bias")
    rec("bmask", m.bias_mask)
    sd = m.state_dict()
    rec("sd", str(list(sd.keys())))
    lib.manual_seed(31)
    m2 = lib.nn.Linear(3, 3).to(dt)
    prune.identity(m2, "weight")
    prune.identity(m2, "bias")
    m2.load_state_dict(sd)
    m2(lib.zeros(1, 3, dtype=dt))
    rec("w2", m2.weight)

    class FooBarPruning(prune.BasePruningMethod):
        PRUNING_TYPE = "unstructured"

        def compute_mask(self, t, default_mask):
            mask = default_mask.clone()
            mask.view(-1)[::2] = 0
            return mask

    FooBarPruning.apply(m2, "weight")
    rec("foo", m2.weight_mask)


def p_prune_errors(lib, dt, rec):
    prune = _prune(lib)
    m = _linear(lib, dt, 32, 3, 3)
    rec.err("amount_neg", lambda: prune.l1_unstructured(m, "weight", amount=-0.1))
    rec.err("amount_big", lambda: prune.l1_unstructured(m, "weight", amount=1.5))
    rec.err("amount_int", lambda: prune.l1_unstructured(m, "weight", amount=20))
    rec.err("amount_str", lambda: prune.l1_unstructured(m, "weight", amount="a"))
    rec.err("missing", lambda: prune.l1_unstructured(m, "nope", amount=0.1))
    rec.err("remove_unpruned", lambda: prune.remove(m, "weight"))
    rec.err(
        "global_dict",
        lambda: prune.global_unstructured(
            {"a": 1}, pruning_method=prune.L1Unstructured, amount=0.1
        ),
    )
    rec.err("structured_dim", lambda: prune.ln_structured(m, "weight", 0.5, n=2, dim=3))
    rec.err(
        "global_structured",
        lambda: prune.global_unstructured(
            [(m, "weight")], pruning_method=prune.LnStructured, amount=0.1, n=2, dim=0
        ),
    )


# --- fusion ---


def _bn_stats(lib, dt, bn, seed):
    with lib.no_grad():
        n = bn.num_features
        bn.running_mean.copy_(_randn(lib, dt, seed, n))
        bn.running_var.copy_(_randn(lib, dt, seed + 1, n).abs() + 0.5)
        bn.weight.copy_(_randn(lib, dt, seed + 2, n))
        bn.bias.copy_(_randn(lib, dt, seed + 3, n))


def p_fuse_conv_bn(lib, dt, rec):
    fusion = lib.nn.utils.fusion
    for bias, transpose in ((True, False), (False, False), (True, True)):
        lib.manual_seed(33)
        if transpose:
            conv = lib.nn.ConvTranspose2d(3, 4, 3).to(dt).eval()
        else:
            conv = lib.nn.Conv2d(3, 4, 3, bias=bias).to(dt).eval()
        bn = lib.nn.BatchNorm2d(4).to(dt).eval()
        _bn_stats(lib, dt, bn, 34)
        fused = fusion.fuse_conv_bn_eval(conv, bn, transpose=transpose)
        x = _randn(lib, dt, 38, 2, 3, 6, 6)
        tag = f"{bias}{transpose}"
        rec(tag + ".y", fused(x))
        rec(tag + ".diff", fused(x) - bn(conv(x)))
        rec(tag + ".rg", str(fused.weight.requires_grad))
        rec(tag + ".type", type(fused).__name__)
        rec(tag + ".bias", fused.bias)
    w, b = fusion.fuse_conv_bn_weights(
        conv.weight, conv.bias, bn.running_mean, bn.running_var, bn.eps, bn.weight, bn.bias, True
    )
    rec("wtype", type(w).__name__)
    rec("w", w)
    rec("b", b)


def p_fuse_linear_bn(lib, dt, rec):
    fusion = lib.nn.utils.fusion
    lib.manual_seed(39)
    lin = lib.nn.Linear(5, 4).to(dt).eval()
    bn = lib.nn.BatchNorm1d(4).to(dt).eval()
    _bn_stats(lib, dt, bn, 40)
    fused = fusion.fuse_linear_bn_eval(lin, bn)
    x = _randn(lib, dt, 44, 3, 5)
    rec("y", fused(x))
    rec("diff", fused(x) - bn(lin(x)))
    rec("type", type(fused).__name__)
    bn1 = lib.nn.BatchNorm1d(1).to(dt).eval()
    _bn_stats(lib, dt, bn1, 45)
    rec("y1", fusion.fuse_linear_bn_eval(lin, bn1)(x))
    bn3 = lib.nn.BatchNorm1d(3).to(dt).eval()
    rec.err("mismatch", lambda: fusion.fuse_linear_bn_eval(lin, bn3))
    lin.train()
    rec.err("train", lambda: fusion.fuse_linear_bn_eval(lin, bn))
    conv = lib.nn.Conv2d(1, 4, 1).to(dt)
    rec.err("conv_train", lambda: fusion.fuse_conv_bn_eval(conv, lib.nn.BatchNorm2d(4)))


# --- clip_grad ---


def _grads(lib, dt, seed, scale=1.0):
    lib.manual_seed(seed)
    net = lib.nn.Sequential(lib.nn.Linear(4, 5), lib.nn.Tanh(), lib.nn.Linear(5, 2)).to(dt)
    (net(_randn(lib, dt, seed + 1, 6, 4)).pow(2).sum() * scale).backward()
    return net


def p_clip_norm(lib, dt, rec):
    U = lib.nn.utils
    for foreach in (None, False, True):
        for nt in (2.0, 1, 3.5, "fro"):
            net = _grads(lib, dt, 46)
            tn = rec.err(
                f"{foreach}{nt}.err",
                lambda net=net, nt=nt, foreach=foreach: U.clip_grad_norm_(
                    net.parameters(), max_norm=0.5, norm_type=nt, foreach=foreach
                ),
            )
            rec(f"{foreach}{nt}.tn", tn)
            rec(f"{foreach}{nt}.g", net[0].weight.grad)
    net = _grads(lib, dt, 46)
    tn = U.clip_grad_norm_(net.parameters(), max_norm=1e6)
    rec("big.tn", tn)
    rec("big.g", net[2].bias.grad)
    p = lib.nn.Parameter(lib.ones(3, dtype=dt))
    p.grad = lib.full((3,), 2.0, dtype=dt)
    rec("single", U.clip_grad_norm_(p, 1.0))
    rec("single.g", p.grad)
    rec("empty", U.clip_grad_norm_([], 1.0))
    q = lib.nn.Parameter(lib.ones(2, dtype=dt))
    rec("nograd", U.clip_grad_norm_([q], 1.0))


def p_clip_norm_inf(lib, dt, rec):
    U = lib.nn.utils
    for foreach in (None, True, False):
        for nt in (float("inf"), "inf"):
            net = _grads(lib, dt, 47)
            tn = U.clip_grad_norm_(net.parameters(), 0.1, norm_type=nt, foreach=foreach)
            rec(f"{foreach}{nt}.tn", tn)
            rec(f"{foreach}{nt}.g", net[0].weight.grad)
    net = _grads(lib, dt, 47)
    rec("ninf", U.clip_grad_norm_(net.parameters(), 0.1, norm_type=-float("inf")))
    rec("ninf.g", net[2].weight.grad)


def p_clip_nonfinite(lib, dt, rec):
    U = lib.nn.utils
    for bad in (float("nan"), float("inf")):
        for foreach in (None, True):
            net = _grads(lib, dt, 48)
            net[0].weight.grad[0, 0] = bad
            rec.err(
                f"{bad}{foreach}.err",
                lambda net=net, foreach=foreach: U.clip_grad_norm_(
                    net.parameters(), 1.0, error_if_nonfinite=True, foreach=foreach
                ),
            )
            tn = U.clip_grad_norm_(net.parameters(), 1.0, foreach=foreach)
            rec(f"{bad}{foreach}.tn", tn)
            rec(f"{bad}{foreach}.g", net[2].bias.grad)
    net = _grads(lib, dt, 48)
    net[0].weight.grad[0, 0] = float("inf")
    rec.err(
        "inf_norm",
        lambda: U.clip_grad_norm_(net.parameters(), 1.0, norm_type="inf", error_if_nonfinite=True),
    )


def p_clip_value(lib, dt, rec):
    U = lib.nn.utils
    for foreach in (None, False, True):
        net = _grads(lib, dt, 49)
        out = U.clip_grad_value_(net.parameters(), clip_value=0.2, foreach=foreach)
        rec(f"{foreach}.ret", str(out))
        rec(f"{foreach}.g0", net[0].weight.grad)
        rec(f"{foreach}.g2", net[2].bias.grad)
    p = lib.nn.Parameter(lib.ones(3, dtype=dt))
    p.grad = lib.tensor([-3.0, 0.1, 5.0], dtype=dt)
    U.clip_grad_value_(p, 1)
    rec("single", p.grad)


def p_total_norm(lib, dt, rec):
    U = lib.nn.utils
    net = _grads(lib, dt, 50)
    grads = [p.grad for p in net.parameters()]
    for nt in (2.0, 1.0, float("inf"), 0.5):
        rec(f"tn{nt}", U.get_total_norm(grads, norm_type=nt))
    tn = U.get_total_norm(grads, norm_type=2.0, foreach=True)
    U.clip_grads_with_norm_(net.parameters(), max_norm=0.3, total_norm=tn)
    rec("g", net[0].weight.grad)
    rec("tn_after", U.get_total_norm([p.grad for p in net.parameters()]))
    rec("empty", U.get_total_norm([]))
    U.clip_grads_with_norm_(net.parameters(), max_norm=10.0, total_norm=tn, foreach=False)
    rec("g2", net[0].weight.grad)
    rec.err(
        "nonfinite",
        lambda: U.get_total_norm([lib.tensor([float("nan")], dtype=dt)], error_if_nonfinite=True),
    )


# --- convert_parameters ---


def p_vec_params(lib, dt, rec):
    U = lib.nn.utils
    lib.manual_seed(51)
    net = lib.nn.Sequential(lib.nn.Conv1d(2, 3, 2), lib.nn.Linear(4, 2)).to(dt)
    v = U.parameters_to_vector(net.parameters())
    rec("v", v)
    rec("rg", str(v.requires_grad))
    v2 = v * 2 + 1
    U.vector_to_parameters(v2, net.parameters())
    rec("p", net[1].weight)
    rec("isparam", str(type(net[1].weight).__name__))
    rec("grad_fn", str(net[1].weight.grad_fn))
    rec.err("not_tensor", lambda: U.vector_to_parameters([1.0], net.parameters()))
    rec.err("p2v_short", lambda: U.vector_to_parameters(v[:5], net.parameters()))
    rec.err("p2v_param", lambda: U.parameters_to_vector(net[1].weight))


# --- stateless ---


def p_functional_call(lib, dt, rec):
    from torch.func import functional_call as fc_torch  # noqa: F401 - name only

    fc = lib.func.functional_call
    sfc = lib.nn.utils.stateless.functional_call
    lib.manual_seed(52)

    class Tied(lib.nn.Module):
        def __init__(self):
            super().__init__()
            self.emb = lib.nn.Embedding(5, 3)
            self.out = lib.nn.Linear(3, 5, bias=False)
            self.out.weight = self.emb.weight
            self.register_buffer("scale", lib.tensor(2.0))

        def forward(self, idx):
            return self.out(self.emb(idx)) * self.scale

    m = Tied().to(dt)
    idx = lib.tensor([[0, 3, 4]])
    w = _randn(lib, dt, 53, 5, 3).requires_grad_(True)
    y = fc(m, {"emb.weight": w}, (idx,), tie_weights=True)
    rec("y_tied", y)
    y.sum().backward()
    rec("gw", w.grad)
    rec("orig_unchanged", m.emb.weight)
    y2 = fc(m, {"emb.weight": w.detach()}, (idx,), tie_weights=False)
    rec("y_untied", y2)
    y3 = fc(m, ({"emb.weight": w.detach()}, {"scale": lib.tensor(3.0, dtype=dt)}), idx)
    rec("y_two_dicts", y3)
    rec.err("strict", lambda: fc(m, {"emb.weight": w.detach()}, (idx,), strict=True))
    rec.err(
        "strict_unexpected",
        lambda: fc(
            m,
            {"emb.weight": w.detach(), "out.weight": w.detach(), "scale": m.scale, "foo": m.scale},
            (idx,),
            strict=True,
        ),
    )
    rec.err(
        "tied_diff", lambda: fc(m, {"emb.weight": w.detach(), "out.weight": w.detach() * 2}, (idx,))
    )
    rec.err("dup_keys", lambda: fc(m, ({"scale": m.scale}, {"scale": m.scale}), (idx,)))
    y4 = sfc(m, {"out.weight": w.detach()}, idx, kwargs=None)
    rec("y_sfc", y4)
    lib.manual_seed(54)
    lin = lib.nn.Linear(3, 2).to(dt)
    params = {k: v.detach().clone() * 2 for k, v in lin.named_parameters()}
    x = _randn(lib, dt, 55, 4, 3)
    rec("lin", fc(lin, params, (x,)))
    rec("lin_kw", fc(lin, params, (), {"input": x}))


def p_functional_call_errors(lib, dt, rec):
    fc = lib.func.functional_call
    lin = _linear(lib, dt, 56, 3, 2)
    x = _randn(lib, dt, 57, 4, 3)
    rec.err("bad_key", lambda: fc(lin, {"weight.x": lin.weight}, (x,)))
    rec.err("missing_strict", lambda: fc(lin, {"weight": lin.weight}, (x,), strict=True))
    rec.err("not_dict", lambda: fc(lin, [lin.weight], (x,)))


def p_memory_format(lib, dt, rec):
    U = lib.nn.utils
    lib.manual_seed(58)
    net = lib.nn.Sequential(
        lib.nn.Conv2d(3, 4, 3), lib.nn.BatchNorm2d(4), lib.nn.ConvTranspose2d(4, 2, 2)
    ).to(dt)
    net2 = U.convert_conv2d_weight_memory_format(net, lib.channels_last)
    rec("same", str(net2 is net))
    rec("cl0", str(net[0].weight.is_contiguous(memory_format=lib.channels_last)))
    rec("cl2", str(net[2].weight.is_contiguous(memory_format=lib.channels_last)))
    rec("stride", str(net[0].weight.stride()))
    x = _randn(lib, dt, 59, 2, 3, 6, 6)
    rec("y", net(x))
    c3 = lib.nn.Conv3d(2, 2, 2).to(dt)
    U.convert_conv3d_weight_memory_format(c3, lib.channels_last_3d)
    rec("stride3", str(c3.weight.stride()))


# --- more: custom pruning methods, old checkpoints, double backward, grouped fusion ---


def p_prune_custom_method(lib, dt, rec):
    prune = _prune(lib)

    class ThresholdPruning(prune.BasePruningMethod):
        PRUNING_TYPE = "unstructured"

        def __init__(self, threshold):
            self.threshold = threshold

        def compute_mask(self, tensor, default_mask):
            return (tensor.abs() > self.threshold) * default_mask

    lib.manual_seed(60)
    net = lib.nn.Sequential(lib.nn.Linear(4, 4), lib.nn.Linear(4, 3)).to(dt)
    params = [(net[0], "weight"), (net[1], "weight")]
    prune.global_unstructured(params, pruning_method=ThresholdPruning, threshold=0.3)
    rec("mask0", net[0].weight_mask)
    rec("mask0.dtype", str(net[0].weight_mask.dtype))
    scores = {(net[1], "weight"): lib.arange(12, dtype=dt).reshape(3, 4)}
    prune.global_unstructured(
        params, pruning_method=prune.L1Unstructured, amount=4, importance_scores=scores
    )
    rec("mask0b", net[0].weight_mask)
    rec("mask1b", net[1].weight_mask)
    hook = list(net[0]._forward_pre_hooks.values())[0]
    rec("container", str([type(h).__name__ for h in hook]))
    lib.manual_seed(61)
    c = lib.nn.Conv2d(2, 4, 3).to(dt)
    imp = lib.arange(72, dtype=dt).reshape(4, 2, 3, 3)
    prune.ln_structured(c, "weight", amount=0.5, n=2, dim=0, importance_scores=imp)
    rec("cmask", c.weight_mask[:, 0, 0, 0])
    prune.l1_unstructured(c, "bias", amount=2, importance_scores=lib.tensor([4.0, 1, 3, 2]))
    rec("bmask", c.bias_mask)
    c.double()
    rec("dtypes", str((c.weight_mask.dtype, c.weight_orig.dtype)))
    y = c(_randn(lib, lib.float64, 62, 1, 2, 5, 5))
    rec("y", y)
    rec.err(
        "bad_scores",
        lambda: prune.l1_unstructured(c, "weight", amount=0.5, importance_scores=lib.ones(3)),
    )


def p_legacy_sn_checkpoint(lib, dt, rec):
    """A legacy spectral_norm checkpoint of version None (no weight_v, weight saved) loads
    by recomputing v from the saved weight."""
    from collections import OrderedDict

    U = lib.nn.utils
    lib.manual_seed(63)
    old = lib.nn.Linear(3, 5).to(dt)  # a tall weight: W^T W is invertible
    U.spectral_norm(old)
    x = _randn(lib, dt, 64, 2, 3)
    old(x)
    old.eval()
    rec("y_old", old(x))
    sd = OrderedDict((k, v) for k, v in old.state_dict().items() if k != "weight_v")
    sd["weight"] = old.weight.detach()
    sd._metadata = {"": {"version": 1}}
    lib.manual_seed(65)
    new = lib.nn.Linear(3, 5).to(dt)
    U.spectral_norm(new)
    new.load_state_dict(sd)
    rec("v", new.weight_v)
    new.eval()
    rec("y_new", new(x))
    rec("meta", str(old.state_dict()._metadata[""]))


def p_param_double_backward(lib, dt, rec):
    U = lib.nn.utils
    PZ = U.parametrizations
    for kind in ("orthogonal", "spectral", "weight_norm", "legacy_wn", "legacy_sn"):
        lib.manual_seed(66)
        m = lib.nn.Linear(3, 3).to(dt)
        if kind == "orthogonal":
            PZ.orthogonal(m)
            leaves = [m.parametrizations.weight.original]
        elif kind == "spectral":
            PZ.spectral_norm(m)
            leaves = [m.parametrizations.weight.original]
        elif kind == "weight_norm":
            PZ.weight_norm(m)
            leaves = list(m.parametrizations.weight.parameters())
        elif kind == "legacy_wn":
            U.weight_norm(m)
            leaves = [m.weight_g, m.weight_v]
        else:
            U.spectral_norm(m)
            leaves = [m.weight_orig]
        x = _randn(lib, dt, 67, 2, 3).requires_grad_(True)
        y = m(x).pow(3).sum()
        (gx,) = lib.autograd.grad(y, x, create_graph=True)
        rec(kind + ".gx", gx)
        gg = lib.autograd.grad(gx.pow(2).sum(), leaves)
        for i, g in enumerate(gg):
            rec(f"{kind}.gg{i}", g)
        rec(kind + ".fn", str(type(m.weight.grad_fn).__name__))


def p_fuse_grouped(lib, dt, rec):
    fusion = lib.nn.utils.fusion
    lib.manual_seed(68)
    conv = lib.nn.Conv2d(4, 6, 3, groups=2, padding=1).to(dt).eval()
    bn = lib.nn.BatchNorm2d(6, eps=1e-3).to(dt).eval()
    _bn_stats(lib, dt, bn, 69)
    fused = fusion.fuse_conv_bn_eval(conv, bn)
    x = _randn(lib, dt, 73, 2, 4, 5, 5)
    rec("shape", str(tuple(fused.weight.shape)))
    rec("y", fused(x))
    rec("diff", fused(x) - bn(conv(x)))
    # torch's transposed fusion scales the weight's dim 1 by all out_channels: with groups it
    # fails to broadcast (3 != 6), a torch limitation recorded as such
    ct = lib.nn.ConvTranspose2d(4, 6, 3, groups=2, stride=2).to(dt).eval()
    rec.err("transposed_groups", lambda: fusion.fuse_conv_bn_eval(ct, bn, transpose=True))
    lib.manual_seed(74)
    c1 = lib.nn.Conv1d(3, 4, 2).to(dt).eval()
    b1 = lib.nn.BatchNorm1d(4, affine=False).to(dt).eval()
    _bn_stats_plain(lib, dt, b1, 75)
    f1 = fusion.fuse_conv_bn_eval(c1, b1)
    x1 = _randn(lib, dt, 77, 2, 3, 6)
    rec("1d.y", f1(x1))
    rec.err("bn_train", lambda: fusion.fuse_conv_bn_eval(c1, b1.train()))
    rec.err(
        "no_stats",
        lambda: fusion.fuse_conv_bn_eval(
            c1, lib.nn.BatchNorm1d(4, track_running_stats=False).to(dt).eval()
        ),
    )


def _bn_stats_plain(lib, dt, bn, seed):
    with lib.no_grad():
        bn.running_mean.copy_(_randn(lib, dt, seed, bn.num_features))
        bn.running_var.copy_(_randn(lib, dt, seed + 1, bn.num_features).abs() + 0.5)


def p_orth_batch(lib, dt, rec):
    """orthogonal on a batch of matrices (a (2, 3, 3) and a (2, 4, 2) parameter)."""
    PZ = lib.nn.utils.parametrizations
    for shape, omap in (
        ((2, 3, 3), "matrix_exp"),
        ((2, 4, 2), "cayley"),
        ((2, 2, 4), "householder"),
    ):
        mod = lib.nn.Module()
        mod.w = lib.nn.Parameter(_randn(lib, dt, 78, *shape))
        lib.manual_seed(79)  # a non-square base is completed by random columns
        PZ.orthogonal(mod, "w", orthogonal_map=omap)
        w = mod.w
        tag = f"{shape}{omap}"
        gram = w.mT @ w if shape[1] >= shape[2] else w @ w.mT
        rec(tag + ".gram", gram)
        rec(tag + ".w", w)
        coef = lib.arange(w.numel(), dtype=dt).reshape(shape)
        (w * coef).sum().backward()
        rec(tag + ".g", mod.parametrizations.w.original.grad)


def p_reparam_functional_call(lib, dt, rec):
    """func.functional_call over modules reparametrized by parametrize, prune and legacy hooks."""
    prune = _prune(lib)
    U = lib.nn.utils
    fc = lib.func.functional_call
    x = _randn(lib, dt, 80, 2, 3)
    w = _randn(lib, dt, 81, 2, 3)
    lib.manual_seed(82)
    m = lib.nn.Linear(3, 2).to(dt)
    U.parametrizations.weight_norm(m)
    rec("pw", fc(m, {"weight": w}, x))
    rec("po", fc(m, {"parametrizations.weight.original1": w}, x))
    rec("pw_after", m.weight)
    rec.err("p_strict", lambda: fc(m, {"weight": w}, x, strict=True))
    lib.manual_seed(83)
    pm = lib.nn.Linear(3, 2).to(dt)
    prune.l1_unstructured(pm, "weight", 0.5)
    rec("prune_orig", fc(pm, {"weight_orig": w}, x))
    rec("prune_mask", fc(pm, {"weight_mask": lib.ones(2, 3, dtype=dt)}, x))
    lib.manual_seed(84)
    sm = lib.nn.Linear(3, 2).to(dt)
    U.spectral_norm(sm)
    rec("sn_orig", fc(sm, {"weight_orig": w}, x))
    rec("sn_u", sm.weight_u)
    lib.manual_seed(85)
    s2 = lib.nn.Linear(3, 2).to(dt)
    U.parametrizations.spectral_norm(s2)
    rec("sn2", fc(s2, {"parametrizations.weight.original": w}, x))
    rec("sn2_u", s2.parametrizations.weight[0]._u)


def p_deprecations(lib, dt, rec):
    U = lib.nn.utils
    rec.warns("weight_norm", lambda: U.weight_norm(lib.nn.Linear(2, 2).to(dt)))
    rec.warns(
        "stateless",
        lambda: U.stateless.functional_call(
            lib.nn.Linear(2, 2).to(dt), {}, lib.ones(1, 2, dtype=dt)
        ),
    )
    rec.warns(
        "clip_grad_norm", lambda: U.clip_grad_norm(lib.nn.Linear(2, 2).to(dt).parameters(), 1.0)
    )
    rec.warns("orthogonal", lambda: U.parametrizations.orthogonal(lib.nn.Linear(2, 2).to(dt)))


def p_clip_norm_shapes(lib, dt, rec):
    """clip_grads_with_norm_ with a total norm that is no 0-d tensor: torch's foreach paths
    (the default and foreach=True) refuse it, the per-tensor path broadcasts it."""
    U = lib.nn.utils
    for shape in ((), (1,), (1, 1), (5, 4)):
        for foreach in (None, True, False):
            net = _grads(lib, dt, 86)
            tn = lib.full(shape, 2.5, dtype=dt)
            tag = f"{shape}{foreach}"
            rec.err(
                tag + ".err",
                lambda net=net, tn=tn, foreach=foreach: U.clip_grads_with_norm_(
                    net.parameters(), 1.0, tn, foreach=foreach
                ),
            )
            rec(tag + ".g", net[2].bias.grad)
    net = _grads(lib, dt, 87)
    tn = U.get_total_norm([p.grad for p in net.parameters()], norm_type=3.0)
    U.clip_grads_with_norm_(net[0].parameters(), 0.5, tn)
    U.clip_grads_with_norm_(net[2].parameters(), 0.5, tn, foreach=False)
    rec.params("split", net, grads=True)
