"""vmap: runs a function once per index of the mapped dimension and stacks the results."""

from __future__ import annotations

import contextlib
import functools

import minitorch
from minitorch._tensor import Tensor
from minitorch.autograd.engine import enter_sample_loop, exit_sample_loop
from minitorch.func._pytree import (
    broadcast_prefix,
    spec_repr,
    spec_str,
    tree_flatten,
    tree_unflatten,
)
from minitorch.func._transforms import call_transformed_with

__all__ = ["vmap"]

_RANDOMNESS = ("error", "different", "same")


_VMAP = {"vmap": True}  # a user Function needs a vmap rule (minitorch/func/_custom.py)


def vmap(func, in_dims=0, out_dims=0, randomness: str = "error", *, chunk_size=None):
    """A function that maps func over dimension `in_dims` of its inputs and stacks the results
    along `out_dims`. Mirrors torch.func.vmap.

    Differences from torch: minitorch has no batching rules, so func runs once per index of the
    mapped dimension (a Python loop) and the results are stacked; the numbers are the same, the
    cost grows with the batch. Consequences: `chunk_size` changes nothing but is validated
    (a non-int by name, where torch fails in its chunking; torch's AssertionError for a chunked
    batch of size 0);
    randomness='error' refuses a draw from a Generator passed explicitly before it happens, as
    torch does, but sees draws from the default generators by their states once func has run
    (raising then, with the generators put back), so a CUDA default stream's are not refused;
    'same' replays the states of the default generators and of Generators passed explicitly for
    every sample (same values, not torch's stream); 'different' makes each sample's draws in turn
    where torch makes each random op's draw once for the whole batch, so its numbers are
    torch's only where that order gives the same stream (one uniform-type op per sample, or
    normal draws of fewer than 16 numbers in all); an output with out_dims=None is refused when the
    samples' values differ (an output that depends on the batch but is equal for every sample
    is returned); a batch of size 0 runs func once on zeros to learn the output shapes;
    in-place ops on the per-sample slices of an input write into that input. Each sample is a
    real tensor, so code that torch's vmap refuses (with a RuntimeError) runs here:
    data-dependent Python control flow (`if t.sum() > 0`) and host reads of a per-sample value
    (.item(), float(t), .tolist(), .numpy()) see that sample's values; dynamic-shape ops (a[a >
    0], nonzero) give each sample's own shape (stacking then fails if they differ); in-place
    writes into a tensor captured from outside func (acc.add_(row), BatchNorm's running
    statistics in training mode) are applied once per sample. autograd.grad inside func walks
    a graph made outside it once per sample; a graph it would free is freed when vmap returns
    (NOTE [ Graphs shared by vmap's samples ] in minitorch/autograd/engine.py).
    """
    _check_randomness(randomness)
    # torch checks the sign here (a str fails the comparison with a TypeError) and the type
    # when it splits the batch into chunks, on the call.
    if chunk_size is not None and not chunk_size > 0:
        raise ValueError(f"vmap: chunk_size should be None or greater than 0. (got {chunk_size})")

    @functools.wraps(func)
    def wrapped(*args, **kwargs):
        return _vmap_impl(func, in_dims, out_dims, randomness, args, kwargs, chunk_size)

    return wrapped


def _check_randomness(randomness) -> None:
    if randomness not in _RANDOMNESS:
        raise RuntimeError(
            "Only allowed values for randomness are 'error', 'different', or 'same'. Got "
            f"{randomness}"
        )


def _name(func) -> str:
    if isinstance(func, functools.partial):
        return f"functools.partial({_name(func.func)}, ...)"
    return getattr(func, "__name__", repr(func))


def _check_out_dims(out_dims, func) -> None:
    if isinstance(out_dims, int):
        return
    for d in tree_flatten(out_dims)[0]:
        if d is not None and not isinstance(d, int):
            raise ValueError(
                f"vmap({_name(func)}, ..., out_dims={out_dims}): `out_dims` must be an int, None "
                "or a python collection of ints representing where in the outputs the vmapped "
                "dimension should appear."
            )


def _batched_inputs(func, in_dims, args):
    """(batch size, flat in_dims, flat args, args spec), with torch's errors."""
    name = _name(func)
    if not isinstance(in_dims, (int, tuple)):
        raise ValueError(
            f"vmap({name}, in_dims={in_dims}, ...)(<inputs>): expected `in_dims` to be int or a "
            f"(potentially nested) tuple matching the structure of inputs, got: {type(in_dims)}."
        )
    if len(args) == 0:
        raise ValueError(
            f"vmap({name})(<inputs>): got no inputs. Maybe you forgot to add inputs, or you are "
            "trying to vmap over a function with no inputs. The latter is unsupported."
        )
    # None is an input (a leaf), as in torch's pytree: only an in_dim of None may map it
    flat_args, spec = tree_flatten(args, none_is_leaf=True)
    flat_dims = broadcast_prefix(in_dims, spec)
    if flat_dims is None:
        raise ValueError(
            f"vmap({name}, in_dims={in_dims}, ...)(<inputs>): in_dims is not compatible with the "
            f"structure of `inputs`. in_dims has structure "
            f"{spec_repr(tree_flatten(in_dims, none_is_leaf=True)[1])} but inputs has structure "
            f"{spec_repr(spec)}."
        )
    for i, (arg, d) in enumerate(zip(flat_args, flat_dims, strict=True)):
        where = f"vmap({name}, in_dims={in_dims}, ...)(<inputs>)"
        if d is not None and not isinstance(d, int):
            raise ValueError(
                f"{where}: Got in_dim={d} for an input but in_dim must be either an integer "
                "dimension or None."
            )
        if d is None:
            continue
        if not isinstance(arg, Tensor):
            raise ValueError(
                f"{where}: Got in_dim={d} for an input but the input is of type {type(arg)}. We "
                "cannot vmap over non-Tensor arguments, please use None as the respective in_dim"
            )
        n = arg.dim()
        if not -n <= d < n:
            raise ValueError(
                f"{where}: Got in_dim={d} for some input, but that input is a Tensor of "
                f"dimensionality {n} so expected in_dim to satisfy -{n} <= in_dim < {n}."
            )
        if d < 0:
            flat_dims[i] = d % n
    # size(d), as torch asks: an in_dim of True is refused there (an int to the checks above)
    sizes = [a.size(d) for a, d in zip(flat_args, flat_dims, strict=True) if d is not None]
    if not sizes:
        raise ValueError("vmap: Expected at least one Tensor to vmap over")
    if any(s != sizes[0] for s in sizes):
        raise ValueError(
            "vmap: Expected all tensors to have the same size in the mapped dimension, got sizes "
            f"{sizes} for the mapped dimension"
        )
    return sizes[0], flat_dims, flat_args, spec


def _sample(flat_args, flat_dims, spec, i):
    """The inputs of sample i: each mapped tensor indexed at i along its mapped dimension."""
    return tree_unflatten(
        [a if d is None else a.select(d, i) for a, d in zip(flat_args, flat_dims, strict=True)],
        spec,
    )


def _zeros_sample(flat_args, flat_dims, spec):
    """Stand-in inputs for a batch of size 0: zeros shaped like one sample."""
    out = []
    for a, d in zip(flat_args, flat_dims, strict=True):
        if d is None:
            out.append(a)
        else:
            shape = tuple(a.shape[:d]) + tuple(a.shape[d + 1 :])
            out.append(minitorch.zeros(shape, dtype=a.dtype, device=a.device))
    return tree_unflatten(out, spec)


def _check_chunk_size(chunk_size, batch) -> None:
    """The chunk_size checks torch makes when it splits the batch into chunks (minitorch runs
    sample by sample, so the chunks change nothing here).

    Differences from torch: a chunk_size that is no int is refused by name; torch fails in its
    chunking arithmetic ("can't multiply sequence by non-int of type 'float'", tensor_split's
    parser error for True). A batch of size 0 fails torch's assertion on the chunks' outputs,
    there being none, as here."""
    if isinstance(chunk_size, bool) or not hasattr(type(chunk_size), "__index__"):
        raise TypeError(
            f"vmap: chunk_size must be an int or None, got {type(chunk_size).__name__}"
        )
    if batch == 0:
        raise AssertionError("arg_spec must not be None")


def _vmap_impl(func, in_dims, out_dims, randomness, args, kwargs, chunk_size=None):
    _check_out_dims(out_dims, func)
    batch, flat_dims, flat_args, spec = _batched_inputs(func, in_dims, args)
    if chunk_size is not None and (batch == 0 or chunk_size.__class__ is not int):
        _check_chunk_size(chunk_size, batch)
    rng_before = _rng_snapshot() if randomness == "error" else None
    # Every sample may walk a graph made before this call (autograd.grad(y, x, v) per v): it is
    # freed once they all have (NOTE [ Graphs shared by vmap's samples ] in autograd/engine.py).
    loop = enter_sample_loop()
    rnd = minitorch.random
    vr = rnd._vmap_randomness
    refusing = vr.refuses  # an enclosing vmap's 'error' holds too
    vr.refuses = refusing or randomness == "error"
    outer_same = vr.same
    same = vr.same = {} if randomness == "same" else outer_same
    try:
        if batch == 0:
            sample = _zeros_sample(flat_args, flat_dims, spec)
            outputs = [call_transformed_with(_VMAP, func, *sample, **kwargs)]
        else:
            outputs = []
            for i in range(batch):
                sample = _sample(flat_args, flat_dims, spec, i)
                if randomness == "same":
                    # Replay the generators for every sample; the last one leaves them advanced:
                    # the default ones forked, the explicit ones rewound to their first draw.
                    rnd._restore(list(same.values()))
                if randomness == "same" and i < batch - 1:
                    with rnd.fork_rng():
                        outputs.append(call_transformed_with(_VMAP, func, *sample, **kwargs))
                else:
                    outputs.append(call_transformed_with(_VMAP, func, *sample, **kwargs))
    finally:
        vr.refuses = refusing
        if outer_same is not None and same is not outer_same:
            for k, v in same.items():  # an enclosing 'same' rewinds them too
                outer_same.setdefault(k, v)
        vr.same = outer_same
        exit_sample_loop(loop)
    if rng_before is not None:
        _check_no_random_op(rng_before)
    return _stack_outputs(func, outputs, out_dims, batch)


def _rng_snapshot() -> list:
    return minitorch.random._snapshot()


@contextlib.contextmanager
def random_ops_refused():
    """randomness='error' outside vmap's sample loop (jacfwd, which is vmap over jvp in torch):
    a draw from a Generator passed explicitly is refused before it happens, one from a default
    generator once the block has run (its state put back)."""
    vr = minitorch.random._vmap_randomness
    refusing = vr.refuses
    vr.refuses = True
    before = _rng_snapshot()
    try:
        yield
    finally:
        vr.refuses = refusing
    _check_no_random_op(before)


def _check_no_random_op(before: list) -> None:
    """randomness='error': torch refuses any random op inside vmap. A default generator whose
    state moved drew numbers: its state is put back (torch raises before the draw) and the
    error raised."""
    after = _rng_snapshot()
    old = {id(g): state for g, state, _, _ in before}
    for g, state, _, _ in after:
        prev = old.get(id(g))
        if _state_bytes(state) != _state_bytes(prev):
            minitorch.random._restore(before)
            raise RuntimeError(minitorch.random.VMAP_RANDOM_ERROR)


def _state_bytes(state):
    # None: nothing drawn since seeding (or a stream whose state cannot be read)
    return None if state is None else state.numpy().tobytes()


def _differs(col) -> bool:
    """Whether the samples' values of an out_dims=None output differ (so it depends on the
    batch); one host copy per sample, on this rare path only."""
    first = col[0]
    if not isinstance(first, Tensor):
        return False
    backend = first._device.backend
    a = backend.to_host(first._data)
    for t in col[1:]:
        if t is first:
            continue
        if not isinstance(t, Tensor) or t._data.shape != a.shape or t._data.dtype != a.dtype:
            return True
        b = backend.to_host(t._data)
        nan = a.dtype.kind in "fc"
        if not (a == b).all() and not (nan and ((a == b) | ((a != a) & (b != b))).all()):
            return True
    return False


def _flat_out_dims(func, out_dims, first, spec):
    def incompatible():
        return ValueError(
            f"vmap({_name(func)}, ..., out_dims={out_dims})(<inputs>): out_dims is not compatible "
            f"with the structure of `outputs`. out_dims has structure "
            f"{spec_repr(tree_flatten(out_dims, none_is_leaf=True)[1])} but outputs has "
            f"structure {spec_repr(spec)}."
        )

    if isinstance(first, Tensor):
        # A single Tensor output takes an int, None, or a 1-tuple (as torch allows).
        if isinstance(out_dims, int) or out_dims is None:
            return [out_dims]
        if isinstance(out_dims, tuple) and len(out_dims) == 1:
            return list(out_dims)
        raise incompatible()
    dims = broadcast_prefix(out_dims, spec)
    if dims is None:
        raise incompatible()
    return dims


def _stack_outputs(func, outputs, out_dims, batch):
    # None is an output (torch refuses it unless its out_dim is None), not an empty container
    flat_first, spec = tree_flatten(outputs[0], none_is_leaf=True)
    columns = [[] for _ in flat_first]
    for out in outputs:
        flat, s = tree_flatten(out, none_is_leaf=True)
        if s != spec:
            raise ValueError(
                f"vmap({_name(func)}, ...): `{_name(func)}` returned outputs of different "
                f"structures for different samples: {spec_str(spec)} and {spec_str(s)}"
            )
        for col, leaf in zip(columns, flat, strict=True):
            col.append(leaf)
    flat_dims = _flat_out_dims(func, out_dims, outputs[0], spec)
    result = []
    for col, d in zip(columns, flat_dims, strict=True):
        if d is None:
            if _differs(col):
                raise ValueError(
                    f"vmap({_name(func)}, ...): `{_name(func)}` can not return a BatchedTensor "
                    "when out_dim is None"
                )
            result.append(col[0])
            continue
        if not isinstance(col[0], Tensor):
            raise ValueError(
                f"vmap({_name(func)}, ...): `{_name(func)}` must only return Tensors, got type "
                f"{type(col[0])}. Did you mean to set out_dims= to None for output?"
            )
        if batch == 0:
            # Stack the stand-in sample then take none of it: the right shape, no elements.
            result.append(minitorch.stack(col, d).narrow(d % (col[0].dim() + 1), 0, 0))
        else:
            result.append(minitorch.stack(col, d))
    return tree_unflatten(result, spec)
