"""torch.masked's reductions and normalizations on plain tensors with a `mask=` keyword.

Each function replaces the masked-out elements by the identity of its reduction with `where` and
then calls the ordinary minitorch op, so the gradient comes from those ops: masked-out elements
get a zero gradient (the backward of `where`), as in torch.

Differences from torch: only strided tensors (no sparse COO/CSR inputs or masks); no complex
dtypes (minitorch has none).
"""

from __future__ import annotations

import math

import minitorch
from minitorch._tensor import Tensor

__all__ = [
    "amax",
    "amin",
    "argmax",
    "argmin",
    "cumprod",
    "cumsum",
    "log_softmax",
    "logaddexp",
    "logsumexp",
    "mean",
    "median",
    "norm",
    "normalize",
    "prod",
    "softmax",
    "softmin",
    "std",
    "sum",
    "var",
]

# sum and prod accumulate these dtypes in int64 when no dtype= is given (as torch.sum does)
_SMALL_INTEGRAL = ("bool", "uint8", "int8", "int16", "int32")


# --- helpers: the mask, the dims, the identities --------------------------------------------


def _is_masked_tensor(input) -> bool:
    from minitorch.masked._maskedtensor import MaskedTensor

    return isinstance(input, MaskedTensor)


def _identity(op: str, input: Tensor, ord=None) -> Tensor:
    """The 0-d tensor that leaves the reduction `op` unchanged: what masked-out elements become.

    Raises NotImplementedError where the identity is not defined (amax of bool, var, ...)."""
    dtype, value = input.dtype, None
    floating = dtype.is_floating_point
    integral_with_range = not floating and (dtype.is_signed or dtype == minitorch.uint8)
    if op in ("sum", "cumsum"):
        value = 0
    elif op in ("prod", "cumprod"):
        value = 1
    elif op in ("amax", "argmax", "logaddexp", "logsumexp"):
        if floating:
            value = -math.inf
        elif integral_with_range:
            value = minitorch.iinfo(dtype).min
    elif op in ("amin", "argmin"):
        if floating:
            value = math.inf
        elif integral_with_range:
            value = minitorch.iinfo(dtype).max
    elif op == "norm":
        if ord == -math.inf:
            if not dtype.is_floating_point:
                raise AssertionError(f"input must be floating point, got {dtype}")
            value = math.inf
        else:
            value = 0
    elif op == "median":  # nanmedian skips NaN: NaN is its identity
        dtype = dtype if dtype.is_floating_point else minitorch.float32
        value = math.nan
    if value is None:
        raise NotImplementedError(f"identity of {op} on {dtype} input")
    return minitorch.full((), value, dtype=dtype, device=input.device)


def _canonical_dim(dim, ndim: int) -> tuple[int, ...]:
    """dim (int, sequence, None or ()) as a sorted tuple of non-negative dims; None and () mean
    every dim. Mirrors the checks of torch.masked (a 0-d tensor accepts dims 0 and -1)."""
    if dim is None or (isinstance(dim, (tuple, list)) and len(dim) == 0):
        return tuple(range(ndim))
    ndim = max(ndim, 1)
    dims: list[int] = []
    for d in (dim,) if isinstance(dim, int) else dim:
        if d in dims:  # torch compares the dim as given with the normalized ones
            raise RuntimeError(f"dim={d} appears multiple times in the list of dims")
        if d >= ndim or d < -ndim:
            raise IndexError(
                f"Dimension out of range (expected to be in range of [{-ndim}, {ndim - 1}], "
                f"but got {d})"
            )
        dims.append(d % ndim)
    return tuple(sorted(dims))


def _input_mask(input: Tensor, mask: Tensor) -> Tensor:
    """mask broadcast to input's shape, as bool (a non-bool mask is converted as torch does)."""
    if mask.shape != input.shape:
        if mask.ndim > input.ndim:
            raise IndexError(
                "_input_mask expected broadcastable mask (got mask dimensionality higher than "
                "of the input)"
            )
        mask = minitorch.broadcast_to(mask, input.shape)
    return mask.to(dtype=minitorch.bool)


def _masked_input(op: str, input: Tensor, mask: Tensor | None, ord=None) -> Tensor:
    """input with its masked-out elements replaced by the identity of op."""
    if mask is None:
        return input
    return minitorch.where(_input_mask(input, mask), input, _identity(op, input, ord))


def _from_masked_tensor(fn):
    """Lets fn take a MaskedTensor: its data and mask go in, a MaskedTensor comes out."""

    def wrapper(input, *args, **kwargs):
        if _is_masked_tensor(input):
            from minitorch.masked._maskedtensor import _masked_reduction

            return _masked_reduction(fn, input, *args, **kwargs)
        return fn(input, *args, **kwargs)

    wrapper.__name__ = wrapper.__qualname__ = fn.__name__
    wrapper.__doc__ = fn.__doc__
    wrapper.__wrapped__ = fn
    return wrapper


def _accumulate_dtype(input: Tensor, dtype):
    if dtype is None:
        dtype = input.dtype
        if str(dtype).rpartition(".")[2] in _SMALL_INTEGRAL:
            dtype = minitorch.int64
    return dtype


# --- reductions -------------------------------------------------------------------------------


@_from_masked_tensor
def sum(input, dim=None, *, keepdim=False, dtype=None, mask=None) -> Tensor:
    """Sum of the masked-in elements (identity 0). Mirrors torch.masked.sum."""
    dtype = _accumulate_dtype(input, dtype)
    dims = _canonical_dim(dim, input.ndim)
    x = _masked_input("sum", input, mask)
    return minitorch.sum(x, dims, bool(keepdim), dtype=dtype)


@_from_masked_tensor
def prod(input, dim=None, *, keepdim=False, dtype=None, mask=None) -> Tensor:
    """Product of the masked-in elements (identity 1). Mirrors torch.masked.prod."""
    dtype = _accumulate_dtype(input, dtype)
    dims = _canonical_dim(dim, input.ndim)
    out = _masked_input("prod", input, mask).to(dtype=dtype)
    for d in reversed(dims):  # torch.prod reduces one dim at a time
        out = out.prod(dim=d, keepdim=bool(keepdim))
    return out


@_from_masked_tensor
def amax(input, dim=None, *, keepdim=False, dtype=None, mask=None) -> Tensor:
    """Maximum of the masked-in elements (identity -inf, or the dtype's minimum).
    Mirrors torch.masked.amax."""
    dtype = input.dtype if dtype is None else dtype
    x = _masked_input("amax", input, mask)
    return minitorch.amax(x, _canonical_dim(dim, x.ndim), bool(keepdim)).to(dtype=dtype)


@_from_masked_tensor
def amin(input, dim=None, *, keepdim=False, dtype=None, mask=None) -> Tensor:
    """Minimum of the masked-in elements (identity inf, or the dtype's maximum).
    Mirrors torch.masked.amin."""
    dtype = input.dtype if dtype is None else dtype
    x = _masked_input("amin", input, mask)
    return minitorch.amin(x, _canonical_dim(dim, x.ndim), bool(keepdim)).to(dtype=dtype)


@_from_masked_tensor
def argmax(input, dim=None, *, keepdim=False, dtype=None, mask=None) -> Tensor:
    """Index of the largest masked-in element. Mirrors torch.masked.argmax, whose result has
    input's dtype unless dtype= is given."""
    dtype = input.dtype if dtype is None else dtype
    x = _masked_input("argmax", input, mask)
    return minitorch.argmax(x, dim, bool(keepdim)).to(dtype=dtype)


@_from_masked_tensor
def argmin(input, dim=None, *, keepdim=False, dtype=None, mask=None) -> Tensor:
    """Index of the smallest masked-in element. Mirrors torch.masked.argmin, whose result has
    input's dtype unless dtype= is given."""
    dtype = input.dtype if dtype is None else dtype
    x = _masked_input("argmin", input, mask)
    return minitorch.argmin(x, dim, bool(keepdim)).to(dtype=dtype)


@_from_masked_tensor
def mean(input, dim=None, *, keepdim=False, dtype=None, mask=None) -> Tensor:
    """Mean of the masked-in elements; NaN where all are masked out. Mirrors torch.masked.mean."""
    source = "Optional"
    if dtype is None:
        dtype, source = input.dtype, "Input"
    if not dtype.is_floating_point:
        raise ValueError(
            f"mean(): Could not infer output dtype. {source} dtype must be either a floating "
            f"point or complex dtype. Got: {dtype}"
        )
    if mask is None:
        mask = minitorch.ones(input.shape, dtype=minitorch.bool, device=input.device)
    inmask = _input_mask(input, mask)
    count = sum(inmask, dim, keepdim=keepdim)
    total = sum(input, dim, keepdim=keepdim, dtype=dtype, mask=inmask)
    return total / count


@_from_masked_tensor
def median(input, dim=-1, *, keepdim=False, dtype=None, mask=None) -> Tensor:
    """Median of the masked-in elements along one dim (the lower of the two middle values), NaN
    where all are masked out. Mirrors torch.masked.median, which ignores NaN inputs too.

    Differences from torch: an integer input with a fully masked-out slice raises torch's
    ValueError on the CPU only; on a GPU the check would read the result back to the host."""
    dtype = input.dtype if dtype is None else dtype
    d = _canonical_dim(dim, input.ndim)[0]
    is_float = input.dtype.is_floating_point
    if not is_float:
        input = input.to(dtype=minitorch.float32)
    out = minitorch.nanmedian(_masked_input("median", input, mask), d, keepdim).values
    if is_float:
        return out
    if out.device.type == "cpu" and bool(minitorch.isnan(out).any()):
        raise ValueError(
            "masked median expects no fully masked out rows if dtype is not floating point"
        )
    return out.to(dtype=dtype)


@_from_masked_tensor
def logsumexp(input, dim=None, *, keepdim=False, dtype=None, mask=None) -> Tensor:
    """log(sum(exp(x))) of the masked-in elements (identity -inf). Mirrors
    torch.masked.logsumexp (the result is cast to input's dtype unless dtype= is given)."""
    dtype = input.dtype if dtype is None else dtype
    dims = _canonical_dim(dim, input.ndim)
    x = _masked_input("logsumexp", input, mask)
    return minitorch.logsumexp(x, dims, keepdim=keepdim).to(dtype=dtype)


def logaddexp(input, other, *, dtype=None, input_mask=None, other_mask=None) -> Tensor:
    """logaddexp of input and other, each masked by its own mask (identity -inf). Mirrors
    torch.masked.logaddexp."""
    if _is_masked_tensor(input) or _is_masked_tensor(other):
        from minitorch.masked._maskedtensor import _masked_logaddexp

        return _masked_logaddexp(input, other, dtype=dtype)
    dtype = input.dtype if dtype is None else dtype
    a = _masked_input("logaddexp", input, input_mask)
    b = _masked_input("logaddexp", other, other_mask)
    return minitorch.logaddexp(a, b).to(dtype=dtype)


@_from_masked_tensor
def norm(input, ord=2.0, dim=None, *, keepdim=False, dtype=None, mask=None) -> Tensor:
    """Vector norm of the masked-in elements (identity 0, or inf for ord=-inf). Mirrors
    torch.masked.norm."""
    dtype = input.dtype if dtype is None else dtype
    x = _masked_input("norm", input, mask, ord)
    dims = _canonical_dim(dim, input.ndim)
    return minitorch.linalg.vector_norm(x, ord, dims, bool(keepdim), dtype=dtype)


def _std_var(input, dim, unbiased, correction, keepdim, dtype, mask, take_sqrt) -> Tensor:
    if unbiased is not None and correction is not None:
        raise AssertionError("Only one of unbiased and correction may be given")
    if correction is not None:
        correction = float(correction)
    else:
        correction = 0.0 if unbiased is False else 1.0
    if dtype is None:
        dtype = input.dtype if input.dtype.is_floating_point else minitorch.float32
    compute_dtype = dtype if dtype.is_floating_point else minitorch.float32
    if mask is None:
        mask = minitorch.ones(input.shape, dtype=minitorch.bool, device=input.device)
    inmask = _input_mask(input, mask)
    count = sum(inmask, dim, keepdim=True)
    sample_mean = sum(input, dim, keepdim=True, dtype=dtype, mask=inmask) / count
    x = input - sample_mean
    total = sum(x * x, dim, keepdim=keepdim, dtype=compute_dtype, mask=inmask)
    if not keepdim:
        count = count.reshape(total.shape)
    if correction != 0:
        count = minitorch.clamp_min(count.to(compute_dtype) - correction, 0)
    out = (total / count).to(dtype=dtype)
    return minitorch.sqrt(out) if take_sqrt else out


@_from_masked_tensor
def var(
    input, dim=None, unbiased=None, *, correction=None, keepdim=False, dtype=None, mask=None
) -> Tensor:
    """Variance of the masked-in elements (correction 1 unless unbiased=False or correction=
    says otherwise); NaN where all are masked out. Mirrors torch.masked.var."""
    return _std_var(input, dim, unbiased, correction, keepdim, dtype, mask, take_sqrt=False)


@_from_masked_tensor
def std(
    input, dim=None, unbiased=None, *, correction=None, keepdim=False, dtype=None, mask=None
) -> Tensor:
    """Standard deviation of the masked-in elements; NaN where all are masked out. Mirrors
    torch.masked.std."""
    return _std_var(input, dim, unbiased, correction, keepdim, dtype, mask, take_sqrt=True)


# --- scans and normalizations (same shape out) -------------------------------------------------


@_from_masked_tensor
def cumsum(input, dim, *, dtype=None, mask=None) -> Tensor:
    """Cumulative sum along dim, masked-out elements counting as 0. Mirrors torch.masked.cumsum."""
    dtype = input.dtype if dtype is None else dtype
    d = _canonical_dim(dim, input.ndim)[0]
    return minitorch.cumsum(_masked_input("sum", input, mask), d, dtype=dtype).to(dtype=dtype)


@_from_masked_tensor
def cumprod(input, dim, *, dtype=None, mask=None) -> Tensor:
    """Cumulative product along dim, masked-out elements counting as 1. Mirrors
    torch.masked.cumprod."""
    dtype = input.dtype if dtype is None else dtype
    d = _canonical_dim(dim, input.ndim)[0]
    return minitorch.cumprod(_masked_input("prod", input, mask), d, dtype=dtype).to(dtype=dtype)


def _normalized(fn, identity: str, input, dim, dtype, mask) -> Tensor:
    """fn (F.softmax, ...) along dim of input whose masked-out elements take `identity`'s value
    (-inf for "amax": they get 0 probability)."""
    dtype = input.dtype if dtype is None else dtype
    return fn(_masked_input(identity, input, mask), _canonical_dim(dim, input.ndim)[0], dtype=dtype)


@_from_masked_tensor
def softmax(input, dim, *, dtype=None, mask=None) -> Tensor:
    """softmax along dim over the masked-in elements: 0 at masked-out ones, NaN where all are
    masked out. Mirrors torch.masked.softmax."""
    import minitorch.nn.functional as F

    return _normalized(F.softmax, "amax", input, dim, dtype, mask)


@_from_masked_tensor
def log_softmax(input, dim, *, dtype=None, mask=None) -> Tensor:
    """log_softmax along dim over the masked-in elements: -inf at masked-out ones, NaN where all
    are masked out. Mirrors torch.masked.log_softmax."""
    import minitorch.nn.functional as F

    return _normalized(F.log_softmax, "amax", input, dim, dtype, mask)


@_from_masked_tensor
def softmin(input, dim, *, dtype=None, mask=None) -> Tensor:
    """softmin along dim over the masked-in elements: 0 at masked-out ones, NaN where all are
    masked out. Mirrors torch.masked.softmin."""
    import minitorch.nn.functional as F

    return _normalized(F.softmin, "amin", input, dim, dtype, mask)


@_from_masked_tensor
def normalize(input, ord, dim, *, eps=1e-12, dtype=None, mask=None) -> Tensor:
    """input divided by max(norm(input, ord, dim), eps), the norm over masked-in elements;
    masked-out elements become 0. Mirrors torch.masked.normalize."""
    dtype = input.dtype if dtype is None else dtype
    x = _masked_input("sum", input, mask)
    nrm = norm(input, ord, dim, keepdim=True, dtype=dtype, mask=mask)
    return x / minitorch.maximum(nrm, nrm.new_full([], eps))
