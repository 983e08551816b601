"""Small behaviours checked without torch: ranges near the float64 limit against exact rational
arithmetic, unsafe_split's gradients, var_mean's mean over non-finite
slices, version ordering, SDPBackend members, where's out= overload and arange's keywords."""

from __future__ import annotations

import warnings
from fractions import Fraction

import numpy as np
import pytest

import minitorch as mt
from minitorch.autograd import gradcheck, gradgradcheck
from minitorch.torch_version import TorchVersion


@pytest.mark.parametrize(
    "start,step,n",
    [(0.0, 2e300, 5), (1e300, 3.3e301, 7), (-1.5e307, 3.1e306, 6), (7e307, -2.9e307, 5)],
)
def test_arange_with_a_huge_step_rounds_once(start, step, n):
    # below 2 * 4 elements every value is the scalar tail's fma(step, i, start): rounded once
    got = mt.arange(start, start + step * (n - 0.5), step, dtype=mt.float64).numpy()
    want = [float(Fraction(start) + i * Fraction(step)) for i in range(n)]
    np.testing.assert_array_equal(got, want, err_msg=f"arange({start}, ..., {step})")


def test_linspace_with_an_overflowing_step():
    # (end - start) / 4 is inf: the first half counts up from start (-1e308 + 0 * inf is nan),
    # the second half down from end
    got = mt.linspace(-1e308, 1e308, 5, dtype=mt.float64).numpy()
    np.testing.assert_array_equal(got, [np.nan, np.inf, -np.inf, -np.inf, np.nan])


@pytest.mark.parametrize("op", ["unsafe_split", "unsafe_chunk", "unsafe_split_with_sizes"])
def test_unsafe_split_gradients(op):
    rng = np.random.default_rng(3)
    x = mt.tensor(rng.standard_normal((5, 4)), requires_grad=True)
    arg = [2, 3] if op == "unsafe_split_with_sizes" else 2
    weights = [mt.tensor(rng.standard_normal((5, 4))) for _ in range(3)]

    def f(x):
        pieces = getattr(mt, op)(x * 1.5, arg, 0)
        return sum((p * p * weights[i][: p.shape[0]]).sum() for i, p in enumerate(pieces))

    assert gradcheck(f, (x,))
    assert gradgradcheck(f, (x,))


@pytest.mark.parametrize(
    "row,mean",
    [
        ([1.0, 2.0, np.inf], np.inf),  # the last element is the one infinity
        ([1.0, 2.0, -np.inf], -np.inf),
        ([1.0, np.inf, 2.0], np.nan),  # inf + (2 - inf) / 3
        ([np.inf, np.inf], np.nan),
        ([np.inf], np.inf),
        ([np.nan, 1.0, np.inf], np.nan),
        ([1e308, 1e308, 1e308], 1e308),  # the sum overflows, the running mean does not
    ],
)
def test_var_mean_mean_as_a_running_mean(row, mean):
    x = mt.tensor(row, dtype=mt.float64)
    for fn in (mt.var_mean, mt.std_mean):
        for kw in ({}, {"dim": 0}, {"dim": 0, "keepdim": True}):
            got = fn(x, correction=0, **kw)[1].numpy().reshape(())
            np.testing.assert_allclose(got, mean, rtol=1e-15, err_msg=f"{fn.__name__}({row}, {kw})")
    # the plain mean is unchanged
    assert mt.mean(mt.tensor([1.0, np.inf, 2.0])).item() == np.inf


def test_var_mean_mean_per_slice():
    x = mt.tensor([[1.0, np.inf, 3.0], [4.0, 5.0, np.inf], [np.inf, 1.0, 2.0]])
    np.testing.assert_array_equal(mt.var_mean(x, dim=0)[1].numpy(), [np.inf, np.nan, np.nan])
    np.testing.assert_array_equal(mt.var_mean(x, dim=1)[1].numpy(), [np.nan, np.inf, np.nan])
    np.testing.assert_array_equal(mt.var_mean(x.t(), dim=1)[1].numpy(), [np.inf, np.nan, np.nan])


def test_version_ordering():
    ordered = [
        "0.9", "1.0.dev0", "1.0a1.dev2", "1.0a1", "1.0b2", "1.0rc1", "1.0", "1.0+abc",
        "1.0+abc.5", "1.0+5", "1.0.post1.dev0", "1.0.post1", "1.1", "1!0.1",
    ]  # fmt: skip
    for lo, hi in zip(ordered, ordered[1:], strict=False):
        assert TorchVersion(lo) < hi and TorchVersion(hi) > lo, (lo, hi)
    v = TorchVersion("0.1.0")
    assert v == "0.1" and v == (0, 1) and v >= [0, 1, 0] and v < "0.1.1" and v > "0.1rc1"
    assert v != "0.1"  # (!= is str's, as torch's)
    assert v > "" and v < "abc"  # no version: compared as strings
    with pytest.raises(TypeError, match="'>=' not supported between instances of 'TorchVersion'"):
        v >= 2  # noqa: B015
    assert isinstance(mt.__version__, TorchVersion) and mt.__version__ >= (0, 1)
    assert type(mt.version.__version__) is str


def test_sdp_backend_members_are_no_ints():
    B = mt.nn.attention.SDPBackend
    assert B.MATH != 0 and int(B.MATH) == 0 and int(B.ERROR) == -1
    assert [10, 11][B.FLASH_ATTENTION] == 11 and hash(B.CUDNN_ATTENTION) == hash(3)
    with pytest.raises(TypeError):
        B.MATH + 1  # noqa: B018
    assert mt.backends.cuda.SDPBackend is B


def test_where_out_overload_takes_tensors():
    x = mt.arange(4.0)
    with pytest.raises(
        TypeError, match=r"where\(\): argument 'other' \(position 3\) must be Tensor"
    ):
        mt.where(x > 1, x, 0.0, out=mt.empty(4))
    with pytest.raises(TypeError, match=r"argument 'input' \(position 2\) must be Tensor, not int"):
        mt.where(x > 1, 2, x, out=mt.empty(4))
    np.testing.assert_array_equal(mt.where(x > 1, x, 0.0).numpy(), [0, 0, 2, 3])


def test_arange_start_keyword_alone():
    with pytest.raises(
        TypeError, match='arange\\(\\) missing 1 required positional arguments: "end"'
    ):
        mt.arange(start=1)
    with pytest.raises(TypeError, match="invalid combination of arguments"):
        mt.arange(1, start=2)
    np.testing.assert_array_equal(mt.arange(start=1, end=4).numpy(), [1, 2, 3])
    np.testing.assert_array_equal(mt.arange(0, end=3, step=2).numpy(), [0, 2])


def test_half_casts_of_huge_numbers_do_not_warn():
    src = mt.tensor([1e300, 2.0], dtype=mt.float64)
    with warnings.catch_warnings(record=True) as caught:
        warnings.filterwarnings("always", append=True)  # (the library's own filter kept first)
        a = mt.zeros(2, dtype=mt.bfloat16) + 1e300
        b = mt.zeros(2, dtype=mt.bfloat16).copy_(src)
    assert [str(w.message) for w in caught] == []
    assert a.float().tolist() == [np.inf, np.inf] and b.float().tolist() == [np.inf, 2.0]
