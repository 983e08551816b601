"""nn.utils.parametrize, nn.utils.parametrizations and the legacy weight_norm / spectral_norm
against PyTorch: the same weights give the same parametrized weights, outputs, gradients,
state_dict keys and values, reprs and error messages."""

from __future__ import annotations

import warnings
from collections import OrderedDict

import numpy as np
import pytest

torch = pytest.importorskip("torch")

import minitorch  # noqa: E402


def _np(t):
    return t.detach().cpu().numpy()


def _to_mt(sd):
    return OrderedDict((k, minitorch.tensor(_np(v).copy())) for k, v in sd.items())


def _pair(build, dtype="float64"):
    """The same module in torch and minitorch (minitorch loads torch's initial weights)."""
    t = build(torch).to(getattr(torch, dtype))
    m = build(minitorch).to(getattr(minitorch, dtype))
    m.load_state_dict(_to_mt(t.state_dict()))
    return t, m


def _same_state(t, m, rtol=1e-10, atol=1e-12, what=""):
    tsd, msd = t.state_dict(), m.state_dict()
    assert list(msd) == list(tsd), what
    for k in tsd:
        np.testing.assert_allclose(
            _np(msd[k]), _np(tsd[k]), rtol=rtol, atol=atol, err_msg=f"{what} state_dict {k}"
        )


def _same_forward_backward(t, m, x, rtol=1e-10, atol=1e-12, what=""):
    yt = t(torch.tensor(x))
    ym = m(minitorch.tensor(x))
    np.testing.assert_allclose(_np(ym), _np(yt), rtol=rtol, atol=atol, err_msg=f"{what} output")
    g = np.random.default_rng(99).standard_normal(tuple(yt.shape)).astype(x.dtype)
    yt.backward(torch.tensor(g))
    ym.backward(minitorch.tensor(g))
    tp, mp = dict(t.named_parameters()), dict(m.named_parameters())
    assert list(mp) == list(tp), what
    for k in tp:
        np.testing.assert_allclose(
            _np(mp[k].grad), _np(tp[k].grad), rtol=rtol, atol=atol, err_msg=f"{what} grad {k}"
        )


def _x(*shape, seed=0, dtype=np.float64):
    return np.random.default_rng(seed).standard_normal(shape).astype(dtype)


def _error(fn, lib):
    with pytest.raises(Exception) as info:
        fn(lib)
    return type(info.value).__name__, str(info.value)


def _make_params(lib):
    class Symmetric(lib.nn.Module):
        def forward(self, X):
            return X.triu() + X.triu(1).transpose(-1, -2)

        def right_inverse(self, A):
            return A.triu()

    class Scale(lib.nn.Module):
        def forward(self, X):
            return X * 2.0

    class Split(lib.nn.Module):
        def forward(self, a, b):
            return a + 2 * b

        def right_inverse(self, w):
            return w / 3, w / 3

    return Symmetric, Scale, Split


# --- parametrize ---


def test_register_symmetric_matches_torch():
    t, m = _pair(lambda lib: lib.nn.Linear(4, 4))
    for lib, mod in ((torch, t), (minitorch, m)):
        Symmetric, Scale, _ = _make_params(lib)
        lib.nn.utils.parametrize.register_parametrization(mod, "weight", Symmetric())
        lib.nn.utils.parametrize.register_parametrization(mod, "weight", Scale())
        lib.nn.utils.parametrize.register_parametrization(mod, "bias", Scale())
    assert repr(m) == repr(t)
    assert type(m).__name__ == type(t).__name__ == "ParametrizedLinear"
    _same_state(t, m)
    np.testing.assert_allclose(_np(m.weight), _np(t.weight), rtol=1e-12)
    _same_forward_backward(t, m, _x(3, 4))
    # assigning goes through right_inverse (Scale has none: both refuse)
    value = _x(4, 4, seed=1)
    errs = []
    for lib, mod in ((torch, t), (minitorch, m)):
        with pytest.raises(RuntimeError) as info:
            mod.weight = lib.tensor(value)
        errs.append(str(info.value))
    assert errs[0] == errs[1]


@pytest.mark.parametrize("leave", [True, False])
def test_remove_parametrizations_matches_torch(leave):
    t, m = _pair(lambda lib: lib.nn.Linear(3, 3))
    for lib, mod in ((torch, t), (minitorch, m)):
        Symmetric, _, _ = _make_params(lib)
        lib.nn.utils.parametrize.register_parametrization(mod, "weight", Symmetric())
        lib.nn.utils.parametrize.remove_parametrizations(mod, "weight", leave_parametrized=leave)
    assert type(m).__name__ == type(t).__name__ == "Linear"
    assert repr(m) == repr(t)
    _same_state(t, m)


def test_sequence_right_inverse_matches_torch():
    t, m = _pair(lambda lib: lib.nn.Linear(3, 2))
    for lib, mod in ((torch, t), (minitorch, m)):
        _, _, Split = _make_params(lib)
        lib.nn.utils.parametrize.register_parametrization(mod, "weight", Split())
    _same_state(t, m)
    _same_forward_backward(t, m, _x(5, 3))
    t.weight = torch.tensor(_x(2, 3, seed=2))
    m.weight = minitorch.tensor(_x(2, 3, seed=2))
    _same_state(t, m, what="after assignment")


def test_parametrize_error_messages_match_torch():
    def unknown_name(lib):
        lib.nn.utils.parametrize.register_parametrization(
            lib.nn.Linear(2, 2), "nope", _make_params(lib)[1]()
        )

    def shape_change(lib):
        class Rows(lib.nn.Module):
            def forward(self, X):
                return X[:1]

        lib.nn.utils.parametrize.register_parametrization(lib.nn.Linear(2, 2), "weight", Rows())

    def dtype_change(lib):
        class Dbl(lib.nn.Module):
            def forward(self, X):
                return X.double()

        lib.nn.utils.parametrize.register_parametrization(lib.nn.Linear(2, 2), "weight", Dbl())

    def stacked_shape_change(lib):
        class Rows(lib.nn.Module):
            def forward(self, X):
                return X[:1]

        mod = lib.nn.Linear(2, 2)
        lib.nn.utils.parametrize.register_parametrization(mod, "weight", _make_params(lib)[1]())
        lib.nn.utils.parametrize.register_parametrization(mod, "weight", Rows())

    def remove_missing(lib):
        lib.nn.utils.parametrize.remove_parametrizations(lib.nn.Linear(2, 2), "weight")

    def leave_sequence(lib):
        mod = lib.nn.utils.parametrizations.weight_norm(lib.nn.Linear(2, 2))
        lib.nn.utils.parametrize.remove_parametrizations(mod, "weight", leave_parametrized=False)

    for fn in (
        unknown_name,
        shape_change,
        dtype_change,
        stacked_shape_change,
        remove_missing,
        leave_sequence,
    ):
        assert _error(fn, minitorch) == _error(fn, torch), fn.__name__


# --- parametrizations.weight_norm ---


@pytest.mark.parametrize(
    "build,dim",
    [
        ("linear", 0),
        ("linear", 1),
        ("linear", None),
        ("conv", 0),
        ("conv", 2),
        ("conv", -1),
    ],
)
def test_weight_norm_parametrization_matches_torch(build, dim):
    def make(lib):
        return lib.nn.Linear(4, 3) if build == "linear" else lib.nn.Conv2d(2, 3, 3)

    x = _x(2, 4) if build == "linear" else _x(1, 2, 5, 5)
    for dtype, rtol in (("float64", 1e-10), ("float32", 2e-6)):
        t, m = _pair(make, dtype)
        torch.nn.utils.parametrizations.weight_norm(t, dim=dim)
        minitorch.nn.utils.parametrizations.weight_norm(m, dim=dim)
        assert repr(m) == repr(t)
        _same_state(t, m, rtol=rtol, atol=rtol * 1e-2, what=dtype)
        np.testing.assert_allclose(_np(m.weight), _np(t.weight), rtol=rtol, atol=rtol * 1e-2)
        _same_forward_backward(t, m, x.astype(dtype), rtol=rtol, atol=rtol, what=dtype)


def test_weight_norm_parametrization_loads_legacy_checkpoint():
    t_old, _ = _pair(lambda lib: lib.nn.Linear(4, 3))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)
        torch.nn.utils.weight_norm(t_old)
    t, m = _pair(lambda lib: lib.nn.Linear(4, 3))
    torch.nn.utils.parametrizations.weight_norm(t)
    minitorch.nn.utils.parametrizations.weight_norm(m)
    t.load_state_dict(t_old.state_dict())
    m.load_state_dict(_to_mt(t_old.state_dict()))
    _same_state(t, m)


# --- parametrizations.spectral_norm ---


@pytest.mark.parametrize("build", ["linear", "conv", "conv_transpose", "dim1"])
@pytest.mark.parametrize("dtype,rtol", [("float64", 1e-10), ("float32", 1e-5)])
def test_spectral_norm_parametrization_matches_torch(build, dtype, rtol):
    def make(lib):
        if build in ("linear", "dim1"):
            return lib.nn.Linear(5, 4)
        if build == "conv":
            return lib.nn.Conv2d(2, 3, 3)
        return lib.nn.ConvTranspose2d(2, 3, 3)

    kw = {"dim": 1} if build == "dim1" else {}
    t, m = _pair(make, dtype)
    torch.manual_seed(0)
    torch.nn.utils.parametrizations.spectral_norm(t, n_power_iterations=2, **kw)
    minitorch.nn.utils.parametrizations.spectral_norm(m, n_power_iterations=2, **kw)
    assert repr(m) == repr(t)
    assert list(m.state_dict()) == list(t.state_dict())
    # the random start differs: take torch's _u/_v, then every update must agree
    m.load_state_dict(_to_mt(t.state_dict()))
    x = _x(2, 5) if build in ("linear", "dim1") else _x(1, 2, 5, 5)
    x = x.astype(dtype)
    for step in range(3):
        yt, ym = t(torch.tensor(x)), m(minitorch.tensor(x))
        np.testing.assert_allclose(_np(ym), _np(yt), rtol=rtol, atol=rtol, err_msg=f"step {step}")
        _same_state(t, m, rtol=rtol, atol=rtol, what=f"training step {step}")
    _same_forward_backward(t, m, x, rtol=rtol, atol=rtol, what="training")
    t.eval()
    m.eval()
    _same_forward_backward(t, m, x, rtol=rtol, atol=rtol, what="eval")
    _same_state(t, m, rtol=rtol, atol=rtol, what="eval")


def test_spectral_norm_initial_power_iterations_match_torch():
    # torch's module starts from normalize(randn): replay its draws, then run minitorch's
    # 15 initial iterations and the registration forward on them
    t, m = _pair(lambda lib: lib.nn.Linear(6, 4))
    torch.manual_seed(3)
    torch.nn.utils.parametrizations.spectral_norm(t)
    torch.manual_seed(3)
    u0 = torch.empty(4, dtype=torch.float64).normal_(0, 1)
    v0 = torch.empty(6, dtype=torch.float64).normal_(0, 1)
    sn = minitorch.nn.utils.parametrizations._SpectralNorm(m.weight)
    with minitorch.no_grad():
        sn._u.copy_(minitorch.nn.functional.normalize(minitorch.tensor(_np(u0)), dim=0))
        sn._v.copy_(minitorch.nn.functional.normalize(minitorch.tensor(_np(v0)), dim=0))
    sn._power_method(m.weight, 15)
    sn(m.weight)  # the registration's check runs one training forward
    tsn = t.parametrizations.weight[0]
    np.testing.assert_allclose(_np(sn._u), _np(tsn._u), rtol=1e-10, atol=1e-12, err_msg="_u")
    np.testing.assert_allclose(_np(sn._v), _np(tsn._v), rtol=1e-10, atol=1e-12, err_msg="_v")


def test_spectral_norm_1d_matches_torch():
    t, m = _pair(lambda lib: lib.nn.Linear(3, 4))
    torch.nn.utils.parametrizations.spectral_norm(t, "bias")
    minitorch.nn.utils.parametrizations.spectral_norm(m, "bias")
    _same_state(t, m)
    _same_forward_backward(t, m, _x(2, 3))


# --- parametrizations.orthogonal ---


@pytest.mark.parametrize(
    "shape,omap,triv",
    [
        ((4, 4), None, True),
        ((4, 4), "cayley", True),
        ((4, 4), "householder", True),
        ((4, 4), "householder", False),
        ((5, 3), "householder", False),
        ((3, 5), "householder", False),
        ((5, 3), None, True),
        ((3, 5), "cayley", True),
        ((3, 5), "matrix_exp", True),
    ],
)
def test_orthogonal_matches_torch(shape, omap, triv):
    t, m = _pair(lambda lib: lib.nn.Linear(shape[1], shape[0]))
    torch.manual_seed(0)
    torch.nn.utils.parametrizations.orthogonal(t, orthogonal_map=omap, use_trivialization=triv)
    minitorch.nn.utils.parametrizations.orthogonal(m, orthogonal_map=omap, use_trivialization=triv)
    assert repr(m) == repr(t)
    if shape[0] == shape[1]:
        _same_state(t, m, rtol=1e-8, atol=1e-10, what="registration")  # deterministic
    else:
        m.load_state_dict(_to_mt(t.state_dict()))  # the random completion of base differs
    # move away from the starting point so the maps are not evaluated at zero
    with torch.no_grad():
        t.parametrizations.weight.original.add_(torch.tensor(_x(*shape, seed=4) * 0.2))
    with minitorch.no_grad():
        m.parametrizations.weight.original.add_(minitorch.tensor(_x(*shape, seed=4) * 0.2))
    np.testing.assert_allclose(_np(m.weight), _np(t.weight), rtol=1e-8, atol=1e-10)
    _same_forward_backward(t, m, _x(2, shape[1]), rtol=1e-8, atol=1e-10)
    if triv:
        value = np.linalg.qr(_x(max(shape), max(shape), seed=5))[0][: shape[0], : shape[1]]
        t.weight = torch.tensor(value)
        m.weight = minitorch.tensor(value)
        np.testing.assert_allclose(_np(m.weight), value, atol=1e-10, err_msg="assigned weight")
        if shape[0] == shape[1]:
            _same_state(t, m, rtol=1e-8, atol=1e-10, what="after assignment")


def test_orthogonal_error_messages_match_torch():
    def vector(lib):
        lib.nn.utils.parametrizations.orthogonal(lib.nn.Linear(2, 2), "bias")

    def bad_map(lib):
        lib.nn.utils.parametrizations.orthogonal(lib.nn.Linear(2, 2), orthogonal_map="qr")

    def assign_no_triv(lib):
        mod = lib.nn.utils.parametrizations.orthogonal(
            lib.nn.Linear(2, 2), use_trivialization=False
        )
        mod.weight = lib.eye(2)

    def missing(lib):
        lib.nn.utils.parametrizations.spectral_norm(lib.nn.Linear(2, 2), "nope")

    for fn in (vector, bad_map, assign_no_triv, missing):
        assert _error(fn, minitorch) == _error(fn, torch), fn.__name__


# --- legacy weight_norm / spectral_norm ---


@pytest.mark.parametrize("dim", [0, 1, None])
def test_legacy_weight_norm_matches_torch(dim):
    t, m = _pair(lambda lib: lib.nn.Conv1d(2, 3, 3))
    with pytest.warns(FutureWarning) as wt:
        torch.nn.utils.weight_norm(t, dim=dim)
    with pytest.warns(FutureWarning) as wm:
        minitorch.nn.utils.weight_norm(m, dim=dim)
    assert str(wm[0].message) == str(wt[0].message)
    _same_state(t, m, what="weight_g/weight_v")
    with torch.no_grad():
        t.weight_g.mul_(1.5)
    with minitorch.no_grad():
        m.weight_g.mul_(1.5)
    _same_forward_backward(t, m, _x(2, 2, 6))
    torch.nn.utils.remove_weight_norm(t)
    minitorch.nn.utils.remove_weight_norm(m)
    _same_state(t, m, what="removed")
    assert repr(m) == repr(t)


@pytest.mark.parametrize("build", ["linear", "conv_transpose"])
def test_legacy_spectral_norm_matches_torch(build):
    def make(lib):
        return lib.nn.Linear(5, 4) if build == "linear" else lib.nn.ConvTranspose1d(2, 3, 3)

    t, m = _pair(make)
    torch.nn.utils.spectral_norm(t, n_power_iterations=2)
    minitorch.nn.utils.spectral_norm(m, n_power_iterations=2)
    tsd = t.state_dict()
    assert list(m.state_dict()) == list(tsd)
    assert m.state_dict()._metadata == tsd._metadata
    m.load_state_dict(_to_mt(tsd))  # same random start
    x = _x(2, 5) if build == "linear" else _x(1, 2, 6)
    for step in range(3):
        t(torch.tensor(x))
        m(minitorch.tensor(x))
        _same_state(t, m, what=f"training step {step}")
    _same_forward_backward(t, m, x, what="training")
    t.eval()
    m.eval()
    _same_forward_backward(t, m, x, what="eval")
    _same_state(t, m, what="eval")
    torch.nn.utils.remove_spectral_norm(t)
    minitorch.nn.utils.remove_spectral_norm(m)
    _same_state(t, m, what="removed")
    assert repr(m) == repr(t)


def test_legacy_spectral_norm_converts_version0_checkpoint():
    t, m = _pair(lambda lib: lib.nn.Linear(3, 4))
    torch.nn.utils.spectral_norm(t)
    minitorch.nn.utils.spectral_norm(m)
    t(torch.tensor(_x(2, 3)))
    old = OrderedDict((k, v) for k, v in t.state_dict().items() if k != "weight_v")
    old["weight"] = t.weight.detach()  # the layout before version 1, without metadata
    t2, m2 = _pair(lambda lib: lib.nn.Linear(3, 4))
    torch.nn.utils.spectral_norm(t2)
    minitorch.nn.utils.spectral_norm(m2)
    t2.load_state_dict(old)
    m2.load_state_dict(_to_mt(old))
    _same_state(t2, m2, rtol=1e-8, atol=1e-10)
