"""Session 25 (helper ext): user code that extends the library's classes, run under torch and
minitorch with the same seeds and compared record by record: custom optimizers (Lion, SAM,
Lookahead, LAMB, Adafactor, Shampoo-lite, Sophia), step / state-dict hooks, add_param_group,
state_dict packing and casting, custom LR schedulers (warmup-cosine, closed forms, chained,
the call-order warnings), custom Dataset / IterableDataset / Sampler / collate, and nn.Module
extension points (version migration, state-dict hooks, extra state, __getattr__ wrappers,
deepcopy/pickle, _apply, parametrizations, tied weights, ModuleDict/Sequential subclasses).

Known and left: torch 2.13's Optimizer.load_state_dict turns a str value in a parameter's state
into a generator (a torch bug; minitorch keeps the str), and _use_grad_for_differentiable on a
custom optimizer whose defaults lack 'differentiable' raises KeyError in torch only. A
subclass step() that calls super().step() runs the step hooks twice in torch once an
instance of the base class was built earlier in the process (torch patches each class's
step on first use); minitorch runs them once, always."""

# ruff: noqa: B023  (closures built in a loop are called within the same iteration)

from __future__ import annotations

import collections
import copy
import dataclasses
import importlib
import io
import math
import pickle
import warnings

import numpy as np
import pytest

import minitorch
from tests.reference._programs import run_program, warning_text

torch = pytest.importorskip("torch")


def _plain(v):
    if isinstance(v, (torch.Tensor, minitorch.Tensor)):
        dtype = str(v.dtype).replace("minitorch", "torch")
        return ["T", dtype, v.detach().cpu().numpy().tolist()]
    if isinstance(v, np.ndarray):
        return v.tolist()
    if isinstance(v, (list, tuple)):
        return [_plain(x) for x in v]
    if isinstance(v, dict):
        return {str(k): _plain(x) for k, x in v.items()}
    if isinstance(v, type):
        return v.__name__
    if v is None or isinstance(v, (bool, int, float)):
        return v
    return (v if isinstance(v, str) else repr(v)).replace("minitorch", "torch")


_TOL = {"torch.float64": 1e-9, "torch.float32": 1e-4, "torch.float16": 1e-2}


def _diffs(a, b, path, rtol=1e-9):
    if isinstance(a, float) and isinstance(b, float):
        if (math.isnan(a) and math.isnan(b)) or math.isclose(
            a, b, rel_tol=rtol, abs_tol=max(rtol * 1e-2, 1e-12)
        ):
            return []
        return [f"{path}: {a} != {b}"]
    if isinstance(a, list) and isinstance(b, list):
        if len(a) == 3 == len(b) and a[0] == "T" == b[0]:
            if a[1] != b[1]:
                return [f"{path}: dtype {a[1]} != {b[1]}"]
            return _diffs(a[2], b[2], path, _TOL.get(a[1], 0.0))
        if len(a) != len(b):
            return [f"{path}: {str(a)[:300]} != {str(b)[:300]}"]
        pairs = enumerate(zip(a, b, strict=True))
        return [d for i, (x, y) in pairs for d in _diffs(x, y, f"{path}[{i}]", rtol)]
    if isinstance(a, dict) and isinstance(b, dict):
        if a.keys() != b.keys():
            return [f"{path}: keys {list(a)} != {list(b)}"]
        return [d for k in a for d in _diffs(a[k], b[k], f"{path}.{k}", rtol)]
    return [] if a == b else [f"{path}: {str(a)[:300]!r} != {str(b)[:300]!r}"]


class _Rec(list):
    @property
    def items(self):
        return self

    def add(self, name, v):
        self.append((name, _plain(v)))

    def err(self, name, fn):
        try:
            self.add(name, fn())
        except Exception as e:  # noqa: BLE001 - the exception is the record
            msg = str(e).replace("minitorch", "torch")
            self.append((name, ["EXC", type(e).__name__, msg]))

    def warns(self, name, fn):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            try:
                out = fn()
            except Exception as e:  # noqa: BLE001
                out = ("EXC", type(e).__name__, str(e))
        msgs = [warning_text(w) for w in caught]
        self.append((name, _plain(msgs)))
        return out


def _compare(prog):
    def run(lib, rec):
        try:
            prog(lib, rec)
        except Exception as e:  # noqa: BLE001
            rec.append(("CRASH", f"{type(e).__name__}: {e}".replace("minitorch", "torch")))

    t, m = (run_program(run, lib, rec=_Rec()) for lib in (torch, minitorch))
    assert [n for n, _ in t] == [n for n, _ in m], f"record names differ: {t} vs {m}"
    diffs = [d for (name, a), (_, b) in zip(t, m, strict=True) for d in _diffs(a, b, name)]
    assert not diffs, "\n".join(diffs[:10])


# ---- optim ----
def _model(torch, dtype):
    torch.manual_seed(0)
    m = torch.nn.Sequential(torch.nn.Linear(4, 8), torch.nn.Tanh(), torch.nn.Linear(8, 2)).to(dtype)
    x = torch.randn(16, 4, dtype=dtype)
    y = torch.randn(16, 2, dtype=dtype)
    return m, x, y


def _make_lion(torch):
    class Lion(torch.optim.Optimizer):
        def __init__(self, params, lr=1e-4, betas=(0.9, 0.99), weight_decay=0.0):
            if not 0.0 <= lr:
                raise ValueError(f"Invalid learning rate: {lr}")
            defaults = dict(lr=lr, betas=betas, weight_decay=weight_decay)
            super().__init__(params, defaults)

        @torch.no_grad()
        def step(self, closure=None):
            loss = None
            if closure is not None:
                with torch.enable_grad():
                    loss = closure()
            for group in self.param_groups:
                for p in group["params"]:
                    if p.grad is None:
                        continue
                    p.data.mul_(1 - group["lr"] * group["weight_decay"])
                    grad = p.grad
                    state = self.state[p]
                    if len(state) == 0:
                        state["exp_avg"] = torch.zeros_like(p)
                    exp_avg = state["exp_avg"]
                    beta1, beta2 = group["betas"]
                    update = exp_avg * beta1 + grad * (1 - beta1)
                    p.add_(update.sign_(), alpha=-group["lr"])
                    exp_avg.mul_(beta2).add_(grad, alpha=1 - beta2)
            return loss

    return Lion


def prog_lion(torch, r):
    for dtype in (torch.float64, torch.float32):
        m, x, y = _model(torch, dtype)
        Lion = _make_lion(torch)
        opt = Lion(m.parameters(), lr=1e-2, weight_decay=0.1)
        r.add("repr", repr(opt))
        r.add("defaults", opt.defaults)
        for _i in range(5):

            def closure():
                opt.zero_grad()
                loss = torch.nn.functional.mse_loss(m(x), y)
                loss.backward()
                return loss

            loss = opt.step(closure)
            r.add("loss", loss)
            r.add("loss_rg", loss.requires_grad)
        r.add("params", list(m.parameters()))
        sd = opt.state_dict()
        r.add("sd", sd)
        opt2 = Lion(m.parameters(), lr=5.0)
        opt2.load_state_dict(sd)
        r.add("sd2", opt2.state_dict())
        r.add("pg", [{k: v for k, v in g.items() if k != "params"} for g in opt2.param_groups])
        r.err("badlr", lambda: Lion(m.parameters(), lr=-1))


def prog_sam(torch, r):
    class SAM(torch.optim.Optimizer):
        def __init__(self, params, base_optimizer, rho=0.05, adaptive=False, **kwargs):
            assert rho >= 0.0
            defaults = dict(rho=rho, adaptive=adaptive, **kwargs)
            super().__init__(params, defaults)
            self.base_optimizer = base_optimizer(self.param_groups, **kwargs)
            self.param_groups = self.base_optimizer.param_groups
            self.defaults.update(self.base_optimizer.defaults)

        @torch.no_grad()
        def first_step(self, zero_grad=False):
            grad_norm = self._grad_norm()
            for group in self.param_groups:
                scale = group["rho"] / (grad_norm + 1e-12)
                for p in group["params"]:
                    if p.grad is None:
                        continue
                    self.state[p]["old_p"] = p.data.clone()
                    e_w = (torch.pow(p, 2) if group["adaptive"] else 1.0) * p.grad * scale.to(p)
                    p.add_(e_w)
            if zero_grad:
                self.zero_grad()

        @torch.no_grad()
        def second_step(self, zero_grad=False):
            for group in self.param_groups:
                for p in group["params"]:
                    if p.grad is None:
                        continue
                    p.data = self.state[p]["old_p"]
            self.base_optimizer.step()
            if zero_grad:
                self.zero_grad()

        @torch.no_grad()
        def step(self, closure=None):
            assert closure is not None
            closure = torch.enable_grad()(closure)
            self.first_step(zero_grad=True)
            closure()
            self.second_step()

        def _grad_norm(self):
            shared_device = self.param_groups[0]["params"][0].device
            norm = torch.norm(
                torch.stack(
                    [
                        ((torch.abs(p) if group["adaptive"] else 1.0) * p.grad)
                        .norm(p=2)
                        .to(shared_device)
                        for group in self.param_groups
                        for p in group["params"]
                        if p.grad is not None
                    ]
                ),
                p=2,
            )
            return norm

        def load_state_dict(self, state_dict):
            super().load_state_dict(state_dict)
            self.base_optimizer.param_groups = self.param_groups

    for dtype in (torch.float64, torch.float32):
        m, x, y = _model(torch, dtype)
        opt = SAM(m.parameters(), torch.optim.SGD, rho=0.1, adaptive=True, lr=0.1, momentum=0.9)
        r.add("repr", repr(opt))
        for _i in range(4):
            loss = torch.nn.functional.mse_loss(m(x), y)
            loss.backward()
            opt.first_step(zero_grad=True)
            torch.nn.functional.mse_loss(m(x), y).backward()
            opt.second_step(zero_grad=True)
            r.add("loss", loss)

        def closure():
            loss = torch.nn.functional.mse_loss(m(x), y)
            loss.backward()
            return loss

        torch.nn.functional.mse_loss(m(x), y).backward()
        opt.step(closure)
        opt.zero_grad()
        r.add("params", list(m.parameters()))
        sd = opt.state_dict()
        r.add("sdkeys", list(sd["state"].keys()))
        r.add("sdstate0", sorted(sd["state"][0].keys()))
        r.add("groups", sd["param_groups"])
        r.add("base_sd", opt.base_optimizer.state_dict())


def prog_lookahead(torch, r):
    from collections import defaultdict

    class Lookahead(torch.optim.Optimizer):
        def __init__(self, optimizer, k=5, alpha=0.5):
            self.optimizer = optimizer
            self.k = k
            self.alpha = alpha
            self.param_groups = self.optimizer.param_groups
            self.state = defaultdict(dict)
            self.fast_state = self.optimizer.state
            for group in self.param_groups:
                group["counter"] = 0
            self.defaults = optimizer.defaults
            self._optimizer_step_pre_hooks = {}
            self._optimizer_step_post_hooks = {}

        def update(self, group):
            for fast in group["params"]:
                param_state = self.state[fast]
                if "slow_param" not in param_state:
                    param_state["slow_param"] = torch.zeros_like(fast.data)
                    param_state["slow_param"].copy_(fast.data)
                slow = param_state["slow_param"]
                slow += (fast.data - slow) * self.alpha
                fast.data.copy_(slow)

        def step(self, closure=None):
            loss = self.optimizer.step(closure)
            for group in self.param_groups:
                if group["counter"] == 0:
                    self.update(group)
                group["counter"] += 1
                if group["counter"] >= self.k:
                    group["counter"] = 0
            return loss

        def state_dict(self):
            fast_state_dict = self.optimizer.state_dict()
            slow_state = {
                (id(k) if isinstance(k, torch.Tensor) else k): v for k, v in self.state.items()
            }
            fast_state = fast_state_dict["state"]
            param_groups = fast_state_dict["param_groups"]
            return {
                "fast_state": fast_state,
                "slow_state": slow_state,
                "param_groups": param_groups,
            }

    for dtype in (torch.float64, torch.float32):
        m, x, y = _model(torch, dtype)
        inner = torch.optim.Adam(m.parameters(), lr=0.05)
        opt = Lookahead(inner, k=3)
        sched = torch.optim.lr_scheduler.StepLR(opt, step_size=2, gamma=0.5)
        for _i in range(7):
            opt.zero_grad()
            loss = torch.nn.functional.mse_loss(m(x), y)
            loss.backward()
            opt.step()
            sched.step()
            r.add("loss", loss)
            r.add("lr", sched.get_last_lr())
        r.add("params", list(m.parameters()))
        sd = opt.state_dict()
        r.add("fast", sd["fast_state"])
        r.add("pg", sd["param_groups"])
        r.add("inner_pg_counter", [g["counter"] for g in inner.param_groups])
        r.add("zero", opt.zero_grad())
        r.add("grads", [p.grad for p in m.parameters()])


def prog_hooks(torch, r):
    for dtype in (torch.float64, torch.float32):
        m, x, y = _model(torch, dtype)
        Lion = _make_lion(torch)
        opt = Lion(m.parameters(), lr=1e-2)
        log = []
        h1 = opt.register_step_pre_hook(
            lambda o, a, k: log.append(("pre", type(o).__name__, len(a), sorted(k)))
        )
        h2 = opt.register_step_post_hook(lambda o, a, k: log.append(("post", len(a))))
        h3 = opt.register_state_dict_pre_hook(lambda o: log.append("sdpre"))

        def sd_post(o, sd):
            sd["extra"] = 1
            return sd

        h4 = opt.register_state_dict_post_hook(sd_post)

        def lsd_pre(o, sd):
            log.append(("lsdpre", sorted(sd)))
            sd = dict(sd)
            sd.pop("extra", None)
            return sd

        h5 = opt.register_load_state_dict_pre_hook(lsd_pre)
        h6 = opt.register_load_state_dict_post_hook(lambda o: log.append("lsdpost"))
        import importlib

        om = importlib.import_module(torch.__name__ + ".optim.optimizer")
        gh = om.register_optimizer_step_post_hook(lambda o, a, k: log.append("global_post"))
        gh2 = om.register_optimizer_step_pre_hook(lambda o, a, k: log.append("global_pre"))
        for _i in range(2):
            opt.zero_grad()
            torch.nn.functional.mse_loss(m(x), y).backward()
            opt.step()
        opt.step(closure=None)
        sd = opt.state_dict()
        r.add("sdkeys", sorted(sd))
        opt.load_state_dict(sd)
        r.add("log", log)
        for h in (h1, h2, h3, h4, h5, h6, gh, gh2):
            h.remove()
        opt.step()
        r.add("log2", log)
        r.add("params", list(m.parameters()))
        opt.zero_grad(set_to_none=False)
        r.add("grads0", [p.grad for p in m.parameters()])
        opt.zero_grad()
        r.add("grads", [p.grad for p in m.parameters()])


def prog_add_group_sd(torch, r):
    for dtype in (torch.float64, torch.float32):
        m, x, y = _model(torch, dtype)
        Lion = _make_lion(torch)
        params = list(m.named_parameters())
        opt = Lion([{"params": [p for n, p in params[:2]], "tag": "first"}], lr=1e-2)
        opt.add_param_group({"params": [p for n, p in params[2:]], "lr": 0.5, "tag": "second"})
        r.err("dup", lambda: opt.add_param_group({"params": [params[0][1]]}))
        r.err("nolr", lambda: Lion([params[0][1]], lr=None) and None)
        for _i in range(3):
            opt.zero_grad()
            torch.nn.functional.mse_loss(m(x), y).backward()
            opt.step()
        sd = opt.state_dict()
        r.add("sd", sd)
        # named params
        opt3 = Lion([{"params": params[:2]}, {"params": params[2:], "lr": 0.1}], lr=1e-2)
        r.add("named_groups", [g.get("param_names") for g in opt3.param_groups])
        opt3.zero_grad()
        torch.nn.functional.mse_loss(m(x), y).backward()
        opt3.step()
        sd3 = opt3.state_dict()
        r.add("sd3", sd3["param_groups"])
        r.add("st3", sd3["state"])
        opt4 = Lion(m.parameters(), lr=1.0)
        r.err("load_mismatch", lambda: opt4.load_state_dict(sd))
        opt5 = Lion(
            [{"params": [p for n, p in params[:2]]}, {"params": [p for n, p in params[2:]]}], lr=1.0
        )
        opt5.load_state_dict(sd)
        r.add("opt5", opt5.state_dict())
        r.add("opt5_state_types", [type(k).__name__ for k in opt5.state])
        r.add("repr5", repr(opt5))


def prog_setstate(torch, r):
    import io

    Lion = _make_lion(torch)

    class Lion2(Lion):
        def __setstate__(self, state):
            super().__setstate__(state)
            for group in self.param_groups:
                group.setdefault("maximize", False)

    m, x, y = _model(torch, torch.float64)
    opt = Lion2(m.parameters(), lr=1e-2)
    opt.zero_grad()
    torch.nn.functional.mse_loss(m(x), y).backward()
    opt.step()
    st = opt.__getstate__()
    r.add("getstate_keys", sorted(st))
    opt.__setstate__(
        {
            "param_groups": [dict(g) for g in opt.param_groups],
            "state": opt.state,
            "defaults": opt.defaults,
        }
    )
    r.add("groups", [{k: v for k, v in g.items() if k != "params"} for g in opt.param_groups])
    r.add("sd", opt.state_dict())
    buf = io.BytesIO()
    torch.save(opt.state_dict(), buf)
    buf.seek(0)
    sd = torch.load(buf)
    opt2 = Lion2(m.parameters(), lr=3.0)
    opt2.load_state_dict(sd)
    r.add("sd2", opt2.state_dict())
    r.add("state_dtype", [str(v["exp_avg"].dtype) for v in opt2.state.values()])


# ---- optim2 ----
def prog_imports(torch, r):
    om = importlib.import_module(torch.__name__ + ".optim.optimizer")
    names = [
        "Optimizer",
        "required",
        "ParamsT",
        "_use_grad_for_differentiable",
        "_get_value",
        "_dispatch_sqrt",
        "_default_to_fused_or_foreach",
        "_get_scalar_dtype",
        "_capturable_doc",
        "_differentiable_doc",
        "_foreach_doc",
        "_maximize_doc",
        "_params_doc",
        "_stack_if_compiling",
        "_view_as_real",
        "register_optimizer_step_pre_hook",
        "register_optimizer_step_post_hook",
        "StateDict",
        "Kwargs",
        "_fused_doc",
        "_disable_dynamo_if_unsupported",
    ]
    r.add("has", [(n, hasattr(om, n)) for n in names])
    r.add("required", repr(om.required))

    class SGDR(om.Optimizer):
        def __init__(self, params, lr=om.required, momentum=0.0):
            if lr is not om.required and lr < 0.0:
                raise ValueError(f"Invalid learning rate: {lr}")
            super().__init__(params, dict(lr=lr, momentum=momentum, differentiable=False))

        @om._use_grad_for_differentiable
        def step(self, closure=None):
            r.add("grad_enabled", torch.is_grad_enabled())
            for g in self.param_groups:
                for p in g["params"]:
                    if p.grad is not None:
                        p.add_(p.grad, alpha=-g["lr"])

    w = torch.nn.Parameter(torch.ones(2, dtype=torch.float64))
    r.err("req_missing", lambda: SGDR([w]))
    r.err("req_group_missing", lambda: SGDR([{"params": [w]}]))
    o = SGDR([{"params": [w]}, {"params": [torch.nn.Parameter(torch.ones(1))], "lr": 0.3}], lr=0.1)
    r.add("repr", repr(o))
    (w * 3).sum().backward()
    o.step()
    r.add("w", w)
    r.add("gv", om._get_value(torch.tensor(3.0)))


def prog_ctor_errors(torch, r):
    Opt = torch.optim.Optimizer

    class Opt1(Opt):
        def __init__(self, params, **kw):
            super().__init__(params, dict(lr=0.1, **kw))

        def step(self, closure=None):
            pass

    w = torch.nn.Parameter(torch.ones(2))
    r.err("tensor", lambda: Opt1(w))
    r.err("empty", lambda: Opt1([]))
    r.err("empty_gen", lambda: Opt1(p for p in []))
    r.err("nonleaf", lambda: Opt1([w * 2]))
    r.err("notensor", lambda: Opt1([1.0]))
    r.err("set", lambda: Opt1({w}))
    r.warns("dup", lambda: Opt1([w, w]))
    r.err("dict", lambda: Opt1({"params": [w]}))
    r.err("group_set", lambda: Opt1([{"params": {w}}]))
    r.err("overlap", lambda: Opt1([{"params": [w]}, {"params": [w]}]))
    r.err("mixed_named", lambda: Opt1([("a", w), torch.nn.Parameter(torch.ones(1))]))
    o = Opt1([("a", w)])
    r.err("add_unnamed", lambda: o.add_param_group({"params": [torch.nn.Parameter(torch.ones(1))]}))
    o2 = Opt1([w])
    r.err(
        "add_named",
        lambda: o2.add_param_group({"params": [("b", torch.nn.Parameter(torch.ones(1)))]}),
    )
    r.err("zero_params", lambda: Opt1([{"params": []}]))
    r.add("defaults", Opt1([w], momentum=0.5).defaults)
    r.add("repr_named", repr(o))
    r.add("state_type", [type(o.state).__name__, o.state[w]])


def prog_state_cast(torch, r):
    class Custom(torch.optim.Optimizer):
        def __init__(self, params):
            super().__init__(params, dict(lr=0.1))

        @torch.no_grad()
        def step(self, closure=None):
            for g in self.param_groups:
                for p in g["params"]:
                    st = self.state[p]
                    if not st:
                        st["step"] = torch.tensor(0.0)
                        st["ema"] = torch.zeros_like(p, dtype=torch.float32)
                        st["count"] = 0
                        st["idx"] = torch.tensor([1, 2])
                        st["hist"] = [torch.zeros(1)]
                        st["e_w"] = torch.zeros(p.shape, dtype=torch.float16)
                        st["name"] = 7  # (a str: torch 2.13 turns it into a generator on load)
                    st["step"] += 1
                    st["count"] += 1
                    st["ema"].add_(p.grad.float())
                    p.add_(p.grad, alpha=-g["lr"])

    w = torch.nn.Parameter(torch.arange(3, dtype=torch.float64))
    b = torch.nn.Parameter(torch.arange(2, dtype=torch.float16))
    o = Custom([w, b])
    (w.sum() + b.float().sum()).backward()
    o.step()
    sd = o.state_dict()
    r.add("sd", sd)
    w2 = torch.nn.Parameter(torch.zeros(3, dtype=torch.float64))
    b2 = torch.nn.Parameter(torch.zeros(2, dtype=torch.float32))
    o2 = Custom([w2, b2])
    o2.load_state_dict(sd)
    r.add(
        "dtypes",
        [
            [k, str(v.dtype) if hasattr(v, "dtype") else type(v).__name__]
            for st in o2.state.values()
            for k, v in st.items()
        ],
    )
    r.add("hist", [st["hist"][0].dtype for st in o2.state.values()])
    r.add(
        "aliased",
        [
            o2.state[w2]["ema"] is sd["state"][0]["ema"],
            o2.state[w2]["idx"] is sd["state"][0]["idx"],
        ],
    )
    # wrong length groups
    o3 = Custom([w2])
    r.err("len_mismatch", lambda: o3.load_state_dict(sd))
    o4 = Custom([w2, torch.nn.Parameter(torch.zeros(5))])
    r.err("size_mismatch_silent", lambda: o4.load_state_dict(sd))
    r.add("o4", o4.state_dict()["state"])
    # state for a param in a different group order
    sd_bad = {"state": sd["state"], "param_groups": [dict(sd["param_groups"][0], params=[0, 7])]}
    o5 = Custom([w2, b2])
    r.err("bad_index", lambda: o5.load_state_dict(sd_bad))
    r.err("no_groups", lambda: o5.load_state_dict({"state": {}}))


def prog_param_names_sd(torch, r):
    torch.manual_seed(0)
    m = torch.nn.Sequential(torch.nn.Linear(2, 3), torch.nn.Linear(3, 1))
    o = torch.optim.AdamW(m.named_parameters(), lr=0.01)
    m(torch.randn(4, 2)).sum().backward()
    o.step()
    sd = o.state_dict()
    r.add("pg", sd["param_groups"])
    m2 = torch.nn.Sequential(torch.nn.Linear(2, 3), torch.nn.Linear(3, 1))
    o2 = torch.optim.AdamW(m2.parameters(), lr=0.5)
    r.warns("named_into_unnamed", lambda: o2.load_state_dict(sd))
    r.add("pg2", o2.state_dict()["param_groups"])
    o3 = torch.optim.AdamW(list(m2.named_parameters())[::-1], lr=0.5)
    r.warns("names_differ", lambda: o3.load_state_dict(sd))
    r.add("pg3", o3.state_dict()["param_groups"])

    def pre(opt, sd):
        # rename keys: the documented use of param_names
        return sd

    o4 = torch.optim.AdamW(m2.parameters(), lr=0.5)
    o4.step()  # no grads: state stays empty
    r.add("empty_state", o4.state_dict())
    sd_unnamed = o4.state_dict()
    o5 = torch.optim.AdamW(m2.named_parameters(), lr=0.5)
    r.warns("unnamed_into_named", lambda: o5.load_state_dict(sd_unnamed))
    r.add("pg5", o5.state_dict()["param_groups"])


# ---- optim3 ----
def _data(torch, dtype):
    torch.manual_seed(0)
    m = torch.nn.Sequential(torch.nn.Linear(6, 5), torch.nn.GELU(), torch.nn.Linear(5, 3)).to(dtype)
    x = torch.randn(20, 6, dtype=dtype)
    y = torch.randint(0, 3, (20,))
    return m, x, y


def prog_adafactor(torch, r):
    class MyAdafactor(torch.optim.Optimizer):
        def __init__(
            self,
            params,
            lr=None,
            eps=(1e-30, 1e-3),
            clip_threshold=1.0,
            decay_rate=-0.8,
            beta1=None,
            weight_decay=0.0,
            scale_parameter=True,
            relative_step=True,
            warmup_init=False,
        ):
            defaults = dict(
                lr=lr,
                eps=eps,
                clip_threshold=clip_threshold,
                decay_rate=decay_rate,
                beta1=beta1,
                weight_decay=weight_decay,
                scale_parameter=scale_parameter,
                relative_step=relative_step,
                warmup_init=warmup_init,
            )
            super().__init__(params, defaults)

        @staticmethod
        def _get_lr(group, state):
            rel = group["lr"]
            if group["relative_step"]:
                min_step = 1e-6 * state["step"] if group["warmup_init"] else 1e-2
                rel = min(min_step, 1.0 / math.sqrt(state["step"]))
            scale = 1.0
            if group["scale_parameter"]:
                scale = max(group["eps"][1], state["RMS"])
            return scale * rel

        @staticmethod
        def _rms(t):
            return t.norm(2) / (t.numel() ** 0.5)

        @staticmethod
        def _approx_sq_grad(row, col):
            r_factor = (row / row.mean(dim=-1, keepdim=True)).rsqrt_().unsqueeze(-1)
            c_factor = col.unsqueeze(-2).rsqrt()
            return torch.mul(r_factor, c_factor)

        @torch.no_grad()
        def step(self, closure=None):
            for group in self.param_groups:
                for p in group["params"]:
                    if p.grad is None:
                        continue
                    grad = p.grad
                    if grad.dtype in {torch.float16, torch.bfloat16}:
                        grad = grad.float()
                    state = self.state[p]
                    shape = grad.shape
                    factored = len(shape) >= 2
                    use_first = group["beta1"] is not None
                    if len(state) == 0:
                        state["step"] = 0
                        if use_first:
                            state["exp_avg"] = torch.zeros_like(grad)
                        if factored:
                            state["exp_avg_sq_row"] = torch.zeros(shape[:-1]).to(grad)
                            state["exp_avg_sq_col"] = torch.zeros(shape[:-2] + shape[-1:]).to(grad)
                        else:
                            state["exp_avg_sq"] = torch.zeros_like(grad)
                        state["RMS"] = 0
                    state["step"] += 1
                    state["RMS"] = self._rms(p).item()
                    lr = self._get_lr(group, state)
                    beta2t = 1.0 - math.pow(state["step"], group["decay_rate"])
                    update = (grad**2) + group["eps"][0]
                    if factored:
                        state["exp_avg_sq_row"].mul_(beta2t).add_(
                            update.mean(dim=-1), alpha=1.0 - beta2t
                        )
                        state["exp_avg_sq_col"].mul_(beta2t).add_(
                            update.mean(dim=-2), alpha=1.0 - beta2t
                        )
                        update = self._approx_sq_grad(
                            state["exp_avg_sq_row"], state["exp_avg_sq_col"]
                        )
                        update.mul_(grad)
                    else:
                        state["exp_avg_sq"].mul_(beta2t).add_(update, alpha=1.0 - beta2t)
                        update = state["exp_avg_sq"].rsqrt().mul_(grad)
                    update.div_((self._rms(update) / group["clip_threshold"]).clamp_(min=1.0))
                    update.mul_(lr)
                    if use_first:
                        state["exp_avg"].mul_(group["beta1"]).add_(update, alpha=1 - group["beta1"])
                        update = state["exp_avg"]
                    if group["weight_decay"] != 0:
                        p.add_(p, alpha=-group["weight_decay"] * lr)
                    p.add_(-update)

    for dtype in (torch.float64, torch.float32):
        m, x, y = _data(torch, dtype)
        opt = MyAdafactor(m.parameters(), beta1=0.9, weight_decay=0.01)
        for _i in range(6):
            opt.zero_grad()
            loss = torch.nn.functional.cross_entropy(m(x), y)
            loss.backward()
            opt.step()
            r.add("loss", loss)
        r.add("params", list(m.parameters()))
        r.add("state", opt.state_dict()["state"])
        # built-in Adafactor for comparison of the same model
        m, x, y = _data(torch, dtype)
        opt = torch.optim.Adafactor(m.parameters(), lr=0.05, weight_decay=0.01)
        for _i in range(4):
            opt.zero_grad()
            torch.nn.functional.cross_entropy(m(x), y).backward()
            opt.step()
        r.add("builtin", list(m.parameters()))


def prog_lamb(torch, r):
    class Lamb(torch.optim.Optimizer):
        def __init__(
            self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-6, weight_decay=0.0, adam=False
        ):
            super().__init__(params, dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay))
            self.adam = adam

        @torch.no_grad()
        def step(self, closure=None):
            loss = None
            if closure is not None:
                with torch.enable_grad():
                    loss = closure()
            for group in self.param_groups:
                for p in group["params"]:
                    if p.grad is None:
                        continue
                    grad = p.grad.data
                    if grad.is_sparse:
                        raise RuntimeError("no sparse")
                    state = self.state[p]
                    if len(state) == 0:
                        state["step"] = 0
                        state["exp_avg"] = torch.zeros_like(p.data)
                        state["exp_avg_sq"] = torch.zeros_like(p.data)
                    exp_avg, exp_avg_sq = state["exp_avg"], state["exp_avg_sq"]
                    beta1, beta2 = group["betas"]
                    state["step"] += 1
                    exp_avg.mul_(beta1).add_(grad, alpha=1 - beta1)
                    exp_avg_sq.mul_(beta2).addcmul_(grad, grad, value=1 - beta2)
                    step_size = group["lr"]
                    weight_norm = p.data.pow(2).sum().sqrt().clamp(0, 10)
                    adam_step = exp_avg / exp_avg_sq.sqrt().add(group["eps"])
                    if group["weight_decay"] != 0:
                        adam_step.add_(p.data, alpha=group["weight_decay"])
                    adam_norm = adam_step.pow(2).sum().sqrt()
                    if weight_norm == 0 or adam_norm == 0:
                        trust_ratio = 1
                    else:
                        trust_ratio = weight_norm / adam_norm
                    state["weight_norm"] = weight_norm
                    state["adam_norm"] = adam_norm
                    state["trust_ratio"] = trust_ratio
                    if self.adam:
                        trust_ratio = 1
                    p.data.add_(adam_step, alpha=-step_size * trust_ratio)
            return loss

    for dtype in (torch.float64, torch.float32):
        m, x, y = _data(torch, dtype)
        opt = Lamb(m.parameters(), lr=0.02, weight_decay=0.01)
        sch = torch.optim.lr_scheduler.LambdaLR(opt, lambda e: min(1.0, (e + 1) / 3))
        for _i in range(6):
            loss = opt.step(
                lambda: (
                    (
                        opt.zero_grad(),
                        torch.nn.functional.cross_entropy(m(x), y, label_smoothing=0.1),
                    )[1].backward()
                    or None
                )
            )
            sch.step()
        loss = torch.nn.functional.cross_entropy(m(x), y)
        r.add("loss", loss)
        r.add("params", list(m.parameters()))
        r.add("state", opt.state_dict()["state"])
        r.add("lr", sch.get_last_lr())


def prog_shampoo(torch, r):
    class Shampoo(torch.optim.Optimizer):
        def __init__(self, params, lr=0.1, eps=1e-4, update_freq=1):
            super().__init__(params, dict(lr=lr, eps=eps, update_freq=update_freq))

        @staticmethod
        def _inv_root(mat, root):
            vals, vecs = torch.linalg.eigh(mat)
            vals = vals.clamp(min=1e-12).pow(-1.0 / root)
            return vecs @ torch.diag(vals) @ vecs.T

        @torch.no_grad()
        def step(self, closure=None):
            for group in self.param_groups:
                for p in group["params"]:
                    if p.grad is None:
                        continue
                    g = p.grad
                    st = self.state[p]
                    if g.dim() == 1:
                        if "acc" not in st:
                            st["acc"] = torch.zeros_like(p)
                        st["acc"].addcmul_(g, g)
                        p.addcdiv_(g, st["acc"].sqrt().add_(group["eps"]), value=-group["lr"])
                        continue
                    if "L" not in st:
                        st["step"] = 0
                        st["L"] = group["eps"] * torch.eye(g.shape[0], dtype=g.dtype)
                        st["R"] = group["eps"] * torch.eye(g.shape[1], dtype=g.dtype)
                    st["L"].add_(g @ g.T)
                    st["R"].add_(g.T @ g)
                    if st["step"] % group["update_freq"] == 0:
                        st["Li"] = self._inv_root(st["L"], 4)
                        st["Ri"] = self._inv_root(st["R"], 4)
                    st["step"] += 1
                    p.add_(st["Li"] @ g @ st["Ri"], alpha=-group["lr"])

    for dtype in (torch.float64, torch.float32):
        m, x, y = _data(torch, dtype)
        opt = Shampoo(m.parameters(), lr=0.05, update_freq=2)
        for _i in range(5):
            opt.zero_grad()
            loss = torch.nn.functional.cross_entropy(m(x), y)
            loss.backward()
            opt.step()
            r.add("loss", loss)
        r.add("params", list(m.parameters()))


def prog_sophia(torch, r):
    class SophiaG(torch.optim.Optimizer):
        def __init__(
            self,
            params,
            lr=1e-4,
            betas=(0.965, 0.99),
            rho=0.04,
            weight_decay=1e-1,
            *,
            maximize=False,
        ):
            defaults = dict(
                lr=lr, betas=betas, rho=rho, weight_decay=weight_decay, maximize=maximize
            )
            super().__init__(params, defaults)

        def __setstate__(self, state):
            super().__setstate__(state)
            for group in self.param_groups:
                group.setdefault("maximize", False)
            state_values = list(self.state.values())
            step_is_tensor = (len(state_values) != 0) and torch.is_tensor(state_values[0]["step"])
            if not step_is_tensor:
                for s in state_values:
                    s["step"] = torch.tensor(float(s["step"]))

        @torch.no_grad()
        def update_hessian(self):
            for group in self.param_groups:
                beta1, beta2 = group["betas"]
                for p in group["params"]:
                    if p.grad is None:
                        continue
                    state = self.state[p]
                    if len(state) == 0:
                        state["step"] = torch.zeros((1,), dtype=torch.float, device=p.device)
                        state["exp_avg"] = torch.zeros_like(p, memory_format=torch.preserve_format)
                        state["hessian"] = torch.zeros_like(p, memory_format=torch.preserve_format)
                    state["hessian"].mul_(beta2).addcmul_(p.grad, p.grad, value=1 - beta2)

        @torch.no_grad()
        def step(self, closure=None, bs=5120):
            for group in self.param_groups:
                beta1, beta2 = group["betas"]
                for p in group["params"]:
                    if p.grad is None:
                        continue
                    state = self.state[p]
                    if len(state) == 0:
                        state["step"] = torch.zeros((1,), dtype=torch.float, device=p.device)
                        state["exp_avg"] = torch.zeros_like(p, memory_format=torch.preserve_format)
                        state["hessian"] = torch.zeros_like(p, memory_format=torch.preserve_format)
                    grad = p.grad if not group["maximize"] else -p.grad
                    state["step"] += 1
                    p.mul_(1 - group["lr"] * group["weight_decay"])
                    state["exp_avg"].mul_(beta1).add_(grad, alpha=1 - beta1)
                    step_size_neg = -group["lr"]
                    ratio = (
                        state["exp_avg"].abs() / (group["rho"] * bs * state["hessian"] + 1e-15)
                    ).clamp(None, 1)
                    p.addcmul_(state["exp_avg"].sign(), ratio, value=step_size_neg)

    for dtype in (torch.float64, torch.float32):
        m, x, y = _data(torch, dtype)
        opt = SophiaG(m.parameters(), lr=0.01, rho=0.03)
        for i in range(6):
            opt.zero_grad()
            logits = m(x)
            loss = torch.nn.functional.cross_entropy(logits, y)
            loss.backward()
            opt.step(bs=20)
            if i % 2 == 1:
                opt.zero_grad()
                samp = torch.distributions.Categorical(logits=m(x)).sample()
                torch.nn.functional.cross_entropy(m(x), samp).backward()
                opt.update_hessian()
            r.add("loss", loss)
        r.add("params", list(m.parameters()))
        sd = opt.state_dict()
        r.add("state", sd["state"])
        opt2 = SophiaG(m.parameters())
        sd["state"] = {k: dict(v, step=3) for k, v in sd["state"].items()}
        opt2.load_state_dict(sd)
        r.add("steps", [v["step"] for v in opt2.state.values()])


# ---- optim4 ----
def prog_global_state(torch, r):
    class GS(torch.optim.Optimizer):
        def __init__(self, params, lr=0.1):
            super().__init__(params, dict(lr=lr))
            self.state["global_step"] = 0

        @torch.no_grad()
        def step(self, closure=None):
            self.state["global_step"] += 1
            for g in self.param_groups:
                for p in g["params"]:
                    if p.grad is not None:
                        self.state[p].setdefault("n", torch.zeros(()))
                        self.state[p]["n"] += 1
                        p.sub_(g["lr"] * p.grad / self.state["global_step"])

    GS.__qualname__ = GS.__name__ = "GS_" + torch.__name__
    globals()[GS.__name__] = GS
    w = torch.nn.Parameter(torch.ones(2, dtype=torch.float64))
    v = torch.nn.Parameter(torch.ones(3, dtype=torch.float64))
    o = GS([w, v])
    w.grad = torch.full((2,), 0.5, dtype=torch.float64)
    o.step()
    o.step()
    sd = o.state_dict()
    r.add("sd", sd)
    o2 = GS(
        [
            torch.nn.Parameter(torch.zeros(2, dtype=torch.float64)),
            torch.nn.Parameter(torch.zeros(3, dtype=torch.float64)),
        ]
    )
    o2.load_state_dict(sd)
    r.add("sd2", o2.state_dict())
    r.add("keys2", [k if isinstance(k, str) else tuple(k.shape) for k in o2.state])
    buf = io.BytesIO()
    torch.save(o, buf)
    buf.seek(0)
    o3 = torch.load(buf, weights_only=False)
    o3.step()
    r.add("o3", [o3.state_dict(), o3.param_groups[0]["params"][0]])
    o4 = copy.deepcopy(o)
    o4.step()
    r.add("o4", [o4.state_dict()["state"], w, o4.param_groups[0]["params"][0]])
    r.add("repr3", repr(o3))


def prog_tensor_lr(torch, r):
    w = torch.nn.Parameter(torch.ones(3, dtype=torch.float64))

    class Plain(torch.optim.Optimizer):
        def __init__(self, params, lr=torch.tensor(0.1)):  # noqa: B008 - as user code writes it
            super().__init__(params, dict(lr=lr))

        @torch.no_grad()
        def step(self, closure=None):
            for g in self.param_groups:
                for p in g["params"]:
                    p.add_(p.grad * -g["lr"])

    o = Plain([w])
    s = torch.optim.lr_scheduler.ExponentialLR(o, gamma=0.5)
    lr_obj = o.param_groups[0]["lr"]
    for _i in range(3):
        w.grad = torch.ones(3, dtype=torch.float64)
        o.step()
        s.step()
        r.add("lr", [s.get_last_lr(), o.param_groups[0]["lr"], o.param_groups[0]["lr"] is lr_obj])
    r.add("w", w)
    r.add("sd", [s.state_dict()["base_lrs"], s.state_dict()["_last_lr"]])
    r.add("osd", o.state_dict()["param_groups"])
    r.add("repr", repr(o))


def prog_ema(torch, r):
    nn = torch.nn
    sw = torch.optim.swa_utils
    for dtype in (torch.float64, torch.float32):
        torch.manual_seed(0)
        m = nn.Sequential(nn.Linear(3, 4), nn.BatchNorm1d(4), nn.Linear(4, 1)).to(dtype)

        def my_avg(avg, p, n):
            return 0.8 * avg + 0.2 * p

        ema = sw.AveragedModel(m, avg_fn=my_avg, use_buffers=True)
        ema2 = sw.AveragedModel(m, multi_avg_fn=sw.get_ema_multi_avg_fn(0.9))
        opt = torch.optim.SGD(m.parameters(), lr=0.1)
        x = torch.randn(8, 3, dtype=dtype)
        for _i in range(4):
            opt.zero_grad()
            m(x).pow(2).mean().backward()
            opt.step()
            ema.update_parameters(m)
            ema2.update_parameters(m)
        r.add("ema", ema.state_dict())
        r.add("ema2", ema2.state_dict())
        r.add("names", [n for n, _ in ema.named_parameters()][:3])
        loader = [x[:4], x[4:]]
        sw.update_bn(loader, ema2)
        r.add(
            "bn",
            [
                ema2.module[1].running_mean,
                ema2.module[1].running_var,
                ema2.module[1].num_batches_tracked,
            ],
        )
        r.add("ema_out", ema(x))


# ---- sched ----
def _opt(torch):
    torch.manual_seed(0)
    w = torch.nn.Parameter(torch.randn(3, dtype=torch.float64))
    b = torch.nn.Parameter(torch.randn(2, dtype=torch.float64))
    opt = torch.optim.SGD([{"params": [w]}, {"params": [b], "lr": 0.2}], lr=0.1, momentum=0.9)
    return opt, w, b


def _warmcos(torch):
    class WarmupCosine(torch.optim.lr_scheduler.LRScheduler):
        def __init__(self, optimizer, warmup, total, min_lr=0.0, last_epoch=-1):
            self.warmup = warmup
            self.total = total
            self.min_lr = min_lr
            super().__init__(optimizer, last_epoch)

        def get_lr(self):
            if self.last_epoch < self.warmup:
                return [base * (self.last_epoch + 1) / self.warmup for base in self.base_lrs]
            t = (self.last_epoch - self.warmup) / max(1, self.total - self.warmup)
            return [
                self.min_lr + (base - self.min_lr) * 0.5 * (1 + math.cos(math.pi * t))
                for base in self.base_lrs
            ]

    return WarmupCosine


def prog_warmcos(torch, r):
    opt, w, b = _opt(torch)
    S = _warmcos(torch)
    s = S(opt, warmup=3, total=10, min_lr=0.01)
    r.add("init", [g["lr"] for g in opt.param_groups])
    r.add("initial_lr", [g["initial_lr"] for g in opt.param_groups])
    r.add("last", s.get_last_lr())
    r.add("base", s.base_lrs)
    r.add("last_epoch", s.last_epoch)
    for _i in range(12):
        opt.zero_grad()
        (w.sum() ** 2 + b.prod()).backward()
        opt.step()
        s.step()
        r.add("lr", s.get_last_lr())
    sd = s.state_dict()
    r.add("sdkeys", sorted(sd))
    r.add("sd", {k: v for k, v in sd.items() if k not in ("optimizer",)})
    opt2, _, _ = _opt(torch)
    s2 = S(opt2, warmup=1, total=2)
    s2.load_state_dict(sd)
    r.add("s2", [s2.warmup, s2.total, s2.last_epoch, s2.get_last_lr()])
    s2.step()
    r.add("s2lr", [g["lr"] for g in opt2.param_groups])
    r.add("params", [w, b])


def prog_sched_warn(torch, r):

    opt, w, b = _opt(torch)
    S = _warmcos(torch)
    s = S(opt, warmup=2, total=5)
    r.warns("before_opt", lambda: s.step())
    opt.step()
    r.warns("after", lambda: s.step())
    r.warns("epoch_arg", lambda: s.step(3))
    r.add("lr", s.get_last_lr())
    r.err("get_lr_outside", lambda: s.get_lr())
    r.warns("get_lr_warn", lambda: s.get_lr())
    # resume with last_epoch without initial_lr
    opt3, _, _ = _opt(torch)
    r.err("resume_no_initial", lambda: S(opt3, warmup=2, total=5, last_epoch=3))
    # verbose
    opt4, _, _ = _opt(torch)

    class S2(torch.optim.lr_scheduler.LRScheduler):
        def get_lr(self):
            return [g["lr"] * 0.5 for g in self.optimizer.param_groups]

    r.warns("verbose", lambda: S2(opt4, verbose=True))
    r.add("lr4", [g["lr"] for g in opt4.param_groups])
    opt4.step()
    sch = S2(opt4)
    sch.step()
    sch.step()
    r.add("lr4b", [g["lr"] for g in opt4.param_groups])
    r.add("repr_type", type(sch).__mro__[1].__name__)
    r.err("not_opt", lambda: S2([w]))


def prog_closed_form(torch, r):
    class Halving(torch.optim.lr_scheduler.LRScheduler):
        def __init__(self, optimizer, every=2, last_epoch=-1):
            self.every = every
            super().__init__(optimizer, last_epoch)

        def get_lr(self):
            if self.last_epoch == 0 or self.last_epoch % self.every:
                return [g["lr"] for g in self.optimizer.param_groups]
            return [g["lr"] * 0.5 for g in self.optimizer.param_groups]

        def _get_closed_form_lr(self):
            return [base * 0.5 ** (self.last_epoch // self.every) for base in self.base_lrs]

    opt, w, b = _opt(torch)
    s = Halving(opt, every=3)
    for _i in range(7):
        opt.step()
        s.step()
        r.add("lr", s.get_last_lr())
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        s.step(10)
    r.add("lr_epoch", s.get_last_lr())
    # Chained/Sequential with a custom scheduler
    opt2, _, _ = _opt(torch)
    s1 = Halving(opt2, every=2)
    s2 = torch.optim.lr_scheduler.ExponentialLR(opt2, gamma=0.9)
    ch = torch.optim.lr_scheduler.ChainedScheduler([s1, s2])
    for _i in range(5):
        opt2.step()
        ch.step()
        r.add("chained", ch.get_last_lr())
    r.add(
        "ch_sd",
        {
            k: (v if k != "_schedulers" else [sorted(x) for x in v])
            for k, v in ch.state_dict().items()
        },
    )
    opt3, _, _ = _opt(torch)
    W = _warmcos(torch)
    a = W(opt3, warmup=2, total=6)
    c = Halving(opt3, every=2)
    seq = torch.optim.lr_scheduler.SequentialLR(opt3, [a, c], milestones=[4])
    for _i in range(9):
        opt3.step()
        seq.step()
        r.add("seq", seq.get_last_lr())
    r.add("seq_sd_keys", sorted(seq.state_dict()))
    r.add("seq_sd_sched", [sorted(x) for x in seq.state_dict()["_schedulers"]])


def prog_custom_opt_sched(torch, r):
    class Signum(torch.optim.Optimizer):
        def __init__(self, params, lr=0.01, momentum=0.9):
            super().__init__(params, dict(lr=lr, momentum=momentum))

        @torch.no_grad()
        def step(self, closure=None):
            for g in self.param_groups:
                for p in g["params"]:
                    if p.grad is None:
                        continue
                    st = self.state[p]
                    if "buf" not in st:
                        st["buf"] = p.grad.clone()
                        st["step"] = torch.tensor(0.0)
                    st["step"] += 1
                    st["buf"].mul_(g["momentum"]).add_(p.grad, alpha=1 - g["momentum"])
                    p.add_(torch.sign(st["buf"]), alpha=-g["lr"])

    for dtype in (torch.float64, torch.float32):
        torch.manual_seed(1)
        m = torch.nn.Linear(3, 2).to(dtype)
        opt = Signum(m.parameters(), lr=0.1)
        sch = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=0.5, total_steps=8)
        r.add("mom", [g.get("momentum") for g in opt.param_groups])
        x = torch.randn(5, 3, dtype=dtype)
        for i in range(8):
            opt.zero_grad()
            m(x).pow(2).mean().backward()
            opt.step()
            sch.step() if i < 7 else None
            r.add("lr", sch.get_last_lr())
            r.add("mom", [g.get("momentum") for g in opt.param_groups])
        r.add("params", list(m.parameters()))
        r.add("state", opt.state_dict()["state"])
        r.add("pg", opt.state_dict()["param_groups"])
        plat = torch.optim.lr_scheduler.ReduceLROnPlateau(opt, patience=0, factor=0.5)
        for v in [1.0, 1.0, 0.5, 0.6, 0.7]:
            plat.step(v)
            r.add("plat", plat.get_last_lr())
        r.add("plat_sd", {k: v for k, v in plat.state_dict().items() if k != "mode_worse"})


# ---- data ----
def prog_bucket(torch, r):
    D = torch.utils.data

    class Seqs(D.Dataset):
        def __init__(self, n):
            g = torch.Generator().manual_seed(3)
            self.lens = torch.randint(1, 9, (n,), generator=g).tolist()

        def __len__(self):
            return len(self.lens)

        def __getitem__(self, i):
            return {"ids": torch.arange(self.lens[i]) + i, "len": self.lens[i], "idx": i}

    class BucketSampler(D.Sampler):
        def __init__(self, lengths, batch_size, generator=None):
            self.lengths, self.bs, self.g = lengths, batch_size, generator

        def __iter__(self):
            order = torch.randperm(len(self.lengths), generator=self.g).tolist()
            chunks = [order[i : i + self.bs * 4] for i in range(0, len(order), self.bs * 4)]
            batches = []
            for c in chunks:
                c = sorted(c, key=lambda j: self.lengths[j])
                batches += [c[i : i + self.bs] for i in range(0, len(c), self.bs)]
            perm = torch.randperm(len(batches), generator=self.g).tolist()
            for p in perm:
                yield batches[p]

        def __len__(self):
            return sum(1 for _ in range(0, len(self.lengths), self.bs))

    def collate(items):
        ids = torch.nn.utils.rnn.pad_sequence(
            [it["ids"] for it in items], batch_first=True, padding_value=-1
        )
        return {
            "ids": ids,
            "lens": torch.tensor([it["len"] for it in items]),
            "idx": [it["idx"] for it in items],
        }

    ds = Seqs(23)
    g = torch.Generator().manual_seed(7)
    dl = D.DataLoader(ds, batch_sampler=BucketSampler(ds.lens, 4, g), collate_fn=collate)
    r.add("len", len(dl))
    for _ep in range(2):
        for b in dl:
            r.add("b", b)
    dl2 = D.DataLoader(
        ds,
        batch_size=5,
        shuffle=True,
        generator=torch.Generator().manual_seed(1),
        collate_fn=lambda x: [i["idx"] for i in x],
        drop_last=True,
    )
    r.add("dl2", list(dl2))
    r.add("len2", len(dl2))
    r.err("dl_default_collate", lambda: next(iter(D.DataLoader(ds, batch_size=3))))
    r.err("bad", lambda: D.DataLoader(ds, batch_sampler=BucketSampler(ds.lens, 4), batch_size=3))
    r.err("bad2", lambda: D.DataLoader(ds, sampler=[1, 2], shuffle=True))


def prog_distributed(torch, r):
    D = torch.utils.data
    ds = D.TensorDataset(torch.arange(10.0), torch.arange(10) % 3)
    for shuffle in (True, False):
        for drop_last in (False, True):
            for rank in range(3):
                s = D.distributed.DistributedSampler(
                    ds, num_replicas=3, rank=rank, shuffle=shuffle, seed=5, drop_last=drop_last
                )
                row = [len(s), s.num_samples, s.total_size]
                for ep in range(2):
                    s.set_epoch(ep)
                    row.append(list(s))
                r.add("ds", row)
    r.err("badrank", lambda: D.distributed.DistributedSampler(ds, num_replicas=3, rank=3))
    r.err("badrank2", lambda: D.distributed.DistributedSampler(ds, num_replicas=3, rank=-1))
    s = D.distributed.DistributedSampler(ds, num_replicas=2, rank=1, seed=3)
    dl = D.DataLoader(ds, batch_size=3, sampler=s)
    s.set_epoch(4)
    r.add("dl", list(dl))


def prog_iterable(torch, r):
    D = torch.utils.data

    class Stream(D.IterableDataset):
        def __init__(self, n):
            super().__init__()
            self.n = n

        def __iter__(self):
            info = D.get_worker_info()
            assert info is None
            g = torch.Generator().manual_seed(11)
            for i in range(self.n):
                yield torch.randn(2, generator=g), i

    ds = Stream(7)
    r.add("batches", list(D.DataLoader(ds, batch_size=3)))
    r.add("nobatch", list(D.DataLoader(ds, batch_size=None))[:2])
    r.err("shuffle", lambda: D.DataLoader(ds, shuffle=True))
    r.err("sampler", lambda: D.DataLoader(ds, sampler=[0, 1]))
    r.err("len", lambda: len(D.DataLoader(ds, batch_size=2)))
    chained = D.ChainDataset([Stream(2), Stream(3)])
    r.add("chain", [x[1] for x in chained])
    r.add("concat_iter", [x[1] for x in Stream(2) + Stream(1)])
    seen = []
    dl = D.DataLoader(
        D.TensorDataset(torch.arange(4)),
        batch_size=2,
        num_workers=0,
        worker_init_fn=lambda w: seen.append(w),
    )
    r.add("wi", [list(dl), seen])

    class Bad(D.Dataset):
        pass

    r.err("abstract", lambda: Bad()[0])
    r.err("badlen", lambda: len(Bad()))
    sub = D.Subset(D.TensorDataset(torch.arange(10) * 2), [3, 1, 4])
    r.add("subset", [sub[i] for i in range(len(sub))])
    r.add("subset_list", sub[[0, 2]])
    tr, va = D.random_split(range(10), [0.7, 0.3], generator=torch.Generator().manual_seed(2))
    r.add("split", [list(tr), list(va)])
    r.add(
        "concat",
        [
            len(D.ConcatDataset([sub, sub])),
            D.ConcatDataset([sub, sub])[4],
            D.ConcatDataset([sub, sub]).cumulative_sizes,
        ],
    )


def prog_samplers(torch, r):
    D = torch.utils.data

    class EveryOther(D.Sampler):
        def __init__(self, n):
            self.n = n

        def __iter__(self):
            return iter(range(0, self.n, 2))

        def __len__(self):
            return (self.n + 1) // 2

    bs = D.BatchSampler(EveryOther(11), batch_size=2, drop_last=False)
    r.add("bs", [list(bs), len(bs)])
    bs2 = D.BatchSampler(EveryOther(11), batch_size=2, drop_last=True)
    r.add("bs2", [list(bs2), len(bs2)])
    r.err("bs_bad", lambda: D.BatchSampler(EveryOther(3), batch_size=0, drop_last=False))
    r.err("bs_bad2", lambda: D.BatchSampler(EveryOther(3), batch_size=2, drop_last=1))
    g = torch.Generator().manual_seed(0)
    w = D.WeightedRandomSampler([0.1, 0.5, 2.0, 1.0], num_samples=9, replacement=True, generator=g)
    r.add("wrs", [list(w), list(w)])
    w2 = D.WeightedRandomSampler(
        torch.tensor([0.1, 0.5, 2.0, 1.0], dtype=torch.float64),
        num_samples=3,
        replacement=False,
        generator=torch.Generator().manual_seed(0),
    )
    r.add("wrs2", list(w2))
    rs = D.RandomSampler(
        range(6), replacement=True, num_samples=10, generator=torch.Generator().manual_seed(4)
    )
    r.add("rs", list(rs))
    rs2 = D.RandomSampler(range(6), num_samples=14, generator=torch.Generator().manual_seed(4))
    r.add("rs2", list(rs2))
    srs = D.SubsetRandomSampler([10, 20, 30, 40], generator=torch.Generator().manual_seed(4))
    r.add("srs", [list(srs), len(srs)])
    torch.manual_seed(9)
    r.add("rs_global", list(D.RandomSampler(range(8))))
    r.add("dl_global", list(D.DataLoader(range(8), batch_size=3, shuffle=True)))

    class ListDS(D.Dataset):
        def __getitem__(self, idx):
            return [idx, idx * 2] if isinstance(idx, int) else ("many", list(idx))

        def __len__(self):
            return 5

        def __getitems__(self, idxs):
            return [("g", i) for i in idxs]

    r.add("getitems", list(D.DataLoader(ListDS(), batch_size=2)))
    r.add("getitems_nb", list(D.DataLoader(ListDS(), batch_size=None))[:2])


# ---- module ----
def prog_version_migration(torch, r):
    nn = torch.nn

    class Block(nn.Module):
        _version = 2

        def __init__(self):
            super().__init__()
            self.proj = nn.Linear(3, 4)
            self.norm = nn.LayerNorm(4)
            self.register_buffer("scale", torch.ones(4))
            self.register_buffer("cache", torch.zeros(2), persistent=False)

        def _load_from_state_dict(
            self,
            state_dict,
            prefix,
            local_metadata,
            strict,
            missing_keys,
            unexpected_keys,
            error_msgs,
        ):
            version = local_metadata.get("version", None)
            r.add("meta", [prefix, dict(local_metadata), strict])
            if version is None or version < 2:
                old = prefix + "fc.weight"
                if old in state_dict:
                    state_dict[prefix + "proj.weight"] = state_dict.pop(old)
                    state_dict[prefix + "proj.bias"] = state_dict.pop(prefix + "fc.bias")
                if prefix + "scale" not in state_dict:
                    state_dict[prefix + "scale"] = torch.full((4,), 2.0)
            super()._load_from_state_dict(
                state_dict,
                prefix,
                local_metadata,
                strict,
                missing_keys,
                unexpected_keys,
                error_msgs,
            )

        def forward(self, x):
            return self.norm(self.proj(x)) * self.scale

    torch.manual_seed(0)
    net = nn.Sequential(Block(), nn.ReLU(), Block() if False else nn.Linear(4, 1))
    sd = net.state_dict()
    r.add("keys", list(sd.keys()))
    r.add("metadata", dict(sd._metadata))
    old = {k.replace("0.proj", "0.fc"): v for k, v in sd.items() if k != "0.scale"}
    import collections

    old = collections.OrderedDict(old)
    old._metadata = collections.OrderedDict({"": {"version": 1}, "0": {"version": 1}})
    torch.manual_seed(1)
    net2 = nn.Sequential(Block(), nn.ReLU(), nn.Linear(4, 1))
    res = net2.load_state_dict(old)
    r.add("res", [res.missing_keys, res.unexpected_keys, repr(res)])
    r.add("sd2", net2.state_dict())
    bad = dict(sd)
    bad["0.proj.weight"] = torch.zeros(2, 2)
    bad["extra"] = torch.zeros(1)
    r.err("bad", lambda: net2.load_state_dict(bad))
    res2 = net2.load_state_dict({k: v for k, v in sd.items() if "norm" not in k}, strict=False)
    r.add("res2", [res2.missing_keys, res2.unexpected_keys])


def prog_hooks_sd(torch, r):
    nn = torch.nn

    class Renamed(nn.Module):
        def __init__(self):
            super().__init__()
            self.lin = nn.Linear(2, 2)
            self.tag = "abc"
            self._register_state_dict_hook(Renamed._sd_hook)
            self._register_load_state_dict_pre_hook(Renamed._pre_hook, with_module=True)
            self.register_load_state_dict_post_hook(Renamed._post_hook)

        @staticmethod
        def _sd_hook(module, state_dict, prefix, local_metadata):
            for k in list(state_dict):
                if k.startswith(prefix + "lin."):
                    state_dict[k.replace(prefix + "lin.", prefix + "linear.")] = state_dict.pop(k)
            state_dict[prefix + "tag"] = module.tag

        @staticmethod
        def _pre_hook(
            module,
            state_dict,
            prefix,
            local_metadata,
            strict,
            missing_keys,
            unexpected_keys,
            error_msgs,
        ):
            for k in list(state_dict):
                if k.startswith(prefix + "linear."):
                    state_dict[k.replace(prefix + "linear.", prefix + "lin.")] = state_dict.pop(k)
            module.tag = state_dict.pop(prefix + "tag", module.tag)

        @staticmethod
        def _post_hook(module, incompatible_keys):
            r.add(
                "post",
                [list(incompatible_keys.missing_keys), list(incompatible_keys.unexpected_keys)],
            )

    torch.manual_seed(0)
    outer = nn.ModuleDict({"a": Renamed(), "b": nn.Linear(2, 1)})
    sd = outer.state_dict()
    r.add("keys", list(sd))
    r.add("sd", sd)
    sd["a.tag"] = "xyz"
    torch.manual_seed(5)
    outer2 = nn.ModuleDict({"a": Renamed(), "b": nn.Linear(2, 1)})
    r.add("res", repr(outer2.load_state_dict(sd)))
    r.add("tag", outer2["a"].tag)
    r.add("p", list(outer2.parameters()))
    # public hooks (2.x)
    m = nn.Linear(2, 2)
    calls = []
    h1 = m.register_state_dict_pre_hook(
        lambda mod, prefix, keep_vars: calls.append(("pre", prefix, keep_vars))
    )
    h2 = m.register_state_dict_post_hook(
        lambda mod, sd, prefix, meta: calls.append(("post", prefix, sorted(sd)))
    )
    h3 = m.register_load_state_dict_pre_hook(
        lambda mod, sd, prefix, meta, strict, mk, uk, em: calls.append(("lpre", prefix, strict))
    )
    m.state_dict(prefix="x.", keep_vars=True)
    m.load_state_dict(m.state_dict(), strict=False)
    r.add("calls", calls)
    h1.remove()
    h2.remove()
    h3.remove()
    m.state_dict()
    r.add("calls2", len(calls))

    def bad_post(mod, inc):
        inc.missing_keys.append("zzz")

    m.register_load_state_dict_post_hook(bad_post)
    r.err("post_strict", lambda: m.load_state_dict(m.state_dict()))


def prog_extra_state(torch, r):
    nn = torch.nn

    class Quant(nn.Module):
        def __init__(self):
            super().__init__()
            self.w = nn.Parameter(torch.arange(4.0))
            self.calib = {"scale": 0.5, "hist": [1, 2]}

        def get_extra_state(self):
            return {"calib": dict(self.calib), "t": torch.tensor([1.0, 2.0])}

        def set_extra_state(self, state):
            self.calib = state["calib"]
            self.t = state["t"]

    m = nn.Sequential(Quant(), nn.Identity())
    sd = m.state_dict()
    r.add("keys", list(sd))
    r.add("extra", sd["0._extra_state"])
    sd["0._extra_state"]["calib"]["scale"] = 3.0
    m2 = nn.Sequential(Quant(), nn.Identity())
    r.add("res", repr(m2.load_state_dict(sd)))
    r.add("calib", [m2[0].calib, m2[0].t])
    sd2 = dict(sd)
    del sd2["0._extra_state"]
    r.err("missing_extra", lambda: m2.load_state_dict(sd2))
    buf = io.BytesIO()
    torch.save(sd, buf)
    buf.seek(0)
    r.add("loaded", list(torch.load(buf, weights_only=False)))
    buf.seek(0)
    r.err("weights_only", lambda: list(torch.load(buf)))

    class NoSet(nn.Module):
        def get_extra_state(self):
            return 1

    r.err("noset", lambda: NoSet().load_state_dict({"_extra_state": 1}))


def prog_getattr_props(torch, r):
    nn = torch.nn

    class Wrapper(nn.Module):
        def __init__(self, inner):
            super().__init__()
            self.inner = inner

        def __getattr__(self, name):
            try:
                return super().__getattr__(name)
            except AttributeError:
                return getattr(self.inner, name)

        @property
        def out_features(self):
            return self.inner.out_features * 10

        def forward(self, x):
            return self.inner(x)

    torch.manual_seed(0)
    w = Wrapper(nn.Linear(3, 2))
    r.add("weight", w.weight)
    r.add("in", w.in_features)
    r.add("out", w.out_features)
    r.err("missing", lambda: w.nope)
    r.add("repr", repr(w))
    r.add("named", [n for n, _ in w.named_parameters()])

    class PropErr(nn.Module):
        def __init__(self):
            super().__init__()
            self.lin = nn.Linear(1, 1)

        @property
        def broken(self):
            return self.does_not_exist

    r.err("prop_err", lambda: PropErr().broken)
    r.err("set_param_wrong", lambda: setattr(PropErr(), "lin", torch.zeros(1)))
    p = PropErr()
    r.err("assign_tensor_to_param", lambda: p.register_parameter("lin", None))
    r.err("reg_buffer_bad", lambda: p.register_buffer("a.b", torch.zeros(1)))
    r.err("reg_buffer_bad2", lambda: p.register_buffer("lin", torch.zeros(1)))
    r.err("reg_buffer_bad3", lambda: p.register_buffer("x", [1]))
    r.err("add_module_bad", lambda: p.add_module("x", 3))
    r.err(
        "before_init",
        lambda: type(
            "M", (nn.Module,), {"__init__": lambda self: setattr(self, "l", nn.Linear(1, 1))}
        )(),
    )

    class NoInit(nn.Module):
        def __init__(self):
            self.x = 1

    r.err("before_init_plain", lambda: NoInit().x)

    class NoInit2(nn.Module):
        def __init__(self):
            self.x = nn.Parameter(torch.zeros(1))

    r.err("before_init_param", lambda: NoInit2())
    r.err("call_no_forward", lambda: nn.Module()(1))


def prog_deepcopy_pickle(torch, r):
    nn = torch.nn

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.l = nn.Linear(2, 2)
            self.act = lambda x: x.clamp(min=0)
            self.register_buffer("steps", torch.tensor(0))

        def forward(self, x):
            self.steps += 1
            return self.act(self.l(x))

        def __getstate__(self):
            st = self.__dict__.copy()
            st.pop("act")
            return st

        def __setstate__(self, st):
            super().__setstate__(st)
            self.act = torch.relu

    Net.__qualname__ = Net.__name__ = "Net_" + torch.__name__
    globals()[Net.__name__] = Net
    torch.manual_seed(0)
    n = Net()
    log = []
    n.register_forward_hook(lambda m, i, o: log.append(tuple(o.shape)))
    n.l.register_forward_pre_hook(lambda m, i: None)
    x = torch.randn(3, 2)
    n(x)
    n2 = copy.deepcopy(n)
    n2(x)
    r.add("log", log)
    r.add("steps", [n.steps, n2.steps])
    r.add("shared", n2.l.weight is n.l.weight)
    r.add("hooks", [len(n2._forward_hooks), len(n2.l._forward_pre_hooks)])
    buf = io.BytesIO()
    n3 = Net()
    n3.load_state_dict(n.state_dict())
    n3._forward_hooks.clear()
    torch.save(n3, buf)
    buf.seek(0)
    n4 = torch.load(buf, weights_only=False)
    r.add("n4", [type(n4).__name__, n4(x), n4.steps, n4.act is torch.relu])
    r.add("repr", repr(n4))
    buf.seek(0)
    r.err("wo", lambda: torch.load(buf))
    s = pickle.dumps(n3)
    n5 = pickle.loads(s)
    r.add("n5", n5(x))


def prog_apply_reset(torch, r):
    nn = torch.nn

    class MyLinear(nn.Module):
        def __init__(self, i, o, dtype=None):
            super().__init__()
            self.weight = nn.Parameter(torch.empty(o, i, dtype=dtype))
            self.bias = nn.Parameter(torch.empty(o, dtype=dtype))
            self.reset_parameters()

        def reset_parameters(self):
            nn.init.kaiming_uniform_(self.weight, a=math.sqrt(5))
            fan_in, _ = nn.init._calculate_fan_in_and_fan_out(self.weight)
            bound = 1 / math.sqrt(fan_in) if fan_in > 0 else 0
            nn.init.uniform_(self.bias, -bound, bound)

        def forward(self, x):
            return nn.functional.linear(x, self.weight, self.bias)

        def extra_repr(self):
            return f"in={self.weight.shape[1]}, out={self.weight.shape[0]}"

    class Keeper(nn.Module):
        def __init__(self):
            super().__init__()
            self.lin = MyLinear(3, 2)
            self.register_buffer("mask", torch.tensor([True, False]))
            self.calls = []

        def _apply(self, fn, recurse=True):
            self.calls.append("apply")
            return super()._apply(fn, recurse)

    for dtype in (torch.float64, torch.float32):
        torch.manual_seed(0)
        k = Keeper()
        r.add("init", list(k.parameters()))
        k = k.to(dtype)
        r.add("dt", [str(p.dtype) for p in k.parameters()] + [str(k.mask.dtype)])
        k.half().float() if dtype == torch.float32 else k.double()
        r.add("calls", k.calls)
        k.apply(lambda m: m.reset_parameters() if hasattr(m, "reset_parameters") else None)
        r.add("reset", list(k.parameters()))
        r.add("repr", repr(k))
        k.requires_grad_(False)
        r.add("rg", [p.requires_grad for p in k.parameters()])
        r.add("train", [k.training, k.eval().training, k.lin.training])
        k.zero_grad()
        r.add("n_mods", [n for n, _ in k.named_modules()])
        r.add("buffers", list(k.named_buffers()))
        r.add("get_sub", repr(k.get_submodule("lin")))
        r.err("get_sub_bad", lambda: k.get_submodule("lin.foo"))
        r.err("get_param_bad", lambda: k.get_parameter("lin.foo"))
        r.add("get_buf", k.get_buffer("mask"))


# ---- module2 ----
def prog_param_module(torch, r):
    nn = torch.nn
    P = nn.utils.parametrize

    class Symmetric(nn.Module):
        def forward(self, X):
            return X.triu() + X.triu(1).transpose(-1, -2)

        def right_inverse(self, A):
            return A.triu()

    class Scale(nn.Module):
        def __init__(self, s):
            super().__init__()
            self.s = nn.Parameter(torch.tensor(s))

        def forward(self, X):
            return X * self.s

        def right_inverse(self, A):
            return A / self.s

    for dtype in (torch.float64, torch.float32):
        torch.manual_seed(0)
        lin = nn.Linear(3, 3).to(dtype)
        P.register_parametrization(lin, "weight", Symmetric())
        P.register_parametrization(lin, "weight", Scale(2.0 if dtype == torch.float64 else 0.5))
        r.add("names", [n for n, _ in lin.named_parameters()])
        r.add("sd", list(lin.state_dict()))
        r.add("w", lin.weight)
        r.add("repr", repr(lin))
        r.add("type", type(lin).__name__)
        x = torch.randn(2, 3, dtype=dtype)
        lin(x).pow(2).sum().backward()
        r.add("grads", [p.grad for p in lin.parameters()])
        r.add("is_p", [P.is_parametrized(lin), P.is_parametrized(lin, "bias")])
        with P.cached():
            a = lin.weight
            b = lin.weight
            r.add("cached_same", a is b)
        lin.weight = torch.eye(3, dtype=dtype) * 3
        r.add("orig", lin.parametrizations.weight.original)
        r.add("w2", lin.weight)
        sd = lin.state_dict()
        torch.manual_seed(1)
        lin2 = nn.Linear(3, 3).to(dtype)
        P.register_parametrization(lin2, "weight", Symmetric())
        P.register_parametrization(lin2, "weight", Scale(1.0))
        r.add("load", repr(lin2.load_state_dict(sd)))
        r.add("w3", lin2.weight)
        P.remove_parametrizations(lin2, "weight", leave_parametrized=True)
        r.add(
            "after_remove",
            [type(lin2).__name__, [n for n, _ in lin2.named_parameters()], lin2.weight],
        )
        r.err("remove_again", lambda: P.remove_parametrizations(lin2, "weight"))
        lin3 = copy.deepcopy(lin)
        r.add("deepcopy", [type(lin3).__name__, lin3.weight])


def prog_tied(torch, r):
    nn = torch.nn

    class LM(nn.Module):
        def __init__(self):
            super().__init__()
            self.emb = nn.Embedding(5, 4)
            self.head = nn.Linear(4, 5, bias=False)
            self.head.weight = self.emb.weight
            self.blocks = nn.ModuleList([nn.Linear(4, 4) for _ in range(2)])
            self.blocks.append(self.blocks[0])

        def forward(self, idx):
            h = self.emb(idx)
            for b in self.blocks:
                h = torch.tanh(b(h))
            return self.head(h)

    torch.manual_seed(0)
    m = LM()
    r.add("np", [n for n, _ in m.named_parameters()])
    r.add("np_dup", [n for n, _ in m.named_parameters(remove_duplicate=False)])
    r.add("nm", [n for n, _ in m.named_modules()])
    r.add("nm_dup", [n for n, _ in m.named_modules(remove_duplicate=False)])
    r.add("sd", list(m.state_dict()))
    r.add("children", len(list(m.children())))
    out = m(torch.tensor([[1, 2, 3]]))
    out.sum().backward()
    r.add("g", m.emb.weight.grad)
    r.add("blocks_slice", [type(m.blocks[1:]).__name__, len(m.blocks[1:]), repr(m.blocks)])
    sd = m.state_dict()
    m2 = LM()
    m2.load_state_dict(sd, assign=True)
    r.add("assign_tie", [m2.head.weight is m2.emb.weight, m2.emb.weight is sd["emb.weight"]])
    fc = torch.func.functional_call(m, {"emb.weight": torch.ones(5, 4)}, (torch.tensor([0, 1]),))
    r.add("fc", fc)
    r.add(
        "fc_tied",
        torch.func.functional_call(
            m, {"emb.weight": torch.ones(5, 4)}, (torch.tensor([0]),), tie_weights=False
        ),
    )
    del m.blocks[2]
    r.add("del", [len(m.blocks), [n for n, _ in m.named_parameters()][-4:]])
    m.blocks.insert(0, nn.Identity())
    m.blocks.extend([nn.ReLU()])
    r.add("ml", repr(m.blocks))
    r.err("ml_bad", lambda: m.blocks[10])
    r.err("ml_bad2", lambda: m.blocks.append(3))


def prog_moduledict_sub(torch, r):
    nn = torch.nn

    class Heads(nn.ModuleDict):
        def __init__(self, names, d):
            super().__init__({n: nn.Linear(d, 1) for n in names})

        def forward(self, x):
            return {k: m(x).squeeze(-1) for k, m in self.items()}

    class Seq(nn.Sequential):
        def forward(self, x):
            for m in self:
                x = m(x) + x if isinstance(m, nn.Linear) else m(x)
            return x

    torch.manual_seed(0)
    h = Heads(["b", "a"], 3)
    x = torch.randn(2, 3)
    r.add("heads", h(x))
    r.add("keys", list(h.keys()))
    h.update([("c", nn.Linear(3, 1))])
    h["a"] = nn.Linear(3, 1)
    r.add("keys2", list(h.keys()))
    r.add("repr", repr(h))
    r.add("pop", [type(h.pop("b")).__name__, list(h)])
    r.err("badkey", lambda: h["zz"])
    r.err("badtype", lambda: h.update(3))
    s = Seq(nn.Linear(3, 3), nn.ReLU(), nn.Linear(3, 3))
    r.add("seq", s(x))
    r.add("seq_slice", [type(s[0:2]).__name__, repr(s[0:2])])
    s2 = Seq(collections.OrderedDict([("fc", nn.Linear(3, 3)), ("act", nn.Tanh())]))
    r.add("seq2", [s2(x), repr(s2.fc), [n for n, _ in s2.named_children()]])
    r.add("seq_add", type(s + s2).__name__ if hasattr(s, "__add__") else None)
    r.add("seq_mul", len(s2 * 2))
    s2.append(nn.Identity())
    r.add("seq_names", list(s2._modules))
    r.err("seq_bad_idx", lambda: s2[7])
    pd = nn.ParameterDict({"w": nn.Parameter(torch.ones(2)), "t": torch.zeros(1)})
    r.add(
        "pd",
        [repr(pd), [type(v).__name__ for v in pd.values()], [n for n, _ in pd.named_parameters()]],
    )
    pl = nn.ParameterList([torch.ones(1), nn.Parameter(torch.zeros(2)), "str"])
    r.add("pl", [repr(pl), len(pl), [n for n, _ in pl.named_parameters()]])


def prog_collate(torch, r):
    D = torch.utils.data
    from importlib import import_module

    C = import_module(torch.__name__ + ".utils.data._utils.collate")
    Point = collections.namedtuple("Point", ["x", "y"])

    @dataclasses.dataclass
    class Ex:
        a: int

    batch = [
        {"p": Point(torch.tensor([1.0]), 2), "s": "a", "n": 1.5, "l": [1, 2]},
        {"p": Point(torch.tensor([3.0]), 4), "s": "b", "n": 2.5, "l": [3, 4]},
    ]
    r.add("dc", D.default_collate(batch))
    r.add("dc_type", type(D.default_collate(batch)["p"]).__name__)
    r.err("dc_obj", lambda: D.default_collate([Ex(1), Ex(2)]))
    r.err("dc_ragged", lambda: D.default_collate([[1, 2], [3]]))
    r.err("dc_shape", lambda: D.default_collate([torch.zeros(2), torch.zeros(3)]))
    import numpy as np

    r.add(
        "dc_np",
        D.default_collate([np.array([1, 2], dtype=np.int32), np.array([3, 4], dtype=np.int32)]),
    )
    r.add("dc_np_scalar", D.default_collate([np.float32(1.5), np.float32(2.0)]))
    r.add("dc_bool", D.default_collate([True, False]))
    r.err("dc_np_obj", lambda: D.default_collate([np.array(["a"]), np.array(["b"])]))
    r.add("convert", D.default_convert([np.array([1.0]), {"a": np.int64(3)}, "x"]))

    def collate_ex(batch, *, collate_fn_map=None):
        return ("EX", [e.a for e in batch])

    m = dict(C.default_collate_fn_map)
    m[Ex] = collate_ex
    r.add("custom_map", C.collate([{"e": Ex(1)}, {"e": Ex(2)}], collate_fn_map=m))

    class MyBatch:
        def __init__(self, items):
            self.x = torch.stack([i[0] for i in items])

        def pin_memory(self):
            return self

    dl = D.DataLoader(
        D.TensorDataset(torch.arange(6.0).view(3, 2)), batch_size=2, collate_fn=MyBatch
    )
    r.add("mybatch", [b.x for b in dl])
    r.add(
        "stack",
        [
            D.StackDataset(torch.arange(3), torch.arange(3) * 2)[1],
            D.StackDataset(a=torch.arange(2), b=["x", "y"])[1],
        ],
    )
    r.err("stack_bad", lambda: D.StackDataset(torch.arange(3), torch.arange(2)))
    r.add(
        "mapping_ds",
        list(
            D.DataLoader(
                [{"a": 1, "b": torch.tensor(2.0)}, {"a": 3, "b": torch.tensor(4.0)}], batch_size=2
            )
        ),
    )


# ---- misc ----
def prog_old_sched(torch, r):
    L = torch.optim.lr_scheduler
    w = torch.nn.Parameter(torch.ones(2, dtype=torch.float64))
    opt = torch.optim.SGD([w], lr=0.1)

    def mk():
        class Poly(L._LRScheduler):
            def __init__(self, optimizer, max_iter, power=0.9, last_epoch=-1):
                self.max_iter, self.power = max_iter, power
                super().__init__(optimizer, last_epoch)

            def get_lr(self):
                return [
                    b * (1 - self.last_epoch / self.max_iter) ** self.power for b in self.base_lrs
                ]

        return Poly

    Poly = r.warns("subclass_def", mk)
    s = r.warns("ctor", lambda: Poly(opt, 10))
    r.add("isinst", isinstance(s, L.LRScheduler))
    for _i in range(3):
        opt.step()
        s.step()
    r.add("lr", s.get_last_lr())

    class MyPlateau(L.ReduceLROnPlateau):
        def _reduce_lr(self, epoch):
            r.add("reduce_called", [epoch, self.num_bad_epochs])
            super()._reduce_lr(epoch)

    opt2 = torch.optim.SGD([w], lr=1.0)
    p = MyPlateau(opt2, patience=1, cooldown=1, factor=0.1, min_lr=0.02)
    for v in [5, 5, 5, 5, 5, 5, 5, 4]:
        p.step(v)
        r.add("pl", [p.get_last_lr(), p.in_cooldown, p.num_bad_epochs, p.last_epoch, p.best])
    r.err("pl_bad_mode", lambda: L.ReduceLROnPlateau(opt2, mode="avg"))
    r.err("pl_bad_factor", lambda: L.ReduceLROnPlateau(opt2, factor=1.0))
    r.add("pl_sd", sorted(p.state_dict()))

    class MyAdam(torch.optim.Adam):
        def step(self, closure=None):
            r.add("myadam_step", True)
            return super().step(closure)

    opt3 = MyAdam([w], lr=0.1)
    cnt = []
    opt3.register_step_post_hook(lambda *a: cnt.append(1))
    s3 = L.CosineAnnealingWarmRestarts(opt3, T_0=3, T_mult=2)
    w.grad = torch.ones(2, dtype=torch.float64)
    for e in [0.5, 1.0, 2.7, 3.1, 9.5]:
        opt3.step()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            s3.step(e)
        r.add("cawr", [s3.get_last_lr(), s3.T_cur, s3.T_i])
    r.add("w", w)
    r.add("repr", repr(opt3))


def prog_fwd_hooks(torch, r):
    nn = torch.nn

    class Gate(nn.Module):
        def __init__(self):
            super().__init__()
            self.lin = nn.Linear(3, 3)

        def forward(self, x, *, scale=1.0, mask=None):
            y = self.lin(x) * scale
            return y if mask is None else y.masked_fill(mask, 0.0)

    torch.manual_seed(0)
    g = Gate()
    log = []

    def pre(mod, args, kwargs):
        log.append(("pre", sorted(kwargs)))
        return (args[0] * 2,), dict(kwargs, scale=0.5)

    def post(mod, args, kwargs, out):
        log.append(("post", kwargs.get("scale")))
        return out + 1

    g.register_forward_pre_hook(pre, with_kwargs=True)
    g.register_forward_hook(post, with_kwargs=True)
    g.register_forward_hook(lambda m, a, o: log.append("always"), always_call=True)
    x = torch.randn(2, 3)
    r.add("out", g(x, scale=3.0, mask=torch.tensor([[True, False, False], [False, False, True]])))

    def bad_pre(mod, args, kwargs):
        return (args[0],)

    h4 = g.register_forward_pre_hook(bad_pre, with_kwargs=True)
    r.err("bad_pre", lambda: g(x))
    h4.remove()
    g.lin.register_forward_hook(lambda m, a, o: (_ for _ in ()).throw(ValueError("boom")))
    r.err("boom", lambda: g(x))
    r.add("log", log)
    grads = []
    m = nn.Linear(3, 2)
    m.register_full_backward_pre_hook(lambda mod, go: (go[0] * 10,))
    m.register_full_backward_hook(lambda mod, gi, go: grads.append([gi[0], go[0]]))
    xx = torch.randn(4, 3, requires_grad=True)
    m(xx).sum().backward()
    r.add("bw", grads)
    r.add("xgrad", xx.grad)
    MM = importlib.import_module(torch.__name__ + ".nn.modules.module")
    glog = []
    gh = MM.register_module_forward_hook(lambda mod, i, o: glog.append(type(mod).__name__))
    gp = MM.register_module_forward_pre_hook(
        lambda mod, i: glog.append("pre:" + type(mod).__name__)
    )
    nn.Sequential(nn.ReLU(), nn.Tanh())(torch.zeros(1))
    gh.remove()
    gp.remove()
    nn.ReLU()(torch.zeros(1))
    r.add("glog", glog)


def prog_dl_errors(torch, r):
    D = torch.utils.data

    class NoLen(D.Sampler):
        def __iter__(self):
            return iter([2, 0, 1])

    ds = D.TensorDataset(torch.arange(3.0))
    dl = D.DataLoader(ds, sampler=NoLen(), batch_size=2)
    r.add("it", list(dl))
    r.err("len", lambda: len(dl))
    r.err("set_ds", lambda: setattr(dl, "dataset", ds))
    r.err("set_bs", lambda: setattr(dl, "batch_size", 4))
    r.err("persist", lambda: D.DataLoader(ds, persistent_workers=True))
    r.err("prefetch", lambda: D.DataLoader(ds, prefetch_factor=2))
    r.err("neg_workers", lambda: D.DataLoader(ds, num_workers=-1))
    r.err("timeout", lambda: D.DataLoader(ds, timeout=-1))
    r.err("bs_and_drop", lambda: D.DataLoader(ds, batch_size=None, drop_last=True))
    r.err("bsampler_shuffle", lambda: D.DataLoader(ds, batch_sampler=[[0]], shuffle=True))
    r.add(
        "types",
        [type(dl.sampler).__name__, type(dl.batch_sampler).__name__, dl.batch_size, dl.drop_last],
    )
    dl2 = D.DataLoader(ds, batch_size=None)
    r.add("types2", [type(dl2.sampler).__name__, dl2.batch_sampler, list(dl2)])

    class Stream(D.IterableDataset):
        def __iter__(self):
            return iter(range(5))

        def __len__(self):
            return 3

    dl3 = D.DataLoader(Stream(), batch_size=2)
    r.add("len3", len(dl3))
    r.warns("len_warn", lambda: list(dl3))
    dl4 = D.DataLoader(Stream(), batch_size=2, drop_last=True)
    r.add("len4", len(dl4))
    it = iter(D.DataLoader(ds, batch_size=1))
    r.add("iter_len", [len(it), next(it), type(it).__name__])
    r.add(
        "sampler_shuf_gen",
        list(
            D.DataLoader(
                range(6), shuffle=True, generator=torch.Generator().manual_seed(3), batch_size=None
            )
        ),
    )
    r.err("sampler_base_iter", lambda: iter(D.Sampler()))


_PROGRAMS = [v for k, v in sorted(globals().items()) if k.startswith("prog_")]


@pytest.mark.parametrize("prog", _PROGRAMS, ids=lambda p: p.__name__[5:])
def test_program_matches_torch(prog):
    _compare(prog)
