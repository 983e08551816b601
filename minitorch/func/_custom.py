"""A user's autograd.Function called inside a torch.func transform.

As torch: inside any transform (grad, vjp, jvp, jacrev, jacfwd, hessian, vmap) a Function must
define setup_context; inside vmap or jacfwd it must have a vmap rule (generate_vmap_rule=True or a
vmap staticmethod); under jvp, linearize and jacfwd the tangents of its outputs are what its own
jvp makes of its inputs' tangents, and one without jvp is refused where an input has a tangent.

NOTE [ A custom Function's jvp in the func transforms ]
The transforms take tangents by reverse mode (see jvp in minitorch/func/_transforms.py). While f
runs, each recorded call of a user Function is noted (_Calls); once f has run and the tangents are
known, the calls are replayed in order: an input's tangent is J t over the graph so far (the same
double-backward trick), the Function's jvp gives its outputs' tangents, and each output becomes a
seed of its own, the edge (its node, output number), whose node's edges are cut while taking any
later tangent, so that the paths through the Function count once, through its jvp (the Function
may have no backward at all). This is forward_ad's cut-and-seed approach, taken after f instead of
during it, which lets linearize's jvp_fn and jacfwd's basis tangents (K sets at once) share it.
An input changed in place after the call gives the tangent of its new value.
"""

from __future__ import annotations

import contextlib

from minitorch._tensor import Tensor
from minitorch.autograd import function as _function
from minitorch.autograd.engine import grad as _autograd_grad
from minitorch.autograd.forward_ad import call_jvp, check_tangent_size, probe_like
from minitorch.autograd.graph import GradientEdge

_DOCS = "For more details, please see https://pytorch.org/docs/main/notes/extending.func.html"
_NEEDS_SETUP_CONTEXT = (
    "In order to use an autograd.Function with functorch transforms (vmap, grad, jvp, jacrev, "
    f"...), it must override the setup_context staticmethod. {_DOCS}"
)

# What is running: transforms that allow an old-style Function (linearize), vmap-like levels,
# the levels noting calls for their tangents, and the hook found below the outermost transform
# (forward_ad's, or None).
_active = {"depth": 0, "lenient": 0, "vmap": 0, "calls": [], "below": None}


class _Calls:
    """The recorded user Function calls of one jvp/linearize/jacfwd level, in order."""

    __slots__ = ("calls",)

    def __init__(self):
        self.calls: list = []


def _has_vmap_rule(cls) -> bool:
    return bool(cls.generate_vmap_rule) or getattr(cls, "vmap", None) is not None


def _hook(cls, ctx, device, record, args, kwargs):
    """function.dual_hook while a transform runs f."""
    if not cls._has_setup_context and _active["lenient"] < _active["depth"]:
        raise RuntimeError(_NEEDS_SETUP_CONTEXT)
    if _active["vmap"] and not _has_vmap_rule(cls):
        raise RuntimeError(
            f"You tried to vmap over {cls.__name__}, but it does not have vmap support. Please "
            f"override and implement the vmap staticmethod or set generate_vmap_rule=True. {_DOCS}"
        )
    if _active["vmap"] and cls.generate_vmap_rule and getattr(cls, "vmap", None) is not None:
        raise RuntimeError(
            f"You tried to vmap over {cls.__name__}, but it has both generate_vmap_rule=True and "
            "an overridden vmap staticmethod. Please set generate_vmap_rule=False or delete the "
            f"overridden vmap staticmethod to avoid ambiguity. {_DOCS}"
        )
    below = _active["below"]
    if below is not None:
        out = below(cls, ctx, device, record, args, kwargs)
    else:
        out = _function._user_forward(cls, ctx, args, kwargs, record)
        out = _function._apply_user(cls, ctx, device, record, args, out)
    if record and _active["calls"]:
        entry = (cls, ctx, tuple(args), out if out.__class__ is tuple else (out,))
        for level in _active["calls"]:
            level.calls.append(entry)
    return out


@contextlib.contextmanager
def transform(*, lenient: bool = False, vmap: bool = False, calls: _Calls | None = None):
    """f runs inside a transform: user Functions go through _hook. lenient: an old-style Function
    is allowed (linearize); vmap: a vmap rule is required; calls: the level noting the calls."""
    hook = _function.dual_hook[0]
    if _active["depth"] == 0:
        _active["below"] = hook
    _active["depth"] += 1
    _active["lenient"] += lenient
    _active["vmap"] += vmap
    if calls is not None:
        _active["calls"].append(calls)
    _function.dual_hook[0] = _hook
    try:
        yield
    finally:
        _function.dual_hook[0] = hook
        _active["depth"] -= 1
        _active["lenient"] -= lenient
        _active["vmap"] -= vmap
        if calls is not None:
            _active["calls"].remove(calls)
        if _active["depth"] == 0:
            _active["below"] = None


@contextlib.contextmanager
def _cut(edges):
    """The nodes of the custom seeds lose their edges (see the NOTE), put back after."""
    saved = {}
    for e in edges:
        if e.__class__ is GradientEdge and e[0] not in saved:
            saved[e[0]] = e[0]._next
            e[0]._next = (None,) * len(e[0]._next)
    try:
        yield
    finally:
        for node, nxt in saved.items():
            node._next = nxt


def push_tangents(outputs, us, seeds, tangents, num: int):
    """The tangents of `outputs` (num sets: a list of lists, None for an output nothing reaches)
    given seeds (tensors or edges) with tangents[j](k) the k-th tangent of seed j; us: the
    auxiliary cotangents (requiring grad, one per output). Takes the custom seeds' cut."""
    with _cut(seeds):
        vjps = _autograd_grad(
            outputs, list(seeds), us, retain_graph=True, create_graph=True, allow_unused=True
        )
    used = [(g, j) for j, g in enumerate(vjps) if g is not None]
    res = []
    for k in range(num):
        if not used:
            res.append([None] * len(outputs))
            continue
        cot = []
        for g, j in used:
            t = tangents[j](k)
            cot.append(t if t.dtype == g.dtype else t.to(g.dtype))
        jv = _autograd_grad(
            [g for g, _ in used], us, cot, retain_graph=True, create_graph=True, allow_unused=True
        )
        res.append(list(jv))
    return res


def replay(level, calls: _Calls, seeds: list, tangents: list, num: int):
    """Extends seeds/tangents with the outputs of the recorded Function calls (see the NOTE)."""
    from minitorch._factories import zeros_like

    for cls, ctx, args, outs in calls.calls:
        diff = [i for i, a in enumerate(args) if isinstance(a, Tensor) and _differentiable(a)]
        ins = [args[i] for i in diff]
        us = [level.differentiable(probe_like(a)) for a in ins]
        got = push_tangents(ins, us, seeds, tangents, num) if ins else []
        if all(t is None for row in got for t in row):
            continue  # no input carries a tangent of this level: jvp is not called
        if cls.jvp is _function.Function.jvp:
            _function.Function.jvp(ctx)  # torch's NotImplementedError
        per_out = [[] for _ in outs]
        for k in range(num):
            tans = [zeros_like(a.detach()) if isinstance(a, Tensor) else None for a in args]
            for i, t in zip(diff, got[k], strict=True):
                if t is not None:
                    tans[i] = t
            res = call_jvp(cls, ctx, tans, len(outs))
            for slot, o, g in zip(per_out, outs, res, strict=True):
                if g is not None:
                    check_tangent_size(o, g)
                slot.append(g)
        for o, slot in zip(outs, per_out, strict=True):
            if not isinstance(o, Tensor) or o._grad_fn is not ctx or any(g is None for g in slot):
                continue
            if not (o.is_floating_point() or o.is_complex()):
                continue
            seeds.append(GradientEdge(ctx, o._output_nr))
            tangents.append(slot.__getitem__)


def _differentiable(a) -> bool:
    return a._requires_grad and (a.is_floating_point() or a.is_complex())
