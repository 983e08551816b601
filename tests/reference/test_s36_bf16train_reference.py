"""Session 36 (helper bf16train): bfloat16 (and float16) numerics as users hit them on the CPU,
written the way mixed-precision code is written in torch and run under torch and minitorch with
the same seeds, compared record by record: .to(torch.bfloat16) rounding to nearest even (ties,
overflow to inf, subnormals and their ties, float64 rounded through float32 first, ints), casts
between bfloat16, float16 and the integer types; type promotion of bfloat16 with float32,
float16, int and bool tensors, 0-d tensors and Python numbers (result_type, promote_types,
can_cast); arithmetic with numbers (add/sub round the number to bfloat16, mul/div do not), in
place and out=; comparisons with numbers; reductions (sum/mean/prod/norm accumulate in float32,
cumsum, dtype=); matmul, bmm, einsum, addmm, linear, conv and pooling in bfloat16 (exact dyadic
inputs, so the float32 accumulation rounds once); modules converted with .bfloat16()/.half()/
.to() (parameters, buffers, num_batches_tracked, state_dict round trips); gradients through
bfloat16 graphs and casts; a bfloat16 model with float master weights trained a few SGD steps;
optimizers stepping bfloat16 parameters; autocast('cpu') output dtypes; reprs; finfo; torch's
errors for ops without half kernels and for mixed dtypes; BatchNorm with bfloat16 and float16
running statistics (training, momentum=None, channels-last, gradients, eval).
float64/float32 give the dtype the data is drawn in; records named "...~" are bfloat16 results of
inexact float32 math, compared to an ulp of bfloat16 of their scale (and "...'" float32 ones).

Found and fixed:
- BatchNorm of a dense (contiguous or channels-last) bfloat16 input whose parameters and
  running statistics are bfloat16: torch keeps the momentum (0.1 -> 0.10009765625), 1 - momentum,
  the batch's sum of squares and each product of the running-statistics update in bfloat16,
  and divides the sum of squares by n in bfloat16; minitorch updated them in float32 and
  rounded once (running_mean/var an ulp or more off, and 1 / std from the unrounded variance).
- Its backward: torch normalizes with the rounded (bfloat16) batch mean; minitorch's saved
  xhat used the float32 mean (input gradients several ulps off).
- BatchNorm(momentum=None) with float16 statistics: the cumulative average's factor
  1 / num_batches_tracked was rounded to float16; torch's is a Python float, which its float16
  kernel reads in float32 (running_var an ulp off).
- linalg.eig/eigvals of a bfloat16/float16 matrix: torch's NotImplementedError
  '"linalg_eig_out_cpu" not implemented for 'BFloat16'' (after its rank and shape checks);
  minitorch raised its no-complex NotImplementedError.

Known and left (documented):
- add/sub with an alpha bfloat16 does not hold exactly (alpha * other inexact): torch's scalar
  kernel rounds alpha * other to bfloat16 before adding, its vectorised one does not, so the
  result depends on the tensor's length and the CPU's SIMD width; the programs use powers of two.
- The bits of a bfloat16 NaN made from a float32 NaN: 0xffff from torch's vectorised cast,
  0x7fc0 from its scalar one; only isnan is recorded.
- Tensor.numpy() of a bfloat16 tensor returns an ml_dtypes array here; torch raises
  "TypeError: Got unsupported ScalarType BFloat16" (relied on by other tests; not recorded).
- BatchNorm of a non-dense bfloat16 input (a transposed or sliced view), or with a gradient in
  another layout than the input: torch's fallback kernel rounds each step of
  ((x - mean) * invstd) * weight + bias to bfloat16 and updates the statistics in double;
  minitorch computes those in float32 and rounds once (outputs about an ulp off).
- GroupNorm/LayerNorm of a bfloat16 group whose values are all equal: torch's x * a + b form
  leaves float32 residue (1e-5 .. 6e-8) where minitorch gives exact zeros; not recorded.
- F.batch_norm of a bfloat16 input with float32 running statistics: running_var can be a
  float32 ulp off torch's (its update's operations in another order); within tolerance.
- fft, stft, complex, polar and view_as_complex of bfloat16: minitorch has no complex dtype."""

from __future__ import annotations

import pytest

from tests.reference._host import as_onednn_records
from tests.reference._one_thread import one_torch_thread  # noqa: F401 - an autouse fixture
from tests.reference._programs import Rec, assert_records_match, run_program
from tests.reference._programs import seeded_randn as _randn

torch = pytest.importorskip("torch")

# ml_dtypes warns when it compares a bfloat16 NaN (NumPy's float types do not); not checked here.
pytestmark = pytest.mark.filterwarnings("ignore:invalid value encountered:RuntimeWarning")

PROGRAMS = [
    "cast_rne", "cast_subnormal", "cast_double_round", "cast_ints", "cast_half",
    "promote_tensors", "promote_scalars", "result_type", "arith", "scalar_ops",
    "inplace", "compare", "reductions", "cumulative", "matmul", "linear_conv",
    "module_convert", "state_dict", "grads", "master_train", "autocast_ops",
    "repr", "finfo", "errors", "factories", "misc_methods", "optim_bf16",
    "mismatch_errors", "float16_ops", "batchnorm", "batchnorm_half",
]  # fmt: skip

# Records whose values are bfloat16 results of inexact float32 math (a name ending in "~", and
# every record of the LOOSE programs) are compared to an ulp of bfloat16 of the record's scale;
# float32 results of float32 math (a name ending in "'") to float32's tolerance in both runs.
BF16_TOL = 2.0**-7
LOOSE = {"master_train", "optim_bf16"}


def _tol(name, dt):
    base = 1e-10 if dt == "float64" else 1e-4

    def tol(record, _value):
        if name in LOOSE or record.endswith("~"):
            return BF16_TOL
        return 1e-4 if record.endswith("'") else base

    return tol


@pytest.mark.parametrize("dt", ["float64", "float32"])
@pytest.mark.parametrize("name", PROGRAMS)
def test_program_matches_torch(name, dt):
    """assert_program_matches, but where this host's torch convolves a bfloat16 input on its
    slow kernels (an AVX2 AMD EPYC), their "expected scalar type" is read as the oneDNN refusal
    minitorch gives (p_mismatch_errors' conv; see as_onednn_records)."""
    import minitorch

    prog = globals()["p_" + name]
    want = run_program(prog, torch, dt, rec=Rec(dtypes=True))
    got = run_program(prog, minitorch, dt, rec=Rec(dtypes=True))
    assert_records_match(as_onednn_records(want, got), got, _tol(name, dt), rename=True)


# --- helpers ---


def _bits(lib, x):
    """The 16-bit patterns of a bfloat16 tensor, as int32 (exact comparison of roundings)."""
    return x.view(lib.int16).to(lib.int32) & 0xFFFF


def _dyadic(lib, dt, seed, *shape, scale=16):
    """Small dyadic numbers k/scale with |k| <= 2*scale: exact in bfloat16 and in float32 sums."""
    return (_randn(lib, dt, seed, *shape) * scale).round().clamp(-2 * scale, 2 * scale) / scale


# --- the programs: each takes the library, a dtype and a recorder ---


def p_cast_rne(lib, dt, rec):
    bf = lib.bfloat16
    one = 1.0
    ulp = 2.0**-7
    vals = [
        one, one + ulp / 2, one + 3 * ulp / 2, one + ulp / 4, one + 3 * ulp / 4,
        -(one + ulp / 2), -(one + 3 * ulp / 2), 2.0 + ulp, 3.0 + 3 * ulp,
        0.1, -0.1, 1.0 / 3, 65504.0, 65505.0, 1e10, -1e-10, 0.0, -0.0,
        256.0 + 1.0, 256.0 + 3.0, 3.3895313892515355e38, 3.3961e38, 3.4e38,
        float("inf"), float("-inf"),
    ]  # fmt: skip
    # (a NaN's bits are not recorded: torch's vectorised cast gives 0xffff, its scalar one 0x7fc0)
    x = lib.tensor(vals + [float("nan")], dtype=dt)
    b = x.to(bf)
    rec("b", b)
    rec("bits", _bits(lib, b[:-1]))
    rec("signbit", lib.signbit(b[:-1]))
    rec("isnan", lib.isnan(b))
    rec("isinf", lib.isinf(b))
    rec("back", b.to(dt))
    rec("bfloat16()", x.bfloat16())
    rec("type", x.type(lib.bfloat16).dtype == bf)
    rec("to_kw", x.to(dtype=bf))
    rec("item", b[10].item())
    rec("tolist", str(b[:12].tolist()))
    rec("float_max", lib.tensor(3.4028234663852886e38, dtype=lib.float32).to(bf))
    rec("float_max_neg", lib.tensor(-3.4028234663852886e38, dtype=lib.float32).to(bf))


def p_cast_subnormal(lib, dt, rec):
    bf = lib.bfloat16
    tiny = 2.0**-126  # the least normal bfloat16 (as float32's)
    sub = 2.0**-133  # the least subnormal bfloat16
    vals = [
        tiny, tiny / 2, sub, sub / 2, 3 * sub / 2, 5 * sub / 2, sub / 4, 3 * sub / 4,
        -sub / 2, -3 * sub / 2, tiny - sub, tiny - sub / 2, 2.0**-140, 1e-45,
    ]  # fmt: skip
    x = lib.tensor(vals, dtype=lib.float32).to(dt)
    b = x.to(bf)
    rec("bits", _bits(lib, b))
    rec("back", b.to(lib.float64))
    rec("signbit", lib.signbit(b))
    rec("tiny_times_half", _bits(lib, b[:1] * 0.5))
    rec("sub_div2", _bits(lib, b[2:3] / 2))
    rec("sub_mul3", _bits(lib, b[2:3] * 3))
    rec("finfo_tiny", lib.tensor(lib.finfo(bf).tiny, dtype=dt).to(bf) == b[0])
    rec("nonzero", lib.count_nonzero(b))


def p_cast_double_round(lib, dt, rec):
    # A float64 value rounds to float32 first, then to bfloat16 (torch's casts do).
    bf = lib.bfloat16
    vals = [
        1.0 + 2.0**-8 + 2.0**-30, 1.0 + 2.0**-8 - 2.0**-30, 1.0 + 3 * 2.0**-8 + 2.0**-40,
        -(1.0 + 2.0**-8 + 2.0**-30), 1.0 + 2.0**-8 + 2.0**-20,
    ]  # fmt: skip
    rec("tensor_f64", _bits(lib, lib.tensor(vals, dtype=lib.float64).to(bf)))
    rec("tensor_direct", _bits(lib, lib.tensor(vals, dtype=bf)))
    rec("full", _bits(lib, lib.full((2,), vals[0], dtype=bf)))
    rec("f32_then", _bits(lib, lib.tensor(vals, dtype=lib.float32).to(bf)))
    x = lib.tensor(vals, dtype=dt)
    rec("x", _bits(lib, x.to(bf)))
    y = lib.zeros(5, dtype=bf)
    y.copy_(x)
    rec("copy_", _bits(lib, y))
    y.fill_(vals[0])
    rec("fill_", _bits(lib, y))
    z = lib.zeros(5, dtype=bf)
    z[:] = x
    rec("setitem", _bits(lib, z))
    z[1] = vals[0]
    rec("setitem_scalar", _bits(lib, z))


def p_cast_ints(lib, dt, rec):
    bf = lib.bfloat16
    i = lib.tensor([0, 1, -1, 255, 256, 257, 258, 259, 1000, 4097, 65535, 2**24 + 1,
                    2**31 - 1, -(2**40) - 2**32, 2**62], dtype=lib.int64)  # fmt: skip
    b = i.to(bf)
    rec("from_int64", b)
    rec("bits", _bits(lib, b))
    rec("from_int32", i[:10].to(lib.int32).to(bf))
    rec("from_int8", lib.tensor([-128, -7, 0, 127], dtype=lib.int8).to(bf))
    rec("from_uint8", lib.tensor([0, 129, 255], dtype=lib.uint8).to(bf))
    rec("from_bool", lib.tensor([True, False]).to(bf))
    f = lib.tensor([-2.75, -1.5, -0.5, 0.5, 1.5, 2.5, 100.9, 255.0, -128.0], dtype=dt).to(bf)
    rec("to_int64", f.to(lib.int64))
    rec("to_int32", f.long().int())
    rec("to_int16", f.to(lib.int16))
    rec("to_int8", f[:6].to(lib.int8))
    rec("to_uint8", f[3:8].to(lib.uint8))
    rec("to_bool", lib.tensor([0.0, -0.0, 1e-30, float("nan")], dtype=dt).to(bf).bool())
    rec("trunc", f.trunc())
    rec("round", f.round())
    rec("floor", f.floor())
    rec("ceil", f.ceil())
    rec("int_of_item", int(f[0].item()))


def p_cast_half(lib, dt, rec):
    bf, f16 = lib.bfloat16, lib.float16
    x = lib.tensor([1.0, 1.0 + 2.0**-10, 1.0 + 2.0**-9 + 2.0**-10, 65504.0, 70000.0,
                    1e-5, 6e-8, 3e-8, 1e5, -1e6, 0.1, float("nan")], dtype=dt)  # fmt: skip
    h = x.to(f16)
    rec("half", h)
    rec("half_bits", h.view(lib.int16))
    rec("half_to_bf", _bits(lib, h.to(bf)))
    b = x.to(bf)
    rec("bf_to_half", b.to(f16))
    rec("bf_to_half_bits", b[:-1].to(f16).view(lib.int16))
    rec("half()", b.half())
    rec("half_promote", (h + b).dtype == lib.float32)
    rec("half_plus_bf", h[:4] + b[:4])
    rec("f16_finfo", str((lib.finfo(f16).eps, lib.finfo(f16).max, lib.finfo(f16).tiny)))
    rec("f16_sum", lib.full((3000,), 1.0, dtype=f16).sum())
    rec("f16_cumsum_end", lib.full((3000,), 1.0, dtype=f16).cumsum(0)[-3:])


def p_promote_tensors(lib, dt, rec):
    bf = lib.bfloat16
    b = lib.tensor([1.5, -2.0, 0.1], dtype=bf)
    x = lib.tensor([0.25, 3.0, 0.2], dtype=dt)
    i = lib.tensor([1, 2, 3])
    rec("bf+x", b + x)
    rec("bf+f16", b + x.half())
    rec("bf+i64", b + i)
    rec("i64*bf", i * b)
    rec("bf+i8", b + i.to(lib.int8))
    rec("bf+bool", b + lib.tensor([True, False, True]))
    rec("bf+x0d", b + lib.tensor(0.1, dtype=dt))
    rec("x+bf0d", x + lib.tensor(0.1, dtype=bf))
    rec("i+bf0d", i + lib.tensor(0.1, dtype=bf))
    rec("bf0d+f16_0d", lib.tensor(0.1, dtype=bf) + lib.tensor(0.1, dtype=lib.float16))
    rec("bf0d+f64_0d", lib.tensor(0.1, dtype=bf) + lib.tensor(0.1, dtype=lib.float64))
    rec("i/i_bf", i / i.to(bf))
    rec("where", lib.where(b > 0, b, x))
    rec("where_scalar", lib.where(b > 0, b, 0.3))
    rec("cat", lib.cat([b, x]))
    rec("cat_int", lib.cat([b, i]))
    rec("stack_f16", lib.stack([b, x.half()]))
    rec("maximum", lib.maximum(b, x))
    rec("atan2", lib.atan2(b, i))
    rec("addcmul", lib.addcmul(b, x, i, value=0.5))
    rec("lerp", lib.lerp(b, b * 2, 0.3))
    rec("clamp_t", lib.clamp(b, min=x))
    rec("clamp_f", lib.clamp(b, 0.0, 0.15))
    rec("dot", lib.dot(b, b))


def p_promote_scalars(lib, dt, rec):
    bf = lib.bfloat16
    b = lib.tensor([1.0, 3.0, 100.0, -7.0], dtype=bf)
    rec("plus_float", b + 0.1)
    rec("plus_int", b + 1)
    rec("plus_bool", b + True)
    rec("times_third", b * (1 / 3))
    rec("div_int", b / 3)
    rec("rdiv", 1 / b)
    rec("pow2", b**2)
    rec("pow_half", b.abs() ** 0.5)
    rec("rpow", 2**b[:2])
    rec("sub_big", b - 1e10)
    rec("tiny_add", b + 1e-3)
    rec("floordiv", b // 2.5)
    rec("mod", b % 2.5)
    rec("fmod", lib.fmod(b, 2.5))
    rec("int_tensor_plus_float", lib.tensor([1, 2]) + 0.1)
    lib.set_default_dtype(lib.float64)
    try:
        rec("default64_int_plus_float", lib.tensor([1, 2]) + 0.1)
        rec("default64_bf", b + 0.1)
    finally:
        lib.set_default_dtype(lib.float32)


def p_result_type(lib, dt, rec):
    bf, f16 = lib.bfloat16, lib.float16
    b = lib.ones(2, dtype=bf)
    for name, other in [("i", 1), ("f", 1.0), ("b", True),
                        ("f16t", lib.ones(2, dtype=f16)), ("f32t0", lib.tensor(1.0)),
                        ("i64t", lib.ones(2, dtype=lib.int64)), ("dt", lib.ones(1, dtype=dt))]:
        rec("rt." + name, str(lib.result_type(b, other)))
    pairs = [(bf, f16), (bf, lib.float32), (bf, lib.int64), (bf, lib.bool), (f16, lib.uint8),
             (bf, bf), (bf, dt)]  # fmt: skip
    for a, c in pairs:
        rec(f"pt.{a}.{c}", str(lib.promote_types(a, c)))
    for a, c in [(bf, f16), (f16, bf), (bf, lib.float32), (lib.float32, bf), (bf, lib.int32),
                 (lib.int32, bf), (bf, lib.bool)]:  # fmt: skip
        rec(f"cc.{a}.{c}", lib.can_cast(a, c))
    rec("is_fp", str((bf.is_floating_point, bf.is_signed, bf.itemsize, bf.is_complex)))


def p_arith(lib, dt, rec):
    bf = lib.bfloat16
    a = _randn(lib, dt, 1, 40).to(bf)
    c = _randn(lib, dt, 2, 40).to(bf)
    rec("a", a)
    rec("add", a + c)
    rec("sub", a - c)
    rec("mul", a * c)
    rec("div", a / c)
    rec("neg", -a)
    rec("abs", a.abs())
    rec("sq", a * a)
    rec("sqrt", a.abs().sqrt())
    rec("reciprocal", c.reciprocal())
    rec("max", lib.maximum(a, c))
    rec("sign", a.sign())
    rec("fma_like", a * c + a)
    rec("addcdiv", lib.addcdiv(a, a, c.abs() + 1, value=0.5))
    rec("div_floor", lib.div(a, c, rounding_mode="floor"))
    rec("div_trunc", lib.div(a, c, rounding_mode="trunc"))
    rec("square", a.square())
    rec("clamp", a.clamp(-0.5, 0.5))
    rec("relu", lib.relu(a))
    rec("exact_sum", (a[:5] * 0 + 1) + (c[:5] * 0 + 2))


def p_scalar_ops(lib, dt, rec):
    bf = lib.bfloat16
    x = lib.tensor([1.0, 1.0078125, 2.0, 255.0, 256.0, 0.5, -3.0], dtype=bf)
    for s in [0.1, 1 / 3, 0.00390625, 0.001953125, 0.0029296875, 1e-3, 2.5]:
        rec(f"add{s}", _bits(lib, x + s))
        rec(f"mul{s}", _bits(lib, x * s))
        rec(f"div{s}", _bits(lib, x / s))
        rec(f"rsub{s}", _bits(lib, s - x))
    # torch's scalar kernel rounds alpha * other to bfloat16 before adding, its vectorised one
    # does not (so the SIMD width decides): only powers of two as alpha
    rec("add_alpha", _bits(lib, lib.add(x, x, alpha=0.25)))
    rec("sub_alpha", _bits(lib, lib.sub(x, x, alpha=-2.0)))
    y = x.clone()
    y.mul_(0.1)
    rec("mul_", _bits(lib, y))
    y.add_(x, alpha=0.5)
    rec("add_alpha_", _bits(lib, y))
    rec("eq_scalar", x * 0 + 0.1 == 0.1)
    rec("eq_f32", (x * 0 + 0.1) == lib.tensor([0.1] * 7))


def p_inplace(lib, dt, rec):
    bf = lib.bfloat16
    b = lib.tensor([1.0, 2.0, 3.0], dtype=bf)
    x = lib.tensor([0.1, 0.2, 0.3], dtype=dt)
    y = b.clone()
    y += x
    rec("iadd_f", y)
    y *= 1.1
    rec("imul_s", y)
    y -= lib.tensor([1, 1, 1])
    rec("isub_i", y)
    y /= 3
    rec("idiv", y)
    i = lib.tensor([1, 2, 3])
    rec.err("int_iadd_bf", lambda: i.add_(b))
    rec.err("int_imul_float", lambda: i.mul_(1.5))
    f = x.clone()
    f.add_(b)
    rec("f_iadd_bf", f)
    h = lib.ones(3, dtype=lib.float16)
    h.add_(b)
    rec("f16_iadd_bf", h)
    rec.err("bool_iadd", lambda: lib.tensor([True]).add_(lib.ones(1, dtype=bf)))
    z = lib.zeros(3, dtype=bf)
    z.copy_(lib.tensor([1, 257, 513]))
    rec("copy_int", z)
    out = lib.empty(3, dtype=bf)
    lib.add(x, x, out=out)
    rec("out_bf", out)
    rec.err("out_int", lambda: lib.add(b, b, out=lib.empty(3, dtype=lib.int64)))
    o2 = lib.empty(3, dtype=dt)
    lib.mul(b, b, out=o2)
    rec("out_wide", o2)
    m = b.clone()
    m.masked_fill_(m > 1.5, 0.1)
    rec("masked_fill", m)
    m.clamp_(max=0.5)
    rec("clamp_", m)
    m.index_add_(0, lib.tensor([0, 0]), lib.tensor([0.25, 0.5], dtype=bf))
    rec("index_add_", m)


def p_compare(lib, dt, rec):
    bf = lib.bfloat16
    b = lib.tensor([0.1, 0.2, 1.0, 256.0, 257.0], dtype=bf)
    rec("eq_float", b == 0.1)
    rec("eq_257", b == 257)
    rec("eq_256", b == 256.0)
    rec("lt_f32", b < lib.tensor([0.1, 0.2, 1.0, 256.0, 257.0], dtype=dt))
    rec("eq_f32", b == lib.tensor([0.1, 0.2, 1.0, 256.0, 257.0], dtype=dt))
    rec.err("isclose", lambda: lib.isclose(b, lib.tensor([0.1, 0.2, 256.0, 257.0, 1], dtype=dt)))
    rec("allclose", lib.allclose(b.float(), lib.tensor([0.1, 0.2, 1.0, 256.0, 257.0])))
    rec("isclose_bf", lib.isclose(b, b + 0.001))
    rec("equal", lib.equal(b, b.clone()))
    rec("ge_int", b >= lib.tensor([0, 0, 1, 256, 257]))
    rec("argmax", b.argmax())
    rec("max", b.max())
    rec("sort", b.flip(0).sort().values)
    rec("topk", b.topk(2).values)
    rec("unique", lib.unique(lib.tensor([1.0, 1.001, 2.0, 2.0078125], dtype=bf)))
    rec("nan_eq", lib.tensor([float("nan")], dtype=bf) == lib.tensor([float("nan")], dtype=bf))
    rec("assert_close", str(lib.testing.assert_close(b, b.clone())))


def p_reductions(lib, dt, rec):
    bf = lib.bfloat16
    steps = lib.cat([lib.ones(1, dtype=dt), lib.full((512,), 2.0**-9, dtype=dt)]).to(bf)
    rec("sum_steps", steps.sum())
    rec("sum_steps_f32", steps.sum(dtype=lib.float32))
    rec("mean_steps", steps.mean())
    rec("nansum", steps.nansum())
    big = lib.ones(1000, dtype=bf)
    rec("sum_ones", big.sum())
    rec("sum_ones_dtype", str(big.sum().dtype))
    x = _dyadic(lib, dt, 3, 6, 40).to(bf)
    rec("x", x)
    rec("sum0", x.sum(0))
    rec("sum1", x.sum(1, keepdim=True))
    rec("sum_all", x.sum())
    rec("mean1", x.mean(1))
    rec("mean_f32", x.mean(1, dtype=lib.float32))
    rec("amax", x.amax(1))
    rec("max_dim", x.max(1).values)
    rec("min_dim_idx_dtype", str(x.min(1).indices.dtype))
    rec("abs_sum", x.abs().sum(1))
    rec("norm1", x.norm(p=1, dim=1))
    p = (lib.ones(8, dtype=dt) * 1.5).to(bf)
    rec("prod", p.prod())
    rec("prod_big", lib.full((100,), 2.0, dtype=bf).prod())
    rec("prod_dim", lib.full((3, 4), 2.0, dtype=bf).prod(1))
    rec("int_sum_dtype", str(lib.tensor([1, 2], dtype=lib.int8).sum().dtype))
    rec("bool_sum", lib.tensor([True, True]).sum())
    rec("count", (x > 0).sum(1))
    rec.err("int_mean", lambda: lib.tensor([1, 2]).mean())
    rec("int_mean_dtype", lib.tensor([1, 2]).mean(dtype=bf))
    rec("sum_list", lib.sum(x, dim=[0, 1]))
    rec("any", x.bool().any())


def p_cumulative(lib, dt, rec):
    bf = lib.bfloat16
    steps = lib.full((600,), 2.0**-9, dtype=dt).to(bf)
    steps[0] = 1.0
    c = steps.cumsum(0)
    rec("cumsum", c)
    rec("cumsum_dtype", str(c.dtype))
    rec("cumsum_f32", steps.cumsum(0, dtype=lib.float32)[-3:])
    ones = lib.ones(400, dtype=bf)
    rec("cumsum_ones", ones.cumsum(0)[250:262])
    rec("cumprod", lib.full((10,), 1.5, dtype=bf).cumprod(0))
    rec("cummax", lib.tensor([1.0, 3.0, 2.0, 5.0], dtype=bf).cummax(0).values)
    x = _dyadic(lib, dt, 5, 4, 30).to(bf)
    rec("cumsum1", x.cumsum(1))
    rec("logcumsumexp_dtype", str(x.logcumsumexp(1).dtype))
    rec("diff", x.diff(dim=1))


def p_matmul(lib, dt, rec):
    bf = lib.bfloat16
    a = _dyadic(lib, dt, 7, 5, 16).to(bf)
    w = _dyadic(lib, dt, 8, 16, 3).to(bf)
    rec("mm", a @ w)
    rec("mm_dtype", str((a @ w).dtype))
    rec("mv", a @ w[:, 0])
    rec("bmm", lib.bmm(a.reshape(1, 5, 16).expand(2, 5, 16), w.expand(2, 16, 3)))
    rec("einsum", lib.einsum("ik,kj->ij", a, w))
    rec("outer", lib.outer(a[0], w[:, 0]))
    rec("addmm", lib.addmm(lib.ones(3, dtype=bf), a, w, beta=0.5, alpha=2.0))
    # an inner product of 300 terms: each term exact, sums kept in float32 and rounded once
    u = lib.full((300,), 1.0, dtype=bf)
    v = lib.full((300,), 1.0, dtype=bf)
    rec("dot300", u @ v)
    rec("mm300", u.reshape(1, 300) @ v.reshape(300, 1))
    rec("matmul_f32", a.float() @ w.float())
    rec("tensordot", lib.tensordot(a, w, dims=1))
    m = _dyadic(lib, dt, 9, 2, 4, 6).to(bf)
    rec("matmul_bcast", m @ w[:6])
    rec("baddbmm", lib.baddbmm(lib.zeros(2, 4, 3, dtype=bf), m, w[:6].expand(2, 6, 3)))


def p_linear_conv(lib, dt, rec):
    bf = lib.bfloat16
    F = lib.nn.functional
    x = _dyadic(lib, dt, 10, 2, 3, 6, 6, scale=4).to(bf)
    w = _dyadic(lib, dt, 11, 4, 3, 3, 3, scale=4).to(bf)
    b = _dyadic(lib, dt, 12, 4, scale=4).to(bf)
    rec("conv2d", F.conv2d(x, w, b, padding=1))
    rec("conv2d_stride", F.conv2d(x, w, None, stride=2))
    rec("conv1d", F.conv1d(x[:, :, 0], w[:, :, 0], b))
    rec("conv_t", F.conv_transpose2d(x[:, :, :3, :3], w.transpose(0, 1), None, stride=2))
    lw = _dyadic(lib, dt, 13, 5, 6, scale=4).to(bf)
    rec("linear", F.linear(x, lw, b[:1].expand(5)))
    rec("linear_nobias", F.linear(x[0, 0], lw))
    rec("avg_pool", F.avg_pool2d(x, 2))
    rec("max_pool", F.max_pool2d(x, 2))
    rec("pad", F.pad(x, (1, 1), value=0.1))
    rec("interp", F.interpolate(x, scale_factor=2, mode="nearest"))


def p_module_convert(lib, dt, rec):
    nn = lib.nn
    lib.manual_seed(0)
    m = nn.Sequential(
        nn.Conv2d(3, 4, 3), nn.BatchNorm2d(4), nn.ReLU(), nn.Flatten(), nn.Linear(16, 5),
        nn.LayerNorm(5), nn.Embedding(4, 5) if False else nn.Identity(),
    ).to(dt)
    mb = m.to(lib.bfloat16)
    rec("same", mb is m)
    rec("dtypes", str([p.dtype for p in m.parameters()]))
    rec("buffers", str([(n, b.dtype) for n, b in m.named_buffers()]))
    m.float()
    rec("float_dtypes", str(sorted({str(p.dtype) for p in m.parameters()})))
    m.bfloat16()
    rec("bf_again", str(sorted({str(p.dtype) for p in m.parameters()})))
    rec("nbt", str(m[1].num_batches_tracked.dtype))
    m.half()
    rec("half", str(sorted({str(b.dtype) for b in m.buffers()})))
    m.to(dtype=lib.bfloat16)
    e = nn.Embedding(6, 3).to(dt).bfloat16()
    rec("emb", str(e.weight.dtype))
    rec("emb_out", str(e(lib.tensor([1, 2])).dtype))
    g = nn.GRU(3, 4)
    g.bfloat16()
    rec("gru", str({str(p.dtype) for p in g.parameters()}))
    rec.err("to_int", lambda: nn.Linear(2, 2).to(lib.int64))
    p = nn.Linear(2, 2).to(dt)
    p.weight.requires_grad_(False)
    p.bfloat16()
    rec("rg_kept", p.weight.requires_grad)
    rec("is_param", isinstance(p.weight, nn.Parameter))
    q = nn.Linear(2, 2)
    w_before = q.weight
    q.bfloat16()
    rec("new_param_obj", q.weight is w_before)


def p_state_dict(lib, dt, rec):
    nn = lib.nn
    lib.manual_seed(1)
    src = nn.Sequential(nn.Linear(4, 3), nn.BatchNorm1d(3)).to(dt)
    with lib.no_grad():
        src[0].weight.mul_(1.0 / 3)
    dst = nn.Sequential(nn.Linear(4, 3), nn.BatchNorm1d(3)).bfloat16()
    r = dst.load_state_dict(src.state_dict())
    rec("ret", str(r))
    rec("w", dst[0].weight)
    rec("w_dtype", str(dst[0].weight.dtype))
    rec("rm_dtype", str(dst[1].running_mean.dtype))
    sd = dst.state_dict()
    rec("sd_dtypes", str([(k, v.dtype) for k, v in sd.items()]))
    back = nn.Sequential(nn.Linear(4, 3), nn.BatchNorm1d(3)).to(dt)
    back.load_state_dict(sd)
    rec("back", back[0].weight)
    x = lib.ones(2, 4, dtype=dt) / 3
    dst.eval()
    rec("fwd", dst(x.bfloat16()))


def p_grads(lib, dt, rec):
    bf = lib.bfloat16
    x = _dyadic(lib, dt, 14, 6, scale=8).to(bf).requires_grad_(True)
    y = (x * x * 3).sum()
    y.backward()
    rec("y", y)
    rec("g", x.grad)
    rec("g_dtype", str(x.grad.dtype))
    (x * 0.1).sum().backward()
    rec("g_acc", x.grad)
    w = x.detach().float().requires_grad_(True)
    z = (w.bfloat16() * 2).sum()
    z.backward()
    rec("g_through_cast", w.grad)
    rec("g_cast_dtype", str(w.grad.dtype))
    t = x.detach().clone().requires_grad_(True)
    u = (t.to(dt) * lib.tensor(1 / 3, dtype=dt)).sum()
    u.backward()
    rec("g_up_cast", t.grad)
    a = lib.ones(3, dtype=bf, requires_grad=True)
    rec.err("assign_grad", lambda: setattr(a, "grad", lib.ones(3)))
    (gr,) = lib.autograd.grad((a * 3).sum(), a, create_graph=True)
    rec("grad_cg", gr)
    rec("grad_fn", type((a * 3).grad_fn).__name__)
    rec("to_grad_fn", type(w.bfloat16().grad_fn).__name__)
    m = lib.tensor([0.5, -1.5, 2.0], dtype=bf, requires_grad=True)
    lib.nn.functional.softmax(m, 0).pow(2).sum().backward()
    rec("softmax_g", m.grad)
    k = lib.tensor([1.0, 2.0], dtype=bf, requires_grad=True)
    k.sum().backward(lib.tensor(0.1, dtype=bf))
    rec("backward_arg", k.grad)


def _mlp(lib, dt):
    nn = lib.nn
    lib.manual_seed(3)
    return nn.Sequential(nn.Linear(6, 8), nn.Tanh(), nn.Linear(8, 3)).to(dt)


def p_master_train(lib, dt, rec):
    # A bfloat16 model with float master weights: forward and backward in bfloat16, gradients
    # copied to the masters, an SGD step on the masters, the masters copied back.
    master = _mlp(lib, dt)
    model = _mlp(lib, dt).bfloat16()
    model.load_state_dict(master.state_dict())
    opt = lib.optim.SGD(master.parameters(), lr=0.1, momentum=0.9)
    x = _randn(lib, dt, 20, 10, 6).bfloat16()
    y = _randn(lib, dt, 21, 10, 3).bfloat16()
    for step in range(3):
        model.zero_grad()
        out = model(x)
        loss = lib.nn.functional.mse_loss(out, y)
        rec(f"loss{step}", loss.float())
        loss.backward()
        for mp, p in zip(master.parameters(), model.parameters(), strict=True):
            mp.grad = p.grad.to(mp.dtype)
        opt.step()
        with lib.no_grad():
            for mp, p in zip(master.parameters(), model.parameters(), strict=True):
                p.copy_(mp)
    rec.params("master", master)
    rec("out_dtype", str(out.dtype))
    rec("loss_dtype", str(loss.dtype))


def p_autocast_ops(lib, dt, rec):
    F = lib.nn.functional
    a = _randn(lib, dt, 30, 4, 5).float()
    w = _randn(lib, dt, 31, 3, 5).float()
    with lib.autocast("cpu", dtype=lib.bfloat16):
        rec("enabled", lib.is_autocast_enabled("cpu"))
        rec("dtype", str(lib.get_autocast_dtype("cpu")))
        y = F.linear(a, w)
        rec("linear", str(y.dtype))
        rec("mm", str((a @ w.t()).dtype))
        rec("relu", str(F.relu(y).dtype))
        rec("softmax", str(F.softmax(y, -1).dtype))
        rec("log_softmax", str(F.log_softmax(y, -1).dtype))
        rec("add_mixed", str((y + a[:, :3]).dtype))
        rec("mse", str(F.mse_loss(y, a[:, :3]).dtype))
        rec("ce", str(F.cross_entropy(y, lib.tensor([0, 1, 2, 0])).dtype))
        rec("sum", str(y.sum().dtype))
        rec("layer_norm", str(F.layer_norm(y, (3,)).dtype))
        rec("cat", str(lib.cat([y, a[:, :3]]).dtype))
        rec("stack", str(lib.stack([y, a[:, :3]]).dtype))
        rec("bmm", str(lib.bmm(a[None], w.t()[None]).dtype))
        with lib.autocast("cpu", enabled=False):
            rec("disabled", str((a @ w.t()).dtype))
            rec("inner_enabled", lib.is_autocast_enabled("cpu"))
        rec("restored", lib.is_autocast_enabled("cpu"))
    rec("after", lib.is_autocast_enabled("cpu"))
    rec("val", y.float())
    rec("f64_linear_dtype", str(F.linear(a.to(dt), w.to(dt)).dtype))
    with lib.autocast("cpu"):
        rec("default_dtype", str(lib.get_autocast_dtype("cpu")))
        rec("f64_in", str(F.linear(a.double(), w.double()).dtype))
    with lib.autocast("cpu", dtype=lib.float16):
        rec("f16_linear", str(F.linear(a, w).dtype))
    ctx = lib.autocast("cpu", dtype=lib.float32)
    rec.warns("f32_autocast", ctx.__enter__)
    ctx.__exit__(None, None, None)  # (else the autocast nesting stays raised in this process)
    lib.set_autocast_enabled("cpu", False)
    lib.set_autocast_dtype("cpu", lib.bfloat16)


def p_repr(lib, dt, rec):
    bf = lib.bfloat16
    rec("small", repr(lib.tensor([0.1, 1.0, 2.5, -3.0], dtype=bf)))
    rec("ints", repr(lib.tensor([1.0, 2.0, 300.0], dtype=bf)))
    rec("big", repr(lib.tensor([1e10, 1.0, -2.0], dtype=bf)))
    rec("tiny", repr(lib.tensor([1e-8, 1.0], dtype=bf)))
    rec("nonfinite", repr(lib.tensor([float("inf"), float("nan"), -1.5], dtype=bf)))
    rec("zero_d", repr(lib.tensor(0.1, dtype=bf)))
    rec("str", str(lib.tensor([[0.1, 0.2], [0.3, 0.4]], dtype=bf)))
    rec("rg", repr(lib.tensor([0.1], dtype=bf, requires_grad=True)))
    rec("grad_fn", repr(lib.tensor([0.1], dtype=bf, requires_grad=True) * 2))
    rec("empty", repr(lib.zeros(0, dtype=bf)))
    rec("empty2", repr(lib.zeros(2, 0, dtype=bf)))
    rec("half", repr(lib.tensor([0.1, 65504.0], dtype=lib.float16)))
    rec("long", repr(lib.arange(0, 1200, dtype=bf)))
    rec("dtype", repr(bf))
    rec("dtype_str", str(bf))
    rec("type", lib.ones(1, dtype=bf).type())
    rec("half_type", lib.ones(1, dtype=lib.float16).type())
    with_opts = lib.tensor([1.0 / 3, 2.0], dtype=bf)
    lib.set_printoptions(precision=8)
    try:
        rec("precision8", repr(with_opts))
    finally:
        lib.set_printoptions(profile="default")
    rec("x_dt", repr(lib.tensor([0.1], dtype=dt).bfloat16()))
    rec("param", repr(lib.nn.Parameter(lib.tensor([0.5, 0.25], dtype=bf))))


def p_finfo(lib, dt, rec):
    fi = lib.finfo(lib.bfloat16)
    for k in ("bits", "eps", "max", "min", "tiny", "smallest_normal", "resolution"):
        rec(k, repr(getattr(fi, k)))
    rec("dtype", fi.dtype)
    rec("repr", repr(fi))
    h = lib.finfo(lib.float16)
    rec("h_repr", repr(h))
    rec("eq", lib.finfo(lib.bfloat16) == fi)
    rec("eps_is_ulp", lib.tensor(1.0, dtype=lib.bfloat16) + fi.eps / 2 == 1.0)
    rec("eps_add", (lib.tensor(1.0, dtype=lib.bfloat16) + fi.eps).item())
    rec("max_times2", lib.tensor(fi.max, dtype=lib.bfloat16) * 2)
    rec("finfo_dt", repr(lib.finfo(dt)))
    rec.err("finfo_int", lambda: lib.finfo(lib.int32))
    rec.err("iinfo_bf", lambda: lib.iinfo(lib.bfloat16))


def p_errors(lib, dt, rec):
    bf = lib.bfloat16
    a = (lib.eye(3, dtype=dt) * 2).to(bf)
    rec.err("inv", lambda: lib.linalg.inv(a))
    rec.err("det", lambda: lib.linalg.det(a))
    rec.err("solve", lambda: lib.linalg.solve(a, a))
    rec.err("cholesky", lambda: lib.linalg.cholesky(a))
    rec.err("qr", lambda: lib.linalg.qr(a))
    rec.err("eigh", lambda: lib.linalg.eigh(a))
    rec.err("svd", lambda: lib.linalg.svd(a))
    rec.err("bitwise", lambda: a & a)
    rec.err("lshift", lambda: a << 1)
    rec.err("gcd", lambda: lib.gcd(a, a))
    rec.err("randint", lambda: lib.randint(0, 5, (2,), dtype=bf))
    rec.err("multinomial", lambda: lib.multinomial(lib.ones(3, dtype=bf), 2).dtype)
    rec.err("bincount", lambda: lib.bincount(lib.tensor([0, 1]), weights=lib.ones(2, dtype=bf)))
    rec.err("histc", lambda: lib.histc(a, bins=3))
    rec.err("lstsq", lambda: lib.linalg.lstsq(a, a))
    rec.err("matrix_exp", lambda: lib.linalg.matrix_exp(a))
    rec.err("trace", lambda: lib.trace(a))
    rec.err("eig", lambda: lib.linalg.eig(a))
    rec.err("eigvals", lambda: lib.linalg.eigvals(a.half()))
    rec.err("eigvals_empty", lambda: lib.linalg.eigvals(a[:0, :0]))
    rec.err("eig_rank", lambda: lib.linalg.eig(a[0]))
    rec.err("eig_square", lambda: lib.linalg.eigvals(a[:2]))


def p_factories(lib, dt, rec):
    bf = lib.bfloat16
    rec("arange", lib.arange(250, 270, dtype=bf))
    rec("arange_step", lib.arange(0, 1, 0.1, dtype=bf))
    rec("linspace", lib.linspace(0, 1, 11, dtype=bf))
    rec("linspace_big", lib.linspace(250, 270, 21, dtype=bf))
    rec("logspace", lib.logspace(0, 3, 4, dtype=bf))
    rec("full", lib.full((2,), 0.1, dtype=bf))
    rec("full_int", lib.full((2,), 257, dtype=bf))
    rec("eye", lib.eye(2, dtype=bf))
    rec("zeros_like", lib.zeros_like(lib.ones(2, dtype=bf)))
    rec("ones_like_dt", lib.ones_like(lib.ones(2, dtype=bf), dtype=dt))
    rec("tensor_nested", lib.tensor([[0.1, 1], [True, 2.5]], dtype=bf))
    rec("as_tensor", lib.as_tensor([0.3, 0.7], dtype=bf))
    rec("tensor_from_bf", lib.tensor(lib.tensor([0.1], dtype=bf)).dtype == bf)
    rec("new_tensor", lib.ones(1, dtype=bf).new_tensor([0.1, 0.2]))
    rec("new_full", lib.ones(1, dtype=bf).new_full((2,), 1 / 3))
    rec("tril", lib.ones(3, 3, dtype=bf).tril())
    g = lib.Generator().manual_seed(0)
    rec("randn_dtype", str(lib.randn(3, dtype=bf, generator=g).dtype))
    rec("rand_range", bool(((lib.rand(100, dtype=bf, generator=g) >= 0)).all()))
    rec("empty_dtype", str(lib.empty(2, dtype=bf).dtype))
    rec("scalar_tensor", lib.scalar_tensor(0.1, dtype=bf))


def p_misc_methods(lib, dt, rec):
    bf = lib.bfloat16
    x = lib.tensor([0.1, 2.5, -1.0], dtype=bf)
    rec("element_size", x.element_size())
    rec("itemsize", x.itemsize)
    rec("nbytes", x.nbytes)
    rec("is_fp", x.is_floating_point())
    rec("float", float(x[0]))
    rec("int", int(x[1]))
    rec("bool", bool(x[2]))
    rec("view_int16", x.view(lib.int16))
    rec("view_f16", x.view(lib.float16).float())
    rec("view_back", lib.tensor([16256, -16512], dtype=lib.int16).view(bf))
    rec("storage_dtype", str(x.untyped_storage().nbytes()))
    rec("clone_dtype", str(x.clone().dtype))
    rec("detach_dtype", str(x.detach().dtype))
    rec("contig", x.contiguous())
    rec("type_as", x.type_as(lib.ones(1, dtype=dt)))
    rec("new_zeros", str(x.new_zeros(2).dtype))
    rec("is_bf", x.dtype == lib.bfloat16)
    rec("to_same", x.to(bf) is x)
    rec("to_copy", x.to(bf, copy=True) is x)
    rec("double", x.double())
    rec("dtype_kw_like", lib.empty_like(x).dtype == bf)
    rec("hash_eq", lib.bfloat16 == lib.bfloat16 and lib.bfloat16 != lib.float16)
    rec("bfloat16_attr", str(lib.tensor([1.0], dtype=bf).dtype.is_floating_point))


def p_optim_bf16(lib, dt, rec):
    # Optimizers stepping bfloat16 parameters directly (no master copy).
    bf = lib.bfloat16
    for name in ("SGD", "Adam", "AdamW"):
        w = _randn(lib, dt, 40, 4, 3).to(bf).requires_grad_(True)
        kw = dict(lr=0.01) if name != "SGD" else dict(lr=0.1, momentum=0.9)
        opt = getattr(lib.optim, name)([w], **kw)
        g = _randn(lib, dt, 41, 4, 3).to(bf)
        for _ in range(3):
            w.grad = g.clone()
            opt.step()
        rec(name, w)
        rec(name + ".dtype", str(w.dtype))
        st = opt.state[w]
        rec(name + ".state", str(sorted((k, str(v.dtype)) for k, v in st.items()
                                       if hasattr(v, "dtype"))))  # fmt: skip


def p_mismatch_errors(lib, dt, rec):
    bf = lib.bfloat16
    F = lib.nn.functional
    x = lib.ones(2, 4, dtype=bf)
    w = lib.ones(3, 4)
    rec.err("linear", lambda: F.linear(x, w))
    rec.err("linear_bias", lambda: F.linear(x, w.bfloat16(), lib.ones(3)))
    rec.err("mm", lambda: x @ w.t())
    rec.err("mm_f16", lambda: x @ w.t().half())
    rec.err("bmm", lambda: lib.bmm(x[None], w.t()[None]))
    rec.err("conv", lambda: F.conv2d(lib.ones(1, 1, 3, 3, dtype=bf), lib.ones(1, 1, 2, 2)))
    rec.err("conv1d", lambda: F.conv1d(lib.ones(1, 1, 3), lib.ones(1, 1, 2, dtype=bf)))
    lin = lib.nn.Linear(4, 3)
    rec.err("module", lambda: lin(x))
    rec.err("layer_norm", lambda: F.layer_norm(x, (4,), lib.ones(4), lib.zeros(4)))
    rec.err("embedding", lambda: F.embedding(lib.tensor([0]), lib.ones(2, 2, dtype=bf)).dtype)
    rec.err("index_put", lambda: x.index_put_((lib.tensor([0]),), lib.ones(4)))
    rec.err("masked_scatter", lambda: x.masked_scatter(x > 0, lib.ones(8)))
    rec.err("scatter", lambda: x.scatter(1, lib.zeros(2, 1, dtype=lib.int64), lib.ones(2, 1)))
    rec.err("gather_ok", lambda: str(x.gather(1, lib.zeros(2, 1, dtype=lib.int64)).dtype))
    rec.err("addmm", lambda: lib.addmm(lib.ones(2, 3), x, w.t().bfloat16()))
    rec.err("dot", lambda: lib.dot(x[0], w[0]))
    rec.err("batch_norm", lambda: F.batch_norm(x, lib.zeros(4), lib.ones(4)))


def p_float16_ops(lib, dt, rec):
    f16 = lib.float16
    a = _dyadic(lib, dt, 50, 4, 8).to(f16)
    w = _dyadic(lib, dt, 51, 8, 3).to(f16)
    rec("mm", a @ w)
    rec("sum", a.sum(1))
    rec("mean", a.mean())
    rec("cumsum", a.cumsum(1))
    rec("add_scalar", a + 0.1)
    rec("div", a / 3)
    rec("over", lib.tensor([60000.0], dtype=f16) * 2)
    rec("sum_over", lib.full((4,), 30000.0, dtype=f16).sum())
    rec("mean_over", lib.full((4,), 30000.0, dtype=f16).mean())
    rec("promote_int", (a + lib.tensor([1])).dtype == f16)
    rec("promote_f32", str((a + lib.ones(1)).dtype))
    rec("linear", lib.nn.functional.linear(a, w.t()))
    rec("softmax_dtype", str(lib.softmax(a, 1).dtype))
    rec("softmax_f32'", lib.softmax(a, 1, dtype=lib.float32))


def _bn_input(lib, dt, seed, *shape):
    """Dyadic batch-norm inputs (multiples of 1/4 up to 8): their sums and squared deviations
    are exact in float32, so every rounding to bfloat16 is decided by the kernel's formula."""
    return _dyadic(lib, dt, seed, *shape, scale=4) * 2 + 0.5


def p_batchnorm(lib, dt, rec):
    # A BatchNorm converted with the model: parameters and running statistics in bfloat16, so
    # torch's kernel keeps the batch statistics and the momentum in bfloat16 too.
    nn = lib.nn
    for tag, kw, fmt in [("m01", {}, None), ("cumulative", {"momentum": None}, None),
                         ("m03_cl", {"momentum": 0.3}, lib.channels_last)]:  # fmt: skip
        m = nn.BatchNorm2d(3, **kw).bfloat16()
        with lib.no_grad():
            m.weight.copy_(lib.tensor([0.5, 1.0, 2.0]))
            m.bias.copy_(lib.tensor([0.25, -1.0, 0.0]))
        for step in range(3):
            x = _bn_input(lib, dt, 60 + step, 4, 3, 2, 3).bfloat16()
            g = _bn_input(lib, dt, 70 + step, 4, 3, 2, 3).bfloat16()
            if fmt is not None:  # (the gradient in the input's layout: torch's dense kernel)
                x, g = x.contiguous(memory_format=fmt), g.contiguous(memory_format=fmt)
            x.requires_grad_(True)
            y = m(x)
            (y * g).sum().backward()
            rec(f"{tag}.y{step}~", y)
            rec(f"{tag}.rm{step}", _bits(lib, m.running_mean))
            rec(f"{tag}.rv{step}", _bits(lib, m.running_var))
            rec(f"{tag}.gx{step}", x.grad)
        rec(f"{tag}.gw", m.weight.grad)
        rec(f"{tag}.gb", m.bias.grad)
        rec(f"{tag}.nbt", m.num_batches_tracked)
        m.eval()
        rec(f"{tag}.eval~", m(x.detach()))
    x = _bn_input(lib, dt, 80, 3, 5).bfloat16()
    rm, rv = lib.zeros(5, dtype=lib.bfloat16), lib.ones(5, dtype=lib.bfloat16)
    rec("F.y~", lib.nn.functional.batch_norm(x, rm, rv, training=True, momentum=0.2))
    rec("F.rm", _bits(lib, rm))
    rec("F.rv", _bits(lib, rv))
    rm32, rv32 = lib.zeros(5), lib.ones(5)
    rec("F32.y~", lib.nn.functional.batch_norm(x, rm32, rv32, training=True, momentum=0.2))
    rec("F32.rm'", rm32)
    rec("F32.rv'", rv32)


def p_batchnorm_half(lib, dt, rec):
    # float16 BatchNorms (torch's float16 kernel keeps the momentum in float32); the cumulative
    # average's factor 1 / batches is a Python float in torch
    nn = lib.nn
    m = nn.BatchNorm1d(4, momentum=None).half()
    for step in range(4):
        x = _bn_input(lib, dt, 90 + step, 6, 4).half()
        y = m(x)
        rec(f"y{step}~", y)
        rec(f"rm{step}", m.running_mean)
        rec(f"rv{step}", m.running_var)
    m.eval()
    rec("eval~", m(x))
    b = nn.BatchNorm1d(4, momentum=None).bfloat16()
    for step in range(4):
        b(_bn_input(lib, dt, 90 + step, 6, 4).bfloat16())
    rec("bf.rm", _bits(lib, b.running_mean))
    rec("bf.rv", _bits(lib, b.running_var))
