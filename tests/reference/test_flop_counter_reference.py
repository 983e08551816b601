"""FlopCounterMode under torch and minitorch: the same programs (MLPs with batched inputs, products
that torch folds or broadcasts, einsum chains, convolutions of every kind, attention on the
CPU, recurrent layers and cells, nested modules) give the same counts per module and op, and the
same tables when `tabulate` is installed (torch's table needs it).

Known and left: torch files some backward products of a module called twice under a
neighbouring module (its tracker's backward hooks); minitorch files them under the module whose
forward ran them."""

from __future__ import annotations

import importlib.util

import pytest

torch = pytest.importorskip("torch")


def _counts(fc):
    return {
        k: {str(op): n for op, n in sorted(v.items(), key=lambda kv: str(kv[0]))}
        for k, v in sorted(fc.get_flop_counts().items())
    }


def _program(L):
    from importlib import import_module

    FlopCounterMode = import_module(f"{L.__name__}.utils.flop_counter").FlopCounterMode
    nn = L.nn
    out = []
    L.manual_seed(0)
    mlp = nn.Sequential(nn.Linear(16, 32), nn.ReLU(), nn.Linear(32, 4))
    for shape, grad in [((8, 16), False), ((2, 5, 16), True), ((16,), True)]:
        with FlopCounterMode(display=False) as fc:
            mlp(L.randn(*shape, requires_grad=grad)).sum().backward()
        out.append((f"mlp {shape}", _counts(fc), fc.get_total_flops()))
    with FlopCounterMode(display=False) as fc:
        a = L.randn(3, 4, 5, requires_grad=True)
        b = L.randn(3, 5, 6, requires_grad=True)
        (a @ b).sum().backward()
        L.randn(2, 3, 4, 5) @ L.randn(5, 2)
        L.randn(2, 3, 4, 5) @ L.randn(5)
        L.randn(5) @ L.randn(5, 2)
        L.randn(2, 1, 4, 5) @ L.randn(3, 5, 6)
        L.randn(4) @ L.randn(3, 4, 2)
        L.randn(4, 3, 5).transpose(0, 1) @ L.randn(5, 6)
        L.randn(4, 3, 5).transpose(0, 1) @ L.randn(5, 1)
        L.randn(4, 3, 5).transpose(0, 1) @ L.randn(5, 6, requires_grad=True)
        L.randn(4, 3, 5)[:, :, ::2] @ L.randn(3, 2)
        L.randn(4, 3, 5).transpose(0, 1) @ L.randn(5)
        w = L.randn(6, 5, requires_grad=True)
        (L.randn(7, 5) @ w.t()).sum().backward()
        L.bmm(L.randn(2, 3, 4), L.randn(2, 4, 5))
        L.mm(L.randn(3, 4), L.randn(4, 5))
        L.matmul(L.randn(3, 4), L.randn(4, 5, requires_grad=True)).sum().backward()
    out.append(("products", _counts(fc)))
    p = L.randn(3, 4, requires_grad=True)
    q = L.randn(4, 5, requires_grad=True)
    r = L.randn(5, 2, requires_grad=True)
    for eq, ops in [
        ("ij,jk,kl->il", (p, q, r)),
        ("ij,jk,kl->il", (p.detach(), q, r.detach())),
        ("ij,ij->", (p, p)),
        ("bi,bj->bij", (p, p)),
        ("ij,kj->ik", (p, p)),
        ("ij,jk->", (p, q)),
        ("ij,j->i", (p, p[0])),
        ("i,i->", (p[0], p[1])),
        ("ij,jk,kl->", (p, q, r)),
    ]:
        with FlopCounterMode(display=False) as fc:
            L.einsum(eq, *ops).sum().backward()
        out.append((f"einsum {eq}", fc.get_total_flops()))
    with FlopCounterMode(display=False) as fc:
        conv = nn.Conv2d(3, 8, 3, padding=1)
        conv(L.randn(2, 3, 10, 10)).sum().backward()
        conv(L.randn(2, 3, 10, 10, requires_grad=True)).sum().backward()
        nn.Conv2d(4, 8, 3, stride=2, groups=2)(
            L.randn(2, 4, 9, 9, requires_grad=True)
        ).sum().backward()
        nn.ConvTranspose2d(4, 6, 3, stride=2)(
            L.randn(2, 4, 5, 5, requires_grad=True)
        ).sum().backward()
        nn.ConvTranspose1d(4, 2, 4, stride=3, padding=1)(L.randn(2, 4, 7)).sum().backward()
        nn.Conv1d(2, 3, 5, dilation=2)(L.randn(4, 2, 20))
        nn.Conv3d(2, 4, 3, padding=1, bias=False)(
            L.randn(1, 2, 5, 5, 5, requires_grad=True)
        ).sum().backward()
        nn.Conv2d(4, 4, 3, groups=4)(L.randn(2, 4, 6, 6, requires_grad=True)).sum().backward()
    out.append(("conv", _counts(fc)))
    qq = L.randn(2, 4, 16, 8, requires_grad=True)
    with FlopCounterMode(display=False) as fc:
        L.nn.functional.scaled_dot_product_attention(qq, qq, qq, is_causal=True).sum().backward()
        nn.LSTM(4, 8, batch_first=True)(L.randn(2, 5, 4))[0].sum().backward()
        nn.GRU(4, 8)(L.randn(5, 2, 4))[0].sum().backward()
        nn.GRU(4, 8, num_layers=2, batch_first=True)(L.randn(2, 5, 4))[0].sum().backward()
        nn.RNN(4, 8, nonlinearity="relu", bidirectional=True)(L.randn(5, 2, 4))[0].sum().backward()
        nn.LSTM(4, 8, proj_size=3)(L.randn(5, 2, 4, requires_grad=True))[0].sum().backward()
        nn.LSTMCell(4, 8)(L.randn(2, 4))[0].sum().backward()
    out.append(("fused", _counts(fc)))

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.enc = nn.Sequential(nn.Linear(4, 4), nn.Tanh(), nn.Linear(4, 4))
            self.head = nn.Linear(4, 2)

        def forward(self, x):
            return self.head(self.enc(x))

    mha = nn.MultiheadAttention(16, 2, batch_first=True)
    xx = L.randn(2, 6, 16)
    with FlopCounterMode(display=False) as fc:
        mha(xx, xx, xx, need_weights=False)[0].sum().backward()
    out.append(("mha", _counts(fc)))
    net = Net()
    with FlopCounterMode(display=False, depth=3) as fc:
        net(L.randn(3, 4)).sum().backward()
    out.append(("net", _counts(fc)))
    if importlib.util.find_spec("tabulate") is not None:
        out.append(("table", fc.get_table()))
        out.append(("table depth 1", fc.get_table(depth=1)))
        with FlopCounterMode(display=False) as fc, L.no_grad():
            nn.Linear(512, 1024)(L.randn(64, 512))
        out.append(("big table", fc.get_table()))
        with FlopCounterMode(display=False) as fc:
            pass
        out.append(("empty table", fc.get_table()))
    return out


def test_flop_counts_match_torch():
    import minitorch

    want = _program(torch)
    got = _program(minitorch)
    assert [w[0] for w in want] == [g[0] for g in got]
    for w, g in zip(want, got, strict=True):
        assert g == w, f"{w[0]}:\n  torch:     {w[1:]}\n  minitorch: {g[1:]}"
