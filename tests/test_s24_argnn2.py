"""Wrong-typed arguments of nn.functional (second pass): torch's exception type and message
(the literals are torch 2.13's for the same calls)."""

import pytest

import minitorch as torch
import minitorch.nn.functional as F

X = torch.ones(1, 4, 4, 4)
X1 = torch.ones(1, 2, 6)

CASES = [
    (
        "F.pad(None, (1, 1))",
        TypeError,
        "pad(): argument 'input' (position 1) must be Tensor, not NoneType",
    ),
    (
        "F.pad(X1, (1, 1), None)",
        TypeError,
        "pad(): argument 'mode' (position 3) must be str, not NoneType",
    ),
    (
        "F.pad(X1, (1, 1), 'constant', 'a')",
        TypeError,
        "pad(): argument 'value' (position 4) must be float, not str",
    ),
    ("F.softmin(None, 0)", TypeError, "bad operand type for unary -: 'NoneType'"),
    ("F.softmin(1.5, 0)", AttributeError, "'float' object has no attribute 'softmax'"),
    ("F.softsign(None)", AttributeError, "'NoneType' object has no attribute 'abs'"),
    ("F.tanhshrink([1.0])", AttributeError, "'list' object has no attribute 'tanh'"),
    ("F.glu(None)", AttributeError, "'NoneType' object has no attribute 'dim'"),
    (
        "F.prelu(X, None)",
        TypeError,
        "prelu(): argument 'weight' (position 2) must be Tensor, not NoneType",
    ),
    (
        "F.bilinear(X1, X1, None)",
        TypeError,
        "bilinear(): argument 'weight' (position 3) must be Tensor, not NoneType",
    ),
    (
        "F.rrelu(X, training=None)",
        TypeError,
        "rrelu(): argument 'training' (position 4) must be bool, not NoneType",
    ),
    (
        "F.rrelu(X, lower=torch.ones(2))",
        TypeError,
        "rrelu(): argument 'lower' (position 2) must be Number, not Tensor",
    ),
    (
        "F.pixel_shuffle(X, 1.5)",
        TypeError,
        "pixel_shuffle(): argument 'upscale_factor' (position 2) must be int, not float",
    ),
    (
        "F.pixel_unshuffle(None, 2)",
        TypeError,
        "pixel_unshuffle(): argument 'input' (position 1) must be Tensor, not NoneType",
    ),
    (
        "F.channel_shuffle(X, torch.ones(2))",
        TypeError,
        "channel_shuffle(): argument 'groups' (position 2) must be int, not Tensor",
    ),
    (
        "F.pdist(None)",
        TypeError,
        "pdist(): argument 'input' (position 1) must be Tensor, not NoneType",
    ),
    (
        "F.pdist(torch.ones(3, 2), 'a')",
        TypeError,
        "pdist(): argument 'p' (position 2) must be float, not str",
    ),
    (
        "F.grid_sample(X, torch.zeros(1, 2, 2, 2), align_corners='a')",
        TypeError,
        "grid_sampler(): argument 'align_corners' (position 5) must be bool, not str",
    ),
    (
        "F.grid_sample(X, None, align_corners=False)",
        TypeError,
        "grid_sampler(): argument 'grid' (position 2) must be Tensor, not NoneType",
    ),
    (
        "F.embedding_bag(None, torch.ones(10, 3))",
        AttributeError,
        "'NoneType' object has no attribute 'dim'",
    ),
    (
        "F.embedding_bag(torch.tensor([[1, 2]]), None)",
        AttributeError,
        "'NoneType' object has no attribute 'dtype'",
    ),
    (
        "F.embedding_bag(torch.tensor([[1, 2]]), torch.ones(10, 3), sparse=None)",
        TypeError,
        "embedding_bag(): argument 'sparse' (position 6) must be bool, not NoneType",
    ),
    (
        "F.embedding_bag(torch.tensor([[1, 2]]), torch.ones(10, 3), max_norm='a')",
        TypeError,
        "embedding_renorm_(): argument 'max_norm' (position 3) must be float, not str",
    ),
    (
        "F.max_pool2d(X, 2, ceil_mode=None)",
        TypeError,
        "max_pool2d(): argument 'ceil_mode' (position 6) must be bool, not NoneType",
    ),
    (
        "F.max_pool2d(X, 2, ceil_mode=1, return_indices=True)",
        TypeError,
        "max_pool2d_with_indices(): argument 'ceil_mode' (position 6) must be bool, not int",
    ),
    (
        "F.max_pool2d(X, None)",
        TypeError,
        "max_pool2d(): argument 'kernel_size' (position 2) must be tuple of ints, not NoneType",
    ),
    (
        "F.max_pool1d(X1, torch.ones(2))",
        TypeError,
        "max_pool1d(): argument 'kernel_size' (position 2) must be tuple of ints, not Tensor",
    ),
    (
        "F.max_pool1d(X1, 2, ceil_mode='a')",
        TypeError,
        "max_pool1d(): argument 'ceil_mode' (position 6) must be bool, not str",
    ),
    (
        "F.avg_pool2d(X, 2, count_include_pad=None)",
        TypeError,
        "avg_pool2d(): argument 'count_include_pad' must be bool, not NoneType",
    ),
    (
        "F.avg_pool3d(X[None], 2, divisor_override=1.5)",
        TypeError,
        "avg_pool3d(): argument 'divisor_override' must be int, not float",
    ),
    (
        "F.avg_pool1d(X1, 2, ceil_mode=0)",
        TypeError,
        "avg_pool1d(): argument 'ceil_mode' must be bool, not int",
    ),
    (
        "F.max_unpool2d(*F.max_pool2d(X, 2, return_indices=True)[:1], None, 2)",
        TypeError,
        "max_unpool2d(): argument 'indices' (position 2) must be Tensor, not NoneType",
    ),
    (
        "F.conv_transpose2d(X, torch.ones(4, 2, 3, 3), groups=1.5)",
        TypeError,
        "conv_transpose2d(): argument 'groups' must be int, not float",
    ),
    (
        "F.scaled_dot_product_attention(X, X, X, is_causal=None)",
        TypeError,
        "scaled_dot_product_attention(): argument 'is_causal' must be bool, not NoneType",
    ),
    (
        "F.scaled_dot_product_attention(X, X, X, enable_gqa=1)",
        TypeError,
        "scaled_dot_product_attention(): argument 'enable_gqa' must be bool, not int",
    ),
]


@pytest.mark.filterwarnings("ignore")
@pytest.mark.parametrize("call, kind, message", CASES)
def test_wrong_typed_argument_matches_torch(call, kind, message):
    with pytest.raises(kind) as info:
        eval(call)
    assert type(info.value) is kind
    assert str(info.value) == message


@pytest.mark.parametrize(
    "call",
    [
        lambda: F.interpolate(X1, size=8, mode="linear", align_corners="a"),
        lambda: F.interpolate(X, size=8, mode="bicubic", align_corners=1),
        lambda: F.conv2d(X, torch.ones(4, 2, 3, 3), groups=1.5),
        lambda: F.conv1d(X1, torch.ones(2, 2, 3), groups=None),
    ],
)
def test_wrong_typed_argument_is_a_type_error(call):
    # torch: "... received an invalid combination of arguments" (a TypeError)
    with pytest.raises(TypeError):
        call()


def test_right_typed_arguments_still_accepted():
    assert F.pad(X1, (1, 1), value=torch.tensor(2.0)).sum().item() == 20.0
    assert F.pdist(torch.ones(3, 2), True).shape == (3,)
    assert F.rrelu(X, lower=torch.tensor(0.1)).shape == X.shape
    assert F.max_pool1d(X1, torch.tensor([2])).shape == (1, 2, 3)
    assert F.avg_pool2d(X, torch.tensor(2), stride=torch.tensor(2)).shape == (1, 4, 2, 2)
    assert F.conv2d(X, torch.ones(4, 2, 3, 3), groups=torch.tensor(2)).shape == (1, 4, 2, 2)
