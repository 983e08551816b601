"""minitorch.masked: the masked reductions against torch 2.13's values (literals obtained there)."""

from __future__ import annotations

import json
import math
import subprocess
import sys
import warnings

import numpy as np
import pytest

import minitorch as mt
from minitorch.autograd import gradcheck, gradgradcheck

NAN, INF = math.nan, math.inf

X = [[0.5, -1.0, 2.0, 3.0], [1.5, -2.0, 0.25, 4.0], [-0.5, 1.0, -3.0, 2.5]]
MASK = [[True, False, True, True], [False, False, False, False], [True, True, False, True]]


def _x():
    return mt.tensor(X, dtype=mt.float64)


def _m():
    return mt.tensor(MASK)


def _check(out, expected, dtype=mt.float64, err_msg=""):
    assert out.dtype == dtype, err_msg
    np.testing.assert_allclose(out.numpy(), np.array(expected), rtol=1e-12, err_msg=err_msg)


# (name, call, torch's result); row 1 of MASK is fully masked out
FORWARD = [
    ("sum", lambda x, m: mt.masked.sum(x, 1, mask=m), [5.5, 0.0, 3.0]),
    ("sum_all", lambda x, m: mt.masked.sum(x, mask=m), 8.5),
    ("sum_bcast", lambda x, m: mt.masked.sum(x, 0, mask=m[0]), [1.5, 0.0, -0.75, 9.5]),
    ("prod", lambda x, m: mt.masked.prod(x, 1, mask=m), [3.0, 1.0, -1.25]),
    ("amax", lambda x, m: mt.masked.amax(x, 1, mask=m), [3.0, -INF, 2.5]),
    ("amin", lambda x, m: mt.masked.amin(x, 0, mask=m), [-0.5, 1.0, 2.0, 2.5]),
    ("argmax", lambda x, m: mt.masked.argmax(x, 1, mask=m), [3.0, 0.0, 3.0]),
    ("argmin", lambda x, m: mt.masked.argmin(x, 1, mask=m), [0.0, 0.0, 0.0]),
    ("mean", lambda x, m: mt.masked.mean(x, 1, mask=m), [1.8333333333333333, NAN, 1.0]),
    ("median", lambda x, m: mt.masked.median(x, 1, mask=m), [2.0, NAN, 1.0]),
    (
        "norm",
        lambda x, m: mt.masked.norm(x, 2.0, 1, mask=m),
        [3.640054944640259, 0.0, 2.7386127875258306],
    ),
    (
        "norm1",
        lambda x, m: mt.masked.norm(x, 1.0, (1,), keepdim=True, mask=m),
        [[5.5], [0.0], [4.0]],
    ),
    ("norm_ninf", lambda x, m: mt.masked.norm(x, -INF, 1, mask=m), [0.5, INF, 0.5]),
    ("var", lambda x, m: mt.masked.var(x, 1, mask=m), [1.5833333333333335, NAN, 2.25]),
    (
        "std_biased",
        lambda x, m: mt.masked.std(x, 1, False, mask=m),
        [1.0274023338281628, NAN, 1.224744871391589],
    ),
    (
        "var_c2",
        lambda x, m: mt.masked.var(x, 1, correction=2, mask=m),
        [3.166666666666667, NAN, 4.5],
    ),
    (
        "logsumexp",
        lambda x, m: mt.masked.logsumexp(x, 1, mask=m),
        [3.371539031852683, -INF, 2.741311296657157],
    ),
    (
        "softmax",
        lambda x, m: mt.masked.softmax(x, 1, mask=m),
        [
            [0.056611732240471294, 0.0, 0.25371618163502524, 0.6896720861245036],
            [NAN] * 4,
            [0.039112573270687456, 0.1752903921400367, 0.0, 0.7855970345892759],
        ],
    ),
    (
        "log_softmax",
        lambda x, m: mt.masked.log_softmax(x, 1, mask=m),
        [
            [-2.871539031852683, -INF, -1.3715390318526828, -0.37153903185268283],
            [NAN] * 4,
            [-3.241311296657157, -1.7413112966571571, -INF, -0.24131129665715703],
        ],
    ),
    (
        "softmin",
        lambda x, m: mt.masked.softmin(x, 1, mask=m),
        [
            [0.7661572065563422, 0.0, 0.17095278019779026, 0.0628900132458675],
            [NAN] * 4,
            [0.7855970345892759, 0.1752903921400367, 0.0, 0.039112573270687456],
        ],
    ),
    (
        "normalize",
        lambda x, m: mt.masked.normalize(x, 2.0, 1, mask=m),
        [
            [0.13736056394868904, 0.0, 0.5494422557947561, 0.8241633836921342],
            [0.0] * 4,
            [-0.18257418583505536, 0.3651483716701107, 0.0, 0.9128709291752769],
        ],
    ),
    (
        "cumsum",
        lambda x, m: mt.masked.cumsum(x, 1, mask=m),
        [[0.5, 0.5, 2.5, 5.5], [0.0] * 4, [-0.5, 0.5, 0.5, 3.0]],
    ),
    (
        "cumprod",
        lambda x, m: mt.masked.cumprod(x, 1, mask=m),
        [[0.5, 0.5, 1.0, 3.0], [1.0] * 4, [-0.5, -0.5, -0.5, -1.25]],
    ),
    (
        "logaddexp",
        lambda x, m: mt.masked.logaddexp(x[0], x[2], input_mask=m[0], other_mask=m[2]),
        [0.8132616875182228, 1.0, 2.0, 3.4740769841801065],
    ),
]


@pytest.mark.parametrize("name, call, expected", FORWARD, ids=[c[0] for c in FORWARD])
def test_forward_matches_torch(name, call, expected):
    _check(call(_x(), _m()), expected, err_msg=name)


def test_sum_docstring_example_and_no_mask():
    x = mt.tensor([[-3, -2, -1], [0, 1, 2]])
    m = mt.tensor([[True, False, True], [False, False, False]])
    _check(mt.masked.sum(x, 1, mask=m), [-4, 0], dtype=mt.int64)
    # mask=None reduces everything, as torch.sum
    _check(mt.masked.sum(x, (0, 1), keepdim=True), [[-3]], dtype=mt.int64)
    _check(mt.masked.var(_x(), 1), [3.0625, 6.265625, 5.5])


def test_integer_and_bool_dtypes_follow_torch():
    xi = mt.tensor([[3, -1, 2], [0, 5, -4]], dtype=mt.int32)
    mi = mt.tensor([[True, False, True], [False, False, False]])
    _check(mt.masked.sum(xi, 1, mask=mi), [5, 0], dtype=mt.int64)  # accumulates in int64
    _check(mt.masked.prod(xi, 1, mask=mi), [6, 1], dtype=mt.int64)
    _check(mt.masked.sum(xi > 0, 1, mask=mi), [2, 0], dtype=mt.int64)
    # the identities of amax / amin for integers are the dtype's extremes
    _check(mt.masked.amax(xi, 1, mask=mi), [3, -(2**31)], dtype=mt.int32)
    _check(mt.masked.amin(xi, 1, mask=mi), [2, 2**31 - 1], dtype=mt.int32)
    _check(mt.masked.argmax(xi, 1, mask=mi), [0, 0], dtype=mt.int32)  # input's dtype
    _check(mt.masked.logsumexp(xi, 1, mask=mi), [3, -(2**31)], dtype=mt.int32)
    _check(mt.masked.cumsum(xi, 1, mask=mi), [[3, 3, 5], [0, 0, 0]], dtype=mt.int32)
    out = mt.masked.var(xi, 1, mask=mi)
    _check(out, [0.5, NAN], dtype=mt.float32)
    _check(mt.masked.sum(_x(), 1, mask=_m(), dtype=mt.float32), [5.5, 0.0, 3.0], dtype=mt.float32)
    _check(
        mt.masked.softmax(xi.float(), 1, dtype=mt.float64, mask=mi)[0],
        [0.7310585786300049, 0.0, 0.2689414213699951],
    )


def test_errors_match_torch():
    x, m = _x(), _m()
    with pytest.raises(
        ValueError, match=r"^mean\(\): Could not infer output dtype. Input dtype must"
    ):
        mt.masked.mean(x.long(), 1, mask=m)
    with pytest.raises(NotImplementedError, match=r"^identity of amax on torch.bool input$"):
        mt.masked.amax(x > 0, 1, mask=m)
    with pytest.raises(ValueError, match="^masked median expects no fully masked out rows"):
        mt.masked.median(x.long(), 1, mask=m)
    with pytest.raises(AssertionError, match="^Only one of unbiased and correction may be given$"):
        mt.masked.var(x, 1, True, correction=1, mask=m)
    with pytest.raises(RuntimeError, match=r"^dim=1 appears multiple times in the list of dims$"):
        mt.masked.sum(x, (1, 1), mask=m)
    msg = r"^Dimension out of range \(expected to be in range of \[-2, 1\], but got 3\)$"
    with pytest.raises(IndexError, match=msg):
        mt.masked.sum(x, 3, mask=m)
    msg = r"^_input_mask expected broadcastable mask \(got mask dimensionality higher than of"
    with pytest.raises(IndexError, match=msg):
        mt.masked.sum(x, 1, mask=m[None])
    with pytest.raises(RuntimeError, match=r"^The expanded size of the tensor \(4\) must match"):
        mt.masked.sum(x, 1, mask=mt.ones(3, dtype=mt.bool))


def test_non_bool_mask_is_converted_and_scalars_and_empty():
    # torch converts a non-bool mask with .to(bool)
    _check(mt.masked.sum(_x(), 1, mask=_m().long()), [5.5, 0.0, 3.0])
    _check(mt.masked.sum(mt.tensor(2.5), 0, mask=mt.tensor(False)), 0.0, dtype=mt.float32)
    _check(mt.masked.amax(mt.tensor(2.5), -1, mask=mt.tensor(True)), 2.5, dtype=mt.float32)
    out = mt.masked.sum(mt.zeros(0, 3), 1, mask=mt.ones(3, dtype=mt.bool))
    assert out.shape == (0,)
    _check(
        mt.masked.mean(mt.zeros(2, 0), 1, mask=mt.zeros(2, 0, dtype=mt.bool)),
        [NAN, NAN],
        dtype=mt.float32,
    )


# masks without a fully masked-out slice along the reduced dim: the gradients are finite
_GM = [[True, False, True, True], [False, True, True, False], [True, True, False, True]]

GRAD = [
    ("sum", lambda x, m: mt.masked.sum(x, 1, mask=m)),
    ("prod", lambda x, m: mt.masked.prod(x, (0, 1), mask=m)),
    ("amax", lambda x, m: mt.masked.amax(x, 1, mask=m)),
    ("amin", lambda x, m: mt.masked.amin(x, 1, keepdim=True, mask=m)),
    ("mean", lambda x, m: mt.masked.mean(x, 1, mask=m)),
    ("median", lambda x, m: mt.masked.median(x, 1, mask=m)),
    ("norm", lambda x, m: mt.masked.norm(x, 3.0, 1, mask=m)),
    ("var", lambda x, m: mt.masked.var(x, 1, mask=m)),
    ("std", lambda x, m: mt.masked.std(x, None, correction=0, mask=m)),
    ("logsumexp", lambda x, m: mt.masked.logsumexp(x, 1, mask=m)),
    ("softmax", lambda x, m: mt.masked.softmax(x, 1, mask=m)),
    ("log_softmax", lambda x, m: mt.masked.log_softmax(x, 1, mask=m)),
    ("softmin", lambda x, m: mt.masked.softmin(x, 0, mask=m)),
    ("normalize", lambda x, m: mt.masked.normalize(x, 2.0, 1, mask=m)),
    ("cumsum", lambda x, m: mt.masked.cumsum(x, 1, mask=m)),
    ("cumprod", lambda x, m: mt.masked.cumprod(x, 1, mask=m)),
    (
        "logaddexp",
        lambda x, m: mt.masked.logaddexp(x, x.flip(0), input_mask=m, other_mask=m.flip(0)),
    ),
]


@pytest.mark.parametrize("name, call", GRAD, ids=[c[0] for c in GRAD])
def test_gradients(name, call):
    m = mt.tensor(_GM)
    x = mt.tensor(X, dtype=mt.float64, requires_grad=True)

    def fn(t):  # log_softmax and logaddexp give -inf at masked-out elements
        out = call(t, m)
        return mt.where(out.isfinite(), out, 0.0)

    assert gradcheck(fn, (x,)), name
    assert gradgradcheck(fn, (x,)), name
    # masked-out elements get no gradient
    (g,) = mt.autograd.grad(fn(x).sum(), x)
    assert not g.numpy()[~np.array(_GM)].any(), name


def test_fully_masked_rows_get_zero_gradient():
    x = mt.tensor(X, dtype=mt.float64, requires_grad=True)
    mt.masked.amax(x, 1, mask=_m()).nan_to_num(0.0, 0.0, 0.0).sum().backward()
    _check(x.grad, [[0.0, 0.0, 0.0, 1.0], [0.0] * 4, [0.0, 0.0, 0.0, 1.0]])
    x.grad = None
    mt.masked.sum(x, 0, mask=_m()).sum().backward()
    _check(x.grad, np.array(MASK, dtype=np.float64))


def test_masked_is_a_lazy_submodule():
    code = (
        "import json, sys, minitorch; a = 'minitorch.masked' in sys.modules; "
        "minitorch.masked.sum; print(json.dumps([a, 'minitorch.masked' in sys.modules]))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert json.loads(out.stdout) == [False, True]


# --- MaskedTensor ---------------------------------------------------------------------------------

_MT_REPR = """MaskedTensor(
  [
    [  0.0000,       --,   2.0000],
    [      --,       --,       --]
  ]
)"""


def _mt(mask=((True, False, True), (False, False, False)), requires_grad=False):
    with pytest.warns(UserWarning, match="^The PyTorch API of MaskedTensors is in prototype"):
        return mt.masked.masked_tensor(
            mt.arange(6.0).reshape(2, 3), mt.tensor(mask), requires_grad=requires_grad
        )


def test_masked_tensor_repr_and_parts():
    a = _mt()
    assert repr(a) == _MT_REPR
    assert mt.masked.is_masked_tensor(a) and not mt.masked.is_masked_tensor(a.get_data())
    assert a.shape == (2, 3) and a.dim() == 2 and a.dtype == mt.float32
    _check(a.to_tensor(-1.0), [[0.0, -1.0, 2.0], [-1.0] * 3], dtype=mt.float32)
    assert repr(a.sum()) == "MaskedTensor(  2.0000, True)"
    assert repr(a.sum(0)[1]) == "MaskedTensor(--, False)"
    with pytest.warns(UserWarning):
        b = mt.masked.masked_tensor(mt.tensor([[1, 22222, -3]]), mt.tensor([[False, True, True]]))
    assert repr(b) == "MaskedTensor(\n  [\n    [      --, 22222, -3]\n  ]\n)"


def test_masked_tensor_errors():
    x, m = mt.arange(6.0).reshape(2, 3), mt.ones(2, 3, dtype=mt.bool)
    cases = [
        ((x, m[0]), ValueError, r"^data.dim\(\) must equal mask.dim\(\)$"),
        (
            (x, mt.ones(3, 2, dtype=mt.bool)),
            ValueError,
            r"^data.size\(\) must equal mask.size\(\)$",
        ),
        ((x, m.int()), TypeError, "^mask must have dtype bool.$"),
        ((x.to(mt.uint8), m), TypeError, "^torch.uint8 is not supported in MaskedTensor.$"),
        (([1.0], m), TypeError, "^data must be a Tensor$"),
    ]
    for args, error, msg in cases:
        with warnings.catch_warnings(), pytest.raises(error, match=msg):
            warnings.simplefilter("ignore")
            mt.masked.masked_tensor(*args)
    with pytest.raises(ValueError, match="^Input masks must match."):
        _mt() + _mt(((True, True, True), (False, False, False)))


def test_masked_tensor_ops_keep_the_mask():
    a = _mt(((True, False, True), (False, True, True)))
    assert repr(a.sum(1)) == "MaskedTensor(\n  [  2.0000,   9.0000]\n)"
    assert repr(a.var(1)) == "MaskedTensor(\n  [  2.0000,   0.5000]\n)"
    assert repr(a.argmax(1)) == "MaskedTensor(\n  [  2.0000,   2.0000]\n)"
    out = (2 * a + a.get_data()).exp().log() - 1
    assert out.get_mask().tolist() == a.get_mask().tolist()
    _check(out.get_data(), [[-1.0, 2.0, 5.0], [8.0, 11.0, 14.0]], dtype=mt.float32)
    assert (a > 2).get_data().dtype == mt.bool
    # the minitorch.masked functions return plain tensors for a MaskedTensor, as torch's
    _check(mt.masked.sum(a, 1), [2.0, 9.0], dtype=mt.float32)


def test_masked_tensor_gradients():
    a = _mt(((True, False, True), (False, True, True)), requires_grad=True)
    (a * a).sum().backward()
    assert mt.masked.is_masked_tensor(a.grad)
    _check(a.grad.get_data(), [[0.0, 0.0, 4.0], [0.0, 8.0, 10.0]], dtype=mt.float32)
    x = mt.arange(6.0, dtype=mt.float64).reshape(2, 3).requires_grad_()
    m = mt.tensor([[True, False, True], [False, True, True]])
    with pytest.warns(UserWarning):
        b = mt.masked.as_masked_tensor(x, m)
    b.softmax(1).get_data().pow(2).sum().backward()
    assert not x.grad.numpy()[~m.numpy()].any()
