"""torch.func's differentiation transforms (grad, vjp, jacrev, ...) over reverse-mode autograd."""

from __future__ import annotations

import contextlib
import functools
import itertools

from minitorch._dtype import promote_types
from minitorch._tensor import Tensor
from minitorch.autograd.forward_ad import (
    alias_of,
    check_tangent_size,
    forward_ad_errors,
    probe_like,
)
from minitorch.autograd.function import AccumulateGrad, _edge
from minitorch.autograd.functional import (
    _check_dual_dtype,
    _grads,
    _jacobian_of_output,
    _zeros_like,
)
from minitorch.autograd.grad_mode import inference_mode, normal_alias, state
from minitorch.func import _custom
from minitorch.func._pytree import spec_repr, spec_str, tree_flatten, tree_map, tree_unflatten

__all__ = [
    "grad",
    "grad_and_value",
    "vjp",
    "jvp",
    "linearize",
    "jacrev",
    "jacfwd",
    "hessian",
]


# NOTE [ Transform levels over one autograd graph ]
# torch.func wraps the inputs of each transform in a new "level", so that an inner transform does
# not see the outer one's variables as its own and a result carries history only for the levels
# that enclose it. minitorch has one autograd graph, so each call of a transform:
#   * gives each differentiated input a fresh tensor: a new leaf when the input needs no grad (a
#     "private" leaf of this level), or a view of it when it does (an enclosing level's variable,
#     or a user's leaf), so the enclosing graph still reaches through;
#   * asks whether the function's outputs reach a tensor requiring grad that is not one of its
#     private leaves (an enclosing transform's variable, a captured Parameter, a user leaf): only
#     then is the backward recorded (create_graph) and a result keeps its graph;
#   * returns every other result detached, so grad(f)(x) on a plain x gives a plain tensor.
# Whether anything outside is reachable is answered by walking the graph from the result. A
# private leaf of a level made later than this one (a transform nested inside it, already done)
# is a constant here: in grad-of-grad, jacrev(f) with f calling grad, the inner level's leaf
# must not make the outer one record its backward (its Jacobian would keep a graph, and each
# use of it would grow the next one's).
# The pytrees of inputs and outputs count None as a leaf (torch's pytree does since 2.x): a None
# where a tensor is differentiated or returned is an error, as in torch.
# In-place writes into a tensor captured from outside the function (acc.add_(1), copy_, or a
# BatchNorm's running statistics through functional_call) run as written; torch's grad, vjp and
# jvp refuse them ("... would mutate a captured Tensor"), which would need a check in every
# in-place op.


_LEVEL_SERIALS = itertools.count(1)


class _transform_mode(inference_mode):  # noqa: N801 - a grad-mode context, as inference_mode
    """inference_mode(False) (grad on, inference mode off, as torch.func), in which the inference
    tensors the function captured may be saved for backward, as torch's levels save them
    (refuse_inference_save reads state.transforms; NOTE [ Inference tensors ])."""

    def __init__(self):
        super().__init__(False)

    def __enter__(self):
        super().__enter__()
        state.transforms += 1

    def __exit__(self, *exc):
        state.transforms -= 1
        return super().__exit__(*exc)


class _Level:
    """One call of a transform: its private leaves and the graph walk that spots the rest."""

    __slots__ = ("_leaves", "_clean", "outer_enabled", "_serial")

    def __init__(self):
        self._serial = next(_LEVEL_SERIALS)  # a later level (a nested one) has a larger one
        self._leaves: list[Tensor] = []  # its private leaves, kept alive for the walk
        self._clean: set[int] = set()  # nodes known to reach no outside tensor
        self.outer_enabled = state.enabled  # grad mode where the transform was called

    def differentiable(self, x):
        if not isinstance(x, Tensor):
            raise ValueError(f"Thing passed to transform API must be Tensor, got {type(x)}")
        if x._requires_grad:
            return x.view_as(x)
        t = normal_alias(x).detach().requires_grad_()  # (an inference x: a normal alias)
        t._func_level = self._serial  # see NOTE [ Transform levels over one autograd graph ]
        self._leaves.append(t)
        return t

    def reaches_outside(self, t) -> bool:
        """Whether t's history reaches a tensor requiring grad that this level did not create."""
        if not isinstance(t, Tensor) or not t._requires_grad:
            return False
        seen: set[int] = set()
        stack = [_edge(t)[0]]
        while stack:
            node = stack.pop()
            key = id(node)
            if key in seen or key in self._clean:
                continue
            seen.add(key)
            if isinstance(node, AccumulateGrad):
                leaf = node._variable()
                # a user's leaf or an enclosing level's private one (a nested level's is a constant)
                if getattr(leaf, "_func_level", 0) < self._serial:
                    return True
                continue
            stack.extend(e[0] for e in node._next if e is not None)
        self._clean |= seen
        return False

    def needs_graph(self, tensors) -> bool:
        return self.outer_enabled and any(self.reaches_outside(t) for t in tensors)

    def export(self, tree):
        """Results leave without history unless it leads outside this level (and grad mode was on
        where the transform was called)."""

        def one(t):
            if not isinstance(t, Tensor):
                return t
            if self.outer_enabled and self.reaches_outside(t):
                return t
            return t.detach()

        return tree_map(one, tree)


# --- argument handling ---


def _wrap_argnum(argnum, num_args: int) -> int:
    if not isinstance(argnum, int):
        raise RuntimeError(f"argnum must be int, got: {type(argnum)}")
    if 0 <= argnum < num_args:
        return argnum
    if -num_args <= argnum < 0:
        return argnum + num_args
    raise RuntimeError(f"Got argnum={argnum}, but only {num_args} positional inputs")


def _normalize_argnums(argnums, num_args: int):
    if isinstance(argnums, int):
        return _wrap_argnum(argnums, num_args)
    if isinstance(argnums, tuple):
        wrapped = tuple(_wrap_argnum(a, num_args) for a in argnums)
        if len(wrapped) == 0:
            raise RuntimeError("argnums must be non-empty")
        if len(set(wrapped)) != len(wrapped):
            raise RuntimeError(f"argnums elements must be unique, got {argnums}")
        return wrapped
    raise RuntimeError(f"argnums must be int or Tuple[int, ...], got: {type(argnums)}")


def _differentiable_args(level: _Level, args: tuple, argnums, fresh=None):
    """(args with the differentiated ones replaced, their flat leaves, the spec of the slice).
    fresh(x) makes the replacement (level.differentiable by default)."""
    fresh = level.differentiable if fresh is None else fresh
    argnums = _normalize_argnums(argnums, len(args))
    args = list(args)
    if isinstance(argnums, int):
        args[argnums] = tree_map(fresh, args[argnums], none_is_leaf=True)
        diff = args[argnums]
    else:
        for i in argnums:
            args[i] = tree_map(fresh, args[i], none_is_leaf=True)
        diff = tuple(args[i] for i in argnums)
    flat, spec = tree_flatten(diff)
    return tuple(args), flat, spec


def _split_aux(output, has_aux: bool, api: str):
    if not has_aux:
        return output, None
    if not (isinstance(output, tuple) and len(output) == 2):
        raise RuntimeError(
            f"{api}: output of function f should be a tuple: (output, aux) if has_aux is True"
        )
    for leaf in tree_flatten(output[1], none_is_leaf=True)[0]:
        if not isinstance(leaf, Tensor):  # torch's transforms carry tensors only out of a level
            raise RuntimeError(f"Expected tensors, got unsupported type {type(leaf)}")
    return output


def call_transformed(func, *args, **kwargs):
    """func(*args, **kwargs) run by a transform: inside it, backward() is refused as torch's
    transforms refuse it (the transform owns the differentiation), and a user's autograd.Function
    must be one torch's transforms take (see minitorch/func/_custom.py)."""
    return call_transformed_with({}, func, *args, **kwargs)


def call_transformed_with(opts, func, *args, **kwargs):
    """call_transformed with _custom.transform's options (lenient, vmap, calls)."""
    state.transforms += 1
    try:
        with _custom.transform(**opts):
            return func(*args, **kwargs)
    finally:
        state.transforms -= 1


def _grads_or_zeros(outputs, inputs, grad_outputs=None, retain_graph=None, create_graph=False):
    """autograd.grad over the outputs that require grad; zeros for inputs nothing reaches."""
    res = _grads(outputs, inputs, grad_outputs, create_graph, retain_graph)
    return [_zeros_like(x) if g is None else g for g, x in zip(res, inputs, strict=True)]


def _check_tensor_outputs(flat_out, api: str):
    if len(flat_out) == 0 or (len(flat_out) == 1 and flat_out[0] is None):
        raise RuntimeError(
            f"{api}: Expected f to be a function that has non-empty output (got output = "
            f"{flat_out})"
        )
    for o in flat_out:
        if not isinstance(o, Tensor):
            raise RuntimeError(
                f"{api}: expected f(*primals) to return only tensors, got unsupported type "
                f"{type(o)}"
            )


def _check_float_outputs(flat_out, api: str):
    for o in flat_out:
        if not (o.is_floating_point() or o.is_complex()):
            raise RuntimeError(
                f"{api}: All outputs of f must be floating-point or complex Tensors, got Tensor "
                f"with dtype {o.dtype}"
            )


# --- grad, grad_and_value ---


def grad_and_value(func, argnums=0, has_aux: bool = False):
    """A function returning (gradient of func w.r.t. the argnums inputs, func's value).
    Mirrors torch.func.grad_and_value.

    Differences from torch: built on reverse-mode autograd over one graph (see NOTE [ Transform
    levels over one autograd graph ] in minitorch/func/_transforms.py).
    """

    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        return _grad_and_value(func, argnums, has_aux, args, kwargs)

    return wrapper


def grad(func, argnums=0, has_aux: bool = False):
    """A function returning the gradient of func (a scalar Tensor) w.r.t. the argnums inputs;
    with has_aux, (gradient, aux). Mirrors torch.func.grad.

    Differences from torch: built on reverse-mode autograd over one graph (see NOTE [ Transform
    levels over one autograd graph ] in minitorch/func/_transforms.py).
    """

    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        g, value = _grad_and_value(func, argnums, has_aux, args, kwargs)
        return (g, value[1]) if has_aux else g

    return wrapper


def _grad_and_value(func, argnums, has_aux, args, kwargs):
    api = "grad_and_value(f)(*args)"
    level = _Level()
    with _transform_mode():
        args, flat_diff, spec = _differentiable_args(level, args, argnums)
        output, aux = _split_aux(call_transformed(func, *args, **kwargs), has_aux, api)
        if not isinstance(output, Tensor):
            raise RuntimeError(f"{api}: Expected f(*args) to return a Tensor, got {type(output)}")
        if output.dim() != 0:
            raise RuntimeError(
                f"{api}: Expected f(*args) to return a scalar Tensor, got tensor with "
                f"{output.dim()} dims. Maybe you wanted to use the vjp or jacrev APIs instead?"
            )
        create_graph = level.needs_graph((output,))
        # Retained: an aux result that keeps its graph may share nodes with the output's.
        grads = _grads_or_zeros((output,), flat_diff, None, True, create_graph)
    grads = level.export(tree_unflatten(grads, spec))
    output = level.export(output)
    if has_aux:
        return grads, (output, level.export(aux))
    return grads, output


# --- vjp, jvp ---


def vjp(func, *primals, has_aux: bool = False):
    """(func(*primals), vjp_fn[, aux]): vjp_fn(cotangents) gives the vector-Jacobian products,
    one per primal (a tuple). Mirrors torch.func.vjp.

    Differences from torch: built on reverse-mode autograd over one graph (see NOTE [ Transform
    levels over one autograd graph ] in minitorch/func/_transforms.py).
    """
    api = "vjp(f, *primals)"
    level = _Level()
    with _transform_mode():
        diff = tree_map(level.differentiable, primals, none_is_leaf=True)
        out, aux = _split_aux(call_transformed(func, *diff), has_aux, api)
        flat_out, out_spec = tree_flatten(out, none_is_leaf=True)
        _check_tensor_outputs(flat_out, api)
        _check_float_outputs(flat_out, "vjp(f, ...)")
        outside = level.needs_graph(flat_out)
    flat_diff, diff_spec = tree_flatten(diff)
    results = level.export(out)

    def vjp_fn(cotangents, retain_graph: bool = True, create_graph: bool | None = None):
        if create_graph is None:
            create_graph = state.enabled
        flat_cot, cot_spec = tree_flatten(cotangents, none_is_leaf=True)
        if cot_spec != out_spec:
            raise RuntimeError(
                "Expected pytree structure of cotangents to be the same as pytree structure of "
                f"outputs to the function. cotangents: {spec_str(cot_spec)}, primal output: "
                f"{spec_str(out_spec)}"
            )
        need = create_graph and (
            outside or any(isinstance(c, Tensor) and c._requires_grad for c in flat_cot)
        )
        with _transform_mode():
            res = _grads_or_zeros(flat_out, flat_diff, flat_cot, retain_graph, need)
        if not need:
            res = [g.detach() for g in res]
        return level.export(tree_unflatten(res, diff_spec))

    if has_aux:
        return results, vjp_fn, level.export(aux)
    return results, vjp_fn


def jvp(func, primals, tangents, *, strict: bool = False, has_aux: bool = False):
    """(func(*primals), J @ tangents[, aux]). Mirrors torch.func.jvp.

    Differences from torch: no forward-mode AD; computed by the double-backward trick (the
    reverse-mode VJP is linear in its cotangent, and differentiating it w.r.t. the cotangent
    gives the JVP), so the numbers are the same but the cost is two backward passes. A tangent
    whose dtype differs from its primal's is followed by a rule (see _tangent_dtypes) that
    gives torch's output-tangent dtypes in the common cases; the values are computed in the
    primals' precision. Ops that f runs under no_grad (or on .data) carry no tangent, where
    torch's forward mode ignores grad mode; an op torch has no forward formula for (which
    raises there) gets its tangent here. A user autograd.Function's outputs get the tangents its
    own jvp gives, as torch's (NOTE [ A custom Function's jvp in the func transforms ] in
    minitorch/func/_custom.py), its jvp called once f has returned.
    """
    api = "jvp(f, primals, tangents)"
    if not isinstance(primals, tuple):
        raise RuntimeError(
            f"{api}: Expected primals to be a tuple. E.g. it should be valid to call f(*primals)."
        )
    flat_p, p_spec = tree_flatten(primals, none_is_leaf=True)
    flat_t, t_spec = tree_flatten(tangents, none_is_leaf=True)
    if p_spec != t_spec:
        raise RuntimeError(
            f"{api}: Expected primals and tangents to have the same python structure. For "
            f"example, if primals is a tuple of 3 tensors, tangents also must be. Got primals "
            f"with structure {spec_repr(p_spec)} and tangents with structure {spec_repr(t_spec)}"
        )
    for p in flat_p:
        if not isinstance(p, Tensor):
            raise RuntimeError(f"{api}: Expected primals to only contain Tensors, got {type(p)}")
    for t in flat_t:
        if not isinstance(t, Tensor):
            raise RuntimeError(f"{api}: Expected tangents to only contain Tensors, got {type(t)}")
    for p, t in zip(flat_p, flat_t, strict=True):
        check_tangent_size(p, t)  # make_dual's check, as torch's jvp
        _check_dual_dtype(p, "primal")  # forward-mode AD's dual tensors
        _check_dual_dtype(t, "tangent")
    # Tangents are read when the JVP is taken, after f ran: a copy keeps them from an in-place
    # op of f on a primal they share memory with (torch reads them as f runs)
    flat_t = [t.clone() for t in flat_t]
    lin = _Linearized(func, primals, has_aux, api)
    jv = lin.push(flat_p, flat_t, retain_graph=False)
    results = lin.level.export(lin.out)
    if has_aux:
        return results, jv, lin.level.export(lin.aux)
    return results, jv


class _Linearized:
    """func run once at the primals, with the reverse-mode VJP J^T u (u: ones) recorded;
    push(tangents) differentiates it w.r.t. u along the tangents: J @ tangents."""

    def __init__(self, func, primals, has_aux, api):
        self.level = level = _Level()
        with _transform_mode(), forward_ad_errors():  # (see _jacobian)
            seeds = tree_map(level.differentiable, primals, none_is_leaf=True)
            # f gets aliases of the seeds: in-place ops on them are recorded, as torch's
            # forward mode allows them (and they write into the primals, as torch's)
            is_jvp = api.startswith("jvp")
            # the user Functions f calls: their jvp gives their tangents (linearize, which
            # traces forward AD in torch, takes old-style ones too)
            self.calls = _custom._Calls()
            opts = {"calls": self.calls, "lenient": not is_jvp}
            out = call_transformed_with(opts, func, *tree_map(alias_of, seeds))
            out, aux = _split_aux(out, has_aux, api)
            # linearize passes a None output through (its tracer allows one); jvp refuses it
            flat_out, self.out_spec = tree_flatten(out, none_is_leaf=is_jvp)
            if is_jvp:
                _check_tensor_outputs(flat_out, api)
            for o in flat_out:
                if not isinstance(o, Tensor):
                    raise RuntimeError(
                        f"{api}: expected f(*primals) to return only tensors, got unsupported type "
                        f"{type(o)}"
                    )
            self.flat_diff = flat_diff = tree_flatten(seeds)[0]
            # An integer or bool output carries no tangent: torch gives it zeros of its dtype.
            self.has_tangent = [o.is_floating_point() or o.is_complex() for o in flat_out]
            diff_out = [o for o, d in zip(flat_out, self.has_tangent, strict=True) if d]
            self.us = self.jt_u = None
            self.diff_out = diff_out
            if diff_out:
                # not zeros: see NOTE [ Tangents through double backward ] in forward_ad.py
                self.us = [level.differentiable(probe_like(o)) for o in diff_out]
            if diff_out and not self.calls.calls:
                self.jt_u = _grads_or_zeros(
                    diff_out, flat_diff, self.us, retain_graph=True, create_graph=True
                )
            self.outside = level.needs_graph(diff_out)
        self.out, self.aux, self.flat_out = out, aux, flat_out

    def push(self, flat_p, flat_t, retain_graph: bool):
        level = self.level
        with _transform_mode():
            jv_diff = []
            if self.calls.calls:  # NOTE [ A custom Function's jvp in the func transforms ]
                seeds, tans = list(self.flat_diff), [(lambda k, t=t: t) for t in flat_t]
                _custom.replay(level, self.calls, seeds, tans, 1)
                if self.us is not None:
                    got = _custom.push_tangents(self.diff_out, self.us, seeds, tans, 1)[0]
                    jv_diff = [
                        _zeros_like(o) if g is None else g
                        for g, o in zip(got, self.diff_out, strict=True)
                    ]
            elif self.us is not None:
                outside = self.outside or level.needs_graph(flat_t)
                jv_diff = _grads_or_zeros(
                    self.jt_u,
                    self.us,
                    flat_t,
                    retain_graph=retain_graph or outside,
                    create_graph=outside,
                )
            jv_diff = iter(_tangent_dtypes(jv_diff, flat_p, flat_t))
            jv = [
                next(jv_diff) if d else _zeros_like(o)
                for o, d in zip(self.flat_out, self.has_tangent, strict=True)
            ]
        return level.export(tree_unflatten(jv, self.out_spec))


def linearize(func, *primals):
    """(func(*primals), jvp_fn): jvp_fn(*tangents) gives J @ tangents at the primals, as often
    as asked, without running func again. Mirrors torch.func.linearize.

    Differences from torch: no tracing; func runs once and its recorded graph (with the VJP's)
    is kept for jvp_fn, which takes two backward passes per call (see jvp).
    """
    api = "linearize(func, *primals)"
    flat_p, p_spec = tree_flatten(primals, none_is_leaf=True)
    for p in flat_p:
        if isinstance(p, Tensor):
            _check_dual_dtype(p, "primal")
    lin = _Linearized(func, primals, False, api)
    out = lin.level.export(lin.out)

    def jvp_fn(*tangents):
        flat_t, t_spec = tree_flatten(tangents, none_is_leaf=True)
        if t_spec != p_spec:
            raise RuntimeError(
                f"Expected the tangents {spec_repr(t_spec)} to have the same argspec as the "
                f"primals {spec_repr(p_spec)}"
            )
        for i, (p, t) in enumerate(zip(flat_p, flat_t, strict=True)):
            if tuple(t.shape) != tuple(p.shape):
                raise RuntimeError(
                    f"tangent:{i} with shape {t.shape} in flattened pytree doesn't match the "
                    f"shape {p.shape} of the corresponding primal."
                )
            if t.dtype != p.dtype:
                raise RuntimeError(
                    f"tangent:{i} with dtype {t.dtype} in flattened pytree doesn't match the "
                    f"dtype {p.dtype} of the corresponding primal."
                )
        return lin.push(flat_p, flat_t, retain_graph=True)

    return out, jvp_fn


def _tangent_dtypes(jv, primals, tangents):
    """The output tangents jv (each in its output's dtype) in the dtypes torch's forward mode
    gives them when some tangent's dtype differs from its primal's.

    torch pushes the tangent through f op by op: a pointwise formula promotes the tangent with
    the primal values (a float64 tangent through a float32 a * 2 or a.sin() stays float64), a
    conversion converts it (a.half() gives a float16 tangent), and a linear op keeps it as is (a
    float32 tangent through a float64 a + 1 or a.sum() stays float32). The rule here matches
    the common cases: an output at least as wide as those primals (f did not cast it down) gets
    promote(output dtype, those tangents' dtypes). Not matched: a narrower tangent through an
    f that is linear all the way, and a round trip through a narrower dtype (a.half().float()).
    """
    pairs = [(p.dtype, t.dtype) for p, t in zip(primals, tangents, strict=True)]
    odd = [(pd, td) for pd, td in pairs if pd != td]
    if not odd:  # the common case: every tangent has its primal's dtype
        return jv
    wide_p, wide_t = odd[0]
    for pd, td in odd[1:]:
        wide_p, wide_t = promote_types(wide_p, pd), promote_types(wide_t, td)
    out = []
    for g in jv:
        if promote_types(g.dtype, wide_p) == g.dtype:
            want = promote_types(g.dtype, wide_t)
            g = g if want == g.dtype else g.to(want)
        out.append(g)
    return out


# --- jacobians ---


def jacrev(func, argnums=0, *, has_aux: bool = False, chunk_size: int | None = None):
    """A function returning the Jacobian of func w.r.t. the argnums inputs: for each output leaf,
    for each input leaf, a tensor of shape output.shape + input.shape. Mirrors torch.func.jacrev.

    Differences from torch: one backward pass per output element (no vmap batching), so
    `chunk_size` is only validated.
    """
    if not (chunk_size is None or chunk_size > 0):
        raise ValueError("jacrev: `chunk_size` should be greater than 0.")

    @functools.wraps(func)
    def wrapper(*args):
        return _jacobian(func, argnums, has_aux, args, "vjp(f, *primals)", forward=False)

    return wrapper


def jacfwd(func, argnums=0, has_aux: bool = False, *, randomness: str = "error"):
    """A function returning the Jacobian of func w.r.t. the argnums inputs, laid out as jacrev's.
    Mirrors torch.func.jacfwd.

    Differences from torch: minitorch has no forward-mode AD, so the Jacobian is computed in
    reverse mode (one backward pass per output element): the same numbers, another cost, and
    forward mode's dtypes (see NOTE [ Forward-mode dtypes ] in minitorch/autograd/functional.py)
    with values rounded through the input's dtype. func runs once, so `randomness` 'same' and
    'different' both give every column the same draws; 'error' (the default) refuses random ops,
    as torch's vmap does (minitorch/func/_vmap.py's random_ops_refused).
    Where f calls a user autograd.Function (which needs a vmap rule, as torch's), its jvp is
    called once per element of the inputs instead (see minitorch/func/_custom.py).
    """

    @functools.wraps(func)
    def wrapper(*args):
        if randomness not in ("error", "different", "same"):
            raise RuntimeError(
                "Only allowed values for randomness are 'error', 'different', or 'same'. Got "
                f"{randomness}"
            )
        from minitorch.func._vmap import random_ops_refused  # (_vmap imports this module)

        refused = random_ops_refused() if randomness == "error" else contextlib.nullcontext()
        with refused:
            return _jacobian(
                func, argnums, has_aux, args, "jvp(f, primals, tangents)", forward=True
            )

    return wrapper


def _forward_primal(level: _Level):
    def fresh(x):
        if isinstance(x, Tensor):
            _check_dual_dtype(x, "primal")
        else:  # torch's jacfwd counts each primal's elements (None's too) before any check:
            x.numel()  # Python's AttributeError, in its words ('numpy.ndarray' object ...)
        return level.differentiable(x)

    return fresh


def _jacobian(func, argnums, has_aux, args, api, *, forward: bool):
    """jacrev's or (forward) jacfwd's Jacobian; see NOTE [ Forward-mode dtypes ]."""
    level = _Level()
    # (forward: an op without a tangent is refused in torch's forward-mode words, f's own
    # backward passes included, as torch's forward mode refuses it when f calls it)
    refusals = forward_ad_errors() if forward else contextlib.nullcontext()
    with _transform_mode(), refusals:
        fresh = _forward_primal(level) if forward else None
        args, flat_diff, diff_spec = _differentiable_args(level, args, argnums, fresh)
        if forward:  # in-place ops on the inputs are allowed, as in jvp
            seeds = {id(x) for x in flat_diff}
            args = tree_map(lambda x: alias_of(x) if id(x) in seeds else x, args, True)
        # jacfwd is vmap over jvp in torch: a user Function needs a vmap rule, its jvp is used
        calls = _custom._Calls() if forward else None
        opts = {"vmap": True, "calls": calls} if forward else {}
        out, aux = _split_aux(call_transformed_with(opts, func, *args), has_aux, api)
        flat_out, out_spec = tree_flatten(out, none_is_leaf=True)
        _check_tensor_outputs(flat_out, api)
        if not forward:
            _check_float_outputs(flat_out, "vjp(f, ...)")
        create_graph = level.needs_graph(flat_out)
        if forward and calls.calls:
            per_output = [
                tree_unflatten(row, diff_spec)
                for row in _jacfwd_custom(level, calls, flat_out, flat_diff)
            ]
        else:
            per_output = [
                tree_unflatten(
                    list(
                        _jacobian_of_output(
                            i, o, tuple(flat_diff), create_graph, False, forward=forward
                        )
                    ),
                    diff_spec,
                )
                for i, o in enumerate(flat_out)
            ]
    jac = level.export(tree_unflatten(per_output, out_spec))
    if has_aux:
        return jac, level.export(aux)
    return jac


def _jacfwd_custom(level, calls, flat_out, flat_diff):
    """jacfwd's Jacobian (one row per output, one block per input) when f called user Functions:
    the tangents of every basis vector of the inputs pushed through their jvp (NOTE [ A custom
    Function's jvp in the func transforms ] in minitorch/func/_custom.py)."""
    import minitorch

    sizes = [x.numel() for x in flat_diff]
    offsets = [sum(sizes[:j]) for j in range(len(sizes))]
    num = sum(sizes)

    def basis(j):
        x = flat_diff[j]

        def tangent(k):
            z = minitorch.zeros(sizes[j], dtype=x.dtype, device=x.device)
            if 0 <= k - offsets[j] < sizes[j]:
                z[k - offsets[j]] = 1
            return z.reshape(x.shape)

        return tangent

    seeds, tans = list(flat_diff), [basis(j) for j in range(len(flat_diff))]
    _custom.replay(level, calls, seeds, tans, num)
    diff = [i for i, o in enumerate(flat_out) if o.is_floating_point() or o.is_complex()]
    outs = [flat_out[i] for i in diff]
    us = [level.differentiable(probe_like(o)) for o in outs]
    cols = _custom.push_tangents(outs, us, seeds, tans, num) if outs else []
    rows = []
    for i, o in enumerate(flat_out):
        row = []
        for j, x in enumerate(flat_diff):
            shape = tuple(o.shape) + tuple(x.shape)
            if i not in diff or sizes[j] == 0:
                row.append(minitorch.zeros(shape, dtype=o.dtype, device=o.device))
                continue
            pos = diff.index(i)
            blocks = [cols[k][pos] for k in range(offsets[j], offsets[j] + sizes[j])]
            blocks = [_zeros_like(o) if b is None else b for b in blocks]
            row.append(minitorch.stack(blocks, dim=-1).reshape(shape))
        rows.append(row)
    return rows


def hessian(func, argnums=0):
    """The Hessian of func (returning a scalar) w.r.t. the argnums inputs: jacfwd(jacrev(func)).
    Mirrors torch.func.hessian.

    Differences from torch: both Jacobians are computed in reverse mode.
    """
    return jacfwd(jacrev(func, argnums), argnums)
