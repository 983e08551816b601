"""Session 32 (helper ocr): torch-free regression tests of the library fix the OCR programs of
tests/reference/test_s32_ocr_reference.py found: ctc_loss's message for an empty log_probs is
torch's (torch 2.13's text written here as a literal)."""

from __future__ import annotations

import pytest

import minitorch as mt
import minitorch.nn.functional as F

EMPTY = "log_probs tensor must not be empty"


@pytest.mark.parametrize("shape", [(0, 2, 4), (5, 0, 4), (5, 2, 0)])
def test_ctc_loss_names_an_empty_log_probs_as_torch_does(shape):
    T, N, _ = shape
    log_probs = mt.zeros(shape)
    targets = mt.ones(N, 1, dtype=mt.long)
    with pytest.raises(RuntimeError) as info:
        F.ctc_loss(log_probs, targets, mt.full((N,), T), mt.ones(N, dtype=mt.long))
    assert str(info.value) == EMPTY


def test_ctc_loss_module_and_tuple_lengths_give_the_same_message():
    with pytest.raises(RuntimeError) as info:
        mt.nn.CTCLoss()(mt.zeros(0, 2, 4), mt.ones(2, 1, dtype=mt.long), (0, 0), (1, 1))
    assert str(info.value) == EMPTY
