"""Session 47 (helper attrs): the grad_fn._saved_* attributes of shape, pointwise, special and
pooling nodes, run under torch and minitorch and compared name by name: the names dir() lists,
each value and its Python type (ints, tuples of ints, bools, floats, None), a saved tensor as the
call's tensor it is or, for a result, its values.

- Dims as the call gave them, a negative one read back unsigned (-1: 2**64 - 1):
  UnsqueezeBackward0, TransposeBackward0 (transpose, swapaxes, mT, adjoint), PermuteBackward0,
  FlipBackward0, RollBackward0, UnfoldBackward0, DiagonalBackward0 (with _saved_offset and
  _saved_self_sym_sizes, also DiagonalBackward0_copy of diag), Rot90Backward0 (_saved_k,
  _saved_dims), TrilBackward0 / TriuBackward0 (_saved_diagonal), AsStridedBackward0 of an
  explicit as_strided (_saved_size, _saved_stride, _saved_storage_offset: None when not given),
  TraceBackward0 (_saved_self_sym_sizes).
- Pointwise: _saved_self of the log, inverse-trigonometric and hyperbolic nodes, erf, erfc,
  lgamma, digamma, i0, sinc, polygamma (_saved_n), logit (_saved_eps), mvlgamma (_saved_p),
  xlogy (its number forms: the number as given), igamma / igammac, fmod, logaddexp(2);
  _saved_result of exp2, expm1, tan, rsqrt, reciprocal; lerp (_saved_weight: the number, or
  self / end / weight), addcmul / addcdiv (_saved_tensor1, _saved_tensor2, _saved_value).
- AvgPool2DBackward0 / AvgPool3DBackward0 and their create_graph nodes (kernel_size, stride:
  () when not given, padding, ceil_mode, count_include_pad, divisor_override, self),
  AdaptiveAvgPool2DBackward0 / 3D (_saved_self), MaxUnpool2DBackward0 / 3D (_saved_indices).

Found and fixed: every item above showed no _saved_* attribute, or a wrapped dim where torch
shows the dim as given.
"""

from __future__ import annotations

import numpy as np
import pytest

import minitorch

torch = pytest.importorskip("torch")


def _summary(v, named):
    """A value as (type, value); a tensor as which of the call's tensors it is, else its values."""
    if isinstance(v, (torch.Tensor, minitorch.Tensor)):
        for label, t in named.items():
            if v is t:
                return ("Tensor", label)
        return ("Tensor", tuple(v.shape), str(v.dtype).split(".")[-1], v.detach().tolist())
    if isinstance(v, tuple):
        return ("tuple", tuple(_summary(e, named) for e in v))
    return (type(v).__name__, v)


def _saved(out, named) -> tuple:
    """(node name, sorted (attribute, summary) pairs) of out's grad_fn."""
    fn = out.grad_fn
    names = sorted(a for a in dir(fn) if a.startswith("_saved_"))
    return fn.name(), [(a, _summary(getattr(fn, a), named)) for a in names]


def _assert_same(got, want):
    """Equal summaries; a result's values (computed by each library's kernel) to 1e-12."""
    assert got[0] == want[0]
    assert [a for a, _ in got[1]] == [a for a, _ in want[1]]
    for (a, g), (_, w) in zip(got[1], want[1], strict=True):
        if g[0] == "Tensor" and len(g) == 4 and len(w) == 4:
            assert g[1:3] == w[1:3], a
            np.testing.assert_allclose(g[3], w[3], rtol=1e-12, atol=0, err_msg=a)
        else:
            assert g == w, a


_INPUTS: dict = {}


def _inputs(lib, fresh=False):
    """The named tensors of a library, made once (no case changes them) unless fresh."""
    if not fresh and lib.__name__ in _INPUTS:
        return _INPUTS[lib.__name__]
    g = np.random.default_rng(47)

    def t(*shape, lo=-1.0, hi=1.0):
        return lib.tensor(g.uniform(lo, hi, shape), dtype=lib.float64, requires_grad=True)

    named = {
        "x": t(4, 5, 6),
        "m": t(3, 4),
        "p": t(3, 4, lo=0.1, hi=0.9),
        "q": t(3, 4, lo=1.1, hi=2.0),
        "img": t(2, 3, 8, 8),
        "img1": t(2, 3, 10),
        "vol": t(1, 2, 6, 6, 6),
    }
    if not fresh:
        _INPUTS[lib.__name__] = named
    return named


def _unpool(n, lib, dims):
    F = lib.nn.functional
    if dims == 1:
        return F.max_unpool1d(*F.max_pool1d(n["img1"], 2, return_indices=True), 2)
    if dims == 2:
        return F.max_unpool2d(*F.max_pool2d(n["img"], 2, return_indices=True), 2)
    return F.max_unpool3d(*F.max_pool3d(n["vol"], 2, return_indices=True), 2)


def _double(lib, pool, inp):
    """The create_graph node of pool's backward."""
    y = pool(inp)
    (g,) = lib.autograd.grad((y * y).sum(), [inp], create_graph=True)
    return g


def _F(lib):
    return lib.nn.functional


# (name, call on the named tensors and the library)
CASES = [
    ("unsqueeze", lambda n, lib: n["x"].unsqueeze(1)),
    ("unsqueeze negative", lambda n, lib: n["x"].unsqueeze(-1)),
    ("unsqueeze numpy int", lambda n, lib: n["x"].unsqueeze(np.int64(-2))),
    ("transpose negative", lambda n, lib: n["x"].transpose(0, -1)),
    ("transpose both negative", lambda n, lib: n["x"].transpose(-2, -1)),
    ("torch.transpose", lambda n, lib: lib.transpose(n["x"], -3, 1)),
    ("swapaxes", lambda n, lib: n["x"].swapaxes(0, -1)),
    ("torch.swapaxes", lambda n, lib: lib.swapaxes(n["x"], -1, 0)),
    ("mT", lambda n, lib: n["x"].mT),
    ("adjoint", lambda n, lib: n["m"].adjoint()),
    ("permute negative", lambda n, lib: n["x"].permute(-1, 0, 1)),
    ("permute", lambda n, lib: n["x"].permute(2, 0, 1)),
    ("movedim", lambda n, lib: n["x"].movedim(0, -1)),
    ("diagonal", lambda n, lib: n["x"].diagonal(0, 1, 2)),
    ("diagonal negative", lambda n, lib: n["x"].diagonal(-1, -1, 0)),
    ("diagonal default", lambda n, lib: n["m"].diagonal()),
    ("diag", lambda n, lib: lib.diag(n["m"], 1)),
    ("tril", lambda n, lib: n["x"].tril()),
    ("tril negative", lambda n, lib: n["x"].tril(-1)),
    ("triu", lambda n, lib: n["m"].triu(2)),
    ("as_strided", lambda n, lib: n["x"].as_strided((2, 2), (1, 2))),
    ("as_strided offset", lambda n, lib: n["x"].as_strided((2, 3), (3, 1), 4)),
    ("unfold", lambda n, lib: n["x"].unfold(1, 2, 1)),
    ("unfold negative", lambda n, lib: n["x"].unfold(-1, 2, 2)),
    ("flip", lambda n, lib: n["x"].flip(-1, 0)),
    ("fliplr", lambda n, lib: n["m"].fliplr()),
    ("roll", lambda n, lib: n["x"].roll(-1, -1)),
    ("roll two dims", lambda n, lib: n["x"].roll((1, 2), (0, -1))),
    ("roll flat", lambda n, lib: n["x"].roll(2)),
    ("rot90", lambda n, lib: n["m"].rot90()),
    ("rot90 k and dims", lambda n, lib: n["m"].rot90(2, [1, 0])),
    ("rot90 negative", lambda n, lib: n["x"].rot90(-1, [-1, 0])),
    ("rot90 k past 4", lambda n, lib: n["m"].rot90(5)),
    ("trace", lambda n, lib: n["m"].trace()),
    ("log2", lambda n, lib: n["p"].log2()),
    ("log10", lambda n, lib: n["p"].log10()),
    ("log1p", lambda n, lib: n["p"].log1p()),
    ("exp2", lambda n, lib: n["m"].exp2()),
    ("expm1", lambda n, lib: n["m"].expm1()),
    ("rsqrt", lambda n, lib: n["p"].rsqrt()),
    ("reciprocal", lambda n, lib: n["p"].reciprocal()),
    ("tan", lambda n, lib: n["m"].tan()),
    ("asin", lambda n, lib: n["p"].asin()),
    ("acos", lambda n, lib: n["p"].acos()),
    ("atan", lambda n, lib: n["m"].atan()),
    ("sinh", lambda n, lib: n["m"].sinh()),
    ("cosh", lambda n, lib: n["m"].cosh()),
    ("asinh", lambda n, lib: n["m"].asinh()),
    ("acosh", lambda n, lib: n["q"].acosh()),
    ("atanh", lambda n, lib: n["p"].atanh()),
    ("asinh_", lambda n, lib: (n["m"] * 1).asinh_()),
    ("erf", lambda n, lib: n["m"].erf()),
    ("erfc", lambda n, lib: n["m"].erfc()),
    ("lgamma", lambda n, lib: n["q"].lgamma()),
    ("digamma", lambda n, lib: n["q"].digamma()),
    ("polygamma", lambda n, lib: lib.polygamma(2, n["q"])),
    ("i0", lambda n, lib: n["m"].i0()),
    ("sinc", lambda n, lib: n["m"].sinc()),
    ("logit", lambda n, lib: n["p"].logit()),
    ("logit eps", lambda n, lib: n["p"].logit(eps=0.2)),
    ("mvlgamma", lambda n, lib: lib.mvlgamma(n["q"], 2)),
    ("xlogy", lambda n, lib: lib.xlogy(n["m"], n["p"])),
    ("xlogy number self", lambda n, lib: lib.xlogy(2.5, n["p"])),
    ("xlogy int self", lambda n, lib: lib.xlogy(2, n["p"])),
    ("xlogy number other", lambda n, lib: lib.xlogy(n["m"], 3)),
    ("igamma", lambda n, lib: lib.igamma(n["q"], n["p"])),
    ("igammac", lambda n, lib: lib.igammac(n["q"], n["p"])),
    ("fmod", lambda n, lib: lib.fmod(n["m"], n["q"])),
    ("logaddexp", lambda n, lib: lib.logaddexp(n["m"], n["p"])),
    ("logaddexp2", lambda n, lib: lib.logaddexp2(n["m"], n["p"])),
    ("lerp number", lambda n, lib: lib.lerp(n["m"], n["p"], 0.3)),
    ("lerp int", lambda n, lib: lib.lerp(n["m"], n["p"], 1)),
    ("lerp tensor", lambda n, lib: lib.lerp(n["m"], n["p"], n["q"])),
    ("lerp constant weight", lambda n, lib: lib.lerp(n["m"], n["p"], n["q"].detach())),
    ("addcmul", lambda n, lib: lib.addcmul(n["m"], n["p"], n["q"])),
    ("addcmul value", lambda n, lib: lib.addcmul(n["m"], n["p"], n["q"], value=0.5)),
    ("addcmul int value", lambda n, lib: lib.addcmul(n["m"], n["p"], n["q"], value=2)),
    ("addcmul constant", lambda n, lib: lib.addcmul(n["m"], n["p"].detach(), n["q"])),
    ("addcdiv", lambda n, lib: lib.addcdiv(n["m"], n["p"], n["q"], value=-0.5)),
    ("avg_pool2d", lambda n, lib: _F(lib).avg_pool2d(n["img"], 2)),
    ("avg_pool2d all", lambda n, lib: _F(lib).avg_pool2d(n["img"], 3, 2, 1, True, False, 5)),
    ("avg_pool2d tuples", lambda n, lib: _F(lib).avg_pool2d(n["img"], (2, 3), (1, 2))),
    ("avg_pool2d int stride", lambda n, lib: _F(lib).avg_pool2d(n["img"], 2, 2, (1, 0))),
    ("avg_pool1d", lambda n, lib: _F(lib).avg_pool1d(n["img1"], 2).grad_fn.next_functions[0][0]),
    ("avg_pool3d", lambda n, lib: _F(lib).avg_pool3d(n["vol"], 2)),
    ("avg_pool3d all", lambda n, lib: _F(lib).avg_pool3d(n["vol"], 3, 2, 1, True, False, 7)),
    ("AvgPool2d", lambda n, lib: lib.nn.AvgPool2d(2, padding=1)(n["img"])),
    ("avg_pool2d double", lambda n, lib: _double(
        lib, lambda t: _F(lib).avg_pool2d(t, 3, 2, 1, True, False, 5), n["img"])),
    ("avg_pool3d double", lambda n, lib: _double(
        lib, lambda t: _F(lib).avg_pool3d(t, 2), n["vol"])),
    ("adaptive_avg_pool2d", lambda n, lib: _F(lib).adaptive_avg_pool2d(n["img"], 3)),
    ("adaptive_avg_pool2d divides", lambda n, lib: _F(lib).adaptive_avg_pool2d(n["img"], 4)),
    ("adaptive_avg_pool2d None", lambda n, lib: _F(lib).adaptive_avg_pool2d(n["img"], (None, 2))),
    ("adaptive_avg_pool3d", lambda n, lib: _F(lib).adaptive_avg_pool3d(n["vol"], 4)),
    ("max_unpool1d", lambda n, lib: _unpool(n, lib, 1).grad_fn.next_functions[0][0]),
    ("max_unpool2d", lambda n, lib: _unpool(n, lib, 2)),
    ("max_unpool3d", lambda n, lib: _unpool(n, lib, 3)),
]  # fmt: skip


class _Node:
    """A node given where a case reaches past its result (avg_pool1d's pool under a squeeze)."""

    def __init__(self, fn):
        self.grad_fn = fn


def _run(call, n, lib):
    out = call(n, lib)
    return out if hasattr(out, "grad_fn") and not hasattr(out, "next_functions") else _Node(out)


@pytest.mark.parametrize("case", [c for c, _ in CASES])
def test_saved_attributes_match_torch(case):
    call = dict(CASES)[case]
    want_n = _inputs(torch)
    got_n = _inputs(minitorch)
    want = _saved(_run(call, want_n, torch), want_n)
    got = _saved(_run(call, got_n, minitorch), got_n)
    _assert_same(got, want)


def test_unpool_indices_are_the_pools():
    """MaxUnpool2DBackward0._saved_indices is the indices tensor the call took (torch: `is`)."""

    def run(lib):
        F = lib.nn.functional
        x = _inputs(lib)["img"]
        out, idx = F.max_pool2d(x, 2, return_indices=True)
        return F.max_unpool2d(out, idx, 2).grad_fn._saved_indices is idx

    assert run(minitorch) == run(torch) is True


def test_saved_values_outlive_backward_as_in_torch():
    """The saved numbers still read after backward; a saved tensor raises torch's freed-graph
    error then."""

    def run(lib):
        n = _inputs(lib, fresh=True)
        out = {}
        t = n["x"].transpose(0, -1)
        a = lib.addcmul(n["m"], n["p"], n["q"], value=0.5)
        pool = lib.nn.functional.avg_pool2d(n["img"], 2)
        (t.sum() + a.sum() + pool.sum()).backward()
        out["transpose"] = (t.grad_fn._saved_dim0, t.grad_fn._saved_dim1)
        out["value"] = a.grad_fn._saved_value
        out["kernel"] = pool.grad_fn._saved_kernel_size
        for name, fn in (("tensor1", a.grad_fn), ("self", pool.grad_fn)):
            try:
                getattr(fn, f"_saved_{name}")
                out[name] = "no error"
            except RuntimeError as e:
                out[name] = str(e).split(".")[0]
        return out

    assert run(minitorch) == run(torch)


@pytest.mark.parametrize("op", ["xlogy", "logaddexp", "lerp", "addcmul", "igamma"])
def test_modified_saved_tensor_error_names_torchs(op):
    """With every saved input changed in place, backward's error names the one torch's does
    (its nodes check their saved tensors in the alphabetical order of their names, which
    _saved_names now gives these nodes: xlogy's other before self, lerp's end first)."""

    def run(lib):
        shapes = [(3,), (2, 3), (4, 2, 3)]
        n = 3 if op in ("lerp", "addcmul") else 2
        g = np.random.default_rng(5)
        ins = [
            lib.tensor(g.uniform(0.5, 1.5, shapes[i]), dtype=lib.float64, requires_grad=True)
            for i in range(n)
        ]
        ws = [t * 1 for t in ins]
        out = getattr(lib, op)(*ws)
        for w in ws:
            w.add_(0.5)
        with pytest.raises(RuntimeError) as e:
            out.sum().backward()
        return str(e.value)

    assert run(minitorch) == run(torch)
