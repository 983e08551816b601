"""Old-style PyTorch code (session 25, "legacy"): warnings torch gives once per process
(TORCH_WARN_ONCE) and the deprecated number-first overloads' single warning. Expected texts and
counts were obtained by running torch 2.13."""

from __future__ import annotations

import warnings

import pytest

import minitorch as torch
from minitorch import _settings


def _messages(fn, times=3):
    """The warning messages of `times` calls, each call's list (seen with the 'always' filter)."""
    out = []
    for _ in range(times):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            fn()
        out.append([(w.category, str(w.message)) for w in caught])
    return out


_EYE = torch.eye(3)
_U8 = torch.tensor([1, 0, 1], dtype=torch.uint8)

_WARN_ONCE_CASES = [
    (
        lambda: torch.meshgrid(torch.arange(2), torch.arange(3)),
        "torch.meshgrid: in an upcoming release, it will be required to pass the indexing "
        "argument.",
    ),
    (
        lambda: torch.cross(_EYE, _EYE),
        "Using torch.cross without specifying the dim arg is deprecated.\nPlease either pass the "
        "dim explicitly or simply use torch.linalg.cross.\nThe default value of dim will change "
        "to agree with that of linalg.cross in a future release.",
    ),
    (
        lambda: torch.chain_matmul(_EYE, _EYE),
        "torch.chain_matmul is deprecated and will be removed in a future PyTorch release. Use "
        "torch.linalg.multi_dot instead, which accepts a list of two or more tensors rather than "
        "multiple parameters.",
    ),
    (
        lambda: torch.where(_U8, _EYE[0], _EYE[1]),
        "where received a uint8 condition tensor. This behavior is deprecated and will be "
        "removed in a future version of PyTorch. Use a boolean condition instead.",
    ),
    (
        lambda: torch.tensor(1.0).T,
        "Tensor.T is deprecated on 0-D tensors. This function is the identity in these cases.",
    ),
    (
        lambda: torch.ones(2, 2, 2).T,
        "The use of `x.T` on tensors of dimension other than 2 to reverse their shape is "
        "deprecated and it will throw an error in a future release. Consider `x.mT` to transpose "
        "batches of matrices or `x.permute(*torch.arange(x.ndim - 1, -1, -1))` to reverse the "
        "dimensions of a tensor.",
    ),
    (
        lambda: torch.tensor(1.0).mT,
        "Tensor.mT is deprecated on 0-D tensors. This function is the identity in these cases.",
    ),
    (
        lambda: torch.tensor(1.0).mH,
        "Tensor.mH is deprecated on 0-D tensors. Consider using x.conj().",
    ),
    (
        lambda: torch.tensor(1.0).H,
        "Tensor.H is deprecated on 0-D tensors. Consider using x.conj().",
    ),
    (
        lambda: torch.adjoint(torch.tensor(1.0)),
        "adjoint() is deprecated on 0-D tensors. Consider using x.conj().",
    ),
]


@pytest.mark.parametrize("fn, message", _WARN_ONCE_CASES)
def test_torch_warn_once_warnings_come_once_per_process(fresh_once, monkeypatch, fn, message):
    # torch 2.13 in a fresh process, 3 calls: [[(UserWarning, message)], [], []]
    assert _messages(fn) == [[(UserWarning, message)], [], []]
    monkeypatch.setitem(_settings._state, "warn_always", True)  # torch.set_warn_always(True)
    assert _messages(fn, 2) == [[(UserWarning, message)]] * 2


def test_the_once_warning_points_at_the_users_line(fresh_once):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        torch.meshgrid(torch.arange(2), torch.arange(2))
    assert caught[0].filename == __file__


def test_uint8_indexing_still_warns_every_time():
    # torch: TORCH_WARN (not once) for indexing with a byte mask
    x = torch.arange(3.0)
    texts = _messages(lambda: x[_U8], 2)
    assert [len(t) for t in texts] == [1, 1]
    assert texts[0][0][1].startswith("indexing with dtype torch.uint8 is now deprecated")


_ADDCMUL_FUNCTION = (
    "This overload of addcmul is deprecated:\n\taddcmul(Tensor input, Number value, Tensor "
    "tensor1, Tensor tensor2, *, Tensor out = None)\nConsider using one of the following "
    "signatures instead:\n\taddcmul(Tensor input, Tensor tensor1, Tensor tensor2, *, Number "
    "value = 1, Tensor out = None)"
)


def test_deprecated_overloads_warn_once_for_all_of_them(fresh_once):
    # torch: one flag for every deprecated signature; the first one used is named
    p, g = torch.ones(3), torch.full((3,), 0.5)
    q = p.clone()
    texts = _messages(lambda: q.add_(-0.1, g), 1)
    assert texts == [
        [
            (
                UserWarning,
                "This overload of add_ is deprecated:\n\tadd_(Number alpha, Tensor other)\n"
                "Consider using one of the following signatures instead:\n\tadd_(Tensor other, "
                "*, Number alpha = 1)",
            )
        ]
    ]
    later = [
        lambda: q.add_(-0.1, g),
        lambda: q.addcmul_(0.5, g, g),
        lambda: q.addcdiv_(-0.1, g, g),
        lambda: torch.addmm(0.5, torch.eye(2), 2.0, torch.eye(2), torch.eye(2)),
        lambda: torch.addcmul(p, 0.5, g, g),
        lambda: p.sub(2, g),
    ]
    for fn in later:
        assert _messages(fn, 1) == [[]]
    assert q.tolist() == pytest.approx([0.925] * 3)  # 1 - .05 - .05 + .125 - .1


def test_deprecated_function_overload_names_the_functions_signature(fresh_once):
    p = torch.ones(3)
    texts = _messages(lambda: torch.addcmul(p, 2, p, p), 1)
    assert texts == [[(UserWarning, _ADDCMUL_FUNCTION)]]
