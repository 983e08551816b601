"""Session 42 (helper viewspeed): the views of model code (view, reshape, flatten, unflatten,
squeeze/unsqueeze, permute/transpose/t/T/mT, expand, view_as/reshape_as, basic indexing, narrow,
select, contiguous, detach) taken under no_grad, with grad mode on of a tensor that requires no
grad, and of one that does, run under torch and minitorch and compared record by record: shape,
strides, storage offset, _base and _is_view, requires_grad, is_leaf, grad_fn's name, version
counters after a write through the view, and the gradients of in-place writes through views."""

import pytest

from tests.reference._programs import assert_program_matches, seeded_randn

torch = pytest.importorskip("torch")

VIEWS = {
    "view": lambda x: x.view(-1),
    "view2": lambda x: x.view(2, -1),
    "reshape": lambda x: x.reshape(4, 6),
    "reshape_t": lambda x: x.t().reshape(-1),
    "flatten": lambda x: x.flatten(),
    "unflatten": lambda x: x.unflatten(1, (2, 3)),
    "unsqueeze": lambda x: x.unsqueeze(1),
    "squeeze": lambda x: x[:1].squeeze(0),
    "permute": lambda x: x.unsqueeze(0).permute(2, 0, 1),
    "transpose": lambda x: x.transpose(0, 1),
    "t": lambda x: x.t(),
    "T": lambda x: x.T,
    "mT": lambda x: x.mT,
    "expand": lambda x: x[:, :1].expand(4, 5),
    "expand_lead": lambda x: x.expand(2, 4, 6),
    "view_as": lambda x: x.view_as(x.new_zeros(6, 4)),
    "reshape_as": lambda x: x.reshape_as(x.new_zeros(3, 8)),
    "int": lambda x: x[1],
    "slice": lambda x: x[1:3],
    "int_slice": lambda x: x[0, 1:],
    "none": lambda x: x[..., None],
    "narrow": lambda x: x.narrow(1, 2, 3),
    "select": lambda x: x.select(1, -1),
    "contiguous": lambda x: x.contiguous(),
    "detach": lambda x: x.detach(),
}


def p_views(lib, dt, rec):
    for mode in ("no_grad", "grad", "requires_grad"):
        for name, fn in VIEWS.items():
            x = seeded_randn(lib, dt, 3, 4, 6) * 1
            if mode == "requires_grad":
                x.requires_grad_()
            with lib.set_grad_enabled(mode != "no_grad"):
                v = fn(x)
            key = f"{mode}.{name}"
            rec(key, v)
            rec(key + ".meta", str((tuple(v.shape), v.stride(), v.storage_offset())))
            rec(key + ".view", str((v._is_view(), v._base is x, v is x)))
            rec(key + ".grad", str((v.requires_grad, v.is_leaf, type(v.grad_fn).__name__)))
            if mode != "requires_grad" and name != "expand_lead" and name != "expand":
                v.add_(1)
                rec(key + ".version", str((x._version, v._version)))
                rec(key + ".base", x)


def p_inplace_through_views(lib, dt, rec):
    w = seeded_randn(lib, dt, 5, 6).requires_grad_()
    buf = lib.zeros(2, 3, dtype=dt)
    row, flat, col = buf[0], buf.view(-1), buf.t()[1]
    buf[1] = w[3:] * 2
    buf[0] = w[:3]
    rec("flags", str((buf.requires_grad, row.requires_grad, flat.requires_grad)))
    loss = (flat * lib.arange(1.0, 7.0, dtype=dt)).sum() + (row * 5).sum() + col.sum()
    loss.backward()
    rec("w.grad", w.grad)
    rec("names", str([type(t.grad_fn).__name__ for t in (buf, row, flat, col)]))
    x = seeded_randn(lib, dt, 7, 3, 4).requires_grad_()
    y = x * 1
    y.view(-1)[2:5].mul_(3)
    y[1].unsqueeze(0).t().add_(x[0].unsqueeze(1))
    y.narrow(1, 1, 2).select(0, 0).neg_()
    rec("y", y)
    (y * seeded_randn(lib, dt, 8, 3, 4)).sum().backward()
    rec("x.grad", x.grad)
    with lib.no_grad():
        v = x.view(-1)
    rec.err("no_grad view written", lambda: v.mul_(2))
    with lib.inference_mode():
        iv = x[0]
    rec.err("inference view written", lambda: iv.mul_(2))


@pytest.mark.parametrize("dt", ["float32", "float64"])
@pytest.mark.parametrize("prog", [p_views, p_inplace_through_views])
def test_matches_torch(prog, dt):
    assert_program_matches(prog, torch, dt)
