"""Session 47 (tut1): the "Learning PyTorch" path written as a student runs it, under torch and
minitorch with the same inputs and weights. Tensors (creation from lists and NumPy, attributes,
indexing, the NumPy bridge sharing memory both ways, conversions, legacy constructors, type
promotion and the mistakes' messages), autograd (grad_fn chains, .grad accumulation,
no_grad/enable_grad/set_grad_enabled/inference_mode, detach, retain_grad, hooks, non-scalar
outputs with `gradient=`, create_graph, autograd.grad and autograd.functional), the "learning
with examples" sequence (sin(x) by a cubic: by hand, autograd, a custom Function, nn.Sequential
+ Flatten + RMSprop, a dynamic module sharing a weight), custom autograd.Function edges
(mark_dirty, mark_non_differentiable, set_materialize_grads, setup_context,
once_differentiable), "What is torch.nn really" (a hand-written log_softmax model, nll and
accuracy, then F.cross_entropy, nn.Module, nn.Linear, optim.SGD, TensorDataset/DataLoader,
validation under eval()/no_grad, Lambda, a CNN, AdaptiveAvgPool2d, a WrappedDataLoader), the
quickstart's loops and f-string formatting of 0-d tensors, saving and loading (state_dicts,
checkpoints with optimizer/scheduler state through BytesIO and files, strict/non-strict, weight
tying, whole models, weights_only and safe_globals, what state_dict()s alias), devices without an
accelerator, and what print() shows of tensors, modules and state dicts. Each program records
values, dtypes, reprs, warnings and error messages; all must agree with torch's (float64 to
1e-10 of a record's scale, float32 to 1e-4).

The kernels' NumPy RuntimeWarnings (1/0, log(0), ...) are silenced by the warnings filter
minitorch installs at import; a program that resets the filters ("always") reinstalls it, as a
user's process has it."""

from __future__ import annotations

import argparse
import collections
import copy
import enum
import io
import math
import os
import pickle
import tempfile
import warnings
from collections import OrderedDict

import numpy as np
import pytest

import minitorch

from ._one_thread import one_torch_thread  # noqa: F401 - an autouse fixture
from ._programs import (
    Rec,
    assert_program_matches,
    assert_records_match,
    run_program,
    warning_text,
)

torch = pytest.importorskip("torch")


def err_type(rec, name, fn, prefix=0):
    """Records only the exception's type (and the first `prefix` characters of its message):
    for messages that name a temporary path or torch's documentation address."""
    try:
        fn()
    except Exception as e:  # noqa: BLE001 - the exception is the record
        rec(name, f"{type(e).__name__}: {str(e)[:prefix]}")
        return
    rec(name, "no error")


def _quiet_kernels(lib):
    """After `simplefilter("always")`: minitorch's import-time filter of its kernels' NumPy
    RuntimeWarnings, as a user's process has it."""
    if lib.__name__ == "minitorch":
        warnings.filterwarnings("ignore", category=RuntimeWarning, module=lib._KERNEL_MODULES)


def tensors_basics(lib, rec):
    data = [[1, 2], [3, 4]]
    x_data = lib.tensor(data)
    rec("x_data", x_data)
    rec("x_data.repr", repr(x_data))
    rec("x_data.str", str(x_data))
    np_array = np.array(data)
    x_np = lib.from_numpy(np_array)
    rec("x_np.repr", repr(x_np))
    x_ones = lib.ones_like(x_data)
    rec("x_ones.repr", repr(x_ones))
    x_rand = lib.rand_like(x_data, dtype=lib.float)
    rec("x_rand.shape", str(x_rand.shape))
    rec("x_rand.dtype", str(x_rand.dtype))
    shape = (
        2,
        3,
    )
    rec("ones", repr(lib.ones(shape)))
    rec("zeros", repr(lib.zeros(shape)))
    t = lib.rand(3, 4)
    rec(
        "attrs",
        f"Shape of tensor: {t.shape}\nDatatype of tensor: {t.dtype}\n"
        f"Device tensor is stored on: {t.device}",
    )
    tensor = lib.ones(4, 4)
    rec("first row", repr(tensor[0]))
    rec("first col", repr(tensor[:, 0]))
    rec("last col", repr(tensor[..., -1]))
    tensor[:, 1] = 0
    rec("tensor", repr(tensor))
    t1 = lib.cat([tensor, tensor, tensor], dim=1)
    rec("t1", repr(t1))
    y1 = tensor @ tensor.T
    y2 = tensor.matmul(tensor.T)
    y3 = lib.rand_like(y1)
    lib.matmul(tensor, tensor.T, out=y3)
    rec("y1", y1)
    rec("y2", y2)
    rec("y3", y3)
    rec("z1", tensor * tensor)
    rec("z2", tensor.mul(tensor))
    z3 = lib.rand_like(tensor)
    lib.mul(tensor, tensor, out=z3)
    rec("z3", repr(z3))
    agg = tensor.sum()
    agg_item = agg.item()
    rec("agg_item", repr(agg_item))
    rec("agg_item type", type(agg_item).__name__)
    rec("before add_", repr(tensor))
    tensor.add_(5)
    rec("after add_", repr(tensor))
    t = lib.ones(5)
    rec("t", repr(t))
    n = t.numpy()
    rec("n", repr(n))
    t.add_(1)
    rec("t2", repr(t))
    rec("n2", repr(n))
    n = np.ones(5)
    t = lib.from_numpy(n)
    np.add(n, 1, out=n)
    rec("t3", repr(t))
    rec("n3", repr(n))
    # more
    rec("tensor float list", repr(lib.tensor([1.5, 2.25, -3.0])))
    rec("tensor bool", repr(lib.tensor([True, False])))
    rec("tensor int64 big", repr(lib.tensor([1, 2**40])))
    rec("tensor mixed", repr(lib.tensor([1, 2.5])))
    rec("as_tensor", repr(lib.as_tensor(np.arange(3, dtype=np.float32))))
    a = np.arange(6.0).reshape(2, 3)
    ta = lib.as_tensor(a)
    a[0, 0] = 100
    rec("as_tensor shared", repr(ta))
    tt = lib.tensor(a)
    a[0, 0] = -1
    rec("tensor copied", repr(tt))
    rec("from_numpy T", repr(lib.from_numpy(a.T)))
    rec("from_numpy T strides", str(lib.from_numpy(a.T).stride()))
    rec("is_contig", str(lib.from_numpy(a.T).is_contiguous()))
    rec("numpy of T", repr(lib.from_numpy(a).T.numpy()))
    rec("dtype np int32", repr(lib.from_numpy(np.arange(3, dtype=np.int32))))
    rec("dtype np uint8", repr(lib.from_numpy(np.arange(3, dtype=np.uint8))))
    rec("dtype np f16", repr(lib.from_numpy(np.arange(3, dtype=np.float16))))
    rec(
        "ndim",
        repr((t1.ndim, t1.dim(), t1.numel(), t1.nelement(), t1.size(), t1.size(1), t1.shape[-1])),
    )
    rec("element_size", repr((t1.element_size(), t1.itemsize, t1.nbytes)))
    rec.err("rand int", lambda: lib.rand_like(x_data))
    rec("zeros_like", repr(lib.zeros_like(x_data, dtype=lib.float64)))
    rec("full", repr(lib.full((2, 2), 7)))
    rec("full f", repr(lib.full((2, 2), 7.0)))
    rec("full b", repr(lib.full((2,), True)))
    rec("arange", repr(lib.arange(0, 1, 0.25)))
    rec("linspace", repr(lib.linspace(0, 1, 5)))
    rec("eye", repr(lib.eye(2, 3)))
    rec("tolist", repr(lib.tensor([[1.5, 2.0]]).tolist()))
    rec("int tolist", repr(x_data.tolist()))
    rec("numpy dtype", repr(lib.ones(2, dtype=lib.int32).numpy().dtype))
    rec("item int", repr(x_data[0, 1].item()))
    rec("item bool", repr(lib.tensor(True).item()))
    rec.err("x", lambda: x_data.item())
    rec("scalar repr", repr(lib.tensor(3.5)))
    rec.err("y", lambda: lib.ones(2, requires_grad=True).numpy())
    rec.err("z", lambda: x_data @ lib.ones(2, 2))
    rec("int div", repr(x_data / 2))
    rec("int floordiv", repr(x_data // 2))
    rec("int true pow", repr(x_data**2))
    rec.err("p", lambda: x_data**-1)
    rec("float pow", repr(x_data**0.5))
    rec("sum int dtype", repr(x_data.sum()))
    rec.err("m", lambda: x_data.mean())
    rec("mean int ok", repr(x_data.float().mean()))
    rec("max", repr(x_data.max()))
    rec("max dim", repr(x_data.max(dim=1)))
    rec("argmax", repr(x_data.argmax()))
    rec("T", repr(x_data.T))
    rec("to float64", repr(x_data.to(lib.float64)))
    rec("cpu", repr(x_data.cpu() is x_data))


def autograd_basics(lib, dt, rec):
    x = lib.ones(5, dtype=dt)
    y = lib.zeros(3, dtype=dt)
    w = lib.tensor(np.linspace(-1, 1, 15).reshape(5, 3), dtype=dt, requires_grad=True)
    b = lib.tensor([0.1, -0.2, 0.3], dtype=dt, requires_grad=True)
    z = lib.matmul(x, w) + b
    loss = lib.nn.functional.binary_cross_entropy_with_logits(z, y)
    rec("gf z", str(type(z.grad_fn).__name__))
    rec("gf loss", type(loss.grad_fn).__name__)
    rec(
        "next",
        str(
            [
                (type(f).__name__ if f is not None else None, i)
                for f, i in loss.grad_fn.next_functions
            ]
        ),
    )
    nf = z.grad_fn.next_functions
    rec("next z", str([(type(f).__name__ if f is not None else None, i) for f, i in nf]))
    rec(
        "next z2",
        str(
            [
                [(type(f).__name__ if f is not None else None, i) for f, i in g.next_functions]
                for g, _ in nf
                if g is not None
            ]
        ),
    )
    loss.backward()
    rec("w.grad", w.grad)
    rec("b.grad", b.grad)
    rec.err("backward twice", lambda: loss.backward())
    z = lib.matmul(x, w) + b
    rec("z rg", str(z.requires_grad))
    with lib.no_grad():
        z = lib.matmul(x, w) + b
    rec("z rg ng", str(z.requires_grad))
    rec("z gf ng", str(z.grad_fn))
    z = lib.matmul(x, w) + b
    z_det = z.detach()
    rec("z_det rg", str(z_det.requires_grad))
    rec("z_det is_leaf", str(z_det.is_leaf))
    rec("z is_leaf", str(z.is_leaf))
    rec("w is_leaf", str(w.is_leaf))
    rec.err("nonleaf grad", lambda: z.grad)
    # nonscalar with gradient=
    inp = lib.eye(4, 5, dtype=dt, requires_grad=True)
    out = (inp + 1).pow(2).t()
    out.backward(lib.ones_like(out), retain_graph=True)
    rec("first call", inp.grad)
    out.backward(lib.ones_like(out), retain_graph=True)
    rec("second call", inp.grad)
    inp.grad.zero_()
    out.backward(lib.ones_like(out), retain_graph=True)
    rec("after zero", inp.grad)
    rec.err("nonscalar no grad", lambda: out.backward())
    rec.err("wrong grad shape", lambda: out.backward(lib.ones(2, dtype=dt)))
    # retain_grad
    a = lib.tensor([2.0, 3.0], dtype=dt, requires_grad=True)
    h = a * a
    h.retain_grad()
    k = (h * 3).sum()
    k.backward()
    rec("h.grad", h.grad)
    rec("a.grad", a.grad)
    rec("h.retains_grad", str(h.retains_grad))
    # grad of leaf without requires_grad
    c = lib.tensor([1.0], dtype=dt)
    rec.err("backward no grad", lambda: (c * 2).sum().backward())
    # detach shares memory
    d = a.detach()
    d[0] = 10.0
    rec("a after detach edit", a)
    rec.err("inplace leaf", lambda: a.add_(1))
    # version counter error
    p = lib.tensor([1.0, 2.0], dtype=dt, requires_grad=True)
    q = p.exp()
    q.add_(1)
    rec.err("saved modified", lambda: q.sum().backward())
    p2 = lib.tensor([1.0, 2.0], dtype=dt, requires_grad=True)
    q2 = p2 * 2
    r2 = q2.sigmoid()
    q2.mul_(3)
    rec("q2 version", str(q2._version))
    rec.err("sigmoid saved output ok", lambda: r2.sum().backward())
    r3 = (p2 * 2).sigmoid()
    r3.mul_(2)
    rec.err("sigmoid result modified", lambda: r3.sum().backward())
    # requires_grad_ and grad mode
    e = lib.ones(2, dtype=dt)
    e.requires_grad_()
    rec("e rg", str(e.requires_grad))
    rec.err("requires_grad nonleaf false", lambda: (e * 2).requires_grad_(False))
    rec.err("requires_grad int", lambda: lib.ones(2, dtype=lib.int64).requires_grad_())
    rec.err("tensor int rg", lambda: lib.tensor([1, 2], requires_grad=True))
    with lib.set_grad_enabled(False):
        rec("set_grad_enabled", str((e * 2).requires_grad))
    rec("is_grad_enabled", str(lib.is_grad_enabled()))

    @lib.no_grad()
    def f(t):
        return t * 2

    rec("no_grad deco", str(f(e).requires_grad))
    with lib.enable_grad():
        rec("enable_grad", str((e * 2).requires_grad))
    # grad accumulation across two losses; .grad None initially
    g = lib.tensor([1.0, -1.0, 0.5], dtype=dt, requires_grad=True)
    rec("g.grad None", str(g.grad))
    (g**3).sum().backward()
    (g.sin()).sum().backward()
    rec("g.grad acc", g.grad)
    g.grad = None
    (g.abs()).sum().backward()
    rec("abs grad", g.grad)
    # autograd.grad + create_graph
    u = lib.tensor([0.5, 1.5], dtype=dt, requires_grad=True)
    yv = (u**3).sum()
    (gu,) = lib.autograd.grad(yv, u, create_graph=True)
    rec("gu", gu)
    rec("gu gf", type(gu.grad_fn).__name__)
    (ggu,) = lib.autograd.grad(gu.sum(), u)
    rec("ggu", ggu)
    # non-scalar with gradient weights
    v = lib.tensor([1.0, 2.0, 3.0], dtype=dt, requires_grad=True)
    yy = v * 2
    for _ in range(3):
        yy = yy * 2
    rec("yy", yy)
    yy.backward(lib.tensor([0.1, 1.0, 0.0001], dtype=dt))
    rec("v.grad", v.grad)
    rec("grad_fn repr kind", repr(yy.grad_fn).split(" object")[0])
    rec("tensor repr grad", repr(yy))
    rec("tensor repr leaf", repr(v))
    rec("tensor repr sum", repr(v.sum()))
    rec("str mean", str(v.mean()))
    rec("detach repr", repr(yy.detach()))


def poly_numpy_tensor_autograd(lib, dt, rec):
    x = lib.linspace(-math.pi, math.pi, 2000, dtype=dt)
    y = lib.sin(x)
    g = lib.Generator().manual_seed(0)
    a, b, c, d = (lib.randn((), dtype=dt, generator=g) for _ in range(4))
    lr = 1e-6
    for t in range(40):
        y_pred = a + b * x + c * x**2 + d * x**3
        loss = (y_pred - y).pow(2).sum().item()
        if t % 10 == 9:
            rec(f"loss{t}", loss)
        grad_y_pred = 2.0 * (y_pred - y)
        grad_a = grad_y_pred.sum()
        grad_b = (grad_y_pred * x).sum()
        grad_c = (grad_y_pred * x**2).sum()
        grad_d = (grad_y_pred * x**3).sum()
        a -= lr * grad_a
        b -= lr * grad_b
        c -= lr * grad_c
        d -= lr * grad_d
    rec("abcd", lib.stack([a, b, c, d]))
    rec("result", [a.item(), b.item(), c.item(), d.item()])
    # autograd version
    a, b, c, d = (lib.randn((), dtype=dt, generator=g, requires_grad=True) for _ in range(4))
    for t in range(40):
        y_pred = a + b * x + c * x**2 + d * x**3
        loss = (y_pred - y).pow(2).sum()
        if t % 10 == 9:
            rec(f"aloss{t}", loss)
        loss.backward()
        with lib.no_grad():
            for p in (a, b, c, d):
                p -= lr * p.grad
                p.grad = None
    rec("aabcd", lib.stack([a, b, c, d]))
    rec("a repr", repr(a) if dt == lib.float64 else "")
    rec("a rg", str(a.requires_grad) + str(a.is_leaf) + str(a.grad_fn))


def legendre(lib, dt, rec):
    class LegendrePolynomial3(lib.autograd.Function):
        @staticmethod
        def forward(ctx, input):
            ctx.save_for_backward(input)
            return 0.5 * (5 * input**3 - 3 * input)

        @staticmethod
        def backward(ctx, grad_output):
            (input,) = ctx.saved_tensors
            return grad_output * 1.5 * (5 * input**2 - 1)

    x = lib.linspace(-math.pi, math.pi, 2000, dtype=dt)
    y = lib.sin(x)
    a = lib.full((), 0.0, dtype=dt, requires_grad=True)
    b = lib.full((), -1.0, dtype=dt, requires_grad=True)
    c = lib.full((), 0.0, dtype=dt, requires_grad=True)
    d = lib.full((), 0.3, dtype=dt, requires_grad=True)
    lr = 5e-6
    P3 = LegendrePolynomial3.apply
    for t in range(30):
        y_pred = a + b * P3(c + d * x)
        loss = (y_pred - y).pow(2).sum()
        if t == 0:
            rec("gf", type(y_pred.grad_fn).__name__)
            rec(
                "gf next",
                str(
                    sorted(
                        type(f).__name__ for f, _ in y_pred.grad_fn.next_functions if f is not None
                    )
                ),
            )
            inner = y_pred.grad_fn.next_functions[1][0]
            rec("mulnext", str([type(f).__name__ if f else None for f, _ in inner.next_functions]))
        if t % 10 == 9:
            rec(f"loss{t}", loss)
        loss.backward()
        with lib.no_grad():
            for p in (a, b, c, d):
                p -= lr * p.grad
                p.grad = None
    rec("abcd", lib.stack([a, b, c, d]))
    # gradcheck on the custom function in float64
    xx = lib.linspace(-1, 1, 5, dtype=lib.float64).requires_grad_()
    rec("gradcheck", str(lib.autograd.gradcheck(P3, (xx,))))
    rec("gradgradcheck", rec.err("gg", lambda: lib.autograd.gradgradcheck(P3, (xx,))))

    # once_differentiable style / needs_input_grad
    class Scale(lib.autograd.Function):
        @staticmethod
        def forward(ctx, inp, k):
            ctx.k = k
            rec("needs", str(ctx.needs_input_grad))
            return inp * k

        @staticmethod
        def backward(ctx, g):
            return g * ctx.k, None

    s = Scale.apply(xx, 3.0)
    s.sum().backward()
    rec("scale grad", xx.grad)
    rec("scale gf name", type(s.grad_fn).__name__)

    # return wrong number of grads
    class Bad(lib.autograd.Function):
        @staticmethod
        def forward(ctx, inp, k):
            return inp * k

        @staticmethod
        def backward(ctx, g):
            return g

    rec.err("bad nrets", lambda: Bad.apply(xx, 2.0).sum().backward())

    class BadShape(lib.autograd.Function):
        @staticmethod
        def forward(ctx, inp):
            return inp * 2

        @staticmethod
        def backward(ctx, g):
            return g[:2]

    rec.err("bad shape", lambda: BadShape.apply(xx).sum().backward())

    class NoBackward(lib.autograd.Function):
        @staticmethod
        def forward(ctx, inp):
            return inp * 2

    rec.err("no backward", lambda: NoBackward.apply(xx).sum().backward())
    rec.err("call instance", lambda: LegendrePolynomial3()(xx))


def nn_seq_rmsprop(lib, dt, rec):
    x = lib.linspace(-math.pi, math.pi, 2000, dtype=dt)
    y = lib.sin(x)
    p = lib.tensor([1, 2, 3])
    xx = x.unsqueeze(-1).pow(p)
    rec("xx", xx)
    rec("xx dtype", str(xx.dtype))
    model = lib.nn.Sequential(lib.nn.Linear(3, 1), lib.nn.Flatten(0, 1)).to(dt)
    with lib.no_grad():
        model[0].weight.copy_(lib.tensor([[0.1, -0.2, 0.05]], dtype=dt))
        model[0].bias.fill_(0.3)
    rec("model", str(model))
    rec("model repr", repr(model[0]))
    loss_fn = lib.nn.MSELoss(reduction="sum")
    lr = 1e-3
    opt = lib.optim.RMSprop(model.parameters(), lr=lr)
    rec("opt", str(opt))
    for t in range(25):
        y_pred = model(xx)
        loss = loss_fn(y_pred, y)
        if t % 5 == 4:
            rec(f"loss{t}", loss)
        opt.zero_grad()
        loss.backward()
        opt.step()
    linear_layer = model[0]
    rec("w", linear_layer.weight)
    rec("b", linear_layer.bias)
    rec("state", str(sorted(opt.state_dict()["state"][0].keys())))
    rec("sq", opt.state_dict()["state"][0]["square_avg"])
    rec("step", opt.state_dict()["state"][0]["step"])
    rec("pg", str({k: v for k, v in opt.state_dict()["param_groups"][0].items()}))
    # manual SGD variant via model.parameters()
    model.zero_grad()
    rec("grads after zero_grad", str([p.grad for p in model.parameters()]))
    # nn.Flatten variants
    f = lib.nn.Flatten()
    rec("flatten", f(lib.ones(2, 3, 4, dtype=dt)).shape)
    rec("flatten repr", repr(f))
    rec("flatten01", repr(lib.nn.Flatten(0, 1)))
    rec.err("flatten bad", lambda: lib.nn.Flatten(0, 1)(lib.ones(3, dtype=dt)))
    rec("unflatten", repr(lib.nn.Unflatten(1, (2, 2))))
    # RMSprop variants
    for kw in (
        {"momentum": 0.9},
        {"centered": True},
        {"weight_decay": 0.1, "alpha": 0.9},
        {"centered": True, "momentum": 0.5, "maximize": True},
    ):
        w = lib.tensor([[0.5, -0.3], [0.2, 0.1]], dtype=dt, requires_grad=True)
        o = lib.optim.RMSprop([w], lr=0.01, **kw)
        for _ in range(6):
            o.zero_grad()
            ((w @ w.T).sin().sum() + (w**2).sum()).backward()
            o.step()
        rec(f"rms {kw}", w)
        rec(f"rms state {kw}", str(sorted(o.state[w].keys())))


def dynamic_net(lib, dt, rec):
    import random

    class DynamicNet(lib.nn.Module):
        def __init__(self):
            super().__init__()
            self.a = lib.nn.Parameter(lib.tensor(0.1, dtype=dt))
            self.b = lib.nn.Parameter(lib.tensor(-0.2, dtype=dt))
            self.c = lib.nn.Parameter(lib.tensor(0.05, dtype=dt))
            self.d = lib.nn.Parameter(lib.tensor(0.02, dtype=dt))
            self.e = lib.nn.Parameter(lib.tensor(0.01, dtype=dt))

        def forward(self, x, n):
            y = self.a + self.b * x + self.c * x**2 + self.d * x**3
            for exp in range(4, n):
                y = y + self.e * x**exp
            return y

        def string(self):
            return (
                f"y = {self.a.item()} + {self.b.item()} x + {self.c.item()} x^2 + "
                f"{self.d.item()} x^3 + {self.e.item()} x^4 ? + {self.e.item()} x^5 ?"
            )

    x = lib.linspace(-math.pi, math.pi, 2000, dtype=dt)
    y = lib.sin(x)
    model = DynamicNet()
    rec("repr", repr(model))
    rec("params", str([n for n, _ in model.named_parameters()]))
    rec("param repr", repr(model.a))
    crit = lib.nn.MSELoss(reduction="sum")
    opt = lib.optim.SGD(model.parameters(), lr=1e-8, momentum=0.9)
    rnd = random.Random(3)
    for t in range(30):
        n = rnd.randint(4, 6)
        y_pred = model(x, n)
        loss = crit(y_pred, y)
        if t % 5 == 4:
            rec(f"loss{t}", loss)
        opt.zero_grad()
        loss.backward()
        opt.step()
    rec("e", model.e)
    rec("a", model.a)
    rec("string", model.string().split(" + ")[0][:8])
    rec("state_dict keys", str(list(model.state_dict().keys())))
    rec("momentum", opt.state[model.e]["momentum_buffer"])


def polynomial_module(lib, dt, rec):
    class Polynomial3(lib.nn.Module):
        def __init__(self):
            super().__init__()
            g = lib.Generator().manual_seed(5)
            self.a = lib.nn.Parameter(lib.randn((), generator=g, dtype=dt))
            self.b = lib.nn.Parameter(lib.randn((), generator=g, dtype=dt))
            self.c = lib.nn.Parameter(lib.randn((), generator=g, dtype=dt))
            self.d = lib.nn.Parameter(lib.randn((), generator=g, dtype=dt))

        def forward(self, x):
            return self.a + self.b * x + self.c * x**2 + self.d * x**3

    x = lib.linspace(-math.pi, math.pi, 2000, dtype=dt)
    y = lib.sin(x)
    m = Polynomial3()
    crit = lib.nn.MSELoss(reduction="sum")
    opt = lib.optim.SGD(m.parameters(), lr=1e-6)
    for _ in range(30):
        loss = crit(m(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
    rec("params", lib.stack(list(m.parameters())))
    rec("loss", loss)
    rec("print", repr(m))
    rec("sd", str({k: tuple(v.shape) for k, v in m.state_dict().items()}))


def _data(lib, dt):
    rng = np.random.default_rng(0)
    xtr = rng.random((256, 784)).astype(np.float32 if dt == lib.float32 else np.float64)
    ytr = rng.integers(0, 10, 256)
    xva = rng.random((128, 784)).astype(xtr.dtype)
    yva = rng.integers(0, 10, 128)
    return map(lib.tensor, (xtr, ytr, xva, yva))


def nn_really_scratch(lib, dt, rec):
    x_train, y_train, x_valid, y_valid = _data(lib, dt)
    n, c = x_train.shape
    rec("shapes", str((x_train.shape, y_train.min(), y_train.max())))
    rec("ytr dtype", str(y_train.dtype))
    rng = np.random.default_rng(1)
    weights = lib.tensor(rng.standard_normal((784, 10)), dtype=dt) / math.sqrt(784)
    weights.requires_grad_()
    bias = lib.zeros(10, requires_grad=True, dtype=dt)
    rec("w leaf", str(weights.is_leaf))

    def log_softmax(x):
        return x - x.exp().sum(-1).log().unsqueeze(-1)

    def model(xb):
        return log_softmax(xb @ weights + bias)

    bs = 64
    xb = x_train[0:bs]
    preds = model(xb)
    rec("preds0", preds[0])
    rec("preds shape", preds.shape)
    rec("preds repr", repr(preds[0, :3]) if dt == lib.float32 else "")

    def nll(input, target):
        return -input[range(target.shape[0]), target].mean()

    loss_func = nll
    yb = y_train[0:bs]
    rec("loss", loss_func(preds, yb))

    def accuracy(out, yb):
        preds = lib.argmax(out, dim=1)
        return (preds == yb).float().mean()

    rec("acc", accuracy(preds, yb))
    lr = 0.5
    epochs = 2
    for _ in range(epochs):
        for i in range((n - 1) // bs + 1):
            start_i = i * bs
            end_i = start_i + bs
            xb = x_train[start_i:end_i]
            yb = y_train[start_i:end_i]
            pred = model(xb)
            loss = loss_func(pred, yb)
            loss.backward()
            with lib.no_grad():
                weights -= weights.grad * lr
                bias -= bias.grad * lr
                weights.grad.zero_()
                bias.grad.zero_()
    rec("final loss", loss_func(model(xb), yb))
    rec("final acc", accuracy(model(xb), yb))
    rec("bias", bias)
    F = lib.nn.functional
    loss_func = F.cross_entropy

    def model2(xb):
        return xb @ weights + bias

    rec("ce", loss_func(model2(xb), yb))
    rec("nll vs ce", nll(F.log_softmax(model2(xb), dim=1), yb))
    rec.err("ce float target", lambda: loss_func(model2(xb), yb.float()))
    rec.err("ce int32 target", lambda: loss_func(model2(xb), yb.int()))
    rec.err("ce wrong shape", lambda: loss_func(model2(xb), yb[:5]))
    rec.err("ce oob target", lambda: loss_func(model2(xb), yb + 10))
    rec.err("nll oob", lambda: F.nll_loss(model2(xb), yb - 11))
    rec.err("matmul shape", lambda: xb[:, :100] @ weights)
    rec.err(
        "mm dtype",
        lambda: xb.double() @ weights.float() if dt == lib.float32 else xb.float() @ weights,
    )


def nn_really_module(lib, dt, rec):
    F = lib.nn.functional
    nn = lib.nn
    optim = lib.optim
    from_ = lib.utils.data
    x_train, y_train, x_valid, y_valid = _data(lib, dt)
    bs = 64
    lr = 0.5
    loss_func = F.cross_entropy

    class Mnist_Logistic(nn.Module):
        def __init__(self):
            super().__init__()
            self.weights = nn.Parameter(
                lib.tensor(np.random.default_rng(1).standard_normal((784, 10)), dtype=dt)
                / math.sqrt(784)
            )
            self.bias = nn.Parameter(lib.zeros(10, dtype=dt))

        def forward(self, xb):
            return xb @ self.weights + self.bias

    model = Mnist_Logistic()
    rec("repr", repr(model))
    rec("w repr head", repr(model.bias))
    rec("loss0", loss_func(model(x_train[:bs]), y_train[:bs]))

    def fit():
        for _ in range(2):
            for i in range((256 - 1) // bs + 1):
                xb = x_train[i * bs : i * bs + bs]
                yb = y_train[i * bs : i * bs + bs]
                loss = loss_func(model(xb), yb)
                loss.backward()
                with lib.no_grad():
                    for p in model.parameters():
                        p -= p.grad * lr
                    model.zero_grad()

    fit()
    rec("loss fit", loss_func(model(x_train[:bs]), y_train[:bs]))

    class Mnist_Logistic2(nn.Module):
        def __init__(self):
            super().__init__()
            self.lin = nn.Linear(784, 10, dtype=dt)

        def forward(self, xb):
            return self.lin(xb)

    def get_model():
        lib.manual_seed(0)
        model = Mnist_Logistic2()
        with lib.no_grad():
            model.lin.weight.copy_(
                lib.tensor(np.random.default_rng(2).uniform(-0.03, 0.03, (10, 784)), dtype=dt)
            )
            model.lin.bias.zero_()
        return model, optim.SGD(model.parameters(), lr=lr)

    model, opt = get_model()
    rec("repr2", repr(model))
    rec("opt repr", repr(opt))
    TensorDataset = from_.TensorDataset
    DataLoader = from_.DataLoader
    train_ds = TensorDataset(x_train, y_train)
    rec("ds len", len(train_ds))
    rec("ds item", str([t.shape for t in train_ds[3]]))
    rec("ds slice", str([t.shape for t in train_ds[0:5]]))
    train_dl = DataLoader(train_ds, batch_size=bs)
    rec("dl len", len(train_dl))
    valid_ds = TensorDataset(x_valid, y_valid)
    valid_dl = DataLoader(valid_ds, batch_size=bs * 2)
    for epoch in range(2):
        model.train()
        for xb, yb in train_dl:
            pred = model(xb)
            loss = loss_func(pred, yb)
            loss.backward()
            opt.step()
            opt.zero_grad()
        model.eval()
        with lib.no_grad():
            valid_loss = sum(loss_func(model(xb), yb) for xb, yb in valid_dl)
        rec(f"epoch{epoch} valid", valid_loss / len(valid_dl))
        rec("vl type", type(valid_loss).__name__ + str(valid_loss.requires_grad))
    rec("lin", model.lin.weight[:, :5])
    # shuffle with generator
    g = lib.Generator().manual_seed(7)
    dl = DataLoader(train_ds, batch_size=100, shuffle=True, generator=g)
    batches = [yb for _, yb in dl]
    rec("shuffled sizes", str([len(b) for b in batches]))
    rec("drop_last", len(DataLoader(train_ds, batch_size=100, drop_last=True)))

    # loss_batch/fit style
    def loss_batch(model, loss_func, xb, yb, opt=None):
        loss = loss_func(model(xb), yb)
        if opt is not None:
            loss.backward()
            opt.step()
            opt.zero_grad()
        return loss.item(), len(xb)

    model, opt = get_model()
    for epoch in range(2):
        model.train()
        for xb, yb in train_dl:
            loss_batch(model, loss_func, xb, yb, opt)
        model.eval()
        with lib.no_grad():
            losses, nums = zip(
                *[loss_batch(model, loss_func, xb, yb) for xb, yb in valid_dl], strict=True
            )
        val_loss = np.sum(np.multiply(losses, nums)) / np.sum(nums)
        rec(f"lb{epoch}", val_loss)
    rec("type of item", type(losses[0]).__name__)


def nn_really_cnn(lib, dt, rec):
    F = lib.nn.functional
    nn = lib.nn
    optim = lib.optim
    D = lib.utils.data
    x_train, y_train, x_valid, y_valid = _data(lib, dt)
    x_train, y_train, x_valid, y_valid = x_train[:64], y_train[:64], x_valid[:32], y_valid[:32]
    lr = 0.1
    bs = 32

    def init(model, seed):
        rng = np.random.default_rng(seed)
        with lib.no_grad():
            for p in model.parameters():
                p.copy_(lib.tensor(rng.uniform(-0.2, 0.2, tuple(p.shape)), dtype=dt))

    class Mnist_CNN(nn.Module):
        def __init__(self):
            super().__init__()
            self.conv1 = nn.Conv2d(1, 16, kernel_size=3, stride=2, padding=1, dtype=dt)
            self.conv2 = nn.Conv2d(16, 16, kernel_size=3, stride=2, padding=1, dtype=dt)
            self.conv3 = nn.Conv2d(16, 10, kernel_size=3, stride=2, padding=1, dtype=dt)

        def forward(self, xb):
            xb = xb.view(-1, 1, 28, 28)
            xb = F.relu(self.conv1(xb))
            xb = F.relu(self.conv2(xb))
            xb = F.relu(self.conv3(xb))
            xb = F.avg_pool2d(xb, 4)
            return xb.view(-1, xb.size(1))

    model = Mnist_CNN()
    init(model, 3)
    rec("cnn repr", repr(model))
    opt = optim.SGD(model.parameters(), lr=lr, momentum=0.9)
    dl = D.DataLoader(D.TensorDataset(x_train, y_train), batch_size=bs)
    for xb, yb in dl:
        loss = F.cross_entropy(model(xb), yb)
        loss.backward()
        opt.step()
        opt.zero_grad()
    rec("cnn loss", loss)
    rec("cnn conv1", model.conv1.weight)

    class Lambda(nn.Module):
        def __init__(self, func):
            super().__init__()
            self.func = func

        def forward(self, x):
            return self.func(x)

    def preprocess(x):
        return x.view(-1, 1, 28, 28)

    model = nn.Sequential(
        Lambda(preprocess),
        nn.Conv2d(1, 16, kernel_size=3, stride=2, padding=1, dtype=dt),
        nn.ReLU(),
        nn.Conv2d(16, 16, kernel_size=3, stride=2, padding=1, dtype=dt),
        nn.ReLU(),
        nn.Conv2d(16, 10, kernel_size=3, stride=2, padding=1, dtype=dt),
        nn.ReLU(),
        nn.AvgPool2d(4),
        Lambda(lambda x: x.view(x.size(0), -1)),
    )
    init(model, 4)
    rec("seq repr", repr(model))
    opt = optim.SGD(model.parameters(), lr=lr, momentum=0.9)
    for xb, yb in dl:
        loss = F.cross_entropy(model(xb), yb)
        loss.backward()
        opt.step()
        opt.zero_grad()
    rec("seq loss", loss)
    rec("seq w", model[1].weight)

    class WrappedDataLoader:
        def __init__(self, dl, func):
            self.dl = dl
            self.func = func

        def __len__(self):
            return len(self.dl)

        def __iter__(self):
            for b in self.dl:
                yield (self.func(*b))

    def pre(x, y):
        return x.view(-1, 1, 28, 28), y

    train_dl = WrappedDataLoader(dl, pre)
    valid_dl = WrappedDataLoader(
        D.DataLoader(D.TensorDataset(x_valid, y_valid), batch_size=bs * 2), pre
    )
    model = nn.Sequential(
        nn.Conv2d(1, 16, kernel_size=3, stride=2, padding=1, dtype=dt),
        nn.ReLU(),
        nn.Conv2d(16, 16, kernel_size=3, stride=2, padding=1, dtype=dt),
        nn.ReLU(),
        nn.Conv2d(16, 10, kernel_size=3, stride=2, padding=1, dtype=dt),
        nn.ReLU(),
        nn.AdaptiveAvgPool2d(1),
        Lambda(lambda x: x.view(x.size(0), -1)),
    )
    init(model, 5)
    rec("adaptive repr", repr(model))
    opt = optim.SGD(model.parameters(), lr=lr, momentum=0.9)
    for epoch in range(2):
        model.train()
        for xb, yb in train_dl:
            loss = F.cross_entropy(model(xb), yb)
            loss.backward()
            opt.step()
            opt.zero_grad()
        model.eval()
        with lib.no_grad():
            losses = [F.cross_entropy(model(xb), yb, reduction="sum") for xb, yb in valid_dl]
        rec(f"ad valid {epoch}", sum(losses) / 128)
    rec("ad w", model[4].weight)
    rec("ad state mom", opt.state[model[4].weight]["momentum_buffer"])
    rec("training flags", str([m.training for m in model]))
    rec("children", str([type(m).__name__ for m in model.children()]))
    rec("named_modules", str([n for n, _ in model.named_modules()]))
    rec("adaptive out", model[:7](lib.ones(2, 1, 28, 28, dtype=dt)).shape)
    rec.err("bad input", lambda: model(lib.ones(2, 784, dtype=dt)))
    rec.err("bad channels", lambda: model(lib.ones(2, 3, 28, 28, dtype=dt)))
    rec.err("int input", lambda: model(lib.ones(2, 1, 28, 28, dtype=lib.int64)))
    rec.err(
        "mixed dtype",
        lambda: model(
            lib.ones(2, 1, 28, 28, dtype=lib.float64 if dt == lib.float32 else lib.float32)
        ),
    )
    rec.err("view noncontig", lambda: lib.ones(4, 6, dtype=dt).t().view(-1))
    rec.err("view bad", lambda: lib.ones(4, 6, dtype=dt).view(5, -1))


def save_load(lib, dt, rec):
    nn = lib.nn

    class TheModelClass(nn.Module):
        def __init__(self):
            super().__init__()
            self.conv1 = nn.Conv2d(3, 6, 5, dtype=dt)
            self.pool = nn.MaxPool2d(2, 2)
            self.conv2 = nn.Conv2d(6, 16, 5, dtype=dt)
            self.fc1 = nn.Linear(16 * 5 * 5, 120, dtype=dt)
            self.bn = nn.BatchNorm1d(120, dtype=dt)
            self.fc2 = nn.Linear(120, 10, dtype=dt)

        def forward(self, x):
            x = self.pool(nn.functional.relu(self.conv1(x)))
            x = self.pool(nn.functional.relu(self.conv2(x)))
            x = lib.flatten(x, 1)
            x = nn.functional.relu(self.bn(self.fc1(x)))
            return self.fc2(x)

    def init(m, seed):
        rng = np.random.default_rng(seed)
        with lib.no_grad():
            for p in m.parameters():
                p.copy_(lib.tensor(rng.uniform(-0.1, 0.1, tuple(p.shape)), dtype=dt))

    model = TheModelClass()
    init(model, 0)
    optimizer = lib.optim.SGD(model.parameters(), lr=0.001, momentum=0.9)
    rec("print model", str(model))
    sd = model.state_dict()
    rec("sd keys", str([(k, tuple(v.size())) for k, v in sd.items()]))
    rec("sd type", type(sd).__name__)
    rec("sd metadata", str(getattr(sd, "_metadata", None)))
    x = lib.tensor(np.random.default_rng(1).standard_normal((2, 3, 32, 32)), dtype=dt)
    y = lib.tensor([1, 4])
    for _ in range(3):
        loss = nn.functional.cross_entropy(model(x), y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    rec("osd", str(optimizer.state_dict()["param_groups"]))
    rec("osd state keys", str(list(optimizer.state_dict()["state"].keys())))
    buf = io.BytesIO()
    lib.save(model.state_dict(), buf)
    buf.seek(0)
    model2 = TheModelClass()
    res = model2.load_state_dict(lib.load(buf, weights_only=True))
    rec("load res", repr(res))
    rec("load res type", type(res).__name__)
    rec("load res bool", str(bool(res)))
    model2.eval()
    model.eval()
    rec("same out", model2(x))
    rec("orig out", model(x))
    rec("bn running", model2.bn.running_mean)
    rec("nbt", model2.bn.num_batches_tracked)
    # whole model save? (pickle-based) skip; checkpoint dict
    buf = io.BytesIO()
    lib.save(
        {
            "epoch": 5,
            "model_state_dict": model.state_dict(),
            "optimizer_state_dict": optimizer.state_dict(),
            "loss": loss,
        },
        buf,
    )
    buf.seek(0)
    ckpt = lib.load(buf, weights_only=True)
    rec("ckpt keys", str(list(ckpt.keys())))
    rec("ckpt epoch", str(ckpt["epoch"]))
    rec("ckpt loss", ckpt["loss"])
    rec("ckpt loss rg", str(ckpt["loss"].requires_grad) + str(ckpt["loss"].grad_fn))
    model3 = TheModelClass()
    init(model3, 9)
    opt3 = lib.optim.SGD(model3.parameters(), lr=0.5)
    model3.load_state_dict(ckpt["model_state_dict"])
    opt3.load_state_dict(ckpt["optimizer_state_dict"])
    rec("opt3 lr", str(opt3.param_groups[0]["lr"]))
    rec("opt3 mom", str(opt3.param_groups[0]["momentum"]))
    model3.train()
    model.train()
    for m_, o_ in ((model, optimizer), (model3, opt3)):
        for _ in range(2):
            loss_ = nn.functional.cross_entropy(m_(x), y)
            o_.zero_grad()
            loss_.backward()
            o_.step()
        rec("resumed", m_.fc2.weight)
    # strict / non strict
    sd = model.state_dict()
    sd2 = {k: v for k, v in sd.items() if not k.startswith("fc2")}
    sd2["extra.weight"] = lib.ones(2)
    rec.err("strict missing", lambda: model3.load_state_dict(sd2))
    r = model3.load_state_dict(sd2, strict=False)
    rec("nonstrict", repr(r))
    rec("missing", str(r.missing_keys))
    rec("unexpected", str(r.unexpected_keys))
    sd3 = dict(sd)
    sd3["fc2.weight"] = lib.ones(3, 120, dtype=dt)
    rec.err("size mismatch", lambda: model3.load_state_dict(sd3))
    rec.err("size mismatch nonstrict", lambda: model3.load_state_dict(sd3, strict=False))

    # warmstart a different model with prefix
    class Net2(nn.Module):
        def __init__(self):
            super().__init__()
            self.fc1 = nn.Linear(400, 120, dtype=dt)
            self.head = nn.Linear(120, 3, dtype=dt)

    n2 = Net2()
    r = n2.load_state_dict(model.state_dict(), strict=False)
    rec("warm", repr(r))
    rec("warm fc1", n2.fc1.bias)
    # dtype conversion on load
    sd4 = {k: (v.float() if v.is_floating_point() else v) for k, v in model.state_dict().items()}
    model3.load_state_dict(sd4)
    rec("dtype after load", str(model3.fc1.weight.dtype))
    # save a tensor & view sharing
    t = lib.arange(10.0, dtype=dt)
    buf = io.BytesIO()
    lib.save([t, t[2:5], t.view(2, 5)], buf)
    buf.seek(0)
    a, b, c = lib.load(buf)
    b[0] = 100.0
    rec("shared after load", a)
    rec("c", c)
    rec("b offset", b.storage_offset())
    # save an optimizer with Adam, then load into a fresh one and continue
    w = nn.Parameter(lib.tensor([[1.0, -2.0], [0.5, 0.25]], dtype=dt))
    adam = lib.optim.Adam([w], lr=0.1, betas=(0.8, 0.9))
    for _ in range(3):
        adam.zero_grad()
        (w.sin() * w).sum().backward()
        adam.step()
    buf = io.BytesIO()
    lib.save(adam.state_dict(), buf)
    buf.seek(0)
    st = lib.load(buf)
    rec(
        "adam sd",
        str({k: (type(v).__name__, getattr(v, "dtype", None)) for k, v in st["state"][0].items()}),
    )
    rec("adam pg", str(st["param_groups"]))
    w2 = nn.Parameter(w.detach().clone())
    adam2 = lib.optim.Adam([w2], lr=0.5)
    adam2.load_state_dict(st)
    for o, p in ((adam, w), (adam2, w2)):
        for _ in range(3):
            o.zero_grad()
            (p.sin() * p).sum().backward()
            o.step()
        rec("adam cont", p)
    rec.err(
        "load wrong groups",
        lambda: lib.optim.Adam([w2, nn.Parameter(lib.ones(1, dtype=dt))]).load_state_dict(st),
    )
    err_type(rec, "load bad", lambda: lib.load(io.BytesIO(b"garbage")))
    # torch.save of Parameter keeps Parameter
    buf = io.BytesIO()
    lib.save(w, buf)
    buf.seek(0)
    wl = lib.load(buf)
    rec("param type", type(wl).__name__ + str(wl.requires_grad))
    rec("param repr", repr(wl) if dt == lib.float32 else "")
    # state_dict with keep_vars
    rec("keep_vars", str([type(v).__name__ for v in model.state_dict(keep_vars=True).values()][:3]))
    rec(
        "sd no keep",
        str([type(v).__name__ + str(v.requires_grad) for v in model.state_dict().values()][:3]),
    )
    # state_dict prefix
    rec("prefix", str(list(model.fc1.state_dict(prefix="pre.").keys())))
    # load_state_dict with assign
    n3 = Net2()
    r = n3.load_state_dict(
        {
            "fc1.weight": lib.zeros(120, 400, dtype=dt),
            "fc1.bias": lib.zeros(120, dtype=dt),
            "head.weight": lib.ones(3, 120, dtype=dt),
            "head.bias": lib.ones(3, dtype=dt),
        },
        assign=True,
    )
    rec("assign type", type(n3.head.weight).__name__ + str(n3.head.weight.requires_grad))


def printing(lib, rec):
    def R(n, code):
        rec(n, repr(eval(code, {"lib": lib, "np": np, "math": math})))

    def S(n, code):
        rec(n, str(eval(code, {"lib": lib, "np": np, "math": math})))

    cases = [
        "lib.arange(2000.0)",
        "lib.arange(2000)",
        "lib.arange(1200.0).reshape(40, 30)",
        "lib.arange(3000.0).reshape(10, 10, 30)",
        "lib.tensor([1e-5, 1.0, 1e5])",
        "lib.tensor([1e-10, 1.0])",
        "lib.tensor([0.1, 0.25, 100.0])",
        "lib.tensor([1e8, 1.0])",
        "lib.tensor([-0.0, 0.0, 1.5])",
        "lib.tensor([math.nan, math.inf, -math.inf, 1.0])",
        "lib.tensor([math.nan, 1e20])",
        "lib.tensor([1.0, 2.0], dtype=lib.float64)",
        "lib.tensor([1.0, 2.0], dtype=lib.float16)",
        "lib.tensor([1.5, 2.0], dtype=lib.bfloat16)",
        "lib.tensor([1, 2], dtype=lib.int32)",
        "lib.tensor([1, 2], dtype=lib.uint8)",
        "lib.tensor([1, 2], dtype=lib.int8)",
        "lib.tensor([1, 2], dtype=lib.int16)",
        "lib.tensor([[True, False]])",
        "lib.tensor(2.5)",
        "lib.tensor(3)",
        "lib.tensor(True)",
        "lib.empty(0)",
        "lib.empty(2, 0)",
        "lib.empty(0, 3, dtype=lib.int64)",
        "lib.ones(2, 0, 3)",
        "lib.ones(2, requires_grad=True)",
        "lib.ones(2, requires_grad=True) * 2",
        "lib.ones(2, requires_grad=True).sum()",
        "lib.ones(2, dtype=lib.float64, requires_grad=True) + 1",
        "lib.nn.Parameter(lib.ones(2, 2))",
        "lib.nn.Parameter(lib.ones(2, dtype=lib.float64))",
        "lib.nn.Parameter(lib.ones(2), requires_grad=False)",
        "lib.nn.Parameter(lib.tensor(1.0))",
        "lib.tensor([123456789.0, 1.0])",
        "lib.tensor([0.00012345, 1.0])",
        "lib.tensor([1.0, 2.0, 3.0]) / 3",
        "lib.tensor([1.0, 10.0, 100.0, 1000.0, 10000.0])",
        "lib.tensor([[1.5, -2.0], [300.25, 4.0]])",
        "lib.tensor([2**62, -3])",
        "lib.tensor([1e-4, 1e-3])",
        "lib.tensor([12345.678, 0.5])",
        "lib.tensor([1.0, 2.0]).view(1, 2).expand(3, 2)",
        "lib.ones(3, 3, dtype=lib.float64) / 7",
        "lib.tensor([0.0, 0.0])",
        "lib.tensor([1.0, math.inf])",
        "lib.tensor([1e-300], dtype=lib.float64)",
        "lib.tensor([5e-324], dtype=lib.float64)",
        "lib.tensor([math.nan])",
        "lib.arange(8.0).reshape(2, 2, 2).transpose(0, 2)",
        "lib.tensor([[[1]]])",
        "lib.tensor([1.0, -1.0]).to(lib.float16) / 3",
        "lib.arange(6.0).reshape(2, 3).t()",
        "lib.tensor([1.0, 2.0]).exp()",
        "lib.tensor([1.0, 2.0]).requires_grad_()",
        "lib.tensor([1.0, 2.0], requires_grad=True).clone()",
        "lib.tensor([1.0, 2.0], requires_grad=True)[0]",
        "lib.tensor([1.0, 2.0], requires_grad=True).view(2, 1)",
        "lib.tensor([1.0, 2.0], requires_grad=True).detach()",
        "lib.tensor([[1.0, 2.0]], requires_grad=True).t()",
        "lib.tensor([[1.0, 2.0]], requires_grad=True) @ lib.ones(2, 1)",
        "lib.ones(2).float()",
        "lib.ones(2).int()",
        "lib.ones(2).long()",
        "lib.ones(2).half()",
        "lib.ones(2).bool()",
        "lib.ones(2).double()",
        "lib.ones(2).sum(0, keepdim=True)",
        "lib.arange(10).reshape(2, 5).max(1)",
        "lib.arange(10.0).reshape(2, 5).sort(1, descending=True)",
        "lib.arange(10.0).topk(3)",
        "lib.ones(2).dtype",
        "lib.ones(2).shape",
        "lib.ones(2).device",
        "lib.ones(2, 3).size()",
        "lib.ones(2).is_leaf",
        "lib.float32",
        "lib.int64",
        "lib.Size([2, 3])",
        "lib.device('cpu')",
        "lib.ones(2).stride()",
        "lib.finfo(lib.float32)",
        "lib.iinfo(lib.int32)",
        "lib.arange(10).chunk(3)",
        "lib.arange(6).split([2, 4])",
        "lib.ones(3, 4).unbind(0)",
        "lib.arange(5.0).var_mean()",
        "lib.arange(12.0).reshape(3, 4).median(1)",
        "lib.tensor([3, 1, 3, 2]).unique(return_counts=True)",
        "lib.arange(4.0).to(lib.float16).sum()",
        "lib.randn(2, generator=lib.Generator().manual_seed(0)).shape",
        "lib.Generator().manual_seed(0).initial_seed()",
        "lib.get_default_dtype()",
        "lib.arange(5).float().mean()",
    ]
    for c in cases:
        rec.err("err " + c, lambda c=c: R("repr " + c, c))
    for c in cases[:30]:
        rec.err("serr " + c, lambda c=c: S("str " + c, c))
    # printoptions
    opts = [
        dict(precision=2),
        dict(sci_mode=True),
        dict(sci_mode=False),
        dict(threshold=5),
        dict(edgeitems=1, threshold=5),
        dict(linewidth=30),
        dict(profile="full"),
        dict(profile="short"),
        dict(precision=10),
    ]
    samples = [
        "lib.tensor([1e-5, 1.0, 1e5])",
        "lib.arange(40.0).reshape(5, 8) / 3",
        "lib.arange(20) * 1000",
        "lib.tensor([0.1234567891234, 2.0], dtype=lib.float64)",
    ]
    for o in opts:
        try:
            lib.set_printoptions(**o)
            for s in samples:
                rec.err(f"opt {o} {s}", lambda s=s, o=o: R(f"popt {o} {s}", s))
        finally:
            lib.set_printoptions(profile="default")
            lib.set_printoptions(sci_mode=None)
    rec("after reset", repr(lib.tensor([1e-5, 1.0, 1e5])))
    # format
    t = lib.tensor(2.5)
    rec("fmt", f"{t:.3f}")
    rec("fmt2", f"{t}")
    rec.err("fmt vec", lambda: f"{lib.ones(2):.3f}")
    rec("fmt int", f"{lib.tensor(3):d}")
    rec.err("fmt empty", lambda: f"{lib.ones(2)}")
    rec("print list", str([lib.tensor(1.0), lib.tensor([1, 2])]))
    rec("print dict", str({"a": lib.ones(1)}))
    rec("print tuple", str((lib.ones(1, requires_grad=True) * 2,)))


def bridge(lib, rec):
    t = lib.ones(5)
    n = t.numpy()
    for i, code in enumerate(
        [
            "t.mul_(2)",
            "t[1:3] = 7",
            "t.copy_(lib.arange(5.0))",
            "t.zero_()",
            "t.clamp_(min=1)",
            "lib.add(t, 1, out=t)",
            "t.index_fill_(0, lib.tensor([0]), -1)",
            "t.masked_fill_(t > 0, 3)",
            "t.view(5)[0] = 9",
            "t.exp_()",
            "t.uniform_(0, 1, generator=lib.Generator().manual_seed(1))",
            "t.resize_(5)",
            "t.set_(lib.zeros(5))",
        ]
    ):
        rec.err(code, lambda code=code: exec(code, {"t": t, "lib": lib}))
        rec(f"n{i}", n.copy())
        rec(f"t{i}", t)
    n = np.arange(6.0).reshape(2, 3)
    t = lib.from_numpy(n)
    n *= 2
    rec("t sum after np", t.sum())
    n[0] = -1
    rec("t after row", t)
    rec("t max", t.max())
    v = t[:, 1:]
    n[1, 2] = 100
    rec("view", v)
    tt = t.t()
    rec("tt numpy shares", str(np.shares_memory(tt.numpy(), n)))
    rec("tt numpy strides", str(tt.numpy().strides))
    rec("asarray shares", str(np.shares_memory(np.asarray(t), n)))
    rec("array copies", str(np.shares_memory(np.array(t), n)))
    rec("contig copy", str(np.shares_memory(tt.contiguous().numpy(), n)))
    rec.warns("nonwritable", lambda: lib.from_numpy(np.broadcast_to(np.ones(3), (2, 3))))
    ro = np.ones(3)
    ro.flags.writeable = False
    rec.warns("readonly", lambda: lib.from_numpy(ro))
    rec.warns("readonly as_tensor", lambda: lib.as_tensor(ro))
    rec.warns("readonly tensor", lambda: lib.tensor(ro))
    rec.err("neg strides", lambda: lib.from_numpy(np.arange(4.0)[::-1]))
    rec.err("neg strides tensor", lambda: repr(lib.tensor(np.arange(4.0)[::-1])))
    rec.err("neg strides as_tensor", lambda: repr(lib.as_tensor(np.arange(4.0)[::-1])))
    rec.err("bigendian", lambda: lib.from_numpy(np.arange(3, dtype=">f4")))
    rec.err("bigendian tensor", lambda: repr(lib.tensor(np.arange(3, dtype=">f4"))))
    rec.err("uint16", lambda: repr(lib.from_numpy(np.arange(3, dtype=np.uint16))))
    rec.err("uint32", lambda: repr(lib.from_numpy(np.arange(3, dtype=np.uint32))))
    rec.err("uint64", lambda: repr(lib.from_numpy(np.arange(3, dtype=np.uint64))))
    rec.err("datetime", lambda: repr(lib.from_numpy(np.arange(3, dtype="M8[D]"))))
    rec.err("np scalar", lambda: repr(lib.tensor(np.float32(2.5))))
    rec.err("np scalar64", lambda: repr(lib.tensor(np.float64(2.5))))
    rec.err("np int scalar", lambda: repr(lib.tensor(np.int32(2))))
    rec.err("np 0d", lambda: repr(lib.from_numpy(np.array(2.0))))
    rec.err("as_tensor np scalar", lambda: repr(lib.as_tensor(np.float16(1.5))))
    rec.err("list of arrays r", lambda: repr(lib.tensor([np.ones(2), np.zeros(2)])))
    rec.err(
        "list of arrays f32",
        lambda: repr(lib.tensor([np.ones(2, dtype=np.float32), np.zeros(2, dtype=np.float32)])),
    )
    rec.err("list of np scalars", lambda: repr(lib.tensor([np.float32(1), np.float32(2)])))
    rec.err("list mixed np scalars", lambda: repr(lib.tensor([np.float32(1), 2.0])))
    rec.err("list np int64 scalars", lambda: repr(lib.tensor([np.int64(1), np.int64(2)])))
    rec.err("list np bool", lambda: repr(lib.tensor([np.bool_(True), False])))
    rec.warns("tensor of tensor", lambda: lib.tensor(lib.ones(2)))
    rec.err("tensor of list tensors", lambda: repr(lib.tensor([lib.ones(2), lib.zeros(2)])))
    rec.err("tensor of list scalars", lambda: repr(lib.tensor([lib.tensor(1.0), lib.tensor(2.0)])))
    rec.err(
        "tensor of list int scalars", lambda: repr(lib.tensor([lib.tensor(1), lib.tensor(2.5)]))
    )
    rec.err("ragged", lambda: lib.tensor([[1, 2], [3]]))
    rec.err("ragged2", lambda: lib.tensor([[1, 2], 3]))
    rec.err("none", lambda: lib.tensor([1, None]))
    rec.err("str", lambda: lib.tensor(["a"]))
    rec.err("empty list", lambda: repr(lib.tensor([])))
    rec.err("nested empty", lambda: repr(lib.tensor([[], []])))
    rec.err("tuple", lambda: repr(lib.tensor(((1, 2), (3, 4)))))
    rec.err("range", lambda: repr(lib.tensor(range(4))))
    rec.err("big int", lambda: repr(lib.tensor([2**63])))
    rec.err("big int neg", lambda: repr(lib.tensor([-(2**63)])))
    rec.err("float int overflow", lambda: repr(lib.tensor([1e300], dtype=lib.float32)))
    rec.err("int dtype from float", lambda: repr(lib.tensor([1.7, -1.7], dtype=lib.int64)))
    rec.err("uint8 neg", lambda: repr(lib.tensor([-1], dtype=lib.uint8)))
    rec.err("bool from float", lambda: repr(lib.tensor([0.0, 0.5], dtype=lib.bool)))
    rec.err("from_numpy list", lambda: lib.from_numpy([1, 2]))
    rec.err("numpy of grad", lambda: lib.ones(2, requires_grad=True).numpy())
    rec("numpy force", lib.ones(2, requires_grad=True).numpy(force=True))
    rec("numpy f16 dtype", str(lib.ones(2, dtype=lib.float16).numpy().dtype))
    rec("numpy bool dtype", str(lib.ones(2, dtype=lib.bool).numpy().dtype))
    rec.err("np.exp(t)", lambda: repr(type(np.exp(lib.ones(2)))))
    rec.err("np.asarray dtype", lambda: repr(np.asarray(lib.ones(2), dtype=np.float64)))
    rec("float()", repr(float(lib.tensor([2.5]))))
    rec("int()", repr(int(lib.tensor(3.9))))
    rec.err("float multi", lambda: float(lib.ones(2)))
    rec.err("bool()", lambda: repr(bool(lib.tensor([0.0]))))
    rec.err("bool multi", lambda: bool(lib.ones(2)))
    rec.err("index", lambda: [0, 1, 2][lib.tensor(1)])
    rec.err("index float", lambda: [0, 1, 2][lib.tensor(1.0)])
    rec("len", repr(len(lib.ones(3, 2))))
    rec.err("len 0d", lambda: len(lib.tensor(1.0)))
    rec.err("iter 0d", lambda: list(lib.tensor(1.0)))
    rec.err("iter", lambda: repr(list(lib.arange(3))))
    rec.err("tolist 0d", lambda: repr(lib.tensor(2.5).tolist()))
    rec.err("tolist f16", lambda: repr(lib.tensor([0.1], dtype=lib.float16).tolist()))
    rec.err("tolist f32", lambda: repr(lib.tensor([0.1]).tolist()))
    rec.err("item f32", lambda: repr(lib.tensor([0.1]).item()))
    rec.err("math on tensor", lambda: repr(math.sqrt(lib.tensor(4.0))))
    rec("round", rec.err("round", lambda: repr(round(lib.tensor(2.567), 2))) is None)
    rec.err("hash eq", lambda: repr(lib.ones(1) in [lib.zeros(1)]) if False else "")


def autograd_edges(lib, rec):
    dt = lib.float64
    x = lib.tensor([1.0, 2.0], dtype=dt, requires_grad=True)
    y = x * 3
    rec.warns("nonleaf .grad warn", lambda: y.grad)
    y.retain_grad()
    y.retain_grad()
    x.retain_grad()
    (y**2).sum().backward()
    rec("y.grad", y.grad)
    rec("x.grad", x.grad)
    rec("x.retains_grad", str(x.retains_grad))
    o = (x * x)[:1]
    o.backward()
    rec("numel1 backward", x.grad)
    rec.err("nograd tensor backward", lambda: lib.ones(2).sum().backward())
    rec.err("backward int grad", lambda: (x * 1).backward(lib.ones(2, dtype=lib.int64)))
    rec.err("backward f32 grad", lambda: (x * 1).backward(lib.ones(2, dtype=lib.float32)))
    x.grad = None
    (x * 1).backward(lib.ones(2, dtype=lib.float32))
    rec("after f32 grad", x.grad)
    rec.err("backward scalar grad num", lambda: (x.sum()).backward(2.0))
    rec.err("backward wrong shape", lambda: (x * 1).backward(lib.ones(1, 2, dtype=dt)))
    rec.err("backward bcast shape", lambda: (x * 1).backward(lib.ones(1, dtype=dt)))
    rec.err("backward 0d grad for 1-el", lambda: (x[:1] * 1).backward(lib.tensor(1.0, dtype=dt)))
    x.grad = None
    z = x.exp()
    w2 = z.detach()
    w2.add_(1)
    rec.err("detached inplace", lambda: z.sum().backward())
    x.grad = None
    z = x.exp()
    z.detach_()
    rec("detach_ state", str((z.requires_grad, z.grad_fn, z.is_leaf)))
    # hooks
    h = x.register_hook(lambda g: g * 10)
    (x * 2).sum().backward()
    rec("hook grad", x.grad)
    h.remove()
    x.grad = None
    (x * 2).sum().backward()
    rec("no hook", x.grad)
    rec.err("hook on no-grad", lambda: lib.ones(2).register_hook(lambda g: g))
    # inputs=
    a = lib.tensor([1.0], dtype=dt, requires_grad=True)
    b = lib.tensor([2.0], dtype=dt, requires_grad=True)
    (a * b).sum().backward(inputs=[a])
    rec("inputs a", a.grad)
    rec("inputs b", str(b.grad))
    lib.autograd.backward(
        [(a * b).sum(), (a + b).sum()], [lib.tensor(1.0, dtype=dt), lib.tensor(2.0, dtype=dt)]
    )
    rec("multi a", a.grad)
    rec("multi b", b.grad)
    rec.err("grad unused", lambda: lib.autograd.grad((a * 2).sum(), [a, b]))
    rec("grad allow_unused", str(lib.autograd.grad((a * 2).sum(), [a, b], allow_unused=True)[1]))
    rec(
        "materialize",
        lib.autograd.grad((a * 2).sum(), [a, b], allow_unused=True, materialize_grads=True)[1],
    )
    rec.err("grad non-scalar", lambda: lib.autograd.grad(a * b * lib.ones(2, dtype=dt), a))
    rec(
        "grad_outputs",
        lib.autograd.grad(
            a * lib.ones(2, dtype=dt), a, grad_outputs=lib.tensor([1.0, 3.0], dtype=dt)
        )[0],
    )
    rec.err(
        "second backward", lambda: [(lambda s: (s.backward(), s.backward()))((a.exp() * b).sum())]
    )
    rec.err(
        "retain then ok",
        lambda: [(lambda s: (s.backward(retain_graph=True), s.backward()))((a.exp() * b).sum())],
    )
    rec("a.grad end", a.grad)
    # grad_fn chain names and metadata
    q = (a * b + a.sin()).relu().mean()
    chain = []
    stack = [q.grad_fn]
    while stack:
        f = stack.pop()
        if f is None:
            continue
        chain.append(f.name())
        stack.extend(g for g, _ in f.next_functions)
    rec("chain", str(chain))
    acc = a.sin().grad_fn.next_functions[0][0]
    rec("acc variable", str(acc.variable is a))
    rec("saved self", str(a.sin().grad_fn._saved_self is a))
    rec("mul saved", repr((a * b).grad_fn._saved_other))
    rec("mean saved", rec.err("ms", lambda: repr(q.grad_fn._saved_self_sym_sizes)) is None)
    rec("requires_grad of grad", str(a.grad.requires_grad))
    # no_grad interplay
    with lib.no_grad():
        r = a * 2
        with lib.enable_grad():
            r2 = a * 2
    rec("ng", str((r.requires_grad, r2.requires_grad)))
    with lib.inference_mode():
        inf = a * 2
    rec("inference", str((inf.requires_grad, inf.is_inference())))
    rec.err("inference in autograd", lambda: (inf * a).sum().backward())
    # in-place under no_grad on leaf
    with lib.no_grad():
        a.mul_(2)
    rec("a after", a)
    rec("a version", str(a._version))
    rec.err("inplace leaf rg", lambda: a.mul_(2))
    rec.err("inplace view of leaf", lambda: a[0].mul_(2))
    c = a.clone()
    c[0] = 5.0
    rec("c gf", c.grad_fn.name())
    c.sum().backward()
    rec("a grad clone", a.grad)
    # gradient= with non-scalar and intermediate
    m = lib.tensor([[1.0, 2.0], [3.0, 4.0]], dtype=dt, requires_grad=True)
    out = m @ m
    out.backward(gradient=lib.tensor([[1.0, 0.0], [0.0, 1.0]], dtype=dt))
    rec("mm grad", m.grad)
    out2 = m.pow(3)
    g = lib.autograd.grad(out2, m, lib.ones_like(out2), create_graph=True)[0]
    rec("g gf", g.grad_fn.name())
    rec("g", g)
    g.sum().backward()
    rec("second order acc", m.grad)
    # Jacobian-vector via sum trick
    rec("jac", lib.autograd.functional.jacobian(lambda v: v**2, lib.tensor([1.0, 2.0], dtype=dt)))


def save_more(lib, rec):
    nn = lib.nn
    dt = lib.float64

    def init(m, seed):
        rng = np.random.default_rng(seed)
        with lib.no_grad():
            for p in m.parameters():
                p.copy_(lib.tensor(rng.uniform(-0.3, 0.3, tuple(p.shape)), dtype=p.dtype))

    # BN missing num_batches_tracked
    bn = nn.BatchNorm1d(3)
    sd = {k: v for k, v in bn.state_dict().items() if k != "num_batches_tracked"}
    rec("bn missing nbt", repr(bn.load_state_dict(sd)))
    rec("nbt", bn.num_batches_tracked)
    sd2 = bn.state_dict()
    sd2.pop("running_var")
    rec.err("bn missing rv", lambda: bn.load_state_dict(sd2))

    # weight tying
    class TiedLM(nn.Module):
        def __init__(self):
            super().__init__()
            self.emb = nn.Embedding(7, 4)
            self.rnn = nn.GRU(4, 4, batch_first=True)
            self.out = nn.Linear(4, 7)
            self.out.weight = self.emb.weight

        def forward(self, x):
            h, _ = self.rnn(self.emb(x))
            return self.out(h)

    m = TiedLM().double()
    init(m, 1)
    rec("tied params", str([n for n, _ in m.named_parameters()]))
    rec("tied sd", str(list(m.state_dict().keys())))
    rec("tied nparams", sum(p.numel() for p in m.parameters()))
    rec("print tied", str(m))
    x = lib.tensor([[1, 2, 3, 4], [6, 5, 0, 1]])
    opt = lib.optim.Adam(m.parameters(), lr=0.01)
    for _ in range(4):
        loss = nn.functional.cross_entropy(m(x).reshape(-1, 7), x.roll(1, 1).reshape(-1))
        opt.zero_grad()
        loss.backward()
        opt.step()
        rec("tied loss", loss)
    rec("tied same", str(m.out.weight is m.emb.weight))
    buf = io.BytesIO()
    lib.save({"model": m.state_dict(), "opt": opt.state_dict(), "epoch": 4}, buf)
    buf.seek(0)
    ck = lib.load(buf)
    rec(
        "tied loaded share",
        str(ck["model"]["out.weight"].data_ptr() == ck["model"]["emb.weight"].data_ptr()),
    )
    rec("opt state n", len(ck["opt"]["state"]))
    rec("opt pg params", str(ck["opt"]["param_groups"][0]["params"]))
    m2 = TiedLM().double()
    init(m2, 2)
    opt2 = lib.optim.Adam(m2.parameters(), lr=0.5)
    m2.load_state_dict(ck["model"])
    opt2.load_state_dict(ck["opt"])
    rec("m2 tied", str(m2.out.weight is m2.emb.weight))
    for mm, oo in ((m, opt), (m2, opt2)):
        for _ in range(2):
            loss = nn.functional.cross_entropy(mm(x).reshape(-1, 7), x.roll(1, 1).reshape(-1))
            oo.zero_grad()
            loss.backward()
            oo.step()
        rec("cont loss", loss)
        rec("cont emb", mm.emb.weight)
    # duplicate params
    p = nn.Parameter(lib.ones(2))
    rec.warns("dup params", lambda: lib.optim.SGD([p, p], lr=0.1))
    rec.err("dup groups", lambda: lib.optim.SGD([{"params": [p]}, {"params": [p]}], lr=0.1))
    rec.err("non-leaf param", lambda: lib.optim.SGD([p * 2], lr=0.1))
    rec.err("tensor param", lambda: lib.optim.SGD(p, lr=0.1))
    rec.err("empty", lambda: lib.optim.SGD([], lr=0.1))
    rec.err("neg lr", lambda: lib.optim.SGD([p], lr=-0.1))
    rec.err("no lr", lambda: lib.optim.SGD([p]))
    rec.err("rmsprop bad alpha", lambda: lib.optim.RMSprop([p], alpha=-1))
    rec.err("rmsprop bad eps", lambda: lib.optim.RMSprop([p], eps=-1))
    rec.err("rmsprop bad mom", lambda: lib.optim.RMSprop([p], momentum=-1))
    rec("rmsprop repr", repr(lib.optim.RMSprop([p], lr=0.01, centered=True)))
    rec("rmsprop defaults", str(lib.optim.RMSprop([p]).defaults))
    # lr scheduler checkpoint
    w = nn.Parameter(lib.tensor([1.0, -1.0], dtype=dt))
    o = lib.optim.SGD([w], lr=0.1, momentum=0.9)
    s = lib.optim.lr_scheduler.StepLR(o, step_size=2, gamma=0.5)
    for _ in range(3):
        o.zero_grad()
        (w**2).sum().backward()
        o.step()
        s.step()
    rec("sched sd", str(s.state_dict()))
    rec("last lr", str(s.get_last_lr()))
    buf = io.BytesIO()
    lib.save({"epoch": 3, "sched": s.state_dict(), "opt": o.state_dict(), "w": w}, buf)
    buf.seek(0)
    ck = lib.load(buf)
    w2 = nn.Parameter(lib.zeros(2, dtype=dt))
    o2 = lib.optim.SGD([w2], lr=0.1, momentum=0.9)
    s2 = lib.optim.lr_scheduler.StepLR(o2, step_size=2, gamma=0.5)
    with lib.no_grad():
        w2.copy_(ck["w"])
    o2.load_state_dict(ck["opt"])
    s2.load_state_dict(ck["sched"])
    for ww, oo, ss in ((w, o, s), (w2, o2, s2)):
        for _ in range(3):
            oo.zero_grad()
            (ww**2).sum().backward()
            oo.step()
            ss.step()
        rec("resumed w", ww)
        rec("resumed lr", str(oo.param_groups[0]["lr"]))
    # numpy array / python objects in checkpoint with weights_only
    buf = io.BytesIO()
    lib.save(
        {
            "arr": np.arange(3),
            "t": lib.ones(1),
            "name": "x",
            "tup": (1, 2.5),
            "none": None,
            "dt": lib.float32,
            "dev": lib.device("cpu"),
            "size": lib.Size([2]),
        },
        buf,
    )
    for wo in (True, False):
        buf.seek(0)
        r = None
        if wo:
            err_type(rec, f"np ckpt wo={wo}", lambda wo=wo: lib.load(buf, weights_only=wo), 40)
        else:
            r = lib.load(buf, weights_only=wo)
        if r is not None:
            rec(f"np ckpt keys {wo}", str(sorted(r.keys())))
            rec(f"np ckpt types {wo}", str({k: type(v).__name__ for k, v in sorted(r.items())}))
    buf.seek(0)
    err_type(rec, "np ckpt default", lambda: lib.load(buf), 40)

    # whole model
    class Small(nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = nn.Linear(2, 2)

    sm = Small()
    buf = io.BytesIO()
    rec.err("save whole model", lambda: lib.save(sm, buf))
    # map_location variants
    buf = io.BytesIO()
    lib.save({"a": lib.arange(3.0)}, buf)
    for ml in ("cpu", lib.device("cpu"), {"cpu": "cpu"}, lambda s, loc: s):
        buf.seek(0)
        rec.err(
            f"map_location {type(ml).__name__}",
            lambda ml=ml: repr(lib.load(buf, map_location=ml)["a"]),
        )
    buf.seek(0)
    rec.err("map_location cuda", lambda: lib.load(buf, map_location="cuda")["a"].device.type)
    # to file path
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "model.pt")
        lib.save(sm.state_dict(), path)
        rec("file load", str(sorted(lib.load(path).keys())))
        err_type(rec, "missing file", lambda: lib.load(os.path.join(d, "nope.pt")), 28)
        rec.err("mmap", lambda: str(lib.load(path, mmap=True)["fc.bias"].shape))
        import pathlib

        lib.save([lib.ones(2)], pathlib.Path(d) / "p.pt")
        rec("pathlib", lib.load(pathlib.Path(d) / "p.pt")[0])
    # rng state checkpoint
    lib.manual_seed(3)
    st = lib.get_rng_state()
    rec("rng state dtype", str(st.dtype) + str(st.shape))
    a = lib.rand(3)
    lib.set_rng_state(st)
    rec("rng restored", str(bool((lib.rand(3) == a).all())))
    rec.err("set bad rng", lambda: lib.set_rng_state(lib.zeros(3)))
    # load_state_dict with wrong type
    rec.err("load list", lambda: sm.load_state_dict([1, 2]))
    rec.err(
        "load non-tensor value",
        lambda: sm.load_state_dict(
            {"fc.weight": [[1.0, 2.0], [3.0, 4.0]], "fc.bias": lib.zeros(2)}
        ),
    )
    rec.err(
        "load int tensor",
        lambda: sm.load_state_dict(
            {"fc.weight": lib.ones(2, 2, dtype=lib.int64), "fc.bias": lib.zeros(2)}
        ),
    )
    rec("after int load", sm.fc.weight)
    rec("after int dtype", str(sm.fc.weight.dtype))
    r = sm.load_state_dict(
        {
            "fc.weight": lib.ones(2, 2),
            "fc.bias": lib.zeros(2),
            "fc.extra": lib.ones(1),
            "other": lib.ones(1),
        },
        strict=False,
    )
    rec("nonstrict r", repr(r))
    rec("nonstrict r keys", str(r._fields))
    rec.err(
        "strict unexpected",
        lambda: sm.load_state_dict(
            {"fc.weight": lib.ones(2, 2), "fc.bias": lib.zeros(2), "fc.extra": lib.ones(1)}
        ),
    )
    rec.err(
        "strict both",
        lambda: sm.load_state_dict(
            {"fc.weight": lib.ones(2, 2), "fc.extra": lib.ones(1), "fc.bias": lib.zeros(3)}
        ),
    )


def custom_fn(lib, rec):
    dt = lib.float64
    F = lib.autograd.Function
    x = lib.tensor([0.5, -1.0, 2.0], dtype=dt, requires_grad=True)

    class Multi(F):
        @staticmethod
        def forward(ctx, a, b, scale=2.0):
            ctx.save_for_backward(a, b)
            ctx.scale = scale
            idx = (a > 0).long()
            ctx.mark_non_differentiable(idx)
            return a * b * scale, a + b, idx

        @staticmethod
        def backward(ctx, g1, g2, g3):
            a, b = ctx.saved_tensors
            rec("g3 is", repr(g3))
            return g1 * b * ctx.scale + g2, g1 * a * ctx.scale + g2, None

    y = lib.tensor([1.0, 2.0, 3.0], dtype=dt, requires_grad=True)
    o1, o2, idx = Multi.apply(x, y)
    rec("idx rg", str(idx.requires_grad))
    rec("o1 gf", o1.grad_fn.name())
    rec("o2 same node", str(o1.grad_fn is o2.grad_fn))
    rec("o2 output_nr", str(o2.output_nr if hasattr(o2, "output_nr") else None))
    (o1.sum() + o2.sum()).backward()
    rec("x.grad", x.grad)
    rec("y.grad", y.grad)
    x.grad = None
    y.grad = None
    o1, o2, idx = Multi.apply(x, y, 3.0)
    o1.sum().backward()
    rec("only o1 x.grad", x.grad)
    rec.err("apply kw", lambda: Multi.apply(x, y, scale=3.0)[0].sum())

    class SetMat(F):
        @staticmethod
        def forward(ctx, a):
            ctx.set_materialize_grads(False)
            return a.clone(), a.clone()

        @staticmethod
        def backward(ctx, g1, g2):
            rec("nonmat", f"{g1 is None} {g2 is None}")
            return g1 if g2 is None else g1 + g2

    x.grad = None
    u, v = SetMat.apply(x)
    u.sum().backward()
    rec("setmat grad", x.grad)

    class Ident(F):
        @staticmethod
        def forward(ctx, a):
            return a

        @staticmethod
        def backward(ctx, g):
            return g * 2

    x.grad = None
    r = Ident.apply(x)
    rec("ident is", str(r is x))
    rec("ident gf", r.grad_fn.name() if r.grad_fn else "None")
    r.sum().backward()
    rec("ident grad", x.grad)

    class ViewOut(F):
        @staticmethod
        def forward(ctx, a):
            return a.view(3, 1)

        @staticmethod
        def backward(ctx, g):
            return g.view(3)

    r = ViewOut.apply(x)
    rec("viewout base", str(r._base is x))
    rec.err("viewout inplace", lambda: r.mul_(2))

    class Dirty(F):
        @staticmethod
        def forward(ctx, a):
            a.mul_(2)
            ctx.mark_dirty(a)
            return a

        @staticmethod
        def backward(ctx, g):
            return g * 2

    z = x.clone()
    dd = Dirty.apply(z)
    rec("dirty same", str(dd is z))
    rec("dirty gf", dd.grad_fn.name())
    rec("dirty v", dd)
    rec.err("dirty leaf", lambda: Dirty.apply(x))

    class NoDirty(F):
        @staticmethod
        def forward(ctx, a):
            a.mul_(2)
            return a

        @staticmethod
        def backward(ctx, g):
            return g

    rec.err("nodirty", lambda: NoDirty.apply(x.clone()).sum().backward())

    class SetupCtx(F):
        @staticmethod
        def forward(a, k):
            return a * k

        @staticmethod
        def setup_context(ctx, inputs, output):
            a, k = inputs
            ctx.k = k

        @staticmethod
        def backward(ctx, g):
            return g * ctx.k, None

    x.grad = None
    SetupCtx.apply(x, 4.0).sum().backward()
    rec("setupctx", x.grad)

    class RetNonTensor(F):
        @staticmethod
        def forward(ctx, a):
            return a * 2, 5

        @staticmethod
        def backward(ctx, g, g2):
            return g * 2

    out = RetNonTensor.apply(x)
    rec("nontensor out", repr(out[1]))
    rec("nontensor out0 gf", out[0].grad_fn.name())

    class ReturnsWrongType(F):
        @staticmethod
        def forward(ctx, a):
            return a * 2

        @staticmethod
        def backward(ctx, g):
            return 3.0

    rec.err("wrong type grad", lambda: ReturnsWrongType.apply(x).sum().backward())

    class ReturnsWrongDtype(F):
        @staticmethod
        def forward(ctx, a):
            return a * 2

        @staticmethod
        def backward(ctx, g):
            return g.float()

    x.grad = None
    rec.err("wrong dtype grad", lambda: ReturnsWrongDtype.apply(x).sum().backward())
    rec("wrong dtype grad val", str(x.grad.dtype) if x.grad is not None else "None")

    class SavesNonTensor(F):
        @staticmethod
        def forward(ctx, a):
            ctx.save_for_backward(a, None)
            return a * 2

        @staticmethod
        def backward(ctx, g):
            a, n = ctx.saved_tensors
            rec("saved none", repr(n))
            return g * 2

    SavesNonTensor.apply(x).sum().backward()

    class SavesInt(F):
        @staticmethod
        def forward(ctx, a):
            ctx.save_for_backward(a, 3)
            return a * 2

        @staticmethod
        def backward(ctx, g):
            return g

    rec.err("saves int", lambda: SavesInt.apply(x))

    class SavedModified(F):
        @staticmethod
        def forward(ctx, a):
            ctx.save_for_backward(a)
            return a * 2

        @staticmethod
        def backward(ctx, g):
            (a,) = ctx.saved_tensors
            return g * a

    w = x.clone()
    o = SavedModified.apply(w)
    w.add_(1)
    rec.err("saved modified", lambda: o.sum().backward())
    # no-grad inputs
    nog = SavedModified.apply(lib.ones(2, dtype=dt))
    rec("nog rg", str((nog.requires_grad, nog.grad_fn)))
    with lib.no_grad():
        ng = SavedModified.apply(x)
    rec("under no_grad", str((ng.requires_grad, ng.grad_fn)))

    # needs_input_grad with mixed
    class Needs(F):
        @staticmethod
        def forward(ctx, a, b, c):
            rec("needs", str(ctx.needs_input_grad))
            return a * b

        @staticmethod
        def backward(ctx, g):
            return g, g, None

    Needs.apply(x, lib.ones(3, dtype=dt), 7)
    # once_differentiable
    from importlib import import_module

    od = import_module(lib.__name__ + ".autograd.function").once_differentiable

    class Once(F):
        @staticmethod
        def forward(ctx, a):
            ctx.save_for_backward(a)
            return a**2

        @staticmethod
        @od
        def backward(ctx, g):
            (a,) = ctx.saved_tensors
            return 2 * a * g

    x.grad = None
    (gx,) = lib.autograd.grad(Once.apply(x).sum(), x, create_graph=True)
    rec("once gx", gx)
    rec("once gx rg", str(gx.requires_grad))
    rec("once gf", gx.grad_fn.name() if gx.grad_fn else "None")
    rec.err("once double", lambda: gx.sum().backward())
    # grad_fn repr/name of custom
    rec("name", Once.apply(x).grad_fn.name())
    rec("cls name", type(Once.apply(x).grad_fn).__name__)
    rec(
        "next", str([(f.name() if f else None, i) for f, i in Once.apply(x).grad_fn.next_functions])
    )
    rec.err(
        "jvp missing", lambda: lib.func.jvp(Once.apply, (x.detach(),), (lib.ones(3, dtype=dt),))
    )


MODS = [
    "nn.Conv2d(3, 8, 3)",
    "nn.Conv2d(3, 8, (3, 5), stride=(2, 1), padding='same', dilation=1, groups=1, "
    "bias=False, padding_mode='reflect')",
    "nn.Conv2d(4, 8, 3, padding=1, groups=2, dilation=2)",
    "nn.Conv1d(2, 4, 3, padding='valid')",
    "nn.ConvTranspose2d(4, 2, 3, stride=2, output_padding=1)",
    "nn.MaxPool2d(2)",
    "nn.MaxPool2d(3, stride=2, padding=1, ceil_mode=True, return_indices=True)",
    "nn.AvgPool2d(4)",
    "nn.AvgPool2d(3, 2, 1, count_include_pad=False)",
    "nn.AdaptiveAvgPool2d(1)",
    "nn.AdaptiveAvgPool2d((None, 7))",
    "nn.AdaptiveMaxPool2d((2, 3))",
    "nn.AdaptiveAvgPool1d(5)",
    "nn.BatchNorm2d(8)",
    "nn.BatchNorm1d(8, affine=False, track_running_stats=False)",
    "nn.BatchNorm2d(8, momentum=None, eps=1e-3)",
    "nn.Dropout()",
    "nn.Dropout(0.2, inplace=True)",
    "nn.Dropout2d(0.1)",
    "nn.LSTM(4, 8, num_layers=2, bidirectional=True, batch_first=True, dropout=0.1)",
    "nn.GRU(3, 5)",
    "nn.RNN(3, 5, nonlinearity='relu', bias=False)",
    "nn.LSTMCell(3, 4)",
    "nn.Embedding(10, 3)",
    "nn.Embedding(10, 3, padding_idx=0, max_norm=1.0, sparse=True)",
    "nn.EmbeddingBag(10, 3, mode='sum')",
    "nn.LayerNorm(5)",
    "nn.LayerNorm((2, 5), elementwise_affine=False)",
    "nn.LayerNorm(5, bias=False)",
    "nn.GroupNorm(2, 4)",
    "nn.InstanceNorm2d(3)",
    "nn.Upsample(scale_factor=2, mode='nearest')",
    "nn.Upsample(size=(4, 4), mode='bilinear', align_corners=False)",
    "nn.PixelShuffle(2)",
    "nn.Flatten()",
    "nn.Flatten(0, 1)",
    "nn.Unflatten(1, (2, 5))",
    "nn.Identity()",
    "nn.Softmax(dim=1)",
    "nn.Softmax()",
    "nn.LogSoftmax(-1)",
    "nn.ReLU()",
    "nn.ReLU(inplace=True)",
    "nn.LeakyReLU(0.2, inplace=True)",
    "nn.ELU()",
    "nn.GELU(approximate='tanh')",
    "nn.Hardtanh(-2, 2)",
    "nn.Softplus(beta=2)",
    "nn.PReLU()",
    "nn.PReLU(3, init=0.1)",
    "nn.Tanh()",
    "nn.Sigmoid()",
    "nn.SiLU()",
    "nn.Threshold(0.1, 20)",
    "nn.CELU()",
    "nn.Mish()",
    "nn.Softmin(1)",
    "nn.Hardswish()",
    "nn.MultiheadAttention(8, 2)",
    "nn.MultiheadAttention(8, 2, batch_first=True, kdim=4, vdim=4)",
    "nn.TransformerEncoderLayer(8, 2, dim_feedforward=16)",
    "nn.TransformerEncoder(nn.TransformerEncoderLayer(8, 2, 16), 2, enable_nested_tensor=False)",
    "nn.Linear(3, 4, bias=False)",
    "nn.Bilinear(2, 3, 4)",
    "nn.MSELoss()",
    "nn.MSELoss(reduction='sum')",
    "nn.CrossEntropyLoss(label_smoothing=0.1)",
    "nn.CrossEntropyLoss(weight=lib.ones(3), ignore_index=1)",
    "nn.NLLLoss()",
    "nn.BCEWithLogitsLoss(pos_weight=lib.ones(2))",
    "nn.L1Loss()",
    "nn.SmoothL1Loss(beta=0.5)",
    "nn.HuberLoss(delta=2.0)",
    "nn.KLDivLoss(reduction='batchmean', log_target=True)",
    "nn.CosineSimilarity()",
    "nn.PairwiseDistance()",
    "nn.ZeroPad2d(1)",
    "nn.ConstantPad1d((1, 2), 3.5)",
    "nn.ReflectionPad2d(2)",
    "nn.Sequential()",
    "nn.Sequential(nn.Linear(2, 2), nn.ReLU(), nn.Linear(2, 2), nn.ReLU(), nn.Linear(2, "
    "2), nn.ReLU())",
    "nn.Sequential(*[nn.Linear(2, 2) for _ in range(4)])",
    "nn.Sequential(OrderedDict([('fc', nn.Linear(2, 3)), ('act', nn.Tanh())]))",
    "nn.ModuleList([nn.Linear(2, 2), nn.Linear(2, 2), nn.Linear(2, 3), nn.Linear(2, 3), "
    "nn.Linear(2, 3), nn.ReLU()])",
    "nn.ModuleList()",
    "nn.ModuleDict({'a': nn.Linear(1, 1), 'b': nn.ReLU()})",
    "nn.ParameterList([nn.Parameter(lib.ones(2)), nn.Parameter(lib.ones(2, 3, "
    "dtype=lib.float64))])",
    "nn.ParameterDict({'w': nn.Parameter(lib.ones(2)), 'b': nn.Parameter(lib.ones(1, "
    "dtype=lib.float16))})",
    "nn.Sequential(nn.Sequential(nn.Linear(1, 1), nn.Sequential(nn.ReLU(), "
    "nn.Identity())), nn.ModuleList([nn.ReLU(), nn.ReLU()]))",
    "nn.Sequential(nn.Conv2d(1, 2, 3), nn.Conv2d(1, 2, 3), nn.BatchNorm2d(2), "
    "nn.BatchNorm2d(2), nn.BatchNorm2d(2))",
    "nn.Fold(output_size=(4, 5), kernel_size=(2, 2))",
    "nn.Unfold(kernel_size=2, stride=2)",
    "nn.ChannelShuffle(2)",
    "nn.CTCLoss()",
    "nn.TripletMarginLoss(margin=0.5)",
    "nn.Transformer(d_model=8, nhead=2, num_encoder_layers=1, num_decoder_layers=1, "
    "dim_feedforward=8)",
    "nn.RMSNorm(4)",
    "nn.LocalResponseNorm(2)",
]


def mod_reprs(lib, rec):
    nn = lib.nn
    for code in MODS:
        rec.err(
            "err " + code,
            lambda code=code: rec(
                "repr " + code, repr(eval(code, {"nn": nn, "lib": lib, "OrderedDict": OrderedDict}))
            ),
        )

    class Custom(nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = nn.Linear(2, 2)
            self.k = 3
            self.register_buffer("buf", lib.zeros(2))
            self.p = nn.Parameter(lib.ones(1))

        def extra_repr(self):
            return f"k={self.k},\nmultiline=True"

    rec("custom", repr(Custom()))

    class Empty(nn.Module):
        pass

    rec("empty", repr(Empty()))

    class WithFn(nn.Module):
        def __init__(self):
            super().__init__()
            self.act = nn.functional.relu
            self.seq = nn.Sequential(nn.Linear(1, 1))

    rec("withfn", repr(WithFn()))
    s = nn.Sequential(nn.Linear(2, 2), nn.ReLU(), nn.Linear(2, 2))
    rec("slice", repr(s[1:]))
    rec("neg idx", repr(s[-1]))
    rec("len", len(s))
    s.append(nn.Sigmoid())
    rec("append", repr(s))
    s.insert(0, nn.Tanh())
    rec("insert", repr(s))
    del s[1]
    rec("del", repr(s))
    s.add_module("named", nn.Identity())
    rec("add_module", repr(s))
    rec.err("bad idx", lambda: s[10])
    rec.err("add non-module", lambda: s.add_module("x", 3))
    rec.err("module setattr bad", lambda: setattr(Empty(), "weight", lib.ones(1)) or "ok")
    m = nn.Linear(2, 2)
    rec.err("assign tensor to param", lambda: setattr(m, "weight", lib.ones(2, 2)))
    rec.err("register dot", lambda: m.register_buffer("a.b", lib.ones(1)))
    rec.err("register existing", lambda: m.register_buffer("weight", lib.ones(1)))
    rec.err("param non-param", lambda: m.register_parameter("q", lib.ones(1)))
    rec("to repr", repr(nn.Linear(2, 2).double().half()))
    rec("train repr", repr(nn.Dropout().eval()))
    rec("module str==repr", str(str(nn.Linear(1, 1)) == repr(nn.Linear(1, 1))))


CASES = [
    "lib.ones(2, 3, 4).T",
    "lib.ones(3).T",
    "lib.ones(2, 3).T",
    "F.softmax(lib.ones(2, 3))",
    "F.log_softmax(lib.ones(2, 3))",
    "nn.Softmax()(lib.ones(2, 3))",
    "F.softmin(lib.ones(3))",
    "F.softmax(lib.ones(2, 3, 4))",
    "nn.MSELoss()(lib.ones(4, 1), lib.ones(4))",
    "F.mse_loss(lib.ones(4), lib.ones(4, 1))",
    "F.l1_loss(lib.ones(4, 1), lib.ones(4))",
    "F.smooth_l1_loss(lib.ones(4, 1), lib.ones(4))",
    "F.mse_loss(lib.ones(4, 1), lib.ones(3))",
    "F.binary_cross_entropy(lib.full((4, 1), 0.5), lib.ones(4))",
    "F.binary_cross_entropy_with_logits(lib.ones(4, 1), lib.ones(4))",
    "F.huber_loss(lib.ones(4, 1), lib.ones(4))",
    "F.mse_loss(lib.ones(4, 1), lib.ones(1, 4))",
    "nn.MSELoss(size_average=False)",
    "nn.CrossEntropyLoss(reduce=False)",
    "F.mse_loss(lib.ones(2), lib.ones(2), size_average=True)",
    "F.upsample(lib.ones(1, 1, 2, 2), scale_factor=2)",
    "F.upsample_nearest(lib.ones(1, 1, 2, 2), scale_factor=2)",
    "nn.init.normal(lib.ones(2), generator=lib.Generator().manual_seed(0))",
    "nn.init.xavier_uniform(lib.ones(2, 2), generator=lib.Generator().manual_seed(0))",
    "lib.range(0, 3)",
    "lib.autograd.Variable(lib.ones(2))",
    "lib.autograd.Variable(lib.ones(2), requires_grad=True)",
    "lib.autograd.Variable(lib.ones(2), volatile=True)",
    "lib.Tensor(2, 3).shape",
    "lib.Tensor([1, 2])",
    "lib.Tensor([[1, 2]]).dtype",
    "lib.FloatTensor([1, 2])",
    "lib.LongTensor([1, 2])",
    "lib.DoubleTensor(2).shape",
    "lib.IntTensor([1.7])",
    "lib.BoolTensor([1, 0])",
    "lib.ByteTensor([1, 300])",
    "lib.Tensor(np.ones(2))",
    "lib.FloatTensor(np.ones(2))",
    "lib.ones(2).type()",
    "lib.ones(2, dtype=lib.int64).type()",
    "lib.ones(2).type(lib.LongTensor)",
    "lib.ones(2).type('torch.DoubleTensor')",
    "lib.ones(2).type(lib.float16)",
    "isinstance(lib.ones(2), lib.FloatTensor)",
    "isinstance(lib.ones(2, dtype=lib.int64), lib.FloatTensor)",
    "isinstance(lib.ones(2), lib.Tensor)",
    "lib.ones(2).new_tensor([1, 2])",
    "lib.ones(2).new_tensor(lib.ones(2))",
    "lib.ones(2, dtype=lib.float64).new_zeros(3)",
    "lib.ones(2).new_ones((2, 1))",
    "lib.ones(2).new_full((2,), 3)",
    "lib.ones(2).new_empty(0)",
    "lib.ones(2, dtype=lib.int32).new_tensor([1.5])",
    "lib.ones(2, requires_grad=True).new_tensor([1.0]).requires_grad",
    "lib.is_tensor(lib.ones(1))",
    "lib.is_tensor([1])",
    "lib.is_floating_point(lib.ones(1))",
    "lib.numel(lib.ones(2, 3))",
    "lib.is_nonzero(lib.tensor([1]))",
    "lib.is_nonzero(lib.tensor([1, 2]))",
    "_iadd(lib.ones(2, dtype=lib.int64), 0.5)",
    "lib.ones(2, dtype=lib.int64).add_(0.5)",
    "lib.ones(2).add_(lib.ones(2, 2))",
    "lib.ones(2, 2).add_(lib.ones(2))",
    "lib.ones(2, dtype=lib.int64).div_(2)",
    "lib.ones(2, dtype=lib.int64).mul_(lib.ones(2))",
    "lib.ones(2, dtype=lib.float32).add_(lib.ones(2, dtype=lib.float64))",
    "lib.ones(2, dtype=lib.bool).add_(1)",
    "lib.ones(2, dtype=lib.uint8) - lib.ones(2, dtype=lib.int8)",
    "-lib.ones(2, dtype=lib.bool)",
    "lib.ones(2, dtype=lib.bool).sub_(lib.ones(2, dtype=lib.bool))",
    "~lib.ones(2)",
    "~lib.ones(2, dtype=lib.bool)",
    "lib.ones(2) & lib.ones(2)",
    "lib.tensor([1, 2]) // 0",
    "lib.tensor([1, 2]) % 0",
    "lib.tensor([1.0]) // 0",
    "lib.tensor([5, -5]) // 2",
    "lib.tensor([5, -5]) % 3",
    "lib.tensor([5.5, -5.5]) % 3",
    "lib.tensor([5, -5]).div(2, rounding_mode='trunc')",
    "lib.tensor([5, -5]).div(2, rounding_mode='bad')",
    "lib.tensor([1, 2]).float().data",
    "lib.ones(2, requires_grad=True).data.requires_grad",
    "lib.tensor([3]) ** lib.tensor([-1])",
    "2 ** lib.tensor([3, -1])",
    "lib.tensor([2]) ** -1.0",
    "lib.tensor([1, 2]) / lib.tensor([0, 0])",
    "lib.tensor([0.0]) / 0",
    "lib.tensor(2) * 1.5",
    "lib.tensor([2], dtype=lib.int32) * lib.tensor(1.5, dtype=lib.float64)",
    "lib.tensor([2], dtype=lib.float16) + lib.tensor(1.5, dtype=lib.float64)",
    "lib.tensor([2], dtype=lib.uint8) + 300",
    "lib.tensor([2], dtype=lib.int8) + 200",
    "lib.cat([lib.ones(2), lib.ones(2, dtype=lib.int64)])",
    "lib.cat([lib.ones(2), lib.ones(2, dtype=lib.float64)])",
    "lib.cat([lib.ones(2, 2), lib.ones(2)])",
    "lib.cat([lib.ones(2, 2), lib.ones(3, 3)], dim=1)",
    "lib.stack([lib.ones(2), lib.ones(3)])",
    "lib.cat([])",
    "lib.cat(lib.ones(2))",
    "lib.cat([lib.ones(0), lib.ones(2, 2)])",
    "lib.stack([lib.ones(2), lib.ones(2, dtype=lib.int32)])",
    "lib.ones(2, 3) @ lib.ones(2, 3)",
    "lib.ones(3) @ lib.ones(3)",
    "lib.ones(3) @ lib.ones(4)",
    "lib.mm(lib.ones(3), lib.ones(3))",
    "lib.ones(2, 3).matmul(lib.ones(3))",
    "lib.ones(2, 3, dtype=lib.int64) @ lib.ones(3, 2, dtype=lib.int64)",
    "lib.dot(lib.ones(3), lib.ones(3, dtype=lib.float64))",
    "lib.ones(2, 3).mm(lib.ones(3, 2, dtype=lib.float64))",
    "lib.bmm(lib.ones(2, 3), lib.ones(2, 3))",
    "lib.ones(2, 3).view(3, 2).t().view(6)",
    "lib.ones(2, 3).reshape(4, -1)",
    "lib.ones(2, 3).view(-1, -1)",
    "lib.ones(2, 3).squeeze(5)",
    "lib.ones(2, 3).unsqueeze(3)",
    "lib.ones(2, 3).permute(0)",
    "lib.ones(2, 3).transpose(0, 2)",
    "lib.ones(2, 3)[2]",
    "lib.ones(2, 3)[:, 3]",
    "lib.ones(2, 3)[0, 0, 0]",
    "lib.ones(3)[lib.tensor([0, 3])]",
    "lib.ones(3)[lib.tensor([1.0])]",
    "lib.ones(3)[[True, False]]",
    "lib.ones(3)[lib.tensor([True, False])]",
    "lib.ones(2, 3).sum(dim=2)",
    "lib.ones(2, 3).mean(dim=(0, 0))",
    "lib.ones(2, 3).max(dim=3)",
    "lib.ones(0).max()",
    "lib.ones(0).argmax()",
    "lib.ones(0).sum()",
    "lib.ones(0).mean()",
    "lib.ones(0, 3).max(dim=1)",
    "lib.ones(2).item()",
    "lib.ones(2, requires_grad=True).backward()",
    "(lib.ones(2, requires_grad=True) * 2).sum().backward().__class__",
]


def legacy(lib, rec):
    nn = lib.nn
    F = nn.functional

    def _iadd(t, v):
        t += v
        return t

    env = {"lib": lib, "nn": nn, "F": F, "np": np, "_iadd": _iadd}
    for code in CASES:

        def run(code=code):
            out = eval(code, env)
            return out

        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            _quiet_kernels(lib)
            try:
                out = run()
                res = repr(out)
            except Exception as e:
                res = f"{type(e).__name__}: {e}"
        rec("r " + code, res)
        rec("w " + code, str([warning_text(w) for w in caught]))


OPS = [
    "x / 0",
    "x / z",
    "z / z",
    "x // z",
    "x % z",
    "xi // zi",
    "xi % zi",
    "x.div(z)",
    "lib.div(x, z)",
    "lib.true_divide(x, z)",
    "x.div(z, rounding_mode='floor')",
    "x.div(z, rounding_mode='trunc')",
    "1 / z",
    "z.reciprocal()",
    "z.log()",
    "n.log()",
    "n.sqrt()",
    "n.rsqrt()",
    "z.rsqrt()",
    "n.log2()",
    "n.log10()",
    "z.log1p()",
    "(n - 1).log1p()",
    "big.exp()",
    "big.expm1()",
    "big.sinh()",
    "big.cosh()",
    "big ** 2",
    "big.pow(3)",
    "big * big",
    "big.square()",
    "x.pow(-1) * 0 + z.pow(-1)",
    "z ** -1",
    "z ** -0.5",
    "n ** 0.5",
    "lib.tensor([2.0]).acos()",
    "lib.tensor([2.0]).asin()",
    "lib.tensor([2.0]).atanh()",
    "lib.tensor([0.5]).acosh()",
    "lib.tensor([1.0, -1.0]).atanh()",
    "z.tan() / z",
    "inf - inf",
    "inf * z",
    "inf.sin()",
    "inf.cos()",
    "nan > 0",
    "nan.max()",
    "lib.maximum(nan, x)",
    "nan.sum()",
    "lib.sigmoid(-big)",
    "lib.tanh(big)",
    "F.softplus(big)",
    "F.logsigmoid(-big)",
    "F.log_softmax(lib.tensor([[-inf, -inf]]), 1)",
    "F.softmax(lib.tensor([[-inf, -inf]]), 1)",
    "F.normalize(lib.zeros(2, 3))",
    "lib.zeros(3).std()",
    "lib.zeros(1).std()",
    "lib.zeros(1).var()",
    "lib.ones(0).mean()",
    "lib.zeros(2, 0).mean(1)",
    "lib.nn.functional.cosine_similarity(lib.zeros(1, 3), lib.zeros(1, 3))",
    "lib.tensor([0.0, 1.0]).logit()",
    "lib.special.xlogy(z, z)",
    "lib.xlogy(z, z)",
    "x.to(lib.float16) * 70000",
    "lib.tensor([1e6]).to(lib.float16)",
    "lib.tensor([1e40], dtype=lib.float64).float()",
    "lib.tensor([nan[0].item()]).long()",
    "inf.long()",
    "lib.tensor([1e20]).int()",
    "lib.tensor([3.0]).lgamma()",
    "lib.tensor([0.0, -1.0]).lgamma()",
    "lib.tensor([0.0, -1.0]).digamma()",
    "z.erfinv() + lib.tensor([1.0]).erfinv()",
    "lib.cdist(lib.zeros(1, 2), lib.zeros(1, 2))",
    "lib.linalg.norm(lib.zeros(3))",
    "lib.dist(z, z)",
    "lib.atan2(z, z)",
    "lib.hypot(big, big)",
    "lib.fmod(x, z)",
    "lib.remainder(x, z)",
    "lib.fmod(xi, zi)",
    "lib.log_softmax(lib.tensor([big[0].item(), 0.0]), 0)",
    "lib.logsumexp(lib.tensor([-inf, -inf]), 0)",
    "lib.tensor([-inf]).exp()",
    "lib.cumprod(big.repeat(3), 0)",
    "lib.prod(big.repeat(3))",
    "lib.nn.functional.gelu(big)",
    "lib.nn.functional.elu(-big)",
    "lib.nn.functional.binary_cross_entropy(lib.tensor([0.0, 1.0]), lib.tensor([1.0, 0.0]))",
    "lib.nn.functional.kl_div(lib.tensor([-inf]), lib.tensor([0.0]), reduction='sum')",
    "lib.nn.functional.kl_div(z, z, reduction='sum')",
    "lib.nn.functional.poisson_nll_loss(z, z)",
    "lib.nn.functional.gaussian_nll_loss(z, z, lib.tensor([0.0]))",
    "lib.nn.functional.layer_norm(lib.full((1, 3), big[0].item()), (3,))",
    "lib.nn.functional.batch_norm(lib.zeros(1, 2), None, None, training=True)",
    "lib.nn.functional.batch_norm(lib.zeros(2, 2), lib.zeros(2), lib.ones(2), training=True)",
    "lib.distributions.Normal(0.0, 1.0).log_prob(inf)",
    "lib.tensor([1.0, 2.0]).mean().log().div(z)",
    "x.float().div(z.float())",
    "(x * 0).div(0)",
    "lib.tensor([1, 2], dtype=lib.float16) / 0",
    "lib.tensor([1.0], dtype=lib.float64) / lib.tensor([0.0], dtype=lib.float64)",
    "lib.tensor([5]) / 0",
    "lib.tensor([5]) / lib.tensor([0])",
    "lib.tensor(5) / 0",
    "lib.tensor([-5.0]) // 0",
]


def leaks(lib, rec, grad=False):
    F = lib.nn.functional

    def mk(v, dtype=None):
        t = lib.tensor(v, dtype=dtype)
        return t.requires_grad_() if grad and t.is_floating_point() else t

    for code in OPS:
        env = {
            "lib": lib,
            "F": F,
            "x": mk([1.0, -2.0]),
            "z": mk([0.0]),
            "n": mk([-1.0]),
            "xi": mk([1, -2]),
            "zi": mk([0]),
            "big": mk([1e30]),
            "inf": mk([math.inf]),
            "nan": mk([math.nan]),
        }
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            _quiet_kernels(lib)
            try:
                out = eval(code, env)
                res = "ok"
                if grad and hasattr(out, "requires_grad") and out.requires_grad:
                    out.sum().backward()
                    res = "ok bwd"
            except Exception as e:
                res = f"{type(e).__name__}: {e}"
        rec("r " + code, res)
        rec("w " + code, str(sorted({warning_text(w) for w in caught})))


def leaks_grad(lib, rec):
    leaks(lib, rec, True)


def data_prog(lib, rec):
    D = lib.utils.data

    class DS(D.Dataset):
        def __init__(self, n):
            self.n = n

        def __len__(self):
            return self.n

        def __getitem__(self, i):
            return {
                "x": np.full(3, i, dtype=np.float32),
                "y": i % 3,
                "w": float(i) / 2,
                "name": f"s{i}",
                "t": lib.tensor([i, i]),
                "pair": (i, np.int64(i)),
                "b": bool(i % 2),
            }

    dl = D.DataLoader(DS(7), batch_size=3)
    for k, batch in enumerate(dl):
        for key in sorted(batch):
            v = batch[key]
            if isinstance(v, (list, tuple)):
                rec(
                    f"b{k}.{key}",
                    str([(type(e).__name__, str(getattr(e, "dtype", None)), repr(e)) for e in v]),
                )
            else:
                rec(f"b{k}.{key}", repr(v))
    rec("len", len(dl))
    g = lib.Generator().manual_seed(42)
    tr, va = D.random_split(DS(10), [0.7, 0.3], generator=g)
    rec("split", str((len(tr), len(va), list(tr.indices), list(va.indices))))
    rec.err("split bad", lambda: D.random_split(DS(10), [3, 3]))
    ds = D.TensorDataset(lib.arange(10.0).view(5, 2), lib.arange(5))
    rec.err("tds mismatch", lambda: D.TensorDataset(lib.ones(3), lib.ones(4)))
    rec("tds idx tensor", repr(ds[lib.tensor(2)]))
    rec("tds list idx", repr(ds[[0, 2]]))
    dl = D.DataLoader(ds, batch_size=2, shuffle=True, generator=lib.Generator().manual_seed(0))
    rec("shuf", str([repr(b[1]) for b in dl]))
    rec("shuf2", str([repr(b[1]) for b in dl]))
    dl = D.DataLoader(ds, batch_size=None)
    rec("bs none", str([repr(b) for b in dl][:2]))
    dl = D.DataLoader(ds, batch_sampler=D.BatchSampler(D.SequentialSampler(ds), 2, drop_last=True))
    rec("bsampler", str([repr(b[1]) for b in dl]))
    rec.err(
        "bs and batch_sampler",
        lambda: D.DataLoader(
            ds, batch_size=3, batch_sampler=D.BatchSampler(D.SequentialSampler(ds), 2, False)
        ),
    )
    rec.err(
        "shuffle and sampler",
        lambda: D.DataLoader(ds, shuffle=True, sampler=D.SequentialSampler(ds)),
    )
    rec(
        "weighted",
        str(
            list(
                D.WeightedRandomSampler(
                    [0.1, 0.9, 0.0], 6, generator=lib.Generator().manual_seed(1)
                )
            )
        ),
    )
    rec(
        "random sampler",
        str(list(D.RandomSampler(range(5), generator=lib.Generator().manual_seed(3)))),
    )
    rec("subset", repr(D.Subset(ds, [4, 0])[1]))
    cat = D.ConcatDataset([ds, ds])
    rec("concat", str((len(cat), repr(cat[7]))))
    rec("default_collate", repr(D.default_collate([(1.5, 2), (2.5, 3)])))
    rec("collate np", repr(D.default_collate([np.array([1, 2]), np.array([3, 4])])))
    rec("collate np scalar", repr(D.default_collate([np.float64(1), np.float64(2)])))
    rec.err("collate ragged", lambda: D.default_collate([lib.ones(2), lib.ones(3)]))
    rec.err("collate none", lambda: D.default_collate([None, None]))
    rec(
        "collate custom",
        repr(D.DataLoader(ds, batch_size=2, collate_fn=lambda b: len(b)).__iter__().__next__()),
    )
    rec("iter dl", str(len(list(iter(D.DataLoader(range(10), batch_size=4))))))
    rec("range dl", repr(next(iter(D.DataLoader(range(10), batch_size=4)))))


def more_autograd(lib, rec):
    dt = lib.float64
    x = lib.tensor([1.0, 2.0, 3.0], dtype=dt, requires_grad=True)
    v = lib.tensor([0.5, -1.0, 2.0], dtype=dt, requires_grad=True)
    y = x**3
    rec.warns("create_graph warn", lambda: y.backward(v, create_graph=True))
    rec("x.grad", x.grad)
    rec("x.grad gf", x.grad.grad_fn.name() if x.grad.grad_fn else "None")
    x.grad.sum().backward()
    rec("v.grad", v.grad)
    rec("x.grad after", x.grad)
    # set_grad_enabled as a function
    prev = lib.is_grad_enabled()
    lib.set_grad_enabled(False)
    try:
        rec("sge off", str((x * 2).requires_grad))
        rec("factory rg", str(lib.ones(2, requires_grad=True).requires_grad))
        w = lib.ones(2, requires_grad=True)
        rec("w leaf", str((w.is_leaf, w.grad_fn)))
    finally:
        lib.set_grad_enabled(prev)
    rec("sge back", str((x * 2).requires_grad))
    with lib.no_grad():
        t = lib.zeros(3, dtype=dt).requires_grad_()
        u = t * 2
    rec("in no_grad", str((t.requires_grad, u.requires_grad)))

    @lib.no_grad()
    def gen():
        for i in range(2):
            yield (x * i).requires_grad

    rec("gen nograd", str(list(gen())))

    class C:
        @lib.no_grad()
        def m(self, a):
            return a * 2

        @lib.enable_grad()
        def e(self, a):
            return a * 2

    rec("method", str(C().m(x).requires_grad))
    with lib.no_grad():
        rec("enable in no_grad", str(C().e(x).requires_grad))
    rec("inference deco", str(lib.inference_mode()(lambda a: a * 2)(x).requires_grad))
    with lib.inference_mode(False):
        rec("inference false", str((x * 2).requires_grad))
    # backward with gradient= scalar forms
    x.grad = None
    (x.sum()).backward(lib.tensor(2.0, dtype=dt))
    rec("scalar grad", x.grad)
    x.grad = None
    rec.err("scalar grad shape (1,)", lambda: x.sum().backward(lib.tensor([2.0], dtype=dt)))
    rec("after (1,)", str(x.grad))
    x.grad = None
    rec.err("gradient kw", lambda: (x * 2).backward(gradient=lib.ones(3, dtype=dt)))
    rec("gkw", x.grad)
    # grad on list outputs
    a = lib.tensor(2.0, dtype=dt, requires_grad=True)
    g = lib.autograd.grad([a * 3, a**2], [a])
    rec("grad list", g[0])
    g = lib.autograd.grad([a * 3, a**2], a, grad_outputs=[lib.tensor(1.0, dtype=dt), None])
    rec("grad none go", g[0])
    rec.err(
        "grad_outputs wrong len",
        lambda: lib.autograd.grad([a * 3, a**2], a, grad_outputs=[lib.tensor(1.0, dtype=dt)]),
    )
    rec.err("grad of leaf wrt itself", lambda: repr(lib.autograd.grad(a, a)))
    rec.err("grad nonrequiring output", lambda: lib.autograd.grad(lib.ones(()), a))
    rec.err("grad input not requiring", lambda: lib.autograd.grad((a * 2), lib.ones(())))
    rec.err("grad nonleaf input", lambda: repr(lib.autograd.grad((a * 2) * 3, a * 2)))
    b = a * 2
    rec("grad nonleaf ok", lib.autograd.grad((b * 3), b)[0])
    rec.err(
        "batched",
        lambda: repr(lib.autograd.grad(x * 2, x, lib.eye(3, dtype=dt), is_grads_batched=True)),
    )
    # post accumulate hook
    p = lib.tensor([1.0, 2.0], dtype=dt, requires_grad=True)
    seen = []
    p.register_post_accumulate_grad_hook(lambda t: seen.append(t.grad.clone()))
    (p * 3).sum().backward()
    (p * 3).sum().backward()
    rec("post hook", lib.stack(seen))
    q = p * 1
    q.register_hook(lambda g: None)
    order = []
    q.register_hook(lambda g: order.append("h2") or g * 2)
    p.grad = None
    (q * 1).sum().backward()
    rec("hook none then 2", p.grad)
    rec("order", str(order))
    # retain_grad then in-place
    r = p * 2
    r.retain_grad()
    r.mul_(3)
    (r * 1).sum().backward()
    rec("retain inplace grad", r.grad)
    rec("retain inplace rg", str(r.retains_grad))
    # grad accumulate with different strides: .grad layout
    m = lib.ones(3, 2, dtype=dt, requires_grad=True)
    (m.t() * lib.arange(3.0, dtype=dt)).sum().backward()
    rec("grad strides", str(m.grad.stride()))
    mt = lib.ones(2, 3, dtype=dt).t().requires_grad_()
    (mt * 2).sum().backward()
    rec("nc leaf grad strides", str(mt.grad.stride()))
    # zero_grad variants
    lin = lib.nn.Linear(2, 1).double()
    lin(lib.ones(1, 2, dtype=dt)).sum().backward()
    opt = lib.optim.SGD(lin.parameters(), lr=0.1)
    opt.zero_grad(set_to_none=False)
    rec("zero nonnone", lin.weight.grad)
    opt.zero_grad()
    rec("zero none", str(lin.weight.grad))
    lin.zero_grad(set_to_none=False)
    rec("mod zero", str(lin.weight.grad))
    # requires_grad_(False) on params freezes
    lin.weight.requires_grad_(False)
    out = lin(lib.ones(1, 2, dtype=dt)).sum()
    out.backward()
    rec("frozen", str(lin.weight.grad))
    rec("bias", lin.bias.grad)
    rec("params requiring", str([n for n, p_ in lin.named_parameters() if p_.requires_grad]))
    # .data trick
    d = lib.tensor([1.0, 2.0], dtype=dt, requires_grad=True)
    e = d * d
    d.data.mul_(10)
    e.sum().backward()
    rec(".data inplace no error grad", d.grad)
    rec("d version", str(d._version))
    # detach + numpy roundtrip
    rec("detach numpy", repr(d.detach().numpy()))
    rec.err("d.numpy", lambda: d.numpy())
    rec("d.tolist", repr(d.tolist()))
    rec("d.item on elem", repr(d[0].item()))


def _small(lib):
    """A module whose class pickles by reference (a module-level name, one per library), as a
    whole-model torch.save needs."""
    name = f"_Small_{lib.__name__}"
    if name not in globals():

        class Small(lib.nn.Module):
            def __init__(self):
                super().__init__()
                self.fc = lib.nn.Linear(2, 2)
                self.act = lib.nn.ReLU()

            def forward(self, x):
                return self.act(self.fc(x))

        Small.__name__ = Small.__qualname__ = name
        globals()[name] = Small
    lib.manual_seed(0)
    return globals()[name]()


def whole_model(lib, rec):
    m = _small(lib)
    buf = io.BytesIO()
    lib.save(m, buf)
    buf.seek(0)
    err_type(rec, "wo default", lambda: lib.load(buf), 60)
    buf.seek(0)
    m2 = lib.load(buf, weights_only=False)
    rec("type", type(m2).__name__)
    rec("repr", repr(m2))
    rec("out", m2(lib.ones(1, 2)))
    rec("same", str(m2.fc.weight.equal(m.fc.weight)))
    rec("param type", type(m2.fc.weight).__name__)
    rec("training", str(m2.training))
    m2.eval()
    rec("eval", str([mm.training for mm in m2.modules()]))
    rec("pickle", repr(pickle.loads(pickle.dumps(lib.arange(3.0)))))
    rec("pickle param", repr(pickle.loads(pickle.dumps(lib.nn.Parameter(lib.ones(2))))))
    rec.err("pickle nonleaf", lambda: pickle.dumps(lib.ones(2, requires_grad=True) * 2))
    rec("deepcopy", repr(copy.deepcopy(m2)))
    rec.err("deepcopy nonleaf", lambda: copy.deepcopy(lib.ones(2, requires_grad=True) * 2))


def aliasing(lib, rec):
    dt = lib.float64
    nn = lib.nn
    lib.manual_seed(0)
    m = nn.Sequential(nn.Linear(2, 3), nn.BatchNorm1d(3), nn.Linear(3, 1)).double()
    sd = m.state_dict()
    best = copy.deepcopy(m.state_dict())
    x = lib.tensor([[1.0, 2.0], [0.5, -1.0], [3.0, 0.0]], dtype=dt)
    for name, Opt, kw in (
        ("sgd", lib.optim.SGD, dict(lr=0.1, momentum=0.9)),
        ("adam", lib.optim.Adam, dict(lr=0.01)),
        ("adamw", lib.optim.AdamW, dict(lr=0.01, amsgrad=True)),
        ("rms", lib.optim.RMSprop, dict(lr=0.01, centered=True, momentum=0.5)),
        ("adagrad", lib.optim.Adagrad, dict(lr=0.1)),
        ("adadelta", lib.optim.Adadelta, dict()),
        ("nadam", lib.optim.NAdam, dict(lr=0.01)),
        ("radam", lib.optim.RAdam, dict(lr=0.01)),
        ("adamax", lib.optim.Adamax, dict(lr=0.01)),
        ("asgd", lib.optim.ASGD, dict(lr=0.01)),
        ("rprop", lib.optim.Rprop, dict(lr=0.01)),
    ):
        opt = Opt(m.parameters(), **kw)
        m(x).sum().backward()
        opt.step()
        opt.zero_grad()
        osd = opt.state_dict()
        snap = {k: (v.clone() if hasattr(v, "clone") else v) for k, v in osd["state"][0].items()}
        m(x).pow(2).sum().backward()
        opt.step()
        opt.zero_grad()
        for k in sorted(snap):
            v = osd["state"][0][k]
            rec(
                f"{name} osd {k} changed",
                str(not (v == snap[k]).all().item() if hasattr(v, "clone") else v != snap[k]),
            )
            rec(f"{name} osd {k} is state", str(v is opt.state[m[0].weight][k]))
        rec(f"{name} state0 is", str(osd["state"][0] is opt.state[m[0].weight]))
        rec(f"{name} pg is", str(osd["param_groups"][0] is opt.param_groups[0]))
        rec(f"{name} pg keys", str(sorted(osd["param_groups"][0].keys())))
        rec(f"{name} defaults", str(sorted(opt.defaults.items())))
        rec(f"{name} repr", repr(opt))
        rec(
            f"{name} state keys",
            str(
                {
                    k: (
                        type(v).__name__,
                        str(getattr(v, "dtype", "")),
                        tuple(getattr(v, "shape", ())),
                    )
                    for k, v in sorted(opt.state[m[0].weight].items())
                }
            ),
        )
        buf = io.BytesIO()
        lib.save(osd, buf)
        buf.seek(0)
        o2 = Opt([nn.Parameter(p.detach().clone()) for p in m.parameters()], **kw)
        o2.load_state_dict(lib.load(buf))
        p0 = o2.param_groups[0]["params"][0]
        rec(
            f"{name} loaded state",
            str(
                {
                    k: (type(v).__name__, str(getattr(v, "dtype", "")))
                    for k, v in sorted(o2.state[p0].items())
                }
            ),
        )
    rec("sd changed", str(not sd["0.weight"].equal(best["0.weight"])))
    rec("sd rm changed", str(not sd["1.running_mean"].equal(best["1.running_mean"])))
    rec("sd nbt", sd["1.num_batches_tracked"])
    rec("sd shares", str(sd["0.weight"].data_ptr() == m[0].weight.data_ptr()))
    rec("sd rg", str(sd["0.weight"].requires_grad))
    rec("sd type", type(sd["0.weight"]).__name__)
    rec("sd is_leaf", str(sd["0.weight"].is_leaf))


def _no_cuda(rec, name, fn):
    """Without CUDA torch raises AssertionError; minitorch's CudaUnavailableError is one (its
    message says how to install CuPy)."""
    try:
        fn()
    except AssertionError:
        rec(name, "AssertionError")
        return
    rec(name, "no AssertionError")


def devices(lib, rec):
    rec.err("acc avail", lambda: rec("acc avail v", str(lib.accelerator.is_available())))
    rec.err(
        "acc current", lambda: rec("acc current v", repr(lib.accelerator.current_accelerator()))
    )
    rec.err("acc count", lambda: rec("acc count v", repr(lib.accelerator.device_count())))
    device = lib.accelerator.current_accelerator().type if lib.accelerator.is_available() else "cpu"
    rec("device", device)
    rec.err("cuda avail", lambda: rec("cuda avail v", str(lib.cuda.is_available())))
    rec.err("cuda count", lambda: rec("cuda count v", str(lib.cuda.device_count())))
    rec.err("mps avail", lambda: rec("mps v", str(lib.backends.mps.is_available())))
    _no_cuda(rec, "to cuda", lambda: lib.ones(2).to("cuda"))
    _no_cuda(rec, "cuda()", lambda: lib.ones(2).cuda())
    rec.err("device cuda", lambda: rec("dev cuda v", repr(lib.device("cuda"))))
    rec.err("device cuda:1", lambda: rec("dev cuda1 v", repr(lib.device("cuda", 1))))
    rec.err("bad device", lambda: lib.device("gpu"))
    _no_cuda(rec, "ones on cuda", lambda: lib.ones(2, device="cuda"))
    _no_cuda(rec, "module to cuda", lambda: lib.nn.Linear(1, 1).to("cuda"))
    rec.err("module to cpu", lambda: rec("mod cpu", repr(lib.nn.Linear(1, 1).to("cpu"))))
    rec.err(
        "module to device obj",
        lambda: rec("mod dev", repr(lib.nn.Linear(1, 1).to(lib.device(device)))),
    )
    rec.err("to(device, dtype)", lambda: rec("tdd", repr(lib.ones(2).to("cpu", lib.float64))))
    rec.err(
        "to other", lambda: rec("to other v", repr(lib.ones(2).to(lib.ones(1, dtype=lib.int32))))
    )
    rec.err("to nb", lambda: rec("nb", repr(lib.ones(2).to(device, non_blocking=True))))
    rec.err("to copy", lambda: rec("cp", str(lib.ones(2).to("cpu", copy=True).data_ptr() != 0)))
    t = lib.ones(2)
    rec("to same is", str(t.to("cpu") is t))
    rec("to dtype same is", str(t.to(lib.float32) is t))
    rec("is_cuda", str(t.is_cuda))
    rec("device idx", repr(t.device.index))
    rec("get_device", repr(t.get_device()))
    rec.err("pin", lambda: lib.ones(2).pin_memory())
    rec.err("meta", lambda: rec("meta v", repr(lib.ones(2, device="meta"))))
    rec.err("str device", lambda: rec("devstr", str(lib.device("cpu")) + repr(lib.device("cpu:0"))))
    rec.err("device eq", lambda: rec("deveq", str(lib.device("cpu") == "cpu")))
    rec.err("set_default_device", lambda: rec("sdd", str(lib.get_default_device())))


def print_dicts(lib, rec):
    lib.manual_seed(0)
    m = lib.nn.Sequential(lib.nn.Linear(2, 2), lib.nn.Tanh(), lib.nn.BatchNorm1d(2))
    rec("sd", repr(m.state_dict()))
    rec("sd str", str(m.state_dict()))
    opt = lib.optim.Adam(m.parameters(), lr=0.01)
    m(lib.tensor([[1.0, 2.0], [0.5, -1.0], [3.0, 0.25]])).pow(3).sum().backward()
    opt.step()
    rec("osd", repr(opt.state_dict()))
    rec("params", repr(list(m.parameters())))
    rec("named", repr(dict(m.named_buffers())))
    rec("grads", repr([p.grad for p in m.parameters()]))
    try:
        lib.set_printoptions(precision=2)
        rec("sd p2", repr(m.state_dict()))
    finally:
        lib.set_printoptions(profile="default")


def quickstart(lib, rec):
    nn = lib.nn
    lib.manual_seed(0)

    class NeuralNetwork(nn.Module):
        def __init__(self):
            super().__init__()
            self.flatten = nn.Flatten()
            self.linear_relu_stack = nn.Sequential(
                nn.Linear(4 * 4, 8), nn.ReLU(), nn.Linear(8, 8), nn.ReLU(), nn.Linear(8, 3)
            )

        def forward(self, x):
            x = self.flatten(x)
            return self.linear_relu_stack(x)

    model = NeuralNetwork()
    rec("model", str(model))
    X = lib.rand(1, 4, 4, generator=lib.Generator().manual_seed(1))
    logits = model(X)
    rec("logits", str(logits))
    pred_probab = nn.Softmax(dim=1)(logits)
    rec("probab", str(pred_probab))
    y_pred = pred_probab.argmax(1)
    rec("pred", f"Predicted class: {y_pred}")
    input_image = lib.rand(3, 4, 4, generator=lib.Generator().manual_seed(2))
    flat_image = nn.Flatten()(input_image)
    rec("flat size", str(flat_image.size()))
    hidden1 = nn.Linear(in_features=16, out_features=5)(flat_image)
    rec("hidden size", str(hidden1.size()))
    rec("before relu", f"Before ReLU: {hidden1}\n\n")
    hidden1 = nn.ReLU()(hidden1)
    rec("after relu", f"After ReLU: {hidden1}")
    for name, param in model.named_parameters():
        rec("layer " + name, f"Layer: {name} | Size: {param.size()} | Values : {param[:2]} \n")
    rec("model structure", f"Model structure: {model}\n\n")
    loss_fn = nn.CrossEntropyLoss()
    optimizer = lib.optim.SGD(model.parameters(), lr=1e-1)
    D = lib.utils.data
    g = lib.Generator().manual_seed(3)
    Xs = lib.rand(20, 4, 4, generator=g)
    ys = lib.randint(0, 3, (20,), generator=g)
    dl = D.DataLoader(D.TensorDataset(Xs, ys), batch_size=8)
    size = len(dl.dataset)
    model.train()
    for batch, (Xb, yb) in enumerate(dl):
        pred = model(Xb)
        loss = loss_fn(pred, yb)
        loss.backward()
        optimizer.step()
        optimizer.zero_grad()
        loss, current = loss.item(), batch * 8 + len(Xb)
        rec(f"train{batch}", f"loss: {loss:>7f}  [{current:>5d}/{size:>5d}]")
    model.eval()
    test_loss, correct = 0, 0
    with lib.no_grad():
        for Xb, yb in dl:
            pred = model(Xb)
            test_loss += loss_fn(pred, yb).item()
            correct += (pred.argmax(1) == yb).type(lib.float).sum().item()
    test_loss /= len(dl)
    correct /= size
    rec("test", f"Test Error: \n Accuracy: {(100 * correct):>0.1f}%, Avg loss: {test_loss:>8f} \n")
    l0 = loss_fn(model(Xs), ys)
    rec.err("fmt grad 0d", lambda: rec("fmt grad 0d v", f"{l0:>7f}"))
    rec.err("fmt param 0d", lambda: rec("fmt param v", f"{nn.Parameter(lib.tensor(1.5)):>7f}"))
    rec.err("fmt param 0d empty", lambda: rec("fmt param e", f"{nn.Parameter(lib.tensor(1.5))}"))
    rec.err("fmt 1d spec", lambda: f"{lib.ones(1):.2f}")
    rec.err("fmt int 0d", lambda: rec("fmt int v", f"{lib.tensor(3):>5d}"))
    rec.err("fmt int 0d as f", lambda: rec("fmt int f", f"{lib.tensor(3):.2f}"))
    rec.err("fmt float as d", lambda: f"{lib.tensor(3.0):d}")
    rec.err("fmt bool", lambda: rec("fmt bool v", f"{lib.tensor(True):>6}"))
    rec.err("round", lambda: rec("round v", repr(round(lib.tensor(2.567), 2))))
    rec.err("round0", lambda: rec("round0 v", repr(round(lib.tensor(2.567)))))
    rec.err("fmt %", lambda: rec("pct v", "%.3f" % lib.tensor(1.23456)))  # noqa: UP031 - the % operator is the point
    rec.err("fmt % 1d", lambda: rec("pct1 v", "%.3f" % lib.tensor([1.23456])))  # noqa: UP031 - the % operator is the point
    rec.err("fmt % 2el", lambda: "%.3f" % lib.ones(2))  # noqa: UP031 - the % operator is the point
    rec.err("int()", lambda: rec("int v", repr(int(lib.tensor([[7.9]])))))
    rec.err("complex()", lambda: rec("complex v", repr(complex(lib.tensor(1.5)))))
    rec.err("np.float64(t)", lambda: rec("npf v", repr(np.float64(lib.tensor(1.5)))))
    rec.err("float(grad)", lambda: rec("float grad v", float(l0)))
    rec.err("item type", lambda: rec("item t", type((pred.argmax(1) == yb).sum().item()).__name__))
    rec.err("sum bool", lambda: rec("sum bool dt", str((pred.argmax(1) == yb).sum().dtype)))
    rec.err("type str", lambda: rec("type str v", (pred.argmax(1) == yb).type(lib.float).type()))


_Point = collections.namedtuple("Point", "x y")


class _Color(enum.Enum):
    RED = 1


def safe_globals(lib, rec):
    S = lib.serialization

    def roundtrip(obj, **kw):
        buf = io.BytesIO()
        lib.save(obj, buf)
        buf.seek(0)
        return lib.load(buf, **kw)

    ns = argparse.Namespace(lr=0.1, epochs=3)
    buf = io.BytesIO()
    lib.save({"args": ns, "w": lib.ones(2)}, buf)
    buf.seek(0)
    err_type(rec, "ns default", lambda: lib.load(buf), 40)
    buf.seek(0)
    rec.err("unsafe list", lambda: rec("unsafe v", str(S.get_unsafe_globals_in_checkpoint(buf))))
    buf.seek(0)
    with S.safe_globals([argparse.Namespace]):
        r = lib.load(buf)
    rec("ns loaded", repr(r["args"]))
    arr = np.arange(3.0)
    buf = io.BytesIO()
    lib.save({"a": arr}, buf)
    buf.seek(0)
    rec.err(
        "np unsafe",
        lambda: rec("np unsafe v", str(sorted(S.get_unsafe_globals_in_checkpoint(buf)))),
    )
    buf.seek(0)
    try:
        with S.safe_globals(
            [np._core.multiarray._reconstruct, np.ndarray, np.dtype, type(np.dtype(np.float64))]
        ):
            rec.err("np with safe", lambda: rec("np safe v", repr(lib.load(buf)["a"])))
    except Exception as e:
        rec("np safe ctx err", type(e).__name__)
    err_type(
        rec, "namedtuple", lambda: rec("nt v", repr(roundtrip({"p": _Point(1, lib.ones(1))}))), 40
    )
    err_type(rec, "enum", lambda: roundtrip({"c": _Color.RED}), 40)
    rec.err("set", lambda: rec("set v", repr(roundtrip({1, 2}))))
    rec.err("complex py", lambda: rec("cpy v", repr(roundtrip(1 + 2j))))
    rec.err("bytes", lambda: rec("bytes v", repr(roundtrip(b"ab"))))
    err_type(rec, "slice", lambda: rec("slice v", repr(roundtrip(slice(1, 2)))), 40)
    rec.err(
        "OrderedDict", lambda: rec("od v", repr(roundtrip(collections.OrderedDict(a=lib.ones(1)))))
    )
    err_type(rec, "defaultdict", lambda: roundtrip(collections.defaultdict(list)), 40)
    rec.err(
        "dtype obj", lambda: rec("dtype v", repr(roundtrip([lib.float16, lib.int64, lib.bool])))
    )
    rec.err("device obj", lambda: rec("dev v", repr(roundtrip(lib.device("cpu")))))
    rec.err("Size", lambda: rec("size v", repr(roundtrip(lib.Size([2, 3])))))
    rec.err(
        "generator state",
        lambda: rec("gen v", str(roundtrip(lib.Generator().manual_seed(1).get_state()).shape)),
    )
    rec.err("int keys", lambda: rec("intk v", repr(roundtrip({3: lib.tensor(1), (1, 2): "t"}))))
    rec.err(
        "nested",
        lambda: rec("nested v", repr(roundtrip([[lib.tensor([1.5])], {"x": (lib.tensor(2),)}]))),
    )
    rec.err(
        "float16 tensor",
        lambda: rec("f16 v", repr(roundtrip(lib.tensor([1.5, 2.25], dtype=lib.float16)))),
    )
    rec.err(
        "bf16 tensor",
        lambda: rec("bf16 v", repr(roundtrip(lib.tensor([1.5, 2.25], dtype=lib.bfloat16)))),
    )
    rec.err("int8", lambda: rec("i8 v", repr(roundtrip(lib.tensor([-1, 2], dtype=lib.int8)))))
    rec.err("bool", lambda: rec("bool v", repr(roundtrip(lib.tensor([True, False])))))
    rec.err(
        "requires_grad leaf", lambda: rec("rgl v", repr(roundtrip(lib.ones(2, requires_grad=True))))
    )
    rec.err("nonleaf", lambda: roundtrip(lib.ones(2, requires_grad=True) * 2))
    rec.err("0d", lambda: rec("0d v", repr(roundtrip(lib.tensor(3.5)))))
    rec.err(
        "strided view",
        lambda: rec("sv v", repr(roundtrip(lib.arange(12.0).view(3, 4)[:, ::2]).stride())),
    )
    rec.err("expanded", lambda: rec("ex v", repr(roundtrip(lib.ones(1, 3).expand(4, 3)).stride())))
    rec.err("inference tensor", lambda: rec("inf v", repr(roundtrip(_inf(lib)).is_inference())))


def _inf(lib):
    with lib.inference_mode():
        return lib.ones(2) * 2


def functional_ad(lib, rec):
    dt = lib.float64
    AF = lib.autograd.functional

    def f(x):
        return (x**3).cumsum(0) * x.sin()

    def s(x):
        return (x.exp() * x).sum() + x.prod()

    x = lib.tensor([0.5, -1.0, 2.0], dtype=dt)
    v = lib.tensor([1.0, 0.5, -2.0], dtype=dt)
    out, vjp = AF.vjp(f, x, v)
    rec("vjp out", out)
    rec("vjp", vjp)
    out, jvp = AF.jvp(f, x, v)
    rec("jvp", jvp)
    rec("jac", AF.jacobian(f, x))
    rec("jac fwd", AF.jacobian(f, x, vectorize=True, strategy="forward-mode"))
    rec("hess", AF.hessian(s, x))
    out, hvp = AF.hvp(s, x, v)
    rec("hvp", hvp)
    out, vhp = AF.vhp(s, x, v)
    rec("vhp", vhp)
    rec("jac tuple", str([tuple(t.shape) for t in AF.jacobian(lambda a, b: a * b, (x, v))]))
    rec(
        "jac create_graph rg",
        str(AF.jacobian(f, x.clone().requires_grad_(), create_graph=True).requires_grad),
    )
    rec.err("vjp no v", lambda: AF.vjp(f, x))
    rec.err("vjp wrong v", lambda: AF.vjp(f, x, v[:2]))
    rec.err("hess nonscalar", lambda: AF.hessian(f, x))
    rec.err("strict", lambda: AF.jacobian(lambda a: lib.ones(2, dtype=dt), x, strict=True))
    rec("nonstrict zeros", AF.jacobian(lambda a: lib.ones(2, dtype=dt), x))


# --- the tests ---


@pytest.fixture(autouse=True)
def _keep_rng_state():
    """Some programs seed the global generators: both libraries' states are put back."""
    states = [(lib, lib.get_rng_state()) for lib in (torch, minitorch)]
    yield
    for lib, state in states:
        lib.set_rng_state(state)


DT_PROGRAMS = [
    autograd_basics, poly_numpy_tensor_autograd, legendre, nn_seq_rmsprop, dynamic_net,
    polynomial_module, nn_really_scratch, nn_really_module, nn_really_cnn, save_load,
]  # fmt: skip
PROGRAMS = [
    tensors_basics, printing, bridge, autograd_edges, save_more, custom_fn, mod_reprs, legacy,
    leaks, leaks_grad, data_prog, more_autograd, whole_model, aliasing, devices, print_dicts,
    quickstart, safe_globals, functional_ad,
]  # fmt: skip


@pytest.mark.parametrize("dt", ["float32", "float64"])
@pytest.mark.parametrize("prog", DT_PROGRAMS, ids=lambda p: p.__name__)
def test_program_matches_torch(prog, dt):
    assert_program_matches(prog, torch, dt)


@pytest.mark.parametrize("prog", PROGRAMS, ids=lambda p: p.__name__)
def test_records_match_torch(prog):
    want = run_program(prog, torch, rec=Rec(dtypes=True))
    got = run_program(prog, minitorch, rec=Rec(dtypes=True))
    assert len(want) >= 7
    assert_records_match(want, got, 1e-6, rename=True)
