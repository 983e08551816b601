"""Session 36 (helper saved): autograd graph introspection as tutorials and debugging tools write
it, run under torch and minitorch with the same seeds and compared record by record: grad_fn
names, next_functions (node order, input numbers, None for inputs that need no gradient,
AccumulateGrad leaves and their .variable), graph walks that print a model's graph (recursion
over next_functions with a visited set, a torchviz-style make_dot that lists every _saved_*
attribute found by dir()), the _saved_* attributes of common nodes: AddmmBackward0 from
nn.Linear and torch.addmm (_saved_mat1 / _saved_mat2 with their identity, None where the other
operand needs no gradient, _sym_sizes / _sym_strides, _saved_alpha / _saved_beta), MmBackward0
from mm, matmul and bias-free Linear, BmmBackward0, MvBackward0, IndexBackward0 (_saved_indices
with None for the dims a key leaves, lists and masks; _saved_self_sym_sizes after the key's
views), SortBackward0 / TopkBackward0 (_saved_indices, _saved_dim as given, negative ones read
back unsigned), SplitBackward0 / SplitWithSizesBackward0 / UnbindBackward0, EmbeddingBackward0
(_saved_indices, _saved_padding_idx, _saved_scale_grad_by_freq, _saved_sparse,
_saved_weight_sym_argsize_0), AddBackward0 / SubBackward0 _saved_alpha, ConvolutionBackward0,
Softmax / LogSoftmax _saved_result, reductions' _saved_self_sym_sizes / _saved_dim /
_saved_keepdim, IndexSelect and Gather nodes; node metadata dicts; reprs of nodes and of tensors'
grad_fn; the freed-graph errors for saved tensors after backward, retain_graph keeping them, and
the in-place error for a saved index. float64 must agree to 1e-10 of each record's scale,
float32 to 1e-4; texts exactly.

Found and fixed:
- AddmmBackward0 (nn.Linear, F.linear, torch.addmm) had no _saved_* attributes: now torch's
  _saved_mat1 / _saved_mat2 (None where the other operand needs no gradient, also after
  backward), _saved_alpha / _saved_beta, _saved_mat1_sym_sizes / _sym_strides and mat2's
  (strides () for an operand needing no gradient), _raw_saved_mat1 / _raw_saved_mat2 on
  Linear's node; MmBackward0 (mm, 2-d matmul, bias-free Linear) likewise with self / mat2;
  BmmBackward0 _saved_self / _saved_mat2; MvBackward0 _saved_self / _saved_vec.
- IndexBackward0 (x[idx], x[:, idx], x[mask], x[[0, 1]], ...) had no attributes: now
  _saved_indices as torch builds them (None for each dim before an index tensor, a list
  converted to a tensor, a bool mask as it is) and _saved_self_sym_sizes of the view the key's
  ints, slices and Nones make.
- SortBackward0 / SortBackward1 / TopkBackward0 had no attributes: now _saved_dim (as given; -1
  reads 2**64 - 1 as in torch), _saved_indices (the returned indices) and
  _saved_self_sym_sizes.
- SplitBackward0 / SplitWithSizesBackward0 (split, chunk) had no attributes: now _saved_dim (as
  given), _saved_split_size(s) and _saved_self_sym_sizes; UnbindBackward0's _saved_dim of a
  negative dim was the wrapped one (torch: as given, read back unsigned).
- EmbeddingBackward0 had no attributes: now _saved_indices, _saved_padding_idx (-1 for none,
  read back unsigned; a negative one wrapped), _saved_scale_grad_by_freq, _saved_sparse and
  _saved_weight_sym_argsize_0.
- AddBackward0 / SubBackward0 had no _saved_alpha (torch: the alpha given, 1 by default).
- SoftmaxBackward0 / LogSoftmaxBackward0's _saved_dim of a negative dim was the wrapped one
  (torch: as given, read back unsigned: softmax(-1) shows 2**64 - 1).

Known and left (documented):
- After a backward freed the graph, the _sym_sizes of a product's operand that needs no
  gradient raise the freed-graph error (torch keeps them): minitorch keeps only the shapes of
  operands needing one; with only a Linear's bias needing a gradient (BitFit) they are None.
  The _sym_strides of an operand needing a gradient that is not saved (a frozen weight's input)
  or after a backward are those of a dense operand in the product's usual layout.
- torch.addmm's node (a composite) has no _raw_saved_mat1 / _raw_saved_mat2; IndexBackward0,
  Sort/Topk, Embedding, IndexSelect and Gather nodes have no _raw_saved_* for their indices.
- SelectBackward0 / SliceBackward0 (x[1], x[1:3], narrow), SqueezeBackward1, MaxPool /
  AvgPool nodes, losses (MseLoss, NllLoss, BCE), batch and layer norm's result/bias,
  Addmv / Baddbmm, Var / Std / Prod / Logsumexp nodes still lack
  (some of) torch's _saved_* attributes: the fast paths keep the normalized key or nothing of
  what torch saves (no hot-path cost added); the programs read only the nodes listed above.
- Sum, mean and cat record a negative dim wrapped (torch: as given, read back as 2**64 + dim);
  the programs use non-negative dims there.
- The records run on the CPU only."""

from __future__ import annotations

import re

import pytest

from tests.reference._one_thread import one_torch_thread  # noqa: F401 - an autouse fixture
from tests.reference._programs import assert_program_matches
from tests.reference._programs import seeded_randn as _randn

torch = pytest.importorskip("torch")


PROGRAMS = [
    "linear_saved", "linear_frozen", "linear_nobias", "addmm_saved", "mm_saved", "bmm_mv_saved",
    "after_backward", "retain_graph", "mlp_walk", "make_dot", "index_saved", "index_grads",
    "sort_topk", "split_chunk", "embedding_saved", "add_alpha", "conv_saved", "softmax_saved",
    "reductions", "metadata", "reprs", "leaf_variables", "batched_linear", "index_select_gather",
    "saved_index_inplace", "cnn_walk", "param_names", "transformer_block",
]  # fmt: skip


@pytest.mark.parametrize("dt", ["float64", "float32"])
@pytest.mark.parametrize("name", PROGRAMS)
def test_program_matches_torch(name, dt):
    assert_program_matches(globals()["p_" + name], torch, dt)


# --- helpers ---


def _lib_name(lib) -> str:
    return lib.__name__


def _describe(lib, v) -> str:
    """A saved attribute as text: a tensor by its shape and dtype, others by repr."""
    if isinstance(v, lib.Tensor):
        return f"Tensor{tuple(v.shape)} {str(v.dtype).split('.')[-1]}"
    if isinstance(v, tuple):
        return "(" + ", ".join(_describe(lib, e) for e in v) + ")"
    return repr(v)


def _saved(lib, node, names) -> str:
    """The node's listed _saved_<name> attributes as text, errors as 'Type'."""
    out = []
    for n in names:
        try:
            v = getattr(node, "_saved_" + n)
        except Exception as e:  # noqa: BLE001 - the error is the record
            v = type(e).__name__
            out.append(f"{n}={v}")
            continue
        out.append(f"{n}={_describe(lib, v)}")
    return "; ".join(out)


def _saved_names(node) -> str:
    return ",".join(k for k in dir(node) if k.startswith("_saved_"))


def _edges(node) -> str:
    """next_functions as text: each edge's node name (None) and input number."""
    parts = []
    for fn, nr in node.next_functions:
        parts.append("None" if fn is None else f"{fn.name()}:{nr}")
    return "[" + ", ".join(parts) + "]"


def _walk(root, params=None) -> list:
    """A depth-first print of the graph under root, each node once (a visited set), leaves by
    their parameter name (params: id -> name) or shape."""
    lines = []
    seen = set()

    def visit(fn, depth):
        if fn is None:
            lines.append("  " * depth + "None")
            return
        label = fn.name()
        if hasattr(fn, "variable"):
            v = fn.variable
            label += " " + (params or {}).get(id(v), str(tuple(v.shape)))
        if fn in seen:
            lines.append("  " * depth + label + " (seen)")
            return
        seen.add(fn)
        lines.append("  " * depth + label)
        for child, _ in fn.next_functions:
            visit(child, depth + 1)

    visit(root, 0)
    return lines


def _addr(text: str) -> str:
    return re.sub(r"0x[0-9a-fA-F]+", "0x?", text)


_ADDMM = ("mat1", "mat2", "alpha", "beta", "mat1_sym_sizes", "mat1_sym_strides",
          "mat2_sym_sizes", "mat2_sym_strides")  # fmt: skip
_MM = ("self", "mat2", "self_sym_sizes", "self_sym_strides", "mat2_sym_sizes",
       "mat2_sym_strides")  # fmt: skip


# --- the programs: each takes the library, a dtype and a recorder ---


def p_linear_saved(lib, dt, rec):
    lib.manual_seed(0)
    lin = lib.nn.Linear(3, 5).to(dt)
    x = _randn(lib, dt, 1, 4, 3).requires_grad_(True)
    y = lin(x)
    n = y.grad_fn
    rec("name", n.name())
    rec("edges", _edges(n))
    rec("saved_names", _saved_names(n))
    rec("saved", _saved(lib, n, _ADDMM))
    rec("mat1_is_x", n._saved_mat1 is x)
    rec("mat2_base_is_weight", n._saved_mat2._base is lin.weight)
    rec("mat2", n._saved_mat2)
    rec("mat2_grad_fn", n._saved_mat2.grad_fn.name())
    rec("t_edge", n.next_functions[2][0].next_functions[0][0].variable is lin.weight)
    rec("bias_edge", n.next_functions[0][0].variable is lin.bias)
    rec("raw", type(n._raw_saved_mat1).__name__)
    (y * _randn(lib, dt, 2, 4, 5)).sum().backward()
    rec("gw", lin.weight.grad)
    rec("gb", lin.bias.grad)
    rec("gx", x.grad)


def p_linear_frozen(lib, dt, rec):
    lib.manual_seed(1)
    lin = lib.nn.Linear(4, 2).to(dt)
    x = _randn(lib, dt, 3, 6, 4)
    y = lin(x)  # the input needs no gradient: mat2 not saved, mat1 strides ()
    rec("first", _saved(lib, y.grad_fn, _ADDMM))
    rec("first_mat1", y.grad_fn._saved_mat1 is x)
    rec("first_edges", _edges(y.grad_fn))
    lin.weight.requires_grad_(False)
    xr = x.clone().requires_grad_(True)
    y = lin(xr)  # a frozen weight: mat1 not saved, mat2 strides ()
    rec("frozen", _saved(lib, y.grad_fn, _ADDMM))
    rec("frozen_mat2_base", y.grad_fn._saved_mat2._base is lin.weight)
    rec("frozen_edges", _edges(y.grad_fn))
    y.pow(2).sum().backward()
    rec("gx", xr.grad)
    rec("no_weight_grad", lin.weight.grad is None)


def p_linear_nobias(lib, dt, rec):
    lin = lib.nn.Linear(3, 4, bias=False).to(dt)
    with lib.no_grad():
        lin.weight.copy_(_randn(lib, dt, 4, 4, 3))
    x = _randn(lib, dt, 5, 2, 3).requires_grad_(True)
    y = lin(x)
    n = y.grad_fn
    rec("name", n.name())
    rec("saved_names", _saved_names(n))
    rec("saved", _saved(lib, n, _MM))
    rec("self_is_x", n._saved_self is x)
    rec("edges", _edges(n))
    xt = _randn(lib, dt, 6, 3, 2).t().requires_grad_(True)  # a column-major input
    n = lin(xt).grad_fn
    rec("t_saved", _saved(lib, n, _MM))
    rec("t_self", n._saved_self is xt)


def p_addmm_saved(lib, dt, rec):
    b = _randn(lib, dt, 7, 5)
    m1 = _randn(lib, dt, 8, 4, 3)
    m2 = _randn(lib, dt, 9, 3, 5)
    for rb, r1, r2 in ((1, 1, 1), (0, 1, 0), (0, 0, 1), (1, 0, 1), (1, 1, 0)):
        bb = b.clone().requires_grad_(bool(rb))
        a1 = m1.clone().requires_grad_(bool(r1))
        a2 = m2.clone().requires_grad_(bool(r2))
        for beta, alpha in ((1, 1), (0.5, 2), (2, -1.5)):
            y = lib.addmm(bb, a1, a2, beta=beta, alpha=alpha)
            n = y.grad_fn
            tag = f"{rb}{r1}{r2}.{beta}.{alpha}"
            rec(tag + ".name", n.name())
            rec(tag + ".saved", _saved(lib, n, _ADDMM))
            rec(tag + ".ids", str((n._saved_mat1 is a1, n._saved_mat2 is a2)))
            rec(tag + ".edges", _edges(n))
            rec(tag + ".y", y)
    a1 = m1.t().contiguous().t().requires_grad_(True)  # column-major mat1
    n = lib.addmm(b, a1, m2.requires_grad_(True)).grad_fn
    rec("colmajor", _saved(lib, n, _ADDMM))
    n = lib.addmm(b, m1, m2.t().contiguous().t()).grad_fn
    rec("colmajor2", _saved(lib, n, _ADDMM))


def p_mm_saved(lib, dt, rec):
    a0 = _randn(lib, dt, 10, 4, 3)
    b0 = _randn(lib, dt, 11, 3, 6)
    for ra, rb in ((1, 1), (1, 0), (0, 1)):
        a = a0.clone().requires_grad_(bool(ra))
        b = b0.clone().requires_grad_(bool(rb))
        for label, fn in (("mm", lib.mm), ("matmul", lib.matmul), ("method", lib.Tensor.mm)):
            n = fn(a, b).grad_fn
            tag = f"{label}.{ra}{rb}"
            rec(tag + ".name", n.name())
            rec(tag + ".saved", _saved(lib, n, _MM))
            rec(tag + ".ids", str((n._saved_self is a, n._saved_mat2 is b)))
    w = _randn(lib, dt, 12, 6, 3).requires_grad_(True)
    x = _randn(lib, dt, 13, 4, 3).requires_grad_(True)
    y = x @ w.t()  # a hand-written linear layer
    n = y.grad_fn
    rec("hand.saved", _saved(lib, n, _MM))
    rec("hand.mat2_base", n._saved_mat2._base is w)
    rec("hand.mat2", n._saved_mat2)
    rec("hand.edges", _edges(n))
    y.sum().backward()
    rec("hand.gw", w.grad)


def p_bmm_mv_saved(lib, dt, rec):
    a = _randn(lib, dt, 14, 2, 3, 4).requires_grad_(True)
    b = _randn(lib, dt, 15, 2, 4, 5)
    n = lib.bmm(a, b).grad_fn
    rec("bmm.name", n.name())
    rec("bmm.saved_names", _saved_names(n))
    rec("bmm.ids", str((n._saved_self is None, n._saved_mat2 is b)))
    m = _randn(lib, dt, 16, 3, 4).requires_grad_(True)
    v = _randn(lib, dt, 17, 4)
    y = lib.mv(m, v)
    n = y.grad_fn
    rec("mv.name", n.name())
    rec("mv.saved_names", _saved_names(n))
    rec("mv.saved", _saved(lib, n, ("self", "vec")))
    rec("mv.ids", str(n._saved_vec is v))
    y.sum().backward()
    rec("mv.after", _saved(lib, n, ("self", "vec")))
    rec("mv.gm", m.grad)


def p_after_backward(lib, dt, rec):
    lib.manual_seed(2)
    lin = lib.nn.Linear(3, 2).to(dt)
    x = _randn(lib, dt, 18, 4, 3).requires_grad_(True)
    y = lin(x)
    y.sum().backward()
    n = y.grad_fn
    rec("alpha", n._saved_alpha)
    rec("sizes", str((n._saved_mat1_sym_sizes, n._saved_mat2_sym_sizes)))
    rec.err("mat1", lambda: n._saved_mat1)
    rec.err("mat2", lambda: n._saved_mat2)
    rec.err("again", lambda: y.sum().backward())
    a = _randn(lib, dt, 19, 3, 3).requires_grad_(True)
    b = _randn(lib, dt, 20, 3, 3)
    out = lib.addmm(b[0], a, b, alpha=3)
    out.sum().backward()
    rec("addmm.after", _saved(lib, out.grad_fn, ("mat1", "mat2", "alpha", "beta")))
    s = a.softmax(1)
    s.sum().backward()
    rec.err("softmax.result", lambda: s.grad_fn._saved_result)
    rec("softmax.dim", s.grad_fn._saved_dim)
    v, i = a.sort(1)
    v.sum().backward()
    rec.err("sort.indices", lambda: v.grad_fn._saved_indices)
    rec("sort.dim", v.grad_fn._saved_dim)
    p = a[lib.tensor([0, 2])]
    p.sum().backward()
    rec.err("index.indices", lambda: p.grad_fn._saved_indices)


def p_retain_graph(lib, dt, rec):
    lib.manual_seed(3)
    lin = lib.nn.Linear(3, 3).to(dt)
    x = _randn(lib, dt, 21, 2, 3).requires_grad_(True)
    y = lin(x).tanh()
    y.sum().backward(retain_graph=True)
    n = y.grad_fn
    rec("tanh.result", n._saved_result)
    rec("tanh.same", bool((n._saved_result == y).all()))
    lin_node = n.next_functions[0][0]
    rec("mat1", lin_node._saved_mat1)
    y.sum().backward()
    rec("gx", x.grad)
    rec.err("result.freed", lambda: n._saved_result)
    rec.err("mat1.freed", lambda: lin_node._saved_mat1)


def _mlp(lib, dt):
    lib.manual_seed(4)
    return lib.nn.Sequential(
        lib.nn.Linear(4, 8), lib.nn.ReLU(), lib.nn.Linear(8, 8), lib.nn.Tanh(), lib.nn.Linear(8, 3)
    ).to(dt)


def p_mlp_walk(lib, dt, rec):
    model = _mlp(lib, dt)
    x = _randn(lib, dt, 22, 5, 4)
    target = lib.tensor([0, 2, 1, 1, 0])
    loss = lib.nn.functional.cross_entropy(model(x), target)
    rec("loss", loss)
    params = {id(p): name for name, p in model.named_parameters()}
    rec("walk", "\n".join(_walk(loss.grad_fn, params)))
    # breadth first, with each node's edges
    order, queue, seen = [], [loss.grad_fn], set()
    while queue:
        fn = queue.pop(0)
        if fn is None or fn in seen:
            continue
        seen.add(fn)
        order.append(f"{fn.name()} {_edges(fn)}")
        queue.extend(f for f, _ in fn.next_functions)
    rec("bfs", "\n".join(order))
    loss.backward()
    for name, p in model.named_parameters():
        rec("g." + name, p.grad)


def p_make_dot(lib, dt, rec):
    """torchviz's make_dot(show_saved=True), as text: each node with its saved attributes."""
    model = _mlp(lib, dt)
    x = _randn(lib, dt, 23, 2, 4).requires_grad_(True)
    out = model(x).softmax(1)
    params = {id(p): name for name, p in model.named_parameters()}
    lines, seen = [], set()

    def size_to_str(size):
        return "(" + ", ".join([f"{v:d}" for v in size]) + ")"

    def add_nodes(fn):
        if fn in seen:
            return
        seen.add(fn)
        attrs = []
        for attr in dir(fn):
            if not attr.startswith("_saved_"):
                continue
            val = getattr(fn, attr)
            attr = attr[len("_saved_") :]
            if isinstance(val, lib.Tensor):
                attrs.append(f"{attr}: {size_to_str(val.size())}")
            else:
                attrs.append(f"{attr}: {val}")
        if hasattr(fn, "variable"):
            v = fn.variable
            lines.append(f"{params.get(id(v), 'input')} {size_to_str(v.size())}")
        else:
            lines.append(f"{type(fn).__name__} | " + " | ".join(attrs))
        for u, nr in fn.next_functions:
            if u is not None:
                lines.append(f"  edge {type(u).__name__} -> {type(fn).__name__} ({nr})")
                add_nodes(u)

    add_nodes(out.grad_fn)
    rec("dot", "\n".join(lines))


def p_index_saved(lib, dt, rec):
    x = _randn(lib, dt, 24, 4, 5, 6).requires_grad_(True)
    i = lib.tensor([0, 2])
    j = lib.tensor([[1], [3]])
    m1 = lib.tensor([True, False, True, True])
    m2 = _randn(lib, dt, 25, 5, 6) > 0
    keys = {
        "i": (i,), ":,i": (slice(None), i), "i,j": (i, j), "...,i": (Ellipsis, i),
        "1,i": (1, i), "i,1": (i, 1), "1:3,i": (slice(1, 3), i), "i,1:3": (i, slice(1, 3)),
        "None,i": (None, i), "i,None": (i, None), "m1": (m1,), ":,m2": (slice(None), m2),
        "m1,2": (m1, 2), "list": [0, 1], ":,l,l": (slice(None), [1, 2], [0, 3]),
        "i,...,i": (i, Ellipsis, i), "2:,::2,i": (slice(2, None), slice(None, None, 2), i),
        "-1,:,l": (-1, slice(None), [0, 5]),
    }  # fmt: skip
    given = {"i": i, "j": j, "m1": m1, "m2": m2}
    for tag, key in keys.items():
        y = x[key]
        n = y.grad_fn
        rec(tag + ".name", n.name())
        rec(tag + ".names", _saved_names(n))
        idx = n._saved_indices
        rec(tag + ".indices", _describe(lib, idx))
        ids = [next((k for k, t in given.items() if t is e), "new") for e in idx if e is not None]
        rec(tag + ".ids", str(ids))
        for k, e in enumerate(idx):
            if e is not None:
                rec(f"{tag}.idx{k}", e)
        rec(tag + ".sizes", str(n._saved_self_sym_sizes))
        rec(tag + ".y", y)


def p_index_grads(lib, dt, rec):
    """A gather of rows by an index tensor (a batch's class prototypes), its node and gradients."""
    protos = _randn(lib, dt, 26, 5, 3).requires_grad_(True)
    labels = lib.tensor([4, 0, 0, 2, 4, 4])
    picked = protos[labels]
    feats = _randn(lib, dt, 27, 6, 3)
    loss = ((feats - picked) ** 2).sum(1).mean()
    n = picked.grad_fn
    rec("node", f"{n.name()} {_edges(n)}")
    rec("labels_saved", n._saved_indices[0] is labels)
    rec("sizes", str(n._saved_self_sym_sizes))
    loss.backward()
    rec("grad", protos.grad)
    q = _randn(lib, dt, 28, 3, 4).requires_grad_(True)
    sel = q[:, lib.tensor([3, 1, 3])]
    (sel * _randn(lib, dt, 29, 3, 3)).sum().backward()
    rec("col_grad", q.grad)


def p_sort_topk(lib, dt, rec):
    x = _randn(lib, dt, 30, 4, 6).requires_grad_(True)
    calls = {
        "sort1d": lambda: x.sort(1, descending=True), "sort": lambda: x.sort(),
        "stable": lambda: lib.sort(x, dim=0, stable=True), "topk": lambda: x.topk(2),
        "topk0": lambda: x.topk(3, dim=0, largest=False), "flat": lambda: x.view(-1).topk(5),
        "neg": lambda: x.topk(2, dim=-2), "msort": lambda: (x.msort(), None),
    }  # fmt: skip
    w = _randn(lib, dt, 31, 24)
    for tag, call in calls.items():
        v, i = call()
        n = v.grad_fn
        rec(tag + ".name", n.name())
        rec(tag + ".names", _saved_names(n))
        rec(tag + ".dim", n._saved_dim)
        rec(tag + ".sizes", str(n._saved_self_sym_sizes))
        rec(tag + ".same", n._saved_indices is i if i is not None else "msort")
        rec(tag + ".indices", n._saved_indices)
        x.grad = None
        (v * w[: v.numel()].view(v.shape)).sum().backward()
        rec(tag + ".grad", x.grad)


def p_split_chunk(lib, dt, rec):
    x = _randn(lib, dt, 32, 4, 6).requires_grad_(True)
    calls = {
        "split": lambda: x.split(2), "split_neg": lambda: x.split(4, -1),
        "sizes": lambda: x.split([1, 3]), "sizes_neg": lambda: lib.split(x, [2, 4], dim=-1),
        "chunk": lambda: x.chunk(3, 1), "chunk_neg": lambda: x.chunk(2, -1),
        "chunk0": lambda: x.chunk(3), "chunk_fn": lambda: lib.chunk(x, 4, dim=1),
        "uneven": lambda: x.split(5, 1), "unbind": lambda: x.unbind(1),
        "unbind_neg": lambda: x.unbind(-1), "unsafe": lambda: x.unsafe_split(2),
    }  # fmt: skip
    for tag, call in calls.items():
        parts = call()
        n = parts[0].grad_fn
        rec(tag + ".name", n.name())
        rec(tag + ".saved", _saved(lib, n, [k[7:] for k in dir(n) if k.startswith("_saved_")]))
        rec(tag + ".shared", all(p.grad_fn is n for p in parts))
        rec(tag + ".nrs", str([p.output_nr for p in parts]))
        x.grad = None
        sum((k + 1) * p.sum() for k, p in enumerate(parts)).backward()
        rec(tag + ".grad", x.grad)


def p_embedding_saved(lib, dt, rec):
    F = lib.nn.functional
    w = _randn(lib, dt, 33, 10, 3).requires_grad_(True)
    idx = lib.tensor([[1, 0], [3, 3]])
    calls = {
        "plain": {}, "pad0": {"padding_idx": 0}, "padneg": {"padding_idx": -2},
        "freq": {"scale_grad_by_freq": True}, "sparse": {"sparse": True},
    }  # fmt: skip
    for tag, kw in calls.items():
        y = F.embedding(idx, w, **kw)
        n = y.grad_fn
        rec(tag + ".name", n.name())
        rec(tag + ".names", _saved_names(n))
        keys = ("padding_idx", "scale_grad_by_freq", "sparse", "weight_sym_argsize_0")
        rec(tag + ".saved", _saved(lib, n, keys))
        rec(tag + ".indices", n._saved_indices is idx)
        rec(tag + ".edges", _edges(n))
    lib.manual_seed(5)
    emb = lib.nn.Embedding(6, 4, padding_idx=1).to(dt)
    tokens = lib.tensor([[1, 2, 5], [4, 1, 2]])
    out = emb(tokens)
    n = out.grad_fn
    rec("module.saved", _saved(lib, n, ("padding_idx", "weight_sym_argsize_0")))
    rec("module.var", n.next_functions[0][0].variable is emb.weight)
    (out * _randn(lib, dt, 34, 2, 3, 4)).sum().backward()
    rec("module.grad", emb.weight.grad)
    rec.err("module.freed", lambda: n._saved_indices)
    rec("module.pad_after", n._saved_padding_idx)


def p_add_alpha(lib, dt, rec):
    x = _randn(lib, dt, 35, 3).requires_grad_(True)
    y = _randn(lib, dt, 36, 3).requires_grad_(True)
    z = _randn(lib, dt, 37, 3)
    exprs = {
        "x+y": lambda: x + y, "x+z": lambda: x + z, "z+x": lambda: z + x, "x+2": lambda: x + 2,
        "2+x": lambda: 2 + x, "x-y": lambda: x - y, "x-2": lambda: x - 2, "2-x": lambda: 2 - x,
        "add_a2": lambda: lib.add(x, y, alpha=2), "sub_a": lambda: lib.sub(x, y, alpha=0.5),
        "add_z": lambda: lib.add(x, z, alpha=3), "add_zx": lambda: lib.add(z, x, alpha=3),
        "add_": lambda: (x * 1).add_(y), "sub_": lambda: (x * 1).sub_(y, alpha=2),
        "num": lambda: x.add(1.5, alpha=2), "rsub": lambda: lib.rsub(x, y),
    }  # fmt: skip
    for tag, fn in exprs.items():
        out = fn()
        n = out.grad_fn
        rec(tag + ".node", f"{n.name()} {_saved_names(n)} {_edges(n)}")
        rec(tag + ".alpha", n._saved_alpha)
        rec(tag + ".out", out)


def p_conv_saved(lib, dt, rec):
    lib.manual_seed(6)
    conv = lib.nn.Conv2d(2, 3, 3, stride=2, padding=1, dilation=1).to(dt)
    img = _randn(lib, dt, 38, 1, 2, 7, 7).requires_grad_(True)
    y = conv(img)
    n = y.grad_fn
    rec("name", n.name())
    keys = ("stride", "padding", "dilation", "groups", "transposed", "output_padding",
            "bias_sym_sizes_opt")  # fmt: skip
    rec("saved", _saved(lib, n, keys))
    rec("ids", str((n._saved_input is img, n._saved_weight is conv.weight)))
    rec("edges", _edges(n))
    up = lib.nn.ConvTranspose2d(3, 2, 2, stride=2, bias=False).to(dt)
    n = up(y).grad_fn
    rec("t.saved", _saved(lib, n, keys))
    rec("t.edges", _edges(n))


def p_softmax_saved(lib, dt, rec):
    x = _randn(lib, dt, 39, 3, 4).requires_grad_(True)
    calls = {
        "softmax": lambda: x.softmax(1), "log_softmax": lambda: x.log_softmax(0),
        "F": lambda: lib.nn.functional.softmax(x, dim=1), "neg": lambda: x.softmax(-1),
        "log_neg": lambda: lib.nn.functional.log_softmax(x, dim=-2),
    }  # fmt: skip
    for tag, fn in calls.items():
        out = fn()
        n = out.grad_fn
        rec(tag + ".name", n.name())
        rec(tag + ".dim", n._saved_dim)
        rec(tag + ".result", n._saved_result)
        rec(tag + ".equal", bool((n._saved_result == out).all()))
        rec(tag + ".names", _saved_names(n))
    r = x.relu()
    rec("relu.result", r.grad_fn._saved_result)
    s = x.sigmoid()
    rec("sigmoid.result", s.grad_fn._saved_result)
    e = x.exp()
    rec("exp.result", e.grad_fn._saved_result)
    m = x * x.detach()
    rec("mul.names", _saved_names(m.grad_fn))
    rec("mul.other", m.grad_fn._saved_other)


def p_reductions(lib, dt, rec):
    x = _randn(lib, dt, 40, 2, 3, 4).requires_grad_(True)
    calls = {
        "mean": lambda: x.mean(), "mean1": lambda: x.mean(1), "mean_keep": lambda: x.mean(
            (0, 2), keepdim=True), "sum": lambda: x.sum(), "sum2": lambda: x.sum(2),
        "amax": lambda: x.amax(1), "max1": lambda: x.max(1)[0],
    }  # fmt: skip
    for tag, fn in calls.items():
        n = fn().grad_fn
        keys = [k[7:] for k in dir(n) if k.startswith("_saved_")]
        rec(tag + ".node", f"{n.name()} {keys}")
        rec(tag + ".saved", _saved(lib, n, [k for k in keys if k not in ("result", "self")]))


def p_metadata(lib, dt, rec):
    x = _randn(lib, dt, 41, 3).requires_grad_(True)
    y = (x * 2).sum()
    n = y.grad_fn
    rec("empty", str(n.metadata))
    n.metadata["tag"] = "loss"
    n.metadata["step"] = 3
    rec("kept", str(y.grad_fn.metadata))
    rec("same", y.grad_fn.metadata is n.metadata)
    mul = n.next_functions[0][0]
    rec("other", str(mul.metadata))
    acc = mul.next_functions[0][0]
    acc.metadata["param"] = "x"
    rec("acc", str(x.grad_fn) + " " + str(acc.metadata))
    y.backward()
    rec("after", str(n.metadata))
    rec("grad", x.grad)


def p_reprs(lib, dt, rec):
    lib.manual_seed(7)
    lin = lib.nn.Linear(2, 2).to(dt)
    x = _randn(lib, dt, 42, 1, 2)
    y = lin(x)
    rec("tensor_repr_tail", repr(y).split(",")[-1])
    n = y.grad_fn
    rec("repr", _addr(repr(n)))
    rec("str", _addr(str(n)))
    rec("type", type(n).__name__)
    rec("next", _addr(str(n.next_functions)))
    acc = n.next_functions[0][0]
    rec("acc", _addr(repr(acc)))
    rec("acc_name", acc.name())
    rec("acc_next", str(acc.next_functions))
    rec("leaf_grad_fn", str(lin.weight.grad_fn))
    rec("requires_grad", n.requires_grad if hasattr(n, "requires_grad") else "none")


def p_leaf_variables(lib, dt, rec):
    """Which leaves a loss depends on, found through AccumulateGrad.variable."""
    a = _randn(lib, dt, 43, 3).requires_grad_(True)
    b = _randn(lib, dt, 44, 3).requires_grad_(True)
    c = _randn(lib, dt, 45, 3)
    loss = (a * b + a.exp() * c).sum()
    leaves, stack, seen = [], [loss.grad_fn], set()
    while stack:
        fn = stack.pop()
        if fn is None or fn in seen:
            continue
        seen.add(fn)
        if hasattr(fn, "variable"):
            leaves.append("a" if fn.variable is a else "b" if fn.variable is b else "?")
        stack.extend(f for f, _ in fn.next_functions)
    rec("leaves", str(leaves))
    rec("count", len(seen))
    mul = loss.grad_fn.next_functions[0][0].next_functions[0][0]
    rec("mul", f"{mul.name()} {_edges(mul)}")
    rec("mul.self", mul._saved_self is a)
    rec("mul.other", mul._saved_other is b)


def p_batched_linear(lib, dt, rec):
    lib.manual_seed(8)
    lin = lib.nn.Linear(3, 4).to(dt)
    x = _randn(lib, dt, 46, 2, 5, 3).requires_grad_(True)
    y = lin(x)
    rec("name", y.grad_fn.name())
    inner = y.grad_fn.next_functions[0][0]
    rec("inner", f"{inner.name()} {_edges(inner)}")
    rec("inner.saved", _saved(lib, inner, _ADDMM))
    view = inner.next_functions[1][0]
    rec("view", f"{view.name()} {view._saved_self_sym_sizes}")
    y.sum().backward()
    rec("gx", x.grad)


def p_index_select_gather(lib, dt, rec):
    x = _randn(lib, dt, 47, 4, 5).requires_grad_(True)
    idx = lib.tensor([3, 0, 3])
    n = x.index_select(1, idx).grad_fn
    rec("isel", f"{n.name()} {_saved(lib, n, ('dim', 'self_sym_sizes'))}")
    rec("isel.idx", n._saved_index is idx)
    g = lib.tensor([[0, 1], [2, 2], [4, 0], [1, 1]])
    n = x.gather(1, g).grad_fn
    rec("gather", f"{n.name()} {_saved(lib, n, ('dim', 'sparse_grad'))}")
    rec("gather.ids", str((n._saved_index is g, n._saved_self is x)))


def p_saved_index_inplace(lib, dt, rec):
    x = _randn(lib, dt, 48, 5).requires_grad_(True)
    v, i = x.topk(3)
    i += 1
    rec.err("topk", lambda: v.sum().backward())
    rec.err("read", lambda: v.grad_fn._saved_indices)
    idx = lib.tensor([0, 1])
    y = x[idx]
    idx.add_(1)
    rec.err("index", lambda: y.sum().backward())


def p_cnn_walk(lib, dt, rec):
    lib.manual_seed(9)
    net = lib.nn.Sequential(
        lib.nn.Conv2d(1, 2, 3, padding=1),
        lib.nn.ReLU(),
        lib.nn.MaxPool2d(2),
        lib.nn.Flatten(),
        lib.nn.Linear(8, 3),
    ).to(dt)
    x = _randn(lib, dt, 49, 2, 1, 4, 4)
    out = net(x).log_softmax(1)
    params = {id(p): name for name, p in net.named_parameters()}
    rec("walk", "\n".join(_walk(out.grad_fn, params)))
    lin = out.grad_fn.next_functions[0][0]
    rec("linear", _saved(lib, lin, _ADDMM))
    out.sum().backward()
    rec("conv_grad", net[0].weight.grad)


def p_param_names(lib, dt, rec):
    """The edges a loss's graph has into a module's parameters, named as a debugger names them."""
    lib.manual_seed(10)
    model = lib.nn.Sequential(lib.nn.Linear(3, 4), lib.nn.GELU(), lib.nn.Linear(4, 1)).to(dt)
    model[0].bias.requires_grad_(False)
    x = _randn(lib, dt, 50, 6, 3)
    loss = model(x).pow(2).mean()
    params = {id(p): name for name, p in model.named_parameters()}
    found = []
    layers = []

    def visit(fn, seen):
        if fn is None or fn in seen:
            return
        seen.add(fn)
        if hasattr(fn, "variable"):
            found.append(params[id(fn.variable)])
        if fn.name() == "AddmmBackward0":
            layers.append(fn)
        for child, _ in fn.next_functions:
            visit(child, seen)

    visit(loss.grad_fn, set())
    rec("found", str(sorted(found)))
    first = model[0]
    for k, node in enumerate(layers):
        rec(f"layer{k}", f"{_edges(node)} {_saved(lib, node, _ADDMM)}")
    node = next(n for n in layers if n._saved_mat1_sym_sizes == (6, 3))
    rec("first_mat1", node._saved_mat1 is x)
    loss.backward()
    rec("w0", first.weight.grad)


def p_transformer_block(lib, dt, rec):
    """Attention written out (q/k/v projections, scores by matmul, softmax, split heads)."""
    lib.manual_seed(11)
    qkv = lib.nn.Linear(8, 24).to(dt)
    x = _randn(lib, dt, 51, 2, 3, 8).requires_grad_(True)
    q, k, v = qkv(x).split(8, dim=-1)
    n = q.grad_fn
    rec("split", f"{n.name()} {_saved(lib, n, ('dim', 'split_size', 'self_sym_sizes'))}")
    scores = (q @ k.transpose(1, 2)) / 8**0.5
    attn = scores.softmax(2)
    out = attn @ v
    rec("out", out)
    rec("softmax", _saved(lib, attn.grad_fn, ("dim",)))
    top, which = attn.topk(1, dim=2)
    rec("topk", _saved(lib, top.grad_fn, ("dim", "self_sym_sizes")))
    (out.sum() + top.sum()).backward()
    rec("gx", x.grad)
    rec("gw", qkv.weight.grad)
