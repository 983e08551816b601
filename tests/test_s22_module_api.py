"""Fixes found by session 22's differential fuzzing of the nn.Module API and containers against
torch: Sequential's in-place `*=` (torch reads the copies by the keys '0'..'n-1', so a Sequential
holding another name raises KeyError part-way, keeping what it added) and the text of
Module.get_extra_state / set_extra_state's errors. Expected values were obtained from torch 2.13."""

from __future__ import annotations

import pytest

import minitorch as mt

nn = mt.nn


# --- Sequential *= : copies read by the keys '0'..'n-1', added as 'n', 'n+1', ... ---


def test_sequential_imul_named_entry_raises_keyerror_part_way():
    # torch: KeyError('3'), the modules already added stay
    s = nn.Sequential(nn.ReLU(), nn.Tanh(), nn.ReLU())
    s.add_module("c0", nn.Tanh())
    with pytest.raises(KeyError, match="'3'"):
        s *= 3
    assert list(s._modules) == ["0", "1", "2", "c0", "4", "5", "6"]
    assert [s._modules[k] is s._modules[j] for k, j in [("4", "0"), ("5", "1"), ("6", "2")]] == [
        True
    ] * 3


def test_sequential_imul_only_named_entry():
    # torch: KeyError('0'), nothing added
    s = nn.Sequential()
    s.add_module("c0", nn.Tanh())
    with pytest.raises(KeyError, match="'0'"):
        s *= 3
    assert list(s._modules) == ["c0"]


# --- get_extra_state / set_extra_state not overridden: torch's full message ---

_ISSUE = (
    " Please file an issue at https://github.com/pytorch/pytorch/issues/new?"
    "template=bug-report.yml to report this bug."
)


@pytest.mark.parametrize("which", ["get", "set"])
def test_extra_state_default_message(which):
    m = nn.Linear(1, 1)
    with pytest.raises(RuntimeError) as info:
        if which == "get":
            m.get_extra_state()
        else:
            m.set_extra_state(1)
    assert str(info.value) == (
        f"Reached a code path in Module.{which}_extra_state() that should never be called." + _ISSUE
    )


# --- Module.to: calls matching none of torch's three signatures raise its arg-parser error ---

_SIGS = (
    "\n * (torch.device device = None, torch.dtype dtype = None, bool non_blocking = False, "
    "bool copy = False, *, torch.memory_format memory_format = None)\n"
    " * (torch.dtype dtype, bool non_blocking = False, bool copy = False, *, "
    "torch.memory_format memory_format = None)\n"
    " * (Tensor tensor, bool non_blocking = False, bool copy = False, *, "
    "torch.memory_format memory_format = None)\n"
)


@pytest.mark.parametrize(
    "args, kwargs, got",
    [
        ((mt.ones(1), mt.float64), {}, "Tensor, torch.dtype"),
        ((mt.ones(1),), {"dtype": mt.float64}, "Tensor, dtype=torch.dtype"),
        ((mt.ones(1),), {"device": "cpu"}, "Tensor, device=str"),
        ((mt.ones(1), mt.float64, True), {}, "Tensor, torch.dtype, bool"),
        ((), {"foo": 1}, "foo=int, "),
        ((), {"foo": 1, "bar": 2, "baz": 3}, "baz=int, bar=int, foo=int, "),
        (("cpu",), {"foo": 1, "bar": 2}, "str, bar=int, foo=int"),
        ((), {"device": "cpu", "foo": 1.5}, "foo=float, device=str, "),
        ((), {"tensor": mt.ones(1), "foo": 1}, "foo=int, tensor=Tensor, "),
        (
            (mt.ones(1),),
            {"memory_format": mt.channels_last, "foo": 1},
            "Tensor, foo=int, memory_format=torch.memory_format",
        ),
    ],
)
def test_module_to_invalid_combination(args, kwargs, got):
    _refused_as_invalid_combination(args, kwargs, got)


def _refused_as_invalid_combination(args, kwargs, got):
    m = nn.Linear(2, 2)
    with pytest.raises(TypeError) as info:
        m.to(*args, **kwargs)
    assert str(info.value) == (
        f"to() received an invalid combination of arguments - got ({got}), but expected one of:"
        + _SIGS
    )
    assert m.weight.dtype == mt.float32  # nothing converted


def test_module_to_too_many_positional():
    with pytest.raises(TypeError) as info:
        nn.Linear(2, 2).to("cpu", mt.float64, True, False, 3)
    assert str(info.value) == "to() takes from 0 to 4 positional arguments but 5 were given"


@pytest.mark.parametrize(
    "args, kwargs, got",
    [
        # minitorch used to accept these silently
        ((), {"memory_format": True}, "memory_format=bool, "),
        ((), {"memory_format": mt.float16}, "memory_format=torch.dtype, "),
        ((float,), {"dtype": None}, "type, dtype=NoneType"),
        ((mt.ones(1),), {"non_blocking": None}, "Tensor, non_blocking=NoneType"),
        ((), {"non_blocking": 1.5}, "non_blocking=float, "),
        # copy= of the wrong type is a parse error before torch's "does not accept copy"
        ((), {"copy": mt.float16}, "copy=torch.dtype, "),
        ((mt.ones(1),), {"copy": 1.5}, "Tensor, copy=float"),
        ((), {"device": mt.ones(1)}, "device=Tensor, "),
        ((), {"dtype": mt.contiguous_format}, "dtype=torch.memory_format, "),
    ],
)
def test_module_to_wrong_types_refused(args, kwargs, got):
    _refused_as_invalid_combination(args, kwargs, got)


@pytest.mark.parametrize(
    "args, kwargs, msg",
    [
        # five arguments in all: only the first signature can take them, so its own error
        (
            (False, mt.channels_last, mt.float16, None),
            {"non_blocking": int},
            "argument 'device' (position 1) must be torch.device, not bool",
        ),
        (
            ("x", 1.5, None),
            {"dtype": 0, "foo": True},
            "argument 'dtype' (position 2) must be torch.dtype, not float",
        ),
        (
            (mt.device("cpu"), float, "x", mt.float64),
            {"tensor": float},
            "argument 'non_blocking' (position 3) must be bool, not str",
        ),
        (
            (None, None, None, None),
            {"memory_format": 1},
            "argument 'non_blocking' (position 3) must be bool, not NoneType",
        ),
        (
            (0, None, False),
            {"device": mt.float64, "dtype": 1},
            "got multiple values for argument 'device'",
        ),
    ],
)
def test_module_to_single_signature_errors(args, kwargs, msg):
    with pytest.raises(TypeError) as info:
        nn.Linear(2, 2).to(*args, **kwargs)
    assert str(info.value) == "to()" + ("" if msg.startswith("got") else ":") + " " + msg


def test_module_to_keywords_explained():
    # four positional arguments: the first signature is the only one with room, and torch lists
    # every keyword under it
    with pytest.raises(TypeError) as info:
        nn.Linear(2, 2).to("cpu", False, int, mt.channels_last, memory_format=True, foo=int)
    lines = str(info.value).split("\n")
    assert lines[0].endswith(
        "got (str, bool, type, torch.memory_format, foo=type, memory_format=bool)"
        ", but expected one of:"
    )
    assert (
        lines[2]
        == "      didn't match because some of the keywords were incorrect: foo, memory_format"
    )
    assert len(lines) == 6
