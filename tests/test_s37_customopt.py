"""Session 37 (helper customopt): torch-free regression tests of the library fixes the custom
optimizer programs of tests/reference/test_s37_customopt_reference.py found: state_dict's
numbering of a parameter listed twice in a group, load_state_dict's float32 `step` for fused or
capturable groups (Optimizer._process_value_according_to_param_policy), the step hooks around
Optimizer.step itself and around a step assigned to a class after its definition
(_patch_step_function, profile_hook_step), Optimizer._group_tensors_by_device_and_dtype, and
torch.optim.optimizer's _device_dtype_check_for_fused, _global_optimizer_pre/post_hooks and
Args, on the CPU and on the strict test device. torch's messages and values are written here
as literals."""

from __future__ import annotations

import warnings

import pytest

import minitorch as mt
from minitorch.optim import optimizer as om


class _Plain(om.Optimizer):
    def __init__(self, params, lr=0.1, **extra):
        super().__init__(params, dict(lr=lr, **extra))

    @mt.no_grad()
    def step(self, closure=None):
        for group in self.param_groups:
            for p in group["params"]:
                if p.grad is not None:
                    p.add_(p.grad, alpha=-group["lr"])


def _param(n, seed=0, dtype=mt.float32):
    g = mt.Generator().manual_seed(seed)
    return mt.nn.Parameter(mt.randn(n, generator=g, dtype=dtype))


def test_state_dict_numbers_a_repeated_parameter_by_its_last_position():
    w, b, c = _param(3, 0), _param(2, 1), _param(2, 2)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # (the duplicate-parameter warning)
        opt = _Plain([w, b, w, c])
    opt.state[w]["m"] = mt.zeros(3)
    sd = opt.state_dict()
    assert sd["param_groups"][0]["params"] == [2, 1, 2, 3]
    assert list(sd["state"]) == [2]
    # a later group keeps the numbers an earlier group gave
    opt.param_groups.append({"params": [c, b, c], "lr": 0.5})
    sd = opt.state_dict()
    assert sd["param_groups"][1]["params"] == [3, 1, 3]


@pytest.mark.parametrize(
    "group, want",
    [({}, mt.float64), ({"fused": True}, mt.float32), ({"capturable": True}, mt.float32),
     ({"fused": None, "capturable": False}, mt.float64)],
)  # fmt: skip
def test_load_state_dict_step_is_float32_in_fused_or_capturable_groups(group, want):
    w = _param(3, 3)
    opt = _Plain([dict(params=[w], **group)])
    opt.state[w]["step"] = mt.tensor(4.0, dtype=mt.float64)
    opt.state[w]["inner"] = {"step": mt.tensor(3)}
    opt.state[w]["count"] = mt.tensor(2)
    opt.load_state_dict(opt.state_dict())
    st = opt.state[w]
    assert st["step"].dtype == want
    assert st["inner"]["step"].dtype == (mt.int64 if want == mt.float64 else mt.float32)
    assert st["count"].dtype == mt.float32  # a non-step tensor takes the parameter's dtype
    assert st["step"].item() == 4.0


def test_load_state_dict_reads_fused_from_the_loaded_groups():
    w = _param(3, 4)
    opt = _Plain([w])
    opt.state[w]["step"] = mt.tensor(1.0, dtype=mt.float64)
    sd = opt.state_dict()
    sd["param_groups"][0]["capturable"] = True
    opt.load_state_dict(sd)
    assert opt.state[w]["step"].dtype == mt.float32


def test_process_value_according_to_param_policy():
    policy = om.Optimizer._process_value_according_to_param_policy
    w = _param(3, 5, dtype=mt.float64)
    t = mt.tensor([1.0, 2.0], dtype=mt.float32)
    groups = [{"params": [0]}, {"params": [1], "fused": True}]
    assert policy(w, t, 0, groups, "step") is t
    assert policy(w, t, 1, groups, "step").dtype == mt.float32
    assert policy(w, t, 1, groups, "exp_avg").dtype == mt.float64
    assert policy(mt.zeros(1, dtype=mt.int64), t, 0, groups).dtype == mt.float32
    with pytest.raises(AssertionError, match="^Expected param_groups to be set$"):
        policy(w, t, 0, None)


def test_subclass_without_step_runs_the_pre_hooks_then_raises():
    class NoStep(om.Optimizer):
        def __init__(self, params):
            super().__init__(params, dict(lr=0.1))

    calls = []
    opt = NoStep([_param(2)])
    opt.register_step_pre_hook(lambda o, a, k: calls.append("pre"))
    opt.register_step_post_hook(lambda o, a, k: calls.append("post"))
    with pytest.raises(NotImplementedError):
        opt.step()
    assert calls == ["pre"]


def test_step_assigned_to_the_class_later_is_hooked_at_init():
    class Late(om.Optimizer):
        def __init__(self, params):
            super().__init__(params, dict(lr=0.1))

    def late_step(self, closure=None):
        calls.append("step")
        return "done"

    calls = []
    Late.step = late_step
    opt = Late([_param(2)])
    assert Late.step is not late_step
    opt.register_step_pre_hook(lambda o, a, k: calls.append("pre"))
    opt.register_step_post_hook(lambda o, a, k: calls.append("post"))
    assert opt.step() == "done"
    assert calls == ["pre", "step", "post"]
    calls.clear()
    wrapped = om.Optimizer.profile_hook_step(late_step)
    assert wrapped(opt) == "done"
    assert calls == ["pre", "step", "post"]


def test_group_tensors_by_device_and_dtype():
    a, b, c = mt.ones(2), mt.zeros(1, dtype=mt.float64), mt.zeros(3)
    grouped = om.Optimizer._group_tensors_by_device_and_dtype([[a, b, c], [None, b, a], []])
    assert list(grouped) == [(a.device, mt.float32), (b.device, mt.float64)]
    lists, idx = grouped[(a.device, mt.float32)]
    assert lists[0][0] is a and lists[0][1] is c and lists[1] == [None, a] and lists[2] == []
    assert idx == []
    lists, idx = grouped[(b.device, mt.float64)]
    assert lists[0][0] is b and lists[1][0] is b
    with_idx = om.Optimizer._group_tensors_by_device_and_dtype([[a, b, c]], with_indices=True)
    assert [v[1] for v in with_idx.values()] == [[0, 2], [1]]
    with pytest.raises(RuntimeError) as info:
        om.Optimizer._group_tensors_by_device_and_dtype([[a, None], [None, None]])
    assert str(info.value) == (
        "Tensors of the first list of nested Tensor lists are supposed to be defined but the "
        "1-th Tensor is not."
    )


def test_device_dtype_check_for_fused():
    om._device_dtype_check_for_fused(mt.ones(2))
    om._device_dtype_check_for_fused(mt.ones(2, dtype=mt.float16), cuda_unsupported=True)
    with pytest.raises(RuntimeError) as info:
        om._device_dtype_check_for_fused(mt.ones(2, dtype=mt.int64))
    assert str(info.value) == (
        "`fused=True` requires all the params to be floating point Tensors of supported "
        "devices: ['mps', 'cuda', 'xpu', 'hpu', 'cpu', 'mtia', 'privateuseone'] but "
        "torch.int64 and cpu"
    )
    with pytest.raises(RuntimeError, match=r"devices: \['mps', 'xpu', 'hpu', 'cpu'"):
        om._device_dtype_check_for_fused(mt.ones(2, dtype=mt.bool), cuda_unsupported=True)


def test_global_hook_dicts_under_torch_names():
    n = len(om._global_optimizer_pre_hooks), len(om._global_optimizer_post_hooks)
    h = om.register_optimizer_step_pre_hook(lambda o, a, k: None)
    h2 = om.register_optimizer_step_post_hook(lambda o, a, k: None)
    try:
        assert len(om._global_optimizer_pre_hooks) == n[0] + 1
        assert len(om._global_optimizer_post_hooks) == n[1] + 1
    finally:
        h.remove()
        h2.remove()
    assert (len(om._global_optimizer_pre_hooks), len(om._global_optimizer_post_hooks)) == n
    assert om.Args == tuple[object, ...] or om.Args.__origin__ is tuple


def test_fused_step_moves_to_the_parameter_device_on_the_strict_device():
    w = mt.nn.Parameter(mt.ones(3, device="strict"))
    opt = _Plain([{"params": [w], "fused": True}])
    opt.state[w]["step"] = mt.tensor(2.0, dtype=mt.float64)  # a CPU step, as saved
    opt.state[w]["m"] = mt.zeros(3, dtype=mt.float64)
    opt.load_state_dict(opt.state_dict())
    st = opt.state[w]
    assert (st["step"].dtype, st["step"].device.type) == (mt.float32, "strict")
    assert (st["m"].dtype, st["m"].device.type) == (mt.float32, "strict")
    om._device_dtype_check_for_fused(w)  # the strict device stands in for CUDA
    with pytest.raises(RuntimeError, match="but torch.float32 and cuda$"):
        om._device_dtype_check_for_fused(w, cuda_unsupported=True)
    grouped = om.Optimizer._group_tensors_by_device_and_dtype([[w, mt.ones(1)]], True)
    assert [(d.type, idx) for (d, _), (_, idx) in grouped.items()] == [
        ("strict", [0]),
        ("cpu", [1]),
    ]
