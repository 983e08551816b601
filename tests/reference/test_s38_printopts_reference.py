"""Session 38 (helper printopts): printing as notebook users see it, run under torch and
minitorch with the same seeds and compared record by record (texts exactly, with "torch" read as
"minitorch"): repr/str of tensors of every dtype (bool, uint8..uint64, int8..int64, float16,
bfloat16, float32, float64, the float8 types) with mixtures of big and small magnitudes (the
switch to scientific notation and its thresholds), negative zero, inf/-inf/nan, integer-valued
floats, 0-d, 1-element and empty tensors ((0,), (2, 0, 3)); torch.set_printoptions (precision,
threshold, edgeitems, linewidth, sci_mode True/False/None, the 'default'/'short'/'full'
profiles, positional arguments, get_printoptions, the printoptions context and PRINT_OPTS);
very wide rows wrapped at the linewidth, 3-d and 4-d summarised tensors ("...," placement),
non-contiguous, flipped, strided and expanded tensors (a (10**6, 10**6) expand included);
requires_grad/grad_fn suffixes and their wrapping, Parameters (alone, in lists and dicts,
ParameterList/ParameterDict, state_dict, a Parameter subclass), the dtype suffix rules (the
default dtype, int64 and bool never shown, empty tensors, after set_default_dtype(float64)),
the device suffix (meta, a set default device), torch.Size, dtype, device, finfo/iinfo, the
named tuples of max/min/sort/topk/mode/median/kthvalue, format()/f-strings/%-formatting of
0-d tensors, str(t.item()), t.tolist(), print() itself, untyped storages and PackedSequence.
Every program restores the print options and the default dtype in a finally. float64 and
float32 both (the dtype the floating tensors are built in).

Found and fixed:
- repr of a large non-contiguous tensor (an expanded one above all) copied it whole before
  summarising: ones(1, 1).expand(10**6, 10**6) raised NumPy's "Unable to allocate 3.64 TiB"
  MemoryError and an (8000, 8000) expand took seconds; torch prints it from its edges at once.
  The summary now gathers only the kept elements.
- repr(torch._tensor_str.PRINT_OPTS) read "_PrintOptions(...)"; torch's "__PrinterOptions(...)".
- set_printoptions(linewidth=float("inf")) (NumPy's idiom for no wrapping) made a repr raise
  "ValueError: cannot convert float NaN to integer"; torch's printer floors a true division:
  "OverflowError: cannot convert float infinity to integer".

Known and left (documented):
- A tensor on a GPU is copied to the host whole before its repr summarises it (torch
  summarises on the device): slow for huge tensors, and an expanded one is materialised.
- uint16/uint32/uint64 ops torch's CPU kernels lack (max/min/sort of uint32, ...) work here;
  torch raises NotImplementedError ("max_cpu" not implemented for 'UInt32'). Not recorded.
- numpy_array + tensor: torch's Tensor makes NumPy raise a TypeError ("Concatenation operation
  is not implemented for NumPy arrays"); minitorch gives a tensor. Not recorded.
- Complex dtypes (torch.cfloat, complex reprs) do not exist here.
- float() of a tensor requiring grad warns once per process in torch ("Converting a tensor with
  requires_grad=True to a scalar ..."): not recorded (another test may have used it up).
- torch.__version__ is "2.13.0+cpu"; minitorch's is "0.1.0" (both compare as versions), so
  `torch.__version__ >= "1.10"` checks in user code fail. A project decision (the package's
  own version), not a printing one."""

from __future__ import annotations

import contextlib
import io

import pytest

from tests.reference._one_thread import one_torch_thread  # noqa: F401 - an autouse fixture
from tests.reference._programs import assert_program_matches
from tests.reference._programs import seeded_gen as _gen
from tests.reference._programs import seeded_randn as _randn

torch = pytest.importorskip("torch")


PROGRAMS = [
    "sci_switch", "specials", "integral_floats", "int_dtypes", "half_dtypes", "float8",
    "zero_dim", "empty_shapes", "wide_rows", "summarize_3d", "summarize_4d", "edgeitems_zero",
    "profiles", "sci_mode", "precision", "noncontig", "expanded_huge", "grad_suffixes",
    "parameters", "default_dtype64", "named_tuples", "size_dtype_device", "finfo_iinfo",
    "format_item", "tolist", "print_stdout", "printoptions_ctx", "model_outputs",
    "meta_and_subclass", "storage_packed", "set_printoptions_args",
]  # fmt: skip


@pytest.mark.parametrize("dt", ["float64", "float32"])
@pytest.mark.parametrize("name", PROGRAMS)
def test_program_matches_torch(name, dt):
    assert_program_matches(globals()["p_" + name], torch, dt)


# --- helpers ---


@contextlib.contextmanager
def _opts(lib, **options):
    """set_printoptions(**options) for the block; the defaults (and the default dtype) after."""
    try:
        lib.set_printoptions(**options)
        yield
    finally:
        lib.set_printoptions(profile="default")
        lib.set_printoptions(sci_mode=None)
        lib.set_default_dtype(lib.float32)


def _reprs(rec, name, values):
    """Records repr(v) of each value as name.i."""
    for i, v in enumerate(values):
        rec(f"{name}.{i}", repr(v))


# --- the programs: each takes the library, a dtype and a recorder ---


def p_sci_switch(lib, dt, rec):
    rows = [
        [1.0, 1000.0], [1.0, 1001.0], [1.0, 1000.5], [1e-4, 1.0], [9.99e-5, 1.0], [1e8, 1.0],
        [1e8 + 8, 2.0], [99999992.0, 1.0], [123456.0, 0.5], [12345678.0, 1.0], [-1.5, 1500.0],
        [1e-5, 1e-6, -2e-7], [1e10, 2e10], [0.001, 1000.0], [0.001, 1000.0, float("nan")],
        [3e38, -3e38, 1.0], [1e-30, 1.0], [0.5, 0.25, 0.125, 0.0625],
    ]  # fmt: skip
    for i, row in enumerate(rows):
        x = lib.tensor(row, dtype=dt)
        rec(f"row{i}", repr(x))
        rec(f"neg{i}", repr(-x))
    big = lib.tensor([1e300, 1e-300, 5e-324], dtype=lib.float64)
    rec("float64_extremes", repr(big))
    x = _randn(lib, dt, 0, 4, 5) * lib.logspace(-6, 6, 5, dtype=dt)
    rec("columns_of_magnitudes", repr(x))
    rec("scaled_down", repr(_randn(lib, dt, 1, 6) * 1e-3))
    rec("scaled_up", repr(_randn(lib, dt, 2, 6) * 1e5))


def p_specials(lib, dt, rec):
    nan, inf = float("nan"), float("inf")
    rows = [
        [0.0, -0.0], [-0.0, -0.0], [-0.0, 1.5], [nan, inf, -inf], [nan, 1e-5], [inf, 123456789.0],
        [-inf, 5.0], [-inf, 5.5], [nan], [nan, nan], [0.0, nan, -0.0], [1.0, -0.0, nan, inf],
        [1e9, -inf, 0.0],
    ]  # fmt: skip
    for i, row in enumerate(rows):
        rec(f"row{i}", repr(lib.tensor(row, dtype=dt)))
    for v in (0.0, -0.0, nan, inf, -inf):
        rec(f"zero_dim_{v}", repr(lib.tensor(v, dtype=dt)))
    x = lib.zeros(3, 4, dtype=dt)
    x[1, 2] = nan
    x[2, 0] = -inf
    x[0, 3] = 2.5
    rec("matrix", repr(x))
    rec("matrix_t", repr(x.t()))
    rec("neg_zero_product", repr(lib.tensor([0.0, 1.0], dtype=dt) * -1))


def p_integral_floats(lib, dt, rec):
    rows = [
        [1.0, 2.0, 3.0], [-1.0, 0.0, 1000.0], [1.0, 1001.0], [2.0**24, 1.0], [1e8, 3.0],
        [1e10, -2e10], [100.0, float("nan")], [7.0, float("inf")], [1e15, 1.0],
    ]  # fmt: skip
    for i, row in enumerate(rows):
        rec(f"row{i}", repr(lib.tensor(row, dtype=dt)))
    rec("arange", repr(lib.arange(12, dtype=dt).reshape(3, 4)))
    rec("powers", repr(lib.arange(10, dtype=dt) ** 6))
    rec("rounded", repr((_randn(lib, dt, 3, 8) * 100).round()))
    rec("floor_neg", repr((_randn(lib, dt, 4, 2, 5) * 10).floor()))


def p_int_dtypes(lib, dt, rec):
    cases = [
        ("bool", [[True, False], [False, True]]), ("uint8", [0, 255, 7]),
        ("int8", [-128, 127, 0]), ("int16", [-32768, 5, 32767]),
        ("int32", [2**31 - 1, -5, 0]), ("int64", [2**63 - 1, -(2**63), 3]),
        ("uint16", [1, 2**16 - 1]), ("uint32", [0, 2**32 - 1]), ("uint64", [1, 2**64 - 1]),
    ]  # fmt: skip
    for name, vals in cases:
        x = lib.tensor(vals, dtype=getattr(lib, name))
        rec(f"{name}", repr(x))
        rec(f"{name}.0d", repr(x.reshape(-1)[0]))
        rec(f"{name}.type", x.type())
    x = lib.randint(-1000, 1000, (4, 1, 300), generator=_gen(lib, 0))
    rec("summarised_int64", repr(x))
    with _opts(lib, linewidth=20):
        rec("narrow_int32", repr(lib.tensor([[1, -2222222, 5], [300, 4, 7]], dtype=lib.int32)))
        rec("narrow_bool", repr(lib.tensor([True, False] * 8)))
    with _opts(lib, threshold=4, edgeitems=1):
        rec("summarised_bool", repr(lib.tensor([True, False] * 8).view(2, 8)))
    rec("from_float", repr((_randn(lib, dt, 5, 7) * 50).to(lib.int16)))
    rec("uint8_arith", repr(lib.arange(30, dtype=lib.uint8).view(3, 10) * 9))


def p_half_dtypes(lib, dt, rec):
    base = lib.tensor([1 / 3, 300.0, -0.0, 65504.0, 6e-8, float("nan")], dtype=dt)
    for name in ("float16", "bfloat16"):
        h = base.to(getattr(lib, name))
        rec(name, repr(h))
        rec(name + ".pair", repr(h[:2]))
        rec(name + ".rg", repr(h[:2].clone().requires_grad_()))
        rec(name + ".0d", repr(h[0]))
        rec(name + ".item", str(h[0].item()))
        rec(name + ".tolist", str(h[:2].tolist()))
        rec(name + ".randn", repr(_randn(lib, dt, 6, 2, 7).to(getattr(lib, name))))
    rec("bf16_big_small", repr(lib.tensor([1e38, 1e-38], dtype=lib.bfloat16)))


def p_float8(lib, dt, rec):
    nan = float("nan")
    rows = [
        ("float8_e4m3fn", [1.5, 2.0, -448.0, 0.001953125, nan]),
        ("float8_e5m2", [1.5, 2.0, -57344.0, 1.5e-5, float("inf")]),
        ("float8_e4m3fnuz", [1.5, 2.0, 0.125]), ("float8_e5m2fnuz", [1.5, 2.0, 0.125]),
        ("float8_e8m0fnu", [1.0, 2.0, 0.125, 2.0**100]),
    ]  # fmt: skip
    for name, vals in rows:
        x = lib.tensor(vals, dtype=dt).to(getattr(lib, name))
        rec(name, repr(x))
        rec(name + ".0d", repr(x[1]))
        rec(name + ".float", repr(x.float()))
    rec("empty_e5m2", repr(lib.zeros(0, dtype=lib.float8_e5m2)))


def p_zero_dim(lib, dt, rec):
    for v in (3.14159, -2.5, 1e-7, 1e12, 7.0, 0.1):
        x = lib.tensor(v, dtype=dt)
        rec(f"repr.{v}", repr(x))
        rec(f"str.{v}", str(x))
        rec(f"one_elem.{v}", repr(x.reshape(1)))
        rec(f"nested.{v}", repr(x.reshape(1, 1, 1)))
    rec("int_0d", repr(lib.tensor(5)) + repr(lib.tensor(5, dtype=lib.int32)))
    rec("bool_0d", repr(lib.tensor(True)))
    x = lib.tensor(2.5, dtype=dt, requires_grad=True)
    rec("rg_0d", repr(x))
    rec("gradfn_0d", repr(x * 2))
    rec("sum_0d", repr(_randn(lib, dt, 7, 5).sum()))
    with _opts(lib, threshold=0):
        rec("threshold0_scalar", repr(lib.tensor(5.0, dtype=dt)))
        rec("threshold0_vector", repr(lib.arange(7, dtype=dt)))


def p_empty_shapes(lib, dt, rec):
    for shape in [(0,), (2, 0, 3), (0, 3), (3, 0), (1, 0)]:
        rec(f"empty{shape}", repr(lib.empty(*shape, dtype=dt)))
        rec(f"zeros{shape}.rg", repr(lib.zeros(*shape, dtype=dt, requires_grad=True)))
    for name in ("int64", "bool", "uint8", "float16", "float32", "float64"):
        rec(f"empty_{name}", repr(lib.empty(0, dtype=getattr(lib, name))))
    rec("reduced_empty", repr(lib.empty(0, 3, dtype=dt).sum(0)))
    rec("sum_of_empty", repr(lib.zeros(0, dtype=dt, requires_grad=True).sum()))
    rec("empty_list", str([lib.empty(2, 0, dtype=dt)]))
    rec("tensor_of_empty_list", repr(lib.tensor([])))


def p_wide_rows(lib, dt, rec):
    x = _randn(lib, dt, 10, 3, 30)
    for lw in (120, 80, 50, 30, 10, 1):
        with _opts(lib, linewidth=lw):
            rec(f"lw{lw}", repr(x))
            rec(f"lw{lw}.rg", repr(x.requires_grad_() * 2))
            x = x.detach()
    with _opts(lib, linewidth=60):
        rec("suffix_wrap", repr(_randn(lib, dt, 11, 2, 9).exp()))
        rec("suffix_wrap_f16", repr(_randn(lib, dt, 12, 2, 7).half().requires_grad_()))
    rec("long_vector", repr(_randn(lib, dt, 13, 200)))
    rec("full_const", repr(lib.full((3, 40), -1.25e-3, dtype=dt)))
    rec("linspace", repr(lib.linspace(-1, 1, 41, dtype=dt)))


def p_summarize_3d(lib, dt, rec):
    x = _randn(lib, dt, 20, 2, 3, 400)
    rec("default", repr(x))
    for thr, edge in ((50, 2), (5, 1), (100, 4), (10, 3)):
        with _opts(lib, threshold=thr, edgeitems=edge):
            rec(f"t{thr}.e{edge}", repr(x))
            rec(f"t{thr}.e{edge}.int", repr(lib.arange(2 * 3 * 10).view(2, 3, 10)))
    big = _randn(lib, dt, 21, 12, 10, 10)
    rec("cut_every_dim", repr(big))
    with _opts(lib, edgeitems=4, linewidth=30):
        rec("int16_rows", repr(lib.arange(2000).reshape(2, 1000).to(lib.int16)))


def p_summarize_4d(lib, dt, rec):
    x = _randn(lib, dt, 22, 2, 3, 40, 50)
    rec("default", repr(x))
    y = _randn(lib, dt, 23, 5, 6, 7, 8) * 1e5
    with _opts(lib, threshold=50, edgeitems=2, precision=3):
        rec("t50.e2.p3", repr(y))
    with _opts(lib, threshold=5, edgeitems=1):
        rec("t5.e1", repr(lib.arange(2 * 3 * 4 * 5, dtype=dt).reshape(2, 3, 4, 5)))
    z = lib.zeros(2, 3, 1, 2, dtype=dt)
    rec("small_4d", repr(z))
    rec("ones_gradfn", repr(lib.ones(1, 1, 1, 1, dtype=dt, requires_grad=True) * 3))


def p_edgeitems_zero(lib, dt, rec):
    with _opts(lib, edgeitems=0):
        rec("summarised", repr(lib.arange(3000, dtype=dt).reshape(30, 100)))
        rec("small", repr(lib.arange(3, dtype=dt)))
        rec("scalar", repr(lib.tensor(1.5, dtype=dt)))
        rec("rg", repr(lib.arange(1500, dtype=dt).requires_grad_()))
        rec("int8", repr(lib.zeros(5, 300, dtype=lib.int8)))


def p_profiles(lib, dt, rec):
    x = _randn(lib, dt, 30, 20, 20)
    for profile in ("short", "full", "default", "bogus"):
        with _opts(lib, profile=profile):
            rec(f"{profile}.opts", repr(lib._tensor_str.get_printoptions()))
            text = repr(x)
            rec(f"{profile}.len", str(len(text)))
            rec(f"{profile}.head", text[:300])
            rec(f"{profile}.tail", text[-300:])
    with _opts(lib, profile="full", precision=2):
        rec("full_p2", repr(lib.arange(1200, dtype=dt)[-30:] / 7))
        rec("full_p2.opts", repr(lib._tensor_str.get_printoptions()))
    with _opts(lib, profile="short", sci_mode=True):
        rec("short_sci", repr(x[:2, :3]))


def p_sci_mode(lib, dt, rec):
    rows = [
        [1.0, 2.0, 3.0], [1e-10, 1e10, 3.0], [0.0, -0.0, float("nan"), float("inf"), 1.0],
        [0.0, 0.0], [123456.789, 1e-3], [0.1, 25.0, 1e10],
    ]  # fmt: skip
    for mode in (True, False, None):
        for p in (4, 2, 0):
            with _opts(lib, sci_mode=mode, precision=p):
                for i, row in enumerate(rows):
                    rec(f"{mode}.p{p}.row{i}", repr(lib.tensor(row, dtype=dt)))
                rec(f"{mode}.p{p}.int", repr(lib.tensor([1, 2, 300])))
    with _opts(lib, sci_mode=True, precision=3):
        lib.set_printoptions(precision=5)  # sci_mode goes back to None
        rec("reset", repr(lib.tensor([1.5, 2.25], dtype=dt)))


def p_precision(lib, dt, rec):
    x = lib.tensor([0.1, 0.2, 1 / 3, -2.5, 1e-3], dtype=dt)
    for p in (0, 1, 2, 6, 10, 20):
        with _opts(lib, precision=p):
            rec(f"p{p}", repr(x))
            rec(f"p{p}.half", repr(x.half()))
            rec(f"p{p}.ties", repr(lib.tensor([0.5, 1.5, 2.5, -0.5], dtype=dt)))


def p_noncontig(lib, dt, rec):
    x = lib.arange(24, dtype=dt).reshape(2, 3, 4) / 7
    views = {
        "transpose": x.transpose(0, 2), "step": x[:, ::2, 1::2], "permute": x.permute(2, 0, 1),
        "flip": x.flip(1), "diagonal": x[0].diagonal(), "narrow": x.narrow(2, 1, 2),
        "strided": x.reshape(-1).as_strided((2, 2), (1, 5)), "unfold": x[0].unfold(1, 2, 2),
        "select": x[:, 1], "fancy": x[[1, 0]], "mT": x.mT,
    }  # fmt: skip
    for name, v in views.items():
        rec(name, repr(v))
    col = lib.tensor([[1.5], [2.5]], dtype=dt)
    rec("expand", repr(col.expand(2, 3)))
    rec("expand_stride", repr(col.expand(2, 3).stride()))
    rec("expand_0d", repr(lib.tensor(3.0, dtype=dt).expand(2, 2)))
    rec("expand_big", repr(lib.ones(1, 1, dtype=dt).expand(1000, 1000)))
    y = lib.tensor([1.5, 2.5], dtype=dt, requires_grad=True)
    rec("expand_rg", repr(y.expand(3, 2)) + repr(y.expand(3, 2).sum(0)))
    big_t = _randn(lib, dt, 40, 50, 60).t()
    rec("big_transposed", repr(big_t))
    rec("big_step", repr(big_t[::2, 1::3]))


def p_expanded_huge(lib, dt, rec):
    rec("ones", repr(lib.ones(1, 1, dtype=dt).expand(10**6, 10**6)))
    x = lib.arange(3, dtype=dt).view(3, 1, 1).expand(3, 10**6, 10**6)
    rec("arange", repr(x))
    rec("int", repr(lib.tensor([[7]]).expand(10**5, 10**7)))
    with _opts(lib, edgeitems=1, linewidth=40):
        rec("edge1", repr(lib.tensor([1.5, -2.0], dtype=dt).view(2, 1).expand(2, 10**9)))


def p_grad_suffixes(lib, dt, rec):
    x = lib.tensor([1.5, 2.5], dtype=dt, requires_grad=True)
    ops = {
        "mul": x * 2, "sum": x.sum(), "index": x[0], "view": x.view(2, 1), "detach": x.detach(),
        "data": x.data, "exp": x.exp(), "double": x.double(), "float": x.float(),
        "half": x.half(), "unsqueeze": x.unsqueeze(0), "clone": x.clone(), "mean": x.mean(),
        "norm": x.norm(), "pow": x.pow(2), "relu": lib.relu(x), "sigmoid": x.sigmoid(),
        "neg": -x, "rsub": 1 - x, "rdiv": 2 / x, "softmax": x.softmax(0),
    }  # fmt: skip
    for name, y in ops.items():
        rec(name, repr(y))
    m = lib.tensor([[1.5, 2.5]], dtype=dt, requires_grad=True)
    rec("mm", repr(m @ m.T))
    rec("cat", repr(lib.cat([m, m])))
    rec("max_values", repr(m.max(1).values))
    with lib.no_grad():
        rec("no_grad", repr(x * 2))
    y = x * 2
    y.retain_grad()
    y.sum().backward()
    rec("x.grad", repr(x.grad))
    rec("y.grad", repr(y.grad))
    rec("grad_fn_name", y.grad_fn.name())
    with _opts(lib, linewidth=30):
        rec("narrow_rg", repr(lib.arange(6, dtype=dt).reshape(2, 3).requires_grad_()))
        rec("narrow_gradfn", repr(lib.ones(2, dtype=lib.float16, requires_grad=True) * 3))


def p_parameters(lib, dt, rec):
    nn = lib.nn
    w = nn.Parameter(lib.tensor([[1.0, 2.0], [3.0, 4.0]], dtype=dt))
    rec("param", repr(w))
    rec("param_str", str(w))
    rec("param_0d", repr(nn.Parameter(lib.tensor(3.0, dtype=dt))))
    rec("param_no_grad", repr(nn.Parameter(lib.tensor([1, 2]), requires_grad=False)))
    rec("param_empty", repr(nn.Parameter(lib.zeros(2, 0, dtype=dt))))
    rec("in_list", str([w, lib.zeros(2, dtype=dt)]))
    rec("in_dict", repr({"w": w}))
    rec("in_tuple", repr((w,)))
    plist = nn.ParameterList([nn.Parameter(lib.ones(2, dtype=dt)), nn.Parameter(lib.ones(2, 3))])
    rec("param_list", repr(plist))
    pdict = nn.ParameterDict({"a": nn.Parameter(lib.ones(2, dtype=dt))})
    rec("param_dict", repr(pdict))
    lin = nn.Linear(3, 2).to(dt)
    with lib.no_grad():
        lin.weight.copy_(lib.arange(6, dtype=dt).view(2, 3) / 4)
        lin.bias.fill_(0.5)
    rec("linear_weight", repr(lin.weight))
    rec("parameters", repr(list(lin.parameters())))
    rec("named", repr(dict(lin.named_parameters())))
    rec("state_dict", str(lin.state_dict()))
    rec("ops_on_param", repr(w * 1) + repr(w[0]) + repr(w.data) + repr(w.detach()))

    class MyParam(nn.Parameter):
        pass

    rec("subclass", repr(MyParam(lib.ones(2, dtype=dt))))
    rec("subclass_list", str([MyParam(lib.ones(2, dtype=dt), requires_grad=False)]))
    rec("buffer", repr(nn.Buffer(lib.ones(2, dtype=dt))))
    with _opts(lib, linewidth=30):
        rec("narrow", repr(nn.Parameter(lib.ones(2, 8, dtype=dt))))
    rec("wide", repr(nn.Parameter(lib.ones(3, 400, dtype=dt))))


def p_default_dtype64(lib, dt, rec):
    with _opts(lib):
        lib.set_default_dtype(lib.float64)
        rec("float_lit", repr(lib.tensor([1.5, 2.0])))
        rec("explicit_dt", repr(lib.tensor([1.5, 2.0], dtype=dt)))
        rec("float32", repr(lib.tensor([1.5], dtype=lib.float32, requires_grad=True)))
        rec("empty", repr(lib.empty(0)) + repr(lib.empty(0, dtype=lib.float32)))
        rec("int_div", repr(lib.tensor([1, 2]) / 2) + repr(lib.arange(3) * 1.5))
        rec("param", repr(lib.nn.Parameter(lib.tensor([1.5, 2.5]))))
        rec("linear_dtype", repr(lib.nn.Linear(2, 1).weight.dtype))
        rec("max", repr(lib.tensor([3.0, 1.0], dtype=dt).max(0)))
        rec("finfo", repr(lib.finfo()))
        rec("half", repr(lib.tensor([1.5], dtype=lib.float16)))
        lib.set_default_dtype(lib.float16)
        rec("default16", repr(lib.tensor([1.0, 2.0])) + repr(lib.tensor([1.0], dtype=dt)))
        lib.set_default_dtype(lib.bfloat16)
        rec("defaultbf16", repr(lib.tensor([1.1, 2.0])) + repr(lib.tensor([1, 2])))
    rec("restored", repr(lib.tensor([1.5])) + repr(lib.get_default_dtype()))


def p_named_tuples(lib, dt, rec):
    x = lib.tensor([[1.0, 5.0, 3.0], [4.0, 2.0, 6.0]], dtype=dt)
    results = {
        "max1": x.max(1), "max_keepdim": x.max(1, keepdim=True), "min0": x.min(0),
        "sort": x.sort(1), "sort_desc": x[0].sort(descending=True, stable=True),
        "topk": _randn(lib, dt, 50, 3, 30).topk(12, dim=1),
        "mode": lib.tensor([1, 2, 2, 3, 3, 3]).mode(),
        "mode_rows": lib.tensor([[1.0, 2.0, 2.0], [3.0, 3.0, 1.0]], dtype=dt).mode(1),
        "median": x[0].median(0), "kthvalue": x.kthvalue(1, 0), "aminmax": lib.aminmax(x),
        "cummax": x[0].cummax(0), "int32_min": x.to(lib.int32).min(1),
        "half_max": x[0].half().max(0), "empty_sort": lib.tensor([], dtype=dt).sort(),
        "summarised": _randn(lib, dt, 51, 4, 300).max(1),
    }  # fmt: skip
    for name, r in results.items():
        rec(name, repr(r))
    g = x.clone().requires_grad_()
    rec("grad", repr(g.min(0)))
    rec("grad3d", repr(_randn(lib, dt, 52, 2, 3, 4).requires_grad_().max(2)))
    r = x.max(1)
    rec("str", str(r))
    rec("fields", repr((r.values, r.indices, r[0], len(r), type(r).__name__, list(r))))
    v, i = x[0].topk(2)
    rec("unpacked", repr(v) + repr(i))
    rec("in_list", str([x[0].sort(), lib.tensor(1.0, dtype=dt)]))
    rec("constructed", repr(lib.return_types.max((lib.tensor([1.0], dtype=dt), lib.tensor([0])))))


def p_size_dtype_device(lib, dt, rec):
    x = lib.zeros(2, 3, dtype=dt)
    _reprs(rec, "size", [
        x.shape, x.size(), x.size(1), x.stride(), lib.Size([]), lib.Size([2]) + (3,),
        (1,) + lib.Size([2]), lib.Size([2, 3, 4])[1:], lib.Size([2, 3]) * 2,
        lib.Size([2, 3]).numel(), tuple(x.shape), list(x.shape),
    ])  # fmt: skip
    rec("size_str", str(lib.Size([4])) + f"{x.shape}")
    _reprs(rec, "dtype", [
        lib.float32, lib.float, lib.double, lib.half, lib.bfloat16, lib.long, lib.int,
        lib.short, lib.bool, lib.uint8, lib.int8, dt, x.dtype, lib.get_default_dtype(),
        dt.is_floating_point, dt.itemsize, lib.int64.is_signed,
    ])  # fmt: skip
    rec("dtype_str", str(lib.float32) + str(lib.int64) + str(dt))
    _reprs(rec, "device", [
        lib.device("cpu"), lib.device("cuda", 1), lib.device("meta"), x.device,
        lib.device("cpu").type, lib.device("cpu").index, lib.device("cuda:3").index,
    ])  # fmt: skip
    rec("device_str", str(lib.device("cpu")) + str(lib.device("cuda:0")))


def p_finfo_iinfo(lib, dt, rec):
    for name in ("float16", "bfloat16", "float32", "float64", "float8_e4m3fn", "float8_e5m2"):
        f = lib.finfo(getattr(lib, name))
        rec(f"finfo.{name}", repr(f))
        rec(f"finfo.{name}.str", str(f))
        rec(f"finfo.{name}.fields", str([f.eps, f.tiny, f.max, f.min, f.resolution, f.bits]))
    rec("finfo.dt", repr(lib.finfo(dt)))
    rec("finfo.default", repr(lib.finfo()))
    for name in ("uint8", "int8", "int16", "int32", "int64", "uint16", "uint32", "uint64"):
        i = lib.iinfo(getattr(lib, name))
        rec(f"iinfo.{name}", repr(i))
        rec(f"iinfo.{name}.fields", str([i.min, i.max, i.bits, i.dtype]))
    for name, fn in (("finfo(int32)", lambda: lib.finfo(lib.int32)),
                     ("iinfo(float32)", lambda: lib.iinfo(lib.float32)),
                     ("iinfo(bool)", lambda: lib.iinfo(lib.bool))):  # fmt: skip
        rec.err(name, fn)


def p_format_item(lib, dt, rec):
    x = lib.tensor(3.14159, dtype=dt)
    for spec in (".3f", ".3e", ">10", "", "g", ".1%", "+.2f", "10.4f"):
        rec(f"format.{spec}", format(x, spec))
    rec("fstring", f"{lib.tensor(2.5, dtype=dt):>10}|{lib.tensor(7):04d}|{lib.tensor(True)}")
    rec("fstring_r", f"{lib.tensor(0.1, dtype=dt)!r}|{lib.tensor(0.1, dtype=dt)!s}")
    rec("fstring_vector", f"{lib.tensor([0.1], dtype=dt)}")
    rec("format_rg", format(lib.tensor(1.5, dtype=dt, requires_grad=True) * 2, ".2f"))
    rec("format_int_hex", format(lib.tensor(255), "x"))
    rec("format_half", format(lib.tensor(1.1, dtype=lib.float16), ""))
    rec("format_bf16", format(lib.tensor(1.1, dtype=lib.bfloat16), ""))
    args = (x, x, x, lib.tensor(3), lib.tensor([2.25], dtype=dt))
    rec("percent", "%s|%r|%.2f|%d|%5.1f" % args)  # noqa: UP031 - %-formatting is the subject
    for v in (0.1, 1 / 3, 1e-8, 123456789.0):
        rec(f"item.{v}", str(lib.tensor(v, dtype=dt).item()))
    rec("item_types", str([type(lib.tensor(v).item()).__name__ for v in (1.5, 2, True)]))
    rec("conversions", repr((int(x), float(lib.tensor(3)), bool(lib.tensor([0.0], dtype=dt)))))
    rec.err("round", lambda: round(x, 2))
    errors = {
        "vector_spec": lambda: format(lib.tensor([1.0, 2.0], dtype=dt), ".2f"),
        "param_spec": lambda: format(lib.nn.Parameter(lib.tensor(1.5, dtype=dt)), ".2f"),
        "float_hex": lambda: format(x, "x"),
        "float_d": lambda: format(x, "d"),
        "percent_vector": lambda: "%.2f" % lib.tensor([1.0, 2.0], dtype=dt),  # noqa: UP031
        "float_of_vector": lambda: float(lib.tensor([1.0, 2.0], dtype=dt)),
        "item_of_empty": lambda: lib.zeros(0, dtype=dt).item(),
        "item_of_vector": lambda: lib.tensor([1.0, 2.0], dtype=dt).item(),
        "bool_of_vector": lambda: bool(lib.tensor([1.0, 2.0], dtype=dt)),
    }
    for name, fn in errors.items():
        rec.err(name, fn)
    rec("param_empty_spec", format(lib.nn.Parameter(lib.tensor(1.5, dtype=dt)), ""))


def p_tolist(lib, dt, rec):
    x = lib.arange(6, dtype=dt).reshape(2, 3) / 3
    rec("matrix", repr(x.tolist()))
    rec("row", repr(x[0].tolist()))
    rec("scalar", repr(x[0, 0].tolist()))
    rec("int", repr(x.int().tolist()))
    rec("bool", repr((x > 0.5).tolist()))
    rec("transposed", repr(x.t().tolist()))
    rec("expanded", repr(lib.tensor([1.0], dtype=dt).expand(2, 3).tolist()))
    rec("empty", repr(lib.empty(2, 0, dtype=dt).tolist()))
    specials = lib.tensor([0.1, 1e-8, -0.0, float("nan"), float("inf")], dtype=dt)
    rec("specials", repr(specials.tolist()))
    rec("half", repr(lib.tensor([3.14159], dtype=dt).half().tolist()))
    rec("bf16", repr(lib.tensor([3.14159], dtype=dt).bfloat16().tolist()))
    rec("rg", repr(lib.tensor([1.5], dtype=dt, requires_grad=True).tolist()))
    rec("param", repr(lib.nn.Parameter(lib.tensor([1.5], dtype=dt)).tolist()))
    rec("big_int", repr(lib.tensor(2**60).tolist()) + repr(lib.tensor([2**63 - 1]).tolist()))
    rec("randn", repr(_randn(lib, dt, 60, 5).tolist()))


def p_print_stdout(lib, dt, rec):
    x = _randn(lib, dt, 70, 3, 4)
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        print(x)
        print(x.requires_grad_() * 2)
        print(lib.tensor(1.5, dtype=dt), lib.tensor([1, 2]), sep=" | ")
        print([lib.tensor(0.5, dtype=dt)], {"k": lib.tensor([True])})
        print(lib.nn.Parameter(lib.ones(2, dtype=dt)))
        print(x.shape, x.dtype, x.device)
        print(x.detach().max(1))
        with _opts(lib, precision=2, linewidth=40):
            print(_randn(lib, dt, 71, 2, 12))
    rec("stdout", buf.getvalue())


def p_printoptions_ctx(lib, dt, rec):
    ts = lib._tensor_str
    x = lib.tensor([1 / 3, 2.0, 1e-5], dtype=dt)
    with _opts(lib):
        with ts.printoptions(precision=1, sci_mode=True):
            rec("inside", repr(x))
            rec("inside.opts", repr(ts.get_printoptions()))
        rec("after", repr(x))
        rec("after.opts", repr(ts.get_printoptions()))
        lib.set_printoptions(precision=2, threshold=5)
        with ts.printoptions(edgeitems=1):
            rec("nested", repr(lib.arange(10, dtype=dt) / 3))
        rec("nested_after", repr(lib.arange(10, dtype=dt) / 3))
        ts.PRINT_OPTS.precision = 6
        rec("print_opts", repr(ts.PRINT_OPTS))
        rec("print_opts_effect", repr(x))
        rec("has_get", repr(hasattr(lib, "get_printoptions")))
    rec("restored", repr(ts.get_printoptions()))


def p_model_outputs(lib, dt, rec):
    nn = lib.nn
    lib.manual_seed(0)
    model = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 3)).to(dt)
    with lib.no_grad():
        for i, p in enumerate(model.parameters()):
            p.copy_(_randn(lib, dt, 80 + i, *p.shape) * 0.5)
    xb = _randn(lib, dt, 90, 5, 4)
    out = model(xb)
    rec("logits", repr(out))
    probs = out.softmax(-1)
    rec("probs", repr(probs))
    rec("argmax", repr(probs.argmax(-1)))
    loss = nn.functional.cross_entropy(out, lib.tensor([0, 1, 2, 1, 0]))
    rec("loss", repr(loss))
    rec("loss_item", f"loss: {loss.item():.4f}")
    loss.backward()
    rec("grad0", repr(model[0].weight.grad))
    with _opts(lib, precision=2, sci_mode=False):
        rec("grad0_p2", repr(model[0].weight.grad))
        rec("bias_p2", repr(model[2].bias))
    rec("no_grad_out", repr(model(xb).detach()[:2]))
    with lib.inference_mode():
        rec("inference", repr(model(xb[:1])))


def p_meta_and_subclass(lib, dt, rec):
    rec("meta", repr(lib.ones(2, 3, device="meta", dtype=dt)))
    rec("meta_int", repr(lib.ones(2, device="meta", dtype=lib.int64)))
    rec("meta_empty", repr(lib.ones(0, device="meta", dtype=dt)))
    rec("meta_0d", repr(lib.ones((), device="meta")))
    rec("meta_rg", repr(lib.ones(2, device="meta", dtype=dt, requires_grad=True)))

    class MyT(lib.Tensor):
        pass

    rec("subclass", repr(lib.ones(2, dtype=dt).as_subclass(MyT)))
    rec("subclass_mul", repr(lib.ones(2, 3, dtype=dt).as_subclass(MyT) * 2))
    rec("subclass_empty", repr(lib.zeros(0, dtype=dt).as_subclass(MyT)))
    rec("contents", lib.ones(2, dtype=dt).__repr__(tensor_contents="XYZ"))
    lib.set_default_device("meta")
    try:
        rec("default_meta", repr(lib.ones(2, device="cpu", dtype=dt)))
    finally:
        lib.set_default_device(None)
    with lib.device("meta"):
        rec("ctx_meta", repr(lib.ones(2, dtype=dt)))


def p_storage_packed(lib, dt, rec):
    rec("untyped", repr(lib.tensor([1.0, 2.0], dtype=dt).untyped_storage()))
    rec("untyped_int16", repr(lib.tensor([1, 2], dtype=lib.int16).untyped_storage()))
    rec("untyped_empty", repr(lib.tensor([], dtype=dt).untyped_storage()))
    rnn = lib.nn.utils.rnn
    seqs = [lib.tensor([1.0, 2.0, 3.0], dtype=dt), lib.tensor([4.0, 5.0], dtype=dt)]
    rec("packed", repr(rnn.pack_sequence(seqs)))
    x = lib.arange(6, dtype=dt).view(3, 2)
    p = rnn.pack_padded_sequence(x, lib.tensor([2, 1]), enforce_sorted=False)
    rec("packed_unsorted", repr(p))
    rec("padded", repr(rnn.pad_packed_sequence(p, batch_first=True)))


def p_set_printoptions_args(lib, dt, rec):
    x = lib.arange(10, dtype=dt) / 3
    with _opts(lib, **{}):
        lib.set_printoptions(3, 5, 1, 40, None, True)
        rec("positional", repr(x) + repr(lib._tensor_str.get_printoptions()))
    with _opts(lib, threshold=float("inf")):
        rec("inf_threshold", repr(lib.arange(1200)[-20:]))
        rec("inf_threshold.opts", repr(lib._tensor_str.get_printoptions()))
    with _opts(lib, linewidth=200):
        rec("wide", repr(_randn(lib, dt, 100, 2, 25)))
    odd = [
        {"linewidth": float("inf")}, {"linewidth": 1e9}, {"linewidth": 80.5}, {"linewidth": -5},
        {"linewidth": 0}, {"threshold": 5.5}, {"threshold": -1}, {"sci_mode": 0},
        {"precision": True}, {"precision": -1}, {"precision": 2.0}, {"profile": "FULL"},
    ]  # fmt: skip
    for options in odd:
        with _opts(lib, **options):
            rec.err(f"odd.{options}", lambda: repr(x.view(2, 5).requires_grad_()) + repr(x[0]))
            rec(f"odd.{options}.opts", repr(lib._tensor_str.get_printoptions()))
    with _opts(lib):
        rec.err("unknown_kw", lambda: lib.set_printoptions(precisionn=3))
        rec.err("too_many", lambda: lib.set_printoptions(1, 2, 3, 4, "short", None, 7))
    rec("reset", repr(lib._tensor_str.get_printoptions()))
