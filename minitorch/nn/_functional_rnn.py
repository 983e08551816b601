"""Recurrent cells and the layer loop of RNN/LSTM/GRU, composed from matmul and pointwise ops.

NOTE [ Recurrent layers ]
As torch's CPU kernels do, a layer first projects the whole input sequence through weight_ih in
one matmul (`x W_ih^T + b_ih`), then runs one step per time position with only the hidden
projection (`h W_hh^T + b_hh`, then `+ x_proj[t]`), with torch's gate order (LSTM: i, f, g, o;
GRU: r, z, n) and formulas, so float64 results agree with torch to rounding. A packed sequence
runs each step on the first batch_sizes[t] rows (sorted longest first): rows whose sequence has
ended keep their last state, which becomes their part of h_n. Autograd records every step (the
Python loop over time is inherent to the recurrence), except in a float32 LSTM layer, one node
MkldnnRnnLayerBackward0, the graph torch's CPU LSTM shows where its oneDNN kernel runs: that node
(_LSTMLayer, session 46) runs the steps on arrays forward and backward, with the composed steps'
kernels and bits (3.9 -> 1.9 M instructions per forward of a (4, 10, 16) input into 32 units);
where it does not apply (unusual layouts, autocast, FlopCounterMode) the recorded steps are
folded into a composite node of that name (NOTE [ Composite nodes ]). Other dtypes show the
steps, as torch's generic kernel does (its output a StackBackward0). (torch also runs bfloat16
through oneDNN on CPUs with AVX-512 BF16, and float16 without autograd: those show the steps here.
An unfolded LSTM step is one node, _LSTMGatesBackward0, where torch's shows its pointwise ops.)
A direction takes W_hh's transpose once for all its steps (_Hidden), and a fused LSTM step's
node computes the hidden projection too (session 45: the same bits, fewer nodes per step).
"""

from __future__ import annotations

from minitorch import _autocast_state as _autocast
from minitorch._dtype import float32, float64
from minitorch._ops import addmm, cat, matmul, mm, stack
from minitorch._ops._common import check_tensor_list, check_tensors, row_major, wrong_type
from minitorch._ops.nn_kernels import (
    Linear,
    LinearLaid,
    LinearMm,
    LinearMmLaid,
    _linear_grads,
    _linear_grads_data,
    _matmul_bias,
    linear_fits,
    linear_kernel,
)
from minitorch._ops.pointwise import Sigmoid, SigmoidBackward, TanhBackward
from minitorch._ops.reduction import sum_array
from minitorch._ops.shape import TransposeT
from minitorch._ops.shape_join import _stack_arrays
from minitorch._tensor import Tensor, _make
from minitorch.autograd.composite import _Composite, as_node
from minitorch.autograd.function import Function
from minitorch.autograd.grad_mode import state as grad_state
from minitorch.nn._functional_dropout import dropout

__all__ = ["rnn_tanh_cell", "rnn_relu_cell", "lstm_cell", "gru_cell"]


def _linear(x: Tensor, w: Tensor, b) -> Tensor:
    """x W^T + b, one node as torch's addmm(b, x, W.t()) (mm without a bias); mixed dtypes
    take addmm/mm, which raise torch's error."""
    if _autocast.state.any_enabled:
        return _autocast.call(_linear, _autocast.LOWER, (x, w, b))
    if linear_fits(x, w, b):
        return linear_kernel(x, w, b)
    return mm(x, w.t()) if b is None else addmm(b, x, w.t())


# --- one step, given the input projection xw = x W_ih^T + b_ih ---
# A step takes hid, the function h -> h W_hh^T + b_hh (_Hidden), and prj, h -> h W_hr^T (LSTM
# with proj_size; None otherwise).


class _Hidden:
    """h -> _linear(h, w_hh, b_hh) for every step of one layer direction (NOTE [ Recurrent
    layers ]), with W_hh's transpose (its TBackward0 node) taken once instead of once per step:
    the same addmm (mm) node per step, the same values and gradients (the steps' weight
    gradients meet in the one TBackward0 in the order they met in the weight's accumulator).
    Where _linear would not take linear_kernel's addmm (autocast, a Tensor subclass's t, mixed
    dtypes, other shapes), every step calls _linear as before."""

    __slots__ = ("w", "b", "wt", "dt", "k", "laid")

    def __init__(self, w_hh: Tensor, b_hh) -> None:
        self.w, self.b, self.wt = w_hh, b_hh, None
        wd = w_hh._data
        if (
            not _HOIST[0]
            or _autocast.state.any_enabled
            or w_hh.__class__.t is not _TENSOR_T
            or wd.ndim != 2
            or not w_hh.dtype.is_floating_point
            or (
                b_hh is not None
                and (b_hh._data.dtype != wd.dtype or b_hh._data.shape != wd.shape[:1])
            )
        ):
            return
        self.wt = TransposeT.apply(w_hh)
        ws = wd.strides
        self.laid = ws[0] < ws[1]  # NOTE [ Gradient layout in linear ] (linear_kernel's test)
        self.dt, self.k = wd.dtype, wd.shape[1]

    def fuses(self, h):
        """W_hh^T where linear_kernel would take Linear (not its laid variant) for h: the
        fused steps then compute the projection inside their node; None otherwise, and while
        a FlopCounterMode wraps Linear's forward (it counts the steps' addmm nodes)."""
        wt = self.wt
        if wt is None or self.laid or Linear.__dict__["forward"] is not _LINEAR_FORWARD:
            return None
        d = h._data
        if d.dtype != self.dt or d.ndim != 2 or d.shape[1] != self.k:
            return None
        xs = d.strides
        return None if xs[0] < xs[1] else wt

    def __call__(self, h):
        wt, b = self.wt, self.b
        d = h._data
        if wt is None or d.dtype != self.dt or d.ndim != 2 or d.shape[1] != self.k:
            return _linear(h, self.w, b)
        xs = d.strides
        if self.laid or xs[0] < xs[1]:
            return LinearLaid.apply(b, h, wt) if b is not None else LinearMmLaid.apply(h, wt)
        return Linear.apply(b, h, wt) if b is not None else LinearMm.apply(h, wt)


def _projection(w_hr: Tensor) -> object:
    """h -> mm(h, w_hr.t()) for every step of one direction, the transpose taken once (as
    _Hidden's)."""
    if not _HOIST[0]:
        return lambda h: mm(h, w_hr.t())
    wr_t = w_hr.t()
    return lambda h: mm(h, wr_t)


_LINEAR_FORWARD = Linear.__dict__["forward"]
_HOIST = [True]  # False: each step takes its weights' transposes itself (the old route; tests)
_TENSOR_T = Tensor.t


def _rnn_step(nonlinearity):
    def step(xw, h, c, hid, prj):
        pre = hid(h) + xw
        return (pre.tanh() if nonlinearity == "tanh" else pre.relu()), None

    return step


def _lstm_step(xw, h, c, hid, prj):
    gates = hid(h) + xw
    i, f, g, o = gates.unsafe_chunk(4, 1)
    c = f.sigmoid() * c + i.sigmoid() * g.tanh()
    h = o.sigmoid() * c.tanh()
    if prj is not None:
        h = prj(h)
    return h, c


# The fused gates nodes' hidden projection hw = h wt + b (wt = W_hh^T, taken once per direction):
# Linear's kernel forward, its gradients backward, Linear's node where create_graph recomputes it.


def _hidden_forward(xp, h: Tensor, wt: Tensor, b) -> Tensor:
    """hw as Linear's forward computes it, an internal Tensor (no one else holds it)."""
    hd = _matmul_bias(xp, h._data, wt._data, None if b is None else b._data)
    return _make(hd, h._device, False, None)


def _hidden_recorded(h: Tensor, wt: Tensor, b) -> Tensor:
    """hw recorded as Linear's node (create_graph's recompute)."""
    return Linear.apply(b, h, wt) if b is not None else LinearMm.apply(h, wt)


def _hidden_grads(grad, h, wt, need_h: bool, need_wt: bool, need_b: bool) -> tuple:
    """(gh, gwt, gb) of hw from its gradient, Linear.backward's formulas (None where unneeded)."""
    gb = grad.sum_to_size(grad.shape[1:]) if need_b else None
    gh, gwt = _linear_grads(grad, h, wt, need_h, need_wt)
    return gh, gwt, gb


def _hidden_grads_data(xp, grad, h, wt, need_h: bool, need_wt: bool, need_b: bool) -> tuple:
    """_hidden_grads on arrays (Linear's data-level backward): the same bits."""
    gb = sum_array(xp, grad, (0,), False) if need_b else None
    gh, gwt = _linear_grads_data(xp, grad, h, wt, need_h, need_wt)
    return gh, gwt, gb


class _LSTMGates(Function):
    """(h, c') from the gates' two projections hw + xw = (i, f, g, o) and c: c' = sig(f) c +
    sig(i) tanh(g), h = sig(o) tanh(c'). Fused (one node instead of eleven) for the folded LSTM
    layer, whose inner nodes no user sees: the per-step recording was most of an LSTM's time
    (perf11, session 27). The same kernels in the same order as the composed step, so values
    and first-order gradients are bit-identical to it; backward is Tensor ops (under
    create_graph the activations are recomputed from the inputs, so double backward flows
    through the gates, and the first-order gradients then differ from the composed step's by
    an ulp or so).

    Given hw None and (h, wt, b) instead, the node also computes the hidden projection
    hw = h wt + b (a layer's step, wt = W_hh^T taken once per direction: _hidden): Linear's
    kernel forward and its gradients (gb, gh, gwt) backward, the same bits as the addmm node
    it replaces (h's two other gradients, from the output and the next step, meet in h's
    buffer either way; session 45)."""

    @staticmethod
    def forward(ctx, hw, xw, c, h=None, wt=None, b=None):
        xp = ctx.xp
        if hw is None:
            needs = ctx.needs_input_grad  # (Linear's: each operand only for the other's grad)
            hw = _hidden_forward(xp, h, wt, b)
            ctx.save_for_backward(hw, xw, c, h if needs[4] else None, wt if needs[3] else None)
            ctx._hwb = (h, wt, b)  # (for create_graph, which recomputes hw)
        else:
            ctx.save_for_backward(hw, xw, c)
        gates = hw._data + xw._data
        n = gates.shape[1] // 4
        i, f, g, o = gates[:, :n], gates[:, n : 2 * n], gates[:, 2 * n : 3 * n], gates[:, 3 * n :]
        i, f, o = Sigmoid.kernel(xp, i), Sigmoid.kernel(xp, f), Sigmoid.kernel(xp, o)
        g = xp.tanh(g)
        c_new = f * c._data + i * g
        tc = xp.tanh(c_new)
        ctx._acts = (i, f, g, o, tc)  # arrays: wrapped only when backward runs
        return o * tc, c_new

    @staticmethod
    def backward(ctx, gh, gc):
        saved = ctx._stored_tensors
        hw, xw, c = saved[0], saved[1], saved[2]
        fused = len(saved) == 5
        if grad_state.enabled:  # create_graph: the activations as functions of the gates
            if fused:  # (and hw as a function of h, W_hh and b_hh)
                hw = _hidden_recorded(*ctx._hwb)
            i, f, g, o = (hw + xw).unsafe_chunk(4, 1)
            i, f, g, o = i.sigmoid(), f.sigmoid(), g.tanh(), o.sigmoid()
            tc = (f * c + i * g).tanh()
        else:
            dev = gh._device
            i, f, g, o, tc = (_make(a, dev, False, None) for a in ctx._acts)
        gc = gc + TanhBackward.apply(gh * o, tc)
        grad = cat(
            [
                SigmoidBackward.apply(gc * g, i),
                SigmoidBackward.apply(gc * c, f),
                TanhBackward.apply(gc * i, g),
                SigmoidBackward.apply(gh * tc, o),
            ],
            1,
        )
        needs = ctx.needs_input_grad
        gc = gc * f if needs[2] else None
        if not fused:
            return grad, grad, gc
        gx, gwt, gb = _hidden_grads(grad, saved[3], saved[4], needs[3], needs[4], needs[5])
        return None, grad, gc, gx, gwt, gb

    @staticmethod
    def _backward_data(ctx, gh, gc):
        """backward's formulas on arrays (NOTE [ Data-level backward ]): the same bits."""
        if gh is None or gc is None:
            return NotImplemented
        saved = ctx._stored_arrays()
        c = saved[2]
        i, f, g, o, tc = ctx._acts
        gc = gc + TanhBackward.kernel(gh * o, tc)
        parts = (
            SigmoidBackward.kernel(gc * g, i),
            SigmoidBackward.kernel(gc * c, f),
            TanhBackward.kernel(gc * i, g),
            SigmoidBackward.kernel(gh * tc, o),
        )
        xp = ctx.xp
        grad = xp.concatenate(parts, 1)
        needs = ctx.needs_input_grad
        gc = gc * f if needs[2] else None
        if len(saved) == 3:
            return grad, grad, gc
        gx, gwt, gb = _hidden_grads_data(
            xp, grad, saved[3], saved[4], needs[3], needs[4], needs[5]
        )
        return None, grad, gc, gx, gwt, gb


def _lstm_step_fused(xw, h, c, hid, prj):
    wt = hid.fuses(h)
    if wt is None:
        return _LSTMGates.apply(hid(h), xw, c)
    return _LSTMGates.apply(None, xw, c, h, wt, hid.b)


class _LSTMLayer(Function):
    """(out, h_n, c_n) of one float32 LSTM layer direction without projections (NOTE [
    Recurrent layers ]): out = the steps' h stacked in time order. One node,
    MkldnnRnnLayerBackward0, with torch's edges (input, w_ih, w_hh, b_ih, b_hh, h_0, c_0) and
    torch's saved tensors (all seven: changing one in place before backward raises torch's
    error). The composed steps folded into a node of that name (as_node) recorded ~6 ops per
    layer and one per step, and ran ~20 kernels per step forward; this node runs the steps on
    arrays with the same kernels on the same operands, so values and first-order gradients
    keep their bits: the input projection as Linear's forward and gradients, each step as
    _LSTMGates' (its hidden projection inside), the steps' W_hh and b_hh gradients summed in
    the order the composite's buffers summed them (last step first), the steps' gates
    gradients stacked as Unbind's backward stacked them. Elementwise kernels run once over all
    four gates where the steps ran one per gate (Sigmoid's four passes over the gates'
    pre-activations, g's quarter unused; the gates gradient's products written quarter by
    quarter): the same values element by element. Under create_graph, backward records the
    composed steps again from the saved inputs and runs their backward as the composite did
    (_Composite.backward): the same first-order gradients, and double backward flows through
    the recorded steps (its sums meet in another order than the folded graph's: an ulp or so).
    (session 46)"""

    _node_name = "MkldnnRnnLayerBackward0"

    @staticmethod
    def forward(ctx, x, w_ih, w_hh, b_ih, b_hh, h0, c0, *, reverse):
        xp = ctx.xp
        xd = x._data
        n, batch = xd.shape[0], xd.shape[1]
        x2 = xd.reshape(n * batch, xd.shape[2])  # (Linear's x: the view linear_kernel takes)
        wih_t, whh_t = w_ih._data.T, w_hh._data.T  # (TransposeT's arrays)
        bih = None if b_ih is None else b_ih._data
        bhh = None if b_hh is None else b_hh._data
        proj = _matmul_bias(xp, x2, wih_t, bih).reshape(n, batch, wih_t.shape[1])
        k = whh_t.shape[1] // 4
        record = True in ctx.needs_input_grad
        steps = [] if record else None
        outs = [None] * n
        h, c = h0._data, c0._data
        for t in range(n - 1, -1, -1) if reverse else range(n):
            gates = _matmul_bias(xp, h, whh_t, bhh)  # a new array: hw + xw in its place
            gates += proj[t]  # (as _LSTMGates.forward)
            g = xp.tanh(gates[:, 2 * k : 3 * k])
            # Sigmoid.kernel's four passes, over all four gates at once (g's quarter unused):
            # elementwise, the same bits as over each gate's slice
            sg = xp.negative(gates, out=gates)
            xp.exp(sg, out=sg)
            sg += 1
            xp.reciprocal(sg, out=sg)
            c_new = sg[:, k : 2 * k] * c + sg[:, :k] * g
            tc = xp.tanh(c_new)
            if record:
                steps.append((h, c, sg, g, tc))
            h, c = sg[:, 3 * k :] * tc, c_new
            outs[t] = h
        if record:
            # the arrays backward reads ride with the saved tensors (a constant entry), so
            # that a backward that frees them (no retain_graph) frees these too
            arrays = (steps, x2, wih_t, whh_t)
            ctx.save_for_backward(x, w_ih, w_hh, b_ih, b_hh, h0, c0, arrays)
            ctx.set_materialize_grads(False)  # (the composite's: None for an unused output)
            ctx.reverse = reverse
        return row_major(xp, _stack_arrays(xp, outs, 0)), h, c

    @staticmethod
    def backward(ctx, g_out, g_h, g_c):
        if not grad_state.enabled:  # anomaly mode, or the engine's Tensor path: the arrays'
            dev = ctx._out_device
            grads = (None if g is None else g._data for g in (g_out, g_h, g_c))
            res = _LSTMLayer._backward_data(ctx, *grads)
            return tuple(None if r is None else _make(r, dev, False, None) for r in res)
        # create_graph: the composed steps recorded again, their backward run as the
        # composite's (inner nodes down to the seven edges)
        x, w_ih, w_hh, b_ih, b_hh, h0, c0, _ = ctx._stored_tensors
        out = _lstm_layer_composed(x, w_ih, w_hh, b_ih, b_hh, h0, c0, ctx.reverse)[0]
        return _Composite.backward(out._grad_fn, g_out, g_h, g_c)

    @staticmethod
    def _backward_data(ctx, g_out, g_h, g_c):
        """The composite's data-level walk of the steps, on arrays (see the class)."""
        # (raises where the saved tensors were freed or changed)
        steps, x2, wih_t, whh_t = ctx._stored_arrays()[7]
        xp = ctx.xp
        needs = ctx.needs_input_grad
        n = len(steps)
        times = range(n - 1, -1, -1) if ctx.reverse else range(n)
        need_proj = needs[0] or needs[1] or needs[3]
        gw = gb = gh_prev = gc_prev = None
        gh, gc = g_h, g_c
        t = times[-1]
        if g_out is not None:
            gh = g_out[t] if gh is None else gh + g_out[t]
        k = whh_t.shape[1] // 4
        grid = xp.empty((n,) + steps[0][2].shape, steps[0][2].dtype) if need_proj else None
        for j in range(n - 1, -1, -1):
            h, c, sg, g, tc = steps[j]
            i, f, o = sg[:, :k], sg[:, k : 2 * k], sg[:, 3 * k :]
            if gh is None:  # (the last step's unused output: zeros, as the engine fills)
                gh = xp.zeros(tc.shape, tc.dtype)
            if gc is None:
                gc = xp.zeros(tc.shape, tc.dtype)
            # _LSTMGates._backward_data's gates gradient, its four parts (upstream gradient
            # times derivative) each written into its quarter: the same products
            gc = gc + TanhBackward.kernel(gh * o, tc)
            grad = xp.empty(sg.shape, sg.dtype) if grid is None else grid[t]
            xp.multiply(gc, g, out=grad[:, :k])
            xp.multiply(gc, c, out=grad[:, k : 2 * k])
            xp.multiply(gc, i, out=grad[:, 2 * k : 3 * k])
            xp.multiply(gh, tc, out=grad[:, 3 * k :])
            d = xp.subtract(1, sg)  # SigmoidBackward's y (1 - y) for i, f and o
            xp.multiply(sg, d, out=d)
            gg = g * g  # TanhBackward's 1 - y y for g
            xp.subtract(1, gg, out=d[:, 2 * k : 3 * k])
            xp.multiply(grad, d, out=grad)
            first = j == 0
            gc_prev = gc * f if (not first or needs[6]) else None
            if needs[4]:
                s = sum_array(xp, grad, (0,), False)
                gb = s if gb is None else gb + s
            gh_prev, gwt = _linear_grads_data(
                xp, grad, h, whh_t, not first or needs[5], needs[2]
            )
            if gwt is not None:
                gw = gwt if gw is None else gw + gwt
            if first:
                break
            t = times[j - 1]
            gh = gh_prev if g_out is None else g_out[t] + gh_prev
            gc = gc_prev
        gx = gw_ih = gb_ih = None
        if need_proj:  # Unbind's backward (the steps' gradients stacked: grid), then Linear's
            grid = grid.reshape(grid.shape[0] * grid.shape[1], grid.shape[2])
            gb_ih = sum_array(xp, grid, (0,), False) if needs[3] else None
            gx, gwt = _linear_grads_data(xp, grid, x2, wih_t, needs[0], needs[1])
            if gx is not None:
                gx = gx.reshape(n, gx.shape[0] // n, gx.shape[1])
            gw_ih = None if gwt is None else gwt.T  # (TransposeT's backward)
        gw_hh = None if gw is None else gw.T
        return gx, gw_ih, gw_hh, gb_ih, gb, gh_prev, gc_prev


def _lstm_layer_composed(x, w_ih, w_hh, b_ih, b_hh, h0, c0, reverse):
    """_LSTMLayer's (out, h_n, c_n) from the composed (fused) steps, recorded and folded into
    one composite node of the same name and edges: the route before session 46, and the graph
    _LSTMLayer's create_graph backward differentiates."""
    proj = _project(x, w_ih, b_ih)
    w = (_Hidden(w_hh, b_hh), None)
    outs, h, c = _direction(_lstm_step_fused, proj.unbind(0), h0, c0, w, reverse, None)
    edges = (x, w_ih, w_hh, b_ih, b_hh, h0, c0)
    return as_node((stack(outs), h, c), "MkldnnRnnLayerBackward0", edges)


_ONE_NODE = [True]  # False: a float32 LSTM layer folds its recorded steps (as_node; tests)


def _one_node_fits(x, w_ih, w_hh, b_ih, b_hh, h0, c0) -> bool:
    """Whether _LSTMLayer runs the layer direction: where the composed route would take
    linear_kernel's Linear for the input projection and a fused _LSTMGates node for every step
    (float32 operands of one device and of the usual layouts, no autocast, no FlopCounterMode,
    no dispatching subclass); elsewhere the composed steps run (and raise their errors)."""
    if (
        not _ONE_NODE[0]
        or not _HOIST[0]
        or float32 not in _FUSED_DTYPES
        or _autocast.state.any_enabled
        or Linear.__dict__["forward"] is not _LINEAR_FORWARD
        or x.__class__ is not Tensor
        or h0.__class__ is not Tensor
        or c0.__class__ is not Tensor
    ):
        return False
    dev = x._device
    xd, hd, cd = x._data, h0._data, c0._data
    dt = xd.dtype
    for w in (w_ih, w_hh, b_ih, b_hh):
        if w is not None and (
            w.__class__._dispatches
            or w._device is not dev
            or w._data.dtype != dt
            or w.__class__.t is not _TENSOR_T
        ):
            return False
    if h0._device is not dev or c0._device is not dev or hd.dtype != dt or cd.dtype != dt:
        return False
    wi, wh = w_ih._data, w_hh._data
    if wi.ndim != 2 or wh.ndim != 2 or hd.ndim != 2 or cd.shape != hd.shape:
        return False
    gates, hidden = wh.shape
    if (
        gates != 4 * hidden
        or wi.shape != (gates, xd.shape[2])
        or hd.shape != (xd.shape[1], hidden)
        or (b_ih is not None and b_ih._data.shape != (gates,))
        or (b_hh is not None and b_hh._data.shape != (gates,))
    ):
        return False
    ws, vs, hs = wi.strides, wh.strides, hd.strides  # NOTE [ Gradient layout in linear ]
    return not (ws[0] < ws[1] or vs[0] < vs[1] or hs[0] < hs[1])


def _gru_step(xw, h, c, hid, prj):
    x_r, x_z, x_n = xw.unsafe_chunk(3, 1)
    h_r, h_z, h_n = hid(h).unsafe_chunk(3, 1)
    r = (h_r + x_r).sigmoid()
    z = (h_z + x_z).sigmoid()
    n = (x_n + h_n * r).tanh()
    return (h - n) * z + n, None


class _GRUGates(Function):
    """(v, n) from the gates' two projections hw = (h_r, h_z, h_n), xw = (x_r, x_z, x_n) and
    h: r = sig(h_r + x_r), z = sig(h_z + x_z), n = tanh(x_n + h_n r), v = (h - n) z; the step
    then adds h' = v + n. Fused as _LSTMGates (one node instead of eleven; the last addition
    stays an AddBackward0, so the nodes next to a GRU's outputs are torch's), for the GRU
    layer's steps: the same kernels in the same order as the composed step (_gru_step), so
    values and first-order gradients are bit-identical to it; backward is Tensor ops (under
    create_graph the gates are recomputed from the inputs, so double backward flows through
    them).

    Given hw None and (wt, b, h) after h, the node also computes hw = h wt + b, as
    _LSTMGates does; h is then an input twice, so that its gradient from the gates and its
    gradient through the projection reach h's buffer one after the other, as the composed
    step's subtraction and addmm nodes sent them (one sum of the two would round
    differently)."""

    @staticmethod
    def forward(ctx, hw, xw, h, wt=None, b=None, h_again=None):
        xp = ctx.xp
        if hw is None:
            needs = ctx.needs_input_grad  # (Linear's: each operand only for the other's grad)
            hw = _hidden_forward(xp, h, wt, b)
            ctx.save_for_backward(hw, xw, h if needs[3] else None, wt if needs[5] else None)
            ctx._wtb = (wt, b)  # (for create_graph, which recomputes hw)
        else:
            ctx.save_for_backward(hw, xw)
        hd = hw._data
        xd = xw._data
        k = hd.shape[1] // 3
        h_n = hd[:, 2 * k :]
        r = Sigmoid.kernel(xp, hd[:, :k] + xd[:, :k])
        z = Sigmoid.kernel(xp, hd[:, k : 2 * k] + xd[:, k : 2 * k])
        n = xp.tanh(xd[:, 2 * k :] + h_n * r)
        u = h._data - n
        ctx._h = h  # (not saved: the composed step's subtraction saves neither operand)
        ctx._acts = (r, z, n, u, h_n)  # arrays: wrapped only when backward runs
        return u * z, n

    @staticmethod
    def backward(ctx, gv, gn):
        saved = ctx._stored_tensors
        hw, xw = saved[0], saved[1]
        fused = len(saved) == 4
        if grad_state.enabled:  # create_graph: the gates as functions of the inputs
            if fused:  # (and hw as a function of h, W_hh and b_hh)
                hw = _hidden_recorded(ctx._h, *ctx._wtb)
            x_r, x_z, x_n = xw.unsafe_chunk(3, 1)
            h_r, h_z, h_n = hw.unsafe_chunk(3, 1)
            r = (h_r + x_r).sigmoid()
            z = (h_z + x_z).sigmoid()
            n = (x_n + h_n * r).tanh()
            u = ctx._h - n
        else:
            dev = gv._device
            r, z, n, u, h_n = (_make(a, dev, False, None) for a in ctx._acts)
        gu = gv * z
        gn = TanhBackward.apply(gn - gu, n)
        g_r = SigmoidBackward.apply(gn * h_n, r)
        g_z = SigmoidBackward.apply(gv * u, z)
        needs = ctx.needs_input_grad
        g_xw = cat([g_r, g_z, gn], 1)
        grad = cat([g_r, g_z, gn * r], 1)
        if not fused:
            return grad, g_xw, gu if needs[2] else None
        gx, gwt, gb = _hidden_grads(grad, saved[2], saved[3], needs[5], needs[3], needs[4])
        return None, g_xw, gu if needs[2] else None, gwt, gb, gx

    @staticmethod
    def _backward_data(ctx, gv, gn):
        """backward's formulas on arrays (NOTE [ Data-level backward ]): the same bits."""
        if gv is None or gn is None:
            return NotImplemented
        saved = ctx._stored_arrays()  # (raises where the saved tensors were freed or changed)
        r, z, n, u, h_n = ctx._acts
        xp = ctx.xp
        gu = gv * z
        gn = TanhBackward.kernel(gn - gu, n, xp)
        g_r = SigmoidBackward.kernel(gn * h_n, r, xp)
        g_z = SigmoidBackward.kernel(gv * u, z, xp)
        needs = ctx.needs_input_grad
        grad = xp.concatenate((g_r, g_z, gn * r), 1)
        g_xw = xp.concatenate((g_r, g_z, gn), 1)
        if len(saved) == 2:
            return grad, g_xw, gu if needs[2] else None
        gx, gwt, gb = _hidden_grads_data(
            xp, grad, saved[2], saved[3], needs[5], needs[3], needs[4]
        )
        return None, g_xw, gu if needs[2] else None, gwt, gb, gx


def _gru_step_fused(xw, h, c, hid, prj):
    wt = hid.fuses(h)
    if wt is None:
        v, n = _GRUGates.apply(hid(h), xw, h)
    else:
        v, n = _GRUGates.apply(None, xw, h, wt, hid.b, h)
    return v + n, None


STEPS = {
    "RNN_TANH": _rnn_step("tanh"),
    "RNN_RELU": _rnn_step("relu"),
    "LSTM": _lstm_step,
    "GRU": _gru_step,
}


# --- the cells (torch.rnn_tanh_cell, torch.lstm_cell, ...) ---


def _check_cell_args(op, input, hx, w_ih, w_hh, b_ih, b_hh) -> None:
    """torch's parser's TypeError for the first argument of a cell of the wrong type (it reads
    them all before the kernel runs); None when all are right. For the cells' `except` clause:
    an error of the step itself is then re-raised, as it is."""
    if op == "lstm_cell":  # hx: a Tensor[] of (h, c)
        check_tensors(op, ("input", input))
        if isinstance(hx, Tensor) or not isinstance(hx, (list, tuple)):
            raise wrong_type(op, hx, "hx", 2, "tuple of Tensors")
        check_tensor_list(hx, 1)
        check_tensors(op, (None, None), (None, None), ("w_ih", w_ih), ("w_hh", w_hh))
    else:
        check_tensors(op, ("input", input), ("hx", hx), ("w_ih", w_ih), ("w_hh", w_hh))
    for name, b, pos in (("b_ih", b_ih, 5), ("b_hh", b_hh, 6)):
        if b is not None and not isinstance(b, Tensor):
            raise wrong_type(op, b, name, pos, "Tensor")


def rnn_tanh_cell(input, hx, w_ih, w_hh, b_ih=None, b_hh=None) -> Tensor:
    """h' = tanh(x W_ih^T + b_ih + h W_hh^T + b_hh). Mirrors torch.rnn_tanh_cell."""
    hid = lambda h: _linear(h, w_hh, b_hh)  # noqa: E731
    try:
        return STEPS["RNN_TANH"](_linear(input, w_ih, b_ih), hx, None, hid, None)[0]
    except Exception:  # whatever a non-tensor argument breaks: torch's parser refuses it first
        _check_cell_args("rnn_tanh_cell", input, hx, w_ih, w_hh, b_ih, b_hh)
        raise


def rnn_relu_cell(input, hx, w_ih, w_hh, b_ih=None, b_hh=None) -> Tensor:
    """h' = relu(x W_ih^T + b_ih + h W_hh^T + b_hh). Mirrors torch.rnn_relu_cell."""
    hid = lambda h: _linear(h, w_hh, b_hh)  # noqa: E731
    try:
        return STEPS["RNN_RELU"](_linear(input, w_ih, b_ih), hx, None, hid, None)[0]
    except Exception:  # as rnn_tanh_cell's
        _check_cell_args("rnn_relu_cell", input, hx, w_ih, w_hh, b_ih, b_hh)
        raise


def lstm_cell(input, hx, w_ih, w_hh, b_ih=None, b_hh=None) -> tuple:
    """(h', c') of one LSTM step from hx = (h, c). Mirrors torch.lstm_cell."""
    hid = lambda h: _linear(h, w_hh, b_hh)  # noqa: E731
    try:
        return _lstm_step(_linear(input, w_ih, b_ih), hx[0], hx[1], hid, None)
    except Exception:  # as rnn_tanh_cell's
        _check_cell_args("lstm_cell", input, hx, w_ih, w_hh, b_ih, b_hh)
        raise


def gru_cell(input, hx, w_ih, w_hh, b_ih=None, b_hh=None) -> Tensor:
    """h' of one GRU step. Mirrors torch.gru_cell."""
    hid = lambda h: _linear(h, w_hh, b_hh)  # noqa: E731
    try:
        return _gru_step(_linear(input, w_ih, b_ih), hx, None, hid, None)[0]
    except Exception:  # as rnn_tanh_cell's
        _check_cell_args("gru_cell", input, hx, w_ih, w_hh, b_ih, b_hh)
        raise


# --- layers ---


def _direction(step, xws, h, c, w, reverse, batch_sizes):
    """One direction of one layer over the per-step input projections xws; returns (outputs in
    time order, h_n, c_n). See NOTE [ Recurrent layers ]."""
    hid, prj = w
    n = len(xws)
    order = range(n - 1, -1, -1) if reverse else range(n)
    outs = [None] * n
    if batch_sizes is None:
        for t in order:
            h, c = step(xws[t], h, c, hid, prj)
            outs[t] = h
        return outs, h, c
    h_full, c_full = h, c
    done_h, done_c = [], []
    if reverse:  # the batch grows: rows join with their initial state
        size = batch_sizes[-1]
        h = h_full.narrow(0, 0, size)
        c = c_full.narrow(0, 0, size) if c_full is not None else None
    else:
        size = batch_sizes[0]
    for t in order:
        bs = batch_sizes[t]
        if bs < size:  # forward: rows [bs:size] have ended
            done_h.append(h.narrow(0, bs, size - bs))
            h = h.narrow(0, 0, bs)
            if c is not None:
                done_c.append(c.narrow(0, bs, size - bs))
                c = c.narrow(0, 0, bs)
        elif bs > size:  # reverse: rows [size:bs] start
            h = cat([h, h_full.narrow(0, size, bs - size)])
            if c is not None:
                c = cat([c, c_full.narrow(0, size, bs - size)])
        size = bs
        h, c = step(xws[t], h, c, hid, prj)
        outs[t] = h
    if done_h:
        h = cat([h, *done_h[::-1]])
        c = cat([c, *done_c[::-1]]) if c is not None else None
    return outs, h, c


_FUSED_DTYPES = (float32, float64)
# A GRU layer's step is one _GRUGates node below its last addition (AddBackward0, as torch's):
# torch's generic kernel records ~12 nodes there, which the graph below each step's addition no
# longer shows (as the LSTM layer's, one MkldnnRnnLayerBackward0 in torch, is not torch's node
# for node either). Values and gradients keep the composed step's bits; the layer runs 2.5x
# faster ((4, 10, 16) into 32 units: forward 1,110 -> 440 us, with backward 1,850 -> 875).
# () keeps the steps composed (tests).
_GRU_FUSED_DTYPES = (float32, float64)


def _project(x: Tensor, w_ih: Tensor, b_ih) -> Tensor:
    if x.is_contiguous():
        return _linear(x, w_ih, b_ih)  # torch's graph: a view, addmm, a view
    out = matmul(x, w_ih.t())
    return out if b_ih is None else out + b_ih


def _cpu_autocast_lowers(mode, input, weights, batch_sizes) -> bool:
    """Whether torch's CPU autocast runs this recurrence in its lower-precision dtype: the
    Elman RNN (rnn_tanh/rnn_relu are on its list, packed or not), the LSTM where one oneDNN
    kernel runs it (mkldnn_rnn: unpacked, no projection), and a GRU whose input already has
    the autocast dtype (its weights follow the input; any other input computes in float32)."""
    if mode == "LSTM":
        return batch_sizes is None and weights[0][4] is None
    if mode == "GRU":
        return input.dtype is _autocast.state.dtype["cpu"]
    return True


def rnn_layers(
    mode, input, hx, cx, weights, num_layers, num_directions, dropout_p, training, batch_sizes=None
):
    """The multi-layer, optionally bidirectional recurrence (the body of nn.RNN/LSTM/GRU).

    input: (L, N, H_in), or packed data (sum(batch_sizes), H_in) with host batch_sizes;
    hx/cx: (num_layers * num_directions, N, H) (cx for LSTM only); weights: per layer and
    direction (w_ih, w_hh, b_ih, b_hh, w_hr), None where absent. Returns (output, h_n, c_n)."""
    if _autocast.state.any_enabled and _cpu_autocast_lowers(mode, input, weights, batch_sizes):
        args = (mode, input, hx, cx, weights, num_layers, num_directions, dropout_p, training)
        return _autocast.call(rnn_layers, _autocast.LOWER_CPU, args + (batch_sizes,))
    step = STEPS[mode]
    gru_fused = mode == "GRU" and not _autocast.state.any_enabled
    layer_input = input
    h_n, c_n = [], []
    for layer in range(num_layers):
        dir_outs = []
        for d in range(num_directions):
            w_ih, w_hh, b_ih, b_hh, w_hr = weights[layer * num_directions + d]
            k = layer * num_directions + d
            fast = mode == "LSTM" and batch_sizes is None and w_hr is None
            fold = fast and layer_input.dtype is float32 and layer_input.numel() != 0
            if fold and not layer_input.is_contiguous():  # torch's kernel takes a dense copy
                layer_input = layer_input.contiguous()
            if fold:
                h0, c0 = hx[k], cx[k]
                if _one_node_fits(layer_input, w_ih, w_hh, b_ih, b_hh, h0, c0):
                    out, h, c = _LSTMLayer.apply(
                        layer_input, w_ih, w_hh, b_ih, b_hh, h0, c0, reverse=d == 1
                    )
                    dir_outs.append(out)
                    h_n.append(h)
                    c_n.append(c)
                    continue
            proj = _project(layer_input, w_ih, b_ih)
            if batch_sizes is None:
                xws = proj.unbind(0)
            else:
                xws, start = [], 0
                for bs in batch_sizes:
                    xws.append(proj.narrow(0, start, bs))
                    start += bs
            if not fold:
                h0 = hx[k]
                c0 = cx[k] if cx is not None else None
            if fast and proj.dtype in _FUSED_DTYPES:
                dir_step = _lstm_step_fused
            elif gru_fused and proj.dtype in _GRU_FUSED_DTYPES and proj.dtype is h0.dtype:
                dir_step = _gru_step_fused
            else:
                dir_step = step
            w = (_Hidden(w_hh, b_hh), None if w_hr is None else _projection(w_hr))
            outs, h, c = _direction(dir_step, xws, h0, c0, w, d == 1, batch_sizes)
            out = stack(outs) if batch_sizes is None else cat(outs)
            if fold:
                # torch's CPU LSTM runs a layer as one oneDNN kernel: one node, three outputs
                edges = (layer_input, w_ih, w_hh, b_ih, b_hh, h0, c0)
                out, h, c = as_node((out, h, c), "MkldnnRnnLayerBackward0", edges)
            dir_outs.append(out)
            h_n.append(h)
            c_n.append(c)
        out = dir_outs[0] if num_directions == 1 else cat(dir_outs, -1)
        if dropout_p and training and layer < num_layers - 1:
            out = dropout(out, dropout_p, training)
        layer_input = out
    c_n = stack(c_n) if cx is not None else None  # first, as torch: its h_n's node runs first
    return layer_input, stack(h_n), c_n
