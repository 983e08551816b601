"""Argument errors name a position only for an argument passed by position, as torch's parser
(NOTE [ Keyword arguments in argument errors ]); the messages are torch 2.13's."""

from __future__ import annotations

import pytest

import minitorch
import minitorch.nn.functional as F
from minitorch._call_site import _call_keywords


def _message(fn):
    with pytest.raises(TypeError) as info:
        fn()
    return str(info.value)


T = minitorch.ones(2)

CASES = [
    (lambda: minitorch.add(T, other="a"), "add(): argument 'other' must be Tensor, not str"),
    (lambda: minitorch.add(T, "a"), "add(): argument 'other' (position 2) must be Tensor, not str"),
    (lambda: T.add(other="a"), "add(): argument 'other' must be Tensor, not str"),
    (lambda: T.add("a"), "add(): argument 'other' (position 1) must be Tensor, not str"),
    (lambda: T.clone().sub_(other="a"), "sub_(): argument 'other' must be Tensor, not str"),
    (
        lambda: T.clone().addcmul_(tensor1="a", tensor2=T),
        "addcmul_(): argument 'tensor1' must be Tensor, not str",
    ),
    (lambda: minitorch.exp(input=3), "exp(): argument 'input' must be Tensor, not int"),
    (lambda: minitorch.exp(3), "exp(): argument 'input' (position 1) must be Tensor, not int"),
    (lambda: minitorch.topk(T, k="a"), "topk(): argument 'k' must be int, not str"),
    (lambda: minitorch.topk(T, "a"), "topk(): argument 'k' (position 2) must be int, not str"),
    (lambda: F.linear(T, weight="a"), "linear(): argument 'weight' must be Tensor, not str"),
    (
        lambda: minitorch.add(minitorch.mul(T, 2), other="a"),
        "add(): argument 'other' must be Tensor, not str",
    ),
    (
        # torch.norm is Python calling linalg_vector_norm positionally
        lambda: minitorch.norm(T, dim="a"),
        "linalg_vector_norm(): argument 'dim' (position 3) must be tuple of ints, not str",
    ),
    (
        # torch's F.cross_entropy is Python calling its parsed cross_entropy_loss positionally
        lambda: F.cross_entropy(T[None], minitorch.tensor([0]), weight=[1.0, 2.0]),
        "cross_entropy_loss(): argument 'weight' (position 3) must be Tensor, not list",
    ),
]


@pytest.mark.parametrize("i", range(len(CASES)))
def test_keyword_arguments_have_no_position(i):
    fn, want = CASES[i]
    assert _message(fn) == want


def test_call_keywords_reads_the_executing_call():
    import sys

    def probe(*args, **kwargs):
        return _call_keywords(sys._getframe(1))

    assert probe(1, 2) == ()
    assert probe(1, b=2, c=3) == ("b", "c")
    literal = probe(*[1], **{"b": 2})  # (outside an assert, which pytest rewrites)
    assert literal is None  # through ** of an expression it cannot be told
    kw = {"b": 2, "c": 3}
    mapped = probe(*[1], **kw)
    assert mapped == ("b", "c")  # through ** of a local mapping: its keys


def test_keywords_are_listed_in_torchs_order():
    # torch's parser lists keywords in the reverse of the call's order, except a dtype that is
    # not the first keyword, which comes first
    def got(call):
        with pytest.raises(TypeError) as info:
            call()
        return str(info.value).split(", but")[0].split("got ")[1]

    f64 = minitorch.float64
    assert got(lambda: minitorch.logspace(0, 1, base=2.0, dtype=f64, requires_grad=True)) == (
        "(int, int, dtype=torch.dtype, requires_grad=bool, base=float)"
    )
    assert got(lambda: minitorch.logspace(0, 1, dtype=f64, requires_grad=True, base=2.0)) == (
        "(int, int, base=float, requires_grad=bool, dtype=torch.dtype)"
    )
    assert got(lambda: minitorch.logspace(0, 1, requires_grad=True, dtype=f64, base=2.0)) == (
        "(int, int, dtype=torch.dtype, base=float, requires_grad=bool)"
    )
    assert (
        got(lambda: minitorch.linspace(start="a", end=1, steps=5))
        == "(steps=int, end=int, start=str, )"
    )
