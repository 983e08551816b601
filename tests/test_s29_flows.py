"""Session 29 (helper flows): torch-free regression tests of the library fixes the normalizing-flow
programs in tests/reference/test_s29_flows_reference.py found. The expected values and messages
are torch 2.13's, written as literals."""

from __future__ import annotations

import pytest

import minitorch as mt

D = mt.distributions
C = D.constraints


def test_cat_transform_lengths_mismatch_message():
    with pytest.raises(AssertionError, match=r"^lengths \(2\) must match transforms \(1\)$"):
        D.CatTransform([D.ExpTransform()], dim=0, lengths=[2, 3])


def test_cat_constraint_lengths_mismatch_message():
    with pytest.raises(AssertionError, match=r"^lengths \(2\) must match cseq \(1\)$"):
        C.cat([C.real], lengths=[1, 2])
