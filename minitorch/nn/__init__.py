"""minitorch.nn: modules, parameters, initialisation. Mirrors torch.nn."""

from minitorch.nn.parameter import (  # noqa: F401  # isort: skip
    Buffer,
    Parameter,
    UninitializedBuffer,
    UninitializedParameter,
)
from minitorch.nn import init  # noqa: F401  # isort: skip  (the layers use it)
from minitorch.nn import functional  # noqa: F401  # isort: skip  (the layers use it)
from minitorch.nn import attention, utils  # noqa: F401
from minitorch.nn.modules import *  # noqa: F403
