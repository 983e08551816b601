"""Session 48 (helper hostA): the helpers of tests/reference/_host.py that let the reference
tests accept the slow kernels' variant of a oneDNN convolution message where this host's torch
runs a half dtype slowly, and compare exactly where it runs it on oneDNN."""

from __future__ import annotations

import pytest

import minitorch

torch = pytest.importorskip("torch")

from tests.reference._host import (  # noqa: E402 - torch first: _host needs it
    TYPE_NAMES,
    as_onednn_records,
    onednn_refusal,
    refused_dtype,
    slow_here,
    slow_variant,
)


def test_slow_variants_pair_only_their_messages():
    refusal = onednn_refusal("bfloat16", "weight", "float64")
    assert slow_variant(refusal, "expected scalar type BFloat16 but found Double")
    assert not slow_variant(refusal, "expected scalar type BFloat16 but found Float")
    assert not slow_variant(refusal, "expected scalar type Half but found Double")
    bias = onednn_refusal("float16", "bias", "float32")
    assert slow_variant(bias, "expected scalar type Half but found Float")
    dil = "non-positive dilation is not supported"
    assert slow_variant(dil, "dilation should be greater than zero, but got [0, 0, 0]")
    assert not slow_variant(dil, "negative padding is not supported")
    assert not slow_variant("expected scalar type Half but found Float", bias)
    assert refused_dtype(bias) == "float16" and refused_dtype(dil) is None


@pytest.mark.parametrize("dt", ["bfloat16", "float16"])
def test_probe_reads_torchs_kernel(dt):
    """The probe agrees with torch's message for another call (a 1-d convolution, a float64
    weight); minitorch's is oneDNN's on every host."""
    msgs = []
    for lib in (torch, minitorch):
        x = lib.ones(2, 3, 5, dtype=getattr(lib, dt))
        with pytest.raises(RuntimeError) as e:
            lib.nn.functional.conv1d(x, lib.ones(1, 3, 2, dtype=lib.float64))
        msgs.append(str(e.value))
    assert msgs[1] == onednn_refusal(dt, "weight", "float64")
    if slow_here(dt):
        assert msgs[0] == f"expected scalar type {TYPE_NAMES[dt][1]} but found Double"
    else:
        assert msgs[0] == msgs[1]


def test_as_onednn_records_reads_only_slow_variants():
    bias = "RuntimeError: " + onednn_refusal("float16", "bias", "float32")
    weight = "RuntimeError: " + onednn_refusal("bfloat16", "weight", "float32")
    got = [("a", bias), ("b", weight), ("c", weight), ("d", "no error")]
    want = [
        ("a", "no error"),
        ("b", "RuntimeError: expected scalar type BFloat16 but found Float"),
        ("c", "RuntimeError: negative padding is not supported"),
        ("d", "no error"),
    ]
    read = as_onednn_records(want, got)
    assert read[0][1] == (bias if slow_here("float16") else "no error")
    assert read[1][1] == (weight if slow_here("bfloat16") else want[1][1])
    assert read[2:] == want[2:]
