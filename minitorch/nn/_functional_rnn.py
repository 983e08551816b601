"""Recurrent cells and the layer loop of RNN/LSTM/GRU, composed from matmul and pointwise ops.

NOTE [ Recurrent layers ]
As torch's CPU kernels do, a layer first projects the whole input sequence through weight_ih in
one matmul (`x W_ih^T + b_ih`), then runs one step per time position with only the hidden
projection (`h W_hh^T + b_hh`, then `+ x_proj[t]`), with torch's gate order (LSTM: i, f, g, o;
GRU: r, z, n) and formulas, so float64 results agree with torch to rounding. A packed sequence
runs each step on the first batch_sizes[t] rows (sorted longest first): rows whose sequence has
ended keep their last state, which becomes their part of h_n. Autograd records every step; there
is no fused recurrent kernel (the Python loop over time is inherent to the recurrence). A float32
LSTM layer's recorded steps are folded into one node, MkldnnRnnLayerBackward0, the graph torch's
CPU LSTM shows where its oneDNN kernel runs (NOTE [ Composite nodes ]); other dtypes show the
steps, as torch's generic kernel does (its output a StackBackward0). (torch also runs bfloat16
through oneDNN on CPUs with AVX-512 BF16, and float16 without autograd: those show the steps here.
An unfolded LSTM step is one node, _LSTMGatesBackward0, where torch's shows its pointwise ops.)
"""

from __future__ import annotations

from minitorch import _autocast_state as _autocast
from minitorch._dtype import float32, float64
from minitorch._ops import addmm, cat, matmul, mm, stack
from minitorch._ops.nn_kernels import linear_fits, linear_kernel
from minitorch._ops.pointwise import Sigmoid, SigmoidBackward, TanhBackward
from minitorch._tensor import Tensor, _make
from minitorch.autograd.composite import as_node
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


def _rnn_step(nonlinearity):
    def step(xw, h, c, w_hh, b_hh, w_hr):
        pre = _linear(h, w_hh, b_hh) + xw
        return (pre.tanh() if nonlinearity == "tanh" else pre.relu()), None

    return step


def _lstm_step(xw, h, c, w_hh, b_hh, w_hr):
    gates = _linear(h, w_hh, b_hh) + xw
    i, f, g, o = gates.unsafe_chunk(4, 1)
    c = f.sigmoid() * c + i.sigmoid() * g.tanh()
    h = o.sigmoid() * c.tanh()
    if w_hr is not None:
        h = mm(h, w_hr.t())
    return h, c


class _LSTMGates(Function):
    """(h, c') from the gates' two projections hw + xw = (i, f, g, o) and c: c' = sig(f) c +
    sig(i) tanh(g), h = sig(o) tanh(c'). Fused (one node instead of eleven) for the folded LSTM
    layer, whose inner nodes no user sees: the per-step recording was most of an LSTM's time
    (perf11, session 27). The same kernels in the same order as the composed step, so values
    and first-order gradients are bit-identical to it; backward is Tensor ops (under
    create_graph the activations are recomputed from the inputs, so double backward flows
    through the gates, and the first-order gradients then differ from the composed step's by
    an ulp or so)."""

    @staticmethod
    def forward(ctx, hw, xw, c):
        xp = ctx.xp
        gates = hw._data + xw._data
        n = gates.shape[1] // 4
        i, f, g, o = gates[:, :n], gates[:, n : 2 * n], gates[:, 2 * n : 3 * n], gates[:, 3 * n :]
        i, f, o = Sigmoid.kernel(xp, i), Sigmoid.kernel(xp, f), Sigmoid.kernel(xp, o)
        g = xp.tanh(g)
        c_new = f * c._data + i * g
        tc = xp.tanh(c_new)
        ctx.save_for_backward(hw, xw, c)
        ctx._acts = (i, f, g, o, tc)  # arrays: wrapped only when backward runs
        return o * tc, c_new

    @staticmethod
    def backward(ctx, gh, gc):
        hw, xw, c = ctx._stored_tensors
        if grad_state.enabled:  # create_graph: the activations as functions of the gates
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
        return grad, grad, (gc * f if ctx.needs_input_grad[2] else None)

    @staticmethod
    def _backward_data(ctx, gh, gc):
        """backward's formulas on arrays (NOTE [ Data-level backward ]): the same bits."""
        if gh is None or gc is None:
            return NotImplemented
        c = ctx._stored_arrays()[2]
        i, f, g, o, tc = ctx._acts
        gc = gc + TanhBackward.kernel(gh * o, tc)
        parts = (
            SigmoidBackward.kernel(gc * g, i),
            SigmoidBackward.kernel(gc * c, f),
            TanhBackward.kernel(gc * i, g),
            SigmoidBackward.kernel(gh * tc, o),
        )
        grad = ctx.xp.concatenate(parts, 1)
        return grad, grad, (gc * f if ctx.needs_input_grad[2] else None)


def _lstm_step_fused(xw, h, c, w_hh, b_hh, w_hr):
    return _LSTMGates.apply(_linear(h, w_hh, b_hh), xw, c)


def _gru_step(xw, h, c, w_hh, b_hh, w_hr):
    x_r, x_z, x_n = xw.unsafe_chunk(3, 1)
    h_r, h_z, h_n = _linear(h, w_hh, b_hh).unsafe_chunk(3, 1)
    r = (h_r + x_r).sigmoid()
    z = (h_z + x_z).sigmoid()
    n = (x_n + h_n * r).tanh()
    return (h - n) * z + n, None


STEPS = {
    "RNN_TANH": _rnn_step("tanh"),
    "RNN_RELU": _rnn_step("relu"),
    "LSTM": _lstm_step,
    "GRU": _gru_step,
}


# --- the cells (torch.rnn_tanh_cell, torch.lstm_cell, ...) ---


def rnn_tanh_cell(input, hx, w_ih, w_hh, b_ih=None, b_hh=None) -> Tensor:
    """h' = tanh(x W_ih^T + b_ih + h W_hh^T + b_hh). Mirrors torch.rnn_tanh_cell."""
    return STEPS["RNN_TANH"](_linear(input, w_ih, b_ih), hx, None, w_hh, b_hh, None)[0]


def rnn_relu_cell(input, hx, w_ih, w_hh, b_ih=None, b_hh=None) -> Tensor:
    """h' = relu(x W_ih^T + b_ih + h W_hh^T + b_hh). Mirrors torch.rnn_relu_cell."""
    return STEPS["RNN_RELU"](_linear(input, w_ih, b_ih), hx, None, w_hh, b_hh, None)[0]


def lstm_cell(input, hx, w_ih, w_hh, b_ih=None, b_hh=None) -> tuple:
    """(h', c') of one LSTM step from hx = (h, c). Mirrors torch.lstm_cell."""
    return _lstm_step(_linear(input, w_ih, b_ih), hx[0], hx[1], w_hh, b_hh, None)


def gru_cell(input, hx, w_ih, w_hh, b_ih=None, b_hh=None) -> Tensor:
    """h' of one GRU step. Mirrors torch.gru_cell."""
    return _gru_step(_linear(input, w_ih, b_ih), hx, None, w_hh, b_hh, None)[0]


# --- layers ---


def _direction(step, xws, h, c, w, reverse, batch_sizes):
    """One direction of one layer over the per-step input projections xws; returns (outputs in
    time order, h_n, c_n). See NOTE [ Recurrent layers ]."""
    w_hh, b_hh, w_hr = w
    n = len(xws)
    order = range(n - 1, -1, -1) if reverse else range(n)
    outs = [None] * n
    if batch_sizes is None:
        for t in order:
            h, c = step(xws[t], h, c, w_hh, b_hh, w_hr)
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
        h, c = step(xws[t], h, c, w_hh, b_hh, w_hr)
        outs[t] = h
    if done_h:
        h = cat([h, *done_h[::-1]])
        c = cat([c, *done_c[::-1]]) if c is not None else None
    return outs, h, c


_FUSED_DTYPES = (float32, float64)


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
            proj = _project(layer_input, w_ih, b_ih)
            if batch_sizes is None:
                xws = proj.unbind(0)
            else:
                xws, start = [], 0
                for bs in batch_sizes:
                    xws.append(proj.narrow(0, start, bs))
                    start += bs
            h0 = hx[k]
            c0 = cx[k] if cx is not None else None
            fused = fast and proj.dtype in _FUSED_DTYPES
            w = (w_hh, b_hh, w_hr)
            outs, h, c = _direction(
                _lstm_step_fused if fused else step, xws, h0, c0, w, d == 1, batch_sizes
            )
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
