"""minitorch.save / load: round trips, shared storages, devices, map_location, interrupted saves,
damaged files, safetensors. Hostile pickles and fuzzing: test_serialization_fuzz.py."""

from __future__ import annotations

import io
import os
import pickle
import zipfile

import numpy as np
import pytest

import minitorch
from minitorch import serialization

DTYPES = ["bool", "uint8", "int8", "int16", "int32", "int64", "float16", "float32", "float64"]


def _round_trip(obj, **load_kwargs):
    buf = io.BytesIO()
    minitorch.save(obj, buf)
    buf.seek(0)
    return minitorch.load(buf, **load_kwargs)


def _records(data: bytes) -> list[str]:
    with zipfile.ZipFile(io.BytesIO(data)) as zf:
        return [n for n in zf.namelist() if "/data/" in n]


def _tampered(obj, *, numel=None, offset_shift=0, location=None) -> bytes:
    """A checkpoint of `obj` whose storage records claim `numel` / `location`, its tensors'
    offsets shifted by `offset_shift` (written through the real pickler)."""
    from minitorch._serialization_pickle import dumps, torch_global
    from minitorch._serialization_storage import StoragePlan

    class Plan(StoragePlan):
        def locate(self, t):
            storage, offset, size, stride = super().locate(t)
            kind, glob, key, loc, n = storage.pid
            storage.pid = (kind, glob, key, location or loc, n if numel is None else numel)
            return storage, offset + offset_shift, size, stride

    plan = Plan(lambda name: torch_global("torch", name))
    buf = io.BytesIO()
    serialization._write_checkpoint(buf, dumps(obj, 2, plan), plan.storages)
    return buf.getvalue()


def _assert_same(a, b):
    assert type(a) is type(b)
    assert a.dtype is b.dtype and a.shape == b.shape and a.device == b.device
    np.testing.assert_array_equal(a.cpu().numpy(force=True), b.cpu().numpy(force=True))


# --- round trips ------------------------------------------------------------------------------


@pytest.mark.parametrize("name", DTYPES)
def test_every_dtype_round_trips(name, device):
    dt = getattr(minitorch, name)
    x = (minitorch.arange(-3, 9).reshape(3, 4) % 5).to(dt).to(device)
    _assert_same(_round_trip(x), x)


def test_bfloat16_round_trips():
    pytest.importorskip("ml_dtypes")
    x = minitorch.tensor([1.5, -2.0, 3.25], dtype=minitorch.bfloat16)
    _assert_same(_round_trip(x), x)


def test_zero_dim_and_empty_tensors():
    for x in (
        minitorch.tensor(3.5),
        minitorch.zeros(0, 3),
        minitorch.ones(2, 0, dtype=minitorch.int64),
    ):
        y = _round_trip(x)
        _assert_same(y, x)
        assert y.stride() == x.stride()


def test_nested_containers_and_primitives():
    t = minitorch.arange(4)
    obj = {
        "list": [1, 2.5, None, "s", True, b"\x00\xff", (t, [t])],
        "tuple": (1, (2, (3,))),
        "int_keys": {0: "a", -7: 2**70},
        "set": {1, 2},
        "frozen": frozenset({"x"}),
        "dtype": minitorch.float16,
        "device": minitorch.device("cpu"),
        "size": minitorch.Size([2, 3]),
        "complex": 1 + 2j,
        "slice": slice(1, 5, 2),
    }
    out = _round_trip(obj, weights_only=False)  # frozenset and slice are off its allowlist
    assert out["list"][:6] == obj["list"][:6] and out["tuple"] == obj["tuple"]
    assert out["int_keys"] == obj["int_keys"] and out["set"] == {1, 2}
    assert out["frozen"] == frozenset({"x"}) and out["complex"] == 1 + 2j
    assert out["dtype"] is minitorch.float16 and out["device"] == minitorch.device("cpu")
    assert type(out["size"]) is minitorch.Size and out["size"] == (2, 3)
    assert out["slice"] == slice(1, 5, 2)
    inner, nested = out["list"][6]
    assert nested[0] is inner  # the same tensor object stays one object
    _assert_same(inner, t)


def test_parameters_and_requires_grad():
    p = minitorch.nn.Parameter(minitorch.randn(2, 3))
    frozen = minitorch.nn.Parameter(minitorch.randn(2), requires_grad=False)
    leaf = minitorch.ones(3, requires_grad=True)
    nonleaf = leaf * 2
    out = _round_trip({"p": p, "frozen": frozen, "leaf": leaf, "nonleaf": nonleaf})
    assert type(out["p"]) is minitorch.nn.Parameter and out["p"].requires_grad
    assert type(out["frozen"]) is minitorch.nn.Parameter and not out["frozen"].requires_grad
    assert out["leaf"].requires_grad and out["leaf"].is_leaf
    assert out["nonleaf"].requires_grad and out["nonleaf"].is_leaf  # as torch: saved as a leaf
    _assert_same(out["p"], p)
    np.testing.assert_array_equal(out["nonleaf"].detach().numpy(), [2, 2, 2])


def test_views_share_storage_after_load(device):
    x = minitorch.arange(12.0, device=device)
    obj = {
        "x": x,
        "slice": x[2:5],
        "t": x.view(3, 4).t(),
        "detached": x[4:].detach(),
        "col": x.view(3, 4)[:, 1],
    }
    buf = io.BytesIO()
    minitorch.save(obj, buf)
    assert len(_records(buf.getvalue())) == 1  # one storage record for all five
    buf.seek(0)
    out = minitorch.load(buf)
    for k in obj:
        _assert_same(out[k], obj[k])
    assert out["t"].stride() == (1, 4) and out["col"].stride() == (4,)
    with minitorch.no_grad():
        out["x"][5] = 100.0
    assert out["slice"].tolist() == [2.0, 3.0, 4.0]
    assert out["t"][1, 1].item() == 100.0 and out["col"][1].item() == 100.0
    assert out["detached"][1].item() == 100.0


def test_saving_a_slice_saves_its_whole_storage():
    x = minitorch.arange(10.0)
    buf = io.BytesIO()
    minitorch.save(x[2:5], buf)
    with zipfile.ZipFile(io.BytesIO(buf.getvalue())) as zf:
        assert zf.getinfo("archive/data/0").file_size == 40  # as torch: all 10 floats
    buf.seek(0)
    assert minitorch.load(buf).tolist() == [2.0, 3.0, 4.0]


def test_tied_weights_stay_tied():
    emb = minitorch.nn.Embedding(5, 3)
    head = minitorch.nn.Linear(3, 5, bias=False)
    head.weight = emb.weight
    model = minitorch.nn.ModuleDict({"emb": emb, "head": head})
    buf = io.BytesIO()
    minitorch.save(model.state_dict(), buf)
    assert len(_records(buf.getvalue())) == 1
    buf.seek(0)
    sd = minitorch.load(buf)
    assert list(sd) == ["emb.weight", "head.weight"]
    sd["emb.weight"].fill_(7.0)
    assert sd["head.weight"].eq(7.0).all()


def test_arrays_torch_cannot_describe_are_saved_as_copies():
    from minitorch._tensor import _make

    cpu = minitorch.device("cpu")
    base = np.arange(12.0)
    reversed_view = _make(base[::-1], cpu, False, None)  # kernels may hand back such arrays
    odd_strides = _make(base.view(np.uint8)[1:9].view(np.int8), cpu, False, None)
    for t in (reversed_view, odd_strides):
        _assert_same(_round_trip(t), t)


def test_views_of_one_memory_as_two_dtypes_are_refused_as_torch_does():
    x = minitorch.arange(4, dtype=minitorch.float32)
    with pytest.raises(RuntimeError, match="view the same data as different types"):
        minitorch.save([x, x.view(minitorch.int32)], io.BytesIO())


def test_module_and_optimizer_state_round_trip(tmp_path):
    minitorch.manual_seed(1)
    model = minitorch.nn.Sequential(
        minitorch.nn.Linear(3, 4), minitorch.nn.Tanh(), minitorch.nn.Linear(4, 1)
    )
    opt = minitorch.optim.Adam(model.parameters(), lr=0.1)
    x = minitorch.randn(8, 3)
    for _ in range(2):
        opt.zero_grad()
        model(x).pow(2).mean().backward()
        opt.step()
    path = tmp_path / "ckpt.pt"
    minitorch.save({"model": model.state_dict(), "optim": opt.state_dict(), "epoch": 2}, path)
    ckpt = minitorch.load(path)
    assert ckpt["epoch"] == 2 and ckpt["model"]._metadata == model.state_dict()._metadata
    model2 = minitorch.nn.Sequential(
        minitorch.nn.Linear(3, 4), minitorch.nn.Tanh(), minitorch.nn.Linear(4, 1)
    )
    opt2 = minitorch.optim.Adam(model2.parameters(), lr=0.1)
    model2.load_state_dict(ckpt["model"])
    opt2.load_state_dict(ckpt["optim"])
    for m, o in ((model, opt), (model2, opt2)):
        o.zero_grad()
        m(x).pow(2).mean().backward()
        o.step()
    for p, q in zip(model.parameters(), model2.parameters(), strict=True):
        np.testing.assert_allclose(
            p.detach().numpy(), q.detach().numpy(), rtol=1e-6, err_msg="resumed"
        )


def test_paths_and_file_objects(tmp_path):
    x = minitorch.randn(3)
    minitorch.save(x, str(tmp_path / "a.pt"))
    _assert_same(minitorch.load(str(tmp_path / "a.pt")), x)
    with open(tmp_path / "b.pt", "wb") as f:
        minitorch.save(x, f)
    with open(tmp_path / "b.pt", "rb") as f:
        _assert_same(minitorch.load(f), x)


def test_pickle_protocol_4(tmp_path):
    obj = {"w": minitorch.randn(2, 2), "n": [1, 2]}
    minitorch.save(obj, tmp_path / "p4.pt", pickle_protocol=4)
    out = minitorch.load(tmp_path / "p4.pt")
    _assert_same(out["w"], obj["w"])


def test_storage_records_are_aligned_for_mmap(tmp_path):
    minitorch.save(
        [minitorch.randn(3), minitorch.arange(5), minitorch.tensor([True])], tmp_path / "c.pt"
    )
    data = (tmp_path / "c.pt").read_bytes()
    with zipfile.ZipFile(tmp_path / "c.pt") as zf:
        for info in zf.infolist():
            o = info.header_offset
            start = o + 30 + int.from_bytes(data[o + 26 : o + 28], "little")
            start += int.from_bytes(data[o + 28 : o + 30], "little")
            assert start % 64 == 0, info.filename
            assert info.compress_type == zipfile.ZIP_STORED


def test_mmap_loads_copy_on_write(tmp_path):
    path = tmp_path / "m.pt"
    x = minitorch.arange(6.0).reshape(2, 3)
    minitorch.save({"x": x, "row": x[1]}, path)
    out = minitorch.load(path, mmap=True)
    _assert_same(out["x"], x)
    out["x"].add_(1.0)  # writable, shared with the view, and never written back to the file
    assert out["row"].tolist() == [4.0, 5.0, 6.0]
    assert minitorch.load(path)["x"].tolist() == x.tolist()
    with pytest.raises(ValueError, match="file path"):
        minitorch.load(io.BytesIO(path.read_bytes()), mmap=True)


# --- devices and map_location -----------------------------------------------------------------


def test_map_location_forms(device):
    x = minitorch.arange(4.0)
    data = io.BytesIO()
    minitorch.save({"x": x, "v": x[1:]}, data)
    for ml in (device, minitorch.device(device), {"cpu": device}):
        out = minitorch.load(io.BytesIO(data.getvalue()), map_location=ml)
        assert out["x"].device == minitorch.device(device) == out["v"].device
        _assert_same(out["x"].cpu(), x)
    seen = []

    def to_device(storage, location):
        seen.append(location)
        return storage.to(device)

    out = minitorch.load(io.BytesIO(data.getvalue()), map_location=to_device)
    assert seen == ["cpu"] and out["v"].device == minitorch.device(device)
    out = minitorch.load(io.BytesIO(data.getvalue()), map_location=lambda s, loc: None)
    assert out["x"].device == minitorch.device("cpu")


def test_gpu_checkpoint_loads_on_a_machine_without_gpu():
    x = minitorch.arange(3.0)
    data = _tampered({"x": x}, location="cuda:0")
    if not minitorch.cuda.is_available():
        with pytest.raises(RuntimeError, match="map_location=torch.device\\('cpu'\\)"):
            minitorch.load(io.BytesIO(data))
    for ml in ("cpu", {"cuda:0": "cpu"}, lambda storage, location: storage):
        out = minitorch.load(io.BytesIO(data), map_location=ml)
        _assert_same(out["x"], x)


def test_unknown_location_is_a_clear_error():
    data = _tampered(minitorch.arange(3.0), location="mps")
    with pytest.raises(RuntimeError, match="not linked with support for mps devices"):
        minitorch.load(io.BytesIO(data))
    data = _tampered(minitorch.arange(3.0), location="gpu")
    with pytest.raises(RuntimeError, match="don't know how to restore data location"):
        minitorch.load(io.BytesIO(data))


# --- never lose data --------------------------------------------------------------------------


class _FailsToPickle:
    def __reduce__(self):
        raise RuntimeError("pickling failed half-way")


def _leftovers(tmp_path) -> list[str]:
    return sorted(p.name for p in tmp_path.iterdir() if p.name != "ckpt.pt")


def test_pickling_failure_keeps_the_old_file(tmp_path):
    path = tmp_path / "ckpt.pt"
    minitorch.save({"v": 1}, path)
    old = path.read_bytes()
    with pytest.raises(RuntimeError, match="half-way"):
        minitorch.save([minitorch.randn(100), _FailsToPickle()], path)
    assert path.read_bytes() == old and _leftovers(tmp_path) == []


def test_write_failure_mid_save_keeps_the_old_file(tmp_path, monkeypatch):
    path = tmp_path / "ckpt.pt"
    minitorch.save({"v": 1}, path)
    old = path.read_bytes()
    real, calls = serialization._write_record, []

    def failing(zf, name, data):
        calls.append(name)
        if len(calls) == 6:  # after data.pkl and a storage record
            raise OSError(28, "No space left on device")
        real(zf, name, data)

    monkeypatch.setattr(serialization, "_write_record", failing)
    with pytest.raises(OSError, match="No space left"):
        minitorch.save({"a": minitorch.randn(10), "b": minitorch.randn(10)}, path)
    assert path.read_bytes() == old and _leftovers(tmp_path) == []
    assert minitorch.load(path) == {"v": 1}


def test_save_replaces_keeping_permissions(tmp_path):
    path = tmp_path / "ckpt.pt"
    minitorch.save(1, path)
    os.chmod(path, 0o640)
    minitorch.save(2, path)
    assert minitorch.load(path) == 2 and (os.stat(path).st_mode & 0o777) == 0o640


def test_save_through_a_symlink_keeps_the_link(tmp_path):
    minitorch.save(1, tmp_path / "real.pt")
    os.symlink(tmp_path / "real.pt", tmp_path / "link.pt")
    minitorch.save(2, tmp_path / "link.pt")
    assert os.path.islink(tmp_path / "link.pt") and minitorch.load(tmp_path / "real.pt") == 2


def test_save_to_a_missing_directory():
    with pytest.raises(RuntimeError, match="Parent directory .* does not exist"):
        minitorch.save(1, "/nonexistent_dir_for_minitorch/x.pt")


# --- damaged and foreign files ----------------------------------------------------------------

DOCUMENTED = (RuntimeError, pickle.UnpicklingError, EOFError)  # EOFError: empty, as torch


def _valid() -> bytes:
    buf = io.BytesIO()
    x = minitorch.arange(6.0)
    minitorch.save({"x": x, "v": x[1:3], "p": minitorch.nn.Parameter(minitorch.ones(2))}, buf)
    return buf.getvalue()


def test_truncated_files_raise_documented_errors():
    data = _valid()
    for n in range(0, len(data), 37):
        with pytest.raises(DOCUMENTED):
            minitorch.load(io.BytesIO(data[:n]))


def test_non_checkpoint_files(tmp_path):
    (tmp_path / "t.txt").write_text("hello")
    with pytest.raises(pickle.UnpicklingError, match="not a checkpoint"):
        minitorch.load(tmp_path / "t.txt")
    (tmp_path / "p.pkl").write_bytes(pickle.dumps({"a": 1}, protocol=2))
    with pytest.raises(RuntimeError, match="legacy"):
        minitorch.load(tmp_path / "p.pkl")
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        zf.writestr("archive/other.txt", "x")
    with pytest.raises(RuntimeError, match="data.pkl"):
        minitorch.load(io.BytesIO(buf.getvalue()))
    with pytest.raises(FileNotFoundError):
        minitorch.load(tmp_path / "missing.pt")


def test_corrupted_storage_bytes_are_detected():
    data = bytearray(_valid())
    i = data.index(np.arange(6.0, dtype=np.float32).tobytes())
    data[i + 5] ^= 0xFF
    with pytest.raises(RuntimeError, match="CRC|corrupt"):
        minitorch.load(io.BytesIO(bytes(data)))


def test_size_claims_are_checked_against_the_records():
    x = minitorch.arange(6.0)
    # 10**12 elements claimed, 24 bytes recorded: refused before anything is allocated
    with pytest.raises(RuntimeError, match="bytes"):
        minitorch.load(io.BytesIO(_tampered(x, numel=10**12)))
    with pytest.raises(RuntimeError, match="out of bounds for storage"):
        minitorch.load(io.BytesIO(_tampered(x[4:], offset_shift=1)))


def test_lying_zip_sizes_are_refused_before_reading():
    data = bytearray(_valid())
    entry = data.index(b"PK\x01\x02")  # the central directory's entries
    while not data[entry + 46 :].startswith(b"archive/data/0"):
        entry = data.index(b"PK\x01\x02", entry + 4)
    data[entry + 24 : entry + 28] = (2**31).to_bytes(4, "little")  # uncompressed size: 2 GiB
    with pytest.raises(RuntimeError, match="bytes"):
        minitorch.load(io.BytesIO(bytes(data)))


def test_compressed_archives_load():
    data = _valid()
    out = io.BytesIO()
    with zipfile.ZipFile(io.BytesIO(data)) as src:
        with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as dst:
            for info in src.infolist():
                dst.writestr(info.filename, src.read(info))
    loaded = minitorch.load(io.BytesIO(out.getvalue()))
    assert loaded["v"].tolist() == [1.0, 2.0] and loaded["p"].requires_grad
    loaded["x"].add_(1.0)  # writable even when decompressed
    assert loaded["v"].tolist() == [2.0, 3.0]


# --- safetensors --------------------------------------------------------------------------------


def test_safetensors_round_trip(tmp_path, device):
    pytest.importorskip("safetensors")
    sd = {
        name: (minitorch.arange(6).reshape(2, 3) % 3).to(getattr(minitorch, name)).to(device)
        for name in DTYPES
    }
    sd["scalar"] = minitorch.tensor(2.5)
    sd["transposed"] = minitorch.randn(3, 2).t()  # saved as a contiguous copy
    path = tmp_path / "m.safetensors"
    serialization.save_safetensors(sd, path, metadata={"format": "pt"})
    out = serialization.load_safetensors(path, device=device)
    assert sorted(out) == sorted(sd)
    for k, v in sd.items():
        _assert_same(out[k].cpu(), v.cpu())
        assert out[k].device == minitorch.device(device)
    out["float32"].add_(1)  # writable


def test_safetensors_refuses_shared_tensors_and_non_tensors(tmp_path):
    pytest.importorskip("safetensors")
    w = minitorch.randn(4, 4)
    with pytest.raises(RuntimeError, match="share memory"):
        serialization.save_safetensors({"a": w, "b": w[1]}, tmp_path / "s.safetensors")
    with pytest.raises(ValueError, match="expected torch.Tensor"):
        serialization.save_safetensors({"a": 1}, tmp_path / "s.safetensors")
    serialization.save_safetensors({"a": w[:2], "b": w[2:]}, tmp_path / "s.safetensors")  # disjoint
    assert not (tmp_path / "s.safetensors.tmp").exists()


def test_module_loads_a_safetensors_state_dict(tmp_path):
    pytest.importorskip("safetensors")
    src, dst = minitorch.nn.Linear(3, 2), minitorch.nn.Linear(3, 2)
    path = tmp_path / "lin.safetensors"
    serialization.save_safetensors(src.state_dict(), path)
    dst.load_state_dict(serialization.load_safetensors(path))
    x = minitorch.randn(5, 3)
    np.testing.assert_array_equal(dst(x).detach().numpy(), src(x).detach().numpy())
