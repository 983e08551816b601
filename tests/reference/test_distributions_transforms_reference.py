"""Transforms, biject_to/transform_to and TransformedDistribution families against PyTorch."""

from __future__ import annotations

import numpy as np
import pytest

import minitorch

torch = pytest.importorskip("torch")

X = np.array([[-1.3, 0.2, 0.9], [0.4, -0.6, 2.1]])
POS = np.array([[0.3, 1.2, 2.5], [0.7, 1.9, 0.05]])
UNIT = np.array([[0.1, 0.5, 0.9], [0.35, 0.75, 0.02]])


def _t(lib, a):
    return lib.tensor(np.asarray(a, dtype=np.float64))


def _np(t):
    return t.detach().numpy()


# Each row: name, transform builder (lib.distributions.transforms, lib) -> transform, input.
TRANSFORMS = [
    ("exp", lambda T, lib: T.ExpTransform(), X),
    ("sigmoid", lambda T, lib: T.SigmoidTransform(), X),
    ("tanh", lambda T, lib: T.TanhTransform(), X),
    ("softplus", lambda T, lib: T.SoftplusTransform(), X),
    ("abs", lambda T, lib: T.AbsTransform(), X),
    ("power", lambda T, lib: T.PowerTransform(_t(lib, [0.5, 2.0, -1.5])), POS),
    ("affine", lambda T, lib: T.AffineTransform(1.5, -2.0), X),
    ("affine_tensor", lambda T, lib: T.AffineTransform(_t(lib, [1.0, 0.0, -1.0]), 3.0), X),
    ("affine_event", lambda T, lib: T.AffineTransform(0.5, _t(lib, [2.0, -1.0, 3.0]), 1), X),
    ("softmax", lambda T, lib: T.SoftmaxTransform(), X),
    ("stick_breaking", lambda T, lib: T.StickBreakingTransform(), X),
    ("lower_cholesky", lambda T, lib: T.LowerCholeskyTransform(), np.outer(X[0], X[1])),
    ("corr_cholesky", lambda T, lib: T.CorrCholeskyTransform(), X),
    ("independent", lambda T, lib: T.IndependentTransform(T.SigmoidTransform(), 1), X),
    ("reshape", lambda T, lib: T.ReshapeTransform((3,), (3, 1)), X),
    (
        "compose",
        lambda T, lib: T.ComposeTransform(
            [T.AffineTransform(0.5, 2.0), T.ExpTransform(), T.StickBreakingTransform()]
        ),
        X,
    ),
    ("identity", lambda T, lib: T.identity_transform, X),
    (
        "cdf",
        lambda T, lib: T.CumulativeDistributionTransform(
            lib.distributions.Normal(_t(lib, [0.0, 1.0, -1.0]), _t(lib, [1.0, 2.0, 0.5]))
        ),
        X,
    ),
    ("inverse", lambda T, lib: T.SigmoidTransform().inv, UNIT),
    ("inverse_stick", lambda T, lib: T.StickBreakingTransform().inv, [[0.2, 0.3, 0.1, 0.4]]),
]

NO_LADJ = {"abs", "softmax", "lower_cholesky"}


def _props(t):
    out = {"repr": repr(t), "bijective": t.bijective}
    for name in ("domain", "codomain", "event_dim", "sign"):
        try:
            value = getattr(t, name)
        except (NotImplementedError, ValueError) as e:
            value = type(e).__name__
        out[name] = _np(value).tolist() if hasattr(value, "detach") else repr(value)
    return out


@pytest.mark.parametrize("name,build,x", TRANSFORMS, ids=[r[0] for r in TRANSFORMS])
def test_transform_matches_torch(name, build, x):
    results = []
    for lib in (torch, minitorch):
        t = build(lib.distributions.transforms, lib)
        xt = _t(lib, x)
        y = t(xt)
        r = {"y": _np(y), "x_back": _np(t.inv(y)), "props": _props(t)}
        r["inv_props"] = _props(t.inv)
        if name not in NO_LADJ:
            r["ladj"] = _np(t.log_abs_det_jacobian(xt, y))
        shape = tuple(xt.shape)
        r["forward_shape"] = tuple(t.forward_shape(shape))
        r["inverse_shape"] = tuple(t.inverse_shape(tuple(y.shape)))
        results.append(r)
    expected, got = results
    for key in ("props", "inv_props", "forward_shape", "inverse_shape"):
        assert got[key] == expected[key], f"{name}.{key}"
    for key in ("y", "x_back", "ladj"):
        if key in expected:
            assert got[key].shape == expected[key].shape, f"{name}.{key} shape"
            np.testing.assert_allclose(
                got[key], expected[key], rtol=1e-10, atol=1e-12, err_msg=f"{name}.{key}"
            )


def _constraints(lib):
    C = lib.distributions.constraints
    return [
        C.real,
        C.positive,
        C.nonnegative,
        C.greater_than(2.0),
        C.greater_than_eq(-1.0),
        C.less_than(3.0),
        C.interval(-2.0, 5.0),
        C.unit_interval,
        C.half_open_interval(0.0, 4.0),
        C.simplex,
        C.real_vector,
        C.independent(C.positive, 1),
        C.corr_cholesky,
        C.lower_cholesky,
        C.boolean,
        C.positive_definite,
    ]


@pytest.mark.parametrize("index", range(16))
@pytest.mark.parametrize("registry", ["biject_to", "transform_to"])
def test_registries_match_torch(index, registry):
    results = []
    for lib in (torch, minitorch):
        constraint = _constraints(lib)[index]
        try:
            t = getattr(lib.distributions, registry)(constraint)
        except NotImplementedError as e:
            results.append(("NotImplementedError", str(e)))
            continue
        x = _t(
            lib,
            np.outer(X[0], X[1])
            if "Cholesky" in repr(constraint) or "Definite" in repr(constraint)
            else X,
        )
        results.append((repr(t), _np(t(x))))
    (e_repr, e_val), (g_repr, g_val) = results
    assert g_repr == e_repr
    if isinstance(e_val, str):
        assert g_val == e_val
    else:
        np.testing.assert_allclose(g_val, e_val, rtol=1e-10, atol=1e-12, err_msg=e_repr)


# name, family, args (numpy arrays), value for log_prob/cdf
FAMILIES = [
    ("half_normal", "HalfNormal", [[0.5, 1.0, 2.0]], [0.3, 1.2, 2.5]),
    ("half_cauchy", "HalfCauchy", [[0.5, 1.0, 2.0]], [0.3, 1.2, 2.5]),
    ("weibull", "Weibull", [[0.5, 1.0, 2.0], [0.7, 1.5, 3.0]], [0.3, 1.2, 2.5]),
    ("pareto", "Pareto", [[0.2, 1.0, 2.0], [0.7, 1.5, 3.0]], [0.5, 2.2, 4.5]),
    ("kumaraswamy", "Kumaraswamy", [[0.7, 1.5, 3.0], [0.5, 1.0, 2.0]], [0.2, 0.5, 0.9]),
    ("inverse_gamma", "InverseGamma", [[0.7, 1.5, 3.0], [0.5, 1.0, 2.0]], [0.2, 0.5, 0.9]),
    ("chi2", "Chi2", [[0.7, 1.5, 3.0]], [0.2, 0.5, 0.9]),
    ("kumaraswamy_scalar", "Kumaraswamy", [2.0, 3.0], 0.4),
    ("logistic_normal", "LogisticNormal", [[0.1, -0.3], [1.0, 0.5]], [0.2, 0.5, 0.3]),
    ("logistic_normal_0d", "LogisticNormal", [0.2, 1.5], [0.6, 0.4]),
]


def _build(lib, family, args, requires_grad=False):
    params = [
        lib.tensor(np.asarray(a, dtype=np.float64), requires_grad=requires_grad) for a in args
    ]
    return getattr(lib.distributions, family)(*params), params


def _stats(d, lib, value):
    out = {}
    for attr in ("log_prob", "cdf", "icdf", "entropy", "mean", "mode", "variance"):
        try:
            if attr in ("log_prob", "cdf"):
                r = getattr(d, attr)(_t(lib, value))
            elif attr == "icdf":
                r = d.icdf(_t(lib, [0.3, 0.6, 0.8][: d.batch_shape.numel() or 1]))
            elif attr == "entropy":
                r = d.entropy()
            else:
                r = getattr(d, attr)
            out[attr] = _np(r)
        except NotImplementedError:
            out[attr] = "NotImplementedError"
    return out


@pytest.mark.parametrize("name,family,args,value", FAMILIES, ids=[f[0] for f in FAMILIES])
def test_families_match_torch(name, family, args, value):
    td, _ = _build(torch, family, args)
    md, _ = _build(minitorch, family, args)
    assert repr(md) == repr(td)
    assert repr(md.support) == repr(td.support)
    assert tuple(md.batch_shape) == tuple(td.batch_shape)
    assert tuple(md.event_shape) == tuple(td.event_shape)
    assert md.has_rsample == td.has_rsample
    expected, got = _stats(td, torch, value), _stats(md, minitorch, value)
    for key, e in expected.items():
        g = got[key]
        if isinstance(e, str) or isinstance(g, str):
            assert g == e, f"{name}.{key}"
            continue
        assert g.dtype == e.dtype, f"{name}.{key} dtype"
        np.testing.assert_allclose(
            g, e, rtol=1e-9, atol=1e-12, equal_nan=True, err_msg=f"{name}.{key}"
        )
    assert tuple(md.sample((2,)).shape) == tuple(td.sample((2,)).shape)
    e_exp, m_exp = td.expand((4,) + tuple(td.batch_shape)), md.expand((4,) + tuple(md.batch_shape))
    assert tuple(m_exp.batch_shape) == tuple(e_exp.batch_shape)
    assert tuple(m_exp.sample().shape) == tuple(e_exp.sample().shape)


@pytest.mark.parametrize("name,family,args,value", FAMILIES, ids=[f[0] for f in FAMILIES])
def test_family_log_prob_gradients_match_torch(name, family, args, value):
    grads = []
    for lib in (torch, minitorch):
        d, params = _build(lib, family, args, requires_grad=True)
        d.log_prob(_t(lib, value)).sum().backward()
        grads.append([_np(p.grad) for p in params])
    for e, g in zip(*grads, strict=True):
        np.testing.assert_allclose(g, e, rtol=1e-9, atol=1e-12, err_msg=name)


def _generic(lib):
    D, T = lib.distributions, lib.distributions.transforms
    base = D.Normal(_t(lib, [[0.1, -0.4, 0.3]]), _t(lib, [[1.0, 0.5, 2.0]]))
    return D.TransformedDistribution(
        base, [T.AffineTransform(0.5, -1.5), T.ExpTransform(), T.StickBreakingTransform()]
    )


def test_transformed_distribution_matches_torch():
    td, md = _generic(torch), _generic(minitorch)
    assert repr(md) == repr(td) == "TransformedDistribution()"
    assert repr(md.support) == repr(td.support)
    assert tuple(md.batch_shape) == tuple(td.batch_shape)
    assert tuple(md.event_shape) == tuple(td.event_shape)
    value = _np(
        td.transforms[-1](td.transforms[1](td.transforms[0](_t(torch, [[0.2, -0.1, 0.4]]))))
    )
    np.testing.assert_allclose(
        _np(md.log_prob(_t(minitorch, value))), _np(td.log_prob(_t(torch, value))), rtol=1e-10
    )
    for d in (td, md):
        with pytest.raises(NotImplementedError):
            d.entropy()
    # cdf / icdf through a decreasing transform
    cdfs = []
    for lib in (torch, minitorch):
        D, T = lib.distributions, lib.distributions.transforms
        d = D.TransformedDistribution(
            D.Normal(_t(lib, [0.0, 1.0]), _t(lib, [1.0, 2.0])),
            [T.AffineTransform(1.0, -2.0), T.ExpTransform()],
        )
        cdfs.append((_np(d.cdf(_t(lib, [0.5, 3.0]))), _np(d.icdf(_t(lib, [0.3, 0.9])))))
    for e, g in zip(*cdfs, strict=True):
        np.testing.assert_allclose(g, e, rtol=1e-10)


def _error(fn):
    try:
        fn()
    except Exception as e:  # noqa: BLE001 - the type and message are compared
        return type(e).__name__, str(e)
    return None


ERRORS = [
    ("cache_size", lambda lib: lib.distributions.transforms.ExpTransform(cache_size=2)),
    ("reshape_numel", lambda lib: lib.distributions.transforms.ReshapeTransform((2, 3), (5,))),
    (
        "reshape_shape",
        lambda lib: lib.distributions.transforms.ReshapeTransform((3,), (3, 1)).forward_shape(
            (2, 4)
        ),
    ),
    (
        "unknown_constraint",
        lambda lib: lib.distributions.biject_to(lib.distributions.constraints.boolean),
    ),
    (
        "td_list",
        lambda lib: lib.distributions.TransformedDistribution(
            lib.distributions.Normal(0.0, 1.0), [1]
        ),
    ),
    (
        "td_type",
        lambda lib: lib.distributions.TransformedDistribution(
            lib.distributions.Normal(0.0, 1.0), 1
        ),
    ),
    (
        "event_dim",
        lambda lib: (
            lib.distributions.transforms.ComposeTransform(
                [lib.distributions.transforms.ReshapeTransform((2,), (1, 2))]
            ).event_dim
        ),
    ),
]


@pytest.mark.parametrize("name,fn", ERRORS, ids=[e[0] for e in ERRORS])
def test_errors_match_torch(name, fn):
    expected, got = _error(lambda: fn(torch)), _error(lambda: fn(minitorch))
    assert expected is not None
    assert got == expected, name


def test_td_base_shape_error_matches_torch():
    msgs = []
    for lib in (torch, minitorch):
        D = lib.distributions
        msgs.append(
            _error(
                lambda D=D: D.TransformedDistribution(
                    D.Normal(0.0, 1.0), D.StickBreakingTransform()
                )
            )
        )
    assert msgs[1][0] == msgs[0][0] == "ValueError"
    assert msgs[1][1].replace("torch.Size", "Size") == msgs[0][1].replace("torch.Size", "Size")


@pytest.mark.parametrize("alpha", [0.01, 0.03, 0.4, 1.0, 3.5, 25.0, 700.0, 5000.0])
def test_standard_gamma_grad_matches_torch(alpha):
    """minitorch's implicit gradient at torch's sample against torch._standard_gamma_grad."""
    from minitorch.distributions.gamma import _standard_gamma_grad

    torch.manual_seed(0)
    a = torch.full((50,), alpha, dtype=torch.float64)
    x = torch._standard_gamma(a)
    expected = torch._standard_gamma_grad(a, x).numpy()
    digamma = minitorch.tensor(0.0)._device.backend.special("digamma")
    got = _standard_gamma_grad(np, digamma, a.numpy(), x.numpy())
    # torch's own approximation is accurate to about 1e-3 relative away from small alpha
    np.testing.assert_allclose(got, expected, rtol=5e-3, atol=1e-12, err_msg=f"alpha={alpha}")
