"""Session 36 (helper init): exact weight initialisation under seeds, written the way models
initialise their weights in torch, run under torch and minitorch with the same seeds and compared
record by record: calculate_gain's values and errors; uniform_/normal_/trunc_normal_ (both of
torch's samplers, the far-mean warning), xavier_*, kaiming_* over every mode spelling,
nonlinearity and `a`, orthogonal_ (gain, QR checks), sparse_ (values from `generator=`, rows
from the default generator), eye_, dirac_ (groups; an identity conv), constant_/ones_/zeros_;
_calculate_fan_in_and_fan_out and the functions on 0-d, 1-d and empty tensors (errors, the
zero-element warning); argument edges (infinite/NaN/too wide bounds, tensor and str arguments);
every layer's default reset_parameters (Linear, Bilinear, Conv1d/2d/3d, ConvTranspose*,
Embedding(Bag) with padding_idx, RNN/LSTM/GRU and cells with projections, MultiheadAttention
with kdim/vdim and bias_kv, Transformer layers and nn.Transformer, norms, PReLU, lazy modules,
AdaptiveLogSoftmaxWithLoss, spectral/weight norm) and their constructor errors; half types and
set_default_dtype; torch.Generator through every init function (its state after each);
fork_rng/get_rng_state replays; model zoos (torchvision ResNet/MobileNet loops, DCGAN's
class-name init, ViT/Swin/ConvNeXt trunc_normal_ and layer scale, nanoGPT's apply + scaled
c_proj with tied weights, BERT's _init_weights, DETR's xavier loop with a focal prior) through
model.apply, modules() and named_modules()/named_parameters() loops, shared modules; re-init
under no_grad (leaf errors outside it), views, transposed weights, per-gate chunks and unbinds
of a weight, expanded tensors, meta tensors and to_empty, skip_init.
float64 must agree to 1e-10 of each record's scale, float32 to 1e-4; texts exactly.

Found and fixed:
- orthogonal_ of the chunks of a weight (a GRU's per-gate init, `for w in p.chunk(3, 0)`)
  raised "Output 1 of Split is a view and its base ... has been modified inplace" from the
  second chunk on: its layout-check view ran with grad enabled; torch's view_as/copy_/mul_ all
  run under no_grad.
- nn.init.__all__ lacked the deprecated aliases (uniform, normal, ..., sparse) torch lists.
- normal_ (Tensor.normal_, nn.init.normal_, torch.normal with a float std) with std=NaN filled
  NaNs; torch raises "normal expects std >= 0.0, but found std nan" (before drawing).
- uniform_/normal_ given a Python complex (or, in nn.init.uniform_, a str/None bound) raised
  Python's comparison TypeError; torch's parser "uniform_(): argument 'from' (position 1) must
  be float, not complex"; a NumPy array is named "numpy.ndarray" as torch names it.
- trunc_normal_ of an expanded tensor drew its numbers, then refused the write: torch refuses
  before drawing (the default generator's state differed afterwards); a meta tensor is
  returned as it is before the far-mean warning, as torch does.
- eye_/dirac_/orthogonal_/sparse_/trunc_normal_ of a non-tensor named the attribute 'ndim'
  (torch: 'ndimension', and 'is_meta' for trunc_normal_).

Known and left (documented):
- minitorch has no complex dtypes: normal_/zeros_ of a complex weight (FNO's spectral weights)
  are not recorded.
- eye_ and dirac_ of an expanded tensor raise the overlap RuntimeError; torch writes through
  (eye via out=, dirac element by element). Not recorded.
- The version counter after sparse_ (torch: one bump per column), dirac_ (one per delta) and
  trunc_normal_'s rejection path (a final copy_) is lower here: minitorch writes once.
- nn.init on an UninitializedParameter (a lazy module before its first forward): torch's
  ValueError names a function by its repr (an address); kaiming_* raise the shape
  RuntimeError here (NOTE [ Uninitialized parameters ]). Not recorded.
- normal_ of a float32 tensor with an std past float32's range (1e300) fills infinities as
  torch does but NumPy also warns "overflow encountered in cast".
- orthogonal_ goes through NumPy's LAPACK QR (torch: MKL): float64 agrees to ~1e-15, float32
  to round-off.
- The records run on the CPU only; the strict test device and CuPy are not exercised here."""

from __future__ import annotations

import math

import pytest

from tests.reference._one_thread import one_torch_thread  # noqa: F401 - an autouse fixture
from tests.reference._programs import assert_program_matches

torch = pytest.importorskip("torch")


PROGRAMS = [
    "gain_values", "gain_errors", "uniform_normal", "trunc_normal", "xavier", "kaiming_modes",
    "kaiming_errors", "orthogonal", "sparse", "eye_dirac", "constant", "fan_odd_shapes",
    "linear_bilinear", "conv_defaults", "conv_transpose", "embedding", "rnn_family",
    "rnn_cells", "mha", "transformer_layers", "transformer_full", "norms", "prelu",
    "apply_loop", "named_modules_loop", "no_grad_reinit", "generators", "deprecated",
    "zoo_resnet", "zoo_gpt", "lazy_modules", "init_dtypes", "reset_twice", "init_views",
    "arg_edges", "spectral_weight_norm", "meta_to_empty", "apply_reset",
    "fork_rng", "more_modules", "ctor_edges", "custom_module", "half_modules",
    "zoo_dcgan", "zoo_vit", "zoo_bert_detr", "zoo_mobilenet", "expanded_chunks",
    "shared_modules", "default_dtype",
]  # fmt: skip


@pytest.mark.parametrize("dt", ["float64", "float32"])
@pytest.mark.parametrize("name", PROGRAMS)
def test_program_matches_torch(name, dt):
    assert_program_matches(globals()["p_" + name], torch, dt)


# --- helpers ---


def _gen(lib, seed):
    return lib.Generator().manual_seed(seed)


def _params(rec, tag, model):
    for n, p in model.named_parameters():
        rec(f"{tag}.{n}", p)
    for n, b in model.named_buffers():
        rec(f"{tag}.buf.{n}", b)


# --- the programs: each takes the library, a dtype and a recorder ---


def p_gain_values(lib, dt, rec):
    init = lib.nn.init
    names = [
        "linear", "conv1d", "conv2d", "conv3d", "conv_transpose1d", "conv_transpose2d",
        "conv_transpose3d", "sigmoid", "tanh", "relu", "leaky_relu", "selu",
    ]  # fmt: skip
    for n in names:
        g = init.calculate_gain(n)
        rec(n, repr(g))
    for p in (0, 1, 0.2, -0.5, 3, math.sqrt(5), 1e-3, None):
        rec(f"leaky.{p}", repr(init.calculate_gain("leaky_relu", p)))
    rec("tanh_param", repr(init.calculate_gain("tanh", 7)))
    rec("relu_param", repr(init.calculate_gain("relu", "ignored")))


def p_gain_errors(lib, dt, rec):
    init = lib.nn.init
    rec.err("unknown", lambda: init.calculate_gain("gelu"))
    rec.err("upper", lambda: init.calculate_gain("ReLU"))
    rec.err("none", lambda: init.calculate_gain(None))
    rec.err("bool", lambda: init.calculate_gain("leaky_relu", True))
    rec.err("str", lambda: init.calculate_gain("leaky_relu", "0.2"))
    rec.err("tensor", lambda: init.calculate_gain("leaky_relu", lib.tensor(0.2)))
    rec.err("list", lambda: init.calculate_gain("leaky_relu", [0.2]))
    rec.err(
        "kaiming_bad_nl",
        lambda: init.kaiming_uniform_(lib.empty(3, 4, dtype=dt), nonlinearity="gelu"),
    )
    rec.err("kaiming_bool_a", lambda: init.kaiming_normal_(lib.empty(3, 4, dtype=dt), a=True))
    rec.err("xavier_gain_str", lambda: init.xavier_uniform_(lib.empty(3, 4, dtype=dt), gain="2"))


def p_uniform_normal(lib, dt, rec):
    init = lib.nn.init
    lib.manual_seed(0)
    w = lib.empty(5, 7, dtype=dt)
    rec("u", init.uniform_(w))
    rec("u_ab", init.uniform_(w, -0.3, 0.8))
    rec("n", init.normal_(w))
    rec("n_ms", init.normal_(w, mean=2.0, std=0.02))
    big = lib.empty(33, 5, dtype=dt)  # more than 16 normals: torch's vectorised path
    rec("n_big", init.normal_(big, 0.1, 3.0))
    rec("u_big", init.uniform_(big, a=-2, b=2))
    rec("same", init.uniform_(w, 0.5, 0.5))
    rec.err("bad_range", lambda: init.uniform_(w, 1.0, -1.0))
    rec.err("neg_std", lambda: init.normal_(w, 0.0, -1.0))
    rec.err("int_u", lambda: init.uniform_(lib.empty(3, dtype=lib.int64)))
    rec.err("int_n", lambda: init.normal_(lib.empty(3, dtype=lib.int64)))
    rec("id", init.uniform_(w) is w)
    rec("after", lib.rand(3, dtype=dt))
    v = lib.empty(17, dtype=dt)
    rec("vec_n", init.normal_(v))
    rec("scalar_u", init.uniform_(lib.empty((), dtype=dt), 2, 3))
    rec("scalar_n", init.normal_(lib.empty((), dtype=dt)))


def p_trunc_normal(lib, dt, rec):
    init = lib.nn.init
    lib.manual_seed(1)
    w = lib.empty(6, 9, dtype=dt)
    rec("default", init.trunc_normal_(w))
    rec("vit", init.trunc_normal_(w, std=0.02))
    rec("timm", init.trunc_normal_(w, mean=0.0, std=0.02, a=-0.04, b=0.04))
    rec("narrow", init.trunc_normal_(w, mean=0.5, std=1.0, a=0.4, b=0.6))
    rec("tail", init.trunc_normal_(w, mean=0.0, std=1.0, a=2.0, b=3.0))
    rec.warns("far", lambda: init.trunc_normal_(w, mean=5.0, std=1.0, a=-1.0, b=1.0))
    rec("far_v", w)
    g = _gen(lib, 7)
    rec("gen", init.trunc_normal_(w, std=0.5, generator=g))
    rec("gen_tail", init.trunc_normal_(w, a=1.0, b=1.5, generator=g))
    big = lib.empty(40, 3, dtype=dt)
    rec("big", init.trunc_normal_(big, std=0.3, a=-0.5, b=0.5))
    rec("after", lib.randn(4, dtype=dt))


def p_xavier(lib, dt, rec):
    init = lib.nn.init
    lib.manual_seed(2)
    for shape in [(4, 6), (6, 4), (8, 3, 3), (5, 2, 3, 3), (2, 4, 1, 2, 3), (1, 1)]:
        t = lib.empty(*shape, dtype=dt)
        rec(f"xu{shape}", init.xavier_uniform_(t))
        rec(f"xn{shape}", init.xavier_normal_(t))
        rec(f"xu_gain{shape}", init.xavier_uniform_(t, gain=init.calculate_gain("tanh")))
        rec(f"xn_gain{shape}", init.xavier_normal_(t, gain=0.5))
    rec("after", lib.rand(2, dtype=dt))


def p_kaiming_modes(lib, dt, rec):
    init = lib.nn.init
    lib.manual_seed(3)
    for shape in [(7, 5), (4, 3, 5), (6, 2, 3, 3), (3, 2, 2, 1, 2)]:
        for mode in ("fan_in", "fan_out", "FAN_OUT", "Fan_In"):
            for nl in ("leaky_relu", "relu", "linear", "tanh", "selu", "sigmoid", "conv2d"):
                t = lib.empty(*shape, dtype=dt)
                tag = f"{shape}.{mode}.{nl}"
                rec("ku." + tag, init.kaiming_uniform_(t, mode=mode, nonlinearity=nl))
                rec("kn." + tag, init.kaiming_normal_(t, mode=mode, nonlinearity=nl))
        for a in (0, 0.1, math.sqrt(5), 1, -0.2):
            t = lib.empty(*shape, dtype=dt)
            rec(f"ku_a{a}{shape}", init.kaiming_uniform_(t, a=a))
            rec(f"kn_a{a}{shape}", init.kaiming_normal_(t, a=a, mode="fan_out"))
    rec("after", lib.rand(2, dtype=dt))


def p_kaiming_errors(lib, dt, rec):
    init = lib.nn.init
    t = lib.empty(3, 4, dtype=dt)
    rec.err("mode", lambda: init.kaiming_uniform_(t, mode="fan_avg"))
    rec.err("mode_n", lambda: init.kaiming_normal_(t, mode="FAN_BOTH"))
    rec.err("mode_int", lambda: init.kaiming_uniform_(t, mode=1))
    rec.err("mode_none", lambda: init.kaiming_normal_(t, mode=None))
    rec.err("one_d", lambda: init.kaiming_uniform_(lib.empty(5, dtype=dt)))
    rec.err("zero_d", lambda: init.kaiming_normal_(lib.empty((), dtype=dt)))
    rec.err("xavier_1d", lambda: init.xavier_uniform_(lib.empty(5, dtype=dt)))
    rec.err("xavier_0d", lambda: init.xavier_normal_(lib.tensor(1.0, dtype=dt)))
    rec.err("int", lambda: init.kaiming_uniform_(lib.zeros(3, 4, dtype=lib.int32)))
    rec.err("int_n", lambda: init.kaiming_normal_(lib.zeros(3, 4, dtype=lib.int64)))
    rec.err("bool_x", lambda: init.xavier_uniform_(lib.zeros(3, 4, dtype=lib.bool)))
    rec.err("not_tensor", lambda: init.kaiming_uniform_([[1.0, 2.0]]))
    rec.err("np", lambda: init.xavier_uniform_(lib.zeros(3, 4).numpy()))
    rec.err("orth_1d", lambda: init.orthogonal_(lib.empty(4, dtype=dt)))
    rec.err("sparse_3d", lambda: init.sparse_(lib.empty(4, 3, 2, dtype=dt), 0.1))
    rec.err("sparse_1d", lambda: init.sparse_(lib.empty(4, dtype=dt), 0.1))
    rec.err("eye_3d", lambda: init.eye_(lib.empty(2, 2, 2, dtype=dt)))
    rec.err("dirac_2d", lambda: init.dirac_(lib.empty(2, 2, dtype=dt)))
    rec.err("dirac_6d", lambda: init.dirac_(lib.empty(2, 2, 1, 1, 1, 1, dtype=dt)))
    rec.err("dirac_groups", lambda: init.dirac_(lib.empty(6, 2, 3, dtype=dt), groups=4))
    p = lib.nn.Parameter(lib.zeros(3, 4, dtype=dt))
    rec.err("leaf_grad_ok", lambda: init.kaiming_uniform_(p))
    rec("leaf_req", p.requires_grad)
    rec("leaf_is_leaf", p.is_leaf)


def p_orthogonal(lib, dt, rec):
    init = lib.nn.init
    lib.manual_seed(4)
    for shape in [(4, 4), (3, 7), (7, 3), (4, 2, 3), (2, 3, 2, 2), (1, 5), (5, 1)]:
        t = lib.empty(*shape, dtype=dt)
        init.orthogonal_(t)
        rec(f"q{shape}", t)
        flat = t.reshape(shape[0], -1)
        if shape[0] <= flat.shape[1]:
            rec(f"qqt{shape}", flat @ flat.T)
        else:
            rec(f"qtq{shape}", flat.T @ flat)
    t = lib.empty(6, 6, dtype=dt)
    rec("gain", init.orthogonal_(t, gain=init.calculate_gain("relu")))
    rec("gen", init.orthogonal_(t, generator=_gen(lib, 11)))
    rec("empty", init.orthogonal_(lib.empty(0, 3, dtype=dt)))
    rec("after", lib.rand(3, dtype=dt))
    rec.err("half", lambda: init.orthogonal_(lib.empty(3, 3, dtype=lib.float16)))
    rec.err("int", lambda: init.orthogonal_(lib.empty(3, 3, dtype=lib.int64)))
    rec.err("transposed", lambda: init.orthogonal_(lib.empty(4, 6, dtype=dt)[:, ::2]))


def p_sparse(lib, dt, rec):
    init = lib.nn.init
    lib.manual_seed(5)
    for rows, cols, sp in [(10, 4, 0.1), (10, 4, 0.5), (7, 3, 0.0), (5, 6, 1.0), (3, 8, 0.34)]:
        t = lib.empty(rows, cols, dtype=dt)
        rec(f"s{rows}x{cols}@{sp}", init.sparse_(t, sp))
        rec(f"z{rows}x{cols}@{sp}", (t == 0).sum(0))
    t = lib.empty(12, 5, dtype=dt)
    rec("std", init.sparse_(t, 0.25, std=0.5))
    rec("gen", init.sparse_(t, 0.25, generator=_gen(lib, 3)))
    rec("after", lib.rand(3, dtype=dt))


def p_eye_dirac(lib, dt, rec):
    init = lib.nn.init
    for shape in [(3, 3), (2, 5), (5, 2), (0, 3), (1, 1)]:
        rec(f"eye{shape}", init.eye_(lib.full(shape, 7.0, dtype=dt)))
    p = lib.nn.Parameter(lib.zeros(3, 4, dtype=dt))
    init.eye_(p)
    rec("eye_param", p)
    rec("eye_param_req", p.requires_grad)
    rec("eye_int", init.eye_(lib.full((2, 3), 5, dtype=lib.int64)))
    for shape, groups in [((4, 4, 3), 1), ((4, 2, 3, 3), 2), ((6, 3, 3, 3, 3), 3),
                          ((2, 5, 4, 4), 1), ((6, 2, 2), 2), ((3, 3, 1, 2), 1)]:  # fmt: skip
        w = lib.full(shape, 9.0, dtype=dt)
        init.dirac_(w, groups=groups)
        rec(f"dirac{shape}g{groups}", w)
    conv = lib.nn.Conv2d(3, 3, 3, padding=1, bias=False, dtype=dt)
    init.dirac_(conv.weight)
    x = lib.arange(2 * 3 * 4 * 4, dtype=dt).reshape(2, 3, 4, 4)
    rec("dirac_identity", conv(x) - x)


def p_constant(lib, dt, rec):
    init = lib.nn.init
    t = lib.empty(3, 4, dtype=dt)
    rec("c", init.constant_(t, 0.3))
    rec("ones", init.ones_(t))
    rec("zeros", init.zeros_(t))
    rec("c_int", init.constant_(lib.empty(2, 2, dtype=lib.int64), 3))
    rec("c_int_float", init.constant_(lib.empty(2, 2, dtype=lib.int64), 3.7))
    rec("c_bool", init.constant_(lib.empty(2, dtype=lib.bool), 1))
    rec("c_tensor", init.constant_(t, lib.tensor(2.5)))
    rec("c_0d", init.constant_(lib.empty((), dtype=dt), -1))
    rec.err("c_tensor_1d", lambda: init.constant_(t, lib.tensor([1.0, 2.0])))
    rec.err("c_str", lambda: init.constant_(t, "a"))
    rec.err("c_none", lambda: init.constant_(t, None))
    p = lib.nn.Parameter(lib.zeros(2, dtype=dt))
    rec("c_param", init.constant_(p, 0.25))
    rec("c_param_grad", p.requires_grad)
    rec("c_is", init.zeros_(p) is p)
    rec("c_ver", p._version)


def p_fan_odd_shapes(lib, dt, rec):
    init = lib.nn.init
    fan = init._calculate_fan_in_and_fan_out
    shapes = [(3, 4), (3, 4, 5), (2, 3, 4, 5), (0, 4), (4, 0), (2, 3, 0), (0, 0, 3), (1,) * 6]
    for shape in shapes:
        rec(f"fan{shape}", repr(fan(lib.empty(*shape, dtype=dt))))
    rec.err("fan1d", lambda: fan(lib.empty(4, dtype=dt)))
    rec.err("fan0d", lambda: fan(lib.empty((), dtype=dt)))
    rec.err("fan_empty1d", lambda: fan(lib.empty(0, dtype=dt)))
    cf = init._calculate_correct_fan
    rec("cf_in", repr(cf(lib.empty(3, 4, 5, dtype=dt), "fan_in")))
    rec("cf_out", repr(cf(lib.empty(3, 4, 5, dtype=dt), "FAN_OUT")))
    rec.err("cf_bad", lambda: cf(lib.empty(3, 4, dtype=dt), "Fan"))
    lib.manual_seed(6)
    for shape in [(0, 4), (4, 0), (2, 0, 3), (0,), (0, 0)]:
        t = lib.empty(*shape, dtype=dt)
        rec.warns(f"ku_w{shape}", lambda t=t: init.kaiming_uniform_(t))
        rec.warns(f"kn_w{shape}", lambda t=t: init.kaiming_normal_(t))
        rec.err(f"xu{shape}", lambda t=t: init.xavier_uniform_(t).shape)
        rec.err(f"xn{shape}", lambda t=t: init.xavier_normal_(t).shape)
        rec.err(f"orth{shape}", lambda t=t: init.orthogonal_(t).shape)
        rec.err(f"tn{shape}", lambda t=t: init.trunc_normal_(t).shape)
        rec.err(f"sp{shape}", lambda t=t: init.sparse_(t, 0.5).shape)
        rec.err(f"eye{shape}", lambda t=t: init.eye_(t).shape)
    rec.err("dirac_empty_k", lambda: init.dirac_(lib.empty(2, 2, 0, dtype=dt)))
    rec.err("dirac_empty_out", lambda: init.dirac_(lib.empty(0, 2, 3, dtype=dt)).shape)
    rec("after", lib.rand(3, dtype=dt))


def p_linear_bilinear(lib, dt, rec):
    nn = lib.nn
    lib.manual_seed(10)
    for i, (fi, fo, bias) in enumerate([(5, 3, True), (1, 4, True), (8, 8, False), (3, 1, True)]):
        m = nn.Linear(fi, fo, bias=bias, dtype=dt)
        _params(rec, f"lin{i}", m)
    m = nn.Bilinear(3, 4, 2, dtype=dt)
    _params(rec, "bil", m)
    m = nn.Bilinear(2, 2, 3, bias=False, dtype=dt)
    _params(rec, "bil_nb", m)
    m = nn.Linear(0, 3, dtype=dt)
    rec.warns("lin_zero_in", lambda: m.reset_parameters())
    _params(rec, "lin_zero_in", m)
    rec("lin_zero_in.shape", str(m.weight.shape))
    rec.warns("lin_zero_out", lambda: nn.Linear(4, 0, dtype=dt))
    rec("id_shape", str(nn.Identity(3, k=4)(lib.ones(2, dtype=dt)).shape))
    rec("after", lib.rand(3, dtype=dt))


def p_conv_defaults(lib, dt, rec):
    nn = lib.nn
    lib.manual_seed(11)
    mods = [
        nn.Conv1d(3, 4, 3, dtype=dt),
        nn.Conv1d(4, 6, 2, groups=2, bias=False, dtype=dt),
        nn.Conv2d(2, 3, (3, 2), dtype=dt),
        nn.Conv2d(4, 4, 3, groups=4, dtype=dt),
        nn.Conv2d(3, 5, 1, padding_mode="reflect", padding=0, dtype=dt),
        nn.Conv3d(2, 2, (1, 2, 3), dtype=dt),
        nn.Conv3d(2, 4, 2, groups=2, bias=False, dtype=dt),
    ]
    for i, m in enumerate(mods):
        _params(rec, f"conv{i}", m)
    rec("after", lib.rand(3, dtype=dt))


def p_conv_transpose(lib, dt, rec):
    nn = lib.nn
    lib.manual_seed(12)
    mods = [
        nn.ConvTranspose1d(3, 4, 3, dtype=dt),
        nn.ConvTranspose1d(4, 6, 2, groups=2, dtype=dt),
        nn.ConvTranspose2d(2, 3, (3, 2), stride=2, dtype=dt),
        nn.ConvTranspose2d(6, 3, 3, groups=3, bias=False, dtype=dt),
        nn.ConvTranspose3d(2, 2, (1, 2, 3), dtype=dt),
        nn.ConvTranspose3d(4, 2, 2, groups=2, dtype=dt),
    ]
    for i, m in enumerate(mods):
        _params(rec, f"convt{i}", m)
        rec(f"convt{i}.shape", str(tuple(m.weight.shape)))
    rec("after", lib.rand(3, dtype=dt))


def p_embedding(lib, dt, rec):
    nn = lib.nn
    lib.manual_seed(13)
    _params(rec, "emb", nn.Embedding(7, 3, dtype=dt))
    _params(rec, "emb_pad", nn.Embedding(6, 4, padding_idx=2, dtype=dt))
    _params(rec, "emb_negpad", nn.Embedding(5, 2, padding_idx=-1, dtype=dt))
    _params(rec, "emb_max", nn.Embedding(40, 3, max_norm=1.0, dtype=dt))
    _params(rec, "bag", nn.EmbeddingBag(6, 3, mode="mean", dtype=dt))
    _params(rec, "bag_pad", nn.EmbeddingBag(6, 3, mode="sum", padding_idx=0, dtype=dt))
    w = lib.arange(12, dtype=dt).reshape(4, 3)
    e = nn.Embedding.from_pretrained(w, freeze=False, padding_idx=1)
    _params(rec, "pre", e)
    e.reset_parameters()
    _params(rec, "pre_reset", e)
    rec("after", lib.rand(3, dtype=dt))
    rec.err("pad_range", lambda: nn.Embedding(4, 2, padding_idx=4))
    rec.err("pad_neg", lambda: nn.Embedding(4, 2, padding_idx=-5))


def p_rnn_family(lib, dt, rec):
    nn = lib.nn
    lib.manual_seed(14)
    mods = {
        "rnn": nn.RNN(3, 4, dtype=dt),
        "rnn2bi": nn.RNN(2, 3, num_layers=2, bidirectional=True, nonlinearity="relu", dtype=dt),
        "lstm": nn.LSTM(3, 2, dtype=dt),
        "lstm_proj": nn.LSTM(4, 5, num_layers=2, proj_size=2, batch_first=True, dtype=dt),
        "gru": nn.GRU(2, 3, bias=False, dtype=dt),
        "gru_bi": nn.GRU(3, 2, num_layers=2, bidirectional=True, dtype=dt),
    }
    for k, m in mods.items():
        _params(rec, k, m)
    m = mods["lstm"]
    with lib.no_grad():
        for name, p in m.named_parameters():
            if "weight_ih" in name:
                nn.init.xavier_uniform_(p)
            elif "weight_hh" in name:
                nn.init.orthogonal_(p)
            elif "bias" in name:
                p.zero_()
                n = p.size(0)
                p[n // 4 : n // 2].fill_(1.0)  # forget gate bias
    _params(rec, "lstm_custom", m)
    x = lib.randn(4, 2, 3, dtype=dt)
    out, (h, c) = m(x)
    rec("lstm_out", out)
    rec("after", lib.rand(3, dtype=dt))


def p_rnn_cells(lib, dt, rec):
    nn = lib.nn
    lib.manual_seed(15)
    _params(rec, "rnncell", nn.RNNCell(3, 4, dtype=dt))
    _params(rec, "rnncell_relu", nn.RNNCell(2, 2, nonlinearity="relu", bias=False, dtype=dt))
    _params(rec, "lstmcell", nn.LSTMCell(3, 2, dtype=dt))
    _params(rec, "grucell", nn.GRUCell(2, 5, dtype=dt))
    m = nn.GRUCell(2, 3, dtype=dt)
    m.reset_parameters()
    _params(rec, "grucell_reset", m)
    rec("after", lib.rand(3, dtype=dt))


def p_mha(lib, dt, rec):
    nn = lib.nn
    lib.manual_seed(16)
    _params(rec, "mha", nn.MultiheadAttention(6, 2, dtype=dt))
    _params(rec, "mha_nb", nn.MultiheadAttention(4, 1, bias=False, dtype=dt))
    _params(rec, "mha_kv", nn.MultiheadAttention(4, 2, add_bias_kv=True, dtype=dt))
    _params(rec, "mha_kdim", nn.MultiheadAttention(4, 2, kdim=3, vdim=5, dtype=dt))
    _params(
        rec, "mha_bf", nn.MultiheadAttention(8, 4, batch_first=True, add_zero_attn=True, dtype=dt)
    )
    m = nn.MultiheadAttention(4, 2, dtype=dt)
    m._reset_parameters()
    _params(rec, "mha_reset", m)
    rec("after", lib.rand(3, dtype=dt))


def p_transformer_layers(lib, dt, rec):
    nn = lib.nn
    lib.manual_seed(17)
    enc = nn.TransformerEncoderLayer(8, 2, dim_feedforward=6, dropout=0.0, dtype=dt)
    _params(rec, "enc", enc)
    dec = nn.TransformerDecoderLayer(4, 2, dim_feedforward=5, dropout=0.0, norm_first=True,
                                     bias=False, dtype=dt)  # fmt: skip
    _params(rec, "dec", dec)
    stack = nn.TransformerEncoder(
        nn.TransformerEncoderLayer(4, 1, 3, dropout=0.0, batch_first=True, dtype=dt),
        num_layers=2, enable_nested_tensor=False,
    )  # fmt: skip
    _params(rec, "stack", stack)
    rec("after", lib.rand(3, dtype=dt))


def p_transformer_full(lib, dt, rec):
    nn = lib.nn
    lib.manual_seed(18)
    t = nn.Transformer(d_model=4, nhead=2, num_encoder_layers=1, num_decoder_layers=2,
                       dim_feedforward=6, dropout=0.0, dtype=dt)  # fmt: skip
    _params(rec, "tr", t)
    t._reset_parameters()
    _params(rec, "tr_reset", t)
    rec("after", lib.rand(3, dtype=dt))


def p_norms(lib, dt, rec):
    nn = lib.nn
    lib.manual_seed(19)
    mods = {
        "bn1": nn.BatchNorm1d(3, dtype=dt),
        "bn2": nn.BatchNorm2d(2, affine=False, dtype=dt),
        "bn3": nn.BatchNorm3d(2, track_running_stats=False, dtype=dt),
        "ln": nn.LayerNorm((2, 3), dtype=dt),
        "ln_nb": nn.LayerNorm(4, bias=False, dtype=dt),
        "ln_noaff": nn.LayerNorm(4, elementwise_affine=False, dtype=dt),
        "gn": nn.GroupNorm(2, 4, dtype=dt),
        "in": nn.InstanceNorm2d(3, affine=True, track_running_stats=True, dtype=dt),
        "rms": nn.RMSNorm(5, dtype=dt),
        "lrn": nn.LocalResponseNorm(2),
    }
    for k, m in mods.items():
        _params(rec, k, m)
    bn = mods["bn1"]
    bn(lib.randn(5, 3, dtype=dt))
    _params(rec, "bn1_trained", bn)
    bn.reset_running_stats()
    _params(rec, "bn1_rs", bn)
    with lib.no_grad():
        bn.weight.uniform_()
    bn.reset_parameters()
    _params(rec, "bn1_rp", bn)
    rec("nbt", bn.num_batches_tracked)
    rec("after", lib.rand(3, dtype=dt))


def p_prelu(lib, dt, rec):
    nn = lib.nn
    _params(rec, "prelu", nn.PReLU(dtype=dt))
    _params(rec, "prelu3", nn.PReLU(3, init=0.1, dtype=dt))
    m = nn.PReLU(2, dtype=dt)
    with lib.no_grad():
        m.weight.fill_(0.7)
    m.reset_parameters()
    _params(rec, "prelu_reset", m)


def _custom_init(lib):
    nn = lib.nn

    def init_fn(m):
        if isinstance(m, nn.Linear):
            nn.init.trunc_normal_(m.weight, std=0.02)
            if m.bias is not None:
                nn.init.zeros_(m.bias)
        elif isinstance(m, nn.Conv2d):
            nn.init.kaiming_normal_(m.weight, mode="fan_out", nonlinearity="relu")
            if m.bias is not None:
                nn.init.constant_(m.bias, 0)
        elif isinstance(m, (nn.BatchNorm2d, nn.GroupNorm)):
            nn.init.constant_(m.weight, 1)
            nn.init.constant_(m.bias, 0)
        elif isinstance(m, nn.Embedding):
            nn.init.normal_(m.weight, mean=0.0, std=0.02)
        elif isinstance(m, nn.LayerNorm):
            m.bias.data.zero_()
            m.weight.data.fill_(1.0)

    return init_fn


def p_apply_loop(lib, dt, rec):
    nn = lib.nn
    lib.manual_seed(20)
    model = nn.Sequential(
        nn.Conv2d(3, 4, 3, padding=1, dtype=dt),
        nn.BatchNorm2d(4, dtype=dt),
        nn.ReLU(),
        nn.Conv2d(4, 4, 3, bias=False, dtype=dt),
        nn.GroupNorm(2, 4, dtype=dt),
        nn.Flatten(),
        nn.Linear(4 * 3 * 3, 5, dtype=dt),
        nn.LayerNorm(5, dtype=dt),
        nn.Linear(5, 2, dtype=dt),
    )
    _params(rec, "default", model)
    out = model.apply(_custom_init(lib))
    rec("apply_returns", out is model)
    _params(rec, "custom", model)
    x = lib.randn(2, 3, 5, 5, dtype=dt)
    rec("y", model(x))


def p_named_modules_loop(lib, dt, rec):
    nn = lib.nn
    lib.manual_seed(21)

    class Block(nn.Module):
        def __init__(self):
            super().__init__()
            self.emb = nn.Embedding(10, 4, dtype=dt)
            self.proj = nn.Linear(4, 4, dtype=dt)
            self.out = nn.Linear(4, 3, bias=False, dtype=dt)
            self.gru = nn.GRU(4, 4, batch_first=True, dtype=dt)

    m = Block()
    for name, mod in m.named_modules():
        if isinstance(mod, nn.Linear):
            if name.endswith("out"):
                nn.init.zeros_(mod.weight)
            else:
                nn.init.xavier_uniform_(mod.weight, gain=nn.init.calculate_gain("relu"))
                nn.init.zeros_(mod.bias)
        elif isinstance(mod, nn.GRU):
            for pn, p in mod.named_parameters():
                if pn.startswith("weight_hh"):
                    for w in p.chunk(3, 0):
                        nn.init.orthogonal_(w)
                elif pn.startswith("weight_ih"):
                    nn.init.kaiming_uniform_(p, a=math.sqrt(5))
                else:
                    nn.init.constant_(p, 0.0)
    for pn, p in m.named_parameters():
        if pn.endswith("proj.weight"):
            nn.init.normal_(p, std=0.02 / math.sqrt(2 * 3))
    _params(rec, "m", m)
    rec("names", str([n for n, _ in m.named_modules()]))
    ids = lib.tensor([[1, 2, 3], [4, 0, 9]])
    out, h = m.gru(m.proj(m.emb(ids)))
    rec("y", m.out(out))


def p_no_grad_reinit(lib, dt, rec):
    nn = lib.nn
    lib.manual_seed(22)
    m = nn.Linear(4, 3, dtype=dt)
    y = m(lib.ones(2, 4, dtype=dt)).sum()
    y.backward()
    rec("g", m.weight.grad)
    with lib.no_grad():
        m.weight.uniform_(-0.1, 0.1)
        m.bias.normal_(0, 0.01)
    rec("w", m.weight)
    rec("b", m.bias)
    rec("ver", m.weight._version)
    rec("grad_kept", m.weight.grad)
    rec.err("outside_no_grad", lambda: m.weight.uniform_(-1, 1))
    rec.err("init_outside", lambda: nn.init.uniform_(m.weight, -1, 1).shape)
    rec("w2", m.weight)
    m.reset_parameters()
    rec("w_reset", m.weight)
    rec("b_reset", m.bias)
    with lib.no_grad():
        m.weight.copy_(lib.eye(3, 4, dtype=dt))
        m.bias.data.fill_(0.5)
    rec("w_copy", m.weight)
    rec("y2", m(lib.ones(1, 4, dtype=dt)))
    w = m.weight * 2  # a non-leaf: the init functions still run (under no_grad)
    rec.err("nonleaf", lambda: nn.init.zeros_(w).shape)
    rec("nonleaf_v", w)


def p_generators(lib, dt, rec):
    init = lib.nn.init
    lib.manual_seed(23)
    g = lib.Generator().manual_seed(99)
    fns = [
        ("u", lambda t, g: init.uniform_(t, -1, 1, generator=g)),
        ("n", lambda t, g: init.normal_(t, 0, 2, generator=g)),
        ("tn", lambda t, g: init.trunc_normal_(t, std=0.5, generator=g)),
        ("xu", lambda t, g: init.xavier_uniform_(t, generator=g)),
        ("xn", lambda t, g: init.xavier_normal_(t, generator=g)),
        ("ku", lambda t, g: init.kaiming_uniform_(t, a=math.sqrt(5), generator=g)),
        ("kn", lambda t, g: init.kaiming_normal_(t, mode="fan_out", generator=g)),
        ("orth", lambda t, g: init.orthogonal_(t, generator=g)),
        ("sp", lambda t, g: init.sparse_(t, 0.3, generator=g)),
    ]
    for name, fn in fns:
        t = lib.empty(5, 4, dtype=dt)
        rec(name, fn(t, g))
        rec(name + ".default_after", lib.rand(2, dtype=dt))
        rec(name + ".state", g.get_state())
    g2 = lib.Generator().manual_seed(99)
    rec("repeat", init.uniform_(lib.empty(5, 4, dtype=dt), -1, 1, generator=g2))
    rec("state_eq", lib.equal(g2.get_state(), lib.Generator().manual_seed(99).get_state()))
    rec("seed", g.initial_seed())
    st = g.get_state()
    a = init.normal_(lib.empty(20, dtype=dt), generator=g)
    g.set_state(st)
    b = init.normal_(lib.empty(20, dtype=dt), generator=g)
    rec("replay", a - b)
    rec.err("bad_gen", lambda: init.uniform_(lib.empty(3, dtype=dt), generator=5))


def p_deprecated(lib, dt, rec):
    init = lib.nn.init
    lib.manual_seed(24)
    t = lib.empty(3, 4, dtype=dt)
    rec.warns("uniform", lambda: init.uniform(t, 0, 1))
    rec("uniform_v", t)
    rec.warns("normal", lambda: init.normal(t))
    rec.warns("xavier_uniform", lambda: init.xavier_uniform(t))
    rec.warns("kaiming_normal", lambda: init.kaiming_normal(t))
    rec.warns("constant", lambda: init.constant(t, 2))
    rec("v", t)
    rec("names", str(sorted(init.__all__)))


def p_zoo_resnet(lib, dt, rec):
    nn = lib.nn
    lib.manual_seed(25)

    class Basic(nn.Module):
        def __init__(self, cin, cout, stride):
            super().__init__()
            self.conv1 = nn.Conv2d(cin, cout, 3, stride, 1, bias=False, dtype=dt)
            self.bn1 = nn.BatchNorm2d(cout, dtype=dt)
            self.conv2 = nn.Conv2d(cout, cout, 3, 1, 1, bias=False, dtype=dt)
            self.bn2 = nn.BatchNorm2d(cout, dtype=dt)
            self.down = None
            if stride != 1 or cin != cout:
                self.down = nn.Sequential(
                    nn.Conv2d(cin, cout, 1, stride, bias=False, dtype=dt),
                    nn.BatchNorm2d(cout, dtype=dt),
                )

        def forward(self, x):
            idt = x if self.down is None else self.down(x)
            y = self.bn2(self.conv2(self.bn1(self.conv1(x)).relu()))
            return (y + idt).relu()

    class Net(nn.Module):
        def __init__(self, zero_init_residual=True):
            super().__init__()
            self.stem = nn.Conv2d(3, 4, 3, padding=1, bias=False, dtype=dt)
            self.bn = nn.BatchNorm2d(4, dtype=dt)
            self.layer1 = Basic(4, 4, 1)
            self.layer2 = Basic(4, 6, 2)
            self.fc = nn.Linear(6, 3, dtype=dt)
            for m in self.modules():  # torchvision's ResNet loop
                if isinstance(m, nn.Conv2d):
                    nn.init.kaiming_normal_(m.weight, mode="fan_out", nonlinearity="relu")
                elif isinstance(m, (nn.BatchNorm2d, nn.GroupNorm)):
                    nn.init.constant_(m.weight, 1)
                    nn.init.constant_(m.bias, 0)
            if zero_init_residual:
                for m in self.modules():
                    if isinstance(m, Basic):
                        nn.init.constant_(m.bn2.weight, 0)

        def forward(self, x):
            x = self.layer2(self.layer1(self.bn(self.stem(x)).relu()))
            return self.fc(x.mean((2, 3)))

    net = Net()
    _params(rec, "net", net)
    x = lib.randn(2, 3, 6, 6, dtype=dt)
    rec("y", net(x))


def p_zoo_gpt(lib, dt, rec):
    nn = lib.nn
    lib.manual_seed(26)
    n_layer = 2

    class Block(nn.Module):
        def __init__(self, d):
            super().__init__()
            self.ln_1 = nn.LayerNorm(d, dtype=dt)
            self.c_attn = nn.Linear(d, 3 * d, dtype=dt)
            self.c_proj = nn.Linear(d, d, dtype=dt)
            self.ln_2 = nn.LayerNorm(d, dtype=dt)
            self.c_fc = nn.Linear(d, 4 * d, dtype=dt)
            self.mlp_proj = nn.Linear(4 * d, d, dtype=dt)

    class GPT(nn.Module):
        def __init__(self, vocab=11, d=4, ctx=5):
            super().__init__()
            self.wte = nn.Embedding(vocab, d, dtype=dt)
            self.wpe = nn.Embedding(ctx, d, dtype=dt)
            self.h = nn.ModuleList([Block(d) for _ in range(n_layer)])
            self.ln_f = nn.LayerNorm(d, dtype=dt)
            self.lm_head = nn.Linear(d, vocab, bias=False, dtype=dt)
            self.wte.weight = self.lm_head.weight  # weight tying
            self.apply(self._init_weights)
            for pn, p in self.named_parameters():
                if pn.endswith("c_proj.weight") or pn.endswith("mlp_proj.weight"):
                    nn.init.normal_(p, mean=0.0, std=0.02 / math.sqrt(2 * n_layer))

        def _init_weights(self, module):
            if isinstance(module, nn.Linear):
                nn.init.normal_(module.weight, mean=0.0, std=0.02)
                if module.bias is not None:
                    nn.init.zeros_(module.bias)
            elif isinstance(module, nn.Embedding):
                nn.init.normal_(module.weight, mean=0.0, std=0.02)

    m = GPT()
    _params(rec, "gpt", m)
    rec("n_params", sum(p.numel() for p in m.parameters()))
    rec("tied", m.wte.weight is m.lm_head.weight)


def p_lazy_modules(lib, dt, rec):
    nn = lib.nn
    lib.manual_seed(27)
    m = nn.Sequential(nn.LazyLinear(3, dtype=dt), nn.ReLU(), nn.LazyLinear(2, dtype=dt))
    x = lib.randn(4, 5, dtype=dt)
    y = m(x)
    _params(rec, "lazy", m)
    rec("y", y)
    c = nn.LazyConv2d(2, 3, dtype=dt)
    c(lib.randn(1, 3, 4, 4, dtype=dt))
    _params(rec, "lazyconv", c)
    bn = nn.LazyBatchNorm1d(dtype=dt)
    bn(lib.randn(3, 2, dtype=dt))
    _params(rec, "lazybn", bn)
    rec("after", lib.rand(3, dtype=dt))


def p_init_dtypes(lib, dt, rec):
    init = lib.nn.init
    lib.manual_seed(28)
    for d in ("float16", "bfloat16"):
        t = lib.empty(4, 5, dtype=getattr(lib, d))
        rec(f"u.{d}", init.uniform_(t, -1, 1))
        rec(f"n.{d}", init.normal_(t))
        rec(f"xu.{d}", init.xavier_uniform_(t))
        rec(f"kn.{d}", init.kaiming_normal_(t))
        rec(f"c.{d}", init.constant_(t, 0.1))
    m = lib.nn.Linear(3, 2).to(dt)
    _params(rec, "to", m)
    rec("after", lib.rand(3, dtype=dt))


def p_reset_twice(lib, dt, rec):
    nn = lib.nn
    lib.manual_seed(29)
    mods = [nn.Linear(3, 2, dtype=dt), nn.Conv1d(2, 2, 2, dtype=dt), nn.Embedding(3, 2, dtype=dt),
            nn.LSTM(2, 2, dtype=dt), nn.LayerNorm(3, dtype=dt),
            nn.Bilinear(2, 2, 1, dtype=dt)]  # fmt: skip
    for i, m in enumerate(mods):
        lib.manual_seed(100 + i)
        m.reset_parameters()
        a = [p.clone() for p in m.parameters()]
        lib.manual_seed(100 + i)
        m.reset_parameters()
        for j, (p, q) in enumerate(zip(a, m.parameters(), strict=True)):
            rec(f"m{i}.{j}", p - q)
            rec(f"m{i}.{j}.v", q)


def p_init_views(lib, dt, rec):
    init = lib.nn.init
    lib.manual_seed(30)
    w = lib.zeros(6, 8, dtype=dt)
    init.uniform_(w[:, :4], -1, 1)
    init.normal_(w[2:5, 4:], 0, 1)
    rec("w", w)
    big = lib.zeros(20, 20, dtype=dt)
    init.normal_(big[::2, 1::3])
    rec("big", big)
    q = lib.zeros(3 * 4, 4, dtype=dt)
    for chunk in q.chunk(3, 0):
        init.orthogonal_(chunk)
    rec("q", q)
    wt = lib.empty(5, 3, dtype=dt).t()
    init.xavier_normal_(wt)
    rec("wt", wt)
    wt2 = lib.empty(5, 18, dtype=dt).t()
    init.kaiming_normal_(wt2)
    rec("wt2", wt2)
    rec("after", lib.rand(3, dtype=dt))


def p_arg_edges(lib, dt, rec):
    init = lib.nn.init
    lib.manual_seed(31)
    t = lib.empty(3, 4, dtype=dt)
    rec.err("u_inf", lambda: init.uniform_(t, -math.inf, 1.0))
    rec.err("u_nan", lambda: init.uniform_(t, math.nan, 1.0))
    rec.err("u_huge", lambda: init.uniform_(t, -3e38, 3e38))
    rec.err("u_tensor_ab", lambda: init.uniform_(t, lib.tensor(-1.0), lib.tensor(2.0)).shape)
    rec("u_tensor_ab.v", t)
    rec.err("u_str", lambda: init.uniform_(t, "a", 1.0))
    rec.err("n_std0", lambda: init.normal_(t, 1.5, 0.0).shape)
    rec("n_std0.v", t)
    rec.err("n_nan_std", lambda: init.normal_(t, 0.0, math.nan))
    rec.err("n_inf_mean", lambda: init.normal_(t, math.inf, 1.0).shape)
    rec.err("n_tensor_std", lambda: init.normal_(t, 0.0, lib.tensor(0.5)).shape)
    rec("n_tensor_std.v", t)
    rec.err("tn_std0", lambda: init.trunc_normal_(t, std=0.0))
    rec.err("tn_ab", lambda: init.trunc_normal_(t, a=1.0, b=-1.0))
    rec.err("tn_int", lambda: init.trunc_normal_(lib.zeros(3, dtype=lib.int64)))
    rec.err("tn_int_tail", lambda: init.trunc_normal_(lib.zeros(3, dtype=lib.int64), a=2, b=3))
    rec.err("ku_a_none", lambda: init.kaiming_uniform_(t, a=None).shape)
    rec("ku_a_none.v", t)
    rec.err("orth_gain_str", lambda: init.orthogonal_(t, gain="2"))
    rec.err("orth_gain_t", lambda: init.orthogonal_(t, gain=lib.tensor(2.0)).shape)
    rec("orth_gain_t.v", t)
    rec.err("sparse_neg", lambda: init.sparse_(t, -0.5).shape)
    rec("sparse_neg.v", t == 0)
    rec.err("sparse_big", lambda: init.sparse_(t, 3.0).shape)
    rec("sparse_big.v", t)
    rec.err("sparse_str", lambda: init.sparse_(t, "0.5"))
    rec.err("dirac_int", lambda: init.dirac_(lib.full((2, 2, 3), 5, dtype=lib.int64)))
    rec("dirac_int.v", init.dirac_(lib.full((2, 2, 3), 5, dtype=lib.int64)))
    rec("dirac_bool", init.dirac_(lib.ones((2, 3, 1, 1), dtype=lib.bool)))
    rec.err("dirac_groups0", lambda: init.dirac_(lib.empty(2, 2, 3, dtype=dt), groups=0))
    rec.err("eye_tensor_list", lambda: init.eye_([[1.0]]))
    te = lib.full((4, 3), 5.0, dtype=dt).t()
    rec("eye_t", init.eye_(te))
    rec("after", lib.rand(3, dtype=dt))


def p_spectral_weight_norm(lib, dt, rec):
    nn = lib.nn
    lib.manual_seed(33)
    sn = nn.utils.spectral_norm(nn.Linear(4, 3, dtype=dt))
    _params(rec, "sn", sn)
    rec("sn_u", sn.weight_u)
    rec("sn_v", sn.weight_v)
    psn = nn.utils.parametrizations.spectral_norm(nn.Conv2d(2, 3, 3, dtype=dt))
    _params(rec, "psn", psn)
    rec("psn_w", psn.weight)
    wn = nn.utils.parametrizations.weight_norm(nn.Linear(4, 3, dtype=dt))
    _params(rec, "wn", wn)
    rec("wn_w", wn.weight)
    orth = nn.utils.parametrizations.orthogonal(nn.Linear(3, 3, dtype=dt))
    rec("orth_wtw", orth.weight.T @ orth.weight)
    rec("after", lib.rand(3, dtype=dt))


def p_meta_to_empty(lib, dt, rec):
    nn = lib.nn
    lib.manual_seed(34)
    with lib.device("meta"):
        m = nn.Sequential(
            nn.Linear(4, 3, dtype=dt), nn.LayerNorm(3, dtype=dt), nn.Linear(3, 2, dtype=dt)
        )
    rec("dev", str(m[0].weight.device))
    t = lib.empty(3, 4, device="meta", dtype=dt)
    init = nn.init
    fns = {
        "u": lambda: init.uniform_(t), "tn": lambda: init.trunc_normal_(t, mean=5.0, b=1.0),
        "ku": lambda: init.kaiming_uniform_(t), "orth": lambda: init.orthogonal_(t),
        "sp": lambda: init.sparse_(t, 0.5), "xu": lambda: init.xavier_uniform_(t),
        "c": lambda: init.constant_(t, 1.0),
        "dirac": lambda: init.dirac_(lib.empty(2, 2, 3, device="meta", dtype=dt)),
    }  # fmt: skip
    for name, fn in fns.items():
        tag = "meta_" + name
        rec.warns(tag + ".w", lambda fn=fn, tag=tag: rec.err(tag, lambda: str(fn().device)))
    rec("after_meta", lib.rand(3, dtype=dt))
    m.to_empty(device="cpu")
    for mod in m.modules():
        if hasattr(mod, "reset_parameters"):
            mod.reset_parameters()
    _params(rec, "m", m)
    s = nn.utils.skip_init(nn.Linear, 5, 2, dtype=dt)
    nn.init.xavier_uniform_(s.weight)
    nn.init.zeros_(s.bias)
    _params(rec, "skip", s)
    rec("after", lib.rand(3, dtype=dt))


def p_apply_reset(lib, dt, rec):
    nn = lib.nn
    lib.manual_seed(35)
    model = nn.Sequential(
        nn.Embedding(6, 4, dtype=dt),
        nn.LSTM(4, 3, batch_first=True, dtype=dt),
    )
    head = nn.ModuleDict({"a": nn.Linear(3, 2, dtype=dt), "b": nn.Conv1d(3, 2, 1, dtype=dt)})
    net = nn.ModuleList([model, head, nn.PReLU(dtype=dt), nn.BatchNorm1d(2, dtype=dt)])
    _params(rec, "init", net)
    lib.manual_seed(36)

    def reset(m):
        if hasattr(m, "reset_parameters"):
            m.reset_parameters()

    net.apply(reset)
    _params(rec, "reset", net)
    lib.manual_seed(36)
    for m in reversed(list(net.modules())):
        reset(m)
    _params(rec, "reversed", net)
    rec("order", str([type(m).__name__ for m in net.modules()]))
    rec("after", lib.rand(3, dtype=dt))


def p_fork_rng(lib, dt, rec):
    nn = lib.nn
    lib.manual_seed(37)
    with lib.random.fork_rng():
        lib.manual_seed(5)
        a = nn.Linear(3, 3, dtype=dt)
    b = nn.Linear(3, 3, dtype=dt)
    lib.manual_seed(5)
    c = nn.Linear(3, 3, dtype=dt)
    rec("a", a.weight)
    rec("b", b.weight)
    rec("a_eq_c", lib.equal(a.weight, c.weight))
    st = lib.get_rng_state()
    d = nn.Conv2d(2, 2, 2, dtype=dt)
    lib.set_rng_state(st)
    e = nn.Conv2d(2, 2, 2, dtype=dt)
    rec("d_eq_e", lib.equal(d.weight, e.weight) and lib.equal(d.bias, e.bias))
    rec("seed", lib.initial_seed())
    rec("after", lib.rand(3, dtype=dt))


def p_more_modules(lib, dt, rec):
    nn = lib.nn
    lib.manual_seed(38)
    mods = {
        "conv_circ": nn.Conv2d(2, 3, 3, padding=1, padding_mode="circular", dtype=dt),
        "conv_same": nn.Conv1d(3, 2, 4, padding="same", dilation=2, dtype=dt),
        "convt_op": nn.ConvTranspose2d(3, 2, 3, stride=2, output_padding=1, dilation=1, dtype=dt),
        "adaptive": nn.AdaptiveLogSoftmaxWithLoss(4, 10, cutoffs=[3, 6], div_value=2.0, dtype=dt),
        "bil_1": nn.Bilinear(1, 1, 1, dtype=dt),
        "emb_sparse": nn.Embedding(5, 3, sparse=True, scale_grad_by_freq=True, dtype=dt),
        "lstm_bi_proj": nn.LSTM(3, 4, num_layers=2, bidirectional=True, proj_size=2, dtype=dt),
        "mha_kv_kdim": nn.MultiheadAttention(4, 2, kdim=2, vdim=3, add_bias_kv=True, dtype=dt),
        "glu_seq": nn.Sequential(nn.Linear(4, 8, dtype=dt), nn.GLU()),
        "unflat": nn.Sequential(nn.Linear(6, 6, dtype=dt), nn.Unflatten(1, (2, 3))),
    }
    for k, m in mods.items():
        _params(rec, k, m)
    rec("after", lib.rand(3, dtype=dt))


def p_ctor_edges(lib, dt, rec):
    nn = lib.nn
    lib.manual_seed(39)
    ctors = {
        "lin00": lambda: nn.Linear(0, 0, dtype=dt),
        "lin_neg": lambda: nn.Linear(-1, 3, dtype=dt),
        "lin_neg_out": lambda: nn.Linear(3, -2, dtype=dt),
        "conv_in0": lambda: nn.Conv2d(0, 4, 3, dtype=dt),
        "conv_out0": lambda: nn.Conv1d(2, 0, 3, dtype=dt),
        "conv_k0": lambda: nn.Conv1d(2, 3, 0, dtype=dt),
        "conv_groups": lambda: nn.Conv2d(3, 4, 3, groups=2, dtype=dt),
        "conv_groups0": lambda: nn.Conv2d(4, 4, 3, groups=0, dtype=dt),
        "convt_groups": lambda: nn.ConvTranspose2d(4, 3, 3, groups=2, dtype=dt),
        "emb0": lambda: nn.Embedding(0, 3, dtype=dt),
        "emb_dim0": lambda: nn.Embedding(4, 0, dtype=dt),
        "emb_neg": lambda: nn.Embedding(-1, 3, dtype=dt),
        "lstm_h0": lambda: nn.LSTM(3, 0, dtype=dt),
        "lstm_in0": lambda: nn.LSTM(0, 2, dtype=dt),
        "rnn_layers0": lambda: nn.RNN(3, 2, num_layers=0, dtype=dt),
        "rnn_float_h": lambda: nn.RNN(3, 2.0, dtype=dt),
        "rnn_bad_nl": lambda: nn.RNN(3, 2, nonlinearity="sigmoid", dtype=dt),
        "lstm_proj_big": lambda: nn.LSTM(3, 2, proj_size=2, dtype=dt),
        "lstm_proj_neg": lambda: nn.LSTM(3, 2, proj_size=-1, dtype=dt),
        "gru_proj": lambda: nn.GRU(3, 2, proj_size=1, dtype=dt),
        "mha_heads": lambda: nn.MultiheadAttention(5, 2, dtype=dt),
        "mha0": lambda: nn.MultiheadAttention(0, 1, dtype=dt),
        "bil0": lambda: nn.Bilinear(0, 2, 3, dtype=dt),
        "prelu0": lambda: nn.PReLU(0, dtype=dt),
        "ln0": lambda: nn.LayerNorm(0, dtype=dt),
        "gn_div": lambda: nn.GroupNorm(3, 4, dtype=dt),
        "bn0": lambda: nn.BatchNorm1d(0, dtype=dt),
        "lin_int_dtype": lambda: nn.Linear(3, 2, dtype=lib.int64),
        "conv_int_dtype": lambda: nn.Conv1d(3, 2, 1, dtype=lib.int32),
        "emb_int_dtype": lambda: nn.Embedding(3, 2, dtype=lib.int64),
        "ln_int_dtype": lambda: nn.LayerNorm(3, dtype=lib.int64),
    }
    for k, ctor in ctors.items():
        m = rec.err(k, ctor)
        if m is not None:
            _params(rec, k, m)
    rec("after", lib.rand(3, dtype=dt))


def p_custom_module(lib, dt, rec):
    nn = lib.nn
    init = nn.init
    lib.manual_seed(40)

    class MyLinear(nn.Module):
        def __init__(self, fi, fo):
            super().__init__()
            self.weight = nn.Parameter(lib.empty(fo, fi, dtype=dt))
            self.bias = nn.Parameter(lib.empty(fo, dtype=dt))
            self.scale = nn.Parameter(lib.empty(fo, dtype=dt))
            self.register_buffer("mask", lib.empty(fo, fi, dtype=dt))
            self.reset_parameters()

        def reset_parameters(self):
            init.kaiming_uniform_(self.weight, a=math.sqrt(5))
            fan_in, _ = init._calculate_fan_in_and_fan_out(self.weight)
            bound = 1 / math.sqrt(fan_in) if fan_in > 0 else 0
            init.uniform_(self.bias, -bound, bound)
            init.ones_(self.scale)
            with lib.no_grad():
                self.mask.bernoulli_(0.5)

    m = MyLinear(5, 3)
    _params(rec, "my", m)

    class Idioms(nn.Module):
        def __init__(self, d=4):
            super().__init__()
            self.a = nn.Parameter(lib.randn(d, d, dtype=dt) / math.sqrt(d))
            self.b = nn.Parameter(lib.zeros(d, dtype=dt).normal_(0, 0.1))
            self.c = nn.Parameter(lib.empty(2, d, dtype=dt).uniform_(-0.5, 0.5))
            self.d = nn.Parameter(0.02 * lib.randn(1, 1, d, dtype=dt))
            self.e = nn.Parameter(lib.rand(d, dtype=dt) * 2 - 1)
            self.f = nn.Parameter(lib.ones(d, dtype=dt) * 1e-4)  # layer scale
            self.g = nn.Parameter(lib.randn(3, d, dtype=dt, generator=_gen(lib, 1)))
            self.h = nn.Parameter(lib.empty(d, dtype=dt).exponential_())
            self.pos = nn.Parameter(lib.zeros(1, 3, d, dtype=dt))
            nn.init.trunc_normal_(self.pos, std=0.02)

    _params(rec, "idioms", Idioms())

    @lib.no_grad()
    def init_fn(mod):
        if isinstance(mod, nn.Linear):
            mod.weight.normal_(0, 0.5)
            mod.weight.clamp_(-0.6, 0.6)
            if mod.bias is not None:
                mod.bias.fill_(0.01)

    net = nn.Sequential(nn.Linear(3, 5, dtype=dt), nn.Tanh(), nn.Linear(5, 1, dtype=dt))
    net.apply(init_fn)
    _params(rec, "deco", net)
    rec("req", str([p.requires_grad for p in net.parameters()]))
    rec("after", lib.rand(3, dtype=dt))


def p_half_modules(lib, dt, rec):
    nn = lib.nn
    init = nn.init
    lib.manual_seed(41)
    for name in ("float16", "bfloat16"):
        d = getattr(lib, name)
        _params(rec, f"lin.{name}", nn.Linear(5, 3, dtype=d))
        _params(rec, f"conv.{name}", nn.Conv2d(2, 3, 2, dtype=d))
        _params(rec, f"emb.{name}", nn.Embedding(20, 2, padding_idx=0, dtype=d))
        _params(rec, f"ln.{name}", nn.LayerNorm(3, dtype=d))
        t = lib.empty(6, 5, dtype=d)
        rec(f"tn.{name}", init.trunc_normal_(t, std=0.02))
        rec(f"tn_tail.{name}", init.trunc_normal_(t, a=1.0, b=2.0))
        rec(f"ku.{name}", init.kaiming_uniform_(t, a=math.sqrt(5)))
        rec(f"xn.{name}", init.xavier_normal_(t))
        rec(f"sp.{name}", init.sparse_(t, 0.5))
        rec(f"eye.{name}", init.eye_(t))
        rec(f"dirac.{name}", init.dirac_(lib.empty(2, 2, 3, dtype=d)))
    rec("after", lib.rand(3, dtype=dt))


def p_zoo_dcgan(lib, dt, rec):
    nn = lib.nn
    lib.manual_seed(42)

    def weights_init(m):  # the DCGAN tutorial's init, by class name
        classname = m.__class__.__name__
        if classname.find("Conv") != -1:
            nn.init.normal_(m.weight.data, 0.0, 0.02)
        elif classname.find("BatchNorm") != -1:
            nn.init.normal_(m.weight.data, 1.0, 0.02)
            nn.init.constant_(m.bias.data, 0)

    netG = nn.Sequential(
        nn.ConvTranspose2d(6, 8, 4, 1, 0, bias=False, dtype=dt),
        nn.BatchNorm2d(8, dtype=dt),
        nn.ReLU(True),
        nn.ConvTranspose2d(8, 3, 4, 2, 1, bias=False, dtype=dt),
        nn.Tanh(),
    )
    netD = nn.Sequential(
        nn.Conv2d(3, 4, 4, 2, 1, bias=False, dtype=dt),
        nn.LeakyReLU(0.2, inplace=True),
        nn.Conv2d(4, 1, 4, 1, 0, bias=False, dtype=dt),
        nn.Sigmoid(),
    )
    netG.apply(weights_init)
    netD.apply(weights_init)
    _params(rec, "G", netG)
    _params(rec, "D", netD)
    noise = lib.randn(2, 6, 1, 1, dtype=dt)
    fake = netG(noise)
    rec("fake", fake)
    rec("d", netD(fake))
    rec("classes", str([m.__class__.__name__ for m in netG.modules()]))


def p_zoo_vit(lib, dt, rec):
    nn = lib.nn
    lib.manual_seed(43)
    d, p, n_cls = 8, 2, 3

    class ViT(nn.Module):
        def __init__(self):
            super().__init__()
            self.conv_proj = nn.Conv2d(3, d, p, stride=p, dtype=dt)
            self.cls_token = nn.Parameter(lib.zeros(1, 1, d, dtype=dt))
            self.pos_embedding = nn.Parameter(lib.empty(1, 5, d, dtype=dt).normal_(std=0.02))
            self.rel_table = nn.Parameter(lib.zeros(9, 2, dtype=dt))  # Swin's bias table
            self.encoder = nn.TransformerEncoderLayer(d, 2, 16, 0.0, batch_first=True,
                                                      norm_first=True, dtype=dt)  # fmt: skip
            self.gamma = nn.Parameter(1e-6 * lib.ones(d, dtype=dt))  # ConvNeXt's layer scale
            self.head = nn.Linear(d, n_cls, dtype=dt)
            fan_in = self.conv_proj.in_channels * self.conv_proj.kernel_size[0] ** 2
            nn.init.trunc_normal_(self.conv_proj.weight, std=math.sqrt(1 / fan_in))
            nn.init.zeros_(self.conv_proj.bias)
            nn.init.trunc_normal_(self.rel_table, std=0.02)
            nn.init.zeros_(self.head.weight)
            nn.init.zeros_(self.head.bias)
            for m in self.encoder.modules():
                if isinstance(m, nn.Linear):
                    nn.init.xavier_uniform_(m.weight)
                    if m.bias is not None:
                        nn.init.normal_(m.bias, std=1e-6)

        def forward(self, x):
            x = self.conv_proj(x).flatten(2).transpose(1, 2)
            x = lib.cat([self.cls_token.expand(x.shape[0], -1, -1), x], 1) + self.pos_embedding
            return self.head(self.encoder(x)[:, 0] * self.gamma)

    m = ViT()
    _params(rec, "vit", m)
    rec("y", m(lib.randn(2, 3, 4, 4, dtype=dt)))


def p_zoo_bert_detr(lib, dt, rec):
    nn = lib.nn
    lib.manual_seed(44)

    class Bert(nn.Module):
        def __init__(self):
            super().__init__()
            self.word = nn.Embedding(12, 6, padding_idx=0, dtype=dt)
            self.pos = nn.Embedding(8, 6, dtype=dt)
            self.ln = nn.LayerNorm(6, eps=1e-12, dtype=dt)
            self.dense = nn.Linear(6, 6, dtype=dt)
            self.pooler = nn.Linear(6, 6, dtype=dt)
            self.apply(self._init_weights)

        def _init_weights(self, module):  # Hugging Face's BertPreTrainedModel._init_weights
            if isinstance(module, nn.Linear):
                module.weight.data.normal_(mean=0.0, std=0.02)
                if module.bias is not None:
                    module.bias.data.zero_()
            elif isinstance(module, nn.Embedding):
                module.weight.data.normal_(mean=0.0, std=0.02)
                if module.padding_idx is not None:
                    module.weight.data[module.padding_idx].zero_()
            elif isinstance(module, nn.LayerNorm):
                module.bias.data.zero_()
                module.weight.data.fill_(1.0)

    _params(rec, "bert", Bert())

    class Detr(nn.Module):
        def __init__(self):
            super().__init__()
            self.transformer = nn.Transformer(4, 2, 1, 1, 8, dropout=0.0, dtype=dt)
            self.query_embed = nn.Embedding(3, 4, dtype=dt)
            self.class_embed = nn.Linear(4, 2, dtype=dt)
            self.input_proj = nn.Conv2d(5, 4, 1, dtype=dt)
            for p in self.transformer.parameters():  # DETR's _reset_parameters
                if p.dim() > 1:
                    nn.init.xavier_uniform_(p)
            prior = 0.01  # RetinaNet's focal-loss prior on the class bias
            nn.init.constant_(self.class_embed.bias, -math.log((1 - prior) / prior))

    _params(rec, "detr", Detr())
    rec("after", lib.rand(3, dtype=dt))


def p_zoo_mobilenet(lib, dt, rec):
    nn = lib.nn
    lib.manual_seed(45)
    layers = [
        nn.Conv2d(3, 8, 3, 2, 1, bias=False, dtype=dt),
        nn.BatchNorm2d(8, dtype=dt),
        nn.ReLU6(inplace=True),
        nn.Conv2d(8, 8, 3, 1, 1, groups=8, bias=False, dtype=dt),
        nn.BatchNorm2d(8, dtype=dt),
        nn.Conv2d(8, 4, 1, bias=False, dtype=dt),
        nn.AdaptiveAvgPool2d(1),
        nn.Flatten(),
        nn.Dropout(0.2),
        nn.Linear(4, 3, dtype=dt),
    ]
    net = nn.Sequential(*layers)
    for m in net.modules():  # torchvision's MobileNetV2 / EfficientNet loops
        if isinstance(m, nn.Conv2d):
            nn.init.kaiming_normal_(m.weight, mode="fan_out")
            if m.bias is not None:
                nn.init.zeros_(m.bias)
        elif isinstance(m, (nn.BatchNorm2d, nn.GroupNorm)):
            nn.init.ones_(m.weight)
            nn.init.zeros_(m.bias)
        elif isinstance(m, nn.Linear):
            init_range = 1.0 / math.sqrt(m.out_features)
            nn.init.uniform_(m.weight, -init_range, init_range)
            nn.init.zeros_(m.bias)
    _params(rec, "mnet", net)
    net.eval()
    rec("y", net(lib.randn(2, 3, 8, 8, dtype=dt)))
    rec("n", sum(p.numel() for p in net.parameters() if p.requires_grad))


def p_expanded_chunks(lib, dt, rec):
    init = lib.nn.init
    lib.manual_seed(46)
    fns = {
        "u": lambda w: init.uniform_(w), "n": lambda w: init.normal_(w),
        "tn": lambda w: init.trunc_normal_(w), "tn_tail": lambda w: init.trunc_normal_(w, a=2, b=3),
        "xu": init.xavier_uniform_, "kn": init.kaiming_normal_, "orth": init.orthogonal_,
        "sp": lambda w: init.sparse_(w, 0.5), "c": lambda w: init.constant_(w, 2.0),
        "z": init.zeros_,
    }  # fmt: skip
    for k, fn in fns.items():
        rec.err(f"{k}.expanded", lambda fn=fn: fn(lib.zeros(1, 4, dtype=dt).expand(3, 4)).shape)
        rec(f"{k}.after", lib.rand(2, dtype=dt))
        p = lib.nn.Parameter(lib.zeros(6, 3, dtype=dt))
        for w in p.chunk(3, 0):  # a GRU's gates, one init each
            rec.err(f"{k}.chunk", lambda fn=fn, w=w: fn(w).shape)
        rec(f"{k}.chunks", p)
        rec(f"{k}.grad_fn", str(p.grad_fn))
        q = lib.nn.Parameter(lib.zeros(2, 3, 4, dtype=dt))
        for w in q.unbind(0):
            rec.err(f"{k}.unbind", lambda fn=fn, w=w: fn(w).shape)
        rec(f"{k}.unbound", q)
    rec.err("orth_perm", lambda: init.orthogonal_(lib.empty(3, 4, 2, dtype=dt).permute(0, 2, 1)))
    rec("orth_t", init.orthogonal_(lib.empty(4, 6, dtype=dt).t()))
    rec("after", lib.rand(3, dtype=dt))


def p_shared_modules(lib, dt, rec):
    nn = lib.nn
    lib.manual_seed(47)
    shared = nn.Linear(2, 2, dtype=dt)
    a = nn.Sequential(shared, nn.ReLU(), shared)
    b = nn.ModuleList([a, shared, nn.Sequential(shared)])
    seen = []

    def fn(m):  # apply visits a shared child once per parent, modules() once in all
        seen.append(type(m).__name__)
        if isinstance(m, nn.Linear):
            nn.init.normal_(m.weight)

    b.apply(fn)
    rec("seen", str(seen))
    rec("w", shared.weight)
    rec("after_apply", lib.rand(2, dtype=dt))
    for m in b.modules():
        if isinstance(m, nn.Linear):
            nn.init.uniform_(m.weight)
    rec("w2", shared.weight)
    rec("after_modules", lib.rand(2, dtype=dt))
    rec("names", str([n for n, _ in b.named_modules()]))
    rec("names_dup", str([n for n, _ in b.named_modules(remove_duplicate=False)]))
    rec("params_dup", str([n for n, _ in b.named_parameters(remove_duplicate=False)]))
    l1, l2 = nn.Linear(2, 2, dtype=dt), nn.Linear(2, 2, dtype=dt)
    l2.weight = l1.weight  # a tied weight, initialised twice through the loop
    s = nn.Sequential(l1, l2)
    for m in s.modules():
        if isinstance(m, nn.Linear):
            nn.init.xavier_uniform_(m.weight)
            nn.init.zeros_(m.bias)
    rec("tied", l1.weight)
    rec("n", len(list(s.parameters())))
    rec("sd", str(list(s.state_dict())))
    rec("after", lib.rand(3, dtype=dt))


def p_default_dtype(lib, dt, rec):
    nn = lib.nn
    old = lib.get_default_dtype()
    lib.set_default_dtype(dt)
    try:
        lib.manual_seed(48)
        m = nn.Sequential(
            nn.Linear(3, 2), nn.Conv1d(2, 2, 2), nn.LSTM(2, 2), nn.Embedding(3, 2),
            nn.MultiheadAttention(2, 1), nn.PReLU(), nn.LayerNorm(2),
        )  # fmt: skip
        _params(rec, "m", m)
        rec("tn", nn.init.trunc_normal_(lib.empty(5), std=0.02))
        rec("orth", nn.init.orthogonal_(lib.empty(2, 3)))
        rec("xu", nn.init.xavier_uniform_(lib.empty(3, 2)))
        rec("after", lib.rand(3))
    finally:
        lib.set_default_dtype(old)
