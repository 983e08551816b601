"""Counting the floating-point operations of matrix products and convolutions. Mirrors
torch.utils.flop_counter.

NOTE [ Counting FLOPs without a dispatcher ]
torch counts the aten ops its dispatcher runs (mm, addmm, bmm, convolution, their backward ops,
the fused attention kernels). minitorch has no dispatcher: while a FlopCounterMode is active,
the forward, backward and data-level backward of the autograd Functions behind those ops
(linalg.Mm and its batched forms, nn_kernels.Linear*, conv.Conv / ConvTranspose, Einsum) are
wrapped, and restored when the mode exits, so nothing is paid outside it. Each counted op is
filed under the aten op torch's graph shows for it (AddmmBackward0 -> aten.addmm, ...), with
torch's formulas: 2 M K N per product; the backward of a product counts one product per input
that needs a gradient (in autograd.grad, one its walk uses); a convolution's backward counts its
input and weight gradients as aten.convolution_backward; einsum counts its pairwise bmm's. The
products of a backward that builds a graph (create_graph) are counted with it, and again by
their own backward, as torch's (a convolution's as aten.convolution_backward, where torch's
double backward shows aten.convolution). An op running inside a counted one
(the products inside a convolution, inside a fused scaled_dot_product_attention or inside a
torch.library operator) is not counted again. scaled_dot_product_attention counts the products
of torch's math path where torch runs it (on the meta device, and on the CPU where its flash
kernel does not take the call), nothing for the CPU flash kernel (not in torch's table) and the
fused kernel's formula on a GPU; nor
does a float32 nn.LSTM without projections on the CPU (torch's oneDNN kernel).
Backward FLOPs are filed under the modules the op's forward ran in.
"""

from __future__ import annotations

import threading
import warnings
from collections import defaultdict
from functools import wraps
from math import prod

from minitorch._ops.linalg import folds_into_mm
from minitorch.autograd import function
from minitorch.autograd.grad_mode import is_grad_enabled
from minitorch.utils.module_tracker import ModuleTracker

__all__ = [
    "FlopCounterMode",
    "register_flop_formula",
    "get_suffix_str",
    "convert_num_with_suffix",
    "convert_to_percent_str",
    "conv_flop_count",
    "sdpa_flop_count",
    "sdpa_backward_flop_count",
    "mm_flop",
    "bmm_flop",
]

suffixes = ["", "K", "M", "B", "T"]


def get_suffix_str(number) -> str:
    """The unit a table shows counts in, chosen from the total's digits: thousands from 5
    digits on, millions from 8, ... (so 1,001,000,000 reads 1001.000M, not 1.001B)."""
    digits = len(str(number))
    return suffixes[min(max((digits - 2) // 3, 0), len(suffixes) - 1)]


def convert_num_with_suffix(number, suffix) -> str:
    """number in the unit `suffix`, to three decimals: (22528, "K") -> "22.528K"."""
    scale = 1000 ** suffixes.index(suffix)
    return f"{number / scale:.3f}{suffix}"


def convert_to_percent_str(num, denom) -> str:
    """num as a percentage of denom, two decimals ("0%" of nothing)."""
    return "0%" if denom == 0 else format(num / denom, ".2%")


def mm_flop(a_shape, b_shape, *args, out_shape=None, **kwargs) -> int:
    m, k = a_shape
    k2, n = b_shape
    if k != k2:
        raise AssertionError(f"matmul: inner dimensions must match (k == k2), got {k} and {k2}")
    return m * n * 2 * k


def bmm_flop(a_shape, b_shape, out_shape=None, **kwargs) -> int:
    b, m, k = a_shape
    b2, k2, n = b_shape
    if b != b2:
        raise AssertionError(f"bmm: batch dimensions must match (b == b2), got {b} and {b2}")
    if k != k2:
        raise AssertionError(f"bmm: inner dimensions must match (k == k2), got {k} and {k2}")
    return b * m * n * 2 * k


def conv_flop_count(x_shape, w_shape, out_shape, transposed: bool = False) -> int:
    """2 x batch x C_out x C_in x prod(kernel) x the spatial points convolved: the output's
    for a convolution, the input's for a transposed one (biases not counted)."""
    batch_size = x_shape[0]
    conv_shape = (x_shape if transposed else out_shape)[2:]
    c_out, c_in, *filter_size = w_shape
    return prod(conv_shape) * prod(filter_size) * batch_size * c_out * c_in * 2


def _t(shape):
    return [shape[1], shape[0], *shape[2:]]


def conv_backward_flop_count(grad_out_shape, x_shape, w_shape, transposed, output_mask) -> int:
    """aten.convolution_backward: the input gradient (a transposed convolution of the output
    gradient, or a convolution for a transposed one) and the weight gradient (a convolution of
    the input with the output gradient)."""
    flops = 0
    if output_mask[0]:
        flops += conv_flop_count(grad_out_shape, w_shape, x_shape, not transposed)
    if output_mask[1]:
        if transposed:
            flops += conv_flop_count(_t(grad_out_shape), _t(x_shape), _t(w_shape), False)
        else:
            flops += conv_flop_count(_t(x_shape), _t(grad_out_shape), _t(w_shape), False)
    return flops


def _bhsd(shape):
    return prod(shape[:-2]), shape[-2], shape[-1]


def sdpa_flop_count(query_shape, key_shape, value_shape) -> int:
    bh, s_q, d_q = _bhsd(query_shape)
    _, s_k, _ = _bhsd(key_shape)
    d_v = value_shape[-1]
    return bmm_flop((bh, s_q, d_q), (bh, d_q, s_k)) + bmm_flop((bh, s_q, s_k), (bh, s_k, d_v))


def sdpa_backward_flop_count(grad_out_shape, query_shape, key_shape, value_shape) -> int:
    bh, s_q, d_q = _bhsd(query_shape)
    _, s_k, _ = _bhsd(key_shape)
    d_v = value_shape[-1]
    return (
        bmm_flop((bh, s_q, d_q), (bh, d_q, s_k))
        + bmm_flop((bh, s_q, d_v), (bh, d_v, s_k))
        + bmm_flop((bh, s_k, s_q), (bh, s_q, d_v))
        + bmm_flop((bh, s_q, s_k), (bh, s_k, d_q))
        + bmm_flop((bh, d_q, s_q), (bh, s_q, s_k))
    )


def _shape_of(x):
    return tuple(x.shape) if hasattr(x, "shape") else x


def shape_wrapper(f):
    """f(*shapes, out_shape=...) called with the op's arguments and output: tensors become
    their shapes."""

    @wraps(f)
    def nf(*args, out_val=None, **kwargs):
        shapes = [_shape_of(a) for a in args]
        kw = {k: _shape_of(v) for k, v in kwargs.items()}
        out = out_val
        out_shape = (
            tuple(_shape_of(o) for o in out) if isinstance(out, (tuple, list)) else _shape_of(out)
        )
        return f(*shapes, out_shape=out_shape, **kw)

    return nf


flop_registry = {}


def register_flop_formula(targets, get_raw=False):
    """Registers a FLOP formula for ops (a decorator). Mirrors
    torch.utils.flop_counter.register_flop_formula; minitorch consults it for torch.library
    operators (its own ops have the built-in formulas of the NOTE above)."""

    def register(formula):
        from minitorch._op_registry import OpOverloadPacket

        wrapped = formula if get_raw else shape_wrapper(formula)
        for target in targets if isinstance(targets, (list, tuple)) else (targets,):
            if not isinstance(target, OpOverloadPacket):
                raise ValueError(
                    "register_flop_formula(targets): expected each target to be "
                    "OpOverloadPacket (i.e. torch.ops.mylib.foo), JitFunction, or "
                    f"HigherOrderOperator, got {target} which is of type {type(target)}"
                )
            if target in flop_registry:
                raise RuntimeError(f"duplicate registrations for {target}")
            flop_registry[target] = wrapped
        return wrapped

    return register


# --- the wrapped Functions ---

# NOTE [ Nested and per-thread FlopCounterModes ]
# As torch's dispatch modes, a mode sees the ops of its own thread only, and every mode active
# there counts each op (an outer mode sees what an inner one counted). The Functions are patched
# while a mode is active in any thread (_op_registry.FLOP_COUNTERS lists them), restored when the
# last one exits, in whatever order they exit.
_state = threading.local()  # depth: inside a counted op; modes: this thread's, innermost last
_lock = threading.Lock()  # the patching and FLOP_COUNTERS
_patches = None  # the _Patches installed while a mode is active


def _modes() -> tuple:
    """This thread's active FlopCounterModes (NOTE [ Nested and per-thread FlopCounterModes ])."""
    return getattr(_state, "modes", ())


def _aten(name):
    from minitorch._op_registry import aten_packet

    return aten_packet(name)


def _mm_forward(args, kwargs, out):
    a, b = args[0], args[1]
    sa, sb = a._data.shape, b._data.shape
    k = sa[-2] if kwargs.get("ta") else sa[-1]
    flops = 2 * prod(out.shape) * k
    key = "mm" if out.ndim == 2 else "bmm"
    if len(sa) >= 3 and len(sb) == 2 and folds_into_mm(a, b):  # torch's matmul makes it one product
        if sb[1] == 1:  # an mv (a vector made a column), which its table does not list
            return None
        key = "mm"
    return key, flops, (key, flops)


def _mm_backward(info, needs):
    key, flops = info
    return key, flops * (bool(needs[0]) + bool(needs[1]))


def _linear_forward(args, kwargs, out):
    x = args[1]
    flops = 2 * prod(out.shape) * x._data.shape[-1]
    return "addmm", flops, flops


def _linear_backward(flops, needs):
    return "mm", flops * (bool(needs[1]) + bool(needs[2]))


def _linear_mm_forward(args, kwargs, out):
    x = args[0]
    flops = 2 * prod(out.shape) * x._data.shape[-1]
    return "mm", flops, flops


def _linear_mm_backward(flops, needs):
    return "mm", flops * (bool(needs[0]) + bool(needs[1]))


def _conv_forward(transposed):
    def forward(args, kwargs, out):
        x, w = args[0]._data.shape, args[1]._data.shape
        flops = conv_flop_count(x, w, out.shape, transposed)
        return "convolution", flops, (x, w, tuple(out.shape), transposed)

    return forward


def _conv_backward(info, needs):
    x, w, out, transposed = info
    return "convolution_backward", conv_backward_flop_count(out, x, w, transposed, needs[:2])


def _einsum_pairs(eq, shapes):
    """The bmm FLOPs of each pairwise contraction, left to right, as torch's einsum does
    without opt_einsum (a letter only one operand has, and no later one or the output, is
    summed out before its product)."""
    lhs, out = eq.split("->")
    terms = lhs.split(",")
    sizes = {}
    for term, shape in zip(terms, shapes, strict=True):
        for c, n in zip(term, shape, strict=True):
            sizes[c] = n
    pairs = []
    left = set(terms[0])
    for i in range(1, len(terms)):
        right = set(terms[i])
        later = set(out).union(*map(set, terms[i + 1 :]))
        left_kept = {c for c in left if c in right or c in later}
        right_kept = {c for c in right if c in left or c in later}
        letters = left_kept | right_kept
        summed = (left_kept & right_kept) - later
        # nothing summed: torch multiplies with broadcasting, no bmm
        pairs.append(2 * prod(sizes[c] for c in letters) if summed else 0)
        left = {c for c in letters if c in later}
    return pairs


def _einsum_forward(args, kwargs, out):
    if len(args) < 2:
        return None
    pairs = _einsum_pairs(kwargs["eq"], [a._data.shape for a in args])
    return "bmm", sum(pairs), pairs


def _einsum_backward(pairs, needs):
    flops = 0
    for i, f in enumerate(pairs):  # pair i joins the running result (operands 0..i) and i + 1
        flops += f * (any(needs[: i + 1]) + bool(needs[i + 1]))
    return "bmm", flops


def _targets():
    """(Function class, forward rule, backward rule) of each counted op."""
    from minitorch._ops import conv, einsum_op, linalg, nn_kernels

    return [
        (linalg.Mm, _mm_forward, _mm_backward),
        (linalg.Bmm, None, None),  # Mm's rules, inherited (own node classes)
        (linalg.BatchedMatmul, None, None),
        (nn_kernels.Linear, _linear_forward, _linear_backward),
        (nn_kernels.LinearLaid, _linear_forward, _linear_backward),
        (nn_kernels.LinearMm, _linear_mm_forward, _linear_mm_backward),
        (nn_kernels.LinearMmLaid, _linear_mm_forward, _linear_mm_backward),
        (conv.Conv, _conv_forward(False), _conv_backward),
        (conv.ConvTranspose, _conv_forward(True), _conv_backward),
        (einsum_op.Einsum, _einsum_forward, _einsum_backward),
    ]


def _depth():
    return getattr(_state, "depth", 0)


def _wrap_forward(orig, rule, bw_rule):
    def forward(ctx, *args, **kwargs):
        counters = _modes()
        depth = _depth()
        if not counters or depth == 1:
            return orig(ctx, *args, **kwargs)
        _state.depth = 1
        try:
            out = orig(ctx, *args, **kwargs)
        finally:
            _state.depth = depth
        got = rule(args, kwargs, out)
        if got is not None:
            key, flops, info = got
            parents = {}
            for counter in counters:
                parents[counter] = counter._parents()
                if not depth:  # (2: a product of a counted backward, which counted it)
                    counter._add(parents[counter], _aten(key), flops)
            if getattr(ctx, "needs_input_grad", None) is not None and any(ctx.needs_input_grad):
                try:
                    ctx._flop_info = (bw_rule, info, parents)
                except AttributeError:  # the shared context of a call that records nothing
                    pass
        return out

    return staticmethod(forward)


def _wrap_backward(orig):
    def backward(ctx, *args):
        info = ctx.__dict__.get("_flop_info") if hasattr(ctx, "__dict__") else None
        counters = _modes()
        if not counters or _depth():
            return orig(ctx, *args)
        # building a graph (create_graph): its products are counted again by their backward
        _state.depth = 2 if is_grad_enabled() else 1
        try:
            out = orig(ctx, *args)
        finally:
            _state.depth = 0
        if info is not None and out is not NotImplemented:
            bw_rule, data, parents = info
            key, flops = bw_rule(data, _computed(ctx))
            if flops:
                for counter in counters:  # a mode entered after the forward: its own parents
                    where = parents[counter] if counter in parents else counter._parents()
                    counter._add(where, _aten(key), flops)
        return out

    return backward


def _computed(ctx) -> tuple:
    """Which of the node's input gradients torch computes: those needed, and in autograd.grad
    only those its walk uses (torch's engine asks an op for no other)."""
    from minitorch.autograd.grad_mode import state

    needs = ctx.needs_input_grad
    task = state.graph_task
    if task is None or task.targets is None:
        return needs
    return tuple(
        bool(n) and e is not None and task.will_execute(e[0])
        for n, e in zip(needs, ctx._next, strict=False)
    )


class _Patches:
    """The Functions' attributes replaced while a mode is active, and their restoration."""

    def __init__(self):
        self.saved = []  # (owner, name, the value in owner.__dict__ or _MISSING)

    def set(self, owner, name, value):
        self.saved.append((owner, name, owner.__dict__.get(name, _MISSING)))
        setattr(owner, name, value)

    def restore(self):
        for owner, name, old in reversed(self.saved):
            if old is _MISSING:
                try:
                    delattr(owner, name)
                except AttributeError:
                    pass
            else:
                setattr(owner, name, old)
        self.saved = []


_MISSING = object()


def _install():
    patches = _Patches()
    targets = _targets()
    for cls, rule, bw_rule in targets:
        if rule is not None:
            patches.set(
                cls, "forward", _wrap_forward(cls.__dict__["forward"].__func__, rule, bw_rule)
            )
        for name in ("backward", "_backward_data", "_backward_data_owned"):
            fn = cls.__dict__.get(name)
            if isinstance(fn, staticmethod):
                patches.set(cls, name, staticmethod(_wrap_backward(fn.__func__)))
    for cls, _, _ in targets:
        _sync_node_class(cls, patches)
    _patch_sdpa(patches)
    _patch_rnns(patches)
    return patches, [cls for cls, _, _ in targets]


def _uncounted(orig):
    """orig with nothing inside it counted."""

    @wraps(orig)
    def run(*args, **kwargs):
        if _depth():
            return orig(*args, **kwargs)
        _state.depth = 1
        try:
            return orig(*args, **kwargs)
        finally:
            _state.depth = 0

    return run


def _patch_rnns(patches):
    """nn.LSTM: torch runs a float32 LSTM without projections on the CPU as one oneDNN kernel,
    which its table does not list (its other RNNs run as products it counts)."""
    from minitorch.nn.modules import rnn

    orig = rnn.LSTM.__dict__["forward"]
    uncounted = _uncounted(orig)

    @wraps(orig)
    def forward(self, input, hx=None):
        w = self.weight_ih_l0
        if self.proj_size == 0 and w.device.type == "cpu" and w.dtype.itemsize == 4:
            return uncounted(self, input, hx)
        return orig(self, input, hx)

    patches.set(rnn.LSTM, "forward", forward)


def _sync_node_class(cls, patches=None):
    """A node class copies its Function's data-level backward when made: kept in step."""
    node_cls = cls.__dict__.get("_backward_cls")
    if node_cls is None:
        return
    for attr, name in (("_data_bw", "_backward_data"), ("_data_bw_owned", "_backward_data_owned")):
        value = getattr(cls, name)
        if patches is not None:
            patches.set(node_cls, attr, value)
        else:
            setattr(node_cls, attr, value)


def _patch_sdpa(patches):
    import minitorch.nn.functional as F
    from minitorch.nn import _functional_attention, _functional_mha

    orig = _functional_attention.scaled_dot_product_attention

    def math_path(query, key, value, attn_mask=None, dropout_p=0.0, *args, enable_gqa=False, **kw):
        """Whether torch runs the call as its composite math path, whose products it counts as
        they run: on the meta device, and on the CPU where its flash kernel does not take it."""
        if len(args) > 2:  # (is_causal, scale, enable_gqa) by position
            enable_gqa = args[2]
        try:
            if query.device.type not in ("cpu", "meta"):
                return False
            flash = _functional_attention._runs_flash
            return not flash(query, key, value, attn_mask, dropout_p, enable_gqa)
        except Exception:  # invalid arguments: the call raises torch's error itself
            return False

    @wraps(orig)
    def sdpa(query, key, value, *args, **kwargs):
        counters = _modes()
        if not counters or _depth() or math_path(query, key, value, *args, **kwargs):
            return orig(query, key, value, *args, **kwargs)
        _state.depth = 1
        try:
            out = orig(query, key, value, *args, **kwargs)
        finally:
            _state.depth = 0
        if query.device.type != "cpu":  # torch's CPU flash kernel is not in its table
            fused = "flash" if query.dtype.itemsize == 2 else "efficient"
            parents = {}
            shapes = (tuple(query.shape), tuple(key.shape), tuple(value.shape))
            for counter in counters:
                parents[counter] = counter._parents()
                counter._add(
                    parents[counter],
                    _aten(f"_scaled_dot_product_{fused}_attention"),
                    sdpa_flop_count(*shapes),
                )
            if out.requires_grad:

                def count_backward(grad):
                    for counter in _modes():
                        counter._add(
                            parents[counter] if counter in parents else counter._parents(),
                            _aten(f"_scaled_dot_product_{fused}_attention_backward"),
                            sdpa_backward_flop_count(tuple(grad.shape), *shapes),
                        )

                out.register_hook(count_backward)
        return out

    for module in (_functional_attention, _functional_mha, F):
        patches.set(module, "scaled_dot_product_attention", sdpa)


class FlopCounterMode:
    """Counts the FLOPs of matrix products, convolutions and attention run inside it, per module
    (see NOTE [ Counting FLOPs without a dispatcher ]); on exit prints a table (display=True) of
    the modules down to `depth`. Mirrors torch.utils.flop_counter.FlopCounterMode.

    Differences from torch: ops are counted by the Functions minitorch runs (torch.addmm and
    torch.baddbmm count as aten.mm / aten.bmm; an nn.MultiheadAttention that returns its weights
    counts its products as bmm where torch counts baddbmm); backward FLOPs are filed under the
    modules of the forward. The table is printed without the optional `tabulate` package too."""

    def __init__(self, mods=None, depth=2, display=True, custom_mapping=None):
        self.flop_counts = defaultdict(lambda: defaultdict(int))
        self.depth = depth
        self.display = display
        self.mode = None
        if custom_mapping is None:
            custom_mapping = {}
        if mods is not None:
            warnings.warn(
                "mods argument is not needed anymore, you can stop passing it", stacklevel=2
            )
        self.flop_registry = {
            **flop_registry,
            **{
                k: v if getattr(v, "_get_raw", False) else shape_wrapper(v)
                for k, v in custom_mapping.items()
            },
        }
        self.mod_tracker = ModuleTracker()
        self.mod_tracker._follow_backward = False  # backward FLOPs go to the forward's modules

    def get_total_flops(self) -> int:
        return sum(self.flop_counts["Global"].values())

    def get_flop_counts(self) -> dict:
        """{module name: {op: FLOPs}}, "Global" holding every op."""
        return {k: dict(v) for k, v in self.flop_counts.items()}

    def _parents(self):
        return frozenset(self.mod_tracker.parents)

    def _add(self, parents, key, flops):
        for par in parents:
            self.flop_counts[par][key] += flops

    def _count_user_op(self, entry, args, kwargs, out):
        from minitorch import ops

        packet = getattr(getattr(ops, entry.namespace), entry.name)
        formula = self.flop_registry.get(packet)  # torch looks up packets only
        if formula is not None:
            self._add(self._parents(), packet, formula(*args, **kwargs, out_val=out))

    def get_table(self, depth=None):
        """The table printed on exit: each module down to `depth` (its dotted name's length)
        with its total and then its ops, indented by depth, counts in one unit; "Global" leads
        it when some FLOPs ran outside every module."""
        if depth is None:
            depth = self.depth if self.depth is not None else 10**6
        total = self.get_total_flops()
        unit = get_suffix_str(total)

        def cells(label, count):
            return [
                label,
                convert_num_with_suffix(count, unit),
                convert_to_percent_str(count, total),
            ]

        def block(name, indent):
            counts = self.flop_counts[name]
            lines = [cells(" " * indent + name, sum(counts.values()))]
            lines += [cells(" " * indent + " - " + str(op), n) for op, n in counts.items()]
            return lines

        modules = [m for m in sorted(self.flop_counts) if m != "Global" and m.count(".") < depth]
        rows = [line for m in modules for line in block(m, m.count("."))]
        covered = any(sum(self.flop_counts[m].values()) >= total for m in modules)
        if "Global" in self.flop_counts and not covered:
            rows = block("Global", 0) + [[" " + r[0], *r[1:]] for r in rows]
        if not rows:
            rows = [["Global", "0", "0%"]]
        header = ["Module", "FLOP", "% Total"]
        try:
            import tabulate
        except ImportError:
            return _simple_table(rows, header)
        tabulate.PRESERVE_WHITESPACE = True
        return tabulate.tabulate(rows, headers=header, colalign=("left", "right", "right"))

    def __enter__(self):
        from minitorch import _op_registry

        global _patches
        self.flop_counts.clear()
        self.mod_tracker.__enter__()
        with _lock:  # See NOTE [ Nested and per-thread FlopCounterModes ]
            if not _op_registry.FLOP_COUNTERS:
                _patches, _ = _install()
                function.pause_fast_path(True)  # NOTE [ The no-grad fast path ]
            _op_registry.FLOP_COUNTERS.append(self)
        _state.modes = (*_modes(), self)
        self.mode = self
        return self

    def __exit__(self, *args):
        from minitorch import _op_registry

        global _patches
        if self.mode is None:
            raise AssertionError("Internal error: FlopCounter.__exit__ called but mode is None")
        _state.modes = tuple(m for m in _modes() if m is not self)
        with _lock:
            _op_registry.FLOP_COUNTERS.remove(self)
            if not _op_registry.FLOP_COUNTERS:
                _patches.restore()
                _patches = None
                function.pause_fast_path(False)
                for cls, _, _ in _targets():
                    _sync_node_class(cls)
        self.mode = None
        self.mod_tracker.__exit__()
        if self.display:
            print(self.get_table(self.depth))
        return False


def _cell(value):
    """A cell as `tabulate` shows it: a number-like text as a number (".3f" of a count below
    10,000 reads as the count), anything else stripped."""
    text = str(value).strip()
    try:
        number = float(text)
    except ValueError:
        return text
    return format(number, "g")


def _simple_table(rows, header) -> str:
    """`tabulate`'s "simple" table of rows (first column left-aligned, the others right), for
    when that optional package is not installed."""
    cells = [[_cell(v) for v in row] for row in rows]
    widths = [max(len(header[i]) + 2, *(len(row[i]) for row in cells)) for i in range(len(header))]

    def line(row):
        parts = [row[0].ljust(widths[0])] + [
            c.rjust(w) for c, w in zip(row[1:], widths[1:], strict=True)
        ]
        return "  ".join(parts).rstrip()

    head = [header[0].ljust(widths[0])] + [
        h.rjust(w) for h, w in zip(header[1:], widths[1:], strict=True)
    ]
    out = ["  ".join(head).rstrip(), "  ".join("-" * w for w in widths)]
    out.extend(line(row) for row in cells)
    return "\n".join(out)
