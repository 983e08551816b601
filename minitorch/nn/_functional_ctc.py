"""nn.functional: ctc_loss, the connectionist temporal classification loss.

NOTE [ CTC in log space ]
The targets are extended with blanks, l' = (blank, l1, blank, l2, ..., blank), of length
L = 2 S + 1, and the forward variable alpha_t(s) (log-probability of all alignments of the first
t + 1 frames ending at l'_s) follows
    alpha_t(s) = logsumexp(alpha_{t-1}(s), alpha_{t-1}(s-1), [alpha_{t-1}(s-2)]) + lp_t(l'_s),
the third term only where s is odd, s > 1 and l'_s differs from l'_{s-2} (torch's rule, which
lets a target label equal to blank skip too). Starting from alpha_{-1} = (0, -inf, ...), the
empty prefix, the same step gives alpha_0. The loss of sample n, read at its last frame
T_n - 1, is -logsumexp(alpha(2 S_n), alpha(2 S_n - 1)). The backward variable beta_t(s) (all
completions of frames t.. from l'_s, lp_t(l'_s) included) runs the mirrored step from
beta_{T_n - 1} = lp at the two end states, and the occupancy of (t, s) is
exp(alpha_t(s) + beta_t(s) - lp_t(l'_s) + loss) <= 1.

_CtcLoss runs both recursions on arrays, all samples and extended positions in one step, one
Python loop over time each way: a sample whose input is shorter is read at its own last frame
(alpha) or starts there (beta). It stores the pre-alpha alpha_t - lp_t (no -inf - -inf there)
for backward. Its gradient is torch's: g (exp(lp) - occupancy summed over the states of each
class) on a sample's read frames, 0 past them, NaN on the read frames of an infeasible sample
(infinite loss) unless zero_infinity, which zeroes it. Under create_graph the gradient is
rebuilt from the recursion written in Tensor ops (_recorded_nll), so it differentiates again.
All lengths stay on the device: nothing is read back to the host except lengths passed as
Python sequences.
"""

from __future__ import annotations

import operator

from minitorch import _autocast_state as _autocast
from minitorch import _dtype, _ops
from minitorch._factories import arange, full_like, tensor
from minitorch._ops._common import is_index, quiet
from minitorch._tensor import Tensor, _make
from minitorch.autograd import engine
from minitorch.autograd.function import Function
from minitorch.autograd.grad_mode import state

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
        # F.ctc_loss hands all on by position, the reduction as an int (1, torch's Mean: the
        # value is not shown)
        from minitorch._ops._parser_errors import invalid_arguments

        args = (log_probs, targets, input_lengths, target_lengths, blank, 1, zero_infinity)
        raise invalid_arguments("ctc_loss", _OVERLOADS, args, {})
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


def _lse3(xp, x0, x1, x2, out, m, e, floor) -> None:
    """out = log(exp(x0) + exp(x1) + exp(x2)) elementwise, shifted by the largest term: exact
    for terms of any size, -inf where all three are -inf (the shift is then `floor`, finite);
    m and e are scratch arrays of out's shape."""
    xp.maximum(x0, x1, out=m)
    xp.maximum(m, x2, out=m)
    xp.maximum(m, floor, out=m)
    xp.subtract(x0, m, out=out)
    xp.exp(out, out=out)
    xp.subtract(x1, m, out=e)
    xp.exp(e, out=e)
    xp.add(out, e, out=out)
    xp.subtract(x2, m, out=e)
    xp.exp(e, out=e)
    xp.add(out, e, out=out)
    xp.log(out, out=out)
    xp.add(out, m, out=out)


def _extended(xp, tgt, blank: int):
    """(ext, skip) of (N, S) targets: the extended labels (N, 2 S + 1), and where the step
    into s may skip from s - 2 (NOTE [ CTC in log space ])."""
    n, S = tgt.shape
    ext = xp.full((n, 2 * S + 1), blank, dtype=tgt.dtype)
    ext[:, 1::2] = tgt
    skip = xp.zeros((n, 2 * S + 1), dtype=bool)
    skip[:, 3::2] = tgt[:, 1:] != tgt[:, :-1]
    return ext, skip


# NOTE [ CTC's array layout ]
# The recursions keep states first and samples last, (L, N) per frame: the step's three terms
# are then the contiguous slabs alpha[2:], alpha[1:-1], alpha[:-2] of one (L + 2, N) buffer
# padded with -inf, which NumPy's ufuncs run about 1.5x faster than the strided column slices of
# an (N, L + 2) one ((L, N) = (121, 8) and (61, 16): 15-24 us a step against 22-38).


def _alpha(xp, lpe, skip_add, in_len, tgt_len):
    """(pre, nll): the pre-alpha alpha_t - lp_t (F, L, N) over the first F frames, and each
    sample's loss read at its last frame (NOTE [ CTC in log space ], [ CTC's array layout ])."""
    F, L, n = lpe.shape
    dt = lpe.dtype
    floor = xp.finfo(dt).min
    ninf = float("-inf")
    pre = xp.empty((F, L, n), dtype=dt)
    a = xp.full((L + 2, n), ninf, dtype=dt)  # alpha_{t-1}, two -inf rows before s = 0
    a[2] = 0.0  # alpha_{-1}: the empty prefix
    empty = a[2:].copy()
    m, e, a2 = (xp.empty((L, n), dtype=dt) for _ in range(3))
    with quiet(xp, divide="ignore"):
        for t in range(F):
            xp.add(a[:-2], skip_add, out=a2)
            _lse3(xp, a[2:], a[1:-1], a2, pre[t], m, e, floor)
            xp.add(pre[t], lpe[t], out=a[2:])
    rows = xp.arange(n)
    if F:
        at = xp.clip(in_len - 1, 0, F - 1)
        last = xp.where(in_len > 0, pre[at, :, rows].T + lpe[at, :, rows].T, empty)  # (L, N)
    else:
        last = empty
    s = xp.clip(2 * tgt_len, 0, L - 1)
    end = last[s, rows]
    before = xp.where(tgt_len > 0, last[xp.clip(s - 1, 0, None), rows], ninf)
    return pre, -xp.logaddexp(end, before)


def _beta(xp, lpe, skip, in_len, tgt_len):
    """beta (F, L, N), lp_t included; -inf at the states past each sample's 2 S_n, and no
    meaning at the frames past its length (NOTE [ CTC in log space ], [ CTC's array layout ])."""
    F, L, n = lpe.shape
    dt = lpe.dtype
    floor = xp.finfo(dt).min
    ninf = float("-inf")
    skip_add = xp.full((L, n), ninf, dtype=dt)  # the step into s from s + 2: skip(s + 2)
    skip_add[:-2][skip.T[2:]] = 0.0
    beta = xp.full((F + 1, L + 2, n), ninf, dtype=dt)  # two -inf rows after s = L - 1
    s = xp.arange(L)[:, None]
    last = 2 * tgt_len
    end = (s == last) | ((s == last - 1) & (tgt_len > 0))
    # beta's start, at each sample's last frame: 0 at its two end states (before lp), -inf
    # elsewhere, which is end + now[t]; the step gives -inf there (beta is -inf past the
    # sample's frames), so a max sets it (fmax: NaN log-probabilities in frames no sample
    # reads are left out, as torch reads none of them)
    end = xp.where(end, 0.0, ninf).astype(dt)  # (L, N)
    now = xp.where(xp.arange(F)[:, None] == in_len - 1, 0.0, ninf).astype(dt)  # (F, N)
    q, m, e, b2 = (xp.empty((L, n), dtype=dt) for _ in range(4))
    with quiet(xp, divide="ignore"):
        for t in range(F - 1, -1, -1):
            b = beta[t + 1]
            xp.add(b[2:], skip_add, out=b2)
            _lse3(xp, b[:-2], b[1:-1], b2, q, m, e, floor)
            xp.add(end, now[t], out=e)
            xp.fmax(q, e, out=q)
            xp.add(q, lpe[t], out=beta[t, :L])
    return beta[:F, :L]


class _CtcLoss(Function):
    """nll_n = -log p(target_n | log_probs) (alpha recursion);  grad = g (exp(log_probs) -
    occupancy) on read frames (beta recursion), torch's formula: NOTE [ CTC in log space ]"""

    _node_name = "CtcLossBackward0"
    # grad_fn._saved_<name> as torch's node shows them (NOTE [ CTC's saved values ])
    _saved_names = ("log_probs", "result0")
    _saved_attrs = {
        "blank": lambda node: node.args[1],
        "input_lengths": lambda node: _saved_lengths(node, 3, 5),
        "target_lengths": lambda node: _saved_lengths(node, 4, 6),
        "targets": lambda node: _saved_targets(node),
        "zero_infinity": lambda node: node.args[2],
        "result1": lambda node: _saved_log_alpha(node),
    }

    @staticmethod
    def forward(ctx, log_probs, *, ext, skip, in_len, tgt_len, frames, zero_infinity, args):
        xp = ctx.xp
        n, L = ext.shape
        c = log_probs.shape[2]
        # (F, L, N), row-major: one take along the flattened (N * C) axis
        lpe = log_probs._data[:frames].reshape(frames, n * c).take(xp.arange(n) * c + ext.T, 1)
        skip_add = xp.where(skip.T, 0.0, float("-inf")).astype(lpe.dtype)
        pre, nll = _alpha(xp, lpe, skip_add, in_len, tgt_len)
        if ctx.needs_input_grad[0]:
            # torch's node saves log_probs (in-place changes refused) and its losses
            ctx.save_for_backward(log_probs, nll)
            ctx.state = (lpe, pre, nll, ext, skip, in_len, tgt_len, zero_infinity)
            ctx.args = args
        return nll

    @staticmethod
    def backward(ctx, grad):
        log_probs, _ = ctx._stored_tensors
        if state.enabled:  # create_graph: a gradient that differentiates again
            return _recorded_grad(log_probs, grad, ctx.state)
        xp = ctx.xp
        lp, g = log_probs._data, grad._data
        lpe, pre, nll, ext, skip, in_len, tgt_len, zero_infinity = ctx.state
        F, L, n = lpe.shape
        if F == 0:  # no sample reads a frame
            return _make(xp.zeros_like(lp), log_probs._device, False, None)
        feasible = nll != float("inf")
        occupied = pre + _beta(xp, lpe, skip, in_len, tgt_len)
        occupied += xp.where(feasible, nll, 0.0)
        occupied = xp.exp(occupied, out=occupied)  # (F, L, N), each <= 1
        # torch's CPU kernel sets (not adds) the last frame's two end states' class terms, the
        # second overwriting the first when the last label is the blank (targets must not hold
        # it, says its doc): the first end state's occupancy is then left out
        rows, t = xp.arange(n), xp.clip(in_len - 1, 0, F - 1)
        end = xp.clip(2 * tgt_len, 1, L - 1)
        lost = (tgt_len > 0) & (ext[rows, end - 1] == ext[rows, 0])
        occupied[t, end, rows] = xp.where(lost, 0.0, occupied[t, end, rows])
        occ = xp.zeros((F, n, lp.shape[2]), dtype=lp.dtype)
        at = (xp.arange(F)[:, None, None], rows, ext.T)
        log_probs._device.backend.scatter_add(occ, at, occupied)
        lp = lp[:F]
        out = (xp.exp(lp) - occ) * g[:, None]
        # torch's NaN: exp(-inf + loss - lp) at lp = -inf, and at every class of an infeasible
        # sample's frames (unless zero_infinity, which zeroes its whole gradient)
        nan_at = lp == float("-inf")
        if zero_infinity:
            out = xp.where(feasible[:, None], out, 0.0)
            nan_at &= feasible[:, None]
        else:
            nan_at |= ~feasible[:, None]
        read = (xp.arange(F)[:, None] < in_len)[:, :, None]
        out = xp.where(read, xp.where(nan_at, float("nan"), out), 0.0).astype(lp.dtype)
        if F < log_probs.shape[0]:  # frames past every input length
            rest = xp.zeros((log_probs.shape[0] - F, *out.shape[1:]), dtype=out.dtype)
            out = xp.concatenate([out, rest])
        return _make(out, log_probs._device, False, None)


# NOTE [ CTC's saved values ]
# torch's CtcLossBackward0 shows _saved_log_probs, _saved_targets (int64), _saved_blank,
# _saved_zero_infinity, the lengths as tuples of ints (read from tensors too), _saved_result0
# (the losses) and _saved_result1, the forward variable log_alpha (N, T, 2 max(S_n) + 1); the
# tensors are freed by backward, the numbers stay. torch fills log_alpha at frame 0 (-inf for an
# empty input) and at the states s <= 2 S_n of the frames t < T_n; the rest is uninitialised
# memory there, -inf here. Lengths given as device tensors are read back only when one of these
# is asked for.


def _saved_lengths(node, given: int, host: int) -> tuple:
    """A length argument as torch's node shows it: a tuple of ints (kept after backward)."""
    values = node.args[host]
    if values is None:
        values = node.args[given].tolist()
    return tuple(values)


def _saved_targets(node) -> Tensor:
    """The targets as int64, torch's saved tensor (freed by backward)."""
    _ = node._stored_tensors  # raises torch's error once the saved values were freed
    return node.args[0].to(_dtype.int64)


def _saved_log_alpha(node) -> Tensor:
    """log_alpha (N, T, 2 max(S_n) + 1) of the forward pass (NOTE [ CTC's saved values ])."""
    log_probs, _ = node._stored_tensors
    lpe, pre, _, _, _, in_len, tgt_len, _ = node.state
    xp = node.xp
    F, L, n = lpe.shape
    width = 2 * max(_saved_lengths(node, 4, 6), default=0) + 1
    alpha = (pre + lpe).transpose(2, 0, 1)[:, :, :width]  # (N, F, L')
    t = xp.arange(F)[None, :, None]
    s = xp.arange(alpha.shape[2])[None, None, :]
    il, tl = in_len[:, None, None], tgt_len[:, None, None]
    kept = (t < il) & (s <= 2 * tl)  # frame 0's later states are -inf
    alpha = xp.where(kept, alpha, float("-inf")).astype(lpe.dtype)
    T = log_probs.shape[0]
    if F < T:
        rest = xp.full((n, T - F, alpha.shape[2]), float("-inf"), dtype=alpha.dtype)
        alpha = xp.concatenate([alpha, rest], axis=1)
    return _make(alpha, log_probs._device, False, None)


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


def _recorded_nll(log_probs, ext, skip, in_len, tgt_len) -> Tensor:
    """The losses (N,) by the alpha recursion in Tensor ops, differentiable at any order: what
    backward differentiates under create_graph (NOTE [ CTC in log space ]). A sample with no
    frames has one alignment, the empty one: loss 0 for an empty target, inf otherwise."""
    T, n, _ = log_probs.shape
    L = ext.shape[1]
    device = log_probs.device
    lp = _ops.gather(log_probs, 2, ext.unsqueeze(0).expand(T, n, L))  # (T, N, L)
    neg_inf = full_like(lp[0], float("-inf"))
    s = arange(L, device=device).unsqueeze(0)
    alpha = _ops.where(s < 2, lp[0], neg_inf)
    alpha = _ops.where((in_len == 0).unsqueeze(1), _ops.where(s == 0, 0.0, neg_inf), alpha)
    for t in range(1, T):
        a1 = _ops.cat([neg_inf[:, :1], alpha[:, :-1]], 1)
        a2 = _ops.where(skip, _ops.cat([neg_inf[:, :2], alpha[:, :-2]], 1), neg_inf)
        step = _lse(alpha, a1, a2) + lp[t]
        alpha = _ops.where((in_len > t).unsqueeze(1), step, alpha)
    last = _ops.gather(alpha, 1, (2 * tgt_len).unsqueeze(1)).squeeze(1)
    prev = _ops.gather(alpha, 1, _ops.clamp(2 * tgt_len - 1, min=0).unsqueeze(1)).squeeze(1)
    prev = _ops.where(tgt_len > 0, prev, neg_inf[:, 0])
    return -_lse(last, prev)


def _recorded_grad(log_probs: Tensor, grad: Tensor, saved) -> Tensor:
    """_CtcLoss's gradient under create_graph: the occupancy term as the derivative of
    _recorded_nll (on an alias of log_probs, where the nested walk stops), plus torch's
    exp(log_probs) term and its NaN / zero_infinity rules, all in Tensor ops. The occupancy
    is the exact one: torch's loss of an end state when the last label is the blank (see
    backward) is not reproduced here, nor are NaN frames past every length left out."""
    _, _, nll, ext, skip, in_len, tgt_len, zero_infinity = saved
    device = log_probs._device
    xp = device.backend.xp

    def const(a):
        return _make(a, device, False, None)

    alias = log_probs.view_as(log_probs)
    nll_t = _recorded_nll(alias, const(ext), const(skip), const(in_len), const(tgt_len))
    (occ,) = engine.grad(nll_t, (alias,), grad, create_graph=True, materialize_grads=True)
    read = const((xp.arange(log_probs.shape[0])[:, None] < in_len)[:, :, None])
    out = occ + _ops.where(read, log_probs.exp(), 0.0) * grad[:, None]
    feasible = const((nll != float("inf"))[:, None])
    nan_at = log_probs.detach() == float("-inf")
    if zero_infinity:
        out = _ops.where(feasible, out, 0.0)
        nan_at = nan_at & feasible
    else:
        nan_at = nan_at | ~feasible
    return _ops.where(read & nan_at, float("nan"), out)


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
        raise RuntimeError("log_probs tensor must not be empty")
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

    The gradient with respect to log_probs is torch's, exp(log_probs) - occupancy (the exact
    derivative once propagated through the log_softmax that produces log_probs); as in torch, an
    infinite loss (an impossible alignment) gets NaN gradients unless zero_infinity.

    Differences from torch: torch has no derivative of its CTC backward and raises on a double
    backward; here the gradient taken under create_graph differentiates again."""
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
    if host_il is None and log_probs.is_meta:  # torch's Tensor overload has no meta kernel
        from minitorch._backend.meta import no_kernel

        raise no_kernel("_ctc_loss.Tensor")
    if blank.__class__ is not int:
        blank = operator.index(blank)  # np.int64, a 0-d integer tensor
    if log_probs.ndim == 0:  # torch unsqueezes a log_probs that is not 3-D at dim 1 first
        raise IndexError("Dimension out of range (expected to be in range of [-1, 0], but got 1)")
    unbatched = log_probs.ndim == 2
    if unbatched:
        log_probs = log_probs.unsqueeze(1)
        # 1-D targets stay 1-D: the concatenated form of one sample, whose length torch checks
        if host_il is None:  # the Tensor overload; other sizes fail torch's batch check below
            if input_lengths.numel() == 1:
                input_lengths = input_lengths.reshape(1)
            if target_lengths.numel() == 1:
                target_lengths = target_lengths.reshape(1)
    device = log_probs.device
    # lengths first: torch refuses float lengths before it looks at log_probs
    in_len, host_il = _lengths(input_lengths, host_il, device, "input_lengths")
    tgt_len, host_tl = _lengths(target_lengths, host_tl, device, "target_lengths")
    _check_arguments(log_probs, targets, blank, in_len, host_il, tgt_len, host_tl)
    T, n, c = log_probs.shape
    tgt = _ops.clamp(_padded_targets(targets, tgt_len, host_tl, n, device), 0, c - 1)
    ext, skip = _extended(log_probs._device.backend.xp, tgt.to(device)._data, blank)
    loss = _CtcLoss.apply(
        log_probs,
        ext=ext,
        skip=skip,
        in_len=in_len._data,
        tgt_len=tgt_len._data,
        frames=T if host_il is None else max(host_il),  # frames no sample reads are skipped
        zero_infinity=zero_infinity,
        args=(targets, blank, zero_infinity, in_len, tgt_len, host_il, host_tl),
    )
    if zero_infinity:
        loss = _ops.where(loss == float("inf"), 0.0, loss)
    if reduction == "none":
        return loss.squeeze(0) if unbatched else loss
    if reduction == "sum":
        return loss.sum()
    return (loss / _ops.clamp(tgt_len, min=1).to(loss.dtype)).mean()
