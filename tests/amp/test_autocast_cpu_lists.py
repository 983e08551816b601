"""CPU autocast follows torch's CPU op lists: each row's output dtype under autocast('cpu') with
bfloat16 and float16, for float32 inputs and for inputs already in the autocast dtype.

The expected dtypes were measured on torch 2.x (tests/reference/test_autocast_cpu_reference.py
checks them against torch where it is installed). See NOTE [ Autocast policies ].
"""

from __future__ import annotations

import numpy as np
import pytest

import minitorch
import minitorch.nn.functional as F
from minitorch import nn

LOW, F32 = "low", "f32"  # the autocast dtype, float32


def _spd(t, r, n=4):
    a = r(n, n)
    return a @ a.T + n * t.eye(n)


def _mod(t, name, ctor, cache={}):  # noqa: B006 - one module per (library, name)
    """The module `name` of library t, its parameters drawn from NumPy (the same in both)."""
    key = (t.__name__, name)
    if key not in cache:
        m = ctor(t.nn)
        rng = np.random.default_rng(1)
        with t.no_grad():
            for p in m.parameters():
                p.copy_(t.tensor(rng.uniform(-0.4, 0.4, tuple(p.shape)).astype(np.float32)))
        cache[key] = m
    return cache[key]


# name -> (fn(t, c, r): the op on inputs built by c(tensor) from r(*shape)
# (standard normal, from NumPy); expected dtype for float32 inputs and
# for low-precision inputs). `t` is minitorch or torch; c casts an input to the row's input dtype.
# fmt: off
CASES = {
    # composites torch runs through its lower-precision kernels (mm, bmm, linear, mkldnn_rnn)
    "einsum_bmm": (lambda t, c, r: t.einsum("bhid,bhjd->bhij", c(r(2, 3, 4, 5)),
                                         c(r(2, 3, 4, 5))), LOW, LOW),
    "einsum_mm": (lambda t, c, r: t.einsum("ij,jk->ik", c(r(3, 4)), c(r(4, 2))), LOW, LOW),
    "einsum_implicit": (lambda t, c, r: t.einsum("ij,jk", c(r(3, 4)), c(r(4, 2))),
                        LOW, LOW),
    "einsum_ellipsis": (lambda t, c, r: t.einsum("...ij,...jk", c(r(2, 3, 4)),
                                              c(r(2, 4, 5))), LOW, LOW),
    "einsum_dot": (lambda t, c, r: t.einsum("i,i->", c(r(4)), c(r(4))), LOW, LOW),
    "einsum_three": (lambda t, c, r: t.einsum("ij,jk,kl->il", c(r(3, 4)), c(r(4, 5)),
                                           c(r(5, 2))), LOW, LOW),
    "einsum_list": (lambda t, c, r: t.einsum("ij,jk->ik", [c(r(3, 4)), c(r(4, 2))]),
                    LOW, LOW),
    "einsum_mul": (lambda t, c, r: t.einsum("i,i->i", c(r(4)), c(r(4))), F32, LOW),
    "einsum_outer": (lambda t, c, r: t.einsum("i,j->ij", c(r(3)), c(r(4))), F32, LOW),
    "einsum_one": (lambda t, c, r: t.einsum("ij->j", c(r(3, 4))), F32, LOW),
    "einsum_sum_apart": (lambda t, c, r: t.einsum("ij,k->k", c(r(3, 4)), c(r(5))),
                         F32, LOW),
    "einsum_then_mul": (lambda t, c, r: t.einsum("ij,j,k->ik", c(r(3, 4)), c(r(4)),
                                              c(r(5))), F32, LOW),
    "tensordot": (lambda t, c, r: t.tensordot(c(r(2, 5, 8)), c(r(8, 8)), 1), LOW, LOW),
    "tensordot_0": (lambda t, c, r: t.tensordot(c(r(2, 3)), c(r(4)), 0), LOW, LOW),
    "tensordot_lists": (lambda t, c, r: t.tensordot(c(r(3, 4)), c(r(4, 3)),
                                                 dims=([1], [0])), LOW, LOW),
    "inner": (lambda t, c, r: t.inner(c(r(3, 4)), c(r(2, 4))), LOW, LOW),
    "vecdot": (lambda t, c, r: t.linalg.vecdot(c(r(3, 4)), c(r(3, 4))), LOW, LOW),
    "mha": (lambda t, c, r: _mod(t, "mha", lambda nn: nn.MultiheadAttention(
        8, 2, batch_first=True))(c(r(2, 5, 8)), c(r(2, 5, 8)), c(r(2, 5, 8)))[0], LOW, LOW),
    "mha_weights": (lambda t, c, r: _mod(t, "mha", lambda nn: nn.MultiheadAttention(
        8, 2, batch_first=True))(c(r(2, 5, 8)), c(r(2, 5, 8)),
                                 c(r(2, 5, 8)))[1], LOW, LOW),
    "transformer_layer": (lambda t, c, r: _mod(t, "tel", lambda nn: nn.TransformerEncoderLayer(
        8, 2, 16, dropout=0.0, batch_first=True))(c(r(2, 5, 8))), F32, LOW),  # residual
    "lstm": (lambda t, c, r: _mod(t, "lstm", lambda nn: nn.LSTM(8, 4, batch_first=True))(
        c(r(2, 5, 8)))[0], LOW, LOW),
    "lstm_c": (lambda t, c, r: _mod(t, "lstm", lambda nn: nn.LSTM(8, 4, batch_first=True))(
        c(r(2, 5, 8)))[1][1], LOW, LOW),
    "lstm_2layer_bidir": (lambda t, c, r: _mod(t, "lstm2", lambda nn: nn.LSTM(
        8, 4, num_layers=2, bidirectional=True))(c(r(5, 2, 8)))[0], LOW, LOW),
    "lstm_proj": (lambda t, c, r: _mod(t, "lstmp", lambda nn: nn.LSTM(8, 4, proj_size=2))(
        c(r(5, 2, 8)))[0], LOW, LOW),
    "lstm_packed": (lambda t, c, r: _mod(t, "lstm", lambda nn: nn.LSTM(8, 4, batch_first=True))(
        t.nn.utils.rnn.pack_padded_sequence(c(r(2, 5, 8)), [5, 3], batch_first=True)
    )[0].data, F32, LOW),  # torch runs packed sequences cell by cell, not through oneDNN
    "rnn_tanh": (lambda t, c, r: _mod(t, "rnn", lambda nn: nn.RNN(8, 4))(c(r(5, 2, 8)))[0],
                 LOW, LOW),
    "rnn_cell": (lambda t, c, r: _mod(t, "rc", lambda nn: nn.RNNCell(8, 4))(c(r(2, 8))),
                 LOW, LOW),
    # the GRU's float32 initial state enters its update pointwise: float32, as torch
    "gru": (lambda t, c, r: _mod(t, "gru", lambda nn: nn.GRU(8, 4))(c(r(5, 2, 8)))[0],
            F32, LOW),
    "lstm_cell": (lambda t, c, r: _mod(t, "lc", lambda nn: nn.LSTMCell(8, 4))(c(r(2, 8)))[0],
                  F32, LOW),
    # torch's CPU float32 list
    "prod": (lambda t, c, r: c(r(3, 4)).prod(), F32, F32),
    "prod_dim": (lambda t, c, r: t.prod(c(r(3, 4)), 1), F32, F32),
    "quantile": (lambda t, c, r: t.quantile(c(r(3, 4)), 0.3), F32, F32),
    "quantile_tensor_q": (lambda t, c, r: t.quantile(c(r(3, 4)), t.tensor([0.2, 0.7]), dim=1),
                          F32, F32),
    "nanquantile": (lambda t, c, r: t.nanquantile(c(r(3, 4)), 0.3), F32, F32),
    "cdist": (lambda t, c, r: t.cdist(c(r(3, 4)), c(r(2, 4))), F32, F32),
    "trace": (lambda t, c, r: t.trace(c(r(3, 3))), F32, F32),
    "pad_reflect1d": (lambda t, c, r: t.nn.functional.pad(c(r(1, 2, 5)), (1, 1), mode="reflect"),
                      F32, F32),
    "pad_reflect2d": (lambda t, c, r: t.nn.functional.pad(c(r(1, 2, 5, 5)), (1, 1, 1, 1),
                                                       mode="reflect"), F32, F32),
    "pad_reflect3d": (lambda t, c, r: t.nn.functional.pad(c(r(1, 2, 3, 3, 3)), (1,) * 6,
                                                       mode="reflect"), F32, LOW),
    "pad_replicate1d": (lambda t, c, r: t.nn.functional.pad(c(r(1, 2, 5)), (1, 1),
                                                         mode="replicate"), F32, F32),
    "pad_replicate3d": (lambda t, c, r: t.nn.functional.pad(c(r(1, 2, 3, 3, 3)), (1,) * 6,
                                                         mode="replicate"), F32, F32),
    "pad_circular": (lambda t, c, r: t.nn.functional.pad(c(r(1, 2, 5, 5)), (1, 1, 1, 1),
                                                      mode="circular"), F32, LOW),
    "reflection_pad2d": (lambda t, c, r: t.nn.ReflectionPad2d(1)(c(r(1, 2, 5, 5))), F32, F32),
    "max_pool3d": (lambda t, c, r: t.nn.functional.max_pool3d(c(r(1, 1, 4, 4, 4)), 2), F32, F32),
    "max_pool3d_indices": (lambda t, c, r: t.nn.functional.max_pool3d(
        c(r(1, 1, 4, 4, 4)), 2, return_indices=True)[0], F32, LOW),
    "avg_pool3d": (lambda t, c, r: t.nn.functional.avg_pool3d(c(r(1, 1, 4, 4, 4)), 2), F32, F32),
    "adaptive_avg_pool3d": (lambda t, c, r: t.nn.functional.adaptive_avg_pool3d(
        c(r(1, 1, 4, 4, 4)), 2), F32, F32),
    "adaptive_max_pool3d": (lambda t, c, r: t.nn.functional.adaptive_max_pool3d(
        c(r(1, 1, 4, 4, 4)), 2), F32, F32),
    "max_pool2d": (lambda t, c, r: t.nn.functional.max_pool2d(c(r(1, 1, 4, 4)), 2), F32, LOW),
    "max_unpool2d": (lambda t, c, r: t.nn.functional.max_unpool2d(*t.nn.functional.max_pool2d(
        c(r(1, 1, 4, 4)), 2, return_indices=True), 2), F32, F32),
    "max_unpool3d": (lambda t, c, r: t.nn.functional.max_unpool3d(*t.nn.functional.max_pool3d(
        c(r(1, 1, 4, 4, 4)), 2, return_indices=True), 2), F32, F32),
    "grid_sample": (lambda t, c, r: t.nn.functional.grid_sample(
        c(r(1, 1, 4, 4)), c(r(1, 3, 3, 2)).tanh(), align_corners=False), F32, F32),
    "cholesky": (lambda t, c, r: t.linalg.cholesky(c(_spd(t, r))), F32, F32),
    "cholesky_ex": (lambda t, c, r: t.linalg.cholesky_ex(c(_spd(t, r)))[0], F32, F32),
    "cholesky_solve": (lambda t, c, r: t.cholesky_solve(c(r(4, 2)), c(t.linalg.cholesky(
        _spd(t, r)))), F32, F32),
    "cholesky_inverse": (lambda t, c, r: t.cholesky_inverse(c(t.linalg.cholesky(_spd(t, r)))),
                         F32, F32),
    "inverse": (lambda t, c, r: t.inverse(c(_spd(t, r))), F32, F32),
    "linalg_inv": (lambda t, c, r: t.linalg.inv(c(_spd(t, r))), F32, F32),
    "inv_ex": (lambda t, c, r: t.linalg.inv_ex(c(_spd(t, r)))[0], F32, F32),
    "pinverse": (lambda t, c, r: t.pinverse(c(r(3, 4))), F32, F32),
    "solve": (lambda t, c, r: t.linalg.solve(c(_spd(t, r)), c(r(4, 2))), F32, F32),
    "triangular_solve": (lambda t, c, r: t.triangular_solve(c(r(4, 2)), c(_spd(t, r)))[0],
                         F32, F32),
    "eigh": (lambda t, c, r: t.linalg.eigh(c(_spd(t, r)))[0], F32, F32),
    "eigvalsh": (lambda t, c, r: t.linalg.eigvalsh(c(_spd(t, r))), F32, F32),
    "qr": (lambda t, c, r: t.linalg.qr(c(r(4, 3)))[1], F32, F32),
    "qr_old": (lambda t, c, r: t.qr(c(r(4, 3)))[1], F32, F32),
    "svdvals": (lambda t, c, r: t.linalg.svdvals(c(r(4, 3))), F32, F32),
    "svd": (lambda t, c, r: t.linalg.svd(c(r(4, 3)))[1], F32, F32),
    "svd_old": (lambda t, c, r: t.svd(c(r(4, 3)))[1], F32, F32),
    "cond": (lambda t, c, r: t.linalg.cond(c(_spd(t, r))), F32, F32),
    "lstsq": (lambda t, c, r: t.linalg.lstsq(c(r(5, 3)), c(r(5, 2))).solution, F32, F32),
    "tensorinv": (lambda t, c, r: t.linalg.tensorinv(c(_spd(t, r)).reshape(4, 2, 2), ind=1),
                  F32, F32),
    "tensorsolve": (lambda t, c, r: t.linalg.tensorsolve(c(_spd(t, r)).reshape(2, 2, 2, 2),
                                                      c(r(2, 2))), F32, F32),
    "householder_product": (lambda t, c, r: t.linalg.householder_product(c(r(4, 3)),
                                                                      c(r(3))), F32, F32),
    "geqrf": (lambda t, c, r: t.geqrf(c(r(4, 3)))[0], F32, F32),
    "cosine_embedding_loss": (lambda t, c, r: t.nn.functional.cosine_embedding_loss(
        c(r(3, 4)), c(r(3, 4)), t.tensor([1.0, -1.0, 1.0])), F32, F32),
    "hinge_embedding_loss": (lambda t, c, r: t.nn.functional.hinge_embedding_loss(
        c(r(4)), t.tensor([1.0, -1.0, 1.0, -1.0])), F32, F32),
    "triplet_margin_loss": (lambda t, c, r: t.nn.functional.triplet_margin_loss(
        c(r(3, 4)), c(r(3, 4)), c(r(3, 4))), F32, F32),
    "multi_margin_loss": (lambda t, c, r: t.nn.functional.multi_margin_loss(
        c(r(3, 4)), t.tensor([0, 1, 3])), F32, F32),
    "multilabel_margin_loss": (lambda t, c, r: t.nn.functional.multilabel_margin_loss(
        c(r(3, 4)), t.tensor([[0, 1, -1, 0]] * 3)), F32, F32),
    "ctc_loss": (lambda t, c, r: t.nn.functional.ctc_loss(
        c(r(6, 1, 4)).log_softmax(2), t.tensor([[1, 2]]), t.tensor([6]), t.tensor([2])),
        F32, F32),
    # an op with no list: runs in its inputs' dtype, a one-kernel op casts nothing inside
    "lu_solve": (lambda t, c, r: t.linalg.lu_solve(*t.linalg.lu_factor(_spd(t, r)), c(r(4, 2))
                                                .float()), F32, F32),
    # the promote list: the widest input dtype
    "index_copy": (lambda t, c, r: c(r(3, 2)).index_copy(0, t.tensor([0, 2]), r(2, 2)),
                   F32, F32),
    "cat": (lambda t, c, r: t.cat([c(r(2)), r(2)]), F32, F32),
    "stack": (lambda t, c, r: t.stack([c(r(2)), r(2)]), F32, F32),
}
# fmt: on
# torch's oneDNN LSTM refuses float16 (a float32 input under float16 autocast raises there):
# minitorch runs it in float16.
TORCH_RAISES = {("lstm", "float16"), ("lstm_c", "float16"), ("lstm_2layer_bidir", "float16")}
LOW_DTYPES = ("bfloat16", "float16")


def run_case(t, name: str, low: str, low_inputs: bool):
    """The row's output under t.autocast('cpu', low), its inputs float32 or already low."""
    fn = CASES[name][0]
    idt = getattr(t, low if low_inputs else "float32")
    rng = np.random.default_rng(0)

    def r(*shape):
        return t.tensor(rng.standard_normal(shape).astype(np.float32))

    with t.autocast("cpu", dtype=getattr(t, low)):
        return fn(t, lambda x: x.to(idt), r)


def expected(t, name: str, low: str, low_inputs: bool):
    return getattr(t, low) if CASES[name][2 if low_inputs else 1] == LOW else t.float32


@pytest.mark.parametrize("low_inputs", [False, True], ids=["f32_in", "low_in"])
@pytest.mark.parametrize("low", LOW_DTYPES)
@pytest.mark.parametrize("name", list(CASES))
def test_cpu_autocast_dtype(name, low, low_inputs):
    out = run_case(minitorch, name, low, low_inputs)
    want = expected(minitorch, name, low, low_inputs)
    assert out.dtype is want, f"{name} under autocast('cpu', {low}): {out.dtype}, want {want}"


def test_no_autocast_leaves_dtypes_alone():
    x = minitorch.randn(3, 4, dtype=minitorch.bfloat16)
    assert x.prod().dtype is minitorch.bfloat16
    assert minitorch.einsum("ij,kj->ik", x, x).dtype is minitorch.bfloat16
    assert F.pad(x[None], (1, 1), mode="reflect").dtype is minitorch.bfloat16


def test_float32_list_is_cpu_only():
    # the 'strict' test device follows CUDA's lists, where prod and trace are not (yet) cast
    x = minitorch.randn(3, 3, device="strict").to(minitorch.float16)
    with minitorch.autocast("strict", dtype=minitorch.float16):
        assert x.prod().dtype is minitorch.float16
        assert minitorch.einsum("ij,jk->ik", x.float(), x.float()).dtype is minitorch.float16


def test_lstm_gradients_reach_float32_weights():
    lstm = nn.LSTM(4, 3)
    x = minitorch.randn(5, 2, 4)
    with minitorch.autocast("cpu"):
        out, (h, c) = lstm(x)
    assert out.dtype is minitorch.bfloat16
    out.float().sum().backward()
    for p in lstm.parameters():
        assert p.grad is not None and p.grad.dtype is minitorch.float32


def test_einsum_values_close_to_float32():
    a, b = minitorch.randn(2, 3, 4, 5), minitorch.randn(2, 3, 6, 5)
    ref = minitorch.einsum("bhid,bhjd->bhij", a, b)
    with minitorch.autocast("cpu"):
        low = minitorch.einsum("bhid,bhjd->bhij", a, b)
    diff = (low.float() - ref).abs().max().item()
    assert diff < 0.1 * (ref.abs().max().item() + 1), diff
