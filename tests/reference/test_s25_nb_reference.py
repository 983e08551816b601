"""Session 25 (nb): what a notebook shows, against PyTorch. Each case runs the same code with
torch and with minitorch and compares the printed result (repr/str, 0x addresses masked, module
paths 'minitorch.' read as 'torch.'), or the exception type and message, and the warnings."""

from __future__ import annotations

import re
import warnings
from collections import OrderedDict

import pytest

import minitorch as mt
from tests.reference._programs import warning_text

torch = pytest.importorskip("torch")

_ADDR = re.compile(r"0x[0-9a-fA-F]+")


def _outcome(case, lib):
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        try:
            lib.manual_seed(0)
            out = ("ok", _ADDR.sub("0x", str(case(lib))).replace("minitorch.", "torch."))
        except Exception as e:  # noqa: BLE001 - the outcome is compared
            out = ("err", type(e).__name__, _ADDR.sub("0x", str(e)))
    seen = {warning_text(x) for x in w}
    return out + tuple(sorted(seen))


CASES = {}


def case(fn):
    CASES[fn.__name__] = fn
    return fn


def _mlp(L):
    return L.nn.Sequential(L.nn.Linear(3, 4), L.nn.ReLU(), L.nn.Linear(4, 2))


# --- reprs ---


@case
def optim_groups(L):
    m = _mlp(L)
    groups = [{"params": m[0].parameters()}, {"params": m[2].parameters(), "lr": 0.5}]
    return L.optim.SGD(groups, lr=0.1, momentum=0.9)


@case
def optim_flags_loaded(L):
    m = _mlp(L)
    o = L.optim.AdamW(m.parameters(), lr=1e-3, foreach=True, amsgrad=True)
    m(L.ones(2, 3)).sum().backward()
    o.step()
    o2 = L.optim.Adam(m.parameters(), lr=0.5, differentiable=True)
    o2.load_state_dict(o.state_dict())
    return f"{o}\n{o2}\n{o2.state_dict()}"


@case
def scheduler_state(L):
    o = L.optim.SGD(_mlp(L).parameters(), lr=0.1)
    s = L.optim.lr_scheduler.StepLR(o, 3)
    o.step()
    s.step()
    return s.state_dict(), s.get_last_lr(), repr(s).split(" object")[0]


@case
def distributions(L):
    d = L.distributions
    return [
        d.Normal(L.tensor([0.0, 1.0]), L.tensor([1.0, 2.0])),
        d.Categorical(probs=L.tensor([0.2, 0.8])),
        d.MultivariateNormal(L.zeros(2), L.eye(2)),
        d.Independent(d.Normal(L.zeros(3), L.ones(3)), 1),
        d.TransformedDistribution(d.Normal(0.0, 1.0), [d.transforms.ExpTransform()]),
        d.Normal(L.zeros(20), L.ones(20)),
    ]


@case
def small_objects(L):
    return [L.Size([2, 3]), L.float32, L.device("cpu"), L.finfo(L.float16), L.iinfo(L.int8)]


@case
def named_tuples(L):
    x = L.tensor([[1.5, -2.0, 3.0], [0.5, 4.0, -1.0]], dtype=L.float64, requires_grad=True)
    return [x.max(1), x.sort(), x.topk(2), L.aminmax(x.detach()), L.linalg.slogdet(x[:, :2])]


@case
def grad_fns(L):
    x = L.ones(2, requires_grad=True)
    y = (x * 2).sum()
    return [y.grad_fn, y.grad_fn.name(), y.grad_fn.next_functions, x.grad_fn]


@case
def ipython_grad_fn(L):
    pretty = pytest.importorskip("IPython.lib.pretty").pretty
    x = L.ones(2, requires_grad=True)
    node = (x * 2).grad_fn
    return pretty(node), pretty(node.next_functions)


@case
def module_repr(L):
    nn = L.nn

    class Block(nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = nn.Linear(4, 4, bias=False)

        def extra_repr(self):
            return "custom=1"

    m = nn.Module()
    m.seq = nn.Sequential(OrderedDict([("conv", nn.Conv2d(1, 2, 3)), ("act", nn.ReLU(True))]))
    m.md = nn.ModuleDict({"a": nn.Linear(2, 2), "b": nn.GELU("tanh")})
    m.ml = nn.ModuleList([Block(), Block(), nn.Tanh()])
    m.pl = nn.ParameterList([nn.Parameter(L.ones(2)), nn.Parameter(L.zeros(3))])
    m.pd = nn.ParameterDict({"w": nn.Parameter(L.ones(2, 2))})
    m.lin = nn.utils.parametrizations.orthogonal(nn.Linear(3, 3))
    m.norm = nn.InstanceNorm2d(3)
    return f"{m}\n{[str(type(c)) for c in m.modules()]}"


@case
def state_dict_print(L):
    m = L.nn.Sequential(L.nn.Linear(2, 2), L.nn.BatchNorm1d(2))
    return f"{m.state_dict()}\n{list(m.named_parameters())}"


@case
def fstrings(L):
    loss = L.tensor(0.123456)
    return [f"{loss:.4f}", f"{loss}", format(loss, ".2e"), f"{L.tensor(3):5}"]


@case
def format_multi_element(L):
    return format(L.tensor([1.0, 2.0]), ".2f")


# --- errors and warnings of common mistakes ---

_MISTAKES = {
    "linear_shape": lambda L: L.nn.Linear(512, 10)(L.ones(64, 784)),
    "conv_channels": lambda L: L.nn.Conv2d(3, 8, 3)(L.ones(1, 1, 28, 28)),
    "conv_uint8": lambda L: L.nn.Conv2d(3, 2, 3)(L.ones(1, 3, 8, 8, dtype=L.uint8)),
    "linear_long": lambda L: L.nn.Linear(3, 2)(L.ones(4, 3, dtype=L.long)),
    "ce_float_target": lambda L: L.nn.functional.cross_entropy(L.randn(4, 3), L.rand(4)),
    "ce_batch": lambda L: L.nn.functional.cross_entropy(L.randn(4, 3), L.tensor([0, 1, 2])),
    "ce_oob": lambda L: L.nn.functional.cross_entropy(L.randn(2, 3), L.tensor([0, 3])),
    "bce_logits_bool": lambda L: L.nn.BCEWithLogitsLoss()(L.rand(2), L.tensor([True, False])),
    "layer_norm_long": lambda L: L.nn.functional.layer_norm(L.tensor([[1, 2]]), (2,)),
    "embedding_oob": lambda L: L.nn.Embedding(10, 3)(L.tensor([1, 10])),
    "view_noncontig": lambda L: L.ones(3, 4).t().view(12),
    "item_multi": lambda L: L.ones(2).item(),
    "empty_params": lambda L: L.optim.SGD([], lr=0.1),
    "module_args": lambda L: L.nn.Linear(2, 2)(L.ones(2), L.ones(2)),
    "cat_shapes": lambda L: L.cat([L.ones(2, 3), L.ones(2, 4)]),
    "bool_sub": lambda L: L.tensor([True]) - L.tensor([False]),
    "index_float": lambda L: L.ones(3)[L.tensor([0.0, 1.0])],
    "collate_unequal": lambda L: next(iter(L.utils.data.DataLoader([L.ones(3), L.ones(4)], 2))),
    "load_shapes": lambda L: L.nn.Linear(2, 2).load_state_dict(
        {"weight": L.ones(3, 2), "bias": L.ones(2), "extra": L.ones(1)}
    ),
}


def _backward_twice(L):
    x = L.ones(2, requires_grad=True)
    y = (x * x).sum()
    y.backward()
    y.backward()


def _inplace_leaf(L):
    x = L.ones(2, requires_grad=True)
    x += 1


def _non_leaf_grad(L):
    x = L.ones(2, requires_grad=True)
    return (x * 2).grad


def _geqrf_grad(L):
    a = L.tensor([[2.0, 1.0], [1.0, 3.0]], dtype=L.float64, requires_grad=True)
    r = L.geqrf(a)
    print_form = repr(r)
    r.a.sum().backward()
    return print_form


_MISTAKES.update(
    backward_twice=_backward_twice,
    inplace_leaf=_inplace_leaf,
    non_leaf_grad=_non_leaf_grad,
    geqrf_grad=_geqrf_grad,
    numpy_requires_grad=lambda L: L.ones(2, requires_grad=True).numpy(),
    backward_non_scalar=lambda L: (L.ones(2, requires_grad=True) * 2).backward(),
)
CASES.update(_MISTAKES)


@pytest.mark.parametrize("name", sorted(CASES))
def test_notebook_output_matches_torch(name):
    fn = CASES[name]
    assert _outcome(fn, mt) == _outcome(fn, torch)
