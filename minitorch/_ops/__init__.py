"""Every built-in differentiable op: one Function each, grouped by family; the public functions."""

from __future__ import annotations

import functools as _functools
import types as _types

from minitorch import _tensor_methods
from minitorch._ops import indexing as _indexing
from minitorch._ops import pointwise as _pw
from minitorch._ops._common import _OperandTypeError, scalar_like, weak_scalar  # noqa: F401
from minitorch._ops.convert import *  # noqa: F403
from minitorch._ops.einsum_op import *  # noqa: F403
from minitorch._ops.indexing import *  # noqa: F403
from minitorch._ops.inplace import *  # noqa: F403
from minitorch._ops.linalg import *  # noqa: F403
from minitorch._ops.pointwise import *  # noqa: F403
from minitorch._ops.pointwise_more import *  # noqa: F403
from minitorch._ops.reduction import *  # noqa: F403
from minitorch._ops.shape import *  # noqa: F403
from minitorch._ops.shape_join import *  # noqa: F403

# See NOTE [ Late binding of ops ]
_tensor_methods._ops = __import__("sys").modules[__name__]

# NOTE [ Direct operator binding ]
# The hottest operators are the op functions themselves: `x * y` calls mul(x, y) with no method in
# between (one Python frame less on every op of every model, ~8% of a small op's cost; a debugger
# steps straight into the op). Each function takes (self, other) in the operator's order.
for _name, _fn in (
    ("__add__", _pw.add), ("__radd__", _pw.add), ("__sub__", _pw.sub), ("__mul__", _pw.mul),
    ("__rmul__", _pw.mul), ("__truediv__", _pw.div), ("__neg__", _pw.neg),
    ("__getitem__", _indexing.getitem),
):
    setattr(_tensor_methods.TensorMethods, _name, _fn)
del _name, _fn


# NOTE [ Lazy op families ]
# These families hold ops nothing needs at import (linear algebra, sorting, scatter/gather,
# special functions, logical and bitwise ops, softmax and the activations F imports, ...): each
# loads on the first use of one of its names, so `import minitorch` skips ~290 functions and
# their Function classes (minitorch's own share of the import, least of 15 runs side by side:
# 41 -> 21 ms, with the lazy return_types and torch.linalg). Every route to an op
# ends in this module's __getattr__: `minitorch.sort` (minitorch's own __getattr__ asks this
# module), `x.sort()` (Tensor methods look their op up here at call time: NOTE [ Late binding of
# ops ]) and `from minitorch._ops import sort`. Loading a family binds all its public names
# here, with the NumPy aliases of NOTE [ NumPy argument aliases ], so later calls find them as
# plain attributes. The table is each family's __all__ (tests/test_import_lazy.py checks that
# they agree); the families imported above are the ones the Tensor class and the ops on every
# step need (and their imports).
_LAZY_FAMILIES = {
    "activation": """
        selu celu selu_ celu_
    """,
    "cumulative": """
        cumsum cumprod cummax cummin logcumsumexp diff
    """,
    "distance": """
        cdist
    """,
    "grouped_mm": """
        _grouped_mm
    """,
    "linalg_factor": """
        cholesky qr svd orgqr ormqr geqrf eig symeig solve lstsq matrix_rank
    """,
    "linalg_matfn": """
        pinverse matrix_power matrix_exp
    """,
    "linalg_more": """
        addmm_ addbmm_ addmv_ baddbmm_ addr addr_ cross linalg_cross dist renorm renorm_ cov
        corrcoef block_diag vander linalg_vander chain_matmul linalg_multi_dot
        trapezoid trapz cumulative_trapezoid nuclear_norm frobenius_norm
    """,
    "linalg_solve": """
        inverse det slogdet logdet cholesky_solve cholesky_inverse triangular_solve
        lu_unpack lu lu_solve
    """,
    "lowrank": """
        svd_lowrank pca_lowrank
    """,
    "logical": """
        logical_and logical_or logical_xor logical_not bitwise_and bitwise_or bitwise_xor
        bitwise_not bitwise_left_shift bitwise_right_shift isclose allclose equal isnan
        isinf isposinf isneginf isfinite signbit logical_and_ logical_or_ logical_xor_
        logical_not_ bitwise_and_ bitwise_or_ bitwise_xor_ bitwise_not_ bitwise_left_shift_
        bitwise_right_shift_ greater greater_equal less less_equal not_equal
    """,
    "nn_kernels": """
        softmax log_softmax
    """,
    "pointwise_binary": """
        atan2 arctan2 fmod fmax fmin lerp addcmul addcdiv hypot logaddexp logaddexp2
        nan_to_num atan2_ arctan2_ fmod_ lerp_ addcmul_ addcdiv_ hypot_ nan_to_num_
    """,
    "pointwise_misc": """
        angle deg2rad rad2deg copysign float_power frexp gcd lcm heaviside ldexp nextafter
        positive negative absolute clamp_min clamp_max clip multiply subtract divide
        deg2rad_ rad2deg_ gcd_ lcm_ ldexp_ negative_ clamp_min_ clamp_max_ clip_
    """,
    "quantize": """
        fake_quantize_per_tensor_affine fake_quantize_per_channel_affine
        _fake_quantize_learnable_per_tensor_affine _fake_quantize_learnable_per_channel_affine
    """,
    "random_ops": """
        bernoulli multinomial poisson _standard_gamma _sample_dirichlet
    """,
    "reduction_more": """
        all any count_nonzero std var std_mean var_mean norm median nanmedian mode quantile
        nanquantile
    """,
    "scatter_gather": """
        gather scatter scatter_ scatter_add scatter_add_ scatter_reduce scatter_reduce_
        take_along_dim
    """,
    "segment": """
        segment_reduce
    """,
    "selection": """
        index_select index_add index_add_ index_copy index_copy_ index_fill index_fill_
        masked_fill masked_fill_ masked_select masked_scatter masked_scatter_ take put put_
        nonzero argwhere
    """,
    "shape_more": """
        diagonal diag diag_embed diagflat tril triu as_strided unfold flip fliplr flipud
        roll rot90
    """,
    "shape_repeat": """
        repeat tile repeat_interleave combinations
    """,
    "sorting": """
        sort argsort msort topk kthvalue unique unique_consecutive searchsorted bucketize
        bincount histc histogram isin
    """,
    "special": """
        erf erfc erfinv lgamma digamma polygamma logit xlogy erf_ erfc_ erfinv_ lgamma_
        digamma_ polygamma_ logit_ xlogy_ i0 sinc igamma igammac mvlgamma i0_ sinc_
    """,
    "tensor_misc": """
        is_complex is_signed is_nonzero is_same_size isreal is_conj is_neg is_inference conj
        conj_physical conj_physical_ resolve_conj resolve_neg real imag select fill detach
        detach_ unsafe_chunk unsafe_split unsafe_split_with_sizes nonzero_static
        empty_strided gradient histogramdd layout strided
    """,
    "view_variants": """
        select_scatter slice_scatter diagonal_scatter as_strided_scatter index_reduce
        index_reduce_ as_strided_ view_copy permute_copy t_copy transpose_copy diagonal_copy
        expand_copy squeeze_copy unsqueeze_copy select_copy slice_copy split_copy
        split_with_sizes_copy unbind_copy unfold_copy as_strided_copy detach_copy alias_copy
        narrow_copy
    """,
}
_LAZY_OPS = {name: family for family, names in _LAZY_FAMILIES.items() for name in names.split()}


def _public_names():
    # `from minitorch._ops import *` (in minitorch/__init__.py) exports the eager families' public
    # functions only, not the family module names (`linalg` must stay minitorch.linalg) nor the
    # lazy families' names (NOTE [ Lazy op families ]: minitorch's own __getattr__ serves those).
    import sys

    bound = vars(sys.modules[__name__])
    names = []
    for mod_name, mod in list(sys.modules.items()):
        family = mod_name.rpartition(".")[2]
        if not mod_name.startswith(__name__ + ".") or family.startswith("_"):
            continue
        if family not in _LAZY_FAMILIES and hasattr(mod, "__all__"):
            names.extend(n for n in mod.__all__ if n in bound)
    return sorted(set(names))


__all__ = _public_names()


# NOTE [ NumPy argument aliases ]
# torch's argument parser accepts NumPy's spellings `axis=` for `dim=` and `keepdims=` for
# `keepdim=` on every function that has those parameters; so does minitorch. The public functions
# that take `dim` (or `keepdim`) but not `axis` are wrapped once here, at import; those that spell
# the aliases themselves (sum, mean, ...) are left as they are. The wrapper also words an argument
# given twice as torch's parser does (NOTE [ Arguments given twice ]); `method`: fn is a Tensor
# method.
def _with_numpy_aliases(fn, method=None):
    @_functools.wraps(fn)
    def aliased(*args, **kwargs):
        if not kwargs:  # (no alias to read; Python refuses no argument as given twice)
            return fn(*args)
        if "axis" in kwargs:
            if "dim" in kwargs:  # (torch's parser: an unknown keyword, beside the dim it names)
                raise _alias_error(fn.__name__, args, kwargs, "axis", method)
            kwargs["dim"] = kwargs.pop("axis")
        if "keepdims" in kwargs:
            if "keepdim" in kwargs:
                raise _alias_error(fn.__name__, args, kwargs, "keepdims", method)
            kwargs["keepdim"] = kwargs.pop("keepdims")
        try:
            return fn(*args, **kwargs)
        except TypeError as e:  # (zero cost until raised)
            from minitorch._ops._parser_errors import given_twice_error

            error = given_twice_error(fn.__name__, args, kwargs, e, method)
            if error is e:
                raise
            raise error from None

    if fn.__name__ not in _INPUT_SPELLED_X:
        return aliased

    @_functools.wraps(fn)
    def spelled_x(*args, **kwargs):
        if "input" in kwargs:
            kwargs["x"] = kwargs.pop("input")
        return aliased(*args, **kwargs)

    return spelled_x


def _alias_error(op: str, args: tuple, kwargs: dict, alias: str, method) -> TypeError:
    """torch's TypeError for a call of `op` that gave a NumPy spelling (`alias`) beside torch's
    own: the alias is a keyword no parameter is left for. An error path."""
    from minitorch._ops._parser_errors import given_twice_error

    error = TypeError(f"{op}() got an unexpected keyword argument '{alias}'")
    return given_twice_error(op, args, kwargs, error, method)


# The functions whose tensor argument minitorch names `x`, as torch's documentation does, where
# torch's parser names it `input` (and takes `x` as that name's NumPy spelling): both keywords work
# (linalg.vector_norm(input=t) and (x=t)).
_INPUT_SPELLED_X = frozenset(("vector_norm",))


def _takes_dim(fn) -> bool:
    while hasattr(fn, "__wrapped__"):  # with_out (and sort's out= dtype check) wrap some
        fn = fn.__wrapped__
    code = getattr(fn, "__code__", None)
    if code is None:
        return False
    params = code.co_varnames[: code.co_argcount + code.co_kwonlyargcount]
    return ("dim" in params or "keepdim" in params) and "axis" not in params


# torch writes these in Python (torch/functional.py, torch/_tensor.py), past its parser: no aliases
_NO_NUMPY_ALIASES = frozenset(("norm", "split", "unique", "unique_consecutive"))
_NO_METHOD_ALIASES = _NO_NUMPY_ALIASES | {"unflatten"}  # (torch.unflatten is parsed)


def _add_numpy_aliases():
    here = __import__("sys").modules[__name__]
    for name in __all__:
        if name not in _NO_NUMPY_ALIASES and _takes_dim(getattr(here, name)):
            setattr(here, name, _with_numpy_aliases(getattr(here, name)))
    methods = _tensor_methods.TensorMethods
    for name, fn in list(vars(methods).items()):
        if not name.startswith("__") and name not in _NO_METHOD_ALIASES and _takes_dim(fn):
            setattr(methods, name, _with_numpy_aliases(fn, method=True))


_add_numpy_aliases()
assert scalar_like and weak_scalar  # used by Tensor's reflected operators through this module


def _pickle_by_name(names):
    """Lets each public function pickle by reference, as torch's do (`pickle.dumps(torch.cumsum)`,
    a `functools.partial` of one sent to a worker process): one that pickle could not find
    again under its module and qualified name (a NumPy-alias wrapper, which carries the name of
    the function it wraps; a function made by a factory, named `<locals>`) is given this
    module's binding as its name."""
    here = globals()
    modules = __import__("sys").modules
    for name in names:
        fn = here[name]
        if fn.__class__ is not _types.FunctionType:
            continue
        if getattr(modules.get(fn.__module__), fn.__qualname__, None) is not fn:
            fn.__module__ = __name__
            fn.__qualname__ = name


_pickle_by_name(__all__)


def _load_family(family):
    """Import a lazy family and bind its public names here (NOTE [ Lazy op families ])."""
    import importlib

    module = importlib.import_module(f"{__name__}.{family}")
    bound = globals()
    for name in module.__all__:
        fn = getattr(module, name)
        aliased = name not in _NO_NUMPY_ALIASES and _takes_dim(fn)
        bound[name] = _with_numpy_aliases(fn) if aliased else fn
    _pickle_by_name(module.__all__)


def __getattr__(name):
    family = _LAZY_OPS.get(name)
    if family is None:
        if name in _LAZY_FAMILIES:  # the family's module itself (`_ops.random_ops.normal_`)
            _load_family(name)
            return globals()[name]  # bound by the import, as for any submodule
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    _load_family(family)
    return globals()[name]


def __dir__():
    return sorted(set(globals()) | set(_LAZY_OPS))
