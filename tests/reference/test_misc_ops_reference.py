"""The pointwise, tensor-kind, window, index and settings additions of issue 3 against PyTorch:
values, dtypes, result types, and the exception type and message of bad calls."""

from __future__ import annotations

import numpy as np
import pytest

import minitorch as mt

torch = pytest.importorskip("torch")


def _same(got, want, err, rtol=1e-6, atol=1e-7):
    assert str(got.dtype) == str(want.dtype), f"{err}: dtype {got.dtype} vs {want.dtype}"
    assert tuple(got.shape) == tuple(want.shape), f"{err}: shape {got.shape} vs {want.shape}"
    np.testing.assert_allclose(
        got.detach().cpu().numpy(), want.detach().numpy(), rtol=rtol, atol=atol, err_msg=err
    )


def _both(fn):
    return fn(mt), fn(torch)


@pytest.mark.parametrize(
    "name", ["hann_window", "hamming_window", "blackman_window", "bartlett_window", "kaiser_window"]
)
@pytest.mark.parametrize("n", [0, 1, 2, 7, 16])
@pytest.mark.parametrize("periodic", [True, False])
def test_windows(name, n, periodic):
    for dt in ("float32", "float64"):
        got, want = _both(lambda L, dt=dt: getattr(L, name)(n, periodic, dtype=getattr(L, dt)))
        _same(
            got,
            want,
            f"{name}({n}, {periodic}) {dt}",
            rtol=1e-5 if dt == "float32" else 1e-12,
            atol=1e-6 if dt == "float32" else 1e-14,
        )


def test_window_extra_parameters():
    got, want = _both(lambda L: L.hamming_window(9, False, 0.6, 0.3))
    _same(got, want, "hamming alpha beta")
    got, want = _both(lambda L: L.kaiser_window(9, True, 4.5, dtype=L.float64))
    _same(got, want, "kaiser beta", rtol=1e-12)


@pytest.mark.parametrize("args", [(3, 3), (3, 4, 1), (4, 3, -1), (2, 3, -5), (3, 2, 5), (0, 3)])
def test_triangle_indices(args):
    for name in ("tril_indices", "triu_indices"):
        got, want = _both(lambda L, name=name: getattr(L, name)(*args))
        assert got.tolist() == want.tolist(), f"{name}{args}"
        assert str(got.dtype) == str(want.dtype)


def test_unravel_index():
    idx = [[0, 5, -1], [6, 3, 2]]
    got, want = _both(lambda L: L.unravel_index(L.tensor(idx), (2, 3)))
    assert [g.tolist() for g in got] == [w.tolist() for w in want]
    got, want = _both(lambda L: L.unravel_index(L.tensor(4, dtype=L.int32), (2, 3)))
    assert [(g.tolist(), str(g.dtype)) for g in got] == [(w.tolist(), str(w.dtype)) for w in want]


def test_gradient_variants():
    rng = np.random.default_rng(3)
    f = rng.normal(size=(4, 6))
    x = np.cumsum(rng.uniform(0.5, 1.5, size=6))
    cases = [
        {},
        {"dim": 1},
        {"spacing": 2.0},
        {"spacing": [0.5, 3.0]},
        {"edge_order": 2},
        {"spacing": [0.5], "dim": -1, "edge_order": 2},
    ]
    for kw in cases:
        got, want = _both(lambda L, kw=kw: L.gradient(L.tensor(f), **kw))
        for g, w in zip(got, want, strict=True):
            _same(g, w, f"gradient {kw}", rtol=1e-12, atol=1e-12)
    for order in (1, 2):
        got, want = _both(
            lambda L, order=order: L.gradient(
                L.tensor(f), spacing=(L.tensor(x),), dim=1, edge_order=order
            )
        )
        _same(got[0], want[0], f"gradient coordinates edge_order={order}", rtol=1e-10)
    got, want = _both(lambda L: L.gradient(L.tensor([1, 4, 9, 16])))
    _same(got[0], want[0], "gradient of int64")


def test_gradient_backward():
    rng = np.random.default_rng(4)
    f = rng.normal(size=(3, 5))
    up = rng.normal(size=(3, 5))
    grads = []
    for L in (mt, torch):
        t = L.tensor(f, requires_grad=True)
        (L.gradient(t, dim=1, edge_order=2)[0] * L.tensor(up)).sum().backward()
        grads.append(t.grad)
    _same(grads[0], grads[1], "gradient backward", rtol=1e-12, atol=1e-12)


def test_histogramdd():
    rng = np.random.default_rng(5)
    pts = rng.normal(size=(40, 3)).astype(np.float32)
    w = rng.uniform(size=40).astype(np.float32)
    for kw in (
        {"bins": 4},
        {"bins": [2, 3, 4], "density": True},
        {"bins": [2, 2, 2], "range": [-1.0, 1.0, -2.0, 2.0, 0.0, 1.0]},
    ):
        got, want = _both(lambda L, kw=kw: L.histogramdd(L.tensor(pts), weight=L.tensor(w), **kw))
        _same(got.hist, want.hist, f"histogramdd hist {kw}", rtol=1e-5, atol=1e-6)
        for g, e in zip(got.bin_edges, want.bin_edges, strict=True):
            _same(g, e, f"histogramdd edges {kw}", rtol=1e-6)


@pytest.mark.filterwarnings("ignore:invalid value encountered:RuntimeWarning")  # sin(inf)
def test_values_and_dtypes_of_special_cases():
    x = [-2.5, -1.0, -0.0, 0.0, 0.5, 3.0, float("inf"), float("nan")]
    for name in ("angle", "deg2rad", "rad2deg", "sinc", "i0", "positive"):
        got, want = _both(lambda L, name=name: getattr(L, name)(L.tensor(x)))
        _same(got, want, name, rtol=1e-6)
    got, want = _both(lambda L: L.frexp(L.tensor(x)))
    _same(got.mantissa, want.mantissa, "frexp mantissa")
    _same(got.exponent, want.exponent, "frexp exponent")
    got, want = _both(lambda L: L.copysign(L.tensor([1, -2, 3]), L.tensor([-0.0, 1.0, -1.0])))
    _same(got, want, "copysign int by float")
    got, want = _both(lambda L: L.float_power(L.tensor([1, 2, 3], dtype=L.int32), -1))
    _same(got, want, "float_power int ** -1")
    got, want = _both(lambda L: L.mvlgamma(L.tensor([2.5, 4.0]), 2))
    _same(got, want, "mvlgamma")
    a, b = [0.5, 1.0, 2.0, 7.5], [0.1, 1.0, 5.0, 3.0]
    for name in ("igamma", "igammac"):
        got, want = _both(lambda L, name=name: getattr(L, name)(L.tensor(a), L.tensor(b)))
        _same(got, want, name, rtol=1e-5)
    got, want = _both(lambda L: L.ldexp(L.tensor([1, -3]), L.tensor([2, -1])))
    _same(got, want, "ldexp of ints")
    got, want = _both(lambda L: L.heaviside(L.tensor([-1, 0, 3]), L.tensor([7])))
    _same(got, want, "heaviside int")
    got, want = _both(lambda L: L.nonzero_static(L.tensor([[0, 1], [2, 0]]), size=3, fill_value=9))
    _same(got, want, "nonzero_static")
    got, want = _both(lambda L: L.arange(24.0).reshape(2, 3, 4).sum_to_size(3, 1))
    _same(got, want, "sum_to_size")


def test_inplace_comparison_gradients_are_zero():
    grads = []
    for L in (mt, torch):
        x = L.tensor([1.0, 2.0, 3.0], requires_grad=True)
        y = x * 2
        y.ge_(4.0)
        assert y.requires_grad and y.grad_fn is not None
        (y * L.tensor([1.0, 2.0, 3.0])).sum().backward()
        grads.append(x.grad)
    _same(grads[0], grads[1], "ge_ gradient")


@pytest.mark.parametrize(
    "call",
    [
        lambda L: L.gcd(L.tensor([1.0]), L.tensor([2.0])),
        lambda L: L.frexp(L.tensor([1, 2])),
        lambda L: L.heaviside(L.tensor([1.0]), 0.5),
        lambda L: L.heaviside(L.tensor([1.0]), L.tensor([1])),
        lambda L: L.igamma(L.tensor([1]), L.tensor([2])),
        lambda L: L.nextafter(L.tensor([1]), L.tensor([2])),
        lambda L: L.mvlgamma(L.tensor([2.0]), 0),
        lambda L: L.positive(L.tensor([True])),
        lambda L: L.tensor([1.0]).float_power_(2),
        lambda L: L.tensor([1], dtype=L.int32).cumsum_(0, dtype=L.float64),
        lambda L: L.tensor([]).is_nonzero(),
        lambda L: L.is_nonzero(L.tensor([1, 2])),
        lambda L: L.tensor([1.0]).imag,
        lambda L: L.tensor(1.0).select(0, 0),
        lambda L: L.zeros(2, 3).select(1, 3),
        lambda L: L.zeros(2, 3).sum_to_size(1, 1, 3),
        lambda L: L.nonzero_static(L.zeros(3), size=-1),
        lambda L: L.fill(L.zeros(3), L.tensor([1.0])),
        lambda L: L.gradient(L.tensor([1.0])),
        lambda L: L.gradient(L.tensor([1.0, 2.0, 3.0]), edge_order=3),
        lambda L: L.gradient(L.tensor([1.0, 2.0, 3.0]), spacing=[L.tensor(1.0)]),
        lambda L: L.hann_window(5, dtype=L.int64),
        lambda L: L.bartlett_window(-1),
        lambda L: L.tril_indices(3, 3, dtype=L.float32),
        lambda L: L.triu_indices(-1, 3),
        lambda L: L.unravel_index(L.tensor([1.0]), (2, 3)),
        lambda L: L.unravel_index(L.tensor([1]), (2, -3)),
        lambda L: L.set_num_threads(0),
        lambda L: L.set_deterministic_debug_mode("loud"),
        lambda L: L.set_deterministic_debug_mode(7),
        lambda L: L.set_warn_always(1),
        lambda L: L.set_flush_denormal(1),
    ],
)
def test_errors_match_torch(call):
    with pytest.raises(Exception) as theirs:
        call(torch)
    with pytest.raises(type(theirs.value)) as ours:
        call(mt)
    want = str(theirs.value).split("\n")[0].split("(Triggered")[0].strip()
    if want.startswith("hann_window expects floating point dtypes"):
        want = "hann_window expects floating point dtypes"
    assert want in str(ours.value), f"ours: {ours.value!r}\ntorch: {theirs.value!r}"


def test_kind_queries_match_torch():
    x_mt, x_t = mt.zeros(2, 3), torch.zeros(2, 3)
    props = (
        "is_sparse",
        "is_sparse_csr",
        "is_quantized",
        "is_meta",
        "is_mps",
        "is_xpu",
        "is_ipu",
        "is_mkldnn",
        "is_vulkan",
        "is_xla",
        "is_mtia",
        "is_maia",
        "is_nested",
        "output_nr",
    )
    for name in props:
        assert getattr(x_mt, name) == getattr(x_t, name), name
    for name in ("is_conj", "is_neg", "is_inference", "is_shared", "is_complex", "is_signed"):
        assert getattr(x_mt, name)() == getattr(x_t, name)(), name
    for name in ("is_conj", "is_neg", "is_inference", "is_complex", "is_signed"):
        assert getattr(mt, name)(x_mt) == getattr(torch, name)(x_t), name
    assert repr(x_mt.layout) == repr(x_t.layout) == repr(mt.strided)
    for name in ("conj", "conj_physical", "resolve_conj", "resolve_neg", "real"):
        assert (getattr(torch, name)(x_t) is x_t) == (getattr(mt, name)(x_mt) is x_mt), name


def test_settings_defaults_match_torch():
    assert mt.get_float32_matmul_precision() == torch.get_float32_matmul_precision()
    assert mt.get_deterministic_debug_mode() == torch.get_deterministic_debug_mode()
    assert mt.are_deterministic_algorithms_enabled() == torch.are_deterministic_algorithms_enabled()
    assert mt.is_warn_always_enabled() == torch.is_warn_always_enabled()
    assert mt.is_storage(mt.zeros(1)) == torch.is_storage(torch.zeros(1))


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_signal_windows_match_torch(dtype):
    kw = {"gaussian": {"std": 2.5}, "exponential": {"tau": 3.0}, "kaiser": {"beta": 8.6},
          "general_cosine": {"a": [0.4, 0.5, 0.1]}, "general_hamming": {"alpha": 0.6}}  # fmt: skip
    tol = 2e-6 if dtype == "float32" else 1e-14
    for name in torch.signal.windows.__all__:
        for M in (2, 5, 33):
            for sym in (True, False):
                args = dict(kw.get(name, {}), sym=sym)
                ours = getattr(mt.signal.windows, name)(M, dtype=getattr(mt, dtype), **args)
                theirs = getattr(torch.signal.windows, name)(M, dtype=getattr(torch, dtype), **args)
                np.testing.assert_allclose(ours.numpy(), theirs.numpy(), atol=tol, err_msg=name)
