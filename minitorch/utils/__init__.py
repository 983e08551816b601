"""minitorch.utils: data loading (utils.data) and hook handles (utils.hooks). Mirrors
torch.utils."""

from __future__ import annotations

from minitorch.utils import data, dlpack, hooks  # noqa: F401
