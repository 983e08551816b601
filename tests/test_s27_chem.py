"""Session 27 (chem): library fixes found by the chemistry/biology program comparisons, each
checked against torch 2.13's behaviour stated as literals."""

from __future__ import annotations

import pytest

import minitorch


def test_removed_lstsq_message_is_torchs_whole_text():
    # torch.lstsq(B, A) raises RuntimeError; its message ends with the unpacking advice
    with pytest.raises(RuntimeError) as info:
        minitorch.lstsq(minitorch.eye(3), minitorch.eye(3))
    msg = str(info.value)
    assert msg.startswith(
        "This function was deprecated since version 1.9 and is now removed. `torch.lstsq` is "
        "deprecated in favor of `torch.linalg.lstsq`.\n"
    )
    assert msg.endswith(
        "To get the QR decomposition consider using `torch.linalg.qr`.\n\nThe returned solution "
        "in `torch.lstsq` stored the residuals of the solution in the last m - n columns of the "
        "returned value whenever m > n. In torch.linalg.lstsq, the residuals are in the field "
        "'residuals' of the returned named tuple.\n\nThe unpacking of the solution, as in\n"
        "X, _ = torch.lstsq(B, A).solution[:A.size(1)]\nshould be replaced with:\n"
        "X = torch.linalg.lstsq(A, B).solution"
    )
    assert len(msg) == 740


_RANDINT_FORMS = (
    " * (int high, tuple of ints size, *, torch.Generator generator, Tensor out = None, "
    "torch.dtype dtype = None, torch.layout layout = None, torch.device device = None, "
    "bool pin_memory = False, bool requires_grad = False)\n"
    " * (int high, tuple of ints size, *, Tensor out = None, torch.dtype dtype = None, "
    "torch.layout layout = None, torch.device device = None, bool pin_memory = False, "
    "bool requires_grad = False)\n"
    " * (int low, int high, tuple of ints size, *, torch.Generator generator, Tensor out = "
    "None, torch.dtype dtype = None, torch.layout layout = None, torch.device device = None, "
    "bool pin_memory = False, bool requires_grad = False)\n"
    " * (int low, int high, tuple of ints size, *, Tensor out = None, torch.dtype dtype = "
    "None, torch.layout layout = None, torch.device device = None, bool pin_memory = False, "
    "bool requires_grad = False)\n"
)


@pytest.mark.parametrize(
    "call, got",
    [
        (lambda t: t.randint(0, 20, 5), "int, int, int"),  # a mutation count for a size
        (lambda t: t.randint(0, 20, size=5), "int, int, size=int"),
        (lambda t: t.randint(0, 20.0, (5,)), "int, float, tuple"),
        (lambda t: t.randint(0, 20, (5.0,)), "int, int, tuple"),
        (lambda t: t.randint(20, (5,), dtype="long"), "int, tuple, dtype=str"),
        (lambda t: t.randint(20), "int"),
        (lambda t: t.randint(0, 20, dtype=t.long), "int, int, dtype=torch.dtype"),
        (
            lambda t: t.randint(20, 5, generator=t.Generator()),
            "int, int, generator=torch._C.Generator",
        ),
    ],
)
def test_randint_lists_its_overloads_when_several_take_the_arguments(call, got):
    # torch.randint names the bad argument only when one overload takes as many arguments
    with pytest.raises(TypeError) as info:
        call(minitorch)
    want = (
        f"randint() received an invalid combination of arguments - got ({got}), but expected "
        f"one of:\n{_RANDINT_FORMS}"
    )
    assert str(info.value).replace("minitorch", "torch") == want


def test_randint_names_the_argument_when_one_overload_fits():
    with pytest.raises(TypeError, match=r"^randint\(\): argument 'size' must be tuple of ints, "):
        minitorch.randint(20, size=5)
    with pytest.raises(TypeError, match=r"argument 'size' \(position 2\) must be tuple of ints"):
        minitorch.randint(20, 5)
    assert minitorch.randint(0, 20, (2, 3), dtype=minitorch.int32).dtype == minitorch.int32


def test_unsqueeze_names_itself_in_a_dim_type_error():
    # torch: x.unsqueeze(dim=1.0) -> "unsqueeze(): argument 'dim' must be int, not float"
    x = minitorch.zeros(2, 3)
    with pytest.raises(TypeError) as info:
        x.unsqueeze(dim=1.0)
    assert str(info.value) == "unsqueeze(): argument 'dim' must be int, not float"
    with pytest.raises(TypeError, match=r"^unsqueeze\(\): argument 'dim'.* must be int, not str$"):
        minitorch.unsqueeze(x, dim="a")
