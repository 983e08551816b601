"""Indexing keys (`x[key]`) parsed with torch's rules into a plan the indexing ops run on arrays."""

from __future__ import annotations

import numbers
import operator
import warnings

from minitorch._tensor import Tensor

__all__ = [
    "IndexPlan", "parse_key", "tensors_plan", "broadcast_shapes", "check_index_bounds",
    "is_index_dtype",
]  # fmt: skip

# NOTE [ Indexing plans ]
# torch applies a key in two steps, and so do we:
# 1. the basic part (ints, slices, None; the dims consumed by advanced indices kept whole) makes a
#    view `v` of x. Ints are *selects*: they remove their dim before advanced indexing is looked
#    at, so they never take part in the placement rule below (NumPy differs here: it broadcasts
#    ints with the index arrays).
# 2. the advanced part indexes `v` with integer arrays (bool masks become their nonzero() arrays;
#    a bool scalar becomes a new dim of size 1 indexed by [0] or []): their broadcast shape B
#    replaces the indexed dims in place when those are adjacent, else B goes first. NumPy follows
#    the same rule for a key of slices and arrays, so `v[adv]` computes it.
# A 0-d integer tensor is a select on CPU (read on the host, as torch does). On other devices it
# stays an index array (reading it would synchronise): it is a 0-d advanced index, which NumPy
# counts for adjacency and torch does not; `perm` moves B back where torch puts it.
# Differences from torch: off the CPU, `x[t0]` with a 0-d integer tensor is a copy, not a view,
# and out-of-range index arrays are not checked (CuPy wraps them; torch raises asynchronously).


class IndexPlan:
    """A parsed key: `basic` (a tuple for x[basic], ending in Ellipsis, or None for no basic
    step), `adv` (a tuple of slices and index arrays for v[adv], or None), `perm` ((src, dst)
    for moveaxis from NumPy's to torch's layout, or None), and the shapes involved. `tensors`:
    the key's index Tensors when the plan knows them (x[i0, i1] with index tensors alone), for
    the node to watch (NOTE [ Watched index tensors ]); None: look in the key."""

    __slots__ = (
        "basic",
        "adv",
        "perm",
        "view_name",
        "v_shape",
        "out_shape",
        "identity",
        "unchecked",
        "tensors",
    )

    def __init__(self, basic, adv, perm, view_name, v_shape, out_shape, identity=False):
        self.unchecked = False  # index arrays whose bounds a read checks only if NumPy raises
        self.tensors = None
        self.basic = basic
        self.identity = identity  # the basic step leaves x as it is (x[...], x[:, :])
        self.adv = adv
        self.perm = perm
        self.view_name = view_name
        self.v_shape = v_shape
        self.out_shape = out_shape

    def adv_only(self) -> IndexPlan:
        """The advanced step alone (to run on the basic view of x)."""
        return IndexPlan(None, self.adv, self.perm, "Alias", self.v_shape, self.out_shape, True)

    def __repr__(self):
        return f"IndexPlan(basic={self.basic}, adv={self.adv}, perm={self.perm})"


_VALID = (
    "only integers, slices (`:`), ellipsis (`...`), None and long or byte Variables are "
    "valid indices (got {})"
)


def _items(key) -> tuple:
    if key.__class__ is tuple:
        return key
    if (key.__class__ is list or key.__class__ is str) and _sequence_as_tuple(key):
        # (a str is a sequence of 1-character strs to torch: x["st"] is x["s", "t"])
        warnings.warn(
            "Using a non-tuple sequence for multidimensional indexing is deprecated and will be "
            "changed in pytorch 2.9; use x[tuple(seq)] instead of x[seq]. In pytorch 2.9 this "
            "will be interpreted as tensor index, x[torch.tensor(seq)], which will result either "
            "in an error or a different result",
            UserWarning,
            stacklevel=5,
        )
        return tuple(key)
    return (key,)


def is_index_dtype(dt) -> bool:
    """int64 or int32 (what torch accepts for index tensors); cheaper than comparing names."""
    return dt.kind == "i" and (dt.itemsize == 8 or dt.itemsize == 4)


def _sequence_as_tuple(seq) -> bool:
    """torch's legacy rule: a short list holding a tensor, sequence, slice, None... is a tuple."""
    if len(seq) >= 32:
        return False
    for it in seq:
        if it is None or it is Ellipsis or isinstance(it, _AS_TUPLE):
            return True
        if hasattr(it, "__array__") and getattr(it, "ndim", 0) > 0:
            return True
    return False


_AS_TUPLE = (Tensor, list, tuple, slice, str, bytes, range)


def _refused(item) -> tuple:
    """The token of an item torch refuses, raised where the key reaches it: torch first counts
    every item as one dim ("too many indices" wins), then reads the items in order."""
    cls = item.__class__
    if cls is str or cls is bytes:  # a sequence: torch builds an index tensor from it
        return ("error", TypeError(f"new(): invalid data type '{cls.__name__}'"))
    # torch names the type as CPython's tp_name does: "O" for a class of Python code,
    # "numpy.float64" for one of C code outside builtins
    name = cls.__name__
    if not cls.__flags__ & _HEAP_TYPE and cls.__module__ != "builtins":
        name = f"{cls.__module__}.{name}"
    return ("error", IndexError(_VALID.format(name)))


_HEAP_TYPE = 1 << 9  # Py_TPFLAGS_HEAPTYPE: a class created by Python code


def _host_index(dev, array):
    """A host index array on dev. On the meta device it keeps its values (torch reads a CPU
    index, a mask's count, on the CPU), where a tensor copied there keeps its shape only."""
    if dev.type == "meta":
        return dev.backend.xp.asarray(array)
    return dev.backend.from_host(array, dev)


def _refuse_meta_mask(item) -> None:
    """Reading a meta tensor through a mask on the meta device (or a list of bools, which torch
    puts there): torch finds the mask's size by nonzero, which the meta device refuses, and a
    0-d mask's value by item(). A CPU mask it reads on the CPU. NOTE [ The meta device ]"""
    from minitorch._backend.meta import ITEM, NONZERO

    if isinstance(item, Tensor):
        if item._device.type == "cpu":
            return
        if item._data.ndim == 0:
            raise RuntimeError(ITEM)
    elif not isinstance(item, (list, tuple)):
        return
    raise NotImplementedError(NONZERO)


def _tensor_item(t: Tensor, item: Tensor, as_select: bool):
    """An index tensor as a token: ("int", i), ("bool", b), ("mask", arr) or ("index", arr)."""
    dev = t._device
    if item._device is not dev:
        if item._device.type != "cpu":
            raise RuntimeError(
                f"indices should be either on cpu or on the same device as the indexed tensor "
                f"({dev})"
            )
        arr = _host_index(dev, item._data)
    else:
        arr = item._data
    dt = arr.dtype
    kind = dt.kind
    if kind == "b" or kind == "u" and dt.itemsize == 1:
        if kind != "b":
            if arr.ndim:  # (torch reads a 0-d one as a bool scalar without a word)
                warnings.warn(
                    "indexing with dtype torch.uint8 is now deprecated, please use a dtype "
                    "torch.bool instead.",
                    UserWarning,
                    stacklevel=6,
                )
            arr = arr.astype(bool)
        return ("bool", arr) if arr.ndim == 0 else ("mask", arr)
    if not is_index_dtype(dt):
        if kind == "i" and arr.ndim == 0 and as_select:
            # torch reads a 0-d int8/int16 tensor as a number (index_put keeps refusing it)
            if dev.type == "cpu":
                return ("int", int(arr))
            return ("index", arr.astype("int64"))
        # raised once the key's ints and slices are applied, as torch checks it
        return ("baddtype", arr)
    if arr.ndim == 0 and as_select and dev.type == "cpu":
        return ("int", int(arr))
    return ("index", arr)


def _sequence_item(t: Tensor, item):
    """A list, tuple or host array: an index tensor built like torch's (bools -> mask, else
    int64)."""
    xp = t._device.backend.xp
    if isinstance(item, (list, tuple)):
        arr = xp.asarray(item) if item else xp.zeros(0, dtype="int64")
    else:
        arr = _host_index(t._device, item)
    kind = arr.dtype.kind
    if kind == "u" and arr.dtype.itemsize == 1 and not isinstance(item, (list, tuple)):
        # a uint8 NumPy array is a (deprecated) mask, as a uint8 tensor is (torch converts it)
        warnings.warn(
            "indexing with dtype torch.uint8 is now deprecated, please use a dtype torch.bool "
            "instead.",
            UserWarning,
            stacklevel=6,
        )
        arr = arr.astype(bool)
        kind = "b"
    if kind == "b":
        return ("bool", arr) if arr.ndim == 0 else ("mask", arr)
    if kind in "uOf" and isinstance(item, (list, tuple)):
        _check_leaves(item)  # (NumPy reads ints past int64 as uint64, float64 or objects)
    if kind not in "iu" and kind != "f":
        if isinstance(item, (list, tuple)):
            _check_leaves(item)  # raises torch's error for a str, None, a complex...
        raise IndexError(_VALID.format(type(item).__name__))
    if kind != "i" or arr.dtype.itemsize != 8:
        arr = arr.astype("int64")
    return ("index", arr)


_INT64 = 1 << 63
_OVERFLOW = "Overflow when unpacking long long"  # torch reads an int of a key as an int64


def _check_leaves(seq) -> None:
    """torch's error for an index list it cannot make an int64 tensor of: the first str, bytes,
    non-number or int past int64 in it, else the first complex."""
    stack = [iter(seq)]
    complex_seen = False
    while stack:
        leaf = next(stack[-1], stack)
        if leaf is stack:
            stack.pop()
        elif isinstance(leaf, (list, tuple)):
            stack.append(iter(leaf))
        elif leaf.__class__ is str or leaf.__class__ is bytes:
            raise TypeError(f"new(): invalid data type '{leaf.__class__.__name__}'")
        elif leaf.__class__ is int and not -_INT64 <= leaf < _INT64:
            raise ValueError(_OVERFLOW)
        elif isinstance(leaf, complex):
            complex_seen = True
        elif not isinstance(leaf, numbers.Number) and not hasattr(leaf, "__array__"):
            raise RuntimeError(f"Could not infer dtype of {leaf.__class__.__name__}")
    if complex_seen:
        raise TypeError("'complex' object cannot be interpreted as an integer")


def _tokens(t: Tensor, key, as_select: bool, read: bool = False) -> list:
    toks = []
    meta_read = read and t._device.type == "meta"
    for item in _items(key):
        cls = item.__class__
        if cls is int:
            ok = -_INT64 <= item < _INT64
            toks.append(("int", item) if ok else ("error", ValueError(_OVERFLOW)))
        elif cls is slice:
            toks.append(("slice", item))
        elif item is None:
            toks.append(("none", None))
        elif item is Ellipsis:
            toks.append(("ellipsis", None))
        elif cls is bool:
            toks.append(("bool", item))
        elif isinstance(item, Tensor):
            toks.append(_tensor_item(t, item, as_select))
        elif (
            cls is list
            or cls is tuple  # a tuple inside the key indexes like a list (x[:, (0, 2)]), as torch
            or hasattr(item, "__array__")
            and getattr(item, "ndim", 0) > 0
        ):
            toks.append(_sequence_item(t, item))
        elif cls is range:  # y_hat[range(len(y_hat)), y]: a list of its integers, as torch
            toks.append(_sequence_item(t, list(item)))
        elif getattr(item, "dtype", None) is not None and item.dtype.kind == "b":
            # a 0-d NumPy bool array indexes as a bool; torch refuses a NumPy bool scalar
            toks.append(("bool", bool(item)) if hasattr(item, "__setitem__") else _refused(item))
        elif hasattr(item, "__index__") and not isinstance(item, float):
            toks.append(("int", operator.index(item)))
        else:
            toks.append(_refused(item))
        if meta_read and toks[-1][0] in ("mask", "bool"):
            _refuse_meta_mask(item)
    return toks


def _slice(s: slice, n: int) -> slice:
    step = s.step
    if step is not None and operator.index(step) <= 0:
        if operator.index(step) == 0:
            raise ValueError("slice step cannot be zero")
        raise ValueError("step must be greater than zero")
    return slice(*s.indices(n))


def _whole(s: slice, n: int) -> bool:
    """Whether torch skips the slice s of a dim of size n, as written: a start of 0 (or none), a
    step of 1 (or none), a stop of n or more (or none). x[-n:] is a view all the same, so
    x[-n:] = v writes through it (CopySlices) where x[:] = v and x[0:n + 5] = v write x."""
    start, stop, step = s.start, s.stop, s.step
    return (
        (start is None or operator.index(start) == 0)
        and (step is None or operator.index(step) == 1)
        and (stop is None or operator.index(stop) >= n)
    )


def _slice_len(s: slice) -> int:
    start, stop, step = s.start, s.stop, s.step
    return max(0, (stop - start + step - 1) // step)


def broadcast_shapes(shapes, what="indexing tensors") -> tuple:
    """The broadcast of `shapes`; IndexError in torch's words when they do not broadcast."""
    ndim = max((len(s) for s in shapes), default=0)
    out = [1] * ndim
    for s in shapes:
        for i, n in enumerate(s, ndim - len(s)):
            if n != 1:
                if out[i] != 1 and out[i] != n:
                    listed = ", ".join(str(list(x)) for x in shapes)
                    raise IndexError(
                        f"shape mismatch: {what} could not be broadcast together with shapes "
                        f"{listed}"
                    )
                out[i] = n
    return tuple(out)


def check_index_bounds(arrays, sizes) -> None:
    """IndexError for the first entry of the index arrays (broadcasting together; k-th indexing
    a dim of sizes[k]) outside [-n, n), in torch's order: its kernel walks the broadcast
    elements in order and checks each one's indices in turn (CPU only: elsewhere the check
    would read device memory; see NOTE [ Indexing plans ])."""
    bad = [
        k
        for k, (a, n) in enumerate(zip(arrays, sizes, strict=True))
        if a.size and not (-n <= int(a.min()) and int(a.max()) < n)
    ]
    if not bad:
        return
    zero = sum(a * 0 for a in arrays)  # zeros of the broadcast shape
    first = None
    for k in bad:
        n = sizes[k]
        a = (arrays[k] + zero).reshape(-1)
        e = int(((a >= n) | (a < -n)).argmax())
        if first is None or e < first[0]:  # (at one element, the first index's error)
            first = (e, k, int(a[e]))
    _, k, value = first
    raise IndexError(f"index {value} is out of bounds for dimension {k} with size {sizes[k]}")


def parse_key(t: Tensor, key, *, as_select: bool = True, read: bool = False) -> IndexPlan:
    """The plan of `t[key]`. See NOTE [ Indexing plans ].

    `as_select=False` (index_put, torch.index semantics) keeps 0-d index tensors as indices.
    `read=True` (x[key]) may leave index tensors unchecked: see explain_bounds.
    """
    shape = t._data.shape
    plan = _basic_plan(shape, key)
    if plan is None:
        plan = tensors_plan(t, shape, key, read)
    if plan is not None:
        return plan
    ndim = len(shape)
    toks = _tokens(t, key, as_select, read)
    used = 0
    for kind, v in toks:
        if kind in ("int", "slice", "index", "baddtype", "error"):
            used += 1
        elif kind == "mask":
            used += v.ndim
    if used > ndim:
        if ndim == 0 and toks[0][0] == "int" and not isinstance(key, (tuple, list, Tensor)):
            # a bare number selects in dim 0 of a 0-d tensor; a tuple or tensor has too many
            if toks[0][1] == 0:
                raise IndexError(
                    "invalid index of a 0-dim tensor. Use `tensor.item()` in Python or "
                    "`tensor.item<T>()` in C++ to convert a 0-dim tensor to a number"
                )
            raise IndexError(f"index {toks[0][1]} is out of bounds for dimension 0 with size 0")
        if ndim == 0 and key.__class__ is slice:
            _slice(key, 0)  # a step of 0 or less is refused first
            raise IndexError("slice() cannot be applied to a 0-dim tensor.")
        got = "" if as_select else f" (got {used})"  # (index_put's wording)
        raise IndexError(f"too many indices for tensor of dimension {ndim}{got}")

    xp = t._device.backend.xp
    basic = []
    v_shape = []
    adv = []  # (vdim, array, is_0d_device_index)
    masks = []  # (position in adv, vdim, mask)
    view_name = "Alias"
    trivial = True  # the basic step is the identity
    xdim = 0
    ellipsis_seen = False
    for pos, (kind, v) in enumerate(toks):
        if kind == "int":
            n = shape[xdim]
            if not -n <= v < n:  # (torch's "dimension" is the int's position in the key)
                raise IndexError(f"index {v} is out of bounds for dimension {pos} with size {n}")
            basic.append(v + n if v < 0 else v)
            xdim += 1
            view_name, trivial = "Select", False
        elif kind == "slice":
            s = _slice(v, shape[xdim])
            basic.append(s)
            v_shape.append(_slice_len(s))
            if not _whole(v, shape[xdim]):
                view_name, trivial = "Slice", False
            xdim += 1
        elif kind == "none":
            basic.append(None)
            v_shape.append(1)
            view_name, trivial = "Unsqueeze", False
        elif kind == "ellipsis":
            k = 0 if ellipsis_seen else ndim - used
            ellipsis_seen = True
            basic.extend([slice(None)] * k)
            v_shape.extend(shape[xdim : xdim + k])
            xdim += k
        elif kind == "bool":
            basic.append(None)
            if v.__class__ is bool:
                idx = xp.zeros(1 if v else 0, dtype="int64")
            else:
                idx = xp.nonzero(v.reshape(1))[0]
            adv.append((len(v_shape), idx, False))
            v_shape.append(1)
            view_name, trivial = "Unsqueeze", False
        elif kind == "mask":
            k = v.ndim
            masks.append((len(adv), len(v_shape), v))
            adv.append(None)  # filled below, once v's shape is known for the error message
            basic.extend([slice(None)] * k)
            v_shape.extend(shape[xdim : xdim + k])
            xdim += k
        elif kind == "error":
            raise v
        else:  # "index" (or "baddtype", refused below)
            adv.append((len(v_shape), v, as_select and v.ndim == 0))
            basic.append(slice(None))
            v_shape.append(shape[xdim])
            xdim += 1
    v_shape.extend(shape[xdim:])
    v_shape = tuple(v_shape)
    basic_key = None if trivial else tuple(basic) + (Ellipsis,)
    if not adv:
        if key.__class__ is slice:
            view_name = "Slice"  # torch's x[a:b] never skips the slice, even a full one
        return IndexPlan(
            tuple(basic) + (Ellipsis,), None, None, view_name, v_shape, v_shape, trivial
        )

    if any(k == "baddtype" for k, _ in toks):
        raise IndexError("tensors used as indices must be long, int, byte or bool tensors")
    for _, vdim, m in masks:  # the first mask that does not fit is the one torch names
        for j, n in enumerate(m.shape):
            if v_shape[vdim + j] != n:
                raise IndexError(
                    f"The shape of the mask {list(m.shape)} at index {j} does not match the "
                    f"shape of the indexed tensor {list(v_shape)} at index {vdim + j}"
                )
    for pos, vdim, m in reversed(masks):
        adv[pos : pos + 1] = [(vdim + j, a, False) for j, a in enumerate(xp.nonzero(m))]
    return _advanced(basic_key, adv, view_name, v_shape, t._device.type == "cpu")


def tensors_plan(t: Tensor, shape, key, read: bool = False) -> IndexPlan | None:
    """The plan of x[i] or x[i0, i1, ...] for int64/int32 index tensors of one shape (not 0-d)
    on x's device, indexing its leading dims: the idioms x[perm] and logits[arange(n), y],
    without the general parser (it took 25 us of the 30 of logits[arange(16), y]); None for any
    other key."""
    if key.__class__ is Tensor and shape:
        items = (key,)
    elif key.__class__ is tuple and key and len(key) <= len(shape):
        items = key
    else:
        return None
    dev = t._device
    arrays = []
    first = None  # the first index's shape, which the others must have
    for item in items:
        if item.__class__ is not Tensor or item._device is not dev:
            return None
        a = item._data
        dt = a.dtype
        if dt.kind != "i" or (dt.itemsize != 8 and dt.itemsize != 4):  # (is_index_dtype)
            return None
        if first is None:
            first = a.shape
            if not first or not a.size:  # 0-d, or empty: the general path words its errors
                return None
        elif a.shape != first:
            return None
        arrays.append(a)
    n = len(arrays)
    out_shape = first + shape[n:]
    if 0 in shape[:n]:
        raise IndexError(_EMPTY_DIM)
    on_cpu = dev.type == "cpu"
    unchecked = read and on_cpu
    if on_cpu and not unchecked and 0 not in out_shape:
        check_index_bounds(arrays, shape[:n])
    plan = IndexPlan(None, tuple(arrays), None, "Alias", shape, out_shape, True)
    plan.unchecked = unchecked
    plan.tensors = items
    return plan


def explain_bounds(plan: IndexPlan) -> None:
    """torch's IndexError for the first out-of-range index of an unchecked plan. A read leaves its
    index tensors to NumPy, which checks them as it gathers (finding the min and max first cost
    ~6 of the ~20 us of logits[arange(n), y]); when NumPy raises, this words the error as torch
    does. Writes are checked before they start, so a failed one changes nothing."""
    if plan.unchecked:
        check_index_bounds(plan.adv, plan.v_shape[: len(plan.adv)])


def _basic_plan(shape, key) -> IndexPlan | None:
    """The plan of a key of in-range ints and positive-step slices (x[i, j], x[a:b], x[:, i]),
    without the general parser; None for any other key."""
    cls = key.__class__
    items = (key,) if cls is slice else key if cls is tuple else None
    if items is None or len(items) > len(shape):
        return None
    basic = []
    v_shape = []
    name = "Alias"
    identity = True
    for n, it in zip(shape, items, strict=False):
        c = it.__class__
        if c is int:
            if not -n <= it < n:
                return None
            basic.append(it + n if it < 0 else it)
            name, identity = "Select", False
        elif c is slice:
            step = it.step
            if step is not None and (step.__class__ is not int or step <= 0):
                return None
            if (it.start is not None and it.start.__class__ is not int) or (
                it.stop is not None and it.stop.__class__ is not int
            ):
                return None
            sl = slice(*it.indices(n))
            basic.append(sl)
            v_shape.append(_slice_len(sl))
            start, stop = it.start, it.stop  # See _whole (inlined: the common path)
            if not (
                (start is None or start == 0)
                and (step is None or step == 1)
                and (stop is None or stop >= n)
            ):
                name, identity = "Slice", False
        else:
            return None
    v_shape.extend(shape[len(items) :])
    v_shape = tuple(v_shape)
    if cls is slice:
        name = "Slice"  # torch's x[a:b] never skips the slice, even a full one
    return IndexPlan(tuple(basic) + (Ellipsis,), None, None, name, v_shape, v_shape, identity)


def basic_key(shape, key):
    """(the basic key, the name of its view: "Alias", "Select", "Slice" or "Unsqueeze") that
    parse_key's plan holds for `key`, where key is a tuple of in-range ints, positive-step
    slices (of ints or None), None and at most one Ellipsis, or a bare None or Ellipsis; None for
    any other key (parse_key words its errors). x[key] without the plan: the views of x[0, 1:],
    x[:, None], x[..., None] (NOTE [ Indexing plans ])."""
    if key.__class__ is tuple:
        items = key
    elif key is None or key is Ellipsis:
        items = (key,)
    else:  # (a bare int or slice: getitem reads those itself)
        return None
    ndim = len(shape)
    basic = []
    name = "Alias"
    d = 0  # the dim of shape the next int or slice indexes
    for it in items:
        c = it.__class__
        if c is int:
            if d >= ndim:
                return None
            n = shape[d]
            if not -n <= it < n:
                return None
            basic.append(it + n if it < 0 else it)
            name = "Select"
            d += 1
        elif c is slice:
            start, stop, step = it.start, it.stop, it.step
            if (
                d >= ndim
                or (step is not None and (step.__class__ is not int or step <= 0))
                or (start is not None and start.__class__ is not int)
                or (stop is not None and stop.__class__ is not int)
            ):
                return None
            n = shape[d]
            basic.append(slice(*it.indices(n)))
            if not (  # See _whole (inlined)
                (start is None or start == 0)
                and (step is None or step == 1)
                and (stop is None or stop >= n)
            ):
                name = "Slice"
            d += 1
        elif it is None:
            basic.append(None)
            name = "Unsqueeze"
        elif it is Ellipsis:  # the dims no int or slice uses, whole (the ints and slices
            later = 0  # after it are counted here; a second Ellipsis goes to parse_key)
            for rest in items[items.index(Ellipsis) + 1 :]:
                c = rest.__class__
                if c is int or c is slice:
                    later += 1
                elif rest is not None:
                    return None
            k = ndim - d - later
            if k < 0:
                return None
            basic += [_WHOLE] * k
            d += k
        else:
            return None
    return tuple(basic) + (Ellipsis,), name


_WHOLE = slice(None)


# NOTE [ Empty index results ]
# torch checks index values in its gather and scatter kernels, which do not run for an empty
# result: zeros(4, 0)[[5]] is an empty (1, 0) tensor, zeros(3, 2)[[5], []] an empty (0,) one.
# Before them it refuses a non-empty index into a dim of size 0 in its own words (_EMPTY_DIM).
# NumPy checks every index value, so an empty result is made without it (see _take and _put).
_EMPTY_DIM = "index is out of bounds for dimension with size 0"


def _advanced(basic_key, adv, view_name, v_shape, check_bounds: bool) -> IndexPlan:
    b_shape = broadcast_shapes([a.shape for _, a, _ in adv])
    dims = [d for d, _, _ in adv]
    rest = [n for d, n in enumerate(v_shape) if d not in dims]
    if 0 not in b_shape:  # See NOTE [ Empty index results ]
        if any(v_shape[d] == 0 for d in dims):
            raise IndexError(_EMPTY_DIM)
        if check_bounds and 0 not in rest:
            check_index_bounds([a for _, a, _ in adv], [v_shape[vdim] for vdim, _, _ in adv])
    np_pos = dims[0] if dims[-1] - dims[0] == len(dims) - 1 else 0
    t_pos = np_pos
    kept = [d for d, _, zero_d in adv if not zero_d]
    if kept and len(kept) != len(dims):
        # 0-d device indices are selects for torch: judge adjacency without their dims.
        remaining = [d for d in range(len(v_shape)) if d not in dims or d in kept]
        first = remaining.index(kept[0])
        contiguous = remaining[first : first + len(kept)] == kept
        t_pos = sum(1 for d in range(kept[0]) if d not in dims) if contiguous else 0
    perm = None
    nb = len(b_shape)
    if t_pos != np_pos and nb:
        perm = (tuple(range(np_pos, np_pos + nb)), tuple(range(t_pos, t_pos + nb)))
    key = [slice(None)] * (dims[-1] + 1)
    for d, a, _ in adv:
        key[d] = a
    out_shape = tuple(rest[:t_pos]) + b_shape + tuple(rest[t_pos:])
    return IndexPlan(basic_key, tuple(key), perm, view_name, v_shape, out_shape, basic_key is None)
