"""Session 37 (helper quantreg): torch-free regression tests of the library fixes the quantile
programs of tests/reference/test_s37_quantreg_reference.py found: quantile's and nanquantile's
out= joining the graph (torch's composite resize_ + copy_, grad_fn CopyBackwards) and their
checks of q's and out's devices; the whole-tensor median's node taking its input directly and
saving self and result; the _saved_dim/_saved_keepdim/_saved_indices/_saved_self_sym_sizes of
the median, nanmedian and mode nodes along a dim; quantile's interpolation= and searchsorted's
side= taking a str subclass (numpy.str_). torch's messages are written here as literals."""

from __future__ import annotations

import numpy as np
import pytest

import minitorch as mt

STALE = (
    "one of the variables needed for gradient computation has been modified by an inplace "
    "operation: [torch.DoubleTensor [3, 4]] is at version 1; expected version 0 instead."
)


def _x(*shape, seed=0):
    return mt.randn(*shape, generator=mt.Generator().manual_seed(seed), dtype=mt.float64)


@pytest.mark.parametrize("op", [mt.quantile, mt.nanquantile])
def test_quantile_out_joins_the_graph(op):
    x = _x(4, 6).requires_grad_(True)
    q = mt.tensor([0.25, 0.75], dtype=mt.float64)
    out = mt.empty(0, dtype=mt.float64)
    assert op(x, q, dim=1, out=out) is out
    assert type(out.grad_fn).__name__ == "CopyBackwards"
    w = _x(2, 4, seed=1)
    (out * w).sum().backward()
    y = x.detach().clone().requires_grad_(True)
    (op(y, q, dim=1) * w).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), y.grad.numpy(), rtol=0, atol=1e-15)


def test_quantile_out_leaf_and_warning():
    x = _x(3, 4)
    leaf = mt.empty(3, dtype=mt.float64, requires_grad=True)
    with pytest.raises(RuntimeError) as info:
        mt.quantile(x, 0.5, dim=1, out=leaf)
    assert str(info.value) == (
        "a leaf Variable that requires grad is being used in an in-place operation."
    )
    with pytest.warns(UserWarning, match=r"had shape \[5\], which does not match the required"):
        mt.quantile(x, 0.5, dim=1, out=mt.empty(5, dtype=mt.float64))
    view = mt.zeros(6, dtype=mt.float64)
    mt.quantile(x.requires_grad_(True), 0.5, dim=1, out=view[::2])
    assert view.grad_fn is not None  # written through the view: its base is in the graph


@pytest.mark.parametrize("method", ["median", "nanmedian"])
def test_whole_median_node(method):
    x = _x(3, 4).requires_grad_(True)
    m = getattr(x, method)()
    node = m.grad_fn
    assert type(node.next_functions[0][0]).__name__ == "AccumulateGrad"
    assert node._saved_self is x
    assert node._saved_result.equal(m)
    assert {"_saved_self", "_saved_result"} <= set(dir(node))
    with mt.no_grad():
        x.add_(1)
    with pytest.raises(RuntimeError) as info:
        m.backward()
    assert str(info.value).startswith(STALE)


def test_whole_median_gradient_of_a_transposed_input():
    x = _x(2, 3, 4).requires_grad_(True)
    t = x.transpose(0, 2)
    m = t.median()
    m.backward()
    want = (x.detach() == m.detach()).to(mt.float64)
    np.testing.assert_array_equal(x.grad.numpy(), want.numpy())


@pytest.mark.parametrize(
    "call, node_name",
    [
        (lambda x: x.median(-1), "MedianBackward1"),
        (lambda x: x.nanmedian(-1), "NanmedianBackward1"),
        (lambda x: x.mode(-1), "ModeBackward0"),
    ],
)
def test_order_stat_saved_attributes(call, node_name):
    x = _x(3, 4).requires_grad_(True)
    v, i = call(x)
    node = v.grad_fn
    assert type(node).__name__ == node_name
    assert node._saved_dim == 2**64 - 1  # -1 as torch's binding reads an int64 back
    assert node._saved_keepdim is False
    assert node._saved_self_sym_sizes == (3, 4)
    assert node._saved_indices.equal(i)
    v2, _ = call(x.detach().requires_grad_(True).unsqueeze(0).squeeze(0))
    assert v2.grad_fn._saved_dim == 2**64 - 1
    v3 = mt.median(x, 0, keepdim=True).values
    assert v3.grad_fn._saved_dim == 0 and v3.grad_fn._saved_keepdim is True


def test_numpy_str_settings():
    # torch's parser takes a str subclass (numpy.str_) where it wants a str
    x = _x(4, 5)
    mode = np.array(["lower", "higher"])[0]
    got = mt.quantile(x, 0.3, dim=1, interpolation=mode)
    want = mt.quantile(x, 0.3, dim=1, interpolation="lower")
    np.testing.assert_array_equal(got.numpy(), want.numpy())
    got = mt.nanquantile(x, 0.3, interpolation=np.str_("midpoint"))
    np.testing.assert_array_equal(got.numpy(), mt.nanquantile(x, 0.3, interpolation="midpoint"))
    seq = mt.tensor([0.0, 1.0, 1.0, 2.0])
    v = mt.tensor([1.0])
    assert mt.searchsorted(seq, v, side=np.str_("right")).tolist() == [3]
    with pytest.raises(RuntimeError) as info:
        mt.searchsorted(seq, v, side=np.str_("middle"))
    assert str(info.value) == (
        "torch.searchsorted(): side can only be 'left' or 'right' but got middle"
    )


@pytest.mark.parametrize("requires_grad", [False, True])
def test_quantile_devices(requires_grad):
    # torch checks q's and out's devices (after their dtypes) instead of copying across
    x = _x(3, 4).requires_grad_(requires_grad)
    q = mt.tensor([0.5], dtype=mt.float64, device="meta")
    with pytest.raises(RuntimeError) as info:
        mt.quantile(x, q, dim=1)
    assert str(info.value) == "quantile() q tensor must be on the same device as the input tensor"
    for op in (mt.quantile, mt.nanquantile):
        out = mt.empty(0, dtype=mt.float64, device="meta")
        with pytest.raises(RuntimeError) as info:
            op(x, 0.5, dim=1, out=out)
        assert str(info.value) == (
            "quantile() out tensor must be on the same device as the input tensor"
        )
        assert out.shape == (0,)
    with pytest.raises(RuntimeError) as info:
        mt.quantile(x.detach().to("meta"), 0.5, out=mt.empty(0, dtype=mt.float64))
    assert str(info.value) == "quantile() out tensor must be on the same device as the input tensor"
