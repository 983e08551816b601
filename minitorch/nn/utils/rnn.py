"""nn.utils.rnn: PackedSequence and packing/padding of variable-length sequences.

Lengths live on the host (as in torch, where they must be a CPU tensor or a list), so the packing
order is computed in Python and applied on the device with one index_select: no device value is
read back.
"""

from __future__ import annotations

import math
import operator
from typing import NamedTuple

from minitorch import _dtype
from minitorch._factories import full, tensor
from minitorch._ops._common import not_tensor_element
from minitorch._tensor import Tensor
from minitorch._tensor_methods import _type_name as type_name
from minitorch.autograd.composite import as_node

__all__ = [
    "PackedSequence", "invert_permutation", "pack_padded_sequence", "pad_packed_sequence",
    "pad_sequence", "unpad_sequence", "pack_sequence", "unpack_sequence",
]  # fmt: skip


class PackedSequence_(NamedTuple):  # torch's name for the namedtuple base
    data: Tensor
    batch_sizes: Tensor
    sorted_indices: Tensor | None
    unsorted_indices: Tensor | None


class PackedSequence(PackedSequence_):
    """The time-major concatenation of sorted sequences: data (sum(lengths), *) and batch_sizes
    (how many sequences are still running at each step, a CPU int64 tensor). Mirrors
    torch.nn.utils.rnn.PackedSequence."""

    def __new__(cls, data, batch_sizes=None, sorted_indices=None, unsorted_indices=None):
        if unsorted_indices is None and sorted_indices is not None:
            unsorted_indices = invert_permutation(sorted_indices)
        if batch_sizes is None:  # PackedSequence(data_and_batch_sizes_tuple)
            if not isinstance(data, (list, tuple)) or len(data) != 2:
                raise AssertionError("Expected data to be a list or tuple of length 2")
            data, batch_sizes = data
        elif batch_sizes.device.type != "cpu":  # (a list of sizes: torch's AttributeError)
            raise ValueError(
                "batch_sizes should always be on CPU. Instances of PackedSequence should never "
                "be created manually. They should be instantiated by functions like "
                "pack_sequence and pack_padded_sequences in nn.utils.rnn. "
                "https://pytorch.org/docs/stable/nn.html#torch.nn.utils.rnn.pack_sequence"
            )
        return super().__new__(cls, data, batch_sizes, sorted_indices, unsorted_indices)

    def _apply(self, fn) -> PackedSequence:
        return type(self)(
            fn(self.data),
            self.batch_sizes,
            None if self.sorted_indices is None else fn(self.sorted_indices),
            None if self.unsorted_indices is None else fn(self.unsorted_indices),
        )

    def to(self, *args, **kwargs) -> PackedSequence:
        """data converted like Tensor.to; the indices follow to the same device. As torch's,
        a call that converts refuses any copy argument (torch re-parses the arguments without
        it)."""
        data = self.data.to(*args, **kwargs)
        if data is self.data:
            return self
        # copy is the 3rd positional argument after a dtype or tensor, the 4th after a device
        copy_at = 2 if args and isinstance(args[0], (Tensor, _dtype.dtype)) else 3
        if "copy" in kwargs or len(args) > copy_at:
            raise RuntimeError(".to() does not accept copy argument")
        dev = data.device

        def move(t):
            return None if t is None else t.to(dev)

        return type(self)(
            data, self.batch_sizes, move(self.sorted_indices), move(self.unsorted_indices)
        )

    def cuda(self, *args, **kwargs) -> PackedSequence:
        return self._apply(lambda t: t.cuda(*args, **kwargs))

    def cpu(self, *args, **kwargs) -> PackedSequence:
        return self._apply(lambda t: t.cpu(*args, **kwargs))

    def double(self) -> PackedSequence:
        return self.to(dtype=_dtype.float64)

    def float(self) -> PackedSequence:
        return self.to(dtype=_dtype.float32)

    def half(self) -> PackedSequence:
        return self.to(dtype=_dtype.float16)

    def long(self) -> PackedSequence:
        return self.to(dtype=_dtype.int64)

    def int(self) -> PackedSequence:
        return self.to(dtype=_dtype.int32)

    def short(self) -> PackedSequence:
        return self.to(dtype=_dtype.int16)

    def char(self) -> PackedSequence:
        return self.to(dtype=_dtype.int8)

    def byte(self) -> PackedSequence:
        return self.to(dtype=_dtype.uint8)

    def pin_memory(self) -> PackedSequence:
        """data and the indices in pinned host memory; batch_sizes stays as it is, as torch's."""
        return self._apply(lambda t: t.pin_memory())

    @property
    def is_cuda(self) -> bool:
        return self.data.is_cuda

    def is_pinned(self) -> bool:
        return self.data.is_pinned()


def invert_permutation(permutation):
    """The inverse permutation (None stays None). Mirrors torch.nn.utils.rnn.invert_permutation."""
    if permutation is None:
        return None
    from minitorch._ops import argsort

    return argsort(permutation)


def _host_lengths(lengths) -> list:
    if isinstance(lengths, Tensor):
        if lengths.device.type != "cpu":
            raise RuntimeError(
                "'lengths' argument should be a 1D CPU int64 tensor, but got 1D "
                f"{lengths.device.type} Long tensor"
            )
        return [int(v) for v in lengths.tolist()]
    return [int(v) for v in lengths]


def _pack_lengths(lengths, enforce_sorted: bool = True, device=None) -> list:
    """pack_padded_sequence's lengths as a host list: torch converts them to an int64 tensor and
    requires it to be 1-D and on the CPU (unsorted, it first sorts them, moves the order to the
    input's device (none to copy out of a meta tensor) and index_selects the batch with it,
    which refuses a matrix)."""
    t = lengths if isinstance(lengths, Tensor) else tensor(lengths, dtype=_dtype.int64)
    if not enforce_sorted and t.device.type == "meta" and device != t.device:
        t.to(device)  # (raises torch's NotImplementedError)
    if not enforce_sorted and t.ndim > 1:
        raise IndexError("index_select(): Index is supposed to be a vector")
    if t.ndim != 1 or t.device.type != "cpu":
        raise RuntimeError(
            "'lengths' argument should be a 1D CPU int64 tensor, but got "
            f"{t.ndim}D {t.device.type} Long tensor"
        )
    return [int(v) for v in t.tolist()]


def _batch_sizes(sorted_lengths: list) -> list:
    return [sum(1 for n in sorted_lengths if n > t) for t in range(sorted_lengths[0])]


def pack_padded_sequence(
    input: Tensor, lengths, batch_first: bool = False, enforce_sorted: bool = True
) -> PackedSequence:
    """Packs a padded (T, B, *) batch (B, T, * with batch_first) of sequences of the given
    lengths. Mirrors torch.nn.utils.rnn.pack_padded_sequence."""
    if not isinstance(input, Tensor):  # torch converts the lengths, then uses the input
        if not isinstance(lengths, Tensor):
            tensor(lengths, dtype=_dtype.int64)
        if not enforce_sorted:  # (sorted_indices.to(input.device))
            raise AttributeError(f"'{type(input).__name__}' object has no attribute 'device'")
        raise TypeError(
            "_pack_padded_sequence(): argument 'input' (position 1) must be Tensor, not "
            f"{type_name(input)}"
        )
    if input.numel() == 0:  # torch checks this before anything else
        raise RuntimeError("Cannot pack empty tensors.")
    lengths = _pack_lengths(lengths, enforce_sorted, input.device)
    if enforce_sorted:
        x = input.transpose(0, 1) if batch_first else input
        # unsorted, torch index_selects the batch by the order first: fewer lengths than
        # sequences pack the first ones, more raise index_select's IndexError
        if len(lengths) != x.size(1):
            raise RuntimeError(
                f"Expected `len(lengths)` to be equal to batch_size, but got {len(lengths)} "
                f"(batch_size={x.shape[1]})"
            )
        # as torch, the last length is checked for > 0 before the order is
        if lengths and lengths[-1] <= 0:
            raise RuntimeError(
                "Length of all samples has to be greater than 0, but found an element in "
                "'lengths' that is <= 0"
            )
        if any(a < b for a, b in zip(lengths, lengths[1:], strict=False)):
            raise RuntimeError(
                "`lengths` array must be sorted in decreasing order when `enforce_sorted` is "
                "True. You can pass `enforce_sorted=False` to pack_padded_sequence and/or "
                "pack_sequence to sidestep this requirement if you do not need ONNX "
                "exportability."
            )
        sorted_indices = None
        sorted_lengths = lengths
    else:
        order = sorted(range(len(lengths)), key=lambda i: -lengths[i])  # stable, like torch
        sorted_indices = tensor(order, dtype=_dtype.int64, device=input.device)
        sorted_lengths = [lengths[i] for i in order]
        # torch sorts the batch first (an IndexSelectBackward0 under the packing node)
        input = input.index_select(0 if batch_first else 1, sorted_indices)
        x = input.transpose(0, 1) if batch_first else input
    if sorted_lengths and sorted_lengths[-1] <= 0:
        raise RuntimeError(
            "Length of all samples has to be greater than 0, but found an element in 'lengths' "
            "that is <= 0"
        )
    if sorted_lengths and sorted_lengths[0] > x.shape[0]:
        raise RuntimeError(
            f"pack_padded_sequence: a length ({sorted_lengths[0]}) is larger than the padded "
            f"sequence length ({x.shape[0]})"
        )
    sizes = _batch_sizes(sorted_lengths)
    # row t * B + b of the (T*B, *) view, for every step t and running (sorted) sequence b
    rows = [t * x.shape[1] + b for t, bs in enumerate(sizes) for b in range(bs)]
    flat = x.reshape((x.shape[0] * x.shape[1], *x.shape[2:]))
    data = flat.index_select(0, tensor(rows, dtype=_dtype.int64, device=input.device))
    # torch packs in one kernel: one PackPaddedSequenceBackward0 node, whose release after
    # backward makes a second backward raise (the inner nodes here save nothing to free)
    data = as_node(data, "PackPaddedSequenceBackward0", (input,))
    return PackedSequence(data, tensor(sizes, dtype=_dtype.int64), sorted_indices, None)


def _total_length(total_length) -> int:
    """total_length as an int: torch's argument parser takes an int or a 0-d integer tensor."""
    if not isinstance(total_length, Tensor) or total_length.ndim == 0:
        try:
            return operator.index(total_length)
        except TypeError:
            pass
    raise TypeError(
        "_pad_packed_sequence(): argument 'total_length' (position 5) must be int, not "
        f"{type_name(total_length)}"
    )


def pad_packed_sequence(
    sequence: PackedSequence,
    batch_first: bool = False,
    padding_value: float = 0.0,
    total_length: int | None = None,
) -> tuple:
    """(padded (T, B, *) or (B, T, *), lengths as a CPU int64 tensor), in the original batch
    order. Mirrors torch.nn.utils.rnn.pad_packed_sequence (like torch, it copies
    unsorted_indices to the host to order the lengths: one explicit transfer)."""
    sizes = [int(v) for v in sequence.batch_sizes.tolist()]
    batch = sizes[0]
    steps = len(sizes)
    if total_length is not None:
        if total_length < steps:
            raise ValueError(
                "Expected total_length to be at least the length of the longest sequence in "
                f"input, but got total_length={total_length} and max sequence length being "
                f"{steps}"
            )
        steps = _total_length(total_length)
    _check_parsed(
        "_pad_packed_sequence",
        (3, "batch_first", "bool", batch_first),
        (4, "padding_value", "Number", padding_value),
    )
    data = sequence.data
    lengths = [sum(1 for s in sizes if s > b) for b in range(batch)]
    # As torch: a (T, B, *) buffer of padding_value into which the packed rows are copied (the
    # result's grad_fn is a CopySlices), transposed for batch_first, then put back in the
    # original batch order by one index_select (a contiguous result)
    padded = full(
        (steps, batch, *data.shape[1:]), padding_value, dtype=data.dtype, device=data.device
    )
    rows = [t * batch + b for t, bs in enumerate(sizes) for b in range(bs)]
    rows_t = tensor(rows, dtype=_dtype.int64, device=data.device)
    padded.view((steps * batch, *data.shape[1:])).index_copy_(0, rows_t, data)
    if batch_first:
        padded = padded.transpose(0, 1)
    lengths_t = tensor(lengths, dtype=_dtype.int64)
    if sequence.unsorted_indices is not None:
        padded = padded.index_select(0 if batch_first else 1, sequence.unsorted_indices)
        unsorted = [int(v) for v in sequence.unsorted_indices.cpu().tolist()]
        lengths_t = tensor([lengths[i] for i in unsorted], dtype=_dtype.int64)
    return padded, lengths_t


def pad_sequence(
    sequences, batch_first: bool = False, padding_value: float = 0.0, padding_side: str = "right"
) -> Tensor:
    """Stacks (L_i, *) tensors into (max L, B, *) (B first with batch_first), padded with
    padding_value on the right (or left). Mirrors torch.nn.utils.rnn.pad_sequence."""
    if isinstance(sequences, Tensor):
        if sequences.ndim == 0:
            raise TypeError("iteration over a 0-d tensor")
        sequences = list(sequences.unbind(0))
    elif sequences.__class__ is not list and sequences.__class__ is not tuple:
        # torch takes any iterable (a generator, map, set, dict view): read it once, here
        try:
            sequences = list(sequences)
        except TypeError:
            raise RuntimeError(
                "pad_sequence: Expected iterable for input sequences, but got arg of type: "
                f"{type(sequences)}"
            ) from None
    for i, s in enumerate(sequences):
        if not isinstance(s, Tensor):
            raise not_tensor_element(i, s)
    _check_parsed(
        "pad_sequence",
        (2, "batch_first", "bool", batch_first),
        (3, "padding_value", "float", padding_value),
        (4, "padding_side", "str", padding_side),
    )
    if not sequences:
        raise RuntimeError("received an empty list of sequences")
    if padding_side not in ("left", "right"):
        raise RuntimeError(
            f"Expected padding_side to be one of left or right, but got {padding_side}."
        )
    if sequences[0].ndim == 0:  # (torch's kernel slices the first one's trailing sizes)
        raise RuntimeError("ArrayRef: invalid slice, N = 1; size = 0")
    for s in sequences:
        if s.ndim == 0:  # (then reads each one's length)
            raise IndexError("Dimension specified as 0 but tensor has no dimensions")
    if not isinstance(padding_value, Tensor):
        padding_value = float(padding_value)  # (torch's kernel takes a double)
    first = sequences[0]
    dt = first.dtype  # torch's result has the first sequence's dtype
    longest = max(s.shape[0] for s in sequences)
    trailing = tuple(first.shape[1:])
    # As torch: a buffer of padding_value, each sequence copied (broadcast) into its slice, so
    # the result's grad_fn is a CopySlices, one per sequence
    size = (len(sequences), longest) if batch_first else (longest, len(sequences))
    out = full(size + trailing, padding_value, dtype=dt, device=first.device)
    for i, s in enumerate(sequences):
        n = s.shape[0]
        start = 0 if padding_side == "right" else longest - n
        rows = out.select(0 if batch_first else 1, i).narrow(0, start, n)
        rows.copy_(s if s.dtype is dt else s.to(dt))
    return out


def _check_parsed(op: str, *arguments) -> None:
    """torch's parser's TypeError for the first of `arguments` ((position, name, kind, value))
    of the wrong kind ("bool", "float", "Number", "str"): torch's Python functions pass them on
    by position to their parsed kernel, so the message always gives the position."""
    from minitorch.nn._argcheck import _float_like

    for pos, name, kind, value in arguments:
        if kind == "bool":
            ok = value.__class__ is bool
        elif kind == "str":
            ok = isinstance(value, str)
        else:
            ok = _float_like(value)
        if not ok:
            raise TypeError(
                f"{op}(): argument '{name}' (position {pos}) must be {kind}, not "
                f"{type_name(value)}"
            )


def unpad_sequence(padded_sequences: Tensor, lengths, batch_first: bool = False) -> list:
    """The inverse of pad_sequence: a list of (L_i, *) tensors. Mirrors
    torch.nn.utils.rnn.unpad_sequence.

    Differences from torch: the input is left as it is; torch's transposes a time-major input
    in place (its transpose_, pytorch issue 98499)."""
    if not isinstance(lengths, Tensor):  # torch reads lengths.device
        raise AttributeError(f"'{type(lengths).__name__}' object has no attribute 'device'")
    x = padded_sequences if batch_first else padded_sequences.transpose(0, 1)
    # torch keeps the positions t < length: none for a negative length, all T past the end (a
    # slice x[b, :n] would count a negative n from the end); one length per sequence
    T = x.shape[1]
    out = []
    host = lengths.tolist() if lengths.device.type == "cpu" else _host_lengths(lengths)
    for b, n in zip(range(x.shape[0]), host, strict=True):
        out.append(x[b, : min(max(math.ceil(n), 0), T)])
    return out


def pack_sequence(sequences, enforce_sorted: bool = True) -> PackedSequence:
    """pad_sequence then pack_padded_sequence. Mirrors torch.nn.utils.rnn.pack_sequence."""
    lengths = [s.shape[0] for s in sequences]
    return pack_padded_sequence(pad_sequence(sequences), lengths, enforce_sorted=enforce_sorted)


def unpack_sequence(packed_sequences: PackedSequence) -> list:
    """The inverse of pack_sequence. Mirrors torch.nn.utils.rnn.unpack_sequence."""
    padded, lengths = pad_packed_sequence(packed_sequences, batch_first=True)
    return unpad_sequence(padded, lengths, batch_first=True)
