"""autocast on the CPU and GradScaler against torch: output dtypes, values, the scale's schedule."""

from __future__ import annotations

import numpy as np
import pytest

import minitorch

torch = pytest.importorskip("torch")

LOWS = ["bfloat16", "float16"]


def _pair(rng, *shape, dtype="float32", grad=False):
    a = rng.standard_normal(shape).astype(np.float32)
    m = minitorch.tensor(a).to(getattr(minitorch, dtype)).requires_grad_(grad)
    t = torch.tensor(a).to(getattr(torch, dtype)).requires_grad_(grad)
    return m, t


def _ops(lib):
    F = lib.nn.functional
    tgt = lib.tensor([0, 2, 1, 0])
    return {
        "matmul": lambda a, b: lib.matmul(a, b),
        "mm": lambda a, b: lib.mm(a, b),
        "linear": lambda a, b: F.linear(a, b.t()),
        "addmm": lambda a, b: lib.addmm(b[0], a, b),
        "bmm": lambda a, b: lib.bmm(a[None], b[None]),
        "softmax": lambda a, b: F.softmax(a.to(lib.bfloat16), dim=1),
        "log_softmax": lambda a, b: F.log_softmax(a.to(lib.float16), dim=1),
        "cross_entropy": lambda a, b: F.cross_entropy(a.to(lib.bfloat16), tgt),
        "nll_loss": lambda a, b: F.nll_loss(a.to(lib.float16), tgt),
        "mse_loss": lambda a, b: F.mse_loss(a.to(lib.bfloat16), a),
        "l1_loss": lambda a, b: F.l1_loss(a.to(lib.bfloat16), a),
        "bce_with_logits": lambda a, b: F.binary_cross_entropy_with_logits(
            a.to(lib.bfloat16), a.sigmoid()
        ),
        "prelu": lambda a, b: F.prelu(a, lib.tensor([0.25])),
        "mm_float64": lambda a, b: lib.mm(a.double(), b.double()),
    }


@pytest.mark.parametrize("name", sorted(_ops(minitorch)))
@pytest.mark.parametrize("low", LOWS)
def test_output_dtypes_and_values_match_torch(name, low):
    rng = np.random.default_rng(0)
    a, ta = _pair(rng, 4, 3)
    b, tb = _pair(rng, 3, 3)
    with minitorch.autocast("cpu", dtype=getattr(minitorch, low)):
        out = _ops(minitorch)[name](a, b)
    with torch.autocast("cpu", dtype=getattr(torch, low)):
        ref = _ops(torch)[name](ta, tb)
    assert str(out.dtype) == str(ref.dtype), name
    np.testing.assert_allclose(
        out.float().detach().numpy(),
        ref.float().detach().numpy(),
        rtol=2e-2,
        atol=2e-2,
        err_msg=f"{name} {low}",
    )


@pytest.mark.parametrize("low", LOWS)
def test_a_training_forward_and_backward_matches_torch(low):
    rng = np.random.default_rng(1)
    x, tx = _pair(rng, 8, 6)
    w1, tw1 = _pair(rng, 16, 6, grad=True)
    w2, tw2 = _pair(rng, 4, 16, grad=True)
    y = rng.integers(0, 4, 8)

    def run(lib, x, w1, w2):
        F = lib.nn.functional
        with lib.autocast("cpu", dtype=getattr(lib, low)):
            h = F.relu(F.linear(x, w1))
            out = F.linear(h, w2)
            loss = F.cross_entropy(out, lib.tensor(y))
        loss.backward()
        return out, loss

    out, loss = run(minitorch, x, w1, w2)
    tout, tloss = run(torch, tx, tw1, tw2)
    assert str(out.dtype) == str(tout.dtype) and str(loss.dtype) == str(tloss.dtype)
    np.testing.assert_allclose(loss.item(), tloss.item(), rtol=2e-2, err_msg=low)
    for g, tg in ((w1.grad, tw1.grad), (w2.grad, tw2.grad)):
        assert str(g.dtype) == str(tg.dtype) == "torch.float32"
        np.testing.assert_allclose(g.numpy(), tg.numpy(), rtol=5e-2, atol=5e-2, err_msg=low)


class _PlainSGD:
    """The optimizer protocol GradScaler uses: param_groups and step()."""

    def __init__(self, lib, w, lr=0.01):
        self.lib, self.w, self.lr = lib, w, lr
        self.param_groups = [{"params": [w]}]

    def step(self):
        with self.lib.no_grad():
            self.w -= self.lr * self.w.grad
        return "stepped"

    def zero_grad(self):
        self.w.grad = None


def test_grad_scaler_schedule_matches_torch_with_injected_infs():
    poisoned = {1, 2, 6}  # steps whose gradients overflow
    seqs = []
    for lib in (minitorch, torch):
        w = lib.tensor([1.0, -2.0, 3.0], requires_grad=True)
        opt = _PlainSGD(lib, w)  # torch.optim's first step costs seconds (a one-off import)
        scaler = lib.amp.GradScaler("cpu", init_scale=2.0**10, growth_interval=3)
        seq = []
        for step in range(10):
            opt.zero_grad()
            loss = (w * w).sum() * (float("inf") if step in poisoned else 1.0)
            scaler.scale(loss).backward()
            scaler.unscale_(opt)
            lib.nn.utils.clip_grad_norm_([w], 10.0)
            ret = scaler.step(opt)
            scaler.update()
            seq.append((scaler.get_scale(), scaler._get_growth_tracker(), ret))
        seqs.append((seq, w.detach().numpy().tolist(), scaler.state_dict()))
    assert seqs[0][0] == seqs[1][0]
    np.testing.assert_allclose(seqs[0][1], seqs[1][1], rtol=1e-6)
    assert seqs[0][2] == seqs[1][2]
