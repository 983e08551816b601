"""Compare: measurements laid out as text tables. Mirrors torch.utils.benchmark.utils.compare."""

from __future__ import annotations

import enum
import math

from minitorch.utils.benchmark.common import (
    Measurement,
    ordered_unique,
    select_unit,
    trim_sigfig,
    unit_to_english,
)

__all__ = ["Colorize", "Compare"]

# ANSI escapes torch's colorize() wraps cells in (each coloured cell ends with two resets).
_BEST = "\033[92m"
_GOOD = "\033[34m"
_BAD = "\033[2m\033[91m"
_VERY_BAD = "\033[31m"
_BOLD = "\033[1m"
_RESET = "\033[0m"

_HIGH_VARIANCE_LEGEND = "(! XX%) Measurement has high variance, where XX is the IQR / median * 100."


class Colorize(enum.Enum):
    """Whether and how Compare colours its cells. Mirrors torch.utils.benchmark.Colorize."""

    NONE = "none"
    COLUMNWISE = "columnwise"
    ROWWISE = "rowwise"


def _integer_digits(value: float) -> int:
    # ceil(log10) as torch counts them: 1.0 -> 0 and 10.0 -> 1 (the template is a minimum width,
    # so an undercount only shifts alignment, exactly as torch's output does).
    return math.ceil(math.log10(value)) if value > 0 else 1


def _colour(text: str, value: float, best: float) -> str:
    """Green within 1% (or 100 ns) of the best, blue within 10%, dim red from 2x, red from 5x."""
    if value <= best * 1.01 or value <= best + 100e-9:
        return _BEST + _BOLD + text + _RESET * 2
    if value <= best * 1.1:
        return _GOOD + _BOLD + text + _RESET * 2
    if value >= best * 5:
        return _VERY_BAD + _BOLD + text + _RESET * 2
    if value >= best * 2:
        return _BAD + text + _RESET * 2
    return text


class _ColumnFormat:
    """How one column prints its numbers: one width and number of decimals for the whole column
    (across thread groups), so the decimal points line up; a fixed 7-character slot for the
    "(! XX%)" mark when warnings are highlighted and some cell of the column has one."""

    def __init__(self, ms: list, scale: float, trim: bool, highlight: bool):
        present = [m for m in ms if m is not None]
        digits = [_integer_digits(m.median / scale) for m in present]
        if trim:
            self.decimals = min(
                max(m.significant_figures - d, 0) for m, d in zip(present, digits, strict=True)
            )
        else:
            self.decimals = 1
        self.width = max(digits) + self.decimals + (1 if self.decimals else 0)
        self.trim = trim
        self.highlight = highlight and any(m.has_warnings for m in present)
        self.scale = scale

    def _text(self, value: float, figures: int, spread: float | None) -> str:
        if self.trim:
            value = trim_sigfig(value, figures)
        mark = f" (! {spread * 100:.0f}%)" if self.highlight and spread is not None else ""
        return f"{value:>{self.width}.{self.decimals}f}" + mark.rjust(7 if self.highlight else 0)

    def cell(self, m: Measurement | None) -> str:
        if m is None:  # a blank as wide as a filled cell
            return " " * len(self._text(1.0, 1, None))
        spread = m.iqr / m.median if m.has_warnings else None
        return self._text(m.median / self.scale, m.significant_figures, spread)


def _render_table(results: list, colorize: Colorize, trim: bool, highlight: bool) -> str:
    """One label's table: a row per (num_threads, env, sub_label or stmt), a column per
    description, rows grouped under an "N threads:" bar per thread count."""
    unit, scale = select_unit(min(m.median for m in results))

    def env_order(env):  # None sorts first rather than failing against strings
        return (env is not None, env or "")

    row_keys = ordered_unique((m.num_threads, m.env, m.as_row_name) for m in results)
    row_keys.sort(key=lambda k: (k[0], env_order(k[1])))  # stable: keeps statement order
    col_keys = ordered_unique(m.description for m in results)
    at = {((m.num_threads, m.env, m.as_row_name), m.description): m for m in results}
    grid = [[at.get((rk, ck)) for ck in col_keys] for rk in row_keys]

    # Thread group of each row, and whether it opens its group (and so prints the bar).
    groups, opens = [], []
    for i, (threads, _, _) in enumerate(row_keys):
        opens.append(i == 0 or threads != row_keys[i - 1][0])
        groups.append((groups[-1] if groups else -1) + opens[-1])

    envs = {m.env for m in results}
    show_env = len(envs) > 1
    env_width = max(len(str(e)) for e in envs) if show_env else 0
    formats = [
        _ColumnFormat([row[j] for row in grid], scale, trim, highlight)
        for j in range(len(col_keys))
    ]

    text_rows = [[""] + [c or "" for c in col_keys]]
    prior_env = ""
    for i, ((_, env, name), row) in enumerate(zip(row_keys, grid, strict=True)):
        if opens[i]:
            prior_env = ""
        # The env is named only where it changes within a thread group.
        env_text = f"({env})" if show_env and env != prior_env else ""
        prior_env = env
        text_rows.append(
            ["  " + env_text.ljust(env_width + 4) + name]
            + [f.cell(m) for f, m in zip(formats, row, strict=True)]
        )
    widths = [max(len(r[j]) for r in text_rows) for j in range(len(text_rows[0]))]

    header = "  |  ".join(t.center(w) for t, w in zip(text_rows[0], widths, strict=True))
    lines = [header]
    for i, (texts, row) in enumerate(zip(text_rows[1:], grid, strict=True)):
        if opens[i]:
            lines.append(f"{row_keys[i][0]} threads: ".ljust(len(header), "-"))
        if colorize == Colorize.ROWWISE:
            row_best = min(m.median for m in row if m is not None)
            bests = [row_best] * len(row)
        elif colorize == Colorize.COLUMNWISE:
            # The best of this column within this row's thread group.
            bests = []
            for j in range(len(col_keys)):
                same = [
                    grid[k][j].median
                    for k in range(len(grid))
                    if groups[k] == groups[i] and grid[k][j] is not None
                ]
                bests.append(min(same) if same else None)
        cells = [texts[0].ljust(widths[0])]
        for j, m in enumerate(row):
            text = texts[j + 1].center(widths[j + 1])
            if colorize != Colorize.NONE and m is not None and bests[j] is not None:
                text = _colour(text, m.median, bests[j])
            cells.append(text)
        lines.append("  |  ".join(cells))

    title = f" {results[0].label or ''} ".center(len(header) - 2, "-")
    legend = ""
    if highlight and any(m.has_warnings for m in results):
        legend = _HIGH_VARIANCE_LEGEND + "\n"
    body = "\n".join(lines)
    return f"[{title}]\n{body}\n\nTimes are in {unit_to_english(unit)}s ({unit}).\n{legend}"


class Compare:
    """A table of measurements: one block per label, a row per sub_label (or statement) and env,
    a column per description, grouped by thread count. Mirrors torch.utils.benchmark.Compare.

    Differences from torch: a missing description or env prints as empty / "(None)" where torch
    raises TypeError."""

    def __init__(self, results: list):
        self._results: list = []
        self.extend_results(results)
        self._trim_significant_figures = False
        self._colorize = Colorize.NONE
        self._highlight_warnings = False

    def extend_results(self, results) -> None:
        """Appends measurements to the table."""
        for r in results:
            if not isinstance(r, Measurement):
                raise ValueError(f"Expected an instance of `Measurement`, got {type(r)} instead.")
        self._results.extend(results)

    def trim_significant_figures(self) -> None:
        """Prints each cell with only the digits its spread supports."""
        self._trim_significant_figures = True

    def colorize(self, rowwise: bool = False) -> None:
        """Colours cells against the best of their column (or of their row) with ANSI codes."""
        self._colorize = Colorize.ROWWISE if rowwise else Colorize.COLUMNWISE

    def highlight_warnings(self) -> None:
        """Marks high-variance cells with "(! XX%)"."""
        self._highlight_warnings = True

    def print(self) -> None:
        print(str(self))

    def __str__(self) -> str:
        by_label: dict = {}
        for m in Measurement.merge(self._results):
            by_label.setdefault(m.label, []).append(m)
        return "\n".join(
            _render_table(
                ms, self._colorize, self._trim_significant_figures, self._highlight_warnings
            )
            for ms in by_label.values()
        )
