"""Session 30 (helper compress): torch-free checks of the model-compression behaviour the
reference programs in tests/reference/test_s30_compress_reference.py compare with torch, as
torch 2.13's literals: the fixes made (svd_lowrank's message for fewer than two dimensions, a
bool pruning amount's TypeError, remove_parametrizations refusing a changed dtype, non-finite
and huge values in per-channel and learnable fake quantization) and values the programs lean
on (random pruning masks drawn from the global generator, the stale-hook gotcha of a pruned
out_proj, fake quantization's straight-through gradient)."""

from __future__ import annotations

import numpy as np
import pytest

import minitorch as mt
from minitorch.nn.utils import prune


@pytest.mark.parametrize("shape, got", [((3,), 1), ((), 0)])
def test_svd_lowrank_refuses_a_vector_with_pythons_unpack_message(shape, got):
    want = f"not enough values to unpack (expected 2, got {got})"
    for fn in (mt.svd_lowrank, mt.pca_lowrank):
        with pytest.raises(ValueError) as e:
            fn(mt.ones(shape))
        assert str(e.value) == want


def test_random_pruning_draws_torchs_masks():
    mt.manual_seed(1)
    lin = mt.nn.Linear(6, 5)
    mt.manual_seed(2)
    prune.random_unstructured(lin, "weight", 0.4)
    assert lin.weight_mask.int().tolist() == [
        [0, 1, 0, 1, 0, 0],
        [1, 1, 0, 1, 0, 1],
        [1, 0, 1, 0, 0, 1],
        [1, 0, 1, 1, 1, 0],
        [1, 0, 1, 1, 1, 1],
    ]
    conv = mt.nn.Conv2d(2, 6, 1)
    mt.manual_seed(3)
    prune.random_structured(conv, "weight", amount=3, dim=0)
    assert conv.weight_mask.flatten(1).sum(1).tolist() == [0.0, 2.0, 2.0, 0.0, 2.0, 0.0]


def test_pruned_weight_read_without_its_module_call_keeps_a_freed_graph():
    # MultiheadAttention reads out_proj.weight directly: out_proj's pruning hook never reruns
    mt.manual_seed(0)
    mha = mt.nn.MultiheadAttention(4, 1, batch_first=True)
    prune.l1_unstructured(mha.out_proj, "weight", amount=3)
    x = mt.randn(1, 2, 4)
    mha(x, x, x)[0].sum().backward()
    with pytest.raises(RuntimeError, match="^Trying to backward through the graph a second time"):
        mha(x, x, x)[0].sum().backward()
    assert type(mha.out_proj.weight.grad_fn).__name__ == "MulBackward0"


def test_fake_quantize_straight_through_gradient():
    x = mt.linspace(-3, 3, 13).requires_grad_()
    y = mt.fake_quantize_per_tensor_affine(x, 0.25, 2, -8, 7)
    y.sum().backward()
    assert y.tolist() == [-2.5, -2.5, -2.0, -1.5, -1.0, -0.5, 0.0, 0.5, 1.0, 1.25, 1.25, 1.25, 1.25]
    assert x.grad.tolist() == [0.0] + [1.0] * 8 + [0.0] * 4
    assert type(y.grad_fn).__name__ == "FakeQuantizePerTensorAffineCachemaskBackward0"


@pytest.mark.parametrize(
    "method, op",
    [
        (lambda m: prune.l1_unstructured(m, "weight", True), "topk"),
        (lambda m: prune.random_unstructured(m, "weight", True), "topk"),
        (lambda m: prune.random_structured(m, "weight", True, dim=0), "kthvalue"),
        (lambda m: prune.global_unstructured([(m, "weight")], prune.L1Unstructured, amount=True),
         "topk"),
    ],
)  # fmt: skip
def test_bool_amount_fails_in_the_keyword_wording_of_torchs_count(method, op):
    # a bool is an Integral, so the amount checks let it through; torch's topk/kthvalue, given
    # k by keyword, refuse it without naming a position
    with pytest.raises(TypeError) as e:
        method(mt.nn.Linear(3, 4))
    assert str(e.value) == f"{op}(): argument 'k' must be int, not bool"
    lin = mt.nn.Linear(3, 4)
    prune.ln_structured(lin, "weight", True, n=1, dim=0)  # torch keeps n - True channels
    assert lin.weight_mask.sum(1).tolist().count(0.0) == 1


class _ToDouble(mt.nn.Module):
    def forward(self, X):
        return X.double()


def test_remove_parametrizations_refuses_to_leave_another_dtype_in_place():
    # an unsafe parametrization that changes the dtype: torch's set_ refuses to put the float64
    # value into the float32 original (wrapped in its tensor-subclass message for a Parameter)
    P = mt.nn.utils.parametrize
    lin = mt.nn.Linear(3, 2)
    P.register_parametrization(lin, "weight", _ToDouble(), unsafe=True)
    with pytest.raises(RuntimeError) as e:
        P.remove_parametrizations(lin, "weight")
    assert str(e.value).startswith(
        "Calling remove_parametrizations() with leave_parametrized=True for a parameter that is "
        "an instance of a tensor subclass requires set_() to be implemented correctly for the "
        "tensor subclass.Alternatively, one can opt into the swap_tensors pathEither set "
    )
    assert str(e.value.__cause__) == "Could not set tensor of type double to a tensor of type float"
    assert P.is_parametrized(lin, "weight")
    P.remove_parametrizations(lin, "weight", leave_parametrized=False)
    assert lin.weight.dtype == mt.float32 and type(lin).__name__ == "Linear"

    buf = mt.nn.Linear(3, 2)
    del buf.weight
    buf.register_buffer("weight", mt.ones(2, 3))
    P.register_parametrization(buf, "weight", _ToDouble(), unsafe=True)
    with pytest.raises(RuntimeError, match="^Could not set tensor of type double to a tensor of "):
        P.remove_parametrizations(buf, "weight")


_ODD = [float("inf"), -float("inf"), float("nan"), 1e30, -1e30, 0.3]


@pytest.mark.parametrize("dtype", [mt.float32, mt.float64])
def test_per_channel_fake_quantize_sends_non_finite_and_huge_values_to_quant_min(dtype):
    # torch's per-channel CPU kernels turn q into an int64 before the clamp (INT64_MIN for NaN,
    # infinities and values past its range); the per-tensor kernel clamps the float
    x = mt.tensor([_ODD], dtype=dtype)
    s, zi, zf = mt.tensor([0.1]), mt.tensor([2], dtype=mt.int32), mt.tensor([2.0])
    low = [[-13.0] * 5 + [0.3]]  # (dequantized in float64 with the float32 scale)
    for zp in (zi, zf):
        got = mt.fake_quantize_per_channel_affine(x, s, zp, 0, -128, 127)
        np.testing.assert_allclose(got.numpy(), low, rtol=1e-6, err_msg=str(zp.dtype))
    big = mt.tensor([[9.2e18, 9.3e18]], dtype=dtype)
    one = mt.tensor([1.0]), mt.tensor([3], dtype=mt.int32)
    assert mt.fake_quantize_per_channel_affine(big, *one, 0, -128, 127).tolist() == [
        [124.0, -131.0]
    ]
    pt = mt.fake_quantize_per_tensor_affine(x[0], 0.1, 2, -128, 127).tolist()
    assert pt[:5] == [12.5, -13.0, -13.0, 12.5, -13.0]


def test_learnable_fake_quantize_reads_non_finite_values_as_below_the_range():
    # the backward's q is an int64 in torch: +inf, NaN and 1e30 count as below quant_min
    x = mt.tensor(_ODD, requires_grad=True)
    s, z = mt.tensor([0.1], requires_grad=True), mt.tensor([2.0], requires_grad=True)
    y = mt._fake_quantize_learnable_per_tensor_affine(x, s, z, -128, 127, 1.0)
    (y.nan_to_num() * mt.arange(1.0, 7.0)).sum().backward()
    assert y.tolist()[:5] == [12.5, -13.0, -13.0, 12.5, -13.0]
    assert x.grad.tolist() == [0.0] * 5 + [6.0]
    assert s.grad.tolist() == [-1950.0]
    assert z.grad.tolist() == [pytest.approx(-1.5, rel=1e-6)]
