"""minitorch.optim optimizers against torch.optim: trajectories, state dicts, reprs, errors."""

from __future__ import annotations

import copy
import warnings

import numpy as np
import pytest

import minitorch as mt

torch = pytest.importorskip("torch")

STEPS = 10

# --- a deterministic gradient sequence: the gradient of a fixed smooth function of the weights ---

_rng = np.random.default_rng(1234)
W0 = _rng.standard_normal((3, 4))
B0 = _rng.standard_normal(4)
_A = _rng.standard_normal((3, 3))
A = _A @ _A.T / 3 + np.eye(3)


def loss_and_grads(w, b):
    """f = 1/2 tr(W^T A W) + 0.025 sum W^4 - sum W + sum(b^2/2 - b/2 - cos b) (convex)."""
    f = 0.5 * np.sum(w * (A @ w)) + 0.025 * np.sum(w**4) - w.sum()
    f += np.sum(b**2 / 2 - 0.5 * b - np.cos(b))
    return f, A @ w + 0.1 * w**3 - 1.0, b - 0.5 + np.sin(b)


def _params(lib, dtype):
    dt = getattr(lib, dtype)
    w = lib.nn.Parameter(lib.tensor(W0.copy(), dtype=dt))
    b = lib.nn.Parameter(lib.tensor(B0.copy(), dtype=dt))
    return w, b


def _numpy(t):
    return t.detach().cpu().numpy().astype(np.float64)


def _set_grads(lib, w, b, with_loss=False):
    f, gw, gb = loss_and_grads(_numpy(w), _numpy(b))
    w.grad = lib.tensor(gw, dtype=w.dtype)
    b.grad = lib.tensor(gb, dtype=b.dtype)
    return lib.tensor(f, dtype=w.dtype) if with_loss else None


def _groups(w, b, kwargs, grouped):
    if not grouped:
        return [w, b]
    return [{"params": [w]}, {"params": [b], "lr": kwargs.get("lr", 0.01) * 0.5}]


def run(lib, name, kwargs, *, steps=STEPS, dtype="float64", grouped=False, lr_tensor=False):
    w, b = _params(lib, dtype)
    kwargs = dict(kwargs)
    if lr_tensor:
        kwargs["lr"] = lib.tensor(kwargs["lr"])
    opt = getattr(lib.optim, name)(_groups(w, b, kwargs, grouped), **kwargs)
    trajectory = []
    for _ in range(steps):
        _set_grads(lib, w, b)
        opt.step()
        trajectory.append(np.concatenate([_numpy(w).ravel(), _numpy(b).ravel()]))
    return np.array(trajectory), opt


CASES = [
    ("SGD", {"lr": 0.1}),
    ("SGD", {"lr": 0.1, "momentum": 0.9}),
    ("SGD", {"lr": 0.1, "momentum": 0.9, "nesterov": True, "weight_decay": 0.1}),
    ("SGD", {"lr": 0.1, "momentum": 0.9, "dampening": 0.3, "maximize": True}),
    ("Adam", {"lr": 0.1}),
    ("Adam", {"lr": 0.1, "betas": (0.8, 0.99), "eps": 1e-6, "weight_decay": 0.1}),
    ("Adam", {"lr": 0.1, "amsgrad": True, "maximize": True}),
    ("Adam", {"lr": 0.1, "weight_decay": 0.1, "decoupled_weight_decay": True}),
    ("AdamW", {"lr": 0.1}),
    ("AdamW", {"lr": 0.1, "amsgrad": True, "weight_decay": 0.5}),
    ("Adamax", {"lr": 0.1}),
    ("Adamax", {"lr": 0.1, "weight_decay": 0.1, "maximize": True}),
    ("NAdam", {"lr": 0.1}),
    ("NAdam", {"lr": 0.1, "weight_decay": 0.1, "momentum_decay": 0.01}),
    ("NAdam", {"lr": 0.1, "weight_decay": 0.1, "decoupled_weight_decay": True}),
    ("RAdam", {"lr": 0.1}),
    ("RAdam", {"lr": 0.1, "betas": (0.9, 0.9), "weight_decay": 0.1}),
    ("RAdam", {"lr": 0.1, "weight_decay": 0.1, "decoupled_weight_decay": True}),
    ("RMSprop", {"lr": 0.01}),
    ("RMSprop", {"lr": 0.01, "momentum": 0.9, "weight_decay": 0.1}),
    ("RMSprop", {"lr": 0.01, "centered": True, "alpha": 0.9, "maximize": True}),
    ("RMSprop", {"lr": 0.01, "centered": True, "momentum": 0.5}),
    ("Adagrad", {"lr": 0.1}),
    ("Adagrad", {"lr": 0.1, "lr_decay": 0.01, "initial_accumulator_value": 0.1}),
    ("Adagrad", {"lr": 0.1, "weight_decay": 0.1, "eps": 1e-6}),
    ("Adadelta", {"lr": 1.0}),
    ("Adadelta", {"lr": 0.5, "rho": 0.8, "weight_decay": 0.1, "maximize": True}),
    ("ASGD", {"lr": 0.05}),
    ("ASGD", {"lr": 0.05, "t0": 3, "lambd": 0.01, "alpha": 0.5, "weight_decay": 0.1}),
    ("Rprop", {"lr": 0.05}),
    ("Rprop", {"lr": 0.05, "etas": (0.3, 1.7), "step_sizes": (1e-3, 0.2), "maximize": True}),
    ("Adafactor", {"lr": 0.1}),
    ("Adafactor", {"lr": 0.1, "weight_decay": 0.1, "d": 2.0, "eps": (1e-5, 1e-2)}),
    ("Adafactor", {"lr": 0.1, "beta2_decay": -0.5, "maximize": True}),
]
NAMES = sorted({name for name, _ in CASES})


def _case_id(case):
    name, kwargs = case
    return name + "-" + "-".join(f"{k}={v}" for k, v in kwargs.items())


def _assert_same_state(sd_t, sd_m):
    """The same layout (keys, hyperparameters, indices) and the same state values."""
    assert sd_m["param_groups"] == sd_t["param_groups"]
    assert list(sd_m["state"]) == list(sd_t["state"])
    for i, st_t in sd_t["state"].items():
        st_m = sd_m["state"][i]
        assert list(st_m) == list(st_t), f"state keys of parameter {i}"
        for key, v_t in st_t.items():
            v_m = st_m[key]
            if isinstance(v_t, torch.Tensor):
                assert isinstance(v_m, mt.Tensor), key
                assert str(v_m.dtype) == str(v_t.dtype), key
                assert tuple(v_m.shape) == tuple(v_t.shape), key
                np.testing.assert_allclose(
                    _numpy(v_m),
                    v_t.double().numpy(),
                    rtol=1e-5,
                    atol=1e-12,
                    err_msg=f"state[{i}][{key!r}]",
                )
            else:
                assert v_m == v_t, key


@pytest.mark.parametrize("case", CASES, ids=_case_id)
def test_trajectory_state_dict_and_repr_match_torch(case):
    name, kwargs = case
    traj_t, opt_t = run(torch, name, kwargs)
    traj_m, opt_m = run(mt, name, kwargs)
    np.testing.assert_allclose(traj_m, traj_t, rtol=1e-5, atol=1e-12, err_msg=name)
    _assert_same_state(opt_t.state_dict(), opt_m.state_dict())
    assert repr(opt_m) == repr(opt_t)


@pytest.mark.parametrize("name", NAMES)
def test_param_groups_with_their_own_lr_match_torch(name):
    kwargs = dict(next(kw for n, kw in CASES if n == name))
    traj_t, opt_t = run(torch, name, kwargs, grouped=True)
    traj_m, opt_m = run(mt, name, kwargs, grouped=True)
    np.testing.assert_allclose(traj_m, traj_t, rtol=1e-5, atol=1e-12, err_msg=name)
    _assert_same_state(opt_t.state_dict(), opt_m.state_dict())
    assert repr(opt_m) == repr(opt_t)


@pytest.mark.parametrize("name", NAMES)
def test_float32_trajectories_match_torch(name):
    kwargs = next(kw for n, kw in CASES if n == name)
    traj_t, _ = run(torch, name, kwargs, dtype="float32")
    traj_m, _ = run(mt, name, kwargs, dtype="float32")
    np.testing.assert_allclose(traj_m, traj_t, rtol=1e-4, atol=1e-6, err_msg=name)


@pytest.mark.parametrize("name", ["SGD", "Adam", "AdamW", "RMSprop", "NAdam", "Adagrad"])
def test_tensor_lr_matches_torch(name):
    # torch does part of the math with a float32 lr tensor in float32 (e.g. AdamW's
    # 1 - lr * weight_decay); minitorch reads the CPU tensor as a Python number: hence atol.
    kwargs = next(kw for n, kw in CASES if n == name)
    traj_t, opt_t = run(torch, name, kwargs, lr_tensor=True)
    traj_m, opt_m = run(mt, name, kwargs, lr_tensor=True)
    np.testing.assert_allclose(traj_m, traj_t, rtol=1e-5, atol=1e-6, err_msg=name)
    assert repr(opt_m) == repr(opt_t)


@pytest.mark.parametrize("name", NAMES)
def test_changing_hyperparameters_between_steps_matches_torch(name):
    kwargs = next(kw for n, kw in CASES if n == name)
    out = []
    for lib in (torch, mt):
        w, b = _params(lib, "float64")
        opt = getattr(lib.optim, name)([w, b], **kwargs)
        for i in range(6):
            _set_grads(lib, w, b)
            opt.step()
            for group in opt.param_groups:
                group["lr"] = group["lr"] * 0.7
                if "weight_decay" in group and i == 2:
                    group["weight_decay"] = 0.05
        out.append(np.concatenate([_numpy(w).ravel(), _numpy(b).ravel()]))
    np.testing.assert_allclose(out[1], out[0], rtol=1e-5, atol=1e-12)


@pytest.mark.parametrize("name", NAMES)
def test_loading_torchs_state_dict_continues_torchs_trajectory(name):
    """torch's state dict (tensors converted) loads into minitorch and continues identically."""
    kwargs = next(kw for n, kw in CASES if n == name)
    _, opt_t = run(torch, name, kwargs, steps=4)
    sd = copy.deepcopy(opt_t.state_dict())

    def convert(v):
        if isinstance(v, torch.Tensor):
            return mt.tensor(v.numpy(), dtype=getattr(mt, str(v.dtype).split(".")[1]))
        if isinstance(v, dict):
            return {k: convert(x) for k, x in v.items()}
        return v

    w_t, b_t = opt_t.param_groups[0]["params"]
    w, b = (mt.nn.Parameter(mt.tensor(p.detach().numpy().copy())) for p in (w_t, b_t))
    opt_m = getattr(mt.optim, name)([w, b], **kwargs)
    opt_m.load_state_dict(convert(sd))
    for _ in range(4):
        _set_grads(torch, w_t, b_t)
        opt_t.step()
        _set_grads(mt, w, b)
        opt_m.step()
    np.testing.assert_allclose(_numpy(w), _numpy(w_t), rtol=1e-5, atol=1e-12)
    np.testing.assert_allclose(_numpy(b), _numpy(b_t), rtol=1e-5, atol=1e-12)


# --- LBFGS ---


@pytest.mark.parametrize(
    "kwargs",
    [
        {"lr": 1, "max_iter": 5},
        {"lr": 0.5, "max_iter": 4, "history_size": 3},
        {"lr": 1, "max_iter": 6, "line_search_fn": "strong_wolfe"},
        {"lr": 1, "max_iter": 20, "history_size": 5, "line_search_fn": "strong_wolfe"},
    ],
    ids=str,
)
def test_lbfgs_matches_torch(kwargs):
    results = []
    for lib in (torch, mt):
        w, b = _params(lib, "float64")
        opt = lib.optim.LBFGS([w, b], **kwargs)

        def closure(lib=lib, w=w, b=b, opt=opt):
            opt.zero_grad()
            return _set_grads(lib, w, b, with_loss=True)

        losses = [float(opt.step(closure)) for _ in range(8)]
        state = opt.state_dict()["state"][0]
        results.append(
            (np.concatenate([_numpy(w).ravel(), _numpy(b).ravel()]), losses, state, repr(opt))
        )
    (x_t, losses_t, state_t, repr_t), (x_m, losses_m, state_m, repr_m) = results
    np.testing.assert_allclose(x_m, x_t, rtol=1e-5, atol=1e-10)
    np.testing.assert_allclose(losses_m, losses_t, rtol=1e-5)
    assert list(state_m) == list(state_t)
    assert state_m["func_evals"] == state_t["func_evals"]
    assert state_m["n_iter"] == state_t["n_iter"]
    assert len(state_m["old_dirs"]) == len(state_t["old_dirs"])
    assert repr_m == repr_t


# --- errors and reprs ---


def _error(fn):
    try:
        fn()
    except Exception as e:  # noqa: BLE001
        return type(e).__name__, str(e)
    return None


ERROR_CASES = [
    ("tensor as params", lambda lib, p: lib.optim.SGD(p, lr=0.1)),
    ("empty", lambda lib, p: lib.optim.SGD([], lr=0.1)),
    ("set in a group", lambda lib, p: lib.optim.SGD([{"params": {p}}], lr=0.1)),
    ("non-tensor", lambda lib, p: lib.optim.SGD([1.0], lr=0.1)),
    ("non-leaf", lambda lib, p: lib.optim.SGD([p * 2], lr=0.1)),
    ("duplicate group", lambda lib, p: lib.optim.SGD([{"params": [p]}, {"params": [p]}], lr=1)),
    ("names mixed", lambda lib, p: lib.optim.SGD([("a", p), p * 1], lr=0.1)),
    ("negative lr", lambda lib, p: lib.optim.Adam([p], lr=-0.1)),
    ("beta", lambda lib, p: lib.optim.Adam([p], betas=(1.0, 0.9))),
    ("beta1", lambda lib, p: lib.optim.NAdam([p], betas=(0.9, -0.1))),
    ("eps", lambda lib, p: lib.optim.Adamax([p], eps=-1.0)),
    ("weight decay", lambda lib, p: lib.optim.RAdam([p], weight_decay=-1.0)),
    ("momentum", lambda lib, p: lib.optim.SGD([p], lr=0.1, momentum=-1.0)),
    ("nesterov", lambda lib, p: lib.optim.SGD([p], lr=0.1, nesterov=True)),
    ("rho", lambda lib, p: lib.optim.Adadelta([p], rho=1.5)),
    ("alpha", lambda lib, p: lib.optim.RMSprop([p], alpha=-1.0)),
    ("lr_decay", lambda lib, p: lib.optim.Adagrad([p], lr_decay=-1.0)),
    ("initial acc", lambda lib, p: lib.optim.Adagrad([p], initial_accumulator_value=-1.0)),
    ("etas", lambda lib, p: lib.optim.Rprop([p], etas=(1.5, 1.2))),
    ("momentum_decay", lambda lib, p: lib.optim.NAdam([p], momentum_decay=-1.0)),
    ("betas mixed", lambda lib, p: lib.optim.Adam([p], betas=(0.9, 1))),
    ("tensor lr numel", lambda lib, p: lib.optim.SGD([p], lr=lib.tensor([0.1, 0.2]))),
    ("lbfgs groups", lambda lib, p: lib.optim.LBFGS([{"params": [p]}, {"params": [p * 1]}])),
    ("group not dict", lambda lib, p: lib.optim.SGD([p], lr=0.1).add_param_group([p])),
    ("group dup", lambda lib, p: lib.optim.SGD([p], lr=0.1).add_param_group({"params": p})),
    (
        "load groups",
        lambda lib, p: lib.optim.SGD([p], lr=0.1).load_state_dict(
            {"state": {}, "param_groups": []}
        ),
    ),
    (
        "load sizes",
        lambda lib, p: lib.optim.SGD([p], lr=0.1).load_state_dict(
            {"state": {}, "param_groups": [{"params": [0, 1], "lr": 0.1}]}
        ),
    ),
    ("lbfgs line search", lambda lib, p: _lbfgs_bad_line_search(lib, p)),
]


def _lbfgs_bad_line_search(lib, p):
    opt = lib.optim.LBFGS([p], line_search_fn="armijo")

    def closure():
        opt.zero_grad()
        loss = (p * p).sum()
        loss.backward()
        return loss

    opt.step(closure)


@pytest.mark.parametrize("case", ERROR_CASES, ids=[c[0] for c in ERROR_CASES])
def test_errors_match_torch(case):
    _, make = case
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        want = _error(lambda: make(torch, torch.nn.Parameter(torch.ones(2))))
        got = _error(lambda: make(mt, mt.nn.Parameter(mt.ones(2))))
    assert want is not None
    assert got == want


def test_duplicate_parameter_warning_matches_torch():
    for lib in (torch, mt):
        p = lib.nn.Parameter(lib.ones(2))
        with pytest.warns(UserWarning, match="duplicate parameters"):
            lib.optim.SGD([p, p], lr=0.1)


@pytest.mark.parametrize("name", NAMES + ["LBFGS"])
def test_default_repr_matches_torch(name):
    reprs = []
    for lib in (torch, mt):
        p = lib.nn.Parameter(lib.ones(2))
        kwargs = {"lr": 0.1} if name == "SGD" else {}
        reprs.append(repr(getattr(lib.optim, name)([p], **kwargs)))
    assert reprs[1] == reprs[0]


def test_named_parameters_state_dict_matches_torch():
    sds = []
    for lib in (torch, mt):
        w, b = _params(lib, "float64")
        opt = lib.optim.Adam([("w", w), ("b", b)], lr=0.1)
        _set_grads(lib, w, b)
        opt.step()
        sds.append(opt.state_dict())
    _assert_same_state(*sds)
    assert sds[1]["param_groups"][0]["param_names"] == ["w", "b"]


@pytest.mark.parametrize(
    "kw",
    [
        {},
        {"nesterov": False, "adjust_lr_fn": "match_rms_adamw", "weight_decay": 0.0},
        {"lr": 0.02, "momentum": 0.9},
    ],
)
def test_muon_matches_torch(kw):
    pytest.importorskip("ml_dtypes")
    rng = np.random.default_rng(0)
    w0, w1 = rng.standard_normal((6, 4)), rng.standard_normal((3, 5))
    x = rng.standard_normal((8, 4))
    runs = []
    for lib in (mt, torch):
        a = lib.nn.Parameter(lib.tensor(w0, dtype=lib.float32))
        b = lib.nn.Parameter(lib.tensor(w1, dtype=lib.float32))
        opt = lib.optim.Muon([a, b], **kw)
        for _ in range(4):
            opt.zero_grad()
            loss = (lib.tensor(x, dtype=lib.float32) @ a.T).pow(2).sum() + b.pow(3).sum()
            loss.backward()
            opt.step()
        runs.append((a.detach().numpy(), b.detach().numpy(), repr(opt), opt.state_dict()))
    (am, bm, rm, sm), (at, bt, rt, st) = runs
    np.testing.assert_allclose(am, at, rtol=1e-2, atol=2e-3)  # bfloat16 products inside
    np.testing.assert_allclose(bm, bt, rtol=1e-2, atol=2e-3)
    assert rm == rt
    assert sm["param_groups"] == st["param_groups"] and sm["state"].keys() == st["state"].keys()


def test_sparse_adam_matches_torch():
    w0 = np.random.default_rng(0).normal(size=(6, 3))
    runs = []
    for lib in (mt, torch):
        e = lib.nn.Embedding(6, 3, sparse=True, dtype=lib.float64)
        e.weight.data = lib.tensor(w0)
        opt = lib.optim.SparseAdam(e.parameters(), lr=0.1)
        for ids in ([1, 3, 1], [0, 3], [5, 5, 2]):
            opt.zero_grad()
            (e(lib.tensor(ids)) ** 2).sum().backward()
            opt.step()
        runs.append((e.weight.detach().numpy(), repr(opt), opt.state_dict()["param_groups"]))
    np.testing.assert_allclose(runs[0][0], runs[1][0], rtol=1e-12)
    assert runs[0][1:] == runs[1][1:]
