"""The grad_fn a user sees (in a printed tensor, `out.grad_fn`) for common layers and functions
is the class name torch gives the last node of the same computation."""

from __future__ import annotations

import pytest

import minitorch

torch = pytest.importorskip("torch")


def _cases(lib):
    nn, F = lib.nn, lib.nn.functional
    lib.manual_seed(0)
    x1 = lib.randn(3, requires_grad=True)
    x2 = lib.randn(4, 3, requires_grad=True)
    x3 = lib.randn(2, 4, 3, requires_grad=True)
    w = lib.randn(5, 3, requires_grad=True)
    b = lib.randn(5, requires_grad=True)
    img = lib.randn(2, 3, 8, 8, requires_grad=True)
    target = lib.tensor([0, 1, 2, 0])
    return {
        "linear 2-d": lambda: F.linear(x2, w, b),
        "linear 2-d no bias": lambda: F.linear(x2, w),
        "linear 3-d": lambda: F.linear(x3, w, b),
        "linear 3-d no bias": lambda: F.linear(x3, w),
        "linear 1-d": lambda: F.linear(x1, w, b),
        "linear 1-d no bias": lambda: F.linear(x1, w),
        "nn.Linear": lambda: nn.Linear(3, 5)(x2),
        "layer_norm": lambda: F.layer_norm(x3, (3,)),
        "nn.LayerNorm": lambda: nn.LayerNorm(3)(x3),
        "layer_norm half": lambda: F.layer_norm(x2.half(), (3,)),
        "linear half": lambda: F.linear(x2.half(), w.half(), b.half()),
        "matmul 3-d": lambda: x3 @ w.t(),
        "mm": lambda: x2 @ w.t(),
        "bmm": lambda: lib.bmm(x3, x3.transpose(1, 2)),
        "gelu": lambda: F.gelu(x2),
        "relu": lambda: F.relu(x2),
        "silu": lambda: F.silu(x2),
        "tanh": lambda: lib.tanh(x2),
        "softmax": lambda: F.softmax(x2, -1),
        "log_softmax": lambda: F.log_softmax(x2, -1),
        "conv2d": lambda: F.conv2d(img, lib.randn(4, 3, 3, 3), padding=1),
        "max_pool2d": lambda: F.max_pool2d(img, 2),
        "avg_pool2d": lambda: F.avg_pool2d(img, 2),
        "dropout": lambda: F.dropout(x2, 0.5),
        "cross_entropy": lambda: F.cross_entropy(x2, target),
        "nll_loss": lambda: F.nll_loss(x2, target),
        "sdpa": lambda: F.scaled_dot_product_attention(x3, x3, x3),
        "logsumexp": lambda: x2.logsumexp(1),
        "mean": lambda: x2.mean(),
        "var": lambda: x2.var(0),
        "norm": lambda: x2.norm(),
        "sum dim": lambda: x2.sum(1),
        "max dim": lambda: x2.max(1)[0],
        "cat": lambda: lib.cat([x2, x2]),
        "stack": lambda: lib.stack([x2, x2]),
        "chunk": lambda: x2.chunk(2, 0)[0],
        "index": lambda: x2[lib.tensor([0, 1])],
        "slice": lambda: x2[1:],
        "where": lambda: lib.where(x2 > 0, x2, 0.0),
        "masked_fill": lambda: x2.masked_fill(x2 > 0, 0.0),
        "pow": lambda: x2**2,
        "div": lambda: x2 / 2,
        "addmm": lambda: lib.addmm(b, x2, w.t()),
        "addmm beta 0": lambda: lib.addmm(b, x2, w.t(), beta=0),
        "addmm half": lambda: lib.addmm(b.half(), x2.half(), w.t().half()),
        "addmv": lambda: lib.addmv(x2[:, 0], x2, x1),
        "baddbmm": lambda: lib.baddbmm(x3, x3, x3.transpose(1, 2) @ x3),
        "addbmm": lambda: lib.addbmm(x2, x3, x3.transpose(1, 2) @ x3),
        "clamp numbers": lambda: x2.clamp(0, 1),
        "clamp tensors": lambda: x2.clamp(x2.detach(), x2.detach() + 1),
        "clamp_min number": lambda: x2.clamp_min(0),
        "clamp_min tensor": lambda: lib.clamp_min(x2, x2.detach()),
        "clamp_max number": lambda: lib.clamp_max(x2, 0),
        "clip": lambda: x2.clip(0, 1),
        "number - tensor": lambda: 1 - x2,
        "rsub tensors": lambda: lib.rsub(x2, x2.detach()),
        "number ** tensor": lambda: 2**x2,
        "tensor ** tensor": lambda: x2.abs() ** x2,
        "number / tensor": lambda: 2 / x2,
        "masked_scatter": lambda: x2.masked_scatter(x2 > 0, x2.detach() * 2),
        "dist": lambda: lib.dist(x2, x2.detach() + 1),
        "cdist": lambda: lib.cdist(x2, x2.detach() + 1),
        "addr": lambda: lib.addr(lib.zeros(3, 3), x1, x1),
        "vector @ matrix": lambda: x1 @ w.t(),
        "vector @ batch": lambda: x1 @ x3.transpose(1, 2),
        "batch @ vector": lambda: x3 @ x1,
    }


def _nn_cases(lib):
    nn, F = lib.nn, lib.nn.functional
    lib.manual_seed(0)

    def r(*shape):
        return lib.randn(*shape, requires_grad=True)

    x1, x2, x3 = r(2, 3, 8), r(2, 3, 8, 8), r(1, 2, 4, 4, 4)
    v2 = r(4, 3)
    t = lib.tensor([0, 1, 2, 0])
    ones = lib.ones(2, 3, 8)
    cases = {
        "mse_loss": lambda: F.mse_loss(x1, ones),
        "mse_loss none": lambda: F.mse_loss(x1, ones, reduction="none"),
        "smooth_l1_loss": lambda: F.smooth_l1_loss(x1, ones),
        "smooth_l1_loss beta 0": lambda: F.smooth_l1_loss(x1, ones, beta=0.0),
        "huber_loss": lambda: F.huber_loss(x1, ones),
        "binary_cross_entropy": lambda: F.binary_cross_entropy(lib.sigmoid(x1), ones),
        "bce_with_logits": lambda: F.binary_cross_entropy_with_logits(x1, ones),
        "bce_with_logits pos_weight": lambda: F.binary_cross_entropy_with_logits(
            x1, ones, pos_weight=lib.ones(8)
        ),
        "soft_margin_loss": lambda: F.soft_margin_loss(x1, ones),
        "multi_margin_loss": lambda: F.multi_margin_loss(v2, t),
        "multilabel_margin_loss": lambda: F.multilabel_margin_loss(v2, lib.zeros(4, 3).long()),
        "margin_ranking none": lambda: F.margin_ranking_loss(x1, x1 * 2, ones, reduction="none"),
        "nll_loss 4-d": lambda: F.nll_loss(x2, lib.zeros(2, 8, 8, dtype=lib.long)),
        "cross_entropy 3-d": lambda: F.cross_entropy(x1, lib.zeros(2, 8, dtype=lib.long)),
        "embedding": lambda: F.embedding(t, v2),
        "nn.Embedding": lambda: nn.Embedding(5, 3)(t),
        "embedding_bag": lambda: F.embedding_bag(t, v2, lib.tensor([0, 2])),
        "batch_norm": lambda: F.batch_norm(x2, None, None, training=True),
        "nn.BatchNorm2d": lambda: nn.BatchNorm2d(3)(x2),
        "nn.BatchNorm1d eval": lambda: nn.BatchNorm1d(3).eval()(x1),
        "group_norm": lambda: F.group_norm(x2, 3),
        "nn.GroupNorm": lambda: nn.GroupNorm(3, 3)(x2),
        "instance_norm": lambda: F.instance_norm(x2),
        "glu": lambda: F.glu(x1),
        "threshold": lambda: F.threshold(x1, 0.1, 2.0),
        "prelu": lambda: nn.PReLU()(x1),
        "rrelu": lambda: F.rrelu(x1),
        "hardshrink": lambda: F.hardshrink(x1),
        "softshrink": lambda: F.softshrink(x1),
        "pdist": lambda: F.pdist(v2),
        "pairwise_distance": lambda: F.pairwise_distance(v2, v2 * 2),
        "pixel_shuffle": lambda: F.pixel_shuffle(r(1, 4, 2, 2), 2),
        "pixel_unshuffle": lambda: F.pixel_unshuffle(r(1, 1, 4, 4), 2),
        "grid_sample": lambda: F.grid_sample(x2, lib.zeros(2, 4, 4, 2), align_corners=False),
        "affine_grid": lambda: F.affine_grid(r(2, 2, 3), (2, 3, 4, 4), align_corners=False),
        "adaptive_avg_pool1d": lambda: F.adaptive_avg_pool1d(x1, 3),
        "adaptive_avg_pool2d 1": lambda: F.adaptive_avg_pool2d(x2, 1),
        "adaptive_avg_pool2d 3": lambda: F.adaptive_avg_pool2d(x2, 3),
        "adaptive_avg_pool3d": lambda: F.adaptive_avg_pool3d(x3, 2),
        "adaptive_max_pool2d": lambda: F.adaptive_max_pool2d(x2, 3),
        "adaptive_max_pool3d": lambda: F.adaptive_max_pool3d(x3, 2),
        "elu_": lambda: F.elu(x1 * 1, inplace=True),
        "leaky_relu_": lambda: F.leaky_relu(x1 * 1, inplace=True),
        "threshold_": lambda: F.threshold(x1 * 1, 0.1, 0.0, inplace=True),
        "rrelu_": lambda: F.rrelu(x1 * 1, inplace=True),
    }
    for mode in ("constant", "reflect", "replicate", "circular"):
        for nd, x in (("1d", x1), ("2d", x2), ("3d", x3)):
            cases[f"pad {mode} {nd}"] = lambda x=x, mode=mode: F.pad(x, (1, 1) * (x.ndim - 2), mode)
    for mode, xs in (
        ("nearest", (x1, x2, x3)),
        ("nearest-exact", (x1, x2, x3)),
        ("linear", (x1,)),
        ("bilinear", (x2,)),
        ("bicubic", (x2,)),
        ("trilinear", (x3,)),
        ("area", (x1, x2, x3)),
    ):
        for x in xs:
            cases[f"interpolate {mode} {x.ndim - 2}d"] = lambda x=x, mode=mode: F.interpolate(
                x, scale_factor=2, mode=mode
            )
    return cases


@pytest.mark.parametrize("name", list(_nn_cases(torch)))
def test_nn_grad_fn_name_matches_torch(name):
    want = type(_nn_cases(torch)[name]().grad_fn).__name__
    got = type(_nn_cases(minitorch)[name]().grad_fn).__name__
    assert got == want


@pytest.mark.parametrize("name", list(_cases(torch)))
def test_grad_fn_name_matches_torch(name):
    want = type(_cases(torch)[name]().grad_fn).__name__
    got = type(_cases(minitorch)[name]().grad_fn).__name__
    assert got == want


# --- the graph's shape: next_functions ---


def _edges(fn):
    return tuple(None if f is None else type(f).__name__ for f, _ in fn.next_functions)


def _tree(fn, depth=None):
    """The graph below fn as nested names, as a user walking next_functions sees it (down to
    `depth` more levels; the whole graph by default)."""
    if fn is None or depth == -1:
        return None
    deeper = None if depth is None else depth - 1
    return (type(fn).__name__, tuple(_tree(f, deeper) for f, _ in fn.next_functions))


# Accepted: torch composes these from several kernels whose inner nodes minitorch does not have
# (sdpa's bmm, circular pad's slice copies).
_EDGES_KNOWN = {
    "sdpa",
    "pad circular 1d",
    "pad circular 2d",
    "pad circular 3d",
}


def _all_cases(lib):
    return {**_cases(lib), **_nn_cases(lib)}


_KNOWN_MARK = pytest.mark.xfail(
    strict=True, reason="accepted: torch's composite has inner nodes minitorch lacks"
)


@pytest.mark.parametrize(
    "name",
    [pytest.param(n, marks=_KNOWN_MARK) if n in _EDGES_KNOWN else n for n in _all_cases(torch)],
)
def test_next_functions_match_torch(name):
    want = _edges(_all_cases(torch)[name]().grad_fn)
    got = _edges(_all_cases(minitorch)[name]().grad_fn)
    assert got == want


@pytest.mark.parametrize(
    "shape", [(4, 3), (2, 4, 3), (3,), (1, 2, 4, 3)], ids=["2-d", "3-d", "1-d", "4-d"]
)
@pytest.mark.parametrize("bias", [True, False], ids=["bias", "no bias"])
def test_linear_graph_matches_torch(shape, bias):
    def graph(lib):
        lib.manual_seed(0)
        layer = lib.nn.Linear(3, 5, bias=bias)
        return _tree(layer(lib.randn(*shape, requires_grad=True)).grad_fn)

    assert graph(minitorch) == graph(torch)


def test_tutorial_network_graph_matches_torch():
    """The LeNet of PyTorch's 60-minute tutorial: loss.grad_fn and the chain it prints
    (MseLossBackward0 -> AddmmBackward0 -> AccumulateGrad), and the whole graph below it."""

    def graph(lib):
        nn, F = lib.nn, lib.nn.functional

        class Net(nn.Module):
            def __init__(self):
                super().__init__()
                self.conv1 = nn.Conv2d(1, 6, 5)
                self.conv2 = nn.Conv2d(6, 16, 5)
                self.fc1 = nn.Linear(16 * 5 * 5, 120)
                self.fc2 = nn.Linear(120, 84)
                self.fc3 = nn.Linear(84, 10)

            def forward(self, x):
                x = F.max_pool2d(F.relu(self.conv1(x)), (2, 2))
                x = F.max_pool2d(F.relu(self.conv2(x)), 2)
                x = lib.flatten(x, 1)
                return self.fc3(F.relu(self.fc2(F.relu(self.fc1(x)))))

        lib.manual_seed(0)
        out = Net()(lib.randn(1, 1, 32, 32))
        loss = nn.MSELoss()(out, lib.randn(10).view(1, -1))
        fn = loss.grad_fn
        chain = [type(fn).__name__]
        for _ in range(2):
            fn = fn.next_functions[0][0]
            chain.append(type(fn).__name__)
        return chain, _tree(loss.grad_fn)

    chain, tree = graph(minitorch)
    assert chain == ["MseLossBackward0", "AddmmBackward0", "AccumulateGrad"]
    assert (chain, tree) == graph(torch)


# --- whole graphs of layers, losses and tensor methods ---


def _module_cases(lib):
    nn, F = lib.nn, lib.nn.functional
    lib.manual_seed(0)

    def r(*shape):
        return lib.randn(*shape, requires_grad=True)

    img = r(2, 3, 8, 8)
    seq = r(5, 2, 4)
    x2 = r(4, 6)
    x3 = r(2, 5, 8)
    t = lib.tensor([0, 1, 2, 0])
    return {
        "conv2d": lambda: nn.Conv2d(3, 4, 3)(img),
        "conv2d nobias": lambda: nn.Conv2d(3, 4, 3, bias=False)(img),
        "conv1d": lambda: nn.Conv1d(5, 4, 3)(x3),
        "convT2d": lambda: nn.ConvTranspose2d(3, 4, 3)(img),
        "bn2d": lambda: nn.BatchNorm2d(3)(img),
        "bn2d eval": lambda: nn.BatchNorm2d(3).eval()(img),
        "bn1d": lambda: nn.BatchNorm1d(6)(x2),
        "ln": lambda: nn.LayerNorm(8)(x3),
        "gn": lambda: nn.GroupNorm(1, 3)(img),
        "in2d affine": lambda: nn.InstanceNorm2d(3, affine=True)(img),
        "in2d running stats": lambda: nn.InstanceNorm2d(3, track_running_stats=True)(img),
        "in1d eval": lambda: nn.InstanceNorm1d(5, track_running_stats=True).eval()(x3),
        "rmsnorm": lambda: nn.RMSNorm(8)(x3),
        "dropout": lambda: nn.Dropout(0.5)(x2),
        "dropout2d": lambda: nn.Dropout2d(0.5)(img),
        "maxpool": lambda: nn.MaxPool2d(2)(img),
        "avgpool": lambda: nn.AvgPool2d(2)(img),
        "aap1": lambda: nn.AdaptiveAvgPool2d(1)(img),
        "flatten": lambda: nn.Flatten()(img),
        "unflatten": lambda: nn.Unflatten(1, (2, 3))(x2),
        "softmax": lambda: F.softmax(x2, 1),
        "log_softmax": lambda: F.log_softmax(x2, 1),
        "ce": lambda: nn.CrossEntropyLoss()(x2, t),
        "ce ls": lambda: nn.CrossEntropyLoss(label_smoothing=0.1)(x2, t),
        "ce w": lambda: nn.CrossEntropyLoss(weight=lib.ones(6))(x2, t),
        "ce probs": lambda: nn.CrossEntropyLoss()(x2, lib.softmax(lib.randn(4, 6), 1)),
        "nll": lambda: nn.NLLLoss()(x2, t),
        "l1": lambda: nn.L1Loss()(x2, lib.zeros(4, 6)),
        "kl": lambda: nn.KLDivLoss(reduction="batchmean")(x2, lib.rand(4, 6)),
        "cos": lambda: nn.CosineSimilarity()(x2, x2 * 2),
        "normalize": lambda: F.normalize(x2),
        "gelu": lambda: nn.GELU()(x2),
        "gelu tanh": lambda: nn.GELU("tanh")(x2),
        "silu": lambda: nn.SiLU()(x2),
        "mish": lambda: nn.Mish()(x2),
        "hswish": lambda: nn.Hardswish()(x2),
        "hsig": lambda: nn.Hardsigmoid()(x2),
        "elu": lambda: nn.ELU()(x2),
        "selu": lambda: nn.SELU()(x2),
        "lrelu": lambda: nn.LeakyReLU()(x2),
        "softplus": lambda: nn.Softplus()(x2),
        "relu6": lambda: nn.ReLU6()(x2),
        "sigmoid": lambda: nn.Sigmoid()(x2),
        "tanh": lambda: nn.Tanh()(x2),
        "logsig": lambda: nn.LogSigmoid()(x2),
        "softsign": lambda: nn.Softsign()(x2),
        "tanhshrink": lambda: nn.Tanhshrink()(x2),
        "hardtanh": lambda: nn.Hardtanh()(x2),
        "softmin": lambda: nn.Softmin(1)(x2),
        "celu": lambda: nn.CELU()(x2),
        "upsample": lambda: nn.Upsample(scale_factor=2)(img),
        "upsample bil": lambda: nn.Upsample(scale_factor=2, mode="bilinear")(img),
        "embedding": lambda: nn.Embedding(5, 3)(t),
        "bilinear": lambda: nn.Bilinear(6, 6, 2)(x2, x2),
        "rnn": lambda: nn.RNN(4, 3)(seq)[0],
        "gru": lambda: nn.GRU(4, 3)(seq)[0],
        "lstm": lambda: nn.LSTM(4, 3)(seq)[0],
        "lstm 2 layers bidirectional": lambda: nn.LSTM(4, 3, 2, bidirectional=True)(seq)[0],
        "lstm h_n": lambda: nn.LSTM(4, 3, 2)(seq)[1][0],
        "lstm c_n batch_first": lambda: nn.LSTM(4, 3, batch_first=True)(seq)[1][1],
        "lstmcell": lambda: nn.LSTMCell(4, 3)(seq[0])[0],
        "grucell": lambda: nn.GRUCell(4, 3)(seq[0]),
        "mha": lambda: nn.MultiheadAttention(8, 2, batch_first=True)(x3, x3, x3)[0],
        "tel": lambda: nn.TransformerEncoderLayer(8, 2, 16, dropout=0.0, batch_first=True)(x3),
        "mean": lambda: x2.mean(),
        "std": lambda: x2.std(),
        "var": lambda: x2.var(),
        "norm": lambda: x2.norm(),
        "max": lambda: x2.max(),
        "amax": lambda: x2.amax(1),
        "prod": lambda: x2.prod(),
        "cumsum": lambda: x2.cumsum(0),
        "view": lambda: x2.view(2, 12),
        "reshape": lambda: x2.reshape(-1),
        "permute": lambda: x3.permute(2, 0, 1),
        "transpose": lambda: x3.transpose(0, 1),
        "expand": lambda: x2[:, :1].expand(4, 6),
        "repeat": lambda: x2.repeat(2, 1),
        "unsqueeze": lambda: x2.unsqueeze(0),
        "squeeze": lambda: x2[None].squeeze(0),
        "split": lambda: x2.split(2)[0],
        "gather": lambda: x2.gather(1, lib.zeros(4, 1, dtype=lib.long)),
        "scatter": lambda: x2.scatter(1, lib.zeros(4, 1, dtype=lib.long), 1.0),
        "index_select": lambda: x2.index_select(0, t),
        "topk": lambda: x2.topk(2)[0],
        "sort": lambda: x2.sort()[0],
        "einsum": lambda: lib.einsum("ij,jk->ik", x2, x2.t()),
        "tril": lambda: x2.tril(),
        "flip": lambda: x2.flip(0),
        "roll": lambda: x2.roll(1, 0),
        "diag": lambda: x2[:4, :4].diag(),
        "outer": lambda: lib.outer(x2[0], x2[1]),
        "logsumexp": lambda: x2.logsumexp(1),
        "softmax dim": lambda: x2.softmax(-1),
        "abs": lambda: x2.abs(),
        "sqrt": lambda: x2.abs().sqrt(),
        "rsqrt": lambda: x2.abs().rsqrt(),
        "x*x": lambda: x2 * x2,
        "x/2": lambda: x2 / 2,
        "x+1": lambda: x2 + 1,
        "x-1": lambda: x2 - 1,
        "-x": lambda: -x2,
        "x**2": lambda: x2**2,
        "x**0.5": lambda: x2.abs() ** 0.5,
        "sum dim keep": lambda: x2.sum(1, keepdim=True),
        "mean dim": lambda: x2.mean(1),
        "clone": lambda: x2.clone(),
        "contiguous": lambda: x2.t().contiguous(),
        "to double": lambda: x2.double(),
        "detach*": lambda: x2.detach() * x2,
        "chunk": lambda: x2.chunk(3, 1)[1],
        "unbind": lambda: x2.unbind(0)[1],
        "narrow": lambda: x2.narrow(1, 1, 2),
        "select": lambda: x2[1],
        "masked_select": lambda: x2.masked_select(x2 > 0),
        "nonzero idx": lambda: x2[x2 > 0],
        "one_hot float": lambda: F.one_hot(t, 3).float() * x2[:, :3],
    }


# Accepted: torch's own composites with inner nodes minitorch lacks (bilinear's view, einsum's
# permutes).
_MODULE_KNOWN = {"bilinear", "einsum"}


@pytest.mark.parametrize(
    "name",
    [pytest.param(n, marks=_KNOWN_MARK) if n in _MODULE_KNOWN else n for n in _module_cases(torch)],
)
def test_module_graph_matches_torch(name):
    """The graph below a layer's, loss's or method's result, seven levels deep."""
    depth = _SHALLOW.get(name, 6)
    want = _tree(_module_cases(torch)[name]().grad_fn, depth)
    got = _tree(_module_cases(minitorch)[name]().grad_fn, depth)
    assert got == want


# A GRU layer's steps are one fused node below each step's AddBackward0 (torch records its
# generic kernel's ~12): the layer's stack and the steps' additions are torch's.
_SHALLOW = {"gru": 1}


_EINSUMS = [
    "ij,jk->ik",
    "bij,bjk->bik",
    "i,i->",
    "i,j->ij",
    "ij->ji",
    "ij->",
    "ij->i",
    "ii->i",
    "ii->",
    "bhqd,bhkd->bhqk",
    "ij,ij->ij",
    "ij,ij->",
    "bi,bi->b",
    "nchw,oc->nohw",
    "ijk->kji",
    "i,jk->ijk",
    "bij,jk->bik",
    "ij,j->j",
    "ij,j->i",
    "ij,jk->",
    "ij,jk,kl->il",
    "ij,kl->",
    "ij,kl->ik",
    "i->",
    "ij->ij",
    "...ij,...jk->...ik",
    "ij,ij->i",
    "bi,bj->bij",
    "ii,i->i",
    "ij,jk,kl->ijkl",
    "i,ij,j->",
    "ij,jk,k->i",
    "ij,jk",
    "ii",
]


@pytest.mark.parametrize("equation", _EINSUMS)
def test_einsum_grad_fn_name_matches_torch(equation):
    sizes = {}
    shapes = []
    for term in equation.split("->")[0].split(","):
        letters = [sizes.setdefault(c, 2 + len(sizes) % 3) for c in term.replace("...", "")]
        shapes.append(([4] if "..." in term else []) + letters)

    def name(lib):
        ops = [lib.randn(*s, requires_grad=True) for s in shapes]
        return type(lib.einsum(equation, *ops).grad_fn).__name__

    assert name(minitorch) == name(torch)
