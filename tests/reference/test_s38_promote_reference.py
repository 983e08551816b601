"""Session 38 (helper promote): a systematic type-promotion sweep of minitorch's binary and
ternary pointwise ops, run under torch and minitorch and compared record by record. Users mix
dtypes all the time (int labels, bool masks, half activations, float64 NumPy data), so each
program is a small table of ops times operand kinds: a 1-d tensor of every dtype (bool, uint8,
int8, int16, int32, int64, float16, bfloat16 and the program's float dtype), 0-d tensors (bool,
int64, int32, float16, both float32 and float64), Python bool/int/float and NumPy scalars
(float64, int64, float32, bool_). One record per combination: the result's dtype and values
(exact for integers and bools, the float tolerance otherwise, an ulp of the result's own dtype
for float16/bfloat16 results), or torch's error type and message where torch refuses (bool
subtraction, bitwise ops on floats, integer division by zero's "ZeroDivisionError", in-place
and out= results that cannot be cast, "Integers to negative integer powers are not allowed",
...). The ops: add, sub, mul, div (rounding_mode None/trunc/floor), true_divide, floor_divide,
remainder, fmod, pow, float_power, atan2, hypot, maximum, minimum, fmax, fmin, copysign,
nextafter, logaddexp, logaddexp2, xlogy, ldexp, heaviside, gcd, lcm, the bitwise ops and
shifts, the logical ops, comparisons, eq/ne, isclose, their operators and reflected operators
(2 - x, 2 ** x, 1 << x), rsub, where, clamp with tensor and number bounds, lerp, addcmul,
addcdiv (and value=), add/sub's alpha= of every kind, in-place variants (x.add_(y) with a
wider y, x.bitwise_and_(np.float32(1)), ...), out= of every dtype, ops on two numbers
(torch.add(2, np.bool_(True))), the default dtype float64, torch.result_type for all pairs of
operand kinds, promote_types and can_cast for all dtype pairs (and their argument errors), and
a few realistic programs that mix the kinds (a masked loss over half logits and int labels,
NumPy statistics, a label-smoothing target). float64 must agree to 1e-10 of each record's
scale, float32 to 1e-4; texts exactly.

Found and fixed:
- lerp(x, y, np.bool_(True)), x.lerp_(y, np.bool_), float_power(x, np.bool_) and
  float_power(np.bool_, x) raised "received an invalid combination of arguments"; torch takes a
  NumPy bool for a Number (read as a float), as the other ops here do.
- add/sub's alpha= as a 0-d tensor took part in type promotion (add(int8_t, int8_t,
  alpha=tensor(2, dtype=int16)) was int16, add(x_int32, 2, alpha=tensor(3)) int64); torch's
  parser reads it as a number: the result keeps the operands' dtype. A 0-d bool tensor alpha on
  a half result now raises "Boolean alpha only supported for Boolean results." as a bool does.
- add(x, y, alpha=<a tensor with more than one element>) raised "Boolean value of Tensor with
  more than one value is ambiguous" where x and y share a dtype; sub of bool tensors with such an
  alpha raised the bool-subtraction error. torch: "add(): argument 'alpha' must be Number, not
  Tensor" (its parser's error comes first).
- torch.add/sub/mul/div/floor_divide of two numbers with a NumPy bool among them
  (torch.add(2, np.bool_(True))) raised "argument 'input' must be Tensor"; torch makes a 0-d
  tensor of the default float dtype, as for other NumPy scalars.
- x.bitwise_and_(np.float32(1)) (or np.bool_, in-place &=, |=, ^=) of an integer or bool x raised
  the kernel's NotImplementedError; torch's in-place cast check comes first: "result type Float
  can't be cast to the desired output type Long", as for a Python float.
- x.addcmul_(t, 2), x.addcdiv_(t, 2), x.addr_(v, 2) named tensor2/vec2 "(position 1)"; torch:
  "(position 2)" (the method's position was shifted twice).
- addcdiv(int, int, int, value=<a non-Number>) raised the integer-division RuntimeError before
  torch's "addcdiv(): argument 'value' must be Number, not Tensor".
- clamp(x, tensor, np.float64(2)) (mixed bounds) named the NumPy bound "float" in the
  invalid-combination error; torch names it numpy.float64.
- A shell unsigned 0-d tensor with a dimensioned tensor of another kind
  (tensor(1, dtype=uint16) + tensor([True])) named the 0-d dtype first in "Promotion for uint16,
  uint32, uint64 types is not supported, attempted to promote ..."; torch names the
  dimensioned operand's dtype first ("Bool and UInt16").
- torch.result_type(x, "a") / (x, None) lacked the overload list's "didn't match because ..."
  lines and named a NumPy scalar as float/int; result_type(1), result_type() and
  result_type(x, 2, 3) raised Python's own arity errors, and promote_types(float32) /
  can_cast(float32) / promote_types(a, b, c) Python's wording: now torch's parser messages.

Known and left (documented):
- torch.add(x, y, out=x) where x must grow to the broadcast shape (x 0-d or (2, 1), y (4,)):
  torch's "output with shape [] doesn't match the broadcast shape [4]" (an out= that is also an
  input is not resized); minitorch resizes x (with torch's resize warning). The op's inputs are
  not known where out= is written; x.add_(y) does raise it. Not recorded.
- torch.where(cond, x, 1.0, out=o) (a number operand with out=): torch's out= overload takes
  tensors only ("where(): argument 'other' (position 3) must be Tensor, not float"); minitorch
  computes, and tests/ops/test_layouts.py (not this helper's to change) relies on that. Not
  recorded; out= with tensor operands is.
- NumPy arrays as operands: torch's function forms (torch.add(x, array), torch.eq(x, array))
  refuse them ("must be Tensor, not numpy.ndarray"), and torch's operators hand some of them
  to NumPy (x < array and x & float_array are NumPy's TypeErrors); minitorch computes with
  NumPy's promotion in all these. Only NumPy scalars are recorded here.
- The shell unsigned dtypes uint16/uint32/uint64: torch has no add/sub/lt/max/... kernels for
  them (NotImplementedError) where minitorch computes (see test_s29_uint_reference.py); only
  their promotion errors are recorded.
- The aliases' argument errors name the canonical op: x.arctan2_(1) is "atan2_(): ..."
  (torch: "arctan2_(): ..."), torch.arctan2(x, 1) "atan2(): ...", x.multiply_("a") "mul_(): ..."
  (torch lists multiply_'s overloads). Argument-error naming, not promotion: not recorded.
- Complex operands (torch.result_type(x, 1j) is complex64): minitorch has no complex dtypes.
- torch.result_type(scalar=1, tensor=x) (the keyword names of the Number overloads): minitorch
  takes tensor= and other= only.
- The records run on the CPU only; the strict test device and CuPy are not exercised here."""

from __future__ import annotations

import numpy as np
import pytest

from tests.reference._one_thread import one_torch_thread  # noqa: F401 - an autouse fixture
from tests.reference._programs import assert_program_matches
from tests.reference._programs import seeded_randn as _randn

torch = pytest.importorskip("torch")

PROGRAMS = [
    "arith", "div_modes", "pow", "float_binary", "minmax", "bitwise", "logical", "compare",
    "reflected", "numbers_only", "where", "clamp", "lerp", "addc", "alpha", "inplace_arith",
    "inplace_misc", "out_dtypes", "int_div_zero", "default_float64", "result_type_pairs",
    "promote_can_cast", "shell_uint_errors", "arg_errors", "masked_loss", "numpy_stats",
    "label_smoothing",
]  # fmt: skip


@pytest.mark.parametrize("dt", ["float64", "float32"])
@pytest.mark.parametrize("name", PROGRAMS)
def test_program_matches_torch(name, dt):
    tol = 1e-10 if dt == "float64" else 1e-4
    assert_program_matches(globals()["p_" + name], torch, dt, tol=_tolerance(tol))


def _tolerance(tol):
    """The records' tolerance: `tol`, or a few ulps of the result's own dtype where it is
    narrower than the program's (a float32 result of an int tensor and a Python float in the
    float64 program; float16 and bfloat16 results, which torch and minitorch both compute in
    float32 and round once, but a transcendental's float32 value may round to the neighbouring
    half)."""

    def of(name, a):
        if a.dtype == np.float16:
            return max(tol, 2e-3)
        if "float16" in name:  # (bfloat16 results arrive as float32 arrays)
            return max(tol, 1e-2)
        if a.dtype == np.float32:
            return max(tol, 1e-6)
        return tol

    return of


# --- operand kinds ---

A = [3, -7, 5, 1]  # left operand values
B = [2, 3, -4, 6]  # right operand values
TENSOR_DTYPES = ("bool", "uint8", "int8", "int16", "int32", "int64", "float16", "bfloat16")


def _vals(v, name):
    if name == "bool":
        return [x > 0 for x in v]
    if name == "uint8":
        return [abs(x) for x in v]
    return v


def _other_float(lib, dt):
    return lib.float32 if dt is lib.float64 else lib.float64


def _tensor_kinds(lib, dt, v, zero_dim=True):
    """(name, factory) of the tensor operands: a 1-d tensor of each dtype and of dt, and 0-d
    tensors of bool, int64, int32, float16, dt and the other float dtype."""
    names = (*TENSOR_DTYPES, _name(dt))
    kinds = [(f"t:{n}", lambda n=n: lib.tensor(_vals(v, n), dtype=getattr(lib, n))) for n in names]
    if zero_dim:
        zero = ("bool", "int64", "int32", "float16", _name(dt), _name(_other_float(lib, dt)))
        kinds += [
            (f"0d:{n}", lambda n=n: lib.tensor(_vals(v, n)[0], dtype=getattr(lib, n))) for n in zero
        ]
    return kinds


def _scalar_kinds(s):
    """(name, factory) of the number operands: Python and NumPy scalars."""
    return [
        ("py:bool", lambda: True),
        ("py:int", lambda: s),
        ("py:float", lambda: s + 0.5),
        ("np:float64", lambda: np.float64(s + 0.5)),
        ("np:int64", lambda: np.int64(s)),
        ("np:float32", lambda: np.float32(s + 0.5)),
        ("np:bool", lambda: np.bool_(True)),
    ]


def _kinds(lib, dt, v, s, zero_dim=True):
    return _tensor_kinds(lib, dt, v, zero_dim) + _scalar_kinds(s)


def _name(d):
    return str(d).split(".")[-1]


def _record(rec, name, fn):
    """Records fn()'s result (a tensor: its dtype and values; a number as it is) or its error as
    "Type: message"."""
    try:
        out = fn()
    except Exception as e:  # noqa: BLE001 - the error is the record
        rec(name, f"{type(e).__name__}: {e}")
        return
    rec(name, out)


def _sweep(lib, dt, rec, ops, *, left=None, right=None):
    """Records op(lib, a, b) for each op in `ops` ((name, fn) pairs), a each tensor kind (fresh
    for each call: in-place ops write it) and b each kind."""
    left = _tensor_kinds(lib, dt, A) if left is None else left
    right = _kinds(lib, dt, B, 3) if right is None else right
    for op, fn in ops:
        for na, ma in left:
            for nb, mb in right:
                _record(rec, f"{op}|{na}|{nb}", lambda fn=fn, ma=ma, mb=mb: fn(lib, ma(), mb()))


# --- the sweeps ---


def p_arith(lib, dt, rec):
    ops = [
        ("add", lambda L, a, b: L.add(a, b)),
        ("sub", lambda L, a, b: L.sub(a, b)),
        ("mul", lambda L, a, b: L.mul(a, b)),
        ("div", lambda L, a, b: L.div(a, b)),
        ("true_divide", lambda L, a, b: L.true_divide(a, b)),
        ("+", lambda L, a, b: a + b),
        ("/", lambda L, a, b: a / b),
    ]
    _sweep(lib, dt, rec, ops)


def p_div_modes(lib, dt, rec):
    ops = [
        ("div_trunc", lambda L, a, b: L.div(a, b, rounding_mode="trunc")),
        ("div_floor", lambda L, a, b: L.div(a, b, rounding_mode="floor")),
        ("floor_divide", lambda L, a, b: L.floor_divide(a, b)),
        ("remainder", lambda L, a, b: L.remainder(a, b)),
        ("fmod", lambda L, a, b: L.fmod(a, b)),
        ("//", lambda L, a, b: a // b),
    ]
    _sweep(lib, dt, rec, ops)


def p_pow(lib, dt, rec):
    ops = [
        ("pow", lambda L, a, b: L.pow(a, b)),
        ("**", lambda L, a, b: a**b),
        ("float_power", lambda L, a, b: L.float_power(a, b)),
    ]
    _sweep(lib, dt, rec, ops)
    # number bases: torch.pow(2, x), 2 ** x, float_power(np.bool_, x)
    ops = [
        ("pow_number", lambda L, a, b: L.pow(b, a)),
        ("rpow", lambda L, a, b: b**a),
        ("float_power_number", lambda L, a, b: L.float_power(b, a)),
    ]
    left = _tensor_kinds(lib, dt, [1, 2, 0, 3])
    _sweep(lib, dt, rec, ops, left=left, right=_scalar_kinds(3))


def p_float_binary(lib, dt, rec):
    ops = [
        ("atan2", lambda L, a, b: L.atan2(a, b)),
        ("hypot", lambda L, a, b: L.hypot(a, b)),
        ("copysign", lambda L, a, b: L.copysign(a, b)),
        ("nextafter", lambda L, a, b: L.nextafter(a, b)),
        ("logaddexp", lambda L, a, b: L.logaddexp(a, b)),
        ("logaddexp2", lambda L, a, b: L.logaddexp2(a, b)),
        ("xlogy", lambda L, a, b: L.xlogy(a, b)),
        ("ldexp", lambda L, a, b: L.ldexp(a, b)),
    ]
    _sweep(lib, dt, rec, ops)


def p_minmax(lib, dt, rec):
    ops = [
        ("maximum", lambda L, a, b: L.maximum(a, b)),
        ("minimum", lambda L, a, b: L.minimum(a, b)),
        ("fmax", lambda L, a, b: L.fmax(a, b)),
        ("fmin", lambda L, a, b: L.fmin(a, b)),
        ("heaviside", lambda L, a, b: L.heaviside(a, b)),
    ]
    _sweep(lib, dt, rec, ops)


def p_bitwise(lib, dt, rec):
    ops = [
        ("bitwise_and", lambda L, a, b: L.bitwise_and(a, b)),
        ("bitwise_or", lambda L, a, b: L.bitwise_or(a, b)),
        ("bitwise_xor", lambda L, a, b: L.bitwise_xor(a, b)),
        ("left_shift", lambda L, a, b: L.bitwise_left_shift(a, b)),
        ("right_shift", lambda L, a, b: L.bitwise_right_shift(a, b)),
        ("&", lambda L, a, b: a & b),
        ("^", lambda L, a, b: a ^ b),
        ("<<", lambda L, a, b: a << b),
        ("gcd", lambda L, a, b: L.gcd(a, b)),
        ("lcm", lambda L, a, b: L.lcm(a, b)),
    ]
    right = _kinds(lib, dt, [2, 3, 1, 6], 3)
    _sweep(lib, dt, rec, ops, right=right)


def p_logical(lib, dt, rec):
    ops = [
        ("logical_and", lambda L, a, b: L.logical_and(a, b)),
        ("logical_or", lambda L, a, b: L.logical_or(a, b)),
        ("logical_xor", lambda L, a, b: L.logical_xor(a, b)),
    ]
    _sweep(lib, dt, rec, ops)


def p_compare(lib, dt, rec):
    ops = [
        ("lt", lambda L, a, b: L.lt(a, b)),
        ("ge", lambda L, a, b: L.ge(a, b)),
        ("eq", lambda L, a, b: L.eq(a, b)),
        ("ne", lambda L, a, b: L.ne(a, b)),
        ("isclose", lambda L, a, b: L.isclose(a, b)),
        ("<", lambda L, a, b: a < b),
        ("==", lambda L, a, b: a == b),
    ]
    _sweep(lib, dt, rec, ops)


def p_reflected(lib, dt, rec):
    """A number on the left: 2 - x, 2 / x, 2 ** x, True & x, torch.rsub."""
    ops = [
        ("radd", lambda L, a, b: b + a),
        ("rsub", lambda L, a, b: b - a),
        ("rmul", lambda L, a, b: b * a),
        ("rtruediv", lambda L, a, b: b / a),
        ("rfloordiv", lambda L, a, b: b // a),
        ("rmod", lambda L, a, b: b % a),
        ("rand", lambda L, a, b: b & a),
        ("rlshift", lambda L, a, b: b << a),
        ("torch.rsub", lambda L, a, b: L.rsub(a, b)),
        ("rsub_alpha", lambda L, a, b: L.rsub(a, b, alpha=2)),
    ]
    left = _tensor_kinds(lib, dt, [1, 2, -4, 3])
    _sweep(lib, dt, rec, ops, left=left, right=_scalar_kinds(3))


def p_numbers_only(lib, dt, rec):
    """Ops on two numbers: torch.add(2, np.bool_(True)), torch.div(8, 3, rounding_mode=...)."""
    ops = [
        ("add", lambda L, a, b: L.add(a, b)),
        ("sub", lambda L, a, b: L.sub(a, b)),
        ("mul", lambda L, a, b: L.mul(a, b)),
        ("div", lambda L, a, b: L.div(a, b)),
        ("div_floor", lambda L, a, b: L.div(a, b, rounding_mode="floor")),
        ("floor_divide", lambda L, a, b: L.floor_divide(a, b)),
        ("maximum", lambda L, a, b: L.maximum(a, b)),
        ("pow", lambda L, a, b: L.pow(a, b)),
        ("result_type", lambda L, a, b: L.result_type(a, b)),
    ]
    _sweep(lib, dt, rec, ops, left=_scalar_kinds(8), right=_scalar_kinds(3))


def p_where(lib, dt, rec):
    ops = [
        ("where", lambda L, a, b: L.where(L.tensor([True, False, True, False]), a, b)),
        ("where_0d", lambda L, a, b: L.where(L.tensor(False), a, b)),
        ("Tensor.where", lambda L, a, b: a.where(L.tensor([True, False, True, False]), b)),
        ("where_rev", lambda L, a, b: L.where(L.tensor([False, True, True, False]), b, a)),
    ]
    _sweep(lib, dt, rec, ops)
    # a condition that is no bool tensor
    for name, make in _tensor_kinds(lib, dt, [1, 0, 2, 0]):
        _record(rec, f"where_cond|{name}", lambda m=make: lib.where(m(), 1.0, 0.0))


def p_clamp(lib, dt, rec):
    ops = [
        ("clamp_min", lambda L, a, b: L.clamp(a, min=b)),
        ("clamp_max", lambda L, a, b: L.clamp(a, max=b)),
        ("clamp_both", lambda L, a, b: L.clamp(a, b, b)),
        ("clamp_min_fn", lambda L, a, b: L.clamp_min(a, b)),
        ("clip", lambda L, a, b: L.clip(a, None, b)),
    ]
    _sweep(lib, dt, rec, ops)
    # tensor bounds of two other dtypes
    x = lib.tensor([-3, 0, 2, 9], dtype=lib.int32)
    h = lib.tensor([-1.5, 0.25, 2.5, 7.0], dtype=lib.float16)
    for nlo, lo in _tensor_kinds(lib, dt, [-2, 1, 0, 1])[::2]:
        for nhi, hi in _tensor_kinds(lib, dt, [4, 6, 1, 5])[1::2]:
            _record(rec, f"bounds|int32|{nlo}|{nhi}", lambda lo=lo, hi=hi: lib.clamp(x, lo(), hi()))
            _record(rec, f"bounds|half|{nlo}|{nhi}", lambda lo=lo, hi=hi: lib.clamp(h, lo(), hi()))
    _record(rec, "mixed_np", lambda: lib.clamp(h, lib.tensor(0.5), np.float64(2)))
    _record(rec, "mixed_np_1d", lambda: lib.clamp(h, lib.ones(4), np.float64(2)))
    _record(rec, "mixed_np_int", lambda: lib.clamp(h, np.int64(0), lib.ones(4)))
    _record(rec, "mixed_np_", lambda: h.clone().clamp_(lib.ones(4), np.float32(2)))


def p_lerp(lib, dt, rec):
    start = _tensor_kinds(lib, dt, A)
    end_kinds = _tensor_kinds(lib, dt, B)
    weights = _kinds(lib, dt, [0.25, 0.5, 0.75, 1.0], 0) + [("np:bool_false", lambda: np.bool_(0))]
    for na, ma in start:
        for nw, mw in weights:
            _record(rec, f"lerp|{na}|{nw}", lambda ma=ma, mw=mw: lib.lerp(ma(), ma() * 2, mw()))
            _record(rec, f"lerp_|{na}|{nw}", lambda ma=ma, mw=mw: ma().lerp_(ma() * 2, mw()))
        for nb, mb in end_kinds:
            _record(rec, f"lerp_end|{na}|{nb}", lambda ma=ma, mb=mb: lib.lerp(ma(), mb(), 0.5))


def p_addc(lib, dt, rec):
    ops = [
        ("addcmul", lambda L, a, b: L.addcmul(a, b, b)),
        ("addcdiv", lambda L, a, b: L.addcdiv(a, b, b)),
        ("addcmul_t1", lambda L, a, b: L.addcmul(a, b, a)),
        ("addcdiv_t2", lambda L, a, b: L.addcdiv(a, a, b)),
        ("addcmul_value", lambda L, a, b: L.addcmul(a, a, a, value=b)),
        ("addcdiv_value", lambda L, a, b: L.addcdiv(a, a, a, value=b)),
        ("addcmul_", lambda L, a, b: a.addcmul_(b, b)),
        ("addcdiv_", lambda L, a, b: a.addcdiv_(b, b)),
    ]
    _sweep(lib, dt, rec, ops, right=_kinds(lib, dt, [2, 3, -4, 6], 3, zero_dim=False))


def p_alpha(lib, dt, rec):
    """add/sub's alpha= of every kind: numbers, NumPy scalars, 0-d tensors (read as numbers:
    no promotion operand), a tensor with elements (torch's parser refuses it)."""
    ops = [
        ("add_alpha", lambda L, a, b: L.add(a, a, alpha=b)),
        ("sub_alpha", lambda L, a, b: L.sub(a, a * 0 + 1 if a.dtype is not L.bool else a, alpha=b)),
        ("add_number_alpha", lambda L, a, b: L.add(a, 2, alpha=b)),
        ("Tensor.add_alpha", lambda L, a, b: a.add(a, alpha=b)),
        ("add_alpha_", lambda L, a, b: a.add_(a, alpha=b)),
    ]
    _sweep(lib, dt, rec, ops)
    x = lib.tensor([1.0, 2.0], dtype=lib.float16)
    _record(rec, "half_0d_bool", lambda: lib.add(x, x, alpha=lib.tensor(True)))
    _record(rec, "half_np_bool", lambda: lib.add(x, x, alpha=np.bool_(True)))
    _record(rec, "numbers_0d_alpha", lambda: lib.add(np.float64(2.5), 1, alpha=lib.tensor(2.0)))
    m = lib.tensor([True, False])
    _record(rec, "bool_sub_1d_alpha", lambda: lib.sub(m, m, alpha=lib.tensor([1, 2])))
    _record(rec, "bool_sub_alpha", lambda: lib.sub(m, m, alpha=2))


def p_inplace_arith(lib, dt, rec):
    """x.op_(y) with y of every kind: a wider y's result type cannot be cast into x."""
    ops = [
        ("add_", lambda L, a, b: a.add_(b)),
        ("sub_", lambda L, a, b: a.sub_(b)),
        ("mul_", lambda L, a, b: a.mul_(b)),
        ("div_", lambda L, a, b: a.div_(b)),
        ("div_floor_", lambda L, a, b: a.div_(b, rounding_mode="floor")),
        ("pow_", lambda L, a, b: a.pow_(b)),
        ("+=", lambda L, a, b: a.__iadd__(b)),
        ("/=", lambda L, a, b: a.__itruediv__(b)),
    ]
    _sweep(lib, dt, rec, ops)


def p_inplace_misc(lib, dt, rec):
    ops = [
        ("remainder_", lambda L, a, b: a.remainder_(b)),
        ("floor_divide_", lambda L, a, b: a.floor_divide_(b)),
        ("bitwise_and_", lambda L, a, b: a.bitwise_and_(b)),
        ("^=", lambda L, a, b: a.__ixor__(b)),
        ("<<=", lambda L, a, b: a.__ilshift__(b)),
        ("logical_and_", lambda L, a, b: a.logical_and_(b)),
        ("lt_", lambda L, a, b: a.lt_(b)),
        ("eq_", lambda L, a, b: a.eq_(b)),
        ("clamp_", lambda L, a, b: a.clamp_(min=b)),
        ("maximum_self", lambda L, a, b: _max_into(L, a, b)),
        ("copysign_", lambda L, a, b: a.copysign_(b)),
        ("atan2_", lambda L, a, b: a.atan2_(b)),
    ]
    right = _kinds(lib, dt, [2, 3, 1, 6], 3)
    _sweep(lib, dt, rec, ops, right=right)


def _max_into(lib, a, b):
    """maximum(a, b, out=a) where out= needs no resizing (an out= that is an input and must
    grow: see Known and left); 0 for a number b (maximum takes none)."""
    if not isinstance(b, lib.Tensor) or b.dim() > a.dim():
        return 0
    return lib.maximum(a, b, out=a)


def p_out_dtypes(lib, dt, rec):
    """op(x, y, out=o) with o of each dtype (of the result's shape): a result type that cannot be
    cast into o is torch's RuntimeError; a wider o takes the values."""
    outs = [(n, getattr(lib, n)) for n in (*TENSOR_DTYPES, _name(dt))]
    operands = [
        ("int64", lambda: lib.tensor([3, -7, 5, 1])),
        ("float", lambda: lib.tensor([3.5, -7.0, 5.25, 1.0], dtype=dt)),
        ("bool", lambda: lib.tensor([True, False, True, True])),
        ("half", lambda: lib.tensor([3.5, -7.0, 5.25, 1.0], dtype=lib.float16)),
    ]
    ops = [
        ("add", lambda a, o: lib.add(a, 2, out=o)),
        ("mul_float", lambda a, o: lib.mul(a, 1.5, out=o)),
        ("div", lambda a, o: lib.div(a, 2, out=o)),
        ("div_floor", lambda a, o: lib.div(a, 2, rounding_mode="floor", out=o)),
        ("eq", lambda a, o: lib.eq(a, 1, out=o)),
        ("maximum", lambda a, o: lib.maximum(a, lib.zeros(4, dtype=lib.int8), out=o)),
        ("bitwise_and", lambda a, o: lib.bitwise_and(a, True, out=o)),
        ("pow", lambda a, o: lib.pow(a, 2, out=o)),
        ("atan2", lambda a, o: lib.atan2(a, lib.ones(4, dtype=dt), out=o)),
        ("where", lambda a, o: lib.where(lib.tensor([True, False] * 2), a, lib.tensor(0), out=o)),
        ("clamp", lambda a, o: lib.clamp(a, lib.zeros(4), lib.ones(4) * 3, out=o)),
    ]
    for op, fn in ops:
        for na, ma in operands:
            for no, do in outs:
                name = f"{op}|{na}|out:{no}"
                _record(rec, name, lambda fn=fn, ma=ma, do=do: fn(ma(), lib.zeros(4, dtype=do)))


def p_int_div_zero(lib, dt, rec):
    """Integer division by zero: torch's RuntimeError "ZeroDivisionError" (float division gives
    inf/nan; bool floor division has no kernel; an in-place cast check comes first)."""
    ints = [
        (n, lambda n=n: lib.tensor(_vals([5, -7, 0, 3], n), dtype=getattr(lib, n)))
        for n in ("uint8", "int8", "int16", "int32", "int64", "bool")
    ]
    zeros = [
        ("py:0", lambda: 0),
        ("t:int64", lambda: lib.zeros(4, dtype=lib.int64)),
        ("0d:int32", lambda: lib.tensor(0, dtype=lib.int32)),
        ("np:int64", lambda: np.int64(0)),
        ("py:0.0", lambda: 0.0),
        ("0d:float", lambda: lib.tensor(0.0, dtype=dt)),
        ("t:bool", lambda: lib.zeros(4, dtype=lib.bool)),
    ]
    ops = [
        ("//", lambda a, b: a // b),
        ("%", lambda a, b: a % b),
        ("/", lambda a, b: a / b),
        ("div_trunc", lambda a, b: lib.div(a, b, rounding_mode="trunc")),
        ("fmod", lambda a, b: lib.fmod(a, b)),
        ("remainder", lambda a, b: lib.remainder(a, b)),
        ("floor_divide_", lambda a, b: a.floor_divide_(b)),
        ("div_", lambda a, b: a.div_(b)),
        ("fmod_", lambda a, b: a.fmod_(b)),
        ("remainder_", lambda a, b: a.remainder_(b)),
    ]
    for op, fn in ops:
        for na, ma in ints:
            for nb, mb in zeros:
                _record(rec, f"{op}|{na}|{nb}", lambda fn=fn, ma=ma, mb=mb: fn(ma(), mb()))


def p_default_float64(lib, dt, rec):
    """The arithmetic sweep's number cases under set_default_dtype(float64): int / int and a
    Python float with an integer tensor go to the default float."""
    prev = lib.get_default_dtype()
    lib.set_default_dtype(dt)
    try:
        ops = [
            ("div", lambda L, a, b: L.div(a, b)),
            ("mul", lambda L, a, b: L.mul(a, b)),
            ("atan2", lambda L, a, b: L.atan2(a, b)),
            ("pow", lambda L, a, b: L.pow(a, b)),
            ("float_power", lambda L, a, b: L.float_power(a, b)),
        ]
        left = _tensor_kinds(lib, dt, [1, 2, 4, 3], zero_dim=False)
        _sweep(lib, dt, rec, ops, left=left, right=_scalar_kinds(2))
        rec("numbers", lib.add(np.float64(2.5), np.bool_(True)))
        rec("result_type", str(lib.result_type(lib.tensor([1]), 2.5)))
    finally:
        lib.set_default_dtype(prev)


def p_result_type_pairs(lib, dt, rec):
    kinds = _kinds(lib, dt, [1, 2], 2) + [("str", lambda: "a"), ("none", lambda: None)]
    kinds += [("t:uint16", lambda: lib.zeros(2, dtype=lib.uint16))]
    for na, ma in kinds:
        for nb, mb in kinds:
            _record(rec, f"{na}|{nb}", lambda ma=ma, mb=mb: str(lib.result_type(ma(), mb())))
    x = lib.ones(2)
    _record(rec, "one", lambda: lib.result_type(1))
    _record(rec, "none", lambda: lib.result_type())
    _record(rec, "three", lambda: lib.result_type(x, 2, 3))
    _record(rec, "keyword_only", lambda: lib.result_type(tensor=x))
    _record(rec, "keywords", lambda: str(lib.result_type(other=x, tensor=x.double())))
    _record(rec, "other_keyword", lambda: str(lib.result_type(x, other=2)))


def p_promote_can_cast(lib, dt, rec):
    names = (*TENSOR_DTYPES, "float32", "float64", "uint16", "uint32", "uint64")
    for a in names:
        for b in names:
            da, db = getattr(lib, a), getattr(lib, b)
            _record(rec, f"promote|{a}|{b}", lambda da=da, db=db: str(lib.promote_types(da, db)))
            _record(rec, f"can_cast|{a}|{b}", lambda da=da, db=db: lib.can_cast(da, db))
    f32 = lib.float32
    _record(rec, "promote_one", lambda: lib.promote_types(f32))
    _record(rec, "promote_none", lambda: lib.promote_types())
    _record(rec, "promote_three", lambda: lib.promote_types(f32, f32, 1))
    _record(rec, "promote_int", lambda: lib.promote_types(f32, 1))
    _record(rec, "promote_keywords", lambda: str(lib.promote_types(type2=lib.int8, type1=f32)))
    _record(rec, "can_cast_one", lambda: lib.can_cast(f32))
    _record(rec, "can_cast_none", lambda: lib.can_cast())
    _record(rec, "can_cast_three", lambda: lib.can_cast(f32, f32, 1))
    _record(rec, "can_cast_str", lambda: lib.can_cast(f32, "a"))
    _record(rec, "can_cast_keywords", lambda: lib.can_cast(from_=f32, to=lib.int8))


def p_shell_uint_errors(lib, dt, rec):
    """Promotion of the shell unsigned dtypes with another integer or bool kind: torch's
    RuntimeError, the dimensioned operand's dtype named first."""
    for u in ("uint16", "uint32", "uint64"):
        du = getattr(lib, u)
        for n in ("bool", "uint8", "int32", "int64"):
            d = getattr(lib, n)
            pairs = [
                ("t_t", lambda du=du, d=d: lib.ones(2, dtype=du) * lib.ones(2, dtype=d)),
                ("0d_t", lambda du=du, d=d: lib.ones((), dtype=du) * lib.ones(2, dtype=d)),
                ("t_0d", lambda du=du, d=d: lib.ones(2, dtype=d) * lib.ones((), dtype=du)),
                ("t0d_t", lambda du=du, d=d: lib.ones(2, dtype=du) * lib.ones((), dtype=d)),
                ("eq", lambda du=du, d=d: lib.eq(lib.ones((), dtype=du), lib.ones(2, dtype=d))),
                ("where", lambda du=du, d=d: lib.where(
                    lib.ones(2, dtype=lib.bool), lib.ones((), dtype=du), lib.ones(2, dtype=d))),
            ]  # fmt: skip
            for name, fn in pairs:
                _record(rec, f"{u}|{n}|{name}", fn)
        _record(rec, f"{u}|float", lambda du=du: lib.ones(2, dtype=du) * lib.ones(2, dtype=dt))
        _record(rec, f"{u}|py_float", lambda du=du: lib.ones(2, dtype=du) * 1.5)


def p_arg_errors(lib, dt, rec):
    x = lib.ones(3, dtype=dt)
    i = lib.tensor([1, 2, 3])
    cases = [
        ("addcmul_t2", lambda: x.clone().addcmul_(x, 2)),
        ("addcmul_t1", lambda: x.clone().addcmul_(2, x)),
        ("addcdiv_t2", lambda: x.clone().addcdiv_(x, 2.5)),
        ("addcdiv_t1", lambda: x.clone().addcdiv_("a", x)),
        ("addr_vec2", lambda: lib.ones(3, 3, dtype=dt).addr_(x, 2)),
        ("atan2_", lambda: x.clone().atan2_(1)),
        ("addcmul_fn", lambda: lib.addcmul(x, x, 2)),
        ("addcdiv_value_tensor", lambda: lib.addcdiv(i, i, i, value=lib.tensor([1]))),
        ("addcdiv_value_str", lambda: lib.addcdiv(i, i, i, value="a")),
        ("addcdiv_int", lambda: lib.addcdiv(i, i, i)),
        ("addcdiv_value_0d", lambda: lib.addcdiv(x, i, i, value=lib.tensor(2.0))),
        ("addcmul_float_value_int", lambda: lib.addcmul(i, i, i, value=2.5)),
        ("addcmul_bool_value", lambda: lib.addcmul(x, x, x, value=True)),
        ("clamp_np_mixed", lambda: lib.clamp(x, x, np.float64(2))),
        ("clamp_np_mixed_min", lambda: lib.clamp(x, np.float32(2), x)),
        ("clamp_np_int_mixed", lambda: lib.clamp(x, np.int64(2), x)),
        ("clamp__np_mixed", lambda: x.clone().clamp_(x, np.float64(1))),
        ("clamp_str", lambda: lib.clamp(x, "a")),
        ("lerp_str", lambda: lib.lerp(x, x, "a")),
        ("lerp_int", lambda: lib.lerp(i, i, 0.5)),
        ("lerp_np_bool_int", lambda: lib.lerp(i, i, np.bool_(True))),
        ("lerp_dtypes", lambda: lib.lerp(x, x.half(), 0.5)),
        ("lerp_weight_dtype", lambda: lib.lerp(x, x, x.half())),
        ("float_power_str", lambda: lib.float_power(x, "a")),
        ("float_power_numbers", lambda: lib.float_power(2, np.bool_(True))),
        ("add_alpha_str", lambda: lib.add(x, x, alpha="a")),
        ("add_alpha_1d", lambda: lib.add(x, x, alpha=lib.ones(3))),
        ("add_alpha_float_int", lambda: lib.add(i, i, alpha=0.5)),
        ("add_alpha_0d_float_int", lambda: lib.add(i, i, alpha=lib.tensor(0.5))),
        ("add_alpha_bool_float", lambda: lib.add(x, x, alpha=True)),
        ("sub_bool", lambda: lib.tensor([True]) - lib.tensor([False])),
        ("sub_bool_number", lambda: lib.tensor([True]) - 1),
        ("rsub_bool", lambda: 1 - lib.tensor([True])),
        ("neg_pow", lambda: i**-1),
        ("neg_pow_tensor", lambda: lib.pow(i, lib.tensor([-1, 2, 1]))),
        ("neg_pow_number", lambda: lib.pow(2, lib.tensor([-1, 2]))),
        ("bitwise_float", lambda: x & x),
        ("bitwise_float_number", lambda: i & 1.5),
        ("shift_float", lambda: x << 1),
        ("gcd_float", lambda: lib.gcd(x, x)),
        ("xlogy_bool", lambda: lib.xlogy(lib.tensor([True]), lib.tensor([True]))),
    ]
    for name, fn in cases:
        _record(rec, name, fn)


# --- realistic programs ---


def p_masked_loss(lib, dt, rec):
    """A token-level loss over half-precision logits, int64 labels and a bool padding mask, the
    way mixed-precision training code mixes the kinds."""
    logits = _randn(lib, dt, 0, 4, 6, 5).half()
    labels = lib.tensor(
        [[1, 0, 4, 2, 3, 0], [2, 2, 1, 0, 4, 4], [0, 3, 3, 1, 2, 1], [4, 0, 1, 1, 2, 3]]
    )
    mask = lib.arange(6) < lib.tensor([[6], [4], [2], [5]])
    rec("mask", mask)
    logp = logits.to(dt).log_softmax(-1)
    picked = logp.gather(-1, labels.unsqueeze(-1)).squeeze(-1)
    rec("picked", picked)
    loss = -(picked * mask).sum() / mask.sum()
    rec("loss", loss)
    rec("count", mask.sum())
    rec("frac", mask.sum() / mask.numel())
    rec("mean_int", labels.float().mean())
    rec("weighted", (labels * 0.5 + mask).sum(-1))
    rec("half_plus_mask", logits[..., 0] + mask)
    rec("half_times_int", logits[..., 0] * labels)
    rec("half_plus_0d", logits[..., 0] + lib.tensor(1.0, dtype=dt))
    rec("half_plus_np", logits[..., 0] + np.float64(1.0) / 3)
    rec("mask_inv", ~mask & (labels > 1))
    rec("mask_where", lib.where(mask, picked, lib.tensor(float("nan"), dtype=dt)).nansum())
    rec("label_eq", (logits.argmax(-1) == labels).float().mean())
    rec("scaled", logits[0, 0] * np.float32(0.125))
    acc = lib.zeros(4, dtype=lib.int64)
    acc += mask.sum(-1)
    rec("acc", acc)
    rec.err("acc_float", lambda: acc.add_(0.5))
    rec.err("mask_float", lambda: mask.clone().mul_(0.5))


def p_numpy_stats(lib, dt, rec):
    """Statistics from NumPy (float64 scalars, int64 counts, np.bool_ flags) applied to tensors
    of the program's dtype, to int labels and to uint8 images."""
    data = np.linspace(-2.0, 3.0, 12).reshape(3, 4)
    mean, std, n = data.mean(), data.std(), np.int64(data.size)
    flag = np.bool_(data.min() < 0)
    x = lib.tensor([[0.5, 1.5, -2.0, 3.0], [1.0, 0.0, 2.5, -1.0]], dtype=dt)
    img = lib.tensor([[0, 128, 255, 17], [9, 200, 31, 64]], dtype=lib.uint8)
    labels = lib.tensor([0, 3, 1, 2])
    rec("norm", (x - mean) / std)
    rec("img_norm", (img - mean) / std)
    rec("img_scale", img / np.float32(255))
    rec("img_int", img * np.int64(2))
    rec("img_plus", img + n)
    rec("labels_div", labels / n)
    rec("labels_fdiv", labels // np.int64(2))
    rec("labels_pow", labels ** np.float64(0.5))
    rec("flag_mul", x * flag)
    rec("flag_add", labels + flag)
    rec("flag_and", (labels > 0) & bool(flag))
    rec("clamp_np", lib.clamp(x, np.float64(-1.0), np.float64(2.0)))
    rec("clamp_img", lib.clamp(img, np.int64(10), np.int64(100)))
    rec("where_np", lib.where(x > 0, x, np.float64(0.25)))
    rec("lerp_np", lib.lerp(x, x * 2, np.float64(0.25)))
    rec("max_np", lib.maximum(x, lib.tensor(mean)))
    rec("pow_np", lib.pow(np.float64(2.0), labels))
    rec("isclose", lib.isclose(x, lib.tensor(data[:2, :4], dtype=dt), atol=np.float64(1.0)))
    y = x.clone()
    y.mul_(np.float64(2.5)).add_(np.int64(1)).div_(np.float32(4.0))
    rec("inplace_np", y)
    z = img.clone()
    rec.err("img_inplace_float", lambda: z.mul_(np.float64(0.5)))
    rec("img_inplace_int", z.add_(np.int64(3)))


def p_label_smoothing(lib, dt, rec):
    """One-hot targets from int labels, smoothed with a Python float, blended with bool masks."""
    labels = lib.tensor([2, 0, 1, 3, 3])
    onehot = labels.unsqueeze(1) == lib.arange(4)
    rec("onehot", onehot)
    eps = 0.1
    target = onehot * (1 - eps) + eps / 4
    rec("target", target)
    target64 = onehot.to(dt) * (1 - eps) + lib.tensor(eps / 4, dtype=lib.float64)
    rec("target64", target64)
    logits = _randn(lib, dt, 3, 5, 4)
    loss = -(target.to(dt) * logits.log_softmax(-1)).sum(-1)
    rec("loss", loss)
    rec("sum_bool", onehot.sum(0))
    rec("bool_add", onehot + onehot)
    rec("bool_mul_int", onehot * 3)
    rec("bool_mul_0d_half", onehot * lib.tensor(0.5, dtype=lib.float16))
    rec("bool_div", onehot / 2)
    rec("int_div", labels / 2)
    rec("int_true_div_tensor", labels / labels.clamp(min=1))
    rec("int_floor", labels // 2)
    rec("int_half", labels * lib.ones(5, dtype=lib.float16))
    rec("int_bf16", labels + lib.ones(5, dtype=lib.bfloat16))
    rec("half_bf16", lib.ones(5, dtype=lib.float16) + lib.ones(5, dtype=lib.bfloat16))
    rec("int8_uint8", lib.tensor([-1, 2], dtype=lib.int8) + lib.tensor([200, 3], dtype=lib.uint8))
    rec("uint8_wrap", lib.tensor([250, 3], dtype=lib.uint8) + 10)
    rec("int8_0d_int64", lib.tensor([100, 3], dtype=lib.int8) + lib.tensor(100))
    rec("int32_big", lib.tensor([1, 2], dtype=lib.int32) * 2**31)
