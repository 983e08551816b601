"""Recurrent layers: RNN, LSTM, GRU and their single-step cells, with torch's parameter names,
shapes and initialisation (so state dicts load across). The math is in nn/_functional_rnn.py."""

from __future__ import annotations

import math
import numbers
import warnings
import weakref

from minitorch import _autocast_state as _autocast
from minitorch import _dtype
from minitorch._factories import empty, zeros
from minitorch._tensor import Tensor
from minitorch.autograd.function import name_node
from minitorch.nn import _functional_rnn as R
from minitorch.nn import init
from minitorch.nn.modules.module import Module
from minitorch.nn.parameter import Parameter

__all__ = ["RNNBase", "RNN", "LSTM", "GRU", "RNNCellBase", "RNNCell", "LSTMCell", "GRUCell"]

_GATES = {"LSTM": 4, "GRU": 3, "RNN_TANH": 1, "RNN_RELU": 1}

# torch's CPU LSTM's oneDNN kernel given weights or states of another dtype than its input
_ONEDNN_DTYPE = "get_mkldnn_dtype: unsupported data type"  # (float64 ones)
_ONEDNN_PRIMITIVE = (
    "could not create a primitive descriptor for the LSTM forward propagation primitive. Run "
    "workload with environment variable ONEDNN_VERBOSE=all to get additional diagnostic "
    "information."
)


def _packed():
    from minitorch.nn.utils.rnn import PackedSequence

    return PackedSequence


def __getattr__(name: str):
    if name == "PackedSequence":  # torch's module imports it (lazily here: utils.rnn imports us)
        return _packed()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def _apply_permutation(tensor: Tensor, permutation: Tensor, dim: int = 1) -> Tensor:
    return tensor.index_select(dim, permutation)


def apply_permutation(tensor: Tensor, permutation: Tensor, dim: int = 1) -> Tensor:
    """tensor.index_select(dim, permutation), deprecated. Mirrors
    torch.nn.modules.rnn.apply_permutation."""
    warnings.warn(
        "`apply_permutation` is deprecated, please use `tensor.index_select(dim, permutation)` "
        "instead",
        FutureWarning,
        stacklevel=2,
    )
    return _apply_permutation(tensor, permutation, dim)


class RNNBase(Module):
    """What RNN, LSTM and GRU share: the per-layer, per-direction parameters weight_ih_l{k},
    weight_hh_l{k}, bias_ih_l{k}, bias_hh_l{k} (weight_hr_l{k} with proj_size; suffix _reverse
    for the backward direction), all drawn from U(-1/sqrt(hidden_size), 1/sqrt(hidden_size)).
    Mirrors torch.nn.RNNBase."""

    __constants__ = [
        "mode",
        "input_size",
        "hidden_size",
        "num_layers",
        "bias",
        "batch_first",
        "dropout",
        "bidirectional",
        "proj_size",
    ]

    def __init__(
        self,
        mode: str,
        input_size: int,
        hidden_size: int,
        num_layers: int = 1,
        bias: bool = True,
        batch_first: bool = False,
        dropout: float = 0.0,
        bidirectional: bool = False,
        proj_size: int = 0,
        device=None,
        dtype=None,
    ) -> None:
        super().__init__()
        self.mode = mode
        self.input_size = input_size
        self.hidden_size = hidden_size
        self.num_layers = num_layers
        self.bias = bias
        self.batch_first = batch_first
        self.dropout = float(dropout)
        self.bidirectional = bidirectional
        self.proj_size = proj_size
        num_directions = 2 if bidirectional else 1
        if (
            not isinstance(dropout, numbers.Number)
            or not 0 <= dropout <= 1
            or isinstance(dropout, bool)
        ):
            raise ValueError(
                "dropout should be a number in range [0, 1] representing the probability of an "
                "element being zeroed"
            )
        if dropout > 0 and num_layers == 1:
            warnings.warn(
                "dropout option adds dropout after all but last recurrent layer, so non-zero "
                f"dropout expects num_layers greater than 1, but got dropout={dropout} and "
                f"num_layers={num_layers}",
                stacklevel=2,
            )
        for name, flag in (("bias", bias), ("batch_first", batch_first)):
            if not isinstance(flag, bool):
                raise TypeError(f"{name} should be of type bool, got: {type(flag).__name__}")
        if not isinstance(input_size, int):
            raise TypeError(f"input_size should be of type int, got: {type(input_size).__name__}")
        if input_size <= 0:
            raise ValueError("input_size must be greater than zero")
        if not isinstance(hidden_size, int):
            raise TypeError(f"hidden_size should be of type int, got: {type(hidden_size).__name__}")
        if hidden_size <= 0:
            raise ValueError("hidden_size must be greater than zero")
        if num_layers <= 0:
            raise ValueError("num_layers must be greater than zero")
        if proj_size < 0:
            raise ValueError(
                "proj_size should be a positive integer or zero to disable projections"
            )
        if proj_size >= hidden_size:
            raise ValueError("proj_size has to be smaller than hidden_size")
        if mode not in _GATES:
            raise ValueError(f"Unrecognized RNN mode: {mode}")
        gate_size = _GATES[mode] * hidden_size
        real_hidden = proj_size if proj_size > 0 else hidden_size
        self._flat_weights_names = []
        self._all_weights = []
        for layer in range(num_layers):
            for direction in range(num_directions):
                layer_in = input_size if layer == 0 else real_hidden * num_directions
                shapes = [
                    ("weight_ih", (gate_size, layer_in)),
                    ("weight_hh", (gate_size, real_hidden)),
                ]
                if bias:
                    shapes += [("bias_ih", (gate_size,)), ("bias_hh", (gate_size,))]
                if proj_size > 0:
                    shapes += [("weight_hr", (proj_size, hidden_size))]
                suffix = "_reverse" if direction == 1 else ""
                names = []
                for kind, shape in shapes:
                    name = f"{kind}_l{layer}{suffix}"
                    setattr(self, name, Parameter(empty(shape, device=device, dtype=dtype)))
                    names.append(name)
                self._flat_weights_names.extend(names)
                self._all_weights.append(names)
        self._init_flat_weights()
        self.reset_parameters()

    def reset_parameters(self) -> None:
        stdv = 1.0 / math.sqrt(self.hidden_size) if self.hidden_size > 0 else 0
        for weight in self.parameters():
            init.uniform_(weight, -stdv, stdv)

    def flatten_parameters(self) -> None:
        """A no-op: minitorch keeps no flat cuDNN weight buffer."""

    # NOTE [ RNN flat weights ]
    # As torch's, the layer keeps its weights in a list, _flat_weights, and reads them again
    # (by name) at a forward when one of them is no longer the tensor it was: a parametrized
    # weight is a new tensor at every read, AWD-LSTM's weight drop assigns a plain tensor each
    # forward. The reads are torch's, each name by hasattr and then getattr, so a random
    # parametrization (a DropConnect by F.dropout) draws as often as torch's and gives its
    # numbers.

    def _init_flat_weights(self) -> None:
        self._flat_weights = [
            getattr(self, name) if hasattr(self, name) else None
            for name in self._flat_weights_names
        ]
        self._flat_weight_refs = [
            weakref.ref(w) if w is not None else None for w in self._flat_weights
        ]
        self.flatten_parameters()  # (a no-op, called when torch calls it, for overrides)

    def _update_flat_weights(self) -> None:
        for ref, name in zip(self._flat_weight_refs, self._flat_weights_names, strict=True):
            w = getattr(self, name) if hasattr(self, name) else None
            if w is not None and ref is not None and ref() is not w:
                self._init_flat_weights()
                return

    def __setattr__(self, name: str, value) -> None:
        names = self.__dict__.get("_flat_weights_names")
        if names is not None and name in names and "_flat_weights" in self.__dict__:
            self._flat_weights[names.index(name)] = value
        super().__setattr__(name, value)

    def _apply(self, fn, recurse: bool = True):
        self._flat_weight_refs = []
        out = super()._apply(fn, recurse)
        self._init_flat_weights()
        return out

    def __getstate__(self):
        self._update_flat_weights()
        state = super().__getstate__()
        state.pop("_flat_weight_refs", None)  # (weak references do not pickle)
        return state

    def __setstate__(self, state):
        super().__setstate__(state)
        if "_flat_weights" not in self.__dict__:
            self._flat_weights = [getattr(self, n, None) for n in self._flat_weights_names]
        self._flat_weight_refs = [
            weakref.ref(w) if w is not None else None for w in self._flat_weights
        ]

    @property
    def all_weights(self) -> list:
        return [[getattr(self, name) for name in names] for names in self._all_weights]

    def _weights(self) -> list:
        """(w_ih, w_hh, b_ih, b_hh, w_hr) per layer and direction, None where absent."""
        flat = dict(zip(self._flat_weights_names, self._flat_weights, strict=True))
        out = []
        for names in self._all_weights:
            ws = {n.split("_l")[0]: flat[n] for n in names}
            out.append(
                (
                    ws["weight_ih"],
                    ws["weight_hh"],
                    ws.get("bias_ih"),
                    ws.get("bias_hh"),
                    ws.get("weight_hr"),
                )
            )
        return out

    def extra_repr(self) -> str:
        s = f"{self.input_size}, {self.hidden_size}"
        if self.proj_size != 0:
            s += f", proj_size={self.proj_size}"
        if self.num_layers != 1:
            s += f", num_layers={self.num_layers}"
        if self.bias is not True:
            s += f", bias={self.bias}"
        if self.batch_first is not False:
            s += f", batch_first={self.batch_first}"
        if self.dropout != 0:
            s += f", dropout={self.dropout}"
        if self.bidirectional is not False:
            s += f", bidirectional={self.bidirectional}"
        return s

    # --- forward ---

    def _check_input(self, input: Tensor, batch_sizes) -> None:
        """torch's check_input: the dtype, then the rank, then the feature size."""
        w = self._flat_weights[0]
        mismatch = input.dtype != w.dtype and not _autocast.state.any_enabled
        # torch's LSTM skips its checks for packed input, so its first matmul refuses the
        # pair (dtypes, then sizes) instead (RNN and GRU check both kinds of input)
        packed_lstm = self.mode == "LSTM" and batch_sizes is not None
        if mismatch and not packed_lstm:
            raise ValueError(  # torch's text says RNN for every kind (and subclass)
                f"RNN input dtype ({input.dtype}) does not match weight dtype "
                f"({w.dtype}). Convert input: input.to({w.dtype}), or convert model: "
                f"model.to({input.dtype})"
            )
        expected = 2 if batch_sizes is not None else 3
        wrong_size = input.ndim > 0 and self.input_size != input.shape[-1]
        # (packed LSTM data of another rank: its first matmul, of the rows by weight_ih_l0.T,
        # refuses the feature size; with the right one, torch fails further in)
        if input.ndim != expected and not (packed_lstm and wrong_size):
            raise RuntimeError(f"input must have {expected} dimensions, got {input.ndim}")
        if wrong_size and not packed_lstm:
            raise RuntimeError(
                f"input.size(-1) must be equal to input_size. Expected {self.input_size}, got "
                f"{input.shape[-1]}"
            )
        if mismatch:  # packed LSTM: oneDNN's refusal, or the default kernel's first matmul
            if self._runs_onednn(input, batch_sizes):
                raise RuntimeError(
                    _ONEDNN_DTYPE if w.dtype is _dtype.float64 else _ONEDNN_PRIMITIVE
                )
            if not self.bias:  # (mm; with biases addmm)
                names = _dtype.CPP_NAMES
                raise RuntimeError(
                    "expected m1 and m2 to have the same dtype, but got: "
                    f"{names[input.dtype.name]} != {names[w.dtype.name]}"
                )
            raise RuntimeError(
                "mat1 and mat2 must have the same dtype, but got "
                f"{_dtype.scalar_name(input.dtype)} and {_dtype.scalar_name(w.dtype)}"
            )
        if wrong_size:  # packed LSTM: its first matmul, of the packed rows by weight_ih_l0.T
            rows = math.prod(input.shape[:-1])
            raise RuntimeError(
                f"mat1 and mat2 shapes cannot be multiplied ({rows}x{input.shape[-1]} "
                f"and {self.input_size}x{w.shape[0]})"
            )

    def _hidden_shape(self, input: Tensor, batch_sizes, size: int) -> tuple:
        # input is time-major here (batch_first already transposed)
        mini_batch = int(batch_sizes[0]) if batch_sizes is not None else input.shape[1]
        return (self.num_layers * (2 if self.bidirectional else 1), mini_batch, size)

    @staticmethod
    def _check_size(t: Tensor, shape: tuple, msg: str) -> None:
        if tuple(t.shape) != shape:
            raise RuntimeError(msg.format(shape, list(t.shape)))

    # --- torch's checking methods, which subclasses with their own forward call ---

    def check_input(self, input: Tensor, batch_sizes) -> None:
        """The input's dtype (against the first weight's), rank (2 for packed data, else 3)
        and feature size. Mirrors torch.nn.RNNBase.check_input."""
        w = self._flat_weights[0]
        if input.dtype != w.dtype and not _autocast.state.any_enabled:
            raise ValueError(
                f"RNN input dtype ({input.dtype}) does not match weight dtype ({w.dtype}). "
                f"Convert input: input.to({w.dtype}), or convert model: model.to({input.dtype})"
            )
        expected = 2 if batch_sizes is not None else 3
        if input.dim() != expected:
            raise RuntimeError(f"input must have {expected} dimensions, got {input.dim()}")
        if self.input_size != input.size(-1):
            raise RuntimeError(
                f"input.size(-1) must be equal to input_size. Expected {self.input_size}, got "
                f"{input.size(-1)}"
            )

    def get_expected_hidden_size(self, input: Tensor, batch_sizes) -> tuple:
        """(layers * directions, batch, proj_size or hidden_size) for input in the module's own
        layout. Mirrors torch.nn.RNNBase.get_expected_hidden_size."""
        if batch_sizes is not None:
            mini_batch = int(batch_sizes[0])
        else:
            mini_batch = input.size(0) if self.batch_first else input.size(1)
        size = self.proj_size if self.proj_size > 0 else self.hidden_size
        return (self.num_layers * (2 if self.bidirectional else 1), mini_batch, size)

    def check_hidden_size(
        self, hx: Tensor, expected_hidden_size: tuple, msg: str = "Expected hidden size {}, got {}"
    ) -> None:
        """Mirrors torch.nn.RNNBase.check_hidden_size."""
        if hx.size() != expected_hidden_size:
            raise RuntimeError(msg.format(expected_hidden_size, list(hx.size())))

    def check_forward_args(self, input: Tensor, hidden: Tensor, batch_sizes) -> None:
        """Mirrors torch.nn.RNNBase.check_forward_args."""
        self.check_input(input, batch_sizes)
        self.check_hidden_size(hidden, self.get_expected_hidden_size(input, batch_sizes))

    def permute_hidden(self, hx: Tensor, permutation):
        """hx's batch rows in the order of permutation (None: hx). Mirrors
        torch.nn.RNNBase.permute_hidden."""
        return hx if permutation is None else hx.index_select(1, permutation)

    def _run(self, input, hx, cx, fault=None):
        """Unpacks the input (packed, batched, unbatched), runs the layers, packs the output.
        fault: LSTM's kernel error for its hx, raised after the sizes are checked."""
        self._update_flat_weights()
        PackedSequence = _packed()
        packed = isinstance(input, PackedSequence)
        sorted_idx = unsorted_idx = None
        if packed:
            data, batch_sizes = input.data, [int(b) for b in input.batch_sizes.tolist()]
            sorted_idx, unsorted_idx = input.sorted_indices, input.unsorted_indices
            x, unbatched = data, False
        else:
            batch_sizes = None
            if input.dim() not in (2, 3):  # (torch's call: a non-tensor's error names dim)
                what = " tensor" if self._name() == "RNN" else ""  # (torch's RNN says "4D tensor")
                raise ValueError(
                    f"{self._name()}: Expected input to be 2D or 3D, got {input.ndim}D{what} "
                    "instead"
                )
            unbatched = input.ndim == 2
            # an unbatched input gets its batch dimension where batch_first puts it, as in torch
            x = input.unsqueeze(0 if self.batch_first else 1) if unbatched else input
            if self.batch_first:
                x = x.transpose(0, 1)
        if hx is not None and not packed:  # torch checks the states' rank first
            self._check_hx_rank(hx, cx, unbatched)
        self._check_input(x, batch_sizes)
        hx, cx = self._initial_states(x, hx, cx, unbatched, batch_sizes, sorted_idx, fault)
        if batch_sizes is None and x.shape[0] == 0:  # torch's kernel, after the Python checks
            raise RuntimeError("Expected sequence length to be larger than 0 in RNN")
        out, h_n, c_n = R.rnn_layers(
            self.mode,
            x,
            hx,
            cx,
            self._weights(),
            self.num_layers,
            2 if self.bidirectional else 1,
            self.dropout,
            self.training,
            batch_sizes,
        )
        if packed:
            out = PackedSequence(out, input.batch_sizes, sorted_idx, unsorted_idx)
            if unsorted_idx is not None:
                h_n = h_n.index_select(1, unsorted_idx)
                c_n = c_n.index_select(1, unsorted_idx) if c_n is not None else None
        else:
            if self.batch_first:
                out = out.transpose(0, 1)
                if self.mode != "LSTM":
                    # torch's GRU and RNN kernels transpose their result in place (transpose_)
                    name_node(out, "TransposeBackward1")
            if unbatched:
                out = out.squeeze(0 if self.batch_first else 1)
                h_n = h_n.squeeze(1)
                c_n = c_n.squeeze(1) if c_n is not None else None
        return out, h_n, c_n

    def _name(self) -> str:
        return type(self).__name__

    def _check_hx_rank(self, hx, cx, unbatched: bool, packed=False, attr="dim") -> None:
        """The states' type and rank, which torch checks before the input's dtype and sizes.
        attr: the method torch's forward first calls on hx (dim; for a packed input size, or
        index_select when it has sorted_indices)."""
        is_lstm = self.mode == "LSTM"
        if not is_lstm and not isinstance(hx, Tensor):
            raise AttributeError(f"'{type(hx).__name__}' object has no attribute '{attr}'")
        want = 2 if unbatched else 3
        if is_lstm:
            if hx.ndim != want or cx.ndim != want:
                kind = "unbatched 2-D" if unbatched else "batched 3-D"
                raise RuntimeError(
                    f"For {kind} input, hx and cx should also be {want}-D but got "
                    f"({hx.ndim}-D, {cx.ndim}-D) tensors"
                )
        elif hx.ndim != want and not packed:  # (torch checks a packed input's hx by its size)
            kind = "unbatched 2-D" if unbatched else "batched 3-D"
            raise RuntimeError(
                f"For {kind} input, hx should also be {want}-D but got {hx.ndim}-D tensor"
            )

    def _initial_states(self, x, hx, cx, unbatched, batch_sizes, sorted_idx, fault=None):
        is_lstm = self.mode == "LSTM"
        real_hidden = self.proj_size if self.proj_size > 0 else self.hidden_size
        h_shape = self._hidden_shape(x, batch_sizes, real_hidden)
        c_shape = self._hidden_shape(x, batch_sizes, self.hidden_size)
        if hx is None:
            hx = zeros(h_shape, dtype=x.dtype, device=x.device)
            cx = zeros(c_shape, dtype=x.dtype, device=x.device) if is_lstm else None
            return hx, cx
        attr = "dim" if batch_sizes is None else "size" if sorted_idx is None else "index_select"
        self._check_hx_rank(hx, cx, unbatched, batch_sizes is not None, attr)
        if unbatched:
            hx = hx.unsqueeze(1)
            cx = cx.unsqueeze(1) if cx is not None else None
        if sorted_idx is not None:
            hx = hx.index_select(1, sorted_idx)
            cx = cx.index_select(1, sorted_idx) if cx is not None else None
        if is_lstm:
            self._check_size(hx, h_shape, "Expected hidden[0] size {}, got {}")
            self._check_size(cx, c_shape, "Expected hidden[1] size {}, got {}")
        else:
            self._check_size(hx, h_shape, "Expected hidden size {}, got {}")
        if fault is not None:  # (the first of torch's kernel's checks)
            fault()
        for h in (hx, cx):  # torch's kernel checks the dtypes, after the sizes
            if h is None or h.dtype == x.dtype:
                continue
            if is_lstm and self._runs_onednn(x, batch_sizes):  # (torch fails inside oneDNN)
                if _dtype.float64 in (hx.dtype, cx.dtype):
                    raise RuntimeError(_ONEDNN_DTYPE)
                raise RuntimeError(_ONEDNN_PRIMITIVE)
            if h is cx:  # promotes the cell update (a later matmul refuses a wider state)
                continue
            if not self.bias:  # the default kernel's first matmul: mm, or addmm with biases
                names = _dtype.CPP_NAMES
                raise RuntimeError(
                    "expected m1 and m2 to have the same dtype, but got: "
                    f"{names[h.dtype.name]} != {names[x.dtype.name]}"
                )
            raise RuntimeError(
                "mat1 and mat2 must have the same dtype, but got "
                f"{_dtype.scalar_name(h.dtype)} and {_dtype.scalar_name(x.dtype)}"
            )
        return hx, cx

    def _runs_onednn(self, x, batch_sizes) -> bool:
        """Whether torch's CPU LSTM runs x in oneDNN (float32 or bfloat16, no projections, not
        packed or packed with equal lengths) rather than in its default kernel."""
        if self.proj_size or x.dtype not in (_dtype.float32, _dtype.bfloat16):
            return False
        return batch_sizes is None or batch_sizes[0] == batch_sizes[-1]


class RNN(RNNBase):
    """Elman RNN, h_t = tanh or relu of x_t W_ih^T + b_ih + h_{t-1} W_hh^T + b_hh. Mirrors
    torch.nn.RNN (input (L, N, H_in), (N, L, H_in) with batch_first, or unbatched (L, H_in); a
    PackedSequence; returns (output, h_n))."""

    def __init__(self, *args, **kwargs) -> None:
        if "proj_size" in kwargs:
            raise ValueError("proj_size argument is only supported for LSTM, not RNN or GRU")
        if len(args) > 3:
            nonlinearity = args[3]
            args = args[:3] + args[4:]
        else:
            nonlinearity = kwargs.pop("nonlinearity", "tanh")
        if nonlinearity == "tanh":
            mode = "RNN_TANH"
        elif nonlinearity == "relu":
            mode = "RNN_RELU"
        else:
            raise ValueError(
                f"Unknown nonlinearity '{nonlinearity}'. Select from 'tanh' or 'relu'."
            )
        super().__init__(mode, *args, **kwargs)
        self.nonlinearity = nonlinearity

    def forward(self, input, hx=None):
        out, h_n, _ = self._run(input, hx, None)
        return out, h_n


class LSTM(RNNBase):
    """Long short-term memory (gates i, f, g, o; optional projection proj_size). Mirrors
    torch.nn.LSTM; returns (output, (h_n, c_n))."""

    def __init__(self, *args, **kwargs) -> None:
        super().__init__("LSTM", *args, **kwargs)

    def forward(self, input, hx=None):
        h0 = c0 = fault = None
        if hx is not None:
            h0, c0, fault = self._split_hx(input, hx)
        out, h_n, c_n = self._run(input, h0, c0, fault)
        return out, (h_n, c_n)

    def get_expected_cell_size(self, input: Tensor, batch_sizes) -> tuple:
        """(layers * directions, batch, hidden_size). Mirrors
        torch.nn.LSTM.get_expected_cell_size."""
        if batch_sizes is not None:
            mini_batch = int(batch_sizes[0])
        else:
            mini_batch = input.size(0) if self.batch_first else input.size(1)
        return (self.num_layers * (2 if self.bidirectional else 1), mini_batch, self.hidden_size)

    def check_forward_args(self, input: Tensor, hidden: tuple, batch_sizes) -> None:
        """Mirrors torch.nn.LSTM.check_forward_args."""
        self.check_input(input, batch_sizes)
        self.check_hidden_size(
            hidden[0],
            self.get_expected_hidden_size(input, batch_sizes),
            "Expected hidden[0] size {}, got {}",
        )
        self.check_hidden_size(
            hidden[1],
            self.get_expected_cell_size(input, batch_sizes),
            "Expected hidden[1] size {}, got {}",
        )

    def permute_hidden(self, hx: tuple, permutation) -> tuple:
        """Mirrors torch.nn.LSTM.permute_hidden."""
        if permutation is None:
            return hx
        return hx[0].index_select(1, permutation), hx[1].index_select(1, permutation)

    def _split_hx(self, input, hx) -> tuple:
        """(h_0, c_0, fault) from hx as torch's LSTM.forward reads it: hx[0] and hx[1], so a
        stacked Tensor or a longer tuple passes where torch's does (unbatched, or packed with
        sorted_indices, where it is indexed before its kernel sees it). fault: what raises
        torch's kernel error for an hx that reaches the kernel as it is (a Tensor, a tuple of
        another length), called after the size checks; a packed input meets it at once."""
        packed = isinstance(input, _packed())
        if not packed and (not isinstance(input, Tensor) or input.ndim not in (2, 3)):
            return hx, None, None  # _run raises torch's error for the input first, whatever hx is
        if packed and input.sorted_indices is None:
            self._kernel_hx_check(input, hx)  # (torch's forward hands hx on untouched)
            return hx[0], hx[1], None
        # (the Python errors of torch's hx[0].dim() or hx[0].index_select(...), then hx[1]'s)
        attr = "index_select" if packed else "dim"
        h0 = hx[0]
        if not isinstance(h0, Tensor):
            raise AttributeError(f"'{type(h0).__name__}' object has no attribute '{attr}'")
        if packed and (h0.ndim != 3 or h0.shape[1] != input.sorted_indices.shape[0]):
            # torch permutes hx[0] before it reads hx[1]: a malformed hx[0] (hx a Tensor, say)
            # fails in that index_select first (a well-formed one cannot fail there)
            h0.index_select(1, input.sorted_indices)
        c0 = hx[1]
        if not isinstance(c0, Tensor):
            raise AttributeError(f"'{type(c0).__name__}' object has no attribute '{attr}'")
        unpaired = not packed and input.ndim == 3 and (isinstance(hx, Tensor) or len(hx) != 2)
        return h0, c0, (lambda: self._kernel_hx_check(input, hx)) if unpaired else None

    def _kernel_hx_check(self, input, hx) -> None:
        """torch's lstm kernel on an hx that is not a pair of Tensors: its argument parser's
        TypeError, or its own "lstm expects two hidden states"."""
        from minitorch.nn._torch_namespace import _check_recurrent_args

        common = (self._flat_weights, self.bias, self.num_layers, self.dropout, self.training)
        if isinstance(input, _packed()):
            args = (input.data, input.batch_sizes, hx, *common, self.bidirectional)
        else:
            args = (input, hx, *common, self.bidirectional, self.batch_first)
        _check_recurrent_args("lstm", args, True)
        if len(hx) != 2:
            raise RuntimeError("lstm expects two hidden states")


class GRU(RNNBase):
    """Gated recurrent unit (gates r, z, n). Mirrors torch.nn.GRU; returns (output, h_n)."""

    def __init__(self, *args, **kwargs) -> None:
        if "proj_size" in kwargs:
            raise ValueError("proj_size argument is only supported for LSTM, not RNN or GRU")
        super().__init__("GRU", *args, **kwargs)

    def forward(self, input, hx=None):
        out, h_n, _ = self._run(input, hx, None)
        return out, h_n


# --- cells ---


class RNNCellBase(Module):
    """weight_ih (gates * hidden, input), weight_hh (gates * hidden, hidden), bias_ih, bias_hh,
    drawn from U(-1/sqrt(hidden), 1/sqrt(hidden)). Mirrors torch.nn.RNNCellBase."""

    __constants__ = ["input_size", "hidden_size", "bias"]
    _n_states = 1  # the Tensors in hx: LSTMCell's is a pair (h, c)

    def __init__(
        self,
        input_size: int,
        hidden_size: int,
        bias: bool,
        num_chunks: int,
        device=None,
        dtype=None,
    ) -> None:
        super().__init__()
        self.input_size = input_size
        self.hidden_size = hidden_size
        self.bias = bias
        kw = dict(device=device, dtype=dtype)
        self.weight_ih = Parameter(empty((num_chunks * hidden_size, input_size), **kw))
        self.weight_hh = Parameter(empty((num_chunks * hidden_size, hidden_size), **kw))
        if bias:
            self.bias_ih = Parameter(empty(num_chunks * hidden_size, **kw))
            self.bias_hh = Parameter(empty(num_chunks * hidden_size, **kw))
        else:
            self.register_parameter("bias_ih", None)
            self.register_parameter("bias_hh", None)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        stdv = 1.0 / math.sqrt(self.hidden_size) if self.hidden_size > 0 else 0
        for weight in self.parameters():
            init.uniform_(weight, -stdv, stdv)

    def extra_repr(self) -> str:
        s = f"{self.input_size}, {self.hidden_size}"
        if self.bias is not True:
            s += f", bias={self.bias}"
        if getattr(self, "nonlinearity", "tanh") != "tanh":
            s += f", nonlinearity={self.nonlinearity}"
        return s

    def _prepare(self, input: Tensor, hx, zeros_like_h: bool = True):
        """(2-d input, hx list, whether unbatched), with torch's checks."""
        if input.dim() not in (1, 2):  # (torch's call: a non-tensor's error names dim)
            raise ValueError(
                f"{type(self).__name__}: Expected input to be 1D or 2D, got {input.ndim}D instead"
            )
        unbatched = input.ndim == 1
        x = input.unsqueeze(0) if unbatched else input
        hs = [] if hx is None else self._states(hx, unbatched)
        for i, h in enumerate(hs):
            if h.ndim not in (1, 2):
                what = f"hx[{i}]" if self._n_states == 2 else "hidden"
                raise ValueError(
                    f"{type(self).__name__}: Expected {what} to be 1D or 2D, got {h.ndim}D instead"
                )
        # torch's kernel checks the input's size after the Python checks of the states' rank
        if input.shape[-1] != self.input_size:
            raise RuntimeError(
                f"input has inconsistent input_size: got {input.shape[-1]} expected "
                f"{self.input_size}"
            )
        for i, h in enumerate(hs):
            # torch unsqueezes every state of an unbatched input and then checks sizes only, so
            # a state whose rank differs from the input's fails on its sizes
            h = h.unsqueeze(0) if unbatched else h
            if h.shape[0] != x.shape[0]:
                raise RuntimeError(
                    f"Input batch size {x.shape[0]} doesn't match hidden{i} batch size {h.shape[0]}"
                )
            if h.ndim < 2:
                raise IndexError(
                    "Dimension out of range (expected to be in range of [-1, 0], but got 1)"
                )
            if h.shape[1] != self.hidden_size:
                raise RuntimeError(
                    f"hidden{i} has inconsistent hidden_size: got {h.shape[1]}, expected "
                    f"{self.hidden_size}"
                )
            if h.ndim == 3 and self._n_states == 1:
                self._check_3d_state(h)
            hs[i] = h
        return x, hs, unbatched

    def _check_3d_state(self, h: Tensor) -> None:
        """An unbatched input's 2-D state, (1, B, H) once unsqueezed, passes torch's size checks
        (its size(1) is B) and reaches the kernel's hidden projection, a linear of the (B, H)
        rows; GRU's gates are then chunked along B, where its first sum fails."""
        gates = self.weight_hh.shape[0]
        if h.shape[2] != self.hidden_size:
            raise RuntimeError(
                f"mat1 and mat2 shapes cannot be multiplied ({h.shape[0] * h.shape[1]}x"
                f"{h.shape[2]} and {self.hidden_size}x{gates})"
            )
        if gates != self.hidden_size and h.shape[1] > 1:
            raise RuntimeError(
                f"The size of tensor a ({gates}) must match the size of tensor b "
                f"({self.hidden_size}) at non-singleton dimension 2"
            )

    def _states(self, hx, unbatched: bool = False) -> list:
        """hx as a list of Tensors: a Tensor for RNNCell and GRUCell, a pair for LSTMCell; the
        wrong forms raise torch's exception types."""
        name = type(self).__name__
        if self._n_states == 2 and isinstance(hx, Tensor) and hx.ndim > 0:
            # torch's LSTMCell indexes hx[0] and hx[1]: a stacked (2, H) Tensor works for an
            # unbatched input, where it is split before its kernel sees it (torch's forward first
            # checks the rank of every row it iterates over)
            if hx.shape[0] and hx.ndim - 1 not in (1, 2):
                raise ValueError(
                    f"{name}: Expected hx[0] to be 1D or 2D, got {hx.ndim - 1}D instead"
                )
            if not unbatched:
                raise TypeError(
                    "lstm_cell(): argument 'hx' (position 2) must be tuple of Tensors, not Tensor"
                )
            if hx.shape[0] < 2:
                raise IndexError(
                    f"index {hx.shape[0]} is out of bounds for dimension 0 with size {hx.shape[0]}"
                )
            return [hx[0], hx[1]]
        # the Python errors of torch's forward, which calls hx.dim() (LSTMCell: iterates hx and
        # calls .dim() on each item, then reads hx[0] and hx[1] of an unbatched input's hx)
        if self._n_states == 1:
            if not isinstance(hx, Tensor):
                raise AttributeError(f"'{type(hx).__name__}' object has no attribute 'dim'")
            return [hx]
        given = hx
        if not isinstance(hx, (tuple, list)):
            hx = tuple(hx)  # (Python's TypeError for what does not iterate, as torch's loop)
        for i, h in enumerate(hx):
            if not isinstance(h, Tensor):
                raise AttributeError(f"'{type(h).__name__}' object has no attribute 'dim'")
            if h.ndim not in (1, 2):
                raise ValueError(f"{name}: Expected hx[{i}] to be 1D or 2D, got {h.ndim}D instead")
        if given is not hx:  # another iterable (a generator, a set): indexed, or parsed
            if unbatched and not hasattr(type(given), "__getitem__"):
                raise TypeError(f"'{type(given).__name__}' object is not subscriptable")
            if not unbatched:
                raise TypeError(
                    "lstm_cell(): argument 'hx' (position 2) must be tuple of Tensors, not "
                    f"{type(given).__name__}"
                )
        if unbatched and len(hx) < 2:
            raise IndexError(f"{type(hx).__name__} index out of range")
        if not unbatched and len(hx) != 2:
            raise RuntimeError("lstm_cell expects two hidden states")  # (torch's kernel's words)
        return [hx[0], hx[1]]

    def _zeros(self, x: Tensor) -> Tensor:
        return zeros((x.shape[0], self.hidden_size), dtype=x.dtype, device=x.device)


class RNNCell(RNNCellBase):
    """One Elman step. Mirrors torch.nn.RNNCell."""

    __constants__ = ["input_size", "hidden_size", "bias", "nonlinearity"]

    def __init__(
        self,
        input_size: int,
        hidden_size: int,
        bias: bool = True,
        nonlinearity: str = "tanh",
        device=None,
        dtype=None,
    ) -> None:
        super().__init__(input_size, hidden_size, bias, 1, device, dtype)
        self.nonlinearity = nonlinearity

    def forward(self, input: Tensor, hx=None) -> Tensor:
        x, hs, unbatched = self._prepare(input, hx)
        h = hs[0] if hs else self._zeros(x)
        if self.nonlinearity == "tanh":
            out = R.rnn_tanh_cell(x, h, self.weight_ih, self.weight_hh, self.bias_ih, self.bias_hh)
        elif self.nonlinearity == "relu":
            out = R.rnn_relu_cell(x, h, self.weight_ih, self.weight_hh, self.bias_ih, self.bias_hh)
        else:
            raise RuntimeError(f"Unknown nonlinearity: {self.nonlinearity}")
        return out.squeeze(0) if unbatched else out


class LSTMCell(RNNCellBase):
    """One LSTM step; returns (h', c'). Mirrors torch.nn.LSTMCell."""

    _n_states = 2

    def __init__(
        self, input_size: int, hidden_size: int, bias: bool = True, device=None, dtype=None
    ) -> None:
        super().__init__(input_size, hidden_size, bias, 4, device, dtype)

    def forward(self, input: Tensor, hx=None) -> tuple:
        x, hs, unbatched = self._prepare(input, hx)
        if not hs:
            hs = [self._zeros(x), self._zeros(x)]
        h, c = R.lstm_cell(
            x, (hs[0], hs[1]), self.weight_ih, self.weight_hh, self.bias_ih, self.bias_hh
        )
        return (h.squeeze(0), c.squeeze(0)) if unbatched else (h, c)


class GRUCell(RNNCellBase):
    """One GRU step. Mirrors torch.nn.GRUCell."""

    def __init__(
        self, input_size: int, hidden_size: int, bias: bool = True, device=None, dtype=None
    ) -> None:
        super().__init__(input_size, hidden_size, bias, 3, device, dtype)

    def forward(self, input: Tensor, hx=None) -> Tensor:
        x, hs, unbatched = self._prepare(input, hx)
        h = hs[0] if hs else self._zeros(x)
        out = R.gru_cell(x, h, self.weight_ih, self.weight_hh, self.bias_ih, self.bias_hh)
        return out.squeeze(0) if unbatched else out
