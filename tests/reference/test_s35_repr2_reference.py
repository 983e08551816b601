"""Session 35 (helper repr2): printing programs, written the way users print in torch, run
under torch and minitorch with the same seeds and compared record by record (texts exactly, with
"torch" read as "minitorch"): tensor repr/str of every dtype (bool, uint8..int64, float16,
bfloat16, float32, float64), 0-d, empty shapes ((0, 3), (2, 0, 4), ...), nan/inf/-0., the
switch to scientific notation at huge/tiny magnitudes and ratios, integer-valued floats,
summarisation (threshold, edgeitems, nested dims, linewidth wrapping of long rows and of the
suffixes), set_printoptions (precision, threshold, edgeitems, linewidth, the 'default'/'short'/
'full' profiles, sci_mode, resetting, the printoptions context), requires_grad/grad_fn/dtype
suffixes and the grad_fn names of common ops, Parameters, Buffers, tensor subclasses and meta
tensors, the default dtype's effect on the dtype suffix, nn.Module reprs (conv, pool, norm, rnn,
transformer, embedding, activation, loss, padding and misc layers with non-default arguments,
containers, custom extra_repr), the named tuples ops return (max/min/sort/topk/mode/median/
kthvalue/aminmax/cummin/svd/qr/slogdet/eigh/lu_factor/...), torch.Size, dtype, device, finfo,
iinfo and Generator, optimizer reprs and state dicts, str() vs repr() in containers, format()
with specs on 0-d tensors and its errors for other tensors, dual tensors of forward AD, and the
argument errors of torch.device and set_default_dtype. float64 and float32 both.

Found and fixed:
- A dual tensor printed inside a forward-AD level had no "tangent=..." suffix and showed
  grad_fn=<AliasBackward0> (a dual of a primal needing no grad) or its results' grad_fn; now
  torch's: the tangent last (a 0-d one as its number, f"{tangent}"), no grad suffix where the
  primal needs no grad, and a dual of a tensor requiring grad shows grad_fn=<ViewBackward0>
  (also after the level).
- set_default_dtype(float8_*) was accepted (every later float tensor became float8); torch's
  TypeError "couldn't find storage object Float8_e4m3fnStorage".
- Padding modules (ZeroPad2d, ReflectionPad*, ReplicationPad*, CircularPad*, ConstantPad*) and
  AvgPool1d/MaxUnpool* given a float size ((k - 1) / 2) raised "'float' object is not
  iterable" at construction; torch keeps and prints it (ZeroPad2d((1.0, 1.0, 1.0, 1.0))) and
  F.pad/avg_pool1d refuse it at forward with their "must be tuple of ints" TypeError.
- nn.Upsample(scale_factor=[2.0, 1.5]) was accepted; torch's float() TypeError for a list.
- torch.device(None) / (True) / ([1, 2.0]) / ((1,)) / (tensor) lacked the parser's "didn't
  match because some of the arguments have invalid types: (!list of [int, float]!)" line (and
  named a tensor "minitorch.Tensor"); device() and device("cpu", 1, 2) raised Python's
  __new__ TypeError; device(None, None) took None for no index; device(b"cuda:2") was
  refused; unknown or repeated keywords gave Python's __new__ messages.

Known and left (documented):
- Printing inside vmap or func.grad shows the per-sample tensor (minitorch runs vmap per
  sample); torch prints BatchedTensor(lvl=1, bdim=0, value=...) / GradTrackingTensor(...).
- A dual's results report requires_grad=True and a grad_fn while the level is open (the
  tangents are taken by double backward, NOTE [ Tangents through double backward ]);
  unpack_dual(y).primal is y itself where torch gives a view (grad_fn=<Identity>), so printing
  it shows the tangent; a tangent's own grad_fn (torch: AddBackward0) is not recorded; a
  result whose saved tensor was modified in place (or made under no_grad) prints without its
  tangent (and with its grad_fn), as its tangent cannot be taken here.
- Factories given a non-device (zeros(2, device=3.5)) raise torch.device's parser error, not
  torch's "zeros(): argument 'device' must be torch.device, not float" (the op name is not
  passed to the shared device argument helper).
- set_printoptions(edgeitems=2.0) / (edgeitems=-1) print differently from torch (a float
  edgeitems raises NumPy's cast TypeError, torch's slice-index one); nobody passes these.
- AttributeError/format messages naming torch's C types ('torch.finfo' object has no
  attribute ..., torch.device.__format__) name the Python class ('finfo', 'device').
- device("cuda", 2**40): torch wraps the index to its 8-bit DeviceIndex; minitorch keeps it.
- Sparse tensor reprs, complex dtypes, torch.quint8 and friends do not exist here."""

from __future__ import annotations

import contextlib

import pytest

from tests.reference._one_thread import one_torch_thread  # noqa: F401 - an autouse fixture
from tests.reference._programs import assert_program_matches
from tests.reference._programs import seeded_randn as _randn

torch = pytest.importorskip("torch")


PROGRAMS = [
    "dtype_reprs", "zero_dim", "empty_shapes", "specials", "sci_switch", "integral_floats",
    "mixed_magnitudes", "summarize", "summarize_nested", "linewidth", "printoptions",
    "profiles", "sci_mode", "grad_suffixes", "parameters", "conv_modules", "pool_modules",
    "norm_modules", "rnn_modules", "transformer_modules", "embedding_modules",
    "activation_modules", "misc_modules", "containers", "named_tuples", "linalg_tuples",
    "size_dtype_device", "finfo_iinfo", "generator", "format_specs", "format_errors",
    "str_vs_repr", "views", "half_precision", "optimizer_repr", "loss_modules",
    "custom_extra_repr", "printoptions_ctx", "dual_repr", "module_float_sizes", "default_dtype",
    "subclass_reprs", "meta_reprs", "optim_state", "device_args",
]  # fmt: skip


@pytest.mark.parametrize("dt", ["float64", "float32"])
@pytest.mark.parametrize("name", PROGRAMS)
def test_program_matches_torch(name, dt):
    assert_program_matches(globals()["p_" + name], torch, dt)


# --- helpers ---


@contextlib.contextmanager
def _opts(lib, **kwargs):
    """Print options inside a block; the defaults are restored after it, as users reset them."""
    lib.set_printoptions(**kwargs)
    try:
        yield
    finally:
        lib.set_printoptions(profile="default", sci_mode=None)


def _both(rec, name, obj):
    rec(name + ".repr", repr(obj))
    rec(name + ".str", str(obj))


INT_DTYPES = ["uint8", "int8", "int16", "int32", "int64"]


# --- the programs: each takes the library, a dtype and a recorder ---


def p_dtype_reprs(lib, dt, rec):
    _both(rec, "bool", lib.tensor([[True, False], [False, True]]))
    for name in INT_DTYPES:
        d = getattr(lib, name)
        _both(rec, name, lib.tensor([[0, 1, 12], [100, 7, 3]], dtype=d))
        info = lib.iinfo(d)
        _both(rec, name + ".ext", lib.tensor([info.min, 0, info.max], dtype=d))
    for name in ["float16", "bfloat16", "float32", "float64"]:
        d = getattr(lib, name)
        _both(rec, name, lib.tensor([[0.5, -1.25, 3.0], [2.0, 0.1, 7.75]], dtype=d))
        _both(rec, name + ".int", lib.tensor([1.0, 2.0, -3.0], dtype=d))
    x = _randn(lib, dt, 0, 3, 4)
    _both(rec, "randn", x)
    _both(rec, "randn.neg", -x.abs())
    rec("randn.T", repr(x.t()))


def p_zero_dim(lib, dt, rec):
    for v in [0.0, -0.0, 1.0, -2.5, 1e-8, 1e10, 123456.789, float("nan"), float("inf")]:
        _both(rec, f"f{v}", lib.tensor(v, dtype=dt))
    for name in INT_DTYPES:
        _both(rec, name, lib.tensor(7, dtype=getattr(lib, name)))
    _both(rec, "bool", lib.tensor(False))
    _both(rec, "half", lib.tensor(0.1, dtype=lib.float16))
    _both(rec, "bf16", lib.tensor(0.1, dtype=lib.bfloat16))
    s = _randn(lib, dt, 1, 5).sum()
    rec("sum", repr(s))
    rec("item", repr(round(s.item(), 6)))
    rec("rg", repr(lib.tensor(3.0, dtype=dt, requires_grad=True)))
    rec("mean", repr(lib.tensor([1.0, 2.0], dtype=dt, requires_grad=True).mean()))


def p_empty_shapes(lib, dt, rec):
    for shape in [(0,), (0, 3), (3, 0), (2, 0, 4), (1, 0), (0, 0, 0)]:
        _both(rec, str(shape), lib.zeros(shape, dtype=dt))
    for name in INT_DTYPES + ["bool", "float16", "bfloat16"]:
        rec(name, repr(lib.empty(0, 2, dtype=getattr(lib, name))))
    rec("1d.int", repr(lib.tensor([], dtype=lib.int64)))
    rec("rg", repr(lib.zeros(0, 3, dtype=dt, requires_grad=True)))
    rec("gradfn", repr(lib.zeros(2, 0, dtype=dt, requires_grad=True) * 2))
    x = _randn(lib, dt, 2, 4, 5)
    rec("slice", repr(x[:, 5:]))
    rec("masked", repr(x[x > 100]))
    rec("nonzero", repr(lib.nonzero(x > 100)))


def p_specials(lib, dt, rec):
    nan, inf = float("nan"), float("inf")
    rows = [
        [nan, inf, -inf],
        [0.0, -0.0, 1.5],
        [nan, 1.0, 2.0],
        [inf, -inf, 1e-5],
        [-0.0, -0.0, -0.0],
        [nan, nan, nan],
        [inf, 1e9, -2.0],
        [0.0, 3.0, -inf],
    ]
    for i, row in enumerate(rows):
        _both(rec, f"row{i}", lib.tensor(row, dtype=dt))
    x = _randn(lib, dt, 2, 3, 4)
    x[0, 1] = nan
    x[2, 3] = -inf
    rec("mixed", repr(x))
    rec("log", repr(lib.log(lib.tensor([-1.0, 0.0, 1.0, 2.0], dtype=dt))))
    rec("div", repr(lib.tensor([1.0, -1.0, 0.0], dtype=dt) / 0))


def p_sci_switch(lib, dt, rec):
    cases = [
        [1e-4, 1.0],
        [9.99e-5, 1.0],
        [1e-3, 0.5],
        [1.0, 1000.0],
        [1.0, 1001.0],
        [1e8, 1.0],
        [1e8 + 1, 1e8],
        [1e-10, 2e-10],
        [5e7, 1.5],
        [1e20, -1e20],
        [123.456, 0.5],
        [1e-5, 0.0],
        [0.1, 100.0],
        [1e5, 1e5],
    ]
    for i, row in enumerate(cases):
        _both(rec, f"c{i}", lib.tensor(row, dtype=dt))
    x = _randn(lib, dt, 3, 4, 3)
    rec("scaled.big", repr(x * 1e9))
    rec("scaled.tiny", repr(x * 1e-7))
    rec("scaled.range", repr(x * lib.tensor([1.0, 1e3, 1e6], dtype=dt)))


def p_integral_floats(lib, dt, rec):
    rec("arange", repr(lib.arange(6, dtype=dt)))
    rec("arange.2d", repr(lib.arange(12, dtype=dt).reshape(3, 4) - 5))
    rec("ones", repr(lib.ones(2, 3, dtype=dt)))
    rec("zeros", repr(lib.zeros(2, 2, dtype=dt)))
    rec("big", repr(lib.tensor([1e7, 2e7, -3.0], dtype=dt)))
    rec("huge", repr(lib.tensor([1e9, 2.0], dtype=dt)))
    rec("nan", repr(lib.tensor([1.0, float("nan"), 3.0], dtype=dt)))
    rec("inf", repr(lib.tensor([1.0, float("inf")], dtype=dt)))
    rec("eye", repr(lib.eye(3, dtype=dt)))
    rec("round", repr(lib.round(_randn(lib, dt, 4, 2, 3) * 10)))
    rec("floor", str(lib.floor(_randn(lib, dt, 5, 5) * 100)))


def p_mixed_magnitudes(lib, dt, rec):
    rec("a", repr(lib.tensor([1e-3, 1.0, 50.0], dtype=dt)))
    rec("b", repr(lib.tensor([[1e-2, 3e2], [4.0, -5.5]], dtype=dt)))
    rec("c", repr(lib.tensor([0.0001, 0.1], dtype=dt)))
    rec("d", repr(lib.tensor([1e3, 0.9999], dtype=dt)))
    rec("e", repr(lib.tensor([12345.678, 0.001], dtype=dt)))
    rec("f", repr(lib.tensor([99999.5, 1.0], dtype=dt)))
    rec("g", repr(lib.tensor([-1e-8, 1e-8, 0.0], dtype=dt)))
    x = _randn(lib, dt, 6, 4, 4)
    rec("exp", repr(lib.exp(x * 5)))
    rec("softmax", repr(lib.softmax(x * 8, dim=1)))


def p_summarize(lib, dt, rec):
    rec("1001", repr(lib.arange(1001, dtype=dt)))
    rec("1000", repr(lib.arange(1000, dtype=dt))[:200] + "|" + repr(lib.arange(1000))[-100:])
    rec("long", repr(lib.arange(2000)))
    x = _randn(lib, dt, 7, 40, 30)
    _both(rec, "2d", x)
    rec("2d.T", repr(x.t()))
    rec("ints", repr((x * 100).long()))
    rec("bool", repr(x > 0))
    rec("mid_nan", repr(lib.cat([lib.tensor([float("nan")], dtype=dt), lib.zeros(1100, dtype=dt)])))
    y = lib.linspace(0, 1, 5000, dtype=dt)
    rec("linspace", repr(y))
    rec("hidden_big", repr(lib.cat([lib.ones(3, dtype=dt), lib.full((1000,), 1e9, dtype=dt),
                                    lib.ones(3, dtype=dt) * 0.5])))  # fmt: skip


def p_summarize_nested(lib, dt, rec):
    x = _randn(lib, dt, 8, 10, 11, 12)
    rec("3d", repr(x))
    rec("4d", repr(_randn(lib, dt, 9, 2, 8, 9, 10)))
    rec("one_long", repr(_randn(lib, dt, 10, 2, 2, 600)))
    rec("narrow", repr(_randn(lib, dt, 11, 1200, 1)))
    with _opts(lib, threshold=10, edgeitems=1):
        rec("edge1", repr(x))
        rec("edge1.int", repr(lib.arange(24).reshape(2, 3, 4)))
    with _opts(lib, threshold=5, edgeitems=2):
        rec("edge2", repr(lib.arange(60, dtype=dt).reshape(3, 4, 5)))
    with _opts(lib, threshold=5, edgeitems=0):
        rec("edge0", repr(lib.arange(60, dtype=dt).reshape(3, 4, 5)))
        rec("edge0.rg", repr(lib.ones(10, dtype=dt, requires_grad=True)))


def p_linewidth(lib, dt, rec):
    x = _randn(lib, dt, 12, 40)
    rec("default", repr(x))
    rec("2d", repr(x.reshape(2, 20)))
    for lw in [20, 40, 120, 200]:
        with _opts(lib, linewidth=lw):
            rec(f"lw{lw}", repr(x.reshape(2, 20)))
            rec(f"lw{lw}.int", repr(lib.arange(50)))
            rec(f"lw{lw}.sfx", repr(lib.arange(30, dtype=lib.int16)))
    with _opts(lib, linewidth=30):
        rec("suffix", repr(lib.ones(6, dtype=lib.float16, requires_grad=True)))
        rec("suffix.fn", repr(lib.ones(3, 4, dtype=lib.float16, requires_grad=True) * 2))


def p_printoptions(lib, dt, rec):
    x = _randn(lib, dt, 13, 2, 3) * 3
    for p in [0, 1, 2, 8]:
        with _opts(lib, precision=p):
            rec(f"p{p}", repr(x))
            rec(f"p{p}.sci", repr(x * 1e6))
            rec(f"p{p}.0d", repr(x[0, 0]))
    with _opts(lib, threshold=5):
        rec("thr5", repr(lib.arange(6, dtype=dt)))
        rec("thr5.small", repr(lib.arange(5, dtype=dt)))
    with _opts(lib, edgeitems=1, threshold=3):
        rec("edge1", repr(x))
    lib.set_printoptions(precision=2)
    lib.set_printoptions(threshold=10)  # keeps precision
    rec("kept", repr(lib.arange(20, dtype=dt) / 3))
    lib.set_printoptions(profile="default")
    rec("reset", repr(lib.arange(20, dtype=dt) / 3))
    lib.set_printoptions(profile="nonsense", precision=3)
    rec("unknown_profile", repr(x))
    lib.set_printoptions(profile="default")
    rec("opts", repr(lib._tensor_str.get_printoptions()))


def p_profiles(lib, dt, rec):
    x = _randn(lib, dt, 14, 10, 120)
    for prof in ["short", "full", "default"]:
        with _opts(lib, profile=prof):
            rec(prof, repr(x[:3]))
            rec(prof + ".big", repr(x)[:600])
            rec(prof + ".opts", repr(lib._tensor_str.get_printoptions()))
    with _opts(lib, profile="short", precision=5):
        rec("short+p", repr(x[0, :4]))


def p_sci_mode(lib, dt, rec):
    x = lib.tensor([[1.5, -2.25], [1000.0, 0.001]], dtype=dt)
    for mode in [True, False, None]:
        with _opts(lib, sci_mode=mode):
            rec(f"{mode}", repr(x))
            rec(f"{mode}.ints", repr(lib.tensor([1.0, 2.0, 300.0], dtype=dt)))
            rec(f"{mode}.tiny", repr(lib.tensor([1e-9, 1.0], dtype=dt)))
            rec(f"{mode}.0d", repr(lib.tensor(0.5, dtype=dt)))
            rec(f"{mode}.zeros", repr(lib.zeros(3, dtype=dt)))
            rec(f"{mode}.int64", repr(lib.tensor([10, 2000])))
    with _opts(lib, sci_mode=True, precision=2):
        rec("sci.p2", repr(x))
    with _opts(lib, sci_mode=False, precision=10):
        rec("fixed.p10", repr(lib.tensor([1e-9, 1e9], dtype=dt)))


def p_grad_suffixes(lib, dt, rec):
    a = _randn(lib, dt, 15, 3).requires_grad_()
    b = _randn(lib, dt, 16, 3)
    rec("leaf", repr(a))
    outs = {
        "add": a + b, "mul": a * 2, "sub": a - b, "div": a / 3, "sum": a.sum(),
        "mean": a.mean(), "exp": a.exp(), "view": a.view(3, 1), "T": a.reshape(1, 3).t(),
        "index": a[1:], "sel": a[0], "relu": lib.relu(a), "sigmoid": a.sigmoid(),
        "tanh": lib.tanh(a), "pow": a**2, "matmul": a @ b, "neg": -a, "cat": lib.cat([a, b]),
        "stack": lib.stack([a, b]), "clone": a.clone(), "abs": a.abs(), "max": a.max(),
        "norm": a.norm(), "unsqueeze": a.unsqueeze(0), "expand": a.expand(2, 3),
        "softmax": lib.softmax(a, 0), "lsm": lib.log_softmax(a, 0), "float": a.float(),
        "to64": a.to(lib.float64), "mse": lib.nn.functional.mse_loss(a, b),
    }  # fmt: skip
    for k, v in outs.items():
        rec(k, repr(v))
    rec("detach", repr(a.detach()))
    with lib.no_grad():
        rec("nograd", repr(a * 2))
    a.sum().backward()
    rec("grad", repr(a.grad))
    rec("requires_grad_false", repr(lib.ones(2, dtype=dt).requires_grad_(False)))
    lin = lib.nn.Linear(3, 2).to(dt)
    rec("linear", repr(lin(b)).split("[")[0] + type(lin(b).grad_fn).__name__)


def p_parameters(lib, dt, rec):
    lib.manual_seed(0)
    p = lib.nn.Parameter(lib.ones(2, 3, dtype=dt))
    _both(rec, "p", p)
    _both(rec, "nograd", lib.nn.Parameter(lib.zeros(2, dtype=dt), requires_grad=False))
    _both(rec, "0d", lib.nn.Parameter(lib.tensor(0.5, dtype=dt)))
    _both(rec, "empty", lib.nn.Parameter(lib.zeros(0, 4, dtype=dt)))
    _both(rec, "big", lib.nn.Parameter(lib.arange(2000, dtype=dt)))
    rec("half", repr(lib.nn.Parameter(lib.ones(2, dtype=lib.float16))))
    rec("pp", repr(p * 2))
    rec("data", repr(p.data))
    rec("detach", repr(p.detach()))
    rec("list", repr([p]))
    rec("buf", repr(lib.nn.Buffer(lib.ones(2, dtype=dt))))
    m = lib.nn.Linear(2, 2)
    with lib.no_grad():
        m.weight.fill_(0.5)
        m.bias.zero_()
    rec("named", repr(list(m.named_parameters())))
    rec("state_dict", repr(m.state_dict()))


def p_conv_modules(lib, dt, rec):
    nn = lib.nn
    mods = [
        nn.Conv1d(3, 8, 5),
        nn.Conv1d(3, 6, 3, stride=2, padding=1),
        nn.Conv1d(4, 4, 3, padding="same", dilation=2, groups=2, bias=False),
        nn.Conv2d(3, 16, (3, 5), stride=(2, 1), padding=(1, 2), padding_mode="reflect"),
        nn.Conv2d(3, 16, 3, padding="valid"),
        nn.Conv2d(4, 8, 1, groups=4, padding_mode="circular"),
        nn.Conv3d(2, 4, 3, stride=2, dilation=(1, 2, 1)),
        nn.ConvTranspose1d(4, 2, 3, stride=2, output_padding=1),
        nn.ConvTranspose2d(8, 4, 4, stride=2, padding=1, bias=False, dilation=1),
        nn.ConvTranspose2d(8, 4, 3, stride=2, groups=2, dilation=2, output_padding=(1, 0)),
        nn.ConvTranspose3d(2, 2, (1, 3, 3)),
        nn.Unfold(kernel_size=3, padding=1),
        nn.Fold(output_size=(4, 5), kernel_size=2, stride=2),
    ]
    for i, m in enumerate(mods):
        _both(rec, f"m{i}", m)


def p_pool_modules(lib, dt, rec):
    nn = lib.nn
    mods = [
        nn.MaxPool1d(3),
        nn.MaxPool2d(2, stride=1, padding=1, dilation=2, ceil_mode=True),
        nn.MaxPool2d((2, 3), return_indices=True),
        nn.MaxPool3d(2),
        nn.AvgPool1d(4, stride=2, count_include_pad=False),
        nn.AvgPool2d(3, padding=1, ceil_mode=True, divisor_override=2),
        nn.AvgPool3d((1, 2, 2)),
        nn.AdaptiveAvgPool1d(5),
        nn.AdaptiveAvgPool2d((None, 7)),
        nn.AdaptiveAvgPool3d(1),
        nn.AdaptiveMaxPool2d((3, 3), return_indices=True),
        nn.AdaptiveMaxPool1d(2),
        nn.LPPool1d(2, 3),
        nn.LPPool2d(1.5, (2, 2), stride=1),
        nn.MaxUnpool2d(2, stride=2),
        nn.MaxUnpool1d(3),
        nn.FractionalMaxPool2d(3, output_ratio=(0.5, 0.5)),
    ]
    for i, m in enumerate(mods):
        _both(rec, f"m{i}", m)


def p_norm_modules(lib, dt, rec):
    nn = lib.nn
    mods = [
        nn.BatchNorm1d(10),
        nn.BatchNorm2d(16, eps=1e-3, momentum=0.01),
        nn.BatchNorm2d(8, affine=False, track_running_stats=False),
        nn.BatchNorm3d(4, momentum=None),
        nn.LayerNorm(64),
        nn.LayerNorm((8, 8), eps=1e-6, elementwise_affine=False),
        nn.LayerNorm(16, bias=False),
        nn.GroupNorm(4, 16),
        nn.GroupNorm(2, 8, affine=False),
        nn.InstanceNorm1d(5),
        nn.InstanceNorm2d(3, affine=True, track_running_stats=True),
        nn.LocalResponseNorm(3, alpha=0.001, beta=0.5, k=2.0),
        nn.RMSNorm(32),
        nn.RMSNorm([4, 4], eps=1e-5, elementwise_affine=False),
        nn.SyncBatchNorm(6),
        nn.CrossMapLRN2d(3),
    ]
    for i, m in enumerate(mods):
        _both(rec, f"m{i}", m)


def p_rnn_modules(lib, dt, rec):
    nn = lib.nn
    mods = [
        nn.RNN(10, 20),
        nn.RNN(4, 8, num_layers=2, nonlinearity="relu", bias=False),
        nn.LSTM(10, 20, batch_first=True),
        nn.LSTM(3, 5, 2, dropout=0.25, bidirectional=True),
        nn.LSTM(6, 8, proj_size=4),
        nn.GRU(7, 9, num_layers=3, batch_first=True, bidirectional=True),
        nn.RNNCell(3, 4),
        nn.RNNCell(3, 4, nonlinearity="relu", bias=False),
        nn.LSTMCell(5, 6),
        nn.GRUCell(2, 3, bias=False),
    ]
    for i, m in enumerate(mods):
        _both(rec, f"m{i}", m)


def p_transformer_modules(lib, dt, rec):
    nn = lib.nn
    lib.manual_seed(0)
    rec("mha", repr(nn.MultiheadAttention(16, 4)))
    rec("mha.kv", repr(nn.MultiheadAttention(16, 2, dropout=0.1, kdim=8, vdim=12, bias=False)))
    rec("mha.bf", repr(nn.MultiheadAttention(8, 2, batch_first=True, add_bias_kv=True)))
    rec("enc", repr(nn.TransformerEncoderLayer(16, 4, dim_feedforward=32)))
    rec("enc.gelu", repr(nn.TransformerEncoderLayer(8, 2, 16, 0.0, "gelu", norm_first=True)))
    rec("dec", repr(nn.TransformerDecoderLayer(8, 2, dim_feedforward=16, batch_first=True)))
    layer = nn.TransformerEncoderLayer(8, 2, 16)
    rec("stack", repr(nn.TransformerEncoder(layer, 2, norm=nn.LayerNorm(8),
                                            enable_nested_tensor=False)))  # fmt: skip
    rec("full", repr(nn.Transformer(8, 2, 1, 1, 16)))


def p_embedding_modules(lib, dt, rec):
    nn = lib.nn
    mods = [
        nn.Embedding(10, 3),
        nn.Embedding(100, 16, padding_idx=0),
        nn.Embedding(5, 2, max_norm=1.0, norm_type=1.0, scale_grad_by_freq=True, sparse=True),
        nn.Embedding(7, 4, padding_idx=-1, max_norm=2.5),
        nn.EmbeddingBag(10, 3),
        nn.EmbeddingBag(10, 3, mode="sum", padding_idx=2),
        nn.EmbeddingBag(10, 3, mode="max", max_norm=1.0, include_last_offset=True),
        nn.Embedding.from_pretrained(lib.ones(3, 2, dtype=dt)),
        nn.Embedding.from_pretrained(lib.ones(3, 2, dtype=dt), freeze=False, padding_idx=1),
    ]
    for i, m in enumerate(mods):
        _both(rec, f"m{i}", m)
    rec("weight.frozen", repr(mods[7].weight))


def p_activation_modules(lib, dt, rec):
    nn = lib.nn
    mods = [
        nn.ReLU(),
        nn.ReLU(inplace=True),
        nn.ReLU6(True),
        nn.LeakyReLU(),
        nn.LeakyReLU(0.2, True),
        nn.ELU(alpha=0.5),
        nn.ELU(inplace=True),
        nn.CELU(2.0),
        nn.SELU(True),
        nn.GELU(),
        nn.GELU("tanh"),
        nn.SiLU(inplace=True),
        nn.Mish(),
        nn.Hardswish(),
        nn.Hardsigmoid(True),
        nn.Hardtanh(-2.0, 2.0),
        nn.Hardtanh(inplace=True),
        nn.Softplus(beta=2, threshold=10),
        nn.Softplus(),
        nn.Softsign(),
        nn.Softshrink(0.3),
        nn.Hardshrink(),
        nn.Tanhshrink(),
        nn.Threshold(0.1, 20.0),
        nn.Threshold(0, -1, inplace=True),
        nn.Sigmoid(),
        nn.Tanh(),
        nn.LogSigmoid(),
        nn.Softmax(dim=1),
        nn.Softmax(),
        nn.Softmin(-1),
        nn.LogSoftmax(dim=0),
        nn.Softmax2d(),
        nn.GLU(),
        nn.GLU(dim=1),
        nn.PReLU(),
        nn.PReLU(3, init=0.1),
        nn.RReLU(),
        nn.RReLU(0.1, 0.3, inplace=True),
    ]
    for i, m in enumerate(mods):
        _both(rec, f"m{i}", m)


def p_misc_modules(lib, dt, rec):
    nn = lib.nn
    mods = [
        nn.Linear(4, 3), nn.Linear(4, 3, bias=False), nn.Bilinear(2, 3, 4), nn.Identity(),
        nn.Identity(54, unused="x"), nn.LazyLinear(5), nn.Flatten(), nn.Flatten(0, 2),
        nn.Unflatten(1, (2, 5)), nn.Dropout(), nn.Dropout(0.3, inplace=True), nn.Dropout2d(0.1),
        nn.AlphaDropout(0.2), nn.Upsample(scale_factor=2), nn.Upsample(size=(4, 4),
        mode="bilinear", align_corners=True), nn.UpsamplingNearest2d(scale_factor=3),
        nn.PixelShuffle(2), nn.PixelUnshuffle(3), nn.ChannelShuffle(2), nn.ZeroPad2d(2),
        nn.ZeroPad2d((1, 2, 0, 1)), nn.ConstantPad1d(3, 2.5), nn.ReflectionPad2d(1),
        nn.ReplicationPad3d((1, 1, 2, 2, 0, 0)), nn.CircularPad1d(2), nn.CosineSimilarity(),
        nn.PairwiseDistance(p=1.0, keepdim=True),
    ]  # fmt: skip
    for i, m in enumerate(mods):
        _both(rec, f"m{i}", m)


def p_containers(lib, dt, rec):
    nn = lib.nn
    net = nn.Sequential(
        nn.Conv2d(1, 4, 3),
        nn.ReLU(),
        nn.Sequential(nn.Flatten(), nn.Linear(36, 10)),
        nn.LogSoftmax(dim=1),
    )
    _both(rec, "seq", net)
    from collections import OrderedDict

    rec("odict", repr(nn.Sequential(OrderedDict([("fc", nn.Linear(2, 2)), ("act", nn.Tanh())]))))
    rec("mlist", repr(nn.ModuleList([nn.Linear(2, 2) for _ in range(3)] + [nn.ReLU()])))
    rec("mlist.same", repr(nn.ModuleList([nn.ReLU() for _ in range(5)])))
    rec("mdict", repr(nn.ModuleDict({"a": nn.Linear(1, 1), "b": nn.Dropout()})))
    rec("empty_seq", repr(nn.Sequential()))
    rec("empty_list", repr(nn.ModuleList()))
    plist = nn.ParameterList([nn.Parameter(lib.ones(2, 3, dtype=dt)), nn.Parameter(lib.ones(4))])
    rec("plist", repr(plist))
    pdict = nn.ParameterDict({"w": nn.Parameter(lib.ones(2, dtype=dt))})
    rec("pdict", repr(pdict))

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.body = nn.Sequential(nn.Linear(3, 3), nn.BatchNorm1d(3))
            self.heads = nn.ModuleList([nn.Linear(3, 1), nn.Linear(3, 2)])
            self.scale = nn.Parameter(lib.ones(1))
            self.register_buffer("step", lib.zeros(()))

    rec("net", repr(Net()))
    rec("net.children", repr(list(Net().named_children())))
    rec("net.modules", str([type(m).__name__ for m in Net().modules()]))
    rec("seq.slice", repr(net[1:3]))


def p_named_tuples(lib, dt, rec):
    x = lib.tensor([[3.0, 1.0, 2.0], [0.5, 4.0, 4.5]], dtype=dt)
    rec("max", repr(x.max(dim=1)))
    rec("max.kd", repr(lib.max(x, 0, keepdim=True)))
    rec("min", repr(x.min(1)))
    rec("sort", repr(x.sort(dim=1, descending=True)))
    rec("sort.str", str(lib.sort(x[0])))
    rec("topk", repr(x.topk(2)))
    rec("mode", repr(lib.tensor([1, 2, 2, 3, 3, 3]).mode()))
    rec("median", repr(x.median(dim=1)))
    rec("nanmedian", repr(lib.tensor([1.0, float("nan"), 2.0], dtype=dt).nanmedian(0)))
    rec("kth", repr(x.kthvalue(2, dim=1)))
    rec("aminmax", repr(lib.aminmax(x, dim=0)))
    rec("cummin", repr(lib.cummin(x, dim=1)))
    rec("std_mean", repr(lib.std_mean(x, dim=1)))
    rec("var_mean", repr(lib.var_mean(x)))
    r = x.max(1)
    rec("fields", repr((r.n_fields, type(r).__name__, type(r).__module__, len(r))))
    rec("values", repr(r.values))
    rec("indices", repr(r[1]))
    v, i = x.min(0)
    rec("unpack", repr((v, i)))
    rec("rg", repr(x.clone().requires_grad_().max(1)))
    rec("unique", repr(lib.unique(lib.tensor([3, 1, 3, 2]), return_counts=True)))


def p_linalg_tuples(lib, dt, rec):
    a = lib.tensor([[4.0, 1.0], [1.0, 3.0]], dtype=dt)
    rec("slogdet", repr(lib.linalg.slogdet(a)))
    rec("slogdet.old", repr(lib.slogdet(a)))
    q, r = lib.linalg.qr(lib.tensor([[3.0, 0.0], [4.0, 5.0]], dtype=dt))
    rec("qr", repr(lib.linalg.qr(lib.tensor([[3.0, 0.0], [4.0, 5.0]], dtype=dt)))[:20])
    rec("qr.r", repr(r.abs()))
    rec("qr.type", type(lib.linalg.qr(a)).__name__ + type(lib.qr(a)).__name__)
    u, s, vh = lib.linalg.svd(lib.tensor([[2.0, 0.0], [0.0, 1.0]], dtype=dt))
    rec("svd.s", repr(s))
    rec("svd.head", repr(lib.linalg.svd(a))[:30])
    rec("svd.old", repr(lib.svd(a))[:30] + type(lib.svd(a)).__name__)
    rec("eigh", repr(lib.linalg.eigh(lib.eye(2, dtype=dt) * 2)))
    rec("eigvalsh", repr(lib.linalg.eigvalsh(a)))
    rec("inv_ex", repr(lib.linalg.inv_ex(lib.eye(2, dtype=dt))))
    rec("cholesky_ex", repr(lib.linalg.cholesky_ex(lib.eye(2, dtype=dt) * 4)))
    rec("lu_factor", repr(lib.linalg.lu_factor(lib.eye(2, dtype=dt))))
    rec("lstsq", repr(type(lib.linalg.lstsq(a, a)).__name__))
    rec("frexp", repr(lib.frexp(lib.tensor([8.0, 0.75], dtype=dt))))
    rec("histc", repr(lib.histogram(lib.tensor([1.0, 2.0, 2.5], dtype=dt), bins=3)))


def p_size_dtype_device(lib, dt, rec):
    x = lib.zeros(2, 3, 4, dtype=dt)
    for name, v in [
        ("shape", x.shape), ("size", x.size()), ("size1", x.size(1)), ("0d", lib.tensor(1).shape),
        ("slice", x.shape[1:]), ("numel", x.shape.numel()), ("Size", lib.Size([5])),
        ("Size.empty", lib.Size()), ("add", x.shape + (1,)), ("tuple", tuple(x.shape)),
        ("dtype", x.dtype), ("dtypes", [lib.float, lib.double, lib.half, lib.long, lib.int,
        lib.short, lib.uint8, lib.bool, lib.bfloat16, lib.cfloat if False else lib.int8]),
        ("device", x.device), ("dev.cuda", lib.device("cuda:1")), ("dev.idx", lib.device("cpu", 0)),
        ("dev.type", lib.device("cuda").type), ("is_fp", x.dtype.is_floating_point),
        ("itemsize", x.dtype.itemsize), ("layout", x.layout), ("strided", lib.strided),
        ("mf", lib.contiguous_format), ("cl", lib.channels_last),
        ("default", lib.get_default_dtype()),
    ]:  # fmt: skip
        _both(rec, name, v)
    rec("fmt", f"{x.shape} {x.dtype} {x.device}")
    rec("Size.err", repr(type(x.shape).__mro__[1]))


def p_finfo_iinfo(lib, dt, rec):
    for name in ["float16", "bfloat16", "float32", "float64"]:
        fi = lib.finfo(getattr(lib, name))
        _both(rec, name, fi)
        rec(name + ".fields", repr((fi.bits, fi.eps, fi.max, fi.min, fi.tiny, fi.resolution,
                                    fi.smallest_normal, fi.dtype)))  # fmt: skip
    _both(rec, "default", lib.finfo())
    for name in INT_DTYPES + ["uint16", "uint32", "uint64"]:
        ii = lib.iinfo(getattr(lib, name))
        _both(rec, name, ii)
        rec(name + ".fields", repr((ii.bits, ii.min, ii.max, ii.dtype)))
    rec("finfo.int", lib_err(lambda: lib.finfo(lib.int32)))
    rec("iinfo.float", lib_err(lambda: lib.iinfo(lib.float32)))
    rec("iinfo.bool", lib_err(lambda: lib.iinfo(lib.bool)))


def lib_err(fn):
    try:
        return repr(fn())
    except Exception as e:  # noqa: BLE001 - the error is the record
        return f"{type(e).__name__}: {e}"


def p_generator(lib, dt, rec):
    g = lib.Generator()
    rec("type", type(g).__name__)
    rec("device", repr(g.device))
    rec("seeded", repr(g.manual_seed(3).initial_seed()))
    rec("same", str(g.manual_seed(5) is g))
    rec("default_seed", repr(lib.default_generator.device))
    rec("state", repr((g.get_state().dtype, g.get_state().shape[0] > 0)))


def p_format_specs(lib, dt, rec):
    t = lib.tensor(3.14159265, dtype=dt)
    for spec in ["", ".3f", ".2e", "10.4f", "<10.2f", "+.1f", "g", ".0%", "e", "08.3f"]:
        rec(f"f[{spec}]", format(t, spec))
    rec("fstr", f"loss={t:.4f} acc={lib.tensor(0.9, dtype=dt):.1%}")
    i = lib.tensor(42)
    for spec in ["", "d", "5d", "x", "b", "+d", "08d", ",", ".2f"]:
        rec(f"i[{spec}]", format(i, spec))
    rec("b", format(lib.tensor(True), ""))
    rec("b.d", format(lib.tensor(True), "d"))
    rec("half", format(lib.tensor(0.1, dtype=lib.float16), ".6f"))
    rec("bf16", format(lib.tensor(0.1, dtype=lib.bfloat16), ".6f"))
    rec("u8", format(lib.tensor(200, dtype=lib.uint8), "x"))
    rec("rg", f"{lib.tensor(2.5, dtype=dt, requires_grad=True):.2f}")
    rec("gradfn", f"{lib.tensor(2.5, dtype=dt, requires_grad=True) * 2:.2f}")
    rec("one", format(lib.tensor([1.5], dtype=dt), ""))
    rec("vec", format(lib.tensor([1.5, 2.5], dtype=dt)))
    rec("nan", f"{lib.tensor(float('nan'), dtype=dt):.3f}")
    rec("inf", f"{lib.tensor(float('-inf'), dtype=dt):8.2f}")
    rec("item", f"{lib.tensor([0.25], dtype=dt).item():.3f}")
    rec("sum", f"{lib.ones(3, dtype=dt).sum():.1f}")
    rec.err("param", lambda: f"{lib.nn.Parameter(lib.tensor(1.5, dtype=dt)):.2f}")
    rec("param.empty", format(lib.nn.Parameter(lib.tensor(1.5, dtype=dt)), ""))


def p_format_errors(lib, dt, rec):
    rec.err("vec", lambda: format(lib.tensor([1.5, 2.5], dtype=dt), ".2f"))
    rec.err("one", lambda: format(lib.tensor([1.5], dtype=dt), ".2f"))
    rec.err("empty", lambda: format(lib.zeros(0, dtype=dt), ".2f"))
    rec.err("2d", lambda: f"{lib.ones(2, 2, dtype=dt):.3f}")
    rec.err("int.f", lambda: format(lib.tensor(3), ".2f"))
    rec.err("float.d", lambda: format(lib.tensor(3.0, dtype=dt), "d"))
    rec.err("bool.f", lambda: format(lib.tensor(True), ".2f"))
    rec.err("bad", lambda: format(lib.tensor(1.0, dtype=dt), "q"))
    rec.err("item", lambda: lib.ones(2, dtype=dt).item())
    rec.err("float", lambda: float(lib.ones(2, dtype=dt)))
    rec.err("int", lambda: int(lib.ones(3, dtype=dt)))
    rec.err("bool", lambda: bool(lib.ones(2, dtype=dt)))
    rec.err("bool.empty", lambda: bool(lib.zeros(0, dtype=dt)))
    rec.err("float.rg", lambda: float(lib.ones(1, dtype=dt, requires_grad=True)))
    rec.err("numpy.rg", lambda: lib.ones(1, dtype=dt, requires_grad=True).numpy())
    rec.err("tolist.ok", lambda: lib.ones(2, dtype=dt, requires_grad=True).tolist())
    rec.err("sopt", lambda: lib.set_printoptions(profile="nonsense"))
    rec.err("repr.contents", lambda: lib.ones(2).__repr__(tensor_contents=None))


def p_str_vs_repr(lib, dt, rec):
    x = _randn(lib, dt, 17, 2, 2)
    rec("str", str(x))
    rec("repr", repr(x))
    rec("list", str([x[0], x[1, 1]]))
    rec("tuple", repr((x.sum(), 1)))
    rec("dict", str({"loss": x.mean(), "n": lib.tensor(3)}))
    rec("print", f"{x[0]}")
    rec("join", " ".join(map(str, [x[1], x[0, 0]])))
    rec("tolist", repr([round(v, 4) for v in x.flatten().tolist()]))
    rec("nested", repr({"a": [x.int(), (x > 0,)]}))
    rec("0d.tolist", repr(lib.tensor(2, dtype=lib.int32).tolist()))
    rec("item.type", type(lib.tensor(2.0, dtype=dt).item()).__name__)


def p_views(lib, dt, rec):
    x = _randn(lib, dt, 18, 4, 5)
    rec("T", repr(x.T))
    rec("step", repr(x[::2, ::-1] if False else x[::2, 1::2]))
    rec("flip", repr(x.flip(1)))
    rec("expand", repr(x[:, :1].expand(4, 3)))
    rec("diag", repr(x.diagonal()))
    rec("unfold", repr(x.unfold(1, 2, 2)))
    rec("perm", repr(x.reshape(2, 2, 5).permute(2, 0, 1)))
    rec("narrow", repr(x.narrow(0, 1, 2)))
    rec("chunks", repr(x.chunk(2, dim=1)))
    rec("unbind", repr(x[:2].unbind()))
    rec("as_strided", repr(x.as_strided((2, 2), (1, 5))))
    rec("bcast", repr(lib.broadcast_tensors(x[0], x[:, :1])[1]))


def p_half_precision(lib, dt, rec):
    x = _randn(lib, dt, 19, 3, 4)
    for name in ["float16", "bfloat16"]:
        y = x.to(getattr(lib, name))
        _both(rec, name, y)
        rec(name + ".big", repr(y * 1000))
        rec(name + ".max", repr(lib.tensor([65504.0, 1e-7], dtype=lib.float16 if name == "float16"
                                           else lib.bfloat16)))  # fmt: skip
        rec(name + ".round", repr(lib.tensor([0.1, 0.2, 0.3], dtype=getattr(lib, name))))
        rec(name + ".rg", repr(y.requires_grad_()))
        rec(name + ".fn", repr(y * 2))
        with _opts(lib, precision=8):
            rec(name + ".p8", repr(y[0]))
    rec("half.inf", repr(lib.tensor([70000.0], dtype=dt).half()))
    lib.set_default_dtype(lib.float64)
    try:
        rec("d64.float", repr(lib.tensor([1.5, 2.0])))
        rec("d64.f32", repr(lib.tensor([1.5, 2.0], dtype=lib.float32)))
        rec("d64.empty32", repr(lib.zeros(0, dtype=lib.float32)))
        rec("d64.empty64", repr(lib.zeros(0)))
    finally:
        lib.set_default_dtype(lib.float32)


def p_optimizer_repr(lib, dt, rec):
    m = lib.nn.Linear(2, 2)
    opts = [
        lib.optim.SGD(m.parameters(), lr=0.1),
        lib.optim.SGD(m.parameters(), lr=0.01, momentum=0.9, nesterov=True, weight_decay=1e-4),
        lib.optim.Adam(m.parameters(), lr=1e-3, betas=(0.9, 0.99)),
        lib.optim.AdamW(m.parameters(), amsgrad=True),
        lib.optim.RMSprop(m.parameters()),
        lib.optim.Adagrad(m.parameters(), lr=0.5),
    ]
    for i, o in enumerate(opts):
        rec(f"o{i}", repr(o))
    groups = [{"params": [m.weight]}, {"params": [m.bias], "lr": 0.5}]
    rec("groups", repr(lib.optim.Adam(groups, lr=0.1)))


def p_loss_modules(lib, dt, rec):
    nn = lib.nn
    mods = [
        nn.MSELoss(), nn.MSELoss(reduction="sum"), nn.L1Loss(), nn.CrossEntropyLoss(),
        nn.CrossEntropyLoss(label_smoothing=0.1, ignore_index=3), nn.NLLLoss(),
        nn.BCELoss(), nn.BCEWithLogitsLoss(pos_weight=lib.ones(2, dtype=dt)),
        nn.HuberLoss(delta=2.0),
        nn.SmoothL1Loss(beta=0.5), nn.KLDivLoss(reduction="batchmean", log_target=True),
        nn.CTCLoss(blank=1), nn.TripletMarginLoss(margin=2.0), nn.CosineEmbeddingLoss(),
        nn.MarginRankingLoss(0.5), nn.GaussianNLLLoss(), nn.PoissonNLLLoss(log_input=False),
    ]  # fmt: skip
    for i, m in enumerate(mods):
        _both(rec, f"m{i}", m)


def p_custom_extra_repr(lib, dt, rec):
    nn = lib.nn

    class Scale(nn.Module):
        def __init__(self, s):
            super().__init__()
            self.s = s

        def extra_repr(self):
            return f"s={self.s}"

    class Multi(nn.Module):
        def __init__(self):
            super().__init__()
            self.inner = Scale(2)
            self.fc = nn.Linear(2, 2)

        def extra_repr(self):
            return "first line\nsecond line"

    rec("scale", repr(Scale(0.5)))
    rec("multi", repr(Multi()))
    rec("nested", repr(nn.Sequential(Multi(), Scale(3))))
    rec("empty", repr(nn.Module()))
    m = nn.Linear(3, 2)
    rec("extra", m.extra_repr())
    m.register_module("sub", nn.ReLU())
    rec("sub", repr(m))
    rec("conv.extra", nn.Conv2d(1, 2, 3, stride=2).extra_repr())
    rec("bn.extra", nn.BatchNorm1d(3).extra_repr())


def p_printoptions_ctx(lib, dt, rec):
    x = _randn(lib, dt, 20, 3) * 100
    with lib._tensor_str.printoptions(precision=1, sci_mode=True):
        rec("inside", repr(x))
    rec("after", repr(x))
    rec("opts", repr(lib._tensor_str.get_printoptions()))
    lib.set_printoptions(threshold=float("inf"))
    rec("inf", repr(lib.arange(1100))[-40:])
    lib.set_printoptions(profile="default")
    rec("default", repr(lib.arange(1100))[-40:])


def p_dual_repr(lib, dt, rec):
    fwAD = lib.autograd.forward_ad
    x = lib.tensor([1.0, 2.0], dtype=dt)
    v = lib.tensor([0.5, 0.25], dtype=dt)
    w = _randn(lib, dt, 21, 2, 3)
    with fwAD.dual_level():
        d = fwAD.make_dual(x, v)
        rec("dual", repr(d))
        rec("str", str(d * 3))
        rec("list", str([d, d[0]]))
        rec("sum", repr((d * d).sum()))
        rec("2d", repr(fwAD.make_dual(w, w * 0.5)))
        rec("plain", repr(x))
        rec("plain.rg", repr(lib.ones(2, dtype=dt, requires_grad=True) * 2))
        leaf = lib.tensor([3.0, 4.0], dtype=dt, requires_grad=True)
        g = fwAD.make_dual(leaf, v)
        rec("leaf", repr(g))
        rec("unpack", repr(fwAD.unpack_dual(d)))
        rec("unpack.plain", repr(fwAD.unpack_dual(x)))
        with _opts(lib, precision=2, linewidth=40):
            rec("wrapped", repr(fwAD.make_dual(w / 3, w)))
    rec("after", repr(d))
    rec("after.leaf", repr(g))


def p_module_float_sizes(lib, dt, rec):
    nn = lib.nn
    x = _randn(lib, dt, 22, 1, 1, 4, 4)
    k = 3
    mods = [
        nn.ZeroPad2d((k - 1) / 2),
        nn.ReflectionPad2d((k - 1) / 2),
        nn.ConstantPad1d(2.0, 1.5),
        nn.ReplicationPad3d(1.0),
        nn.CircularPad1d(1.0),
        nn.AvgPool1d(2.0),
        nn.MaxUnpool2d(2.0),
        nn.MaxPool2d(2.0),
        nn.AvgPool2d(2.0),
    ]
    for i, m in enumerate(mods):
        rec(f"m{i}", repr(m))
    rec.err("zero.fwd", lambda: mods[0](x))
    rec.err("refl.fwd", lambda: mods[1](x))
    rec.err("const.fwd", lambda: mods[2](x[0]))
    rec.err("avg1d.fwd", lambda: mods[5](x[0, 0]))
    rec.err("maxpool.fwd", lambda: mods[7](x))
    rec.err("upsample.list", lambda: nn.Upsample(scale_factor=[2.0, 1.5], mode="bilinear"))
    rec("upsample.tuple", repr(nn.Upsample(scale_factor=(2, 1.5), mode="bilinear")))
    good = nn.ZeroPad2d((1, 0, 2, 0))
    rec("good", good(x))
    rec("good.repr", repr(good))


def p_default_dtype(lib, dt, rec):
    for name in ["float8_e4m3fn", "float8_e5m2", "float8_e8m0fnu", "int64", "bool"]:
        rec.err(name, lambda name=name: lib.set_default_dtype(getattr(lib, name)))
    rec.err("str", lambda: lib.set_default_dtype("float64"))
    rec.err("float", lambda: lib.set_default_dtype(float))
    rec("still", repr(lib.get_default_dtype()))
    for name in ["float16", "bfloat16", "float64"]:
        lib.set_default_dtype(getattr(lib, name))
        try:
            rec(name, repr(lib.tensor([1.5, 2.0])))
            rec(name + ".f32", repr(lib.tensor([1.5], dtype=lib.float32)))
            rec(name + ".arg", repr(lib.tensor([0.5], dtype=dt)))
            rec(name + ".empty", repr(lib.zeros(0, 2)))
            rec(name + ".empty32", repr(lib.zeros(0, dtype=lib.float32)))
            rec(name + ".param", repr(lib.nn.Parameter(lib.ones(2))))
        finally:
            lib.set_default_dtype(lib.float32)


def p_subclass_reprs(lib, dt, rec):
    class Tagged(lib.Tensor):
        pass

    x = _randn(lib, dt, 23, 2, 2).as_subclass(Tagged)
    rec("repr", repr(x))
    rec("str", str(x))
    rec("mul", repr(x * 2))
    rec.err("format", lambda: format(x.sum(), ".2f"))
    rec("format.empty", format(x.sum(), "")[:6])
    rec("buffer", repr(lib.nn.Buffer(lib.ones(2, dtype=dt))))
    rec("buffer.type", type(lib.nn.Buffer(lib.ones(2, dtype=dt))).__name__)
    rec("uninit", repr(lib.nn.UninitializedParameter()))
    rec("lazy", repr(lib.nn.LazyLinear(3).weight))
    rec("contents", lib.ones(2, dtype=dt, requires_grad=True).__repr__(tensor_contents="[...]"))
    rec("contents.2", lib.ones(2, 3, dtype=dt).__repr__(tensor_contents="a\nb"))
    v = lib.tensor([1.0, 2.0], dtype=dt, requires_grad=True)
    rec("view", repr(v.view(2, 1)[1]))
    base = v.clone()
    with lib.no_grad():
        part = base[:1]
    rec("nograd_view", repr(part))


def p_meta_reprs(lib, dt, rec):
    m = lib.ones(2, 3, device="meta", dtype=dt)
    rec("meta", repr(m))
    rec("meta.sum", repr(m.sum()))
    rec("meta.empty", repr(lib.empty(3, 0, device="meta")))
    rec("meta.big", repr(lib.ones(2000, device="meta")))
    rec("meta.int", repr(lib.ones((), device="meta", dtype=lib.int64)))
    rec("meta.rg", repr(lib.ones(2, device="meta", dtype=dt, requires_grad=True)))
    rec("meta.param", repr(lib.nn.Parameter(lib.ones(2, device="meta"))))
    rec("meta.format", format(lib.ones((), device="meta"), ""))
    rec.err("meta.format.f", lambda: format(lib.ones((), device="meta"), ".2f"))
    rec("meta.linear", repr(lib.nn.Linear(2, 3, device="meta", dtype=dt).weight))


def p_optim_state(lib, dt, rec):
    m = lib.nn.Linear(2, 2).to(dt)
    with lib.no_grad():
        m.weight.copy_(lib.tensor([[0.5, -0.25], [1.0, 2.0]], dtype=dt))
        m.bias.fill_(0.125)
    x = lib.ones(1, 2, dtype=dt)
    for name, kw in [
        ("SGD", dict(lr=0.5, momentum=0.5)),
        ("Adam", dict(lr=0.25)),
        ("Adagrad", dict(lr=0.5)),
        ("RMSprop", dict(lr=0.5, centered=True)),
    ]:
        opt = getattr(lib.optim, name)(m.parameters(), **kw)
        m(x).sum().backward()
        opt.step()
        opt.zero_grad()
        rec(name, repr(opt.state_dict()["param_groups"]))
        rec(name + ".state", repr(sorted(opt.state_dict()["state"][1])))
        rec(name + ".repr", repr(opt))
    sched = lib.optim.lr_scheduler.StepLR(opt, 2, gamma=0.5)
    rec("sched", repr(sched.state_dict()))
    rec("params", repr(list(m.parameters())))
    bn = lib.nn.BatchNorm1d(2).to(dt)
    rec("bn", repr(bn.state_dict()))


def p_device_args(lib, dt, rec):
    for name, fn in [
        ("none", lambda: lib.device(None)), ("bool", lambda: lib.device(True)),
        ("float", lambda: lib.device(3.5)), ("list", lambda: lib.device([1, 2.0])),
        ("tuple", lambda: lib.device((1, 2))), ("tuple1", lambda: lib.device((1,))),
        ("empty_tuple", lambda: lib.device(())), ("tensor", lambda: lib.device(lib.ones(1))),
        ("no_args", lambda: lib.device()), ("three", lambda: lib.device("cpu", 1, 2)),
        ("none_none", lambda: lib.device(None, None)), ("none_1", lambda: lib.device(None, 1)),
        ("type_kw", lambda: lib.device(type="cpu")),
        ("index_kw", lambda: lib.device("cpu", index=1)),
        ("both_kw", lambda: lib.device(type="cuda", index=None)),
        ("device_kw", lambda: lib.device(device=lib.device("cuda:1"))),
        ("twice", lambda: lib.device("cpu", type="cpu")),
        ("unknown_kw", lambda: lib.device(type="cpu", foo=1)),
        ("dev_index", lambda: lib.device(lib.device("cpu"), 1)),
        ("bytes", lambda: lib.device(b"cuda:2")), ("cuda", lambda: lib.device("cuda", 1)),
        ("str", lambda: str(lib.device("cuda", 3))), ("repr_cpu", lambda: lib.device("cpu", 0)),
    ]:  # fmt: skip
        rec(name, lib_err(fn))
    x = _randn(lib, dt, 24, 2)
    rec("tensor_device", repr(x.device))
    rec("to_same", repr(x.to(lib.device(type="cpu"))))
