"""Checks the library's calls into `xp` against an installed CuPy, without a GPU.

    pip install cupy-cuda12x        # imports on a machine with no GPU or driver
    python tools/cupy_api_check.py  # exit 1 when a call would fail on CuPy

Reads every module of minitorch/ and reports:
- `xp.<name>` (also `ctx.xp.…`, `backend.xp.…`) where CuPy has no such attribute;
- `xp.<function>(…, keyword=…)` where the CuPy function's signature has no such keyword (only
  functions written in Python have a signature to read; ufunc calls take out/dtype/casting);
- `xp.<ufunc>.<method>(…)` where CuPy raises NotImplementedError for that ufunc and method.

The strict test device (minitorch/_backend/strict.py) encodes what this found, so that the
device-agnostic tests catch a new call CuPy lacks on machines without CuPy: keep the two in step
when CuPy changes.
"""

from __future__ import annotations

import ast
import inspect
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
UFUNC_KEYWORDS = {"out", "dtype", "casting"}
# (file, call) pairs on paths that run on NumPy arrays only (a CPU branch of a kernel).
HOST_ONLY = {
    ("minitorch/_ops/cumulative.py", "xp.logaddexp.accumulate"),  # logcumsumexp's CPU branch
    ("minitorch/_ops/reduction_more.py", "xp.maximum.accumulate"),  # mode's `host` branch
    ("minitorch/_ops/pointwise.py", "xp.copysign"),  # float_mod's NumPy-only fast path
}


def _xp_path(node) -> list[str] | None:
    """['linalg', 'qr'] for xp.linalg.qr / ctx.xp.linalg.qr; None when no `xp` is in the chain."""
    parts = []
    while isinstance(node, ast.Attribute):
        if node.attr == "xp":
            return parts[::-1]
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name) and node.id == "xp":
        return parts[::-1]
    return None


def _ufunc_method_missing(cupy, ufunc, method: str) -> bool:
    """Whether CuPy refuses ufunc.method before touching a device (its NotImplementedError)."""
    try:
        fn = getattr(ufunc, method)
        if method == "at":
            fn(1.0, 0, 1.0)
        elif method == "reduceat":
            fn(1.0, 0)
        else:
            fn(1.0)
    except NotImplementedError:
        return True
    except Exception:  # any other error came from running it: the method exists
        return False
    return False


def check(cupy) -> list[str]:
    problems = []
    for path in sorted((ROOT / "minitorch").rglob("*.py")):
        rel = path.relative_to(ROOT)
        for node in ast.walk(ast.parse(path.read_text())):
            if not isinstance(node, (ast.Call, ast.Attribute)):
                continue
            func = node.func if isinstance(node, ast.Call) else node
            parts = _xp_path(func)
            if not parts:
                continue
            obj = cupy
            for i, name in enumerate(parts):
                if not hasattr(obj, name):
                    missing = ".".join(parts[: i + 1])
                    problems.append(f"{rel}:{node.lineno}: cupy has no {missing}")
                    break
                parent, obj = obj, getattr(obj, name)
            else:
                if not isinstance(node, ast.Call):
                    continue
                call = f"xp.{'.'.join(parts)}"
                if (str(rel), call) in HOST_ONLY:
                    continue
                where = f"{rel}:{node.lineno}: {call}"
                ufunc_method = isinstance(parent, cupy.ufunc)
                if ufunc_method and _ufunc_method_missing(cupy, parent, parts[-1]):
                    problems.append(f"{where}: not implemented by CuPy")
                keywords = {k.arg for k in node.keywords if k.arg}
                if isinstance(obj, cupy.ufunc):
                    bad = keywords - UFUNC_KEYWORDS
                else:
                    try:
                        params = inspect.signature(obj).parameters
                    except (TypeError, ValueError):
                        continue
                    if any(p.kind is p.VAR_KEYWORD for p in params.values()):
                        continue
                    bad = keywords - set(params)
                if bad:
                    problems.append(f"{where}: CuPy takes no keyword {sorted(bad)}")
    return sorted(set(problems))


def main() -> int:
    try:
        import cupy
    except ImportError:
        print("CuPy is not installed: pip install cupy-cuda12x (no GPU needed)")
        return 2
    problems = check(cupy)
    print("\n".join(problems) or f"every xp call is in CuPy {cupy.__version__}")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
