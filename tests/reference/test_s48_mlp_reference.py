"""The ops of a hand-written MLP step on the recorded fast path (session 48, helper "mlp") against
torch: x @ w, relu, logsumexp(dim=1), logits[arange(n), y] and mean give torch's values, grad_fn
names, edges and _saved_* values, and the step (with its no-grad update p -= lr * p.grad)
torch's losses and parameters."""

import numpy as np
import pytest

import minitorch as mt

torch = pytest.importorskip("torch")

TOL = {"float32": 2e-6, "float64": 1e-13}


def pair(shape, dtype, seed, requires_grad=True):
    a = (np.random.default_rng(seed).standard_normal(shape) * 2).astype(dtype)
    return mt.tensor(a, requires_grad=requires_grad), torch.tensor(a, requires_grad=requires_grad)


def graph(t):
    fn = t.grad_fn
    edges = [None if f is None else type(f).__name__ for f, _ in fn.next_functions]
    saved = {}
    for k in dir(fn):
        if k.startswith("_saved_"):
            v = getattr(fn, k)
            tensors = (mt.Tensor, torch.Tensor)
            if isinstance(v, tensors):
                v = (tuple(v.shape), str(v.dtype).split(".")[-1])
            elif isinstance(v, (tuple, list)) and any(isinstance(e, tensors) for e in v):
                continue  # (index tensors: compared by the test of indexing)
            saved[k] = v
    return type(fn).__name__, edges, saved


OPS = {
    "mm": lambda lib, a, b: a @ b,
    "relu": lambda lib, a, b: lib.relu(a),
    "logsumexp": lambda lib, a, b: a.logsumexp(dim=1),
    "logsumexp(-1, True)": lambda lib, a, b: lib.logsumexp(a, -1, True),
    "mean": lambda lib, a, b: a.mean(),
    "mean(1)": lambda lib, a, b: a.mean(1),
    "index": lambda lib, a, b: a[lib.arange(4), lib.tensor([0, 3, 1, 1])],
}


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("name", list(OPS))
def test_recorded_op_matches_torch(name, dtype):
    fn = OPS[name]
    (ma, ta), (mb, tb) = pair((4, 4), dtype, 1), pair((4, 4), dtype, 2)
    mo, to = fn(mt, ma, mb), fn(torch, ta, tb)
    np.testing.assert_allclose(
        mo.detach().numpy(), to.detach().numpy(), rtol=TOL[dtype], atol=TOL[dtype], err_msg=name
    )
    assert mo.stride() == to.stride()
    assert graph(mo) == graph(to)
    g = np.random.default_rng(3).standard_normal(tuple(to.shape)).astype(dtype)
    mo.backward(mt.tensor(g))
    to.backward(torch.tensor(g))
    for m, t in ((ma, ta), (mb, tb)):
        if t.grad is None:
            assert m.grad is None
        else:
            np.testing.assert_allclose(m.grad.numpy(), t.grad.numpy(), rtol=1e-5, atol=1e-6)


def test_the_mlp_step_matches_torch():
    sizes, batch, lr = (8, 6, 6, 4), 5, 0.1
    rng = np.random.default_rng(0)
    arrays = []
    for i, o in zip(sizes[:-1], sizes[1:], strict=True):
        arrays += [(rng.standard_normal((i, o)) * 0.3).astype("float32"), np.zeros(o, "float32")]
    x = rng.standard_normal((batch, sizes[0])).astype("float32")
    y = np.array([0, 3, 1, 2, 3])
    results = []
    for lib in (mt, torch):
        params = [lib.tensor(a, requires_grad=True) for a in arrays]
        xs, ys = lib.tensor(x), lib.tensor(y)
        losses = []
        for _ in range(3):
            h = xs
            for w, b in zip(params[0:-2:2], params[1:-2:2], strict=True):
                h = lib.relu(h @ w + b)
            logits = h @ params[-2] + params[-1]
            loss = (logits.logsumexp(dim=1) - logits[lib.arange(batch), ys]).mean()
            loss.backward()
            with lib.no_grad():
                for p in params:
                    p -= lr * p.grad
                    p.grad = None
            losses.append(float(loss.detach()))
        results.append((losses, [p.detach().numpy() for p in params]))
    np.testing.assert_allclose(results[0][0], results[1][0], rtol=1e-5)
    for m, t in zip(results[0][1], results[1][1], strict=True):
        np.testing.assert_allclose(m, t, rtol=1e-5, atol=1e-6)
