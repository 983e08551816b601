"""Session 31 (helper lora): torch-free checks of what the parameter-efficient fine-tuning
programs in tests/reference/test_s31_lora_reference.py found and lean on: a post-accumulate-grad
hook that returns a tensor is checked as any hook's result (type, then size) before it is
refused, as torch does; LoRA initialisation, merging, adapter state_dicts, parametrizations,
checkpointing and int8/nf4 arithmetic behave as torch 2.13 does (its values and messages are
written below as literals)."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest

import minitorch as mt

nn = mt.nn


def _backward_with_post_hook(hook):
    p = nn.Parameter(mt.ones(2))
    p.register_post_accumulate_grad_hook(hook)
    (p * 2).sum().backward()
    return p


def myhook(p):
    return mt.ones(3)


@pytest.mark.parametrize(
    "hook, error, message",
    [
        (lambda p: mt.ones(1), RuntimeError, "hook '<lambda>' has changed the size of value"),
        (myhook, RuntimeError, "hook 'myhook' has changed the size of value"),
        (
            lambda p: mt.ones(1, dtype=mt.float64),
            RuntimeError,
            "hook '<lambda>' has changed the type of value (was torch.FloatTensor got "
            "torch.DoubleTensor)",
        ),
        (lambda p: p * 2, RuntimeError, "Tensor post accumulate grad hooks should return None."),
        (lambda p: p.grad, RuntimeError, "Tensor post accumulate grad hooks should return None."),
        (lambda p: 3, TypeError, "expected Variable, but hook returned 'int'"),
        (lambda p: (1,), TypeError, "expected Variable, but hook returned 'tuple'"),
    ],
)
def test_post_accumulate_grad_hook_results_are_checked_like_torch(hook, error, message):
    with pytest.raises(error) as info:
        _backward_with_post_hook(hook)
    assert str(info.value) == message


def test_post_accumulate_grad_hook_may_return_none_or_the_leaf():
    assert _backward_with_post_hook(lambda p: None).grad.tolist() == [2.0, 2.0]
    assert _backward_with_post_hook(lambda p: p).grad.tolist() == [2.0, 2.0]


def test_optimizer_in_backward_steps_each_adapter_parameter():
    a = nn.Parameter(mt.tensor([1.0, 2.0], dtype=mt.float64))
    opt = mt.optim.SGD([a], lr=0.5)

    def step(p):
        opt.step()
        opt.zero_grad()

    a.register_post_accumulate_grad_hook(step)
    (a * mt.tensor([3.0, -1.0], dtype=mt.float64)).sum().backward()
    assert a.tolist() == [-0.5, 2.5]
    assert a.grad is None


def test_lora_a_init_and_merge_round_trip():
    mt.manual_seed(0)
    a = mt.empty(2, 4, dtype=mt.float64)
    nn.init.kaiming_uniform_(a, a=math.sqrt(5))
    want = [
        [0.470053001806553, 0.20781986439978792, -0.04061705687254912, 0.42074768412196023],
        [0.14502412012276475, 0.2911478921803036, -0.321393824799249, -0.14889237560607158],
    ]
    np.testing.assert_allclose(a.numpy(), want, rtol=1e-15, err_msg="kaiming_uniform_ (a=sqrt 5)")
    base = nn.Linear(4, 3).to(mt.float64).requires_grad_(False)
    b = mt.full((3, 2), 0.25, dtype=mt.float64)
    w0 = base.weight.clone()
    x = mt.linspace(-1, 1, 8, dtype=mt.float64).view(2, 4)
    y = base(x) + x @ a.T @ b.T * 2.0
    with mt.no_grad():
        base.weight.addmm_(b, a, alpha=2.0)
    np.testing.assert_allclose(base(x).numpy(), y.numpy(), rtol=1e-13, err_msg="merged")
    with mt.no_grad():
        base.weight.sub_(b @ a * 2.0)
    np.testing.assert_allclose(base.weight.numpy(), w0.numpy(), atol=1e-15, err_msg="unmerged")


def test_adapter_state_dict_loading():
    lin = nn.Linear(4, 3)
    res = lin.load_state_dict({"weight": mt.zeros(3, 4), "extra": mt.zeros(1)}, strict=False)
    assert repr(res) == "_IncompatibleKeys(missing_keys=['bias'], unexpected_keys=['extra'])"
    with pytest.raises(RuntimeError) as info:
        lin.load_state_dict({"weight": mt.zeros(3, 4)})
    assert str(info.value) == (
        'Error(s) in loading state_dict for Linear:\n\tMissing key(s) in state_dict: "bias". '
    )
    m = nn.Sequential(nn.Linear(2, 2))
    m[0].register_state_dict_post_hook(lambda mod, sd, prefix, meta: sd)
    with pytest.raises(RuntimeError, match="^state_dict post-hook must return None$"):
        m.state_dict()


def test_low_rank_parametrization_with_two_originals():
    P = nn.utils.parametrize

    class Split(nn.Module):
        def forward(self, A, B):
            return A @ B

        def right_inverse(self, W):
            return W[:, :2], mt.eye(2, 4)

    lin = nn.Linear(4, 3)
    P.register_parametrization(lin, "weight", Split())
    names = ["bias", "parametrizations.weight.original0", "parametrizations.weight.original1"]
    assert [n for n, _ in lin.named_parameters()] == names
    assert list(lin.state_dict()) == names
    with pytest.raises(ValueError) as info:
        P.remove_parametrizations(lin, "weight", False)
    assert str(info.value) == (
        "Cannot leave unparametrized (`leave_parametrized=False`) a tensor that is parametrized "
        "in terms of a sequence of tensors."
    )

    class Half(nn.Module):
        def forward(self, X):
            return X.half()

    with pytest.raises(ValueError) as info:
        P.register_parametrization(nn.Linear(2, 2), "weight", Half())
    assert str(info.value) == (
        "Registering a parametrization may not change the dtype of the tensor, unless `unsafe` "
        "flag is enabled.\nunparametrized dtype: torch.float32\nparametrized dtype: torch.float16"
    )


def test_checkpoint_and_func_messages():
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        out = mt.utils.checkpoint.checkpoint(lambda a: a * 2, mt.ones(2), use_reentrant=True)
    assert [str(w.message) for w in caught] == [
        "None of the inputs have requires_grad=True. Gradients will be None"
    ]
    assert not out.requires_grad
    fn = mt.func.grad_and_value(lambda a: (a.sum(), 3), has_aux=True)
    with pytest.raises(
        RuntimeError, match="^Expected tensors, got unsupported type <class 'int'>$"
    ):
        fn(mt.ones(2))


def test_int8_and_packing_arithmetic():
    i8 = mt.int8
    assert (mt.tensor([-128, -1, 64, 127], dtype=i8) >> 2).tolist() == [-32, -1, 16, 31]
    assert (mt.tensor([1, 64, 127], dtype=i8) << 1).tolist() == [2, -128, -2]
    assert mt.tensor([1.7, -1.7, 126.6, -127.9]).to(i8).tolist() == [1, -1, 126, -127]
    u8 = mt.tensor([3], dtype=mt.uint8) - mt.tensor([5], dtype=mt.uint8)
    assert u8.tolist() == [254]
    s = mt.tensor([100, 100], dtype=i8)
    assert (s.sum().item(), s.sum().dtype) == (200, mt.int64)
    assert s.sum(dtype=i8).item() == -56
    assert mt.tensor([200, 100], dtype=mt.uint8).cumsum(0).tolist() == [200, 300]
    with pytest.raises(RuntimeError) as info:
        mt.tensor([1, 2], dtype=i8).mean()
    assert str(info.value) == (
        "mean(): could not infer output dtype. Input dtype must be either a floating point or "
        "complex dtype. Got: Char"
    )
    with pytest.raises(RuntimeError) as info:
        mt.zeros(3, dtype=mt.uint8).view(mt.int16)
    assert str(info.value) == (
        "self.size(-1) must be divisible by 2 to view Byte as Short (different element sizes), "
        "but got 3"
    )
    assert mt.tensor([1.0, -2.0], dtype=mt.float16).view(mt.int16).tolist() == [15360, -16384]
    bf = mt.tensor([1.0, -2.0], dtype=mt.bfloat16).view(mt.uint8)
    assert bf.tolist() == [128, 63, 0, 192]
    codes = mt.tensor([3, 15, 0, 9], dtype=mt.uint8)
    packed = (codes[0::2] << 4) | codes[1::2]
    assert packed.tolist() == [63, 9]
    assert mt.stack([packed >> 4, packed & 0xF], dim=1).flatten().tolist() == [3, 15, 0, 9]
