"""Identity, Linear and Bilinear layers."""

from __future__ import annotations

import math

from minitorch._factories import empty
from minitorch._tensor import Tensor
from minitorch.nn import functional as F
from minitorch.nn import init
from minitorch.nn.modules.module import Module
from minitorch.nn.parameter import Parameter

__all__ = ["Identity", "Linear", "Bilinear"]


class Identity(Module):
    """Returns its input; accepts and ignores any constructor arguments. Mirrors
    torch.nn.Identity."""

    def __init__(self, *args, **kwargs) -> None:
        super().__init__()

    def forward(self, input: Tensor) -> Tensor:
        return input


class Linear(Module):
    """y = x @ weight.T + bias, weight of shape (out_features, in_features). Mirrors
    torch.nn.Linear, including its default initialisation: weight ~ kaiming_uniform_(a=sqrt(5)),
    i.e. U(-1/sqrt(in_features), 1/sqrt(in_features)), and bias ~ the same bound."""

    __constants__ = ["in_features", "out_features"]

    def __init__(
        self, in_features: int, out_features: int, bias: bool = True, device=None, dtype=None
    ) -> None:
        super().__init__()
        self.in_features = in_features
        self.out_features = out_features
        self.weight = Parameter(empty((out_features, in_features), device=device, dtype=dtype))
        if bias:
            self.bias = Parameter(empty(out_features, device=device, dtype=dtype))
        else:
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        init.kaiming_uniform_(self.weight, a=math.sqrt(5))
        if self.bias is not None:
            fan_in, _ = init._calculate_fan_in_and_fan_out(self.weight)
            bound = 1 / math.sqrt(fan_in) if fan_in > 0 else 0
            init.uniform_(self.bias, -bound, bound)

    # NOTE [ Parameters read from their registry ]
    # `self.weight` finds a parameter through Module.__getattr__, which Python calls only after
    # its own lookup failed: about 0.45 us a read, twice a call, as much as the rest of the
    # module call. A Linear itself (its class has no such attribute, and Module.__setattr__
    # keeps a parameter's name out of __dict__) reads the registry, which is what __getattr__
    # would return; a subclass (it may define a `weight` property, as parametrize's generated
    # classes do) and a name moved out of the registry (weight_norm, prune) take the lookup.
    def forward(self, input: Tensor) -> Tensor:
        if self.__class__ is Linear:  # NOTE [ Parameters read from their registry ]
            params = self._parameters
            try:
                weight, bias = params["weight"], params["bias"]
            except KeyError:  # (free unless raised) moved out of it: weight_norm, prune
                weight, bias = self.weight, self.bias
        else:
            weight, bias = self.weight, self.bias
        return F.linear(input, weight, bias)

    def extra_repr(self) -> str:
        return (
            f"in_features={self.in_features}, out_features={self.out_features}, "
            f"bias={self.bias is not None}"
        )


class NonDynamicallyQuantizableLinear(Linear):
    """A Linear under torch's name for MultiheadAttention.out_proj (torch's quantization tools
    skip it by this type; here it only shows in the repr and in pickles). Mirrors
    torch.nn.modules.linear.NonDynamicallyQuantizableLinear."""


class Bilinear(Module):
    """y = x1^T A x2 + b, weight A of shape (out_features, in1_features, in2_features). Mirrors
    torch.nn.Bilinear, including its default initialisation: weight and bias ~
    U(-1/sqrt(in1_features), 1/sqrt(in1_features))."""

    __constants__ = ["in1_features", "in2_features", "out_features"]

    def __init__(
        self,
        in1_features: int,
        in2_features: int,
        out_features: int,
        bias: bool = True,
        device=None,
        dtype=None,
    ) -> None:
        super().__init__()
        self.in1_features = in1_features
        self.in2_features = in2_features
        self.out_features = out_features
        self.weight = Parameter(
            empty((out_features, in1_features, in2_features), device=device, dtype=dtype)
        )
        if bias:
            self.bias = Parameter(empty(out_features, device=device, dtype=dtype))
        else:
            self.register_parameter("bias", None)
        if in1_features <= 0:  # (the initial bound divides by its square root)
            raise ValueError(f"in1_features must be > 0, but got (in1_features={in1_features})")
        self.reset_parameters()

    def reset_parameters(self) -> None:
        bound = 1 / math.sqrt(self.weight.shape[1])
        init.uniform_(self.weight, -bound, bound)
        if self.bias is not None:
            init.uniform_(self.bias, -bound, bound)

    def forward(self, input1: Tensor, input2: Tensor) -> Tensor:
        return F.bilinear(input1, input2, self.weight, self.bias)

    def extra_repr(self) -> str:
        return (
            f"in1_features={self.in1_features}, in2_features={self.in2_features}, "
            f"out_features={self.out_features}, bias={self.bias is not None}"
        )
