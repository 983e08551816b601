"""The recorded graph as an API: its Node class, gradient edges, version bumps.
Mirrors torch.autograd.graph (the parts that need no saved-tensor hooks)."""

from __future__ import annotations

from minitorch._tensor import Tensor
from minitorch.autograd.function import Node, _edge

__all__ = ["Node", "GradientEdge", "get_gradient_edge", "increment_version"]


class GradientEdge(tuple):
    """An input of a node: (node, output_nr). Accepted by autograd.grad as an input, to get the
    gradient flowing into that node. Mirrors torch.autograd.graph.GradientEdge (a named tuple;
    a plain tuple subclass here, which imports faster than typing.NamedTuple)."""

    __slots__ = ()

    def __new__(cls, node: Node, output_nr: int):
        return tuple.__new__(cls, (node, output_nr))

    @property
    def node(self) -> Node:
        return self[0]

    @property
    def output_nr(self) -> int:
        return self[1]

    def __repr__(self) -> str:
        return f"GradientEdge(node={self[0]!r}, output_nr={self[1]})"


def get_gradient_edge(tensor: Tensor) -> GradientEdge:
    """The edge through which tensor's gradient flows: its grad_fn (and output number), or its
    AccumulateGrad node for a leaf. Mirrors torch.autograd.graph.get_gradient_edge."""
    if not tensor.requires_grad:
        raise RuntimeError(
            "It is not possible to get the gradient edge for a Tensor that does not require "
            "gradients"
        )
    node, nr = _edge(tensor)
    return GradientEdge(node, nr)


def increment_version(tensor) -> None:
    """Bumps the version counter of tensor (or of each tensor of an iterable), as an in-place
    change would: a backward that saved it then refuses to run. Mirrors
    torch.autograd.graph.increment_version."""
    tensors = (tensor,) if isinstance(tensor, Tensor) else tensor
    for t in tensors:
        t._vc[0] += 1
