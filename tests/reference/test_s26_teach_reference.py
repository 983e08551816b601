"""Session 26 (teach): course assignments and their autograders, against PyTorch. Each program is
written once as prog(L, rec) and run under torch and under minitorch: what a grader prints (the
failure messages of assert_close / gradcheck / autograd errors, tensor and module reprs) must be
torch's text, and the numbers a student's manual backprop gives must be torch's."""

from __future__ import annotations

import collections
import doctest
import io
import re
import time
import unittest

import pytest

import minitorch as mt
from tests.reference._programs import assert_records_match, run_program

torch = pytest.importorskip("torch")

_ADDR = re.compile(r"0x[0-9a-fA-F]+")
PROGRAMS = {}


def program(fn):
    PROGRAMS[fn.__name__] = fn
    return fn


def _text(L, v) -> str:
    """repr text of v with the library's module name read as torch's and addresses masked."""
    return _ADDR.sub("0x", repr(v)).replace(L.__name__ + ".", "torch.")


_LONG_FLOAT = re.compile(r"-?\d+\.\d{12,}")


def _err(rec, name, fn):
    """rec.err, with the library's name in the message read as torch's and the full-precision
    floats gradcheck prints cut to 12 significant digits (a dot product's summation order moves
    the last bits)."""
    rec.err(name, fn)
    n, v = rec.items[-1]
    v = _LONG_FLOAT.sub(lambda m: f"{float(m.group()):.12g}", v)
    rec.items[-1] = (n, v.replace("minitorch", "torch"))


def _square(L, backward):
    """A student's custom Function y = x * x with the given backward(g, x)."""

    class Square(L.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x * x

        @staticmethod
        def backward(ctx, g):
            (x,) = ctx.saved_tensors
            return backward(g, x)

    return Square.apply


def _f64(L, values):
    return L.tensor(values, dtype=L.float64, requires_grad=True)


# --- graders built on assert_close / allclose / make_tensor ---


@program
def grader_tensor_messages(L, rec):
    ac = L.testing.assert_close
    x = L.tensor([[1.0, 2.0], [3.0, 4.0]])
    _err(rec, "three_of_four", lambda: ac(x, L.tensor([[1.0, 2.5], [3.1, 4.2]])))
    _err(rec, "one_of_four", lambda: ac(x, L.tensor([[1.0, 2.0], [3.0, 4.001]])))
    _err(rec, "rtol_atol", lambda: ac(x, x * 1.05, rtol=0.01, atol=0.0))
    _err(rec, "rtol_only", lambda: ac(x, x, rtol=0.1))
    _err(rec, "shape", lambda: ac(L.zeros(2, 3), L.zeros(3, 2)))
    _err(rec, "dtype", lambda: ac(L.zeros(2, dtype=L.float64), L.zeros(2)))
    _err(rec, "int_vs_float", lambda: ac(L.tensor([1, 2, 3]), L.tensor([1.0, 2.0, 3.0])))
    _err(
        rec,
        "int_vs_float_nodtype",
        lambda: ac(L.tensor([1, 2]), L.tensor([1.0, 2.5]), check_dtype=False),
    )
    _err(rec, "ints", lambda: ac(L.tensor([[1, 2], [3, 4]]), L.tensor([[1, 2], [3, 9]])))
    _err(rec, "bools", lambda: ac(L.tensor([True, False]), L.tensor([True, True])))
    nan = float("nan")
    _err(rec, "nan", lambda: ac(L.tensor([nan, 1.0]), L.tensor([nan, 1.0])))
    _err(rec, "equal_nan", lambda: ac(L.tensor([nan, 1.0]), L.tensor([nan, 1.0]), equal_nan=True))
    _err(rec, "nan_vs_num", lambda: ac(L.tensor([nan, 1.0]), L.tensor([0.0, 1.0]), equal_nan=True))
    _err(rec, "inf", lambda: ac(L.tensor([float("inf")]), L.tensor([float("-inf")])))
    a = L.arange(24.0).reshape(2, 3, 4)
    b = a.clone()
    b[1, 2, 3] = 0
    b[0, 0, 1] += 1e-3
    _err(rec, "index_3d", lambda: ac(b, a))
    _err(
        rec,
        "stride",
        lambda: ac(a.transpose(0, 2), a.transpose(0, 2).contiguous(), check_stride=True),
    )
    _err(
        rec,
        "half",
        lambda: ac(L.tensor([1.0, 2.0], dtype=L.float16), L.tensor([1.01, 2.0], dtype=L.float16)),
    )
    _err(
        rec,
        "bf16",
        lambda: ac(L.tensor([1.0], dtype=L.bfloat16), L.tensor([1.1], dtype=L.bfloat16)),
    )
    _err(rec, "requires_grad", lambda: ac(L.ones(2, requires_grad=True) * 1.1, L.ones(2)))
    _err(rec, "grad_is_none", lambda: ac(L.ones(2, requires_grad=True).grad, L.zeros(2)))
    _err(rec, "uint8", lambda: ac(L.tensor([0], dtype=L.uint8), L.tensor([255], dtype=L.uint8)))


@program
def grader_container_messages(L, rec):
    ac = L.testing.assert_close
    P = collections.namedtuple("P", "w b")
    _err(rec, "scalars", lambda: ac(1.0, 1.1))
    _err(rec, "scalar_types", lambda: ac(1, 1.0))
    _err(rec, "scalar_ints", lambda: ac(1, 2))
    _err(rec, "scalar_bools", lambda: ac(True, False))
    _err(rec, "list", lambda: ac([L.ones(2), L.zeros(2)], [L.ones(2), L.ones(2)]))
    _err(rec, "list_len", lambda: ac([L.ones(2), L.zeros(2)], [L.ones(2)]))
    _err(rec, "tuple_vs_list", lambda: ac((L.ones(2),), [L.ones(2)]))
    _err(
        rec, "dict", lambda: ac({"b": L.zeros(1), "a": L.ones(2)}, {"a": L.ones(2), "b": L.ones(1)})
    )
    _err(rec, "dict_keys", lambda: ac({"a": L.ones(2)}, {"b": L.ones(2)}))
    _err(rec, "namedtuple", lambda: ac(P(L.ones(2), L.zeros(1)), P(L.ones(2), L.ones(1))))
    _err(rec, "nested", lambda: ac({"a": [L.ones(2), (1.0,)]}, {"a": [L.ones(2), (2.0,)]}))
    _err(rec, "tensor_vs_list", lambda: ac(L.ones(2), [1.0, 1.0]))
    _err(rec, "none_vs_tensor", lambda: ac(None, L.ones(1)))
    _err(rec, "msg_str", lambda: ac(L.ones(2), L.zeros(2), msg="Your forward pass is wrong"))
    _err(
        rec, "msg_callable", lambda: ac([L.ones(2)], [L.zeros(2)], msg=lambda m: "Hint: bias\n" + m)
    )
    _err(rec, "msg_shape", lambda: ac(L.ones(2), L.zeros(3), msg="shape!"))
    _err(rec, "msg_not_str", lambda: ac(L.ones(2), L.zeros(2), msg=3))
    rec.warns(
        "assert_allclose",
        lambda: rec.err(
            "assert_allclose.err", lambda: L.testing.assert_allclose(L.ones(2), L.zeros(2))
        ),
    )


@program
def grader_make_tensor(L, rec):
    mk = L.testing.make_tensor
    cases = [
        ((2, 3), {"dtype": L.float32}),
        ((4,), {"dtype": L.float64, "low": -1, "high": 1}),
        ((5,), {"dtype": L.int64}),
        ((6,), {"dtype": L.int32, "low": 0, "high": 3}),
        ((6,), {"dtype": L.uint8}),
        ((6,), {"dtype": L.bool}),
        ((3,), {"dtype": L.float32, "requires_grad": True}),
        ((2, 3), {"dtype": L.float32, "noncontiguous": True}),
        ((8,), {"dtype": L.int64, "low": -2, "high": 2, "exclude_zero": True}),
        ((8,), {"dtype": L.float16, "exclude_zero": True}),
        ((3,), {"dtype": L.bfloat16}),
        ((), {"dtype": L.float32}),
    ]
    for i, (shape, kw) in enumerate(cases):
        L.manual_seed(i)
        t = mk(shape, device="cpu", **kw)
        rec(f"t{i}", _text(L, t))
        rec(f"t{i}.meta", str((t.is_contiguous(), t.stride(), t.is_leaf)))
    _err(rec, "low_high", lambda: mk((2,), dtype=L.float32, device="cpu", low=2, high=1))
    _err(
        rec, "int_requires_grad", lambda: mk((2,), dtype=L.int64, device="cpu", requires_grad=True)
    )


@program
def grader_allclose_isclose_equal(L, rec):
    nan, inf = float("nan"), float("inf")
    rec("nan", str(L.allclose(L.tensor([nan]), L.tensor([nan]))))
    rec("nan_eq", str(L.allclose(L.tensor([nan]), L.tensor([nan]), equal_nan=True)))
    rec(
        "inf",
        str(
            (
                L.allclose(L.tensor([inf]), L.tensor([inf])),
                L.allclose(L.tensor([inf]), L.tensor([1e38])),
            )
        ),
    )
    rec("bcast", str(L.allclose(L.ones(2, 3), L.ones(3))))
    rec(
        "isclose",
        L.isclose(L.tensor([1.0, nan, inf]), L.tensor([1.0 + 1e-9, nan, inf]), equal_nan=True),
    )
    rec("equal", str((L.equal(L.ones(2), L.ones(3)), L.equal(L.tensor([nan]), L.tensor([nan])))))
    _err(rec, "allclose_int_float", lambda: L.allclose(L.tensor([1, 2]), L.tensor([1.0, 2.0])))
    _err(rec, "allclose_f64_f32", lambda: L.allclose(L.tensor([1.0], dtype=L.float64), L.ones(1)))
    _err(rec, "allclose_other_float", lambda: L.allclose(L.ones(2), 1.0))
    _err(rec, "allclose_input_float", lambda: L.allclose(1.0, L.ones(2)))
    _err(rec, "allclose_bad_bcast", lambda: L.allclose(L.ones(2, 3), L.ones(2)))
    _err(rec, "allclose_equal_nan_int", lambda: L.allclose(L.ones(2), L.ones(2), equal_nan=1))
    _err(rec, "isclose_neg_rtol", lambda: L.isclose(L.ones(1), L.ones(1), rtol=-1))
    _err(rec, "equal_float", lambda: L.equal(L.ones(2), 1.0))


# --- gradient checking ---


@program
def gradcheck_wrong_backward(L, rec):
    wrong = _square(L, lambda g, x: g * x)  # should be 2 * x
    x = _f64(L, [[1.0, 2.0], [3.0, -1.0]])
    _err(rec, "slow", lambda: L.autograd.gradcheck(wrong, (x,)))
    rec("no_raise", str(L.autograd.gradcheck(wrong, (x,), raise_exception=False)))
    rec("atol_big", str(L.autograd.gradcheck(wrong, (x,), atol=10.0)))
    _err(rec, "single_tensor", lambda: L.autograd.gradcheck(wrong, _f64(L, [1.0, 2.0])))
    bad_shape = _square(L, lambda g, x: (g * 2 * x).sum())
    _err(rec, "shape", lambda: L.autograd.gradcheck(bad_shape, (_f64(L, [1.0, 2.0]),)))
    bad_dtype = _square(L, lambda g, x: (g * 2 * x).float())
    _err(rec, "dtype", lambda: L.autograd.gradcheck(bad_dtype, (_f64(L, [1.0, 2.0]),)))
    _err(
        rec,
        "no_input_requires_grad",
        lambda: L.autograd.gradcheck(wrong, (L.ones(2, dtype=L.float64),)),
    )

    class Mul(L.autograd.Function):
        @staticmethod
        def forward(ctx, a, b):
            ctx.save_for_backward(a, b)
            return a * b

        @staticmethod
        def backward(ctx, g):
            a, b = ctx.saved_tensors
            return g * a, g * b  # swapped

    _err(
        rec,
        "swapped",
        lambda: L.autograd.gradcheck(Mul.apply, (_f64(L, [1.0, 2.0]), _f64(L, [3.0, 5.0]))),
    )


@program
def gradcheck_fast_mode(L, rec):
    # fast mode's random directions come from a fresh generator: the numbers printed are torch's
    wrong = _square(L, lambda g, x: g * x)
    _err(rec, "fast_2", lambda: L.autograd.gradcheck(wrong, (_f64(L, [1.0, 2.0]),), fast_mode=True))
    L.manual_seed(0)
    x = L.randn(3, dtype=L.float64, requires_grad=True)
    _err(rec, "fast_3", lambda: L.autograd.gradcheck(wrong, (x,), fast_mode=True))
    rec(
        "fast_no_raise",
        str(L.autograd.gradcheck(wrong, (x,), fast_mode=True, raise_exception=False)),
    )
    rec("after", L.rand(3))  # the user's stream is untouched

    class Mul(L.autograd.Function):
        @staticmethod
        def forward(ctx, a, b):
            ctx.save_for_backward(a, b)
            return a * b

        @staticmethod
        def backward(ctx, g):
            a, b = ctx.saved_tensors
            return g * b, g * b

    a, b = _f64(L, [[1.0, 2.0], [0.5, 1.5]]), _f64(L, [[3.0, 5.0], [2.0, -1.0]])
    _err(rec, "fast_two_inputs", lambda: L.autograd.gradcheck(Mul.apply, (a, b), fast_mode=True))
    ok = _square(L, lambda g, x: 2 * g * x)
    rec("fast_ok", str(L.autograd.gradcheck(ok, (_f64(L, [1.0, 2.0]),), fast_mode=True)))
    x32 = L.tensor([1.0, 2.0], requires_grad=True)
    rec.warns(
        "float32_warns",
        lambda: rec.err("float32", lambda: L.autograd.gradcheck(ok, (x32,), fast_mode=True)),
    )


@program
def gradgradcheck_wrong_backward(L, rec):
    class Cube(L.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x**3

        @staticmethod
        def backward(ctx, g):
            (x,) = ctx.saved_tensors
            return g * 3 * x.detach() ** 2  # detach: first derivative right, second lost

    x = _f64(L, [1.0, 2.0])
    rec("gradcheck", str(L.autograd.gradcheck(Cube.apply, (x,))))
    L.manual_seed(0)  # gradgradcheck's random grad_outputs come from the default stream
    _err(rec, "gradgradcheck", lambda: L.autograd.gradgradcheck(Cube.apply, (x,)))
    rec("no_raise", str(L.autograd.gradgradcheck(Cube.apply, (x,), raise_exception=False)))
    g = _f64(L, [0.5, -1.0])
    rec("builtin", str(L.autograd.gradgradcheck(lambda x: x.sin() * x, (x,), (g,))))
    rec("builtin_fast", str(L.autograd.gradgradcheck(lambda x: x.sin() * x, (x,), fast_mode=True)))


@program
def gradcheck_options(L, rec):
    class Double(L.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def backward(ctx, g):
            return g * 2 + 1  # not zero for a zero grad_output

    x = _f64(L, [1.0, 2.0])
    _err(
        rec,
        "undefined_grad",
        lambda: L.autograd.gradcheck(Double.apply, (x,), check_undefined_grad=True),
    )
    calls = [0]

    class Noisy(L.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def backward(ctx, g):
            calls[0] += 1
            return g * (2 + 1e-3 * calls[0])

    _err(rec, "nondet", lambda: L.autograd.gradcheck(Noisy.apply, (x,), atol=1e-2))
    calls[0] = 0
    rec("nondet_tol", str(L.autograd.gradcheck(Noisy.apply, (x,), atol=1e-2, nondet_tol=1e-2)))
    ok = _square(L, lambda g, x: 2 * g * x)
    rec("eps", str(L.autograd.gradcheck(ok, (x,), eps=1e-3, atol=1e-4, rtol=1e-2)))
    x32 = L.tensor([1.0, 2.0], requires_grad=True)
    rec.warns("float32", lambda: rec.err("float32.err", lambda: L.autograd.gradcheck(ok, (x32,))))
    L.manual_seed(0)
    xs = L.randn(3, 2, dtype=L.float64, requires_grad=True)
    w = L.randn(4, 2, dtype=L.float64, requires_grad=True)
    rec(
        "linear_relu",
        str(L.autograd.gradcheck(lambda x, w: L.nn.functional.linear(x, w).relu(), (xs, w))),
    )
    rec("int_arg", str(L.autograd.gradcheck(lambda x, i: x * i, (x, L.tensor([1, 2])))))


@program
def numerical_gradient_helper(L, rec):
    def eval_numerical_gradient(f, x, h=1e-5):
        grad = L.zeros_like(x)
        flat = x.view(-1)
        for i in range(flat.numel()):
            old = flat[i].item()
            flat[i] = old + h
            fp = f(x).item()
            flat[i] = old - h
            fm = f(x).item()
            flat[i] = old
            grad.view(-1)[i] = (fp - fm) / (2 * h)
        return grad

    def rel_error(a, b):
        return ((a - b).abs().max() / (a.abs() + b.abs()).max().clamp(min=1e-8)).item()

    L.manual_seed(0)
    x = L.randn(3, 4, dtype=L.float64)
    w = L.randn(4, 2, dtype=L.float64)

    def f(x):
        return ((x @ w).tanh() ** 2).sum()

    num = eval_numerical_gradient(f, x)
    xa = x.clone().requires_grad_()
    f(xa).backward()
    rec("num", num)
    rec("auto", xa.grad)
    rec("rel_ok", str(rel_error(num, xa.grad) < 1e-8))
    rec("num32", eval_numerical_gradient(lambda t: (t.tanh() ** 2).sum(), x.float(), h=1e-2))


@program
def jacrev_vs_manual(L, rec):
    L.manual_seed(0)
    W = L.randn(3, 4, dtype=L.float64)
    x = L.randn(4, dtype=L.float64)

    def f(x):
        return (W @ x).tanh()

    J = L.func.jacrev(f)(x)
    manual = (1 - f(x) ** 2).unsqueeze(1) * W
    rec("jacrev", J)
    rec("jacfwd", L.func.jacfwd(f)(x))
    rec("functional", L.autograd.functional.jacobian(f, x))
    rec("manual_ok", str(L.allclose(J, manual)))
    rec("repr", _text(L, J))
    gW, gx = L.func.jacrev(lambda W, x: W @ x, argnums=(0, 1))(W, x)
    rec("argnums", str((tuple(gW.shape), tuple(gx.shape))))
    rec("hessian", L.func.hessian(lambda x: (x**3).sum())(x))
    _err(rec, "grad_nonscalar", lambda: L.func.grad(lambda x: x**2)(x))


# --- student solutions: manual backprop against autograd ---


@program
def backprop_affine_bn_relu_softmax(L, rec):
    L.manual_seed(0)
    N, D, H, C = 4, 5, 6, 3
    x = L.randn(N, D, dtype=L.float64, requires_grad=True)
    w1 = L.randn(D, H, dtype=L.float64, requires_grad=True)
    b1 = L.zeros(H, dtype=L.float64, requires_grad=True)
    w2 = L.randn(H, C, dtype=L.float64, requires_grad=True)
    gamma = L.ones(H, dtype=L.float64, requires_grad=True)
    beta = L.zeros(H, dtype=L.float64, requires_grad=True)
    y = L.tensor([0, 2, 1, 2])
    a = x @ w1 + b1
    mu, var = a.mean(0), a.var(0, unbiased=False)
    xhat = (a - mu) / L.sqrt(var + 1e-5)
    bn = gamma * xhat + beta
    h = bn.clamp(min=0)
    p = (h @ w2).softmax(1)
    loss = -p[L.arange(N), y].log().mean()
    loss.backward()
    with L.no_grad():
        ds = p.clone()
        ds[L.arange(N), y] -= 1
        ds /= N
        dh = ds @ w2.t()
        dbn = dh * (bn > 0)
        dxhat = dbn * gamma
        da = (N * dxhat - dxhat.sum(0) - xhat * (dxhat * xhat).sum(0)) / (N * L.sqrt(var + 1e-5))
        manual = {
            "w2": h.t() @ ds,
            "gamma": (dbn * xhat).sum(0),
            "beta": dbn.sum(0),
            "w1": x.t() @ da,
            "b1": da.sum(0),
            "x": da @ w1.t(),
        }
    auto = {"w2": w2, "gamma": gamma, "beta": beta, "w1": w1, "b1": b1, "x": x}
    rec("loss", loss)
    for n, g in manual.items():
        rec("manual." + n, g)
        rec("auto." + n, auto[n].grad)
    rec("loss.repr", _text(L, loss))


@program
def backprop_conv_and_losses(L, rec):
    F = L.nn.functional
    L.manual_seed(0)
    x = L.randn(2, 2, 4, 4, dtype=L.float64, requires_grad=True)
    w = L.randn(3, 2, 3, 3, dtype=L.float64, requires_grad=True)
    b = L.randn(3, dtype=L.float64, requires_grad=True)
    out = F.conv2d(x, w, b, padding=1)
    dout = L.randn_like(out)
    out.backward(dout)
    with L.no_grad():
        xp = F.pad(x, (1, 1, 1, 1))
        dw, dxp = L.zeros_like(w), L.zeros_like(xp)
        for i in range(4):
            for j in range(4):
                dw += L.einsum("nf,nchw->fchw", dout[:, :, i, j], xp[:, :, i : i + 3, j : j + 3])
                dxp[:, :, i : i + 3, j : j + 3] += L.einsum("nf,fchw->nchw", dout[:, :, i, j], w)
    rec("dx", dxp[:, :, 1:-1, 1:-1])
    rec("x.grad", x.grad)
    rec("dw", dw)
    rec("w.grad", w.grad)
    rec("b.grad", b.grad)
    s = L.randn(4, 3, requires_grad=True)
    y = L.tensor([0, 2, 1, 1])
    F.cross_entropy(s, y).backward()
    p = s.detach().softmax(1)
    p[L.arange(4), y] -= 1
    rec("ce.grad", s.grad)
    rec("ce.manual", p / 4)
    s.grad = None
    margins = (s - s[L.arange(4), y].unsqueeze(1) + 1).clamp(min=0)
    margins[L.arange(4), y] = 0
    svm = margins.sum() / 4
    svm.backward()
    rec("svm", _text(L, svm))
    rec("svm.grad", s.grad)
    rec("svm.builtin", F.multi_margin_loss(s.detach(), y) * 3)


@program
def cs231n_svm_vectorized(L, rec):
    L.manual_seed(0)
    W = L.randn(4, 3, dtype=L.float64) * 0.01
    X = L.randn(5, 4, dtype=L.float64)
    y = L.tensor([0, 1, 2, 0, 1])
    scores = X @ W
    margins = L.clamp(scores - scores[L.arange(5), y].view(-1, 1) + 1, min=0)
    margins[L.arange(5), y] = 0
    loss = margins.sum() / 5 + 0.5 * (W * W).sum()
    binary = (margins > 0).double()
    binary[L.arange(5), y] = -binary.sum(1)
    rec("loss", _text(L, loss))
    rec("dW", X.t() @ binary / 5 + W)
    Wt = W.clone().requires_grad_()
    s = X @ Wt
    auto = (L.clamp(s - s[L.arange(5), y].view(-1, 1) + 1, min=0).sum() - 5) / 5
    (auto + 0.5 * (Wt * Wt).sum()).backward()
    rec("auto", Wt.grad)


@program
def fastai_mnist_loss_sgd(L, rec):
    L.manual_seed(42)
    weights = (L.randn(28 * 28, 1) * 1.0).requires_grad_()
    bias = L.randn(1).requires_grad_()
    xb = L.rand(16, 28 * 28)
    yb = (L.rand(16, 1) > 0.5).float()
    for step in range(3):
        preds = xb @ weights + bias
        p = preds.sigmoid()
        loss = L.where(yb == 1, 1 - p, p).mean()
        loss.backward()
        for t in (weights, bias):
            t.data -= 1.0 * t.grad.data
            t.grad.data.zero_()
        rec(f"loss{step}", _text(L, loss))
    rec("acc", _text(L, ((preds > 0.0).float() == yb).float().mean()))
    rec("bias", _text(L, bias))
    _err(rec, "zero_none_grad", lambda: L.ones(2, requires_grad=True).grad.zero_())


@program
def cs224n_attention_word2vec(L, rec):
    F = L.nn.functional
    L.manual_seed(0)
    enc, dec = L.randn(2, 4, 3), L.randn(2, 3)
    e = L.bmm(enc, dec.unsqueeze(2)).squeeze(2)
    e.data.masked_fill_(L.tensor([[0, 0, 1, 1], [0, 0, 0, 1]]).bool(), -float("inf"))
    a = F.softmax(e, dim=1)
    rec("alpha", _text(L, a))
    rec("context", L.bmm(a.unsqueeze(1), enc).squeeze(1))
    U = L.randn(5, 3, dtype=L.float64, requires_grad=True)
    v = L.randn(3, dtype=L.float64, requires_grad=True)
    y_hat = L.softmax(U @ v, 0)
    loss = -L.log(y_hat[2])
    loss.backward()
    y = L.zeros(5, dtype=L.float64)
    y[2] = 1
    rec("loss", _text(L, loss))
    rec("dv", U.detach().t() @ (y_hat.detach() - y))
    rec("v.grad", v.grad)
    rec("dU", L.outer(y_hat.detach() - y, v.detach()))
    rec("U.grad", U.grad)


# --- typical student bugs: what the grader shows ---


@program
def student_inplace_bugs(L, rec):
    def saved_sigmoid():
        x = L.ones(3, requires_grad=True)
        y = x.sigmoid()
        z = y * 2
        y.mul_(3)
        z.sum().backward()

    def saved_exp():
        y = L.ones(3, requires_grad=True).exp()
        y += 1
        y.sum().backward()

    def relu_inplace():
        h = L.randn(3, requires_grad=True) * 2
        out = h.pow(2)
        h.relu_()
        out.sum().backward()

    def index_assign():
        y = L.ones(3, requires_grad=True) * 1
        z = y.pow(2)
        y[0] = 5
        z.sum().backward()

    def leaf_update():
        w = L.ones(2, requires_grad=True)
        w -= 0.1 * w

    def leaf_index():
        w = L.ones(4, requires_grad=True)
        w[0] = 2.0

    for fn in (saved_sigmoid, saved_exp, relu_inplace, index_assign, leaf_update, leaf_index):
        _err(rec, fn.__name__, fn)
    w = L.ones(2, requires_grad=True)
    y = (w * 3).sum()
    w.data.mul_(2)  # .data hides the change from autograd
    y.backward()
    rec("data_misuse.grad", w.grad)
    rec("data_misuse.w", _text(L, w))
    w = L.ones(2, requires_grad=True)
    (w * w).sum().backward()
    with L.no_grad():
        w -= 0.1 * w.grad
    w.grad.zero_()
    rec("manual_sgd", _text(L, (w, w.grad)))


@program
def student_grad_bugs(L, rec):
    w = L.tensor([1.0, 2.0], requires_grad=True)
    for _ in range(3):
        (w * w).sum().backward()  # no zero_grad: accumulates
    rec("accumulated", w.grad)
    m = L.nn.Linear(2, 1)
    opt = L.optim.SGD(m.parameters(), lr=0.1)
    m(L.ones(1, 2)).sum().backward()
    opt.zero_grad()
    rec("zero_grad_none", str(m.weight.grad))
    x = L.ones(2, requires_grad=True)
    h = x * 2
    h.sum().backward()
    rec.warns("nonleaf_grad", lambda: rec("nonleaf_grad.value", str(h.grad)))
    h = x * 2
    h.retain_grad()
    (h * h).sum().backward()
    rec("retain_grad", h.grad)

    def twice():
        y = L.ones(2, requires_grad=True).exp().sum()
        y.backward()
        y.backward()

    _err(rec, "backward_twice", twice)
    _err(rec, "numpy_requires_grad", lambda: (L.ones(2, requires_grad=True) * 2).numpy())
    _err(rec, "backward_nonscalar", lambda: (L.ones(2, requires_grad=True) * 2).backward())
    _err(rec, "backward_no_graph", lambda: L.ones(2).sum().backward())
    _err(rec, "int_requires_grad", lambda: L.tensor([1, 2], requires_grad=True))
    a, b = L.ones(2, requires_grad=True), L.ones(2, requires_grad=True)
    _err(rec, "grad_unused", lambda: L.autograd.grad((a * 2).sum(), [a, b]))
    rec("grad_allow_unused", _text(L, L.autograd.grad((a * 2).sum(), [a, b], allow_unused=True)))
    _err(rec, "item_of_vector", lambda: L.ones(2).item())
    _err(rec, "bool_of_vector", lambda: bool(L.ones(2) > 0))


@program
def student_shape_bugs(L, rec):
    F = L.nn.functional
    L.manual_seed(0)
    s = L.randn(4, 3)
    cases = {
        "matmul": lambda: L.ones(4, 3) @ L.ones(4, 5),
        "mm": lambda: L.mm(L.ones(4, 3), L.ones(4, 5)),
        "dot_1d": lambda: L.ones(3) @ L.ones(4),
        "bmm": lambda: L.bmm(L.ones(2, 3, 4), L.ones(3, 4, 5)),
        "view_noncontig": lambda: L.ones(2, 3).t().view(6),
        "view_size": lambda: L.ones(2, 3).view(4, 2),
        "reshape_size": lambda: L.ones(2, 3).reshape(-1, 4),
        "ce_float_target": lambda: F.cross_entropy(s, L.tensor([0.0, 1.0, 2.0, 1.0])),
        "ce_column_target": lambda: F.cross_entropy(s, L.tensor([[0], [1], [2], [1]])),
        "ce_out_of_range": lambda: F.cross_entropy(s, L.tensor([0, 1, 3, 1])),
        "ce_batch": lambda: F.cross_entropy(s, L.tensor([0, 1, 2])),
        "ce_onehot_long": lambda: F.cross_entropy(s, F.one_hot(L.tensor([0, 1, 2, 1]), 3)),
        "nll_int32": lambda: F.nll_loss(s, L.tensor([0, 1, 2, 1], dtype=L.int32)),
        "linear_in": lambda: L.nn.Linear(3, 4)(L.ones(2, 5)),
        "conv_channels": lambda: L.nn.Conv2d(3, 4, 3)(L.ones(2, 1, 8, 8)),
        "long_float_mm": lambda: L.ones(2, 2, dtype=L.long) @ L.ones(2, 2),
        "cat": lambda: L.cat([L.ones(2, 3), L.ones(3, 2)]),
        "stack": lambda: L.stack([L.ones(2), L.ones(3)]),
        "index": lambda: L.ones(2, 3)[2],
    }
    for n, fn in cases.items():
        _err(rec, n, fn)
    rec.warns("mse_broadcast", lambda: rec("mse", F.mse_loss(L.ones(4, 1), L.zeros(4))))
    rec("unbatched_conv", str(tuple(L.nn.Conv2d(3, 4, 3)(L.ones(3, 8, 8)).shape)))


# --- scaffold utilities ---


@program
def scaffold_unittest(L, rec):
    class T(unittest.TestCase):
        def setUp(self):
            L.manual_seed(0)
            self.x = L.randn(3)

        def test_equal(self):
            self.assertTrue(L.equal(self.x, self.x.clone()))

        def test_close(self):
            L.testing.assert_close(self.x * 1.0001, self.x)

        def test_false(self):
            self.assertTrue(L.equal(self.x, self.x + 1), "student output differs")

        def test_close_list(self):
            L.testing.assert_close(self.x.tolist(), [0.0, 0.0, 0.0], atol=0.5, rtol=0)

    result = unittest.TestResult()
    unittest.defaultTestLoader.loadTestsFromTestCase(T).run(result)
    rec("run", str(result.testsRun))
    for t, tb in result.failures + result.errors:
        last = tb.strip().splitlines()
        msg = "\n".join(last[last.index(next(s for s in last if s.startswith("AssertionError"))) :])
        rec(str(t).split(" ")[0], msg.replace("minitorch", "torch"))


@program
def scaffold_doctest_approx(L, rec):
    src = """
>>> import LIB as torch
>>> torch.tensor([1.0, 2.0]) * 2
tensor([2., 4.])
>>> x = torch.tensor([1.5], requires_grad=True)
>>> x * 2
tensor([3.], grad_fn=<MulBackward0>)
>>> torch.tensor([[1, 2], [3, 4]], dtype=torch.float64).sum(0)
tensor([4., 6.], dtype=torch.float64)
>>> torch.nn.Linear(2, 3)
Linear(in_features=2, out_features=3, bias=True)
>>> torch.tensor(3.14159)
tensor(3.1416)
>>> torch.arange(3.0).mean()
tensor(1.1)
"""
    test = doctest.DocTestParser().get_doctest(src.replace("LIB", L.__name__), {}, "t", None, 0)
    out = io.StringIO()
    runner = doctest.DocTestRunner(verbose=False)
    runner.run(test, out=out.write)
    rec("doctest", str((runner.failures, runner.tries)))
    got = out.getvalue().split("Got:")[-1].strip()
    rec("doctest.got", got)
    total = L.tensor([0.1, 0.2]).sum()
    rec("approx", str((total.item() == pytest.approx(0.3), total.item())))
    rec("approx_list", str(L.tensor([0.1, 0.2]).tolist() == pytest.approx([0.1, 0.2])))
    t0 = time.perf_counter()
    L.ones(10).sum()
    rec("perf_counter", str(isinstance(time.perf_counter() - t0, float)))


@program
def scaffold_tensor_reprs(L, rec):
    dtypes = (
        "float32",
        "float64",
        "float16",
        "bfloat16",
        "int8",
        "int32",
        "int64",
        "uint8",
        "bool",
    )
    for name in dtypes:
        dt = getattr(L, name)
        rec(
            "repr." + name,
            _text(
                L, (L.tensor([[1, 0], [3, 2]]).to(dt), L.tensor(5).to(dt), L.zeros(0, 2, dtype=dt))
            ),
        )
    x = L.tensor([1.5, -2.0], requires_grad=True)
    for n, t in (
        ("x", x),
        ("mul", x * 2),
        ("sum", x.sum()),
        ("mean", x.mean()),
        ("relu", x.relu()),
        ("mm", x @ x),
        ("view", x.view(2, 1)),
        ("index", x[0]),
        ("softmax", x.softmax(0)),
        ("max", x.max()),
        ("pow", x**2),
        ("double", x.double()),
    ):
        rec("grad_fn." + n, _text(L, t))
    L.manual_seed(0)
    rec("big", _text(L, (L.arange(2000), L.randn(30, 40), L.randn(3, 200, dtype=L.float64))))
    rec(
        "sci",
        _text(
            L,
            (
                L.tensor([1e-8, 1.0]),
                L.tensor([1e10, 1.0]),
                L.tensor([1.0, float("nan"), float("inf")]),
            ),
        ),
    )
    v = L.tensor([1.123456789, 1e-7, 2.5])
    try:
        L.set_printoptions(precision=2)
        rec("precision2", _text(L, v))
        L.set_printoptions(sci_mode=False)
        rec("sci_off", _text(L, v))
        L.set_printoptions(precision=6, sci_mode=True)
        rec("sci_on", _text(L, v))
        L.set_printoptions(threshold=5, edgeitems=1)
        rec("threshold", _text(L, L.arange(10)))
    finally:
        L.set_printoptions(profile="default")
    rec("default", _text(L, v))


def _two_layer(L):
    nn = L.nn

    class TwoLayerNet(nn.Module):
        def __init__(self, d_in=4, h=8, c=3):
            super().__init__()
            self.fc1 = nn.Linear(d_in, h)
            self.relu = nn.ReLU()
            self.fc2 = nn.Linear(h, c, bias=False)

        def forward(self, x):
            return self.fc2(self.relu(self.fc1(x)))

    return TwoLayerNet()


def _cnn(L):
    nn = L.nn
    return nn.Sequential(
        nn.Conv2d(3, 8, 3, padding=1),
        nn.BatchNorm2d(8),
        nn.ReLU(inplace=True),
        nn.MaxPool2d(2),
        nn.Conv2d(8, 16, kernel_size=(3, 5), stride=2, bias=False),
        nn.Dropout(0.25),
        nn.Flatten(),
        nn.Linear(16 * 3, 10),
        nn.LogSoftmax(dim=1),
    )


@program
def hidden_module_structure(L, rec):
    nn = L.nn
    for name, m in (("mlp", _two_layer(L)), ("cnn", _cnn(L))):
        rec(name + ".repr", _text(L, m))
        rec(name + ".params", str([(n, tuple(p.shape)) for n, p in m.named_parameters()]))
        rec(name + ".count", str(sum(p.numel() for p in m.parameters() if p.requires_grad)))
        rec(name + ".buffers", str([n for n, _ in m.named_buffers()]))
        rec(name + ".modules", str([n for n, _ in m.named_modules()]))
        rec(name + ".state", str(list(m.state_dict())))
    L.manual_seed(0)
    m = _cnn(L)
    checks = (
        isinstance(m[0], nn.Conv2d),
        isinstance(m[7], nn.Linear),
        isinstance(m[1], nn.modules.batchnorm._BatchNorm),
        sum(isinstance(c, nn.Conv2d) for c in m.modules()),
        m[4].kernel_size,
        m[4].stride,
        m[4].bias,
        m[3].kernel_size,
    )
    rec("checks", str(checks))
    L.manual_seed(0)
    out = m(L.randn(2, 3, 8, 20))
    rec("out", out)
    rec("out.repr", _text(L, out.shape))
    L.manual_seed(0)
    lin = nn.Linear(2, 2)
    rec(
        "param.repr", _text(L, (lin.weight, lin.bias, nn.Parameter(L.ones(2), requires_grad=False)))
    )


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_program_matches_torch(name):
    prog = PROGRAMS[name]
    want = run_program(prog, torch, keep_warnings=None)
    got = run_program(prog, mt)
    # num32: float32 finite differences with h=1e-2 magnify tanh's last-bit rounding
    assert_records_match(want, got, lambda n, v: 1e-4 if n == "num32" else 1e-6, rename=True)
