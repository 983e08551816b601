"""Session 38 (helper modsweep): torch-free regression tests of the library fixes the nn.Module
sweep of tests/reference/test_s38_modsweep_reference.py found: Conv/ConvTranspose arguments
kept as torch's _single/_pair/_triple keep them (a 1-tuple as given, a string as its
characters); the padding and pooling classes whose own __init__ torch's argument errors name;
EmbeddingBag's offsets checks (include_last_offset with no offset, 2-d input of empty bags);
the bias behind a padding string ('same'/'valid': no conv*d bias check, torch's oneDNN message
or the bias cast to the input's dtype); bilinear's size reads (0-d tensors, a weight of the
wrong rank, the bias's first dim); instance_norm of an empty batch with an affine weight.
torch's messages are written here as literals."""

from __future__ import annotations

import numpy as np
import pytest

import minitorch as mt

F = mt.nn.functional
nn = mt.nn

SELECT = "select(): index 0 out of range for tensor of size [0] at dimension 0"


def _message(exc_type, fn):
    with pytest.raises(exc_type) as info:
        fn()
    return str(info.value)


def _randn(seed, *shape, dtype=mt.float64):
    return mt.randn(*shape, generator=mt.Generator().manual_seed(seed), dtype=dtype)


# --- Conv arguments as torch's _pair keeps them ---


def test_conv_one_tuple_kernel_stays_one_tuple():
    conv = nn.Conv2d(2, 2, (3,))
    assert conv.kernel_size == (3,)
    assert tuple(conv.weight.shape) == (2, 2, 3)
    assert repr(conv) == "Conv2d(2, 2, kernel_size=(3,), stride=(1, 1))"
    msg = (
        "expected stride to be a single integer value or a list of 1 values to match the "
        "convolution dimensions, but got stride=[1, 1]"
    )
    assert _message(RuntimeError, lambda: conv(mt.zeros(1, 2, 5, 5))) == msg


def test_conv_one_tuple_stride_and_padding_broadcast_in_forward():
    conv = nn.Conv2d(2, 2, 3, stride=[2], padding=(1,))
    assert repr(conv) == "Conv2d(2, 2, kernel_size=(3, 3), stride=(2,), padding=(1,))"
    assert tuple(conv(mt.zeros(1, 2, 5, 5)).shape) == (1, 2, 3, 3)
    tr = nn.ConvTranspose2d(2, 2, 3, output_padding=(1,), stride=2)
    assert tr.output_padding == (1,)
    assert tuple(tr(mt.zeros(1, 2, 5, 5)).shape) == (1, 2, 12, 12)


def test_conv_transpose_string_padding_is_its_characters():
    tr = nn.ConvTranspose2d(2, 2, 3, padding="same")
    assert tr.padding == ("s", "a", "m", "e")
    want = "ConvTranspose2d(2, 2, kernel_size=(3, 3), stride=(1, 1), padding=('s', 'a', 'm', 'e'))"
    assert repr(tr) == want
    msg = (
        "conv_transpose2d(): argument 'padding' (position 5) must be tuple of ints, but found "
        "element of type str at pos 0"
    )
    assert _message(TypeError, lambda: tr(mt.zeros(1, 2, 5, 5))) == msg
    assert nn.ConvTranspose1d(2, 2, 3, padding="valid").padding == ("v", "a", "l", "i", "d")
    assert nn.ConvTranspose3d(2, 2, 3, output_padding="ab").output_padding == ("a", "b")


# --- argument errors name the class whose __init__ torch defines ---


@pytest.mark.parametrize(
    "call, msg",
    [
        (lambda: nn.ConstantPad1d(2), "ConstantPad1d.__init__() missing 1 required positional "
         "argument: 'value'"),
        (lambda: nn.ZeroPad2d(), "ZeroPad2d.__init__() missing 1 required positional argument: "
         "'padding'"),
        (lambda: nn.ReflectionPad3d(1, 2), "ReflectionPad3d.__init__() takes 2 positional "
         "arguments but 3 were given"),
        (lambda: nn.ReplicationPad2d(), "ReplicationPad2d.__init__() missing 1 required "
         "positional argument: 'padding'"),
        (lambda: nn.CircularPad1d(bogus=1), "CircularPad1d.__init__() got an unexpected keyword "
         "argument 'bogus'"),
        (lambda: nn.AvgPool2d(), "AvgPool2d.__init__() missing 1 required positional argument: "
         "'kernel_size'"),
        (lambda: nn.MaxUnpool3d(1, 2, 3, 4), "MaxUnpool3d.__init__() takes from 2 to 4 "
         "positional arguments but 5 were given"),
        (lambda: nn.FractionalMaxPool2d(), "FractionalMaxPool2d.__init__() missing 1 required "
         "positional argument: 'kernel_size'"),
    ],
)  # fmt: skip
def test_init_errors_name_the_class(call, msg):
    assert _message(TypeError, call) == msg


def test_own_init_copies_still_build():
    assert repr(nn.ZeroPad2d(1)) == "ZeroPad2d((1, 1, 1, 1))"
    assert repr(nn.ConstantPad1d(2, 3.5)) == "ConstantPad1d(padding=(2, 2), value=3.5)"
    assert repr(nn.AvgPool2d(2)) == "AvgPool2d(kernel_size=2, stride=2, padding=0)"
    assert repr(nn.MaxUnpool1d(2)) == "MaxUnpool1d(kernel_size=(2,), stride=(2,), padding=(0,))"


# --- EmbeddingBag's offsets ---


def test_embedding_bag_include_last_offset_needs_an_offset():
    bag = nn.EmbeddingBag(5, 3, include_last_offset=True)
    idx = mt.tensor([0, 2, 4])
    msg = "include_last_offset: number of offset should be at least 1"
    assert _message(RuntimeError, lambda: bag(idx, idx[:0])) == msg
    # before the index range is checked
    assert _message(RuntimeError, lambda: bag(idx + 9, idx[:0])) == msg
    assert tuple(bag(idx, idx[:1]).shape) == (0, 3)


def test_embedding_bag_2d_input_of_empty_bags():
    bag = nn.EmbeddingBag(5, 3)
    # torch's offsets are arange(0, numel, input.size(1)): a step of 0
    assert _message(RuntimeError, lambda: bag(mt.zeros(2, 0).long())) == "step must be nonzero"
    assert _message(RuntimeError, lambda: bag(mt.zeros(0, 0).long())) == "step must be nonzero"


# --- the bias behind a padding string ---


def test_string_padding_casts_a_bias_of_another_dtype():
    x = _randn(0, 1, 3, 5, 6, dtype=mt.float32).requires_grad_(True)
    w = _randn(1, 2, 3, 3, 3, dtype=mt.float32).requires_grad_(True)
    b64 = _randn(2, 2).requires_grad_(True)
    for pad in ("same", "valid"):
        out = F.conv2d(x, w, b64, padding=pad)
        assert out.dtype == mt.float32
        want = F.conv2d(x, w, b64.detach().float(), padding=pad)
        np.testing.assert_allclose(out.detach().numpy(), want.detach().numpy(), rtol=1e-6)
        g = _randn(3, *out.shape, dtype=mt.float32)
        out.backward(g)
        assert b64.grad.dtype == mt.float64
        np.testing.assert_allclose(b64.grad.numpy(), g.double().sum((0, 2, 3)).numpy(), rtol=1e-5)
        b64.grad = None
    # an integer bias is cast as well
    assert F.conv2d(x, w, mt.ones(2).long(), padding="same").dtype == mt.float32


def test_string_padding_dtype_messages():
    x, w, b = mt.zeros(1, 3, 6, 6), mt.zeros(2, 3, 3, 3), mt.zeros(2)
    # the input against the weight, with no bias check first
    want = "expected scalar type Double but found Float"
    assert _message(RuntimeError, lambda: F.conv2d(x.double(), w, b, padding="same")) == want
    onednn = (
        "Input type (torch.HalfTensor) and weight type (torch.FloatTensor) should be the same or "
        "input should be a MKLDNN tensor and weight is a dense tensor"
    )
    assert _message(RuntimeError, lambda: F.conv2d(x.half(), w, b, padding="valid")) == onednn
    # oneDNN's kernel (a batch of 2 here, or a half input) refuses the bias
    msg = (
        "Input type (torch.FloatTensor) and bias type (torch.DoubleTensor) should be the same "
        "or input should be a MKLDNN tensor and bias is a dense tensor"
    )
    x2 = mt.zeros(2, 3, 6, 6)
    assert _message(RuntimeError, lambda: F.conv2d(x2, w, b.double(), padding="same")) == msg
    assert (
        _message(RuntimeError, lambda: F.conv2d(x2, w, b.double(), padding="valid", dilation=0))
        == msg
    )
    half = (
        "Input type (torch.HalfTensor) and bias type (torch.FloatTensor) should be the same or "
        "input should be a MKLDNN tensor and bias is a dense tensor"
    )
    assert _message(RuntimeError, lambda: F.conv2d(x.half(), w.half(), b, padding="same")) == half
    # an empty batch: no bias check
    assert F.conv2d(x[:0], w, b.double(), padding="same").dtype == mt.float32
    # a number padding keeps conv2d's bias check
    numeric = "Input type (float) and bias type (double) should be the same"
    assert _message(RuntimeError, lambda: F.conv2d(x, w, b.double(), padding=1)) == numeric
    assert _message(RuntimeError, lambda: F.conv2d(x[:0], w, b.double())) == numeric


def test_string_padding_conv_gradcheck():
    x = _randn(4, 1, 2, 4, 5).requires_grad_(True)
    w = _randn(5, 2, 2, 3, 3).requires_grad_(True)
    b = _randn(6, 2).requires_grad_(True)
    fn = lambda x, w, b: F.conv2d(x, w, b, padding="same")  # noqa: E731
    assert mt.autograd.gradcheck(fn, (x, w, b))
    assert mt.autograd.gradgradcheck(fn, (x, w, b))


# --- bilinear's size reads ---


def test_bilinear_zero_dim_and_weight_rank_errors():
    x, w, b = _randn(7, 3), _randn(8, 2, 3, 3), _randn(9, 2)
    no_dims = "Dimension specified as -1 but tensor has no dimensions"
    assert _message(IndexError, lambda: nn.Bilinear(3, 3, 2)(x[0], x[0])) == no_dims
    assert _message(IndexError, lambda: F.bilinear(x[0], x[0], w, b)) == no_dims
    # the weight's size is read first
    want = "Dimension specified as 1 but tensor has no dimensions"
    assert _message(IndexError, lambda: F.bilinear(x[0], x[0], w[0, 0, 0], b[0])) == want
    want = "Dimension out of range (expected to be in range of [-2, 1], but got 2)"
    assert _message(IndexError, lambda: F.bilinear(x, x, w[0])) == want
    want = "Dimension out of range (expected to be in range of [-1, 0], but got 1)"
    assert _message(IndexError, lambda: F.bilinear(x, x, w[0, 0])) == want
    want = "number of dimensions must match"
    assert _message(RuntimeError, lambda: F.bilinear(x, x, w[..., None])) == want


def test_bilinear_bias_size_is_its_first_dim():
    x, w = _randn(7, 3), _randn(8, 2, 3, 3)
    want = "Dimension specified as 0 but tensor has no dimensions"
    assert _message(IndexError, lambda: F.bilinear(x, x, w, _randn(9, 2)[0])) == want
    want = "bilinear(): bias size does not match weight size: got 1 but expected 2"
    assert _message(RuntimeError, lambda: F.bilinear(x, x, w, mt.ones(1, 2).double())) == want
    assert tuple(F.bilinear(x, x, w, mt.ones(2, 2).double()).shape) == (2, 2)


# --- instance_norm of an empty batch ---


def test_instance_norm_empty_batch_with_affine_parameters():
    x = mt.zeros(0, 2, 3)
    assert _message(IndexError, lambda: nn.InstanceNorm1d(2, affine=True)(x)) == SELECT
    assert _message(IndexError, lambda: F.instance_norm(x, bias=mt.ones(2))) == SELECT
    # the sizes torch checks are the repeated ones: none for an empty batch
    assert _message(IndexError, lambda: F.instance_norm(x, weight=mt.ones(3))) == SELECT
    assert (
        _message(IndexError, lambda: F.instance_norm(mt.zeros(2, 0, 3), weight=mt.ones(0)))
        == SELECT
    )
    assert tuple(nn.InstanceNorm1d(2)(x).shape) == (0, 2, 3)
    stats = F.instance_norm(x, running_mean=mt.zeros(2), running_var=mt.ones(2))
    assert tuple(stats.shape) == (0, 2, 3)
