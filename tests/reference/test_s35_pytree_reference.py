"""Session 35 (helper pytree): nested data structures as libraries use them, written the way
such code is written in torch and run under torch and minitorch with the same seeds, compared
record by record: torch.utils._pytree (tree_map with several trees, tree_flatten/tree_unflatten,
tree_leaves, flatten_up_to, TreeSpec repr/equality/hash, user classes registered with
register_pytree_node and register_dataclass, namedtuples, OrderedDict/defaultdict/deque, dict key
order, None leaves, key paths, register_constant, treespec_dumps/loads, treespec_pprint, the
namedtuple/structseq predicates, _broadcast_to_and_flatten); torch.utils.data.default_collate and
default_convert over nested dicts/lists/tuples/namedtuples of tensors, NumPy arrays and scalars,
numbers, strings and bools (output types, dtypes, and the errors for mismatched sizes and
unsupported types); DataLoader with collate_fn, batch_size=None and their argument errors;
torch.func.functional_call with tuples of dicts, strict and tie_weights, with grad, vmap (model
ensembles, per-sample gradients) and a MAML inner loop; nn.utils.stateless; and user helpers
that move nested batches with .to(dtype), hand-written optimizers and EMAs over tree_map.
float64 must agree to 1e-10 of each record's scale, float32 to 1e-4; texts exactly.

Found and fixed:
- torch.utils._pytree lacked the names of torch's __all__: the type aliases (PyTree, Context,
  FlattenFn, UnflattenFn, DumpableContext, ToDumpableContextFn, FromDumpableContextFn,
  PyTreeSpec), treespec_dumps/treespec_loads (torch's JSON schema, protocol 1, with its errors
  for unnamed types, unknown protocols and contexts JSON cannot hold; Enum keys; namedtuples
  through _register_namedtuple), treespec_pprint, is_namedtuple(_class/_instance),
  is_structseq(_class/_instance) (minitorch's return types count as struct sequences), and
  register_constant, treespec_tuple, treespec_dict, _broadcast_to_and_flatten,
  _deregister_pytree_node, TreeSpec._context.
- torch.func's transforms (grad, vjp, jacrev, vmap's inputs and outputs) flattened with their
  own pytree: types registered with register_pytree_node/register_dataclass, deque and
  defaultdict were leaves ("Thing passed to transform API must be Tensor", "must only return
  Tensors", defaultdict outputs rebuilt wrongly), while subclasses of dict and list were
  traversed; they now dispatch on torch.utils._pytree's node registry by exact type, as torch's
  (func/_pytree.py; None stays an empty container there).
- LeafSpec() gave no warning; torch's FutureWarning "`isinstance(treespec, LeafSpec)` is
  deprecated, use `isinstance(treespec, TreeSpec) and treespec.is_leaf()` instead.".
- _register_pytree_node (the deprecated spelling Hugging Face calls) raised "already registered"
  on a second call; torch replaces the node with a UserWarning (as register_dataclass does) and
  warns FutureWarning about to_str_fn/maybe_from_str_fn.
- register_pytree_node dropped serialized_type_name and the dumpable-context functions, and did
  not refuse one of to_dumpable_context/from_dumpable_context without the other (torch's
  ValueError, after the node is registered).
- Registering a namedtuple class (register_pytree_node or _register_namedtuple) replaced its
  namedtuple node; torch keeps flattening every namedtuple class as a namedtuple (its specs
  print "TreeSpec(namedtuple, <class ...>, ...)").

Known and left (documented):
- nn.utils.stateless.functional_call accepts a tuple of dicts (a documented difference, see
  test_s34_nnutils_reference); torch's deprecated wrapper fails with "'tuple' object has no
  attribute 'keys'". Not recorded.
- minitorch has no complex dtypes: default_convert/collate of complex NumPy arrays (torch gives
  complex tensors) and the "only supported types" list (torch's names complex64, complex128) differ.
- Tensor.to(3.0) (a float, no device or dtype) returns the tensor in torch; minitorch raises
  the parser's TypeError; and Tensor.to with 5 positional arguments gives a different TypeError
  text. Parser quirks no user relies on; not recorded.
- torch's register_dataclass gives tree_flatten_with_path specs a different context (the
  present names only) than tree_flatten's; minitorch gives both [present, absent]. Not recorded.
- .to("cuda")/.cuda() where CUDA is absent: torch's "AssertionError: Torch not compiled with
  CUDA enabled", minitorch's CudaUnavailableError naming CuPy (the install's state, not the
  program's); not recorded.
- nn.utils.stateless._reparametrize_module has no stack_weights argument (private; torch uses it
  to restore in reverse order).
- The records run on the CPU only; the strict test device and CuPy are not exercised here."""

from __future__ import annotations

import collections
import dataclasses
import enum
import time
import warnings

import numpy as np
import pytest

from tests.reference._one_thread import one_torch_thread  # noqa: F401 - an autouse fixture
from tests.reference._programs import assert_program_matches
from tests.reference._programs import seeded_randn as _randn

torch = pytest.importorskip("torch")


# programs whose records depend on floats: run in float64 and float32
PROGRAMS = [
    "loader_train", "collate_nested", "convert_no_batch", "pad_collate", "functional_sgd",
    "fc_tuple_dicts", "fc_tied", "ensemble_vmap", "per_sample_grads", "maml_inner",
    "stateless_fc", "move_helpers", "registered_node_math", "dataclass_node", "flat_vector",
    "ema_tree", "adam_tree_map", "collate_numbers", "func_registered_nodes",
]  # fmt: skip

# programs of structure, texts and errors: the dtype only sets the tensors' dtype (float64)
STRUCTURE_PROGRAMS = [
    "spec_repr", "spec_errors", "dict_order", "none_leaves", "register_errors", "serialize",
    "pprint_predicates", "collate_errors", "convert_types", "loader_modes", "fc_errors",
    "key_paths", "constants_and_broadcast",
]  # fmt: skip


@pytest.mark.parametrize("dt", ["float64", "float32"])
@pytest.mark.parametrize("name", PROGRAMS)
def test_program_matches_torch(name, dt):
    assert_program_matches(globals()["p_" + name], torch, dt)


@pytest.mark.parametrize("name", STRUCTURE_PROGRAMS)
def test_structure_program_matches_torch(name):
    assert_program_matches(globals()["p_" + name], torch, "float64")


# --- helpers ---

Point = collections.namedtuple("Point", ["x", "y"])
Sample = collections.namedtuple("Sample", ["image", "label", "name"])


class Color(enum.Enum):
    RED = 1
    BLUE = 2


def _show(v):
    """A text of a nested value's structure: containers by type, tensors by dtype and shape,
    anything else by repr (values of tensors are recorded apart)."""
    if hasattr(v, "detach") and hasattr(v, "shape"):
        return f"T({str(v.dtype).split('.')[-1]}, {list(v.shape)})"
    if isinstance(v, np.ndarray):
        return f"ndarray({v.dtype}, {list(v.shape)})"
    if isinstance(v, dict):
        body = ", ".join(f"{k!r}: {_show(x)}" for k, x in v.items())
        return f"{type(v).__name__}{{{body}}}"
    if isinstance(v, (list, tuple)):
        return f"{type(v).__name__}[{', '.join(_show(x) for x in v)}]"
    return f"{type(v).__name__}:{v!r}"


def _rec_leaves(lib, rec, prefix, tree):
    """Records the tree's structure and each tensor leaf by its key path."""
    pt = lib.utils._pytree
    rec(prefix, _show(tree))
    for kp, leaf in pt.tree_leaves_with_path(tree):
        if isinstance(leaf, lib.Tensor):
            rec(prefix + pt.keystr(kp), leaf)


def _err(rec, name, fn):
    """rec.err for a call whose result is recorded as its _show text when it succeeds."""
    out = rec.err(name, fn)
    if out is not None:
        rec(name + ".out", _show(out))
    return out


class _Registered:
    """Registers node types for one run and forgets them after it (each library's registry is
    process-wide; every run makes its own classes)."""

    def __init__(self, pt):
        self.pt = pt
        self.types = []

    def __enter__(self):
        return self

    def add(self, cls):
        self.types.append(cls)
        return cls

    def __exit__(self, *exc):
        # by hand: torch's _deregister_pytree_node fails (KeyError) on a second type that was
        # registered without a serialized name
        for cls in self.types:
            self.pt.SUPPORTED_NODES.pop(cls, None)
            node = self.pt.SUPPORTED_SERIALIZED_TYPES.pop(cls, None)
            names = self.pt.SERIALIZED_TYPE_TO_PYTHON_TYPE
            if node is not None and names.get(node.serialized_type_name) is cls:
                del names[node.serialized_type_name]


def _mlp(lib, dt, seed, sizes=(4, 8, 3)):
    lib.manual_seed(seed)
    layers = []
    for i, (a, b) in enumerate(zip(sizes[:-1], sizes[1:], strict=True)):
        layers.append(lib.nn.Linear(a, b))
        if i < len(sizes) - 2:
            layers.append(lib.nn.Tanh())
    return lib.nn.Sequential(*layers).to(dt)


def _np_dtype(dt):
    return np.float64 if str(dt).endswith("float64") else np.float32


# --- programs that depend on floats ---


def p_loader_train(lib, dt, rec):
    """A dict dataset of NumPy features, int labels and string ids through a DataLoader; the
    batch's tensors moved with tree_map_only and an MLP trained by SGD."""
    data, pt = lib.utils.data, lib.utils._pytree
    rng = np.random.default_rng(0)
    feats = rng.standard_normal((10, 4)).astype(_np_dtype(dt))
    labels = rng.integers(0, 3, 10)

    class DS(data.Dataset):
        def __len__(self):
            return 10

        def __getitem__(self, i):
            return {"x": feats[i], "y": int(labels[i]), "id": f"s{i}", "w": float(i) / 10}

    model = _mlp(lib, dt, 1)
    opt = lib.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    loader = data.DataLoader(DS(), batch_size=4, shuffle=False)
    rec("len", len(loader))
    for step, batch in enumerate(loader):
        if step == 0:
            rec("batch", _show(batch))
        batch = pt.tree_map_only(
            lib.Tensor, lambda t: t.to(dt) if t.is_floating_point() else t, batch
        )
        logits = model(batch["x"])
        loss = lib.nn.functional.cross_entropy(logits, batch["y"], reduction="none") * batch["w"]
        loss = loss.mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
        rec(f"loss{step}", loss)
        rec(f"ids{step}", str(batch["id"]))
    rec.params("p", model)


def p_collate_nested(lib, dt, rec):
    """default_collate of nested dicts/lists/tuples/namedtuples of tensors, NumPy arrays,
    numbers and strings; every leaf recorded by its key path."""
    dc = lib.utils.data.default_collate
    samples = []
    for i in range(3):
        img = _randn(lib, dt, 10 + i, 2, 3)
        samples.append(
            {
                "img": img,
                "np": np.full((2,), i + 0.5, dtype=_np_dtype(dt)),
                "pair": (lib.tensor([i, i + 1]), float(i) * 0.25),
                "pt": Point(img.sum(), [i, "a" + str(i)]),
                "nest": [{"m": img[0] * 2, "flag": i % 2 == 0}],
                "od": collections.OrderedDict([("z", i), ("a", np.float32(i) / 3)]),
            }
        )
    batch = dc(samples)
    _rec_leaves(lib, rec, "batch", batch)
    rec("od_type", type(batch["od"]).__name__)
    tup = dc([Sample(_randn(lib, dt, 20 + i, 3), i, f"n{i}") for i in range(2)])
    _rec_leaves(lib, rec, "sample", tup)
    rec("sample_type", type(tup).__name__)


def p_convert_no_batch(lib, dt, rec):
    """batch_size=None: each sample passes default_convert (NumPy to tensors, tuples to lists,
    numbers kept); a model runs on the converted features."""
    data = lib.utils.data
    rng = np.random.default_rng(1)
    items = [
        (rng.standard_normal((3, 4)).astype(_np_dtype(dt)), np.int64(i), {"k": [np.float64(i)]})
        for i in range(3)
    ]
    model = _mlp(lib, dt, 2)
    loader = data.DataLoader(items, batch_size=None)
    rec("len", len(loader))
    for i, sample in enumerate(loader):
        rec(f"s{i}", _show(sample))
        rec(f"y{i}", model(sample[0]))
        rec(f"k{i}", sample[2]["k"][0])
    custom = data.DataLoader(items, batch_size=None, collate_fn=lambda s: (type(s).__name__, s[1]))
    rec("custom", str([(n, int(v)) for n, v in custom]))


def p_pad_collate(lib, dt, rec):
    """A collate_fn padding variable-length sequences (pad_sequence) and returning lengths and
    a mask; masked mean pooling and a GRU over the packed batch."""
    data = lib.utils.data
    F = lib.nn.functional
    seqs = [_randn(lib, dt, 30 + i, n, 3) for i, n in enumerate((4, 2, 5, 3))]
    targets = [float(i) for i in range(4)]

    def collate(batch):
        xs, ys = zip(*batch, strict=True)
        lengths = lib.tensor([len(x) for x in xs])
        padded = lib.nn.utils.rnn.pad_sequence(list(xs), batch_first=True)
        mask = lib.arange(padded.shape[1])[None, :] < lengths[:, None]
        return {"x": padded, "len": lengths, "mask": mask, "y": lib.tensor(ys, dtype=dt)}

    loader = data.DataLoader(
        list(zip(seqs, targets, strict=True)), batch_size=2, collate_fn=collate
    )
    lib.manual_seed(3)
    gru = lib.nn.GRU(3, 4, batch_first=True).to(dt)
    for i, b in enumerate(loader):
        rec(f"b{i}", _show(b))
        rec(f"mask{i}", b["mask"])
        pooled = (b["x"] * b["mask"][..., None]).sum(1) / b["len"][:, None]
        rec(f"pooled{i}", pooled)
        packed = lib.nn.utils.rnn.pack_padded_sequence(
            b["x"], b["len"], batch_first=True, enforce_sorted=False
        )
        _, h = gru(packed)
        loss = F.mse_loss(h[0].sum(-1), b["y"])
        loss.backward()
        rec(f"h{i}", h)
        rec(f"loss{i}", loss)
    rec.params("gru", gru, grads=True)


def p_functional_sgd(lib, dt, rec):
    """Functional training: func.grad of a loss through functional_call, params updated by
    tree_map (plain dicts of tensors, no optimizer)."""
    pt, fc = lib.utils._pytree, lib.func.functional_call
    model = _mlp(lib, dt, 4)
    params = {k: v.detach().clone() for k, v in model.named_parameters()}
    x, y = _randn(lib, dt, 40, 6, 4), _randn(lib, dt, 41, 6, 3)

    def loss_fn(p):
        return lib.nn.functional.mse_loss(fc(model, p, (x,)), y)

    for step in range(3):
        loss, grads = lib.func.grad_and_value(loss_fn)(params)[::-1]
        params = pt.tree_map(lambda p, g: p - 0.2 * g, params, grads)
        rec(f"loss{step}", loss)
    for k, v in params.items():
        rec("p." + k, v)
    rec("model_unchanged", model[0].weight)


def p_fc_tuple_dicts(lib, dt, rec):
    """functional_call with (params, buffers) as a tuple of dicts on a BatchNorm model in
    training mode (the running stats land in the given buffers), strict calls, kwargs, and the
    gradient with respect to the given parameters."""
    fc = lib.func.functional_call
    lib.manual_seed(5)

    class Net(lib.nn.Module):
        def __init__(self):
            super().__init__()
            self.lin = lib.nn.Linear(3, 4)
            self.bn = lib.nn.BatchNorm1d(4)

        def forward(self, x, *, scale=1.0):
            return self.bn(self.lin(x)) * scale

    net = Net().to(dt)
    params = {k: v.detach().clone().requires_grad_(True) for k, v in net.named_parameters()}
    buffers = {k: v.clone() for k, v in net.named_buffers()}
    x = _randn(lib, dt, 50, 5, 3)
    out = fc(net, (params, buffers), (x,), {"scale": 2.0}, strict=True)
    rec("out", out)
    (out * _randn(lib, dt, 51, 5, 4)).sum().backward()
    for k, v in params.items():
        if k != "lin.bias":  # zero but for rounding: the batch norm removes the mean
            rec("g." + k, v.grad)
    for k, v in buffers.items():
        rec("buf." + k, v)
    for k, v in net.named_buffers():
        rec("own." + k, v)
    net.eval()
    rec("eval", fc(net, (params, buffers), x))
    rec("eval_own", net(x))
    rec("grad_own", str([p.grad for p in net.parameters()]))


def p_fc_tied(lib, dt, rec):
    """A language model whose output projection shares the embedding: functional_call with
    tie_weights True (the default) and False, gradients through the tied tensor."""
    fc = lib.func.functional_call
    lib.manual_seed(6)

    class LM(lib.nn.Module):
        def __init__(self):
            super().__init__()
            self.emb = lib.nn.Embedding(7, 4)
            self.proj = lib.nn.Linear(4, 7, bias=False)
            self.proj.weight = self.emb.weight

        def forward(self, idx):
            return self.proj(lib.tanh(self.emb(idx)))

    lm = LM().to(dt)
    idx = lib.tensor([[0, 3, 6], [2, 2, 5]])
    w = _randn(lib, dt, 60, 7, 4).requires_grad_(True)
    y = fc(lm, {"emb.weight": w}, (idx,))
    rec("tied", y)
    lib.nn.functional.cross_entropy(y.reshape(-1, 7), idx.reshape(-1)).backward()
    rec("tied_grad", w.grad)
    w.grad = None
    y2 = fc(lm, {"emb.weight": w}, (idx,), tie_weights=False)
    rec("untied", y2)
    lib.nn.functional.cross_entropy(y2.reshape(-1, 7), idx.reshape(-1)).backward()
    rec("untied_grad", w.grad)
    rec("both_same", fc(lm, {"emb.weight": w, "proj.weight": w}, (idx,)))
    rec("names", str([n for n, _ in lm.named_parameters(remove_duplicate=False)]))


def p_ensemble_vmap(lib, dt, rec):
    """torch.func's model-ensembling recipe: stack_module_state, a base model, vmap over
    functional_call with (params, buffers); compared with the models run one by one."""
    models = [_mlp(lib, dt, 70 + i) for i in range(3)]
    params, buffers = lib.func.stack_module_state(models)
    rec("keys", str(list(params)))
    rec("stacked", _show(params))
    base = models[0]
    x = _randn(lib, dt, 75, 5, 4)

    def run(p, b, xb):
        return lib.func.functional_call(base, (p, b), (xb,))

    same = lib.func.vmap(run, in_dims=(0, 0, None))(params, buffers, x)
    rec("same_x", same)
    xs = _randn(lib, dt, 76, 3, 5, 4)
    each = lib.func.vmap(run)(params, buffers, xs)
    rec("each_x", each)
    rec("loop", lib.stack([m(xs[i]) for i, m in enumerate(models)]))
    rec("requires_grad", str([v.requires_grad for v in params.values()]))


def p_per_sample_grads(lib, dt, rec):
    """Per-sample gradients: vmap(grad(loss)) over functional_call with in_dims (None, 0, 0),
    against a loop of ordinary backward passes."""
    F = lib.nn.functional
    model = _mlp(lib, dt, 8)
    params = {k: v.detach() for k, v in model.named_parameters()}
    x, y = _randn(lib, dt, 80, 4, 4), lib.tensor([0, 2, 1, 2])

    def loss(p, xi, yi):
        out = lib.func.functional_call(model, p, (xi.unsqueeze(0),))
        return F.cross_entropy(out, yi.unsqueeze(0))

    grads = lib.func.vmap(lib.func.grad(loss), in_dims=(None, 0, 0))(params, x, y)
    for k, g in grads.items():
        rec("vmap." + k, g)
    for i in range(4):
        model.zero_grad()
        F.cross_entropy(model(x[i : i + 1]), y[i : i + 1]).backward()
        rec(f"loop{i}", lib.cat([p.grad.reshape(-1) for p in model.parameters()]))


def p_maml_inner(lib, dt, rec):
    """A MAML step: an inner SGD update by tree_map with create_graph gradients, the outer
    loss's gradient with respect to the original parameters."""
    pt, fc = lib.utils._pytree, lib.func.functional_call
    F = lib.nn.functional
    model = _mlp(lib, dt, 9, sizes=(2, 6, 1))
    params = dict(model.named_parameters())
    xs, ys = _randn(lib, dt, 90, 5, 2), _randn(lib, dt, 91, 5, 1)
    xq, yq = _randn(lib, dt, 92, 4, 2), _randn(lib, dt, 93, 4, 1)
    fast = params
    for step in range(2):
        inner = F.mse_loss(fc(model, fast, (xs,)), ys)
        leaves, spec = pt.tree_flatten(fast)
        grads = lib.autograd.grad(inner, leaves, create_graph=True)
        fast = pt.tree_map(lambda p, g: p - 0.1 * g, fast, pt.tree_unflatten(list(grads), spec))
        rec(f"inner{step}", inner)
    outer = F.mse_loss(fc(model, fast, (xq,)), yq)
    outer.backward()
    rec("outer", outer)
    rec.params("meta", model, grads=True)


def p_stateless_fc(lib, dt, rec):
    """nn.utils.stateless.functional_call (deprecated): its warning, values, a parameter
    swapped for a non-leaf that carries gradient, and the module left as it was."""
    model = _mlp(lib, dt, 10)
    x = _randn(lib, dt, 100, 3, 4)
    scale = lib.tensor(1.5, dtype=dt, requires_grad=True)
    new = {"0.weight": model[0].weight.detach() * scale}
    y = rec.warns("warns", lambda: lib.nn.utils.stateless.functional_call(model, new, (x,)))
    rec("y", y)
    y.sum().backward()
    rec("g_scale", scale.grad)
    rec("own", model(x))
    rec("own_grad", str(model[0].weight.grad))
    y2 = lib.nn.utils.stateless.functional_call(model, {}, x)
    rec("empty", y2)


def p_move_helpers(lib, dt, rec):
    """User helpers that move nested batches: a recursive .to(dtype) that keeps ints, ints and
    strings untouched, namedtuples rebuilt, and pytree's tree_map_only doing the same."""
    pt = lib.utils._pytree

    def move(obj, dtype):
        if isinstance(obj, lib.Tensor):
            return obj.to(dtype) if obj.is_floating_point() else obj
        if isinstance(obj, dict):
            return type(obj)((k, move(v, dtype)) for k, v in obj.items())
        if isinstance(obj, tuple) and hasattr(obj, "_fields"):
            return type(obj)(*(move(v, dtype) for v in obj))
        if isinstance(obj, (list, tuple)):
            return type(obj)(move(v, dtype) for v in obj)
        return obj

    other = lib.float32 if dt == lib.float64 else lib.float64
    batch = {
        "x": _randn(lib, other, 110, 2, 3),
        "idx": lib.arange(4),
        "p": Point(_randn(lib, other, 111, 2), "name"),
        "seq": [_randn(lib, lib.float16, 112, 3), None, 3.5, (lib.ones(1, dtype=lib.bool),)],
        "od": collections.OrderedDict(b=_randn(lib, other, 113, 1)),
    }
    moved = move(batch, dt)
    _rec_leaves(lib, rec, "moved", moved)
    mapped = pt.tree_map_only(
        lib.Tensor, lambda t: t.to(dtype=dt) if t.is_floating_point() else t, batch
    )
    _rec_leaves(lib, rec, "mapped", mapped)
    rec(
        "same_obj",
        str(pt.tree_map_only(lib.Tensor, lambda t: t.to("cpu"), batch)["x"] is batch["x"]),
    )
    rec("copy_obj", str(batch["x"].to("cpu", copy=True) is batch["x"]))
    rec("to_other", batch["x"].to(batch["idx"]))
    model = _mlp(lib, other, 11).to(dt)
    rec("model_dtypes", str([str(p.dtype) for p in model.parameters()]))
    rec("y", model(moved["x"].new_ones(2, 4)))
    rec("to_kw", batch["x"].to(device="cpu", dtype=dt, non_blocking=True))


def p_registered_node_math(lib, dt, rec):
    """A user container (an optimizer-state-like record) registered with register_pytree_node:
    tree_map with two trees doing arithmetic, flatten/unflatten and the spec's type."""
    pt = lib.utils._pytree

    class State:
        def __init__(self, mean, var, count):
            self.mean, self.var, self.count = mean, var, count

    with _Registered(pt) as reg:
        pt.register_pytree_node(
            reg.add(State),
            lambda s: ([s.mean, s.var], s.count),
            lambda v, c: State(v[0], v[1], c),
            flatten_with_keys_fn=lambda s: (
                [(pt.GetAttrKey("mean"), s.mean), (pt.GetAttrKey("var"), s.var)],
                s.count,
            ),
        )
        a = {"l1": State(_randn(lib, dt, 120, 3), _randn(lib, dt, 121, 3).abs(), 2), "l2": None}
        b = {"l1": State(_randn(lib, dt, 122, 3), _randn(lib, dt, 123, 3).abs(), 2), "l2": None}
        summed = pt.tree_map(lambda u, v: None if u is None else u * 0.9 + v * 0.1, a, b)
        rec("type", type(summed["l1"]).__name__)
        rec("count", summed["l1"].count)
        rec("mean", summed["l1"].mean)
        rec("var", summed["l1"].var)
        leaves, spec = pt.tree_flatten(a)
        rec("n", len(leaves))
        rec("spec_type", str(spec.child(0).type is State))
        rec("ctx", repr(spec.child(0).context))
        back = pt.tree_unflatten(
            [lib.sqrt(t) if isinstance(t, lib.Tensor) else t for t in leaves], spec
        )
        rec("sqrt_var", back["l1"].var)
        rec("paths", str([pt.keystr(k) for k, _ in pt.tree_leaves_with_path(a)]))
        rec.err(
            "ctx_mismatch",
            lambda: pt.tree_map(lambda u, v: u, a, {"l1": State(1, 2, 3), "l2": None}),
        )


def p_dataclass_node(lib, dt, rec):
    """A dataclass registered with register_dataclass (a None field is no child, but its name
    stays in the spec): tree_map of two trees, key paths, unflatten to the dataclass."""
    pt = lib.utils._pytree

    @dataclasses.dataclass
    class Out:
        logits: object
        hidden: object = None
        aux: object = None

    with _Registered(pt) as reg:
        pt.register_dataclass(reg.add(Out))
        o1 = Out(_randn(lib, dt, 130, 2, 3), aux=[_randn(lib, dt, 131, 2)])
        o2 = Out(_randn(lib, dt, 132, 2, 3), aux=[_randn(lib, dt, 133, 2)])
        s = pt.tree_map(lambda u, v: u - v, o1, o2)
        rec("type", type(s).__name__)
        rec("hidden", str(s.hidden))
        rec("logits", s.logits)
        rec("aux", s.aux[0])
        leaves, spec = pt.tree_flatten(o1)
        rec("spec", repr(spec).split(", [")[0].rsplit(".", 1)[-1])
        rec("ctx", repr(spec.context))
        rec("n", len(leaves))
        rec("paths", str([pt.keystr(k) for k, _ in pt.tree_flatten_with_path(o1)[0]]))
        rec.err(
            "mismatch", lambda: pt.tree_map(lambda u, v: u, o1, Out(o1.logits, o1.logits, o1.aux))
        )
        rec("sum", sum(t.sum() for t in pt.tree_leaves(s)))


def p_flat_vector(lib, dt, rec):
    """A state dict flattened into one vector (tree_flatten + cat), perturbed, and split back
    into its tree by the leaves' numels; loaded into a fresh model."""
    pt = lib.utils._pytree
    model = _mlp(lib, dt, 12)
    sd = model.state_dict()
    leaves, spec = pt.tree_flatten(dict(sd))
    vec = lib.cat([t.reshape(-1) for t in leaves])
    rec("numel", vec.numel())
    vec = vec + 0.01 * _randn(lib, dt, 140, vec.numel())
    parts = vec.split([t.numel() for t in leaves])
    new = pt.tree_unflatten([p.reshape(t.shape) for p, t in zip(parts, leaves, strict=True)], spec)
    rec("keys", str(list(new)))
    other = _mlp(lib, dt, 13)
    rec("load", str(other.load_state_dict(new)))
    x = _randn(lib, dt, 141, 2, 4)
    rec("y", other(x))
    rec("p2v", lib.nn.utils.parameters_to_vector(other.parameters()))


def p_ema_tree(lib, dt, rec):
    """An exponential moving average of a model's parameters kept as a dict and updated by
    tree_map_ (in place, under no_grad) after each optimizer step."""
    pt = lib.utils._pytree
    model = _mlp(lib, dt, 14)
    ema = {k: v.detach().clone() for k, v in model.named_parameters()}
    opt = lib.optim.Adam(model.parameters(), lr=0.05)
    x, y = _randn(lib, dt, 150, 8, 4), _randn(lib, dt, 151, 8, 3)
    for step in range(3):
        loss = lib.nn.functional.mse_loss(model(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        with lib.no_grad():
            pt.tree_map_(
                lambda e, p: e.mul_(0.8).add_(p, alpha=0.2), ema, dict(model.named_parameters())
            )
        rec(f"loss{step}", loss)
    for k, v in ema.items():
        rec("ema." + k, v)


def p_adam_tree_map(lib, dt, rec):
    """Adam written over pytrees: tree_map over (params, grads, m, v) tuples, bias corrections,
    compared with optim.Adam on a copy of the model."""
    pt = lib.utils._pytree
    model = _mlp(lib, dt, 15)
    ref = _mlp(lib, dt, 15)
    params = {k: v.detach().clone() for k, v in model.named_parameters()}
    m = pt.tree_map(lib.zeros_like, params)
    v = pt.tree_map(lib.zeros_like, params)
    x, y = _randn(lib, dt, 160, 6, 4), _randn(lib, dt, 161, 6, 3)
    opt = lib.optim.Adam(ref.parameters(), lr=0.01)
    b1, b2, lr, eps = 0.9, 0.999, 0.01, 1e-8

    def loss_fn(p):
        return lib.nn.functional.mse_loss(lib.func.functional_call(model, p, (x,)), y)

    for t in range(1, 4):
        g = lib.func.grad(loss_fn)(params)
        m = pt.tree_map(lambda mi, gi: b1 * mi + (1 - b1) * gi, m, g)
        v = pt.tree_map(lambda vi, gi: b2 * vi + (1 - b2) * gi * gi, v, g)
        params = pt.tree_map(
            lambda p, mi, vi, t=t: p - lr * (mi / (1 - b1**t)) / ((vi / (1 - b2**t)).sqrt() + eps),
            params, m, v,
        )  # fmt: skip
        loss = lib.nn.functional.mse_loss(ref(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
    for k in params:
        rec("tree." + k, params[k])
    rec.params("adam", ref)


def p_collate_numbers(lib, dt, rec):
    """default_collate's dtypes for numbers: Python floats to float64, ints to int64, bools to
    bool, NumPy scalars keep their dtype, 0-d arrays stack; values of the given dtype."""
    dc = lib.utils.data.default_collate
    npdt = _np_dtype(dt)
    rec("floats", dc([0.1, 0.2, 1.0 / 3]))
    rec("ints", dc([1, 2, 3]))
    rec("bools", dc([True, False]))
    rec("int_first", dc([1, 2.5]))
    rec("np_scalars", dc([npdt(0.1), npdt(1.0 / 3)]))
    rec("np_0d", dc([np.array(0.5, dtype=npdt), np.array(1.5, dtype=npdt)]))
    rec("np_i16", dc([np.int16(3), np.int16(-4)]))
    rec("np_bool", dc([np.bool_(True), np.bool_(False)]))
    rec("np_u8", dc([np.arange(4, dtype=np.uint8).reshape(2, 2)] * 2))
    rec("tensors", dc([_randn(lib, dt, 170 + i, 2) for i in range(3)]))
    rec("dict", _show(dc([{"a": npdt(1.5), "b": 2}, {"a": npdt(2.5), "b": 3}])))


def p_func_registered_nodes(lib, dt, rec):
    """torch.func over registered nodes: grad of a loss of a registered dataclass state, vjp
    and jacrev through a registered class, vmap with registered classes and a deque as inputs
    and a registered class and a defaultdict as outputs; subclasses of dict and list are leaves
    (the transforms' errors)."""
    pt, f = lib.utils._pytree, lib.func

    @dataclasses.dataclass
    class Params:
        w: object
        b: object = None

    class Pair:
        def __init__(self, a, b):
            self.a, self.b = a, b

    class D(dict):
        pass

    class L(list):
        pass

    x = _randn(lib, dt, 200, 4, 3)
    w = _randn(lib, dt, 201, 3, 2)
    with _Registered(pt) as reg:
        pt.register_dataclass(reg.add(Params))
        pt.register_pytree_node(
            reg.add(Pair), lambda p: ([p.a, p.b], None), lambda v, c: Pair(*v)
        )  # fmt: skip

        def loss(p):
            y = x @ p.w + (0.0 if p.b is None else p.b)
            return (lib.tanh(y) ** 2).mean()

        g = f.grad(loss)(Params(w))
        rec("grad_type", type(g).__name__ + " " + str(g.b))
        rec("grad_w", g.w)
        g2 = f.grad(loss)(Params(w, _randn(lib, dt, 202, 2)))
        rec("grad_wb", g2.w)
        rec("grad_b", g2.b)
        out, fn = f.vjp(lambda p: Pair(p.a * p.b, p.a.sum()), Pair(x, x + 1))
        rec("vjp_out", _show(vars(out)))
        (ct,) = fn(Pair(lib.ones_like(x), lib.ones((), dtype=dt)))
        rec("vjp_ct_a", ct.a)
        rec("vjp_ct_b", ct.b)
        jac = f.jacrev(lambda p: p.a * p.b.sum())(Pair(w[0], w[1]))
        rec("jac_a", jac.a)
        rec("jac_b", jac.b)
        v = f.vmap(lambda p: p.a @ p.b)(
            Pair(x[:, None, :], w.t().reshape(2, 3, 1)[:1].expand(4, 3, 1))
        )
        rec("vmap_in", v)
        o = f.vmap(lambda r: Pair(r * 2, r.sum()))(x)
        rec("vmap_out", _show(vars(o)))
        rec("vmap_out_a", o.a)
        rec("vmap_out_b", o.b)
        rec("vmap_deque", f.vmap(lambda q: q[0] * q[1])(collections.deque([x, x + 1])))
        dd = f.vmap(lambda r: collections.defaultdict(list, k=r.sum()))(x)
        rec("vmap_dd", _show(dd) + " " + str(dd.default_factory))
        rec("vmap_dd_k", dd["k"])
        rec.err("grad_dict_sub", lambda: f.grad(lambda d: d["a"].sum())(D(a=x)))
        rec.err("vmap_list_sub", lambda: f.vmap(lambda a: L([a]))(x))
        rec.err("vmap_dict_sub_in", lambda: f.vmap(lambda d: d["a"])(D(a=x)))


# --- programs of structure, texts and errors ---


def p_spec_repr(lib, dt, rec):
    """TreeSpec repr, num_leaves/num_nodes/num_children, equality and hash over nested trees of
    builtin nodes, torch.Size and return types."""
    pt = lib.utils._pytree
    x = lib.ones(2, 2, dtype=dt)
    trees = {
        "leaf": x,
        "none": None,
        "empty_list": [],
        "empty_dict": {},
        "tuple1": (1,),
        "nested": [[1, [2]], {"k": (3,), "j": None}],
        "point": Point(1, [2, 3]),
        "od": collections.OrderedDict([("b", 1), ("a", 2)]),
        "dd": collections.defaultdict(list, {"a": 1}),
        "deque": collections.deque([1, 2], maxlen=3),
        "size": x.shape,
        "max": lib.max(x, 0),
        "str": "abc",
        "set": {1, 2},
    }
    specs = {}
    for name, tree in trees.items():
        leaves, spec = pt.tree_flatten(tree)
        specs[name] = spec
        rec(name, repr(spec))
        rec(
            name + ".counts", str((len(leaves), spec.num_leaves, spec.num_nodes, spec.num_children))
        )
        rec(name + ".is_leaf", str(spec.is_leaf()))
    rec("str", str(specs["nested"]))
    rec("eq", str(pt.tree_structure([1, {"k": 2}]) == pt.tree_structure([5, {"k": None}])))
    rec("eq_list_tuple", str(pt.tree_structure([1]) == pt.tree_structure((1,))))
    rec(
        "eq_dict_od",
        str(pt.tree_structure({"a": 1}) == pt.tree_structure(collections.OrderedDict(a=1))),
    )
    rec("eq_order", str(pt.tree_structure({"a": 1, "b": 2}) == pt.tree_structure({"b": 2, "a": 1})))
    rec("eq_other", str(specs["nested"] == 1))
    rec(
        "hash",
        str(hash(specs["nested"]) == hash(pt.tree_structure([[0, [0]], {"k": (0,), "j": 0}]))),
    )
    rec("children", repr(specs["nested"].children()))
    rec("child", repr(specs["nested"].child(1)))
    rec("size_unflat", repr(pt.tree_unflatten([5, 6], specs["size"])))
    rec("max_unflat", type(pt.tree_unflatten([1, 2], specs["max"])).__name__)
    leaf = rec.warns("leafspec_warns", pt.LeafSpec)
    rec("leafspec", repr(leaf) + " " + str(leaf == pt.treespec_leaf()) + " " + str(leaf.is_leaf()))
    rec("dict_ctx", repr(specs["nested"].child(1).context))


def p_spec_errors(lib, dt, rec):
    """The errors of unflatten with the wrong number of leaves, flatten_up_to and tree_map of
    trees of other structures (type, arity, keys, context)."""
    pt = lib.utils._pytree
    spec = pt.tree_structure({"a": [1, 2], "b": (3,)})
    rec.err("unflat_count", lambda: pt.tree_unflatten([1, 2], spec))
    rec.err("unflat_notspec", lambda: pt.tree_unflatten([1], [1]))
    rec.err("unflat_leaf", lambda: pt.tree_unflatten([1, 2], pt.treespec_leaf()))
    rec("up_to", repr(spec.flatten_up_to({"b": ([9],), "a": [7, {"x": 1}]})))
    rec.err("up_to_arity", lambda: spec.flatten_up_to({"a": [1], "b": (3,)}))
    rec.err("up_to_type", lambda: spec.flatten_up_to({"a": [1, 2], "b": [3]}))
    rec.err("up_to_keys", lambda: spec.flatten_up_to({"a": [1, 2], "c": (3,)}))
    rec.err("up_to_root", lambda: spec.flatten_up_to([1, 2]))
    rec.err("map_len", lambda: pt.tree_map(lambda a, b: a, [1, 2], [1, 2, 3]))
    rec.err("map_type", lambda: pt.tree_map(lambda a, b: a, [1, 2], (1, 2)))
    rec.err("map_keys", lambda: pt.tree_map(lambda a, b: a, {"a": 1}, {"b": 1}))
    rec.err("map_nt", lambda: pt.tree_map(lambda a, b: a, Point(1, 2), (1, 2)))
    rec.err("map_nt_other", lambda: pt.tree_map(lambda a, b: a, Point(1, 2), Sample(1, 2, 3)))
    rec.err("map_none_first", lambda: pt.tree_map(lambda a, b: (a, b), [None, 1], [2, 3]))
    rec.err("map_none_rest", lambda: pt.tree_map(lambda a, b: (a, b), [1, 2], [None, (3, 4)]))
    rec.err(
        "map_deque",
        lambda: pt.tree_map(
            lambda a, b: a + b, collections.deque([1], maxlen=2), collections.deque([2])
        ),
    )
    rec.err("only_bad", lambda: pt.tree_map_only(3, lambda v: v, [1]))
    x = lib.ones(2, dtype=dt)
    rec.err("map_tensor_leaf", lambda: pt.tree_map(lambda a, b: a + b, x, [x]))
    rec.err("map_size", lambda: pt.tree_map(lambda a, b: a + b, x.shape, (1,)))


def p_dict_order(lib, dt, rec):
    """Leaves follow dict insertion order (not sorted keys), with keys of mixed types;
    OrderedDict, defaultdict and deque round-trip; tree_map over dicts whose keys come in
    another order follows the first tree."""
    pt = lib.utils._pytree
    d = {"b": 1, "a": 2, 3: 4, ("t",): 5}
    rec("leaves", repr(pt.tree_leaves(d)))
    rec("spec", repr(pt.tree_structure(d)))
    rec("map_order", repr(pt.tree_map(lambda a, b: (a, b), {"a": 1, "b": 2}, {"b": 10, "a": 20})))
    rec(
        "map_od_dict",
        repr(pt.tree_map(lambda a, b: a + b, collections.OrderedDict(a=1, b=2), {"b": 3, "a": 4})),
    )
    rec(
        "map_dict_dd",
        repr(pt.tree_map(lambda a, b: a + b, {"a": 1}, collections.defaultdict(int, a=5))),
    )
    dd = collections.defaultdict(list, {"z": [1], "y": [2, 3]})
    back = pt.tree_unflatten(*pt.tree_flatten(dd))
    rec("dd_back", repr(back) + " " + str(back.default_factory is list))
    q = collections.deque([1, [2, 3]], maxlen=5)
    rec("deque_back", repr(pt.tree_unflatten(*pt.tree_flatten(q))))
    od = collections.OrderedDict([("z", 1), ("a", 2)])
    rec("od_back", repr(pt.tree_map(lambda v: v * 10, od)))
    rec("sd_keys", str([k for k, _ in pt.tree_leaves_with_path(_mlp(lib, dt, 0).state_dict())]))


def p_none_leaves(lib, dt, rec):
    """None is a leaf of torch.utils._pytree (mapped like any other), but no leaf of vmap's
    inputs and outputs."""
    pt = lib.utils._pytree
    tree = {"a": None, "b": [None, 1], "c": (None,)}
    rec("leaves", repr(pt.tree_leaves(tree)))
    rec("spec", repr(pt.tree_structure(tree)))
    rec("map", repr(pt.tree_map(lambda v: "N" if v is None else v, tree)))
    rec("is_leaf", repr([pt.tree_is_leaf(v) for v in (None, 1, [], (None,), "s")]))
    rec("all", repr(pt.tree_all(lambda v: v is None, tree)))
    rec("any_only", repr(pt.tree_any_only(int, lambda v: v > 0, tree)))
    x = _randn(lib, dt, 180, 3, 2)
    out = lib.func.vmap(lambda a, b: (a * 2, {"n": a.sum()}), in_dims=(0, None))(x, None)
    rec("vmap_out", _show(out))
    rec("vmap_val", out[0])
    rec.err("vmap_none_out", lambda: lib.func.vmap(lambda a: (a, None))(x))
    rec.err("vmap_none_dim", lambda: lib.func.vmap(lambda a, b: a, in_dims=(0, 0))(x, None))


def p_register_errors(lib, dt, rec):
    """Registration: register_pytree_node twice (ValueError), _register_pytree_node twice (a
    warning, the node replaced), to_dumpable_context without from_dumpable_context,
    register_dataclass's field checks and its re-registration warning, a registered namedtuple
    class staying a namedtuple node."""
    pt = lib.utils._pytree

    class Box:
        def __init__(self, v, tag):
            self.v, self.tag = v, tag

    class Box2(Box):
        pass

    class Box3(Box):
        pass

    @dataclasses.dataclass
    class DC:
        a: int
        b: int = 0

    class NotDC:
        def __init__(self, a):
            self.a = a

    nt = collections.namedtuple("NT", ["p", "q"])
    with _Registered(pt) as reg:
        for cls in (Box, Box2, Box3, DC, NotDC, nt):
            reg.add(cls)
        pt.register_pytree_node(Box, lambda b: ([b.v], b.tag), lambda v, c: Box(v[0], c))
        rec.err(
            "twice",
            lambda: pt.register_pytree_node(Box, lambda b: ([], None), lambda v, c: Box(0, 0)),
        )
        rec("box_leaves", repr(pt.tree_leaves(Box(5, "t"))))
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            pt._register_pytree_node(Box2, lambda b: ([b.v], b.tag), lambda v, c: Box2(v[0], c))
            pt._register_pytree_node(Box2, lambda b: ([b.v, b.tag], None), lambda v, c: Box2(*v))
            pt._register_pytree_node(
                Box2, lambda b: ([b.tag], b.v), lambda v, c: Box2(c, v[0]), str, None
            )
        rec("warnings", str([f"{w.category.__name__}: {w.message}" for w in caught]))
        rec("box2_leaves", repr(pt.tree_leaves(Box2(1, "last"))))
        rec.err(
            "half_dumpable",
            lambda: pt.register_pytree_node(
                Box3,
                lambda b: ([b.v], None),
                lambda v, c: Box3(v[0], None),
                to_dumpable_context=str,
            ),
        )
        rec("half_registered", repr(pt.tree_leaves(Box3(7, "x"))))
        rec.err("dc_missing", lambda: pt.register_dataclass(DC, field_names=["a"]))
        rec.err("dc_extra", lambda: pt.register_dataclass(DC, field_names=["a", "b", "c"]))
        rec.err("not_dc", lambda: pt.register_dataclass(NotDC))
        rec.err(
            "dc_drop", lambda: pt.register_dataclass(DC, field_names=["a"], drop_field_names=["b"])
        )
        rec("dc_leaves", repr(pt.tree_leaves(DC(1, 2))))
        rec.warns("dc_again", lambda: pt.register_dataclass(DC))
        rec("dc_leaves2", repr(pt.tree_leaves(DC(1, 2))))
        pt.register_dataclass(NotDC, field_names=["a"])
        rec("notdc_leaves", repr(pt.tree_leaves([NotDC(3)])))
        pt.register_pytree_node(nt, lambda t: ([t.p], t.q), lambda v, c: nt(v[0], c))
        rec("nt_spec", repr(pt.tree_structure(nt(1, 2))))


def p_serialize(lib, dt, rec):
    """treespec_dumps/treespec_loads: torch's JSON text for builtin nodes, torch.Size, Enum
    keys, a registered type with serialized_type_name, a namedtuple registered by
    _register_namedtuple and a dataclass; the errors for unnamed types, unserializable contexts
    and unknown protocols."""
    pt = lib.utils._pytree

    class Box:
        def __init__(self, v, tag):
            self.v, self.tag = v, tag

    class Unnamed(Box):
        pass

    @dataclasses.dataclass
    class DC:
        a: object
        b: object = None

    Q = collections.namedtuple("Q", ["a", "b"])
    tree = {
        "a": [1, (2, None)],
        "b": collections.OrderedDict(z=3),
        "c": collections.defaultdict(list, q=4),
        "d": collections.deque([5], maxlen=4),
        "s": lib.Size([2, 3]),
        7: [],
    }
    spec = pt.tree_structure(tree)
    text = pt.treespec_dumps(spec)
    rec("dumps", text)
    back = pt.treespec_loads(text)
    rec("loads_eq", str(back == spec))
    rec("loads_repr", repr(back))
    rec("loads_cached", str(pt.treespec_loads(text) is back))
    rec("leaf", pt.treespec_dumps(pt.treespec_leaf()))
    rec("proto1", pt.treespec_dumps(pt.tree_structure([1]), protocol=1))
    enum_spec = pt.tree_structure({Color.RED: 1, "x": 2})
    rec("enum", pt.treespec_dumps(enum_spec))
    rec("enum_back", repr(pt.treespec_loads(pt.treespec_dumps(enum_spec)).context))
    with _Registered(pt) as reg:
        for cls in (Box, Unnamed, DC, Q):
            reg.add(cls)
        pt.register_pytree_node(
            Box, lambda b: ([b.v], b.tag), lambda v, c: Box(v[0], c),
            serialized_type_name="demo.Box",
        )  # fmt: skip
        bs = pt.tree_structure([Box(lib.ones(1, dtype=dt), "t1")])
        rec("box", pt.treespec_dumps(bs))
        rec("box_back", str(pt.treespec_loads(pt.treespec_dumps(bs)) == bs))
        pt.register_pytree_node(Unnamed, lambda b: ([b.v], None), lambda v, c: Unnamed(v[0], None))
        rec.err("unnamed", lambda: pt.treespec_dumps(pt.tree_structure(Unnamed(1, 2))))
        rec.err("nt_unregistered", lambda: pt.treespec_dumps(pt.tree_structure(Point(1, 2))))
        pt._register_namedtuple(Q, serialized_type_name="demo.Q")
        qs = pt.tree_structure(Q(1, {"k": 2}))
        rec("nt", pt.treespec_dumps(qs))
        rec("nt_back", str(pt.treespec_loads(pt.treespec_dumps(qs)) == qs))
        rec("nt_spec", repr(qs))
        pt.register_dataclass(DC, serialized_type_name="demo.DC")
        ds = pt.tree_structure(DC(1))
        rec("dc", pt.treespec_dumps(ds))
        rec("dc_back", str(pt.treespec_loads(pt.treespec_dumps(ds)) == ds))
    rec.err("after_dereg", lambda: pt.treespec_loads(pt.treespec_dumps(bs)))
    rec.err("not_spec", lambda: pt.treespec_dumps([1]))
    rec.err("protocol", lambda: pt.treespec_dumps(spec, protocol=2))
    rec.err("loads_protocol", lambda: pt.treespec_loads("[3, {}]"))
    rec.err("loads_unknown", lambda: pt.treespec_loads(
        '[1, {"type": "my.Thing", "context": "null", "children_spec": []}]'
    ))  # fmt: skip
    rec.err("ctx", lambda: pt.treespec_dumps(pt.tree_structure({object: 1})))
    rec.err("return_type", lambda: pt.treespec_dumps(pt.tree_structure(lib.max(lib.ones(2, 2), 0))))


def p_pprint_predicates(lib, dt, rec):
    """treespec_pprint, treespec_tuple/treespec_dict, and the namedtuple/structseq predicates
    over namedtuples, return types of multi-output ops, plain tuples and C struct sequences."""
    pt = lib.utils._pytree
    rec(
        "pprint",
        pt.treespec_pprint(pt.tree_structure({"a": [1, (2,)], "b": None, "p": Point(1, 2)})),
    )
    rec("pprint_leaf", pt.treespec_pprint(pt.treespec_leaf()))
    rec("pprint_empty", pt.treespec_pprint(pt.tree_structure(((), {}))))
    rec("tuple", repr(pt.treespec_tuple([pt.treespec_leaf(), pt.tree_structure([1, 2])])))
    rec("tuple_empty", repr(pt.treespec_tuple()))
    rec("dict", repr(pt.treespec_dict({"a": pt.treespec_leaf()}, b=pt.tree_structure((1,)))))
    rec(
        "dict_eq",
        str(
            pt.treespec_dict(a=pt.treespec_leaf(), b=pt.treespec_leaf())
            == pt.tree_structure({"a": 0, "b": 1})
        ),
    )
    rec("tuple_eq", str(pt.treespec_tuple([pt.treespec_leaf()] * 2) == pt.tree_structure((0, 1))))
    rec.err("tuple_bad", lambda: pt.treespec_tuple([1]))
    rec.err("dict_bad", lambda: pt.treespec_dict(a=1))
    x = lib.arange(6, dtype=dt).reshape(2, 3)
    r = lib.max(x, 0)
    objs = {
        "point": Point(1, 2),
        "Point": Point,
        "tuple": (1, 2),
        "max": r,
        "max_cls": type(r),
        "sort": lib.sort(x),
        "slogdet": lib.linalg.slogdet(lib.eye(2, dtype=dt)),
        "gmtime": time.gmtime(0),
        "list": [1],
    }
    for name, o in objs.items():
        flags = (pt.is_namedtuple(o), pt.is_structseq(o))
        rec(name, str(flags))
    cls_preds = [
        pt.is_namedtuple_class(Point), pt.is_namedtuple_class(Point(1, 2)),
        pt.is_structseq_class(type(r)), pt.is_structseq_class(r),
    ]  # fmt: skip
    rec("cls_preds", str(cls_preds))
    inst_preds = [
        pt.is_namedtuple_instance(Point(1, 2)), pt.is_namedtuple_instance(Point),
        pt.is_structseq_instance(r), pt.is_structseq_instance(type(r)),
    ]  # fmt: skip
    rec("inst_preds", str(inst_preds))
    rec("aliases", str([hasattr(pt, n) for n in (
        "PyTree", "Context", "FlattenFn", "UnflattenFn", "DumpableContext",
        "ToDumpableContextFn", "FromDumpableContextFn",
    )]))  # fmt: skip
    rec("pytreespec", str(pt.PyTreeSpec is pt.TreeSpec))
    rec("_context", repr(pt.tree_structure({"k": 1})._context))


def p_collate_errors(lib, dt, rec):
    """default_collate's errors: tensors and arrays of other sizes, lists of other lengths,
    unsupported types (None, objects, sets, string arrays), dict samples with other keys."""
    dc = lib.utils.data.default_collate
    x2, x3 = lib.ones(2, dtype=dt), lib.zeros(3, dtype=dt)
    _err(rec, "tensor_sizes", lambda: dc([x2, x3]))
    _err(rec, "tensor_dims", lambda: dc([x2, x2[None]]))
    _err(rec, "np_sizes", lambda: dc([np.ones(2), np.zeros(3)]))
    _err(rec, "list_len", lambda: dc([[1, 2], [3]]))
    _err(rec, "tuple_len", lambda: dc([(1, 2), (3, 4, 5)]))
    _err(rec, "none", lambda: dc([None, None]))
    _err(rec, "object", lambda: dc([object(), object()]).__class__)
    _err(rec, "set", lambda: dc([{1}, {2}]))
    _err(rec, "np_str", lambda: dc([np.array(["a"]), np.array(["b"])]))
    _err(rec, "np_obj", lambda: dc([np.array([None]), np.array([None])]))
    _err(rec, "dict_missing", lambda: dc([{"a": 1, "b": 2}, {"a": 2}]))
    _err(rec, "dict_extra", lambda: dc([{"a": 1}, {"a": 2, "b": 3}]))
    _err(rec, "tensor_then_int", lambda: dc([x2, 1]))
    _err(rec, "int_then_tensor", lambda: dc([1, x2]))
    _err(rec, "float_then_str", lambda: dc([1.0, "a"]))
    _err(rec, "neg_stride", lambda: dc([np.ones(3)[::-1]] * 2))
    _err(rec, "empty", lambda: dc([]))
    _err(rec, "dtype_mix", lambda: dc([lib.ones(2, dtype=lib.int32), x2]))
    _err(rec, "nt_len", lambda: dc([Point(1, 2), (1,)]))
    _err(rec, "nested_sizes", lambda: dc([{"a": [x2]}, {"a": [x3]}]))


def p_convert_types(lib, dt, rec):
    """default_convert's output types: NumPy arrays and scalars to tensors of their dtype,
    string/object arrays kept, tuples to lists, namedtuples and mappings rebuilt, numbers and
    strings kept."""
    cv = lib.utils.data.default_convert
    npdt = _np_dtype(dt)
    cases = {
        "arr": np.ones(3, dtype=npdt),
        "arr_str": np.array(["a", "b"]),
        "arr_obj": np.array([None, 1], dtype=object),
        "np_scalar": npdt(2.5),
        "np_int": np.int32(4),
        "np_bool": np.bool_(True),
        "np_str": np.str_("abc"),
        "tuple": (np.ones(1, dtype=npdt), 2),
        "list": [np.int64(3), [np.float16(1.5), "s"]],
        "point": Point(np.ones(1, dtype=npdt), 2),
        "od": collections.OrderedDict(a=np.ones(1, dtype=npdt)),
        "dict": {"a": np.ones((2, 2), dtype=np.uint8), "b": b"bytes"},
        "num": 3,
        "float": 1.5,
        "str": "abc",
        "tensor": lib.ones(2, dtype=dt),
        "u16": np.ones(2, dtype=np.uint16),
        "f16": np.ones(2, dtype=np.float16),
    }
    for name, value in cases.items():
        out = _err(rec, name, lambda value=value: cv(value))
        if out is not None:
            for leaf in lib.utils._pytree.tree_leaves(out):
                if isinstance(leaf, lib.Tensor):
                    rec(name + ".leaf", leaf)
    _err(rec, "neg_stride", lambda: cv(np.ones(3)[::-1]))
    _err(rec, "readonly", lambda: cv(np.broadcast_to(np.ones(1, dtype=npdt), (2,))))


def p_loader_modes(lib, dt, rec):
    """DataLoader: batch_size=None with and without a collate_fn, a custom collate_fn with a
    batch size, drop_last, iterable datasets, and the argument errors (batch_sampler with
    batch_size, shuffle with a sampler, negative workers, prefetch without workers)."""
    data = lib.utils.data
    items = [
        {"x": np.full(2, i, dtype=_np_dtype(dt)), "y": i, "t": (str(i), float(i))} for i in range(5)
    ]
    rec("none", _show(list(data.DataLoader(items, batch_size=None))[:2]))
    rec(
        "none_fn",
        _show(list(data.DataLoader(items, batch_size=None, collate_fn=lambda s: sorted(s)))),
    )
    rec("bs2", _show(list(data.DataLoader(items, batch_size=2))))
    rec("bs2_drop", _show(list(data.DataLoader(items, batch_size=2, drop_last=True))))
    rec("fn_len", str(list(data.DataLoader(items, batch_size=3, collate_fn=len))))
    rec("lens", str([len(data.DataLoader(items, batch_size=b)) for b in (None, 1, 2, 5, 9)]))
    bs = data.BatchSampler(data.SequentialSampler(items), 2, False)
    rec("bsampler", _show(list(data.DataLoader(items, batch_sampler=bs))))

    class It(data.IterableDataset):
        def __iter__(self):
            return iter([{"a": i, "b": [float(i)]} for i in range(5)])

    rec("iter_bs2", _show(list(data.DataLoader(It(), batch_size=2))))
    rec("iter_none", _show(list(data.DataLoader(It(), batch_size=None))))
    _err(rec, "bsampler_bs", lambda: data.DataLoader(items, batch_size=2, batch_sampler=bs))
    _err(rec, "bsampler_drop", lambda: data.DataLoader(items, batch_sampler=bs, drop_last=True))
    _err(rec, "bsampler_shuffle", lambda: data.DataLoader(items, batch_sampler=bs, shuffle=True))
    _err(rec, "sampler_shuffle", lambda: data.DataLoader(items, sampler=[0, 1], shuffle=True))
    _err(rec, "none_drop", lambda: data.DataLoader(items, batch_size=None, drop_last=True))
    _err(rec, "bs0", lambda: data.DataLoader(items, batch_size=0))
    _err(rec, "workers", lambda: data.DataLoader(items, num_workers=-1))
    _err(rec, "prefetch", lambda: data.DataLoader(items, prefetch_factor=2))
    _err(rec, "persistent", lambda: data.DataLoader(items, persistent_workers=True))
    _err(rec, "timeout", lambda: data.DataLoader(items, timeout=-1))
    _err(rec, "iter_shuffle", lambda: data.DataLoader(It(), shuffle=True))
    _err(rec, "iter_sampler", lambda: data.DataLoader(It(), sampler=[0]))
    _err(rec, "iter_len", lambda: len(data.DataLoader(It())))


def p_fc_errors(lib, dt, rec):
    """functional_call's errors: a key in two dicts, a list holding no dict, no dict at all,
    strict's missing and unexpected keys, tied names given different tensors, a path through a
    missing or non-module attribute, a value that is no tensor, an empty name."""
    fc = lib.func.functional_call
    lib.manual_seed(16)

    class Tied(lib.nn.Module):
        def __init__(self):
            super().__init__()
            self.a = lib.nn.Linear(2, 2)
            self.b = lib.nn.Linear(2, 2)
            self.b.weight = self.a.weight
            self.register_buffer("s", lib.ones(1))
            self.k = 3

        def forward(self, x):
            return self.b(self.a(x)) * self.s

    m = Tied().to(dt)
    x = lib.ones(1, 2, dtype=dt)
    w = lib.zeros(2, 2, dtype=dt)
    _err(rec, "dup", lambda: fc(m, ({"a.weight": w}, {"a.weight": w}), (x,)))
    _err(rec, "not_dicts", lambda: fc(m, [{"a.weight": w}, 3], (x,)))
    _err(rec, "not_dict", lambda: fc(m, 3, (x,)))
    _err(rec, "strict_missing", lambda: fc(m, {"a.weight": w}, (x,), strict=True))
    _err(
        rec,
        "strict_extra",
        lambda: fc(m, {**dict(m.named_parameters()), "s": m.s, "zz": w}, (x,), strict=True),
    )
    _err(rec, "tied_two", lambda: fc(m, {"a.weight": w, "b.weight": w + 1}, (x,)))
    _err(
        rec,
        "untied_two",
        lambda: fc(m, {"a.weight": w, "b.weight": w + 1}, (x,), tie_weights=False),
    )
    _err(rec, "missing_sub", lambda: fc(m, {"c.weight": w}, (x,)))
    _err(rec, "non_module", lambda: fc(m, {"k.weight": w}, (x,)))
    _err(rec, "not_tensor", lambda: fc(m, {"a.weight": 2.0}, (x,)))
    _err(rec, "empty_name", lambda: fc(m, {"a.": w}, (x,)))
    _err(rec, "extra_ok", lambda: fc(m, {"zz": w}, (x,)))
    rec("restored", str([type(m.a.weight).__name__, m.b.weight is m.a.weight, hasattr(m, "zz")]))


def p_key_paths(lib, dt, rec):
    """Key paths: tree_flatten_with_path over dicts, lists, namedtuples and nested state,
    keystr, key_get, tree_map_with_path naming each leaf by its path; a registered type
    without flatten_with_keys_fn."""
    pt = lib.utils._pytree
    x = _randn(lib, dt, 190, 2)
    tree = {"enc": [x, {"w": x * 2}], "p": Point(1, (x, None)), 3: "s"}
    pairs, spec = pt.tree_flatten_with_path(tree)
    rec("keys", str([pt.keystr(k) for k, _ in pairs]))
    rec("raw", repr([k for k, _ in pairs]))
    rec("spec_eq", str(spec == pt.tree_structure(tree)))
    rec("get", str([pt.key_get(tree, k) is leaf for k, leaf in pairs]))
    named = pt.tree_map_with_path(lambda kp, v: pt.keystr(kp) if v is None else v, tree)
    rec("with_path", _show(named))
    sums = pt.tree_map_with_path(
        lambda kp, a, b: a + b if isinstance(a, lib.Tensor) else kp, [x, 1], [x, 2]
    )
    rec("with_path2", sums[0])
    rec("with_path2_kp", repr(sums[1]))
    rec("entry_types", str([type(k[-1]).__name__ for k, _ in pairs]))

    class NoKeys:
        def __init__(self, v):
            self.v = v

    with _Registered(pt) as reg:
        pt.register_pytree_node(reg.add(NoKeys), lambda n: ([n.v], None), lambda v, c: NoKeys(v[0]))
        rec("nokeys_leaves", repr(pt.tree_leaves([NoKeys(1)])))
        rec.err("nokeys_paths", lambda: pt.tree_flatten_with_path([NoKeys(1)]))


def p_constants_and_broadcast(lib, dt, rec):
    """register_constant (a frozen dataclass config held in the spec, no leaves) and
    _broadcast_to_and_flatten (in_dims-style prefixes broadcast over a tree)."""
    pt = lib.utils._pytree

    @dataclasses.dataclass(frozen=True)
    class Cfg:
        norm: str
        k: int = 2

    class NoEq:
        pass

    class NoHash:
        def __eq__(self, other):
            return True

    x = lib.ones(1, dtype=dt)
    with _Registered(pt) as reg:
        pt.register_constant(reg.add(Cfg))
        leaves, spec = pt.tree_flatten({"cfg": Cfg("l2"), "w": x})
        rec("n", len(leaves))
        rec("spec", repr(spec.child(0).context))
        rec("leaf_count", str((spec.num_leaves, spec.child(0).num_leaves, spec.child(0).is_leaf())))
        rec("unflat", repr(pt.tree_unflatten(leaves, spec)["cfg"]))
        rec("eq", str(spec == pt.tree_structure({"cfg": Cfg("l2"), "w": 0})))
        rec("ne", str(spec == pt.tree_structure({"cfg": Cfg("l1"), "w": 0})))
        rec("map", repr(pt.tree_map(lambda v: v * 2, {"cfg": Cfg("l2"), "w": x})["cfg"]))
        rec.err("noeq", lambda: pt.register_constant(NoEq))
        rec.err("nohash", lambda: pt.register_constant(NoHash))
    full = pt.tree_structure([1, (2, 3), {"a": 4}])
    for name, prefix in {
        "scalar": 0,
        "top": [0, 1, 2],
        "nested": [0, (1, None), {"a": 2}],
        "partial": [0, None, 1],
        "wrong_len": [0, 1],
        "wrong_type": (0, 1, 2),
        "dict_keys": [0, 1, {"b": 2}],
    }.items():
        rec("b2f." + name, repr(pt._broadcast_to_and_flatten(prefix, full)))
