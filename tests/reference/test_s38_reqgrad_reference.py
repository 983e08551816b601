"""Session 38 (helper reqgrad): the bool, dtype and device keywords of the tensor factories
given values of the wrong type, as configuration-driven code passes them
(requires_grad=cfg.get("train") is None, requires_grad=1, requires_grad="yes", a NumPy bool
from an array, a 0-d bool tensor; pin_memory=1/0/None; dtype="float32", dtype=1, dtype=float,
dtype=a tensor; device="cpu:0", torch.device, 1.5), swept over tensor, asarray, as_tensor,
zeros/ones/empty/full and their *_like forms, the new_* methods, range, empty_strided,
scalar_tensor and frombuffer, under torch and minitorch, and compared as exception type and
whole message ("zeros(): argument 'requires_grad' must be bool, not int"; None accepted where
torch's schema has an optional); and small programs that build parameters from such flags and
train them a step (float64 to 1e-10 of each record's scale; texts exactly).

Found and fixed:
- requires_grad= of any non-bool (1, 0, 1.0, "yes", np.bool_, a tensor) was read by its truth
  value; now torch's "<factory>(): argument 'requires_grad' must be bool, not int" TypeError
  (numpy.bool, Tensor named as torch does), in the shared _require_grad; None is accepted
  where torch accepts it and refused by tensor, new_tensor, range and frombuffer.
- pin_memory= of a non-bool: 1 / "yes" raised the no-pinned-allocator RuntimeError, 0 and
  np.bool_ were accepted; now torch's "argument 'pin_memory' must be bool" TypeError (None
  accepted), in the shared _check_pin_memory. new_zeros/new_ones/new_empty/new_full ignored
  pin_memory entirely (torch: pin_memory=True is the no-allocator RuntimeError on a CPU-only
  machine) and empty_strided did too.
- dtype errors of new_zeros/new_ones/new_empty/new_full/new_tensor, asarray and empty_strided
  named the factory minitorch calls inside (zeros, as_tensor, empty); a tensor given as dtype
  was named "torch.Tensor" (torch: "Tensor", "Parameter").
- device=1.5 (no str, int or device) raised torch.device()'s invalid-combination TypeError;
  now the factory's "zeros(): argument 'device' must be torch.device, not float".
- new_empty_strided ignored pin_memory and named empty_strided in its dtype error.
- zeros/ones/empty/full(out=..., requires_grad=1) was accepted (torch: the bool TypeError).

Known and left (documented):
- The factories with several overloads in torch (rand, randn, randint, randperm, normal,
  arange, linspace, logspace, eye, rand_like, randn_like, randint_like, the window functions)
  answer a wrong-typed keyword with "received an invalid combination of arguments" listing
  the overloads; minitorch names the one argument (or accepts layout). Not recorded.
- layout= is not checked by any factory: layout=1 or "strided" is accepted (torch: "argument
  'layout' must be torch.layout"); range(layout=None) too. Not recorded.
- new_tensor accepts pin_memory= and layout= (torch: "got an unexpected keyword argument").
- torch checks argument types before anything else; minitorch checks requires_grad after
  building the tensor, so zeros(-1, requires_grad=1) gives the size error first. Not recorded.
- dtype=np.float32 (a NumPy dtype) is accepted (documented difference: torch's TypeError).
"""

# ruff: noqa: E501  (the cases are the calls as written)

from __future__ import annotations

import numpy as np
import pytest

from tests.reference._one_thread import one_torch_thread  # noqa: F401 - an autouse fixture
from tests.reference._programs import assert_calls_match, assert_program_matches, run_calls

torch = pytest.importorskip("torch")

# the factories whose torch signature has one overload: "argument 'x' must be T, not U"
FACTORIES = {
    "tensor": "lib.tensor([1., 2.]{kw})",
    "asarray": "lib.asarray([1., 2.]{kw})",
    "asarray_t": "lib.asarray(t{kw})",
    "zeros": "lib.zeros(2, 3{kw})",
    "ones": "lib.ones((2, 3){kw})",
    "empty": "lib.empty(2, 3{kw}).shape",
    "full": "lib.full((2, 3), 1.5{kw})",
    "zeros_like": "lib.zeros_like(t{kw})",
    "ones_like": "lib.ones_like(t{kw})",
    "empty_like": "lib.empty_like(t{kw}).shape",
    "full_like": "lib.full_like(t, 2.0{kw})",
    "new_zeros": "t.new_zeros((2, 3){kw})",
    "new_ones": "t.new_ones(2, 3{kw})",
    "new_empty": "t.new_empty((2, 3){kw}).shape",
    "new_full": "t.new_full((2, 3), 1.0{kw})",
    "new_tensor": "t.new_tensor([1., 2.]{kw})",
    "range": "lib.range(0.0, 4.0{kw})",
    "empty_strided": "lib.empty_strided((2, 3), (3, 1){kw}).shape",
    "scalar_tensor": "lib.scalar_tensor(1.5{kw})",
    "frombuffer": "lib.frombuffer(bytearray(8), dtype=lib.float32{kw})",
}
FLAG_VALUES = [
    "True",
    "False",
    "1",
    "0",
    "None",
    "'yes'",
    "np.bool_(True)",
    "np.bool_(False)",
    "1.0",
    "t0",
    "p0",
]
NO_PIN = {"asarray", "asarray_t", "new_tensor", "range", "frombuffer"}  # (no such keyword)
NO_DTYPE = {"frombuffer"}
DTYPE_VALUES = ["'float32'", "float", "int", "bool", "1", "t", "lib.float64", "None"]
DEVICE_VALUES = ["'cpu'", "'cpu:0'", "lib.device('cpu')", "None", "1.5", "[0]", "t"]


def _env(lib):
    return {
        "lib": lib,
        "np": np,
        "t": lib.ones(2, 3),
        "t0": lib.tensor(True),
        "p0": lib.nn.Parameter(lib.ones(())),
    }


def _cases(kw, values, skip=()):
    return [
        tpl.format(kw=f", {kw}={v}")
        for name, tpl in FACTORIES.items()
        if name not in skip
        for v in values
    ]


@pytest.mark.parametrize(
    "kw, values, skip",
    [
        ("requires_grad", FLAG_VALUES, ()),
        ("pin_memory", FLAG_VALUES[1:], NO_PIN),  # (True: the no-pinned-allocator error)
        ("dtype", DTYPE_VALUES, NO_DTYPE),
        ("device", DEVICE_VALUES, {"frombuffer", "asarray_t"}),
    ],
    ids=["requires_grad", "pin_memory", "dtype", "device"],
)
def test_factory_keyword_types_match_torch(kw, values, skip):
    cases = _cases(kw, values, skip)
    assert_calls_match(lambda lib, rec: run_calls(cases, _env(lib), rec), torch)


MIXED = [
    # the int dtype's "only floating point" error vs the type error: the type first
    "lib.zeros(2, dtype=lib.long, requires_grad=1)",
    "lib.zeros(2, dtype=lib.long, requires_grad=True)",
    "lib.tensor([1, 2], requires_grad=np.bool_(True))",
    "lib.asarray(t, requires_grad=None).requires_grad",
    "lib.asarray(t.requires_grad_(), requires_grad=1)",
    "lib.asarray(np.ones(2), requires_grad='yes')",
    "lib.full((2,), 1, requires_grad=None).dtype",
    "lib.ones_like(t, dtype=lib.float64, requires_grad=np.bool_(False))",
    "lib.scalar_tensor(2, requires_grad=None).requires_grad",
    "lib.empty_strided((2,), (1,), requires_grad=True).requires_grad",
    "lib.empty_strided((2,), (1,), dtype=lib.long, requires_grad=True)",
    "t.new_zeros((2,), requires_grad=None).requires_grad",
    "t.new_full((2,), 3, dtype='float64')",
    "t.new_tensor([1], dtype=lib.nn.Parameter(lib.ones(1)))",
    "t.new_empty_strided((2,), (1,), pin_memory=1)",
    "t.new_empty_strided((2,), (1,), requires_grad=np.bool_(True))",
    "t.new_empty_strided((2,), (1,), dtype='float32')",
    "t.new_empty_strided((2,), (1,), requires_grad=None).requires_grad",
    "lib.zeros(2, out=lib.empty(2), requires_grad=1)",
]


def test_mixed_calls_match_torch():
    assert_calls_match(lambda lib, rec: run_calls(MIXED, _env(lib), rec), torch)


def p_config_flags(lib, dt, rec):
    """Parameters built from a config whose flags came from YAML/NumPy: bad ones are refused,
    good ones give leaves that train one SGD step."""
    cfg = {"train_w": True, "train_b": np.bool_(True), "freeze": None, "pin": 0}
    g = lib.Generator().manual_seed(3)
    w = lib.randn(4, 3, generator=g, dtype=dt).requires_grad_(cfg["train_w"])
    rec.err("b.np_bool", lambda: lib.zeros(3, dtype=dt, requires_grad=cfg["train_b"]))
    b = lib.zeros(3, dtype=dt, requires_grad=bool(cfg["train_b"]))
    rec.err("scale.none", lambda: lib.ones(3, dtype=dt, requires_grad=cfg["freeze"]))
    scale = lib.ones(3, dtype=dt, requires_grad=cfg["freeze"])
    rec("scale.rg", str(scale.requires_grad))
    rec.err("buf.pin0", lambda: lib.empty(3, dtype=dt, pin_memory=cfg["pin"]))
    rec.err("tensor.none", lambda: lib.tensor([1.0], dtype=dt, requires_grad=cfg["freeze"]))
    x = lib.randn(5, 4, generator=g, dtype=dt)
    loss = ((x @ w + b) * scale).pow(2).mean()
    loss.backward()
    with lib.no_grad():
        for p in (w, b):
            p -= 0.1 * p.grad
    rec("loss", loss)
    rec("w", w)
    rec("b", b)
    rec("leaf.flags", str([w.is_leaf, b.is_leaf, w.requires_grad, b.requires_grad]))


def p_new_methods_flags(lib, dt, rec):
    """A module's buffers made by x.new_* with flags passed through from its caller."""
    x = lib.randn(3, 2, generator=lib.Generator().manual_seed(5), dtype=dt)
    for flag in (True, False, None, 1, "no"):
        rec.err(f"new_zeros.{flag!r}", lambda flag=flag: x.new_zeros(2, 2, requires_grad=flag))
        rec.err(f"new_full.{flag!r}", lambda flag=flag: x.new_full((2,), 0.5, requires_grad=flag))
        rec.err(f"zeros_like.{flag!r}", lambda flag=flag: lib.zeros_like(x, requires_grad=flag))
    h = x.new_zeros(2, requires_grad=True)
    out = (x.sum(0) + h).exp().sum()
    out.backward()
    rec("h.grad", h.grad)


PROGRAMS = [p_config_flags, p_new_methods_flags]


@pytest.mark.parametrize("prog", PROGRAMS, ids=lambda p: p.__name__)
def test_program_matches_torch(prog):
    assert_program_matches(prog, torch, "float64")
