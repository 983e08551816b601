"""Session 27: Hugging-Face-style modeling code, written by hand the way transformers' modeling
files are written (config objects, ACT2FN maps, get_extended_attention_mask, position_ids buffers,
_init_weights through module.apply, tied embeddings, Conv1D, T5 relative buckets and RMS norm,
LLaMA rotary caches and repeat_kv, Whisper sinusoids, ViT patches, CLIP's contrastive loss) and
run under `import torch` and `import minitorch as torch` after the same manual_seed. Model-level
idioms too: return_dict-style outputs, output_attentions / output_hidden_states, gradient
checkpointing inside layers, -100 labels with shifted logits, num_items_in_batch, resizing token
embeddings, half / bfloat16 conversion, load_state_dict with strict=False and key renames,
parameter counting, torch.save / torch.load(weights_only=True).

Values to 1e-4 of their scale (float32), 1e-6 (float64: these models compute in float32 in
places), 3e-3 (float16), 2e-2 (bfloat16);
token ids, shapes, keys, dtypes, reprs and error messages exactly."""

from __future__ import annotations

import collections
import io
import math

import pytest

import minitorch
from tests.reference._programs import Rec, assert_records_match, run_program

torch = pytest.importorskip("torch")

TOL = {"float32": 1e-4, "float64": 1e-6, "bfloat16": 2e-2, "float16": 3e-3}
# records whose values cancel (a softmax's bias gradient through a float32 RMS norm): round-off
# of float32 against a small scale
LOOSE = {"g_bias": 1e-2}


class Config:
    """A PretrainedConfig-like bag of attributes."""

    def __init__(self, **kw):
        self.vocab_size = 23
        self.hidden_size = 16
        self.num_attention_heads = 4
        self.num_hidden_layers = 2
        self.intermediate_size = 32
        self.max_position_embeddings = 12
        self.type_vocab_size = 2
        self.layer_norm_eps = 1e-12
        self.hidden_act = "gelu"
        self.initializer_range = 0.02
        self.pad_token_id = 0
        self.output_attentions = False
        self.output_hidden_states = False
        self.use_return_dict = True
        self.scale_attn_by_inverse_layer_idx = False
        for k, v in kw.items():
            setattr(self, k, v)


def act2fn(lib):
    nn, F = lib.nn, lib.nn.functional

    class NewGELU(nn.Module):
        def forward(self, x):
            c = math.sqrt(2.0 / math.pi)
            return 0.5 * x * (1.0 + lib.tanh(c * (x + 0.044715 * lib.pow(x, 3.0))))

    class QuickGELU(nn.Module):
        def forward(self, x):
            return x * lib.sigmoid(1.702 * x)

    class GELUTanh(nn.Module):
        def forward(self, x):
            return F.gelu(x, approximate="tanh")

    class ClassInstantier(collections.OrderedDict):
        def __getitem__(self, key):
            content = super().__getitem__(key)
            cls, kwargs = content if isinstance(content, tuple) else (content, {})
            return cls(**kwargs)

    return ClassInstantier(
        gelu=nn.GELU,
        gelu_new=NewGELU,
        gelu_pytorch_tanh=GELUTanh,
        quick_gelu=QuickGELU,
        silu=nn.SiLU,
        swish=nn.SiLU,
        relu=nn.ReLU,
        relu6=nn.ReLU6,
        tanh=nn.Tanh,
        leaky_relu=(nn.LeakyReLU, {"negative_slope": 0.1}),
        mish=nn.Mish,
    )


def get_extended_attention_mask(lib, attention_mask, dtype, causal=False):
    if attention_mask.dim() == 3:
        ext = attention_mask[:, None, :, :]
    else:
        if causal:
            b, t = attention_mask.shape
            seq_ids = lib.arange(t)
            causal_mask = seq_ids[None, None, :].repeat(b, t, 1) <= seq_ids[None, :, None]
            causal_mask = causal_mask.to(attention_mask.dtype)
            ext = causal_mask[:, None, :, :] * attention_mask[:, None, None, :]
        else:
            ext = attention_mask[:, None, None, :]
    ext = ext.to(dtype=dtype)
    return (1.0 - ext) * lib.finfo(dtype).min


# --- programs: prog(lib, dt, rec) ---


def p_act(lib, dt, rec):
    lib.manual_seed(0)
    acts = act2fn(lib)
    x = lib.randn(3, 7, dtype=dt) * 3
    x[0, 0] = 0.0
    for name in list(acts.keys()):
        f = acts[name]
        y = f(x)
        rec(name, y)
        rec(name + ".dtype", str(y.dtype))
    rec("repr", repr(acts["leaky_relu"]))
    rec.err("missing", lambda: acts["geluu"])
    if dt != lib.float64:
        return
    xd = lib.randn(4, dtype=lib.float64, requires_grad=True)
    for name in ("gelu_new", "quick_gelu", "gelu_pytorch_tanh", "mish", "silu"):
        f = acts[name]
        rec("gc." + name, str(lib.autograd.gradcheck(f, (xd,))))
        rec("ggc." + name, str(lib.autograd.gradgradcheck(f, (xd,))))
        (g,) = lib.autograd.grad(f(xd).sum(), xd)
        rec("g." + name, g)


def p_masks(lib, dt, rec):
    am = lib.tensor([[1, 1, 1, 0], [0, 1, 1, 1]])
    e = get_extended_attention_mask(lib, am, dt)
    rec("ext", e)
    rec("ext.dtype", str(e.dtype))
    rec("ext.min", lib.tensor(lib.finfo(dt).min).to(lib.float64))
    ec = get_extended_attention_mask(lib, am, dt, causal=True)
    rec("ext_causal", ec)
    e3 = get_extended_attention_mask(lib, am[:, None, :].expand(2, 4, 4), dt)
    rec("ext3", e3)
    t = 4
    m = lib.full((t, t), lib.finfo(dt).min, dtype=dt).triu(1)
    rec("triu", m)
    rec.err("full_overflow", lambda: lib.full((t, t), lib.finfo(dt).min))
    m2 = lib.full((t, t), lib.finfo(dt).min, dtype=dt)
    mask_cond = lib.arange(m2.size(-1))
    m2.masked_fill_(mask_cond < (mask_cond + 1).view(m2.size(-1), 1), 0)
    rec("causal_fill", m2.to(dt))
    lib.manual_seed(1)
    s = lib.randn(2, 1, t, t, dtype=dt)
    bool_mask = lib.ones(t, t, dtype=lib.bool).tril().logical_not()
    s1 = s.masked_fill(bool_mask, lib.tensor(lib.finfo(s.dtype).min))
    rec("masked", s1)
    rec("masked.dtype", str(s1.dtype))
    p = lib.nn.functional.softmax(s1 + e, dim=-1, dtype=lib.float32).to(dt)
    rec("probs", p)
    # a row masked out entirely: finfo.min + finfo.min overflows to -inf in the sum
    full = lib.zeros(2, 4, dtype=lib.int64)
    ef = get_extended_attention_mask(lib, full, dt)
    s2 = s + ef + m
    rec("all_masked", s2)
    rec("all_masked.sm", lib.softmax(s2.float(), -1))
    inv = (1.0 - am[:, None, None, :].to(dt)).masked_fill(
        (1.0 - am[:, None, None, :].to(dt)).to(lib.bool), lib.finfo(dt).min
    )
    rec("inv", inv)
    # sdpa with the additive float mask and with a bool mask
    q = lib.randn(2, 2, t, 4, dtype=dt)
    o1 = lib.nn.functional.scaled_dot_product_attention(q, q, q, attn_mask=e + m)
    o2 = lib.nn.functional.scaled_dot_product_attention(q, q, q, is_causal=True)
    rec("sdpa_float", o1)
    rec("sdpa_causal", o2)


def bert_model(lib, cfg):
    nn = lib.nn
    acts = act2fn(lib)
    Out = collections.namedtuple(
        "BaseModelOutput", ["last_hidden_state", "pooler_output", "hidden_states", "attentions"]
    )

    class Embeddings(nn.Module):
        def __init__(self):
            super().__init__()
            self.word_embeddings = nn.Embedding(
                cfg.vocab_size, cfg.hidden_size, padding_idx=cfg.pad_token_id
            )
            self.position_embeddings = nn.Embedding(cfg.max_position_embeddings, cfg.hidden_size)
            self.token_type_embeddings = nn.Embedding(cfg.type_vocab_size, cfg.hidden_size)
            self.LayerNorm = nn.LayerNorm(cfg.hidden_size, eps=cfg.layer_norm_eps)
            self.dropout = nn.Dropout(0.1)
            self.register_buffer(
                "position_ids",
                lib.arange(cfg.max_position_embeddings).expand((1, -1)),
                persistent=False,
            )
            self.register_buffer(
                "token_type_ids",
                lib.zeros(self.position_ids.size(), dtype=lib.long),
                persistent=False,
            )

        def forward(self, input_ids, token_type_ids=None):
            seq_length = input_ids.size()[1]
            position_ids = self.position_ids[:, 0:seq_length]
            if token_type_ids is None:
                buffered = self.token_type_ids[:, :seq_length]
                token_type_ids = buffered.expand(input_ids.shape[0], seq_length)
            e = self.word_embeddings(input_ids) + self.token_type_embeddings(token_type_ids)
            e = e + self.position_embeddings(position_ids)
            return self.dropout(self.LayerNorm(e))

    class SelfAttention(nn.Module):
        def __init__(self):
            super().__init__()
            self.num_attention_heads = cfg.num_attention_heads
            self.attention_head_size = cfg.hidden_size // cfg.num_attention_heads
            self.all_head_size = self.num_attention_heads * self.attention_head_size
            self.query = nn.Linear(cfg.hidden_size, self.all_head_size)
            self.key = nn.Linear(cfg.hidden_size, self.all_head_size)
            self.value = nn.Linear(cfg.hidden_size, self.all_head_size)
            self.dropout = nn.Dropout(0.1)

        def transpose_for_scores(self, x):
            new_shape = x.size()[:-1] + (self.num_attention_heads, self.attention_head_size)
            return x.view(new_shape).permute(0, 2, 1, 3)

        def forward(self, h, mask, output_attentions):
            q = self.transpose_for_scores(self.query(h))
            k = self.transpose_for_scores(self.key(h))
            v = self.transpose_for_scores(self.value(h))
            scores = lib.matmul(q, k.transpose(-1, -2)) / math.sqrt(self.attention_head_size)
            scores = scores + mask
            probs = self.dropout(nn.functional.softmax(scores, dim=-1))
            ctx = lib.matmul(probs, v).permute(0, 2, 1, 3).contiguous()
            ctx = ctx.view(ctx.size()[:-2] + (self.all_head_size,))
            return (ctx, probs) if output_attentions else (ctx,)

    class Layer(nn.Module):
        def __init__(self):
            super().__init__()
            self.attention = SelfAttention()
            self.attn_out = nn.Linear(cfg.hidden_size, cfg.hidden_size)
            self.ln1 = nn.LayerNorm(cfg.hidden_size, eps=cfg.layer_norm_eps)
            self.intermediate = nn.Linear(cfg.hidden_size, cfg.intermediate_size)
            self.intermediate_act_fn = acts[cfg.hidden_act]
            self.output = nn.Linear(cfg.intermediate_size, cfg.hidden_size)
            self.ln2 = nn.LayerNorm(cfg.hidden_size, eps=cfg.layer_norm_eps)

        def forward(self, h, mask, output_attentions=False):
            a = self.attention(h, mask, output_attentions)
            h = self.ln1(self.attn_out(a[0]) + h)
            h = self.ln2(self.output(self.intermediate_act_fn(self.intermediate(h))) + h)
            return (h,) + a[1:]

    class BertModel(nn.Module):
        _no_split_modules = ["Layer"]
        base_model_prefix = "bert"

        def __init__(self):
            super().__init__()
            self.config = cfg
            self.embeddings = Embeddings()
            self.layer = nn.ModuleList([Layer() for _ in range(cfg.num_hidden_layers)])
            self.pooler = nn.Linear(cfg.hidden_size, cfg.hidden_size)
            self.gradient_checkpointing = False
            self.apply(self._init_weights)

        def _init_weights(self, module):
            if isinstance(module, nn.Linear):
                module.weight.data.normal_(mean=0.0, std=cfg.initializer_range)
                if module.bias is not None:
                    module.bias.data.zero_()
            elif isinstance(module, nn.Embedding):
                module.weight.data.normal_(mean=0.0, std=cfg.initializer_range)
                if module.padding_idx is not None:
                    module.weight.data[module.padding_idx].zero_()
            elif isinstance(module, nn.LayerNorm):
                module.bias.data.zero_()
                module.weight.data.fill_(1.0)

        @property
        def dtype(self):
            return next(self.parameters()).dtype

        def forward(
            self,
            input_ids,
            attention_mask=None,
            token_type_ids=None,
            output_attentions=None,
            output_hidden_states=None,
            return_dict=None,
        ):
            output_attentions = (
                output_attentions if output_attentions is not None else cfg.output_attentions
            )
            output_hidden_states = (
                output_hidden_states
                if output_hidden_states is not None
                else cfg.output_hidden_states
            )
            return_dict = return_dict if return_dict is not None else cfg.use_return_dict
            if attention_mask is None:
                attention_mask = lib.ones(input_ids.shape, device=input_ids.device)
            ext = get_extended_attention_mask(lib, attention_mask, self.dtype)
            h = self.embeddings(input_ids, token_type_ids)
            all_h = () if output_hidden_states else None
            all_a = () if output_attentions else None
            for layer in self.layer:
                if output_hidden_states:
                    all_h = all_h + (h,)
                if self.gradient_checkpointing and self.training:
                    outs = lib.utils.checkpoint.checkpoint(
                        layer.__call__, h, ext, output_attentions, use_reentrant=False
                    )
                else:
                    outs = layer(h, ext, output_attentions)
                h = outs[0]
                if output_attentions:
                    all_a = all_a + (outs[1],)
            if output_hidden_states:
                all_h = all_h + (h,)
            pooled = lib.tanh(self.pooler(h[:, 0]))
            if not return_dict:
                return tuple(v for v in [h, pooled, all_h, all_a] if v is not None)
            return Out(h, pooled, all_h, all_a)

    return BertModel()


def p_bert(lib, dt, rec):
    lib.manual_seed(2)
    cfg = Config(hidden_act="gelu_new")
    model = bert_model(lib, cfg).to(dt)
    rec("keys", str(list(model.state_dict().keys())))
    rec("buffers", str([n for n, _ in model.named_buffers()]))
    rec("pos_ids", model.embeddings.position_ids)
    rec("pos_ids.stride", str(model.embeddings.position_ids.stride()))
    rec("pad_row", model.embeddings.word_embeddings.weight[0])
    rec("ln_w", model.layer[0].ln1.weight)
    rec("emb", model.embeddings.word_embeddings.weight)
    rec("dtype", str(model.dtype))
    rec("no_split", str(getattr(model, "_no_split_modules", None)))
    ids = lib.randint(1, cfg.vocab_size, (2, 6))
    am = lib.tensor([[1, 1, 1, 1, 1, 1], [1, 1, 1, 1, 0, 0]])
    tt = lib.tensor([[0, 0, 0, 1, 1, 1], [0, 0, 1, 1, 1, 1]])
    model.eval()
    out = model(ids, attention_mask=am, output_attentions=True, output_hidden_states=True)
    rec("last", out.last_hidden_state)
    rec("pooled", out.pooler_output)
    rec("n_hidden", len(out.hidden_states))
    rec("att1", out.attentions[1])
    rec("fields", str(out._fields))
    tup = model(ids, attention_mask=am, token_type_ids=tt, return_dict=False)
    rec("tuple_len", len(tup))
    rec("tt_last", tup[0])
    model.train()
    model.gradient_checkpointing = True
    lib.manual_seed(3)
    o = model(ids, attention_mask=am)
    loss = o.last_hidden_state.pow(2).mean() + o.pooler_output.sum()
    loss.backward()
    rec("ckpt_loss", loss)
    rec.params("p", model, grads=True)


def gpt2_model(lib, cfg):
    nn = lib.nn
    acts = act2fn(lib)

    class Conv1D(nn.Module):
        def __init__(self, nf, nx):
            super().__init__()
            self.nf = nf
            self.weight = nn.Parameter(lib.empty(nx, nf))
            self.bias = nn.Parameter(lib.zeros(nf))
            nn.init.normal_(self.weight, std=0.02)

        def forward(self, x):
            size_out = x.size()[:-1] + (self.nf,)
            x = lib.addmm(self.bias, x.view(-1, x.size(-1)), self.weight)
            return x.view(size_out)

    class Attention(nn.Module):
        def __init__(self, layer_idx):
            super().__init__()
            n = cfg.max_position_embeddings
            self.register_buffer(
                "bias",
                lib.tril(lib.ones((n, n), dtype=lib.bool)).view(1, 1, n, n),
                persistent=False,
            )
            self.embed_dim = cfg.hidden_size
            self.num_heads = cfg.num_attention_heads
            self.head_dim = self.embed_dim // self.num_heads
            self.layer_idx = layer_idx
            self.c_attn = Conv1D(3 * self.embed_dim, self.embed_dim)
            self.c_proj = Conv1D(self.embed_dim, self.embed_dim)
            self.attn_dropout = nn.Dropout(0.1)

        def _split_heads(self, t):
            t = t.view(t.size()[:-1] + (self.num_heads, self.head_dim))
            return t.permute(0, 2, 1, 3)

        def _merge_heads(self, t):
            t = t.permute(0, 2, 1, 3).contiguous()
            return t.view(t.size()[:-2] + (self.num_heads * self.head_dim,))

        def _attn(self, q, k, v, attention_mask):
            w = lib.matmul(q, k.transpose(-1, -2))
            w = w / lib.full([], v.size(-1) ** 0.5, dtype=w.dtype, device=w.device)
            if cfg.scale_attn_by_inverse_layer_idx:
                w = w / float(self.layer_idx + 1)
            qlen, klen = q.size(-2), k.size(-2)
            causal = self.bias[:, :, klen - qlen : klen, :klen]
            mask_value = lib.finfo(w.dtype).min
            mask_value = lib.full([], mask_value, dtype=w.dtype, device=w.device)
            w = lib.where(causal, w.to(w.dtype), mask_value)
            if attention_mask is not None:
                w = w + attention_mask
            w = nn.functional.softmax(w, dim=-1)
            w = self.attn_dropout(w.type(v.dtype))
            return lib.matmul(w, v), w

        def forward(self, h, attention_mask=None, layer_past=None, use_cache=False):
            q, k, v = self.c_attn(h).split(self.embed_dim, dim=2)
            q, k, v = self._split_heads(q), self._split_heads(k), self._split_heads(v)
            if layer_past is not None:
                k = lib.cat((layer_past[0], k), dim=-2)
                v = lib.cat((layer_past[1], v), dim=-2)
            present = (k, v) if use_cache else None
            a, w = self._attn(q, k, v, attention_mask)
            return self.c_proj(self._merge_heads(a)), present, w

    class Block(nn.Module):
        def __init__(self, i):
            super().__init__()
            self.ln_1 = nn.LayerNorm(cfg.hidden_size, eps=1e-5)
            self.attn = Attention(i)
            self.ln_2 = nn.LayerNorm(cfg.hidden_size, eps=1e-5)
            self.mlp = nn.Sequential(
                Conv1D(cfg.intermediate_size, cfg.hidden_size),
                acts["gelu_new"],
                Conv1D(cfg.hidden_size, cfg.intermediate_size),
            )

        def forward(self, h, attention_mask=None, layer_past=None, use_cache=False):
            a, present, w = self.attn(self.ln_1(h), attention_mask, layer_past, use_cache)
            h = h + a
            h = h + self.mlp(self.ln_2(h))
            return h, present, w

    class GPT2LMHeadModel(nn.Module):
        _tied_weights_keys = ["lm_head.weight"]

        def __init__(self):
            super().__init__()
            self.wte = nn.Embedding(cfg.vocab_size, cfg.hidden_size)
            self.wpe = nn.Embedding(cfg.max_position_embeddings, cfg.hidden_size)
            self.h = nn.ModuleList([Block(i) for i in range(cfg.num_hidden_layers)])
            self.ln_f = nn.LayerNorm(cfg.hidden_size, eps=1e-5)
            self.lm_head = nn.Linear(cfg.hidden_size, cfg.vocab_size, bias=False)
            self.gradient_checkpointing = False
            self.apply(self._init_weights)
            self.tie_weights()

        def _init_weights(self, module):
            if isinstance(module, (nn.Linear, Conv1D)):
                module.weight.data.normal_(mean=0.0, std=cfg.initializer_range)
                if module.bias is not None:
                    module.bias.data.zero_()
            elif isinstance(module, nn.Embedding):
                module.weight.data.normal_(mean=0.0, std=cfg.initializer_range)
            elif isinstance(module, nn.LayerNorm):
                module.bias.data.zero_()
                module.weight.data.fill_(1.0)
            for name, p in module.named_parameters():
                if name == "c_proj.weight" or name == "2.weight":
                    p.data.normal_(mean=0.0, std=0.02 / math.sqrt(2 * cfg.num_hidden_layers))

        def tie_weights(self):
            self.lm_head.weight = self.wte.weight

        def get_input_embeddings(self):
            return self.wte

        def set_input_embeddings(self, e):
            self.wte = e

        def forward(self, input_ids, attention_mask=None, labels=None, past=None, **kwargs):
            B, T = input_ids.shape
            p0 = 0 if past is None else past[0][0].size(-2)
            position_ids = lib.arange(p0, p0 + T, dtype=lib.long).unsqueeze(0)
            h = self.wte(input_ids) + self.wpe(position_ids)
            if attention_mask is not None:
                attention_mask = attention_mask.view(B, -1)[:, None, None, :]
                attention_mask = attention_mask.to(dtype=h.dtype)
                attention_mask = (1.0 - attention_mask) * lib.finfo(h.dtype).min
            presents, attns = (), ()
            for i, block in enumerate(self.h):
                lp = None if past is None else past[i]
                if self.gradient_checkpointing and self.training:
                    h, pr, w = lib.utils.checkpoint.checkpoint(
                        block, h, attention_mask, lp, True, use_reentrant=False
                    )
                else:
                    h, pr, w = block(h, attention_mask, lp, True)
                presents = presents + (pr,)
                attns = attns + (w,)
            logits = self.lm_head(self.ln_f(h))
            loss = None
            if labels is not None:
                shift_logits = logits[..., :-1, :].contiguous()
                shift_labels = labels[..., 1:].contiguous()
                nib = kwargs.get("num_items_in_batch")
                reduction = "sum" if nib is not None else "mean"
                loss = nn.functional.cross_entropy(
                    shift_logits.view(-1, shift_logits.size(-1)).float(),
                    shift_labels.view(-1),
                    ignore_index=-100,
                    reduction=reduction,
                )
                if nib is not None:
                    if lib.is_tensor(nib):
                        nib = nib.to(loss.device)
                    loss = loss / nib
            return {"loss": loss, "logits": logits, "past_key_values": presents, "attn": attns}

    return GPT2LMHeadModel()


def p_gpt2(lib, dt, rec):
    lib.manual_seed(4)
    cfg = Config(scale_attn_by_inverse_layer_idx=True, vocab_size=19)
    model = gpt2_model(lib, cfg).to(dt)
    rec("tied", str(model.lm_head.weight is model.wte.weight))
    rec("n_named", len(list(model.named_parameters())))
    rec("n_named_dup", len(list(model.named_parameters(remove_duplicate=False))))
    rec("sd_keys", str(list(model.state_dict().keys())))
    rec("sd_same", str(model.state_dict()["lm_head.weight"].data_ptr()
                       == model.state_dict()["wte.weight"].data_ptr()))  # fmt: skip
    rec("num_params", sum(p.numel() for p in model.parameters()))
    emb_ids = {id(m.weight) for m in model.modules() if isinstance(m, lib.nn.Embedding)}
    rec("num_params_noemb", sum(p.numel() for p in model.parameters() if id(p) not in emb_ids))
    rec("c_proj", model.h[1].attn.c_proj.weight)
    ids = lib.randint(0, cfg.vocab_size, (2, 7))
    labels = ids.clone()
    labels[1, :3] = -100
    am = lib.ones(2, 7, dtype=lib.long)
    am[1, :2] = 0
    model.eval()
    out = model(ids, attention_mask=am, labels=labels)
    rec("loss", out["loss"])
    rec("logits", out["logits"])
    rec("attn0", out["attn"][0])
    nib = (labels[..., 1:] != -100).sum()
    out2 = model(ids, attention_mask=am, labels=labels, num_items_in_batch=nib)
    rec("loss_nib", out2["loss"])
    rec("nib", nib)
    # incremental decoding with the cache equals the full forward's last logits
    with lib.no_grad():
        o = model(ids[:, :5])
        o2 = model(ids[:, 5:6], past=o["past_key_values"])
        rec("cached_last", o2["logits"][:, -1])
        rec("full_last", model(ids[:, :6])["logits"][:, -1])
        rec("cache_shape", str(tuple(o2["past_key_values"][0][0].shape)))
    model.train()
    model.gradient_checkpointing = True
    lib.manual_seed(5)
    opt = lib.optim.AdamW(model.parameters(), lr=1e-2, weight_decay=0.1)
    for _ in range(2):
        out = model(ids, labels=labels)
        opt.zero_grad()
        out["loss"].backward()
        lib.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        rec("train_loss", out["loss"])
    rec("still_tied", str(model.lm_head.weight is model.wte.weight))
    rec("wte", model.wte.weight)


def p_t5(lib, dt, rec):
    nn = lib.nn
    lib.manual_seed(6)

    class T5LayerNorm(nn.Module):
        def __init__(self, hidden_size, eps=1e-6):
            super().__init__()
            self.weight = nn.Parameter(lib.ones(hidden_size))
            self.variance_epsilon = eps

        def forward(self, h):
            variance = h.to(lib.float32).pow(2).mean(-1, keepdim=True)
            h = h * lib.rsqrt(variance + self.variance_epsilon)
            if self.weight.dtype in [lib.float16, lib.bfloat16]:
                h = h.to(self.weight.dtype)
            return self.weight * h

    def relative_position_bucket(rel, bidirectional=True, num_buckets=8, max_distance=16):
        buckets = 0
        if bidirectional:
            num_buckets //= 2
            buckets += (rel > 0).to(lib.long) * num_buckets
            rel = lib.abs(rel)
        else:
            rel = -lib.min(rel, lib.zeros_like(rel))
        max_exact = num_buckets // 2
        is_small = rel < max_exact
        large = max_exact + (
            lib.log(rel.float() / max_exact)
            / math.log(max_distance / max_exact)
            * (num_buckets - max_exact)
        ).to(lib.long)
        large = lib.min(large, lib.full_like(large, num_buckets - 1))
        buckets += lib.where(is_small, rel, large)
        return buckets

    class T5Attention(nn.Module):
        def __init__(self, d, h, has_bias, bidirectional):
            super().__init__()
            self.n_heads, self.d_kv, self.bidirectional = h, d // h, bidirectional
            self.q = nn.Linear(d, d, bias=False)
            self.k = nn.Linear(d, d, bias=False)
            self.v = nn.Linear(d, d, bias=False)
            self.o = nn.Linear(d, d, bias=False)
            self.has_relative_attention_bias = has_bias
            if has_bias:
                self.relative_attention_bias = nn.Embedding(8, h)

        def compute_bias(self, qlen, klen):
            ctx = lib.arange(qlen, dtype=lib.long)[:, None]
            mem = lib.arange(klen, dtype=lib.long)[None, :]
            buckets = relative_position_bucket(mem - ctx, bidirectional=self.bidirectional)
            values = self.relative_attention_bias(buckets)
            return values.permute([2, 0, 1]).unsqueeze(0), buckets

        def forward(self, h, mask=None, position_bias=None):
            B, T, _ = h.shape

            def shape(s):
                return s.view(B, -1, self.n_heads, self.d_kv).transpose(1, 2)

            q, k, v = shape(self.q(h)), shape(self.k(h)), shape(self.v(h))
            scores = lib.matmul(q, k.transpose(3, 2))
            if position_bias is None:
                if self.has_relative_attention_bias:
                    position_bias, _ = self.compute_bias(T, T)
                else:
                    position_bias = lib.zeros(
                        (1, self.n_heads, T, T), dtype=scores.dtype, requires_grad=self.training
                    )
                if mask is not None:
                    position_bias = position_bias + mask
            scores += position_bias
            w = nn.functional.softmax(scores.float(), dim=-1).type_as(scores)
            a = lib.matmul(w, v).transpose(1, 2).contiguous().view(B, -1, self.n_heads * self.d_kv)
            return self.o(a), position_bias

    class T5DenseActDense(nn.Module):
        def __init__(self, d, ff):
            super().__init__()
            self.wi = nn.Linear(d, ff, bias=False)
            self.wo = nn.Linear(ff, d, bias=False)
            self.act = nn.ReLU()

        def forward(self, h):
            h = self.act(self.wi(h))
            if (
                isinstance(self.wo.weight, lib.Tensor)
                and h.dtype != self.wo.weight.dtype
                and self.wo.weight.dtype != lib.int8
            ):
                h = h.to(self.wo.weight.dtype)
            return self.wo(h)

    class Block(nn.Module):
        def __init__(self, i):
            super().__init__()
            self.ln1 = T5LayerNorm(16)
            self.attn = T5Attention(16, 4, i == 0, True)
            self.ln2 = T5LayerNorm(16)
            self.ff = T5DenseActDense(16, 32)

        def forward(self, h, mask, pb):
            a, pb = self.attn(self.ln1(h), mask, pb)
            h = h + a
            if h.dtype == lib.float16:
                clamp_value = lib.where(
                    lib.isinf(h).any(),
                    lib.finfo(h.dtype).max - 1000,
                    lib.finfo(h.dtype).max,
                )
                h = lib.clamp(h, min=-clamp_value, max=clamp_value)
            return h + self.ff(self.ln2(h)), pb

    rel = lib.arange(-20, 21)[None, :]
    rec("buckets_bi", relative_position_bucket(rel))
    rec("buckets_uni", relative_position_bucket(rel, bidirectional=False))
    emb = nn.Embedding(11, 16)
    blocks = nn.ModuleList([Block(i) for i in range(2)])
    final = T5LayerNorm(16)
    for m in blocks.modules():
        if isinstance(m, T5Attention):
            m.q.weight.data.normal_(mean=0.0, std=(16 * 4) ** -0.5)
            if m.has_relative_attention_bias:
                m.relative_attention_bias.weight.data.normal_(mean=0.0, std=16**-0.5)
    emb.to(dt), blocks.to(dt), final.to(dt)
    ids = lib.randint(0, 11, (2, 5))
    am = lib.tensor([[1, 1, 1, 1, 1], [1, 1, 1, 0, 0]])
    mask = get_extended_attention_mask(lib, am, dt)
    h = emb(ids)
    pb = None
    for b in blocks:
        h, pb = b(h, mask, pb)
    out = final(h)
    rec("pb", pb)
    rec("out", out)
    rec("out.dtype", str(out.dtype))
    if dt in (lib.float32, lib.float64):
        out.pow(2).sum().backward()
        rec("g_bias", blocks[0].attn.relative_attention_bias.weight.grad)
        rec("g_ln", final.weight.grad)


def p_llama(lib, dt, rec):
    nn, F = lib.nn, lib.nn.functional
    lib.manual_seed(7)
    H, KV, hd, C = 4, 2, 4, 16

    class RotaryEmbedding(nn.Module):
        def __init__(self, dim, base=10000.0):
            super().__init__()
            inv_freq = 1.0 / (base ** (lib.arange(0, dim, 2, dtype=lib.int64).float() / dim))
            self.register_buffer("inv_freq", inv_freq, persistent=False)
            self.original_inv_freq = self.inv_freq
            self.attention_scaling = 1.0

        @lib.no_grad()
        def forward(self, x, position_ids):
            inv = self.inv_freq[None, :, None].float().expand(position_ids.shape[0], -1, 1)
            pos = position_ids[:, None, :].float()
            with lib.autocast(device_type="cpu", enabled=False):
                freqs = (inv.float() @ pos.float()).transpose(1, 2)
                emb = lib.cat((freqs, freqs), dim=-1)
                cos = emb.cos() * self.attention_scaling
                sin = emb.sin() * self.attention_scaling
            return cos.to(dtype=x.dtype), sin.to(dtype=x.dtype)

    def rotate_half(x):
        x1 = x[..., : x.shape[-1] // 2]
        x2 = x[..., x.shape[-1] // 2 :]
        return lib.cat((-x2, x1), dim=-1)

    def apply_rotary_pos_emb(q, k, cos, sin, unsqueeze_dim=1):
        cos, sin = cos.unsqueeze(unsqueeze_dim), sin.unsqueeze(unsqueeze_dim)
        return (q * cos) + (rotate_half(q) * sin), (k * cos) + (rotate_half(k) * sin)

    def repeat_kv(h, n_rep):
        b, kvh, slen, d = h.shape
        if n_rep == 1:
            return h
        h = h[:, :, None, :, :].expand(b, kvh, n_rep, slen, d)
        return h.reshape(b, kvh * n_rep, slen, d)

    class RMSNorm(nn.Module):
        def __init__(self, n, eps=1e-6):
            super().__init__()
            self.weight = nn.Parameter(lib.ones(n))
            self.variance_epsilon = eps

        def forward(self, h):
            input_dtype = h.dtype
            h = h.to(lib.float32)
            variance = h.pow(2).mean(-1, keepdim=True)
            h = h * lib.rsqrt(variance + self.variance_epsilon)
            return self.weight * h.to(input_dtype)

        def extra_repr(self):
            return f"{tuple(self.weight.shape)}, eps={self.variance_epsilon}"

    class Attn(nn.Module):
        def __init__(self):
            super().__init__()
            self.scaling = hd**-0.5
            self.q_proj = nn.Linear(C, H * hd, bias=False)
            self.k_proj = nn.Linear(C, KV * hd, bias=False)
            self.v_proj = nn.Linear(C, KV * hd, bias=False)
            self.o_proj = nn.Linear(H * hd, C, bias=False)

        def forward(self, h, cos, sin, mask):
            input_shape = h.shape[:-1]
            hidden_shape = (*input_shape, -1, hd)
            q = self.q_proj(h).view(hidden_shape).transpose(1, 2)
            k = self.k_proj(h).view(hidden_shape).transpose(1, 2)
            v = self.v_proj(h).view(hidden_shape).transpose(1, 2)
            q, k = apply_rotary_pos_emb(q, k, cos, sin)
            k, v = repeat_kv(k, H // KV), repeat_kv(v, H // KV)
            w = lib.matmul(q, k.transpose(2, 3)) * self.scaling
            w = w + mask[:, :, :, : k.shape[-2]]
            w = F.softmax(w, dim=-1, dtype=lib.float32).to(q.dtype)
            a = lib.matmul(w, v).transpose(1, 2).contiguous()
            a = a.reshape(*input_shape, -1).contiguous()
            return self.o_proj(a), w

    class MLP(nn.Module):
        def __init__(self):
            super().__init__()
            self.gate_proj = nn.Linear(C, 2 * C, bias=False)
            self.up_proj = nn.Linear(C, 2 * C, bias=False)
            self.down_proj = nn.Linear(2 * C, C, bias=False)
            self.act_fn = act2fn(lib)["silu"]

        def forward(self, x):
            return self.down_proj(self.act_fn(self.gate_proj(x)) * self.up_proj(x))

    class Layer(nn.Module):
        def __init__(self):
            super().__init__()
            self.self_attn = Attn()
            self.mlp = MLP()
            self.input_layernorm = RMSNorm(C)
            self.post_attention_layernorm = RMSNorm(C)

        def forward(self, h, cos, sin, mask):
            a, w = self.self_attn(self.input_layernorm(h), cos, sin, mask)
            h = h + a
            return h + self.mlp(self.post_attention_layernorm(h)), w

    class Llama(nn.Module):
        def __init__(self):
            super().__init__()
            self.embed_tokens = nn.Embedding(29, C, padding_idx=0)
            self.layers = nn.ModuleList([Layer() for _ in range(2)])
            self.norm = RMSNorm(C)
            self.rotary_emb = RotaryEmbedding(hd)
            self.lm_head = nn.Linear(C, 29, bias=False)
            for m in self.modules():
                if isinstance(m, nn.Linear):
                    m.weight.data.normal_(mean=0.0, std=0.02)
                elif isinstance(m, nn.Embedding):
                    m.weight.data.normal_(mean=0.0, std=0.02)
                    m.weight.data[m.padding_idx].zero_()

        def forward(self, ids, attention_mask):
            h = self.embed_tokens(ids)
            B, T = ids.shape
            position_ids = (attention_mask.long().cumsum(-1) - 1).clamp(min=0)
            cos, sin = self.rotary_emb(h, position_ids)
            min_dtype = lib.finfo(h.dtype).min
            causal = lib.full((T, T), fill_value=min_dtype, dtype=h.dtype)
            causal = lib.triu(causal, diagonal=1)
            causal = causal[None, None, :, :].expand(B, 1, -1, -1).clone()
            padding = causal[:, :, :, :T] + attention_mask[:, None, None, :].to(h.dtype)
            padding = padding == 0
            causal[:, :, :, :T] = causal[:, :, :, :T].masked_fill(padding, min_dtype)
            ws = []
            for layer in self.layers:
                h, w = layer(h, cos, sin, causal)
                ws.append(w)
            return self.lm_head(self.norm(h)), ws, cos, causal

    model = Llama()
    rec("repr_norm", repr(model.norm))
    rec("inv_freq.dtype", str(model.rotary_emb.inv_freq.dtype))
    model = model.to(dt)
    rec("inv_freq.dtype_after", str(model.rotary_emb.inv_freq.dtype))
    rec("param_dtype", str(next(model.parameters()).dtype))
    ids = lib.randint(1, 29, (2, 6))
    am = lib.tensor([[0, 0, 1, 1, 1, 1], [1, 1, 1, 1, 1, 1]])
    ids[0, :2] = 0
    logits, ws, cos, causal = model(ids, am)
    rec("cos", cos)
    rec("cos.dtype", str(cos.dtype))
    rec("causal", causal)
    rec("w1", ws[1])
    rec("logits", logits)
    rec("argmax", logits.argmax(-1))
    labels = ids.masked_fill(am == 0, -100)
    loss = F.cross_entropy(logits[:, :-1].reshape(-1, 29).float(), labels[:, 1:].reshape(-1))
    rec("loss", loss)
    loss.backward()
    rec("g_embed", model.embed_tokens.weight.grad)
    rec("g_q", model.layers[0].self_attn.q_proj.weight.grad)


def p_whisper(lib, dt, rec):
    nn, F = lib.nn, lib.nn.functional
    lib.manual_seed(8)

    def sinusoids(length, channels, max_timescale=10000):
        log_timescale_increment = math.log(max_timescale) / (channels // 2 - 1)
        inv_timescales = lib.exp(-log_timescale_increment * lib.arange(channels // 2))
        scaled_time = lib.arange(length).view(-1, 1) * inv_timescales.view(1, -1)
        return lib.cat([scaled_time.sin(), scaled_time.cos()], dim=1)

    class Encoder(nn.Module):
        def __init__(self, n_mels=6, d=16, n_ctx=5):
            super().__init__()
            self.conv1 = nn.Conv1d(n_mels, d, kernel_size=3, padding=1)
            self.conv2 = nn.Conv1d(d, d, kernel_size=3, stride=2, padding=1)
            self.embed_positions = nn.Embedding(n_ctx, d)
            self.embed_positions.requires_grad_(False)
            with lib.no_grad():
                self.embed_positions.weight.copy_(sinusoids(n_ctx, d))
            self.attn = nn.MultiheadAttention(d, 4, batch_first=True)
            self.ln = nn.LayerNorm(d)
            self.fc1 = nn.Linear(d, 32)
            self.fc2 = nn.Linear(32, d)

        def forward(self, x):
            x = F.gelu(self.conv1(x))
            x = F.gelu(self.conv2(x))
            x = x.permute(0, 2, 1)
            x = (x + self.embed_positions.weight).to(x.dtype)
            h = self.ln(x)
            a, w = self.attn(h, h, h, need_weights=True, average_attn_weights=False)
            x = x + a
            return x + self.fc2(F.gelu(self.fc1(self.ln(x)))), w

    rec("sin", sinusoids(7, 8))
    rec("sin.dtype", str(sinusoids(7, 8).dtype))
    enc = Encoder().to(dt)
    rec("trainable", sum(p.numel() for p in enc.parameters() if p.requires_grad))
    rec("pos_rg", str(enc.embed_positions.weight.requires_grad))
    feats = lib.randn(2, 6, 10, dtype=dt)
    out, w = enc(feats)
    rec("out", out)
    rec("w", w)
    # decoder-style causal mask from torch.full(...).triu_(1) and a sdpa call
    t = 4
    mask = lib.empty(t, t, dtype=dt).fill_(-float("inf")).triu_(1)
    rec("mask", mask)
    q = lib.randn(2, 4, t, 4, dtype=dt)
    o = F.scaled_dot_product_attention(q, q, q, attn_mask=mask)
    rec("sdpa", o)
    if dt in (lib.float32, lib.float64):
        out.sum().backward()
        rec("g_conv1", enc.conv1.weight.grad)
        rec("g_pos", str(enc.embed_positions.weight.grad))


def p_vit(lib, dt, rec):
    nn, F = lib.nn, lib.nn.functional
    lib.manual_seed(9)

    class PatchEmbeddings(nn.Module):
        def __init__(self, image_size=8, patch_size=4, num_channels=3, hidden_size=16):
            super().__init__()
            self.image_size = (image_size, image_size)
            self.patch_size = (patch_size, patch_size)
            self.num_patches = (image_size // patch_size) ** 2
            self.num_channels = num_channels
            self.projection = nn.Conv2d(
                num_channels, hidden_size, kernel_size=patch_size, stride=patch_size
            )

        def forward(self, pixel_values, interpolate_pos_encoding=False):
            _b, c, h, w = pixel_values.shape
            if c != self.num_channels:
                raise ValueError(
                    "Make sure that the channel dimension of the pixel values match with the one "
                    "set in the configuration."
                )
            if not interpolate_pos_encoding and (h, w) != self.image_size:
                raise ValueError(f"Input image size ({h}*{w}) doesn't match model.")
            return self.projection(pixel_values).flatten(2).transpose(1, 2)

    class Embeddings(nn.Module):
        def __init__(self):
            super().__init__()
            self.cls_token = nn.Parameter(lib.randn(1, 1, 16))
            self.patch_embeddings = PatchEmbeddings()
            self.position_embeddings = nn.Parameter(lib.randn(1, 5, 16))
            self.patch_size = 4

        def interpolate_pos_encoding(self, emb, height, width):
            num_patches = emb.shape[1] - 1
            class_pos = self.position_embeddings[:, :1]
            patch_pos = self.position_embeddings[:, 1:]
            dim = emb.shape[-1]
            nh, nw = height // self.patch_size, width // self.patch_size
            sqrt_n = int(num_patches**0.5) if num_patches != 4 else 2
            sqrt_n = int(math.sqrt(self.position_embeddings.shape[1] - 1))
            patch_pos = patch_pos.reshape(1, sqrt_n, sqrt_n, dim).permute(0, 3, 1, 2)
            patch_pos = F.interpolate(patch_pos, size=(nh, nw), mode="bicubic", align_corners=False)
            patch_pos = patch_pos.permute(0, 2, 3, 1).view(1, -1, dim)
            return lib.cat((class_pos, patch_pos), dim=1)

        def forward(self, px, interpolate=False):
            b, _, h, w = px.shape
            emb = self.patch_embeddings(px, interpolate_pos_encoding=interpolate)
            cls = self.cls_token.expand(b, -1, -1)
            emb = lib.cat((cls, emb), dim=1)
            if interpolate:
                return emb + self.interpolate_pos_encoding(emb, h, w)
            return emb + self.position_embeddings

    class ViT(nn.Module):
        def __init__(self):
            super().__init__()
            self.embeddings = Embeddings()
            layer = nn.TransformerEncoderLayer(
                16, 4, 32, dropout=0.0, activation="gelu", batch_first=True, norm_first=True
            )
            self.encoder = nn.TransformerEncoder(layer, 2, enable_nested_tensor=False)
            self.layernorm = nn.LayerNorm(16, eps=1e-12)
            self.classifier = nn.Linear(16, 3)
            self.apply(self._init_weights)

        def _init_weights(self, module):
            if isinstance(module, (nn.Linear, nn.Conv2d)):
                module.weight.data = nn.init.trunc_normal_(
                    module.weight.data.to(lib.float32), mean=0.0, std=0.02
                ).to(module.weight.dtype)
                if module.bias is not None:
                    module.bias.data.zero_()
            elif isinstance(module, nn.LayerNorm):
                module.bias.data.zero_()
                module.weight.data.fill_(1.0)
            elif isinstance(module, Embeddings):
                module.position_embeddings.data = nn.init.trunc_normal_(
                    module.position_embeddings.data.to(lib.float32), mean=0.0, std=0.02
                ).to(module.position_embeddings.dtype)
                module.cls_token.data = nn.init.trunc_normal_(
                    module.cls_token.data.to(lib.float32), mean=0.0, std=0.02
                ).to(module.cls_token.dtype)

        def forward(self, px, labels=None, interpolate=False):
            h = self.encoder(self.embeddings(px, interpolate))
            logits = self.classifier(self.layernorm(h)[:, 0, :])
            loss = None if labels is None else F.cross_entropy(logits, labels)
            return logits, loss

    model = ViT().to(dt)
    rec("cls", model.embeddings.cls_token)
    rec("proj", model.embeddings.patch_embeddings.projection.weight)
    px = lib.randn(2, 3, 8, 8, dtype=dt)
    logits, loss = model(px, labels=lib.tensor([0, 2]))
    rec("logits", logits)
    rec("loss", loss)
    rec.err("bad_ch", lambda: model(px[:, :2]))
    rec.err("bad_size", lambda: model(lib.randn(1, 3, 12, 12, dtype=dt)))
    if dt != lib.float16:
        big, _ = model(lib.randn(1, 3, 12, 12, dtype=dt), interpolate=True)
        rec("interp", big)
    if dt in (lib.float32, lib.float64):
        loss.backward()
        rec("g_cls", model.embeddings.cls_token.grad)
        rec("g_pos", model.embeddings.position_embeddings.grad)


def p_clip(lib, dt, rec):
    nn, F = lib.nn, lib.nn.functional
    lib.manual_seed(10)
    acts = act2fn(lib)

    def contrastive_loss(logits):
        return F.cross_entropy(logits, lib.arange(len(logits), device=logits.device))

    def clip_loss(similarity):
        return (contrastive_loss(similarity) + contrastive_loss(similarity.t())) / 2.0

    class TextTower(nn.Module):
        def __init__(self):
            super().__init__()
            self.token_embedding = nn.Embedding(13, 16)
            self.position_embedding = nn.Embedding(6, 16)
            self.register_buffer("position_ids", lib.arange(6).expand((1, -1)), persistent=False)
            self.fc1 = nn.Linear(16, 32)
            self.act = acts["quick_gelu"]
            self.fc2 = nn.Linear(32, 16)
            self.final_layer_norm = nn.LayerNorm(16)

        def forward(self, ids):
            T = ids.shape[-1]
            h = self.token_embedding(ids) + self.position_embedding(self.position_ids[:, :T])
            h = h + self.fc2(self.act(self.fc1(h)))
            h = self.final_layer_norm(h)
            eos = ids.to(dtype=lib.int, device=h.device).argmax(dim=-1)
            return h[lib.arange(h.shape[0], device=h.device), eos]

    class CLIP(nn.Module):
        def __init__(self):
            super().__init__()
            self.text = TextTower()
            self.vision = nn.Sequential(nn.Flatten(), nn.Linear(12, 16), acts["quick_gelu"])
            self.visual_projection = nn.Linear(16, 8, bias=False)
            self.text_projection = nn.Linear(16, 8, bias=False)
            self.logit_scale = nn.Parameter(lib.tensor(2.6592))

        def forward(self, ids, px, return_loss=True):
            image_embeds = self.visual_projection(self.vision(px))
            text_embeds = self.text_projection(self.text(ids))
            image_embeds = image_embeds / image_embeds.norm(p=2, dim=-1, keepdim=True)
            text_embeds = text_embeds / text_embeds.norm(p=2, dim=-1, keepdim=True)
            logits_per_text = lib.matmul(
                text_embeds, image_embeds.t().to(text_embeds.device)
            ) * self.logit_scale.exp().to(text_embeds.device)
            logits_per_image = logits_per_text.t()
            loss = clip_loss(logits_per_text) if return_loss else None
            return {"loss": loss, "logits_per_image": logits_per_image}

    model = CLIP().to(dt)
    rec("scale", model.logit_scale)
    rec("scale.dtype", str(model.logit_scale.dtype))
    ids = lib.randint(1, 12, (4, 6))
    ids[:, -1] = 12
    ids[1, 3] = 12
    px = lib.randn(4, 3, 2, 2, dtype=dt)
    opt = lib.optim.AdamW(model.parameters(), lr=1e-2)
    for _ in range(3):
        out = model(ids, px)
        opt.zero_grad()
        out["loss"].backward()
        opt.step()
        with lib.no_grad():
            model.logit_scale.clamp_(0, math.log(100))
        rec("loss", out["loss"])
    rec("lpi", out["logits_per_image"])
    rec("scale_after", model.logit_scale)
    probs = out["logits_per_image"].softmax(dim=1)
    rec("probs", probs)


def p_state(lib, dt, rec):
    nn = lib.nn
    lib.manual_seed(11)
    cfg = Config(num_hidden_layers=1)
    model = gpt2_model(lib, cfg).to(dt)
    sd = model.state_dict()
    rec("sd_dtypes", str(sorted({str(v.dtype) for v in sd.values()})))
    # old-style checkpoint: renamed keys (gamma/beta), an extra key, a missing key
    old = {}
    for k, v in sd.items():
        k2 = k.replace("ln_f.weight", "ln_f.gamma").replace("ln_f.bias", "ln_f.beta")
        old["transformer." + k2] = v.clone() * 2
    old["transformer.h.0.attn.masked_bias"] = lib.tensor(-1e4)
    del old["transformer.lm_head.weight"]

    def rename(sd_in, prefix):
        new = {}
        for k, v in sd_in.items():
            if k.startswith(prefix):
                k = k[len(prefix) :]
            if "gamma" in k:
                k = k.replace("gamma", "weight")
            if "beta" in k:
                k = k.replace("beta", "bias")
            new[k] = v
        return new

    fresh = gpt2_model(lib, cfg).to(dt)
    r = fresh.load_state_dict(old, strict=False)
    rec("missing_raw", str(sorted(r.missing_keys)))
    rec("unexpected_raw", str(sorted(r.unexpected_keys)))
    r2 = fresh.load_state_dict(rename(old, "transformer."), strict=False)
    rec("missing", str(r2.missing_keys))
    rec("unexpected", str(r2.unexpected_keys))
    rec("repr_r2", repr(r2))
    rec("loaded", fresh.ln_f.weight)
    rec("tied_after_load", str(fresh.lm_head.weight is fresh.wte.weight))
    rec.err("strict_err", lambda: fresh.load_state_dict(old))
    bad = dict(sd)
    bad["wpe.weight"] = lib.zeros(3, 3, dtype=dt)
    rec.err("shape_err", lambda: fresh.load_state_dict(bad))
    # save / load round trip, weights_only
    buf = io.BytesIO()
    lib.save(model.state_dict(), buf)
    buf.seek(0)
    loaded = lib.load(buf, weights_only=True)
    rec("loaded_keys", str(list(loaded.keys())))
    rec("loaded_type", type(loaded).__name__)
    shared = loaded["wte.weight"].data_ptr() == loaded["lm_head.weight"].data_ptr()
    rec("loaded_shared", str(shared))
    third = gpt2_model(lib, cfg).to(dt)
    rec("strict_ok", str(third.load_state_dict(loaded)))
    ids = lib.tensor([[1, 2, 3, 4]])
    rec("same_out", third.eval()(ids)["logits"] - model.eval()(ids)["logits"])
    # get_parameter_dtype / num_parameters(exclude_embeddings) / no_split attribute
    rec("pdtype", str(next(model.parameters()).dtype))

    def num_parameters(m, only_trainable=False, exclude_embeddings=False):
        if exclude_embeddings:
            emb = [f"{n}.weight" for n, t in m.named_modules() if isinstance(t, nn.Embedding)]
            total = [p for n, p in m.named_parameters() if n not in emb]
        else:
            total = list(m.parameters())
        return sum(p.numel() for p in total if p.requires_grad or not only_trainable)

    rec("np", num_parameters(model))
    rec("np_noemb", num_parameters(model, exclude_embeddings=True))
    model.wpe.weight.requires_grad_(False)
    rec("np_train", num_parameters(model, only_trainable=True))
    rec("no_split", str(getattr(model, "_no_split_modules", None)))
    rec("tied_keys", str(type(model)._tied_weights_keys))
    # float16 conversion: half() / .to(bfloat16), with a buffer that stays bool
    m16 = model.half()
    rec("half_dtypes", str(sorted({str(p.dtype) for p in m16.parameters()})))
    rec("bias_buf", str(m16.h[0].attn.bias.dtype))
    rec("half_out", m16(ids)["logits"])
    mb = model.to(lib.bfloat16)
    rec("bf_out", mb(ids)["logits"])
    rec("bf_sd", str(sorted({str(v.dtype) for v in mb.state_dict().values()})))


def p_resize(lib, dt, rec):
    nn = lib.nn
    lib.manual_seed(12)
    cfg = Config(num_hidden_layers=1)
    model = gpt2_model(lib, cfg).to(dt)
    old = model.get_input_embeddings()

    def resize_token_embeddings(m, new_num_tokens, pad_to_multiple_of=None):
        old_e = m.get_input_embeddings()
        if pad_to_multiple_of is not None:
            new_num_tokens = ((new_num_tokens + pad_to_multiple_of - 1) // pad_to_multiple_of) * (
                pad_to_multiple_of
            )
        old_n, old_dim = old_e.weight.size()
        new_e = nn.Embedding(
            new_num_tokens,
            old_dim,
            device=old_e.weight.device,
            dtype=old_e.weight.dtype,
        )
        new_e.weight.data.normal_(mean=0.0, std=0.02)
        # mean-resizing: new rows drawn around the old mean
        mean = old_e.weight.data.to(lib.float32).mean(dim=0)
        n = min(old_n, new_num_tokens)
        with lib.no_grad():
            new_e.weight.data[:n, :] = old_e.weight.data[:n, :]
            if new_num_tokens > old_n:
                new_e.weight.data[old_n:, :] = mean.to(old_e.weight.dtype)[None, :].expand(
                    new_num_tokens - old_n, -1
                )
        m.set_input_embeddings(new_e)
        old_head = m.lm_head
        new_head = nn.Linear(old_dim, new_num_tokens, bias=False, dtype=old_head.weight.dtype)
        m.lm_head = new_head
        m.tie_weights()
        m.config_vocab = new_num_tokens
        return new_e

    new = resize_token_embeddings(model, 27, pad_to_multiple_of=8)
    rec("new_shape", str(tuple(new.weight.shape)))
    rec("kept", new.weight[: old.num_embeddings] - old.weight)
    rec("new_rows", new.weight[old.num_embeddings :])
    rec("tied", str(model.lm_head.weight is model.wte.weight))
    rec("repr", repr(model.wte))
    ids = lib.tensor([[1, 25, 30, 2]])
    out = model(ids, labels=ids)
    rec("logits_shape", str(tuple(out["logits"].shape)))
    rec("loss", out["loss"])
    shrink = resize_token_embeddings(model, 10)
    rec("shrunk", shrink.weight)
    rec.err("oob", lambda: model(ids))
    # a requires_grad leaf's rows assigned outside no_grad
    e = nn.Embedding(4, 3).to(dt)
    rec.err("inplace_leaf", lambda: e.weight.__setitem__(0, 1.0))


def p_loss_idioms(lib, dt, rec):
    nn, F = lib.nn, lib.nn.functional
    lib.manual_seed(13)
    V = 11
    logits = lib.randn(3, 6, V, dtype=dt, requires_grad=True)
    labels = lib.randint(0, V, (3, 6))
    labels[0, 4:] = -100
    labels[2, :] = -100
    # ForCausalLMLoss style: pad the labels, then shift
    padded = nn.functional.pad(labels, (0, 1), value=-100)
    shift_labels = padded[..., 1:].contiguous()
    lg = logits.float().view(-1, V)
    sl = shift_labels.view(-1).to(lg.device)
    loss_sum = F.cross_entropy(lg, sl, ignore_index=-100, reduction="sum")
    nib = lib.tensor((sl != -100).sum().item())
    rec("nib", nib)
    rec("loss_nib", loss_sum / nib)
    loss_mean = nn.CrossEntropyLoss()(
        logits[..., :-1, :].contiguous().view(-1, V), labels[..., 1:].contiguous().view(-1)
    )
    rec("loss_mean", loss_mean)
    rec("same", (loss_sum / nib - loss_mean).abs() < 1e-3)
    # all targets ignored -> nan under mean, 0 under sum
    rec("all_ign", F.cross_entropy(lg[:2], lib.full((2,), -100), reduction="mean"))
    rec("all_ign_sum", F.cross_entropy(lg[:2], lib.full((2,), -100), reduction="sum"))
    loss_mean.backward()
    rec("g", logits.grad)
    # masked LM: only 15% positions, label smoothing, and a BCE head
    mlm = F.cross_entropy(
        logits.view(-1, V), labels.view(-1), ignore_index=-100, label_smoothing=0.1
    )
    rec("mlm_ls", mlm)
    nsp = nn.BCEWithLogitsLoss()(logits[:, 0, :2], lib.tensor([[1.0, 0.0]] * 3, dtype=dt))
    rec("nsp", nsp)
    # sequence classification: regression / single-label / multi-label dispatch by dtype
    lbl = lib.tensor([1, 0, 2])
    problem = (
        "regression" if V == 1 else
        "single_label_classification" if lbl.dtype in (lib.long, lib.int) else
        "multi_label_classification"
    )  # fmt: skip
    rec("problem", problem)
    # token accuracy ignoring -100
    preds = logits.argmax(-1)
    mask = labels != -100
    rec("acc", (preds[mask] == labels[mask]).float().mean())
    # z-loss and logsumexp in float32
    rec("z", lib.logsumexp(logits.float(), dim=-1).pow(2).mean())


def p_bart(lib, dt, rec):
    nn, F = lib.nn, lib.nn.functional
    lib.manual_seed(14)
    V, D, H, pad, start = 17, 16, 4, 1, 2

    def shift_tokens_right(input_ids, pad_token_id, decoder_start_token_id):
        shifted = input_ids.new_zeros(input_ids.shape)
        shifted[:, 1:] = input_ids[:, :-1].clone()
        shifted[:, 0] = decoder_start_token_id
        shifted.masked_fill_(shifted == -100, pad_token_id)
        return shifted

    class LearnedPositionalEmbedding(nn.Embedding):
        def __init__(self, num_embeddings, embedding_dim):
            self.offset = 2
            super().__init__(num_embeddings + self.offset, embedding_dim)

        def forward(self, input_ids, past_key_values_length=0):
            bsz, seq_len = input_ids.shape[:2]
            positions = lib.arange(
                past_key_values_length,
                past_key_values_length + seq_len,
                dtype=lib.long,
                device=self.weight.device,
            ).expand(bsz, -1)
            return super().forward(positions + self.offset)

    def expand_mask(mask, dtype, tgt_len=None):
        bsz, src_len = mask.size()
        tgt_len = tgt_len if tgt_len is not None else src_len
        expanded = mask[:, None, None, :].expand(bsz, 1, tgt_len, src_len).to(dtype)
        inverted = 1.0 - expanded
        return inverted.masked_fill(inverted.to(lib.bool), lib.finfo(dtype).min)

    def make_causal_mask(shape, dtype):
        bsz, tgt_len = shape
        mask = lib.full((tgt_len, tgt_len), lib.finfo(dtype).min, dtype=dtype)
        cond = lib.arange(mask.size(-1))
        mask.masked_fill_(cond < (cond + 1).view(mask.size(-1), 1), 0)
        mask = mask.to(dtype)
        return mask[None, None, :, :].expand(bsz, 1, tgt_len, tgt_len)

    class Attention(nn.Module):
        def __init__(self):
            super().__init__()
            self.head_dim = D // H
            self.scaling = self.head_dim**-0.5
            self.k_proj, self.v_proj = nn.Linear(D, D), nn.Linear(D, D)
            self.q_proj, self.out_proj = nn.Linear(D, D), nn.Linear(D, D)

        def _shape(self, t, seq_len, bsz):
            return t.view(bsz, seq_len, H, self.head_dim).transpose(1, 2).contiguous()

        def forward(self, h, kv=None, mask=None):
            bsz, tgt_len, _ = h.size()
            q = self.q_proj(h) * self.scaling
            src = h if kv is None else kv
            k = self._shape(self.k_proj(src), -1, bsz)
            v = self._shape(self.v_proj(src), -1, bsz)
            proj_shape = (bsz * H, -1, self.head_dim)
            q = self._shape(q, tgt_len, bsz).view(*proj_shape)
            k, v = k.reshape(*proj_shape), v.reshape(*proj_shape)
            src_len = k.size(1)
            w = lib.bmm(q, k.transpose(1, 2))
            if w.size() != (bsz * H, tgt_len, src_len):
                raise ValueError("bad attention weights size")
            if mask is not None:
                w = w.view(bsz, H, tgt_len, src_len) + mask
                w = w.view(bsz * H, tgt_len, src_len)
            w = F.softmax(w, dim=-1)
            a = lib.bmm(F.dropout(w, p=0.1, training=self.training), v)
            a = a.view(bsz, H, tgt_len, self.head_dim).transpose(1, 2).reshape(bsz, tgt_len, D)
            return self.out_proj(a), w.view(bsz, H, tgt_len, src_len)

    class DecoderLayer(nn.Module):
        def __init__(self):
            super().__init__()
            self.self_attn, self.encoder_attn = Attention(), Attention()
            self.ln1, self.ln2, self.ln3 = nn.LayerNorm(D), nn.LayerNorm(D), nn.LayerNorm(D)
            self.fc1, self.fc2 = nn.Linear(D, 2 * D), nn.Linear(2 * D, D)

        def forward(self, h, enc, self_mask, cross_mask):
            a, _ = self.self_attn(h, mask=self_mask)
            h = self.ln1(h + F.dropout(a, p=0.1, training=self.training))
            a, cw = self.encoder_attn(h, kv=enc, mask=cross_mask)
            h = self.ln2(h + a)
            return self.ln3(h + self.fc2(F.gelu(self.fc1(h)))), cw

    class Bart(nn.Module):
        def __init__(self):
            super().__init__()
            self.shared = nn.Embedding(V, D, pad)
            self.embed_scale = math.sqrt(D)
            self.enc_pos = LearnedPositionalEmbedding(8, D)
            self.dec_pos = LearnedPositionalEmbedding(8, D)
            self.enc = nn.ModuleList([DecoderLayer() for _ in range(1)])
            self.dec = nn.ModuleList([DecoderLayer() for _ in range(2)])
            self.layerdrop = 0.5
            self.register_buffer("final_logits_bias", lib.zeros((1, V)))
            self.lm_head = nn.Linear(D, V, bias=False)
            self.lm_head.weight = self.shared.weight

        def forward(self, ids, am, labels):
            dec_ids = shift_tokens_right(labels, pad, start)
            e = self.shared(ids) * self.embed_scale + self.enc_pos(ids)
            enc_mask = expand_mask(am, e.dtype)
            for layer in self.enc:
                e, _ = layer(e, e, enc_mask, enc_mask)
            d = self.shared(dec_ids) * self.embed_scale + self.dec_pos(dec_ids)
            causal = make_causal_mask(dec_ids.shape, d.dtype)
            dmask = causal + expand_mask(dec_ids.ne(pad).long(), d.dtype, dec_ids.shape[-1])
            cross = expand_mask(am, d.dtype, tgt_len=dec_ids.shape[-1])
            ws = []
            for layer in self.dec:
                if self.training and lib.rand([]) < self.layerdrop:
                    ws.append(None)
                    continue
                d, cw = layer(d, e, dmask, cross)
                ws.append(cw)
            logits = self.lm_head(d) + self.final_logits_bias.to(d.dtype)
            loss = nn.CrossEntropyLoss()(logits.view(-1, V), labels.view(-1))
            return loss, logits, dmask, ws

    model = Bart().to(dt)
    ids = lib.randint(3, V, (2, 5))
    am = lib.tensor([[1, 1, 1, 1, 1], [1, 1, 1, 0, 0]])
    ids[1, 3:] = pad
    labels = lib.randint(3, V, (2, 4))
    labels[0, 3] = -100
    rec("shifted", shift_tokens_right(labels, pad, start))
    rec("pos", model.enc_pos(ids))
    model.eval()
    loss, logits, dmask, ws = model(ids, am, labels)
    rec("dmask", dmask)
    rec("loss", loss)
    rec("logits", logits)
    rec("cross_w", ws[1])
    model.train()
    opt = lib.optim.AdamW(model.parameters(), lr=1e-3)
    for _ in range(3):
        loss, _, _, ws = model(ids, am, labels)
        rec("dropped", str([w is None for w in ws]))
        opt.zero_grad()
        loss.backward()
        opt.step()
        rec("train_loss", loss)
    rec("shared", model.shared.weight)


def p_empty_init(lib, dt, rec):
    # (minitorch has no meta device, a documented difference: the same steps on the CPU)
    nn = lib.nn
    lib.manual_seed(15)
    cfg = Config(num_hidden_layers=1)
    ref = bert_model(lib, cfg).to(dt)
    sd = ref.state_dict()
    model = nn.utils.skip_init(nn.Linear, 4, 3, dtype=dt)
    rec("skip_init", str((tuple(model.weight.shape), model.weight.dtype, model.bias.device)))
    model = bert_model(lib, cfg)
    model = model.to_empty(device="cpu").to(dt)
    rec("empty_dev", str(model.pooler.bias.device))
    r = model.load_state_dict(sd, strict=False)
    rec("r", repr(r))
    # to_empty leaves the non-persistent buffers uninitialised: rebuilt after loading
    with lib.no_grad():
        n = cfg.max_position_embeddings
        model.embeddings.position_ids.copy_(lib.arange(n).expand((1, -1)))
        model.embeddings.token_type_ids.zero_()
    ids = lib.tensor([[3, 4, 5, 6]])
    model.eval(), ref.eval()
    rec("same", model(ids).last_hidden_state - ref(ids).last_hidden_state)
    # assign=True keeps the loaded tensors themselves, wrapped as parameters
    lin = nn.Linear(4, 3, dtype=dt)
    src = {"weight": lib.randn(3, 4, dtype=dt), "bias": lib.zeros(3, dtype=dt)}
    lin.load_state_dict(src, assign=True)
    rec("assign_same", str(lin.weight.data_ptr() == src["weight"].data_ptr()))
    rec("assign_param", type(lin.weight).__name__ + " " + str(lin.weight.requires_grad))
    rec("assign_out", lin(lib.ones(2, 4, dtype=dt)))
    frozen = {"weight": lib.randn(3, 4, dtype=dt).requires_grad_(False), "bias": src["bias"]}
    lin.weight.requires_grad_(False)
    lin.load_state_dict(frozen, assign=True)
    rec("assign_frozen", str(lin.weight.requires_grad))
    rec.err("assign_shape", lambda: lin.load_state_dict({"weight": lib.zeros(2, 2)}, strict=False))

    # accelerate's init_empty_weights: patch register_parameter to move new params elsewhere
    old_register = nn.Module.register_parameter

    def register_empty_parameter(module, name, param):
        old_register(module, name, param)
        if param is not None:
            param_cls = type(module._parameters[name])
            kwargs = module._parameters[name].__dict__
            kwargs["requires_grad"] = param.requires_grad
            module._parameters[name] = param_cls(
                module._parameters[name].to("cpu").to(lib.float16), **kwargs
            )

    nn.Module.register_parameter = register_empty_parameter
    try:
        emb = nn.Embedding(5, 3)
        lin3 = nn.Linear(3, 2)
    finally:
        nn.Module.register_parameter = old_register
    rec("patched", str([emb.weight.dtype, lin3.weight.dtype, lin3.bias.requires_grad]))
    rec("patched_type", type(lin3.weight).__name__)
    rec("patched_params", str([n for n, _ in lin3.named_parameters()]))


def p_outputs(lib, dt, rec):
    from dataclasses import dataclass, fields

    nn = lib.nn
    lib.manual_seed(16)
    pytree = lib.utils._pytree

    class ModelOutput(collections.OrderedDict):
        def __post_init__(self):
            for f in fields(self):
                v = getattr(self, f.name)
                if v is not None:
                    self[f.name] = v

        def __init_subclass__(cls):
            pytree.register_pytree_node(
                cls,
                lambda o: (list(o.values()), list(o.keys())),
                lambda values, keys: cls(**dict(zip(keys, values, strict=True))),
            )

        def __getitem__(self, k):
            if isinstance(k, str):
                return dict(self.items())[k]
            return self.to_tuple()[k]

        def __setattr__(self, name, value):
            if name in self.keys() and value is not None:
                super().__setitem__(name, value)
            super().__setattr__(name, value)

        def __setitem__(self, key, value):
            super().__setitem__(key, value)
            super().__setattr__(key, value)

        def to_tuple(self):
            return tuple(self[k] for k in self.keys())

    @dataclass
    class CausalLMOutput(ModelOutput):
        loss: object = None
        logits: object = None
        hidden_states: object = None

    m = nn.Linear(4, 6).to(dt)
    x = lib.randn(2, 4, dtype=dt)
    logits = m(x)
    out = CausalLMOutput(logits=logits, hidden_states=(x, logits))
    rec("keys", str(list(out.keys())))
    rec("idx0", out[0])
    rec("len", len(out.to_tuple()))
    out["loss"] = logits.pow(2).mean()
    rec("keys2", str(list(out.keys())))
    rec("loss", out["loss"])
    leaves, spec = pytree.tree_flatten(out)
    rec("n_leaves", len(leaves))
    rec("leaf_types", str([type(v).__name__ for v in leaves]))
    doubled = pytree.tree_map(lambda t: t * 2 if lib.is_tensor(t) else t, out)
    rec("mapped_type", type(doubled).__name__)
    rec("mapped", doubled.logits)
    rec("unflat", pytree.tree_unflatten(leaves, spec).hidden_states[1])
    # return_dict=False style: tuple(v for v in ... if v is not None)
    tup = tuple(v for v in [out.loss, out.logits] if v is not None)
    rec("tup_len", len(tup))
    # outputs through checkpoint and DataParallel-style gather of dicts of tensors
    lin = nn.Linear(4, 4).to(dt)

    def fn(inp):
        return {"a": lin(inp), "b": (lin(inp).relu(),)}

    o = lib.utils.checkpoint.checkpoint(fn, x.requires_grad_(), use_reentrant=False)
    (o["a"].sum() + o["b"][0].sum()).backward()
    rec("ckpt_grad", lin.weight.grad)
    rec.err("reentrant_dict", lambda: lib.utils.checkpoint.checkpoint(fn, x, use_reentrant=True))
    # output_hidden_states tuples stacked
    hs = lib.stack(out.hidden_states[:1] + (x * 3,), dim=0)
    rec("stack", hs)


def p_heads(lib, dt, rec):
    nn, F = lib.nn, lib.nn.functional
    lib.manual_seed(17)
    cfg = Config(num_hidden_layers=1)
    base = bert_model(lib, cfg).to(dt)
    ids = lib.randint(1, cfg.vocab_size, (4, 6))
    am = lib.ones(4, 6, dtype=lib.long)
    am[2:, 4:] = 0
    base.eval()
    h = base(ids, attention_mask=am).last_hidden_state
    # sentence-transformers mean pooling
    m = am.unsqueeze(-1).expand(h.size()).to(h.dtype)
    mean = lib.sum(h * m, 1) / lib.clamp(m.sum(1), min=1e-9)
    rec("mean_pool", mean)
    rec("normed", F.normalize(mean, p=2, dim=1))
    rec("cos", F.cosine_similarity(mean[:, None], mean[None], dim=-1))
    # last-token pooling with right padding
    seq_len = am.sum(dim=1) - 1
    rec("last_tok", h[lib.arange(4), seq_len])
    # left-padding detection
    rec("left_pad", str(bool((am[:, -1].sum() == am.shape[0]).item())))
    # sequence classification heads by problem type
    head = nn.Linear(cfg.hidden_size, 3).to(dt)
    reg = nn.Linear(cfg.hidden_size, 1).to(dt)
    pooled = lib.tanh(h[:, 0])
    logits = head(pooled)
    y_reg = lib.randn(4, dtype=dt)
    rec("mse", nn.MSELoss()(reg(pooled).squeeze(), y_reg.squeeze()))
    rec("mse1", nn.MSELoss()(reg(pooled[:1]).squeeze(), y_reg[:1].squeeze()))
    y_ml = lib.tensor([[1, 0, 1], [0, 0, 0], [1, 1, 1], [0, 1, 0]], dtype=dt)
    rec("bce", nn.BCEWithLogitsLoss()(logits, y_ml))
    y_sl = lib.tensor([2, 0, 1, 1])
    rec("ce", nn.CrossEntropyLoss()(logits.view(-1, 3), y_sl.view(-1)))
    # token classification with -100 on padding / sub-words
    tok_head = nn.Linear(cfg.hidden_size, 5).to(dt)
    tl = lib.randint(0, 5, (4, 6)).masked_fill(am == 0, -100)
    tlog = tok_head(h)
    rec("tok_ce", F.cross_entropy(tlog.view(-1, 5), tl.view(-1)))
    # question answering: start/end logits, clamp of positions, ignored_index
    qa = nn.Linear(cfg.hidden_size, 2).to(dt)
    start_logits, end_logits = qa(h).split(1, dim=-1)
    start_logits = start_logits.squeeze(-1).contiguous()
    end_logits = end_logits.squeeze(-1).contiguous()
    ignored_index = start_logits.size(1)
    sp = lib.tensor([1, 7, 2, 0]).clamp(0, ignored_index)
    ep = lib.tensor([3, 9, 2, 0]).clamp(0, ignored_index)
    lf = nn.CrossEntropyLoss(ignore_index=ignored_index)
    rec("qa", (lf(start_logits, sp) + lf(end_logits, ep)) / 2)
    # multiple choice: flatten (B, C, T) -> (B*C, T), reshaped logits
    mc_ids = ids.view(2, 2, 6)
    flat = mc_ids.view(-1, mc_ids.size(-1))
    rec("mc_flat", flat)
    rec("mc_logits", head(base(flat).pooler_output)[:, :1].view(-1, 2))
    # ALBERT-style parameter sharing: the same layer applied twice, counted once
    shared = base.layer[0]
    h2 = shared(shared(h, get_extended_attention_mask(lib, am, h.dtype))[0], 0.0)[0]
    rec("albert", h2)
    rec("n_params", sum(p.numel() for p in nn.ModuleList([shared, shared]).parameters()))


def p_attn_utils(lib, dt, rec):
    F = lib.nn.functional
    lib.manual_seed(18)
    q = lib.randn(2, 2, 4, 4, dtype=dt)
    rec("sdpa_drop", F.scaled_dot_product_attention(q, q, q, dropout_p=0.5))
    rec("sdpa_drop_causal", F.scaled_dot_product_attention(q, q, q, dropout_p=0.3, is_causal=True))
    bm = lib.ones(2, 1, 4, 4, dtype=lib.bool)
    bm[1, :, 0] = False
    rec("sdpa_allmasked_bool", F.scaled_dot_product_attention(q, q, q, attn_mask=bm))
    rec("sdpa_scale", F.scaled_dot_product_attention(q, q, q, scale=0.1, is_causal=True))
    rec("sdpa_drop_mask", F.scaled_dot_product_attention(q, q, q, attn_mask=bm, dropout_p=0.2))
    min_dtype = lib.finfo(dt).min
    # a 4-d causal mask from cache positions, with left padding
    seq, target = 3, 6
    cache_position = lib.arange(2, 5)
    am = lib.tensor([[0, 1, 1, 1, 1], [1, 1, 1, 1, 1]])
    causal = lib.full((seq, target), fill_value=min_dtype, dtype=dt)
    causal = lib.triu(causal, diagonal=1)
    causal *= lib.arange(target) > cache_position.reshape(-1, 1)
    causal = causal[None, None, :, :].expand(2, 1, -1, -1).clone()
    ml = am.shape[-1]
    pm = causal[:, :, :, :ml] + am[:, None, None, :].to(causal.device)
    pm = pm == 0
    causal[:, :, :, :ml] = causal[:, :, :, :ml].masked_fill(pm, min_dtype)
    rec("c4d", causal)
    # rows that attend to nothing are let attend to everything (sdpa's memory-efficient path)
    em = lib.full((2, 1, 3, 3), min_dtype, dtype=dt)
    em[0, :, 1:] = 0
    rec("unmask", em.mul(~lib.all(em == min_dtype, dim=-1, keepdim=True)))
    # unpadding for varlen kernels
    am2 = lib.tensor([[1, 1, 0, 0], [1, 1, 1, 1], [0, 1, 1, 0]])
    seqlens = am2.sum(dim=-1, dtype=lib.int32)
    indices = lib.nonzero(am2.flatten(), as_tuple=False).flatten()
    cu = F.pad(lib.cumsum(seqlens, dim=0, dtype=lib.int32), (1, 0))
    rec("seqlens", seqlens)
    rec("indices", indices)
    rec("max_seqlen", seqlens.max().item())
    rec("cu", cu)
    rec("cu.dtype", str(cu.dtype))
    x = lib.randn(3, 4, 2, dtype=dt)
    flat = x.reshape(12, 2)
    rec("index_first", lib.gather(flat, 0, indices[:, None].expand(-1, 2)))
    o = lib.zeros(12, 2, dtype=dt)
    o[indices] = flat[indices] * 2
    rec("pad_input", o.view(3, 4, 2))
    rec("where_scalar", lib.where(am2.bool(), x[..., 0], min_dtype))
    rec("where_scalar.dtype", str(lib.where(am2.bool(), x[..., 0], min_dtype).dtype))
    rec("where_tensor.dtype", str(lib.where(am2.bool(), x[..., 0], lib.tensor(min_dtype)).dtype))
    lib.manual_seed(3)
    rec("drop", F.dropout(x, 0.1, training=True))
    rec("drop_inplace", F.dropout(x.clone(), 0.2, training=True, inplace=True))
    pid = am2.long().cumsum(-1) - 1
    pid.masked_fill_(am2 == 0, 1)
    rec("pid", pid)
    # logits processors
    logits = lib.randn(2, 7, dtype=dt)
    kth = lib.topk(logits, 3)[0][..., -1, None]
    rec("topk_filter", logits.masked_fill(logits < kth, -float("inf")))
    sl, si = lib.sort(logits, descending=False)
    cp = sl.softmax(dim=-1).cumsum(dim=-1)
    rem = cp <= (1 - 0.8)
    rem[..., -1:] = 0
    rec("topp", logits.masked_fill(rem.scatter(1, si, rem), -float("inf")))
    sc = lib.gather(logits, 1, lib.tensor([[1, 2], [3, 3]]))
    sc = lib.where(sc < 0, sc * 1.3, sc / 1.3)
    rec("rep_scatter", logits.scatter(1, lib.tensor([[1, 2], [3, 3]]), sc))


def p_moe_prune(lib, dt, rec):
    nn, F = lib.nn, lib.nn.functional
    lib.manual_seed(19)
    # prune heads from a linear layer
    n_heads, head_size = 4, 3
    mask = lib.ones(n_heads, head_size)
    for h in {1, 3}:
        mask[h] = 0
    mask = mask.view(-1).contiguous().eq(1)
    index = lib.arange(len(mask))[mask].long()
    rec("index", index)
    layer = nn.Linear(12, 12).to(dt)
    W = layer.weight.index_select(0, index).clone().detach()
    b = layer.bias[index].clone().detach()
    new = nn.Linear(12, len(index), bias=True).to(layer.weight.device, dt)
    new.weight.requires_grad = False
    new.weight.copy_(W.contiguous())
    new.weight.requires_grad = True
    new.bias.requires_grad = False
    new.bias.copy_(b.contiguous())
    new.bias.requires_grad = True
    rec("pruned", new(lib.ones(1, 12, dtype=dt)))
    rec("pruned_dim1", layer.weight.index_select(1, index).clone().detach())
    # apply_chunking_to_forward
    x = lib.randn(2, 6, 4, dtype=dt)
    chunks = x.chunk(3, dim=1)
    w4 = layer.weight[:4, :4]
    rec("chunked", lib.cat([w4 @ c.transpose(1, 2) for c in chunks], dim=2))
    # image features merged with masked_scatter
    ids = lib.tensor([[5, 9, 9, 3], [9, 1, 2, 9]])
    emb = lib.randn(2, 4, 3, dtype=dt, requires_grad=True)
    feats = lib.randn(4, 3, dtype=dt, requires_grad=True)
    m = (ids == 9).unsqueeze(-1).expand_as(emb)
    merged = emb.masked_scatter(m, feats.to(emb.dtype))
    rec("scatter", merged)
    (merged * lib.arange(24).view(2, 4, 3).to(dt)).sum().backward()
    rec("g_emb", emb.grad)
    rec("g_feat", feats.grad)
    rec.err("scatter_few", lambda: emb.detach().masked_scatter(m, feats.detach()[:2]))
    # llama3 / yarn rope frequency scaling
    inv_freq = 1.0 / (500000.0 ** (lib.arange(0, 16, 2, dtype=lib.int64).float() / 16))
    factor, lf, hf, old = 8.0, 1.0, 4.0, 64
    low_wl, high_wl = old / lf, old / hf
    wavelen = 2 * math.pi / inv_freq
    inv_l = lib.where(wavelen > low_wl, inv_freq / factor, inv_freq)
    smooth = (old / wavelen - lf) / (hf - lf)
    smoothed = (1 - smooth) * inv_l / factor + smooth * inv_l
    is_med = ~(wavelen < high_wl) * ~(wavelen > low_wl)
    rec("llama3", lib.where(is_med, smoothed, inv_l))
    lin = (lib.arange(8, dtype=lib.float32) - 1.3) / (5.7 - 1.3)
    rec("ramp", lib.clamp(lin, 0, 1))
    # Mixtral-style sparse routing
    h = lib.randn(6, 4, dtype=dt)
    gate = nn.Linear(4, 4, bias=False).to(dt)
    rl = gate(h)
    rw = F.softmax(rl, dim=1, dtype=lib.float)
    rw, sel = lib.topk(rw, 2, dim=-1)
    rw /= rw.sum(dim=-1, keepdim=True)
    rw = rw.to(h.dtype)
    em = F.one_hot(sel, num_classes=4).permute(2, 1, 0)
    final = lib.zeros((6, 4), dtype=h.dtype)
    hit = lib.greater(em.sum(dim=(-1, -2)), 0).nonzero()
    for e in hit:
        idx, top_x = lib.where(em[e].squeeze(0))
        cur = h[None, top_x].reshape(-1, 4)
        cur = cur * 2.0 * rw[top_x, idx, None]
        final.index_add_(0, top_x, cur.to(h.dtype))
    rec("moe", final)
    rec("hit", hit)
    gl = rl.float()
    rwa = F.softmax(gl, dim=-1)
    _, se = lib.topk(rwa, 2, dim=-1)
    tpe = lib.mean(F.one_hot(se, 4).float(), dim=0)
    rec("lb", lib.sum(tpe * lib.mean(rwa, dim=0).unsqueeze(0)) * 4)
    rec("zloss", lib.logsumexp(gl, dim=-1).square().mean())
    # image-processor style resizing and normalising
    px = lib.rand(1, 3, 10, 12)
    rec("aa", F.interpolate(px, size=(5, 6), mode="bilinear", antialias=True, align_corners=False))
    rec("aa_bicubic", F.interpolate(px, size=(4, 7), mode="bicubic", antialias=True))
    rec("bicubic_sf", F.interpolate(px, scale_factor=(0.7, 1.3), mode="bicubic"))
    mean = lib.tensor([0.48145466, 0.4578275, 0.40821073]).view(1, 3, 1, 1)
    std = lib.tensor([0.26862954, 0.26130258, 0.27577711]).view(1, 3, 1, 1)
    rec("norm", ((px - mean) / std).to(dt))


def p_serialize(lib, dt, rec):
    import os
    import tempfile

    nn = lib.nn
    lib.manual_seed(20)
    m = nn.Sequential(nn.Embedding(5, 4), nn.Linear(4, 5, bias=False)).to(dt)
    m[1].weight = m[0].weight
    with tempfile.TemporaryDirectory() as tmp:
        p = os.path.join(tmp, "pytorch_model.bin")
        lib.save(m.state_dict(), p)
        ld = lib.load(p, mmap=True, weights_only=True, map_location="cpu")
        rec("mmap_keys", str(list(ld.keys())))
        rec("mmap_shared", str(ld["0.weight"].data_ptr() == ld["1.weight"].data_ptr()))
        rec("mmap_val", ld["0.weight"])
        rec("mmap_dtype", str(ld["0.weight"].dtype))
        dev = lib.load(p, map_location=lib.device("cpu"), weights_only=True)
        rec("map_dev", str(dev["0.weight"].device))
        fn = lib.load(p, map_location=lambda s, loc: s, weights_only=True)
        rec("map_fn", fn["1.weight"])
        obj = {
            "state_dict": m.state_dict(), "epoch": 3, "name": "x", "lr": [1e-3],
            "od": collections.OrderedDict(a=lib.ones(1)), "t": (1, 2), "dt": dt, "none": None,
            "dev": lib.device("cpu"), "size": lib.Size([2, 3]),
        }  # fmt: skip
        p2 = os.path.join(tmp, "training_state.bin")
        lib.save(obj, p2)
        back = lib.load(p2, weights_only=True)
        rec("wo_keys", str(sorted(back.keys())))
        for k in ["epoch", "name", "lr", "t", "dt", "none", "dev", "size"]:
            rec("wo_" + k, repr(back[k]).replace("minitorch", "torch"))
        rec("wo_od", type(back["od"]).__name__)
        p3 = os.path.join(tmp, "cfg.bin")
        lib.save({"cfg": Config()}, p3)
        rec("wo_bad", type(rec.err("wo_bad_err", lambda: lib.load(p3, weights_only=True))).__name__)
        rec("wo_false", type(lib.load(p3, weights_only=False)["cfg"]).__name__)
        with lib.serialization.safe_globals([Config]):
            rec("safe_ctx", type(lib.load(p3, weights_only=True)["cfg"]).__name__)
        # shards: two files, loaded one after the other with strict=False
        sd = m.state_dict()
        keys = list(sd)
        for i, k in enumerate(keys):
            lib.save({k: sd[k]}, os.path.join(tmp, f"shard-{i}.bin"))
        fresh = nn.Sequential(nn.Embedding(5, 4), nn.Linear(4, 5, bias=False)).to(dt)
        fresh[1].weight = fresh[0].weight
        for i in range(len(keys)):
            shard = lib.load(os.path.join(tmp, f"shard-{i}.bin"), weights_only=True)
            r = fresh.load_state_dict(shard, strict=False)
            rec(f"shard{i}", repr(r))
        rec("shard_val", fresh[1].weight)
        size = sum(v.numel() * v.element_size() for v in sd.values())
        rec("bytes", size)
        rec("ptrs", len({v.untyped_storage().data_ptr() for v in sd.values()}))


def p_ckpt(lib, dt, rec):
    nn = lib.nn
    cp = lib.utils.checkpoint.checkpoint
    lib.manual_seed(21)
    emb, lin = nn.Embedding(5, 3).to(dt), nn.Linear(3, 3).to(dt)
    ids = lib.tensor([1, 2])

    def bw(reentrant):
        emb.zero_grad()
        lin.zero_grad()
        o = cp(lin, emb(ids).detach(), use_reentrant=reentrant)
        o.sum().backward()
        return lin.weight.grad

    rec.err("re_nograd", lambda: bw(True))
    rec("nonre_nograd", bw(False))
    # enable_input_require_grads: a forward hook on the embeddings
    hook = emb.register_forward_hook(lambda mod, inp, o: o.requires_grad_(True))
    for p in emb.parameters():
        p.requires_grad_(False)
    lin.zero_grad()
    cp(lin, emb(ids), use_reentrant=True).sum().backward()
    rec("re_hooked", lin.weight.grad)
    hook.remove()

    def f(x, mask=None, scale=1.0):
        return lin(x) * scale + (0 if mask is None else mask)

    x = emb(ids)
    rec("kwargs_nonre", cp(f, x, mask=lib.ones(3, dtype=dt), scale=2.0, use_reentrant=False))
    rec.err("kwargs_re", lambda: cp(f, x, mask=lib.ones(3), use_reentrant=True))
    ctx = lambda: (lib.no_grad(), lib.no_grad())  # noqa: E731
    rec("ctx_fn", str(cp(f, x, use_reentrant=False, context_fn=ctx).requires_grad))
    rec.err("ctx_fn_re", lambda: cp(f, x, use_reentrant=True, context_fn=ctx))
    rec.err("det_bad", lambda: cp(f, x, use_reentrant=False, determinism_check="foo"))
    d = nn.Dropout(0.5)
    y = lib.ones(4, 4, dtype=dt, requires_grad=True)
    for reentrant in (False, True):
        y.grad = None
        lib.manual_seed(1)
        cp(lambda t: d(t) * t, y, use_reentrant=reentrant).sum().backward()
        rec(f"drop_ckpt_{reentrant}", y.grad)
    rec("after", lib.rand(2))

    def g(t):
        return t * 2, None, 3

    for reentrant in (False, True):
        outs = cp(g, y, use_reentrant=reentrant)
        rec(f"tuple_{reentrant}", str([type(v).__name__ for v in outs]))
    with lib.no_grad():
        rec("nograd", str(cp(f, x, use_reentrant=False).requires_grad))
    seq = nn.Sequential(nn.Linear(3, 3), nn.ReLU(), nn.Linear(3, 3)).to(dt)
    xs = lib.randn(2, 3, dtype=dt, requires_grad=True)
    o = lib.utils.checkpoint.checkpoint_sequential(seq, 2, xs, use_reentrant=False)
    o.pow(2).sum().backward()
    rec("seq", o)
    rec("seq_g", xs.grad)
    # a model's gradient_checkpointing_enable: functools.partial over the layers
    import functools

    layers = nn.ModuleList([nn.Linear(3, 3) for _ in range(2)]).to(dt)
    ckpt = functools.partial(cp, use_reentrant=False)
    h = xs.detach()
    for layer in layers:
        h = ckpt(layer.__call__, h)
    h.sum().backward()
    rec.params("layers", layers, grads=True)


def p_reprs(lib, dt, rec):
    nn, F = lib.nn, lib.nn.functional
    lib.manual_seed(22)
    cfg = Config(num_hidden_layers=3)
    rec("bert_repr", repr(bert_model(lib, cfg).to(dt)))
    g = gpt2_model(lib, cfg).to(dt)
    rec("gpt_repr", repr(g))
    rec("param_repr", repr(g.h[0].ln_1.weight[:3]))
    rec("param_repr2", repr(nn.Parameter(lib.ones(2, dtype=dt))))
    x = lib.randn(2, 3, 4, 5, dtype=dt)
    rec.err("view_nc", lambda: x.transpose(1, 2).view(2, 4, -1))
    rec.err("matmul_bad", lambda: x @ x)
    rec.err("lin_bad", lambda: nn.Linear(3, 2).to(dt)(x))
    rec.err("lin_mixed", lambda: nn.Linear(5, 2)(x) if dt != lib.float32 else None)
    rec.err("ln_bad", lambda: nn.LayerNorm(6).to(dt)(x))
    rec.err("ce_shape", lambda: F.cross_entropy(lib.randn(2, 3, 5), lib.tensor([[1, 2, 3]] * 2)))
    rec.err("ce_float_target", lambda: F.cross_entropy(lib.randn(3, 5), lib.tensor([1.0, 2, 3])))
    rec.err("sdpa_dtype", lambda: F.scaled_dot_product_attention(x, x.float(), x))
    im = lib.zeros(5, 5, dtype=lib.int64)
    rec.err("sdpa_mask", lambda: F.scaled_dot_product_attention(x, x, x, attn_mask=im))
    rec.err("sub_bool", lambda: 1 - (x > 0))
    rec.err("neg_bool", lambda: -(x > 0))
    rec.err("finfo_int", lambda: lib.finfo(lib.int64))
    rec("finfo", repr(lib.finfo(dt)))
    rec.err("get_submodule_bad", lambda: g.get_submodule("h.9.attn"))
    rec.err("get_parameter_bad", lambda: g.get_parameter("h.1.ln_1.foo"))
    rec("n_modules_dup", len(list(g.named_modules(remove_duplicate=False))))
    rec("n_modules", len(list(g.named_modules())))
    rec.err("modlist_bad", lambda: g.h[5])
    rec.err("no_attr", lambda: g.foo)
    rec.err("param_int", lambda: nn.Parameter(lib.ones(2, dtype=lib.long)))
    rec.err("to_int", lambda: g.to(lib.int32))


# each program with the dtypes its models are run in (float64 where gradients are compared)
F32, F64, F16, BF16 = "float32", "float64", "float16", "bfloat16"
PROGRAMS = {
    "act": (F32, F64, F16, BF16), "masks": (F32, F64, F16, BF16), "bert": (F32, F16),
    "gpt2": (F32, F64, BF16), "t5": (F32, F64, F16), "llama": (F32, F64, BF16),
    "whisper": (F32, F16), "vit": (F32, F64), "clip": (F32, F16), "state": (F32, BF16),
    "resize": (F32,), "loss_idioms": (F32, F64), "bart": (F32, F64), "empty_init": (F32,),
    "outputs": (F32,), "heads": (F32, F64), "attn_utils": (F32, F64, F16, BF16),
    "moe_prune": (F32, F64, BF16), "serialize": (F32, BF16), "ckpt": (F32, F64, BF16),
    "reprs": (F32, F16),
}  # fmt: skip
CASES = [(name, dt) for name, dts in PROGRAMS.items() for dt in dts]


@pytest.mark.parametrize(("name", "dt"), CASES)
def test_hf_program_matches_torch(name, dt):
    prog = globals()["p_" + name]
    want = run_program(prog, torch, dt, rec=Rec(first_line=True))
    got = run_program(prog, minitorch, dt, rec=Rec(first_line=True))
    assert_records_match(want, got, lambda n, a: LOOSE.get(n, TOL[dt]), rename=True)
