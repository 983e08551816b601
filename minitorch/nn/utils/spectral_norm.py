"""nn.utils.spectral_norm: the legacy hook-based spectral normalization (weight_orig, _u, _v)."""

from __future__ import annotations

from typing import Any

import minitorch
import minitorch.nn.functional as F
from minitorch._tensor import Tensor
from minitorch.autograd.grad_mode import no_grad
from minitorch.nn.modules.module import Module
from minitorch.nn.parameter import Parameter, UninitializedParameter

__all__ = ["SpectralNorm", "remove_spectral_norm", "spectral_norm"]


class SpectralNorm:
    """The forward pre-hook that sets `<name>` = `<name>_orig` / sigma, sigma = u^T W v from
    the buffers `<name>_u`, `<name>_v` (updated by power iteration in training mode). Mirrors
    torch.nn.utils.spectral_norm.SpectralNorm."""

    # version 1: `<name>_v` is saved too, and `<name>` is no longer in the state_dict
    _version: int = 1

    def __init__(
        self, name: str = "weight", n_power_iterations: int = 1, dim: int = 0, eps: float = 1e-12
    ) -> None:
        self.name = name
        self.dim = dim
        if n_power_iterations <= 0:
            raise ValueError(
                "Expected n_power_iterations to be positive, but got "
                f"n_power_iterations={n_power_iterations}"
            )
        self.n_power_iterations = n_power_iterations
        self.eps = eps

    def reshape_weight_to_matrix(self, weight: Tensor) -> Tensor:
        if self.dim != 0:
            weight = weight.permute(self.dim, *[d for d in range(weight.dim()) if d != self.dim])
        return weight.reshape(weight.shape[0], -1)

    def compute_weight(self, module: Module, do_power_iteration: bool) -> Tensor:
        weight = getattr(module, self.name + "_orig")
        u = getattr(module, self.name + "_u")
        v = getattr(module, self.name + "_v")
        weight_mat = self.reshape_weight_to_matrix(weight)
        if do_power_iteration:
            with no_grad():
                for _ in range(self.n_power_iterations):
                    F.normalize(minitorch.mv(weight_mat.t(), u), dim=0, eps=self.eps, out=v)
                    F.normalize(minitorch.mv(weight_mat, v), dim=0, eps=self.eps, out=u)
                # the buffers change in place at the next forward: sigma's graph keeps copies
                u = u.clone()
                v = v.clone()
        sigma = minitorch.dot(u, minitorch.mv(weight_mat, v))
        return weight / sigma

    def remove(self, module: Module) -> None:
        with no_grad():
            weight = self.compute_weight(module, do_power_iteration=False)
        delattr(module, self.name)
        delattr(module, self.name + "_u")
        delattr(module, self.name + "_v")
        delattr(module, self.name + "_orig")
        module.register_parameter(self.name, Parameter(weight.detach()))

    def __call__(self, module: Module, inputs: Any) -> None:
        setattr(module, self.name, self.compute_weight(module, module.training))

    def _solve_v_and_rescale(self, weight_mat: Tensor, u: Tensor, target_sigma) -> Tensor:
        # v with u = normalize(W v) and u^T W v = target_sigma (for pre-version-1 checkpoints)
        v = minitorch.linalg.multi_dot(
            [weight_mat.t().mm(weight_mat).pinverse(), weight_mat.t(), u.unsqueeze(1)]
        ).squeeze(1)
        return v.mul_(target_sigma / minitorch.dot(u, minitorch.mv(weight_mat, v)))

    @staticmethod
    def apply(
        module: Module, name: str, n_power_iterations: int, dim: int, eps: float
    ) -> SpectralNorm:
        for hook in module._forward_pre_hooks.values():
            if isinstance(hook, SpectralNorm) and hook.name == name:
                raise RuntimeError(
                    f"Cannot register two spectral_norm hooks on the same parameter {name}"
                )
        fn = SpectralNorm(name, n_power_iterations, dim, eps)
        weight = module._parameters[name]
        if isinstance(weight, UninitializedParameter):
            raise ValueError(
                "The module passed to `SpectralNorm` can't have uninitialized parameters. "
                "Make sure to run the dummy forward before applying spectral normalization"
            )
        with no_grad():
            weight_mat = fn.reshape_weight_to_matrix(weight)
            h, w = weight_mat.shape
            u = F.normalize(weight.new_empty(h).normal_(0, 1), dim=0, eps=fn.eps)
            v = F.normalize(weight.new_empty(w).normal_(0, 1), dim=0, eps=fn.eps)
        delattr(module, fn.name)
        module.register_parameter(fn.name + "_orig", weight)
        # a plain attribute until the first forward recomputes it (not in the state_dict)
        setattr(module, fn.name, weight.data)
        module.register_buffer(fn.name + "_u", u)
        module.register_buffer(fn.name + "_v", v)
        module.register_forward_pre_hook(fn)
        module._register_state_dict_hook(SpectralNormStateDictHook(fn))
        module._register_load_state_dict_pre_hook(SpectralNormLoadStateDictPreHook(fn))
        return fn


class SpectralNormLoadStateDictPreHook:
    """Converts a pre-version-1 state_dict (with `<name>`, without `<name>_v`) on load."""

    def __init__(self, fn: SpectralNorm) -> None:
        self.fn = fn

    def __call__(
        self, state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys, error_msgs
    ) -> None:
        fn = self.fn
        version = local_metadata.get("spectral_norm", {}).get(fn.name + ".version", None)
        if version is not None and version >= 1:
            return
        weight_key = prefix + fn.name
        current = all(weight_key + s in state_dict for s in ("_orig", "_u", "_v"))
        if version is None and current and weight_key not in state_dict:
            return  # a current-layout state_dict that lost its metadata
        missing = [weight_key + s for s in ("_orig", "", "_u") if weight_key + s not in state_dict]
        if missing:
            if strict:
                missing_keys.extend(missing)
            return
        with no_grad():
            weight_orig = state_dict[weight_key + "_orig"]
            weight = state_dict.pop(weight_key)
            sigma = (weight_orig / weight).mean()
            weight_mat = fn.reshape_weight_to_matrix(weight_orig)
            u = state_dict[weight_key + "_u"]
            state_dict[weight_key + "_v"] = fn._solve_v_and_rescale(weight_mat, u, sigma)


class SpectralNormStateDictHook:
    """Records the SpectralNorm version in the state_dict's metadata."""

    def __init__(self, fn: SpectralNorm) -> None:
        self.fn = fn

    def __call__(self, module, state_dict, prefix, local_metadata) -> None:
        versions = local_metadata.setdefault("spectral_norm", {})
        key = self.fn.name + ".version"
        if key in versions:
            raise RuntimeError(f"Unexpected key in metadata['spectral_norm']: {key}")
        versions[key] = self.fn._version


def spectral_norm(
    module: Module,
    name: str = "weight",
    n_power_iterations: int = 1,
    eps: float = 1e-12,
    dim: int | None = None,
) -> Module:
    """Replaces parameter `name` by `<name>_orig` and buffers `<name>_u`, `<name>_v`; a forward
    pre-hook sets `<name>` = `<name>_orig` / sigma, sigma estimated by power iteration (run only
    in training mode). dim defaults to 1 for ConvTranspose modules, 0 otherwise. Mirrors
    torch.nn.utils.spectral_norm.

    Differences from torch: the random start of u and v comes from minitorch's generator, so
    it differs from torch's for the same seed.
    """
    if dim is None:
        nn = minitorch.nn
        conv_t = (nn.ConvTranspose1d, nn.ConvTranspose2d, nn.ConvTranspose3d)
        dim = 1 if isinstance(module, conv_t) else 0
    SpectralNorm.apply(module, name, n_power_iterations, dim, eps)
    return module


def remove_spectral_norm(module: Module, name: str = "weight") -> Module:
    """Undoes spectral_norm: `name` becomes a plain parameter holding the current normalized
    weight. Mirrors torch.nn.utils.remove_spectral_norm."""
    for key, hook in module._forward_pre_hooks.items():
        if isinstance(hook, SpectralNorm) and hook.name == name:
            hook.remove(module)
            del module._forward_pre_hooks[key]
            break
    else:
        raise ValueError(f"spectral_norm of '{name}' not found in {module}")
    for registry, hook_type in (
        (module._state_dict_hooks, SpectralNormStateDictHook),
        (module._load_state_dict_pre_hooks, SpectralNormLoadStateDictPreHook),
    ):
        for key, hook in registry.items():
            hook = getattr(hook, "hook", hook)  # load pre-hooks are stored wrapped
            if isinstance(hook, hook_type) and hook.fn.name == name:
                del registry[key]
                break
    return module
