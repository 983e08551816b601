"""Shape, join and split ops: mismatches with torch found by differential fuzzing (session 22).
Expected values are torch 2.13's, obtained by running it."""

import numpy as np
import pytest

import minitorch as torch
from minitorch.autograd import gradcheck, gradgradcheck


def _f64(*shape, start=1.0):
    n = int(np.prod(shape))
    return torch.arange(start, start + n, dtype=torch.float64).reshape(shape)


# --- silently wrong gradients / values ---


def test_as_strided_of_expanded_input_shares_the_gradient():
    # torch divides a memory position's gradient among the input elements sitting there, so
    # the expand's backward adds it up once (it was counted once per expanded copy)
    b = torch.tensor([[1.5]], dtype=torch.float64, requires_grad=True)
    b.expand(1, 4).as_strided((2,), (0,), 0).sum().backward()
    assert b.grad.tolist() == [[2.0]]

    def f(b):
        return b.expand(4, 3).as_strided((2, 3), (1, 1))

    b = _f64(4, 1).requires_grad_()
    o = f(b)
    assert o.tolist() == [[1.0, 2.0, 3.0], [2.0, 3.0, 4.0]]
    (o * o * torch.arange(6.0, dtype=torch.float64).reshape(2, 3)).sum().backward()
    assert b.grad.flatten().tolist() == [0.0, 16.0, 36.0, 40.0]
    assert gradcheck(f, (_f64(4, 1).requires_grad_(),))
    assert gradgradcheck(lambda b: f(b) ** 2, (_f64(4, 1).requires_grad_(),))

    def g(b):
        return b.t().unsqueeze(0).expand(2, 3, 2).as_strided((3,), (2,), 1)

    b = _f64(2, 3).requires_grad_()
    o = g(b)
    assert o.tolist() == [2.0, 4.0, 6.0]
    (o * torch.arange(1.0, 4.0, dtype=torch.float64)).sum().backward()
    assert b.grad.tolist() == [[0.0, 1.0, 0.0], [2.0, 0.0, 3.0]]
    assert gradcheck(g, (_f64(2, 3).requires_grad_(),))
    assert gradgradcheck(lambda b: g(b) ** 2, (_f64(2, 3).requires_grad_(),))


def test_atleast_nd_of_a_list_is_a_tuple_of_whole_tensors():
    # a one-tensor list came back as the tensor's rows
    x = torch.zeros(2, 3)
    for f in (torch.atleast_1d, torch.atleast_2d):
        out = f([x])
        assert isinstance(out, tuple) and len(out) == 1 and out[0].shape == (2, 3)
    out = torch.atleast_1d([torch.tensor(1.0)])
    assert isinstance(out, tuple) and out[0].shape == (1,)
    out = torch.atleast_3d((x,))
    assert isinstance(out, tuple) and out[0].shape == (2, 3, 1)


def test_view_as_own_dtype_is_a_non_differentiable_alias():
    a = torch.ones(3, requires_grad=True)
    b = a.view(torch.float32)
    assert not b.requires_grad and b.grad_fn is None and b._base is None
    with torch.no_grad():
        b.add_(1)
    assert a.tolist() == [2.0, 2.0, 2.0] and a._version == b._version == 1


# --- layouts ---


def test_flip_without_dims_keeps_the_layout():
    x = torch.zeros(2, 3, 4).permute(2, 0, 1)
    y = x.flip([])
    assert y.stride() == (1, 12, 4) and not y.is_contiguous()
    assert y.untyped_storage().data_ptr() != x.untyped_storage().data_ptr()
    assert torch.zeros(2, 3)[:, ::2].flip([]).stride() == (2, 1)


def test_repeat_interleave_result_is_contiguous():
    x = torch.arange(6.0).reshape(2, 3).t()
    assert x.repeat_interleave(1, dim=0).stride() == (2, 1)
    y = torch.zeros(1, 4, 3).permute(0, 2, 1).repeat_interleave(1, dim=1)
    assert y.stride() == (12, 4, 1) and y.is_contiguous()


def test_reshape_of_non_contiguous_view_is_reshape_alias():
    b = torch.zeros(3, 2, requires_grad=True)
    assert type(b.reshape(6).grad_fn).__name__ == "ViewBackward0"
    assert type(b.t().reshape(2, 1, 3).grad_fn).__name__ == "ReshapeAliasBackward0"
    assert type(b.t().reshape(6).grad_fn).__name__ == "UnsafeViewBackward0"
    e = b.unsqueeze(0).expand(2, 3, 2).reshape(2, 6)
    assert type(e.grad_fn).__name__ == "ReshapeAliasBackward0"
    assert type(b[:, :1].flatten().grad_fn).__name__ == "ReshapeAliasBackward0"
    x = _f64(3, 4).requires_grad_()
    assert gradgradcheck(lambda x: x.t().reshape(2, 2, 3) ** 2, (x,))


# --- accepted inputs ---


def test_cat_of_only_legacy_empty_tensors_takes_any_dim():
    for d in (0, 1, 5, -2, 100):
        r = torch.cat([torch.zeros(0), torch.zeros(0, dtype=torch.int64)], dim=d)
        assert r.shape == (0,) and r.dtype == torch.float32
    with pytest.raises(IndexError, match=r"range of \[-2, 1\], but got 3"):
        torch.cat([torch.zeros(0), torch.zeros(2, 3)], dim=3)


def test_split_with_no_sizes_of_an_empty_dim():
    x = torch.zeros(2, 0)
    assert torch.split_with_sizes(x, [], 1) == ()
    assert torch.split_with_sizes_copy(x, [], 1) == ()


def test_roll_of_an_empty_tensor_reads_no_dims():
    x = torch.zeros(4, 0, requires_grad=True)
    r = torch.roll(x, (1, 2), (5, -9))
    assert r.shape == (4, 0) and type(r.grad_fn).__name__ == "RollBackward0"
    with pytest.raises(RuntimeError, match="shifts and dimensions must align. shifts: 1, dims:2"):
        torch.roll(x, (1,), (0, 1))


def test_repeat_interleave_output_size_unchecked_when_nothing_to_repeat():
    assert torch.zeros(4, 0).repeat_interleave(torch.tensor(3), dim=1, output_size=1).shape == (
        4,
        0,
    )
    assert torch.zeros(0).repeat_interleave(torch.tensor(2), output_size=5).shape == (0,)
    with pytest.raises(RuntimeError, match="allocated size does not match required size"):
        torch.zeros(4, 2).repeat_interleave(torch.tensor([3]), dim=1, output_size=1)


# --- errors ---


def test_view_dtype_checks_a_size_one_last_dims_stride():
    x = torch.zeros(3, 1, 2).permute(0, 2, 1)
    with pytest.raises(RuntimeError, match=r"stride\(-1\) must be 1 to view Float as Byte .*got 2"):
        x.view(torch.uint8)
    with pytest.raises(RuntimeError, match=r"to view Float as Byte .*but got 2"):
        torch.zeros(3, 1)[:, ::2].view(torch.uint8)
    assert torch.zeros(3).unsqueeze(-1).view(torch.uint8).shape == (3, 4)
    # to a wider dtype, the storage offset is checked before the last stride
    with pytest.raises(RuntimeError, match=r"storage_offset\(\) must be divisible by 2 .*got 1$"):
        torch.zeros(12)[1::2][:4].view(torch.int64)
    with pytest.raises(RuntimeError, match=r"stride\(-1\) must be 1 .*Long .*got 2$"):
        torch.zeros(4, 12)[:, ::2][:, :4].view(torch.int64)


def test_meshgrid_checks_dtypes_first():
    msg = "^meshgrid expects all tensors to have the same dtype$"
    with pytest.raises(RuntimeError, match=msg):
        torch.meshgrid(torch.zeros(2, 2, dtype=torch.float64), torch.zeros(2), indexing="ij")
    with pytest.raises(RuntimeError, match=msg):
        torch.cartesian_prod(torch.zeros(2, dtype=torch.float64), torch.zeros(2))


def test_split_sizes_message_names_the_dim_as_given():
    with pytest.raises(RuntimeError, match=r"size at dimension -3\), but got split_sizes=\[3, 1\]"):
        torch.zeros(3, 2, 4).split([3, 1], -3)


def test_unbind_of_0d_checks_the_dim_range_first():
    with pytest.raises(IndexError, match=r"range of \[-1, 0\], but got 2"):
        torch.tensor(1.0).unbind(2)
    with pytest.raises(IndexError, match="Dimension specified as 0 but tensor has no dimensions"):
        torch.tensor(1.0).unbind(-1)


def test_repeated_dim_found_before_a_later_bad_dim():
    with pytest.raises(RuntimeError, match="dim 0 appears multiple times in the list of dims"):
        torch.zeros(2, 2, 4, 4).flip([-4, 0, 6])
    with pytest.raises(RuntimeError, match="dim 1 appears multiple times in the list of dims"):
        torch.squeeze(torch.zeros(2, 2), (-1, 1, 4))


def test_h_message_suggests_mh_only_for_batches():
    with pytest.raises(RuntimeError, match=r"Got 1-D tensor\.$"):
        _ = torch.zeros(3).H
    with pytest.raises(RuntimeError, match=r"Got 3-D tensor\. For batches of matrices, consider"):
        _ = torch.zeros(2, 2, 2).H


def test_select_and_slice_copies():
    with pytest.raises(IndexError, match=r"^slice\(\) cannot be applied to a 0-dim tensor\.$"):
        torch.slice_copy(torch.tensor(1.0), 0, 0, 1)
    with pytest.raises(IndexError, match=r"^select\(\) cannot be applied to a 0-dim tensor\.$"):
        torch.select_copy(torch.tensor(1.0), 0, 0)
    with pytest.raises(IndexError, match=r"size \[0, 3, 4\] at dimension 0$"):
        torch.select_copy(torch.zeros(0, 3, 4), -3, 0)
    with pytest.raises(IndexError, match=r"size \[2, 3\] at dimension 1$"):
        torch.select_scatter(torch.zeros(2, 3), torch.zeros(2), -1, 5)
    b = torch.ones(2, 3, requires_grad=True)
    for r in (torch.slice_copy(b, 1, 0, 3), torch.slice_copy(b, 0), torch.slice_copy(b, 1, 0, 2)):
        assert type(r.grad_fn).__name__ == "SliceBackward0_copy"


def test_select_names_the_wrapped_dim():
    with pytest.raises(IndexError, match=r"size \[2, 2, 1\] at dimension 2$"):
        torch.select(torch.zeros(2, 2, 1), -1, -2)
    with pytest.raises(IndexError, match=r"size \[2, 3, 3\] at dimension 1$"):
        torch.zeros(2, 3, 3).select(-2, 3)


def test_gradient_of_0d_with_dims():
    with pytest.raises(
        IndexError, match="^Dimension specified as -1 but tensor has no dimensions$"
    ):
        torch.gradient(torch.tensor(1.0), dim=-1)
    with pytest.raises(IndexError, match=r"range of \[-1, 0\], but got 1\)$"):
        torch.gradient(torch.tensor(1.0), dim=(0, 1))
    assert torch.gradient(torch.tensor(1.0)) == ()


def test_unsafe_chunk_of_an_empty_dim_is_split_by_sizes():
    outs = torch.unsafe_chunk(torch.zeros(0, requires_grad=True), 3)
    assert [type(t.grad_fn).__name__ for t in outs] == ["UnsafeSplitWithSizesBackward0"] * 3
    outs = torch.unsafe_chunk(torch.zeros(4, requires_grad=True), 3)
    assert [type(t.grad_fn).__name__ for t in outs] == ["UnsafeSplitBackward0"] * 2


def test_repeat_interleave_checks_the_count_before_the_dtype():
    msg = r"repeats.size\(0\) = 0 and input.size\(-1\) = 1$"
    with pytest.raises(RuntimeError, match=msg):
        torch.zeros(3, 1).repeat_interleave(torch.tensor([]), dim=-1)
    with pytest.raises(RuntimeError, match=r"repeats.size\(0\) = 2 and input.size\(0\) = 3$"):
        torch.zeros(3).repeat_interleave(torch.tensor([-1, 2]))
    with pytest.raises(NotImplementedError, match="not implemented for 'Float'"):
        torch.zeros(3).repeat_interleave(torch.tensor([1.0]))


def test_gradient_of_bool_checks_sizes_first():
    msg = r"^Subtraction, the `-` operator, with two bool tensors is not supported\. Use the"
    with pytest.raises(RuntimeError, match=msg):
        torch.gradient(torch.zeros(2, 3, dtype=torch.bool))
    with pytest.raises(RuntimeError, match="expected each dimension size to be at least"):
        torch.gradient(torch.zeros(1, 3, dtype=torch.bool))
    assert torch.gradient(torch.tensor(True), spacing=2.0) == ()


def test_view_scatters_keep_a_stepped_inputs_strides():
    b = _f64(2, 3, 4).requires_grad_()
    x = b[:, :, ::2]
    o = torch.select_scatter(x, x.select(1, 0) * 2 + 1, 1, 0)
    assert o.stride() == (12, 4, 2) and type(o.grad_fn).__name__ == "SelectScatterBackward0"
    (o * o).sum().backward()
    assert b.grad.flatten().tolist()[:8] == [12.0, 0.0, 28.0, 0.0, 10.0, 0.0, 14.0, 0.0]
    assert torch.slice_scatter(x, x[:, 1:] * 3, 1, 1).stride() == (12, 4, 2)
    assert torch.diagonal_scatter(x, x.diagonal(0, 1, 2) * 3, 0, 1, 2).stride() == (12, 4, 2)
    assert torch.select_scatter(b.expand(2, 2, 3, 4), _f64(2, 3, 4), 0, 0).is_contiguous()

    def f(b):
        return torch.slice_scatter(b[:, :, ::2], b[:, 1:, ::2] ** 2, 1, 1)

    assert gradgradcheck(f, (_f64(2, 3, 4).requires_grad_(),))
