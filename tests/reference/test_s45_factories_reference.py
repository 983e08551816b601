"""Session 45 (helper factories): the plain calls of the random and range factories and of
dropout (the calls users write most: rand(3, 4), randn(2, 3, dtype=float64, requires_grad=True),
randint(0, 10, (3, 4)), randperm(n), normal(0., 1., size), linspace/logspace/arange of Python
numbers, F.dropout of a contiguous float tensor) give torch's values bit for bit after the same
manual_seed, and the same next draws (the generator left in torch's state)."""

import numpy as np
import pytest

import minitorch as mt
from tests.reference._one_thread import one_torch_thread  # noqa: F401

torch = pytest.importorskip("torch")


def _calls(lib):
    return [
        lambda: lib.rand(3, 4),
        lambda: lib.rand((2, 5), dtype=lib.float64),
        lambda: lib.randn(3, 4),
        lambda: lib.randn(17),
        lambda: lib.randn(2, 3, dtype=lib.float64, requires_grad=True),
        lambda: lib.randn(1),
        lambda: lib.randint(0, 10, (3, 4)),
        lambda: lib.randint(7, (5,)),
        lambda: lib.randint(-(2**40), 2**40, [3]),
        lambda: lib.randperm(10),
        lambda: lib.randperm(1),
        lambda: lib.normal(0.0, 1.0, (3, 4)),
        lambda: lib.normal(2, 0.5, (20,)),
        lambda: lib.linspace(0, 1, 100),
        lambda: lib.linspace(0, 1, 3, dtype=lib.float64),
        lambda: lib.linspace(-2.5, 7.1, 33, dtype=lib.float64),
        lambda: lib.linspace(3, -1.3, 70),
        lambda: lib.logspace(0, 1, 10),
        lambda: lib.logspace(-3, 2.5, 9, base=2.0, dtype=lib.float64),
        lambda: lib.arange(0, 1, 0.1),
        lambda: lib.arange(-1.5, 20.25, 0.37, dtype=lib.float64),
        lambda: lib.arange(0.5, 100),
    ]


def _np(t):
    return t.detach().numpy()


@pytest.mark.parametrize("i", range(len(_calls(mt))))
def test_plain_factory_calls_match_torch(i):
    for seed in (0, 123):
        mt.manual_seed(seed)
        torch.manual_seed(seed)
        a, b = _calls(mt)[i](), _calls(torch)[i]()
        assert str(a.dtype) == str(b.dtype) and tuple(a.shape) == tuple(b.shape)
        assert a.requires_grad == b.requires_grad
        np.testing.assert_array_equal(_np(a), _np(b), err_msg=f"call {i}, seed {seed}")
        assert _np(a).tobytes() == _np(b).tobytes()
        np.testing.assert_array_equal(_np(mt.rand(4)), _np(torch.rand(4)), err_msg="next draw")


@pytest.mark.parametrize("dtype", ("float32", "float64"))
# (p = 0.45 and 0.15: float32(1) / float32(1 - p) is one ulp from float32(1 / (1 - p)), the
# scale minitorch used before session 45: NOTE [ dropout's scale ])
@pytest.mark.parametrize("p", (0.1, 0.15, 0.3, 0.45, 0.8))
def test_plain_dropout_matches_torch(dtype, p):
    x = np.random.default_rng(0).standard_normal((4, 6)).astype(dtype)
    for seed in (0, 9):
        mt.manual_seed(seed)
        torch.manual_seed(seed)
        xa = mt.tensor(x, requires_grad=True)
        xb = torch.tensor(x, requires_grad=True)
        a = mt.nn.functional.dropout(xa, p)
        b = torch.nn.functional.dropout(xb, p)
        assert _np(a).tobytes() == _np(b).tobytes()
        g = np.random.default_rng(1).standard_normal((4, 6)).astype(dtype)
        a.backward(mt.tensor(g))
        b.backward(torch.tensor(g))
        assert _np(xa.grad).tobytes() == _np(xb.grad).tobytes()
        with mt.no_grad(), torch.no_grad():
            a = mt.nn.functional.dropout(mt.tensor(x), p)
            b = torch.nn.functional.dropout(torch.tensor(x), p)
        assert _np(a).tobytes() == _np(b).tobytes()
        np.testing.assert_array_equal(_np(mt.rand(4)), _np(torch.rand(4)), err_msg="next draw")
