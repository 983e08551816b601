"""torch.nn.parallel.distributed: DistributedDataParallel, so that code which imports it or checks
isinstance(model, DistributedDataParallel) before unwrapping `.module` runs. Mirrors
torch.nn.parallel.distributed."""

from __future__ import annotations

from minitorch.nn.modules.module import Module

__all__ = ["DistributedDataParallel"]


class DistributedDataParallel(Module):
    """Data parallelism across the processes of a process group. Mirrors
    torch.nn.parallel.DistributedDataParallel.

    Differences from torch: minitorch has no distributed backend, so no process group can exist
    (see minitorch.distributed) and constructing one always raises torch's ValueError for a
    missing default process group; the class is there for imports and isinstance checks."""

    def __init__(
        self,
        module: Module,
        device_ids=None,
        output_device=None,
        dim: int = 0,
        broadcast_buffers=None,
        init_sync: bool = True,
        process_group=None,
        bucket_cap_mb=None,
        find_unused_parameters: bool = False,
        check_reduction: bool = False,
        gradient_as_bucket_view: bool = False,
        static_graph: bool = False,
        delay_all_reduce_named_params=None,
        param_to_hook_all_reduce=None,
        mixed_precision=None,
        device_mesh=None,
        skip_all_reduce_unused_params: bool = False,
        bucket_cap_mb_list=None,
        batched_grad_copy: bool = False,
        forward_sync_buffers=None,
    ) -> None:
        from minitorch.distributed import _no_group

        # torch asks for the default process group (or the one given) before touching the
        # module; with no backend here there is none to find
        _no_group()
