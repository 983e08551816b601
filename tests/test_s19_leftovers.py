"""Session 19 leftovers against torch 2.13's behaviour: matmul/mm/dot/mv/bmm check their shapes,
then an out= of another dtype, then the operands' dtypes (dot: out= first); matmul refuses out=
with autograd before anything; multi_margin_loss has no CPU kernel but float and double; and
gather, cummax/cummin and nll_loss/cross_entropy refuse a backward after a tensor they save was
changed in place. Expected messages were printed by torch for the same calls."""

from __future__ import annotations

import re

import numpy as np
import pytest

import minitorch
import minitorch.nn.functional as F

_F, _D = minitorch.float32, minitorch.float64


def _ones(shape, dtype=_F, **kw):
    return minitorch.ones(shape, dtype=dtype, **kw)


# --- matmul / mm / dot / mv / bmm: the order of their checks with out= ---


@pytest.mark.parametrize(
    "call, message",
    [
        # 2-d: out= against the first operand's dtype before the operands' dtypes
        (
            lambda: minitorch.matmul(_ones((2, 4), _D), _ones((4, 3)), out=_ones((2, 3))),
            "Expected out tensor to have dtype double, but got float instead",
        ),
        (
            lambda: minitorch.matmul(_ones((2, 4)), _ones((4, 3), _D), out=_ones((2, 3), _D)),
            "Expected out tensor to have dtype float, but got double instead",
        ),
        (
            lambda: minitorch.mm(_ones((2, 4), _D), _ones((4, 3)), out=_ones((2, 3))),
            "Expected out tensor to have dtype double, but got float instead",
        ),
        # 1-d x 1-d (dot): out= first, before the dtypes and the sizes
        (
            lambda: minitorch.matmul(_ones(4, _D), _ones(4), out=_ones(())),
            "result dtype Float does not match input dtype Double",
        ),
        (
            lambda: minitorch.matmul(_ones(4), _ones(5), out=_ones((), _D)),
            "result dtype Double does not match input dtype Float",
        ),
        (
            lambda: minitorch.dot(_ones(4), _ones(4, _D), out=_ones((), _D)),
            "result dtype Double does not match input dtype Float",
        ),
        # 1-d x 2-d and a folded 3-d x 2-d: mm's order
        (
            lambda: minitorch.matmul(
                _ones(4, _D), _ones((4, 3)), out=_ones(3, dtype=minitorch.int64)
            ),
            "Expected out tensor to have dtype double, but got long int instead",
        ),
        (
            lambda: minitorch.matmul(_ones((3, 2, 4)), _ones((4, 3), _D), out=_ones((3, 2, 3), _D)),
            "Expected out tensor to have dtype float, but got double instead",
        ),
        # the shapes come before any dtype
        (
            lambda: minitorch.mm(_ones((2, 4), _D), _ones((5, 3))),
            "mat1 and mat2 shapes cannot be multiplied (2x4 and 5x3)",
        ),
        (
            lambda: minitorch.matmul(_ones((2, 4), _D), _ones((5, 3)), out=_ones((2, 3))),
            "mat1 and mat2 shapes cannot be multiplied (2x4 and 5x3)",
        ),
        (
            lambda: minitorch.matmul(_ones((3, 2, 4), _D), _ones(5)),
            "size mismatch, got input (6), mat (6x4), vec (5)",
        ),
        (
            lambda: minitorch.matmul(_ones((3, 2, 4), _D), _ones((3, 5, 3))),
            "Expected size for first two dimensions of batch2 tensor to be: [3, 4] but got: "
            "[3, 5].",
        ),
        # mv with out=: out= stands first in addmv's list
        (
            lambda: minitorch.matmul(_ones((2, 4)), _ones(4, _D), out=_ones(2)),
            "addmv input tensors must have the same dtype, but got Float, Float, and Double",
        ),
        (
            lambda: minitorch.mv(_ones((2, 4), _D), _ones(4), out=_ones(2, dtype=minitorch.int64)),
            "addmv input tensors must have the same dtype, but got Long, Double, and Float",
        ),
        # batched: out= against the second operand's dtype
        (
            lambda: minitorch.matmul(
                _ones((3, 2, 4), _D), _ones((3, 4, 3)), out=_ones((3, 2, 3), _D)
            ),
            "Expected out tensor to have dtype float, but got double instead",
        ),
        (
            lambda: minitorch.matmul(
                _ones((2, 3, 2, 4)), _ones((3, 4, 3), _D), out=_ones((2, 3, 2, 3))
            ),
            "Expected out tensor to have dtype double, but got float instead",
        ),
        (
            lambda: minitorch.bmm(_ones((3, 2, 4)), _ones((3, 4, 3), _D), out=_ones((3, 2, 3))),
            "Expected out tensor to have dtype double, but got float instead",
        ),
        # a 3-d batch that cannot be folded without a copy: bmm's checks
        (
            lambda: minitorch.matmul(_ones((2, 3, 4), _D).transpose(0, 1), _ones((4, 3))),
            "expected scalar type Double but found Float",
        ),
        # the 2-d x 3-d fold of a matrix that requires grad: other^T @ input^T
        (
            lambda: minitorch.matmul(_ones((2, 4), requires_grad=True), _ones((3, 4, 3), _D)),
            "expected m1 and m2 to have the same dtype, but got: double != float",
        ),
        (
            lambda: minitorch.matmul(_ones((2, 4), requires_grad=True), _ones((3, 5, 3), _D)),
            "mat1 and mat2 shapes cannot be multiplied (9x5 and 4x2)",
        ),
    ],
)
def test_product_check_order(call, message):
    with pytest.raises(RuntimeError, match=re.escape(message)):
        call()


_MATMUL_OUT_GRAD = (
    "matmul(): functions with out=... arguments don't support automatic differentiation, but "
    "one of the arguments requires grad."
)


@pytest.mark.parametrize(
    "call",
    [
        lambda: minitorch.matmul(_ones(4, requires_grad=True), _ones(4), out=_ones(())),
        lambda: minitorch.matmul(
            _ones((2, 4), requires_grad=True), _ones((4, 3)), out=_ones((2, 3), _D)
        ),
        lambda: minitorch.matmul(
            _ones((2, 4)), _ones((4, 3)), out=_ones((2, 3), requires_grad=True)
        ),
        lambda: minitorch.matmul(
            _ones((2, 4), requires_grad=True), _ones((3, 5, 3), _D), out=_ones((3, 2, 3))
        ),
    ],
)
def test_matmul_out_with_autograd_refused_first(call):
    with pytest.raises(RuntimeError, match=re.escape(_MATMUL_OUT_GRAD)):
        call()


def test_matmul_out_not_a_tensor():
    with pytest.raises(
        TypeError, match=re.escape("matmul(): argument 'out' must be Tensor, not int")
    ):
        minitorch.matmul(_ones((2, 4)), _ones((4, 3)), out=3)


# --- multi_margin_loss: a CPU kernel for float and double only ---


@pytest.mark.parametrize(
    "dtype, name",
    [(minitorch.float16, "Half"), (minitorch.bfloat16, "BFloat16"), (minitorch.int64, "Long")],
)
@pytest.mark.parametrize("reduction", ["none", "mean", "sum"])
def test_multi_margin_loss_cpu_dtypes(dtype, name, reduction):
    x = minitorch.ones((3, 4)).to(dtype)
    message = f"\"multi_margin_loss_cpu_kernel\" not implemented for '{name}'"
    with pytest.raises(NotImplementedError, match=re.escape(message)):
        F.multi_margin_loss(x, minitorch.tensor([0, 1, 3]), reduction=reduction)


def test_multi_margin_loss_half_check_order():
    x = minitorch.ones((3, 4), dtype=minitorch.float16)
    kernel = "\"multi_margin_loss_cpu_kernel\" not implemented for 'Half'"
    # before the target's dtype, the weight's dtype and the target range; after the sizes
    for target, weight in [
        (minitorch.tensor([0.0, 1.0, 2.0]), None),
        (minitorch.tensor([0, 1, 3]), minitorch.ones(4)),
        (minitorch.tensor([0, 1, 5]), None),
        (minitorch.tensor(1), None),
    ]:
        if target.ndim == 0:
            x = minitorch.ones((), dtype=minitorch.float16)
        with pytest.raises(NotImplementedError, match=re.escape(kernel)):
            F.multi_margin_loss(x, target, weight=weight)
    with pytest.raises(RuntimeError, match="inconsistent weight size, expected 4 but got"):
        F.multi_margin_loss(
            minitorch.ones((3, 4), dtype=minitorch.float16),
            minitorch.tensor([0, 1, 3]),
            weight=minitorch.ones(5),
        )
    # an empty batch never reaches the kernel
    r = F.multi_margin_loss(
        minitorch.ones((0, 4), dtype=minitorch.float16),
        minitorch.tensor([], dtype=minitorch.int64),
        reduction="none",
    )
    assert r.dtype is minitorch.float16 and tuple(r.shape) == (0,)


# --- saved tensors changed in place before backward ---

_MODIFIED = "one of the variables needed for gradient computation has been modified by an inplace"


def _modified(desc: str) -> str:
    return re.escape(f"{_MODIFIED} operation: [{desc} is at version 1; expected version 0")


def _x(shape):
    return minitorch.tensor(
        np.random.default_rng(0).standard_normal(shape), dtype=_F, requires_grad=True
    )


def test_gather_input_changed_in_place():
    idx = minitorch.tensor([[0, 1], [2, 3], [1, 1]])
    a = _x((3, 4)) * 1
    y = a.gather(1, idx)
    a.add_(0)
    with pytest.raises(
        RuntimeError, match=_modified("torch.FloatTensor [3, 4]], which is output 0 of Add,")
    ):
        y.sum().backward()
    # both changed: the index is named first
    a = _x((3, 4)) * 1
    y = a.gather(1, idx)
    a.add_(0)
    idx.add_(0)
    with pytest.raises(RuntimeError, match=_modified("torch.LongTensor [3, 2]]")):
        y.sum().backward()


def test_take_along_dim_input_changed_in_place():
    a = _x((3, 4)) * 1
    y = minitorch.take_along_dim(a, minitorch.tensor([[0, 1], [2, 3], [1, 1]]), 1)
    assert type(y.grad_fn.next_functions[0][0]).__name__ == "ExpandBackward0"  # as torch's
    a.add_(0)
    with pytest.raises(RuntimeError, match=re.escape(_MODIFIED)):
        y.sum().backward()


@pytest.mark.parametrize("op", ["cummax", "cummin"])
def test_cummax_cummin_input_changed_in_place(op):
    a = _x((3, 4)) * 1
    values, indices = getattr(a, op)(1)
    a.add_(0)
    with pytest.raises(
        RuntimeError, match=_modified("torch.FloatTensor [3, 4]], which is output 0 of Add,")
    ):
        values.sum().backward()


@pytest.mark.parametrize("reduction", ["mean", "none"])
@pytest.mark.parametrize("loss", [F.nll_loss, F.cross_entropy])
def test_nll_target_and_weight_changed_in_place(loss, reduction):
    for which, desc in [("target", "torch.LongTensor [3]]"), ("weight", "torch.FloatTensor [4]]")]:
        target = minitorch.tensor([0, 1, 3])
        weight = minitorch.tensor([0.5, 1.0, 2.0, 1.5])
        y = loss(_x((3, 4)), target, weight=weight, reduction=reduction)
        (target if which == "target" else weight).add_(0)
        with pytest.raises(RuntimeError, match=_modified(desc)):
            y.sum().backward()


def test_nll_input_changed_in_place_and_names():
    target = minitorch.tensor([0, 1, 3])
    a = _x((3, 4)) * 1
    y = F.nll_loss(a, target, weight=minitorch.ones(4))
    a.add_(0)
    target.add_(0)  # the input is named first
    with pytest.raises(
        RuntimeError, match=_modified("torch.FloatTensor [3, 4]], which is output 0 of Add,")
    ):
        y.backward()
    # one sample: the tensors as given (torch names a 0-d target)
    target = minitorch.tensor(1)
    y = F.nll_loss(_x(4), target)
    target.add_(0)
    with pytest.raises(RuntimeError, match=_modified("torch.LongTensor []]")):
        y.backward()
    # K-dimensional: viewed as (N, C, 1, rest) and (N, 1, rest)
    target = minitorch.zeros((2, 2, 2, 2), dtype=minitorch.int64)
    y = F.nll_loss(_x((2, 3, 2, 2, 2)), target, reduction="none")
    target.add_(0)
    with pytest.raises(RuntimeError, match=_modified("torch.LongTensor [2, 1, 8]]")):
        y.sum().backward()


def test_modified_saved_view_is_named_by_its_regenerated_node():
    x = minitorch.ones(2, 3, requires_grad=True)
    a = x * 1
    v = a.view(6)
    y = (v * v).sum()
    a.add_(0)
    with pytest.raises(RuntimeError, match=r"\[6\]\], which is output 0 of AsStrided,"):
        y.backward()
