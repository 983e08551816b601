"""torch.nn.modules.fold's import path: Fold and Unfold live in upsampling.py."""

from minitorch.nn.modules.upsampling import Fold, Unfold

__all__ = ["Fold", "Unfold"]
