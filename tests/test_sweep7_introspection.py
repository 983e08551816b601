"""Sweep 7, core introspection: public module names of core classes, torch's private tensor
attributes, torch._C aliases, autograd.Function's metaclass and apply name, return types'
field counts, module paths (cuda.amp.grad_scaler, utils._contextlib, ...) and the generated
Tensor method docstrings."""

from __future__ import annotations

import contextlib
import copy
import io
import pickle
import subprocess
import sys
import typing
import warnings
from collections import OrderedDict

import numpy as np
import pytest

import minitorch
from minitorch import _dtype

# --- public module of core classes (NOTE [ Public module of core classes ]) ---


def test_core_classes_print_under_the_public_module():
    assert str(minitorch.dtype) == "<class 'minitorch.dtype'>"
    assert str(minitorch.finfo) == "<class 'minitorch.finfo'>"
    assert str(minitorch.iinfo) == "<class 'minitorch.iinfo'>"
    assert str(minitorch.memory_format) == "<class 'minitorch.memory_format'>"
    assert str(minitorch.Size) == "<class 'minitorch.Size'>"
    # torch's Generator lives in torch._C, and so does minitorch's
    assert str(minitorch.Generator) == "<class 'minitorch._C.Generator'>"
    assert minitorch._C.Generator is minitorch.Generator
    optional = typing.Optional[minitorch.dtype]  # noqa: UP045 - the spelling libraries print
    assert str(optional) == "typing.Optional[minitorch.dtype]"
    assert str(minitorch.dtype | None) == "minitorch.dtype | None"


def test_dtype_ordering_error_names_the_type_as_torch():
    with pytest.raises(TypeError, match=r"'<' not supported between instances of 'torch.dtype' "):
        minitorch.float32 < minitorch.float64  # noqa: B015
    with pytest.raises(TypeError, match="'>='"):
        minitorch.int8 >= minitorch.int8  # noqa: B015
    with pytest.raises(TypeError):
        sorted([minitorch.float32, minitorch.int64])
    assert minitorch.float32 == minitorch.float32 and minitorch.float32 != minitorch.float64


@pytest.mark.parametrize("protocol", range(pickle.HIGHEST_PROTOCOL + 1))
def test_dtypes_and_formats_pickle_to_the_same_object(protocol):
    for dt in _dtype.ALL_DTYPES:
        data = pickle.dumps(dt, protocol)
        assert b"minitorch" in data and b"_dtype" not in data
        assert pickle.loads(data) is dt
        assert copy.copy(dt) is dt and copy.deepcopy(dt) is dt
    for fmt in (minitorch.channels_last, minitorch.contiguous_format, minitorch.preserve_format):
        assert pickle.loads(pickle.dumps(fmt, protocol)) is fmt
        assert copy.deepcopy(fmt) is fmt
    assert pickle.loads(pickle.dumps(minitorch.dtype, protocol)) is minitorch.dtype


def test_files_naming_the_old_module_still_load():
    assert pickle.loads(b"cminitorch._dtype\nfloat16\n.") is minitorch.float16
    assert pickle.loads(b"cminitorch._dtype\nfinfo\n.") is minitorch.finfo
    assert pickle.loads(b"cminitorch.random\nGenerator\n.") is minitorch.Generator


def test_finfo_iinfo_size_pickle_and_copy():
    for info in (minitorch.finfo(minitorch.float16), minitorch.iinfo(minitorch.int16)):
        back = pickle.loads(pickle.dumps(info))
        assert type(back) is type(info) and back == info and back.max == info.max
        assert copy.copy(info) == info and copy.deepcopy(info) == info
    size = minitorch.Size([2, 3])
    back = pickle.loads(pickle.dumps(size))
    assert type(back) is minitorch.Size and back == size


def test_generator_pickles_and_copies_with_its_state():
    g = minitorch.Generator().manual_seed(11)
    minitorch.rand(3, generator=g)  # advance past the seed
    expected = minitorch.rand(4, generator=copy.deepcopy(g))
    for clone in (pickle.loads(pickle.dumps(g)), copy.deepcopy(g)):
        assert type(clone) is minitorch.Generator and clone.initial_seed() == 11
        np.testing.assert_array_equal(
            minitorch.rand(4, generator=clone).numpy(), expected.numpy(), err_msg="stream"
        )


@pytest.mark.parametrize("weights_only", [True, False])
def test_checkpoint_with_dtypes_and_generator_state_round_trips(weights_only):
    g = minitorch.Generator().manual_seed(5)
    ckpt = {
        "dtype": minitorch.bfloat16,
        "dtypes": [minitorch.int64, minitorch.bool, minitorch.float64],
        "rng": g.get_state(),
        "cpu_rng": minitorch.get_rng_state(),
        "size": minitorch.Size([4]),
    }
    buf = io.BytesIO()
    minitorch.save(ckpt, buf)
    assert b"minitorch" not in buf.getvalue()  # dtypes are written as torch's globals
    buf.seek(0)
    back = minitorch.load(buf, weights_only=weights_only)
    assert back["dtype"] is minitorch.bfloat16
    assert back["dtypes"] == [minitorch.int64, minitorch.bool, minitorch.float64]
    assert back["size"] == minitorch.Size([4])
    g2 = minitorch.Generator()
    g2.set_state(back["rng"])
    np.testing.assert_array_equal(
        minitorch.rand(3, generator=g2).numpy(), minitorch.rand(3, generator=g).numpy()
    )
    np.testing.assert_array_equal(back["cpu_rng"].numpy(), ckpt["cpu_rng"].numpy())


# --- torch's private tensor attributes (NOTE [ torch's private tensor attributes ]) ---


def test_backward_hooks_of_a_leaf():
    x = minitorch.ones(3, requires_grad=True)
    assert x._backward_hooks is None and x._post_accumulate_grad_hooks is None

    def double(g):
        return g * 2

    handle = x.register_hook(double)
    hooks = x._backward_hooks
    assert type(hooks) is OrderedDict and list(hooks.items()) == [(handle.id, double)]
    seen = []
    post = x.register_post_accumulate_grad_hook(seen.append)
    assert type(x._post_accumulate_grad_hooks) is OrderedDict
    assert list(x._post_accumulate_grad_hooks.items()) == [(post.id, seen.append)]
    (x * 3).sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [6.0, 6.0, 6.0])
    assert seen == [x]
    handle.remove()
    assert x._backward_hooks == OrderedDict()  # torch keeps the emptied dict


def test_backward_hooks_of_a_non_leaf():
    x = minitorch.ones(2, requires_grad=True)
    y = x * 2
    assert y._backward_hooks is None
    h1 = y.register_hook(lambda g: g * 10)
    h2 = y.register_hook(lambda g: g + 1)
    assert list(y._backward_hooks) == [h1.id, h2.id]
    assert x._backward_hooks is None  # another tensor's hooks are not its own
    z, w = (x * 1).unbind(0)
    z.register_hook(lambda g: g)
    assert len(z._backward_hooks) == 1 and w._backward_hooks is None
    y.sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [22.0, 22.0])


def test_cdata_is_unique_per_live_tensor_and_read_only():
    tensors = [minitorch.zeros(1) for _ in range(5)]
    ids = {t._cdata for t in tensors}
    assert len(ids) == 5 and all(isinstance(i, int) for i in ids)
    assert tensors[0]._cdata == tensors[0]._cdata
    for name in ("_cdata", "_backward_hooks", "_post_accumulate_grad_hooks"):
        with pytest.raises(AttributeError):
            setattr(tensors[0], name, None)


# --- torch._C aliases ---


def test_tensor_base_and_linalg_error_aliases():
    t = minitorch.ones(2)
    assert isinstance(t, minitorch._C.TensorBase) and isinstance(t, minitorch._C._TensorBase)
    assert issubclass(minitorch.Tensor, minitorch._C.TensorBase)
    assert issubclass(minitorch.nn.Parameter, minitorch._C.TensorBase)
    assert not isinstance(np.ones(2), minitorch._C.TensorBase)
    assert minitorch._C._LinAlgError is minitorch.linalg.LinAlgError
    with pytest.raises(AttributeError, match="_Nope"):
        minitorch._C._Nope  # noqa: B018


# --- autograd.Function ---


class _Cube(minitorch.autograd.Function):
    @staticmethod
    def forward(ctx, x, scale=1.0):
        ctx.save_for_backward(x)
        ctx.scale = scale
        return x**3 * scale

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        return grad * 3 * x**2 * ctx.scale, None  # none for scale, as torch counts it


def test_function_metaclass_and_flags():
    meta = minitorch.autograd.function.FunctionMeta
    assert type(minitorch.autograd.Function) is meta and issubclass(meta, type)
    assert isinstance(_Cube, meta) and not isinstance(minitorch.Tensor, meta)
    assert (
        _Cube.generate_vmap_rule is False
        and minitorch.autograd.Function.generate_vmap_rule is False
    )
    assert _Cube.apply.__name__ == "apply" and _Cube.apply.__qualname__ == "Function.apply"
    pickled = pickle.loads(pickle.dumps(_Cube.apply))
    assert pickled.__self__ is _Cube


def test_user_function_apply_still_records_gradients():
    x = minitorch.tensor([0.5, -1.5, 2.0], dtype=minitorch.float64, requires_grad=True)
    assert minitorch.autograd.gradcheck(lambda t: _Cube.apply(t, scale=2.0), (x,))
    y = _Cube.apply(x=x)  # a tensor passed by keyword is still an input
    y.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), 3 * np.array([0.5, -1.5, 2.0]) ** 2, rtol=1e-12)


@pytest.mark.parametrize(
    "name, n",
    [("max", 2), ("sort", 2), ("svd", 3), ("linalg_lstsq", 4), ("aminmax", 2), ("max_out", 2)],
)
def test_return_type_field_counts_are_class_attributes(name, n):
    cls = getattr(minitorch.return_types, name)
    assert cls.n_fields == n and cls.n_sequence_fields == n and cls.n_unnamed_fields == 0
    assert type(cls.__dict__["n_fields"]) is int


def test_return_type_instance_field_counts():
    out = minitorch.max(minitorch.ones(2, 3), 0)
    assert out.n_fields == 2 and out.n_sequence_fields == 2 and out.n_unnamed_fields == 0


# --- module paths and feature probes ---


def test_cuda_amp_grad_scaler_module():
    from minitorch.cuda.amp import grad_scaler

    assert grad_scaler.GradScaler is minitorch.cuda.amp.GradScaler
    assert grad_scaler.GradScaler.__module__ == "minitorch.cuda.amp.grad_scaler"
    assert grad_scaler.__all__ == ["GradScaler"]
    with pytest.warns(FutureWarning, match=r"torch.cuda.amp.GradScaler\(args...\)` is deprecated"):
        scaler = grad_scaler.GradScaler(enabled=False)
    assert isinstance(scaler, minitorch.amp.GradScaler)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)
        with minitorch.cuda.amp.autocast(enabled=False):
            pass


def test_contextlib_decorators():
    from minitorch.utils import _contextlib

    log = []

    @contextlib.contextmanager
    def mode():
        log.append("enter")
        yield
        log.append("exit")

    add_one = _contextlib.context_decorator(mode, lambda v: v + 1)
    assert add_one(1) == 2 and log == ["enter", "exit"]

    def gen():
        yield 1
        yield 2

    assert list(_contextlib.context_decorator(mode, gen)()) == [1, 2]
    with pytest.raises(RuntimeError, match="Cannot decorate classes"):
        _contextlib.context_decorator(mode, int)
    with pytest.raises(AssertionError, match="both callable and also a valid context manager"):
        _contextlib.context_decorator(minitorch.no_grad(), lambda: 1)

    class Tagged(_contextlib._NoParamDecoratorContextManager):
        def __enter__(self):
            log.append("tag")

        def __exit__(self, *exc):
            return False

    @Tagged
    def bare():
        return 5

    @Tagged()
    def called():
        return 6

    log.clear()
    assert bare() == 5 and called() == 6 and log == ["tag", "tag"]
    assert isinstance(minitorch.no_grad(), _contextlib._DecoratorContextManager)


def test_default_restore_location():
    restore = minitorch.serialization.default_restore_location
    storage = minitorch.ones(2).untyped_storage()
    assert restore(storage, "cpu") is storage
    with pytest.raises(RuntimeError, match=r"torch.storage.UntypedStorage \(tagged with tpu7\)"):
        restore(storage, "tpu7")
    buf = io.BytesIO()
    minitorch.save({"w": minitorch.arange(3.0)}, buf)
    buf.seek(0)
    back = minitorch.load(buf, map_location=lambda s, loc: restore(s, "cpu"))
    np.testing.assert_array_equal(back["w"].numpy(), [0.0, 1.0, 2.0])


def test_flash_attention_is_never_available():
    assert minitorch.backends.cuda.is_flash_attention_available() is False


# --- generated Tensor method docstrings (NOTE [ Generated method docstrings ]) ---


def _public_tensor_attrs():
    seen = {}
    for cls in minitorch.Tensor.__mro__:
        for name, raw in vars(cls).items():
            if not name.startswith("_") and name not in seen:
                seen[name] = raw
    return seen


def test_every_public_tensor_method_has_a_docstring():
    kinds = (type(_public_tensor_attrs), property)
    missing = [
        n for n, raw in _public_tensor_attrs().items() if type(raw) in kinds and not raw.__doc__
    ]
    assert missing == []


def test_generated_docstrings():
    t = minitorch.Tensor
    assert t.sum.__doc__.startswith("Tensor.sum(...): minitorch.sum with self as the input")
    assert minitorch.sum.__doc__.splitlines()[0] in t.sum.__doc__
    assert t.view.__doc__.startswith("Tensor.view(...)")
    assert t.add_.__doc__ == "In-place version of Tensor.add."
    assert t.size.__doc__ == "Mirrors torch.Tensor.size."
    assert t.shape.__doc__ == "Mirrors torch.Tensor.shape."
    # written docstrings stay, and the functions keep their own
    assert t.register_hook.__doc__.startswith("hook(grad)")
    assert not minitorch.sum.__doc__.startswith("Tensor.")
    assert "Tensor.view" in pydoc_text(t.view)


def pydoc_text(obj) -> str:
    import pydoc

    return pydoc.render_doc(obj, renderer=pydoc.plaintext)


def test_docstrings_load_no_lazy_family():
    code = (
        "import sys, minitorch\n"
        "doc = minitorch.Tensor.sort.__doc__\n"
        "assert doc == 'Tensor.sort(...): minitorch.sort with self as the input; see "
        "help(minitorch.sort).', doc\n"
        "print(sorted(m for m in sys.modules if m.startswith('minitorch._ops.')))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    loaded = eval(out.stdout)
    assert "minitorch._ops.sorting" not in loaded and "minitorch._ops.linalg_solve" not in loaded


def test_layout_handles_and_generator_print_as_torchs():
    import pickle

    assert repr(type(minitorch.strided)) == "<class 'minitorch.layout'>"
    assert pickle.loads(pickle.dumps(minitorch.strided)) is minitorch.strided
    handle_cls = minitorch.utils.hooks.RemovableHandle
    assert handle_cls.__module__ == "minitorch.utils.hooks"
    lin = minitorch.nn.Linear(1, 1)  # alive: a handle of a dead module does not unpickle
    h = lin.register_forward_hook(_no_op_hook)
    assert type(pickle.loads(pickle.dumps(h))) is handle_cls
    assert repr(minitorch.Generator()).startswith("<minitorch._C.Generator object at 0x")


def _no_op_hook(*args):
    return None
