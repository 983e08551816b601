"""Sweep fixes: tensor/Parameter pickling and deepcopy, checkpoint early stop and names, lazy
placeholders refusing use, Parameter subclasses, the device class name, nn.utils/func helpers."""

from __future__ import annotations

import copy
import io
import pickle

import numpy as np
import pytest

import minitorch as torch
from minitorch import nn
from minitorch.utils import checkpoint as ck

# --- Python attributes survive pickle, torch.save and deepcopy ---


def test_pickle_and_save_keep_python_attributes():
    m = nn.Linear(2, 2)
    m.bias._no_weight_decay = True
    buf = io.BytesIO()
    torch.save(m, buf)
    buf.seek(0)
    assert torch.load(buf, weights_only=False).bias._no_weight_decay is True
    assert pickle.loads(pickle.dumps(m)).bias._no_weight_decay is True
    t = torch.ones(2)
    t.meta = "x"
    back = pickle.loads(pickle.dumps(t))
    assert back.meta == "x"
    np.testing.assert_array_equal(back.numpy(), [1.0, 1.0])


def test_save_load_keeps_tensor_and_parameter_state_weights_only():
    t = torch.ones(2)
    t.meta = "x"
    p = nn.Parameter(torch.zeros(3))
    p._no_weight_decay = True
    buf = io.BytesIO()
    torch.save({"t": t, "p": p}, buf)
    buf.seek(0)
    d = torch.load(buf)
    assert d["t"].meta == "x"
    assert d["p"]._no_weight_decay is True
    assert type(d["p"]) is nn.Parameter


def test_autograd_bookkeeping_is_not_pickled():
    x = torch.ones(3, requires_grad=True)
    x.register_hook(lambda g: g)
    x.tag = 1
    back = pickle.loads(pickle.dumps(x))
    assert back.__dict__ == {"tag": 1}


def test_deepcopy_of_tensor_keeps_underscore_attributes_parameter_drops_them():
    t = torch.ones(2)
    t._x = [1]
    d = copy.deepcopy(t)
    assert d._x == [1] and d._x is not t._x
    p = nn.Parameter(torch.ones(2))
    p.a = 1
    assert "a" not in copy.deepcopy(p).__dict__  # as torch's Parameter.__deepcopy__


# --- deepcopy keeps shared memory and strides ---


def test_deepcopy_keeps_views_of_one_base():
    a = torch.zeros(4)
    d = copy.deepcopy({"base": a, "view": a[:2], "reshaped": a.view(2, 2)})
    d["base"][0] = 5.0
    assert d["view"][0].item() == 5.0
    assert d["reshaped"][0, 0].item() == 5.0
    assert a[0].item() == 0.0  # the original is untouched


def test_deepcopy_module_keeps_view_alias():
    class M(nn.Module):
        def __init__(self):
            super().__init__()
            self.register_buffer("buf", torch.zeros(4))
            self.head = self.buf[:2]

    m2 = copy.deepcopy(M())
    m2.buf.fill_(1.0)
    assert m2.head.tolist() == [1.0, 1.0]


def test_deepcopy_keeps_strides():
    x = torch.arange(12.0).reshape(3, 4)
    for t, stride in ((x.t(), (1, 4)), (x[:, ::2], (4, 2)), (torch.arange(6.0)[::2], (2,))):
        d = copy.deepcopy(t)
        assert d.stride() == stride
        np.testing.assert_array_equal(d.numpy(), t.numpy())


def test_deepcopy_of_view_first_then_base_shares():
    x = torch.ones(3)
    d = copy.deepcopy([x[1:], x])
    d[1].fill_(2.0)
    assert d[0].tolist() == [2.0, 2.0]
    assert d[0]._base is d[1]


# --- checkpoint: early stop and the selective checkpointing names ---


def _hooked_block():
    feats = []
    torch.manual_seed(0)
    block = nn.Sequential(nn.Linear(2, 2), nn.Tanh())
    block.register_forward_hook(lambda m, i, o: feats.append(o.detach()))
    return block, feats


def test_checkpoint_early_stop_skips_forward_hook_in_recompute():
    block, feats = _hooked_block()
    x = torch.ones(3, 2, requires_grad=True)
    ck.checkpoint(block, x, use_reentrant=False).sum().backward()
    assert len(feats) == 1
    g_early = x.grad.numpy().copy()
    x.grad = None
    feats.clear()
    with ck.set_checkpoint_early_stop(False):
        out = ck.checkpoint(block, x, use_reentrant=False)
    out.sum().backward()
    assert len(feats) == 2
    g_full = x.grad.numpy().copy()
    x.grad = None
    feats.clear()
    ck.checkpoint(block, x, use_reentrant=False, early_stop=False).sum().backward()
    assert len(feats) == 2
    x.grad = None
    block(x).sum().backward()
    np.testing.assert_allclose(g_early, x.grad.numpy(), rtol=1e-6, err_msg="early stop grad")
    np.testing.assert_allclose(g_full, x.grad.numpy(), rtol=1e-6, err_msg="full recompute grad")


def test_checkpoint_early_stop_recomputes_up_to_last_save_each_backward():
    calls = []

    def f(x):
        calls.append("a")
        y = x.sin()
        calls.append("b")
        return y * 2 + 1

    x = torch.ones(3, dtype=torch.float64, requires_grad=True)
    out = ck.checkpoint(f, x, use_reentrant=False)
    out.sum().backward(retain_graph=True)
    out.sum().backward()
    assert calls == ["a", "b", "a", "a"]
    np.testing.assert_allclose(x.grad.numpy(), 4 * np.cos(np.ones(3)), rtol=1e-12)
    assert torch.autograd.gradcheck(
        lambda t: ck.checkpoint(f, t, use_reentrant=False), (x.detach().requires_grad_(),)
    )


def test_checkpoint_selective_names():
    assert [p.value for p in ck.CheckpointPolicy] == [0, 1, 2, 3, 4, 5]
    assert ck.CheckpointPolicy.MUST_SAVE.name == "MUST_SAVE"
    c = ck.SelectiveCheckpointContext(is_recompute=True)
    assert c.is_recompute is True and c.op_output is None
    with pytest.raises(TypeError, match="policy_fn_or_list must be either"):
        ck.create_selective_checkpoint_contexts(3)
    with pytest.raises(NotImplementedError, match="per-op dispatch"):
        ck.create_selective_checkpoint_contexts(lambda ctx, op, *a, **k: None)
    assert ck.get_device_states(torch.ones(2), [torch.zeros(1)]) == ([], [])
    ck.set_device_states([], [])
    prev = ck.DefaultDeviceType._default_device_type
    try:
        ck.DefaultDeviceType.set_device_type("meta")
        assert ck.DefaultDeviceType.get_device_type() == "meta"
        ck.set_device_states([0], [None])  # meta: nothing to set
    finally:
        ck.DefaultDeviceType._default_device_type = prev
    for name in ("CheckpointPolicy", "get_device_states", "create_selective_checkpoint_contexts"):
        assert name in ck.__all__


# --- lazy placeholders refuse use ---


def test_uninitialized_parameter_refuses_use():
    m = nn.Sequential(nn.LazyLinear(4), nn.ReLU(), nn.Linear(4, 2))
    p = m[0].weight
    for f in (
        lambda: sum(q.numel() for q in m.parameters()),
        lambda: p.dim(),
        lambda: p + 1,
        lambda: 1 + p,
        lambda: p.sum(),
        lambda: torch.add(p, 1),
        lambda: torch.cat([p, p]),
        lambda: nn.functional.linear(torch.ones(2, 2), p),
        lambda: nn.utils.parameters_to_vector(m.parameters()),
        lambda: len(p),
        lambda: f"{p}",
        lambda: nn.LazyBatchNorm1d().running_mean.numel(),
    ):
        with pytest.raises(ValueError, match="Attempted to use an uninitialized parameter in"):
            f()
    with pytest.raises(ValueError, match="<method 'add' of 'minitorch._C.TensorBase' objects>"):
        p + 1
    # what torch still allows
    assert p.size() == (0,) and p.ndim == 1 and p.dtype == torch.float32
    assert p.is_floating_point() and p.requires_grad and p.grad is None
    assert type(p.data) is torch.Tensor and p.data.shape == (0,)
    with pytest.raises(RuntimeError, match="Can't access the shape"):
        _ = p.shape


def test_lazy_module_conversions_pickle_and_forward_still_work():
    m = nn.Sequential(nn.LazyLinear(3), nn.LazyBatchNorm1d()).double()
    assert type(m[0].weight) is nn.UninitializedParameter and m[0].weight.dtype == torch.float64
    assert type(m[1].running_mean) is nn.UninitializedBuffer
    assert m[1].running_mean.dtype == torch.float64
    back = pickle.loads(pickle.dumps(m))
    assert type(back[0].weight) is nn.UninitializedParameter
    assert back[0].weight.dtype == torch.float64
    assert type(copy.deepcopy(m)[0].weight) is nn.UninitializedParameter
    opt = torch.optim.SGD(m.parameters(), lr=0.1)
    out = m(torch.ones(4, 2, dtype=torch.float64))
    assert out.shape == (4, 3) and type(m[0].weight) is nn.Parameter
    out.sum().backward()
    opt.step()
    assert m[0].weight.shape == (3, 2) and m[0].weight.numel() == 6


# --- Parameter subclasses ---


def test_parameter_subclass_with_extra_new_arguments():
    class QuantParam(nn.Parameter):
        def __new__(cls, data=None, requires_grad=False, quant_type="fp4", blocksize=64):
            p = super().__new__(cls, data, requires_grad)
            p.quant_type, p.blocksize = quant_type, blocksize
            return p

    q = QuantParam(torch.ones(2, 2), quant_type="nf4")
    assert type(q) is QuantParam and q.quant_type == "nf4" and q.requires_grad is False
    d = copy.deepcopy(q)  # torch calls the class again: its defaults
    assert type(d) is QuantParam and d.quant_type == "fp4"
    np.testing.assert_array_equal(d.numpy(), np.ones((2, 2)))
    back = pickle.loads(pickle.dumps(q))
    assert type(back) is nn.Parameter and back.quant_type == "nf4"


class MyParam(nn.Parameter):
    pass


def test_parameter_subclass_repr_and_pickle():
    assert repr(MyParam(torch.zeros(2))) == (
        "Parameter containing:\nParameter(MyParam([0., 0.], requires_grad=True))"
    )
    p = MyParam(torch.zeros(2, 3, dtype=torch.float64), requires_grad=False)
    assert repr(p) == (
        "Parameter containing:\nParameter(MyParam([[0., 0., 0.],\n"
        "         [0., 0., 0.]], dtype=torch.float64))"
    )
    p.tag = 1
    back = pickle.loads(pickle.dumps(p))
    assert type(back) is nn.Parameter and back.tag == 1 and back.requires_grad is False
    assert repr(nn.Parameter(torch.ones(2))) == (
        "Parameter containing:\ntensor([1., 1.], requires_grad=True)"
    )


def test_parameter_format_is_an_object_format():
    p = nn.Parameter(torch.tensor(1.5))
    with pytest.raises(TypeError, match="unsupported format string passed to Parameter"):
        f"{p:.2f}"
    assert f"{p}" == str(p)
    assert f"{torch.tensor(1.5):.2f}" == "1.50"


# --- device class name ---


def test_device_class_is_named_device_and_pickles():
    d = torch.device("cpu")
    assert type(d).__name__ == "device" and torch.device.__qualname__ == "device"
    assert repr(torch.device) == "<class 'minitorch.device'>"
    assert pickle.loads(pickle.dumps(torch.device("cuda", 1))) is torch.device("cuda", 1)
    assert pickle.loads(b"cminitorch._backend\nDevice\n(Vcpu\nNtR.") is d  # older pickles
    buf = io.BytesIO()
    torch.save({"d": torch.device("cuda", 0)}, buf)
    buf.seek(0)
    assert torch.load(buf)["d"] is torch.device("cuda", 0)


# --- nn.utils and torch.func helpers ---


def test_parameters_to_vector_refuses_non_contiguous():
    with pytest.raises(RuntimeError, match="view size is not compatible"):
        nn.utils.parameters_to_vector([torch.arange(6.0).reshape(2, 3).T])
    v = nn.utils.parameters_to_vector([torch.arange(6.0).reshape(2, 3), torch.ones(1)])
    np.testing.assert_array_equal(v.numpy(), [0, 1, 2, 3, 4, 5, 1])


def test_convert_conv_weight_memory_format():
    m = nn.Sequential(
        nn.Conv2d(3, 4, 3), nn.Sequential(nn.ConvTranspose2d(4, 2, 3)), nn.Conv3d(2, 3, 2)
    )
    w = m[0].weight
    before = w.detach().numpy().copy()
    assert nn.utils.convert_conv2d_weight_memory_format(m, torch.channels_last) is m
    assert m[0].weight is w and w.stride() == (27, 1, 9, 3)
    assert m[1][0].weight.stride() == (18, 1, 6, 2)
    assert m[2].weight.stride() == (16, 8, 4, 2, 1)
    np.testing.assert_array_equal(w.detach().numpy(), before)
    nn.utils.convert_conv3d_weight_memory_format(m, torch.channels_last_3d)
    assert m[2].weight.stride() == (16, 1, 8, 4, 2)
    with pytest.raises(RuntimeError, match="required rank 5"):
        nn.utils.convert_conv2d_weight_memory_format(nn.Conv2d(3, 4, 3), torch.channels_last_3d)


def test_replace_all_batch_norm_modules_():
    m = nn.Sequential(
        nn.BatchNorm2d(3),
        nn.Sequential(nn.BatchNorm1d(2)),
        nn.InstanceNorm2d(2, track_running_stats=True),
    )
    assert torch.func.replace_all_batch_norm_modules_(m) is m
    bn = m[0]
    assert bn.running_mean is None and bn.running_var is None and bn.num_batches_tracked is None
    assert not bn.track_running_stats and not m[1][0].track_running_stats
    assert m[2].track_running_stats and m[2].running_mean is not None  # not a batch norm
    assert list(bn.state_dict()) == ["weight", "bias"]
    bn.eval()  # batch statistics even in eval
    x = torch.arange(8.0).reshape(2, 1, 2, 2).expand(2, 3, 2, 2)
    out = bn(x).detach().numpy()
    xn = x.numpy()
    ref = (xn - xn.mean(axis=(0, 2, 3), keepdims=True)) / np.sqrt(
        xn.var(axis=(0, 2, 3), keepdims=True) + 1e-5
    )
    np.testing.assert_allclose(out, ref, rtol=1e-5, atol=1e-6, err_msg="batch statistics")
