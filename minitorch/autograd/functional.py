"""autograd.functional: jacobian, hessian, vjp, jvp, hvp, vhp, all built on autograd.grad.

Mirrors torch.autograd.functional. Differences from torch: there is no forward-mode AD and no vmap,
so `vectorize=True` and `strategy="forward-mode"` give the same numbers, computed row by row in
reverse mode (with forward mode's dtypes; see NOTE [ Forward-mode dtypes ]); jvp and hvp use the
double-backward trick (as torch's reverse-mode versions do).
"""

from __future__ import annotations

import minitorch
from minitorch._tensor import Tensor, _make
from minitorch.autograd.engine import grad
from minitorch.autograd.grad_mode import enable_grad, set_grad_enabled, state

__all__ = ["vjp", "jvp", "jacobian", "hessian", "hvp", "vhp"]


# --- argument handling ---


def _tupled(x, what: str, fn: str):
    """(whether x was a tuple, x as a tuple of Tensors); torch's TypeError for anything else."""
    was_tuple = isinstance(x, tuple)
    items = x if was_tuple else (x,)
    for i, t in enumerate(items):
        if not isinstance(t, Tensor):
            where = f"the value at index {i}" if was_tuple else f"the given {what}"
            raise TypeError(
                f"The {what} given to {fn} must be either a Tensor or a tuple of Tensors but "
                f"{where} has type {type(t)}."
            )
    return was_tuple, items


def _fresh(tensors, create_graph: bool, need_graph: bool = True):
    """New Tensor objects for the inputs, so the function's arguments are told apart from the same
    tensors captured in its closure; they stay in the caller's graph only under create_graph."""
    out = []
    for t in tensors:
        if create_graph and t._requires_grad:
            out.append(t.view_as(t))
        else:
            out.append(t.detach().requires_grad_(need_graph))
    return tuple(out)


def _check_v(v, refs, refs_tuple: bool):
    if len(v) != len(refs):
        if refs_tuple:
            raise RuntimeError(
                f"v is a tuple of invalid length: should be {len(refs)} but got {len(v)}."
            )
        raise RuntimeError("The given v should contain a single Tensor.")
    for i, (a, b) in enumerate(zip(v, refs, strict=True)):
        if a.shape != b.shape:
            entry = f"Entry {i} in " if refs_tuple else ""
            raise RuntimeError(f"{entry}v has invalid size: should be {b.shape} but got {a.shape}.")


_STRICT_MSGS = {
    "outputs": "Output {i} of the user-provided function does not require gradients. The "
    "outputs must be computed in a differentiable manner from the input when running in strict "
    "mode.",
    "grad_inputs": "The gradient with respect to input {i} is independent of the inputs of the "
    "user-provided function. This is not allowed in strict mode.",
    "jacobian": "While computing the hessian, found that the jacobian of the user-provided "
    "function with respect to input {i} is independent of the input. This is not allowed in "
    "strict mode. You should ensure that your function is twice differentiable and that the "
    "jacobian depends on the inputs (this would be violated by a linear function for example).",
    "hessian": "The hessian of the user-provided function with respect to input {i} is "
    "independent of the input. This is not allowed in strict mode. You should ensure that your "
    "function is thrice differentiable and that the hessian depends on the inputs.",
}


def _check_strict(tensors, kind: str, strict: bool):
    """strict=True: every tensor must exist and depend on the inputs."""
    if not strict:
        return
    for i, t in enumerate(tensors):
        if t is None:
            raise RuntimeError(
                f"The output of the user-provided function is independent of input {i}. This is "
                "not allowed in strict mode."
            )
        if not t._requires_grad:
            raise RuntimeError(_STRICT_MSGS[kind].format(i=i))


_MISSING_MSGS = {
    "back": "The output of the user-provided function is independent of input {i}. This is not "
    "allowed in strict mode.",
    "back_trick": "The gradient with respect to the input is independent of entry {i} in the "
    "grad_outputs when using the double backward trick to compute forward mode gradients. This is "
    "not allowed in strict mode.",
    "double_back": "The jacobian of the user-provided function is independent of input {i}. This "
    "is not allowed in strict mode.",
    "double_back_trick": "The hessian of the user-provided function is independent of entry {i} "
    "in the grad_jacobian. This is not allowed in strict mode as it prevents from using the "
    "double backward trick to replace forward mode AD.",
}


def _zeros_for_missing(grads, refs, strict: bool, create_graph: bool, stage: str):
    """None gradients become zeros shaped like `refs` (errors in strict mode)."""
    out = []
    for i, g in enumerate(grads):
        if g is None:
            if strict:
                raise RuntimeError(_MISSING_MSGS[stage].format(i=i))
            g = _zeros_like(refs[i])
        elif strict and create_graph and not g._requires_grad:
            what = "hessian" if stage.startswith("double") else "jacobian"
            raise RuntimeError(
                f"The {what} of the user-provided function is independent of input {i}. This is "
                "not allowed in strict mode when create_graph=True."
            )
        out.append(g)
    return tuple(out)


# NOTE [ Forward-mode dtypes ]
# Forward-mode AD pushes a tangent through f op by op, so a tangent takes the dtypes the function
# computes in: jacfwd's block for (output i, input j) has output i's dtype (a.double() * 2 of a
# float32 a gives a float64 block, where jacrev's block has the input's dtype), an integer or
# bool output gets a zero block of its own dtype, and a primal must be floating point or complex
# (a ValueError). minitorch computes these Jacobians in reverse mode, where each block comes out
# in the input's dtype, and casts it to the output's: the dtypes match torch, the values are
# rounded through the input's dtype. Used by torch.func.jacfwd and jvp (minitorch/func/
# _transforms.py) and by jacobian(..., strategy="forward-mode") here.


def _check_dual_dtype(t: Tensor, name: str) -> None:
    """A primal or tangent of forward-mode AD must be floating point or complex, as in torch."""
    if not (t.is_floating_point() or t.is_complex()):
        raise ValueError(f"Expected {name} to be floating point or complex, but got: {t.dtype}")


def _zeros_like(t: Tensor) -> Tensor:
    return _make(t._device.backend.xp.zeros_like(t._data), t._device, False, None)


def _grads(outputs, inputs, grad_outputs=None, create_graph=False, retain_graph=None):
    """autograd.grad over the outputs that require grad (None for inputs nothing reaches)."""
    if grad_outputs is None:
        grad_outputs = (None,) * len(outputs)
    pairs = [
        (o, g)
        for o, g in zip(outputs, grad_outputs, strict=True)
        if o is not None and o._requires_grad
    ]
    if not pairs:
        return (None,) * len(inputs)
    return grad(
        [o for o, _ in pairs],
        inputs,
        [g for _, g in pairs],
        retain_graph=retain_graph,
        create_graph=create_graph,
        allow_unused=True,
    )


def _finish(tensors, create_graph: bool):
    """Results leave without history unless the caller asked for the graph."""
    if create_graph:
        return tuple(tensors)
    return tuple(t.detach() if isinstance(t, Tensor) else _finish(t, False) for t in tensors)


def _single_scalar_output(outputs, out_tuple: bool, fn: str):
    if out_tuple or not isinstance(outputs[0], Tensor):
        raise RuntimeError(f"The function given to {fn} should return a single Tensor")
    if outputs[0].numel() != 1:
        raise RuntimeError(
            f"The Tensor returned by the function given to {fn} should contain a single element"
        )


def _v_or_default(v, inputs, in_tuple, create_graph, fn):
    if v is not None:
        _, v = _tupled(v, "v", fn)
        v = _fresh(v, create_graph, need_graph=False)
        _check_v(v, inputs, in_tuple)
        return v
    if len(inputs) != 1 or inputs[0].numel() != 1:
        raise RuntimeError(
            "The vector v can only be None if the input to the user-provided function is a single "
            "Tensor with a single element."
        )
    return None


# --- the public functions ---


def vjp(func, inputs, v=None, create_graph=False, strict=False):
    """(func(inputs), v^T J). Mirrors torch.autograd.functional.vjp."""
    with enable_grad():
        in_tuple, inputs = _tupled(inputs, "inputs", "vjp")
        inputs = _fresh(inputs, create_graph)
        out_tuple, outputs = _tupled(func(*inputs), "outputs of the user-provided function", "vjp")
        _check_strict(outputs, "outputs", strict)
        if v is not None:
            _, v = _tupled(v, "v", "vjp")
            v = _fresh(v, create_graph, need_graph=False)
            _check_v(v, outputs, out_tuple)
        elif len(outputs) != 1 or outputs[0].numel() != 1:
            raise RuntimeError(
                "The vector v can only be None if the user-provided function returns a single "
                "Tensor with a single element."
            )
    with set_grad_enabled(bool(create_graph or state.enabled)):
        res = _grads(outputs, inputs, v, create_graph)
        res = _zeros_for_missing(res, inputs, strict, create_graph, "back")
    outputs = _finish(outputs, create_graph)
    res = _finish(res, create_graph)
    return _untuple(outputs, out_tuple), _untuple(res, in_tuple)


def jvp(func, inputs, v=None, create_graph=False, strict=False):
    """(func(inputs), J v), by the double-backward trick. Mirrors torch.autograd.functional.jvp."""
    with enable_grad():
        in_tuple, inputs = _tupled(inputs, "inputs", "jvp")
        inputs = _fresh(inputs, create_graph)
        v = _v_or_default(v, inputs, in_tuple, create_graph, "jvp")
        out_tuple, outputs = _tupled(func(*inputs), "outputs of the user-provided function", "jvp")
        _check_strict(outputs, "outputs", strict)
        # u -> J^T u is linear, so differentiating it w.r.t. u at any u (zeros here) gives J.
        us = tuple(_zeros_like(o).requires_grad_() for o in outputs)
        jt_u = _grads(outputs, inputs, us, create_graph=True)
        _check_strict(jt_u, "grad_inputs", strict)
    with set_grad_enabled(bool(create_graph or state.enabled)):
        res = _grads(jt_u, us, v, create_graph)
        res = _zeros_for_missing(res, outputs, strict, create_graph, "back_trick")
    outputs = _finish(outputs, create_graph)
    res = _finish(res, create_graph)
    return _untuple(outputs, out_tuple), _untuple(res, out_tuple)


def jacobian(
    func, inputs, create_graph=False, strict=False, vectorize=False, strategy="reverse-mode"
):
    """The Jacobian of func at inputs: result[i][j] has shape outputs[i].shape + inputs[j].shape.
    Mirrors torch.autograd.functional.jacobian."""
    if strategy not in ("forward-mode", "reverse-mode"):
        raise AssertionError(
            'Expected strategy to be either "forward-mode" or "reverse-mode". Hint: If your '
            'function has more outputs than inputs, "forward-mode" tends to be more performant. '
            'Otherwise, prefer to use "reverse-mode".'
        )
    forward = strategy == "forward-mode"
    if forward:
        _check_forward_mode(create_graph, strict, vectorize)
    with enable_grad():
        in_tuple, inputs = _tupled(inputs, "inputs", "jacobian")
        if forward:
            for t in inputs:
                _check_dual_dtype(t, "primal")
        inputs = _fresh(inputs, create_graph)
        out_tuple, outputs = _tupled(
            func(*inputs), "outputs of the user-provided function", "jacobian"
        )
        _check_strict(outputs, "outputs", strict)
        if vectorize and strict:
            raise RuntimeError(
                "torch.autograd.functional.jacobian: `strict=True` and `vectorized=True` are not "
                "supported together. Please either set `strict=False` or `vectorize=False`."
            )
        jac = tuple(
            _jacobian_of_output(i, out, inputs, create_graph, strict, forward=forward)
            for i, out in enumerate(outputs)
        )
        if vectorize and create_graph and not forward and len(outputs) > 1:
            jac = _split_per_input(jac, outputs, inputs)
    jac = tuple(_finish(row, create_graph) for row in jac)
    if forward:  # torch's forward mode answers in lists where the reverse mode has tuples
        jac = [list(row) for row in jac]
    if not in_tuple:
        jac = tuple(row[0] for row in jac)
    if forward:
        return jac if out_tuple else jac[0]
    return _untuple(jac, out_tuple)


def _split_per_input(jac, outputs, inputs):
    """torch's vectorized reverse mode takes one batched vjp for all the outputs together and
    splits its Jacobian of each input by output: with create_graph, every output's block of an
    input then has a graph when one has (a constant or zero block included). The blocks of such
    an input are joined and split the same way."""
    rows = [list(row) for row in jac]
    for j, inp in enumerate(inputs):
        blocks = [row[j] for row in jac]
        flags = {b._requires_grad for b in blocks}
        if len(flags) == 1:  # all with a graph or all without: torch's flags already
            continue
        in_shape = tuple(inp.shape)
        joined = minitorch.cat([b.reshape((-1, *in_shape)) for b in blocks])
        parts = joined.split([o.numel() for o in outputs])
        for i, (part, out) in enumerate(zip(parts, outputs, strict=True)):
            rows[i][j] = part.view(tuple(out.shape) + in_shape)
    return tuple(tuple(row) for row in rows)


def _check_forward_mode(create_graph, strict, vectorize):
    if create_graph:
        raise NotImplementedError(
            "torch.autograd.functional.jacobian: `create_graph=True` and "
            '`strategy="forward-mode"` are not supported together (yet). Please either set '
            '`create_graph=False` or `strategy="reverse-mode"`.'
        )
    if strict:
        raise RuntimeError(
            'torch.autograd.functional.jacobian: `strict=True` and `strategy="forward-mode"` are '
            "not supported together (yet). Please either set `strict=False` or "
            '`strategy="reverse-mode"`.'
        )
    if not vectorize:
        raise NotImplementedError(  # torch's wording, its missing space ("isonly") included
            "Computing Jacobian using forward-AD or forward-over-reverse Hessian isonly "
            "implemented for `vectorize=True`."
        )


def _jacobian_of_output(i, out, inputs, create_graph, strict, *, forward: bool = False):
    """One row per element of `out` (a vjp with a one-hot vector), stacked per input. forward:
    the blocks take forward mode's dtypes (see NOTE [ Forward-mode dtypes ])."""
    xp = out._device.backend.xp
    if forward and not (out.is_floating_point() or out.is_complex()):
        # no tangent flows into an integer or bool output: a zero block of its dtype
        return tuple(
            _make(
                xp.zeros(tuple(out.shape) + tuple(inp.shape), out._data.dtype),
                inp._device,
                False,
                None,
            )
            for inp in inputs
        )
    rows = [[] for _ in inputs]
    n = out.numel()
    for k in range(n):
        onehot = xp.zeros(n, dtype=out._data.dtype)
        onehot[k] = 1
        e = _make(onehot.reshape(out._data.shape), out._device, False, None)
        vj = _grads((out,), inputs, (e,), create_graph, retain_graph=True)
        for j, (g, inp) in enumerate(zip(vj, inputs, strict=True)):
            if g is None:
                if strict:
                    raise RuntimeError(
                        f"Output {i} of the user-provided function is independent of input {j}. "
                        "This is not allowed in strict mode."
                    )
                g = _zeros_like(inp)
            elif strict and create_graph and not g._requires_grad:
                raise RuntimeError(
                    f"The jacobian of the user-provided function is independent of input {i}. "
                    "This is not allowed in strict mode when create_graph=True."
                )
            rows[j].append(g)
    jac = []
    for gs, inp in zip(rows, inputs, strict=True):
        shape = tuple(out.shape) + tuple(inp.shape)
        dtype = out._data.dtype if forward else inp._data.dtype
        if not gs:  # an output with no elements
            jac.append(_make(xp.zeros(shape, dtype=dtype), inp._device, False, None))
            continue
        block = minitorch.stack(gs).view(shape)
        jac.append(block if block._data.dtype == dtype else block.to(out.dtype))
    return tuple(jac)


def hessian(
    func,
    inputs,
    create_graph=False,
    strict=False,
    vectorize=False,
    outer_jacobian_strategy="reverse-mode",
):
    """The Hessian of a function returning one element: result[i][j] has shape
    inputs[i].shape + inputs[j].shape. Mirrors torch.autograd.functional.hessian."""
    in_tuple, inputs = _tupled(inputs, "inputs", "hessian")
    if outer_jacobian_strategy not in ("forward-mode", "reverse-mode"):
        raise AssertionError('Expected strategy to be either "forward-mode" or "reverse-mode".')

    def scalar_func(*xs):
        out = func(*xs)
        out_tuple, outs = _tupled(out, "outputs of the user-provided function", "hessian")
        _check_strict(outs, "outputs", strict)
        _single_scalar_output(outs, out_tuple, "hessian")
        return out.squeeze()

    def gradient(*xs):
        g = jacobian(scalar_func, xs, create_graph=True)
        _check_strict(g, "jacobian", strict)
        return g

    res = jacobian(
        gradient,
        inputs,
        create_graph=create_graph,
        strict=strict,
        vectorize=vectorize,
        strategy=outer_jacobian_strategy,
    )
    if not in_tuple:
        return res[0][0]
    return res


def vhp(func, inputs, v=None, create_graph=False, strict=False):
    """(func(inputs), v^T H). Mirrors torch.autograd.functional.vhp."""
    with enable_grad():
        in_tuple, inputs = _tupled(inputs, "inputs", "vhp")
        inputs = _fresh(inputs, create_graph)
        v = _v_or_default(v, inputs, in_tuple, create_graph, "vhp")
        out_tuple, outputs = _tupled(func(*inputs), "outputs of the user-provided function", "vhp")
        _check_strict(outputs, "outputs", strict)
        _single_scalar_output(outputs, out_tuple, "vhp")
        jac = _grads(outputs, inputs, create_graph=True)
        _check_strict(jac, "jacobian", strict)
    with set_grad_enabled(bool(create_graph or state.enabled)):
        res = _grads(jac, inputs, v, create_graph)
        res = _zeros_for_missing(res, inputs, strict, create_graph, "double_back")
    outputs = _finish(outputs, create_graph)
    res = _finish(res, create_graph)
    return _untuple(outputs, out_tuple), _untuple(res, in_tuple)


def hvp(func, inputs, v=None, create_graph=False, strict=False):
    """(func(inputs), H v), by the double-backward trick. Mirrors torch.autograd.functional.hvp."""
    with enable_grad():
        in_tuple, inputs = _tupled(inputs, "inputs", "hvp")
        inputs = _fresh(inputs, create_graph)
        v = _v_or_default(v, inputs, in_tuple, create_graph, "hvp")
        out_tuple, outputs = _tupled(func(*inputs), "outputs of the user-provided function", "hvp")
        _check_strict(outputs, "outputs", strict)
        _single_scalar_output(outputs, out_tuple, "hvp")
        jac = _grads(outputs, inputs, create_graph=True)
        _check_strict(jac, "jacobian", strict)
        # u -> u^T H is linear in u: differentiating it w.r.t. u gives H v without assuming that H
        # is symmetric.
        us = tuple(_zeros_like(x).requires_grad_() for x in inputs)
        ut_h = _grads(jac, inputs, us, create_graph=True)
        _check_strict(jac, "hessian", strict)
    with set_grad_enabled(bool(create_graph or state.enabled)):
        res = _grads(ut_h, us, v, create_graph)
        res = _zeros_for_missing(res, inputs, strict, create_graph, "double_back_trick")
    outputs = _finish(outputs, create_graph)
    res = _finish(res, create_graph)
    return _untuple(outputs, out_tuple), _untuple(res, in_tuple)


def _untuple(res, was_tuple: bool):
    return tuple(res) if was_tuple else res[0]
