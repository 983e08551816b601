"""Session 21: a small seeded differential fuzz of minitorch.optim against torch.optim (the full
fuzzer ran thousands of cases outside the repository): random hyper-parameters and flags,
several param groups, gradients that are sometimes None, 0-d and empty parameters, tensor lr
and betas, state-dict round trips both ways; plus the mismatches it found."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import minitorch as mt

torch = pytest.importorskip("torch")


def _to(lib, x):
    """A structure of torch/minitorch tensors converted to `lib` (values and dtypes kept)."""
    if isinstance(x, (torch.Tensor, mt.Tensor)):
        return lib.from_numpy(x.detach().cpu().numpy().copy())
    if isinstance(x, dict):
        return {k: _to(lib, v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return type(x)(_to(lib, v) for v in x)
    return x


def _assert_same(t, m, path, rtol):
    if isinstance(t, torch.Tensor):
        assert isinstance(m, mt.Tensor), path
        assert str(t.dtype) == str(m.dtype), path
        a, b = t.detach().numpy(), m.detach().numpy()
        assert a.shape == b.shape, path
        scale = max(np.abs(a).max(initial=0), 1e-3)
        np.testing.assert_allclose(b, a, rtol=0, atol=rtol * scale, err_msg=path)
    elif isinstance(t, dict):
        assert list(t) == list(m), path
        for k in t:
            _assert_same(t[k], m[k], f"{path}.{k}", rtol)
    elif isinstance(t, (list, tuple)):
        assert type(t) is type(m) and len(t) == len(m), path
        for i, (a, b) in enumerate(zip(t, m, strict=True)):
            _assert_same(a, b, f"{path}[{i}]", rtol)
    elif isinstance(t, float):
        assert m == pytest.approx(t, rel=1e-12, nan_ok=True), path
    else:
        assert t == m, path


def _lr(r, lib):
    lr = float(10 ** r.uniform(-3, -0.5))
    return lib.tensor(lr, dtype=lib.float32) if r.random() < 0.25 else lr


def _hparams(name, r, lib):
    """Random valid hyper-parameters for optimizer `name` (the same for a given seed)."""
    wd = 0 if r.random() < 0.4 else float(10 ** r.uniform(-4, -1))
    flags = {"maximize": bool(r.random() < 0.3)}
    betas = (0.0 if r.random() < 0.15 else float(r.uniform(0.5, 0.99)), float(r.uniform(0.8, 1)))
    if name in ("Adam", "AdamW"):
        if r.random() < 0.25:
            betas = tuple(lib.tensor(b, dtype=lib.float32) for b in betas)
        kw = dict(betas=betas, weight_decay=wd, amsgrad=bool(r.random() < 0.3))
    elif name == "SGD":
        mom = 0 if r.random() < 0.3 else float(r.uniform(0.1, 0.95))
        kw = dict(momentum=mom, weight_decay=wd, nesterov=bool(mom and r.random() < 0.5))
    elif name == "Adagrad":
        kw = dict(lr_decay=float(r.uniform(0, 0.1)), weight_decay=wd,
                  initial_accumulator_value=float(r.uniform(0, 1)))  # fmt: skip
    elif name in ("Adamax", "RAdam", "NAdam"):
        kw = dict(betas=betas, weight_decay=wd)
    elif name == "RMSprop":
        kw = dict(alpha=float(r.uniform(0.05, 0.99)), momentum=float(r.uniform(0, 0.9)),
                  centered=bool(r.random() < 0.5), weight_decay=wd)  # fmt: skip
    elif name == "Adadelta":
        kw = dict(rho=float(r.uniform(0.5, 0.99)), weight_decay=wd)
    elif name == "ASGD":
        kw = dict(lambd=1e-3, alpha=0.75, t0=3.0, weight_decay=wd)
    elif name == "Rprop":
        kw = dict(etas=(float(r.uniform(0.3, 0.9)), float(r.uniform(1.05, 1.5))))
    else:  # Adafactor
        kw = dict(beta2_decay=-float(r.uniform(0.3, 1.0)), weight_decay=wd)
    return dict(lr=_lr(r, lib), **kw, **flags)


_NAMES = ["SGD", "Adam", "AdamW", "Adamax", "NAdam", "RAdam", "RMSprop", "Adagrad", "Adadelta",
          "ASGD", "Rprop", "Adafactor"]  # fmt: skip
_SHAPES = [(), (3,), (2, 3), (4, 1), (0,)]


def _case(name, seed):
    """Runs one random case in both libraries; returns nothing, asserting as it goes."""
    r_data = np.random.default_rng(seed)
    dtype = "float64" if seed % 2 else "float32"
    shapes = [_SHAPES[i] for i in r_data.integers(len(_SHAPES), size=4)]
    if name == "Adafactor":  # (torch's Adafactor divides by zero on an empty parameter)
        shapes = [s if 0 not in s else (2,) for s in shapes]
    values = [r_data.standard_normal(s) for s in shapes]
    grads = [[None if r_data.random() < 0.15 else r_data.standard_normal(s) for s in shapes]
             for _ in range(10)]  # fmt: skip
    foreach = [None, False, True][seed % 3] if name != "Adafactor" else None
    runs = {}
    for lib in (torch, mt):
        r = np.random.default_rng(seed + 1)  # the same hyper-parameters on both sides
        params = [lib.from_numpy(v.astype(dtype)) for v in values]
        groups = [{"params": params[:2], **_hparams(name, r, lib)}, {"params": params[2:]}]
        defaults = _hparams(name, r, lib)
        if foreach and name in ("Adam", "AdamW"):  # tensor lr/betas need capturable there
            for d in (groups[0], defaults):
                d["lr"] = float(d["lr"])
                d.pop("betas", None)
        opt = getattr(lib.optim, name)(groups, foreach=foreach, **defaults)
        runs[lib] = (opt, params)
    (ot, tp), (om, mp) = runs[torch], runs[mt]
    rtol = 1e-5 if dtype == "float32" else 1e-12
    for i, gs in enumerate(grads):
        for lib, params in ((torch, tp), (mt, mp)):
            for p, g in zip(params, gs, strict=True):
                p.grad = None if g is None else lib.from_numpy(g.astype(dtype))
        ot.step()
        om.step()
        _assert_same(tp, mp, f"{name} seed {seed} params@{i}", rtol)
        _assert_same([ot.state[p] for p in tp], [om.state[p] for p in mp], f"state@{i}", rtol)
        if i == 4:  # state dicts: same content, and each loads the other's
            sd_t, sd_m = ot.state_dict(), om.state_dict()
            _assert_same(sd_t, sd_m, "state_dict", rtol)
            om.load_state_dict(_to(mt, sd_t))
            ot.load_state_dict(_to(torch, sd_m))
            _assert_same(ot.state_dict(), om.state_dict(), "reloaded", rtol)


@pytest.mark.parametrize("name", _NAMES)
def test_random_cases_match_torch(name):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for seed in range(2):
            _case(name, seed)


# --- errors found by the fuzzer, compared live -----------------------------------------------


def _error(fn):
    try:
        fn()
    except Exception as exc:  # noqa: BLE001
        return type(exc).__name__, str(exc)
    return None


def _step(lib, name, **kw):
    p = lib.zeros(2)
    p.grad = lib.ones(2)
    getattr(lib.optim, name)([p], **kw).step()


@pytest.mark.parametrize("name", ["Adam", "Adamax", "NAdam", "RAdam", "RMSprop", "Adadelta",
                                  "ASGD", "Rprop", "Adagrad", "SGD"])  # fmt: skip
@pytest.mark.parametrize(
    "flags", [dict(foreach=True, differentiable=True), dict(foreach=True, capturable=True),
              dict(foreach=True, capturable=True, differentiable=True)]
)  # fmt: skip
def test_foreach_step_errors_match_torch(name, flags):
    if "capturable" in flags and name in ("Adagrad", "SGD"):
        pytest.skip("no capturable flag")
    got = _error(lambda: _step(mt, name, **flags))
    assert got == _error(lambda: _step(torch, name, **flags))


@pytest.mark.parametrize(
    "name, kw", [("SGD", dict(lr=float("nan"))), ("SparseAdam", dict(lr=0.0)),
                 ("SparseAdam", dict(eps=0.0)), ("Adagrad", dict(lr=-1.0))]
)  # fmt: skip
def test_constructor_checks_match_torch(name, kw):
    def make(lib):
        getattr(lib.optim, name)([lib.zeros(2, requires_grad=True)], **kw)

    assert _error(lambda: make(mt)) == _error(lambda: make(torch))


def test_adagrad_group_initial_accumulator_value_matches_torch():
    sums = []
    for lib in (torch, mt):
        a, b = lib.zeros(2, requires_grad=True), lib.zeros(2, requires_grad=True)
        opt = lib.optim.Adagrad(
            [{"params": [a]}, {"params": [b], "initial_accumulator_value": 0.5}],
            initial_accumulator_value=0.1,
        )
        sums.append(opt.state[b]["sum"].detach().numpy())
    np.testing.assert_array_equal(sums[1], sums[0])
