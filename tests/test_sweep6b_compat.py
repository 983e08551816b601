"""Sweep 6b: torch internals that library code probes (torch._C, overrides, jit helpers, _check,
onnx, _utils, utils.weak, pytree of Size) and nn odds and ends (unpool, transformer defaults,
make_dual, affine_grid)."""

from __future__ import annotations

import gc
import importlib
import inspect
import warnings
from typing import List  # noqa: UP035  (the annotation DenseNet's overloads use)

import numpy as np
import pytest

import minitorch
import minitorch.nn.functional as F
from minitorch import nn

# --- torch._C ---


def test_C_helpers_libraries_call():
    C = minitorch._C
    assert C._log_api_usage_once("torchvision.models.resnet") is None
    assert C._get_tracing_state() is None
    x = minitorch.ones(1)
    assert C._has_torch_function((x,)) is False
    assert C._has_torch_function_unary(x) is False
    assert C._has_torch_function_variadic(x, x) is False
    assert isinstance(minitorch.Generator(), C.Generator)
    assert C._get_default_device() == "cpu"
    assert C._get_cudnn_enabled() is minitorch.backends.cudnn.enabled


def test_C_set_grad_enabled_sets_the_mode():
    try:
        minitorch._C._set_grad_enabled(False)
        assert not minitorch.is_grad_enabled()
    finally:
        minitorch._C._set_grad_enabled(True)
    assert minitorch.is_grad_enabled()


def test_C_nn_parse_to():
    parse = minitorch._C._nn._parse_to
    assert parse(minitorch.float64) == (None, minitorch.float64, False, None)
    device, dtype, non_blocking, fmt = parse("cpu", minitorch.float16, non_blocking=True)
    assert (device.type, dtype, non_blocking, fmt) == ("cpu", minitorch.float16, True, None)
    _, dtype, _, _ = parse(minitorch.ones(1, dtype=minitorch.int32))
    assert dtype is minitorch.int32
    fmt = parse(memory_format=minitorch.channels_last)[3]
    assert fmt is minitorch.channels_last
    with pytest.raises(TypeError):
        parse(3.0)


# --- torch.overrides and F's copies of it ---


def test_overrides_probes_are_false_and_tensor_like():
    ov = importlib.import_module("minitorch.overrides")
    x = minitorch.ones(2)
    assert ov.has_torch_function((x, x)) is False
    assert ov.has_torch_function_unary(x) is False
    assert ov.has_torch_function_variadic(x, 1) is False
    assert ov.is_tensor_like(x) and ov.is_tensor_like(nn.Parameter(x))
    assert ov.is_tensor_like(minitorch.Tensor)
    assert not ov.is_tensor_like(3) and not ov.is_tensor_like(np.ones(2))
    ignored = ov.get_ignored_functions()
    assert minitorch.is_tensor in ignored and minitorch.ones in ignored
    assert minitorch.add not in ignored
    for name in ("has_torch_function", "has_torch_function_unary", "handle_torch_function"):
        assert getattr(F, name) is getattr(ov, name)


def test_handle_torch_function_runs_op_or_raises_type_error():
    ov = minitorch.overrides
    x = minitorch.tensor([1.0, 2.0])
    out = ov.handle_torch_function(minitorch.add, (x,), x, x)
    np.testing.assert_allclose(out.numpy(), [2.0, 4.0])
    with pytest.raises(TypeError, match="no implementation found for .*triple"):

        def triple(a):
            return a * 3

        ov.handle_torch_function(triple, (2,), 2)


def test_boolean_dispatch():
    def with_flag(x, flag=False):
        """doc of the true branch"""
        return ("true", x)

    def without(x, flag=False):
        return ("false", x)

    fn = F.boolean_dispatch("flag", 1, False, with_flag, without, "mymod", "pick")
    assert fn(1) == ("false", 1)
    assert fn(1, True) == ("true", 1)
    assert fn(1, flag=True) == ("true", 1)
    assert (fn.__name__, fn.__module__, fn.__doc__) == ("pick", "mymod", "doc of the true branch")
    assert without.__doc__ == "doc of the true branch"

    def documented(x):
        """another doc"""

    with pytest.raises(RuntimeError, match="only one function can have a docstring"):
        F.boolean_dispatch("flag", 1, False, with_flag, documented, None, None)


def test_canonical_mask():
    assert F._canonical_mask(None, "m", None, "o", minitorch.float32) is None
    mask = minitorch.tensor([True, False])
    out = F._canonical_mask(mask, "m", None, "o", minitorch.float64)
    assert out.dtype is minitorch.float64
    np.testing.assert_array_equal(out.numpy(), [-np.inf, 0.0])
    fm = minitorch.tensor([0.5, -1.0])
    assert F._canonical_mask(fm, "m", None, "o", minitorch.float64) is fm
    with pytest.raises(AssertionError, match="only bool and floating types of m are supported"):
        F._canonical_mask(minitorch.tensor([1, 0]), "m", None, "o", minitorch.float32)
    with pytest.warns(UserWarning, match="mismatched m and o is deprecated"):
        F._canonical_mask(mask, "m", minitorch.float32, "o", minitorch.float32)


# --- torch.jit helpers ---


def test_jit_overload_method_in_class_body():
    class DenseLayer(nn.Module):
        @minitorch.jit._overload_method
        def forward(self, input: List[minitorch.Tensor]) -> minitorch.Tensor:  # noqa: UP006
            pass

        @minitorch.jit._overload_method
        def forward(self, input: minitorch.Tensor) -> minitorch.Tensor:  # noqa: F811
            pass

        def forward(self, input):  # noqa: F811
            prev = [input] if isinstance(input, minitorch.Tensor) else input
            return minitorch.cat(prev, 1)

    out = DenseLayer()([minitorch.ones(1, 2), minitorch.zeros(1, 1)])
    np.testing.assert_array_equal(out.numpy(), [[1.0, 1.0, 0.0]])


def test_jit_private_helpers():
    jit = minitorch.jit

    def f(x):
        return x + 1

    assert jit._overload(f) is f and jit._script_if_tracing(f) is f
    assert jit._unwrap_optional(3) == 3
    with pytest.raises(AssertionError, match="Unwrapping null optional"):
        jit._unwrap_optional(None)
    assert issubclass(jit.RecursiveScriptModule, jit.ScriptModule)
    assert jit.RecursiveScriptModule is jit.RecursiveScriptModule
    assert not isinstance(nn.Linear(1, 1), jit.RecursiveScriptModule)


# --- torch._check family ---


def test_check_family_raises_the_named_error():
    minitorch._check(True)
    minitorch._check(True, "not called: a string is fine when the condition holds")
    cases = [
        (minitorch._check, RuntimeError),
        (minitorch._check_value, ValueError),
        (minitorch._check_index, IndexError),
        (minitorch._check_type, TypeError),
        (minitorch._check_not_implemented, NotImplementedError),
    ]
    for fn, err in cases:
        with pytest.raises(err, match="^want 3d, got 2$"):
            fn(False, lambda: "want 3d, got 2")
    with pytest.raises(RuntimeError, match="Expected cond to be True, but got False"):
        minitorch._check(False)
    with pytest.raises(KeyError):
        minitorch._check_with(KeyError, False, lambda: "k")


def test_check_argument_errors():
    with pytest.raises(TypeError, match="cond must be a bool, but got a Tensor"):
        minitorch._check(minitorch.tensor([True]))
    with pytest.raises(TypeError, match="cond must be a bool, but got <class 'int'>"):
        minitorch._check(1)
    with pytest.raises(TypeError, match="message must be a callable"):
        minitorch._check(False, "a string")
    with pytest.raises(AssertionError, match="error_type must be a subclass of Exception"):
        minitorch._check_with(int, False, lambda: "x")
    with pytest.raises(RuntimeError, match="^5$"):
        minitorch._check(False, lambda: 5)


def test_check_tensor_all_and_is_size():
    minitorch._check_tensor_all(minitorch.tensor([True, True]))
    with pytest.raises(RuntimeError, match="^some false$"):
        minitorch._check_tensor_all(minitorch.tensor([True, False]), lambda: "some false")
    with pytest.raises(TypeError, match="cond must be a tensor"):
        minitorch._check_tensor_all(True)
    with pytest.raises(TypeError, match="must have dtype torch.bool, but got torch.int64"):
        minitorch._check_tensor_all(minitorch.tensor([1, 1]))
    with pytest.warns(FutureWarning, match="_check_is_size will be removed"):
        minitorch._check_is_size(3)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)
        with pytest.raises(RuntimeError):
            minitorch._check_is_size(-1)
        with pytest.raises(RuntimeError):
            minitorch._check_is_size(3, max=2)


# --- onnx, _utils, sym_*, get_device_module, utils.weak, backends.mha ---


def test_onnx_guard_and_export_error():
    class Head(nn.Module):
        def forward(self, x):
            if minitorch.onnx.is_in_onnx_export():
                return x
            return x.clamp(0, 1)

    out = Head()(minitorch.tensor([-1.0, 0.5, 2.0]))
    np.testing.assert_allclose(out.numpy(), [0.0, 0.5, 1.0])
    with pytest.raises(minitorch.onnx.OnnxExporterError, match="cannot export ONNX"):
        minitorch.onnx.export(Head(), (minitorch.ones(1),), "m.onnx")
    assert issubclass(minitorch.onnx.OnnxExporterError, RuntimeError)


def test_utils_private_module():
    with pytest.warns(UserWarning, match="_utils.is_compiling` is deprecated"):
        assert minitorch._utils.is_compiling() is False
    from minitorch._serialization_storage import _rebuild_tensor_v2

    assert minitorch._utils._rebuild_tensor_v2 is _rebuild_tensor_v2


def test_sym_helpers_on_python_numbers():
    assert minitorch.sym_int(3.7) == 3 and minitorch.sym_int(-3.7) == -3
    assert type(minitorch.sym_int(3.0)) is int
    assert minitorch.sym_float(3) == 3.0 and type(minitorch.sym_float(3)) is float
    assert minitorch.sym_max(2, 3) == 3 and type(minitorch.sym_max(2, 3)) is int
    assert type(minitorch.sym_min(2, 3.0)) is float and minitorch.sym_min(2, 3.0) == 2.0
    assert type(minitorch.sym_max(2.0, 3)) is float
    assert minitorch.sym_not(True) is False
    assert not isinstance(3, minitorch.SymInt)


def test_get_device_module():
    assert minitorch.get_device_module("cpu") is minitorch.cpu
    assert minitorch.get_device_module("cuda:1") is minitorch.cuda
    assert minitorch.get_device_module(minitorch.device("cpu")) is minitorch.cpu
    with pytest.raises(RuntimeError, match="Device 'meta' does not have a corresponding module"):
        minitorch.get_device_module("meta")


def test_weak_tensor_key_dictionary_keys_by_identity():
    from minitorch.utils.weak import WeakIdKeyDictionary, WeakTensorKeyDictionary

    assert WeakTensorKeyDictionary is WeakIdKeyDictionary
    d = WeakTensorKeyDictionary()
    a, b = minitorch.ones(2), minitorch.ones(2)  # equal values, distinct keys
    d[a], d[b] = 1, 2
    assert (d[a], d[b], len(d)) == (1, 2, 2)
    assert a in d and 3 not in d
    del a
    gc.collect()
    assert len(d) == 1 and list(d.values()) == [2]


def test_backends_mha_fastpath_switch():
    mha = minitorch.backends.mha
    assert mha.get_fastpath_enabled() is True
    try:
        mha.set_fastpath_enabled(False)
        assert mha.get_fastpath_enabled() is False
    finally:
        mha.set_fastpath_enabled(True)
    assert importlib.import_module("minitorch.backends.mha") is mha


def test_non_dynamically_quantizable_linear():
    from minitorch.nn.modules.linear import NonDynamicallyQuantizableLinear

    m = NonDynamicallyQuantizableLinear(2, 3)
    assert isinstance(m, nn.Linear) and tuple(m.weight.shape) == (3, 2)
    assert type(nn.MultiheadAttention(4, 2).out_proj) is NonDynamicallyQuantizableLinear


# --- pytree: torch.Size is a node ---


def test_pytree_size_is_a_node_of_ints():
    pt = importlib.import_module("minitorch.utils._pytree")
    meta = {"shape": minitorch.ones(2, 3).shape, "n": 4}
    assert pt.tree_leaves(meta) == [2, 3, 4]
    out = pt.tree_map(lambda v: v * 2, meta)
    assert out == {"shape": (4, 6), "n": 8} and type(out["shape"]) is tuple
    leaves, spec = pt.tree_flatten(minitorch.Size([5, 7]))
    assert leaves == [5, 7] and spec.type is minitorch.Size


# --- nn odds and ends ---


@pytest.mark.parametrize(
    "n, shape, offset, size, expected",
    [
        (3, (2, 1, 7, 6, 5), 0, None, "178 (output volumes are of size 6x6x4)"),
        (2, (2, 3, 7, 5), 0, (5, 3), "28 (output volumes are of size 5x3)"),
        (1, (2, 3, 7), 3, None, "8 (output volumes are of size 6x1)"),
    ],
)  # fmt: skip
def test_max_unpool_invalid_index_message(n, shape, offset, size, expected):
    # values from torch 2.13 (one thread: its kernel keeps the last bad index)
    x = minitorch.arange(int(np.prod(shape)), dtype=minitorch.float32).view(*shape)
    out, idx = getattr(F, f"max_pool{n}d")(x, 2, return_indices=True)
    unpool = getattr(F, f"max_unpool{n}d")
    with pytest.raises(RuntimeError) as info:
        unpool(out, idx + offset, 2, output_size=size)
    assert str(info.value) == "Found an invalid max index: " + expected
    with pytest.raises(RuntimeError, match="Found an invalid max index: -"):
        unpool(out, -idx - 1, 2, output_size=size)


def test_max_unpool_valid_indices_unchanged():
    x = minitorch.tensor([[[1.0, 5.0, 2.0, 0.0]]])
    out, idx = F.max_pool1d(x, 2, return_indices=True)
    np.testing.assert_array_equal(F.max_unpool1d(out, idx, 2).numpy(), [[[0, 5, 2, 0]]])


def test_transformer_activation_default_is_relu_function():
    for cls in (nn.TransformerEncoderLayer, nn.TransformerDecoderLayer, nn.Transformer):
        default = inspect.signature(cls.__init__).parameters["activation"].default
        assert default is F.relu, cls.__name__
    layer = nn.TransformerEncoderLayer(4, 2, dim_feedforward=8)
    assert layer.activation is F.relu and layer.activation_relu_or_gelu == 1


def test_make_dual_int_tangent_names_the_tangent():
    fwAD = minitorch.autograd.forward_ad
    with fwAD.dual_level():
        with pytest.raises(ValueError, match="Expected tangent to be floating point .*int64"):
            fwAD.make_dual(minitorch.tensor([1.0, 2.0]), minitorch.tensor([1, 1]))
        with pytest.raises(ValueError, match="Expected primal to be floating point .*int64"):
            fwAD.make_dual(minitorch.tensor([1, 2]), minitorch.tensor([1.0, 1.0]))


def test_affine_grid_batch_mismatch_message():
    theta = minitorch.eye(2, 3).unsqueeze(0)
    with pytest.raises(RuntimeError) as info:
        F.affine_grid(theta, (2, 1, 3, 3), align_corners=False)
    assert str(info.value) == (
        "Expected size for first two dimensions of batch2 tensor to be: [2, 3] but got: [1, 3]."
    )
    with pytest.raises(RuntimeError, match=r"to be: \[2, 4\] but got: \[3, 4\]"):
        F.affine_grid(minitorch.zeros(3, 3, 4), (2, 1, 2, 3, 5), align_corners=False)


def test_affine_grid_still_differentiable():
    theta = minitorch.tensor(
        [[[1.0, 0.2, 0.1], [-0.3, 0.9, 0.0]]], dtype=minitorch.float64, requires_grad=True
    )

    def fn(t):
        return F.affine_grid(t, (1, 1, 2, 3), align_corners=False)

    assert minitorch.autograd.gradcheck(fn, (theta,))
    assert minitorch.autograd.gradgradcheck(fn, (theta,))
