"""torch.distributions.log_normal: LogNormal (in normal.py)."""

from __future__ import annotations

from minitorch.distributions.normal import LogNormal

__all__ = ["LogNormal"]
