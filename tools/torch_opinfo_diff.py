"""Differential test of minitorch against PyTorch's OpInfo database (needs torch and expecttest).

    python tools/torch_opinfo_diff.py [--ops REGEX] [--dtypes float32,float64,int64,bool]
        [--no-grad] [--errors] [--reference] [--masked] [--max-samples N] [--json OUT]
        [--timeout S] [--shard K/N] [--max-findings N]

For every OpInfo in `torch.testing._internal.common_methods_invocations.op_db` whose name
matches REGEX (re.search on "name" and on "name.variant"), every dtype it supports on CPU among
--dtypes, and every sample input (or reference input with --reference), the sample is copied by
value into a torch and a minitorch argument list (strides kept, so non-contiguous inputs stay
non-contiguous) and run through the op and its variants: the function (minitorch.x,
minitorch.nn.functional.x, minitorch.linalg.x, ...), the method (Tensor.x), the in-place method
(Tensor.x_), the operator and the aliases. Outputs are compared leaf by leaf (type, dtype, shape,
values with torch.testing's default tolerances, NaN equal). For float64 samples of ops that
support autograd, gradients w.r.t. every input that requires grad are compared too (autograd.grad
with one seeded random cotangent per output; the OpInfo's gradcheck_wrapper and
output_process_fn_grad applied on both sides). --errors also runs the error inputs: minitorch
must raise the same exception type with a message matched by the OpInfo's regex.

OpInfo helpers written in Python (lambdas such as `lambda x, n: torch.polygamma(n, x)`) are
re-bound to minitorch: the same code object with `torch` in its globals replaced by minitorch.

Output: one JSON line per finding {op, variant, kind, dtype, sample, detail} (to --json OUT, else
stdout; at most --max-findings per op/variant/kind/dtype, all counted) and a per-op table.
Kinds: missing (minitorch lacks the op or a name it uses), raise (minitorch raises, torch
does not), no-raise (torch raises, minitorch does not), error-type, error-msg, type, dtype,
shape, value, close (all float differences within CLOSE_TOLS), value-ties (only integer outputs
of an op whose indices are ambiguous under ties differ), grad, timeout, harness (the harness
itself failed on the sample).

Known exclusions: fft.*, sparse.*, masked.* (unless --masked), private and torch.ops.* ops,
jiterator ops, random ops (RANDOM_OPS), complex/half samples (minitorch has no complex dtype;
samples holding a complex, bfloat16 or Generator value are skipped), values of ops whose output
is uninitialised memory (op.has_nondeterministic_output: only shape and dtype are compared),
random samples of deterministic ops (_random_sample: dropout_p > 0 in attention, svd_lowrank
with M), gradients of ops whose OpInfo marks torch's own backward test as an expected failure.
Sign-ambiguous factorisations (SIGN_AMBIGUOUS) compare output_process_fn_grad(output), which
the OpInfo makes invariant to eigen/singular-vector signs. Expected non-bugs remain: ties in
sort/topk/kthvalue/mode indices (reported as value-ties), ctc_loss gradients for inputs that
are not log-probabilities, float32 kernels and torch's special functions that are less
accurate than minitorch's (mostly reported as close).
"""

from __future__ import annotations

import argparse
import functools
import itertools
import json
import re
import signal
import sys
import time
import types
import unittest
import warnings
from collections import Counter, defaultdict
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent

torch = None  # bound by _load(), so importing this file never imports torch
mt = None

RANDOM_OPS = {
    "bernoulli", "cauchy", "exponential", "geometric", "log_normal", "normal", "uniform",
    "multinomial", "rand_like", "randn", "randn_like", "randint", "randint_like",
    "nn.functional.dropout", "nn.functional.dropout2d", "nn.functional.dropout3d",
    "nn.functional.alpha_dropout", "nn.functional.feature_alpha_dropout.with_train",
    "nn.functional.rrelu", "nn.functional.fractional_max_pool2d",
    "nn.functional.fractional_max_pool3d",
}  # fmt: skip
SKIP_PREFIXES = ("fft.", "sparse.", "_", "torch.", "jiterator", "to_sparse")
# Factorisations whose vectors are defined up to sign: compare output_process_fn_grad(out).
SIGN_AMBIGUOUS = {"svd", "linalg.svd", "linalg.eigh", "linalg.eig", "svd_lowrank", "pca_lowrank"}
# Ops returning indices that are ambiguous when the input has ties.
TIE_OPS = {
    "sort", "argsort", "topk", "kthvalue", "mode", "median", "nanmedian", "max", "min",
    "argmax", "argmin", "cummax", "cummin", "aminmax", "msort", "unique",
    "nn.functional.max_pool1d", "nn.functional.max_pool2d", "nn.functional.max_pool3d",
    "nn.functional.adaptive_max_pool1d", "nn.functional.adaptive_max_pool2d",
    "nn.functional.adaptive_max_pool3d",
}  # fmt: skip
NP_DTYPES = {"float16", "float32", "float64", "int8", "int16", "int32", "int64", "uint8", "bool"}
TOLS = {"float16": (1e-3, 1e-5), "float32": (1.3e-6, 1e-5), "float64": (1e-7, 1e-7)}
# Beyond TOLS but within these: reported as "close" (float32 kernels differ in summation order
# and accuracy; torch's float32 special functions are often the less accurate side).
CLOSE_TOLS = {"float32": (1e-4, 1e-4), "float64": (1e-6, 1e-7)}
GRAD_TOL = (1e-6, 1e-6)  # float64 gradients: formulas legitimately differ in rounding


_COUNTS = Counter()  # run-wide tallies printed under the table


class _Unsupported(Exception):
    """The sample holds a value minitorch cannot represent (complex, bfloat16, Generator...)."""


class _Missing(Exception):
    """minitorch has no counterpart for a torch callable."""


class _Timeout(BaseException):  # BaseException: the per-sample `except Exception` must not eat it
    pass


def _load():
    global torch, mt
    sys.path.insert(0, str(ROOT))
    import torch as _torch

    import minitorch as _mt

    torch, mt = _torch, _mt


# ----------------------------------------------------------------------------- conversion


def _dtype_name(dt) -> str:
    return str(dt).split(".")[-1]


def _copy_tensor(t, lib, memo, grad):
    """A copy of t for `lib` with t's values, shape, strides and storage offset. Tensors of one
    sample that share a storage share the copy of it: tensors that do not require grad are views
    of one base (so aliasing checks see it), the others leaves over the same NumPy buffer."""
    if id(t) in memo:
        return memo[id(t)]
    name = _dtype_name(t.dtype)
    if name not in NP_DTYPES or t.layout != torch.strided or t.device.type != "cpu":
        raise _Unsupported(f"{t.dtype} {t.layout} {t.device}")
    src = t.detach().resolve_neg() if t.is_neg() else t.detach()
    lib_mod = torch if lib == "torch" else mt
    key = ("storage", src.untyped_storage().data_ptr(), name)
    if key not in memo:
        n = src.untyped_storage().nbytes() // src.element_size()
        flat = torch.empty(0, dtype=src.dtype).set_(src.untyped_storage(), 0, (n,), (1,))
        arr = flat.numpy().copy()
        memo[key] = (arr, lib_mod.from_numpy(arr))
    arr, base = memo[key]
    if grad and t.requires_grad:
        view = np.lib.stride_tricks.as_strided(
            arr[src.storage_offset() :],
            tuple(src.shape),
            tuple(s * arr.itemsize for s in src.stride()),
        )
        out = lib_mod.from_numpy(view).requires_grad_(True)
    else:
        out = base.as_strided(tuple(src.shape), tuple(src.stride()), src.storage_offset())
    memo[id(t)] = out
    return out


def _convert(obj, lib, memo, grad=True):
    """Copy a sample's (input, args, kwargs) for `lib` ('torch' or 'mt'), by value."""
    if isinstance(obj, torch.Tensor):
        return _copy_tensor(obj, lib, memo, grad)
    if lib == "torch":
        if isinstance(obj, (list, tuple)) and not isinstance(obj, torch.Size):
            return type(obj)(_convert(x, lib, memo, grad) for x in obj)
        if isinstance(obj, dict):
            return {k: _convert(v, lib, memo, grad) for k, v in obj.items()}
        if isinstance(obj, torch.Generator):
            raise _Unsupported("Generator")
        return obj
    if isinstance(obj, torch.Size):
        return mt.Size(obj)
    if isinstance(obj, (list, tuple)):
        items = [_convert(x, lib, memo, grad) for x in obj]
        return type(obj)(*items) if hasattr(obj, "_fields") else type(obj)(items)
    if isinstance(obj, dict):
        return {k: _convert(v, lib, memo, grad) for k, v in obj.items()}
    if isinstance(obj, torch.dtype):
        name = _dtype_name(obj)
        if name not in NP_DTYPES:
            raise _Unsupported(str(obj))
        return getattr(mt, name)
    if isinstance(obj, torch.device):
        return mt.device("cpu")
    if isinstance(obj, (torch.layout, torch.memory_format)):
        if not hasattr(mt, _dtype_name(obj)):
            raise _Unsupported(str(obj))
        return getattr(mt, _dtype_name(obj))
    if isinstance(obj, torch.Generator):
        raise _Unsupported("Generator")
    if isinstance(obj, torch.nn.Module):
        return _mirror_module(obj)
    if callable(obj) and not isinstance(obj, type):
        return _mirror(obj)
    return obj


# ----------------------------------------------------------------------------- op mapping


def _mirror_module(m):
    """A parameterless torch module (e.g. PairwiseDistance() as a distance_function)."""
    if any(True for _ in m.parameters()):
        raise _Unsupported(f"module {type(m).__name__} with parameters")
    cls = getattr(mt.nn, type(m).__name__, None)
    if cls is None:
        raise _Missing(f"nn.{type(m).__name__}")
    out = cls()
    for k, v in vars(m).items():
        if not k.startswith("_"):
            setattr(out, k, v)
    return out


_REBOUND_GLOBALS: dict[int, dict] = {}


def _mt_wrapper_set_seed(op, *args, **kwargs):
    mt.manual_seed(42)
    return op(*args, **kwargs)


def _rebind(fn):
    """fn's code with minitorch as `torch` (for OpInfo helpers written in Python)."""
    g = _REBOUND_GLOBALS.get(id(fn.__globals__))
    if g is None:
        g = dict(fn.__globals__)
        g.update(torch=mt, wrapper_set_seed=_mt_wrapper_set_seed)
        _REBOUND_GLOBALS[id(fn.__globals__)] = g
    closure = None
    if fn.__closure__:
        closure = tuple(types.CellType(_mirror_value(c.cell_contents)) for c in fn.__closure__)
    new = types.FunctionType(fn.__code__, g, fn.__name__, fn.__defaults__, closure)
    new.__kwdefaults__ = fn.__kwdefaults__
    return new


def _mirror_value(v):
    if isinstance(v, types.FunctionType) and v.__module__.startswith("torch"):
        try:
            return _mirror(v)
        except _Missing:
            return v
    return v


def _lookup(path: str):
    obj = mt
    for part in path.split("."):
        obj = getattr(obj, part, None)
        if obj is None:
            raise _Missing(path)
    return obj


def _mirror(fn):
    """The minitorch counterpart of a torch callable."""
    if isinstance(fn, functools.partial):
        return functools.partial(_mirror(fn.func), *fn.args, **fn.keywords)
    module = getattr(fn, "__module__", None) or ""
    name = getattr(fn, "__name__", "")
    if isinstance(fn, types.FunctionType) and module.startswith("torch.testing"):
        return _rebind(fn)
    objclass = getattr(fn, "__objclass__", None)
    if objclass is not None or module == "torch._tensor":
        if objclass is not None and not objclass.__module__.startswith("torch"):
            return fn  # e.g. object.__eq__
        return _lookup("Tensor." + name)
    if module in ("torch.nn.functional", "torch._C._nn"):
        return _lookup("nn.functional." + name)
    if module == "torch._C._linalg":
        return _lookup("linalg." + name.removeprefix("linalg_"))
    if module == "torch._C._special":
        return _lookup("special." + name.removeprefix("special_"))
    if module.startswith("torch.signal.windows"):
        return _lookup("signal.windows." + name)
    if module in ("torch", "torch.functional", "torch._C._VariableFunctions") or (
        getattr(fn, "__self__", None) is not None
        and type(fn.__self__).__name__ == "_VariableFunctionsClass"
    ):
        return _lookup(name)
    if module.startswith("torch"):
        raise _Missing(f"{module}.{name}")
    return fn


def _variants(op):
    """[(variant, torch callable, minitorch callable or _Missing)] for one OpInfo."""
    out = []

    def add(variant, fn_t, make):
        try:
            out.append((variant, fn_t, make()))
        except _Missing as e:
            out.append((variant, fn_t, e))

    def main():
        if isinstance(op.op, types.FunctionType) and op.op.__module__.startswith("torch.testing"):
            return _rebind(op.op)
        try:
            obj = _lookup(op.name)
            if callable(obj) and not isinstance(obj, mt.dtype):
                return obj
        except _Missing:
            pass
        return _mirror(op.op)

    add("", op.op, main)
    for variant, fn in (
        ("method", op.method_variant),
        ("inplace", op.inplace_variant),
        ("operator", op.operator_variant),
    ):
        if fn is not None:
            add(variant, fn, functools.partial(_mirror, fn))
    for alias in op.aliases:
        path = alias.name.removeprefix("torch.")
        add("alias:" + path, alias.op, functools.partial(_lookup, path))
    return out


def _random_sample(op, sample):
    """Whether this sample of a deterministic op draws random numbers."""
    if op.name == "nn.functional.scaled_dot_product_attention":
        return sample.kwargs.get("dropout_p", 0.0) > 0
    if op.name == "nn.functional.multi_head_attention_forward":
        return sample.args[9] > 0 and sample.kwargs.get("training", True)
    if op.name == "svd_lowrank":
        return sample.kwargs.get("M") is not None
    return False


def _torch_grad_xfail(op):
    """Whether the OpInfo marks torch's own backward test as an expected failure on CPU."""
    for d in op.decorators:
        if (
            getattr(d, "test_name", None) == "test_fn_grad"
            and getattr(d, "device_type", None) in (None, "cpu")
            and unittest.expectedFailure in getattr(d, "decorators", ())
        ):
            return True
    return False


def _skip_reason(op, args):
    full = op.name + ("." + op.variant_test_name if op.variant_test_name else "")
    if op.name.startswith(SKIP_PREFIXES) or op.name.endswith("_backward"):
        return "excluded"
    if type(op.op).__name__ in ("OpOverload", "OpOverloadPacket"):  # torch.ops.aten.*
        return "excluded"
    if op.name.startswith("masked.") and not args.masked:
        return "masked"
    if op.name in RANDOM_OPS or full in RANDOM_OPS:
        return "random"
    return None


# ----------------------------------------------------------------------------- comparison


def _leaves(x, path="out"):
    if isinstance(x, (list, tuple)) and not _is_size(x):
        yield path, tuple if isinstance(x, tuple) else list  # return_types count as tuples
        for i, v in enumerate(x):
            yield from _leaves(v, f"{path}[{i}]")
    else:
        yield path, x


def _is_size(x):
    return isinstance(x, (torch.Size, mt.Size))


def _to_np(t):
    if _dtype_name(t.dtype) not in NP_DTYPES and not t.dtype.is_complex:
        t = t.float()  # bfloat16
    if isinstance(t, torch.Tensor) and t._is_zerotensor():
        return np.zeros(tuple(t.shape), _to_np(torch.zeros((), dtype=t.dtype)).dtype)
    return t.detach().numpy()


def _compare_arrays(a, b, dtype_name, tol=None):
    """(close, mismatch description) or None: a is torch's, b minitorch's; `close` when all
    differences are within CLOSE_TOLS."""
    if a.dtype.kind == "c" or b.dtype.kind == "c":
        return None
    close = False
    if a.dtype.kind in "biu" and b.dtype.kind in "biu":
        bad = a != b
    else:
        rtol, atol = tol or TOLS.get(dtype_name, TOLS["float64"])
        a64, b64 = a.astype(np.float64), b.astype(np.float64)
        bad = ~np.isclose(b64, a64, rtol=rtol, atol=atol, equal_nan=True)
        if bad.any() and dtype_name in CLOSE_TOLS and tol is None:
            rtol, atol = CLOSE_TOLS[dtype_name]
            close = bool(np.isclose(b64, a64, rtol=rtol, atol=atol, equal_nan=True).all())
    if not bad.any():
        return None
    idx = tuple(int(i) for i in np.argwhere(bad)[0])
    detail = f"{int(bad.sum())}/{bad.size} differ; at {idx}: torch {a[idx]!r} vs ours {b[idx]!r}"
    return close, detail


def _compare(out_t, out_m, shapes_only=False):
    """[(kind, detail)] for the differences between torch's and minitorch's outputs."""
    lt, lm = list(_leaves(out_t)), list(_leaves(out_m))
    if len(lt) != len(lm):
        return [("type", f"structure: torch {_short(out_t)} vs ours {_short(out_m)}")]
    found = []
    for (path, a), (_, b) in zip(lt, lm, strict=True):
        if isinstance(a, type):
            if a is not b:
                found.append(("type", f"{path}: torch {a.__name__} vs ours {_short(b)}"))
            continue
        if isinstance(a, torch.Tensor):
            if not isinstance(b, mt.Tensor):
                found.append(("type", f"{path}: torch Tensor vs ours {type(b).__name__}"))
                continue
            if str(a.dtype) != str(b.dtype):
                found.append(("dtype", f"{path}: torch {a.dtype} vs ours {b.dtype}"))
            if tuple(a.shape) != tuple(b.shape):
                found.append(("shape", f"{path}: torch {tuple(a.shape)} vs ours {tuple(b.shape)}"))
                continue
            if shapes_only:
                continue
            diff = _compare_arrays(_to_np(a), _to_np(b), _dtype_name(a.dtype))
            if diff:
                kind = "value" if a.dtype.is_floating_point or a.dtype == torch.bool else "int"
                found.append(("close" if diff[0] else kind, f"{path}: {diff[1]}"))
        elif isinstance(a, (bool, int, float)) and not _is_size(a):
            if type(a) is not type(b):
                found.append(("type", f"{path}: torch {a!r} vs ours {b!r}"))
            elif a != b and not (a != a and b != b):
                if not (isinstance(a, float) and np.isclose(b, a, rtol=1e-6, atol=1e-7)):
                    found.append(("value", f"{path}: torch {a!r} vs ours {b!r}"))
        elif isinstance(a, torch.dtype):
            if str(a) != str(b):
                found.append(("dtype", f"{path}: torch {a} vs ours {b}"))
        elif _is_size(a):
            if not isinstance(b, tuple) or tuple(a) != tuple(b):
                found.append(("value", f"{path}: torch {tuple(a)} vs ours {b!r}"))
        elif a is None or isinstance(a, str):
            if a != b:
                found.append(("value", f"{path}: torch {a!r} vs ours {b!r}"))
    return found


def _short(x, n=60):
    if isinstance(x, (torch.Tensor, mt.Tensor)):
        nc = "" if x.is_contiguous() else ",nc"
        rg = ",rg" if x.requires_grad else ""
        return f"T{tuple(x.shape)}:{_dtype_name(x.dtype)}{nc}{rg}"
    if isinstance(x, (list, tuple)) and not _is_size(x):
        inner = ", ".join(_short(v, 30) for v in x[:6]) + (", ..." if len(x) > 6 else "")
        return f"({inner})" if isinstance(x, tuple) else f"[{inner}]"
    if isinstance(x, dict):
        return "{" + ", ".join(f"{k}={_short(v, 30)}" for k, v in x.items()) + "}"
    r = getattr(x, "__name__", None) or repr(x)
    return r if len(r) <= n else r[: n - 3] + "..."


def _describe(sample):
    parts = [_short(sample.input)] + [_short(a) for a in sample.args]
    parts += [f"{k}={_short(v)}" for k, v in sample.kwargs.items()]
    return ", ".join(parts)


# ----------------------------------------------------------------------------- running


def _call(fn, args):
    inp, a, kw = args
    return fn(inp, *a, **kw)


def _missing_attr(e):
    return isinstance(e, AttributeError) and re.search(r"'(minitorch[\w.]*|Tensor)'", str(e))


def _grad_outputs(out_t, out_m, proc_t, proc_m, seed):
    """(torch outputs, minitorch outputs, cotangents for each) of the floating outputs."""
    try:
        pt = proc_t(out_t)
    except Exception:
        return [], [], [], []
    try:
        pm = proc_m(out_m)
    except Exception as e:
        raise AssertionError(f"output_process_fn_grad: {type(e).__name__}: {e}") from e
    outs_t, outs_m, cots_t, cots_m = [], [], [], []
    rng = np.random.default_rng(seed)
    for (_, a), (_, b) in zip(_leaves(pt), _leaves(pm), strict=False):
        if isinstance(a, torch.Tensor) and a.requires_grad and a.dtype.is_floating_point:
            if not isinstance(b, mt.Tensor) or not b.requires_grad:
                raise AssertionError(f"our output {_short(b)} does not require grad")
            c = rng.standard_normal(tuple(a.shape)).astype(_to_np(a).dtype)
            outs_t.append(a)
            outs_m.append(b)
            cots_t.append(torch.from_numpy(c.copy()))
            cots_m.append(mt.from_numpy(c.copy()))
    return outs_t, outs_m, cots_t, cots_m


def _check_grads(out_t, out_m, memo_t, memo_m, proc_t, proc_m, seed):
    keys = [k for k, v in memo_t.items() if isinstance(v, torch.Tensor) and v.requires_grad]
    if not keys:
        return []
    try:
        outs_t, outs_m, cots_t, cots_m = _grad_outputs(out_t, out_m, proc_t, proc_m, seed)
    except AssertionError as e:
        return [("grad", str(e))]
    if not outs_t:
        return []
    ins_t, ins_m = [memo_t[k] for k in keys], [memo_m[k] for k in keys]
    try:
        g_t = torch.autograd.grad(outs_t, ins_t, cots_t, allow_unused=True)
    except Exception:
        return []  # torch cannot differentiate this sample either
    try:
        g_m = mt.autograd.grad(outs_m, ins_m, cots_m, allow_unused=True)
    except Exception as e:
        return [("grad", f"raises {type(e).__name__}: {str(e)[:200]}")]
    _COUNTS["gradient checks"] += 1
    found = []
    for i, (a, b, x) in enumerate(zip(g_t, g_m, ins_t, strict=True)):
        a = np.zeros(tuple(x.shape)) if a is None else _to_np(a)
        b = np.zeros(tuple(x.shape)) if b is None else _to_np(b)
        if a.shape != b.shape:
            found.append(("grad", f"input {i}: shape torch {a.shape} vs ours {b.shape}"))
            continue
        diff = _compare_arrays(a, b, "float64", GRAD_TOL)
        if diff:
            found.append(("grad", f"input {i} {_short(x)}: {diff[1]}"))
    return found


def _overlaps(t):
    """Whether two elements of t share memory (then in-place results depend on the order)."""
    if t.numel() <= 1 or 0 not in t.stride() and t.is_contiguous():
        return False
    offsets = sum(np.arange(n)[(...,) + (None,) * (t.dim() - d - 1)] * st
                  for d, (n, st) in enumerate(zip(t.shape, t.stride(), strict=True)))  # fmt: skip
    return np.unique(offsets).size < t.numel()


def _run_sample(op, variant, fn_t, fn_m, sample, dtype, grad, seed):
    """[(kind, detail)] for one sample through one variant; None when it is skipped."""
    if variant in ("method", "inplace") and not isinstance(sample.input, torch.Tensor):
        return None  # Tensor.add(2.0, t): only torch's unbound descriptors type-check `self`
    if variant == "inplace" and _overlaps(sample.input):
        return None
    memo_t, memo_m = {}, {}
    raw = (sample.input, sample.args, sample.kwargs)
    try:
        args_t = _convert(raw, "torch", memo_t, grad)
        args_m = _convert(raw, "mt", memo_m, grad)
    except _Unsupported:
        return None
    except _Missing as e:
        return [("missing", f"argument {e}")]
    proc_t, proc_m = (lambda x: x), (lambda x: x)
    if grad or op.name in SIGN_AMBIGUOUS:
        proc_t = sample.output_process_fn_grad
        proc_m = _convert(proc_t, "mt", {})
    if grad:
        fn_t = functools.partial(op.gradcheck_wrapper, fn_t)
        fn_m = functools.partial(_convert(op.gradcheck_wrapper, "mt", {}), fn_m)
    err_t = err_m = out_t = out_m = None
    try:
        out_t = _call(fn_t, args_t)
    except Exception as e:
        err_t = e
    if err_t is None and any(
        isinstance(x, torch.Tensor) and x.dtype.is_complex for _, x in _leaves(out_t)
    ):
        return None
    try:
        out_m = _call(fn_m, args_m)
    except Exception as e:
        err_m = e
    if err_t is not None and err_m is not None:
        if isinstance(err_m, type(err_t)) or isinstance(err_t, type(err_m)):
            return []
        return [("error-type", f"torch {type(err_t).__name__}: {str(err_t)[:120]} | ours "
                               f"{type(err_m).__name__}: {str(err_m)[:120]}")]  # fmt: skip
    if err_t is not None:
        return [("no-raise", f"torch {type(err_t).__name__}: {str(err_t)[:200]}")]
    if err_m is not None:
        kind = "missing" if _missing_attr(err_m) else "raise"
        return [(kind, f"{type(err_m).__name__}: {str(err_m)[:240]}")]
    if op.name in SIGN_AMBIGUOUS:
        try:
            out_t = proc_t(out_t)
        except Exception:
            return None  # the OpInfo's own post-processing fails on torch's output
        try:
            out_m = proc_m(out_m)
        except Exception as e:
            return [("raise", f"output_process_fn_grad: {type(e).__name__}: {str(e)[:200]}")]
        proc_t = proc_m = lambda x: x  # noqa: E731
    if variant == "inplace":
        out_t, out_m = (out_t, args_t[0]), (out_m, args_m[0])
    found = _compare(out_t, out_m, shapes_only=op.has_nondeterministic_output)
    if op.name in TIE_OPS and found and all(k == "int" for k, _ in found):
        found = [("value-ties", d) for _, d in found]
    found = [("value" if k == "int" else k, d) for k, d in found]
    if grad and not found:
        found = _check_grads(out_t, out_m, memo_t, memo_m, proc_t, proc_m, seed)
    return found


def _run_errors(op, fn_m):
    """[(sample description, kind, detail)] for the OpInfo's error inputs."""
    found = []
    try:
        error_inputs = list(op.error_inputs("cpu"))
    except Exception:
        return found
    for ei in error_inputs:
        s = ei.sample_input
        try:
            args_t = _convert((s.input, s.args, s.kwargs), "torch", {})
            args_m = _convert((s.input, s.args, s.kwargs), "mt", {})
        except Exception:  # complex, meta, sparse, more dims than NumPy allows...
            continue
        try:
            _call(op.op, args_t)
            continue  # torch does not raise on this copy (e.g. a check only its references make)
        except Exception:
            pass
        _COUNTS["error inputs"] += 1
        expected = f"{ei.error_type.__name__}: /{ei.error_regex}/"
        try:
            _call(fn_m, args_m)
        except Exception as e:
            if not isinstance(e, ei.error_type):
                detail = f"expected {expected}; ours {type(e).__name__}: {str(e)[:160]}"
                found.append((_describe(s), "error-type", detail))
            elif not re.search(ei.error_regex, str(e)):
                detail = f"expected {expected}; ours {type(e).__name__}: {str(e)[:160]}"
                found.append((_describe(s), "error-msg", detail))
        else:
            found.append((_describe(s), "error-type", f"no exception; expected {expected}"))
    return found


def _samples(op, dtype, grad, args):
    gen = op.reference_inputs if args.reference else op.sample_inputs
    return itertools.islice(gen("cpu", dtype, requires_grad=grad), args.max_samples)


def run_op(op, args, emit):
    """Runs one OpInfo; returns its stats Counter (samples, skipped, and one count per kind)."""
    stats = Counter()
    full = op.name + ("." + op.variant_test_name if op.variant_test_name else "")
    variants = _variants(op)
    for variant, _, fn_m in variants:
        if isinstance(fn_m, _Missing):
            emit(full, variant, "missing", "", "", f"no minitorch counterpart: {fn_m}")
            stats["missing"] += 1
    variants = [v for v in variants if not isinstance(v[2], _Missing)]
    supported = {_dtype_name(d) for d in op.supported_dtypes("cpu")}
    for dtype_name in [d for d in args.dtypes if d in supported]:
        dtype = getattr(torch, dtype_name)
        grad = args.grad and dtype_name == "float64" and op.supports_autograd
        grad = grad and not _torch_grad_xfail(op)
        try:
            try:
                samples = list(_samples(op, dtype, grad, args))
            except ValueError:  # some reference inputs refuse requires_grad
                grad, samples = False, list(_samples(op, dtype, False, args))
        except Exception as e:
            emit(full, "", "harness", dtype_name, "", f"sample_inputs: {type(e).__name__}: {e}")
            stats["harness"] += 1
            continue
        for i, sample in enumerate(samples):
            if _random_sample(op, sample):
                stats["skipped"] += len(variants)
                continue
            for variant, fn_t, fn_m in variants:
                g = grad and variant == ""
                try:
                    found = _run_sample(op, variant, fn_t, fn_m, sample, dtype, g, seed=i)
                except _Timeout:
                    raise
                except Exception as e:
                    found = [("harness", f"{type(e).__name__}: {str(e)[:200]}")]
                if found is None:
                    stats["skipped"] += 1
                    continue
                stats["samples"] += 1
                for kind, detail in found:
                    stats[kind] += 1
                    emit(full, variant, kind, dtype_name, f"#{i} {_describe(sample)}", detail)
    if args.errors and variants and variants[0][0] == "":
        for desc, kind, detail in _run_errors(op, variants[0][2]):
            stats[kind] += 1
            emit(full, "", kind, "", desc, detail)
    return stats


def _on_alarm(signum, frame):
    raise _Timeout


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--ops", default="", help="regex searched in 'name' and 'name.variant'")
    p.add_argument("--dtypes", default="float32,float64,int64,bool")
    p.add_argument("--no-grad", dest="grad", action="store_false", help="skip gradients")
    p.add_argument("--errors", action="store_true", help="also run the error inputs")
    p.add_argument("--reference", action="store_true", help="reference_inputs (a superset)")
    p.add_argument("--masked", action="store_true", help="include masked.* ops")
    p.add_argument("--max-samples", type=int, default=None, help="per op and dtype")
    p.add_argument("--max-findings", type=int, default=3, help="per op/variant/kind/dtype")
    p.add_argument("--json", default=None, help="write findings as JSON lines here")
    p.add_argument("--timeout", type=int, default=120, help="seconds per op")
    p.add_argument("--shard", default="1/1", help="K/N: run the K-th of N interleaved slices")
    args = p.parse_args(argv)
    args.dtypes = [d.strip() for d in args.dtypes.split(",") if d.strip()]
    warnings.filterwarnings("ignore")
    _load()
    from torch.testing._internal.common_methods_invocations import op_db

    k, n = (int(x) for x in args.shard.split("/"))
    rx = re.compile(args.ops)
    ops = []
    for op in op_db:
        full = op.name + ("." + op.variant_test_name if op.variant_test_name else "")
        if rx.search(op.name) or rx.search(full):
            ops.append((full, op))
    ops = ops[k - 1 :: n]
    sink = open(args.json, "w") if args.json else sys.stdout  # noqa: SIM115
    per_key = Counter()

    def emit(op, variant, kind, dtype, sample, detail):
        key = (op, variant, kind, dtype)
        per_key[key] += 1
        if per_key[key] <= args.max_findings:
            row = dict(op=op, variant=variant, kind=kind, dtype=dtype, sample=sample, detail=detail)
            sink.write(json.dumps(row) + "\n")
            sink.flush()

    signal.signal(signal.SIGALRM, _on_alarm)
    table, skipped, start = {}, Counter(), time.time()
    for full, op in ops:
        reason = _skip_reason(op, args)
        if reason:
            skipped[reason] += 1
            continue
        t0 = time.time()
        signal.alarm(args.timeout)
        try:
            stats = run_op(op, args, emit)
        except _Timeout:
            stats = Counter(timeout=1)
            emit(full, "", "timeout", "", "", f"over {args.timeout} s")
        except Exception as e:
            stats = Counter(harness=1)
            emit(full, "", "harness", "", "", f"{type(e).__name__}: {str(e)[:200]}")
        finally:
            signal.alarm(0)
        stats["seconds"] = round(time.time() - t0, 1)
        table[full] = stats
    if sink is not sys.stdout:
        sink.close()
    _print_table(table, skipped, time.time() - start)
    return 1 if any(set(s) - {"samples", "skipped", "seconds"} for s in table.values()) else 0


def _print_table(table, skipped, seconds):
    kinds = sorted({k for s in table.values() for k in s} - {"samples", "skipped", "seconds"})
    print(f"\n{'op':44} {'samples':>7} {'skip':>5} {'s':>6}  findings")
    totals = defaultdict(int)
    for full, s in sorted(table.items()):
        found = ", ".join(f"{k}={s[k]}" for k in kinds if s.get(k))
        for k, v in s.items():
            totals[k] += v
        print(f"{full[:44]:44} {s['samples']:7} {s['skipped']:5} {s['seconds']:6.1f}  {found}")
    clean = sum(1 for s in table.values() if not set(s) - {"samples", "skipped", "seconds"})
    print(f"\n{len(table)} ops run ({clean} clean) in {seconds:.0f} s; not run: {dict(skipped)}")
    print("totals: " + ", ".join(f"{k}={totals[k]}" for k in ["samples", "skipped", *kinds]))
    print("checked: " + ", ".join(f"{k}={v}" for k, v in sorted(_COUNTS.items())))


if __name__ == "__main__":
    sys.exit(main())
