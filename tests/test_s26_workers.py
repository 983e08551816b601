"""Session 26 (helper workers): DataLoader(in_order=False) hands each new task to the next
active worker that holds fewer than its share (prefetch_factor * num_workers // active workers)
of the outstanding tasks, as torch 2.13 does, so a slow worker's queue does not grow while the
others wait. Expected orders were obtained by running torch 2.13.0 with the same datasets (fork
start method); worker 0 is slow on purpose, so the orders do not depend on races."""

import multiprocessing
import time

import pytest

from minitorch.utils.data import DataLoader

pytestmark = pytest.mark.skipif(
    "fork" not in multiprocessing.get_all_start_methods(), reason="needs the fork start method"
)


class Slow:
    """Item i takes slow[i] seconds (0 when absent)."""

    def __init__(self, slow, n):
        self.slow, self.n = slow, n

    def __len__(self):
        return self.n

    def __getitem__(self, i):
        time.sleep(self.slow.get(i, 0))
        return i


@pytest.mark.parametrize(
    "slow, n, prefetch_factor, expected",
    [
        ({0: 0.4}, 6, 2, [1, 3, 4, 5, 0, 2]),
        ({0: 0.4, 4: 0.2}, 10, 3, [1, 3, 5, 6, 7, 8, 9, 0, 2, 4]),
        ({0: 0.4}, 6, 1, [1, 2, 3, 4, 5, 0]),
    ],
)
def test_out_of_order_tasks_go_to_workers_with_room(slow, n, prefetch_factor, expected):
    loader = DataLoader(
        Slow(slow, n),
        batch_size=None,
        num_workers=2,
        prefetch_factor=prefetch_factor,
        in_order=False,
        multiprocessing_context="fork",
    )
    assert [int(x) for x in loader] == expected


def test_in_order_keeps_round_robin():
    loader = DataLoader(
        Slow({0: 0.3}, 6), batch_size=None, num_workers=2, multiprocessing_context="fork"
    )
    assert [int(x) for x in loader] == [0, 1, 2, 3, 4, 5]
