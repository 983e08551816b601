"""Forward-mode AD's API (dual tensors) computed with reverse mode: a tangent is a
Jacobian-vector product obtained by differentiating a vector-Jacobian product. Mirrors
torch.autograd.forward_ad.

NOTE [ Tangents through double backward ]
make_dual(x, t) records a "seed" for x (a fresh leaf, or a view of x when x requires grad) and
returns the dual: an Alias of the seed, over x's memory and version counter. The dual is not a
leaf, so in-place ops on it and on its views are recorded as on any other result (torch allows
them on duals). unpack_dual(y) finds y's tangent J t, J the Jacobian of y in the seeds, as
d/du <J^T u, t> for an auxiliary u: one backward with create_graph, one more backward to u.
Every op is twice differentiable (DESIGN.md), so every op has a tangent.

A custom Function called inside the level is the exception: as torch, its tangents are what its
jvp makes of its inputs' tangents (taken at the call), and one without jvp is refused. Each
output it gives a tangent is recorded as a seed of its own, the edge (its node, output number),
and unpack_dual cuts that node's edges while it differentiates, so the paths through the
Function count once, through the jvp's tangent (the Function may have no backward at all).

u is not zeros (probe_like): J^T u is linear in u, so any u gives the same derivative, but a
backward written piecewise in its gradient (logcumsumexp's sums the positive and the negative
gradients apart, in logs) has its kink at a zero gradient, where the derivative is 0 * inf =
NaN. Nor is it ones, which a shift-invariant op (softmax, layer_norm, x - x.mean()) maps to a
zero gradient; its elements are distinct, in [1, 2). A zero gradient an op makes for any u (a
relu's inactive elements) still reaches logcumsumexp's kink.

Differences from torch: the tangent is computed when unpack_dual asks for it (two backward
passes), not alongside each op, so y must be computed with grad mode on (a no_grad region
carries no tangent), and a tensor saved for y's backward must not be modified in place before
y's tangent is asked for; a dual tensor of a primal that needs no grad reports
requires_grad=True and has a grad_fn (AliasBackward0) while the level is open (its repr shows
neither, as torch's); an op without a forward formula in torch (which raises) has a tangent here;
one level at a time (as torch today); a custom Function's jvp that returns None for an output
leaves that output without a tangent of its own (torch fails an internal assert).
"""

from __future__ import annotations

import contextlib
from typing import NamedTuple

from minitorch._tensor import Tensor, _keep_storage_root
from minitorch.autograd import function as _function
from minitorch.autograd.engine import grad
from minitorch.autograd.function import AccumulateGrad, Function, _edge
from minitorch.autograd.grad_mode import enable_grad, normal_alias
from minitorch.autograd.graph import GradientEdge

__all__ = [
    "UnpackedDualTensor",
    "dual_level",
    "enter_dual_level",
    "exit_dual_level",
    "make_dual",
    "unpack_dual",
]


class _Dual(NamedTuple):
    dual: Tensor  # what make_dual returned
    tangent: Tensor
    primal: Tensor  # what make_dual was given
    seed: Tensor | GradientEdge | None  # what tangents are taken with respect to (an edge: a
    # custom Function's output, whose node is cut while differentiating; None: not recorded)
    version: int  # the dual's version when made: a later in-place op changes its tangent
    private: bool  # the seed is a leaf of this level (the primal did not require grad)


_level = {"current": None, "duals": []}  # duals: the _Dual records of the level


class UnpackedDualTensor(NamedTuple):
    """(primal, tangent) of a dual tensor. Mirrors torch.autograd.forward_ad.UnpackedDualTensor."""

    primal: Tensor
    tangent: Tensor | None


class Alias(Function):
    """out = a, over a's memory (not a view: in-place ops on it are recorded as on a result);
    grad_a = grad"""

    @staticmethod
    def forward(ctx, a):
        return a._data

    @staticmethod
    def backward(ctx, grad):
        return grad


def alias_of(seed: Tensor) -> Tensor:
    """A non-leaf stand-in for `seed` (which requires grad) sharing its memory and version
    counter: in-place ops on it are allowed and recorded, and gradients flow to the seed.
    Used by make_dual and by torch.func's forward transforms."""
    with enable_grad():
        out = Alias.apply(seed)
    out._vc = seed._vc
    if seed._base is not None or "_storage_root" in seed.__dict__:
        _keep_storage_root(out, seed)
    return out


def enter_dual_level() -> int:
    """Starts the forward-AD level (returns its index, 0). Mirrors
    torch.autograd.forward_ad.enter_dual_level."""
    if _level["current"] is not None:
        raise RuntimeError("Nested forward mode AD is not supported at the moment")
    _level["current"] = 0
    _function.dual_hook[0] = _apply_custom
    return 0


def exit_dual_level(*, level=None) -> None:
    """Ends the level: its dual tensors lose their tangents (and, as torch's, no longer
    require grad unless their primal did). Mirrors torch.autograd.forward_ad.exit_dual_level."""
    if _level["current"] is None or (level is not None and level != _level["current"]):
        raise RuntimeError("Trying to exit a forward AD level that was not the last one created")
    duals = _level["duals"]
    _level["current"] = None
    _level["duals"] = []
    _function.dual_hook[0] = None
    for d in duals:
        if d.private and d.dual._base is None:
            d.dual.detach_()


class dual_level:  # noqa: N801 - torch's name
    """A region in which dual tensors carry tangents. Mirrors
    torch.autograd.forward_ad.dual_level."""

    def __enter__(self):
        return enter_dual_level()

    def __exit__(self, *exc):
        exit_dual_level()
        return False


def make_dual(tensor: Tensor, tangent: Tensor, *, level=None) -> Tensor:
    """A tensor standing for `tensor` whose forward derivative is `tangent`. Mirrors
    torch.autograd.forward_ad.make_dual."""
    if _level["current"] is None:
        raise RuntimeError(
            "Trying to create a dual Tensor for forward AD but no level exists, make sure to "
            "enter_dual_level() first."
        )
    check_tangent_size(tensor, tangent)
    for what, t in (("primal", tensor), ("tangent", tangent)):  # torch checks in this order
        if not t.dtype.is_floating_point:
            raise ValueError(f"Expected {what} to be floating point or complex, but got: {t.dtype}")
    duals = _level["duals"]
    if tensor.requires_grad and duals and _walk(tensor, duals)[0]:
        raise RuntimeError(
            "Making a dual Tensor based on a Tensor that already has a forward gradient at the "
            "same level 0 is not supported."
        )
    private = not tensor.requires_grad
    with enable_grad():
        # (an inference tensor's seed is a normal alias: NOTE [ Inference tensors ])
        seed = normal_alias(tensor).detach().requires_grad_() if private else tensor.view_as(tensor)
    dual = alias_of(seed)
    if not private:  # torch's dual of a tensor requiring grad is a view of it
        _function.name_node(dual, "ViewBackward0")
    duals.append(_Dual(dual, tangent, tensor, seed, dual._vc[0], private))
    return dual


def _walk(t: Tensor, duals) -> tuple[bool, bool]:
    """(whether t's history reaches a dual's seed, whether it reaches a tensor requiring grad
    that is not a private seed: an outer graph the tangent must keep)."""
    seeds = {id(_seed_edge(d.seed)[0]) for d in duals if d.seed is not None}
    private = {id(d.seed) for d in duals if d.private}
    found_seed = found_outer = False
    seen: set[int] = set()
    stack = [_edge(t)[0]]
    while stack:
        node = stack.pop()
        key = id(node)
        if key in seen:
            continue
        seen.add(key)
        if key in seeds:
            found_seed = True
            if id(node) in private or isinstance(node, AccumulateGrad):
                continue
        if isinstance(node, AccumulateGrad):
            if id(node._variable()) not in private:
                found_outer = True
            continue
        stack.extend(e[0] for e in node._next if e is not None)
    return found_seed, found_outer


def unpack_dual(tensor: Tensor, *, level=None) -> UnpackedDualTensor:
    """(primal, tangent) of `tensor`: its forward derivative along the level's dual inputs, or
    None when it depends on none of them. Mirrors torch.autograd.forward_ad.unpack_dual.
    See NOTE [ Tangents through double backward ]."""
    duals = _level["duals"]
    for d in duals:
        if d.dual is tensor and tensor._vc[0] == d.version:
            return UnpackedDualTensor(d.primal, d.tangent)
    if _level["current"] is None or not tensor.requires_grad or not duals:
        return UnpackedDualTensor(tensor, None)
    reaches_seed, outer = _walk(tensor, duals)
    if not reaches_seed:
        return UnpackedDualTensor(tensor if outer else tensor.detach(), None)
    outer = outer or any(d.tangent.requires_grad for d in duals)
    primal = tensor if outer else tensor.detach()
    with enable_grad():
        u = probe_like(tensor).requires_grad_()  # the auxiliary cotangent (see the NOTE)
        duals = [d for d in duals if d.seed is not None]
        cut = {}  # the custom Functions' nodes whose outputs are seeds: their edges, put back
        for d in duals:
            if d.seed.__class__ is GradientEdge and d.seed[0] not in cut:
                cut[d.seed[0]] = d.seed[0]._next
                d.seed[0]._next = (None,) * len(d.seed[0]._next)
        try:
            with forward_ad_errors():
                seeds = [d.seed for d in duals]
                vjps = grad(tensor, seeds, u, create_graph=True, allow_unused=True)
        finally:
            for node, edges in cut.items():
                node._next = edges
        total = None
        for g, d in zip(vjps, duals, strict=True):
            if g is not None:
                term = (g * normal_alias(d.tangent)).sum()
                total = term if total is None else total + term
        if total is None:
            return UnpackedDualTensor(primal, None)
        if not total.requires_grad:  # J^T u does not depend on u: y is constant in the duals
            return UnpackedDualTensor(primal, _zeros_like(tensor))
        (jvp,) = grad(total, [u], retain_graph=True, create_graph=outer, allow_unused=True)
    if jvp is None:
        return UnpackedDualTensor(primal, _zeros_like(tensor))
    return UnpackedDualTensor(primal, jvp if outer else jvp.detach())


@contextlib.contextmanager
def forward_ad_errors():
    """Where a tangent is taken (NOTE [ Tangents through double backward ]): an op without a
    derivative raises from its backward; torch's forward mode refuses it in its own words."""
    try:
        yield
    except (RuntimeError, NotImplementedError) as e:
        msg = str(e)
        if msg.startswith("derivative for aten::") and msg.endswith(" is not implemented"):
            op = msg[len("derivative for ") : -len(" is not implemented")]
            raise NotImplementedError(
                f"Trying to use forward AD with {op} that does not support it."
            ) from None
        if msg.startswith("the derivative for '") and msg.endswith("' is not implemented."):
            op = msg[len("the derivative for '") : -len("' is not implemented.")]
            raise NotImplementedError(
                f"Trying to use forward AD with {op} that does not support it because it has "
                "not been implemented yet.\nPlease file an issue to PyTorch at "
                "https://github.com/pytorch/pytorch/issues/new?template=feature-request.yml so "
                "that we can prioritize its implementation or submit a PR adding the "
                "implementation to derivatives.yaml"
            ) from None
        raise


def _seed_edge(seed):
    return seed if seed.__class__ is GradientEdge else _edge(seed)


def check_tangent_size(primal, tangent) -> None:
    """torch's RuntimeError for a tangent whose shape is not its primal's (make_dual, a custom
    Function's jvp results, torch.func.jvp)."""
    if tuple(tangent.shape) != tuple(primal.shape):
        raise RuntimeError(
            "Trying to set a forward gradient that has a different size than that of the "
            f"original Tensor, this is not supported. Tensor is of size {list(primal.shape)} "
            f"while the given forward gradient is of size {list(tangent.shape)}."
        )


def call_jvp(cls, ctx, tangents, n_out: int) -> tuple:
    """cls.jvp(ctx, *tangents) as a tuple of n_out forward gradients, reading what
    save_for_forward saved as ctx.saved_tensors; torch's errors for a Function without jvp and
    for a wrong number of results."""
    if cls.jvp is Function.jvp:
        Function.jvp(ctx)  # torch's NotImplementedError
    saved, to_save = ctx._saved, ctx._to_save
    ctx._saved = None  # saved_tensors reads _to_save
    ctx._to_save = ctx.__dict__.get("_saved_for_forward") or ()
    try:
        res = cls.jvp(ctx, *tangents)
    finally:
        ctx._saved, ctx._to_save = saved, to_save
    res = tuple(res) if isinstance(res, (tuple, list)) else (res,)
    if len(res) != n_out:
        raise RuntimeError(
            "Function's jvp returned an invalid number of forward gradients (expected "
            f"{n_out} but got {len(res)})"
        )
    return res


def _apply_custom(cls, ctx, device, record, args, kwargs):
    """A custom Function's call while the level is open (function.dual_hook): forward as usual,
    then, where an input has a tangent, its jvp on the inputs' tangents (zeros for a tensor
    without one, None for other arguments) gives the outputs' tangents, read from
    ctx.saved_tensors what save_for_forward saved. See NOTE [ Tangents through double
    backward ]."""
    from minitorch._factories import zeros_like
    from minitorch.autograd.function import _apply_user, _user_forward

    tangents = [unpack_dual(a).tangent if isinstance(a, Tensor) else None for a in args]
    out = _apply_user(cls, ctx, device, record, args, _user_forward(cls, ctx, args, kwargs, record))
    if all(t is None for t in tangents):
        return out
    if cls.jvp is Function.jvp:
        Function.jvp(ctx)  # torch's NotImplementedError, before the zero tangents are made
    tangents = [
        zeros_like(a.detach()) if t is None and isinstance(a, Tensor) else t
        for a, t in zip(args, tangents, strict=True)
    ]
    outs = out if out.__class__ is tuple else (out,)
    res = call_jvp(cls, ctx, tangents, len(outs))
    duals = _level["duals"]
    for o, g in zip(outs, res, strict=True):
        if not isinstance(o, Tensor) or g is None or not o.dtype.is_floating_point:
            continue
        check_tangent_size(o, g)
        seed = GradientEdge(ctx, o._output_nr) if record and o._grad_fn is ctx else None
        # as unpack_dual's: a tangent or output reaching no graph but this level's is detached
        outer = g.requires_grad and _walk(g, duals)[1]
        outer = outer or (seed is not None and _walk(o, duals)[1])
        g = g if outer else g.detach()
        duals.append(_Dual(o, g, o if outer else o.detach(), seed, o._vc[0], False))
    return out


def probe_like(t: Tensor) -> Tensor:
    """The auxiliary cotangent u of NOTE [ Tangents through double backward ]: t's shape,
    dtype and device, elements 1 + frac(k * 0.618...) (distinct, in [1, 2), no generator)."""
    from minitorch._factories import arange

    k = arange(t.numel(), dtype=t.dtype, device=t.device)
    return ((k * 0.6180339887498949).frac() + 1).view(t.shape)


def _zeros_like(t: Tensor) -> Tensor:
    from minitorch._factories import zeros_like

    return zeros_like(t.detach())
