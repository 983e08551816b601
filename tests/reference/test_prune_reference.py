"""nn.utils.prune against PyTorch: the deterministic methods (l1_unstructured, ln_structured,
global_unstructured, custom_from_mask, identity) and their iterative combinations give the same
masks, pruned weights, outputs, gradients, state_dict keys, parameter/buffer order, hooks and
errors; the random methods are compared by counts only (the generators differ)."""

from __future__ import annotations

import math
from collections import OrderedDict

import numpy as np
import pytest

torch = pytest.importorskip("torch")

import torch.nn.utils.prune as tprune  # noqa: E402

import minitorch  # noqa: E402
from minitorch.nn.utils import prune as mprune  # noqa: E402


def _np(t):
    return t.detach().cpu().numpy()


def _build(lib):
    nn = lib.nn
    return nn.Sequential(nn.Conv2d(2, 4, 3), nn.Flatten(), nn.Linear(16, 5))


def _pair():
    """The same small conv net in torch and minitorch (float64, torch's initial weights)."""
    torch.manual_seed(0)
    t = _build(torch).double()
    m = _build(minitorch).double()
    sd = OrderedDict((k, minitorch.tensor(_np(v).copy())) for k, v in t.state_dict().items())
    m.load_state_dict(sd)
    return t, m


def _hook_types(module):
    out = []
    for hook in module._forward_pre_hooks.values():
        inner = [type(h).__name__ for h in hook] if hasattr(hook, "_pruning_methods") else []
        out.append((type(hook).__name__, hook._tensor_name, inner))
    return out


def _same(t, m, what):
    """Same state_dict (keys, order, values), parameter/buffer names, pruned attributes, hooks,
    outputs and gradients."""
    tsd, msd = t.state_dict(), m.state_dict()
    assert list(msd) == list(tsd), what
    for k in tsd:
        np.testing.assert_allclose(_np(msd[k]), _np(tsd[k]), rtol=0, atol=0, err_msg=f"{what} {k}")
        assert str(msd[k].dtype) == str(tsd[k].dtype), f"{what} {k} dtype"
    assert [n for n, _ in m.named_parameters()] == [n for n, _ in t.named_parameters()], what
    assert [n for n, _ in m.named_buffers()] == [n for n, _ in t.named_buffers()], what
    for (name, tm), mm in zip(t.named_children(), m.children(), strict=True):
        assert _hook_types(mm) == _hook_types(tm), f"{what} hooks of {name}"
        for attr in ("weight", "bias"):
            if hasattr(tm, attr + "_orig"):
                np.testing.assert_allclose(
                    _np(getattr(mm, attr)), _np(getattr(tm, attr)), err_msg=f"{what} {name}.{attr}"
                )
    assert mprune.is_pruned(m) == tprune.is_pruned(t), what
    x = np.random.default_rng(1).standard_normal((3, 2, 4, 4))
    yt, ym = t(torch.tensor(x)), m(minitorch.tensor(x))
    np.testing.assert_allclose(_np(ym), _np(yt), rtol=1e-12, atol=1e-12, err_msg=f"{what} out")
    g = np.random.default_rng(2).standard_normal(tuple(yt.shape))
    yt.backward(torch.tensor(g))
    ym.backward(minitorch.tensor(g))
    for (k, tp), mp in zip(t.named_parameters(), m.parameters(), strict=True):
        np.testing.assert_allclose(
            _np(mp.grad), _np(tp.grad), rtol=1e-12, atol=1e-12, err_msg=f"{what} grad {k}"
        )


def _mask01(lib, shape, seed):
    return lib.tensor(np.random.default_rng(seed).integers(0, 2, shape).astype(np.float64))


def _scores(lib, shape, seed):
    return lib.tensor(
        np.random.default_rng(seed).permutation(math.prod(shape)).reshape(shape) * 1.0
    )


# Each case prunes net = Sequential(conv, flatten, linear) with library `lib` and its prune module.
CASES = {
    "l1_float_conv": lambda lib, P, net: P.l1_unstructured(net[0], "weight", amount=0.3),
    "l1_int_bias_then_weight": lambda lib, P, net: (
        P.l1_unstructured(net[2], "bias", amount=2),
        P.l1_unstructured(net[2], "weight", amount=17),
    ),
    "l1_amount_zero_and_one": lambda lib, P, net: (
        P.l1_unstructured(net[0], "weight", amount=0.0),
        P.l1_unstructured(net[2], "bias", amount=1.0),
    ),
    "l1_importance_scores": lambda lib, P, net: P.l1_unstructured(
        net[2], "weight", amount=0.45, importance_scores=_scores(lib, (5, 16), 3) - 40.0
    ),
    "ln_scores": lambda lib, P, net: P.ln_structured(
        net[0], "weight", amount=2, n=1, dim=1, importance_scores=_scores(lib, (4, 2, 3, 3), 4)
    ),
    "linear_fro_dim0": lambda lib, P, net: P.ln_structured(
        net[2], "weight", amount=0.4, n="fro", dim=0
    ),
    "identity": lambda lib, P, net: P.identity(net[0], "bias"),
    "custom_from_mask": lambda lib, P, net: (
        P.custom_from_mask(net[0], "weight", mask=_mask01(lib, (4, 2, 3, 3), 5)),
        P.custom_from_mask(net[2], "bias", mask=_mask01(lib, (5,), 6).bool()),
    ),
    "iterative_l1_ln_l1_custom": lambda lib, P, net: (
        P.l1_unstructured(net[0], "weight", amount=0.2),
        P.ln_structured(net[0], "weight", amount=1, n=2, dim=0),
        P.l1_unstructured(net[0], "weight", amount=5),
        P.custom_from_mask(net[0], "weight", mask=_mask01(lib, (4, 2, 3, 3), 7)),
    ),
    "iterative_ln_ln_other_dims": lambda lib, P, net: (
        P.ln_structured(net[0], "weight", amount=1, n=float("inf"), dim=0),
        P.ln_structured(net[0], "weight", amount=0.5, n=1, dim=-1),
        P.ln_structured(net[0], "weight", amount=0.34, n=2, dim=0),
    ),
    "iterative_custom_then_l1_identity": lambda lib, P, net: (
        P.custom_from_mask(net[2], "weight", mask=_mask01(lib, (5, 16), 8)),
        P.l1_unstructured(net[2], "weight", amount=0.5),
        P.identity(net[2], "weight"),
    ),
    "global": lambda lib, P, net: P.global_unstructured(
        [(net[0], "weight"), (net[2], "weight"), (net[2], "bias")],
        pruning_method=P.L1Unstructured,
        amount=0.35,
    ),
    "global_after_pruning_with_scores": lambda lib, P, net: (
        P.l1_unstructured(net[0], "weight", amount=10),
        P.ln_structured(net[2], "weight", amount=2, n=2, dim=0),
        P.global_unstructured(
            ((net[0], "weight"), (net[2], "weight"), (net[0], "bias")),
            P.L1Unstructured,
            importance_scores={(net[2], "weight"): _scores(lib, (5, 16), 9) - 30.0},
            amount=40,
        ),
    ),
    "remove_after_iterative": lambda lib, P, net: (
        P.l1_unstructured(net[0], "weight", amount=0.3),
        P.ln_structured(net[0], "weight", amount=1, n=2, dim=0),
        P.l1_unstructured(net[0], "bias", amount=1),
        P.l1_unstructured(net[2], "weight", amount=0.5),
        P.remove(net[0], "weight"),
        P.remove(net[2], "weight"),
    ),
}


@pytest.mark.parametrize("name", list(CASES))
def test_case_matches_torch(name):
    t, m = _pair()
    CASES[name](torch, tprune, t)
    CASES[name](minitorch, mprune, m)
    _same(t, m, name)


@pytest.mark.parametrize("n", [1, 2, 3, 0.5, float("inf"), -float("inf")])
@pytest.mark.parametrize("dim", [0, 1, 2, -1])
def test_ln_structured_matches_torch(n, dim):
    t, m = _pair()
    tprune.ln_structured(t[0], "weight", amount=0.5, n=n, dim=dim)
    mprune.ln_structured(m[0], "weight", amount=0.5, n=n, dim=dim)
    _same(t, m, f"ln n={n} dim={dim}")


def test_ties_off_the_boundary_match_torch():
    # Tied magnitudes (|-1| = |1|, equal row norms) that are pruned or kept as a whole group:
    # the mask does not depend on how topk orders ties.
    w = np.array([[1.0, -1.0, 2.0, 5.0], [-2.0, 0.5, 3.0, 0.25], [1.0, -1.0, 2.0, 5.0]])
    masks = []
    for lib, P in ((torch, tprune), (minitorch, mprune)):
        lin = lib.nn.Linear(4, 3).double()
        with lib.no_grad():
            lin.weight.copy_(lib.tensor(w))
        P.l1_unstructured(lin, "weight", amount=6)  # 0.25, 0.5 and the four 1s
        P.ln_structured(lin, "weight", amount=1, n=2, dim=0)  # row 1; tied rows 0, 2 stay
        masks.append(_np(lin.weight_mask))
    np.testing.assert_array_equal(masks[1], masks[0], err_msg="tie groups")
    np.testing.assert_array_equal(masks[1].sum(axis=1), [2, 0, 2])


def test_random_methods_counts_match_torch():
    counts = []
    for lib, P in ((torch, tprune), (minitorch, mprune)):
        lib.manual_seed(0)
        net = _build(lib)
        P.random_unstructured(net[0], "weight", amount=0.3)
        P.random_unstructured(net[0], "weight", amount=7)
        P.random_structured(net[2], "weight", amount=2, dim=0)
        P.random_structured(net[2], "weight", amount=0.5, dim=1)
        zeros_w0 = int((net[0].weight_mask == 0).sum())
        rows = _np(net[2].weight_mask).sum(axis=1)
        cols = _np(net[2].weight_mask).sum(axis=0)
        counts.append((zeros_w0, sorted(rows.tolist()), sorted(cols.tolist()), _hook_types(net[0])))
    assert counts[1] == counts[0]


def _errors(lib, P):
    """(exception type, message) of each failing call in lib."""
    out = []

    def attempt(fn):
        try:
            fn()
        except Exception as e:  # noqa: BLE001
            out.append((type(e).__name__, str(e)))
        else:
            out.append(None)

    lin = lib.nn.Linear(3, 2)
    attempt(lambda: P.L1Unstructured("a"))
    attempt(lambda: P.L1Unstructured(-1))
    attempt(lambda: P.RandomUnstructured(1.5))
    attempt(lambda: P.LnStructured(-0.5, n=2))
    attempt(lambda: P.l1_unstructured(lin, "weight", amount=7))
    attempt(lambda: P.ln_structured(lin, "bias", amount=1, n=2, dim=0))
    attempt(lambda: P.ln_structured(lin, "weight", amount=1, n=2, dim=2))
    attempt(lambda: P.random_structured(lin, "weight", amount=3, dim=0))
    attempt(lambda: P.remove(lin, "weight"))
    attempt(lambda: P.l1_unstructured(lin, "weight", 1, importance_scores=lib.ones(3)))
    attempt(lambda: P.custom_from_mask(lin, "weight", mask=lib.ones(3)))
    attempt(lambda: P.L1Unstructured(1).prune(lib.ones(2, 3), importance_scores=lib.ones(3)))
    attempt(lambda: P.global_unstructured(3, P.L1Unstructured, amount=1))
    attempt(lambda: P.global_unstructured([(lin, "weight")], P.L1Unstructured, [1], amount=1))
    attempt(lambda: P.global_unstructured([(lin, "weight")], P.LnStructured, amount=1, n=2, dim=0))
    attempt(lambda: P.BasePruningMethod())
    out.append(([n for n, _ in lin.named_parameters()], [n for n, _ in lin.named_buffers()]))
    # a failure on the second round keeps the first round's pruning
    P.l1_unstructured(lin, "weight", amount=2)
    attempt(lambda: P.l1_unstructured(lin, "weight", amount=5))
    out.append(([n for n, _ in lin.named_parameters()], _hook_types(lin)))
    return out


def test_errors_match_torch():
    got, expected = _errors(minitorch, mprune), _errors(torch, tprune)
    assert len(got) == len(expected)
    for i, (g, e) in enumerate(zip(got, expected, strict=True)):
        if e is not None and e[0] == "TypeError" and "PRUNING_TYPE" in e[1]:
            # the message names the class: torch.nn.utils.prune.X vs minitorch.nn.utils.prune.X
            e = (e[0], e[1].replace("torch.nn.utils.prune", "minitorch.nn.utils.prune"))
        assert g == e, f"error #{i}"


def test_container_messages_match_torch():
    def message(P):
        a = P.L1Unstructured(0.2)
        a._tensor_name = "w"
        b = P.L1Unstructured(0.2)
        b._tensor_name = "x"
        container = P.PruningContainer(a)
        out = [len(container), container[0] is a, list(container) == [a]]
        for bad in (3, b):
            with pytest.raises((TypeError, ValueError)) as info:
                container.add_pruning_method(bad)
            text = str(info.value).replace(repr(container), "<container>")
            out.append((info.type.__name__, text))
        return out

    assert message(mprune) == message(tprune)
