"""Seeded sweep comparing minitorch._tensor_str.tensor_repr with repr() of real torch tensors."""

from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from minitorch import _tensor_str  # noqa: E402
from minitorch._tensor_str import tensor_repr  # noqa: E402

SHAPES = [
    (), (1,), (5,), (0,), (0, 3), (2, 0, 4), (3, 4), (2, 3, 4), (25,), (100,), (7, 13), (1, 1, 9),
    (2, 3, 4, 5), (1001,), (2000,), (40, 30), (11, 10, 10), (3, 1, 400), (4, 300), (2, 2, 2, 130),
]  # fmt: skip
FLOAT_DTYPES = ["float16", "float32", "float64"]
INT_DTYPES = ["int8", "int16", "int32", "int64", "uint8"]
OPTIONS = [
    {},
    {"precision": 2},
    {"precision": 7, "linewidth": 120},
    {"linewidth": 50},
    {"sci_mode": True},
    {"sci_mode": False},
    {"profile": "short"},
    {"edgeitems": 1, "threshold": 20},
    {"edgeitems": 0},
    {"threshold": 5},
]


@pytest.fixture(autouse=True)
def _restore_printoptions():
    yield
    torch.set_printoptions(profile="default")
    _tensor_str.set_printoptions(profile="default")
    torch.set_default_dtype(torch.float32)


def random_floats(rng: np.random.Generator, shape: tuple, dtype: str) -> np.ndarray:
    """Values in one random magnitude band (1e-8 .. 1e10), maybe integral, with specials."""
    low = rng.uniform(-8, 10)
    high = low + rng.choice([0.0, 1.0, 3.0, 6.0])
    magnitudes = 10.0 ** rng.uniform(low, high, size=shape)
    a = magnitudes * rng.choice([-1.0, 1.0], size=shape)
    if rng.random() < 0.3:
        a = np.round(a)
    if rng.random() < 0.2:
        a = np.where(rng.random(shape) < 0.3, 0.0, a)
    if rng.random() < 0.3:
        specials = np.array([np.nan, np.inf, -np.inf, -0.0])
        mask = rng.random(shape) < 0.1
        a = np.where(mask, rng.choice(specials, size=shape), a)
    with np.errstate(over="ignore"):
        return np.asarray(a, dtype=dtype)


def random_array(rng: np.random.Generator) -> tuple[np.ndarray, str]:
    shape = SHAPES[rng.integers(len(SHAPES))]
    kind = rng.choice(["float", "float", "float", "int", "bool"])
    if kind == "bool":
        return np.asarray(rng.random(shape) < 0.5), "bool"
    if kind == "int":
        dtype = str(rng.choice(INT_DTYPES))
        info = np.iinfo(dtype)
        bound = min(info.max, 10 ** int(rng.integers(1, 12)))
        return rng.integers(max(info.min, -bound), bound, size=shape, dtype=dtype), dtype
    dtype = str(rng.choice(FLOAT_DTYPES))
    return random_floats(rng, shape, dtype), dtype


def both_set_printoptions(options: dict) -> None:
    torch.set_printoptions(**options)
    _tensor_str.set_printoptions(**options)


@pytest.mark.parametrize("seed", range(300))
def test_repr_matches_torch(seed):
    rng = np.random.default_rng(seed)
    a, dtype = random_array(rng)
    expected = repr(torch.from_numpy(a))
    assert tensor_repr(a, dtype_name=dtype) == expected


@pytest.mark.parametrize("seed", range(150))
def test_repr_matches_torch_with_printoptions(seed):
    rng = np.random.default_rng(1000 + seed)
    options = OPTIONS[seed % len(OPTIONS)]
    both_set_printoptions(options)
    a, dtype = random_array(rng)
    expected = repr(torch.from_numpy(a))
    assert tensor_repr(a, dtype_name=dtype) == expected, options


@pytest.mark.parametrize("seed", range(60))
def test_requires_grad_and_grad_fn_match_torch(seed):
    rng = np.random.default_rng(2000 + seed)
    dtype = FLOAT_DTYPES[seed % 3]
    a = random_floats(rng, SHAPES[seed % len(SHAPES)], dtype)
    leaf = torch.from_numpy(a).requires_grad_()
    assert tensor_repr(a, dtype_name=dtype, requires_grad=True) == repr(leaf)
    out = leaf.clone()
    got = tensor_repr(a, dtype_name=dtype, requires_grad=True, grad_fn_name="CloneBackward0")
    assert got == repr(out)


@pytest.mark.parametrize("seed", range(60))
def test_default_float64_matches_torch(seed):
    torch.set_default_dtype(torch.float64)
    rng = np.random.default_rng(3000 + seed)
    a, dtype = random_array(rng)
    expected = repr(torch.from_numpy(a))
    assert tensor_repr(a, dtype_name=dtype, default_float_name="float64") == expected


@pytest.mark.parametrize("shape", [(3,), (2, 40), (0, 2), (30, 40)])
def test_parameter_prefix_matches_torch(shape):
    a = np.random.default_rng(7).standard_normal(shape).astype(np.float32)
    param = torch.nn.Parameter(torch.from_numpy(a))
    got = "Parameter containing:\n" + tensor_repr(a, dtype_name="float32", requires_grad=True)
    assert got == repr(param)


def test_long_suffixes_wrap_like_torch():
    a = np.linspace(-1, 1, 16, dtype=np.float64)
    leaf = torch.from_numpy(a).requires_grad_()
    assert tensor_repr(a, dtype_name="float64", requires_grad=True) == repr(leaf)
    got = tensor_repr(a, dtype_name="float64", grad_fn_name="CloneBackward0")
    assert got == repr(leaf.clone())
