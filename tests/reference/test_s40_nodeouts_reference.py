"""The autograd nodes of ops with several outputs, against torch: each case's grad_fn names,
output numbers and next_functions; the gradients a node's pre-hooks and hooks receive (which are
None); the input gradients with every differentiable output in the loss or only the first one;
retain_grad on each output; autograd.grad with allow_unused; the node's _saved_<name> names."""

from __future__ import annotations

import pytest

from tests.reference._programs import Rec, assert_records_match, run_program, seeded_gen

torch = pytest.importorskip("torch")

DT = "float64"


def _randn(lib, seed, *shape):
    return lib.randn(shape, generator=seeded_gen(lib, seed), dtype=getattr(lib, DT))


def _leaf(lib, seed, *shape):
    return _randn(lib, seed, *shape).requires_grad_()


def _spd(lib, seed, n):
    """A leaf: a symmetric positive definite n x n matrix."""
    a = _randn(lib, seed, n, n)
    return (a @ a.mT + n * lib.eye(n, dtype=a.dtype)).requires_grad_()


def _module(lib, make, seed):
    """A float64 module of `lib` whose parameters are seeded draws."""
    m = make(lib).double()
    with lib.no_grad():
        for i, p in enumerate(m.parameters()):
            p.copy_(_randn(lib, seed + i, *p.shape) * 0.3)
    return m


def _squares(outs):
    """The outputs squared: what a loss reads of factors whose signs are a convention
    (singular and eigen vectors, QR's Q and R)."""
    return tuple(o * o if o is not None else None for o in outs)


# name -> (lib -> (outputs, inputs), view of the outputs the loss reads or None)
CASES = {
    "max_dim": (lambda lib: _dim_op(lib, lambda x: x.max(1)), None),
    "min_dim_keepdim": (lambda lib: _dim_op(lib, lambda x: x.min(0, keepdim=True)), None),
    "max_dim_0d": (lambda lib: _dim_op(lib, lambda x: x.sum().max(0)), None),
    "sort": (lambda lib: _dim_op(lib, lambda x: x.sort(1, descending=True)), None),
    "topk": (lambda lib: _dim_op(lib, lambda x: x.topk(2, 1)), None),
    "kthvalue": (lambda lib: _dim_op(lib, lambda x: x.kthvalue(2, 0)), None),
    "median_dim": (lambda lib: _dim_op(lib, lambda x: x.median(1)), None),
    "nanmedian_dim": (lambda lib: _dim_op(lib, lambda x: x.nanmedian(-1)), None),
    "mode": (lambda lib: _dim_op(lib, lambda x: x.mode(1)), None),
    "cummax": (lambda lib: _dim_op(lib, lambda x: x.cummax(1)), None),
    "cummin": (lambda lib: _dim_op(lib, lambda x: x.cummin(0)), None),
    "aminmax": (lambda lib: _dim_op(lib, lambda x: lib.aminmax(x, dim=1)), None),
    "aminmax_all": (lambda lib: _dim_op(lib, lambda x: lib.aminmax(x)), None),
    "frexp": (lambda lib: _dim_op(lib, lambda x: lib.frexp(x)), None),
    "var_mean": (lambda lib: _dim_op(lib, lambda x: lib.var_mean(x, 1)), None),
    "std_mean": (lambda lib: _dim_op(lib, lambda x: lib.std_mean(x, 0, correction=0)), None),
    "split": (lambda lib: _dim_op(lib, lambda x: x.split(3, 1)), None),
    "split_sizes": (lambda lib: _dim_op(lib, lambda x: x.split([1, 3, 1], 1)), None),
    "chunk": (lambda lib: _dim_op(lib, lambda x: x.chunk(2, 0)), None),
    "unbind": (lambda lib: _dim_op(lib, lambda x: x.unbind(1)), None),
    "unique": (
        lambda lib: _dim_op(lib, lambda x: lib.unique(x, return_inverse=True, return_counts=True)),
        None,
    ),
    "unique_consecutive": (
        lambda lib: _dim_op(lib, lambda x: lib.unique_consecutive(x, return_counts=True)),
        None,
    ),
    "histogram": (lambda lib: _dim_op(lib, lambda x: lib.histogram(x.flatten(), 4)), None),
    "histogram_weight": (
        lambda lib: _dim_op(lib, lambda x: lib.histogram(x[0].detach(), 3, weight=x[1].exp())),
        None,
    ),
    "svd_full": (lambda lib: _mat_op(lib, lambda a: lib.linalg.svd(a)), _squares),
    "svd_old": (lambda lib: _mat_op(lib, lambda a: lib.svd(a)), _squares),
    "geqrf": (lambda lib: _mat_op(lib, lambda a: lib.geqrf(a)), None),
    "qr_r": (lambda lib: _mat_op(lib, lambda a: lib.linalg.qr(a, mode="r")), _squares),
    "triangular_solve": (
        lambda lib: _spd_op(lib, lambda a: lib.triangular_solve(a[:, :2], a.triu())),
        None,
    ),
    "solve_ex": (lambda lib: _spd_op(lib, lambda a: lib.linalg.solve_ex(a, a[:, :2])), None),
    "slogdet_old": (lambda lib: _spd_op(lib, lambda a: lib.slogdet(a)), None),
    "unique_dim": (
        lambda lib: _dim_op(lib, lambda x: lib.unique(x, dim=0, return_counts=True)),
        None,
    ),
    "svd": (lambda lib: _mat_op(lib, lambda a: lib.linalg.svd(a, full_matrices=False)), _squares),
    "qr": (lambda lib: _mat_op(lib, lambda a: lib.linalg.qr(a.mT)), _squares),
    "eigh": (lambda lib: _spd_op(lib, lambda a: lib.linalg.eigh(a)), _squares),
    "slogdet": (lambda lib: _spd_op(lib, lambda a: lib.linalg.slogdet(a)), None),
    "lu": (lambda lib: _spd_op(lib, lambda a: lib.linalg.lu(a)), None),
    "lu_factor": (lambda lib: _spd_op(lib, lambda a: lib.linalg.lu_factor(a)), None),
    "lu_factor_ex": (lambda lib: _spd_op(lib, lambda a: lib.linalg.lu_factor_ex(a)), None),
    "lu_unpack": (
        lambda lib: _spd_op(lib, lambda a: lib.lu_unpack(*lib.linalg.lu_factor(a))),
        None,
    ),
    "inv_ex": (lambda lib: _spd_op(lib, lambda a: lib.linalg.inv_ex(a)), None),
    "cholesky_ex": (lambda lib: _spd_op(lib, lambda a: lib.linalg.cholesky_ex(a)), None),
    "lstsq": (lambda lib: _lstsq(lib, None), None),
    "lstsq_gelsd": (lambda lib: _lstsq(lib, "gelsd"), None),
    "max_pool3d": (
        lambda lib: _pool(lib, lambda F, x: F.max_pool3d(x, 2, return_indices=True)),
        None,
    ),
    "adaptive_max_pool3d": (
        lambda lib: _pool(lib, lambda F, x: F.adaptive_max_pool3d(x, 1, return_indices=True)),
        None,
    ),
    "max_pool2d_plain": (lambda lib: _pool(lib, lambda F, x: F.max_pool2d(x, (2, 3), 1, 1)), None),
    "max_pool3d_ceil": (
        lambda lib: _pool(lib, lambda F, x: F.max_pool3d(x, 2, [2, 3, 3], ceil_mode=True)),
        None,
    ),
    "max_pool2d": (
        lambda lib: _pool(lib, lambda F, x: F.max_pool2d(x, 2, return_indices=True)),
        None,
    ),
    "max_pool1d": (
        lambda lib: _pool(lib, lambda F, x: F.max_pool1d(x[0], 2, 1, return_indices=True)),
        None,
    ),
    "adaptive_max_pool2d": (
        lambda lib: _pool(lib, lambda F, x: F.adaptive_max_pool2d(x, 2, return_indices=True)),
        None,
    ),
    "adaptive_max_pool3d_plain": (
        lambda lib: _pool(lib, lambda F, x: F.adaptive_max_pool3d(x, (2, 3, 4))),
        None,
    ),
    "adaptive_max_pool1d": (
        lambda lib: _pool(lib, lambda F, x: F.adaptive_max_pool1d(x[0], 3, return_indices=True)),
        None,
    ),
    "native_dropout_train": (
        lambda lib: _dim_op(lib, lambda x: lib.native_dropout(x, 0.0, True)),
        None,
    ),
    "native_dropout": (lambda lib: _dim_op(lib, lambda x: lib.native_dropout(x, 0.5, False)), None),
    "batch_norm": (lambda lib: _norm(lib, "batch"), None),
    "batch_norm_eval": (lambda lib: _norm(lib, "batch_eval"), None),
    "batch_norm_plain": (lambda lib: _norm(lib, "batch_plain"), None),
    "layer_norm": (lambda lib: _norm(lib, "layer"), None),
    "group_norm": (lambda lib: _norm(lib, "group"), None),
    "group_norm_half": (lambda lib: _norm(lib, "group_half"), None),
    "native_group_norm": (lambda lib: _norm(lib, "native_group"), None),
    "native_layer_norm": (lambda lib: _norm(lib, "native_layer"), None),
    "lstm": (lambda lib: _rnn(lib, "LSTM"), None),
    "gru": (lambda lib: _rnn(lib, "GRU"), None),
    "multi_head_attention": (lambda lib: _mha(lib), None),
}


def _dim_op(lib, fn):
    x = _leaf(lib, 1, 3, 5)
    return fn(x), [x]


def _mat_op(lib, fn):
    a = _leaf(lib, 2, 3, 4)
    return fn(a), [a]


def _spd_op(lib, fn):
    a = _spd(lib, 3, 3)
    return fn(a), [a]


def _lstsq(lib, driver):
    a, b = _leaf(lib, 4, 5, 3), _leaf(lib, 5, 5, 2)
    return lib.linalg.lstsq(a, b, driver=driver), [a, b]


def _pool(lib, fn):
    x = _leaf(lib, 6, 1, 2, 4, 6)
    return fn(lib.nn.functional, x), [x]


def _norm(lib, kind):
    F = lib.nn.functional
    x = _leaf(lib, 7, 4, 6, 3)
    w, b = _leaf(lib, 8, 6), _leaf(lib, 9, 6)
    if kind.startswith("batch"):
        mean, var = lib.zeros(6, dtype=x.dtype), lib.ones(6, dtype=x.dtype)
        if kind == "batch_plain":  # no running statistics, no affine
            return F.batch_norm(x, None, None, training=True), [x]
        return F.batch_norm(x, mean, var, w, b, training=kind == "batch"), [x, w, b]
    if kind == "group":
        return F.group_norm(x, 3, w, b), [x, w, b]
    if kind == "native_group":
        return lib.native_group_norm(x, w, b, 4, 6, 3, 3, 1e-5), [x, w, b]
    if kind == "group_half":  # (computed in float32 around the kernel: one node all the same)
        return F.group_norm(x.bfloat16(), 3, w.bfloat16(), b.bfloat16()), [x, w, b]
    w, b = _leaf(lib, 8, 3), _leaf(lib, 9, 3)
    if kind == "layer":
        return F.layer_norm(x, (3,), w, b), [x, w, b]
    return lib.native_layer_norm(x, (3,), w, b, 1e-5), [x, w, b]


def _rnn(lib, kind):
    m = _module(lib, lambda lib: getattr(lib.nn, kind)(3, 4, num_layers=2), 20)
    x = _leaf(lib, 10, 5, 2, 3)
    out, h = m(x)
    return (out, *(h if isinstance(h, tuple) else (h,))), [x, *m.parameters()]


def _mha(lib):
    F = lib.nn.functional
    q, k, v = _leaf(lib, 11, 4, 2, 6), _leaf(lib, 12, 5, 2, 6), _leaf(lib, 13, 5, 2, 6)
    w_in, b_in = _leaf(lib, 14, 18, 6), _leaf(lib, 15, 18)
    w_out, b_out = _leaf(lib, 16, 6, 6), _leaf(lib, 17, 6)
    outs = F.multi_head_attention_forward(
        q, k, v, 6, 2, w_in, b_in, None, None, False, 0.0, w_out, b_out, training=False
    )
    return outs, [q, k, v, w_in, b_in, w_out, b_out]


def _differentiable(outs):
    return [o for o in outs if o.requires_grad]


def _shapes(grads):
    return str(tuple(None if g is None else tuple(g.shape) for g in grads))


def _weighted(lib, outs, seed):
    """sum(w_i * out_i) with a seeded random w per output (a random upstream gradient)."""
    total = None
    for i, o in enumerate(outs):
        term = (o * _randn(lib, seed + i, *o.shape)).sum()
        total = term if total is None else total + term
    return total


def _structure(lib, rec, outs):
    """Each output's node name, output number and requires_grad; each distinct node's
    next_functions."""
    nodes = []
    for i, o in enumerate(outs):
        fn = o.grad_fn
        rec(f"out{i}", f"{None if fn is None else fn.name()} {o.output_nr} {o.requires_grad}")
        if fn is not None and all(fn is not n for n in nodes):
            nodes.append(fn)
    for j, fn in enumerate(nodes):
        nxt = [(None if n is None else n.name(), nr) for n, nr in fn.next_functions]
        rec(f"node{j}.next", str(nxt))
        rec.err(f"node{j}()", fn)  # a node takes one gradient per output
    return nodes


def _hooked(rec, nodes):
    """Pre-hooks and hooks on each node, recording what they receive when they run."""
    for j, fn in enumerate(nodes):
        fn.register_prehook(lambda g, j=j: rec(f"node{j}.prehook", _shapes(g)))
        fn.register_hook(
            lambda gi, go, j=j: rec(f"node{j}.hook", f"in {_shapes(gi)} out {_shapes(go)}")
        )


def _backward(lib, rec, inputs, loss):
    rec.err("backward", loss.backward)
    if rec.items[-1][1] != "no error":
        return
    for i, t in enumerate(inputs):
        rec(f"grad{i}", "None" if t.grad is None else t.grad)


def _program(name, mode):
    build, view = CASES[name]

    def prog(lib, rec):
        outs, inputs = build(lib)
        outs = [o for o in (outs if isinstance(outs, tuple) else (outs,)) if o is not None]
        used = _differentiable(view(outs) if view else outs)
        if mode == "saved":
            fn = next(o.grad_fn for o in outs if o.grad_fn is not None)
            names = sorted(n for n in dir(fn) if n.startswith("_saved_"))
            rec("saved", str(names))
            for n in names:
                value = getattr(fn, n)
                rec(n, value if value is not None else "None")
            return
        nodes = _structure(lib, rec, outs)
        if mode == "all":
            _hooked(rec, nodes)
            _backward(lib, rec, inputs, _weighted(lib, used, 30))
        elif mode == "first":
            _hooked(rec, nodes)
            _backward(lib, rec, inputs, _weighted(lib, used[:1], 30))
        elif mode == "retain":
            for o in outs:
                if o.requires_grad:
                    o.retain_grad()
            _backward(lib, rec, inputs, _weighted(lib, _differentiable(outs), 30))
            for i, o in enumerate(outs):
                rec(f"out{i}.grad", "None" if o.grad is None else o.grad)
        elif mode == "unused":
            spare = _leaf(lib, 40, 2)
            loss = _weighted(lib, used[:1], 30)
            grads = rec.err(
                "grad",
                lambda: lib.autograd.grad(loss, [*inputs, spare], allow_unused=True),
            )
            for i, g in enumerate(grads or ()):
                rec(f"grad{i}", "None" if g is None else g)
            rec.err(
                "grad.used_only", lambda: lib.autograd.grad(_weighted(lib, used[:1], 30), spare)
            )

    return prog


# torch's nodes answer these _saved_<name> attributes; minitorch's do not (yet).
_SAVED_XFAIL: set = set()


def _params(mode):
    marks = {}
    if mode == "saved":
        marks = {n: pytest.mark.xfail(strict=True, reason="_saved_<name>") for n in _SAVED_XFAIL}
    return [pytest.param(n, marks=marks.get(n, ())) for n in CASES]


# The nodes an LSTM cell's outputs come from: torch's CPU cell is several pointwise nodes,
# minitorch's one fused node (_LSTMGatesBackward0), so the stacked outputs' edges differ.
_SKIP = {"lstm": ("node0.next", "node1.next", "node2.next")}
_TOL = {"group_norm_half": 2e-2}  # bfloat16 results


def _check(name, mode):
    prog = _program(name, mode)
    want = run_program(prog, torch, rec=Rec())
    import minitorch

    got = run_program(prog, minitorch, rec=Rec())
    tol = _TOL.get(name, 1e-9)
    assert_records_match(want, got, tol, rename=True, skip=_SKIP.get(name, ()))


@pytest.mark.parametrize("name", _params("all"))
def test_all_outputs_used(name):
    _check(name, "all")


@pytest.mark.parametrize("name", _params("first"))
def test_first_output_used(name):
    _check(name, "first")


@pytest.mark.parametrize("name", _params("retain"))
def test_retain_grad_on_each_output(name):
    _check(name, "retain")


@pytest.mark.parametrize("name", _params("unused"))
def test_grad_allow_unused(name):
    _check(name, "unused")


@pytest.mark.parametrize("name", _params("saved"))
def test_saved_attribute_names(name):
    _check(name, "saved")
