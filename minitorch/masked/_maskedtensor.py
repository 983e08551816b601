"""MaskedTensor: a tensor and a same-shape bool mask saying which elements are specified.

Mirrors torch.masked.MaskedTensor (a prototype in torch), for a documented subset:

- construction: `masked_tensor(data, mask, requires_grad=False)` (copies data),
  `as_masked_tensor(data, mask)` (differentiable in data), `is_masked_tensor(a)`, torch's errors and
  its prototype UserWarning;
- `get_data()`, `get_mask()`, `to_tensor(value)`, `shape`/`size()`/`dim()`/`ndim`/`dtype`/`device`/
  `numel()`, `requires_grad`, `grad`, `backward()`, `detach()`, basic indexing, torch's repr;
- the masked reductions as methods (`sum`, `prod`, `amax`, `amin`, `argmax`, `argmin`, `mean`,
  `var`, `std`, `softmax`, `log_softmax`, `softmin`), returning MaskedTensors whose mask says
  which outputs had at least one specified input;
- unary pointwise methods (`exp`, `sin`, `abs`, `pow`, `clamp`, ...) and binary operators and
  methods (`+ - * / // % **`, comparisons, `add`, `mul`, `maximum`, ...) keeping the mask; two
  MaskedTensors must have equal masks (torch's ValueError).

Differences from torch: MaskedTensor is not a Tensor subclass (minitorch calls a subclass's own
__torch_function__ for its methods and operators only, not for torch.* functions: NOTE [ Tensor
subclasses ]), so torch-namespace functions (`minitorch.sum(mt)`, `F.softmax(mt)`) do not
accept it: call its methods or the minitorch.masked functions (which, as torch's, return plain
tensors for MaskedTensor input). `as_masked_tensor(x, mask)` gives x a plain-Tensor gradient
(zero at masked-out elements that no op read) where torch's is a MaskedTensor. The
log_softmax and softmin methods work (torch's prototype raises). No sparse layouts.
"""

from __future__ import annotations

import warnings

import minitorch
from minitorch._tensor import Tensor
from minitorch.masked import _ops

__all__ = ["MaskedTensor", "as_masked_tensor", "is_masked_tensor", "masked_tensor"]

_PROTOTYPE_WARNING = (
    "The PyTorch API of MaskedTensors is in prototype stage and will change in the near future. "
    "Please open a Github issue for features requests and see our documentation on the "
    "torch.masked module for further information about the project."
)
_SUPPORTED = ("float16", "float32", "float64", "bool", "int8", "int16", "int32", "int64")
# reductions: the output mask is `any` of the input mask over the reduced dims
_REDUCTIONS = ("sum", "prod", "amax", "amin", "argmax", "argmin", "mean", "var", "std")
# same-shape ops: the output mask is the input mask
_NORMALIZATIONS = ("softmax", "log_softmax", "softmin")
_UNARY = (
    "abs absolute acos arccos acosh arccosh asin arcsin asinh arcsinh atan arctan atanh arctanh "
    "bitwise_not ceil clamp clip cos cosh deg2rad digamma erf erfc erfinv exp exp2 expm1 fix "
    "floor frac lgamma log log10 log1p log2 logit i0 isnan nan_to_num neg negative positive pow "
    "rad2deg reciprocal round rsqrt sigmoid sign sgn signbit sin sinc sinh sqrt square tan tanh "
    "trunc"
).split()
_BINARY = (
    "add atan2 arctan2 bitwise_and bitwise_or bitwise_xor div divide floor_divide fmod logaddexp "
    "logaddexp2 mul multiply remainder sub subtract true_divide eq ne le ge greater greater_equal "
    "gt less_equal lt less maximum minimum fmax fmin not_equal"
).split()


def is_masked_tensor(obj, /) -> bool:
    """Whether obj is a MaskedTensor. Mirrors torch.masked.is_masked_tensor."""
    return isinstance(obj, MaskedTensor)


class MaskedTensor:
    """data with a bool mask of its specified elements. Mirrors torch.masked.MaskedTensor (see
    the module docstring for the supported subset)."""

    __slots__ = ("_masked_data", "_masked_mask")

    def __init__(self, data, mask, requires_grad=False):
        if is_masked_tensor(data) or not isinstance(data, Tensor):
            raise TypeError("data must be a Tensor")
        if is_masked_tensor(mask) or not isinstance(mask, Tensor):
            raise TypeError("mask must be a Tensor")
        warnings.warn(_PROTOTYPE_WARNING, UserWarning, stacklevel=2)
        if data.requires_grad:
            warnings.warn(
                "It is not recommended to create a MaskedTensor with a tensor that "
                "requires_grad. To avoid this, you can use data.detach().clone()",
                UserWarning,
                stacklevel=2,
            )
        _validate(data, mask)
        data = data.clone()
        if requires_grad:  # the MaskedTensor is the leaf: its data collects the gradient
            data = data.detach().requires_grad_()
        self._masked_data, self._masked_mask = data, mask.clone()

    @classmethod
    def _wrap(cls, data: Tensor, mask: Tensor) -> MaskedTensor:
        """An op's result: no copy, no warning, the autograd graph kept."""
        _validate(data, mask)
        out = object.__new__(cls)
        out._masked_data, out._masked_mask = data, mask
        return out

    # --- the parts -----------------------------------------------------------------------------

    def get_data(self) -> Tensor:
        """The data, masked-out elements included; gradients flow back into this MaskedTensor."""
        return self._masked_data.view_as(self._masked_data)

    def get_mask(self) -> Tensor:
        return self._masked_mask

    def to_tensor(self, value) -> Tensor:
        """The data with masked-out elements replaced by value."""
        return self._masked_data.masked_fill(~self._masked_mask, value)

    shape = property(lambda self: self._masked_data.shape)
    dtype = property(lambda self: self._masked_data.dtype)
    device = property(lambda self: self._masked_data.device)
    ndim = property(lambda self: self._masked_data.ndim)
    requires_grad = property(lambda self: self._masked_data.requires_grad)

    def size(self, dim=None):
        return self._masked_data.size() if dim is None else self._masked_data.size(dim)

    def dim(self) -> int:
        return self._masked_data.dim()

    def numel(self) -> int:
        return self._masked_data.numel()

    @property
    def grad(self):
        grad = self._masked_data.grad
        return None if grad is None else MaskedTensor._wrap(grad, self._masked_mask)

    def backward(self, gradient=None, retain_graph=None, create_graph=False):
        if is_masked_tensor(gradient):
            gradient = gradient._masked_data
        self._masked_data.backward(gradient, retain_graph, create_graph)

    def detach(self) -> MaskedTensor:
        return MaskedTensor._wrap(self._masked_data.detach(), self._masked_mask)

    def __getitem__(self, index) -> MaskedTensor:
        return MaskedTensor._wrap(self._masked_data[index], self._masked_mask[index])

    def __repr__(self) -> str:
        if self.dim() == 0:
            specified = bool(self._masked_mask)
            text = _format(self._masked_data.item()) if specified else "--"
            return f"MaskedTensor({text}, {specified})"
        body = _masked_str(self._masked_data.tolist(), self._masked_mask.tolist(), self.ndim)
        return "MaskedTensor(\n" + "\n".join("  " + line for line in body.split("\n")) + "\n)"

    # --- masked reductions and normalizations ----------------------------------------------------

    def _reduce(self, name, *args, **kwargs) -> MaskedTensor:
        out = getattr(_ops, name).__wrapped__(
            self._masked_data, *args, mask=self._masked_mask, **kwargs
        )
        if name in _NORMALIZATIONS:
            return MaskedTensor._wrap(out, self._masked_mask)
        dim = args[0] if args else kwargs.get("dim")
        dims = _ops._canonical_dim(dim, self.ndim)
        mask = self._masked_mask
        for d in reversed(dims):
            mask = mask.any(dim=d, keepdim=bool(kwargs.get("keepdim", False)))
        return MaskedTensor._wrap(out, mask)

    # --- pointwise ops ---------------------------------------------------------------------------

    def _unary(self, name, *args, **kwargs) -> MaskedTensor:
        if any(isinstance(a, Tensor) or is_masked_tensor(a) for a in args):
            raise TypeError("MaskedTensor unary ops do not support additional Tensor arguments")
        out = getattr(minitorch, name)(self._masked_data, *args, **kwargs)
        return MaskedTensor._wrap(out, self._masked_mask)

    def _binary(self, name, other, reflected=False, **kwargs) -> MaskedTensor:
        if kwargs:
            raise ValueError("len(kwargs) must equal 0")
        if is_masked_tensor(other):
            if other.shape != self.shape:
                raise ValueError("input1 and input2 must have the same size for binary functions.")
            # torch compares the masks on the host too: a documented read of device data
            if not bool(minitorch.equal(self._masked_mask, other._masked_mask)):
                raise ValueError(
                    "Input masks must match. If you need support for this, please open an "
                    "issue on Github."
                )
            other = other._masked_data
        a, b = (other, self._masked_data) if reflected else (self._masked_data, other)
        return MaskedTensor._wrap(getattr(minitorch, name)(a, b), self._masked_mask)

    __add__ = lambda self, other: self._binary("add", other)  # noqa: E731
    __radd__ = lambda self, other: self._binary("add", other, True)  # noqa: E731
    __sub__ = lambda self, other: self._binary("sub", other)  # noqa: E731
    __mul__ = lambda self, other: self._binary("mul", other)  # noqa: E731
    __rmul__ = lambda self, other: self._binary("mul", other, True)  # noqa: E731
    __truediv__ = lambda self, other: self._binary("div", other)  # noqa: E731
    __rtruediv__ = lambda self, other: self._binary("div", other, True)  # noqa: E731
    __floordiv__ = lambda self, other: self._binary("floor_divide", other)  # noqa: E731
    __mod__ = lambda self, other: self._binary("remainder", other)  # noqa: E731
    __pow__ = lambda self, other: self._unary("pow", other)  # noqa: E731
    __eq__ = lambda self, other: self._binary("eq", other)  # noqa: E731
    __ne__ = lambda self, other: self._binary("ne", other)  # noqa: E731
    __lt__ = lambda self, other: self._binary("lt", other)  # noqa: E731
    __le__ = lambda self, other: self._binary("le", other)  # noqa: E731
    __gt__ = lambda self, other: self._binary("gt", other)  # noqa: E731
    __ge__ = lambda self, other: self._binary("ge", other)  # noqa: E731
    __neg__ = lambda self: self._unary("neg")  # noqa: E731
    __abs__ = lambda self: self._unary("abs")  # noqa: E731
    __hash__ = object.__hash__


def _method(kind, name):
    def method(self, *args, **kwargs):
        return getattr(self, kind)(name, *args, **kwargs)

    method.__name__ = method.__qualname__ = name
    method.__doc__ = f"Mirrors torch.Tensor.{name} on a MaskedTensor."
    return method


# the named methods: one line each would be 100 lines of the same call
for _name in _REDUCTIONS + _NORMALIZATIONS:
    setattr(MaskedTensor, _name, _method("_reduce", _name))
for _name in _UNARY:
    setattr(MaskedTensor, _name, _method("_unary", _name))
for _name in _BINARY:
    setattr(MaskedTensor, _name, _method("_binary", _name))


def _validate(data: Tensor, mask: Tensor) -> None:
    if mask.dtype != minitorch.bool:
        raise TypeError("mask must have dtype bool.")
    if str(data.dtype).rpartition(".")[2] not in _SUPPORTED:
        raise TypeError(f"{data.dtype} is not supported in MaskedTensor.")
    if data.dim() != mask.dim():
        raise ValueError("data.dim() must equal mask.dim()")
    if data.shape != mask.shape:
        raise ValueError("data.size() must equal mask.size()")


def _format(value) -> str:
    return f"{value:8.4f}" if isinstance(value, float) else str(value)


def _masked_str(data, mask, ndim: int) -> str:
    """torch's layout: one bracketed line per 1-d row, masked-out elements as right-aligned --."""
    if ndim == 1:
        pairs = list(zip([_format(v) for v in data], mask, strict=True))
        width = max((len(s) if m else 8 for s, m in pairs), default=0)
        return "[" + ", ".join(s if m else "--".rjust(width) for s, m in pairs) + "]"
    rows = [_masked_str(d, m, ndim - 1) for d, m in zip(data, mask, strict=True)]
    rows = ["\n".join("  " + line for line in row.split("\n")) for row in rows]
    return "[\n" + ",\n".join(rows) + "\n]"


def masked_tensor(data, mask, requires_grad=False) -> MaskedTensor:
    """A MaskedTensor holding a copy of data. Mirrors torch.masked.masked_tensor."""
    return MaskedTensor(data, mask, requires_grad)


def as_masked_tensor(data, mask) -> MaskedTensor:
    """A MaskedTensor whose data stays differentiable in `data`. Mirrors
    torch.masked.as_masked_tensor."""
    if is_masked_tensor(data) or not isinstance(data, Tensor):
        raise TypeError("data must be a Tensor")
    if is_masked_tensor(mask) or not isinstance(mask, Tensor):
        raise TypeError("mask must be a Tensor")
    warnings.warn(_PROTOTYPE_WARNING, UserWarning, stacklevel=2)
    return MaskedTensor._wrap(data.clone(), mask.clone())


def _masked_reduction(fn, input: MaskedTensor, *args, **kwargs) -> Tensor:
    """A minitorch.masked function given a MaskedTensor: its mask is the mask (torch returns a
    plain tensor here)."""
    return fn(input.get_data(), *args, mask=input.get_mask(), **kwargs)


def _masked_logaddexp(input, other, *, dtype=None) -> Tensor:
    def parts(a):
        return (a.get_data(), a.get_mask()) if is_masked_tensor(a) else (a, None)

    (a, ma), (b, mb) = parts(input), parts(other)
    return _ops.logaddexp(a, b, dtype=dtype, input_mask=ma, other_mask=mb)
