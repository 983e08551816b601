"""BatchNorm1d/2d/3d and InstanceNorm1d/2d/3d: per-channel normalisation with running statistics.

NOTE [ Running statistics without host reads ]
Running stats are buffers updated in place under no_grad by nn.functional.batch_norm with the
unbiased batch variance, as torch does. With momentum=None torch uses the cumulative average,
factor 1 / num_batches_tracked, which it reads back as a Python float; here the factor stays a
device tensor, so training never synchronises.
"""

from __future__ import annotations

import warnings

from minitorch import _dtype
from minitorch._factories import empty, ones, tensor, zeros
from minitorch._tensor import Tensor
from minitorch.nn import functional as F
from minitorch.nn import init
from minitorch.nn.modules._naming import own_methods
from minitorch.nn.modules.module import Module
from minitorch.nn.parameter import Parameter

__all__ = [
    "BatchNorm1d", "BatchNorm2d", "BatchNorm3d", "SyncBatchNorm", "InstanceNorm1d",
    "InstanceNorm2d", "InstanceNorm3d",
]  # fmt: skip


class _NormBase(Module):
    """Parameters (weight ones, bias zeros when affine) and running-stat buffers
    (running_mean, running_var, num_batches_tracked when track_running_stats). Mirrors torch's
    _NormBase, including its state_dict version 2 (num_batches_tracked)."""

    _version = 2
    __constants__ = ["track_running_stats", "momentum", "eps", "num_features", "affine"]

    def __init__(
        self,
        num_features: int,
        eps: float = 1e-5,
        momentum: float | None = 0.1,
        affine: bool = True,
        track_running_stats: bool = True,
        device=None,
        dtype=None,
        *,
        bias: bool = True,
    ) -> None:
        super().__init__()
        self.num_features = num_features
        self.eps = eps
        self.momentum = momentum
        self.affine = affine
        self.track_running_stats = track_running_stats
        if affine:
            self.weight = Parameter(empty(num_features, device=device, dtype=dtype))
            if bias:
                self.bias = Parameter(empty(num_features, device=device, dtype=dtype))
            else:
                self.register_parameter("bias", None)
        else:
            self.register_parameter("weight", None)
            self.register_parameter("bias", None)
        if track_running_stats:
            self.register_buffer("running_mean", zeros(num_features, device=device, dtype=dtype))
            self.register_buffer("running_var", ones(num_features, device=device, dtype=dtype))
            self.register_buffer(
                "num_batches_tracked", tensor(0, dtype=_dtype.int64, device=device)
            )
        else:
            self.register_buffer("running_mean", None)
            self.register_buffer("running_var", None)
            self.register_buffer("num_batches_tracked", None)
        self.reset_parameters()

    def reset_running_stats(self) -> None:
        if self.track_running_stats:
            self.running_mean.zero_()
            self.running_var.fill_(1)
            self.num_batches_tracked.zero_()

    def reset_parameters(self) -> None:
        self.reset_running_stats()
        if self.affine:
            init.ones_(self.weight)
            if self.bias is not None:
                init.zeros_(self.bias)

    def _check_input_dim(self, input: Tensor) -> None:
        raise NotImplementedError

    def extra_repr(self) -> str:
        return (
            f"{self.num_features}, eps={self.eps}, momentum={self.momentum}, "
            f"affine={self.affine}, bias={self.bias is not None}, "
            f"track_running_stats={self.track_running_stats}"
        )

    def _load_from_state_dict(
        self, state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys, error_msgs
    ) -> None:
        version = local_metadata.get("version", None)
        if (version is None or version < 2) and self.track_running_stats:
            # state dicts from before num_batches_tracked existed: start it at 0
            key = prefix + "num_batches_tracked"
            if key not in state_dict:
                state_dict[key] = (
                    self.num_batches_tracked
                    if self.num_batches_tracked is not None
                    else tensor(0, dtype=_dtype.int64)
                )
        super()._load_from_state_dict(
            state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys, error_msgs
        )


class _BatchNorm(_NormBase):
    def forward(self, input: Tensor) -> Tensor:
        self._check_input_dim(input)
        # each registered attribute read once (a buffer or parameter is a Module.__getattr__
        # call): the same values as reading them where used, nothing here changes them
        momentum, training = self.momentum, self.training
        running_mean, running_var = self.running_mean, self.running_var
        factor = 0.0 if momentum is None else momentum
        if training and self.track_running_stats:
            batches = self.num_batches_tracked
            if batches is not None:
                batches.add_(1)
                if momentum is None:  # cumulative average: see NOTE [ Running statistics ... ]
                    # torch's factor is a Python float, read in float32 by its half kernels
                    dt = running_mean.dtype
                    dt = _dtype.float32 if dt in _dtype.HALF_FLOATS else dt
                    factor = 1.0 / batches.to(dt)
        use_batch_stats = training or (running_mean is None and running_var is None)
        keep = not training or self.track_running_stats
        return F.batch_norm(
            input,
            running_mean if keep else None,
            running_var if keep else None,
            self.weight,
            self.bias,
            use_batch_stats,
            factor,
            self.eps,
        )


own_methods(_BatchNorm, "__init__")  # torch's BatchNorm2d() error names _BatchNorm.__init__()


class BatchNorm1d(_BatchNorm):
    """Batch normalisation of (N, C) or (N, C, L) inputs. Mirrors torch.nn.BatchNorm1d."""

    def _check_input_dim(self, input: Tensor) -> None:
        if input.dim() not in (2, 3):  # dim(): a non-tensor fails as in torch
            raise ValueError(f"expected 2D or 3D input (got {input.ndim}D input)")


class BatchNorm2d(_BatchNorm):
    """Batch normalisation of (N, C, H, W) inputs. Mirrors torch.nn.BatchNorm2d."""

    def _check_input_dim(self, input: Tensor) -> None:
        if input.dim() != 4:
            raise ValueError(f"expected 4D input (got {input.ndim}D input)")


class BatchNorm3d(_BatchNorm):
    """Batch normalisation of (N, C, D, H, W) inputs. Mirrors torch.nn.BatchNorm3d."""

    def _check_input_dim(self, input: Tensor) -> None:
        if input.dim() != 5:
            raise ValueError(f"expected 5D input (got {input.ndim}D input)")


class SyncBatchNorm(_BatchNorm):
    """Batch normalisation over any (N, C, ...) input. Mirrors torch.nn.SyncBatchNorm.

    Differences from torch: minitorch has no process groups, so the statistics are the local
    batch's (what torch computes without an initialised process group); process_group is
    accepted and kept."""

    def __init__(
        self,
        num_features: int,
        eps: float = 1e-5,
        momentum: float | None = 0.1,
        affine: bool = True,
        track_running_stats: bool = True,
        process_group=None,
        device=None,
        dtype=None,
        *,
        bias: bool = True,
    ) -> None:
        super().__init__(
            num_features, eps, momentum, affine, track_running_stats, device, dtype, bias=bias
        )
        self.process_group = process_group

    def _check_input_dim(self, input: Tensor) -> None:
        if input.dim() < 2:
            raise ValueError(f"expected at least 2D input (got {input.ndim}D input)")

    @classmethod
    def convert_sync_batchnorm(cls, module: Module, process_group=None) -> Module:
        """module with every BatchNorm*d inside (or itself) replaced by a SyncBatchNorm holding
        the same parameters, buffers and mode. Mirrors
        torch.nn.SyncBatchNorm.convert_sync_batchnorm."""
        out = module
        if isinstance(module, _BatchNorm) and not isinstance(module, SyncBatchNorm):
            out = cls(
                module.num_features,
                module.eps,
                module.momentum,
                module.affine,
                module.track_running_stats,
                process_group,
            )
            if module.affine:
                out.weight = module.weight
                out.bias = module.bias
            out.running_mean = module.running_mean
            out.running_var = module.running_var
            out.num_batches_tracked = module.num_batches_tracked
            out.training = module.training
        for name, child in module.named_children():
            out.add_module(name, cls.convert_sync_batchnorm(child, process_group))
        return out


class _InstanceNorm(_NormBase):
    _no_batch_dim = 0  # the dims of an unbatched input

    def __init__(
        self,
        num_features: int,
        eps: float = 1e-5,
        momentum: float = 0.1,
        affine: bool = False,
        track_running_stats: bool = False,
        device=None,
        dtype=None,
        *,
        bias: bool = True,
    ) -> None:
        super().__init__(
            num_features, eps, momentum, affine, track_running_stats, device, dtype, bias=bias
        )

    def _load_from_state_dict(
        self, state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys, error_msgs
    ) -> None:
        # Before torch 0.4 InstanceNorm always kept running stats; a state dict without version
        # metadata that still has them gets an error explaining why (even with strict=False, as
        # torch), and the keys are dropped so they are not reported again as unexpected.
        if local_metadata.get("version", None) is None and not self.track_running_stats:
            stale = [
                prefix + name
                for name in ("running_mean", "running_var")
                if prefix + name in state_dict
            ]
            if stale:
                klass = type(self).__name__
                names = " and ".join(f'"{k}"' for k in stale)
                error_msgs.append(
                    f"Unexpected running stats buffer(s) {names} for {klass} with "
                    "track_running_stats=False. If state_dict is a checkpoint saved before "
                    f"0.4.0, this may be expected because {klass} does not track running stats "
                    "by default since 0.4.0. Please remove these keys from state_dict. If the "
                    "running stats are actually needed, instead set track_running_stats=True in "
                    f"{klass} to enable them. See the documentation of {klass} for details."
                )
                for key in stale:
                    state_dict.pop(key)
        super()._load_from_state_dict(
            state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys, error_msgs
        )

    def _check_input_dim(self, input: Tensor) -> None:
        n = self._no_batch_dim
        if input.dim() not in (n, n + 1):
            raise ValueError(f"expected {n}D or {n + 1}D input (got {input.ndim}D input)")

    def _apply_instance_norm(self, input: Tensor) -> Tensor:
        return F.instance_norm(
            input,
            self.running_mean,
            self.running_var,
            self.weight,
            self.bias,
            self.training or not self.track_running_stats,
            self.momentum if self.momentum is not None else 0.0,
            self.eps,
        )

    def forward(self, input: Tensor) -> Tensor:
        self._check_input_dim(input)
        feature_dim = input.ndim - self._no_batch_dim
        if input.shape[feature_dim] != self.num_features:
            if self.affine:
                raise ValueError(
                    f"expected input's size at dim={feature_dim} to match num_features "
                    f"({self.num_features}), but got: {input.shape[feature_dim]}."
                )
            warnings.warn(
                f"input's size at dim={feature_dim} does not match num_features. You can "
                "silence this warning by not passing in num_features, which is not used "
                "because affine=False",
                UserWarning,
                stacklevel=2,
            )
        if input.ndim == self._no_batch_dim:
            return self._apply_instance_norm(input.unsqueeze(0)).squeeze(0)
        return self._apply_instance_norm(input)


class InstanceNorm1d(_InstanceNorm):
    """Instance normalisation of (N, C, L) or (C, L) inputs. Mirrors torch.nn.InstanceNorm1d."""

    _no_batch_dim = 2


class InstanceNorm2d(_InstanceNorm):
    """Instance normalisation of (N, C, H, W) or (C, H, W) inputs. Mirrors
    torch.nn.InstanceNorm2d."""

    _no_batch_dim = 3


class InstanceNorm3d(_InstanceNorm):
    """Instance normalisation of (N, C, D, H, W) or (C, D, H, W) inputs. Mirrors
    torch.nn.InstanceNorm3d."""

    _no_batch_dim = 4


for _cls in (_InstanceNorm, InstanceNorm1d, InstanceNorm2d, InstanceNorm3d):
    _cls.__module__ = "minitorch.nn.modules.instancenorm"  # torch's path, which type() shows


# torch's classes each define forward: a wrong call's TypeError names theirs
own_methods(SyncBatchNorm, "forward")
