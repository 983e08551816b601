"""torch's argument-parser TypeErrors for calls that no overload of an op takes (max/min, clamp)."""

from __future__ import annotations

from minitorch._arg_errors import (
    REQUIRED,
    missing_positional,
    too_many_positional,
    unexpected_keyword,
)
from minitorch._ops._common import is_number, type_name
from minitorch._tensor import Tensor

# NOTE [ Argument parser errors ]
# Given arguments that no overload takes, torch's parser first counts them (positional and
# keyword together). When that count fits one listed overload only, it names that overload's
# first bad argument: "max(): argument 'dim' (position 1) must be int, not tuple" (or an unknown
# keyword). Otherwise it lists every overload, with keywords in a C++ hash map's order (NOTE
# [ Keyword order in parser errors ]), and explains the mismatch under each overload whose
# listing has as many items as arguments were given (the bare `*` counts as an item, and so
# does an empty listing `()`): a keyword that names no parameter without a default, or one the
# positional arguments filled, "was incorrect" (a parameter with a default never matches
# there), else the arguments are shown with the ill-typed ones between '!'.


def _params(form: str):
    """(name, type, default) of each parameter of a listed overload, None for the `*`; the
    default is its text ("" where it has none: read as has_default)."""
    out = []
    for item in form.split(", ") if form else []:
        if item == "*":
            out.append(None)
            continue
        decl, _, default = item.partition(" = ")
        kind, _, name = decl.rpartition(" ")
        out.append((name, kind, default))
    return out


def _fits(value, kind: str, parsing: bool = False) -> bool:
    """Whether torch takes value for a `kind` argument: when parsing the call (an int is a
    `tuple of ints` there, as the int[1] dims of sum/mean/std take one), or when marking the
    listed overloads (where only an empty tuple is one: torch's listing reads the item type of
    `tuple of ints` as "ints", which names no type)."""
    if kind == "Tensor":  # (the listing marks a subclass, a Parameter too, as torch's does)
        return isinstance(value, Tensor) and (parsing or type_name(value) == "Tensor")
    if kind == "bool":
        return value.__class__ is bool
    if kind == "Number":
        if parsing:
            return is_number(value)
        return not isinstance(value, Tensor) and isinstance(value, (int, float, complex))
    if kind == "int":  # an int-like (a 0-d integer tensor too), never a bool or a float
        if not parsing:  # the listing takes a Python int only
            return value.__class__ is int
        if value.__class__ is bool or isinstance(value, float):
            return False
        if isinstance(value, Tensor):
            return value.ndim == 0 and not value.dtype.is_floating_point and not value.is_complex()
        return hasattr(type(value), "__index__")
    if kind == "tuple of ints":
        if not parsing:
            return isinstance(value, tuple) and value == ()  # (an ndarray's == broadcasts)
        return _fits(value, "int", True) or (  # (int-likes: NumPy integers, 0-d int tensors)
            isinstance(value, (tuple, list)) and all(_fits(v, "int", True) for v in value)
        )
    if kind == "str":
        return isinstance(value, str)
    if kind.startswith("torch."):  # torch.Generator (torch._C.Generator), torch.dtype, ...
        if kind == "torch.device" and isinstance(value, (str, int)):
            return True
        if kind == "torch.dtype" and any(value is t for t in (bool, int, float)):
            return True  # (the Python types torch's parser reads as dtypes)
        return type_name(value) in (kind, "torch._C." + kind[6:])
    if kind == "float":  # parsing: a real number (a bool too) or a 0-d tensor; listed: int, float
        if parsing:
            if isinstance(value, Tensor):
                return value.ndim == 0
            return is_number(value) and not isinstance(value, complex)
        return value.__class__ in (int, float)
    return isinstance(value, (tuple, list)) and all(isinstance(v, Tensor) for v in value)


def _shown(x) -> str:
    if isinstance(x, tuple):  # (Python's spelling: a 1-tuple keeps its comma)
        items = f"{', '.join(type_name(s) for s in x)}{',' if len(x) == 1 else ''}"
        return f"{type_name(x)} of ({items})"
    if isinstance(x, list):
        return f"list of [{', '.join(type_name(s) for s in x)}]"
    return type_name(x)


def _why(params, positional, kwargs) -> str:
    """The 'didn't match because' of one listed overload. torch marks whatever stands in a
    Number slot there, a number too (t.masked_fill("a", 1.0): "(!str!, !float!)" under
    "Tensor mask, Number value"), and in a slot with a default (t.sort(1, "a"): "(!int!,
    !str!)" under "int dim = -1, bool descending = False")."""
    required = {p[0]: p[1] for p in params if p is not None and not p[2]}
    star = params.index(None) if None in params else len(params)
    filled = [p[0] for p in params[:star]][: len(positional)]  # (keyword-only ones never are)
    bad = [k for k in kwargs if k not in required or k in filled]  # (filled: given twice)
    if bad:
        return f"some of the keywords were incorrect: {', '.join(bad)}"
    shown = []
    for i, v in enumerate(positional):
        p = params[i] if i < len(params) else None
        ok = p is not None and not p[2] and p[1] != "Number" and _fits(v, p[1])
        shown.append(_shown(v) if ok else f"!{_shown(v)}!")
    text = ", ".join(shown)
    # the keywords in the overload's order (where "got" lists them in reverse of the call's);
    # as in "got": after positional ones ", k=v", else "k=v, "
    for k in sorted(kwargs, key=[p[0] for p in params if p is not None].index):
        v = kwargs[k]
        item = f"{k}={_shown(v)}"
        item = item if required[k] != "Number" and _fits(v, required[k]) else f"!{item}!"
        text += f", {item}" if shown else f"{item}, "
    return f"some of the arguments have invalid types: ({text})"


def missing_arguments(op: str, params, positional: tuple, kwargs: dict) -> TypeError | None:
    """torch's TypeError for a call of `op` (its parameters in order, as (name, has_default))
    that leaves a required one out, or None. torch names the first required one not given and
    every required one after it, given by keyword or not (x.renorm(p=2, maxnorm=1) misses
    "dim", "maxnorm"), and says "arguments" for one, "argument" for more."""
    first = next(
        (
            i
            for i, (m, default) in enumerate(params)
            if not default and i >= len(positional) and m not in kwargs
        ),
        None,
    )
    if first is None:
        return None
    return missing_positional(op, *(m for m, default in params[first:] if not default))


def invalid_arguments(op: str, forms, positional: tuple, kwargs: dict) -> TypeError:
    """torch's TypeError for `op` called with `positional` and `kwargs` (in torch's listing
    order: NOTE [ Argument parser errors ]) when none of `forms` (the overloads as torch lists
    them, without self for a method) takes them."""
    n = len(positional) + len(kwargs)
    fitting = []
    for form in forms:
        listed = _params(form)
        params = [p for p in listed if p is not None]
        # (an op of one overload is parsed against it whatever the count)
        if sum(not p[2] for p in params) <= n <= len(params) or len(forms) == 1:
            fitting.append((params, listed.index(None) if None in listed else len(listed)))
    if len(fitting) == 1:
        params, most = fitting[0]
        names = [p[0] for p in params]
        if len(positional) > most:  # (before the types: x.round(1), round(x, 1, decimals=2))
            return too_many_positional(op, len(positional), most, sum(not p[2] for p in params))
        # parameter by parameter: a missing one before a later one's type (normal(std=t))
        for i, (name, kind, default) in enumerate(params):  # (then the unknown keywords)
            given = i < len(positional)
            if given or name in kwargs:
                v = positional[i] if given else kwargs[name]
                # (None where the default is None counts as not given, as torch's parser reads)
                if not _fits(v, kind, parsing=True) and not (v is None and default == "None"):
                    if kind == "tuple of Tensors" and isinstance(v, (tuple, list)):
                        j, e = next((j, e) for j, e in enumerate(v) if not isinstance(e, Tensor))
                        return TypeError(  # (torch's words for an element: x.index_put_((None,)))
                            f"expected Tensor as element {j} in argument {i}, but got "
                            f"{type_name(e)}"
                        )
                    at = f" (position {i + 1})" if given else ""
                    return TypeError(
                        f"{op}(): argument '{name}'{at} must be {kind}, not {type_name(v)}"
                    )
            elif not default:
                pairs = [(p[0], p[2]) for p in params]
                return missing_arguments(op, pairs, positional, kwargs)
        for k in reversed(kwargs):  # (the call's order: kwargs come in the listing's)
            if k not in names:
                return unexpected_keyword(op, k)
            if names.index(k) < len(positional):  # x.cumsum(0, dim=1)
                return TypeError(f"{op}() got multiple values for argument '{k}'")
    kwargs = {k: kwargs[k] for k in hash_map_order(reversed(kwargs))}
    got = ", ".join(type_name(v) for v in positional)
    for k, v in kwargs.items():
        got += f", {k}={type_name(v)}" if positional else f"{k}={type_name(v)}, "
    return TypeError(
        f"{op}() received an invalid combination of arguments - got ({got}), but expected one "
        f"of:\n{listing(forms, positional, kwargs)}"
    )


# NOTE [ Keyword order in parser errors ]
# torch's parser collects the keywords of a call no overload takes into a C++ std::unordered_map
# and lists them ("got (..., foo=int, dim=int)", "some of the keywords were incorrect: ...") in
# its iteration order. That order is fixed by libstdc++: the key's std::hash (MurmurHash2 over
# its bytes, 64-bit) modulo a prime bucket count (13 up to 13 keys, then 29, 59: the rehash
# policy's steps), each new key put at the front of its bucket's run of the one linked list, a
# key of an empty bucket at the front of the whole list, and a rehash re-inserting the list in
# order. For two keywords in different buckets it is the reverse of the call's order: the
# callers pass that reverse (invalid_arguments reads the call's order back from it).
_MUL = 0xC6A4A793 << 32 | 0x5BD1E995
_MASK = (1 << 64) - 1


def _std_hash(key: str) -> int:
    """libstdc++'s std::hash<std::string> on a 64-bit platform (_Hash_bytes, seed 0xc70f6907)."""
    data = key.encode()
    n = len(data)
    h = 0xC70F6907 ^ (n * _MUL & _MASK)
    whole = n & ~7
    for i in range(0, whole, 8):
        word = int.from_bytes(data[i : i + 8], "little") * _MUL & _MASK
        h = (h ^ ((word ^ word >> 47) * _MUL & _MASK)) * _MUL & _MASK
    if n & 7:
        h = (h ^ int.from_bytes(data[whole:], "little")) * _MUL & _MASK
    h = (h ^ h >> 47) * _MUL & _MASK
    return h ^ h >> 47


def hash_map_order(call_order) -> list:
    """The keys (given in the call's order) as a std::unordered_map<std::string, ...> filled in
    that order iterates them (NOTE [ Keyword order in parser errors ]). An error path."""
    keys, buckets = [], 13
    for key in call_order:
        if len(keys) == buckets and buckets < 59:  # the rehash to the next prime step
            buckets = 29 if buckets == 13 else 59
            keys = _hash_map_fill(keys, buckets)
        keys = _hash_map_fill([key], buckets, keys)
    return keys


def _hash_map_fill(new, buckets: int, keys=None) -> list:
    keys = [] if keys is None else keys
    for key in new:
        bucket = _std_hash(key) % buckets
        at = next((i for i, k in enumerate(keys) if _std_hash(k) % buckets == bucket), 0)
        keys.insert(at, key)  # the front of its bucket's run, or of the list
    return keys


def listing(forms, positional: tuple, kwargs: dict) -> str:
    """The overloads part of torch's "invalid combination" TypeError (NOTE [ Argument parser
    errors ]): each of `forms`, and why it did not match where its item count is the call's."""
    n = len(positional) + len(kwargs)
    lines = []
    for form in forms:
        lines.append(f" * ({form})\n")
        params = _params(form)
        if max(len(params), 1) == n:
            lines.append(f"      didn't match because {_why(params, positional, kwargs)}\n")
    return "".join(lines)


def one_form_error(op: str, form: str, positional: tuple) -> TypeError:
    """torch's TypeError for `op` given `positional` where its listing shows one overload `form`
    (the deprecated one hidden: x.sub(0, 1, 2)): "but expected (form)", the ill-typed arguments
    between '!' as under a listed overload when their count is the form's items' count."""
    if len(_params(form)) == len(positional):
        got = _why(_params(form), positional, {}).split(": ", 1)[1][1:-1]
    else:
        got = ", ".join(type_name(v) for v in positional)
    return TypeError(
        f"{op}() received an invalid combination of arguments - got ({got}), but expected ({form})"
    )


# NOTE [ A method given no operand ]
# A Tensor method whose operands default to REQUIRED (x.add(), x.div(), x.copy_() left them
# out) is a missing argument to torch's parser only where an overload's argument count fits
# the call's (x.add(alpha=2): 'add() missing 1 required positional arguments: "other"'). Given
# nothing at all, no overload fits: torch lists the method's overloads -- one, its deprecated
# one hidden, for add, addcmul, copy_ ("got (), but expected (Tensor other, *, Number alpha =
# 1)"). The overload shown by the methods with a hidden one:
HIDDEN_OVERLOAD_FORMS = {
    **dict.fromkeys(("add", "add_", "sub", "sub_"), "Tensor other, *, Number alpha = 1"),
    **dict.fromkeys(
        ("addcmul", "addcmul_", "addcdiv", "addcdiv_"),
        "Tensor tensor1, Tensor tensor2, *, Number value = 1",
    ),
    "copy_": "Tensor other, bool non_blocking = False",
    **{
        op: f"Tensor {a}, Tensor {b}, *, Number beta = 1, Number alpha = 1"
        for ops, a, b in (
            (("addmm", "addmm_"), "mat1", "mat2"), (("addmv", "addmv_"), "mat", "vec"),
            (("addr", "addr_"), "vec1", "vec2"),
            (("addbmm", "addbmm_", "baddbmm", "baddbmm_"), "batch1", "batch2"),
        )
        for op in ops
    },
}


def left_out_error(op: str, name: str) -> TypeError:
    """torch's TypeError for the argument `name` of `op` left out (NOTE [ A method given no
    operand ]): a Tensor method called with no argument lists its overloads where they are
    HIDDEN_OVERLOAD_FORMS' or OVERLOADS'; else the missing argument. For error paths only."""
    import sys

    from minitorch._call_site import call_arguments
    from minitorch._ops._common import _method_name

    method = _method_name(op, sys._getframe(1))
    if method is not None and call_arguments(method) == (0, ()):
        if method in HIDDEN_OVERLOAD_FORMS:
            return one_form_error(method, HIDDEN_OVERLOAD_FORMS[method], ())
        if op in OVERLOADS:
            return invalid_arguments(method, OVERLOADS[op][1], (), {})
    if op in ARITY_FORMS:  # (torch names every required one from the first left out)
        names = [p[0] for p in _params(ARITY_FORMS[op][0][0]) if p is not None and not p[2]]
        if name in names:
            return missing_positional(op, *names[names.index(name) :])
    return missing_positional(op, name)


MAX_MIN_METHOD_FORMS = ("", "Tensor other", "int dim, bool keepdim = False")


def max_min_method_error(op: str, args: tuple, kwargs: dict, error: TypeError | None):
    """Tensor.max/min's own wording of an argument error the function form gave (the method's
    overloads leave out `input` and `out`); any other error as it is. error None: a call the
    function takes but the method does not (out=)."""
    if error is not None:
        ours = (f"{op}() received an invalid combination", f"{op}() takes from", f"{op}() got ")
        parsed = str(error).startswith((*ours, f"{op}(): argument"))
        if not parsed or kwargs.keys() & {"axis", "keepdims"}:  # (NumPy spellings: as is)
            return error
    return invalid_arguments(op, MAX_MIN_METHOD_FORMS, args, dict(reversed(kwargs.items())))


# NOTE [ Keywords only the function takes ]
# torch's Tensor methods take no `out=` and no `input=` (the tensor is self): their parser words
# either as any keyword the method's overloads lack, "X() got an unexpected keyword argument
# 'out'" for a method of one overload (after a missing or ill-typed argument: x.cumsum(out=o)
# misses "dim"), else the "invalid combination" listing of the method's overloads. minitorch's
# methods forward their keywords to the function, which takes both, so each method checks for
# them where it was given keywords and raises method_keyword_error. The method overloads, as
# torch lists them, of the methods whose ops have no OVERLOADS entry:
_CUM_DTYPE = ("int dim, *, torch.dtype dtype = None",)
_NAN_REDUCE = ("tuple of ints dim = None, bool keepdim = False, *, torch.dtype dtype = None",)
_QUANTILE = tuple(
    f"{q} q, int dim = None, bool keepdim = False, *, str interpolation = \"linear\""
    for q in ("Tensor", "float")
)
METHOD_FORMS = {
    **dict.fromkeys(("amax", "amin"), ("tuple of ints dim = (), bool keepdim = False",)),
    "aminmax": ("*, int dim = None, bool keepdim = False",),
    **dict.fromkeys(("argmax", "argmin"), ("int dim = None, bool keepdim = False",)),
    **dict.fromkeys(("nansum", "nanmean"), _NAN_REDUCE),
    "logsumexp": ("tuple of ints dim, bool keepdim = False",),
    **dict.fromkeys(("median", "nanmedian"), ("", "int dim, bool keepdim = False")),
    "mode": ("int dim = -1, bool keepdim = False",),
    **dict.fromkeys(("cumsum", "cumprod"), _CUM_DTYPE),
    **dict.fromkeys(("cummax", "cummin", "logcumsumexp"), ("int dim",)),
    **dict.fromkeys(("quantile", "nanquantile"), _QUANTILE),
    "diff": ("int n = 1, int dim = -1, Tensor prepend = None, Tensor append = None",),
    "matmul": ("Tensor other",),
    **dict.fromkeys(("mm", "bmm"), ("Tensor mat2",)),
    "mv": ("Tensor vec",),
    "dot": ("Tensor tensor",),
    **dict.fromkeys(("vdot", "inner", "kron"), ("Tensor other",)),
    **dict.fromkeys(("outer", "ger"), ("Tensor vec2",)),
    "cross": ("Tensor other, int dim = None",),
    "cov": ("*, int correction = 1, Tensor fweights = None, Tensor aweights = None",),
    "dist": ("Tensor other, Number p = 2",),
    "renorm": ("Number p, int dim, Number maxnorm",),
    "narrow_copy": ("int dim, int start, int length",),
    "lu_solve": ("Tensor LU_data, Tensor LU_pivots",),
    "orgqr": ("Tensor input2",),
    "ormqr": ("Tensor input2, Tensor input3, bool left = True, bool transpose = False",),
    "index_reduce": (
        "int dim, Tensor index, Tensor source, str reduce, *, bool include_self = True",
    ),
    "slice_scatter": ("Tensor src, int dim = 0, int start = None, int end = None, int step = 1",),
    "select_scatter": ("Tensor src, int dim, int index",),
    "diagonal_scatter": ("Tensor src, int offset = 0, int dim1 = 0, int dim2 = 1",),
    "as_strided_scatter": (
        "Tensor src, tuple of ints size, tuple of ints stride, int storage_offset = None",
    ),
}  # fmt: skip


def method_keyword_error(op: str, args: tuple, kwargs: dict, forms=None) -> TypeError:
    """torch's TypeError for the Tensor method `op` called with `args` and `kwargs`, among them
    out= or input= (NOTE [ Keywords only the function takes ]); `forms`: the method's overloads
    where neither METHOD_FORMS nor OVERLOADS holds them. An error path."""
    if forms is None:
        forms = METHOD_FORMS[op] if op in METHOD_FORMS else OVERLOADS[op][1]
    return invalid_arguments(op, forms, args, dict(reversed(kwargs.items())))


# NOTE [ Types before a missing argument ]
# torch's parser checks the arguments a call gave, in order, before it names a required one the
# call left out: x.transpose("a") is "transpose(): argument 'dim0' (position 1) must be int, not
# str", not the missing "dim1". missing_required (and arity_error) asks given_type_error first;
# the function and method overloads, as torch lists them, of the ops whose missing arguments
# they report:
ARITY_FORMS = {
    "transpose": (("Tensor input, int dim0, int dim1",), ("int dim0, int dim1",)),
    "swapaxes": (("Tensor input, int axis0, int axis1",), ("int axis0, int axis1",)),
    "select": (("Tensor input, int dim, int index",), ("int dim, int index",)),
    **dict.fromkeys(("scatter_add", "scatter_add_"), (
        ("Tensor input, int dim, Tensor index, Tensor src",), ("int dim, Tensor index, Tensor src",)
    )),
    **dict.fromkeys(("scatter_reduce", "scatter_reduce_"), (
        ("Tensor input, int dim, Tensor index, Tensor src, str reduce, *, bool include_self = "
         "True",),
        ("int dim, Tensor index, Tensor src, str reduce, *, bool include_self = True",),
    )),
    **dict.fromkeys(("put", "put_"), (
        ("Tensor input, Tensor index, Tensor source, bool accumulate = False",),
        ("Tensor index, Tensor source, bool accumulate = False",),
    )),
    "gather": (
        ("Tensor input, int dim, Tensor index, *, bool sparse_grad = False",),
        ("int dim, Tensor index, *, bool sparse_grad = False",),
    ),
    "index_select": (("Tensor input, int dim, Tensor index",), ("int dim, Tensor index",)),
    **dict.fromkeys(("index_add", "index_add_"), (
        ("Tensor input, int dim, Tensor index, Tensor source, *, Number alpha = 1",),
        ("int dim, Tensor index, Tensor source, *, Number alpha = 1",),
    )),
    **dict.fromkeys(("index_copy", "index_copy_"), (
        ("Tensor input, int dim, Tensor index, Tensor source",),
        ("int dim, Tensor index, Tensor source",),
    )),
    **dict.fromkeys(("index_reduce", "index_reduce_"), (
        ("Tensor input, int dim, Tensor index, Tensor source, str reduce, *, bool include_self = "
         "True",),
        ("int dim, Tensor index, Tensor source, str reduce, *, bool include_self = True",),
    )),
    "index_put_": (
        ("Tensor input, tuple of Tensors indices, Tensor values, bool accumulate = False",),
        ("tuple of Tensors indices, Tensor values, bool accumulate = False",),
    ),
    "as_strided": (
        ("Tensor input, tuple of ints size, tuple of ints stride, int storage_offset = None",),
        ("tuple of ints size, tuple of ints stride, int storage_offset = None",),
    ),
    "as_strided_scatter": (
        ("Tensor input, Tensor src, tuple of ints size, tuple of ints stride, int storage_offset "
         "= None",),
        ("Tensor src, tuple of ints size, tuple of ints stride, int storage_offset = None",),
    ),
    "lu_solve": (
        ("Tensor input, Tensor LU_data, Tensor LU_pivots",), ("Tensor LU_data, Tensor LU_pivots",)
    ),
}  # fmt: skip


def given_type_error(op: str, params: dict) -> TypeError | None:
    """torch's TypeError for the first argument of a call of `op` (one of ARITY_FORMS) that is
    of a type its parameter does not take, where the call also left a required one out
    (`params`: each parameter's value in order, REQUIRED where left out); None when the given
    ones fit, or `op` has no ARITY_FORMS entry. For error paths only."""
    if op not in ARITY_FORMS or all(v is REQUIRED for v in params.values()):
        return None
    error = overload_error(op, *ARITY_FORMS[op], list(params.items()))
    parsed = str(error).startswith((f"{op}(): argument ", "expected Tensor as element "))
    return error if parsed else None


CLAMP_FORMS = (
    "Tensor input, Tensor min = None, Tensor max = None, *, Tensor out = None",
    "Tensor input, Number min = None, Number max = None, *, Tensor out = None",
)
CLAMP_METHOD_FORMS = (
    "Tensor min = None, Tensor max = None",
    "Number min = None, Number max = None",
)


def with_extra(named, extra: tuple) -> list:
    """`named` (an overload_error's (name, value) pairs), then the `extra` positional arguments
    a call gave past the op's last positional parameter, under names no call passes by
    keyword."""
    return [*named, *((f"#{i}", v) for i, v in enumerate(extra))]


# NOTE [ Factory option errors ]
# torch's factories take their options (out, dtype, layout, device, pin_memory, requires_grad,
# generator, memory_format) by keyword only. An option of a type it does not take (dtype="a",
# layout=5, out=5, requires_grad=1) or a keyword no overload has (names= of rand, foo=) is an
# argument error of the parser: a factory of one overload names the argument ("zeros():
# argument 'layout' must be torch.layout, not int"); rand and randn (with and without a
# generator), randint, randperm, eye, linspace, the random *_like list their overloads when the
# argument count fits two or more of them (NOTE [ Argument parser errors ]). Those factories
# catch the TypeError their options raise and ask option_error; a TypeError of their own
# arguments (a size element) stays when every option fits.


def option_error(op: str, forms, named, options: dict, unknown=None, error=None):
    """overload_error for a call of the factory `op` (its overloads `forms`, as torch lists
    them) with an option that does not fit (NOTE [ Factory option errors ]): `named` holds the
    (name, value) of the arguments before the options, as the call gave them (with_extra for
    varargs), `options` every option (None or False where not given), `unknown` the keywords
    none of forms has. `error` (None where not given) when every option fits. Error paths only."""
    kinds = {}
    for form in forms:
        for p in _params(form):
            if p is not None:
                kinds.setdefault(p[0], p[1])
    given = [(k, v) for k, v in options.items() if v is not None and v is not False]
    if not unknown and all(_fits(v, kinds[k], parsing=True) for k, v in given):
        return error
    named = [*named, *given, *(unknown or {}).items()]
    return overload_error(op, forms, forms, named, unknown=tuple(unknown or ()))


def clamp_error(op: str, input, min, max, out=None, extra=()) -> TypeError:
    """clamp's (or clip's, clamp_'s) TypeError for bounds no overload takes (a str, one tensor
    bound beside one number bound), an input that is no tensor (or none: REQUIRED) or `extra`
    positional arguments past max, as the user's call gave them (NOTE [ Keyword arguments in
    argument errors ]); a bound of None counts as not given, but for one before a positional
    argument."""
    from minitorch._call_site import passed_by_keyword

    named = [("input", input)]  # (overload_error leaves out a REQUIRED one)
    if min is not None or extra or (max is not None and not passed_by_keyword("max", op)):
        named.append(("min", min))
    if max is not None or extra:
        named.append(("max", max))
    named = with_extra(named, extra)
    if out is not None:
        named.append(("out", out))
    return overload_error(op, CLAMP_FORMS, CLAMP_METHOD_FORMS, named)


def clamp_method_error(op: str, min, max, error: TypeError) -> TypeError:
    """The Tensor method's wording (clamp, clamp_, clip, clip_) of clamp's mixed-bounds error;
    any other error as it is."""
    if not str(error).startswith("clamp() received an invalid combination"):
        return error
    return clamp_error(op, None, min, max)


# NOTE [ Overloaded binary ops ]
# An op whose `other` may be a Tensor or a Number (eq, pow, fmod, remainder, ...) has two or
# more overloads, so torch words a wrong-typed operand as no overload matching, listing the
# function's or the method's overloads and the call's keywords (NOTE [ Argument parser errors ]);
# an op with one Tensor overload (add, mul, maximum) names the argument. The function and method
# overloads of the first kind, as torch lists them:
_COMPARE = (
    ("Tensor input, Tensor other, *, Tensor out = None",
     "Tensor input, Number other, *, Tensor out = None"),
    ("Tensor other", "Number other"),
)  # fmt: skip
_NUMBER_SELF = (
    ("Tensor input, Tensor other, *, Tensor out = None", "Number self, Tensor other",
     "Tensor input, Number other, *, Tensor out = None"),
    ("Tensor other", "Number other"),
)  # fmt: skip
_DIVIDE = (
    ("Tensor input, Tensor other, *, Tensor out = None", "Tensor input, Number other"),
    ("Tensor other", "Number other"),
)
BINARY_FORMS = {
    **dict.fromkeys(("eq", "ne", "lt", "gt", "le", "ge", "fmod", "copysign"), _COMPARE),
    **dict.fromkeys(("true_divide", "floor_divide"), _DIVIDE),
    "xlogy": (
        ("Tensor input, Tensor other, *, Tensor out = None",
         "Number self, Tensor other, *, Tensor out = None",
         "Tensor input, Number other, *, Tensor out = None"),
        ("Tensor other", "Number other"),
    ),
    "float_power": (
        ("Tensor input, Tensor exponent, *, Tensor out = None",
         "Number self, Tensor exponent, *, Tensor out = None",
         "Tensor input, Number exponent, *, Tensor out = None"),
        ("Tensor exponent", "Number exponent"),
    ),
    **dict.fromkeys(
        ("remainder", "bitwise_and", "bitwise_or", "bitwise_xor", "bitwise_left_shift",
         "bitwise_right_shift"),
        _NUMBER_SELF,
    ),
    "pow": (
        ("Tensor input, Tensor exponent, *, Tensor out = None",
         "Number self, Tensor exponent, *, Tensor out = None",
         "Tensor input, Number exponent, *, Tensor out = None"),
        ("Tensor exponent", "Number exponent"),
    ),
}  # fmt: skip


def binary_overload_error(op: str, input, other, extra: tuple = ()) -> TypeError:
    """overload_error for a call of `op` (one of BINARY_FORMS) that gave an operand of no type
    it takes, left one out (REQUIRED) or gave the `extra` positional arguments past other."""
    name = "exponent" if op == "pow" else "other"
    named = with_extra((("input", input), (name, other)), extra)
    return overload_error(op, *BINARY_FORMS[op], named)


# the same for ops of more arguments, whose last one is a Tensor or a Number
TERNARY_FORMS = {
    "lerp": (
        ("Tensor input, Tensor end, Tensor weight, *, Tensor out = None",
         "Tensor input, Tensor end, Number weight, *, Tensor out = None"),
        ("Tensor end, Tensor weight", "Tensor end, Number weight"),
    ),
    "masked_fill": (
        ("Tensor input, Tensor mask, Tensor value", "Tensor input, Tensor mask, Number value"),
        ("Tensor mask, Tensor value", "Tensor mask, Number value"),
    ),
    "where": (
        ("Tensor condition", "Tensor condition, Tensor input, Tensor other, *, Tensor out = None",
         "Tensor condition, Number self, Tensor other",
         "Tensor condition, Tensor input, Number other",
         "Tensor condition, Number self, Number other"),
        ("Tensor condition, Tensor other", "Tensor condition, Number other"),
    ),
}  # fmt: skip


def overload_error(op: str, forms, method_forms, named, self_name="input", unknown=()) -> TypeError:
    """invalid_arguments for the user's call of `op`, as it was written: `named` holds the
    (name, value) of each argument it gave, in signature order; which were keywords is read
    from the call (NOTE [ Keyword arguments in argument errors ]), and a call of the Tensor
    method lists `method_forms` and leaves out self, the argument `self_name` (NOTE [ Argument
    positions of methods ]). `unknown`: the names in `named` no overload has (keywords,
    however the call is read). For error paths only."""
    import sys

    from minitorch._call_site import keyword_given, passed_by_keyword
    from minitorch._ops._common import _method_name

    named = [(n, v) for n, v in named if v is not REQUIRED]  # (what the call left out)
    if "out" not in dict(named) and any("Tensor out" in f for f in forms):
        out = keyword_given("out", op, REQUIRED)  # (the op's caller did not pass it on)
        if out is not REQUIRED:
            named.append(("out", out))
    method = _method_name(op, sys._getframe(1))
    if method is not None:  # (named as called: x.squeeze_("a") lists squeeze_'s overloads)
        op, forms, named = method, method_forms, [(n, v) for n, v in named if n != self_name]
    keyword_only, positional_names = set(), set()
    for form in forms:
        params = _params(form)
        star = params.index(None) if None in params else len(params)
        positional_names.update(p[0] for p in params[:star])
        keyword_only.update(p[0] for p in params[star + 1 :])
    keyword_only -= positional_names  # (out=, dtype=: keywords however the call is read)
    keyword_only.update(unknown)
    positional, kwargs = [], {}
    for name, value in named:
        if kwargs or name in keyword_only or passed_by_keyword(name, op):
            kwargs[name] = value
        else:
            positional.append(value)
    return invalid_arguments(op, forms, tuple(positional), _shown_order(kwargs, op))


def _shown_order(kwargs: dict, op: str) -> dict:
    """The keywords in the reverse of the call's order (invalid_arguments lists them as torch
    does: NOTE [ Keyword order in parser errors ]); in the reverse of the signature's order
    where the call cannot be read."""
    from minitorch._call_site import call_keywords

    names = call_keywords(op, depth=3)
    if names is None or any(k not in names for k in kwargs):
        return dict(reversed(kwargs.items()))
    return {n: kwargs[n] for n in reversed([n for n in names if n in kwargs])}


# NOTE [ Overloaded reductions ]
# Most reductions have several overloads (a full one, one over `tuple of ints dim`, one over an
# `int dim`, std's `unbiased`-only one, ...), so torch words a wrong-typed argument of theirs as
# none of them matching -- or, when the argument count fits one overload only, as that one's
# argument error (NOTE [ Argument parser errors ]). So do a few other ops of several overloads
# (div's rounding_mode, round's decimals). The function and method overloads, as torch lists
# them:
_DTYPE_KW = "*, torch.dtype dtype = None"
_BOOL_REDUCE = (
    ("Tensor input, *, Tensor out = None",
     "Tensor input, tuple of ints dim = None, bool keepdim = False, *, Tensor out = None",
     "Tensor input, int dim, bool keepdim = False, *, Tensor out = None"),
    ("", "tuple of ints dim = None, bool keepdim = False", "int dim, bool keepdim = False"),
)  # fmt: skip
_SUM_DIM = "tuple of ints dim, bool keepdim = False"
_VAR_FORMS = {
    op: (
        (f"Tensor input, tuple of ints dim, bool unbiased = True, bool keepdim = False{out}",
         "Tensor input, tuple of ints dim = None, *, Number correction = None, bool keepdim = "
         f"False{out_kw}",
         "Tensor input, bool unbiased = True"),
        ("tuple of ints dim, bool unbiased = True, bool keepdim = False",
         "tuple of ints dim = None, *, Number correction = None, bool keepdim = False",
         "bool unbiased = True"),
    )
    for op, out, out_kw in (("var", ", *, Tensor out = None", ", Tensor out = None"),
                            ("std", ", *, Tensor out = None", ", Tensor out = None"),
                            ("var_mean", "", ""), ("std_mean", "", ""))
}  # fmt: skip
OVERLOADS = {
    "sum": (
        (f"Tensor input, {_DTYPE_KW}",
         f"Tensor input, {_SUM_DIM}, {_DTYPE_KW}, Tensor out = None"),
        (_DTYPE_KW, f"{_SUM_DIM}, {_DTYPE_KW}"),
    ),
    "mean": (
        (f"Tensor input, {_DTYPE_KW}, Tensor out = None",
         f"Tensor input, {_SUM_DIM}, {_DTYPE_KW}, Tensor out = None"),
        (_DTYPE_KW, f"{_SUM_DIM}, {_DTYPE_KW}"),
    ),
    "prod": (
        (f"Tensor input, {_DTYPE_KW}",
         f"Tensor input, int dim, bool keepdim = False, {_DTYPE_KW}, Tensor out = None"),
        (_DTYPE_KW, f"int dim, bool keepdim = False, {_DTYPE_KW}"),
    ),
    "all": _BOOL_REDUCE,
    "any": _BOOL_REDUCE,
    "count_nonzero": (
        ("Tensor input, int dim = None", "Tensor input, tuple of ints dim"),
        ("int dim = None", "tuple of ints dim"),
    ),
    "squeeze": (
        ("Tensor input", "Tensor input, int dim", "Tensor input, tuple of ints dim"),
        ("", "int dim", "tuple of ints dim"),
    ),
    "narrow": (
        ("Tensor input, int dim, Tensor start, int length",
         "Tensor input, int dim, int start, int length"),
        ("int dim, Tensor start, int length", "int dim, int start, int length"),
    ),
    "fill_": (
        ("Tensor input, Tensor value", "Tensor input, Number value"),
        ("Tensor value", "Number value"),
    ),
    "scatter": (
        ("Tensor input, int dim, Tensor index, Tensor src, *, Tensor out = None",
         "Tensor input, int dim, Tensor index, Tensor src, *, str reduce, Tensor out = None",
         "Tensor input, int dim, Tensor index, Number value, *, Tensor out = None",
         "Tensor input, int dim, Tensor index, Number value, *, str reduce, Tensor out = None"),
        ("int dim, Tensor index, Tensor src", "int dim, Tensor index, Tensor src, *, str reduce",
         "int dim, Tensor index, Number value",
         "int dim, Tensor index, Number value, *, str reduce"),
    ),
    # (no torch.scatter_: the function forms are the method's, with the tensor, for the check)
    "scatter_": (
        ("Tensor input, int dim, Tensor index, Tensor src",
         "Tensor input, int dim, Tensor index, Tensor src, *, str reduce",
         "Tensor input, int dim, Tensor index, Number value",
         "Tensor input, int dim, Tensor index, Number value, *, str reduce"),
        ("int dim, Tensor index, Tensor src", "int dim, Tensor index, Tensor src, *, str reduce",
         "int dim, Tensor index, Number value",
         "int dim, Tensor index, Number value, *, str reduce"),
    ),
    "index_fill": (
        ("Tensor input, int dim, Tensor index, Tensor value",
         "Tensor input, int dim, Tensor index, Number value"),
        ("int dim, Tensor index, Tensor value", "int dim, Tensor index, Number value"),
    ),
    "repeat_interleave": (
        ("Tensor input, Tensor repeats, int dim = None, *, int output_size = None",
         "Tensor repeats, *, int output_size = None",
         "Tensor input, int repeats, int dim = None, *, int output_size = None"),
        ("Tensor repeats, int dim = None, *, int output_size = None",
         "int repeats, int dim = None, *, int output_size = None"),
    ),
    "rsub": (
        ("Tensor input, Tensor other, *, Number alpha = 1",
         "Tensor input, Number other, Number alpha = 1"),
        ("Tensor other, *, Number alpha = 1", "Number other, Number alpha = 1"),
    ),
    "tensor_split": (
        ("Tensor input, tuple of ints indices, int dim = 0",
         "Tensor input, Tensor tensor_indices_or_sections, int dim = 0",
         "Tensor input, int sections, int dim = 0"),
        ("tuple of ints indices, int dim = 0", "Tensor tensor_indices_or_sections, int dim = 0",
         "int sections, int dim = 0"),
    ),
    **dict.fromkeys(("movedim", "moveaxis"), (
        ("Tensor input, int source, int destination",
         "Tensor input, tuple of ints source, tuple of ints destination"),
        ("int source, int destination", "tuple of ints source, tuple of ints destination"),
    )),
    **_VAR_FORMS,
    "div": (
        ("Tensor input, Tensor other, *, Tensor out = None",
         "Tensor input, Tensor other, *, str rounding_mode, Tensor out = None",
         "Tensor input, Number other, *, str rounding_mode"),
        ("Tensor other", "Tensor other, *, str rounding_mode",
         "Number other, *, str rounding_mode"),
    ),
    "round": (
        ("Tensor input, *, Tensor out = None", "Tensor input, *, int decimals, Tensor out = None"),
        ("", "*, int decimals"),
    ),
    "round_": (("Tensor input", "Tensor input, *, int decimals"), ("", "*, int decimals")),
    **dict.fromkeys(("median", "nanmedian"), (
        ("Tensor input",
         "Tensor input, int dim, bool keepdim = False, *, tuple of Tensors out = None"),
        METHOD_FORMS["median"],
    )),
    **{op: (tuple(f"Tensor input, {form}, Tensor out = None" for form in _QUANTILE), _QUANTILE)
       for op in ("quantile", "nanquantile")},
    "diff": (
        ("Tensor input, int n = 1, int dim = -1, Tensor prepend = None, Tensor append = None, *, "
         "Tensor out = None",),
        METHOD_FORMS["diff"],
    ),
}  # fmt: skip


# NOTE [ Arguments given twice ]
# A call that gives an argument both by position and by keyword (x.var(1, dim=1)) fails in
# Python's binding: "var() got multiple values for argument 'dim'". torch's parser words it so
# for an op of one overload (after checking the given arguments' types), but an op of several
# lists them, the keyword "incorrect" under each overload of as many parameters as were given
# (NOTE [ Argument parser errors ]). The wrapper every op and method taking a dim goes through
# (NOTE [ NumPy argument aliases ] in minitorch/_ops) catches Python's error and asks
# given_twice_error for torch's, from the overloads OVERLOADS and METHOD_FORMS hold. So is a
# keyword no parameter has (x.std(foo=1)): Python's "got an unexpected keyword argument", where
# torch's parser lists the overloads of an op of several, or else names the first of the call's
# arguments it cannot take (x.sum(dtype=torch.float64, foo=1) misses "dim" first).


def given_twice_error(op: str, args: tuple, kwargs: dict, error: TypeError, method=None):
    """torch's TypeError for a call of `op` with `args` (the tensor first) and `kwargs` that
    Python refused with `error` as giving an argument twice, or a keyword of the call that no
    parameter has (NOTE [ Arguments given twice ]); `error` itself for any other error or an op
    without listed overloads. method: whether the user called the Tensor method (None: read
    from the call stack). For error paths only."""
    from minitorch._ops._common import _called_as_method

    text = str(error)
    if not text.startswith(f"{op}() got multiple values for argument "):
        unknown = f"{op}() got an unexpected keyword argument "
        if not text.startswith(unknown) or text[len(unknown) + 1 : -1] not in kwargs:
            return error
    if method is None:
        method = _called_as_method(op)
    called = _as_called(op, kwargs)
    forms = OVERLOADS.get(op) or OVERLOADS.get(op[:-1])  # (x.squeeze_: squeeze's overloads)
    if op in ("sort", "argsort"):
        from minitorch._ops import sorting

        forms = (sorting._SORT_FORMS[op], sorting._SORT_METHOD_FORMS)
    if forms is not None:
        forms = forms[1] if method else forms[0]
    elif method and op in METHOD_FORMS:
        forms = METHOD_FORMS[op]
    elif called is not kwargs:  # (an op of one overload: the alias is the keyword it lacks)
        name = text.rsplit("'", 2)[1]
        alias = _ALIASES.get(name)
        return unexpected_keyword(op, alias if alias in called else name)
    else:
        return error
    positional = args[1:] if method else args  # (a method's listing leaves self out)
    return invalid_arguments(op, forms, positional, dict(reversed(called.items())))


_ALIASES = {"dim": "axis", "keepdim": "keepdims"}  # NOTE [ NumPy argument aliases ]


def _as_called(op: str, kwargs: dict) -> dict:
    """`kwargs` as the user's call of `op` spelled them, in its order, where the NumPy-alias
    wrapper renamed axis= or keepdims= (torch's parser names those in its errors: x.cumsum(1,
    axis=1) has an unexpected 'axis'); `kwargs` itself otherwise. For error paths only."""
    from minitorch._call_site import call_keywords

    names = call_keywords(op)
    if not names or not ("axis" in names or "keepdims" in names):
        return kwargs
    spelled = {v: k for k, v in _ALIASES.items()}
    called = {}
    for name in names:
        key = name if name in kwargs else spelled.get(name)
        if key not in kwargs:
            return kwargs
        called[name] = kwargs[key]
    return called if len(called) == len(kwargs) else kwargs


def positional_count(op: str) -> int | None:
    """How many arguments the user's call of `op` gave by position, the tensor first (a
    method's self counts), or None where the call cannot be read. For error paths only."""
    from minitorch._call_site import call_arguments
    from minitorch._ops._common import _called_as_method

    got = call_arguments(op)
    return None if got is None else got[0] + _called_as_method(op)


def _given(op: str, named) -> list:
    """The (name, value) pairs of `named` the call gave (parsed_error): one at its default
    counts only where the call passed it, by keyword or by position (x.all(None, None) lists
    both Nones, as torch's parser does)."""
    from minitorch._call_site import passed_by_keyword

    forms = OVERLOADS[op][0]
    given = []
    count = -1  # (read from the call once, where a default is met)
    for i, (name, value) in enumerate(named):
        if value is False if name == "keepdim" else value is None:
            required = value is None and all(
                any(p and p[0] == name and not p[2] for p in _params(f)) for f in forms
            )
            if not (required or passed_by_keyword(name, op)):
                if count == -1:
                    count = positional_count(op) or 0
                if i >= count or not _positional_at(name, i, forms):
                    continue
        given.append((name, value))
    return given


def _positional_at(name: str, i: int, forms) -> bool:
    """Whether an overload of `forms` has `name` as its positional parameter number i (where
    `named` holds it at i, a call of i + 1 positional arguments or more gave it)."""
    for form in forms:
        params = _params(form)
        star = params.index(None) if None in params else len(params)
        if i < star and params[i][0] == name:
            return True
    return False


def argument_error(error: Exception, op: str, named) -> Exception:
    """parsed_error when no overload of `op` takes the types of `named` (in signature order, as
    parsed_error's), else `error` as it is (an error about their values). For an op's
    `except TypeError` clause."""
    values = [v for _, v in _given(op, named)]
    for form in OVERLOADS[op][0]:
        params = [p for p in _params(form) if p is not None]
        if sum(not p[2] for p in params) <= len(values) <= len(params) and all(
            _fits(v, p[1], parsing=True) for v, p in zip(values, params, strict=False)
        ):
            return error
    return parsed_error(op, named)


def extra_positional_error(op: str, positional: tuple, **keywords) -> TypeError:
    """overload_error for `op` with its OVERLOADS called with positional arguments past its
    last positional parameter (x.sum(0, True, 0)): `positional`, all it was given by position
    (the tensor first); `keywords`, those given by keyword (None where not given). For error
    paths only."""
    named = with_extra([("input", positional[0])], positional[1:])
    named += [(k, v) for k, v in keywords.items() if v is not None]
    return overload_error(op, *OVERLOADS[op], named)


def parsed_error(op: str, named) -> TypeError:
    """overload_error for `op` with its OVERLOADS: `named` holds the (name, value) of its
    arguments in signature order. One at its default (None, keepdim's False) counts as not
    given unless the call passed it by keyword or every overload requires it. For error paths
    only."""
    return overload_error(op, *OVERLOADS[op], _given(op, named))
