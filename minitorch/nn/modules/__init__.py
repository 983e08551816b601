"""The layers: Module, containers and every built-in module class."""

from minitorch.nn.modules.module import (  # isort: skip  (first: the others subclass Module)
    Module,
    register_module_backward_hook,
    register_module_buffer_registration_hook,
    register_module_forward_hook,
    register_module_forward_pre_hook,
    register_module_full_backward_hook,
    register_module_full_backward_pre_hook,
    register_module_module_registration_hook,
    register_module_parameter_registration_hook,
)

# channelshuffle, fold, instancenorm: torch's module paths for classes kept in another file here
from minitorch.nn.modules import channelshuffle, fold, instancenorm, utils  # noqa: F401
from minitorch.nn.modules.activation import *  # noqa: F403
from minitorch.nn.modules.adaptive import *  # noqa: F403
from minitorch.nn.modules.batchnorm import *  # noqa: F403
from minitorch.nn.modules.container import (
    Container,
    ModuleDict,
    ModuleList,
    ParameterDict,
    ParameterList,
    Sequential,
)
from minitorch.nn.modules.conv import *  # noqa: F403
from minitorch.nn.modules.distance import *  # noqa: F403
from minitorch.nn.modules.dropout import *  # noqa: F403
from minitorch.nn.modules.flatten import Flatten, Unflatten
from minitorch.nn.modules.lazy import *  # noqa: F403
from minitorch.nn.modules.linear import Bilinear, Identity, Linear
from minitorch.nn.modules.linear_cross_entropy import *  # noqa: F403
from minitorch.nn.modules.loss import *  # noqa: F403
from minitorch.nn.modules.normalization import *  # noqa: F403
from minitorch.nn.modules.padding import *  # noqa: F403
from minitorch.nn.modules.pixelshuffle import *  # noqa: F403
from minitorch.nn.modules.pooling import *  # noqa: F403
from minitorch.nn.modules.rnn import *  # noqa: F403
from minitorch.nn.modules.sparse import *  # noqa: F403
from minitorch.nn.modules.transformer import *  # noqa: F403
from minitorch.nn.modules.upsampling import *  # noqa: F403

__all__ = [
    "Module",
    "Container",
    "Sequential",
    "ModuleList",
    "ModuleDict",
    "ParameterList",
    "ParameterDict",
    "Identity",
    "Linear",
    "Bilinear",
    "Flatten",
    "Unflatten",
    "register_module_forward_pre_hook",
    "register_module_forward_hook",
    "register_module_full_backward_pre_hook",
    "register_module_backward_hook",
    "register_module_full_backward_hook",
    "register_module_buffer_registration_hook",
    "register_module_module_registration_hook",
    "register_module_parameter_registration_hook",
]
# Named explicitly (not through the submodules' binding as attributes of this package), so that
# this file also runs when the package is imported under another name (sys.modules["torch"] =
# minitorch, then `import torch.nn.modules.conv`: a second copy of the package, whose namespace
# the submodule imports above do not fill).
from minitorch.nn.modules import (  # noqa: E402
    activation,
    adaptive,
    batchnorm,
    conv,
    distance,
    dropout,
    lazy,
    linear_cross_entropy,
    loss,
    normalization,
    padding,
    pixelshuffle,
    pooling,
    rnn,
    sparse,
    transformer,
    upsampling,
)

__all__ += conv.__all__ + padding.__all__ + pixelshuffle.__all__
__all__ += pooling.__all__ + upsampling.__all__ + rnn.__all__ + transformer.__all__
__all__ += adaptive.__all__
__all__ += activation.__all__ + batchnorm.__all__ + distance.__all__ + dropout.__all__
__all__ += loss.__all__ + normalization.__all__ + sparse.__all__ + lazy.__all__
__all__ += linear_cross_entropy.__all__
