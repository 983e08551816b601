"""The GPU check: run on a machine with an NVIDIA GPU, CuPy and PyTorch (CUDA) installed.

1. runs the device-agnostic tests on 'cuda' (the `device` fixture adds it when a GPU is present);
2. exercises minitorch.cuda on the real GPU: streams and stream contexts, events and their timing,
   the allocator's statistics (peaks, memory_stats, memory_summary, OutOfMemoryError), pinned memory
   and non_blocking copies (bandwidth pageable vs pinned, against torch);
3. times training steps at GPU sizes on minitorch and on torch CUDA eager — MLP 4096-4096-4096-1000
   batch 1024, the CNN of bench/workloads.py at batch 256, a transformer block (batch 64, seq 512,
   dim 1024) — with CUDA events (T.cuda.Event, the same API in both libraries), warm-up and
   medians, and prints a Markdown table with the peak memory of each step.

    python bench/gpu_check.py [--skip-tests] [--steps 20] [--only mlp,cnn,block] [--budget 450]
    python bench/gpu_check.py --smoke      # on a CPU: tiny shapes, wall clock, no tests

Every section runs in its own try/except (a failure prints its traceback and the next section
runs); a global time budget (--budget seconds, default 450 of the 8 minutes) skips what no longer
fits. Exit status: 0 when every section passed.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
import traceback

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, REPO)


def run_tests(timeout_s: int, out_dir: str | None = None) -> int:
    """The device-agnostic tests, on 'cuda' only (their ids carry the device name).

    Every failure is collected (no -x: a first run on a new GPU reports them all at once), on
    several workers where pytest-xdist is installed, each test cut off by pytest-timeout where
    that is installed; with out_dir, the log and a JUnit XML file are written there."""
    import importlib.util

    cmd = [sys.executable, "-m", "pytest", "tests", "-k", "cuda", "-q", "-rfE", "--tb=short"]
    cmd += ["--ignore", "tests/cuda"]  # the CuPy test double's tests: CPU-only logic
    cmd += ["-p", "no:cacheprovider", "-p", "no:warnings", "-o", "addopts="]
    if importlib.util.find_spec("xdist") is not None:
        cmd += ["-n", str(max(1, min(14, (os.cpu_count() or 2) - 2)))]
    if importlib.util.find_spec("pytest_timeout") is not None:
        cmd += ["--timeout", "100"]
    log = None
    if out_dir:
        cmd += ["--junitxml", os.path.join(out_dir, "junit.xml")]
        log = open(os.path.join(out_dir, "tests.log"), "w")  # noqa: SIM115 - closed below
    print("$", " ".join(cmd), flush=True)
    start = time.perf_counter()
    try:
        rc = subprocess.call(cmd, cwd=REPO, timeout=timeout_s, stdout=log, stderr=log)
    except subprocess.TimeoutExpired:
        print(f"tests stopped after {timeout_s} s", flush=True)
        rc = 124
    finally:
        if log is not None:
            log.close()
    print(f"tests: exit {rc} in {time.perf_counter() - start:.0f} s", flush=True)
    return rc


def smoke_check():
    """A first look before the long sections: a small graph on the GPU, forward and backward."""
    import minitorch as mt

    x = mt.randn(3, 4, device="cuda", requires_grad=True)
    layer = mt.nn.Linear(4, 2).cuda()
    loss = (layer(x.tanh() * 2).exp()).sum()
    loss.backward()
    _check(x.grad.device == mt.device("cuda", 0), f"gradient on the GPU: {x.grad.device}")
    want = (x.detach().cpu().tanh() * 2) @ layer.weight.detach().cpu().T + layer.bias.cpu()
    _check(bool(mt.allclose(loss.cpu(), want.exp().sum())), f"loss as on the CPU: {loss}")


# --- workloads, written once against a `torch` module (minitorch or torch) ---


# Shapes: the GPU sizes of issue 6, and tiny ones for --smoke on a CPU.
SIZES = {
    "gpu": {"mlp": (1024, 4096, 1000), "cnn": 256, "block": (64, 512, 1024, 16, 4096)},
    "smoke": {"mlp": (8, 32, 10), "cnn": 4, "block": (2, 8, 32, 4, 64)},
}


def mlp(T, dev, size):
    nn = T.nn
    batch, width, classes = SIZES[size]["mlp"]
    model = nn.Sequential(
        nn.Linear(width, width), nn.ReLU(), nn.Linear(width, width), nn.ReLU(),
        nn.Linear(width, classes),
    ).to(dev)  # fmt: skip
    x = T.randn(batch, width, device=dev)
    y = T.randint(0, classes, (batch,), device=dev)
    return _trainer(T, model, lambda: nn.functional.cross_entropy(model(x), y))


def cnn(T, dev, size):
    nn = T.nn
    batch = SIZES[size]["cnn"]
    model = nn.Sequential(
        nn.Conv2d(1, 16, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
        nn.Conv2d(16, 32, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
        nn.Flatten(), nn.Linear(32 * 7 * 7, 10),
    ).to(dev)  # fmt: skip
    x = T.randn(batch, 1, 28, 28, device=dev)
    y = T.randint(0, 10, (batch,), device=dev)
    return _trainer(T, model, lambda: nn.functional.cross_entropy(model(x), y))


def block(T, dev, size):
    nn = T.nn
    batch, seq, dim, heads, ff = SIZES[size]["block"]
    layer = nn.TransformerEncoderLayer(dim, heads, ff, dropout=0.0, batch_first=True).to(dev)
    x = T.randn(batch, seq, dim, device=dev)
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


def _time_ms_events(T, fn) -> float:
    """One call of fn timed on the GPU with CUDA events (T.cuda.Event in both libraries)."""
    start, end = T.cuda.Event(enable_timing=True), T.cuda.Event(enable_timing=True)
    start.record()
    fn()
    end.record()
    end.synchronize()
    return start.elapsed_time(end)


def _time_ms_wall(T, fn) -> float:
    start = time.perf_counter()
    fn()
    return (time.perf_counter() - start) * 1e3


def time_workload(library: str, name: str, steps: int, warmup: int, smoke: bool) -> tuple:
    """(median step ms, peak MiB allocated during the timed steps or None)."""
    import importlib

    T = importlib.import_module(library)
    T.manual_seed(0)
    dev = "cpu" if smoke else "cuda"
    step = WORKLOADS[name](T, dev, "smoke" if smoke else "gpu")
    for _ in range(warmup):
        step()
    if smoke:
        return statistics.median(_time_ms_wall(T, step) for _ in range(steps)), None
    T.cuda.synchronize()
    T.cuda.reset_peak_memory_stats()
    times = [_time_ms_events(T, step) for _ in range(steps)]
    peak = T.cuda.max_memory_allocated() / 2**20
    del step
    T.cuda.empty_cache()  # leave the GPU's memory to the next library
    return statistics.median(times), peak


# --- minitorch.cuda on the real GPU: streams, events, memory statistics, pinned copies ---


def _check(cond, what):
    print(f"  {'ok  ' if cond else 'FAIL'} {what}", flush=True)
    if not cond:
        raise AssertionError(what)


def check_streams_and_events():
    import minitorch as mt

    s = mt.cuda.Stream()
    _check(s.cuda_stream != 0 and s.device == mt.device("cuda", 0), f"new stream: {s}")
    default = mt.cuda.current_stream()
    _check(default == mt.cuda.default_stream(), f"current stream is the default: {default}")
    x = mt.randn(4096, 4096, device="cuda")
    mt.cuda.synchronize()
    start, end = mt.cuda.Event(enable_timing=True), mt.cuda.Event(enable_timing=True)
    with mt.cuda.stream(s):
        _check(mt.cuda.current_stream() == s, "stream() context makes s current")
        start.record()
        for _ in range(10):
            y = x @ x
        end.record()
        inner = mt.cuda.Stream(priority=-1)
        with mt.cuda.stream(inner):
            _check(mt.cuda.current_stream() == inner, "nested stream context")
        _check(mt.cuda.current_stream() == s, "inner context restored s")
    _check(mt.cuda.current_stream() == default, "outer context restored the default stream")
    y.record_stream(s)
    mt.cuda.current_stream().wait_stream(s)
    end.synchronize()
    ms = start.elapsed_time(end)
    tflops = 10 * 2 * 4096**3 / (ms * 1e-3) / 1e12
    print(f"  10 matmuls 4096^2 fp32 on a side stream: {ms:.2f} ms ({tflops:.1f} TFLOP/s)")
    _check(end.query() and s.query(), "event and stream done after synchronize")
    e = s.record_event()
    e.synchronize()
    _check(e.query(), "record_event + synchronize")
    z = (y.sum() * 0).item()  # a synchronising read after the cross-stream wait
    _check(z == 0, "result readable after wait_stream")


def check_memory():
    import minitorch as mt

    mt.cuda.synchronize()
    mt.cuda.empty_cache()
    mt.cuda.reset_peak_memory_stats()
    base = mt.cuda.memory_allocated()
    a = mt.empty(64 * 2**20, dtype=mt.uint8, device="cuda")  # 64 MiB
    grew = mt.cuda.memory_allocated() - base
    _check(grew >= 64 * 2**20, f"memory_allocated grew by {grew / 2**20:.1f} MiB")
    del a
    peak = mt.cuda.max_memory_allocated() - base
    _check(peak >= 64 * 2**20, f"max_memory_allocated kept the 64 MiB peak ({peak / 2**20:.1f})")
    _check(mt.cuda.memory_reserved() >= mt.cuda.memory_allocated(), "reserved >= allocated")
    stats = mt.cuda.memory_stats()
    keys = ["allocated_bytes.all.current", "allocated_bytes.all.peak", "num_ooms"]
    _check(all(k in stats for k in keys), "memory_stats has torch's main keys")
    free, total = mt.cuda.mem_get_info()
    print(f"  mem_get_info: {free / 2**30:.1f} GiB free of {total / 2**30:.1f} GiB")
    try:
        mt.empty(2**45, dtype=mt.uint8, device="cuda")  # 32 TiB
        _check(False, "a 32 TiB allocation raised")
    except mt.cuda.OutOfMemoryError as e:
        msg = str(e)
        _check("memory summary" in msg, f"OutOfMemoryError with the summary: {msg[:70]}...")
    _check(mt.cuda.memory_stats()["num_ooms"] >= 1, "num_ooms counted")
    print(mt.cuda.memory_summary())
    # The wrapper's cost per allocation: small tensors, allocate and free in a loop.
    n = 20000
    t0 = time.perf_counter()
    for _ in range(n):
        mt.empty(256, device="cuda")
    per = (time.perf_counter() - t0) / n * 1e6
    print(f"  mt.empty(256) on cuda (tracked allocator included): {per:.2f} us per call")


def _bandwidth(T, src, **kw) -> float:
    start, end = T.cuda.Event(enable_timing=True), T.cuda.Event(enable_timing=True)
    start.record()
    src.to("cuda", **kw)
    end.record()
    end.synchronize()
    return src.numel() * src.element_size() / (start.elapsed_time(end) * 1e-3) / 1e9


def check_pinned_copies():
    import minitorch as mt

    host = mt.randn(64, 1024, 1024)  # 256 MiB
    pinned = host.pin_memory()
    _check(pinned.is_pinned() and not host.is_pinned(), "pin_memory / is_pinned")
    t0 = time.perf_counter()
    g = pinned.to("cuda", non_blocking=True)
    returned_ms = (time.perf_counter() - t0) * 1e3
    mt.cuda.synchronize()
    print(f"  pinned non_blocking upload of 256 MiB returned after {returned_ms:.2f} ms")
    _check(bool((g.cpu() == host).all()), "non_blocking upload has the data")
    back = g.to("cpu", non_blocking=True)
    mt.cuda.synchronize()
    _check(back.is_pinned() and bool((back == host).all()), "non_blocking download is pinned")
    rows = []
    for label, lib in (("minitorch", mt), ("torch", None)):
        if lib is None:
            import torch as lib

            src = lib.from_numpy(host.numpy())
        else:
            src = host
        src_pinned = src.pin_memory()
        pageable = statistics.median(_bandwidth(lib, src) for _ in range(3))
        fast = statistics.median(_bandwidth(lib, src_pinned, non_blocking=True) for _ in range(3))
        rows.append((label, pageable, fast))
    for label, pageable, fast in rows:
        print(f"  {label}: upload {pageable:.1f} GB/s pageable, {fast:.1f} GB/s pinned")
    from minitorch.utils.data import DataLoader, TensorDataset

    batch = next(iter(DataLoader(TensorDataset(mt.randn(8, 4)), batch_size=4, pin_memory=True)))
    _check(batch[0].is_pinned(), "DataLoader(pin_memory=True) yields pinned batches")
    _check(mt.accelerator.current_accelerator() == mt.device("cuda"), "accelerator is cuda")


GPU_API_CHECKS = {
    "streams/events": check_streams_and_events,
    "memory": check_memory,
    "pinned/non_blocking": check_pinned_copies,
}


class Budget:
    """The global time budget: sections ask whether they still fit."""

    def __init__(self, seconds: float):
        self.end = time.perf_counter() + seconds

    def left(self) -> float:
        return self.end - time.perf_counter()


def run_section(name: str, fn, budget: Budget, needs: float = 5.0):
    """fn() in a try/except: (ok, result); skipped when less than `needs` seconds are left."""
    if budget.left() < needs:
        print(f"[{name}] skipped: {budget.left():.0f} s of the budget left", flush=True)
        return False, "skipped (time budget)"
    print(f"[{name}]", flush=True)
    start = time.perf_counter()
    try:
        result = fn()
    except Exception as e:
        traceback.print_exc()
        return False, f"error: {type(e).__name__}: {str(e)[:60]}"
    finally:
        print(f"[{name}] {time.perf_counter() - start:.1f} s", flush=True)
    return True, result


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--skip-tests", action="store_true")
    parser.add_argument("--test-timeout", type=int, default=240)
    parser.add_argument("--steps", type=int, default=20)
    parser.add_argument("--warmup", type=int, default=3)
    parser.add_argument("--only", default=",".join(WORKLOADS))
    parser.add_argument("--budget", type=float, default=450.0, help="seconds for everything")
    parser.add_argument("--smoke", action="store_true", help="CPU, tiny shapes, no tests")
    parser.add_argument("--out", help="a folder for the tests' log and JUnit XML file")
    args = parser.parse_args(argv)
    budget = Budget(args.budget)

    import minitorch

    smoke = args.smoke
    if not smoke and not minitorch.cuda.is_available():
        from minitorch._backend import cupy_backend

        print(f"no GPU visible to minitorch: {cupy_backend.unavailable_reason()}")
        print("(python bench/gpu_check.py --smoke runs the workloads on the CPU at tiny sizes)")
        return 1
    failed = []
    if not smoke:
        ok, _ = run_section("smoke", smoke_check, budget, needs=1)
        if not ok:
            failed.append("smoke")
    if not (args.skip_tests or smoke):
        # Leave a third of the budget for the rest.
        timeout = int(max(10, min(args.test_timeout, budget.left() * 2 / 3)))
        tests = lambda: run_tests(timeout, args.out)  # noqa: E731
        ok, rc = run_section("tests on cuda", tests, budget, needs=60)
        if not ok or rc != 0:
            failed.append("tests")

    if not smoke:
        for name, fn in GPU_API_CHECKS.items():
            ok, _ = run_section(f"minitorch.cuda: {name}", fn, budget, needs=20)
            if not ok:
                failed.append(name)

    libraries = ("minitorch", "torch")
    rows = []
    for name in args.only.split(","):
        times = {}
        for library in libraries:

            def run(library=library, name=name):
                return time_workload(library, name, args.steps, args.warmup, smoke)

            ok, result = run_section(f"{name} {library}", run, budget, needs=15)
            times[library] = result if ok else (result, None)
            if not ok:
                failed.append(f"{name} {library}")
            print(f"{name} {library}: {times[library]}", flush=True)
        rows.append((name, times))

    unit = "wall ms, CPU smoke" if smoke else "ms"
    head = f"| workload | minitorch ({unit}) | torch ({unit}) | minitorch/torch"
    print(f"\n{head} | peak MiB mt/torch |")
    print("|---|---:|---:|---:|---:|")
    for name, t in rows:
        (mt_ms, mt_peak), (th_ms, th_peak) = t["minitorch"], t["torch"]
        both = isinstance(mt_ms, float) and isinstance(th_ms, float)
        ratio = f"{mt_ms / th_ms:.2f}x" if both else "—"
        cell = lambda v: f"{v:.2f}" if isinstance(v, float) else str(v)  # noqa: E731
        peaks = f"{cell(mt_peak)} / {cell(th_peak)}" if mt_peak is not None else "—"
        print(f"| {name} | {cell(mt_ms)} | {cell(th_ms)} | {ratio} | {peaks} |")
    print(
        f"\n{'FAILED: ' + ', '.join(failed) if failed else 'all sections passed'}; "
        f"{args.budget - budget.left():.0f} s used of the {args.budget:.0f} s budget"
    )
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
