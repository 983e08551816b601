"""Session 29 (helper rnn): torch-free checks of the recurrent-layer fixes the reference programs
in tests/reference/test_s29_rnn_reference.py found: RNN layers keep torch's _flat_weights list
and read a changed weight as often as torch does (so a random parametrization of weight_hh, the
DropConnect of AWD-LSTM, draws what torch's draws), torch's checking methods of RNNBase/LSTM
that subclasses with their own forward call, and torch._VF. The counts and messages below are
torch 2.13's."""

from __future__ import annotations

import copy
import io

import numpy as np
import pytest

import minitorch as mt

nn = mt.nn
P = nn.utils.parametrize


class _Counting(nn.Module):
    def __init__(self):
        super().__init__()
        self.calls = 0

    def forward(self, w):
        self.calls += 1
        return w * 2


def test_parametrized_weights_are_read_as_often_as_torch_reads_them():
    lstm = nn.LSTM(3, 4, 2)
    first, second = _Counting(), _Counting()
    P.register_parametrization(lstm, "weight_hh_l0", first)
    P.register_parametrization(lstm, "weight_ih_l1", second)
    assert (first.calls, second.calls) == (1, 1)  # registration checks the output once
    lstm.double()
    assert (first.calls, second.calls) == (3, 3)  # _apply rebuilds the list: hasattr + getattr
    x = mt.randn(5, 2, 3, dtype=mt.float64)
    lstm(x)
    # the first changed weight is read twice to find a change, then the list is rebuilt
    assert (first.calls, second.calls) == (7, 5)
    lstm.state_dict()
    lstm.train()
    assert (first.calls, second.calls) == (7, 5)


def test_random_parametrization_draws_like_torchs():
    # AWD-LSTM's DropConnect as a parametrization: torch draws its mask four times per
    # forward and uses the last, so the same seed gives the same mask
    class DropConnect(nn.Module):
        def forward(self, w):
            return nn.functional.dropout(w, 0.5, self.training)

    rnn = nn.RNN(1, 2, bias=False)
    with mt.no_grad():
        rnn.weight_ih_l0.fill_(1.0)
        rnn.weight_hh_l0.copy_(mt.tensor([[0.5, -0.25], [0.125, 1.0]]))
    P.register_parametrization(rnn, "weight_hh_l0", DropConnect())
    mt.manual_seed(10)
    out, h = rnn(mt.tensor([[[0.5]], [[1.0]]]))
    masks = []
    mt.manual_seed(10)
    for _ in range(4):
        masks.append(nn.functional.dropout(mt.ones(2, 2), 0.5).tolist())
    assert rnn._flat_weights[1].tolist() == (mt.tensor(masks[-1]) * mt.tensor(
        [[0.5, -0.25], [0.125, 1.0]])).tolist()  # fmt: skip
    assert out.shape == (2, 1, 2) and h.shape == (1, 1, 2)
    rnn.eval()
    out_eval, _ = rnn(mt.tensor([[[0.5]], [[1.0]]]))
    want = np.tanh(0.5), np.tanh(0.5)
    np.testing.assert_allclose(out_eval[0, 0].tolist(), want, rtol=1e-6)


def test_flat_weights_follow_assignments_and_survive_copies():
    lstm = nn.LSTM(2, 3)
    assert lstm._flat_weights[0] is lstm.weight_ih_l0
    # AWD-LSTM's WeightDrop: the parameter replaced by a plain tensor before each forward
    w = lstm.weight_hh_l0.detach() * 0
    del lstm._parameters["weight_hh_l0"]
    lstm.weight_hh_l0 = w
    assert lstm._flat_weights[1] is w
    lstm2 = nn.LSTM(2, 3)
    buf = io.BytesIO()
    mt.save(lstm2, buf)
    buf.seek(0)
    loaded = mt.load(buf, weights_only=False)
    assert loaded._flat_weights[0] is loaded.weight_ih_l0
    assert "_flat_weight_refs" in loaded.__dict__
    clone = copy.deepcopy(lstm2)
    assert clone._flat_weights[2] is clone.bias_ih_l0
    x = mt.randn(4, 1, 2)
    assert mt.equal(clone(x)[0], lstm2(x)[0])


def test_deepcopy_of_a_used_parametrized_rnn_fails_as_torchs():
    rnn = nn.GRU(2, 3)
    P.register_parametrization(rnn, "weight_hh_l0", _Counting())
    copy.deepcopy(rnn)  # before a forward the list still holds the original parameter
    rnn(mt.randn(3, 1, 2))
    with pytest.raises(RuntimeError, match="Only Tensors created explicitly by the user"):
        copy.deepcopy(rnn)


def test_checking_methods():
    lstm = nn.LSTM(3, 4, num_layers=2, bidirectional=True, batch_first=True)
    x = mt.randn(5, 6, 3)
    assert lstm.get_expected_hidden_size(x, None) == (4, 5, 4)
    assert lstm.get_expected_cell_size(x, mt.tensor([3, 2])) == (4, 3, 4)
    h = mt.zeros(4, 5, 4)
    lstm.check_forward_args(x, (h, h), None)
    with pytest.raises(
        RuntimeError, match=r"^Expected hidden\[0\] size \(4, 5, 4\), got \[2, 5, 4\]$"
    ):
        lstm.check_forward_args(x, (h[:2], h), None)
    with pytest.raises(
        RuntimeError, match=r"^Expected hidden\[1\] size \(4, 5, 4\), got \[4, 5, 2\]$"
    ):
        lstm.check_forward_args(x, (h, h[..., :2]), None)
    with pytest.raises(RuntimeError, match="^input must have 3 dimensions, got 2$"):
        lstm.check_input(x[0], None)
    with pytest.raises(RuntimeError, match="^input.size\\(-1\\) must be equal to input_size. "
                       "Expected 3, got 2$"):  # fmt: skip
        lstm.check_input(x[..., :2], None)
    with pytest.raises(ValueError) as info:
        lstm.check_input(x.half(), None)
    assert str(info.value) == (
        "RNN input dtype (torch.float16) does not match weight dtype (torch.float32). Convert "
        "input: input.to(torch.float32), or convert model: model.to(torch.float16)"
    )
    with pytest.raises(RuntimeError, match=r"^Expected hidden size \(4, 2, 4\), got \[4, 5, 4\]$"):
        lstm.check_hidden_size(h, (4, 2, 4))
    gru = nn.GRU(3, 2)
    assert gru.get_expected_hidden_size(x, None) == (1, 6, 2)
    with pytest.raises(RuntimeError, match=r"^Expected hidden size \(1, 6, 2\), got \[1, 5, 2\]$"):
        gru.check_forward_args(x, mt.zeros(1, 5, 2), None)
    perm = mt.tensor([2, 0, 1])
    hx = mt.arange(6.0).view(1, 3, 2)
    assert gru.permute_hidden(hx, None) is hx
    assert gru.permute_hidden(hx, perm).tolist() == [[[4.0, 5.0], [0.0, 1.0], [2.0, 3.0]]]
    a, b = lstm.permute_hidden((hx, hx + 1), perm)
    assert b.tolist() == [[[5.0, 6.0], [1.0, 2.0], [3.0, 4.0]]]


def test_vf_namespace():
    from minitorch import _VF

    assert _VF.lstm is mt.lstm and _VF.gru_cell is mt.gru_cell
    with pytest.raises(AttributeError, match="has no attribute 'nn'"):
        _VF.nn  # noqa: B018 - the attribute access is the test
    lstm = nn.LSTM(2, 3)
    x = mt.randn(4, 1, 2)
    h = mt.zeros(1, 1, 3)
    out, hn, cn = _VF.lstm(x, (h, h), lstm._flat_weights, True, 1, 0.0, False, False, False)
    assert mt.equal(out, lstm(x)[0])


@pytest.mark.parametrize(
    "dtype, want",
    [
        (mt.float32, "MkldnnRnnLayerBackward0"),  # torch's oneDNN kernel: one node per layer
        (mt.float64, "StackBackward0"),  # torch's generic kernel: the stacked steps
    ],
)
def test_lstm_output_node_follows_torchs_kernel_choice(dtype, want):
    lstm = nn.LSTM(3, 4, num_layers=2).to(dtype)
    out, (h, c) = lstm(mt.randn(5, 2, 3, dtype=dtype))
    assert type(out.grad_fn).__name__ == want
    assert type(h.grad_fn).__name__ == type(c.grad_fn).__name__ == "StackBackward0"
    out, _ = nn.LSTM(3, 4, bidirectional=True).to(dtype)(mt.randn(5, 2, 3, dtype=dtype))
    assert type(out.grad_fn).__name__ == "CatBackward0"
    assert type(out.grad_fn.next_functions[0][0]).__name__ == want


@pytest.mark.parametrize("cls", [nn.GRU, nn.RNN])
def test_packed_input_checks_hx_by_its_size(cls):
    # torch checks the rank of hx for a padded input only; a packed input's hx is checked by
    # its size (after the permutation of an unsorted batch)
    x = mt.randn(4, 3, 2)
    packed = nn.utils.rnn.pack_padded_sequence(x, [2, 4, 1], enforce_sorted=False)
    m = cls(2, 3)
    with pytest.raises(RuntimeError) as info:
        m(packed, mt.zeros(1, 3))
    assert str(info.value) == "Expected hidden size (1, 3, 3), got [1, 3]"
    with pytest.raises(RuntimeError) as info:
        m(packed, mt.zeros(1, 3, 1, 3))
    assert str(info.value) == "Expected hidden size (1, 3, 3), got [1, 3, 1, 3]"
    with pytest.raises(IndexError):
        m(packed, mt.zeros(3))
    with pytest.raises(RuntimeError) as info:
        m(x, mt.zeros(1, 3))  # padded input: the rank first
    assert str(info.value) == "For batched 3-D input, hx should also be 3-D but got 2-D tensor"


def test_flatten_parameters_is_called_when_torch_calls_it():
    # torch calls flatten_parameters whenever it rebuilds _flat_weights: at construction, after
    # a conversion, at a forward that finds a weight changed (not at an ordinary forward)
    calls = []

    class Counting(nn.LSTM):
        def flatten_parameters(self):
            calls.append(1)

    m = Counting(3, 4)
    m.double()
    assert len(calls) == 2
    m(mt.randn(2, 1, 3, dtype=mt.float64))
    assert len(calls) == 2
    w = m.weight_hh_l0
    del m._parameters["weight_hh_l0"]
    m.weight_hh_l0 = w * 1
    m(mt.randn(2, 1, 3, dtype=mt.float64))
    assert len(calls) == 3


def test_rnn_module_namespace():
    from minitorch.nn.modules import rnn as rnn_module

    assert rnn_module.PackedSequence is nn.utils.rnn.PackedSequence
    hx = mt.arange(6.0).view(1, 3, 2)
    with pytest.warns(FutureWarning, match="`apply_permutation` is deprecated, please use "):
        out = rnn_module.apply_permutation(hx, mt.tensor([2, 0, 1]))
    assert out.tolist() == [[[4.0, 5.0], [0.0, 1.0], [2.0, 3.0]]]
    with pytest.raises(AttributeError):
        rnn_module.NotAName  # noqa: B018 - the attribute access is the test
