"""Session 39 (helper methworda): torch-free regression tests of the argument-error wording fixed
for Tensor methods a-l (tests/reference/test_s39_methworda_reference.py compares them with
torch). torch's messages are written out."""

from __future__ import annotations

import pickle

import pytest

import minitorch as torch


def _x():
    g = torch.Generator().manual_seed(0)
    return torch.rand(3, 3, generator=g, dtype=torch.float64) + 0.5


def _message(fn) -> str:
    with pytest.raises(Exception) as info:
        fn()
    return f"{type(info.value).__name__}: {info.value}"


# --- NOTE [ Names of Tensor methods ] ---


@pytest.mark.parametrize(
    "call, want",
    [
        (lambda x: x.flatten(start=0), "flatten() got an unexpected keyword argument 'start'"),
        (lambda x: x.chunk(2, dims=0), "chunk() got an unexpected keyword argument 'dims'"),
        (lambda x: x.index_select(0, torch.tensor([0]), out=x),
         "index_select() got an unexpected keyword argument 'out'"),
        (lambda x: x.clone(foo=1), "clone() got an unexpected keyword argument 'foo'"),
        # the methods torch writes in Python keep "Tensor."
        (lambda x: x.backward(grad=1),
         "Tensor.backward() got an unexpected keyword argument 'grad'"),
        (lambda x: x.split(1, foo=2), "Tensor.split() got an unexpected keyword argument 'foo'"),
    ],
)  # fmt: skip
def test_python_errors_name_methods_as_torch(call, want):
    x = _x()
    assert _message(lambda: call(x)) == f"TypeError: {want}"


@pytest.mark.parametrize("name", ["add", "transpose", "exp", "backward", "item", "split", "less"])
def test_methods_pickle_by_name(name):
    method = getattr(torch.Tensor, name)
    assert pickle.loads(pickle.dumps(method)) is method


def test_dispatch_failure_names_the_method():
    class Other(torch.Tensor):
        @classmethod
        def __torch_function__(cls, func, types, args=(), kwargs=None):
            return NotImplemented

    s = torch.ones(2).as_subclass(Other)
    with pytest.raises(TypeError, match=r"^Multiple dispatch failed for 'minitorch.Tensor.add';"):
        s.add(s)


# --- a method given no operand (NOTE [ A method given no operand ]) ---


@pytest.mark.parametrize(
    "name, want",
    [
        ("atan2_", 'atan2_() missing 1 required positional arguments: "other"'),
        ("hypot_", 'hypot_() missing 1 required positional arguments: "other"'),
        ("heaviside", 'heaviside() missing 1 required positional arguments: "values"'),
        ("cumsum_", 'cumsum_() missing 1 required positional arguments: "dim"'),
        ("fill_diagonal_",
         'fill_diagonal_() missing 1 required positional arguments: "fill_value"'),
        ("geometric_", 'geometric_() missing 1 required positional arguments: "p"'),
        ("allclose", 'allclose() missing 1 required positional arguments: "other"'),
        ("is_set_to", 'is_set_to() missing 1 required positional arguments: "tensor"'),
        ("dist", 'dist() missing 1 required positional arguments: "other"'),
        ("cross", 'cross() missing 1 required positional arguments: "other"'),
        ("diagonal_scatter", 'diagonal_scatter() missing 1 required positional arguments: "src"'),
        ("as_strided", 'as_strided() missing 2 required positional argument: "size", "stride"'),
        ("as_strided_scatter", 'as_strided_scatter() missing 3 required positional argument: '
                               '"src", "size", "stride"'),
        ("lu_solve", 'lu_solve() missing 2 required positional argument: "LU_data", "LU_pivots"'),
        ("as_subclass", 'as_subclass() missing 1 required positional arguments: "cls"'),
        ("lerp_", 'lerp_() received an invalid combination of arguments - got (), but expected one '
                  "of:\n * (Tensor end, Tensor weight)\n * (Tensor end, Number weight)\n"),
        ("add", "add() received an invalid combination of arguments - got (), but expected "
                "(Tensor other, *, Number alpha = 1)"),
        ("addcmul_", "addcmul_() received an invalid combination of arguments - got (), but "
                     "expected (Tensor tensor1, Tensor tensor2, *, Number value = 1)"),
        ("addmm", "addmm() received an invalid combination of arguments - got (), but expected "
                  "(Tensor mat1, Tensor mat2, *, Number beta = 1, Number alpha = 1)"),
        ("copy_", "copy_() received an invalid combination of arguments - got (), but expected "
                  "(Tensor other, bool non_blocking = False)"),
        ("div", "div() received an invalid combination of arguments - got (), but expected one of:"
                "\n * (Tensor other)\n * (Tensor other, *, str rounding_mode)\n * (Number other, "
                "*, str rounding_mode)\n"),
        ("less", "less() received an invalid combination of arguments - got (), but expected one "
                 "of:\n * (Tensor other)\n * (Number other)\n"),
    ],
)  # fmt: skip
def test_method_given_no_operand(name, want):
    x = _x()
    assert _message(getattr(x, name)) == f"TypeError: {want}"


def test_operand_left_out_beside_a_keyword_is_missing():
    x = _x()
    want = 'TypeError: add() missing 1 required positional arguments: "other"'
    assert _message(lambda: x.add(alpha=2)) == want
    want = 'TypeError: div() missing 1 required positional arguments: "other"'
    assert _message(lambda: x.div(rounding_mode="floor")) == want


def test_required_defaults_keep_the_normal_calls():
    x, y = _x(), _x() + 1
    assert torch.equal(x.eq(y), x == y) and torch.equal(x.less(y), x < y)
    assert torch.allclose(x.add(y, alpha=2), x + 2 * y)
    assert torch.allclose(x.clone().copy_(y), y) and x.allclose(x)
    assert torch.allclose(x.addmm(x, y, beta=0.5), 0.5 * x + x @ y)
    assert torch.allclose(x.clone().hypot_(y), (x * x + y * y).sqrt())
    assert torch.allclose(x.clone().cumsum_(1)[:, -1], x.sum(1))


# --- torch's order: the arguments given are checked before a missing one (ARITY_FORMS) ---


@pytest.mark.parametrize(
    "call, want",
    [
        (lambda x, i: x.index_select(i), "index_select(): argument 'dim' (position 1) must be int, "
                                         "not Tensor"),
        (lambda x, i: x.gather("a"), "gather(): argument 'dim' (position 1) must be int, not str"),
        (lambda x, i: x.index_add_(i, x), "index_add_(): argument 'dim' (position 1) must be int, "
                                          "not Tensor"),
        (lambda x, i: torch.index_add(x, "a"), "index_add(): argument 'dim' (position 2) must be "
                                               "int, not str"),
        (lambda x, i: x.index_copy(0, "a"), "index_copy(): argument 'index' (position 2) must be "
                                            "Tensor, not str"),
        (lambda x, i: x.index_reduce(0, i, "a"), "index_reduce(): argument 'source' (position 3) "
                                                 "must be Tensor, not str"),
        (lambda x, i: x.index_put_("a"), "index_put_(): argument 'indices' (position 1) must be "
                                         "tuple of Tensors, not str"),
        (lambda x, i: x.index_put_((None, i)), "expected Tensor as element 0 in argument 0, but "
                                               "got NoneType"),
        (lambda x, i: x.as_strided((2,)), 'as_strided() missing 1 required positional arguments: '
                                          '"stride"'),
        (lambda x, i: x.lu_solve("a"), "lu_solve(): argument 'LU_data' (position 1) must be "
                                       "Tensor, not str"),
    ],
)  # fmt: skip
def test_given_arguments_before_a_missing_one(call, want):
    x = _x()
    assert _message(lambda: call(x, torch.tensor([0, 2]))) == f"TypeError: {want}"


# --- positions and names ---


@pytest.mark.parametrize(
    "call, want",
    [
        (lambda x: x.logit("a"), "logit(): argument 'eps' (position 1) must be float, not str"),
        (lambda x: x.logit_("a"), "logit_(): argument 'eps' (position 1) must be float, not str"),
        (lambda x: torch.logit(x, "a"), "logit(): argument 'eps' (position 2) must be float, "
                                        "not str"),
        (lambda x: x.logit(eps="a"), "logit(): argument 'eps' must be float, not str"),
        (lambda x: x.log_softmax(0, "a"), "log_softmax(): argument 'dtype' (position 2) must be "
                                          "torch.dtype, not str"),
        (lambda x: x.log_softmax(0, dtype="a"), "log_softmax(): argument 'dtype' must be "
                                                "torch.dtype, not str"),
        (lambda x: torch.promote_types(type1="a", type2=torch.float32),
         "promote_types(): argument 'type1' must be torch.dtype, not str"),
        (lambda x: x.dist(x, "fro"), "dist(): argument 'p' (position 2) must be Number, not str"),
        (lambda x: torch.dist(x, x, p="fro"), "dist(): argument 'p' must be Number, not str"),
        (lambda x: x[0].ger("a"), "ger(): argument 'vec2' (position 1) must be Tensor, not str"),
        (lambda x: torch.ger(x[0], "a"), "ger(): argument 'vec2' (position 2) must be Tensor, "
                                         "not str"),
        (lambda x: x[0].ger(x[0], 1), "ger() takes 1 positional argument but 2 were given"),
        (lambda x: x.arctan2("a"), "arctan2(): argument 'other' (position 1) must be Tensor, "
                                   "not str"),
        (lambda x: x.arctan2_(1), "arctan2_(): argument 'other' (position 1) must be Tensor, "
                                  "not int"),
        (lambda x: torch.arctan2(x, "a"), "arctan2(): argument 'other' (position 2) must be "
                                          "Tensor, not str"),
        (lambda x: x.is_set_to("a"), "is_set_to(): argument 'tensor' (position 1) must be "
                                     "Tensor, not str"),
        (lambda x: x.as_subclass(5), "cls must be a type (got int)"),
        (lambda x: x.cpu(torch.contiguous_format), "cpu() takes 0 positional arguments but 1 "
                                                   "was given"),
        (lambda x: x.cdouble("a"), "cdouble() takes 0 positional arguments but 1 was given"),
    ],
)  # fmt: skip
def test_argument_wording(call, want):
    assert _message(lambda: call(_x())) == f"TypeError: {want}"


@pytest.mark.parametrize("name, op", [("greater", "greater"), ("less_equal_", "less_equal_")])
def test_comparison_aliases_name_themselves(name, op):
    msg = _message(lambda: getattr(_x(), name)("a"))
    assert msg.startswith(f"TypeError: {op}() received an invalid combination of arguments - "
                          "got (str), but expected one of:\n * (Tensor other)\n")  # fmt: skip


def test_is_pinned_parses_its_device():
    x = _x()
    with pytest.warns(DeprecationWarning):
        assert x.is_pinned("cpu") is False
    assert _message(lambda: x.is_pinned("a")).startswith("RuntimeError: Expected one of cpu,")
    want = "TypeError: is_pinned(): argument 'device' (position 1) must be torch.device, not float"
    assert _message(lambda: x.is_pinned(1.5)) == want


def test_dist_reads_a_bool_order():
    x, y = _x(), torch.zeros(3, 3, dtype=torch.float64)
    assert torch.allclose(x.dist(y, True), x.abs().sum())
    assert torch.allclose(x.dist(y, torch.tensor(3.0)), x.dist(y, 3))
