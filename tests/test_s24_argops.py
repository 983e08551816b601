"""Wrong-typed arguments of torch.* / torch.linalg.* functions: torch's TypeError and message
(session 24, argops). Messages are torch 2.13's, obtained by running it."""

import pytest

import minitorch as torch


def _x():
    return torch.tensor([[3.0, 0.5, 0.1], [0.5, 2.0, 0.3], [0.1, 0.3, 1.5]])


def _i():
    return torch.tensor([0])


# (call, op, argument, position, expected type, given type)
ARGS = [
    (lambda: torch.exp_(None), "exp_", "input", 1, "Tensor", "NoneType"),
    (lambda: torch.sigmoid_("a"), "sigmoid_", "input", 1, "Tensor", "str"),
    (lambda: torch.zero_([1.0]), "zero_", "input", 1, "Tensor", "list"),
    (lambda: torch.relu(None), "relu", "input", 1, "Tensor", "NoneType"),
    (lambda: torch.t(None), "t", "input", 1, "Tensor", "NoneType"),
    (lambda: torch.transpose(None, 0, 1), "transpose", "input", 1, "Tensor", "NoneType"),
    (lambda: torch.permute("a", (1, 0)), "permute", "input", 1, "Tensor", "str"),
    (lambda: torch.clone([1.0, 2.0]), "clone", "input", 1, "Tensor", "list"),
    (lambda: torch.tril(None), "tril", "input", 1, "Tensor", "NoneType"),
    (lambda: torch.nonzero(None), "nonzero", "input", 1, "Tensor", "NoneType"),
    (lambda: torch.gather(None, 0, _i()), "gather", "input", 1, "Tensor", "NoneType"),
    (lambda: torch.t_copy(None), "t_copy", "input", 1, "Tensor", "NoneType"),
    (lambda: torch.cholesky_solve(_x(), None), "cholesky_solve", "input2", 2, "Tensor", "NoneType"),
    (lambda: torch.vander("abc"), "vander", "x", 1, "Tensor", "str"),
    (lambda: torch.aminmax(None), "aminmax", "input", 1, "Tensor", "NoneType"),
    (lambda: torch.masked_select(None, None), "masked_select", "input", 1, "Tensor", "NoneType"),
    (lambda: torch.repeat_interleave(None), "repeat_interleave", "repeats", 1, "Tensor", "NoneType"),  # noqa: E501
    (lambda: torch.linalg.vecdot(_x(), None), "linalg_vecdot", "y", 2, "Tensor", "NoneType"),
    (lambda: torch.linalg.diagonal(None), "linalg_diagonal", "A", 1, "Tensor", "NoneType"),
    (lambda: torch.linalg.lstsq(_x(), None), "linalg_lstsq", "b", 2, "Tensor", "NoneType"),
    (lambda: torch.linalg.multi_dot("ab"), "linalg_multi_dot", "tensors", 1, "tuple of Tensors", "str"),  # noqa: E501
    (lambda: torch.svd(_x(), None), "svd", "some", 2, "bool", "NoneType"),
    (lambda: torch.svd(_x(), True, 1), "svd", "compute_uv", 3, "bool", "int"),
    (lambda: torch.qr(_x(), "a"), "qr", "some", 2, "bool", "str"),
    (lambda: torch.cholesky(_x(), None), "cholesky", "upper", 2, "bool", "NoneType"),
    (lambda: torch.cholesky_inverse(_x(), 1.5), "cholesky_inverse", "upper", 2, "bool", "float"),
    (lambda: torch.cholesky_solve(_x(), _x(), None), "cholesky_solve", "upper", 3, "bool", "NoneType"),  # noqa: E501
    (lambda: torch.triangular_solve(_x(), _x(), True, None), "triangular_solve", "transpose", 4, "bool", "NoneType"),  # noqa: E501
    (lambda: torch.linalg.svd(_x(), None), "linalg_svd", "full_matrices", 2, "bool", "NoneType"),
]  # fmt: skip


@pytest.mark.parametrize(
    "call,op,name,pos,expected,given", ARGS, ids=[f"{r[1]}-{r[2]}" for r in ARGS]
)  # noqa: E501
def test_wrong_type_is_torchs_type_error(call, op, name, pos, expected, given):
    with pytest.raises(TypeError) as e:
        call()
    msg = f"{op}(): argument '{name}' (position {pos}) must be {expected}, not {given}"
    assert str(e.value) == msg


def test_keyword_bool_has_no_position():
    # torch's Python wrapper passes unique_consecutive's flags by keyword
    with pytest.raises(TypeError) as e:
        torch.unique_consecutive(_x(), None)
    assert (
        str(e.value) == "unique_consecutive(): argument 'return_inverse' must be bool, not NoneType"
    )  # noqa: E501


def test_tensor_list_elements():
    with pytest.raises(TypeError) as e:
        torch.atleast_1d(_x(), None)
    assert str(e.value) == "expected Tensor as element 1 in argument 0, but got NoneType"
    with pytest.raises(TypeError) as e:
        torch.meshgrid(torch.ones(2), "a", indexing="ij")
    assert str(e.value) == "expected Tensor as element 1 in argument 0, but got str"
    with pytest.raises(TypeError) as e:
        torch.atleast_2d(None)
    head = "atleast_2d() received an invalid combination of arguments - got (NoneType), but"
    assert str(e.value).startswith(head)


def test_valid_calls_still_work():
    x = _x()
    assert torch.svd(x, True, True)[1].shape == (3,)
    assert torch.cholesky_solve(x, torch.linalg.cholesky(x), False).shape == (3, 3)
    assert torch.relu(-x).sum().item() == 0.0
    assert torch.exp_(torch.zeros(2)).tolist() == [1.0, 1.0]
    assert torch.unique_consecutive(torch.tensor([1, 1, 2]), True)[1].tolist() == [0, 0, 1]


def test_non_tensor_class_name():
    class NotQuite:
        pass

    with pytest.raises(TypeError, match=r"^relu\(\): argument 'input' \(position 1\) must be "):
        torch.relu(NotQuite())
