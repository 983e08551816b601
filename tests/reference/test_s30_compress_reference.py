"""Session 30 (helper compress): model-compression programs written the way practitioners write
them in torch, run under torch and minitorch with the same seeds and compared record by record.

Covered: nn.utils.prune (random_unstructured, l1_unstructured, ln_structured, random_structured,
global_unstructured with importance scores, custom_from_mask, identity, remove, is_pruned;
weight_orig/weight_mask names, forward pre-hooks and PruningContainer histories, state_dict keys
and round trips, module reprs, errors), gradual magnitude-pruning schedules fine-tuned with SGD
momentum and gradient masks, sparsity statistics (count_nonzero, per-channel norms, kthvalue
thresholds), physically shrinking structurally pruned layers, nn.utils.parametrize
(register_parametrization with right_inverse to one or several originals, cached, remove_
parametrizations with leave_parametrized, reprs and state_dict keys), parametrizations.
orthogonal/spectral_norm/weight_norm trained with optimizers, low-rank factorisation of Linear
layers by linalg.svd (energy-based ranks) and svd_lowrank, LoRA adapters (frozen base,
requires_grad_, merged weights, state_dict filtering, LoRA as a parametrization), fake
quantization with straight-through estimators (round/clamp with detach, fake_quantize_per_tensor/
per_channel_affine, learnable scales, QAT loops with EMA observers), weight clustering by k-means,
int8 weight storage, and knowledge distillation with temperature (briefly). float64 must agree
to 1e-10 of each record's scale, float32 to 1e-4; texts exactly.

Library differences found and fixed: svd_lowrank/pca_lowrank of a tensor with fewer than two
dimensions raised with an "svd_lowrank:" prefix (torch: Python's bare unpacking message);
pruning with a bool amount worded topk's/kthvalue's TypeError with a position (torch passes k by
keyword); remove_parametrizations(leave_parametrized=True) after an unsafe parametrization that
changes the dtype silently kept the new dtype (torch's set_ refuses it); per-channel fake
quantization sent +inf and values past the int64 range to quant_max (torch's CPU kernels go
through int64: quant_min), and the learnable fake quantizer's backward counted +inf, NaN and
such values as above the range (torch: below).

Known and left (documented):
- float32 sums can differ in the last bits (summation order); SVD signs are implementation-
  defined, so only sign-free quantities (products, absolute values, singular values) are
  recorded.
- Tied magnitudes on the pruning boundary (l1_unstructured of equal weights): torch's CPU topk
  picks among ties in an implementation-defined order, minitorch's lowest index first.
- NumPy's floating-point RuntimeWarnings show under an "always" filter set after import (svd's
  backward at repeated singular values, weight_norm of an all-zero row: NaN as torch's).
- _fake_quantize_learnable_*: minitorch's backward takes float64 (torch's float32 only, its
  documented difference); torch's per-channel backward fails on a 1-D input (it returns a 0-d
  scale gradient) and its forward hits an internal assert for a bfloat16 scale.
- Absent here, so not exercised: quantized tensors (torch.quantize_per_tensor, qint8, torch.ao
  quantization/pruning); float8 dtypes are exercised in test_s30_float8_reference.py."""

from __future__ import annotations

import io
import math

import pytest

from tests.reference._one_thread import one_torch_thread  # noqa: F401 - an autouse fixture
from tests.reference._programs import assert_program_matches

torch = pytest.importorskip("torch")

pytest.importorskip("torch.nn.utils.prune")  # torch.nn.utils does not import it itself


PROGRAMS = [
    "l1_finetune", "random_masks", "ln_structured_conv", "global_scores", "custom_mask_errors",
    "prune_state_dict", "gradual_schedule", "sparsity_stats", "shrink_channels",
    "param_symmetric_cached", "param_two_originals", "orthogonal_train", "spectral_norm_train",
    "weight_norm_train", "svd_factorise", "svd_lowrank", "lora_linear", "lora_parametrize",
    "ste_fake_quant", "qat_loop", "lsq_learnable", "kmeans_share", "int8_storage", "distill",
    "errors", "n_m_sparsity", "binary_ternary", "fuse_bn", "lstm_prune",
    "transformer_compress", "gptq", "smoothquant", "obs_hessian",
    "tucker_conv", "rigl", "movement", "half_deploy",
    "legacy_norms", "cached_rnn",
]  # fmt: skip


@pytest.mark.parametrize("dt", ["float64", "float32"])
@pytest.mark.parametrize("name", PROGRAMS)
def test_program_matches_torch(name, dt):
    assert_program_matches(globals()["p_" + name], torch, dt)


# --- helpers ---


def _mlp(lib, dt, sizes=(8, 16, 12, 4), seed=0):
    lib.manual_seed(seed)
    layers = []
    for a, b in zip(sizes[:-1], sizes[1:], strict=False):
        layers += [lib.nn.Linear(a, b), lib.nn.ReLU()]
    return lib.nn.Sequential(*layers[:-1]).to(dt)


def _data(lib, dt, n=32, d=8, k=4, seed=1):
    g = lib.Generator().manual_seed(seed)
    x = lib.randn(n, d, generator=g, dtype=dt)
    y = lib.randint(0, k, (n,), generator=g)
    return x, y


def _sparsity(lib, t):
    return float((t == 0).sum()) / t.numel()


# --- the programs: each takes the library, a dtype and a recorder ---


def p_l1_finetune(lib, dt, rec):
    prune = lib.nn.utils.prune
    model = _mlp(lib, dt)
    x, y = _data(lib, dt)
    rec("pruned0", prune.is_pruned(model))
    for i, m in enumerate(model):
        if isinstance(m, lib.nn.Linear):
            prune.l1_unstructured(m, name="weight", amount=0.3 + 0.1 * i / 2)
            prune.l1_unstructured(m, "bias", amount=2)
    rec("pruned1", prune.is_pruned(model))
    rec("params", str([n for n, _ in model.named_parameters()]))
    rec("buffers", str([n for n, _ in model.named_buffers()]))
    rec("keys", str(list(model.state_dict().keys())))
    rec("hooks", str([type(h).__name__ for h in model[0]._forward_pre_hooks.values()]))
    rec(
        "hook_attrs",
        str([(h._tensor_name, h.amount) for h in model[2]._forward_pre_hooks.values()]),
    )
    rec("repr", repr(model))
    rec("is_param", isinstance(model[0].weight, lib.nn.Parameter))
    rec("sparsity", [_sparsity(lib, m.weight) for m in model if hasattr(m, "weight")])
    opt = lib.optim.SGD(model.parameters(), lr=0.1, momentum=0.9, nesterov=True, weight_decay=1e-4)
    for step in range(5):
        opt.zero_grad()
        loss = lib.nn.functional.cross_entropy(model(x), y)
        loss.backward()
        if step == 0:
            rec("g_orig", model[0].weight_orig.grad)
            rec("g_bias", model[4].bias_orig.grad)
        opt.step()
        rec(f"loss{step}", loss)
    rec("w0", model[0].weight)
    rec("w0_orig", model[0].weight_orig)
    rec("still_zero", bool((model[0].weight[model[0].weight_mask == 0] == 0).all()))
    mom = opt.state[model[0].weight_orig]["momentum_buffer"]
    rec("mom", mom)
    for m in model:
        if hasattr(m, "weight"):
            prune.remove(m, "weight")
            prune.remove(m, "bias")
    rec("pruned2", prune.is_pruned(model))
    rec("keys2", str(list(model.state_dict().keys())))
    rec("out", model(x))
    rec("hooks2", len(model[0]._forward_pre_hooks))


def p_random_masks(lib, dt, rec):
    prune = lib.nn.utils.prune
    lib.manual_seed(3)
    lin = lib.nn.Linear(10, 6).to(dt)
    conv = lib.nn.Conv2d(3, 5, 3).to(dt)
    lib.manual_seed(4)
    prune.random_unstructured(lin, "weight", amount=0.45)
    rec("mask", lin.weight_mask)
    rec("w", lin.weight)
    prune.random_structured(conv, "weight", amount=2, dim=0)
    rec("cmask_rows", conv.weight_mask.sum(dim=(1, 2, 3)))
    prune.random_unstructured(lin, "weight", amount=0.3)  # of the remaining entries
    rec("mask2", lin.weight_mask)
    rec("n_left", lin.weight_mask.sum())
    hook = next(iter(lin._forward_pre_hooks.values()))
    rec("container", type(hook).__name__)
    rec("history", str([type(m).__name__ for m in hook._pruning_methods]))
    prune.random_unstructured(lin, "bias", amount=0)
    rec("bias_mask", lin.bias_mask)
    x = lib.randn(4, 10, dtype=dt)
    rec("y", lin(x))
    y = conv(lib.randn(2, 3, 6, 6, dtype=dt))
    rec("conv_zero_ch", (y.abs().sum(dim=(0, 2, 3)) == conv.bias.abs() * 32).float())


def p_ln_structured_conv(lib, dt, rec):
    prune = lib.nn.utils.prune
    lib.manual_seed(7)
    net = lib.nn.Sequential(
        lib.nn.Conv2d(3, 8, 3, padding=1),
        lib.nn.BatchNorm2d(8),
        lib.nn.ReLU(),
        lib.nn.Conv2d(8, 6, 3),
        lib.nn.AdaptiveAvgPool2d(1),
        lib.nn.Flatten(),
        lib.nn.Linear(6, 3),
    ).to(dt)
    prune.ln_structured(net[0], "weight", amount=0.25, n=2, dim=0)
    prune.ln_structured(net[3], "weight", amount=3, n=1, dim=1)
    prune.ln_structured(net[6], "weight", amount=0.5, n=float("inf"), dim=-1)
    rec("m0", net[0].weight_mask.sum(dim=(1, 2, 3)))
    rec("m3", net[3].weight_mask.sum(dim=(0, 2, 3)))
    rec("m6", net[6].weight_mask)
    norms = net[0].weight_orig.detach().flatten(1).norm(p=2, dim=1)
    rec("norms", norms)
    rec("kept", norms.argsort(descending=True)[:6].sort().values)
    prune.ln_structured(net[0], "weight", amount=0.5, n=-math.inf, dim=2)  # iterative: container
    rec("m0b", net[0].weight_mask.sum(dim=(0, 1, 3)))
    hook = [h for h in net[0]._forward_pre_hooks.values()][0]
    rec("hist", str([(type(m).__name__, m.dim) for m in hook._pruning_methods]))
    x = lib.randn(2, 3, 5, 5, dtype=dt)
    net.train()
    out = net(x)
    out.pow(2).sum().backward()
    rec("out", out)
    rec("g0", net[0].weight_orig.grad)
    rec("g3", net[3].weight_orig.grad)
    rec("bn_mean", net[1].running_mean)


def p_global_scores(lib, dt, rec):
    prune = lib.nn.utils.prune
    lib.manual_seed(11)
    net = lib.nn.Sequential(
        lib.nn.Conv2d(1, 4, 3), lib.nn.ReLU(), lib.nn.Flatten(), lib.nn.Linear(64, 10)
    ).to(dt)
    params = ((net[0], "weight"), (net[3], "weight"), (net[3], "bias"))
    prune.global_unstructured(params, pruning_method=prune.L1Unstructured, amount=0.4)
    total = sum(getattr(m, n).numel() for m, n in params)
    zeros = sum(int((getattr(m, n) == 0).sum()) for m, n in params)
    rec("global", zeros / total)
    rec("per_layer", [_sparsity(lib, getattr(m, n)) for m, n in params])
    # the threshold is the same for every tensor: the largest pruned magnitude
    pruned = lib.cat([getattr(m, n + "_orig")[getattr(m, n + "_mask") == 0] for m, n in params])
    kept = lib.cat([getattr(m, n + "_orig")[getattr(m, n + "_mask") == 1] for m, n in params])
    rec("split", bool(pruned.abs().max() <= kept.abs().min()))
    # gradient-times-weight (Taylor) importance, a second global round on top
    x = lib.randn(8, 1, 6, 6, dtype=dt)
    net(x).logsumexp(dim=1).sum().backward()
    scores = {
        (m, n): (getattr(m, n + "_orig").grad * getattr(m, n + "_orig")).abs() for m, n in params
    }
    prune.global_unstructured(
        params, pruning_method=prune.L1Unstructured, importance_scores=scores, amount=20
    )
    rec("masks", [getattr(m, n + "_mask").sum() for m, n in params])
    rec("mask_lin", net[3].weight_mask)
    rec("out", net(x))
    h = list(net[3]._forward_pre_hooks.values())
    rec("hooks", str([(type(k).__name__, k._tensor_name) for k in h]))
    rec("hist", str([type(m).__name__ for m in h[0]._pruning_methods]))
    # random global pruning
    lib.manual_seed(2)
    prune.global_unstructured(params[:2], pruning_method=prune.RandomUnstructured, amount=0.1)
    rec("rand_masks", [getattr(m, n + "_mask") for m, n in params[:2]])


def p_custom_mask_errors(lib, dt, rec):
    prune = lib.nn.utils.prune
    lib.manual_seed(5)
    lin = lib.nn.Linear(6, 4).to(dt)
    mask = lib.ones(4, 6)
    mask[:, ::2] = 0
    prune.custom_from_mask(lin, "weight", mask=mask)
    rec("w", lin.weight)
    rec("mask_dtype", str(lin.weight_mask.dtype))
    rec("mask_is_copy", lin.weight_mask is mask)
    prune.identity(lin, "bias")
    rec("bias_mask", lin.bias_mask)
    rec("keys", str(list(lin.state_dict())))
    # a second mask composes with the first
    mask2 = lib.ones(4, 6)
    mask2[0] = 0
    prune.custom_from_mask(lin, "weight", mask=mask2)
    rec("w2", lin.weight)
    x = lib.randn(3, 6, dtype=dt, requires_grad=True)
    y = lin(x)
    y.sum().backward()
    rec("gx", x.grad)
    rec("gw", lin.weight_orig.grad)
    rec.err("e_amount", lambda: prune.l1_unstructured(lin, "weight", amount=1.5))
    rec.err("e_neg", lambda: prune.l1_unstructured(lin, "weight", amount=-0.1))
    rec.err("e_int", lambda: prune.l1_unstructured(lin, "weight", amount=30))
    rec.err("e_type", lambda: prune.l1_unstructured(lin, "weight", amount="half"))
    rec.err("e_bool", lambda: prune.l1_unstructured(lin, "weight", amount=True))
    rec.err("e_bool_rs", lambda: prune.random_structured(lin, "weight", amount=True, dim=0))
    rec.err("e_name", lambda: prune.l1_unstructured(lin, "kernel", amount=0.2))
    rec.err("e_remove", lambda: prune.remove(lib.nn.Linear(2, 2), "weight"))
    rec.err("e_dim", lambda: prune.ln_structured(lin, "weight", amount=1, n=2, dim=3))
    rec.err("e_global", lambda: prune.global_unstructured([(lin, "weight")], prune.L1Unstructured))
    rec.err("e_struct_global", lambda: prune.global_unstructured(
        [(lin, "weight")], prune.LnStructured, amount=1, n=2, dim=0))  # fmt: skip
    rec.err("e_imp_shape", lambda: prune.l1_unstructured(
        lin, "bias", amount=1, importance_scores=lib.ones(3)))  # fmt: skip


def p_prune_state_dict(lib, dt, rec):
    prune = lib.nn.utils.prune
    model = _mlp(lib, dt, seed=8)
    prune.l1_unstructured(model[0], "weight", 0.5)
    prune.ln_structured(model[2], "weight", 0.25, n=1, dim=0)
    sd = model.state_dict()
    rec("keys", str(list(sd)))
    rec("mask_dtype", str(sd["0.weight_mask"].dtype))
    buf = io.BytesIO()
    lib.save(sd, buf)
    buf.seek(0)
    loaded = lib.load(buf)
    # a fresh model must be "pruned" (identity) before it accepts the keys
    fresh = _mlp(lib, dt, seed=9)
    r = rec.err("strict", lambda: fresh.load_state_dict(loaded))
    rec("r", str(r))
    res = fresh.load_state_dict(loaded, strict=False)
    rec("missing", str(res.missing_keys))
    rec("unexpected", str(res.unexpected_keys))
    fresh = _mlp(lib, dt, seed=9)
    prune.identity(fresh[0], "weight")
    prune.identity(fresh[2], "weight")
    rec("load", str(fresh.load_state_dict(loaded)))
    x, _ = _data(lib, dt)
    rec("same_out", (fresh(x) - model(x)).abs().max())
    rec("w", fresh[0].weight)
    # after remove, the dense checkpoint has the plain keys and zeros inside
    for m in (model[0], model[2]):
        prune.remove(m, "weight")
    sd2 = model.state_dict()
    rec("keys2", str(list(sd2)))
    rec("zeros", [int((v == 0).sum()) for v in sd2.values()])
    rec("requires_grad", [p.requires_grad for p in model.parameters()])


def p_gradual_schedule(lib, dt, rec):
    # Zhu & Gupta's cubic sparsity schedule, pruning a little more of the survivors each step
    prune = lib.nn.utils.prune
    model = _mlp(lib, dt, sizes=(8, 24, 4), seed=12)
    x, y = _data(lib, dt, n=48, seed=13)
    opt = lib.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    final, steps = 0.8, 4
    targets = []
    layers = [m for m in model if isinstance(m, lib.nn.Linear)]
    for t in range(steps + 1):
        target = final * (1 - (1 - t / steps) ** 3)
        targets.append(target)
        for m in layers:
            cur = _sparsity(lib, m.weight)
            amount = 0.0 if cur >= 1 else max(0.0, (target - cur) / (1 - cur))
            prune.l1_unstructured(m, "weight", amount=amount)
        for _ in range(3):
            opt.zero_grad()
            loss = lib.nn.functional.cross_entropy(model(x), y, label_smoothing=0.1)
            loss.backward()
            opt.step()
        rec(f"loss{t}", loss)
        rec(f"sp{t}", [_sparsity(lib, m.weight) for m in layers])
    rec("targets", targets)
    hook = list(layers[0]._forward_pre_hooks.values())[0]
    rec("n_methods", len(hook._pruning_methods))
    rec("amounts", str([round(m.amount, 6) if isinstance(m.amount, float) else m.amount
                        for m in hook._pruning_methods]))  # fmt: skip
    rec("w", layers[1].weight)
    # the optimizer holds weight_orig, whose pruned entries keep moving: only the mask is zero
    rec("orig_nonzero", int((layers[0].weight_orig != 0).sum()))


def p_sparsity_stats(lib, dt, rec):
    lib.manual_seed(21)
    conv = lib.nn.Conv2d(4, 6, 3).to(dt)
    lin = lib.nn.Linear(20, 10).to(dt)
    w = conv.weight.detach()
    # a magnitude threshold by kthvalue, as a manual mask on a buffer
    k = int(0.6 * w.numel())
    thr = w.abs().flatten().kthvalue(k).values
    mask = (w.abs() > thr).to(dt)
    conv.register_buffer("mask", mask)
    rec("thr", thr)
    rec("nnz", lib.count_nonzero(mask))
    rec("nnz_dim", lib.count_nonzero(mask, dim=(1, 2, 3)))
    rec("density", mask.mean())
    with lib.no_grad():
        conv.weight.mul_(conv.mask)
    # mask the gradient so momentum never revives pruned weights
    handle = conv.weight.register_hook(lambda g: g * conv.mask)
    opt = lib.optim.SGD(list(conv.parameters()) + list(lin.parameters()), lr=0.1, momentum=0.8)
    x = lib.randn(5, 4, 6, 6, dtype=dt)
    for _ in range(3):
        opt.zero_grad()
        h = conv(x).flatten(1)[:, :20]
        loss = lin(h.tanh()).pow(2).mean()
        loss.backward()
        opt.step()
    rec("loss", loss)
    rec("zeros_kept", bool((conv.weight[mask == 0] == 0).all()))
    handle.remove()
    # per-filter statistics
    ch = conv.weight.detach().flatten(1)
    rec("l1", ch.abs().sum(1))
    rec("l2", lib.linalg.vector_norm(ch, dim=1))
    rec("linf", lib.linalg.vector_norm(ch, ord=float("inf"), dim=1))
    rec("row_nnz", (ch != 0).sum(1))
    rec("topk", ch.abs().flatten().topk(5).values)
    rec("nonzero", lib.nonzero(mask[0, 0]))
    rec("hist", lib.histc(conv.weight.detach().abs(), bins=5, min=0, max=0.3))
    rec("quant", lib.quantile(ch.abs().flatten(), lib.tensor([0.25, 0.5, 0.9], dtype=dt)))
    params = sum(p.numel() for p in conv.parameters())
    nnz = sum(int(lib.count_nonzero(p)) for p in conv.parameters())
    rec("compression", params / nnz)
    rec("bits", nnz * (32 + math.ceil(math.log2(params))))


def p_shrink_channels(lib, dt, rec):
    # structured pruning, then a physically smaller network with the same function
    prune = lib.nn.utils.prune
    lib.manual_seed(31)
    c1 = lib.nn.Conv2d(3, 8, 3, padding=1).to(dt)
    c2 = lib.nn.Conv2d(8, 5, 3).to(dt)
    prune.ln_structured(c1, "weight", amount=3, n=1, dim=0)
    prune.remove(c1, "weight")
    keep = c1.weight.flatten(1).abs().sum(1).nonzero().squeeze(1)
    rec("keep", keep)
    s1 = lib.nn.Conv2d(3, len(keep), 3, padding=1).to(dt)
    s2 = lib.nn.Conv2d(len(keep), 5, 3).to(dt)
    with lib.no_grad():
        s1.weight.copy_(c1.weight.index_select(0, keep))
        s1.bias.copy_(c1.bias[keep])
        s2.weight.copy_(c2.weight[:, keep])
        s2.bias.copy_(c2.bias)
    # the removed channels still carry their bias through ReLU: fold it into c2's bias
    dead = lib.ones(8, dtype=lib.bool)
    dead[keep] = False
    with lib.no_grad():
        s2.bias.add_((c2.weight[:, dead].sum(dim=(2, 3)) * c1.bias[dead].relu()).sum(1))
    x = lib.randn(2, 3, 7, 7, dtype=dt)
    big = c2(c1(x).relu())
    small = s2(s1(x).relu())
    rec("big", big)
    rec("small", small)
    rec("sizes", [sum(p.numel() for p in m.parameters()) for m in (c1, c2, s1, s2)])
    rec("repr", repr(s1))
    # linear layers: drop hidden units with the smallest outgoing norm
    lib.manual_seed(32)
    l1, l2 = lib.nn.Linear(6, 10).to(dt), lib.nn.Linear(10, 3).to(dt)
    score = l2.weight.norm(dim=0) * l1.weight.norm(dim=1)
    idx = score.topk(6).indices.sort().values
    rec("idx", idx)
    t1, t2 = lib.nn.Linear(6, 6).to(dt), lib.nn.Linear(6, 3).to(dt)
    t1.weight = lib.nn.Parameter(l1.weight[idx].detach().clone())
    t1.bias = lib.nn.Parameter(l1.bias[idx].detach().clone())
    t2.weight = lib.nn.Parameter(l2.weight[:, idx].detach().clone())
    t2.bias = lib.nn.Parameter(l2.bias.detach().clone())
    z = lib.randn(4, 6, dtype=dt)
    rec("gap", (l2(l1(z).relu()) - t2(t1(z).relu())).abs().max())


def p_param_symmetric_cached(lib, dt, rec):
    P = lib.nn.utils.parametrize
    calls = []

    class Symmetric(lib.nn.Module):
        def forward(self, X):
            calls.append(1)
            return X.triu() + X.triu(1).transpose(-1, -2)

        def right_inverse(self, A):
            return A.triu()

    lib.manual_seed(41)
    lin = lib.nn.Linear(5, 5).to(dt)
    w0 = lin.weight.detach().clone()
    P.register_parametrization(lin, "weight", Symmetric())
    rec("orig", lin.parametrizations.weight.original)
    rec("orig_is_triu", bool((lin.parametrizations.weight.original == w0.triu()).all()))
    rec("sym", bool((lin.weight == lin.weight.T).all()))
    rec("repr", repr(lin))
    rec("cls", type(lin).__name__)
    rec("before", P.type_before_parametrizations(lin).__name__)
    rec("keys", str(list(lin.state_dict())))
    rec("params", str([n for n, _ in lin.named_parameters()]))
    rec("is_p", [P.is_parametrized(lin), P.is_parametrized(lin, "weight"),
                 P.is_parametrized(lin, "bias")])  # fmt: skip
    x = lib.randn(4, 5, dtype=dt)
    calls.clear()
    with P.cached():
        y = lin(x) + lin(x) + lin.weight.sum()
    rec("calls_cached", len(calls))
    calls.clear()
    y2 = lin(x) + lin(x) + lin.weight.sum()
    rec("calls_plain", len(calls))
    rec("same", (y - y2).abs().max())
    y.pow(2).mean().backward()
    rec("g", lin.parametrizations.weight.original.grad)
    # assigning to the parametrized weight goes through right_inverse
    with lib.no_grad():
        lin.weight = lib.eye(5, dtype=dt) * 2 + 1
    rec("orig2", lin.parametrizations.weight.original)
    opt = lib.optim.Adam(lin.parameters(), lr=0.01)
    for _ in range(3):
        opt.zero_grad()
        lin(x).sin().sum().backward()
        opt.step()
    rec("w_train", lin.weight)
    P.remove_parametrizations(lin, "weight", leave_parametrized=True)
    rec("after", repr(lin))
    rec("keys2", str(list(lin.state_dict())))
    rec("w_after", lin.weight)
    rec("is_param", type(lin.weight).__name__)


def p_param_two_originals(lib, dt, rec):
    # a weight stored as a rank-r product: right_inverse returns two tensors (original0/1)
    P = lib.nn.utils.parametrize

    class LowRank(lib.nn.Module):
        def __init__(self, r):
            super().__init__()
            self.r = r

        def forward(self, A, B):
            return A @ B

        def right_inverse(self, W):
            U, S, Vh = lib.linalg.svd(W, full_matrices=False)
            s = S[: self.r].sqrt()
            return U[:, : self.r] * s, s[:, None] * Vh[: self.r]

    lib.manual_seed(42)
    lin = lib.nn.Linear(7, 6).to(dt)
    W = lin.weight.detach().clone()
    P.register_parametrization(lin, "weight", LowRank(3))
    pl = lin.parametrizations.weight
    rec("names", str([n for n, _ in lin.named_parameters()]))
    rec("shapes", str([tuple(p.shape) for p in lin.parameters()]))
    rec("ntensors", pl.ntensors)
    rec("is_tensor", pl.is_tensor)
    rec("approx_err", lib.linalg.matrix_norm(lin.weight - W))
    rec("svals_tail", lib.linalg.svdvals(W)[3:].pow(2).sum().sqrt())
    rec("repr", repr(lin))
    x = lib.randn(5, 7, dtype=dt)
    lin(x).pow(2).sum().backward()
    rec(
        "gAB",
        (pl.original0.grad @ pl.original1).abs().sum()
        + (pl.original0 @ pl.original1.grad).abs().sum(),
    )
    rec("Bgrad_norm", pl.original0.grad.norm() * pl.original1.norm())
    rec(
        "err_assign",
        rec.err("e", lambda: setattr(lin, "weight", lib.zeros(6, 7, dtype=dt))) is None,
    )
    rec("keys", str(list(lin.state_dict())))
    P.remove_parametrizations(lin, "weight", leave_parametrized=True)
    rec("rank", lib.linalg.matrix_rank(lin.weight.detach()))
    rec.err("e_leave", lambda: _two_orig_leave_false(lib, LowRank, dt))


def _two_orig_leave_false(lib, LowRank, dt):
    lin = lib.nn.Linear(4, 4).to(dt)
    lib.nn.utils.parametrize.register_parametrization(lin, "weight", LowRank(2))
    lib.nn.utils.parametrize.remove_parametrizations(lin, "weight", leave_parametrized=False)


def p_orthogonal_train(lib, dt, rec):
    orth = lib.nn.utils.parametrizations.orthogonal
    lib.manual_seed(51)
    out = {}
    for omap in ("matrix_exp", "cayley", "householder"):
        lin = lib.nn.Linear(6, 4).to(dt)
        orth(lin, orthogonal_map=omap)
        W = lin.weight
        out[omap] = W
        rec(f"{omap}.gram", W @ W.T)
        rec(f"{omap}.keys", str(list(lin.state_dict())))
        x = lib.randn(8, 6, dtype=dt)
        target = lib.randn(8, 4, dtype=dt)
        opt = lib.optim.SGD(lin.parameters(), lr=0.1)
        for _ in range(4):
            opt.zero_grad()
            loss = lib.nn.functional.mse_loss(lin(x), target)
            loss.backward()
            opt.step()
        rec(f"{omap}.loss", loss)
        W = lin.weight
        rec(f"{omap}.gram2", W @ W.T)
        rec(f"{omap}.W", W)
    lin = lib.nn.Linear(3, 3).to(dt)
    orth(lin, use_trivialization=False)
    rec("no_triv_keys", str(list(lin.state_dict())))
    rec("repr", repr(lin.parametrizations.weight[0]))
    # a square recurrent weight kept orthogonal
    rnn = lib.nn.RNN(4, 4, batch_first=True).to(dt)
    orth(rnn, "weight_hh_l0")
    h = rnn(lib.randn(2, 5, 4, dtype=dt))[0]
    rec("rnn", h)
    rec("det", lib.linalg.det(rnn.weight_hh_l0).abs())


def p_spectral_norm_train(lib, dt, rec):
    sn = lib.nn.utils.parametrizations.spectral_norm
    lib.manual_seed(61)
    D = lib.nn.Sequential(
        sn(lib.nn.Linear(5, 16).to(dt)),
        lib.nn.LeakyReLU(0.2),
        sn(lib.nn.Linear(16, 1).to(dt), n_power_iterations=3),
    )
    rec("keys", str(list(D.state_dict())))
    rec("u", D[0].parametrizations.weight[0]._u)
    opt = lib.optim.Adam(D.parameters(), lr=1e-2, betas=(0.5, 0.9))
    x = lib.randn(10, 5, dtype=dt)
    for _ in range(3):
        opt.zero_grad()
        loss = lib.nn.functional.softplus(-D(x)).mean()
        loss.backward()
        opt.step()
        rec("loss", loss)
    rec("sigma", lib.linalg.matrix_norm(D[0].weight.detach(), ord=2))
    rec("u2", D[0].parametrizations.weight[0]._u)
    D.eval()
    w_eval = D[0].weight.detach().clone()
    rec("eval_stable", (D[0].weight - w_eval).abs().max())
    rec("out", D(x))
    conv = sn(lib.nn.Conv2d(2, 3, 3).to(dt))
    rec("conv_v", conv.parametrizations.weight[0]._v.shape[0])
    rec("conv_out", conv(lib.randn(1, 2, 5, 5, dtype=dt)))


def p_weight_norm_train(lib, dt, rec):
    wn = lib.nn.utils.parametrizations.weight_norm
    P = lib.nn.utils.parametrize
    lib.manual_seed(71)
    lin = wn(lib.nn.Linear(5, 3).to(dt))
    conv = wn(lib.nn.Conv1d(2, 4, 3).to(dt), dim=None)
    rec("names", str([n for n, _ in lin.named_parameters()]))
    rec("g", lin.parametrizations.weight.original0)
    rec("g_conv", conv.parametrizations.weight.original0)
    rec("repr", repr(lin))
    x = lib.randn(6, 5, dtype=dt)
    opt = lib.optim.SGD(lin.parameters(), lr=0.2, momentum=0.5)
    for _ in range(3):
        opt.zero_grad()
        lin(x).logsumexp(1).mean().backward()
        opt.step()
    rec("g_grad", lin.parametrizations.weight.original0.grad)
    rec("v_grad", lin.parametrizations.weight.original1.grad)
    rec("w", lin.weight)
    rec("row_norms", lin.weight.norm(dim=1) - lin.parametrizations.weight.original0.squeeze(1))
    y = conv(lib.randn(2, 2, 6, dtype=dt))
    rec("conv_y", y)
    P.remove_parametrizations(lin, "weight")
    rec("keys", str(list(lin.state_dict())))
    rec("w_after", lin.weight)


def p_svd_factorise(lib, dt, rec):
    # replace each Linear by two thinner ones keeping 90% of the spectral energy
    lib.manual_seed(81)
    model = lib.nn.Sequential(lib.nn.Linear(12, 10), lib.nn.GELU(), lib.nn.Linear(10, 6)).to(dt)
    with lib.no_grad():
        model[0].weight.copy_(model[0].weight * lib.logspace(0, -2, 12, dtype=dt))
    x = lib.randn(20, 12, dtype=dt)
    ref = model(x)
    for i in (0, 2):
        lin = model[i]
        U, S, Vh = lib.linalg.svd(lin.weight.detach(), full_matrices=False)
        energy = S.pow(2).cumsum(0) / S.pow(2).sum()
        r = int((energy < 0.9).sum()) + 1
        rec(f"S{i}", S)
        rec(f"energy{i}", energy)
        rec(f"r{i}", r)
        first = lib.nn.Linear(lin.in_features, r, bias=False).to(dt)
        second = lib.nn.Linear(r, lin.out_features).to(dt)
        with lib.no_grad():
            first.weight.copy_(S[:r, None].sqrt() * Vh[:r])
            second.weight.copy_(U[:, :r] * S[:r].sqrt())
            second.bias.copy_(lin.bias)
        rec(f"prod{i}", second.weight @ first.weight)
        rec(f"err{i}", lib.linalg.matrix_norm(second.weight @ first.weight - lin.weight))
        rec(f"tail{i}", S[r:].pow(2).sum().sqrt())
        model[i] = lib.nn.Sequential(first, second)
    rec("repr", repr(model))
    out = model(x)
    rec("out", out)
    rec("rel_err", (out - ref).norm() / ref.norm())
    rec("params", sum(p.numel() for p in model.parameters()))
    # gradient of a sign-free spectral loss (nuclear norm) and of the reconstruction
    W = lib.randn(5, 4, dtype=dt, requires_grad=True)
    U, S, Vh = lib.linalg.svd(W, full_matrices=False)
    (S.sum() + (U[:, :2] * S[:2] @ Vh[:2]).pow(2).sum()).backward()
    rec("gW", W.grad)
    rec("nuc", lib.linalg.matrix_norm(W.detach(), ord="nuc"))
    rec("svdvals", lib.linalg.svdvals(W.detach()))
    Uf, Sf, Vhf = lib.linalg.svd(W.detach())
    rec("full_shapes", str([tuple(t.shape) for t in (Uf, Sf, Vhf)]))
    rec("Uf_orth", Uf.T @ Uf)


def p_svd_lowrank(lib, dt, rec):
    g = lib.Generator().manual_seed(91)
    A = lib.randn(40, 8, generator=g, dtype=dt) @ lib.randn(8, 30, generator=g, dtype=dt)
    A = A + 1e-3 * lib.randn(40, 30, generator=g, dtype=dt)
    lib.manual_seed(92)
    U, S, V = lib.svd_lowrank(A, q=10, niter=3)
    rec("shapes", str([tuple(t.shape) for t in (U, S, V)]))
    rec("S", S)
    rec("exact", lib.linalg.svdvals(A)[:10])
    rec("recon", (U[:, :8] * S[:8]) @ V[:, :8].T)
    rec("rel", lib.linalg.matrix_norm(A - (U * S) @ V.T) / lib.linalg.matrix_norm(A))
    rec("UtU", U.T @ U)
    # a wide matrix and a centred one (pca_lowrank)
    lib.manual_seed(93)
    U2, S2, V2 = lib.svd_lowrank(A.T, q=6)
    rec("S2", S2)
    lib.manual_seed(94)
    _, S3, V3 = lib.pca_lowrank(A, q=5)
    rec("S3", S3)
    rec("V3proj", (V3 @ V3.T).diagonal())
    # compress a Linear layer by it
    lib.manual_seed(95)
    lin = lib.nn.Linear(30, 40).to(dt)
    with lib.no_grad():
        lin.weight.copy_(A / A.norm())
    U, S, V = lib.svd_lowrank(lin.weight.detach(), q=8, niter=4)
    down = lib.nn.Linear(30, 8, bias=False).to(dt)
    up = lib.nn.Linear(8, 40).to(dt)
    with lib.no_grad():
        down.weight.copy_((V * S).T)
        up.weight.copy_(U)
        up.bias.copy_(lin.bias)
    x = lib.randn(3, 30, dtype=dt)
    rec("lr_out", up(down(x)))
    rec("lr_gap", (up(down(x)) - lin(x)).abs().max())


def _lora_class(lib):
    nn = lib.nn

    class LoRALinear(nn.Module):
        def __init__(self, base, r=4, alpha=8, dropout=0.0):
            super().__init__()
            self.base = base
            self.base.requires_grad_(False)
            self.lora_A = nn.Parameter(lib.empty(r, base.in_features, dtype=base.weight.dtype))
            self.lora_B = nn.Parameter(lib.zeros(base.out_features, r, dtype=base.weight.dtype))
            nn.init.kaiming_uniform_(self.lora_A, a=math.sqrt(5))
            self.scaling = alpha / r
            self.drop = nn.Dropout(dropout)
            self.merged = False

        def forward(self, x):
            y = self.base(x)
            if self.merged:
                return y
            return y + self.drop(x) @ self.lora_A.T @ self.lora_B.T * self.scaling

        @lib.no_grad()
        def merge(self):
            self.base.weight += self.lora_B @ self.lora_A * self.scaling
            self.merged = True

        def extra_repr(self):
            return f"r={self.lora_A.shape[0]}, scaling={self.scaling}"

    return LoRALinear


def p_lora_linear(lib, dt, rec):
    LoRALinear = _lora_class(lib)
    lib.manual_seed(101)
    model = lib.nn.Sequential(
        lib.nn.Linear(10, 16), lib.nn.Tanh(), lib.nn.Linear(16, 16), lib.nn.Tanh(),
        lib.nn.Linear(16, 3),
    ).to(dt)  # fmt: skip
    for p in model.parameters():
        p.requires_grad_(False)
    for i in (0, 2):
        model[i] = LoRALinear(model[i], r=4, alpha=16, dropout=0.1)
    rec("repr", repr(model))
    trainable = [n for n, p in model.named_parameters() if p.requires_grad]
    rec("trainable", str(trainable))
    n_train = sum(p.numel() for p in model.parameters() if p.requires_grad)
    n_all = sum(p.numel() for p in model.parameters())
    rec("ratio", n_train / n_all)
    x, _ = _data(lib, dt, n=24, d=10, seed=102)
    y = lib.randn(24, 3, dtype=dt)
    rec("init_same", model(x) - model[4](model[3](model[2].base(model[1](model[0].base(x))))))
    opt = lib.optim.AdamW([p for p in model.parameters() if p.requires_grad], lr=1e-2,
                          weight_decay=0.01)  # fmt: skip
    model.train()
    for step in range(4):
        opt.zero_grad(set_to_none=True)
        loss = lib.nn.functional.smooth_l1_loss(model(x), y)
        loss.backward()
        opt.step()
        rec(f"loss{step}", loss)
    rec("base_grad", str([p.grad is None for p in model[0].base.parameters()]))
    rec("B", model[0].lora_B)
    rec("A_grad", model[2].lora_A.grad)
    # save only the adapter
    adapter = {k: v for k, v in model.state_dict().items() if "lora_" in k}
    rec("adapter_keys", str(list(adapter)))
    buf = io.BytesIO()
    lib.save(adapter, buf)
    buf.seek(0)
    model.eval()
    before = model(x)
    for i in (0, 2):
        model[i].merge()
    after = model(x)
    rec("merged_gap", (after - before).abs().max())
    rec("merged_w", model[0].base.weight)
    # a fresh copy loads the adapter non-strictly
    lib.manual_seed(101)
    fresh = lib.nn.Sequential(
        lib.nn.Linear(10, 16), lib.nn.Tanh(), lib.nn.Linear(16, 16), lib.nn.Tanh(),
        lib.nn.Linear(16, 3),
    ).to(dt)  # fmt: skip
    for i in (0, 2):
        fresh[i] = LoRALinear(fresh[i], r=4, alpha=16)
    res = fresh.load_state_dict(lib.load(buf), strict=False)
    rec("missing", str(res.missing_keys))
    rec("unexpected", str(res.unexpected_keys))
    fresh.eval()
    rec("fresh_gap", (fresh(x) - before).abs().max())


def p_lora_parametrize(lib, dt, rec):
    P = lib.nn.utils.parametrize

    class LoRA(lib.nn.Module):
        def __init__(self, out_f, in_f, r, alpha):
            super().__init__()
            self.A = lib.nn.Parameter(lib.randn(r, in_f, dtype=dt) * 0.1)
            self.B = lib.nn.Parameter(lib.zeros(out_f, r, dtype=dt))
            self.scale = alpha / r
            self.enabled = True

        def forward(self, W):
            return W + self.B @ self.A * self.scale if self.enabled else W

    lib.manual_seed(111)
    lin = lib.nn.Linear(6, 5).to(dt)
    lin.weight.requires_grad_(False)
    P.register_parametrization(lin, "weight", LoRA(5, 6, 2, 4))
    rec("names", str([n for n, p in lin.named_parameters() if p.requires_grad]))
    rec("orig_rg", lin.parametrizations.weight.original.requires_grad)
    rec("repr", repr(lin))
    x = lib.randn(7, 6, dtype=dt)
    opt = lib.optim.SGD([p for p in lin.parameters() if p.requires_grad], lr=0.3, momentum=0.9)
    for _ in range(3):
        opt.zero_grad()
        lin(x).pow(2).mean().backward()
        opt.step()
    lora = lin.parametrizations.weight[0]
    rec("B", lora.B)
    rec("delta", lin.weight - lin.parametrizations.weight.original)
    lora.enabled = False
    rec("disabled", lin(x))
    lora.enabled = True
    merged = lin.weight.detach().clone()
    P.remove_parametrizations(lin, "weight", leave_parametrized=True)
    rec("merged_gap", (lin.weight - merged).abs().max())
    rec("keys", str(list(lin.state_dict())))
    rec("rg", lin.weight.requires_grad)


def _fq_ste(lib, x, scale, zp, qmin, qmax):
    q = (x / scale + zp).round().clamp(qmin, qmax)
    xq = (q - zp) * scale
    return x + (xq - x).detach()


def p_ste_fake_quant(lib, dt, rec):
    g = lib.Generator().manual_seed(121)
    x = (lib.randn(64, generator=g, dtype=dt) * 3).requires_grad_()
    scale, zp = 0.05, 3
    a = _fq_ste(lib, x, scale, zp, -128, 127)
    a.sum().backward()
    rec("ste", a)
    rec("ste_grad", x.grad)  # all ones: STE without clipping
    x.grad = None
    b = lib.fake_quantize_per_tensor_affine(x, scale, zp, -128, 127)
    (b * lib.arange(64, dtype=dt)).sum().backward()
    rec("fq", b)
    rec("fq_grad", x.grad)  # zero outside the clamped range
    rec("fq_fn", type(b.grad_fn).__name__)
    rec("agree", (a - b).abs().max())
    # the clipped STE by hand: zero gradient where the value saturates
    x.grad = None
    lo, hi = (-128 - zp) * scale, (127 - zp) * scale
    c = x.clamp(lo, hi)
    c = c + ((c / scale + zp).round() - zp) * scale - c.detach()
    c.sum().backward()
    rec("clip_grad", x.grad)
    # per-tensor with tensor qparams, symmetric int8 per-channel weights
    w = lib.randn(6, 10, generator=g, dtype=dt).requires_grad_()
    amax = w.detach().abs().amax(dim=1)
    s = (amax / 127).float()
    zpc = lib.zeros(6, dtype=lib.int32)
    wq = lib.fake_quantize_per_channel_affine(w, s, zpc, 0, -127, 127)
    rec("wq", wq)
    rec("scales", s)
    rec("levels", lib.unique(((wq / s.to(dt)[:, None]).round()).flatten()).numel())
    (wq.pow(2)).sum().backward()
    rec("wq_grad", w.grad)
    rec("pc_fn", type(wq.grad_fn).__name__)
    st = lib.tensor([0.1]), lib.tensor([0], dtype=lib.int32)
    y = lib.fake_quantize_per_tensor_affine(x.detach().float(), st[0], st[1], 0, 255)
    rec("tensor_qparams", y)
    # uint8 asymmetric from min/max
    mn, mx = x.detach().min(), x.detach().max()
    sc = (mx - mn) / 255
    z = (-mn / sc).round().clamp(0, 255)
    rec("asym", lib.fake_quantize_per_tensor_affine(x.detach(), float(sc), int(z), 0, 255))
    # non-finite and huge values: per-tensor clamps the float, per-channel goes through int64
    odd = lib.tensor([float("inf"), -float("inf"), float("nan"), 1e30, -1e30, 0.3], dtype=dt)
    rec("odd_pt", lib.fake_quantize_per_tensor_affine(odd, 0.1, 2, -128, 127))
    one = (lib.tensor([0.1]), lib.tensor([2], dtype=lib.int32), lib.tensor([2.0]))
    rec("odd_pc", lib.fake_quantize_per_channel_affine(odd[None], one[0], one[1], 0, -128, 127))
    rec("odd_pcf", lib.fake_quantize_per_channel_affine(odd[None], one[0], one[2], 0, -128, 127))
    xo = odd.float().requires_grad_()
    so, zo = lib.tensor([0.1], requires_grad=True), lib.tensor([2.0], requires_grad=True)
    yo = lib._fake_quantize_learnable_per_tensor_affine(xo, so, zo, -128, 127, 1.0)
    (yo.nan_to_num() * lib.arange(1.0, 7.0)).sum().backward()
    rec("odd_learn", yo)
    rec("odd_learn_gx", xo.grad)
    rec("odd_learn_gs", so.grad)
    rec("odd_learn_gz", zo.grad)
    rec("mse", (lib.fake_quantize_per_tensor_affine(x.detach(), float(sc), int(z), 0, 255)
                - x.detach()).pow(2).mean())  # fmt: skip


def p_qat_loop(lib, dt, rec):
    # quantization-aware training: fake-quantized weights and activations with EMA observers
    nn = lib.nn

    class QLinear(nn.Linear):
        def __init__(self, *a, **k):
            super().__init__(*a, **k)
            self.register_buffer("act_min", lib.tensor(0.0))
            self.register_buffer("act_max", lib.tensor(0.0))
            self.register_buffer("seen", lib.tensor(0))

        def forward(self, x):
            if self.training:
                with lib.no_grad():
                    mn, mx = x.min(), x.max()
                    if int(self.seen) == 0:
                        self.act_min.copy_(mn)
                        self.act_max.copy_(mx)
                    else:
                        self.act_min.lerp_(mn, 0.1)
                        self.act_max.lerp_(mx, 0.1)
                    self.seen += 1
            lo, hi = min(float(self.act_min), 0.0), max(float(self.act_max), 0.0)
            sc = max((hi - lo) / 255, 1e-8)
            zp = int(round(-lo / sc))
            xq = lib.fake_quantize_per_tensor_affine(x, sc, zp, 0, 255)
            ws = (self.weight.detach().abs().amax(dim=1) / 127).clamp_min(1e-8).float()
            wq = lib.fake_quantize_per_channel_affine(
                self.weight, ws, lib.zeros_like(ws, dtype=lib.int32), 0, -127, 127
            )
            return nn.functional.linear(xq, wq, self.bias)

    lib.manual_seed(131)
    model = nn.Sequential(QLinear(6, 12), nn.ReLU(), QLinear(12, 3)).to(dt)
    x, y = _data(lib, dt, n=40, d=6, k=3, seed=132)
    opt = lib.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    sched = lib.optim.lr_scheduler.StepLR(opt, step_size=2, gamma=0.5)
    for step in range(5):
        opt.zero_grad()
        loss = nn.functional.cross_entropy(model(x), y)
        loss.backward()
        opt.step()
        sched.step()
        rec(f"loss{step}", loss)
    rec("obs", [model[0].act_min, model[0].act_max, model[2].act_min, model[2].act_max])
    rec("seen", model[0].seen)
    rec("keys", str(list(model.state_dict())))
    model.eval()
    out = model(x)
    rec("eval_out", out)
    rec("acc", (out.argmax(1) == y).float().mean())
    rec("lr", sched.get_last_lr())


def p_lsq_learnable(lib, dt, rec):
    # LSQ: a learnable step size with gradient scaling, by hand and by torch's learnable kernel
    g = lib.Generator().manual_seed(141)
    w = lib.randn(8, 5, generator=g, dtype=dt).requires_grad_()
    qn, qp = -8, 7
    step = lib.tensor(2 * w.detach().abs().mean() / math.sqrt(qp), dtype=dt, requires_grad=True)
    gscale = 1.0 / math.sqrt(w.numel() * qp)

    def grad_scale(t, s):
        return (t - t * s).detach() + t * s

    def round_pass(t):
        return (t.round() - t).detach() + t

    s = grad_scale(step, gscale)
    wq = round_pass((w / s).clamp(qn, qp)) * s
    loss = (wq - w.detach() * 0.9).pow(2).sum()
    loss.backward()
    rec("wq", wq)
    rec("g_step", step.grad)
    rec("g_w", w.grad)
    # the same through _fake_quantize_learnable_per_tensor_affine (float32 qparams)
    wf = w.detach().float().requires_grad_()
    sc = lib.tensor([float(step)], requires_grad=True)
    zp = lib.tensor([0.0], requires_grad=True)
    out = lib._fake_quantize_learnable_per_tensor_affine(wf, sc, zp, qn, qp, gscale)
    (out - wf.detach() * 0.9).pow(2).sum().backward()
    rec("k_out", out)
    rec("k_g_scale", sc.grad)
    rec("k_g_zp", zp.grad)
    rec("k_g_w", wf.grad)
    # a few optimisation steps of the step size alone
    w2 = w.detach()
    step2 = step.detach().clone().requires_grad_()
    opt = lib.optim.Adam([step2], lr=0.01)
    for _ in range(5):
        opt.zero_grad()
        q = round_pass((w2 / step2).clamp(qn, qp)) * step2
        err = (q - w2).pow(2).mean()
        err.backward()
        opt.step()
    rec("step2", step2)
    rec("err", err)


def p_kmeans_share(lib, dt, rec):
    # weight sharing: k-means codebook, indices, and centroid fine-tuning by scatter of grads
    lib.manual_seed(151)
    lin = lib.nn.Linear(12, 8).to(dt)
    w = lin.weight.detach().flatten()
    k = 6
    cent = lib.linspace(float(w.min()), float(w.max()), k, dtype=dt)
    for _ in range(8):
        assign = lib.cdist(w[:, None], cent[:, None]).argmin(1)
        sums = lib.zeros(k, dtype=dt).index_add_(0, assign, w)
        counts = lib.bincount(assign, minlength=k).to(dt)
        cent = lib.where(counts > 0, sums / counts.clamp_min(1), cent)
    rec("cent", cent)
    rec("counts", lib.bincount(assign, minlength=k))
    rec("inertia", (w - cent[assign]).pow(2).sum())
    codebook = lib.nn.Parameter(cent.clone())
    idx = assign.view(8, 12)
    x = lib.randn(10, 12, dtype=dt)
    target = lin(x).detach() + 0.1
    opt = lib.optim.SGD([codebook, lin.bias], lr=0.05, momentum=0.9)
    for _ in range(4):
        opt.zero_grad()
        W = codebook[idx]
        loss = lib.nn.functional.mse_loss(lib.nn.functional.linear(x, W, lin.bias), target)
        loss.backward()
        opt.step()
    rec("loss", loss)
    rec("codebook", codebook)
    rec("grad_by_hand", lib.zeros(k, dtype=dt).scatter_add(0, idx.flatten(), W.grad.flatten())
        if W.grad is not None else codebook.grad)  # fmt: skip
    rec("bits", idx.numel() * math.ceil(math.log2(k)) + k * 32)
    rec("idx_u8", idx.to(lib.uint8)[:2])
    _, inv = lib.unique(idx, return_inverse=True)
    rec("inv", inv[0])


def p_int8_storage(lib, dt, rec):
    lib.manual_seed(161)
    model = _mlp(lib, dt, sizes=(16, 32, 8), seed=161)
    packed = {}
    for name, p in model.state_dict().items():
        if p.ndim == 2:
            s = p.abs().amax(dim=1, keepdim=True) / 127
            q = (p / s).round().clamp(-127, 127).to(lib.int8)
            packed[name] = q
            packed[name + ".scale"] = s.to(lib.float16)
        else:
            packed[name] = p.to(lib.bfloat16)
    rec("dtypes", str([str(v.dtype) for v in packed.values()]))
    rec("nbytes", [v.nelement() * v.element_size() for v in packed.values()])
    rec("orig_bytes", sum(v.nelement() * v.element_size() for v in model.state_dict().values()))
    buf = io.BytesIO()
    lib.save(packed, buf)
    buf.seek(0)
    back = lib.load(buf)
    rec("q0", back["0.weight"][:3])
    deq = {}
    for name in model.state_dict():
        v = back[name]
        deq[name] = (v.to(dt) * back[name + ".scale"].to(dt)) if v.dtype == lib.int8 else v.to(dt)
    restored = _mlp(lib, dt, sizes=(16, 32, 8), seed=0)
    restored.load_state_dict(deq)
    x = lib.randn(5, 16, dtype=dt)
    rec("gap", (restored(x) - model(x)).abs().max())
    rec("w_err", (restored[0].weight - model[0].weight).abs().max())
    # integer matmul in int32 accumulation, then rescale
    xq_s = x.abs().amax() / 127
    xq = (x / xq_s).round().clamp(-127, 127).to(lib.int32)
    wq = back["0.weight"].to(lib.int32)
    acc = xq @ wq.T
    rec("acc", acc)
    rec("acc_dtype", str(acc.dtype))
    y = acc.to(dt) * xq_s * back["0.weight.scale"].to(dt).T + model[0].bias
    rec("int_gap", (y - model[0](x)).abs().max())
    rec("half_model", model.half()(x.half()).float())


def p_distill(lib, dt, rec):
    lib.manual_seed(171)
    teacher = _mlp(lib, dt, sizes=(8, 32, 4), seed=171).eval()
    student = _mlp(lib, dt, sizes=(8, 6, 4), seed=172)
    x, y = _data(lib, dt, seed=173)
    T, alpha = 3.0, 0.7
    F = lib.nn.functional
    opt = lib.optim.SGD(student.parameters(), lr=0.2, momentum=0.9)
    for step in range(4):
        with lib.no_grad():
            t_logits = teacher(x)
        s_logits = student(x)
        kd = F.kl_div(F.log_softmax(s_logits / T, 1), F.softmax(t_logits / T, 1),
                      reduction="batchmean") * T * T  # fmt: skip
        loss = alpha * kd + (1 - alpha) * F.cross_entropy(s_logits, y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        rec(f"kd{step}", kd)
    rec("agree", (student(x).argmax(1) == teacher(x).argmax(1)).sum())
    rec("log_target", F.kl_div(F.log_softmax(s_logits, 1), F.log_softmax(t_logits, 1),
                               reduction="batchmean", log_target=True))  # fmt: skip


def p_errors(lib, dt, rec):
    P = lib.nn.utils.parametrize
    prune = lib.nn.utils.prune
    lin = lib.nn.Linear(3, 4).to(dt)

    class Shape(lib.nn.Module):
        def forward(self, X):
            return X[:2]

    class Dtype(lib.nn.Module):
        def forward(self, X):
            return X.to(lib.float16)

    class Id(lib.nn.Module):
        def forward(self, X):
            return X

    rec.err("p_missing", lambda: P.register_parametrization(lin, "kernel", Id()))
    rec.err("p_shape", lambda: P.register_parametrization(lin, "weight", Shape()))
    rec.err("p_dtype", lambda: P.register_parametrization(lin, "weight", Dtype()))
    rec.err("p_shape_unsafe", lambda: P.register_parametrization(lin, "bias", Shape(), unsafe=True))
    rec("unsafe_bias", lin.bias.shape[0])

    class Wide(lib.nn.Module):
        def forward(self, X):
            return X.double()

    for kind in ("parameter", "buffer"):
        u = lib.nn.Linear(3, 2)
        if kind == "buffer":
            del u.weight
            u.register_buffer("weight", lib.ones(2, 3))
        P.register_parametrization(u, "weight", Wide(), unsafe=True)
        rec(f"unsafe_dtype_{kind}", str(u.weight.dtype))
        rec.err(f"unsafe_leave_{kind}", lambda u=u: P.remove_parametrizations(u, "weight"))
        rec(f"still_{kind}", P.is_parametrized(u, "weight"))
        P.remove_parametrizations(u, "weight", leave_parametrized=False)
        rec(f"left_{kind}", str(u.weight.dtype))
    rec.err("p_remove", lambda: P.remove_parametrizations(lib.nn.Linear(2, 2), "weight"))
    rec.err("p_remove_name", lambda: P.remove_parametrizations(lin, "weight"))
    lin2 = lib.nn.Linear(3, 3).to(dt)
    lib.nn.utils.parametrizations.orthogonal(lin2)
    rec.err("orth_set", lambda: setattr(lin2, "weight", lib.ones(3, 3, dtype=dt)))
    rec.err("orth_1d", lambda: lib.nn.utils.parametrizations.orthogonal(lib.nn.Linear(3, 1).to(dt),
                                                                        "bias"))  # fmt: skip
    rec.err("prune_frozen_amount", lambda: prune.random_unstructured(lin2, "bias", amount=4))
    rec.err("svd_1d", lambda: lib.linalg.svd(lib.ones(3, dtype=dt)))
    rec.err("svdlr_q", lambda: lib.svd_lowrank(lib.ones(3, dtype=dt)))
    rec.err("fq_range", lambda: lib.fake_quantize_per_tensor_affine(lib.ones(3), 0.1, 0, 5, 2))
    rec.err("fq_zp", lambda: lib.fake_quantize_per_tensor_affine(lib.ones(3), 0.1, 300, 0, 255))
    rec.err("fq_dtype", lambda: lib.fake_quantize_per_tensor_affine(
        lib.ones(3, dtype=lib.int64), 0.1, 0, 0, 255))  # fmt: skip
    rec.err("fqc_axis", lambda: lib.fake_quantize_per_channel_affine(
        lib.ones(2, 3), lib.ones(2), lib.zeros(2, dtype=lib.int32), 1, 0, 255))  # fmt: skip
    rec.err(
        "fqc_scale_dtype",
        lambda: lib.fake_quantize_per_channel_affine(
            lib.ones(2, 3), lib.ones(2, dtype=lib.float64), lib.zeros(2, dtype=lib.int32), 0, 0, 255
        ),
    )
    rec.err("wn_dim", lambda: lib.nn.utils.parametrizations.weight_norm(lib.nn.Linear(2, 2), dim=3))
    rec.err("sn_1d", lambda: lib.nn.utils.parametrizations.spectral_norm(
        lib.nn.Linear(2, 2), "bias"))  # fmt: skip
    rec.err("sn_name", lambda: lib.nn.utils.parametrizations.spectral_norm(
        lib.nn.Linear(2, 2), "kernel"))  # fmt: skip


def p_n_m_sparsity(lib, dt, rec):
    # 2:4 semi-structured sparsity: keep the two largest of every group of four inputs
    lib.manual_seed(181)
    lin = lib.nn.Linear(16, 6).to(dt)
    w = lin.weight.detach()
    groups = w.abs().reshape(6, 4, 4)
    idx = groups.topk(2, dim=-1).indices
    mask = lib.zeros_like(groups).scatter_(-1, idx, 1.0).reshape(6, 16)
    rec("idx_sorted", idx.sort(dim=-1).values)
    rec("mask", mask)
    rec("per_group", mask.reshape(6, 4, 4).sum(-1))
    lib.nn.utils.prune.custom_from_mask(lin, "weight", mask)
    x = lib.randn(9, 16, dtype=dt)
    target = lib.randn(9, 6, dtype=dt)
    opt = lib.optim.SGD(lin.parameters(), lr=0.05, momentum=0.9, dampening=0.1)
    for _ in range(3):
        opt.zero_grad()
        loss = lib.nn.functional.huber_loss(lin(x), target, delta=0.5)
        loss.backward()
        lib.nn.utils.clip_grad_norm_(lin.parameters(), max_norm=0.5)
        opt.step()
    rec("loss", loss)
    rec("grad_orig", lin.weight_orig.grad)
    rec("w", lin.weight)
    # compressed storage: values and 2-bit indices per group
    vals = lin.weight.detach().reshape(6, 4, 4).gather(-1, idx.sort(-1).values)
    rec("vals", vals)
    dense = lib.zeros(6, 4, 4, dtype=dt).scatter(-1, idx.sort(-1).values, vals).reshape(6, 16)
    rec("roundtrip", (dense - lin.weight).abs().max())


def p_binary_ternary(lib, dt, rec):
    # XNOR-style binary weights (sign with a hardtanh STE) and TWN ternary weights
    class BinarizeSTE(lib.autograd.Function):
        @staticmethod
        def forward(ctx, w):
            ctx.save_for_backward(w)
            return w.sign()

        @staticmethod
        def backward(ctx, g):
            (w,) = ctx.saved_tensors
            return g * (w.abs() <= 1).to(g.dtype)

    lib.manual_seed(191)
    conv = lib.nn.Conv2d(2, 4, 3, bias=False).to(dt)
    x = lib.randn(3, 2, 6, 6, dtype=dt)
    w = conv.weight
    alpha = w.abs().mean(dim=(1, 2, 3), keepdim=True)
    wb = BinarizeSTE.apply(w) * alpha
    y = lib.nn.functional.conv2d(x, wb)
    y.pow(2).mean().backward()
    rec("wb", wb)
    rec("y", y)
    rec("g", w.grad)
    rec("fn", type(wb.grad_fn).__name__)
    # ternary: threshold 0.7 * mean|w|, scale = mean of the survivors
    w2 = w.detach().clone().requires_grad_()
    delta = 0.7 * w2.detach().abs().mean()
    keep = (w2.detach().abs() > delta).to(dt)
    scale = (w2.detach().abs() * keep).sum() / keep.sum()
    wt = w2 + (scale * w2.detach().sign() * keep - w2).detach()
    lib.nn.functional.conv2d(x, wt).abs().sum().backward()
    rec("delta", delta)
    rec("levels", lib.unique(wt.detach()))
    rec("g2", w2.grad)
    # activations binarised with torch's hardtanh STE idiom
    a = lib.randn(10, dtype=dt, requires_grad=True)
    ab = a + (a.sign() - lib.nn.functional.hardtanh(a)).detach()
    ab = ab - lib.nn.functional.hardtanh(a).detach() + lib.nn.functional.hardtanh(a)
    (ab * lib.arange(10, dtype=dt)).sum().backward()
    rec("ab", ab)
    rec("ga", a.grad)


def p_fuse_bn(lib, dt, rec):
    # fold BatchNorm into the preceding conv/linear for deployment
    fusion = lib.nn.utils.fusion
    lib.manual_seed(201)
    conv = lib.nn.Conv2d(3, 5, 3, bias=False).to(dt)
    bn = lib.nn.BatchNorm2d(5).to(dt)
    x = lib.randn(4, 3, 7, 7, dtype=dt)
    bn.train()
    for _ in range(3):
        bn(conv(x + 0.5))
    conv.eval()
    bn.eval()
    fused = fusion.fuse_conv_bn_eval(conv, bn)
    rec("repr", repr(fused))
    rec("bn_stats", [bn.running_mean, bn.running_var, bn.num_batches_tracked])
    rec("fused_w", fused.weight)
    rec("fused_b", fused.bias)
    rec("gap", (fused(x) - bn(conv(x))).abs().max())
    lin = lib.nn.Linear(6, 4).to(dt)
    bn1 = lib.nn.BatchNorm1d(4, momentum=None).to(dt)
    z = lib.randn(8, 6, dtype=dt)
    bn1(lin(z))
    bn1(lin(z * 2))
    lin.eval()
    bn1.eval()
    fl = fusion.fuse_linear_bn_eval(lin, bn1)
    rec("lin_gap", (fl(z) - bn1(lin(z))).abs().max())
    rec("lin_w", fl.weight)
    w, b = fusion.fuse_conv_bn_weights(
        conv.weight, None, bn.running_mean, bn.running_var, bn.eps, bn.weight, bn.bias
    )
    rec("w_type", type(w).__name__)
    rec("b", b)
    rec.err("train_err", lambda: fusion.fuse_conv_bn_eval(conv.train(), bn))


def p_lstm_prune(lib, dt, rec):
    # pruning recurrent weights: the pre-hook writes the masked tensor the RNN reads
    prune = lib.nn.utils.prune
    lib.manual_seed(211)
    lstm = lib.nn.LSTM(4, 6, num_layers=1, batch_first=True).to(dt)
    prune.l1_unstructured(lstm, "weight_hh_l0", amount=0.5)
    prune.ln_structured(lstm, "weight_ih_l0", amount=0.25, n=2, dim=1)
    rec("keys", str(list(lstm.state_dict())))
    rec("params", str([n for n, _ in lstm.named_parameters()]))
    x = lib.randn(2, 5, 4, dtype=dt)
    out, (h, c) = lstm(x)
    rec("out", out)
    out.sum().backward()
    rec("g_hh", lstm.weight_hh_l0_orig.grad)
    rec("g_ih", lstm.weight_ih_l0_orig.grad)
    rec("masked_grad_zero", bool((lstm.weight_hh_l0_orig.grad[lstm.weight_hh_l0_mask == 0] == 0)
                                 .all()))  # fmt: skip
    prune.remove(lstm, "weight_hh_l0")
    prune.remove(lstm, "weight_ih_l0")
    rec("params2", str([n for n, _ in lstm.named_parameters()]))
    rec("out2", lstm(x)[0])
    # a GRU with a spectral-normed hidden weight
    gru = lib.nn.GRU(3, 4).to(dt)
    lib.nn.utils.parametrizations.spectral_norm(gru, "weight_hh_l0")
    rec("gru", gru(lib.randn(5, 2, 3, dtype=dt))[1])


def p_transformer_compress(lib, dt, rec):
    # prune attention projections and the feed-forward of an encoder layer, then adapt by LoRA
    nn = lib.nn
    prune = nn.utils.prune
    lib.manual_seed(221)
    layer = nn.TransformerEncoderLayer(8, 2, dim_feedforward=16, dropout=0.0, batch_first=True)
    layer = layer.to(dt)
    rec("repr", repr(layer))
    prune.l1_unstructured(layer.self_attn, "in_proj_weight", amount=0.3)
    prune.ln_structured(layer.linear1, "weight", amount=0.25, n=2, dim=0)
    prune.l1_unstructured(layer.self_attn.out_proj, "weight", amount=10)
    rec("keys", str(list(layer.state_dict())))
    x = lib.randn(2, 5, 8, dtype=dt)
    mask = nn.Transformer.generate_square_subsequent_mask(5, dtype=dt)
    layer.train()
    y = layer(x, src_mask=mask, is_causal=True)
    y.pow(2).mean().backward()
    rec("y", y)
    rec("g_in", layer.self_attn.in_proj_weight_orig.grad)
    rec("g_l1", layer.linear1.weight_orig.grad)
    layer.eval()
    with lib.no_grad():
        rec("eval", layer(x))
        rec(
            "eval_pad",
            layer(x, src_key_padding_mask=lib.tensor([[False] * 5, [False] * 3 + [True] * 2])),
        )
    # freeze, then a low-rank update on the feed-forward output projection
    for p in layer.parameters():
        p.requires_grad_(False)
    A = nn.Parameter(lib.randn(2, 16, dtype=dt) * 0.01)
    B = nn.Parameter(lib.zeros(8, 2, dtype=dt))
    layer.linear2.register_forward_hook(lambda m, inp, out: out + inp[0] @ A.T @ B.T * 2.0)
    layer.train()
    opt = lib.optim.Adam([A, B], lr=0.05)
    target = lib.randn(2, 5, 8, dtype=dt)
    # MultiheadAttention reads out_proj.weight without calling out_proj, so its pruning hook
    # never reruns: the stale masked weight still holds the first backward's freed graph
    rec.err("stale", lambda: nn.functional.mse_loss(layer(x), target).backward())
    rec("stale_fn", type(layer.self_attn.out_proj.weight.grad_fn).__name__)
    prune.remove(layer.self_attn.out_proj, "weight")
    layer.self_attn.out_proj.weight.requires_grad_(False)
    opt.zero_grad()
    for _ in range(3):
        opt.zero_grad()
        loss = nn.functional.mse_loss(layer(x), target)
        loss.backward()
        opt.step()
    rec("loss", loss)
    rec("B", B)
    rec("frozen_grads", str([p.grad is None for p in layer.linear2.parameters()]))


def _quant_sym(lib, w, scale, maxq):
    return (w / scale).round().clamp(-maxq - 1, maxq) * scale


def p_gptq(lib, dt, rec):
    # GPTQ-style column-by-column 4-bit quantization with Hessian-based error feedback
    lib.manual_seed(231)
    lin = lib.nn.Linear(12, 6).to(dt)
    X = lib.randn(64, 12, dtype=dt) @ (lib.eye(12, dtype=dt) + 0.3 * lib.randn(12, 12, dtype=dt))
    W = lin.weight.detach().clone()
    H = 2 * X.T @ X / X.shape[0]
    dead = H.diagonal() == 0
    rec("dead", dead.sum())
    damp = 0.01 * H.diagonal().mean()
    H = H + damp * lib.eye(12, dtype=dt)
    L = lib.linalg.cholesky(H)
    Hinv = lib.cholesky_inverse(L)
    rec("Hinv", Hinv)
    U = lib.linalg.cholesky(Hinv, upper=True)
    rec("U_check", U.T @ U - Hinv)
    maxq = 7
    scale = (W.abs().amax(dim=1, keepdim=True) / maxq).clamp_min(1e-8)
    Q = lib.zeros_like(W)
    Losses = lib.zeros_like(W)
    for i in range(12):
        w = W[:, i]
        d = U[i, i]
        q = _quant_sym(lib, w.unsqueeze(1), scale, maxq).flatten()
        Q[:, i] = q
        Losses[:, i] = (w - q) ** 2 / d**2 / 2
        err = (w - q) / d
        W[:, i:] -= err.unsqueeze(1).matmul(U[i, i:].unsqueeze(0))
    rec("Q", Q)
    rec("losses", Losses.sum(1))
    rtn = _quant_sym(lib, lin.weight.detach(), scale, maxq)
    out = X @ lin.weight.detach().T
    rec("err_gptq", (X @ Q.T - out).pow(2).mean())
    rec("err_rtn", (X @ rtn.T - out).pow(2).mean())
    rec("levels", ((Q / scale).round() + 8).to(lib.uint8).max())
    # lower triangular solve path, as SparseGPT's OBS update uses
    rec("tri", lib.linalg.solve_triangular(L, lib.eye(12, dtype=dt), upper=False) @ L)
    rec("cholesky_ex", lib.linalg.cholesky_ex(H).info)


def p_smoothquant(lib, dt, rec):
    # SmoothQuant: migrate activation outliers into the weights, then per-tensor int8 both
    lib.manual_seed(241)
    lin = lib.nn.Linear(8, 5).to(dt)
    X = lib.randn(32, 8, dtype=dt)
    X[:, 2] *= 20
    X[:, 5] *= 8
    a = 0.5
    act_max = X.abs().amax(0)
    w_max = lin.weight.detach().abs().amax(0)
    s = act_max.pow(a) / w_max.pow(1 - a)
    rec("s", s)
    Xs = X / s
    Ws = lin.weight.detach() * s
    rec("same", (Xs @ Ws.T - X @ lin.weight.detach().T).abs().max())

    def q8(t):
        sc = t.abs().max() / 127
        return (t / sc).round().clamp(-128, 127) * sc

    ref = lin(X)
    naive = lib.nn.functional.linear(q8(X), q8(lin.weight.detach()), lin.bias)
    smooth = lib.nn.functional.linear(q8(Xs), q8(Ws), lin.bias)
    rec("naive_err", (naive - ref).pow(2).mean())
    rec("smooth_err", (smooth - ref).pow(2).mean())
    # AWQ-style grid search of the scaling exponent
    errs = []
    for alpha in lib.linspace(0, 1, 6).tolist():
        sc = act_max.pow(alpha).clamp(min=1e-4)
        sc = sc / (sc.max() * sc.min()).sqrt()
        Wq = q8(lin.weight.detach() * sc) / sc
        errs.append((lib.nn.functional.linear(X, Wq, lin.bias) - ref).pow(2).mean())
    errs = lib.stack(errs)
    rec("grid", errs)
    rec("best", errs.argmin())


def p_obs_hessian(lib, dt, rec):
    # Optimal Brain Surgeon saliencies from an exact Hessian of a tiny model's loss
    F = lib.nn.functional
    lib.manual_seed(251)
    x = lib.randn(20, 3, dtype=dt)
    y = lib.randint(0, 2, (20,))
    w = lib.randn(2, 3, dtype=dt) * 0.5

    def loss_fn(flat):
        return F.cross_entropy(x @ flat.view(2, 3).T, y)

    flat = w.flatten()
    H = lib.autograd.functional.hessian(loss_fn, flat)
    rec("H", H)
    Hd = H + 1e-3 * lib.eye(6, dtype=dt)
    Hinv = lib.linalg.inv(Hd)
    sal = flat.pow(2) / (2 * Hinv.diagonal())
    rec("saliency", sal)
    q = int(sal.argmin())
    rec("q", q)
    delta = -flat[q] / Hinv[q, q] * Hinv[:, q]
    new = flat + delta
    rec("new", new)
    rec("dloss", loss_fn(new) - loss_fn(flat))
    # empirical Fisher by per-sample gradients (torch.func)
    from_func = lib.func

    def sample_loss(p, xi, yi):
        return F.cross_entropy((xi @ p.view(2, 3).T).unsqueeze(0), yi.unsqueeze(0))

    g = from_func.vmap(from_func.grad(sample_loss), in_dims=(None, 0, 0))(flat, x, y)
    rec("per_sample", g)
    fisher = (g.pow(2)).mean(0)
    rec("fisher", fisher)
    rec("fisher_sal", 0.5 * fisher * flat.pow(2))
    hvp = lib.autograd.functional.hvp(loss_fn, flat, lib.ones(6, dtype=dt))[1]
    rec("hvp", hvp)


def p_tucker_conv(lib, dt, rec):
    # Tucker-2 (HOSVD) decomposition of a conv: 1x1 -> kxk core -> 1x1
    F = lib.nn.functional
    lib.manual_seed(261)
    conv = lib.nn.Conv2d(6, 8, 3, padding=1).to(dt)
    W = conv.weight.detach()
    r_out, r_in = 4, 3
    U0 = lib.linalg.svd(W.flatten(1), full_matrices=False)[0][:, :r_out]  # mode-0 unfolding
    U1 = lib.linalg.svd(W.transpose(0, 1).flatten(1), full_matrices=False)[0][:, :r_in]
    core = lib.einsum("oikl,or,is->rskl", W, U0, U1)
    rec("core_norm", core.norm())
    approx = lib.einsum("rskl,or,is->oikl", core, U0, U1)
    rec("approx", approx)
    rec("rel", (approx - W).norm() / W.norm())
    rec("tensordot", lib.tensordot(core, U0, dims=([0], [1])).permute(3, 0, 1, 2).norm())
    x = lib.randn(2, 6, 7, 7, dtype=dt)
    first = F.conv2d(x, U1.T[:, :, None, None])
    mid = F.conv2d(first, core, padding=1)
    last = F.conv2d(mid, U0[:, :, None, None], conv.bias)
    rec("out", last)
    rec("gap", (last - F.conv2d(x, approx, conv.bias, padding=1)).abs().max())
    seq = lib.nn.Sequential(
        lib.nn.Conv2d(6, r_in, 1, bias=False),
        lib.nn.Conv2d(r_in, r_out, 3, padding=1, bias=False),
        lib.nn.Conv2d(r_out, 8, 1),
    ).to(dt)
    with lib.no_grad():
        seq[0].weight.copy_(U1.T[:, :, None, None])
        seq[1].weight.copy_(core)
        seq[2].weight.copy_(U0[:, :, None, None])
        seq[2].bias.copy_(conv.bias)
    rec("seq_gap", (seq(x) - last).abs().max())
    rec("params", [sum(p.numel() for p in m.parameters()) for m in (conv, seq)])
    # depthwise-separable replacement, trained to mimic the conv
    dw = lib.nn.Sequential(lib.nn.Conv2d(6, 6, 3, padding=1, groups=6), lib.nn.Conv2d(6, 8, 1)).to(
        dt
    )
    prune_ = lib.nn.utils.prune
    prune_.ln_structured(dw[0], "weight", amount=2, n=1, dim=0)
    opt = lib.optim.Adam(dw.parameters(), lr=0.01)
    target = conv(x).detach()
    for _ in range(3):
        opt.zero_grad()
        loss = F.mse_loss(dw(x), target)
        loss.backward()
        opt.step()
    rec("dw_loss", loss)
    rec("dw_mask", dw[0].weight_mask.sum(dim=(1, 2, 3)))


def p_rigl(lib, dt, rec):
    # dynamic sparse training (RigL): drop small weights, grow where the dense gradient is large
    lib.manual_seed(271)
    lin = lib.nn.Linear(10, 8).to(dt)
    x, _ = _data(lib, dt, n=30, d=10, seed=272)
    target = lib.randn(30, 8, dtype=dt)
    density = 0.3
    n_keep = int(density * lin.weight.numel())
    mask = lib.zeros(lin.weight.numel(), dtype=lib.bool)
    mask[lin.weight.detach().abs().flatten().topk(n_keep).indices] = True
    mask = mask.view_as(lin.weight)
    with lib.no_grad():
        lin.weight.masked_fill_(~mask, 0.0)
    opt = lib.optim.SGD(lin.parameters(), lr=0.1, momentum=0.9)
    for step in range(6):
        opt.zero_grad()
        loss = lib.nn.functional.mse_loss(lin(x), target)
        loss.backward()
        if step % 2 == 1:
            k = int(0.3 * n_keep * (1 + math.cos(math.pi * step / 6)) / 2)
            score_drop = lib.where(
                mask, lin.weight.detach().abs(), lib.full_like(lin.weight, math.inf)
            )
            drop = score_drop.flatten().topk(k, largest=False).indices
            new_mask = mask.flatten().clone()
            new_mask[drop] = False
            score_grow = lib.where(new_mask.view_as(mask) | mask, lib.zeros_like(lin.weight),
                                   lin.weight.grad.abs())  # fmt: skip
            grow = score_grow.flatten().topk(k).indices
            new_mask[grow] = True
            rec(f"k{step}", k)
            rec(f"changed{step}", (mask.flatten() != new_mask).sum())
            mask = new_mask.view_as(mask)
            with lib.no_grad():
                lin.weight[~mask] = 0.0
                lin.weight.view(-1)[grow] = 0.0  # grown weights start at zero
        lin.weight.grad.mul_(mask)
        opt.step()
        with lib.no_grad():
            lin.weight.mul_(mask)
        rec(f"loss{step}", loss)
    rec("mask", mask)
    rec("density", mask.float().mean())
    rec("w", lin.weight)


def p_movement(lib, dt, rec):
    # movement pruning: learnable scores, a top-k binarizer with a straight-through backward
    class TopKBinarizer(lib.autograd.Function):
        @staticmethod
        def forward(ctx, scores, keep):
            out = lib.zeros_like(scores)
            k = int(keep * scores.numel())
            idx = scores.flatten().topk(k).indices
            out.view(-1)[idx] = 1.0
            return out

        @staticmethod
        def backward(ctx, g):
            return g, None

    lib.manual_seed(281)
    lin = lib.nn.Linear(6, 4).to(dt)
    scores = lib.nn.Parameter(lib.zeros(4, 6, dtype=dt).uniform_(-0.01, 0.01))
    x = lib.randn(16, 6, dtype=dt)
    y = lib.randn(16, 4, dtype=dt)
    opt = lib.optim.Adam([scores, lin.weight, lin.bias], lr=0.02)
    for step in range(4):
        keep = 1.0 - 0.5 * step / 3
        m = TopKBinarizer.apply(scores, keep)
        out = lib.nn.functional.linear(x, lin.weight * m, lin.bias)
        loss = lib.nn.functional.mse_loss(out, y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        rec(f"loss{step}", loss)
        rec(f"kept{step}", m.sum())
    rec("scores", scores)
    rec("score_grad", scores.grad)
    rec("fn", type(m.grad_fn).__name__)


def p_half_deploy(lib, dt, rec):
    # a pruned model cast to half and bfloat16 for deployment, and run under autocast
    prune = lib.nn.utils.prune
    model = _mlp(lib, dt, sizes=(8, 16, 4), seed=291)
    prune.l1_unstructured(model[0], "weight", amount=0.5)
    prune.remove(model[0], "weight")
    x, _ = _data(lib, dt, n=6, seed=292)
    ref = model(x)
    half = _mlp(lib, dt, sizes=(8, 16, 4), seed=0)
    half.load_state_dict(model.state_dict())
    half.half()
    rec("half_dtypes", str([str(p.dtype) for p in half.parameters()]))
    yh = half(x.half())
    rec("half_out", yh)
    rec("half_err", (yh.to(dt) - ref).abs().max())
    bf = _mlp(lib, dt, sizes=(8, 16, 4), seed=0).to(lib.bfloat16)
    bf.load_state_dict(model.state_dict())
    yb = bf(x.to(lib.bfloat16))
    rec("bf_out", yb)
    rec("zeros_kept", int((bf[0].weight == 0).sum()))
    with lib.autocast("cpu", dtype=lib.bfloat16):
        ya = model(x)
    rec("autocast", ya)
    rec("autocast_dtype", str(ya.dtype))
    # pruning in half precision and fake-quantizing half weights
    hl = lib.nn.Linear(6, 4).to(dt).half()
    prune.l1_unstructured(hl, "weight", amount=7)
    rec("h_mask", hl.weight_mask)
    rec("h_mask_dtype", str(hl.weight_mask.dtype))
    fq = lib.fake_quantize_per_tensor_affine(hl.weight.detach(), 0.02, 0, -128, 127)
    rec("h_fq", fq)
    s = hl.weight.detach().float().abs().amax(1) / 127
    fqc = lib.fake_quantize_per_channel_affine(hl.weight.detach(), s, lib.zeros(4, dtype=lib.int32),
                                               0, -127, 127)  # fmt: skip
    rec("h_fqc", fqc)


def p_legacy_norms(lib, dt, rec):
    # the hook-based weight_norm / spectral_norm (deprecated) next to their parametrizations
    U = lib.nn.utils
    lib.manual_seed(301)
    a = rec.warns("wn_warn", lambda: U.weight_norm(lib.nn.Linear(5, 3).to(dt), dim=0))
    b = U.spectral_norm(lib.nn.Conv2d(2, 3, 3).to(dt), n_power_iterations=2)
    rec("a_keys", str(list(a.state_dict())))
    rec("b_keys", str(list(b.state_dict())))
    rec("a_g", a.weight_g)
    x = lib.randn(4, 5, dtype=dt)
    opt = lib.optim.SGD(list(a.parameters()) + list(b.parameters()), lr=0.1, momentum=0.9)
    img = lib.randn(2, 2, 5, 5, dtype=dt)
    for _ in range(3):
        opt.zero_grad()
        loss = a(x).pow(2).mean() + b(img).abs().mean()
        loss.backward()
        opt.step()
    rec("loss", loss)
    rec("a_w", a.weight)
    rec("b_u", b.weight_u)
    rec("b_sigma", lib.linalg.matrix_norm(b.weight.detach().flatten(1), ord=2))
    b.eval()
    rec("b_eval", b(img))
    U.remove_weight_norm(a)
    U.remove_spectral_norm(b)
    rec("a_keys2", str(list(a.state_dict())))
    rec("b_keys2", str(list(b.state_dict())))
    rec("a_w2", a.weight)
    rec("b_params", str([n for n, _ in b.named_parameters()]))


def p_cached_rnn(lib, dt, rec):
    # parametrize.cached around an unrolled recurrence: the orthogonal map is computed once
    P = lib.nn.utils.parametrize
    calls = []

    class Skew(lib.nn.Module):
        def forward(self, X):
            calls.append(1)
            A = X.triu(1)
            return lib.matrix_exp(A - A.T)

    lib.manual_seed(311)
    cell = lib.nn.RNNCell(3, 5, nonlinearity="tanh").to(dt)
    P.register_parametrization(cell, "weight_hh", Skew())
    xs = lib.randn(6, 2, 3, dtype=dt)
    opt = lib.optim.RMSprop(cell.parameters(), lr=0.01, alpha=0.9)
    for _ in range(2):
        calls.clear()
        opt.zero_grad()
        h = lib.zeros(2, 5, dtype=dt)
        with P.cached():
            for t in range(xs.shape[0]):
                h = cell(xs[t], h)
        loss = h.pow(2).sum()
        loss.backward()
        opt.step()
        rec("calls", len(calls))
        rec("loss", loss)
    W = cell.weight_hh
    rec("orth", W @ W.T)
    rec("g", cell.parametrizations.weight_hh.original.grad)
    rec("cls", type(cell).__name__)
