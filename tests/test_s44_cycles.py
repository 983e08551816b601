"""A graph leaves no reference cycles: once a backward has run and the user's names are gone,
every array of the step is freed at once, without waiting for Python's garbage collector (on a
GPU, memory held by a cycle until the collector runs counts in memory_allocated: a transformer
layer's step kept 512 MiB more). Each case runs with the collector paused, then collects the
young generation, which holds every object the step made: a cycle among them is found there."""

from __future__ import annotations

import warnings

import pytest

import minitorch as mt
from tests._cycles import cycles
from tests.ops import test_ops as table

nn, F = mt.nn, mt.nn.functional


def _grad_rows():
    return [s for s in table.GRAD_SPECS if table.xfail_reason(s, "grad", "cpu") is None]


def test_no_op_of_the_table_leaves_a_cycle():
    # every differentiable row of the op table, forward and backward, on the CPU
    left = {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for spec in _grad_rows():

            def step(spec=spec):
                xs = table._grad_tensors(spec, "cpu")
                outs = table.as_list(spec.op(*xs, **spec.kwargs))
                total = sum(o.sum() for o in outs if isinstance(o, mt.Tensor) and o.requires_grad)
                if isinstance(total, mt.Tensor):
                    total.backward()

            n = cycles(step)
            if n:
                left[spec.name] = n
    assert left == {}
    assert len(_grad_rows()) > 700  # the sweep covers the table


def _attention_step(device):
    q, k, v = (mt.randn(2, 3, 5, 4, device=device, requires_grad=True) for _ in range(3))
    F.scaled_dot_product_attention(q, k, v).sum().backward()


def test_attention_on_the_flash_path_keeps_no_cycle(device):
    # its node read back its own output: output -> node -> output
    assert cycles(lambda: _attention_step(device)) == 0
    q, k, v = (mt.randn(2, 3, 5, 4, dtype=mt.float64, requires_grad=True) for _ in range(3))
    out = F.scaled_dot_product_attention(q, k, v)
    node = out.grad_fn
    assert type(node).__name__ == "ScaledDotProductFlashAttentionForCpuBackward0"
    saved = node._saved_output  # still torch's attribute: the output, on the node
    assert mt.equal(saved, out) and saved.grad_fn is node and saved.device == out.device
    assert node._saved_query is q and node._saved_key is k and node._saved_value is v
    out.sum().backward()
    with pytest.raises(RuntimeError, match="backward through the graph a second time"):
        _ = node._saved_output


def test_multi_dot_of_four_keeps_no_cycle():
    # the product's order came from a nested function calling itself (function <-> cell)
    xs = [mt.randn(n, m, requires_grad=True) for n, m in ((2, 5), (5, 3), (3, 4), (4, 1))]
    assert cycles(lambda: mt.linalg.multi_dot(xs).sum().backward()) == 0
    want = xs[0] @ xs[1] @ xs[2] @ xs[3]
    assert mt.allclose(mt.linalg.multi_dot(xs), want)


def _train(build, steps=2, optimizer="SGD"):
    def run():
        model, loss_of = build()
        opt = getattr(mt.optim, optimizer)(model.parameters(), lr=1e-3)
        for _ in range(steps):
            opt.zero_grad()
            loss_of(model).backward()
            nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            opt.step()

    return run


def _x(*shape):
    return mt.randn(*shape, requires_grad=True)


MODELS = {
    "encoder_layer": lambda: (
        nn.TransformerEncoderLayer(16, 4, 32, dropout=0.0, batch_first=True),
        lambda m: m(_x(2, 5, 16)).square().mean(),
    ),
    "transformer": lambda: (
        nn.Transformer(16, 2, 1, 1, 32, dropout=0.0),
        lambda m: m(_x(5, 2, 16), _x(4, 2, 16)).sum(),
    ),
    "attention_weights": lambda: (
        nn.MultiheadAttention(16, 4),
        lambda m: sum(o.sum() for o in m(_x(5, 2, 16), _x(6, 2, 16), _x(6, 2, 16))),
    ),
    "lstm": lambda: (
        nn.LSTM(8, 16, 2, bidirectional=True, batch_first=True),
        lambda m: m(_x(3, 5, 8))[0].sum(),
    ),
    "cnn": lambda: (
        nn.Sequential(
            nn.Conv2d(3, 8, 3, padding=1),
            nn.BatchNorm2d(8),
            nn.ReLU(),
            nn.MaxPool2d(2),
            nn.Conv2d(8, 8, 3, groups=2, padding="same"),
            nn.GroupNorm(2, 8),
            nn.AdaptiveAvgPool2d(1),
            nn.Flatten(),
            nn.Linear(8, 4),
        ),
        lambda m: F.cross_entropy(m(_x(4, 3, 8, 8)), mt.tensor([0, 1, 2, 3]), label_smoothing=0.1),
    ),
}


@pytest.mark.parametrize("name", list(MODELS))
def test_training_steps_keep_no_cycle(name):
    mt.manual_seed(0)
    assert cycles(_train(MODELS[name])) == 0


@pytest.mark.parametrize("optimizer", ["Adam", "AdamW", "RMSprop", "Adagrad", "NAdam", "RAdam"])
def test_optimizer_steps_keep_no_cycle(optimizer):
    mt.manual_seed(0)
    assert cycles(_train(MODELS["cnn"], optimizer=optimizer)) == 0
