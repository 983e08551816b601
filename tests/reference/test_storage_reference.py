"""Storages against torch: sizes, shared pointers, reprs, set_ results and errors."""

from __future__ import annotations

import warnings

import pytest

import minitorch as mt

torch = pytest.importorskip("torch")


def _probe(lib):
    out = []
    x = lib.arange(6.0).reshape(2, 3)
    v = x[:, 1:]
    u = v.untyped_storage()
    out.append((type(u).__name__, u.nbytes(), len(u), u.data_ptr() == x.data_ptr()))
    out.append(repr(lib.arange(3, dtype=lib.uint8).untyped_storage()))
    with warnings.catch_warnings():  # the deprecation warning comes once per process
        warnings.simplefilter("ignore")
        s = v.storage()
        out.append((type(s).__name__, s.size(), str(s.dtype), s[4], s.tolist()))
        out.append(repr(lib.arange(3.0).storage()))
    y = lib.empty(0).set_(x)
    z = lib.empty(0).set_(x.untyped_storage(), 2, (2, 2), (1, 2))
    out.append((y.tolist(), y.is_set_to(x), v.is_set_to(x), z.tolist()))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            lib.empty(0, dtype=lib.int64).set_(x.storage())
        except RuntimeError as e:
            out.append(str(e))
    return out


def test_storages_match_torch():
    assert _probe(mt) == _probe(torch)
