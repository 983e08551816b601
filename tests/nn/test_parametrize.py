"""nn.utils.parametrize, nn.utils.parametrizations (weight_norm, spectral_norm, orthogonal) and the
legacy hook-based weight_norm / spectral_norm, without torch: values against NumPy, gradients to
the originals, float64 gradchecks, caching, removal, right_inverse, errors, state_dicts."""

from __future__ import annotations

import copy
import pickle
import subprocess
import sys
import warnings

import numpy as np
import pytest

import minitorch as mt
from minitorch import nn
from minitorch.autograd import gradcheck, gradgradcheck
from minitorch.nn.utils import parametrizations as PZ
from minitorch.nn.utils import parametrize as P


def _np(t):
    return t.detach().cpu().numpy()


def _rng(seed=0):
    return np.random.default_rng(seed)


class Symmetric(nn.Module):
    def forward(self, X):
        return X.triu() + X.triu(1).transpose(-1, -2)

    def right_inverse(self, A):
        return A.triu()


class Scale(nn.Module):
    """No right_inverse: the original is kept as is."""

    def __init__(self, c=2.0):
        super().__init__()
        self.c = c

    def forward(self, X):
        return X * self.c


def _linear(n_in=3, n_out=3, seed=0, dtype=mt.float64, device="cpu"):
    m = nn.Linear(n_in, n_out).to(dtype=dtype, device=device)
    r = _rng(seed)
    with mt.no_grad():
        m.weight.copy_(mt.tensor(r.standard_normal((n_out, n_in)), dtype=dtype, device=device))
        m.bias.copy_(mt.tensor(r.standard_normal(n_out), dtype=dtype, device=device))
    return m


def _sym(a):
    return np.triu(a) + np.triu(a, 1).T


# --- parametrize ---


def test_register_class_swap_property_and_keys(device):
    m = _linear(device=device)
    w0 = _np(m.weight)
    weight_param = m.weight
    P.register_parametrization(m, "weight", Symmetric())
    assert type(m).__name__ == "ParametrizedLinear"
    assert isinstance(m, nn.Linear)
    assert P.type_before_parametrizations(m) is nn.Linear
    assert P.is_parametrized(m) and P.is_parametrized(m, "weight")
    assert not P.is_parametrized(m, "bias")
    assert not P.is_parametrized(nn.Linear(2, 2))
    # the original keeps its identity (an optimizer built before still holds it)
    assert m.parametrizations.weight.original is weight_param
    np.testing.assert_allclose(_np(m.parametrizations.weight.original), np.triu(w0))
    np.testing.assert_allclose(_np(m.weight), _sym(np.triu(w0)), err_msg="parametrized weight")
    assert list(m.state_dict()) == ["bias", "parametrizations.weight.original"]
    assert [n for n, _ in m.named_parameters()] == ["bias", "parametrizations.weight.original"]
    assert repr(m) == (
        "ParametrizedLinear(\n  in_features=3, out_features=3, bias=True\n"
        "  (parametrizations): ModuleDict(\n    (weight): ParametrizationList(\n"
        "      (0): Symmetric()\n    )\n  )\n)"
    )
    # a fresh value per access
    assert m.weight is not m.weight
    # the class is per module: another Linear is untouched
    assert type(nn.Linear(2, 2)) is nn.Linear


def test_gradients_flow_to_original():
    m = _linear()
    P.register_parametrization(m, "weight", Symmetric())
    x = _rng(1).standard_normal((4, 3))
    g = _rng(2).standard_normal((4, 3))
    out = m(mt.tensor(x))
    out.backward(mt.tensor(g))
    grad_w = g.T @ x  # dL/dW of x @ W.T
    want = np.triu(grad_w) + np.triu(grad_w.T, 1)
    np.testing.assert_allclose(
        _np(m.parametrizations.weight.original.grad), want, rtol=1e-12, err_msg="grad original"
    )
    np.testing.assert_allclose(_np(m.bias.grad), g.sum(0), rtol=1e-12)


def test_gradcheck_through_parametrized_module():
    m = _linear()
    P.register_parametrization(m, "weight", Symmetric())
    P.register_parametrization(m, "weight", Scale(0.5))
    plist = m.parametrizations.weight
    x = mt.tensor(_rng(3).standard_normal((2, 3)), requires_grad=True)

    def f(original, x):
        # the module's forward with the original swapped for a differentiable input
        saved = plist._parameters["original"]
        plist._parameters["original"] = original
        try:
            return m(x)
        finally:
            plist._parameters["original"] = saved

    X = mt.tensor(_rng(4).standard_normal((3, 3)), requires_grad=True)
    assert gradcheck(f, (X, x))
    assert gradgradcheck(f, (X, x))


def test_stacked_parametrizations_and_unsafe():
    m = _linear()
    w0 = _np(m.weight)
    P.register_parametrization(m, "weight", Scale(2.0))
    P.register_parametrization(m, "weight", Scale(3.0))
    np.testing.assert_allclose(_np(m.weight), 6 * w0)
    assert len(m.parametrizations.weight) == 2
    assert "(0-1): 2 x Scale()" in repr(m)  # ModuleList's repr collapses equal runs

    class Rows(nn.Module):
        def forward(self, X):
            return X[:2]

    with pytest.raises(ValueError, match="may not change the shape"):
        P.register_parametrization(m, "weight", Rows())
    P.register_parametrization(m, "weight", Rows(), unsafe=True)
    assert m.parametrizations.weight.unsafe
    assert tuple(m.weight.shape) == (2, 3)
    m2 = _linear()
    P.register_parametrization(m2, "weight", Rows(), unsafe=True)
    assert tuple(m2.weight.shape) == (2, 3)


def test_cached():
    m = _linear()
    P.register_parametrization(m, "weight", Symmetric())
    with P.cached():
        a = m.weight
        assert m.weight is a
        with P.cached():
            assert m.weight is a
        assert m.weight is a  # the inner exit keeps the outer cache
    assert m.weight is not a
    assert P._cache == {} and P._cache_enabled == 0

    @P.cached()
    def twice():
        return m.weight is m.weight

    assert twice()
    # gradients through a cached value reach the original
    with P.cached():
        (m.weight.sum() + m.weight.sum()).backward()
    np.testing.assert_allclose(
        _np(m.parametrizations.weight.original.grad), 2 * (np.triu(np.ones((3, 3))) * 2 - np.eye(3))
    )


def test_cache_released_on_error():
    m = _linear()
    P.register_parametrization(m, "weight", Symmetric())
    with pytest.raises(KeyError), P.cached():
        m.weight  # noqa: B018
        raise KeyError("boom")
    assert P._cache == {} and P._cache_enabled == 0


@pytest.mark.parametrize("leave", [True, False])
def test_remove_parametrizations(leave):
    m = _linear()
    w0 = _np(m.weight)
    original = m.weight
    P.register_parametrization(m, "weight", Symmetric())
    P.register_parametrization(m, "bias", Scale(2.0))
    P.remove_parametrizations(m, "weight", leave_parametrized=leave)
    assert type(m).__name__ == "ParametrizedLinear"  # bias is still parametrized
    assert m.weight is original and isinstance(m.weight, nn.Parameter)
    want = _sym(np.triu(w0)) if leave else np.triu(w0)
    np.testing.assert_allclose(_np(m.weight), want, err_msg="weight after removal")
    P.remove_parametrizations(m, "bias", leave_parametrized=leave)
    assert type(m) is nn.Linear
    assert "parametrizations" not in m._modules
    assert list(m.state_dict()) == ["weight", "bias"]
    assert repr(m) == "Linear(in_features=3, out_features=3, bias=True)"
    with pytest.raises(ValueError, match="does not have a parametrization on weight"):
        P.remove_parametrizations(m, "weight")


def test_remove_multi_tensor_parametrization():
    m = _linear()
    w0 = _np(m.weight)
    PZ.weight_norm(m)
    with pytest.raises(ValueError, match="Cannot leave unparametrized"):
        P.remove_parametrizations(m, "weight", leave_parametrized=False)
    P.remove_parametrizations(m, "weight")
    assert isinstance(m.weight, nn.Parameter) and m.weight.requires_grad
    np.testing.assert_allclose(_np(m.weight), w0, rtol=1e-12)
    assert type(m) is nn.Linear


def test_right_inverse_assignment():
    m = _linear()
    P.register_parametrization(m, "weight", Symmetric())
    a = _rng(5).standard_normal((3, 3))
    original = m.parametrizations.weight.original
    m.weight = mt.tensor(_sym(a))
    assert m.parametrizations.weight.original is original
    np.testing.assert_allclose(_np(original), np.triu(a))
    np.testing.assert_allclose(_np(m.weight), _sym(a))
    # no right_inverse: registering keeps the original, assigning raises
    m2 = _linear()
    P.register_parametrization(m2, "weight", Scale())
    with pytest.raises(
        RuntimeError, match="parametrization Scale does not implement right_inverse"
    ):
        m2.weight = mt.zeros(3, 3, dtype=mt.float64)
    # assigning a Parameter to a parametrized name is refused as in torch
    with pytest.raises(KeyError, match="attribute 'weight' already exists"):
        m.weight = nn.Parameter(mt.zeros(3, 3))


def test_right_inverse_sequence_originals():
    class Split(nn.Module):
        def forward(self, a, b):
            return a + b

        def right_inverse(self, w):
            return w / 2, w / 2

    m = _linear()
    w0 = _np(m.weight)
    P.register_parametrization(m, "weight", Split())
    plist = m.parametrizations.weight
    assert plist.ntensors == 2 and not plist.is_tensor
    assert list(m.state_dict()) == [
        "bias",
        "parametrizations.weight.original0",
        "parametrizations.weight.original1",
    ]
    assert isinstance(plist.original0, nn.Parameter) and plist.original1.requires_grad
    np.testing.assert_allclose(_np(m.weight), w0, rtol=1e-12)
    m.weight = mt.ones(3, 3, dtype=mt.float64)
    np.testing.assert_allclose(_np(plist.original0), np.full((3, 3), 0.5))


def test_buffer_parametrization():
    m = nn.Module()
    m.register_buffer("scale", mt.tensor([1.0, 2.0]))
    P.register_parametrization(m, "scale", Scale(3.0))
    assert type(m).__name__ == "ParametrizedModule"
    assert list(m.state_dict()) == ["parametrizations.scale.original"]
    assert not m.parametrizations.scale.original.requires_grad
    assert "original" in m.parametrizations.scale._buffers
    np.testing.assert_allclose(_np(m.scale), [3.0, 6.0])


def test_register_errors():
    m = _linear()
    with pytest.raises(ValueError, match="does not have a parameter, a buffer, or a parametrized"):
        P.register_parametrization(m, "nope", Scale())
    assert type(m) is nn.Linear

    class ToFloat32(nn.Module):
        def forward(self, X):
            return X.float()

    with pytest.raises(ValueError, match="may not change the dtype") as info:
        P.register_parametrization(m, "weight", ToFloat32())
    assert "unparametrized dtype: torch.float64" in str(info.value)
    assert type(m) is nn.Linear and "weight" in m._parameters  # unchanged on error

    class BadInverse(nn.Module):
        def forward(self, X):
            return X

        def right_inverse(self, X):
            return X.float()

    with pytest.raises(ValueError, match="may not change the dtype"):
        P.register_parametrization(m, "weight", BadInverse())

    class NotATensor(nn.Module):
        def forward(self, X):
            return 1.0

    with pytest.raises(ValueError, match="A parametrization must return a tensor. Got float"):
        P.register_parametrization(m, "weight", NotATensor())
    with pytest.raises(ValueError, match="requires one or more modules"):
        P.ParametrizationList([], m.weight)
    P.register_parametrization(m, "weight", Scale())
    with pytest.raises(ValueError, match="parametrization.right_inverse must have the same dtype"):
        P.register_parametrization(m, "weight", BadInverse())


def test_train_mode_follows_module():
    m = _linear()
    m.eval()
    s = Scale()
    P.register_parametrization(m, "weight", s)
    assert not s.training
    m.train()
    assert s.training


def test_state_dict_round_trip():
    a, b = _linear(seed=0), _linear(seed=1)
    for m in (a, b):
        P.register_parametrization(m, "weight", Symmetric())
        PZ.weight_norm(m, "bias", dim=None)
    b.load_state_dict(a.state_dict())
    np.testing.assert_allclose(_np(b.weight), _np(a.weight), err_msg="weight")
    np.testing.assert_allclose(_np(b.bias), _np(a.bias), err_msg="bias")
    assert list(b.state_dict()) == [
        "parametrizations.weight.original",
        "parametrizations.bias.original0",
        "parametrizations.bias.original1",
    ]


def test_optimizer_step_keeps_constraint():
    m = _linear(4, 4)
    opt = mt.optim.SGD(m.parameters(), lr=0.1)  # built before: the original keeps its identity
    P.register_parametrization(m, "weight", Symmetric())
    x = mt.tensor(_rng(6).standard_normal((5, 4)))
    before = _np(m.parametrizations.weight.original).copy()
    for _ in range(3):
        opt.zero_grad()
        m(x).square().sum().backward()
        opt.step()
    w = _np(m.weight)
    np.testing.assert_allclose(w, w.T, err_msg="still symmetric")
    assert not np.allclose(_np(m.parametrizations.weight.original), before)

    o = _linear(4, 4)
    PZ.orthogonal(o)
    opt = mt.optim.SGD(o.parameters(), lr=0.1)
    for _ in range(3):
        opt.zero_grad()
        o(x).square().sum().backward()
        opt.step()
    w = _np(o.weight)
    np.testing.assert_allclose(w.T @ w, np.eye(4), atol=1e-10, err_msg="still orthogonal")


def test_deepcopy_and_pickle():
    m = _linear()
    P.register_parametrization(m, "weight", Symmetric())
    c = copy.deepcopy(m)
    assert type(c).__name__ == "ParametrizedLinear"
    assert c.parametrizations.weight.original is not m.parametrizations.weight.original
    np.testing.assert_allclose(_np(c.weight), _np(m.weight))
    with pytest.raises(RuntimeError, match="only supported through state_dict"):
        pickle.dumps(m)


def test_transfer_parametrizations_and_params():
    a, b = _linear(seed=0), _linear(seed=1)
    P.register_parametrization(a, "weight", Symmetric())
    P.transfer_parametrizations_and_params(a, b)
    assert type(b).__name__ == "ParametrizedLinear"
    assert b.parametrizations.weight.original is a.parametrizations.weight.original
    np.testing.assert_allclose(_np(b.weight), _np(a.weight))
    assert P.transfer_parametrizations_and_params(nn.Linear(2, 2), b) is b


def test_modules_are_lazy():
    code = (
        "import sys, minitorch; "
        "print([m for m in sys.modules if m.startswith('minitorch.nn.utils.') and "
        "m.rsplit('.', 1)[1] in ('parametrize', 'parametrizations', 'weight_norm', "
        "'spectral_norm')])"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
    assert mt.nn.utils.parametrize.register_parametrization is P.register_parametrization
    assert mt.nn.utils.parametrizations.weight_norm is PZ.weight_norm
    assert callable(mt.nn.utils.weight_norm) and callable(mt.nn.utils.remove_spectral_norm)


# --- parametrizations.weight_norm ---


def _norm_except(w, dim):
    if dim is None:
        return np.sqrt((w**2).sum())
    axes = tuple(i for i in range(w.ndim) if i != dim % w.ndim)
    return np.sqrt((w**2).sum(axis=axes, keepdims=True))


@pytest.mark.parametrize("dim", [0, 1, 2, -2, None])
def test_weight_norm_values(dim, device):
    m = nn.Conv2d(2, 3, 3).double().to(device)
    w0 = _np(m.weight)
    PZ.weight_norm(m, dim=dim)
    plist = m.parametrizations.weight
    g, v = _np(plist.original0), _np(plist.original1)
    np.testing.assert_allclose(g, _norm_except(w0, dim), rtol=1e-12, err_msg="g")
    np.testing.assert_allclose(v, w0, err_msg="v")
    np.testing.assert_allclose(_np(m.weight), w0, rtol=1e-12, err_msg="weight")
    assert repr(plist) == "ParametrizationList(\n  (0): _WeightNorm()\n)"
    with mt.no_grad():
        plist.original0.mul_(2.0)
    np.testing.assert_allclose(_np(m.weight), 2 * w0, rtol=1e-12)


def test_weight_norm_gradcheck():
    wn = PZ._WeightNorm(0)
    r = _rng(7)
    g = mt.tensor(r.uniform(0.5, 2.0, (4, 1)), requires_grad=True)
    v = mt.tensor(r.standard_normal((4, 3)), requires_grad=True)
    assert gradcheck(wn, (g, v))
    assert gradgradcheck(wn, (g, v))
    wn_all = PZ._WeightNorm(None)
    g0 = mt.tensor(1.5, dtype=mt.float64, requires_grad=True)
    assert gradcheck(wn_all, (g0, v))


def test_weight_norm_node_names():
    # torch fuses the norm over all dims but one into one node; over all dims it composes
    v = mt.ones(4, 3, dtype=mt.float64, requires_grad=True)
    assert type(PZ._WeightNorm(0)(mt.ones(4, 1, dtype=mt.float64), v).grad_fn).__name__ == (
        "WeightNormInterfaceBackward0"
    )
    assert type(PZ._WeightNorm(None)(mt.tensor(1.0), v).grad_fn).__name__ == "MulBackward0"


def test_weight_norm_loads_legacy_state_dict():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)
        legacy = mt.nn.utils.weight_norm(_linear(seed=3))
    m = PZ.weight_norm(_linear(seed=4))
    m.load_state_dict(legacy.state_dict())
    assert list(m.state_dict()) == [
        "bias",
        "parametrizations.weight.original0",
        "parametrizations.weight.original1",
    ]
    np.testing.assert_allclose(_np(m.weight), _np(legacy.weight), rtol=1e-12)


# --- parametrizations.spectral_norm ---


def test_spectral_norm_sigma_and_modes(device):
    mt.manual_seed(0)
    m = _linear(5, 4, device=device)
    w0 = _np(m.weight)
    PZ.spectral_norm(m, n_power_iterations=3)
    sn = m.parametrizations.weight[0]
    assert list(m.state_dict()) == [
        "bias",
        "parametrizations.weight.original",
        "parametrizations.weight.0._u",
        "parametrizations.weight.0._v",
    ]
    for _ in range(100):
        m.weight  # noqa: B018  (each training-mode access runs power iterations)
    sigma = np.linalg.svd(w0, compute_uv=False)[0]
    np.testing.assert_allclose(_np(m.weight), w0 / sigma, rtol=1e-10, err_msg="W / sigma")
    m.eval()
    u = _np(sn._u).copy()
    m.weight  # noqa: B018
    np.testing.assert_array_equal(_np(sn._u), u, err_msg="eval must not update _u")
    m.train()
    with mt.no_grad():
        m.parametrizations.weight.original.mul_(-1.0)
    m.weight  # noqa: B018
    assert not np.array_equal(_np(sn._u), u)


def test_spectral_norm_gradcheck_eval_and_1d():
    mt.manual_seed(0)
    w = mt.tensor(_rng(8).standard_normal((3, 4)))
    sn = PZ._SpectralNorm(w, dim=1).eval()
    X = mt.tensor(_rng(9).standard_normal((3, 4)), requires_grad=True)
    assert gradcheck(sn, (X,))
    sn1 = PZ._SpectralNorm(mt.zeros(4, dtype=mt.float64))
    b = mt.tensor(_rng(10).standard_normal(4), requires_grad=True)
    np.testing.assert_allclose(_np(sn1(b)), _np(b) / np.linalg.norm(_np(b)), rtol=1e-12)
    assert gradcheck(sn1, (b,))


def test_spectral_norm_errors_and_conv_transpose_dim():
    with pytest.raises(ValueError, match="has no parameter or buffer with name 'nope'"):
        PZ.spectral_norm(nn.Linear(2, 2), "nope")
    with pytest.raises(IndexError, match=r"Dimension out of range \(expected to be in range of"):
        PZ.spectral_norm(nn.Linear(2, 2), dim=2)
    with pytest.raises(ValueError, match="Expected n_power_iterations to be positive"):
        PZ.spectral_norm(nn.Linear(2, 2), n_power_iterations=0)
    m = PZ.spectral_norm(nn.ConvTranspose2d(2, 3, 3))
    assert m.parametrizations.weight[0].dim == 1
    assert tuple(m.parametrizations.weight[0]._u.shape) == (3,)


# --- parametrizations.orthogonal ---


@pytest.mark.parametrize(
    "shape,omap,triv",
    [
        ((4, 4), None, True),
        ((4, 4), "cayley", True),
        ((4, 4), "householder", True),
        ((5, 3), None, True),
        ((3, 5), "matrix_exp", True),
        ((3, 5), "cayley", True),
        ((5, 3), "householder", False),
        ((3, 5), "householder", False),
        ((4, 4), "matrix_exp", False),
    ],
)
def test_orthogonal_maps(shape, omap, triv, device):
    mt.manual_seed(0)
    m = _linear(shape[1], shape[0], seed=11, device=device)
    PZ.orthogonal(m, orthogonal_map=omap, use_trivialization=triv)
    if not triv and omap != "householder":
        with mt.no_grad():
            m.parametrizations.weight.original.copy_(mt.tensor(_rng(12).standard_normal(shape)))
    w = _np(m.weight)
    gram = w.T @ w if shape[0] >= shape[1] else w @ w.T
    np.testing.assert_allclose(gram, np.eye(min(shape)), atol=1e-10, err_msg="orthonormal")
    assert list(m.state_dict())[:2] == ["bias", "parametrizations.weight.original"]
    assert ("parametrizations.weight.0.base" in m.state_dict()) == triv


def test_orthogonal_keeps_square_orthogonal_weight():
    q, _ = np.linalg.qr(_rng(13).standard_normal((4, 4)))
    m = nn.Linear(4, 4).double()
    with mt.no_grad():
        m.weight.copy_(mt.tensor(q))
    PZ.orthogonal(m)
    np.testing.assert_allclose(_np(m.weight), q, atol=1e-12, err_msg="an orthogonal weight stays")
    # a non-orthogonal square weight becomes the Q of its QR with diag(R) > 0
    a = _rng(14).standard_normal((4, 4))
    m2 = nn.Linear(4, 4).double()
    with mt.no_grad():
        m2.weight.copy_(mt.tensor(a))
    PZ.orthogonal(m2, orthogonal_map="householder", use_trivialization=False)
    qa, ra = np.linalg.qr(a)
    np.testing.assert_allclose(_np(m2.weight), qa * np.sign(np.diag(ra)), atol=1e-12)


@pytest.mark.parametrize("omap", ["matrix_exp", "cayley", "householder"])
def test_orthogonal_gradcheck(omap):
    orth = PZ._Orthogonal(mt.zeros(4, 3, dtype=mt.float64), PZ._OrthMaps[omap])
    orth.base = mt.tensor(np.linalg.qr(_rng(15).standard_normal((4, 4)))[0])
    X = _rng(16).standard_normal((4, 3)) * 0.3
    if omap == "householder":
        # the diagonal only gives signs (through .int()): keep it away from the jumps
        X[np.arange(3), np.arange(3)] = [1.5, -1.5, 1.5]
    X = mt.tensor(X, requires_grad=True)
    assert gradcheck(orth, (X,))


def test_orthogonal_errors():
    with pytest.raises(
        ValueError, match="Expected a matrix or batch of matrices. Got a tensor of 1"
    ):
        PZ.orthogonal(nn.Linear(2, 2), "bias")
    with pytest.raises(ValueError, match='orthogonal_map has to be one of "matrix_exp"'):
        PZ.orthogonal(nn.Linear(2, 2), orthogonal_map="qr")
    m = PZ.orthogonal(nn.Linear(3, 3), use_trivialization=False)
    with pytest.raises(
        NotImplementedError, match="not possible to assign to the matrix exponential"
    ):
        m.weight = mt.eye(3)
    m = PZ.orthogonal(nn.Linear(3, 3))
    with pytest.raises(ValueError, match=r"Expected a matrix or batch of matrices of shape"):
        m.parametrizations.weight[0].right_inverse(mt.eye(2))


# --- legacy hook-based weight_norm / spectral_norm ---


def test_legacy_weight_norm():
    m = _linear(4, 3)
    w0 = _np(m.weight)
    with pytest.warns(FutureWarning, match="`torch.nn.utils.weight_norm` is deprecated"):
        mt.nn.utils.weight_norm(m, dim=0)
    assert list(m.state_dict()) == ["bias", "weight_g", "weight_v"]
    np.testing.assert_allclose(_np(m.weight_g), _norm_except(w0, 0), rtol=1e-12)
    np.testing.assert_allclose(_np(m.weight_v), w0)
    with mt.no_grad():
        m.weight_g.mul_(3.0)
    x = mt.tensor(_rng(17).standard_normal((2, 4)))
    out = m(x)  # the pre-hook recomputes weight
    np.testing.assert_allclose(_np(m.weight), 3 * w0, rtol=1e-12)
    out.sum().backward()
    assert m.weight_g.grad is not None and m.weight_v.grad is not None
    with pytest.raises(RuntimeError, match="Cannot register two weight_norm hooks"):
        mt.nn.utils.weight_norm(m)
    mt.nn.utils.remove_weight_norm(m)
    assert list(m.state_dict()) == ["bias", "weight"]
    np.testing.assert_allclose(_np(m.weight), 3 * w0, rtol=1e-12)
    assert not m._forward_pre_hooks
    with pytest.raises(ValueError, match="weight_norm of 'weight' not found in"):
        mt.nn.utils.remove_weight_norm(m)


def test_legacy_spectral_norm(device):
    mt.manual_seed(0)
    m = _linear(5, 4, device=device)
    w0 = _np(m.weight)
    mt.nn.utils.spectral_norm(m)
    sd = m.state_dict()
    assert list(sd) == ["bias", "weight_orig", "weight_u", "weight_v"]
    assert sd._metadata[""]["spectral_norm"] == {"weight.version": 1}
    x = mt.tensor(_rng(18).standard_normal((2, 5)), device=device)
    for _ in range(300):
        m(x)
    sigma = np.linalg.svd(w0, compute_uv=False)[0]
    np.testing.assert_allclose(_np(m.weight), w0 / sigma, rtol=1e-10, err_msg="W / sigma")
    m.eval()
    u = _np(m.weight_u).copy()
    m(x)
    np.testing.assert_array_equal(_np(m.weight_u), u)
    m.train()
    m(x).sum().backward()
    assert m.weight_orig.grad is not None
    with pytest.raises(RuntimeError, match="Cannot register two spectral_norm hooks"):
        mt.nn.utils.spectral_norm(m)
    # a state_dict round trip through a second module
    mt.manual_seed(1)
    m2 = mt.nn.utils.spectral_norm(_linear(5, 4, seed=3, device=device))
    m2.load_state_dict(m.state_dict())
    m.eval()
    m2.eval()
    np.testing.assert_allclose(_np(m2(x)), _np(m(x)), rtol=1e-12)
    mt.nn.utils.remove_spectral_norm(m)
    assert list(m.state_dict()) == ["bias", "weight"]
    assert not m._forward_pre_hooks and not m._state_dict_hooks
    assert not m._load_state_dict_pre_hooks
    np.testing.assert_allclose(_np(m.weight), w0 / sigma, rtol=1e-10)
    with pytest.raises(ValueError, match="spectral_norm of 'weight' not found in"):
        mt.nn.utils.remove_spectral_norm(m)


def test_legacy_spectral_norm_conv_transpose_dim():
    m = mt.nn.utils.spectral_norm(nn.ConvTranspose1d(2, 3, 3))
    (hook,) = m._forward_pre_hooks.values()
    assert hook.dim == 1
    assert tuple(m.weight_u.shape) == (3,) and tuple(m.weight_v.shape) == (2 * 3,)
