"""Session 23: nn.init and dropout against torch 2.13 (literals from torch)."""

import warnings

import pytest

import minitorch as torch
from minitorch import nn
from minitorch.nn import functional as F

# torch.manual_seed(3); t = torch.empty(5, 4).t(); trunc_normal_(t, 0, 1, -1.5, 1.5)
TRANSPOSED_NORMAL_PATH = [
    [0.8032760620117188, 0.04618244990706444, -1.435179352760315, -0.8646355867385864,
     0.9264108538627625],
    [0.17483338713645935, -1.3682591915130615, 0.9774317741394043, 0.2989608347415924,
     0.8156775236129761],
    [0.08897809684276581, 0.3374950885772705, 0.5220499634742737, 0.41921865940093994,
     0.49518901109695435],
    [-0.6137180328369141, 1.0111159086227417, 1.2379167079925537, -0.0798543244600296,
     -0.16431698203086853],
]  # fmt: skip
# torch.manual_seed(3); t = torch.empty(4, 6, dtype=float64).t(); trunc_normal_(t, .2, 1, .5, .9)
TRANSPOSED_UNIFORM_PATH = [
    [0.5136432782602082, 0.5794908601056552, 0.6788071089891458, 0.8796030811997685],
    [0.6146960906885228, 0.6733662124420742, 0.6367830951509614, 0.5508999925178429],
    [0.8091659777314337, 0.6619367777922622, 0.8880169854423373, 0.7637507069321875],
    [0.5699708117125178, 0.8114198102614703, 0.5348150087931542, 0.7185837910880989],
    [0.8021479486583596, 0.5745933809986395, 0.5459588557865858, 0.5196896123733725],
    [0.743300250768282, 0.7377760797829246, 0.7132667491241972, 0.6060532483306437],
]  # fmt: skip


def test_trunc_normal_transposed_tensor_draws_in_memory_order_normal_path():
    torch.manual_seed(3)
    t = torch.empty(5, 4).t()
    out = nn.init.trunc_normal_(t, 0.0, 1.0, -1.5, 1.5)
    assert out is t
    assert t.tolist() == TRANSPOSED_NORMAL_PATH
    assert torch.rand(2).tolist() == [0.5824220776557922, 0.4283205270767212]


def test_trunc_normal_transposed_tensor_draws_in_memory_order_uniform_path():
    torch.manual_seed(3)
    t = torch.empty(4, 6, dtype=torch.float64).t()
    nn.init.trunc_normal_(t, 0.2, 1.0, 0.5, 0.9)
    assert t.tolist() == TRANSPOSED_UNIFORM_PATH
    assert torch.rand(2).tolist() == [0.1622423529624939, 0.7759304046630859]


def test_trunc_normal_integer_tensor_errors_follow_the_sampler_path():
    with pytest.raises(
        NotImplementedError, match="\"normal_kernel_cpu\" not implemented for 'Long'"
    ):
        nn.init.trunc_normal_(torch.zeros(2, 2, dtype=torch.int64), 0.0, 1.0, -2.0, 2.0)
    with pytest.raises(
        NotImplementedError, match="\"check_uniform_bounds\" not implemented for 'Long'"
    ):
        nn.init.trunc_normal_(torch.zeros(2, 2, dtype=torch.int64), 0.0, 1.0, 0.5, 0.9)
    empty = torch.zeros(0, 2, dtype=torch.int64)
    assert nn.init.trunc_normal_(empty) is empty  # torch's normal_ lets an empty tensor through


def test_orthogonal_non_viewable_layout_raises_torchs_view_error_after_drawing():
    torch.manual_seed(0)
    with pytest.raises(RuntimeError, match="view size is not compatible with input tensor's"):
        nn.init.orthogonal_(torch.empty(3, 5, 4).transpose(0, 1))
    assert torch.rand(1).tolist() == [0.5995072722434998]


@pytest.mark.parametrize("cls", [nn.AlphaDropout, nn.FeatureAlphaDropout])
def test_alpha_dropout_modules_ignore_inplace(cls):
    x = torch.ones(2, 3, 2)
    torch.manual_seed(0)
    y = cls(0.5, inplace=True)(x)
    assert y is not x
    assert x.sum().item() == 12.0  # torch's modules never pass `inplace` on


def test_unbatched_dropout3d_eval_returns_a_view_like_torch():
    x = torch.randn(2, 3, 4, requires_grad=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        y = F.dropout3d(x, 0.5, training=False)
        z = nn.Dropout3d(0.0)(x)
    assert y is not x and z is not x
    assert type(y.grad_fn).__name__ == "SqueezeBackward1"
    assert y.tolist() == x.tolist()
    w = x.detach().clone()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert F.dropout3d(w, 0.5, training=False, inplace=True) is w


def _raises(exc, text, fn):
    with pytest.raises(exc) as info:
        fn()
    assert str(info.value) == text


def test_norm_parameter_dtype_mismatch_without_mixed_dtype_names_the_kernels_types():
    x = torch.randn(2, 3, 4, dtype=torch.float64)
    w64 = torch.ones(3, dtype=torch.float64)
    rm, rv, b16 = torch.zeros(3), torch.ones(3), torch.zeros(3, dtype=torch.float16)
    _raises(
        RuntimeError,
        "expected scalar type Double but found Float",
        lambda: F.batch_norm(x, rm, rv, w64, None, training=True),
    )
    # evaluation reads the bias before the running statistics, training after them
    _raises(
        RuntimeError,
        "expected scalar type Double but found Half",
        lambda: F.batch_norm(x, rm, rv, w64, b16, training=False),
    )
    _raises(
        RuntimeError,
        "expected scalar type Double but found Float",
        lambda: F.batch_norm(x, rm, rv, w64, b16, training=True),
    )
    _raises(
        RuntimeError,
        "expected scalar type Float but found Double",
        lambda: F.layer_norm(torch.randn(2, 4), (4,), torch.ones(4), torch.zeros(4).double()),
    )
    _raises(
        RuntimeError,
        "expected scalar type Half but found Float",
        lambda: F.group_norm(torch.randn(2, 4).half(), 2, torch.ones(4).half(), torch.zeros(4)),
    )


def test_local_response_norm_refuses_the_dtypes_torchs_cpu_avg_pool_lacks():
    _raises(
        NotImplementedError,
        "\"avg_pool3d_out_frame\" not implemented for 'Half'",
        lambda: F.local_response_norm(torch.ones(1, 3, 2, 2).half(), 2),
    )
    _raises(
        NotImplementedError,
        "\"avg_pool2d\" not implemented for 'Int'",
        lambda: F.local_response_norm(torch.ones(1, 3, 2, dtype=torch.int32), 2),
    )
    _raises(
        NotImplementedError,
        "\"avg_pool3d_out_frame\" not implemented for 'Byte'",
        lambda: F.local_response_norm(torch.ones(1, 3, 2, 2, dtype=torch.uint8), 2),
    )
    out = F.local_response_norm(torch.ones(1, 3, 2).half(), 2)  # avg_pool2d has half
    assert out.dtype is torch.float16 and out.tolist() == [[[1.0, 1.0], [1.0, 1.0], [1.0, 1.0]]]
