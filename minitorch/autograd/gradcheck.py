"""gradcheck and gradgradcheck: autograd's gradients against central finite differences."""

from __future__ import annotations

import itertools
import warnings

from minitorch._dtype import from_numpy
from minitorch._tensor import Size, Tensor, _make
from minitorch.autograd.engine import grad as _autograd_grad

__all__ = ["GradcheckError", "gradcheck", "gradgradcheck"]

# NOTE [ gradcheck on device arrays ]
# Everything here works on the raw arrays through the device's `xp`, so the same code runs on
# NumPy, CuPy and the strict device: inputs are perturbed in place, Jacobians are built on the
# device, and a verdict is read back with `.item()` once per comparison (gradcheck must answer
# True or False, so it synchronises; library code on the per-op path never does).

# Fast mode's random vectors come, as torch's do, from a fresh CPU generator (default seed)
# drawn in the default float dtype, so the numbers a failure prints are torch's.


class GradcheckError(RuntimeError):
    """Raised by gradcheck and gradgradcheck. Mirrors torch.autograd.gradcheck.GradcheckError."""


def gradcheck(
    func,
    inputs,
    *,
    eps: float = 1e-6,
    atol: float = 1e-5,
    rtol: float = 1e-3,
    raise_exception: bool = True,
    nondet_tol: float = 0.0,
    check_undefined_grad: bool = True,
    check_grad_dtypes: bool = False,
    check_batched_grad: bool = False,
    check_batched_forward_grad: bool = False,
    check_forward_ad: bool = False,
    check_backward_ad: bool = True,
    fast_mode: bool = False,
    masked: bool | None = None,
) -> bool:
    """Checks autograd's gradients of `func` at `inputs` against central finite differences.

    Mirrors torch.autograd.gradcheck: every floating input with requires_grad is perturbed by
    +-eps element by element (the numerical Jacobian), autograd gives the Jacobian row by row with
    one-hot grad_outputs (the analytical one), and they must agree elementwise within
    atol + rtol * |numerical|. Also checks that backward is reentrant (within nondet_tol), that
    it is linear in grad_output (zero in, zero out) and keeps the inputs' dtype, device and size.
    Returns True, or raises GradcheckError (returns False when raise_exception=False).

    With check_forward_ad, the Jacobian is also built column by column from forward-mode
    tangents (minitorch.autograd.forward_ad, one-hot tangents; in fast mode one random tangent)
    and compared with the numerical one.

    Differences from torch: forward-mode tangents are computed through double backward (see
    forward_ad), so the forward check tests the backward of the backward; without vmap,
    check_batched_grad checks what a batched backward relies on instead, that the
    vector-Jacobian product is linear in the grad_output, and check_batched_forward_grad is
    accepted but adds nothing. Sparse layouts do not exist, so `masked` has no effect. In fast
    mode an empty input's J u is zero, where torch's finite difference is NaN for a NaN output
    (a mean over an empty dim) and fails.
    """
    if not (check_forward_ad or check_backward_ad):
        raise AssertionError(
            "Expected at least one of check_forward_ad or check_backward_ad to be True"
        )
    if check_batched_grad and not check_backward_ad:
        raise AssertionError(
            "Setting check_batched_grad=True requires check_backward_ad to be True"
        )
    if check_batched_forward_grad and not check_forward_ad:
        raise AssertionError(
            "Setting check_batched_forward_grad=True requires check_forward_ad to be True"
        )
    try:
        inputs = _as_tuple(inputs)
        _check_inputs(inputs)
        p = _Problem(func, inputs, eps, atol, rtol, nondet_tol, check_grad_dtypes)
        if check_backward_ad:
            if fast_mode:
                _fast_check(p)
            else:
                _slow_check(p)
            if check_batched_grad:
                for i, o in enumerate(p.outputs):
                    _check_batched_grad(p.diff_inputs, o, i)
            if p.outputs:
                _check_backward_mul_by_grad_output(p.outputs, p.diff_inputs)
            if check_undefined_grad and len(p.outputs) > 1:
                _check_undefined_grad(func, inputs, p.diff_inputs)
        if check_forward_ad:
            if fast_mode:
                _fast_forward_check(p)
            else:
                _slow_forward_check(p)
        return True
    except GradcheckError:
        if raise_exception:
            raise
        return False


def gradgradcheck(
    func,
    inputs,
    grad_outputs=None,
    *,
    eps: float = 1e-6,
    atol: float = 1e-5,
    rtol: float = 1e-3,
    gen_non_contig_grad_outputs: bool = False,
    raise_exception: bool = True,
    nondet_tol: float = 0.0,
    check_undefined_grad: bool = True,
    check_grad_dtypes: bool = False,
    check_batched_grad: bool = False,
    check_fwd_over_rev: bool = False,
    check_rev_over_rev: bool = True,
    fast_mode: bool = False,
    masked: bool = False,
) -> bool:
    """Checks second derivatives: gradcheck of (inputs, grad_outputs) -> autograd.grad(func(inputs),
    inputs, grad_outputs, create_graph=True). Mirrors torch.autograd.gradgradcheck.

    Without grad_outputs, random ones in [-1, 1) with requires_grad are made, shaped like the
    differentiable outputs (non-contiguous with gen_non_contig_grad_outputs=True), as torch
    makes them: by testing.make_tensor, from the default random stream of their device (the
    same draws as torch's, so what the caller draws next is torch's numbers too).

    Differences from torch: check_fwd_over_rev=True checks
    forward-mode tangents of the gradient, which minitorch computes through a third backward.
    """
    if not (check_fwd_over_rev or check_rev_over_rev):
        raise AssertionError(
            "Expected at least one of check_fwd_over_rev or check_rev_over_rev to be True"
        )
    if check_undefined_grad and not check_rev_over_rev:
        raise AssertionError(
            "Setting check_undefined_grad=True requires check_rev_over_rev to be True"
        )
    if check_batched_grad and not check_rev_over_rev:
        raise AssertionError(
            "Setting check_batched_grad=True requires check_rev_over_rev to be True"
        )
    tupled_inputs = _as_tuple(inputs)
    if grad_outputs is None:
        from minitorch.testing import make_tensor

        outputs = _differentiable_outputs(func(*tupled_inputs))
        tupled_grad_outputs = tuple(
            make_tensor(
                o.shape,
                dtype=o.dtype if o.dtype.is_floating_point or o.dtype.is_complex else _mt_double(),
                device=o.device,
                low=-1,
                high=1,
                requires_grad=True,
                noncontiguous=gen_non_contig_grad_outputs,
            )
            for o in outputs
        )
    else:
        tupled_grad_outputs = _as_tuple(grad_outputs)
    n_in = len(tupled_inputs)
    diff_inputs = [i for i, x in enumerate(tupled_inputs) if _needs_grad(x)]

    def grad_of_func(*args):
        ins, gos = args[:n_in], args[n_in:]
        outs = _differentiable_outputs(func(*ins))
        grads = _autograd_grad(
            outs, tuple(ins[i] for i in diff_inputs), gos, create_graph=True, allow_unused=True
        )
        return tuple(g for g in grads if g is not None)

    return gradcheck(
        grad_of_func,
        tupled_inputs + tupled_grad_outputs,
        eps=eps,
        atol=atol,
        rtol=rtol,
        raise_exception=raise_exception,
        nondet_tol=nondet_tol,
        check_undefined_grad=check_undefined_grad,
        check_grad_dtypes=check_grad_dtypes,
        check_batched_grad=check_batched_grad,
        check_forward_ad=check_fwd_over_rev,
        check_backward_ad=check_rev_over_rev,
        fast_mode=fast_mode,
        masked=masked,
    )


# --- the problem being checked ---


class _Problem:
    """One gradcheck: `func` at `inputs`, its outputs at that point, and the tolerances."""

    def __init__(self, func, inputs, eps, atol, rtol, nondet_tol, check_grad_dtypes):
        self.func = func
        self.inputs = inputs
        self.eps, self.atol, self.rtol = eps, atol, rtol
        self.nondet_tol = nondet_tol
        self.check_grad_dtypes = check_grad_dtypes
        self.diff_inputs = [x for x in inputs if _needs_grad(x)]
        self.func_out = _as_tuple(func(*inputs))
        self.outputs = _differentiable_outputs(self.func_out)
        # where each differentiable output sits among all outputs (numerical Jacobians cover all)
        self.kept = [j for j, o in enumerate(self.func_out) if _needs_grad(o)]

    def evaluate(self):
        """The outputs' arrays, copied: an output may share memory with an input being
        perturbed."""
        outs = _as_tuple(self.func(*self.inputs))
        return [o._data.copy() if isinstance(o, Tensor) else None for o in outs]


def _check_inputs(inputs):
    any_requires_grad = False
    for idx, x in enumerate(inputs):
        if not _needs_grad(x):
            continue
        if x.dtype.name != "float64":
            warnings.warn(
                f"Input #{idx} requires gradient and is not a double precision floating point or "
                "complex. This check will likely fail if all the inputs are not of double "
                "precision floating point or complex. ",
                UserWarning,
                stacklevel=3,
            )
        arr = x._data
        overlapping = any(st == 0 and sz > 1 for st, sz in zip(arr.strides, arr.shape, strict=True))
        if arr.size and overlapping:
            raise RuntimeError(
                f"The {idx}th input has a dimension with stride 0. gradcheck only supports inputs "
                "that are non-overlapping to be able to compute the numerical gradients "
                "correctly. You should call .contiguous on the input before passing it to "
                "gradcheck."
            )
        any_requires_grad = True
    if not any_requires_grad:
        raise ValueError(
            "gradcheck expects at least one input tensor to require gradient, but none of them "
            "have requires_grad=True."
        )


# --- slow mode: full Jacobians ---


def _slow_check(p: _Problem):
    numerical = [_numerical_jacobians(p, x) for x in p.diff_inputs]
    if not p.outputs:
        _expect_zero(p, [j for per_input in numerical for j in per_input])
        return
    for i, o in enumerate(p.outputs):
        analytical = _analytical_jacobians(p, o, p.nondet_tol)
        for k, (x, a) in enumerate(zip(p.diff_inputs, analytical, strict=True)):
            n = _moved(numerical[k][p.kept[i]], o._device, x._device)
            if not _allclose(x._device.backend.xp, a, n, p.rtol, p.atol):
                raise GradcheckError(_mismatch_msg(i, k, _show(n, x), _show(a, x)))


def _numerical_jacobians(p: _Problem, x: Tensor):
    """For each output j, d output j / d x as an array (x numel, output numel) on the output's
    device, by central differences perturbing x in place one element at a time (None for
    non-tensor outputs; zeros for integral ones)."""
    arr = x._data
    jacs = [
        o._device.backend.xp.zeros((arr.size, o._data.size), dtype=_jacobian_dtype(o))
        if isinstance(o, Tensor)
        else None
        for o in p.func_out
    ]
    for row, idx in enumerate(itertools.product(*(range(s) for s in arr.shape))):
        orig = arr[idx].copy()
        arr[idx] = orig - p.eps
        before = p.evaluate()
        arr[idx] = orig + p.eps
        after = p.evaluate()
        arr[idx] = orig
        for jac, d in zip(jacs, _differences(p, before, after, idx), strict=True):
            if jac is not None and d is not None:
                jac[row] = d
    return jacs


def _differences(p: _Problem, before, after, idx=None):
    """(after - before) / (2 eps), flattened, for each floating output (None for the others)."""
    from minitorch._ops._common import quiet

    out = []
    for a, b in zip(before, after, strict=True):
        if a is None or b is None:
            out.append(None)
            continue
        on_index = f"on index {idx} " if idx is not None else ""
        if a.shape != b.shape:
            raise AssertionError(
                f"Expected `func` to return outputs with the same shape when inputs are perturbed "
                f"{on_index}by {p.eps}, but got: shapes {Size(a.shape)} and {Size(b.shape)}."
            )
        if a.dtype != b.dtype:
            raise AssertionError(
                f"Expected `func` to return outputs with the same dtype when inputs are perturbed "
                f"{on_index}by {p.eps}, but got: dtypes {from_numpy(a.dtype)} and "
                f"{from_numpy(b.dtype)}."
            )
        if not from_numpy(a.dtype).is_floating_point:
            out.append(None)
            continue
        with quiet(p.diff_inputs[0]._device.backend.xp):  # eps=0: torch's 0 / 0, silent NaN
            out.append(((b - a) / (2 * p.eps)).reshape(-1))
    return out


def _expect_zero(p: _Problem, numerical):
    # no differentiable output: then the function must not depend on its inputs at all
    for o, jac in zip(p.func_out * len(p.diff_inputs), numerical, strict=True):
        if jac is not None and _any_nonzero(o._device.backend.xp, jac):
            raise GradcheckError("Numerical gradient for function expected to be zero")


def _analytical_jacobians(p: _Problem, output: Tensor, nondet_tol):
    """For each input, d output / d input (input numel, output numel) from backward with one-hot
    grad_outputs (rows of the Jacobian); computed twice to check that backward is reentrant."""
    first, sizes_ok, types_ok = _vjp_rows(p.diff_inputs, output)
    second, _, _ = _vjp_rows(p.diff_inputs, output)
    if not types_ok and p.check_grad_dtypes:
        raise GradcheckError("Gradient has dtype mismatch")
    if not sizes_ok:
        raise GradcheckError("Analytical gradient has incorrect size")
    _check_reentrant(p.diff_inputs, first, second, nondet_tol)
    return first


def _vjp_rows(diff_inputs, output: Tensor):
    out = output._data
    xp = output._device.backend.xp
    n_out = out.size
    jacs = [
        x._device.backend.xp.zeros((x._data.size, n_out), dtype=x._data.dtype) for x in diff_inputs
    ]
    sizes_ok = types_ok = True
    for j in range(n_out):
        onehot = xp.zeros(n_out, dtype=out.dtype)
        onehot[j] = 1
        g = _make(onehot.reshape(out.shape), output._device, False, None)
        grads = _autograd_grad(output, diff_inputs, g, retain_graph=True, allow_unused=True)
        for jac, x, gi in zip(jacs, diff_inputs, grads, strict=True):
            if gi is None:
                continue
            if gi._data.shape != x._data.shape:
                sizes_ok = False
            elif gi._data.dtype != x._data.dtype:
                types_ok = False
            if gi._data.size == x._data.size:
                jac[:, j] = _moved(gi._data, gi._device, x._device).reshape(-1)
    return jacs, sizes_ok, types_ok


def _check_reentrant(diff_inputs, first, second, nondet_tol):
    for x, a, b in zip(diff_inputs, first, second, strict=True):
        if _max_abs_diff(x._device.backend.xp, a, b) > nondet_tol:
            raise GradcheckError(
                "Backward is not reentrant, i.e., running backward with same input and "
                "grad_output multiple times gives different values, although analytical "
                f"gradient matches numerical gradient.The tolerance for nondeterminism was "
                f"{nondet_tol}." + _NONDET_NOTE
            )


# torch's advice appended to the reentrancy failure (its test-suite workarounds included, as
# the text is torch's own)
_NONDET_NOTE = """

NOTE: If your op relies on non-deterministic operations i.e., it is listed here:
https://pytorch.org/docs/stable/generated/torch.use_deterministic_algorithms.html
this failure might be expected.

If you are adding a new operator, please file an issue and then use one of the
workarounds. The workaround depends on how your test invokes gradcheck/gradgradcheck.
If the test
- manually invokes gradcheck/gradgradcheck, then call gradcheck/gradgradcheck
  with `nondet_tol=<tol>` as a keyword argument.
- is OpInfo-based (e.g., in test_ops_gradients.py), then modify the OpInfo for the test
  to have `gradcheck_nondet_tol=<tol>`.
- is a Module test (e.g., in common_nn.py), then modify the corresponding
  module_test entry to have `gradcheck_nondet_tol=<tol>`
"""


# --- fast mode: v^T J u with random u, v ---


def _fast_check(p: _Problem):
    # torch's fast mode (pytorch#53876): for each input/output pair, v . (J u) by central
    # differences in a random direction u against (v^T J) . u from one backward. Two function
    # evaluations per input instead of two per input element.
    streams = {}
    all_u = [_unit_vector(x, streams) for x in p.diff_inputs]
    all_v = [_unit_vector(o, streams) for o in p.outputs]
    all_ju = []
    for x, u in zip(p.diff_inputs, all_u, strict=True):
        all_ju.append(_directional(p, x, u))
    if not p.outputs:
        _expect_zero(p, [d for ju in all_ju for d in ju])
        return
    for i, (o, v) in enumerate(zip(p.outputs, all_v, strict=True)):
        vj = _vjp_flat(p, o, v)
        for k, u in enumerate(all_u):
            analytical = _read((vj[k] * u).sum())
            numerical = _read((all_ju[k][p.kept[i]] * v).sum())
            # atol scaled like torch's: the sum over v^T (atol everywhere) u
            atol = p.atol * _read(u.sum()) * _read(v.sum())
            if not _close(analytical, numerical, p.rtol, atol):
                x = p.diff_inputs[k]
                # the two numbers as Python floats, as torch prints them in fast mode
                msg = _mismatch_msg(i, k, numerical, analytical)
                raise GradcheckError(msg + _slow_mode_report(p, i, k))


def _vjp_flat(p: _Problem, output: Tensor, v):
    """v^T J for each input, flattened; computed twice to check reentrancy like slow mode."""
    results = []
    for _ in range(2):
        g = _make(v.reshape(output._data.shape), output._device, False, None)
        grads = _autograd_grad(output, p.diff_inputs, g, retain_graph=True, allow_unused=True)
        row = []
        for x, gi in zip(p.diff_inputs, grads, strict=True):
            if gi is None:
                row.append(x._device.backend.xp.zeros(x._data.size, dtype=x._data.dtype))
                continue
            if gi._data.shape != x._data.shape:
                raise GradcheckError("Analytical gradient has incorrect size")
            if gi._data.dtype != x._data.dtype and p.check_grad_dtypes:
                raise GradcheckError("Gradient has dtype mismatch")
            row.append(_moved(gi._data, gi._device, x._device).reshape(-1).copy())
        results.append(row)
    _check_reentrant(p.diff_inputs, results[0], results[1], p.nondet_tol)
    return results[0]


def _slow_mode_jacobians(xp, numerical, analytical, x) -> str:
    """torch's fast-mode failure appendix: both Jacobians recomputed in slow mode."""
    return (
        "\nThe above quantities relating the numerical and analytical jacobians are computed \n"
        "in fast mode. See: https://github.com/pytorch/pytorch/issues/53876 for more background \n"
        "about fast mode. Below, we recompute numerical and analytical jacobians in slow mode:\n\n"
        f"Numerical:\n {_show(numerical, x)}\n"
        f"Analytical:\n{_show(analytical, x)}\n\n"
        "The max per-element difference (slow mode) is: "
        f"{_max_abs_diff(xp, numerical, analytical)}.\n"
    )


def _slow_mode_report(p: _Problem, i, k):
    """The full Jacobians of output i w.r.t. input k, for the message of a fast-mode failure."""
    x, o = p.diff_inputs[k], p.outputs[i]
    numerical = _moved(_numerical_jacobians(p, x)[p.kept[i]], o._device, x._device)
    analytical = _analytical_jacobians(p, o, float("inf"))[k]
    xp = x._device.backend.xp
    msg = _slow_mode_jacobians(xp, numerical, analytical, x)
    if _allclose(xp, analytical, numerical, p.rtol, p.atol):
        msg += (
            "\nFast gradcheck failed but element-wise differences are small. This means that the\n"
            "test might've passed in slow_mode!\n\n"
            "If you are calling gradcheck/gradgradcheck yourself, pass fast_mode=False."
        )
    return msg


# --- forward mode: Jacobian columns from tangents ---


def _tangents(p: _Problem, x: Tensor, t):
    """For each differentiable output, the forward-mode tangent of func at p.inputs with x given
    the tangent t (an array shaped like x) and the other inputs none: J_x t flattened, on the
    output's device (zeros where an output does not depend on x)."""
    from minitorch.autograd import forward_ad as fwAD
    from minitorch.autograd.grad_mode import enable_grad

    tangent = _make(t.reshape(x._data.shape), x._device, False, None)
    with enable_grad(), fwAD.dual_level():
        dual = fwAD.make_dual(x, tangent)
        outs = _as_tuple(p.func(*(dual if inp is x else inp for inp in p.inputs)))
        cols = []
        for j in p.kept:
            o = outs[j]
            got = fwAD.unpack_dual(o).tangent
            xp = o._device.backend.xp
            if got is None:
                cols.append(xp.zeros(o._data.size, dtype=_jacobian_dtype(o)))
            else:
                cols.append(got._data.reshape(-1).astype(_jacobian_dtype(o), copy=True))
    return cols


def _forward_jacobians(p: _Problem, x: Tensor):
    """For each differentiable output, d output / d x (x numel, output numel), row by row from
    one-hot tangents (the layout of the numerical Jacobians)."""
    xp = x._device.backend.xp
    n = x._data.size
    jacs = [
        o._device.backend.xp.zeros((n, o._data.size), dtype=_jacobian_dtype(o)) for o in p.outputs
    ]
    for row in range(n):
        onehot = xp.zeros(n, dtype=x._data.dtype)
        onehot[row] = 1
        for jac, col in zip(jacs, _tangents(p, x, onehot), strict=True):
            jac[row] = col
    return jacs


def _forward_mismatch_msg(out_idx, in_idx, numerical, analytical) -> str:
    return "Jacobian computed with forward mode mismatch" + _mismatch_msg(
        out_idx, in_idx, numerical, analytical
    ).removeprefix("Jacobian mismatch")


def _slow_forward_check(p: _Problem):
    for k, x in enumerate(p.diff_inputs):
        numerical = _numerical_jacobians(p, x)
        analytical = _forward_jacobians(p, x)
        for i, o in enumerate(p.outputs):
            n = numerical[p.kept[i]]
            a = analytical[i]
            if not _allclose(o._device.backend.xp, a, n, p.rtol, p.atol):
                n, a = _moved(n, o._device, x._device), _moved(a, o._device, x._device)
                raise GradcheckError(_forward_mismatch_msg(i, k, _show(n, x), _show(a, x)))


def _directional(p: _Problem, x, u):
    """J u for the input x: the outputs' central differences along the direction u (x's
    values restored afterwards)."""
    arr = x._data
    orig = arr.copy()
    step = (u * p.eps).reshape(arr.shape)
    arr[...] = orig - step
    before = p.evaluate()
    arr[...] = orig + step
    after = p.evaluate()
    arr[...] = orig
    if not arr.size:
        # No direction to move in: J u is zero. torch differences the two (equal) evaluations,
        # which is NaN where an output is NaN (a mean over an empty dim), and fails.
        xp = x._device.backend.xp
        return [d if d is None else xp.zeros_like(d) for d in _differences(p, before, after)]
    return _differences(p, before, after)


def _fast_forward_check(p: _Problem):
    # J u by central differences in a random direction u against the tangent of u, per input
    streams = {}
    for k, x in enumerate(p.diff_inputs):
        u = _unit_vector(x, streams)
        numerical = _directional(p, x, u)
        analytical = _tangents(p, x, u)
        atol = p.atol * _read(u.sum())  # scaled like torch's: the sum over (atol everywhere) u
        for i, o in enumerate(p.outputs):
            n, a = numerical[p.kept[i]], analytical[i]
            if not _allclose(o._device.backend.xp, a, n, p.rtol, atol):
                msg = _forward_mismatch_msg(i, k, _show(n, o), _show(a, o))
                raise GradcheckError(msg + _slow_forward_report(p, i, k))


def _slow_forward_report(p: _Problem, i, k):
    """The full Jacobians of output i w.r.t. input k, for the message of a fast-mode failure."""
    x, o = p.diff_inputs[k], p.outputs[i]
    numerical = _moved(_numerical_jacobians(p, x)[p.kept[i]], o._device, x._device)
    analytical = _moved(_forward_jacobians(p, x)[i], o._device, x._device)
    return _slow_mode_jacobians(x._device.backend.xp, numerical, analytical, x)


# --- the other checks ---


def _check_backward_mul_by_grad_output(outputs, diff_inputs):
    zeros = [_zeros_like(o) for o in outputs]
    grads = _autograd_grad(outputs, diff_inputs, zeros, allow_unused=True)
    for gi, x in zip(grads, diff_inputs, strict=True):
        if gi is None:
            continue
        if _any_nonzero(gi._device.backend.xp, gi._data):
            raise GradcheckError("backward not multiplied by grad_output")
        if gi._data.dtype != x._data.dtype:
            raise GradcheckError("grad is incorrect type")
        if gi._device is not x._device:
            raise GradcheckError("grad is incorrect device")
        if gi._data.shape != x._data.shape:
            raise GradcheckError("grad is incorrect size")


def _check_undefined_grad(func, inputs, diff_inputs):
    # minitorch has no undefined-gradient tensor; what torch checks here is that a multi-output
    # backward copes when some outputs get no gradient. Differentiating one output at a time
    # leaves the others' gradients missing (None at the node, zeros unless it opted out).
    n = len(_differentiable_outputs(func(*inputs)))
    for k in range(n):
        out = _differentiable_outputs(func(*inputs))[k]
        try:
            grads = _autograd_grad(out, diff_inputs, _zeros_like(out), allow_unused=True)
        except RuntimeError as e:
            raise GradcheckError(
                "Expected backward function to handle undefined output grads. Please look at "
                '"Notes about undefined output gradients" in "tools/autograd/derivatives.yaml"'
            ) from e
        for gi in grads:
            if gi is not None and _any_nonzero(gi._device.backend.xp, gi._data):
                raise GradcheckError(
                    "Expected all input grads to be undefined or zero when all output grads are "
                    'undefined or zero. Please look at "Notes about undefined output gradients" '
                    'in "tools/autograd/derivatives.yaml"'
                )


def _check_batched_grad(diff_inputs, output, output_idx):
    # See the docstring of gradcheck: vjp(v1 + v2) must equal vjp(v1) + vjp(v2). The two
    # grad_outputs are torch's: randn_like(output) twice, from the default stream.
    from minitorch import randn_like

    v1, v2 = (randn_like(output)._data.reshape(-1) for _ in range(2))

    def vjp(v):
        g = _make(v.reshape(output._data.shape), output._device, False, None)
        grads = _autograd_grad(output, diff_inputs, g, retain_graph=True, allow_unused=True)
        return [
            x._device.backend.xp.zeros(x._data.shape, dtype=x._data.dtype)
            if gi is None
            else gi._data
            for gi, x in zip(grads, diff_inputs, strict=True)
        ]

    separate = [a + b for a, b in zip(vjp(v1), vjp(v2), strict=True)]
    together = vjp(v1 + v2)
    for k, (x, res, exp) in enumerate(zip(diff_inputs, together, separate, strict=True)):
        if not _allclose(x._device.backend.xp, res, exp, 1e-5, 1e-8):
            raise GradcheckError(
                f"For output {output_idx} and input {k}:\n\n"
                "gradcheck failed while testing batched gradient computation: minitorch checks "
                "that backward is linear in grad_output (vjp(v1 + v2) == vjp(v1) + vjp(v2)).\n\n"
                f"Got:\n{_show(res, x)}\n\nExpected:\n{_show(exp, x)}"
            )


# --- helpers ---


def _as_tuple(x):
    if isinstance(x, tuple):
        return x
    if isinstance(x, list):
        return tuple(x)
    return (x,)


def _needs_grad(x) -> bool:
    return isinstance(x, Tensor) and x._requires_grad


def _differentiable_outputs(out):
    # (torch reads each output's requires_grad: a non-tensor one is its AttributeError)
    return tuple(o for o in _as_tuple(out) if o.requires_grad)


def _jacobian_dtype(t: Tensor):
    return t._data.dtype if t.dtype.is_floating_point else t._device.backend.xp.float64


def _zeros_like(t: Tensor) -> Tensor:
    return _make(t._device.backend.xp.zeros_like(t._data), t._device, False, None)


def _moved(array, src, dst):
    """An array of device `src` on device `dst` (an output on another device than the input)."""
    if src is dst:
        return array
    return dst.backend.from_host(src.backend.to_host(array), dst)


def _any_nonzero(xp, array) -> bool:
    return array.size > 0 and bool(_read(xp.any(array != 0)))


def _read(x):
    """A 0-d device value (or a NumPy/Python scalar) as a Python number: an explicit transfer."""
    return x.item() if hasattr(x, "item") else x


def _check_tolerances(rtol, atol):
    # torch compares with torch.allclose, which refuses a negative tolerance
    from minitorch._ops.logical import check_tolerances

    check_tolerances(rtol, atol)


def _close(a: float, b: float, rtol, atol) -> bool:
    """torch.allclose of two numbers: equal (infinities too), or |a - b| <= atol + rtol * |b|
    (never for a NaN)."""
    _check_tolerances(rtol, atol)
    return a == b or abs(a - b) <= atol + rtol * abs(b)


def _allclose(xp, a, b, rtol, atol) -> bool:
    """|a - b| <= atol + rtol * |b| everywhere (torch.allclose; b is the reference)."""
    _check_tolerances(rtol, atol)
    return bool(_read(xp.allclose(a, b, rtol=rtol, atol=atol)))


def _max_abs_diff(xp, a, b) -> float:
    return _read(xp.abs(a - b).max()) if a.size else 0.0


def _show(value, like: Tensor) -> str:
    """A Jacobian (an array on like's device, or a fast-mode number) printed as a tensor."""
    dev = like._device
    xp = dev.backend.xp
    array = xp.asarray(value, dtype=like._data.dtype) if isinstance(value, float) else value
    return repr(_make(array, dev, False, None))


def _mismatch_msg(out_idx, in_idx, numerical, analytical) -> str:
    return (
        f"Jacobian mismatch for output {out_idx:d} with respect to input {in_idx:d},\n"
        f"numerical:{numerical}\nanalytical:{analytical}\n"
    )


def _unit_vector(t: Tensor, streams):
    """A random non-negative vector of t's numel and dtype on t's device, of norm 1: uniform
    draws of the default float dtype from the one CPU generator in `streams`, as torch's."""
    xp = t._device.backend.xp
    dtype = _jacobian_dtype(t)
    n = t._data.size
    if n == 0:
        return xp.zeros(0, dtype=dtype)
    from minitorch import Generator, rand

    gen = streams.get("cpu")
    if gen is None:
        gen = streams["cpu"] = Generator()
    u = rand(n, generator=gen, device="cpu").to(device=t.device)._data.astype(dtype)
    return u / xp.linalg.norm(u)


def _mt_double():
    from minitorch import float64

    return float64
