"""Session 38 (helper printopts): torch-free regression tests of the library fixes the printing
programs of tests/reference/test_s38_printopts_reference.py found: the summary of a large
non-contiguous (expanded) tensor gathers only the printed elements, PRINT_OPTS prints under
torch's class name, and an infinite linewidth raises torch's OverflowError. torch's texts are
written here as literals."""

from __future__ import annotations

import pytest

import minitorch as mt

ROWS = "[1., 1., 1.,  ..., 1., 1., 1.]"


def test_repr_of_huge_expanded_tensor_prints_its_edges():
    # it raised NumPy's "Unable to allocate 3.64 TiB" MemoryError (the whole expand was copied)
    x = mt.ones(1, 1).expand(10**6, 10**6)
    body = (",\n" + " " * 8).join([ROWS] * 3 + ["..."] + [ROWS] * 3)
    assert repr(x) == "tensor([" + body + "])"


def test_repr_of_expanded_3d_tensor_keeps_its_edges_in_order():
    x = mt.arange(3, dtype=mt.float64).view(3, 1, 1).expand(3, 10**6, 10**7)
    text = repr(x)
    assert text.startswith("tensor([[[0., 0., 0.,  ..., 0., 0., 0.],\n")
    assert "[[1., 1., 1.,  ..., 1., 1., 1.]," in text
    assert text.endswith("[2., 2., 2.,  ..., 2., 2., 2.]]], dtype=torch.float64)")


def test_summary_of_a_transposed_tensor_matches_its_copy():
    g = mt.Generator().manual_seed(0)
    x = mt.randn(60, 50, generator=g).t()[::2, 1::3]
    assert repr(x) == repr(x.contiguous())
    with mt._tensor_str.printoptions(threshold=10, edgeitems=2):
        assert repr(x) == repr(x.contiguous())
        assert repr(x).count("...") == 5  # one in each of 4 rows, and the rows


def test_print_opts_repr_is_torchs():
    want = "__PrinterOptions(precision=4, threshold=1000, edgeitems=3, linewidth=80, sci_mode=None)"
    assert repr(mt._tensor_str.PRINT_OPTS) == want


def test_infinite_linewidth_raises_torchs_overflow_error():
    # NumPy takes linewidth=inf; torch's printer floors a true division and overflows
    with mt._tensor_str.printoptions(linewidth=float("inf")):
        with pytest.raises(OverflowError, match="^cannot convert float infinity to integer$"):
            repr(mt.arange(5.0))
        assert repr(mt.tensor(5.0)) == "tensor(5.)"  # a 0-d tensor has no rows to lay out
    with mt._tensor_str.printoptions(linewidth=30.5):
        assert repr(mt.arange(8.0)) == "tensor([0., 1., 2., 3., 4.,\n        5., 6., 7.])"
