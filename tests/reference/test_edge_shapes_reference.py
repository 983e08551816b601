"""Every op-test row with a torch_op (tests/ops/specs_*.py) on inputs its row does not list, against
PyTorch on the CPU: EMPTY inputs (one axis set to 0), ZERO-DIMENSIONAL inputs (a row of 1-d
inputs as 0-d) and INTEGER / BOOL inputs to a float row. Where torch raises, minitorch must raise
the same exception type; where torch returns, the same shapes, dtypes and values, and (float64
variants) the same input gradients for an all-ones upstream gradient. Skipped without torch.

Variants (derived from the row's float64 inputs, so the values come from its domain):
- "empty@<axis>": axis counted from the right (broadcasting stays consistent) set to 0 in every
  input whose size there is > 1: the rightmost axis where some input has size > 1, and the
  leading axis of the widest input when that is a different one;
- "zerod": every input 1-d or 0-d (some 1-d) -> all inputs 0-d (their first element);
- "int64" / "bool": the float inputs cast (only the outcome is compared: raise or not, the
  exception type, the result dtype and values).
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import minitorch as mt
from tests.ops.test_ops import SPECS, as_list, dtype_cases, grad_case, grad_inputs, make_arrays

torch = pytest.importorskip("torch")

_R_BCE = "reported (nn_kernels.py): binary_cross_entropy takes int64/bool; torch raises"
_R_LINEAR_BOOL = "reported (nn_kernels.py): linear takes bool; torch raises NotImplementedError"
_R_NLL = (
    "reported (nn_kernels.py): nll_loss takes int64 input (torch: NotImplementedError), fails "
    "on bool with NumPy's TypeError, and a batch-size mismatch raises NumPy's IndexError, not "
    "torch's ValueError"
)

# "spec name:variant" -> why minitorch differs (non-strict xfail)
KNOWN: dict[str, str] = {
    "matmul_empty_inner:bool": "torch quirk: bool matmul of EMPTY operands returns (its kernel "
    "never runs); minitorch refuses bool matmul whatever the sizes",
    "matmul_empty_rows:bool": "torch quirk: bool matmul of EMPTY operands returns (as above)",
    **{
        f"binary_cross_entropy{n}:{k}": _R_BCE
        for n in ("", "__0d", "__saturated")
        for k in ("int64", "bool")
    },
    **{
        f"{n}:bool": _R_LINEAR_BOOL
        for n in (
            "linear",
            "linear__1d",
            "linear__1d_nobias",
            "linear__2d_nobias",
            "linear__3d_nobias",
            "linear__column_major_x",
            "linear__column_major_w_nobias",
        )
    },
    **{
        f"{n}:{k}": _R_NLL
        for n in ("nll_loss", "nll_loss__ignore", "nll_loss__sum_weighted")
        for k in ("int64", "bool", "empty@-1", "empty@-2")
    },
    **{f"nll_loss__none_kdim:{k}": _R_NLL for k in ("int64", "bool", "empty@-3")},
    "linalg_tensorsolve:empty@-1": "reported (minitorch/linalg.py): tensorsolve of an empty "
    "system raises (its size check compares products that are 0 != 6); torch returns",
    "linalg_eigh:bool": "a 0/1 matrix has repeated eigenvalues: its eigenvectors are not unique",
    "linalg_eigh_batch:bool": "a 0/1 matrix has repeated eigenvalues (as linalg_eigh)",
}

# Rows whose torch_op cannot take a variant for reasons that have nothing to do with the op,
# keyed by name -> variant kinds skipped.
SKIP: dict[str, tuple[str, ...]] = {
    # fixed index tensors ([3, 0, 3], [[1, 0, 1]] ...) that an empty axis puts out of range;
    # torch's error for an out-of-range index differs between these ops and versions
    "index_select": ("empty",),
    "index_add_alpha": ("empty",),
    "index_fill_number": ("empty",),
    "index_fill_tensor_value": ("empty",),
    "take_along": ("empty",),
    "put_along": ("empty",),
    # minitorch's torch.vander against torch.linalg.vander(...).flip(-1): they differ on 0-d,
    # empty and bool inputs by their own definitions
    # torch 2.13's pdist backward of a (0, n) input crashes the process (a segfault)
    "pdist": ("empty",),
    "pdist_p1": ("empty",),
    "vander": ("empty", "zerod", "bool"),
    "vander_increasing": ("empty", "zerod", "bool"),
}

# torch's exception -> the builtin class minitorch must raise. LinAlgError and torch's
# NotImplementedError ("abs_cpu" not implemented for 'Bool') are RuntimeErrors: a RuntimeError
# with a message naming the op and dtype is accepted for either.
_EXC_TYPES = (IndexError, ValueError, TypeError, RuntimeError)


def _float_case(spec):
    for case in dtype_cases(spec):
        if any(_is_float(d) for d in case):
            return case
    return None


def _is_float(name: str) -> bool:
    return getattr(mt, name).is_floating_point


def _empty_axes(shapes) -> list[int]:
    """Axes (negative, from the right) to zero: the rightmost with a size > 1 somewhere, and the
    leading axis of the widest input when it differs."""
    ndim = max((len(s) for s in shapes), default=0)
    sizes = {k: [s[-k] for s in shapes if len(s) >= k] for k in range(1, ndim + 1)}
    axes = [k for k in range(1, ndim + 1) if any(n > 1 for n in sizes[k])][:1]
    if ndim and any(n > 1 for n in sizes[ndim]) and ndim not in axes:
        axes.append(ndim)
    return [-k for k in axes]


def _variants(spec) -> list[str]:
    kinds = [f"empty@{ax}" for ax in _empty_axes(spec.shapes)]
    ranks = [len(s) for s in spec.shapes]
    if ranks and max(ranks) == 1:
        kinds.append("zerod")
    if _float_case(spec) is not None:
        kinds += ["int64", "bool"]
    skipped = SKIP.get(spec.name, ())
    return [k for k in kinds if k.split("@")[0] not in skipped]


def _cases():
    out = []
    for spec in SPECS:
        if spec.torch_op is None:
            continue
        for kind in _variants(spec):
            key = f"{spec.name}:{kind}"
            marks = []
            if key in KNOWN:
                marks = [pytest.mark.xfail(reason=KNOWN[key], strict=False)]
            out.append(pytest.param(spec, kind, id=key, marks=marks))
    return out


def variant_arrays(spec, kind):
    """The inputs of one variant, and the indices of the inputs to differentiate."""
    if kind in ("int64", "bool"):
        case = _float_case(spec)
        arrays = make_arrays(spec, case)
        dt = np.int64 if kind == "int64" else np.bool_
        with np.errstate(invalid="ignore"):  # a domain with inf/nan casts to some integer
            return [a.astype(dt) if a.dtype.kind == "f" else a for a in arrays], []
    case = grad_case(spec)
    arrays = make_arrays(spec, case)
    wanted = grad_inputs(spec, case)
    if kind == "zerod":
        arrays = [a.reshape(-1)[0].copy() if a.size else np.zeros((), a.dtype) for a in arrays]
        return [np.asarray(a) for a in arrays], wanted
    ax = int(kind.split("@")[1])
    out = []
    for a in arrays:
        if a.ndim >= -ax and a.shape[ax] > 1:
            index = [slice(None)] * a.ndim
            index[ax] = slice(0, 0)
            a = a[tuple(index)].copy()
        out.append(a)
    return out, wanted


def _run(fn, *args):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            return as_list(fn(*args)), None
        except Exception as e:  # noqa: BLE001 - the exception is the outcome compared
            return None, e


def _builtin(exc) -> type:
    for t in _EXC_TYPES:
        if isinstance(exc, t):
            return t
    return type(exc)


def _host(t):
    return t.detach().cpu().numpy(force=True) if isinstance(t, torch.Tensor) else _np(t)


def _np(t):
    return t.detach().cpu().numpy()


def _compare_outcome(where, ours, our_exc, theirs, their_exc):
    """Fails unless both raised the same exception type or both returned."""
    if their_exc is not None:
        want = _builtin(their_exc)
        assert our_exc is not None, (
            f"{where}: torch raises {type(their_exc).__name__} ({their_exc}), minitorch returns"
        )
        assert isinstance(our_exc, want), (
            f"{where}: minitorch raises {type(our_exc).__name__} ({our_exc}); torch raises "
            f"{type(their_exc).__name__} ({their_exc})"
        )
        return False
    if our_exc is not None:
        raise AssertionError(
            f"{where}: minitorch raises {type(our_exc).__name__} ({our_exc}); torch returns"
        ) from our_exc
    assert len(ours) == len(theirs), f"{where}: {len(ours)} outputs, torch {len(theirs)}"
    return True


def _compare_values(where, spec, ours, theirs):
    for k, (o, t) in enumerate(zip(ours, theirs, strict=True)):
        at = f"{where} output {k}"
        if not isinstance(t, torch.Tensor):
            assert not isinstance(o, mt.Tensor), f"{at}: a Tensor, torch {t!r}"
            assert o == t or (o != o and t != t), f"{at}: {o!r}, torch {t!r}"
            continue
        assert isinstance(o, mt.Tensor), f"{at}: {type(o).__name__}, torch a Tensor"
        want = str(t.dtype).removeprefix("torch.")
        assert o.dtype.name == want, f"{at}: dtype {o.dtype.name}, torch {want}"
        assert tuple(o.shape) == tuple(t.shape), (
            f"{at}: shape {tuple(o.shape)}, torch {tuple(t.shape)}"
        )
        if o.dtype.is_floating_point or o.dtype.is_complex:
            tol = max(spec.rtol, 1e-5 if o.dtype == mt.float32 else 0.0)
            atol = max(spec.atol, 1e-5 if o.dtype == mt.float32 else 0.0)
            np.testing.assert_allclose(_np(o), _host(t), rtol=tol, atol=atol, err_msg=at)
        else:
            np.testing.assert_array_equal(_np(o), _host(t), err_msg=at)


def _differentiable(t) -> bool:
    return getattr(t, "requires_grad", False) and t.dtype.is_floating_point


@pytest.mark.parametrize(("spec", "kind"), _cases())
def test_edge_matches_torch(spec, kind):
    arrays, wanted = variant_arrays(spec, kind)
    where = f"{spec.name} [{kind}] shapes {[a.shape for a in arrays]}"
    xs = [mt.tensor(a.copy(), requires_grad=i in wanted) for i, a in enumerate(arrays)]
    ts = [torch.from_numpy(a.copy()).requires_grad_(i in wanted) for i, a in enumerate(arrays)]
    ours, our_exc = _run(lambda: spec.op(*xs, **spec.kwargs))
    theirs, their_exc = _run(lambda: spec.torch_op(*ts, **spec.kwargs))
    if not _compare_outcome(where, ours, our_exc, theirs, their_exc):
        return
    _compare_values(where, spec, ours, theirs)
    their_diff = [(k, t) for k, t in enumerate(theirs) if _differentiable(t)]
    if not their_diff or not wanted:
        return
    our_diff = [ours[k] for k, _ in their_diff]
    plain = [k for (k, _), o in zip(their_diff, our_diff, strict=True) if not _differentiable(o)]
    assert not plain, f"{where}: outputs {plain} do not require grad (torch's do)"
    their_grads, their_exc = _run(
        lambda: torch.autograd.grad(
            [t for _, t in their_diff],
            [ts[i] for i in wanted],
            [torch.ones_like(t) for _, t in their_diff],
            allow_unused=True,
        )
    )
    our_grads, our_exc = _run(
        lambda: mt.autograd.grad(
            our_diff,
            [xs[i] for i in wanted],
            [mt.ones_like(o) for o in our_diff],
            allow_unused=True,
        )
    )
    if not _compare_outcome(f"{where} backward", our_grads, our_exc, their_grads, their_exc):
        return
    for i, g, t in zip(wanted, our_grads, their_grads, strict=True):
        at = f"{where}: gradient of input {i}"
        ref = np.zeros(arrays[i].shape) if t is None else _host(t)
        got = np.zeros(arrays[i].shape) if g is None else _np(g)
        assert got.shape == ref.shape, f"{at}: shape {got.shape}, torch {ref.shape}"
        np.testing.assert_allclose(got, ref, rtol=spec.rtol, atol=spec.atol, err_msg=at)
