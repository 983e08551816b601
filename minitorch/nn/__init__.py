"""minitorch.nn: modules, parameters, initialisation. Mirrors torch.nn."""

from minitorch.nn.parameter import (  # noqa: F401  # isort: skip
    Buffer,
    Parameter,
    UninitializedBuffer,
    UninitializedParameter,
)
from minitorch.nn import init  # noqa: F401  # isort: skip  (the layers use it)
from minitorch.nn import functional  # noqa: F401  # isort: skip  (the layers use it)
from minitorch.nn import (  # noqa: F401
    attention,
    grad,
    parallel,  # noqa: F401
    utils,
)
from minitorch.nn.modules import *  # noqa: F403
from minitorch.nn.parallel import DataParallel  # noqa: F401
