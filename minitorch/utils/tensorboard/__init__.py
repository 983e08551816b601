"""minitorch.utils.tensorboard: SummaryWriter, logging to TensorBoard through the separate
`tensorboard` package (pip install tensorboard), which minitorch does not depend on: it is
imported only here, when this module is. Mirrors torch.utils.tensorboard."""

from __future__ import annotations

import re

# Without the package, `import tensorboard` raises ModuleNotFoundError (an ImportError) naming
# it, exactly as torch.utils.tensorboard does, so `except ImportError` fallbacks work.
import tensorboard


def _version_tuple(version: str) -> tuple:
    """The leading numeric release parts of a version string: '2.21.0rc1' -> (2, 21, 0)."""
    parts = []
    for piece in version.split("."):
        digits = re.match(r"\d+", piece)
        if digits is None:
            break
        parts.append(int(digits.group()))
        if digits.end() != len(piece):
            break
    return tuple(parts)


if _version_tuple(getattr(tensorboard, "__version__", "0")) < (1, 15):
    raise ImportError("TensorBoard logging requires TensorBoard version 1.15 or above")

del tensorboard

from tensorboard.summary.writer.record_writer import RecordWriter  # noqa: E402

from minitorch.utils.tensorboard.writer import FileWriter, SummaryWriter  # noqa: E402

__all__ = ["FileWriter", "RecordWriter", "SummaryWriter"]
