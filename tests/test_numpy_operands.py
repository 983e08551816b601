"""NumPy arrays (and lists) where torch's operators and functions take a Tensor: `tensor ** array`
and the in-place operators follow NumPy's promotion; losses, one_hot and pow refuse them."""

from __future__ import annotations

import numpy as np
import pytest

import minitorch
import minitorch.nn.functional as F


def test_pow_operator_with_array_promotes_like_numpy():
    t = minitorch.tensor([1.0, 2.0])
    for arr, dt in [
        (np.array([2.0, 4.0], dtype=np.float32), minitorch.float32),
        (np.array([2.0, 4.0]), minitorch.float64),
        (np.array([2, 4]), minitorch.float64),
    ]:
        r = t**arr
        assert r.dtype is dt
        np.testing.assert_allclose(r.numpy(), [1.0, 16.0], err_msg=str(arr.dtype))
    r = minitorch.tensor([2, 3]) ** np.array([2, 2])
    assert r.dtype is minitorch.int64 and r.tolist() == [4, 9]
    r = t ** np.array(2.0)  # a 0-d array promotes too (NumPy's rule, not a weak scalar)
    assert r.dtype is minitorch.float64 and r.tolist() == [1.0, 4.0]
    assert (t ** np.float64(2)).dtype is minitorch.float32  # a NumPy scalar stays weak


def test_pow_operator_with_array_gradient():
    x = minitorch.tensor([1.5, 2.0, 3.0], dtype=minitorch.float64, requires_grad=True)
    e = np.array([2.0, 0.5, 3.0])
    assert minitorch.autograd.gradcheck(lambda x: x**e, (x,))
    assert minitorch.autograd.gradgradcheck(lambda x: x**e, (x,))


def test_pow_function_refuses_array():
    t = minitorch.ones(2)
    for call in (
        lambda: minitorch.pow(t, np.ones(2)),
        lambda: minitorch.pow(np.ones(2), t),
        lambda: t.pow(np.array(2.0)),
        lambda: t.pow_(np.ones(2)),
    ):
        with pytest.raises(TypeError, match=r"pow_?\(\) received an invalid combination"):
            call()


@pytest.mark.parametrize(
    "op, expected",
    [
        ("+=", [5.0, 7.0]),
        ("-=", [3.0, 3.0]),
        ("*=", [4.0, 10.0]),
        ("/=", [4.0, 2.5]),
        ("//=", [4.0, 2.0]),
        ("%=", [0.0, 1.0]),
        ("**=", [4.0, 25.0]),
    ],
)
def test_inplace_operator_with_array_rebinds(op, expected):
    for arr, dt in [
        (np.array([1.0, 2.0]), minitorch.float64),
        (np.array([1.0, 2.0], dtype=np.float32), minitorch.float32),
    ]:
        x = minitorch.tensor([4.0, 5.0])
        alias = x
        scope = {"x": x, "arr": arr}
        exec(f"x {op} arr", scope)
        x = scope["x"]
        assert x is not alias, op  # a new tensor: x = x op arr
        assert x.dtype is dt, op
        np.testing.assert_allclose(x.numpy(), expected, err_msg=op)
        assert alias.tolist() == [4.0, 5.0], op


def test_inplace_operator_int_tensor_with_float_array():
    i = minitorch.tensor([1, 2])
    i += np.array([0.5, 0.5])
    assert i.dtype is minitorch.float64 and i.tolist() == [1.5, 2.5]
    j = minitorch.tensor([4, 5])
    j /= np.array([2, 2])
    assert j.dtype is minitorch.float64 and j.tolist() == [2.0, 2.5]
    m = minitorch.zeros(2)
    alias = m
    m *= np.float64(2.0)  # a NumPy scalar is a number: still in place
    assert m is alias and m.dtype is minitorch.float32


def _raises(exc, text, fn):
    with pytest.raises(exc) as info:
        fn()
    assert str(info.value) == text


def test_losses_refuse_arrays_and_lists():
    logits = minitorch.zeros(2, 3)
    y = np.array([0, 1])
    ce = "cross_entropy_loss(): argument '{}' (position {}) must be Tensor, not {}"
    _raises(TypeError, ce.format("target", 2, "numpy.ndarray"), lambda: F.cross_entropy(logits, y))
    _raises(TypeError, ce.format("target", 2, "list"), lambda: F.cross_entropy(logits, [0, 1]))
    _raises(
        TypeError,
        ce.format("input", 1, "numpy.ndarray"),
        lambda: F.cross_entropy(logits.numpy(), minitorch.tensor([0, 1])),
    )
    _raises(
        TypeError,
        ce.format("weight", 3, "numpy.ndarray"),
        lambda: F.cross_entropy(logits, minitorch.tensor([0, 1]), weight=np.ones(3, np.float32)),
    )
    _raises(
        TypeError,
        ce.format("target", 2, "numpy.ndarray"),
        lambda: minitorch.nn.CrossEntropyLoss()(logits, y),
    )
    _raises(
        TypeError,
        "nll_loss_nd(): argument 'target' (position 2) must be Tensor, not numpy.ndarray",
        lambda: F.nll_loss(logits, y),
    )
    one = minitorch.ones(2)
    arr = np.ones(2, np.float32)
    for name, fn in [
        ("mse_loss", F.mse_loss),
        ("l1_loss", F.l1_loss),
        ("smooth_l1_loss", F.smooth_l1_loss),
        ("huber_loss", F.huber_loss),
        ("binary_cross_entropy", F.binary_cross_entropy),
    ]:
        text = f"{name}(): argument 'target' (position 2) must be Tensor, not numpy.ndarray"
        _raises(TypeError, text, lambda fn=fn: fn(one * 0.5, arr))
        # torch reads target.size() first: an AttributeError for a list
        _raises(
            AttributeError, "'list' object has no attribute 'size'", lambda fn=fn: fn(one, [1.0])
        )


def test_losses_still_accept_tensors():
    out = F.cross_entropy(minitorch.zeros(2, 3), minitorch.tensor([0, 1]))
    np.testing.assert_allclose(out.item(), np.log(3.0), rtol=1e-6)
    out = F.mse_loss(minitorch.ones(2), minitorch.zeros(2))
    assert out.item() == 1.0


def test_one_hot_refuses_array():
    _raises(
        TypeError,
        "one_hot(): argument 'input' (position 1) must be Tensor, not numpy.ndarray",
        lambda: F.one_hot(np.array([0, 1])),
    )
    _raises(
        RuntimeError,
        "one_hot is only applicable to index tensor of type LongTensor.",
        lambda: F.one_hot(minitorch.tensor([0.0])),
    )


def test_embedding_bag_argument_checks():
    w = minitorch.ones(8, 4)
    idx = minitorch.tensor([1, 7])
    for p in (8, -9):
        _raises(
            RuntimeError,
            f"padding_idx must be within the number of embeddings, -8 through 7, but got {p}",
            lambda p=p: F.embedding_bag(idx, w, minitorch.tensor([0]), padding_idx=p),
        )
    assert F.embedding_bag(idx, w, minitorch.tensor([0]), padding_idx=-1).tolist() == [[1.0] * 4]
    _raises(
        RuntimeError,
        "Expected tensor for argument #1 'indices' to have one of the following scalar types: "
        "Long, Int; but got torch.FloatTensor instead (while checking arguments for "
        "embedding_bag)",
        lambda: F.embedding_bag(minitorch.tensor([1, 2, 3]), w, minitorch.tensor([0.0, 2.0])),
    )
    with pytest.raises(NotImplementedError, match="only supported for mode='sum'"):
        F.embedding_bag(
            idx, w, minitorch.tensor([0]), mode="mean",
            per_sample_weights=minitorch.ones(2, dtype=minitorch.float64),
        )  # fmt: skip
    with pytest.raises(RuntimeError, match="to have the same type"):
        F.embedding_bag(
            idx, w, minitorch.tensor([0]), mode="sum",
            per_sample_weights=minitorch.ones(2, dtype=minitorch.float64),
        )  # fmt: skip


def test_where_refuses_a_non_tensor_condition():
    cond = np.array([True, False])
    with pytest.raises(TypeError, match=r"got \(numpy.ndarray, Tensor, float\)"):
        minitorch.where(cond, minitorch.ones(2), 0.0)
    with pytest.raises(TypeError, match="argument 'condition' \\(position 1\\) must be Tensor"):
        minitorch.where(cond)

