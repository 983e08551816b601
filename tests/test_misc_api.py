"""minitorch/_misc_api.py: compile, cond, while_loop, frombuffer, binomial, get_device, to_dlpack,
the build queries and Tensor.resize_ / resize_as_."""

from __future__ import annotations

import numpy as np
import pytest

import minitorch as mt

# --- compile ---


def test_compile_wraps_the_model_as_torch():
    from minitorch._dynamo.eval_frame import OptimizedModule

    model = mt.nn.Linear(3, 2)
    for compiled in (
        mt.compile(model),
        mt.compile(model, fullgraph=True, dynamic=False, backend="eager"),
        mt.compile(model, options={"max_autotune": True}),
        mt.compile(mode="reduce-overhead")(model),
    ):
        assert isinstance(compiled, OptimizedModule) and compiled._orig_mod is model
    assert mt.compile(model, disable=True) is model


def test_compile_as_decorator_with_and_without_arguments():
    @mt.compile
    def double(x):
        return x * 2

    @mt.compile(mode="max-autotune", backend=lambda gm, inputs: gm)
    def triple(x):
        return x * 3

    assert double(mt.tensor(2.0)).item() == 4.0
    assert triple(mt.tensor(2.0)).item() == 6.0


def test_compile_checks_its_arguments():
    with pytest.raises(RuntimeError, match="Unrecognized mode=fast"):
        mt.compile(abs, mode="fast")
    with pytest.raises(RuntimeError, match="Either mode or options"):
        mt.compile(abs, mode="default", options={})
    with pytest.raises(RuntimeError, match="Invalid backend: 'nope'"):
        mt.compile(abs, backend="nope")
    with pytest.raises(AssertionError, match="A callable function is expected"):
        mt.compile(3)


# --- control flow ---


def test_cond_picks_a_branch(device):
    x = mt.tensor([1.0, 2.0], device=device)
    assert mt.cond(True, lambda a: a + 1, lambda a: a - 1, (x,)).tolist() == [2.0, 3.0]
    pred = mt.tensor(False, device=device)
    assert mt.cond(pred, lambda a: a + 1, lambda a: a - 1, [x]).tolist() == [0.0, 1.0]
    assert mt.cond(x.sum() > 2, lambda: "yes", lambda: "no") == "yes"


def test_cond_rejects_bad_predicates():
    with pytest.raises(RuntimeError, match="single-element tensor"):
        mt.cond(mt.tensor([True, False]), lambda: 1, lambda: 2)
    with pytest.raises(RuntimeError, match="Expected pred to be bool or tensor"):
        mt.cond("a", lambda: 1, lambda: 2)


def test_while_loop_runs_eagerly(device):
    i, s = mt.while_loop(
        lambda i, s: i < 3,
        lambda i, s: (i + 1, s * 2),
        (mt.tensor(0, device=device), mt.tensor(1.0, device=device)),
    )
    assert (i.item(), s.item()) == (3, 8.0)
    assert mt.while_loop(lambda i: i < 3, lambda i: i + 1, (mt.tensor(0),)).item() == 3
    never = (mt.tensor(5),)
    assert mt.while_loop(lambda i: i < 3, lambda i: i + 1, never) is never
    with pytest.raises(RuntimeError, match="carried_inputs must be a tuple"):
        mt.while_loop(lambda i: i < 3, lambda i: i + 1, mt.tensor(0))


# --- frombuffer ---


def test_frombuffer_shares_memory():
    buf = bytearray(np.arange(4, dtype=np.float32).tobytes())
    x = mt.frombuffer(buf, dtype=mt.float32)
    assert x.tolist() == [0.0, 1.0, 2.0, 3.0] and x.dtype == mt.float32
    x[0] = 7.0
    assert np.frombuffer(buf, np.float32)[0] == 7.0
    part = mt.frombuffer(buf, dtype=mt.float32, offset=4, count=2, requires_grad=True)
    assert part.tolist() == [1.0, 2.0] and part.requires_grad
    assert mt.frombuffer(bytearray(b"\x01\x02"), dtype=mt.uint8).tolist() == [1, 2]


def test_frombuffer_errors_and_read_only_warning():
    with pytest.raises(ValueError, match="multiple of element size"):
        mt.frombuffer(bytearray(10), dtype=mt.float32)
    with pytest.raises(ValueError, match="offset \\(12 bytes\\)"):
        mt.frombuffer(bytearray(8), dtype=mt.float32, offset=12)
    with pytest.raises(ValueError, match="requested buffer length"):
        mt.frombuffer(bytearray(8), dtype=mt.float32, count=3)
    with pytest.raises(ValueError, match="must not be 0"):
        mt.frombuffer(bytearray(0), dtype=mt.float32)
    with pytest.raises(ValueError, match="buffer protocol"):
        mt.frombuffer([1, 2], dtype=mt.float32)
    mt._settings._warned_once.discard("buffer_not_writable")  # torch warns once per process
    with pytest.warns(UserWarning, match="not writable"):
        assert mt.frombuffer(bytes(8), dtype=mt.float32).tolist() == [0.0, 0.0]


# --- binomial ---


def test_binomial_samples(device):
    mt.manual_seed(0)
    count = mt.full((4000,), 10.0, device=device)
    prob = mt.full((4000,), 0.3, device=device)
    x = mt.binomial(count, prob)
    assert x.dtype == mt.float32 and x.device == mt.device(device)
    assert 0 <= x.min().item() and x.max().item() <= 10
    assert abs(x.mean().item() - 3.0) < 0.1
    mt.manual_seed(0)
    assert mt.equal(mt.binomial(count, prob), x)  # the seeded generator


def test_binomial_edges_broadcast_and_errors():
    got = mt.binomial(mt.tensor([[0.0], [-1.0], [4.0]]), mt.tensor([0.5, 1.0, 1.5]))
    assert got.shape == (3, 3)
    assert got[:2].tolist() == [[0.0] * 3, [0.0] * 3]  # counts 0 and below give 0
    assert got[2, 1:].tolist() == [4.0, 4.0]  # p >= 1 gives the count
    c = mt.tensor([3.0], requires_grad=True)
    out = mt.binomial(c, mt.tensor([0.5]))
    with pytest.raises(RuntimeError, match="derivative for aten::binomial is not implemented"):
        out.sum().backward()
    with pytest.raises(ValueError, match="floating-point dtypes for count, got: Long"):
        mt.binomial(mt.tensor([3]), mt.tensor([0.5]))
    with pytest.raises(TypeError, match="argument 'prob'"):
        mt.binomial(mt.tensor([3.0]), 0.5)
    with pytest.raises(RuntimeError, match="dtype"):
        mt.binomial(mt.tensor([3.0]), mt.tensor([0.5], dtype=mt.float64))


# --- small queries ---


def test_queries_and_to_dlpack(device):
    assert mt.get_device(mt.zeros(2)) == -1
    assert mt.get_device(mt.zeros(2, device=device)) == mt.zeros(2, device=device).get_device()
    assert mt.is_vulkan_available() is False
    assert mt.compiled_with_cxx11_abi() is True
    x = mt.arange(3.0)
    assert mt.from_dlpack(mt.to_dlpack(x)).tolist() == [0.0, 1.0, 2.0]
    with pytest.raises(TypeError, match="get_device"):
        mt.get_device([1.0])


# --- resize_ ---


def test_resize_shrinks_grows_and_bumps_the_version(device):
    x = mt.arange(6.0, device=device)
    assert x.resize_(2, 3) is x and x.shape == (2, 3)
    version = x._version
    x.resize_(4)
    assert x.tolist() == [0.0, 1.0, 2.0, 3.0] and x._version == version + 1
    x.resize_((2, 4))
    assert x.shape == (2, 4) and x[0].tolist() == [0.0, 1.0, 2.0, 3.0]
    assert x.resize_as_(mt.zeros(3)).tolist() == [0.0, 1.0, 2.0]
    assert mt.zeros(2, 2).resize_(mt.Size([4])).shape == (4,)
    assert mt.zeros(0).resize_(3).shape == (3,)


def test_resize_of_a_contiguous_tensor_keeps_sharing_when_it_shrinks():
    a = np.arange(6.0)
    x = mt.from_numpy(a)
    x.resize_(2, 2)
    x[0, 0] = 9.0
    assert a[0] == 9.0


def test_resize_errors():
    with pytest.raises(RuntimeError, match="cannot resize variables that require grad"):
        mt.zeros(2, requires_grad=True).resize_(3)
    with pytest.raises(RuntimeError, match="cannot resize variables that require grad"):
        mt.zeros(2, requires_grad=True).resize_as_(mt.zeros(2))
    with pytest.raises(RuntimeError, match="negative dimension"):
        mt.zeros(2).resize_(-1)
    with pytest.raises(TypeError, match="tuple of ints"):
        mt.zeros(2).resize_(2, "a")
    with pytest.raises(TypeError, match="the_template"):
        mt.zeros(2).resize_as_([1, 2])


def test_legacy_api_pieces():
    import warnings

    import minitorch.utils.model_zoo as model_zoo  # old torchvision-style model files

    assert callable(model_zoo.load_url)
    x = mt.ones(2)
    with pytest.warns(UserWarning, match="volatile was removed"):
        assert x.volatile is False
    with pytest.warns(UserWarning, match="no effect"):
        x.volatile = True
    with pytest.warns(UserWarning, match="`nn.functional.upsample` is deprecated"):
        mt.nn.functional.upsample(mt.ones(1, 1, 2, 2), scale_factor=2)
    with pytest.raises(RuntimeError, match="masked_fill_ only supports boolean masks"):
        x[mt.tensor([1, 0], dtype=mt.uint8)] = 0.0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if not mt.cuda.is_available():
            with pytest.raises(TypeError, match="not available. Torch not compiled with CUDA"):
                mt.set_default_tensor_type(mt.cuda.FloatTensor)
            assert mt.zeros(1).device.type == "cpu"  # the default was left alone

    class Sq(mt.autograd.Function):
        @staticmethod
        def forward(ctx, t):
            ctx.save_for_backward(t)
            return t * t

        @staticmethod
        def backward(ctx, g):
            with pytest.warns(DeprecationWarning, match="saved_variables"):
                (t,) = ctx.saved_variables
            return 2 * t * g

    t = mt.tensor([1.0, 2.0], requires_grad=True)
    Sq.apply(t).sum().backward()
    assert t.grad.tolist() == [2.0, 4.0]
