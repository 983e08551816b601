"""The meta device (NOTE [ The meta device ] in minitorch/_backend/meta.py): tensors with a shape,
a dtype and a device but no readable values; torch's reprs, errors and module behaviour."""

from __future__ import annotations

import copy
import io
import pickle
import warnings

import pytest

import minitorch as torch
from minitorch import nn

NO_DATA = "Cannot copy out of meta tensor; no data!"


def test_factories_ops_and_reprs():
    x = torch.ones(2, 3, device="meta")
    assert repr(x) == "tensor(..., device='meta', size=(2, 3))"
    assert f"{x}" == str(x) == repr(x)
    assert x.is_meta and not torch.ones(1).is_meta and x.device == torch.device("meta")
    assert (x.get_device(), x.data_ptr()) == (-1, 0)
    assert torch.empty(2, device="meta:0").device == torch.device("meta")
    w = torch.randn(3, device="meta", requires_grad=True)
    assert repr(w) == "tensor(..., device='meta', size=(3,), requires_grad=True)"
    y = (w * 2).sum()
    assert repr(y) == "tensor(..., device='meta', size=(), grad_fn=<SumBackward0>)"
    y.backward()
    assert repr(w.grad) == "tensor(..., device='meta', size=(3,))"
    assert repr(torch.arange(5, device="meta")) == (
        "tensor(..., device='meta', size=(5,), dtype=torch.int64)"
    )
    h = torch.zeros(2, dtype=torch.float16, device="meta", requires_grad=True) * 2
    assert repr(h) == (
        "tensor(..., device='meta', size=(2,), dtype=torch.float16,\n       grad_fn=<MulBackward0>)"
    )
    assert repr(nn.Parameter(torch.ones(2, dtype=torch.int8, device="meta"), False)) == (
        "Parameter containing:\ntensor(..., device='meta', size=(2,), dtype=torch.int8)"
    )
    assert repr(torch.ones(0, 3, device="meta")) == "tensor(..., device='meta', size=(0, 3))"
    assert (x @ torch.ones(3, 4, device="meta")).shape == (2, 4)
    assert (x + torch.tensor(2.0)).device == torch.device("meta")  # a 0-d CPU tensor is a number
    assert torch.ones(3).to("meta").is_meta and x.to("meta") is x
    assert x.to(torch.float64).dtype == torch.float64


@pytest.mark.parametrize(
    ("fn", "exc", "msg"),
    [
        (lambda x: x.cpu(), NotImplementedError, NO_DATA),
        (lambda x: x.to("cpu"), NotImplementedError, NO_DATA),
        (lambda x: x.tolist(), NotImplementedError, NO_DATA),
        (lambda x: torch.ones(2, 3).copy_(x), NotImplementedError, NO_DATA),
        (
            lambda x: x.item(),
            RuntimeError,
            "a Tensor with 6 elements cannot be converted to Scalar",
        ),
        (lambda x: x[0, 0].item(), RuntimeError, "Tensor.item() cannot be called on meta tensors"),
        (lambda x: bool(x[0, 0]), RuntimeError, "Tensor.item() cannot be called on meta tensors"),
        (lambda x: float(x[0, 0]), RuntimeError, "Tensor.item() cannot be called on meta tensors"),
        (lambda x: torch.allclose(x, x), RuntimeError, "Tensor.item() cannot be called on meta"),
        (
            lambda x: x.numpy(),
            TypeError,
            "can't convert meta device type tensor to numpy. Use Tensor.cpu() to copy the tensor "
            "to host memory first.",
        ),
        (
            lambda x: x + torch.ones(2, 3),
            RuntimeError,
            "Tensor on device cpu is not on the expected",
        ),
        (
            lambda x: torch.ones(2, 3) * x,
            RuntimeError,
            "Tensor on device meta is not on the expect",
        ),
        (
            lambda x: x.nonzero(),
            NotImplementedError,
            "The register_meta function for torch.nonzero",
        ),
        (lambda x: x.__dlpack__(), BufferError, "Cannot pack tensors on meta"),
        (lambda x: x.pin_memory(), RuntimeError, "cannot pin 'MetaFloatType' only dense CPU"),
    ],
)
def test_reading_values_raises_torchs_errors(fn, exc, msg):
    with pytest.raises(exc) as info:
        fn(torch.ones(2, 3, device="meta"))
    assert str(info.value).startswith(msg)


def test_build_on_meta_then_materialise():
    with torch.device("meta"):
        model = nn.Sequential(nn.Linear(3, 4), nn.BatchNorm1d(4))
    assert repr(model[0].weight) == (
        "Parameter containing:\ntensor(..., device='meta', size=(4, 3), requires_grad=True)"
    )
    out = model(torch.randn(5, 3, device="meta"))
    assert (
        repr(out) == "tensor(..., device='meta', size=(5, 4), grad_fn=<NativeBatchNormBackward0>)"
    )
    with pytest.raises(NotImplementedError, match=r"Please use torch.nn.Module.to_empty\(\)"):
        model.to("cpu")
    model.to_empty(device="cpu")
    assert model[0].weight.device == torch.device("cpu") and model[0].weight.shape == (4, 3)
    assert nn.utils.skip_init(nn.Linear, 3, 2).weight.device == torch.device("cpu")


def test_loading_a_checkpoint_into_meta_parameters():
    torch.manual_seed(0)
    src = nn.Linear(3, 2)
    dst = nn.Linear(3, 2, device="meta")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        dst.load_state_dict(src.state_dict())
    assert [str(w.message) for w in caught][0] == (
        "for weight: copying from a non-meta parameter in the checkpoint to a meta parameter in "
        "the current model, which is a no-op. (Did you mean to pass `assign=True` to assign items "
        "in the state dictionary to their corresponding key in the module instead of copying them "
        "in place?)"
    )
    assert dst.weight.is_meta
    dst.load_state_dict(src.state_dict(), assign=True)
    x = torch.randn(4, 3)
    assert torch.equal(dst(x), src(x))


def test_saving_pickling_and_copying():
    buf = io.BytesIO()
    torch.save({"a": torch.ones(2, 3, device="meta").t(), "b": torch.ones(2)}, buf)
    buf.seek(0)
    back = torch.load(buf, weights_only=True)
    assert repr(back["a"]) == "tensor(..., device='meta', size=(3, 2))"
    assert back["a"].stride() == (1, 3) and back["b"].tolist() == [1.0, 1.0]
    buf = io.BytesIO()
    torch.save({"w": torch.ones(2, 3)}, buf)
    buf.seek(0)
    assert torch.load(buf, map_location="meta")["w"].is_meta
    w = torch.ones(2, device="meta", requires_grad=True)
    for c in (pickle.loads(pickle.dumps(w)), copy.deepcopy(w)):
        assert repr(c) == "tensor(..., device='meta', size=(2,), requires_grad=True)"


def test_assert_close_compares_metadata_only():
    torch.testing.assert_close(torch.ones(2, device="meta"), torch.zeros(2, device="meta"))
    with pytest.raises(AssertionError, match="shape"):
        torch.testing.assert_close(torch.ones(2, device="meta"), torch.zeros(3, device="meta"))


@pytest.mark.skipif(torch.cuda.is_available(), reason="needs a machine without a GPU")
def test_moving_to_an_unusable_device_is_refused_before_the_copy():
    with pytest.raises(AssertionError, match="CUDA is not available"):
        torch.ones(2, device="meta").cuda()
