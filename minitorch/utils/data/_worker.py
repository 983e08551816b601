"""What runs inside a DataLoader worker process: seeding, the fetch loop, worker info, and
exceptions wrapped with their traceback text for the main process."""

from __future__ import annotations

import os
import pickle
import queue
import random
import sys
import traceback
from dataclasses import dataclass

import numpy as np

# (modules, not names: _collate imports this module)
from minitorch.utils.data import _collate
from minitorch.utils.data import dataset as _dataset

__all__ = ["WorkerInfo", "get_worker_info", "ExceptionWrapper"]

# How often a waiting worker checks that the main process is alive, and a waiting main process
# checks that its workers are (seconds). Only latency on failure; data is never delayed by it.
MP_STATUS_CHECK_INTERVAL = 0.1


@dataclass(frozen=True)
class WorkerInfo:
    """What get_worker_info() returns inside a worker: its id, the number of workers, its seed
    and its own copy of the dataset. Mirrors torch.utils.data.get_worker_info's WorkerInfo."""

    id: int
    num_workers: int
    seed: int
    dataset: object
    rng: object = None
    worker_method: str | None = "multiprocessing"


_worker_info: WorkerInfo | None = None


def get_worker_info() -> WorkerInfo | None:
    """In a DataLoader worker process: its WorkerInfo (id, num_workers, seed, dataset); in the
    main process: None. Mirrors torch.utils.data.get_worker_info."""
    return _worker_info


class KeyErrorMessage(str):
    """A KeyError's message shown as written (KeyError would show its repr, escapes and all)."""

    def __repr__(self):
        return self


class ExceptionWrapper:
    """An exception as text (type, where, formatted traceback), to be raised again elsewhere.
    Mirrors torch._utils.ExceptionWrapper."""

    def __init__(self, exc_info=None, where: str = "in background", raise_as=None):
        if exc_info is None:
            exc_info = sys.exc_info()
        self.exc_type = exc_info[0]
        # Only text is kept: a live traceback would hold frames (and the dataset) alive.
        self.exc_msg = "".join(traceback.format_exception(*exc_info))
        self.where = where
        self.raise_as = raise_as  # an exception type to raise instead of the caught one

    def reraise(self):
        """Raises the exception type with "Caught <Type> <where>.\\nOriginal Traceback ...";
        a RuntimeError when the type cannot be built from one message."""
        msg = f"Caught {self.exc_type.__name__} {self.where}.\nOriginal {self.exc_msg}"
        if self.raise_as is not None:
            raise self.raise_as(msg)
        if self.exc_type is KeyError:
            msg = KeyErrorMessage(msg)
        elif getattr(self.exc_type, "message", None):
            raise self.exc_type(message=msg)
        try:
            exception = self.exc_type(msg)
        except Exception:
            raise RuntimeError(msg) from None
        raise exception


@dataclass(frozen=True)
class _IterableDatasetStopIteration:
    """A worker's iterable dataset is exhausted."""

    worker_id: int


@dataclass(frozen=True)
class _ResumeIteration:
    """Persistent workers: start a new epoch (acknowledged by sending it back)."""


class _BaseDatasetFetcher:
    """fetch(index): a sample, or a collated batch for a list of indices (auto_collation)."""

    def __init__(self, dataset, auto_collation: bool, collate_fn, drop_last: bool):
        self.dataset = dataset
        self.auto_collation = auto_collation
        self.collate_fn = collate_fn
        self.drop_last = drop_last

    def fetch(self, index):
        raise NotImplementedError


_TensorDataset = _dataset.TensorDataset
_TENSOR_DATASET_GETITEM = _TensorDataset.__getitem__


class _MapDatasetFetcher(_BaseDatasetFetcher):
    """Fetches a sample (index) or a collated batch (list of indices) of a map-style dataset."""

    def fetch(self, index):
        if not self.auto_collation:
            return self.collate_fn(self.dataset[index])
        dataset = self.dataset
        collate_fn = self.collate_fn
        if (
            dataset.__class__ is _TensorDataset
            and collate_fn is _collate.default_collate
            and _TensorDataset.__getitem__ is _TENSOR_DATASET_GETITEM  # (not patched)
            and not hasattr(_TensorDataset, "__getitems__")
        ):
            batch = _collate.tensor_rows(dataset.tensors, index)  # NOTE [ TensorDataset batches ]
            if batch is not None:
                return batch
        getitems = getattr(dataset, "__getitems__", None)
        if getitems:
            data = getitems(index)
        else:
            data = [dataset[i] for i in index]
        return collate_fn(data)


class _IterableDatasetFetcher(_BaseDatasetFetcher):
    """Takes the next sample, or the next len(index) samples as a batch, from an iterable
    dataset's iterator; StopIteration once it is exhausted (or the batch would be short and
    drop_last is set)."""

    def __init__(self, dataset, auto_collation: bool, collate_fn, drop_last: bool):
        super().__init__(dataset, auto_collation, collate_fn, drop_last)
        self.dataset_iter = iter(dataset)
        self.ended = False

    def fetch(self, index):
        if self.ended:
            raise StopIteration
        if not self.auto_collation:
            return self.collate_fn(next(self.dataset_iter))
        data = []
        for _ in index:
            try:
                data.append(next(self.dataset_iter))
            except StopIteration:
                self.ended = True
                break
        if not data or (self.drop_last and len(data) < len(index)):
            raise StopIteration
        return self.collate_fn(data)


def create_fetcher(is_iterable: bool, dataset, auto_collation, collate_fn, drop_last):
    cls = _IterableDatasetFetcher if is_iterable else _MapDatasetFetcher
    return cls(dataset, auto_collation, collate_fn, drop_last)


def _generate_state(base_seed: int, worker_id: int) -> list[int]:
    """The four 32-bit words that seed NumPy's legacy global RNG in worker `worker_id`: a NumPy
    SeedSequence of (worker_id, base_seed), which spreads the 64-bit seed over the state so that
    no two (base_seed, worker_id) pairs collide. Mirrors
    torch.utils.data._utils.worker._generate_state (same values)."""
    words = np.random.SeedSequence([worker_id, base_seed]).generate_state(4)
    return [int(w) for w in words]


def _seed_worker(base_seed: int, worker_id: int) -> int:
    """Seeds minitorch, Python's random and NumPy's legacy global RNG for this worker."""
    from minitorch.random import manual_seed

    seed = base_seed + worker_id
    random.seed(seed)
    manual_seed(seed)
    np.random.seed(_generate_state(base_seed, worker_id))
    return seed


LOAD_ADVICE = (
    "The DataLoader's worker processes are started with the '{method}' method, which sends them "
    "the dataset, collate_fn and worker_init_fn by pickling. Objects defined in a notebook, in "
    "the interactive interpreter or under `if __name__ == '__main__':` cannot be loaded there: "
    "move the dataset class (and these functions) to a .py module and import it, or use "
    "num_workers=0."
)


class _ParentWatch:
    """Tells a worker whether the process that started it is still alive."""

    def __init__(self):
        self.parent = os.getppid()

    def alive(self) -> bool:
        return os.getppid() == self.parent


def _worker_loop(
    is_iterable,
    payload,
    index_queue,
    data_queue,
    done_event,
    base_seed,
    worker_id,
    num_workers,
    start_method,
):
    """A worker's life: load its copy of the work, seed, then answer (idx, index) requests with
    (idx, batch or ExceptionWrapper) until None arrives or the main process is gone.

    `payload` is (dataset, auto_collation, collate_fn, drop_last, worker_init_fn), pickled to
    bytes for start methods other than fork, so that a failure to load it is reported with
    advice instead of killing the worker.
    """
    global _worker_info
    from minitorch._settings import set_num_threads

    # As torch: one intra-op (BLAS) thread per worker, so that num_workers processes do not
    # each start a thread per core.
    set_num_threads(1)
    try:
        init_error = None
        if isinstance(payload, bytes):
            try:
                payload = pickle.loads(payload)
            except Exception:
                init_error = ExceptionWrapper(
                    where=f"in DataLoader worker process {worker_id} while loading the dataset. "
                    + LOAD_ADVICE.format(method=start_method),
                    raise_as=RuntimeError,
                )
                payload = (None, False, None, False, None)
        dataset, auto_collation, collate_fn, drop_last, init_fn = payload
        seed = _seed_worker(base_seed, worker_id)
        _worker_info = WorkerInfo(id=worker_id, num_workers=num_workers, seed=seed, dataset=dataset)
        fetcher = None
        if init_error is None:
            try:
                if init_fn is not None:
                    init_fn(worker_id)
                fetcher = create_fetcher(
                    is_iterable, dataset, auto_collation, collate_fn, drop_last
                )
            except Exception:
                init_error = ExceptionWrapper(where=f"in DataLoader worker process {worker_id}")
        _serve(
            index_queue,
            data_queue,
            done_event,
            fetcher,
            init_error,
            worker_id,
            lambda: create_fetcher(is_iterable, dataset, auto_collation, collate_fn, drop_last),
            is_iterable,
        )
    except KeyboardInterrupt:
        pass
    if done_event.is_set():
        # Results nobody will read must not keep this process alive at exit.
        data_queue.cancel_join_thread()
        data_queue.close()


def _send(data_queue, key, data, worker_id: int) -> None:
    """Puts (key, data) on the result queue, pickled here: a batch that cannot be pickled is
    reported as an error (pickled by the queue's feeder thread, it would be dropped silently and
    the main process would wait for it forever)."""
    try:
        message = pickle.dumps((key, data), protocol=pickle.HIGHEST_PROTOCOL)
    except Exception:
        where = f"in DataLoader worker process {worker_id} while sending a batch"
        message = pickle.dumps((key, ExceptionWrapper(where=where)))
    data_queue.put(message)


def _serve(
    index_queue, data_queue, done_event, fetcher, init_error, worker_id, new_fetcher, is_iterable
):
    exhausted = False  # the iterable dataset ended in this epoch: ignore requests
    watch = _ParentWatch()
    while watch.alive():
        try:
            request = index_queue.get(timeout=MP_STATUS_CHECK_INTERVAL)
        except queue.Empty:
            # The None sent at shutdown may never arrive: when the main process's iterator is
            # freed by the garbage collector, its queues' feeder threads may already be closed.
            if done_event.is_set():
                break
            continue
        if request is None:  # shutdown
            break
        if isinstance(request, _ResumeIteration):
            _send(data_queue, request, None, worker_id)
            exhausted = False
            if fetcher is not None:  # a new epoch: iterable datasets start over
                try:
                    fetcher = new_fetcher()
                except Exception:
                    fetcher = None
                    init_error = ExceptionWrapper(where=f"in DataLoader worker process {worker_id}")
            continue
        if done_event.is_set() or exhausted:
            continue
        idx, index = request
        if fetcher is None:  # loading or worker_init_fn failed: every request gets the error
            data = init_error
        else:
            try:
                data = fetcher.fetch(index)
            except StopIteration:
                if not is_iterable:
                    data = ExceptionWrapper(where=f"in DataLoader worker process {worker_id}")
                else:
                    data = _IterableDatasetStopIteration(worker_id)
                    exhausted = True
            except Exception:
                data = ExceptionWrapper(where=f"in DataLoader worker process {worker_id}")
        _send(data_queue, idx, data, worker_id)
        del data, request, index
