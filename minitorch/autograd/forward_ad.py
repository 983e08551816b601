"""Forward-mode AD's API (dual tensors) computed with reverse mode: a tangent is a
Jacobian-vector product obtained by differentiating a vector-Jacobian product. Mirrors
torch.autograd.forward_ad.

NOTE [ Tangents through double backward ]
make_dual(x, t) returns a tensor standing for x that the graph records (a fresh leaf, or a view of
x when x requires grad) and remembers t. unpack_dual(y) finds y's tangent J t, J the Jacobian of
y in the duals, as d/du <J^T u, t> for an auxiliary u: one backward with create_graph, one more
backward to u. Every op is twice differentiable (DESIGN.md), so every op has a tangent.

Differences from torch: the tangent is computed when unpack_dual asks for it (two backward
passes), not alongside each op; y must be computed with grad mode on; a dual tensor reports
requires_grad=True; one level at a time (as torch today).
"""

from __future__ import annotations

from typing import NamedTuple

from minitorch._tensor import Tensor
from minitorch.autograd.engine import grad
from minitorch.autograd.grad_mode import enable_grad

__all__ = [
    "UnpackedDualTensor",
    "dual_level",
    "enter_dual_level",
    "exit_dual_level",
    "make_dual",
    "unpack_dual",
]

_level = {"current": None, "duals": []}  # duals: (dual tensor, tangent, primal) of the level


class UnpackedDualTensor(NamedTuple):
    """(primal, tangent) of a dual tensor. Mirrors torch.autograd.forward_ad.UnpackedDualTensor."""

    primal: Tensor
    tangent: Tensor | None


def enter_dual_level() -> int:
    """Starts the forward-AD level (returns its index, 0). Mirrors
    torch.autograd.forward_ad.enter_dual_level."""
    if _level["current"] is not None:
        raise RuntimeError("Nested forward mode AD is not supported at the moment")
    _level["current"] = 0
    return 0


def exit_dual_level(*, level=None) -> None:
    """Ends the level: its dual tensors lose their tangents. Mirrors
    torch.autograd.forward_ad.exit_dual_level."""
    if _level["current"] is None or (level is not None and level != _level["current"]):
        raise RuntimeError("Trying to exit a forward AD level that was not the last one created")
    _level["current"] = None
    _level["duals"] = []


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
    if tuple(tangent.shape) != tuple(tensor.shape):
        raise RuntimeError(
            "Trying to set a forward gradient that has a different size than that of the "
            f"original Tensor, this is not supported. Tensor is of size {list(tensor.shape)} "
            f"while the given forward gradient is of size {list(tangent.shape)}."
        )
    for what, t in (("primal", tensor), ("tangent", tangent)):  # torch checks in this order
        if not t.dtype.is_floating_point:
            raise ValueError(f"Expected {what} to be floating point or complex, but got: {t.dtype}")
    with enable_grad():
        dual = tensor.view_as(tensor) if tensor.requires_grad else tensor.detach()
    if not tensor.requires_grad:
        dual.requires_grad_()
    _level["duals"].append((dual, tangent, tensor))
    return dual


def unpack_dual(tensor: Tensor, *, level=None) -> UnpackedDualTensor:
    """(primal, tangent) of `tensor`: its forward derivative along the level's dual inputs, or
    None when it depends on none of them. Mirrors torch.autograd.forward_ad.unpack_dual.
    See NOTE [ Tangents through double backward ]."""
    duals = _level["duals"]
    for dual, tangent, primal in duals:
        if dual is tensor:
            return UnpackedDualTensor(primal, tangent)
    if _level["current"] is None or not tensor.requires_grad or not duals:
        return UnpackedDualTensor(tensor, None)
    outer = any(primal.requires_grad for _, _, primal in duals)
    primal = tensor if outer else tensor.detach()
    with enable_grad():
        u = (tensor.detach() * 0).requires_grad_()  # the auxiliary cotangent (a new array)
        vjps = grad(tensor, [d for d, _, _ in duals], u, create_graph=True, allow_unused=True)
        total = None
        for g, (_, t, _) in zip(vjps, duals, strict=True):
            if g is not None:
                term = (g * t).sum()
                total = term if total is None else total + term
        if total is None:
            return UnpackedDualTensor(primal, None)
        if not total.requires_grad:  # J^T u does not depend on u: y is constant in the duals
            return UnpackedDualTensor(primal, tensor.detach() * 0)
        (jvp,) = grad(total, [u], retain_graph=True, allow_unused=True)
    return UnpackedDualTensor(primal, tensor.detach() * 0 if jvp is None else jvp.detach())
