"""The meta device compared with torch: programs that build models on 'meta' (under `with
torch.device('meta')`, `device='meta'`, `.to('meta')`, skip_init), infer shapes through
forward and backward passes, move to real devices with to_empty, load checkpoints (assign=True
and the no-op copy's warning), save and load meta tensors, run torch.func's model-ensembling
recipe on a meta base model, and meet torch's errors for reading values (item, tolist, numpy,
cpu, bool, nonzero, allclose, DLPack) and for mixing devices. Reprs, shapes, dtypes, warnings
and error texts must be torch's exactly; values (where real tensors come out) to 1e-10 / 1e-4.

Known and left (documented in minitorch/_backend/meta.py): meta tensors hold zeroed memory and
the kernels run (the value-dependent ops refuse as torch's: see test_s30_meta2_reference.py); an
op mixing devices names them in argument order (F.linear of a CPU input with a meta weight:
torch says "on device meta ... expected device cpu", minitorch the reverse).
"""

from __future__ import annotations

import copy
import io
import pickle

import pytest

from tests.reference._one_thread import one_torch_thread  # noqa: F401 - an autouse fixture
from tests.reference._programs import assert_program_matches

torch = pytest.importorskip("torch")

PROGRAMS = ["basics", "errors", "build", "shapes", "checkpoint", "ensemble", "saving"]


def _r(t):
    return repr(t)


def p_basics(lib, dt, rec):
    d = dt
    x = lib.ones(2, 3, dtype=d, device="meta")
    rec("x", _r(x))
    rec("str", str(x))
    rec("fmt", f"{x}")
    rec("is_meta", str((x.is_meta, lib.ones(1).is_meta, x.is_cuda)))
    rec("device", str((x.device, x.get_device(), x.data_ptr(), x.numel(), x.nbytes)))
    rec("meta0", str(lib.empty(2, device="meta:0").device))
    w = lib.randn(3, dtype=d, device="meta", requires_grad=True)
    rec("w", _r(w))
    y = (w * 2 + 1).exp().sum()
    rec("y", _r(y))
    y.backward()
    rec("grad", _r(w.grad))
    rec("int", _r(lib.arange(5, device="meta")))
    rec("half", _r(lib.zeros(2, dtype=lib.float16, device="meta") * 2))
    rec("bool", _r(lib.zeros(2, 2, device="meta") > 0))
    rec("empty", _r(lib.ones(0, 3, device="meta")))
    rec("big", _r(lib.ones(2000, 3, device="meta")))
    rec("scalar", _r(lib.zeros((), dtype=lib.int64, device="meta")))
    rec("cpu0d", _r(x + lib.tensor(2.0)))
    rec("like", _r(lib.empty_like(x)))
    rec("to", _r(lib.ones(3, dtype=d).to("meta")))
    rec("to_is", str(x.to("meta") is x))
    rec("to_tensor", _r(lib.ones(3).to(x)))
    rec("new", _r(x.new_zeros(4)))
    rec("tensor", _r(lib.tensor([1.0, 2.0], device="meta")))
    rec("full", _r(lib.full((2,), 3, device="meta")))
    rec("strided", str(lib.empty_strided((2, 3), (1, 2), device="meta").stride()))
    rec("mm", _r(x @ lib.ones(3, 4, dtype=d, device="meta")))
    rec("max", _r(x.max(0)))
    rec("sort", _r(x.sort(1)))
    rec("randint", _r(lib.randint(0, 5, (3,), device="meta")))
    rec("T", str(x.T))
    rec("stack", _r(lib.stack([x, x])))
    rec("cat", _r(lib.cat([x, x], 1)))
    rec("cast", _r(x.to(lib.float64)))
    rec("index", _r(x[lib.tensor([0, 1])]))
    rec("masked", _r(x.masked_fill(lib.ones(2, 3, dtype=lib.bool, device="meta"), 0.0)))
    rec("inplace", _r(x.clone().fill_(3).zero_().add_(1)))
    rec("init", _r(lib.nn.init.normal_(lib.empty(2, device="meta"))))
    rec("uniform", _r(lib.empty(3, device="meta").uniform_(0, 1)))
    rec("copy_in", _r(x.clone().copy_(lib.ones(2, 3))))


def p_errors(lib, dt, rec):
    x = lib.ones(2, 3, device="meta")
    s = lib.ones((), device="meta")
    rec.err("cpu", lambda: x.cpu())
    rec.err("to_cpu", lambda: x.to("cpu"))
    rec.err("copy_out", lambda: lib.ones(2, 3).copy_(x))
    rec.err("item_many", lambda: x.item())
    rec.err("item", lambda: s.item())
    rec.err("bool", lambda: bool(s))
    rec.err("float", lambda: float(s))
    rec.err("int", lambda: int(s))
    rec.err("tolist", lambda: x.tolist())
    rec.err("numpy", lambda: x.numpy())
    rec.err("array", lambda: x.__array__())
    rec.err("mix", lambda: x + lib.ones(2, 3))
    rec.err("mix_r", lambda: lib.ones(2, 3) * x)
    rec.err("cat", lambda: lib.cat([x, lib.ones(2, 3)]))
    rec.err("nonzero", lambda: x.nonzero())
    rec.err("where1", lambda: lib.where(x > 0))
    rec.err("allclose", lambda: lib.allclose(x, x))
    rec.err("sum_item", lambda: x.sum().item())
    rec.err("pin", lambda: x.pin_memory())
    rec.err("dlpack", lambda: x.__dlpack__())
    rec.err("assert_close", lambda: lib.testing.assert_close(x, lib.zeros(2, 3, device="meta")))
    rec.err("assert_close_shape", lambda: lib.testing.assert_close(x, lib.zeros(3, device="meta")))
    rec.err("module_to", lambda: lib.nn.Linear(2, 2, device="meta").to("cpu"))
    rec.err("module_cpu", lambda: lib.nn.Linear(2, 2, device="meta").cpu())


def p_build(lib, dt, rec):
    nn = lib.nn
    d = dt
    with lib.device("meta"):
        model = nn.Sequential(
            nn.Conv2d(3, 8, 3, padding=1),
            nn.BatchNorm2d(8),
            nn.ReLU(),
            nn.MaxPool2d(2),
            nn.Flatten(),
            nn.Linear(8 * 4 * 4, 10),
        ).to(d)
        emb = nn.Embedding(100, 16, padding_idx=0)
        lstm = nn.LSTM(16, 8, batch_first=True, num_layers=2)
        xf = nn.Transformer(16, 2, 1, 1, 32, batch_first=True)
    rec("model", repr(model))
    rec("w", _r(model[0].weight))
    rec("bn", _r(model[1].running_var))
    rec("nbt", _r(model[1].num_batches_tracked))
    rec("count", str(sum(p.numel() for p in model.parameters())))
    rec("keys", str(list(model.state_dict())))
    rec("emb", _r(emb.weight))
    rec("lstm", str([(n, tuple(p.shape), str(p.device)) for n, p in lstm.named_parameters()]))
    rec("xf_count", str(sum(p.numel() for p in xf.parameters())))
    opt = lib.optim.AdamW(model.parameters(), lr=1e-3)
    inp = lib.randn(4, 3, 8, 8, dtype=d, device="meta")
    out = model(inp)
    rec("out", _r(out))
    loss = nn.functional.cross_entropy(out, lib.randint(0, 10, (4,), device="meta"))
    rec("loss", _r(loss))
    loss.backward()
    opt.step()
    rec("g", _r(model[5].weight.grad))
    rec("state", str(sorted(opt.state_dict()["state"][0])))
    rec("exp_avg", _r(opt.state_dict()["state"][0]["exp_avg"]))
    toks = lib.randint(1, 100, (2, 5), device="meta")
    h, (hn, cn) = lstm(emb(toks))
    rec("lstm_out", str((_r(h), _r(hn), _r(cn))))
    src = lib.randn(2, 5, 16, device="meta")
    rec("xf_out", _r(xf(src, src[:, :3])))
    rec("linear_meta_in", _r(nn.Linear(2, 3, device="meta")(lib.ones(4, 2, device="meta"))))


def p_shapes(lib, dt, rec):
    """The 'run a dummy input through the feature extractor to size the head' idiom on meta."""
    nn = lib.nn
    d = dt
    lib.manual_seed(0)
    features = nn.Sequential(
        nn.Conv2d(1, 4, 5), nn.ReLU(), nn.MaxPool2d(2), nn.Conv2d(4, 6, 3), nn.ReLU()
    ).to(d)
    meta_features = copy.deepcopy(features).to("meta")
    n = meta_features(lib.empty(1, 1, 28, 28, dtype=d, device="meta")).numel()
    rec("n", str(n))
    rec("meta_w", _r(meta_features[0].weight))
    head = nn.Linear(n, 3).to(d)
    x = lib.randn(2, 1, 28, 28, dtype=d)
    y = head(features(x).flatten(1))
    rec("y", y)
    y.sum().backward()
    rec("g", head.weight.grad)


def p_checkpoint(lib, dt, rec):
    nn = lib.nn
    d = dt
    lib.manual_seed(1)
    src = nn.Sequential(nn.Linear(4, 6), nn.Tanh(), nn.Linear(6, 2)).to(d)
    sd = src.state_dict()
    with lib.device("meta"):
        dst = nn.Sequential(nn.Linear(4, 6), nn.Tanh(), nn.Linear(6, 2)).to(d)
    result = rec.warns("noop_load", lambda: dst.load_state_dict(sd))
    rec("noop_result", str(result))
    rec("still_meta", str(dst[0].weight.device))
    dst.load_state_dict(sd, assign=True)
    rec("assigned", str((dst[0].weight.device, type(dst[0].weight).__name__)))
    rec("req", str(dst[0].weight.requires_grad))
    x = lib.randn(3, 4, dtype=d)
    rec("same", dst(x) - src(x))
    with lib.device("meta"):
        other = nn.Linear(4, 6).to(d)
    other.to_empty(device="cpu")
    rec("to_empty", str((other.weight.device, other.weight.shape, other.weight.dtype)))
    with lib.no_grad():
        other.weight.copy_(src[0].weight)
        other.bias.zero_()
    rec("after", other(x))
    skipped = nn.utils.skip_init(nn.Linear, 4, 2)
    rec("skip", str((skipped.weight.device, skipped.weight.shape)))


def p_ensemble(lib, dt, rec):
    """torch.func's model-ensembling recipe: parameters stacked, a meta copy as the stateless
    base module."""
    nn, func = lib.nn, lib.func
    d = dt
    lib.manual_seed(0)
    models = [nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 2)).to(d) for _ in range(3)]
    params, buffers = func.stack_module_state(models)
    base = copy.deepcopy(models[0]).to("meta")
    rec("base", _r(base[0].weight))

    def fmodel(p, b, x):
        return func.functional_call(base, (p, b), (x,))

    x = lib.randn(5, 4, dtype=d)
    out = func.vmap(fmodel, in_dims=(0, 0, None))(params, buffers, x)
    rec("out", out)
    rec("one", models[1](x))


def p_saving(lib, dt, rec):
    d = dt
    buf = io.BytesIO()
    meta = lib.ones(2, 3, dtype=d, device="meta").t()
    lib.save({"a": meta, "b": lib.ones(2, dtype=d), "p": lib.nn.Parameter(meta.clone())}, buf)
    buf.seek(0)
    back = lib.load(buf)
    rec("a", _r(back["a"]))
    rec("stride", str(back["a"].stride()))
    rec("p", _r(back["p"]))
    rec("b", back["b"])
    buf.seek(0)
    rec("weights_only", _r(lib.load(buf, weights_only=True)["a"]))
    buf2 = io.BytesIO()
    lib.save({"w": lib.arange(6.0, dtype=d).reshape(2, 3)}, buf2)
    buf2.seek(0)
    rec("map_meta", _r(lib.load(buf2, map_location="meta")["w"]))
    w = lib.ones(2, device="meta", requires_grad=True)
    rec("pickle", _r(pickle.loads(pickle.dumps(w))))
    rec("deepcopy", _r(copy.deepcopy(w)))


@pytest.mark.parametrize("name", PROGRAMS)
@pytest.mark.parametrize("dt", ["float64", "float32"])
def test_meta_program(name, dt):
    assert_program_matches(globals()[f"p_{name}"], torch, dt)


def test_files_cross():
    """A meta tensor saved by one library loads in the other."""
    import minitorch

    for writer, reader in ((torch, minitorch), (minitorch, torch)):
        buf = io.BytesIO()
        writer.save({"m": writer.ones(3, 2, device="meta").t()}, buf)
        buf.seek(0)
        got = reader.load(buf)["m"]
        assert repr(got) == "tensor(..., device='meta', size=(2, 3))"
        assert got.stride() == (1, 2)
