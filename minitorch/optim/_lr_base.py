"""LRScheduler, the base of the learning-rate schedulers, and the helpers they share."""

from __future__ import annotations

import warnings
from typing import Any

from minitorch._tensor import Tensor
from minitorch.optim.optimizer import Optimizer

__all__ = ["LRScheduler", "EPOCH_DEPRECATION_WARNING"]

EPOCH_DEPRECATION_WARNING = (
    "The epoch parameter in `scheduler.step()` was not necessary and is being deprecated where "
    "possible. Please use `scheduler.step()` to step the scheduler. During the deprecation, if "
    "epoch is different from None, the closed form is used instead of the new chainable form, "
    "where available. Please open an issue if you are unable to replicate your use case: "
    "https://github.com/pytorch/pytorch/issues/new/choose."
)


def _copy(value):
    return value.clone() if isinstance(value, Tensor) else value


def _format_param(name: str, optimizer: Optimizer, param) -> list:
    """One value per param group: a list/tuple checked for length, or a value repeated."""
    if isinstance(param, (list, tuple)):
        if len(param) != len(optimizer.param_groups):
            raise ValueError(
                f"{name} must have the same length as optimizer.param_groups. {name} has "
                f"{len(param)} values, param_groups has {len(optimizer.param_groups)}."
            )
    else:
        param = [param] * len(optimizer.param_groups)
    return [_copy(p) for p in param]


def _group_values(optimizer: Optimizer, key: str) -> list:
    """Each param group's `key` (tensors cloned, so later in-place updates don't alias)."""
    return [_copy(group[key]) for group in optimizer.param_groups]


def _set_group_value(group: dict, key: str, value) -> None:
    """A tensor hyperparameter is filled in place (keeps its identity); others are replaced."""
    if isinstance(group[key], Tensor):
        group[key].fill_(value.reshape(()) if isinstance(value, Tensor) else value)
    else:
        group[key] = value


# NOTE [ Param groups added after the scheduler ]
# A scheduler records one value per param group when it is built (base_lrs, lr_lambdas,
# CyclicLR's bounds). A group added later with add_param_group has none, so, as in torch, the
# schedulers pair groups with values through zip(..., strict=True): those whose new lr would
# need the missing values (LambdaLR, MultiplicativeLR, CyclicLR, CosineAnnealingWarmRestarts,
# CosineAnnealingLR at the bottom of a cosine, every closed form `step(epoch)`) raise
# ValueError at the next step instead of silently leaving the new group unscheduled; those
# that only scale each group's current lr (StepLR, ExponentialLR, ...) schedule it too.


class _Flag:
    """Sets a boolean attribute of a scheduler for the duration of a block."""

    def __init__(self, obj, name: str) -> None:
        self.obj, self.name = obj, name

    def __enter__(self):
        setattr(self.obj, self.name, True)

    def __exit__(self, *exc):
        setattr(self.obj, self.name, False)


class LRScheduler:
    """Base class: `last_epoch` counts steps, `base_lrs` are the groups' `initial_lr`, and
    step() writes get_lr() into the param groups. Mirrors torch.optim.lr_scheduler.LRScheduler
    (state_dict is every attribute but the optimizer)."""

    __module__ = "minitorch.optim.lr_scheduler"  # See NOTE [ Public module of core classes ]
    _get_lr_called_within_step: bool = False
    _is_initial: bool = False

    def __init__(self, optimizer: Optimizer, last_epoch: int = -1) -> None:
        if not isinstance(optimizer, Optimizer):
            raise TypeError(f"{type(optimizer).__name__} is not an Optimizer")
        self.optimizer = optimizer
        if last_epoch == -1:
            for group in optimizer.param_groups:
                group.setdefault("initial_lr", _copy(group["lr"]))
        else:
            for i, group in enumerate(optimizer.param_groups):
                if "initial_lr" not in group:
                    raise KeyError(
                        f"param 'initial_lr' is not specified in param_groups[{i}] when resuming "
                        "scheduler with last_epoch >= 0.\nThis typically happens when:\n"
                        "1. You're trying to resume training from a checkpoint but haven't "
                        "properly loaded the optimizer state\n2. You're using last_epoch >= 0 for "
                        "a fresh training run (not recommended)"
                    )
        self.base_lrs: list = _group_values(optimizer, "initial_lr")
        self.last_epoch = last_epoch
        if not optimizer.__dict__.get("_lr_sched_attached"):
            # torch counts optimizer.step() calls from the first scheduler's attachment on (it
            # wraps the instance's step then): a step taken before does not silence the warning
            optimizer._lr_sched_attached = True
            optimizer._opt_called = False
            optimizer._lr_sched_step = optimizer.__dict__.get("step")  # an instance override
        self._initial_step()

    def _initial_step(self) -> None:
        """Sets the lr for epoch 0 (the scheduler's first step happens at construction)."""
        self._step_count = 0
        with _Flag(self, "_is_initial"):
            self.step()

    def state_dict(self) -> dict[str, Any]:
        """Every attribute except the optimizer. Mirrors torch."""
        return {key: value for key, value in self.__dict__.items() if key != "optimizer"}

    def load_state_dict(self, state_dict: dict[str, Any]) -> None:
        self.__dict__.update(state_dict)

    def get_last_lr(self) -> list:
        """The learning rates the last step() set."""
        return self._last_lr

    def get_lr(self) -> list:
        """The learning rates for the current `last_epoch` (subclasses)."""
        raise NotImplementedError

    def step(self, epoch: int | None = None) -> None:
        """Advances one epoch (or jumps to `epoch`, deprecated) and updates the param groups."""
        if self._step_count == 1 and self.optimizer.__dict__.get("step") is not getattr(
            self.optimizer, "_lr_sched_step", None
        ):
            warnings.warn(
                "Seems like `optimizer.step()` has been overridden after learning rate scheduler "
                "initialization. Please, make sure to call `optimizer.step()` before "
                "`lr_scheduler.step()`. See more details at "
                "https://pytorch.org/docs/stable/optim.html#how-to-adjust-learning-rate",
                UserWarning,
                stacklevel=2,
            )
        elif self._step_count == 1 and not getattr(self.optimizer, "_opt_called", False):
            warnings.warn(
                "Detected call of `lr_scheduler.step()` before `optimizer.step()`. In PyTorch "
                "1.1.0 and later, you should call them in the opposite order: "
                "`optimizer.step()` before `lr_scheduler.step()`.  Failure to do this will "
                "result in PyTorch skipping the first value of the learning rate schedule. See "
                "more details at "
                "https://pytorch.org/docs/stable/optim.html#how-to-adjust-learning-rate",
                UserWarning,
                stacklevel=2,
            )
        self._step_count += 1
        if epoch is not None:
            warnings.warn(EPOCH_DEPRECATION_WARNING, UserWarning, stacklevel=2)
        self._update_lr(epoch)

    def _update_lr(self, epoch: int | None = None) -> None:
        with _Flag(self, "_get_lr_called_within_step"):
            if epoch is None:
                self.last_epoch += 1
                values = self.get_lr()
            else:
                self.last_epoch = epoch
                if hasattr(self, "_get_closed_form_lr"):
                    values = self._get_closed_form_lr()
                else:
                    values = self.get_lr()
        # See NOTE [ Param groups added after the scheduler ]
        for group, lr in zip(self.optimizer.param_groups, values, strict=True):
            _set_group_value(group, "lr", lr)
        self._last_lr = _group_values(self.optimizer, "lr")


def _warn_get_lr_called_within_step(scheduler: LRScheduler) -> None:
    if not scheduler._get_lr_called_within_step:
        warnings.warn(
            "To get the last learning rate computed by the scheduler, please use `get_last_lr()`.",
            UserWarning,
            stacklevel=2,
        )
