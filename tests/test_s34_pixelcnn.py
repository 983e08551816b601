"""Session 34 (helper pixelcnn): torch-free regression tests of the library fixes the
autoregressive image-model programs of tests/reference/test_s34_pixelcnn_reference.py found:
randperm given a second positional argument (torch's parser: no overload matches) and
Tensor.multinomial's argument position for a num_samples that is no int (a method's count).
torch's messages are written here as literals."""

from __future__ import annotations

import pytest

import minitorch as mt

_RANDPERM_FORMS = (
    " * (int n, *, torch.Generator generator, Tensor out = None, torch.dtype dtype = None, "
    "torch.layout layout = None, torch.device device = None, bool pin_memory = False, "
    "bool requires_grad = False)\n"
    " * (int n, *, Tensor out = None, torch.dtype dtype = None, torch.layout layout = None, "
    "torch.device device = None, bool pin_memory = False, bool requires_grad = False)\n"
)


def _message(exc_type, fn):
    with pytest.raises(exc_type) as info:
        fn()
    return str(info.value)


@pytest.mark.parametrize(
    "call, got",
    [
        (lambda: mt.randperm(3, 4), "int, int"),
        (lambda: mt.randperm(3, 4, 5), "int, int, int"),
        (lambda: mt.randperm(3, "a"), "int, str"),
        (lambda: mt.randperm(3, mt.long), "int, torch.dtype"),
        (lambda: mt.randperm(3, None), "int, NoneType"),
        (
            lambda: mt.randperm(3, 4, dtype=mt.long, device="cpu"),
            "int, int, device=str, dtype=torch.dtype",
        ),
    ],
)  # fmt: skip
def test_randperm_second_positional_matches_no_overload(call, got):
    want = (
        f"randperm() received an invalid combination of arguments - got ({got}), but expected "
        f"one of:\n{_RANDPERM_FORMS}"
    )
    assert _message(TypeError, call) == want


def test_randperm_still_draws():
    g = mt.Generator().manual_seed(0)
    p = mt.randperm(6, generator=g)
    assert sorted(p.tolist()) == list(range(6))
    assert p.dtype is mt.int64


@pytest.mark.parametrize(
    "call, want",
    [
        (lambda: mt.ones(3).multinomial(2.5), "(position 1) must be int, not float"),
        (lambda: mt.ones(3).multinomial(True), "(position 1) must be int, not bool"),
        (lambda: mt.ones(3).multinomial(mt.tensor([2, 3])), "(position 1) must be int, not Tensor"),
        (lambda: mt.multinomial(mt.ones(3), 2.5), "(position 2) must be int, not float"),
        (lambda: mt.ones(3).multinomial(num_samples=2.5), "must be int, not float"),
    ],
)  # fmt: skip
def test_multinomial_num_samples_position(call, want):
    assert _message(TypeError, call) == "multinomial(): argument 'num_samples' " + want


def test_multinomial_int_like_num_samples():
    g = mt.Generator().manual_seed(1)
    out = mt.ones(2, 4).multinomial(mt.tensor(3), generator=g)
    assert out.shape == (2, 3)
