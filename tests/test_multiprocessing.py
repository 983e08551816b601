"""minitorch.multiprocessing: spawn/start_processes and the sharing-strategy switches."""

from __future__ import annotations

import os

import pytest

import minitorch as mt
import minitorch.multiprocessing as mp


def _write_rank(i, path, scale):
    t = mt.arange(3.0) * (i + 1) * scale
    with open(os.path.join(path, f"rank{i}.txt"), "w") as f:
        f.write(" ".join(str(v) for v in t.tolist()))


def _fail_on_one(i):
    if i == 1:
        raise ValueError("rank one fails")


def _exit_three(i):
    raise SystemExit(3) if i == 0 else None


def test_spawn_runs_each_rank(tmp_path):
    mp.start_processes(_write_rank, args=(str(tmp_path), 2.0), nprocs=2, start_method="fork")
    assert (tmp_path / "rank0.txt").read_text() == "0.0 2.0 4.0"
    assert (tmp_path / "rank1.txt").read_text() == "0.0 4.0 8.0"


def test_spawn_with_the_spawn_method(tmp_path):
    mp.spawn(_write_rank, args=(str(tmp_path), 1.0), nprocs=1)
    assert (tmp_path / "rank0.txt").read_text() == "0.0 1.0 2.0"


def test_failures_reach_the_parent():
    with pytest.raises(mp.ProcessRaisedException, match="(?s)Process 1 terminated.*rank one"):
        mp.start_processes(_fail_on_one, nprocs=2, start_method="fork")
    with pytest.raises(mp.ProcessExitedException, match="exit code 3") as e:
        mp.start_processes(_exit_three, nprocs=1, start_method="fork")
    assert e.value.exit_code == 3 and e.value.error_index == 0


def test_join_false_returns_the_context(tmp_path):
    ctx = mp.start_processes(
        _write_rank, args=(str(tmp_path), 1.0), nprocs=2, join=False, start_method="fork"
    )
    assert len(ctx.pids()) == 2
    while not ctx.join():
        pass
    assert sorted(p.name for p in tmp_path.iterdir()) == ["rank0.txt", "rank1.txt"]


def test_spawn_warns_for_another_start_method(tmp_path):
    with pytest.warns(FutureWarning, match="only supports start_method=spawn"):
        mp.spawn(_write_rank, args=(str(tmp_path), 1.0), start_method="fork")


def test_sharing_strategies_and_stdlib_names():
    assert mp.get_sharing_strategy() == "file_descriptor"
    assert mp.get_all_sharing_strategies() == {"file_descriptor", "file_system"}
    mp.set_sharing_strategy("file_system")
    assert mp.get_sharing_strategy() == "file_system"
    mp.set_sharing_strategy("file_descriptor")
    with pytest.raises(AssertionError):
        mp.set_sharing_strategy("shm")
    assert mp.Queue and mp.get_context and mp.cpu_count() >= 1
