"""Session 36 (helper argmissing): torch-free regression tests of the library fixes the
argument sweeps of tests/reference/test_s36_argmissing_reference.py found: torch's parser
wording for a call that leaves out a required argument ('missing 1 required positional
arguments: "k"') or gives too many positional ones (a method's counts without self), mm/bmm/
narrow/conv's "invalid combination" listings, F.gelu's keyword-only approximate, and the names
of F.threshold and the boolean-dispatch pools. torch's messages are written here as literals."""

from __future__ import annotations

import pytest

import minitorch as mt

F = mt.nn.functional


def _message(fn):
    with pytest.raises(TypeError) as info:
        fn()
    return str(info.value)


def _env():
    g = mt.Generator().manual_seed(0)
    return dict(
        mt=mt,
        F=F,
        x=mt.randn(2, 3, generator=g),
        i=mt.tensor([[0, 1, 0], [1, 0, 1]]),
        i1=mt.tensor([0, 1]),
        s=mt.ones(2, 3),
        v=mt.arange(3.0),
        m=mt.randn(3, 3, generator=g),
        b=mt.randn(2, 3, 3, generator=g),
        x4=mt.randn(1, 2, 6, 6, generator=g),
        w4=mt.randn(3, 2, 3, 3, generator=g),
    )


CASES = [
    ("mt.topk(x)", 'topk() missing 1 required positional arguments: "k"'),
    ("mt.topk()", 'topk() missing 2 required positional argument: "input", "k"'),
    ("mt.topk(k=2)", 'topk() missing 2 required positional argument: "input", "k"'),
    (
        "mt.topk(x, 2, 0, True, True, 0)",
        "topk() takes from 2 to 5 positional arguments but 6 were given",
    ),
    ("x.topk()", 'topk() missing 1 required positional arguments: "k"'),
    (
        "x.topk(1, 0, True, True, 0)",
        "topk() takes from 1 to 4 positional arguments but 5 were given",
    ),
    (
        "mt.kthvalue(x, 1, 0, False, 0)",
        "kthvalue() takes from 2 to 4 positional arguments but 5 were given",
    ),
    ("x.kthvalue()", 'kthvalue() missing 1 required positional arguments: "k"'),
    (
        "x.kthvalue(1, 0, False, 0)",
        "kthvalue() takes from 1 to 3 positional arguments but 4 were given",
    ),
    ("mt.gather(x, 1)", 'gather() missing 1 required positional arguments: "index"'),
    ("mt.gather(x, index=i)", 'gather() missing 2 required positional argument: "dim", "index"'),
    ("mt.gather(x, 1, i, 0)", "gather() takes 3 positional arguments but 4 were given"),
    ("x.gather()", 'gather() missing 2 required positional argument: "dim", "index"'),
    ("x.gather(1, i, 0)", "gather() takes 2 positional arguments but 3 were given"),
    ("mt.index_select(x)", 'index_select() missing 2 required positional argument: "dim", "index"'),
    ("x.index_select(1, i1, 0)", "index_select() takes 2 positional arguments but 3 were given"),
    ("mt.index_add(x, 1, i1)", 'index_add() missing 1 required positional arguments: "source"'),
    ("x.index_add(1)", 'index_add() missing 2 required positional argument: "index", "source"'),
    ("x.index_add(1, i1, s, 0)", "index_add() takes 3 positional arguments but 4 were given"),
    (
        "mt.scatter_add(x, 1, i, s, 0)",
        "scatter_add() takes 4 positional arguments but 5 were given",
    ),
    ("x.scatter_add(1, i)", 'scatter_add() missing 1 required positional arguments: "src"'),
    (
        "x.scatter_add(1, src=s)",
        'scatter_add() missing 2 required positional argument: "index", "src"',
    ),
    ("x.scatter_add(1, i, s, 0)", "scatter_add() takes 3 positional arguments but 4 were given"),
    ("mt.select(x, 1)", 'select() missing 1 required positional arguments: "index"'),
    ("x.select(1, 0, 0)", "select() takes 2 positional arguments but 3 were given"),
    ("mt.dot(v)", 'dot() missing 1 required positional arguments: "tensor"'),
    ("mt.dot(v, v, 0)", "dot() takes 2 positional arguments but 3 were given"),
    ("v.dot()", 'dot() missing 1 required positional arguments: "tensor"'),
    ("v.dot(v, 0)", "dot() takes 1 positional argument but 2 were given"),
    ("mt.mv()", 'mv() missing 2 required positional argument: "input", "vec"'),
    ("m.mv(v, 0)", "mv() takes 1 positional argument but 2 were given"),
    ("mt.matmul(m)", 'matmul() missing 1 required positional arguments: "other"'),
    ("m.matmul(m, 0, 0)", "matmul() takes 1 positional argument but 3 were given"),
    ("m.mm()", 'mm() missing 1 required positional arguments: "mat2"'),
    ("b.bmm(b, 0)", "bmm() takes 1 positional argument but 2 were given"),
    ("mt.unsqueeze(x)", 'unsqueeze() missing 1 required positional arguments: "dim"'),
    ("mt.unsqueeze(x, 0, 0)", "unsqueeze() takes 2 positional arguments but 3 were given"),
    ("x.unsqueeze()", 'unsqueeze() missing 1 required positional arguments: "dim"'),
    ("x.unsqueeze(0, 0)", "unsqueeze() takes 1 positional argument but 2 were given"),
    ("mt.roll(x)", 'roll() missing 1 required positional arguments: "shifts"'),
    ("x.roll(1, 0, 0)", "roll() takes from 1 to 2 positional arguments but 3 were given"),
    ("mt.maximum(x)", 'maximum() missing 1 required positional arguments: "other"'),
    ("mt.minimum(x, x, 0)", "minimum() takes 2 positional arguments but 3 were given"),
    ("x.maximum(x, 0)", "maximum() takes 1 positional argument but 2 were given"),
    ("x.minimum()", 'minimum() missing 1 required positional arguments: "other"'),
    ("mt.full((2,))", 'full() missing 1 required positional arguments: "fill_value"'),
    ("mt.full((2,), 1.0, 0)", "full() takes 2 positional arguments but 3 were given"),
    ("mt.full_like()", 'full_like() missing 2 required positional argument: "input", "fill_value"'),
    ("mt.renorm(x, 2)", 'renorm() missing 2 required positional argument: "dim", "maxnorm"'),
    ("mt.renorm(x, 2, 0, 1.0, 0)", "renorm() takes 4 positional arguments but 5 were given"),
    ("F.one_hot()", 'one_hot() missing 1 required positional arguments: "input"'),
    ("F.one_hot(i1, 3, 0)", "one_hot() takes from 1 to 2 positional arguments but 3 were given"),
    ("F.linear(x)", 'linear() missing 1 required positional arguments: "weight"'),
    ("F.linear(x, m, None, 0)", "linear() takes from 2 to 3 positional arguments but 4 were given"),
    ("F.gelu()", 'gelu() missing 1 required positional arguments: "input"'),
    ("F.gelu(x, 'tanh')", "gelu() takes 1 positional argument but 2 were given"),
    ("F.avg_pool2d(x4)", 'avg_pool2d() missing 1 required positional arguments: "kernel_size"'),
    (
        "F.avg_pool1d()",
        'avg_pool1d() missing 2 required positional argument: "input", "kernel_size"',
    ),
    (
        "F.avg_pool3d(x4, 2, None, 0, False, True, None, 0)",
        "avg_pool3d() takes from 2 to 7 positional arguments but 8 were given",
    ),
    ("F.cosine_similarity(m)", 'cosine_similarity() missing 1 required positional arguments: "x2"'),
    (
        "F.cosine_similarity(m, m, 1, 1e-8, 0)",
        "cosine_similarity() takes from 2 to 4 positional arguments but 5 were given",
    ),
    ("F.threshold(x, 0.5)", "_threshold() missing 1 required positional argument: 'value'"),
    ("mt.transpose(x, 0)", 'transpose() missing 1 required positional arguments: "dim1"'),
    ("x.transpose(0, 1, 0)", "transpose() takes 2 positional arguments but 3 were given"),
    ("x.swapaxes(0)", 'swapaxes() missing 1 required positional arguments: "axis1"'),
    ("x.chunk(2, 0, 0)", "chunk() takes from 1 to 2 positional arguments but 3 were given"),
    ("mt.masked_select(x)", 'masked_select() missing 1 required positional arguments: "mask"'),
    ("x.atan2()", 'atan2() missing 1 required positional arguments: "other"'),
    (
        "x.isclose(x, 0, 0, False, 0)",
        "isclose() takes from 1 to 4 positional arguments but 5 were given",
    ),
    ("mt.equal(x, x, 0)", "equal() takes 2 positional arguments but 3 were given"),
    ("v.outer(v, 0)", "outer() takes 1 positional argument but 2 were given"),
    ("m.kron()", 'kron() missing 1 required positional arguments: "other"'),
    ("F.max_pool2d(x4)", "_max_pool2d() missing 1 required positional argument: 'kernel_size'"),
    (
        "F.adaptive_max_pool1d()",
        "_adaptive_max_pool1d() missing 2 required positional arguments: 'input' and 'output_size'",
    ),
    (
        "F.fractional_max_pool2d()",
        "_fractional_max_pool2d() missing 2 required positional arguments: 'input' and "
        "'kernel_size'",
    ),
]  # fmt: skip


@pytest.mark.parametrize("code,want", CASES)
def test_torchs_parser_wording(code, want):
    env = _env()
    assert _message(lambda: eval(code, env)) == want  # noqa: S307


MM = (
    " * (Tensor input, Tensor mat2, *, Tensor out = None)\n"
    " * (Tensor input, Tensor mat2, torch.dtype out_dtype, *, Tensor out = None)\n"
)
CONV = (
    " * (Tensor input, Tensor weight, Tensor bias = None, tuple of ints stride = 1, tuple of ints"
    " padding = 0, tuple of ints dilation = 1, int groups = 1)\n"
    " * (Tensor input, Tensor weight, Tensor bias = None, tuple of ints stride = 1, str padding ="
    ' "valid", tuple of ints dilation = 1, int groups = 1)\n'
)
NARROW = " * (int dim, Tensor start, int length)\n * (int dim, int start, int length)\n"

LISTINGS = [
    ("mt.mm(m)", "mm", "(Tensor)", MM),
    ("mt.bmm(b, b, 0)", "bmm", "(Tensor, Tensor, int)", MM),
    (
        "mt.narrow(x, 1)",
        "narrow",
        "(Tensor, int)",
        NARROW.replace("(int dim", "(Tensor input, int dim"),
    ),
    ("x.narrow(1, 0, 2, 0)", "narrow", "(int, int, int, int)", NARROW),
    ("x.narrow()", "narrow", "()", NARROW),
    ("mt.mm(mat2=m)", "mm", "(mat2=Tensor, )", MM),
    ("x.narrow(dim=0, start=1)", "narrow", "(start=int, dim=int, )", NARROW),
    ("F.conv2d(x4)", "conv2d", "(Tensor)", CONV),
    ("F.conv2d(x4, bias=None)", "conv2d", "(Tensor, bias=NoneType)", CONV),
    (
        "F.conv2d(x4, w4, None, 1, 0, 1, 1, 0)",
        "conv2d",
        "(Tensor, Tensor, NoneType, int, int, int, int, int)",
        CONV,
    ),
]  # fmt: skip


@pytest.mark.parametrize("code,op,got,forms", LISTINGS)
def test_overloaded_ops_list_their_overloads(code, op, got, forms):
    env = _env()
    want = (
        f"{op}() received an invalid combination of arguments - got {got}, but expected one of:\n"
        + forms
    )
    assert _message(lambda: eval(code, env)) == want  # noqa: S307


def test_results_and_names_unchanged():
    env = _env()
    x, m, v = env["x"], env["m"], env["v"]
    assert mt.topk(x, k=2, dim=1).values.equal(x.sort(1, descending=True).values[:, :2])
    assert x.topk(1, 0).indices.shape == (1, 3)
    assert mt.dot(input=v, tensor=v).item() == 5.0
    assert m.mm(mat2=m).allclose(m @ m) and mt.mm(m, m).allclose(m @ m)
    assert x.narrow(dim=1, start=0, length=2).equal(x[:, :2])
    assert mt.full((2,), fill_value=3).tolist() == [3, 3]
    assert F.gelu(x, approximate="tanh").shape == x.shape
    assert F.threshold.__name__ == "_threshold" and F.max_pool2d.__name__ == "max_pool2d"


def test_renamed_functionals_still_pickle():
    import pickle

    for fn in (F.threshold, F.max_pool2d, F.adaptive_max_pool3d, F.fractional_max_pool2d):
        assert pickle.loads(pickle.dumps(fn)) is fn
