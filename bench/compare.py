"""Time the bench workloads under NumPy (the floor), minitorch and PyTorch; print a Markdown table.

    python bench/compare.py [--repeat N] [--only NAME[,NAME...]] [--rounds R] [-v]

Each library runs in its own subprocess (this script again, with --child), so one library's imports,
threads and allocator do not disturb another's. The libraries take turns over several rounds, in a
rotating order, so slow drift of the machine (turbo, other load) spreads over all of them. Inside a
child each workload is warmed up, then each call is timed alone with time.perf_counter; the table
shows the median over all calls of all rounds. PyTorch runs at its default thread count (printed).
A workload that raises in a library shows `error: ...` in that cell instead of stopping the run.
"""

from __future__ import annotations

import argparse
import gc
import importlib.util
import json
import os
import platform
import statistics
import subprocess
import sys
import time
import traceback

BENCH_DIR = os.path.dirname(os.path.abspath(__file__))
REPO_ROOT = os.path.dirname(BENCH_DIR)
RESULT_PREFIX = "@@bench-result "

WARMUP_S = 0.1
MIN_CALLS = 20
MAX_CALLS = 100_000


# ---------------------------------------------------------------------------------------------
# Child: one library, every selected workload, one round.


def _time_workload(library, name, repeat, budget_s):
    from workloads import make_step

    step = make_step(library, name)
    if step is None:
        return None  # no NumPy floor for this workload: the cell stays empty
    start = time.perf_counter()
    calls = 0
    while calls < 3 or time.perf_counter() - start < WARMUP_S:
        step()
        calls += 1
    gc.collect()
    samples = []
    start = time.perf_counter()
    while True:
        t0 = time.perf_counter()
        step()
        samples.append(time.perf_counter() - t0)
        if repeat is not None:
            if len(samples) >= repeat:
                break
        elif len(samples) >= MAX_CALLS or (
            len(samples) >= MIN_CALLS and time.perf_counter() - start >= budget_s
        ):
            break
    return samples


def _library_info(library):
    module = importlib.import_module(library)
    info = {"version": getattr(module, "__version__", "?")}
    if library == "torch":
        info["threads"] = module.get_num_threads()
    return info


def run_child(library, names, repeat, budget_s):
    sys.path[:0] = [REPO_ROOT, BENCH_DIR]
    if library == "numpy":
        # The floor runs with the malloc settings minitorch makes at import (NOTE [ Host memory
        # reuse ]), so minitorch/numpy measures the framework, not the allocator.
        from minitorch._backend import host_memory

        host_memory.tune()
    out = {"library": library, "results": {}}
    try:
        out["info"] = _library_info(library)
    except Exception as e:  # the library does not even import: every cell says so
        out["info"] = {}
        for name in names:
            out["results"][name] = {"error": f"{type(e).__name__}: {e}"}
    else:
        for name in names:
            try:
                samples = _time_workload(library, name, repeat, budget_s)
                if samples is not None:
                    out["results"][name] = {"samples": samples}
            except Exception as e:
                out["results"][name] = {
                    "error": f"{type(e).__name__}: {e}",
                    "traceback": traceback.format_exc(),
                }
    print(RESULT_PREFIX + json.dumps(out), flush=True)


# ---------------------------------------------------------------------------------------------
# Parent: rounds of children, import times, the table.


def _spawn_child(library, names, args):
    cmd = [sys.executable, os.path.abspath(__file__), "--child", library, "--only", ",".join(names)]
    cmd += ["--time", str(args.time)]
    if args.repeat is not None:
        cmd += ["--repeat", str(args.repeat)]
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=args.timeout)
    except subprocess.TimeoutExpired:
        error = f"timed out after {args.timeout} s"
        return {"info": {}, "results": {n: {"error": error} for n in names}}
    for line in proc.stdout.splitlines():
        if line.startswith(RESULT_PREFIX):
            return json.loads(line[len(RESULT_PREFIX) :])
    tail = (proc.stderr.strip().splitlines() or ["no output"])[-1]
    error = f"child exited {proc.returncode}: {tail}"
    return {"info": {}, "results": {n: {"error": error} for n in names}}


def _import_seconds(rounds=5):
    """Median time of `python -c 'import X'` minus that of `python -c 'pass'`, per library."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [REPO_ROOT, env.get("PYTHONPATH")]))
    # Time imports as users see them: from cached bytecode (a warm-up run writes the .pyc files).
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    modules = ["numpy", "minitorch"] + (["torch"] if _torch_importable() else [])
    times = {m: [] for m in ["pass", *modules]}
    failed = {}
    for m in modules:
        subprocess.run([sys.executable, "-c", f"import {m}"], env=env, capture_output=True)
    for _ in range(rounds):
        for m in times:
            code = "pass" if m == "pass" else f"import {m}"
            t0 = time.perf_counter()
            proc = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True)
            times[m].append(time.perf_counter() - t0)
            if proc.returncode != 0:
                failed[m] = (proc.stderr.decode().strip().splitlines() or ["?"])[-1]
    base = statistics.median(times.pop("pass"))
    return {
        m: {"error": failed[m]} if m in failed else {"median": statistics.median(t) - base}
        for m, t in times.items()
    }


def _torch_importable():
    return importlib.util.find_spec("torch") is not None


def _fmt_time(seconds):
    if seconds < 1e-3:
        return f"{seconds * 1e6:.1f} µs"
    if seconds < 1:
        return f"{seconds * 1e3:.2f} ms"
    return f"{seconds:.2f} s"


def _cell(result):
    if result is None:
        return "—"
    if "error" in result:
        message = result["error"].splitlines()[0] if result["error"] else "?"
        if len(message) > 70:
            message = message[:67] + "..."
        return "error: " + message.replace("|", "\\|")
    return _fmt_time(result["median"])


def _ratio(a, b):
    if a is None or b is None or "median" not in a or "median" not in b or b["median"] <= 0:
        return "—"
    ratio = a["median"] / b["median"]
    return f"{ratio:.2g}×" if ratio < 10 else f"{ratio:.0f}×"


def print_table(rows):
    """rows: [(label, {library: result})] with result {'median': s} or {'error': msg} or absent."""
    header = ["workload", "numpy floor", "minitorch", "torch", "minitorch/numpy", "minitorch/torch"]
    print("| " + " | ".join(header) + " |")
    print("|" + "|".join(["---"] + ["---:"] * (len(header) - 1)) + "|")
    for label, by_lib in rows:
        np_r, mt_r, th_r = (by_lib.get(lib) for lib in ("numpy", "minitorch", "torch"))
        cells = [label, _cell(np_r), _cell(mt_r), _cell(th_r)]
        cells += [_ratio(mt_r, np_r), _ratio(mt_r, th_r)]
        print("| " + " | ".join(cells) + " |")


def run_parent(args, names):
    sys.path.insert(0, BENCH_DIR)
    libraries = ["numpy", "minitorch"] + (["torch"] if _torch_importable() else [])
    samples = {(lib, n): [] for lib in libraries for n in names}
    round_medians = {(lib, n): [] for lib in libraries for n in names}
    errors, info = {}, {}
    for r in range(args.rounds):
        order = libraries[r % len(libraries) :] + libraries[: r % len(libraries)]
        for lib in order:
            out = _spawn_child(lib, names, args)
            info[lib] = out.get("info") or info.get(lib, {})
            for name, result in out["results"].items():
                if "error" in result:
                    errors.setdefault((lib, name), result)
                else:
                    samples[lib, name] += result["samples"]
                    round_medians[lib, name].append(statistics.median(result["samples"]))
        print(f"round {r + 1}/{args.rounds} done", file=sys.stderr, flush=True)

    rows = []
    if not args.no_import:
        imports = _import_seconds()
        rows.append(("import", imports))
    for name in names:
        by_lib = {}
        for lib in libraries:
            if (lib, name) in errors:
                by_lib[lib] = errors[lib, name]
            elif samples[lib, name]:
                by_lib[lib] = {"median": statistics.median(samples[lib, name])}
        rows.append((name, by_lib))

    _print_header(args, info, libraries)
    print()
    print_table(rows)
    spreads = [max(m) / min(m) for m in round_medians.values() if len(m) > 1]
    if spreads and max(spreads) > 1.2:
        print(
            f"\nnote: one workload's round medians differed by up to {max(spreads):.1f}× "
            "(a noisy machine); -v shows each round"
        )
    if args.verbose:
        print("\nmedian of each round:")
        for (lib, name), medians in round_medians.items():
            if medians:
                print(f"  {name:22} {lib:10} " + "  ".join(_fmt_time(m) for m in medians))
    if args.verbose and "torch" in libraries:
        # Within a round the libraries run back to back, so each round's ratio compares them in
        # the same state of a machine that drifts between slower and faster periods.
        print("\nminitorch/torch in each round, and their median:")
        for name in names:
            ours, theirs = round_medians["minitorch", name], round_medians["torch", name]
            if ours and len(ours) == len(theirs):
                ratios = [a / b for a, b in zip(ours, theirs, strict=True)]
                print(
                    f"  {name:22} {statistics.median(ratios):.2f}×   "
                    + "  ".join(f"{r:.2f}" for r in ratios)
                )
    for (lib, name), result in errors.items():
        if args.verbose and result.get("traceback"):
            print(f"\n{lib} / {name}:\n{result['traceback']}")


def _print_header(args, info, libraries):
    import numpy

    parts = [f"python {platform.python_version()}", f"numpy {numpy.__version__}"]
    if "torch" in libraries:
        torch_info = info.get("torch", {})
        parts.append(
            f"torch {torch_info.get('version', '?')} (threads: {torch_info.get('threads', '?')})"
        )
    else:
        parts.append("torch not installed")
    parts.append(f"{os.cpu_count()} CPUs")
    repeat = f"{args.repeat} calls" if args.repeat else f"≥{args.time:g} s"
    parts.append(f"{args.rounds} rounds × {repeat} per workload, median per call")
    print(", ".join(parts))
    if os.environ.get("OPENBLAS_CORETYPE"):
        print(
            f"note: OPENBLAS_CORETYPE={os.environ['OPENBLAS_CORETYPE']} is set, "
            "which may slow NumPy's BLAS"
        )


def main(argv=None):
    sys.path.insert(0, BENCH_DIR)
    from workloads import WORKLOADS

    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument(
        "--repeat",
        type=int,
        help="timed calls per workload per round "
        f"(default: as many as fit in --time, at least {MIN_CALLS})",
    )
    p.add_argument(
        "--time",
        type=float,
        default=0.3,
        help="seconds per workload per round when --repeat is not given (default 0.3)",
    )
    p.add_argument("--rounds", type=int, default=5, help="interleaved rounds (default 5)")
    p.add_argument("--only", help="comma-separated workload names: " + ", ".join(WORKLOADS))
    p.add_argument("--no-import", action="store_true", help="skip the import-time row")
    p.add_argument("--timeout", type=float, default=600, help="seconds per child process")
    p.add_argument(
        "-v",
        "--verbose",
        action="store_true",
        help="print each round's medians and the tracebacks of errors",
    )
    p.add_argument("--child", help=argparse.SUPPRESS)
    args = p.parse_args(argv)

    names = list(WORKLOADS) if not args.only else args.only.split(",")
    unknown = [n for n in names if n not in WORKLOADS]
    if unknown:
        p.error(f"unknown workload(s) {unknown}; choose from {list(WORKLOADS)}")
    if args.repeat is not None and args.repeat < 1:
        p.error("--repeat must be at least 1")

    if args.child:
        run_child(args.child, names, args.repeat, args.time)
    else:
        run_parent(args, names)


if __name__ == "__main__":
    main()
