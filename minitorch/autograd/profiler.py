"""The autograd profiler: op and backward-node timing, record_function, EventList tables, traces."""

from __future__ import annotations

import contextlib
import enum
import functools
import json
import os
import sys
import threading
import time
import traceback
import warnings

from minitorch._tensor import Tensor
from minitorch.autograd import engine, function
from minitorch.autograd.function import Function

__all__ = [
    "profile",
    "record_function",
    "emit_nvtx",
    "emit_itt",
    "EventList",
    "FunctionEvent",
    "FunctionEventAvg",
    "Interval",
    "DeviceType",
]


class DeviceType(enum.Enum):
    """The device kinds an event reports as its device_type (torch's c10 numbering). Mirrors
    torch.autograd.DeviceType (torch.profiler.DeviceType)."""

    CPU = 0
    CUDA = 1
    MKLDNN = 2
    OPENGL = 3
    OPENCL = 4
    IDEEP = 5
    HIP = 6
    FPGA = 7
    MAIA = 8
    XLA = 9
    Vulkan = 10
    Metal = 11
    XPU = 12
    MPS = 13
    Meta = 14
    HPU = 15
    VE = 16
    Lazy = 17
    IPU = 18
    MTIA = 19
    PrivateUse1 = 20

    def __int__(self):
        return self.value


# NOTE [ Profiling without a hot-path check ]
# Every op goes through Function.apply and every backward node through engine._run_node (or
# _run_data_node: NOTE [ Data-level backward ] in minitorch/autograd/engine.py). While
# at least one profile is active, both are replaced by recording wrappers (apply on the base
# class, which every op inherits; _run_node in the module globals the engine and the composite
# nodes read it from), and engine._walk_data, which runs the common nodes inline, by one that
# leaves them all to the general loop; when the last profile exits, the original objects are
# put back exactly.
# With no profile active the per-op path is the original code: no flag is tested anywhere.
# An event is shared by every profile active when it opens; each profile keeps the events it saw.

_active: list = []  # the running profiles, outermost first
_saved: dict = {}  # what the wrappers replaced, restored when the last profile exits
_tls = threading.local()  # .stack: the events open on this thread (for nesting)
_lock = threading.Lock()


class _Raw:
    """One timed region while profiling: an op, a backward node or a record_function."""

    __slots__ = ("name", "kind", "shapes", "stack", "thread", "parent", "start", "end", "mem")

    def __init__(self, name, kind, shapes, stack):
        self.name = name
        self.kind = kind  # "cpu_op" or "user_annotation"
        self.shapes = shapes
        self.stack = stack
        self.thread = threading.get_ident()
        self.mem = 0
        self.end = None


def _open(name, kind, shapes=None):
    stack = getattr(_tls, "stack", None)
    if stack is None:
        stack = _tls.stack = []
    src = None
    if any(p.with_stack for p in _active):
        src = _python_stack()
    ev = _Raw(name, kind, shapes, src)
    ev.parent = stack[-1] if stack else None
    stack.append(ev)
    for p in _active:
        p._raw.append(ev)
    ev.start = time.perf_counter_ns()
    return ev


def _close(ev):
    ev.end = time.perf_counter_ns()
    stack = getattr(_tls, "stack", ())
    if stack and stack[-1] is ev:
        stack.pop()
    elif ev in stack:  # a record_function closed out of order
        stack.remove(ev)


def _python_stack() -> list:
    """The user's frames, innermost first, as torch prints them: 'file(line): function'."""
    frames = traceback.extract_stack()[:-3]
    here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    out = []
    for f in reversed(frames):
        if f.filename.startswith(here):
            continue
        out.append(f"{f.filename}({f.lineno}): {f.name}")
    return out


def _shapes_of(args) -> list:
    # a backward node's gradient may be an array (NOTE [ Data-level backward ])
    return [
        list(a._data.shape) if isinstance(a, Tensor) else list(getattr(a, "shape", ()))
        for a in args
    ]


def _nbytes(out) -> int:
    if isinstance(out, Tensor):
        return out._data.nbytes
    if isinstance(out, tuple | list):
        return sum(o._data.nbytes for o in out if isinstance(o, Tensor))
    return 0


def _make_apply(orig):
    def apply(cls, *args, **kwargs):
        shapes = _shapes_of(args) if _want("record_shapes") else None
        ev = _open(cls.__name__, "cpu_op", shapes)
        try:
            out = orig(cls, *args, **kwargs)
        finally:
            _close(ev)
        if not cls._is_view:
            ev.mem = _nbytes(out)
        return out

    apply.__doc__ = orig.__doc__
    return apply


def _make_run_node(orig, one_grad=False):
    # one_grad: engine._run_data_node, which takes the node's one gradient (NOTE [ Data-level
    # backward ] in minitorch/autograd/engine.py)
    @functools.wraps(orig)
    def run_node(node, grads, *rest, **kwargs):
        shapes = _shapes_of([grads] if one_grad else grads) if _want("record_shapes") else None
        ev = _open(type(node).__name__, "cpu_op", shapes)
        try:
            done = orig(node, grads, *rest, **kwargs)
        finally:
            _close(ev)
        if done is False:  # _run_data_node declined: _run_node runs the node, in its own event
            for p in _active:
                if p._raw and p._raw[-1] is ev:
                    p._raw.pop()
        return done

    run_node._profiler_wrapper = True
    return run_node


def _counted_walk(roots, buffers, retain_graph, accumulate=True):
    """engine._walk_data while profiling: no node runs inline, the general loop runs them all
    (through the wrapped _run_data_node and _run_node), from the roots (NOTE [ The data walk ]
    in minitorch/autograd/engine.py)."""
    deps = engine._dependencies(roots)
    ready = []
    for n in roots:
        if deps[n] == 0:
            engine.push_ready(ready, n)
    return deps, ready, None


def _want(flag: str) -> bool:
    return any(getattr(p, flag) for p in _active)


def _install():
    function.pause_fast_path(True)  # every op through apply: NOTE [ The no-grad fast path ]
    _saved["apply"] = Function.__dict__["apply"]
    Function.apply = classmethod(_make_apply(_saved["apply"].__func__))
    _saved["engine"] = engine._run_node
    engine._run_node = _make_run_node(engine._run_node)
    _saved["engine_data"] = engine._run_data_node
    engine._run_data_node = _make_run_node(engine._run_data_node, one_grad=True)
    _saved["engine_walk"] = engine._walk_data
    engine._walk_data = _counted_walk
    composite = sys.modules.get("minitorch.autograd.composite")
    if composite is not None:
        _saved["composite"] = composite._run_node
        composite._run_node = _make_run_node(composite._run_node)


def _uninstall():
    Function.apply = _saved.pop("apply")
    function.pause_fast_path(False)
    engine._run_node = _saved.pop("engine")
    engine._run_data_node = _saved.pop("engine_data")
    engine._walk_data = _saved.pop("engine_walk")
    composite = sys.modules.get("minitorch.autograd.composite")
    if "composite" in _saved:
        composite._run_node = _saved.pop("composite")
    elif composite is not None and getattr(composite._run_node, "_profiler_wrapper", False):
        composite._run_node = engine._run_node  # imported while profiling: took the wrapper


def _enter(prof):
    with _lock:
        if not _active:
            _install()
        _active.append(prof)


def _exit(prof):
    with _lock:
        if prof in _active:
            _active.remove(prof)
        if not _active and _saved:
            _uninstall()


# --- results ---


def _format_time(us: float, unit: str | None = None) -> str:
    """us microseconds in the unit that suits it, or in `unit` ("s", "ms", "us") when given."""
    if unit == "s" or (unit not in ("ms", "us") and us >= 1e6):
        return f"{us / 1e6:.3f}s"
    if unit == "ms" or (unit != "us" and us >= 1e3):
        return f"{us / 1e3:.3f}ms"
    return f"{us:.3f}us"


def _format_share(us: float, total: float) -> str:
    if total == 0:
        return "NaN"
    return f"{us * 100.0 / total:.2f}%"


def _format_memory(nbytes: int) -> str:
    kb, mb, gb = 1024, 1024**2, 1024**3
    if abs(nbytes) >= gb:
        return f"{nbytes / gb:.2f} GB"
    if abs(nbytes) >= mb:
        return f"{nbytes / mb:.2f} MB"
    if abs(nbytes) >= kb:
        return f"{nbytes / kb:.2f} KB"
    return f"{nbytes} B"


class Interval:
    """A [start, end] time range in microseconds. Mirrors torch.autograd.profiler_util.Interval."""

    def __init__(self, start: float, end: float):
        self.start = start
        self.end = end

    def elapsed_us(self) -> float:
        return self.end - self.start


class FunctionEvent:
    """One recorded op, backward node or record_function region.
    Mirrors torch.autograd.profiler_util.FunctionEvent.

    Differences from torch: no device times (always 0); cpu_memory_usage counts the bytes of the
    op's outputs (0 for views), not the allocator's allocations minus frees."""

    def __init__(
        self,
        id,
        name,
        thread,
        start_us,
        end_us,
        input_shapes=None,
        stack=None,
        cpu_memory_usage=0,
        is_user_annotation=False,
    ):
        self.id = id
        self.name = name
        self.trace_name = name
        if is_user_annotation and name.startswith("ProfilerStep#"):
            self.name = "ProfilerStep*"  # torch groups the steps under one key
        self.thread = thread
        self.fwd_thread = thread
        self.time_range = Interval(start_us, end_us)
        self.input_shapes = input_shapes
        self.stack = stack if stack is not None else []
        self.cpu_memory_usage = cpu_memory_usage
        self.device_memory_usage = 0
        self.cpu_children: list = []
        self.cpu_parent = None
        self.is_user_annotation = is_user_annotation
        self.is_async = False
        self.is_remote = False
        self.is_legacy = False
        self.node_id = -1
        self.count = 1
        self.overload_name = ""
        self.device_type = DeviceType.CPU
        self.device_index = 0
        self.flops = 0
        self.sequence_nr = -1
        self.scope = 0
        self.use_device = None
        self.device_resource_id = thread
        self.kernels: list = []
        self.concrete_inputs: list = []
        self.kwinputs: dict = {}
        self.total_cpu_percent = -1
        self.total_device_percent = -1

    key = property(lambda self: self.name)
    start_us = property(lambda self: self.time_range.start)
    end_us = property(lambda self: self.time_range.end)
    cpu_time_total = property(lambda self: self.time_range.elapsed_us())
    cpu_time = cpu_time_total
    device_time_total = property(lambda self: 0.0)
    self_device_time_total = device_time_total
    device_time = device_time_total
    cuda_time_total = device_time_total
    self_cuda_time_total = device_time_total
    self_device_memory_usage = property(lambda self: 0)

    @property
    def cuda_time(self) -> float:
        warnings.warn(
            "`cuda_time` is deprecated, please use `device_time` instead.",
            FutureWarning,
            stacklevel=2,
        )
        return self.device_time

    @property
    def self_cuda_memory_usage(self) -> int:
        warnings.warn(
            "`self_cuda_memory_usage` is deprecated. Use `self_device_memory_usage` instead.",
            FutureWarning,
            stacklevel=2,
        )
        return self.self_device_memory_usage

    @property
    def self_cpu_time_total(self) -> float:
        return self.cpu_time_total - sum(c.cpu_time_total for c in self.cpu_children)

    @property
    def self_cpu_memory_usage(self) -> int:
        return self.cpu_memory_usage - sum(c.cpu_memory_usage for c in self.cpu_children)

    def append_cpu_child(self, child):
        self.cpu_children.append(child)

    def __repr__(self):
        dev = self.use_device
        return (
            f"<FunctionEvent id={self.id} name={self.name} overload_name={self.overload_name} "
            f"device_type={self.device_type} node_id={self.node_id} "
            f"cpu_time={_format_time(self.cpu_time)} start_us={self.start_us} "
            f"end_us={self.end_us} cpu_children={[c.id for c in self.cpu_children]} "
            f"{dev}_time={_format_time(self.device_time)} name={self.name} "
            f"thread={self.thread} input_shapes={self.input_shapes} "
            f"cpu_memory_usage={self.cpu_memory_usage} {dev}_memory_usage="
            f"{self.device_memory_usage} is_async={self.is_async} is_remote={self.is_remote} "
            f"seq_nr={self.sequence_nr} is_legacy={self.is_legacy}>"
        )


class FunctionEventAvg:
    """Totals of the events sharing a key. Mirrors torch.autograd.profiler_util.FunctionEventAvg."""

    def __init__(self):
        self.key = None
        self.count = 0
        self.node_id = 0
        self.is_async = False
        self.is_remote = False
        self.is_user_annotation = False
        self.cpu_time_total = 0.0
        self.self_cpu_time_total = 0.0
        self.device_time_total = 0.0
        self.self_device_time_total = 0.0
        self.cpu_memory_usage = 0
        self.self_cpu_memory_usage = 0
        self.device_memory_usage = 0
        self.self_device_memory_usage = 0
        self.input_shapes = None
        self.stack = None
        self.overload_name = ""
        self.cpu_children = None
        self.cpu_parent = None
        self.flops = 0
        self.device_type = DeviceType.CPU
        self.is_legacy = False
        self.use_device = None
        self.scope = None

    cuda_time_total = property(lambda self: self.device_time_total)
    self_cuda_time_total = property(lambda self: self.self_device_time_total)

    @property
    def cpu_time(self) -> float:
        return 0.0 if self.count == 0 else self.cpu_time_total / self.count

    device_time = property(lambda self: 0.0)

    def add(self, other):
        if self.key is None:
            self.key = other.key
            self.node_id = other.node_id
            self.scope = other.scope
            self.input_shapes = other.input_shapes
            self.stack = other.stack
            self.is_user_annotation = other.is_user_annotation
            self.cpu_parent = other.cpu_parent
            self.cpu_children = other.cpu_children
        self.count += other.count
        self.cpu_time_total += other.cpu_time_total
        self.self_cpu_time_total += other.self_cpu_time_total
        self.cpu_memory_usage += other.cpu_memory_usage
        self.self_cpu_memory_usage += other.self_cpu_memory_usage
        return self

    __iadd__ = add

    def __repr__(self):
        return (
            f"<FunctionEventAvg key={self.key} "
            f"self_cpu_time={_format_time(self.self_cpu_time_total)} "
            f"cpu_time={_format_time(self.cpu_time)}  self_cuda_time=0.000us cuda_time=0.000us "
            f"input_shapes={self.input_shapes} cpu_memory_usage={self.cpu_memory_usage} "
            "cuda_memory_usage=0>"
        )


class EventList(list):
    """A list of FunctionEvent / FunctionEventAvg with tables and exports.
    Mirrors torch.autograd.profiler_util.EventList.

    Differences from torch: no device columns, FLOPs or overload names."""

    def __init__(self, *args, profile_memory: bool = False, **kwargs):
        kwargs.pop("use_device", None)
        kwargs.pop("with_flops", None)
        super().__init__(*args, **kwargs)
        self._profile_memory = profile_memory

    @property
    def self_cpu_time_total(self) -> float:
        return sum(e.self_cpu_time_total for e in self)

    def table(
        self,
        sort_by=None,
        row_limit=100,
        max_src_column_width=75,
        max_name_column_width=55,
        max_shapes_column_width=80,
        header=None,
        top_level_events_only=False,
        time_unit=None,
    ) -> str:
        """The events as torch's text table (see torch.autograd.profiler_util.EventList.table)."""
        return _table(
            self,
            sort_by,
            row_limit,
            max_src_column_width,
            max_name_column_width,
            max_shapes_column_width,
            header,
            top_level_events_only,
            self._profile_memory,
            time_unit,
        )

    def __str__(self):
        return self.table()

    def key_averages(
        self,
        group_by_input_shape: bool = False,
        group_by_stack_n: int = 0,
        group_by_overload_name: bool = False,
    ) -> EventList:
        """Events with the same name (and input shapes / top stack frames when asked) summed."""
        stats: dict = {}
        for e in self:
            key = (e.key, e.node_id)
            if group_by_input_shape:
                key += (str(e.input_shapes),)
            if group_by_stack_n > 0:
                key += tuple(e.stack[:group_by_stack_n])
            avg = stats.get(key)
            if avg is None:
                avg = stats[key] = FunctionEventAvg()
            avg.add(e)
        out = EventList(stats.values(), profile_memory=self._profile_memory)
        for avg in out:
            avg.stack = list(avg.stack or [])[:group_by_stack_n]
            if not group_by_input_shape:
                avg.input_shapes = ""
        return out

    def total_average(self) -> FunctionEventAvg:
        """All events summed into one FunctionEventAvg keyed 'Total'."""
        total = FunctionEventAvg()
        for e in self:
            total.add(e)
            total.key = None  # as torch's: each event's fields replace the last one's
        total.key = "Total"
        return total

    def export_chrome_trace(self, path: str) -> None:
        """Writes the events as Chrome trace JSON (chrome://tracing, Perfetto)."""
        _write_trace(path, self)

    def supported_export_stacks_metrics(self) -> list:
        return [
            "self_cpu_time_total",
            "self_cuda_time_total",
            "self_xpu_time_total",
            "self_privateuse1_time_total",
        ]

    def export_stacks(self, path: str, metric: str) -> None:
        """Writes 'frame;frame;... value' lines (flame-graph input, outermost frame first) for
        the events with a stack and a positive metric."""
        if metric not in self.supported_export_stacks_metrics():
            raise ValueError(
                "metric should be one of: " + str(self.supported_export_stacks_metrics())
            )
        attr = metric.replace("cuda", "device").replace("xpu", "device")
        attr = attr.replace("privateuse1", "device")
        blanks = str.maketrans(" ;\t\n", "____")
        with open(path, "w") as f:
            for e in self:
                value = int(getattr(e, attr))
                if e.stack and value > 0:
                    frames = ";".join(entry.translate(blanks) for entry in reversed(e.stack))
                    f.write(f"{frames} {value}\n")


def _table(
    events,
    sort_by,
    row_limit,
    max_src_width,
    max_name_width,
    max_shapes_width,
    header,
    top_level_only,
    profile_memory,
    time_unit=None,
) -> str:
    if len(events) == 0:
        return ""
    total = sum(e.self_cpu_time_total for e in events)
    if sort_by is not None:
        events = sorted(
            events, key=lambda e: getattr(e, sort_by.replace("cuda", "device")), reverse=True
        )
    has_shapes = any(e.input_shapes is not None and len(e.input_shapes) > 0 for e in events)
    stacks = [e.stack for e in events if e.stack]
    name_w = max(len(e.key) for e in events) + 4
    if max_name_width is not None:
        name_w = min(name_w, max_name_width)
    shapes_w = max(len(str(e.input_shapes)) for e in events) + 4
    if max_shapes_width is not None:
        shapes_w = min(shapes_w, max_shapes_width)
    src_w = None
    if stacks:
        src_w = max(len(s) for st in stacks for s in st) + 4
        if max_src_width is not None:
            src_w = min(src_w, max_src_width)

    cols = [("Name", name_w, ">")]
    cols += [
        (h, 12, ">") for h in ("Self CPU %", "Self CPU", "CPU total %", "CPU total", "CPU time avg")
    ]
    if profile_memory:
        cols += [("CPU Mem", 12, ">"), ("Self CPU Mem", 12, ">")]
    cols.append(("# of Calls", 12, ">"))
    if has_shapes:
        cols.append(("Input Shapes", shapes_w, ">"))
    if stacks:
        cols.append(("Source Location", src_w, "<"))
    fmt = "".join(f"{{:{a}{w}}}  " for _, w, a in cols)
    sep = "".join("-" * w + "  " for _, w, _ in cols)

    lines = []
    line = "=" * (len(sep) - 2)
    if header is not None:
        lines += [line, header]
    if top_level_only:
        lines += [line, "This report only display top-level ops statistics"]
    lines += [sep, fmt.format(*[h for h, _, _ in cols]), sep]
    shown = 0
    for e in events:
        if shown == row_limit:
            break
        if top_level_only and e.cpu_parent is not None:
            continue
        shown += 1
        name = e.key
        if max_name_width is not None and len(name) >= max_name_width - 3:
            name = name[: max_name_width - 3] + "..."
        row = [
            name,
            _format_share(e.self_cpu_time_total, total),
            _format_time(e.self_cpu_time_total, time_unit),
            _format_share(e.cpu_time_total, total),
            _format_time(e.cpu_time_total, time_unit),
            _format_time(e.cpu_time, time_unit),
        ]
        if profile_memory:
            row += [_format_memory(e.cpu_memory_usage), _format_memory(e.self_cpu_memory_usage)]
        row.append(e.count)
        if has_shapes:
            row.append(str(e.input_shapes)[:shapes_w])
        if stacks:
            row.append(_trim_path(e.stack[0], src_w) if e.stack else "")
        lines.append(fmt.format(*row))
        if stacks:
            blank = [""] * (len(cols) - 1)
            for entry in e.stack[1:]:
                lines.append(fmt.format(*blank, _trim_path(entry, src_w)))
            lines.append(fmt.format(*blank, ""))
    lines.append(sep)
    lines.append(f"Self CPU time total: {_format_time(total, time_unit)}")
    return "\n".join(lines) + "\n"


def _trim_path(path: str, width: int) -> str:
    if len(path) > width:
        path = "..." + path[len(path) - width + 3 :]
    return path


def _write_trace(path, events) -> None:
    pid = os.getpid()
    trace = []
    for e in events:
        ev = {
            "ph": "X",
            "cat": "user_annotation" if e.is_user_annotation else "cpu_op",
            "name": getattr(e, "trace_name", e.key),
            "pid": pid,
            "tid": getattr(e, "thread", 0),
            "ts": getattr(e, "start_us", 0.0),
            "dur": e.cpu_time_total,
            "args": {},
        }
        if e.input_shapes:
            ev["args"]["Input Dims"] = e.input_shapes
        if e.stack:
            ev["args"]["Call stack"] = ";".join(e.stack)
        trace.append(ev)
    with open(path, "w") as f:
        json.dump({"schemaVersion": 1, "traceEvents": trace, "displayTimeUnit": "ms"}, f)


# --- the public context managers ---


class profile:
    """Records every op, backward node and record_function region run inside it.
    Mirrors torch.autograd.profiler.profile.

    Differences from torch: events are named by minitorch's op classes ("Mul", "Mm", "Sum") and
    grad_fn classes ("MulBackward0"), not aten names, and backward nodes are not wrapped in an
    "autograd::engine::evaluate_function" event; AccumulateGrad is not recorded. CUDA activity
    (use_cuda / use_device) is accepted and reports nothing: CPU times are launch times.
    Memory (profile_memory) counts the bytes of the tensors an op returns. with_flops is ignored.
    """

    def __init__(
        self,
        enabled: bool = True,
        *,
        use_cuda: bool = False,
        use_device=None,
        record_shapes: bool = False,
        with_flops: bool = False,
        profile_memory: bool = False,
        with_stack: bool = False,
        with_modules: bool = False,
        use_kineto: bool = False,
        use_cpu: bool = True,
        experimental_config=None,
        acc_events: bool = False,
        custom_trace_id_callback=None,
        post_processing_timeout_s: float | None = None,
        activity_filters: dict | None = None,
    ):
        self.enabled = enabled
        self.post_processing_timeout_s = post_processing_timeout_s
        self.activity_filters = activity_filters or {}
        self.use_cuda = use_cuda
        if use_cuda and enabled:
            warnings.warn(
                "The attribute `use_cuda` will be deprecated soon, please use "
                "``use_device = 'cuda'`` instead.",
                FutureWarning,
                stacklevel=2,
            )
            use_device = "cuda"
        if use_device is not None and enabled:
            use_device = self._check_device(use_device)
        self.use_device = use_device
        self.record_shapes = record_shapes
        self.with_flops = with_flops
        self.profile_memory = profile_memory
        self.with_stack = with_stack
        self.with_modules = with_modules
        self.use_cpu = use_cpu
        self.acc_events = acc_events
        self.entered = False
        self.function_events = None
        self._raw: list = []
        self._t0 = 0

    def __enter__(self):
        if not self.enabled:
            return None  # as torch: `with profile(enabled=False) as prof` binds None
        if self.entered:
            raise RuntimeError("Profiler context manager is not reentrant")
        self.entered = True
        self._start_trace()
        return self

    def _check_device(self, use_device):
        """use_device, or None (with torch's warning) where it is no device or not here."""
        if use_device not in ("cuda", "xpu", "mtia", "hpu"):
            warnings.warn(f"The {use_device} is not a valid device option.", stacklevel=3)
            return None
        import minitorch

        backend = getattr(minitorch, use_device, None)
        if backend is None or not backend.is_available():
            warnings.warn(
                f"{use_device.upper()} is not available, disabling {use_device.upper()} profiling",
                stacklevel=3,
            )
            self.use_cuda = False
            return None
        return use_device

    def _start_trace(self):
        self._raw = []
        self._t0 = time.perf_counter_ns()
        _enter(self)

    def __exit__(self, *exc):
        if not self.enabled:
            return False
        _exit(self)
        self.function_events = self._build()
        self.entered = False
        return False

    def _build(self) -> EventList:
        events = []
        made = {}
        t0 = self._t0
        # An event's memory includes its children's, as torch's "CPU Mem" does.
        mem = {id(r): r.mem for r in self._raw}
        for r in reversed(self._raw):
            if r.parent is not None and id(r.parent) in mem:
                mem[id(r.parent)] += mem[id(r)]
        for i, r in enumerate(self._raw):
            end = r.end if r.end is not None else time.perf_counter_ns()
            e = FunctionEvent(
                i + 1,
                r.name,
                r.thread,
                (r.start - t0) / 1e3,
                (end - t0) / 1e3,
                input_shapes=r.shapes if self.record_shapes else [],
                stack=r.stack if self.with_stack else None,
                cpu_memory_usage=mem[id(r)] if self.profile_memory else 0,
                is_user_annotation=r.kind == "user_annotation",
            )
            made[id(r)] = e
            parent = made.get(id(r.parent)) if r.parent is not None else None
            if parent is not None:
                e.cpu_parent = parent
                parent.append_cpu_child(e)
            events.append(e)
        events.sort(key=lambda e: (e.start_us, -e.end_us))
        return EventList(events, profile_memory=self.profile_memory)

    def _check_finish(self):
        if self.function_events is None:
            raise RuntimeError("Profiler didn't finish running")

    def _events_so_far(self) -> EventList:
        # torch's results before the profile finishes: what was parsed so far, nothing
        if self.function_events is None:
            return EventList(profile_memory=self.profile_memory)
        return self.function_events

    def table(
        self,
        sort_by=None,
        row_limit=100,
        max_src_column_width=75,
        max_name_column_width=55,
        max_shapes_column_width=80,
        header=None,
        top_level_events_only=False,
    ) -> str:
        return self._events_so_far().table(
            sort_by=sort_by,
            row_limit=row_limit,
            max_src_column_width=max_src_column_width,
            max_name_column_width=max_name_column_width,
            max_shapes_column_width=max_shapes_column_width,
            header=header,
            top_level_events_only=top_level_events_only,
        )

    def key_averages(
        self,
        group_by_input_shape: bool = False,
        group_by_stack_n: int = 0,
        group_by_overload_name: bool = False,
    ) -> EventList:
        return self._events_so_far().key_averages(group_by_input_shape, group_by_stack_n)

    def total_average(self) -> FunctionEventAvg:
        return self._events_so_far().total_average()

    def export_chrome_trace(self, path: str) -> None:
        self._check_finish()
        self.function_events.export_chrome_trace(path)

    @property
    def self_cpu_time_total(self) -> float:
        return self._events_so_far().self_cpu_time_total

    def __str__(self):
        if self.function_events is None:
            return "<unfinished minitorch.autograd.profile>"
        return str(self.function_events)

    def __repr__(self):
        if self.function_events is None:
            return "<unfinished minitorch.autograd.profile>"
        return repr(self.function_events)


class record_function(contextlib.ContextDecorator):
    """Labels a region: it shows in the profile as its own event, enclosing the ops run in it.
    Mirrors torch.autograd.profiler.record_function (context manager and decorator)."""

    def __init__(self, name: str, args: str | None = None):
        self.name = name
        self.args = args
        self._open: list = []  # a stack: the decorator form may recurse

    def __enter__(self):
        if not isinstance(self.name, str):
            raise _enter_type_error("name", 0, "str", self.name)
        if self.args is not None and not isinstance(self.args, str):
            raise _enter_type_error("args", 1, "Optional[str]", self.args)
        ev = None
        if _active:
            ev = _open(self.name, "user_annotation", [] if _want("record_shapes") else None)
        self._open.append(ev)
        return self

    def __exit__(self, *exc):
        ev = self._open.pop() if self._open else None
        if ev is not None:
            _close(ev)


def _enter_type_error(arg, position, expected, value) -> RuntimeError:
    """torch's schema error for record_function's name / args of a wrong type."""
    got = type(value).__name__
    return RuntimeError(
        f"profiler::_record_function_enter_new() Expected a value of type '{expected}' for "
        f"argument '{arg}' but instead found type '{got}'.\nPosition: {position}\n"
        f"Value: {value}\nDeclaration: profiler::_record_function_enter_new(str name, "
        "str? args=None) -> __torch__.torch.classes.profiler._RecordFunction\nCast error "
        f"details: Unable to cast Python instance of type {type(value)} to C++ type '?' "
        "(#define PYBIND11_DETAILED_ERROR_MESSAGES or compile in debug mode for details)"
    )


class emit_nvtx:
    """Accepted and does nothing (minitorch emits no NVTX ranges).
    Mirrors torch.autograd.profiler.emit_nvtx."""

    def __init__(self, enabled: bool = True, record_shapes: bool = False):
        self.enabled = enabled
        self.record_shapes = record_shapes

    def __enter__(self):
        return self if self.enabled else None  # as torch's: None when disabled

    def __exit__(self, *exc):
        return False


class emit_itt(emit_nvtx):
    """Accepted and does nothing. Mirrors torch.autograd.profiler.emit_itt."""
