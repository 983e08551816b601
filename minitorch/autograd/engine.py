"""The backward engine: walks the graph without recursion, un-broadcasts, accumulates, frees."""

from __future__ import annotations

import itertools
import operator as _operator
import sys
from collections.abc import Mapping as _Mapping
from heapq import heappop as _heappop
from heapq import heappush as _heappush

import numpy as _np

from minitorch import _memory_format
from minitorch import _tensor as _tensor_module
from minitorch._dtype import checked_type_name
from minitorch._tensor import Size, Tensor, _make
from minitorch.autograd.function import (
    _FREED,
    ACC_PRIO,
    AccumulateGrad,
    _edge,
    _next_prio,
    _type_name,
)
from minitorch.autograd.grad_mode import _restore_grad_mode, _set_grad_mode, state
from minitorch.autograd.graph import GradientEdge

__all__ = ["backward", "grad"]


def _as_seq(x):
    """(x,) for a Tensor or GradientEdge, else tuple(x): how torch reads grad()'s outputs and
    inputs and backward()'s tensors, so None there is tuple(None)'s TypeError."""
    if isinstance(x, Tensor) or x.__class__ is GradientEdge:
        return (x,)
    return tuple(x)


def _as_tuple(x):
    return () if x is None else _as_seq(x)


def _root_grads(outputs, grad_outputs):
    """Checks the roots and makes the implicit ones-gradient for scalar outputs, in torch's
    order: torch's _make_grads pairs outputs and given gradients by zip (types, shapes, the
    implicit gradients), then the engine counts them and refuses an output that does not
    require grad. grad_outputs: a tuple, or None when no gradient was given."""
    given = grad_outputs is not None
    if not given and len(outputs) == 1:  # loss.backward(): the loop's ones, without the loop
        out = outputs[0]
        if (
            out.__class__ is Tensor
            and out._requires_grad
            and out._data.ndim == 0
            and out._grad_fn is not None
        ):
            return [_ones_grad(out)]
    grads = []
    no_grad_at = None  # the first output that does not require grad (refused last)
    for i, (out, g) in enumerate(zip(outputs, grad_outputs if given else _NONES, strict=False)):
        if not isinstance(out, Tensor):
            if out.__class__ is GradientEdge:  # the gradient flowing out of a node's output
                grads.append(_edge_root_grad(out, grad_outputs or (), i))
                continue
            raise AssertionError("Expected output to be a torch.Tensor")
        if not out._requires_grad or (
            out._grad_fn is None and out._rg_inherited and out._grad_acc is None
        ):  # (the second: a view taken under no_grad, whose gradient goes nowhere)
            if no_grad_at is None:
                no_grad_at = i
            if g is None:
                grads.append(None)
                continue
        if g is None:
            if out._data.size != 1:
                raise RuntimeError("grad can be implicitly created only for scalar outputs")
            g = _ones_grad(out)
        elif not isinstance(g, Tensor):
            raise TypeError(_GRAD_TYPE + type(g).__name__)
        elif g._data.shape != out._data.shape:
            raise RuntimeError(
                f"Mismatch in shape: grad_output[{grad_outputs.index(g)}] has a shape of "
                f"{g.shape} and output[{outputs.index(out)}] has a shape of {out.shape}."
            )  # See NOTE [ Positions by index ]
        elif g._device is not out._device:
            raise RuntimeError(
                f"invalid gradient at index {i} - expected device {out._device} but got {g._device}"
            )
        elif g.__class__ is not Tensor:
            g = _plain_grad(g)
            if g._data.dtype != out._data.dtype:
                g = g.to(out.dtype)
        elif g._data.dtype != out._data.dtype:
            g = g.to(out.dtype)  # torch casts a gradient of another dtype, as for node outputs
        grads.append(g)
    if given:
        _check_grad_count(outputs, grad_outputs)
    if no_grad_at is not None:
        raise RuntimeError(
            f"element {no_grad_at} of tensors does not require grad and does not have a grad_fn"
        )
    return grads


def _ones_grad(out: Tensor) -> Tensor:
    """The implicit gradient of a one-element output: ones of its shape and dtype."""
    d = out._data
    xp = out._device.backend.xp
    ones = xp.asarray(1, dtype=d.dtype) if d.ndim == 0 else xp.ones(d.shape, d.dtype)
    return _make(ones, out._device, False, None)


_NONES = itertools.repeat(None)  # the gradients of outputs given none (zip stops at outputs)


# NOTE [ Positions by index ]
# torch's _make_grads names a mismatched gradient's position by `grad_outputs.index(grad)` and
# its output's by `outputs.index(out)`: list.index compares each earlier entry by `==`, so an
# earlier tensor of other values and several elements raises "Boolean value of Tensor with more
# than one value is ambiguous" (or a broadcasting error) instead, and an earlier equal one is
# named in its place. minitorch asks the same question, so users get the same answer.
_GRAD_TYPE = "gradients can be either Tensors or None, but got "


def _plain_grad(g: Tensor) -> Tensor:
    """A gradient of a Tensor subclass (a user's grad_output, a formula that computed with a
    saved subclass tensor) as the plain tensor it is in torch, whose backward formulas compute
    on plain tensors: the walk's array paths tell a gradient by `__class__ is Tensor`, so none
    of another class travels. The same memory; on the graph (an alias) under create_graph."""
    if g._requires_grad:
        return Tensor.as_subclass(g, Tensor)
    return _make(g._data, g._device, False, None)


def _edge_root_grad(edge, grad_outputs, i):
    """The gradient given for a GradientEdge output, checked against the output's shape and
    dtype where the graph knows them (a leaf's accumulator, a multi-output node, a custom
    Function's); a built-in op's node with one output keeps no record of it, so there the
    gradient must be given and is taken as is."""
    node, nr = edge
    g = grad_outputs[i] if i < len(grad_outputs) else None
    if isinstance(node, AccumulateGrad):
        leaf = node._variable()
        meta = None if leaf is None else (leaf._data.shape, leaf._data.dtype, leaf._device)
    else:
        shapes = node.__dict__.get("_out_shapes")
        meta = shapes[nr] if shapes is not None else None
        if meta is not None:
            meta = (*meta, node._out_device)
    if g is None:
        if meta is None:
            raise RuntimeError(
                "grad can be implicitly created only for scalar outputs (GradientEdge output "
                f"{i}: the shape of {type(node).__name__}'s output {nr} is not recorded, so its "
                "gradient must be given in grad_outputs)"
            )
        shape, dtype, dev = meta
        if _np.prod(shape, dtype=_np.int64) != 1:
            raise RuntimeError("grad can be implicitly created only for scalar outputs")
        return _make(dev.backend.xp.ones(shape, dtype), dev, False, None)
    if not isinstance(g, Tensor):
        raise TypeError(_GRAD_TYPE + type(g).__name__)
    if meta is not None:
        shape, dtype, dev = meta
        if g._data.shape != shape:
            raise RuntimeError(
                f"Mismatch in shape: grad_output[{i}] has a shape of {g.shape} and output[{i}] "
                f"has a shape of {Size(shape)}."
            )
        if g._data.dtype != dtype:
            g = g.to(_dtype_of(dtype))
    return g


def backward(
    tensors,
    grad_tensors=None,
    retain_graph=None,
    create_graph=False,
    grad_variables=None,
    inputs=None,
):
    """Accumulates the gradients of `tensors` into the leaves' `.grad`.
    Mirrors torch.autograd.backward."""
    if state.transforms:
        raise RuntimeError(
            "backward() called inside a functorch transform. This is not supported, please use "
            "functorch.grad or functorch.vjp instead or call backward() outside of functorch "
            "transforms."
        )
    if grad_variables is not None:
        import warnings

        warnings.warn(
            "`grad_variables` is deprecated. Use `grad_tensors` instead.", FutureWarning,
            stacklevel=2,
        )
        if grad_tensors is not None:
            raise RuntimeError(
                "`grad_tensors` and `grad_variables` (deprecated) arguments both passed to "
                "`backward()`. Please only use `grad_tensors`."
            )
        grad_tensors = grad_variables
    tensors = _as_seq(tensors)
    if grad_tensors is not None:
        grad_tensors = _as_tuple(grad_tensors)
    if retain_graph is None:
        retain_graph = create_graph
    if inputs is not None:
        inputs = _as_tuple(inputs)
        if not inputs:
            raise RuntimeError("`inputs` argument to `backward()` cannot be empty.")
        grads = _root_grads(tensors, grad_tensors)  # the roots' errors first
        targets = {}
        for t in inputs:
            if t.__class__ is GradientEdge:  # a leaf's accumulates; a node's only runs it
                targets[tuple(t)] = t
                continue
            _check_input(t)
            # torch retains the grad of each input (its wording when it cannot): a non-leaf's
            # .grad is filled by that (in _pre_hooks), here and in later backward calls too.
            t.retain_grad()
            targets[_edge(t)] = t
    else:
        targets = None
        grads = _root_grads(tensors, grad_tensors)
    if create_graph:
        # each leaf's .grad then holds a graph leading back to the leaf (autograd.grad, which
        # fills no .grad, does not warn)
        from minitorch._settings import warn_once

        warn_once("backward_create_graph", _CREATE_GRAPH_CYCLE)
    _run(tensors, grads, retain_graph, create_graph, targets, capture=None)


_CREATE_GRAPH_CYCLE = (
    "Using backward() with create_graph=True will create a reference cycle between the "
    "parameter and its gradient which can cause a memory leak. We recommend using "
    "autograd.grad when creating the graph to avoid this. If you have to use this function, "
    "make sure to reset the .grad fields of your parameters to None after use to break the "
    "cycle and avoid the leak."
)


def grad(
    outputs,
    inputs,
    grad_outputs=None,
    retain_graph=None,
    create_graph=False,
    only_inputs=True,
    allow_unused=None,
    is_grads_batched=False,
    materialize_grads=False,
):
    """The gradients of `outputs` w.r.t. `inputs`, returned (not accumulated). Mirrors torch.

    Differences from torch: a GradientEdge output of a built-in op's one-output node needs its
    gradient in grad_outputs even when that output is a scalar (the node does not record its
    shape)."""
    if materialize_grads and allow_unused is False:
        raise ValueError(
            "Expected allow_unused to be True or not passed when materialize_grads=True, but "
            "got: allow_unused=False."
        )
    outputs = _as_seq(outputs)  # torch's order: outputs, then inputs
    if type(inputs) is dict:  # torch answers a dict of inputs with a dict of their gradients
        result = grad(
            outputs, tuple(inputs.values()), grad_outputs, retain_graph, create_graph,
            only_inputs, allow_unused, is_grads_batched, materialize_grads,
        )
        return dict(zip(inputs.keys(), result, strict=True))
    if isinstance(inputs, _Mapping):
        raise TypeError(
            f"`inputs` argument to `grad()` must be a dict, not {type(inputs).__name__}. "
            "Other Mapping types are not supported."
        )
    inputs = _as_seq(inputs)
    if is_grads_batched:
        return _grad_batched(
            outputs, inputs, grad_outputs, retain_graph, create_graph, allow_unused,
            materialize_grads,
        )
    for t in outputs + inputs:  # torch hands grad to Tensor subclasses' __torch_function__
        if t.__class__ is not Tensor and _subclass_dispatches(t):
            return _grad_subclass(
                outputs, inputs, grad_outputs, retain_graph, create_graph, only_inputs,
                allow_unused, materialize_grads,
            )
    if not inputs:
        raise RuntimeError("`inputs` argument to `grad()` cannot be empty.")
    if allow_unused is None:
        allow_unused = materialize_grads
    if retain_graph is None:
        retain_graph = create_graph
    if not only_inputs:
        import warnings

        warnings.warn(
            "only_inputs argument is deprecated and is ignored now (defaults to True). To "
            "accumulate gradient for other parts of the graph, please use "
            "torch.autograd.backward.",
            FutureWarning,
            stacklevel=2,
        )
    grads = _root_grads(outputs, None if grad_outputs is None else _as_tuple(grad_outputs))
    for t in inputs:  # after the outputs' checks, each input's type and then its requires_grad
        if t.__class__ is GradientEdge:  # the gradient flowing into a node's input
            continue
        _check_input(t)
        if not t._requires_grad:
            raise RuntimeError("One of the differentiated Tensors does not require grad")
    edges = [tuple(t) if t.__class__ is GradientEdge else _edge(t) for t in inputs]
    capture = dict.fromkeys(edges)
    _run(outputs, grads, retain_graph, create_graph, dict(zip(edges, inputs, strict=True)), capture)
    result = []
    for i, (t, e) in enumerate(zip(inputs, edges, strict=True)):
        g = capture[e]
        if g is None:
            if materialize_grads:
                if t.__class__ is GradientEdge:
                    raise RuntimeError(
                        "materialize_grads cannot be used when the given input is a GradientEdge"
                    )
                # torch's zeros require grad under create_graph (a leaf of no graph)
                g = _make(t._device.backend.xp.zeros_like(t._data), t._device, create_graph, None)
            elif not allow_unused:
                raise RuntimeError(
                    f"The differentiated Tensor at index {i} appears to not have been used in the "
                    "graph. Set allow_unused=True if this is the desired behavior."
                )
        result.append(g)
    return tuple(result)


def _subclass_dispatches(t) -> bool:
    from minitorch._subclass import dispatching

    return dispatching(t)


def _grad_subclass(outputs, inputs, grad_outputs, retain_graph, create_graph, only_inputs,
                   allow_unused, materialize_grads):
    """grad() with outputs or inputs of a dispatching Tensor subclass: their __torch_function__
    gets it (the default one runs it with dispatch off and returns the gradients as the most
    derived subclass), as torch.autograd.grad does."""
    from minitorch._subclass import dispatch, overloaded_types

    kwargs = {
        "grad_outputs": grad_outputs,
        "retain_graph": retain_graph,
        "create_graph": create_graph,
        "only_inputs": only_inputs,
        "allow_unused": allow_unused,
        "materialize_grads": materialize_grads,
    }
    types = overloaded_types(outputs + inputs)
    return dispatch(grad, types, (outputs, inputs), kwargs, "torch.autograd.grad")


def _grad_batched(outputs, inputs, grad_outputs, retain_graph, create_graph, allow_unused,
                  materialize):
    """grad() with is_grads_batched: the first dim of every grad_output indexes a batch of
    vector-Jacobian products. Differences from torch: one backward per batch entry (no vmap),
    the results stacked (a create_graph result's grad_fn is a StackBackward0); a 0-dim
    grad_output raises a RuntimeError (torch: the IndexError of indexing it)."""
    from minitorch._ops import stack

    outs = _as_tuple(outputs)
    gos = (None,) * len(outs) if grad_outputs is None else _as_tuple(grad_outputs)
    # torch's checks, in its order: each grad_output's first entry (paired by zip), then its
    # vmap's, then the engine's count (torch's vjp runs inside the vmap)
    batched = []
    for o, g in zip(outs, gos, strict=False):
        if not isinstance(o, Tensor) and o.__class__ is not GradientEdge:
            raise AssertionError("Expected output to be a torch.Tensor")
        if g is None:
            if o.__class__ is not GradientEdge and o.requires_grad:
                if o.numel() != 1:
                    raise RuntimeError("grad can be implicitly created only for scalar outputs")
                batched.append(o)  # torch batches its implicit (0-dim) one: vmap refuses it
            continue
        if not isinstance(g, Tensor):
            raise TypeError(_GRAD_TYPE + type(g).__name__)
        if g.ndim == 0:  # (torch: the IndexError of g[0]; tests/autograd/test_engine.py pins this)
            raise RuntimeError(
                "grad(): with is_grads_batched=True, every grad_output needs the same batch size "
                "as its first dim"
            )
        first = g[0]  # torch's IndexError for an empty batch
        if first.shape != o.shape:
            raise RuntimeError(
                "If `is_grads_batched=True`, we interpret the first dimension of each "
                "grad_output as the batch dimension. The sizes of the remaining dimensions are "
                f"expected to match the shape of corresponding output, but a mismatch was "
                f"detected: grad_output[{gos.index(g)}] has a shape of {Size(first.shape[1:])} "
                f"and output[{outs.index(o)}] has a shape of {o.shape}. If you only want some "
                "tensors in `grad_output` to be considered batched, consider using vmap."
            )  # See NOTE [ Positions by index ]
        batched.append(g)
    for g in batched:
        if g.ndim == 0:
            raise ValueError(
                "vmap(vjp, in_dims=0, ...)(<inputs>): Got in_dim=0 for some input, but that "
                "input is a Tensor of dimensionality 0 so expected in_dim to satisfy "
                "0 <= in_dim < 0."
            )
    sizes = [g.shape[0] for g in batched]
    if any(k != sizes[0] for k in sizes):
        raise ValueError(
            "vmap: Expected all tensors to have the same size in the mapped dimension, got "
            f"sizes {sizes} for the mapped dimension"
        )
    if not sizes:
        raise IndexError("list index out of range")  # torch's vmap, given nothing to batch
    _check_grad_count(outs, gos)
    n = sizes[0]
    if retain_graph is None:
        retain_graph = create_graph
    rows = []
    for i in range(n):
        keep = retain_graph or i < n - 1
        rows.append(
            grad(outputs, inputs, tuple(None if g is None else g[i] for g in gos),
                 retain_graph=keep, create_graph=create_graph,
                 allow_unused=True if materialize else allow_unused)
        )
    out = []
    for k, t in enumerate(_as_tuple(inputs)):
        col = [r[k] for r in rows]
        if col[0] is not None:
            out.append(stack(col))
        elif not materialize:
            out.append(None)
        elif t.__class__ is GradientEdge:
            raise RuntimeError(
                "materialize_grads cannot be used when the given input is a GradientEdge"
            )
        else:  # as torch's: materialized after the batch, so shaped as the input, unbatched
            out.append(_make(t._device.backend.xp.zeros_like(t._data), t._device, create_graph,
                             None))
    return tuple(out)


def _check_grad_count(outputs, grads):
    # torch pairs them with zip: extra gradients are ignored, a missing one is an error (None
    # stands for an implicit gradient only when written out).
    if len(grads) < len(outputs):
        raise RuntimeError(f"got {len(outputs)} tensors and {len(grads)} gradients")


def _check_input(t):
    if not isinstance(t, Tensor):
        raise RuntimeError(
            f"all inputs have to be Tensors or GradientEdges, but got {type(t).__name__}"
        )


# --- the walk ---


def _dependencies(roots):
    """Number of incoming edges of every node reachable from `roots` (iterative DFS)."""
    deps = dict.fromkeys(roots, 0)  # a node is in deps once it has been reached
    stack = list(deps)
    pop, push = stack.pop, stack.append  # (bound once: this loop runs for every edge)
    while stack:
        for e in pop()._next:
            if e is not None:
                child = e[0]
                if child in deps:
                    deps[child] += 1
                else:
                    deps[child] = 1
                    push(child)
    return deps


def _executable(roots, deps, targets, accumulate):
    """With explicit inputs, only nodes with a path to a target run their backward (pruning).
    backward(inputs=) also runs the nodes of its non-leaf inputs (torch marks them needed: their
    hooks fire, the gradients they pass on go nowhere); autograd.grad only reads the gradients
    reaching its inputs' nodes (the tensors' hooks fire, the nodes' own hooks do not)."""
    target_nodes = {e[0] for e in targets}
    order = []  # a topological order, roots first
    remaining = dict(deps)
    stack = [r for r in roots if remaining.get(r, 0) == 0]
    while stack:
        node = stack.pop()
        order.append(node)
        for e in node._next:
            if e is not None:
                remaining[e[0]] -= 1
                if remaining[e[0]] == 0:
                    stack.append(e[0])
    run = {n for n in target_nodes if not isinstance(n, AccumulateGrad)} if accumulate else set()
    for node in reversed(order):
        for e in node._next:
            if e is not None and (e[0] in target_nodes or e[0] in run):
                run.add(node)
                break
    return run


def _run(roots, root_grads, retain_graph, create_graph, targets, capture):
    """Runs backward from roots. `targets` (edge -> tensor) restricts which tensors get .grad;
    `capture` (edge -> grad) collects gradients instead of accumulating (autograd.grad)."""
    # NOTE [ The backward walk ]
    # A node runs once every node that feeds it a gradient has run (`deps` counts the pending
    # edges), so each node sees the total gradient of its outputs and the walk is a plain loop
    # over a heap of the ready nodes, in torch's order (NOTE [ Walk order ]): no recursion,
    # whatever the depth of the graph. `buffers` holds the gradients that reached a node's
    # outputs (see _put).
    buffers = {}
    root_nodes = []
    leaf_root = False
    for t, g in zip(roots, root_grads, strict=True):
        try:
            node, nr = _edge(t)
        except AttributeError:  # autograd.grad's outputs may be GradientEdges (a rare case:
            if t.__class__ is not GradientEdge:  # the common one pays no test for it)
                raise
            node, nr = t
        if node not in buffers:
            root_nodes.append(node)
            if node._prio == ACC_PRIO:
                leaf_root = True
        try:
            _put(buffers, node, nr, g, _operator.add)
        except _Misfit as misfit:  # (torch's root check names no node, but the root's place)
            raise misfit.named(None, next(k for k, r in enumerate(roots) if r is t)) from None
    # the common node's path (NOTE [ Data-level backward ])
    data = DATA_BACKWARD and not create_graph and not state.anomaly
    keep = None  # the nodes run, when their freeing waits for the samples' loop
    if state.sample_loop is not None and not retain_graph:
        retain_graph = True  # NOTE [ Graphs shared by vmap's samples ]
        keep = []
    run = direct = None  # with inputs given: the nodes that run; those no input's gradient reads
    plan = None  # autograd.grad's data walk: (the nodes it runs, the nodes it passes by)
    if data and targets is None and keep is None and not leaf_root:  # NOTE [ The data walk ]
        deps = None
    else:
        if data and keep is None and not leaf_root:  # (inputs were given)
            plan = _grad_plan(root_nodes, targets, buffers)  # NOTE [ autograd.grad's data walk ]
        if plan is not None:
            deps = None
            run = direct = plan[0]
        else:
            deps = _dependencies(root_nodes)
            if targets is not None:
                run = _executable(root_nodes, deps, targets, capture is None)
                direct = run.difference([e[0] for e in targets])
    prev = _set_grad_mode(create_graph)  # records nothing in inference mode, as torch
    prev_task = state.graph_task
    state.graph_task = _GraphTask(root_nodes, deps, run, targets, capture)
    try:
        ready = []
        declined = None  # a node whose data-level backward declined in _walk_data
        if deps is None:
            if plan is None:
                left = _walk_data(root_nodes, buffers, retain_graph)
            else:
                roots_run = [n for n in root_nodes if n in run]
                left = _walk_data(roots_run, buffers, retain_graph, capture is None)
                if left is None:
                    if capture is not None:
                        _capture_leaves(capture, buffers)
                else:  # the general loop goes on: the buffers of the nodes passed by are empty
                    for n in plan[1]:
                        if buffers.get(n) is _NO_GRAD:
                            del buffers[n]
            if left is not None:  # a node the data walk does not run: the general loop goes on
                deps, ready, declined = left
        else:
            for n in root_nodes:
                if deps.get(n, 0) == 0:
                    push_ready(ready, n)
        tried = False  # the node's data-level backward declined: set for _run_node, then reset
        while ready:
            node = _heappop(ready)[1]
            grads = buffers.pop(node, None)
            if grads is not None and node._n_out == 1:
                if (
                    data
                    and node._data_bw is not None
                    and not node._hooked  # no hooks at all
                    and (direct is None or node in direct)
                ):
                    if node is not declined and _run_data_node(node, grads, deps, ready, buffers):
                        if not retain_graph:
                            if node._saved.__class__ is tuple:
                                node._saved = _FREED  # NOTE [ Kept saved values ]
                        elif keep is not None:
                            keep.append(node)
                        continue
                    tried = True
                elif (
                    data
                    and node.__class__ is AccumulateGrad
                    and grads.__class__ is not Tensor
                    and targets is None
                ):
                    if _accumulate_data(node, grads):  # a leaf's array from _run_data_node
                        continue
                grads = [grads]
            hooked = False
            if targets is not None:
                if grads is None:  # NOTE [ Nodes no gradient reached ]
                    grads = [None] * node._n_out
                elif data:
                    grads = _as_tensors(node, grads)  # (arrays _run_data_node left)
                # A captured gradient is the one the tensor's hooks return, as in torch; the
                # node's own pre-hooks run only when the node does (see _executable).
                if node._pre_hooks is not None or node._retains is not None:
                    live = node in run
                    # none fire where the walk passes by; torch's lone root (no dummy root
                    # node above it) is always visited, needed or not: its tensors' hooks fire
                    if live or _reads(node, targets) or (len(roots) == 1 and node is root_nodes[0]):
                        grads = _pre_hooks(node, grads, live)
                        hooked = True
                elif node.__class__ is AccumulateGrad and node is root_nodes[0] and len(roots) == 1:
                    _lone_leaf_root(node, grads, targets)  # a leaf itself the lone root
                _collect(node, grads, targets, capture, create_graph)
            if node.__class__ is AccumulateGrad:
                if targets is None and grads is not None and grads[0] is not None:
                    g = grads[0]
                    leaf = None
                    if g.__class__ is not Tensor:  # an array from _run_data_node
                        leaf = node._variable()
                        if leaf is None:
                            continue
                        g = _make(g, leaf._device, False, None)
                    grads = None  # drop our other reference: NOTE [ Stealing gradients ]
                    _accumulate(node, g, create_graph, leaf)
                elif targets is None:
                    _undefined_leaf(node, True)  # NOTE [ Nodes no gradient reached ]
                continue
            if run is not None and node not in run:
                _skip(node, deps, ready)
                continue
            if grads is None:  # NOTE [ Nodes no gradient reached ]
                grads = [None] * node._n_out
            if data:
                grads = _as_tensors(node, grads)
            _run_node(node, grads, deps, ready, buffers, hooked, tried)
            tried = False
            # the saved tensors go now (NOTE [ Kept saved values ]); a sink node has none
            if not retain_graph:
                if getattr(node, "_saved", None).__class__ is tuple:
                    node._saved = _FREED
            elif keep is not None:
                keep.append(node)
        callbacks = state.graph_task.callbacks
        if callbacks is not None:  # queue_callback: in order, and those they queue too
            i = 0
            while i < len(callbacks):
                callbacks[i]()
                i += 1
    except ValueError as err:
        _raise_as_torch(err)
    finally:
        _restore_grad_mode(prev)
        state.graph_task = prev_task
        if keep:
            _release(keep, state.sample_loop)


def _raise_as_torch(err: ValueError):
    """NumPy's broadcasting ValueError from a backward formula (one whose saved tensor changed
    shape without a record: b.data = a smaller array after b was saved) as torch's RuntimeError,
    naming the first sizes that differ; other ValueErrors pass unchanged."""
    import ast
    import re

    m = re.match(
        r"operands could not be broadcast together with shapes (\(.*?\)) (\(.*?\))", str(err)
    )
    if m is None:
        raise err
    from minitorch._ops._common import broadcast_pair

    try:
        broadcast_pair(ast.literal_eval(m[1]), ast.literal_eval(m[2]))
    except RuntimeError as torch_error:  # (torch's, raised alone: NumPy's is not its cause)
        raise torch_error from None
    raise err


# NOTE [ The data walk ]
# The common backward (loss.backward() of a training step: no create_graph, no inputs=, no
# anomaly mode, no vmap) runs in _walk_data, which does not count each node's incoming edges
# first (torch's engine, and _run's general loop, count them in a walk of their own: with the
# counts' bookkeeping on every edge, ~7% of a small training step's Python). The nodes wait in
# a heap on their numbers (NOTE [ Walk order ]), the newest first, and a node goes on the heap
# when the first gradient reaches it. Once a node is the newest on the heap, every node that
# feeds it a gradient has run: each of them is newer than it (a node is made after the nodes
# it takes gradients from), and one not yet run would have a path from a root whose first node
# not yet run is on the heap and newer still. So the walk runs the nodes in the order of the
# counting walk, and each sees the sum of all its gradients. An accumulator, numbered below
# every node, would come off the heap at once: the walk keeps the leaves aside and
# accumulates them after its last node (torch runs each as soon as its gradient is complete;
# with no hooks on the leaves the order is not seen and .grad gets the same sums; a leaf's
# gradient buffer is held until then, which costs a parameter-sized array where .grad already
# holds one). A backward that raises part-way still accumulates the leaves that no node left to
# run feeds, as torch's has by then. A node the walk does not run (hooks, several outputs, a
# Tensor-only backward or one its data-level backward declines, a leaf with hooks or a hooked
# accumulator, a node no gradient reached) hands the rest of the graph to _run's general loop:
# the edges left are counted from the nodes reached and not yet run, and the loop goes on from
# there. A node reached only by None gradients holds _NO_GRAD in its buffer meanwhile.
# _GraphTask.deps, which hooks and checkpointing may ask for, is counted when asked.
# tests/test_s50_lead.py holds the order to the counting walk's and the gradients to the Tensor
# formulas'; tests/reference/test_s50_lead_reference.py the hooks' order to torch's.
_NO_GRAD = object()
_np_ndarray = _np.ndarray


def _calibrate_walk_reuse():
    buffers = {0: _np.empty(1)}
    grad = buffers.pop(0, None)
    return sys.getrefcount(grad)


_WALK_GRAD_REFS = _calibrate_walk_reuse()  # NOTE [ Reused gradients ], in _walk_data


def _walk_data(roots, buffers, retain_graph, accumulate=True):
    """Runs the backward from `roots` (whose gradients are in `buffers`) while every node can go
    the data-level way (NOTE [ The data walk ]); None when it ran them all, else (deps, ready,
    declined) for _run's general loop (`declined`: a node whose data-level backward declined,
    to run its Tensor formula). accumulate=False (autograd.grad): the leaves' gradients stay in
    `buffers`."""
    heap = []
    for n in roots:
        _heappush(heap, (n._prio, n))
    leaves = []
    node = None
    try:
        while heap:
            node = _heappop(heap)[1]
            grad = buffers.pop(node, None)
            bw = node._data_bw
            if bw is None or node._hooked:
                return _to_general(node, grad, heap, leaves, buffers, None)
            if grad.__class__ is _np_ndarray:
                if (
                    grad.size >= _REUSE_MIN  # (first: a small gradient loads no method)
                    and node._data_bw_owned is not None
                    and grad.base is None
                    and sys.getrefcount(grad) <= _WALK_GRAD_REFS
                ):
                    res = node._data_bw_owned(grad)  # NOTE [ Reused gradients ]
                else:
                    res = bw(grad)
            elif grad.__class__ is Tensor:
                res = bw(grad._data)
            elif grad is None or grad is _NO_GRAD or grad.__class__ is list:  # (a list: the
                return _to_general(node, grad, heap, leaves, buffers, None)  # node's outputs')
            else:  # a device's array
                res = bw(grad)
            if res.__class__ is not tuple:  # (an op with two or more inputs returns a tuple)
                if res is NotImplemented:
                    return _to_general(node, grad, heap, leaves, buffers, node)
                res = (res,)
            nxt = node._next
            dev = node._out_device
            cls = dev.backend.array_cls
            try:  # (zip checks the counts: a try costs nothing until it raises)
                for e, r, meta in zip(nxt, res, node._in_meta, strict=True):
                    if e is None:
                        continue
                    child = e[0]
                    if r is None:
                        if child not in buffers:
                            buffers[child] = _NO_GRAD
                            _reach(child, heap, leaves)
                        continue
                    if r.__class__ is not cls:
                        r = dev.backend.xp.asarray(r)  # NumPy's 0-d results are scalars
                    if (r.shape, r.dtype) != meta:  # meta: the input's (shape, dtype)
                        r = _conform_data(r, meta, node, nxt.index(e), dev)
                    if child._takes_arrays:  # (one output: Node._takes_arrays) _put, inlined
                        old = buffers.get(child)
                        if old is None:
                            buffers[child] = r  # the first gradient to reach it: _reach, inlined
                            if child.__class__ is AccumulateGrad:
                                leaf = child._variable()
                                if leaf is None or (
                                    leaf._hooks is None
                                    and not leaf._post_acc_hooks
                                ):
                                    leaves.append(child)
                                    continue
                            _heappush(heap, (child._prio, child))
                        elif old is _NO_GRAD:
                            buffers[child] = r
                        else:
                            r = (old._data if old.__class__ is Tensor else old) + r
                            if r.__class__ is not cls:
                                r = dev.backend.xp.asarray(r)
                            buffers[child] = r
                    else:  # a node that takes Tensors, or has more outputs (a list of Tensors)
                        old = buffers.get(child)
                        if old is None:
                            _reach(child, heap, leaves)
                        elif old is _NO_GRAD:
                            del buffers[child]
                        _put(buffers, child, e[1], _make(r, dev, False, None), _sum_grads)
            except ValueError:
                if len(res) == len(nxt):
                    raise
                _trim(node, res, len(nxt))  # extra Nones pass (their edges were all routed)
            except _Misfit as misfit:  # NOTE [ Outputs reshaped in place ]
                raise misfit.named(node, nxt.index(e)) from None
            if not retain_graph:
                if node._saved.__class__ is tuple:
                    node._saved = _FREED  # NOTE [ Kept saved values ]
            res = r = None  # (the buffers alone hold the gradients: NOTE [ Reused gradients ])
    except BaseException:
        # as torch's engine, which has run each accumulator as soon as its gradient was
        # complete, the leaves no node left to run feeds keep their gradients
        if leaves and accumulate:
            frontier = [] if node is None else [node]
            deps = _dependencies(frontier + [entry[1] for entry in heap] + leaves)
            res = r = grad = None
            _accumulate_leaves([acc for acc in leaves if deps[acc] == 0], buffers)
        raise
    grad = None
    if accumulate:
        _accumulate_leaves(leaves, buffers)
    return None


def _accumulate_leaves(leaves, buffers):
    """The data walk's accumulations, after its last node (NOTE [ The data walk ])."""
    for acc in leaves:
        g = buffers.pop(acc)
        if g is _NO_GRAD:
            _undefined_leaf(acc, True)  # NOTE [ Nodes no gradient reached ]
        elif g.__class__ is Tensor or not _accumulate_data(acc, g):
            leaf = acc._variable()
            if leaf is not None:
                if g.__class__ is not Tensor:
                    g = _make(g, leaf._device, False, None)
                _accumulate(acc, g, False, leaf)


# NOTE [ autograd.grad's data walk ]
# autograd.grad(outputs, inputs) and backward(inputs=) where every input is a leaf without hooks
# (the common calls: the parameters, or x of a jacobian) run on the data walk too (NOTE [ The
# data walk ]), in place of counting the graph's edges and ordering its nodes to find those
# they must run (_dependencies and _executable: a third of autograd.grad's Python on a small
# MLP). _grad_plan walks the graph once: where every path ends at an input's accumulator, every
# node reached runs; where some path ends elsewhere (another leaf's accumulator, a node with no
# edges) it takes the nodes that run from _executable, as the general loop does, and the others
# are passed by (their backward does not run, their saved values stay). Those get _NO_GRAD in
# their buffer before the walk starts, so the walk, which puts a node on its heap only when the
# first gradient reaches an empty buffer, never puts them there, at no cost to backward()'s
# walk. The inputs' accumulators collect their gradients as the walk's leaves do;
# backward(inputs=) accumulates them, autograd.grad takes them (_capture_leaves) and
# accumulates nothing (a leaf's tensor hooks would see the gradient first: with any, or a
# non-leaf or GradientEdge input, or a root passed by that has hooks, the general loop runs the
# call). A node the walk does not run hands the rest to the general loop as in backward(), with
# `run` from the plan. tests/test_s51_lead.py holds the results to the general loop's.


def _grad_plan(roots, targets, buffers):
    """(the nodes to run, the nodes passed by) for the data walk of autograd.grad or
    backward(inputs=), the latter marked in `buffers`; None where the general loop must run the
    call (NOTE [ autograd.grad's data walk ])."""
    inputs = set()
    for node, _ in targets:
        if node.__class__ is not AccumulateGrad:
            return None
        leaf = node._variable()
        if leaf is None or leaf._hooks is not None:
            return None
        inputs.add(node)
    # a path ends at an accumulator or at a node with no edges (once_differentiable's error
    # node): where every end reached is an input's accumulator, every node runs
    reached = set(roots)
    stack = list(roots)
    pop, push, add = stack.pop, stack.append, reached.add
    others = False  # an end reached that is no input's
    while stack:
        end = True
        for e in pop()._next:
            if e is not None:
                end = False
                if e[0] not in reached:
                    child = e[0]
                    add(child)
                    if child.__class__ is AccumulateGrad:
                        if child not in inputs:
                            others = True
                    else:
                        push(child)
        if end:
            others = True
    if not others:
        return reached.difference(inputs), ()
    # some path ends elsewhere: the nodes that run are those the general loop runs
    deps = _dependencies(roots)
    run = _executable(roots, deps, targets, False)
    passed = []
    for node in deps:
        if node in run or node in inputs:
            continue
        if node not in buffers:
            passed.append(node)
        elif node._hooked:  # a root passed by: torch fires a lone root's hooks
            return None
    for node in passed:
        buffers[node] = _NO_GRAD
    return run, passed


def _capture_leaves(capture, buffers) -> None:
    """The gradients the data walk left at autograd.grad's inputs, as Tensors in `capture`."""
    for key in capture:
        g = buffers.pop(key[0], None)
        if g is not None and g is not _NO_GRAD:
            if g.__class__ is not Tensor:  # (_as_tensors' accumulator case, inlined: it costs
                g = _make(g, key[0]._variable()._device, False, None)  # 5% of a small call)
            capture[key] = g


def _reach(child, heap, leaves):
    """Puts a node the data walk reached for the first time on its heap (a plain accumulator
    of a leaf without hooks in `leaves`)."""
    if child.__class__ is AccumulateGrad:
        leaf = child._variable()
        if leaf is None or (leaf._hooks is None and not leaf._post_acc_hooks):
            leaves.append(child)
            return
    _heappush(heap, (child._prio, child))


def _to_general(node, grad, heap, leaves, buffers, declined):
    """The state _run's general loop goes on from, where the data walk stops at `node` (popped
    with its gradient `grad`): its edges counted from the nodes reached and not yet run, and the
    ready ones on its heap (NOTE [ The data walk ])."""
    if grad is not None and grad is not _NO_GRAD:
        buffers[node] = grad
    frontier = [node]
    frontier += [entry[1] for entry in heap]
    frontier += leaves
    for n in frontier:
        if buffers.get(n) is _NO_GRAD:
            del buffers[n]  # the general loop's empty buffer (NOTE [ Nodes no gradient reached ])
    deps = _dependencies(frontier)
    ready = []
    for n in frontier:
        if deps[n] == 0:
            push_ready(ready, n)
    return deps, ready, declined


# NOTE [ Graphs shared by vmap's samples ]
# torch's vmap runs its function once on batched tensors, so `vmap(lambda v: autograd.grad(y, x,
# v))(vs)` walks y's graph once and may free it. minitorch's vmap runs the function once per
# sample (minitorch/func/_vmap.py), walking y's graph once per sample: freeing it after the
# first would make the second raise. So while a vmap's samples run (a SampleLoop is on
# state.sample_loop), a backward without retain_graph keeps what it ran and frees it by age: a
# node made inside the loop (this sample's) at once, as torch would; one made before the loop
# started (shared by all samples) when the loop ends, or, in a nested vmap, when the loop that
# made it ends. Node numbers tell the age: they only decrease (NOTE [ Walk order ]). Outside
# vmap, a backward pays one flag read for it (and the walk's free step one test of `keep` where
# retain_graph was given).


class SampleLoop:
    """One vmap's loop over its samples: the nodes made before it that a backward inside it ran
    without retain_graph (freed at its end)."""

    __slots__ = ("start", "deferred", "parent")

    def __init__(self, parent):
        self.start = _next_prio()  # every node made from now on has a smaller number
        self.deferred = {}  # an ordered set: each sample's backward runs the shared nodes again
        self.parent = parent


def enter_sample_loop() -> SampleLoop:
    """Starts a vmap's per-sample loop (NOTE [ Graphs shared by vmap's samples ])."""
    loop = state.sample_loop = SampleLoop(state.sample_loop)
    return loop


def exit_sample_loop(loop: SampleLoop) -> None:
    """Ends the loop enter_sample_loop started: frees what its samples' backwards ran and left
    (the nodes older than an enclosing loop wait for that one)."""
    state.sample_loop = loop.parent
    deferred, loop.deferred = loop.deferred, {}
    _release(deferred, loop.parent)


def _release(nodes, loop) -> None:
    """Frees the saved tensors of the nodes made inside `loop` (all with no loop); the older
    ones wait for it to end."""
    for node in nodes:
        if loop is not None and node._prio > loop.start:
            loop.deferred[node] = None
        elif getattr(node, "_saved", None).__class__ is tuple:
            node._saved = _FREED


class _GraphTask:
    """One running backward, for code that asks about it while it runs (checkpointing, multi-grad
    hooks): the nodes it reaches, those it runs when `inputs` were given, and those inputs;
    `capture` is not None in autograd.grad (which fills no .grad)."""

    __slots__ = ("roots", "_reached", "run", "targets", "capture", "callbacks", "__weakref__")

    def __init__(self, roots, deps, run, targets, capture):
        self.roots = roots
        self._reached = deps  # None until asked for, where the data walk runs without it
        self.run = run
        self.targets = targets
        self.capture = capture
        self.callbacks = None  # queue_callback's functions, run when the walk is done

    @property
    def deps(self) -> dict:
        """The nodes this backward reaches (keys; their counts of incoming edges, values)."""
        if self._reached is None:
            self._reached = _dependencies(self.roots)
        return self._reached

    def will_execute(self, node) -> bool:
        """Whether this backward runs `node` (a tensor's grad_fn or AccumulateGrad)."""
        if node not in self.deps:
            return False
        if self.targets is None:
            return True
        if isinstance(node, AccumulateGrad):
            return (node, 0) in self.targets
        # a node autograd.grad reads a gradient at counts, though its backward does not run
        return node in self.run or _reads(node, self.targets)


def _lone_leaf_root(node, grads, targets) -> None:
    """A leaf's tensor hooks fire when it is the lone root of a walk that does not accumulate
    into it (torch visits its lone root, needed or not)."""
    if (node, 0) not in targets:
        leaf = node._variable()
        if leaf is not None and leaf._hooks is not None and grads[0] is not None:
            _leaf_hooks(leaf, grads[0])


def _reads(node, targets) -> bool:
    """Whether an input's gradient is read at node (autograd.grad runs such a node's tensor
    hooks, and counts it as executed, even where its backward does not run)."""
    return any(e[0] is node for e in targets)


def _collect(node, grads, targets, capture, create_graph):
    """The gradient reaching an explicit input: captured (grad) or accumulated (backward)."""
    for nr, g in enumerate(grads):
        key = (node, nr)
        if key not in targets:
            continue
        if capture is None:
            if isinstance(node, AccumulateGrad):
                grads[nr] = None
                if node.__class__ is not AccumulateGrad:  # a hooked one runs as torch's does:
                    _accumulate_hooked(node, g, create_graph)  # its node hooks too
                    if node._hooks is not None:
                        _post_hooks(node, (), (g,))
                elif g is not None:
                    _accumulate(node, g, create_graph)
                else:
                    _undefined_leaf(node, True)  # NOTE [ Nodes no gradient reached ]
            # (a non-leaf input of backward() got its .grad from the retain_grad backward() set)
            continue
        if g is None:  # NOTE [ Nodes no gradient reached ]
            if isinstance(node, AccumulateGrad):
                _undefined_leaf(node, False)
            continue
        if isinstance(node, AccumulateGrad):
            leaf = node._variable()
            if leaf is not None and leaf._hooks is not None:
                g = _leaf_hooks(leaf, g)
        capture[key] = g if capture[key] is None else capture[key] + g


def push_ready(ready, node):
    """Puts a node whose gradients are complete on the walk's heap (NOTE [ Walk order ])."""
    _heappush(ready, (node._prio, node))


def pop_ready(ready):
    """The next node to run from the walk's heap."""
    return _heappop(ready)[1]


def _skip(node, deps, ready):
    for e in node._next:
        if e is not None:
            child = e[0]
            deps[child] -= 1
            if deps[child] == 0:
                push_ready(ready, child)


def _run_node(node, grads, deps, ready, buffers, hooked=False, tried=False):
    """Runs one node's backward and routes its input gradients to the next nodes' buffers
    (`hooked`: the pre-hooks already ran on `grads`; `tried`: its data-level backward declined
    them)."""
    if not hooked and (node._pre_hooks is not None or node._retains is not None):
        grads = _pre_hooks(node, grads)
    if len(grads) == 1:
        if grads[0] is None:
            grads = _undefined(node, grads, deps, ready)
            if grads is None:
                return
    elif any(g is None for g in grads):
        if all(g is None for g in grads):
            grads = _undefined(node, grads, deps, ready)
            if grads is None:
                return
        elif node._materialize:
            grads = _materialize(node, grads)
    if state.anomaly:
        from minitorch.autograd.anomaly_mode import run_backward_checked

        grad_inputs = run_backward_checked(node, grads)
        if not node._fn._builtin:
            grad_inputs = _check_custom_grads(node, grad_inputs)
    elif node._data_bw is not None and not (state.enabled or tried) and DATA_BACKWARD:
        grad_inputs = _data_backward(node, grads)
        if grad_inputs is NotImplemented:  # a case the op leaves to its Tensor formula
            grad_inputs = node._fn.backward(node, *grads)
    elif node._fn._builtin:
        grad_inputs = node._fn.backward(node, *grads)
    else:
        grad_inputs = _check_custom_grads(node, node._fn.backward(node, *grads))
    if grad_inputs.__class__ is not tuple:
        grad_inputs = tuple(grad_inputs) if isinstance(grad_inputs, list) else (grad_inputs,)
    nxt = node._next
    if len(grad_inputs) != len(nxt):
        grad_inputs = _trim(node, grad_inputs, len(nxt))
    if node._hooks is not None:
        grad_inputs = _post_hooks(node, grad_inputs, grads)
    meta = node._in_meta
    for i, e in enumerate(nxt):
        if e is None:
            continue
        child, nr = e
        g = grad_inputs[i]
        if g is not None:
            if g.__class__ is not Tensor:
                if not isinstance(g, Tensor):
                    raise TypeError(
                        f"function {type(node).__name__} returned a gradient of type "
                        f"{type(g).__name__} for input {i}; expected a Tensor or None"
                    )
                g = _plain_grad(g)
            m = meta[i]
            data = g._data
            if (data.shape, data.dtype) != m:
                g = _conform(g, m, node, i)
            try:
                _put(buffers, child, nr, g, _sum_grads)
            except _Misfit as misfit:  # NOTE [ Outputs reshaped in place ]
                raise misfit.named(node, i) from None
        left = deps[child] - 1
        deps[child] = left
        if left == 0:
            _heappush(ready, (child._prio, child))  # push_ready, inlined


# NOTE [ Nodes no gradient reached ]
# A node reached by the walk whose outputs got no gradient (every consumer's backward returned
# None for them: a custom Function's, or a path that is not differentiable) still runs in
# torch's engine, on undefined gradients: its outputs' tensor hooks and its pre-hooks see None,
# a custom Function's backward runs on zeros (on None after ctx.set_materialize_grads(False)),
# and what it returns flows on (a leaf behind it gets zeros, not None); a built-in op unpacks
# what it saved (unpack hooks run; a tensor modified in place, or freed, raises) and passes
# None on, its post hooks seeing None, and its saved tensors are freed; a leaf's tensor hooks
# see None (and may not return a gradient) and its post-accumulate hooks run on .grad as it is.
# The walk does the same on its rare path: a node whose buffer is empty is run with a None per
# output (_run_node hands it to _undefined), a plain accumulator calls _undefined_leaf. A
# retained grad stays None, as in torch. The common node, with a gradient, pays no test.


def _undefined(node, grads, deps, ready):
    """The gradients a node with none at all runs its backward on (NOTE [ Nodes no gradient
    reached ]): a custom Function's zeros (or its Nones), a hooked accumulator's None; None when
    the node is done (a built-in op passes None on, its post hooks seeing it)."""
    fn = node._fn
    if not fn._builtin:
        return _materialize(node, grads) if node._materialize else grads
    if isinstance(node, AccumulateGrad):  # its backward is _accumulate_hooked, which takes None
        return grads
    node._stored_tensors  # noqa: B018 - torch's nodes unpack what they saved (hooks, checks)
    if node._hooks is not None:
        _post_hooks(node, (None,) * len(node._next), grads)
    _skip(node, deps, ready)
    return None


def _undefined_leaf(acc, accumulate: bool) -> None:
    """A leaf's accumulator that no gradient reached (NOTE [ Nodes no gradient reached ]): the
    leaf's tensor hooks see None; where it would accumulate, its post-accumulate hooks run."""
    leaf = acc._variable()
    if leaf is None:
        return
    if leaf._hooks is not None:
        _leaf_hooks(leaf, None)
    post = leaf._post_acc_hooks if accumulate else None
    if post:
        _post_accumulate_hooks(leaf, post)


def _check_custom_grads(node, grad_inputs) -> tuple:
    """What a custom Function's backward returned, checked as torch checks it: a tuple (a list
    is one value, as in torch) of Tensors or None, None where forward's input was not a
    Tensor."""
    grad_inputs = grad_inputs if grad_inputs.__class__ is tuple else (grad_inputs,)
    if len(grad_inputs) != len(node._next):  # the count is checked first, as torch
        grad_inputs = _trim(node, grad_inputs, len(node._next))
    shown = node._shown  # the positions of forward's Tensor inputs, when some were not
    for i, g in enumerate(grad_inputs):
        if g is None:
            continue
        if shown is not None and i not in shown and i < len(node._next):
            raise RuntimeError(
                f"function {type(node).__name__} returned a gradient different than None at "
                f"position {i + 1}, but the corresponding forward input was not a Variable"
            )
        if not isinstance(g, Tensor):
            cls = type(g)
            name = cls.__qualname__
            if cls.__module__ != "builtins":
                name = f"{cls.__module__}.{name}"
            raise RuntimeError(f"expected Variable or None (got {name})")
    return grad_inputs


# NOTE [ Data-level backward ]
# Every op's `backward` is written with Tensor ops, so that it can be differentiated again under
# create_graph. When no graph is being built (loss.backward(), the common case) those Tensor ops
# only add their Python cost (~3 us each, against ~1 us for the kernel of a small array) to the
# step. So the ops on the per-step path of small models also define `_backward_data(ctx, *grads)`:
# the same formula on the gradients' and saved tensors' arrays (ctx._stored_arrays()), usually the
# fused backward Function's own kernel. The engine calls it when grad mode is off in backward
# (not under anomaly mode, which checks the Tensor formulas' results) and wraps what it returns;
# a common node (one output, no hooks) goes through _walk_data (NOTE [ The data walk ]) or, in
# the general loop, _run_data_node, which route the arrays
# without the general path's checks and makes no Tensor per gradient: arrays stay arrays from
# one such node to the next and become a Tensor at a leaf (or at a node that runs its Tensor
# backward). An op returns NotImplemented for a case it leaves to its Tensor formula. A
# first-order gradcheck runs `_backward_data`, a second-order one `backward`, and
# tests/ops/test_data_backward.py compares the two on the op table, through backward() and
# through autograd.grad. Where inputs are given (autograd.grad, backward(inputs=)), leaf inputs
# without hooks take the data walk (NOTE [ autograd.grad's data walk ]); other calls run the
# general loop, whose nodes route arrays too, but for those whose gradients an input reads
# (`direct` in _run): those see Tensors, as does what they capture (tests/test_s50_lead.py).

DATA_BACKWARD = True  # False: every node runs `backward` (the tests compare the two paths)

# NOTE [ Reused gradients ]
# A pointwise backward such as ReLU's (grad * (y > 0)) or GELU's (grad * deriv) reads its
# gradient once and returns an array of the same shape. When that gradient is a NumPy array the
# walk alone holds (made by the node before, held by no other buffer, no hook, no user, no view
# of anything), the op may write its result into it: `_backward_data_owned(ctx, grad)`. On big
# arrays that saves the new array's memory traffic, ~35% of such a pass ((256, 512) float32:
# 83 -> 46 us; (64, 16, 28, 28): 765 -> 496 us). "The walk alone holds it" is read from its
# reference count, calibrated at import for the call shape of _run and _run_data_node (the
# buffer's value popped into _run's local, passed on) and for _walk_data (popped into its own
# local, which drops the last node's results first). Only host arrays (the strict test device
# wraps arrays that other wrappers may share) from _REUSE_MIN elements (below, the array is in
# cache and the allocation cheap).
_REUSE_MIN = 1 << 14


def _probe_reuse(grad):
    return sys.getrefcount(grad)


def _calibrate_reuse():
    buffers = {0: _np.empty(1)}
    grads = buffers.pop(0, None)
    return _probe_reuse(grads)


_UNSHARED_GRAD_REFS = _calibrate_reuse()


def _run_data_node(node, grad, deps, ready, buffers) -> bool:
    """_run_node for the common node (one output, no hooks, a data-level backward), on arrays:
    its gradient may be an array or a Tensor (never None: _run runs such a node the general way),
    and the gradients it routes stay arrays for the nodes that take them (Node._takes_arrays: a
    built-in op's and a leaf's; no Tensor is made per edge); False where the op hands the case
    to its Tensor formula."""
    if grad.__class__ is Tensor:
        res = node._data_bw(grad._data)  # the op's _backward_data, bound to the node (its ctx)
    elif (
        node._data_bw_owned is not None
        and grad.__class__ is _np.ndarray
        and grad.size >= _REUSE_MIN
        and grad.base is None
        and sys.getrefcount(grad) <= _UNSHARED_GRAD_REFS
    ):
        res = node._data_bw_owned(grad)  # NOTE [ Reused gradients ]
    else:
        res = node._data_bw(grad)
    if res.__class__ is not tuple:  # (an op with two or more inputs returns a tuple)
        if res is NotImplemented:
            return False
        res = (res,)
    nxt = node._next
    if len(res) != len(nxt):
        res = _trim(node, res, len(nxt))
    cls = node._out_device.backend.array_cls  # (the device itself is read where it is needed)
    for e, r, meta in zip(nxt, res, node._in_meta, strict=True):
        if e is None:
            continue
        child = e[0]
        if r is not None:
            if r.__class__ is not cls:
                r = node._out_device.backend.xp.asarray(r)  # NumPy's 0-d results are scalars
            if (r.shape, r.dtype) != meta:  # meta: the input's (shape, dtype)
                r = _conform_data(r, meta, node, nxt.index(e), node._out_device)
            if child._takes_arrays:  # (one output: Node._takes_arrays) _put, inlined, on arrays
                old = buffers.get(child)
                if old is not None:
                    r = (old._data if old.__class__ is Tensor else old) + r
                    if r.__class__ is not cls:
                        r = node._out_device.backend.xp.asarray(r)
                buffers[child] = r
            else:  # a node that takes Tensors, or has more outputs (a list of Tensors)
                try:
                    _put(buffers, child, e[1], _make(r, node._out_device, False, None), _sum_grads)
                except _Misfit as misfit:  # NOTE [ Outputs reshaped in place ]
                    raise misfit.named(node, nxt.index(e)) from None
        left = deps[child] - 1
        deps[child] = left
        if left == 0:
            _heappush(ready, (child._prio, child))  # push_ready, inlined
    return True


def _put(buffers, node, nr, g, add):
    """Stores the gradient g of node's output nr. A one-output node's buffer is its gradient
    itself (no list to make and index on the common path), a node with more outputs has a list
    with a slot per output; a second gradient for a slot is summed with `add`."""
    if node._out_fixed is not None:  # NOTE [ Outputs reshaped in place ]
        g = _refit(node._out_fixed, nr, g)
    if node._n_out == 1:
        old = buffers.get(node)
        buffers[node] = g if old is None else add(old, g)
    else:
        buf = buffers.get(node)
        if buf is None:
            buf = buffers[node] = [None] * node._n_out
        buf[nr] = g if buf[nr] is None else add(buf[nr], g)


# NOTE [ Outputs reshaped in place ]
# A tensor that a recorded op made can change its shape or dtype without a record: under
# no_grad, squeeze_/unsqueeze_/t_/transpose_/as_strided_, set_ and `.data =` keep its grad_fn.
# The ops that take it afterwards record its new shape, so the gradients they send to its
# node have that shape, while the node's backward works on the shape its op made (a cumsum's
# reversal along dim 1 of a gradient with a new leading dim would run along the wrong dim,
# silently). torch's engine checks every gradient it passes against the shape and dtype the
# receiving node's output had when made, sums a gradient that broadcasting can explain back
# to it and refuses any other, naming the sender. Here the node alone pays: the change
# records the node's output's original (shape, dtype) in `_out_fixed` (nr -> meta) and sends
# its gradients through _put (`_takes_arrays` off), which refits them; the sender is named by
# its caller, which catches _Misfit. Gradients of the ops recorded before the change already
# have the shape. A view's grad_fn is made again from its base after such a change (see
# set_shape_), so it is not marked. A leaf's accumulator is marked where a graph holds it (its
# leaf's .grad is then the refitted gradient copied into the leaf's new shape, as torch's
# AccumulateGrad copies into the variable's layout: _store_grad); one no graph holds is dropped
# for a new one, as torch's expires (reshaped_in_place). tests/test_s61_reshaped.py.


class _Misfit(Exception):
    """A gradient that no sum over broadcast dims fits to its node's output (_refit)."""

    def named(self, node, i) -> RuntimeError:
        """torch's error, naming the node that sent the gradient (None: a root's)."""
        got, shape = self.args
        prefix = "" if node is None else f"Function {type(node).__name__} returned an "
        return RuntimeError(
            f"{prefix}invalid gradient at index {i} - got {list(got)} but expected shape "
            f"compatible with {list(shape)}"
        )


def _refit(fixed, nr, g):
    """g, a gradient of a node's output nr, summed over broadcast dims to the shape and cast to
    the dtype the output had when made (NOTE [ Outputs reshaped in place ]); _Misfit where
    broadcasting cannot explain its shape."""
    meta = fixed.get(nr)
    if meta is None or g is None:
        return g
    data = g._data
    if (data.shape, data.dtype) == meta:
        return g
    shape = meta[0]
    gshape = data.shape
    lead = len(gshape) - len(shape)
    if lead < 0 or any(s != 1 and s != gs for s, gs in zip(shape, gshape[lead:], strict=True)):
        raise _Misfit(gshape, shape)
    return _conform(g, meta, None, 0)


def _take(buffers, node):
    """The gradients stored for node's outputs (see _put), as a list; None when none came."""
    got = buffers.pop(node, None)
    return [got] if got is not None and node._n_out == 1 else got


def _as_tensors(node, grads):
    """A node's gradients as Tensors for its Tensor backward (_run_data_node leaves arrays in
    the buffers of the nodes that take them; a node whose hooks came during the walk, or whose
    data-level backward declined, runs its Tensor backward)."""
    for g in grads:
        if g is not None and g.__class__ is not Tensor:
            break
    else:
        return grads
    if isinstance(node, AccumulateGrad):  # (an input's, whose gradient autograd.grad reads)
        leaf = node._variable()
        if leaf is None:
            return grads
        dev = leaf._device
    else:
        dev = node._out_device
    return [g if g is None or g.__class__ is Tensor else _make(g, dev, False, None) for g in grads]


def _conform(g, meta, node, i):
    """A gradient summed back over broadcast dims and cast to its input's shape and dtype."""
    if not state.enabled and sum_kernel is not None:  # no graph is being built: on the array
        return _make(_conform_data(g._data, meta, node, i, g._device), g._device, False, None)
    shape, dtype = meta
    if g._data.shape != shape:
        g = _unbroadcast(g, shape, node, i)
    if g._data.dtype != dtype:
        g = g.to(_dtype_of(dtype))
    return g


_FIRST_DIM = (0,)


def _conform_data(r, meta, node, i, dev):
    """_conform of an array gradient, where no graph is being built."""
    shape, dtype = meta
    rs = r.shape
    if rs != shape:
        if len(rs) == len(shape) + 1 and rs[1:] == shape:  # a bias over a batch, inlined
            r = sum_kernel(dev.backend.xp, r, _FIRST_DIM, False)
            return r if r.dtype == dtype else _conform_data(r, meta, node, i, dev)
        lead, ones = _broadcast_dims(rs, shape, node, i)
        xp = dev.backend.xp
        if not ones:  # only leading dims to drop (a bias over a batch): the sum has the shape
            r = sum_kernel(xp, r, tuple(range(lead)), False)
        else:
            r = xp.asarray(sum_kernel(xp, r, tuple(range(lead)) + ones, True)).reshape(shape)
    if r.dtype != dtype:
        r = _make(r, dev, False, None).to(_dtype_of(dtype))._data  # Tensor.to's casting rules
    return r


def _data_backward(node, grads):
    """node's input gradients from its `_backward_data` (NOTE [ Data-level backward ])."""
    res = node._data_bw(*[None if g is None else g._data for g in grads])
    if res is NotImplemented:
        return res
    dev = node._out_device
    cls = dev.backend.array_cls
    out = []
    for r in res if res.__class__ is tuple else (res,):
        if r is not None:
            if r.__class__ is not cls:
                r = dev.backend.xp.asarray(r)  # NumPy's 0-d results are scalars
            r = _make(r, dev, False, None)
        out.append(r)
    return tuple(out)


def _sum_grads(a: Tensor, b: Tensor) -> Tensor:
    """Two gradients of one tensor (same shape, dtype and device) added: a Tensor op under
    create_graph, where the sum must be differentiable; else one array addition, since no graph
    is being built (a Tensor add costs ~3 us of Python per shared input)."""
    if state.enabled:
        return a + b
    if a.__class__ is not Tensor:  # an array _run_data_node left
        a = _make(a, b._device, False, None)
    d = a._data + b._data
    backend = a._device.backend
    if d.__class__ is not backend.array_cls:  # NumPy's 0-d sums are scalars
        d = backend.xp.asarray(d)
    return _make(d, a._device, False, None)


def _trim(node, grad_inputs, n):
    # torch accepts extra trailing Nones (gradients for non-tensor arguments).
    if len(grad_inputs) > n and all(g is None for g in grad_inputs[n:]):
        return grad_inputs[:n]
    raise RuntimeError(
        f"function {type(node).__name__} returned an incorrect number of gradients (expected "
        f"{n}, got {len(grad_inputs)})"
    )


def _dtype_of(np_dtype):
    from minitorch._dtype import from_numpy

    return from_numpy(np_dtype)


def _unbroadcast(g: Tensor, shape, node, i) -> Tensor:
    """Sums a gradient of a broadcast result back to the input's shape (differentiably), with
    torch's nodes (at::sum_to's, as sum_to_size: a keepdim sum viewed to drop leading dims, a
    full sum for a 0-d input), which a graph of gradients (create_graph) shows."""
    _broadcast_dims(g._data.shape, shape, node, i)  # (torch's error where it cannot be)
    return g.sum_to_size(shape)


def _broadcast_dims(gshape, shape, node, i):
    """(the number of leading dims, the dims of size 1 in `shape`) that broadcasting added to
    an input of `shape` to make `gshape`; torch's error where it cannot have."""
    lead = len(gshape) - len(shape)
    if lead > 0 and gshape[lead:] == shape:  # the common case: a bias over a batch
        return lead, ()
    if lead < 0 or any(s != 1 and s != gs for s, gs in zip(shape, gshape[lead:], strict=True)):
        raise RuntimeError(
            f"Function {type(node).__name__} returned an invalid gradient at index {i} - got "
            f"{list(gshape)} but expected shape compatible with {list(shape)}"
        )
    ones = tuple(
        lead + k
        for k, (s, gs) in enumerate(zip(shape, gshape[lead:], strict=True))
        if s == 1 and gs != 1
    )
    return lead, ones


# The ops layer's array sum (minitorch._ops.reduction.sum_array, half precision accumulating in
# float32), registered there at import: the data-level path un-broadcasts on arrays with it.
sum_kernel = None


class _Materialized(list):
    """The gradients a node's backward gets, zeros for unused outputs, with those it received
    (`received`, None for them: what its post hooks see)."""

    __slots__ = ("received",)


def _materialize(node, grads):
    """A multi-output node reached through some outputs only: the others' gradients are zeros
    (None stays for outputs that were not tensors)."""
    shapes = node.__dict__.get("_out_shapes")
    out = _Materialized(grads)
    out.received = grads
    for k, g in enumerate(out):
        if g is None and shapes is not None and shapes[k] is not None:
            shape, dtype = shapes[k]
            out[k] = _make(node.xp.zeros(shape, dtype), node._out_device, False, None)
    return out


# --- hooks ---


def _pre_hooks(node, grads, node_hooks=True):
    """Tensor hooks of the node's outputs, then retain_grad, then (with `node_hooks`: the node
    will run) the node's pre-hooks, in torch's order. Tensor hooks live in
    node._pre_hooks[output_nr], node pre-hooks under the key None."""
    grads = list(grads)
    pre = node._pre_hooks
    if pre is not None:
        for nr, hooks in pre.items():
            if nr is None:
                continue
            for hook in list(hooks.values()):
                if grads[nr] is None:
                    # torch calls the hooks of a node's unused outputs with None (a node
                    # autograd.grad only reads from too)
                    if hook(None) is not None:
                        raise RuntimeError(_NONE_REPLACED)
                    continue
                res = hook(grads[nr])
                if res is not None:
                    _check_hook_result(hook, grads[nr], res)
                    grads[nr] = res
    if node._retains is not None:
        for nr, ref in node._retains.items():
            t = ref()
            g = grads[nr]
            if t is not None and g is not None:
                t._grad = _owned(g, state.enabled) if t._grad is None else t._grad + g
    hooks = None if pre is None or not node_hooks else pre.get(None)
    if hooks:
        for hook in list(hooks.values()):
            res = hook(tuple(grads))
            if res is not None:
                grads = list(_check_hook_results(hook, grads, res))
    return grads


def _post_hooks(node, grad_inputs, grad_outputs):
    # a hook sees None for an unused output, as in torch, not the zeros backward got
    grad_outputs = getattr(grad_outputs, "received", grad_outputs)
    if "_hooked_grad" in node.__dict__:  # a hooked AccumulateGrad (see _accumulate_hooked)
        grad_outputs = (node.__dict__.pop("_hooked_grad"),)
    shown = node._shown
    if shown is not None:  # the hooks see the edges next_functions lists (a custom Function's
        # Tensor inputs), as torch's
        every, grad_inputs = list(grad_inputs), tuple(grad_inputs[i] for i in shown)
    for hook in list(node._hooks.values()):
        res = hook(grad_inputs, tuple(grad_outputs))
        if res is not None:
            grad_inputs = _check_hook_results(hook, grad_inputs, res)
    if shown is not None:
        for i, g in zip(shown, grad_inputs, strict=True):
            every[i] = g
        grad_inputs = tuple(every)
    return grad_inputs


def _hook_name(hook) -> str:
    name = getattr(hook, "__name__", None)  # torch's: a partial or a callable object has none
    return name if isinstance(name, str) else "<unknown>"


_NONE_REPLACED = "can't replace a None gradient with a non-None value"


def _check_hook_result(hook, old: Tensor, new) -> None:
    if old is None:  # torch's rule: a hook may drop a gradient, not make one up
        raise RuntimeError(_NONE_REPLACED)
    if not isinstance(new, Tensor):
        raise TypeError(f"expected Variable, but hook returned '{type(new).__name__}'")
    if new._data.dtype != old._data.dtype or new._device is not old._device:
        raise RuntimeError(
            f"hook '{_hook_name(hook)}' has changed the type of value (was {_full_type(old)} got "
            f"{_full_type(new)})"
        )
    if new._data.shape != old._data.shape:
        raise RuntimeError(f"hook '{_hook_name(hook)}' has changed the size of value")


def _check_hook_results(hook, old, new) -> tuple:
    if not isinstance(new, tuple):
        raise TypeError(f"expected tuple, but hook returned '{type(new).__name__}'")
    if len(new) != len(old):
        raise RuntimeError(
            f"hook '{_hook_name(hook)}' has returned an incorrect number of values (got "
            f"{len(new)}, but expected {len(old)})"
        )
    for o, n in zip(old, new, strict=True):
        if o is None:
            if n is not None:  # torch's rule: a hook may drop a gradient, not make one up
                raise RuntimeError(_NONE_REPLACED)
        elif n is not None:
            _check_hook_result(hook, o, n)
    return new


def _full_type(t: Tensor) -> str:
    if t._device.type == "meta":  # no legacy tensor type there: torch's "MetaDoubleType"
        name = _type_name(t._data.dtype)
        return f"Meta{name[len('torch.') : -len('Tensor')]}Type"
    # torch.FloatTensor, or CPUBFloat16Type for a dtype without a legacy class
    return checked_type_name(t)


# --- storing gradients ---

# NOTE [ Stealing gradients ]
# A gradient computed by backward is usually a fresh array nobody else holds: it becomes `.grad` as
# is. When the same Tensor is referenced elsewhere (Add passes one grad to both inputs, a hook kept
# it) or its memory is shared (reshape returns a view, a backward returned `grad.detach()`), it is
# copied, so a `.grad` never aliases another tensor and in-place accumulation into it is safe.
# "Referenced elsewhere" is read from reference counts. Every caller of _owned holds the gradient
# exactly once (a local or a list slot) and passes it through one more call, so an unshared
# gradient has the count _probe measures below for the same call shape at import.


def _probe_owned(x):
    return sys.getrefcount(x), sys.getrefcount(x._data)


def _probe_caller(x):
    return _probe_owned(x)


def _calibrate():
    class Probe:
        __slots__ = ("_data",)

    held = Probe()
    held._data = object()
    return _probe_caller(held)


_UNSHARED_REFS, _UNSHARED_DATA_REFS = _calibrate()


def _owned(g: Tensor, create_graph: bool = False, leaf: bool = False) -> Tensor:
    """`g` itself when nothing else can see it or its memory, else a copy.
    See NOTE [ Stealing gradients ]."""
    if create_graph:
        return _graph_copy(g, leaf)
    if (
        sys.getrefcount(g) <= _UNSHARED_REFS
        and sys.getrefcount(g._data) <= _UNSHARED_DATA_REFS
        and g._base is None
        and not g._requires_grad  # (so no grad_fn): a hook's requires-grad result is copied
        and g._device.backend.owns_data(g._data)
    ):
        return g
    if leaf:
        return _copied(g._data.copy(), g._device)
    return _make(g._data.copy(), g._device, False, None)  # a retained grad: torch clones


def _copied(data, device) -> Tensor:
    """A gradient copied into a new .grad: torch fills new memory with copy_, so its version
    starts at 1."""
    t = _make(data, device, False, None)
    t._vc[0] = 1
    return t


def _graph_copy(g: Tensor, leaf: bool) -> Tensor:
    # Under create_graph torch always stores a differentiable copy: a leaf's .grad shows
    # grad_fn=<CopyBackwards> (a copy_ into fresh memory), a retained grad <CloneBackward0>.
    if not leaf:
        return g.clone()
    out = _make(g._device.backend.xp.empty_like(g._data), g._device, False, None)
    return out.copy_(g)


def _leaf_hooks(leaf: Tensor, g: Tensor) -> Tensor:
    for hook in list(leaf._hooks.values()):
        res = hook(g)
        if res is not None:
            _check_hook_result(hook, g, res)
            g = res
    return g


def _accumulate(acc: AccumulateGrad, g: Tensor, create_graph: bool, leaf=None):
    if leaf is None:  # the caller may have looked it up already
        leaf = acc._variable()
        if leaf is None:
            return
    if leaf._hooks is not None:
        g = _leaf_hooks(leaf, g)
    old = leaf._grad  # _store_grad, inlined: every leaf of every step passes here
    if old is None:
        leaf._grad = _laid_as(_owned(g, create_graph, leaf=True), leaf)
    elif create_graph or not _add_into(old, g._data):  # in place otherwise, as torch (even into
        leaf._grad = old + g  # a .grad a create_graph backward left in the graph)
    post = leaf._post_acc_hooks
    if post:
        _post_accumulate_hooks(leaf, post)


def _probe_array(g):
    return sys.getrefcount(g)


def _calibrate_array():
    g = _np.empty(1)  # held once by the caller, as _run holds a gradient it popped
    return _probe_array(g)


_UNSHARED_ARRAY_REFS = _calibrate_array()


def _accumulate_data(acc: AccumulateGrad, g) -> bool:
    """_accumulate for the plain accumulator of a leaf without hooks, on the array gradient
    _run_data_node routed to it (every leaf of every step): no Tensor is made where the
    gradient is added into an existing .grad, and a fresh array becomes the new .grad as is
    (NOTE [ Stealing gradients ]: the caller holds it once). False where the general path must
    run (hooks, a .grad of another size or dtype or read-only, a shared gradient)."""
    leaf = acc._variable()
    if leaf is None:
        return True
    if leaf._hooks is not None or leaf._post_acc_hooks:
        return False
    old = leaf._grad
    if old is None:
        dev = leaf._device
        if sys.getrefcount(g) > _UNSHARED_ARRAY_REFS or (
            g.base is not None and not dev.backend.owns_data(g)
        ):
            return False
        new = _make(g, dev, False, None)
        # _laid_as's first test, inlined: a row-major leaf and gradient need nothing more
        leaf._grad = new if g.ndim < 2 or g.strides == leaf._data.strides else _laid_as(new, leaf)
        return True
    return _add_into(old, g)


def _store_grad(leaf: Tensor, g: Tensor, create_graph: bool) -> None:
    """leaf.grad = g, or leaf.grad += g (in its memory where it can be)."""
    old = leaf._grad
    if old is None:
        if g._data.shape != leaf._data.shape:  # NOTE [ Outputs reshaped in place ]: as torch,
            g = _broadcast_to_leaf(g, leaf)  # copied into the leaf's shape where it broadcasts
        leaf._grad = _laid_as(_owned(g, create_graph, leaf=True), leaf)
    elif create_graph or not _add_into(old, g._data):  # in place otherwise, as torch (even into
        leaf._grad = old + g  # a .grad a create_graph backward left in the graph)


def _broadcast_to_leaf(g: Tensor, leaf: Tensor) -> Tensor:
    """A gradient of the shape a leaf had when its accumulator was made, copied into a new
    tensor of the leaf's shape now (differentiably under create_graph)."""
    from minitorch._factories import empty

    return empty(leaf._data.shape, dtype=g.dtype, device=g._device).copy_(g)


def _post_accumulate_hooks(leaf: Tensor, hooks: dict) -> None:
    arg = leaf
    modified = False
    for hook in list(hooks.values()):
        returned = hook(arg)
        if returned is not None and returned is not arg:
            # (the argument itself is accepted: `lambda p: p.add_(...)`, torch's own docs
            # example.) As torch's, a value is checked as any hook's (a Variable of the leaf's
            # type and size) and handed to the next hooks in the leaf's place; the backward
            # fails once they all ran.
            _check_hook_result(hook, arg, returned)
            arg = returned
            modified = True
    if modified:
        raise RuntimeError("Tensor post accumulate grad hooks should return None.")


def _accumulate_hooked(acc: AccumulateGrad, g: Tensor, create_graph: bool) -> tuple:
    """The backward of an accumulator with node hooks or a leaf that stopped requiring grad
    (NOTE [ Leaf accumulators ]), in torch's order: the leaf's tensor hooks, the node's
    pre-hooks, the accumulation (skipped for a leaf that no longer requires grad), the leaf's
    post-accumulate hooks; the engine runs the node's post hooks on the () it returns."""
    leaf = acc._variable()
    if leaf is None:
        return ()
    if leaf._hooks is not None:
        g = _leaf_hooks(leaf, g)
    pre = acc.__dict__.get("_acc_pre_hooks")
    if pre:
        for hook in list(pre.values()):
            res = hook((g,))
            if res is not None:
                (g,) = _check_hook_results(hook, (g,), res)
    if g is not None and leaf._requires_grad:
        _store_grad(leaf, g, create_graph)
    post = leaf._post_acc_hooks
    if post:
        _post_accumulate_hooks(leaf, post)
    if acc._hooks is not None:  # its post hooks see the gradient the hooks above left, as torch's
        acc.__dict__["_hooked_grad"] = g
    return ()


def _laid_as(g: Tensor, leaf: Tensor) -> Tensor:
    """A new .grad with the leaf's strides, as torch's gradient layout contract promises (a
    transposed or column-major gradient, e.g. a conv weight's, is copied into the weight's
    layout, so p.grad.view(-1) works wherever p.view(-1) does)."""
    d, v = g._data, leaf._data
    if d.ndim < 2 or d.strides == v.strides or g._requires_grad:
        return g
    if v.flags.c_contiguous:
        if d.flags.c_contiguous:
            return g
        return _copied(g._device.backend.xp.ascontiguousarray(d), g._device)
    xp = g._device.backend.xp
    laid = _memory_format.like(xp, v, xp.ascontiguousarray(d))
    return g if laid is d else _copied(laid, g._device)


def _add_into(old: Tensor, g) -> bool:
    """old += g (an array) in old's memory (the accumulation of a training loop); False when
    impossible."""
    data = old._data
    if data.shape != g.shape or data.dtype != g.dtype:
        return False
    try:
        old._device.backend.xp.add(data, g, out=data)
    except ValueError:  # a read-only array (a broadcast view the user assigned as .grad)
        return False
    old._vc[0] += 1
    return True


_tensor_module._engine_backward = backward  # Tensor.backward's callee, bound once


def queue_callback(callback) -> None:
    """Runs callback() when the backward now running has walked its graph. Mirrors
    torch.autograd.Variable._execution_engine.queue_callback."""
    task = state.graph_task
    if task is None:
        raise RuntimeError("Final callbacks can only be installed during backward pass.")
    if task.callbacks is None:
        task.callbacks = []
    task.callbacks.append(callback)
