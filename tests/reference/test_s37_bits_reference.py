"""Session 37 (helper bits): integer bit-manipulation programs written the way users write them
in torch, run under torch and minitorch with the same seeds and compared record by record:
bitwise and/or/xor/not and &, |, ^, ~ over every pair of bool/uint8/int8/int16/int32/int64 (the
promoted dtypes, Python ints and bools as weak scalars, 0-d tensors); left and right shifts
(arithmetic shifts of negatives, counts past the width or negative, uint8 shifts, bit planes);
bool masks packed into uint8 and int64 words (powers of two, shifts and sums) and unpacked;
popcount by lookup tables and SWAR; Gray codes; multiply-shift, murmur, FNV and xorshift64*
hashes with int64 wrap-around; remainder/fmod/floor_divide/div(rounding_mode) of negatives;
random-projection LSH and SimHash fingerprints; Bloom filters by index_put_/scatter_/index_fill_
on bool tensors and counting filters; in-place &=, |=, ^=, <<=, >>= (views, broadcasting, and
their cast errors); out=; torch.iinfo; float bits reinterpreted by view (sign, exponent, the
fast inverse square root, total-order keys); 4-bit weight packing; Morton codes; bitsets;
Adler-32 and CRC-32; ints past int64 as operands; the shell unsigned dtypes; float operands
that require grad; and sweeps of the argument errors of the bitwise, remainder and floor_divide
functions and methods. float64 must agree to 1e-10 of each record's scale, float32 to 1e-4;
integers exactly; texts exactly.

Found and fixed:
- A Python int outside [-2**63, 2**64) beside an int8/int16/int32/uint8 tensor (t & 2**70,
  t + 2**64, t.add_(2**64), t |= 2**65) was silently wrapped into the dtype; torch's parser
  raises CPython's OverflowError ("int too big to convert" / "can't convert negative int to
  unsigned"), now raised by wrap_int (add's alpha * other, a product the kernel forms, still
  wraps). Shifts by such an int (t << 2**64) gave 0s, and 2**64 << t NumPy's "Python int too
  large to convert to C long"; 2**63 << t now wraps into int64 as torch reads it.
- Shifts and bitwise_not of uint16/uint32/uint64 computed; torch has no kernels for them:
  NotImplementedError '"lshift_cpu" not implemented for 'UInt16'' (rshift_cpu, bitwise_not_cpu).
- bitwise_left_shift/bitwise_right_shift with an operand of no type they take (two ints, a str,
  None) named the argument; torch lists the three overloads (function) or two (method), as for
  bitwise_and.
- The bitwise functions and methods, remainder and floor_divide with an operand left out or an
  extra one (torch.bitwise_and(t), t.remainder(), t.bitwise_xor_(1, 2)) gave Python's "missing
  1 required positional argument"; torch's overload list now (floor_divide(t, 2, 3): its count).
  bitwise_not() and bitwise_not(t, t) as torch words them.
- out= on the bitwise functions: out of no tensor type, or beside a number input, is torch's
  overload list (was "argument 'out' must be Tensor" after computing, or no error at all);
  float operands with an integer out give "result type Float can't be cast to the desired
  output type Long" before the kernel's NotImplementedError (bitwise_not: "Found dtype Long but
  expected Float").
- Float operands of shapes that don't broadcast (t.bitwise_and(f), t.bitwise_or_(f), t << f):
  torch's size-mismatch RuntimeError comes before the dtype refusal.
- x.bitwise_and_("a") (and the other in-place bitwise methods) listed the function's overloads
  under the function's name: the method lookup of argument errors now reaches the extra frame
  of these methods, so torch's "bitwise_and_() ... (Tensor other) / (Number other)" is given.
- torch.iinfo(), iinfo(dtype=...), iinfo(t, t) and iinfo(t, x=1): torch's binding messages.

Known and left (documented):
- A float tensor plus an int past 2**64 (x + 2**64) gives a result; torch raises the same
  OverflowError. The float path of a number operand has no range check (hot path); not recorded.
- out= overlapping an input partly (bitwise_and(y[1:], y[:-1], out=y[:-1])) is written as NumPy
  computes it; torch refuses ("unsupported operation: some elements of the input tensor and the
  written-to tensor refer to a single memory location"), for every pointwise op. Not recorded.
- floor_divide/remainder of the shell unsigned dtypes compute where torch raises (see
  tests/reference/test_s29_uint_reference.py); no complex dtypes, so complex operands raise
  minitorch's own TypeError; unknown keywords (bitwise_and(t, t, alpha=2)) and duplicate ones
  are Python's messages; Tensor.bitwise_not(2) is Python's count, not "TensorBase.bitwise_not()
  takes no arguments (1 given)"; iinfo instances are unhashable under the name 'iinfo', torch's
  'torch.iinfo'. Not recorded.
- torch.tensor([-2**63]).div(-1, rounding_mode="trunc") kills torch's process (SIGFPE); not
  recorded (minitorch gives -2**63, as floor does). NumPy interop (t & np.array, np.uint64
  operands) follows NumPy's rules in torch and is not recorded."""

from __future__ import annotations

import pytest

from tests.reference._one_thread import one_torch_thread  # noqa: F401 - an autouse fixture
from tests.reference._programs import assert_calls_match, assert_program_matches, run_calls
from tests.reference._programs import seeded_gen as _gen
from tests.reference._programs import seeded_randn as _randn

torch = pytest.importorskip("torch")


PROGRAMS = [
    "ops_dtypes", "promotion_scalars", "float_errors", "shifts", "shift_uint8",
    "pack_bool", "unpack", "popcount", "gray_code", "mult_shift_hash", "int_division",
    "lsh", "bloom", "inplace_ops", "inplace_errors", "out_ops", "iinfo", "grad_errors",
    "big_scalars", "shell_uints", "float_bits", "nibble_pack", "morton", "xorshift",
    "bitsets", "simhash", "checksums", "byte_hash",
]  # fmt: skip

CALLS = ["bitwise_calls", "method_calls", "out_calls", "division_calls"]

INTS = ("bool", "uint8", "int8", "int16", "int32", "int64")


@pytest.mark.parametrize("dt", ["float64", "float32"])
@pytest.mark.parametrize("name", PROGRAMS)
def test_program_matches_torch(name, dt):
    assert_program_matches(globals()["p_" + name], torch, dt)


@pytest.mark.parametrize("name", CALLS)
def test_calls_match_torch(name):
    assert_calls_match(globals()["p_" + name], torch)


def _ints(lib, seed, shape, lo, hi, dtype):
    return lib.randint(lo, hi, shape, generator=_gen(lib, seed), dtype=dtype)


def p_ops_dtypes(lib, dt, rec):
    """Each bitwise op on each pair of integer dtypes: the result and its promoted dtype."""
    vals = {
        "bool": lib.tensor([True, False, True, False]),
        "uint8": lib.tensor([0, 255, 170, 15], dtype=lib.uint8),
        "int8": lib.tensor([-128, 127, -1, 85], dtype=lib.int8),
        "int16": lib.tensor([-32768, 32767, -2, 300], dtype=lib.int16),
        "int32": lib.tensor([-(2**31), 2**31 - 1, -7, 123456], dtype=lib.int32),
        "int64": lib.tensor([-(2**63), 2**63 - 1, -9, 2**40 + 5], dtype=lib.int64),
    }
    for na, a in vals.items():
        rec(f"not.{na}", ~a)
        rec(f"bnot.{na}", lib.bitwise_not(a))
        for nb, b in vals.items():
            rec(f"and.{na}.{nb}", a & b)
            rec(f"or.{na}.{nb}", lib.bitwise_or(a, b))
            rec(f"xor.{na}.{nb}", a.bitwise_xor(b))
    x = _randn(lib, dt, 0, 4)
    rec("float_mask", (x > 0) & (x < 1))
    rec("float_mask_or", (x > 0) | lib.tensor(True))
    rec("float_mask_xor", (x > 0) ^ (x < 0.5))


def p_promotion_scalars(lib, dt, rec):
    """Python ints and bools with integer tensors: no widening within the category, overflow of
    the scalar, 0-d tensors taking part in promotion as scalars."""
    for name in INTS:
        t = lib.tensor([1, 0, 1], dtype=getattr(lib, name))
        rec(f"and1.{name}", t & 1)
        rec(f"rand1.{name}", 1 & t)
        rec(f"orTrue.{name}", t | True)
        rec(f"xor3.{name}", 3 ^ t)
        rec(f"xor_0d.{name}", t ^ lib.tensor(3))
        rec(f"xor_0d8.{name}", t ^ lib.tensor(3, dtype=lib.uint8))
    u = lib.tensor([1, 2, 200], dtype=lib.uint8)
    rec("u_and_big", u & 511)
    rec("u_or_neg", u | -1)
    i8 = lib.tensor([1, -2, 100], dtype=lib.int8)
    rec("i8_xor_neg", i8 ^ -128)
    rec("i8_and_big", i8 & 300)
    rec("i8_or_1000", lib.bitwise_or(i8, 1000))
    rec("scalar_first", lib.bitwise_and(5, lib.tensor([3, 6])))
    rec("u8_i8", u & lib.tensor([-1, 2, -3], dtype=lib.int8))
    rec("b_i8", lib.tensor([True, False, True]) | lib.tensor([4, 5, -6], dtype=lib.int8))
    rec("result_type", str(lib.result_type(u, -1)))
    rec("promote", str(lib.promote_types(lib.uint8, lib.int8)))


def p_float_errors(lib, dt, rec):
    """Float operands to bitwise ops and shifts: torch's exact errors."""
    x = _randn(lib, dt, 1, 3)
    i = lib.tensor([1, 2, 3])
    rec.err("and_ff", lambda: x & x)
    rec.err("and_fi", lambda: x & i)
    rec.err("and_if", lambda: i & x)
    rec.err("or_fs", lambda: x | 1)
    rec.err("xor_if", lambda: i ^ 1.5)
    rec.err("not_f", lambda: ~x)
    rec.err("fn_not_f", lambda: lib.bitwise_not(x))
    rec.err("fn_and", lambda: lib.bitwise_and(x, i))
    rec.err("fn_and_scalar", lambda: lib.bitwise_and(i, 2.0))
    rec.err("lshift_f", lambda: x << 1)
    rec.err("lshift_f2", lambda: lib.tensor([1.0, 2.0], dtype=dt) << 2)
    rec.err("rshift_f", lambda: lib.tensor([8.0, -8.0], dtype=dt) >> 2)
    rec.err("rshift_f_t", lambda: lib.tensor([8.0, -8.0], dtype=dt) >> lib.tensor([1, 2]))
    rec.err("rshift_i_ft", lambda: lib.tensor([8, -8]) >> lib.tensor([1.0, 2.0], dtype=dt))
    rec.err("rlshift_f", lambda: 1.5 << lib.tensor([1, 2]))
    rec.err("rrshift_i", lambda: 16 >> lib.tensor([1.0, 2.0], dtype=dt))
    rec.err("lshift_i_f", lambda: i << 1.5)
    rec.err("fn_lshift", lambda: lib.bitwise_left_shift(x, 1))
    rec.err("fn_rshift", lambda: lib.bitwise_right_shift(i, x))
    rec.err("and_bool_f", lambda: lib.tensor([True]) & x)
    rec.err("method_and", lambda: x.bitwise_and(i))
    rec.err("method_xor_", lambda: x.bitwise_xor_(i))


def p_shifts(lib, dt, rec):
    """Arithmetic right shift of negatives, left shifts into the sign bit, and shift counts at or
    past the width (torch gives 0, or -1 for a right shift of a negative)."""
    for name in ("int8", "int16", "int32", "int64"):
        d = getattr(lib, name)
        x = lib.tensor([-128, -7, -1, 0, 1, 5, 100], dtype=d)
        for s in (0, 1, 3, 7, 8, 15, 16, 31, 32, 63, 64, 65, 100):
            rec(f"r.{name}.{s}", x >> s)
            rec(f"l.{name}.{s}", x << s)
        counts = lib.tensor([0, 1, 7, 8, 31, 63, 64], dtype=d)
        rec(f"rt.{name}", x >> counts)
        rec(f"lt.{name}", lib.bitwise_left_shift(x, counts))
        rec(f"neg_count_r.{name}", x >> lib.tensor(-1, dtype=d))
        rec(f"neg_count_l.{name}", x << lib.tensor(-2, dtype=d))
    rec("scalar_lhs", 1 << lib.arange(10))
    rec("fn_scalar_lhs", lib.bitwise_left_shift(3, lib.tensor([0, 2, 62, 63, 64])))
    rec("rfn_scalar", lib.bitwise_right_shift(-256, lib.tensor([1, 4, 70])))
    rec("i64_big", lib.tensor([2**62]) << 1)
    rec("mixed", lib.tensor([1, 2], dtype=lib.int8) << lib.tensor([3, 9]))
    rec("mixed2", lib.tensor([1000, -1000], dtype=lib.int16) >> lib.tensor([3, 4], dtype=lib.int8))
    rec.err("bool_shift", lambda: lib.tensor([True, False]) << 1)
    rec.err("bool_shift2", lambda: lib.tensor([True, False]) >> lib.tensor([True, True]))


def p_shift_uint8(lib, dt, rec):
    """uint8 shifts: bits fall off the top, counts >= 8 give 0, and a uint8 tensor shifted by an
    int64 tensor promotes."""
    x = lib.tensor([1, 3, 128, 255, 170], dtype=lib.uint8)
    for s in (0, 1, 4, 7, 8, 9, 200):
        rec(f"l{s}", x << s)
        rec(f"r{s}", x >> s)
    rec("lt", x << lib.tensor([1, 2, 3, 8, 9], dtype=lib.uint8))
    rec("rt", x >> lib.tensor([1, 2, 3, 8, 9], dtype=lib.uint8))
    rec("l_i64", x << lib.tensor([1, 2, 3, 8, 9]))
    rec("l_i8", x >> lib.tensor([1, -1, 3, 8, 9], dtype=lib.int8))
    rec("nibbles", lib.stack([x >> 4, x & 0xF], dim=-1))
    rec("rev", ((x * 0x0202020202) & 0x010884422010) % 1023)
    img = _ints(lib, 3, (4, 4), 0, 256, lib.uint8)
    rec("quant", (img >> 5) << 5)
    rec("planes", lib.stack([(img >> k) & 1 for k in range(8)]))


def p_pack_bool(lib, dt, rec):
    """Packing bool masks into uint8 and int64 words: multiply by powers of two, sum along a dim,
    and view/reshape into groups of 8 or 64 bits."""
    x = _randn(lib, dt, 2, 5, 32)
    mask = x > 0
    bits = mask.view(5, 4, 8)
    w = 2 ** lib.arange(8, dtype=lib.uint8)
    rec("w", w)
    packed = (bits.to(lib.uint8) * w).sum(-1)
    rec("packed_sum_dtype", packed)
    rec("packed_u8", packed.to(lib.uint8))
    rec("packed_bool_mul", (bits * w).sum(-1, dtype=lib.uint8))
    weights = lib.tensor([1 << k for k in range(8)], dtype=lib.int64)
    rec("packed_i64", (bits.long() * weights).sum(-1))
    rec("packed_shift", (bits.long() << lib.arange(8)).sum(-1))
    m64 = (_randn(lib, dt, 3, 2, 128) > 0).reshape(2, 2, 64).long()
    words = (m64 << lib.arange(64)).sum(-1)
    rec("words64", words)
    rec(
        "words64_or",
        lib.zeros(2, 2, dtype=lib.long).bitwise_or_((m64 << lib.arange(63, -1, -1))[..., 0]),
    )
    acc = lib.zeros(2, 2, dtype=lib.int64)
    for k in range(64):
        acc |= m64[..., k] << k
    rec("words64_loop", acc)
    rec("eq", lib.equal(acc, words))
    rec("bool_sum", mask.sum(-1))
    rec("bool_mul_int", mask * 3)
    rec("bool_mul_bool", mask[0] * mask[1])
    rec("bool_add_bool", mask[0] + mask[1])


def p_unpack(lib, dt, rec):
    """Unpacking uint8 / int64 words with & and shifts back into bool masks."""
    words = _ints(lib, 4, (3, 2), 0, 256, lib.uint8)
    bits = (words.unsqueeze(-1) >> lib.arange(8, dtype=lib.uint8)) & 1
    rec("bits", bits)
    rec("bool", bits.bool())
    rec("bool2", (words.unsqueeze(-1) & (1 << lib.arange(8))) != 0)
    rec("flat", bits.flatten(-2))
    w64 = _ints(lib, 5, (4,), -(2**62), 2**62, lib.int64)
    b64 = (w64.unsqueeze(-1) >> lib.arange(64)) & 1
    rec("b64", b64)
    rec("repack", (b64 << lib.arange(64)).sum(-1))
    rec("sign", (w64 >> 63))
    rec("lowbit", w64 & -w64)
    rec("clear_low", w64 & (w64 - 1))
    rec("msb_u8", (words.long().float().log2().floor()).to(lib.int64))
    rec("bitsmask", lib.bitwise_and(words, lib.tensor(0b1010_1010, dtype=lib.uint8)).bool())


def p_popcount(lib, dt, rec):
    """Popcount by a 256-entry lookup table indexed by bytes, and the SWAR version on int64."""
    table = lib.tensor([bin(i).count("1") for i in range(256)], dtype=lib.uint8)
    x = _ints(lib, 6, (5, 3), 0, 256, lib.uint8)
    rec("pc_u8", table[x.long()])
    rec("pc_u8_idx_u8", table[x.int()])
    y = _ints(lib, 7, (6,), 0, 2**62, lib.int64)
    nbytes = [(y >> (8 * k)) & 0xFF for k in range(8)]
    rec("pc_i64", sum(table[b] for b in nbytes))
    rec("pc_i64_stack", table[lib.stack(nbytes)].sum(0))
    v = y - ((y >> 1) & 0x5555555555555555)
    v = (v & 0x3333333333333333) + ((v >> 2) & 0x3333333333333333)
    v = (v + (v >> 4)) & 0x0F0F0F0F0F0F0F0F
    rec("swar", (v * 0x0101010101010101) >> 56)
    a = _ints(lib, 8, (4, 16), 0, 256, lib.uint8)
    b = _ints(lib, 9, (5, 16), 0, 256, lib.uint8)
    ham = table[(a.unsqueeze(1) ^ b.unsqueeze(0)).long()].sum(-1)
    rec("hamming", ham)
    rec("nearest", ham.argmin(-1) if False else ham.min(-1).values)
    rec("hamf", ham.to(dt) / 128)


def p_gray_code(lib, dt, rec):
    """Gray codes: n ^ (n >> 1), and decoding by a prefix xor of shifts."""
    n = lib.arange(64, dtype=lib.int32)
    g = n ^ (n >> 1)
    rec("gray", g)
    d = g.clone()
    s = 1
    while s < 32:
        d ^= d >> s
        s <<= 1
    rec("decoded", d)
    rec("ok", bool((d == n).all()))
    rec("adjacent", ((g[1:] ^ g[:-1]) & ((g[1:] ^ g[:-1]) - 1)).eq(0).all())
    u = lib.arange(256, dtype=lib.int64).to(lib.uint8)
    gu = u ^ (u >> 1)
    rec("gray_u8", gu)
    rec("gray_sorted", gu.long().argsort())
    rec("gray_float", g.to(dt) / 63)


def p_mult_shift_hash(lib, dt, rec):
    """Multiply-shift and FNV/xorshift hashes on int64 with wrap-around overflow."""
    keys = _ints(lib, 10, (12,), -(2**40), 2**40, lib.int64)
    a = -7046029254386353131  # 0x9E3779B97F4A7C15 as int64
    h = keys * a
    rec("mul", h)
    rec("bucket", (h >> 54) & 1023)
    rec("bucket_logical", (h >> 54) & ((1 << 10) - 1))
    x = keys.clone()
    x ^= x >> 33
    x *= -49064778989728563
    x ^= x >> 33
    x *= -4265267296055464877
    x ^= x >> 33
    rec("murmur_fmix", x)
    fnv = lib.full_like(keys, -3750763034362895579)
    for k in range(8):
        fnv = (fnv ^ ((keys >> (8 * k)) & 0xFF)) * 1099511628211
    rec("fnv", fnv)
    rec("mod", fnv % 97)
    rec("rem", fnv.remainder(97))
    rec("fmod", fnv.fmod(97))
    rec("add_wrap", lib.tensor([2**63 - 1]) + 1)
    rec("sub_wrap", lib.tensor([-(2**63)]) - 1)
    rec("mul_wrap32", lib.tensor([2**30], dtype=lib.int32) * 4)
    rec("neg_min", -lib.tensor([-(2**63)]))
    rec("abs_min", lib.tensor([-(2**63)]).abs())
    t = lib.tensor([1, 2, 3]) * 3037000499
    rec("sq", t * t)
    emb = _randn(lib, dt, 11, 97, 3)
    rec("emb", emb[fnv % 97])


def p_int_division(lib, dt, rec):
    """floor_divide, //, %, remainder, fmod and div(rounding_mode=...) of negatives in integer
    dtypes."""
    for name in ("int8", "int16", "int32", "int64", "uint8"):
        d = getattr(lib, name)
        lo = 0 if name == "uint8" else -100
        a = lib.tensor([lo, -7 if lo else 7, 7, 0, 99, 100], dtype=d)
        b = lib.tensor([3, 2, -3 if lo else 3, 5, -7 if lo else 7, 1], dtype=d)
        rec(f"fd.{name}", a // b)
        rec(f"fd_fn.{name}", lib.floor_divide(a, b))
        rec(f"mod.{name}", a % b)
        rec(f"rem.{name}", lib.remainder(a, b))
        rec(f"fmod.{name}", lib.fmod(a, b))
        rec(f"floor.{name}", lib.div(a, b, rounding_mode="floor"))
        rec(f"trunc.{name}", a.div(b, rounding_mode="trunc"))
        rec(f"true.{name}", a / b)
        rec(f"fd_s.{name}", a // 3)
        rec(f"mod_s.{name}", a % -3 if lo else a % 3)
        rec(f"rmod.{name}", 7 % b)
        rec(f"rfd.{name}", -7 // b if lo else 7 // b)
        rec(f"mod_f.{name}", a % 2.5)
        rec(f"div_f.{name}", a.div(2.5, rounding_mode="floor"))
        rec.err(f"zero_fd.{name}", lambda a=a: a // 0)
        rec.err(f"zero_rem.{name}", lambda a=a: a % lib.zeros_like(a))
        rec.err(f"zero_trunc.{name}", lambda a=a: a.div(0, rounding_mode="trunc"))
        rec.err(f"zero_fmod.{name}", lambda a=a: lib.fmod(a, 0))
    rec("min_div", lib.tensor([-(2**63)]) // -1)
    rec("min_rem", lib.tensor([-(2**63)]) % -1)
    rec("min_div8", lib.tensor([-128], dtype=lib.int8) // -1)
    rec.err("bad_mode", lambda: lib.div(lib.tensor([1]), 2, rounding_mode="round"))
    x = _randn(lib, dt, 12, 6) * 10
    rec("float_floor", x // 3)
    rec("float_mod", x % -3)
    rec("float_fmod", x.fmod(-3))


def p_lsh(lib, dt, rec):
    """Random-projection LSH: signs of projections packed into int64 bucket ids."""
    x = _randn(lib, dt, 13, 20, 8)
    planes = _randn(lib, dt, 14, 8, 12)
    proj = x @ planes
    bits = (proj > 0).long()
    ids = (bits << lib.arange(12)).sum(-1)
    rec("ids", ids)
    rec("ids2", (bits * (2 ** lib.arange(12))).sum(-1))
    rec("ids_dot", bits @ (1 << lib.arange(12)))
    uniq, inv, counts = lib.unique(ids, return_inverse=True, return_counts=True)
    rec("uniq", uniq)
    rec("inv", inv)
    rec("counts", counts)
    table = lib.tensor([bin(i).count("1") for i in range(4096)])
    rec("ham", table[ids.unsqueeze(0) ^ ids.unsqueeze(1)])
    bands = ids.view(20, 1) >> lib.tensor([0, 4, 8]) & 0xF
    rec("bands", bands)
    rec("band_hash", (bands * lib.tensor([1, 16, 256])).sum(-1))
    xn = x / x.norm(dim=-1, keepdim=True)
    cos = xn @ xn.T
    rec("cos", cos)
    same = ids.unsqueeze(0) == ids.unsqueeze(1)
    rec("same", same)
    rec("masked_cos", cos.masked_fill(~same, 0))


def p_bloom(lib, dt, rec):
    """Bloom filters on bool tensors: index_put_, scatter_, and membership queries."""
    m = 128
    keys = _ints(lib, 15, (20,), 0, 2**40, lib.int64)
    seeds = lib.tensor([0x1234567, 0x2345671, 0x3456712])
    hashes = ((keys.unsqueeze(1) * seeds) >> 17) % m
    rec("hashes", hashes)
    bloom = lib.zeros(m, dtype=lib.bool)
    bloom[hashes.flatten()] = True
    rec("bloom", bloom)
    b2 = lib.zeros(m, dtype=lib.bool)
    b2.index_put_((hashes.flatten(),), lib.tensor(True))
    rec("b2", b2)
    b3 = lib.zeros(m, dtype=lib.bool)
    b3.scatter_(0, hashes.flatten(), lib.ones(60, dtype=lib.bool))
    rec("b3", b3)
    b4 = lib.zeros(m, dtype=lib.bool)
    b4.scatter_(0, hashes.flatten(), True)
    rec("b4", b4)
    b5 = lib.zeros(m, dtype=lib.bool).index_fill_(0, hashes.flatten(), True)
    rec("b5", b5)
    b6 = lib.zeros(2, m, dtype=lib.bool)
    b6.index_put_(
        (lib.tensor([0, 1, 0]), lib.tensor([3, 4, 5])),
        lib.tensor([True, True, False]),
        accumulate=True,
    )
    rec("b6", b6)
    queries = _ints(lib, 16, (30,), 0, 2**40, lib.int64)
    qh = ((queries.unsqueeze(1) * seeds) >> 17) % m
    rec("member", bloom[qh].all(-1))
    rec("member_keys", bloom[hashes].all(-1))
    rec("fill", bloom.sum())
    rec("fill_ratio", bloom.to(dt).mean())
    rec("union", bloom | b3)
    rec("inter", lib.logical_and(bloom, b3))
    rec(
        "packed",
        (bloom.view(-1, 8).to(lib.uint8) << lib.arange(8, dtype=lib.uint8)).sum(
            -1, dtype=lib.uint8
        ),
    )
    counting = lib.zeros(m, dtype=lib.int16)
    counting.index_add_(0, hashes.flatten(), lib.ones(60, dtype=lib.int16))
    rec("counting", counting)
    counting.scatter_add_(0, hashes.flatten(), -lib.ones(60, dtype=lib.int16))
    rec("counting0", counting)
    rec.err(
        "scatter_float_src",
        lambda: lib.zeros(m, dtype=lib.bool).scatter_(0, hashes.flatten(), lib.ones(60)),
    )


def p_inplace_ops(lib, dt, rec):
    """In-place &=, |=, ^=, <<=, >>= on int tensors, through views, with scalars and tensors."""
    for name in ("uint8", "int8", "int16", "int32", "int64"):
        d = getattr(lib, name)
        x = lib.tensor([1, 2, 3, 100, 127], dtype=d)
        x &= 0x7E
        rec(f"and.{name}", x)
        x |= lib.tensor([1, 0, 1, 0, 1], dtype=d)
        rec(f"or.{name}", x)
        x ^= 5
        rec(f"xor.{name}", x)
        x <<= 2
        rec(f"shl.{name}", x)
        x >>= lib.tensor(1, dtype=d)
        rec(f"shr.{name}", x)
        x <<= 9
        rec(f"shl9.{name}", x)
        y = lib.arange(12, dtype=d).view(3, 4)
        v = y[:, 1]
        v ^= 3
        rec(f"view.{name}", y)
        y.t()[1:] |= 8
        rec(f"tview.{name}", y)
        y.bitwise_and_(lib.tensor([15, 7, 3, 1], dtype=d))
        rec(f"bcast.{name}", y)
        y.bitwise_left_shift_(1)
        y.bitwise_right_shift_(lib.tensor([0, 1, 2, 3], dtype=d))
        rec(f"shift_.{name}", y)
        y.bitwise_not_()
        rec(f"not_.{name}", y)
    x = lib.tensor([1, 2, 3])
    x |= lib.tensor([4, 4, 4], dtype=lib.int8)
    rec("i64_or_i8", x)
    x &= lib.tensor(True)
    rec("i64_and_bool", x)
    b = lib.tensor([True, False, True])
    b ^= lib.tensor([True, True, False])
    rec("bool_xor", b)
    b |= True
    rec("bool_or", b)
    b &= False
    rec("bool_and_false", b)


def p_inplace_errors(lib, dt, rec):
    """In-place bitwise ops whose result type can't be cast back, on float tensors, and on
    shapes that don't broadcast to the output."""
    u = lib.tensor([1, 2, 3], dtype=lib.uint8)
    i = lib.tensor([1, 2, 3])

    def iand():
        t = u.clone()
        t &= i
        return t

    def ixor_i16():
        t = lib.tensor([1, 2], dtype=lib.int8)
        t ^= lib.tensor([1, 2], dtype=lib.int16)
        return t

    def ishl():
        t = u.clone()
        t <<= lib.tensor([1, 2, 3], dtype=lib.int32)
        return t

    def bool_or_int():
        t = lib.tensor([True, False])
        t |= lib.tensor([1, 2])
        return t

    def bool_or_scalar():
        t = lib.tensor([True, False])
        t |= 2
        return t

    def float_and():
        t = lib.ones(3, dtype=dt)
        t &= 1
        return t

    def float_shift():
        t = lib.ones(3, dtype=dt)
        t <<= 1
        return t

    def int_shift_float():
        t = i.clone()
        t >>= 1.0
        return t

    def int_and_float_t():
        t = i.clone()
        t &= lib.ones(3, dtype=dt)
        return t

    def bcast():
        t = lib.zeros(3, dtype=lib.int64)
        t |= lib.ones(2, 3, dtype=lib.int64)
        return t

    rec.err("iand_u8_i64", iand)
    rec.err("ixor_i8_i16", ixor_i16)
    rec.err("ishl_u8_i32", ishl)
    rec.err("bool_or_int", bool_or_int)
    rec.err("bool_or_scalar", bool_or_scalar)
    rec.err("float_and", float_and)
    rec.err("float_shift", float_shift)
    rec.err("int_shift_float", int_shift_float)
    rec.err("int_and_float_t", int_and_float_t)
    rec.err("bcast", bcast)
    rec.err("method_and_", lambda: u.clone().bitwise_and_(i))
    rec.err("method_or_bool", lambda: lib.tensor([True]).bitwise_or_(lib.tensor([3])))
    rec.err("method_not_f", lambda: lib.ones(2, dtype=dt).bitwise_not_())
    rec.err("lshift_method_", lambda: u.clone().bitwise_left_shift_(i))
    rec.err("u8_and_scalar", lambda: u.clone().bitwise_and_(300))
    rec("u8_and_scalar_neg", u.clone().bitwise_and_(-2))


def p_out_ops(lib, dt, rec):
    """Bitwise ops and shifts with out=: dtype of out, resizing, and the cast errors."""
    a = lib.tensor([12, 10, 7], dtype=lib.int32)
    b = lib.tensor([10, 6, 1], dtype=lib.int32)
    out = lib.empty(3, dtype=lib.int32)
    r = lib.bitwise_and(a, b, out=out)
    rec("and", out)
    rec("same", r is out)
    out64 = lib.empty(3, dtype=lib.int64)
    lib.bitwise_or(a, b, out=out64)
    rec("or64", out64)
    outf = lib.empty(3, dtype=dt)
    rec.err("xor_float_out", lambda: lib.bitwise_xor(a, b, out=outf))
    rec("xor_float_out_val", outf if False else a.dtype)
    out8 = lib.empty(3, dtype=lib.int8)
    rec.err("or_i8_out", lambda: lib.bitwise_or(a, b, out=out8))
    outb = lib.empty(3, dtype=lib.bool)
    rec.err("and_bool_out", lambda: lib.bitwise_and(a, b, out=outb))
    lib.bitwise_and(a > 8, b > 5, out=outb)
    rec("and_bool", outb)
    o = lib.empty(0, dtype=lib.int32)
    lib.bitwise_xor(a, b, out=o)
    rec("resized", o)
    o2 = lib.empty(0, dtype=lib.int32)
    lib.bitwise_left_shift(a, 2, out=o2)
    rec("lshift_out", o2)
    o3 = lib.empty(3, dtype=lib.int64)
    lib.bitwise_right_shift(a, b, out=o3)
    rec("rshift_out", o3)
    o4 = lib.empty(3, dtype=lib.int32)
    lib.bitwise_not(a, out=o4)
    rec("not_out", o4)
    rec.err("not_out_i8", lambda: lib.bitwise_not(a, out=lib.empty(3, dtype=lib.int8)))
    rec.err("not_out_f", lambda: lib.bitwise_not(a, out=lib.empty(3, dtype=dt)))
    o5 = lib.empty(2, 3, dtype=lib.int32)
    lib.bitwise_and(a, b.view(1, 3), out=o5)
    rec("o5", o5)
    rec.err(
        "float_in_out",
        lambda: lib.bitwise_and(lib.ones(3, dtype=dt), 1, out=lib.empty(3, dtype=dt)),
    )


def p_iinfo(lib, dt, rec):
    """torch.iinfo bounds, used to clamp and to make masks."""
    for name in INTS[1:]:
        d = getattr(lib, name)
        ii = lib.iinfo(d)
        rec(f"{name}.min", ii.min)
        rec(f"{name}.max", ii.max)
        rec(f"{name}.bits", ii.bits)
        rec(f"{name}.dtype", str(ii.dtype))
        rec(f"{name}.repr", repr(ii))
        x = lib.tensor([ii.min, -1 if ii.min else 0, ii.max], dtype=d)
        rec(f"{name}.vals", x)
        rec(f"{name}.full", lib.full((2,), ii.max, dtype=d))
        rec(f"{name}.not", ~x)
        rec(f"{name}.clamped", (_randn(lib, dt, 17, 5) * 1e6).clamp(ii.min, ii.max).to(d))
    rec.err("iinfo_float", lambda: lib.iinfo(dt))
    rec.err("iinfo_bool", lambda: lib.iinfo(lib.bool))
    rec("iinfo_u16", lib.iinfo(lib.uint16).max)
    rec("iinfo_u32", lib.iinfo(lib.uint32).max)
    rec("iinfo_u64", str(lib.iinfo(lib.uint64).max))
    rec("iinfo_eq", lib.iinfo(lib.int32).max == 2**31 - 1)
    rec.err("overflow_tensor", lambda: lib.tensor([300], dtype=lib.uint8))
    rec.err("overflow_full", lambda: lib.full((2,), 2**31, dtype=lib.int32))
    rec.err("overflow_fill", lambda: lib.zeros(2, dtype=lib.int8).fill_(200))


def p_grad_errors(lib, dt, rec):
    """Float tensors that require grad given to bitwise ops: torch's errors (dtype first)."""
    x = _randn(lib, dt, 18, 3).requires_grad_()
    i = lib.tensor([1, 2, 3])
    rec.err("and", lambda: x & i)
    rec.err("or_s", lambda: x | 1)
    rec.err("not", lambda: ~x)
    rec.err("shift", lambda: lib.bitwise_left_shift(x, i))
    rec.err("lshift_op", lambda: x << 1)
    rec.err("rshift_op", lambda: x >> i)
    rec.err("ilshift", lambda: x.__ilshift__(1))
    m = (x > 0) & (x < 1)
    rec("mask_rg", m.requires_grad)
    rec.err("ixor", lambda: x.bitwise_xor_(1))
    rec.err("iand_leaf", lambda: x.detach().bitwise_and_(1))


def p_big_scalars(lib, dt, rec):
    """Python ints past int64 as operands (CPython's OverflowError, as torch's parser reads a
    Scalar), unsigned 64-bit constants wrapping into int64, and in-range ints wrapping into a
    narrow dtype."""
    i32 = lib.tensor([1, 2, -3], dtype=lib.int32)
    u8 = lib.tensor([1, 2, 255], dtype=lib.uint8)
    i64 = lib.tensor([1, 2, -3])
    for name, t in (("i32", i32), ("u8", u8), ("i64", i64)):
        rec.err(f"and_2_70.{name}", lambda t=t: t & 2**70)
        rec.err(f"or_2_64.{name}", lambda t=t: t | 2**64)
        rec.err(f"xor_neg.{name}", lambda t=t: t ^ (-(2**63) - 1))
        rec.err(f"add_2_64.{name}", lambda t=t: t + 2**64)
        rec.err(f"mul_2_70.{name}", lambda t=t: t * 2**70)
        rec.err(f"shl_2_64.{name}", lambda t=t: t << 2**64)
        rec.err(f"shr_neg.{name}", lambda t=t: t >> -(2**64))
        rec.err(f"iadd.{name}", lambda t=t: t.clone().add_(2**64))
        rec.err(f"ior.{name}", lambda t=t: t.clone().__ior__(2**65))
        rec(f"and_2_63.{name}", t & 2**63)
        rec(f"xor_u64.{name}", t ^ 0xFFFFFFFFFFFFFFFF)
        rec(f"and_big.{name}", t & (2**40 + 7))
        rec(f"shl_2_63.{name}", t << 2**63)
        rec(f"shr_2_63.{name}", t >> 2**63)
    rec.err("rshl_2_64", lambda: 2**64 << i64)
    rec("rshl_2_63", 2**63 << lib.tensor([0, 1, 2]))
    rec("rshr_u64", 0xFFFFFFFFFFFFFFFF >> lib.tensor([0, 1, 63]))
    rec("rand_u64", 0x9E3779B97F4A7C15 & i64)
    rec("mul_golden", i64 * 0x9E3779B97F4A7C15)
    rec("fn_shift", lib.bitwise_left_shift(2**63, lib.tensor([0, 1])))
    i8 = lib.tensor([1, -2], dtype=lib.int8)
    rec("alpha_wrap", i8.add(2**62, alpha=4))
    rec("alpha_wrap2", i8.sub(200, alpha=2))
    x = _randn(lib, dt, 20, 4)
    rec("float_add_2_63", x + 2**63)


def p_shell_uints(lib, dt, rec):
    """uint16/uint32/uint64 ("shell" dtypes): and/or/xor work, shifts and bitwise_not are
    torch's NotImplementedError, promotion with other integer dtypes its RuntimeError."""
    for name in ("uint16", "uint32", "uint64"):
        d = getattr(lib, name)
        x = lib.tensor([1, 2, 40000], dtype=d)
        rec(f"and.{name}", x & 3)
        rec(f"or.{name}", x | lib.tensor([8, 8, 8], dtype=d))
        rec(f"xor.{name}", lib.bitwise_xor(x, x))
        rec(f"and_bool.{name}", x & True)
        rec.err(f"shl.{name}", lambda x=x: x << 1)
        rec.err(f"shr.{name}", lambda x=x: x >> lib.tensor([1, 1, 1], dtype=x.dtype))
        rec.err(f"fn_shl.{name}", lambda x=x: lib.bitwise_left_shift(x, 2))
        rec.err(f"rshl.{name}", lambda x=x: 1 << x)
        rec.err(f"ishl.{name}", lambda x=x: x.clone().__ilshift__(1))
        rec.err(f"ishr_.{name}", lambda x=x: x.clone().bitwise_right_shift_(1))
        rec.err(f"not.{name}", lambda x=x: ~x)
        rec.err(f"fn_not.{name}", lambda x=x: lib.bitwise_not(x))
        rec.err(f"not_.{name}", lambda x=x: x.clone().bitwise_not_())
        rec.err(f"promote.{name}", lambda x=x: x & lib.tensor([1, 2, 3], dtype=lib.int32))
        rec.err(f"shl_out.{name}", lambda x=x: lib.bitwise_left_shift(x, 1, out=lib.empty(3)))
        rec(f"view.{name}", x.view(lib.uint8) if name != "uint64" else x.view(lib.int64))
    rec("u16_hash", (lib.tensor([1, 2, 3], dtype=lib.uint16) ^ 0x5555) & 0xFF)


def p_float_bits(lib, dt, rec):
    """Floating bits reinterpreted as integers: sign bits, exponents, the fast inverse square
    root, ulp steps by adding 1 to the bits, and total-order keys for sorting floats."""
    it = lib.int64 if dt is lib.float64 else lib.int32
    nb = 64 if dt is lib.float64 else 32
    mb = 52 if dt is lib.float64 else 23
    x = _randn(lib, dt, 21, 16) * 10
    x = lib.cat([x, lib.tensor([0.0, -0.0, 1.0, -1.0, float("inf")], dtype=dt)])
    bits = x.view(it)
    rec("bits", bits)
    rec("sign", (bits >> (nb - 1)) & 1)
    rec("signbit", lib.signbit(x))
    emask = (1 << (nb - 1 - mb)) - 1
    rec("exponent", ((bits >> mb) & emask) - (emask >> 1))
    rec("frexp_e", lib.frexp(x[:16]).exponent)
    rec("abs", (bits & lib.iinfo(it).max).view(dt))
    rec("neg", (bits ^ lib.iinfo(it).min).view(dt))
    rec("next_up", (bits[:16].abs() + 1).view(dt) - bits[:16].abs().view(dt))
    key = lib.where(bits < 0, bits ^ lib.iinfo(it).max, bits)
    rec("key_order", key.argsort(stable=True))
    rec("value_order", x.argsort(stable=True))
    if dt is lib.float32:
        y = lib.tensor([0.25, 1.0, 2.0, 4.0, 100.0], dtype=dt)
        g = (0x5F3759DF - (y.view(lib.int32) >> 1)).view(dt)
        rec("rsqrt0", g)
        rec("rsqrt1", g * (1.5 - 0.5 * y * g * g))
    else:
        y = lib.tensor([0.25, 1.0, 2.0, 4.0, 100.0], dtype=dt)
        g = (0x5FE6EB50C7B537A9 - (y.view(lib.int64) >> 1)).view(dt)
        rec("rsqrt0", g)
        rec("rsqrt1", g * (1.5 - 0.5 * y * g * g))
    rec("bytes", x[:3].view(lib.uint8).view(3, -1))
    rec("reinterpret_back", x[:4].view(lib.uint8).view(dt))


def p_nibble_pack(lib, dt, rec):
    """4-bit weight quantisation packed two per uint8 (GPTQ/bitsandbytes style): quantise,
    pack with << and |, unpack with >> and &, dequantise, and a matmul with the result."""
    w = _randn(lib, dt, 22, 8, 16)
    scale = w.abs().amax(dim=1, keepdim=True) / 7
    q = lib.clamp(lib.round(w / scale), -8, 7).to(lib.int8)
    rec("q", q)
    u = (q + 8).to(lib.uint8)
    packed = (u[:, 0::2] << 4) | u[:, 1::2]
    rec("packed", packed)
    hi = (packed >> 4).to(lib.int8) - 8
    lo = (packed & 0x0F).to(lib.int8) - 8
    back = lib.stack([hi, lo], dim=-1).view(8, 16)
    rec("roundtrip", lib.equal(back, q))
    deq = back.to(dt) * scale
    rec("deq", deq)
    rec("err", (deq - w).abs().max())
    x = _randn(lib, dt, 23, 3, 16)
    rec("matmul", x @ deq.T)
    signed = lib.tensor([-8, -1, 0, 7], dtype=lib.int8)
    rec("nibble_sext", ((signed & 0xF) << 4).to(lib.int8) >> 4)
    p32 = lib.zeros(8, 2, dtype=lib.int32)
    for k in range(8):
        p32 |= (u[:, k::8].to(lib.int32) & 0xF) << (4 * k)
    rec("packed32", p32)
    rec("unpack32", (p32.unsqueeze(-1) >> (4 * lib.arange(8, dtype=lib.int32))) & 0xF)


def p_morton(lib, dt, rec):
    """Morton (Z-order) codes of 3-d points: quantise, spread the bits of each coordinate with
    magic masks, interleave, sort the points by code, and decode."""
    pts = _randn(lib, dt, 24, 40, 3)
    lo, hi = pts.amin(0), pts.amax(0)
    qf = (pts - lo) / (hi - lo) * 1023
    q = qf.floor().to(lib.int64).clamp(0, 1023)
    rec("q", q)

    def spread(v):
        v = (v | (v << 16)) & 0x030000FF
        v = (v | (v << 8)) & 0x0300F00F
        v = (v | (v << 4)) & 0x030C30C3
        return (v | (v << 2)) & 0x09249249

    code = spread(q[:, 0]) | (spread(q[:, 1]) << 1) | (spread(q[:, 2]) << 2)
    rec("code", code)
    order = code.argsort(stable=True)
    rec("order", order)
    rec("sorted_pts", pts[order])

    def compact(v):
        v = v & 0x09249249
        v = (v | (v >> 2)) & 0x030C30C3
        v = (v | (v >> 4)) & 0x0300F00F
        v = (v | (v >> 8)) & 0x030000FF
        return (v | (v >> 16)) & 0x000003FF

    dec = lib.stack([compact(code >> k) for k in range(3)], dim=-1)
    rec("decoded", lib.equal(dec, q))
    rec("cell", (code >> 27) & 7)
    rec("cell_counts", lib.bincount((code >> 27) & 7, minlength=8))


def p_xorshift(lib, dt, rec):
    """A vectorised xorshift64* generator on int64 tensors: logical right shifts emulated by
    masking the arithmetic ones, the wrapped multiply, and uniform floats from the top bits."""
    state = lib.arange(1, 9, dtype=lib.int64) * 0x9E3779B97F4A7C15

    def lshr(v, k):
        return (v >> k) & ((1 << (64 - k)) - 1)

    outs = []
    for _ in range(5):
        state = state ^ lshr(state, 12)
        state = state ^ (state << 25)
        state = state ^ lshr(state, 27)
        outs.append(state * 0x2545F4914F6CDD1D)
    r = lib.stack(outs)
    rec("raw", r)
    top = lshr(r, 11)
    rec("top", top)
    u = top.to(dt) * (2.0**-53)
    rec("uniform", u)
    rec("mean", u.mean())
    rec("dice", lib.remainder(r, 6) + 1)
    rec("dice_fmod", r.fmod(6))
    rec("coin", (r >> 63) & 1)
    w = _randn(lib, dt, 25, 8)
    rec("dropout", w * (u[0] > 0.3).to(dt) / 0.7)


def p_bitsets(lib, dt, rec):
    """Sets of small ints as int64 bitsets: build by scatter of shifted bits, union,
    intersection, difference, cardinality by popcount, Jaccard similarities."""
    g = _gen(lib, 26)
    items = lib.randint(0, 64, (6, 10), generator=g)
    one = lib.ones_like(items)
    words = one << items
    rec("words", words)
    sets = lib.zeros(6, dtype=lib.int64)
    for k in range(10):
        sets |= words[:, k]
    rec("sets", sets)
    table = lib.tensor([bin(i).count("1") for i in range(256)])

    def popcount(v):
        return sum(table[(v >> (8 * k)) & 0xFF] for k in range(8))

    inter = sets.unsqueeze(0) & sets.unsqueeze(1)
    union = sets.unsqueeze(0) | sets.unsqueeze(1)
    rec("inter", popcount(inter))
    rec("union", popcount(union))
    rec("diff", popcount(sets.unsqueeze(1) & ~sets.unsqueeze(0)))
    rec("sym", popcount(sets.unsqueeze(1) ^ sets.unsqueeze(0)))
    rec("jaccard", popcount(inter).to(dt) / popcount(union).to(dt))
    rec("unique_counts", lib.tensor([len(set(r.tolist())) for r in items]))
    rec("member", ((sets.unsqueeze(1) >> lib.arange(64)) & 1).bool()[:, :12])
    rec("min_elem", popcount((sets & -sets) - 1))


def p_simhash(lib, dt, rec):
    """SimHash of weighted feature vectors: random hyperplanes, signs packed into int64
    fingerprints, Hamming distances against the angle between the vectors."""
    x = _randn(lib, dt, 27, 12, 32)
    x[6:] = x[:6] + 0.1 * _randn(lib, dt, 28, 6, 32)
    planes = _randn(lib, dt, 29, 32, 48)
    s = (x @ planes) >= 0
    fp = (s.long() << lib.arange(48)).sum(-1)
    rec("fp", fp)
    diff = fp.unsqueeze(0) ^ fp.unsqueeze(1)
    ham = ((diff.unsqueeze(-1) >> lib.arange(48)) & 1).sum(-1)
    rec("ham", ham)
    cos = lib.nn.functional.cosine_similarity(x.unsqueeze(0), x.unsqueeze(1), dim=-1)
    rec("cos", cos)
    rec("est_angle", ham.to(dt) / 48)
    rec("pairs", (ham < 10).nonzero())


def p_checksums(lib, dt, rec):
    """Adler-32 and a CRC-32 by table on byte tensors: remainder, shifts, xor, table lookups."""
    data = _ints(lib, 30, (4, 24), 0, 256, lib.uint8)
    a = lib.ones(4, dtype=lib.int64)
    b = lib.zeros(4, dtype=lib.int64)
    for k in range(24):
        a = (a + data[:, k]) % 65521
        b = (b + a) % 65521
    rec("adler", (b << 16) | a)
    poly = 0xEDB88320
    tab = []
    for n in range(256):
        c = n
        for _ in range(8):
            c = (c >> 1) ^ poly if c & 1 else c >> 1
        tab.append(c)
    table = lib.tensor(tab, dtype=lib.int64)
    crc = lib.full((4,), 0xFFFFFFFF, dtype=lib.int64)
    for k in range(24):
        crc = table[(crc ^ data[:, k]) & 0xFF] ^ (crc >> 8)
    rec("crc", crc ^ 0xFFFFFFFF)
    rec("crc_i32", (crc ^ 0xFFFFFFFF).to(lib.int32))
    rec("parity", data.sum(-1, dtype=lib.int64) & 1)
    x = data.to(lib.int64)
    p = x ^ (x >> 4)
    p = p ^ (p >> 2)
    rec("byte_parity", (p ^ (p >> 1)) & 1)
    rec("luhn_mod", (data.to(lib.int16) * 7 - 900) % 10)
    rec("digest_float", (crc & 0xFFFF).to(dt) / 65535)


def p_byte_hash(lib, dt, rec):
    """Hashing int64 ids through their bytes (view as uint8), FNV-1a on int64 with wrap-around,
    hash buckets by floor_divide / remainder of negatives, and an embedding-bag lookup."""
    ids = _ints(lib, 31, (10,), -(2**50), 2**50, lib.int64)
    by = ids.view(lib.uint8).view(10, 8)
    rec("bytes", by)
    h = lib.full((10,), -3750763034362895579, dtype=lib.int64)
    for k in range(8):
        h = (h ^ by[:, k]) * 1099511628211
    rec("fnv1a", h)
    rec("rem", h % 1000)
    rec("fmod", h.fmod(1000))
    rec("floordiv", h // (2**40))
    rec("div_floor", lib.div(h, 2**40, rounding_mode="floor"))
    rec("div_trunc", lib.div(h, 2**40, rounding_mode="trunc"))
    rec("abs_mod", h.abs() % 1000)
    rec("hi_lo", lib.stack([h >> 32, h & 0xFFFFFFFF]))
    rec("as_i32", h.to(lib.int32))
    rec("u8_of_hash", h.to(lib.uint8))
    bag = lib.nn.functional.embedding_bag(
        (h % 50).abs().view(5, 2), _randn(lib, dt, 32, 50, 4), mode="sum"
    )
    rec("bag", bag)


_BIN = ("bitwise_and", "bitwise_or", "bitwise_xor", "bitwise_left_shift", "bitwise_right_shift")


def _env(lib):
    t, f = lib.tensor([1, 2, 3]), lib.tensor([1.5, 2.0])
    u, o = lib.tensor([1, 2], dtype=lib.uint8), lib.empty(3, dtype=lib.int64)
    return {"torch": lib, "t": t, "f": f, "u": u, "o": o}


def p_bitwise_calls(lib, rec):
    """The bitwise functions called wrongly: operands left out or of no type they take, extra
    arguments, unknown keywords, two numbers, keyword calls."""
    cases = []
    for op in _BIN:
        cases += [
            f"torch.{op}(t)", f"torch.{op}()", f"torch.{op}(t, 1, 2)", f"torch.{op}(3, 5)",
            f"torch.{op}(t, 'a')", f"torch.{op}(None, t)", f"torch.{op}(t, other=None)",
            f"torch.{op}(input=t, other=2)", f"torch.{op}(t, [1, 2, 3])",
            f"torch.{op}(t, (1,))", f"torch.{op}(2.5, t)", f"torch.{op}(other=t)",
        ]  # fmt: skip
    cases += ["torch.bitwise_not()", "torch.bitwise_not(3)", "torch.bitwise_not(t, t)",
              "torch.bitwise_not(input=t)", "torch.bitwise_not('a')",
              "torch.bitwise_not(None)"]  # fmt: skip
    run_calls(cases, _env(lib), rec)


def p_method_calls(lib, rec):
    """The bitwise Tensor methods (and their in-place forms) called wrongly."""
    cases = []
    for op in _BIN:
        for m in (op, op + "_"):
            cases += [f"t.{m}()", f"t.{m}('a')", f"t.{m}(None)", f"t.{m}(1, 2)",
                      f"t.{m}(other=[1])", f"t.{m}(f)", f"u.clone().{m}(t)"]  # fmt: skip
    cases += ["f.bitwise_not()", "f.bitwise_not_()", "t & 'a'", "t << None",
              "'a' ^ t", "t.__and__('a')", "t.__ilshift__(1.5)"]  # fmt: skip
    run_calls(cases, _env(lib), rec)


def p_out_calls(lib, rec):
    """out= given to the bitwise functions: of no tensor type, beside a number input, of a dtype
    the result can't be cast to, for float operands (the cast error comes first)."""
    cases = []
    for op in _BIN:
        cases += [
            f"torch.{op}(t, t, out=3)", f"torch.{op}(3, t, out=o)", f"torch.{op}(t, 1, out=None)",
            f"torch.{op}(f, 1, out=o)", f"torch.{op}(f, 1, out=torch.empty(2))",
            f"torch.{op}(t, 1, out=torch.empty(3, dtype=torch.int8))",
            f"torch.{op}(t, 1, out=torch.empty(3))", f"torch.{op}(f, t[:2], out=o)",
            f"torch.{op}(u, 1, out=torch.empty(2, dtype=torch.bool))",
        ]  # fmt: skip
    cases += ["torch.bitwise_not(t, out=3)", "torch.bitwise_not(f, out=o)",
              "torch.bitwise_not(f, out=torch.empty(2))",
              "torch.bitwise_not(f, out=torch.empty(2, dtype=torch.float64))",
              "torch.bitwise_not(t, out=torch.empty(3, dtype=torch.int32))"]  # fmt: skip
    run_calls(cases, _env(lib), rec)


def p_division_calls(lib, rec):
    """remainder and floor_divide (hash buckets) called with an operand left out or extra ones,
    as functions and as (in-place) methods."""
    cases = []
    for op in ("remainder", "floor_divide"):
        cases += [f"torch.{op}(t)", f"torch.{op}()", f"torch.{op}(t, 2, 3)",
                  f"torch.{op}(t, 'a')", f"torch.{op}(input=t, other=2)", f"t.{op}()",
                  f"t.{op}(1, 2)", f"t.{op}_()", f"t.clone().{op}_(1, 2)",
                  f"t.clone().{op}_('a')", f"t.{op}(other=-3)"]  # fmt: skip
    run_calls(cases, _env(lib), rec)
