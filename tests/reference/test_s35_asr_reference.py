"""Session 35 (helper asr): speech-recognition code written the way ASR code is written in
torch, run under torch and minitorch with the same seeds and compared record by record:
F.ctc_loss and nn.CTCLoss (blank first and last, reductions none/mean/sum with the mean's
division by max(target length, 1), zero_infinity, lengths as lists, tuples, int32/int64 tensors,
padded (N, S) and concatenated 1-D targets, impossible alignments giving inf and NaN gradients,
empty inputs and targets, long utterances, unnormalised scores, per-sample weights, gradcheck,
retain_graph, in-place changes of the losses, autocast to bfloat16, skipping non-finite steps),
the CtcLossBackward0 node's _saved_* values, log_softmax over time-major (T, N, C) outputs and
transposed batch-first ones, greedy CTC decoding (argmax, unique_consecutive, blank masks,
a vectorised form), a simple beam search by topk, ESPnet's Conv2dSubsampling and a Conv1d/GLU
front end with their length arithmetic, SpecAugment time and frequency masks from arange
comparisons and masked_fill, BiLSTM/GRU encoders over pack_padded_sequence (unsorted lengths,
h0, pad_packed_sequence total_length), targets collated by pad_sequence with -1 padding, a
Conformer convolution module (GLU, causal depthwise conv, BatchNorm1d, SiLU), frame stacking,
masked pooling, a joint CTC/attention
loss with label smoothing, a small model trained a few Adam steps, WER by edit distance, and the
errors users hit (lengths, shapes, dtypes, blank, reduction; torch.ctc_loss and the torch.<loss>
functions' parser errors). float64 must agree to 1e-10 of each record's scale, float32 to 1e-4;
texts exactly.

Found and fixed:
- ctc_loss's CtcLossBackward0 had none of torch's saved values (graph drawers read them): now
  _saved_log_probs, _saved_targets (int64), _saved_blank, _saved_zero_infinity,
  _saved_input_lengths / _saved_target_lengths (tuples of ints), _saved_result0 (the losses) and
  _saved_result1 (log_alpha, N x T x (2 max(S) + 1)); the tensors are freed by backward with
  torch's message, the numbers stay.
- The node now saves its losses as torch's does, so `loss /= target_lengths` on a
  reduction='none' loss before backward raises torch's "modified by an inplace operation ...
  output 0 of CtcLoss" error (it silently passed).
- torch.ctc_loss with a str/bool/float reduction raised "ValueError: mean is not a valid value
  for reduction"; now torch's parser TypeError, and its "got (...)" (also for mismatched length
  kinds) lists only the arguments the call gave, keywords as keywords (F.ctc_loss still shows
  all seven, as torch's). torch.kl_div, hinge_embedding_loss, margin_ranking_loss,
  cosine_embedding_loss, triplet_margin_loss, poisson_nll_loss, binary_cross_entropy_with_logits
  with a reduction that is no int: torch's "argument 'reduction' (position N) must be int, not
  str" (position left out when passed by keyword).

Known and left (documented):
- torch.<loss>(..., reduction=3) (any int but 0, 1, 2): torch's apply_loss_reduction leaves the
  loss unreduced; minitorch raises "ValueError: 3 is not a valid value for reduction" (a test of
  tests/nn/test_nn_extra.py asserts that ValueError). Not recorded.
- _saved_result1 past a sample's frames and target states is uninitialised memory in torch,
  -inf here; the programs record the filled part only.
- Target labels outside [0, C): torch's CPU kernel reads out of bounds (undefined values),
  minitorch clamps them. Not recorded.
- dir() of a built-in node lists the slot "_saved" besides the _saved_<name> attributes (all
  nodes; graph drawers filter on "_saved_"). The programs filter on "_saved_".
- The records run on the CPU only; the strict test device and CuPy are exercised only by
  tests/test_s35_asr.py's device test."""

from __future__ import annotations

import pytest

from tests.reference._one_thread import one_torch_thread  # noqa: F401 - an autouse fixture
from tests.reference._programs import assert_calls_match, assert_program_matches, run_calls
from tests.reference._programs import seeded_gen as _gen
from tests.reference._programs import seeded_randn as _randn

torch = pytest.importorskip("torch")


PROGRAMS = [
    "ctc_mean_division", "ctc_length_forms", "ctc_concat_vs_padded", "ctc_impossible",
    "ctc_module_blank_last", "ctc_batch_first_logits", "ctc_long_utterance", "ctc_unnormalized",
    "ctc_sample_weights", "ctc_gradcheck", "greedy_decode", "conv2d_subsampling",
    "conv1d_subsampling", "specaugment", "bilstm_packed", "gru_packed", "time_reduction",
    "pad_mask_pooling", "joint_ctc_attention", "asr_train", "wer", "log_softmax_time_major",
    "ctc_zero_length_inputs", "ctc_retain_graph", "ctc_node_saved", "autocast_ctc",
    "lstm_packed_h0", "nonfinite_step", "prefix_beam", "ctc_inplace_loss",
    "collate_targets", "conformer_conv",
]  # fmt: skip


@pytest.mark.parametrize("dt", ["float64", "float32"])
@pytest.mark.parametrize("name", PROGRAMS)
def test_program_matches_torch(name, dt):
    assert_program_matches(globals()["p_" + name], torch, dt)


# --- helpers ---


def _logits(lib, dt, seed, T, N, C, scale=1.0):
    """Leaf logits (T, N, C) that require grad, and their log_softmax over the classes."""
    x = (_randn(lib, dt, seed, T, N, C) * scale).requires_grad_(True)
    return x, x.log_softmax(dim=2)


def _labels(lib, seed, N, S, C, lo=1):
    return lib.randint(lo, C, (N, S), generator=_gen(lib, seed))


def _lengths_mask(lib, lengths, T):
    """(N, T) bool mask, True on padded frames (ESPnet's make_pad_mask)."""
    return lib.arange(T, device=lengths.device)[None, :] >= lengths[:, None]


# --- CTC ---


def p_ctc_mean_division(lib, dt, rec):
    F = lib.nn.functional
    x, lp = _logits(lib, dt, 0, 12, 5, 7)
    tg = _labels(lib, 1, 5, 4, 7)
    il = lib.tensor([12, 11, 9, 12, 6])
    tl = lib.tensor([4, 0, 3, 1, 2])  # an empty target: mean divides by max(len, 1)
    per = F.ctc_loss(lp, tg, il, tl, reduction="none")
    rec("per", per)
    mean = F.ctc_loss(lp, tg, il, tl, reduction="mean")
    rec("mean", mean)
    rec("by_hand", (per / tl.clamp(min=1).to(per.dtype)).mean())
    (g,) = lib.autograd.grad(mean, x, retain_graph=True)
    rec("g_mean", g)
    (g,) = lib.autograd.grad(F.ctc_loss(lp, tg, il, tl, reduction="sum"), x, retain_graph=True)
    rec("g_sum", g)
    w = lib.linspace(0.5, 2.0, 5, dtype=dt)
    (g,) = lib.autograd.grad((per * w).sum(), x, retain_graph=True)
    rec("g_none_weighted", g)


def p_ctc_length_forms(lib, dt, rec):
    F = lib.nn.functional
    x, lp = _logits(lib, dt, 2, 9, 3, 5)
    tg = lib.tensor([[1, 2, 3], [4, 4, 0], [2, 0, 0]])
    forms = {
        "list": ([9, 8, 5], [3, 2, 1]),
        "tuple": ((9, 8, 5), (3, 2, 1)),
        "int64": (lib.tensor([9, 8, 5]), lib.tensor([3, 2, 1])),
        "int32": (lib.tensor([9, 8, 5], dtype=lib.int32), lib.tensor([3, 2, 1], dtype=lib.int32)),
        "mixed_int": (lib.tensor([9, 8, 5]), lib.tensor([3, 2, 1], dtype=lib.int32)),
        "full": (lib.full((3,), 9, dtype=lib.long).clamp(max=lib.tensor([9, 8, 5])), None),
    }
    for name, (il, tl) in forms.items():
        tl = lib.tensor([3, 2, 1]) if tl is None else tl
        loss = F.ctc_loss(lp, tg, il, tl, reduction="sum")
        rec(name, loss)
        (g,) = lib.autograd.grad(loss, x, retain_graph=True)
        rec(name + ".g", g)
    rec("targets_int32", F.ctc_loss(lp, tg.int(), [9, 8, 5], [3, 2, 1], reduction="none"))
    rec(
        "targets_int16_tensor_path",
        F.ctc_loss(lp, tg, lib.tensor([9, 8, 5]), lib.tensor([3, 2, 1])),
    )


def p_ctc_concat_vs_padded(lib, dt, rec):
    F = lib.nn.functional
    x, lp = _logits(lib, dt, 3, 10, 4, 6)
    tl = lib.tensor([3, 1, 4, 2])
    padded = _labels(lib, 4, 4, 5, 6)
    mask = lib.arange(5)[None, :] < tl[:, None]
    flat = padded[mask]  # what a collate function concatenates
    rec("flat", flat)
    il = lib.tensor([10, 10, 8, 9])
    a = F.ctc_loss(lp, padded, il, tl, reduction="none")
    b = F.ctc_loss(lp, flat, il, tl, reduction="none")
    rec("padded", a)
    rec("concat", b)
    ga = lib.autograd.grad(a.sum(), x, retain_graph=True)[0]
    gb = lib.autograd.grad(b.sum(), x, retain_graph=True)[0]
    rec("g_padded", ga)
    rec("g_concat", gb)
    cat = lib.cat([padded[i, : int(n)] for i, n in enumerate(tl.tolist())])
    rec("cat_equal", lib.equal(cat, flat))


def p_ctc_impossible(lib, dt, rec):
    F = lib.nn.functional
    x, lp = _logits(lib, dt, 5, 4, 3, 5)
    # needs 4 + 2 blanks between repeats = 6 frames > 4; a target longer than the input; fine
    tg = lib.tensor([[1, 1, 2, 2], [1, 2, 3, 4], [3, 1, 0, 0]])
    il, tl = lib.tensor([4, 3, 4]), lib.tensor([4, 4, 2])
    per = F.ctc_loss(lp, tg, il, tl, reduction="none")
    rec("per", per)
    rec("isinf", lib.isinf(per))
    rec("mean", F.ctc_loss(lp, tg, il, tl))
    rec("sum", F.ctc_loss(lp, tg, il, tl, reduction="sum"))
    (g,) = lib.autograd.grad(per[2], x, retain_graph=True)
    rec("g_feasible", g)
    (g,) = lib.autograd.grad(per.sum(), x, retain_graph=True)
    rec("g_inf", g)
    for red in ("none", "mean", "sum"):
        loss = F.ctc_loss(lp, tg, il, tl, reduction=red, zero_infinity=True)
        rec("zi." + red, loss)
        (g,) = lib.autograd.grad(loss.sum(), x, retain_graph=True)
        rec("zi.g." + red, g)
    rec("finite_mask", lib.isfinite(F.ctc_loss(lp, tg, il, tl, reduction="none")))


def p_ctc_module_blank_last(lib, dt, rec):
    nn = lib.nn
    C = 6
    crit = nn.CTCLoss(blank=C - 1, reduction="mean", zero_infinity=True)
    rec("repr", repr(crit))
    rec("attrs", str((crit.blank, crit.reduction, crit.zero_infinity)))
    rec("state", str(list(crit.state_dict().keys())))
    x, lp = _logits(lib, dt, 6, 8, 3, C)
    tg = lib.randint(0, C - 1, (3, 4), generator=_gen(lib, 7))
    il = lib.tensor([8, 8, 7], dtype=lib.int32)
    tl = lib.tensor([4, 3, 2], dtype=lib.int32)
    loss = crit(lp, tg, il, tl)
    rec("loss", loss)
    loss.backward()
    rec("g", x.grad)
    rec("none", nn.CTCLoss(blank=C - 1, reduction="none")(lp, tg, il, tl))


def p_ctc_batch_first_logits(lib, dt, rec):
    F = lib.nn.functional
    # a model emits (N, T, C); users transpose to time-major before log_softmax
    logits = _randn(lib, dt, 8, 3, 7, 5).requires_grad_(True)
    lp = logits.transpose(0, 1).log_softmax(-1)
    rec("contig", lp.is_contiguous())
    tg = _labels(lib, 9, 3, 3, 5)
    loss = F.ctc_loss(lp, tg, lib.tensor([7, 6, 7]), lib.tensor([3, 2, 1]))
    rec("loss", loss)
    loss.backward()
    rec("g", logits.grad)
    lp2 = F.log_softmax(logits, dim=-1).permute(1, 0, 2)
    rec("same", F.ctc_loss(lp2, tg, lib.tensor([7, 6, 7]), lib.tensor([3, 2, 1])))
    # a strided view of log-probs (every other frame)
    lp3 = logits.log_softmax(2).transpose(0, 1)[::2]
    rec(
        "strided",
        F.ctc_loss(lp3, tg, lib.tensor([4, 3, 4]), lib.tensor([2, 2, 1]), reduction="none"),
    )


def p_ctc_long_utterance(lib, dt, rec):
    F = lib.nn.functional
    x, lp = _logits(lib, dt, 10, 150, 2, 12, scale=3.0)
    tg = _labels(lib, 11, 2, 40, 12)
    il, tl = lib.tensor([150, 131]), lib.tensor([40, 33])
    per = F.ctc_loss(lp, tg, il, tl, reduction="none")
    rec("per", per)
    (g,) = lib.autograd.grad(per.sum(), x, retain_graph=True)
    rec("g", g)
    rec("g_rows", g.sum(-1))  # the gradient of a log_softmax input sums to 0 over classes


def p_ctc_unnormalized(lib, dt, rec):
    F = lib.nn.functional
    # scores that are not log-probabilities (a user forgot log_softmax): torch still computes
    x = (_randn(lib, dt, 12, 6, 2, 4) * 0.5).requires_grad_(True)
    tg = lib.tensor([[1, 2], [3, 3]])
    loss = F.ctc_loss(x, tg, [6, 6], [2, 2], reduction="sum")
    rec("loss", loss)
    loss.backward()
    rec("g", x.grad)
    x2 = x.detach().log_softmax(-1).requires_grad_(True)
    loss2 = F.ctc_loss(x2, tg, [6, 6], [2, 2], reduction="sum")
    rec("loss_norm", loss2)
    loss2.backward()
    rec("g_norm", x2.grad)


def p_ctc_sample_weights(lib, dt, rec):
    F = lib.nn.functional
    x, lp = _logits(lib, dt, 13, 9, 4, 6)
    tg = _labels(lib, 14, 4, 3, 6)
    il = lib.tensor([9, 9, 8, 7])
    tl = lib.tensor([3, 2, 3, 1])
    per = F.ctc_loss(lp, tg, il, tl, reduction="none", zero_infinity=True)
    w = lib.tensor([1.0, 0.5, 2.0, 0.0], dtype=dt)
    loss = (per * w / il.to(dt)).sum() / w.sum()
    rec("loss", loss)
    loss.backward()
    rec("g", x.grad)
    rec("per_frame", per / il)
    rec("per_token", per / tl)


def p_ctc_gradcheck(lib, dt, rec):
    F = lib.nn.functional
    x = _randn(lib, lib.float64, 15, 6, 2, 4).requires_grad_(True)
    tg = lib.tensor([[1, 2, 2], [3, 1, 0]])
    for red in ("none", "mean", "sum"):

        def fn(x, red=red):
            return F.ctc_loss(x.log_softmax(2), tg, [6, 5], [3, 2], reduction=red)

        rec("gradcheck." + red, lib.autograd.gradcheck(fn, (x,)))
    y = x.detach().to(dt).requires_grad_(True)
    loss = F.ctc_loss(y.log_softmax(2), tg, [6, 5], [3, 2])
    rec("loss", loss)
    rec("grad_fn", type(loss.grad_fn).__name__)


def p_ctc_zero_length_inputs(lib, dt, rec):
    F = lib.nn.functional
    x, lp = _logits(lib, dt, 16, 5, 3, 4)
    tg = lib.tensor([[1, 2], [1, 0], [2, 3]])
    il, tl = lib.tensor([0, 0, 5]), lib.tensor([0, 1, 2])
    per = F.ctc_loss(lp, tg, il, tl, reduction="none")
    rec("per", per)
    (g,) = lib.autograd.grad(per[[0, 2]].sum(), x, retain_graph=True)
    rec("g", g)
    per_zi = F.ctc_loss(lp, tg, il, tl, reduction="none", zero_infinity=True)
    rec("zi", per_zi)
    (g,) = lib.autograd.grad(F.ctc_loss(lp, tg, il, tl, zero_infinity=True), x, retain_graph=True)
    rec("g_zi_mean", g)


def p_ctc_retain_graph(lib, dt, rec):
    F = lib.nn.functional
    x, lp = _logits(lib, dt, 17, 6, 2, 5)
    tg = lib.tensor([[1, 2, 3], [4, 0, 0]])
    loss = F.ctc_loss(lp, tg, [6, 4], [3, 1])
    loss.backward(retain_graph=True)
    g1 = x.grad.clone()
    loss.backward(retain_graph=True)
    rec("g_twice", x.grad)
    rec("doubled", lib.allclose(x.grad, 2 * g1))
    x.grad = None
    (2.5 * loss).backward()
    rec("g_scaled", x.grad)


def _ctc_node(loss):
    """The CtcLossBackward0 node under a loss (behind where / div / mean / sum nodes)."""
    node = loss.grad_fn
    while type(node).__name__ != "CtcLossBackward0":
        node = [f for f, _ in node.next_functions if f is not None][-1]
    return node


def p_ctc_node_saved(lib, dt, rec):
    F = lib.nn.functional
    x = _randn(lib, dt, 42, 7, 3, 5).requires_grad_(True)
    cases = [  # targets, input_lengths, target_lengths, zero_infinity, reduction
        (lib.tensor([[1, 2, 0, 0], [3, 3, 0, 0], [2, 0, 0, 0]]), (7, 5, 6), (2, 2, 1), True,
         "none"),
        (lib.tensor([[1, 2], [3, 0], [4, 4]], dtype=lib.int32), lib.tensor([7, 4, 2]),
         lib.tensor([2, 1, 2]), False, "mean"),
        (lib.tensor([1, 2, 3, 4]), lib.tensor([7, 0, 6], dtype=lib.int32),
         lib.tensor([2, 1, 1], dtype=lib.int32), True, "sum"),
        (lib.tensor([[1, 1], [3, 3], [2, 2]]), [7, 7, 3], [0, 0, 2], False, "none"),
    ]  # fmt: skip
    for i, (tg, il, tl, zi, red) in enumerate(cases):
        lp = x.log_softmax(2)
        loss = F.ctc_loss(lp, tg, il, tl, blank=4 - i, reduction=red, zero_infinity=zi)
        node = _ctc_node(loss)
        tag = f"{i}."
        rec(tag + "names", str(sorted(k for k in dir(node) if k.startswith("_saved_"))))
        rec(tag + "args", str((node._saved_blank, node._saved_zero_infinity)))
        rec(tag + "lengths", str((node._saved_input_lengths, node._saved_target_lengths)))
        rec(tag + "targets", node._saved_targets)
        rec(tag + "targets_is", str(node._saved_targets is tg))
        rec(tag + "log_probs_is", str(node._saved_log_probs is lp))
        rec(tag + "result0", node._saved_result0)
        rec(tag + "result0_fn", type(node._saved_result0.grad_fn).__name__)
        alpha = node._saved_result1
        rec(tag + "result1_shape", str(tuple(alpha.shape)))
        ils, tls = node._saved_input_lengths, node._saved_target_lengths
        for b in range(3):  # torch leaves the rest uninitialised: NOTE [ CTC's saved values ]
            rec(tag + f"alpha{b}", alpha[b, : ils[b], : 2 * tls[b] + 1])
            rec(tag + f"alpha{b}.row0", alpha[b, 0])
        loss.sum().backward()
        rec.err(tag + "freed_result1", lambda node=node: node._saved_result1)
        rec.err(tag + "freed_targets", lambda node=node: node._saved_targets)
        rec.err(tag + "freed_lengths", lambda node=node: node._saved_input_lengths)
        rec.err(tag + "freed_blank", lambda node=node: node._saved_blank)
    lp = x[:, 0].log_softmax(-1)
    loss = F.ctc_loss(lp, lib.tensor([1, 2]), lib.tensor(7), lib.tensor(2), reduction="none")
    node = _ctc_node(loss)
    rec("unbatched", str([tuple(node._saved_log_probs.shape), tuple(node._saved_result1.shape)]))
    rec("unbatched.result0", node._saved_result0)


def p_ctc_inplace_loss(lib, dt, rec):
    F = lib.nn.functional
    x = _randn(lib, dt, 51, 6, 2, 5).requires_grad_(True)
    tg = lib.tensor([[1, 2], [3, 0]])
    il, tl = lib.tensor([6, 5]), lib.tensor([2, 1])
    # per-token normalisation written in place: the node saved its output (torch's result0)
    loss = F.ctc_loss(x.log_softmax(2), tg, il, tl, reduction="none")
    loss /= tl
    rec.err("inplace_div", lambda: loss.sum().backward())
    loss = F.ctc_loss(x.log_softmax(2), tg, il, tl, reduction="none", zero_infinity=True)
    loss /= tl  # on where's output, which saves nothing
    rec.err("inplace_div_zi", lambda: loss.sum().backward())
    rec("g_zi", x.grad)
    x.grad = None
    loss = F.ctc_loss(x.log_softmax(2), tg, il, tl, reduction="none")
    loss = loss / tl  # out of place
    loss.sum().backward()
    rec("g", x.grad)
    lp = x.log_softmax(2)
    loss = F.ctc_loss(lp, tg, il, tl)
    lp.mul_(1.0)
    rec.err("log_probs_modified", lambda: loss.backward())


def p_autocast_ctc(lib, dt, rec):
    nn, F = lib.nn, lib.nn.functional
    lib.manual_seed(5)
    lin = nn.Linear(4, 5).to(dt)
    x = _randn(lib, dt, 43, 6, 2, 4)
    tg = lib.tensor([[1, 1, 1, 1], [2, 3, 0, 0]])
    with lib.autocast("cpu", dtype=lib.bfloat16):
        logits = lin(x)
        lp = logits.log_softmax(-1)
        loss = F.ctc_loss(lp, tg, [6, 6], [4, 2], reduction="none")
    rec("dtypes", str((logits.dtype, lp.dtype, loss.dtype)))
    rec("loss", loss.to(dt))
    loss.sum().backward()
    rec("isnan", lin.weight.grad.isnan().any())
    rec.err(
        "clip", lambda: nn.utils.clip_grad_norm_(lin.parameters(), 1.0, error_if_nonfinite=True)
    )


def p_nonfinite_step(lib, dt, rec):
    nn, F = lib.nn, lib.nn.functional
    lib.manual_seed(6)
    lin = nn.Linear(3, 4).to(dt)
    opt = lib.optim.SGD(lin.parameters(), lr=0.1)
    x = _randn(lib, dt, 44, 3, 2, 3)
    tg = lib.tensor([[1, 1, 1], [2, 3, 0]])  # sample 0 cannot fit in 3 frames
    for zi in (False, True):
        opt.zero_grad()
        loss = F.ctc_loss(lin(x).log_softmax(-1), tg, [3, 3], [3, 2], zero_infinity=zi)
        rec(f"loss.{zi}", loss)
        rec(f"finite.{zi}", lib.isfinite(loss))
        if not lib.isfinite(loss):  # the usual skip of a bad batch
            continue
        loss.backward()
        rec(f"norm.{zi}", nn.utils.clip_grad_norm_(lin.parameters(), 0.5))
        opt.step()
    rec.params("p", lin)
    loss = F.ctc_loss(lin(x).log_softmax(-1), tg, [3, 3], [3, 2], reduction="sum")
    loss.backward()
    rec("grad_nan", lin.weight.grad)
    rec.err(
        "clip_raise",
        lambda: nn.utils.clip_grad_norm_(lin.parameters(), 1.0, error_if_nonfinite=True),
    )
    rec("nan_to_num", lib.nan_to_num(lin.weight.grad, nan=0.0))


# --- decoding, front ends, encoders ---


def p_greedy_decode(lib, dt, rec):
    blank = 0
    lp = _randn(lib, dt, 18, 12, 3, 5).log_softmax(-1)
    lengths = lib.tensor([12, 9, 6])
    best = lp.argmax(dim=-1).t()  # (N, T)
    rec("best", best)
    scores = lp.max(dim=-1).values.t()
    pad = _lengths_mask(lib, lengths, 12)
    rec("score", scores.masked_fill(pad, 0.0).sum(1))
    hyps = []
    for b in range(best.size(0)):
        seq = best[b, : lengths[b]]
        collapsed = lib.unique_consecutive(seq)
        hyps.append(collapsed[collapsed != blank].tolist())
        out, counts = lib.unique_consecutive(seq, return_counts=True)
        rec(f"counts{b}", counts)
    rec("hyps", str(hyps))
    # the vectorised form: keep a frame whose label differs from the previous one, not blank
    prev = lib.cat([lib.full((3, 1), -1, dtype=best.dtype), best[:, :-1]], dim=1)
    keep = (best != prev) & (best != blank) & ~pad
    rec("keep", keep)
    rec("n_tokens", keep.sum(1))
    vals = [best[b][keep[b]].tolist() for b in range(3)]
    rec("same", str(vals == hyps))
    _, inv, cnt = lib.unique_consecutive(best, return_inverse=True, return_counts=True, dim=1)
    rec("inv", inv)
    rec("cnt", cnt)


def p_conv2d_subsampling(lib, dt, rec):
    nn = lib.nn
    lib.manual_seed(1)
    idim, odim = 20, 8

    class Conv2dSubsampling(nn.Module):
        def __init__(self):
            super().__init__()
            self.conv = nn.Sequential(
                nn.Conv2d(1, odim, 3, 2), nn.ReLU(), nn.Conv2d(odim, odim, 3, 2), nn.ReLU()
            )
            self.out = nn.Linear(odim * (((idim - 1) // 2 - 1) // 2), odim)

        def forward(self, x, lengths):
            x = self.conv(x.unsqueeze(1))  # (N, C, T', F')
            b, c, t, f = x.size()
            x = self.out(x.transpose(1, 2).contiguous().view(b, t, c * f))
            lengths = ((lengths - 1) // 2 - 1) // 2
            return x, lengths

    m = Conv2dSubsampling().to(dt)
    feats = _randn(lib, dt, 19, 3, 31, idim).requires_grad_(True)
    lengths = lib.tensor([31, 25, 17])
    out, olen = m(feats, lengths)
    rec("out", out)
    rec("olen", olen)
    mask = ~_lengths_mask(lib, olen, out.size(1))
    rec("mask", mask)
    loss = (out * mask.unsqueeze(-1)).pow(2).sum() / mask.sum()
    loss.backward()
    rec("g_feats", feats.grad)
    rec.params("m", m, grads=True)
    rec("floor_div", lib.div(lengths - 3, 2, rounding_mode="floor") + 1)


def p_conv1d_subsampling(lib, dt, rec):
    nn, F = lib.nn, lib.nn.functional
    lib.manual_seed(2)
    conv1 = nn.Conv1d(16, 12, kernel_size=5, stride=2, padding=2).to(dt)
    conv2 = nn.Conv1d(12, 12, kernel_size=3, stride=2, padding=1, groups=4).to(dt)
    feats = _randn(lib, dt, 20, 2, 23, 16).requires_grad_(True)  # (N, T, F)
    lengths = lib.tensor([23, 14])
    h = F.gelu(conv1(feats.transpose(1, 2)))
    h = F.glu(lib.cat([h, h * 0.5], dim=1), dim=1)
    h = conv2(h).transpose(1, 2)
    for k, s, p in ((5, 2, 2), (3, 2, 1)):
        lengths = lib.div(lengths + 2 * p - k, s, rounding_mode="floor") + 1
    rec("h", h)
    rec("lengths", lengths)
    rec("shape", str(tuple(h.shape)))
    mask = _lengths_mask(lib, lengths, h.size(1))
    h = h.masked_fill(mask.unsqueeze(-1), 0.0)
    h.sum().backward()
    rec("g", feats.grad)
    rec("g_w1", conv1.weight.grad)
    rec("g_w2", conv2.weight.grad)


def p_specaugment(lib, dt, rec):
    g = _gen(lib, 21)
    spec = _randn(lib, dt, 22, 4, 40, 24)  # (N, T, F) log-mel
    N, T, Fb = spec.shape
    # frequency masks: width ~ U[0, 8), start ~ U[0, F - width)
    f = (lib.rand(N, 2, generator=g, dtype=dt) * 8).long()
    f0 = (lib.rand(N, 2, generator=g, dtype=dt) * (Fb - f).to(dt)).long()
    fr = lib.arange(Fb).view(1, 1, Fb)
    fmask = ((fr >= f0.unsqueeze(-1)) & (fr < (f0 + f).unsqueeze(-1))).any(1)  # (N, F)
    t = lib.randint(0, 10, (N, 2), generator=g)
    t0 = (lib.rand(N, 2, generator=g, dtype=dt) * (T - t).to(dt)).long()
    tr = lib.arange(T).view(1, 1, T)
    tmask = ((tr >= t0.unsqueeze(-1)) & (tr < (t0 + t).unsqueeze(-1))).any(1)  # (N, T)
    rec("fmask", fmask)
    rec("tmask", tmask)
    out = spec.masked_fill(fmask.unsqueeze(1), 0.0).masked_fill(tmask.unsqueeze(-1), 0.0)
    rec("zeros", out)
    mean = spec.mean(dim=(1, 2), keepdim=True)
    both = fmask.unsqueeze(1) | tmask.unsqueeze(-1)
    rec("mean_fill", lib.where(both, mean, spec))
    inplace = spec.clone()
    inplace.masked_fill_(both, -80.0)
    rec("inplace", inplace)
    rec("frac", both.to(dt).mean(dim=(1, 2)))
    x = spec.clone().requires_grad_(True)
    y = x.masked_fill(both, 0.0)
    (y * spec).sum().backward()
    rec("g", x.grad)


def _encoder(lib, dt, cls, **kw):
    lib.manual_seed(3)
    return cls(6, 5, batch_first=True, bidirectional=True, **kw).to(dt)


def p_bilstm_packed(lib, dt, rec):
    nn = lib.nn
    rnn_utils = nn.utils.rnn
    enc = _encoder(lib, dt, nn.LSTM, num_layers=2)
    x = _randn(lib, dt, 23, 4, 9, 6).requires_grad_(True)
    lengths = lib.tensor([6, 9, 3, 7])  # unsorted: enforce_sorted=False
    packed = rnn_utils.pack_padded_sequence(x, lengths, batch_first=True, enforce_sorted=False)
    rec("batch_sizes", packed.batch_sizes)
    rec("sorted", packed.sorted_indices)
    rec("unsorted", packed.unsorted_indices)
    out, (h, c) = enc(packed)
    pad, olen = rnn_utils.pad_packed_sequence(out, batch_first=True, total_length=9)
    rec("out", pad)
    rec("olen", olen)
    rec("h", h)
    rec("c", c)
    # the last valid frame of the forward direction equals h[-2]
    last = pad[lib.arange(4), olen - 1, :5]
    rec("last_eq_h", lib.allclose(last, h[-2]))
    loss = pad.pow(2).sum() + h.sum()
    loss.backward()
    rec("gx", x.grad)
    rec.params("enc", enc, grads=True)


def p_gru_packed(lib, dt, rec):
    nn = lib.nn
    rnn_utils = nn.utils.rnn
    enc = _encoder(lib, dt, nn.GRU)
    seqs = [_randn(lib, dt, 24 + i, n, 6) for i, n in enumerate((5, 8, 2))]
    lengths = lib.tensor([len(s) for s in seqs])
    padded = rnn_utils.pad_sequence(seqs, batch_first=True, padding_value=0.0)
    padded.requires_grad_(True)
    packed = rnn_utils.pack_padded_sequence(
        padded, lengths.cpu(), batch_first=True, enforce_sorted=False
    )
    out, h = enc(packed)
    pad, olen = rnn_utils.pad_packed_sequence(out, batch_first=True, padding_value=-1.0)
    rec("out", pad)
    rec("olen", olen)
    rec("h", h)
    loss = (pad * (pad > -1)).sum() + h.pow(2).sum()
    loss.backward()
    rec("g", padded.grad)
    rec.params("enc", enc, grads=True)
    packed2 = rnn_utils.pack_sequence(seqs, enforce_sorted=False)
    out2, h2 = enc(packed2)
    rec("h_same", lib.allclose(h2, h))


def p_lstm_packed_h0(lib, dt, rec):
    nn = lib.nn
    lib.manual_seed(7)
    lstm = nn.LSTM(4, 3, batch_first=True, bidirectional=True).to(dt)
    xs = _randn(lib, dt, 45, 3, 5, 4).requires_grad_(True)
    h0 = _randn(lib, dt, 46, 2, 3, 3).requires_grad_(True)
    c0 = _randn(lib, dt, 47, 2, 3, 3)
    pk = nn.utils.rnn.pack_padded_sequence(
        xs, lib.tensor([3, 5, 2]), batch_first=True, enforce_sorted=False
    )
    out, (h, c) = lstm(pk, (h0, c0))
    pad, _ = nn.utils.rnn.pad_packed_sequence(out, batch_first=True)
    rec("h", h)
    rec("c", c)
    rec("out", pad)
    (pad.sum() + h.pow(2).sum() + c.sum()).backward()
    rec("gx", xs.grad)
    rec("gh0", h0.grad)
    rec.err("bad_hx", lambda: lstm(pk, (h0[:, :2], c0)))
    y = xs.detach().unfold(1, 2, 2)  # frame stacking by unfold: (N, T // 2, D, 2)
    rec("unfold", y)


def p_prefix_beam(lib, dt, rec):
    # a simple beam search over frames (no prefix merging): topk of summed log-probs
    lp = _randn(lib, dt, 48, 6, 5).log_softmax(-1)
    beam = 3
    scores = lp[0].topk(beam).values
    paths = lp[0].topk(beam).indices.unsqueeze(1)
    for t in range(1, lp.size(0)):
        cand = (scores.unsqueeze(1) + lp[t].unsqueeze(0)).flatten()
        scores, idx = cand.topk(beam)
        prev = lib.div(idx, lp.size(1), rounding_mode="floor")
        paths = lib.cat([paths[prev], (idx % lp.size(1)).unsqueeze(1)], dim=1)
    rec("scores", scores)
    rec("paths", paths)
    rec("one_hot", lib.nn.functional.one_hot(paths[0], 5))
    rec("logsumexp", lp.logsumexp(-1))


def p_collate_targets(lib, dt, rec):
    F, P = lib.nn.functional, lib.nn.utils.rnn
    x = _randn(lib, dt, 52, 8, 3, 6).requires_grad_(True)
    seqs = [lib.tensor([1, 2, 3]), lib.tensor([4]), lib.tensor([], dtype=lib.long)]
    tg = P.pad_sequence(seqs, batch_first=True, padding_value=-1)  # -1 past each length
    rec("tg", tg)
    tl = lib.tensor([len(s) for s in seqs])
    il = lib.full((3,), 8, dtype=lib.long)
    loss = F.ctc_loss(x.log_softmax(-1), tg, il, tl, reduction="none")
    rec("loss", loss)
    loss.sum().backward()
    rec("g", x.grad)
    flat = lib.cat(seqs)
    rec("split", str([t.tolist() for t in flat.split(tl.tolist())]))
    rec("same", F.ctc_loss(x.log_softmax(-1), flat, il, tl, reduction="none"))
    dec = P.pad_sequence([lib.tensor([1, 2]), lib.tensor([], dtype=lib.long)], batch_first=True)
    rec("dec", dec)
    with lib.inference_mode():
        best = x.argmax(-1)
        rec("inference", str((best.requires_grad, best.is_inference())))


def p_conformer_conv(lib, dt, rec):
    nn, F = lib.nn, lib.nn.functional
    lib.manual_seed(8)
    C = 6
    pw1, dw = nn.Conv1d(C, 2 * C, 1).to(dt), nn.Conv1d(C, C, 3, groups=C).to(dt)
    bn, pw2 = nn.BatchNorm1d(C).to(dt), nn.Conv1d(C, C, 1).to(dt)
    x = _randn(lib, dt, 53, 3, 8, C).requires_grad_(True)  # (N, T, C)
    h = F.glu(pw1(x.transpose(1, 2)), dim=1)
    h = F.pad(h, (2, 0))  # causal depthwise convolution
    h = pw2(F.silu(bn(dw(h)))).transpose(1, 2)
    rec("h", h)
    rec("running", bn.running_var)
    h.pow(2).mean().backward()
    rec("gx", x.grad)
    rec("gdw", dw.weight.grad)
    rec("gbn", bn.weight.grad)


def p_time_reduction(lib, dt, rec):
    # stack 2 frames (Listen-Attend-Spell's pyramidal reduction), lengths by ceil division
    x = _randn(lib, dt, 27, 3, 11, 4).requires_grad_(True)
    lengths = lib.tensor([11, 8, 5])
    N, T, D = x.shape
    pad = (-T) % 2
    y = lib.nn.functional.pad(x, (0, 0, 0, pad))
    y = y.reshape(N, (T + pad) // 2, 2 * D)
    rec("y", y)
    new = lib.div(lengths, 2, rounding_mode="trunc") + lengths % 2
    rec("len", new)
    rec("len_ceil", (lengths + 1) // 2)
    rec("len_neg_floor", -(-lengths // 2))
    mask = _lengths_mask(lib, new, y.size(1))
    (y.masked_fill(mask.unsqueeze(-1), 0) ** 2).sum().backward()
    rec("g", x.grad)


def p_pad_mask_pooling(lib, dt, rec):
    x = _randn(lib, dt, 28, 3, 7, 5).requires_grad_(True)
    lengths = lib.tensor([7, 4, 2])
    mask = _lengths_mask(lib, lengths, 7)
    valid = (~mask).unsqueeze(-1).to(dt)
    mean = (x * valid).sum(1) / valid.sum(1)
    rec("mean", mean)
    mx = x.masked_fill(mask.unsqueeze(-1), float("-inf")).max(dim=1).values
    rec("max", mx)
    att = (x.sum(-1)).masked_fill(mask, float("-inf")).softmax(-1)
    rec("att", att)
    pooled = lib.bmm(att.unsqueeze(1), x).squeeze(1)
    rec("pooled", pooled)
    (mean.sum() + mx.sum() + pooled.pow(2).sum()).backward()
    rec("g", x.grad)


def p_log_softmax_time_major(lib, dt, rec):
    F = lib.nn.functional
    x = _randn(lib, dt, 29, 6, 3, 5).requires_grad_(True)
    a = F.log_softmax(x, dim=2)
    b = F.log_softmax(x, dim=-1)
    rec("a", a)
    rec("eq", lib.equal(a, b))
    rec("rows", a.exp().sum(-1))
    c = lib.nn.LogSoftmax(dim=2)(x)
    rec("module", c)
    d = F.log_softmax(x.float(), dim=2, dtype=lib.float64)
    rec("dtype_arg", d)
    (a * _randn(lib, dt, 30, 6, 3, 5)).sum().backward()
    rec("g", x.grad)
    big = _randn(lib, dt, 31, 4, 2, 6) * 1e3  # large logits stay finite
    rec("big", F.log_softmax(big, 2))
    rec("warn", str(lib.nn.LogSoftmax()))


def p_joint_ctc_attention(lib, dt, rec):
    F = lib.nn.functional
    x, lp = _logits(lib, dt, 32, 8, 2, 6)
    tg = lib.tensor([[1, 2, 3], [4, 5, 0]])
    tl = lib.tensor([3, 2])
    ctc = F.ctc_loss(lp, tg, lib.tensor([8, 7]), tl, zero_infinity=True)
    dec = _randn(lib, dt, 33, 2, 4, 7).requires_grad_(True)  # decoder logits incl. <eos>=6
    ys_out = lib.tensor([[1, 2, 3, 6], [4, 5, 6, -1]])
    att = F.cross_entropy(dec.view(-1, 7), ys_out.view(-1), ignore_index=-1, label_smoothing=0.1)
    loss = 0.3 * ctc + 0.7 * att
    rec("ctc", ctc)
    rec("att", att)
    rec("loss", loss)
    loss.backward()
    rec("gx", x.grad)
    rec("gdec", dec.grad)
    valid = ys_out != -1
    acc = (dec.argmax(-1) == ys_out).masked_select(valid).float().mean()
    rec("acc", acc)


def p_asr_train(lib, dt, rec):
    nn, F = lib.nn, lib.nn.functional
    lib.manual_seed(4)

    class Model(nn.Module):
        def __init__(self):
            super().__init__()
            self.front = nn.Conv1d(8, 6, 3, stride=2, padding=1)
            self.rnn = nn.GRU(6, 5, bidirectional=True)
            self.drop = nn.Dropout(0.0)
            self.fc = nn.Linear(10, 5)

        def forward(self, feats, lengths):
            h = F.relu(self.front(feats.transpose(1, 2))).permute(2, 0, 1)  # (T, N, C)
            lengths = (lengths - 1) // 2 + 1
            packed = nn.utils.rnn.pack_padded_sequence(h, lengths, enforce_sorted=False)
            out, _ = self.rnn(packed)
            out, _ = nn.utils.rnn.pad_packed_sequence(out)
            return self.fc(self.drop(out)).log_softmax(-1), lengths

    model = Model().to(dt)
    opt = lib.optim.Adam(model.parameters(), lr=1e-2)
    crit = nn.CTCLoss(zero_infinity=True)
    feats = _randn(lib, dt, 34, 3, 14, 8)
    lengths = lib.tensor([14, 11, 8])
    tg = lib.tensor([[1, 2, 3], [2, 4, 0], [3, 0, 0]])
    tl = lib.tensor([3, 2, 1])
    for step in range(3):
        opt.zero_grad()
        lp, olen = model(feats, lengths)
        loss = crit(lp, tg, olen, tl)
        loss.backward()
        if step == 0:
            rec.params("g0", model, view=lambda n, p: p.grad)
        nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        rec(f"loss{step}", loss)
    rec.params("p", model)
    rec("olen", olen)


def p_wer(lib, dt, rec):
    def edit_distance(lib, ref, hyp):
        d = lib.zeros(len(ref) + 1, len(hyp) + 1, dtype=lib.long)
        d[:, 0] = lib.arange(len(ref) + 1)
        d[0, :] = lib.arange(len(hyp) + 1)
        for i in range(1, len(ref) + 1):
            for j in range(1, len(hyp) + 1):
                sub = d[i - 1, j - 1] + (ref[i - 1] != hyp[j - 1]).long()
                d[i, j] = lib.stack([d[i - 1, j] + 1, d[i, j - 1] + 1, sub]).min()
        return d[-1, -1]

    refs = [lib.tensor([1, 2, 3, 4]), lib.tensor([5, 5, 2]), lib.tensor([3])]
    hyps = [lib.tensor([1, 3, 4]), lib.tensor([5, 2, 2, 1]), lib.tensor([], dtype=lib.long)]
    errs = lib.stack([edit_distance(lib, r, h) for r, h in zip(refs, hyps, strict=True)])
    rec("errs", errs)
    n = lib.tensor([len(r) for r in refs])
    rec("wer", errs.sum().to(dt) / n.sum())
    rec("per_utt", errs.to(dt) / n)


# --- argument errors ---


_CTC_CALLS = [
    "F.ctc_loss(lp, tg, [5, 5], [3, 3])",
    "F.ctc_loss(lp, tg, [5, 5, 5], [3, 3])",
    "F.ctc_loss(lp, tg, [5, 5], [3, 3, 3])",
    "F.ctc_loss(lp, tg, [7, 5], [3, 3])",
    "F.ctc_loss(lp, tg, [-1, 5], [3, 3])",
    "F.ctc_loss(lp, tg, [5, 5], [-1, 3])",
    "F.ctc_loss(lp, tg, [5, 5], [5, 3])",
    "F.ctc_loss(lp, tg, [5.0, 5.0], [3, 3])",
    "F.ctc_loss(lp, tg, lib.tensor([5.0, 5.0]), lib.tensor([3, 3]))",
    "F.ctc_loss(lp, tg, lib.tensor([5, 5]), lib.tensor([3.0, 3.0]))",
    "F.ctc_loss(lp, tg, lib.tensor([5, 5]), [3, 3])",
    "F.ctc_loss(lp, tg, [5, 5], lib.tensor([3, 3]))",
    "F.ctc_loss(lp, tg, lib.tensor([7, 5]), lib.tensor([3, 3]))",
    "F.ctc_loss(lp, tg, lib.tensor([5, 5, 5]), lib.tensor([3, 3]))",
    "F.ctc_loss(lp, tg, lib.tensor([[5, 5]]), lib.tensor([3, 3]))",
    "F.ctc_loss(lp, tg, lib.tensor([-1, 5]), lib.tensor([3, 3]))",
    "F.ctc_loss(lp, tg, lib.tensor([5, 5]), lib.tensor([-1, 3]))",
    "F.ctc_loss(lp, tg, lib.tensor([5, 5]), lib.tensor([5, 3]))",
    "F.ctc_loss(lp, tg.float(), [5, 5], [3, 3])",
    "F.ctc_loss(lp, tg.short(), [5, 5], [3, 3])",
    "F.ctc_loss(lp, tg.to(lib.uint8), [5, 5], [3, 3])",
    "F.ctc_loss(lp.to(lib.int64), tg, [5, 5], [3, 3])",
    "F.ctc_loss(lp.half(), tg, [5, 5], [3, 3])",
    "F.ctc_loss(lp, tg, [5, 5], [3, 3], blank=4)",
    "F.ctc_loss(lp, tg, [5, 5], [3, 3], blank=-1)",
    "F.ctc_loss(lp, tg, [5, 5], [3, 3], blank=3.0)",
    "F.ctc_loss(lp, tg, [5, 5], [3, 3], reduction='avg')",
    "F.ctc_loss(lp, tg, [5, 5], [3, 3], reduction=None)",
    "F.ctc_loss(lp, tg, [5, 5], [3, 3], zero_infinity='yes')",
    "F.ctc_loss(lp[0], tg, [5, 5], [3, 3])",
    "F.ctc_loss(lp.unsqueeze(0), tg, [5, 5], [3, 3])",
    "F.ctc_loss(lp, tg[0], [5, 5], [3, 3])",
    "F.ctc_loss(lp, tg[:, :2], [5, 5], [3, 3])",
    "F.ctc_loss(lp, tg.flatten()[:5], [5, 5], [3, 3])",
    "F.ctc_loss(lp, tg.unsqueeze(0), [5, 5], [3, 3])",
    "F.ctc_loss(lp, tg, 5, 3)",
    "F.ctc_loss(lp, tg, lib.tensor(5), lib.tensor(3))",
    "F.ctc_loss(lp, tg, None, [3, 3])",
    "F.ctc_loss(lp, [[1, 2, 3], [1, 2, 3]], [5, 5], [3, 3])",
    "F.ctc_loss(lp, tg, lib.tensor([5, 5], dtype=lib.int16), lib.tensor([3, 3], dtype=lib.int16))",
    "F.ctc_loss(lp, tg, lib.tensor([True, True]), lib.tensor([3, 3]))",
    "lib.nn.CTCLoss(reduction='foo')",
    "lib.nn.CTCLoss()(lp, tg, [5, 5])",
    "lib.nn.CTCLoss(blank=7)(lp, tg, [5, 5], [3, 3])",
    "F.ctc_loss(lp, tg, [5, 5], [3, 3], 0, 'mean', False, 1)",
    "F.ctc_loss(lp, tg, [5, 5], [3, 3], blank=0, foo=1)",
    "F.log_softmax(lp, dim=3)",
    "F.log_softmax(lp, 2, dtype=lib.int64)",
    "lib.nn.LogSoftmax(dim=3)(lp)",
]


def p_ctc_errors(lib, rec):
    lp = lib.randn(5, 2, 4, generator=_gen(lib, 40)).log_softmax(2)
    tg = lib.tensor([[1, 2, 3], [3, 2, 1]])
    run_calls(_CTC_CALLS, dict(lib=lib, F=lib.nn.functional, lp=lp, tg=tg), rec)


_FRONTEND_CALLS = [
    "P.pack_padded_sequence(x, lib.tensor([4, 6, 2]), batch_first=True)",
    "P.pack_padded_sequence(x, lib.tensor([6, 4, 2]), batch_first=True)",
    "P.pack_padded_sequence(x, lib.tensor([6, 4, 0]), batch_first=True)",
    "P.pack_padded_sequence(x, lib.tensor([6, 4]), batch_first=True)",
    "P.pack_padded_sequence(x, lib.tensor([[6, 4, 2]]), batch_first=True)",
    "P.pack_padded_sequence(x, [6.0, 4.0, 2.0], batch_first=True)",
    "P.pack_padded_sequence(x, lib.tensor([6.0, 4.0, 2.0]), batch_first=True)",
    "P.pack_padded_sequence(x, lib.tensor([6, 4, -1]), batch_first=True)",
    "P.pack_padded_sequence(x, [6, 4, 2])",
    "P.pad_packed_sequence(P.pack_padded_sequence(x, [6, 4, 2], True), True, total_length=3)",
    "lib.nn.LSTM(5, 4)(x.transpose(0, 1)[..., :3])",
    "lib.nn.GRU(5, 4, batch_first=True)(x.double())",
    "lib.nn.Conv1d(5, 4, 3)(x)",
    "lib.nn.Conv1d(6, 4, 3)(x.transpose(1, 2))",
    "lib.nn.Conv2d(1, 4, 3, 2)(x)",
    "lib.nn.Conv2d(1, 4, 7, 2)(x.unsqueeze(1))",
    "x.masked_fill(lib.ones(3, 6), 0.0)",
    "x.masked_fill(lib.ones(3, 5, dtype=lib.bool), 0.0)",
    "x.masked_fill(lib.ones(3, 6, 1, dtype=lib.bool), lib.ones(2))",
    "lib.unique_consecutive(x.argmax(-1), dim=2)",
]


def p_frontend_errors(lib, rec):
    x = lib.randn(3, 6, 5, generator=_gen(lib, 41))
    env = dict(lib=lib, P=lib.nn.utils.rnn, x=x)
    run_calls(_FRONTEND_CALLS, env, rec)


_NAMESPACE_CALLS = [
    "lib.ctc_loss(lp, tg, [5, 5], [3, 3], 0, 'mean', False)",
    "lib.ctc_loss(lp, tg, [5, 5], [3, 3], 0, 'mean')",
    "lib.ctc_loss(lp, tg, [5, 5], [3, 3], reduction='mean')",
    "lib.ctc_loss(lp, tg, [5, 5], [3, 3], zero_infinity=True, reduction=True)",
    "lib.ctc_loss(lp, tg, [5, 5], [3, 3], 0, 1.0, True)",
    "lib.ctc_loss(lp, tg, lib.tensor([5, 5]), [3, 3])",
    "lib.ctc_loss(lp, tg, [5, 5], lib.tensor([3, 3]), blank=0)",
    "lib.ctc_loss(lp, tg, lib.tensor([5, 5]), [3, 3], 0, 1, False)",
    "lib.ctc_loss(lp, tg, [5, 5], [3, 3], blank='0')",
    "lib.ctc_loss(lp, tg, [5, 5], [3, 3], 0, 2)",
    "lib.ctc_loss(lp, tg, lib.tensor([5, 5]), lib.tensor([3, 3]), reduction=lib.tensor(1))",
    "lib.kl_div(x, x, True)",
    "lib.kl_div(x, x, reduction='sum')",
    "lib.hinge_embedding_loss(x, y, 1.0, 'mean')",
    "lib.margin_ranking_loss(x, x, y, reduction=1.0)",
    "lib.cosine_embedding_loss(x.view(2, 2), x.view(2, 2), y[:2], 0.0, None)",
    "lib.triplet_margin_loss(x, x, x, 1.0, 2.0, 1e-6, False, 'none')",
    "lib.poisson_nll_loss(x, x, True, False, 1e-8, 'mean')",
    "lib.binary_cross_entropy_with_logits(x, y, reduction='mean')",
    "lib.binary_cross_entropy_with_logits(x, y, None, None, False)",
]


def p_namespace_errors(lib, rec):
    lp = lib.randn(5, 2, 4, generator=_gen(lib, 49)).log_softmax(2)
    tg = lib.tensor([[1, 2, 3], [3, 2, 1]])
    x, y = lib.rand(4, generator=_gen(lib, 50)), lib.tensor([1.0, 0.0, 1.0, 0.0])
    env = dict(lib=lib, lp=lp, tg=tg, x=x, y=y)
    run_calls(_NAMESPACE_CALLS, env, rec)


@pytest.mark.parametrize("prog", [p_ctc_errors, p_frontend_errors, p_namespace_errors])
def test_errors_match_torch(prog):
    assert_calls_match(prog, torch)
