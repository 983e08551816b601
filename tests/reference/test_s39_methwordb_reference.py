"""Session 39 (helper methwordb): the wording of argument errors of Tensor METHODS named m-z.

A sweep calls every public Tensor method named m-z that torch and minitorch both have (not the
device-specific ones) on a small float64 tensor, with an unknown keyword, with out=, with eight
positional ints, with a str, a list and a float as the first argument, and, for the methods that
need arguments (ARGS), with their arguments and an extra str, an unknown keyword or out=. SWEEP
records, for each call where torch raises and minitorch now raises the same, the method, the call
and torch's "Type: message" (generated from the sweep, so it reruns); the test checks both
libraries against it. Then programs of the mistakes users make, written as in torch code: dims
read from a config as strings or floats (transpose, select, unsqueeze_, swapaxes), sizes as
floats (split_with_sizes, sum_to_size, unsafe_split), the deprecated number-first sub/addcmul
given one argument too many, scatter_add/put given an index of the wrong type, a Householder
product given a list, slice_scatter given a list, set_ given a bad offset, random_ given float
bounds, the legacy new() given a keyword, pin_memory/to_dense given a str.

Found and fixed:
- A call that left a required argument out and gave another of the wrong type
  (x.transpose("a"), x.select(1.5), x.put("a"), x.scatter_add_([]), x.scatter_reduce(1.5),
  x.swapaxes("a"), torch.select(x, "a")): torch's parser names the ill-typed argument first
  ("transpose(): argument 'dim0' (position 1) must be int, not str"); minitorch named the
  missing one. missing_required (and arity_error) now asks _parser_errors.given_type_error,
  from the ARITY_FORMS table (NOTE [ Types before a missing argument ]).
- In-place methods that run their out-of-place op named it in argument errors
  (x.unsqueeze_(1.5) said "unsqueeze()", x.squeeze_(1.5) listed squeeze's overloads): the error
  paths (check_int, overload_error) now name the method as called (_common._method_name).
- x.mvlgamma(1.5) / x.mvlgamma_(1.5): no "(position 1)"; mvlgamma_ was named mvlgamma.
- x.sub(0, 1, 2), x.sub_(x, 1, 2), x.addcmul(x, x, x, x): "received an invalid combination of
  arguments" was cut there; torch adds "- got (Tensor, !int!, !int!), but expected (Tensor
  other, *, Number alpha = 1)" (_parser_errors.one_form_error).
- x.orgqr("a"), x.ormqr(x, "a"), torch.linalg.householder_product(x, "a"): a shape
  RuntimeError or an AttributeError; torch's "argument 'input2' (position 1) must be Tensor".
- x.slice_scatter("a") said "(position 2)" (the function's count) for the method.
- x.split_with_sizes(1.5), x.unsafe_split_with_sizes("a"), x.sum_to_size(1.5 / "a" / [1.5] /
  (1, 1.5) / (1.5, 1)): "'float' object is not iterable", a per-element message or a shape
  RuntimeError; torch's "must be tuple of ints, not float" (and its unpacking wordings).
- x.unsafe_chunk(1.5), x.unsafe_split(1.5) named chunk/split_with_sizes.
- x.max(foo=1), x.min(o, foo=1), x.max(0, True, foo=1), x.min(foo=1, bar=2): torch's parser
  wording of the method (its overloads listed, or the missing "dim", or 'dim' must be int);
  minitorch named the unknown keyword (max_min_method_error let unknown keywords through).
- x.set_("a") listed set_'s overloads without torch's "didn't match because" lines;
  x.set_(x, "a", (2,)) raised int()'s ValueError.
- x.new(foo=1) / torch.Tensor(1, foo=2): the listing lacked torch.Storage's overload, the
  "didn't match" lines and the "got (foo=int, )" spelling.
- x.random_("a" / 1.5 / [] / 0, 1.5 / foo=1 / eight ints / 0, 1, 2): torch lists random_'s
  overloads or says "takes 2 positional arguments but 3 were given"; minitorch named 'to' or
  said "takes at most 2 arguments" (x.random_(0, None) still draws up to the dtype's top).
- x.pin_memory(1.5) / x.is_pinned-like device of no device type, x.to_dense("a"): torch's
  "argument 'device' (position 1) must be torch.device" / "argument 'dtype' ... torch.dtype".

Known and left (documented):
- Methods written with explicit Python parameters get Python's own TypeErrors from the call's
  binding, before any library code runs: x.tan(1) "tan() takes 1 positional argument but 2
  were given" (torch: "TensorBase.tan() takes no arguments (1 given)"), x.tan(out=o) (torch:
  "TensorBase.tan() takes no keyword arguments"), x.maximum(foo=1) (torch names the missing
  "other" first), x.masked_scatter("a") (torch names the ill-typed mask before the missing
  source), x.unfold(0, 0, 0, 0) (Python counts self). Matching them needs *args/**kwargs on
  every such method (a dict per call on hot methods): the cost rule forbids it.
- Methods that forward *args/**kwargs to their function (median, mode, narrow_copy, ormqr,
  select_scatter, ...) get the function's binding errors (self counted, Python's quoting);
  unknown keywords of sum/mean/prod/std/var/max/min/sort/view/vsplit/tensor_split/movedim/
  where (torch lists the method's overloads) likewise: a check per keyword call otherwise.
- Aliases defined as the same function (multiply = mul, subtract = sub, not_equal = ne,
  true_divide_ = div_, swapdims = transpose) name the aliased op in their errors.
- x.to(1.5) is no error in torch (read as a device ordinal?); minitorch lists to()'s overloads.
- x.resize("a") / x.resize_as("a"): torch's Python-level quirks (a RuntimeError naming "a",
  an AttributeError); minitorch's parser-style TypeError. x.record_stream("a"): torch's
  "unknown parameter type". x.sum_to_size(size=[1.5]) says "not tuple" (torch: "not list").
- x.max(0, keepdims=1), x.max(axis="a"): the function's listing (torch: the method's wording),
  as before. (x.unsafe_split([1, 2]), left here, now raises torch's TypeError: test_s39_smallfix.)
- The records run on the CPU only."""

from __future__ import annotations

import warnings

import pytest

from tests.reference._one_thread import one_torch_thread  # noqa: F401 - an autouse fixture
from tests.reference._programs import assert_calls_match, run_calls

torch = pytest.importorskip("torch")


def _env(lib):
    x = lib.arange(12, dtype=lib.float64).reshape(3, 4) / 7 + 0.1
    return {
        "x": x,
        "o": lib.zeros(3, 4, dtype=lib.float64),
        "m": x > 0.5,
        "i": lib.tensor([[0, 1, 2, 0]]),
        "j": lib.tensor([0, 2]),
        "v": lib.ones(4, dtype=lib.float64),
        "w": lib.ones(4, 4, dtype=lib.float64),
        "lib": lib,
    }


# the methods the sweep leaves out: device- and platform-specific, or reading the GPU's state
SKIP = frozenset(
    """cpu cuda ipu is_pinned mps mtia pin_memory record_stream share_memory_ to_mkldnn xpu
    module_load""".split()
)
# valid positional arguments of the methods that need some, as call text
ARGS = {
    "masked_fill": "m, 0.0", "masked_fill_": "m, 0.0", "masked_scatter": "m, w",
    "masked_scatter_": "m, w", "masked_select": "m", "matmul": "v", "matrix_power": "2",
    "maximum": "o", "minimum": "o", "mm": "w", "moveaxis": "0, 1", "movedim": "0, 1",
    "mul": "2", "mul_": "2", "multinomial": "2", "mv": "v", "mvlgamma": "1",
    "mvlgamma_": "1", "nanquantile": "0.5", "narrow": "0, 0, 1", "narrow_copy": "0, 0, 1",
    "ne": "o", "ne_": "o", "new_full": "(2,), 1.0", "new_ones": "2", "new_zeros": "2",
    "new_empty": "2", "nextafter": "o", "nextafter_": "o", "outer": "v", "permute": "1, 0",
    "polygamma": "1", "polygamma_": "1", "pow": "2", "pow_": "2", "put": "j, o[0, :2]",
    "put_": "j, o[0, :2]", "quantile": "0.5", "remainder": "2", "remainder_": "2",
    "renorm": "2, 0, 1.0", "renorm_": "2, 0, 1.0", "repeat": "1, 1",
    "repeat_interleave": "2", "reshape": "4, 3", "reshape_as": "o", "resize_as_": "o",
    "roll": "1", "scatter": "0, i, o", "scatter_": "0, i, o", "scatter_add": "0, i, o",
    "scatter_add_": "0, i, o", "scatter_reduce": "0, i, o, 'sum'",
    "scatter_reduce_": "0, i, o, 'sum'", "select": "0, 1", "select_scatter": "o[0], 0, 0",
    "slice_scatter": "o", "softmax": "1", "split": "2", "split_with_sizes": "[1, 2]",
    "sub": "o", "sub_": "o", "sum_to_size": "1, 4", "swapaxes": "0, 1", "swapaxes_": "0, 1",
    "swapdims": "0, 1", "swapdims_": "0, 1", "take": "j", "take_along_dim": "i, 0",
    "tensor_split": "2", "tile": "2", "topk": "2", "transpose": "0, 1", "transpose_": "0, 1",
    "true_divide": "2", "true_divide_": "2", "type_as": "o", "unflatten": "1, (2, 2)",
    "unfold": "0, 2, 1", "unsafe_chunk": "2", "unsafe_split": "2",
    "unsafe_split_with_sizes": "[1, 2]", "unsqueeze": "0", "unsqueeze_": "0", "vdot": "v",
    "view": "4, 3", "view_as": "o", "where": "m, 0.0", "xlogy": "o", "xlogy_": "o",
}  # fmt: skip


def sweep_calls():
    """(method, call text) of the sweep, in order."""
    names = sorted(
        n
        for n in set(dir(torch.Tensor)) & set(dir(__import__("minitorch").Tensor))
        if "m" <= n[:1] <= "z" and n not in SKIP and callable(getattr(torch.Tensor, n))
    )
    calls = []
    for n in names:
        calls += [(n, f"x.{n}({a})") for a in ("foo=1", "out=o", "0, 0, 0, 0, 0, 0, 0, 0")]
        calls += [(n, f"x.{n}({a})") for a in ("'a'", "[]", "1.5")]
        if n in ARGS:
            calls += [(n, f"x.{n}({ARGS[n]}, {a})") for a in ("'a'", "foo=1", "out=o")]
    return calls


def _outcome(code, env):
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            eval(code, env)  # noqa: S307 - a call text of the sweep
    except Exception as e:  # noqa: BLE001 - the exception is the record
        return f"{type(e).__name__}: {e}"
    return "no error"


@pytest.mark.parametrize("lib_name", ["torch", "minitorch"])
def test_sweep_table(lib_name):
    lib = torch if lib_name == "torch" else __import__("minitorch")
    wrong = []
    for method, code, want in SWEEP:
        got = _outcome(code, _env(lib))
        if got != want and got != want.replace("torch", "minitorch"):
            wrong.append(f"{code} ({method}):\n  want: {want[:300]!r}\n  got:  {got[:300]!r}")
    assert not wrong, f"{len(wrong)} of {len(SWEEP)} differ:\n" + "\n".join(wrong[:10])


def test_sweep_table_is_the_sweep():
    # every row is a call of the sweep (a renamed or dropped call must regenerate the table)
    calls = set(sweep_calls())
    assert all((m, c) in calls for m, c, _ in SWEEP)
    assert len(SWEEP) > 300


# --- the mistakes users make, as written ---


def p_dims_from_config(lib, rec):
    env = _env(lib)
    run_calls([
        "x.transpose('0')", "x.transpose(0.0)", "x.transpose(dim1='1')", "x.swapaxes('a')",
        "x.select(1.0)", "x.select('a')", "lib.select(x, 1.0)", "lib.transpose(x, '0')",
        "x.unsqueeze_(1.0)", "x.unsqueeze_(dim=1.0)", "x.squeeze_(1.0)", "x.transpose_(0, 1.0)",
        "x.mvlgamma(2.0)", "x.mvlgamma(p=2.0)", "x.mvlgamma_(2.0)", "lib.mvlgamma(x, 2.0)",
        "x.unsafe_chunk(2.0)", "x.unsafe_chunk(chunks='2')", "lib.unsafe_chunk(x, 1.5)",
        "x.unsafe_split(1.5)", "lib.unsafe_split(x, 'a')",
    ], env, rec)  # fmt: skip


def p_reduce_keywords(lib, rec):
    env = _env(lib)
    run_calls([
        "x.max(foo=1)", "x.max(0, foo=1)", "x.max(dim=0, keepdim=True, foo=1)",
        "x.min(o, foo=1)", "x.max(0, True, foo=1)", "x.min(foo=1, bar=2)",
        "x.max(other=o, foo=1)", "x.max(0, keepdim=1)", "x.max(o, dim=0)",
    ], env, rec)  # fmt: skip


def p_sizes_as_floats(lib, rec):
    env = _env(lib)
    run_calls([
        "x.split_with_sizes(1.5)", "x.split_with_sizes(3)", "lib.split_with_sizes(x, 1.5)",
        "x.split_with_sizes(split_sizes='a')", "x.unsafe_split_with_sizes('a')",
        "x.unsafe_split_with_sizes(2)", "x.sum_to_size('a')", "x.sum_to_size(1.5)",
        "x.sum_to_size(size=1.5)", "x.sum_to_size([1.5])", "x.sum_to_size(1, 1.5)",
        "x.sum_to_size(1.5, 1)", "x.sum_to_size(1, 4).shape", "x.sum_to_size((3, 1)).shape",
    ], env, rec)  # fmt: skip


def p_index_ops(lib, rec):
    env = _env(lib)
    run_calls([
        "x.put('a')", "x.put(j.float())", "x.put_([0, 1])", "x.put(j, 'a')",
        "x.scatter_add(0, 1.5)", "x.scatter_add_([])", "x.scatter_add(0, i.tolist(), o)",
        "x.scatter_reduce(1.5)", "x.scatter_reduce_(0, 'a')", "x.slice_scatter('a')",
        "x.slice_scatter(src=[0.0])", "lib.slice_scatter(x, 'a')", "x.diagonal_scatter(1.5)",
    ], env, rec)  # fmt: skip


def p_number_first(lib, rec):
    env = _env(lib)
    run_calls([
        "x.sub(0, 1, 2)", "x.sub(x, 1, 2)", "x.sub_(0, 0, 0, 0)", "x.sub(1.5, x, x)",
        "x.addcmul(x, x, x, x)", "x.addcmul_(1, x, x, x)", "x.addcmul(0, 0, 0, 0)",
        "x.sub(0, 0, 0, 0, 0, 0, 0, 0)",
    ], env, rec)  # fmt: skip


def p_householder(lib, rec):
    env = _env(lib)
    env["q"] = env["x"].T.contiguous()  # (4, 3): rows >= columns
    run_calls([
        "q.orgqr('a')", "q.orgqr(input2=[])", "lib.orgqr(q, [1.0, 2.0])",
        "lib.linalg.householder_product(q, 'a')", "lib.linalg.householder_product('a', q)",
        "q.ormqr('a', q)", "q.ormqr(v[:3], 'a')", "lib.ormqr(q, v[:3], 1.5)",
    ], env, rec)  # fmt: skip


def p_storage_and_legacy(lib, rec):
    env = _env(lib)
    run_calls([
        "x.set_('a')", "x.set_(1.5)", "x.set_(x, 0)", "x.set_(x, 'a', (2,))",
        "x.set_(x, 1.5, (2,))", "x.set_(x.untyped_storage(), 'a', (2,))",
        "x.new(foo=1)", "x.new(1, foo=1)", "lib.Tensor(foo=1)", "lib.Tensor(1, foo=2)",
        "lib.FloatTensor([1.0], foo=2, bar=3)", "x.new(1, 2, foo=1)",
    ], env, rec)  # fmt: skip


def p_random_bounds(lib, rec):
    env = _env(lib)
    run_calls([
        "x.random_('a')", "x.random_(1.5)", "x.random_(0, 10.0)", "x.random_(0, 1, 2)",
        "x.random_(foo=1)", "x.random_(to=1.5)", "x.random_(0, to=1.5)", "x.random_(1, foo=2)",
        "x.random_(from_=1)", "x.random_([])", "x.random_(True)", "x.random_(0, None).shape",
        "x.random_(0, to=None).shape", "x.random_(None, None)", "x.random_(None)",
        "x.random_(0, 0, 0, 0, 0, 0, 0, 0)",
    ], env, rec)  # fmt: skip


def p_device_and_dtype(lib, rec):
    env = _env(lib)
    run_calls([
        "x.pin_memory(1.5)", "x.pin_memory([])", "x.pin_memory(device=[])", "x.to_dense('a')",
        "x.to_dense(dtype=1.5)", "x.to_dense([])", "x.to_dense(float).dtype",
        "x.to_dense(lib.float32).dtype", "x.to_dense(None).dtype",
    ], env, rec)  # fmt: skip


PROGRAMS = [
    "dims_from_config", "reduce_keywords", "sizes_as_floats", "index_ops", "number_first",
    "householder", "storage_and_legacy", "random_bounds", "device_and_dtype",
]  # fmt: skip


@pytest.mark.parametrize("name", PROGRAMS)
def test_calls_match_torch(name):
    assert_calls_match(globals()["p_" + name], torch)


# SWEEP (method, call, torch's "Type: message"): generated by running sweep_calls() under both
# libraries, the calls where torch raises and minitorch raises the same (see the docstring for
# the ones left); regenerate it after changing the sweep.
SWEEP = [
    ('masked_fill', 'x.masked_fill(0, 0, 0, 0, 0, 0, 0, 0)',
     'TypeError: masked_fill() received an invalid combination of arguments - got (int, int,'
     ' int, int, int, int, int, int), but expected one of:\n * (Tensor mask, Tensor value)\n'
     ' * (Tensor mask, Number value)\n'),
    ('masked_fill', "x.masked_fill('a')",
     'TypeError: masked_fill() received an invalid combination of arguments - got (str), but'
     ' expected one of:\n * (Tensor mask, Tensor value)\n * (Tensor mask, Number value)\n'),
    ('masked_fill', 'x.masked_fill([])',
     'TypeError: masked_fill() received an invalid combination of arguments - got (list), bu'
     't expected one of:\n * (Tensor mask, Tensor value)\n * (Tensor mask, Number value)\n'),
    ('masked_fill', 'x.masked_fill(1.5)',
     'TypeError: masked_fill() received an invalid combination of arguments - got (float), b'
     'ut expected one of:\n * (Tensor mask, Tensor value)\n * (Tensor mask, Number value)\n'),
    ('masked_fill', "x.masked_fill(m, 0.0, 'a')",
     'TypeError: masked_fill() received an invalid combination of arguments - got (Tensor, f'
     'loat, str), but expected one of:\n * (Tensor mask, Tensor value)\n * (Tensor mask, Num'
     'ber value)\n'),
    ('masked_scatter', 'x.masked_scatter(m, w, foo=1)',
     "TypeError: masked_scatter() got an unexpected keyword argument 'foo'"),
    ('masked_scatter', 'x.masked_scatter(m, w, out=o)',
     "TypeError: masked_scatter() got an unexpected keyword argument 'out'"),
    ('masked_scatter_', 'x.masked_scatter_(m, w, foo=1)',
     "TypeError: masked_scatter_() got an unexpected keyword argument 'foo'"),
    ('masked_scatter_', 'x.masked_scatter_(m, w, out=o)',
     "TypeError: masked_scatter_() got an unexpected keyword argument 'out'"),
    ('masked_select', 'x.masked_select(0, 0, 0, 0, 0, 0, 0, 0)',
     'TypeError: masked_select() takes 1 positional argument but 8 were given'),
    ('masked_select', "x.masked_select('a')",
     "TypeError: masked_select(): argument 'mask' (position 1) must be Tensor, not str"),
    ('masked_select', 'x.masked_select([])',
     "TypeError: masked_select(): argument 'mask' (position 1) must be Tensor, not list"),
    ('masked_select', 'x.masked_select(1.5)',
     "TypeError: masked_select(): argument 'mask' (position 1) must be Tensor, not float"),
    ('masked_select', "x.masked_select(m, 'a')",
     'TypeError: masked_select() takes 1 positional argument but 2 were given'),
    ('masked_select', 'x.masked_select(m, foo=1)',
     "TypeError: masked_select() got an unexpected keyword argument 'foo'"),
    ('masked_select', 'x.masked_select(m, out=o)',
     "TypeError: masked_select() got an unexpected keyword argument 'out'"),
    ('matmul', 'x.matmul(foo=1)',
     'TypeError: matmul() missing 1 required positional arguments: "other"'),
    ('matmul', 'x.matmul(out=o)',
     'TypeError: matmul() missing 1 required positional arguments: "other"'),
    ('matmul', 'x.matmul(0, 0, 0, 0, 0, 0, 0, 0)',
     'TypeError: matmul() takes 1 positional argument but 8 were given'),
    ('matmul', "x.matmul('a')",
     "TypeError: matmul(): argument 'other' (position 1) must be Tensor, not str"),
    ('matmul', 'x.matmul([])',
     "TypeError: matmul(): argument 'other' (position 1) must be Tensor, not list"),
    ('matmul', 'x.matmul(1.5)',
     "TypeError: matmul(): argument 'other' (position 1) must be Tensor, not float"),
    ('matmul', "x.matmul(v, 'a')",
     'TypeError: matmul() takes 1 positional argument but 2 were given'),
    ('matmul', 'x.matmul(v, foo=1)',
     "TypeError: matmul() got an unexpected keyword argument 'foo'"),
    ('matmul', 'x.matmul(v, out=o)',
     "TypeError: matmul() got an unexpected keyword argument 'out'"),
    ('matrix_power', 'x.matrix_power(0, 0, 0, 0, 0, 0, 0, 0)',
     'TypeError: matrix_power() takes 1 positional argument but 8 were given'),
    ('matrix_power', "x.matrix_power('a')",
     "TypeError: matrix_power(): argument 'n' (position 1) must be int, not str"),
    ('matrix_power', 'x.matrix_power([])',
     "TypeError: matrix_power(): argument 'n' (position 1) must be int, not list"),
    ('matrix_power', 'x.matrix_power(1.5)',
     "TypeError: matrix_power(): argument 'n' (position 1) must be int, not float"),
    ('matrix_power', "x.matrix_power(2, 'a')",
     'TypeError: matrix_power() takes 1 positional argument but 2 were given'),
    ('matrix_power', 'x.matrix_power(2, foo=1)',
     "TypeError: matrix_power() got an unexpected keyword argument 'foo'"),
    ('matrix_power', 'x.matrix_power(2, out=o)',
     "TypeError: matrix_power() got an unexpected keyword argument 'out'"),
    ('max', 'x.max(foo=1)',
     'TypeError: max() received an invalid combination of arguments - got (foo=int, ), but e'
     "xpected one of:\n * ()\n      didn't match because some of the keywords were incorrect"
     ": foo\n * (Tensor other)\n      didn't match because some of the keywords were incorre"
     'ct: foo\n * (int dim, bool keepdim = False)\n'),
    ('max', 'x.max(out=o)',
     'TypeError: max() received an invalid combination of arguments - got (out=Tensor, ), bu'
     "t expected one of:\n * ()\n      didn't match because some of the keywords were incorr"
     "ect: out\n * (Tensor other)\n      didn't match because some of the keywords were inco"
     'rrect: out\n * (int dim, bool keepdim = False)\n'),
    ('max', 'x.max(0, 0, 0, 0, 0, 0, 0, 0)',
     'TypeError: max() received an invalid combination of arguments - got (int, int, int, in'
     't, int, int, int, int), but expected one of:\n * ()\n * (Tensor other)\n * (int dim, b'
     'ool keepdim = False)\n'),
    ('max', "x.max('a')",
     'TypeError: max() received an invalid combination of arguments - got (str), but expecte'
     "d one of:\n * ()\n      didn't match because some of the arguments have invalid types:"
     " (!str!)\n * (Tensor other)\n      didn't match because some of the arguments have inv"
     'alid types: (!str!)\n * (int dim, bool keepdim = False)\n'),
    ('max', 'x.max([])',
     'TypeError: max() received an invalid combination of arguments - got (list), but expect'
     "ed one of:\n * ()\n      didn't match because some of the arguments have invalid types"
     ": (!list of []!)\n * (Tensor other)\n      didn't match because some of the arguments "
     'have invalid types: (!list of []!)\n * (int dim, bool keepdim = False)\n'),
    ('max', 'x.max(1.5)',
     'TypeError: max() received an invalid combination of arguments - got (float), but expec'
     "ted one of:\n * ()\n      didn't match because some of the arguments have invalid type"
     "s: (!float!)\n * (Tensor other)\n      didn't match because some of the arguments have"
     ' invalid types: (!float!)\n * (int dim, bool keepdim = False)\n'),
    ('maximum', 'x.maximum(0, 0, 0, 0, 0, 0, 0, 0)',
     'TypeError: maximum() takes 1 positional argument but 8 were given'),
    ('maximum', "x.maximum('a')",
     "TypeError: maximum(): argument 'other' (position 1) must be Tensor, not str"),
    ('maximum', 'x.maximum([])',
     "TypeError: maximum(): argument 'other' (position 1) must be Tensor, not list"),
    ('maximum', 'x.maximum(1.5)',
     "TypeError: maximum(): argument 'other' (position 1) must be Tensor, not float"),
    ('maximum', "x.maximum(o, 'a')",
     'TypeError: maximum() takes 1 positional argument but 2 were given'),
    ('maximum', 'x.maximum(o, foo=1)',
     "TypeError: maximum() got an unexpected keyword argument 'foo'"),
    ('maximum', 'x.maximum(o, out=o)',
     "TypeError: maximum() got an unexpected keyword argument 'out'"),
    ('mean', 'x.mean(out=o)',
     'TypeError: mean() received an invalid combination of arguments - got (out=Tensor, ), b'
     'ut expected one of:\n * (*, torch.dtype dtype = None)\n * (tuple of ints dim, bool kee'
     'pdim = False, *, torch.dtype dtype = None)\n'),
    ('mean', 'x.mean(0, 0, 0, 0, 0, 0, 0, 0)',
     'TypeError: mean() received an invalid combination of arguments - got (int, int, int, i'
     'nt, int, int, int, int), but expected one of:\n * (*, torch.dtype dtype = None)\n * (t'
     'uple of ints dim, bool keepdim = False, *, torch.dtype dtype = None)\n'),
    ('mean', "x.mean('a')",
     'TypeError: mean() received an invalid combination of arguments - got (str), but expect'
     'ed one of:\n * (*, torch.dtype dtype = None)\n * (tuple of ints dim, bool keepdim = Fa'
     'lse, *, torch.dtype dtype = None)\n'),
    ('mean', 'x.mean(1.5)',
     'TypeError: mean() received an invalid combination of arguments - got (float), but expe'
     'cted one of:\n * (*, torch.dtype dtype = None)\n * (tuple of ints dim, bool keepdim = '
     'False, *, torch.dtype dtype = None)\n'),
    ('median', 'x.median(out=o)',
     'TypeError: median() missing 1 required positional arguments: "dim"'),
    ('median', "x.median('a')",
     "TypeError: median(): argument 'dim' (position 1) must be int, not str"),
    ('median', 'x.median([])',
     "TypeError: median(): argument 'dim' (position 1) must be int, not list"),
    ('median', 'x.median(1.5)',
     "TypeError: median(): argument 'dim' (position 1) must be int, not float"),
    ('min', 'x.min(foo=1)',
     'TypeError: min() received an invalid combination of arguments - got (foo=int, ), but e'
     "xpected one of:\n * ()\n      didn't match because some of the keywords were incorrect"
     ": foo\n * (Tensor other)\n      didn't match because some of the keywords were incorre"
     'ct: foo\n * (int dim, bool keepdim = False)\n'),
    ('min', 'x.min(out=o)',
     'TypeError: min() received an invalid combination of arguments - got (out=Tensor, ), bu'
     "t expected one of:\n * ()\n      didn't match because some of the keywords were incorr"
     "ect: out\n * (Tensor other)\n      didn't match because some of the keywords were inco"
     'rrect: out\n * (int dim, bool keepdim = False)\n'),
    ('min', 'x.min(0, 0, 0, 0, 0, 0, 0, 0)',
     'TypeError: min() received an invalid combination of arguments - got (int, int, int, in'
     't, int, int, int, int), but expected one of:\n * ()\n * (Tensor other)\n * (int dim, b'
     'ool keepdim = False)\n'),
    ('min', "x.min('a')",
     'TypeError: min() received an invalid combination of arguments - got (str), but expecte'
     "d one of:\n * ()\n      didn't match because some of the arguments have invalid types:"
     " (!str!)\n * (Tensor other)\n      didn't match because some of the arguments have inv"
     'alid types: (!str!)\n * (int dim, bool keepdim = False)\n'),
    ('min', 'x.min([])',
     'TypeError: min() received an invalid combination of arguments - got (list), but expect'
     "ed one of:\n * ()\n      didn't match because some of the arguments have invalid types"
     ": (!list of []!)\n * (Tensor other)\n      didn't match because some of the arguments "
     'have invalid types: (!list of []!)\n * (int dim, bool keepdim = False)\n'),
    ('min', 'x.min(1.5)',
     'TypeError: min() received an invalid combination of arguments - got (float), but expec'
     "ted one of:\n * ()\n      didn't match because some of the arguments have invalid type"
     "s: (!float!)\n * (Tensor other)\n      didn't match because some of the arguments have"
     ' invalid types: (!float!)\n * (int dim, bool keepdim = False)\n'),
    ('minimum', 'x.minimum(0, 0, 0, 0, 0, 0, 0, 0)',
     'TypeError: minimum() takes 1 positional argument but 8 were given'),
    ('minimum', "x.minimum('a')",
     "TypeError: minimum(): argument 'other' (position 1) must be Tensor, not str"),
    ('minimum', 'x.minimum([])',
     "TypeError: minimum(): argument 'other' (position 1) must be Tensor, not list"),
    ('minimum', 'x.minimum(1.5)',
     "TypeError: minimum(): argument 'other' (position 1) must be Tensor, not float"),
    ('minimum', "x.minimum(o, 'a')",
     'TypeError: minimum() takes 1 positional argument but 2 were given'),
    ('minimum', 'x.minimum(o, foo=1)',
     "TypeError: minimum() got an unexpected keyword argument 'foo'"),
    ('minimum', 'x.minimum(o, out=o)',
     "TypeError: minimum() got an unexpected keyword argument 'out'"),
    ('mm', 'x.mm(foo=1)',
     'TypeError: mm() missing 1 required positional arguments: "mat2"'),
    ('mm', 'x.mm(out=o)',
     'TypeError: mm() missing 1 required positional arguments: "mat2"'),
    ('mm', 'x.mm(0, 0, 0, 0, 0, 0, 0, 0)',
     'TypeError: mm() takes 1 positional argument but 8 were given'),
    ('mm', "x.mm('a')",
     "TypeError: mm(): argument 'mat2' (position 1) must be Tensor, not str"),
    ('mm', 'x.mm([])',
     "TypeError: mm(): argument 'mat2' (position 1) must be Tensor, not list"),
    ('mm', 'x.mm(1.5)',
     "TypeError: mm(): argument 'mat2' (position 1) must be Tensor, not float"),
    ('mm', "x.mm(w, 'a')",
     'TypeError: mm() takes 1 positional argument but 2 were given'),
    ('mm', 'x.mm(w, foo=1)',
     "TypeError: mm() got an unexpected keyword argument 'foo'"),
    ('mm', 'x.mm(w, out=o)',
     "TypeError: mm() got an unexpected keyword argument 'out'"),
    ('mode', 'x.mode(foo=1)',
     "TypeError: mode() got an unexpected keyword argument 'foo'"),
    ('mode', 'x.mode(out=o)',
     "TypeError: mode() got an unexpected keyword argument 'out'"),
    ('mode', "x.mode('a')",
     "TypeError: mode(): argument 'dim' (position 1) must be int, not str"),
    ('mode', 'x.mode([])',
     "TypeError: mode(): argument 'dim' (position 1) must be int, not list"),
    ('mode', 'x.mode(1.5)',
     "TypeError: mode(): argument 'dim' (position 1) must be int, not float"),
    ('moveaxis', 'x.moveaxis(0, 0, 0, 0, 0, 0, 0, 0)',
     'TypeError: moveaxis() received an invalid combination of arguments - got (int, int, in'
     't, int, int, int, int, int), but expected one of:\n * (int source, int destination)\n '
     '* (tuple of ints source, tuple of ints destination)\n'),
    ('moveaxis', "x.moveaxis('a')",
     'TypeError: moveaxis() received an invalid combination of arguments - got (str), but ex'
     'pected one of:\n * (int source, int destination)\n * (tuple of ints source, tuple of i'
     'nts destination)\n'),
    ('moveaxis', 'x.moveaxis([])',
     'TypeError: moveaxis() received an invalid combination of arguments - got (list), but e'
     'xpected one of:\n * (int source, int destination)\n * (tuple of ints source, tuple of '
     'ints destination)\n'),
    ('moveaxis', 'x.moveaxis(1.5)',
     'TypeError: moveaxis() received an invalid combination of arguments - got (float), but '
     'expected one of:\n * (int source, int destination)\n * (tuple of ints source, tuple of'
     ' ints destination)\n'),
    ('moveaxis', "x.moveaxis(0, 1, 'a')",
     'TypeError: moveaxis() received an invalid combination of arguments - got (int, int, st'
     'r), but expected one of:\n * (int source, int destination)\n * (tuple of ints source, '
     'tuple of ints destination)\n'),
    ('movedim', 'x.movedim(0, 0, 0, 0, 0, 0, 0, 0)',
     'TypeError: movedim() received an invalid combination of arguments - got (int, int, int'
     ', int, int, int, int, int), but expected one of:\n * (int source, int destination)\n *'
     ' (tuple of ints source, tuple of ints destination)\n'),
    ('movedim', "x.movedim('a')",
     'TypeError: movedim() received an invalid combination of arguments - got (str), but exp'
     'ected one of:\n * (int source, int destination)\n * (tuple of ints source, tuple of in'
     'ts destination)\n'),
    ('movedim', 'x.movedim([])',
     'TypeError: movedim() received an invalid combination of arguments - got (list), but ex'
     'pected one of:\n * (int source, int destination)\n * (tuple of ints source, tuple of i'
     'nts destination)\n'),
    ('movedim', 'x.movedim(1.5)',
     'TypeError: movedim() received an invalid combination of arguments - got (float), but e'
     'xpected one of:\n * (int source, int destination)\n * (tuple of ints source, tuple of '
     'ints destination)\n'),
    ('movedim', "x.movedim(0, 1, 'a')",
     'TypeError: movedim() received an invalid combination of arguments - got (int, int, str'
     '), but expected one of:\n * (int source, int destination)\n * (tuple of ints source, t'
     'uple of ints destination)\n'),
    ('mul', "x.mul('a')",
     "TypeError: mul(): argument 'other' (position 1) must be Tensor, not str"),
    ('mul', 'x.mul([])',
     "TypeError: mul(): argument 'other' (position 1) must be Tensor, not list"),
    ('mul', 'x.mul(2, foo=1)',
     "TypeError: mul() got an unexpected keyword argument 'foo'"),
    ('mul', 'x.mul(2, out=o)',
     "TypeError: mul() got an unexpected keyword argument 'out'"),
    ('mul_', "x.mul_('a')",
     "TypeError: mul_(): argument 'other' (position 1) must be Tensor, not str"),
    ('mul_', 'x.mul_([])',
     "TypeError: mul_(): argument 'other' (position 1) must be Tensor, not list"),
    ('mul_', 'x.mul_(2, foo=1)',
     "TypeError: mul_() got an unexpected keyword argument 'foo'"),
    ('mul_', 'x.mul_(2, out=o)',
     "TypeError: mul_() got an unexpected keyword argument 'out'"),
    ('multinomial', 'x.multinomial(0, 0, 0, 0, 0, 0, 0, 0)',
     'TypeError: multinomial() takes from 1 to 2 positional arguments but 8 were given'),
    ('multinomial', "x.multinomial('a')",
     "TypeError: multinomial(): argument 'num_samples' (position 1) must be int, not str"),
    ('multinomial', 'x.multinomial([])',
     "TypeError: multinomial(): argument 'num_samples' (position 1) must be int, not list"),
    ('multinomial', 'x.multinomial(1.5)',
     "TypeError: multinomial(): argument 'num_samples' (position 1) must be int, not float"),
    ('multinomial', "x.multinomial(2, 'a')",
     "TypeError: multinomial(): argument 'replacement' (position 2) must be bool, not str"),
    ('multinomial', 'x.multinomial(2, foo=1)',
     "TypeError: multinomial() got an unexpected keyword argument 'foo'"),
    ('multinomial', 'x.multinomial(2, out=o)',
     "TypeError: multinomial() got an unexpected keyword argument 'out'"),
    ('mv', 'x.mv(foo=1)',
     'TypeError: mv() missing 1 required positional arguments: "vec"'),
    ('mv', 'x.mv(out=o)',
     'TypeError: mv() missing 1 required positional arguments: "vec"'),
    ('mv', 'x.mv(0, 0, 0, 0, 0, 0, 0, 0)',
     'TypeError: mv() takes 1 positional argument but 8 were given'),
    ('mv', "x.mv('a')",
     "TypeError: mv(): argument 'vec' (position 1) must be Tensor, not str"),
    ('mv', 'x.mv([])',
     "TypeError: mv(): argument 'vec' (position 1) must be Tensor, not list"),
    ('mv', 'x.mv(1.5)',
     "TypeError: mv(): argument 'vec' (position 1) must be Tensor, not float"),
    ('mv', "x.mv(v, 'a')",
     'TypeError: mv() takes 1 positional argument but 2 were given'),
    ('mv', 'x.mv(v, foo=1)',
     "TypeError: mv() got an unexpected keyword argument 'foo'"),
    ('mv', 'x.mv(v, out=o)',
     "TypeError: mv() got an unexpected keyword argument 'out'"),
    ('mvlgamma', "x.mvlgamma('a')",
     "TypeError: mvlgamma(): argument 'p' (position 1) must be int, not str"),
    ('mvlgamma', 'x.mvlgamma([])',
     "TypeError: mvlgamma(): argument 'p' (position 1) must be int, not list"),
    ('mvlgamma', 'x.mvlgamma(1.5)',
     "TypeError: mvlgamma(): argument 'p' (position 1) must be int, not float"),
    ('mvlgamma', 'x.mvlgamma(1, foo=1)',
     "TypeError: mvlgamma() got an unexpected keyword argument 'foo'"),
    ('mvlgamma', 'x.mvlgamma(1, out=o)',
     "TypeError: mvlgamma() got an unexpected keyword argument 'out'"),
    ('mvlgamma_', "x.mvlgamma_('a')",
     "TypeError: mvlgamma_(): argument 'p' (position 1) must be int, not str"),
    ('mvlgamma_', 'x.mvlgamma_([])',
     "TypeError: mvlgamma_(): argument 'p' (position 1) must be int, not list"),
    ('mvlgamma_', 'x.mvlgamma_(1.5)',
     "TypeError: mvlgamma_(): argument 'p' (position 1) must be int, not float"),
    ('mvlgamma_', 'x.mvlgamma_(1, foo=1)',
     "TypeError: mvlgamma_() got an unexpected keyword argument 'foo'"),
    ('mvlgamma_', 'x.mvlgamma_(1, out=o)',
     "TypeError: mvlgamma_() got an unexpected keyword argument 'out'"),
    ('nan_to_num', 'x.nan_to_num(foo=1)',
     "TypeError: nan_to_num() got an unexpected keyword argument 'foo'"),
    ('nan_to_num', 'x.nan_to_num(out=o)',
     "TypeError: nan_to_num() got an unexpected keyword argument 'out'"),
    ('nan_to_num', 'x.nan_to_num(0, 0, 0, 0, 0, 0, 0, 0)',
     'TypeError: nan_to_num() takes from 0 to 3 positional arguments but 8 were given'),
    ('nan_to_num', "x.nan_to_num('a')",
     "TypeError: nan_to_num(): argument 'nan' (position 1) must be float, not str"),
    ('nan_to_num', 'x.nan_to_num([])',
     "TypeError: nan_to_num(): argument 'nan' (position 1) must be float, not list"),
    ('nan_to_num_', 'x.nan_to_num_(foo=1)',
     "TypeError: nan_to_num_() got an unexpected keyword argument 'foo'"),
    ('nan_to_num_', 'x.nan_to_num_(out=o)',
     "TypeError: nan_to_num_() got an unexpected keyword argument 'out'"),
    ('nan_to_num_', 'x.nan_to_num_(0, 0, 0, 0, 0, 0, 0, 0)',
     'TypeError: nan_to_num_() takes from 0 to 3 positional arguments but 8 were given'),
    ('nan_to_num_', "x.nan_to_num_('a')",
     "TypeError: nan_to_num_(): argument 'nan' (position 1) must be float, not str"),
    ('nan_to_num_', 'x.nan_to_num_([])',
     "TypeError: nan_to_num_(): argument 'nan' (position 1) must be float, not list"),
    ('nanmean', 'x.nanmean(foo=1)',
     "TypeError: nanmean() got an unexpected keyword argument 'foo'"),
    ('nanmean', 'x.nanmean(out=o)',
     "TypeError: nanmean() got an unexpected keyword argument 'out'"),
    ('nanmean', 'x.nanmean(0, 0, 0, 0, 0, 0, 0, 0)',
     'TypeError: nanmean() takes from 0 to 2 positional arguments but 8 were given'),
    ('nanmean', "x.nanmean('a')",
     "TypeError: nanmean(): argument 'dim' (position 1) must be tuple of ints, not str"),
    ('nanmean', 'x.nanmean(1.5)',
     "TypeError: nanmean(): argument 'dim' (position 1) must be tuple of ints, not float"),
    ('nanmedian', 'x.nanmedian(out=o)',
     'TypeError: nanmedian() missing 1 required positional arguments: "dim"'),
    ('nanmedian', "x.nanmedian('a')",
     "TypeError: nanmedian(): argument 'dim' (position 1) must be int, not str"),
    ('nanmedian', 'x.nanmedian([])',
     "TypeError: nanmedian(): argument 'dim' (position 1) must be int, not list"),
    ('nanmedian', 'x.nanmedian(1.5)',
     "TypeError: nanmedian(): argument 'dim' (position 1) must be int, not float"),
    ('nanquantile', 'x.nanquantile(foo=1)',
     'TypeError: nanquantile() received an invalid combination of arguments - got (foo=int, '
     '), but expected one of:\n * (Tensor q, int dim = None, bool keepdim = False, *, str in'
     'terpolation = "linear")\n * (float q, int dim = None, bool keepdim = False, *, str int'
     'erpolation = "linear")\n'),
    ('nanquantile', 'x.nanquantile(out=o)',
     'TypeError: nanquantile() received an invalid combination of arguments - got (out=Tenso'
     'r, ), but expected one of:\n * (Tensor q, int dim = None, bool keepdim = False, *, str'
     ' interpolation = "linear")\n * (float q, int dim = None, bool keepdim = False, *, str '
     'interpolation = "linear")\n'),
    ('nanquantile', 'x.nanquantile(0, 0, 0, 0, 0, 0, 0, 0)',
     'TypeError: nanquantile() received an invalid combination of arguments - got (int, int,'
     ' int, int, int, int, int, int), but expected one of:\n * (Tensor q, int dim = None, bo'
     'ol keepdim = False, *, str interpolation = "linear")\n * (float q, int dim = None, boo'
     'l keepdim = False, *, str interpolation = "linear")\n'),
    ('nanquantile', "x.nanquantile('a')",
     'TypeError: nanquantile() received an invalid combination of arguments - got (str), but'
     ' expected one of:\n * (Tensor q, int dim = None, bool keepdim = False, *, str interpol'
     'ation = "linear")\n * (float q, int dim = None, bool keepdim = False, *, str interpola'
     'tion = "linear")\n'),
    ('nanquantile', 'x.nanquantile([])',
     'TypeError: nanquantile() received an invalid combination of arguments - got (list), bu'
     't expected one of:\n * (Tensor q, int dim = None, bool keepdim = False, *, str interpo'
     'lation = "linear")\n * (float q, int dim = None, bool keepdim = False, *, str interpol'
     'ation = "linear")\n'),
    ('nanquantile', 'x.nanquantile(1.5)',
     'RuntimeError: quantile() q must be in the range [0, 1] but got 1.5'),
    ('nanquantile', "x.nanquantile(0.5, 'a')",
     'TypeError: nanquantile() received an invalid combination of arguments - got (float, st'
     'r), but expected one of:\n * (Tensor q, int dim = None, bool keepdim = False, *, str i'
     'nterpolation = "linear")\n * (float q, int dim = None, bool keepdim = False, *, str in'
     'terpolation = "linear")\n'),
    ('nanquantile', 'x.nanquantile(0.5, foo=1)',
     'TypeError: nanquantile() received an invalid combination of arguments - got (float, fo'
     'o=int), but expected one of:\n * (Tensor q, int dim = None, bool keepdim = False, *, s'
     'tr interpolation = "linear")\n * (float q, int dim = None, bool keepdim = False, *, st'
     'r interpolation = "linear")\n'),
    ('nanquantile', 'x.nanquantile(0.5, out=o)',
     'TypeError: nanquantile() received an invalid combination of arguments - got (float, ou'
     't=Tensor), but expected one of:\n * (Tensor q, int dim = None, bool keepdim = False, *'
     ', str interpolation = "linear")\n * (float q, int dim = None, bool keepdim = False, *,'
     ' str interpolation = "linear")\n'),
    ('nansum', 'x.nansum(foo=1)',
     "TypeError: nansum() got an unexpected keyword argument 'foo'"),
    ('nansum', 'x.nansum(out=o)',
     "TypeError: nansum() got an unexpected keyword argument 'out'"),
    ('nansum', 'x.nansum(0, 0, 0, 0, 0, 0, 0, 0)',
     'TypeError: nansum() takes from 0 to 2 positional arguments but 8 were given'),
    ('nansum', "x.nansum('a')",
     "TypeError: nansum(): argument 'dim' (position 1) must be tuple of ints, not str"),
    ('nansum', 'x.nansum(1.5)',
     "TypeError: nansum(): argument 'dim' (position 1) must be tuple of ints, not float"),
    ('narrow', 'x.narrow(0, 0, 0, 0, 0, 0, 0, 0)',
     'TypeError: narrow() received an invalid combination of arguments - got (int, int, int,'
     ' int, int, int, int, int), but expected one of:\n * (int dim, Tensor start, int length'
     ')\n * (int dim, int start, int length)\n'),
    ('narrow', "x.narrow('a')",
     'TypeError: narrow() received an invalid combination of arguments - got (str), but expe'
     'cted one of:\n * (int dim, Tensor start, int length)\n * (int dim, int start, int leng'
     'th)\n'),
    ('narrow', 'x.narrow([])',
     'TypeError: narrow() received an invalid combination of arguments - got (list), but exp'
     'ected one of:\n * (int dim, Tensor start, int length)\n * (int dim, int start, int len'
     'gth)\n'),
    ('narrow', 'x.narrow(1.5)',
     'TypeError: narrow() received an invalid combination of arguments - got (float), but ex'
     'pected one of:\n * (int dim, Tensor start, int length)\n * (int dim, int start, int le'
     'ngth)\n'),
    ('narrow', "x.narrow(0, 0, 1, 'a')",
     'TypeError: narrow() received an invalid combination of arguments - got (int, int, int,'
     ' str), but expected one of:\n * (int dim, Tensor start, int length)\n * (int dim, int '
     'start, int length)\n'),
    ('narrow_copy', 'x.narrow_copy(out=o)',
     'TypeError: narrow_copy() missing 3 required positional argument: "dim", "start", "leng'
     'th"'),
    ('narrow_copy', 'x.narrow_copy(0, 0, 1, foo=1)',
     "TypeError: narrow_copy() got an unexpected keyword argument 'foo'"),
    ('narrow_copy', 'x.narrow_copy(0, 0, 1, out=o)',
     "TypeError: narrow_copy() got an unexpected keyword argument 'out'"),
    ('ne', "x.ne('a')",
     'TypeError: ne() received an invalid combination of arguments - got (str), but expected'
     " one of:\n * (Tensor other)\n      didn't match because some of the arguments have inv"
     "alid types: (!str!)\n * (Number other)\n      didn't match because some of the argumen"
     'ts have invalid types: (!str!)\n'),
    ('ne', 'x.ne([])',
     'TypeError: ne() received an invalid combination of arguments - got (list), but expecte'
     "d one of:\n * (Tensor other)\n      didn't match because some of the arguments have in"
     "valid types: (!list of []!)\n * (Number other)\n      didn't match because some of the"
     ' arguments have invalid types: (!list of []!)\n'),
    ('ne_', "x.ne_('a')",
     'TypeError: ne_() received an invalid combination of arguments - got (str), but expecte'
     "d one of:\n * (Tensor other)\n      didn't match because some of the arguments have in"
     "valid types: (!str!)\n * (Number other)\n      didn't match because some of the argume"
     'nts have invalid types: (!str!)\n'),
    ('ne_', 'x.ne_([])',
     'TypeError: ne_() received an invalid combination of arguments - got (list), but expect'
     "ed one of:\n * (Tensor other)\n      didn't match because some of the arguments have i"
     "nvalid types: (!list of []!)\n * (Number other)\n      didn't match because some of th"
     'e arguments have invalid types: (!list of []!)\n'),
    ('new', 'x.new(foo=1)',
     'TypeError: new() received an invalid combination of arguments - got (foo=int, ), but e'
     'xpected one of:\n * (*, torch.device device = None)\n * (torch.Storage storage)\n     '
     " didn't match because some of the keywords were incorrect: foo\n * (Tensor other)\n   "
     "   didn't match because some of the keywords were incorrect: foo\n * (tuple of ints si"
     'ze, *, torch.device device = None)\n * (object data, *, torch.device device = None)\n'),
    ('new', 'x.new(out=o)',
     'TypeError: new() received an invalid combination of arguments - got (out=Tensor, ), bu'
     't expected one of:\n * (*, torch.device device = None)\n * (torch.Storage storage)\n  '
     "    didn't match because some of the keywords were incorrect: out\n * (Tensor other)\n"
     "      didn't match because some of the keywords were incorrect: out\n * (tuple of ints"
     ' size, *, torch.device device = None)\n * (object data, *, torch.device device = None)'
     '\n'),
    ('new', "x.new('a')",
     "TypeError: new(): invalid data type 'str'"),
    ('new', 'x.new(1.5)',
     'TypeError: new(): data must be a sequence (got float)'),
    ('new_empty', 'x.new_empty(foo=1)',
     'TypeError: new_empty() missing 1 required positional arguments: "size"'),
    ('new_empty', 'x.new_empty(out=o)',
     'TypeError: new_empty() missing 1 required positional arguments: "size"'),
    ('new_empty', "x.new_empty('a')",
     "TypeError: new_empty(): argument 'size' (position 1) must be tuple of ints, not str"),
    ('new_empty', 'x.new_empty(1.5)',
     "TypeError: new_empty(): argument 'size' (position 1) must be tuple of ints, not float"),
    ('new_empty', "x.new_empty(2, 'a')",
     "TypeError: new_empty(): argument 'size' failed to unpack the object at pos 2 with erro"
     'r "type must be tuple of ints,but got str"'),
    ('new_empty', 'x.new_empty(2, foo=1)',
     "TypeError: new_empty() got an unexpected keyword argument 'foo'"),
    ('new_empty', 'x.new_empty(2, out=o)',
     "TypeError: new_empty() got an unexpected keyword argument 'out'"),
    ('new_full', 'x.new_full(0, 0, 0, 0, 0, 0, 0, 0)',
     'TypeError: new_full() takes 2 positional arguments but 8 were given'),
    ('new_full', 'x.new_full([])',
     'TypeError: new_full() missing 1 required positional arguments: "fill_value"'),
    ('new_full', "x.new_full((2,), 1.0, 'a')",
     'TypeError: new_full() takes 2 positional arguments but 3 were given'),
    ('new_full', 'x.new_full((2,), 1.0, foo=1)',
     "TypeError: new_full() got an unexpected keyword argument 'foo'"),
    ('new_full', 'x.new_full((2,), 1.0, out=o)',
     "TypeError: new_full() got an unexpected keyword argument 'out'"),
    ('new_ones', 'x.new_ones(foo=1)',
     'TypeError: new_ones() missing 1 required positional arguments: "size"'),
    ('new_ones', 'x.new_ones(out=o)',
     'TypeError: new_ones() missing 1 required positional arguments: "size"'),
    ('new_ones', "x.new_ones('a')",
     "TypeError: new_ones(): argument 'size' (position 1) must be tuple of ints, not str"),
    ('new_ones', 'x.new_ones(1.5)',
     "TypeError: new_ones(): argument 'size' (position 1) must be tuple of ints, not float"),
    ('new_ones', "x.new_ones(2, 'a')",
     "TypeError: new_ones(): argument 'size' failed to unpack the object at pos 2 with error"
     ' "type must be tuple of ints,but got str"'),
    ('new_ones', 'x.new_ones(2, foo=1)',
     "TypeError: new_ones() got an unexpected keyword argument 'foo'"),
    ('new_ones', 'x.new_ones(2, out=o)',
     "TypeError: new_ones() got an unexpected keyword argument 'out'"),
    ('new_tensor', 'x.new_tensor(0, 0, 0, 0, 0, 0, 0, 0)',
     'TypeError: new_tensor() takes 1 positional argument but 8 were given'),
    ('new_tensor', "x.new_tensor('a')",
     "TypeError: new(): invalid data type 'str'"),
    ('new_zeros', 'x.new_zeros(foo=1)',
     'TypeError: new_zeros() missing 1 required positional arguments: "size"'),
    ('new_zeros', 'x.new_zeros(out=o)',
     'TypeError: new_zeros() missing 1 required positional arguments: "size"'),
    ('new_zeros', "x.new_zeros('a')",
     "TypeError: new_zeros(): argument 'size' (position 1) must be tuple of ints, not str"),
    ('new_zeros', 'x.new_zeros(1.5)',
     "TypeError: new_zeros(): argument 'size' (position 1) must be tuple of ints, not float"),
    ('new_zeros', "x.new_zeros(2, 'a')",
     "TypeError: new_zeros(): argument 'size' failed to unpack the object at pos 2 with erro"
     'r "type must be tuple of ints,but got str"'),
    ('new_zeros', 'x.new_zeros(2, foo=1)',
     "TypeError: new_zeros() got an unexpected keyword argument 'foo'"),
    ('new_zeros', 'x.new_zeros(2, out=o)',
     "TypeError: new_zeros() got an unexpected keyword argument 'out'"),
    ('nextafter', "x.nextafter('a')",
     "TypeError: nextafter(): argument 'other' (position 1) must be Tensor, not str"),
    ('nextafter', 'x.nextafter([])',
     "TypeError: nextafter(): argument 'other' (position 1) must be Tensor, not list"),
    ('nextafter', 'x.nextafter(1.5)',
     "TypeError: nextafter(): argument 'other' (position 1) must be Tensor, not float"),
    ('nextafter', 'x.nextafter(o, foo=1)',
     "TypeError: nextafter() got an unexpected keyword argument 'foo'"),
    ('nextafter', 'x.nextafter(o, out=o)',
     "TypeError: nextafter() got an unexpected keyword argument 'out'"),
    ('nextafter_', "x.nextafter_('a')",
     "TypeError: nextafter_(): argument 'other' (position 1) must be Tensor, not str"),
    ('nextafter_', 'x.nextafter_([])',
     "TypeError: nextafter_(): argument 'other' (position 1) must be Tensor, not list"),
    ('nextafter_', 'x.nextafter_(1.5)',
     "TypeError: nextafter_(): argument 'other' (position 1) must be Tensor, not float"),
    ('nextafter_', 'x.nextafter_(o, foo=1)',
     "TypeError: nextafter_() got an unexpected keyword argument 'foo'"),
    ('nextafter_', 'x.nextafter_(o, out=o)',
     "TypeError: nextafter_() got an unexpected keyword argument 'out'"),
    ('norm', 'x.norm(foo=1)',
     "TypeError: Tensor.norm() got an unexpected keyword argument 'foo'"),
    ('norm', 'x.norm(out=o)',
     "TypeError: Tensor.norm() got an unexpected keyword argument 'out'"),
    ('norm', 'x.norm(0, 0, 0, 0, 0, 0, 0, 0)',
     'TypeError: Tensor.norm() takes from 1 to 5 positional arguments but 9 were given'),
    ('norm', "x.norm('a')",
     'RuntimeError: linalg.matrix_norm: Order a not supported.'),
    ('norm', 'x.norm([])',
     "TypeError: linalg_vector_norm(): argument 'ord' (position 2) must be Number, not list"),
    ('normal_', 'x.normal_(foo=1)',
     "TypeError: normal_() got an unexpected keyword argument 'foo'"),
    ('normal_', 'x.normal_(out=o)',
     "TypeError: normal_() got an unexpected keyword argument 'out'"),
    ('normal_', "x.normal_('a')",
     "TypeError: normal_(): argument 'mean' (position 1) must be float, not str"),
    ('normal_', 'x.normal_([])',
     "TypeError: normal_(): argument 'mean' (position 1) must be float, not list"),
    ('numpy', 'x.numpy(foo=1)',
     "TypeError: numpy() got an unexpected keyword argument 'foo'"),
    ('numpy', 'x.numpy(out=o)',
     "TypeError: numpy() got an unexpected keyword argument 'out'"),
    ('orgqr', 'x.orgqr(out=o)',
     'TypeError: orgqr() missing 1 required positional arguments: "input2"'),
    ('orgqr', "x.orgqr('a')",
     "TypeError: orgqr(): argument 'input2' (position 1) must be Tensor, not str"),
    ('orgqr', 'x.orgqr([])',
     "TypeError: orgqr(): argument 'input2' (position 1) must be Tensor, not list"),
    ('orgqr', 'x.orgqr(1.5)',
     "TypeError: orgqr(): argument 'input2' (position 1) must be Tensor, not float"),
    ('ormqr', 'x.ormqr(out=o)',
     'TypeError: ormqr() missing 2 required positional argument: "input2", "input3"'),
    ('outer', 'x.outer(foo=1)',
     'TypeError: outer() missing 1 required positional arguments: "vec2"'),
    ('outer', 'x.outer(out=o)',
     'TypeError: outer() missing 1 required positional arguments: "vec2"'),
    ('outer', 'x.outer(0, 0, 0, 0, 0, 0, 0, 0)',
     'TypeError: outer() takes 1 positional argument but 8 were given'),
    ('outer', "x.outer('a')",
     "TypeError: outer(): argument 'vec2' (position 1) must be Tensor, not str"),
    ('outer', 'x.outer([])',
     "TypeError: outer(): argument 'vec2' (position 1) must be Tensor, not list"),
    ('outer', 'x.outer(1.5)',
     "TypeError: outer(): argument 'vec2' (position 1) must be Tensor, not float"),
    ('outer', "x.outer(v, 'a')",
     'TypeError: outer() takes 1 positional argument but 2 were given'),
    ('outer', 'x.outer(v, foo=1)',
     "TypeError: outer() got an unexpected keyword argument 'foo'"),
    ('outer', 'x.outer(v, out=o)',
     "TypeError: outer() got an unexpected keyword argument 'out'"),
    ('permute', 'x.permute(foo=1)',
     'TypeError: permute() missing 1 required positional arguments: "dims"'),
    ('permute', 'x.permute(out=o)',
     'TypeError: permute() missing 1 required positional arguments: "dims"'),
    ('permute', 'x.permute(0, 0, 0, 0, 0, 0, 0, 0)',
     'RuntimeError: permute(sparse_coo): number of dimensions in the tensor input does not m'
     'atch the length of the desired ordering of dimensions i.e. input.dim() = 2 is not equa'
     'l to len(dims) = 8'),
    ('permute', "x.permute('a')",
     "TypeError: permute(): argument 'dims' (position 1) must be tuple of ints, not str"),
    ('permute', 'x.permute([])',
     'RuntimeError: permute(sparse_coo): number of dimensions in the tensor input does not m'
     'atch the length of the desired ordering of dimensions i.e. input.dim() = 2 is not equa'
     'l to len(dims) = 0'),
    ('permute', 'x.permute(1.5)',
     "TypeError: permute(): argument 'dims' (position 1) must be tuple of ints, not float"),
    ('permute', "x.permute(1, 0, 'a')",
     "TypeError: permute(): argument 'dims' failed to unpack the object at pos 3 with error "
     '"type must be tuple of ints,but got str"'),
    ('permute', 'x.permute(1, 0, foo=1)',
     "TypeError: permute() got an unexpected keyword argument 'foo'"),
    ('permute', 'x.permute(1, 0, out=o)',
     "TypeError: permute() got an unexpected keyword argument 'out'"),
    ('pinverse', 'x.pinverse(foo=1)',
     "TypeError: pinverse() got an unexpected keyword argument 'foo'"),
    ('pinverse', 'x.pinverse(out=o)',
     "TypeError: pinverse() got an unexpected keyword argument 'out'"),
    ('pinverse', "x.pinverse('a')",
     "TypeError: pinverse(): argument 'rcond' (position 1) must be float, not str"),
    ('pinverse', 'x.pinverse([])',
     "TypeError: pinverse(): argument 'rcond' (position 1) must be float, not list"),
    ('polygamma', "x.polygamma('a')",
     "TypeError: polygamma(): argument 'n' (position 1) must be int, not str"),
    ('polygamma', 'x.polygamma([])',
     "TypeError: polygamma(): argument 'n' (position 1) must be int, not list"),
    ('polygamma', 'x.polygamma(1.5)',
     "TypeError: polygamma(): argument 'n' (position 1) must be int, not float"),
    ('polygamma', 'x.polygamma(1, foo=1)',
     "TypeError: polygamma() got an unexpected keyword argument 'foo'"),
    ('polygamma', 'x.polygamma(1, out=o)',
     "TypeError: polygamma() got an unexpected keyword argument 'out'"),
    ('polygamma_', "x.polygamma_('a')",
     "TypeError: polygamma_(): argument 'n' (position 1) must be int, not str"),
    ('polygamma_', 'x.polygamma_([])',
     "TypeError: polygamma_(): argument 'n' (position 1) must be int, not list"),
    ('polygamma_', 'x.polygamma_(1.5)',
     "TypeError: polygamma_(): argument 'n' (position 1) must be int, not float"),
    ('polygamma_', 'x.polygamma_(1, foo=1)',
     "TypeError: polygamma_() got an unexpected keyword argument 'foo'"),
    ('polygamma_', 'x.polygamma_(1, out=o)',
     "TypeError: polygamma_() got an unexpected keyword argument 'out'"),
    ('pow', "x.pow('a')",
     'TypeError: pow() received an invalid combination of arguments - got (str), but expecte'
     "d one of:\n * (Tensor exponent)\n      didn't match because some of the arguments have"
     " invalid types: (!str!)\n * (Number exponent)\n      didn't match because some of the "
     'arguments have invalid types: (!str!)\n'),
    ('pow', 'x.pow([])',
     'TypeError: pow() received an invalid combination of arguments - got (list), but expect'
     "ed one of:\n * (Tensor exponent)\n      didn't match because some of the arguments hav"
     "e invalid types: (!list of []!)\n * (Number exponent)\n      didn't match because some"
     ' of the arguments have invalid types: (!list of []!)\n'),
    ('pow_', "x.pow_('a')",
     'TypeError: pow_() received an invalid combination of arguments - got (str), but expect'
     "ed one of:\n * (Tensor exponent)\n      didn't match because some of the arguments hav"
     "e invalid types: (!str!)\n * (Number exponent)\n      didn't match because some of the"
     ' arguments have invalid types: (!str!)\n'),
    ('pow_', 'x.pow_([])',
     'TypeError: pow_() received an invalid combination of arguments - got (list), but expec'
     "ted one of:\n * (Tensor exponent)\n      didn't match because some of the arguments ha"
     "ve invalid types: (!list of []!)\n * (Number exponent)\n      didn't match because som"
     'e of the arguments have invalid types: (!list of []!)\n'),
    ('prelu', "x.prelu('a')",
     "TypeError: prelu(): argument 'weight' (position 1) must be Tensor, not str"),
    ('prelu', 'x.prelu([])',
     "TypeError: prelu(): argument 'weight' (position 1) must be Tensor, not list"),
    ('prelu', 'x.prelu(1.5)',
     "TypeError: prelu(): argument 'weight' (position 1) must be Tensor, not float"),
    ('prod', 'x.prod(out=o)',
     'TypeError: prod() received an invalid combination of arguments - got (out=Tensor, ), b'
     'ut expected one of:\n * (*, torch.dtype dtype = None)\n * (int dim, bool keepdim = Fal'
     'se, *, torch.dtype dtype = None)\n'),
    ('prod', 'x.prod(0, 0, 0, 0, 0, 0, 0, 0)',
     'TypeError: prod() received an invalid combination of arguments - got (int, int, int, i'
     'nt, int, int, int, int), but expected one of:\n * (*, torch.dtype dtype = None)\n * (i'
     'nt dim, bool keepdim = False, *, torch.dtype dtype = None)\n'),
    ('prod', "x.prod('a')",
     'TypeError: prod() received an invalid combination of arguments - got (str), but expect'
     'ed one of:\n * (*, torch.dtype dtype = None)\n * (int dim, bool keepdim = False, *, to'
     'rch.dtype dtype = None)\n'),
    ('prod', 'x.prod([])',
     'TypeError: prod() received an invalid combination of arguments - got (list), but expec'
     'ted one of:\n * (*, torch.dtype dtype = None)\n * (int dim, bool keepdim = False, *, t'
     'orch.dtype dtype = None)\n'),
    ('prod', 'x.prod(1.5)',
     'TypeError: prod() received an invalid combination of arguments - got (float), but expe'
     'cted one of:\n * (*, torch.dtype dtype = None)\n * (int dim, bool keepdim = False, *, '
     'torch.dtype dtype = None)\n'),
    ('put', 'x.put(0, 0, 0, 0, 0, 0, 0, 0)',
     'TypeError: put() takes from 2 to 3 positional arguments but 8 were given'),
    ('put', "x.put('a')",
     "TypeError: put(): argument 'index' (position 1) must be Tensor, not str"),
    ('put', 'x.put([])',
     "TypeError: put(): argument 'index' (position 1) must be Tensor, not list"),
    ('put', 'x.put(1.5)',
     "TypeError: put(): argument 'index' (position 1) must be Tensor, not float"),
    ('put', "x.put(j, o[0, :2], 'a')",
     "TypeError: put(): argument 'accumulate' (position 3) must be bool, not str"),
    ('put', 'x.put(j, o[0, :2], foo=1)',
     "TypeError: put() got an unexpected keyword argument 'foo'"),
    ('put', 'x.put(j, o[0, :2], out=o)',
     "TypeError: put() got an unexpected keyword argument 'out'"),
    ('put_', 'x.put_(0, 0, 0, 0, 0, 0, 0, 0)',
     'TypeError: put_() takes from 2 to 3 positional arguments but 8 were given'),
    ('put_', "x.put_('a')",
     "TypeError: put_(): argument 'index' (position 1) must be Tensor, not str"),
    ('put_', 'x.put_([])',
     "TypeError: put_(): argument 'index' (position 1) must be Tensor, not list"),
    ('put_', 'x.put_(1.5)',
     "TypeError: put_(): argument 'index' (position 1) must be Tensor, not float"),
    ('put_', 'x.put_(j, o[0, :2], foo=1)',
     "TypeError: put_() got an unexpected keyword argument 'foo'"),
    ('put_', 'x.put_(j, o[0, :2], out=o)',
     "TypeError: put_() got an unexpected keyword argument 'out'"),
    ('qr', 'x.qr(foo=1)',
     "TypeError: qr() got an unexpected keyword argument 'foo'"),
    ('qr', 'x.qr(out=o)',
     "TypeError: qr() got an unexpected keyword argument 'out'"),
    ('qr', "x.qr('a')",
     "TypeError: qr(): argument 'some' (position 1) must be bool, not str"),
    ('qr', 'x.qr([])',
     "TypeError: qr(): argument 'some' (position 1) must be bool, not list"),
    ('qr', 'x.qr(1.5)',
     "TypeError: qr(): argument 'some' (position 1) must be bool, not float"),
    ('quantile', 'x.quantile(foo=1)',
     'TypeError: quantile() received an invalid combination of arguments - got (foo=int, ), '
     'but expected one of:\n * (Tensor q, int dim = None, bool keepdim = False, *, str inter'
     'polation = "linear")\n * (float q, int dim = None, bool keepdim = False, *, str interp'
     'olation = "linear")\n'),
    ('quantile', 'x.quantile(out=o)',
     'TypeError: quantile() received an invalid combination of arguments - got (out=Tensor, '
     '), but expected one of:\n * (Tensor q, int dim = None, bool keepdim = False, *, str in'
     'terpolation = "linear")\n * (float q, int dim = None, bool keepdim = False, *, str int'
     'erpolation = "linear")\n'),
    ('quantile', 'x.quantile(0, 0, 0, 0, 0, 0, 0, 0)',
     'TypeError: quantile() received an invalid combination of arguments - got (int, int, in'
     't, int, int, int, int, int), but expected one of:\n * (Tensor q, int dim = None, bool '
     'keepdim = False, *, str interpolation = "linear")\n * (float q, int dim = None, bool k'
     'eepdim = False, *, str interpolation = "linear")\n'),
    ('quantile', "x.quantile('a')",
     'TypeError: quantile() received an invalid combination of arguments - got (str), but ex'
     'pected one of:\n * (Tensor q, int dim = None, bool keepdim = False, *, str interpolati'
     'on = "linear")\n * (float q, int dim = None, bool keepdim = False, *, str interpolatio'
     'n = "linear")\n'),
    ('quantile', 'x.quantile([])',
     'TypeError: quantile() received an invalid combination of arguments - got (list), but e'
     'xpected one of:\n * (Tensor q, int dim = None, bool keepdim = False, *, str interpolat'
     'ion = "linear")\n * (float q, int dim = None, bool keepdim = False, *, str interpolati'
     'on = "linear")\n'),
    ('quantile', 'x.quantile(1.5)',
     'RuntimeError: quantile() q must be in the range [0, 1] but got 1.5'),
    ('quantile', "x.quantile(0.5, 'a')",
     'TypeError: quantile() received an invalid combination of arguments - got (float, str),'
     ' but expected one of:\n * (Tensor q, int dim = None, bool keepdim = False, *, str inte'
     'rpolation = "linear")\n * (float q, int dim = None, bool keepdim = False, *, str inter'
     'polation = "linear")\n'),
    ('quantile', 'x.quantile(0.5, foo=1)',
     'TypeError: quantile() received an invalid combination of arguments - got (float, foo=i'
     'nt), but expected one of:\n * (Tensor q, int dim = None, bool keepdim = False, *, str '
     'interpolation = "linear")\n * (float q, int dim = None, bool keepdim = False, *, str i'
     'nterpolation = "linear")\n'),
    ('quantile', 'x.quantile(0.5, out=o)',
     'TypeError: quantile() received an invalid combination of arguments - got (float, out=T'
     'ensor), but expected one of:\n * (Tensor q, int dim = None, bool keepdim = False, *, s'
     'tr interpolation = "linear")\n * (float q, int dim = None, bool keepdim = False, *, st'
     'r interpolation = "linear")\n'),
    ('random_', 'x.random_(foo=1)',
     'TypeError: random_() received an invalid combination of arguments - got (foo=int, ), b'
     'ut expected one of:\n * (*, torch.Generator generator = None)\n * (int from, int to, *'
     ', torch.Generator generator = None)\n * (int to, *, torch.Generator generator = None)'
     '\n'),
    ('random_', 'x.random_(out=o)',
     'TypeError: random_() received an invalid combination of arguments - got (out=Tensor, )'
     ', but expected one of:\n * (*, torch.Generator generator = None)\n * (int from, int to'
     ', *, torch.Generator generator = None)\n * (int to, *, torch.Generator generator = Non'
     'e)\n'),
    ('random_', 'x.random_(0, 0, 0, 0, 0, 0, 0, 0)',
     'TypeError: random_() received an invalid combination of arguments - got (int, int, int'
     ', int, int, int, int, int), but expected one of:\n * (*, torch.Generator generator = N'
     'one)\n * (int from, int to, *, torch.Generator generator = None)\n * (int to, *, torch'
     '.Generator generator = None)\n'),
    ('random_', "x.random_('a')",
     'TypeError: random_() received an invalid combination of arguments - got (str), but exp'
     'ected one of:\n * (*, torch.Generator generator = None)\n * (int from, int to, *, torc'
     'h.Generator generator = None)\n * (int to, *, torch.Generator generator = None)\n'),
    ('random_', 'x.random_([])',
     'TypeError: random_() received an invalid combination of arguments - got (list), but ex'
     'pected one of:\n * (*, torch.Generator generator = None)\n * (int from, int to, *, tor'
     'ch.Generator generator = None)\n * (int to, *, torch.Generator generator = None)\n'),
    ('random_', 'x.random_(1.5)',
     'TypeError: random_() received an invalid combination of arguments - got (float), but e'
     'xpected one of:\n * (*, torch.Generator generator = None)\n * (int from, int to, *, to'
     'rch.Generator generator = None)\n * (int to, *, torch.Generator generator = None)\n'),
    ('register_hook', 'x.register_hook(foo=1)',
     "TypeError: Tensor.register_hook() got an unexpected keyword argument 'foo'"),
    ('register_hook', 'x.register_hook(out=o)',
     "TypeError: Tensor.register_hook() got an unexpected keyword argument 'out'"),
    ('register_hook', 'x.register_hook(0, 0, 0, 0, 0, 0, 0, 0)',
     'TypeError: Tensor.register_hook() takes 2 positional arguments but 9 were given'),
    ('register_hook', "x.register_hook('a')",
     "RuntimeError: cannot register a hook on a tensor that doesn't require gradient"),
    ('register_hook', 'x.register_hook([])',
     "RuntimeError: cannot register a hook on a tensor that doesn't require gradient"),
    ('register_hook', 'x.register_hook(1.5)',
     "RuntimeError: cannot register a hook on a tensor that doesn't require gradient"),
    ('register_post_accumulate_grad_hook', 'x.register_post_accumulate_grad_hook(foo=1)',
     'TypeError: Tensor.register_post_accumulate_grad_hook() got an unexpected keyword argum'
     "ent 'foo'"),
    ('register_post_accumulate_grad_hook', 'x.register_post_accumulate_grad_hook(out=o)',
     'TypeError: Tensor.register_post_accumulate_grad_hook() got an unexpected keyword argum'
     "ent 'out'"),
    ('register_post_accumulate_grad_hook',
     'x.register_post_accumulate_grad_hook(0, 0, 0, 0, 0, 0, 0, 0)',
     'TypeError: Tensor.register_post_accumulate_grad_hook() takes 2 positional arguments bu'
     't 9 were given'),
    ('register_post_accumulate_grad_hook', "x.register_post_accumulate_grad_hook('a')",
     "RuntimeError: cannot register a hook on a tensor that doesn't require gradient"),
    ('register_post_accumulate_grad_hook', 'x.register_post_accumulate_grad_hook([])',
     "RuntimeError: cannot register a hook on a tensor that doesn't require gradient"),
    ('register_post_accumulate_grad_hook', 'x.register_post_accumulate_grad_hook(1.5)',
     "RuntimeError: cannot register a hook on a tensor that doesn't require gradient"),
    ('remainder', 'x.remainder(0, 0, 0, 0, 0, 0, 0, 0)',
     'TypeError: remainder() received an invalid combination of arguments - got (int, int, i'
     'nt, int, int, int, int, int), but expected one of:\n * (Tensor other)\n * (Number othe'
     'r)\n'),
    ('remainder', "x.remainder('a')",
     'TypeError: remainder() received an invalid combination of arguments - got (str), but e'
     "xpected one of:\n * (Tensor other)\n      didn't match because some of the arguments h"
     "ave invalid types: (!str!)\n * (Number other)\n      didn't match because some of the "
     'arguments have invalid types: (!str!)\n'),
    ('remainder', 'x.remainder([])',
     'TypeError: remainder() received an invalid combination of arguments - got (list), but '
     "expected one of:\n * (Tensor other)\n      didn't match because some of the arguments "
     "have invalid types: (!list of []!)\n * (Number other)\n      didn't match because some"
     ' of the arguments have invalid types: (!list of []!)\n'),
    ('remainder', "x.remainder(2, 'a')",
     'TypeError: remainder() received an invalid combination of arguments - got (int, str), '
     'but expected one of:\n * (Tensor other)\n * (Number other)\n'),
    ('remainder_', 'x.remainder_(0, 0, 0, 0, 0, 0, 0, 0)',
     'TypeError: remainder_() received an invalid combination of arguments - got (int, int, '
     'int, int, int, int, int, int), but expected one of:\n * (Tensor other)\n * (Number oth'
     'er)\n'),
    ('remainder_', "x.remainder_('a')",
     'TypeError: remainder_() received an invalid combination of arguments - got (str), but '
     "expected one of:\n * (Tensor other)\n      didn't match because some of the arguments "
     "have invalid types: (!str!)\n * (Number other)\n      didn't match because some of the"
     ' arguments have invalid types: (!str!)\n'),
    ('remainder_', 'x.remainder_([])',
     'TypeError: remainder_() received an invalid combination of arguments - got (list), but'
     " expected one of:\n * (Tensor other)\n      didn't match because some of the arguments"
     " have invalid types: (!list of []!)\n * (Number other)\n      didn't match because som"
     'e of the arguments have invalid types: (!list of []!)\n'),
    ('remainder_', "x.remainder_(2, 'a')",
     'TypeError: remainder_() received an invalid combination of arguments - got (int, str),'
     ' but expected one of:\n * (Tensor other)\n * (Number other)\n'),
    ('renorm', 'x.renorm(foo=1)',
     'TypeError: renorm() missing 3 required positional argument: "p", "dim", "maxnorm"'),
    ('renorm', 'x.renorm(out=o)',
     'TypeError: renorm() missing 3 required positional argument: "p", "dim", "maxnorm"'),
    ('renorm', 'x.renorm(0, 0, 0, 0, 0, 0, 0, 0)',
     'TypeError: renorm() takes 3 positional arguments but 8 were given'),
    ('renorm', "x.renorm('a')",
     "TypeError: renorm(): argument 'p' (position 1) must be Number, not str"),
    ('renorm', 'x.renorm([])',
     "TypeError: renorm(): argument 'p' (position 1) must be Number, not list"),
    ('renorm', 'x.renorm(1.5)',
     'TypeError: renorm() missing 2 required positional argument: "dim", "maxnorm"'),
    ('renorm', "x.renorm(2, 0, 1.0, 'a')",
     'TypeError: renorm() takes 3 positional arguments but 4 were given'),
    ('renorm', 'x.renorm(2, 0, 1.0, foo=1)',
     "TypeError: renorm() got an unexpected keyword argument 'foo'"),
    ('renorm', 'x.renorm(2, 0, 1.0, out=o)',
     "TypeError: renorm() got an unexpected keyword argument 'out'"),
    ('renorm_', 'x.renorm_(foo=1)',
     'TypeError: renorm_() missing 3 required positional argument: "p", "dim", "maxnorm"'),
    ('renorm_', 'x.renorm_(out=o)',
     'TypeError: renorm_() missing 3 required positional argument: "p", "dim", "maxnorm"'),
    ('renorm_', 'x.renorm_(0, 0, 0, 0, 0, 0, 0, 0)',
     'TypeError: renorm_() takes 3 positional arguments but 8 were given'),
    ('renorm_', "x.renorm_('a')",
     "TypeError: renorm_(): argument 'p' (position 1) must be Number, not str"),
    ('renorm_', 'x.renorm_([])',
     "TypeError: renorm_(): argument 'p' (position 1) must be Number, not list"),
    ('renorm_', 'x.renorm_(1.5)',
     'TypeError: renorm_() missing 2 required positional argument: "dim", "maxnorm"'),
    ('renorm_', "x.renorm_(2, 0, 1.0, 'a')",
     'TypeError: renorm_() takes 3 positional arguments but 4 were given'),
    ('renorm_', 'x.renorm_(2, 0, 1.0, foo=1)',
     "TypeError: renorm_() got an unexpected keyword argument 'foo'"),
    ('renorm_', 'x.renorm_(2, 0, 1.0, out=o)',
     "TypeError: renorm_() got an unexpected keyword argument 'out'"),
    ('repeat', 'x.repeat(foo=1)',
     'TypeError: repeat() missing 1 required positional arguments: "repeats"'),
    ('repeat', 'x.repeat(out=o)',
     'TypeError: repeat() missing 1 required positional arguments: "repeats"'),
    ('repeat', "x.repeat('a')",
     "TypeError: repeat(): argument 'repeats' (position 1) must be tuple of ints, not str"),
    ('repeat', 'x.repeat([])',
     'RuntimeError: Number of dimensions of repeat dims can not be smaller than number of di'
     'mensions of tensor'),
    ('repeat', 'x.repeat(1.5)',
     "TypeError: repeat(): argument 'repeats' (position 1) must be tuple of ints, not float"),
    ('repeat', "x.repeat(1, 1, 'a')",
     "TypeError: repeat(): argument 'repeats' failed to unpack the object at pos 3 with erro"
     'r "type must be tuple of ints,but got str"'),
    ('repeat', 'x.repeat(1, 1, foo=1)',
     "TypeError: repeat() got an unexpected keyword argument 'foo'"),
    ('repeat', 'x.repeat(1, 1, out=o)',
     "TypeError: repeat() got an unexpected keyword argument 'out'"),
    ('repeat_interleave', "x.repeat_interleave('a')",
     'TypeError: repeat_interleave() received an invalid combination of arguments - got (str'
     '), but expected one of:\n * (Tensor repeats, int dim = None, *, int output_size = None'
     ')\n * (int repeats, int dim = None, *, int output_size = None)\n'),
    ('repeat_interleave', 'x.repeat_interleave([])',
     'TypeError: repeat_interleave() received an invalid combination of arguments - got (lis'
     't), but expected one of:\n * (Tensor repeats, int dim = None, *, int output_size = Non'
     'e)\n * (int repeats, int dim = None, *, int output_size = None)\n'),
    ('repeat_interleave', 'x.repeat_interleave(1.5)',
     'TypeError: repeat_interleave() received an invalid combination of arguments - got (flo'
     'at), but expected one of:\n * (Tensor repeats, int dim = None, *, int output_size = No'
     'ne)\n * (int repeats, int dim = None, *, int output_size = None)\n'),
    ('repeat_interleave', "x.repeat_interleave(2, 'a')",
     'TypeError: repeat_interleave() received an invalid combination of arguments - got (int'
     ', str), but expected one of:\n * (Tensor repeats, int dim = None, *, int output_size ='
     ' None)\n * (int repeats, int dim = None, *, int output_size = None)\n'),
    ('requires_grad_', 'x.requires_grad_(foo=1)',
     "TypeError: requires_grad_() got an unexpected keyword argument 'foo'"),
    ('requires_grad_', 'x.requires_grad_(out=o)',
     "TypeError: requires_grad_() got an unexpected keyword argument 'out'"),
    ('requires_grad_', "x.requires_grad_('a')",
     "TypeError: requires_grad_(): argument 'requires_grad' (position 1) must be bool, not s"
     'tr'),
    ('requires_grad_', 'x.requires_grad_([])',
     "TypeError: requires_grad_(): argument 'requires_grad' (position 1) must be bool, not l"
     'ist'),
    ('requires_grad_', 'x.requires_grad_(1.5)',
     "TypeError: requires_grad_(): argument 'requires_grad' (position 1) must be bool, not f"
     'loat'),
    ('reshape', 'x.reshape(foo=1)',
     'TypeError: reshape() missing 1 required positional arguments: "shape"'),
    ('reshape', 'x.reshape(out=o)',
     'TypeError: reshape() missing 1 required positional arguments: "shape"'),
    ('reshape', 'x.reshape(0, 0, 0, 0, 0, 0, 0, 0)',
     "RuntimeError: shape '[0, 0, 0, 0, 0, 0, 0, 0]' is invalid for input of size 12"),
    ('reshape', "x.reshape('a')",
     "TypeError: reshape(): argument 'shape' (position 1) must be tuple of ints, not str"),
    ('reshape', 'x.reshape([])',
     "RuntimeError: shape '[]' is invalid for input of size 12"),
    ('reshape', 'x.reshape(1.5)',
     "TypeError: reshape(): argument 'shape' (position 1) must be tuple of ints, not float"),
    ('reshape', "x.reshape(4, 3, 'a')",
     "TypeError: reshape(): argument 'shape' failed to unpack the object at pos 3 with error"
     ' "type must be tuple of ints,but got str"'),
    ('reshape', 'x.reshape(4, 3, foo=1)',
     "TypeError: reshape() got an unexpected keyword argument 'foo'"),
    ('reshape', 'x.reshape(4, 3, out=o)',
     "TypeError: reshape() got an unexpected keyword argument 'out'"),
    ('reshape_as', 'x.reshape_as(0, 0, 0, 0, 0, 0, 0, 0)',
     'TypeError: reshape_as() takes 1 positional argument but 8 were given'),
    ('reshape_as', "x.reshape_as('a')",
     "TypeError: reshape_as(): argument 'other' (position 1) must be Tensor, not str"),
    ('reshape_as', 'x.reshape_as([])',
     "TypeError: reshape_as(): argument 'other' (position 1) must be Tensor, not list"),
    ('reshape_as', 'x.reshape_as(1.5)',
     "TypeError: reshape_as(): argument 'other' (position 1) must be Tensor, not float"),
    ('reshape_as', "x.reshape_as(o, 'a')",
     'TypeError: reshape_as() takes 1 positional argument but 2 were given'),
    ('reshape_as', 'x.reshape_as(o, foo=1)',
     "TypeError: reshape_as() got an unexpected keyword argument 'foo'"),
    ('reshape_as', 'x.reshape_as(o, out=o)',
     "TypeError: reshape_as() got an unexpected keyword argument 'out'"),
    ('resize', 'x.resize(foo=1)',
     "TypeError: Tensor.resize() got an unexpected keyword argument 'foo'"),
    ('resize', 'x.resize(out=o)',
     "TypeError: Tensor.resize() got an unexpected keyword argument 'out'"),
    ('resize', 'x.resize(0, 0, 0, 0, 0, 0, 0, 0)',
     'RuntimeError: requested resize to 0x0x0x0x0x0x0x0 (0 elements in total), but the given'
     " tensor has a size of 3x4 (12 elements). autograd's resize can only change the shape o"
     'f a given tensor, while preserving the number of elements. '),
    ('resize_', 'x.resize_(foo=1)',
     'TypeError: resize_() missing 1 required positional arguments: "size"'),
    ('resize_', 'x.resize_(out=o)',
     'TypeError: resize_() missing 1 required positional arguments: "size"'),
    ('resize_', "x.resize_('a')",
     "TypeError: resize_(): argument 'size' (position 1) must be tuple of ints, not str"),
    ('resize_', 'x.resize_(1.5)',
     "TypeError: resize_(): argument 'size' (position 1) must be tuple of ints, not float"),
    ('resize_as', 'x.resize_as(foo=1)',
     "TypeError: Tensor.resize_as() got an unexpected keyword argument 'foo'"),
    ('resize_as', 'x.resize_as(out=o)',
     "TypeError: Tensor.resize_as() got an unexpected keyword argument 'out'"),
    ('resize_as', 'x.resize_as(0, 0, 0, 0, 0, 0, 0, 0)',
     'TypeError: Tensor.resize_as() takes 2 positional arguments but 9 were given'),
    ('resize_as_', "x.resize_as_('a')",
     "TypeError: resize_as_(): argument 'the_template' (position 1) must be Tensor, not str"),
    ('resize_as_', 'x.resize_as_([])',
     "TypeError: resize_as_(): argument 'the_template' (position 1) must be Tensor, not list"),
    ('resize_as_', 'x.resize_as_(1.5)',
     "TypeError: resize_as_(): argument 'the_template' (position 1) must be Tensor, not floa"
     't'),
    ('resize_as_', 'x.resize_as_(o, foo=1)',
     "TypeError: resize_as_() got an unexpected keyword argument 'foo'"),
    ('resize_as_', 'x.resize_as_(o, out=o)',
     "TypeError: resize_as_() got an unexpected keyword argument 'out'"),
    ('roll', 'x.roll(0, 0, 0, 0, 0, 0, 0, 0)',
     'TypeError: roll() takes from 1 to 2 positional arguments but 8 were given'),
    ('roll', "x.roll('a')",
     "TypeError: roll(): argument 'shifts' (position 1) must be tuple of ints, not str"),
    ('roll', 'x.roll([])',
     'RuntimeError: `shifts` required'),
    ('roll', 'x.roll(1.5)',
     "TypeError: roll(): argument 'shifts' (position 1) must be tuple of ints, not float"),
    ('roll', "x.roll(1, 'a')",
     "TypeError: roll(): argument 'dims' (position 2) must be tuple of ints, not str"),
    ('roll', 'x.roll(1, foo=1)',
     "TypeError: roll() got an unexpected keyword argument 'foo'"),
    ('roll', 'x.roll(1, out=o)',
     "TypeError: roll() got an unexpected keyword argument 'out'"),
    ('rot90', 'x.rot90(foo=1)',
     "TypeError: rot90() got an unexpected keyword argument 'foo'"),
    ('rot90', 'x.rot90(out=o)',
     "TypeError: rot90() got an unexpected keyword argument 'out'"),
    ('rot90', 'x.rot90(0, 0, 0, 0, 0, 0, 0, 0)',
     'TypeError: rot90() takes from 0 to 2 positional arguments but 8 were given'),
    ('rot90', "x.rot90('a')",
     "TypeError: rot90(): argument 'k' (position 1) must be int, not str"),
    ('rot90', 'x.rot90([])',
     "TypeError: rot90(): argument 'k' (position 1) must be int, not list"),
    ('rot90', 'x.rot90(1.5)',
     "TypeError: rot90(): argument 'k' (position 1) must be int, not float"),
    ('round', 'x.round(0, 0, 0, 0, 0, 0, 0, 0)',
     'TypeError: round() received an invalid combination of arguments - got (int, int, int, '
     'int, int, int, int, int), but expected one of:\n * ()\n * (*, int decimals)\n'),
    ('round', "x.round('a')",
     'TypeError: round() takes from 1 to 0 positional arguments but 1 were given'),
    ('round', 'x.round([])',
     'TypeError: round() takes from 1 to 0 positional arguments but 1 were given'),
    ('round', 'x.round(1.5)',
     'TypeError: round() takes from 1 to 0 positional arguments but 1 were given'),
    ('round_', 'x.round_(0, 0, 0, 0, 0, 0, 0, 0)',
     'TypeError: round_() received an invalid combination of arguments - got (int, int, int,'
     ' int, int, int, int, int), but expected one of:\n * ()\n * (*, int decimals)\n'),
    ('round_', "x.round_('a')",
     'TypeError: round_() takes from 1 to 0 positional arguments but 1 were given'),
    ('round_', 'x.round_([])',
     'TypeError: round_() takes from 1 to 0 positional arguments but 1 were given'),
    ('round_', 'x.round_(1.5)',
     'TypeError: round_() takes from 1 to 0 positional arguments but 1 were given'),
    ('scatter_add', 'x.scatter_add(0, 0, 0, 0, 0, 0, 0, 0)',
     'TypeError: scatter_add() takes 3 positional arguments but 8 were given'),
    ('scatter_add', "x.scatter_add('a')",
     "TypeError: scatter_add(): argument 'dim' (position 1) must be int, not str"),
    ('scatter_add', 'x.scatter_add([])',
     "TypeError: scatter_add(): argument 'dim' (position 1) must be int, not list"),
    ('scatter_add', 'x.scatter_add(1.5)',
     "TypeError: scatter_add(): argument 'dim' (position 1) must be int, not float"),
    ('scatter_add', "x.scatter_add(0, i, o, 'a')",
     'TypeError: scatter_add() takes 3 positional arguments but 4 were given'),
    ('scatter_add', 'x.scatter_add(0, i, o, foo=1)',
     "TypeError: scatter_add() got an unexpected keyword argument 'foo'"),
    ('scatter_add', 'x.scatter_add(0, i, o, out=o)',
     "TypeError: scatter_add() got an unexpected keyword argument 'out'"),
    ('scatter_add_', 'x.scatter_add_(0, 0, 0, 0, 0, 0, 0, 0)',
     'TypeError: scatter_add_() takes 3 positional arguments but 8 were given'),
    ('scatter_add_', "x.scatter_add_('a')",
     "TypeError: scatter_add_(): argument 'dim' (position 1) must be int, not str"),
    ('scatter_add_', 'x.scatter_add_([])',
     "TypeError: scatter_add_(): argument 'dim' (position 1) must be int, not list"),
    ('scatter_add_', 'x.scatter_add_(1.5)',
     "TypeError: scatter_add_(): argument 'dim' (position 1) must be int, not float"),
    ('scatter_add_', "x.scatter_add_(0, i, o, 'a')",
     'TypeError: scatter_add_() takes 3 positional arguments but 4 were given'),
    ('scatter_add_', 'x.scatter_add_(0, i, o, foo=1)',
     "TypeError: scatter_add_() got an unexpected keyword argument 'foo'"),
    ('scatter_add_', 'x.scatter_add_(0, i, o, out=o)',
     "TypeError: scatter_add_() got an unexpected keyword argument 'out'"),
    ('scatter_reduce', 'x.scatter_reduce(0, 0, 0, 0, 0, 0, 0, 0)',
     'TypeError: scatter_reduce() takes 4 positional arguments but 8 were given'),
    ('scatter_reduce', "x.scatter_reduce('a')",
     "TypeError: scatter_reduce(): argument 'dim' (position 1) must be int, not str"),
    ('scatter_reduce', 'x.scatter_reduce([])',
     "TypeError: scatter_reduce(): argument 'dim' (position 1) must be int, not list"),
    ('scatter_reduce', 'x.scatter_reduce(1.5)',
     "TypeError: scatter_reduce(): argument 'dim' (position 1) must be int, not float"),
    ('scatter_reduce', "x.scatter_reduce(0, i, o, 'sum', 'a')",
     'TypeError: scatter_reduce() takes 4 positional arguments but 5 were given'),
    ('scatter_reduce', "x.scatter_reduce(0, i, o, 'sum', foo=1)",
     "TypeError: scatter_reduce() got an unexpected keyword argument 'foo'"),
    ('scatter_reduce', "x.scatter_reduce(0, i, o, 'sum', out=o)",
     "TypeError: scatter_reduce() got an unexpected keyword argument 'out'"),
    ('scatter_reduce_', 'x.scatter_reduce_(0, 0, 0, 0, 0, 0, 0, 0)',
     'TypeError: scatter_reduce_() takes 4 positional arguments but 8 were given'),
    ('scatter_reduce_', "x.scatter_reduce_('a')",
     "TypeError: scatter_reduce_(): argument 'dim' (position 1) must be int, not str"),
    ('scatter_reduce_', 'x.scatter_reduce_([])',
     "TypeError: scatter_reduce_(): argument 'dim' (position 1) must be int, not list"),
    ('scatter_reduce_', 'x.scatter_reduce_(1.5)',
     "TypeError: scatter_reduce_(): argument 'dim' (position 1) must be int, not float"),
    ('scatter_reduce_', "x.scatter_reduce_(0, i, o, 'sum', 'a')",
     'TypeError: scatter_reduce_() takes 4 positional arguments but 5 were given'),
    ('scatter_reduce_', "x.scatter_reduce_(0, i, o, 'sum', foo=1)",
     "TypeError: scatter_reduce_() got an unexpected keyword argument 'foo'"),
    ('scatter_reduce_', "x.scatter_reduce_(0, i, o, 'sum', out=o)",
     "TypeError: scatter_reduce_() got an unexpected keyword argument 'out'"),
    ('select', 'x.select(0, 0, 0, 0, 0, 0, 0, 0)',
     'TypeError: select() takes 2 positional arguments but 8 were given'),
    ('select', "x.select('a')",
     "TypeError: select(): argument 'dim' (position 1) must be int, not str"),
    ('select', 'x.select([])',
     "TypeError: select(): argument 'dim' (position 1) must be int, not list"),
    ('select', 'x.select(1.5)',
     "TypeError: select(): argument 'dim' (position 1) must be int, not float"),
    ('select', "x.select(0, 1, 'a')",
     'TypeError: select() takes 2 positional arguments but 3 were given'),
    ('select', 'x.select(0, 1, foo=1)',
     "TypeError: select() got an unexpected keyword argument 'foo'"),
    ('select', 'x.select(0, 1, out=o)',
     "TypeError: select() got an unexpected keyword argument 'out'"),
    ('select_scatter', 'x.select_scatter(out=o)',
     'TypeError: select_scatter() missing 3 required positional argument: "src", "dim", "ind'
     'ex"'),
    ('select_scatter', 'x.select_scatter(o[0], 0, 0, foo=1)',
     "TypeError: select_scatter() got an unexpected keyword argument 'foo'"),
    ('select_scatter', 'x.select_scatter(o[0], 0, 0, out=o)',
     "TypeError: select_scatter() got an unexpected keyword argument 'out'"),
    ('set_', "x.set_('a')",
     'TypeError: set_() received an invalid combination of arguments - got (str), but expect'
     "ed one of:\n * ()\n      didn't match because some of the arguments have invalid types"
     ": (!str!)\n * (torch.Storage source)\n      didn't match because some of the arguments"
     ' have invalid types: (!str!)\n * (torch.Storage source, int storage_offset, tuple of i'
     "nts size, tuple of ints stride = None)\n * (Tensor source)\n      didn't match because"
     ' some of the arguments have invalid types: (!str!)\n * (Tensor source, int storage_off'
     'set, tuple of ints size, tuple of ints stride = None)\n'),
    ('set_', 'x.set_([])',
     'TypeError: set_() received an invalid combination of arguments - got (list), but expec'
     "ted one of:\n * ()\n      didn't match because some of the arguments have invalid type"
     "s: (!list of []!)\n * (torch.Storage source)\n      didn't match because some of the a"
     'rguments have invalid types: (!list of []!)\n * (torch.Storage source, int storage_off'
     "set, tuple of ints size, tuple of ints stride = None)\n * (Tensor source)\n      didn'"
     't match because some of the arguments have invalid types: (!list of []!)\n * (Tensor s'
     'ource, int storage_offset, tuple of ints size, tuple of ints stride = None)\n'),
    ('set_', 'x.set_(1.5)',
     'TypeError: set_() received an invalid combination of arguments - got (float), but expe'
     "cted one of:\n * ()\n      didn't match because some of the arguments have invalid typ"
     "es: (!float!)\n * (torch.Storage source)\n      didn't match because some of the argum"
     'ents have invalid types: (!float!)\n * (torch.Storage source, int storage_offset, tupl'
     "e of ints size, tuple of ints stride = None)\n * (Tensor source)\n      didn't match b"
     'ecause some of the arguments have invalid types: (!float!)\n * (Tensor source, int sto'
     'rage_offset, tuple of ints size, tuple of ints stride = None)\n'),
    ('short', 'x.short(foo=1)',
     "TypeError: short() got an unexpected keyword argument 'foo'"),
    ('short', 'x.short(out=o)',
     "TypeError: short() got an unexpected keyword argument 'out'"),
    ('short', 'x.short(0, 0, 0, 0, 0, 0, 0, 0)',
     'TypeError: short() takes 0 positional arguments but 8 were given'),
    ('short', "x.short('a')",
     'TypeError: short() takes 0 positional arguments but 1 was given'),
    ('short', 'x.short([])',
     'TypeError: short() takes 0 positional arguments but 1 was given'),
    ('short', 'x.short(1.5)',
     'TypeError: short() takes 0 positional arguments but 1 was given'),
    ('size', 'x.size(foo=1)',
     "TypeError: size() got an unexpected keyword argument 'foo'"),
    ('size', 'x.size(out=o)',
     "TypeError: size() got an unexpected keyword argument 'out'"),
    ('size', 'x.size(0, 0, 0, 0, 0, 0, 0, 0)',
     'TypeError: size() takes from 0 to 1 positional arguments but 8 were given'),
    ('size', "x.size('a')",
     "TypeError: size(): argument 'dim' (position 1) must be int, not str"),
    ('size', 'x.size([])',
     "TypeError: size(): argument 'dim' (position 1) must be int, not list"),
    ('size', 'x.size(1.5)',
     "TypeError: size(): argument 'dim' (position 1) must be int, not float"),
    ('slice_scatter', 'x.slice_scatter(out=o)',
     'TypeError: slice_scatter() missing 1 required positional arguments: "src"'),
    ('slice_scatter', "x.slice_scatter('a')",
     "TypeError: slice_scatter(): argument 'src' (position 1) must be Tensor, not str"),
    ('slice_scatter', 'x.slice_scatter([])',
     "TypeError: slice_scatter(): argument 'src' (position 1) must be Tensor, not list"),
    ('slice_scatter', 'x.slice_scatter(1.5)',
     "TypeError: slice_scatter(): argument 'src' (position 1) must be Tensor, not float"),
    ('slice_scatter', "x.slice_scatter(o, 'a')",
     "TypeError: slice_scatter(): argument 'dim' (position 2) must be int, not str"),
    ('slice_scatter', 'x.slice_scatter(o, foo=1)',
     "TypeError: slice_scatter() got an unexpected keyword argument 'foo'"),
    ('slice_scatter', 'x.slice_scatter(o, out=o)',
     "TypeError: slice_scatter() got an unexpected keyword argument 'out'"),
    ('softmax', 'x.softmax(0, 0, 0, 0, 0, 0, 0, 0)',
     'TypeError: softmax() takes from 1 to 2 positional arguments but 8 were given'),
    ('softmax', "x.softmax('a')",
     "TypeError: softmax(): argument 'dim' (position 1) must be int, not str"),
    ('softmax', 'x.softmax([])',
     "TypeError: softmax(): argument 'dim' (position 1) must be int, not list"),
    ('softmax', 'x.softmax(1.5)',
     "TypeError: softmax(): argument 'dim' (position 1) must be int, not float"),
    ('softmax', 'x.softmax(1, foo=1)',
     "TypeError: softmax() got an unexpected keyword argument 'foo'"),
    ('softmax', 'x.softmax(1, out=o)',
     "TypeError: softmax() got an unexpected keyword argument 'out'"),
    ('solve', 'x.solve(foo=1)',
     "TypeError: Tensor.solve() got an unexpected keyword argument 'foo'"),
    ('solve', 'x.solve(out=o)',
     "TypeError: Tensor.solve() got an unexpected keyword argument 'out'"),
    ('solve', 'x.solve(0, 0, 0, 0, 0, 0, 0, 0)',
     'TypeError: Tensor.solve() takes 2 positional arguments but 9 were given'),
    ('solve', "x.solve('a')",
     'RuntimeError: This function was deprecated since version 1.9 and is now removed. `torc'
     'h.solve` is deprecated in favor of `torch.linalg.solve`. `torch.linalg.solve` has its '
     'arguments reversed and does not return the LU factorization.\n\nTo get the LU factoriz'
     'ation see `torch.lu`, which can be used with `torch.lu_solve` or `torch.lu_unpack`.\nX'
     ' = torch.solve(B, A).solution should be replaced with:\nX = torch.linalg.solve(A, B)'),
    ('solve', 'x.solve([])',
     'RuntimeError: This function was deprecated since version 1.9 and is now removed. `torc'
     'h.solve` is deprecated in favor of `torch.linalg.solve`. `torch.linalg.solve` has its '
     'arguments reversed and does not return the LU factorization.\n\nTo get the LU factoriz'
     'ation see `torch.lu`, which can be used with `torch.lu_solve` or `torch.lu_unpack`.\nX'
     ' = torch.solve(B, A).solution should be replaced with:\nX = torch.linalg.solve(A, B)'),
    ('solve', 'x.solve(1.5)',
     'RuntimeError: This function was deprecated since version 1.9 and is now removed. `torc'
     'h.solve` is deprecated in favor of `torch.linalg.solve`. `torch.linalg.solve` has its '
     'arguments reversed and does not return the LU factorization.\n\nTo get the LU factoriz'
     'ation see `torch.lu`, which can be used with `torch.lu_solve` or `torch.lu_unpack`.\nX'
     ' = torch.solve(B, A).solution should be replaced with:\nX = torch.linalg.solve(A, B)'),
    ('sort', 'x.sort(out=o)',
     'TypeError: sort() received an invalid combination of arguments - got (out=Tensor, ), b'
     'ut expected one of:\n * (*, bool stable, int dim = -1, bool descending = False)\n * (i'
     'nt dim = -1, bool descending = False)\n'),
    ('sort', 'x.sort(0, 0, 0, 0, 0, 0, 0, 0)',
     'TypeError: sort() received an invalid combination of arguments - got (int, int, int, i'
     'nt, int, int, int, int), but expected one of:\n * (*, bool stable, int dim = -1, bool '
     'descending = False)\n * (int dim = -1, bool descending = False)\n'),
    ('sort', "x.sort('a')",
     'TypeError: sort() received an invalid combination of arguments - got (str), but expect'
     'ed one of:\n * (*, bool stable, int dim = -1, bool descending = False)\n * (int dim = '
     '-1, bool descending = False)\n'),
    ('sort', 'x.sort([])',
     'TypeError: sort() received an invalid combination of arguments - got (list), but expec'
     'ted one of:\n * (*, bool stable, int dim = -1, bool descending = False)\n * (int dim ='
     ' -1, bool descending = False)\n'),
    ('sort', 'x.sort(1.5)',
     'TypeError: sort() received an invalid combination of arguments - got (float), but expe'
     'cted one of:\n * (*, bool stable, int dim = -1, bool descending = False)\n * (int dim '
     '= -1, bool descending = False)\n'),
    ('split', 'x.split(foo=1)',
     "TypeError: Tensor.split() got an unexpected keyword argument 'foo'"),
    ('split', 'x.split(out=o)',
     "TypeError: Tensor.split() got an unexpected keyword argument 'out'"),
    ('split', 'x.split(0, 0, 0, 0, 0, 0, 0, 0)',
     'TypeError: Tensor.split() takes from 2 to 3 positional arguments but 9 were given'),
    ('split', "x.split('a')",
     "TypeError: split_with_sizes(): argument 'split_sizes' (position 2) must be tuple of in"
     'ts, not str'),
    ('split', 'x.split([])',
     "RuntimeError: split_with_sizes expects split_sizes to sum exactly to 3 (input tensor's"
     ' size at dimension 0), but got split_sizes=[]'),
    ('split', 'x.split(1.5)',
     "TypeError: split_with_sizes(): argument 'split_sizes' (position 2) must be tuple of in"
     'ts, not float'),
    ('split', "x.split(2, 'a')",
     'TypeError: split() received an invalid combination of arguments - got (Tensor, int, st'
     "r), but expected one of:\n * (Tensor input, int split_size, int dim = 0)\n      didn't"
     ' match because some of the arguments have invalid types: (Tensor, int, !str!)\n * (Ten'
     "sor input, tuple of ints split_size, int dim = 0)\n      didn't match because some of "
     'the arguments have invalid types: (Tensor, !int!, !str!)\n'),
    ('split', 'x.split(2, foo=1)',
     "TypeError: Tensor.split() got an unexpected keyword argument 'foo'"),
    ('split', 'x.split(2, out=o)',
     "TypeError: Tensor.split() got an unexpected keyword argument 'out'"),
    ('split_with_sizes', "x.split_with_sizes('a')",
     "TypeError: split_with_sizes(): argument 'split_sizes' (position 1) must be tuple of in"
     'ts, not str'),
    ('split_with_sizes', 'x.split_with_sizes([])',
     "RuntimeError: split_with_sizes expects split_sizes to sum exactly to 3 (input tensor's"
     ' size at dimension 0), but got split_sizes=[]'),
    ('split_with_sizes', 'x.split_with_sizes(1.5)',
     "TypeError: split_with_sizes(): argument 'split_sizes' (position 1) must be tuple of in"
     'ts, not float'),
    ('split_with_sizes', 'x.split_with_sizes([1, 2], foo=1)',
     "TypeError: split_with_sizes() got an unexpected keyword argument 'foo'"),
    ('split_with_sizes', 'x.split_with_sizes([1, 2], out=o)',
     "TypeError: split_with_sizes() got an unexpected keyword argument 'out'"),
    ('squeeze', 'x.squeeze(0, 0, 0, 0, 0, 0, 0, 0)',
     'RuntimeError: dim 0 appears multiple times in the list of dims'),
    ('squeeze', "x.squeeze('a')",
     'TypeError: squeeze() received an invalid combination of arguments - got (str), but exp'
     "ected one of:\n * ()\n      didn't match because some of the arguments have invalid ty"
     "pes: (!str!)\n * (int dim)\n      didn't match because some of the arguments have inva"
     "lid types: (!str!)\n * (tuple of ints dim)\n      didn't match because some of the arg"
     'uments have invalid types: (!str!)\n'),
    ('squeeze', 'x.squeeze(1.5)',
     'TypeError: squeeze() received an invalid combination of arguments - got (float), but e'
     "xpected one of:\n * ()\n      didn't match because some of the arguments have invalid "
     "types: (!float!)\n * (int dim)\n      didn't match because some of the arguments have "
     "invalid types: (!float!)\n * (tuple of ints dim)\n      didn't match because some of t"
     'he arguments have invalid types: (!float!)\n'),
    ('squeeze_', 'x.squeeze_(0, 0, 0, 0, 0, 0, 0, 0)',
     'RuntimeError: dim 0 appears multiple times in the list of dims'),
    ('squeeze_', "x.squeeze_('a')",
     'TypeError: squeeze_() received an invalid combination of arguments - got (str), but ex'
     "pected one of:\n * ()\n      didn't match because some of the arguments have invalid t"
     "ypes: (!str!)\n * (int dim)\n      didn't match because some of the arguments have inv"
     "alid types: (!str!)\n * (tuple of ints dim)\n      didn't match because some of the ar"
     'guments have invalid types: (!str!)\n'),
    ('squeeze_', 'x.squeeze_(1.5)',
     'TypeError: squeeze_() received an invalid combination of arguments - got (float), but '
     "expected one of:\n * ()\n      didn't match because some of the arguments have invalid"
     " types: (!float!)\n * (int dim)\n      didn't match because some of the arguments have"
     " invalid types: (!float!)\n * (tuple of ints dim)\n      didn't match because some of "
     'the arguments have invalid types: (!float!)\n'),
    ('std', 'x.std(out=o)',
     'TypeError: std() received an invalid combination of arguments - got (out=Tensor, ), bu'
     't expected one of:\n * (tuple of ints dim, bool unbiased = True, bool keepdim = False)'
     '\n * (tuple of ints dim = None, *, Number correction = None, bool keepdim = False)\n *'
     " (bool unbiased = True)\n      didn't match because some of the keywords were incorrec"
     't: out\n'),
    ('std', 'x.std(0, 0, 0, 0, 0, 0, 0, 0)',
     'TypeError: std() received an invalid combination of arguments - got (int, int, int, in'
     't, int, int, int, int), but expected one of:\n * (tuple of ints dim, bool unbiased = T'
     'rue, bool keepdim = False)\n * (tuple of ints dim = None, *, Number correction = None,'
     ' bool keepdim = False)\n * (bool unbiased = True)\n'),
    ('std', "x.std('a')",
     'TypeError: std() received an invalid combination of arguments - got (str), but expecte'
     'd one of:\n * (tuple of ints dim, bool unbiased = True, bool keepdim = False)\n * (tup'
     'le of ints dim = None, *, Number correction = None, bool keepdim = False)\n * (bool un'
     "biased = True)\n      didn't match because some of the arguments have invalid types: ("
     '!str!)\n'),
    ('std', 'x.std(1.5)',
     'TypeError: std() received an invalid combination of arguments - got (float), but expec'
     'ted one of:\n * (tuple of ints dim, bool unbiased = True, bool keepdim = False)\n * (t'
     'uple of ints dim = None, *, Number correction = None, bool keepdim = False)\n * (bool '
     "unbiased = True)\n      didn't match because some of the arguments have invalid types:"
     ' (!float!)\n'),
    ('storage', 'x.storage(foo=1)',
     "TypeError: Tensor.storage() got an unexpected keyword argument 'foo'"),
    ('storage', 'x.storage(out=o)',
     "TypeError: Tensor.storage() got an unexpected keyword argument 'out'"),
    ('storage', 'x.storage(0, 0, 0, 0, 0, 0, 0, 0)',
     'TypeError: Tensor.storage() takes 1 positional argument but 9 were given'),
    ('storage', "x.storage('a')",
     'TypeError: Tensor.storage() takes 1 positional argument but 2 were given'),
    ('storage', 'x.storage([])',
     'TypeError: Tensor.storage() takes 1 positional argument but 2 were given'),
    ('storage', 'x.storage(1.5)',
     'TypeError: Tensor.storage() takes 1 positional argument but 2 were given'),
    ('storage_type', 'x.storage_type(foo=1)',
     "TypeError: Tensor.storage_type() got an unexpected keyword argument 'foo'"),
    ('storage_type', 'x.storage_type(out=o)',
     "TypeError: Tensor.storage_type() got an unexpected keyword argument 'out'"),
    ('storage_type', 'x.storage_type(0, 0, 0, 0, 0, 0, 0, 0)',
     'TypeError: Tensor.storage_type() takes 1 positional argument but 9 were given'),
    ('storage_type', "x.storage_type('a')",
     'TypeError: Tensor.storage_type() takes 1 positional argument but 2 were given'),
    ('storage_type', 'x.storage_type([])',
     'TypeError: Tensor.storage_type() takes 1 positional argument but 2 were given'),
    ('storage_type', 'x.storage_type(1.5)',
     'TypeError: Tensor.storage_type() takes 1 positional argument but 2 were given'),
    ('stride', 'x.stride(foo=1)',
     "TypeError: stride() got an unexpected keyword argument 'foo'"),
    ('stride', 'x.stride(out=o)',
     "TypeError: stride() got an unexpected keyword argument 'out'"),
    ('stride', 'x.stride(0, 0, 0, 0, 0, 0, 0, 0)',
     'TypeError: stride() takes from 0 to 1 positional arguments but 8 were given'),
    ('stride', "x.stride('a')",
     "TypeError: stride(): argument 'dim' (position 1) must be int, not str"),
    ('stride', 'x.stride([])',
     "TypeError: stride(): argument 'dim' (position 1) must be int, not list"),
    ('stride', 'x.stride(1.5)',
     "TypeError: stride(): argument 'dim' (position 1) must be int, not float"),
    ('sub', 'x.sub(0, 0, 0, 0, 0, 0, 0, 0)',
     'TypeError: sub() received an invalid combination of arguments - got (int, int, int, in'
     't, int, int, int, int), but expected (Tensor other, *, Number alpha = 1)'),
    ('sub', "x.sub('a')",
     "TypeError: sub(): argument 'other' (position 1) must be Tensor, not str"),
    ('sub', 'x.sub([])',
     "TypeError: sub(): argument 'other' (position 1) must be Tensor, not list"),
    ('sub', "x.sub(o, 'a')",
     'TypeError: sub() takes 1 positional argument but 2 were given'),
    ('sub', 'x.sub(o, foo=1)',
     "TypeError: sub() got an unexpected keyword argument 'foo'"),
    ('sub', 'x.sub(o, out=o)',
     "TypeError: sub() got an unexpected keyword argument 'out'"),
    ('sub_', 'x.sub_(0, 0, 0, 0, 0, 0, 0, 0)',
     'TypeError: sub_() received an invalid combination of arguments - got (int, int, int, i'
     'nt, int, int, int, int), but expected (Tensor other, *, Number alpha = 1)'),
    ('sub_', "x.sub_('a')",
     "TypeError: sub_(): argument 'other' (position 1) must be Tensor, not str"),
    ('sub_', 'x.sub_([])',
     "TypeError: sub_(): argument 'other' (position 1) must be Tensor, not list"),
    ('sub_', "x.sub_(o, 'a')",
     'TypeError: sub_() takes 1 positional argument but 2 were given'),
    ('sub_', 'x.sub_(o, foo=1)',
     "TypeError: sub_() got an unexpected keyword argument 'foo'"),
    ('sub_', 'x.sub_(o, out=o)',
     "TypeError: sub_() got an unexpected keyword argument 'out'"),
    ('sum', 'x.sum(out=o)',
     'TypeError: sum() received an invalid combination of arguments - got (out=Tensor, ), bu'
     't expected one of:\n * (*, torch.dtype dtype = None)\n * (tuple of ints dim, bool keep'
     'dim = False, *, torch.dtype dtype = None)\n'),
    ('sum', 'x.sum(0, 0, 0, 0, 0, 0, 0, 0)',
     'TypeError: sum() received an invalid combination of arguments - got (int, int, int, in'
     't, int, int, int, int), but expected one of:\n * (*, torch.dtype dtype = None)\n * (tu'
     'ple of ints dim, bool keepdim = False, *, torch.dtype dtype = None)\n'),
    ('sum', "x.sum('a')",
     'TypeError: sum() received an invalid combination of arguments - got (str), but expecte'
     'd one of:\n * (*, torch.dtype dtype = None)\n * (tuple of ints dim, bool keepdim = Fal'
     'se, *, torch.dtype dtype = None)\n'),
    ('sum', 'x.sum(1.5)',
     'TypeError: sum() received an invalid combination of arguments - got (float), but expec'
     'ted one of:\n * (*, torch.dtype dtype = None)\n * (tuple of ints dim, bool keepdim = F'
     'alse, *, torch.dtype dtype = None)\n'),
    ('sum_to_size', 'x.sum_to_size(foo=1)',
     'TypeError: sum_to_size() missing 1 required positional arguments: "size"'),
    ('sum_to_size', 'x.sum_to_size(out=o)',
     'TypeError: sum_to_size() missing 1 required positional arguments: "size"'),
    ('sum_to_size', 'x.sum_to_size(0, 0, 0, 0, 0, 0, 0, 0)',
     'RuntimeError: size {[0, 0, 0, 0, 0, 0, 0, 0]} is not expandable to size {[3, 4]}.'),
    ('sum_to_size', "x.sum_to_size('a')",
     "TypeError: sum_to_size(): argument 'size' (position 1) must be tuple of ints, not str"),
    ('sum_to_size', 'x.sum_to_size(1.5)',
     "TypeError: sum_to_size(): argument 'size' (position 1) must be tuple of ints, not floa"
     't'),
    ('sum_to_size', "x.sum_to_size(1, 4, 'a')",
     "TypeError: sum_to_size(): argument 'size' failed to unpack the object at pos 3 with er"
     'ror "type must be tuple of ints,but got str"'),
    ('sum_to_size', 'x.sum_to_size(1, 4, foo=1)',
     "TypeError: sum_to_size() got an unexpected keyword argument 'foo'"),
    ('sum_to_size', 'x.sum_to_size(1, 4, out=o)',
     "TypeError: sum_to_size() got an unexpected keyword argument 'out'"),
    ('svd', 'x.svd(foo=1)',
     "TypeError: svd() got an unexpected keyword argument 'foo'"),
    ('svd', 'x.svd(out=o)',
     "TypeError: svd() got an unexpected keyword argument 'out'"),
    ('svd', "x.svd('a')",
     "TypeError: svd(): argument 'some' (position 1) must be bool, not str"),
    ('svd', 'x.svd([])',
     "TypeError: svd(): argument 'some' (position 1) must be bool, not list"),
    ('svd', 'x.svd(1.5)',
     "TypeError: svd(): argument 'some' (position 1) must be bool, not float"),
    ('swapaxes', 'x.swapaxes(0, 0, 0, 0, 0, 0, 0, 0)',
     'TypeError: swapaxes() takes 2 positional arguments but 8 were given'),
    ('swapaxes', "x.swapaxes('a')",
     "TypeError: swapaxes(): argument 'axis0' (position 1) must be int, not str"),
    ('swapaxes', 'x.swapaxes([])',
     "TypeError: swapaxes(): argument 'axis0' (position 1) must be int, not list"),
    ('swapaxes', 'x.swapaxes(1.5)',
     "TypeError: swapaxes(): argument 'axis0' (position 1) must be int, not float"),
    ('swapaxes', "x.swapaxes(0, 1, 'a')",
     'TypeError: swapaxes() takes 2 positional arguments but 3 were given'),
    ('swapaxes', 'x.swapaxes(0, 1, foo=1)',
     "TypeError: swapaxes() got an unexpected keyword argument 'foo'"),
    ('swapaxes', 'x.swapaxes(0, 1, out=o)',
     "TypeError: swapaxes() got an unexpected keyword argument 'out'"),
    ('swapaxes_', 'x.swapaxes_(0, 1, foo=1)',
     "TypeError: swapaxes_() got an unexpected keyword argument 'foo'"),
    ('swapaxes_', 'x.swapaxes_(0, 1, out=o)',
     "TypeError: swapaxes_() got an unexpected keyword argument 'out'"),
    ('symeig', 'x.symeig(foo=1)',
     "TypeError: Tensor.symeig() got an unexpected keyword argument 'foo'"),
    ('symeig', 'x.symeig(out=o)',
     "TypeError: Tensor.symeig() got an unexpected keyword argument 'out'"),
    ('symeig', 'x.symeig(0, 0, 0, 0, 0, 0, 0, 0)',
     'TypeError: Tensor.symeig() takes from 1 to 2 positional arguments but 9 were given'),
    ('symeig', "x.symeig('a')",
     'RuntimeError: This function was deprecated since version 1.9 and is now removed. The d'
     'efault behavior has changed from using the upper triangular portion of the matrix by d'
     'efault to using the lower triangular portion.\n\nL, _ = torch.symeig(A, upper=upper) s'
     "hould be replaced with:\nL = torch.linalg.eigvalsh(A, UPLO='U' if upper else 'L')\n\na"
     'nd\n\nL, V = torch.symeig(A, eigenvectors=True) should be replaced with:\nL, V = torch'
     ".linalg.eigh(A, UPLO='U' if upper else 'L')"),
    ('symeig', 'x.symeig([])',
     'RuntimeError: This function was deprecated since version 1.9 and is now removed. The d'
     'efault behavior has changed from using the upper triangular portion of the matrix by d'
     'efault to using the lower triangular portion.\n\nL, _ = torch.symeig(A, upper=upper) s'
     "hould be replaced with:\nL = torch.linalg.eigvalsh(A, UPLO='U' if upper else 'L')\n\na"
     'nd\n\nL, V = torch.symeig(A, eigenvectors=True) should be replaced with:\nL, V = torch'
     ".linalg.eigh(A, UPLO='U' if upper else 'L')"),
    ('symeig', 'x.symeig(1.5)',
     'RuntimeError: This function was deprecated since version 1.9 and is now removed. The d'
     'efault behavior has changed from using the upper triangular portion of the matrix by d'
     'efault to using the lower triangular portion.\n\nL, _ = torch.symeig(A, upper=upper) s'
     "hould be replaced with:\nL = torch.linalg.eigvalsh(A, UPLO='U' if upper else 'L')\n\na"
     'nd\n\nL, V = torch.symeig(A, eigenvectors=True) should be replaced with:\nL, V = torch'
     ".linalg.eigh(A, UPLO='U' if upper else 'L')"),
    ('take', "x.take('a')",
     "TypeError: take(): argument 'index' (position 1) must be Tensor, not str"),
    ('take', 'x.take([])',
     "TypeError: take(): argument 'index' (position 1) must be Tensor, not list"),
    ('take', 'x.take(1.5)',
     "TypeError: take(): argument 'index' (position 1) must be Tensor, not float"),
    ('take', 'x.take(j, foo=1)',
     "TypeError: take() got an unexpected keyword argument 'foo'"),
    ('take', 'x.take(j, out=o)',
     "TypeError: take() got an unexpected keyword argument 'out'"),
    ('take_along_dim', 'x.take_along_dim(0, 0, 0, 0, 0, 0, 0, 0)',
     'TypeError: take_along_dim() takes from 1 to 2 positional arguments but 8 were given'),
    ('take_along_dim', "x.take_along_dim('a')",
     "TypeError: take_along_dim(): argument 'indices' (position 1) must be Tensor, not str"),
    ('take_along_dim', 'x.take_along_dim([])',
     "TypeError: take_along_dim(): argument 'indices' (position 1) must be Tensor, not list"),
    ('take_along_dim', 'x.take_along_dim(1.5)',
     "TypeError: take_along_dim(): argument 'indices' (position 1) must be Tensor, not float"),
    ('take_along_dim', "x.take_along_dim(i, 0, 'a')",
     'TypeError: take_along_dim() takes from 1 to 2 positional arguments but 3 were given'),
    ('take_along_dim', 'x.take_along_dim(i, 0, foo=1)',
     "TypeError: take_along_dim() got an unexpected keyword argument 'foo'"),
    ('take_along_dim', 'x.take_along_dim(i, 0, out=o)',
     "TypeError: take_along_dim() got an unexpected keyword argument 'out'"),
    ('tensor_split', 'x.tensor_split(0, 0, 0, 0, 0, 0, 0, 0)',
     'TypeError: tensor_split() received an invalid combination of arguments - got (int, int'
     ', int, int, int, int, int, int), but expected one of:\n * (tuple of ints indices, int '
     'dim = 0)\n * (Tensor tensor_indices_or_sections, int dim = 0)\n * (int sections, int d'
     'im = 0)\n'),
    ('tensor_split', "x.tensor_split('a')",
     'TypeError: tensor_split() received an invalid combination of arguments - got (str), bu'
     't expected one of:\n * (tuple of ints indices, int dim = 0)\n * (Tensor tensor_indices'
     '_or_sections, int dim = 0)\n * (int sections, int dim = 0)\n'),
    ('tensor_split', 'x.tensor_split(1.5)',
     'TypeError: tensor_split() received an invalid combination of arguments - got (float), '
     'but expected one of:\n * (tuple of ints indices, int dim = 0)\n * (Tensor tensor_indic'
     'es_or_sections, int dim = 0)\n * (int sections, int dim = 0)\n'),
    ('tensor_split', "x.tensor_split(2, 'a')",
     'TypeError: tensor_split() received an invalid combination of arguments - got (int, str'
     "), but expected one of:\n * (tuple of ints indices, int dim = 0)\n      didn't match b"
     'ecause some of the arguments have invalid types: (!int!, !str!)\n * (Tensor tensor_ind'
     "ices_or_sections, int dim = 0)\n      didn't match because some of the arguments have "
     "invalid types: (!int!, !str!)\n * (int sections, int dim = 0)\n      didn't match beca"
     'use some of the arguments have invalid types: (int, !str!)\n'),
    ('tile', 'x.tile(foo=1)',
     'TypeError: tile() missing 1 required positional arguments: "dims"'),
    ('tile', 'x.tile(out=o)',
     'TypeError: tile() missing 1 required positional arguments: "dims"'),
    ('tile', "x.tile('a')",
     "TypeError: tile(): argument 'dims' (position 1) must be tuple of ints, not str"),
    ('tile', 'x.tile(1.5)',
     "TypeError: tile(): argument 'dims' (position 1) must be tuple of ints, not float"),
    ('tile', "x.tile(2, 'a')",
     'TypeError: tile(): argument \'dims\' failed to unpack the object at pos 2 with error "'
     'type must be tuple of ints,but got str"'),
    ('tile', 'x.tile(2, foo=1)',
     "TypeError: tile() got an unexpected keyword argument 'foo'"),
    ('tile', 'x.tile(2, out=o)',
     "TypeError: tile() got an unexpected keyword argument 'out'"),
    ('to', 'x.to(foo=1)',
     'TypeError: to() received an invalid combination of arguments - got (foo=int, ), but ex'
     'pected one of:\n * (torch.device device = None, torch.dtype dtype = None, bool non_blo'
     'cking = False, bool copy = False, *, torch.memory_format memory_format = None)\n * (to'
     'rch.dtype dtype, bool non_blocking = False, bool copy = False, *, torch.memory_format '
     'memory_format = None)\n * (Tensor tensor, bool non_blocking = False, bool copy = False'
     ', *, torch.memory_format memory_format = None)\n'),
    ('to', 'x.to(out=o)',
     'TypeError: to() received an invalid combination of arguments - got (out=Tensor, ), but'
     ' expected one of:\n * (torch.device device = None, torch.dtype dtype = None, bool non_'
     'blocking = False, bool copy = False, *, torch.memory_format memory_format = None)\n * '
     '(torch.dtype dtype, bool non_blocking = False, bool copy = False, *, torch.memory_form'
     'at memory_format = None)\n * (Tensor tensor, bool non_blocking = False, bool copy = Fa'
     'lse, *, torch.memory_format memory_format = None)\n'),
    ('to', 'x.to(0, 0, 0, 0, 0, 0, 0, 0)',
     'TypeError: to() received an invalid combination of arguments - got (int, int, int, int'
     ', int, int, int, int), but expected one of:\n * (torch.device device = None, torch.dty'
     'pe dtype = None, bool non_blocking = False, bool copy = False, *, torch.memory_format '
     'memory_format = None)\n * (torch.dtype dtype, bool non_blocking = False, bool copy = F'
     'alse, *, torch.memory_format memory_format = None)\n * (Tensor tensor, bool non_blocki'
     'ng = False, bool copy = False, *, torch.memory_format memory_format = None)\n'),
    ('to', "x.to('a')",
     'RuntimeError: Expected one of cpu, cuda, ipu, xpu, mkldnn, opengl, opencl, ideep, hip,'
     ' ve, fpga, maia, xla, lazy, vulkan, mps, meta, hpu, mtia, privateuseone device type at'
     ' start of device string: a'),
    ('to', 'x.to([])',
     'TypeError: to() received an invalid combination of arguments - got (list), but expecte'
     'd one of:\n * (torch.device device = None, torch.dtype dtype = None, bool non_blocking'
     ' = False, bool copy = False, *, torch.memory_format memory_format = None)\n * (torch.d'
     'type dtype, bool non_blocking = False, bool copy = False, *, torch.memory_format memor'
     'y_format = None)\n * (Tensor tensor, bool non_blocking = False, bool copy = False, *, '
     'torch.memory_format memory_format = None)\n'),
    ('to_dense', 'x.to_dense(foo=1)',
     "TypeError: to_dense() got an unexpected keyword argument 'foo'"),
    ('to_dense', 'x.to_dense(out=o)',
     "TypeError: to_dense() got an unexpected keyword argument 'out'"),
    ('to_dense', "x.to_dense('a')",
     "TypeError: to_dense(): argument 'dtype' (position 1) must be torch.dtype, not str"),
    ('to_dense', 'x.to_dense([])',
     "TypeError: to_dense(): argument 'dtype' (position 1) must be torch.dtype, not list"),
    ('to_dense', 'x.to_dense(1.5)',
     "TypeError: to_dense(): argument 'dtype' (position 1) must be torch.dtype, not float"),
    ('tolist', 'x.tolist(0, 0, 0, 0, 0, 0, 0, 0)',
     'TypeError: TensorBase.tolist() takes no arguments (8 given)'),
    ('tolist', "x.tolist('a')",
     'TypeError: TensorBase.tolist() takes no arguments (1 given)'),
    ('tolist', 'x.tolist([])',
     'TypeError: TensorBase.tolist() takes no arguments (1 given)'),
    ('tolist', 'x.tolist(1.5)',
     'TypeError: TensorBase.tolist() takes no arguments (1 given)'),
    ('topk', 'x.topk(0, 0, 0, 0, 0, 0, 0, 0)',
     'TypeError: topk() takes from 1 to 4 positional arguments but 8 were given'),
    ('topk', "x.topk('a')",
     "TypeError: topk(): argument 'k' (position 1) must be int, not str"),
    ('topk', 'x.topk([])',
     "TypeError: topk(): argument 'k' (position 1) must be int, not list"),
    ('topk', 'x.topk(1.5)',
     "TypeError: topk(): argument 'k' (position 1) must be int, not float"),
    ('topk', "x.topk(2, 'a')",
     "TypeError: topk(): argument 'dim' (position 2) must be int, not str"),
    ('topk', 'x.topk(2, foo=1)',
     "TypeError: topk() got an unexpected keyword argument 'foo'"),
    ('topk', 'x.topk(2, out=o)',
     "TypeError: topk() got an unexpected keyword argument 'out'"),
    ('trace', 'x.trace(foo=1)',
     'TypeError: TensorBase.trace() takes no keyword arguments'),
    ('trace', 'x.trace(out=o)',
     'TypeError: TensorBase.trace() takes no keyword arguments'),
    ('trace', 'x.trace(0, 0, 0, 0, 0, 0, 0, 0)',
     'TypeError: TensorBase.trace() takes no arguments (8 given)'),
    ('trace', "x.trace('a')",
     'TypeError: TensorBase.trace() takes no arguments (1 given)'),
    ('trace', 'x.trace([])',
     'TypeError: TensorBase.trace() takes no arguments (1 given)'),
    ('trace', 'x.trace(1.5)',
     'TypeError: TensorBase.trace() takes no arguments (1 given)'),
    ('transpose', 'x.transpose(0, 0, 0, 0, 0, 0, 0, 0)',
     'TypeError: transpose() takes 2 positional arguments but 8 were given'),
    ('transpose', "x.transpose('a')",
     "TypeError: transpose(): argument 'dim0' (position 1) must be int, not str"),
    ('transpose', 'x.transpose([])',
     "TypeError: transpose(): argument 'dim0' (position 1) must be int, not list"),
    ('transpose', 'x.transpose(1.5)',
     "TypeError: transpose(): argument 'dim0' (position 1) must be int, not float"),
    ('transpose', "x.transpose(0, 1, 'a')",
     'TypeError: transpose() takes 2 positional arguments but 3 were given'),
    ('transpose', 'x.transpose(0, 1, foo=1)',
     "TypeError: transpose() got an unexpected keyword argument 'foo'"),
    ('transpose', 'x.transpose(0, 1, out=o)',
     "TypeError: transpose() got an unexpected keyword argument 'out'"),
    ('transpose_', 'x.transpose_(0, 1, foo=1)',
     "TypeError: transpose_() got an unexpected keyword argument 'foo'"),
    ('transpose_', 'x.transpose_(0, 1, out=o)',
     "TypeError: transpose_() got an unexpected keyword argument 'out'"),
    ('triangular_solve', "x.triangular_solve('a')",
     "TypeError: triangular_solve(): argument 'A' (position 1) must be Tensor, not str"),
    ('triangular_solve', 'x.triangular_solve([])',
     "TypeError: triangular_solve(): argument 'A' (position 1) must be Tensor, not list"),
    ('triangular_solve', 'x.triangular_solve(1.5)',
     "TypeError: triangular_solve(): argument 'A' (position 1) must be Tensor, not float"),
    ('tril', 'x.tril(foo=1)',
     "TypeError: tril() got an unexpected keyword argument 'foo'"),
    ('tril', 'x.tril(out=o)',
     "TypeError: tril() got an unexpected keyword argument 'out'"),
    ('tril', 'x.tril(0, 0, 0, 0, 0, 0, 0, 0)',
     'TypeError: tril() takes from 0 to 1 positional arguments but 8 were given'),
    ('tril', "x.tril('a')",
     "TypeError: tril(): argument 'diagonal' (position 1) must be int, not str"),
    ('tril', 'x.tril([])',
     "TypeError: tril(): argument 'diagonal' (position 1) must be int, not list"),
    ('tril', 'x.tril(1.5)',
     "TypeError: tril(): argument 'diagonal' (position 1) must be int, not float"),
    ('tril_', 'x.tril_(foo=1)',
     "TypeError: tril_() got an unexpected keyword argument 'foo'"),
    ('tril_', 'x.tril_(out=o)',
     "TypeError: tril_() got an unexpected keyword argument 'out'"),
    ('tril_', "x.tril_('a')",
     "TypeError: tril_(): argument 'diagonal' (position 1) must be int, not str"),
    ('tril_', 'x.tril_([])',
     "TypeError: tril_(): argument 'diagonal' (position 1) must be int, not list"),
    ('tril_', 'x.tril_(1.5)',
     "TypeError: tril_(): argument 'diagonal' (position 1) must be int, not float"),
    ('triu', 'x.triu(foo=1)',
     "TypeError: triu() got an unexpected keyword argument 'foo'"),
    ('triu', 'x.triu(out=o)',
     "TypeError: triu() got an unexpected keyword argument 'out'"),
    ('triu', 'x.triu(0, 0, 0, 0, 0, 0, 0, 0)',
     'TypeError: triu() takes from 0 to 1 positional arguments but 8 were given'),
    ('triu', "x.triu('a')",
     "TypeError: triu(): argument 'diagonal' (position 1) must be int, not str"),
    ('triu', 'x.triu([])',
     "TypeError: triu(): argument 'diagonal' (position 1) must be int, not list"),
    ('triu', 'x.triu(1.5)',
     "TypeError: triu(): argument 'diagonal' (position 1) must be int, not float"),
    ('triu_', 'x.triu_(foo=1)',
     "TypeError: triu_() got an unexpected keyword argument 'foo'"),
    ('triu_', 'x.triu_(out=o)',
     "TypeError: triu_() got an unexpected keyword argument 'out'"),
    ('triu_', "x.triu_('a')",
     "TypeError: triu_(): argument 'diagonal' (position 1) must be int, not str"),
    ('triu_', 'x.triu_([])',
     "TypeError: triu_(): argument 'diagonal' (position 1) must be int, not list"),
    ('triu_', 'x.triu_(1.5)',
     "TypeError: triu_(): argument 'diagonal' (position 1) must be int, not float"),
    ('true_divide', "x.true_divide('a')",
     'TypeError: true_divide() received an invalid combination of arguments - got (str), but'
     " expected one of:\n * (Tensor other)\n      didn't match because some of the arguments"
     " have invalid types: (!str!)\n * (Number other)\n      didn't match because some of th"
     'e arguments have invalid types: (!str!)\n'),
    ('true_divide', 'x.true_divide([])',
     'TypeError: true_divide() received an invalid combination of arguments - got (list), bu'
     "t expected one of:\n * (Tensor other)\n      didn't match because some of the argument"
     "s have invalid types: (!list of []!)\n * (Number other)\n      didn't match because so"
     'me of the arguments have invalid types: (!list of []!)\n'),
    ('type', 'x.type(foo=1)',
     "TypeError: type() got an unexpected keyword argument 'foo'"),
    ('type', 'x.type(out=o)',
     "TypeError: type() got an unexpected keyword argument 'out'"),
    ('type', "x.type('a')",
     "ValueError: invalid type: 'a'"),
    ('type', 'x.type([])',
     'TypeError: dtype must be a type, str, or dtype object'),
    ('type', 'x.type(1.5)',
     'TypeError: dtype must be a type, str, or dtype object'),
    ('type_as', 'x.type_as(0, 0, 0, 0, 0, 0, 0, 0)',
     'TypeError: type_as() takes 1 positional argument but 8 were given'),
    ('type_as', "x.type_as('a')",
     "TypeError: type_as(): argument 'other' (position 1) must be Tensor, not str"),
    ('type_as', 'x.type_as([])',
     "TypeError: type_as(): argument 'other' (position 1) must be Tensor, not list"),
    ('type_as', 'x.type_as(1.5)',
     "TypeError: type_as(): argument 'other' (position 1) must be Tensor, not float"),
    ('type_as', "x.type_as(o, 'a')",
     'TypeError: type_as() takes 1 positional argument but 2 were given'),
    ('type_as', 'x.type_as(o, foo=1)',
     "TypeError: type_as() got an unexpected keyword argument 'foo'"),
    ('type_as', 'x.type_as(o, out=o)',
     "TypeError: type_as() got an unexpected keyword argument 'out'"),
    ('unbind', 'x.unbind(foo=1)',
     "TypeError: unbind() got an unexpected keyword argument 'foo'"),
    ('unbind', 'x.unbind(out=o)',
     "TypeError: unbind() got an unexpected keyword argument 'out'"),
    ('unbind', 'x.unbind(0, 0, 0, 0, 0, 0, 0, 0)',
     'TypeError: unbind() takes from 0 to 1 positional arguments but 8 were given'),
    ('unbind', "x.unbind('a')",
     "TypeError: unbind(): argument 'dim' (position 1) must be int, not str"),
    ('unbind', 'x.unbind([])',
     "TypeError: unbind(): argument 'dim' (position 1) must be int, not list"),
    ('unbind', 'x.unbind(1.5)',
     "TypeError: unbind(): argument 'dim' (position 1) must be int, not float"),
    ('unflatten', 'x.unflatten(foo=1)',
     "TypeError: Tensor.unflatten() got an unexpected keyword argument 'foo'"),
    ('unflatten', 'x.unflatten(out=o)',
     "TypeError: Tensor.unflatten() got an unexpected keyword argument 'out'"),
    ('unflatten', 'x.unflatten(0, 0, 0, 0, 0, 0, 0, 0)',
     'TypeError: Tensor.unflatten() takes 3 positional arguments but 9 were given'),
    ('unflatten', "x.unflatten('a')",
     "TypeError: Tensor.unflatten() missing 1 required positional argument: 'sizes'"),
    ('unflatten', 'x.unflatten([])',
     "TypeError: Tensor.unflatten() missing 1 required positional argument: 'sizes'"),
    ('unflatten', 'x.unflatten(1.5)',
     "TypeError: Tensor.unflatten() missing 1 required positional argument: 'sizes'"),
    ('unflatten', "x.unflatten(1, (2, 2), 'a')",
     'TypeError: Tensor.unflatten() takes 3 positional arguments but 4 were given'),
    ('unflatten', 'x.unflatten(1, (2, 2), foo=1)',
     "TypeError: Tensor.unflatten() got an unexpected keyword argument 'foo'"),
    ('unflatten', 'x.unflatten(1, (2, 2), out=o)',
     "TypeError: Tensor.unflatten() got an unexpected keyword argument 'out'"),
    ('unfold', 'x.unfold(0, 2, 1, foo=1)',
     "TypeError: unfold() got an unexpected keyword argument 'foo'"),
    ('unfold', 'x.unfold(0, 2, 1, out=o)',
     "TypeError: unfold() got an unexpected keyword argument 'out'"),
    ('uniform_', 'x.uniform_(foo=1)',
     "TypeError: uniform_() got an unexpected keyword argument 'foo'"),
    ('uniform_', 'x.uniform_(out=o)',
     "TypeError: uniform_() got an unexpected keyword argument 'out'"),
    ('uniform_', "x.uniform_('a')",
     "TypeError: uniform_(): argument 'from' (position 1) must be float, not str"),
    ('uniform_', 'x.uniform_([])',
     "TypeError: uniform_(): argument 'from' (position 1) must be float, not list"),
    ('uniform_', 'x.uniform_(1.5)',
     'RuntimeError: uniform_ expects to return a [from, to) range, but found from=1.5 > to=1'),
    ('unique', 'x.unique(foo=1)',
     "TypeError: Tensor.unique() got an unexpected keyword argument 'foo'"),
    ('unique', 'x.unique(out=o)',
     "TypeError: Tensor.unique() got an unexpected keyword argument 'out'"),
    ('unique', 'x.unique(0, 0, 0, 0, 0, 0, 0, 0)',
     'TypeError: Tensor.unique() takes from 1 to 5 positional arguments but 9 were given'),
    ('unique', "x.unique('a')",
     "TypeError: _unique2(): argument 'sorted' must be bool, not str"),
    ('unique', 'x.unique([])',
     "TypeError: _unique2(): argument 'sorted' must be bool, not list"),
    ('unique', 'x.unique(1.5)',
     "TypeError: _unique2(): argument 'sorted' must be bool, not float"),
    ('unique_consecutive', 'x.unique_consecutive(foo=1)',
     "TypeError: Tensor.unique_consecutive() got an unexpected keyword argument 'foo'"),
    ('unique_consecutive', 'x.unique_consecutive(out=o)',
     "TypeError: Tensor.unique_consecutive() got an unexpected keyword argument 'out'"),
    ('unique_consecutive', 'x.unique_consecutive(0, 0, 0, 0, 0, 0, 0, 0)',
     'TypeError: Tensor.unique_consecutive() takes from 1 to 4 positional arguments but 9 we'
     're given'),
    ('unique_consecutive', "x.unique_consecutive('a')",
     "TypeError: unique_consecutive(): argument 'return_inverse' must be bool, not str"),
    ('unique_consecutive', 'x.unique_consecutive([])',
     "TypeError: unique_consecutive(): argument 'return_inverse' must be bool, not list"),
    ('unique_consecutive', 'x.unique_consecutive(1.5)',
     "TypeError: unique_consecutive(): argument 'return_inverse' must be bool, not float"),
    ('unsafe_chunk', "x.unsafe_chunk('a')",
     "TypeError: unsafe_chunk(): argument 'chunks' (position 1) must be int, not str"),
    ('unsafe_chunk', 'x.unsafe_chunk([])',
     "TypeError: unsafe_chunk(): argument 'chunks' (position 1) must be int, not list"),
    ('unsafe_chunk', 'x.unsafe_chunk(1.5)',
     "TypeError: unsafe_chunk(): argument 'chunks' (position 1) must be int, not float"),
    ('unsafe_chunk', 'x.unsafe_chunk(2, foo=1)',
     "TypeError: unsafe_chunk() got an unexpected keyword argument 'foo'"),
    ('unsafe_chunk', 'x.unsafe_chunk(2, out=o)',
     "TypeError: unsafe_chunk() got an unexpected keyword argument 'out'"),
    ('unsafe_split', "x.unsafe_split('a')",
     "TypeError: unsafe_split(): argument 'split_size' (position 1) must be int, not str"),
    ('unsafe_split', 'x.unsafe_split(1.5)',
     "TypeError: unsafe_split(): argument 'split_size' (position 1) must be int, not float"),
    ('unsafe_split', 'x.unsafe_split(2, foo=1)',
     "TypeError: unsafe_split() got an unexpected keyword argument 'foo'"),
    ('unsafe_split', 'x.unsafe_split(2, out=o)',
     "TypeError: unsafe_split() got an unexpected keyword argument 'out'"),
    ('unsafe_split_with_sizes', "x.unsafe_split_with_sizes('a')",
     "TypeError: unsafe_split_with_sizes(): argument 'split_sizes' (position 1) must be tupl"
     'e of ints, not str'),
    ('unsafe_split_with_sizes', 'x.unsafe_split_with_sizes([])',
     "RuntimeError: split_with_sizes expects split_sizes to sum exactly to 3 (input tensor's"
     ' size at dimension 0), but got split_sizes=[]'),
    ('unsafe_split_with_sizes', 'x.unsafe_split_with_sizes(1.5)',
     "TypeError: unsafe_split_with_sizes(): argument 'split_sizes' (position 1) must be tupl"
     'e of ints, not float'),
    ('unsafe_split_with_sizes', 'x.unsafe_split_with_sizes([1, 2], foo=1)',
     "TypeError: unsafe_split_with_sizes() got an unexpected keyword argument 'foo'"),
    ('unsafe_split_with_sizes', 'x.unsafe_split_with_sizes([1, 2], out=o)',
     "TypeError: unsafe_split_with_sizes() got an unexpected keyword argument 'out'"),
    ('unsqueeze', 'x.unsqueeze(0, 0, 0, 0, 0, 0, 0, 0)',
     'TypeError: unsqueeze() takes 1 positional argument but 8 were given'),
    ('unsqueeze', "x.unsqueeze('a')",
     "TypeError: unsqueeze(): argument 'dim' (position 1) must be int, not str"),
    ('unsqueeze', 'x.unsqueeze([])',
     "TypeError: unsqueeze(): argument 'dim' (position 1) must be int, not list"),
    ('unsqueeze', 'x.unsqueeze(1.5)',
     "TypeError: unsqueeze(): argument 'dim' (position 1) must be int, not float"),
    ('unsqueeze', "x.unsqueeze(0, 'a')",
     'TypeError: unsqueeze() takes 1 positional argument but 2 were given'),
    ('unsqueeze', 'x.unsqueeze(0, foo=1)',
     "TypeError: unsqueeze() got an unexpected keyword argument 'foo'"),
    ('unsqueeze', 'x.unsqueeze(0, out=o)',
     "TypeError: unsqueeze() got an unexpected keyword argument 'out'"),
    ('unsqueeze_', "x.unsqueeze_('a')",
     "TypeError: unsqueeze_(): argument 'dim' (position 1) must be int, not str"),
    ('unsqueeze_', 'x.unsqueeze_([])',
     "TypeError: unsqueeze_(): argument 'dim' (position 1) must be int, not list"),
    ('unsqueeze_', 'x.unsqueeze_(1.5)',
     "TypeError: unsqueeze_(): argument 'dim' (position 1) must be int, not float"),
    ('unsqueeze_', 'x.unsqueeze_(0, foo=1)',
     "TypeError: unsqueeze_() got an unexpected keyword argument 'foo'"),
    ('unsqueeze_', 'x.unsqueeze_(0, out=o)',
     "TypeError: unsqueeze_() got an unexpected keyword argument 'out'"),
    ('var', 'x.var(out=o)',
     'TypeError: var() received an invalid combination of arguments - got (out=Tensor, ), bu'
     't expected one of:\n * (tuple of ints dim, bool unbiased = True, bool keepdim = False)'
     '\n * (tuple of ints dim = None, *, Number correction = None, bool keepdim = False)\n *'
     " (bool unbiased = True)\n      didn't match because some of the keywords were incorrec"
     't: out\n'),
    ('var', 'x.var(0, 0, 0, 0, 0, 0, 0, 0)',
     'TypeError: var() received an invalid combination of arguments - got (int, int, int, in'
     't, int, int, int, int), but expected one of:\n * (tuple of ints dim, bool unbiased = T'
     'rue, bool keepdim = False)\n * (tuple of ints dim = None, *, Number correction = None,'
     ' bool keepdim = False)\n * (bool unbiased = True)\n'),
    ('var', "x.var('a')",
     'TypeError: var() received an invalid combination of arguments - got (str), but expecte'
     'd one of:\n * (tuple of ints dim, bool unbiased = True, bool keepdim = False)\n * (tup'
     'le of ints dim = None, *, Number correction = None, bool keepdim = False)\n * (bool un'
     "biased = True)\n      didn't match because some of the arguments have invalid types: ("
     '!str!)\n'),
    ('var', 'x.var(1.5)',
     'TypeError: var() received an invalid combination of arguments - got (float), but expec'
     'ted one of:\n * (tuple of ints dim, bool unbiased = True, bool keepdim = False)\n * (t'
     'uple of ints dim = None, *, Number correction = None, bool keepdim = False)\n * (bool '
     "unbiased = True)\n      didn't match because some of the arguments have invalid types:"
     ' (!float!)\n'),
    ('vdot', 'x.vdot(foo=1)',
     'TypeError: vdot() missing 1 required positional arguments: "other"'),
    ('vdot', 'x.vdot(out=o)',
     'TypeError: vdot() missing 1 required positional arguments: "other"'),
    ('vdot', 'x.vdot(0, 0, 0, 0, 0, 0, 0, 0)',
     'TypeError: vdot() takes 1 positional argument but 8 were given'),
    ('vdot', "x.vdot('a')",
     "TypeError: vdot(): argument 'other' (position 1) must be Tensor, not str"),
    ('vdot', 'x.vdot([])',
     "TypeError: vdot(): argument 'other' (position 1) must be Tensor, not list"),
    ('vdot', 'x.vdot(1.5)',
     "TypeError: vdot(): argument 'other' (position 1) must be Tensor, not float"),
    ('vdot', "x.vdot(v, 'a')",
     'TypeError: vdot() takes 1 positional argument but 2 were given'),
    ('vdot', 'x.vdot(v, foo=1)',
     "TypeError: vdot() got an unexpected keyword argument 'foo'"),
    ('vdot', 'x.vdot(v, out=o)',
     "TypeError: vdot() got an unexpected keyword argument 'out'"),
    ('view', 'x.view(foo=1)',
     'TypeError: view() received an invalid combination of arguments - got (foo=int, ), but '
     "expected one of:\n * (torch.dtype dtype)\n      didn't match because some of the keywo"
     "rds were incorrect: foo\n * (tuple of ints size)\n      didn't match because some of t"
     'he keywords were incorrect: foo\n'),
    ('view', 'x.view(out=o)',
     'TypeError: view() received an invalid combination of arguments - got (out=Tensor, ), b'
     "ut expected one of:\n * (torch.dtype dtype)\n      didn't match because some of the ke"
     "ywords were incorrect: out\n * (tuple of ints size)\n      didn't match because some o"
     'f the keywords were incorrect: out\n'),
    ('view', 'x.view(0, 0, 0, 0, 0, 0, 0, 0)',
     "RuntimeError: shape '[0, 0, 0, 0, 0, 0, 0, 0]' is invalid for input of size 12"),
    ('view', "x.view('a')",
     'TypeError: view() received an invalid combination of arguments - got (str), but expect'
     "ed one of:\n * (torch.dtype dtype)\n      didn't match because some of the arguments h"
     "ave invalid types: (!str!)\n * (tuple of ints size)\n      didn't match because some o"
     'f the arguments have invalid types: (!str!)\n'),
    ('view', 'x.view([])',
     "RuntimeError: shape '[]' is invalid for input of size 12"),
    ('view', 'x.view(1.5)',
     'TypeError: view() received an invalid combination of arguments - got (float), but expe'
     "cted one of:\n * (torch.dtype dtype)\n      didn't match because some of the arguments"
     " have invalid types: (!float!)\n * (tuple of ints size)\n      didn't match because so"
     'me of the arguments have invalid types: (!float!)\n'),
    ('view', "x.view(4, 3, 'a')",
     'TypeError: view(): argument \'size\' failed to unpack the object at pos 3 with error "'
     'type must be tuple of ints,but got str"'),
    ('view', 'x.view(4, 3, foo=1)',
     'TypeError: view() received an invalid combination of arguments - got (int, int, foo=in'
     't), but expected one of:\n * (torch.dtype dtype)\n * (tuple of ints size)\n'),
    ('view', 'x.view(4, 3, out=o)',
     'TypeError: view() received an invalid combination of arguments - got (int, int, out=Te'
     'nsor), but expected one of:\n * (torch.dtype dtype)\n * (tuple of ints size)\n'),
    ('view_as', 'x.view_as(0, 0, 0, 0, 0, 0, 0, 0)',
     'TypeError: view_as() takes 1 positional argument but 8 were given'),
    ('view_as', "x.view_as('a')",
     "TypeError: view_as(): argument 'other' (position 1) must be Tensor, not str"),
    ('view_as', 'x.view_as([])',
     "TypeError: view_as(): argument 'other' (position 1) must be Tensor, not list"),
    ('view_as', 'x.view_as(1.5)',
     "TypeError: view_as(): argument 'other' (position 1) must be Tensor, not float"),
    ('view_as', "x.view_as(o, 'a')",
     'TypeError: view_as() takes 1 positional argument but 2 were given'),
    ('view_as', 'x.view_as(o, foo=1)',
     "TypeError: view_as() got an unexpected keyword argument 'foo'"),
    ('view_as', 'x.view_as(o, out=o)',
     "TypeError: view_as() got an unexpected keyword argument 'out'"),
    ('vsplit', "x.vsplit('a')",
     'TypeError: vsplit() received an invalid combination of arguments - got (str), but expe'
     "cted one of:\n * (int sections)\n      didn't match because some of the arguments have"
     " invalid types: (!str!)\n * (tuple of ints indices)\n      didn't match because some o"
     'f the arguments have invalid types: (!str!)\n'),
    ('vsplit', 'x.vsplit(1.5)',
     'TypeError: vsplit() received an invalid combination of arguments - got (float), but ex'
     "pected one of:\n * (int sections)\n      didn't match because some of the arguments ha"
     "ve invalid types: (!float!)\n * (tuple of ints indices)\n      didn't match because so"
     'me of the arguments have invalid types: (!float!)\n'),
    ('where', 'x.where(0, 0, 0, 0, 0, 0, 0, 0)',
     'TypeError: where() received an invalid combination of arguments - got (int, int, int, '
     'int, int, int, int, int), but expected one of:\n * (Tensor condition, Tensor other)\n '
     '* (Tensor condition, Number other)\n'),
    ('where', "x.where('a')",
     'TypeError: where() received an invalid combination of arguments - got (str), but expec'
     'ted one of:\n * (Tensor condition, Tensor other)\n * (Tensor condition, Number other)'
     '\n'),
    ('where', 'x.where([])',
     'TypeError: where() received an invalid combination of arguments - got (list), but expe'
     'cted one of:\n * (Tensor condition, Tensor other)\n * (Tensor condition, Number other)'
     '\n'),
    ('where', 'x.where(1.5)',
     'TypeError: where() received an invalid combination of arguments - got (float), but exp'
     'ected one of:\n * (Tensor condition, Tensor other)\n * (Tensor condition, Number other'
     ')\n'),
    ('where', "x.where(m, 0.0, 'a')",
     'TypeError: where() received an invalid combination of arguments - got (Tensor, float, '
     'str), but expected one of:\n * (Tensor condition, Tensor other)\n * (Tensor condition,'
     ' Number other)\n'),
    ('xlogy', "x.xlogy('a')",
     'TypeError: xlogy() received an invalid combination of arguments - got (str), but expec'
     "ted one of:\n * (Tensor other)\n      didn't match because some of the arguments have "
     "invalid types: (!str!)\n * (Number other)\n      didn't match because some of the argu"
     'ments have invalid types: (!str!)\n'),
    ('xlogy', 'x.xlogy([])',
     'TypeError: xlogy() received an invalid combination of arguments - got (list), but expe'
     "cted one of:\n * (Tensor other)\n      didn't match because some of the arguments have"
     " invalid types: (!list of []!)\n * (Number other)\n      didn't match because some of "
     'the arguments have invalid types: (!list of []!)\n'),
    ('xlogy_', "x.xlogy_('a')",
     'TypeError: xlogy_() received an invalid combination of arguments - got (str), but expe'
     "cted one of:\n * (Tensor other)\n      didn't match because some of the arguments have"
     " invalid types: (!str!)\n * (Number other)\n      didn't match because some of the arg"
     'uments have invalid types: (!str!)\n'),
    ('xlogy_', 'x.xlogy_([])',
     'TypeError: xlogy_() received an invalid combination of arguments - got (list), but exp'
     "ected one of:\n * (Tensor other)\n      didn't match because some of the arguments hav"
     "e invalid types: (!list of []!)\n * (Number other)\n      didn't match because some of"
     ' the arguments have invalid types: (!list of []!)\n'),
]  # fmt: skip
