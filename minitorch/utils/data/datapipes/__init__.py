"""DataPipes: datasets built by chaining registered functional forms. Mirrors
torch.utils.data.datapipes (the base classes and the decorator only; see datapipe.py)."""

from __future__ import annotations

from minitorch.utils.data.datapipes import _decorator, datapipe  # noqa: F401
