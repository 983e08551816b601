"""Session 62: the node of a gradient taken with create_graph=True (g.grad_fn, what a printed
second-order gradient shows) and the second derivative through it, for 107 ops, against torch."""

import pytest

import minitorch

torch = pytest.importorskip("torch")

P = {
    "exp": lambda L, b: b.exp(),
    "log": lambda L, b: (b * b + 1).log(),
    "sin": lambda L, b: b.sin(),
    "cos": lambda L, b: b.cos(),
    "tanh": lambda L, b: b.tanh(),
    "sigmoid": lambda L, b: b.sigmoid(),
    "relu": lambda L, b: b.relu() * b,
    "abs": lambda L, b: b.abs() * b,
    "sqrt": lambda L, b: (b * b + 1).sqrt(),
    "rsqrt": lambda L, b: (b * b + 1).rsqrt(),
    "pow2": lambda L, b: b**2,
    "pow3": lambda L, b: b**3,
    "powt": lambda L, b: b ** b.abs(),
    "rpow": lambda L, b: 2**b,
    "recip": lambda L, b: (b * b + 1).reciprocal(),
    "div": lambda L, b: b / (b * b + 1),
    "mul": lambda L, b: b * b,
    "sub": lambda L, b: b - b * b,
    "neg": lambda L, b: -b * b,
    "clamp": lambda L, b: b.clamp(-1, 0.5) * b,
    "maximum": lambda L, b: L.maximum(b, b * b),
    "minimum": lambda L, b: L.minimum(b, b * b),
    "where": lambda L, b: L.where(b > 0, b * b, b**3),
    "max": lambda L, b: (b * b).max(),
    "min": lambda L, b: (b * b).min(),
    "amax": lambda L, b: (b[:, None] * b).amax(1),
    "logsumexp": lambda L, b: L.logsumexp(b * b, 0),
    "softmax": lambda L, b: L.softmax(b, 0) * b,
    "log_softmax": lambda L, b: L.log_softmax(b, 0) * b,
    "sum_dim": lambda L, b: (b[:, None] * b).sum(1),
    "prod": lambda L, b: b.prod(),
    "cumsum": lambda L, b: (b * b).cumsum(0),
    "cumprod": lambda L, b: b.cumprod(0),
    "var": lambda L, b: b.var(),
    "std": lambda L, b: b.std(),
    "norm": lambda L, b: b.norm(),
    "dist": lambda L, b: (b * b).dist(b),
    "matmul": lambda L, b: (b[:, None] * b) @ b,
    "outer": lambda L, b: L.outer(b, b * b),
    "dot": lambda L, b: L.dot(b, b * b),
    "cat": lambda L, b: L.cat([b * b, b]),
    "stack": lambda L, b: L.stack([b * b, b]),
    "repeat": lambda L, b: (b * b).repeat(2),
    "flip": lambda L, b: (b * b).flip(0),
    "roll": lambda L, b: (b * b).roll(1),
    "gather": lambda L, b: (b * b).gather(0, L.tensor([2, 0])),
    "index_select": lambda L, b: (b * b).index_select(0, L.tensor([2, 0])),
    "getitem_adv": lambda L, b: (b * b)[L.tensor([2, 0])],
    "getitem_slice": lambda L, b: (b * b)[1:],
    "getitem_step": lambda L, b: (b * b)[::2],
    "select": lambda L, b: (b * b)[1],
    "narrow": lambda L, b: (b * b).narrow(0, 1, 2),
    "chunk": lambda L, b: (b * b).chunk(3)[1],
    "split": lambda L, b: (b * b).split(2)[0],
    "unbind": lambda L, b: (b * b).unbind()[0],
    "expand": lambda L, b: (b * b).expand(2, 3),
    "T": lambda L, b: (b[:, None] * b).T,
    "permute": lambda L, b: (b[:, None] * b).permute(1, 0),
    "flatten": lambda L, b: (b[:, None] * b).flatten(),
    "reshape_nc": lambda L, b: (b[:, None] * b).T.reshape(9),
    "view": lambda L, b: (b[:, None] * b).view(9),
    "tril": lambda L, b: (b[:, None] * b).tril(),
    "triu": lambda L, b: (b[:, None] * b).triu(),
    "diag": lambda L, b: L.diag(b * b),
    "trace": lambda L, b: (b[:, None] * b).trace(),
    "masked_fill": lambda L, b: (b * b).masked_fill(b > 0, 0.0),
    "sort": lambda L, b: (b * b).sort()[0],
    "topk": lambda L, b: (b * b).topk(2)[0],
    "mse": lambda L, b: L.nn.functional.mse_loss(b * b, b),
    "ce": lambda L, b: L.nn.functional.cross_entropy((b[:, None] * b), L.tensor([0, 1, 2])),
    "gelu": lambda L, b: L.nn.functional.gelu(b),
    "silu": lambda L, b: L.nn.functional.silu(b),
    "softplus": lambda L, b: L.nn.functional.softplus(b),
    "elu": lambda L, b: L.nn.functional.elu(b),
    "leaky": lambda L, b: L.nn.functional.leaky_relu(b) * b,
    "layer_norm": lambda L, b: L.nn.functional.layer_norm(b * b, (3,)),
    "lerp": lambda L, b: L.lerp(b, b * b, 0.3),
    "addcmul": lambda L, b: L.addcmul(b, b, b),
    "atan2": lambda L, b: L.atan2(b, b * b + 1),
    "hypot": lambda L, b: L.hypot(b, b * b + 1),
    "erf": lambda L, b: b.erf(),
    "sinh": lambda L, b: b.sinh(),
    "asin": lambda L, b: (b * 0.5).asin(),
    "log1p": lambda L, b: (b * b).log1p(),
    "expm1": lambda L, b: b.expm1(),
    "square": lambda L, b: b.square(),
    "mean_keep": lambda L, b: (b[:, None] * b).mean(1, keepdim=True),
    "sum_keep": lambda L, b: (b[:, None] * b).sum(0, keepdim=True),
    "clone": lambda L, b: b.clone() * b,
    "contig": lambda L, b: (b[:, None] * b).T.contiguous(),
    "to64": lambda L, b: b.to(L.float32).to(L.float64) * b,
    "squeeze_": lambda L, b: (b[None] * b).squeeze_(0),
    "unsqueeze_": lambda L, b: (b * b).unsqueeze_(1),
    "mul_": lambda L, b: (b * 1).mul_(b),
    "add_": lambda L, b: (b * b).add_(b, alpha=2),
    "setitem": lambda L, b: _set(L, b),
    "index_add": lambda L, b: (b * b).index_add(0, L.tensor([0, 0]), b[:2]),
    "scatter": lambda L, b: (b * b).scatter(0, L.tensor([1]), b[:1]),
    "baddbmm": lambda L, b: L.baddbmm((b * b)[None, None, :1], b[None, None, :], b[None, :, None]),
    "einsum": lambda L, b: L.einsum("i,i->", b, b * b),
    "pad": lambda L, b: L.nn.functional.pad(b * b, (1, 1)),
    "normalize": lambda L, b: L.nn.functional.normalize(b, dim=0),
}


def _set(L, b):
    t = b * 1
    t[1:] = b[:2] * b[:2]
    return t


P.update(
    {
        "selu": lambda L, b: L.nn.functional.selu(b),
        "celu": lambda L, b: L.nn.functional.celu(b, 0.7),
        "elu_": lambda L, b: L.nn.functional.elu(b * 1, inplace=True),
        "selu_": lambda L, b: L.nn.functional.selu(b * 1, inplace=True),
        "softplus_b": lambda L, b: L.nn.functional.softplus(b, beta=2, threshold=1),
    }
)


def _second_order(lib, op):
    b = lib.tensor([0.3, -1.1, 0.7], dtype=lib.float64, requires_grad=True)
    y = P[op](lib, b)
    (g,) = lib.autograd.grad(y.sum() if y.dim() else y, b, create_graph=True)
    (h,) = lib.autograd.grad(g.sum(), b, allow_unused=True, materialize_grads=True)
    return None if g.grad_fn is None else type(g.grad_fn).__name__, g.tolist(), h.tolist()


@pytest.mark.parametrize("op", list(P))
def test_the_node_of_a_create_graph_gradient_matches_torch(op):
    name, g, h = _second_order(minitorch, op)
    want_name, want_g, want_h = _second_order(torch, op)
    assert name == want_name
    assert g == pytest.approx(want_g, rel=1e-9, abs=1e-12, nan_ok=True)
    assert h == pytest.approx(want_h, rel=1e-9, abs=1e-12, nan_ok=True)
