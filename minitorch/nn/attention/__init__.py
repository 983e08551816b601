"""torch.nn.attention: choosing the kernel of scaled_dot_product_attention. minitorch has one
(its math: softmax(q k^T / sqrt(d)) v), so the choice is recorded in backends.cuda's switches and
otherwise changes nothing. The submodules bias (CausalBias) and flex_attention are imported on
request, as torch's are. Mirrors torch.nn.attention."""

from __future__ import annotations

import contextlib
import enum

__all__ = ["SDPBackend", "sdpa_kernel"]


class SDPBackend(enum.Enum):
    """The attention kernels torch can choose from. Mirrors torch.nn.attention.SDPBackend (also
    torch.backends.cuda.SDPBackend): a C++ enum there, whose members convert to their numbers
    (int(), an index, the hash of the number) but equal no number (MATH != 0) and do no
    arithmetic."""

    ERROR = -1
    MATH = 0
    FLASH_ATTENTION = 1
    EFFICIENT_ATTENTION = 2
    CUDNN_ATTENTION = 3
    OVERRIDEABLE = 4

    def __int__(self) -> int:
        return self.value

    __index__ = __int__

    def __hash__(self) -> int:
        return hash(self.value)


_SWITCHES = {
    SDPBackend.MATH: "math",
    SDPBackend.FLASH_ATTENTION: "flash",
    SDPBackend.EFFICIENT_ATTENTION: "mem_efficient",
    SDPBackend.CUDNN_ATTENTION: "cudnn",
}


@contextlib.contextmanager
def sdpa_kernel(backends, set_priority: bool = False):
    """A region where only `backends` are enabled for scaled_dot_product_attention (read back by
    backends.cuda.<kind>_sdp_enabled()). Mirrors torch.nn.attention.sdpa_kernel.

    Differences from torch: minitorch always computes the math kernel, whatever is enabled."""
    # torch takes a backend or a list (not a tuple or a set) and does not check the list's
    # elements: one that is no SDPBackend (a name, a number) enables nothing
    if not isinstance(backends, (list, SDPBackend)):
        raise AssertionError(
            "Backend must be an instance of SDPBackend or a list of SDPBackend instances, got "
            f"{type(backends).__name__}"
        )
    if isinstance(backends, SDPBackend):
        backends = [backends]
    if set_priority:  # torch reads the order as ints (minitorch keeps no priority order)
        [int(b) for b in backends]
    from minitorch.backends import cuda

    before = {kind: getattr(cuda, f"{kind}_sdp_enabled")() for kind in _SWITCHES.values()}
    # by identity: torch's [0] does not name SDPBackend.MATH
    chosen = {kind for b, kind in _SWITCHES.items() if any(x is b for x in backends)}
    try:
        for kind in _SWITCHES.values():
            getattr(cuda, f"enable_{kind}_sdp")(kind in chosen)
        yield {}
    finally:
        for kind, on in before.items():
            getattr(cuda, f"enable_{kind}_sdp")(on)
