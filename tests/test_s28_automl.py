"""Session 28 (helper automl): library fixes found by running AutoML / NAS / training-loop
programs (DARTS, Gumbel-softmax sampling, lazy supernets, schedulers, SWA) against torch 2.13;
the values below are torch's."""

from __future__ import annotations

import warnings

import pytest

import minitorch as mt
import minitorch.nn.functional as F


def test_gumbel_softmax_warns_on_eps():
    # torch warns whenever eps is not its old default, and ignores the value
    x = mt.zeros(2, 3)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        F.gumbel_softmax(x, eps=1e-5, hard=True)
        F.gumbel_softmax(x, eps=1e-10)
        F.gumbel_softmax(x)
    msgs = [(w.category, str(w.message)) for w in caught]
    assert msgs == [(UserWarning, "`eps` parameter is deprecated and has no effect.")]
    assert caught[0].filename == __file__  # points at the caller, as torch's does


def test_uninitialized_parameter_names_the_method_as_torch():
    p = mt.nn.LazyLinear(3).weight
    head = "Attempted to use an uninitialized parameter in "
    for fn, name in ((p.numel, "numel"), (lambda: p + 1, "add"), (lambda: -p, "neg")):
        with pytest.raises(ValueError) as e:
            fn()
        msg = str(e.value)
        # torch: "... in <method 'numel' of 'torch._C.TensorBase' objects>. This error ..."
        assert msg.startswith(f"{head}<method '{name}' of 'minitorch._C.TensorBase' objects>. ")
