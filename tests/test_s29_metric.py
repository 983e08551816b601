"""Session 29 (helper metric): torch-free checks of what the metric-learning, distillation and
continual-learning programs of tests/reference/test_s29_metric_reference.py lean on, with
torch 2.13's values and messages written as literals. The fixes: repeat_interleave given
output_size reads nothing back from a device (as torch's CUDA kernel); cdist, pdist, dist and
prod refuse backward once their inputs or result were changed in place (torch's nodes save
them). Then the pieces of the domain's losses: triplet with swap, cosine embedding, KL with
batchmean and log_target, masked logsumexp, cdist's matrix-product form, parameters_to_vector."""

from __future__ import annotations

import math
import re

import numpy as np
import pytest

import minitorch as mt
from minitorch._backend.strict import count_transfers

F = mt.nn.functional
F64 = mt.float64


def _close(got, want, err_msg=""):
    np.testing.assert_allclose(
        np.asarray(got.detach() if hasattr(got, "detach") else got, dtype=float),
        want,
        rtol=1e-12,
        atol=1e-14,
        err_msg=err_msg,
    )


# --- the fix: repeat_interleave with output_size on a device ---


def test_repeat_interleave_output_size_reads_nothing_back_from_a_device():
    reps = mt.tensor([2, 0, 3], device="strict")
    x = mt.arange(6.0, device="strict").view(3, 2).requires_grad_()
    with count_transfers() as c:
        idx = mt.repeat_interleave(reps, output_size=5)
        rows = mt.repeat_interleave(x, reps, dim=0, output_size=5)
        flat = mt.repeat_interleave(x, mt.tensor([2], device="strict"), output_size=12)
        small = mt.repeat_interleave(
            mt.tensor([1, 2], dtype=mt.int32, device="strict"), output_size=3
        )
        rows.sum().backward()
    assert c.count == 0
    assert idx.cpu().tolist() == [0, 0, 2, 2, 2]
    assert rows.cpu().tolist() == [[0.0, 1.0], [0.0, 1.0], [4.0, 5.0], [4.0, 5.0], [4.0, 5.0]]
    assert flat.cpu().tolist() == [0.0, 0.0, 1.0, 1.0, 2.0, 2.0, 3.0, 3.0, 4.0, 4.0, 5.0, 5.0]
    assert small.dtype is mt.int32 and small.cpu().tolist() == [0, 1, 1]
    assert x.grad.cpu().tolist() == [[2.0, 2.0], [0.0, 0.0], [3.0, 3.0]]
    assert type(rows.grad_fn).__name__ == "IndexSelectBackward0"


def test_repeat_interleave_output_size_is_still_checked_on_the_cpu():
    with pytest.raises(RuntimeError, match="allocated size does not match required size"):
        mt.repeat_interleave(mt.tensor([2, 0, 3]), output_size=4)
    with pytest.raises(RuntimeError, match="allocated size does not match required size"):
        mt.repeat_interleave(mt.arange(3.0), mt.tensor([2, 0, 3]), output_size=6)
    # without output_size a device's counts are read back, as torch's
    with count_transfers() as c:
        out = mt.repeat_interleave(mt.tensor([1, 2], device="strict"))
    assert c.count == 1 and out.cpu().tolist() == [0, 1, 1]


# --- the fix: cdist and pdist refuse backward after an in-place change of what they save ---

_MODIFIED = "one of the variables needed for gradient computation has been modified by an inplace"


def _modified(what):
    return re.escape(f"{_MODIFIED} operation: {what} is at version 1; expected version 0 instead.")


@pytest.mark.parametrize(
    "p, mode",
    [(2.0, None), (1.0, None), (3.0, None), (math.inf, None), (0.0, None),
     (2.0, "donot_use_mm_for_euclid_dist")],
)  # fmt: skip
def test_cdist_refuses_backward_after_its_result_is_changed_in_place(p, mode):
    a = mt.randn(4, 3, requires_grad=True)
    kw = {} if mode is None else {"compute_mode": mode}
    d = mt.cdist(a, mt.randn(4, 3), p=p, **kw)
    d[range(4), range(4)] = 0  # the diagonal zeroed in place: torch refuses
    with pytest.raises(
        RuntimeError, match=_modified("[torch.FloatTensor [4, 4]], which is output 0 of Cdist,")
    ):
        d.sum().backward()


def test_cdist_refuses_backward_after_an_input_is_changed_in_place():
    a = mt.randn(4, 3, requires_grad=True)
    b = mt.randn(4, 3)
    x = a * 1
    d = mt.cdist(b, x)
    x.add_(1)
    with pytest.raises(
        RuntimeError, match=_modified("[torch.FloatTensor [4, 3]], which is output 0 of Add,")
    ):
        d.sum().backward()
    d = mt.cdist(a * 1, b)
    b.add_(1)  # a leaf that needs no gradient is saved too
    with pytest.raises(RuntimeError, match=_modified("[torch.FloatTensor [4, 3]]")):
        d.sum().backward()
    # the clone people write first keeps the gradient
    d = mt.cdist(a, mt.zeros(1, 3)).clone()
    d[0] = 0
    d.sum().backward()
    assert a.grad is not None and a.grad[0].abs().sum().item() == 0


def test_pdist_refuses_backward_after_its_result_is_changed_in_place():
    x = mt.randn(5, 3, dtype=F64, requires_grad=True) * 1
    for p in (2.0, 1.0, 3.0):
        d = mt.nn.functional.pdist(x, p=p)
        d.mul_(2)
        with pytest.raises(
            RuntimeError, match=_modified("[torch.DoubleTensor [10]], which is output 0 of Pdist,")
        ):
            d.sum().backward()


def test_dist_and_prod_refuse_backward_after_their_result_is_changed_in_place():
    x1 = mt.randn(5, 3, dtype=F64, requires_grad=True) * 1
    x2 = mt.randn(5, 3, dtype=F64, requires_grad=True) * 1
    d = mt.dist(x1, x2)
    d.mul_(2)
    with pytest.raises(
        RuntimeError, match=_modified("[torch.DoubleTensor []], which is output 0 of Dist,")
    ):
        d.backward()
    d = mt.dist(x1, x2)
    x2.mul_(2)
    with pytest.raises(
        RuntimeError, match=_modified("[torch.DoubleTensor [5, 3]], which is output 0 of Mul,")
    ):
        d.backward()
    q = mt.rand(4, 3, requires_grad=True) * 1
    none = (1 - q).prod(1)
    none.clamp_(min=1e-6)
    with pytest.raises(
        RuntimeError, match=_modified("[torch.FloatTensor [4]], which is output 0 of Prod1,")
    ):
        (1 - none).sum().backward()
    n = q.prod()
    n.mul_(2)
    with pytest.raises(
        RuntimeError, match=_modified("[torch.FloatTensor []], which is output 0 of Prod,")
    ):
        n.backward()
    # unchanged, the gradient is the product of the others (a zero among them included)
    a = mt.tensor([[1.0, 2.0, 0.0], [3.0, 4.0, 5.0]], requires_grad=True)
    a.prod(1).sum().backward()
    assert a.grad.tolist() == [[0.0, 0.0, 2.0], [20.0, 15.0, 12.0]]


# --- the domain's building blocks, pinned to torch's values ---


def test_triplet_margin_loss_with_swap_and_its_refusal_of_a_zero_margin():
    a = mt.tensor([[0.0, 1.0], [1.0, 1.0]], dtype=F64)
    p = mt.tensor([[0.5, 1.0], [1.0, 0.0]], dtype=F64)
    n = mt.tensor([[0.6, 1.0], [3.0, 1.0]], dtype=F64)
    _close(F.triplet_margin_loss(a, p, n, margin=1.0, swap=True, reduction="none"),
           [1.399999999996, 2.0000002500797365e-06])  # fmt: skip
    _close(F.triplet_margin_loss(a, p, n, margin=1.0, p=1), 0.45000099999999993)
    with pytest.raises(ValueError, match=r"margin must be greater than 0, got 0.0"):
        F.triplet_margin_loss(a, p, n, margin=0.0)


def test_cosine_embedding_and_margin_ranking_losses():
    a = mt.tensor([[1.0, 0.0], [1.0, 1.0], [0.0, 2.0]], dtype=F64)
    b = mt.tensor([[1.0, 1.0], [-1.0, 1.0], [0.0, 1.0]], dtype=F64)
    t = mt.tensor([1, -1, -1])
    _close(F.cosine_embedding_loss(a, b, t, margin=0.1, reduction="none"),
           [0.2928932188139829, 0.0, 0.899999999999375])  # fmt: skip
    with pytest.raises(RuntimeError, match="margin_ranking_loss : All input tensors should"):
        F.margin_ranking_loss(a[:, 0], b[:, 0], mt.tensor(1.0, dtype=F64))


def test_kl_div_batchmean_log_target_and_its_temperature_scaling():
    s = mt.tensor([[1.0, 2.0, 0.5], [0.0, -1.0, 1.0]], dtype=F64)
    t = mt.tensor([[0.5, 2.5, 0.0], [1.0, -0.5, 0.2]], dtype=F64)
    T = 2.0
    ls, lt = F.log_softmax(s / T, 1), F.log_softmax(t / T, 1)
    kl = F.kl_div(ls, lt.exp(), reduction="batchmean") * T * T
    kl_log = F.kl_div(ls, lt, reduction="batchmean", log_target=True) * T * T
    _close(kl, 0.22434900683657905)
    _close(kl_log, 0.224349006836579)
    with pytest.warns(UserWarning, match="reduction: 'mean' divides the total loss by both"):
        F.kl_div(ls, lt.exp())


def test_masked_logsumexp_of_a_row_without_members():
    x = mt.tensor([[1.0, 2.0, 3.0], [0.5, -1.0, 2.0]], dtype=F64, requires_grad=True)
    m = mt.tensor([[True, False, True], [False, False, False]])
    out = mt.logsumexp(x.masked_fill(~m, float("-inf")), 1)
    _close(out[0], 3.1269280110429727)
    assert out[1].item() == -math.inf
    (g,) = mt.autograd.grad(out[0], x)
    _close(g, [[0.11920292202211753, 0.0, 0.8807970779778823], [0.0, 0.0, 0.0]])


def test_cdist_forms_agree_off_the_diagonal():
    g = mt.Generator().manual_seed(0)
    e = mt.randn(30, 3, generator=g, dtype=F64)
    direct = mt.cdist(e, e, compute_mode="donot_use_mm_for_euclid_dist")
    mm = mt.cdist(e, e)  # more than 25 rows: the matrix-product form
    off = ~mt.eye(30, dtype=mt.bool)
    np.testing.assert_allclose(mm[off].numpy(), direct[off].numpy(), rtol=1e-6, atol=1e-7)
    assert (direct.diagonal() == 0).all()


def test_parameters_to_vector_views_each_parameter():
    p = mt.nn.Parameter(mt.arange(6.0, dtype=F64).view(2, 3))
    v = mt.nn.utils.parameters_to_vector([p])
    assert v.tolist() == [0.0, 1.0, 2.0, 3.0, 4.0, 5.0]
    mt.nn.utils.vector_to_parameters(v * 2, [p])
    assert p.tolist() == [[0.0, 2.0, 4.0], [6.0, 8.0, 10.0]]
    # a transposed parameter cannot be viewed flat: torch's view error
    q = mt.nn.Parameter(mt.arange(6.0, dtype=F64).view(2, 3).t())
    with pytest.raises(RuntimeError, match="view size is not compatible with input tensor's"):
        mt.nn.utils.parameters_to_vector([q])
