"""The later nn pieces against PyTorch: bicubic interpolation, CTC loss, channel_shuffle, the 3-d
pools, affine_grid/grid_sample, the torch.* forms of nn ops (same float64 inputs give the same
outputs and gradients), and Bilinear/lazy layers (same weights, reprs, state_dict keys)."""

from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch")

import minitorch  # noqa: E402
from tests.reference._nn_harness import Case, compare, floats  # noqa: E402


def _lsm(shape):
    def make(rng):
        return [rng.standard_normal(shape)]

    return make


def _with(*arrays_fns):
    def make(rng):
        return [f(rng) for f in arrays_fns]

    return make


def _f(*shape, low=-2.0, high=2.0):
    return lambda rng: rng.uniform(low, high, size=shape)


def _i(high, *shape):
    return lambda rng: rng.integers(0, high, size=shape)


def _pos(*shape):
    return lambda rng: rng.uniform(0.3, 2.0, size=shape)


def _distinct(*shape):
    return lambda rng: rng.permutation(int(np.prod(shape))).reshape(shape) / 7.0


_CTC_T = [[1, 2, 2, 0], [3, 0, 0, 0], [1, 1, 3, 2]]
_CTC_TL = [3, 1, 4]


def _ctc(reduction, flat=False, lengths_as_tensors=False, zero_infinity=False, il=(8, 6, 5)):
    def fn(F, lib, logits):
        lp = logits.log_softmax(2)
        tg = lib.tensor(_CTC_T)
        if flat:
            tg = lib.cat([tg[n, : _CTC_TL[n]] for n in range(3)])
        ils, tls = list(il), _CTC_TL
        if lengths_as_tensors:
            ils, tls = lib.tensor(ils), lib.tensor(tls)
        return F.ctc_loss(lp, tg, ils, tls, 0, reduction, zero_infinity)

    name = f"ctc_loss({reduction}, {flat}, {lengths_as_tensors}, {zero_infinity}, {il})"
    return Case(name, fn, _lsm((8, 3, 5)), atol=1e-10)


CASES = [
    # bicubic
    *[
        Case(
            f"bicubic{kw}",
            lambda F, lib, x, kw=kw: F.interpolate(x, mode="bicubic", **kw),
            floats((2, 3, 5, 6)),
            atol=1e-10,
        )
        for kw in [
            dict(size=(9, 4)),
            dict(size=(9, 4), align_corners=True),
            dict(scale_factor=2),
            dict(scale_factor=(1.7, 0.6), align_corners=True),
            dict(scale_factor=0.5),
            dict(scale_factor=2.5, recompute_scale_factor=True),
            dict(size=(1, 1)),
        ]
    ],
    Case(
        "Upsample(bicubic)",
        lambda F, lib, x: lib.nn.Upsample(scale_factor=3, mode="bicubic")(x),
        floats((1, 2, 3, 3)),
        atol=1e-10,
    ),
    # CTC
    _ctc("none"),
    _ctc("mean"),
    _ctc("sum"),
    _ctc("mean", flat=True),
    _ctc("none", flat=True, lengths_as_tensors=True),
    _ctc("mean", lengths_as_tensors=True),
    _ctc("none", il=(8, 6, 2), zero_infinity=True),
    _ctc("sum", il=(8, 6, 2), zero_infinity=True),
    Case(
        "ctc_loss unbatched, blank=2",
        lambda F, lib, x: F.ctc_loss(x.log_softmax(1), lib.tensor([1, 0, 0]), (6,), (3,), 2),
        _lsm((6, 3)),
        atol=1e-10,
    ),
    Case(
        "CTCLoss module",
        lambda F, lib, x: lib.nn.CTCLoss(blank=4)(
            x.log_softmax(2), lib.tensor([[1, 2], [3, 3]]), [5, 5], [2, 2]
        ),
        _lsm((5, 2, 5)),
        atol=1e-10,
    ),
    # channel_shuffle and 3-d pools
    Case("channel_shuffle", lambda F, lib, x: F.channel_shuffle(x, 3), floats((2, 6, 2, 3))),
    Case("native_channel_shuffle", lambda F, lib, x: lib.native_channel_shuffle(x, 2),
         floats((2, 4, 3)), grad=()),  # torch has no derivative for it
    *[
        Case(
            f"adaptive_max_pool3d{size}",
            lambda F, lib, x, size=size: F.adaptive_max_pool3d(x, size, return_indices=True),
            _with(_distinct(2, 2, 5, 7, 4)),
        )
        for size in [(2, 3, 3), (5, 1, 4), (3, None, 2)]
    ],
    Case(
        "AdaptiveMaxPool3d unbatched",
        lambda F, lib, x: lib.nn.AdaptiveMaxPool3d(2)(x),
        _with(_distinct(3, 4, 5, 3)),
    ),
    Case(
        "lp_pool3d",
        lambda F, lib, x: F.lp_pool3d(x, 2.0, (2, 3, 2), stride=(1, 2, 1)),
        _with(_pos(1, 2, 4, 7, 5)),
    ),
    Case(
        "LPPool3d ceil_mode p=3",
        lambda F, lib, x: lib.nn.LPPool3d(3, 2, ceil_mode=True)(x),
        _with(_pos(1, 2, 5, 5, 3)),
    ),
    Case(
        "max_unpool3d",
        lambda F, lib, x: F.max_unpool3d(*F.max_pool3d(x, 2, return_indices=True), 2,
                                         output_size=(5, 5, 4)),
        _with(_distinct(1, 2, 5, 5, 4)),
    ),  # fmt: skip
    # affine_grid / grid_sample
    *[
        Case(
            f"affine_grid{size}, {ac}",
            lambda F, lib, th, size=size, ac=ac: F.affine_grid(th, size, align_corners=ac),
            floats((2, len(size) - 2, len(size) - 1)),
        )
        for size in [(2, 3, 4, 5), (2, 1, 3, 1, 2), (2, 1, 1, 3)]
        for ac in (False, True)
    ],
    *[
        Case(
            f"grid_sample({mode}, {pm}, {ac})",
            lambda F, lib, x, g, mode=mode, pm=pm, ac=ac: F.grid_sample(x, g, mode, pm, ac),
            _with(_f(2, 3, 4, 5), _f(2, 3, 4, 2, low=-1.6, high=1.6)),
            atol=1e-10,
        )
        for mode in ("bilinear", "nearest", "bicubic")
        for pm in ("zeros", "border", "reflection")
        for ac in (False, True)
    ],
    *[
        Case(
            f"grid_sample 3d({pm}, {ac})",
            lambda F, lib, x, g, pm=pm, ac=ac: F.grid_sample(x, g, "bilinear", pm, ac),
            _with(_f(1, 2, 3, 4, 3), _f(1, 2, 3, 2, 3, low=-1.4, high=1.4)),
            atol=1e-10,
        )
        for pm in ("zeros", "border", "reflection")
        for ac in (False, True)
    ],
    # the torch.* forms, with ATen's positional signatures
    Case("torch.conv2d", lambda F, lib, x, w, b: lib.conv2d(x, w, b, 1, 1, 1, 1),
         floats((1, 2, 5, 5), (3, 2, 3, 3), (3,))),
    Case("torch.conv_transpose1d", lambda F, lib, x, w: lib.conv_transpose1d(x, w, None, 2),
         floats((1, 2, 5), (2, 3, 3))),
    Case("torch.convolution", lambda F, lib, x, w: lib.convolution(
        x, w, None, [2, 1], [1, 0], [1, 1], True, [1, 0], 1), floats((1, 2, 3, 4), (2, 3, 2, 2))),
    Case("torch.grid_sampler", lambda F, lib, x, g: lib.grid_sampler(x, g, 0, 2, False),
         _with(_f(1, 2, 3, 4), _f(1, 2, 2, 2, low=-1.5, high=1.5)), atol=1e-10),
    Case("torch.grid_sampler_3d", lambda F, lib, x, g: lib.grid_sampler_3d(x, g, 1, 1, True),
         _with(_f(1, 2, 3, 4, 2), _f(1, 2, 1, 2, 3, low=-1.5, high=1.5)), grad=(0,)),
    Case("torch.affine_grid_generator", lambda F, lib, t: lib.affine_grid_generator(
        t, [1, 1, 3, 2], False), floats((1, 2, 3))),
    Case("F.conv_tbc", lambda F, lib, x, w, b: F.conv_tbc(x, w, b),
         floats((5, 1, 2), (2, 2, 3), (3,))),
    Case("torch.native_layer_norm", lambda F, lib, x, w, b: lib.native_layer_norm(
        x, [3, 4], w, b, 1e-4), floats((2, 3, 4), (3, 4), (3, 4)), grad=()),
    Case("torch.native_layer_norm output grad", lambda F, lib, x, w: lib.native_layer_norm(
        x, [4], w, None, 1e-5)[0], floats((2, 3, 4), (4,))),
    Case("torch.native_batch_norm train", lambda F, lib, x, w: lib.native_batch_norm(
        x, w, None, None, None, True, 0.1, 1e-5), floats((4, 3, 2), (3,)), grad=()),
    Case("torch.native_batch_norm eval", lambda F, lib, x, m, v: lib.native_batch_norm(
        x, None, None, m, v, False, 0.1, 1e-5), _with(_f(4, 3), _f(3), _pos(3)), grad=()),
    Case("torch.native_group_norm", lambda F, lib, x, w, b: lib.native_group_norm(
        x, w, b, 2, 4, 3, 2, 1e-5), floats((2, 4, 3), (4,), (4,)), grad=()),
    Case("torch.native_dropout eval", lambda F, lib, x: lib.native_dropout(x, 0.2, False),
         floats((2, 3)), grad=()),
    Case("torch.conv_tbc", lambda F, lib, x, w, b: lib.conv_tbc(x, w, b, 1),
         floats((6, 2, 3), (3, 3, 4), (4,))),
    Case("torch.avg_pool1d", lambda F, lib, x: lib.avg_pool1d(x, 3, 2, 1, True, False),
         floats((2, 3, 8))),
    Case("torch.max_pool1d", lambda F, lib, x: lib.max_pool1d(x, 2), _with(_distinct(2, 3, 8))),
    Case("torch.max_pool2d", lambda F, lib, x: lib.max_pool2d(x, 3, [], 1),
         _with(_distinct(1, 2, 5, 6))),
    Case("torch.max_pool3d", lambda F, lib, x: lib.max_pool3d(x, 2, 1),
         _with(_distinct(1, 2, 3, 4, 3))),
    Case("torch.max_pool1d_with_indices", lambda F, lib, x: lib.max_pool1d_with_indices(x, 3),
         _with(_distinct(2, 7))),
    Case("torch.adaptive_avg_pool1d", lambda F, lib, x: lib.adaptive_avg_pool1d(x, 3),
         floats((2, 3, 7))),
    Case("torch.adaptive_max_pool1d", lambda F, lib, x: lib.adaptive_max_pool1d(x, [3]),
         _with(_distinct(2, 3, 7))),
    Case("torch.batch_norm", lambda F, lib, x, w, b: lib.batch_norm(
        x, w, b, None, None, True, 0.1, 1e-5, False), floats((4, 3, 2), (3,), (3,))),
    Case("torch.instance_norm", lambda F, lib, x, w, b: lib.instance_norm(
        x, w, b, None, None, True, 0.1, 1e-5, False), floats((2, 3, 5), (3,), (3,))),
    Case("torch.layer_norm", lambda F, lib, x, w: lib.layer_norm(x, [4], w, None, 1e-3),
         floats((3, 4), (4,))),
    Case("torch.group_norm", lambda F, lib, x: lib.group_norm(x, 2), floats((2, 4, 3))),
    Case("torch.rms_norm", lambda F, lib, x, w: lib.rms_norm(x, [4], w, 1e-6),
         floats((3, 4), (4,))),
    Case("torch.dropout eval", lambda F, lib, x: lib.dropout(x, 0.3, False), floats((3, 4))),
    Case("torch.alpha_dropout p=0", lambda F, lib, x: lib.alpha_dropout(x, 0.0, True),
         floats((3, 4))),
    Case("torch.feature_alpha_dropout eval",
         lambda F, lib, x: lib.feature_alpha_dropout(x, 0.5, False), floats((2, 3, 4))),
    Case("torch.embedding", lambda F, lib, w, i: lib.embedding(w, i, 1),
         _with(_f(5, 3), _i(5, 2, 4))),
    *[
        Case(
            f"torch.embedding_bag mode={mode}",
            lambda F, lib, w, i, mode=mode: lib.embedding_bag(w, i, lib.tensor([0, 3, 3, 5]),
                                                              False, mode)[: 1 if mode == 0 else 4],
            _with(_distinct(6, 3), _i(6, 8)),
        )  # fmt: skip
        for mode in (0, 1, 2)
    ],
    Case("torch.embedding_bag sum bookkeeping", lambda F, lib, w, i: lib.embedding_bag(
        w, i, lib.tensor([0, 3]), False, 0)[1:], _with(_distinct(6, 3), _i(6, 5)), grad=()),
    Case("torch.pixel_shuffle", lambda F, lib, x: lib.pixel_shuffle(x, 2), floats((1, 8, 2, 3))),
    Case("torch.pixel_unshuffle", lambda F, lib, x: lib.pixel_unshuffle(x, 2),
         floats((1, 2, 4, 6))),
    Case("torch.channel_shuffle", lambda F, lib, x: lib.channel_shuffle(x, 2), floats((1, 4, 3))),
    Case("torch.cosine_similarity", lambda F, lib, a, b: lib.cosine_similarity(a, b, 0),
         floats((4, 3), (4, 3))),
    Case("torch.pairwise_distance", lambda F, lib, a, b: lib.pairwise_distance(a, b, 1.0),
         floats((4, 3), (4, 3))),
    Case("torch.pdist", lambda F, lib, a: lib.pdist(a, 3.0), floats((4, 3))),
    *[
        Case(f"torch.kl_div({r})", lambda F, lib, a, b, r=r: lib.kl_div(a, b, r, log_target=True),
             floats((3, 4), (3, 4)))
        for r in (0, 1, 2)
    ],  # fmt: skip
    Case("torch.hinge_embedding_loss", lambda F, lib, a: lib.hinge_embedding_loss(
        a, lib.tensor([1.0, -1.0, -1.0, 1.0]), 0.5, 2), floats((4,))),
    Case("torch.margin_ranking_loss", lambda F, lib, a, b: lib.margin_ranking_loss(
        a, b, lib.tensor([1.0, -1.0, 1.0]), 0.2, 0), floats((3,), (3,))),
    Case("torch.cosine_embedding_loss", lambda F, lib, a, b: lib.cosine_embedding_loss(
        a, b, lib.tensor([1.0, -1.0]), 0.1), floats((2, 4), (2, 4))),
    Case("torch.triplet_margin_loss", lambda F, lib, a, p, n: lib.triplet_margin_loss(
        a, p, n, 1.0, 2.0, 1e-6, True, 0), floats((3, 4), (3, 4), (3, 4))),
    Case("torch.poisson_nll_loss", lambda F, lib, a, t: lib.poisson_nll_loss(
        a, t, True, True, 1e-8, 1), _with(_f(3, 4), _pos(3, 4))),
    Case("torch.binary_cross_entropy_with_logits",
         lambda F, lib, a, t, w: lib.binary_cross_entropy_with_logits(a, t, None, w, 2),
         _with(_f(3, 4), lambda rng: rng.uniform(0, 1, (3, 4)), _pos(4)), grad=(0, 1)),
    Case("torch.* losses default to no reduction", lambda F, lib, a, b: [
        lib.kl_div(a, b.abs()), lib.hinge_embedding_loss(a, b.sign()), lib.margin_ranking_loss(
            a, b, b.sign()), lib.cosine_embedding_loss(a, b, lib.tensor([1.0, -1.0, 1.0])),
        lib.triplet_margin_loss(a, b, -a), lib.binary_cross_entropy_with_logits(a, b.abs())],
        floats((3, 4), (3, 4))),
    Case("torch.ctc_loss", lambda F, lib, x: lib.ctc_loss(
        x.log_softmax(2), lib.tensor([[1, 2], [2, 2]]), [4, 5], [2, 2], 0, 2), _lsm((5, 2, 3)),
        atol=1e-10),
    Case("torch.ctc_loss default", lambda F, lib, x: lib.ctc_loss(
        x.log_softmax(2), lib.tensor([[1, 2], [2, 2]]), [4, 5], [2, 2]), _lsm((5, 2, 3)),
        atol=1e-10),
    Case("torch.prelu", lambda F, lib, x, w: lib.prelu(x, w), floats((2, 3, 4), (3,))),
    Case("torch.rrelu eval", lambda F, lib, x: lib.rrelu(x, 0.1, 0.3), floats((3, 4))),
    Case("torch.hardshrink", lambda F, lib, x: lib.hardshrink(x, 0.7), floats((3, 4))),
    Case("torch.threshold", lambda F, lib, x: lib.threshold(x, 0.3, -2.0), floats((3, 4))),
    Case("torch.constant_pad_nd", lambda F, lib, x: lib.constant_pad_nd(x, [1, 0, 2, 1], 1.5),
         floats((2, 3))),
    Case("torch.rnn_tanh_cell", lambda F, lib, x, h, wi, wh, bi, bh: lib.rnn_tanh_cell(
        x, h, wi, wh, bi, bh), floats((2, 3), (2, 4), (4, 3), (4, 4), (4,), (4,))),
    Case("torch.rnn_relu_cell", lambda F, lib, x, h, wi, wh: lib.rnn_relu_cell(x, h, wi, wh),
         floats((2, 3), (2, 4), (4, 3), (4, 4))),
    Case("torch.lstm_cell", lambda F, lib, x, h, c, wi, wh: lib.lstm_cell(x, (h, c), wi, wh),
         floats((2, 3), (2, 4), (2, 4), (16, 3), (16, 4))),
    Case("torch.gru_cell", lambda F, lib, x, h, wi, wh, bi, bh: lib.gru_cell(
        x, h, wi, wh, bi, bh), floats((2, 3), (2, 4), (12, 3), (12, 4), (12,), (12,))),
    Case("torch.bilinear", lambda F, lib, a, b, w, c: lib.bilinear(a, b, w, c),
         floats((2, 3), (2, 4), (5, 3, 4), (5,))),
    Case("Tensor.hardshrink", lambda F, lib, x: x.hardshrink(0.4), floats((3, 4))),
    Case("Tensor.prelu", lambda F, lib, x, w: x.prelu(w), floats((2, 3), (1,))),
]  # fmt: skip


@pytest.mark.parametrize("case", CASES, ids=repr)
def test_matches_torch(case):
    compare(case, torch)


def _same_params(dst, src) -> None:
    """Copies src's (torch) parameters and buffers into dst (minitorch) by name."""
    dst.load_state_dict({k: minitorch.tensor(v.detach().numpy()) for k, v in
                         src.state_dict().items()})  # fmt: skip


def test_bilinear_module_matches_torch():
    t = torch.nn.Bilinear(3, 4, 2, dtype=torch.float64)
    m = minitorch.nn.Bilinear(3, 4, 2, dtype=minitorch.float64)
    assert repr(m) == repr(t) and list(m.state_dict()) == list(t.state_dict())
    _same_params(m, t)
    rng = np.random.default_rng(0)
    a, b = rng.standard_normal((5, 3)), rng.standard_normal((5, 4))
    ta, tb = torch.tensor(a, requires_grad=True), torch.tensor(b, requires_grad=True)
    ma, mb = minitorch.tensor(a, requires_grad=True), minitorch.tensor(b, requires_grad=True)
    t(ta, tb).sum().backward()
    m(ma, mb).sum().backward()
    np.testing.assert_allclose(ma.grad.numpy(), ta.grad.numpy(), rtol=1e-12)
    np.testing.assert_allclose(m.weight.grad.numpy(), t.weight.grad.numpy(), rtol=1e-12)
    with pytest.raises(RuntimeError):
        t(ta, tb[:4])
    with pytest.raises(RuntimeError):
        m(ma, mb[:4])


@pytest.mark.parametrize(
    "make, shape",
    [
        (lambda nn: nn.LazyLinear(3), (2, 4)),
        (lambda nn: nn.LazyLinear(3, bias=False), (4,)),
        (lambda nn: nn.LazyConv1d(4, 2, stride=2), (1, 3, 6)),
        (lambda nn: nn.LazyConv2d(4, 3, padding="same", bias=False), (2, 5, 5)),
        (lambda nn: nn.LazyConv3d(2, 1), (1, 2, 2, 2, 2)),
        (lambda nn: nn.LazyConvTranspose1d(2, 3, groups=2), (1, 4, 3)),
        (lambda nn: nn.LazyBatchNorm1d(momentum=0.3), (4, 3)),
        (lambda nn: nn.LazyBatchNorm3d(affine=False), (2, 3, 1, 2, 2)),
        (lambda nn: nn.LazyInstanceNorm1d(), (2, 3, 4)),
        (lambda nn: nn.LazyInstanceNorm2d(track_running_stats=False), (2, 3, 4, 4)),
    ],
)
def test_lazy_modules_match_torch(make, shape):
    t, m = make(torch.nn), make(minitorch.nn)
    assert repr(m) == repr(t)
    assert list(m.state_dict()) == list(t.state_dict())
    assert m.has_uninitialized_params() == t.has_uninitialized_params()
    x = np.random.default_rng(1).standard_normal(shape)
    t(torch.tensor(x, dtype=torch.float32))
    m(minitorch.tensor(x, dtype=minitorch.float32))
    assert type(m).__name__ == type(t).__name__ and repr(m) == repr(t)
    assert list(m.state_dict()) == list(t.state_dict())
    for (km, vm), (kt, vt) in zip(m.state_dict().items(), t.state_dict().items(), strict=True):
        assert km == kt and tuple(vm.shape) == tuple(vt.shape), km


@pytest.mark.parametrize(
    "shapes",
    [((3,), (2, 4), (2, 3, 4), None), ((2, 3), (2, 4), (2, 3, 4), (3,)),
     ((2, 6), (2, 4), (2, 3, 4), None), ((2, 3), (3, 4), (2, 3, 4), None)],
)  # fmt: skip
def test_bilinear_errors_match_torch(shapes):
    def message(lib):
        a, b, w, c = (None if s is None else lib.ones(s) for s in shapes)
        with pytest.raises(RuntimeError) as info:
            lib.nn.functional.bilinear(a, b, w, c)
        return str(info.value)

    assert message(minitorch) == message(torch)


def _recurrent_inputs(lib, mode, bidirectional, batch_first, proj):
    """Same-seeded (input, hx, params) for torch.lstm / gru / rnn_*: 2 layers, float64."""
    rng = np.random.default_rng(3)
    L, N, n_in, H = 4, 3, 2, 5
    P = 3 if proj else H
    gates = {"lstm": 4, "gru": 3}.get(mode, 1)
    dirs = 2 if bidirectional else 1
    params = []
    for layer in range(2):
        for _ in range(dirs):
            width = n_in if layer == 0 else P * dirs
            shapes = [(gates * H, width), (gates * H, P), (gates * H,), (gates * H,)]
            shapes += [(P, H)] if proj else []
            params += [rng.standard_normal(s) * 0.4 for s in shapes]
    x = rng.standard_normal((N, L, n_in) if batch_first else (L, N, n_in))
    h0, c0 = rng.standard_normal((2 * dirs, N, P)), rng.standard_normal((2 * dirs, N, H))
    t = [lib.tensor(a, requires_grad=True) for a in (x, *params)]
    hx = [lib.tensor(h0), lib.tensor(c0)] if mode == "lstm" else lib.tensor(h0)
    return t[0], hx, t[1:]


@pytest.mark.parametrize(
    "mode, bidirectional, batch_first, proj",
    [("lstm", False, False, False), ("lstm", True, True, True), ("gru", True, False, False),
     ("gru", False, True, False), ("rnn_tanh", True, True, False), ("rnn_relu", False, False,
     False)],
)  # fmt: skip
def test_recurrent_functions_match_torch(mode, bidirectional, batch_first, proj):
    results = []
    for lib in (minitorch, torch):
        x, hx, params = _recurrent_inputs(lib, mode, bidirectional, batch_first, proj)
        outs = getattr(lib, mode)(x, hx, params, True, 2, 0.0, False, bidirectional, batch_first)
        sum((o * o).sum() for o in outs).backward()
        results.append(
            [o.detach().numpy() for o in outs] + [x.grad.numpy(), params[1].grad.numpy()]
        )
    for got, want in zip(*results, strict=True):
        np.testing.assert_allclose(got, want, rtol=1e-10, atol=1e-12)


def test_packed_recurrent_functions_match_torch():
    results = []
    for lib in (minitorch, torch):
        x, hx, params = _recurrent_inputs(lib, "lstm", True, False, False)
        data = lib.cat([x[0], x[1], x[2, :2], x[3, :1]])
        # packed: batch sizes 3, 3, 2, 1 over the (L, N) input
        outs = lib.lstm(data, lib.tensor([3, 3, 2, 1]), hx, params, True, 2, 0.0, False, True)
        sum((o * o).sum() for o in outs).backward()
        results.append([o.detach().numpy() for o in outs] + [x.grad.numpy()])
    for got, want in zip(*results, strict=True):
        np.testing.assert_allclose(got, want, rtol=1e-10, atol=1e-12)
