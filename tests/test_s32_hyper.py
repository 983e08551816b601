"""Session 32 (helper hyper): torch-free checks of what the hypernetwork and functional-parameter
programs in tests/reference/test_s32_hyper_reference.py found: a target net built on the meta
device and called with CPU inputs is refused with torch's meta words, naming the input's device
as the expected one and before any dtype check (addmm, F.linear, nn.Linear); functional_call
reads a str as a sequence, as torch does; parameters_to_vector tells only GPUs apart (a CPU and
a meta parameter reach cat); `.data` refuses a tensor across the meta/dense divide (so
vector_to_parameters into a meta parameter). torch 2.13's messages are written as literals."""

from __future__ import annotations

import pytest

import minitorch as mt

nn = mt.nn
META = "Tensor on device {} is not on the expected device {}!"
SET_DATA = (
    "Attempted to call `variable.set_data(tensor)`, but `variable` and `tensor` have "
    "incompatible tensor type."
)


def _meta(*shape, dtype=None):
    return mt.empty(*shape, device="meta", dtype=dtype)


def _message(fn):
    with pytest.raises(RuntimeError) as info:
        fn()
    return str(info.value)


def test_meta_linear_expects_the_inputs_device():
    with mt.device("meta"):
        lin = nn.Linear(3, 4)
    x = mt.randn(5, 3)
    want = META.format("meta", "cpu")
    assert _message(lambda: lin(x)) == want
    assert _message(lambda: lin(x[None])) == want
    assert _message(lambda: nn.functional.linear(x, lin.weight, lin.bias)) == want
    # a meta input with a CPU bias: the CPU one is the stranger
    w, b = mt.randn(4, 3), mt.randn(4)
    assert _message(lambda: nn.functional.linear(_meta(5, 3), w, b)) == META.format("cpu", "meta")


def test_meta_device_is_checked_before_dtypes():
    with mt.device("meta"):
        lin = nn.Linear(3, 4)
    x = mt.randn(5, 3, dtype=mt.float64)
    assert _message(lambda: lin(x)) == META.format("meta", "cpu")
    c = mt.randn(2, 2)
    assert _message(lambda: mt.addmm(_meta(2, 2, dtype=mt.float64), c, c)) == META.format(
        "meta", "cpu"
    )


@pytest.mark.parametrize(
    "args, got, expected",
    [
        (("m", "c", "c"), "meta", "cpu"),
        (("c", "m", "c"), "cpu", "meta"),
        (("c", "m", "m"), "cpu", "meta"),
    ],
)
def test_addmm_meta_mix_names_mat1s_device(args, got, expected):
    t = {"m": _meta(2, 2), "c": mt.randn(2, 2)}
    assert _message(lambda: mt.addmm(*(t[a] for a in args))) == META.format(got, expected)


def test_functional_call_reads_a_str_as_a_sequence():
    lin = nn.Linear(2, 2)
    x = mt.randn(3, 2)
    with pytest.raises(ValueError) as info:
        mt.func.functional_call(lin, "weight", (x,))
    assert str(info.value) == (
        "Expected all elements of parameter_and_buffer_dicts to be dictionaries"
    )
    # an empty str is an empty sequence of dicts: nothing is replaced
    assert mt.func.functional_call(lin, "", (x,)).tolist() == lin(x).tolist()


def test_parameters_to_vector_lets_cpu_and_meta_reach_cat():
    U = nn.utils
    assert _message(lambda: U.parameters_to_vector([mt.ones(2), _meta(3)])) == META.format(
        "meta", "cpu"
    )
    assert _message(lambda: U.parameters_to_vector([_meta(3), mt.ones(2)])) == META.format(
        "cpu", "meta"
    )
    assert U.parameters_to_vector([mt.ones(2), mt.zeros(1)]).tolist() == [1.0, 1.0, 0.0]


def test_set_data_refuses_the_meta_dense_divide():
    a = mt.ones(3)
    assert _message(lambda: setattr(a, "data", _meta(3))) == SET_DATA
    m = _meta(3)
    assert _message(lambda: setattr(m, "data", mt.ones(3))) == SET_DATA
    a.data = mt.ones(2, dtype=mt.float64)  # another dtype and shape: allowed
    assert (a.dtype, a.tolist()) == (mt.float64, [1.0, 1.0])
    m.data = _meta(4)
    assert tuple(m.shape) == (4,)
    params = [mt.ones(2), _meta(3)]
    assert _message(lambda: nn.utils.vector_to_parameters(mt.ones(5), params)) == SET_DATA


def test_modules_still_move_to_and_from_meta():
    lin = nn.Linear(2, 2)
    lin.to("meta")
    assert lin.weight.device.type == "meta"
    lin.to_empty(device="cpu")
    assert lin.weight.device.type == "cpu"
