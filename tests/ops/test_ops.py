"""The generic op tests: every row of every tests/ops/specs_*.py table, on every device.

For each OpSpec (tests/ops/spec.py) and device:
- test_forward: for each dtype case, the values against the NumPy reference (when the row has
  one), the shape, the device and the result dtype (see `expected_dtype`);
- test_grad_dtypes: in those dtypes, each differentiated input's gradient has its dtype, shape
  and device (what forward promoted, backward must cast back);
- test_grad: float64 gradcheck of the vector-Jacobian product with a random upstream gradient
  (gradcheck of `sum(op(*x) * g)`), for the inputs in spec.grad;
- test_gradgrad: float64 gradgradcheck (random grad_outputs) when spec.gradgrad.
And once: the tables import, spec names are unique, and every Function subclass defined in
minitorch._ops is reached by some row's graph (ALLOWLIST holds the exceptions, with reasons).

How a table describes its rows, beyond spec.py:
- `dtypes` entries are a dtype name for every input, or a tuple of names, one per input
  (("bool", "float32", "float32") for where). Gradients use the first entry with every floating
  dtype replaced by float64; other inputs keep theirs and are never differentiated.
- `domain` is (low, high), a callable (rng, shape, numpy_dtype) -> array, or a list with one of
  those per input. Integer inputs draw integers in [ceil(low), floor(high)]; bool inputs are
  random whatever the domain. Inputs are made on the host from a NumPy Generator seeded by the
  spec's name (the same values for every dtype case), then moved with
  `minitorch.tensor(array, device=device)`.
- the ref receives floating inputs as float64, integer and bool inputs as they are; it may return
  a tuple for a multi-output op. A row without ref is compared with torch only (tests/reference).
- `kwargs` are passed to op, ref and torch_op alike.
- a module-level `XFAIL = {spec name: {check: reason}}` marks known bugs as strict xfails (a fix
  shows up as an XPASS failure: then delete the entry). check is "forward", "grad" (also
  test_grad_dtypes), "gradgrad" or "all", optionally suffixed "@<device>" ("grad@strict").
"""

from __future__ import annotations

import importlib
import inspect
import math
import pkgutil
import traceback
import zlib
from pathlib import Path

import numpy as np
import pytest

import minitorch as mt
import minitorch._ops
from minitorch import _dtype
from minitorch.autograd import Function, gradcheck, gradgradcheck

# --- the tables ---


def _load_tables():
    """Every specs_*.py module's SPECS and XFAIL; a table that fails to import is reported by
    test_table_imports instead of hiding every other table's rows."""
    specs, xfails, errors = [], {}, {}
    for path in sorted(Path(__file__).parent.glob("specs_*.py")):
        try:
            module = importlib.import_module(f"tests.ops.{path.stem}")
        except Exception:
            errors[path.name] = traceback.format_exc()
            continue
        specs.extend(module.SPECS)
        for name, checks in getattr(module, "XFAIL", {}).items():
            xfails.setdefault(name, {}).update(checks)
    return specs, xfails, errors


SPECS, XFAILS, TABLE_ERRORS = _load_tables()
GRAD_SPECS = [s for s in SPECS if s.grad != ()]
GRADGRAD_SPECS = [s for s in GRAD_SPECS if s.gradgrad]

CHECKS = ("forward", "grad", "gradgrad", "all")
# test name (less "test_") -> the XFAIL check that covers it
_CHECK_OF_TEST = {
    "forward": "forward",
    "grad_dtypes": "grad",
    "grad": "grad",
    "gradgrad": "gradgrad",
    "forward_matches_torch": "forward",
    "grad_matches_torch": "grad",
}


def xfail_reason(spec, check: str, device: str | None = None) -> str | None:
    """The recorded bug that makes `check` of `spec` fail (on `device`), or None."""
    marks = XFAILS.get(spec.name, {})
    for key in (f"{check}@{device}", f"all@{device}", check, "all"):
        if key in marks:
            return marks[key]
    return None


def params(specs):
    return [pytest.param(s, id=s.name) for s in specs]


def mark_known_bug(request):
    """Adds a strict xfail marker to the running test when XFAIL records a bug for its spec and
    check. Called from an autouse fixture: a marker added at setup still decides the outcome."""
    callspec = getattr(request.node, "callspec", None)
    spec = callspec.params.get("spec") if callspec is not None else None
    if spec is None:
        return
    check = _CHECK_OF_TEST.get(request.node.originalname.removeprefix("test_"))
    if check is None:
        return
    reason = xfail_reason(spec, check, callspec.params.get("device", "cpu"))
    if reason is not None:
        request.node.add_marker(pytest.mark.xfail(reason=reason, strict=True))


@pytest.fixture(autouse=True)
def _known_bugs(request):
    mark_known_bug(request)


# --- inputs ---


def dtype_cases(spec):
    """Each entry of spec.dtypes as one dtype name per input."""
    n = len(spec.shapes)
    return [(case,) * n if isinstance(case, str) else tuple(case) for case in spec.dtypes]


def grad_case(spec):
    return tuple("float64" if _is_float(d) else d for d in dtype_cases(spec)[0])


def grad_inputs(spec, case):
    """Indices of the inputs to differentiate: spec.grad (default: all), floating ones only."""
    if spec.grad == ():
        return []
    wanted = range(len(case)) if spec.grad is None else spec.grad
    return [i for i in wanted if _is_float(case[i])]


def _is_float(name: str) -> bool:
    return getattr(mt, name).is_floating_point


def _np_dtype(name: str):
    return _dtype.numpy_dtype(getattr(mt, name))


def _domains(spec):
    d = spec.domain
    if isinstance(d, list):
        assert len(d) == len(spec.shapes), f"{spec.name}: one domain per input"
        return d
    return [d] * len(spec.shapes)


def make_arrays(spec, case):
    """Host inputs for one dtype case; the same draws for every case of a spec. (Fresh copies:
    every test of a spec on every device starts from the same values.)"""
    key = (spec.name, case)
    if key not in _ARRAYS:
        _ARRAYS[key] = _draw_arrays(spec, case)
    return [a.copy() for a in _ARRAYS[key]]


_ARRAYS: dict = {}


def _draw_arrays(spec, case):
    rng = np.random.default_rng(zlib.crc32(spec.name.encode()))
    arrays = []
    for shape, name, domain in zip(spec.shapes, case, _domains(spec), strict=True):
        dt = _np_dtype(name)
        if dt.kind == "b":
            a = rng.random(shape) < 0.5
        elif callable(domain):
            a = domain(rng, shape, dt)
        elif dt.kind in "iu":
            low, high = domain
            a = rng.integers(math.ceil(low), math.floor(high) + 1, size=shape)
        else:
            a = rng.uniform(*domain, size=shape)
        arrays.append(np.asarray(a).astype(dt))
    return arrays


def make_tensors(spec, case, device, wanted=()):
    return [
        mt.tensor(a, device=device, requires_grad=i in wanted)
        for i, a in enumerate(make_arrays(spec, case))
    ]


def ref_arrays(arrays):
    return [a.astype(np.float64) if a.dtype.kind == "f" else a for a in arrays]


def as_list(out):
    return list(out) if isinstance(out, (tuple, list)) else [out]


def upstream_gradients(spec, outputs, device):
    """A random gradient for each floating tensor output (None for the others)."""
    rng = np.random.default_rng(zlib.crc32(spec.name.encode()) + 1)
    gs = []
    for o in outputs:
        if isinstance(o, mt.Tensor) and o.dtype.is_floating_point:
            g = rng.uniform(-1.0, 1.0, size=tuple(o.shape))
            gs.append(mt.tensor(g.astype(_np_dtype(o.dtype.name)), device=device))
        else:
            gs.append(None)
    return gs


# --- the expected result dtype ---


def _torch():
    try:
        import torch
    except ImportError:
        return None
    return torch


_TORCH_DTYPES: dict = {}  # (spec name, dtype case) -> torch's result dtype names


def expected_dtype(spec, case, arrays, k, ref_out) -> str | None:
    """The dtype output k must have (None: nothing to compare with).

    With torch importable and a torch_op: what torch gives for the same inputs (exact). Otherwise
    from the NumPy reference's result: bool stays bool; an integer result is the inputs' torch
    promotion (`torch_promotion`) when the ref merely promoted them, else the ref's own dtype
    (sum of int32 is int64); a floating result has the inputs' promotion when that is floating,
    else the default float32 (int / int, exp of an int). A row whose result dtype does not follow
    from its inputs (a cast to float64) is exact only with torch.
    """
    torch = _torch()
    if torch is not None and spec.torch_op is not None and "bfloat16" not in case:
        key = (spec.name, case)
        if key not in _TORCH_DTYPES:
            tensors = [torch.from_numpy(a.copy()) for a in arrays]
            outs = as_list(spec.torch_op(*tensors, **spec.kwargs))
            _TORCH_DTYPES[key] = [
                str(getattr(o, "dtype", None)).removeprefix("torch.") for o in outs
            ]
        return _TORCH_DTYPES[key][k]
    if ref_out is None:
        return None
    kind = ref_out.dtype.kind
    if kind == "b":
        return "bool"
    promoted = torch_promotion(case, arrays)
    if kind in "iu":
        plain = np.result_type(*[a.dtype for a in arrays])
        if ref_out.dtype == plain and not promoted.is_floating_point:
            return promoted.name
        return _dtype.from_numpy(ref_out.dtype).name
    return promoted.name if promoted.is_floating_point else mt.get_default_dtype().name


def torch_promotion(case, arrays):
    """torch's result_type of the tensor inputs: dimensioned tensors decide; 0-d tensors count
    only when of a higher category (bool < integer < floating)."""

    def category(dt):
        return 2 if dt.is_floating_point else (0 if dt is mt.bool else 1)

    def promote(dts):
        out = dts[0]
        for d in dts[1:]:
            out = mt.promote_types(out, d)
        return out

    dims = [getattr(mt, n) for n, a in zip(case, arrays, strict=True) if a.ndim > 0]
    zeros = [getattr(mt, n) for n, a in zip(case, arrays, strict=True) if a.ndim == 0]
    if not dims:
        return promote(zeros)
    result = promote(dims)
    higher = [d for d in zeros if category(d) > category(result)]
    return promote([result, *higher]) if higher else result


_RESOLUTION = {"float16": 1e-3, "bfloat16": 1e-2}


def tolerances(spec, dtype, ref):
    """spec's forward (rtol, atol), widened to what the result's and the reference's dtypes can
    resolve (NumPy computes sin of a bool or int8 array in float16)."""
    floor = max(_RESOLUTION.get(dtype.name, 0.0), _RESOLUTION.get(ref.dtype.name, 0.0))
    return max(spec.rtol, floor), max(spec.atol, floor)


# --- the tests ---


@pytest.mark.parametrize("spec", params(SPECS))
def test_forward(spec, device):
    for case in dtype_cases(spec):
        arrays = make_arrays(spec, case)
        tensors = [mt.tensor(a, device=device) for a in arrays]
        outs = as_list(spec.op(*tensors, **spec.kwargs))
        refs = [None] * len(outs)
        if spec.ref is not None:
            refs = [np.asarray(r) for r in as_list(spec.ref(*ref_arrays(arrays), **spec.kwargs))]
        assert len(outs) == len(refs), f"{spec.name} {case}: {len(outs)} outputs, ref {len(refs)}"
        for k, (out, ref) in enumerate(zip(outs, refs, strict=True)):
            where = f"{spec.name} {case} output {k} on {device}"
            assert isinstance(out, mt.Tensor), f"{where}: got {type(out).__name__}"
            assert out.device == mt.device(device), f"{where}: on {out.device}"
            want = expected_dtype(spec, case, arrays, k, ref)
            assert want is None or out.dtype.name == want, (
                f"{where}: dtype {out.dtype.name}, expected {want}"
            )
            if ref is None:
                continue
            shape = tuple(out.shape)
            assert shape == ref.shape, f"{where}: shape {shape}, reference {ref.shape}"
            got = out.detach().cpu().numpy()
            if out.dtype.is_floating_point:
                rtol, atol = tolerances(spec, out.dtype, ref)
                np.testing.assert_allclose(got, ref, rtol=rtol, atol=atol, err_msg=where)
            else:
                np.testing.assert_array_equal(got, ref, err_msg=where)


def _float_cases(spec):
    return [case for case in dtype_cases(spec) if grad_inputs(spec, case)]


@pytest.mark.parametrize("spec", params([s for s in GRAD_SPECS if _float_cases(s)]))
def test_grad_dtypes(spec, device):
    for case in _float_cases(spec):
        wanted = grad_inputs(spec, case)
        tensors = make_tensors(spec, case, device, wanted)
        outs = [o for o in as_list(spec.op(*tensors, **spec.kwargs)) if o.requires_grad]
        if not outs:
            continue
        xs = [tensors[i] for i in wanted]
        grads = mt.autograd.grad(
            outs, xs, upstream_gradients(spec, outs, device), allow_unused=True
        )
        for i, x, g in zip(wanted, xs, grads, strict=True):
            where = f"{spec.name} {case}: gradient of input {i} on {device}"
            if g is None:
                continue
            assert g.dtype == x.dtype, f"{where}: dtype {g.dtype}, input {x.dtype}"
            assert g.shape == x.shape, f"{where}: shape {tuple(g.shape)}, input {tuple(x.shape)}"
            assert g.device == x.device, f"{where}: device {g.device}, input {x.device}"


def _grad_tensors(spec, device):
    case = grad_case(spec)
    wanted = grad_inputs(spec, case)
    assert wanted, f"{spec.name}: no floating input to differentiate (set grad=())"
    return make_tensors(spec, case, device, wanted)


@pytest.mark.parametrize("spec", params(GRAD_SPECS))
def test_grad(spec, device):
    tensors = _grad_tensors(spec, device)
    gs = upstream_gradients(spec, as_list(spec.op(*tensors, **spec.kwargs)), device)

    def vjp_objective(*xs):
        # sum(op(x) * g): its gradient is the vector-Jacobian product with the random g, so a
        # transposed or mis-broadcast backward cannot hide behind an all-ones upstream gradient
        total = None
        for o, g in zip(as_list(spec.op(*xs, **spec.kwargs)), gs, strict=True):
            if g is not None:
                term = (o * g).sum()
                total = term if total is None else total + term
        return total

    # The strict device runs the same NumPy kernels as the CPU, so the element-wise Jacobians
    # there would repeat the CPU's numbers: it is there to run backward on a device, which fast
    # mode does at a fraction of the cost.
    fast = device == "strict"
    assert gradcheck(vjp_objective, tensors, eps=1e-6, atol=1e-5, rtol=1e-3, fast_mode=fast)


@pytest.mark.parametrize("spec", params(GRADGRAD_SPECS))
def test_gradgrad(spec, device):
    tensors = _grad_tensors(spec, device)

    def floating_outputs(*xs):
        outs = as_list(spec.op(*xs, **spec.kwargs))
        return tuple(o for o in outs if isinstance(o, mt.Tensor) and o.dtype.is_floating_point)

    # fast mode (torch's): v . (J u) against (v^T J) . u for random unit u, v; a few evaluations
    # instead of two per input element, and a mismatch still prints the full Jacobians
    assert gradgradcheck(floating_outputs, tensors, eps=1e-6, atol=1e-5, rtol=1e-3, fast_mode=True)


# --- the tables themselves ---


@pytest.mark.parametrize("table", sorted(p.name for p in Path(__file__).parent.glob("specs_*.py")))
def test_table_imports(table):
    assert table not in TABLE_ERRORS, f"{table} failed to import:\n{TABLE_ERRORS[table]}"


def test_spec_names_are_unique():
    names = [s.name for s in SPECS]
    dups = sorted({n for n in names if names.count(n) > 1})
    assert not dups, f"duplicate spec names: {dups}"


def test_xfail_entries_name_existing_specs():
    names = {s.name for s in SPECS}
    for name, marks in XFAILS.items():
        assert name in names, f"XFAIL names no spec: {name}"
        for key in marks:
            assert key.split("@")[0] in CHECKS, f"XFAIL[{name!r}]: unknown check {key!r}"


# Function subclasses defined in minitorch._ops that no row can reach, keyed "module.Class",
# each with the reason.
# e.g. {"convert.ToDevice": "moves between devices; a row runs on one device"}
ALLOWLIST: dict[str, str] = {
    # a half-precision result: the table's float64 gradient checks cannot run it; values and
    # gradients against torch's literals in tests/test_s22_reductions.py
    "reduction.MeanInto": "mean(dtype=float16/bfloat16) of a wider input",
    "reduction.MeanDimInto": "mean(dim, dtype=float16/bfloat16) of a wider input",
    "pointwise_misc.Heaviside": "no derivative in torch: it records only so backward can raise",
    # relu of float16 (NumPy's float16 maximum returns its first operand on a tie): the table's
    # float64 gradient checks cannot run it; values, -0. and the node name in
    # tests/test_s26_perf8.py
    "pointwise._HalfRelu": "relu of float16",
    # mse_loss's mean of a float16/bfloat16 loss on the CPU (NOTE [ Half-precision loss means ]):
    # values, gradients and double backward against torch's literals in tests/test_s32_distill.py
    "nn_kernels.HalfLossMean": "mse_loss(reduction='mean') of float16/bfloat16",
    "sorting.NoDerivative": "histogram/bincount results: records only so backward can raise",
    "sorting.NotImplementedDerivative": "unique results: records only so backward can raise",
    "activation._InplaceNegativeSlope": "in-place leaky_relu/elu with a negative slope: records "
    "only so backward can raise (tests/ops/test_sweep6_pointwise.py)",
    "linalg_factor._NoReflectors": "a householder product with nothing to differentiate: "
    "records only so the graph stays (tests/ops/test_linalg_sweep7.py)",
    "linalg_factor.Geqrf": "no derivative in torch: it records only so backward can raise "
    "(tests/ops/test_linalg_extra.py)",
    # inside adaptive_avg_pool's composite node (torch's AdaptiveAvgPool2DBackward0), which hides
    # its inner nodes from next_functions; row adaptive_avg_pool2d_uneven runs it
    "pool.AdaptiveAvg": "folded into adaptive_avg_pool's composite node",
    # inside block_diag's composite node (torch's BlockDiagBackward0); rows block_diag and
    # block_diag_int run it
    "linalg_more.BlockDiag": "folded into block_diag's composite node",
    # since NOTE [ Adaptive average windows ], the averaging matrices serve empty outputs only
    # (tests/nn/test_sweep6_functional.py::test_adaptive_pools_zero_channels)
    "pool.AdaptiveAvgGrad": "adaptive_avg_pool's empty outputs only: AdaptiveAvg's adjoint",
    # inside cdist's composite node (CdistBackward0); row cdist_pinf runs it
    "distance.LinfDistance": "folded into cdist's composite node",
    # p=1 (rows cdist_p1_broadcast; gradients and double backward:
    # tests/test_s20_perf_distance_conv.py::test_cdist_p1_*)
    "distance.CityBlockDistance": "folded into cdist's composite node",
    "distance.SignDot": "folded into cdist's composite node (CityBlockDistance's backward)",
    # row pdist runs PairwiseDistance2 and PairCombine; PairDot is PairCombine's adjoint
    # (tests/test_s20_perf_distance_conv.py::test_pdist_p2_gradgradcheck)
    "distance.PairDot": "pdist's third-order node (PairCombine's adjoint)",
    # p=1 (row pdist_p1 runs PairSignSum, its gradient; gradients and double backward:
    # tests/test_s26_perf7.py::test_pdist_p1_kernels_and_derivatives)
    "distance.PairwiseDistance1": "folded into pdist's composite node (PdistBackward0)",
    "distance.PairSignDot": "pdist p=1's third-order node (PairSignSum's adjoint)",
    # inside the regression losses' composite nodes (MseLossBackward0, ...); their gradients and
    # signed zeros: tests/nn/test_loss_signed_zeros.py
    "nn_kernels.MseLoss": "folded into mse_loss's composite node",
    "nn_kernels.SmoothL1Loss": "folded into smooth_l1_loss's composite node",
    "nn_kernels.HuberLoss": "folded into huber_loss's composite node",
    # half dtypes only (no float64 gradcheck reaches them); their values are rows mul_scalar__half,
    # mul_0d_f32__half and div_scalar__half, their gradients tests/ops/test_half_activations.py
    "pointwise.HalfMul": "half-precision mul by a number or 0-d scale",
    "pointwise.HalfDiv": "half-precision div by a number or 0-d scale",
}


def op_functions():
    """Every Function subclass defined in a minitorch._ops module, keyed 'module.Class'."""
    found = {}
    for info in pkgutil.iter_modules(minitorch._ops.__path__):
        module = importlib.import_module(f"minitorch._ops.{info.name}")
        for cls in vars(module).values():
            if (
                inspect.isclass(cls)
                and issubclass(cls, Function)
                and cls.__module__ == module.__name__
            ):
                found[f"{info.name}.{cls.__name__}"] = cls
    return found


def reached_functions(spec):
    """The Function classes in the graphs of spec's outputs and of their gradients (a Function
    may serve only in backward), for each floating dtype case."""
    seen = set()
    for case in {grad_case(spec), *_float_cases(spec)}:
        wanted = grad_inputs(spec, case)
        tensors = make_tensors(spec, case, "cpu", wanted)
        outs = [o for o in as_list(spec.op(*tensors, **spec.kwargs)) if isinstance(o, mt.Tensor)]
        roots = [o.grad_fn for o in outs]
        diff = [o for o in outs if o.requires_grad]
        if diff:
            xs = [tensors[i] for i in wanted]
            gs = upstream_gradients(spec, diff, "cpu")
            grads = mt.autograd.grad(diff, xs, gs, create_graph=True, allow_unused=True)
            roots += [g.grad_fn for g in grads if g is not None]
        seen |= _graph_functions(roots)
    return seen


def _graph_functions(roots):
    seen, visited = set(), set()
    stack = list(roots)
    while stack:
        node = stack.pop()
        if node is None or id(node) in visited:
            continue
        visited.add(id(node))
        if getattr(node, "_fn", None) is not None:
            seen.add(node._fn)
        stack.extend(fn for fn, _ in node.next_functions)
    return seen


def test_every_function_has_a_row():
    seen = set()
    for spec in GRAD_SPECS:
        try:
            seen |= reached_functions(spec)
        except Exception:
            if xfail_reason(spec, "forward", "cpu") is None:
                raise
    missing = sorted(
        name for name, cls in op_functions().items() if cls not in seen and name not in ALLOWLIST
    )
    assert not missing, (
        "no op-test row reaches these Functions; add rows to tests/ops/specs_<family>.py (or an "
        f"ALLOWLIST entry in tests/ops/test_ops.py with the reason): {missing}"
    )


def test_allowlist_names_existing_functions():
    unknown = sorted(set(ALLOWLIST) - set(op_functions()))
    assert not unknown, f"ALLOWLIST entries that name no Function: {unknown}"
