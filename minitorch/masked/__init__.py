"""minitorch.masked: torch.masked's masked reductions and the MaskedTensor prototype.

Mirrors torch.masked. The functions (minitorch/masked/_ops.py) take plain tensors with a `mask=`
keyword, or a MaskedTensor (minitorch/masked/_maskedtensor.py).
"""

from __future__ import annotations

from minitorch.masked._maskedtensor import (
    MaskedTensor,
    as_masked_tensor,
    is_masked_tensor,
    masked_tensor,
)
from minitorch.masked._ops import (
    amax,
    amin,
    argmax,
    argmin,
    cumprod,
    cumsum,
    log_softmax,
    logaddexp,
    logsumexp,
    mean,
    median,
    norm,
    normalize,
    prod,
    softmax,
    softmin,
    std,
    sum,
    var,
)

__all__ = [
    "MaskedTensor",
    "amax",
    "amin",
    "argmax",
    "argmin",
    "as_masked_tensor",
    "cumprod",
    "cumsum",
    "is_masked_tensor",
    "log_softmax",
    "logaddexp",
    "logsumexp",
    "masked_tensor",
    "mean",
    "median",
    "norm",
    "normalize",
    "prod",
    "softmax",
    "softmin",
    "std",
    "sum",
    "var",
]
