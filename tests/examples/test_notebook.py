"""The teaching notebook runs top to bottom and is stored with its outputs cleared."""

from __future__ import annotations

import os
import pathlib

import pytest

NOTEBOOK = pathlib.Path(__file__).resolve().parents[2] / "examples" / "notebooks" / "tour.ipynb"


def test_notebook_is_stored_without_outputs():
    nbformat = pytest.importorskip("nbformat")
    nb = nbformat.read(NOTEBOOK, as_version=4)
    for cell in nb.cells:
        if cell.cell_type == "code":
            assert cell.outputs == [] and cell.execution_count is None, cell.source[:40]


def test_notebook_runs_top_to_bottom():
    nbformat = pytest.importorskip("nbformat")
    nbclient = pytest.importorskip("nbclient")
    pytest.importorskip("ipykernel")
    pytest.importorskip("matplotlib")
    nb = nbformat.read(NOTEBOOK, as_version=4)
    repo = str(NOTEBOOK.parents[2])
    env_path = os.environ.get("PYTHONPATH", "")
    os.environ["PYTHONPATH"] = repo + (os.pathsep + env_path if env_path else "")
    os.environ.setdefault("MPLBACKEND", "Agg")
    try:
        client = nbclient.NotebookClient(nb, timeout=120, kernel_name="python3",
                                         resources={"metadata": {"path": repo}})
        client.execute()
    finally:
        if env_path:
            os.environ["PYTHONPATH"] = env_path
        else:
            os.environ.pop("PYTHONPATH", None)
    last = nb.cells[-1].outputs
    text = "".join(o.get("text", "") for o in last if o.get("output_type") == "stream")
    weight = float(text.split("weight ")[1].split(",")[0])
    assert abs(weight - 3) < 0.3, text
