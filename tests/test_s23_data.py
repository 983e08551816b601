"""Session 23, utils.data differential fuzzing: default_collate inside a DataLoader worker checks
its samples in torch's order (numel, shared-storage size, out='s grad refusal, stack). Expected
messages were obtained by running torch 2.13.0's DataLoader with num_workers=1."""

import pytest

import minitorch
from minitorch.utils.data import DataLoader, Dataset, default_collate
from minitorch.utils.data import _worker as worker_impl

_RESIZE_MSG = "Trying to resize storage that is not resizable"


@pytest.fixture
def in_worker(monkeypatch):
    """default_collate behaves as in a worker process (without starting one)."""
    info = worker_impl.WorkerInfo(id=0, num_workers=1, seed=0, dataset=None)
    monkeypatch.setattr(worker_impl, "_worker_info", info)


# (batch, torch's exception type, torch's message), from torch with num_workers=1
CASES = {
    "later_sample_smaller": (
        lambda: [minitorch.zeros(3, 2), minitorch.zeros(3, 2), minitorch.zeros(2, 0)],
        RuntimeError,
        _RESIZE_MSG,
    ),
    "scalar_then_empty": (
        lambda: [minitorch.zeros(()), minitorch.zeros(0), minitorch.zeros(())],
        RuntimeError,
        _RESIZE_MSG,
    ),
    "smaller_sample_before_grad_check": (
        lambda: [minitorch.zeros(3, requires_grad=True), minitorch.zeros(2)],
        RuntimeError,
        _RESIZE_MSG,
    ),
    "non_tensor_sample": (
        lambda: [minitorch.zeros(3), 5],
        AttributeError,
        "'int' object has no attribute 'numel'",
    ),
    "non_tensor_before_grad_check": (
        lambda: [minitorch.zeros(3, requires_grad=True), "s"],
        AttributeError,
        "'str' object has no attribute 'numel'",
    ),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_worker_collate_errors_in_torchs_order(in_worker, name):
    make, exc_type, message = CASES[name]
    with pytest.raises(exc_type) as info:
        default_collate(make())
    assert str(info.value) == message


class _Shrinking(Dataset):
    def __len__(self):
        return 2

    def __getitem__(self, i):
        return minitorch.zeros(3 - i)


def test_worker_process_reports_the_resize_error():
    loader = DataLoader(_Shrinking(), batch_size=2, num_workers=1)
    with pytest.raises(RuntimeError) as info:
        next(iter(loader))
    text = str(info.value)
    assert text.startswith("Caught RuntimeError in DataLoader worker process 0."), text
    assert text.rstrip().endswith("RuntimeError: " + _RESIZE_MSG), text
