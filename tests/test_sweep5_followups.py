"""Differences found by the fifth drop-in sweep, fixed where they were small."""

import math

import pytest

import minitorch


def test_normal_cdf_of_float64_values_with_float32_parameters_is_exact():
    # the float32 scale is not multiplied by sqrt(2) in float32 (which lost ~4e-8)
    z = minitorch.tensor([0.3, 1.2, 2.5, 0.77], dtype=minitorch.float64)
    got = minitorch.distributions.Normal(0.0, 1.0).cdf(z).tolist()
    for g, v in zip(got, z.tolist(), strict=True):
        assert abs(g - 0.5 * (1 + math.erf(v / math.sqrt(2)))) < 1e-15
    half = minitorch.distributions.HalfNormal(1.0).cdf(z).tolist()
    assert abs(half[0] - math.erf(0.3 / math.sqrt(2))) < 1e-15


def test_weight_norm_refuses_a_g_of_another_dtype():
    v = minitorch.ones(3, 5, dtype=minitorch.float64)
    with pytest.raises(RuntimeError, match="expected scalar type Double but found Float"):
        minitorch._weight_norm(v, minitorch.ones(3, 1), 0)
    with pytest.raises(RuntimeError, match="expected scalar type Float but found Double"):
        minitorch._weight_norm(
            minitorch.ones(3, 5), minitorch.ones(1, 5, dtype=minitorch.float64), 1
        )
    # a middle dim is composed (a mul): it promotes, as torch
    out = minitorch._weight_norm(
        minitorch.ones(3, 4, 5), minitorch.ones(1, 4, 1, dtype=minitorch.float64), 1
    )
    assert out.dtype == minitorch.float64


@pytest.mark.parametrize(
    "call",
    [
        lambda a: minitorch.polygamma(1.5, a),
        lambda a: a.polygamma(2.7),
        lambda a: minitorch.special.polygamma(0.9, a),
        lambda a: minitorch.polygamma(True, a),
        lambda a: minitorch.mvlgamma(a + 2, p=2.0),
    ],
)
def test_polygamma_and_mvlgamma_refuse_non_integer_orders(call):
    # truncating 1.5 to 1 gave trigamma's values silently
    with pytest.raises(TypeError, match="must be int, not (float|bool)"):
        call(minitorch.tensor([0.5, 1.5, 3.0]))


def test_polygamma_takes_int_like_orders():
    import numpy as np

    a = minitorch.tensor([0.5, 1.5])
    want = minitorch.polygamma(1, a).tolist()
    assert minitorch.polygamma(np.int64(1), a).tolist() == want
    assert minitorch.polygamma(minitorch.tensor(1), a).tolist() == want


def test_normalize_of_a_list_raises_as_torch():
    with pytest.raises(AttributeError, match="'list' object has no attribute 'norm'"):
        minitorch.nn.functional.normalize([1.0, 2.0])


_X64 = minitorch.eye(3, dtype=minitorch.float64) * 2


@pytest.mark.parametrize(
    "call, msg",
    [
        (lambda o: minitorch.linalg.vector_norm(_X64, out=o), "Expected out tensor to have dtype"),
        (lambda o: minitorch.norm(_X64, out=o), "Expected out tensor to have dtype"),
        (lambda o: minitorch.linalg.matrix_norm(_X64, out=o), "linalg.matrix_norm expected out"),
        (lambda o: minitorch.linalg.matrix_norm(_X64, 2, out=o), "linalg.matrix_norm expected out"),
        (lambda o: minitorch.linalg.norm(_X64, out=o), "linalg.norm expected out"),
        (lambda o: minitorch.linalg.norm(_X64[0], out=o), "linalg.norm expected out"),
    ],
)
def test_norms_refuse_an_out_of_another_dtype(call, msg):
    with pytest.raises(RuntimeError, match=msg):
        call(minitorch.empty(()))
    assert call(minitorch.empty((), dtype=minitorch.float64)).dtype == minitorch.float64


def test_matrix_power_out_dtype_and_half_matrix_norms():
    with pytest.raises(RuntimeError, match="Expected out tensor to have dtype double"):
        minitorch.linalg.matrix_power(_X64, 2, out=minitorch.empty(3, 3))
    for n in (0, 1):  # A itself or the identity: cast into out, as torch
        out = minitorch.linalg.matrix_power(_X64, n, out=minitorch.empty(3, 3))
        assert out.dtype == minitorch.float32
    h = minitorch.eye(3).half()
    for ord in (2, -2, "nuc"):
        with pytest.raises(RuntimeError, match="Low precision dtypes not supported. Got Half"):
            minitorch.linalg.matrix_norm(h, ord, dtype=minitorch.float32)
    assert minitorch.linalg.matrix_norm(h, "fro").item() == pytest.approx(3**0.5, rel=1e-3)


def test_repeat_interleave_of_counts_keeps_their_dtype():
    counts = minitorch.tensor([2, 0, 3], dtype=minitorch.int32)
    out = minitorch.repeat_interleave(counts)
    assert out.dtype == minitorch.int32 and out.tolist() == [0, 0, 2, 2, 2]
    assert minitorch.repeat_interleave(counts.long()).dtype == minitorch.int64
    for dt, name in (
        (minitorch.int16, "Short"),
        (minitorch.uint8, "Byte"),
        (minitorch.float32, "Float"),
    ):
        with pytest.raises(NotImplementedError, match=f"not implemented for '{name}'"):
            minitorch.repeat_interleave(counts.to(dt))


def test_clamp_with_one_bound_keeps_a_tying_negative_zero():
    import numpy as np

    x = minitorch.tensor([-0.0, 1.0, -2.0, 0.0])
    assert np.signbit(x.clamp(min=0).numpy()).tolist() == [True, False, False, False]
    assert np.signbit(x.clamp(max=-0.0).numpy()).tolist() == [True, True, True, False]
    assert np.signbit(minitorch.clamp_min(x, 0.0).numpy())[0]


def test_standard_normal_helper_and_expand_error_names_the_last_bad_dim():
    from minitorch.distributions.utils import _standard_normal

    z = _standard_normal((2, 3), dtype=minitorch.float64, device="cpu")
    assert z.shape == (2, 3) and z.dtype == minitorch.float64
    with pytest.raises(
        RuntimeError,
        match=r"tensor \(3\) must match the existing size \(2\) at non-singleton dimension 1",
    ):  # noqa: E501
        minitorch.zeros(3, 2).expand(4, 3)


def test_nll_loss_target_entry_of_a_masked_row_is_negative_zero():
    import numpy as np

    # a +0. upstream gradient (the row masked out) gives the target entry -(w * 0) = -0., as
    # torch writes it; a row ignore_index leaves unwritten stays +0.
    lp = minitorch.tensor([[-1.0, -2.0, -0.5], [-0.3, -1.0, -2.0], [-1.0, -1.0, -1.0]])
    lp.requires_grad_()
    out = minitorch.nn.functional.nll_loss(
        lp, minitorch.tensor([1, 2, 0]), reduction="none", ignore_index=0
    )
    (out * minitorch.tensor([1.0, 0.0, 1.0])).sum().backward()
    assert np.signbit(lp.grad.numpy()).tolist() == [
        [False, True, False],
        [False, False, True],
        [False, False, False],
    ]


def test_cdist_propagates_nan():
    import math

    a = minitorch.tensor([[math.nan, 0.0], [1.0, 2.0]], requires_grad=True)
    b = minitorch.tensor([[0.0, 0.0], [1.0, 1.0]])
    d = minitorch.cdist(a, b)
    assert math.isnan(d[0, 0].item()) and math.isnan(d[0, 1].item())
    assert d[1].tolist() == pytest.approx([5**0.5, 1.0])
    d.sum().backward()
    assert math.isnan(a.grad[0, 1].item())  # torch: the NaN row's gradient is NaN
    d0 = minitorch.cdist(a.detach(), b, p=0)
    assert math.isnan(d0[0, 0].item()) and d0[1].tolist() == [2.0, 1.0]
    inf = minitorch.tensor([[math.inf, 0.0]])
    assert math.isnan(minitorch.cdist(inf, inf).item())  # inf - inf


@pytest.mark.parametrize(
    "call, msg",
    [
        (
            lambda: minitorch.nn.functional.avg_pool2d(
                minitorch.ones(2, 4, 4, dtype=minitorch.uint8), 2
            ),
            "\"avg_pool2d\" not implemented for 'Byte'",
        ),  # noqa: E501
        (
            lambda: minitorch.nn.functional.avg_pool1d(
                minitorch.ones(2, 4, dtype=minitorch.int32), 2
            ),
            "\"avg_pool2d\" not implemented for 'Int'",
        ),  # noqa: E501
        (
            lambda: minitorch.nn.functional.avg_pool3d(minitorch.ones(1, 2, 2, 2).half(), 2),
            "\"avg_pool3d_out_frame\" not implemented for 'Half'",
        ),  # noqa: E501
        (
            lambda: minitorch.nn.functional.lp_pool2d(
                minitorch.ones(2, 4, 4, dtype=minitorch.uint8), 2, 2
            ),
            "\"avg_pool2d\" not implemented for 'Byte'",
        ),  # noqa: E501
    ],
)
def test_average_pools_refuse_the_dtypes_torch_refuses(call, msg):
    with pytest.raises(NotImplementedError, match=msg):
        call()


def test_average_pools_keep_the_dtypes_torch_takes():
    F = minitorch.nn.functional
    assert F.avg_pool2d(minitorch.ones(2, 4, 4, dtype=minitorch.int64), 2).dtype == minitorch.int64
    assert F.avg_pool2d(minitorch.ones(2, 4, 4).half(), 2).dtype == minitorch.float16
    assert F.avg_pool3d(minitorch.ones(1, 2, 2, 2, dtype=minitorch.float64), 2).tolist() == [
        [[[1.0]]]
    ]
