"""An autouse fixture for reference modules that compare many tiny computations: torch runs them
on one thread (its threaded kernels on tiny tensors are slow and erratic on a busy machine).
A module imports `one_torch_thread` to use it."""

import pytest


@pytest.fixture(autouse=True)
def one_torch_thread():
    torch = pytest.importorskip("torch")
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(threads)
