"""Argument errors of nn.functional, torch.<nn op> and module constructors in torch's words, and
the keyword order of torch's parser listings (checked without torch)."""

from __future__ import annotations

import pytest

import minitorch as mt
import minitorch.nn.functional as F
from minitorch import nn
from minitorch._ops._parser_errors import hash_map_order


@pytest.mark.parametrize(
    ("call_order", "listed"),
    [
        ("a b c d e", "e c b d a"),
        ("bias dilation padding groups stride", "stride groups dilation padding bias"),
        ("stable dim descending foo", "foo dim descending stable"),
        ("input keepdim unbiased dim", "unbiased keepdim dim input"),
        ("dim dtype", "dtype dim"),
        ("dtype dim", "dim dtype"),
        ("alpha out foo", "foo out alpha"),
        (  # past 13 keys: the map rehashes into 29 buckets
            " ".join(f"k{i}" for i in range(20)),
            "k19 k18 k16 k15 k13 k0 k2 k14 k12 k5 k9 k1 k6 k3 k4 k7 k17 k8 k10 k11",
        ),
    ],
)
def test_keyword_listing_order_is_the_hash_maps(call_order, listed):
    assert hash_map_order(call_order.split()) == listed.split()


def test_conv2d_listing_orders_keywords_as_torch():
    x, w = mt.zeros(1, 3, 5, 5), mt.zeros(2, 3, 3, 3)
    with pytest.raises(TypeError) as info:
        mt.conv2d(x, w, bias=[1.5], dilation=1, padding=0, groups=1, stride=1)
    first = str(info.value).splitlines()[0]
    assert first.endswith(
        "got (Tensor, Tensor, stride=int, groups=int, dilation=int, padding=int, bias=list), "
        "but expected one of:"
    ), first
    assert "incorrect: stride, groups, dilation, padding, bias" in str(info.value)


def _message(fn):
    with pytest.raises(Exception) as info:  # noqa: PT011 - the type is asserted with the text
        fn()
    return f"{type(info.value).__name__}: {info.value}"


def test_functional_argument_errors():
    x, idx = mt.zeros(2, 3, 4), mt.tensor([[0, 1]])
    assert _message(lambda: F.softmax("a")) == (
        "AttributeError: 'str' object has no attribute 'dim'"
    )
    assert _message(lambda: F.layer_norm(x, (4.0,))) == (
        "TypeError: layer_norm(): argument 'normalized_shape' (position 2) must be tuple of "
        "ints, but found element of type float at pos 0"
    )
    assert _message(lambda: F.layer_norm(x, [4, 1.5])) == (
        "TypeError: layer_norm(): argument 'normalized_shape' failed to unpack the object at "
        'pos 2 with error "type must be tuple of ints,but got float"'
    )
    assert _message(lambda: F.one_hot(tensor=idx)) == (
        'TypeError: one_hot() missing 1 required positional arguments: "input"'
    )
    assert _message(lambda: F.one_hot(idx, foo=1)) == (
        "TypeError: one_hot() got an unexpected keyword argument 'foo'"
    )
    assert _message(lambda: F.cosine_similarity(x, x, axis=1, dim=1)) == (
        "TypeError: cosine_similarity() got an unexpected keyword argument 'axis'"
    )
    assert F.cosine_similarity(x, x, axis=2).shape == (2, 3)
    assert "upsample_nearest2d()" in _message(
        lambda: F.interpolate(mt.zeros(1, 1, 2, 2), scale_factor=mt.tensor(2))
    )


def test_torch_namespace_argument_errors():
    x = mt.zeros(2, 3, 4)
    assert _message(lambda: mt.softmax(dim=1)) == (
        'TypeError: softmax() missing 2 required positional argument: "input", "dim"'
    )
    assert _message(lambda: mt.softmax(x, 1, "a")) == (
        "TypeError: softmax(): argument 'dtype' (position 3) must be torch.dtype, not str"
    )
    assert _message(lambda: x.softmax(1, "a")) == (
        "TypeError: softmax(): argument 'dtype' (position 2) must be torch.dtype, not str"
    )
    assert _message(lambda: mt.layer_norm(x)) == (
        'TypeError: layer_norm() missing 1 required positional arguments: "normalized_shape"'
    )
    assert _message(lambda: mt.layer_norm(x, (4,), cudnn_enable="a")) == (
        "TypeError: layer_norm(): argument 'cudnn_enable' must be bool, not str"
    )
    assert _message(lambda: mt.batch_norm(x, None, None, None, None, 1, 0.1, 1e-5)) == (
        "TypeError: batch_norm(): argument 'training' (position 6) must be bool, not int"
    )
    assert _message(lambda: mt.embedding(mt.zeros(5, 4), mt.tensor([1]), None)) == (
        "TypeError: embedding(): argument 'padding_idx' (position 3) must be int, not NoneType"
    )
    assert _message(lambda: mt.max_pool2d(kernel_size=2)) == (
        'TypeError: max_pool2d() missing 2 required positional argument: "input", "kernel_size"'
    )
    assert _message(lambda: mt.dropout(x, "a", False)) == (
        "TypeError: dropout(): argument 'p' (position 2) must be float, not str"
    )


def test_module_argument_errors():
    assert _message(lambda: nn.Conv2d(3, 2, 3, stride=mt.tensor(1))) == (
        "TypeError: iteration over a 0-d tensor"
    )
    assert repr(nn.Conv2d(3, 2, 3, stride=mt.tensor([2, 1])).stride) == "(tensor(2), tensor(1))"
    assert _message(lambda: nn.Linear(4, 5, device=1.5)) == (
        "TypeError: empty(): argument 'device' must be torch.device, not float"
    )
    lstm, x = nn.LSTM(4, 5), mt.zeros(2, 3, 4)
    assert _message(lambda: lstm(x, x)) == (
        "RuntimeError: For batched 3-D input, hx and cx should also be 3-D but got (2-D, 2-D) "
        "tensors"
    )
    conv = nn.Conv2d(3, 2, 3)
    text = _message(lambda: conv("a"))
    assert text.startswith(
        "TypeError: conv2d() received an invalid combination of arguments - got (str, "
        "Parameter, Parameter, tuple, tuple, tuple, int), but expected one of:"
    ), text
    assert "(!str!, !Parameter!, !Parameter!, !tuple of (int, int)!," in text
    attention = nn.MultiheadAttention(4, 2)
    assert _message(lambda: attention(None, x, x)) == (
        "AttributeError: 'NoneType' object has no attribute 'dim'"
    )
    layer = nn.TransformerEncoderLayer(4, 2)
    assert _message(lambda: layer(x, src_mask="a")) == (
        "RuntimeError: input to _none_or_dtype() must be None or torch.Tensor"
    )
