"""Fourth drop-in sweep: the follow-ups that crossed several files."""

import numpy as np

import minitorch as mt


def test_ldexp_of_bools_and_its_refusal_of_a_bool_exponent_alone():
    got = mt.ldexp(mt.tensor([True, False]), mt.tensor([True, True]))
    assert got.dtype is mt.float32 and got.tolist() == [2.0, 0.0]
    try:
        mt.ldexp(mt.tensor([1.0, 2.0]), mt.tensor([True, False]))
    except NotImplementedError as e:
        assert "ldexp_cpu_exp" in str(e)
    else:
        raise AssertionError("a float input with a bool exponent must raise as torch")


def test_frexp_with_out_returns_frexp_out():
    m, e = mt.empty(2), mt.empty(2, dtype=mt.int32)
    res = mt.frexp(mt.tensor([3.0, 4.0]), out=(m, e))
    assert type(res).__name__ == "frexp_out"
    assert res.mantissa is m and res.exponent is e
    assert m.tolist() == [0.75, 0.5] and e.tolist() == [2, 3]


def test_remainder_double_backward_reads_a_floor_quotient_with_zero_gradient():
    a = mt.tensor([5.0, -7.0], dtype=mt.float64, requires_grad=True)
    b = mt.tensor([3.0, 2.0], dtype=mt.float64, requires_grad=True)
    (gb,) = mt.autograd.grad(mt.remainder(a, b).sum(), b, create_graph=True)
    np.testing.assert_array_equal(gb.detach().numpy(), [-1.0, 4.0])  # -floor(a / b)
    ga, gb2 = mt.autograd.grad(gb.sum(), (a, b), allow_unused=True, materialize_grads=True)
    assert ga.tolist() == [0.0, 0.0] and gb2.tolist() == [0.0, 0.0]
    assert mt.autograd.gradgradcheck(mt.remainder, (a, b))


def test_numpy_axis_alias_reaches_ops_wrapped_twice():
    x = mt.tensor([[3.0, 1.0], [2.0, 4.0]])
    np.testing.assert_array_equal(mt.sort(x, axis=0).values.numpy(), [[2.0, 1.0], [3.0, 4.0]])
    assert mt.topk(x, 1, axis=0).indices.tolist() == [[0, 1]]


def test_index_select_and_take_errors_are_torchs():
    import pytest

    x = mt.zeros(3, 4)
    with pytest.raises(
        RuntimeError, match="INDICES element is out of DATA bounds, id=5 axis_dim=4"
    ):
        x.index_select(1, mt.tensor([5]))
    with pytest.raises(RuntimeError, match="id=-1 axis_dim=4"):
        x.index_select(1, mt.tensor([-1]))
    with pytest.raises(IndexError):
        x.index_select(0, mt.tensor([5]))
    with pytest.raises(RuntimeError, match="self indexing axis dim should be positive"):
        mt.zeros(3, 0).index_select(1, mt.tensor([0]))
    with pytest.raises(
        RuntimeError, match=r"take\(\): Expected a long tensor for index, but got Int"
    ):
        x.take(mt.tensor([1], dtype=mt.int32))
    with pytest.raises(RuntimeError, match=r"put_\(\): Expected a long tensor for index"):
        x.put_(mt.tensor([1], dtype=mt.int32), mt.tensor([1.0]))
    assert x.take(mt.tensor([1])).shape == (1,)


def test_arange_needs_an_end():
    import pytest

    with pytest.raises(TypeError, match="arange"):
        mt.arange()
    assert mt.arange(end=3).tolist() == [0, 1, 2]
    assert mt.arange(start=1, end=3).tolist() == [1, 2]


def test_erfinv_keeps_the_sign_of_zero():
    got = mt.erfinv(mt.tensor([-0.0, 0.0, -0.5]))
    assert np.signbit(got.numpy()).tolist() == [True, False, True]


def test_clamp_with_tensor_bounds_writes_a_wider_out():
    import pytest

    a = mt.tensor([-1.0, 0.5, 2.0])
    out = mt.empty(3, dtype=mt.float64)
    mt.clamp(a, min=mt.tensor(0.0), out=out)
    assert out.dtype is mt.float64 and out.tolist() == [0.0, 0.5, 2.0]
    with pytest.raises(RuntimeError, match="result type Float can't be cast to the desired"):
        mt.clamp(a, min=mt.tensor(0.0), out=mt.empty(3, dtype=mt.int64))
    with pytest.raises(RuntimeError, match="Found dtype Double but expected Float"):
        mt.clamp(a, min=0.0, out=out)


def test_view_dtype_of_empty_tensors_and_half_randperm_bound():
    import pytest

    assert mt.zeros(0).view(mt.float16).shape == (0,)
    assert mt.zeros(0, 3).view(mt.uint8).shape == (0, 12)
    with pytest.raises(RuntimeError, match="stride"):
        mt.zeros(4, 3).t().view(mt.uint8)
    with pytest.raises(RuntimeError, match="n cannot be greater than 2049 for Half type."):
        mt.randperm(2050, dtype=mt.float16)
    assert mt.randperm(2049, dtype=mt.float16).unique().numel() == 2049


def test_select_index_must_be_an_integer():
    import pytest

    x = mt.arange(12.0).reshape(3, 4)
    assert x.select(1, np.int64(2)).tolist() == [2.0, 6.0, 10.0]
    with pytest.raises(TypeError, match=r"select\(\): argument 'index' \(position 2\) must be int"):
        x.select(0, 1.0)


def test_unary_plus_is_self_and_refuses_bool():
    import pytest

    t = mt.tensor([1.0, 2.0], requires_grad=True)
    assert (+t) is t
    with pytest.raises(RuntimeError, match="The `\\+` operator, on a bool tensor is not supported"):
        +mt.tensor([True])


def test_mv_and_dot_keep_only_the_operand_the_other_gradient_needs():
    # a Gauss-Seidel sweep backpropagated to b: x changes in place after each row's dot
    a = mt.tensor([[4.0, 1.0], [1.0, 3.0]])
    b = mt.tensor([1.0, 2.0], requires_grad=True)
    x = mt.zeros(2)
    for _ in range(3):
        for i in range(2):
            x[i] = (b[i] - a[i] @ x + a[i, i] * x[i]) / a[i, i]
    x.sum().backward()
    np.testing.assert_allclose(b.grad.numpy(), [0.18171296, 0.27314815], rtol=1e-6)
    w = mt.ones(2, requires_grad=True)
    v = w * 1
    y = mt.mv(a, v)
    v.mul_(2)  # only a is needed for v's gradient
    y.sum().backward()
    assert w.grad.tolist() == [5.0, 4.0]
    import pytest

    m = mt.ones(2, 2, requires_grad=True)
    v = mt.ones(2)
    y = mt.mv(m, v)
    v.mul_(2)  # m's gradient needs v: torch's error
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        y.sum().backward()
