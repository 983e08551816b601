"""torch.library and torch.ops under torch and minitorch: user-defined operators the way the
"Python custom operators" tutorial and research code write them (custom_op over NumPy kernels,
register_autograd / register_fake / register_kernel, opcheck, Library.define / impl with
CPU and CompositeImplicitAutograd kernels, tensor-list and keyword-only arguments, mutation
annotations), each program run under both libraries and compared record by record: values,
gradients, schema texts, reprs, errors and warnings.

Known and left: torch's list of "valid types" in infer_schema's errors (a dict of typing
objects) is shortened; NotImplementedError for a missing kernel lists only the backends that
have one; an operator name without '::' gives a ValueError naming the problem (torch's is an
unpacking error); `ops.aten.<name>` accepts any overload name."""


import re
import typing

import numpy as np
import pytest

from tests.reference._programs import Rec, assert_records_match, run_program

torch = pytest.importorskip("torch")


def _clean(text: str) -> str:
    text = re.sub(r"<module '[\w.]+' from '[^']*'>", "<module>", text)
    text = re.sub(r" at 0x[0-9a-f]+", "", text)
    return re.sub(r"registered at [^ ]+:\d+", "registered at <site>", text)


def _err(rec, name, fn):
    try:
        out = fn()
    except Exception as e:  # noqa: BLE001 - the exception is the record
        rec(name, f"{type(e).__name__}: {_clean(str(e))}")
        return None
    rec(name, "no error")
    return out


def p_numpy_sin(L, rec):
    T = L.Tensor

    @L.library.custom_op("ref_sin::numpy_sin", mutates_args=())
    def numpy_sin(x: T) -> T:
        return L.from_numpy(np.sin(x.detach().numpy()))

    rec("repr", repr(numpy_sin))
    rec("schema", numpy_sin._schema)
    L.manual_seed(0)
    x = L.randn(4, dtype=L.float64, requires_grad=True)
    y = numpy_sin(x)
    rec("y", y)
    rec("grad_fn", type(y.grad_fn).__name__)
    _err(rec, "backward without formula", lambda: y.sum().backward())
    rec("detached grad_fn", str(numpy_sin(x.detach()).grad_fn))

    def setup_context(ctx, inputs, output):
        (x,) = inputs
        ctx.save_for_backward(x)

    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        return grad * x.cos()

    numpy_sin.register_autograd(backward, setup_context=setup_context)
    y = numpy_sin(x)
    y.sum().backward()
    rec("x.grad", x.grad)
    rec("gradcheck", str(L.autograd.gradcheck(numpy_sin, (x,))))
    rec("gradgradcheck", str(L.autograd.gradgradcheck(numpy_sin, (x,))))
    rec("opcheck no fake", _err(rec, "opcheck nofake", lambda: L.library.opcheck(numpy_sin, (x,))))

    @numpy_sin.register_fake
    def _(x):
        return L.empty_like(x)

    rec("opcheck", str(L.library.opcheck(numpy_sin, (x,))))
    packet = L.ops.ref_sin.numpy_sin
    rec("packet", repr(packet))
    rec("overload", repr(packet.default))
    rec("strs", f"{packet} {packet.default} {packet.default.name()} {packet.default.namespace}")
    rec("registered schema", str(packet.default._schema))
    rec("overloads", str(packet.overloads()))
    rec("via ops", packet(x.detach()))
    rec("names", f"{packet.__name__} {packet.default.__name__}")


def p_schemas(L, rec):
    T = L.Tensor
    infer = L.library.infer_schema

    def foo(x: T, k: int, s: float = 2.0, flag: bool = False) -> tuple[T, T]: ...

    def opt(
        x: T,
        y: typing.Optional[T] = None,  # noqa: UP045
        n: int | None = None,
        l: typing.List[int] = None,  # noqa: UP006, E741
        s: typing.Sequence[float] = None,
        xs: list[T] = None,
        os: list[T | None] = None,
        sc: int | float | bool = 3,
        st: str = "mean",
        d: L.dtype = L.float32,
        dev: L.device = None,
        *,
        kw: bool = True,
    ) -> list[T]: ...

    def two(x: T, y: T) -> None: ...

    def ret_int(x: T) -> typing.Tuple[T, int]: ...  # noqa: UP006

    def untyped(x): ...

    def star(x: T, *args) -> T: ...

    def noret(x: T): ...

    def tup_default(x: T, l: list[int] = (1, 2)) -> T: ...  # noqa: E741

    rec("foo", infer(foo, mutates_args=()))
    rec("foo named", infer(foo, mutates_args=(), op_name="foo"))
    rec("opt", infer(opt, mutates_args=()))
    rec("two y", infer(two, mutates_args=("y",)))
    rec("two unknown", infer(two, mutates_args="unknown"))
    rec("two list", infer(two, mutates_args=["y", "x"]))
    rec("ret int", infer(ret_int, mutates_args=()))
    for name, fn, mut in [
        ("untyped", untyped, ()),
        ("star", star, ()),
        ("noret", noret, ()),
        ("missing mutated", two, ("z",)),
        ("mutates str", two, "x"),
        ("tuple default", tup_default, ()),
    ]:
        _err(rec, name, lambda fn=fn, mut=mut: infer(fn, mutates_args=mut))

    @L.library.custom_op("ref_schema::f", mutates_args=())
    def f(
        x: T,
        a: float = 0.5,
        b: float = 1e-5,
        c: float = 1e20,
        d: float = -3.0,
        e: float = 0.1,
        g: float = 1 / 3,
        h: int = -1,
        i: bool = True,
        j: T | None = None,
        k: str = "a'b",
        p: float = 1e16,
        q: float = 123456789.0,
    ) -> T: ...

    rec("registered", str(L.ops.ref_schema.f.default._schema))
    lib = L.library.Library("ref_schema2", "DEF")
    for text in [
        "a(Tensor x, float eps=1e-05, int[] dims=[0, 1], *, bool keepdim=False) -> Tensor",
        "b(Tensor(a!) x, Scalar s=1) -> Tensor(a!)",
        "c(Tensor x, int[2] k, SymInt? n=None, str mode='mean', ScalarType? dtype=None) -> "
        "(Tensor, Tensor)",
        "d(Tensor[] xs, float e=0.1, float f=2.0, float g=1e20, float h=-3.) -> Tensor[]",
    ]:
        rec("define returns", lib.define(text))
    for n in "abcd":
        rec(f"schema {n}", str(getattr(L.ops.ref_schema2, n).default._schema))
    lib.define("a.out(Tensor x, *, Tensor(a!) out) -> Tensor(a!)")
    rec("overloads", str(L.ops.ref_schema2.a.overloads()))
    rec("out schema", str(L.ops.ref_schema2.a.out._schema))
    rec("opname", f"{L.ops.ref_schema2.a.out._opname} {L.ops.ref_schema2.a.out._overloadname}")
    rec("library repr", repr(lib))
    L.library.define("ref_schema3::zz", "(Tensor x) -> Tensor")
    rec("ns repr", repr(L.ops.ref_schema3).replace("minitorch", "torch"))


def p_arg_errors(L, rec):
    T = L.Tensor

    @L.library.custom_op("ref_args::foo", mutates_args=())
    def foo(x: T, k: int, s: float = 2.0, flag: bool = False) -> tuple[T, T]:
        return x * k, x * s

    ones = L.ones(2)
    rec("kw", foo(ones, k=3)[0])
    rec("tensor for int", foo(ones, L.tensor(2))[0])
    rec("bool for int", foo(ones, True)[0])
    rec("int for float", L.ops.ref_args.foo(ones, 2, 3)[1])
    _err(rec, "bad int", lambda: foo(ones, 2.5))
    _err(rec, "bad tensor", lambda: foo([1.0], 2))
    _err(rec, "missing", lambda: foo(ones))
    _err(rec, "extra", lambda: foo(ones, 1, 2.0, True, 5))
    _err(rec, "unknown kw", lambda: foo(ones, 1, zz=3))
    _err(rec, "ops bad int", lambda: L.ops.ref_args.foo(ones, 2.5))
    _err(rec, "no op", lambda: L.ops.ref_args.nothere)
    _err(rec, "no ns", lambda: L.ops.ref_nolib.nothere)
    _err(rec, "no mutates_args", lambda: L.library.custom_op("ref_args::m1")(foo))


def p_library(L, rec):
    lib = L.library.Library("ref_lib", "DEF")
    lib.define("bar(Tensor x, int n=1) -> Tensor")
    try:
        L.ops.ref_lib.bar(L.ones(2))
    except NotImplementedError as e:  # the first sentence: the backends listed are torch's own
        rec("no kernel", str(e).split(" This could be")[0])
    lib.impl("bar", lambda x, n=1: x * n, "CPU")
    rec("bar", L.ops.ref_lib.bar(L.ones(2), 3))
    rec("bar default", L.ops.ref_lib.bar(L.ones(2)))
    a = L.ones(2, requires_grad=True)
    y = L.ops.ref_lib.bar(a, 3)
    rec("fallback grad_fn", type(y.grad_fn).__name__)
    rec.warns("fallback backward", lambda: y.sum().backward())
    rec("a.grad", a.grad)
    lib.define("baz(Tensor x) -> Tensor")
    lib.impl("baz", lambda x: x.sin(), "CompositeImplicitAutograd")
    y = L.ops.ref_lib.baz(a)
    rec("composite grad_fn", type(y.grad_fn).__name__)
    rec("baz schema", str(L.ops.ref_lib.baz.default._schema))
    _err(rec, "redefine", lambda: lib.define("bar(Tensor x) -> Tensor"))
    _err(rec, "second DEF", lambda: L.library.Library("ref_lib", "DEF"))
    rec("fragment", repr(L.library.Library("ref_lib", "FRAGMENT")))
    _err(rec, "bad kind", lambda: L.library.Library("ref_lib9", "BLAH"))
    L.library.define("ref_lib3::qux", "(Tensor x) -> Tensor")

    @L.library.impl("ref_lib3::qux", "cpu")
    def qux(x):
        return x + 1

    rec("qux", L.ops.ref_lib3.qux(L.ones(2)))

    @L.library.register_fake("ref_lib3::qux")
    def _(x):
        return L.empty_like(x)

    rec("opcheck", str(L.library.opcheck(L.ops.ref_lib3.qux.default, (L.ones(2),))))
    _err(
        rec,
        "opcheck needs autograd",
        lambda: L.library.opcheck(L.ops.ref_lib3.qux.default, (L.ones(2, requires_grad=True),)),
    )


def p_mutation_and_opcheck(L, rec):
    T = L.Tensor

    @L.library.custom_op("ref_mut::add_one_", mutates_args={"x"})
    def add_one_(x: T) -> None:
        x.add_(1)

    z = L.zeros(2)
    rec("returns", str(add_one_(z)))
    rec("z", z)
    rec("schema", str(L.ops.ref_mut.add_one_.default._schema))

    @L.library.custom_op("ref_mut::sneaky", mutates_args=())
    def sneaky(x: T) -> T:
        x.add_(1)
        return x.clone()

    sneaky.register_fake(lambda x: L.empty_like(x))
    _err(rec, "sneaky", lambda: L.library.opcheck(sneaky, (L.ones(2),)))

    @L.library.custom_op("ref_mut::nofake", mutates_args=())
    def nofake(x: T) -> T:
        return x.clone()

    _err(rec, "nofake", lambda: L.library.opcheck(nofake, (L.ones(2),)))
    rec("utils", str(L.library.opcheck(nofake, (L.ones(2),), test_utils="test_schema")))

    @L.library.custom_op("ref_mut::wrongfake", mutates_args=())
    def wrongfake(x: T) -> T:
        return x.clone()

    wrongfake.register_fake(lambda x: x.new_empty(3))
    _err(rec, "wrongfake", lambda: L.library.opcheck(wrongfake, (L.ones(2),)))
    wrongfake.register_fake(lambda x: x.new_empty(2, dtype=L.float64))
    _err(rec, "wrong dtype", lambda: L.library.opcheck(wrongfake, (L.ones(2),)))
    got = L.library.opcheck(wrongfake, (L.ones(2),), raise_exception=False)
    rec("no raise", str({k: v if isinstance(v, str) else type(v).__name__ for k, v in got.items()}))
    nofake.register_kernel("cpu")(lambda x: x * 10)
    rec("kernel", nofake(L.ones(2)))


def p_lists_and_keywords(L, rec):
    T = L.Tensor

    @L.library.custom_op("ref_list::scale", mutates_args=())
    def scale(xs: list[T], *, k: float = 2.0) -> list[T]:
        return [t * k for t in xs]

    a = L.ones(2, requires_grad=True)
    b = L.ones(3, requires_grad=True)
    out = scale([a, b], k=3.0)
    rec("out types", f"{type(out).__name__} {len(out)} {type(out[0].grad_fn).__name__}")

    def setup_context(ctx, inputs, keyword_only_inputs, output):
        rec("setup", f"{len(inputs)} {len(inputs[0])} {sorted(keyword_only_inputs.items())}")
        ctx.k = keyword_only_inputs["k"]

    scale.register_autograd(lambda ctx, gs: ([g * ctx.k for g in gs],), setup_context=setup_context)
    out = scale([a, b], k=3.0)
    (out[0].sum() * 2 + out[1].sum()).backward()
    rec("a.grad", a.grad)
    rec("b.grad", b.grad)


def p_gradient_counts(L, rec):
    T = L.Tensor

    @L.library.custom_op("ref_count::twice", mutates_args=())
    def twice(x: T, y: T) -> T:
        return x * 2 + y

    a = L.ones(2, requires_grad=True)
    b = L.ones(2, requires_grad=True)
    for name, bw in [
        ("single", lambda ctx, g: g * 2),
        ("list", lambda ctx, g: [g * 2, g]),
        ("extra None", lambda ctx, g: (g * 2, g, None)),
        ("int", lambda ctx, g: (g * 2, 3)),
    ]:
        twice.register_autograd(bw)
        _err(rec, name, lambda: twice(a, b).sum().backward())
    rec("a.grad", a.grad)

    def setup(ctx, inputs, output):
        rec("inputs", f"{[type(i).__name__ for i in inputs]} {type(output).__name__}")
        rec("needs", str(ctx.needs_input_grad))

    twice.register_autograd(lambda ctx, g: (g, g), setup_context=setup)
    twice(a, L.ones(2)).sum().backward()

    @L.library.custom_op("ref_count::mode", mutates_args=())
    def mode(x: T) -> T:
        rec("inside", f"{L.is_grad_enabled()} {x.requires_grad}")
        return x.clone()

    rec("mode grad_fn", type(mode(a).grad_fn).__name__)


def p_aliasing(L, rec):
    T = L.Tensor

    @L.library.custom_op("ref_alias::same", mutates_args=())
    def same(x: T) -> T:
        return x

    @L.library.custom_op("ref_alias::view", mutates_args=())
    def view(x: T) -> T:
        return x.view(-1)

    @L.library.custom_op("ref_alias::pair", mutates_args=())
    def pair(x: T) -> tuple[T, T]:
        y = x.clone()
        return y, y

    @L.library.custom_op("ref_alias::ints", mutates_args=())
    def ints(x: T) -> tuple[T, int]:
        return x.clone(), 3

    @L.library.custom_op("ref_alias::bad", mutates_args=())
    def bad(x: T) -> T:
        return 3

    for name, op in [("same", same), ("view", view), ("pair", pair), ("bad", bad)]:
        _err(rec, name, lambda op=op: op(L.ones(2)))
    out = ints(L.ones(2))
    rec("ints", f"{out[1]} {type(out).__name__}")


def p_aten(L, rec):
    x, y = L.ones(2), L.full((2,), 2.0)
    rec("add", L.ops.aten.add(x, y, alpha=2))
    rec("add.Tensor", L.ops.aten.add.Tensor(x, y))
    rec("mm", L.ops.aten.mm.default(L.eye(2), L.eye(2)))
    rec("reprs", f"{L.ops.aten.mm!r} {L.ops.aten.mm.default!r}")
    _err(rec, "no op", lambda: L.ops.aten.no_such_op)


def p_numpy_op_in_training(L, dt, rec):
    """A NumPy-backed operator inside a model trained with SGD: a log-cosh penalty computed by
    NumPy with its gradient (tanh) registered, next to built-in layers."""
    T = L.Tensor

    @L.library.custom_op("ref_train::logcosh", mutates_args=())
    def logcosh(x: T) -> T:
        a = x.detach().numpy()
        out = np.abs(a) + np.log1p(np.exp(-2 * np.abs(a))) - np.log(2.0)
        return L.from_numpy(out.astype(a.dtype))

    @logcosh.register_fake
    def _(x):
        return L.empty_like(x)

    def setup_context(ctx, inputs, output):
        ctx.save_for_backward(inputs[0])

    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        return grad * x.tanh()

    logcosh.register_autograd(backward, setup_context=setup_context)
    L.manual_seed(0)
    model = L.nn.Sequential(L.nn.Linear(4, 8), L.nn.Tanh(), L.nn.Linear(8, 1)).to(dt)
    opt = L.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    X = L.randn(32, 4, dtype=dt)
    Y = X.sum(1, keepdim=True).sin()
    for step in range(5):
        opt.zero_grad()
        loss = logcosh(model(X) - Y).mean()
        loss.backward()
        opt.step()
        rec(f"loss{step}", loss)
    rec.params("p", model, grads=True)
    rec("opcheck", str(L.library.opcheck(logcosh, (L.randn(3, dtype=dt, requires_grad=True),))))


_PROGRAMS = [
    p_numpy_sin,
    p_schemas,
    p_arg_errors,
    p_library,
    p_mutation_and_opcheck,
    p_lists_and_keywords,
    p_gradient_counts,
    p_aliasing,
    p_aten,
]


@pytest.mark.parametrize("prog", _PROGRAMS, ids=lambda p: p.__name__)
def test_program(prog):
    import minitorch

    want = run_program(
        prog, torch, rec=Rec(), keep_warnings=lambda w: "autograd kernel" in str(w.message)
    )
    got = run_program(
        prog, minitorch, rec=Rec(), keep_warnings=lambda w: "autograd kernel" in str(w.message)
    )
    assert_records_match(want, got, 1e-12, rename=True)


@pytest.mark.parametrize("dt", ["float32", "float64"])
def test_numpy_op_in_training(dt):
    import minitorch

    want = run_program(p_numpy_op_in_training, torch, dt, rec=Rec(dtypes=True))
    got = run_program(p_numpy_op_in_training, minitorch, dt, rec=Rec(dtypes=True))
    assert_records_match(want, got, 1e-10 if dt == "float64" else 1e-5, rename=True)
