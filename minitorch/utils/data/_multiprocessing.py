"""The DataLoader iterator that loads batches in worker processes."""

from __future__ import annotations

import io
import itertools
import multiprocessing
import pickle
import queue
import sys
import time
import types

from minitorch.utils.data import _collate, _worker
from minitorch.utils.data.dataloader import _BaseDataLoaderIter, _DatasetKind

# NOTE [ DataLoader workers ]
# Each worker has its own index queue; all share one result queue. The main process keeps
# prefetch_factor * num_workers tasks outstanding, sends task i to the next active worker in
# turn, and buffers results that arrive early, so batches come back in sampler order.
# - Seeds: base_seed is drawn from the loader's generator (or the default one) for every
#   iterator; worker w seeds minitorch and Python's random with base_seed + w, and NumPy's
#   legacy global RNG from _generate_state(base_seed, w), all as torch does. Each worker also
#   sets set_num_threads(1), as torch.
# - Start methods: under fork the dataset is inherited; under spawn/forkserver it is pickled
#   here first, so that an unpicklable dataset, or one defined in a notebook's __main__, fails
#   with advice instead of killing workers (see _pickle_payload and LOAD_ADVICE).
# - Never hang: every wait on the result queue is a short poll followed by a liveness check
#   of the workers; a dead worker raises "DataLoader worker (pid(s) N) exited unexpectedly".
#   Workers likewise poll their index queue and exit once the main process is gone.
# - Shutdown (end of epoch, error, `del`, garbage collection): done_event, then None to each
#   index queue, a bounded join, and terminate() for whatever is still running.
# - An iterable dataset's worker answers StopIteration with _IterableDatasetStopIteration and
#   gets no further tasks; the epoch ends when no worker is active.

_JOIN_SECONDS = 1.0  # how long shutdown waits for workers to exit before terminating them


class _MainRefPickler(pickle.Pickler):
    """A pickler that notes the classes and functions it saves by reference to __main__."""

    def __init__(self, file):
        super().__init__(file, protocol=pickle.HIGHEST_PROTOCOL)
        self.main_refs = []

    def reducer_override(self, obj):
        if isinstance(obj, (type, types.FunctionType)) and obj.__module__ == "__main__":
            self.main_refs.append(obj.__qualname__)
        return NotImplemented


def _main_is_importable() -> bool:
    """Whether a spawned process can import this process's __main__ (a script or `-m`)."""
    main = sys.modules.get("__main__")
    if getattr(main, "__file__", None):
        return True
    spec = getattr(main, "__spec__", None)
    return bool(getattr(spec, "name", None))


def _pickle_payload(payload, method: str) -> bytes:
    """The workers' payload as bytes, or a RuntimeError saying why it cannot reach them."""
    buf = io.BytesIO()
    pickler = _MainRefPickler(buf)
    advice = _worker.LOAD_ADVICE.format(method=method)
    try:
        pickler.dump(payload)
    except Exception as e:
        raise RuntimeError(
            f"DataLoader: the dataset, collate_fn or worker_init_fn cannot be pickled "
            f"({type(e).__name__}: {e}). {advice}"
        ) from e
    if pickler.main_refs and not _main_is_importable():
        names = ", ".join(sorted(set(pickler.main_refs)))
        raise RuntimeError(
            f"DataLoader: {names} defined in __main__ (a notebook or the interactive "
            f"interpreter) cannot be loaded by worker processes. {advice}"
        )
    return buf.getvalue()


class _MultiProcessingDataLoaderIter(_BaseDataLoaderIter):
    """Loads batches in num_workers worker processes. See NOTE [ DataLoader workers ]."""

    def __init__(self, loader) -> None:
        super().__init__(loader)
        self._shutdown = True  # nothing to shut down until workers exist
        self._workers = []
        self._index_queues = []
        self._prefetch_factor = loader.prefetch_factor
        self._in_order = loader.in_order
        if self._prefetch_factor <= 0:
            raise AssertionError(
                "prefetch_factor must be greater than 0 for MultiProcessingDataLoaderIter"
            )
        ctx = loader.multiprocessing_context or multiprocessing.get_context()
        method = ctx.get_start_method()
        payload = (
            self._dataset,
            self._auto_collation,
            self._collate_fn,
            self._drop_last,
            loader.worker_init_fn,
        )
        if method != "fork":
            payload = _pickle_payload(payload, method)
        self._result_queue = ctx.Queue()
        self._done_event = ctx.Event()
        self._shutdown = False
        is_iterable = self._dataset_kind == _DatasetKind.Iterable
        try:
            for i in range(self._num_workers):
                index_queue = ctx.Queue()
                index_queue.cancel_join_thread()  # never block this process's exit
                w = ctx.Process(
                    target=_worker._worker_loop,
                    args=(
                        is_iterable,
                        payload,
                        index_queue,
                        self._result_queue,
                        self._done_event,
                        self._base_seed,
                        i,
                        self._num_workers,
                        method,
                    ),
                    daemon=True,
                )
                w.start()
                self._index_queues.append(index_queue)
                self._workers.append(w)
            self._reset(loader, first_iter=True)
        except BaseException:
            self._shutdown_workers()
            raise

    def _reset(self, loader, first_iter: bool = False) -> None:
        super()._reset(loader, first_iter)
        self._send_idx = 0  # the next task to send
        self._rcvd_idx = 0  # the next task to return
        self._task_info = {}  # task -> (worker,) while pending, (worker, data) once arrived
        self._tasks_outstanding = 0
        self._workers_status = [True] * self._num_workers
        self._workers_num_tasks = [0] * self._num_workers
        self._worker_cycle = itertools.cycle(range(self._num_workers))
        if not first_iter:
            # Persistent workers: start a new epoch once every worker acknowledged; results
            # of the previous epoch still in flight are dropped.
            for q in self._index_queues:
                q.put(_worker._ResumeIteration())
            pending = self._num_workers
            while pending > 0:
                key, _ = self._get_data()
                if isinstance(key, _worker._ResumeIteration):
                    pending -= 1
        for _ in range(self._prefetch_factor * self._num_workers):
            self._try_put_index()

    # --- receiving ---

    def _try_get_data(self, timeout: float):
        """(True, item) from the result queue, or (False, None) after `timeout`; raises if a
        worker died."""
        try:
            message = self._result_queue.get(timeout=timeout)
        except queue.Empty as e:
            dead = [
                w
                for i, w in enumerate(self._workers)
                if self._workers_status[i] and not w.is_alive()
            ]
            if dead:
                for i, w in enumerate(self._workers):
                    if w in dead:
                        self._workers_status[i] = False
                pids = ", ".join(str(w.pid) for w in dead)
                self._shutdown_workers()
                raise RuntimeError(f"DataLoader worker (pid(s) {pids}) exited unexpectedly") from e
            return False, None
        return True, pickle.loads(message)  # pickled by the worker: see _worker._send

    def _get_data(self):
        deadline = time.monotonic() + self._timeout if self._timeout > 0 else None
        while True:
            wait = _worker.MP_STATUS_CHECK_INTERVAL
            if deadline is not None:
                wait = min(wait, max(deadline - time.monotonic(), 0.0))
            ok, data = self._try_get_data(wait)
            if ok:
                return data
            if deadline is not None and time.monotonic() >= deadline:
                raise RuntimeError(f"DataLoader timed out after {self._timeout} seconds")

    def _next_data(self):
        while True:
            # Skip tasks that will never be answered: sent to a worker whose iterable dataset
            # ended before it got to them.
            while self._rcvd_idx < self._send_idx:
                info = self._task_info.get(self._rcvd_idx)
                if info is not None:
                    if len(info) == 2 or self._workers_status[info[0]]:
                        break
                    del self._task_info[self._rcvd_idx]
                self._rcvd_idx += 1
            else:
                if not self._persistent_workers:
                    self._shutdown_workers()
                raise StopIteration

            info = self._task_info[self._rcvd_idx]
            if len(info) == 2:  # arrived earlier
                del self._task_info[self._rcvd_idx]
                self._rcvd_idx += 1
                return self._process_data(info[1], info[0])

            if self._shutdown:  # a worker died or the loader timed out: the queues are closed
                raise RuntimeError(
                    "This DataLoader iterator was shut down after an error; start a new epoch "
                    "with iter(loader)"
                )
            idx, data = self._get_data()
            self._tasks_outstanding -= 1
            if isinstance(data, _worker._IterableDatasetStopIteration):
                self._mark_worker_done(data.worker_id)
                self._try_put_index()
                continue
            if idx == self._rcvd_idx or not self._in_order:
                worker_id = self._task_info.pop(idx)[0]
                if idx == self._rcvd_idx:
                    self._rcvd_idx += 1
                return self._process_data(data, worker_id)
            self._task_info[idx] += (data,)

    def _process_data(self, data, worker_id: int):
        self._workers_num_tasks[worker_id] -= 1
        self._try_put_index()
        if isinstance(data, _worker.ExceptionWrapper):
            data.reraise()
        if self._pin_memory:
            data = _collate.pin_memory(data)
        return data

    # --- sending ---

    def _try_put_index(self) -> None:
        if self._shutdown:
            return
        try:
            index = self._next_index()
        except StopIteration:
            return
        # in_order=False: the next active worker holding fewer than its share of the
        # prefetch_factor * num_workers tasks, as torch (a slow worker's queue does not grow,
        # the fast ones get its turns).
        share, active = None, sum(self._workers_status)
        if not self._in_order and active:
            share = self._prefetch_factor * self._num_workers // active
        for _ in range(self._num_workers):  # the next active worker, if any
            worker_id = next(self._worker_cycle)
            if self._workers_status[worker_id] and (
                share is None or self._workers_num_tasks[worker_id] < share
            ):
                break
        else:
            return
        self._index_queues[worker_id].put((self._send_idx, index))
        self._task_info[self._send_idx] = (worker_id,)
        self._workers_num_tasks[worker_id] += 1
        self._tasks_outstanding += 1
        self._send_idx += 1

    def _mark_worker_done(self, worker_id: int) -> None:
        """The worker's iterable dataset is exhausted: send it nothing more this epoch (and let
        it exit, unless workers persist across epochs)."""
        self._workers_status[worker_id] = False
        if not self._persistent_workers:
            self._index_queues[worker_id].put(None)

    # --- shutting down ---

    def _shutdown_workers(self) -> None:
        if self._shutdown:
            return
        self._shutdown = True
        try:
            self._done_event.set()
            for q in self._index_queues:
                try:
                    q.put(None)
                except (OSError, ValueError):
                    pass
            deadline = time.monotonic() + _JOIN_SECONDS
            for w in self._workers:
                w.join(timeout=max(deadline - time.monotonic(), 0.0))
            for q in self._index_queues:
                q.cancel_join_thread()
                q.close()
        finally:
            for w in self._workers:
                if w.is_alive():
                    w.terminate()
                    w.join()
            self._result_queue.cancel_join_thread()
            self._result_queue.close()

    def __del__(self):
        try:
            self._shutdown_workers()
        except Exception:  # interpreter shutdown: modules may be half torn down
            pass
