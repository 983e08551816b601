"""Padding layers: zero, constant, reflection, replication and circular (1-d, 2-d, 3-d)."""

from __future__ import annotations

from minitorch._tensor import Tensor
from minitorch.nn import _functional_pad as F
from minitorch.nn.modules._naming import own_methods
from minitorch.nn.modules.module import Module
from minitorch.nn.modules.utils import _ntuple

__all__ = [
    "ZeroPad1d", "ZeroPad2d", "ZeroPad3d", "ConstantPad1d", "ConstantPad2d", "ConstantPad3d",
    "ReflectionPad1d", "ReflectionPad2d", "ReflectionPad3d", "ReplicationPad1d",
    "ReplicationPad2d", "ReplicationPad3d", "CircularPad1d", "CircularPad2d", "CircularPad3d",
]  # fmt: skip


def _pairs(padding, n: int) -> tuple:
    """An int (the same on every side) or a (left, right, top, bottom, ...) tuple; as torch's
    _pair/_quadruple, any non-iterable is repeated (F.pad refuses a float at forward)."""
    return _ntuple(2 * n)(padding)


class _ConstantPadNd(Module):
    __constants__ = ["padding", "value"]
    _n = 1

    def __init__(self, padding, value: float) -> None:
        super().__init__()
        self.padding = _pairs(padding, self._n)
        self.value = value

    def forward(self, input: Tensor) -> Tensor:
        return F.pad(input, self.padding, "constant", self.value)

    def extra_repr(self) -> str:
        return f"padding={self.padding}, value={self.value}"


class ConstantPad1d(_ConstantPadNd):
    """Pads the last dim with a constant. Mirrors torch.nn.ConstantPad1d."""

    _n = 1


class ConstantPad2d(_ConstantPadNd):
    """Pads the last 2 dims with a constant. Mirrors torch.nn.ConstantPad2d."""

    _n = 2


class ConstantPad3d(_ConstantPadNd):
    """Mirrors torch.nn.ConstantPad3d."""

    _n = 3


class _ZeroPadNd(_ConstantPadNd):
    def __init__(self, padding) -> None:
        super().__init__(padding, 0.0)

    def extra_repr(self) -> str:
        return f"{self.padding}"


class ZeroPad1d(_ZeroPadNd):
    """Mirrors torch.nn.ZeroPad1d."""

    _n = 1


class ZeroPad2d(_ZeroPadNd):
    """Pads the last 2 dims with zeros (left, right, top, bottom). Mirrors torch.nn.ZeroPad2d."""

    _n = 2


class ZeroPad3d(_ZeroPadNd):
    """Mirrors torch.nn.ZeroPad3d."""

    _n = 3


class _ModePadNd(Module):
    __constants__ = ["padding"]
    _n = 1
    _mode = "reflect"

    def __init__(self, padding) -> None:
        super().__init__()
        self.padding = _pairs(padding, self._n)

    def forward(self, input: Tensor) -> Tensor:
        return F.pad(input, self.padding, self._mode)

    def extra_repr(self) -> str:
        return f"{self.padding}"


class _ReflectionPadNd(_ModePadNd):
    """The base of ReflectionPad1d/2d/3d (isinstance checks name it, as in torch)."""

    _mode = "reflect"


class _ReplicationPadNd(_ModePadNd):
    """The base of ReplicationPad1d/2d/3d (isinstance checks name it, as in torch)."""

    _mode = "replicate"


def _mode_pad(name: str, n: int, base: type, doc: str):
    return type(name, (base,), {"_n": n, "__doc__": doc, "__module__": __name__})


ReflectionPad1d = _mode_pad(
    "ReflectionPad1d", 1, _ReflectionPadNd, "Mirrors torch.nn.ReflectionPad1d."
)
ReflectionPad2d = _mode_pad(
    "ReflectionPad2d", 2, _ReflectionPadNd, "Mirrors torch.nn.ReflectionPad2d."
)
ReflectionPad3d = _mode_pad(
    "ReflectionPad3d", 3, _ReflectionPadNd, "Mirrors torch.nn.ReflectionPad3d."
)
ReplicationPad1d = _mode_pad(
    "ReplicationPad1d", 1, _ReplicationPadNd, "Mirrors torch.nn.ReplicationPad1d."
)
ReplicationPad2d = _mode_pad(
    "ReplicationPad2d", 2, _ReplicationPadNd, "Mirrors torch.nn.ReplicationPad2d."
)
ReplicationPad3d = _mode_pad(
    "ReplicationPad3d", 3, _ReplicationPadNd, "Mirrors torch.nn.ReplicationPad3d."
)


class _CircularPadNd(_ModePadNd):
    _mode = "circular"

    def _check_input_dim(self, input: Tensor) -> None:
        # torch's circular modules check the rank themselves (ValueError), where F.pad's own
        # check would raise NotImplementedError or RuntimeError
        n = input.dim()
        if n not in (self._n + 1, self._n + 2):
            raise ValueError(f"expected {self._n + 1}D or {self._n + 2}D input (got {n}D input)")

    def forward(self, input: Tensor) -> Tensor:
        self._check_input_dim(input)
        return F.pad(input, self.padding, "circular")


class CircularPad1d(_CircularPadNd):
    """Mirrors torch.nn.CircularPad1d."""

    _n = 1


class CircularPad2d(_CircularPadNd):
    """Mirrors torch.nn.CircularPad2d."""

    _n = 2


class CircularPad3d(_CircularPadNd):
    """Mirrors torch.nn.CircularPad3d."""

    _n = 3


# torch's classes each define forward: a wrong call's TypeError names theirs
for _cls in (_ReflectionPadNd, _ReplicationPadNd):
    own_methods(_cls, "forward")
# ... and __init__: ZeroPad2d() names ZeroPad2d.__init__(), not the shared base's
for _cls in (
    ConstantPad1d, ConstantPad2d, ConstantPad3d, ZeroPad1d, ZeroPad2d, ZeroPad3d,
    ReflectionPad1d, ReflectionPad2d, ReflectionPad3d, ReplicationPad1d, ReplicationPad2d,
    ReplicationPad3d, CircularPad1d, CircularPad2d, CircularPad3d,
):  # fmt: skip
    own_methods(_cls, "__init__")
del _cls
