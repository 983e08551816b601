"""Session 30 (helper float8): torch-free checks of the float8 dtypes (float8_e4m3fn, float8_e5m2,
float8_e4m3fnuz, float8_e5m2fnuz, float8_e8m0fnu), stored through the optional package ml_dtypes
as bfloat16 is. The expected values, bits and messages are torch 2.13's (see
tests/reference/test_s30_float8_reference.py for the comparison programs)."""

from __future__ import annotations

import importlib.util
import io
import math
import pickle
import sys
import warnings
import zipfile

import numpy as np
import pytest

import minitorch as mt
from minitorch import _dtype

HAVE_ML_DTYPES = importlib.util.find_spec("ml_dtypes") is not None
NAN, INF = float("nan"), float("inf")
NAMES = ["float8_e4m3fn", "float8_e5m2", "float8_e4m3fnuz", "float8_e5m2fnuz", "float8_e8m0fnu"]


def _f8(name):
    return getattr(mt, name)


def _bits(t):
    return t.view(mt.uint8).tolist()


# --- what works without ml_dtypes ---

STORAGE_FREE = {"test_dtype_objects", "test_finfo", "test_finfo_repr"}


@pytest.fixture(autouse=True)
def _needs_ml_dtypes(request):
    """Skips a test that stores float8 values when ml_dtypes is missing (as the bfloat16 tests)."""
    free = "no_ml_dtypes" in request.fixturenames or request.function.__name__ in STORAGE_FREE
    if not HAVE_ML_DTYPES and not free:
        pytest.skip("float8 storage needs ml_dtypes")


@pytest.fixture
def no_ml_dtypes(monkeypatch):
    """ml_dtypes made unimportable, and any float8 storage resolved before forgotten."""
    monkeypatch.setitem(sys.modules, "ml_dtypes", None)
    for d in _dtype.FLOAT8:
        try:
            del d.np
        except AttributeError:
            pass
    for key in [k for k, v in _dtype._FROM_NUMPY.items() if v in _dtype.FLOAT8]:
        monkeypatch.delitem(_dtype._FROM_NUMPY, key)


@pytest.mark.parametrize("name", NAMES)
def test_without_ml_dtypes(no_ml_dtypes, name):
    d = _f8(name)
    msg = (
        f"{name} needs the optional package ml_dtypes (pip install ml_dtypes); NumPy has no {name}"
    )
    with pytest.raises(TypeError) as info:
        _dtype.numpy_dtype(d)
    assert str(info.value) == msg
    with pytest.raises(TypeError, match="needs the optional package ml_dtypes"):
        mt.zeros(2, dtype=d)
    # what needs no storage still works
    assert repr(d) == f"torch.{name}" and d.itemsize == 1 and d.is_floating_point
    assert mt.finfo(d).bits == 8
    assert mt.promote_types(d, d) is d


@pytest.mark.parametrize("name", NAMES)
def test_dtype_objects(name):
    d = _f8(name)
    assert repr(d) == str(d) == f"torch.{name}"
    assert d.itemsize == 1 and d.is_floating_point and not d.is_complex
    assert d.is_signed is (name != "float8_e8m0fnu")
    assert pickle.loads(pickle.dumps(d)) is d
    assert d.to_real() is d


# torch.finfo: (eps, max, min, tiny); bits 8 and resolution 1 for all
FINFO = {
    "float8_e4m3fn": (0.125, 448.0, -448.0, 0.015625),
    "float8_e5m2": (0.25, 57344.0, -57344.0, 6.103515625e-05),
    "float8_e4m3fnuz": (0.125, 240.0, -240.0, 0.0078125),
    "float8_e5m2fnuz": (0.125, 57344.0, -57344.0, 3.0517578125e-05),
    "float8_e8m0fnu": (1.0, 1.7014118346046923e38, 5.877471754111438e-39, 5.877471754111438e-39),
}


@pytest.mark.parametrize("name", NAMES)
def test_finfo(name):
    fi = mt.finfo(_f8(name))
    assert (fi.eps, fi.max, fi.min, fi.tiny) == FINFO[name]
    assert fi.smallest_normal == fi.tiny and fi.bits == 8 and fi.resolution == 1.0
    assert fi.dtype == name


def test_finfo_repr():
    assert repr(mt.finfo(mt.float8_e4m3fn)) == (
        "finfo(resolution=1, min=-448, max=448, eps=0.125, smallest_normal=0.015625, "
        "tiny=0.015625, dtype=float8_e4m3fn)"
    )
    assert repr(mt.finfo(mt.float8_e8m0fnu)) == (
        "finfo(resolution=1, min=5.87747e-39, max=1.70141e+38, eps=1, "
        "smallest_normal=5.87747e-39, tiny=5.87747e-39, dtype=float8_e8m0fnu)"
    )


def test_promotion_errors():
    e4, e5 = mt.float8_e4m3fn, mt.float8_e5m2
    others = [(mt.float32, "Float"), (mt.bfloat16, "BFloat16"), (mt.int64, "Long"),
              (mt.bool, "Bool"), (mt.uint16, "UInt16"), (e5, "Float8_e5m2")]  # fmt: skip
    for other, label in others:
        with pytest.raises(RuntimeError) as info:
            mt.promote_types(e4, other)
        assert str(info.value) == (
            "Promotion for Float8 Types is not supported, attempted to promote Float8_e4m3fn "
            f"and {label}"
        )
    assert mt.promote_types(e4, e4) is e4
    x = mt.tensor([1.0, 2.0], dtype=e4)
    assert mt.result_type(x, 1.0) is e4 and mt.result_type(x, 2) is e4
    assert mt.result_type(x, mt.tensor(1.0)) is e4  # a 0-d tensor of a lower level
    assert mt.result_type(mt.tensor(1.0, dtype=e4), mt.tensor([1.0])) is mt.float32
    with pytest.raises(RuntimeError, match="attempted to promote Long and Float8_e4m3fn"):
        mt.result_type(mt.tensor([1]), mt.tensor(1.0, dtype=e4))
    with pytest.raises(RuntimeError, match="attempted to promote Float8_e4m3fn and Float$"):
        x + mt.tensor([1.0, 2.0])
    assert mt.can_cast(mt.float32, e4) and not mt.can_cast(e4, mt.int32)


# --- casts: float32 values and the bits torch gives for them ---

VALUES = [0.0, 1.0, -1.5, 1000.0, -1000.0, 1e9, INF, -INF, NAN, 1e-9, 0.3, 448.0, 449.0, 464.0,
          57344.0, 61440.0, 2.0**-10]  # fmt: skip
BITS = {
    # saturates at +-448, inf included
    "float8_e4m3fn": [0, 56, 188, 126, 254, 126, 126, 254, 127, 0, 42, 126, 126, 126, 126, 126, 0],
    # NaN is 0x7F (ml_dtypes' own cast gives 0x7E)
    "float8_e5m2": [0, 60, 190, 100, 228, 124, 124, 252, 127, 0, 53, 95, 95, 95, 123, 124, 20],
    "float8_e4m3fnuz": [0, 64, 196, 128, 128, 128, 128, 128, 128, 0, 50, 128, 128, 128, 128, 128,
                        1],
    "float8_e5m2fnuz": [0, 64, 194, 104, 232, 128, 128, 128, 128, 0, 57, 99, 99, 99, 127, 128, 24],
    # the exponent of |x|, up from a mantissa of one half; 0 is 2**-127 (ml_dtypes: NaN)
    "float8_e8m0fnu": [0, 127, 128, 137, 137, 157, 255, 255, 255, 97, 125, 136, 136, 136, 143, 143,
                       117],
}  # fmt: skip


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("src", ["float32", "float64", "float16", "bfloat16"])
def test_cast_bits(name, src):
    x = mt.tensor(VALUES)
    want = BITS[name]
    if src in ("float16", "bfloat16"):  # what those round first: 1e9 and 1e-9, 0.3, 449, 61440
        keep = [i for i, v in enumerate(VALUES) if v != v or v in (0.0, 1.0, -1.5, INF, -INF)]
        x, want = x[keep], [want[i] for i in keep]
    assert _bits(x.to(getattr(mt, src)).to(_f8(name))) == want


@pytest.mark.parametrize("name", NAMES)
def test_tensor_from_list_and_ints(name):
    d = _f8(name)
    assert _bits(mt.tensor(VALUES, dtype=d)) == BITS[name]
    ints = {
        "float8_e4m3fn": [56, 126, 196, 0],
        "float8_e5m2": [60, 100, 194, 0],
        "float8_e4m3fnuz": [64, 128, 204, 0],
        "float8_e5m2fnuz": [64, 104, 198, 0],
        "float8_e8m0fnu": [127, 137, 129, 0],
    }
    assert _bits(mt.tensor([1, 1000, -3, 0], dtype=d)) == ints[name]
    assert _bits(mt.tensor([1, 1000, -3, 0]).to(d)) == ints[name]


def test_double_rounding_through_float32():
    # 1 + 1/16 + 2**-40 rounds up directly, but to 1 + 1/16 in float32 and then to 1 (even)
    x = mt.tensor([1 + 1 / 16 + 2.0**-40], dtype=mt.float64)
    assert x.to(mt.float8_e4m3fn).item() == 1.0
    assert mt.tensor(1 + 1 / 16 + 2.0**-40, dtype=mt.float8_e4m3fn).item() == 1.0


def test_nan_sign_bits():
    neg_nan = -mt.tensor([NAN])
    assert _bits(neg_nan.to(mt.float8_e4m3fn)) == [255]
    assert _bits(neg_nan.to(mt.float8_e5m2)) == [255]
    assert _bits(neg_nan.to(mt.float8_e4m3fnuz)) == [128]
    assert _bits(neg_nan.to(mt.float8_e8m0fnu)) == [255]
    assert _bits(mt.full((), -NAN, dtype=mt.float8_e4m3fn)) == 255  # a 0-d cast
    assert _bits(mt.tensor([-0.0, -1e-9], dtype=mt.float8_e4m3fnuz)) == [0, 0]
    assert _bits(mt.tensor([-0.0], dtype=mt.float8_e4m3fn)) == [128]


def test_casts_back():
    x = mt.tensor([-2.0, -0.5, 3.5, NAN], dtype=mt.float8_e4m3fn)
    assert x[:3].to(mt.uint8).tolist() == [254, 0, 3]  # through float, as torch
    assert x[:3].tolist() == [-2.0, -0.5, 3.5]
    assert x.float()[3].isnan().item()
    assert x[:3].to(mt.float8_e5m2).tolist() == [-2.0, -0.5, 3.5]
    assert x[:3].half().tolist() == [-2.0, -0.5, 3.5] and x[2].item() == 3.5


# --- factories and fills ---


def test_full_overflow_checks():
    def message(name):
        return (
            f"value cannot be converted to type c10::{name[0].upper() + name[1:]} without overflow"
        )

    cases = [("float8_e4m3fn", 449.0), ("float8_e4m3fn", INF), ("float8_e5m2", 60000.0),
             ("float8_e4m3fnuz", 241.0), ("float8_e5m2fnuz", INF), ("float8_e8m0fnu", 0.0),
             ("float8_e8m0fnu", -1.0), ("float8_e8m0fnu", 1e-39), ("float8_e8m0fnu", 3e38),
             ("float8_e4m3fn", 1000)]  # fmt: skip
    for name, v in cases:
        with pytest.raises(RuntimeError) as info:
            mt.full((2,), v, dtype=_f8(name))
        assert str(info.value) == message(name), (name, v)
    assert mt.full((2,), INF, dtype=mt.float8_e5m2).tolist() == [INF, INF]
    assert mt.full((2,), 1000, dtype=mt.float8_e5m2).tolist() == [1024.0, 1024.0]
    assert math.isnan(mt.full((2,), NAN, dtype=mt.float8_e4m3fn)[0].item())
    # one element: no check (as torch's half)
    assert mt.full((1,), 1e6, dtype=mt.float8_e4m3fn).tolist() == [448.0]
    assert mt.full((1,), 1e6, dtype=mt.float8_e5m2).tolist() == [INF]


def test_e8m0_fills():
    x = mt.ones(3, dtype=mt.float8_e8m0fnu)
    assert x.fill_(-1).tolist() == [1.0] * 3  # an int is checked against -max only
    assert x.fill_(0).tolist() == [2.0**-127] * 3
    assert x.zero_().tolist() == [2.0**-127] * 3
    with pytest.raises(RuntimeError, match="c10::Float8_e8m0fnu without overflow"):
        x.fill_(0.0)
    assert mt.zeros(2, dtype=mt.float8_e8m0fnu).tolist() == [2.0**-127] * 2
    assert mt.tensor([-1.0, 0.0, 1000.0], dtype=mt.float8_e8m0fnu).tolist() == [
        1.0,
        2.0**-127,
        1024.0,
    ]


def test_factories_and_setitem():
    d = mt.float8_e4m3fn
    x = mt.zeros(2, 3, dtype=d)
    assert x.dtype is d and x.shape == (2, 3) and x.element_size() == 1 and x.nbytes == 6
    x[0, 0] = 1000.0  # a cast, not the checked fill: saturates
    x[1] = mt.tensor([0.3, 2.0, -1.0])
    assert x.tolist() == [[448.0, 0.0, 0.0], [0.3125, 2.0, -1.0]]
    assert mt.ones_like(x).tolist() == [[1.0] * 3] * 2
    assert x.new_tensor([1.0, 2000.0]).tolist() == [1.0, 448.0]
    assert mt.full_like(x, 3.0).dtype is d
    assert mt.empty(0, 3, dtype=mt.float8_e5m2).stride() == (3, 1)  # ml_dtypes' '<f1' typestr
    c = mt.empty(3, dtype=d)
    c.copy_(mt.tensor([1000.0, 0.3, 1.0]))
    assert c.tolist() == [448.0, 0.3125, 1.0]


def test_views_of_bits():
    x = mt.tensor([1.0, 2.0, -0.5], dtype=mt.float8_e4m3fn)
    assert x.view(mt.uint8).tolist() == [56, 64, 176]
    assert x.view(mt.int8).tolist() == [56, 64, -80]
    assert x.view(mt.uint8).view(mt.float8_e4m3fn).tolist() == [1.0, 2.0, -0.5]
    y = mt.tensor([1.0, 2.0, 4.0], dtype=mt.float8_e5m2)
    assert y.diag().tolist() == [[1.0, 0.0, 0.0], [0.0, 2.0, 0.0], [0.0, 0.0, 4.0]]
    assert mt.zeros(2, 4, dtype=mt.float8_e5m2).view(mt.float16).shape == (2, 2)


def test_e5m2_strided_views():
    # ml_dtypes' e5m2 array interface spells it '<f1', which NumPy's as_strided cannot read back
    e5 = mt.float8_e5m2
    x = mt.arange(12.0).reshape(3, 4).to(e5)
    assert x.diagonal().tolist() == [0.0, 5.0, 10.0]
    assert x.unfold(1, 2, 2).shape == (3, 2, 2) and x.unfold(1, 2, 2).dtype is e5
    assert x.as_strided((2, 2), (1, 4)).tolist() == [[0.0, 4.0], [1.0, 5.0]]
    assert mt.empty_strided((2, 3), (1, 2), dtype=e5).stride() == (1, 2)
    assert mt.empty(0, 3, dtype=e5).t().stride() == (1, 3)


def test_e5m2_strided_views_everywhere():
    # every strided view goes through minitorch._backend.strided_view: expand to a new leading
    # dim, empty slices and views, channels_last empties, set_ on a storage, cat with an empty
    e5 = mt.float8_e5m2
    x = mt.arange(24.0).reshape(2, 3, 4).to(e5)
    assert x.expand(1, 2, 3, 4).stride() == (24, 12, 4, 1)
    assert x.expand(1, 2, 3, 4)[0, 0, 1].tolist() == [4.0, 5.0, 6.0, 7.0]
    assert x[:, :, 4:].stride() == (12, 4, 1) and x[:, :, 4:].dtype is e5
    assert x.narrow(1, 3, 0).shape == (2, 0, 4)
    assert x[:0].view(0, 12).stride() == (12, 1)
    cl = mt.empty(0, 3, 4, 5, dtype=e5, memory_format=mt.channels_last)
    assert cl.stride() == (60, 1, 15, 3)
    y = mt.empty(0, dtype=e5).set_(x.untyped_storage(), 2, (3, 2), (1, 3))
    assert y.tolist() == [[2.0, 5.0], [3.0, 6.0], [4.0, 7.0]]
    assert mt.cat([x, x[:, :0]], 1).tolist() == x.tolist()


# --- printing ---


def test_repr():
    d = mt.float8_e4m3fn
    assert repr(mt.tensor([[1.0, 2.5], [0.0, NAN]], dtype=d)) == (
        "tensor([[1.0000, 2.5000],\n        [0.0000,    nan]], dtype=torch.float8_e4m3fn)"
    )
    assert repr(mt.tensor(3.0, dtype=mt.float8_e5m2)) == "tensor(3., dtype=torch.float8_e5m2)"
    assert repr(mt.tensor([], dtype=mt.float8_e5m2)) == "tensor([], dtype=torch.float8_e5m2)"
    assert mt.zeros(1, dtype=mt.float8_e5m2).type() == "torch.Float8_e5m2Tensor"


def test_repr_e8m0():
    # torch's isfinite holds for all e8m0fnu values (NaN too) and its 0 is 2**-127
    e8 = mt.float8_e8m0fnu
    assert repr(mt.tensor([[1.0, 2.0], [0.0, 4.0]], dtype=e8)) == (
        "tensor([[1., 2.],\n        [0., 4.]], dtype=torch.float8_e8m0fnu)"
    )
    x = mt.tensor([0.0, 1.0, -1.5, 1000.0, INF, NAN, 0.3]).to(e8)
    assert repr(x) == (
        "tensor([   0.0000,    1.0000,    2.0000, 1024.0000,       nan,       nan,\n"
        "           0.2500], dtype=torch.float8_e8m0fnu)"
    )
    assert repr(mt.tensor([1.0, 1024.0, 0.25], dtype=e8)) == (
        "tensor([1.0000e+00, 1.0240e+03, 2.5000e-01], dtype=torch.float8_e8m0fnu)"
    )


# --- save / load ---


def test_save_load_round_trip():
    x = mt.tensor([[1.0, -2.0, 0.5], [3.0, 0.125, NAN]]).to(mt.float8_e5m2)
    buf = io.BytesIO()
    mt.save({"w": x, "w_t": x.t(), "row": x[1]}, buf)
    raw = zipfile.ZipFile(io.BytesIO(buf.getvalue()))
    pkl = raw.read(next(n for n in raw.namelist() if n.endswith("data.pkl")))
    # torch has no typed storage class for float8: untyped bytes and _rebuild_tensor_v3
    assert b"UntypedStorage" in pkl and b"_rebuild_tensor_v3" in pkl and b"float8_e5m2" in pkl
    for weights_only in (False, True):
        buf.seek(0)
        got = mt.load(buf, weights_only=weights_only)
        assert got["w"].dtype is mt.float8_e5m2
        assert _bits(got["w"]) == _bits(x) and _bits(got["w_t"]) == _bits(x.t())
        assert _bits(got["row"]) == [66, 48, 127]


# --- what torch refuses ---

REFUSED = [
    (lambda x: x + 1, "add_stub"), (lambda x: 1.5 + x, "add_stub"), (lambda x: x - 1.5, "add_stub"),
    (lambda x: x.add(x, alpha=2), "add_stub"), (lambda x: x * 2.0, "mul_cpu_reduced_float"),
    (lambda x: 2 * x, "mul_cpu_reduced_float"),
    (lambda x: x * mt.tensor(2.0), "mul_cpu_reduced_float"),
    (lambda x: x / 2, "div_cpu_reduced_float"),
    (lambda x: x / mt.tensor(2.0), "div_cpu_reduced_float"),
    (lambda x: x.clamp(0, 1), "clamp_scalar_cpu"),
    (lambda x: x.clamp(min=0), "clamp_min_scalar_cpu"),
    (lambda x: x.clamp(max=1.0), "clamp_max_scalar_cpu"),
    (lambda x: mt.arange(3, dtype=x.dtype), "arange_cpu"),
    (lambda x: mt.linspace(0, 1, 3, dtype=x.dtype), "linspace_cpu"),
    (lambda x: mt.rand(3, dtype=x.dtype), "check_uniform_bounds"),
    (lambda x: mt.randn(3, dtype=x.dtype), "normal_kernel_cpu"),
]  # fmt: skip


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("case", range(len(REFUSED)))
def test_refused(name, case):
    fn, kernel = REFUSED[case]
    x = mt.tensor([1.0, 2.0, 0.5], dtype=_f8(name))
    label = "Float8" + name[len("float8") :]
    with pytest.raises(NotImplementedError) as info:
        fn(x)
    assert str(info.value) == f"\"{kernel}\" not implemented for '{label}'"


def test_what_torch_runs():
    x = mt.tensor([1.0, 2.0, 0.5], dtype=mt.float8_e4m3fn)
    assert (x * x).tolist() == [1.0, 4.0, 0.25] and (x * x).dtype is mt.float8_e4m3fn
    with pytest.raises(
        NotImplementedError, match="\"div_cpu\" not implemented for 'Float8_e4m3fn'"
    ):
        x / x
    assert mt.linspace(0, 1, 1, dtype=mt.float8_e4m3fn).tolist() == [0.0]
    assert (x == 2.0).tolist() == [False, True, False]
    assert x.sum(dtype=mt.float32).item() == 3.5
    assert mt.cat([x, x[:1]]).tolist() == [1.0, 2.0, 0.5, 1.0]
    # clamping in float32 first, as FP8 recipes do, is fine
    assert (mt.tensor([1000.0]).clamp(-448, 448).to(mt.float8_e4m3fn)).tolist() == [448.0]


def test_other_dtypes_unchanged():
    # the paths float8 now shares with the half dtypes
    assert mt.tensor([1, 2, 200], dtype=mt.uint8).clamp(2, 5).tolist() == [2, 2, 5]
    assert mt.tensor([1.0, 2.0], dtype=mt.bfloat16).clamp(0, 1.5).tolist() == [1.0, 1.5]
    assert (mt.tensor([1.0, 2.0], dtype=mt.float16) * 2.5).tolist() == [2.5, 5.0]
    assert (mt.tensor([1.0, 2.0], dtype=mt.bfloat16) + 1).tolist() == [2.0, 3.0]
    assert mt.arange(3, dtype=mt.float16).tolist() == [0.0, 1.0, 2.0]
    assert np.asarray(mt.full((2,), 0.0, dtype=mt.float16).tolist()).tolist() == [0.0, 0.0]


def test_gemm_rounds_once_and_saturates():
    d = mt.float8_e4m3fn
    a = mt.tensor([[1.125]], dtype=d)
    b = mt.tensor([0.0625], dtype=d)
    # 1.265625 + 0.0625 rounded once is 1.375; the product rounded first (1.25) would give 1.25
    assert mt.addmm(b, a, a).tolist() == [[1.375]]
    assert mt.nn.functional.linear(a, a, b).tolist() == [[1.375]]
    big = mt.full((2, 8), 20.0).to(d)  # sums of 3200: saturated, not NaN
    assert (big @ big.t()).tolist() == [[448.0, 448.0], [448.0, 448.0]]
    assert mt.nn.functional.linear(big, big).tolist() == [[448.0, 448.0], [448.0, 448.0]]
    e5 = mt.full((1, 64), 240.0).to(mt.float8_e5m2)
    assert (e5 @ e5.t()).tolist() == [[INF]]


def test_casts_from_double_are_silent():
    x = mt.tensor([1e300, -1e300, NAN], dtype=mt.float64)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert x.to(mt.float8_e4m3fn)[:2].tolist() == [448.0, -448.0]
        assert x.to(mt.float8_e5m2)[:2].tolist() == [INF, -INF]
        assert _bits(x.to(mt.float8_e8m0fnu)) == [255, 255, 255]
