"""nn.functional (activations, softmax family, linear, normalisation, embedding, distances, pad,
attention) against PyTorch: the same float64 inputs give the same outputs and input gradients."""

from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch")

import minitorch  # noqa: E402
from tests.reference._nn_harness import Case, compare, floats  # noqa: E402

S = (3, 4)


def away(low=-2.0, high=2.0, *points, gap=0.1):
    """Uniform floats of shape S kept `gap` away from kinks."""

    def make(rng):
        x = rng.uniform(low, high, size=S)
        for p in points or (0.0,):
            x = np.where(np.abs(x - p) < gap, p + gap * np.sign(x - p + 1e-12) * 2, x)
        return [x]

    return make


def act(name, *args, make=None, **kwargs):
    return Case(
        f"{name}{args}{kwargs}",
        lambda F, lib, x: getattr(F, name)(x, *args, **kwargs),
        make or away(),
    )


def ints(high, *shape):
    def make(rng):
        return [rng.integers(0, high, size=shape)]

    return make


def both(*makers):
    def make(rng):
        return [a for m in makers for a in m(rng)]

    return make


ACTIVATIONS = [
    act("relu"),
    act("relu6", make=away(-3, 9, 0.0, 6.0)),
    act("elu", alpha=0.7),
    act("selu"),
    act("celu", alpha=1.5),
    act("gelu"),
    act("gelu", approximate="tanh"),
    act("silu"),
    act("mish"),
    act("sigmoid"),
    act("tanh"),
    act("hardtanh", -0.5, 1.5, make=away(-2, 2, -0.5, 1.5)),
    act("hardsigmoid", make=away(-5, 5, -3.0, 3.0)),
    act("hardswish", make=away(-5, 5, -3.0, 3.0)),
    act("softplus", beta=2.0, threshold=3.0, make=away(-3, 3, 1.5)),
    act("softsign"),
    act("tanhshrink"),
    act("threshold", 0.5, -2.0, make=away(-2, 2, 0.5)),
    act("logsigmoid"),
    act("leaky_relu", 0.2),
    act("hardshrink", 0.7, make=away(-2, 2, 0.7, -0.7)),
    act("softshrink", 0.7, make=away(-2, 2, 0.7, -0.7)),
    act("softmax", 1),
    act("softmax", 0),
    act("log_softmax", -1),
    act("softmin", 1),
    act("glu", 1),
    act("glu", 0, make=floats((4, 3))),
    act("rrelu", training=False),
    Case("prelu", lambda F, lib, x, w: F.prelu(x, w), both(away(), floats((4,)))),
    Case("prelu_1", lambda F, lib, x, w: F.prelu(x, w), both(floats((2, 3, 2)), floats((1,)))),
]

LINEAR = [
    Case("linear", lambda F, lib, x, w, b: F.linear(x, w, b), floats((3, 4), (5, 4), (5,))),
    Case("linear_nobias", lambda F, lib, x, w: F.linear(x, w), floats((2, 3, 4), (5, 4))),
    Case("linear_1d", lambda F, lib, x, w, b: F.linear(x, w, b), floats((4,), (5, 4), (5,))),
    Case(
        "linear_3d_bias", lambda F, lib, x, w, b: F.linear(x, w, b), floats((2, 3, 4), (5, 4), (5,))
    ),
    Case(
        "bilinear",
        lambda F, lib, x, y, w, b: F.bilinear(x, y, w, b),
        floats((3, 4), (3, 2), (5, 4, 2), (5,)),
    ),
]

NORMS = [
    Case(
        "layer_norm",
        lambda F, lib, x, w, b: F.layer_norm(x, (4,), w, b),
        floats((2, 3, 4), (4,), (4,)),
    ),
    Case("layer_norm_2d", lambda F, lib, x: F.layer_norm(x, (3, 4), eps=1e-3), floats((2, 3, 4))),
    Case(
        "group_norm",
        lambda F, lib, x, w, b: F.group_norm(x, 2, w, b),
        floats((2, 4, 3), (4,), (4,)),
    ),
    Case("group_norm_4d", lambda F, lib, x: F.group_norm(x, 3), floats((2, 6, 2, 2))),
    Case("rms_norm", lambda F, lib, x, w: F.rms_norm(x, (4,), w), floats((2, 3, 4), (4,))),
    Case("rms_norm_eps", lambda F, lib, x: F.rms_norm(x, [3, 4], eps=1e-3), floats((2, 3, 4))),
    Case(
        "batch_norm_train",
        lambda F, lib, x, w, b: F.batch_norm(
            x, lib.zeros(3, dtype=lib.float64), lib.ones(3, dtype=lib.float64), w, b, training=True
        ),
        floats((4, 3, 2), (3,), (3,)),
    ),
    Case(
        "batch_norm_eval",
        lambda F, lib, x, m, v, w, b: F.batch_norm(x, m, v, w, b),
        both(floats((4, 3)), floats((3,)), floats((3,), low=0.5, high=2.0), floats((3,), (3,))),
        grad=(0, 3, 4),
    ),
    Case(
        "batch_norm_nostats",
        lambda F, lib, x: F.batch_norm(x, None, None, training=True),
        floats((4, 3, 2, 2)),
    ),
    Case(
        "instance_norm",
        lambda F, lib, x, w, b: F.instance_norm(x, weight=w, bias=b),
        floats((2, 3, 5), (3,), (3,)),
    ),
    Case(
        "local_response_norm",
        lambda F, lib, x: F.local_response_norm(x, 3, alpha=0.1),
        floats((2, 5, 3)),
    ),
    Case(
        "local_response_norm_4d",
        lambda F, lib, x: F.local_response_norm(x, 2, k=2.0),
        floats((2, 4, 2, 3)),
    ),
    Case("normalize", lambda F, lib, x: F.normalize(x, dim=1), floats((3, 4))),
    Case("normalize_p1", lambda F, lib, x: F.normalize(x, p=1, dim=0), floats((3, 4))),
]

DISTANCE = [
    Case(
        "cosine_similarity", lambda F, lib, x, y: F.cosine_similarity(x, y), floats((3, 4), (3, 4))
    ),
    Case(
        "cosine_similarity_bcast",
        lambda F, lib, x, y: F.cosine_similarity(x, y, dim=-1),
        floats((2, 3, 4), (3, 4)),
    ),
    Case(
        "pairwise_distance", lambda F, lib, x, y: F.pairwise_distance(x, y), floats((3, 4), (3, 4))
    ),
    Case(
        "pairwise_distance_p1",
        lambda F, lib, x, y: F.pairwise_distance(x, y, p=1.0, keepdim=True),
        floats((3, 4), (3, 4)),
    ),
    Case("pdist", lambda F, lib, x: F.pdist(x), floats((4, 3))),
]

EMBEDDING = [
    Case("embedding", lambda F, lib, i, w: F.embedding(i, w), both(ints(5, 2, 3), floats((5, 3)))),
    Case(
        "embedding_padding",
        lambda F, lib, i, w: F.embedding(i, w, padding_idx=1),
        both(ints(5, 2, 6), floats((5, 3))),
    ),
    Case(
        "embedding_freq",
        lambda F, lib, i, w: F.embedding(i, w, scale_grad_by_freq=True),
        both(ints(4, 7), floats((5, 3))),
    ),
    Case(
        "embedding_bag_2d",
        lambda F, lib, i, w: F.embedding_bag(i, w),
        both(ints(5, 3, 4), floats((5, 3))),
    ),
    Case(
        "embedding_bag_sum",
        lambda F, lib, i, w: F.embedding_bag(i, w, lib.tensor([0, 2, 2, 5]), mode="sum"),
        both(ints(5, 7), floats((5, 3))),
    ),
    Case(
        "embedding_bag_max",
        lambda F, lib, i, w: F.embedding_bag(i, w, lib.tensor([0, 3, 3]), mode="max"),
        both(lambda rng: [np.array([0, 1, 2, 3, 4, 1])], floats((5, 3))),
    ),
    Case(
        "embedding_bag_pad",
        lambda F, lib, i, w: F.embedding_bag(
            i, w, lib.tensor([0, 2, 5]), padding_idx=1, include_last_offset=True
        ),
        both(lambda rng: [np.array([0, 1, 1, 2, 3, 4, 1])], floats((5, 3))),
    ),
    Case(
        "embedding_bag_psw",
        lambda F, lib, i, w, p: F.embedding_bag(
            i, w, lib.tensor([0, 2]), mode="sum", per_sample_weights=p
        ),
        both(ints(5, 5), floats((5, 3), (5,))),
    ),
]


def _pads(mode, pad):
    shape = (2, 3, 4, 5)[3 - len(pad) // 2 :]
    return Case(f"pad_{mode}_{pad}", lambda F, lib, x: F.pad(x, pad, mode=mode), floats(shape))


PAD = [
    Case("pad_constant", lambda F, lib, x: F.pad(x, (1, 2, 0, 1), value=0.5), floats((2, 3, 4))),
    Case("pad_constant_neg", lambda F, lib, x: F.pad(x, (-1, 2, 1, -2)), floats((2, 3, 4))),
    Case(
        "pad_constant_5d",
        lambda F, lib, x: F.pad(x, (1, 1, 1, 1, 1, 1, 1, 1)),
        floats((2, 1, 2, 2)),
    ),
    _pads("reflect", (1, 2)),
    _pads("reflect", (1, 2, 2, 1)),
    _pads("replicate", (2, 1, 0, 3)),
    _pads("circular", (1, 2, 3, 1)),
    _pads("replicate", (1, 1, 2, 2, 1, 0)),
    _pads("circular", (-1, 2)),
    _pads("reflect", (3, 2, 1, 1)),
    Case(
        "pad_reflect_3d",
        lambda F, lib, x: F.pad(x, (1, 1, 1, 2, 2, 1), mode="reflect"),
        floats((1, 3, 4, 5)),
    ),
]


def _sdpa(**kw):
    def fn(F, lib, q, k, v):
        return F.scaled_dot_product_attention(q, k, v, **kw)

    return fn


def _sdpa_mask(kind):
    def fn(F, lib, q, k, v):
        if kind == "bool":
            m = lib.tensor([[True, False, True, True, False], [False] * 5, [True] * 5])
        else:
            m = lib.tensor(np.linspace(-1, 1, 15).reshape(3, 5))
        return F.scaled_dot_product_attention(q, k, v, attn_mask=m)

    return fn


ATTENTION = [
    Case("sdpa", _sdpa(), floats((2, 2, 3, 4), (2, 2, 5, 4), (2, 2, 5, 6))),
    Case("sdpa_causal", _sdpa(is_causal=True), floats((2, 4, 4), (2, 4, 4), (2, 4, 3))),
    Case("sdpa_scale", _sdpa(scale=0.3), floats((3, 4), (5, 4), (5, 2))),
    Case("sdpa_bool_mask", _sdpa_mask("bool"), floats((2, 3, 4), (2, 5, 4), (2, 5, 6))),
    Case("sdpa_float_mask", _sdpa_mask("float"), floats((2, 3, 4), (2, 5, 4), (2, 5, 6))),
    Case("sdpa_gqa", _sdpa(enable_gqa=True), floats((1, 4, 3, 2), (1, 2, 5, 2), (1, 2, 5, 3))),
]

ALL = ACTIVATIONS + LINEAR + NORMS + DISTANCE + EMBEDDING + PAD + ATTENTION


@pytest.mark.parametrize("case", [pytest.param(c, id=c.name) for c in ALL])
def test_matches_torch(case):
    compare(case, torch)


def test_one_hot_matches_torch():
    x = [[0, 2], [1, 1]]
    assert np.array_equal(
        minitorch.nn.functional.one_hot(minitorch.tensor(x), 4).numpy(),
        torch.nn.functional.one_hot(torch.tensor(x), 4).numpy(),
    )
    assert minitorch.nn.functional.one_hot(minitorch.tensor(x)).shape == (2, 2, 3)


def test_batch_norm_running_stats_match_torch():
    rng = np.random.default_rng(0)
    x = rng.normal(size=(5, 3, 4))
    stats = {}
    for lib in (minitorch, torch):
        rm, rv = lib.zeros(3, dtype=lib.float64), lib.ones(3, dtype=lib.float64)
        lib.nn.functional.batch_norm(lib.tensor(x), rm, rv, training=True, momentum=0.3)
        lib.nn.functional.instance_norm(lib.tensor(x), rm, rv, momentum=0.5)
        stats[lib.__name__] = (rm.numpy(), rv.numpy())
    for a, b in zip(stats["minitorch"], stats["torch"], strict=True):
        np.testing.assert_allclose(a, b, rtol=1e-12)


def test_max_norm_renormalises_like_torch():
    w = np.random.default_rng(1).normal(size=(5, 3)) * 2
    idx = [[0, 2], [2, 4]]
    outs = []
    for lib in (minitorch, torch):
        weight = lib.tensor(w.copy())
        out = lib.nn.functional.embedding(lib.tensor(idx), weight, max_norm=1.0)
        outs.append((out.numpy(), weight.numpy()))
    np.testing.assert_allclose(outs[0][0], outs[1][0], rtol=1e-6)
    np.testing.assert_allclose(outs[0][1], outs[1][1], rtol=1e-6)


ERRORS = [
    lambda F, lib: F.glu(lib.randn(2, 3), 1),
    lambda F, lib: F.glu(lib.tensor(1.0)),
    lambda F, lib: F.prelu(lib.randn(2, 3), lib.randn(4)),
    lambda F, lib: F.softmax(lib.tensor([[1, 2]]), 0),
    lambda F, lib: F.linear(lib.randn(2, 3), lib.randn(5, 4)),
    lambda F, lib: F.linear(lib.randn(2, 2, 3), lib.randn(5, 4)),
    lambda F, lib: F.layer_norm(lib.randn(3, 5), (4,)),
    lambda F, lib: F.layer_norm(lib.randn(3, 5), (5,), weight=lib.randn(4)),
    lambda F, lib: F.group_norm(lib.randn(2, 6, 4), 4),
    lambda F, lib: F.group_norm(lib.randn(6), 3),
    lambda F, lib: F.rms_norm(lib.randn(3, 5), (4,)),
    lambda F, lib: F.batch_norm(lib.randn(1, 3), lib.zeros(3), lib.ones(3), training=True),
    lambda F, lib: F.batch_norm(lib.randn(2, 3), lib.zeros(4), lib.ones(4), training=True),
    lambda F, lib: F.batch_norm(lib.randn(2, 3), None, None),
    lambda F, lib: F.instance_norm(lib.randn(2, 3, 1)),
    lambda F, lib: F.local_response_norm(lib.randn(2, 3), 2),
    lambda F, lib: F.one_hot(lib.tensor([0, 2]).int()),
    lambda F, lib: F.one_hot(lib.tensor([0, -1]), 3),
    lambda F, lib: F.one_hot(lib.tensor([0, 3]), 3),
    lambda F, lib: F.embedding(lib.tensor([0, 5]), lib.randn(5, 3)),
    lambda F, lib: F.embedding(lib.tensor([0.0]), lib.randn(5, 3)),
    lambda F, lib: F.embedding(lib.tensor([0]), lib.randn(5, 3), padding_idx=5),
    lambda F, lib: F.embedding_bag(lib.tensor([0, 1]), lib.randn(5, 3), lib.tensor([1])),
    lambda F, lib: F.embedding_bag(lib.tensor([[0, 1]]), lib.randn(5, 3), lib.tensor([0])),
    lambda F, lib: F.embedding_bag(lib.tensor([0, 1]), lib.randn(5, 3), lib.tensor([0]), mode="x"),
    lambda F, lib: F.pad(lib.randn(2, 3), (1,)),
    lambda F, lib: F.pad(lib.randn(2, 3), (1, 1, 1, 1, 1, 1)),
    lambda F, lib: F.pad(lib.randn(1, 2, 3), (3, 2), mode="reflect"),
    lambda F, lib: F.pad(lib.randn(1, 2, 3), (4, 2), mode="circular"),
    lambda F, lib: F.pad(lib.randn(3), (1, 1), mode="reflect"),
    lambda F, lib: F.pad(lib.randn(1, 2, 3), (1, 1), mode="foo"),
    lambda F, lib: F.pad(lib.randn(1, 2, 3), (1, 1), mode="reflect", value=2.0),
    lambda F, lib: F.dropout(lib.randn(3), 1.5),
    lambda F, lib: F.dropout1d(lib.randn(3), 0.5),
    lambda F, lib: F.scaled_dot_product_attention(
        lib.randn(3, 4),
        lib.randn(5, 4),
        lib.randn(5, 4),
        attn_mask=lib.ones(3, 5).bool(),
        is_causal=True,
    ),
]


@pytest.mark.parametrize("i", range(len(ERRORS)))
def test_errors_match_torch(i):
    fn = ERRORS[i]
    with pytest.raises(Exception) as want:
        fn(torch.nn.functional, torch)
    with pytest.raises(Exception) as got:
        fn(minitorch.nn.functional, minitorch)
    assert type(got.value) is type(want.value)
    # the first line: torch appends the repr of a 0-d tensor to some messages
    assert str(got.value).splitlines()[0] == str(want.value).splitlines()[0]
