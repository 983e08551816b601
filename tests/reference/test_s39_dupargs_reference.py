"""Session 39 (helper dupargs): an argument given twice (by position and by keyword) and an
optional argument given explicitly as None (or at its default, or keepdim as an int or a NumPy
bool), for the functions and Tensor methods that take dim / keepdim / dtype, run under torch and
minitorch and compared record by record: the result (values and dtype) where torch takes the
call, the exception type and message exactly where it refuses it.

The sweep is programmatic: every public Tensor method whose ATen schema (torch's own
`_jit_get_schemas_for_operator`) has a `dim`, `keepdim` or `dtype` parameter, plus the ops whose
dims go by other names (transpose, flatten, movedim, flip, roll, swapaxes), is called as a
method and as a torch function with: its required arguments; each positional parameter given a
second time by keyword; the dim (and the parameters after it) by keyword; each optional
parameter as None, by position and by keyword; keepdim as 1, 0 and np.bool_(True). Hand-written
programs add the calls users write (torch.cat([a], 0, dim=0), F.linear(x, w, None, bias=b),
x.view(2, 3, size=6), x.max(dim=None), x.sort(stable=None), x.argmax(None, True), ...) and
a small model run with every default spelled out, gradients included, in float64 and float32.

Found and fixed:
- An argument given twice to an op of several overloads (x.all(1, dim=1), x.var(1, dim=1),
  x.count_nonzero(1, dim=1), x.median(1, True, keepdim=True), x.quantile(0.5, 1, dim=1),
  x.narrow(1, 0, 2, dim=1), x.scatter(1, i, s, index=i), x.index_fill(1, i, 1.5, value=1.5),
  x.repeat_interleave(2, 1, dim=1), x.tensor_split(2, 1, dim=1), torch.squeeze(x, 1, dim=1),
  x.squeeze_(1, dim=1), their function forms): Python's "X() got multiple values for argument
  'dim'"; torch's parser lists the overloads ("received an invalid combination of arguments",
  the keyword "incorrect" under those of as many parameters). The NumPy-alias wrapper every op
  taking a dim goes through now asks _parser_errors.given_twice_error on its except path (zero
  cost until raised), from the OVERLOADS / METHOD_FORMS tables (median, nanmedian, quantile,
  nanquantile rows added; quantile's error builder reads them instead of its own copy).
- A positional None (or False) left at its default was dropped from the "got (...)" of the
  overload listings (x.all(None, None), torch.all(x, None, 1), x.quantile(0.5, None, None),
  x.tensor_split(2, None), x.var(1, True, None)): torch lists every argument the call gave;
  _given (and quantile's listing) now read the call's positional count.
- x.var(1, None), x.std(1, unbiased=None), torch.var_mean(x, 1, unbiased=None): minitorch
  computed with the default; torch refuses None for unbiased (a bool in every overload).
- x.scatter(1, i, 1.5, value=1.5), x.scatter_(1, i, src, value=1.5): minitorch took one of
  them; torch's parser fits no overload.
- x.view(2, 3, size=6), x.view(6, foo=1), x.view(size=6, foo=1), x.view(foo=1): "got multiple
  values" / "unexpected keyword"; torch lists view's two overloads (dtype, size).
- x.slice_scatter(x, None) / torch.slice_copy(x, None): the message lacked "(position N)";
  x.slice_scatter(x, step=None): minitorch took a None step (torch: "argument 'step' must be
  int, not NoneType").
- x.split([1, 2], None) / torch.split(x, (1, 2), dim="a"): torch's Python split hands a list of
  sizes to split_with_sizes ("split_with_sizes(): argument 'dim' (position 3) must be int, not
  NoneType"); minitorch listed split's overloads.
- x.var(True, 1) (a bool dim, then an unbiased): minitorch read it as var(x, unbiased=True);
  torch fits no overload. x.var(True, correction=1) listed a None dim it was not given.
- x.sum(np.int64(1), np.bool_(True)) and the other int[] dims of the reductions: a NumPy
  integer dim was called the bad argument (the parser check read "tuple of ints" without its
  int-like rule); torch names keepdim.

Known and left (documented):
- torch.mean(x, 1, dim=1): a plain function's own binding raises Python's "got multiple
  values" before any minitorch code runs; torch lists mean's overloads. Catching it would need
  a wrapper on every mean call. Not recorded. Likewise x.movedim(0, 2, source=0) (movedim takes
  no dim, so no alias wrapper).
- torch.diff(x, 1, -1, 1, prepend=1) (a duplicate that is also ill-typed): torch names the
  type first ("argument 'prepend' (position 4) must be Tensor, not int"). Not recorded.
- torch.unique_consecutive(x, 1, return_inverse=1): torch's Python dispatch names its helper
  ("_consecutive_return_inverse_and_counts() got multiple values ..."). Not recorded.
- x.split(np.int64(2)) (a NumPy integer split size): torch's Python split sends it to
  split_with_sizes, which refuses it; minitorch splits. Not recorded.
- torch.logsumexp(x, None) / x.logsumexp(None): torch's message has "(position 2)" /
  "(position 1)"; tests/ops/test_list_inputs_sweep5.py (not this helper's) pins minitorch's
  wording without the position, so it is left and not recorded.
- x.slice_scatter(x, 0, 1.5) (a float start): Python's slice TypeError; torch's parser names
  'start' (position 3). Not recorded.
- The records run on the CPU only."""

from __future__ import annotations

import numpy as np
import pytest

from tests.reference._one_thread import one_torch_thread  # noqa: F401 - an autouse fixture
from tests.reference._programs import (
    Rec,
    assert_program_matches,
    record_diffs,
    run_program,
)
from tests.reference._programs import seeded_randn as _randn

torch = pytest.importorskip("torch")


# --- the programmatic sweep ---

# a value for each parameter name (and a few per op), for an input x of shape (2, 3, 4)
_VALUES = {
    "dim": "1", "index": "gi", "source": "src", "value": "1.5", "src": "x", "k": "2",
    "chunks": "2", "split_size": "2", "split_sizes": "[1, 2]", "sections": "2",
    "indices": "gi", "q": "0.5", "p": "2", "maxnorm": "1.0", "repeats": "2",
    "sizes": "(3, 1)", "start": "0", "length": "2", "size": "(2,)", "fill_value": "1.5",
    "dtype": "torch.float64", "other": "x", "keepdim": "True", "descending": "True",
    "n": "1", "largest": "True", "sorted": "True", "dim0": "0", "dim1": "2", "start_dim": "1",
    "end_dim": "2", "shifts": "1", "dims": "(0, 1)", "destination": "2", "axis0": "0",
    "axis1": "2", "reduce": '"amax"',
}  # fmt: skip
_OP_VALUES = {
    **{(op, "index"): "ii" for op in ("index_add", "index_copy", "index_fill", "index_select")},
    ("select", "index"): "0", ("select_scatter", "index"): "0", ("select_scatter", "src"): "s24",
    ("movedim", "source"): "0", ("scatter", "src"): "x", ("scatter_add", "src"): "x",
}  # fmt: skip
# schemas of no use here: uninitialized memory, other layouts, or aliases of ops swept already
_SKIPPED = {
    "hash_tensor", "slice_inverse", "to_mkldnn", "to_dense", "narrow_copy", "unsafe_chunk",
    "unsafe_split", "unsafe_split_with_sizes", "new_empty_strided", "new_empty", "view", "to",
    "split_with_sizes", "index_reduce", "index_reduce_", "size", "stride",
}  # fmt: skip
# the ops whose dims go by other names: (parameter, default or None) in order
_OTHER_DIMS = {
    "transpose": [("dim0", None), ("dim1", None)],
    "flatten": [("start_dim", "0"), ("end_dim", "-1")],
    "movedim": [("source", None), ("destination", None)],
    "flip": [("dims", None)],
    "roll": [("shifts", None), ("dims", "None")],
    "swapaxes": [("axis0", None), ("axis1", None)],
}
# Known and left (see the module docstring)
_KNOWN = {
    "torch.mean(x, 1, dim=1)", "x.movedim(0, 2, source=0)", "torch.movedim(x, 0, 2, source=0)",
    "x.movedim(0, 2, destination=2)", "torch.movedim(x, 0, 2, destination=2)",
    "torch.diff(x, 1, -1, 1, prepend=1)", "torch.diff(x, 1, -1, None, 1, append=1)",
    "torch.unique_consecutive(x, 1, return_inverse=1)",
    "torch.unique_consecutive(x, False, 1, return_counts=1)",
    "torch.unique_consecutive(x, False, False, 1, dim=1)",
}  # fmt: skip


def _schemas():
    """{op: [its overloads' parameters after self, each (name, default text or None,
    keyword-only)]} of the Tensor methods taking dim, keepdim or dtype."""
    out = {}
    for op in sorted(dir(torch.Tensor)):
        if op.startswith("_") or op in _SKIPPED:
            continue
        try:
            schemas = torch._C._jit_get_schemas_for_operator("aten::" + op)
        except RuntimeError:
            continue
        for s in schemas:
            args = s.arguments
            if not args or args[0].name != "self" or str(args[0].type) != "Tensor":
                continue
            if any(a.name == "out" or "Dimname" in str(a.type) for a in args):
                continue
            if not any(a.name in ("dim", "keepdim", "dtype") for a in args):
                continue
            if any(not a.kwarg_only and str(a.type) == "Tensor" and a.name in ("q", "repeats",
                   "start") for a in args):  # fmt: skip
                continue  # (their number overloads are swept)
            params = []
            for a in args[1:]:
                default = repr(a.default_value) if a.has_default_value() else None
                params.append((a.name, "()" if default == "[]" else default, a.kwarg_only))
            if any(name in ("values", "indices", "max", "min") and kw for name, _, kw in params):
                continue  # (out= overloads by other names)
            out.setdefault(op, []).append(params)
    for op, params in _OTHER_DIMS.items():
        out[op] = [[(name, default, False) for name, default in params]]
    return out


def _value(op, name):
    return _OP_VALUES.get((op.rstrip("_"), name), _VALUES.get(name, "1"))


def _variants(op, params):
    """The call texts for one overload of `op` (see the module docstring)."""
    positional = [p for p in params if not p[2]]
    n_required = sum(p[1] is None for p in positional)
    required = [_value(op, p[0]) for p in positional[:n_required]]
    calls = []

    def both(args):  # as a method and as a function
        return [f"x.{op}({', '.join(args)})", f"torch.{op}({', '.join(['x', *args])})"]

    calls += both(required)
    for i, (name, default, _) in enumerate(positional):
        if i < n_required:
            args = required[: i + 1]
            calls += both([*required, f"{name}={_value(op, name)}"])  # given twice
        else:
            args = [_value(op, p[0]) if p[1] is None else p[1] for p in positional[:i]]
            args.append(_value(op, name))
            calls += both([*args, f"{name}={_value(op, name)}"])  # given twice
        keywords = [f"{p[0]}={_value(op, p[0])}" for p in positional[i : max(i + 1, n_required)]]
        calls += both([*args[:-1], *keywords])  # by keyword
        if default is not None:
            calls += both([*args[:-1], "None"]) + both([*required, f"{name}=None"])
        if name == "keepdim":
            for v in ("1", "np.bool_(True)", "0"):
                calls += both([*args[:-1], v]) + both([*required, f"keepdim={v}"])
    for name, default, keyword_only in params:
        if keyword_only and default is not None:
            calls += both([*required, f"{name}=None"])
    return calls


def _sweep_calls():
    seen, calls = set(), []
    for op, overloads in _schemas().items():
        for params in overloads:
            for code in _variants(op, params):
                function = code.startswith("torch.")
                if code in seen or code in _KNOWN or (function and not hasattr(torch, op)):
                    continue
                seen.add(code)
                calls.append(code)
    return calls


_CALLS = _sweep_calls()
_GROUPS = ("a", "cd", "ghijk", "lm", "nq", "rs", "tuvwxyz")


def _flat(v):
    if isinstance(v, (tuple, list)):
        return [y for e in v for y in _flat(e)]
    return [v]


def _record_calls(lib, rec, calls, env):
    """Records each call's result (each tensor of it, with its dtype) or its error, under the
    call's text; `x` is a fresh clone for each (in-place calls)."""
    x = env["x"]
    for code in calls:
        env["x"] = x.clone()
        out = rec.err(code, lambda code=code: eval(code, env))  # noqa: S307
        for j, t in enumerate(_flat(out)):
            if t is not None:
                rec(f"{code}#{j}", t if hasattr(t, "detach") else repr(t))


def _sweep_env(lib):
    g = np.random.default_rng(0)
    return dict(
        torch=lib, F=lib.nn.functional, np=np,
        x=lib.tensor(g.standard_normal((2, 3, 4))),
        gi=lib.tensor(g.integers(0, 3, (2, 3, 4))), ii=lib.tensor([0, 2]),
        src=lib.tensor(g.standard_normal((2, 2, 4))), s24=lib.tensor(g.standard_normal((2, 4))),
    )  # fmt: skip


def _assert_calls_match(calls, env):
    """Runs `calls` under both libraries and asserts each call's records agree (compared call
    by call, so one difference does not hide the rest)."""
    import minitorch

    def prog(lib, rec):
        _record_calls(lib, rec, calls, env(lib))

    def by_call(items):
        out = {}
        for name, value in items:
            out.setdefault(name.split("#")[0], []).append((name, value))
        return out

    want = by_call(run_program(prog, torch, rec=Rec(dtypes=True)))
    got = by_call(run_program(prog, minitorch, rec=Rec(dtypes=True)))
    diffs = []
    for code, records in want.items():
        diffs += record_diffs(records, got[code], 1e-10, rename=True, dtypes=True)
    assert not diffs, f"{len(diffs)} call(s) differ:\n" + "\n".join(diffs[:10])


def test_sweep_covers_the_dim_ops():
    ops = {code.split("(")[0].split(".")[-1] for code in _CALLS}
    for op in ("sum", "mean", "var", "std", "all", "any", "softmax", "log_softmax", "cumsum",
               "max", "min", "median", "quantile", "sort", "argsort", "topk", "argmax", "amax",
               "logsumexp", "squeeze", "unsqueeze", "narrow", "scatter", "gather",
               "index_select", "tensor_split", "transpose", "flatten", "movedim"):  # fmt: skip
        assert op in ops, op
    assert len(_CALLS) > 1200


@pytest.mark.parametrize("group", _GROUPS)
def test_sweep_matches_torch(group):
    def in_group(code):
        return code.split("(")[0].split(".")[-1][0] in group

    _assert_calls_match([c for c in _CALLS if in_group(c)], _sweep_env)


# --- hand-written calls ---


def _env(lib):
    x = lib.arange(6.0, dtype=lib.float64).reshape(2, 3)
    return dict(
        torch=lib, F=lib.nn.functional, np=np, x=x, a=x, w=lib.ones(4, 3, dtype=lib.float64),
        b=lib.ones(4, dtype=lib.float64),
        i=lib.arange(6).reshape(2, 3), gi=lib.zeros(2, 3, dtype=lib.int64),
    )  # fmt: skip


CALLS = {
    "given_twice": [
        "x.sum(0, dim=1)", "torch.sum(x, 0, dim=1)", "x.mean(0, dim=0)", "x.prod(0, dim=0)",
        "x.var(0, dim=0)", "x.std(0, dim=0)", "torch.var(x, 1, dim=1)", "x.all(1, dim=1)",
        "torch.any(x, 1, True, keepdim=True)", "x.count_nonzero(1, dim=1)",
        "torch.count_nonzero(x, 1, dim=1)", "x.amax(0, dim=0)", "x.argmax(0, dim=0)",
        "x.max(0, dim=0)", "x.min(0, dim=0)", "torch.max(x, 1, dim=1)", "x.median(0, dim=0)",
        "x.median(1, True, keepdim=True)", "torch.median(x, 1, True, keepdim=True)",
        "x.nanmedian(1, True, keepdim=True)", "x.quantile(0.5, q=0.5)",
        "torch.quantile(x, 0.5, 1, dim=1)", "x.nanquantile(0.5, None, True, keepdim=True)",
        "x.logsumexp(0, dim=0)", "x.cumsum(0, dim=0)", "x.cumsum_(0, dim=0)",
        "x.softmax(1, dim=1)", "x.log_softmax(1, dim=1)", "F.softmax(x, 1, dim=1)",
        "F.log_softmax(x, 1, dim=1)", "x.transpose(0, 1, dim0=0)", "x.unsqueeze(0, dim=0)",
        "x.squeeze(0, dim=0)", "torch.squeeze(x, 1, dim=1)", "x.squeeze_(1, dim=1)",
        "x.flatten(0, start_dim=0)", "x.flip(0, dims=0)", "x.roll(1, shifts=1)",
        "x.permute(1, 0, dims=(1, 0))", "x.view(2, 3, size=6)", "x.view((3, 2), size=6)",
        "x.reshape(2, 3, shape=6)", "x.topk(2, k=2)", "x.topk(2, 1, dim=1)",
        "x.sort(1, dim=1)", "x.argsort(1, True, descending=True)", "x.narrow(1, 0, 2, dim=1)",
        "torch.narrow(x, 1, 0, 2, start=0)", "x.index_fill(1, i[0, :2], 1.5, value=1.5)",
        "x.scatter(1, gi, 1.5, value=1.5)", "x.scatter(1, gi, x, value=1.5)",
        "x.scatter_(1, gi, 1.5, value=1.5)", "torch.scatter(x, 1, gi, x, src=x)",
        "x.repeat_interleave(2, 1, dim=1)", "x.tensor_split(2, 1, dim=1)",
        "torch.tensor_split(x, 2, 1, dim=1)", "x.chunk(2, 1, dim=1)", "x.unbind(1, dim=1)",
        "torch.cat([a, a], 0, dim=0)", "torch.stack([a, a], 1, dim=1)",
        "torch.concat([a, a], 1, dim=1)", "F.linear(x, w, None, bias=b)",
        "F.linear(x, w, b, bias=b)", "F.normalize(x, 2, 1, dim=1)",
        "F.cosine_similarity(x, x, 1, dim=1)", "F.dropout(x, 0.5, p=0.5)",
        "x.gather(1, gi, dim=1)", "x.index_select(1, i[0, :2], index=i[0, :2])",
        "x.split(2, 1, dim=1)", "x.split([1, 1], 0, dim=0)", "x.split(2, split_size=2)",
    ],
    "explicit_none": [
        "x.sum(None)", "x.sum(dim=None)", "x.sum(1, dtype=None)", "x.sum(1, None)",
        "x.sum(1, keepdim=None)", "x.mean(None)", "x.mean(dim=None, keepdim=False, dtype=None)",
        "x.prod(None)", "x.prod(1, keepdim=None)", "x.std(None)", "x.var(dim=None)",
        "x.var(1, None)", "x.var(1, unbiased=None)", "x.std(1, None, True)",
        "x.var(1, True, None)", "x.var(1, correction=None)", "x.var(unbiased=None)",
        "x.var(None, None)", "torch.var_mean(x, 1, unbiased=None)", "torch.std_mean(x, 1, None)",
        "torch.var_mean(x, unbiased=None)", "torch.std(x, None, None)", "x.var(True, 1)",
        "x.var(True, correction=1)", "torch.var(x, True, correction=1)", "x.var(True, True)",
        "x.std(False, keepdim=True)", "x.std(False, unbiased=True)", "torch.var(x, True, False)",
        "torch.std_mean(x, True)", "x.var(1, unbiased=True, correction=1)", "x.var(False)",
        "x.var(unbiased=False, keepdim=True)", "x.var(1, True, 1)",
        "x.all(None)", "x.all(None, None)", "x.any(dim=None)", "torch.all(x, None, 1)",
        "x.amax(None)", "x.amax(1, None)", "x.argmax(None, True)", "x.argmax(dim=None)",
        "x.argmin(None)", "x.argmax(None, keepdim=None)", "x.max(dim=None)", "x.max(None)",
        "x.max(1, keepdim=None)", "x.max(None, True)", "torch.max(x, 1, None)",
        "x.min(1, None)", "x.median(None)", "x.median(1, None)", "x.mode(None)",
        "x.kthvalue(1, None)", "x.nansum(None)", "x.nanmean(dim=None)", "x.count_nonzero(None)",
        "x.logsumexp(dim=None)", "torch.logsumexp(x, dim=None)", "torch.logsumexp(x, 1, None)",
        "x.norm(None)", "x.norm(dim=None)",
        "x.norm(2, 1, None)", "x.norm(p=None)", "x.cumsum(None)", "x.cumsum(1, dtype=None)",
        "torch.cumsum(x, 1, dtype=None)", "x.cumprod(1, dtype=None)", "x.softmax(None)",
        "x.softmax(1, None)", "x.softmax(1, dtype=None)", "F.softmax(x, 1, _stacklevel=3, "
        "dtype=None)", "torch.log_softmax(x, None)", "x.sort(None)", "x.sort(dim=None)",
        "x.sort(stable=None)", "x.sort(descending=None)", "x.sort(stable=True, descending=None)",
        "x.argsort(None)", "x.argsort(stable=None)", "x.topk(2, None)", "torch.topk(x, 2, None)",
        "x.topk(2, largest=None)", "x.topk(2, sorted=None)", "x.squeeze(None)",
        "x.squeeze(dim=None)", "x.unsqueeze(None)", "x.flatten(None)", "x.flatten(0, None)",
        "x.transpose(None, 1)", "x.movedim(None, 1)", "x.roll(1, None)", "x.flip(None)",
        "x.unbind(None)", "x.chunk(2, None)", "x.diff(dim=None)", "x.cummax(None)",
        "x.quantile(0.5, None, None)", "x.quantile(0.5, None, 1)", "x.nanquantile(0.5, None)",
        "x.tensor_split(2, None)", "torch.tensor_split(x, 2, None)", "x.split(2, None)",
        "x.split([1, 2], None)", "torch.split(x, (1, 2), dim=None)", "x.split([1, 2], 'a')",
        "x.slice_scatter(x, None)", "torch.slice_scatter(x, x, None)",
        "x.slice_scatter(x, step=None)", "torch.slice_scatter(x, x, 0, None, None, None)",
        "torch.slice_copy(x, None)", "torch.cat([a, a], None)", "torch.stack([a, a], None)",
        "x.to(None)", "x.to(dtype=None)", "x.new_zeros((2,), dtype=None)",
        "F.linear(x, w, bias=None)", "F.normalize(x, p=2, dim=None)",
        "F.layer_norm(x, (3,), None, None)", "F.one_hot(i, None)", "F.gelu(x, approximate=None)",
        "F.cross_entropy(x, torch.tensor([0, 1]), None, reduction=None)",
    ],
    "keepdim_types": [
        "x.sum(1, 1)", "x.sum(1, np.bool_(True))", "x.sum(dim=1, keepdim=1)", "x.mean(1, 1)",
        "x.mean(1, keepdim=np.bool_(True))", "x.all(1, 1)", "x.any(dim=1, keepdim=1)",
        "x.all(1, np.bool_(True))", "x.std(1, keepdim=1)", "x.std(1, True, 1)",
        "x.var(1, np.bool_(True))", "x.logsumexp(1, 1)", "x.logsumexp(1, np.bool_(True))",
        "x.amax(1, 1)", "x.max(1, 1)", "x.max(1, keepdim=1)", "x.max(1, np.bool_(True))",
        "torch.max(x, 1, np.bool_(True))", "x.median(1, 1)", "x.median(1, np.bool_(True))",
        "x.mode(1, 1)", "x.kthvalue(1, 1, 1)", "x.nansum(1, 1)", "x.norm(2, 1, 1)",
        "x.norm(2, 1, np.bool_(True))", "x.prod(1, 1)", "x.quantile(0.5, 1, 1)",
        "torch.argmax(x, dim=None, keepdim=1)", "torch.argmax(x, 1, np.bool_(True))",
        "x.topk(2, 1, 1)", "x.sort(1, 1)", "x.sort(1, np.bool_(True))", "x.argsort(1, 1)",
        "x.sort(stable=1)", "x.sort(stable=np.bool_(True))", "x.aminmax(dim=1, keepdim=1)",
        "x.aminmax(dim=None)", "x.aminmax(dim=1, keepdim=None)", "x.sum(np.int64(1), 'a')",
        "x.sum(np.int64(1), np.bool_(True))", "x.sum([np.int64(1)], 'a')",
        "x.mean(np.int64(1), 'a')", "x.sum(torch.tensor(1), 'a')", "x.all(np.int64(1), 'a')",
        "x.var(np.int64(1), 'a')", "x.count_nonzero(dim=np.int64(1))",
    ],
    "view_keywords": [
        "x.view(6, size=(6,))", "x.view(torch.float32, dtype=torch.float32)",
        "x.view(6, dtype=torch.float32)", "x.view(6, foo=1)", "x.view(size=6, foo=1)",
        "x.view(size=(6,), foo=1)", "x.view(2, 3, foo=1)", "x.view(foo=1)", "x.view()",
        "x.view(size=6)", "x.view(size=(6,))", "x.view(size=None)", "x.view(dtype=torch.int32)",
        "x.view(dtype=torch.int32, size=(6,))", "x.view(None)", "x.view(6, out=x)",
    ],
}  # fmt: skip


@pytest.mark.parametrize("name", sorted(CALLS))
def test_calls_match_torch(name):
    _assert_calls_match(CALLS[name], _env)


# --- a model run with every default spelled out ---


def p_explicit_defaults(lib, dt, rec):
    """A small classifier written with its defaults given explicitly (None biases and weights,
    dim=None reductions, dtype=None, keepdim=False), trained three SGD steps."""
    F = lib.nn.functional
    x = _randn(lib, dt, 1, 8, 5)
    w1 = _randn(lib, dt, 2, 6, 5).requires_grad_()
    w2 = _randn(lib, dt, 3, 3, 6).requires_grad_()
    target = lib.tensor([0, 1, 2, 1, 0, 2, 1, 0])
    for step in range(3):
        h = F.linear(x, w1, None)
        h = F.layer_norm(h, (6,), None, None, 1e-5)
        h = F.gelu(h, approximate="none")
        logits = F.linear(h, w2, bias=None)
        loss = F.cross_entropy(logits, target, None, reduction="mean")
        reg = lib.sum(w1 * w1, dim=None, keepdim=False, dtype=None)
        reg = reg + w2.pow(2).mean(dim=None, keepdim=False, dtype=None)
        spread = logits.var(dim=None, correction=None, keepdim=False)
        probs = F.softmax(logits, dim=1, dtype=None)
        top = lib.topk(probs, 2, dim=-1, largest=True, sorted=True)
        total = loss + 1e-3 * reg + 1e-3 * spread
        total.backward()
        rec(f"loss{step}", total)
        rec(f"top{step}", top.values)
        rec(f"idx{step}", top.indices)
        rec(f"argmax{step}", probs.argmax(dim=None, keepdim=False))
        rec(f"lse{step}", lib.logsumexp(logits, dim=1, keepdim=False))
        rec(f"cum{step}", lib.cumsum(probs, dim=1, dtype=None))
        with lib.no_grad():
            for w in (w1, w2):
                rec(f"grad{step}", w.grad)
                w -= 0.1 * w.grad
                w.grad = None


@pytest.mark.parametrize("dt", ["float64", "float32"])
def test_explicit_defaults_program_matches_torch(dt):
    assert_program_matches(p_explicit_defaults, torch, dt)
