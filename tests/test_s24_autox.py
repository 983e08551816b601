"""Session 24: a custom Function's jvp under forward AD, _raw_saved_* SavedTensor hooks, and
gradgradcheck's grad_outputs drawn from the global random stream. Expected values are torch
2.13's, obtained by running the same code with torch."""

import math

import pytest

import minitorch as torch
import minitorch.autograd.forward_ad as fwAD
from minitorch.autograd import Function


class ExpJvp(Function):  # the forward-mode AD tutorial's Function: forward and jvp only
    @staticmethod
    def forward(ctx, foo):
        result = torch.exp(foo)
        ctx.result = result
        return result

    @staticmethod
    def jvp(ctx, g_in):
        g_out = g_in * ctx.result
        del ctx.result
        return g_out


class MulSetup(Function):
    @staticmethod
    def forward(x, y):
        return x * y

    @staticmethod
    def setup_context(ctx, inputs, output):
        ctx.save_for_forward(*inputs)

    @staticmethod
    def jvp(ctx, gx, gy):
        x, y = ctx.saved_tensors
        return gx * y + x * gy


def _close(t, expected, tol=1e-12):
    assert t is not None
    got = t.tolist()
    assert len(got) == len(expected)
    assert all(abs(a - b) <= tol * max(1.0, abs(b)) for a, b in zip(got, expected, strict=True))


def test_custom_jvp_without_backward():
    p = torch.tensor([0.0, 1.0], dtype=torch.float64)
    with fwAD.dual_level():
        out = ExpJvp.apply(fwAD.make_dual(p, torch.tensor([1.0, 2.0], dtype=torch.float64)))
        primal, tangent = fwAD.unpack_dual(out)
        _close(tangent, [1.0, 2 * math.e])
        assert not primal.requires_grad and not tangent.requires_grad
        # composed with built-in ops: their tangents chain through the jvp's
        y = fwAD.unpack_dual(out.sin() * 2).tangent
        _close(y, [2 * math.cos(1.0), 4 * math.e * math.cos(math.e)])


def test_custom_jvp_primal_requires_grad():
    # torch: the tangent ctx.result * t has a grad_fn (ctx.result is the output, with history)
    p = torch.tensor([0.0, 1.0], dtype=torch.float64, requires_grad=True)
    with fwAD.dual_level():
        out = ExpJvp.apply(fwAD.make_dual(p, torch.ones(2, dtype=torch.float64)))
        tangent = fwAD.unpack_dual(out).tangent
        assert type(tangent.grad_fn).__name__ == "MulBackward0"
        _close(tangent, [1.0, math.e])
        y = fwAD.unpack_dual(out * 2 + out).tangent
        assert y.requires_grad
        _close(y, [3.0, 3 * math.e])


def test_custom_jvp_setup_context_and_zero_tangents():
    seen = []

    class Spy(MulSetup):
        @staticmethod
        def jvp(ctx, gx, gy):
            seen.append((gx.tolist(), gy.tolist()))
            return MulSetup.jvp(ctx, gx, gy)

    x = torch.tensor([1.0, 2.0], dtype=torch.float64)
    y = torch.tensor([3.0, 4.0], dtype=torch.float64)
    with fwAD.dual_level():
        dx = fwAD.make_dual(x, torch.tensor([1.0, 0.5], dtype=torch.float64))
        _close(fwAD.unpack_dual(Spy.apply(y, dx)).tangent, [3.0, 2.0])
        assert seen == [([0.0, 0.0], [1.0, 0.5])]  # an input without tangent: zeros
        assert fwAD.unpack_dual(Spy.apply(x, y)).tangent is None  # no tangent in: jvp not run
        assert len(seen) == 1
        t = fwAD.unpack_dual(MulSetup.apply(dx.exp(), dx).cos() + dx).tangent
        _close(t, [-1.2332386348900264, -8.383835140354737])
        with torch.no_grad():  # the jvp runs with grad mode off too
            _close(fwAD.unpack_dual(MulSetup.apply(dx, y)).tangent, [3.0, 2.0])


def test_custom_jvp_preferred_over_backward():
    class Both(Function):
        @staticmethod
        def forward(ctx, x):
            return x.exp()

        @staticmethod
        def jvp(ctx, g):
            return g * 2

        @staticmethod
        def backward(ctx, g):
            return g * 5

    p = torch.tensor([1.0, 2.0], requires_grad=True)
    with fwAD.dual_level():
        out = Both.apply(fwAD.make_dual(p, torch.tensor([1.0, 0.5])))
        assert fwAD.unpack_dual(out).tangent.tolist() == [2.0, 1.0]
        (out * 3).sum().backward()
    assert p.grad.tolist() == [15.0, 15.0]


def test_custom_jvp_errors():
    class NoJvp(Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def backward(ctx, g):
            return g * 2

    class TwoOut(Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2, x * 3

        @staticmethod
        def jvp(ctx, g):
            return g * 2

    class BadSize(Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def jvp(ctx, g):
            return g[:1]

    x = torch.tensor([1.0, 2.0])
    with fwAD.dual_level():
        dx = fwAD.make_dual(x, torch.tensor([1.0, 0.5]))
        with pytest.raises(NotImplementedError, match="You must implement the jvp function"):
            NoJvp.apply(dx)
        with pytest.raises(RuntimeError, match=r"invalid number of forward gradients \(expected 2"):
            TwoOut.apply(dx)
        with pytest.raises(RuntimeError, match=r"Tensor is of size \[2\] while the given forward"):
            BadSize.apply(dx)
        ExpJvp.apply(x)  # no dual input: no jvp needed
    assert NoJvp.apply(dx).tolist() == [2.0, 4.0]  # outside the level: no check


def test_gradcheck_forward_ad_of_jvp_only_function():
    torch.manual_seed(0)
    primal = torch.randn(3, 3, dtype=torch.double, requires_grad=True)
    assert torch.autograd.gradcheck(
        ExpJvp.apply,
        (primal,),
        check_forward_ad=True,
        check_backward_ad=False,
        check_undefined_grad=False,
        check_batched_grad=False,
    )


def test_raw_saved_register_hooks():
    calls = []
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    y = x.pow(2)
    raw = y.grad_fn._raw_saved_self
    assert y.grad_fn._raw_saved_self is raw
    assert type(raw).__name__ == "SavedTensor"

    def pack(t):
        calls.append(("pack", t.tolist(), t.requires_grad))
        return t * 1

    def unpack(t):
        calls.append(("unpack", t.tolist()))
        return t * 10

    raw.register_hooks(pack, unpack)
    assert calls == [("pack", [1.0, 2.0], False)]  # pack runs at once, on the data
    with pytest.raises(RuntimeError, match="whose hooks have already been set"):
        raw.register_hooks(pack, unpack)
    with pytest.raises(TypeError, match="incompatible function arguments"):
        raw.register_hooks(pack)
    y.sum().backward()
    assert calls[-1] == ("unpack", [1.0, 2.0])
    assert x.grad.tolist() == [20.0, 40.0]  # 2 * (10 x)
    with pytest.raises(RuntimeError, match="after it has been freed"):
        raw.register_hooks(pack, unpack)
    with pytest.raises(AttributeError, match="'MulBackward0' object has no attribute"):
        _ = (x * x).grad_fn._raw_saved_foo


def test_raw_saved_result_hooks():
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    w = x.exp()
    w.grad_fn._raw_saved_result.register_hooks(lambda t: 5, lambda obj: torch.ones(2))
    assert type(w.grad_fn._saved_result.grad_fn).__name__ == "ExpBackward0"
    w.sum().backward()
    assert x.grad.tolist() == [1.0, 1.0]


def test_gradgradcheck_draws_from_global_stream():
    torch.manual_seed(0)
    x = torch.rand(3, 3, requires_grad=True, dtype=torch.double)
    assert torch.autograd.gradgradcheck(lambda t: t**2, x)
    _close(torch.rand(2), [0.20812976360321045, 0.9297990202903748], 1e-7)
    torch.manual_seed(0)
    fn = lambda t: (t**2, t.sum())  # noqa: E731
    assert torch.autograd.gradgradcheck(fn, x, gen_non_contig_grad_outputs=True)
    _close(torch.rand(2), [0.7231091856956482, 0.7423362731933594], 1e-7)
