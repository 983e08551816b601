"""*_like factories and in-place ops with Tensor-subclass operands; torch.range's parser errors.

Expected values are torch 2.13's (run there), written as literals."""

import warnings

import pytest

import minitorch as torch


class MyT(torch.Tensor):
    pass


class Sib(torch.Tensor):
    pass


class Logged(torch.Tensor):
    calls = []

    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        cls.calls.append((func.__name__, sorted(kwargs or {})))
        return super().__torch_function__(func, types, args, kwargs or {})


def _sub(cls=MyT):
    return torch.arange(6.0).reshape(2, 3).as_subclass(cls)


LIKES = [
    lambda a, **k: torch.zeros_like(a, **k),
    lambda a, **k: torch.ones_like(a, **k),
    lambda a, **k: torch.empty_like(a, **k),
    lambda a, **k: torch.full_like(a, 2.0, **k),
    lambda a, **k: torch.rand_like(a, **k),
    lambda a, **k: torch.randn_like(a, **k),
    lambda a, **k: torch.randint_like(a, 5, **k),
]


@pytest.mark.parametrize("like", LIKES)
def test_like_factories_return_the_subclass(like):
    r = like(_sub())
    assert type(r) is MyT and r.is_leaf and r.grad_fn is None
    assert r.shape == (2, 3) and r.dtype == torch.float32
    assert type(like(torch.nn.Parameter(torch.ones(2, 3)))) is torch.Tensor  # opted out
    assert type(like(torch.ones(2))) is torch.Tensor


def test_like_factory_of_subclass_requiring_grad_is_an_alias():
    r = torch.zeros_like(_sub(), requires_grad=True)
    assert type(r) is MyT and r.requires_grad and not r.is_leaf
    assert type(r.grad_fn).__name__ == "AliasBackward0"
    r = torch.zeros_like(_sub(), dtype=torch.int64)
    assert type(r) is MyT and r.dtype == torch.int64
    with pytest.raises(RuntimeError, match="required rank 4 tensor to use channels_last format"):
        torch.empty_like(_sub(), memory_format=torch.channels_last)


def test_like_factories_call_a_subclass_torch_function():
    x = _sub(Logged)
    Logged.calls.clear()
    assert type(torch.zeros_like(x)) is Logged
    assert type(torch.full_like(x, 3, dtype=torch.float64)) is Logged
    assert type(torch.rand_like(x)) is Logged
    assert Logged.calls == [("zeros_like", []), ("full_like", ["dtype"]), ("rand_like", [])]


def test_rand_like_checks_the_memory_format_first():
    msg = "required rank 4 tensor to use channels_last format"
    with pytest.raises(RuntimeError, match=msg):  # was: not implemented for 'Bool'
        torch.rand_like(torch.tensor(True), memory_format=torch.channels_last)
    with pytest.raises(RuntimeError, match=msg):
        torch.randint_like(
            torch.tensor(True),
            5,
            dtype=torch.int64,
            memory_format=torch.channels_last,
            requires_grad=True,
        )


def test_adam_state_of_a_subclass_parameter():
    torch.manual_seed(0)
    w = torch.randn(3, 2).as_subclass(MyT).requires_grad_()
    opt = torch.optim.Adam([w], lr=0.1)
    for _ in range(2):
        loss = (w * w).sum()
        opt.zero_grad()
        loss.backward()
        opt.step()
    state = opt.state[w]
    assert type(state["exp_avg"]) is MyT and type(state["exp_avg_sq"]) is MyT
    assert type(state["step"]) is torch.Tensor and type(w.grad) is torch.Tensor
    expected = [1.34123, -0.09652, -1.97894, 0.36939, -0.88489, -1.19886]
    assert w.detach().flatten().tolist() == pytest.approx(expected, abs=1e-5)


INPLACE = {
    "add_": (lambda a, b: a.add_(b, alpha=2), [[2.0, 5.0], [8.0, 2.0]], "AddBackward0"),
    "sub_": (lambda a, b: a.sub_(b), [[0.5, 0.5], [0.5, 5.0]], "SubBackward0"),
    "mul_": (lambda a, b: a.mul_(b), [[0.5, 3.0], [7.5, -4.0]], "MulBackward0"),
    "div_": (lambda a, b: a.div_(b), [[2.0, 4 / 3], [1.2, -4.0]], "DivBackward0"),
    "iadd": (lambda a, b: a.__iadd__(b), [[1.5, 3.5], [5.5, 3.0]], "AddBackward0"),
    "copy_": (lambda a, b: a.copy_(b), [[0.5, 1.5], [2.5, -1.0]], "CopyBackwards"),
    "fill_": (lambda a, b: a.fill_(b[0, 0]), [[0.5, 0.5], [0.5, 0.5]], "FillBackward3"),
    "lerp_": (lambda a, b: a.lerp_(b, 0.3), [[0.85, 1.85], [2.85, 2.5]], "LerpBackward0"),
    "addcmul_": (
        lambda a, b: a.addcmul_(b, b, value=2),
        [[1.5, 6.5], [15.5, 6.0]],
        "AddcmulBackward0",
    ),
    "addmm_": (lambda a, b: a.addmm_(b, b), [[5.0, 1.25], [1.75, 8.75]], "AddmmBackward0"),
    "eq_": (lambda a, b: a.eq_(b), [[0.0, 0.0], [0.0, 0.0]], "EqBackward1"),
    "clamp_": (lambda a, b: a.clamp_(b, None), [[1.0, 2.0], [3.0, 4.0]], "ClampBackward0"),
    "pow_": (lambda a, b: a.pow_(b), [[1.0, 2.8284271], [15.588457, 0.25]], "PowBackward1"),
}


def _operands(requires_grad):
    a = torch.tensor([[1.0, 2.0], [3.0, 4.0]])
    b = torch.tensor([[0.5, 1.5], [2.5, -1.0]]).as_subclass(MyT)
    if requires_grad:
        a = a.requires_grad_().clone()
        b = b.detach().requires_grad_()
    return a, b


@pytest.mark.parametrize("name", sorted(INPLACE))
@pytest.mark.parametrize("requires_grad", [False, True])
def test_inplace_with_a_subclass_operand_returns_an_alias_of_self(name, requires_grad):
    op, expected, node = INPLACE[name]
    a, b = _operands(requires_grad)
    r = op(a, b)
    assert type(r) is MyT and r is not a and r._base is a and type(a) is torch.Tensor
    flat = [v for row in expected for v in row]
    assert a._version == 1 and r.flatten().tolist() == pytest.approx(flat)
    assert a.flatten().tolist() == pytest.approx(flat)  # written into self
    if requires_grad:
        assert type(a.grad_fn).__name__ == node  # self's own node, not an alias's
        assert type(r.grad_fn).__name__ == "AliasBackward0"
    else:
        assert r.grad_fn is None and a.grad_fn is None


def test_inplace_subclass_grad_flows_through_the_alias():
    a = torch.tensor([1.0, 2.0], dtype=torch.float64, requires_grad=True)
    b = torch.tensor([3.0, 5.0], dtype=torch.float64).as_subclass(MyT).requires_grad_()
    r = a.clone().mul_(b)
    assert type(r) is MyT
    r.sum().backward()
    assert a.grad.tolist() == [3.0, 5.0] and b.grad.tolist() == [1.0, 2.0]


def test_inplace_on_the_subclass_itself_and_mixed_classes():
    a, b = _operands(False)
    assert b.add_(a) is b  # self already of the class: itself
    with pytest.raises(TypeError, match=r"Multiple dispatch failed for 'torch.Tensor.lerp_'"):
        a.lerp_(b, torch.ones(2, 2).as_subclass(Sib))
    p = torch.nn.Parameter(torch.ones(2, 2), requires_grad=False)
    r = p.add_(b)  # a Parameter opts out; the other operand's class wins
    assert type(r) is MyT and r._base is p


def test_inplace_calls_a_subclass_torch_function_with_the_method():
    x = torch.ones(2).as_subclass(Logged)
    Logged.calls.clear()
    assert type(torch.ones(2).add_(x, alpha=2)) is Logged
    assert type(torch.ones(2).mul_(x)) is Logged
    assert type(torch.ones(2).copy_(x)) is Logged
    assert Logged.calls == [("add_", ["alpha"]), ("mul_", []), ("copy_", [])]


def _caught(fn):
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        try:
            fn()
        except Exception as e:  # noqa: BLE001
            return type(e), str(e), [str(x.message)[:22] for x in w]
    return None, None, [str(x.message)[:22] for x in w]


def test_range_parser_errors_come_without_the_deprecation_warning():
    assert _caught(lambda: torch.range(3)) == (
        TypeError,
        'range() missing 1 required positional arguments: "end"',
        [],
    )
    assert _caught(lambda: torch.range()) == (
        TypeError,
        'range() missing 2 required positional argument: "start", "end"',
        [],
    )
    # the start's type is checked before the missing end, as torch's parser does
    assert _caught(lambda: torch.range("a")) == (
        TypeError,
        "range(): argument 'start' must be Number, not str",
        [],
    )
    assert _caught(lambda: torch.range(torch.tensor([1, 2]), 3)) == (
        TypeError,
        "range(): argument 'start' must be Number, not Tensor",
        [],
    )
    assert _caught(lambda: torch.range(1, 3, dtype=3))[2] == []
    assert _caught(lambda: torch.range(1, 3, out=3)) == (
        TypeError,
        "range(): argument 'out' must be Tensor, not int",
        [],
    )
    _, _, w = _caught(lambda: torch.range(1, 3))
    assert w == ["torch.range is depreca"]


def test_infinite_step_gives_no_numpy_warning():
    exc, _, w = _caught(lambda: torch.arange(0.3, 5, float("inf")))
    assert exc is None and w == []
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        warnings.simplefilter("ignore", UserWarning)
        r = torch.range(1, 9, float("inf"))
    assert r.shape == (1,) and r.isnan().all()
