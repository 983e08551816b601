"""TaskSpec, Measurement and the small helpers Timer and Compare share.
Mirrors torch.utils.benchmark.utils.common."""

from __future__ import annotations

import contextlib
import dataclasses
import math
import textwrap
from collections.abc import Iterable, Iterator

import numpy as np

import minitorch

__all__ = [
    "TaskSpec",
    "Measurement",
    "select_unit",
    "unit_to_english",
    "trim_sigfig",
    "ordered_unique",
    "set_torch_threads",
]

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
        """Replicates of the same task (equal TaskSpec, env included) pooled into one each.
        Times are re-expressed per run (number_per_run=1), since replicates may have used
        different block sizes; metadata is dropped, as it may differ between them."""
        grouped: dict = {}
        for m in measurements:
            grouped.setdefault(m.task_spec, []).append(m)
        return [
            Measurement(1, [t for m in ms for t in m.times], spec, None)
            for spec, ms in grouped.items()
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


def ordered_unique(elements: Iterable) -> list:
    """The distinct elements in first-seen order."""
    return list(dict.fromkeys(elements))


@contextlib.contextmanager
def set_torch_threads(n: int) -> Iterator[None]:
    """Runs the block with minitorch.set_num_threads(n), restoring the prior count after."""
    prior = minitorch.get_num_threads()
    try:
        minitorch.set_num_threads(n)
        yield
    finally:
        minitorch.set_num_threads(prior)
