"""Session 35 (helper tpp): torch-free regression tests of the library fixes the temporal point
process programs of tests/reference/test_s35_tpp_reference.py found: torch's argument-parser
TypeErrors of searchsorted and bucketize for calls no overload takes (a missing tensor, an extra
positional argument, NumPy's keywords), and pad_sequence's argument checks in torch's order
(the parser's TypeErrors for batch_first, padding_value and padding_side, the empty list before
the padding side, the kernel's errors for 0-d sequences) with padding_value read as a double,
and pad_packed_sequence's parser TypeErrors for batch_first and padding_value;
the scans' (cumsum, cumprod, cummax, cummin, logcumsumexp) count of positional arguments and
their out= autograd check, named by the op and made before the kernel's dim and dtype checks.
torch's messages are written here as literals."""

from __future__ import annotations

import numpy as np
import pytest

import minitorch as mt

pad_sequence = mt.nn.utils.rnn.pad_sequence


def _message(exc_type, fn):
    with pytest.raises(exc_type) as info:
        fn()
    return str(info.value)


_SEARCHSORTED_FORMS = (
    " * (Tensor sorted_sequence, Tensor input, *, bool out_int32 = False, bool right = False, "
    "str side = None, Tensor sorter = None, Tensor out = None)\n"
    " * (Tensor sorted_sequence, Number self, *, bool out_int32 = False, bool right = False, "
    "str side = None, Tensor sorter = None, Tensor out = None)\n"
)
_BUCKETIZE_FORMS = (
    " * (Tensor input, Tensor boundaries, *, bool out_int32 = False, bool right = False, "
    "Tensor out = None)\n"
    " * (Number self, Tensor boundaries, *, bool out_int32 = False, bool right = False)\n"
)


def _no_overload(op, got, forms):
    return (
        f"{op}() received an invalid combination of arguments - got ({got}), but expected "
        f"one of:\n{forms}"
    )


SEQ = mt.tensor([1.0, 2.0, 4.0])
V = mt.tensor([1.5, 3.0])


@pytest.mark.parametrize(
    "call, got",
    [
        (lambda: mt.searchsorted(SEQ), "Tensor"),
        (lambda: mt.searchsorted(SEQ, v=V), "Tensor, v=Tensor"),
        (lambda: mt.searchsorted(SEQ, values=V), "Tensor, values=Tensor"),
        (lambda: mt.searchsorted(SEQ, V, "right"), "Tensor, Tensor, str"),
        (lambda: mt.searchsorted(SEQ, V, v=V), "Tensor, Tensor, v=Tensor"),
        (lambda: mt.searchsorted(SEQ, V, side="right", foo=1), "Tensor, Tensor, foo=int, side=str"),
        (lambda: mt.searchsorted(a=SEQ, v=V), "v=Tensor, a=Tensor, "),
    ],
)
def test_searchsorted_parser_errors(call, got):
    want = _no_overload("searchsorted", got, _SEARCHSORTED_FORMS)
    assert _message(TypeError, call) == want


@pytest.mark.parametrize(
    "call, got",
    [
        (lambda: mt.bucketize(V), "Tensor"),
        (lambda: mt.bucketize(V, bins=SEQ), "Tensor, bins=Tensor"),
    ],
)
def test_bucketize_parser_errors(call, got):
    assert _message(TypeError, call) == _no_overload("bucketize", got, _BUCKETIZE_FORMS)


def test_searchsorted_keywords_still_work():
    np.testing.assert_array_equal(mt.searchsorted(SEQ, input=V, right=True).numpy(), [1, 2])
    np.testing.assert_array_equal(mt.searchsorted(sorted_sequence=SEQ, input=V).numpy(), [1, 2])
    np.testing.assert_array_equal(mt.bucketize(input=V, boundaries=SEQ).numpy(), [1, 2])
    np.testing.assert_array_equal(mt.bucketize(2.0, SEQ, right=True).numpy(), 2)


A, B = mt.ones(2), mt.ones(3)


@pytest.mark.parametrize(
    "call, exc_type, want",
    [
        (
            lambda: pad_sequence([A, B], padding_value=None),
            TypeError,
            "pad_sequence(): argument 'padding_value' (position 3) must be float, not NoneType",
        ),
        (
            lambda: pad_sequence([A, B], True, "0"),
            TypeError,
            "pad_sequence(): argument 'padding_value' (position 3) must be float, not str",
        ),
        (
            lambda: pad_sequence([A, B], padding_value=mt.tensor([1.0])),
            TypeError,
            "pad_sequence(): argument 'padding_value' (position 3) must be float, not Tensor",
        ),
        (
            lambda: pad_sequence([A, B], batch_first=1),
            TypeError,
            "pad_sequence(): argument 'batch_first' (position 2) must be bool, not int",
        ),
        (
            lambda: pad_sequence([A, B], padding_side=None),
            TypeError,
            "pad_sequence(): argument 'padding_side' (position 4) must be str, not NoneType",
        ),
        (
            lambda: pad_sequence([], padding_side="up"),
            RuntimeError,
            "received an empty list of sequences",
        ),
        (
            lambda: pad_sequence([A, 1], padding_side="up"),
            TypeError,
            "expected Tensor as element 1 in argument 0, but got int",
        ),
        (
            lambda: pad_sequence([mt.tensor(1.0), A]),
            RuntimeError,
            "ArrayRef: invalid slice, N = 1; size = 0",
        ),
        (
            lambda: pad_sequence([A, mt.tensor(1.0)]),
            IndexError,
            "Dimension specified as 0 but tensor has no dimensions",
        ),
        (
            lambda: pad_sequence([A.to(mt.uint8), B.to(mt.uint8)], padding_value=-1),
            RuntimeError,
            "value cannot be converted to type uint8_t without overflow",
        ),
        (
            lambda: pad_sequence([A.long(), B.long()], padding_value=2**70),
            RuntimeError,
            "value cannot be converted to type int64_t without overflow",
        ),
    ],
)
def test_pad_sequence_argument_errors(call, exc_type, want):
    assert _message(exc_type, call) == want


def test_pad_sequence_padding_value_is_a_double():
    out = pad_sequence([A, B], padding_value=2**40)
    np.testing.assert_array_equal(out[2].numpy(), [2.0**40, 1.0])
    out = pad_sequence([A.long(), B.long()], batch_first=True, padding_value=-1.7)
    assert out.dtype is mt.int64
    np.testing.assert_array_equal(out.numpy(), [[1, 1, -1], [1, 1, 1]])
    out = pad_sequence([A, B], padding_value=True, padding_side="left", batch_first=True)
    np.testing.assert_array_equal(out.numpy(), [[1.0, 1.0, 1.0], [1.0, 1.0, 1.0]])
    out = pad_sequence([A, B], padding_value=mt.tensor(-2), batch_first=True)
    np.testing.assert_array_equal(out.numpy(), [[1.0, 1.0, -2.0], [1.0, 1.0, 1.0]])


X = mt.tensor([0.5, 2.0, 1.0])


@pytest.mark.parametrize(
    "call, want",
    [
        (
            lambda: mt.cumsum(X, 0, mt.float64),
            "cumsum() takes 2 positional arguments but 3 were given",
        ),
        (lambda: X.cumsum(0, mt.float64), "cumsum() takes 1 positional argument but 2 were given"),
        (
            lambda: mt.cumprod(X, 0, None, 2),
            "cumprod() takes 2 positional arguments but 4 were given",
        ),
        (
            lambda: X.cumprod(0, mt.float64),
            "cumprod() takes 1 positional argument but 2 were given",
        ),
        (lambda: mt.cummax(X, 0, True), "cummax() takes 2 positional arguments but 3 were given"),
        (lambda: X.cummin(0, 1), "cummin() takes 1 positional argument but 2 were given"),
        (
            lambda: mt.logcumsumexp(X, 0, 1),
            "logcumsumexp() takes 2 positional arguments but 3 were given",
        ),
        (
            lambda: X.logcumsumexp(0, 1),
            "logcumsumexp() takes 1 positional argument but 2 were given",
        ),
    ],
)
def test_scan_positional_count(call, want):
    assert _message(TypeError, call) == want


def _out_grad(op):
    return (
        f"{op}(): functions with out=... arguments don't support automatic differentiation, but "
        "one of the arguments requires grad."
    )


OUT_G = mt.empty(3, requires_grad=True)
XG = X.clone().requires_grad_(True)
F64 = mt.empty(3, dtype=mt.float64)
IDX = mt.empty(3, dtype=mt.int64)


@pytest.mark.parametrize(
    "op, call",
    [
        ("cumsum", lambda: mt.cumsum(X, 0, out=OUT_G)),
        ("cumsum", lambda: mt.cumsum(X, 5, out=OUT_G)),
        ("cumsum", lambda: mt.cumsum(XG, 5, out=mt.empty(3))),
        ("cumprod", lambda: mt.cumprod(X, 0, out=OUT_G)),
        ("cumprod", lambda: mt.cumprod(XG, 0, out=F64)),
        ("cumprod", lambda: mt.cumprod(XG, 0, out=mt.empty(3, dtype=mt.bool))),
        ("logcumsumexp", lambda: mt.logcumsumexp(X, 0, out=OUT_G)),
        ("logcumsumexp", lambda: mt.logcumsumexp(XG, 0, out=F64)),
        ("logcumsumexp", lambda: mt.logcumsumexp(X.long(), 0, out=OUT_G)),
        ("cummax", lambda: mt.cummax(X, 0, out=(OUT_G, IDX))),
        ("cummax", lambda: mt.cummax(X, 5, out=(OUT_G, IDX))),
        ("cummin", lambda: mt.cummin(XG, 0, out=(F64, IDX))),
    ],
)
def test_scan_out_autograd_check(op, call):
    assert _message(RuntimeError, call) == _out_grad(op)


def test_scan_out_without_grad_mode():
    with mt.no_grad():
        out = mt.empty(3)
        mt.cumsum(XG, 0, out=out)
        np.testing.assert_allclose(out.numpy(), [0.5, 2.5, 3.5])
        v, i = mt.cummax(XG, 0, out=(mt.empty(3), mt.empty(3, dtype=mt.int64)))
        np.testing.assert_array_equal(i.numpy(), [0, 1, 1])
    assert _message(TypeError, lambda: X.cumsum()) == (
        'cumsum() missing 1 required positional arguments: "dim"'
    )


def test_pad_packed_sequence_argument_errors():
    rnn = mt.nn.utils.rnn
    packed = rnn.pack_sequence([B, A])
    want = "_pad_packed_sequence(): argument 'padding_value' (position 4) must be Number, not "
    assert _message(TypeError, lambda: rnn.pad_packed_sequence(packed, padding_value=None)) == (
        want + "NoneType"
    )
    assert _message(TypeError, lambda: rnn.pad_packed_sequence(packed, True, "x")) == want + "str"
    assert _message(TypeError, lambda: rnn.pad_packed_sequence(packed, batch_first=1)) == (
        "_pad_packed_sequence(): argument 'batch_first' (position 3) must be bool, not int"
    )
    # total_length is checked first, by torch's Python function
    with pytest.raises(ValueError, match="total_length=2 and max sequence length being 3"):
        rnn.pad_packed_sequence(packed, 1, None, total_length=2)
    out, lengths = rnn.pad_packed_sequence(packed, True, -3)
    np.testing.assert_array_equal(out.numpy(), [[1.0, 1.0, 1.0], [1.0, 1.0, -3.0]])
    np.testing.assert_array_equal(lengths.numpy(), [3, 2])
