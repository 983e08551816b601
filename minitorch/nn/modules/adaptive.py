"""AdaptiveLogSoftmaxWithLoss: a softmax over many classes split into a head and tail clusters."""

from __future__ import annotations

from collections import namedtuple

from minitorch import _dtype, _ops
from minitorch._tensor import Tensor
from minitorch.nn import functional as F
from minitorch.nn.modules.container import ModuleList, Sequential
from minitorch.nn.modules.linear import Linear
from minitorch.nn.modules.module import Module

__all__ = ["AdaptiveLogSoftmaxWithLoss"]

_ASMoutput = namedtuple("_ASMoutput", ["output", "loss"])


class AdaptiveLogSoftmaxWithLoss(Module):
    """Efficient softmax approximation (Grave et al.): the head scores the `cutoffs[0]` most
    frequent classes and one node per tail cluster; cluster i scores its own classes through a
    two-layer projection of width in_features // div_value ** (i + 1). Mirrors
    torch.nn.AdaptiveLogSoftmaxWithLoss (submodules head and tail, so state_dict keys match).

    Differences from torch: the check that targets lie in [0, n_classes) runs on CPU only (NOTE
    [ Checks that read values ]); on another device the tails run on every row (no host read to
    select a cluster's rows), which gives the same values.
    """

    def __init__(
        self,
        in_features: int,
        n_classes: int,
        cutoffs,
        div_value: float = 4.0,
        head_bias: bool = False,
        device=None,
        dtype=None,
    ) -> None:
        super().__init__()
        cutoffs = list(cutoffs)
        if len(cutoffs) == 0:
            raise ValueError("cutoffs should be a sequence of length larger than 0")
        if (
            cutoffs != sorted(cutoffs)
            or min(cutoffs) <= 0
            or max(cutoffs) > n_classes - 1
            or len(set(cutoffs)) != len(cutoffs)
            or any(int(c) != c for c in cutoffs)
        ):
            raise ValueError(
                "cutoffs should be a sequence of unique, positive integers sorted in an "
                "increasing order, where each value is between 1 and n_classes-1"
            )
        self.in_features = in_features
        self.n_classes = n_classes
        self.cutoffs = cutoffs + [n_classes]
        self.div_value = div_value
        self.head_bias = head_bias
        self.shortlist_size = self.cutoffs[0]
        self.n_clusters = len(self.cutoffs) - 1
        self.head_size = self.shortlist_size + self.n_clusters
        kw = dict(device=device, dtype=dtype)
        self.head = Linear(in_features, self.head_size, bias=head_bias, **kw)
        self.tail = ModuleList()
        for i in range(self.n_clusters):
            hidden = int(in_features // (div_value ** (i + 1)))
            size = self.cutoffs[i + 1] - self.cutoffs[i]
            self.tail.append(
                Sequential(
                    Linear(in_features, hidden, bias=False, **kw),
                    Linear(hidden, size, bias=False, **kw),
                )
            )

    def reset_parameters(self) -> None:
        self.head.reset_parameters()
        for i2h, h2o in self.tail:
            i2h.reset_parameters()
            h2o.reset_parameters()

    def _check_shapes(self, input: Tensor, target: Tensor) -> None:
        # torch's dim()/size() calls (their errors for a non-tensor or a 0-d input)
        targ_dim = target.dim()
        if targ_dim == 1:
            if input.size(0) != target.size(0):
                raise RuntimeError(
                    "Input and target should have the same size in the batch dimension."
                )
            if input.dim() != 2:
                raise RuntimeError(
                    "1D target tensor expects 2D input tensors, but found inputs with size "
                    f"{input.shape}"
                )
        elif targ_dim == 0:
            if input.dim() != 1:
                raise RuntimeError(
                    "0D target tensor expects 1D input tensors, but found inputs with size "
                    f"{input.shape}"
                )
        else:
            raise RuntimeError("0D or 1D target tensor expected, multi-target not supported")

    def _check_targets(self, target: Tensor) -> None:
        """torch's range check (it reads the values; CPU only, see the class docstring)."""
        if target.numel() and bool(((target < 0) | (target >= self.n_classes)).any()):
            raise RuntimeError(
                f"Target values should be in [0, {self.n_classes - 1}], but values in range "
                f"[{int(target.min())}, {int(target.max())}] were found. "
            )

    def _cluster_logprob(self, i: int, input: Tensor, target: Tensor, on_host: bool):
        """Per row: log p(target | cluster i) for the rows whose target is in cluster i, else 0."""
        lo, hi = self.cutoffs[i], self.cutoffs[i + 1]
        inside = (target >= lo) & (target < hi)
        if on_host:  # only the cluster's rows go through its tail, as in torch
            rows = inside.nonzero().squeeze(1)
            if rows.numel() == 0:
                return None
            rel = target.index_select(0, rows) - lo
            logits = self.tail[i](input.index_select(0, rows))
            picked = F.log_softmax(logits, dim=1).gather(1, rel.unsqueeze(1)).squeeze(1)
            base = input.new_zeros(target.shape[0], dtype=picked.dtype)
            return base.index_copy(0, rows, picked)
        rel = _ops.clamp(target - lo, 0, hi - lo - 1)
        logits = self.tail[i](input)
        picked = F.log_softmax(logits, dim=1).gather(1, rel.unsqueeze(1)).squeeze(1)
        return _ops.where(inside, picked, 0.0)

    def forward(self, input_: Tensor, target_: Tensor) -> _ASMoutput:
        """(output, loss): each row's log-probability of its target, and their negated mean."""
        self._check_shapes(input_, target_)
        if target_.dtype is _dtype.bool:  # (where would promote it) torch's gather refuses it
            raise RuntimeError("gather(): Expected dtype int32/int64 for index")
        batched = target_.ndim > 0
        input = input_ if batched else input_.unsqueeze(0)
        target = target_ if batched else target_.unsqueeze(0)
        on_host = target.device.type == "cpu"
        if on_host:
            self._check_targets(target)
        # the head column of each row: its class in the shortlist, else its cluster's node
        head_col = target
        output = None
        for i in range(self.n_clusters):
            lo, hi = self.cutoffs[i], self.cutoffs[i + 1]
            head_col = _ops.where((target >= lo) & (target < hi), self.shortlist_size + i, head_col)
            local = self._cluster_logprob(i, input, target, on_host)
            if local is not None:
                output = local if output is None else output + local
        head_logprob = F.log_softmax(self.head(input), dim=1)
        from_head = head_logprob.gather(1, head_col.unsqueeze(1)).squeeze(1)
        output = from_head if output is None else output + from_head
        loss = (-output).mean()
        if not batched:
            output = output.squeeze(0)
        return _ASMoutput(output, loss)

    def _full_log_prob(self, input: Tensor, head_output: Tensor) -> Tensor:
        head_logprob = F.log_softmax(head_output, dim=1)
        parts = [head_logprob[:, : self.shortlist_size]]
        for i, tail in enumerate(self.tail):
            cluster = F.log_softmax(tail(input), dim=1)
            parts.append(cluster + head_logprob[:, self.shortlist_size + i].unsqueeze(1))
        return _ops.cat(parts, 1)

    def log_prob(self, input: Tensor) -> Tensor:
        """(batch, n_classes) log-probabilities of every class. Mirrors
        torch.nn.AdaptiveLogSoftmaxWithLoss.log_prob."""
        return self._full_log_prob(input, self.head(input))

    def predict(self, input: Tensor) -> Tensor:
        """The most likely class of each row. Mirrors torch.nn.AdaptiveLogSoftmaxWithLoss.predict.

        torch scores the tails only for rows whose head arg-max is a cluster node; the arg-max
        over all classes is the same class (a shortlist winner beats every class of a cluster,
        whose log-probabilities are at most its node's), so it is taken directly: no host read.
        """
        return self.log_prob(input).argmax(1)
