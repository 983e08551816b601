"""Session 46 (helper attrs): the grad_fn._saved_* attributes of the view, join and index nodes,
run under torch and minitorch and compared name by name: the names dir() lists, each value and
its Python type (ints, tuples of ints, bools, None, and which tensor of the call a saved tensor
is).

- SelectBackward0 / SliceBackward0 / UnsqueezeBackward0 of every basic key form: an int, a
  negative int (torch reads its int64 back unsigned: 2**64 - 1), slices with None, negative,
  out-of-range or stepped bounds (an open stop ends at 2**63 - 1), a slice of a later dim, keys
  that torch applies as several view ops (x[1, 2:4], x[None, 1], x[1:3, 2], x[..., 1]), whose
  last node minitorch's one node stands for; narrow (SliceBackward0: a negative dim as given, a
  negative start wrapped), select, tensor_split / hsplit (one narrow each); split / chunk /
  unbind's SplitBackward0 / SplitWithSizesBackward0 / UnbindBackward0.
- SqueezeBackward0 / 1 / 2 (_saved_dim as given, even of a dim that is not of size 1, and
  _saved_self_sym_sizes), CatBackward0 / StackBackward0 with a negative dim.
- IndexPutBackward0 (index_put, index_put_, x[idx] = v, x[:, idx] = v, x[mask] = v),
  IndexCopyBackward0, IndexFillBackward0/1, PutBackward0 (_saved_source only where the source
  requires grad), TakeBackward0, MaskedSelectBackward0, MaskedScatterBackward0.

- A view regenerated after its base changed in place (AsStridedBackward0) showed its view op's
  attributes (SelectBackward0's, ViewBackward0's _saved_self_sym_sizes, ...): now none.

Found and fixed (all had no _saved_* attribute at all, or the wrapped dim where torch shows the
dim as given): every item above.
"""

from __future__ import annotations

import numpy as np
import pytest

import minitorch

torch = pytest.importorskip("torch")


def _summary(v, named):
    """A value as (type, value), a saved tensor as which of the call's tensors it is."""
    if isinstance(v, (torch.Tensor, minitorch.Tensor)):
        for label, t in named.items():
            if v is t:
                return ("Tensor", label)
        return ("Tensor", tuple(v.shape), str(v.dtype).split(".")[-1], v.tolist())
    if isinstance(v, tuple):
        return ("tuple", tuple(_summary(e, named) for e in v))
    return (type(v).__name__, v)


def _saved(out, named) -> tuple:
    """(node name, sorted (attribute, summary) pairs) of out's grad_fn."""
    fn = out.grad_fn
    names = sorted(a for a in dir(fn) if a.startswith("_saved_"))
    return fn.name(), [(a, _summary(getattr(fn, a), named)) for a in names]


def _inputs(lib):
    g = np.random.default_rng(46)
    x = lib.tensor(g.standard_normal((4, 5, 6)), dtype=lib.float64, requires_grad=True)
    y = lib.tensor(g.standard_normal((4, 5)), dtype=lib.float64, requires_grad=True)
    c = lib.tensor(g.standard_normal((4, 1, 5, 1)), dtype=lib.float64, requires_grad=True)
    idx = lib.tensor([0, 2])
    mask = lib.tensor(g.standard_normal((4, 5)) > 0)
    src = lib.tensor(g.standard_normal(2), dtype=lib.float64)
    return {"x": x, "y": y, "c": c, "idx": idx, "mask": mask, "src": src}


def _setitem(t, key, value):
    out = t * 1
    out[key] = value
    return out


# (name, call on the named tensors and the library)
CASES = [
    ("int", lambda n, lib: n["x"][1]),
    ("negative int", lambda n, lib: n["x"][-1]),
    ("slice", lambda n, lib: n["x"][1:3]),
    ("slice of dim 1", lambda n, lib: n["x"][:, 1:3]),
    ("open stop", lambda n, lib: n["x"][2:]),
    ("negative start", lambda n, lib: n["x"][-3:]),
    ("negative stop", lambda n, lib: n["x"][:-1]),
    ("start before 0", lambda n, lib: n["x"][-10:2]),
    ("stop past the end", lambda n, lib: n["x"][:10]),
    ("empty slice", lambda n, lib: n["x"][3:1]),
    ("step", lambda n, lib: n["x"][::2]),
    ("start and step", lambda n, lib: n["x"][:, 1:-1:2]),
    ("whole", lambda n, lib: n["x"][:]),
    ("later dim", lambda n, lib: n["x"][:, :, 2:]),
    ("int then slice", lambda n, lib: n["x"][1, 2:4]),
    ("slice then int", lambda n, lib: n["x"][1:3, 2]),
    ("two ints", lambda n, lib: n["x"][1, -2]),
    ("ellipsis int", lambda n, lib: n["x"][..., 1]),
    ("None then int", lambda n, lib: n["x"][None, 1]),
    ("None", lambda n, lib: n["x"][:, None]),
    ("ellipsis None", lambda n, lib: n["x"][..., None]),
    ("slices and int", lambda n, lib: n["c"][2:, 1:, 0]),
    ("numpy int", lambda n, lib: n["x"][np.int64(-1)]),
    ("numpy slice bound", lambda n, lib: n["x"][np.int64(1) :]),
    ("narrow", lambda n, lib: n["x"].narrow(1, 1, 2)),
    ("narrow negative dim", lambda n, lib: n["x"].narrow(-1, 1, 2)),
    ("narrow negative start", lambda n, lib: n["x"].narrow(0, -2, 2)),
    ("select", lambda n, lib: n["x"].select(1, 2)),
    ("select negative index", lambda n, lib: n["x"].select(0, -2)),
    ("tensor_split", lambda n, lib: n["x"].tensor_split(2, 1)[1]),
    ("hsplit", lambda n, lib: n["x"].hsplit(5)[0]),
    ("unbind", lambda n, lib: n["x"].unbind(-1)[0]),
    ("chunk", lambda n, lib: n["x"].chunk(3, -1)[0]),
    ("split", lambda n, lib: n["x"].split(2, 1)[0]),
    ("split sizes", lambda n, lib: n["x"].split([2, 3], 1)[0]),
    ("squeeze", lambda n, lib: n["c"].squeeze()),
    ("squeeze dim", lambda n, lib: n["c"].squeeze(1)),
    ("squeeze negative dim", lambda n, lib: n["c"].squeeze(-1)),
    ("squeeze dim of size 4", lambda n, lib: n["c"].squeeze(0)),
    ("squeeze dims", lambda n, lib: n["c"].squeeze((1, -1))),
    ("cat", lambda n, lib: lib.cat([n["y"], n["y"]], 1)),
    ("cat negative dim", lambda n, lib: lib.cat([n["y"], n["y"]], -1)),
    ("stack negative dim", lambda n, lib: lib.stack([n["y"], n["y"]], -2)),
    ("index_put", lambda n, lib: n["y"].index_put((n["idx"],), n["y"][0, :1])),
    ("index_put accumulate", lambda n, lib: n["y"].index_put((n["idx"],) * 2, n["y"][0, :1], True)),
    ("setitem index", lambda n, lib: _setitem(n["y"], n["idx"], n["y"][:2])),
    ("setitem later index", lambda n, lib: _setitem(n["y"], (..., n["idx"]), n["y"][:, :2])),
    ("setitem mask", lambda n, lib: _setitem(n["y"], n["mask"], 0.5)),
    ("index_put_", lambda n, lib: (n["y"] * 1).index_put_((n["idx"],), n["y"][0])),
    ("index_copy", lambda n, lib: n["y"].index_copy(1, n["idx"], n["y"][:, :2])),
    ("index_copy constant", lambda n, lib: n["y"].index_copy(-1, n["idx"], n["y"].data[:, :2])),
    ("index_fill", lambda n, lib: n["y"].index_fill(-1, n["idx"], 0.5)),
    ("index_fill tensor", lambda n, lib: n["y"].index_fill(1, n["idx"], n["y"][0, 0].detach())),
    ("put", lambda n, lib: n["y"].put(n["idx"], n["src"])),
    ("put accumulate", lambda n, lib: n["y"].data.put(n["idx"], n["src"].requires_grad_(), True)),
    ("take", lambda n, lib: n["y"].take(n["idx"])),
    ("masked_select", lambda n, lib: n["y"].masked_select(n["mask"])),
    ("masked_select broadcast", lambda n, lib: n["y"].masked_select(n["mask"][0])),
    ("masked_scatter", lambda n, lib: n["y"].masked_scatter(n["mask"], n["y"] * 2)),
]  # fmt: skip


@pytest.mark.parametrize("case", [c for c, _ in CASES])
def test_saved_attributes_match_torch(case):
    call = dict(CASES)[case]
    want_n = _inputs(torch)
    got_n = _inputs(minitorch)
    want = _saved(call(want_n, torch), want_n)
    got = _saved(call(got_n, minitorch), got_n)
    assert got == want


def test_saved_values_outlive_backward_as_in_torch():
    """A node's saved numbers still read after backward; a saved index tensor raises torch's
    freed-graph error then (the attribute names its type and message)."""

    def run(lib):
        n = _inputs(lib)
        out = {}
        s = n["x"][:, 1:-1]
        p = n["y"].index_put((n["idx"],), n["y"][0, :1])
        (s.sum() + p.sum()).backward()
        out["slice"] = (s.grad_fn._saved_start, s.grad_fn._saved_end, s.grad_fn._saved_dim)
        out["accumulate"] = p.grad_fn._saved_accumulate
        try:
            p.grad_fn._saved_indices  # noqa: B018
            out["indices"] = "no error"
        except RuntimeError as e:
            out["indices"] = str(e).split(".")[0]
        return out

    assert run(minitorch) == run(torch)


def test_regenerated_views_show_no_attribute_torch_lacks():
    """A view whose base changed in place is regenerated as torch's AsStridedBackward0: its node
    shows none of its view op's attributes (torch's: size, stride and storage offset)."""

    def run(lib):
        base = lib.zeros(4, 5, dtype=lib.float64)
        views = [base[-1], base[:, -2:], base.narrow(-1, 1, 2), base[:, :1].squeeze(-1)]
        views += [base.view(20), base.unsqueeze(0), base.transpose(0, 1)]
        base.mul_(lib.ones(4, 5, dtype=lib.float64, requires_grad=True))
        return [
            (v.grad_fn.name(), {a for a in dir(v.grad_fn) if a.startswith("_saved_")})
            for v in views
        ]

    want, got = run(torch), run(minitorch)
    assert [n for n, _ in got] == [n for n, _ in want]
    for (_, w), (_, g) in zip(want, got, strict=True):
        assert g <= w
