"""Dropout modules: active in training mode only; masks from minitorch's generator on the
input's device (see minitorch/nn/_functional_dropout.py)."""

from __future__ import annotations

from minitorch._tensor import Tensor
from minitorch.nn import functional as F
from minitorch.nn.modules._naming import own_methods
from minitorch.nn.modules.module import Module

__all__ = ["Dropout", "Dropout1d", "Dropout2d", "Dropout3d", "AlphaDropout", "FeatureAlphaDropout"]


class _DropoutNd(Module):
    __constants__ = ["p", "inplace"]
    _fn = None

    def __init__(self, p: float = 0.5, inplace: bool = False) -> None:
        super().__init__()
        if p < 0 or p > 1:
            raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
        self.p = p
        self.inplace = inplace

    def forward(self, input: Tensor) -> Tensor:
        return type(self)._fn(input, self.p, self.training, self.inplace)

    def extra_repr(self) -> str:
        return f"p={self.p}, inplace={self.inplace}"


class Dropout(_DropoutNd):
    """Zeroes elements with probability p and scales the rest by 1 / (1 - p) in training.
    Mirrors torch.nn.Dropout."""

    _fn = staticmethod(F.dropout)


class Dropout1d(_DropoutNd):
    """Zeroes whole channels of (N, C, L) or (C, L) inputs. Mirrors torch.nn.Dropout1d."""

    _fn = staticmethod(F.dropout1d)


class Dropout2d(_DropoutNd):
    """Zeroes whole channels of (N, C, H, W) inputs. Mirrors torch.nn.Dropout2d."""

    _fn = staticmethod(F.dropout2d)


class Dropout3d(_DropoutNd):
    """Zeroes whole channels of (N, C, D, H, W) or (C, D, H, W) inputs. Mirrors
    torch.nn.Dropout3d."""

    _fn = staticmethod(F.dropout3d)


class AlphaDropout(_DropoutNd):
    """Dropout that keeps the self-normalising property of SELU networks. Mirrors
    torch.nn.AlphaDropout."""

    _fn = staticmethod(F.alpha_dropout)

    def forward(self, input: Tensor) -> Tensor:
        # torch's alpha-dropout modules keep `inplace` for their repr only: never in place
        return type(self)._fn(input, self.p, self.training)


class FeatureAlphaDropout(_DropoutNd):
    """Alpha dropout of whole channels. Mirrors torch.nn.FeatureAlphaDropout."""

    _fn = staticmethod(F.feature_alpha_dropout)

    def forward(self, input: Tensor) -> Tensor:
        # as AlphaDropout: `inplace` is not passed on
        return type(self)._fn(input, self.p, self.training)


# torch's classes each define forward: a wrong call's TypeError names theirs
for _cls in (Dropout, Dropout1d, Dropout2d, Dropout3d):
    own_methods(_cls, "forward")
del _cls
