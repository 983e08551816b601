"""minitorch.utils.flop_counter.FlopCounterMode and minitorch.utils.module_tracker: the counts,
module breakdowns and tables torch 2.13 gives for the same programs, written out as literals."""

from __future__ import annotations

import pytest

import minitorch as torch
from minitorch import nn
from minitorch._ops import linalg, nn_kernels
from minitorch.utils import flop_counter
from minitorch.utils.flop_counter import FlopCounterMode
from minitorch.utils.module_tracker import ModuleTracker

MLP_TABLE = """\
Module           FLOP    % Total
------------  -------  ---------
Sequential    22.528K    100.00%
- aten.addmm  10.240K     45.45%
- aten.mm     12.288K     54.55%
Sequential.0  16.384K     72.73%
- aten.addmm   8.192K     36.36%
- aten.mm      8.192K     36.36%
Sequential.2   6.144K     27.27%
- aten.addmm   2.048K      9.09%
- aten.mm      4.096K     18.18%"""

EMPTY_TABLE = """\
Module      FLOP    % Total
--------  ------  ---------
Global         0         0%"""

GLOBAL_TABLE = """\
Module        FLOP    % Total
----------  ------  ---------
Global         480    100.00%
- aten.mm      240     50.00%
- aten.bmm     240     50.00%"""


def _counts(fc):
    return {
        k: {str(op): n for op, n in sorted(v.items(), key=lambda kv: str(kv[0]))}
        for k, v in sorted(fc.get_flop_counts().items())
    }


def _mlp():
    torch.manual_seed(0)
    return nn.Sequential(nn.Linear(16, 32), nn.ReLU(), nn.Linear(32, 4))


def test_mlp_forward_and_backward(capsys):
    model = _mlp()
    x = torch.randn(8, 16)
    with FlopCounterMode(display=True, depth=2) as fc:
        model(x).sum().backward()
    assert capsys.readouterr().out == MLP_TABLE + "\n"
    assert fc.get_total_flops() == 22528
    assert _counts(fc) == {
        "Global": {"aten.addmm": 10240, "aten.mm": 12288},
        "Sequential": {"aten.addmm": 10240, "aten.mm": 12288},
        "Sequential.0": {"aten.addmm": 8192, "aten.mm": 8192},
        "Sequential.2": {"aten.addmm": 2048, "aten.mm": 4096},
    }
    key = next(iter(fc.get_flop_counts()["Global"]))
    assert repr(key) == "<OpOverloadPacket(op='aten.addmm')>" and key is torch.ops.aten.addmm
    assert flop_counter._simple_table(_rows(fc), ["Module", "FLOP", "% Total"]) == MLP_TABLE


def _rows(fc):
    """The rows get_table hands to tabulate, rebuilt from its own output's cells."""
    lines = fc.get_table().splitlines()[2:]
    return [line.rsplit(None, 2) for line in lines]


def test_batched_inputs_and_input_gradients():
    model = _mlp()
    x = torch.randn(2, 5, 16, requires_grad=True)
    with FlopCounterMode(display=False) as fc:
        model(x).sum().backward()
    assert _counts(fc) == {
        "Global": {"aten.addmm": 12800, "aten.mm": 25600},
        "Sequential": {"aten.addmm": 12800, "aten.mm": 25600},
        "Sequential.0": {"aten.addmm": 10240, "aten.mm": 20480},
        "Sequential.2": {"aten.addmm": 2560, "aten.mm": 5120},
    }


def test_products_and_their_folding():
    with FlopCounterMode(display=False) as fc:
        a = torch.randn(3, 4, 5, requires_grad=True)
        b = torch.randn(3, 5, 6)
        (a @ b).sum().backward()
        torch.randn(4, 5) @ torch.randn(5, 6)
        torch.randn(2, 3, 4, 5) @ torch.randn(5, 2)  # folded into one mm
        torch.einsum("bij,bjk->bik", a, b)
        torch.randn(2, 3, 4, 5) @ torch.randn(5)  # an mv: not counted
        torch.randn(5) @ torch.randn(5, 2)
        torch.randn(2, 1, 4, 5) @ torch.randn(3, 5, 6)  # broadcast batch: one bmm
    assert _counts(fc) == {"Global": {"aten.bmm": 3600, "aten.mm": 740}}
    with FlopCounterMode(display=False) as fc:
        torch.randn(4, 3, 5).transpose(0, 1) @ torch.randn(5, 6)  # no view as one matrix: bmm
    assert _counts(fc) == {"Global": {"aten.bmm": 720}}
    with FlopCounterMode(display=False) as fc:  # folded (a copy) when the matrix needs a grad
        torch.randn(4, 3, 5).transpose(0, 1) @ torch.randn(5, 6, requires_grad=True)
    assert _counts(fc) == {"Global": {"aten.mm": 720}}
    with FlopCounterMode(display=False) as fc:
        torch.mm(torch.randn(3, 4), torch.randn(4, 5))
        torch.bmm(torch.randn(2, 3, 4), torch.randn(2, 4, 5))
        nn.functional.linear(torch.randn(3, 4), torch.randn(5, 4))
    assert fc.get_table() == GLOBAL_TABLE


@pytest.mark.parametrize(
    "eq, shapes, forward, both",
    [
        ("ij,jk,kl->il", [(3, 4), (4, 5), (5, 2)], 180, 540),
        ("ij,ij->", [(3, 4), (3, 4)], 24, 72),
        ("bi,bj->bij", [(3, 4), (3, 4)], 0, 0),  # nothing summed: a multiply
        ("ij,jk->ik", [(3, 4), (4, 5)], 120, 360),
        ("bij,bjk->bik", [(2, 3, 4), (2, 4, 5)], 240, 720),
        ("ij->j", [(3, 4)], 0, 0),
        ("ij,jk->", [(3, 4), (4, 5)], 8, 24),
        ("bij,bjk->bk", [(2, 3, 4), (2, 4, 5)], 80, 240),
        ("ij,j->i", [(3, 4), (4,)], 24, 72),
    ],
)
def test_einsum_counts_pairwise_bmms(eq, shapes, forward, both):
    ops = [torch.randn(*s, requires_grad=True) for s in shapes]
    with FlopCounterMode(display=False) as fc:
        torch.einsum(eq, *ops)
    assert fc.get_total_flops() == forward
    with FlopCounterMode(display=False) as fc:
        torch.einsum(eq, *ops).sum().backward()
    assert fc.get_total_flops() == both


def test_convolutions():
    torch.manual_seed(0)
    conv = nn.Conv2d(3, 8, 3, padding=1)
    with FlopCounterMode(display=False) as fc:
        conv(torch.randn(2, 3, 10, 10)).sum().backward()
        conv(torch.randn(2, 3, 10, 10, requires_grad=True)).sum().backward()
        nn.Conv2d(4, 8, 3, stride=2, groups=2)(
            torch.randn(2, 4, 9, 9, requires_grad=True)
        ).sum().backward()
        nn.ConvTranspose2d(4, 6, 3, stride=2)(
            torch.randn(2, 4, 5, 5, requires_grad=True)
        ).sum().backward()
        nn.Conv1d(2, 3, 5, dilation=2)(torch.randn(4, 2, 20))
    assert _counts(fc) == {
        "Conv1d": {"aten.convolution": 2880},
        "Conv2d": {"aten.convolution": 182016, "aten.convolution_backward": 286848},
        "ConvTranspose2d": {"aten.convolution": 21600, "aten.convolution_backward": 43200},
        "Global": {"aten.convolution": 206496, "aten.convolution_backward": 330048},
    }


def test_cpu_attention_and_rnns_count_nothing(capsys):
    q = torch.randn(2, 4, 16, 8, requires_grad=True)
    with FlopCounterMode(display=True) as fc:
        torch.nn.functional.scaled_dot_product_attention(q, q, q).sum().backward()
    assert capsys.readouterr().out == EMPTY_TABLE + "\n"
    assert fc.get_flop_counts() == {"Global": {}}
    lstm = nn.LSTM(4, 8, batch_first=True)
    with FlopCounterMode(display=False) as fc:
        lstm(torch.randn(2, 5, 4))[0].sum().backward()
    assert fc.get_flop_counts() == {}
    with FlopCounterMode(display=False) as fc:
        pass
    assert fc.get_table() == EMPTY_TABLE


def test_attention_on_a_device_counts_the_fused_kernel():
    q = torch.randn(2, 4, 16, 8, device="strict", requires_grad=True)
    with FlopCounterMode(display=False) as fc:
        torch.nn.functional.scaled_dot_product_attention(q, q, q).sum().backward()
    assert _counts(fc) == {
        "Global": {
            "aten._scaled_dot_product_efficient_attention": 65536,
            "aten._scaled_dot_product_efficient_attention_backward": 163840,
        }
    }
    assert flop_counter.sdpa_flop_count((2, 4, 16, 8), (2, 4, 16, 8), (2, 4, 16, 8)) == 65536


def test_no_grad_and_large_counts_use_suffixes():
    torch.manual_seed(0)
    big = nn.Sequential(nn.Linear(512, 1024), nn.GELU(), nn.Linear(1024, 512))
    with FlopCounterMode(display=False, depth=1) as fc, torch.no_grad():
        big(torch.randn(64, 512))
    assert fc.get_table() == (
        "Module            FLOP    % Total\n"
        "------------  --------  ---------\n"
        "Sequential    134.218M    100.00%\n"
        "- aten.addmm  134.218M    100.00%"
    )
    assert flop_counter.get_suffix_str(1_001_000_000) == "M"
    assert flop_counter.convert_num_with_suffix(1_001_000_000, "M") == "1001.000M"
    assert flop_counter.convert_to_percent_str(1, 3) == "33.33%"


def test_nested_modules_and_repeated_calls():
    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.enc = nn.Sequential(nn.Linear(4, 4), nn.Linear(4, 4))
            self.head = nn.Linear(4, 2)

        def forward(self, x):
            return self.head(self.enc(x) + self.enc(x))

    torch.manual_seed(0)
    net = Net()
    with FlopCounterMode(display=False, depth=3) as fc:
        net(torch.randn(3, 4)).sum().backward()
    counts = _counts(fc)
    # torch files some of enc.1's backward under enc.0 too (384); here each backward product
    # goes to the module whose forward ran it
    assert counts["Net.enc.0"] == {"aten.addmm": 192, "aten.mm": 192}
    assert counts["Net.enc.1"] == {"aten.addmm": 192, "aten.mm": 384}
    assert counts["Net"] == counts["Global"] == {"aten.addmm": 432, "aten.mm": 672}
    assert counts["Net.head"] == {"aten.addmm": 48, "aten.mm": 96}


def test_the_wrapped_functions_are_restored():
    before = (linalg.Mm.__dict__["forward"], nn_kernels.Linear.__dict__["_backward_data"])
    model = _mlp()
    model(torch.randn(2, 16)).sum().backward()  # the node classes exist before the mode
    node_cls = nn_kernels.Linear._backward_cls
    data_bw = node_cls.__dict__["_data_bw"]
    with FlopCounterMode(display=False):
        assert linalg.Mm.__dict__["forward"] is not before[0]
        with FlopCounterMode(display=False) as inner:  # nested: both count
            model(torch.randn(2, 16))
        assert inner.get_total_flops() == 2 * 2 * 16 * 32 + 2 * 2 * 32 * 4
    after = (linalg.Mm.__dict__["forward"], nn_kernels.Linear.__dict__["_backward_data"])
    assert after == before and node_cls.__dict__["_data_bw"] is data_bw
    x = torch.randn(3, 4, requires_grad=True)
    (x @ torch.randn(4, 2)).sum().backward()  # and plain use still works
    assert x.grad.shape == (3, 4)


def test_mods_argument_warns():
    with pytest.warns(UserWarning, match="mods argument is not needed anymore"):
        FlopCounterMode(nn.Linear(2, 2), display=False)


def test_custom_mapping_for_library_operators():
    @torch.library.custom_op("t_flops::scale", mutates_args=())
    def scale(x: torch.Tensor) -> torch.Tensor:
        return (x @ x.t()) * 2  # not counted: torch sees the operator, not its inside

    def formula(x_shape, out_shape=None):
        return 7 * x_shape[0]

    with FlopCounterMode(display=False, custom_mapping={torch.ops.t_flops.scale: formula}) as fc:
        scale(torch.randn(3, 4))
    assert _counts(fc) == {"Global": {"t_flops.scale": 21}}
    with FlopCounterMode(display=False) as fc:
        scale(torch.randn(3, 4))
    assert fc.get_flop_counts() == {}


def test_module_tracker_parents_and_backward():
    seen = []

    class Probe(nn.Module):
        def __init__(self, tracker):
            super().__init__()
            self.tracker = tracker
            self.lin = nn.Linear(2, 2)

        def forward(self, x):
            seen.append(("fw", sorted(self.tracker.parents), self.tracker.is_bw))
            y = self.lin(x)
            y.register_hook(
                lambda g: seen.append(("bw", sorted(self.tracker.parents), self.tracker.is_bw))
            )
            return y

    tracker = ModuleTracker()
    model = nn.Sequential(Probe(tracker))
    with tracker:
        model(torch.randn(1, 2, requires_grad=True)).sum().backward()
        assert tracker.parents == {"Global"}
    assert seen == [  # torch's: the hook registered inside runs before the outer modules'
        ("fw", ["Global", "Sequential", "Sequential.0"], False),
        ("bw", ["Global", "Sequential.0.lin"], True),
    ]
    tracker = ModuleTracker()
    model = nn.Sequential(nn.Linear(2, 2), nn.Linear(2, 2))
    log = []
    model[1].weight.register_hook(lambda g: log.append(sorted(tracker.parents)))
    model[0].weight.register_hook(lambda g: log.append(sorted(tracker.parents)))
    with tracker:
        model(torch.randn(1, 2)).sum().backward()  # the input needs no gradient
        assert tracker.parents == {"Global"} and not tracker.is_bw
    assert log == [
        ["Global", "Sequential", "Sequential.1"],
        ["Global", "Sequential", "Sequential.0"],
    ]


def test_queue_callback_runs_when_backward_ends():
    x = torch.ones(2, requires_grad=True)
    log = []

    def hook(g):
        torch.autograd.Variable._execution_engine.queue_callback(lambda: log.append("end"))
        log.append("hook")
        return g

    y = x * 2
    y.register_hook(hook)
    y.sum().backward()
    assert log == ["hook", "end"]
    with pytest.raises(
        RuntimeError, match="^Final callbacks can only be installed during backward"
    ):
        torch.autograd.Variable._execution_engine.queue_callback(lambda: None)


def test_linear_of_a_transposed_batch_takes_torchs_matmul_path():
    torch.manual_seed(0)
    w = torch.randn(5, 16, requires_grad=True)
    b = torch.randn(5, requires_grad=True)
    x = torch.randn(6, 2, 16).transpose(0, 1)
    y = nn.functional.linear(x, w, b)
    names, f = [], y.grad_fn
    while f is not None and len(names) < 3:
        names.append(type(f).__name__)
        f = f.next_functions[0][0]
    assert names == ["AddBackward0", "UnsafeViewBackward0", "MmBackward0"]
    torch.testing.assert_close(y, x @ w.t() + b)
    mha = nn.MultiheadAttention(16, 2, batch_first=True)
    xx = torch.randn(2, 6, 16)
    with FlopCounterMode(display=False) as fc:
        mha(xx, xx, xx, need_weights=False)
    assert _counts(fc)["Global"] == {"aten.addmm": 6144, "aten.mm": 18432}


def test_linear_of_an_unfoldable_batch_with_a_frozen_weight_stays_batched():
    torch.manual_seed(0)
    w, b = torch.randn(5, 16), torch.randn(5)
    x = torch.randn(6, 2, 16).transpose(0, 1).requires_grad_()
    with FlopCounterMode(display=False) as fc:
        y = nn.functional.linear(x, w, b)
        y.sum().backward()
    assert _counts(fc) == {"Global": {"aten.bmm": 3840}}  # torch's: its matmul does not fold
    assert [type(y.grad_fn).__name__, type(y.grad_fn.next_functions[0][0]).__name__] == [
        "AddBackward0",
        "UnsafeViewBackward0",
    ]
    torch.testing.assert_close(y, x @ w.t() + b)


def test_register_flop_formula_for_a_library_operator():
    @torch.library.custom_op("t_regflop::f", mutates_args=())
    def f(x: torch.Tensor) -> torch.Tensor:
        return x.clone()

    wrapped = flop_counter.register_flop_formula(torch.ops.t_regflop.f)(
        lambda x_shape, out_shape=None: 5 * x_shape[0]
    )
    assert wrapped(torch.ones(3), out_val=torch.ones(3)) == 15  # shapes from tensors
    with FlopCounterMode(display=False) as fc:
        f(torch.ones(2))
    assert _counts(fc) == {"Global": {"t_regflop.f": 10}}
    with pytest.raises(RuntimeError, match="^duplicate registrations for t_regflop.f$"):
        flop_counter.register_flop_formula(torch.ops.t_regflop.f)(lambda *a, **k: 1)
    with pytest.raises(ValueError, match="expected each target to be OpOverloadPacket"):
        flop_counter.register_flop_formula("t_regflop::f")(lambda *a, **k: 1)
