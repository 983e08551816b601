"""nn.functional.linear_cross_entropy: cross_entropy of linear(input, weight, bias), composed
from F.linear and F.cross_entropy (so both derivatives come from theirs), with K-dimensional
losses from a (C, d_1, ..., d_K, in_features) weight."""

from __future__ import annotations

import math
import warnings

from minitorch import _dtype
from minitorch._tensor import Tensor
from minitorch.nn._functional_loss import cross_entropy

__all__ = ["linear_cross_entropy"]


def linear_cross_entropy(
    input: Tensor,
    linear_weight: Tensor,
    target: Tensor,
    *,
    linear_bias: Tensor | None = None,
    weight: Tensor | None = None,
    reduction: str = "mean",
    ignore_index: int | None = None,
    label_smoothing: float = 0.0,
    options=None,
) -> Tensor:
    """cross_entropy(linear(input, linear_weight, linear_bias), target, ...), with the logits
    reshaped to (N, C, d_1, ..., d_K) for a (C, d_1, ..., d_K, in_features) weight.
    ignore_index=None means -100 for class indices and refuses an explicit one for class
    probabilities (a target shaped like the logits). Mirrors
    torch.nn.functional.linear_cross_entropy.

    Differences from torch: no chunked kernel. A LinearCrossEntropyOptions is checked as
    torch's chunked path checks it (and the same fallback warning is given where torch ignores
    it), then the reference path computes the loss in the options' accumulation dtype (float32
    for half inputs under acc_policy 'auto') and casts it back: torch's values to float
    tolerance, with the reference path's errors (an out-of-range target raises IndexError,
    where torch's chunked path raises a RuntimeError) and a graph that may be differentiated
    again or backpropagated twice.
    """
    from minitorch.nn.functional import linear  # (functional imports this file)

    if input.dim() < 1 or input.dim() > 2:
        raise RuntimeError(f"expected input with dimensionality 1 or 2, got {input.dim()}")
    if linear_weight.dim() < 2:
        raise RuntimeError(
            f"expected linear_weight with dimensionality at least 2, got {linear_weight.dim()}"
        )
    batch = tuple(input.shape[:-1])
    in_features = input.shape[-1]
    if in_features != linear_weight.shape[-1]:
        raise RuntimeError(
            "expected equal input and linear_weight last dimensions (in_features), "
            f"got {in_features} and {linear_weight.shape[-1]}, respectively"
        )
    num_classes = linear_weight.shape[0]
    out_features = tuple(linear_weight.shape[1:-1])
    if linear_bias is not None and tuple(linear_bias.shape) != (num_classes, *out_features):
        raise RuntimeError(
            f"expected linear_bias shape {(num_classes, *out_features)}, got "
            f"{tuple(linear_bias.shape)}"
        )
    if out_features and not batch:
        raise RuntimeError(
            "K-dimensional loss defined by linear_weight shape "
            f"{tuple(linear_weight.shape)} requires batched input, (N, {in_features}), got "
            f"unbatched input with shape {tuple(input.shape)}"
        )
    logits_shape = (*batch, num_classes, *out_features)
    if tuple(target.shape) == logits_shape and ignore_index is not None:
        raise RuntimeError("ignore_index cannot be specified when target contains probabilities")
    if ignore_index is None:
        ignore_index = -100

    out_dtype = None
    if options is not None:
        chunked = (
            not out_features
            and reduction in ("mean", "sum", "none")
            and label_smoothing == 0.0
            and target.dtype is _dtype.int64
        )
        if not chunked:
            bias_shape = tuple(linear_bias.shape) if linear_bias is not None else None
            warnings.warn(
                "linear_cross_entropy: ``options`` ignored; chunked path needs reduction in "
                "{'mean','sum','none'}, label_smoothing == 0, target.dtype == int64, "
                f"out_features == (). Got reduction={reduction!r}, "
                f"label_smoothing={label_smoothing}, target.dtype={target.dtype}, "
                f"out_features={out_features}, tracing=False, "  # (minitorch never traces)
                f"linear_bias.shape={bias_shape}.",
                stacklevel=2,
            )
        else:
            rows = batch[0] if batch else 1
            _check_chunk_size(options, rows, in_features, num_classes)
            acc = _resolved_acc_dtype(options, input.dtype)
            if acc is not input.dtype:
                out_dtype = input.dtype
                input, linear_weight = input.to(acc), linear_weight.to(acc)
                if linear_bias is not None:
                    linear_bias = linear_bias.to(acc)
                if weight is not None and weight.dtype is out_dtype:
                    weight = weight.to(acc)

    if out_features:
        rows = math.prod(out_features, start=num_classes)
        linear_weight = linear_weight.reshape((rows, in_features))
        if linear_bias is not None:
            linear_bias = linear_bias.reshape(rows)
    logits = linear(input, linear_weight, linear_bias)
    if out_features:
        logits = logits.reshape(logits_shape)
    loss = cross_entropy(
        logits,
        target,
        weight=weight,
        reduction=reduction,
        ignore_index=ignore_index,
        label_smoothing=label_smoothing,
    )
    return loss if out_dtype is None else loss.to(out_dtype)


def _check_chunk_size(options, num_batches: int, in_features: int, num_classes: int) -> None:
    """torch's ValueError when an explicit batch_chunk_size and chunking_method give
    different rows per chunk ('auto' or None: the size alone decides, no conflict)."""
    method = options.chunking_method
    if options.batch_chunk_size is None or method is None or method == "auto":
        return
    # 'aspect_ratio[:N]': a chunk's (rows, num_classes) logits as large as the
    # (num_batches, in_features) input, rounded up to a power of two, divided by N
    rows = -(-num_batches // -(-num_classes // in_features))
    factor = int(method.partition(":")[2] or 1)  # (validated by the options)
    size = min((1 << (rows - 1).bit_length()) // factor, num_batches)
    if options.batch_chunk_size != size:
        raise ValueError(
            f"batch_chunk_size (={options.batch_chunk_size}) and chunking_method ('{method}') "
            f"give different chunk sizes ({options.batch_chunk_size} vs {size}); pass only one."
        )


def _resolved_acc_dtype(options, dtype: _dtype.dtype) -> _dtype.dtype:
    """The dtype the loss is accumulated in: float32 for half inputs under acc_policy
    'auto' (torch's pick on CPU and recent GPUs), else the input's dtype; torch's
    RuntimeError for a combination its chunked kernel does not support."""
    acc = options.acc_dtype
    if acc is None:
        halves = (_dtype.float16, _dtype.bfloat16)
        auto = options.acc_policy == "auto" and dtype in halves
        acc = _dtype.float32 if auto else dtype
    if acc is not dtype and not (
        dtype in (_dtype.float16, _dtype.bfloat16) and acc is _dtype.float32
    ):
        raise RuntimeError(
            "linear_cross_entropy supports float32 acc_dtype with float16/bfloat16 inputs, "
            f"but got {acc} acc_dtype and {dtype} inputs."
        )
    return acc
