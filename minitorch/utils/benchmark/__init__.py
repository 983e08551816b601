"""minitorch.utils.benchmark: Timer, Measurement and Compare. Mirrors torch.utils.benchmark."""

from __future__ import annotations

import dataclasses
import math
import textwrap
import timeit as _timeit
from collections.abc import Callable

import numpy as np

__all__ = ["Timer", "Measurement", "Compare", "TaskSpec", "select_unit", "trim_sigfig"]

_MAX_SIGNIFICANT_FIGURES = 4
_MIN_CONFIDENCE_INTERVAL = 25e-9  # seconds
_IQR_WARN_THRESHOLD = 0.1
_IQR_GROSS_WARN_THRESHOLD = 0.25


def select_unit(t: float) -> tuple[str, float]:
    """The unit ("ns", "us", "ms", "s") that shows `t` seconds as an O(1) number, and its scale."""
    exponent = math.floor(math.log10(t) // 3) if t > 0 else -3
    unit = {-3: "ns", -2: "us", -1: "ms"}.get(exponent, "s")
    return unit, {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1.0}[unit]


def unit_to_english(u: str) -> str:
    return {"ns": "nanosecond", "us": "microsecond", "ms": "millisecond", "s": "second"}[u]


def trim_sigfig(x: float, n: int) -> float:
    """x rounded to n significant figures (3.14159, 2 -> 3.1)."""
    if x == 0:
        return 0.0
    scale = 10 ** (math.ceil(math.log10(abs(x))) - n)
    return float(round(x / scale) * scale)


@dataclasses.dataclass(frozen=True)
class TaskSpec:
    """What a Timer measures (everything but its globals)."""

    stmt: str
    setup: str
    global_setup: str = ""
    label: str | None = None
    sub_label: str | None = None
    description: str | None = None
    env: str | None = None
    num_threads: int = 1

    @property
    def title(self) -> str:
        sub = f": {self.sub_label}" if self.sub_label else ""
        if self.label is not None:
            return self.label + sub
        if "\n" not in self.stmt:
            return self.stmt + sub
        paren = f" ({self.sub_label})" if self.sub_label else ""
        return f"stmt:{paren}\n{textwrap.indent(self.stmt, '  ')}"

    def setup_str(self) -> str:
        if self.setup == "pass" or not self.setup:
            return ""
        if "\n" in self.setup:
            return f"setup:\n{textwrap.indent(self.setup, '  ')}"
        return f"setup: {self.setup}"

    def summarize(self) -> str:
        parts = [self.title, self.description or "", self.setup_str()]
        return "\n".join(f"{p}\n" if "\n" in p else p for p in parts if p)


class Measurement:
    """Times of one statement: `raw_times[i]` seconds for `number_per_run` runs.
    Mirrors torch.utils.benchmark.Measurement."""

    def __init__(
        self,
        number_per_run: int,
        raw_times: list,
        task_spec: TaskSpec,
        metadata: dict | None = None,
    ):
        self.number_per_run = number_per_run
        self.raw_times = list(raw_times)
        self.task_spec = task_spec
        self.metadata = metadata
        t = np.sort(np.asarray(self.times, dtype=np.float64))
        self._sorted_times = tuple(t.tolist())
        self._median = float(np.quantile(t, 0.5)) if len(t) else float("nan")
        self._mean = float(t.mean()) if len(t) else float("nan")
        self._p25 = float(np.quantile(t, 0.25)) if len(t) else float("nan")
        self._p75 = float(np.quantile(t, 0.75)) if len(t) else float("nan")
        self._warnings: tuple = ()
        if len(t) and self._median > 0:
            if not self.meets_confidence(_IQR_GROSS_WARN_THRESHOLD):
                self._warn("This suggests significant environmental influence.")
            elif not self.meets_confidence(_IQR_WARN_THRESHOLD):
                self._warn("This could indicate system fluctuation.")

    def _warn(self, msg: str) -> None:
        rel = self.iqr / self.median * 100
        self._warnings += (
            f"  WARNING: Interquartile range is {rel:.1f}% of the median measurement.\n"
            f"           {msg}",
        )

    def __getattr__(self, name):
        # stmt, setup, label, sub_label, description, env, num_threads, title come from the spec.
        if name in (
            "stmt",
            "setup",
            "global_setup",
            "label",
            "sub_label",
            "description",
            "env",
            "num_threads",
            "title",
            "summarize",
            "setup_str",
        ):
            spec = self.__dict__.get("task_spec")  # absent while unpickling
            if spec is not None:
                return getattr(spec, name)
        raise AttributeError(f"'Measurement' object has no attribute '{name}'")

    @property
    def times(self) -> list:
        return [t / self.number_per_run for t in self.raw_times]

    median = property(lambda self: self._median)
    mean = property(lambda self: self._mean)
    iqr = property(lambda self: self._p75 - self._p25)

    @property
    def as_row_name(self) -> str:
        return self.sub_label or self.stmt or "[Unknown]"

    @property
    def has_warnings(self) -> bool:
        return bool(self._warnings)

    def meets_confidence(self, threshold: float = _IQR_WARN_THRESHOLD) -> bool:
        return self.iqr / self.median < threshold

    @property
    def significant_figures(self) -> int:
        """A rough count of trustworthy digits, from the spread of the middle half of times."""
        n = len(self._sorted_times)
        middle = np.asarray(self._sorted_times[n // 4 : math.ceil(3 * n / 4)])
        ci = max(1.645 * float(middle.std()) / math.sqrt(len(middle)), _MIN_CONFIDENCE_INTERVAL)
        figures = math.floor(math.log10(self._median / ci))
        return min(max(figures, 1), _MAX_SIGNIFICANT_FIGURES)

    @staticmethod
    def merge(measurements) -> list:
        """Measurements of the same task pooled into one each."""
        grouped: dict = {}
        for m in measurements:
            grouped.setdefault((m.task_spec, m.number_per_run), []).append(m)
        return [
            Measurement(n, [t for m in ms for t in m.raw_times], spec, ms[0].metadata)
            for (spec, n), ms in grouped.items()
        ]

    def __repr__(self) -> str:
        n = len(self._sorted_times)
        unit, scale = select_unit(self._median)
        lines = [
            f"<torch.utils.benchmark.utils.common.Measurement object at {hex(id(self))}>",
            self.task_spec.summarize(),
            f"  {'Median: ' if n > 1 else ''}{self._median / scale:.2f} {unit}",
        ]
        if n >= 4:
            lines.append(
                f"  IQR:    {self.iqr / scale:.2f} {unit} "
                f"({self._p25 / scale:.2f} to {self._p75 / scale:.2f})"
            )
        lines.append(
            f"  {n} measurement{'s' if n > 1 else ''}, {self.number_per_run} runs "
            f"{'per measurement,' if n > 1 else ','} {self.num_threads} "
            f"thread{'s' if self.num_threads > 1 else ''}"
        )
        lines += list(self._warnings)
        return "\n".join(line for line in "\n".join(lines).strip().splitlines())


def _default_timer() -> float:
    import sys

    cuda = sys.modules.get("minitorch.cuda")
    if cuda is not None and cuda.is_available():
        cuda.synchronize()  # time the device's work, not only its launch
    import time

    return time.perf_counter()


class Timer:
    """Times a statement (a string of code or a callable) with timeit.
    Mirrors torch.utils.benchmark.Timer.

    Differences from torch: Python statements only (language="c++" is refused); num_threads is
    recorded, not applied (NumPy's thread pool is not set per call)."""

    def __init__(
        self,
        stmt: str | Callable = "pass",
        setup: str | Callable = "pass",
        global_setup: str = "",
        timer: Callable[[], float] = _default_timer,
        globals: dict | None = None,
        label: str | None = None,
        sub_label: str | None = None,
        description: str | None = None,
        env: str | None = None,
        num_threads: int = 1,
        language: str = "python",
    ):
        if str(language).lower().endswith(("c++", "cpp")):
            raise ValueError("Timer: C++ statements are not supported; minitorch is pure Python")
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
        self._timeit(max(number // 100, 2))
        return Measurement(number, [self._timeit(number)], self._task_spec)

    def repeat(self, repeat: int = -1, number: int = -1):
        raise NotImplementedError("See `Timer.blocked_autorange.`")

    def autorange(self, callback=None):
        raise NotImplementedError("See `Timer.blocked_autorange.`")

    def _block_size(self, min_run_time: float) -> int:
        """Runs per measurement: grown tenfold until the timer's own cost is negligible."""
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


class Compare:
    """A table of measurements: one block per label, a row per sub_label (or statement), a
    column per description. Mirrors torch.utils.benchmark.Compare.

    Differences from torch: no colouring (colorize() is accepted and ignored)."""

    def __init__(self, results: list):
        self._results: list = []
        self.extend_results(results)
        self._trim = False
        self._highlight_warnings = False

    def extend_results(self, results) -> None:
        for r in results:
            if not isinstance(r, Measurement):
                raise ValueError(f"Compare: expected Measurement, got {type(r).__name__}")
        self._results.extend(results)

    def trim_significant_figures(self) -> None:
        self._trim = True

    def colorize(self, rowwise: bool = False) -> None:
        pass

    def highlight_warnings(self) -> None:
        self._highlight_warnings = True

    def print(self) -> None:
        print(str(self))

    def __str__(self) -> str:
        results = Measurement.merge(self._results)
        blocks: dict = {}
        for m in results:
            blocks.setdefault(m.label, []).append(m)
        return "\n".join(self._render(label, ms) for label, ms in blocks.items())

    def _render(self, label, ms) -> str:
        unit, scale = select_unit(min(m.median for m in ms))
        cols = list(dict.fromkeys(m.description for m in ms))
        threads = sorted(set(m.num_threads for m in ms))
        header = [""] + [c or "" for c in cols]
        body = []  # rows of cells; None marks a thread-count divider
        for n in threads:
            body.append((f"{n} threads: ", None))
            rows = list(dict.fromkeys(m.as_row_name for m in ms if m.num_threads == n))
            for row in rows:
                cells = [f"      {row}"]
                for c in cols:
                    hit = [
                        m
                        for m in ms
                        if m.num_threads == n and m.as_row_name == row and m.description == c
                    ]
                    cells.append(self._cell(hit[0], scale) if hit else "")
                body.append((None, cells))
        widths = [len(h) for h in header]
        for _, cells in body:
            if cells is not None:
                widths = [max(w, len(c)) for w, c in zip(widths, cells, strict=True)]

        def line(cells):
            first = cells[0].ljust(widths[0])
            rest = [c.center(w + 4) for c, w in zip(cells[1:], widths[1:], strict=True)]
            return "|".join([first + "  "] + rest).rstrip() if rest else first

        table = [line(header)]
        total = len(table[0])
        for divider, cells in body:
            if divider is not None:
                table.append(divider + "-" * max(total - len(divider), 4))
            else:
                table.append(line(cells))
        title = f" {label} " if label else " "
        pad = max(len(table[0]) - len(title) - 2, 4)
        top = "[" + "-" * (pad // 2) + title + "-" * (pad - pad // 2) + "]"
        return "\n".join(
            [top] + table + ["", f"Times are in {unit_to_english(unit)}s ({unit}).", ""]
        )

    def _cell(self, m, scale) -> str:
        value = m.median / scale
        if self._trim:
            figures = m.significant_figures
            value = trim_sigfig(value, figures)
            digits = max(figures - int(math.ceil(math.log10(abs(value)))), 0) if value else 0
            text = f"{value:.{digits}f}"
        else:
            text = f"{value:.1f}"
        if self._highlight_warnings and m.has_warnings:
            text += f" (! {m.iqr / m.median * 100:.0f}%)"
        return text
