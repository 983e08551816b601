"""Edges of the random and factory API: RNG state bytes (no pickle), out=, scalar sampling, the
gradient of normal, memory formats of *_like, int-like sizes, pin_memory=, -0.0 fills, and the
error types torch raises."""

from __future__ import annotations

import builtins
import io
import math
import pickle
import struct
import warnings

import numpy as np
import pytest

import minitorch as mt


def _host(t):
    return t.detach().cpu().numpy()


# --- RNG state: an explicit binary record, never unpickled ---


class _Payload:
    """Unpickling this sets builtins._mtp: what a crafted checkpoint could run."""

    def __reduce__(self):
        return (exec, ("import builtins as b;b._mtp=1",))


def _as_state(data: bytes):
    return mt.tensor(list(data), dtype=mt.uint8)


@pytest.mark.parametrize("pad_to", [None, 64, 5056])
def test_set_rng_state_never_unpickles(pad_to):
    data = pickle.dumps(_Payload(), protocol=1)  # short enough for the 64-byte size
    if pad_to is not None:  # pickle ignores what follows STOP: fill the accepted sizes
        assert len(data) <= pad_to
        data = data + b"\0" * (pad_to - len(data))
    buf = io.BytesIO()
    mt.save({"rng_state": _as_state(data)}, buf)
    buf.seek(0)
    state = mt.load(buf, weights_only=True)["rng_state"]
    for setter in (mt.set_rng_state, mt.Generator().set_state):
        with pytest.raises(RuntimeError):
            setter(state)
    assert not hasattr(builtins, "_mtp"), "set_rng_state ran pickled code"


def test_rng_state_layout_and_round_trip():
    mt.manual_seed(123)
    mt.rand(3)
    state = mt.get_rng_state()
    # torch's CPUGeneratorImplState: seed, left, seeded, next, 624 words, ... (5056 bytes)
    assert state.dtype is mt.uint8 and tuple(state.shape) == (5056,)
    assert state.device.type == "cpu"
    data = bytes(_host(state))
    assert struct.unpack_from("<QiiQ", data) == (123, 622, 1, 3)  # torch's values
    a = _host(mt.rand(5))
    mt.manual_seed(7)
    buf = io.BytesIO()
    mt.save(state, buf)
    buf.seek(0)
    mt.set_rng_state(mt.load(buf, weights_only=True))
    assert mt.initial_seed() == 123
    np.testing.assert_array_equal(_host(mt.rand(5)), a, err_msg="state did not round-trip")
    # a generator carries the same bytes; 2-d views of them are read by element count, as torch
    g = mt.Generator().set_state(state.view(8, 632))
    np.testing.assert_array_equal(_host(mt.rand(5, generator=g)), a)


def test_rng_state_cached_normal_round_trips():
    g = mt.Generator().manual_seed(5)
    mt.randn(1, dtype=mt.float64, generator=g)  # keeps Box-Muller's second value
    st = g.get_state()
    data = bytes(_host(st))  # normal_y and normal_is_valid, as torch writes them
    assert struct.unpack_from("<d", data, 5024)[0] == -0.6038215878840039
    assert struct.unpack_from("<i", data, 5040)[0] == 1
    a = _host(mt.randn(3, dtype=mt.float64, generator=g))
    g.set_state(st)
    np.testing.assert_array_equal(_host(mt.randn(3, dtype=mt.float64, generator=g)), a)


def test_bad_rng_states_raise_runtime_error():
    good = bytes(_host(mt.get_rng_state()))
    # minitorch's older 64-byte PCG64 records are refused as any other size
    for data in (good[:64], b"", good + b"\0", good[:100] * 2, good[:5048]):
        with pytest.raises(
            RuntimeError,
            match=f"^Expected a CPUGeneratorImplState of size 5056 but found the input RNG state "
            f"size to be {len(data)}$",
        ):
            mt.set_rng_state(_as_state(data))
    unseeded = bytearray(good)
    unseeded[12] = 0
    with pytest.raises(RuntimeError, match="Invalid mt19937 state"):
        mt.set_rng_state(_as_state(bytes(unseeded)))
    with pytest.raises(TypeError, match="RNG state must be a torch.ByteTensor"):
        mt.set_rng_state(mt.zeros(5056))
    with pytest.raises(TypeError):
        mt.set_rng_state(list(good))


def _torch_like_state(seed: int, left: int = 1, seeded: int = 1, nxt: int = 0) -> bytes:
    """PyTorch's CPUGeneratorImplState layout (5056 bytes): seed, left, seeded, next, words..."""
    head = struct.pack("<QiiQ", seed, left, seeded, nxt)
    words = np.random.default_rng(seed).integers(0, 256, 5056 - len(head), dtype=np.uint8)
    return head + words.tobytes()


def test_a_pytorch_state_is_accepted_and_seeds_deterministically():
    data = _torch_like_state(42)
    mt.set_rng_state(_as_state(data))
    assert mt.initial_seed() == 42
    a = _host(mt.rand(4))
    mt.manual_seed(0)
    mt.set_rng_state(_as_state(data))
    np.testing.assert_array_equal(_host(mt.rand(4)), a, err_msg="same bytes, same stream")
    mt.set_rng_state(_as_state(_torch_like_state(43)))
    assert not np.array_equal(_host(mt.rand(4)), a)
    # after it, get_state is torch's record again, and fork_rng keeps the stream
    g = mt.Generator().set_state(_as_state(data))
    st = g.get_state()
    assert st.numel() == 5056
    b = _host(mt.rand(3, generator=g))
    g.set_state(st)
    np.testing.assert_array_equal(_host(mt.rand(3, generator=g)), b)
    mt.set_rng_state(_as_state(data))
    with mt.random.fork_rng():
        mt.rand(2)
    np.testing.assert_array_equal(_host(mt.rand(4)), a)
    for bad in (
        _torch_like_state(0, left=0),
        _torch_like_state(0, left=625),
        _torch_like_state(0, seeded=0),
        _torch_like_state(0, nxt=625),
    ):
        with pytest.raises(RuntimeError, match="Invalid mt19937 state"):
            mt.set_rng_state(_as_state(bad))


def test_generator_manual_seed_takes_ints_only():
    g = mt.Generator()
    for bad, name in ((1.5, "float"), ("3", "str"), (True, "bool"), (None, "NoneType")):
        with pytest.raises(RuntimeError, match=f"manual_seed expected a long, but got {name}"):
            g.manual_seed(bad)
    assert g.manual_seed(-1).initial_seed() == 2**64 - 1
    assert mt.manual_seed(1.5).initial_seed() == 1  # torch.manual_seed converts with int()
    mt.cuda.manual_seed(2.5)  # so does torch.cuda.manual_seed (a no-op without a GPU)


@pytest.mark.skipif(mt.cuda.is_available(), reason="needs a machine without CUDA")
def test_cuda_generator_without_cuda_raises():
    with pytest.raises(RuntimeError):
        mt.Generator(device="cuda")
    with pytest.raises(RuntimeError, match="META device type not an accelerator"):
        mt.Generator(device="meta")


# --- scalar-parameter sampling ---


def test_zero_dim_poisson_and_gamma_samples(device):
    for dt in (mt.float32, mt.float64):
        r = mt.poisson(mt.tensor(4.0, dtype=dt, device=device))
        assert r.shape == () and r.dtype is dt and float(r) >= 0
    assert float(mt.poisson(mt.tensor(0.0, device=device))) == 0.0


def test_scalar_distributions_sample():
    D = mt.distributions
    dists = [
        D.Poisson(3.0),
        D.Poisson(mt.tensor(3.0)),
        D.Gamma(mt.tensor(2.0), mt.tensor(1.0)),
        D.Gamma(2.0, 1.0),
        D.Chi2(mt.tensor(2.0)),
        D.StudentT(mt.tensor(2.0)),
        D.NegativeBinomial(mt.tensor(5.0), mt.tensor(0.3)),
        D.FisherSnedecor(mt.tensor(2.0), mt.tensor(3.0)),
        D.InverseGamma(mt.tensor(2.0), mt.tensor(3.0)),
        D.Beta(2.0, 3.0),
    ]
    for d in dists:
        s = d.sample()
        assert s.shape == () and s.dtype is mt.float32, type(d).__name__
        assert math.isfinite(float(s))
        if d.has_rsample:
            assert d.rsample().shape == ()
        assert d.sample((2,)).shape == (2,)


# --- out= of the samplers and eye ---


def test_samplers_fill_out_and_return_it():
    o = mt.zeros(2, 3)
    assert mt.rand(2, 3, out=o) is o
    assert (_host(o) > 0).all() and (_host(o) < 1).all()
    o = mt.zeros(2, 3)
    assert mt.randn(2, 3, out=o) is o and (_host(o) != 0).all()
    o = mt.zeros(4, dtype=mt.long)
    assert mt.randint(1, 5, (4,), out=o) is o and ((_host(o) >= 1) & (_host(o) < 5)).all()
    assert mt.randint(3, (4,), out=o) is o and (_host(o) < 3).all()
    o = mt.zeros(4, dtype=mt.long)
    assert mt.randperm(4, out=o) is o and sorted(_host(o).tolist()) == [0, 1, 2, 3]
    o = mt.zeros(3, 3)
    assert mt.eye(3, out=o) is o
    np.testing.assert_array_equal(_host(o), np.eye(3, dtype=np.float32))
    o = mt.zeros(3)
    assert mt.normal(mt.zeros(3), 1.0, out=o) is o and (_host(o) != 0).all()
    o = mt.zeros(3)
    assert mt.normal(0.0, 1.0, (3,), out=o) is o and (_host(o) != 0).all()
    o = mt.zeros(3, dtype=mt.float64)
    assert mt.rand(3, out=o) is o and o.dtype is mt.float64 and (_host(o) > 0).all()


def test_sampler_out_is_resized_and_checked():
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # torch's factories resize out= without a warning
        o = mt.zeros(2, 2)
        mt.rand(3, out=o)
        assert o.shape == (3,)
        o = mt.zeros(0)
        mt.eye(2, 3, out=o)
        np.testing.assert_array_equal(_host(o), np.eye(2, 3, dtype=np.float32))
    o = mt.zeros(5)
    with pytest.warns(UserWarning, match="resized"):  # normal of tensors is an op: it warns
        mt.normal(mt.zeros(3), mt.ones(3), out=o)
    assert o.shape == (3,)
    with pytest.raises(RuntimeError, match="dtype Double does not match dtype of out"):
        mt.rand(3, out=mt.zeros(3), dtype=mt.float64)
    with pytest.raises(NotImplementedError, match="check_uniform_bounds"):
        mt.rand(3, out=mt.zeros(3, dtype=mt.long))
    with pytest.raises(NotImplementedError, match="normal_kernel_cpu"):
        mt.normal(mt.zeros(3), 1.0, out=mt.zeros(3, dtype=mt.long))


def test_factory_out_refuses_a_leaf_that_requires_grad():
    msg = r"aten::{}\(\): functions with out=\.\.\. arguments don't support automatic"
    cases = [
        ("zeros", lambda w: mt.zeros(2, out=w)),
        ("ones", lambda w: mt.ones(2, out=w)),
        ("full", lambda w: mt.full((2,), 3.0, out=w)),
        ("eye", lambda w: mt.eye(2, out=w)),
        ("rand", lambda w: mt.rand(2, out=w)),
        ("randn", lambda w: mt.randn(2, out=w)),
        ("normal", lambda w: mt.normal(0.0, 1.0, (2,), out=w)),
    ]
    for name, f in cases:
        w = mt.ones(2, requires_grad=True)
        with pytest.raises(RuntimeError, match=msg.format(name)):
            f(w)
        np.testing.assert_array_equal(_host(w), np.ones(2), err_msg=name)
    w = mt.ones(2, requires_grad=True)
    with pytest.raises(RuntimeError, match="don't support automatic differentiation"):
        mt.normal(mt.zeros(2), 1.0, out=w)
    with mt.no_grad():
        assert mt.zeros(2, out=w) is w
    np.testing.assert_array_equal(_host(w), np.zeros(2))


# --- normal is not reparameterised ---


def test_normal_gradients_are_zero(device):
    mu = mt.zeros(3, requires_grad=True, device=device)
    sd = mt.ones(3, requires_grad=True, device=device)
    for out, name, inputs in (
        (mt.normal(mu, sd), "NormalBackward3", (mu, sd)),
        (mt.normal(mu, 2.0), "NormalBackward1", (mu,)),
        (mt.normal(0.0, sd), "NormalBackward2", (sd,)),
        (mt.normal(mu, mt.ones(1, 3, device=device)), "NormalBackward3", (mu,)),
    ):
        assert out.requires_grad and type(out.grad_fn).__name__ == name
        upstream = mt.randn(*out.shape, device=device)
        grads = mt.autograd.grad(out, inputs, upstream, create_graph=True)
        for g, x in zip(grads, inputs, strict=True):
            assert g.shape == x.shape and g.grad_fn is None
            np.testing.assert_array_equal(_host(g), np.zeros(x.shape, np.float32), err_msg=name)


# --- *_like memory formats, int-like sizes, pin_memory=, -0.0 ---


def test_random_like_keeps_the_memory_format():
    x = mt.zeros(2, 3, 4, 5).to(memory_format=mt.channels_last)
    for like in (mt.rand_like, mt.randn_like, lambda t: mt.randint_like(t, 5)):
        assert like(x).stride() == (60, 1, 15, 3)
        assert like(mt.zeros(3, 4).t()).stride() == (1, 4)
    for like in (mt.rand_like, mt.randn_like):
        y = like(mt.zeros(2, 3, 4, 5), memory_format=mt.channels_last)
        assert y.is_contiguous(memory_format=mt.channels_last)
        assert y.stride() == (60, 1, 15, 3)


def test_zero_dim_numpy_ints_are_sizes():
    n = np.array(3)
    assert mt.zeros(n, 2).shape == (3, 2)
    assert mt.zeros((n,)).shape == (3,)
    assert mt.randn(n).shape == (3,)
    assert mt.full((n,), 1.0).shape == (3,)
    assert mt.randint(5, (n,)).shape == (3,)
    assert mt.randint(n, (2,)).shape == (2,)
    assert sorted(_host(mt.randperm(n)).tolist()) == [0, 1, 2]
    assert mt.eye(n).shape == (3, 3) and mt.eye(2, np.array(4, np.int32)).shape == (2, 4)
    for bad in (np.array(3.0), np.array(True), np.array([3])):
        with pytest.raises(TypeError):
            mt.eye(bad)
        with pytest.raises(TypeError):
            mt.zeros((bad,))


def test_pin_memory_keyword_is_accepted():
    x = mt.ones(2)
    for f in (mt.zeros_like, mt.ones_like, mt.empty_like, mt.rand_like, mt.randn_like):
        assert f(x, pin_memory=False).shape == (2,)
    assert mt.full_like(x, 3.0, pin_memory=False).shape == (2,)
    assert mt.randint_like(x, 4, pin_memory=False).shape == (2,)
    assert mt.tril_indices(2, 2, pin_memory=False).shape == (2, 3)
    assert mt.triu_indices(2, 2, pin_memory=False).shape == (2, 3)
    for w in (mt.hann_window, mt.hamming_window, mt.blackman_window, mt.bartlett_window):
        assert w(3, pin_memory=False).shape == (3,)
    assert mt.kaiser_window(3, pin_memory=False).shape == (3,)


def test_full_keeps_negative_zero(device):
    for dt in (mt.float32, mt.float64, mt.float16, mt.bfloat16):
        for t in (
            mt.full((2,), -0.0, dtype=dt, device=device),
            mt.full_like(mt.ones(2, dtype=dt, device=device), -0.0),
            mt.ones(2, dtype=dt, device=device).new_full((2,), -0.0),
        ):
            assert np.signbit(_host(t.float())).all(), dt
    assert not np.signbit(_host(mt.full((2,), 0.0, device=device))).any()


# --- error types ---


def test_half_random_bounds():
    with pytest.raises(RuntimeError, match="to - 1 is out of bounds for c10::Half"):
        mt.zeros(2, dtype=mt.float16).random_(0, 70000)
    with pytest.raises(RuntimeError, match="to - 1 is out of bounds for c10::Half"):
        mt.zeros(2, dtype=mt.float16).random_(0, 65506)
    with pytest.raises(RuntimeError, match="from is out of bounds for c10::Half"):
        mt.zeros(2, dtype=mt.float16).random_(-65505, 0)
    with pytest.warns(UserWarning, match="precision"):  # representable: only torch's warning
        mt.zeros(2, dtype=mt.float16).random_(0, 65505)
    with pytest.warns(UserWarning, match="precision"):
        mt.zeros(2, dtype=mt.bfloat16).random_(0, 70000)


def test_fill_bounds_take_numbers_or_zero_dim_tensors():
    x = mt.zeros(3)
    with pytest.raises(TypeError, match=r"uniform_\(\): argument 'from' \(position 1\) must be"):
        x.uniform_(mt.zeros(3), mt.ones(3))
    with pytest.raises(TypeError, match=r"uniform_\(\): argument 'to' \(position 2\)"):
        x.uniform_(0.0, mt.ones(1))
    with pytest.raises(TypeError, match=r"normal_\(\): argument 'mean' \(position 1\)"):
        x.normal_(mt.zeros(1))
    with pytest.raises(TypeError, match=r"exponential_\(\): argument 'lambd' \(position 1\)"):
        x.exponential_(mt.ones(1))
    x.uniform_(mt.tensor(2.0), mt.tensor(3.0))
    assert ((_host(x) >= 2) & (_host(x) < 3)).all()


def test_empty_strided_size_errors():
    with pytest.raises(RuntimeError, match=r"negative dimension -3: \[2, -3\]"):
        mt.empty_strided((2, -3), (3, 1))
    with pytest.raises(RuntimeError, match=r"dimensionality of sizes \(2\) must match .* \(1\)"):
        mt.empty_strided((2, 3), (3,))
    assert mt.empty_strided(mt.Size([2, 3]), (1, 2)).stride() == (1, 2)


def test_normal_refuses_a_nan_std():
    with pytest.raises(RuntimeError, match="normal expects all elements of std >= 0.0"):
        mt.normal(mt.zeros(2), mt.tensor([1.0, float("nan")]))
