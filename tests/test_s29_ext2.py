"""Session 29 (helper ext2): torch-free checks of the torch.library, torch.func and
utils.module_tracker fixes found by tests/reference/test_s29_ext2_reference.py. The messages and
values below are torch 2.13's."""

import gc

import numpy as np
import pytest

import minitorch as torch
from minitorch import Tensor, library

VALID_TYPES_TAIL = "The valid types are"


def _np(t):
    return t.detach().numpy()


def test_custom_op_bumps_the_version_of_mutated_arguments_once():
    @library.custom_op("s29x_mut::numpy_sin_", mutates_args={"x"})
    def numpy_sin_(x: Tensor) -> None:
        a = _np(x)
        np.sin(a, out=a)  # NumPy's write: no version bump of its own

    @library.custom_op("s29x_mut::add_into", mutates_args=("out",))
    def add_into(a: Tensor, b: Tensor, out: Tensor) -> None:
        out.copy_(a + b)

    @library.custom_op("s29x_mut::zero_all", mutates_args=("xs",))
    def zero_all(xs: list[Tensor]) -> None:
        for t in xs:
            t.zero_()

    x = torch.zeros(3)
    numpy_sin_(x)
    assert x._version == 1
    out = torch.empty(2)
    add_into(torch.ones(2), torch.ones(2), out)
    assert out._version == 2  # copy_ and the operator's own bump
    xs = [torch.ones(2), torch.ones(3)]
    zero_all(xs)
    assert [t._version for t in xs] == [2, 2]


def test_packet_call_picks_the_overload_that_binds():
    lib = library.Library("s29x_pk", "DEF")
    lib.define("f(Tensor x, float k) -> Tensor")
    lib.define("f.list(Tensor[] xs, float k) -> Tensor[]")
    lib.impl("f", lambda x, k: x * k, "CPU")
    lib.impl("f.list", lambda xs, k: [t * (k + 1) for t in xs], "CPU")
    assert torch.ops.s29x_pk.f(torch.ones(2), 2.0).tolist() == [2.0, 2.0]
    got = torch.ops.s29x_pk.f([torch.ones(1), torch.ones(1)], 2.0)
    assert [t.tolist() for t in got] == [[3.0], [3.0]]
    del lib
    gc.collect()


def test_dispatcher_argument_messages():
    @library.custom_op("s29x_args::combine", mutates_args=())
    def combine(
        xs: list[Tensor],
        sizes: list[int] | None = None,
        dt: torch.dtype = None,
        *,
        alpha: float = 1.0,
    ) -> Tensor:
        return xs[0].clone()

    decl = (
        "Declaration: s29x_args::combine(Tensor[] xs, SymInt[]? sizes=None, ScalarType dt=None, "
        "*, float alpha=1.) -> Tensor"
    )
    with pytest.raises(RuntimeError) as e:
        combine([torch.ones(2)], None, None, 2.0)
    assert str(e.value) == (
        "s29x_args::combine() takes 3 positional argument(s) but 4 was/were given.  " + decl
    )
    with pytest.raises(RuntimeError) as e:
        combine([torch.ones(2)], dt="x")
    assert str(e.value).startswith(
        "s29x_args::combine() Expected a value of type 'int' for argument 'dt' but instead found "
        "type 'str'.\nPosition: 2\nValue: 'x'\n" + decl
    )
    with pytest.raises(RuntimeError) as e:
        combine([torch.ones(2)], sizes=[1.5])
    assert (
        "Cast error details: Unable to cast Python instance of type <class 'float'> to C++ type "
        "'?' (#define PYBIND11_DETAILED_ERROR_MESSAGES or compile in debug mode for details)"
    ) in str(e.value)


def test_infer_schema_messages():
    def bad(x: Tensor, y: dict) -> Tensor: ...

    def tup(x: Tensor, y: tuple[int, int]) -> Tensor: ...

    def tup_mixed(x: Tensor, y: tuple[int, float]) -> Tensor: ...

    def lazy(x: Tensor, y: "Nowhere") -> Tensor: ...  # noqa: F821

    def msg(fn):
        with pytest.raises(ValueError) as e:
            library.infer_schema(fn, mutates_args=())
        return str(e.value).split(VALID_TYPES_TAIL)[0]

    assert msg(bad) == "infer_schema(func): Parameter y has unsupported type <class 'dict'>. "
    assert msg(tup) == (
        "infer_schema(func): Parameter y has unsupported type tuple[int, int]. We do not support "
        "Tuple inputs in schema. As a workaround, please try to use List instead. For example, "
        "list[int].\n\n"
    )
    assert msg(tup_mixed).endswith("please try to use List instead. \n\n")
    assert msg(lazy).startswith(
        "infer_schema(func): Unsupported type annotation Nowhere. It is not a type. (name "
        "'Nowhere' is not defined). If you are using 'from __future__ import annotations'"
    )
    # the annotations are read before the operator's name
    with pytest.raises(ValueError, match="Parameter x must have a type annotation"):
        library.custom_op("noname", mutates_args=())(lambda x: x)


def test_schema_text_errors():
    lib = library.Library("s29x_schema", "DEF")
    lib.define("ok(Tensor x) -> Tensor")
    with pytest.raises(RuntimeError) as e:
        lib.define("bad(Tensor x, flot y) -> Tensor")
    assert str(e.value) == (
        "\nunknown type specifier. Common valid schema types include Tensor, SymInt, int, float, "
        "bool, Scalar; for a full list, please see "
        "https://github.com/pytorch/pytorch/blob/main/aten/src/ATen/native/README.md#func :\n"
        "bad(Tensor x, flot y) -> Tensor\n              ~~~~ <--- HERE\n"
    )
    with pytest.raises(ValueError) as e:
        library.define("s29x_schema2::f", "(Tensor x -> Tensor")
    assert str(e.value) == (
        'define(qualname, schema, ...): expected schema to look like e.g. "(Tensor x) -> Tensor" '
        'but got "(Tensor x -> Tensor"'
    )
    impl = library.Library("s29x_schema", "IMPL", "CPU")
    with pytest.raises(RuntimeError, match=r'^def\("nope"\): Cannot define an operator inside of '
                       "a TORCH_LIBRARY_IMPL block.  All def"):  # fmt: skip
        impl.define("nope(Tensor x) -> Tensor")
    with pytest.raises(RuntimeError, match="^operator s29x_schema::none does not exist$"):
        library.register_fake("s29x_schema::none", lambda x: x)
    with pytest.raises(RuntimeError, match="at start of device string: tpu"):
        library.register_kernel("s29x_schema::ok", "tpu", lambda x: x)
    del lib, impl
    gc.collect()


def test_opcheck_dynamic_sizes_packets_and_failures():
    @library.custom_op("s29x_oc::numpy_nonzero", mutates_args=())
    def numpy_nonzero(x: Tensor) -> Tensor:
        return torch.tensor(np.stack(np.nonzero(_np(x)), axis=1))

    @numpy_nonzero.register_fake
    def _(x):
        nnz = library.get_ctx().new_dynamic_size()
        return x.new_empty(nnz, x.dim(), dtype=torch.int64)

    x = torch.tensor([[0.0, 1.0], [2.0, 3.0]])
    ok = {
        "test_schema": "SUCCESS",
        "test_autograd_registration": "SUCCESS",
        "test_faketensor": "SUCCESS",
        "test_aot_dispatch_dynamic": "SUCCESS",
    }
    assert library.opcheck(numpy_nonzero, (x,)) == ok
    assert library.opcheck(torch.ops.s29x_oc.numpy_nonzero, (x,)) == ok  # a packet: its default

    @library.custom_op("s29x_oc::add_into", mutates_args=("out",))
    def add_into(a: Tensor, out: Tensor) -> None:  # no fake needed: it returns nothing
        out.copy_(a)

    assert library.opcheck(add_into, (torch.ones(2), torch.empty(2))) == ok

    @library.custom_op("s29x_oc::few", mutates_args=())
    def few(x: Tensor) -> tuple[Tensor, Tensor]:
        return x.clone(), x.clone()

    few.register_fake(lambda x: (torch.empty_like(x),))
    res = library.opcheck(few, (torch.ones(2),), raise_exception=False)
    assert isinstance(res["test_faketensor"], AssertionError)
    assert str(res["test_faketensor"]) == (
        "When comparing the output of s29x_oc.few.default on FakeTensor and concrete Tensors, "
        "found mismatch in number of returns 1 != 2"
    )
    with pytest.raises(ValueError) as e:
        library.opcheck(few, (torch.ones(2),), test_utils=("test_nothing",))
    assert str(e.value) == (
        "opcheck(op, ..., test_utils=('test_nothing',)), expected test_utils to be subset of "
        "('test_schema', 'test_autograd_registration', 'test_faketensor', "
        "'test_aot_dispatch_static', 'test_aot_dispatch_dynamic') but it was not"
    )
    assert library.opcheck(few, (torch.ones(2),), test_utils="test_aot_dispatch_static") == {
        "test_aot_dispatch_static": "SUCCESS"
    }


def test_vmap_refuses_a_function_with_both_vmap_rules():
    class Both(torch.autograd.Function):
        generate_vmap_rule = True

        @staticmethod
        def forward(x):
            return x * 2

        @staticmethod
        def setup_context(ctx, inputs, output):
            pass

        @staticmethod
        def backward(ctx, g):
            return g * 2

        @staticmethod
        def vmap(info, in_dims, x):
            return x * 2, 0

    with pytest.raises(RuntimeError) as e:
        torch.func.vmap(Both.apply)(torch.ones(2, 3))
    assert str(e.value) == (
        "You tried to vmap over Both, but it has both generate_vmap_rule=True and an overridden "
        "vmap staticmethod. Please set generate_vmap_rule=False or delete the overridden vmap "
        "staticmethod to avoid ambiguity. For more details, please see "
        "https://pytorch.org/docs/main/notes/extending.func.html"
    )


def test_module_tracker_is_bw_for_the_whole_backward():
    from minitorch.utils.module_tracker import ModuleTracker

    model = torch.nn.Sequential(torch.nn.Linear(3, 3), torch.nn.Tanh())
    x = torch.randn(2, 3, requires_grad=True)
    seen = []
    with ModuleTracker() as tracker:
        y = model(x)
        assert not tracker.is_bw
        y.register_hook(lambda g: seen.append(tracker.is_bw))
        x.register_hook(lambda g: seen.append(tracker.is_bw))  # after the tracked modules
        y.sum().backward()
        assert not tracker.is_bw
    assert seen == [True, True]


def test_flop_counter_looks_up_custom_mapping_by_packet_only():
    from minitorch.utils.flop_counter import FlopCounterMode

    @library.custom_op("s29x_flop::f", mutates_args=())
    def f(x: Tensor) -> Tensor:
        return x.clone()

    by_overload = {torch.ops.s29x_flop.f.default: lambda *a, **k: 5}
    with FlopCounterMode(display=False, custom_mapping=by_overload) as fc:
        f(torch.ones(2))
    assert fc.get_total_flops() == 0
    with FlopCounterMode(
        display=False, custom_mapping={torch.ops.s29x_flop.f: lambda *a, **k: 5}
    ) as fc:
        f(torch.ones(2))
    assert fc.get_total_flops() == 5


def test_opcheck_compares_the_fakes_aliasing_with_the_kernels():
    @library.custom_op("s29x_alias::split_scale", mutates_args=())
    def split_scale(x: Tensor, sections: int) -> list[Tensor]:
        return [c * 2 for c in x.chunk(sections)]

    split_scale.register_fake(lambda x, sections: list(torch.empty_like(x).chunk(sections)))
    res = library.opcheck(split_scale, (torch.arange(6.0), 3), raise_exception=False)
    prefix = (
        "When comparing the output of s29x_alias.split_scale.default on FakeTensor and concrete "
        "Tensors, found mismatch in "
    )
    assert type(res["test_faketensor"]).__name__ == "MetadataMismatchError"
    assert str(res["test_faketensor"]) == prefix + "outputs_alias_each_other check True != False"
    split_scale.register_fake(lambda x, sections: [x] + [x.new_empty(2)] * (sections - 1))
    res = library.opcheck(split_scale, (torch.arange(6.0), 3), raise_exception=False)
    assert str(res["test_faketensor"]) == prefix + "outputs_alias_inputs check True != False"
    split_scale.register_fake(lambda x, sections: [x.new_empty(2) for _ in range(sections)])
    assert library.opcheck(split_scale, (torch.arange(6.0), 3))["test_faketensor"] == "SUCCESS"


def test_schema_introspection_as_torch():
    lib = library.Library("s29x_intro", "DEF")
    lib.define(
        "f(Tensor(a!) x, Tensor? y, Tensor?[] w, SymInt[2] s, Scalar c, ScalarType t, Device d, "
        "*, int[]? i=None) -> (Tensor(a!), Tensor[])"
    )
    lib.define("g(Tensor x) -> Tensor")
    lib.impl("g", lambda x: x + 1, "CPU")
    sch = torch.ops.s29x_intro.f.default._schema
    assert [a.type for a in sch.arguments] == [
        "Tensor", "Optional[Tensor]", "List[Optional[Tensor]]", "List[int]", "number", "int",
        "Device", "Optional[List[int]]",
    ]  # fmt: skip
    assert [r.type for r in sch.returns] == ["Tensor", "List[Tensor]"]
    info = sch.arguments[0].alias_info
    assert info.is_write and info.before_set == {"a"} and info.after_set == {"a"}
    assert sch.arguments[1].alias_info is None and sch.returns[0].alias_info.is_write
    assert sch.is_mutable and not torch.ops.s29x_intro.g.default._schema.is_mutable
    assert str(sch).startswith("s29x_intro::f(Tensor(a!) x, Tensor? y, Tensor?[] w, SymInt[2] s")
    g = torch.ops.s29x_intro.g
    assert g.default.has_kernel_for_dispatch_key("CPU")
    assert not g.default.has_kernel_for_dispatch_key("CUDA")
    assert not torch.ops.s29x_intro.f.default.has_kernel_for_dispatch_key("CPU")
    assert g.default.tags == [] and g._qualified_op_name == "s29x_intro::g"
    assert {"f", "g"} <= set(dir(torch.ops.s29x_intro))
    del lib
    gc.collect()


def test_device_defaults_get_ctx_and_set_kernel_enabled():
    seen = []

    @library.custom_op("s29x_tog::to_dev", mutates_args=())
    def to_dev(x: Tensor, dev: torch.device = torch.device("cpu")) -> Tensor:  # noqa: B008
        seen.append(dev)
        return x.to(dev).clone()

    assert to_dev._schema == '(Tensor x, Device dev="cpu") -> Tensor'
    assert str(torch.ops.s29x_tog.to_dev.default._schema) == (
        "s29x_tog::to_dev(Tensor x, Device dev=cpu) -> Tensor"
    )
    to_dev(torch.ones(1))
    assert seen == [torch.device("cpu")]
    assert library.get_ctx() is None

    @library.custom_op("s29x_tog::scale", mutates_args=(), device_types="cpu")
    def scale(x: Tensor) -> Tensor:
        return x * 2

    scale.register_kernel("cpu")(lambda x: x * 3)
    got = [scale(torch.ones(1)).item()]
    with scale.set_kernel_enabled("cpu", False):
        got.append(scale(torch.ones(1)).item())
        with scale.set_kernel_enabled("cpu", True):
            got.append(scale(torch.ones(1)).item())
        got.append(scale(torch.ones(1)).item())
    got.append(scale(torch.ones(1)).item())
    assert got == [3.0, 2.0, 3.0, 2.0, 3.0]
