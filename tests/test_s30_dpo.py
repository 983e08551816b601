"""Session 30 (helper dpo): torch-free checks of the building blocks the preference-optimisation
programs in tests/reference/test_s30_dpo_reference.py lean on (DPO-family losses by logsigmoid,
masked per-token log-probs by gather and by cross_entropy's ignore_index, GAE by a reversed loop
with masked whitening, top-k/top-p filtering, cosine-with-warmup LambdaLR, cross_entropy's edge
cases, the messages of a GRPO group of one). The session found no library difference in this
domain; the values below are torch 2.13's, so these keep the behaviour pinned where torch is not
installed."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest

import minitorch as mt

F = mt.nn.functional
F64 = mt.float64


def _close(got, want, err_msg=""):
    np.testing.assert_allclose(np.asarray(got, dtype=float), want, rtol=1e-12, atol=1e-14,
                               err_msg=err_msg)  # fmt: skip


def test_cdpo_and_ipo_losses_and_gradients():
    pc = mt.tensor([-12.0, -15.5, -9.25], dtype=F64, requires_grad=True)
    pr = mt.tensor([-13.0, -14.0, -11.0], dtype=F64, requires_grad=True)
    rc = mt.tensor([-12.5, -15.0, -10.0], dtype=F64)
    rr = mt.tensor([-12.0, -14.5, -10.5], dtype=F64)
    logits = (pc - pr) - (rc - rr)
    beta, ls = 0.1, 0.1
    losses = -F.logsigmoid(beta * logits) * (1 - ls) - F.logsigmoid(-beta * logits) * ls
    _close(losses.detach(), [0.6359570477895321, 0.7343966600735709, 0.6450990353171692])
    gc, gr = mt.autograd.grad(losses.mean(), (pc, pr))
    want = [-0.012085671821875013, -0.01416597291596467, -0.012293020887541457]
    _close(gc, want)
    _close(gr, [-w for w in want])
    _close(((logits - 1 / (2 * beta)) ** 2).detach(), [12.25, 36.0, 14.0625])


def test_masked_token_logps_by_gather_and_by_ignore_index():
    logits = mt.tensor(
        [[[0.5, -1.0, 2.0, 0.0], [1.0, 1.0, -0.5, 0.25], [0.0, 0.3, 0.2, -2.0]]], dtype=F64
    )
    labels = mt.tensor([[-100, 2, -100, 1]])
    lab = labels[:, 1:].clone()
    mask = lab != -100
    lab[~mask] = 0
    per_tok = mt.gather(logits.log_softmax(-1), 2, lab[..., None]).squeeze(2)
    want = [[-0.342349582389822, 0.0, -1.0101141642681517]]
    _close(per_tok * mask, want)
    ce = F.cross_entropy(logits.transpose(1, 2), labels[:, 1:], reduction="none")
    _close(ce, [[-w for w in want[0]]])


def test_gae_reversed_loop_and_masked_whitening():
    rewards = mt.tensor([[0.0, 0.0, 1.0], [0.0, -1.0, 0.0]], dtype=F64)
    values = mt.tensor([[0.5, 0.2, 0.1], [0.3, 0.0, 0.0]], dtype=F64)
    mask = mt.tensor([[1.0, 1, 1], [1, 1, 0]], dtype=F64)
    last, out = 0, []
    for t in reversed(range(3)):
        nextv = values[:, t + 1] if t < 2 else 0.0
        delta = rewards[:, t] + 0.99 * nextv - values[:, t]
        last = delta + 0.99 * 0.95 * last
        out.append(last)
    adv = mt.stack(out[::-1], 1) * mask
    _close(adv, [[0.39909572500000007, 0.7454500000000001, 0.9], [-1.2405, -1.0, 0.0]])
    n = mask.sum()
    mean = (adv * mask).sum() / n
    var = ((adv - mean) ** 2 * mask).sum() / n * (n / (n - 1))
    _close(
        (adv - mean) * mt.rsqrt(var + 1e-8),
        [
            [0.43524323920161173, 0.7791925259042203, 0.9326693734467781],
            [-1.1929675865328084, -0.9541375520198018, 0.038918724541556045],
        ],
    )


def test_top_k_top_p_filter():
    logits = mt.tensor([[2.0, 1.0, 0.5, -1.0, 0.0]], dtype=F64)
    kth = mt.topk(logits, 4)[0][..., -1, None]
    logits = logits.masked_fill(logits < kth, -math.inf)
    sorted_logits, sorted_idx = mt.sort(logits, descending=True)
    remove = mt.cumsum(mt.softmax(sorted_logits, dim=-1), dim=-1) > 0.8
    remove[..., 1:] = remove[..., :-1].clone()
    remove[..., 0] = 0
    out = logits.masked_fill(remove.scatter(1, sorted_idx, remove), -math.inf)
    assert out.tolist() == [[2.0, 1.0, 0.5, -math.inf, -math.inf]]


def test_cosine_with_warmup_lambda_lr():
    def f(step, warmup=2, total=6):
        if step < warmup:
            return step / max(1, warmup)
        progress = (step - warmup) / max(1, total - warmup)
        return max(0.0, 0.5 * (1.0 + math.cos(math.pi * progress)))

    p = mt.nn.Parameter(mt.ones(1))
    opt = mt.optim.AdamW([p], lr=0.1)
    sched = mt.optim.lr_scheduler.LambdaLR(opt, f)
    lrs = []
    for _ in range(6):
        opt.step()
        sched.step()
        lrs.append(sched.get_last_lr()[0])
    _close(lrs, [0.05, 0.1, 0.08535533905932738, 0.05, 0.014644660940672627, 0.0])


def test_cross_entropy_edges_of_masked_batches():
    x = mt.tensor([[0.3, -1.2, 2.0, 0.7]], dtype=F64, requires_grad=True)
    loss = F.cross_entropy(x, mt.tensor([-100]))
    assert math.isnan(loss.item())
    loss.backward()
    assert x.grad.tolist() == [[0.0, 0.0, 0.0, 0.0]]
    lg = mt.tensor([[0.3, -1.2, 2.0, 0.7], [1.0, 0.0, -1.0, 0.5]], dtype=F64)
    w = mt.tensor([0.5, 1, 1.5, 2], dtype=F64)
    _close(F.cross_entropy(lg, mt.tensor([2, -100]), weight=w, label_smoothing=0.2),
           0.6110205249662868)  # fmt: skip
    _close(F.cross_entropy(lg, mt.tensor([2, 0]), weight=w, label_smoothing=0.2),
           0.8258997562061972)  # fmt: skip


def test_group_of_one_and_eos_argmax_messages():
    one = mt.tensor([[1.0], [2.0]])
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        std = one.std(1)
    assert [str(w.message) for w in caught] == [
        "std(): degrees of freedom is <= 0. Correction should be strictly less than the "
        "reduction factor (input numel divided by output numel)."
    ]
    assert all(math.isnan(v) for v in std.tolist())
    is_eos = mt.tensor([[False, True, True], [False, False, False]])
    with pytest.raises(RuntimeError, match=r"^argmax\(\): does not support bool input$"):
        is_eos.argmax(1)
    assert is_eos.int().argmax(1).tolist() == [1, 0]
