"""The import rules of DESIGN.md, checked on the source: cupy only in minitorch/_backend/, and no
numpy in minitorch/_ops/ (kernels go through the backend's xp)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "minitorch"


def _sources(root: Path):
    return sorted(p for p in root.rglob("*.py") if "__pycache__" not in p.parts)


def _rel(path: Path) -> str:
    return path.relative_to(PACKAGE.parent).as_posix()


def _is_type_checking(test: ast.expr) -> bool:
    """`if TYPE_CHECKING:` or `if typing.TYPE_CHECKING:`."""
    if isinstance(test, ast.Name):
        return test.id == "TYPE_CHECKING"
    return isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"


def imported_modules(tree: ast.AST):
    """(module, line) for every import in the tree, at any depth (functions included), except
    under `if TYPE_CHECKING:`; `__import__("m")` and `importlib.import_module("m")` count too."""
    found = []
    stack = [tree]
    while stack:
        node = stack.pop()
        if isinstance(node, ast.If) and _is_type_checking(node.test):
            stack.extend(node.orelse)
            continue
        if isinstance(node, ast.Import):
            found.extend((alias.name, node.lineno) for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            found.append((node.module, node.lineno))
        elif isinstance(node, ast.Call) and _is_dynamic_import(node):
            found.append((node.args[0].value, node.lineno))
        stack.extend(ast.iter_child_nodes(node))
    return found


def _is_dynamic_import(call: ast.Call) -> bool:
    fn = call.func
    name = fn.id if isinstance(fn, ast.Name) else fn.attr if isinstance(fn, ast.Attribute) else ""
    return (
        name in ("__import__", "import_module")
        and bool(call.args)
        and isinstance(call.args[0], ast.Constant)
        and isinstance(call.args[0].value, str)
    )


def _violations(paths, banned: str):
    bad = []
    for path in paths:
        tree = ast.parse(path.read_text(), filename=str(path))
        for module, line in imported_modules(tree):
            if module == banned or module.startswith(banned + "."):
                bad.append(f"{_rel(path)}:{line} imports {module}")
    return bad


def test_cupy_is_imported_only_in_the_backend():
    backend = PACKAGE / "_backend"
    paths = [p for p in _sources(PACKAGE) if backend not in p.parents]
    bad = _violations(paths, "cupy")
    assert not bad, "cupy may be imported only in minitorch/_backend/:\n" + "\n".join(bad)


def test_ops_never_import_numpy():
    bad = _violations(_sources(PACKAGE / "_ops"), "numpy")
    assert not bad, (
        "minitorch/_ops/ computes through the backend's xp (ctx.xp, tensor._device.backend.xp), "
        "never numpy (allowed under `if TYPE_CHECKING:` only):\n" + "\n".join(bad)
    )


@pytest.mark.parametrize(
    "source, expected",
    [
        ("import numpy as np", ["numpy"]),
        ("from numpy.linalg import norm", ["numpy.linalg"]),
        ("def f():\n    import cupy\n", ["cupy"]),
        ("x = __import__('cupy')", ["cupy"]),
        ("import importlib\nm = importlib.import_module('numpy')", ["importlib", "numpy"]),
        ("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    import numpy\n", ["typing"]),
        (
            "import typing\nif typing.TYPE_CHECKING:\n    import numpy\nelse:\n    import cupy\n",
            ["typing", "cupy"],
        ),
        ("from . import numpy_helpers", []),
    ],
)
def test_the_checker_sees_imports(source, expected):
    found = sorted(m for m, _ in imported_modules(ast.parse(source)))
    assert found == sorted(expected)
