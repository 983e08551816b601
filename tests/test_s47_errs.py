"""Session 47 (helper errs): torch's exception types and texts for wrong calls of scatter/gather,
the embedding family and the norms (tests/reference/test_s47_errs_reference.py compares them
with torch's where it is installed; these assert the texts themselves), and the results of the
right calls around them unchanged."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import minitorch as torch
import minitorch.nn.functional as F

_SCATTER_METHOD_FORMS = (
    " * (int dim, Tensor index, Tensor src)\n"
    " * (int dim, Tensor index, Tensor src, *, str reduce)\n"
    " * (int dim, Tensor index, Number value)\n"
    " * (int dim, Tensor index, Number value, *, str reduce)\n"
)
_SCATTER_FORMS = (
    " * (Tensor input, int dim, Tensor index, Tensor src, *, Tensor out = None)\n"
    " * (Tensor input, int dim, Tensor index, Tensor src, *, str reduce, Tensor out = None)\n"
    " * (Tensor input, int dim, Tensor index, Number value, *, Tensor out = None)\n"
    " * (Tensor input, int dim, Tensor index, Number value, *, str reduce, Tensor out = None)\n"
)


def _listing(op, got, forms):
    return f"{op}() received an invalid combination of arguments - got ({got}), but expected one of:\n{forms}"  # noqa: E501


def _x():
    return torch.arange(6.0).reshape(2, 3)


_I = [[0, 1, 2], [2, 1, 0]]


def _err(fn):
    with pytest.raises(Exception) as info:
        fn()
    return type(info.value), str(info.value)


# --- scatter's missing and ill-typed arguments ---


@pytest.mark.parametrize(
    ("call", "op", "got", "forms"),
    [
        (lambda x, i: x.scatter(1), "scatter", "int", _SCATTER_METHOD_FORMS),
        (lambda x, i: x.scatter_(1), "scatter_", "int", _SCATTER_METHOD_FORMS),
        (lambda x, i: x.scatter(), "scatter", "", _SCATTER_METHOD_FORMS),
        (lambda x, i: x.scatter_(dim=1), "scatter_", "dim=int, ", _SCATTER_METHOD_FORMS),
        (lambda x, i: x.scatter(index=i, src=x), "scatter", "src=Tensor, index=Tensor, ",
         _SCATTER_METHOD_FORMS),
        (lambda x, i: torch.scatter(x, 1), "scatter", "Tensor, int", _SCATTER_FORMS),
        (lambda x, i: torch.scatter(), "scatter", "", _SCATTER_FORMS),
        (lambda x, i: torch.scatter(input=x, dim=1), "scatter", "dim=int, input=Tensor, ",
         _SCATTER_FORMS),
        (lambda x, i: torch.scatter(x, 1, i, x, out=1), "scatter",
         "Tensor, int, Tensor, Tensor, out=int", _SCATTER_FORMS),
        (lambda x, i: torch.scatter(x, 1, i, value=x), "scatter",
         "Tensor, int, Tensor, value=Tensor", _SCATTER_FORMS),
    ],
)  # fmt: skip
def test_scatter_argument_listing(call, op, got, forms):
    x, i = _x(), torch.tensor(_I)
    kind, text = _err(lambda: call(x, i))
    assert kind is TypeError
    assert text == _listing(op, got, forms)


def test_scatter_value_of_elements_fits_no_overload():
    x, i = _x(), torch.tensor(_I)
    kind, text = _err(lambda: x.scatter(1, i, value=torch.tensor([1.0])))
    assert kind is TypeError
    assert text.startswith("scatter() received an invalid combination of arguments - got (int, ")
    assert "(int, Tensor, !value=Tensor!)" in text
    assert x.tolist() == [[0.0, 1.0, 2.0], [3.0, 4.0, 5.0]]  # (x.scatter_ neither wrote)
    _err(lambda: x.scatter_(1, i, value=x))
    assert x.tolist() == [[0.0, 1.0, 2.0], [3.0, 4.0, 5.0]]
    # a 0-d tensor is a Number: as the number itself
    out = x.scatter(1, i[:, :1], value=torch.tensor(7.0))
    assert (
        out.tolist() == x.scatter(1, i[:, :1], 7.0).tolist() == [[7.0, 1.0, 2.0], [3.0, 4.0, 7.0]]
    )


def test_scatter_results_unchanged():
    x, i = _x(), torch.tensor(_I)
    src = torch.arange(10.0, 16.0).reshape(2, 3)
    want = np.zeros((2, 3))
    np.put_along_axis(want, np.array(_I), np.arange(10.0, 16.0).reshape(2, 3), 1)
    np.testing.assert_array_equal(torch.scatter(x, 1, i, src).numpy(), want)
    np.testing.assert_array_equal(x.scatter(1, i, src).numpy(), want)
    out = torch.empty(2, 3)
    assert torch.scatter(x, 1, i, src, out=out) is out
    np.testing.assert_array_equal(out.numpy(), want)
    y = x.clone()
    y.scatter_(1, i, 2.5)
    assert (y == 2.5).all()


@pytest.mark.parametrize(
    ("call", "text"),
    [
        (lambda x, i: torch.scatter_reduce(), 'scatter_reduce() missing 5 required positional argument: "input", "dim", "index", "src", "reduce"'),  # noqa: E501
        (lambda x, i: torch.scatter_reduce(x, 1, i), 'scatter_reduce() missing 2 required positional argument: "src", "reduce"'),  # noqa: E501
        (lambda x, i: torch.scatter_reduce(x, 1, i, x), 'scatter_reduce() missing 1 required positional arguments: "reduce"'),  # noqa: E501
        (lambda x, i: torch.scatter_reduce(x, 1, i, reduce="sum"), 'scatter_reduce() missing 2 required positional argument: "src", "reduce"'),  # noqa: E501
        (lambda x, i: torch.scatter_reduce(x, "a"), "scatter_reduce(): argument 'dim' (position 2) must be int, not str"),  # noqa: E501
        (lambda x, i: torch.scatter_reduce(x, 1, i, x, "sum", 0), "scatter_reduce() takes 5 positional arguments but 6 were given"),  # noqa: E501
    ],
)  # fmt: skip
def test_scatter_reduce_arity(call, text):
    x, i = _x(), torch.tensor(_I)
    assert _err(lambda: call(x, i)) == (TypeError, text)


def test_scatter_reduce_results_unchanged():
    x, i = _x(), torch.tensor([[0, 0, 1], [2, 2, 2]])
    src = torch.arange(10.0, 16.0).reshape(2, 3)
    out = torch.scatter_reduce(x, 1, i, src, "sum")
    assert out.tolist() == [[21.0, 13.0, 2.0], [3.0, 4.0, 47.0]]
    out = torch.scatter_reduce(x, 1, i, src, "amax", include_self=False)
    assert out.tolist() == [[11.0, 12.0, 2.0], [3.0, 4.0, 15.0]]


# --- embedding_bag of a 2-D input changed in place ---

_MODIFIED = (
    "one of the variables needed for gradient computation has been modified by an inplace "
    "operation: [torch.LongTensor [6]] is at version 1; expected version 0 instead."
)


@pytest.mark.parametrize("mode", ["mean", "sum", "max"])
@pytest.mark.parametrize("dtype", ["float32", "float16"])
def test_embedding_bag_2d_saved_flattened(mode, dtype):
    w = torch.linspace(-1, 1, 20, dtype=getattr(torch, dtype)).reshape(5, 4).requires_grad_()
    idx = torch.tensor([[0, 1, 2], [3, 4, 1]])
    out = F.embedding_bag(idx, w, mode=mode)
    idx.add_(0)
    kind, text = _err(lambda: out.float().sum().backward())
    assert kind is RuntimeError
    assert text.startswith(_MODIFIED)


def test_embedding_bag_2d_per_sample_weights_saved_flattened():
    w = torch.ones(5, 4, requires_grad=True)
    idx = torch.tensor([[0, 1, 2], [3, 4, 1]])
    out = F.embedding_bag(idx, w, mode="sum", per_sample_weights=torch.ones(2, 3))
    idx[0, 0] = 1
    kind, text = _err(lambda: out.sum().backward())
    assert kind is RuntimeError and text.startswith(_MODIFIED)


@pytest.mark.parametrize("mode", ["mean", "sum", "max"])
def test_embedding_bag_2d_gradients_unchanged(mode):
    """A non-contiguous 2-D input is flattened by a copy (nothing refuses backward when its base
    changes), and the gradients are the 1-D form's, bit for bit."""
    g = torch.Generator().manual_seed(0)
    w = torch.randn(5, 4, generator=g, requires_grad=True)
    base = torch.tensor([[0, 1, 2], [3, 4, 1]])
    idx = base.t()  # (3, 2): bags [0, 3], [1, 4], [2, 1]
    upstream = torch.randn(3, 4, generator=g)
    out = F.embedding_bag(idx, w, mode=mode)
    base.add_(1)
    (out * upstream).sum().backward()
    w1 = w.detach().clone().requires_grad_()
    out1 = F.embedding_bag(torch.tensor([0, 3, 1, 4, 2, 1]), w1, torch.tensor([0, 2, 4]), mode=mode)
    (out1 * upstream).sum().backward()
    np.testing.assert_array_equal(out.detach().numpy(), out1.detach().numpy())
    np.testing.assert_array_equal(w.grad.numpy(), w1.grad.numpy())


def test_embedding_bag_offsets_still_watched():
    w = torch.ones(5, 4, requires_grad=True)
    flat, off = torch.tensor([0, 1, 2, 3, 4, 1]), torch.tensor([0, 2])
    out = F.embedding_bag(flat, w, off)
    off.add_(0)
    kind, text = _err(lambda: out.sum().backward())
    assert kind is RuntimeError and "[torch.LongTensor [2]] is at version 1" in text


# --- batch_norm on the meta device with statistics of C elements in another shape ---


def _m(*shape):
    return torch.zeros(*shape, device="meta")


@pytest.mark.parametrize(
    ("args", "training", "text"),
    [
        ((_m(4, 3), _m(3, 1), _m(3, 1)), True,
         "output with shape [3, 1] doesn't match the broadcast shape [3, 3]"),
        ((_m(4, 3), _m(3), _m(3, 1)), True,
         "output with shape [3, 1] doesn't match the broadcast shape [3, 3]"),
        ((_m(4, 6), _m(2, 3), _m(2, 3)), True,
         "Attempting to broadcast a dimension of length 3 at -1! Mismatching argument at index 1 "
         "had torch.Size([2, 3]); but expected shape should be broadcastable to [1, 6]"),
        ((_m(4, 3), _m(3, 1), _m(3, 1)), False,
         "Attempting to broadcast a dimension of length 3 at -2! Mismatching argument at index 1 "
         "had torch.Size([3, 1]); but expected shape should be broadcastable to [4, 3]"),
        ((_m(4, 3), _m(3), _m(3, 1)), False,
         "Attempting to broadcast a dimension of length 3 at -2! Mismatching argument at index 1 "
         "had torch.Size([3, 1]); but expected shape should be broadcastable to [4, 3]"),
    ],
)  # fmt: skip
def test_meta_batch_norm_statistics_shapes(args, training, text):
    kind, got = _err(lambda: F.batch_norm(*args, training=training))
    assert (kind, got) == (RuntimeError, text)


def test_meta_batch_norm_statistics_that_broadcast():
    out = F.batch_norm(_m(4, 6, 2), _m(1, 6, 1), _m(6))
    assert out.shape == (4, 6, 2) and out.device.type == "meta"
    out = F.batch_norm(_m(4, 6, 2, 2), _m(6, 1), _m(6, 1), _m(6, 1), _m(6, 1))
    assert out.shape == (4, 6, 2, 2)
    assert F.batch_norm(_m(4, 3), _m(1, 3), _m(1, 3), training=True).shape == (4, 3)


def test_cpu_batch_norm_statistics_shapes_unchanged():
    x = torch.arange(12.0).reshape(4, 3)
    kind, text = _err(lambda: F.batch_norm(x, torch.zeros(3, 1), torch.ones(3, 1)))
    assert (kind, text) == (RuntimeError, "TensorAccessor expected 1 dims but tensor has 2")


# --- group_norm, embedding, layer_norm, local_response_norm ---


@pytest.mark.parametrize(
    ("call", "kind", "text"),
    [
        (lambda x: F.group_norm(x, -1), RuntimeError,
         "Expected num groups to be greater than 0, got -1"),
        (lambda x: F.group_norm(x, 1.5), TypeError,
         "group_norm(): argument 'num_groups' (position 2) must be int, not float"),
        (lambda x: torch.group_norm(x, 2.5), TypeError,
         "group_norm(): argument 'num_groups' (position 2) must be int, not float"),
        (lambda x: F.group_norm(x, "a"), TypeError,
         "unsupported operand type(s) for //: 'int' and 'str'"),
        (lambda x: F.group_norm(x[:1, :, :1], 3, eps="a"), ValueError,
         "Expected more than 1 value per channel when training, got input size [1, 3, 1]"),
        (lambda x: F.group_norm(x, 3, torch.ones(3), torch.ones(2)), RuntimeError,
         "Expected bias to be a vector of size equal to the number of channels in input, but got "
         "bias of shape [3] and input of shape [4, 3, 5]"),
        (lambda x: F.group_norm(x, 3, None, torch.ones(2)), RuntimeError,
         "Expected bias to be a vector of size equal to the number of channels in input, but got "
         "bias of shape [0] and input of shape [4, 3, 5]"),
        (lambda x: F.local_response_norm(x, 2, alpha="a"), TypeError,
         "mul(): argument 'other' (position 1) must be Tensor, not str"),
        (lambda x: F.local_response_norm(x, 2, k=None), TypeError,
         "add(): argument 'other' (position 1) must be Tensor, not NoneType"),
        (lambda x: F.local_response_norm(x, "a"), TypeError,
         "unsupported operand type(s) for //: 'str' and 'int'"),
        (lambda x: F.local_response_norm(x, -3), RuntimeError,
         "narrow(): length must be non-negative."),
        (lambda x: F.local_response_norm(x.to("meta"), 0), RuntimeError,
         "kernel size should be greater than zero, but got kH: 0, kW: 1"),
        (lambda x: F.local_response_norm(x.to("meta"), -1), RuntimeError,
         "pad should be at most half of effective kernel size, but got pad=0, kernel_size=-1 "
         "and dilation=1"),
        (lambda x: F.layer_norm(x.to("meta"), (4,)), RuntimeError,
         "Given normalized_shape=[4], expected input with shape [4], but got input of size "
         "torch.Size([4, 3, 5])"),
        (lambda x: F.layer_norm(x.to("meta"), (4,), torch.ones(3, device="meta")), RuntimeError,
         "Expected weight to be of same shape as normalized_shape, but got weight of shape "
         "torch.Size([3]) and normalized_shape = [4]"),
        (lambda x: F.layer_norm(x, (4,)), RuntimeError,
         "Given normalized_shape=[4], expected input with shape [*, 4], but got input of "
         "size[4, 3, 5]"),
    ],
)  # fmt: skip
def test_norm_errors(call, kind, text):
    x = torch.arange(60.0).reshape(4, 3, 5)
    assert _err(lambda: call(x)) == (kind, text)


def test_local_response_norm_beta_listing():
    x = torch.ones(2, 3, 4)
    kind, text = _err(lambda: F.local_response_norm(x, 2, beta="a"))
    assert kind is TypeError
    assert text == (
        "pow() received an invalid combination of arguments - got (str), but expected one of:\n"
        " * (Tensor exponent)\n"
        "      didn't match because some of the arguments have invalid types: (!str!)\n"
        " * (Number exponent)\n"
        "      didn't match because some of the arguments have invalid types: (!str!)\n"
    )


def test_norm_results_unchanged():
    g = torch.Generator().manual_seed(0)
    x = torch.randn(4, 6, 5, generator=g, dtype=torch.float64)
    xn = x.numpy().reshape(4, 3, 10)
    mean, var = xn.mean(-1, keepdims=True), xn.var(-1, keepdims=True)
    want = ((xn - mean) / np.sqrt(var + 1e-5)).reshape(4, 6, 5)
    np.testing.assert_allclose(F.group_norm(x, 3).numpy(), want, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(torch.group_norm(x, 3).numpy(), want, rtol=1e-12, atol=1e-12)
    out = F.local_response_norm(x, 3, alpha=0.5, beta=0.5, k=2.0)
    sq = np.pad(x.numpy() ** 2, ((0, 0), (1, 1), (0, 0)))
    div = (2.0 + 0.5 * (sq[:, :-2] + sq[:, 1:-1] + sq[:, 2:]) / 3) ** 0.5
    np.testing.assert_allclose(out.numpy(), x.numpy() / div, rtol=1e-12)


@pytest.mark.parametrize(
    ("call", "kind", "text"),
    [
        (lambda i, w: F.embedding(i.float(), w[0]), RuntimeError, "'weight' must be 2-D"),
        (lambda i, w: F.embedding(i.float(), "a"), TypeError,
         "embedding(): argument 'weight' (position 1) must be Tensor, not str"),
        (lambda i, w: F.embedding(i.float(), w, scale_grad_by_freq=1), TypeError,
         "embedding(): argument 'scale_grad_by_freq' (position 4) must be bool, not int"),
        (lambda i, w: F.embedding(i.float(), w, padding_idx=10), AssertionError,
         "Padding_idx must be within num_embeddings"),
        (lambda i, w: F.embedding(i.to("meta"), w[0].to("meta")), AssertionError,
         "'weight' must be 2-D, got 1-D"),
        (lambda i, w: F.embedding(i.float().to("meta"), w.to("meta")), RuntimeError,
         "Expected tensor for argument #1 'indices' to have one of the following scalar types: "
         "Long, Int; but got torch.float32 instead"),
        (lambda i, w: F.embedding(i.float(), w), RuntimeError,
         "Expected tensor for argument #1 'indices' to have one of the following scalar types: "
         "Long, Int; but got torch.FloatTensor instead (while checking arguments for embedding)"),
        (lambda i, w: i.float().to("meta").gather(1, i.float().to("meta")), RuntimeError,
         "gather(): Expected dtype int32/int64 for index, but got torch.float32"),
        (lambda i, w: w.to("meta").gather(0, torch.zeros(6, 5, dtype=torch.long, device="meta")),
         RuntimeError, "Size does not match at dimension 1 expected index torch.Size([6, 5]) to "
         "be no larger than self torch.Size([5, 4]) apart from dimension 0"),
        (lambda i, w: w.to("meta").scatter(1, i.to("meta"), w.to("meta")[:2, :1]), RuntimeError,
         "Expected index torch.Size([2, 3]) to be no larger than src torch.Size([2, 1])"),
        (lambda i, w: w.to("meta").scatter_reduce(1, i.to("meta"), w.to("meta"), "bad"),
         RuntimeError, "reduce argument must be either sum, prod, mean, amax or amin."),
        (lambda i, w: w.scatter_reduce(1, i, w, "bad"), RuntimeError,
         "reduce argument must be either sum, prod, mean, amax or amin, got bad"),
    ],
)  # fmt: skip
def test_embedding_and_meta_gather_errors(call, kind, text):
    i, w = torch.tensor([[0, 1, 2], [3, 4, 1]]), torch.ones(5, 4)
    assert _err(lambda: call(i, w)) == (kind, text)


def test_embedding_results_unchanged():
    w = torch.arange(20.0).reshape(5, 4).requires_grad_()
    i = torch.tensor([[0, 4], [4, 1]])
    out = F.embedding(i, w, padding_idx=-1, scale_grad_by_freq=True)
    np.testing.assert_array_equal(out.detach().numpy(), w.detach().numpy()[[[0, 4], [4, 1]]])
    out.sum().backward()
    want = np.zeros((5, 4))
    want[[0, 1]] = 1.0  # (row 4 is the padding row: no gradient)
    np.testing.assert_array_equal(w.grad.numpy(), want)


_OVERLAP = (
    "unsupported operation: some elements of the input tensor and the written-to tensor refer "
    "to a single memory location. Please clone() the tensor before performing the operation."
)
_SMALL_SRC = (
    "Expected index [2, 3] to be no larger than self [2, 3] apart from dimension 1 and to be no "
    "larger size than src [2, 1]"
)


@pytest.mark.parametrize(
    ("call", "text"),
    [
        (lambda x, i: x.scatter_(1, i, x, reduce="bad"), _OVERLAP),
        (lambda x, i: x.scatter_reduce_(1, i + 5, x, "sum"), _OVERLAP),
        (lambda x, i: x.scatter_add_(1, i + 5, x), _OVERLAP),
        (lambda x, i: x.scatter_(1, i, x[:, :1], reduce="bad"), _SMALL_SRC),
        (lambda x, i: x.scatter_reduce(1, i, x[:, :1], "bad"), _SMALL_SRC),
        (lambda x, i: x.scatter(1, i, x.double(), reduce="bad"),
         "scatter(): Expected self.dtype to be equal to src.dtype"),
        (lambda x, i: torch.ones(2, 3, requires_grad=True).scatter_add_(1, i, x[:, :1]),
         "a leaf Variable that requires grad is being used in an in-place operation."),
        (lambda x, i: x.scatter_reduce_(1, i, x.clone(), "bad"),
         "reduce argument must be either sum, prod, mean, amax or amin, got bad"),
    ],
)  # fmt: skip
def test_scatter_check_order(call, text, fresh_once):
    x, i = _x(), torch.tensor(_I)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # (reduce= with a src: torch's deprecation warning)
        assert _err(lambda: call(x, i)) == (RuntimeError, text)
    assert x.tolist() == [[0.0, 1.0, 2.0], [3.0, 4.0, 5.0]]  # (nothing written)
