"""Session 34 (helper mcmc): torch-free regression tests of the library fixes the MCMC and
particle-method programs of tests/reference/test_s34_mcmc_reference.py found: autograd.grad and
autograd.backward read a None outputs / inputs / tensors argument with tuple(), torch's
TypeError (outputs before inputs); vmap(randomness='error') refuses draws from a Generator
passed explicitly before they happen, and vmap(randomness='same') replays such a generator for
every sample. torch's messages are written here as literals."""

from __future__ import annotations

import pytest

import minitorch as mt

NONE_ITER = "'NoneType' object is not iterable"


def _message(exc_type, fn):
    with pytest.raises(exc_type) as info:
        fn()
    return str(info.value)


def _energy():
    q = mt.randn(3, 2, generator=mt.Generator().manual_seed(0), dtype=mt.float64)
    q.requires_grad_()
    return q, (q**2).sum()


@pytest.mark.parametrize(
    "call",
    [
        lambda q, u: mt.autograd.grad(None, q),
        lambda q, u: mt.autograd.grad(u, None),
        lambda q, u: mt.autograd.grad(None, {"q": q}),
        lambda q, u: mt.autograd.grad(None, None, allow_unused=True),
        lambda q, u: mt.autograd.grad(
            u, None, grad_outputs=mt.ones(2, dtype=mt.float64), is_grads_batched=True
        ),  # fmt: skip
        lambda q, u: mt.autograd.grad(None, q, is_grads_batched=True),
        lambda q, u: mt.autograd.backward(None),
        lambda q, u: mt.autograd.backward(None, inputs=[q]),
    ],
)
def test_grad_and_backward_of_none_are_torchs_type_error(call):
    # torch reads outputs (then inputs) with tuple(): None there was read as "no tensors" (an
    # empty-inputs RuntimeError, an unused-input RuntimeError, an IndexError, or for
    # autograd.backward(None) no error at all, a silent no-op)
    q, u = _energy()
    assert _message(TypeError, lambda: call(q, u)) == NONE_ITER
    assert q.grad is None


def test_grad_reads_outputs_before_inputs():
    q, u = _energy()
    # a non-iterable output is reported before a missing input, as torch's tuple(outputs) comes
    # first
    assert _message(TypeError, lambda: mt.autograd.grad(1.5, None)) == (
        "'float' object is not iterable"
    )
    # the ordinary forms still work: a tensor, a list, a dict of inputs; backward's inputs=None
    (g,) = mt.autograd.grad(u, q, retain_graph=True)
    assert mt.equal(g, 2 * q.detach())
    gd = mt.autograd.grad([u], {"q": q}, retain_graph=True)
    assert list(gd) == ["q"] and mt.equal(gd["q"], g)
    mt.autograd.backward(u, inputs=None)
    assert mt.equal(q.grad, g)


VMAP_RANDOM = (
    "vmap: called random operation while in randomness error mode. Please either use the 'same' "
    "or 'different' randomness flags on vmap or perform the randomness operation out of vmap"
)


def test_vmap_error_mode_refuses_a_generator_passed_explicitly():
    g = mt.Generator().manual_seed(0)
    x = mt.zeros(3, 2, dtype=mt.float64)
    before = g.get_state()

    def step(z):
        return z + mt.randn(2, generator=g, dtype=mt.float64)

    assert _message(RuntimeError, lambda: mt.func.vmap(step)(x)) == VMAP_RANDOM
    # refused before the draw: the generator did not move
    assert mt.equal(g.get_state(), before)
    # an inner 'different' vmap inside an outer 'error' one is refused too, and the mode is
    # lifted once vmap returns
    inner = mt.func.vmap(step, randomness="different")
    assert _message(RuntimeError, lambda: mt.func.vmap(inner)(x[None])) == VMAP_RANDOM
    assert mt.randn(2, generator=g, dtype=mt.float64).shape == (2,)


def test_vmap_same_mode_replays_a_generator_passed_explicitly():
    g = mt.Generator().manual_seed(0)
    x = mt.arange(6, dtype=mt.float64).view(3, 2)
    out = mt.func.vmap(lambda z: z + mt.randn(2, generator=g, dtype=mt.float64), randomness="same")(
        x
    )
    # torch draws once for the batch: every chain gets N(0, 1) draws 1-2 of seed 0 and the
    # generator moves on by those two only
    ref = mt.Generator().manual_seed(0)
    first = mt.randn(2, generator=ref, dtype=mt.float64)
    assert mt.equal(out, x + first)
    assert mt.equal(
        mt.randn(2, generator=g, dtype=mt.float64), mt.randn(2, generator=ref, dtype=mt.float64)
    )
    # a nested 'same' inside 'same': one draw for all six entries
    g.manual_seed(0)
    inner = mt.func.vmap(
        lambda z: z + mt.rand((), generator=g, dtype=mt.float64), randomness="same"
    )
    out = mt.func.vmap(inner, randomness="same")(mt.zeros(2, 3, dtype=mt.float64))
    assert mt.equal(out, mt.full((2, 3), out[0, 0].item(), dtype=mt.float64))


def test_vmap_randomness_modes_are_per_thread():
    # torch's vmap levels belong to the thread that entered them: a draw on another thread,
    # started inside func, is not refused
    import threading

    g = mt.Generator().manual_seed(0)
    drawn = []

    def step(z):
        th = threading.Thread(target=lambda: drawn.append(mt.rand(2, generator=g)))
        th.start()
        th.join()
        return z + 1

    out = mt.func.vmap(step)(mt.zeros(3, 2))
    assert mt.equal(out, mt.ones(3, 2)) and len(drawn) == 3
