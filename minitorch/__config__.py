"""torch.__config__: how this build was made, as text for bug reports. Mirrors
torch.__config__.show and parallel_info."""

from __future__ import annotations

__all__ = ["show", "parallel_info"]


def show() -> str:
    """minitorch's "build" (it compiles nothing): its version and NumPy's, whose kernels it
    runs. Mirrors torch.__config__.show; the lines differ from torch's."""
    import numpy as np

    from minitorch import __version__
    from minitorch.backends import get_cpu_capability

    return (
        f"minitorch {__version__} (pure Python, nothing compiled) built with:\n"
        f"  - NumPy {np.__version__} (CPU kernels)\n"
        "  - CuPy for CUDA tensors when installed\n"
        f"  - CPU capability usage: {get_cpu_capability()}\n"
    )


def parallel_info() -> str:
    """The thread settings. Mirrors torch.__config__.parallel_info (shorter)."""
    from minitorch._settings import get_num_interop_threads, get_num_threads

    return (
        "ATen/Parallel:\n"
        f"\tat::get_num_threads() : {get_num_threads()}\n"
        f"\tat::get_num_interop_threads() : {get_num_interop_threads()}\n"
    )
