"""minitorch.utils.benchmark: Timer, Measurement and Compare. Mirrors torch.utils.benchmark."""

from __future__ import annotations

import enum
import textwrap
import timeit as _timeit
from collections.abc import Callable

import numpy as np

from minitorch.utils.benchmark.common import (
    Measurement,
    TaskSpec,
    ordered_unique,
    select_unit,
    set_torch_threads,
    trim_sigfig,
    unit_to_english,
)
from minitorch.utils.benchmark.compare import Colorize, Compare

__all__ = [
    "Timer",
    "timer",
    "Language",
    "Measurement",
    "Compare",
    "Colorize",
    "TaskSpec",
    "select_unit",
    "unit_to_english",
    "trim_sigfig",
    "ordered_unique",
    "set_torch_threads",
]


class Language(enum.Enum):
    """The language of a Timer's statement. Mirrors torch.utils.benchmark.Language."""

    PYTHON = 0
    CPP = 1


def timer() -> float:
    """The default clock: time.perf_counter after waiting for queued GPU work.
    Mirrors torch.utils.benchmark.timer."""
    import sys

    cuda = sys.modules.get("minitorch.cuda")
    if cuda is not None and cuda.is_available():
        cuda.synchronize()  # time the device's work, not only its launch
    import time

    return time.perf_counter()


class Timer:
    """Times a statement (a string of code or a callable) with timeit.
    Mirrors torch.utils.benchmark.Timer.

    The statement runs with minitorch.set_num_threads(num_threads), restored afterwards.

    Differences from torch: Python statements only (language="c++" raises ValueError); `stmt`
    and `setup` may also be callables."""

    def __init__(
        self,
        stmt: str | Callable = "pass",
        setup: str | Callable = "pass",
        global_setup: str = "",
        timer: Callable[[], float] = timer,
        globals: dict | None = None,
        label: str | None = None,
        sub_label: str | None = None,
        description: str | None = None,
        env: str | None = None,
        num_threads: int = 1,
        language: Language | str = Language.PYTHON,
    ):
        # The spellings torch accepts, case-sensitively.
        if language in (Language.CPP, "cpp", "c++"):
            raise ValueError("Timer: C++ statements are not supported; minitorch is pure Python")
        if language not in (Language.PYTHON, "py", "python"):
            raise ValueError(f"Invalid language `{language}`.")
        if global_setup:
            raise ValueError(
                f"global_setup is C++ only, got `{global_setup}`. Most likely this code can "
                "simply be moved to `setup`."
            )
        if isinstance(stmt, str):
            stmt = textwrap.dedent(stmt).strip()
        if isinstance(setup, str):
            setup = textwrap.dedent(setup).strip()
        self._globals = dict(globals or {})
        if "torch" not in self._globals:
            import minitorch

            self._globals["torch"] = minitorch
        self._timer = _timeit.Timer(stmt=stmt, setup=setup, timer=timer, globals=self._globals)
        self._task_spec = TaskSpec(
            stmt=stmt if isinstance(stmt, str) else getattr(stmt, "__name__", repr(stmt)),
            setup=setup if isinstance(setup, str) else getattr(setup, "__name__", repr(setup)),
            global_setup=global_setup,
            label=label,
            sub_label=sub_label,
            description=description,
            env=env,
            num_threads=num_threads,
        )

    def _timeit(self, number: int) -> float:
        return max(self._timer.timeit(number), 1e-9)

    def timeit(self, number: int = 1000000) -> Measurement:
        """Runs the statement `number` times (after a short warm-up): one measurement."""
        with set_torch_threads(self._task_spec.num_threads):
            self._timeit(max(number // 100, 2))
            return Measurement(number, [self._timeit(number)], self._task_spec)

    def repeat(self, repeat: int = -1, number: int = -1):
        raise NotImplementedError("See `Timer.blocked_autorange.`")

    def autorange(self, callback=None):
        raise NotImplementedError("See `Timer.blocked_autorange.`")

    def _block_size(self, min_run_time: float) -> int:
        """Runs per measurement: grown tenfold until the timer's own cost is negligible."""
        with set_torch_threads(self._task_spec.num_threads):
            overhead = float(np.median([self._timeit(0) for _ in range(5)]))
            number = 1
            while True:
                taken = self._timeit(number)
                if overhead / taken <= 1e-4 and taken >= min_run_time / 1000:
                    break
                if taken > min_run_time or number * 10 > 2147483647:
                    break
                number *= 10
        return number

    def _loop(self, number, stop, min_run_time, max_run_time=None, callback=None) -> list:
        times: list = []
        total = 0.0
        can_stop = False
        with set_torch_threads(self._task_spec.num_threads):
            while total < min_run_time or not can_stop:
                t = self._timeit(number)
                times.append(t)
                total += t
                if callback is not None:
                    callback(number, t)
                can_stop = stop(times)
                if max_run_time and total > max_run_time:
                    break
        return times

    def blocked_autorange(
        self, callback: Callable | None = None, min_run_time: float = 0.2
    ) -> Measurement:
        """Measures blocks of runs until `min_run_time` seconds are spent (at least one block)."""
        number = self._block_size(min_run_time)
        times = self._loop(number, lambda times: True, min_run_time, callback=callback)
        return Measurement(number, times, self._task_spec)

    def adaptive_autorange(
        self,
        threshold: float = 0.1,
        *,
        min_run_time: float = 0.01,
        max_run_time: float = 10.0,
        callback: Callable | None = None,
    ) -> Measurement:
        """Like blocked_autorange, but goes on until IQR / median < threshold (or max_run_time)."""
        number = self._block_size(0.05)

        def stop(times):
            if len(times) <= 3:
                return False
            m = Measurement(number, times, self._task_spec)
            return m.iqr / m.median < threshold

        times = self._loop(number, stop, min_run_time, max_run_time, callback)
        return Measurement(number, times, self._task_spec)
