"""The GPU check: run on a machine with an NVIDIA GPU, CuPy and PyTorch (CUDA) installed.

1. runs the device-agnostic tests on 'cuda' (the `device` fixture adds it when a GPU is present);
2. times training steps at GPU sizes on minitorch and on torch CUDA eager — MLP 4096-4096-4096-1000
   batch 1024, the CNN of bench/workloads.py at batch 256, a transformer block (batch 64, seq 512,
   dim 1024) — with CUDA events, warm-up and medians, and prints a Markdown table.

    python bench/gpu_check.py [--skip-tests] [--steps 20] [--only mlp,cnn,block]

Finishes in a few minutes on one GPU (the test run dominates; --skip-tests for timings only).
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, REPO)


def run_tests(timeout_s: int) -> int:
    """The device-agnostic tests, on 'cuda' only (their ids carry the device name)."""
    cmd = [
        sys.executable,
        "-m",
        "pytest",
        "tests",
        "-q",
        "-x",
        "-k",
        "cuda",
        "-p",
        "no:cacheprovider",
    ]
    print("$", " ".join(cmd), flush=True)
    start = time.perf_counter()
    try:
        rc = subprocess.call(cmd, cwd=REPO, timeout=timeout_s)
    except subprocess.TimeoutExpired:
        print(f"tests stopped after {timeout_s} s", flush=True)
        return 124
    print(f"tests: exit {rc} in {time.perf_counter() - start:.0f} s", flush=True)
    return rc


# --- workloads, written once against a `torch` module (minitorch or torch) ---


def mlp(T, dev):
    nn = T.nn
    model = nn.Sequential(
        nn.Linear(4096, 4096), nn.ReLU(), nn.Linear(4096, 4096), nn.ReLU(), nn.Linear(4096, 1000)
    ).to(dev)
    x = T.randn(1024, 4096, device=dev)
    y = T.randint(0, 1000, (1024,), device=dev)
    return _trainer(T, model, lambda: nn.functional.cross_entropy(model(x), y))


def cnn(T, dev):
    nn = T.nn
    model = nn.Sequential(
        nn.Conv2d(1, 16, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
        nn.Conv2d(16, 32, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
        nn.Flatten(), nn.Linear(32 * 7 * 7, 10),
    ).to(dev)  # fmt: skip
    x = T.randn(256, 1, 28, 28, device=dev)
    y = T.randint(0, 10, (256,), device=dev)
    return _trainer(T, model, lambda: nn.functional.cross_entropy(model(x), y))


def block(T, dev):
    nn = T.nn
    layer = nn.TransformerEncoderLayer(1024, 16, 4096, dropout=0.0, batch_first=True).to(dev)
    x = T.randn(64, 512, 1024, device=dev)
    return _trainer(T, layer, lambda: layer(x).square().mean())


def _trainer(T, model, loss_fn):
    opt = T.optim.SGD(model.parameters(), lr=1e-3)

    def step():
        loss = loss_fn()
        opt.zero_grad()
        loss.backward()
        opt.step()

    return step


WORKLOADS = {"mlp": mlp, "cnn": cnn, "block": block}


class _Events:
    """CUDA events for either library: torch's, or CuPy's for minitorch."""

    def __init__(self, library):
        if library == "torch":
            import torch

            self.new = lambda: torch.cuda.Event(enable_timing=True)
            self.sync = torch.cuda.synchronize
        else:
            import cupy

            self.new = cupy.cuda.Event
            self.sync = cupy.cuda.runtime.deviceSynchronize

    def time_ms(self, fn) -> float:
        start, end = self.new(), self.new()
        start.record()
        fn()
        end.record()
        end.synchronize()
        if hasattr(start, "elapsed_time"):
            return start.elapsed_time(end)
        import cupy

        return cupy.cuda.get_elapsed_time(start, end)


def time_workload(library: str, name: str, steps: int, warmup: int) -> float:
    import importlib

    T = importlib.import_module(library)
    T.manual_seed(0)
    step = WORKLOADS[name](T, "cuda")
    events = _Events(library)
    for _ in range(warmup):
        step()
    events.sync()
    return statistics.median(events.time_ms(step) for _ in range(steps))


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--skip-tests", action="store_true")
    parser.add_argument("--test-timeout", type=int, default=300)
    parser.add_argument("--steps", type=int, default=20)
    parser.add_argument("--warmup", type=int, default=3)
    parser.add_argument("--only", default=",".join(WORKLOADS))
    args = parser.parse_args(argv)

    import minitorch

    if not minitorch.cuda.is_available():
        print("no GPU visible to minitorch (CuPy missing or no device): nothing to check")
        return 1
    rc = 0 if args.skip_tests else run_tests(args.test_timeout)

    rows = []
    for name in args.only.split(","):
        times = {}
        for library in ("minitorch", "torch"):
            try:
                times[library] = time_workload(library, name, args.steps, args.warmup)
            except Exception as e:  # a failing workload shows in its cell, the others still run
                times[library] = f"error: {type(e).__name__}: {str(e)[:60]}"
            print(f"{name} {library}: {times[library]}", flush=True)
        rows.append((name, times))

    print("\n| workload | minitorch (ms) | torch CUDA (ms) | minitorch/torch |")
    print("|---|---:|---:|---:|")
    for name, t in rows:
        mt, th = t["minitorch"], t["torch"]
        ratio = f"{mt / th:.2f}x" if isinstance(mt, float) and isinstance(th, float) else "—"
        cell = lambda v: f"{v:.2f}" if isinstance(v, float) else v  # noqa: E731
        print(f"| {name} | {cell(mt)} | {cell(th)} | {ratio} |")
    return rc


if __name__ == "__main__":
    sys.exit(main())
