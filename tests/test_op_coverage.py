"""The op-coverage table (docs/op_coverage.md) matches what tools/op_coverage.py generates."""

from __future__ import annotations

import importlib.util
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _tool():
    spec = importlib.util.spec_from_file_location("op_coverage", ROOT / "tools" / "op_coverage.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_committed_table_is_up_to_date():
    tool = _tool()
    expected = tool.render(tool.load_snapshot())
    committed = (ROOT / "docs" / "op_coverage.md").read_text()
    assert committed == expected, (
        "docs/op_coverage.md is out of date (minitorch's names changed): run "
        "`python tools/op_coverage.py` to regenerate it, and commit the result"
    )


def test_classification():
    tool = _tool()
    assert tool.classify("torch", "add") == "supported"
    assert tool.classify("tensor", "multinomial") == "supported"
    assert tool.classify("tensor", "shape") == "supported"  # attributes count
    assert tool.classify("torch", "no_such_op_in_torch") == "missing"
    tool.FORWARD_ONLY["torch"].add("add")
    assert tool.classify("torch", "add") == "forward-only"


def test_snapshot_lists_every_group():
    names = _tool().load_snapshot()
    assert names["torch_version"]
    for group in ("tensor", "torch", "linalg", "nn.functional"):
        assert names[group] == sorted(set(names[group])) and len(names[group]) > 20
    assert "bernoulli" in names["torch"] and "uniform_" in names["tensor"]
