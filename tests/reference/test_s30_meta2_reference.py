"""Session 30 (helper meta2): the meta device the way real code uses it, run under torch and
minitorch and compared record by record: big models built on 'meta' then materialised with
to_empty and reset_parameters / nn.init through Module.apply, accelerate-style
init_empty_weights (register_parameter patched) with load_state_dict(assign=True) from a
checkpoint, torch.func.functional_call / stack_module_state / vmap / grad over meta base
modules, FlopCounterMode over models run on meta inputs (convolutions, transformers, attention,
RNNs, backward), shape inference through conv / pool / attention / transformer / RNN stacks,
optimizers stepping meta parameters (their state_dict layout), Parameter / buffer / Module
reprs, factory functions and *_like / new_* with their keyword arguments, dtype promotion and
casts, views and strides (stride(), storage_offset(), is_contiguous, channels_last), in-place
ops and version counters, autograd.grad (also create_graph) on meta, linear algebra shapes,
torch.save / load and deepcopy of meta modules and state dicts, and torch's errors (item,
tolist, numpy, cpu, mixing devices, and the ops whose output's size depends on the values:
nonzero, boolean-mask reads, masked_select, unique, bincount, repeat_interleave). Reprs,
shapes, strides, dtypes and error texts must be torch's exactly; values of real tensors to 1e-10
(float64) / 1e-4 (float32).

Known and left:
- An op mixing a CPU and a meta tensor names the devices in its arguments' order, where torch's
  meta kernels name them in their own (F.linear with a CPU weight and a meta bias).
- torch's CPU-by-meta matmul of two 2-D tensors returns CPU zeros (a torch quirk), minitorch
  refuses the mix; not recorded.
- MultiheadAttention's in_proj_weight is not reset by reset_parameters (torch names it
  _reset_parameters), so after to_empty it holds torch's uninitialised memory: not recorded.
- torch's meta kernels skip some checks, or word them their own way, where minitorch's (shared
  with the CPU) do not: integer ** negative integer, std's no-degrees-of-freedom warning, topk's
  message for k out of range, internal overlap of an in-place op on an expanded tensor, the
  in-place broadcast message ("torch.Size([3])"), int.add_(float) ("Promotion of int.add/sub_"),
  mm of float64 by int32 (no error), linalg.inv's name for a non-square input ("inv_ex") and
  solve's dtype names; rand/uniform_ of an integer dtype (allowed on meta) and randn/normal_ of
  one (its own message); clip_grad_value_ with no gradients (a foreach error); the nested-tensor
  fast path of an eval TransformerEncoder (refused on meta). Not recorded.
"""

from __future__ import annotations

import contextlib
import copy
import importlib
import io

import pytest

from tests.reference._one_thread import one_torch_thread  # noqa: F401 - an autouse fixture
from tests.reference._programs import assert_program_matches

torch = pytest.importorskip("torch")

PROGRAMS = [
    "materialise", "init_empty", "func_meta", "flops_cnn", "flops_transformer", "flops_sdpa",
    "shapes_vision", "shapes_seq", "optim_state", "reprs", "factories", "dtypes", "views",
    "inplace", "autograd", "errors", "data_dependent", "linalg", "saving", "deepcopy",
    "mask_index",
]  # fmt: skip


@pytest.mark.parametrize("dt", ["float64", "float32"])
@pytest.mark.parametrize("name", PROGRAMS)
def test_program_matches_torch(name, dt):
    assert_program_matches(globals()["p_" + name], torch, dt)


def _r(t):
    return repr(t)


def _flop_mode(lib):
    return importlib.import_module(lib.__name__ + ".utils.flop_counter").FlopCounterMode


def _counts(fc):
    """A FlopCounterMode's counts, sorted (torch's dict order follows its hooks)."""
    return str(
        sorted(
            (k, sorted((str(op), n) for op, n in v.items()))
            for k, v in fc.get_flop_counts().items()
        )
    )


def _shapes(module):
    return str(
        [(n, tuple(p.shape), str(p.device), str(p.dtype)) for n, p in module.state_dict().items()]
    )


def _net(lib, dt):
    nn = lib.nn

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.stem = nn.Sequential(nn.Conv2d(3, 8, 3, padding=1, bias=False), nn.BatchNorm2d(8))
            self.body = nn.Sequential(nn.Conv2d(8, 16, 3, stride=2), nn.GroupNorm(4, 16), nn.GELU())
            self.emb = nn.Embedding(20, 6, padding_idx=0)
            self.gru = nn.GRU(6, 5, batch_first=True)
            self.norm = nn.LayerNorm(5)
            self.head = nn.Linear(16 + 5, 4)

        def forward(self, img, tok):
            a = self.body(self.stem(img).relu()).mean((2, 3))
            h, _ = self.gru(self.emb(tok))
            return self.head(lib.cat([a, self.norm(h[:, -1])], 1))

    return Net().to(dt)


# --- programs ---


def p_materialise(lib, dt, rec):
    """A big model built on meta, moved to_empty onto the CPU and initialised per module."""
    nn = lib.nn
    with lib.device("meta"):
        net = _net(lib, dt)
    rec("meta_shapes", _shapes(net))
    rec("count", str(sum(p.numel() for p in net.parameters())))
    rec("devices", str({str(t.device) for t in net.state_dict().values()}))
    net.to_empty(device="cpu")
    rec("cpu_shapes", _shapes(net))
    lib.manual_seed(0)

    def reset(m):
        if hasattr(m, "reset_parameters"):
            m.reset_parameters()

    net.apply(reset)
    rec.params("reset", net)
    rec("bn_mean", net.stem[1].running_mean)
    rec("bn_var", net.stem[1].running_var)
    rec("nbt", str(net.stem[1].num_batches_tracked.item()))

    def custom(m):
        if isinstance(m, nn.Linear):
            nn.init.trunc_normal_(m.weight, std=0.02)
            nn.init.zeros_(m.bias)
        elif isinstance(m, nn.Conv2d):
            nn.init.kaiming_normal_(m.weight, mode="fan_out", nonlinearity="relu")
        elif isinstance(m, nn.Embedding):
            nn.init.normal_(m.weight)
            with lib.no_grad():
                m.weight[m.padding_idx].fill_(0)

    lib.manual_seed(1)
    net.apply(custom)
    rec.params("custom", net)
    lib.manual_seed(2)
    img, tok = lib.randn(2, 3, 8, 8, dtype=dt), lib.randint(0, 20, (2, 5))
    out = net(img, tok)
    rec("out", out)
    out.sum().backward()
    rec("g_head", net.head.weight.grad)
    # the same on meta: initialisers run, values stay unreadable
    with lib.device("meta"):
        lin = nn.Linear(4, 3).to(dt)
    nn.init.orthogonal_(lin.weight)
    nn.init.xavier_uniform_(lin.weight, gain=nn.init.calculate_gain("tanh"))
    nn.init.constant_(lin.bias, 0.1)
    rec("meta_init", _r(lin.weight))
    rec("meta_recurse", str(lin.to_empty(device="cpu", recurse=False).weight.device))


@contextlib.contextmanager
def _init_empty_weights(lib, include_buffers=False):
    """accelerate's init_empty_weights: register_parameter (and buffer) patched to put what is
    registered on the meta device."""
    nn = lib.nn
    old_p, old_b = nn.Module.register_parameter, nn.Module.register_buffer

    def reg_p(module, name, param):
        old_p(module, name, param)
        if param is not None:
            cls = type(module._parameters[name])
            kwargs = module._parameters[name].__dict__
            kwargs["requires_grad"] = param.requires_grad
            module._parameters[name] = cls(module._parameters[name].to("meta"), **kwargs)

    def reg_b(module, name, buffer, persistent=True):
        old_b(module, name, buffer, persistent=persistent)
        if buffer is not None:
            module._buffers[name] = module._buffers[name].to("meta")

    nn.Module.register_parameter = reg_p
    if include_buffers:
        nn.Module.register_buffer = reg_b
    try:
        yield
    finally:
        nn.Module.register_parameter = old_p
        nn.Module.register_buffer = old_b


def p_init_empty(lib, dt, rec):
    nn = lib.nn
    lib.manual_seed(0)
    src = nn.Sequential(nn.Linear(4, 8), nn.BatchNorm1d(8), nn.ReLU(), nn.Linear(8, 3)).to(dt)
    src.train()
    src(lib.randn(6, 4, dtype=dt))  # running stats move
    buf = io.BytesIO()
    lib.save(src.state_dict(), buf)
    with _init_empty_weights(lib):
        model = nn.Sequential(nn.Linear(4, 8), nn.BatchNorm1d(8), nn.ReLU(), nn.Linear(8, 3))
    rec("params", str([(n, str(p.device), type(p).__name__) for n, p in model.named_parameters()]))
    rec("buffers", str([(n, str(b.device)) for n, b in model.named_buffers()]))
    rec("w0", _r(model[0].weight))
    rec("repr", repr(model))
    with _init_empty_weights(lib, include_buffers=True):
        all_meta = nn.BatchNorm1d(8)
    rec("all_meta", str([(n, str(b.device)) for n, b in all_meta.named_buffers()]))
    buf.seek(0)
    sd = lib.load(buf, weights_only=True)
    sd = {k: v.to(dt) if v.is_floating_point() else v for k, v in sd.items()}
    res = model.load_state_dict(sd, assign=True)
    rec("res", str(res))
    rec(
        "after",
        str(
            [
                (n, str(p.device), type(p).__name__, p.requires_grad)
                for n, p in model.named_parameters()
            ]
        ),
    )
    model.eval()
    src.eval()
    x = lib.randn(5, 4, dtype=dt)
    rec("out", model(x))
    rec("diff", model(x) - src(x))
    # strict loading into meta parameters reports what is missing
    with _init_empty_weights(lib):
        part = nn.Linear(4, 8)
    r = part.load_state_dict({"weight": sd["0.weight"]}, strict=False, assign=True)
    rec("partial", str(r))
    rec("bias_meta", _r(part.bias))
    rec.err("strict", lambda: part.load_state_dict({"weight": sd["0.weight"]}, assign=True))
    rec.err(
        "shape",
        lambda: part.load_state_dict({"weight": sd["3.weight"], "bias": sd["0.bias"]}, assign=True),
    )


def p_func_meta(lib, dt, rec):
    """torch.func over meta base modules: functional_call, stack_module_state, vmap, grad."""
    nn, func = lib.nn, lib.func
    lib.manual_seed(0)
    models = [nn.Sequential(nn.Linear(3, 5), nn.Tanh(), nn.Linear(5, 2)).to(dt) for _ in range(4)]
    params, buffers = func.stack_module_state(models)
    rec("stacked", str({k: (tuple(v.shape), v.requires_grad) for k, v in params.items()}))
    with lib.device("meta"):
        base = nn.Sequential(nn.Linear(3, 5), nn.Tanh(), nn.Linear(5, 2)).to(dt)
    x = lib.randn(7, 3, dtype=dt)

    def f(p, b, x):
        return func.functional_call(base, (p, b), (x,))

    out = func.vmap(f, in_dims=(0, 0, None))(params, buffers, x)
    rec("ens", out)
    rec("ens_ref", lib.stack([m(x) for m in models]))
    one = {k: v[0].detach() for k, v in params.items()}

    def loss(p, x, y):
        return ((func.functional_call(base, p, (x,)) - y) ** 2).mean()

    y = lib.randn(7, 2, dtype=dt)
    g = func.grad(loss)(one, x, y)
    rec("grads", str(sorted(g)))
    for k in sorted(g):
        rec("g." + k, g[k])
    per = func.vmap(func.grad(loss), in_dims=(None, 0, 0))(one, x.unsqueeze(1), y.unsqueeze(1))
    rec("per_sample", per["0.weight"])
    rec("still_meta", _r(base[0].weight))
    # a meta base with a BatchNorm buffer: functional_call with tied and strict arguments
    with lib.device("meta"):
        bn = nn.Sequential(nn.Linear(3, 3), nn.BatchNorm1d(3)).to(dt)
    state = {k: lib.ones(v.shape, dtype=v.dtype) for k, v in bn.state_dict().items()}
    bn.eval()
    rec("bn", func.functional_call(bn, state, (x,)))
    rec.err(
        "strict_missing",
        lambda: func.functional_call(bn, {"0.weight": state["0.weight"]}, (x,), strict=True),
    )


def p_flops_cnn(lib, dt, rec):
    nn = lib.nn
    FCM = _flop_mode(lib)
    with lib.device("meta"):
        model = nn.Sequential(
            nn.Conv2d(3, 8, 3, padding=1), nn.BatchNorm2d(8), nn.ReLU(), nn.MaxPool2d(2),
            nn.Conv2d(8, 16, 3, groups=2), nn.ReLU(), nn.ConvTranspose2d(16, 4, 2, stride=2),
            nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(4, 10),
        ).to(dt)  # fmt: skip
    x = lib.randn(2, 3, 16, 16, dtype=dt, device="meta")
    with FCM(display=False, depth=1) as fc:
        out = model(x)
    rec("fwd", _counts(fc))
    rec("total", str(fc.get_total_flops()))
    with FCM(display=False) as fc:
        loss = nn.functional.cross_entropy(model(x), lib.randint(0, 10, (2,), device="meta"))
        loss.backward()
    rec("fwd_bwd", _counts(fc))
    rec("out", _r(out))
    # frozen stem: no weight gradients counted for it
    for p in model[0].parameters():
        p.requires_grad_(False)
    x.requires_grad_(False)
    with FCM(display=False) as fc:
        model(x).sum().backward()
    rec("frozen", _counts(fc))
    # the same model on the CPU counts the same
    cpu = copy.deepcopy(model).to_empty(device="cpu")
    with FCM(display=False) as fc:
        cpu(lib.zeros(2, 3, 16, 16, dtype=dt)).sum().backward()
    rec("cpu", _counts(fc))


def p_flops_transformer(lib, dt, rec):
    nn = lib.nn
    FCM = _flop_mode(lib)
    with lib.device("meta"):
        enc = nn.TransformerEncoder(
            nn.TransformerEncoderLayer(16, 4, 32, dropout=0.0, batch_first=True), 2,
            enable_nested_tensor=False,
        ).to(dt)  # fmt: skip
        dec = nn.TransformerDecoderLayer(16, 2, 24, batch_first=True, norm_first=True).to(dt)
        lstm = nn.LSTM(16, 8, num_layers=2, bidirectional=True).to(dt)
        gru = nn.GRU(8, 6).to(dt)
        mha = nn.MultiheadAttention(16, 4, kdim=8, vdim=8).to(dt)
    src = lib.randn(3, 7, 16, dtype=dt, device="meta")
    tgt = lib.randn(3, 5, 16, dtype=dt, device="meta")
    with FCM(display=False) as fc:
        mem = enc(src)
        out = dec(
            tgt, mem, tgt_mask=nn.Transformer.generate_square_subsequent_mask(5, device="meta")
        )
    rec("xf", _counts(fc))
    rec("mem", _r(mem))
    rec("out", _r(out))
    with FCM(display=False) as fc:
        out.sum().backward()
    rec("xf_bwd", _counts(fc))
    seq = lib.randn(7, 3, 16, dtype=dt, device="meta")
    with FCM(display=False) as fc:
        h, (hn, cn) = lstm(seq)
        g, gn = gru(lib.randn(4, 2, 8, dtype=dt, device="meta"))
    rec("rnn", _counts(fc))
    rec("rnn_out", str((_r(h), _r(hn), _r(cn), _r(g), _r(gn))))
    q = lib.randn(5, 2, 16, dtype=dt, device="meta")
    kv = lib.randn(6, 2, 8, dtype=dt, device="meta")
    with FCM(display=False) as fc:
        a, w = mha(q, kv, kv, need_weights=True, average_attn_weights=False)
        a2, _ = mha(q, kv, kv, need_weights=False)
    rec("mha", _counts(fc))
    rec("mha_out", str((_r(a), _r(w), _r(a2))))


def p_flops_sdpa(lib, dt, rec):
    """scaled_dot_product_attention: torch's math path (meta; CPU where its flash kernel does
    not take the call) counts its products; the CPU flash kernel counts nothing."""
    F = lib.nn.functional
    FCM = _flop_mode(lib)
    for dev in ("cpu", "meta"):
        lib.manual_seed(0)
        q = lib.randn(2, 3, 5, 8, dtype=dt, device=dev, requires_grad=True)
        k = lib.randn(2, 3, 7, 8, dtype=dt, device=dev, requires_grad=True)
        v = lib.randn(2, 3, 7, 8, dtype=dt, device=dev, requires_grad=True)
        v4 = lib.randn(2, 3, 7, 4, dtype=dt, device=dev)
        for name, kw in (
            ("plain", {}),
            ("causal", {"is_causal": True}),
            ("dropout", {"dropout_p": 0.2}),
            ("mask", {"attn_mask": lib.ones(5, 7, dtype=lib.bool, device=dev)}),
        ):
            with FCM(display=False) as fc:
                out = F.scaled_dot_product_attention(q, k, v, **kw)
                out.sum().backward()
            rec(f"{dev}.{name}", _counts(fc))
            rec(f"{dev}.{name}.fn", type(out.grad_fn).__name__)
        with FCM(display=False) as fc:
            out = F.scaled_dot_product_attention(q.detach(), k.detach(), v4)
            two = F.scaled_dot_product_attention(q[0, 0].detach(), k[0, 0].detach(), v4[0, 0])
            gqa = F.scaled_dot_product_attention(
                lib.randn(2, 4, 5, 8, dtype=dt, device=dev), k[:, :2].detach(), v[:, :2].detach(),
                enable_gqa=True,
            )  # fmt: skip
        rec(f"{dev}.others", _counts(fc))
        rec(f"{dev}.shapes", str((tuple(out.shape), tuple(two.shape), tuple(gqa.shape))))
        rec.err(
            f"{dev}.causal_mask",
            lambda dev=dev, q=q, k=k, v=v: (
                F.scaled_dot_product_attention(
                    q, k, v, attn_mask=lib.ones(5, 7, dtype=lib.bool, device=dev), is_causal=True
                ).shape
            ),
        )


def p_shapes_vision(lib, dt, rec):
    """Sizing a network on meta: the output shape of each stage (a dry run for the head)."""
    nn = lib.nn
    with lib.device("meta"):
        stages = nn.ModuleList([
            nn.Sequential(nn.Conv2d(3, 8, 7, stride=2, padding=3), nn.BatchNorm2d(8), nn.ReLU()),
            nn.MaxPool2d(3, stride=2, padding=1, ceil_mode=True),
            nn.Sequential(nn.Conv2d(8, 8, 3, padding=2, dilation=2, groups=4), nn.SiLU()),
            nn.AvgPool2d(2, count_include_pad=False),
            nn.Upsample(scale_factor=2, mode="nearest"),
            nn.Conv2d(8, 12, (3, 1), padding="same"),
            nn.PixelShuffle(2),
            nn.AdaptiveMaxPool2d((3, 2)),
            nn.Dropout2d(0.1),
            nn.Flatten(),
        ])  # fmt: skip
        stages.to(dt)
    x = lib.empty(2, 3, 37, 41, dtype=dt, device="meta")
    for i, m in enumerate(stages):
        x = m(x)
        rec(f"stage{i}", str((tuple(x.shape), x.stride(), str(x.dtype))))
    rec("head_in", str(x.shape[1]))
    with lib.device("meta"):
        c3 = nn.Conv3d(2, 4, 3, stride=(1, 2, 2)).to(dt)
        c1 = nn.Conv1d(4, 6, 5, padding=2, padding_mode="circular").to(dt)
        ct = nn.ConvTranspose2d(4, 2, 3, stride=2, output_padding=1).to(dt)
    v = c3(lib.empty(1, 2, 5, 9, 9, dtype=dt, device="meta"))
    rec("c3", _r(v))
    rec("c1", _r(c1(lib.empty(3, 4, 10, dtype=dt, device="meta"))))
    rec("ct", _r(ct(lib.empty(1, 4, 5, 5, dtype=dt, device="meta"))))
    rec("ct_size", _r(ct(lib.empty(1, 4, 5, 5, dtype=dt, device="meta"), output_size=[11, 11])))
    F = nn.functional
    img = lib.empty(2, 3, 8, 8, dtype=dt, device="meta")
    rec("interp", _r(F.interpolate(img, size=(5, 7), mode="bilinear", align_corners=False)))
    rec("unfold", _r(F.unfold(img, 3, padding=1, stride=2)))
    rec("fold", _r(F.fold(F.unfold(img, 2, stride=2), (8, 8), 2, stride=2)))
    rec(
        "grid",
        _r(
            F.grid_sample(
                img,
                F.affine_grid(
                    lib.empty(2, 2, 3, dtype=dt, device="meta"), [2, 3, 4, 4], align_corners=False
                ),
                align_corners=False,
            )
        ),
    )
    rec("pad", _r(F.pad(img, (1, 2, 3, 4), mode="reflect")))
    rec("cl", str(stages[0](img.to(memory_format=lib.channels_last)).stride()))
    rec.err(
        "too_small", lambda: nn.Conv2d(3, 4, 5, device="meta")(lib.empty(1, 3, 3, 3, device="meta"))
    )
    rec.err(
        "channels", lambda: nn.Conv2d(3, 4, 3, device="meta")(lib.empty(1, 4, 5, 5, device="meta"))
    )


def p_shapes_seq(lib, dt, rec):
    nn = lib.nn
    with lib.device("meta"):
        emb = nn.Embedding(50, 12)
        lstm = nn.LSTM(12, 6, num_layers=2, batch_first=True, bidirectional=True, proj_size=4)
        gru = nn.GRU(8, 5, batch_first=True)
        rnn = nn.RNN(12, 3, nonlinearity="relu")
        cell = nn.LSTMCell(12, 7)
        xf = nn.Transformer(12, 3, 1, 1, 20, batch_first=True)
        conv = nn.Conv1d(12, 8, 3, padding=1)
    for m in (emb, lstm, gru, rnn, cell, xf, conv):
        m.to(dt)
    tok = lib.randint(0, 50, (4, 9), device="meta")
    e = emb(tok)
    rec("emb", _r(e))
    out, (h, c) = lstm(e)
    rec("lstm", str((_r(out), _r(h), _r(c))))
    rec("lstm_params", str([(n, tuple(p.shape)) for n, p in lstm.named_parameters()]))
    feats = conv(e.transpose(1, 2)).transpose(1, 2)
    rec("conv", str((tuple(feats.shape), feats.stride(), feats.is_contiguous())))
    g, gh = gru(feats)
    rec("gru", str((_r(g), _r(gh))))
    r, rh = rnn(e.transpose(0, 1))
    rec("rnn", str((tuple(r.shape), tuple(rh.shape))))
    hx, cx = cell(e[:, 0])
    rec("cell", str((_r(hx), _r(cx))))
    mask = xf.generate_square_subsequent_mask(5, device="meta", dtype=dt)
    rec("mask", _r(mask))
    pad_mask = lib.zeros(4, 9, dtype=lib.bool, device="meta")
    # the decoder reads the mask to see whether it is causal (an item() on meta) unless told
    rec.err("xf_read", lambda: xf(e, e[:, :5], tgt_mask=mask, src_key_padding_mask=pad_mask))
    y = xf(e, e[:, :5], tgt_mask=mask, src_key_padding_mask=pad_mask, tgt_is_causal=True)
    rec("xf", _r(y))
    packed = nn.utils.rnn.pack_padded_sequence(e, lib.tensor([9, 7, 4, 2]), batch_first=True)
    po, _ = lstm(packed)
    rec("packed", str((_r(po.data), po.batch_sizes.tolist())))
    pad, lens = nn.utils.rnn.pad_packed_sequence(po, batch_first=True)
    rec("unpacked", str((_r(pad), lens.tolist())))
    rec.err("bad_size", lambda: lstm(lib.empty(2, 3, 11, device="meta", dtype=dt)))


def p_optim_state(lib, dt, rec):
    nn = lib.nn
    with lib.device("meta"):
        model = nn.Sequential(nn.Linear(3, 4), nn.ReLU(), nn.Linear(4, 2)).to(dt)
    opts = {
        "adamw": lib.optim.AdamW(model.parameters(), lr=1e-3, amsgrad=True),
        "sgd": lib.optim.SGD(
            [{"params": model[0].parameters()}, {"params": model[2].parameters(), "lr": 0.5}],
            lr=0.1, momentum=0.9, nesterov=True,
        ),
        "rmsprop": lib.optim.RMSprop(model.parameters(), centered=True, momentum=0.5),
        "adagrad": lib.optim.Adagrad(model.parameters()),
        "nadam": lib.optim.NAdam(model.parameters()),
    }  # fmt: skip
    x = lib.randn(5, 3, dtype=dt, device="meta")
    for name, opt in opts.items():
        model.zero_grad()
        model(x).pow(2).mean().backward()
        opt.step()
        sd = opt.state_dict()
        rec(name + ".groups", str(sd["param_groups"]))
        rec(
            name + ".state",
            str({k: {n: _r(v) for n, v in s.items()} for k, s in sd["state"].items()}),
        )
    sched = lib.optim.lr_scheduler.StepLR(opts["sgd"], 1, gamma=0.5)
    opts["sgd"].step()
    sched.step()
    rec("lr", str(sched.get_last_lr()))
    # a meta optimizer's state loads into another meta optimizer, not into a CPU one
    meta_opt = lib.optim.AdamW(model.parameters(), lr=1e-2)
    meta_opt.load_state_dict(opts["adamw"].state_dict())
    rec("meta_loaded", str(meta_opt.state_dict()["param_groups"]))
    rec(
        "meta_state",
        str({k: _r(v["exp_avg_sq"]) for k, v in meta_opt.state_dict()["state"].items()}),
    )
    model.to_empty(device="cpu")
    rec("old_params", str([p.device.type for g in meta_opt.param_groups for p in g["params"]]))
    opt = lib.optim.AdamW(model.parameters(), lr=1e-3, amsgrad=True)
    rec.err("load_cpu", lambda: opt.load_state_dict(opts["adamw"].state_dict()))
    rec("grad_none", str([p.grad is None for p in model.parameters()]))


def p_reprs(lib, dt, rec):
    nn = lib.nn
    with lib.device("meta"):
        m = nn.Sequential(nn.Linear(3, 2, bias=False), nn.BatchNorm1d(2), nn.Embedding(4, 2))
    m.to(dt)
    rec("module", repr(m))
    rec("weight", repr(m[0].weight))
    rec("weight_str", str(m[0].weight))
    rec("running", repr(m[1].running_mean))
    rec("nbt", repr(m[1].num_batches_tracked))
    rec("frozen", repr(nn.Parameter(lib.empty(2, 2, dtype=dt, device="meta"), requires_grad=False)))
    rec(
        "int_param",
        repr(nn.Parameter(lib.empty(3, dtype=lib.int32, device="meta"), requires_grad=False)),
    )
    rec("buffer", repr(nn.Buffer(lib.empty(2, dtype=dt, device="meta"))))
    rec("half", repr(lib.empty(2, 3, dtype=lib.float16, device="meta", requires_grad=True)))
    rec("bf16", repr(lib.zeros(2, dtype=lib.bfloat16, device="meta")))
    rec("bool", repr(lib.zeros(2, 2, dtype=lib.bool, device="meta")))
    rec("uint8", repr(lib.zeros(2, dtype=lib.uint8, device="meta")))
    rec("grad_fn", repr(lib.empty(3, dtype=dt, device="meta", requires_grad=True).sum()))
    rec("view_fn", repr(lib.empty(3, 2, dtype=dt, device="meta", requires_grad=True).t()))
    rec("list", repr([lib.empty(1, dtype=dt, device="meta")]))
    rec("dict", repr(m.state_dict()))
    rec("format", format(lib.empty((), device="meta")))
    rec.err("format_spec", lambda: format(lib.empty((), device="meta"), ".3f"))
    rec("format_1d", format(lib.empty(2, device="meta")))
    rec("big", repr(lib.empty(100, 100, 100, dtype=dt, device="meta")))
    with lib.device("meta"):
        t = lib.tensor([1.5, 2.5])
        i = lib.tensor([[1, 2]])
    rec("tensor_ctx", repr(t))
    rec("int_ctx", repr(i))
    rec("ptr", str((t.data_ptr(), t[1:].data_ptr(), t.untyped_storage().data_ptr())))


def p_factories(lib, dt, rec):
    x = lib.empty(2, 3, 4, dtype=dt, device="meta").permute(2, 0, 1)
    rec("empty_like", str((_r(lib.empty_like(x)), lib.empty_like(x).stride())))
    rec("zeros_like", str(lib.zeros_like(x).stride()))
    rec("ones_like_c", str(lib.ones_like(x, memory_format=lib.contiguous_format).stride()))
    rec("full_like", _r(lib.full_like(x, 7, dtype=lib.int16)))
    rec("rand_like", _r(lib.rand_like(x)))
    rec("randn_like", _r(lib.randn_like(x, dtype=lib.float64)))
    rec("randint_like", _r(lib.randint_like(x, 3, 9)))
    rec("like_cpu", _r(lib.zeros_like(lib.ones(3, dtype=dt), device="meta")))
    rec("like_req", _r(lib.empty_like(x, requires_grad=True)))
    rec("new_empty", _r(x.new_empty((2, 2))))
    rec("new_zeros", _r(x.new_zeros(3, dtype=lib.int64)))
    rec("new_ones", _r(x.new_ones((1,), requires_grad=True)))
    rec("new_full", _r(x.new_full((2,), 3.5)))
    rec("new_tensor", _r(x.new_tensor([[1, 2]])))
    rec("new_cpu", _r(x.new_zeros(2, device="cpu")))
    rec("arange", _r(lib.arange(0, 2, 0.5, device="meta")))
    rec("arange_dt", _r(lib.arange(5, dtype=dt, device="meta")))
    rec("linspace", _r(lib.linspace(0, 1, 7, device="meta", dtype=dt)))
    rec("logspace", _r(lib.logspace(0, 2, 3, device="meta")))
    rec("eye", _r(lib.eye(3, 2, device="meta", dtype=dt)))
    rec("full_bool", _r(lib.full((2,), True, device="meta")))
    rec("full_int", _r(lib.full((2,), 3, device="meta")))
    rec("zeros_dev", _r(lib.zeros(2, device=lib.device("meta"))))
    rec("strided", str(lib.empty_strided((3, 4), (1, 3), device="meta", dtype=dt).stride()))
    rec("tril_idx", _r(lib.tril_indices(4, 4, device="meta")))
    rec("randperm", _r(lib.randperm(6, device="meta")))
    rec("rand_gen", _r(lib.rand(3, device="meta", dtype=dt)))
    rec("normal", _r(lib.normal(0.0, 1.0, (2, 2), device="meta")))
    rec("bernoulli", _r(lib.bernoulli(lib.empty(3, device="meta").uniform_())))
    rec("poisson", _r(lib.poisson(lib.empty(3, device="meta", dtype=dt))))
    rec("multinomial", _r(lib.multinomial(lib.ones(2, 4, device="meta"), 3)))
    with lib.device("meta"):
        rec("ctx_ones", _r(lib.ones(2, dtype=dt)))
        rec("ctx_cpu", str(lib.ones(2, device="cpu").device))
        rec("ctx_default", str(lib.get_default_device()))
    rec("after_ctx", str(lib.get_default_device()))
    rec(
        "meshgrid",
        str(
            [
                tuple(t.shape)
                for t in lib.meshgrid(
                    lib.empty(3, device="meta"), lib.empty(2, device="meta"), indexing="xy"
                )
            ]
        ),
    )


def p_dtypes(lib, dt, rec):
    m = lambda *s, d=dt: lib.empty(*s, dtype=d, device="meta")  # noqa: E731
    i32, u8, i8, f16, b = lib.int32, lib.uint8, lib.int8, lib.float16, lib.bool
    cases = {
        "int+float": m(2, d=i32) + 1.5,
        "int+int": m(2, d=i32) + 7,
        "u8*i8": m(2, d=u8) * m(2, d=i8),
        "i32+f16": m(2, d=i32) + m(2, d=f16),
        "f16+dt": m(2, d=f16) + m(2),
        "dt+0d64": m(2) + lib.empty((), dtype=lib.float64, device="meta"),
        "bool+bool": m(2, d=b) + m(2, d=b),
        "bool*int": m(2, d=b) * 3,
        "div_int": m(2, d=lib.int64) / 2,
        "floordiv": m(2, d=lib.int64) // 2,
        "true_div": lib.div(m(2, d=i32), 3, rounding_mode="trunc"),
        "cmp": m(2) > 0,
        "where": lib.where(m(2, d=b), m(2, d=i32), 2.5),
        "sum_bool": m(3, d=b).sum(),
        "sum_int8": m(3, d=i8).sum(),
        "mean": m(3).mean(),
        "prod_u8": m(3, d=u8).prod(),
        "cumsum_i32": m(3, d=i32).cumsum(0),
        "argmax": m(3).argmax(),
        "abs_int": m(3, d=i8).abs(),
        "sqrt_int": m(3, d=lib.int64).sqrt(),
        "pow": m(3, d=i32) ** 2.0,
        "bitwise": m(3, d=i32) & m(3, d=u8),
        "softmax_int": lib.softmax(m(3, d=lib.int64), 0, dtype=dt),
        "half": m(3).half(),
        "to_int": m(3).to(lib.int16),
        "to_bool": m(3).bool(),
        "type_as": m(3, d=i32).type_as(m(1)),
        "to_other": m(3).to(m(1, d=lib.int64)),
        "copy_kw": m(3).to("meta", lib.float16, copy=True),
    }
    for k, v in cases.items():
        rec(k, _r(v))
    rec("type", m(2).type())
    rec("type_int", m(2, d=lib.int64).type())
    rec(
        "is_fp",
        str((m(1).is_floating_point(), m(1, d=i32).is_floating_point(), m(1).element_size())),
    )
    rec.err("bool_sub", lambda: m(2, d=b) - m(2, d=b))


def p_views(lib, dt, rec):
    x = lib.empty(2, 3, 4, dtype=dt, device="meta")
    views = {
        "x": x,
        "perm": x.permute(2, 0, 1),
        "t": x[0].t(),
        "slice": x[:, ::2, 1:],
        "sel": x[1],
        "narrow": x.narrow(2, 1, 2),
        "unsq": x.unsqueeze(1),
        "expand": x[:, :1].expand(2, 5, 4),
        "view": x.view(6, 4),
        "flat": x.flatten(),
        "diag": x[0].diagonal(),
        "unfold": x.unfold(2, 2, 1),
        "as_strided": x.as_strided((2, 2), (1, 4), 3),
        "split": x.split(2, 1)[1],
        "chunk": x.chunk(2, 2)[1],
        "unbind": x.unbind(1)[2],
        "mT": x.mT,
        "movedim": x.movedim(0, -1),
        "squeeze": x[:, :1].squeeze(1),
        "real": x.real,
    }
    for k, v in views.items():
        rec(
            k,
            str((tuple(v.shape), v.stride(), v.storage_offset(), v.is_contiguous(), v._base is x)),
        )
    p = x.permute(2, 0, 1)
    rec("contig", str(p.contiguous().stride()))
    rec("clone", str(p.clone().stride()))
    rec("clone_c", str(p.clone(memory_format=lib.contiguous_format).stride()))
    rec("add", str((p + 1).stride()))
    rec("exp", str(p.exp().stride()))
    rec("reshape_view", str(p.reshape(4, 6).stride()))
    rec("expand_c", str(x[:, :1].expand(2, 5, 4).contiguous().stride()))
    img = lib.empty(2, 3, 4, 5, dtype=dt, device="meta")
    cl = img.to(memory_format=lib.channels_last)
    rec(
        "cl",
        str((cl.stride(), cl.is_contiguous(), cl.is_contiguous(memory_format=lib.channels_last))),
    )
    rec("cl_relu", str(cl.relu().stride()))
    rec("cl_like", str(lib.empty_like(cl).stride()))
    rec(
        "cl3d",
        str(
            lib.empty(1, 2, 3, 4, 5, device="meta")
            .contiguous(memory_format=lib.channels_last_3d)
            .stride()
        ),
    )
    rec(
        "sizes", str((x.size(), x.size(-1), x.dim(), x.numel(), x.nelement(), x.nbytes, x.itemsize))
    )
    rec("ptrs", str((x.data_ptr(), x[1].data_ptr(), x.untyped_storage().nbytes())))
    rec.err("view_bad", lambda: p.view(-1))
    rec.err("view_size", lambda: x.view(5, 5))
    rec.err("expand_bad", lambda: x.expand(3, 3, 4))


def p_inplace(lib, dt, rec):
    x = lib.zeros(2, 3, dtype=dt, device="meta")
    v = x[0]
    rec("v0", str((x._version, v._version)))
    x.add_(1).mul_(2)
    rec("v1", str((x._version, v._version)))
    v.fill_(3)
    x[1] = 5.0
    x[:, 0] += 1
    rec("v2", str((x._version, v._version)))
    x.copy_(lib.ones(2, 3))
    rec("v3", str(x._version))
    x.clamp_(0, 1).sigmoid_().zero_()
    rec("v4", str(x._version))
    lib.nn.init.uniform_(x)
    rec("v5", str(x._version))
    w = lib.ones(3, dtype=dt, device="meta", requires_grad=True)
    rec.err("leaf", lambda: w.add_(1))
    y = w * 2
    z = y.exp()
    y.add_(1)
    rec("y_fn", repr(y))
    rec.err("saved_modified", lambda: z.sum().backward())
    a = w.clone()
    b = a.sin()
    a.mul_(2)
    rec.err("sin_saved", lambda: b.sum().backward())
    c = w.clone()
    c[1:].mul_(3)
    c.sum().backward()
    rec("grad", _r(w.grad))
    with lib.no_grad():
        w.sub_(0.1 * w.grad)
    rec("w_after", _r(w))
    rec("w_version", str(w._version))
    d = w.detach()
    d.zero_()
    rec("detach_shared", str((w._version, d._version)))
    rec.err("resize", lambda: lib.empty(2, device="meta").resize_(3, 3).shape)
    rec(
        "masked_fill_",
        _r(lib.empty(2, 2, device="meta").masked_fill_(lib.empty(2, 2, device="meta") > 0, 1.0)),
    )
    rec(
        "index_add_",
        _r(
            lib.zeros(4, device="meta").index_add_(
                0, lib.tensor([0, 2], device="meta"), lib.ones(2, device="meta")
            )
        ),
    )
    rec(
        "scatter_",
        _r(
            lib.zeros(2, 4, device="meta").scatter_(
                1, lib.zeros(2, 2, dtype=lib.int64, device="meta"), 1.0
            )
        ),
    )


def p_autograd(lib, dt, rec):
    w = lib.randn(4, 3, dtype=dt, device="meta", requires_grad=True)
    x = lib.randn(5, 4, dtype=dt, device="meta")
    y = (x @ w).tanh().pow(2).sum()
    (g,) = lib.autograd.grad(y, w, create_graph=True)
    rec("g", _r(g))
    (gg,) = lib.autograd.grad(g.sum(), w)
    rec("gg", _r(gg))
    out = lib.nn.functional.softplus(x @ w)
    (go,) = lib.autograd.grad(out, w, grad_outputs=lib.ones_like(out))
    rec("go", _r(go))
    rec.err(
        "shape_mismatch", lambda: lib.autograd.grad(out, w, grad_outputs=lib.ones(2, device="meta"))
    )
    rec.err(
        "device_mismatch", lambda: lib.autograd.grad(out, w, grad_outputs=lib.ones(5, 3, dtype=dt))
    )
    rec.err(
        "unused",
        lambda: lib.autograd.grad(
            (x * 2).sum() * 0 + w.sum(), [w, lib.empty(1, device="meta", requires_grad=True)]
        ),
    )
    got = lib.autograd.grad(
        w.sum(),
        [w, lib.empty(1, device="meta", requires_grad=True)],
        allow_unused=True,
        materialize_grads=True,
    )
    rec("materialized", str([_r(t) for t in got]))
    hooked = []
    w2 = lib.empty(3, dtype=dt, device="meta", requires_grad=True)
    w2.register_hook(lambda gr: hooked.append(_r(gr)))
    (w2 * 3).sum().backward()
    rec("hook", str(hooked))
    rec("w2g", _r(w2.grad))
    lin = lib.nn.Linear(3, 2, device="meta", dtype=dt)
    jac = lib.autograd.functional.jacobian(
        lambda inp: lin(inp), lib.empty(3, dtype=dt, device="meta")
    )
    rec("jac", _r(jac))
    hess = lib.func.hessian(lambda inp: inp.pow(3).sum())(lib.empty(3, dtype=dt, device="meta"))
    rec("hess", _r(hess))
    rec.err(
        "no_grad_item",
        lambda: lib.autograd.grad(lib.empty(2, device="meta", requires_grad=True).sum(), w),
    )


def p_errors(lib, dt, rec):
    x = lib.ones(2, 3, dtype=dt, device="meta")
    s = lib.ones((), dtype=dt, device="meta")
    c = lib.ones(2, 3, dtype=dt)
    errs = {
        "item": lambda: s.item(),
        "item_many": lambda: x.item(),
        "tolist": lambda: x.tolist(),
        "numpy": lambda: x.numpy(),
        "numpy_force": lambda: x.numpy(force=True),
        "cpu": lambda: x.cpu(),
        "to_cpu_dtype": lambda: x.to("cpu", lib.float16),
        "double_cpu": lambda: x.double().cpu(),
        "bool": lambda: bool(s),
        "if": lambda: 1 if s > 0 else 0,
        "int": lambda: int(s),
        "index_op": lambda: [1, 2, 3][lib.tensor(1, device="meta")],
        "iter_sum": lambda: sum(x.sum(1)),
        "add_cpu": lambda: x + c,
        "cpu_add": lambda: c + x,
        "cat": lambda: lib.cat([c, x]),
        "stack": lambda: lib.stack([x, c]),
        "where": lambda: lib.where(x > 0, x, c),
        "copy_out": lambda: c.copy_(x),
        "copy_in": lambda: x.copy_(c).shape,
        "index_select": lambda: x.index_select(0, lib.tensor([0])),
        "scalar_cpu": lambda: (x * lib.tensor(2.0)).shape,
        "allclose": lambda: lib.allclose(x, x),
        "equal": lambda: lib.equal(x, x),
        "equal_mix": lambda: lib.equal(x, c),
        "module_cpu": lambda: lib.nn.Linear(2, 2, device="meta").cpu(),
        "module_double": lambda: lib.nn.Linear(2, 2, device="meta").double().weight.dtype,
        "share": lambda: x.share_memory_(),
        "is_shared": lambda: x.is_shared(),
        "pin": lambda: x.pin_memory(),
        "clip_norm": lambda: _clip(lib, dt),
        "print_val": lambda: str(x.sum()),
        "float_tensor": lambda: float(x.sum()),
        "np_array": lambda: x.__array__(),
        "data_ptr": lambda: x.data_ptr(),
    }
    for k, f in errs.items():
        r = rec.err(k, f)
        if r is not None and not isinstance(r, (lib.Tensor, lib.nn.Module)):
            rec(k + ".value", str(r))


def _clip(lib, dt):
    w = lib.nn.Parameter(lib.empty(3, dtype=dt, device="meta"))
    w.grad = lib.empty(3, dtype=dt, device="meta")
    return repr(lib.nn.utils.clip_grad_norm_([w], 1.0))


def p_data_dependent(lib, dt, rec):
    """Ops whose output's size depends on the values: torch refuses them on meta (where it can
    not know the size); a static size (nonzero_static, output_size) runs."""
    x = lib.ones(3, 4, dtype=dt, device="meta")
    i = lib.ones(5, dtype=lib.int64, device="meta")
    errs = {
        "nonzero": lambda: x.nonzero(),
        "nonzero_tuple": lambda: lib.nonzero(x, as_tuple=True),
        "argwhere": lambda: lib.argwhere(x),
        "where1": lambda: lib.where(x > 0),
        "masked_select": lambda: lib.masked_select(x, x > 0),
        "masked_select_m": lambda: x.masked_select(lib.ones(4, dtype=lib.bool, device="meta")),
        "unique": lambda: lib.unique(x),
        "unique_counts": lambda: x.unique(return_counts=True, return_inverse=True),
        "unique_dim": lambda: lib.unique(x, dim=1),
        "unique_consecutive": lambda: lib.unique_consecutive(i),
        "bincount": lambda: lib.bincount(i),
        "bincount_w": lambda: i.bincount(weights=lib.ones(5, dtype=dt, device="meta")),
        "repeat_interleave": lambda: x.repeat_interleave(
            lib.ones(3, dtype=lib.int64, device="meta"), dim=0
        ),
        "repeat_counts": lambda: lib.repeat_interleave(i),
    }
    for k, f in errs.items():
        rec.err(k, f)
    lp = lib.empty(6, 2, 5, dtype=dt, device="meta").log_softmax(2)
    tg = lib.ones(2, 3, dtype=lib.int64, device="meta")
    ctc = lib.nn.functional.ctc_loss
    rec.err("ctc_tensor_lengths", lambda: ctc(lp, tg, lib.full((2,), 6), lib.full((2,), 3)))
    rec("ctc_int_lengths", _r(ctc(lp, tg, (6, 6), (3, 3), reduction="sum")))
    rec(
        "repeat_size",
        _r(x.repeat_interleave(lib.ones(3, dtype=lib.int64, device="meta"), dim=0, output_size=5)),
    )
    rec("repeat_int", _r(x.repeat_interleave(2, dim=1)))
    rec("nonzero_static", _r(lib.nonzero_static(x, size=4)))
    rec("count_nonzero", _r(lib.count_nonzero(x, dim=0)))
    rec("histc", _r(lib.histc(x, bins=7)))
    rec("topk", _r(x.topk(2)))
    rec("sort", _r(x.sort(0, descending=True)))
    rec("kth", _r(x.kthvalue(2, 1)))
    rec("median", _r(x.median(1)))
    rec("cummax", _r(x.cummax(1)))
    rec("searchsorted", _r(lib.searchsorted(lib.ones(6, dtype=dt, device="meta"), x)))
    rec("bucketize", _r(lib.bucketize(x, lib.ones(6, dtype=dt, device="meta"))))
    rec("one_hot", _r(lib.nn.functional.one_hot(i, 7)))
    rec.err("one_hot_infer", lambda: lib.nn.functional.one_hot(i))


def p_mask_index(lib, dt, rec):
    """Reading through a boolean mask needs its count (torch: nonzero, refused on meta); a CPU
    mask is counted on the CPU; writing through a mask (index_put / masked_fill) runs."""
    x = lib.ones(3, 4, dtype=dt, device="meta")
    m = lib.ones(3, 4, dtype=lib.bool, device="meta")
    m1 = lib.ones(3, dtype=lib.bool, device="meta")
    reads = {
        "mask": lambda: x[m],
        "rows": lambda: x[m1],
        "cols": lambda: x[:, lib.ones(4, dtype=lib.bool, device="meta")],
        "list": lambda: x[[True, False, True]],
        "cmp": lambda: x[x > 0],
        "bool0d": lambda: x[lib.tensor(True, device="meta")],
        "cpu_mask": lambda: x[lib.tensor([True, False, True])],
        "cpu_mask2d": lambda: x[lib.tensor([[True, False, True, True]] * 3)],
        "cpu_index": lambda: x[lib.tensor([2, 0])],
        "meta_index": lambda: x[lib.tensor([2, 0, 1, 1], device="meta")],
        "py_bool": lambda: x[True],
        "int_list": lambda: x[[0, 2], 1:],
    }
    for k, f in reads.items():
        r = rec.err(k, f)
        if r is not None:
            rec(k + ".out", str((_r(r), r.stride())))

    def put(key, value):
        y = x.clone()
        y[key] = value
        return _r(y)

    rec("set_scalar", put(m, 2.0))
    rec("set_0d", put(m, lib.tensor(2.0, dtype=dt, device="meta")))
    rec("set_vec", put(m, lib.ones(12, dtype=dt, device="meta")))
    rec("set_rows", put(m1, lib.ones(4, dtype=dt, device="meta")))
    rec(
        "index_put",
        _r(x.clone().index_put_((m1,), lib.tensor(1.0, dtype=dt, device="meta"), accumulate=True)),
    )
    rec("masked_fill", _r(x.masked_fill(m, 0.5)))
    rec("masked_scatter", _r(x.masked_scatter(m, x)))
    w = lib.ones(3, 4, dtype=dt, device="meta", requires_grad=True)
    rec("masked_fill_grad", _r(w.masked_fill(m, 0.0)))


def p_linalg(lib, dt, rec):
    """Linear algebra on meta gives shapes and dtypes only: no singular or not-positive-definite
    errors from values that do not exist."""
    A = lib.empty(2, 3, 3, dtype=dt, device="meta")
    B = lib.empty(2, 3, 4, dtype=dt, device="meta")
    L = lib.linalg
    res = {
        "inv": lambda: L.inv(A),
        "inverse": lambda: A.inverse(),
        "inv_ex": lambda: L.inv_ex(A),
        "det": lambda: L.det(A),
        "slogdet": lambda: L.slogdet(A),
        "logdet": lambda: A.logdet(),
        "cholesky": lambda: L.cholesky(A),
        "cholesky_ex": lambda: L.cholesky_ex(A, upper=True),
        "solve": lambda: L.solve(A, B),
        "solve_vec": lambda: L.solve(A, lib.empty(2, 3, dtype=dt, device="meta")),
        "solve_tri": lambda: L.solve_triangular(A, B, upper=False),
        "cholesky_solve": lambda: lib.cholesky_solve(B, A),
        "lu_factor": lambda: L.lu_factor(A),
        "lu": lambda: L.lu(B),
        "qr": lambda: L.qr(B.mT),
        "qr_r": lambda: L.qr(B, mode="r"),
        "eigh": lambda: L.eigh(A),
        "eigvalsh": lambda: L.eigvalsh(A),
        "svd": lambda: L.svd(B, full_matrices=False),
        "svdvals": lambda: L.svdvals(B),
        "pinv": lambda: L.pinv(B),
        "matrix_rank": lambda: L.matrix_rank(B),
        "norm": lambda: L.matrix_norm(B, ord="nuc"),
        "cond": lambda: L.cond(A),
        "matrix_exp": lambda: L.matrix_exp(A),
        "matrix_power": lambda: L.matrix_power(A, -2),
        "multi_dot": lambda: L.multi_dot([A[0], B[0], B[0].mT]),
        "householder": lambda: L.householder_product(
            B.mT, lib.empty(2, 3, dtype=dt, device="meta")
        ),
        "vector_norm": lambda: L.vector_norm(B, dim=-1),
        "cross": lambda: L.cross(A, A),
        "tensorsolve": lambda: L.tensorsolve(
            lib.empty(6, 2, 3, dtype=dt, device="meta"), lib.empty(6, dtype=dt, device="meta")
        ),
    }
    for k, f in res.items():
        r = rec.err(k, f)
        if r is not None:
            rec(k + ".out", _r(r))
    w = lib.empty(3, 3, dtype=dt, device="meta", requires_grad=True)
    loss = L.inv(w @ w.mT + lib.eye(3, dtype=dt, device="meta")).sum() + L.slogdet(w)[1]
    loss.backward()
    rec("grad", _r(w.grad))


def p_saving(lib, dt, rec):
    nn = lib.nn
    with lib.device("meta"):
        model = nn.Sequential(
            nn.Conv2d(2, 3, 3), nn.BatchNorm2d(3), nn.Flatten(), nn.Linear(3, 2)
        ).to(dt)
    sd = model.state_dict()
    buf = io.BytesIO()
    lib.save(sd, buf)
    buf.seek(0)
    back = lib.load(buf, weights_only=True)
    rec("keys", str(list(back)))
    rec("back", str({k: _r(v) for k, v in back.items()}))
    rec("strides", str({k: v.stride() for k, v in back.items()}))
    buf.seek(0)
    rec("mmap_cpu", str({k: str(v.device) for k, v in lib.load(buf, map_location="cpu").items()}))
    # views of one meta storage saved together keep their layout
    base = lib.empty(4, 6, dtype=dt, device="meta")
    buf = io.BytesIO()
    lib.save({"t": base.t(), "row": base[2], "cols": base[:, 1:4]}, buf)
    buf.seek(0)
    views = lib.load(buf)
    rec(
        "views",
        str({k: (tuple(v.shape), v.stride(), v.storage_offset()) for k, v in views.items()}),
    )
    # a CPU checkpoint loaded straight onto meta, then assigned
    lib.manual_seed(0)
    src = nn.Linear(3, 2).to(dt)
    buf = io.BytesIO()
    lib.save(src.state_dict(), buf)
    buf.seek(0)
    onto_meta = lib.load(buf, map_location="meta")
    rec("onto_meta", str({k: _r(v) for k, v in onto_meta.items()}))
    dst = nn.Linear(3, 2, device="meta", dtype=dt)
    dst.load_state_dict(onto_meta, assign=True)
    rec("dst", _r(dst.weight))
    buf.seek(0)
    dst.load_state_dict(lib.load(buf), assign=True)
    x = lib.randn(4, 3, dtype=dt)
    rec("same", dst(x) - src(x))
    # a whole meta module pickled
    buf = io.BytesIO()
    lib.save(nn.Linear(2, 2, device="meta", dtype=dt), buf)
    buf.seek(0)
    whole = lib.load(buf, weights_only=False)
    rec("whole", str((type(whole).__name__, _r(whole.weight))))


def p_deepcopy(lib, dt, rec):
    nn = lib.nn
    lib.manual_seed(0)
    model = nn.Sequential(nn.Linear(3, 4), nn.BatchNorm1d(4), nn.Linear(4, 2)).to(dt)
    model[0].weight.tag = "first"
    meta = copy.deepcopy(model).to("meta")
    rec("cpu_kept", model[0].weight)
    rec("meta", _r(meta[0].weight))
    rec("tag", str(getattr(meta[0].weight, "tag", None)))
    twin = copy.deepcopy(meta)
    rec(
        "twin",
        str([(n, str(p.device), p.requires_grad, p.is_leaf) for n, p in twin.named_parameters()]),
    )
    rec("twin_buf", _r(twin[1].running_var))
    rec("distinct", str(twin[0].weight is meta[0].weight))
    # tied weights stay tied through deepcopy and to_empty
    with lib.device("meta"):
        lm = nn.Sequential(nn.Embedding(10, 4), nn.Linear(4, 10, bias=False)).to(dt)
    lm[1].weight = lm[0].weight
    lm2 = copy.deepcopy(lm)
    rec("tied", str(lm2[1].weight is lm2[0].weight))
    rec("n_params", str(len(list(lm2.parameters()))))
    lm2.to_empty(device="cpu")
    rec("tied_after", str(lm2[1].weight is lm2[0].weight))
    lm2[1].weight = lm2[0].weight  # to_empty unties (new Parameters): tied again by hand
    lib.manual_seed(3)
    lm2[0].reset_parameters()
    rec("tied_vals", lm2[1].weight)
    # a meta tensor with a graph is not deep-copyable, a leaf is
    w = lib.empty(2, device="meta", requires_grad=True)
    rec.err("nonleaf", lambda: copy.deepcopy(w * 2))
    rec("leaf", _r(copy.deepcopy(w)))
    rec("copy", _r(copy.copy(lib.empty(2, device="meta"))))
