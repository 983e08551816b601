"""embedding_bag's segment reductions (Backend.segment_reduce): torch's max (a NaN wins only as
the first of a bag, ties to the first row), padding rows skipped whatever they hold, gradients,
and no host reads on the strict device. Expected values obtained by running torch 2.13."""

import math

import numpy as np
import pytest

import minitorch
from minitorch._backend import Backend, backend_of, cpu, device
from minitorch._backend.strict import count_transfers
from minitorch.autograd import gradcheck, gradgradcheck

F = minitorch.nn.functional
NAN, INF = math.nan, math.inf


def _reference(values, starts, op):
    ufunc = {"sum": np.add, "max": np.maximum, "min": np.minimum}[op]
    bounds = list(starts) + [len(values)]
    out = []
    for s, e in zip(bounds[:-1], bounds[1:], strict=True):
        if s < e:
            acc = values[s].copy()
            for row in values[s + 1 : e]:  # rows in turn
                acc = ufunc(acc, row)
        elif op == "sum":
            acc = np.zeros(values.shape[1:], values.dtype)
        elif values.dtype.kind == "f":
            acc = np.full(values.shape[1:], -np.inf if op == "max" else np.inf, values.dtype)
        else:
            info = np.iinfo(values.dtype)
            acc = np.full(values.shape[1:], info.min if op == "max" else info.max, values.dtype)
        out.append(acc)
    return np.array(out).reshape((len(starts),) + values.shape[1:])


@pytest.mark.parametrize("shape", [(40, 3), (40,), (3000, 2), (0, 2)])
@pytest.mark.parametrize("dtype", [np.float32, np.int64])
def test_segment_reduce_on_every_backend(shape, dtype):
    rng = np.random.default_rng(0)
    numpy_backend, strict = backend_of(cpu), backend_of(device("strict"))
    values = (rng.standard_normal(shape) * 10).astype(dtype)
    n = shape[0]
    for m in (1, 4, 30):  # trailing and repeated starts: empty segments
        starts = np.sort(np.concatenate([[0], rng.integers(0, n + 1, m - 1)])).astype(np.int64)
        for op in ("sum", "max", "min"):
            want = _reference(values, starts, op)
            got = numpy_backend.segment_reduce(values, starts, op)
            on_strict = strict.segment_reduce(
                strict.from_host(values, None), strict.from_host(starts, None), op
            )
            generic = Backend.segment_reduce(numpy_backend, values, starts, op)  # CuPy's route
            for name, x in (("numpy", got), ("strict", strict.to_host(on_strict))):
                assert x.dtype == values.dtype
                np.testing.assert_array_equal(x, want, err_msg=f"{name} {op} {m}")
            np.testing.assert_allclose(generic, want, rtol=1e-5, err_msg=f"generic {op} {m}")


def test_embedding_bag_max_takes_torchs_first_maximum():
    # torch: a bag's max starts at its first row and moves only to a greater one, so a NaN
    # wins only as the first (max(dim) would propagate any NaN), and ties go to the first row
    w = minitorch.tensor(
        [[1.0, 5], [1.0, 5], [2, 0], [NAN, 1], [0, NAN]], dtype=minitorch.float64
    ).requires_grad_()
    out = F.embedding_bag(
        minitorch.tensor([0, 1, 2, 1, 0, 3, 4, 3]), w, minitorch.tensor([0, 3, 5]), mode="max"
    )
    np.testing.assert_array_equal(out.detach().numpy(), [[2, 5], [1, 5], [NAN, 1]])
    (g,) = minitorch.autograd.grad(out.sum(), w)
    np.testing.assert_array_equal(g.numpy(), [[0, 1], [1, 1], [1, 0], [1, 1], [0, 0]])
    out = F.embedding_bag(minitorch.tensor([3, 0, 1, 4]), w, minitorch.tensor([0, 2]), mode="max")
    np.testing.assert_array_equal(out.detach().numpy(), [[NAN, 5], [1, 5]])
    (g,) = minitorch.autograd.grad(out.sum(), w)
    np.testing.assert_array_equal(g.numpy(), [[0, 1], [1, 1], [0, 0], [1, 0], [0, 0]])
    # gradients where the maxima are distinct: 1-D with an empty bag and padding, and 2-D
    rng = np.random.default_rng(1)
    w = minitorch.tensor(rng.standard_normal((6, 3)), requires_grad=True)
    idx = minitorch.tensor([0, 2, 5, 1, 2, 2, 4, 3])
    offsets = minitorch.tensor([0, 3, 3, 6])
    for fn in (
        lambda w: F.embedding_bag(idx, w, offsets, mode="max", padding_idx=2),
        lambda w: F.embedding_bag(idx.reshape(2, 4), w, mode="max"),
    ):
        assert gradcheck(fn, (w,))
        assert gradgradcheck(fn, (w,))


def test_embedding_bag_padding_rows_are_skipped_whatever_they_hold():
    w = minitorch.tensor([[1.0, 2], [NAN, INF], [3, -1]], dtype=minitorch.float64)
    w.requires_grad_()
    idx, offsets = minitorch.tensor([0, 1, 2, 1, 1]), minitorch.tensor([0, 3, 3])
    g = minitorch.tensor([[1.0, 2], [3, 4], [5, 6]], dtype=minitorch.float64)
    want = {  # torch's (out, grad of w)
        "sum": ([[4, 1], [0, 0], [0, 0]], [[1, 2], [0, 0], [1, 2]]),
        "mean": ([[2, 0.5], [0, 0], [0, 0]], [[0.5, 1], [0, 0], [0.5, 1]]),
        "max": ([[3, 2], [0, 0], [0, 0]], [[0, 2], [0, 0], [1, 0]]),
    }
    for mode, (out_want, grad_want) in want.items():
        out = F.embedding_bag(idx, w, offsets, mode=mode, padding_idx=1)
        np.testing.assert_array_equal(out.detach().numpy(), out_want, err_msg=mode)
        (gw,) = minitorch.autograd.grad(out, w, g)
        np.testing.assert_array_equal(gw.numpy(), grad_want, err_msg=mode)
    p = minitorch.tensor([0.5, 2, -1, 3, 4], dtype=minitorch.float64, requires_grad=True)
    out = F.embedding_bag(idx, w, offsets, mode="sum", padding_idx=1, per_sample_weights=p)
    np.testing.assert_array_equal(out.detach().numpy(), [[-2.5, 2], [0, 0], [0, 0]])
    gw, gp = minitorch.autograd.grad(out, (w, p), g)
    np.testing.assert_array_equal(gw.numpy(), [[0.5, 1], [0, 0], [-1, -2]])
    np.testing.assert_array_equal(gp.numpy(), [5, 0, 1, 0, 0])
    # first and second derivatives of sum (per-sample weights, include_last_offset, an empty
    # bag, padding) and mean, 1-D and 2-D
    rng = np.random.default_rng(2)
    w = minitorch.tensor(rng.standard_normal((5, 3)), requires_grad=True)
    p = minitorch.tensor(rng.standard_normal(7), requires_grad=True)
    idx = minitorch.tensor([4, 0, 4, 3, 2, 0, 1])
    last = minitorch.tensor([0, 2, 2, 5, 7])
    cases = [
        (lambda w, p: F.embedding_bag(idx, w, last, mode="sum", per_sample_weights=p,
                                      include_last_offset=True, padding_idx=0), (w, p)),
        (lambda w: F.embedding_bag(idx, w, last, mode="mean", padding_idx=4), (w,)),
        (lambda w, p: F.embedding_bag(idx[:6].reshape(3, 2), w, mode="sum",
                                      per_sample_weights=p[:6].reshape(3, 2)), (w, p)),
        (lambda w: F.embedding_bag(idx[:6].reshape(2, 3), w, mode="mean", padding_idx=0), (w,)),
    ]  # fmt: skip
    for fn, inputs in cases:
        assert gradcheck(fn, inputs)
        assert gradgradcheck(fn, inputs)


def test_embedding_bag_on_a_device_reads_nothing_back():
    # before: the strict device took max through scatter_reduce, whose gradient splits ties
    rng = np.random.default_rng(3)
    weight = np.round(rng.standard_normal((6, 4)), 0)  # ties
    idx = np.array([0, 3, 3, 5, 1, 2, 0, 4, 1])
    offsets = np.array([0, 2, 2, 6])
    psw = rng.standard_normal(9)
    results = {}
    for dev in ("cpu", "strict"):
        w = minitorch.tensor(weight, device=dev, requires_grad=True)
        p = minitorch.tensor(psw, device=dev, requires_grad=True)
        i, o = minitorch.tensor(idx, device=dev), minitorch.tensor(offsets, device=dev)
        g = minitorch.ones(4, 4, dtype=minitorch.float64, device=dev)
        with count_transfers() as transfers:
            got = []
            for mode in ("sum", "mean", "max"):
                q = p if mode == "sum" else None
                out = F.embedding_bag(i, w, o, mode=mode, per_sample_weights=q, padding_idx=5)
                got += [out, *minitorch.autograd.grad(out, (w,) if q is None else (w, q), g)]
        assert transfers.count == 0
        results[dev] = [t.cpu().detach().numpy() for t in got]
    for a, b in zip(results["cpu"], results["strict"], strict=True):
        np.testing.assert_array_equal(b, a)
    # torch's max gradient: each (bag, column) to the first row holding the maximum
    np.testing.assert_array_equal(
        results["cpu"][6],
        [[2, 0, 1, 0], [0, 0, 0, 0], [0, 1, 1, 0], [1, 1, 0, 2], [0, 1, 1, 1], [0, 0, 0, 0]],
    )
