"""What the differential fuzzers under tools/fuzz/ share.

Each fuzzer runs the same seeded random cases in PyTorch (torch 2.13 CPU must be installed) and in
minitorch, compares what it can observe, and prints a summary of the mismatches by kind. This module
holds the common pieces:

- ``cli(...)``: the command line (``--seed``, ``--cases``, ``--timeout``, ``--show``, ``-v``),
  seeding of Python/NumPy/torch/minitorch, and a start time;
- ``torch`` / ``mt``: torch imported with one thread and warnings silenced, and minitorch;
- ``timeout(seconds)``: a per-case time limit (raises ``CaseTimeout``);
- ``outcome`` / ``compare`` / ``run_case``: run a function in both libraries and compare values with
  a dtype-aware tolerance, dtypes, shapes, exception type and the first line of the message;
- ``Report``: collects mismatches by kind, prints the summary and gives the exit status
  (0: no mismatch, 1: mismatches, 2: the fuzzer itself crashed).
"""

from __future__ import annotations

import argparse
import contextlib
import random
import re
import signal
import sys
import time
import warnings
from collections import Counter

import numpy as np

try:
    import torch
except ImportError:  # pragma: no cover - the fuzzers need torch
    sys.exit("tools/fuzz needs PyTorch 2.13 (CPU): pip install torch==2.13.0")

import minitorch
import minitorch as mt

torch.set_num_threads(1)
warnings.simplefilter("ignore")

__all__ = [
    "CaseTimeout",
    "Report",
    "cli",
    "close",
    "compare",
    "err",
    "grad_outcome",
    "limited",
    "minitorch",
    "mk",
    "mt",
    "norm_msg",
    "outcome",
    "run_case",
    "seed_all",
    "timeout",
    "tonp",
    "torch",
]


# ----------------------------------------------------------------------------- command line


def seed_all(seed: int) -> None:
    random.seed(seed)
    np.random.seed(seed % 2**32)
    torch.manual_seed(seed)
    mt.manual_seed(seed)


def cli(area: str, default_cases: int, default_seed: int = 0, extra=None, argv=None):
    """Parse the common options (plus ``extra(parser)``'s), seed everything, return the args.

    ``args.report`` is a fresh :class:`Report` for ``area``.
    """
    p = argparse.ArgumentParser(description=f"differential fuzzer: {area} (torch vs minitorch)")
    p.add_argument(
        "--seed", type=int, default=default_seed, help="first seed (default %(default)s)"
    )
    p.add_argument("--cases", type=int, default=default_cases, help="cases (default %(default)s)")
    p.add_argument("--timeout", type=float, default=20.0, help="seconds per case (0: none)")
    p.add_argument("--show", type=int, default=3, help="examples printed per kind")
    p.add_argument("-v", "--verbose", action="store_true", help="print every mismatch")
    if extra is not None:
        extra(p)
    args = p.parse_args(argv)
    seed_all(args.seed)
    args.report = Report(area, show=args.show, verbose=args.verbose)
    return args


# ----------------------------------------------------------------------------- time limit


class CaseTimeout(Exception):
    """A case ran past its time limit."""


@contextlib.contextmanager
def timeout(seconds: float | None):
    """Raise :class:`CaseTimeout` in the body after ``seconds`` (None/0: no limit; POSIX only)."""
    if not seconds or not hasattr(signal, "setitimer"):
        yield
        return

    def _fire(signum, frame):
        raise CaseTimeout(f"case ran past {seconds:g} s")

    old = signal.signal(signal.SIGALRM, _fire)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)


def limited(fn, seconds, on_timeout=None):
    """``fn`` with a time limit per call; a call that runs past it returns ``on_timeout(exc)``
    (default: ``err(exc)``, i.e. ("err", "CaseTimeout", ...)), so a hang shows as a mismatch."""
    on_timeout = on_timeout or err

    def wrapped(*a, **k):
        try:
            with timeout(seconds):
                return fn(*a, **k)
        except CaseTimeout as e:
            return on_timeout(e)

    wrapped.__name__ = getattr(fn, "__name__", "limited")
    return wrapped


# ----------------------------------------------------------------------------- outcomes


def norm_msg(m: str) -> str:
    """A message with addresses (0x...) blanked, for comparing messages."""
    return re.sub(r"0x[0-9a-fA-F]+", "ADDR", m)


def err(e: BaseException, n: int = 300):
    """("err", exception type name, first line of the message)."""
    return ("err", type(e).__name__, str(e).split("\n")[0][:n])


def _dtname(dt) -> str:
    return str(dt).replace("torch.", "").replace("minitorch.", "")


def mk(lib, a, dt=None, rg=False):
    """A tensor of ``lib`` holding a copy of the array ``a`` (as dtype name ``dt``)."""
    a = np.asarray(a)
    if dt is not None:
        a = np.asarray(a, dtype={"bool": np.bool_}.get(dt, dt))
    t = lib.from_numpy(np.array(a, copy=True))
    if rg:
        t.requires_grad_(True)
    return t


def tonp(x):
    """A library-neutral summary of a result: ("T", dtype, shape, array) / ("L", n, items) / ..."""
    if isinstance(x, (torch.Tensor, mt.Tensor)):
        t = x.detach()
        if _dtname(t.dtype) in ("bfloat16",):
            t = t.float()
        if isinstance(x, torch.Tensor):
            arr = t.resolve_conj().resolve_neg().cpu().numpy()
        else:
            arr = np.asarray(t.cpu().numpy())
        return ("T", _dtname(x.dtype), tuple(x.shape), np.array(arr, copy=True))
    if isinstance(x, (tuple, list)):
        return ("L", len(x), [tonp(v) for v in x])
    if isinstance(x, (bool, int, float, complex, type(None), str)):
        return ("S", x)
    if isinstance(x, (torch.dtype, mt.dtype)):
        return ("S", _dtname(x))
    if isinstance(x, (torch.Size, mt.Size)):
        return ("S", tuple(x))
    return ("?", type(x).__name__)


def outcome(fn, lib, *a, **k):
    """("ok", tonp(fn(lib, *a, **k))) or ("err", type, first message line)."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            r = fn(lib, *a, **k)
        return ("ok", tonp(r))
    except CaseTimeout:
        raise
    except Exception as e:  # noqa: BLE001
        return err(e)


def default_tol(dtype_name: str):
    """(rtol, atol) for comparing results of this dtype."""
    if dtype_name in ("float16", "bfloat16"):
        return 1e-2, 1e-2
    if dtype_name in ("float32", "complex64"):
        return 1e-4, 1e-5
    return 1e-7, 1e-9


def close(a, b, rtol=None, atol=None):
    """None when two ``tonp`` summaries agree, else a short reason (dtype, shape, values ...).

    With ``rtol``/``atol`` None the tolerance follows the dtype (:func:`default_tol`).
    """
    if a[0] != b[0]:
        return f"kind {a[0]} vs {b[0]}"
    if a[0] == "T":
        if a[1] != b[1]:
            return f"dtype {a[1]} vs {b[1]}"
        if a[2] != b[2]:
            return f"shape {a[2]} vs {b[2]}"
        x, y = a[3], b[3]
        if x.dtype == bool or y.dtype == bool or np.issubdtype(x.dtype, np.integer):
            if np.array_equal(x, y):
                return None
            return f"int values {x.ravel()[:4]} vs {y.ravel()[:4]}"
        rt, at = default_tol(a[1]) if rtol is None else (rtol, atol)
        if x.size and not np.allclose(x, y, rtol=rt, atol=at, equal_nan=True):
            if np.isfinite(x).all() and np.isfinite(y).all():
                return f"values maxdiff {np.max(np.abs(x - y)):.3g}"
            return "values nonfinite"
        return None
    if a[0] == "L":
        if a[1] != b[1]:
            return f"len {a[1]} vs {b[1]}"
        for i, (u, v) in enumerate(zip(a[2], b[2], strict=False)):
            r = close(u, v, rtol, atol)
            if r:
                return f"[{i}] {r}"
        return None
    if a[0] == "S":
        if isinstance(a[1], float) and isinstance(b[1], float):
            rt, at = (1e-7, 1e-9) if rtol is None else (rtol, atol)
            if np.isclose(a[1], b[1], rtol=rt, atol=at, equal_nan=True):
                return None
            return f"scalar {a[1]} vs {b[1]}"
        return None if a[1] == b[1] else f"scalar {a[1]!r} vs {b[1]!r}"
    return None if a == b else f"{a} vs {b}"


def compare(ot, om, rtol=None, atol=None, msg=True):
    """Compare two outcomes; None or (kind, detail) with kind in status/exctype/message/value."""
    if ot[0] != om[0]:
        t = ot[1:] if ot[0] == "err" else ""
        m = om[1:] if om[0] == "err" else om[0]
        return ("status", f"torch {ot[0]} {t} / mt {m}")
    if ot[0] == "err":
        if ot[1] != om[1]:
            return ("exctype", f"{ot[1]} vs {om[1]}: {ot[2][:150]} || {om[2][:150]}")
        if msg and norm_msg(ot[2]) != norm_msg(om[2]):
            return ("message", f"{ot[2][:200]} || {om[2][:200]}")
        return None
    r = close(ot[1], om[1], rtol, atol)
    return ("value", r) if r else None


def _flat_tensors(r, lib):
    if isinstance(r, lib.Tensor):
        return [r]
    if isinstance(r, (tuple, list)):
        out = []
        for v in r:
            out += _flat_tensors(v, lib)
        return out
    return []


def grad_outcome(fn, lib, arrays, dts, seed, order2=True):
    """Gradients (and with ``order2`` second-order gradients) of a random projection of fn's
    float64 outputs with respect to its float64/complex128 inputs."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            ins = [
                mk(lib, a, d, rg=(d in ("float64", "complex128")))
                for a, d in zip(arrays, dts, strict=False)
            ]
            gi = [t for t in ins if t.requires_grad]
            if not gi:
                return None
            r = fn(lib, *ins)
            outs = [o for o in _flat_tensors(r, lib) if o.dtype == lib.float64 and o.requires_grad]
            if not outs:
                return ("ok", ("S", "nograd"))
            rs = np.random.RandomState(seed)
            loss = 0
            for o in outs:
                w = lib.from_numpy(np.asarray(rs.randn(*o.shape), dtype=np.float64))
                loss = loss + (o * w).sum()
            gs = lib.autograd.grad(loss, gi, create_graph=order2, allow_unused=True)
            res1 = [tonp(g) if g is not None else ("S", None) for g in gs]
            if not order2:
                return ("ok", ("L", len(res1), res1))
            s = 0
            for g in gs:
                if g is not None and g.requires_grad:
                    v = lib.from_numpy(np.asarray(rs.randn(*g.shape), dtype=np.float64))
                    s = s + (g * v).sum()
            if isinstance(s, int):
                return ("ok", ("L", len(res1), res1))
            g2 = lib.autograd.grad(s, gi, allow_unused=True)
            res2 = [tonp(g) if g is not None else ("S", None) for g in g2]
            return ("ok", ("L", 2, [("L", len(res1), res1), ("L", len(res2), res2)]))
    except CaseTimeout:
        raise
    except Exception as e:  # noqa: BLE001
        return err(e)


def run_case(name, fn, arrays, dts, seed=0, grad=True, rtol=None, atol=None):
    """Run ``fn(lib, *tensors)`` in both libraries (and its gradients for float64 inputs).

    Returns a list of (kind, name, detail); empty when everything agrees.
    """
    res = []

    def call(lib):
        ins = [mk(lib, a, d) for a, d in zip(arrays, dts, strict=False)]
        return outcome(fn, lib, *ins)

    ot, om = call(torch), call(mt)
    c = compare(ot, om, rtol, atol)
    if c:
        res.append((c[0], name, c[1]))
    elif grad and ot[0] == "ok" and any(d == "float64" for d in dts):
        gt = grad_outcome(fn, torch, arrays, dts, seed)
        gm = grad_outcome(fn, mt, arrays, dts, seed)
        if gt is not None:
            c = compare(gt, gm, 1e-6, 1e-8)
            if c:
                res.append(("grad-" + c[0], name, c[1]))
    return res


# ----------------------------------------------------------------------------- report


class Report:
    """Mismatches by kind, with a few examples each; ``finish()`` prints and gives exit status."""

    def __init__(self, area: str, show: int = 3, verbose: bool = False):
        self.area = area
        self.show = show
        self.verbose = verbose
        self.cases = 0
        self.counts: Counter = Counter()
        self.examples: dict = {}
        self.t0 = time.perf_counter()

    def case(self, n: int = 1) -> None:
        """Count ``n`` cases run."""
        self.cases += n

    def add(self, kind, *example) -> None:
        """Record one mismatch of ``kind`` (any hashable) with its example details."""
        kind = kind if isinstance(kind, str) else " | ".join(map(str, kind))
        self.counts[kind] += 1
        lst = self.examples.setdefault(kind, [])
        if len(lst) < max(self.show, 0):
            lst.append(example)
        if self.verbose:
            print(f"MISMATCH {kind}:", *(str(e)[:400] for e in example), flush=True)

    def add_counts(self, counts, examples=None, ok_keys=(None, "ok", "OK", "same"), prefix=""):
        """Fold a fuzzer's own ``Counter`` of outcome kinds (and examples by kind) in."""
        examples = examples or {}
        for k, v in counts.items():
            self.cases += v
            if k in ok_keys:
                continue
            kind = prefix + (k if isinstance(k, str) else " | ".join(map(str, k)))
            self.counts[kind] += v
            exs = examples.get(k, [])
            lst = self.examples.setdefault(kind, [])
            for e in list(exs)[: max(self.show - len(lst), 0)]:
                lst.append(e if isinstance(e, tuple) else (e,))

    @property
    def mismatches(self) -> int:
        return sum(self.counts.values())

    def finish(self) -> int:
        dt = time.perf_counter() - self.t0
        print(f"== {self.area}: {self.cases} cases, {self.mismatches} mismatches, {dt:.1f} s")
        for kind, n in sorted(self.counts.items(), key=lambda kv: (-kv[1], kv[0])):
            print(f"  {n:6d}  {kind}")
        if self.show:
            for kind, _ in sorted(self.counts.items(), key=lambda kv: (-kv[1], kv[0])):
                print(f"-- {kind}")
                for ex in self.examples.get(kind, [])[: self.show]:
                    for part in ex:
                        print("    ", str(part)[:400])
        return 1 if self.mismatches else 0


def main_guard(fn) -> None:
    """Run ``fn()`` (returning an exit status) and exit with it; 2 when the fuzzer crashes."""
    try:
        code = fn()
    except KeyboardInterrupt:
        raise
    except Exception:  # noqa: BLE001
        import traceback

        traceback.print_exc()
        code = 2
    sys.exit(code or 0)
