"""Session 29 (helper rnn): recurrent language and sequence models written the way classic
repositories write them (the word_language_model example, AWD-LSTM, char-RNN and seq2seq tutorials,
fastrnns-style hand-written cells), run under torch and minitorch with the same seeds and compared
record by record: char-RNN with nn.LSTM and Adam, hand-written LSTM/GRU cells (chunk, sigmoid/tanh,
addcmul) against nn.LSTMCell/GRUCell/LSTM, batchify/get_batch with truncated BPTT and
repackage_hidden, manual SGD through p.data, clip_grad_norm_/clip_grad_value_ (every norm type,
foreach, non-finite), perplexity by math.exp, temperature/top-k/top-p sampling with multinomial and
a Generator, AWD-LSTM's embedded dropout (bernoulli_ masks, F.embedding with max_norm and
scale_grad_by_freq), locked dropout, WeightDrop by re-registered raw weights and by a DropConnect
parametrization, NT-ASGD (SGD then ASGD, 'ax' swapped in by p.data), AR/TAR regularisation, tied
weights, seq2seq with Bahdanau and Luong (general, dot) attention over a packed bidirectional GRU
(enforce_sorted=False, total_length, masked softmax), teacher forcing, beam search with GNMT length
normalisation, bidirectional states reshaped and bridged to a decoder, GRU h0 from a Linear, LSTM
with proj_size, relu RNNs with inter-layer dropout, stacked LSTMCells loaded into nn.LSTM,
state_dict and whole-module save/load round trips (reverse keys, strict errors), weight_norm /
spectral_norm / pruning / functional_call on recurrent weights, the legacy tutorial spellings
(Variable, volatile, LongTensor, .data[0]), a subclass of nn.LSTM with torch's own forward
(check_forward_args, permute_hidden, _VF.lstm over _flat_weights), an adaptive-softmax LM, gradient
penalties and Hessian-vector products through LSTM/GRU, padded-sequence classification, REINFORCE
with Categorical/gumbel_softmax/scheduled sampling, and the errors of RNN misuse.

Known and left (documented):
- float32 sums differ in the last bits (summation order) and float32 tanh/sigmoid/exp can be an
  ulp off torch's vectorised kernels: float32 compares to 1e-4 of each record's scale.
- torch's LSTM skips its checks for packed input and fails later inside its kernel (IndexError,
  size-mismatch texts); minitorch checks the states' rank and sizes there (RuntimeError).
- torch.nn.utils.rnn.unpad_sequence transposes a time-major input in place (pytorch issue
  98499); minitorch leaves it (documented in its docstring). A length past the padded length in
  pack_padded_sequence reads out of bounds in torch; minitorch raises.
- The meta device is not supported; torch.compile returns the module itself; torch 2.13's
  torch.jit.script(nn.LSTM) fails (a torch bug). Hand-written ScriptModule cells (fastrnns) give
  torch's numbers (checked by hand, not recorded here: TorchScript compilation is slow).
- torch runs bfloat16 LSTMs through oneDNN only on CPUs with AVX-512 BF16 (the output's grad_fn
  depends on the machine there): only float32/float64 grad_fn names are recorded."""

from __future__ import annotations

import importlib
import io
import math
import random

import pytest

from tests.reference._one_thread import one_torch_thread  # noqa: F401 - an autouse fixture
from tests.reference._programs import assert_program_matches

torch = pytest.importorskip("torch")


PROGRAMS = [
    "char_lstm", "hand_lstm_cell", "hand_gru_cell", "word_lm", "sampling", "embedding_dropout",
    "locked_dropout", "weight_drop", "weight_drop_parametrize", "nt_asgd", "ar_tar",
    "bahdanau", "luong", "packing", "beam_search", "bidir_states", "proj_relu", "stacked_cells",
    "misuse", "init_and_state_dict", "clipping", "reparam", "legacy_tutorial", "subclass_forward",
    "adaptive_lm", "double_backward", "sequence_classifier", "reinforce_generator",
    "nucleus_sampling",
]  # fmt: skip


@pytest.mark.parametrize("dt", ["float64", "float32"])
@pytest.mark.parametrize("name", PROGRAMS)
def test_program_matches_torch(name, dt):
    assert_program_matches(globals()["p_" + name], torch, dt)


# --- helpers, as the classic repositories write them ---


def repackage_hidden(lib, h):
    """Wraps hidden states in new Tensors, to detach them from their history."""
    if isinstance(h, lib.Tensor):
        return h.detach()
    return tuple(repackage_hidden(lib, v) for v in h)


def batchify(data, bsz):
    nbatch = data.size(0) // bsz
    data = data.narrow(0, 0, nbatch * bsz)
    return data.view(bsz, -1).t().contiguous()


def get_batch(source, i, bptt):
    seq_len = min(bptt, len(source) - 1 - i)
    data = source[i : i + seq_len]
    target = source[i + 1 : i + 1 + seq_len].view(-1)
    return data, target


def _corpus(lib, n, vocab, seed):
    g = lib.Generator().manual_seed(seed)
    return lib.randint(0, vocab, (n,), generator=g)


# --- programs ---


def p_char_lstm(lib, dt, rec):
    nn, F = lib.nn, lib.nn.functional
    lib.manual_seed(0)
    text = "hello world, hello recurrent nets; the quick brown fox jumps over the lazy dog"
    chars = sorted(set(text))
    stoi = {c: i for i, c in enumerate(chars)}
    data = lib.tensor([stoi[c] for c in text], dtype=lib.long)

    class CharRNN(nn.Module):
        def __init__(self, vocab, emb, hidden, layers):
            super().__init__()
            self.embed = nn.Embedding(vocab, emb)
            self.lstm = nn.LSTM(emb, hidden, layers, batch_first=True)
            self.fc = nn.Linear(hidden, vocab)

        def forward(self, x, hidden=None):
            out, hidden = self.lstm(self.embed(x), hidden)
            return self.fc(out.reshape(-1, out.size(2))), hidden

        def init_hidden(self, bsz):
            w = next(self.parameters())
            n, h = self.lstm.num_layers, self.lstm.hidden_size
            return (w.new_zeros(n, bsz, h), w.new_zeros(n, bsz, h))

    model = CharRNN(len(chars), 8, 16, 2).to(dt)
    rec("repr", str(model))
    opt = lib.optim.Adam(model.parameters(), lr=0.01)
    bsz, seq = 4, 9
    n = (len(data) - 1) // (bsz * seq) * bsz * seq
    x = data[:n].view(bsz, -1)
    y = data[1 : n + 1].view(bsz, -1)
    hidden = model.init_hidden(bsz)
    total = 0.0
    for epoch in range(2):
        for i in range(0, x.size(1), seq):
            hidden = repackage_hidden(lib, hidden)
            opt.zero_grad()
            logits, hidden = model(x[:, i : i + seq], hidden)
            loss = F.cross_entropy(logits, y[:, i : i + seq].reshape(-1))
            loss.backward()
            norm = nn.utils.clip_grad_norm_(model.parameters(), 0.5)
            opt.step()
            total += loss.item()
            rec(f"loss{epoch}.{i}", loss)
            rec(f"norm{epoch}.{i}", norm)
    rec("ppl", math.exp(total / (2 * x.size(1) // seq)))
    rec("h", hidden[0])
    rec("c", hidden[1])
    rec("h.requires_grad", str(hidden[0].requires_grad))
    rec("grad_fn", type(hidden[0].grad_fn).__name__)
    rec.params("p", model)


class _HandLSTMCell:
    """A hand-written LSTM cell with parameters named as nn.LSTMCell's."""

    @staticmethod
    def build(lib, input_size, hidden_size):
        nn = lib.nn

        class LSTMCell(nn.Module):
            def __init__(self):
                super().__init__()
                self.input_size, self.hidden_size = input_size, hidden_size
                self.weight_ih = nn.Parameter(lib.randn(4 * hidden_size, input_size))
                self.weight_hh = nn.Parameter(lib.randn(4 * hidden_size, hidden_size))
                self.bias_ih = nn.Parameter(lib.randn(4 * hidden_size))
                self.bias_hh = nn.Parameter(lib.randn(4 * hidden_size))
                self.reset_parameters()

            def reset_parameters(self):
                std = 1.0 / math.sqrt(self.hidden_size)
                for w in self.parameters():
                    w.data.uniform_(-std, std)

            def forward(self, x, state):
                hx, cx = state
                gates = (
                    lib.mm(x, self.weight_ih.t())
                    + self.bias_ih
                    + lib.mm(hx, self.weight_hh.t())
                    + self.bias_hh
                )
                ingate, forgetgate, cellgate, outgate = gates.chunk(4, 1)
                ingate = lib.sigmoid(ingate)
                forgetgate = lib.sigmoid(forgetgate)
                cellgate = lib.tanh(cellgate)
                outgate = lib.sigmoid(outgate)
                cy = lib.addcmul(forgetgate * cx, ingate, cellgate)
                hy = outgate * lib.tanh(cy)
                return hy, (hy, cy)

        return LSTMCell()


def p_hand_lstm_cell(lib, dt, rec):
    nn = lib.nn
    lib.manual_seed(1)
    cell = _HandLSTMCell.build(lib, 5, 6).to(dt)
    ref = nn.LSTMCell(5, 6).to(dt)
    ref.load_state_dict(cell.state_dict())
    x = lib.randn(7, 3, 5, dtype=dt, requires_grad=True)
    h0 = lib.zeros(3, 6, dtype=dt)
    state, state_ref = (h0, h0.clone()), (h0.clone(), h0.clone())
    outs, outs_ref = [], []
    for t in range(x.size(0)):
        out, state = cell(x[t], state)
        outs.append(out)
        state_ref = ref(x[t], state_ref)
        outs_ref.append(state_ref[0])
    out, out_ref = lib.stack(outs), lib.stack(outs_ref)
    rec("out", out)
    rec("same", (out - out_ref).abs().max())
    rec("cy", state[1])
    w = lib.linspace(-1, 1, out.numel(), dtype=dt).view_as(out)
    g = lib.autograd.grad((out * w).sum(), [x, *cell.parameters()], retain_graph=True)
    g_ref = lib.autograd.grad((out_ref * w).sum(), [x, *ref.parameters()])
    for i, (a, b) in enumerate(zip(g, g_ref, strict=True)):
        rec(f"g{i}", a)
        rec(f"gdiff{i}", (a - b).abs().max())
    # the whole sequence through nn.LSTM with the same weights
    lstm = nn.LSTM(5, 6).to(dt)
    with lib.no_grad():
        for name in ("weight_ih", "weight_hh", "bias_ih", "bias_hh"):
            getattr(lstm, name + "_l0").copy_(getattr(cell, name))
    seq_out, (hn, cn) = lstm(x)
    rec("grad_fns", str([type(t.grad_fn).__name__ for t in (seq_out, hn, cn)]))
    rec("lstm_diff", (seq_out - out).abs().max())
    rec("cn_diff", (cn[0] - state[1]).abs().max())
    rec("hn.shape", str(tuple(hn.shape)))


def p_hand_gru_cell(lib, dt, rec):
    nn = lib.nn

    class GRUCell(nn.Module):
        def __init__(self, input_size, hidden_size):
            super().__init__()
            self.hidden_size = hidden_size
            self.x2h = nn.Linear(input_size, 3 * hidden_size)
            self.h2h = nn.Linear(hidden_size, 3 * hidden_size)
            std = 1.0 / math.sqrt(hidden_size)
            for w in self.parameters():
                w.data.uniform_(-std, std)

        def forward(self, x, hidden):
            x = x.view(-1, x.size(1))
            gate_x = self.x2h(x).squeeze()
            gate_h = self.h2h(hidden).squeeze()
            i_r, i_i, i_n = gate_x.chunk(3, 1)
            h_r, h_i, h_n = gate_h.chunk(3, 1)
            resetgate = lib.sigmoid(i_r + h_r)
            inputgate = lib.sigmoid(i_i + h_i)
            newgate = lib.tanh(i_n + (resetgate * h_n))
            return newgate + inputgate * (hidden - newgate)

    lib.manual_seed(2)
    cell = GRUCell(4, 5).to(dt)
    ref = nn.GRUCell(4, 5).to(dt)
    with lib.no_grad():
        ref.weight_ih.copy_(cell.x2h.weight)
        ref.bias_ih.copy_(cell.x2h.bias)
        ref.weight_hh.copy_(cell.h2h.weight)
        ref.bias_hh.copy_(cell.h2h.bias)
    x = lib.randn(6, 3, 4, dtype=dt)
    h = h_ref = lib.randn(3, 5, dtype=dt, requires_grad=True)
    hs = []
    for t in range(6):
        h = cell(x[t], h)
        h_ref = ref(x[t], h_ref)
        hs.append(h)
    rec("h", h)
    rec("diff", (h - h_ref).abs().max())
    loss = lib.stack(hs).pow(2).mean()
    loss.backward()
    rec("loss", loss)
    rec.params("cell", cell, grads=True)
    # an unbatched step, and the fused kernel's view of the same step
    rec("unbatched", ref(x[0, 0], h_ref[0].detach()))
    rec("gru_cell", lib.gru_cell(x[0], h_ref.detach(), *ref.parameters()))


def _rnn_model(lib, ntoken, ninp, nhid, nlayers, dropout, tie_weights, rnn_type="LSTM"):
    nn = lib.nn

    class RNNModel(nn.Module):
        """The word_language_model example's model."""

        def __init__(self):
            super().__init__()
            self.ntoken = ntoken
            self.drop = nn.Dropout(dropout)
            self.encoder = nn.Embedding(ntoken, ninp)
            if rnn_type in ("LSTM", "GRU"):
                self.rnn = getattr(nn, rnn_type)(ninp, nhid, nlayers, dropout=dropout)
            else:
                nonlinearity = {"RNN_TANH": "tanh", "RNN_RELU": "relu"}[rnn_type]
                self.rnn = nn.RNN(ninp, nhid, nlayers, nonlinearity=nonlinearity, dropout=dropout)
            self.decoder = nn.Linear(nhid, ntoken)
            if tie_weights:
                if nhid != ninp:
                    raise ValueError("When using the tied flag, nhid must be equal to emsize")
                self.decoder.weight = self.encoder.weight
            self.rnn_type, self.nhid, self.nlayers = rnn_type, nhid, nlayers
            self.init_weights()

        def init_weights(self):
            initrange = 0.1
            nn.init.uniform_(self.encoder.weight, -initrange, initrange)
            nn.init.zeros_(self.decoder.bias)
            nn.init.uniform_(self.decoder.weight, -initrange, initrange)

        def forward(self, input, hidden):
            emb = self.drop(self.encoder(input))
            output, hidden = self.rnn(emb, hidden)
            output = self.drop(output)
            decoded = self.decoder(output)
            decoded = decoded.view(-1, self.ntoken)
            return lib.nn.functional.log_softmax(decoded, dim=1), hidden

        def init_hidden(self, bsz):
            weight = next(self.parameters())
            if self.rnn_type == "LSTM":
                return (
                    weight.new_zeros(self.nlayers, bsz, self.nhid),
                    weight.new_zeros(self.nlayers, bsz, self.nhid),
                )
            return weight.new_zeros(self.nlayers, bsz, self.nhid)

    return RNNModel()


def p_word_lm(lib, dt, rec):
    nn = lib.nn
    lib.manual_seed(3)
    ntokens = 20
    corpus = _corpus(lib, 250, ntokens, 11)
    train = batchify(corpus[:200], 5)
    val = batchify(corpus[200:], 2)
    rec("train.shape", str(tuple(train.shape)))
    rec("train.is_contiguous", str(train.is_contiguous()))
    model = _rnn_model(lib, ntokens, 8, 8, 2, 0.2, True).to(dt)
    rec("tied", str(model.decoder.weight is model.encoder.weight))
    rec("nparams", sum(p.numel() for p in model.parameters()))
    criterion = nn.NLLLoss()
    lr, bptt, clip = 5.0, 7, 0.25

    def evaluate(source):
        model.eval()
        total = 0.0
        hidden = model.init_hidden(source.size(1))
        with lib.no_grad():
            for i in range(0, source.size(0) - 1, bptt):
                data, targets = get_batch(source, i, bptt)
                output, hidden = model(data, hidden)
                hidden = repackage_hidden(lib, hidden)
                total += len(data) * criterion(output, targets).item()
        return total / (len(source) - 1)

    for epoch in range(2):
        model.train()
        hidden = model.init_hidden(5)
        total_loss = 0.0
        for batch, i in enumerate(range(0, train.size(0) - 1, bptt)):
            data, targets = get_batch(train, i, bptt)
            model.zero_grad()
            hidden = repackage_hidden(lib, hidden)
            output, hidden = model(data, hidden)
            loss = criterion(output, targets)
            loss.backward()
            nn.utils.clip_grad_norm_(model.parameters(), clip)
            for p in model.parameters():
                p.data.add_(p.grad, alpha=-lr)
            total_loss += loss.item()
            rec(f"loss{epoch}.{batch}", loss)
        val_loss = evaluate(val)
        rec(f"val{epoch}", val_loss)
        rec(f"ppl{epoch}", math.exp(val_loss))
        lr /= 4.0
    rec.params("p", model)


def p_sampling(lib, dt, rec):
    lib.manual_seed(4)
    model = _rnn_model(lib, 15, 6, 6, 1, 0.0, False, "GRU").to(dt)
    model.eval()
    g = lib.Generator().manual_seed(123)
    hidden = model.init_hidden(1)
    inp = lib.randint(15, (1, 1), dtype=lib.long, generator=g)
    words = []
    with lib.no_grad():
        for temperature in (1.0, 0.5, 2.0):
            for _ in range(8):
                output, hidden = model(inp, hidden)
                word_weights = output.squeeze().div(temperature).exp()
                word_idx = lib.multinomial(word_weights, 1, generator=g)[0]
                inp.fill_(word_idx)
                words.append(word_idx.item())
    rec("words", words)
    rec("hidden", hidden)
    # many draws at once, and top-k sampling from a softmax
    probs = lib.softmax(output.squeeze() / 0.8, dim=-1)
    rec("draws", lib.multinomial(probs, 20, replacement=True, generator=g))
    v, ix = lib.topk(probs, 5)
    rec("topk", v)
    rec("topk.ix", ix)
    pick = lib.multinomial(v / v.sum(), 3, generator=g)
    rec("pick", ix.gather(0, pick))
    rec("argmax", output.argmax(dim=-1))
    rec("state", str(g.get_state().shape))
    rec("initial_seed", g.initial_seed())


# --- AWD-LSTM pieces ---


def embedded_dropout(lib, embed, words, dropout=0.1, scale=None):
    if dropout:
        mask = embed.weight.data.new().resize_((embed.weight.size(0), 1)).bernoulli_(
            1 - dropout
        ).expand_as(embed.weight) / (1 - dropout)
        masked_embed_weight = mask * embed.weight
    else:
        masked_embed_weight = embed.weight
    if scale is not None:
        masked_embed_weight = scale.expand_as(masked_embed_weight) * masked_embed_weight
    padding_idx = embed.padding_idx
    if padding_idx is None:
        padding_idx = -1
    return lib.nn.functional.embedding(
        words,
        masked_embed_weight,
        padding_idx,
        embed.max_norm,
        embed.norm_type,
        embed.scale_grad_by_freq,
        embed.sparse,
    )


def _locked_dropout(lib):
    class LockedDropout(lib.nn.Module):
        def forward(self, x, dropout=0.5):
            if not self.training or not dropout:
                return x
            m = x.data.new(1, x.size(1), x.size(2)).bernoulli_(1 - dropout)
            mask = lib.autograd.Variable(m, requires_grad=False) / (1 - dropout)
            mask = mask.expand_as(x)
            return mask * x

    return LockedDropout()


def _weight_drop(lib):
    nn, F = lib.nn, lib.nn.functional

    class WeightDrop(nn.Module):
        """salesforce/awd-lstm-lm's weight_drop.py, as written for torch >= 1.0."""

        def __init__(self, module, weights, dropout=0, variational=False):
            super().__init__()
            self.module = module
            self.weights = weights
            self.dropout = dropout
            self.variational = variational
            self._setup()

        def widget_demagnetizer_y2k_edition(*args, **kwargs):
            return

        def _setup(self):
            if issubclass(type(self.module), nn.RNNBase):
                self.module.flatten_parameters = self.widget_demagnetizer_y2k_edition
            for name_w in self.weights:
                w = getattr(self.module, name_w)
                del self.module._parameters[name_w]
                self.module.register_parameter(name_w + "_raw", nn.Parameter(w.data))

        def _setweights(self):
            for name_w in self.weights:
                raw_w = getattr(self.module, name_w + "_raw")
                if self.variational:
                    mask = raw_w.new_ones(raw_w.size(0), 1)
                    mask = F.dropout(mask, p=self.dropout, training=True)
                    w = mask.expand_as(raw_w) * raw_w
                else:
                    w = F.dropout(raw_w, p=self.dropout, training=self.training)
                setattr(self.module, name_w, w)

        def forward(self, *args):
            self._setweights()
            return self.module.forward(*args)

    return WeightDrop


def p_embedding_dropout(lib, dt, rec):
    nn = lib.nn
    lib.manual_seed(5)
    embed = nn.Embedding(12, 4, padding_idx=0).to(dt)
    words = lib.tensor([[0, 3, 5, 3], [7, 11, 0, 2]])
    out = embedded_dropout(lib, embed, words, dropout=0.4)
    rec("out", out)
    rec("out.grad_fn", type(out.grad_fn).__name__)
    out.sum().backward()
    rec("g", embed.weight.grad)
    scale = lib.full((1, 4), 0.5, dtype=dt)
    rec("scaled", embedded_dropout(lib, embed, words, dropout=0, scale=scale))
    # max_norm renormalises the looked-up rows of the weight in place
    emb2 = nn.Embedding(6, 3, max_norm=1.0).to(dt)
    with lib.no_grad():
        emb2.weight.mul_(3)
    rec("renorm", embedded_dropout(lib, emb2, lib.tensor([1, 2, 2]), dropout=0.5))
    rec("renormed_weight", emb2.weight)
    emb3 = nn.Embedding(6, 3, scale_grad_by_freq=True).to(dt)
    o3 = embedded_dropout(lib, emb3, lib.tensor([1, 2, 2, 5, 2]), dropout=0.2)
    (o3 * lib.arange(15, dtype=dt).view(5, 3)).sum().backward()
    rec("freq_grad", emb3.weight.grad)


def p_locked_dropout(lib, dt, rec):
    lib.manual_seed(6)
    lockdrop = _locked_dropout(lib)
    x = lib.randn(5, 3, 4, dtype=dt, requires_grad=True)
    y = lockdrop(x, 0.5)
    rec("y", y)
    ratio = y / x
    rec("same_mask_over_time", (ratio == ratio[0:1]).all())
    y.pow(2).sum().backward()
    rec("g", x.grad)
    lockdrop.eval()
    rec("eval_is_identity", str(lockdrop(x, 0.5) is x))
    # variational dropout by F.dropout of a ones mask, reused over time steps
    lib.manual_seed(7)
    mask = lib.nn.functional.dropout(x.new_ones(1, 3, 4), p=0.3, training=True)
    rec("vmask", mask)
    rec("vout", (mask * x).sum(0))
    v = lib.autograd.Variable(lib.ones(2, dtype=dt), requires_grad=True)
    rec("Variable", str(type(v).__name__) + " " + str(v.requires_grad))


def p_weight_drop(lib, dt, rec):
    nn = lib.nn
    WeightDrop = _weight_drop(lib)
    lib.manual_seed(8)
    lstm = nn.LSTM(4, 5).to(dt)
    wd = WeightDrop(lstm, ["weight_hh_l0"], dropout=0.5)
    rec("names", str([n for n, _ in wd.named_parameters()]))
    rec("keys", str(list(wd.state_dict().keys())))
    x = lib.randn(6, 2, 4, dtype=dt)
    out, (h, c) = rec.warns("fwd_warns", lambda: wd(x))
    rec("out", out)
    rec("h", h)
    out.sum().backward()
    rec("g_raw", lstm.weight_hh_l0_raw.grad)
    rec("g_ih", lstm.weight_ih_l0.grad)
    rec("w_is_param", str(isinstance(lstm.weight_hh_l0, nn.Parameter)))
    wd.eval()
    out2, _ = wd(x)
    rec("eval_out", out2)
    lstm.flatten_parameters()
    # variational weight drop: whole rows of weight_hh dropped
    gru = nn.GRU(3, 4, num_layers=2).to(dt)
    wdv = WeightDrop(gru, ["weight_hh_l0", "weight_hh_l1"], dropout=0.25, variational=True)
    o, hn = wdv(lib.randn(5, 2, 3, dtype=dt), lib.zeros(2, 2, 4, dtype=dt))
    rec("gru_out", o)
    rec("gru_hn", hn)
    rec("gru_w", gru.weight_hh_l1)
    o.mean().backward()
    rec("gru_g", gru.weight_hh_l1_raw.grad)
    rec("repr", str(wdv))


def p_weight_drop_parametrize(lib, dt, rec):
    nn = lib.nn
    P = nn.utils.parametrize

    class DropConnect(nn.Module):
        def __init__(self, p):
            super().__init__()
            self.p = p

        def forward(self, w):
            return nn.functional.dropout(w, self.p, self.training)

    lib.manual_seed(9)
    rnn = nn.RNN(3, 4, nonlinearity="relu").to(dt)
    x = lib.randn(5, 2, 3, dtype=dt)
    plain, _ = rnn(x)
    P.register_parametrization(rnn, "weight_hh_l0", DropConnect(0.5))
    rec("is_parametrized", str(P.is_parametrized(rnn, "weight_hh_l0")))
    rec("names", str([n for n, _ in rnn.named_parameters()]))
    rec("keys", str(list(rnn.state_dict().keys())))
    lib.manual_seed(10)
    out, h = rnn(x)
    rec("out", out)
    rec("h", h)
    rec("changed", str(bool((out - plain).abs().max() > 0)))
    rnn.eval()
    out_eval, _ = rnn(x)
    rec("eval_diff", (out_eval - plain).abs().max())
    with P.cached():
        rec("cached", rnn.weight_hh_l0)
    P.remove_parametrizations(rnn, "weight_hh_l0", leave_parametrized=True)
    rec("after_remove", str([n for n, _ in rnn.named_parameters()]))


def p_nt_asgd(lib, dt, rec):
    """AWD-LSTM's training loop: SGD, then ASGD once the validation loss stops improving; the
    averaged weights (ASGD's 'ax') swapped in for evaluation."""
    nn = lib.nn
    lib.manual_seed(11)
    ntokens = 16
    corpus = _corpus(lib, 140, ntokens, 12)
    train, val = batchify(corpus[:120], 3), batchify(corpus[120:], 1)
    model = _rnn_model(lib, ntokens, 6, 6, 1, 0.1, True, "LSTM").to(dt)
    criterion = nn.CrossEntropyLoss()
    params = list(model.parameters())
    optimizer = lib.optim.SGD(params, lr=2.0, weight_decay=1.2e-6)
    rec("opt0", str(type(optimizer).__name__))
    bptt, nonmono, best_val_loss = 6, 2, []

    def evaluate(source):
        model.eval()
        hidden = model.init_hidden(1)
        total = 0.0
        with lib.no_grad():
            for i in range(0, source.size(0) - 1, bptt):
                data, targets = get_batch(source, i, bptt)
                output, hidden = model(data, hidden)
                total += len(data) * criterion(output, targets).item()
        return total / len(source)

    for epoch in range(5):
        model.train()
        hidden = model.init_hidden(3)
        for i in range(0, train.size(0) - 1, bptt):
            data, targets = get_batch(train, i, bptt)
            hidden = repackage_hidden(lib, hidden)
            optimizer.zero_grad()
            output, hidden = model(data, hidden)
            loss = criterion(output, targets)
            loss.backward()
            nn.utils.clip_grad_norm_(params, 0.25)
            optimizer.step()
        if "t0" in optimizer.param_groups[0]:
            tmp = {}
            for prm in model.parameters():
                tmp[prm] = prm.data.clone()
                prm.data = optimizer.state[prm]["ax"].clone()
            val_loss2 = evaluate(val)
            rec(f"avg_val{epoch}", val_loss2)
            rec(f"ax{epoch}", optimizer.state[params[1]]["ax"])
            rec(f"eta{epoch}", optimizer.state[params[1]]["eta"])
            rec(f"mu{epoch}", optimizer.state[params[1]]["mu"])
            rec(f"step{epoch}", optimizer.state[params[1]]["step"])
            for prm in model.parameters():
                prm.data = tmp[prm].clone()
        else:
            val_loss = evaluate(val)
            rec(f"val{epoch}", val_loss)
            if len(best_val_loss) > nonmono and val_loss > min(best_val_loss[:-nonmono]):
                rec("switch", epoch)
                optimizer = lib.optim.ASGD(params, lr=2.0, t0=0, lambd=0.0, weight_decay=1.2e-6)
            best_val_loss.append(val_loss)
        if epoch == 2 and "t0" not in optimizer.param_groups[0]:
            rec("force_switch", epoch)
            optimizer = lib.optim.ASGD(params, lr=2.0, t0=0, lambd=0.0, weight_decay=1.2e-6)
    rec("groups", str(sorted(optimizer.param_groups[0].keys())))
    rec("state_keys", str(sorted(optimizer.state[params[0]].keys())))
    rec.params("p", model)


def p_ar_tar(lib, dt, rec):
    """AWD-LSTM's stack of LSTM layers with locked dropout between them, returning the raw and
    dropped outputs of every layer for activation (AR) and temporal activation (TAR)
    regularisation."""
    nn, F = lib.nn, lib.nn.functional
    lib.manual_seed(12)
    ntoken, ninp, nhid, nlayers = 14, 6, 8, 3
    lockdrop = _locked_dropout(lib)
    encoder = nn.Embedding(ntoken, ninp).to(dt)
    rnns = nn.ModuleList(
        [
            nn.LSTM(ninp if k == 0 else nhid, nhid if k != nlayers - 1 else ninp, 1)
            for k in range(nlayers)
        ]
    ).to(dt)
    decoder = nn.Linear(ninp, ntoken).to(dt)
    decoder.weight = encoder.weight
    params = list(encoder.parameters()) + list(rnns.parameters()) + [decoder.bias]
    optimizer = lib.optim.SGD(params, lr=1.0)
    data = _corpus(lib, 40, ntoken, 13).view(8, 5)
    targets = _corpus(lib, 40, ntoken, 14)
    hidden = [
        (
            lib.zeros(1, 5, nhid if k != nlayers - 1 else ninp, dtype=dt),
            lib.zeros(1, 5, nhid if k != nlayers - 1 else ninp, dtype=dt),
        )
        for k in range(nlayers)
    ]
    for step in range(3):
        hidden = repackage_hidden(lib, hidden)
        optimizer.zero_grad()
        emb = embedded_dropout(lib, encoder, data, dropout=0.1)
        raw_output = lockdrop(emb, 0.3)
        new_hidden, raw_outputs, outputs = [], [], []
        for k, rnn in enumerate(rnns):
            raw_output, new_h = rnn(raw_output, hidden[k])
            new_hidden.append(new_h)
            raw_outputs.append(raw_output)
            if k != nlayers - 1:
                raw_output = lockdrop(raw_output, 0.25)
                outputs.append(raw_output)
        hidden = new_hidden
        output = lockdrop(raw_output, 0.4)
        outputs.append(output)
        logits = decoder(output.view(-1, output.size(2)))
        raw_loss = F.cross_entropy(logits, targets)
        ar = sum(2.0 * dropped.pow(2).mean() for dropped in outputs[-1:])
        tar = sum(1.0 * (rnn_h[1:] - rnn_h[:-1]).pow(2).mean() for rnn_h in raw_outputs[-1:])
        loss = raw_loss + ar + tar
        loss.backward()
        rec(f"raw{step}", raw_loss)
        rec(f"ar{step}", ar)
        rec(f"tar{step}", tar)
        rec(f"clip{step}", nn.utils.clip_grad_norm_(params, 0.25, norm_type=2.0))
        optimizer.step()
    rec("hidden", lib.cat([h[0] for h in hidden], dim=2))
    rec("enc", encoder.weight)
    rec("dec_is_enc", str(decoder.weight is encoder.weight))


# --- seq2seq with attention ---

PAD, SOS, EOS = 0, 1, 2


def _pairs(lib, n, vocab, seed):
    """Padded source/target batches of a copy-and-reverse task, with their lengths."""
    g = lib.Generator().manual_seed(seed)
    lengths = lib.randint(2, 7, (n,), generator=g)
    srcs, tgts = [], []
    for ln in lengths.tolist():
        s = lib.randint(3, vocab, (ln,), generator=g)
        srcs.append(s)
        tgts.append(lib.cat([s.flip(0), lib.tensor([EOS])]))
    pad = lib.nn.utils.rnn.pad_sequence
    return pad(srcs, padding_value=PAD), lengths, pad(tgts, padding_value=PAD)


def _seq2seq(lib, vocab, emb, hid, attention="bahdanau", n_layers=1):
    nn, F = lib.nn, lib.nn.functional
    pack, unpack = nn.utils.rnn.pack_padded_sequence, nn.utils.rnn.pad_packed_sequence

    class Encoder(nn.Module):
        def __init__(self):
            super().__init__()
            self.embedding = nn.Embedding(vocab, emb, padding_idx=PAD)
            self.rnn = nn.GRU(emb, hid, n_layers, bidirectional=True)
            self.fc = nn.Linear(hid * 2, hid)

        def forward(self, src, src_len):
            embedded = self.embedding(src)
            packed = pack(embedded, src_len, enforce_sorted=False)
            packed_out, hidden = self.rnn(packed)
            outputs, lens = unpack(packed_out, total_length=src.size(0))
            # the last layer's two directions, as the decoder's first state
            hidden = hidden.view(n_layers, 2, src.size(1), hid)[-1]
            hidden = lib.tanh(self.fc(lib.cat((hidden[0], hidden[1]), dim=1)))
            return outputs, hidden, lens

    class Attention(nn.Module):
        def __init__(self):
            super().__init__()
            if attention == "bahdanau":
                self.attn = nn.Linear(hid * 2 + hid, hid)
                self.v = nn.Linear(hid, 1, bias=False)
            elif attention == "general":
                self.W = nn.Linear(hid * 2, hid, bias=False)

        def forward(self, hidden, enc, mask):
            src_len = enc.shape[0]
            enc = enc.permute(1, 0, 2)
            if attention == "bahdanau":
                h = hidden.unsqueeze(1).repeat(1, src_len, 1)
                energy = lib.tanh(self.attn(lib.cat((h, enc), dim=2)))
                scores = self.v(energy).squeeze(2)
            elif attention == "general":
                scores = lib.bmm(self.W(enc), hidden.unsqueeze(2)).squeeze(2)
            else:  # dot, against the summed directions
                summed = enc[:, :, :hid] + enc[:, :, hid:]
                scores = lib.bmm(summed, hidden.unsqueeze(2)).squeeze(2)
            scores = scores.masked_fill(mask == 0, -1e10)
            return F.softmax(scores, dim=1)

    class Decoder(nn.Module):
        def __init__(self):
            super().__init__()
            self.attention = Attention()
            self.embedding = nn.Embedding(vocab, emb)
            self.rnn = nn.GRU(hid * 2 + emb, hid)
            self.fc_out = nn.Linear(hid * 2 + hid + emb, vocab)
            self.dropout = nn.Dropout(0.1)

        def forward(self, inp, hidden, enc, mask):
            embedded = self.dropout(self.embedding(inp.unsqueeze(0)))
            a = self.attention(hidden, enc, mask)
            weighted = lib.bmm(a.unsqueeze(1), enc.permute(1, 0, 2)).permute(1, 0, 2)
            output, hidden = self.rnn(lib.cat((embedded, weighted), dim=2), hidden.unsqueeze(0))
            assert (output == hidden).all()
            pred = self.fc_out(lib.cat((output.squeeze(0), weighted.squeeze(0),
                                        embedded.squeeze(0)), dim=1))  # fmt: skip
            return pred, hidden.squeeze(0), a.squeeze(1)

    class Seq2Seq(nn.Module):
        def __init__(self):
            super().__init__()
            self.encoder, self.decoder = Encoder(), Decoder()

        def create_mask(self, src):
            return (src != PAD).permute(1, 0)

        def forward(self, src, src_len, trg, teacher_forcing_ratio=0.5):
            batch_size, trg_len = src.shape[1], trg.shape[0]
            outputs = lib.zeros(trg_len, batch_size, vocab, dtype=self.decoder.fc_out.weight.dtype)
            enc, hidden, _ = self.encoder(src, src_len)
            inp = lib.full((batch_size,), SOS, dtype=lib.long)
            mask = self.create_mask(src)
            attns = []
            for t in range(trg_len):
                output, hidden, a = self.decoder(inp, hidden, enc, mask)
                outputs[t] = output
                attns.append(a)
                teacher_force = random.random() < teacher_forcing_ratio
                top1 = output.argmax(1)
                inp = trg[t] if teacher_force else top1
            return outputs, lib.stack(attns)

    return Seq2Seq()


def _train_seq2seq(lib, dt, rec, attention, seed, steps=4):
    nn = lib.nn
    lib.manual_seed(seed)
    random.seed(seed)
    vocab = 10
    model = _seq2seq(lib, vocab, 5, 6, attention).to(dt)

    def init_weights(m):
        for name, param in m.named_parameters():
            if "weight" in name:
                nn.init.normal_(param.data, mean=0, std=0.1)
            else:
                nn.init.constant_(param.data, 0)

    model.apply(init_weights)
    rec("nparams", sum(p.numel() for p in model.parameters() if p.requires_grad))
    opt = lib.optim.Adam(model.parameters(), lr=0.02)
    criterion = nn.CrossEntropyLoss(ignore_index=PAD)
    src, src_len, trg = _pairs(lib, 4, vocab, seed + 1)
    rec("src", src)
    for step in range(steps):
        model.train()
        opt.zero_grad()
        output, attn = model(src, src_len, trg, 0.5)
        loss = criterion(output.view(-1, vocab), trg.view(-1))
        loss.backward()
        if step % 2:
            nn.utils.clip_grad_value_(model.parameters(), 0.05)
        else:
            rec(f"norm{step}", nn.utils.clip_grad_norm_(model.parameters(), 1.0))
        opt.step()
        rec(f"loss{step}", loss)
    rec("attn", attn)
    rec("attn_rowsum", attn.sum(-1))
    rec("attn_pad", attn[:, 0, src_len[0] :])
    model.eval()
    with lib.no_grad():
        output, _ = model(src, src_len, trg, 0.0)
    rec("greedy", output.argmax(-1))
    rec("ppl", math.exp(criterion(output.view(-1, vocab), trg.view(-1)).item()))
    return model


def p_bahdanau(lib, dt, rec):
    _train_seq2seq(lib, dt, rec, "bahdanau", 20)


def p_luong(lib, dt, rec):
    model = _train_seq2seq(lib, dt, rec, "general", 21)
    rec("repr", str(model.decoder.attention))
    _train_seq2seq(lib, dt, rec, "dot", 22, steps=2)


def p_packing(lib, dt, rec):
    nn = lib.nn
    U = nn.utils.rnn
    lib.manual_seed(23)
    seqs = [lib.randn(n, 3, dtype=dt) for n in (2, 5, 3, 5)]
    lengths = lib.tensor([len(s) for s in seqs])
    padded = U.pad_sequence(seqs, batch_first=True)
    rec("padded", padded)
    packed = U.pack_padded_sequence(padded, lengths, batch_first=True, enforce_sorted=False)
    rec("batch_sizes", packed.batch_sizes)
    rec("sorted", packed.sorted_indices)
    rec("unsorted", packed.unsorted_indices)
    rec("data", packed.data)
    lstm = nn.LSTM(3, 4, num_layers=2, batch_first=True, bidirectional=True).to(dt)
    out, (h, c) = lstm(packed)
    unpacked, lens = U.pad_packed_sequence(out, batch_first=True, total_length=7)
    rec("unpacked", unpacked)
    rec("lens", lens)
    rec("h", h)
    rec("c", c)
    # the final states are the outputs at each sequence's last step (forward direction)
    last = unpacked[lib.arange(4), lens - 1, :4]
    rec("last_vs_h", (last - h[-2]).abs().max())
    rec("first_vs_hrev", (unpacked[:, 0, 4:] - h[-1]).abs().max())
    # per-sequence loss, averaged over real time steps only
    mask = lib.arange(7).unsqueeze(0) < lens.unsqueeze(1)
    loss = (unpacked.pow(2).sum(-1) * mask).sum() / mask.sum()
    loss.backward()
    rec("loss", loss)
    rec.params("lstm", lstm, grads=True)
    # pack_sequence, unpack_sequence, unpad_sequence
    ps = U.pack_sequence([s.detach() for s in seqs], enforce_sorted=False)
    rec("ps_equal", (ps.data == packed.data).all())
    back = U.unpack_sequence(ps)
    rec("unpack_shapes", str([tuple(b.shape) for b in back]))
    rec("unpad", U.unpad_sequence(padded, lengths, batch_first=True)[2])
    rec("packed_repr_type", type(ps).__name__)
    rec("to64", str(ps.to(lib.float64).data.dtype))
    rec.err("unsorted_err", lambda: U.pack_padded_sequence(padded, lengths, batch_first=True))
    rec.err("total_length_err", lambda: U.pad_packed_sequence(out, total_length=3))
    zero = lib.tensor([2, 0, 3, 5])
    rec.err(
        "zero_len",
        lambda: U.pack_padded_sequence(padded, zero, batch_first=True, enforce_sorted=False),
    )


def p_beam_search(lib, dt, rec):
    """Beam search with length normalisation over a GRU decoder with h0 from a Linear."""
    nn, F = lib.nn, lib.nn.functional
    lib.manual_seed(24)
    vocab, emb, hid, beam, max_len = 9, 4, 6, 3, 6

    class Decoder(nn.Module):
        def __init__(self):
            super().__init__()
            self.init_h = nn.Linear(5, hid * 2)
            self.embed = nn.Embedding(vocab, emb)
            self.gru = nn.GRU(emb, hid, num_layers=2, batch_first=True)
            self.out = nn.Linear(hid, vocab)

        def init_hidden(self, features):
            h = lib.tanh(self.init_h(features))
            return h.view(-1, 2, hid).transpose(0, 1).contiguous()

        def step(self, tokens, h):
            out, h = self.gru(self.embed(tokens).unsqueeze(1), h)
            return F.log_softmax(self.out(out.squeeze(1)), dim=-1), h

    dec = Decoder().to(dt).eval()
    features = lib.randn(1, 5, dtype=dt)
    with lib.no_grad():
        h = dec.init_hidden(features).repeat(1, beam, 1)
        rec("h0", h)
        tokens = lib.full((beam,), SOS, dtype=lib.long)
        scores = lib.zeros(beam, dtype=dt)
        scores[1:] = float("-inf")
        seqs = tokens.unsqueeze(1)
        finished = []
        for t in range(max_len):
            logp, h = dec.step(tokens, h)
            cand = (scores.unsqueeze(1) + logp).view(-1)
            top, idx = cand.topk(beam)
            prev = lib.div(idx, vocab, rounding_mode="floor")
            tokens = idx % vocab
            seqs = lib.cat([seqs[prev], tokens.unsqueeze(1)], dim=1)
            h = h.index_select(1, prev)
            scores = top
            rec(f"top{t}", top)
            rec(f"prev{t}", prev)
            for b in range(beam):
                if tokens[b].item() == EOS or t == max_len - 1:
                    lp = ((5 + seqs.size(1)) / 6) ** 0.7  # GNMT's length penalty
                    finished.append((scores[b].item() / lp, seqs[b].tolist()))
            scores = scores.masked_fill(tokens == EOS, float("-inf"))
        finished.sort(key=lambda x: -x[0])
    rec("best", finished[0][1])
    rec("best_score", finished[0][0])
    rec("n_finished", len(finished))
    rec("seqs", seqs)
    # batched greedy decoding with batch_first GRU states and argmax
    with lib.no_grad():
        h = dec.init_hidden(lib.randn(4, 5, dtype=dt))
        tok = lib.full((4,), SOS, dtype=lib.long)
        outs = []
        for _ in range(4):
            logp, h = dec.step(tok, h)
            tok = logp.argmax(-1)
            outs.append(tok)
    rec("greedy", lib.stack(outs, 1))


def p_bidir_states(lib, dt, rec):
    """A bidirectional 2-layer LSTM encoder whose final states are reshaped (num_layers * 2),
    the directions concatenated and bridged into a unidirectional decoder."""
    nn = lib.nn
    lib.manual_seed(25)
    layers, hid = 2, 4
    enc = nn.LSTM(3, hid, num_layers=layers, bidirectional=True, dropout=0.3).to(dt)
    dec = nn.LSTM(3, hid * 2, num_layers=layers).to(dt)
    bridge = nn.Linear(hid * 2, hid * 2).to(dt)
    x = lib.randn(6, 2, 3, dtype=dt)
    enc.train()
    out, (h, c) = enc(x)
    rec("train_out", out)
    enc.eval()
    out, (h, c) = enc(x)
    rec("out.shape", str(tuple(out.shape)))
    rec("h.shape", str(tuple(h.shape)))

    def _cat_directions(s):
        return lib.cat([s[0 : s.size(0) : 2], s[1 : s.size(0) : 2]], 2)

    h2 = _cat_directions(h)
    c2 = _cat_directions(c)
    hv = h.view(layers, 2, 2, hid)
    rec("same_as_view", (lib.cat((hv[:, 0], hv[:, 1]), dim=2) - h2).abs().max())
    rec("fwd_last", (out[-1, :, :hid] - h[-2]).abs().max())
    rec("bwd_first", (out[0, :, hid:] - h[-1]).abs().max())
    y, (hd, cd) = dec(x.flip(0), (lib.tanh(bridge(h2)), c2))
    rec("y", y)
    rec("hd", hd)
    loss = y.pow(2).mean() + cd.abs().mean()
    loss.backward()
    rec("g_rev", enc.weight_hh_l1_reverse.grad)
    rec("g_bridge", bridge.weight.grad)
    sd = enc.state_dict()
    rec("keys", str(list(sd.keys())))
    rec("all_weights", str([[tuple(w.shape) for w in ws] for ws in enc.all_weights]))
    rec("flat_names", str(enc._flat_weights_names))
    # an unbatched sequence through the same encoder
    ou, (hu, cu) = enc(x[:, 0])
    rec("unbatched", (ou - out[:, 0]).abs().max())
    rec("hu.shape", str(tuple(hu.shape)))


def p_proj_relu(lib, dt, rec):
    nn = lib.nn
    lib.manual_seed(26)
    lstm = nn.LSTM(4, 6, num_layers=2, proj_size=3, batch_first=True).to(dt)
    rec("repr", str(lstm))
    rec("shapes", str([(n, tuple(p.shape)) for n, p in lstm.named_parameters()]))
    x = lib.randn(2, 5, 4, dtype=dt)
    h0 = lib.randn(2, 2, 3, dtype=dt, requires_grad=True)
    c0 = lib.randn(2, 2, 6, dtype=dt, requires_grad=True)
    out, (h, c) = lstm(x, (h0, c0))
    rec("out", out)
    rec("h", h)
    rec("c", c)
    (out.sum() + c.pow(2).sum()).backward()
    rec("g_h0", h0.grad)
    rec("g_c0", c0.grad)
    rec("g_hr", lstm.weight_hr_l1.grad)
    rec.err("bad_h0", lambda: lstm(x, (lib.zeros(2, 2, 6, dtype=dt), c0)))
    rec.err("bad_c0", lambda: lstm(x, (h0, lib.zeros(2, 2, 3, dtype=dt))))
    rec.err("proj_big", lambda: nn.LSTM(4, 6, proj_size=6))
    rec.err("proj_gru", lambda: nn.GRU(4, 6, proj_size=2))
    # Elman RNN with relu, stacked, dropout between layers, trained a few steps
    rnn = nn.RNN(4, 5, num_layers=3, nonlinearity="relu", dropout=0.25).to(dt)
    rec("rnn_repr", str(rnn))
    head = nn.Linear(5, 1).to(dt)
    opt = lib.optim.RMSprop(list(rnn.parameters()) + list(head.parameters()), lr=0.01)
    xs = lib.randn(7, 3, 4, dtype=dt)
    ys = xs.sum((0, 2)).unsqueeze(1)
    for step in range(3):
        opt.zero_grad()
        o, hn = rnn(xs)
        loss = lib.nn.functional.mse_loss(head(o[-1]), ys)
        loss.backward()
        opt.step()
        rec(f"relu_loss{step}", loss)
    rec("relu_hn", hn)
    rec("relu_nonneg", (hn >= 0).all())
    rnn.eval()
    rec("relu_eval", rnn(xs)[0])
    rec.err("bad_nonlin", lambda: nn.RNN(4, 5, nonlinearity="sigmoid"))
    rec.warns("dropout_one_layer", lambda: nn.GRU(4, 5, dropout=0.5))


def p_stacked_cells(lib, dt, rec):
    """A stack of LSTMCells with dropout between layers, stepped by hand (the way
    teacher-forced decoders and char-RNN tutorials unroll), checked against nn.LSTM."""
    nn = lib.nn
    lib.manual_seed(27)

    class StackedLSTM(nn.Module):
        def __init__(self, num_layers, input_size, rnn_size, dropout):
            super().__init__()
            self.dropout = nn.Dropout(dropout)
            self.num_layers = num_layers
            self.layers = nn.ModuleList()
            for _ in range(num_layers):
                self.layers.append(nn.LSTMCell(input_size, rnn_size))
                input_size = rnn_size

        def forward(self, input_feed, hidden):
            h_0, c_0 = hidden
            h_1, c_1 = [], []
            for i, layer in enumerate(self.layers):
                h_1_i, c_1_i = layer(input_feed, (h_0[i], c_0[i]))
                input_feed = h_1_i
                if i + 1 != self.num_layers:
                    input_feed = self.dropout(input_feed)
                h_1 += [h_1_i]
                c_1 += [c_1_i]
            return input_feed, (lib.stack(h_1), lib.stack(c_1))

    stack = StackedLSTM(3, 4, 5, 0.3).to(dt)
    x = lib.randn(6, 2, 4, dtype=dt)
    hidden = (lib.zeros(3, 2, 5, dtype=dt), lib.zeros(3, 2, 5, dtype=dt))
    outs = []
    for t in range(6):
        o, hidden = stack(x[t], hidden)
        outs.append(o)
    out = lib.stack(outs)
    rec("train_out", out)
    out.sum().backward()
    rec("g", stack.layers[1].weight_ih.grad)
    stack.eval()
    lstm = nn.LSTM(4, 5, num_layers=3).to(dt)
    sd = {}
    for i, cell in enumerate(stack.layers):
        for k, v in cell.state_dict().items():
            sd[f"{k}_l{i}"] = v
    rec("load", str(lstm.load_state_dict(sd)))
    hidden = (lib.zeros(3, 2, 5, dtype=dt), lib.zeros(3, 2, 5, dtype=dt))
    with lib.no_grad():
        outs = []
        for t in range(6):
            o, hidden = stack(x[t], hidden)
            outs.append(o)
        ref, (h, c) = lstm(x)
    rec("eval_diff", (lib.stack(outs) - ref).abs().max())
    rec("h_diff", (hidden[0] - h).abs().max())
    # RNNCell with relu and GRUCell without bias, unbatched
    rc = nn.RNNCell(4, 3, nonlinearity="relu").to(dt)
    gc = nn.GRUCell(4, 3, bias=False).to(dt)
    rec("cells", str([rc, gc]))
    hr = hg = None
    for t in range(3):
        hr = rc(x[t, 0], hr)
        hg = gc(x[t, 0], hg)
    rec("hr", hr)
    rec("hg", hg)


def p_misuse(lib, dt, rec):
    """The errors and warnings of common RNN mistakes."""
    nn = lib.nn
    lib.manual_seed(28)
    lstm = nn.LSTM(4, 5, num_layers=2).to(dt)
    gru = nn.GRU(4, 5, batch_first=True).to(dt)
    x = lib.randn(6, 3, 4, dtype=dt)
    h = lib.zeros(2, 3, 5, dtype=dt)
    rec.err("ok", lambda: lstm(x, (h, h)))
    # batch-first data into a sequence-first model: the states' batch size no longer fits
    rec.err("batch_first_mismatch", lambda: lstm(x.transpose(0, 1), (h, h)))
    rec.err("wrong_layers", lambda: lstm(x, (h[:1], h[:1])))
    rec.err("wrong_hidden", lambda: lstm(x, (lib.zeros(2, 3, 4, dtype=dt), h)))
    rec.err("gru_tuple", lambda: gru(x, (h, h)))
    rec.err("gru_batch", lambda: gru(x, lib.zeros(1, 6, 5, dtype=dt)))
    rec.err(
        "gru_ok", lambda: gru(x, lib.zeros(1, 6, 5, dtype=dt).transpose(0, 1)[:1].transpose(0, 1))
    )
    rec.err("input_size", lambda: lstm(lib.randn(6, 3, 7, dtype=dt)))
    rec.err("4d", lambda: lstm(x.unsqueeze(0)))
    rec.err("1d", lambda: gru(x[0, 0]))
    rec.err("dtype", lambda: lstm(x.float() if dt == lib.float64 else x.double()))
    rec.err("long_input", lambda: gru(lib.ones(2, 3, 4, dtype=lib.long)))
    rec.err("hx_rank", lambda: lstm(x, (h[0], h[0])))
    packed = nn.utils.rnn.pack_padded_sequence(x, [6, 4, 5], enforce_sorted=False)
    rec.err("packed_hx_rank", lambda: nn.GRU(4, 5).to(dt)(packed, h[0, :1]))
    rec.err("packed_hx_rank_rnn", lambda: nn.RNN(4, 5).to(dt)(packed, h[:1].unsqueeze(0)))
    rec.err("unbatched_hx", lambda: lstm(x[:, 0], (h, h)))
    rec.err("empty_seq", lambda: lstm(x[:0]))
    rec.err("hx_single", lambda: lstm(x, h))
    rec.err("hx_dtype", lambda: lstm(x, (h.float() if dt == lib.float64 else h.double(), h)))
    # non-contiguous inputs and states are fine
    xt = x.transpose(0, 1).contiguous().transpose(0, 1)
    rec("noncontig", str(xt.is_contiguous()))
    a, _ = lstm(xt, (h.transpose(1, 2).contiguous().transpose(1, 2), h))
    b, _ = lstm(x, (h, h))
    rec("noncontig_same", (a - b).abs().max())
    cell = nn.LSTMCell(4, 5).to(dt)
    rec.err("cell_batch", lambda: cell(x[0], (h[0, :2], h[0])))
    rec.err("cell_size", lambda: cell(x[0], (h[0], lib.zeros(3, 4, dtype=dt))))
    rec.err("cell_3d", lambda: cell(x))
    rec.err("cell_input", lambda: cell(x[0, :, :3]))
    rec.err("grucell_tuple", lambda: nn.GRUCell(4, 5).to(dt)(x[0], (h[0], h[0])))
    rec.err("rnncell_hidden", lambda: nn.RNNCell(4, 5).to(dt)(x[0], h[0, :, :4]))
    rec.err("hidden0", lambda: nn.LSTM(4, 0))
    rec.err("layers0", lambda: nn.GRU(4, 5, 0))
    rec.err("dropout2", lambda: nn.LSTM(4, 5, 2, dropout=2.0))
    rec.err("bias_type", lambda: nn.GRU(4, 5, bias=1))
    rec.err("float_hidden", lambda: nn.LSTM(4, 5.0))
    # backward through a detached-and-reused hidden state twice
    out, hid = lstm(x)
    out.sum().backward()
    out2, _ = lstm(x, hid)
    rec.err("twice", lambda: out2.sum().backward())
    out3, _ = lstm(x, repackage_hidden(lib, hid))
    rec.err("repackaged", lambda: out3.sum().backward())
    rec.warns("flatten", lambda: lstm.flatten_parameters())
    rec("nondiff_hid", str(hid[0].requires_grad))


def p_init_and_state_dict(lib, dt, rec):
    """The usual LSTM initialisation recipes, then state_dict round trips."""
    nn = lib.nn
    lib.manual_seed(29)
    lstm = nn.LSTM(3, 4, num_layers=2, bidirectional=True).to(dt)
    hid = lstm.hidden_size
    for name, param in lstm.named_parameters():
        if "weight_ih" in name:
            nn.init.xavier_uniform_(param.data)
        elif "weight_hh" in name:
            for i in range(0, param.size(0), hid):
                nn.init.orthogonal_(param.data[i : i + hid])
        elif "bias_ih" in name:
            param.data.fill_(0)
            param.data[hid : 2 * hid].fill_(1.0)  # forget gate bias
        elif "bias_hh" in name:
            nn.init.zeros_(param)
    rec.params("init", lstm)
    w = lstm.weight_hh_l1_reverse[:hid]
    rec("orth", w @ w.t())
    # legacy hidden-state construction
    weight = next(lstm.parameters()).data
    h0 = lib.autograd.Variable(weight.new(4, 2, hid).zero_())
    rec("h0", h0)
    rec("h0.dtype", str(h0.dtype))
    x = lib.randn(5, 2, 3, dtype=dt)
    out, _ = lstm(x, (h0, h0))
    # round trip through save/load into a batch_first copy
    buf = io.BytesIO()
    lib.save(lstm.state_dict(), buf)
    buf.seek(0)
    sd = lib.load(buf)
    rec("keys", str(list(sd.keys())))
    twin = nn.LSTM(3, 4, num_layers=2, bidirectional=True, batch_first=True).to(dt)
    rec("load", str(twin.load_state_dict(sd)))
    out2, _ = twin(x.transpose(0, 1))
    rec("same", (out2.transpose(0, 1) - out).abs().max())
    # mismatches
    one_way = nn.LSTM(3, 4, num_layers=2).to(dt)
    rec.err("strict", lambda: one_way.load_state_dict(sd))
    rec.err("nonstrict", lambda: one_way.load_state_dict(sd, strict=False))
    fwd_only = {k: v for k, v in sd.items() if "_l0" in k}
    res = one_way.load_state_dict(fwd_only, strict=False)
    rec("unexpected", str(res.unexpected_keys))
    rec("missing", str(res.missing_keys))
    gru = nn.GRU(3, 4, num_layers=2, bidirectional=True).to(dt)
    rec.err("shape", lambda: gru.load_state_dict(sd))
    # the whole module through save/load
    buf = io.BytesIO()
    lib.save(lstm, buf)
    buf.seek(0)
    clone = lib.load(buf, weights_only=False)
    rec("clone", str(clone))
    out3, _ = clone(x, (h0, h0))
    rec("clone_same", (out3 - out).abs().max())
    # a state_dict with a weight-dropped raw parameter mapped back to the plain name
    sd2 = {k.replace("_raw", ""): v for k, v in sd.items()}
    rec("load2", str(twin.load_state_dict(sd2)))
    # parameters_to_vector round trip
    vec = nn.utils.parameters_to_vector(lstm.parameters())
    rec("vec", vec)
    nn.utils.vector_to_parameters(vec * 2, twin.parameters())
    rec("doubled", twin.weight_ih_l0 / lstm.weight_ih_l0)


def p_clipping(lib, dt, rec):
    """Gradient clipping as RNN training loops do it (norms of every kind, per-group, returned
    norms, non-finite gradients) and the perplexity bookkeeping around it."""
    nn = lib.nn
    lib.manual_seed(30)
    model = nn.GRU(3, 5, num_layers=2).to(dt)
    x = lib.randn(9, 2, 3, dtype=dt) * 4
    out, _ = model(x)
    (out.pow(3).sum()).backward()
    grads = [p.grad.clone() for p in model.parameters()]
    for norm_type in (2.0, 1, float("inf"), 0.5):
        for p, g in zip(model.parameters(), grads, strict=True):
            p.grad = g.clone()
        total = nn.utils.clip_grad_norm_(model.parameters(), 0.3, norm_type=norm_type)
        rec(f"total{norm_type}", total)
        rec(f"after{norm_type}", model.weight_hh_l1.grad)
    for p, g in zip(model.parameters(), grads, strict=True):
        p.grad = g.clone()
    rec("foreach", nn.utils.clip_grad_norm_(model.parameters(), 1e6, foreach=True))
    rec("single_tensor", nn.utils.clip_grad_norm_(model.weight_ih_l0, 0.1))
    rec("get_total_norm", nn.utils.get_total_norm([p.grad for p in model.parameters()]))
    nn.utils.clip_grad_value_(model.parameters(), clip_value=0.01)
    rec("value", model.bias_hh_l0.grad)
    model.bias_ih_l1.grad[0] = float("nan")
    rec.err("nonfinite", lambda: nn.utils.clip_grad_norm_(model.parameters(), 1.0,
                                                          error_if_nonfinite=True))  # fmt: skip
    rec("nan_total", nn.utils.clip_grad_norm_(model.parameters(), 1.0))
    rec("nan_spread", model.weight_ih_l0.grad.isnan().all())
    rec("no_grads", nn.utils.clip_grad_norm_([lib.zeros(2, requires_grad=True)], 1.0))
    rec.warns("deprecated", lambda: nn.utils.clip_grad_norm(model.parameters(), 1.0))
    # perplexity bookkeeping
    losses = lib.tensor([4.1, 3.7, 3.2, 2.9], dtype=dt)
    cur = losses.mean().item()
    rec("ppl", math.exp(cur))
    rec("ppl_tensor", lib.exp(losses.mean()))
    rec("bpc", cur / math.log(2))
    rec("fmt", f"| loss {cur:5.2f} | ppl {math.exp(cur):8.2f}")
    lr = 20.0
    sched_opt = lib.optim.SGD(model.parameters(), lr=lr)
    sched = lib.optim.lr_scheduler.ReduceLROnPlateau(sched_opt, mode="min", factor=0.25,
                                                     patience=0)  # fmt: skip
    for v in (5.0, 4.0, 4.5, 4.6, 3.0):
        sched.step(v)
        rec(f"lr{v}", sched_opt.param_groups[0]["lr"])


def p_reparam(lib, dt, rec):
    """Weight normalisation of recurrent weights (hook and parametrization forms), spectral
    norm, and functional calls with substituted weights."""
    nn = lib.nn
    lib.manual_seed(31)
    x = lib.randn(5, 2, 3, dtype=dt)
    lstm = nn.LSTM(3, 4).to(dt)
    base, _ = lstm(x)
    wn = rec.warns("wn_warn", lambda: nn.utils.weight_norm(lstm, "weight_hh_l0"))
    rec("wn_names", str([n for n, _ in wn.named_parameters()]))
    out, _ = wn(x)
    rec("wn_same", (out - base).abs().max())
    with lib.no_grad():
        wn.weight_hh_l0_g.mul_(0.5)
    out, (h, c) = wn(x)
    rec("wn_out", out)
    out.sum().backward()
    rec("wn_g", wn.weight_hh_l0_g.grad)
    rec("wn_v", wn.weight_hh_l0_v.grad)
    nn.utils.remove_weight_norm(wn, "weight_hh_l0")
    rec("wn_removed", str([n for n, _ in wn.named_parameters()]))
    gru = nn.GRU(3, 4).to(dt)
    P = nn.utils.parametrizations
    P.weight_norm(gru, "weight_ih_l0", dim=0)
    rec("pwn_keys", str(list(gru.state_dict().keys())))
    o, hn = gru(x)
    rec("pwn_out", o)
    o.pow(2).sum().backward()
    rec("pwn_g0", gru.parametrizations.weight_ih_l0.original0.grad)
    rnn = nn.RNN(3, 4).to(dt)
    P.spectral_norm(rnn, "weight_hh_l0")
    rnn.train()
    o1, _ = rnn(x)
    rec("sn_out", o1)
    rec("sn_sigma", lib.linalg.matrix_norm(rnn.weight_hh_l0, 2))
    rnn.eval()
    o2, _ = rnn(x)
    rec("sn_eval", o2)
    # functional_call with substituted weights
    params = {k: v.detach() * 0.5 for k, v in lstm.named_parameters()}
    fo, (fh, fc) = lib.func.functional_call(lstm, params, (x,))
    rec("fc_out", fo)
    rec("fc_restored", (lstm(x)[0] - fo).abs().max())
    # manual assignment of a plain tensor, as some pruning code does
    lstm2 = nn.LSTM(3, 4).to(dt)
    w = lstm2.weight_ih_l0.detach().clone()
    del lstm2._parameters["weight_ih_l0"]
    lstm2.weight_ih_l0 = w * (w.abs() > 0.2)
    rec("pruned", lstm2(x)[0])
    rec("pruned_names", str([n for n, _ in lstm2.named_parameters()]))
    prune = importlib.import_module(lib.__name__ + ".nn.utils.prune")
    lstm3 = nn.LSTM(3, 4).to(dt)
    prune.l1_unstructured(lstm3, "weight_hh_l0", amount=0.5)
    rec("prune_buffers", str([n for n, _ in lstm3.named_buffers()]))
    rec("prune_out", lstm3(x)[0])
    rec("sparsity", (lstm3.weight_hh_l0 == 0).sum())


def p_legacy_tutorial(lib, dt, rec):
    """The character-level name classifier of the PyTorch tutorials (a hand-rolled RNN with
    i2h/i2o, LogSoftmax, NLLLoss, a manual SGD update through .data) in the older spellings
    (Variable, volatile, legacy constructors, .data[0])."""
    nn = lib.nn
    lib.manual_seed(32)
    all_letters = "abcdefghijklmnopqrstuvwxyz"
    n_letters = len(all_letters)
    categories = ["en", "fr", "it"]
    names = {"en": ["smith", "jones"], "fr": ["dubois", "moreau"], "it": ["rossi", "bianchi"]}

    def line_to_tensor(line):
        tensor = lib.zeros(len(line), 1, n_letters, dtype=dt)
        for li, letter in enumerate(line):
            tensor[li][0][all_letters.find(letter)] = 1
        return tensor

    class RNN(nn.Module):
        def __init__(self, input_size, hidden_size, output_size):
            super().__init__()
            self.hidden_size = hidden_size
            self.i2h = nn.Linear(input_size + hidden_size, hidden_size)
            self.i2o = nn.Linear(input_size + hidden_size, output_size)
            self.softmax = nn.LogSoftmax(dim=1)

        def forward(self, input, hidden):
            combined = lib.cat((input, hidden), 1)
            hidden = self.i2h(combined)
            output = self.softmax(self.i2o(combined))
            return output, hidden

        def init_hidden(self):
            return lib.zeros(1, self.hidden_size, dtype=dt)

    rnn = RNN(n_letters, 8, len(categories)).to(dt)
    criterion = nn.NLLLoss()
    lr = 0.05
    rng = random.Random(32)
    for it in range(12):
        category = rng.choice(categories)
        line = rng.choice(names[category])
        category_tensor = lib.autograd.Variable(lib.LongTensor([categories.index(category)]))
        line_tensor = lib.autograd.Variable(line_to_tensor(line))
        hidden = rnn.init_hidden()
        rnn.zero_grad()
        for i in range(line_tensor.size()[0]):
            output, hidden = rnn(line_tensor[i], hidden)
        loss = criterion(output, category_tensor)
        loss.backward()
        for p in rnn.parameters():
            p.data.add_(p.grad.data, alpha=-lr)
        rec(f"loss{it}", loss)
        top_n, top_i = output.data.topk(1)
        rec(f"guess{it}", top_i[0][0])
    rec.err("data0", lambda: loss.data[0])
    rec("item", loss.data.item())
    v = rec.warns("volatile", lambda: lib.autograd.Variable(line_to_tensor("ab"), volatile=True))
    rec("volatile_grad", str(v.requires_grad))
    rec("FloatTensor", lib.FloatTensor(2, 3).zero_())
    rec("LongTensor", lib.LongTensor([[1, 2], [3, 4]]))
    rec("new_ones", line_to_tensor("ab").data.new(2, 2).fill_(1))
    rec("type", line_to_tensor("ab").type())
    rec("cast", str(line_to_tensor("ab").type(lib.LongTensor).dtype))
    # predictions for every name, without gradients
    with lib.no_grad():
        preds = []
        for c in categories:
            for name in names[c]:
                hidden = rnn.init_hidden()
                t = line_to_tensor(name)
                for i in range(t.size(0)):
                    output, hidden = rnn(t[i], hidden)
                topv, topi = output.topk(2, 1, True)
                preds.append(topi[0].tolist())
                rec(f"p_{name}", topv.exp())
    rec("preds", preds)
    confusion = lib.zeros(3, 3, dtype=dt)
    for c, p in zip([0, 0, 1, 1, 2, 2], preds, strict=True):
        confusion[c][p[0]] += 1
    confusion = confusion / confusion.sum(1, keepdim=True)
    rec("confusion", confusion)


def p_subclass_forward(lib, dt, rec):
    """A subclass of nn.LSTM whose forward is torch's own, copied the way weight-drop and
    custom-dropout repositories copy it: permute_hidden, check_forward_args and _VF.lstm over
    self._flat_weights, for padded and packed input."""
    nn = lib.nn
    PackedSequence = nn.utils.rnn.PackedSequence
    _VF = lib._VF

    class DropConnectLSTM(nn.LSTM):
        def __init__(self, *args, weight_dropout=0.0, **kwargs):
            super().__init__(*args, **kwargs)
            self.weight_dropout = weight_dropout

        def forward(self, input, hx=None):
            orig_input = input
            if isinstance(orig_input, PackedSequence):
                input, batch_sizes, sorted_indices, unsorted_indices = input
                max_batch_size = int(batch_sizes[0])
            else:
                batch_sizes = None
                max_batch_size = input.size(0) if self.batch_first else input.size(1)
                sorted_indices = unsorted_indices = None
            if hx is None:
                num_directions = 2 if self.bidirectional else 1
                shape = (self.num_layers * num_directions, max_batch_size, self.hidden_size)
                zeros = lib.zeros(shape, dtype=input.dtype, device=input.device)
                hx = (zeros, zeros)
            else:
                hx = self.permute_hidden(hx, sorted_indices)
            self.check_forward_args(input, hx, batch_sizes)
            weights = [
                nn.functional.dropout(w, self.weight_dropout, self.training)
                if "weight_hh" in name
                else w
                for name, w in zip(self._flat_weights_names, self._flat_weights, strict=True)
            ]
            if batch_sizes is None:
                result = _VF.lstm(input, hx, weights, self.bias, self.num_layers, self.dropout,
                                  self.training, self.bidirectional, self.batch_first)  # fmt: skip
            else:
                result = _VF.lstm(input, batch_sizes, hx, weights, self.bias, self.num_layers,
                                  self.dropout, self.training, self.bidirectional)  # fmt: skip
            output, hidden = result[0], result[1:]
            if isinstance(orig_input, PackedSequence):
                output = PackedSequence(output, batch_sizes, sorted_indices, unsorted_indices)
            return output, self.permute_hidden(hidden, unsorted_indices)

    lib.manual_seed(33)
    m = DropConnectLSTM(3, 4, num_layers=2, bidirectional=True, weight_dropout=0.3).to(dt)
    plain = nn.LSTM(3, 4, num_layers=2, bidirectional=True).to(dt)
    plain.load_state_dict(m.state_dict())
    x = lib.randn(6, 3, 3, dtype=dt)
    out, (h, c) = m(x)
    rec("train_out", out)
    out.sum().backward()
    rec("g_hh", m.weight_hh_l1_reverse.grad)
    m.eval()
    out, (h, c) = m(x)
    ref, (rh, rc) = plain(x)
    rec("eval_same", (out - ref).abs().max())
    lengths = lib.tensor([4, 6, 2])
    packed = nn.utils.rnn.pack_padded_sequence(x, lengths, enforce_sorted=False)
    h0 = lib.randn(4, 3, 4, dtype=dt)
    pout, (ph, pc) = m(packed, (h0, h0 * 0.5))
    rout, (rph, rpc) = plain(packed, (h0, h0 * 0.5))
    rec("packed_same", (pout.data - rout.data).abs().max())
    rec("ph", ph)
    rec("ph_same", (ph - rph).abs().max())
    rec("expected_h", str(m.get_expected_hidden_size(x, None)))
    rec("expected_c", str(m.get_expected_cell_size(packed.data, packed.batch_sizes)))
    rec.err("check_bad", lambda: m.check_forward_args(x, (h0[:2], h0), None))
    rec.err("check_bad_c", lambda: m.check_forward_args(x, (h0, h0[:, :2]), None))
    rec.err("check_input", lambda: m.check_input(x[0], None))
    rec.err("check_input_size", lambda: m.check_input(x[..., :2], None))
    rec.err("check_dtype", lambda: m.check_input(x.to(lib.float16), None))
    rec.err("check_hidden", lambda: m.check_hidden_size(h0, (4, 2, 4)))
    gru = nn.GRU(3, 4, batch_first=True).to(dt)
    rec("gru_expected", str(gru.get_expected_hidden_size(x, None)))
    rec.err("gru_check", lambda: gru.check_forward_args(x, lib.zeros(1, 3, 4, dtype=dt), None))
    rec("gru_permute", gru.permute_hidden(lib.arange(6.0).view(1, 3, 2), lib.tensor([2, 0, 1])))
    rec("lstm_permute", m.permute_hidden((h0, h0 + 1), lib.tensor([1, 0, 2]))[1])
    rnn_mod = importlib.import_module(lib.__name__ + ".nn.modules.rnn")
    perm = lib.tensor([2, 0, 1])
    rec("apply_perm", rec.warns("perm_warns", lambda: rnn_mod.apply_permutation(h0, perm)))
    rec("packed_same", str(rnn_mod.PackedSequence is PackedSequence))
    rec("vf_cell", _VF.lstm_cell(x[0], (h0[0], h0[1]), m.weight_ih_l0, m.weight_hh_l0)[1])


def p_adaptive_lm(lib, dt, rec):
    """A word LM with an adaptive softmax head (transformer-xl / fairseq style): LSTM features,
    AdaptiveLogSoftmaxWithLoss with tied head, log_prob and predict."""
    nn = lib.nn
    lib.manual_seed(34)
    vocab = 30
    emb = nn.Embedding(vocab, 8).to(dt)
    lstm = nn.LSTM(8, 8, batch_first=True).to(dt)
    asm = nn.AdaptiveLogSoftmaxWithLoss(8, vocab, cutoffs=[5, 15], div_value=2.0).to(dt)
    rec("repr", str(asm))
    params = list(emb.parameters()) + list(lstm.parameters()) + list(asm.parameters())
    opt = lib.optim.Adagrad(params, lr=0.1)
    stream = _corpus(lib, 3 * 13, vocab, 35).view(3, 13)
    inp, tgt = stream[:, :-1], stream[:, 1:]
    hidden = None
    for step in range(3):
        opt.zero_grad()
        feats, hidden = lstm(emb(inp), hidden)
        hidden = repackage_hidden(lib, hidden)
        res = asm(feats.reshape(-1, 8), tgt.reshape(-1))
        res.loss.backward()
        opt.step()
        rec(f"loss{step}", res.loss)
        rec(f"out{step}", res.output)
    with lib.no_grad():
        lp = asm.log_prob(feats.reshape(-1, 8))
        rec("log_prob", lp)
        rec("norm", lp.exp().sum(1))
        rec("predict", asm.predict(feats.reshape(-1, 8)))
    rec.err("bad_target", lambda: asm(feats.reshape(-1, 8), tgt.reshape(-1) + vocab))
    rec.err("bad_cutoffs", lambda: nn.AdaptiveLogSoftmaxWithLoss(8, vocab, cutoffs=[15, 5]))


def p_double_backward(lib, dt, rec):
    """Gradient penalties and Hessian-vector products through recurrent layers (WGAN-GP on a
    sequence critic, curvature probes)."""
    nn = lib.nn
    lib.manual_seed(36)
    lstm = nn.LSTM(3, 4, batch_first=True).to(dt)
    gru = nn.GRU(3, 4).to(dt)
    head = nn.Linear(4, 1).to(dt)
    x = lib.randn(2, 5, 3, dtype=dt, requires_grad=True)
    out, _ = lstm(x)
    score = head(out[:, -1]).sum()
    (gx,) = lib.autograd.grad(score, x, create_graph=True)
    penalty = ((gx.reshape(2, -1).norm(2, dim=1) - 1) ** 2).mean()
    penalty.backward()
    rec("gx", gx)
    rec("penalty", penalty)
    rec("g_whh", lstm.weight_hh_l0.grad)
    rec("g_head", head.weight.grad)
    y, _ = gru(x.detach().transpose(0, 1))
    loss = y.pow(2).sum()
    params = list(gru.parameters())
    grads = lib.autograd.grad(loss, params, create_graph=True)
    v = [lib.ones_like(p) for p in params]
    gv = sum((g * vv).sum() for g, vv in zip(grads, v, strict=True))
    hv = lib.autograd.grad(gv, params)
    for i, h in enumerate(hv):
        rec(f"hv{i}", h)
    cell = nn.LSTMCell(3, 4).to(dt)
    xs = x.detach()[0].clone().requires_grad_()
    h, c = cell(xs)
    (g1,) = lib.autograd.grad(c.sum() + h.pow(2).sum(), xs, create_graph=True)
    (g2,) = lib.autograd.grad(g1.pow(2).sum(), xs)
    rec("cell_g2", g2)


def p_sequence_classifier(lib, dt, rec):
    """Padded sequence classification: last real time step by gather, masked mean pooling, a
    bidirectional GRU read out through pack/pad, in-place detach_ of carried states."""
    nn, F = lib.nn, lib.nn.functional
    lib.manual_seed(37)
    seqs = [lib.randn(n, 4, dtype=dt) for n in (5, 2, 4, 1)]
    lengths = lib.tensor([5, 2, 4, 1])
    x = nn.utils.rnn.pad_sequence(seqs, batch_first=True)
    rec("left_pad", nn.utils.rnn.pad_sequence(seqs, batch_first=True, padding_side="left",
                                              padding_value=-1.0)[:, :, 0])  # fmt: skip
    labels = lib.tensor([0, 2, 1, 2])
    gru = nn.GRU(4, 3, batch_first=True, bidirectional=True, dtype=dt)
    clf = nn.Linear(6 * 2, 3, dtype=dt)
    opt = lib.optim.AdamW(list(gru.parameters()) + list(clf.parameters()), lr=0.05)
    for step in range(3):
        opt.zero_grad()
        out, h = gru(x)
        idx = (lengths - 1).view(-1, 1, 1).expand(-1, 1, out.size(2))
        last = out.gather(1, idx).squeeze(1)
        mask = (lib.arange(x.size(1))[None, :] < lengths[:, None]).unsqueeze(-1)
        mean = (out * mask).sum(1) / lengths[:, None]
        logits = clf(lib.cat([last, mean], dim=1))
        loss = F.cross_entropy(logits, labels, label_smoothing=0.1)
        loss.backward()
        opt.step()
        rec(f"loss{step}", loss)
    rec("last", last)
    rec("pred", logits.argmax(1))
    packed = nn.utils.rnn.pack_padded_sequence(x, lengths, batch_first=True,
                                               enforce_sorted=False)  # fmt: skip
    pout, ph = gru(packed)
    rec("ph", ph)
    final = lib.cat([ph[-2], ph[-1]], dim=1)
    rec("final", final)
    rec("acc", (clf(lib.cat([final, final], 1)).argmax(1) == labels).float().mean())
    # carried states detached in place between chunks
    lstm = nn.LSTM(4, 3, dtype=dt)
    state = None
    for chunk in x.transpose(0, 1).split(2):
        out, state = lstm(chunk, state)
        state[0].detach_()
        state[1].detach_()
        rec("state_leaf", str(state[0].is_leaf) + str(state[0].grad_fn))
    rec("carried", state[1])
    out.sum().backward()
    rec("g_hh", lstm.weight_hh_l0.grad)


def p_reinforce_generator(lib, dt, rec):
    """A GRU sequence generator trained by REINFORCE (Categorical sampling, log_prob, entropy
    bonus, moving baseline), with Gumbel-softmax relaxed samples and scheduled sampling by a
    per-example Bernoulli draw."""
    nn, F = lib.nn, lib.nn.functional
    D = lib.distributions
    lib.manual_seed(38)
    vocab, hid, B, T = 7, 6, 4, 5
    emb = nn.Embedding(vocab, hid).to(dt)
    cell = nn.GRUCell(hid, hid).to(dt)
    out = nn.Linear(hid, vocab).to(dt)
    params = [*emb.parameters(), *cell.parameters(), *out.parameters()]
    opt = lib.optim.Adam(params, lr=0.05, betas=(0.8, 0.99))
    baseline = 0.0
    for it in range(3):
        opt.zero_grad()
        h = lib.zeros(B, hid, dtype=dt)
        tok = lib.zeros(B, dtype=lib.long)
        logps, ents, toks = [], [], []
        for _ in range(T):
            h = cell(emb(tok), h)
            dist = D.Categorical(logits=out(h))
            tok = dist.sample()
            logps.append(dist.log_prob(tok))
            ents.append(dist.entropy())
            toks.append(tok)
        seq = lib.stack(toks, 1)
        reward = (seq == 3).to(dt).sum(1)
        adv = reward - baseline
        loss = -(lib.stack(logps, 1).sum(1) * adv).mean() - 0.01 * lib.stack(ents).mean()
        loss.backward()
        opt.step()
        baseline = 0.9 * baseline + 0.1 * reward.mean().item()
        rec(f"seq{it}", seq)
        rec(f"loss{it}", loss)
        rec(f"baseline{it}", baseline)
    # Gumbel-softmax: soft and straight-through samples feed the next step
    h = lib.zeros(B, hid, dtype=dt)
    logits = out(h + 0.3)
    soft = F.gumbel_softmax(logits, tau=0.5)
    hard = F.gumbel_softmax(logits, tau=0.5, hard=True)
    rec("soft", soft)
    rec("hard", hard)
    nxt = cell(hard @ emb.weight, h)
    nxt.sum().backward()
    rec("g_logits_path", out.weight.grad)
    # scheduled sampling: each example's next input chosen by a Bernoulli draw
    trg = lib.randint(vocab, (T, B))
    ratio = lib.full((B,), 0.6, dtype=dt)
    h = lib.zeros(B, hid, dtype=dt)
    tok = trg[0]
    chosen = []
    with lib.no_grad():
        for t in range(1, T):
            h = cell(emb(tok), h)
            pred = out(h).argmax(-1)
            use_teacher = lib.bernoulli(ratio).bool()
            tok = lib.where(use_teacher, trg[t], pred)
            chosen.append(use_teacher)
    rec("teacher", lib.stack(chosen))
    rec("final_h", h)
    rec("coin", str(lib.rand(1).item() < 0.5))


def p_nucleus_sampling(lib, dt, rec):
    """A one-hot char-RNN with a learned initial state, variable-length BPTT as AWD-LSTM draws
    it, and top-k / top-p (nucleus) sampling with a Generator."""
    nn, F = lib.nn, lib.nn.functional
    lib.manual_seed(39)
    n_chars = 11

    class OneHotRNN(nn.Module):
        def __init__(self):
            super().__init__()
            self.h0 = nn.Parameter(lib.zeros(1, 1, 7))
            self.c0 = nn.Parameter(lib.zeros(1, 1, 7))
            self.rnn = nn.LSTM(n_chars, 7)
            self.out = nn.Linear(7, n_chars)

        def forward(self, x, state=None):
            if state is None:
                b = x.size(1)
                state = (self.h0.expand(-1, b, -1).contiguous(),
                         self.c0.expand(-1, b, -1).contiguous())  # fmt: skip
            y, state = self.rnn(F.one_hot(x, n_chars).to(self.out.weight.dtype), state)
            return self.out(y), state

    model = OneHotRNN().to(dt)
    opt = lib.optim.SGD(model.parameters(), lr=0.5, momentum=0.9, nesterov=True)
    data = batchify(_corpus(lib, 120, n_chars, 40), 4)
    rng = random.Random(40)
    base_bptt, i, step, state = 8, 0, 0, None
    while i < data.size(0) - 2 and step < 5:
        bptt = base_bptt if rng.random() < 0.95 else base_bptt / 2.0
        seq_len = max(3, int(rng.gauss(bptt, 2)))
        opt.param_groups[0]["lr"] = 0.5 * seq_len / base_bptt
        x, y = get_batch(data, i, seq_len)
        state = None if state is None else repackage_hidden(lib, state)
        opt.zero_grad()
        logits, state = model(x, state)
        loss = F.cross_entropy(logits.view(-1, n_chars), y)
        loss.backward()
        opt.step()
        rec(f"seq_len{step}", seq_len)
        rec(f"loss{step}", loss)
        i += seq_len
        step += 1
    rec("h0", model.h0)
    g = lib.Generator().manual_seed(41)

    def top_p_filter(logits, top_p):
        sorted_logits, sorted_idx = lib.sort(logits, descending=True)
        cum = lib.cumsum(F.softmax(sorted_logits, dim=-1), dim=-1)
        remove = cum > top_p
        remove[..., 1:] = remove[..., :-1].clone()
        remove[..., 0] = False
        mask = remove.scatter(-1, sorted_idx, remove)
        return logits.masked_fill(mask, float("-inf"))

    def top_k_filter(logits, k):
        v, _ = lib.topk(logits, k)
        return lib.where(logits < v[..., -1:], lib.full_like(logits, float("-inf")), logits)

    with lib.no_grad():
        x = lib.zeros(1, 3, dtype=lib.long)
        state, samples = None, []
        for t in range(10):
            logits, state = model(x, state)
            logits = logits[-1] / 0.9
            filt = top_p_filter(logits, 0.8) if t % 2 else top_k_filter(logits, 4)
            probs = F.softmax(filt, dim=-1)
            nxt = lib.multinomial(probs, 1, generator=g)
            samples.append(nxt.squeeze(1))
            x = nxt.t()
        rec("filtered", filt)
        rec("probs", probs)
        rec("samples", lib.stack(samples, 1))
        rec("log_probs", lib.log_softmax(logits, -1).gather(1, nxt))
