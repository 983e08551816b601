"""Session 49, helper cc: torch's TypeError for an argument of the wrong type (a None where a
Tensor belongs, a float or bool where an int does), raised before any other check as torch's
argument parser does, where minitorch raised AttributeError, RuntimeError or IndexError, or
named another op. Each case's exception type and first message line are torch 2.13's
(tests/reference/test_s49_cc_reference.py compares them with torch itself)."""

import re

import pytest

import minitorch as torch

# (call, exception type, message): the call is evaluated with x (2, 3, 4), v (4,), m (3, 4)
# float64 tensors and i = tensor([0, 1, 2])
CASES = [
    (
        "torch.embedding_bag(None, i, i)",
        TypeError,
        "embedding_bag(): argument 'weight' (position 1) must be Tensor, not NoneType",
    ),
    (
        "torch.embedding_bag(weight=None, indices=i, offsets=i)",
        TypeError,
        "embedding_bag(): argument 'weight' must be Tensor, not NoneType",
    ),
    (
        "torch.embedding_bag(m, i, i, False, 1, False, m, False, 2.0)",
        TypeError,
        "embedding_bag(): argument 'padding_idx' (position 9) must be int, not float",
    ),
    (
        "torch.embedding_bag(m, i, i, False, 2, True, m, False, padding_idx=m[0, 0])",
        TypeError,
        "embedding_bag(): argument 'padding_idx' must be int, not Tensor",
    ),
    (
        "torch.unsafe_split_with_sizes(None, [1])",
        TypeError,
        "unsafe_split_with_sizes(): argument 'input' (position 1) must be Tensor, not NoneType",
    ),
    (
        "torch.unsafe_split_with_sizes(x, [1, 2], dim=True)",
        TypeError,
        "unsafe_split_with_sizes(): argument 'dim' must be int, not bool",
    ),
    (
        "torch.affine_grid_generator(None, [1, 2, 3, 3], True)",
        TypeError,
        "affine_grid_generator(): argument 'theta' (position 1) must be Tensor, not NoneType",
    ),
    (
        "torch.instance_norm(None, None, None, None, None, True, 0.1, 1e-5, False)",
        TypeError,
        "instance_norm(): argument 'input' (position 1) must be Tensor, not NoneType",
    ),
    (
        "torch.grid_sampler(x, x, True, 0, False)",
        TypeError,
        "grid_sampler(): argument 'interpolation_mode' (position 3) must be int, not bool",
    ),
    (
        "torch.grid_sampler_2d(None, x, 0, 0, False)",
        TypeError,
        "grid_sampler_2d(): argument 'input' (position 1) must be Tensor, not NoneType",
    ),
    (
        "torch.grid_sampler_2d(x, None, 0, 0, False)",
        TypeError,
        "grid_sampler_2d(): argument 'grid' (position 2) must be Tensor, not NoneType",
    ),
    (
        "torch.grid_sampler_2d(x, x, 1.0, 0, False)",
        TypeError,
        "grid_sampler_2d(): argument 'interpolation_mode' (position 3) must be int, not float",
    ),
    (
        "torch.grid_sampler_2d(v, v, 0, padding_mode=1.0, align_corners=False)",
        TypeError,
        "grid_sampler_2d(): argument 'padding_mode' must be int, not float",
    ),
    (
        "torch.grid_sampler_3d(None, x, 0, 0, False)",
        TypeError,
        "grid_sampler_3d(): argument 'input' (position 1) must be Tensor, not NoneType",
    ),
    (
        "torch.grid_sampler_3d(x, None, 0, 0, False)",
        TypeError,
        "grid_sampler_3d(): argument 'grid' (position 2) must be Tensor, not NoneType",
    ),
    (
        "torch.grid_sampler_3d(v, v, 0, 0, align_corners=1)",
        TypeError,
        "grid_sampler_3d(): argument 'align_corners' must be bool, not int",
    ),
    (
        "torch.margin_ranking_loss(None, v, v)",
        TypeError,
        "margin_ranking_loss(): argument 'input1' (position 1) must be Tensor, not NoneType",
    ),
    (
        "torch.margin_ranking_loss(v, None, v)",
        TypeError,
        "margin_ranking_loss(): argument 'input2' (position 2) must be Tensor, not NoneType",
    ),
    (
        "torch.margin_ranking_loss(v, v, None)",
        TypeError,
        "margin_ranking_loss(): argument 'target' (position 3) must be Tensor, not NoneType",
    ),
    (
        "torch.group_norm(None, 1)",
        TypeError,
        "group_norm(): argument 'input' (position 1) must be Tensor, not NoneType",
    ),
    (
        "torch.group_norm(v, 1.0)",
        TypeError,
        "group_norm(): argument 'num_groups' (position 2) must be int, not float",
    ),
    (
        "torch.group_norm(m, 1, 1.0)",
        TypeError,
        "group_norm(): argument 'weight' (position 3) must be Tensor, not float",
    ),
    (
        "torch.native_group_norm(None, None, None, 2, 3, 4, 1, 1e-5)",
        TypeError,
        "native_group_norm(): argument 'input' (position 1) must be Tensor, not NoneType",
    ),
    (
        "torch.native_group_norm(m, m, m, 2, True, 2, 2, 1e-5)",
        TypeError,
        "native_group_norm(): argument 'C' (position 5) must be int, not bool",
    ),
    (
        "torch.native_group_norm(m, None, None, N=2, C=1, HxW=2, group=True, eps=-1)",
        TypeError,
        "native_group_norm(): argument 'group' must be int, not bool",
    ),
    (
        "torch.native_group_norm(m, None, None, 2, 3, 4, 1, None)",
        TypeError,
        "native_group_norm(): argument 'eps' (position 8) must be float, not NoneType",
    ),
    (
        "torch.native_batch_norm(None, None, None, None, None, True, 0.1, 1e-5)",
        TypeError,
        "native_batch_norm(): argument 'input' (position 1) must be Tensor, not NoneType",
    ),
    (
        "torch.native_batch_norm(x, None, None, None, None, True, None, 1e-5)",
        TypeError,
        "native_batch_norm(): argument 'momentum' (position 7) must be float, not NoneType",
    ),
    (
        "torch.gru_cell(None, m, m, m)",
        TypeError,
        "gru_cell(): argument 'input' (position 1) must be Tensor, not NoneType",
    ),
    (
        "torch.gru_cell(m, m, m, None)",
        TypeError,
        "gru_cell(): argument 'w_hh' (position 4) must be Tensor, not NoneType",
    ),
    (
        "torch.gru_cell(m, m, m, m, 1.0)",
        TypeError,
        "gru_cell(): argument 'b_ih' (position 5) must be Tensor, not float",
    ),
    (
        "torch.lstm_cell(None, [m], m, m)",
        TypeError,
        "lstm_cell(): argument 'input' (position 1) must be Tensor, not NoneType",
    ),
    (
        "torch.lstm_cell(m, None, m, m)",
        TypeError,
        "lstm_cell(): argument 'hx' (position 2) must be tuple of Tensors, not NoneType",
    ),
    (
        "torch.lstm_cell(m, m, m, m)",
        TypeError,
        "lstm_cell(): argument 'hx' (position 2) must be tuple of Tensors, not Tensor",
    ),
    (
        "torch.lstm_cell(m, [m, None], m, m)",
        TypeError,
        "expected Tensor as element 1 in argument 1, but got NoneType",
    ),
    (
        "torch.lstm_cell(m, [m], m, None)",
        TypeError,
        "lstm_cell(): argument 'w_hh' (position 4) must be Tensor, not NoneType",
    ),
    (
        "torch.rnn_tanh_cell(m, None, m, m)",
        TypeError,
        "rnn_tanh_cell(): argument 'hx' (position 2) must be Tensor, not NoneType",
    ),
    (
        "torch.rnn_relu_cell(m, m, None, m)",
        TypeError,
        "rnn_relu_cell(): argument 'w_ih' (position 3) must be Tensor, not NoneType",
    ),
    (
        "torch.conv_tbc(None, x, v)",
        TypeError,
        "conv_tbc(): argument 'input' (position 1) must be Tensor, not NoneType",
    ),
    (
        "torch.conv_tbc(x, x, None)",
        TypeError,
        "conv_tbc(): argument 'bias' (position 3) must be Tensor, not NoneType",
    ),
    (
        "torch.conv_tbc(x, x, v, True)",
        TypeError,
        "conv_tbc(): argument 'pad' (position 4) must be int, not bool",
    ),
    (
        "torch.conv_tbc(v, x, x[0, 0], 1.0)",
        TypeError,
        "conv_tbc(): argument 'pad' (position 4) must be int, not float",
    ),
    (
        "torch.nn.functional.conv_tbc(v, x, x[0, 0], pad=True)",
        TypeError,
        "conv_tbc(): argument 'pad' must be int, not bool",
    ),
    (
        "torch.native_dropout(None, 0.5, True)",
        TypeError,
        "native_dropout(): argument 'input' (position 1) must be Tensor, not NoneType",
    ),
    (
        "torch.native_dropout(None, 0.5, False)",
        TypeError,
        "native_dropout(): argument 'input' (position 1) must be Tensor, not NoneType",
    ),
    (
        "torch.dropout(None, 1.5, False)",
        TypeError,
        "dropout(): argument 'input' (position 1) must be Tensor, not NoneType",
    ),
    (
        "torch.feature_dropout(None, 1.5, False)",
        TypeError,
        "feature_dropout(): argument 'input' (position 1) must be Tensor, not NoneType",
    ),
    (
        "torch.feature_alpha_dropout(None, 1.5, False)",
        TypeError,
        "feature_alpha_dropout(): argument 'input' (position 1) must be Tensor, not NoneType",
    ),
    (
        "torch.slice_scatter(None, x)",
        TypeError,
        "slice_scatter(): argument 'input' (position 1) must be Tensor, not NoneType",
    ),
    (
        "torch.diagonal_scatter(None, x)",
        TypeError,
        "diagonal_scatter(): argument 'input' (position 1) must be Tensor, not NoneType",
    ),
    (
        "torch.diagonal_scatter(m, v[:3], offset=None)",
        TypeError,
        "diagonal_scatter(): argument 'offset' must be int, not NoneType",
    ),
    (
        "torch.diagonal_scatter(m, v[:3], 0, 0, m)",
        TypeError,
        "diagonal_scatter(): argument 'dim2' (position 5) must be int, not Tensor",
    ),
    (
        "torch.select_scatter(None, x, 0, 0)",
        TypeError,
        "select_scatter(): argument 'input' (position 1) must be Tensor, not NoneType",
    ),
    (
        "torch.select_scatter(x, x[:, 0], 1.5, 0)",
        TypeError,
        "select_scatter(): argument 'dim' (position 3) must be int, not float",
    ),
    (
        "x.select_scatter(x, 2, index=1.0)",
        TypeError,
        "select_scatter(): argument 'index' must be int, not float",
    ),
    (
        "torch.as_strided_scatter(None, x, [2], [1])",
        TypeError,
        "as_strided_scatter(): argument 'input' (position 1) must be Tensor, not NoneType",
    ),
    (
        "torch.as_strided_scatter(m, m, [3, 4], [1], storage_offset=m[0, 0])",
        TypeError,
        "as_strided_scatter(): argument 'storage_offset' must be int, not Tensor",
    ),
    (
        "torch.as_strided_copy(None, [2], [1])",
        TypeError,
        "as_strided_copy(): argument 'input' (position 1) must be Tensor, not NoneType",
    ),
    (
        "torch.as_strided_copy(x, [2], [1], 1.0)",
        TypeError,
        "as_strided_copy(): argument 'storage_offset' (position 4) must be int, not float",
    ),
    (
        "torch.as_strided_copy(x, [2, 2], [1], storage_offset=True)",
        TypeError,
        "as_strided_copy(): argument 'storage_offset' must be int, not bool",
    ),
    (
        "x.as_strided([2], [1, 1], storage_offset=1.0)",
        TypeError,
        "as_strided(): argument 'storage_offset' must be int, not float",
    ),
    (
        "torch.diag_embed(None)",
        TypeError,
        "diag_embed(): argument 'input' (position 1) must be Tensor, not NoneType",
    ),
    (
        "torch.narrow_copy(None, 0, 0, 1)",
        TypeError,
        "narrow_copy(): argument 'input' (position 1) must be Tensor, not NoneType",
    ),
    (
        "torch.diagonal_copy(x, 1.0)",
        TypeError,
        "diagonal_copy(): argument 'offset' (position 2) must be int, not float",
    ),
    (
        "torch.diagonal(x, m[0, 0], 1, 1)",
        TypeError,
        "diagonal(): argument 'offset' (position 2) must be int, not Tensor",
    ),
    (
        "m.diagonal(None, -1, 1)",
        TypeError,
        "diagonal(): argument 'offset' (position 1) must be int, not NoneType",
    ),
    (
        "torch.expand_copy(x, size=-1)",
        TypeError,
        "expand_copy(): argument 'size' must be tuple of ints, not int",
    ),
    (
        "torch.expand_copy(x, 4)",
        TypeError,
        "expand_copy(): argument 'size' (position 2) must be tuple of ints, not int",
    ),
    (
        "torch.swapaxes(v, 1, axis1=1.0)",
        TypeError,
        "swapaxes(): argument 'axis1' must be int, not float",
    ),
    (
        "torch.swapaxes(v, 1, None)",
        TypeError,
        "swapaxes(): argument 'axis1' (position 3) must be int, not NoneType",
    ),
    (
        "torch.transpose(v, 1, 1.0)",
        TypeError,
        "transpose(): argument 'dim1' (position 3) must be int, not float",
    ),
    (
        "torch.convolution(v, v, v, 1, (1,), (1,), True, (1,), 2)",
        TypeError,
        "convolution(): argument 'stride' (position 4) must be tuple of ints, not int",
    ),
    (
        "torch.convolution(v, v, v, stride=(1,), padding=1, dilation=(1,), transposed=True, "
        "output_padding=(1,), groups=2)",
        TypeError,
        "convolution(): argument 'padding' must be tuple of ints, not int",
    ),
    (
        "torch.convolution(None, m, v, (1,), (1,), (1,), False, (0,), 1)",
        TypeError,
        "convolution(): argument 'input' (position 1) must be Tensor, not NoneType",
    ),
    (
        "torch.convolution(m, m, v, (1,), (1,), (1,), False, (0,), groups=None)",
        TypeError,
        "convolution(): argument 'groups' must be int, not NoneType",
    ),
    (
        "torch.convolution(m, m, v, (1.0,), (1,), (1,), False, (0,), 1)",
        TypeError,
        "convolution(): argument 'stride' (position 4) must be tuple of ints, but found element "
        "of type float at pos 0",
    ),
    (
        "torch.convolution(x, m, v, (1,), (1,), (1,), 1, (0,), 1)",
        TypeError,
        "convolution(): argument 'transposed' (position 7) must be bool, not int",
    ),
]


def _names():
    g = torch.Generator().manual_seed(0)
    return {
        "torch": torch,
        "x": torch.randn(2, 3, 4, dtype=torch.float64, generator=g),
        "v": torch.randn(4, dtype=torch.float64, generator=g),
        "m": torch.randn(3, 4, dtype=torch.float64, generator=g),
        "i": torch.tensor([0, 1, 2]),
    }


@pytest.mark.parametrize(("call", "kind", "message"), CASES, ids=[c[0] for c in CASES])
def test_argument_type_error(call, kind, message):
    with pytest.raises(kind) as info:
        eval(call, _names())
    assert type(info.value) is kind, type(info.value)
    assert str(info.value).split("\n")[0] == message


def test_well_typed_calls_unchanged():
    """The calls whose checks moved into except clauses still compute (values of the ops whose
    argument checks were restructured: a sample)."""
    n = _names()
    x, v, m = n["x"], n["v"], n["m"]
    assert torch.swapaxes(x, 0, 2).shape == (4, 3, 2)
    assert torch.transpose(x, -1, 0).shape == (4, 3, 2)
    assert torch.diagonal(x, 1, 1, 2).shape == (2, 3)
    assert torch.equal(torch.expand_copy(v, (3, 4)), v.expand(3, 4))
    assert torch.equal(torch.expand_copy(v, [3, 4]), v.expand(3, 4))
    assert torch.equal(torch.diagonal_scatter(m, m.diagonal()), m)
    assert torch.equal(torch.select_scatter(x, x[:, 0], 1, 0), x)
    out = torch.as_strided_copy(x, (2, 2), (1, 2), 1)
    assert torch.equal(out, torch.as_strided(x, (2, 2), (1, 2), 1))
    parts = torch.unsafe_split_with_sizes(x, [1, 2], 1)
    assert [tuple(p.shape) for p in parts] == [(2, 1, 4), (2, 2, 4)]
    with pytest.raises(IndexError, match=re.escape("Dimension out of range")):
        torch.swapaxes(v, 1, 0)  # a right-typed axis1: the range error stays
    with pytest.raises(RuntimeError, match="dropout probability has to be between 0 and 1"):
        torch.dropout(x, 1.5, False)
