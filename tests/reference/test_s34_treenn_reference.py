"""Session 34 (helper treenn): dynamic, data-dependent computation graphs written the way tree
and recursive networks are written in torch, run under torch and minitorch with the same seeds
and compared record by record: child-sum and binary (N-ary) TreeLSTMs over parse trees written
with Python recursion, Socher-style recursive networks with a classifier at every node, per
example graphs of different shapes in one batch loop with the losses summed over a list, level
by level bottom-up batching (index_select of children, index_add_/scatter_add_ of their states
into parents), tree-structured attention over a stack of node states, shared subtrees (a DAG),
per-node gradients through retain_grad and hooks, retain_graph and backward twice,
autograd.grad through the recursion (and a gradient penalty with create_graph), gradcheck and
gradgradcheck on small trees, pad_sequence of children lists, a few optimizer steps, and the
errors users hit (stack or cat of an empty list, cat shape mismatches, index_select, gather,
scatter_add and index_add out of range, backward through a freed graph), backward(inputs=)
on chosen nodes, nn.MultiheadAttention over a padded forest, and what a graph drawer reads off
the index ops' nodes. float64 must agree to 1e-10 of each record's scale, float32 to 1e-4;
texts exactly.

Found and fixed:
- IndexSelectBackward0, GatherBackward0, ScatterAddBackward0 and IndexAddBackward0 had no
  _saved_* attributes (torchviz's make_dot(show_saved=True) reads them); now torch's:
  _saved_dim (a negative dim read back as 2**64 + dim, as torch's binding shows it),
  _saved_index, _saved_self_sym_sizes, gather's _saved_self and _saved_sparse_grad,
  index_add's _saved_alpha/_saved_source/_saved_source_dim (index and source None when the
  source wants no gradient), the tensors raising torch's freed-graph error after backward.
- index_add did not save its source: a message tensor changed in place between index_add and
  backward went unnoticed; torch raises "one of the variables needed for gradient computation
  has been modified by an inplace operation ... output 0 of Mul ..." (only when the source
  requires grad; a constant source is not saved, as in torch).

Known and left (documented):
- CatBackward0/StackBackward0/UnbindBackward0 (and other ops') _saved_dim is the wrapped dim;
  torch keeps the caller's, a negative one as 2**64 + dim (as tests/reference/
  test_s30_introspect_reference.py notes); the programs record non-negative dims there.
- SplitBackward0/SplitWithSizesBackward0 (split, chunk), EmbeddingBackward0 and
  IndexBackward0 (x[index_tensor]) expose no _saved_* attributes (torch: _saved_dim,
  _saved_split_size(s), _saved_self_sym_sizes, _saved_indices, _saved_padding_idx, ...);
  nor do the index nodes answer _raw_saved_index. Not recorded.
- The records run on the CPU only; the strict test device and CuPy are not exercised here."""

from __future__ import annotations

import pytest

from tests.reference._one_thread import one_torch_thread  # noqa: F401 - an autouse fixture
from tests.reference._programs import assert_program_matches
from tests.reference._programs import seeded_randn as _randn

torch = pytest.importorskip("torch")


PROGRAMS = [
    "childsum", "binary_treelstm", "recnn_sentiment", "batch_loop", "level_batching",
    "tree_attention", "shared_subtree", "node_grads", "retain_graph", "autograd_grad",
    "gradcheck", "list_reductions", "gather_scatter", "pad_children", "errors",
    "index_errors", "train_steps", "no_grad_inference", "max_pool_children", "tree_gru",
    "saved_attrs", "index_add_modified", "mha_forest", "backward_inputs",
]  # fmt: skip


@pytest.mark.parametrize("dt", ["float64", "float32"])
@pytest.mark.parametrize("name", PROGRAMS)
def test_program_matches_torch(name, dt):
    assert_program_matches(globals()["p_" + name], torch, dt)


# --- trees and cells: a tree is a word id (a leaf) or a tuple of subtrees ---

TREES = [
    ((0, 1), (2, (3, 4))),
    (5, (6, 7)),
    (((1, 2), 3), (4, (5, (6, 0)))),
    (2, 3, (4, 5, 6)),
    7,
]
VOCAB, EMB, HID, CLASSES = 8, 4, 5, 3


def _leaves(tree):
    return [tree] if isinstance(tree, int) else [w for t in tree for w in _leaves(t)]


def _binarize(tree):
    if isinstance(tree, int):
        return tree
    kids = [_binarize(t) for t in tree]
    while len(kids) > 2:
        kids = [(kids[0], kids[1]), *kids[2:]]
    return tuple(kids) if len(kids) == 2 else kids[0]


def _make_childsum(lib, dt, seed):
    nn = lib.nn
    lib.manual_seed(seed)
    m = nn.ModuleDict(
        {
            "emb": nn.Embedding(VOCAB, EMB),
            "ioux": nn.Linear(EMB, 3 * HID),
            "iouh": nn.Linear(HID, 3 * HID, bias=False),
            "fx": nn.Linear(EMB, HID),
            "fh": nn.Linear(HID, HID, bias=False),
            "out": nn.Linear(HID, CLASSES),
        }
    )
    return m.to(dt)


def _childsum_node(lib, m, tree, states):
    """Child-sum TreeLSTM (Tai et al. 2015) by recursion; appends each node's h to states."""
    hid = m["iouh"].in_features
    if isinstance(tree, int):
        x = m["emb"](lib.tensor([tree]))[0]
        child_h = lib.zeros(0, hid, dtype=x.dtype)
        child_c = lib.zeros(0, hid, dtype=x.dtype)
    else:
        x = lib.zeros(m["emb"].embedding_dim, dtype=m["emb"].weight.dtype)
        pairs = [_childsum_node(lib, m, t, states) for t in tree]
        child_h = lib.stack([h for h, _ in pairs])
        child_c = lib.stack([c for _, c in pairs])
    h_sum = child_h.sum(0)
    iou = m["ioux"](x) + m["iouh"](h_sum)
    i, o, u = lib.split(iou, hid, dim=-1)
    i, o, u = lib.sigmoid(i), lib.sigmoid(o), lib.tanh(u)
    f = lib.sigmoid(m["fh"](child_h) + m["fx"](x).repeat(len(child_h), 1))
    c = i * u + (f * child_c).sum(0)
    h = o * lib.tanh(c)
    states.append(h)
    return h, c


def p_childsum(lib, dt, rec):
    m = _make_childsum(lib, dt, 3)
    F = lib.nn.functional
    losses = []
    for k, tree in enumerate(TREES):
        states = []
        h, c = _childsum_node(lib, m, tree, states)
        rec(f"h{k}", h)
        rec(f"c{k}", c)
        rec(f"n{k}", len(states))
        logits = m["out"](h).unsqueeze(0)
        losses.append(F.cross_entropy(logits, lib.tensor([k % CLASSES])))
    loss = sum(losses) / len(losses)
    rec("loss", loss)
    loss.backward()
    rec.params("m", m, grads=True)
    rec("grad_fn", type(loss.grad_fn).__name__)


class _Binary:
    """Binary TreeLSTM cell (N-ary with N = 2): a forget gate per child."""

    def __init__(self, lib, dt, seed):
        nn = lib.nn
        lib.manual_seed(seed)
        self.lib = lib
        self.emb = nn.Embedding(VOCAB, EMB).to(dt)
        self.leaf = nn.Linear(EMB, 2 * HID).to(dt)
        self.comp = nn.Linear(2 * HID, 5 * HID).to(dt)
        self.mods = nn.ModuleList([self.emb, self.leaf, self.comp])

    def __call__(self, tree):
        lib = self.lib
        if isinstance(tree, int):
            c, o = self.leaf(self.emb.weight[tree]).chunk(2)
            c = lib.tanh(c)
            return lib.sigmoid(o) * lib.tanh(c), c
        (hl, cl), (hr, cr) = self(tree[0]), self(tree[1])
        gates = self.comp(lib.cat([hl, hr]))
        i, fl, fr, o, u = gates.chunk(5)
        c = lib.sigmoid(i) * lib.tanh(u) + lib.sigmoid(fl) * cl + lib.sigmoid(fr) * cr
        return lib.sigmoid(o) * lib.tanh(c), c


def p_binary_treelstm(lib, dt, rec):
    cell = _Binary(lib, dt, 5)
    outs = []
    for k, tree in enumerate(TREES):
        h, c = cell(_binarize(tree))
        rec(f"h{k}", h)
        outs.append(h)
    hs = lib.stack(outs)
    rec("hs", hs)
    target = _randn(lib, dt, 11, len(TREES), HID)
    loss = lib.nn.functional.mse_loss(hs, target)
    loss.backward()
    rec("loss", loss)
    rec.params("cell", cell.mods, grads=True)


def _recnn(lib, m, tree, logits):
    """Socher-style recursive network: p = tanh(W [l; r] + b); logits at every node."""
    if isinstance(tree, int):
        h = m["emb"](lib.tensor(tree))
    else:
        kids = [_recnn(lib, m, t, logits) for t in tree]
        h = kids[0]
        for r in kids[1:]:
            h = lib.tanh(m["comp"](lib.cat((h, r), dim=0)))
    logits.append(m["cls"](h))
    return h


def _make_recnn(lib, dt, seed):
    nn = lib.nn
    lib.manual_seed(seed)
    return nn.ModuleDict(
        {
            "emb": nn.Embedding(VOCAB, HID),
            "comp": nn.Linear(2 * HID, HID),
            "cls": nn.Linear(HID, CLASSES),
        }
    ).to(dt)


def p_recnn_sentiment(lib, dt, rec):
    m = _make_recnn(lib, dt, 7)
    F = lib.nn.functional
    total = 0
    for k, tree in enumerate(TREES):
        logits = []
        root = _recnn(lib, m, tree, logits)
        rec(f"root{k}", root)
        stacked = lib.stack(logits)
        labels = lib.arange(len(logits)) % CLASSES
        loss = F.cross_entropy(stacked, labels, reduction="sum")
        rec(f"loss{k}", loss)
        rec(f"pred{k}", stacked.argmax(-1) if dt == lib.float64 else stacked.shape[0])
        total = total + loss
    total.backward()
    rec("total", total)
    rec.params("m", m, grads=True)


def p_batch_loop(lib, dt, rec):
    """Graphs of different shapes per example, one loss list per batch, a few SGD steps."""
    m = _make_childsum(lib, dt, 13)
    opt = lib.optim.SGD(m.parameters(), lr=0.5, momentum=0.9)
    F = lib.nn.functional
    batches = [TREES[:2], TREES[2:], TREES[1:4]]
    for step, batch in enumerate(batches):
        opt.zero_grad()
        losses = []
        for k, tree in enumerate(batch):
            h, _ = _childsum_node(lib, m, tree, [])
            losses.append(F.cross_entropy(m["out"](h)[None], lib.tensor([(k + step) % 3])))
        loss = lib.stack(losses).mean()
        loss.backward()
        norm = lib.nn.utils.clip_grad_norm_(m.parameters(), 0.5)
        rec(f"loss{step}", loss)
        rec(f"norm{step}", norm)
        opt.step()
    rec.params("m", m)


def _levels(tree):
    """Nodes in post-order with (word, children ids, level) for level batching."""
    nodes = []

    def visit(t):
        if isinstance(t, int):
            nodes.append((t, [], 0))
            return len(nodes) - 1, 0
        kids = [visit(s) for s in t]
        lvl = 1 + max(lv for _, lv in kids)
        nodes.append((-1, [i for i, _ in kids], lvl))
        return len(nodes) - 1, lvl

    visit(tree)
    return nodes


def p_level_batching(lib, dt, rec):
    """Bottom-up level batching of a child-sum cell over a forest: index_select the children's
    states, index_add_ / scatter_add_ them into their parents, level by level."""
    m = _make_childsum(lib, dt, 17)
    nodes, offset, roots = [], 0, []
    for tree in TREES[:4]:
        ns = _levels(tree)
        nodes += [(w, [c + offset for c in kids], lv) for w, kids, lv in ns]
        offset += len(ns)
        roots.append(offset - 1)
    n = len(nodes)
    words = lib.tensor([max(w, 0) for w, _, _ in nodes])
    is_leaf = lib.tensor([w >= 0 for w, _, _ in nodes], dtype=dt).unsqueeze(1)
    x = m["emb"](words) * is_leaf
    h = lib.zeros(n, HID, dtype=dt)
    c = lib.zeros(n, HID, dtype=dt)
    top = max(lv for _, _, lv in nodes)
    for lv in range(top + 1):
        idx = lib.tensor([i for i, (_, _, l2) in enumerate(nodes) if l2 == lv])
        child = [(p, ch) for p in idx.tolist() for ch in nodes[p][1]]
        xl = x.index_select(0, idx)
        if child:
            par = lib.tensor([p for p, _ in child])
            ch = lib.tensor([q for _, q in child])
            h_sum = lib.zeros(n, HID, dtype=dt).index_add(0, par, h.index_select(0, ch))
            h_sum = h_sum.index_select(0, idx)
            fx = m["fx"](x.index_select(0, par))
            f = lib.sigmoid(m["fh"](h.index_select(0, ch)) + fx)
            fc = f * c.index_select(0, ch)
            slot = par.unsqueeze(1).expand(-1, HID)
            fc_sum = lib.zeros(n, HID, dtype=dt).scatter_add(0, slot, fc).index_select(0, idx)
        else:
            h_sum = lib.zeros(len(idx), HID, dtype=dt)
            fc_sum = lib.zeros(len(idx), HID, dtype=dt)
        i, o, u = (m["ioux"](xl) + m["iouh"](h_sum)).chunk(3, dim=1)
        cl = lib.sigmoid(i) * lib.tanh(u) + fc_sum
        hl = lib.sigmoid(o) * lib.tanh(cl)
        mask = lib.zeros(n, 1, dtype=dt).index_fill(0, idx, 1.0)
        h = h * (1 - mask) + lib.zeros(n, HID, dtype=dt).index_copy(0, idx, hl)
        c = c * (1 - mask) + lib.zeros(n, HID, dtype=dt).index_copy(0, idx, cl)
        rec(f"level{lv}", hl)
    root_h = h[lib.tensor(roots)]
    rec("roots", root_h)
    # the recursion gives the same roots
    for k, tree in enumerate(TREES[:4]):
        hr, _ = _childsum_node(lib, m, tree, [])
        rec(f"same{k}", (hr - root_h[k]).abs().max())
    loss = root_h.pow(2).sum()
    loss.backward()
    rec.params("m", m, grads=True)


def p_tree_attention(lib, dt, rec):
    """Attention of a query over all node states of a tree (a stack of a Python list)."""
    m = _make_childsum(lib, dt, 19)
    q = _randn(lib, dt, 21, HID).requires_grad_(True)
    F = lib.nn.functional
    outs = []
    for k, tree in enumerate(TREES):
        states = []
        _childsum_node(lib, m, tree, states)
        keys = lib.stack(states)
        scores = keys @ q / HID**0.5
        att = F.softmax(scores, dim=0)
        ctx = att @ keys
        rec(f"att{k}", att)
        rec(f"ctx{k}", ctx)
        outs.append(ctx)
    loss = lib.cat(outs).sum()
    loss.backward()
    rec("gq", q.grad)
    rec.params("m", m, grads=True)
    # masked multi-tree attention with padding
    lens = [len(_leaves(t)) for t in TREES]
    keys = lib.nn.utils.rnn.pad_sequence(
        [m["emb"](lib.tensor(_leaves(t))) for t in TREES], batch_first=True
    )
    mask = lib.arange(max(lens))[None, :] < lib.tensor(lens)[:, None]
    scores = (keys @ m["emb"].weight[0]).masked_fill(~mask, float("-inf"))
    rec("masked_att", F.softmax(scores, dim=1))


def p_shared_subtree(lib, dt, rec):
    """A DAG: one subtree's state used by two parents; its gradient accumulates."""
    cell = _Binary(lib, dt, 23)
    shared_h, shared_c = cell((1, 2))
    shared_h.retain_grad()
    a = cell.comp(lib.cat([shared_h, cell(3)[0]]))
    b = cell.comp(lib.cat([cell(4)[0], shared_h]))
    loss = (a * b).sum() + shared_c.sum()
    loss.backward()
    rec("g_shared", shared_h.grad)
    rec("loss", loss)
    rec.params("cell", cell.mods, grads=True)


def p_node_grads(lib, dt, rec):
    """Per-node gradients of a recursive net through retain_grad and tensor hooks."""
    m = _make_recnn(lib, dt, 29)
    seen = []

    def walk(tree):
        if isinstance(tree, int):
            h = m["emb"].weight[tree] * 1.0
        else:
            left, right = walk(tree[0]), walk(tree[1])
            h = lib.tanh(m["comp"](lib.cat([left, right])))
        h.retain_grad()
        h.register_hook(lambda g: seen.append(g.norm()))
        nodes.append(h)
        return h

    nodes = []
    root = walk(_binarize(TREES[2]))
    (m["cls"](root).logsumexp(0)).backward()
    for k, h in enumerate(nodes):
        rec(f"g{k}", h.grad)
        rec(f"leaf{k}", h.is_leaf)
    rec("hook_norms", lib.stack(seen))
    rec("emb_grad", m["emb"].weight.grad)


def p_retain_graph(lib, dt, rec):
    m = _make_recnn(lib, dt, 31)
    logits = []
    root = _recnn(lib, m, TREES[0], logits)
    loss = lib.stack(logits).pow(2).mean()
    loss.backward(retain_graph=True)
    g1 = m["comp"].weight.grad.clone()
    loss.backward(retain_graph=True)
    rec("twice", m["comp"].weight.grad - 2 * g1)
    (root.sum() * 2).backward()
    rec("g_after", m["comp"].weight.grad)
    rec.err("third", lambda: root.sum().backward())
    # a second loss over the same graph, freed by the first backward
    logits = []
    root = _recnn(lib, m, TREES[1], logits)
    a, b = root.sum(), lib.stack(logits).sum()
    a.backward()
    rec.err("freed", lambda: b.backward())
    rec.err("freed_grad", lambda: lib.autograd.grad(a, m["comp"].weight))


def p_autograd_grad(lib, dt, rec):
    m = _make_recnn(lib, dt, 37)
    emb = m["emb"].weight.detach().clone().requires_grad_(True)

    def encode(tree):
        if isinstance(tree, int):
            return emb[tree]
        return lib.tanh(m["comp"](lib.cat([encode(tree[0]), encode(tree[1])])))

    root = encode(_binarize(TREES[3]))
    out = m["cls"](root).sum()
    (g_emb,) = lib.autograd.grad(out, emb, create_graph=True)
    rec("g_emb", g_emb)
    penalty = g_emb.pow(2).sum()
    gw, gb = lib.autograd.grad(penalty, [m["comp"].weight, m["comp"].bias])
    rec("gw", gw)
    rec("gb", gb)
    # gradient w.r.t. an intermediate node and allow_unused
    root = encode(_binarize(TREES[0]))
    gr, gu = lib.autograd.grad(
        root.sum(), [emb, m["cls"].weight], allow_unused=True, retain_graph=True
    )
    rec("g_root_emb", gr)
    rec("unused", str(gu))
    rec.err("unused_err", lambda: lib.autograd.grad(root.sum(), [m["cls"].weight]))
    (gm,) = lib.autograd.grad(root, emb, grad_outputs=lib.ones_like(root), materialize_grads=True)
    rec("g_ones", gm)


def p_gradcheck(lib, dt, rec):
    if dt != lib.float64:
        rec("skip", "float32")
        return
    w = _randn(lib, dt, 41, 3, 6).requires_grad_(True)
    leaves = _randn(lib, dt, 43, 4, 3).requires_grad_(True)

    def encode(w, leaves, tree=((0, 1), (2, 3))):
        if isinstance(tree, int):
            return leaves[tree]
        return lib.tanh(w @ lib.cat([encode(w, leaves, t) for t in tree]))

    rec("gc", lib.autograd.gradcheck(encode, (w, leaves)))
    rec("ggc", lib.autograd.gradgradcheck(encode, (w, leaves)))

    def childsum(w, leaves):
        hs = [lib.tanh(leaves[i] * w[0, i % 3]) for i in range(4)]
        return lib.stack([lib.stack(hs[:2]).sum(0), lib.stack(hs[2:]).sum(0)]).prod(0)

    rec("gc_sum", lib.autograd.gradcheck(childsum, (w, leaves)))
    rec("ggc_sum", lib.autograd.gradgradcheck(childsum, (w, leaves)))


def p_list_reductions(lib, dt, rec):
    xs = [_randn(lib, dt, 50 + k, 3).requires_grad_(True) for k in range(4)]
    s1 = sum(xs)
    s2 = lib.stack(xs).sum(0)
    s3 = lib.cat([x.unsqueeze(0) for x in xs]).sum(dim=0)
    s4 = lib.sum(lib.stack(xs, dim=1), dim=1)
    rec("s1", s1)
    rec("s2", s2 - s1)
    rec("s3", s3 - s1)
    rec("s4", s4 - s1)
    rec("grad_fn_sum", type(s1.grad_fn).__name__)
    rec("grad_fn_stack", type(lib.stack(xs).grad_fn).__name__)
    rec("grad_fn_cat", type(lib.cat(xs).grad_fn).__name__)
    (s1 * s2 * lib.stack(xs).prod(0)).sum().backward()
    for k, x in enumerate(xs):
        rec(f"g{k}", x.grad)
    rec("stack1", lib.stack(xs[:1]))
    rec("cat1", lib.cat(xs[:1]))
    rec("cat_empty_parts", lib.cat([xs[0], lib.zeros(0, dtype=dt), xs[1]]))
    rec("stack_neg", lib.stack(xs, dim=-1).shape)
    rec("hstack", lib.hstack(xs))
    rec("vstack", lib.vstack(xs))
    rec("sum_start", sum(xs, lib.zeros(3, dtype=dt)))
    ys = [lib.ones(k + 1, 2, dtype=dt) * k for k in range(3)]
    rec("cat_var", lib.cat(ys))
    rec("split_back", str([tuple(t.shape) for t in lib.cat(ys).split([1, 2, 3])]))
    rec("unbind", lib.stack(xs).unbind(1)[2])
    rec("cat_tuple_out", lib.cat(tuple(ys), out=lib.empty(6, 2, dtype=dt)))


def p_gather_scatter(lib, dt, rec):
    states = _randn(lib, dt, 60, 7, 4).requires_grad_(True)
    parent = lib.tensor([4, 4, 5, 5, 6, 6])
    child = lib.tensor([0, 1, 2, 3, 4, 5])
    msgs = states.index_select(0, child) * 2
    agg = lib.zeros(7, 4, dtype=dt).index_add(0, parent, msgs, alpha=0.5)
    rec("agg", agg)
    agg2 = lib.zeros(7, 4, dtype=dt).scatter_add(0, parent[:, None].expand(-1, 4), msgs)
    rec("agg2", agg2)
    agg3 = lib.zeros(7, 4, dtype=dt).scatter_reduce(
        0, parent[:, None].expand(-1, 4), msgs, reduce="mean", include_self=False
    )
    rec("agg3", agg3)
    g = lib.gather(states, 0, parent[:, None].expand(-1, 4))
    rec("gather", g)
    picked = states[child[[5, 0, 3]]]
    rec("picked", picked)
    w = _randn(lib, dt, 61, 7, 4)
    loss = (agg * w).sum() + (agg2 * w).pow(2).sum() + (agg3 * w).sum() + g.sum() + picked.sum()
    loss.backward()
    rec("g_states", states.grad)
    # in place on a clone, bottom-up
    buf = states.detach().clone()
    buf.index_add_(0, parent, buf.index_select(0, child))
    rec("inplace", buf)
    buf2 = lib.zeros(7, 4, dtype=dt)
    buf2.scatter_add_(0, parent[:, None].expand(-1, 4), states.detach()[:6])
    rec("inplace2", buf2)
    rec("bincount", lib.bincount(parent, minlength=7))
    rec("degree", lib.zeros(7, dtype=dt).index_add_(0, parent, lib.ones(6, dtype=dt)))


def p_pad_children(lib, dt, rec):
    """Variable-size children lists padded into a batch, a masked child-sum."""
    rnn = lib.nn.utils.rnn
    kids = [_randn(lib, dt, 70 + k, n, 3) for k, n in enumerate([2, 3, 1, 4])]
    padded = rnn.pad_sequence(kids, batch_first=True, padding_value=0.0)
    rec("padded", padded)
    rec("padded_t", rnn.pad_sequence(kids))
    lens = lib.tensor([len(k) for k in kids])
    mask = lib.arange(padded.shape[1])[None] < lens[:, None]
    rec("mask", mask)
    rec("child_sum", (padded * mask[..., None]).sum(1))
    rec("child_mean", (padded * mask[..., None]).sum(1) / lens[:, None])
    packed = rnn.pack_padded_sequence(padded, lens, batch_first=True, enforce_sorted=False)
    lib.manual_seed(71)
    gru = lib.nn.GRU(3, 2, batch_first=True).to(dt)
    out, hn = gru(packed)
    unpacked, ul = rnn.pad_packed_sequence(out, batch_first=True)
    rec("gru_out", unpacked)
    rec("gru_len", ul)
    rec("hn", hn)
    hn.sum().backward()
    rec.params("gru", gru, grads=True)


def p_errors(lib, dt, rec):
    x = lib.ones(2, 3, dtype=dt)
    rec.err("stack_empty", lambda: lib.stack([]))
    rec.err("cat_empty", lambda: lib.cat([]))
    rec.err("stack_shapes", lambda: lib.stack([x, lib.ones(3, 2, dtype=dt)]))
    rec.err("stack_shapes3", lambda: lib.stack([x, x, lib.ones(2, 4, dtype=dt)]))
    rec.err("cat_shapes", lambda: lib.cat([x, lib.ones(2, 4, dtype=dt)]))
    rec.err("cat_shapes1", lambda: lib.cat([x, lib.ones(3, 2, dtype=dt)], dim=1))
    rec.err("cat_ndim", lambda: lib.cat([x, lib.ones(3, dtype=dt)]))
    rec.err("cat_dim", lambda: lib.cat([x, x], dim=2))
    rec.err("stack_dim", lambda: lib.stack([x, x], dim=3))
    rec.err("cat_scalar", lambda: lib.cat([lib.tensor(1.0), lib.tensor(2.0)]))
    rec.err("cat_not_list", lambda: lib.cat(x, x))
    rec.err("stack_tensor_arg", lambda: lib.stack(x))
    rec.err("cat_tensor_arg", lambda: lib.cat(x))
    rec.err("cat_list_of_lists", lambda: lib.cat([[1.0], [2.0]]))
    rec.err("stack_mixed", lambda: lib.stack([x, 1.0]))
    rec.err("sum_empty_list", lambda: sum([]).backward())
    rec.err("split_bad", lambda: x.split([1, 1], dim=1))
    rec.err("backward_nonscalar", lambda: (x.requires_grad_(True) * 2).backward())
    rec.err("grad_no_req", lambda: lib.autograd.grad(lib.ones(1, dtype=dt).sum(), []))


def p_index_errors(lib, dt, rec):
    x = lib.arange(12, dtype=dt).reshape(4, 3)
    rec.err("index_select_oob", lambda: x.index_select(0, lib.tensor([0, 4])))
    rec.err("index_select_neg", lambda: x.index_select(0, lib.tensor([-1])))
    rec.err("index_select_float", lambda: x.index_select(0, lib.tensor([0.0])))
    rec.err("index_select_2d", lambda: x.index_select(0, lib.tensor([[0]])))
    rec.err("index_select_dim", lambda: x.index_select(2, lib.tensor([0])))
    rec.err("gather_oob", lambda: x.gather(0, lib.tensor([[0, 5, 1]])))
    rec.err("gather_ndim", lambda: x.gather(0, lib.tensor([0, 1])))
    rec.err("gather_float", lambda: x.gather(0, lib.tensor([[0.0]])))
    rec.err("scatter_add_oob", lambda: lib.zeros(3, 3, dtype=dt).scatter_add(
        0, lib.tensor([[0, 3, 1]]), x[:1]))  # fmt: skip
    rec.err("scatter_add_dtype", lambda: lib.zeros(3, 3, dtype=dt).scatter_add(
        0, lib.tensor([[0, 1, 1]]), x[:1].int()))  # fmt: skip
    rec.err("index_add_oob", lambda: lib.zeros(3, 3, dtype=dt).index_add(
        0, lib.tensor([0, 3]), x[:2]))  # fmt: skip
    rec.err("index_add_len", lambda: lib.zeros(3, 3, dtype=dt).index_add(
        0, lib.tensor([0, 1, 2]), x[:2]))  # fmt: skip
    rec.err("index_add_dtype", lambda: lib.zeros(3, 3, dtype=dt).index_add(
        0, lib.tensor([0, 1]), x[:2].long()))  # fmt: skip
    rec.err("index_oob", lambda: x[lib.tensor([4])])
    rec.err("index_oob_list", lambda: x[[0, 7]])
    rec.err("embedding_oob", lambda: lib.nn.functional.embedding(
        lib.tensor([8]), lib.ones(8, 2, dtype=dt)))  # fmt: skip
    rec.err("embedding_float", lambda: lib.nn.functional.embedding(
        lib.tensor([1.0]), lib.ones(8, 2, dtype=dt)))  # fmt: skip
    rec.err("index_copy_oob", lambda: lib.zeros(3, 3, dtype=dt).index_copy(
        0, lib.tensor([3]), x[:1]))  # fmt: skip
    rec.err("index_fill_oob", lambda: x.index_fill(0, lib.tensor([9]), 1.0))


def p_train_steps(lib, dt, rec):
    """A binary TreeLSTM sentiment classifier trained a few Adam steps on a small forest."""
    cell = _Binary(lib, dt, 83)
    lib.manual_seed(84)
    cls = lib.nn.Linear(HID, CLASSES).to(dt)
    params = list(cell.mods.parameters()) + list(cls.parameters())
    opt = lib.optim.Adam(params, lr=0.01)
    labels = [0, 2, 1, 1, 0]
    for step in range(4):
        opt.zero_grad()
        losses = [
            lib.nn.functional.cross_entropy(cls(cell(_binarize(t))[0])[None], lib.tensor([y]))
            for t, y in zip(TREES, labels, strict=True)
        ]
        loss = lib.stack(losses).sum()
        loss.backward()
        rec(f"loss{step}", loss)
        opt.step()
    rec.params("cell", cell.mods)
    rec.params("cls", cls)


def p_no_grad_inference(lib, dt, rec):
    m = _make_childsum(lib, dt, 89)
    with lib.no_grad():
        h, c = _childsum_node(lib, m, TREES[2], [])
    rec("h", h)
    rec("req", h.requires_grad)
    rec("fn", str(h.grad_fn))
    with lib.inference_mode():
        h2, _ = _childsum_node(lib, m, TREES[2], [])
    rec("same", (h2 - h).abs().max())
    rec("inf", h2.is_inference())
    m.eval()
    h3, _ = _childsum_node(lib, m, TREES[2], [])
    rec("req3", h3.requires_grad)
    rec("det", h3.detach().requires_grad)


def p_max_pool_children(lib, dt, rec):
    """Max and mean pooling over a variable number of children (random states, no ties)."""
    kids = [_randn(lib, dt, 90 + k, k + 1, 4).requires_grad_(True) for k in range(3)]
    pooled = [k.max(0) for k in kids]
    for i, (v, ix) in enumerate(pooled):
        rec(f"max{i}", v)
        rec(f"arg{i}", ix)
    stacked = lib.stack([v for v, _ in pooled])
    mean = lib.stack([k.mean(0) for k in kids])
    lse = lib.stack([k.logsumexp(0) for k in kids])
    (stacked.sum() + (mean * lse).sum()).backward()
    for i, k in enumerate(kids):
        rec(f"g{i}", k.grad)
    rec("amax", lib.amax(lib.cat(kids), 0))


def p_tree_gru(lib, dt, rec):
    """A tree-GRU over a forest: children summed, a GRUCell per node."""
    lib.manual_seed(97)
    cell = lib.nn.GRUCell(EMB, HID).to(dt)
    emb = lib.nn.Embedding(VOCAB, EMB).to(dt)

    def run(tree):
        if isinstance(tree, int):
            return cell(emb(lib.tensor([tree])))
        hs = [run(t) for t in tree]
        return cell(lib.zeros(1, EMB, dtype=dt), lib.cat(hs).sum(0, keepdim=True))

    roots = lib.cat([run(t) for t in TREES])
    rec("roots", roots)
    roots.pow(2).sum().backward()
    rec.params("cell", cell, grads=True)
    rec("emb_g", emb.weight.grad)


def _saved(node):
    """A node's _saved_* attributes (as a graph drawer lists them): tensors as their shapes."""
    out = []
    for k in sorted(k for k in dir(node) if k.startswith("_saved_")):
        v = getattr(node, k)
        if isinstance(v, tuple):
            v = tuple(tuple(t.shape) if hasattr(t, "shape") else t for t in v)
        out.append((k, tuple(v.shape) if hasattr(v, "shape") else v))
    return str(out)


def p_saved_attrs(lib, dt, rec):
    """What a graph drawer (torchviz's make_dot(show_saved=True)) reads off the nodes of a
    level-batched tree step: the index ops' saved dims, indices and sizes, also after backward
    (the tensors freed, torch's error), and index_add's source saved only for its gradient."""
    states = _randn(lib, dt, 100, 6, 3).requires_grad_(True)
    parent, child = lib.tensor([4, 4, 5, 5]), lib.tensor([0, 1, 2, 3])
    sel = states.index_select(0, child)
    sel_neg = states.index_select(-1, lib.tensor([2, 0]))
    agg = lib.zeros(6, 3, dtype=dt).index_add(0, parent, sel, alpha=2)
    agg_neg = lib.zeros(6, 3, dtype=dt).index_add(-2, parent, sel)
    agg_const = states.index_add(0, parent, lib.ones(4, 3, dtype=dt))
    slot = parent[:, None].expand(-1, 3)
    sadd = lib.zeros(6, 3, dtype=dt).scatter_add(0, slot, sel)
    sadd_neg = lib.zeros(6, 3, dtype=dt).scatter_add(-2, slot, sel)
    gat = states.gather(0, slot)
    gat_neg = states.gather(-1, lib.tensor([[0], [2]]))
    outs = {
        "sel": sel, "sel_neg": sel_neg, "agg": agg, "agg_neg": agg_neg, "agg_const": agg_const,
        "sadd": sadd, "sadd_neg": sadd_neg, "gat": gat, "gat_neg": gat_neg,
    }  # fmt: skip
    for k, t in outs.items():
        rec(k + ".name", type(t.grad_fn).__name__)
        rec(k + ".saved", _saved(t.grad_fn))
    rec("sel.index_is", sel.grad_fn._saved_index is child)
    rec("gat.self_is", gat.grad_fn._saved_self is states)
    rec("agg.source_is", agg.grad_fn._saved_source is sel)
    loss = sum((t * t).sum() for t in outs.values())
    loss.backward()
    rec("g", states.grad)
    for k, t in outs.items():
        node = t.grad_fn
        rec(k + ".dim_after", str(node._saved_dim))
        rec.err(k + ".index_after", lambda node=node: node._saved_index)
    rec.err("gat.self_after", lambda: gat.grad_fn._saved_self)
    rec.err("agg.source_after", lambda: agg.grad_fn._saved_source)


def p_index_add_modified(lib, dt, rec):
    """Messages from parents to children by index_add, a message changed in place before
    backward: torch saved it for the source's gradient and refuses; a constant message (no
    gradient wanted) is not saved, and its change goes unnoticed."""
    states = _randn(lib, dt, 110, 4, 3).requires_grad_(True)
    parent = lib.tensor([2, 2, 3, 3])
    msg = states * 1.5
    out = lib.zeros(4, 3, dtype=dt).index_add(0, parent, msg, alpha=0.5)
    msg.mul_(2)
    rec.err("modified", lambda: out.sum().backward())
    msg = states.tanh()
    out = lib.zeros(4, 3, dtype=dt).index_add(0, parent, msg)
    out.pow(2).sum().backward()
    rec("g_ok", states.grad)
    base = lib.zeros(4, 3, dtype=dt).requires_grad_(True)
    const = _randn(lib, dt, 111, 4, 3)
    out = base.index_add(0, parent, const)
    const.add_(1)
    out.pow(2).sum().backward()
    rec("g_const", base.grad)
    idx = parent.clone()
    out = lib.zeros(4, 3, dtype=dt).index_add(0, idx, states * 1.0)
    idx.zero_()
    rec.err("index_modified", lambda: out.sum().backward())
    # children and parents as slices of one buffer: the in-place add changes the source's base
    base = states * 1
    parents, children = base[:2], base[2:4]
    parents.index_add_(0, lib.tensor([0, 0]), children)
    rec.err("same_buffer", lambda: base.sum().backward())


def p_mha_forest(lib, dt, rec):
    """Node states of trees of different sizes padded into a batch, self-attention with a key
    padding mask (nn.MultiheadAttention), pooled per tree by the mask."""
    m = _make_childsum(lib, dt, 120)
    lib.manual_seed(121)
    mha = lib.nn.MultiheadAttention(HID, 1, batch_first=True).to(dt)
    per_tree = []
    for tree in TREES:
        states = []
        _childsum_node(lib, m, tree, states)
        per_tree.append(lib.stack(states))
    lens = lib.tensor([len(s) for s in per_tree])
    x = lib.nn.utils.rnn.pad_sequence(per_tree, batch_first=True)
    pad = lib.arange(x.shape[1])[None] >= lens[:, None]
    out, att = mha(x, x, x, key_padding_mask=pad)
    rec("att", att)
    keep = (~pad).unsqueeze(-1).to(dt)
    pooled = (out * keep).sum(1) / lens[:, None].to(dt)
    rec("pooled", pooled)
    pooled.pow(2).sum().backward()
    rec.params("mha", mha, grads=True)
    rec.params("m", m, grads=True)


def p_backward_inputs(lib, dt, rec):
    """backward(inputs=...) and autograd.grad on chosen nodes of a recursion: the subtree
    states as inputs, the leaves' gradients left alone."""
    m = _make_recnn(lib, dt, 130)
    nodes = []

    def walk(tree):
        if isinstance(tree, int):
            return m["emb"].weight[tree]
        h = lib.tanh(m["comp"](lib.cat([walk(tree[0]), walk(tree[1])])))
        nodes.append(h)
        return h

    root = walk(_binarize(TREES[2]))
    loss = m["cls"](root).pow(2).sum()
    loss.backward(inputs=[nodes[0], m["comp"].bias], retain_graph=True)
    rec("node0", nodes[0].grad)
    rec("bias", m["comp"].bias.grad)
    rec("weight_none", str(m["comp"].weight.grad))
    grads = lib.autograd.grad(loss, nodes, retain_graph=True)
    for k, g in enumerate(grads):
        rec(f"g{k}", g)
    rec.err("leaf_input_err", lambda: loss.backward(inputs=[]))
    total = lib.autograd.grad([loss, root.sum()], m["comp"].weight)
    rec("two_outputs", total[0])
