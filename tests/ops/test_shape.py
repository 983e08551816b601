"""Shape ops beyond the table: torch's errors and messages, grad_fn names, argument forms."""

from __future__ import annotations

import re
import warnings

import numpy as np
import pytest

import minitorch as mt

A = (3, 4)


def _x(*shape, device="cpu"):
    return mt.randn(*shape, device=device)


# (call, exception type, torch's message) -- messages as torch 2.x prints them
ERRORS = [
    (
        lambda: _x(2, 3, 4).t(),
        RuntimeError,
        "t() expects a tensor with <= 2 dimensions, but self is 3D",
    ),
    (
        lambda: mt.cat([_x(3, 3), _x(4, 4)], 1),
        RuntimeError,
        "Sizes of tensors must match except in dimension 1. Expected size 3 but got size 4 for "
        "tensor number 1 in the list.",
    ),
    (lambda: mt.cat([]), ValueError, "torch.cat(): expected a non-empty list of Tensors"),
    (
        lambda: mt.cat([_x(3, 4), _x(3)]),
        RuntimeError,
        "Tensors must have same number of dimensions: got 2 and 1",
    ),
    (
        lambda: mt.cat([_x(3, 4), _x(3, 4)], 2),
        IndexError,
        "Dimension out of range (expected to be in range of [-2, 1], but got 2)",
    ),
    (
        lambda: mt.cat([mt.tensor(1.0), mt.tensor(2.0)]),
        RuntimeError,
        "zero-dimensional tensor (at position 0) cannot be concatenated",
    ),
    (
        lambda: mt.cat([_x(2), 1]),
        TypeError,
        "expected Tensor as element 1 in argument 0, but got int",
    ),
    (
        lambda: mt.cat(_x(2)),
        TypeError,
        "cat(): argument 'tensors' (position 1) must be tuple of Tensors, not Tensor",
    ),
    (
        lambda: mt.stack([_x(3, 4), _x(4, 3)]),
        RuntimeError,
        "stack expects each tensor to be equal size, but got [3, 4] at entry 0 and [4, 3] at "
        "entry 1",
    ),
    (lambda: mt.stack([]), RuntimeError, "stack expects a non-empty TensorList"),
    (
        lambda: _x(2, 3, 4).view(5, 5),
        RuntimeError,
        "shape '[5, 5]' is invalid for input of size 24",
    ),
    (
        lambda: _x(2, 3, 4).transpose(0, 1).view(-1),
        RuntimeError,
        "view size is not compatible with input tensor's size and stride (at least one dimension "
        "spans across two contiguous subspaces). Use .reshape(...) instead.",
    ),
    (lambda: _x(2, 3).view(-1, -1), RuntimeError, "only one dimension can be inferred"),
    (
        lambda: _x(2, 3).view(-2, 3),
        RuntimeError,
        "invalid shape dimension -2 at index 0 of shape [-2, 3]",
    ),
    (lambda: _x(2, 3).reshape(()), RuntimeError, "shape '[]' is invalid for input of size 6"),
    (
        lambda: _x(2, 3, 4).squeeze(5),
        IndexError,
        "Dimension out of range (expected to be in range of [-3, 2], but got 5)",
    ),
    (
        lambda: _x(2, 3).squeeze((0, 0)),
        RuntimeError,
        "dim 0 appears multiple times in the list of dims",
    ),
    (
        lambda: mt.tensor(1.0).squeeze(1),
        IndexError,
        "Dimension out of range (expected to be in range of [-1, 0], but got 1)",
    ),
    (
        lambda: _x(2, 3, 4).unsqueeze(5),
        IndexError,
        "Dimension out of range (expected to be in range of [-4, 3], but got 5)",
    ),
    (
        lambda: _x(2, 3, 4).permute(0, 1),
        RuntimeError,
        "permute(sparse_coo): number of dimensions in the tensor input does not match the length "
        "of the desired ordering of dimensions i.e. input.dim() = 3 is not equal to len(dims) = 2",
    ),
    (
        lambda: _x(2, 3, 4).permute(0, 1, 1),
        RuntimeError,
        "permute(): duplicate dims are not allowed.",
    ),
    (
        lambda: _x(2, 3).flatten(1, 0),
        RuntimeError,
        "flatten() has invalid args: start_dim cannot come after end_dim",
    ),
    (
        lambda: _x(2, 3).unflatten(1, (2, 2)),
        RuntimeError,
        "unflatten: Provided sizes [2, 2] don't multiply up to the size of dim 1 (3) in the input "
        "tensor",
    ),
    (lambda: _x(2, 3).unflatten(1, ()), RuntimeError, "unflatten: sizes must be non-empty"),
    (
        lambda: _x(3, 4).expand(4),
        RuntimeError,
        "expand(torch.FloatTensor{[3, 4]}, size=[4]): the number of sizes provided (1) must be "
        "greater or equal to the number of dimensions in the tensor (2)",
    ),
    (
        lambda: _x(3, 4).expand(2, 4),
        RuntimeError,
        "The expanded size of the tensor (2) must match the existing size (3) at non-singleton "
        "dimension 0.  Target sizes: [2, 4].  Tensor sizes: [3, 4]",
    ),
    (
        lambda: _x(2, 3).expand(-1, 2, -1),
        RuntimeError,
        "The expanded size of the tensor (-1) isn't allowed in a leading, non-existing dimension 0",
    ),
    (
        lambda: _x(3, 4).split(0),
        RuntimeError,
        "split_size can only be 0 if dimension size is 0, but got dimension size of 3",
    ),
    (
        lambda: _x(3, 4).split(-1),
        RuntimeError,
        "split expects split_size be non-negative, but got split_size=-1",
    ),
    (
        lambda: _x(3, 4).split([1, 1]),
        RuntimeError,
        "split_with_sizes expects split_sizes to sum exactly to 3 (input tensor's size at "
        "dimension 0), but got split_sizes=[1, 1]",
    ),
    (
        lambda: _x(2, 3).split([2, -1], 1),
        RuntimeError,
        "split_with_sizes expects split_sizes have only non-negative entries, but got "
        "split_sizes=[2, -1]",
    ),
    (
        lambda: mt.tensor(1.0).split(1),
        RuntimeError,
        "split expects at least a 1-dimensional tensor",
    ),
    (
        lambda: _x(3, 4).chunk(0),
        RuntimeError,
        "chunk expects `chunks` to be greater than 0, got: 0",
    ),
    (
        lambda: _x(3, 4).narrow(0, 2, 2),
        RuntimeError,
        "start (2) + length (2) exceeds dimension size (3).",
    ),
    (
        lambda: _x(3, 4).narrow(0, -4, 1),
        IndexError,
        "start out of range (expected to be in range of [-3, 3], but got -4)",
    ),
    (lambda: _x(3, 4).narrow(0, 0, -1), RuntimeError, "narrow(): length must be non-negative."),
    (
        lambda: mt.tensor(1.0).narrow(0, 0, 1),
        RuntimeError,
        "narrow() cannot be applied to a 0-dim tensor.",
    ),
    (
        lambda: mt.tensor(1.0).unbind(),
        IndexError,
        "Dimension specified as 0 but tensor has no dimensions",
    ),
    (
        lambda: _x(3, 4).unbind(2),
        IndexError,
        "Dimension out of range (expected to be in range of [-2, 1], but got 2)",
    ),
    (
        lambda: _x(3, 4, 5).movedim((0, 1), (2,)),
        RuntimeError,
        "movedim: Invalid source or destination dims: source ([0, 1] dims) should contain the same "
        "number of dims as destination ([2] dims)",
    ),
    (
        lambda: _x(3, 4, 5).movedim((0, 0), (2, 1)),
        RuntimeError,
        "movedim: repeated dim in `source` ([0, 0])",
    ),
    (
        lambda: mt.broadcast_tensors(_x(2, 3), _x(4, 1, 2)),
        RuntimeError,
        "The size of tensor a (3) must match the size of tensor b (2) at non-singleton dimension 2",
    ),
    (
        lambda: mt.broadcast_shapes((2, 3), (4, 1, 2)),
        RuntimeError,
        "Attempting to broadcast a dimension of length 2 at -1! Mismatching argument at index 1 "
        "had (4, 1, 2); but expected shape should be broadcastable to [1, 2, 3]",
    ),
    (
        lambda: _x(2, 3).repeat(2),
        RuntimeError,
        "Number of dimensions of repeat dims can not be smaller than number of dimensions of "
        "tensor",
    ),
    (
        lambda: _x(2, 3).repeat(-1, 3),
        RuntimeError,
        "Trying to create tensor with negative dimension -2: [-2, 9]",
    ),
    (lambda: _x(2, 3).repeat_interleave(-1), RuntimeError, "Repeats must be non-negative"),
    (
        lambda: _x(2, 3).repeat_interleave(mt.tensor([1, 2]), dim=1),
        RuntimeError,
        "repeats must have the same size as input along dim, but got repeats.size(0) = 2 and "
        "input.size(1) = 3",
    ),
    (
        lambda: _x(2, 3).repeat_interleave(mt.tensor([1, -1]), dim=0),
        RuntimeError,
        "repeats can not be negative",
    ),
    (
        lambda: mt.repeat_interleave(mt.tensor([[1, 2]])),
        RuntimeError,
        "repeat_interleave only accept 1D vector as repeat",
    ),
    (
        lambda: _x(2, 3).flip((0, 0)),
        RuntimeError,
        "dim 0 appears multiple times in the list of dims",
    ),
    (lambda: _x(3).fliplr(), RuntimeError, "Input must be >= 2-d."),
    (lambda: mt.tensor(1.0).flipud(), RuntimeError, "Input must be >= 1-d."),
    (
        lambda: _x(2, 3).roll((1, 2), (0,)),
        RuntimeError,
        "shifts and dimensions must align. shifts: 2, dims:1",
    ),
    (lambda: _x(2, 3).roll([], []), RuntimeError, "`shifts` required"),
    (
        lambda: _x(2, 3).rot90(1, (0, 0)),
        RuntimeError,
        "expected rotation dims to be different, but got dim0 = 0 and dim1 = 0",
    ),
    (
        lambda: _x(2, 3).rot90(1, (0,)),
        RuntimeError,
        "expected total rotation dims == 2, but got dims = 1",
    ),
    (lambda: _x(3).rot90(), RuntimeError, "expected total dims >= 2, but got total dims = 1"),
    (
        lambda: _x(2, 3).tensor_split(0, 1),
        RuntimeError,
        "number of sections must be larger than 0, got 0",
    ),
    (
        lambda: _x(4, 3).tensor_split(mt.tensor([1.0])),
        RuntimeError,
        "tensor_split expected tensor_indices_or_sections to have dtype of long, but got Float",
    ),
    (
        lambda: _x(2, 3).hsplit(2),
        RuntimeError,
        "torch.hsplit attempted to split along dimension 1, but the size of the dimension 3 is not "
        "divisible by the split_size 2!",
    ),
    (
        lambda: _x(3).vsplit(1),
        RuntimeError,
        "torch.vsplit requires a tensor with at least 2 dimension, but got a tensor with 1 "
        "dimensions!",
    ),
    (
        lambda: _x(3, 4, 5).diagonal(0, 0, 0),
        RuntimeError,
        "diagonal dimensions cannot be identical 0, 0",
    ),
    (lambda: mt.diag(_x(3, 4, 5)), RuntimeError, "diag(): Supports 1D or 2D tensors. Got 3D"),
    (lambda: _x(3).tril(), RuntimeError, "tril: input tensor must have at least 2 dimensions"),
    (lambda: _x(3).triu(), RuntimeError, "triu: input tensor must have at least 2 dimensions"),
    (
        lambda: _x(3, 4, 5).unfold(1, 5, 1),
        RuntimeError,
        "maximum size for tensor at dimension 1 is 4 but size is 5",
    ),
    (lambda: _x(3, 4, 5).unfold(1, 2, 0), RuntimeError, "step is 0 but must be > 0"),
    (lambda: _x(2, 3).unfold(1, -1, 1), RuntimeError, "size is -1 but must be >= 0"),
    (
        lambda: _x(2, 3).as_strided((2,), (-1,)),
        RuntimeError,
        "as_strided: Negative strides are not supported at the moment, got strides: [-1]",
    ),
    (
        lambda: _x(2, 3).as_strided((2, 2), (1, 2), 10),
        RuntimeError,
        "setStorage: sizes [2, 2], strides [1, 2], storage offset 10, and itemsize 4 requiring a "
        "storage size of 56 are out of bounds for storage of size 24",
    ),
    (
        lambda: _x(2, 3).as_strided((2, 2), (1, 2), -1),
        RuntimeError,
        "Tensor: invalid storage offset -1",
    ),
    (lambda: mt.combinations(_x(2, 3)), RuntimeError, "Expect a 1D vector, but got shape [2, 3]"),
    (lambda: mt.combinations(_x(3), -1), RuntimeError, "Expect a non-negative number, but got -1"),
    (lambda: mt.cartesian_prod(_x(2, 3)), RuntimeError, "Expect a 1D vector, but got shape [2, 3]"),
    (
        lambda: _x(2, 3).view(mt.float64),
        RuntimeError,
        "self.size(-1) must be divisible by 2 to view Float as Double (different element sizes), "
        "but got 3",
    ),
    (
        lambda: _x(2, 3, 4).H,
        RuntimeError,
        "tensor.H is only supported on matrices (2-D tensors). Got 3-D tensor. For batches of "
        "matrices, consider using tensor.mH",
    ),
    (
        lambda: _x(3).mT,
        RuntimeError,
        "tensor.mT is only supported on matrices or batches of matrices. Got 1-D tensor.",
    ),
]


@pytest.mark.parametrize("call,exc,msg", ERRORS, ids=[f"e{i}" for i in range(len(ERRORS))])
def test_errors_match_torch(call, exc, msg):
    with pytest.raises(exc, match="^" + re.escape(msg) + "$"):
        call()


# grad_fn names as torch shows them
NAMES = [
    (lambda y: y.view(6, 4), "ViewBackward0"),
    (lambda y: y.reshape(6, 4), "ViewBackward0"),
    (lambda y: y.transpose(0, 1).reshape(-1), "UnsafeViewBackward0"),
    (lambda y: y.flatten(), "ViewBackward0"),
    (lambda y: y.squeeze(), "SqueezeBackward0"),
    (lambda y: y.squeeze(0), "SqueezeBackward1"),
    (lambda y: y.squeeze((0, 1)), "SqueezeBackward2"),
    (lambda y: y.unsqueeze(0), "UnsqueezeBackward0"),
    (lambda y: y.permute(2, 0, 1), "PermuteBackward0"),
    (lambda y: y.transpose(0, 1), "TransposeBackward0"),
    (lambda y: y[0].t(), "TBackward0"),
    (lambda y: y[0].T, "PermuteBackward0"),
    (lambda y: y.mT, "TransposeBackward0"),
    (lambda y: y.movedim(0, 2), "PermuteBackward0"),
    (lambda y: y.expand(2, 2, 3, 4), "ExpandBackward0"),
    (lambda y: y.expand(2, 3, 4), "ExpandBackward0"),
    (lambda y: mt.cat([y, y]), "CatBackward0"),
    (lambda y: mt.stack([y, y]), "StackBackward0"),
    (lambda y: y.unbind()[0], "UnbindBackward0"),
    (lambda y: y.split(1)[0], "SplitBackward0"),
    (lambda y: y.split([1, 1])[0], "SplitWithSizesBackward0"),
    (lambda y: y.chunk(2)[0], "SplitBackward0"),
    (lambda y: y.narrow(0, 0, 1), "SliceBackward0"),
    (lambda y: y.tensor_split(2, 1)[0], "SliceBackward0"),
    (lambda y: y.diagonal(), "DiagonalBackward0"),
    (lambda y: mt.diag(y[0]), "DiagonalBackward0_copy"),
    (lambda y: mt.diag_embed(y), "DiagEmbedBackward0"),
    (lambda y: y.tril(), "TrilBackward0"),
    (lambda y: y.triu(), "TriuBackward0"),
    (lambda y: y.repeat(1, 2, 1), "RepeatBackward0"),
    (lambda y: y.flip(0), "FlipBackward0"),
    (lambda y: y.roll(1, 0), "RollBackward0"),
    (lambda y: y.rot90(), "Rot90Backward0"),
    (lambda y: y.unfold(1, 2, 1), "UnfoldBackward0"),
    (lambda y: y.as_strided((2, 2), (1, 2)), "AsStridedBackward0"),
    (lambda y: y.repeat_interleave(mt.tensor([1, 2]), dim=0), "IndexSelectBackward0"),
]


@pytest.mark.parametrize("fn,name", NAMES, ids=[n[1] + str(i) for i, n in enumerate(NAMES)])
def test_grad_fn_names(fn, name):
    y = mt.randn(2, 3, 4, requires_grad=True) * 1
    assert type(fn(y).grad_fn).__name__ == name


# --- argument forms and special cases ---


def test_size_argument_forms():
    x = _x(2, 3)
    assert x.view(3, 2).shape == x.view((3, 2)).shape == x.view([3, 2]).shape == (3, 2)
    assert x.reshape(6).shape == x.reshape((6,)).shape == (6,)
    assert x.view(mt.Size([6])).shape == (6,)
    assert x.permute(1, 0).shape == x.permute((1, 0)).shape == (3, 2)
    assert x.expand(2, 2, 3).shape == x.expand((2, 2, 3)).shape == (2, 2, 3)
    assert x.repeat(2, 1).shape == x.repeat((2, 1)).shape == (4, 3)
    assert x.flip(0, 1).shape == x.flip((0, 1)).shape == x.flip(0).shape == (2, 3)
    assert x.tile(2).shape == (2, 6)


def test_flatten_same_dim_returns_input_and_0d_becomes_1d():
    x = _x(2, 3)
    assert x.flatten(1, 1) is x
    assert mt.tensor(1.0).flatten().shape == (1,)
    assert mt.tensor(1.0).flatten(0, 0).shape == (1,)


def test_squeeze_forms():
    x = _x(1, 3, 1)
    assert x.squeeze().shape == (3,)
    assert x.squeeze(1).shape == (1, 3, 1)  # not size 1: no-op, still a view
    assert x.squeeze(1)._base is x
    assert x.squeeze((0, 2)).shape == (3,)
    assert x.squeeze(()).shape == (1, 3, 1)
    assert mt.tensor(2.0).squeeze().shape == ()
    assert mt.tensor(2.0).squeeze(0).shape == ()


def test_split_chunk_counts():
    assert [t.shape[0] for t in _x(5, 2).split(2)] == [2, 2, 1]
    assert [t.shape[0] for t in _x(5, 2).chunk(4)] == [2, 2, 1]
    assert [t.shape[0] for t in _x(0, 3).chunk(3)] == [0, 0, 0]
    assert [t.shape[0] for t in _x(0, 3).split(2)] == [0]
    assert len(_x(0, 3).unbind()) == 0
    assert isinstance(_x(2, 3).split(1), tuple)
    assert [t.shape[1] for t in _x(2, 5).tensor_split([1, 4, 2], 1)] == [1, 3, 0, 3]
    assert [t.shape[0] for t in _x(7).tensor_split(mt.tensor(3))] == [3, 2, 2]


def test_cat_promotes_and_skips_empty_1d():
    a = mt.arange(6).reshape(2, 3)
    b = mt.zeros(0, dtype=mt.float64)
    out = mt.cat([a, b])
    assert out.dtype is mt.float64 and out.shape == (2, 3)
    assert mt.cat([mt.zeros(0), mt.zeros(0)]).shape == (0,)
    assert mt.cat([mt.ones(2, 3), mt.zeros(0)], dim=1).shape == (2, 3)
    assert mt.cat([a, mt.ones(1, 3, dtype=mt.float16)]).dtype is mt.float16
    assert mt.cat([a.bool(), a.int()]).dtype is mt.int32


def test_cat_grad_reaches_skipped_input():
    a = mt.randn(2, 3, requires_grad=True)
    e = mt.zeros(0, requires_grad=True)
    mt.cat([a, e], 1).sum().backward()
    assert e.grad.shape == (0,)
    np.testing.assert_array_equal(a.grad.numpy(), np.ones((2, 3)))


def test_cat_and_stack_out():
    out = mt.empty(4, 3)
    r = mt.cat([mt.ones(2, 3), mt.zeros(2, 3)], out=out)
    assert r is out and out.sum().item() == 6
    out = mt.empty(2, 2, 3)
    assert mt.stack([mt.ones(2, 3), mt.ones(2, 3)], out=out) is out


def test_cat_device_mismatch(device):
    if device == "cpu":
        pytest.skip("needs a second device")
    with pytest.raises(RuntimeError, match="Expected all tensors to be on the same device"):
        mt.cat([mt.ones(2), mt.ones(2, device=device)])


def test_t_of_0d_and_1d_are_views():
    v = _x(3)
    assert v.t()._base is v and v.t().shape == (3,)
    s = mt.tensor(1.0)
    assert s.t().shape == ()


def test_T_warns_for_other_than_2d(monkeypatch):
    monkeypatch.setitem(mt._settings._state, "warn_always", True)  # torch warns once per process
    with pytest.warns(UserWarning, match="other than 2"):
        assert _x(2, 3, 4).T.shape == (4, 3, 2)
    with pytest.warns(UserWarning, match="0-D"):
        assert mt.tensor(1.0).T.shape == ()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert _x(2, 3).T.shape == (3, 2)


def test_meshgrid_warns_without_indexing_and_is_a_view(monkeypatch):
    monkeypatch.setitem(mt._settings._state, "warn_always", True)  # torch warns once per process
    a, b = mt.arange(3.0), mt.arange(2.0)
    with pytest.warns(UserWarning, match="indexing"):
        x, y = mt.meshgrid(a, b)
    assert x.shape == (3, 2) and x._base is a
    x, y = mt.meshgrid([a, b], indexing="xy")
    assert x.shape == (2, 3)
    np.testing.assert_array_equal(x.numpy(), np.meshgrid(a.numpy(), b.numpy())[0])


def test_atleast_forms():
    x = _x(2, 3)
    assert mt.atleast_1d(x) is x
    assert isinstance(mt.atleast_2d(x, x), tuple)
    assert isinstance(mt.atleast_3d([x]), tuple)


def test_view_dtype():
    x = mt.tensor([1.0, 2.0])
    v = x.view(mt.int32)
    assert v.dtype is mt.int32 and v.tolist() == [1065353216, 1073741824]
    assert x.view(mt.float16).shape == (4,)
    v = x.view(mt.float32)  # torch: an alias, neither an autograd view nor differentiable
    assert v._base is None and v.data_ptr() == x.data_ptr()


def test_repeat_interleave_forms():
    assert mt.repeat_interleave(mt.tensor([1, 0, 2])).tolist() == [0, 2, 2]
    x = mt.tensor([[1, 2], [3, 4]])
    assert x.repeat_interleave(2).tolist() == [1, 1, 2, 2, 3, 3, 4, 4]
    assert x.repeat_interleave(mt.tensor([2]), dim=0).shape == (4, 2)
    assert x.repeat_interleave(mt.tensor(2), dim=1).tolist() == [[1, 1, 2, 2], [3, 3, 4, 4]]


def test_combinations_edge_cases():
    x = mt.arange(3.0)
    assert mt.combinations(x, 0).shape == (0,)
    assert mt.combinations(x, 4).shape == (0, 4)
    assert mt.combinations(x, 1).shape == (3, 1)


def test_as_strided_default_offset_is_the_views():
    x = mt.arange(12.0)
    v = x[4:]
    assert v.as_strided((2,), (1,)).tolist() == [4.0, 5.0]
    assert v.as_strided((2,), (1,), 0).tolist() == [0.0, 1.0]  # offset counts from the storage


def test_diagonal_is_writable_view():
    x = mt.zeros(3, 3)
    x.diagonal().fill_(1.0)
    np.testing.assert_array_equal(x.numpy(), np.eye(3))
    x.diagonal(1).add_(2.0)
    assert x[0, 1].item() == 2.0 and x[1, 2].item() == 2.0


def test_no_host_transfers_on_device():
    from minitorch._backend.strict import count_transfers

    x = mt.randn(2, 3, 4, device="strict", requires_grad=True)
    with count_transfers() as t:
        y = x * 1
        outs = [
            y.view(6, 4),
            y.reshape(-1),
            y.transpose(0, 1).reshape(-1),
            y.flatten(1),
            y.squeeze(),
            y.unsqueeze(0),
            y.permute(2, 0, 1),
            y.mT,
            y.expand(2, 2, 3, 4),
            mt.cat([y, y], 1),
            mt.stack([y, y]),
            y.narrow(2, 1, 2),
            y.diagonal(0, 1, 2),
            y.tril(),
            y.repeat(1, 2, 1),
            y.repeat_interleave(2, 1),
            y.flip(0),
            y.roll(1, 2),
            y.rot90(1, (1, 2)),
            y.unfold(2, 2, 1),
            y.as_strided((2, 2), (1, 2)),
            mt.diag_embed(y),
            mt.combinations(y[0, 0]),
        ]
        outs += list(y.split(2, 2)) + list(y.unbind(1)) + list(y.chunk(2, 2))
        total = sum((o * 1.5).sum() for o in outs)
        total.backward()
    assert t.count == 0, f"{t.count} device-to-host transfers"
