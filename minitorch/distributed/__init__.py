"""torch.distributed as seen from a build without a distributed backend: the queries and
collectives training scripts call on their single-process path.

Mirrors torch.distributed. Differences from torch: minitorch has no distributed backend (no
gloo, no NCCL), so is_available() is False and init_process_group raises RuntimeError; scripts
that check is_available() or is_initialized() take their single-process path. Every call that
needs a process group raises torch's ValueError for "no default process group".
"""

from __future__ import annotations

import enum

__all__ = [
    "is_available",
    "is_initialized",
    "is_torchelastic_launched",
    "is_nccl_available",
    "is_gloo_available",
    "is_mpi_available",
    "init_process_group",
    "destroy_process_group",
    "get_rank",
    "get_world_size",
    "get_backend",
    "barrier",
    "all_reduce",
    "reduce",
    "broadcast",
    "all_gather",
    "all_gather_object",
    "gather",
    "scatter",
    "reduce_scatter",
    "ReduceOp",
    "GroupMember",
    "group",
]


class ReduceOp(enum.Enum):
    """The reductions of all_reduce and friends. Mirrors torch.distributed.ReduceOp."""

    SUM = 0
    AVG = 1
    PRODUCT = 2
    MIN = 3
    MAX = 4
    BAND = 5
    BOR = 6
    BXOR = 7
    PREMUL_SUM = 8
    UNUSED = 9


class GroupMember:
    """Mirrors torch.distributed.GroupMember: WORLD is None until a process group exists."""

    WORLD = None
    NON_GROUP_MEMBER = -100


group = GroupMember  # torch.distributed.group.WORLD


def is_available() -> bool:
    """False: minitorch has no distributed backend. Mirrors torch.distributed.is_available."""
    return False


def is_initialized() -> bool:
    """False: no process group can exist. Mirrors torch.distributed.is_initialized."""
    return False


def is_torchelastic_launched() -> bool:
    """Mirrors torch.distributed.is_torchelastic_launched (torchrun sets TORCHELASTIC_RUN_ID)."""
    import os

    return os.getenv("TORCHELASTIC_RUN_ID") is not None


def is_nccl_available() -> bool:
    return False


def is_gloo_available() -> bool:
    return False


def is_mpi_available() -> bool:
    return False


def init_process_group(*args, **kwargs):
    """Raises RuntimeError: there is no backend to start. Mirrors
    torch.distributed.init_process_group's name only."""
    raise RuntimeError(
        "init_process_group: minitorch has no distributed backend (torch.distributed is not "
        "available); run the script as a single process"
    )


def _no_group(*args, **kwargs):
    # torch's error for every call that needs the default process group before
    # init_process_group
    raise ValueError(
        "Default process group has not been initialized, please make sure to call "
        "init_process_group."
    )


def destroy_process_group(group=None):
    """Mirrors torch.distributed.destroy_process_group without a process group."""
    raise AssertionError("Process group cannot be None")


def _needs_group(name: str):
    def call(*args, **kwargs):
        _no_group()

    call.__name__ = call.__qualname__ = name
    call.__doc__ = f"Raises ValueError: no process group. Mirrors torch.distributed.{name}."
    return call


get_rank = _needs_group("get_rank")
get_world_size = _needs_group("get_world_size")
get_backend = _needs_group("get_backend")
barrier = _needs_group("barrier")
all_reduce = _needs_group("all_reduce")
reduce = _needs_group("reduce")
broadcast = _needs_group("broadcast")
all_gather = _needs_group("all_gather")
all_gather_object = _needs_group("all_gather_object")
gather = _needs_group("gather")
scatter = _needs_group("scatter")
reduce_scatter = _needs_group("reduce_scatter")
