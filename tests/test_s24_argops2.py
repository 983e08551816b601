# ruff: noqa: E501  (tables of calls and torch's messages, one a line)
"""Wrong-typed arguments of torch.* / torch.linalg.* functions, continued (session 24, argops2):
torch's TypeError where minitorch raised RuntimeError/ValueError/IndexError or accepted the
value. Messages are torch 2.13's, obtained by running it."""

import pytest

import minitorch as torch


def _x():
    return torch.tensor([[3.0, 0.5, 0.1], [0.5, 2.0, 0.3], [0.1, 0.3, 1.5]])


def _v():
    return torch.tensor([0.5, 1.0, 2.0])


def _t9():
    return torch.arange(9)


# (call, torch's message)
MUST_BE = [
    (lambda: torch.logit(_v(), eps="abc"), "logit(): argument 'eps' must be float, not str"),
    (lambda: torch.pinverse(_x(), None), "pinverse(): argument 'rcond' (position 2) must be float, not NoneType"),
    (lambda: torch.masked_select(_x(), None), "masked_select(): argument 'mask' (position 2) must be Tensor, not NoneType"),
    (lambda: torch.masked_select(_x(), [1.0, 2.0]), "masked_select(): argument 'mask' (position 2) must be Tensor, not list"),
    (lambda: torch.linalg.eigh(_x(), None), "linalg_eigh(): argument 'UPLO' (position 2) must be str, not NoneType"),
    (lambda: torch.linalg.eigvalsh(_x(), None), "linalg_eigvalsh(): argument 'UPLO' (position 2) must be str, not NoneType"),
    (lambda: torch.linalg.qr(_x(), None), "linalg_qr(): argument 'mode' (position 2) must be str, not NoneType"),
    (lambda: torch.matrix_power(_x(), _t9()), "matrix_power(): argument 'n' (position 2) must be int, not Tensor"),
    (lambda: torch.linalg.matrix_power(_x(), _t9()), "linalg_matrix_power(): argument 'n' (position 2) must be int, not Tensor"),
    (lambda: torch.diff(_x(), _t9()), "diff(): argument 'n' (position 2) must be int, not Tensor"),
    (lambda: torch.combinations(_v(), _t9()), "combinations(): argument 'r' (position 2) must be int, not Tensor"),
    (lambda: torch.combinations(_v(), 2, None), "combinations(): argument 'with_replacement' (position 3) must be bool, not NoneType"),
    (lambda: torch.multinomial(_v(), 2, None), "multinomial(): argument 'replacement' (position 3) must be bool, not NoneType"),
    (lambda: torch.put(_x(), torch.tensor([0]), torch.tensor([1.0]), "abc"), "put(): argument 'accumulate' (position 4) must be bool, not str"),
    (lambda: torch.index_put(_x(), (torch.tensor([0]),), torch.tensor(1.0), 1.5), "index_put(): argument 'accumulate' (position 4) must be bool, not float"),
    (lambda: torch.vander(_v(), _t9()), "vander(): argument 'N' (position 2) must be int, not Tensor"),
    (lambda: torch.vander(_v(), 2, None), "vander(): argument 'increasing' (position 3) must be bool, not NoneType"),
    (lambda: torch.tril_indices(3, 3, 1.5), "tril_indices(): argument 'offset' (position 3) must be int, not float"),
    (lambda: torch.triu_indices(_t9(), 3), "triu_indices(): argument 'row' (position 1) must be int, not Tensor"),
    (lambda: torch.select_copy(_x(), 0, 1.5), "select_copy(): argument 'index' (position 3) must be int, not float"),
    (lambda: torch.slice_copy(_x(), 0, 0, 2, None), "slice_copy(): argument 'step' (position 5) must be int, not NoneType"),
    (lambda: torch.permute(_x(), "abc"), "permute(): argument 'dims' (position 2) must be tuple of ints, not str"),
    (lambda: torch.permute_copy(_x(), None), "permute_copy(): argument 'dims' (position 2) must be tuple of ints, not NoneType"),
]  # fmt: skip


@pytest.mark.parametrize(
    "call,msg", MUST_BE, ids=[m.split("(")[0] + str(i) for i, (_, m) in enumerate(MUST_BE)]
)  # noqa: E501
def test_must_be_type_error(call, msg):
    with pytest.raises(TypeError) as e:
        call()
    assert str(e.value) == msg


# (call, op, got): torch's "received an invalid combination of arguments" first line
NO_OVERLOAD = [
    (lambda: torch.hann_window(5, None), "hann_window", "int, NoneType"),
    (lambda: torch.bartlett_window(5, 1.5), "bartlett_window", "int, float"),
    (lambda: torch.hamming_window(5, True, "a"), "hamming_window", "int, bool, str"),
    (lambda: torch.kaiser_window(5, True, "a"), "kaiser_window", "int, bool, str"),
    (lambda: torch.clamp_min(_x(), None), "clamp_min", "Tensor, NoneType"),
    (lambda: torch.clamp_max_(_x(), None), "clamp_max_", "Tensor, NoneType"),
    (lambda: torch.float_power(_x(), "abc"), "float_power", "Tensor, str"),
    (lambda: torch.histogramdd(_x(), "abc"), "histogramdd", "Tensor, str"),
    (lambda: torch.histogramdd(_x(), _t9()), "histogramdd", "Tensor, Tensor"),
    (lambda: torch.lerp(_x(), _x(), "abc"), "lerp", "Tensor, Tensor, str"),
    (lambda: torch.lerp(_x(), _x(), [1.0, 2.0]), "lerp", "Tensor, Tensor, list"),
    (lambda: torch.linalg.matrix_norm(_x(), None), "linalg_matrix_norm", "Tensor, NoneType"),
    (lambda: torch.linalg.matrix_rank(_x(), "abc", False), "linalg_matrix_rank", "Tensor, str, bool"),
    (lambda: torch.linalg.pinv(_x(), 1.0, None), "linalg_pinv", "Tensor, float, NoneType"),
    (lambda: torch.movedim(_x(), "abc", (1,)), "movedim", "Tensor, str, tuple"),
    (lambda: torch.normal(_x(), "abc"), "normal", "Tensor, str"),
    (lambda: torch.nuclear_norm(_x(), "abc"), "nuclear_norm", "Tensor, str"),
    (lambda: torch.quantile(_x(), 0.5, 1, None), "quantile", "Tensor, float, int, NoneType"),
    (lambda: torch.nanquantile(_x(), 0.5, 1, 1.5), "nanquantile", "Tensor, float, int, float"),
    (lambda: torch.repeat_interleave(_x(), None, 1), "repeat_interleave", "Tensor, NoneType, int"),
    (lambda: torch.squeeze(_x(), _t9()), "squeeze", "Tensor, Tensor"),
    (lambda: torch.squeeze_copy(_x(), _t9()), "squeeze_copy", "Tensor, Tensor"),
]  # fmt: skip


@pytest.mark.parametrize(
    "call,op,got", NO_OVERLOAD, ids=[f"{r[1]}-{i}" for i, r in enumerate(NO_OVERLOAD)]
)  # noqa: E501
def test_no_overload_type_error(call, op, got):
    with pytest.raises(TypeError) as e:
        call()
    first = str(e.value).split("\n")[0]
    assert (
        first
        == f"{op}() received an invalid combination of arguments - got ({got}), but expected one of:"
    )  # noqa: E501


def test_valid_values_still_accepted():
    # what torch's parser reads as the type: 0-d tensors, bools for floats, ints for floats
    assert torch.logit(_v() / 4, torch.tensor(0.1)).shape == (3,)
    assert torch.pinverse(_x(), True).shape == (3, 3)
    assert torch.hamming_window(5, True, 1).shape == (5,)
    assert torch.kaiser_window(5, True, torch.tensor(2.0)).shape == (5,)
    assert torch.histogramdd(_x()[:, :2], torch.tensor(2)).hist.shape == (2, 2)
    assert torch.combinations(_v(), torch.tensor(2)).shape == (3, 2)
    assert torch.linalg.matrix_power(_x(), torch.tensor(2)).shape == (3, 3)
    assert torch.linalg.matrix_rank(_x(), torch.tensor(1.0), False).item() == 3
    assert torch.lerp(_x(), _x(), 1).shape == (3, 3)


def test_broadcast_tensors_names_rightmost_mismatch():
    with pytest.raises(RuntimeError) as e:
        torch.broadcast_tensors(torch.ones(2, 3), torch.ones(3, 4))
    msg = (
        "The size of tensor a (3) must match the size of tensor b (4) at non-singleton dimension 1"
    )
    assert str(e.value) == msg
    shapes = [t.shape for t in torch.broadcast_tensors(torch.ones(2, 1, 3), torch.ones(4, 1))]
    assert shapes == [(2, 4, 3), (2, 4, 3)]
