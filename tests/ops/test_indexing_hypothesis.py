"""Property tests for indexing: random shapes and keys; gradients are scatter-added upstream."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import minitorch as mt

hypothesis = pytest.importorskip("hypothesis")
st = hypothesis.strategies
given, settings = hypothesis.given, hypothesis.settings

SHAPES = st.lists(st.integers(1, 4), min_size=1, max_size=3).map(tuple)


@st.composite
def shape_and_key(draw):
    """A shape and a key mixing ints, slices, index lists (with duplicates), masks, None, ...."""
    shape = draw(SHAPES)
    key = []
    dim = 0
    used_ellipsis = False
    while dim < len(shape):
        n = shape[dim]
        kind = draw(st.sampled_from(["int", "slice", "list", "mask", "none", "ellipsis", "stop"]))
        if kind == "stop":
            break
        if kind == "int":
            key.append(draw(st.integers(-n, n - 1)))
        elif kind == "slice":
            start = draw(st.none() | st.integers(-n - 1, n + 1))
            stop = draw(st.none() | st.integers(-n - 1, n + 1))
            key.append(slice(start, stop, draw(st.none() | st.integers(1, 3))))
        elif kind == "list":
            size = draw(st.integers(0, 4)) if not key else draw(st.integers(1, 3))
            key.append(draw(st.lists(st.integers(-n, n - 1), min_size=size, max_size=size)))
            dim += 1
            continue
        elif kind == "mask":
            key.append(draw(st.lists(st.booleans(), min_size=n, max_size=n)))
        elif kind == "none":
            key.append(None)
            continue
        else:
            if used_ellipsis:
                continue
            used_ellipsis = True
            key.append(Ellipsis)
            break
        dim += 1
    return shape, tuple(key)


def _broadcastable(key) -> bool:
    """Whether the index lists and masks of `key` broadcast together (else torch raises)."""
    shapes = []
    for k in key:
        if isinstance(k, list):
            n = sum(k) if k and isinstance(k[0], bool) else len(k)
            shapes.append(n)
    return len({s for s in shapes if s != 1}) <= 1


@settings(max_examples=150, deadline=None)
@given(shape_and_key(), st.sampled_from(["cpu", "strict"]), st.integers(0, 2**31 - 1))
def test_getitem_gradient_is_scatter_added_upstream(case, device, seed):
    shape, key = case
    hypothesis.assume(_broadcastable(key))
    rng = np.random.default_rng(seed)
    a = rng.standard_normal(shape)
    iota = mt.arange(a.size, device=device).reshape(shape)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        positions = iota[key].cpu().numpy()
        x = mt.tensor(a, device=device, requires_grad=True)
        y = x[key]
    # forward: the gathered elements are the ones the key names
    np.testing.assert_array_equal(y.detach().cpu().numpy(), a.reshape(-1)[positions])
    w = rng.standard_normal(y.shape)
    (y * mt.tensor(w, device=device)).sum().backward()
    expected = np.zeros(a.size)
    np.add.at(expected, positions.reshape(-1), w.reshape(-1))
    np.testing.assert_allclose(
        x.grad.cpu().numpy(), expected.reshape(shape), rtol=1e-12, atol=1e-12, err_msg=repr(key)
    )


@settings(max_examples=150, deadline=None)
@given(shape_and_key())
def test_getitem_matches_torch(case):
    torch = pytest.importorskip("torch")
    shape, key = case
    a = np.arange(float(np.prod(shape))).reshape(shape)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            expected = torch.from_numpy(a)[key].numpy()
        except (IndexError, RuntimeError) as e:
            with pytest.raises(type(e)):
                mt.from_numpy(a)[key]
            return
        out = mt.from_numpy(a)[key]
    assert tuple(out.shape) == expected.shape
    np.testing.assert_array_equal(out.numpy(), expected)


@settings(max_examples=100, deadline=None)
@given(shape_and_key(), st.integers(0, 2**31 - 1))
def test_setitem_gradients(case, seed):
    """y = x; y[key] = v: grad_x is w with the written positions zeroed, grad_v gathers w."""
    shape, key = case
    hypothesis.assume(_broadcastable(key))
    rng = np.random.default_rng(seed)
    iota = mt.arange(int(np.prod(shape))).reshape(shape)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        positions = iota[key].numpy()
        x = mt.tensor(rng.standard_normal(shape), requires_grad=True)
        v = mt.tensor(rng.standard_normal(positions.shape), requires_grad=True)
        y = x * 1
        y[key] = v
    w = rng.standard_normal(shape)
    (y * mt.tensor(w)).sum().backward()
    gx = w.reshape(-1).copy()
    gx[positions.reshape(-1)] = 0
    np.testing.assert_allclose(x.grad.numpy(), gx.reshape(shape), err_msg=repr(key))
    np.testing.assert_allclose(v.grad.numpy(), w.reshape(-1)[positions], err_msg=repr(key))
