"""Tensors and factories against real torch: reprs, tensor() dtype inference, range values, and the
types and messages of errors, built the same way in both libraries."""

from __future__ import annotations

import pickle
import warnings

import numpy as np
import pytest

torch = pytest.importorskip("torch")

import minitorch as mt  # noqa: E402


@pytest.fixture(autouse=True)
def _restore_defaults():
    yield
    torch.set_default_dtype(torch.float32)
    mt.set_default_dtype(mt.float32)


def _both(build):
    """build(lib) run with torch and with minitorch: (torch result, minitorch result), where a
    raised exception is the result."""
    out = []
    for lib in (torch, mt):
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                out.append(build(lib))
        except Exception as e:  # noqa: BLE001 - comparing what each library raises
            out.append(e)
    return out


# --- reprs ---

REPR_CASES = [
    lambda t: t.tensor([[1.0, 2.0]], requires_grad=True),
    lambda t: t.tensor([[1.0, 2.0]], requires_grad=True) * 2,
    lambda t: t.tensor([1.0, 2.0], requires_grad=True).sum(),
    lambda t: t.tensor([1.0, 2.0], requires_grad=True).to(t.float64),
    lambda t: t.tensor([1.0, 2.0], requires_grad=True).clone(),
    lambda t: t.tensor([1.0, 2.0], requires_grad=True).detach(),
    lambda t: t.tensor([1, 2]),
    lambda t: t.tensor([1, 2], dtype=t.int32),
    lambda t: t.tensor([1, 2], dtype=t.uint8),
    lambda t: t.tensor([1.5, 2], dtype=t.float16),
    lambda t: t.tensor([1.5, 2], dtype=t.float64),
    lambda t: t.tensor(3.25),
    lambda t: t.tensor(True),
    lambda t: t.tensor([True, False]),
    lambda t: t.tensor([]),
    lambda t: t.tensor([], dtype=t.int64),
    lambda t: t.tensor([], dtype=t.float64),
    lambda t: t.zeros(2, 0),
    lambda t: t.zeros(0, dtype=t.bool),
    lambda t: t.zeros(2, 3),
    lambda t: t.ones(2, 3, dtype=t.int16),
    lambda t: t.eye(3),
    lambda t: t.full((2, 2), 7),
    lambda t: t.arange(12).reshape(3, 4),
    lambda t: t.arange(0, 1, 0.1),
    lambda t: t.arange(2000.0),
    lambda t: t.linspace(-3, 7, 11),
    lambda t: t.logspace(-2, 2, 5),
    lambda t: t.tensor([1e-5, 1.0]),
    lambda t: t.tensor([1e10, 1.0]),
    lambda t: t.tensor([float("nan"), float("inf"), 1.5]),
    lambda t: t.tensor(3, dtype=t.uint8),
    lambda t: t.tensor([[1, -2], [300, 4]]),
    lambda t: t.tensor(1.5, dtype=t.float64, requires_grad=True),
    lambda t: t.Tensor([1, 2]),
    lambda t: t.LongTensor([1, 2]),
    lambda t: t.ones(2).new_tensor([1, 2]),
    lambda t: t.ones(2, 3).size(),
    lambda t: t.ones(2, 3).shape[1:],
    lambda t: t.Size([]),
    lambda t: t.device("cuda:1"),
    lambda t: t.device("cpu"),
    lambda t: t.device("cpu", 0),
    lambda t: t.ones(2).device,
    lambda t: t.float32,
    lambda t: t.tensor([1.0]).dtype,
]


@pytest.mark.parametrize("case", range(len(REPR_CASES)))
def test_repr_matches_torch(case):
    ref, got = _both(REPR_CASES[case])
    assert not isinstance(got, Exception), got
    assert repr(got) == repr(ref)
    assert str(got) == str(ref)


def test_repr_with_a_float64_default_dtype():
    torch.set_default_dtype(torch.float64)
    mt.set_default_dtype(mt.float64)
    for build in (
        lambda t: t.tensor([1.5, 2.0]),
        lambda t: t.tensor([1.5], dtype=t.float32),
        lambda t: t.zeros(2),
        lambda t: t.tensor([]),
    ):
        ref, got = _both(build)
        assert repr(got) == repr(ref)


# --- tensor() dtype inference ---

DATA = [
    [[1, 2], [3, 4]], [1.5, 2], [True, False], [True, 1], [True, 1.0], 3, 3.5, True, [], [[]],
    [[], []], (1, 2), [[1, 2], (3, 4)], [2**62], [-(2**63)], [1.0, 2**63],
    np.array([1.0, 2.0]), np.array([1, 2], dtype=np.int32), np.array([1, 2], dtype=np.int16),
    np.array([1, 2], dtype=np.uint8), np.array([1, 2], dtype=np.float16), np.array(True),
    np.array(2.5, dtype=np.float32), np.zeros((2, 0)),
    np.float64(2.5), np.float32(2.5), np.int16(2), np.int64(7), np.bool_(True),
    [np.float64(2.5), 1], [np.float32(2.5), 1], [np.float32(1.5), 1.5], [np.int32(1), np.int8(1)],
    [True, np.int32(1)], [np.float16(1), 2],
    [np.array([1.0, 2.0], dtype=np.float32), np.array([1.0, 2.0])],
    [np.array([1, 2], dtype=np.int32), [3, 4]],
]  # fmt: skip


@pytest.mark.parametrize("case", range(len(DATA)))
def test_tensor_dtype_inference_matches_torch(case):
    data = DATA[case]
    ref, got = _both(lambda t: t.tensor(data))
    assert not isinstance(got, Exception), got
    assert str(got.dtype) == str(ref.dtype)
    assert tuple(got.shape) == tuple(ref.shape)
    np.testing.assert_array_equal(got.numpy(), ref.numpy())


TENSOR_DATA = [
    lambda t: [t.tensor(1.0), t.tensor(2.0)],
    lambda t: [t.tensor(1), t.tensor(2)],
    lambda t: [t.tensor(1), 2.5],
    lambda t: [t.tensor(1, dtype=t.int32), 2],
    lambda t: [t.tensor(1.0, dtype=t.float64), 2],
    lambda t: [t.tensor(1.0, dtype=t.float16), t.tensor(1, dtype=t.int64)],
    lambda t: [t.tensor(1, dtype=t.uint8), t.tensor(1, dtype=t.int8)],
    lambda t: [t.tensor([1.0]), t.tensor([2.0])],
    lambda t: [[2.0], t.tensor([1.0])],
    lambda t: [[t.tensor(1.0), t.tensor(2.0)]],
]


@pytest.mark.parametrize("case", range(len(TENSOR_DATA)))
def test_tensor_of_tensors_matches_torch(case):
    ref, got = _both(lambda t: t.tensor(TENSOR_DATA[case](t)))
    assert not isinstance(got, Exception), got
    assert repr(got) == repr(ref)


@pytest.mark.parametrize(
    "data, dtype",
    [
        ([1.7, -1.7], "int64"),
        (-1, "uint8"),
        (-255, "uint8"),
        ([2.5, 0.0], "bool"),
        (5, "bool"),
        (1e300, "float16"),
        (1e10, "float16"),
        (2**63 - 1, "float32"),
        ([1.5], "int32"),
        (True, "float32"),
        ([0.1, 1 / 3], "float16"),
    ],
)
def test_tensor_conversions_match_torch(data, dtype):
    ref, got = _both(lambda t: t.tensor(data, dtype=getattr(t, dtype)))
    assert repr(got) == repr(ref)


# --- ranges: bit-exact values ---


def _same(ref, got):
    if isinstance(ref, Exception):
        assert type(got) is type(ref) and str(got) == str(ref), (ref, got)
        return
    assert str(got.dtype) == str(ref.dtype)
    assert tuple(got.shape) == tuple(ref.shape)
    np.testing.assert_array_equal(got.numpy(), ref.numpy())


def test_arange_values_match_torch_bit_for_bit():
    rng = np.random.default_rng(0)
    for _ in range(150):
        start = float(rng.uniform(-50, 50))
        step = float(rng.uniform(0.001, 3)) * (1 if rng.random() < 0.8 else -1)
        end = (
            start
            + step * int(rng.integers(0, 400))
            + float(rng.uniform(0, abs(step))) * np.sign(step)
        )
        args = (start, end, step)
        names = ["float32", "float64", "int64", "int32"]
        if abs(start) + abs(end) < 60:
            names.append("float16")
        for name in names:
            ref, got = _both(lambda t, a=args, n=name: t.arange(*a, dtype=getattr(t, n)))
            _same(ref, got)
    for args in [
        (5,),
        (1, 5),
        (1, 5, 2),
        (0, 1, 0.1),
        (0.0, 5),
        (1, 2.5, 0.5),
        (10, 0, -3),
        (-1.0, 1.0, 0.3),
        (0, 10, 3.3),
        (5, 1, -1.5),
        (0, 100, 0.7),
    ]:
        ref, got = _both(lambda t, a=args: t.arange(*a))
        _same(ref, got)


def test_linspace_and_logspace_values_match_torch_bit_for_bit():
    rng = np.random.default_rng(1)
    for _ in range(150):
        start, end = float(rng.uniform(-50, 50)), float(rng.uniform(-50, 50))
        steps = int(rng.integers(0, 300))
        args = (start, end, steps)
        for name in ("float32", "float64", "float16", "int64", "int32"):
            ref, got = _both(lambda t, a=args, n=name: t.linspace(*a, dtype=getattr(t, n)))
            _same(ref, got)
        base = 10.0 if rng.random() < 0.5 else float(rng.uniform(0.5, 4))
        args = (start / 20, end / 20, steps % 60, base)
        for name in ("float32", "float64", "float16", "int64"):
            ref, got = _both(lambda t, a=args, n=name: t.logspace(*a, dtype=getattr(t, n)))
            _same(ref, got)


def test_range_values_match_torch():
    for args in [(0, 1, 0.25), (0, 3), (-1.5, 2.5, 0.3), (10, 1, -2)]:
        ref, got = _both(lambda t, a=args: t.range(*a))
        _same(ref, got)


# --- errors: the same types and messages ---

ERRORS = [
    lambda t: t.tensor([[1, 2], [3]]),
    lambda t: t.tensor([[1, 2], 3]),
    lambda t: t.tensor([1, [2, 3]]),
    lambda t: t.tensor([1.0, [2, 3]]),
    lambda t: t.tensor(None),
    lambda t: t.tensor([1, None]),
    lambda t: t.tensor({1: 2}),
    lambda t: t.tensor("abc"),
    lambda t: t.tensor(2**63),
    lambda t: t.tensor([1, 2**64]),
    lambda t: t.tensor(300, dtype=t.uint8),
    lambda t: t.tensor([-1.5], dtype=t.uint8),
    lambda t: t.tensor([t.tensor([1, 2]), t.tensor([3, 4])]),
    lambda t: t.tensor([t.tensor([1.0, 2.0])]),
    lambda t: t.tensor([1, 2], requires_grad=True),
    lambda t: t.tensor(np.arange(3)[::-1]),
    lambda t: t.from_numpy(np.arange(3)[::-1]),
    lambda t: t.zeros(-1),
    lambda t: t.ones(2, -1),
    lambda t: t.empty(-1),
    lambda t: t.rand(-1),
    lambda t: t.zeros(2.5),
    lambda t: t.zeros(2, 2.5),
    lambda t: t.zeros(None),
    lambda t: t.zeros([True]),
    lambda t: t.zeros((2,), (3,)),
    lambda t: t.zeros(2, size=(2,)),
    lambda t: t.ones(2, dtype="float32"),
    lambda t: t.ones(2, dtype=t.int64, requires_grad=True),
    lambda t: t.full(2, 1.0),
    lambda t: t.full((2,), None),
    lambda t: t.full((2,), 300, dtype=t.uint8),
    lambda t: t.full((2,), float("nan"), dtype=t.int64),
    lambda t: t.zeros_like([1, 2]),
    lambda t: t.asarray([1, 2], copy=False),
    lambda t: t.asarray(np.ones(2), dtype=t.float32, copy=False),
    lambda t: t.eye(-1),
    lambda t: t.eye(2, -1),
    lambda t: t.eye(2.5),
    lambda t: t.arange(0, 5, 0),
    lambda t: t.arange(5, 0),
    lambda t: t.arange(0, float("inf")),
    lambda t: t.arange(0, 1e20, 1e-5),
    lambda t: t.arange(3, dtype=t.bool),
    lambda t: t.arange(0, 5, 0.5, dtype=t.int64),
    lambda t: t.linspace(0, 1, -1),
    lambda t: t.linspace(t.tensor([0.0, 1.0]), 1, 3),
    lambda t: t.linspace(0, 1, 3, dtype=t.bool),
    lambda t: t.rand(2, dtype=t.int64),
    lambda t: t.randn(2, dtype=t.int64),
    lambda t: t.randint(10, 3),
    lambda t: t.randint(3, 3, (2,)),
    lambda t: t.randint(2.5, (2,)),
    lambda t: t.randint(0, 2**64, (2,)),
    lambda t: t.randint(0, 300, (2,), dtype=t.uint8),
    lambda t: t.randint(-1, 3, (2,), dtype=t.uint8),
    lambda t: t.randint(10, (3,), requires_grad=True),
    lambda t: t.randperm(-1),
    lambda t: t.randperm(5, dtype=t.bool),
    lambda t: t.randperm(2.5),
    lambda t: t.normal(0.0, -1.0, (2,)),
    lambda t: t.normal(t.zeros(3), -1.0),
    lambda t: t.normal(t.zeros(2), t.ones(2) * -1),
    lambda t: t.normal(t.zeros(2), t.ones(3)),
    lambda t: t.normal(t.zeros(2, dtype=t.int64), 1.0),
    lambda t: t.manual_seed(2**64),
    lambda t: t.Tensor(2.5),
    lambda t: t.Tensor(-1),
    lambda t: t.Tensor([[1, 2], [3]]),
    lambda t: t.Tensor("ab"),
    lambda t: t.ones(2).size(2),
    lambda t: t.ones(()).size(0),
    lambda t: t.ones(2).size(1.5),
    lambda t: t.ones(()).stride(0),
    lambda t: t.ones(2, 3).stride(5),
    lambda t: len(t.ones(())),
    lambda t: iter(t.ones(())),
    lambda t: t.tensor([1, 2]).item(),
    lambda t: float(t.tensor([1, 2])),
    lambda t: int(t.tensor([])),
    lambda t: bool(t.tensor([1, 2])),
    lambda t: bool(t.tensor([])),
    lambda t: [1, 2][t.tensor(1.0)],
    lambda t: t.ones(2, requires_grad=True).numpy(),
    lambda t: t.ones(2, dtype=t.int64).requires_grad_(),
    lambda t: setattr(t.ones(2, dtype=t.int64), "requires_grad", True),
    lambda t: (t.ones(2, requires_grad=True) * 2).requires_grad_(False),
    lambda t: t.ones(2).to("cpu", "cpu"),
    lambda t: t.ones(2).to(t.float64, t.float64),
    lambda t: t.ones(2).to(foo=1),
    lambda t: t.ones(2).type("torch.foo"),
    lambda t: t.ones(2).type(int),
    lambda t: t.ones(2).new_zeros(),
    lambda t: t.device("cuda:x"),
    lambda t: t.device("cuda:01"),
    lambda t: t.device("cuda:"),
    lambda t: t.device(" cuda"),
    lambda t: t.device(-1),
    lambda t: t.device("cuda", -1),
    lambda t: t.device("cuda:1", 1),
    lambda t: t.device("cuda", 1.0),
    lambda t: t.Size([2.5]),
    lambda t: __import__("copy").deepcopy(t.ones(2, requires_grad=True) * 2),
]


@pytest.mark.parametrize("case", range(len(ERRORS)))
def test_errors_match_torch(case):
    ref, got = _both(ERRORS[case])
    assert isinstance(ref, Exception), f"torch raised nothing: {ref!r}"
    assert type(got) is type(ref), f"{type(got).__name__}: {got} | torch: {type(ref).__name__}"
    first = str(ref).split("\n")[0]
    assert str(got).split("\n")[0] == first


# Errors whose type matches but whose message names other things (device lists, signatures).
SAME_TYPE_ERRORS = [
    lambda t: t.device("gpu"),
    lambda t: t.device(None),
    lambda t: t.ones(2).to("blah"),
    lambda t: t.randint(10),
    lambda t: t.normal(0.0, 1.0),
    lambda t: t.Tensor([1], dtype=t.float64),
    lambda t: t.from_numpy(np.zeros(2, dtype=object)),  # torch lists dtypes minitorch lacks
]


@pytest.mark.parametrize("case", range(len(SAME_TYPE_ERRORS)))
def test_error_types_match_torch(case):
    ref, got = _both(SAME_TYPE_ERRORS[case])
    assert isinstance(ref, Exception) and type(got) is type(ref), (ref, got)


# --- behaviours ---

BEHAVIOURS = [
    lambda t: t.ones(2, 3).stride(),
    lambda t: t.zeros(0, 3).stride(),
    lambda t: t.zeros(3, 0).stride(),
    lambda t: t.ones(2, 3).t().stride(),
    lambda t: t.ones(2, 3).t().is_contiguous(),
    lambda t: t.ones(2, 3)[1].storage_offset(),
    lambda t: t.ones(4, 6)[::2, ::3].stride(),
    lambda t: t.ones(1, 3).expand(4, 3).stride(),
    lambda t: t.ones(2).type(),
    lambda t: t.ones(2).to(t.int8).type(),
    lambda t: t.ones(2).bool().type(),
    lambda t: [x.item() for x in t.tensor([3, 4])],
    lambda t: t.tensor(2.5).item(),
    lambda t: t.tensor([[1, 2]]).tolist(),
    lambda t: [1, 2, 3][t.tensor(True)],
    lambda t: int(t.tensor(-2.7)),
    lambda t: t.device("cpu") == "cpu",
    lambda t: t.device("cuda") == t.device("cuda:0"),
    lambda t: t.device("cuda:1") == t.device("cuda", 1),
    lambda t: t.ones(2, device="cpu:0").device,
    lambda t: t.ones(2).to("cpu:1").device,
    lambda t: pickle.loads(pickle.dumps(t.device("cuda:1"))),
    lambda t: pickle.loads(pickle.dumps(t.tensor([1.0, 2.0], requires_grad=True))),
    lambda t: pickle.loads(pickle.dumps(t.ones(2, 3).shape)),
    lambda t: t.Size([2, 3]) + (4,),
    lambda t: t.Size([2, 3]) * 2,
    lambda t: t.result_type(t.ones(2, dtype=t.int32), 1.0),
    lambda t: t.result_type(t.ones(2, dtype=t.int32), t.tensor(1.0, dtype=t.float64)),
    lambda t: t.result_type(2, 3.0),
    lambda t: t.manual_seed(-1).initial_seed(),
    lambda t: t.Generator().initial_seed(),
    lambda t: t.Generator().device,
    lambda t: t.cuda.is_available(),
    lambda t: t.cuda.device_count(),
    lambda t: isinstance(t.ones(2).long(), t.LongTensor),
    lambda t: isinstance(t.ones(2), t.cuda.FloatTensor),
    lambda t: t.full((2,), t.tensor(1.5, dtype=t.float64)),
    lambda t: t.full((2,), np.int32(1)),
    lambda t: t.ones(2, dtype=t.int32).new_full((2,), 2.5),
    lambda t: t.ones(2, dtype=t.int32).new_tensor([1.5]),
    lambda t: t.ones(2).new(2, 3).shape,
    lambda t: t.normal(t.zeros(2), t.ones(2, dtype=t.float64)).dtype,
    lambda t: t.normal(t.zeros(2, dtype=t.float64), t.ones(2)).dtype,
    lambda t: type(t.normal(t.ones(2, requires_grad=True), 1.0).grad_fn).__name__,
    lambda t: type(t.normal(1.0, t.ones(2, requires_grad=True)).grad_fn).__name__,
    lambda t: t.randint(5, (2, 2)).dtype,
    lambda t: t.randperm(4, dtype=t.float16).dtype,
    lambda t: t.get_default_device(),
    lambda t: t.tensor([1, 2], dtype=float).dtype,
]


@pytest.mark.parametrize("case", range(len(BEHAVIOURS)))
def test_behaviour_matches_torch(case):
    ref, got = _both(BEHAVIOURS[case])
    assert not isinstance(got, Exception), got
    assert repr(got) == repr(ref)
