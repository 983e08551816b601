"""Where a GPU training step's time goes: the host (Python + kernel launches) or the GPU.

    python bench/gpu_profile.py [--only pointwise,nograd,cnn,mlp,block] [--steps 20]
                                [--profile cnn,block] [--out DIR] [--device cpu]

For each workload (bench/gpu_check.py's, and the per-op pointwise steps of bench/compare.py, with
and without a backward) and each library (minitorch, torch), on 'cuda':
- host ms/step: the time step() takes to return, the GPU left running (launches are asynchronous);
- wall ms/step: a run of steps timed to the GPU's end (synchronised once, at the end);
- GPU ms/step: CUDA events around each step after a synchronisation (the GPU's span of one step);
host ≈ wall means the step is bound by its Python and launch cost, GPU ≈ wall by its kernels.
Then cProfile of minitorch's step (--profile names the workloads): the functions with the most
time of their own (a CuPy call's host cost shows in its caller: Cython kernels are not profiled).
"""

from __future__ import annotations

import argparse
import cProfile
import importlib
import io
import os
import pstats
import statistics
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gpu_check  # noqa: E402

DEVICE = "cuda"


def _sync(T):
    if DEVICE != "cpu":
        T.cuda.synchronize()


def _events_ms(T, fn) -> float:
    if DEVICE == "cpu":
        return gpu_check._time_ms_wall(T, fn)
    return gpu_check._time_ms_events(T, fn)


def measure(library: str, name: str, steps: int) -> dict:
    T = importlib.import_module(library)
    T.manual_seed(0)
    if name == "pointwise":
        x = T.randn(32, 32, device=DEVICE, requires_grad=True)
        y = T.randn(32, 32, device=DEVICE, requires_grad=True)

        def step():
            ((x * y + x).tanh() * 2 - y).exp().sum().backward()

    elif name == "nograd":
        x = T.randn(32, 32, device=DEVICE)
        y = T.randn(32, 32, device=DEVICE)

        def step():
            ((x * y + x).tanh() * 2 - y).exp().sum()

    else:
        step = gpu_check.WORKLOADS[name](T, DEVICE, "gpu" if DEVICE != "cpu" else "smoke")
    for _ in range(3):
        step()
    _sync(T)
    host = []
    start = time.perf_counter()
    for _ in range(steps):
        t0 = time.perf_counter()
        step()
        host.append(time.perf_counter() - t0)
    _sync(T)
    wall = (time.perf_counter() - start) / steps
    gpu = []
    for _ in range(steps):
        _sync(T)
        gpu.append(_events_ms(T, step))
    out = {
        "host": statistics.median(host) * 1e3,
        "wall": wall * 1e3,
        "gpu": statistics.median(gpu),
        "step": step,
    }
    return out


def profile(step, steps: int, top: int) -> str:
    prof = cProfile.Profile()
    prof.enable()
    for _ in range(steps):
        step()
    prof.disable()
    s = io.StringIO()
    st = pstats.Stats(prof, stream=s)
    st.sort_stats("tottime").print_stats(top)
    st.sort_stats("cumulative").print_stats(top)
    return s.getvalue()


def kernels(library: str, name: str, steps: int, top: int) -> str:
    """The CUDA kernels of `steps` steps, by total GPU time: PyTorch's profiler (CUPTI) sees every
    kernel of the process, CuPy's included."""
    import torch
    from torch.profiler import ProfilerActivity
    from torch.profiler import profile as torch_profile

    T = importlib.import_module(library)
    T.manual_seed(0)
    step = gpu_check.WORKLOADS[name](T, DEVICE, "gpu")
    for _ in range(3):
        step()
    T.cuda.synchronize()
    with torch_profile(activities=[ProfilerActivity.CUDA]) as prof:
        for _ in range(steps):
            step()
        T.cuda.synchronize()
    table = prof.key_averages().table(
        sort_by="cuda_time_total", row_limit=top, max_name_column_width=70
    )
    events = [e for e in prof.key_averages() if e.device_type == torch.autograd.DeviceType.CUDA]
    launches = sum(e.count for e in events) / steps
    return f"kernels per step: {launches:.0f}\n{table}"


def per_call(repeat: int = 2000) -> str:
    """Host microseconds per call of one small elementwise op: CuPy's own, minitorch's (CuPy's
    plus the frontend) and torch's; the floor a launch-bound step pays per kernel."""
    import timeit

    rows = []
    cases = []
    try:
        import cupy

        a, b = cupy.ones((32, 32), "float32"), cupy.ones((32, 32), "float32")
        cases += [("cupy a * b", lambda: a * b), ("cupy a * 2.0", lambda: a * 2.0)]
        cases += [("cupy a.sum()", lambda: a.sum())]
    except ImportError:
        pass
    for library in ("minitorch", "torch"):
        T = importlib.import_module(library)
        x = T.ones(32, 32, device=DEVICE)
        y = T.ones(32, 32, device=DEVICE)
        cases += [(f"{library} x * y", lambda x=x, y=y: x * y)]
        cases += [(f"{library} x * 2.0", lambda x=x: x * 2.0)]
        cases += [(f"{library} x.sum()", lambda x=x: x.sum())]
    for name, fn in cases:
        fn()
        best = min(timeit.repeat(fn, number=repeat, repeat=5)) / repeat
        rows.append(f"| {name} | {best * 1e6:.1f} |")
    return "| call | host us |\n|---|---:|\n" + "\n".join(rows)


def main(argv=None) -> int:
    p = argparse.ArgumentParser()
    p.add_argument("--only", default="pointwise,nograd,cnn,mlp,block")
    p.add_argument("--device", default="cuda", help="cpu: a dry run of this script (smoke sizes)")
    p.add_argument("--steps", type=int, default=20)
    p.add_argument("--profile", default="cnn,block")
    p.add_argument("--top", type=int, default=45)
    p.add_argument("--out", default=None)
    p.add_argument("--per-call", action="store_true", help="host time of one small op")
    p.add_argument(
        "--kernels", default="", help="workloads whose CUDA kernels to list (both libraries)"
    )
    args = p.parse_args(argv)
    global DEVICE
    DEVICE = args.device
    if args.per_call:
        print(per_call(), flush=True)
    for name in filter(None, args.kernels.split(",")):
        for library in ("minitorch", "torch"):
            try:
                text = kernels(library, name, 3, args.top)
            except Exception as e:  # noqa: BLE001 - a report, not a test
                text = f"error: {type(e).__name__}: {e}"
            print(f"\n=== kernels {library} {name} (3 steps)\n{text}", flush=True)
            if args.out:
                with open(os.path.join(args.out, f"kernels_{library}_{name}.txt"), "w") as f:
                    f.write(text)
    if not args.only:
        return 0
    names = args.only.split(",")
    print("| workload | library | host ms/step | wall ms/step | GPU ms/step |", flush=True)
    print("|---|---|---:|---:|---:|", flush=True)
    steps_kept = {}
    for name in names:
        for library in ("minitorch", "torch"):
            try:
                r = measure(library, name, args.steps)
            except Exception as e:  # noqa: BLE001 - a report, not a test
                print(f"| {name} | {library} | error: {type(e).__name__}: {e} | | |", flush=True)
                continue
            print(
                f"| {name} | {library} | {r['host']:.2f} | {r['wall']:.2f} | {r['gpu']:.2f} |",
                flush=True,
            )
            if library == "minitorch":
                steps_kept[name] = r["step"]
            else:
                del r
                if DEVICE != "cpu":
                    importlib.import_module("torch").cuda.empty_cache()
    for name in args.profile.split(","):
        if name in steps_kept:
            text = profile(steps_kept[name], 5, args.top)
            print(f"\n=== cProfile minitorch {name} (5 steps)\n{text[:20000]}", flush=True)
            if args.out:
                with open(os.path.join(args.out, f"profile_{name}.txt"), "w") as f:
                    f.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
