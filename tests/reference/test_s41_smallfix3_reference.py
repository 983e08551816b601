"""Small behaviours against torch: where's explicit out=None (the out= overload, tensors only),
the saved values activation nodes show (prelu's _saved_weight, elu/celu/selu, softplus, mish
and the double-backward nodes of the piecewise-linear ones), torch.embedding_bag's offset2bag,
bag_size and max_indices (padding left out of a bag's size, a zero per offset in 'sum' mode),
and fold/unfold size arguments given as tensors (iterated, as torch's _pair does).

Known and left (documented):
- as_tensor(x, torch.float64) takes dtype by position and tensor([1.], torch.float64) says
  "takes from 0 to 1 positional arguments" (torch: "takes 1 positional argument but 2 were
  given"): refusing them needs *extra on these factories (as_tensor(t): ~70 -> ~88 ns).
- Tensor methods of no parameters (x.exp(1), x.abs(out=None)) keep Python's "exp() takes 1
  positional argument but 2 were given" / "got an unexpected keyword argument" (torch:
  "TensorBase.exp() takes no arguments (1 given)" / "takes no keyword arguments"), and
  torch.sum/mean/max(x, foo=1) keep Python's unexpected-keyword text (torch lists the
  overloads): catching them needs *args/**kwargs on each call (~13-33 ns a call).
- optimizers take foreach=True as a for-loop: with a parameter listed twice (torch warns that
  this will be an error) torch's multi-tensor step updates it differently.
- embedding_bag with include_last_offset and offsets[-1] short of the input's length: torch's
  float32/half 'sum'/'mean' kernels stop the last bag's sum there while its float64, padded
  and 'max' paths (and minitorch) run it to the end, and torch's backward of that case reads
  uninitialised memory. Offsets that decrease: torch's errors and results depend on the mode.
- In-place elu_/selu_/celu_ nodes show no _saved_result, logsigmoid's no _saved_buffer, and the
  double-backward nodes of elu, softplus, logsigmoid, hardswish and tanh-gelu are composed
  (WhereBackward0, MulBackward0), not torch's single nodes."""

from __future__ import annotations

import numpy as np
import pytest

from tests.reference._programs import Rec, assert_calls_match, assert_records_match, run_calls

torch = pytest.importorskip("torch")


def test_where_explicit_out_none_picks_the_out_overload():
    cases = [
        "T.where(c, x, 0.0, out=None)",
        "T.where(c, 1.0, 0.0, out=None)",
        "T.where(c, 1.0, x, out=None)",
        "T.where(c, 'a', x, out=None)",
        "T.where(c, np.float64(0.0), x, out=None)",
        "T.where(c, out=None)",
        "T.where(c, x, out=None)",
        "T.where(c, x, x, 5, out=None)",
        "T.where(c, x, x, 5)",
        "T.where(5, x, x, out=None)",
        "T.where(c, 'a', x)",
        "T.where(condition=c, input=x, other=0.0, out=None)",
        "T.where(c, x, x, out=None)",
        "T.where(c, x, x.long(), out=None)",
        "T.where(c, x, T.tensor(0.0), out=None)",
        "T.where(c, x, 0.0)",
    ]

    def prog(lib, rec):
        x = lib.arange(6.0).reshape(2, 3)
        run_calls(cases, {"T": lib, "np": np, "x": x, "c": x > 2}, rec)
        rec("value", lib.where(x > 2, x, x * 10, out=None))
        rec("mixed", lib.where(x > 2, x, x.long(), out=None))

    assert_calls_match(prog, torch)


def run_program_records(prog, lib):
    """The records of prog(lib, rec), run directly (no warning filters: these programs warn
    nowhere)."""
    rec = Rec()
    prog(lib, rec)
    return rec.items


def _saved(rec, name, node, lib):
    """Records the _saved_* attributes node shows: their names, each tensor's value and shape,
    each other value's repr."""
    keys = sorted(a for a in dir(node) if a.startswith("_saved_"))
    rec(name + " keys", str([type(node).__name__, *keys]))
    for key in keys:
        v = getattr(node, key)
        if isinstance(v, lib.Tensor):
            rec(f"{name} {key}", v)
            rec(f"{name} {key} shape", str(tuple(v.shape)))
        else:
            rec(f"{name} {key}", repr(v))


_PRELU_SHAPES = [
    ((2, 3), (3,)),
    ((2, 3), (1,)),
    ((2, 3), ()),
    ((3,), (1,)),
    ((), (1,)),
    ((), ()),
    ((2, 3, 4), (1,)),
    ((2, 3, 4), (3,)),
    ((2, 3, 4), ()),
    ((4,), ()),
    ((2, 1), (1,)),
]


def _prelu_program(lib, rec):
    for xs, ws in _PRELU_SHAPES:
        n = int(np.prod(ws)) if ws else 1
        x = lib.tensor(np.linspace(-1.5, 1.25, int(np.prod(xs))).reshape(xs), requires_grad=True)
        w = lib.tensor(np.linspace(0.1, 0.3, n).reshape(ws), requires_grad=True)
        y = lib.nn.functional.prelu(x, w)
        name = f"prelu {xs} {ws}"
        rec(name, y)
        _saved(rec, name, y.grad_fn, lib)
        (gx,) = lib.autograd.grad(y, x, lib.ones_like(y) * 1.5, create_graph=True)
        _saved(rec, name + " double", gx.grad_fn, lib)
    m = lib.nn.PReLU(3)
    y = m(lib.tensor(np.linspace(-1.0, 1.0, 6).reshape(2, 3)).float())
    _saved(rec, "PReLU module", y.grad_fn, lib)


def test_prelu_saved_values():
    want = run_program_records(_prelu_program, torch)
    import minitorch

    got = run_program_records(_prelu_program, minitorch)
    assert_records_match(want, got, 0.0)


_ACTIVATIONS = {
    "elu": "F.elu(x)",
    "elu alpha": "F.elu(x, 2.0)",
    "elu int alpha": "F.elu(x, 2)",
    "selu": "F.selu(x)",
    "torch.selu": "T.selu(x)",
    "celu": "F.celu(x)",
    "celu int alpha": "F.celu(x, 2)",
    "torch.celu": "T.celu(x, 0.5)",
    "ELU": "T.nn.ELU()(x)",
    "CELU": "T.nn.CELU()(x)",
    "SELU": "T.nn.SELU()(x)",
    "mish": "F.mish(x)",
    "softplus": "F.softplus(x)",
    "softplus ints": "F.softplus(x, 2, 10)",
    "softplus floats": "F.softplus(x, 2.0, 10.0)",
    "Softplus": "T.nn.Softplus()(x)",
    "relu": "F.relu(x)",
    "leaky_relu": "F.leaky_relu(x, 0.2)",
    "hardtanh": "F.hardtanh(x, -0.5, 0.5)",
    "relu6": "F.relu6(x * 8)",
    "hardshrink": "F.hardshrink(x, 0.25)",
    "softshrink": "F.softshrink(x)",
    "threshold": "F.threshold(x, 0.1, 2.0)",
    "gelu": "F.gelu(x)",
}


def _activation_program(lib, rec):
    env = {"T": lib, "F": lib.nn.functional}
    for name, code in _ACTIVATIONS.items():
        x = lib.tensor(np.linspace(-1.0, 1.0, 12).reshape(4, 3), requires_grad=True) * 1
        env["x"] = x
        y = eval(code, env)  # noqa: S307
        _saved(rec, name, y.grad_fn, lib)
        (gx,) = lib.autograd.grad(y, x, lib.ones_like(y), create_graph=True)
        if name.startswith(("relu", "leaky", "hard", "soft", "threshold", "gelu")):
            if name not in ("softplus", "softplus ints", "softplus floats"):
                _saved(rec, name + " double", gx.grad_fn, lib)


def test_activation_saved_values():
    want = run_program_records(_activation_program, torch)
    import minitorch

    got = run_program_records(_activation_program, minitorch)
    assert_records_match(want, got, 0.0)


def test_inplace_elu_nodes_show_their_numbers():
    def prog(lib, rec):
        for code in ("F.elu(x, inplace=True)", "F.selu(x, True)", "F.celu(x, 2.0, True)"):
            x = lib.tensor(np.linspace(-1.0, 1.0, 6), requires_grad=True) * 1
            y = eval(code, {"F": lib.nn.functional, "x": x})  # noqa: S307
            node = y.grad_fn
            rec(code, str(type(node).__name__))
            for key in ("alpha", "scale", "input_scale"):
                rec(f"{code} {key}", repr(getattr(node, "_saved_" + key, "absent")))
            rec(f"{code} self", str(hasattr(node, "_saved_self")))

    assert_calls_match(prog, torch)


def _bag_program(lib, rec):
    weight = lib.arange(20.0).reshape(5, 4)
    indices = lib.tensor([1, 2, 3, 4, 2, 0])
    offsets = (
        (False, [0, 2, 4]),
        (True, [0, 2, 4, 6]),
        (True, [0, 6]),
        (False, [0, 6]),
        (True, [0, 0, 3, 6]),
    )
    for dt in ("float32", "float64", "float16"):
        w = weight.to(getattr(lib, dt))
        psw = lib.arange(6.0).to(w.dtype)
        for mode in (0, 1, 2):
            for pad in (None, 2, -1):
                for last, offs in offsets:
                    for p in (None, psw) if mode == 0 else (None,):
                        r = lib.embedding_bag(
                            w, indices, lib.tensor(offs), False, mode, False, p, last, pad
                        )
                        name = f"{dt} mode {mode} pad {pad} {last} {offs} psw {p is not None}"
                        for part, v in zip(("out", "offset2bag", "size", "max"), r, strict=True):
                            rec(f"{name} {part}", v)


def test_embedding_bag_auxiliary_outputs():
    want = run_program_records(_bag_program, torch)
    import minitorch

    got = run_program_records(_bag_program, minitorch)
    assert_records_match(want, got, 0.0)


def test_embedding_bag_padding_left_out_of_bag_sizes_module():
    def prog(lib, rec):
        w = lib.arange(20.0).reshape(5, 4)
        for mode in ("mean", "max", "sum"):
            bag = lib.nn.EmbeddingBag.from_pretrained(w, mode=mode, padding_idx=2)
            rec(mode, bag(lib.tensor([1, 2, 3, 2, 2, 0]), lib.tensor([0, 3, 5])))

    assert_calls_match(prog, torch)


def test_fold_unfold_tensor_sizes():
    cases = [
        "F.fold(c, output_size=T.tensor(4), kernel_size=2)",
        "F.fold(c, T.tensor(4), 2)",
        "F.fold(c, T.tensor(4.0), 2)",
        "F.fold(c, T.tensor([4]), 2)",
        "F.fold(c, T.tensor([4, 4]), 2)",
        "F.fold(c, T.tensor([4.0, 4.0]), 2)",
        "F.fold(c, T.tensor([4, 4, 4]), 2)",
        "F.fold(c, T.tensor([[4, 4]]), 2)",
        "F.fold(c, T.tensor([4, 4], dtype=T.int32), T.tensor([2, 2]))",
        "F.fold(c, 4, kernel_size=T.tensor(2))",
        "F.fold(c, 4, 2, stride=T.tensor(1))",
        "F.fold(c, output_size=4, kernel_size=(2,))",
        "F.fold(c, output_size=(4,), kernel_size=2)",
        "F.fold(c, (T.tensor(4), 4), 2)",
        "F.fold(c, np.int64(4), 2)",
        "F.unfold(x, kernel_size=(2,))",
        "F.unfold(x, T.tensor(2))",
        "F.unfold(x, T.tensor([2]))",
        "F.unfold(x, T.tensor([2, 2]))",
        "F.unfold(x, T.tensor([2.0, 2.0]))",
        "F.unfold(x, 2, T.tensor(1))",
        "F.unfold(x, 2, 1, T.tensor([0, 0]))",
        "F.unfold(x, 2, 1, 0, T.tensor(1))",
        "F.unfold(x, 2, 1, 0, np.array([1, 1]))",
        "F.unfold(x, 2, 1, 0, np.array(1))",
        "F.unfold(x, 2, 1, 0, range(1, 3))",
        "F.unfold(x, 2, 1, 0, 'ab')",
        "F.unfold(x, 2, 1, 0, None)",
        "T.nn.Fold(T.tensor(4), 2)(c)",
        "T.nn.Unfold((2,))(x)",
    ]

    def prog(lib, rec):
        env = {"T": lib, "F": lib.nn.functional, "np": np}
        env["c"] = lib.arange(36.0).reshape(1, 4, 9)
        env["x"] = lib.arange(16.0).reshape(1, 1, 4, 4)
        run_calls(cases, env, rec)
        rec("fold", lib.nn.functional.fold(env["c"], lib.tensor([4, 4]), lib.tensor([2, 2])))
        rec("unfold range", lib.nn.functional.unfold(env["x"], 2, 1, 0, range(1, 3)))

    assert_calls_match(prog, torch)
