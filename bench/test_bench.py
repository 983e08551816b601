"""The bench workloads as pytest-benchmark tests, one group per workload, one test per library.

Run with `pytest bench/` (the default `pytest` collects tests/ only); compare libraries with
`pytest bench/ --benchmark-group-by=group`, or use `python bench/compare.py` for the Markdown table.
"""

from __future__ import annotations

import pytest

from workloads import LIBRARIES, WORKLOADS, make_step

pytest.importorskip("pytest_benchmark")


@pytest.fixture(params=LIBRARIES)
def library(request):
    if request.param == "torch":
        pytest.importorskip("torch")
    return request.param


@pytest.mark.parametrize("workload", list(WORKLOADS))
def test_workload(benchmark, library, workload):
    step = make_step(library, workload)
    if step is None:
        pytest.skip(f"{workload} has no NumPy floor")
    benchmark.group = workload
    benchmark(step)
