"""Regression tests of the fixes made reviewing session 29's commits (torch's values as
literals; torch-free)."""

from __future__ import annotations

import threading

import minitorch as torch
from minitorch.utils.flop_counter import FlopCounterMode


def _linear_and_input():
    torch.manual_seed(0)
    return torch.nn.Linear(4, 3), torch.randn(2, 4, requires_grad=True)


def test_nested_flop_counter_modes_both_count():
    # torch: an outer mode sees the ops an inner one counted (144 = 48 forward + 96 backward)
    lin, x = _linear_and_input()
    with FlopCounterMode(display=False) as outer:
        with FlopCounterMode(display=False) as inner:
            y = lin(x).sum()
        y.backward()
    assert outer.get_total_flops() == 144
    assert inner.get_total_flops() == 48
    counts = {m: {str(k): v for k, v in d.items()} for m, d in outer.get_flop_counts().items()}
    assert counts == {
        "Global": {"aten.addmm": 48, "aten.mm": 96},
        "Linear": {"aten.addmm": 48, "aten.mm": 96},
    }


def test_flop_counter_outer_mode_exiting_first_keeps_inner_counting():
    from minitorch._ops import nn_kernels

    forward = nn_kernels.Linear.__dict__["forward"]
    lin, x = _linear_and_input()
    outer, inner = FlopCounterMode(display=False), FlopCounterMode(display=False)
    outer.__enter__()
    inner.__enter__()
    outer.__exit__(None, None, None)
    lin(x)
    inner.__exit__(None, None, None)
    assert inner.get_total_flops() == 48
    assert nn_kernels.Linear.__dict__["forward"] is forward  # restored when the last exits


def test_flop_counter_mode_ignores_other_threads():
    # torch's modes are per thread: an op of another thread is not counted
    lin, x = _linear_and_input()
    with FlopCounterMode(display=False) as mode:
        t = threading.Thread(target=lambda: lin(x))
        t.start()
        t.join()
    assert mode.get_total_flops() == 0


def test_flop_counter_restores_functions_after_an_exception():
    from minitorch._ops import nn_kernels

    before = dict(nn_kernels.Linear.__dict__)
    lin, x = _linear_and_input()
    try:
        with FlopCounterMode(display=False):
            lin(x).sum().backward()
            raise ValueError("inside")
    except ValueError:
        pass
    after = dict(nn_kernels.Linear.__dict__)
    assert {k for k in before if before[k] is not after.get(k)} == set()


def _type_error(fn) -> str:
    try:
        fn()
    except TypeError as e:
        return str(e)
    raise AssertionError("no TypeError")


def test_reduction_dim_none_with_non_bool_keepdim():
    # an explicit dim=None names the dim overload: torch words keepdim's own error
    x = torch.arange(6.0).reshape(2, 3)
    assert _type_error(lambda: x.sum(None, keepdim=1)) == (
        "sum(): argument 'keepdim' must be bool, not int"
    )
    assert _type_error(lambda: x.sum(dim=None, keepdim=1)) == (
        "sum(): argument 'keepdim' must be bool, not int"
    )
    assert _type_error(lambda: x.sum(None, keepdim=None)) == (
        "sum(): argument 'keepdim' must be bool, not NoneType"
    )
    assert _type_error(lambda: x.mean(None, keepdim=1)) == (
        "mean(): argument 'keepdim' must be bool, not int"
    )
    assert _type_error(lambda: x.sum(0, keepdim=1)) == (
        "sum(): argument 'keepdim' must be bool, not int"
    )


def _global_counts(fn) -> dict:
    torch.manual_seed(0)
    with FlopCounterMode(display=False) as mode:
        fn()
    return {str(k): v for k, v in mode.get_flop_counts()["Global"].items()}


def test_flop_counter_autograd_grad_counts_only_the_gradients_asked_for():
    # torch's engine computes only the input gradients autograd.grad uses
    def grad_x():
        w = torch.randn(3, 4, requires_grad=True)
        x = torch.randn(2, 4, requires_grad=True)
        torch.autograd.grad((x @ w.t()).tanh().sum(), x)

    def grad_w_linear():
        w = torch.randn(3, 4, requires_grad=True)
        x = torch.randn(2, 4, requires_grad=True)
        y = torch.nn.functional.linear(x, w, torch.randn(3)).tanh().sum()
        torch.autograd.grad(y, w)

    assert _global_counts(grad_x) == {"aten.mm": 96}
    assert _global_counts(grad_w_linear) == {"aten.addmm": 48, "aten.mm": 48}


def test_flop_counter_counts_the_backward_of_a_created_graph():
    # a gradient penalty: the products a create_graph backward ran are counted by their backward
    F = torch.nn.functional

    def penalty(make):
        def run():
            x, y = make()
            (g,) = torch.autograd.grad(y.tanh().sum(), x, create_graph=True)
            g.pow(2).sum().backward()

        return run

    def mm():
        w, x = torch.randn(3, 4, requires_grad=True), torch.randn(2, 4, requires_grad=True)
        return x, x @ w.t()

    def linear():
        w, b = torch.randn(3, 4, requires_grad=True), torch.randn(3, requires_grad=True)
        x = torch.randn(2, 5, 4, requires_grad=True)
        return x, F.linear(x, w, b)

    def bmm():
        a, b = torch.randn(2, 3, 4, requires_grad=True), torch.randn(2, 4, 5, requires_grad=True)
        return a, torch.bmm(a, b)

    def einsum():
        a, b = torch.randn(2, 3, 4, requires_grad=True), torch.randn(2, 4, 5, requires_grad=True)
        return a, torch.einsum("bij,bjk->bik", a, b)

    assert _global_counts(penalty(mm)) == {"aten.mm": 288}
    assert _global_counts(penalty(linear)) == {"aten.addmm": 240, "aten.mm": 1200}
    assert _global_counts(penalty(bmm)) == {"aten.bmm": 1440}
    assert _global_counts(penalty(einsum)) == {"aten.bmm": 1440}


def test_module_tracker_renames_a_child_that_ran_alone_first():
    # torch names a module's subtree the first time the module runs
    from minitorch.utils.module_tracker import ModuleTracker

    seen = []

    class Rec(torch.nn.Module):
        def forward(self, x):
            seen.append(sorted(tracker.parents))
            return x

    class Net(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.head = Rec()

        def forward(self, x):
            return self.head(x)

    net = Net()
    with ModuleTracker() as tracker:
        net.head(torch.zeros(1))
        net(torch.zeros(1))
    assert seen == [["Global", "Rec"], ["Global", "Net", "Net.head"]]
