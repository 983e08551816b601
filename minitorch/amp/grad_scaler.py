"""torch.amp.GradScaler: dynamic loss scaling for float16 training, kept on the device."""

from __future__ import annotations

import collections.abc
import enum
import warnings
from collections import defaultdict

import minitorch
from minitorch._tensor import Tensor

__all__ = ["GradScaler", "OptState"]


class OptState(enum.Enum):
    """Where an optimizer is in the scaler's iteration. Mirrors torch.amp.grad_scaler.OptState."""

    READY = 0
    UNSCALED = 1
    STEPPED = 2


def _fresh_optimizer_state() -> dict:
    return {"stage": OptState.READY, "found_inf_per_device": {}}


_FIX = (
    "This may indicate your script did not use scaler.scale(loss or outputs) earlier in the "
    "iteration."
)


class GradScaler:
    """Scales the loss so float16 gradients do not underflow, unscales the gradients before the
    optimizer step, skips the step when they hold inf/NaN, and adapts the scale. Mirrors
    torch.amp.GradScaler.

    The scale, the growth tracker and the inf flags are 0-d tensors on the gradients' device and
    are updated there. As in torch, step() reads each device's inf flag back to the host (one
    `.item()` per device per step: it must decide on the host whether to call optimizer.step());
    get_scale(), state_dict() and pickling read the scale as torch does; nothing else synchronises.
    Differences from torch: no fused-optimizer path (`_step_supports_amp_scaling`).
    """

    def __init__(
        self,
        device: str = "cuda",
        init_scale: float = 2.0**16,
        growth_factor: float = 2.0,
        backoff_factor: float = 0.5,
        growth_interval: int = 2000,
        enabled: bool = True,
    ) -> None:
        self._device = device
        self._enabled = enabled
        if device == "cuda" and enabled and not minitorch.cuda.is_available():
            warnings.warn(
                "torch.cuda.amp.GradScaler is enabled, but CUDA is not available.  Disabling.",
                stacklevel=2,
            )
            self._enabled = False
        if self._enabled:
            if growth_factor <= 1.0:
                raise AssertionError("The growth factor must be > 1.0.")
            if backoff_factor >= 1.0:
                raise AssertionError("The backoff factor must be < 1.0.")
            self._init_scale = init_scale
            self._scale: Tensor | None = None  # made on the first scale(), on the loss's device
            self._growth_factor = growth_factor
            self._backoff_factor = backoff_factor
            self._growth_interval = growth_interval
            self._init_growth_tracker = 0
            self._growth_tracker: Tensor | None = None
            self._per_optimizer_states = defaultdict(_fresh_optimizer_state)

    def _check_scale_growth_tracker(self, funcname: str):
        if self._scale is None:
            raise AssertionError(f"Attempted {funcname} but _scale is None.  " + _FIX)
        if self._growth_tracker is None:
            raise AssertionError(f"Attempted {funcname} but _growth_tracker is None.  " + _FIX)
        return self._scale, self._growth_tracker

    def _lazy_init_scale_growth_tracker(self, dev) -> None:
        self._scale = minitorch.full((), self._init_scale, dtype=minitorch.float32, device=dev)
        self._growth_tracker = minitorch.full(
            (), self._init_growth_tracker, dtype=minitorch.int32, device=dev
        )

    def scale(self, outputs):
        """outputs (a tensor, or an iterable of them) multiplied by the scale. Mirrors
        torch.amp.GradScaler.scale."""
        if not self._enabled:
            return outputs
        if isinstance(outputs, Tensor):
            if self._scale is None:
                self._lazy_init_scale_growth_tracker(outputs.device)
            return outputs * self._scale_on(outputs.device, {})
        per_device: dict = {}

        def apply_scale(val):
            if isinstance(val, Tensor):
                if self._scale is None:
                    self._lazy_init_scale_growth_tracker(val.device)
                return val * self._scale_on(val.device, per_device)
            if isinstance(val, collections.abc.Iterable):
                scaled = map(apply_scale, val)
                if isinstance(val, (list, tuple)):
                    return type(val)(scaled)
                return scaled
            raise ValueError("outputs must be a Tensor or an iterable of Tensors")

        return apply_scale(outputs)

    def _scale_on(self, dev, per_device: dict) -> Tensor:
        if dev == self._scale.device:
            return self._scale
        if dev not in per_device:
            per_device[dev] = self._scale.to(dev, non_blocking=True)
        return per_device[dev]

    def _unscale_grads_(self, optimizer, inv_scale: Tensor, allow_fp16: bool) -> dict:
        """Each gradient multiplied by inv_scale in place; per device, a float32 0-d flag that is
        1.0 where some gradient holds inf or NaN (computed on the device: no sync)."""
        found: dict = {}
        inv: dict = {}
        with minitorch.no_grad():
            for group in optimizer.param_groups:
                for param in group["params"]:
                    if not isinstance(param, Tensor):
                        raise AssertionError(
                            f"expected param to be torch.Tensor, got {type(param).__name__}"
                        )
                    g = param.grad
                    if g is None:
                        continue
                    if not allow_fp16 and g.dtype is minitorch.float16:
                        raise ValueError("Attempting to unscale FP16 gradients.")
                    dev = g.device
                    if dev not in inv:
                        inv[dev] = inv_scale.to(dev, non_blocking=True)
                        found[dev] = minitorch.zeros((), dtype=minitorch.bool, device=dev)
                    bad = minitorch.isfinite(g).logical_not_().any()
                    found[dev] = found[dev].logical_or_(bad)
                    g.mul_(inv[dev])
        return {dev: flag.to(minitorch.float32) for dev, flag in found.items()}

    def unscale_(self, optimizer) -> None:
        """Divides the optimizer's gradients by the scale, once per step (for clipping before
        step()). Mirrors torch.amp.GradScaler.unscale_."""
        if not self._enabled:
            return
        self._check_scale_growth_tracker("unscale_")
        opt_state = self._per_optimizer_states[id(optimizer)]
        if opt_state["stage"] is OptState.UNSCALED:
            raise RuntimeError(
                "unscale_() has already been called on this optimizer since the last update()."
            )
        if opt_state["stage"] is OptState.STEPPED:
            raise RuntimeError("unscale_() is being called after step().")
        inv_scale = self._scale.double().reciprocal().float()
        opt_state["found_inf_per_device"] = self._unscale_grads_(optimizer, inv_scale, False)
        opt_state["stage"] = OptState.UNSCALED

    def step(self, optimizer, *args, **kwargs):
        """unscale_ (if not done yet), then optimizer.step() unless a gradient holds inf/NaN
        (then None). Mirrors torch.amp.GradScaler.step; reads the inf flags on the host (the
        one synchronisation, as torch)."""
        if not self._enabled:
            return optimizer.step(*args, **kwargs)
        if "closure" in kwargs:
            raise RuntimeError("Closure use is not currently supported if GradScaler is enabled.")
        self._check_scale_growth_tracker("step")
        opt_state = self._per_optimizer_states[id(optimizer)]
        if opt_state["stage"] is OptState.STEPPED:
            raise RuntimeError("step() has already been called since the last update().")
        if opt_state["stage"] is OptState.READY:
            self.unscale_(optimizer)
        if len(opt_state["found_inf_per_device"]) == 0:
            raise AssertionError("No inf checks were recorded for this optimizer.")
        retval = self._maybe_opt_step(optimizer, opt_state, *args, **kwargs)
        opt_state["stage"] = OptState.STEPPED
        return retval

    def _maybe_opt_step(self, optimizer, optimizer_state: dict, *args, **kwargs):
        """optimizer.step(*args, **kwargs) unless optimizer_state's inf flags are set (then
        None). Mirrors torch.amp.GradScaler._maybe_opt_step (private; used by custom AMP loops)."""
        retval = None
        # The documented host read: one .item() per device, the scaler's one synchronisation.
        if not sum(v.item() for v in optimizer_state["found_inf_per_device"].values()):
            retval = optimizer.step(*args, **kwargs)
        return retval

    def _found_inf_per_device(self, optimizer) -> dict:
        """device -> float32 0-d flag (1.0: a gradient held inf/NaN) recorded by the last
        unscale_ or _check_inf_per_device of this optimizer in this iteration; {} before.
        Mirrors torch.amp.GradScaler._found_inf_per_device (private; AMP loops read it after
        unscale_ to decide whether to skip their own step)."""
        return self._per_optimizer_states[id(optimizer)]["found_inf_per_device"]

    def _check_inf_per_device(self, optimizer) -> dict:
        """Records (and returns) the per-device inf/NaN flags of the optimizer's gradients
        without unscaling them (float16 gradients allowed). Mirrors
        torch.amp.GradScaler._check_inf_per_device."""
        scale, _ = self._check_scale_growth_tracker("_check_inf_per_device")
        one = minitorch.full((), 1.0, dtype=minitorch.float32, device=scale.device)
        opt_state = self._per_optimizer_states[id(optimizer)]
        opt_state["found_inf_per_device"] = self._unscale_grads_(optimizer, one, True)
        return opt_state["found_inf_per_device"]

    def update(self, new_scale=None) -> None:
        """Backs the scale off if any step was skipped, grows it after growth_interval clean
        steps, or sets it to new_scale; on the device. Mirrors torch.amp.GradScaler.update."""
        if not self._enabled:
            return
        scale, tracker = self._check_scale_growth_tracker("update")
        if new_scale is not None:
            if isinstance(new_scale, float):
                scale.fill_(new_scale)
            else:
                reason = (
                    "new_scale should be a float or a 1-element torch.cuda.FloatTensor or "
                    "torch.FloatTensor with requires_grad=False."
                )
                # a non-tensor (an int) fails on .device with Python's AttributeError, as torch
                if new_scale.device.type != self._device:
                    raise AssertionError(reason)
                if new_scale.numel() != 1 or new_scale.requires_grad:
                    raise AssertionError(reason)
                with minitorch.no_grad():
                    scale.copy_(new_scale)  # (a 1-element tensor of shape (1,) is refused)
        else:
            found_infs = [
                flag.to(scale.device, non_blocking=True)
                for st in self._per_optimizer_states.values()
                for flag in st["found_inf_per_device"].values()
            ]
            if len(found_infs) == 0:
                raise AssertionError("No inf checks were recorded prior to update.")
            found = found_infs[0]
            for f in found_infs[1:]:
                found = found + f
            self._update_scale(scale, tracker, found)
        self._per_optimizer_states = defaultdict(_fresh_optimizer_state)

    def _update_scale(self, scale: Tensor, tracker: Tensor, found_inf: Tensor) -> None:
        """torch._amp_update_scale_ as tensor ops: on inf, scale *= backoff and the tracker
        resets; else the tracker counts, and on reaching growth_interval the scale grows (if the
        grown scale is finite) and the tracker resets."""
        with minitorch.no_grad():
            inf = found_inf > 0
            counted = tracker + 1
            grow = counted == self._growth_interval
            # the products are taken in double and rounded once to the scale's dtype, as torch's
            # kernel (a float32 product would round the factor first: 0.9 -> 0.899999976)
            wide = scale.double()
            grown = (wide * self._growth_factor).to(scale.dtype)
            grown = minitorch.where(minitorch.isfinite(grown), grown, scale)
            kept = minitorch.where(grow, grown, scale)
            backed = (wide * self._backoff_factor).to(scale.dtype)
            scale.copy_(minitorch.where(inf, backed, kept))
            reset = inf.logical_or(grow)
            tracker.copy_(minitorch.where(reset, minitorch.zeros_like(counted), counted))

    def _get_scale_async(self):
        return self._scale

    def get_scale(self) -> float:
        """The scale as a Python float (reads it from the device). Mirrors
        torch.amp.GradScaler.get_scale."""
        if not self._enabled:
            return 1.0
        return self._init_scale if self._scale is None else float(self._scale.item())

    def get_growth_factor(self) -> float:
        return self._growth_factor

    def set_growth_factor(self, new_factor: float) -> None:
        self._growth_factor = new_factor

    def get_backoff_factor(self) -> float:
        return self._backoff_factor

    def set_backoff_factor(self, new_factor: float) -> None:
        self._backoff_factor = new_factor

    def get_growth_interval(self) -> int:
        return self._growth_interval

    def set_growth_interval(self, new_interval: int) -> None:
        self._growth_interval = new_interval

    def _get_growth_tracker(self) -> int:
        if not self._enabled:
            return 0
        if self._growth_tracker is None:
            return self._init_growth_tracker
        return int(self._growth_tracker.item())

    def is_enabled(self) -> bool:
        """Mirrors torch.amp.GradScaler.is_enabled."""
        return self._enabled

    def state_dict(self) -> dict:
        """scale, growth_factor, backoff_factor, growth_interval, _growth_tracker ({} when
        disabled). Mirrors torch.amp.GradScaler.state_dict."""
        if not self._enabled:
            return {}
        return {
            "scale": self.get_scale(),
            "growth_factor": self._growth_factor,
            "backoff_factor": self._backoff_factor,
            "growth_interval": self._growth_interval,
            "_growth_tracker": self._get_growth_tracker(),
        }

    def load_state_dict(self, state_dict: dict) -> None:
        """Mirrors torch.amp.GradScaler.load_state_dict (a no-op when disabled)."""
        if not self._enabled:
            return
        if len(state_dict) == 0:
            raise RuntimeError(
                "The source state dict is empty, possibly because it was saved from a disabled "
                "instance of GradScaler."
            )
        self._init_scale = state_dict["scale"]
        if self._scale is not None:
            self._scale.fill_(state_dict["scale"])
        self._growth_factor = state_dict["growth_factor"]
        self._backoff_factor = state_dict["backoff_factor"]
        self._growth_interval = state_dict["growth_interval"]
        self._init_growth_tracker = state_dict["_growth_tracker"]
        if self._growth_tracker is not None:
            self._growth_tracker.fill_(state_dict["_growth_tracker"])

    def __getstate__(self) -> dict:
        state = self.__dict__.copy()
        if self._enabled:
            if len(self._per_optimizer_states) != 0:
                raise AssertionError(
                    "A GradScaler instance may only be pickled at the beginning of an iteration, "
                    "or at the end after scaler.update()."
                )
            state["_init_scale"] = self.get_scale()
            state["_init_growth_tracker"] = self._get_growth_tracker()
            state["_scale"] = None
            state["_growth_tracker"] = None
            state["_per_optimizer_states"] = None
        return state

    def __setstate__(self, state: dict) -> None:
        self.__dict__.update(state)
        if self._enabled:
            self._per_optimizer_states = defaultdict(_fresh_optimizer_state)
