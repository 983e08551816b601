"""LinearCrossEntropyOptions: the settings of torch's chunked linear_cross_entropy."""

from __future__ import annotations

import dataclasses
from typing import Literal

from minitorch import _dtype

__all__ = ["LinearCrossEntropyOptions"]

_ACC_POLICIES = ("auto", "accurate", "balanced", "compact")


def _acc_dtypes():
    return (_dtype.float16, _dtype.bfloat16, _dtype.float32, _dtype.float64)


@dataclasses.dataclass(slots=True, frozen=True)
class LinearCrossEntropyOptions:
    """Settings of the chunked (memory-saving) path of F.linear_cross_entropy: rows per chunk
    (`batch_chunk_size`, or a `chunking_method` heuristic: 'auto', 'aspect_ratio',
    'aspect_ratio:N', None), the precision policy and the accumulation dtype. Validated as torch
    validates them. Mirrors torch.nn.modules.linear_cross_entropy_options.LinearCrossEntropyOptions.

    Differences from torch: minitorch has no chunked kernel. F.linear_cross_entropy checks the
    options as torch's chunked path does (conflicting chunk sizes, an unsupported acc_dtype) and
    then computes the reference path (linear + cross_entropy) in acc_dtype, which gives torch's
    values to float tolerance. `acc_policy` and the chunk size change no number here, and
    backward may run twice (torch's chunked path refuses without allow_retain_graph).
    """

    allow_retain_graph: bool = False
    batch_chunk_size: int | None = None
    chunking_method: str | None = "auto"
    acc_policy: Literal["accurate", "balanced", "compact", "auto"] = "auto"
    acc_dtype: _dtype.dtype | None = None

    def __post_init__(self) -> None:
        if self.acc_policy not in _ACC_POLICIES:
            raise ValueError(f"invalid acc_policy: {self.acc_policy!r}")
        if self.chunking_method is not None and self.chunking_method != "auto":
            if _aspect_factor(self.chunking_method) is None:
                raise ValueError(f"invalid chunking_method: {self.chunking_method!r}")
        size = self.batch_chunk_size
        if size is not None and not (isinstance(size, int) and size > 0):
            raise ValueError(f"batch_chunk_size must be positive int or None, got {size!r}")
        if self.acc_dtype is not None and self.acc_dtype not in _acc_dtypes():
            raise ValueError(
                "acc_dtype must be one of {None, torch.float16, torch.bfloat16, torch.float32, "
                f"torch.float64}}, got {self.acc_dtype!r}. Pass acc_dtype=None to let the op "
                "pick automatically."
            )


def _aspect_factor(method: str) -> int | None:
    """N of 'aspect_ratio' (1) or 'aspect_ratio:N' (N >= 1); None for any other spelling."""
    name, sep, factor = method.partition(":")
    if not sep:
        factor = "1"
    if name != "aspect_ratio" or not factor.isdigit() or int(factor) == 0:
        return None
    return int(factor)
