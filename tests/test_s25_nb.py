"""Session 25 (nb): what a notebook user sees (reprs, class paths, warnings) and the errors of
common mistakes, matched to torch 2.13 (literals obtained by running torch)."""

from __future__ import annotations

import pickle
import re
import warnings

import pytest

import minitorch as mt
from minitorch import _settings

F = mt.nn.functional


def _raises(exc, msg, fn):
    with pytest.raises(exc, match="^" + re.escape(msg) + "$"):
        fn()


def _warnings(fn):
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        fn()
    return [(x.category, str(x.message)) for x in w]


# --- grad_fn objects: torch's default object repr, which IPython shows as "<X at 0x...>" ---


def test_grad_fn_uses_the_default_object_repr():
    x = mt.ones(2, requires_grad=True)
    node = (x * 2).grad_fn
    # object's own __repr__, so IPython's pretty printer takes its "<Name at 0x...>" path
    assert type(node).__repr__ is object.__repr__
    assert re.fullmatch(r"<MulBackward0 object at 0x[0-9a-f]+>", repr(node))
    acc = node.next_functions[0][0]
    assert re.fullmatch(r"<AccumulateGrad object at 0x[0-9a-f]+>", repr(acc))

    class MyFn(mt.autograd.Function):
        @staticmethod
        def forward(ctx, a):
            return a * 2

        @staticmethod
        def backward(ctx, g):
            return g * 2

    custom = MyFn.apply(x).grad_fn
    pattern = r"<minitorch\.autograd\.function\.MyFnBackward object at 0x[0-9a-f]+>"
    assert re.fullmatch(pattern, repr(custom))


def test_grad_fn_ipython_pretty():
    pretty = pytest.importorskip("IPython.lib.pretty").pretty
    x = mt.ones(2, requires_grad=True)
    node = (x * 2).grad_fn
    assert re.fullmatch(r"<MulBackward0 at 0x[0-9a-f]+>", pretty(node))
    edges = pretty(node.next_functions)
    assert re.fullmatch(r"\(\(<AccumulateGrad at 0x[0-9a-f]+>, 0\), \(None, 0\)\)", edges)


# --- warnings and messages ---


def test_non_leaf_grad_warning_text():
    x = mt.ones(2, requires_grad=True)
    y = x * 2
    msg = (
        "The .grad attribute of a Tensor that is not a leaf Tensor is being accessed. Its .grad "
        "attribute won't be populated during autograd.backward(). If you indeed want the .grad "
        "field to be populated for a non-leaf Tensor, use .retain_grad() on the non-leaf Tensor. "
        "If you access the non-leaf Tensor by mistake, make sure you access the leaf Tensor "
        "instead. See github.com/pytorch/pytorch/pull/30531 for more information."
    )
    assert _warnings(lambda: y.grad) == [(UserWarning, msg)]


def test_layer_norm_integer_input_message():
    x = mt.tensor([[1, 2]])
    _raises(
        NotImplementedError,
        "\"LayerNormKernelImpl\" not implemented for 'Long'",
        lambda: F.layer_norm(x, (2,)),
    )


def test_bce_with_logits_bool_target():
    msg = (
        "Subtraction, the `-` operator, with two bool tensors is not supported. Use the `^` or "
        "`logical_xor()` operator instead."
    )
    target = mt.tensor([True, False, True])
    _raises(RuntimeError, msg, lambda: F.binary_cross_entropy_with_logits(mt.rand(3), target))
    _raises(RuntimeError, msg, lambda: mt.nn.BCEWithLogitsLoss()(mt.rand(3), target))
    x = mt.rand(3, dtype=mt.float64, requires_grad=True)
    _raises(RuntimeError, msg, lambda: F.binary_cross_entropy_with_logits(x, target))
    # an integer target keeps the cast error
    msg = "result type Float can't be cast to the desired output type Long"
    _raises(
        RuntimeError,
        msg,
        lambda: F.binary_cross_entropy_with_logits(mt.rand(3), mt.tensor([0, 1, 1])),
    )


@pytest.fixture
def fresh_warn_once():
    keys = {"lu", "lu_solve", "triangular_solve"}
    saved = set(_settings._warned_once)
    _settings._warned_once.difference_update(keys)
    yield
    _settings._warned_once.difference_update(keys)
    _settings._warned_once.update(saved & keys)


_LU = (
    "torch.lu is deprecated in favor of torch.linalg.lu_factor / torch.linalg.lu_factor_ex and "
    "will be removed in a future PyTorch release.\nLU, pivots = torch.lu(A, compute_pivots)\n"
    "should be replaced with\nLU, pivots = torch.linalg.lu_factor(A, compute_pivots)\nand\n"
    "LU, pivots, info = torch.lu(A, compute_pivots, get_infos=True)\nshould be replaced with\n"
    "LU, pivots, info = torch.linalg.lu_factor_ex(A, compute_pivots)"
)
_LU_SOLVE = (
    "torch.lu_solve is deprecated in favor of torch.linalg.lu_solveand will be removed in a "
    "future PyTorch release.\nNote that torch.linalg.lu_solve has its arguments reversed.\n"
    "X = torch.lu_solve(B, LU, pivots)\nshould be replaced with\n"
    "X = torch.linalg.lu_solve(LU, pivots, B)"
)
_TRI = (
    "torch.triangular_solve is deprecated in favor of torch.linalg.solve_triangularand will be "
    "removed in a future PyTorch release.\ntorch.linalg.solve_triangular has its arguments "
    "reversed and does not return a copy of one of the inputs.\n"
    "X = torch.triangular_solve(B, A).solution\nshould be replaced with\n"
    "X = torch.linalg.solve_triangular(A, B)."
)


def test_deprecated_solvers_warn_once(fresh_warn_once):
    a, b = mt.eye(3) * 2, mt.ones(3, 2)

    def calls():
        for _ in range(2):  # once per process, as torch's TORCH_WARN_ONCE
            mt.lu(a)
            mt.lu_solve(b, *mt.linalg.lu_factor(a))
            mt.triangular_solve(b, a)

    got = _warnings(calls)
    assert got == [(UserWarning, _LU), (UserWarning, _LU_SOLVE), (UserWarning, _TRI)]


# --- geqrf: torch records a node whose backward raises ---


def test_geqrf_records_a_node_that_raises():
    a = mt.tensor([[2.0, 1.0], [1.0, 3.0]], dtype=mt.float64, requires_grad=True)
    r = mt.geqrf(a)
    assert r.a.grad_fn is r.tau.grad_fn and r.a.grad_fn.name() == "GeqrfBackward0"
    assert r.tau.requires_grad
    assert repr(r.tau) == (
        "tensor([1.8944, 0.0000], dtype=torch.float64, grad_fn=<GeqrfBackward0>)"
    )
    with pytest.raises(NotImplementedError, match="^the derivative for 'geqrf' is not implemented"):
        r.a.sum().backward()
    with mt.no_grad():
        assert mt.geqrf(a).a.grad_fn is None
    assert not mt.geqrf(a.detach()).tau.requires_grad


# --- the class paths type() shows ---


@pytest.mark.parametrize(
    "make, path",
    [
        (lambda: mt.nn.Unfold(2), "minitorch.nn.modules.fold.Unfold"),
        (lambda: mt.nn.Fold(4, 2), "minitorch.nn.modules.fold.Fold"),
        (lambda: mt.nn.ChannelShuffle(2), "minitorch.nn.modules.channelshuffle.ChannelShuffle"),
        (lambda: mt.nn.InstanceNorm1d(2), "minitorch.nn.modules.instancenorm.InstanceNorm1d"),
        (lambda: mt.nn.InstanceNorm2d(2), "minitorch.nn.modules.instancenorm.InstanceNorm2d"),
        (lambda: mt.nn.InstanceNorm3d(2), "minitorch.nn.modules.instancenorm.InstanceNorm3d"),
    ],
)
def test_module_class_paths(make, path):
    m = make()
    assert str(type(m)) == f"<class '{path}'>"
    back = pickle.loads(pickle.dumps(m))  # the path named is importable
    assert type(back) is type(m) and repr(back) == repr(m)
