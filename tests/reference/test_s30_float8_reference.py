"""Session 30 (helper float8): programs that use torch's float8 dtypes the way FP8 training and
inference code does, run under torch and minitorch and compared record by record: per-tensor,
per-row and delayed (amax-history) scaling into float8_e4m3fn/e5m2 and back, MX-style block
scales in float8_e8m0fnu, casts from float32/float64/float16/bfloat16/int/bool with torch's
rounding, saturation (e4m3fn clips to +-448, inf too), overflow to inf (e5m2) or NaN (fnuz) and
NaN bits, casts back, finfo, factories (zeros/ones/full/empty/tensor/new_tensor/full_like and
full's overflow check), printing (sci and fixed modes, e8m0fnu's quirks, .type()), view() between
uint8/int8 and float8, torch.save/load round trips, promotion errors, data movement ops that torch
runs on float8 (cat, stack, indexing, index_put, copy_, where, pad, diag, ...), the 2-D products
it runs (mm, linear, addmm: summed in float32 and rounded once, saturating), a float8 KV cache,
the straight-through estimator through casts, and the arithmetic torch refuses on the CPU
("add_stub" not implemented for 'Float8_e4m3fn'). Every float8 tensor is recorded as its float32
values and its bits (torch's float8 tensors have no .numpy()).

Known and left (documented):
- Arithmetic that torch's CPU kernels refuse is refused by minitorch where a tensor meets a number
  (add, sub, mul, div, clamp) or another dtype (promotion); between two float8 tensors of one
  dtype (a + b, a.sum(), a.exp(), a.max(), ...) minitorch computes through ml_dtypes where torch
  raises "<kernel>" not implemented: the check would sit on every op's fast path.
- numpy() of a float8 tensor gives an ml_dtypes array where torch raises (as for bfloat16).
- torch's bfloat16 NaN is 0xFFFF, so its cast into e4m3fn/e5m2 keeps the sign bit (0xFF);
  minitorch's bfloat16 NaN is positive (0x7F after the cast).
- float8_e8m0fnu: torch refuses abs and index_put (and pads with an overflow error, 0 being no
  e8m0 value); minitorch runs them.
- float8 on a CUDA device is not supported (CuPy has no ml_dtypes types)."""

from __future__ import annotations

import io
import math
import sys

import pytest

from tests.reference._one_thread import one_torch_thread  # noqa: F401 - an autouse fixture
from tests.reference._programs import assert_program_matches

torch = pytest.importorskip("torch")
pytest.importorskip("ml_dtypes")

FLOAT8 = ["float8_e4m3fn", "float8_e5m2", "float8_e4m3fnuz", "float8_e5m2fnuz", "float8_e8m0fnu"]
FP8 = ["float8_e4m3fn", "float8_e5m2"]  # the training formats

PROGRAMS = {
    "casts": FLOAT8, "casts_from": FLOAT8, "casts_back": FLOAT8, "finfo": FLOAT8,
    "factories": FLOAT8, "printing": FLOAT8, "view_bits": FLOAT8, "save_load": FLOAT8,
    "promotion": FLOAT8, "movement": FLOAT8, "refused": FLOAT8, "per_tensor": FP8,
    "per_row": FP8, "delayed_scaling": FP8, "mx_blocks": ["float8_e4m3fn"], "ste": FP8,
    "kv_cache": FP8, "fill_and_set": FLOAT8, "gemm": FP8,
}  # fmt: skip

CASES = [(name, dt) for name, dts in PROGRAMS.items() for dt in dts]


@pytest.mark.parametrize("name, dt", CASES)
def test_program_matches_torch(name, dt):
    assert_program_matches(globals()["p_" + name], torch, dt)


# --- helpers ---


def _f8(rec, name, t):
    """Records a float8 tensor as its values (float32) and its bits (uint8)."""
    lib = sys.modules[type(t).__module__.split(".")[0]]  # torch or minitorch
    rec(name, t.float())
    rec(name + ".bits", t.view(lib.uint8))
    rec(name + ".dtype", str(t.dtype))


def _values(lib, dt):
    """Values that reach every rounding case of the float8 formats: ties, subnormals, the largest
    finite values and beyond, inf, NaN, signed zeros."""
    g = lib.Generator().manual_seed(3)
    x = lib.randn(64, generator=g) * lib.logspace(-9, 16, 64, base=2.0)
    special = lib.tensor(
        [0.0, -0.0, 1.0, 1.0625, 1.1875, -1.5, 0.3, 448.0, 449.0, 464.0, 480.0, 1000.0, 240.0,
         248.0, 57344.0, 61439.0, 61440.0, 1e9, 2.0**-9, 2.0**-10, 2.0**-11, 2.0**-17,
         2.0**-16 * 1.5, 1e-30, float("inf"), float("-inf"), float("nan"), 2.0**-127, 3e38]
    )  # fmt: skip
    return lib.cat([x, special, -special])


# --- the programs: each takes the library, a float8 dtype and a recorder ---


def p_casts(lib, dt, rec):
    x = _values(lib, dt)
    _f8(rec, "f32", x.to(dt))
    _f8(rec, "f64", x.double().to(dt))  # through float32, as c10 (a double rounding)
    _f8(rec, "f16", x.half().to(dt))
    _f8(rec, "bf16", x[x == x].bfloat16().to(dt))  # (torch's bfloat16 NaN is negative)
    d = lib.tensor([1 + 1 / 16 + 2.0**-40, 1 + 3 / 16 - 2.0**-40, 2.0**-9 * 1.5], dtype=lib.float64)
    _f8(rec, "double_rounding", d.to(dt))
    _f8(rec, "2d_t", x[:60].reshape(6, 10).t().to(dt))  # a transposed source
    _f8(rec, "to_kw", x[:8].to(dtype=dt, copy=True))
    _f8(rec, "type", x[:8].type(dt))
    _f8(rec, "0d", lib.tensor(300.0).to(dt))


def p_casts_from(lib, dt, rec):
    ints = lib.tensor([0, 1, -1, 3, 17, 100, 255, 500, -500, 70000, 2**40])
    _f8(rec, "int64", ints.to(dt))
    _f8(rec, "int32", ints[:-1].int().to(dt))
    _f8(rec, "uint8", lib.arange(0, 256, 15).to(lib.uint8).to(dt))
    _f8(rec, "bool", lib.tensor([True, False, True]).to(dt))
    _f8(rec, "list", lib.tensor([1.0, 2.5, -3.25, 600.0, 0.001], dtype=dt))
    _f8(rec, "int_list", lib.tensor([1, 1000, -3, 0], dtype=dt))
    _f8(rec, "nested", lib.tensor([[1, 2.5], [True, -7]], dtype=dt))
    _f8(rec, "scalar", lib.tensor(2.75, dtype=dt))
    _f8(rec, "as_tensor", lib.as_tensor([0.1, 0.2, 0.3], dtype=dt))
    for other in FLOAT8:  # float8 to float8: through float32
        src = lib.tensor([0.5, 1.0, 3.0, 200.0, 0.0078125], dtype=getattr(lib, other))
        _f8(rec, other, src.to(dt))


def p_casts_back(lib, dt, rec):
    x = lib.tensor([0.0, 1.0, -2.0, 3.5, 0.25, 240.0, -0.125, 2.0**-7], dtype=dt)
    for name in ("float32", "float64", "float16", "bfloat16"):
        rec(name, x.to(getattr(lib, name)).float())
    rec("half()", x.half().float())
    rec("double()", x.double())
    for name in ("int64", "int32", "int16", "int8", "uint8", "bool"):
        y = x.to(getattr(lib, name))
        rec(name, y)
    rec("tolist", str(x.tolist()))
    rec("item", x[3].item())
    rec("float", float(x[4]))
    rec("int", int(x[3]))
    rec("bool", bool(x[0]))
    rec("is_floating_point", x.is_floating_point())
    rec("element_size", x.element_size())
    rec("nbytes", x.nbytes)
    rec("dtype_attrs", str((dt.itemsize, dt.is_floating_point, dt.is_signed, dt.is_complex)))


def p_finfo(lib, dt, rec):
    fi = lib.finfo(dt)
    for attr in ("bits", "eps", "max", "min", "tiny", "smallest_normal", "resolution"):
        rec(attr, getattr(fi, attr))
    rec("dtype", fi.dtype)
    rec("repr", repr(fi).replace("torch", "lib"))
    rec("eq", fi == lib.finfo(dt))
    # the largest finite value survives the cast; one eps above 1 is the next value
    _f8(rec, "max", lib.tensor([fi.max, fi.min, fi.tiny, 1 + fi.eps]).to(dt))
    rec("iinfo", _err(lambda: lib.iinfo(dt)))
    rec("str", str(dt))
    rec("repr_dt", repr(dt))


def _err(fn):
    try:
        fn()
    except Exception as e:  # noqa: BLE001 - the exception is the record
        return f"{type(e).__name__}: {e}"
    return "no error"


def p_factories(lib, dt, rec):
    _f8(rec, "zeros", lib.zeros(2, 3, dtype=dt))
    _f8(rec, "ones", lib.ones(4, dtype=dt))
    _f8(rec, "full", lib.full((2, 2), 3.0, dtype=dt))
    _f8(rec, "full_nan", lib.full((2,), float("nan"), dtype=dt))
    _f8(rec, "full_one", lib.full((1,), 1e6, dtype=dt))  # no overflow check for one element
    for v in (500.0, 57344.0, 60000.0, 3e38, float("inf"), -1.0, 0.0, 2.0**-127, 1e-39):
        rec(f"full_{v}", _err(lambda v=v: lib.full((2,), v, dtype=dt)))
    e = lib.empty(3, 2, dtype=dt)
    rec("empty", str((tuple(e.shape), str(e.dtype), e.stride())))
    rec("empty0", repr(lib.empty(0, 3, dtype=dt)))
    x = lib.tensor([1.0, 2.0, 4.0], dtype=dt)
    _f8(rec, "zeros_like", lib.zeros_like(x))
    _f8(rec, "ones_like", lib.ones_like(x))
    _f8(rec, "full_like", lib.full_like(x, 0.5))
    _f8(rec, "new_zeros", x.new_zeros(2))
    _f8(rec, "new_ones", x.new_ones(2))
    _f8(rec, "new_full", x.new_full((2,), 8.0))
    _f8(rec, "new_tensor", x.new_tensor([1.0, 2000.0, 0.1]))
    rec("empty_like", str(lib.empty_like(x).dtype))
    rec("requires_grad", lib.zeros(2, dtype=dt, requires_grad=True).requires_grad)
    rec("arange", _err(lambda: lib.arange(3, dtype=dt)))
    rec("rand", _err(lambda: lib.rand(3, dtype=dt)))


def p_printing(lib, dt, rec):
    rec("1d", repr(lib.tensor([1.0, 2.5, 0.0, 3.0], dtype=dt)))
    rec("ints", repr(lib.tensor([[1.0, 2.0], [0.0, 4.0]], dtype=dt)))
    rec("0d", repr(lib.tensor(3.0, dtype=dt)))
    rec("empty", repr(lib.tensor([], dtype=dt)))
    rec("sci", repr(lib.tensor([2.0**-8, 1.0, 200.0, 0.5], dtype=dt)))
    rec(
        "special",
        repr(lib.tensor([0.0, 1.0, -1.5, 1000.0, float("inf"), float("nan"), 0.3]).to(dt)),
    )
    rec("nan_only", repr(lib.tensor([float("nan")]).to(dt)))
    rec("str", str(lib.ones(2, 3, dtype=dt)))
    big = lib.arange(2000).float().remainder(7).to(dt)
    rec("summarized", repr(big))
    rec("grad", repr(lib.zeros(2, dtype=dt, requires_grad=True)))
    rec("type", lib.zeros(1, dtype=dt).type())
    rec("dtype", str(dt))


def p_view_bits(lib, dt, rec):
    x = lib.tensor([[1.0, -2.0, 0.5], [3.0, 0.125, -0.25]]).to(dt)
    u = x.view(lib.uint8)
    rec("u8", u)
    rec("i8", x.view(lib.int8))
    back = u.view(dt)
    _f8(rec, "back", back)
    rec("shares", str(back.data_ptr() == x.data_ptr()))
    u2 = u.clone()
    u2[0, 0] = 0x7F  # NaN in e4m3fn/e5m2, a normal number in the fnuz dtypes, 2**0 in e8m0
    _f8(rec, "poked", u2.view(dt))
    _f8(rec, "all_codes", lib.arange(256).to(lib.uint8).view(dt))
    rec("view_f16", _err(lambda: lib.zeros(4, dtype=dt).view(lib.float16).shape))
    rec("view_f16_shape", str(tuple(lib.zeros(2, 4, dtype=dt).view(lib.float16).shape)))
    _f8(rec, "t", x.t())
    _f8(rec, "t_contig", x.t().contiguous())
    rec("t_strides", str(x.t().contiguous().stride()))
    _f8(rec, "reshape", x.reshape(3, 2))
    _f8(rec, "permute", x[None].permute(2, 0, 1))
    _f8(rec, "flatten", x.flatten())
    _f8(rec, "unsqueeze", x.unsqueeze(1))


def p_save_load(lib, dt, rec):
    x = lib.tensor([[1.0, -2.0, 0.5], [3.0, 0.125, float("nan")]]).to(dt)
    bits = x.view(lib.uint8).clone()
    state = {"w": x, "w_t": x.t(), "row": x[1], "scale": lib.tensor(0.25), "bits": bits}
    buf = io.BytesIO()
    lib.save(state, buf)
    buf.seek(0)
    got = lib.load(buf)
    for k in ("w", "w_t", "row"):
        _f8(rec, k, got[k])
    rec("bits", got["bits"])
    rec("scale", got["scale"])
    rec("shared", str(got["w"].data_ptr() == got["row"].data_ptr() - 3))
    rec("strides", str(got["w_t"].stride()))
    buf.seek(0)
    got = lib.load(buf, weights_only=True)
    _f8(rec, "weights_only", got["w"])
    buf2 = io.BytesIO()
    lib.save(lib.nn.ParameterDict({"p": lib.nn.Parameter(x.float())}).state_dict(), buf2)
    buf2.seek(0)
    rec("param", lib.load(buf2)["p"])


def p_promotion(lib, dt, rec):
    for other in ("float32", "float16", "bfloat16", "float64", "int64", "uint8", "bool", "uint16"):
        rec("promote_" + other, _err(lambda o=other: lib.promote_types(dt, getattr(lib, o))))
        rec("promote_r_" + other, _err(lambda o=other: lib.promote_types(getattr(lib, o), dt)))
    rec("self", str(lib.promote_types(dt, dt)))
    for other in FLOAT8:
        rec("f8_" + other, _err(lambda o=other: lib.promote_types(dt, getattr(lib, o))))
    x = lib.tensor([1.0, 2.0], dtype=dt)
    rec("result_float", str(lib.result_type(x, 1.0)))
    rec("result_int", str(lib.result_type(x, 2)))
    rec("result_bool", str(lib.result_type(x, True)))
    rec("result_t", _err(lambda: lib.result_type(x, lib.tensor([1.0]))))
    rec("result_0d", str(lib.result_type(x, lib.tensor(1.0))))
    rec("result_0d_f8", str(lib.result_type(lib.tensor(1.0, dtype=dt), lib.tensor([1.0]))))
    rec("result_int_0d", _err(lambda: lib.result_type(lib.tensor([1]), lib.tensor(1.0, dtype=dt))))
    rec("can_cast_to", lib.can_cast(lib.float32, dt))
    rec("can_cast_from", lib.can_cast(dt, lib.int32))
    rec("can_cast_f", lib.can_cast(dt, lib.float16))
    rec("add_f32", _err(lambda: x + lib.tensor([1.0, 2.0])))
    rec("mul_long", _err(lambda: x * lib.tensor([1, 2])))
    rec("add_bool", _err(lambda: x + lib.tensor([True, False])))
    rec("sub_half", _err(lambda: lib.tensor([1.0, 2.0]).half() - x))


def p_refused(lib, dt, rec):
    x = lib.tensor([1.0, 2.0, 0.5], dtype=dt)
    cases = {
        "add_number": lambda: x + 1, "radd": lambda: 1.5 + x, "sub_number": lambda: x - 1.5,
        "mul_number": lambda: x * 2.0, "rmul": lambda: 2 * x, "div_number": lambda: x / 2,
        "mul_0d": lambda: x * lib.tensor(2.0), "div_0d": lambda: x / lib.tensor(2.0),
        "add_alpha": lambda: x.add(x, alpha=2), "clamp": lambda: x.clamp(0, 1),
        "clamp_min": lambda: x.clamp(min=0), "clamp_max": lambda: x.clamp(max=1.0),
        "torch_add": lambda: lib.add(x, 1), "torch_mul": lambda: lib.mul(x, 0.5),
    }  # fmt: skip
    for name, fn in cases.items():
        rec(name, _err(fn))
    _f8(rec, "mul_same", x * x)  # this one torch runs
    if dt.is_signed:  # (torch has no abs for e8m0fnu; minitorch's computes)
        _f8(rec, "abs", lib.tensor([-1.0, 2.0], dtype=dt).abs())
    rec("eq", x == lib.tensor([1.0, 0.0, 0.5], dtype=dt))
    rec("ne", x != lib.tensor([1.0, 0.0, 0.5], dtype=dt))
    rec("eq_number", x == 2.0)
    rec("isnan", lib.tensor([float("nan"), 1.0]).to(dt).isnan())
    rec("any", x.any())
    rec("all", x.all())
    rec("sum_f32", x.sum(dtype=lib.float32))


def p_movement(lib, dt, rec):
    g = lib.Generator().manual_seed(5)
    a = (lib.rand(4, 3, generator=g) * 8).to(dt)
    b = (lib.rand(2, 3, generator=g) * 8).to(dt)
    _f8(rec, "cat", lib.cat([a, b]))
    _f8(rec, "cat1", lib.cat([a[:2], b], dim=1))
    _f8(rec, "stack", lib.stack([a[0], b[1]]))
    _f8(rec, "index", a[1])
    _f8(rec, "index_list", a[[0, 2, 2]])
    _f8(rec, "mask", a[a.float() > 3])
    _f8(rec, "slice", a[1:, ::2])
    _f8(rec, "index_select", a.index_select(0, lib.tensor([3, 0])))
    _f8(rec, "masked_select", a.masked_select(a.float() < 2))
    _f8(rec, "where", lib.where(a.float() > 4, a, a[0]))
    _f8(rec, "narrow", a.narrow(1, 1, 2))
    for i, c in enumerate(a.chunk(2)):
        _f8(rec, f"chunk{i}", c)
    for i, c in enumerate(a.split([1, 3])):
        _f8(rec, f"split{i}", c)
    _f8(rec, "unbind", a.unbind(1)[2])
    _f8(rec, "expand", a[:1].expand(3, 3))
    _f8(rec, "repeat", b.repeat(2, 1))
    _f8(rec, "roll", a.roll(1, 0))
    if dt.is_signed:  # (e8m0fnu holds no 0 to pad with: torch's overflow error)
        _f8(rec, "pad", lib.nn.functional.pad(b, (1, 2)))
    _f8(rec, "diag", a[0].diag())
    _f8(rec, "clone", a.clone())
    _f8(rec, "detach", a.detach())
    _f8(rec, "squeeze", a[None].squeeze(0))
    _f8(rec, "movedim", a[None].movedim(0, 2))
    _f8(rec, "flipud", a.flipud())
    c = lib.empty(2, 3, dtype=dt)
    c.copy_(b)
    _f8(rec, "copy_", c)
    c.copy_(lib.tensor([[1000.0, 0.3, -1.0], [float("inf"), 2.0**-12, 5.0]]))
    _f8(rec, "copy_f32", c)
    d = lib.empty(2, 3)
    d.copy_(b)
    rec("copy_to_f32", d)
    e = a.clone()
    e[0] = b[1]
    e[1, 2] = 5.0
    e[2] = lib.tensor(0.75)
    _f8(rec, "setitem", e)
    if dt.is_signed:  # (torch has no index_put for e8m0fnu; minitorch's writes)
        f = a.clone()
        f.index_put_((lib.tensor([0, 3]),), lib.tensor([6.0], dtype=dt))
        _f8(rec, "index_put", f)
    _f8(rec, "zero_", a.clone().zero_())
    _f8(rec, "fill_", a.clone().fill_(2.0))


def _amax_scale(lib, x, dt, dim=None):
    fmax = lib.finfo(dt).max
    amax = x.abs().amax() if dim is None else x.abs().amax(dim=dim, keepdim=True)
    return fmax / amax.clamp(min=1e-12)


def p_per_tensor(lib, dt, rec):
    g = lib.Generator().manual_seed(7)
    x = lib.randn(16, 32, generator=g) * 3
    w = lib.randn(32, 8, generator=g) * 0.05
    sx, sw = _amax_scale(lib, x, dt), _amax_scale(lib, w, dt)
    fmax = lib.finfo(dt).max
    xq = (x * sx).clamp(-fmax, fmax).to(dt)
    wq = (w * sw).clamp(-fmax, fmax).to(dt)
    _f8(rec, "xq", xq)
    _f8(rec, "wq", wq)
    y = (xq.float() @ wq.float()) / (sx * sw)
    rec("y", y)
    rec("err", (y - x @ w).abs().max() / (x @ w).abs().max())
    rec("deq_err", ((xq.float() / sx) - x).abs().mean())
    # saturating cast without the clamp: e4m3fn clips to 448 as torch's cast does
    _f8(rec, "no_clamp", (x * sx * 1.5).to(dt))


def p_per_row(lib, dt, rec):
    g = lib.Generator().manual_seed(8)
    x = lib.randn(6, 40, generator=g) * lib.logspace(-3, 3, 6)[:, None]
    s = _amax_scale(lib, x, dt, dim=1)
    q = (x * s).to(dt)
    _f8(rec, "q", q)
    rec("scale", s)
    deq = q.to(lib.float32) / s
    rec("deq", deq)
    rec("rel_err", ((deq - x).abs() / x.abs().clamp(min=1e-6)).median(dim=1).values)
    # column-wise of the transposed layout, as a GEMM's second operand
    st = _amax_scale(lib, x.t(), dt, dim=0)
    _f8(rec, "q_t", (x.t() * st).to(dt))


def p_delayed_scaling(lib, dt, rec):
    g = lib.Generator().manual_seed(9)
    layer = lib.nn.Linear(12, 5)
    with lib.no_grad():
        layer.weight.copy_(lib.randn(5, 12, generator=g) * 0.3)
        layer.bias.zero_()
    fmax = lib.finfo(dt).max
    history = lib.zeros(4)
    scale = lib.tensor(1.0)
    opt = lib.optim.SGD(layer.parameters(), lr=0.1)
    for step in range(6):
        x = lib.randn(8, 12, generator=g) * (1 + step)
        amax = x.abs().max()
        history = lib.roll(history, 1)
        history[0] = amax
        xq = (x * scale).clamp(-fmax, fmax).to(dt)
        x_deq = xq.float() / scale
        x_ste = x + (x_deq - x).detach()  # straight-through the quantizer
        loss = layer(x_ste).pow(2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
        rec(f"loss{step}", loss)
        _f8(rec, f"xq{step}", xq[:2])
        scale = fmax / history.max() / 2.0  # a margin of one power of two
        rec(f"scale{step}", scale)
    rec("weight", layer.weight)


def p_mx_blocks(lib, dt, rec):
    """MX-style: blocks of 8 share a power-of-two scale stored in float8_e8m0fnu."""
    g = lib.Generator().manual_seed(10)
    x = lib.randn(4, 32, generator=g) * lib.tensor([0.01, 1.0, 30.0, 1e4])[:, None]
    blocks = x.reshape(4, 4, 8)
    amax = blocks.abs().amax(dim=-1, keepdim=True)
    exp = lib.floor(lib.log2(amax)) - math.floor(math.log2(lib.finfo(dt).max))
    scale = lib.exp2(exp).to(lib.float8_e8m0fnu)
    _f8(rec, "scale", scale)
    q = (blocks / scale.float()).to(dt)
    _f8(rec, "q", q)
    deq = (q.float() * scale.float()).reshape(4, 32)
    rec("deq", deq)
    rec("err", ((deq - x).abs() / x.abs().amax(dim=1, keepdim=True)).amax(dim=1))
    rec("scale_repr", repr(scale[:, :2].squeeze(-1)))


def p_ste(lib, dt, rec):
    g = lib.Generator().manual_seed(11)
    x = (lib.randn(10, generator=g) * 4).requires_grad_()
    y = x.to(dt)
    rec("y.requires_grad", y.requires_grad)
    rec("grad_fn", type(y.grad_fn).__name__)
    z = y.float()
    (z * lib.arange(10.0)).sum().backward()
    rec("grad", x.grad)
    w = lib.randn(10, generator=g).requires_grad_()
    q = w + (w.to(dt).to(lib.float32) - w).detach()
    (q**2).sum().backward()
    rec("ste_grad", w.grad)
    rec("ste_q", q)


def p_kv_cache(lib, dt, rec):
    """A float8 KV cache: keys and values stored in float8 with per-head scales, read back in
    float32 for attention."""
    g = lib.Generator().manual_seed(12)
    heads, steps, d = 2, 5, 8
    cache_k = lib.zeros(heads, 8, d, dtype=dt)
    cache_v = lib.zeros(heads, 8, d, dtype=dt)
    scale = lib.tensor([4.0, 16.0])[:, None]
    q = lib.randn(heads, 1, d, generator=g)
    for t in range(steps):
        k = lib.randn(heads, d, generator=g)
        v = lib.randn(heads, d, generator=g)
        cache_k[:, t] = (k * scale).to(dt)
        cache_v[:, t] = (v * scale).to(dt)
    keys = cache_k[:, :steps].float() / scale[:, :, None]
    vals = cache_v[:, :steps].float() / scale[:, :, None]
    att = lib.softmax(q @ keys.transpose(1, 2) / math.sqrt(d), dim=-1)
    rec("out", att @ vals)
    _f8(rec, "cache_k", cache_k[:, :steps])
    rec("cache_bytes", cache_k.nbytes + cache_v.nbytes)


def p_fill_and_set(lib, dt, rec):
    x = lib.zeros(6, dtype=dt)
    x[0] = 3.0
    x[1:3] = 0.375
    x[3] = lib.tensor(1000.0)
    x[4] = float("nan")
    _f8(rec, "x", x)
    rec("fill_big", _err(lambda: lib.zeros(2, dtype=dt).fill_(1e6)))
    for v in (0, -1, 1000, 100000, 0.0, -1.0, 0.5):
        z = lib.ones(2, dtype=dt)
        rec(f"fill_{v!r}", _err(lambda z=z, v=v: z.fill_(v)))
        _f8(rec, f"filled_{v!r}", z)
    rec("set_big", _err(lambda: x.__setitem__(5, 1e6)))
    _f8(rec, "after", x)
    y = lib.zeros(3, dtype=dt)
    y.copy_(lib.tensor([0.1, 0.2, 0.3], dtype=lib.float64))
    _f8(rec, "copy_f64", y)
    y.copy_(lib.tensor([1, -7, 300]))
    _f8(rec, "copy_int", y)


def p_gemm(lib, dt, rec):
    """2-D products torch runs on float8 (mm, linear, addmm, a 3-D @ 2-D matmul): summed exactly
    in float32 and rounded once to the dtype, with its saturation or overflow."""
    g = lib.Generator().manual_seed(13)
    x = (lib.randint(-8, 9, (4, 16), generator=g) / 4.0).to(dt)
    w = (lib.randint(-8, 9, (3, 16), generator=g) / 2.0).to(dt)
    b = lib.tensor([0.5, -3.0, 100.0]).to(dt)
    _f8(rec, "mm", x @ w.t())
    _f8(rec, "mm_fn", lib.mm(x, w.t()))
    _f8(rec, "linear", lib.nn.functional.linear(x, w))
    _f8(rec, "linear_bias", lib.nn.functional.linear(x, w, b))
    _f8(rec, "addmm", lib.addmm(b, x, w.t()))
    _f8(rec, "matmul3", x.reshape(2, 2, 16) @ w.t())
    big = lib.full((2, 8), 20.0).to(dt)
    _f8(rec, "overflow", big @ big.t())  # 3200: 448 in e4m3fn, 3072 in e5m2
    ref = (x.float() @ w.float().t()).to(dt)
    rec("same_as_f32", lib.equal(ref.view(lib.uint8), (x @ w.t()).view(lib.uint8)))
