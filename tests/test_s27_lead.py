"""Session 27's own fixes (texts and values taken from torch 2.13)."""

import numpy as np
import pytest

import minitorch as torch


@pytest.mark.parametrize(
    "alpha, name",
    [
        (torch.tensor([2.0]), "Tensor"),
        (torch.tensor(2.0, requires_grad=True), "Tensor"),
        ("a", "str"),
        (None, "NoneType"),
        ([2], "list"),
    ],
)
@pytest.mark.parametrize(
    "call, op",
    [
        (lambda x, a: x.add(x, alpha=a), "add"),
        (lambda x, a: torch.sub(x, x, alpha=a), "sub"),
        (lambda x, a: x.add_(x, alpha=a), "add_"),
        (lambda x, a: x.sub_(1, alpha=a), "sub_"),
        (lambda x, a: torch.add(x, 1, alpha=a), "add"),
        (lambda x, a: x.half().add(1, alpha=a), "add"),
    ],
)
def test_add_sub_alpha_must_be_a_number(alpha, name, call, op):
    x = torch.ones(2)
    with pytest.raises(TypeError) as info:
        call(x, alpha)
    assert str(info.value) == f"{op}(): argument 'alpha' must be Number, not {name}"
    assert x.tolist() == [1.0, 1.0]


def test_add_sub_alpha_numbers_and_zero_dim_tensors_still_work():
    x = torch.ones(2)
    assert x.add(x, alpha=torch.tensor(2.0)).tolist() == [3.0, 3.0]
    assert x.sub(x, alpha=np.float32(0.5)).tolist() == [0.5, 0.5]
    assert torch.ones(2, dtype=torch.int64).add_(1, alpha=3).tolist() == [4, 4]
    y = torch.ones(2)
    y.add_(y, alpha=np.float64(2.0))
    assert y.tolist() == [3.0, 3.0]
    with pytest.raises(RuntimeError, match="alpha must not be a complex number"):
        x.add(x, alpha=2 + 0j)


_M, _A, _B = torch.ones(2, 2), torch.ones(2, 3), torch.ones(3, 2)
_B3, _B4 = torch.ones(2, 2, 3), torch.ones(2, 3, 2)
_SCALAR_CALLS = {
    "Tensor.addmm": ("addmm", lambda **k: _M.addmm(_A, _B, **k)),
    "addmm_": ("addmm_", lambda **k: _M.clone().addmm_(_A, _B, **k)),
    "addmv": ("addmv", lambda **k: torch.addmv(torch.ones(2), _A, torch.ones(3), **k)),
    "addr": ("addr", lambda **k: torch.addr(_M, torch.ones(2), torch.ones(2), **k)),
    "addbmm": ("addbmm", lambda **k: torch.addbmm(_M, _B3, _B4, **k)),
    "Tensor.baddbmm_": ("baddbmm_", lambda **k: torch.ones(2, 2, 2).baddbmm_(_B3, _B4, **k)),
}


@pytest.mark.parametrize("call", sorted(_SCALAR_CALLS))
@pytest.mark.parametrize("name", ["beta", "alpha"])
@pytest.mark.parametrize(
    "value, shown",
    [(torch.tensor([2.0]), "Tensor"), (torch.tensor(2.0, requires_grad=True), "Tensor"),
     ("a", "str"), (None, "NoneType")],
)  # fmt: skip
def test_addmm_family_scalars_must_be_numbers(call, name, value, shown):
    op, fn = _SCALAR_CALLS[call]
    with pytest.raises(TypeError) as info:
        fn(**{name: value})
    assert str(info.value) == f"{op}(): argument '{name}' must be Number, not {shown}"


def test_addmm_and_baddbmm_functions_list_their_overloads():
    tail = "*, Number beta = 1, Number alpha = 1, Tensor out = None)\n"
    with pytest.raises(TypeError) as info:
        torch.addmm(_M, _A, _B, beta="a", alpha=torch.ones(2))
    assert str(info.value) == (
        "addmm() received an invalid combination of arguments - got (Tensor, Tensor, Tensor, "
        "alpha=Tensor, beta=str), but expected one of:\n"
        " * (Tensor input, Tensor mat1, Tensor mat2, "
        + tail
        + " * (Tensor input, Tensor mat1, Tensor mat2, torch.dtype out_dtype, "
        + tail
    )
    with pytest.raises(TypeError) as info:
        torch.baddbmm(torch.ones(2, 2, 2), _B3, _B4, alpha=None)
    assert str(info.value) == (
        "baddbmm() received an invalid combination of arguments - got (Tensor, Tensor, Tensor, "
        "alpha=NoneType), but expected one of:\n"
        " * (Tensor input, Tensor batch1, Tensor batch2, "
        + tail
        + " * (Tensor input, Tensor batch1, Tensor batch2, torch.dtype out_dtype, "
        + tail
    )
    # a 0-d tensor that does not require grad is read as its number
    assert torch.addmm(_M, _A, _B, beta=torch.tensor(2.0)).tolist() == [[5.0, 5.0], [5.0, 5.0]]


_X = torch.ones(2)


@pytest.mark.parametrize(
    "call, op, arg, pos, got",
    [
        (lambda: _X.matmul("a"), "matmul", "other", 1, "str"),
        (lambda: torch.matmul(_X, "a"), "matmul", "other", 2, "str"),
        (lambda: _X.maximum("a"), "maximum", "other", 1, "str"),
        (lambda: torch.maximum(_X, "a"), "maximum", "other", 2, "str"),
        (lambda: _X.add("a"), "add", "other", 1, "str"),
        (lambda: torch.add(_X, "a"), "add", "other", 2, "str"),
        (lambda: _X.add_("a"), "add_", "other", 1, "str"),
        (lambda: torch.mul(_X, None), "mul", "other", 2, "NoneType"),
        (lambda: _X.dot("a"), "dot", "tensor", 1, "str"),
        (lambda: torch.ones(2, 2).mm("a"), "mm", "mat2", 1, "str"),
        (lambda: _X.masked_select("a"), "masked_select", "mask", 1, "str"),
        (lambda: _X.outer("a"), "outer", "vec2", 1, "str"),
    ],
)
def test_method_errors_count_positions_without_self(call, op, arg, pos, got):
    with pytest.raises(TypeError) as info:
        call()
    assert str(info.value) == f"{op}(): argument '{arg}' (position {pos}) must be Tensor, not {got}"


def _round_exact(value, np_dtype):
    """The float of np_dtype nearest to the Fraction value (ties to even)."""
    from fractions import Fraction

    c = np_dtype(float(value))
    cands = [np.nextafter(c, np_dtype(-np.inf)), c, np.nextafter(c, np_dtype(np.inf))]
    best = min(
        cands,
        key=lambda f: (
            abs(Fraction(float(f)) - value),
            int(np.array(f).view(f"u{f.itemsize}")) & 1,
        ),
    )
    return best


@pytest.mark.parametrize("dt", [torch.float32, torch.float64])
def test_add_sub_with_alpha_round_once_as_torch(dt):
    # torch's kernel is one fused multiply-add: a + alpha * b rounded once (alpha in the dtype)
    from fractions import Fraction

    rng = np.random.default_rng(7)
    npdt = np.float32 if dt is torch.float32 else np.float64
    a = rng.standard_normal(400).astype(npdt)
    b = rng.standard_normal(400).astype(npdt)
    alpha = 0.37
    al = Fraction(float(npdt(alpha)))
    want_add = [
        _round_exact(Fraction(float(x)) + al * Fraction(float(y)), npdt)
        for x, y in zip(a, b, strict=True)
    ]
    want_sub = [
        _round_exact(Fraction(float(x)) - al * Fraction(float(y)), npdt)
        for x, y in zip(a, b, strict=True)
    ]
    ta, tb = torch.from_numpy(a), torch.from_numpy(b)
    assert torch.add(ta, tb, alpha=alpha).numpy().tolist() == want_add
    assert torch.sub(ta, tb, alpha=alpha).numpy().tolist() == want_sub
    assert ta.clone().add_(tb, alpha=alpha).numpy().tolist() == want_add
    assert ta.clone().sub_(tb, alpha=alpha).numpy().tolist() == want_sub
    two_roundings = (a + (b * npdt(alpha))).tolist()
    assert two_roundings != want_add  # the case the fused rounding changes
    # a number operand is wrapped in the dtype first
    want = [_round_exact(Fraction(float(x)) + al * Fraction(float(npdt(0.3))), npdt) for x in a]
    assert torch.add(ta, 0.3, alpha=alpha).numpy().tolist() == want
    # gradients are unchanged
    x = ta.clone().requires_grad_()
    torch.add(x, tb, alpha=alpha).sum().backward()
    assert x.grad.tolist() == [1.0] * 400


def test_fused_alpha_special_values():
    inf, nan = float("inf"), float("nan")
    for dt in (torch.float32, torch.float64):
        a = torch.tensor([inf, -inf, 1.0, -0.0, 0.0, 1e38, nan], dtype=dt)
        b = torch.tensor([1.0, 1.0, inf, -0.0, -0.0, 1e38, 1.0], dtype=dt)
        got = torch.add(a, b, alpha=0.5).tolist()
        assert got[:3] == [inf, -inf, inf]
        assert str(got[3]) == "-0.0" and str(got[4]) == "0.0"
        assert abs(got[5] / 1.5e38 - 1) < 1e-6 and got[6] != got[6]
    big = torch.tensor([3e38], dtype=torch.float32)
    assert torch.add(big, big, alpha=0.5).tolist() == [inf]  # the float32 overflow


def test_fused_alpha_review_cases():
    f64 = torch.float64
    inf = float("inf")
    # the product alone overflows: torch's fused result
    assert torch.sub(torch.tensor([inf], dtype=f64), torch.tensor([1.797e308], dtype=f64),
                     alpha=1e300).tolist() == [inf]  # fmt: skip
    r = torch.add(torch.tensor([1.797e308], dtype=f64), torch.tensor([-1e308], dtype=f64), alpha=3)
    from fractions import Fraction

    assert r.tolist() == [float(Fraction(1.797e308) - 3 * Fraction(1e308))]  # exact, rounded
    # alpha=0 of sub is +0 (torch negates the number): -0 - (+0 * x) keeps x's sign rules
    assert [str(v) for v in torch.sub(torch.tensor([-0.0, -0.0]), torch.tensor([-1.0, 1.0]),
                                      alpha=0).tolist()] == ["-0.0", "0.0"]  # fmt: skip
    # a NumPy alpha is fused out of place too (torch: 1.0258668661117554)
    got = torch.add(torch.tensor([0.82968825]), torch.tensor([1.9617856]), alpha=np.float64(0.1))
    assert got.item() == 1.0258668661117554
    # shapes are checked first: torch's RuntimeError, not NumPy's ValueError
    for call in (lambda: torch.add(torch.ones(3), torch.ones(4), alpha=2),
                 lambda: torch.sub(torch.ones(3), torch.ones(4), alpha=0.5)):  # fmt: skip
        with pytest.raises(RuntimeError, match="must match the size of tensor b"):
            call()


def test_fused_alpha_float64_in_blocks_is_exact():
    from fractions import Fraction

    rng = np.random.default_rng(3)
    a = rng.standard_normal(50000)
    b = rng.standard_normal(50000)
    got = torch.from_numpy(a).add(torch.from_numpy(b), alpha=-0.37).numpy()
    for i in range(0, 50000, 997):  # elements of every block, against the exact value
        exact = Fraction(float(a[i])) - Fraction(0.37) * Fraction(float(b[i]))
        assert got[i] == _round_exact(exact, np.float64)
    small = torch.from_numpy(a[:100]).add(torch.from_numpy(b[:100]), alpha=-0.37).numpy()
    assert got[:100].tolist() == small.tolist()


def test_topk_finds_a_nan_in_the_tail_past_the_last_block():
    x = np.random.default_rng(0).standard_normal(4106).astype(np.float32)
    x[-1] = np.nan
    values, indices = torch.from_numpy(x).topk(2)
    assert str(values.tolist()[0]) == "nan" and indices.tolist() == [4105, 3801]


def test_pinv_of_a_matrix_with_an_inf_is_nan():
    p = torch.linalg.pinv(torch.tensor([[1.0, float("inf")], [0.0, 1.0]]))
    assert all(v != v for row in p.tolist() for v in row)


@pytest.mark.parametrize(
    "call, op, pos, got",
    [
        (lambda x: x.topk("a"), "topk", 1, "str"),
        (lambda x: torch.topk(x, "a"), "topk", 2, "str"),
        (lambda x: x.kthvalue(None), "kthvalue", 1, "NoneType"),
        (lambda x: torch.kthvalue(x, "a"), "kthvalue", 2, "str"),
    ],
)
def test_topk_kthvalue_k_positions(call, op, pos, got):
    with pytest.raises(TypeError) as info:
        call(torch.ones(3))
    assert str(info.value) == f"{op}(): argument 'k' (position {pos}) must be int, not {got}"
