"""minitorch.profiler: the step-scheduled profiler over minitorch.autograd.profiler. Mirrors
torch.profiler."""

from __future__ import annotations

import enum
import os
import socket
import time
import warnings
from collections.abc import Callable, Iterable

from minitorch.autograd import profiler as _prof
from minitorch.autograd.profiler import DeviceType, record_function

__all__ = [
    "DeviceType",
    "profile",
    "schedule",
    "ProfilerAction",
    "ProfilerActivity",
    "record_function",
    "supported_activities",
    "tensorboard_trace_handler",
]


class ProfilerActivity(enum.Enum):
    """The kinds of activity a profile can collect. Mirrors torch.profiler.ProfilerActivity.

    Differences from torch: only CPU activity is recorded; CUDA is accepted and reports nothing."""

    CPU = 0
    XPU = 1
    MTIA = 2
    CUDA = 3
    HPU = 4
    PrivateUse1 = 5


class ProfilerAction(enum.Enum):
    """What the profiler does during a step. Mirrors torch.profiler.ProfilerAction."""

    NONE = 0
    WARMUP = 1
    RECORD = 2
    RECORD_AND_SAVE = 3
    DEVICE_STOPPED = 4  # torch's: device collection stopped early (never entered here)


def supported_activities() -> set:
    """The activities this build can profile. Mirrors torch.profiler.supported_activities."""
    return {ProfilerActivity.CPU}


def schedule(
    *,
    wait: int,
    warmup: int,
    active: int,
    repeat: int = 0,
    skip_first: int = 0,
    skip_first_wait: int = 0,
) -> Callable[[int], ProfilerAction]:
    """A step -> ProfilerAction function: skip `skip_first` steps, then cycles of `wait` idle,
    `warmup` and `active` steps (the last one saves), `repeat` times (0: forever).
    Mirrors torch.profiler.schedule."""
    if wait < 0 or warmup < 0 or active <= 0 or repeat < 0 or skip_first < 0:
        raise AssertionError(
            f"Invalid profiler schedule arguments. Got wait={wait} (need >= 0), "
            f"warmup={warmup} (need >= 0), active={active} (need > 0), repeat={repeat} "
            f"(need >= 0), skip_first={skip_first} (need >= 0)."
        )
    if warmup == 0:
        warnings.warn(
            "Profiler won't be using warmup, this can skew profiler results", stacklevel=2
        )
    cycle = wait + warmup + active

    def schedule_fn(step: int) -> ProfilerAction:
        if step < 0:
            raise AssertionError(f"Step must be non-negative. Got {step}.")
        if step < skip_first:
            return ProfilerAction.NONE
        pos = step - skip_first
        if skip_first_wait:
            pos += wait  # the first cycle starts at its warmup
        if repeat > 0 and pos // cycle >= repeat:
            return ProfilerAction.NONE
        phase = pos % cycle
        if phase < wait:
            return ProfilerAction.NONE
        if phase < wait + warmup:
            return ProfilerAction.WARMUP
        return ProfilerAction.RECORD if phase < cycle - 1 else ProfilerAction.RECORD_AND_SAVE

    return schedule_fn


def _default_schedule(_: int) -> ProfilerAction:
    return ProfilerAction.RECORD


def tensorboard_trace_handler(
    dir_name: str, worker_name: str | None = None, use_gzip: bool = False
):
    """An on_trace_ready callback writing each trace as '<worker>.<ns>.pt.trace.json' into
    `dir_name`. Mirrors torch.profiler.tensorboard_trace_handler."""

    def handler_fn(prof) -> None:
        os.makedirs(dir_name, exist_ok=True)
        name = worker_name or f"{socket.gethostname()}_{os.getpid()}"
        path = os.path.join(dir_name, f"{name}.{time.time_ns()}.pt.trace.json")
        if use_gzip:
            import gzip
            import tempfile

            with tempfile.TemporaryDirectory() as tmp:
                raw = os.path.join(tmp, "trace.json")
                prof.export_chrome_trace(raw)
                with open(raw, "rb") as src, gzip.open(path + ".gz", "wb") as dst:
                    dst.write(src.read())
        else:
            prof.export_chrome_trace(path)

    return handler_fn


class profile:
    """Profiles the ops run between start() and stop() (or in a with block), following a step
    schedule. Mirrors torch.profiler.profile.

    Differences from torch: CPU activity only (see minitorch.autograd.profiler.profile for the
    event names and what memory means); with_flops, with_modules and experimental_config are
    accepted and ignored."""

    def __init__(
        self,
        *,
        activities: Iterable[ProfilerActivity] | None = None,
        schedule: Callable[[int], ProfilerAction] | None = None,
        on_trace_ready: Callable | None = None,
        record_shapes: bool = False,
        profile_memory: bool = False,
        with_stack: bool = False,
        with_flops: bool = False,
        with_modules: bool = False,
        experimental_config=None,
        execution_trace_observer=None,
        acc_events: bool = False,
        use_cuda: bool | None = None,
        custom_trace_id_callback=None,
        post_processing_timeout_s: float | None = None,
    ):
        self.activities = set(activities) if activities is not None else supported_activities()
        if use_cuda is not None:
            warnings.warn(
                "`use_cuda` is deprecated, use `activities` argument instead",
                FutureWarning,
                stacklevel=2,
            )
        # (as torch's: use_cuda counts in this check only; the activities stay as given)
        asked = set(self.activities)
        if use_cuda:
            asked.add(ProfilerActivity.CUDA)
        elif use_cuda is not None:
            asked.discard(ProfilerActivity.CUDA)
        if not asked:
            raise AssertionError("No valid profiler activities found")
        self.use_device = "cuda" if ProfilerActivity.CUDA in self.activities else None
        self.post_processing_timeout_s = post_processing_timeout_s
        self.record_shapes = record_shapes
        self.profile_memory = profile_memory
        self.with_stack = with_stack
        self.with_flops = with_flops
        self.with_modules = with_modules
        self.acc_events = acc_events
        self.schedule = schedule or _default_schedule
        self.record_steps = schedule is not None  # ProfilerStep#N events mark the steps
        self.on_trace_ready = on_trace_ready
        self.step_num = 0
        self.current_action = self.schedule(self.step_num)
        self.profiler = None
        self.step_rec_fn = None
        self._events = None
        A = ProfilerAction
        prep, start, stop, ready = (
            self.prepare_trace,
            self.start_trace,
            self.stop_trace,
            self._trace_ready,
        )

        def warn(msg):
            return lambda: warnings.warn(msg, stacklevel=4)

        self.action_map = {
            (A.NONE, A.NONE): [],
            (A.NONE, A.WARMUP): [prep],
            (A.NONE, A.RECORD): [prep, start],
            (A.NONE, A.RECORD_AND_SAVE): [prep, start],
            (A.WARMUP, A.NONE): [warn("Incorrect schedule: WARMUP followed by NONE"), start, stop],
            (A.WARMUP, A.WARMUP): [],
            (A.WARMUP, A.RECORD): [start],
            (A.WARMUP, A.RECORD_AND_SAVE): [start],
            (A.RECORD, A.NONE): [warn("Incorrect schedule: RECORD followed by NONE"), stop],
            (A.RECORD, A.WARMUP): [warn("Incorrect schedule: RECORD followed by WARMUP"), stop],
            (A.RECORD, A.RECORD): [],
            (A.RECORD, A.RECORD_AND_SAVE): [],
            (A.RECORD_AND_SAVE, A.NONE): [stop, ready],
            (A.RECORD_AND_SAVE, A.WARMUP): [stop, ready, prep],
            (A.RECORD_AND_SAVE, A.RECORD): [stop, ready, prep, start],
            (A.RECORD_AND_SAVE, A.RECORD_AND_SAVE): [stop, ready, prep, start],
            (A.NONE, None): [],
            (A.WARMUP, None): [start, stop],
            (A.RECORD, None): [stop, ready],
            (A.RECORD_AND_SAVE, None): [stop, ready],
        }

    # --- the state machine ---

    def __enter__(self):
        self.start()
        return self

    def __exit__(self, *exc):
        self.stop()
        return False

    def start(self) -> None:
        self._transit(ProfilerAction.NONE, self.current_action)
        if self.record_steps:
            self._enter_step()

    def stop(self) -> None:
        self._exit_step()
        self._transit(self.current_action, None)

    def step(self) -> None:
        """Marks the start of the next step: moves through the schedule's actions."""
        self._exit_step()
        prev = self.current_action
        self.step_num += 1
        self.current_action = self.schedule(self.step_num)
        self._transit(prev, self.current_action)
        if self.record_steps:
            self._enter_step()

    def _enter_step(self):
        self.step_rec_fn = record_function(f"ProfilerStep#{self.step_num}")
        self.step_rec_fn.__enter__()

    def _exit_step(self):
        if self.step_rec_fn is not None:
            self.step_rec_fn.__exit__(None, None, None)
            self.step_rec_fn = None

    def _transit(self, prev, current) -> None:
        for action in self.action_map.get((prev, current), ()):
            action()

    def prepare_trace(self) -> None:
        if self.profiler is not None and not self.acc_events:
            self._events = None
        self.profiler = _prof.profile(
            use_device=self.use_device,
            use_cpu=ProfilerActivity.CPU in self.activities,
            record_shapes=self.record_shapes,
            profile_memory=self.profile_memory,
            with_stack=self.with_stack,
            with_flops=self.with_flops,
            with_modules=self.with_modules,
        )

    def start_trace(self) -> None:
        self.profiler._start_trace()
        self.profiler.entered = True

    def stop_trace(self) -> None:
        if self.profiler is None:
            raise AssertionError("Profiler must be initialized before stopping trace")
        self.profiler.__exit__(None, None, None)
        new = self.profiler.function_events
        if self.acc_events and self._events is not None:
            new = _prof.EventList(
                list(self._events) + list(new), profile_memory=self.profile_memory
            )
        self._events = new

    def _trace_ready(self) -> None:
        if self.on_trace_ready is not None:
            self.on_trace_ready(self)

    # --- results ---

    def _results(self, what: str) -> _prof.EventList:
        if self.profiler is None:
            raise AssertionError(f"Profiler must be initialized before {what}")
        if self._events is None:  # prepared, not stopped yet: nothing recorded, as torch's
            return _prof.EventList(profile_memory=self.profile_memory)
        return self._events

    def events(self) -> _prof.EventList:
        """The events of the last completed trace (all traces with acc_events=True)."""
        return self._results("accessing events")

    def key_averages(
        self,
        group_by_input_shape: bool = False,
        group_by_stack_n: int = 0,
        group_by_overload_name: bool = False,
    ) -> _prof.EventList:
        return self._results("getting key averages").key_averages(
            group_by_input_shape, group_by_stack_n
        )

    def export_chrome_trace(self, path: str) -> None:
        self._results("exporting chrome trace").export_chrome_trace(path)

    def export_stacks(self, path: str, metric: str = "self_cpu_time_total") -> None:
        """Writes 'frame;frame;... value' lines (flame-graph input) for events with stacks."""
        if self.profiler is None:
            raise AssertionError("Profiler must be initialized before exporting stacks")
        if not self.with_stack:
            raise AssertionError("export_stacks() requires with_stack=True")
        self._results("exporting stacks").export_stacks(path, metric)

    def add_metadata(self, key: str, value: str) -> None:
        """Accepted and ignored."""

    def add_metadata_json(self, key: str, value: str) -> None:
        """Accepted and ignored."""
