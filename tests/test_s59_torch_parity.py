"""Session 59: differences from torch found by differential fuzzing, fixed (expected values are
torch 2.13's, written out; tests/reference/test_s59_torch_parity_ref.py compares with torch)."""

import math

import numpy as np
import pytest

import minitorch as torch

OVERFLOW = "value cannot be converted to type {} without overflow"


def _bits(t):
    return np.signbit(t.float().numpy()).tolist()


# --- values ---


def test_nextafter_float16_towards_an_equal_value_gives_the_target():
    # NumPy's half nextafter returns x where x == y: -0. towards +0. stayed -0.
    x = torch.tensor([-0.0, 0.0, 1.0, 1.0], dtype=torch.float16)
    y = torch.tensor([0.0, -0.0, 1.0, 2.0], dtype=torch.float16)
    out = torch.nextafter(x, y)
    assert _bits(out) == [False, True, False, False]
    assert out[3].item() == 1.0009765625
    col = torch.nextafter(x[:2, None], y[:2])  # broadcast
    assert _bits(col) == [[False, True], [False, True]]


@pytest.mark.parametrize(
    ("dtype", "low", "want"),
    [
        (torch.int8, -128, [-2, -1, 1, -128, -128, -32]),
        (torch.int16, -(2**15), [-2, -1, -1, -(2**15), -(2**15), -32]),
        (torch.int64, -(2**63), [-2, -1, -1, -(2**63), -(2**63), -32]),
    ],
)
def test_gcd_with_the_dtype_minimum_follows_the_wrapped_euclid(dtype, low, want):
    # |minimum| wraps to the minimum in the dtype, so the sign follows the number of steps
    a = torch.tensor([low] * 6, dtype=dtype)
    b = torch.tensor([6, 5, 7, 0, low, 96], dtype=dtype)
    assert torch.gcd(a, b).tolist() == want
    assert torch.gcd(b, a).tolist() == want
    assert torch.gcd(a[:1], b[:, None]).flatten().tolist() == want  # broadcast
    twelve = torch.tensor([12, 18], dtype=dtype)
    assert torch.gcd(twelve, torch.tensor(8, dtype=dtype)).tolist() == [4, 2]


def test_fill_of_one_element_narrow_float_takes_an_overflow_as_inf():
    # torch's fill of one element skips its overflow check (two elements raise)
    assert torch.zeros((), dtype=torch.float16).fill_(70000.0).item() == math.inf
    assert torch.zeros(1, 1, dtype=torch.bfloat16).fill_(-1e39).item() == -math.inf
    assert torch.zeros((), dtype=torch.float8_e4m3fn).fill_(1000.0).float().item() == 448.0
    with pytest.raises(RuntimeError, match=r"^value cannot be converted to type c10::Half"):
        torch.zeros(2, dtype=torch.float16).fill_(70000.0)
    with pytest.raises(RuntimeError, match=r"^value cannot be converted to type float without"):
        torch.zeros(()).fill_(1e39)
    with pytest.raises(RuntimeError, match=r"^value cannot be converted to type int8_t"):
        torch.zeros((), dtype=torch.int8).fill_(300)


def test_numpy_numbers_are_checked_as_python_numbers():
    with pytest.raises(RuntimeError, match=OVERFLOW.format("uint8_t")):
        torch.zeros(2, dtype=torch.uint8).fill_(np.float64(1e39))  # was silently 0
    with pytest.raises(RuntimeError, match=OVERFLOW.format("int8_t")):
        torch.zeros(2, dtype=torch.int8).fill_(np.float64(1e39))
    x = torch.zeros(2, dtype=torch.int8)
    with pytest.raises(RuntimeError, match=OVERFLOW.format("int8_t")):
        x[0] = np.float64(1e39)
    x[1] = np.int64(2)
    assert x.tolist() == [0, 2]


def test_setitem_of_a_number_beyond_float32_raises():
    x = torch.zeros(2)
    for key in (0, slice(None), torch.tensor([True, False]), [0]):
        with pytest.raises(RuntimeError, match=OVERFLOW.format("float")):
            x[key] = 1e39
    assert x.tolist() == [0.0, 0.0]
    x[0] = math.inf  # inf and NaN pass; float16 takes an overflow as inf, as torch's
    h = torch.zeros(2, dtype=torch.float16)
    h[0] = 1e39
    assert x[0].item() == math.inf and h[0].item() == math.inf


# --- alpha ---


@pytest.mark.parametrize(
    "call",
    [
        lambda: torch.add(torch.ones(2), torch.ones(2), alpha=1e39),
        lambda: torch.sub(torch.ones(2), torch.ones(2), alpha=-1e39),
        lambda: torch.ones(2).add_(torch.ones(2), alpha=1e39),
        lambda: torch.ones(2).sub_(torch.ones(2), alpha=1e39),
        lambda: torch.add(torch.ones(2, requires_grad=True), torch.ones(2), alpha=1e39),
        lambda: torch.add(torch.ones(2), 3, alpha=1e39),
        lambda: torch.add(3, torch.ones(2), alpha=1e39),
        lambda: torch.add(torch.ones(3000), torch.ones(3000), alpha=3.5e38),
    ],
)
def test_alpha_beyond_float32_raises(call):
    with pytest.raises(RuntimeError, match=OVERFLOW.format("float")):
        call()


def test_alpha_is_checked_in_the_result_dtype():
    h = torch.ones(2, dtype=torch.float16)
    with pytest.raises(RuntimeError, match=OVERFLOW.format("c10::Half")):
        torch.add(h, h, alpha=65505.0)
    with pytest.raises(RuntimeError, match=OVERFLOW.format("c10::Half")):
        torch.add(torch.ones(2, dtype=torch.bool), h, alpha=1e5)
    with pytest.raises(RuntimeError, match=OVERFLOW.format("c10::BFloat16")):
        b = torch.ones(2, dtype=torch.bfloat16)
        torch.add(b, b, alpha=1e39)
    with pytest.raises(RuntimeError, match=OVERFLOW.format("int8_t")):  # bool + int8 is int8
        torch.add(torch.ones(2, dtype=torch.bool), torch.ones(2, dtype=torch.int8), alpha=256)
    assert torch.add(h, h, alpha=65504.0).tolist() == [65504.0, 65504.0]
    assert torch.add(torch.ones(2), torch.ones(2), alpha=math.inf).tolist() == [math.inf] * 2
    assert torch.add(torch.ones(2, dtype=torch.float64), torch.ones(2), alpha=1e39)[0].item() == (
        1e39
    )


def test_alpha_beyond_a_scalar_is_an_overflow_error():
    for call in (
        lambda: torch.add(torch.ones(2), torch.ones(2), alpha=2**64),
        lambda: torch.ones(2).add_(torch.ones(2), alpha=2**64),
        lambda: torch.add(torch.ones(2, dtype=torch.float64), 1, alpha=2**64),
    ):
        with pytest.raises(OverflowError, match="int too big to convert"):
            call()
    with pytest.raises(OverflowError, match="can't convert negative int to unsigned"):
        torch.sub(torch.ones(2), torch.ones(2), alpha=-(2**63) - 1)
    assert torch.add(torch.ones(1, dtype=torch.float64), 0, alpha=2**63).item() == 1.0


def test_result_type_refuses_an_int_beyond_a_scalar():
    with pytest.raises(OverflowError, match="int too big to convert"):
        torch.result_type(torch.ones(1), 2**64)
    with pytest.raises(OverflowError, match="can't convert negative int to unsigned"):
        torch.result_type(-(2**63) - 1, torch.ones(1))
    assert torch.result_type(torch.ones(1), 2**63) is torch.float32


# --- clamp ---


def test_clamp_with_a_tensor_and_a_number_bound_checks_the_number():
    u8 = torch.ones(3, dtype=torch.uint8)
    with pytest.raises(RuntimeError, match=OVERFLOW.format("uint8_t")):
        torch.clamp(u8, min=300, max=torch.tensor(4))
    with pytest.raises(RuntimeError, match=OVERFLOW.format("uint8_t")):
        torch.clamp(u8, min=torch.tensor(1), max=300)
    with pytest.raises(RuntimeError, match=OVERFLOW.format("float")):
        torch.clamp(torch.ones(3), min=1e39, max=torch.tensor(4.0))
    with pytest.raises(RuntimeError, match=OVERFLOW.format("c10::Half")):
        torch.clamp(torch.ones(3, dtype=torch.float16), min=1e5, max=torch.tensor(4.0))
    assert torch.clamp(u8, min=-1, max=torch.tensor(200)).tolist() == [200] * 3  # -1 is 255


def test_clamp_inplace_refuses_a_float_bound_on_integers_first():
    msg = "result type Float can't be cast to the desired output type short int"
    with pytest.raises(RuntimeError, match=msg):
        torch.ones(3, dtype=torch.int16).clamp_(1e39)  # not the float overflow
    with pytest.raises(RuntimeError, match="result type Long can't be cast to the desired output"):
        torch.ones(3, dtype=torch.bool).clamp_(2)
    with pytest.raises(OverflowError, match="int too big to convert"):
        torch.ones(3, dtype=torch.bool).clamp_(2**64)
    assert torch.full((3,), 5, dtype=torch.int16).clamp_(1, 2).tolist() == [2, 2, 2]


def test_var_std_nansum_check_repeated_dims_in_order():
    x = torch.zeros(1, 3)
    for op in ("std", "var", "nansum"):
        with pytest.raises(
            RuntimeError, match="^dim 0 appears multiple times in the list of dims$"
        ):
            getattr(x, op)((0, -2, -3))
        with pytest.raises(IndexError, match=r"but got 5\)$"):
            getattr(x, op)((0, 5, 0))
    with pytest.raises(IndexError, match=r"but got -3\)$"):  # sum wraps them all first
        x.sum((0, -2, -3))
    with pytest.raises(RuntimeError, match="dim 0 appears multiple times"):
        torch.var_mean(x, (0, -2, -3))
    assert x.std((1, 0)).shape == () and x.nansum([-1]).shape == (1,)


# --- autograd ---


def test_copy_slices_cannot_run_backward_twice():
    a = torch.ones(2, dtype=torch.float64, requires_grad=True)
    v = a - 1
    v[0] = 5.0
    v.sum().backward()
    with pytest.raises(RuntimeError, match="^Trying to backward through the graph a second time"):
        v.sum().backward()
    assert a.grad.tolist() == [0.0, 1.0]  # counted once
    a.grad = None
    v = a - 1
    v[0] = 5.0
    v.sum().backward(retain_graph=True)
    v.sum().backward()
    assert a.grad.tolist() == [0.0, 2.0]


def test_no_grad_view_in_a_composite_op():
    a = torch.ones(2, dtype=torch.float64, requires_grad=True)
    with torch.no_grad():
        v = a[:]
    for op, want in (
        (lambda: torch.sub(v, a, alpha=0.5), [-0.5, -0.5]),
        (lambda: torch.add(a, v, alpha=2), [1.0, 1.0]),
        (lambda: torch.lerp(v, a, 0.25), [0.25, 0.25]),
    ):
        a.grad = None
        r = op()  # was "SubBackward0: the composite used a tensor not in its inputs"
        assert r.grad_fn is not None
        assert None in [e if e is None else e[0] for e in r.grad_fn.next_functions]
        r.sum().backward()
        assert a.grad.tolist() == want
    assert torch.sub(v, v, alpha=3).grad_fn is not None


def test_a_no_grad_view_is_no_root_of_backward():
    a = torch.ones(2, dtype=torch.float64, requires_grad=True)
    msg = "^element 0 of tensors does not require grad and does not have a grad_fn$"
    for base in (a, a * 2):
        with torch.no_grad():
            v = base[:]
        with pytest.raises(RuntimeError, match=msg):
            v.backward(torch.ones(2))  # was silently nothing
        v[0].backward()  # recorded with grad mode on: a root whose gradient is dropped
        with pytest.raises(RuntimeError, match=msg):
            torch.autograd.grad(v, a, torch.ones(2), allow_unused=True)
        v.sum().backward()  # a recorded op on it is a root: its gradient is dropped
        assert a.grad is None
    s = torch.tensor(2.0, requires_grad=True)
    s.backward()
    assert s.grad.item() == 1.0


def test_no_grad_view_of_a_view_changed_before_is_not_stale():
    a = torch.ones(2, dtype=torch.float64, requires_grad=True)
    b = a * 1
    c = b[:]
    c.mul_(2)
    with torch.no_grad():
        d = c[:]
    assert d.grad_fn is None and d.requires_grad  # was the no_grad-view error
    assert (d * 2).sum().item() == 8.0
    b.mul_(3)  # changed after d was taken: now stale, as torch's
    with pytest.raises(RuntimeError, match="^A view was created in no_grad mode and its base"):
        _ = d.grad_fn
