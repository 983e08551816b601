"""nn.functional: ctc_loss, the connectionist temporal classification loss.

NOTE [ CTC in log space ]
The targets are extended with blanks, l' = (blank, l1, blank, l2, ..., blank), of length
L = 2 S + 1, and the forward variable alpha_t(s) (log-probability of all alignments of the first
t + 1 frames ending at l'_s) follows
    alpha_t(s) = logsumexp(alpha_{t-1}(s), alpha_{t-1}(s-1), [alpha_{t-1}(s-2)]) + lp_t(l'_s),
the third term only where l'_s is not blank and differs from l'_{s-2}. One step updates the whole
batch at once, (N, L); a sample whose input is shorter keeps its alpha once t reaches its length,
and its loss is -logsumexp(alpha(L_n - 1), alpha(L_n - 2)). Autograd differentiates the recursion
(so backward is the beta recursion, and it is twice differentiable). All lengths stay on the
device: nothing is read back to the host except lengths passed as Python sequences.
"""

from __future__ import annotations

import operator

from minitorch import _autocast_state as _autocast
from minitorch import _dtype, _ops
from minitorch._factories import arange, full_like, tensor
from minitorch._ops._common import is_index, no_overload, type_name
from minitorch._tensor import Tensor
from minitorch.autograd.composite import as_node

__all__ = ["ctc_loss"]


_OVERLOADS = tuple(
    f"Tensor log_probs, Tensor targets, {kind} input_lengths, {kind} target_lengths, "
    "int blank = 0, int reduction = at::Reduction::Mean, bool zero_infinity = False"
    for kind in ("tuple of ints", "Tensor")
)


def _host_lengths(lengths) -> list | None:
    """A length argument as torch's `tuple of ints` reads it (a list or tuple of int-likes, see
    NOTE [ Int-like arguments ]; one-element integer or bool tensors as their value), as a list
    of Python ints; None for anything else (a float, a bool, a NumPy array, a range)."""
    if not isinstance(lengths, (list, tuple)):
        return None
    out = []
    for v in lengths:
        if v.__class__ is not int:
            if isinstance(v, Tensor) and v.numel() == 1 and v.dtype._kind <= _dtype._INT:
                v = int(v)
            elif is_index(v):
                v = operator.index(v)
            else:
                return None
        out.append(v)
    return out


def _check_signature(log_probs, targets, input_lengths, target_lengths, blank, zero_infinity):
    """(host input lengths, host target lengths), both None for the Tensor overload, or torch's
    TypeError when neither overload takes the arguments: lengths both tensors or both tuples
    of ints (a tensor with a list, or NumPy arrays, match neither), an int blank and a bool
    zero_infinity."""
    host_il = host_tl = None
    if isinstance(input_lengths, Tensor) and isinstance(target_lengths, Tensor):
        lengths_ok = True
    else:
        host_il = _host_lengths(input_lengths)
        host_tl = _host_lengths(target_lengths)
        lengths_ok = host_il is not None and host_tl is not None
    if (
        not lengths_ok
        or not isinstance(log_probs, Tensor)
        or not isinstance(targets, Tensor)
        or not is_index(blank)
        or zero_infinity.__class__ is not bool
    ):
        # F.ctc_loss hands the reduction to the kernel as an int
        args = (log_probs, targets, input_lengths, target_lengths, blank)
        got = ", ".join(type_name(a) for a in args) + f", int, {type_name(zero_infinity)}"
        raise no_overload("ctc_loss", got, _OVERLOADS)
    return host_il, host_tl


def _lengths(lengths, host, device, what: str):
    """(device int64 tensor, host list or None) of one length argument: a tensor is read
    flattened, as torch's; its values only from a CPU one (no device read-back)."""
    if host is not None:
        return tensor(host, dtype=_dtype.int64, device=device), host
    if lengths.dtype._kind != _dtype._INT:  # float or bool lengths would be truncated
        raise RuntimeError(f"{what} must be integral")
    flat = lengths.reshape(-1)
    host = flat.tolist() if lengths.device.type == "cpu" else None
    return flat.to(device=device, dtype=_dtype.int64), host


def _lse(*terms: Tensor) -> Tensor:
    """logsumexp of same-shape terms, -inf (with zero gradient, not nan) where all are -inf."""
    m = terms[0]
    for t in terms[1:]:
        m = _ops.maximum(m, t)
    dead = m == float("-inf")
    m = _ops.where(dead, 0.0, m).detach()
    total = (terms[0] - m).exp()
    for t in terms[1:]:
        total = total + (t - m).exp()
    total = _ops.where(dead, 1.0, total)
    return _ops.where(dead, float("-inf"), m + total.log())


def _on_host(t: Tensor) -> bool:
    return t._device.type == "cpu"


def _nan_gradient(log_probs: Tensor, loss: Tensor, in_len: Tensor) -> Tensor:
    """Zeros (N,) whose gradient is NaN at the read frames (t < input length) of each sample
    whose loss is infinite (no alignment fits), as torch's CTC gradient is there: NaN is what
    tells a user to pass zero_infinity=True. Built as sqrt at 0 (an infinite derivative) of
    exp(log_probs) * 0, masked twice so that other entries see neither the 1 / 0 nor its
    warning. (The alpha recursion itself gives those entries a zero gradient, see _lse.) On
    the CPU it is only added when some loss is infinite."""
    T = log_probs.shape[0]
    frames = arange(T, device=log_probs.device).unsqueeze(1) < in_len.unsqueeze(0)  # (T, N)
    mask = (frames & (loss == float("inf")).unsqueeze(0)).unsqueeze(2)  # (T, N, 1)
    zero = _ops.where(mask, _ops.exp(log_probs) * 0, 1.0)
    return _ops.where(mask, _ops.sqrt(zero), 0.0).sum((0, 2))


def _padded_targets(targets, target_lengths, host_tl, n, device):
    """(N, S) targets, from the padded 2-D form or the concatenated 1-D one."""
    if targets.ndim == 2:
        return targets.to(_dtype.int64)
    width = max(host_tl, default=0) if host_tl is not None else targets.shape[0]
    if width == 0 or targets.shape[0] == 0:
        return targets.new_zeros((n, width), dtype=_dtype.int64)
    starts = _ops.cumsum(target_lengths, 0) - target_lengths
    idx = starts.unsqueeze(1) + arange(width, device=device).unsqueeze(0)
    idx = _ops.clamp(idx, max=targets.shape[0] - 1)
    return _ops.index_select(targets.to(_dtype.int64), 0, idx.reshape(-1)).reshape(n, width)


_WHERE = "(while checking arguments for ctc_loss_allocate_outputs)"


def _check_arguments(log_probs, targets, blank, in_len, host_il, tgt_len, host_tl) -> None:
    """torch's argument checks, in its order (the first failing one is the error raised). The
    checks on length values read host lengths only: lengths given as device tensors skip them
    (on the CPU only, see README), as reading them would be a host sync."""
    dt = log_probs.dtype
    if log_probs._device.type == "cpu" and dt is not _dtype.float32 and dt is not _dtype.float64:
        # torch's CPU kernel is float32/float64 only (autocast casts to float32 before here)
        raise NotImplementedError(
            f"\"ctc_loss_cpu\" not implemented for '{_dtype.scalar_name(dt)}'"
        )
    if log_probs.numel() == 0:
        raise RuntimeError(
            f"ctc_loss: log_probs tensor must not be empty, got {list(log_probs.shape)}"
        )
    if log_probs.ndim != 3:
        # torch unsqueezes any log_probs that is not 3-D as an unbatched one (2-D here) before
        # this check, so its message counts one more dimension
        raise RuntimeError(
            f"Expected 3-dimensional tensor, but got {log_probs.ndim + 1}-dimensional tensor "
            f"for argument #1 'log_probs' {_WHERE}"
        )
    if targets.ndim not in (1, 2):
        raise RuntimeError(
            f"Expected 1 to 2 dimensions, but got {targets.ndim}-dimensional tensor for "
            f"argument #2 'targets' {_WHERE}"
        )
    T, n, c = log_probs.shape
    if not 0 <= blank < c:
        raise RuntimeError("blank must be in label range")
    if in_len.shape[0] != n:
        raise RuntimeError("input_lengths must be of size batch_size")
    if tgt_len.shape[0] != n:
        raise RuntimeError("target_lengths must be of size batch_size")
    if host_tl is not None:
        for v in host_tl:
            if v < 0:
                raise RuntimeError(
                    f"Expected target_lengths to have value at least 0, but got value {v} {_WHERE}"
                )
        if targets.ndim == 1 and sum(host_tl) != targets.shape[0]:
            # concatenated targets: exactly sum(target_lengths) labels
            raise RuntimeError(
                f"Expected tensor to have size {sum(host_tl)} at dimension 0, but got size "
                f"{targets.shape[0]} for argument #2 'targets' {_WHERE}"
            )
    if targets.ndim == 2:
        # padded targets: one row per sample (needs no length values, so device lengths too)
        if targets.shape[0] != n:
            raise RuntimeError(
                f"Expected tensor to have size {n} at dimension 0, but got size "
                f"{targets.shape[0]} for argument #2 'targets' {_WHERE}"
            )
        if host_tl is not None and max(host_tl, default=0) > targets.shape[1]:
            raise RuntimeError(
                f"Expected tensor to have size at least {max(host_tl)} at dimension 1, but got "
                f"size {targets.shape[1]} for argument #2 'targets' {_WHERE}"
            )
    if host_il is not None:
        for v in host_il:
            if v < 0:
                raise RuntimeError(
                    f"Expected input_lengths to have value at least 0, but got value {v} {_WHERE}"
                )
            if v > T:
                raise RuntimeError(
                    f"Expected input_lengths to have value at most {T}, but got value {v} {_WHERE}"
                )


def ctc_loss(
    log_probs: Tensor,
    targets: Tensor,
    input_lengths,
    target_lengths,
    blank: int = 0,
    reduction: str = "mean",
    zero_infinity: bool = False,
) -> Tensor:
    """Negative log-likelihood of the targets under all CTC alignments of log_probs (T, N, C) or
    (T, C). Mirrors torch.nn.functional.ctc_loss; see NOTE [ CTC in log space ].

    Differences from torch: the gradient is the exact derivative with respect to log_probs.
    torch's CTC backward returns exp(log_probs) - occupancy instead of -occupancy (the two agree
    once propagated through the log_softmax that produces log_probs in practice). As in torch,
    an infinite loss (an impossible alignment) gets NaN gradients unless zero_infinity."""
    if _autocast.state.any_enabled:
        return _autocast.call(
            ctc_loss,
            _autocast.FP32_CPU,
            (log_probs, targets, input_lengths, target_lengths, blank, reduction, zero_infinity),
        )
    if reduction not in ("none", "mean", "sum"):
        from minitorch.nn._functional_loss import resolve_reduction

        reduction = resolve_reduction(None, None, reduction)  # 'elementwise_mean', or raises
    host_il, host_tl = _check_signature(
        log_probs, targets, input_lengths, target_lengths, blank, zero_infinity
    )
    if blank.__class__ is not int:
        blank = operator.index(blank)  # np.int64, a 0-d integer tensor
    unbatched = log_probs.ndim == 2
    if unbatched:
        log_probs = log_probs.unsqueeze(1)
        # 1-D targets stay 1-D: the concatenated form of one sample, whose length torch checks
        if host_il is None:  # the Tensor overload
            input_lengths = input_lengths.reshape(1)
            target_lengths = target_lengths.reshape(1)
    device = log_probs.device
    # lengths first: torch refuses float lengths before it looks at log_probs
    in_len, host_il = _lengths(input_lengths, host_il, device, "input_lengths")
    tgt_len, host_tl = _lengths(target_lengths, host_tl, device, "target_lengths")
    _check_arguments(log_probs, targets, blank, in_len, host_il, tgt_len, host_tl)
    T, n, c = log_probs.shape
    tgt = _ops.clamp(_padded_targets(targets, tgt_len, host_tl, n, device), 0, c - 1)
    S = tgt.shape[1]
    L = 2 * S + 1
    # the extended labels (N, L): blank, l1, blank, l2, ..., blank
    blanks = full_like(tgt, blank)
    ext = _ops.cat([_ops.stack([blanks, tgt], 2).reshape(n, 2 * S), blanks[:, :1]], 1)
    if S == 0:
        ext = ext.new_full((n, 1), blank)
    skip = (ext != blank) & (ext != _ops.cat([ext[:, :2], ext[:, :-2]], 1))
    skip[:, :2] = False
    lp = _ops.gather(log_probs, 2, ext.unsqueeze(0).expand(T, n, L))  # (T, N, L)
    neg_inf = full_like(lp[0], float("-inf"))
    first = arange(L, device=device).unsqueeze(0) < 2
    alpha = _ops.where(first, lp[0], neg_inf)
    if host_il is None or 0 in host_il:
        # A sample with no frames has one alignment, the empty one: alpha is 0 (probability 1)
        # at the initial blank and -inf elsewhere, so its loss is 0 for an empty target and inf
        # otherwise, with no gradient to its (unread) first frame.
        empty = _ops.where(arange(L, device=device).unsqueeze(0) == 0, 0.0, neg_inf)
        alpha = _ops.where((in_len == 0).unsqueeze(1), empty, alpha)
    for t in range(1, T):
        a1 = _ops.cat([neg_inf[:, :1], alpha[:, :-1]], 1)
        a2 = _ops.where(skip, _ops.cat([neg_inf[:, :2], alpha[:, :-2]], 1), neg_inf)
        step = _lse(alpha, a1, a2) + lp[t]
        alpha = _ops.where((in_len > t).unsqueeze(1), step, alpha)
    last = _ops.gather(alpha, 1, (2 * tgt_len).unsqueeze(1)).squeeze(1)
    prev = _ops.gather(alpha, 1, _ops.clamp(2 * tgt_len - 1, min=0).unsqueeze(1)).squeeze(1)
    prev = _ops.where(tgt_len > 0, prev, neg_inf[:, 0])
    loss = -_lse(last, prev)
    if not zero_infinity and (not _on_host(loss) or bool((loss == float("inf")).any())):
        loss = loss + _nan_gradient(log_probs, loss, in_len)
    # torch computes the loss in one kernel: one CtcLossBackward0 node, saving log_probs
    loss = as_node(loss, "CtcLossBackward0", (log_probs,), saved=(log_probs,))
    if zero_infinity:
        loss = _ops.where(loss == float("inf"), 0.0, loss)
    if reduction == "none":
        return loss.squeeze(0) if unbatched else loss
    if reduction == "sum":
        return loss.sum()
    return (loss / _ops.clamp(tgt_len, min=1).to(loss.dtype)).mean()
