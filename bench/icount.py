"""Count the CPU instructions of one step of the bench workloads: a reproducible speed measure.

    python bench/icount.py [--steps N] [--only NAME[,NAME...]] [--libs numpy,minitorch,torch]

Timings on a shared machine drift by tens of percent between runs; the number of instructions a
step executes does not (to about 0.1% here). Each (workload, library) runs twice under
valgrind's cachegrind (`--cache-sim=no`: counting only), once with N steps and once with 2N
after the same warm-up; the difference divided by N is the count per step, free of start-up,
import and first-step costs (a run of 0 steps is not a good base: the first steps after the
warm-up still pay one-time costs, such as NumPy's allocator growing its caches). The environment
is pinned so that runs repeat: PYTHONHASHSEED=0 (dict and set layouts), one BLAS/OpenMP thread
(no spinning workers), and the bytecode caches written first (a compile inside one run only
would count). The cyclic garbage collector is off while the steps run: its full collections
traverse every live object and fall at other steps in runs of other lengths, which made the
difference of two runs swing by more than a whole step. The counts rank per-op overhead well
(the Python frontend is instruction-bound); for kernel-bound workloads (big GEMMs, memory-bound
passes) a count says less than a timing does: use bench/compare.py there. Needs valgrind
(Debian: `apt install valgrind`); python must be a real interpreter binary, not a shell shim
(pyenv's), which valgrind cannot follow: the script resolves sys.executable's real path.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile

BENCH_DIR = os.path.dirname(os.path.abspath(__file__))
REPO_ROOT = os.path.dirname(BENCH_DIR)
WARMUP = 20

# the workloads whose steps are short enough to run under valgrind (about 50x slower)
DEFAULT = ("pointwise_fwd_bwd", "pointwise_fwd_nograd", "mlp_step_tiny")

_CHILD = """
import gc
import sys
sys.path[:0] = [{root!r}, {bench!r}]
if {lib!r} == "numpy":  # minitorch's malloc settings, as bench/compare.py's floor
    from minitorch._backend import host_memory
    host_memory.tune()
import workloads
step = workloads.make_step({lib!r}, {name!r})
if step is not None:
    for _ in range({warmup}):
        step()
    gc.collect()
    gc.disable()
    for _ in range({steps}):
        step()
"""

_PINNED = {
    "PYTHONHASHSEED": "0",
    "OPENBLAS_NUM_THREADS": "1",
    "OMP_NUM_THREADS": "1",
    "MKL_NUM_THREADS": "1",
}


def _count(python, lib, name, steps, workdir):
    """Instructions of one child run (`steps` steps after the warm-up), from cachegrind's total."""
    script = os.path.join(workdir, "child.py")
    with open(script, "w") as f:
        f.write(
            _CHILD.format(
                root=REPO_ROOT, bench=BENCH_DIR, lib=lib, name=name, warmup=WARMUP, steps=steps
            )
        )
    out = os.path.join(workdir, "cg.out")
    env = dict(os.environ, **_PINNED)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    cmd = [
        "valgrind",
        "--tool=cachegrind",
        "--cache-sim=no",
        f"--cachegrind-out-file={out}",
        python,
        script,
    ]
    proc = subprocess.run(cmd, env=env, capture_output=True, text=True)
    match = re.search(r"I\s+refs:\s+([\d,]+)", proc.stderr)
    if proc.returncode != 0 or match is None:
        raise RuntimeError(f"{lib}/{name} failed under valgrind:\n{proc.stderr[-2000:]}")
    return int(match.group(1).replace(",", ""))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--steps", type=int, default=50)
    parser.add_argument("--only", default=",".join(DEFAULT))
    parser.add_argument("--libs", default="numpy,minitorch,torch")
    args = parser.parse_args()
    if shutil.which("valgrind") is None:
        sys.exit("valgrind is not installed (Debian: apt install valgrind)")
    python = os.path.realpath(sys.executable)
    names = args.only.split(",")
    libs = args.libs.split(",")
    # write the bytecode caches first, outside valgrind (a run that compiles counts it)
    subprocess.run(
        [python, "-c", "import minitorch, torch"],
        capture_output=True,
        env=dict(os.environ, PYTHONDONTWRITEBYTECODE=""),
    )
    rows = {}
    with tempfile.TemporaryDirectory() as workdir:
        for name in names:
            for lib in libs:
                if (
                    lib == "torch"
                    and subprocess.run(
                        [python, "-c", "import torch"], capture_output=True
                    ).returncode
                ):
                    continue
                base = _count(python, lib, name, args.steps, workdir)
                total = _count(python, lib, name, 2 * args.steps, workdir)
                rows[name, lib] = (total - base) / args.steps
                print(f"{name:24s} {lib:10s} {rows[name, lib] / 1e3:10.1f}k", file=sys.stderr)
    print(f"\ninstructions per step ({args.steps} steps, cachegrind)\n")
    print("| workload | " + " | ".join(libs) + " | minitorch/torch | minitorch/numpy |")
    print("|---|" + "---:|" * (len(libs) + 2))
    for name in names:
        cells = [f"{rows[name, lib] / 1e3:.1f}k" if (name, lib) in rows else "—" for lib in libs]
        mt, th, fl = (rows.get((name, lib)) for lib in ("minitorch", "torch", "numpy"))
        cells.append(f"{mt / th:.2f}×" if mt and th else "—")
        cells.append(f"{mt / fl:.2f}×" if mt and fl else "—")
        print(f"| {name} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
