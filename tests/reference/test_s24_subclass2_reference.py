"""Tensor subclasses against torch: autograd.grad result types and values, backward .grad
types, pickle / torch.save round trips and deepcopy, over plain, subclass and Parameter
arguments."""

import copy
import io
import pickle

import numpy as np
import pytest

import minitorch

torch = pytest.importorskip("torch")

KINDS = ["MyT", "Sub2", "Tensor", "Parameter"]


# module-level (picklable by name) subclasses of each library's Tensor
class TorchMyT(torch.Tensor):
    pass


class TorchSub2(TorchMyT):
    pass


class MiniMyT(minitorch.Tensor):
    pass


class MiniSub2(MiniMyT):
    pass


PICKLABLE = {
    "torch": {"MyT": TorchMyT, "Sub2": TorchSub2},
    "minitorch": {"MyT": MiniMyT, "Sub2": MiniSub2},
}
_CLASSES = {}


def _classes(lib):
    if lib.__name__ not in _CLASSES:

        class MyT(lib.Tensor):
            pass

        class Sub2(MyT):
            pass

        _CLASSES[lib.__name__] = {"MyT": MyT, "Sub2": Sub2}
    return _CLASSES[lib.__name__]


def _leaf(lib, kind, values):
    t = lib.tensor(values, dtype=lib.float64)
    if kind == "Parameter":
        return lib.nn.Parameter(t)
    if kind == "Tensor":
        return t.requires_grad_()
    return lib.Tensor._make_subclass(_classes(lib)[kind], t, True)


OPS = [
    lambda lib, a, b: lib.lerp(a, b, 0.3),
    lambda lib, a, b: (a * b).tanh(),
    lambda lib, a, b: a.clone().mul_(b),
    lambda lib, a, b: lib.stack([a, b]).sum(0),
    lambda lib, a, b: (a @ b.T).exp(),
]


@pytest.mark.parametrize("op", range(len(OPS)))
@pytest.mark.parametrize("ka", KINDS)
@pytest.mark.parametrize("kb", KINDS)
def test_grad_types(op, ka, kb):
    rng = np.random.default_rng(op * 100 + KINDS.index(ka) * 10 + KINDS.index(kb))
    va, vb = rng.standard_normal((2, 2, 3)).tolist()
    got = {}
    for lib in (torch, minitorch):
        a, b = _leaf(lib, ka, va), _leaf(lib, kb, vb)
        g = lib.autograd.grad(OPS[op](lib, a, b).sum(), [a, b])
        OPS[op](lib, a, b).sum().backward()
        got[lib.__name__] = (
            [type(t).__name__ for t in g],
            [t.detach().numpy() for t in g],
            [type(t.grad).__name__ for t in (a, b)],
        )
    (tt, vt, bt), (tm, vm, bm) = got["torch"], got["minitorch"]
    assert tm == tt and bm == bt
    for x, y in zip(vm, vt, strict=True):
        np.testing.assert_allclose(x, y, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("kind", ["MyT", "Sub2"])
@pytest.mark.parametrize("grad", [False, True])
def test_round_trips(kind, grad):
    got = {}
    for lib in (torch, minitorch):
        x = lib.Tensor._make_subclass(PICKLABLE[lib.__name__][kind], lib.arange(4.0), grad)
        x.tag = 7
        y = pickle.loads(pickle.dumps(x)) if lib is minitorch else None
        buf = io.BytesIO()
        lib.save({"x": x}, buf)
        buf.seek(0)
        z = lib.load(buf, weights_only=False)["x"]
        try:
            copy.deepcopy(x)
            dc = "ok"
        except RuntimeError as e:
            dc = str(e)[:60]
        rows = [(type(z).__name__[-3:], z.tag, z.is_leaf, z.requires_grad, z.tolist()), dc]
        if y is not None:
            rows.append((type(y).__name__[-3:], y.tag, y.is_leaf, y.requires_grad))
        got[lib.__name__] = rows
    assert got["minitorch"][:2] == got["torch"]
    assert got["minitorch"][2] == got["torch"][0][:4]
