"""minitorch's pytest plugin: keeps NumPy's floating-point RuntimeWarnings of minitorch's kernels
out of the test runs of people who use minitorch.

torch computes 1/0, log(0) and 0/0 silently (inf, -inf, nan). minitorch's kernels are NumPy's,
which warn; `import minitorch` installs a filter that ignores those warnings where they are raised
(minitorch's op, backend and engine modules; see `_KERNEL_MODULES` in minitorch/__init__.py). pytest
replaces the warning filters around every test and around collection with its own (its
`filterwarnings` settings and `-W` options), so that filter is gone while the tests run: a test
calling `torch.log` on a zero printed NumPy's "divide by zero encountered in log", and failed under
`-W error` or `filterwarnings = error`, where the same test with torch passes.

pytest loads this module through the `pytest11` entry point of minitorch's distribution. Each hook
runs inside pytest's warning filters (pytest's own hooks are `tryfirst`, so they are the outer
wrappers) and puts the filter back in front of them for the duration. It imports nothing of
minitorch: a test run that never uses minitorch pays for one warning filter that matches nothing.
"""

from __future__ import annotations

import warnings

import pytest

# Kept equal to minitorch._KERNEL_MODULES (a test checks it).
KERNEL_MODULES = r"minitorch\.(_ops|_backend|_dtype|autograd\.engine)"


def _ignore_kernel_warnings() -> None:
    warnings.filterwarnings("ignore", category=RuntimeWarning, module=KERNEL_MODULES)


def pytest_addhooks(pluginmanager):
    """Runs when pytest registers this plugin, before conftest files and test modules are
    imported. pytest marks every top-level package of a distribution that provides a pytest11
    entry point for assertion rewriting: its `assert` statements would gain pytest's
    explanations (torch's own assert messages, `Padding_idx must be within num_embeddings`, would
    not read as torch's), each module would be parsed and compiled again on import, and an
    already imported minitorch would draw pytest's "cannot be rewritten" warning. Only this
    module is a plugin: minitorch is unmarked. (pytest keeps the marks in a private set; where it
    does not, nothing is done and minitorch is rewritten.)"""
    marks = getattr(getattr(pluginmanager, "rewrite_hook", None), "_must_rewrite", None)
    if isinstance(marks, set):
        marks.discard("minitorch")


@pytest.hookimpl(hookwrapper=True)
def pytest_collection(session):
    _ignore_kernel_warnings()
    yield


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item, nextitem):
    _ignore_kernel_warnings()
    yield
