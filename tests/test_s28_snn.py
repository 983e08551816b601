"""Session 28 (helper snn): library fixes found by running spiking-network, Hebbian/STDP, Hopfield,
RBM and reservoir programs against torch 2.13; the values and messages below are torch's."""

from __future__ import annotations

import numpy as np
import pytest

import minitorch as mt

_BAD_P = (
    "Expected p_in >= 0 && p_in <= 1 to be true, but got false.  (Could this error message be "
    "improved?  If so, please report an enhancement request to PyTorch.)"
)
_GEN = "*, torch.Generator generator = None"


def _raises(exc, fn):
    with pytest.raises(exc) as info:
        fn()
    return str(info.value)


# --- bernoulli's p: a float (or a 0-d tensor read as one); a tensor p only for bernoulli_ ---


def test_bernoulli_tensor_p_is_no_overload():
    rates = mt.rand(4)
    msg = _raises(TypeError, lambda: mt.bernoulli(mt.zeros(4), rates))
    assert msg == (
        "bernoulli() received an invalid combination of arguments - got (Tensor, Tensor), but "
        f"expected one of:\n * (Tensor input, {_GEN}, Tensor out = None)\n"
        f" * (Tensor input, float p, {_GEN})\n"
    )
    msg = _raises(TypeError, lambda: mt.zeros(4).bernoulli(rates))
    assert msg == (
        "bernoulli() received an invalid combination of arguments - got (Tensor), but expected "
        f"one of:\n * ({_GEN})\n * (float p, {_GEN})\n"
    )
    msg = _raises(TypeError, lambda: mt.bernoulli(rates, rates, generator=mt.Generator()))
    assert "got (Tensor, Tensor, generator=torch._C.Generator)," in msg
    p = mt.tensor(0.5, requires_grad=True)  # a tensor that needs grad is no number
    assert "got (Tensor, Tensor)," in _raises(TypeError, lambda: mt.bernoulli(rates, p))
    assert "got (Tensor, numpy.ndarray)," in _raises(
        TypeError, lambda: mt.bernoulli(rates, np.array(0.5))
    )
    assert "got (Tensor, complex)," in _raises(TypeError, lambda: mt.bernoulli(rates, 0.5j))
    assert mt.zeros(4).bernoulli_(rates).shape == (4,)  # the in-place form takes a tensor
    # the overload with a float p has no out=
    out = mt.zeros(4)
    msg = _raises(TypeError, lambda: mt.bernoulli(rates, 0.5, out=out))
    assert "got (Tensor, float, out=Tensor)," in msg
    assert mt.bernoulli(rates, out=out) is out


def test_bernoulli_zero_dim_p_draws_as_the_float():
    mt.manual_seed(0)
    got = mt.bernoulli(mt.zeros(6, dtype=mt.float64), mt.tensor(0.5))
    assert got.tolist() == [0.0, 0.0, 1.0, 0.0, 0.0, 0.0]
    assert not got.requires_grad
    mt.manual_seed(0)
    assert mt.zeros(6).bernoulli(mt.tensor(0.5)).tolist() == [0.0, 0.0, 1.0, 0.0, 0.0, 0.0]


def test_numpy_scalars_are_float_arguments_of_the_fills():
    x = mt.zeros(3)
    assert x.bernoulli_(np.float32(1.0)).tolist() == [1.0, 1.0, 1.0]
    assert mt.bernoulli(x, np.int64(0)).tolist() == [0.0, 0.0, 0.0]
    for fill in (
        lambda: x.exponential_(np.float32(2.0)),
        lambda: x.uniform_(np.float32(0.0), np.int64(1)),
        lambda: x.normal_(np.float16(0.0), 1),
        lambda: x.geometric_(np.float32(0.5)),
    ):
        assert fill().shape == (3,)


# --- a bad probability or rate: torch's kernels have drawn for the elements before it ---


def _next_after(fn):
    mt.manual_seed(0)
    with pytest.raises(RuntimeError) as info:
        fn()
    return str(info.value), mt.rand(2).tolist()


def test_bernoulli_error_advances_the_generator():
    msg, nxt = _next_after(lambda: mt.bernoulli(mt.tensor([0.5, 0.2, 1.5], dtype=mt.float64)))
    assert msg == _BAD_P
    assert nxt == [0.30742281675338745, 0.6340786814689636]  # two float64 draws: four words
    _, nxt = _next_after(lambda: mt.zeros(3).bernoulli_(mt.tensor([0.5, 0.2, 1.5])))
    assert nxt == [0.08847743272781372, 0.13203048706054688]
    g = mt.Generator().manual_seed(5)
    mt.manual_seed(0)
    with pytest.raises(RuntimeError):
        mt.bernoulli(mt.tensor([0.5, float("nan")]), generator=g)
    assert mt.rand(1).tolist() == [0.49625658988952637]  # the global generator is untouched


def test_poisson_error_advances_the_generator():
    msg, nxt = _next_after(lambda: mt.poisson(mt.tensor([[3.0, 50.0], [-1.0, 1.0]])))
    assert msg == "invalid Poisson rate, expected rate to be non-negative"
    assert nxt == [0.16102945804595947, 0.28226858377456665]


def test_multinomial_with_replacement_error_advances_the_generator():
    w = mt.tensor([[0.5, 0.5], [0.2, 0.3], [0.0, 0.0]])
    msg, nxt = _next_after(lambda: mt.multinomial(w, 3, replacement=True))
    assert msg == "invalid multinomial distribution (sum of probabilities <= 0)"
    assert nxt == [0.022325754165649414, 0.16885894536972046]
    _, nxt = _next_after(lambda: mt.multinomial(mt.tensor([[0.5, 0.5], [0.0, 0.0]]), 1))
    assert nxt == [0.49625658988952637, 0.7682217955589294]  # checked before any draw


# --- addr's bool scalars, fill_diagonal_'s argument types ---


def test_addr_boolean_scalars_only_for_boolean_results():
    W, v = mt.zeros(3, 3), mt.ones(3)
    for kw, name in (({"beta": False}, "beta"), ({"alpha": True}, "alpha")):
        want = f"Boolean {name} only supported for Boolean results."
        assert _raises(RuntimeError, lambda kw=kw: W.addr(v, v, **kw)) == want
        assert _raises(RuntimeError, lambda kw=kw: W.addr_(v, v, **kw)) == want
    assert "Boolean beta" in _raises(RuntimeError, lambda: mt.addr(W, v, v, beta=mt.tensor(True)))
    L, lv = mt.ones(2, 2, dtype=mt.long), mt.ones(2, dtype=mt.long)
    assert "Boolean beta" in _raises(RuntimeError, lambda: L.addr(lv, lv, beta=True, alpha=1.5))
    assert "argument beta must not be a floating point number" in _raises(
        RuntimeError, lambda: L.addr(lv, lv, beta=1.5, alpha=True)
    )
    B, bv = mt.ones(2, 2, dtype=mt.bool), mt.ones(2, dtype=mt.bool)
    assert B.addr(bv, bv, beta=False).tolist() == [[True, True], [True, True]]
    assert "argument beta must not be a floating point number" in _raises(
        RuntimeError, lambda: B.addr(bv, bv, beta=0.5)
    )


def test_fill_diagonal_argument_types():
    W = mt.zeros(3, 3)
    head = "fill_diagonal_(): argument 'fill_value' (position 1) must be Number, not "
    assert _raises(TypeError, lambda: W.fill_diagonal_(mt.zeros(3))) == head + "Tensor"
    assert _raises(TypeError, lambda: W.fill_diagonal_(None)) == head + "NoneType"
    assert _raises(TypeError, lambda: W.fill_diagonal_(np.array(2.0))) == head + "numpy.ndarray"
    assert _raises(TypeError, lambda: W.fill_diagonal_(0, 1)) == (
        "fill_diagonal_(): argument 'wrap' (position 2) must be bool, not int"
    )
    assert _raises(TypeError, lambda: W.fill_diagonal_(0, wrap=np.bool_(True))) == (
        "fill_diagonal_(): argument 'wrap' must be bool, not numpy.bool"
    )
    assert W.fill_diagonal_(mt.tensor(2.0)).diagonal().tolist() == [2.0, 2.0, 2.0]
    assert W.fill_diagonal_(np.float32(3.0), True).diagonal().tolist() == [3.0, 3.0, 3.0]


# --- Tensor.__new__ builds the tensor (snnTorch's _SpikeTensor placeholder) ---


class _SpikeTensor(mt.Tensor):
    @staticmethod
    def __new__(cls, *args, init_flag=False, **kwargs):
        return super().__new__(cls, *args, **kwargs)

    def __init__(self, *args, init_flag=True):
        self.init_flag = init_flag  # Tensor.__init__ is not called: __new__ built the tensor


def test_subclass_new_builds_the_tensor():
    st = _SpikeTensor(init_flag=False)
    assert repr(st) == "_SpikeTensor([])"
    assert st.shape == (0,) and st.dtype is mt.float32 and st.init_flag is False
    assert type(st + mt.zeros(0)).__name__ == "_SpikeTensor"
    full = _SpikeTensor([1.0, 2.0], init_flag=True)
    assert full.tolist() == [1.0, 2.0] and full.init_flag is True
    assert type(mt.zeros_like(st)) is _SpikeTensor  # the default __torch_function__
    plain = mt.Tensor.__new__(mt.Tensor, [3.0])
    assert type(plain) is mt.Tensor and plain.tolist() == [3.0]
    assert mt.Tensor.__init__(mt.ones(2), 5) is None  # a no-op taking any arguments


def test_subclass_init_no_longer_rebuilds_the_tensor():
    class A(mt.Tensor):
        def __init__(self, data, flag=False):
            super().__init__()
            self.flag = flag

    assert A([1.0, 2.0]).tolist() == [1.0, 2.0]  # the data of __new__, not an empty tensor
    with pytest.raises(TypeError, match=r"new\(\) received an invalid combination"):
        A([1.0, 2.0], True)  # torch.Tensor.__new__ sees the extra argument too
