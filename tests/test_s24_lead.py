"""The lead's fixes of session 24: c10's checked-conversion overflow errors name each dtype in
c10's spelling from one table (minitorch/_dtype.py C10_NAMES); literals from torch 2.13."""

import pytest

import minitorch as torch


@pytest.mark.parametrize(
    "call, name",
    [
        (lambda: torch.randperm(2**31 + 5, dtype=torch.int32), "int"),
        (lambda: torch.randperm(300, dtype=torch.uint8), "uint8_t"),
        (lambda: torch.full((2,), 300, dtype=torch.uint8), "uint8_t"),
        (lambda: torch.full((2,), 1e39), "float"),
        (lambda: torch.zeros(3, dtype=torch.int32).fill_(2**40), "int"),
        (lambda: torch.linspace(0, 300, 5, dtype=torch.uint8), "uint8_t"),
        (lambda: torch.zeros(2).half().masked_fill(torch.tensor([True, False]), 1e9), "c10::Half"),
        (lambda: torch.tensor([300], dtype=torch.uint8), "uint8"),  # tensor() names it so
        (lambda: torch.tensor([2**40], dtype=torch.int32), "int32"),
    ],
)
def test_overflow_error_names_the_dtype_as_c10(call, name):
    with pytest.raises(RuntimeError, match=f"^value cannot be converted to type {name} without"):
        call()


def test_out_of_place_resize_node_is_resize_backward():
    import warnings

    x = torch.randn(2, 3, requires_grad=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        y = x.resize_as(torch.zeros(3, 2))
        z = (x * 1).resize(6)
    assert type(y.grad_fn).__name__ == "ResizeBackward"
    assert type(z.grad_fn).__name__ == "ResizeBackward"
    assert type(z.grad_fn.next_functions[0][0]).__name__ == "MulBackward0"
    (z * torch.arange(6.0)).sum().backward()
    assert x.grad.tolist() == [[0.0, 1.0, 2.0], [3.0, 4.0, 5.0]]


def test_adam_first_second_moment_is_torchs_bits():
    # torch's addcmul_ computes acc + (value * g) * g; g * g * value rounds differently for
    # some g (this one: float32 step 0 of Adam's exp_avg_sq)
    g = torch.tensor([-0.13210485875606537, 1.3040000200271606, 0.9470809698104858])
    p = torch.zeros(3, requires_grad=True)
    opt = torch.optim.Adam([p], lr=0.1)
    p.grad = g.clone()
    opt.step()
    # torch 2.13's values
    expected = [1.745169356581755e-05, 0.0017004160908982158, 0.000896962417755276]
    assert opt.state[p]["exp_avg_sq"].tolist() == expected


def test_not_tensor_names_a_python_class_bare():
    class NT:
        pass

    # torch 2.13: CPython's tp_name, the bare name of a class defined in Python
    with pytest.raises(
        TypeError, match=r"^exp\(\): argument 'input' \(position 1\) must be Tensor, not NT$"
    ):
        torch.exp(NT())
    with pytest.raises(TypeError, match="must be Tensor, not collections.OrderedDict$"):
        torch.exp(__import__("collections").OrderedDict())
