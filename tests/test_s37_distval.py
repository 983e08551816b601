"""Session 37 (helper distval): torch-free regression tests of the library fixes that the
distribution-validation programs of tests/reference/test_s37_distval_reference.py found:
register_kl of a non-class fails inside issubclass with Python's own TypeError, as torch's
test does; CatTransform/StackTransform refuse a non-Transform with torch's AssertionError
text. torch's messages are written here as literals."""

from __future__ import annotations

import pytest

import minitorch as mt

D = mt.distributions
T = D.transforms


@pytest.mark.parametrize("args", [(5, D.Normal), (D.Normal, 5), (D.Normal, D.Normal(0.0, 1.0))])
def test_register_kl_of_a_non_class(args):
    with pytest.raises(TypeError) as info:
        D.kl.register_kl(*args)
    assert str(info.value) == "issubclass() arg 1 must be a class"


def test_register_kl_of_distribution_classes_still_registers():
    class Mine(D.Normal):
        pass

    @D.kl.register_kl(Mine, Mine)
    def _kl(p, q):
        return mt.tensor(7.0)

    assert float(D.kl_divergence(Mine(0.0, 1.0), Mine(1.0, 1.0))) == 7.0


@pytest.mark.parametrize("make", [
    lambda: T.CatTransform([T.ExpTransform(), 5], 0),
    lambda: T.StackTransform([T.ExpTransform(), "exp"], 0),
])  # fmt: skip
def test_join_transforms_refuse_a_non_transform(make):
    with pytest.raises(AssertionError) as info:
        make()
    assert str(info.value) == "All elements of tseq must be Transform instances"


def test_join_transforms_take_a_tuple():
    t = T.StackTransform((T.ExpTransform(), T.AffineTransform(0.0, 2.0)), 0)
    y = t(mt.tensor([[0.0, 1.0], [1.0, 2.0]], dtype=mt.float64))
    assert y.tolist() == [[1.0, mt.tensor(1.0, dtype=mt.float64).exp().item()], [2.0, 4.0]]


class _Doubling(T.Transform):
    """A user's transform that forgets domain and codomain."""

    bijective = True

    def _call(self, x):
        return x * 2

    def _inverse(self, y):
        return y / 2


@pytest.mark.parametrize("read, attr", [
    (lambda t: t.domain, "domain"),
    (lambda t: t.event_dim, "domain"),
    (lambda t: t.inv.domain, "codomain"),
    (lambda t: T.ComposeTransform([t, T.ExpTransform()]).domain, "domain"),
    (lambda t: D.TransformedDistribution(D.Normal(0.0, 1.0), [t]), "domain"),
])  # fmt: skip
def test_transform_without_domain_fails_on_reading_it(read, attr):
    t = _Doubling()
    assert t(mt.ones(2)).tolist() == [2.0, 2.0]  # calling it needs no domain
    with pytest.raises(AttributeError) as info:
        read(t)
    assert str(info.value) == f"'_Doubling' object has no attribute '{attr}'"


def test_transform_state_has_the_cache_slot_only_when_caching():
    assert T.ExpTransform().__getstate__() == {"_cache_size": 0, "_inv": None}
    state = T.ExpTransform(cache_size=1).__getstate__()
    assert list(state) == ["_cache_size", "_inv", "_cached_x_y"]
    assert state["_cached_x_y"] == (None, None)
    with pytest.raises(ValueError, match="^cache_size must be 0 or 1$"):
        T.ExpTransform(cache_size=2)
