"""Session 37 (helper argmissing3): the argument-parser wording session 37's argmissing2 sweep
left, for calls that leave out a required argument or give positional arguments too many:
torch.tril/triu/diag/diagonal/flatten/unbind/t/clone/squeeze/movedim/moveaxis/tensor_split
called with no input (or with a keyword only); rand_like/randn_like/randint_like without their
input, with positional arguments too many or with an unknown keyword (torch lists their
overloads); linspace/logspace/eye with no arguments, too few, too many or an unknown keyword;
the Tensor methods new_full/new_tensor without their size/data (and new_zeros/new_empty/
new_ones, already matching, kept as a guard), x.size(1, 2), x.stride(0, 1), x.item(1) and
x.tolist(1). A few normal calls per op (positional, keyword, out=, methods, seeded draws,
gradients) prove the results unchanged: float64 to 1e-10 of scale, float32 to 1e-4; texts
exactly ("torch" read as "minitorch").

Found and fixed:
- torch.tril(), triu(), diag(), diagonal(), flatten(), unbind(), t(), clone() raised Python's
  "tril() missing 1 required positional argument: 'input'"; torch's parser says 'tril() missing
  1 required positional arguments: "input"' (input defaults to REQUIRED, worded on the path
  that already refuses a non-tensor: no cost when a tensor is given).
- torch.tril(m, 0, 0), clone(x, 1), t(x, 1), flatten/unbind/diagonal with one too many: kept
  at torch's "tril() takes from 1 to 2 positional arguments but 3 were given" (input's REQUIRED
  default alone would have made Python say "from 0 to 2"; *extra words them).
- torch.squeeze(), movedim(), moveaxis(), movedim(x), movedim(x, 0), tensor_split(): torch
  lists the overloads ("movedim() received an invalid combination of arguments - got (Tensor),
  but expected one of: ..."); squeeze(dim=(0,)) names the missing "input". So do
  squeeze(x, 1, 0), movedim(x, 0, 1, 2), tensor_split(x, 1, 0, 0) and the methods x.movedim(),
  x.movedim(0, 1, 2), x.moveaxis(...), x.tensor_split(1, 0, 0) (the method's overloads), which
  said Python's "takes from 1 to 2 ..." / "Tensor.movedim() missing 2 required ...".
- rand_like()/randn_like()/randint_like(): torch lists the overloads ("got ()"); rand_like(x,
  0), rand_like(x, torch.float64), randint_like(x, 1, 2, 3), rand_like(x, foo=1), randint_like
  (high=3) the same; rand_like(dtype=...) (one overload fits the count) names "input". They
  said "takes 1 positional argument but 2 were given" / Python's wording before.
- linspace(), logspace(), linspace(0), linspace(start=0), linspace(0, 1, 5, 0), logspace(0, 1,
  5, 10, 0), logspace(0, 1, 5, foo=1): torch's overload listing, not Python's "missing 2
  required positional arguments: 'start' and 'end'" / "takes from 2 to 3 ...".
- eye(): the listing; eye(dtype=...)/eye(m=3): 'eye() missing 1 required positional
  arguments: "n"'; eye(2, 3, 4) and eye(2, foo=1): the listing.
- x.new_full(), x.new_full((2,)), x.new_tensor(), x.new_full((2,), 1.0, 1), x.new_tensor([1],
  1): torch's 'new_full() missing 2 required positional argument: "size", "fill_value"' and
  counts without self ("new_full() takes 2 positional arguments but 3 were given").
- x.size(1, 2), x.stride(0, 1): "size() takes from 0 to 1 positional arguments but 2 were
  given" (Python counted self and named Tensor.size()).
- x.item(1), x.tolist(1): torch's "TensorBase.item() takes no arguments (1 given)".

Known and left (documented):
- x.dim(1), x.numel(1), x.ndimension(1), x.nelement(1), x.element_size(1): torch's
  "TensorBase.dim() takes no arguments (1 given)" needs *args on methods library code calls
  everywhere (measured +16 ns a call, a third of the call); Python's wording kept.
- Unknown keywords: torch.tril(dim=0) & co. (torch names the missing "input"), movedim(dim=0)
  (the listing), x.size(foo=1) (torch: size(), minitorch: Tensor.size()), x.dim(foo=1) ("takes
  no keyword arguments"), x.item(foo=1): Python's wording, as argmissing2 left them.
- randint_like(x, low=1): torch refuses (no overload has low without high); minitorch reads it
  as randint_like(x, 1), which binds the same (telling them apart reads the call: a cost).
- x.size(None, 1) returns the size (torch: "size() takes from 0 to 1 ..."): checking the extra
  on x.size()'s path would cost every call; squeeze(x, None, 0): torch shows the None in the
  listing's "got", minitorch leaves it out (parsed_error drops a None left at its default).
- x.t(1) & the other methods of no arguments (argmissing2's "Known and left"); unbound
  minitorch.Tensor.tril() (torch: "unbound method TensorBase.tril() needs an argument").
- help() and inspect.signature show the changed parameters' default as <required>.
- The records run on the CPU only; the strict test device and CuPy are not exercised here."""

from __future__ import annotations

import pytest

from tests.reference._one_thread import one_torch_thread  # noqa: F401 - an autouse fixture
from tests.reference._programs import assert_calls_match, assert_program_matches, run_calls
from tests.reference._programs import seeded_gen as _gen
from tests.reference._programs import seeded_randn as _randn

torch = pytest.importorskip("torch")


CALLS = ["no_input", "listed", "likes", "ranges", "eye", "new", "queries", "methods"]

PROGRAMS = ["shape_ok", "like_ok", "range_ok", "new_ok", "query_ok"]


@pytest.mark.parametrize("name", CALLS)
def test_calls_match_torch(name):
    assert_calls_match(globals()["c_" + name], torch)


@pytest.mark.parametrize("dt", ["float64", "float32"])
@pytest.mark.parametrize("name", PROGRAMS)
def test_program_matches_torch(name, dt):
    assert_program_matches(globals()["p_" + name], torch, dt)


def _env(lib):
    g = lib.Generator().manual_seed(0)
    return dict(
        lib=lib,
        x=lib.randn(2, 3, generator=g),
        m=lib.randn(3, 3, generator=g),
        i=lib.tensor([1, 2]),
        g=lib.Generator().manual_seed(1),
    )


# --- argument sweeps ---


def c_no_input(lib, rec):
    cases = []
    for op in ("tril", "triu", "diag", "diagonal", "flatten", "unbind", "t", "clone"):
        cases += [f"lib.{op}()", f"lib.{op}(None)", f"lib.{op}([1.0])"]
    cases += ["lib.unbind(dim=0)", "lib.squeeze(dim=0)", "lib.squeeze(dim=(0,))",
              "lib.tril(m, 0, 0)", "lib.clone(x, 1)", "lib.t(x, 1)", "lib.flatten(x, 0, 1, 1)",
              "lib.unbind(x, 0, 0)", "lib.diagonal(x, 0, 0, 1, 1)"]  # fmt: skip
    run_calls(cases, _env(lib), rec)


def c_listed(lib, rec):
    """Ops of several overloads: torch lists them for a call without input."""
    cases = ["lib.squeeze()", "lib.squeeze(x, 0, 0)", "lib.squeeze(None)", "lib.movedim()",
             "lib.movedim(x)", "lib.movedim(x, 0)", "lib.movedim(x, 0, 1, 2)",
             "lib.movedim(source=0)", "lib.moveaxis()", "lib.moveaxis(x, 0)",
             "lib.tensor_split()", "lib.tensor_split(x)", "lib.tensor_split(x, 1, 0, 0)",
             "lib.tensor_split(dim=0)", "lib.movedim(x, 0, None)", "lib.moveaxis(x, 0, 1, 2)",
             "lib.tensor_split(x, 2, 0, 0, 0)", "lib.squeeze(x, 1, 0)"]  # fmt: skip
    run_calls(cases, _env(lib), rec)


def c_likes(lib, rec):
    cases = []
    for op in ("rand_like", "randn_like"):
        cases += [f"lib.{op}()", f"lib.{op}(x, 0)", f"lib.{op}(x, lib.float64)",
                  f"lib.{op}(x, foo=1)", f"lib.{op}(dtype=lib.float64)", f"lib.{op}(x, 1, 2)",
                  f"lib.{op}([1.0])", f"lib.{op}(foo=1)", f"lib.{op}(input=x, foo=1)",
                  f"lib.{op}(x, 1, dtype=lib.float64)",
                  f"lib.{op}(dtype=lib.float64, device='cpu')", f"lib.{op}(x, generator=1)",
                  f"lib.{op}(x, foo=1, dtype=lib.float64)"]  # fmt: skip
    cases += ["lib.randint_like()", "lib.randint_like(x)", "lib.randint_like(x, 1, 2, 3)",
              "lib.randint_like(x, 1, 2, 3, 4)", "lib.randint_like(high=3)",
              "lib.randint_like(x, foo=1)", "lib.randint_like(x, 1, foo=1)",
              "lib.randint_like(x, 3, foo=1)", "lib.randint_like(dtype=lib.float64)",
              "lib.randint_like(x, 1, 2, 3, dtype=lib.float64)", "lib.randint_like(x, 'a')",
              "lib.randint_like(x, 1, 2, generator=1)"]  # fmt: skip
    run_calls(cases, _env(lib), rec)


def c_ranges(lib, rec):
    cases = []
    for op in ("linspace", "logspace"):
        cases += [f"lib.{op}()", f"lib.{op}(0)", f"lib.{op}(0, 1)", f"lib.{op}(start=0)",
                  f"lib.{op}(end=1, steps=3)", f"lib.{op}(dtype=lib.float64)",
                  f"lib.{op}(0, 1, steps=5, foo=1)", f"lib.{op}(0, 1, 5, foo=1)",
                  f"lib.{op}(0, 1, 'a')"]  # fmt: skip
    cases += ["lib.linspace(0, 1, 5, 0)", "lib.linspace(0, 1, 5, 0, 0)",
              "lib.logspace(0, 1, 5, 10, 0)", "lib.logspace(0, 1, 5, 2.0, 0, 0)",
              "lib.logspace(base=2)", "lib.linspace(0, 1, num=5)"]  # fmt: skip
    run_calls(cases, _env(lib), rec)


def c_eye(lib, rec):
    cases = ["lib.eye()", "lib.eye(dtype=lib.float64)", "lib.eye(m=3)", "lib.eye(2, 3, 4)",
             "lib.eye(2, 3, 4, 5)", "lib.eye(n=2, foo=1)", "lib.eye(2, foo=1)",
             "lib.eye(2, 3, foo=1)", "lib.eye('a')", "lib.eye(2, 'a')",
             "lib.eye(2.0, dtype=lib.float64)", "lib.eye(2, 3, 4, dtype=lib.float64)"]  # fmt: skip
    run_calls(cases, _env(lib), rec)


def c_new(lib, rec):
    cases = []
    for op in ("new_full", "new_tensor", "new_zeros", "new_empty", "new_ones"):
        cases += [f"x.{op}()", f"x.{op}(dtype=lib.float64)"]
    cases += ["x.new_full((2,))", "x.new_full((2,), 1.0, 1)", "x.new_full((2,), 1.0, 1, 2)",
              "x.new_full(fill_value=1.0)", "x.new_full(size=(2,))", "x.new_tensor([1], 1)",
              "x.new_tensor([1], 1, 2)", "x.new_full((2,), 'a')", "x.new_full(1.5, 1.0)",
              "x.new_zeros(size=(2,), foo=1)"]  # fmt: skip
    run_calls(cases, _env(lib), rec)


def c_queries(lib, rec):
    cases = ["x.size(1, 2)", "x.size(1, 2, 3)", "x.stride(0, 1)", "x.stride(0, 1, 2)",
             "x.size('a')", "x.stride('a')", "x.size(5)", "x.stride(-3)",
             "x.item(1)", "x.item(1, 2)", "x.tolist(1)", "x.tolist(1, 2)", "x.size(dim=1)",
             "x.stride(dim=0)", "x[0, 0].item(None)"]  # fmt: skip
    run_calls(cases, _env(lib), rec)


def c_methods(lib, rec):
    """The Tensor methods of the ops above (their own wrappers, counts without self): kept so
    the functions' fixes stay apart."""
    cases = ["x.squeeze(0, 0)", "x.squeeze(0, 0, 0)", "x.movedim(0, 1, 2)", "x.movedim()",
             "x.movedim(0)", "x.moveaxis(0, 1, 2)", "x.tensor_split(1, 0, 0)", "x.tensor_split()",
             "x.clone(1)", "x.flatten(0, 1, 1)", "x.unbind(0, 0)",
             "x.diagonal(0, 0, 1, 1)", "m.tril(0, 1)", "m.triu(0, 1)", "m.diag(0, 1)",
             "x.tensor_split(2, 0, 0, 0)", "x.movedim(source=0)"]  # fmt: skip
    run_calls(cases, _env(lib), rec)


# --- normal calls: the results are unchanged ---


def p_shape_ok(lib, dt, rec):
    x = _randn(lib, dt, 1, 4, 4)
    x3 = _randn(lib, dt, 2, 2, 3, 4)
    rec("tril", lib.tril(x, -1))
    rec("triu_kw", lib.triu(input=x, diagonal=1))
    rec("diag", lib.diag(x, 1))
    rec("diagonal", lib.diagonal(x3, 0, 1, 2))
    rec("flatten", lib.flatten(x3, 1))
    rec("unbind", lib.unbind(x3, 1)[2])
    rec("t", lib.t(x))
    rec("clone", lib.clone(input=x))
    rec("squeeze", lib.squeeze(x3[:1], 0))
    rec("movedim", lib.movedim(x3, 0, 2))
    rec("movedim_t", lib.movedim(x3, (0, 1), (2, 0)))
    rec("moveaxis", lib.moveaxis(x3, -1, 0))
    rec("tensor_split", lib.tensor_split(x3, 2, 2)[1])
    rec("tensor_split_i", lib.tensor_split(x3, (1,), dim=1)[0])
    out = lib.empty(4, 4, dtype=x.dtype)
    lib.tril(x, out=out)
    rec("tril_out", out)
    q = x3.clone().requires_grad_()
    total = (lib.movedim(q, 0, 2) ** 2).sum() + lib.flatten(q).sum()
    total = total + lib.diagonal(q, 0, 1, 2).sum()
    rec("grad", lib.autograd.grad(total + lib.t(q[0, :, :3]).tril().sum(), q)[0])


def p_like_ok(lib, dt, rec):
    x = _randn(lib, dt, 3, 3, 4)
    rec("rand_like", lib.rand_like(x, generator=_gen(lib, 5)))
    rec("randn_like", lib.randn_like(x, generator=_gen(lib, 6), dtype=lib.float64))
    rec("randint_like", lib.randint_like(x, 7, generator=_gen(lib, 7)))
    rec("randint_like_lh", lib.randint_like(x, 2, 9, generator=_gen(lib, 8)))
    rec("randint_like_kw", lib.randint_like(x, high=5, generator=_gen(lib, 9)))
    rec("randint_like_t", lib.randint_like(input=x, low=-3, high=3, generator=_gen(lib, 10)))
    r = lib.rand_like(x, requires_grad=True)  # (its values: the default generator's)
    rec("rand_like_meta", (tuple(r.shape), str(r.dtype), r.requires_grad))


def p_range_ok(lib, dt, rec):
    d = dt
    rec("linspace", lib.linspace(-1.5, 2.0, 7, dtype=d))
    rec("linspace_kw", lib.linspace(start=0, end=1, steps=5, dtype=d))
    rec("logspace", lib.logspace(-1, 1, 5, dtype=d))
    rec("logspace_b", lib.logspace(0, 3, 4, 2.0, dtype=d))
    rec("logspace_kw", lib.logspace(0, 2, steps=3, base=3, dtype=d))
    rec("eye", lib.eye(3, dtype=d))
    rec("eye_nm", lib.eye(2, 4, dtype=d))
    rec("eye_kw", lib.eye(n=3, m=2, dtype=d))
    out = lib.empty(5, dtype=d)
    lib.linspace(0, 1, 5, out=out)
    rec("linspace_out", out)
    out2 = lib.empty(2, 2, dtype=d)
    lib.eye(2, out=out2)
    rec("eye_out", out2)
    rec("linspace_t", lib.linspace(lib.tensor(0.5), 1.5, 3, dtype=d))


def p_new_ok(lib, dt, rec):
    x = _randn(lib, dt, 4, 2, 3)
    rec("new_full", x.new_full((2, 2), 3.5))
    rec("new_full_kw", x.new_full(size=(3,), fill_value=-1, dtype=lib.int64))
    rec("new_tensor", x.new_tensor([[1, 2], [3, 4]]))
    rec("new_tensor_kw", x.new_tensor(data=[0.5], dtype=lib.float64))
    rec("new_zeros", x.new_zeros(2, 3))
    rec("new_ones", x.new_ones((1, 2)))
    rec("new_full_grad", x.new_full((2,), 1.0, requires_grad=True).requires_grad)


def p_query_ok(lib, dt, rec):
    x = _randn(lib, dt, 5, 2, 3, 4)
    rec("size", tuple(x.size()))
    rec("size_1", x.size(1))
    rec("size_neg", x.size(-1))
    rec("size_kw", x.size(dim=0))
    rec("stride", x.stride())
    rec("stride_0", x.stride(0))
    rec("stride_t", x.transpose(0, 2).stride(-1))
    rec("item", x[1, 2, 3].item())
    rec("tolist", x[0, :, :2].tolist())
    rec("dim", (x.dim(), x.numel()))
