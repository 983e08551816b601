"""Composite nodes: a function built from Tensor ops shows in the graph as torch's one node."""

from __future__ import annotations

import functools
import operator

from minitorch._tensor import Tensor, _make
from minitorch.autograd.engine import _put, _run_node, _skip, _take, pop_ready, push_ready
from minitorch.autograd.function import (
    _FREED,
    HIDDEN_SAVED_TENSORS,
    AccumulateGrad,
    Node,
    _edge,
    _is_sink,
    _Kept,
    _next_prio,
    _raise_modified,
    install_saved_attrs,
    refuse_inference_save,
)
from minitorch.autograd.grad_mode import state

__all__ = ["as_node", "one_node", "saved_value", "show_saved"]

# NOTE [ Composite nodes ]
# torch runs mse_loss, pad, embedding, pixel_shuffle... as one kernel, so the graph a user walks
# (loss.grad_fn.next_functions, a torchviz drawing) has one node, MseLossBackward0, whose edges
# lead to the function's tensor arguments. minitorch composes these functions from Tensor ops,
# which record several nodes. as_node() folds them into one: the forward is unchanged (the ops
# record their nodes as usual), then the result's grad_fn becomes a node named as torch names it,
# with one edge per tensor argument in torch's order. Its backward runs the recorded nodes with
# the engine's own _run_node, from the result down to those edges, where it collects the
# gradients it returns. So the gradients, double backward (the inner nodes' backwards are Tensor
# ops) and the freed-graph error are the inner nodes'; only the shape of the graph changes.
# The inner nodes are found once, at forward: a walk from the result that stops at the
# arguments' nodes. Reaching a leaf that is not an argument means the composite used a tensor it
# did not declare; that raises at once instead of losing the leaf's gradient.
# A double backward's outer walk can reach an inner node directly (through the create_graph
# backward of the composite) and free its saved values before the composite runs it again: the
# composite keeps the inner nodes' saved entries (`kept`, references, no copies) and lends them
# back for that one run.
# torch's node saves some of its arguments or results (MseLossBackward0 saves self and target):
# changing one in place before backward makes backward raise there. The inner nodes save other
# tensors (mse's input - target), so as_node(saved=...) records the versions of the tensors
# torch's node saves, and the composite's backward checks them first (Node._saved's entries).
# Costs ~3 us at forward and ~5 us at backward over the inner nodes themselves.


class _Composite:
    """The backward of every composite node: the recorded inner nodes, run down to the edges."""

    _builtin = True  # minitorch's own: the engine checks custom Functions' results only
    _folds = True  # its inner nodes run inside its backward (anomaly mode names the composite)

    @staticmethod
    def backward(node, *grads):
        saved = node._saved
        if saved is _FREED:
            return Node.saved_tensors.fget(node)  # raises torch's freed-graph error
        roots, deps, boundary, n_in, kept, checks = saved
        for kind, obj, vc, version, nr in checks:
            if vc[0] != version:
                _raise_modified(node, kind, obj, vc[0], version, nr)
        deps = dict(deps)
        buffers = {}
        for root, g in zip(roots, grads, strict=False):  # (trailing roots may be None)
            if root is None or g is None:
                continue
            inner, nr = root
            _put(buffers, inner, nr, g, operator.add)
        ready = []  # a heap, as the outer walk's (NOTE [ Walk order ])
        pushed = set()
        for root in roots:
            if root is not None and deps[root[0]] == 0 and root[0] not in pushed:
                pushed.add(root[0])
                push_ready(ready, root[0])
        grad_inputs = [None] * n_in
        while ready:
            inner = pop_ready(ready)
            got = _take(buffers, inner)
            ends = boundary.get(inner)
            if ends is not None:  # an argument's node: its gradient is this node's output
                if got is not None:
                    for i, nr in ends:
                        grad_inputs[i] = got[nr]
                continue
            if got is None:
                _skip(inner, deps, ready)
            elif _is_sink(inner):  # a no_grad view's end: its gradient is dropped
                continue
            else:
                if inner._saved is _FREED:  # freed by an outer walk that reached it directly
                    inner._saved = kept[inner]
                    try:
                        _run_node(inner, got, deps, ready, buffers)
                    finally:
                        inner._saved = _FREED
                    continue
                _run_node(inner, got, deps, ready, buffers)
        return tuple(grad_inputs)


_CLASSES: dict = {}
_SHOWN: dict = {}  # node name -> the _Composite subclass whose _saved_attrs its nodes answer


def show_saved(name: str, attrs: dict) -> None:
    """Composite nodes named `name` answer grad_fn._saved_<key> for each key of `attrs` (a
    Function's _saved_attrs: functions of the node, reading what as_node(attrs=...) kept in its
    __dict__), as torch's node of that name does."""
    fn = _SHOWN[name] = type("_Composite", (_Composite,), {"_saved_attrs": attrs})
    if name in _CLASSES:
        _CLASSES[name]._fn = fn
        install_saved_attrs(_CLASSES[name])


def saved_value(i: int):
    """A show_saved entry: the i-th tensor as_node(saved=...) recorded (its None skipped), as
    torch's saved tensors read: torch's error once a backward freed it or it changed in place;
    a result is re-made with the node as its grad_fn (the node keeps its array, not the Tensor:
    no cycle result -> node -> result), on the device as_node(attrs=...) kept as
    `kept_device`."""

    def read(node):
        saved = node._saved
        if saved is _FREED:
            return Node.saved_tensors.fget(node)  # raises torch's freed-graph error
        kind, obj, vc, version, nr = saved[5][i]
        if vc[0] != version:
            _raise_modified(node, kind, obj, vc[0], version, nr)
        if kind != "out":
            return obj
        t = _make(obj, node.kept_device, True, node, nr)
        t._vc = vc
        return t

    return read


def _node_class(name: str):
    cls = _CLASSES.get(name)
    if cls is None:
        attrs = {  # prints as torch's node; NOTE [ Built-in nodes show no saved_tensors ]
            "__slots__": (),
            "_fn": _SHOWN.get(name, _Composite),
            "__module__": "builtins",
            "saved_tensors": HIDDEN_SAVED_TENSORS,
        }
        cls = _CLASSES[name] = type(name, (Node,), attrs)
        install_saved_attrs(cls)
    return cls


def as_node(out, name: str, inputs, hidden=(), op: str = "", saved=(), keep=False, attrs=None):
    """`out` (a Tensor or a tuple of them), its recorded history folded into one node named
    `name` whose edges are `inputs` (Tensors, or None for an absent optional tensor) in torch's
    order; see NOTE [ Composite nodes ]. `hidden`: (argument name, value) pairs of the other
    tensors the function `op` reads, which torch's schema makes non-differentiable (a loss's
    class weights): one that requires grad raises torch's error. `saved`: the arguments or
    results (Tensors; None is skipped) torch's node saves for backward, which then refuses them
    once changed in place. `keep`: torch's node saves no tensor, so a second backward runs it
    again (NOTE [ Kept saved values ]). `attrs`: values the node keeps in its __dict__ for its
    grad_fn._saved_<name> attributes (show_saved). Unchanged when nothing was recorded or when
    the result is an input's own node (a composite that returned its input)."""
    for arg, a in hidden:
        if isinstance(a, Tensor) and a._requires_grad and state.enabled:
            raise RuntimeError(
                f"The function '{op}' is not differentiable with respect to argument '{arg}'. "
                "This input cannot have requires_grad True."
            )
    outs = out if out.__class__ is tuple else (out,)
    roots = []
    for o in outs:
        fn = o._grad_fn if isinstance(o, Tensor) else None
        roots.append(None if fn is None or fn.__class__ is AccumulateGrad else (fn, o._output_nr))
    if not any(roots):
        return out
    nxt, meta, ends = [], [], {}
    for i, a in enumerate(inputs):
        if isinstance(a, Tensor) and a._requires_grad:
            e = _edge(a)
            if _is_sink(e[0]):  # a view taken under no_grad: no edge, as torch's (its inner
                nxt.append(None)  # ops' own sinks drop its gradient)
                meta.append(None)
                continue
            d = a._data
            meta.append((d.shape, d.dtype))
            if e not in nxt:  # the same tensor twice: its gradient comes on its first edge
                ends.setdefault(e[0], []).append((i, e[1]))
            nxt.append(e)
        else:
            nxt.append(None)
            meta.append(None)
    deps = {}
    stack = []
    for r in roots:
        if r is not None and r[0] not in deps:
            if r[0] in ends:
                return out
            deps[r[0]] = 0
            stack.append(r[0])
    while stack:
        for e in stack.pop()._next:
            if e is None:
                continue
            child = e[0]
            if child in deps:
                deps[child] += 1
                continue
            deps[child] = 1
            if child in ends:
                continue
            if isinstance(child, AccumulateGrad):
                if _is_sink(child):
                    continue
                raise RuntimeError(f"{name}: the composite used a tensor not in its inputs")
            stack.append(child)
    node = object.__new__(_node_class(name))
    node._prio = _next_prio()  # NOTE [ Walk order ]
    node._next = tuple(nxt)
    node._in_meta = tuple(meta)
    node.needs_input_grad = tuple(e is not None for e in nxt)
    kept = {n: n._saved for n in deps if n not in ends and not isinstance(n, AccumulateGrad)}
    node._saved = (_Kept if keep else tuple)(
        (tuple(roots), deps, ends, len(nxt), kept, _checks(saved, outs))
    )
    node._to_save = None
    node._materialize = False
    node.xp = None
    node._out_device = None
    if attrs:
        node.__dict__.update(attrs)
    if len(outs) > 1:  # up to its last differentiable output (See NOTE [ Outputs that are not
        # differentiable ] in minitorch/autograd/function.py)
        node._n_out = max(i + 1 for i, r in enumerate(roots) if r is not None)
    for nr, (o, r) in enumerate(zip(outs, roots, strict=True)):
        if r is not None:
            o._grad_fn = node
            o._output_nr = nr
    if state.anomaly:
        from minitorch.autograd.anomaly_mode import record_trace

        record_trace(node)
    return out


def _checks(saved, outs) -> tuple:
    """Node._saved-style entries (kind, object, version counter, version, output number) for
    the tensors in `saved`: a result is kept as its array (holding the Tensor would make the
    cycle result -> node -> result), an argument as itself."""
    entries = []
    for t in saved:
        if not isinstance(t, Tensor):
            continue
        nr = next((i for i, o in enumerate(outs) if o is t), None)
        if nr is None:
            if t._vc.__class__ is not list:
                refuse_inference_save(t)
            entries.append(("in", t, t._vc, t._vc[0], 0))
        else:
            entries.append(("out", t._data, t._vc, t._vc[0], nr))
    return tuple(entries)


def one_node(name: str, inputs=None, saved=(), keep=False, shows=False):
    """Decorates a composite function so its result is one node named `name` (as_node). Its
    edges are the arguments named in `inputs` (default: every Tensor argument), in that order;
    its other Tensor arguments are non-differentiable, as in torch. `saved`: the names of the
    arguments torch's node saves, and "result" for its result (as_node's `saved`); `keep`:
    torch's node saves no tensor (as_node's `keep`); `shows`: the node keeps the arguments,
    by name, as `args` in its __dict__, for the _saved_<name> attributes show_saved gives it."""

    def decorate(fn):
        import inspect

        params = list(inspect.signature(fn).parameters)
        where = None if inputs is None else [(params.index(k), k) for k in inputs]

        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            out = fn(*args, **kwargs)
            if not state.enabled:
                return out
            kept = ()
            attrs = None
            if saved or shows:
                named = dict(zip(params, args, strict=False))
                named.update(kwargs)
                kept = [out if k == "result" else named.get(k) for k in saved]
                attrs = {"args": named} if shows else None
            if where is None:
                shown = [a for a in args if isinstance(a, Tensor)]
                shown += [a for a in kwargs.values() if isinstance(a, Tensor)]
                return as_node(out, name, shown, saved=kept, keep=keep, attrs=attrs)
            shown = [args[i] if i < len(args) else kwargs.get(k) for i, k in where]
            named = dict(zip(params, args, strict=False))
            named.update(kwargs)
            hidden = [(k, v) for k, v in named.items() if k not in inputs]
            return as_node(
                out, name, shown, hidden, fn.__name__, saved=kept, keep=keep, attrs=attrs
            )

        return wrapper

    return decorate
