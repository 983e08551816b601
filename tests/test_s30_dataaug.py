"""Session 30 (helper dataaug): torch-free checks of the library fixes the data-augmentation
programs in tests/reference/test_s30_dataaug_reference.py found. A seed passed where a
Generator belongs (`generator=0`, as in DataLoader(..., generator=seed)) gives torch's parser
errors: the overloads listed where torch lists them, the one-argument message elsewhere. The
messages are torch 2.13's."""

from __future__ import annotations

import pytest

import minitorch as mt

_SIZE = (
    "Tensor out = None, torch.dtype dtype = None, torch.layout layout = None, torch.device "
    "device = None, bool pin_memory = False, bool requires_grad = False"
)
_LIKE = (
    "torch.memory_format memory_format = None, torch.dtype dtype = None, torch.layout layout = "
    "None, torch.device device = None, bool pin_memory = False, bool requires_grad = False"
)
_GEN = "torch.Generator generator = None"


def _message(fn):
    with pytest.raises(TypeError) as info:
        fn()
    return str(info.value)


def _combination(op, got, *forms):
    listed = "".join(f" * ({f})\n" for f in forms)
    return f"{op}() received an invalid combination of arguments - got ({got}), but expected one of:\n{listed}"  # noqa: E501


def test_randperm_lists_its_overloads():
    forms = (f"int n, *, torch.Generator generator, {_SIZE}", f"int n, *, {_SIZE}")
    assert _message(lambda: mt.randperm(4, generator=0)) == _combination(
        "randperm", "int, generator=int", *forms
    )
    assert _message(lambda: mt.randperm(4, generator="a", dtype=mt.int32)) == _combination(
        "randperm", "int, dtype=torch.dtype, generator=str", *forms
    )
    assert mt.randperm(3, generator=mt.Generator().manual_seed(0)).tolist() == [2, 0, 1]


def test_random_lists_its_overloads_unless_given_both_bounds():
    t = mt.zeros(4)
    forms = (f"*, {_GEN}", f"int from, int to, *, {_GEN}", f"int to, *, {_GEN}")
    assert _message(lambda: t.random_(generator=0)) == _combination(
        "random_", "generator=int, ", *forms
    )
    why = "      didn't match because some of the keywords were incorrect: "
    want = _combination("random_", "int, generator=int", *forms).replace(
        f"(*, {_GEN})\n", f"(*, {_GEN})\n{why}generator\n", 1
    )
    assert _message(lambda: t.random_(3, generator=0)) == want
    want = _combination("random_", "generator=int, to=int, ", *forms).replace(
        f"(*, {_GEN})\n", f"(*, {_GEN})\n{why}generator, to\n", 1
    )
    assert _message(lambda: t.random_(to=3, generator=0)) == want
    assert _message(lambda: t.random_(0, 3, generator=0)) == (
        "random_(): argument 'generator' must be torch.Generator, not int"
    )


def test_bernoulli_generator_errors():
    t = mt.full((4,), 0.5)
    forms = (f"Tensor input, *, {_GEN}, Tensor out = None", f"Tensor input, float p, *, {_GEN}")
    assert _message(lambda: mt.bernoulli(t, generator=0)) == _combination(
        "bernoulli", "Tensor, generator=int", *forms
    )
    assert _message(lambda: mt.bernoulli(t, 0.3, generator=0)) == _combination(
        "bernoulli", "Tensor, float, generator=int", *forms
    )
    assert _message(lambda: mt.bernoulli(t, generator=0, out=mt.empty(4))) == _combination(
        "bernoulli", "Tensor, out=Tensor, generator=int", *forms
    )
    method = (f"*, {_GEN}", f"float p, *, {_GEN}")
    assert _message(lambda: t.bernoulli(generator=0)) == _combination(
        "bernoulli", "generator=int, ", *method
    )
    assert _message(lambda: t.bernoulli(0.3, generator=0)) == (
        "bernoulli(): argument 'generator' must be torch.Generator, not int"
    )
    inplace = (f"Tensor p, *, {_GEN}", f"float p = 0.5, *, {_GEN}")
    assert _message(lambda: t.clone().bernoulli_(0.3, generator=0)) == _combination(
        "bernoulli_", "float, generator=int", *inplace
    )
    assert _message(lambda: t.clone().bernoulli_(t, generator=0)) == _combination(
        "bernoulli_", "Tensor, generator=int", *inplace
    )


def test_randint_like_names_itself_and_lists_its_overloads():
    heads = ("int low, int high", "Tensor high", "int high")
    gens = ("torch.Generator generator, ", "")
    forms = [f"Tensor input, {h}, *, {g}{_LIKE}" for h in heads for g in gens]
    t = mt.zeros(3)
    assert _message(lambda: mt.randint_like(t, 3, generator=0)) == _combination(
        "randint_like", "Tensor, int, generator=int", *forms
    )
    assert _message(lambda: mt.randint_like(t, 1, 3, generator=0)) == _combination(
        "randint_like", "Tensor, int, int, generator=int", *forms
    )


def test_a_seed_as_dataloader_generator():
    # the DataLoader draws its base seed with random_(generator=...) first
    loader = mt.utils.data.DataLoader(range(3), shuffle=True, generator=5)
    assert _message(lambda: list(loader)) == _combination(
        "random_",
        "generator=int, ",
        f"*, {_GEN}",
        f"int from, int to, *, {_GEN}",
        f"int to, *, {_GEN}",
    )
