"""Session 34 (helper uncert): torch-free regression tests of the library fixes the
predictive-uncertainty programs of tests/reference/test_s34_uncert_reference.py found: the
in-place fast path of lerp_/addcmul_/addcdiv_ on shapes that do not broadcast (torch's
RuntimeError, not NumPy's ValueError); AveragedModel pairing the tensors of a model with fewer
parameters as zip does; get_ema_multi_avg_fn / get_swa_multi_avg_fn written as torch writes
them (_foreach_lerp_, the integer branch's _foreach_add_ / _foreach_addcdiv_); BatchNorm's and
InstanceNorm's input check calling input.dim(); a lazy buffer's message naming
UninitializedBuffer; vmap's batch sizes read by size(in_dim). torch's messages are written
here as literals."""

from __future__ import annotations

import numpy as np
import pytest

import minitorch as mt

swa = mt.optim.swa_utils
nn = mt.nn


def _message(exc_type, fn):
    with pytest.raises(exc_type) as info:
        fn()
    return str(info.value)


SIZE_3_4 = (
    "The size of tensor a (3) must match the size of tensor b (4) at non-singleton dimension 1"
)


@pytest.mark.parametrize(
    "call",
    [
        lambda a: a.lerp_(mt.ones(2, 4), 0.5),
        lambda a: mt._foreach_lerp_([a], [mt.ones(2, 4)], 0.5),
        lambda a: a.addcmul_(mt.ones(2, 4), a),
        lambda a: a.addcdiv_(a, mt.ones(2, 4), value=2),
    ],
)
def test_inplace_ternary_shape_mismatch_is_torchs_runtime_error(call):
    a = mt.zeros(2, 3)  # float32, as the others: the fast path's case
    assert _message(RuntimeError, lambda: call(a)) == SIZE_3_4
    assert a._version == 0 and not a.any()


def test_inplace_ternary_fast_path_still_broadcasts_others():
    a = mt.zeros(2, 3)
    a.lerp_(mt.arange(3.0), 0.5)
    np.testing.assert_array_equal(a.numpy(), [[0.0, 0.5, 1.0]] * 2)
    assert a._version == 1


def _linear(seed, *args, **kwargs):
    mt.manual_seed(seed)
    return nn.Linear(*args, **kwargs).double()


@pytest.mark.parametrize(
    "kwargs",
    [{}, {"avg_fn": swa.get_swa_avg_fn()}, {"multi_avg_fn": swa.get_ema_multi_avg_fn(0.5)}],
)
def test_averaged_model_pairs_a_shorter_model_as_zip(kwargs):
    a = _linear(0, 3, 2)
    nb = _linear(1, 3, 2, bias=False)
    am = swa.AveragedModel(a, **kwargs)
    am.update_parameters(nb)  # the first call copies the weight; the bias stays a's
    np.testing.assert_array_equal(am.module.weight.detach().numpy(), nb.weight.detach().numpy())
    np.testing.assert_array_equal(am.module.bias.detach().numpy(), a.bias.detach().numpy())
    am.update_parameters(a)
    want = (nb.weight + a.weight).detach().numpy() / 2
    np.testing.assert_allclose(am.module.weight.detach().numpy(), want, rtol=1e-15)
    assert int(am.n_averaged) == 2


def test_multi_avg_fn_given_as_avg_fn_fails_as_torchs():
    a = _linear(0, 3, 2)
    am = swa.AveragedModel(a, avg_fn=swa.get_ema_multi_avg_fn(0.5))
    am.update_parameters(a)
    msg = _message(TypeError, lambda: am.update_parameters(a))
    assert msg.startswith(
        "_foreach_lerp_() received an invalid combination of arguments - got (Tensor, Tensor, "
        "float), but expected one of:\n * (tuple of Tensors self, tuple of Tensors tensors1, "
        "Number weight)\n"
    )
    np.testing.assert_array_equal(am.module.weight.detach().numpy(), a.weight.detach().numpy())


def test_ema_multi_avg_fn_shape_mismatch():
    am = swa.AveragedModel(_linear(0, 3, 2), multi_avg_fn=swa.get_ema_multi_avg_fn(0.5))
    am.update_parameters(_linear(0, 3, 2))
    assert _message(RuntimeError, lambda: am.update_parameters(_linear(2, 4, 2))) == SIZE_3_4


def test_swa_multi_avg_fn_refuses_integer_buffers():
    mt.manual_seed(0)
    model = nn.Sequential(nn.Linear(3, 2), nn.BatchNorm1d(2))
    x = mt.randn(4, 3)
    model(x)
    am = swa.AveragedModel(model, multi_avg_fn=swa.get_swa_multi_avg_fn(), use_buffers=True)
    am.update_parameters(model)
    model(x)
    msg = _message(RuntimeError, lambda: am.update_parameters(model))
    assert msg.startswith("Integer division with addcdiv is no longer supported")
    f = swa.get_swa_multi_avg_fn()
    ints = [mt.tensor([1, 5])]
    msg = _message(RuntimeError, lambda: f(ints, [mt.tensor([3, 3])], 1))
    assert msg == "For integral input tensors, argument alpha must not be a floating point number."
    floats = [mt.tensor([1.0, 5.0])]
    f(floats, [mt.tensor([3.0, 3.0])], mt.tensor(1))
    np.testing.assert_array_equal(floats[0].numpy(), [2.0, 4.0])


@pytest.mark.parametrize(
    "module",
    [
        lambda: nn.BatchNorm1d(3),
        lambda: nn.BatchNorm2d(3),
        lambda: nn.BatchNorm3d(3),
        lambda: nn.SyncBatchNorm(3),
        lambda: nn.InstanceNorm1d(3),
    ],
)
def test_norm_input_check_calls_dim(module):
    msg = _message(AttributeError, lambda: module()({"x": mt.zeros(2, 3)}))
    assert msg == "'dict' object has no attribute 'dim'"


def test_update_bn_with_a_dict_loader():
    bn = nn.BatchNorm1d(3)
    msg = _message(AttributeError, lambda: swa.update_bn([{"x": mt.zeros(4, 3)}], bn))
    assert msg == "'dict' object has no attribute 'dim'"


def _uninitialized(cls, what):
    return (
        f"Attempted to use an uninitialized parameter in <method '{what}' of "
        "'minitorch._C.TensorBase' objects>. This error happens when you are using a "
        f"`LazyModule` or explicitly manipulating `torch.nn.parameter.{cls}` objects. When using "
        "LazyModules Call `forward` with a dummy batch to initialize the parameters before "
        "calling torch functions"
    )


def test_lazy_placeholders_name_their_class():
    lazy = nn.LazyBatchNorm1d()
    msg = _message(ValueError, lambda: swa.update_bn([mt.zeros(4, 3)], lazy))
    assert msg == _uninitialized("UninitializedBuffer", "zero_")
    msg = _message(ValueError, lambda: nn.LazyLinear(2).weight.add_(1))
    assert msg == _uninitialized("UninitializedParameter", "add_")


def test_vmap_in_dim_true_is_refused_by_size():
    x = mt.ones(3, 4)
    f = mt.func.vmap(lambda a, b: a + b, in_dims=(0, True))
    msg = _message(TypeError, lambda: f(x, x))
    assert msg == "size(): argument 'dim' (position 1) must be int, not bool"
    out = mt.func.vmap(lambda a, b: a + b, in_dims=(0, -1))(x, mt.ones(4, 3))
    assert out.shape == (3, 4)
