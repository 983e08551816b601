"""Checkpoints against PyTorch: torch.load reads minitorch.save's files and minitorch.load reads
torch.save's, with dtypes, views sharing storage, strides, offsets, Parameters and state dicts."""

from __future__ import annotations

import io
from collections import OrderedDict

import numpy as np
import pytest

torch = pytest.importorskip("torch")

import minitorch  # noqa: E402
from minitorch import serialization  # noqa: E402

DTYPES = ["bool", "uint8", "int8", "int16", "int32", "int64", "float16", "float32", "float64"]


def _mt_to_torch(obj, **kwargs):
    buf = io.BytesIO()
    minitorch.save(obj, buf)
    buf.seek(0)
    return torch.load(buf, weights_only=True, **kwargs)


def _torch_to_mt(obj, **kwargs):
    buf = io.BytesIO()
    torch.save(obj, buf)
    buf.seek(0)
    return minitorch.load(buf, **kwargs)


def _values(t):
    if isinstance(t, torch.Tensor):
        t = t.detach()
        return t.float().numpy() if t.dtype == torch.bfloat16 else t.numpy()
    return np.asarray(
        t.detach().cpu().numpy(), dtype=np.float32 if t.dtype.name == "bfloat16" else None
    )


def _check(mt, tt):
    assert mt.dtype.name == str(tt.dtype).split(".")[1]
    assert tuple(mt.shape) == tuple(tt.shape) and mt.stride() == tt.stride()
    assert mt.requires_grad == tt.requires_grad
    np.testing.assert_array_equal(_values(mt), _values(tt), err_msg=str(tt))


def _same_storage(*tensors) -> bool:
    return len({t.untyped_storage().data_ptr() for t in tensors}) == 1


@pytest.mark.parametrize("name", DTYPES)
def test_dtypes_both_ways(name):
    x = minitorch.arange(-4, 8).reshape(3, 4).to(getattr(minitorch, name))
    t = torch.arange(-4, 8).reshape(3, 4).to(getattr(torch, name))
    _check(x, _mt_to_torch(x))
    _check(_torch_to_mt(t), t)


def test_bfloat16_both_ways():
    pytest.importorskip("ml_dtypes")
    x = minitorch.tensor([1.5, -2.0, 3.25], dtype=minitorch.bfloat16)
    t = torch.tensor([1.5, -2.0, 3.25], dtype=torch.bfloat16)
    _check(x, _mt_to_torch(x))
    _check(_torch_to_mt(t), t)


def test_minitorch_views_open_in_torch_sharing_one_storage():
    x = minitorch.arange(24.0).reshape(4, 6)
    obj = {"x": x, "rows": x[1:3], "cols": x[:, 2::2], "t": x.t(), "flat": x.view(-1)[5:]}
    out = _mt_to_torch(obj)
    ref = torch.arange(24.0).reshape(4, 6)
    expected = {
        "x": ref,
        "rows": ref[1:3],
        "cols": ref[:, 2::2],
        "t": ref.t(),
        "flat": ref.view(-1)[5:],
    }
    for k, tt in expected.items():
        _check(obj[k], out[k])
        assert out[k].storage_offset() == tt.storage_offset(), k
    assert _same_storage(*out.values())
    out["x"][1, 2] = -1.0
    assert out["rows"][0, 2] == -1 and out["cols"][1, 0] == -1 and out["t"][2, 1] == -1


def test_torch_views_open_in_minitorch_sharing_memory():
    ref = torch.arange(24.0).reshape(4, 6)
    obj = {"x": ref, "rows": ref[1:3], "cols": ref[:, 2::2], "t": ref.t(), "flat": ref.view(-1)[5:]}
    out = _torch_to_mt(obj)
    for k, tt in obj.items():
        _check(out[k], tt)
    out["x"][1, 2] = -1.0
    assert out["rows"][0, 2].item() == -1 and out["cols"][1, 0].item() == -1
    assert out["t"][2, 1].item() == -1 and out["flat"][3].item() == -1


def test_parameters_requires_grad_and_containers_both_ways():
    mt_obj = {
        "p": minitorch.nn.Parameter(minitorch.ones(2, 2)),
        "leaf": minitorch.zeros(3, requires_grad=True),
        "misc": [1, 2.5, "s", None, (True, b"\x01"), {3: 4}],
        "dtype": minitorch.float64,
        "device": minitorch.device("cpu"),
        "size": minitorch.Size([1, 2]),
    }
    out = _mt_to_torch(mt_obj)
    assert isinstance(out["p"], torch.nn.Parameter) and out["p"].requires_grad
    assert out["leaf"].requires_grad and out["misc"] == mt_obj["misc"]
    assert out["dtype"] is torch.float64 and out["device"] == torch.device("cpu")
    assert out["size"] == torch.Size([1, 2])
    t_obj = {
        "p": torch.nn.Parameter(torch.ones(2, 2)),
        "frozen": torch.nn.Parameter(torch.ones(1), requires_grad=False),
        "misc": [1, 2.5, "s", None, (True, b"\x01"), {3: 4}, {5}],
        "dtype": torch.int16,
        "device": torch.device("cpu"),
        "size": torch.Size([1, 2]),
    }
    back = _torch_to_mt(t_obj)
    assert type(back["p"]) is minitorch.nn.Parameter and back["p"].requires_grad
    assert type(back["frozen"]) is minitorch.nn.Parameter and not back["frozen"].requires_grad
    assert back["misc"] == t_obj["misc"] and back["dtype"] is minitorch.int16
    assert back["device"] == minitorch.device("cpu") and back["size"] == minitorch.Size([1, 2])


def test_state_dicts_both_ways():
    minitorch.manual_seed(0)
    torch.manual_seed(0)
    mt_model = minitorch.nn.Sequential(minitorch.nn.Linear(4, 3), minitorch.nn.BatchNorm1d(3))
    t_model = torch.nn.Sequential(torch.nn.Linear(4, 3), torch.nn.BatchNorm1d(3))
    sd = _mt_to_torch(mt_model.state_dict())
    assert list(sd) == list(t_model.state_dict()) and sd._metadata == t_model.state_dict()._metadata
    t_model.load_state_dict(sd)
    t_model.eval()
    mt_model.eval()
    x = np.random.default_rng(0).standard_normal((5, 4)).astype(np.float32)
    np.testing.assert_allclose(
        t_model(torch.from_numpy(x)).detach().numpy(),
        mt_model(minitorch.from_numpy(x)).detach().numpy(),
        rtol=1e-5,
        atol=1e-6,
        err_msg="torch model with minitorch's state dict",
    )
    torch.nn.init.normal_(t_model[0].weight)
    mt_model.load_state_dict(_torch_to_mt(t_model.state_dict()))
    np.testing.assert_allclose(
        mt_model(minitorch.from_numpy(x)).detach().numpy(),
        t_model(torch.from_numpy(x)).detach().numpy(),
        rtol=1e-5,
        atol=1e-6,
        err_msg="minitorch model with torch's state dict",
    )


def test_tied_weights_from_torch_stay_tied():
    emb = torch.nn.Embedding(5, 3)
    head = torch.nn.Linear(3, 5, bias=False)
    head.weight = emb.weight
    sd = _torch_to_mt(torch.nn.ModuleDict({"emb": emb, "head": head}).state_dict())
    sd["emb.weight"].fill_(2.0)
    assert sd["head.weight"].eq(2.0).all()


def test_torch_optimizer_state_resumes_in_minitorch():
    torch.manual_seed(0)
    t_model = torch.nn.Linear(3, 2)
    t_opt = torch.optim.Adam(t_model.parameters(), lr=0.1)
    x = torch.randn(6, 3)
    t_model(x).pow(2).mean().backward()
    t_opt.step()
    ckpt = _torch_to_mt({"model": t_model.state_dict(), "optim": t_opt.state_dict()})
    assert ckpt["optim"]["param_groups"][0]["betas"] == (0.9, 0.999)
    mt_model = minitorch.nn.Linear(3, 2)
    mt_model.load_state_dict(ckpt["model"])
    mt_opt = minitorch.optim.Adam(mt_model.parameters(), lr=0.1)
    mt_opt.load_state_dict(ckpt["optim"])
    for model, opt, inp in (
        (t_model, t_opt, x),
        (mt_model, mt_opt, minitorch.from_numpy(x.numpy())),
    ):
        opt.zero_grad()
        model(inp).pow(2).mean().backward()
        opt.step()
    np.testing.assert_allclose(
        mt_model.weight.detach().numpy(), t_model.weight.detach().numpy(), rtol=1e-5, atol=1e-7
    )


@pytest.mark.parametrize("protocol", [2, 4, 5])
def test_torch_pickle_protocols(protocol):
    t = torch.arange(6.0).reshape(2, 3)
    buf = io.BytesIO()
    torch.save({"t": t[:, 1:], "s": "x"}, buf, pickle_protocol=protocol)
    buf.seek(0)
    out = minitorch.load(buf)
    _check(out["t"], t[:, 1:])


def test_mmap_both_ways(tmp_path):
    minitorch.save(
        {"x": minitorch.arange(100.0), "y": minitorch.ones(3, dtype=minitorch.int8)},
        tmp_path / "m.pt",
    )
    out = torch.load(tmp_path / "m.pt", mmap=True, weights_only=True)
    assert out["x"].sum().item() == 4950.0 and out["y"].dtype == torch.int8
    torch.save({"x": torch.arange(100.0)}, tmp_path / "t.pt")
    assert minitorch.load(tmp_path / "t.pt", mmap=True)["x"].sum().item() == 4950.0


def test_gpu_located_checkpoint_maps_to_cpu_in_both():
    from minitorch._serialization_pickle import dumps, torch_global
    from minitorch._serialization_storage import StoragePlan

    class CudaPlan(StoragePlan):  # what a GPU machine writes: storages tagged 'cuda:0'
        def locate(self, t):
            storage, *rest = super().locate(t)
            storage.pid = storage.pid[:3] + ("cuda:0",) + storage.pid[4:]
            return (storage, *rest)

    plan = CudaPlan(lambda name: torch_global("torch", name))
    buf = io.BytesIO()
    serialization._write_checkpoint(
        buf, dumps({"w": minitorch.arange(3.0)}, 2, plan), plan.storages
    )
    assert torch.load(io.BytesIO(buf.getvalue()), map_location="cpu", weights_only=True)[
        "w"
    ].tolist() == [0, 1, 2]
    assert minitorch.load(io.BytesIO(buf.getvalue()), map_location="cpu")["w"].tolist() == [0, 1, 2]


def test_torch_dtypes_minitorch_lacks_are_refused():
    with pytest.raises(Exception, match="ComplexFloatStorage"):
        _torch_to_mt(torch.ones(2, dtype=torch.complex64))


def test_safetensors_both_ways(tmp_path):
    pytest.importorskip("safetensors")
    from safetensors.torch import load_file, save_file

    sd = OrderedDict(
        w=minitorch.randn(3, 2), b=minitorch.arange(3), m=minitorch.tensor([True, False])
    )
    serialization.save_safetensors(sd, tmp_path / "mt.safetensors")
    out = load_file(str(tmp_path / "mt.safetensors"))
    for k, v in sd.items():
        _check(v, out[k])
    tsd = {"w": torch.randn(2, 2), "h": torch.ones(3, dtype=torch.float16)}
    save_file(tsd, str(tmp_path / "t.safetensors"))
    back = serialization.load_safetensors(tmp_path / "t.safetensors")
    for k, v in tsd.items():
        _check(back[k], v)
