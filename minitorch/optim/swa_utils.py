"""Weight averaging: AveragedModel (SWA, EMA), SWALR, update_bn. Mirrors torch.optim.swa_utils."""

from __future__ import annotations

import itertools
import math
import warnings
from copy import deepcopy
from typing import Any

import minitorch
from minitorch._tensor import Tensor
from minitorch.autograd.grad_mode import no_grad
from minitorch.nn.modules.module import Module
from minitorch.optim._lr_base import LRScheduler, _format_param

__all__ = [
    "AveragedModel",
    "update_bn",
    "SWALR",
    "get_ema_multi_avg_fn",
    "get_swa_multi_avg_fn",
    "get_ema_avg_fn",
    "get_swa_avg_fn",
]


def _check_decay(decay) -> None:
    if decay < 0.0 or decay > 1.0:
        raise ValueError(
            f"Invalid decay value {decay} provided. Please provide a value in [0,1] range."
        )


def get_ema_avg_fn(decay=0.999):
    """avg_fn for an exponential moving average: decay * avg + (1 - decay) * current."""
    _check_decay(decay)

    @no_grad()
    def ema_update(ema_param: Tensor, current_param: Tensor, num_averaged):
        return decay * ema_param + (1 - decay) * current_param

    return ema_update


def get_swa_avg_fn():
    """avg_fn for the running mean: avg + (current - avg) / (n + 1)."""

    @no_grad()
    def swa_update(averaged_param: Tensor, current_param: Tensor, num_averaged):
        return averaged_param + (current_param - averaged_param) / (num_averaged + 1)

    return swa_update


def _floating_or_complex(t: Tensor) -> bool:
    return minitorch.is_floating_point(t) or minitorch.is_complex(t)


def get_ema_multi_avg_fn(decay=0.999):
    """The EMA as an in-place update of lists of tensors of one dtype (a group of
    AveragedModel's), by _foreach_lerp_ for float ones, as torch writes it: given as avg_fn
    (tensors, not lists) it fails as torch's does."""
    _check_decay(decay)

    @no_grad()
    def ema_update(ema_param_list, current_param_list, _) -> None:
        if _floating_or_complex(ema_param_list[0]):
            minitorch._foreach_lerp_(ema_param_list, current_param_list, 1 - decay)
        else:
            for p_ema, p_model in zip(ema_param_list, current_param_list, strict=True):
                p_ema.copy_(p_ema * decay + p_model * (1 - decay))

    return ema_update


def get_swa_multi_avg_fn():
    """The running mean as an in-place update of lists of tensors of one dtype, as torch
    writes it: _foreach_lerp_ for float ones, _foreach_addcdiv_ for integer ones (which
    refuses them, as torch's: BatchNorm's num_batches_tracked with use_buffers=True)."""

    @no_grad()
    def swa_update(averaged_param_list, current_param_list, num_averaged) -> None:
        if _floating_or_complex(averaged_param_list[0]):
            weight = 1 / (num_averaged + 1)  # a float32 tensor for a tensor count, as in torch
            minitorch._foreach_lerp_(averaged_param_list, current_param_list, weight)
        else:
            diffs = minitorch._foreach_sub(current_param_list, averaged_param_list)
            if isinstance(num_averaged, Tensor):
                counts = [num_averaged + 1] * len(averaged_param_list)
                minitorch._foreach_addcdiv_(averaged_param_list, diffs, counts)
            else:
                minitorch._foreach_add_(averaged_param_list, diffs, alpha=1.0 / (num_averaged + 1))

    return swa_update


def _group_by_device_and_dtype(averaged: list, current: list) -> list:
    """(averaged, current) lists per (device, dtype) of the averaged tensors, the group seen last
    first: the order torch's C++ grouping gives a model's few dtypes (e.g. the int64
    num_batches_tracked buffers before the float parameters), so a multi_avg_fn sees the same
    calls as in torch."""
    groups: dict = {}
    for a, c in zip(averaged, current, strict=True):
        avg_group, cur_group = groups.setdefault((str(a.device), a.dtype), ([], []))
        avg_group.append(a)
        cur_group.append(c)
    return list(reversed(groups.values()))


class AveragedModel(Module):
    """A copy of `model` whose parameters (and, with use_buffers, buffers) are averaged over
    update_parameters() calls: the running mean by default (SWA), or avg_fn / multi_avg_fn
    (e.g. get_ema_multi_avg_fn()). Mirrors torch.optim.swa_utils.AveragedModel.

    The first update copies the model in. Differences from torch: the default average is the
    same formula (get_swa_avg_fn) on every device; with n_averaged on a GPU the first update is
    chosen there with `where` rather than by reading the counter back, so avg_fn /
    multi_avg_fn also run (with n = 0) on that first call, their result discarded.
    """

    def __init__(
        self, model: Module, device=None, avg_fn=None, multi_avg_fn=None, use_buffers: bool = False
    ) -> None:
        super().__init__()
        if avg_fn is not None and multi_avg_fn is not None:
            raise AssertionError("Only one of avg_fn and multi_avg_fn should be provided")
        self.module = deepcopy(model)
        if device is not None:
            self.module = self.module.to(device)
        self.register_buffer("n_averaged", minitorch.tensor(0, dtype=minitorch.long, device=device))
        self.avg_fn = avg_fn
        self.multi_avg_fn = multi_avg_fn
        self.use_buffers = use_buffers

    def forward(self, *args, **kwargs):
        return self.module(*args, **kwargs)

    def _tensors(self, model: Module):
        if self.use_buffers:
            return list(itertools.chain(model.parameters(), model.buffers()))
        return list(model.parameters())

    @no_grad()
    def update_parameters(self, model: Module) -> None:
        """Folds `model`'s current values into the average."""
        # as many pairs as the shorter model has tensors, as torch's zip pairs them
        pairs = zip(self._tensors(self.module), self._tensors(model), strict=False)
        averaged, current = [], []
        for a, p in pairs:
            averaged.append(a.detach())
            current.append(p.detach().to(a.device))
        if averaged and self.n_averaged.device.type == "cpu":
            # host memory: read the count as torch does, so the first call only copies and
            # avg_fn / multi_avg_fn first see n = 1 (a user's 1 / n works)
            if int(self.n_averaged) == 0:
                for a, c in zip(averaged, current, strict=True):
                    a.copy_(c)
            elif self.multi_avg_fn is not None:
                for avg_group, cur_group in _group_by_device_and_dtype(averaged, current):
                    self.multi_avg_fn(avg_group, cur_group, self.n_averaged.to(avg_group[0].device))
            else:
                avg_fn = self.avg_fn if self.avg_fn is not None else get_swa_avg_fn()
                for a, c in zip(averaged, current, strict=True):
                    a.copy_(avg_fn(a, c, self.n_averaged.to(a.device)))
        elif averaged:
            n = self.n_averaged.to(averaged[0].device)
            first = n == 0
            if self.multi_avg_fn is not None:
                for avg_group, cur_group in _group_by_device_and_dtype(averaged, current):
                    self.multi_avg_fn(avg_group, cur_group, n)
                for a, c in zip(averaged, current, strict=True):
                    a.copy_(minitorch.where(first, c, a))
            else:
                avg_fn = self.avg_fn if self.avg_fn is not None else get_swa_avg_fn()
                for a, c in zip(averaged, current, strict=True):
                    a.copy_(minitorch.where(first, c, avg_fn(a, c, n)))
        if not self.use_buffers:
            for b_avg, b_model in zip(self.module.buffers(), model.buffers(), strict=True):
                b_avg.detach().copy_(b_model.detach().to(b_avg.device))
        self.n_averaged += 1


@no_grad()
def update_bn(loader, model: Module, device=None) -> None:
    """Recomputes the BatchNorm running statistics of `model` with one pass over `loader`
    (cumulative averages: momentum None). Mirrors torch.optim.swa_utils.update_bn."""
    from minitorch.nn.modules.batchnorm import _BatchNorm

    momenta = {}
    for module in model.modules():
        if isinstance(module, _BatchNorm):
            module.reset_running_stats()
            momenta[module] = module.momentum
    if not momenta:
        return
    was_training = model.training
    model.train()
    for module in momenta:
        module.momentum = None
    for input in loader:
        if isinstance(input, (list, tuple)):
            input = input[0]
        if device is not None:
            input = input.to(device)
        model(input)
    for module, momentum in momenta.items():
        module.momentum = momentum
    model.train(was_training)


class SWALR(LRScheduler):
    """Anneals each group's lr to its swa_lr over anneal_epochs (cos or linear), then holds it.
    Mirrors torch.optim.swa_utils.SWALR."""

    def __init__(
        self, optimizer, swa_lr, anneal_epochs=10, anneal_strategy: str = "cos", last_epoch=-1
    ) -> None:
        swa_lrs = _format_param("swa_lr", optimizer, swa_lr)
        for lr, group in zip(swa_lrs, optimizer.param_groups, strict=True):
            group["swa_lr"] = lr
        if anneal_strategy not in ["cos", "linear"]:
            raise ValueError(
                f"anneal_strategy must be one of 'cos' or 'linear', instead got {anneal_strategy}"
            )
        self._set_anneal_func(anneal_strategy)
        if not isinstance(anneal_epochs, int) or anneal_epochs < 0:
            raise ValueError(f"anneal_epochs must be equal or greater than 0, got {anneal_epochs}")
        self.anneal_epochs = anneal_epochs
        super().__init__(optimizer, last_epoch)

    @staticmethod
    def _linear_anneal(t):
        return t

    @staticmethod
    def _cosine_anneal(t):
        return (1 - math.cos(math.pi * t)) / 2

    @staticmethod
    def _get_initial_lr(lr, swa_lr, alpha):
        if alpha == 1:
            return swa_lr
        return (lr - alpha * swa_lr) / (1 - alpha)

    def get_lr(self) -> list:
        if not self._get_lr_called_within_step:
            warnings.warn(
                "To get the last learning rate computed by the scheduler, please use "
                "`get_last_lr()`.",
                UserWarning,
                stacklevel=2,
            )
        step = self._step_count - 1
        if self.anneal_epochs == 0:
            step = max(1, step)
        # Undo the previous step's blend to recover the lr being annealed from, then blend again.
        prev_alpha = self.anneal_func(max(0, min(1, (step - 1) / max(1, self.anneal_epochs))))
        groups = self.optimizer.param_groups
        prev_lrs = [self._get_initial_lr(g["lr"], g["swa_lr"], prev_alpha) for g in groups]
        alpha = self.anneal_func(max(0, min(1, step / max(1, self.anneal_epochs))))
        return [
            g["swa_lr"] * alpha + lr * (1 - alpha) for g, lr in zip(groups, prev_lrs, strict=True)
        ]

    def _set_anneal_func(self, anneal_strategy: str) -> None:
        self._anneal_strategy = anneal_strategy
        self.anneal_func = self._cosine_anneal if anneal_strategy == "cos" else self._linear_anneal

    def state_dict(self) -> dict[str, Any]:
        return {k: v for k, v in self.__dict__.items() if k not in ("optimizer", "anneal_func")}

    def load_state_dict(self, state_dict: dict[str, Any]) -> None:
        self.__dict__.update(state_dict)
        self._set_anneal_func(self._anneal_strategy)
