"""Random sampling ops (bernoulli, multinomial, poisson, the in-place fills uniform_, normal_,
random_, exponential_, geometric_, log_normal_, cauchy_, bernoulli_) and the host-callback and
diagonal in-place methods (fill_diagonal_, apply_, map_).

Every draw comes from the seeded generator of the tensor's device (see minitorch/random.py).

On the CPU (and the strict test device) the fills, bernoulli, random_ and multinomial draw
torch's numbers (NOTE [ torch's CPU streams ] in minitorch/_backend/torch_stream.py).

A strided (non-contiguous) tensor is filled in its memory order, as torch's (_in_memory_order).

Differences from torch: poisson draws minitorch's numbers.
On a device other than the CPU, checks that need the tensor's values (probabilities in
[0, 1], non-negative Poisson rates, valid multinomial weights) are skipped: they would read the
device's data back to the host.
"""

from __future__ import annotations

import itertools
import math
import warnings

from minitorch import _dtype
from minitorch._arg_errors import REQUIRED, missing_positional, too_many_positional
from minitorch._backend import backend_of, cpu
from minitorch._backend import torch_stream as _ts
from minitorch._backend import torch_stream_counts as _tsc
from minitorch._backend import torch_stream_multinomial as _tsm
from minitorch._backend import torch_stream_normal as _tsn
from minitorch._memory_format import _overlapping
from minitorch._ops._common import (
    check_bool,
    check_int,
    is_number,
    no_overload,
    number,
    quiet,
    type_name,
)
from minitorch._ops.inplace import apply_inplace, write_out
from minitorch._ops.reduction import _MISSING
from minitorch._tensor import Tensor, _make, _writable_alias
from minitorch._tensor_methods import _at
from minitorch.autograd.function import Function, name_node
from minitorch.autograd.grad_mode import is_grad_enabled as grad_enabled
from minitorch.autograd.grad_mode import no_grad
from minitorch.random import (
    Generator,
    _dtype_label,
    _floats,
    _fmt_number,
    _int_arg,
    _sample,
    _stream,
    torch_floats,
)

__all__ = ["bernoulli", "multinomial", "poisson", "_standard_gamma", "_sample_dirichlet"]

# The names in_place methods use for the element type in a few of torch's messages.
_C_NAMES = {
    "int64": "long int",
    "int32": "int",
    "int16": "short int",
    "int8": "signed char",
    "uint8": "unsigned char",
    "bool": "bool",
    "uint16": "short unsigned int",
    "uint32": "unsigned int",
    "uint64": "long unsigned int",
}
# float dtype -> (mantissa digits, torch's C++ name) for random_'s exact-integer range
_FLOAT_DIGITS = {
    "float32": (24, "float"),
    "float64": (53, "double"),
    "float16": (11, "c10::Half"),
    "bfloat16": (8, "c10::BFloat16"),
}


# ---------------------------------------------------------------------------------------------
# Autograd: random outputs have zero gradient


def _node(name: str) -> type:
    """A Function for `name` whose output is values drawn independently of its input a:
    out = arr;  grad_a = 0.

    Not module-level classes: the op-test registry (tests/ops/test_ops.py) wants a gradcheck row
    for each, and a random output has no finite-difference derivative to check."""

    def forward(ctx, a, *, arr):
        return arr

    def backward(ctx, grad):
        return grad * 0

    attrs = {
        "_node_name": name,
        "forward": staticmethod(forward),
        "backward": staticmethod(backward),
        "__doc__": "out = values drawn independently of a;  grad_a = 0",
    }
    return type(name, (Function,), attrs)


_NODES = {
    name: _node(name)
    for name in (
        "BernoulliBackward0",
        "BernoulliBackward1",
        "BernoulliBackward2",
        "PoissonBackward0",
        "UniformBackward0",
        "NormalBackward0",
        "RandomBackward0",
        "RandomBackward1",
        "RandomBackward2",
        "ExponentialBackward0",
        "GeometricBackward0",
        "LogNormalBackward0",
        "CauchyBackward0",
    )
}


def _fill(self: Tensor, op: str, node: str, draw) -> Tensor:
    """self <- draw() in place (after the leaf / overlap checks), with a zero-gradient node."""
    cls = _NODES[node]
    return apply_inplace(self, lambda s: cls.apply(s, arr=_in_memory_order(draw(), self)), op)


def _in_memory_order(arr, t: Tensor):
    """arr, drawn element after element in row-major order, laid over t's elements in t's memory
    order instead, as torch's TensorIterator fills a strided tensor (its largest stride
    outermost): a transposed tensor, or the dropout mask that empty_like makes for a transposed
    input, gets torch's numbers. A contiguous t takes arr as it is."""
    data = t._data
    if data.ndim < 2 or data.flags.c_contiguous:
        return arr
    strides = data.strides
    order = sorted(range(data.ndim), key=lambda d: (-abs(strides[d]), d))
    if order == list(range(data.ndim)):
        return arr
    back = [0] * len(order)
    for i, d in enumerate(order):
        back[d] = i
    return arr.reshape(tuple(data.shape[d] for d in order)).transpose(back)


def _memory_axes(t: Tensor) -> list:
    """t's axes from the largest stride to the smallest (the order _in_memory_order walks)."""
    strides = t._data.strides
    if t._data.ndim < 2 or t._data.flags.c_contiguous:
        return list(range(t._data.ndim))
    return sorted(range(t._data.ndim), key=lambda d: (-abs(strides[d]), d))


# ---------------------------------------------------------------------------------------------
# Drawing helpers


def _work_dtype(dt):
    """The float dtype samples are computed in before the cast to dt."""
    return _dtype.float64 if dt is _dtype.float64 else _dtype.float32


def _uniform(t: Tensor, generator, op: str, dt=None):
    """Uniform [0, 1) samples of t's shape in the working float dtype of dt (default t's)."""
    dt = _work_dtype(t.dtype if dt is None else dt)
    return _floats(t._device, generator, op, "random", tuple(t.shape), dt)


def _torch_draw(t: Tensor, generator, op: str, fn):
    """fn(stream, n) -> n values (host) for t's elements in order, as t's dtype and shape on its
    device; None when t's device has no torch stream (CUDA)."""
    s = _stream(t._device, generator, op)
    if s is None:
        return None
    n = t.numel()
    arr = fn(s, n)
    if t.dtype in (_dtype.float16, _dtype.bfloat16) and arr.dtype.itemsize == 8:
        arr = arr.astype(_dtype.numpy_dtype(_dtype.float32))  # torch's double -> float -> half
    arr = arr.astype(_dtype.numpy_dtype(t.dtype), copy=False).reshape(tuple(t.shape))
    return s.wrap(arr)


def _cast(arr, t: Tensor):
    return arr.astype(_dtype.numpy_dtype(t.dtype), copy=False)


def _require_float(t: Tensor, kernel: str):
    if not t.dtype.is_floating_point:
        raise NotImplementedError(f"\"{kernel}\" not implemented for '{_dtype_label(t.dtype)}'")


def _continuous_only(t: Tensor, what: str, label: str):
    if not t.dtype.is_floating_point:
        raise RuntimeError(
            f"{what} distribution is a continuous probability distribution. dtype must be a "
            f"floating point but you specified {label}"
        )


def _number(x, op: str, name: str, pos: int | None = None) -> float:
    """A fill's float argument: a number (a NumPy one too) or a 0-d tensor (read on the host, as
    torch does); as torch's argument parser, a tensor that requires grad is no number."""
    if isinstance(x, Tensor) and x.ndim == 0 and not x.requires_grad:
        return x.item()
    if isinstance(x, Tensor) or x.__class__ is complex or not is_number(x):
        if x is REQUIRED:  # (a method's parameter defaulting to REQUIRED: x.geometric_())
            raise missing_positional(op, name)
        where = _at(pos, name, op)
        raise TypeError(f"{op}(): argument '{name}'{where} must be float, not {type_name(x)}")
    return number(x)


# ---------------------------------------------------------------------------------------------
# The in-place fills (Tensor methods)


def uniform_(self, from_=0, to=1, *, generator=None):
    """Fills with U[from, to). Mirrors torch.Tensor.uniform_."""
    lo, hi = _number(from_, "uniform_", "from", 1), _number(to, "uniform_", "to", 2)
    _require_float(self, "check_uniform_bounds")
    # torch's check_uniform_bounds: both ends within the dtype (a NaN end is not), in order,
    # and a width that the dtype holds
    top = float(_dtype.finfo(self.dtype).max)
    for which, v in (("from", lo), ("to", hi)):
        if not -top <= v <= top:
            raise RuntimeError(f"{which} is out of bounds for {_dtype.CPP_NAMES[self.dtype.name]}")
    if lo > hi:
        raise RuntimeError(
            f"uniform_ expects to return a [from, to) range, but found from={_fmt_number(lo)} > "
            f"to={_fmt_number(hi)}"
        )
    if hi - lo > top:
        raise RuntimeError(
            "uniform_ expects to-from <= std::numeric_limits<"
            f"{_dtype.scalar_name(self.dtype)}>::max(), but found "
            f"to={hi:g} and from={lo:g} which result in to-from to exceed the limit"
        )

    def draw():
        s = _stream(self._device, generator, "uniform_")
        if s is not None:
            return s.wrap(torch_floats(s, "random", tuple(self.shape), self.dtype, lo=lo, hi=hi))
        u = _uniform(self, generator, "uniform_")
        out = _cast(u * u.dtype.type(hi - lo) + u.dtype.type(lo), self)
        # u < 1, but rounding (of u * (to - from) + from, or of the float32 samples cast to
        # float16/bfloat16) can land on `to`, which torch never returns: cap at the largest
        # value of the dtype below `to`
        xp = backend_of(self._device).xp
        return xp.asarray(xp.minimum(out, _largest_below(hi, lo, out.dtype)))

    return _fill(self, "uniform_", "UniformBackward0", draw)


def _largest_below(to: float, from_: float, npdt):
    """The largest value of NumPy dtype npdt below `to` as the dtype holds it (a host scalar);
    `to` itself when the range is empty (uniform_(a, a) fills with a, as torch does)."""
    top = npdt.type(to)
    if not npdt.type(from_) < top:
        return top
    return backend_of(cpu).xp.nextafter(top, npdt.type(-math.inf))


def normal_(self, mean=0, std=1, *, generator=None):
    """Fills with N(mean, std^2). Mirrors torch.Tensor.normal_."""
    mean, std = _number(mean, "normal_", "mean", 1), _number(std, "normal_", "std", 2)
    if not std >= 0:  # torch checks std (NaN too) first; an empty tensor of any dtype passes
        raise RuntimeError(f"normal expects std >= 0.0, but found std {_fmt_number(std)}")
    if self.numel():
        _require_float(self, "normal_kernel_cpu")

    def draw():
        s = _stream(self._device, generator, "normal_")
        if s is not None:
            dense = self.is_contiguous()
            return s.wrap(
                torch_floats(s, "standard_normal", self.shape, self.dtype, mean, std, dense=dense)
            )
        z = _floats(
            self._device, generator, "normal_", "standard_normal", tuple(self.shape), self.dtype
        )
        return (z * z.dtype.type(std) + z.dtype.type(mean)).astype(z.dtype, copy=False)

    return _fill(self, "normal_", "NormalBackward0", draw)


def log_normal_(self, mean=1, std=2, *, generator=None):
    """Fills with exp(N(mean, std^2)). Mirrors torch.Tensor.log_normal_."""
    mean, std = _number(mean, "log_normal_", "mean", 1), _number(std, "log_normal_", "std", 2)
    _require_float(self, "log_normal_cpu")
    if not std > 0:
        raise RuntimeError(f"log_normal_ expects std > 0.0, but found std={_fmt_number(std)}")

    def draw():
        arr = _torch_draw(
            self, generator, "log_normal_", lambda s, n: _tsn.log_normal(s, n, mean, std)
        )
        if arr is not None:
            return arr
        dt = _work_dtype(self.dtype)
        z = _floats(
            self._device, generator, "log_normal_", "standard_normal", tuple(self.shape), dt
        )
        xp = backend_of(self._device).xp
        return _cast(xp.exp(z * z.dtype.type(std) + z.dtype.type(mean)), self)

    return _fill(self, "log_normal_", "LogNormalBackward0", draw)


def exponential_(self, lambd=1, *, generator=None):
    """Fills with Exponential(lambd) samples. Mirrors torch.Tensor.exponential_."""
    lambd = _number(lambd, "exponential_", "lambd", 1)
    _continuous_only(self, "Exponential", _dtype_label(self.dtype))
    if not lambd > 0:
        raise RuntimeError(
            f"exponential_ expects lambda > 0.0, but found lambda={_fmt_number(lambd)}"
        )

    def draw():
        arr = _torch_draw(
            self, generator, "exponential_", lambda s, n: _tsn.exponential(s, n, lambd)
        )
        if arr is not None:
            return arr
        u = _uniform(self, generator, "exponential_")
        xp = backend_of(self._device).xp
        return _cast(-xp.log1p(-u) / u.dtype.type(lambd), self)

    return _fill(self, "exponential_", "ExponentialBackward0", draw)


def cauchy_(self, median=0, sigma=1, *, generator=None):
    """Fills with Cauchy(median, sigma) samples. Mirrors torch.Tensor.cauchy_."""
    median, sigma = _number(median, "cauchy_", "median", 1), _number(sigma, "cauchy_", "sigma", 2)
    _continuous_only(self, "Cauchy", _C_NAMES.get(self.dtype.name, self.dtype.name))
    if not sigma > 0:
        raise RuntimeError(f"cauchy_ expects sigma > 0.0, but found sigma={_fmt_number(sigma)}")

    def draw():
        arr = _torch_draw(self, generator, "cauchy_", lambda s, n: _tsn.cauchy(s, n, median, sigma))
        if arr is not None:
            return arr
        u = _uniform(self, generator, "cauchy_")
        xp = backend_of(self._device).xp
        t = u.dtype.type
        return _cast(xp.tan(t(math.pi) * (u - t(0.5))) * t(sigma) + t(median), self)

    return _fill(self, "cauchy_", "CauchyBackward0", draw)


def geometric_(self, p, *, generator=None):
    """Fills with the number of Bernoulli(p) trials up to the first success (1, 2, ...).
    Mirrors torch.Tensor.geometric_."""
    p = _number(p, "geometric_", "p", 1)
    if self.dtype is _dtype.bool:
        raise NotImplementedError("\"geometric_cpu\" not implemented for 'Bool'")
    if not 0 < p < 1:
        raise RuntimeError(f"geometric_ expects p to be in (0, 1), but got p={_fmt_number(p)}")

    def draw():
        arr = _torch_draw(self, generator, "geometric_", lambda s, n: _tsn.geometric(s, n, p))
        if arr is not None:
            return arr
        u = _floats(
            self._device, generator, "geometric_", "random", tuple(self.shape), _dtype.float64
        )
        xp = backend_of(self._device).xp
        k = xp.ceil(xp.log1p(-u) / math.log1p(-p))
        return _cast(xp.maximum(k, 1.0), self)  # u == 0 would give 0 trials

    return _fill(self, "geometric_", "GeometricBackward0", draw)


def bernoulli_(self, p=0.5, *, generator=None):
    """Fills with 1 with probability p (a number or a tensor broadcast to self), else 0.
    Mirrors torch.Tensor.bernoulli_."""
    if generator is not None and not isinstance(generator, Generator):
        _no_bernoulli_overload("bernoulli_", {"p": p, "generator": generator})
    if isinstance(p, Tensor):
        if p._device is not self._device:
            raise RuntimeError(
                f"Expected all tensors to be on the same device, but found at least two devices, "
                f"{self._device} and {p._device}!"
            )
        p_arr = p.expand(self.shape)._data
        if p_arr.size:  # torch's kernel reads p as a float (or half) tensor
            _require_float(p, "bernoulli_tensor_cpu_p_")
        _check_probabilities(
            p,
            generator,
            "bernoulli_",
            lambda: p.expand(self.shape).permute(_memory_axes(self)).contiguous()._data,
        )
        node = "BernoulliBackward1"
    else:
        if not (p.__class__ is float or (is_number(p) and not isinstance(p, complex))):
            _no_bernoulli_overload("bernoulli_", {"p": p, "generator": generator})
        p = _number(p, "bernoulli_", "p")
        if not 0 <= p <= 1:
            raise RuntimeError(f"bernoulli_ expects p to be in [0, 1], but got p={p:g}")
        p_arr = p
        node = "BernoulliBackward2"

    def draw():
        s = _stream(self._device, generator, "bernoulli_")
        if s is not None:
            if isinstance(p, Tensor):
                # p's elements in the order self's are drawn (self's memory order, see _fill)
                pm = p.expand(self.shape).permute(_memory_axes(self)).contiguous()._data
                hits = _ts.bernoulli_tensor(s, s.unwrap(pm)).reshape(tuple(self.shape))
            else:
                hits = _ts.bernoulli_scalar(s, self.numel(), p).reshape(tuple(self.shape))
            return s.wrap(hits.astype(_dtype.numpy_dtype(self.dtype)))
        wide = self.dtype is _dtype.float64 or (isinstance(p, Tensor) and p.dtype is _dtype.float64)
        u = _uniform(self, generator, "bernoulli_", _dtype.float64 if wide else None)
        return _cast(u < p_arr, self)

    return _fill(self, "bernoulli_", node, draw)


def _check_probabilities(p: Tensor, generator=None, op="bernoulli", in_draw_order=None):
    """torch's error for a probability outside [0, 1] (or NaN). torch's kernel checks each p
    as it draws for it, so the generator has advanced by the draws of the elements before the
    first bad one; in_draw_order gives p's array in the order the elements are drawn."""
    if p._device is not cpu or not p._data.size:
        return  # see the module docstring: no host read-back on a device
    x = p._data
    if not bool(((x >= 0) & (x <= 1)).all()):
        s = _stream(p._device, generator, op)
        if s is not None:
            ordered = (x if in_draw_order is None else in_draw_order()).reshape(-1)
            first_bad = int((~((ordered >= 0) & (ordered <= 1))).argmax())
            _ts.bernoulli_tensor(s, ordered[:first_bad])
        raise RuntimeError(
            "Expected p_in >= 0 && p_in <= 1 to be true, but got false.  (Could this error "
            "message be improved?  If so, please report an enhancement request to PyTorch.)"
        )


def random_(self, *args, generator=None, **kwargs):
    """random_(from, to), random_(to) or random_(): integers uniform on [from, to), by default
    over every integer the dtype holds exactly. Mirrors torch.Tensor.random_."""
    if generator is not None and len(args) < 2 and not kwargs.keys() - {"to"}:
        _check_generator(generator, "random_", args, kwargs)
    lo, hi, node = _random_range(args, kwargs)
    dt = self.dtype
    if node == "RandomBackward2" and dt in _dtype.SHELL_UINTS:  # no kernel without bounds
        raise NotImplementedError(
            f"\"random_kernel_cpu\" not implemented for '{_dtype.scalar_name(dt)}'"
        )
    if dt.is_floating_point:
        digits, cname = _FLOAT_DIGITS[dt.name]
        dmin, dmax = -(1 << digits), 1 << digits
    elif dt is _dtype.bool:
        dmin, dmax = 0, 1
    else:
        info = _dtype.iinfo(dt)
        dmin, dmax = int(info.min), int(info.max)
    if dt.is_floating_point and node != "RandomBackward2":  # torch's update_from / update_to
        if hi is not None and lo >= hi:
            raise RuntimeError(
                f"random_ expects 'from' to be less than 'to', but got from={lo} >= to={hi}"
            )
        lo, hi = _ts.float_bounds(lo, hi, digits, _HALF_MAX if dt is _dtype.float16 else None)
        if hi is None and lo >= dmax:
            raise RuntimeError(
                "random_ expects 'from' casted to dtype to be less than or equal to 'to_inc' "
                f"casted to dtype, but got from={lo} > to_inc={dmax}"
            )
        if hi is not None and lo >= hi:
            raise RuntimeError(
                "random_ expects 'from' casted to dtype to be less than 'to' casted to dtype, "
                f"but got from={lo} >= to={hi}"
            )
    if hi is None:
        hi = dmax + 1
        if lo is None:
            lo = 0
    if lo >= hi:
        raise RuntimeError(
            f"random_ expects 'from' to be less than 'to', but got from={lo} >= to={hi}"
        )
    if dt is _dtype.float16 and (lo < -_HALF_MAX or hi - 1 > _HALF_MAX):
        # beyond what float16 can hold at all: an error (float32 and up hold every int64)
        which = "from" if lo < -_HALF_MAX else "to - 1"
        raise RuntimeError(f"{which} is out of bounds for c10::Half")
    if dt.is_floating_point:
        if node != "RandomBackward2" and (lo < dmin or hi - 1 > dmax):
            which = "from" if lo < dmin else "to - 1"
            warnings.warn(
                f"{which} is out of bounds [-(2^{digits}), 2^{digits}]. Due to precision "
                f"limitations {cname} can support discrete uniform distribution only within this "
                "range. This warning will become an error in version 1.7 release, please fix the "
                "code in advance",
                UserWarning,
                stacklevel=2,
            )
    else:
        if lo < dmin:
            raise RuntimeError(f"from is out of bounds for {_C_NAMES[dt.name]}")
        if hi - 1 > dmax or hi - 1 > _INT64_MAX:  # torch's bounds are int64s, uint64's too
            raise RuntimeError(f"to - 1 is out of bounds for {_C_NAMES[dt.name]}")
    shape = tuple(self.shape)
    npdt = _dtype.numpy_dtype(dt)

    def draw():
        s = _stream(self._device, generator, "random_")
        if s is not None:
            n = self.numel()
            if node == "RandomBackward2" and lo == 0 and hi == dmax + 1:
                vals = _ts.random_default(s, n, dt.name)
                if dt is _dtype.bool:
                    vals = vals & 1
            else:
                vals = _ts.random_from_to(s, n, hi - lo, lo, dt.name)
            return s.wrap(vals.astype(npdt).reshape(shape))
        # endpoint=True: hi - 1 may be int64's maximum, which an exclusive bound cannot name
        arr = _sample(
            self._device,
            generator,
            "random_",
            lambda rng: rng.integers(lo, hi - 1, size=shape, dtype=_INT64, endpoint=True),
        )
        return arr.astype(npdt, copy=False)

    return _fill(self, "random_", node, draw)


_INT64 = _dtype.numpy_dtype(_dtype.int64)
_INT64_MAX = (1 << 63) - 1
_HALF_MAX = 65504  # float16's largest finite value


# random_'s overloads as torch's parser lists them when the arguments match none.
_RANDOM_FORMS = tuple(
    f"{head}*, torch.Generator generator = None" for head in ("", "int from, int to, ", "int to, ")
)
# bernoulli's and bernoulli_'s overloads, as torch's parser lists them.
_BERNOULLI_FORMS = {
    "bernoulli": (
        "Tensor input, *, torch.Generator generator = None, Tensor out = None",
        "Tensor input, float p, *, torch.Generator generator = None",
    ),
    "bernoulli_": (
        "Tensor p, *, torch.Generator generator = None",
        "float p = 0.5, *, torch.Generator generator = None",
    ),
    "Tensor.bernoulli": (
        "*, torch.Generator generator = None",
        "float p, *, torch.Generator generator = None",
    ),
}


def _check_generator(generator, op: str, args: tuple, keywords: dict) -> None:
    """torch's TypeError when the `generator=` given to random_ (from fewer than two bounds) or
    Tensor.bernoulli is no Generator: torch's parser then matches none of the op's overloads
    and lists them. args are the positional arguments after the tensor, keywords the others
    given; torch names the keywords in about the reverse of the call's order (here: generator
    first, as the signatures end in it), and says for random_ given a bound why its no-argument
    overload did not match."""
    if isinstance(generator, Generator):
        return
    if op == "Tensor.bernoulli" and args:  # torch's parser matches the overload with a p
        raise TypeError(
            f"bernoulli(): argument 'generator' must be torch.Generator, not {type_name(generator)}"
        )
    if op != "random_":
        _no_bernoulli_overload(op, {"generator": generator})
    named = {"generator": generator, **{k: v for k, v in keywords.items() if v is not None}}
    got = [type_name(a) for a in args] + [f"{k}={type_name(v)}" for k, v in named.items()]
    text = ", ".join(got) + (", " if not args else "")
    err = no_overload(op, text, _RANDOM_FORMS)
    if args or named.keys() - {"generator"}:
        first = f" * ({_RANDOM_FORMS[0]})\n"
        why = "      didn't match because some of the keywords were incorrect: " + ", ".join(named)
        err = TypeError(str(err).replace(first, f"{first}{why}\n", 1))
    raise err


_RANDOM_FORMS = (
    "*, torch.Generator generator = None",
    "int from, int to, *, torch.Generator generator = None",
    "int to, *, torch.Generator generator = None",
)


def _random_args_error(args, kwargs) -> TypeError | None:
    """torch's parser error for random_ given arguments none of its overloads takes (an unknown
    keyword, three numbers, a float bound), or None where they are int-likes it takes."""
    from minitorch._ops._parser_errors import _fits, invalid_arguments

    if kwargs.keys() <= {"from", "to"} and len(args) <= 2:
        two = len(args) == 2 or "from" in kwargs or (args and "to" in kwargs)  # (from, to=None)
        given = dict(zip(("from", "to") if two else ("to",), args, strict=False), **kwargs)
        if all(
            _fits(v, "int", parsing=True) or (two and k == "to" and v is None)
            for k, v in given.items()
        ):
            return None
    return invalid_arguments("random_", _RANDOM_FORMS, args, dict(reversed(kwargs.items())))


def _random_range(args, kwargs):
    """(from, to, node name) of random_'s three overloads; None where the dtype decides."""
    if kwargs.keys() - {"from", "to"} or len(args) > 2 or any(
        v.__class__ is not int for v in (*args, *kwargs.values())
    ):
        error = _random_args_error(args, kwargs)
        if error is not None:
            raise error
    if len(args) == 2 or "from" in kwargs or (args and "to" in kwargs):
        params = dict(zip(("from", "to"), args, strict=False))
        for k, v in kwargs.items():
            if k in params:
                raise TypeError(f"random_() got multiple values for argument '{k}'")
            params[k] = v
        lo = _int_arg(params["from"], "random_", "from", 1)
        to = params.get("to")
        hi = None if to is None else _int_arg(to, "random_", "to", 2)
        return lo, hi, "RandomBackward0"
    if args or "to" in kwargs:
        hi = _int_arg(args[0] if args else kwargs["to"], "random_", "to", 1)
        return 0, hi, "RandomBackward1"
    return None, None, "RandomBackward2"


# ---------------------------------------------------------------------------------------------
# bernoulli, poisson, multinomial (out of place)


def bernoulli(input=REQUIRED, p=None, *extra, generator=None, out=None, **unknown):
    """bernoulli(input): 1 with probability input[i]; bernoulli(input, p): a tensor like input
    filled with Bernoulli(p) samples. Mirrors torch.bernoulli.

    Differences from torch: bernoulli(input, p) never requires grad (torch's result has a node
    that refuses backward).
    """
    if extra or unknown or input is REQUIRED:
        params = {"input": input, "p": p, "generator": generator, "out": out}
        raise _bernoulli_call_error("bernoulli", params, extra, unknown)
    if not isinstance(input, Tensor):
        raise TypeError(
            f"bernoulli(): argument 'input' (position 1) must be Tensor, not {type_name(input)}"
        )
    if (generator is not None and not isinstance(generator, Generator)) or not (
        out is None or isinstance(out, Tensor)
    ):
        params = {"input": input, "p": p, "generator": generator, "out": out}
        _no_bernoulli_overload("bernoulli", params)
    if p is not None:
        p = _check_bernoulli_p(p, (input, p), generator, out)
        with no_grad():
            result = _make(input._data.copy(), input._device, False, None)
            bernoulli_(result, p, generator=generator)
    else:
        _require_float(input, "bernoulli_tensor_cpu_p_")
        _check_probabilities(input, generator, "bernoulli", lambda: input.contiguous()._data)
        s = _stream(input._device, generator, "bernoulli")
        if s is not None:  # torch: an empty tensor like input, bernoulli_(input)
            hits = _ts.bernoulli_tensor(s, s.unwrap(input.contiguous()._data))
            arr = s.wrap(hits.astype(_dtype.numpy_dtype(input.dtype)))
        else:
            u = _uniform(input, generator, "bernoulli")
            arr = _cast(u < input._data, input)
        result = _NODES["BernoulliBackward0"].apply(input, arr=arr)
    if out is None:
        return result
    if isinstance(out, Tensor) and out.dtype is not result.dtype and not result._requires_grad:
        result = result.to(out.dtype)  # torch draws into out: any dtype takes the 0s and 1s
    return write_out(out, result)


def _bernoulli_call_error(op: str, params: dict, extra: tuple, unknown: dict) -> TypeError:
    """torch's parser's TypeError for a call of bernoulli (or Tensor.bernoulli: `op`) given
    `extra` positional arguments past p, keywords it has no parameter for (`unknown`) or no
    input: its overloads listed, or the one that fits the count named (NOTE [ Argument parser
    errors ]). params: the parameters by name in the signature's order (REQUIRED or None where
    not given). An error path."""
    from minitorch._call_site import call_arguments
    from minitorch._ops._parser_errors import invalid_arguments

    got = call_arguments("bernoulli")
    positional = [v for k, v in params.items() if k in ("input", "p")]
    if got is None:  # (unread: the options and unknown ones by keyword, a None p not given)
        called = [k for k in ("generator", "out") if params.get(k) is not None] + list(unknown)
        if not extra:
            positional = [v for v in positional if v is not None and v is not REQUIRED]
    else:
        called = got[1]
        positional = positional[: got[0] - len(extra)]
    params.update(unknown)
    keywords = {k: params[k] for k in reversed(called) if k in params}
    return invalid_arguments("bernoulli", _BERNOULLI_FORMS[op], (*positional, *extra), keywords)


def _check_bernoulli_p(p, args: tuple, generator, out=None):
    """bernoulli's p as a number (a 0-d tensor read as the float it holds, as torch's parser
    does); torch's TypeError when p is no float (a tensor of one or more elements, a tensor that
    requires grad, an array, None): only bernoulli_ takes a tensor of probabilities. args are
    the positional arguments (input, p) of torch.bernoulli, or (p,) of the method; the overload
    with a float p has no out=."""
    if out is None:
        if p.__class__ is float or (is_number(p) and not isinstance(p, complex)):
            return p
        if isinstance(p, Tensor) and p._data.ndim == 0 and not p._requires_grad:
            return p.item()
    params = dict(zip(("input", "p") if len(args) == 2 else ("p",), args, strict=True))
    if len(args) == 1 and isinstance(generator, Generator):
        # the method's overload with a generator and a float p is the one torch's parser tries
        where = "" if "p" in _call_keywords("bernoulli") else " (position 1)"
        raise TypeError(f"bernoulli(): argument 'p'{where} must be float, not {type_name(p)}")
    params.update(generator=generator, out=out)
    _no_bernoulli_overload("bernoulli" if len(args) == 2 else "Tensor.bernoulli", params)


def _call_keywords(op: str) -> tuple:
    """The keyword names of the user's call of `op` (() where they cannot be told). Reads the
    call's bytecode: for error paths only."""
    from minitorch._call_site import call_keywords

    return call_keywords(op, depth=2) or ()


def _no_bernoulli_overload(op: str, params: dict):
    """Raises torch's parser's TypeError for a call of bernoulli, bernoulli_ or Tensor.bernoulli
    whose arguments match none of its overloads. params: the arguments by name in the
    signature's order (None: not given). torch lists the positional ones' types, then name=type
    of the keywords in the reverse of the call's order (generator and out, keyword-only, in the
    reverse of the signature's where the call cannot be read), with a trailing ", " where none
    is positional. bernoulli_'s p is None where given so, absent where the call leaves it out."""
    from minitorch._call_site import call_arguments

    params = {k: v for k, v in params.items() if v is not None or op == "bernoulli_" and k == "p"}
    called = _call_keywords(op.removeprefix("Tensor."))
    if op == "bernoulli_" and "p" not in called and (call_arguments(op) or (1,))[0] == 0:
        del params["p"]  # (its default)
    named = [k for k in reversed(called) if k in params]
    named += [k for k in reversed(params) if k in ("generator", "out") and k not in named]
    got = [type_name(v) for k, v in params.items() if k not in named]
    text = ", ".join(got + [f"{k}={type_name(params[k])}" for k in named])
    text += ", " if not got else ""
    raise no_overload(op.removeprefix("Tensor."), text, _BERNOULLI_FORMS[op])


def poisson(input=REQUIRED, generator=None, *extra):
    """Poisson samples with rates input (same dtype). Mirrors torch.poisson."""
    if extra:
        raise too_many_positional("poisson", 2 + len(extra), 2, 1)
    if not isinstance(input, Tensor):
        if input is REQUIRED:  # (torch's parser's wording)
            raise missing_positional("poisson", "input")
        raise TypeError(
            f"poisson(): argument 'input' (position 1) must be Tensor, not {type_name(input)}"
        )
    if generator is not None and not isinstance(generator, Generator):
        from minitorch._ops._common import wrong_type

        raise wrong_type("poisson", generator, "generator", 2, "torch.Generator")
    _require_float(input, "poisson_cpu")
    if input._device is cpu and input._data.size and not bool((input._data >= 0).all()):
        s = _stream(input._device, generator, "poisson")
        if s is not None:  # torch's kernel checks each rate as it draws for it
            flat = input.contiguous()._data.astype(_dtype.numpy_dtype(_dtype.float64)).ravel()
            _tsc.poisson(s, flat[: int((~(flat >= 0)).argmax())])  # the rates before the bad one
        raise RuntimeError("invalid Poisson rate, expected rate to be non-negative")
    lam = input._data.astype(_dtype.numpy_dtype(_dtype.float64), copy=False)
    xp = backend_of(input._device).xp
    s = _stream(input._device, generator, "poisson")
    if s is not None:  # torch's draws (NOTE [ torch's count draws ])
        counts = s.wrap(_tsc.poisson(s, s.unwrap(lam)))
        return _NODES["PoissonBackward0"].apply(input, arr=_cast(counts, input))
    # NumPy's poisson gives a Python int for 0-d rates: asarray keeps a 0-d array for _cast.
    counts = _sample(input._device, generator, "poisson", lambda rng: xp.asarray(rng.poisson(lam)))
    return _NODES["PoissonBackward0"].apply(input, arr=_cast(counts, input))


def _gamma_input(input, op: str, kernel: str):
    """torch's checks of _standard_gamma / _sample_dirichlet's concentration."""
    if not isinstance(input, Tensor):
        raise TypeError(
            f"{op}(): argument 'input' (position 1) must be Tensor, not {type_name(input)}"
        )
    # torch's CPU kernels take float32 and float64 only (its CUDA ones take half too)
    dt = input.dtype
    if not dt.is_floating_point or (
        input._device is cpu and dt is not _dtype.float32 and dt is not _dtype.float64
    ):
        raise NotImplementedError(f"\"{kernel}\" not implemented for '{_dtype_label(dt)}'")


def _standard_gamma(input, generator=None):
    """Gamma(input, 1) samples, clamped to the dtype's smallest positive value (a concentration
    that is not positive gives that value). Mirrors torch._standard_gamma: differentiable with
    respect to input by implicit reparameterisation (NOTE [ Implicit gamma reparameterisation ]
    in minitorch/distributions/gamma.py)."""
    _gamma_input(input, "_standard_gamma", "gamma_cpu")
    # distributions sits above _ops; imported on first use, as this family is
    from minitorch.distributions.gamma import _rsample_standard_gamma

    return _rsample_standard_gamma(input, generator)


def _sample_dirichlet(input, generator=None):
    """Dirichlet(input) samples over the last dim: normalised standard-gamma draws, clamped to
    [tiny, the largest value below 1] as torch's are. Mirrors torch._sample_dirichlet (no
    derivative: the result requires grad when input does, and its backward raises)."""
    _gamma_input(input, "_sample_dirichlet", "dirichlet")
    from minitorch._ops.sorting import no_derivative
    from minitorch.distributions.gamma import _standard_gamma as draw_gamma

    s = _stream(input._device, generator, "_sample_dirichlet")
    if s is not None:  # torch's draws and arithmetic (float64 gammas)
        from minitorch._backend.torch_stream_gamma import dirichlet_sample

        arr = s.wrap(dirichlet_sample(s, s.unwrap(input._data)))
        return no_derivative(_make(arr, input._device, False, None), (input,), "_sample_dirichlet")
    with no_grad():
        g = draw_gamma(input, generator)
        finfo = _dtype.finfo(input.dtype)
        # all-tiny rows (non-positive concentrations) come out uniform, as in torch
        out = (g / g.sum(-1, keepdim=True)).clamp(min=finfo.tiny, max=1 - finfo.eps / 2)
    return no_derivative(out, (input,), "_sample_dirichlet")


def multinomial(input, num_samples=_MISSING, replacement=False, *extra, generator=None, out=None):
    """Indices drawn from the categories of each row of input (weights, not necessarily
    normalised). Mirrors torch.multinomial (int64, shape (num_samples,) or (rows, num_samples)).

    On the CPU torch's numbers and kernels (NOTE [ torch's multinomial ] in
    minitorch/_backend/torch_stream.py): with replacement a binary search of the normalised
    running sum; without, the num_samples largest keys p / Exp(1). On other devices the same
    two algorithms on the device's own stream (inverse CDF; the smallest -log(u) / w).
    """
    if extra:  # (num_samples left out: below)
        raise too_many_positional("multinomial", 3 + len(extra), 3, 2)
    if not isinstance(input, Tensor):
        raise TypeError(
            f"multinomial(): argument 'input'{_at(1, 'input', 'multinomial')} must be Tensor, not "
            f"{type(input).__name__}"
        )
    if num_samples.__class__ is not int:  # x.multinomial(2.5) counts positions as a method's
        if num_samples is _MISSING:  # torch.multinomial(probs): torch's parser error
            raise missing_positional("multinomial", "num_samples")
        if isinstance(num_samples, Tensor) and num_samples.numel() == 1 and num_samples.ndim:
            # torch's SymInt num_samples: an integer tensor of one element, of any rank, too
            num_samples = num_samples.reshape(())
        num_samples = check_int("multinomial", num_samples, "num_samples", 2)
    num_samples = _int_arg(num_samples, "multinomial", "num_samples", 2)
    if replacement.__class__ is not bool:
        check_bool("multinomial", replacement, "replacement", 3)
    if isinstance(out, Tensor) and out.dtype is not _dtype.int64:  # no cast into out=
        raise RuntimeError(
            f"multinomial expects Long tensor out, got: {_dtype.scalar_name(out.dtype)}"
        )
    if input.ndim not in (1, 2):
        raise RuntimeError("prob_dist must be 1 or 2 dim")
    if not input.dtype.is_floating_point:
        raise RuntimeError(
            "multinomial only supports floating-point dtypes for input, got: "
            f"{_dtype_label(input.dtype)}"
        )
    if num_samples <= 0:
        raise RuntimeError("cannot sample n_sample <= 0 samples")
    n = input.shape[-1]
    with_replacement = replacement and num_samples > 1  # torch's kernel choice
    if not replacement and num_samples > n:
        raise RuntimeError(
            "cannot sample n_sample > prob_dist.size(-1) samples without replacement"
        )
    if n > 2**24:  # torch's kernel keeps category indices in float32
        raise RuntimeError("number of categories cannot exceed 2^24")
    dev = input._device
    if n == 0:
        if input.ndim == 2 and input.shape[0] == 0:  # no distributions: nothing to check
            empty = backend_of(dev).xp.zeros((0, num_samples), dtype=_INT64)
            result = _make(empty, dev, False, None)
            return result if out is None else write_out(out, result)
        if num_samples == 1:  # torch's one-sample path checks the weights with an aminmax
            raise RuntimeError(
                "aminmax(): cannot compute aminmax over an empty dimension as the operation has "
                "no identity."
            )
        raise RuntimeError("invalid multinomial distribution (sum of probabilities <= 0)")
    xp = backend_of(dev).xp
    w = input._data.reshape(-1, n).astype(_dtype.numpy_dtype(_dtype.float64))
    rows = w.shape[0]
    if dev is cpu and rows:
        try:
            with quiet(xp):  # weights summing past the largest float: torch warns of nothing
                _check_weights(w, with_replacement)
        except RuntimeError:
            s = _stream(dev, generator, "multinomial")
            if with_replacement and s is not None:
                # torch's kernel checks each row as it samples it: the rows before the first
                # bad one have drawn their samples
                with quiet(xp):
                    good = ((w >= 0) & (w < math.inf)).all(axis=1) & (w.sum(axis=1) > 0)
                before = input._data.reshape(-1, n)[: int(good.argmin())]
                _tsm.multinomial(s, before, num_samples, True, False)
            raise
    s = _stream(dev, generator, "multinomial")
    if s is not None:  # torch's numbers: NOTE [ torch's multinomial ]
        # torch fills its exponential draws in the memory order of empty_like(input): a
        # column-major one for an input whose rows are closer in memory than its columns
        # (transposed, or a strided slice of a transposed tensor); a zero stride (expand)
        # keeps the row-major order, as torch's infer_dense_strides does
        st = input.stride() if input.ndim == 2 else (0, 0)
        across = st[1] > st[0] or (st[1] == st[0] and n > rows)
        transposed = rows > 1 and n > 1 and st[0] > 0 and across
        p = s.unwrap(input._data).reshape(-1, n)
        idx = s.wrap(_tsm.multinomial(s, p, num_samples, with_replacement, transposed))
    elif with_replacement:
        u = _floats(dev, generator, "multinomial", "random", (rows, num_samples), _dtype.float64)
        cdf = xp.cumsum(w, axis=1)
        scaled = u * cdf[:, -1:]
        idx = (
            xp.stack([xp.searchsorted(cdf[r], scaled[r], side="right") for r in range(rows)])
            if rows
            else xp.zeros((0, num_samples), dtype=_INT64)
        )
        idx = xp.minimum(idx, n - 1).astype(_INT64, copy=False)
    else:
        u = _floats(dev, generator, "multinomial", "random", (rows, n), _dtype.float64)
        positive = w > 0
        keys = xp.where(positive, -xp.log1p(-u) / xp.where(positive, w, 1.0), xp.inf)
        idx = xp.argsort(keys, axis=1, kind="stable")[:, :num_samples].astype(_INT64)
    if input.ndim == 1:
        idx = idx.reshape(num_samples)
    result = _make(idx, dev, False, None)
    if out is None:
        return result
    if isinstance(out, Tensor) and out._data.shape != idx.shape:
        out.resize_(idx.shape)  # torch's kernel resizes out itself: no deprecation warning
    return write_out(out, result)


def _check_weights(w, with_replacement: bool):
    """torch's CPU checks of multinomial weights (a float64 host array, one row per dist)."""
    if with_replacement:
        # the with-replacement kernel reports the first bad entry (nan counts as < 0)
        flat = w.reshape(-1)
        bad = ~(flat >= 0) | (flat == math.inf)
        if bool(bad.any()):
            what = "= infinity or NaN" if flat[int(bad.argmax())] == math.inf else "< 0"
            raise RuntimeError(
                f"invalid multinomial distribution (encountering probability entry {what})"
            )
    elif not bool(((w >= 0) & (w < math.inf)).all()):
        raise RuntimeError("probability tensor contains either `inf`, `nan` or element < 0")
    if not bool((w.sum(axis=1) > 0).all()):
        raise RuntimeError("invalid multinomial distribution (sum of probabilities <= 0)")


# ---------------------------------------------------------------------------------------------
# fill_diagonal_, apply_, map_


def fill_diagonal_(self, fill_value, wrap=False):
    """Fills the main diagonal (all indices equal) in place; for a tall matrix with wrap=True
    the diagonal restarts every ncols + 1 rows. Mirrors torch.Tensor.fill_diagonal_."""
    if isinstance(fill_value, Tensor):
        # torch's argument parser takes a 0-d tensor as a Number only when it needs no gradient
        if fill_value._requires_grad or fill_value._data.ndim:
            raise TypeError(
                "fill_diagonal_(): argument 'fill_value' (position 1) must be Number, not Tensor"
            )
    elif is_number(fill_value):
        _dtype.fill_number(fill_value, self._data.dtype, "fill_diagonal_")  # overflow checks
    elif fill_value is REQUIRED:  # (the method's default: x.fill_diagonal_())
        raise missing_positional("fill_diagonal_", "fill_value")
    else:
        raise TypeError(
            "fill_diagonal_(): argument 'fill_value' (position 1) must be Number, not "
            f"{type_name(fill_value)}"
        )
    if wrap.__class__ is not bool:  # position 3 counting self: the method's position 2
        check_bool("fill_diagonal_", wrap, "wrap", 3)
    if self.ndim < 2:
        raise RuntimeError("dimensions must larger than 1")
    shape = tuple(self.shape)
    if self.ndim > 2 and len(set(shape)) != 1:
        raise RuntimeError("all dimensions of input must be of equal length")
    xp = backend_of(self._device).xp
    mask = xp.zeros(shape, dtype=bool)
    if self.ndim == 2:
        h, w = shape
        end = h * w if wrap else min(h, w) * w
        flat = xp.arange(0, end, w + 1)
        mask[flat // w, flat % w] = True
    else:
        i = xp.arange(shape[0])
        mask[(i,) * self.ndim] = True
    mask_t = _make(mask, self._device, False, None)
    if self._requires_grad and self._grad_fn is None and self._base is None and grad_enabled():
        # torch writes through a view of the diagonal, so a leaf gets the view-of-a-leaf words
        raise RuntimeError(
            "a view of a leaf Variable that requires grad is being used in an in-place operation."
        )
    # torch writes through strided views of the diagonal: its node is a CopySlices listing self
    return apply_inplace(
        self,
        lambda s: name_node(s.masked_fill(mask_t, fill_value), "CopySlices", shown=(0,)),
        "fill_diagonal_",
        (fill_value,),
    )


def _host_callback_checks(self, op: str):
    if self._device is not cpu:
        raise TypeError(f"{op} is only implemented on CPU tensors")
    if self._requires_grad:
        raise RuntimeError(
            f"Can't call {op}() on Variable that requires grad. Use var.detach().{op}() instead."
        )


def _to_element(value, is_float: bool, is_bool: bool):
    if not isinstance(value, (int, float)):
        raise TypeError(f"must be real number, not {type(value).__name__}")
    if is_bool:
        return bool(value)
    return float(value) if is_float else int(value)


def _write_elements(self, fn, others=None):
    """self[i] <- fn(self[i]) (fn(self[i], others[i]) when others is given), i in row-major order.
    As torch's apply_ and map_, it leaves the version counter alone: the callback runs outside
    autograd, on a tensor that does not require grad."""
    a = self._data
    dt = self.dtype
    is_float, is_bool = dt.is_floating_point, dt is _dtype.bool
    if not _overlapping(a):  # each element its own memory: read all, then write all at once
        mine = a.reshape(-1).tolist()
        if others is None:
            values = [fn(v) for v in mine]
        else:
            values = [fn(v, o) for v, o in zip(mine, others, strict=True)]
        conv = [_to_element(v, is_float, is_bool) for v in values]
        a[...] = backend_of(self._device).xp.asarray(conv, dtype=a.dtype).reshape(a.shape)
        return self
    # An expanded tensor: several elements share one memory cell. torch visits them in order,
    # each reading what the previous one wrote ([0.].expand(3).apply_(v + 1) gives [3., 3., 3.]),
    # through the memory that expand's read-only array hides.
    w = _writable_alias(a)
    for i, pos in enumerate(itertools.product(*(range(n) for n in a.shape))):
        v = w[pos].item()
        w[pos] = _to_element(fn(v) if others is None else fn(v, others[i]), is_float, is_bool)
    return self


def apply_(self, callable):
    """self[i] <- callable(self[i]) for every element, in Python. CPU only; slow.
    Mirrors torch.Tensor.apply_."""
    _host_callback_checks(self, "apply_")
    if not callable_(callable):
        raise TypeError(f"'{type(callable).__name__}' object is not callable")
    return _write_elements(self, callable)


def map_(self, tensor, callable):
    """self[i] <- callable(self[i], tensor[i]) with tensor broadcast to self, in Python. CPU only.
    Mirrors torch.Tensor.map_."""
    if not isinstance(tensor, Tensor):
        raise TypeError(
            f"map_(): argument 'other' (position 1) must be Tensor, not {type_name(tensor)}"
        )
    _host_callback_checks(self, "map_")
    if tensor.dtype is not self.dtype:
        want, got = _dtype.checked_type_name(self), _dtype.checked_type_name(tensor)
        raise TypeError(f"map_: expected {want} for 'other' (got {got})")
    if tensor._device is not cpu:
        raise TypeError("map_ is only implemented on CPU tensors")
    if tensor._requires_grad:
        raise RuntimeError(
            "Can't call map_() on Variable that requires grad. Use var.detach().map_() instead."
        )
    if not callable_(callable):
        raise TypeError(f"'{type(callable).__name__}' object is not callable")
    return _write_elements(self, callable, tensor.expand(self.shape)._data.reshape(-1).tolist())


callable_ = callable  # the builtin, shadowed by torch's argument name above
