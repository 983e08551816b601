"""Build information. Mirrors torch.version (this package's version; no CUDA or ROCm build)."""

from __future__ import annotations

from minitorch import __version__ as _version

__version__ = str(_version)  # a plain str here, as torch.version's

__all__ = ["__version__", "cuda", "hip", "rocm", "xpu", "debug", "git_version"]

# minitorch reaches a GPU through CuPy at run time, so no CUDA version is compiled in:
# minitorch.cuda.is_available() is the question to ask.
cuda = None
hip = None
rocm = None
xpu = None
debug = False
git_version = "unknown"
