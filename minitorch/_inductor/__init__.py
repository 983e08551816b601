"""torch._inductor: only its config (minitorch/_inductor/config.py) - minitorch generates no
code. Mirrors torch._inductor.config."""

from __future__ import annotations

from minitorch._inductor import config

__all__ = ["config"]
