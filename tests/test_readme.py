"""The README's example runs and prints what the README says it prints."""

from __future__ import annotations

import contextlib
import io
import pathlib
import re

README = pathlib.Path(__file__).resolve().parents[1] / "README.md"


def test_readme_example_runs_and_fits_the_line():
    text = README.read_text()
    code = re.search(r"## Example\n\n```python\n(.*?)```", text, re.S).group(1)
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(code, str(README), "exec"), {})
    lines = out.getvalue().strip().splitlines()
    assert lines[0] == "tensor([[2., 4.],", lines
    weight, bias = map(float, lines[-1].split())
    assert abs(weight - 3) < 0.1 and abs(bias - 1) < 0.1, lines[-1]
