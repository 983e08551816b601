"""Wrong-typed and wrong-shaped arguments of nn layers and functions (third pass): torch's
exception type and message, or result, for the same call (the literals are torch 2.13's); the
dtype rule of instance_norm's parameters and running statistics; LogSoftmax's double-backward
node."""

# ruff: noqa: E501  (torch's messages as literals)

import pytest

import minitorch as torch
import minitorch.nn as nn  # noqa: F401  (the cases use it)
import minitorch.nn.functional as F
from minitorch.autograd import gradcheck, gradgradcheck

X = torch.ones(2, 3, 4, 4)
X1 = torch.ones(2, 3, 4)
X3 = torch.ones(1, 2, 2, 2, 2)
R = torch.zeros(3)
R4 = torch.zeros(4)
I2 = torch.zeros(1, 2, 3, 3, dtype=torch.int64)
X2 = torch.ones(1, 2, 3, 3)
H = torch.zeros(1, 2, 5)
W = [torch.ones(15, 4), torch.ones(15, 5)]
XS = torch.ones(3, 2, 4)

CASES = [
    (
        "F.adaptive_avg_pool2d(None, 2)",
        "AttributeError",
        "'NoneType' object has no attribute 'size'",
    ),
    ("F.adaptive_max_pool3d([1.0], 2)", "AttributeError", "'list' object has no attribute 'size'"),
    ("F.instance_norm(1.5)", "AttributeError", "'float' object has no attribute 'size'"),
    (
        "F.max_pool3d(None, 2, return_indices=True)",
        "AttributeError",
        "'NoneType' object has no attribute 'is_cuda'",
    ),
    (
        "F.dropout2d(None, training=False)",
        "AttributeError",
        "'NoneType' object has no attribute 'dim'",
    ),
    ("F.dropout1d('a')", "AttributeError", "'str' object has no attribute 'dim'"),
    (
        "F.batch_norm(X, None, R, training=True)",
        "ValueError",
        "running_mean and running_var must either both be None or neither be None",
    ),
    ("F.batch_norm(X, R, None)", "RuntimeError", "running_var must be defined in evaluation mode"),
    (
        "F.batch_norm(X, R, R, eps=torch.ones(2))",
        "RuntimeError",
        "Boolean value of Tensor with more than one value is ambiguous",
    ),
    (
        "F.batch_norm(X, R, R, eps=[1.0])",
        "TypeError",
        "'<' not supported between instances of 'list' and 'float'",
    ),
    (
        "F.instance_norm(X, R, None)",
        "ValueError",
        "running_mean and running_var must either both be None or neither be None",
    ),
    (
        "F.instance_norm(X, None, None, weight=R4)",
        "RuntimeError",
        "weight should contain 6 elements not 8",
    ),
    ("F.instance_norm(X, R.double(), R.double()).dtype", "ok", "float32"),
    (
        "F.instance_norm(X.double(), R, R, None, R)",
        "RuntimeError",
        "mixed dtype (CPU): expect parameter to have scalar type of Float",
    ),
    (
        "F.instance_norm(X.half(), R, R, None, R)",
        "RuntimeError",
        "mixed dtype (CPU): expect parameter to have scalar type of Float",
    ),
    ("F.instance_norm(X.half(), R.double(), R.double(), R).dtype", "ok", "float16"),
    (
        "F.group_norm(X, 3, weight='a')",
        "TypeError",
        "group_norm(): argument 'weight' (position 3) must be Tensor, not str",
    ),
    (
        "F.group_norm(X, 3, R, bias=1.5)",
        "TypeError",
        "group_norm(): argument 'bias' (position 4) must be Tensor, not float",
    ),
    (
        "F.hardtanh(X, min_val=torch.ones(2))",
        "RuntimeError",
        "Boolean value of Tensor with more than one value is ambiguous",
    ),
    (
        "F.hardtanh(X, min_val=[1.0])",
        "TypeError",
        "'>' not supported between instances of 'list' and 'float'",
    ),
    (
        "F.cosine_similarity(X, X, dim=None)",
        "TypeError",
        "cosine_similarity(): argument 'dim' must be int, not NoneType",
    ),
    (
        "F.cosine_similarity(X, X, None)",
        "TypeError",
        "cosine_similarity(): argument 'dim' (position 3) must be int, not NoneType",
    ),
    (
        "F.cosine_similarity(X, X, 1, 'a')",
        "TypeError",
        "cosine_similarity(): argument 'eps' (position 4) must be float, not str",
    ),
    (
        "F.pairwise_distance(1.5, X1)",
        "TypeError",
        "pairwise_distance(): argument 'x1' (position 1) must be Tensor, not float",
    ),
    (
        "F.pairwise_distance(X1, None)",
        "TypeError",
        "pairwise_distance(): argument 'x2' (position 2) must be Tensor, not NoneType",
    ),
    (
        "F.interpolate(X, size='ab')",
        "TypeError",
        "upsample_nearest2d() received an invalid combination of arguments - got (Tensor, list, NoneType), but expected one of:\n * (Tensor input, tuple of ints output_size, tuple of floats scale_factors)\n      didn't match because some of the arguments have invalid types: (Tensor, !list of [str, str]!, !NoneType!)\n * (Tensor input, tuple of ints output_size, float scales_h = None, float scales_w = None, *, Tensor out = None)\n",
    ),
    (
        "F.interpolate(X, size=torch.tensor([8, 8]), mode='bilinear')",
        "TypeError",
        "upsample_bilinear2d() received an invalid combination of arguments - got (Tensor, list, bool, NoneType), but expected one of:\n * (Tensor input, tuple of ints output_size, bool align_corners, tuple of floats scale_factors)\n      didn't match because some of the arguments have invalid types: (Tensor, !list of [Tensor, Tensor]!, bool, !NoneType!)\n * (Tensor input, tuple of ints output_size, bool align_corners, float scales_h = None, float scales_w = None, *, Tensor out = None)\n",
    ),
    (
        "F.interpolate(X1, scale_factor='a')",
        "TypeError",
        "upsample_nearest1d() received an invalid combination of arguments - got (Tensor, NoneType, list), but expected one of:\n * (Tensor input, tuple of ints output_size, tuple of floats scale_factors)\n      didn't match because some of the arguments have invalid types: (Tensor, !NoneType!, !list of [str]!)\n * (Tensor input, tuple of ints output_size, float scales = None, *, Tensor out = None)\n",
    ),
    (
        "F.interpolate(X, size=[8, 'a'])",
        "TypeError",
        "expected size to be one of int or Tuple[int] or Tuple[int, int] or Tuple[int, int, int], but got size with types [<class 'int'>, <class 'str'>]",
    ),
    (
        "F.interpolate(X, size=8.0, mode='area')",
        "TypeError",
        "adaptive_avg_pool2d(): argument 'output_size' (position 2) must be tuple of ints, but found element of type float at pos 0",
    ),
    ("F.interpolate(X, size=torch.tensor([8])).shape", "ok", "Size([2, 3, 8, 8])"),
    (
        "F.alpha_dropout(X.long(), 0.5, True)",
        "RuntimeError",
        "result type Float can't be cast to the desired output type Long",
    ),
    (
        "F.feature_alpha_dropout(X.bool(), 0.5, True)",
        "RuntimeError",
        "result type Float can't be cast to the desired output type Long",
    ),
    (
        "F.max_unpool2d(X2.long(), I2, 2)",
        "NotImplementedError",
        "\"max_unpool2d\" not implemented for 'Long'",
    ),
    (
        "F.max_unpool2d(torch.ones(3, 3), I2[0, 0], 2)",
        "RuntimeError",
        "Input to max_unpooling2d should be a 3d or 4d Tensor, but got a tensor with 2 dimensions.",
    ),
    ("F.max_unpool2d(torch.ones(3), I2[0, 0, 0], 2)", "IndexError", "tuple index out of range"),
    (
        "F.max_unpool2d(X2, I2, 2.0)",
        "TypeError",
        "max_unpool2d(): argument 'output_size' (position 3) must be tuple of ints, but found element of type float at pos 0",
    ),
    ("F.max_unpool2d(X2, I2, 2.0, output_size=[6, 6]).shape", "ok", "Size([1, 2, 6, 6])"),
    (
        "F.max_unpool2d(X2, I2, (2,))",
        "RuntimeError",
        "There should be exactly two elements (height, width) in output_size, but got 1 elements.",
    ),
    (
        "F.max_unpool3d(X3, I2[:, :1, :2, :2, None].expand(1, 2, 2, 2, 2), 2, padding=(0, 0.5, 0))",
        "TypeError",
        "max_unpool3d(): argument 'padding' failed to unpack the object at pos 2 with error \"type must be tuple of ints,but got float\"",
    ),
    (
        "F.max_unpool1d(torch.ones(5), torch.zeros(5, dtype=torch.int64), 2)",
        "RuntimeError",
        "Input to max_unpooling2d should be a 3d or 4d Tensor, but got a tensor with 2 dimensions.",
    ),
    (
        "F.rrelu(X.half(), training=True)",
        "NotImplementedError",
        "\"rrelu_with_noise_out_cpu\" not implemented for 'Half'",
    ),
    (
        "F.ctc_loss(torch.ones(()), torch.ones(2, 3).long(), torch.tensor([5, 5]), torch.tensor([3, 3]))",
        "IndexError",
        "Dimension out of range (expected to be in range of [-1, 0], but got 1)",
    ),
    (
        "nn.AdaptiveLogSoftmaxWithLoss(4, 10, [4, 8])(torch.ones(2, 4), torch.tensor([True, False]))",
        "RuntimeError",
        "gather(): Expected dtype int32/int64 for index",
    ),
    (
        "nn.AdaptiveLogSoftmaxWithLoss(4, 10, [4, 8])(None, torch.tensor([1, 2]))",
        "AttributeError",
        "'NoneType' object has no attribute 'size'",
    ),
    (
        "nn.AdaptiveLogSoftmaxWithLoss(4, 10, [4, 8])(torch.ones(2, 4), None)",
        "AttributeError",
        "'NoneType' object has no attribute 'dim'",
    ),
    (
        "F.embedding_bag(torch.ones(2, 3).bool(), torch.ones(10, 3))",
        "NotImplementedError",
        "\"arange_cpu\" not implemented for 'Bool'",
    ),
    (
        "F.embedding(None, torch.ones(10, 3))",
        "TypeError",
        "embedding(): argument 'indices' (position 2) must be Tensor, not NoneType",
    ),
    (
        "F.embedding(torch.ones(3).bool(), torch.ones(10, 3))",
        "RuntimeError",
        "Expected tensor for argument #1 'indices' to have one of the following scalar types: Long, Int; but got CPUBoolType instead (while checking arguments for embedding)",
    ),
    (
        "nn.Dropout()()",
        "TypeError",
        "Dropout.forward() missing 1 required positional argument: 'input'",
    ),
    (
        "nn.MaxPool2d(2)(X, X)",
        "TypeError",
        "MaxPool2d.forward() takes 2 positional arguments but 3 were given",
    ),
    (
        "nn.MaxUnpool2d(2)(X)",
        "TypeError",
        "MaxUnpool2d.forward() missing 1 required positional argument: 'indices'",
    ),
    (
        "nn.ReflectionPad1d(1)()",
        "TypeError",
        "_ReflectionPadNd.forward() missing 1 required positional argument: 'input'",
    ),
    (
        "nn.Unflatten(1, (1, 3))(None)",
        "AttributeError",
        "'NoneType' object has no attribute 'unflatten'",
    ),
    (
        "F.adaptive_avg_pool1d(X1.long(), 2)",
        "NotImplementedError",
        "\"adaptive_avg_pool2d\" not implemented for 'Long'",
    ),
    (
        "F.adaptive_max_pool3d(X3.long(), 2)",
        "NotImplementedError",
        "\"adaptive_max_pool3d_cpu\" not implemented for 'Long'",
    ),
    (
        "F.adaptive_avg_pool1d(X1, 'abc')",
        "TypeError",
        "adaptive_avg_pool1d(): argument 'output_size' (position 2) must be tuple of ints, not str",
    ),
    (
        "F.adaptive_max_pool2d(X, 'ab')",
        "TypeError",
        "adaptive_max_pool2d(): argument 'output_size' (position 2) must be tuple of ints, but found element of type str at pos 0",
    ),
    ("F.adaptive_avg_pool2d(X, 2.5)", "TypeError", "object of type 'float' has no len()"),
    (
        "F.nll_loss(torch.ones(2, 4).long(), torch.zeros(2).long())",
        "NotImplementedError",
        "\"nll_loss_out_frame\" not implemented for 'Long'",
    ),
    (
        "F.nll_loss(torch.ones(2, 4, 3).long(), torch.zeros(2, 3).long())",
        "NotImplementedError",
        "\"nll_loss2d_forward_out_frame\" not implemented for 'Long'",
    ),
    (
        "F.logsigmoid(None)",
        "TypeError",
        "log_sigmoid(): argument 'input' (position 1) must be Tensor, not NoneType",
    ),
    (
        "F.bilinear(torch.ones(2, 3).long(), torch.ones(2, 4), torch.ones(5, 3, 4), torch.ones(5))",
        "RuntimeError",
        "All tensors must have the same dtype, got input1: long int, input2: float, weight: float, bias: float",
    ),
    (
        "F.fractional_max_pool2d(X, 'ab', output_size=3)",
        "TypeError",
        "fractional_max_pool2d(): argument 'kernel_size' (position 2) must be tuple of ints, not str",
    ),
    (
        "F.fractional_max_pool2d(X, 2, output_size=torch.tensor([3, 3]))",
        "TypeError",
        "fractional_max_pool2d(): argument 'output_size' (position 3) must be tuple of ints, not Tensor",
    ),
    (
        "F.fractional_max_pool2d(X, [2.5, 2], output_size=3)",
        "TypeError",
        "fractional_max_pool2d(): argument 'kernel_size' (position 2) must be tuple of ints, but found element of type float at pos 0",
    ),
    (
        "torch.gru(None, H, W, False, 1, 0.0, False, False, False)",
        "TypeError",
        "gru() received an invalid combination of arguments - got (NoneType, Tensor, list, bool, int, float, bool, bool, bool), but expected one of:\n * (Tensor data, Tensor batch_sizes, Tensor hx, tuple of Tensors params, bool has_biases, int num_layers, float dropout, bool train, bool bidirectional)\n      didn't match because some of the arguments have invalid types: (!NoneType!, Tensor, !list of [Tensor, Tensor]!, !bool!, !int!, !float!, !bool!, bool, bool)\n * (Tensor input, Tensor hx, tuple of Tensors params, bool has_biases, int num_layers, float dropout, bool train, bool bidirectional, bool batch_first)\n      didn't match because some of the arguments have invalid types: (!NoneType!, Tensor, !list of [Tensor, Tensor]!, bool, int, float, bool, bool, bool)\n",
    ),
    (
        "torch.lstm(XS, (H, None), W, False, 1, 0.0, False, False, False)",
        "TypeError",
        "expected Tensor as element 1 in argument 1, but got NoneType",
    ),
    (
        "torch.rnn_tanh(XS, H, W, False, 1, 0.0, False, False)",
        "TypeError",
        "rnn_tanh() received an invalid combination of arguments - got (Tensor, Tensor, list, bool, int, float, bool, bool), but expected one of:\n * (Tensor data, Tensor batch_sizes, Tensor hx, tuple of Tensors params, bool has_biases, int num_layers, float dropout, bool train, bool bidirectional)\n * (Tensor input, Tensor hx, tuple of Tensors params, bool has_biases, int num_layers, float dropout, bool train, bool bidirectional, bool batch_first)\n",
    ),
    (
        "torch.binary_cross_entropy_with_logits(X, None)",
        "TypeError",
        "binary_cross_entropy_with_logits(): argument 'target' (position 2) must be Tensor, not NoneType",
    ),
    (
        "torch.binary_cross_entropy_with_logits(X, X, None, None, 'mean')",
        "TypeError",
        "binary_cross_entropy_with_logits(): argument 'reduction' (position 5) must be int, not str",
    ),
    (
        "torch.norm_except_dim(None)",
        "TypeError",
        "norm_except_dim(): argument 'v' (position 1) must be Tensor, not NoneType",
    ),
    (
        "torch.norm_except_dim(X, 'a')",
        "TypeError",
        "norm_except_dim(): argument 'pow' (position 2) must be int, not str",
    ),
    ("nn.Softmax2d()(None)", "AttributeError", "'NoneType' object has no attribute 'dim'"),
    (
        "F.local_response_norm(None, 2)",
        "AttributeError",
        "'NoneType' object has no attribute 'dim'",
    ),
    ("nn.CrossMapLRN2d(3)('a')", "AttributeError", "'str' object has no attribute 'dim'"),
    (
        "F.margin_ranking_loss(None, X1, X1)",
        "AttributeError",
        "'NoneType' object has no attribute 'dim'",
    ),
    (
        "F.binary_cross_entropy_with_logits(None, X)",
        "AttributeError",
        "'NoneType' object has no attribute 'size'",
    ),
    (
        "F.gaussian_nll_loss(None, X, X)",
        "AttributeError",
        "'NoneType' object has no attribute 'size'",
    ),
    ("nn.GRU(4, 3)(None)", "AttributeError", "'NoneType' object has no attribute 'dim'"),
    ("nn.GRUCell(4, 3)([1.0])", "AttributeError", "'list' object has no attribute 'dim'"),
    (
        "F.fractional_max_pool2d(torch.ones(4), 2, output_size=2)",
        "IndexError",
        "Dimension out of range (expected to be in range of [-1, 0], but got -3)",
    ),
    (
        "F.fractional_max_pool2d(torch.ones(()), 2, output_size=2)",
        "IndexError",
        "Dimension specified as 0 but tensor has no dimensions",
    ),
    (
        "F.interpolate(None, scale_factor=2)",
        "AttributeError",
        "'NoneType' object has no attribute 'dim'",
    ),
]


@pytest.mark.parametrize(("expr", "kind", "expected"), CASES, ids=[c[0] for c in CASES])
def test_as_torch(expr, kind, expected):
    if kind == "ok":
        assert str(eval(expr)).replace("torch.", "") == expected
        return
    with pytest.raises(Exception) as info:
        eval(expr)
    assert type(info.value).__name__ == kind
    assert str(info.value) == expected


def test_log_softmax_double_backward_node():
    x = torch.linspace(-1.0, 2.0, 12, dtype=torch.float64).reshape(3, 4).requires_grad_()
    y = F.log_softmax(x, 1)
    (g,) = torch.autograd.grad(
        (y * torch.arange(4.0, dtype=torch.float64)).sum(), x, create_graph=True
    )
    assert g.grad_fn.name() == "LogSoftmaxBackwardDataBackward0"
    assert [n[0] is not None and n[0].name() for n in g.grad_fn.next_functions] == [
        False,
        "LogSoftmaxBackward0",
    ]
    assert gradgradcheck(lambda t: F.log_softmax(t, 1), (x,))


def test_instance_norm_statistics_in_weight_dtype():
    # torch hands batch_norm the running statistics in the weight's dtype (else the input's):
    # float64 statistics of a float32 input normalise in float32, and are updated in float64
    x = torch.linspace(-1.0, 1.0, 24).reshape(2, 3, 4)
    rm, rv = torch.zeros(3, dtype=torch.float64), torch.ones(3, dtype=torch.float64)
    out = F.instance_norm(x, rm, rv, torch.ones(3), torch.zeros(3), use_input_stats=False)
    assert out.dtype is torch.float32
    F.instance_norm(x, rm, rv, torch.ones(3))
    assert rm.dtype is torch.float64
    assert [round(v, 6) for v in rm.tolist()] == [-0.034783, 0.0, 0.034783]
    xd = x.double().requires_grad_()
    assert gradcheck(lambda t: F.instance_norm(t, weight=torch.ones(3, dtype=torch.float64)), (xd,))
