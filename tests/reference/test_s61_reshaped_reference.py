"""Session 61: gradients of a tensor whose shape or dtype changed without a record, against
torch: the same gradients, or the same error (tests/test_s61_reshaped.py)."""

import numpy as np
import pytest

import minitorch

torch = pytest.importorskip("torch")

X = np.arange(1.0, 7.0).reshape(2, 3)

OPS = {
    "sum0": lambda x: x.sum(0),
    "sum1_keepdim": lambda x: x.sum(1, keepdim=True),
    "mean0": lambda x: x.mean(0),
    "max0": lambda x: x.max(0).values,
    "index_int": lambda x: x[0],
    "index_tensor": lambda x: x[x.new_tensor([1, 0]).long()],
    "mm": lambda x: x @ x.new_ones(3, 2),
    "softmax": lambda x: x.softmax(1),
    "cumsum": lambda x: x.cumsum(1),
    "expand": lambda x: x[0].expand(2, 3),
    "permute": lambda x: x.permute(1, 0),
    "reshape": lambda x: x.reshape(3, 2),
    "repeat": lambda x: x.repeat(2, 1),
    "logsumexp": lambda x: x.logsumexp(1),
    "prod": lambda x: x.prod(1),
    "norm": lambda x: x.norm(dim=1),
    "sort": lambda x: x.sort(1).values,
    "gather": lambda x: x.gather(1, x.new_tensor([[0], [2]]).long()),
}

CHANGES = {
    "unsqueeze_0": lambda y: y.unsqueeze_(0),
    "unsqueeze_-1": lambda y: y.unsqueeze_(-1),
    "t_": lambda y: y.t_() if y.dim() <= 2 else y.transpose_(0, 1),
    "as_strided_": lambda y: y.as_strided_((1,) + tuple(y.shape), (0,) + tuple(y.stride())),
}


def _run(lib, op, change):
    x = lib.tensor(X, dtype=lib.float64, requires_grad=True)
    y = OPS[op](x)
    with lib.no_grad():
        CHANGES[change](y)
    w = lib.arange(1.0, y.numel() + 1, dtype=lib.float64).reshape(y.shape)
    try:
        (y * w).sum().backward()
    except RuntimeError as e:
        return str(e)[:120]
    return x.grad.tolist()


@pytest.mark.parametrize("change", list(CHANGES))
@pytest.mark.parametrize("op", list(OPS))
def test_a_changed_result_matches_torch(op, change):
    assert _run(minitorch, op, change) == _run(torch, op, change)


def _root_and_data(lib, case):
    x = lib.tensor(X, dtype=lib.float64, requires_grad=True)
    y = x.cumsum(1)
    try:
        if case == "data":
            y.data = lib.ones(1, 2, 3, dtype=lib.float32)
            (y * 3).sum().backward()
            return x.grad.tolist(), str(x.grad.dtype).split(".")[-1]
        if case == "create_graph":  # the sum back is differentiable
            with lib.no_grad():
                y.unsqueeze_(0)
            (g,) = lib.autograd.grad((y**2).sum(), x, create_graph=True)
            g.sum().backward()
            return g.tolist(), x.grad.tolist()
        with lib.no_grad():
            y.t_()
        y.backward(lib.ones(3, 2, dtype=lib.float64))
    except RuntimeError as e:
        return str(e)
    return x.grad.tolist()


@pytest.mark.parametrize("case", ["data", "root", "create_graph"])
def test_roots_data_and_double_backward_match_torch(case):
    assert _root_and_data(minitorch, case) == _root_and_data(torch, case)


def _leaf_case(lib, case):
    b = lib.tensor([0.3, -1.1, 0.7], dtype=lib.float64, requires_grad=True)
    wide = lib.tensor([[0.5, -1.25, 2.0], [1.5, -0.75, 0.25]], dtype=lib.float64)
    try:
        if case == "data_live":
            kept = b.sigmoid()
            b.data = wide
            b.pow(3).mean().backward()
            del kept
        elif case == "data_dead":
            b.sigmoid().sum().backward()
            b.grad = None
            b.data = wide
            b.pow(3).mean().backward()
        elif case == "unsqueeze_inference":
            s = lib.tensor(1.7, dtype=lib.float64, requires_grad=True)
            t = lib.where(s > 0, s, b.exp())
            with lib.inference_mode():
                b.unsqueeze_(0)
            t.backward(lib.ones_like(t))
        elif case == "split_output":
            t = b.split(1, 0)[-1]
            b.data = lib.ones(2, 1, 3, dtype=lib.float64)
            t.exp().sum().backward()
        elif case == "grad_of_leaf":
            kept = b * 2
            b.data = wide
            (g,) = lib.autograd.grad(b.exp().sum(), b)
            return g.tolist()
        elif case == "create_graph":
            t = b * 2
            with lib.no_grad():
                b.unsqueeze_(0)
            (g,) = lib.autograd.grad(t.sum() + (b**2).sum(), b, create_graph=True)
            return g.tolist(), g.requires_grad
        elif case == "not_broadcastable":
            t = b * 2
            b.data = lib.ones(2, 2, dtype=lib.float64)
            (t.sum() + b.sum()).backward()
        elif case == "dtype":
            t = b * 2
            b.data = b.data.float()
            (b * 3).sum().backward()
            del t
    except RuntimeError as e:
        return str(e)[:100]
    return b.grad.tolist(), str(b.grad.dtype).split(".")[-1]


@pytest.mark.parametrize(
    "case",
    [
        "data_live",
        "data_dead",
        "unsqueeze_inference",
        "split_output",
        "grad_of_leaf",
        "create_graph",
        "not_broadcastable",
        "dtype",
    ],
)
def test_a_reshaped_leaf_matches_torch(case):
    assert _leaf_case(minitorch, case) == _leaf_case(torch, case)
