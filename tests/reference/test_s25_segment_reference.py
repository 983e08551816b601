"""torch.segment_reduce against PyTorch: values, dtypes, errors and gradients over a sweep."""

from __future__ import annotations

import math

import numpy as np
import pytest

import minitorch

torch = pytest.importorskip("torch")

NAN = math.nan
REDUCES = ["sum", "mean", "max", "min", "prod", "amax", "amin"]


def _run(fn):
    try:
        out = fn()
    except Exception as e:  # noqa: BLE001 - the exception is what is compared
        return ("raises", type(e).__name__, str(e).split("\n")[0])
    if isinstance(out, tuple):
        return tuple(_run(lambda o=o: o) for o in out)
    return (str(out.dtype).split(".")[-1], tuple(out.shape), out.detach().double().numpy())


def _same(want, got):
    if isinstance(want, np.ndarray):
        np.testing.assert_array_equal(got, want)
    elif isinstance(want, tuple):
        assert isinstance(got, tuple) and len(want) == len(got), (want, got)
        for w, g in zip(want, got, strict=True):
            _same(w, g)
    else:
        assert want == got


def _compare(prog):
    _same(_run(lambda: prog(torch)), _run(lambda: prog(minitorch)))


CASES = [
    (lambda T: T.tensor([1.0, 2.0, NAN, 4.0, 5.0, -1.0]), dict(lengths=[2, 0, 3, 1])),
    (lambda T: T.tensor([1.0, 2.0, NAN, 4.0, 5.0, -1.0]), dict(offsets=[1, 2, 2, 5])),
    (lambda T: T.arange(24.0).reshape(2, 3, 4) / 7, dict(lengths=[[1, 2, 0], [0, 0, 3]], axis=1)),
    (
        lambda T: T.arange(24.0).reshape(2, 3, 4) / 3 - 2,
        dict(offsets=[[0, 1, 3], [1, 1, 2]], axis=-2),
    ),
    (lambda T: T.arange(24.0).reshape(4, 6) / 3 - 2, dict(lengths=[1, 0, 3])),
    (lambda T: T.full((3000,), 0.1), dict(lengths=[2000, 0, 1000])),
]


@pytest.mark.parametrize("dtype", ["float64", "float32", "float16", "bfloat16"])
@pytest.mark.parametrize("initial", [None, 2.0])
@pytest.mark.parametrize("reduce", REDUCES)
@pytest.mark.parametrize("case", range(len(CASES)))
def test_forward_matches_torch(case, reduce, initial, dtype):
    make, kw = CASES[case]

    def prog(T):
        args = {k: T.tensor(v) if k != "axis" else v for k, v in kw.items()}
        x = make(T).to(getattr(T, dtype))
        return T.segment_reduce(x, reduce, initial=initial, **args)

    _compare(prog)


@pytest.mark.parametrize("initial", [None, 2.0])
@pytest.mark.parametrize("reduce", REDUCES)
@pytest.mark.parametrize(
    "values",
    [[2.0, 1.0, 2.0, 0.0, 3.0, 0.0, 0.0], [1.0, NAN, 3.0, 0.0, 2.0, NAN, NAN],
     [0.0, NAN, 2.0, 5.0, 5.0, 1.0, 0.0]],
)  # fmt: skip
def test_gradients_match_torch(values, reduce, initial):
    def prog(T):
        x = T.tensor(values, dtype=T.float64, requires_grad=True)
        out = T.segment_reduce(x, reduce, lengths=T.tensor([3, 0, 2, 2]), initial=initial)
        out.backward(T.tensor([1.0, 10.0, 100.0, 1000.0], dtype=T.float64))
        return out, x.grad

    _compare(prog)


ERRORS = [
    dict(indices=[0, 0, 1, 1, 1, 2]), dict(), dict(lengths=[2, -1, 4, 1]),
    dict(lengths=[2, 1, 4, 1]), dict(lengths=[2, 1, 1, 1]), dict(lengths=[2, 1, 1, 1], unsafe=True),
    dict(lengths=[2.0, 1.0, 1.0, 2.0]), dict(lengths=[2, 4], offsets=[0, 3, 6]),
    dict(offsets=[0, 2, 1, 6]), dict(offsets=[0]), dict(lengths=[2, -1, 5], unsafe=True),
    dict(offsets=[0.0, 2.0, 6.0]), dict(offsets=[0, 2, 6], dtype="int32"),
    dict(offsets=[0, 2, 6], dtype="int16"), dict(lengths=[2, 4], dtype="uint8"),
    dict(lengths=[True, True]), dict(lengths=[2, 4], axis=1), dict(lengths=[2, 4], axis=-2),
    dict(lengths=[2, 4], initial=1 + 2j), dict(lengths=[2, 4], initial=True),
    dict(lengths=[2, 4], reduce="foo"), dict(reduce="foo"),
]  # fmt: skip


@pytest.mark.parametrize("kw", ERRORS, ids=str)
def test_arguments_and_errors_match_torch(kw):
    def prog(T):
        args = dict(kw)
        dt = getattr(T, args.pop("dtype", "int64"))
        for k in ("lengths", "offsets", "indices"):
            if k in args:
                v = args[k]
                args[k] = T.tensor(v) if isinstance(v[0], (float, bool)) else T.tensor(v, dtype=dt)
        return T.segment_reduce(T.arange(6.0), args.pop("reduce", "sum"), **args)

    _compare(prog)
