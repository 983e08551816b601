"""Session 36 (helper ensemble): torch-free regression tests of the library fixes the
model-ensembling and functional-API programs of tests/reference/test_s36_ensemble_reference.py
found: jacfwd (and hessian, jacfwd over jacrev) refuses random ops under its default
randomness='error', as torch's vmap over jvp does, leaving the generators where they were;
vmap's in_dims and out_dims dicts match the inputs' and outputs' dicts by key in any order (any
two of dict, OrderedDict, defaultdict), their dims listed in the in_dims dict's key order and
paired with the leaves in the inputs' order, as torch's pytree does; F.batch_norm checks the
devices of its weight, bias and running statistics (a meta base copy run without its buffers:
torch's "Tensor on device meta is not on the expected device cpu!") in torch's order. torch's
messages are written here as literals."""

from __future__ import annotations

import collections

import numpy as np
import pytest

import minitorch as mt

RANDOM_ERROR = (
    "vmap: called random operation while in randomness error mode. Please either use the "
    "'same' or 'different' randomness flags on vmap or perform the randomness operation out of "
    "vmap"
)


def _dropout_net():
    mt.manual_seed(11)
    nn = mt.nn
    return nn.Sequential(nn.Linear(3, 4), nn.Tanh(), nn.Dropout(0.3), nn.Linear(4, 1)).double()


@pytest.mark.parametrize("transform", ["jacfwd", "hessian"])
def test_jacfwd_refuses_random_ops_and_keeps_the_generator(transform):
    net = _dropout_net()
    x = mt.randn(3, generator=mt.Generator().manual_seed(1), dtype=mt.float64)
    mt.manual_seed(3)
    want = mt.rand(4)
    mt.manual_seed(3)
    with pytest.raises(RuntimeError) as info:
        getattr(mt.func, transform)(lambda a: net(a).squeeze(-1))(x)
    assert str(info.value) == RANDOM_ERROR
    np.testing.assert_array_equal(mt.rand(4).numpy(), want.numpy(), err_msg="state moved")
    # in eval mode there is nothing random: the Hessian is computed
    net.eval()
    assert getattr(mt.func, transform)(lambda a: net(a).squeeze(-1))(x).shape == (
        (3,) if transform == "jacfwd" else (3, 3)
    )


def test_jacfwd_refuses_an_explicit_generator_before_it_draws():
    g = mt.Generator().manual_seed(2)
    want = mt.rand(2, generator=mt.Generator().manual_seed(2))
    x = mt.ones(3)
    with pytest.raises(RuntimeError) as info:
        mt.func.jacfwd(lambda a: a * mt.rand(3, generator=g))(x)
    assert str(info.value) == RANDOM_ERROR
    np.testing.assert_array_equal(mt.rand(2, generator=g).numpy(), want.numpy())


def test_jacfwd_same_randomness_is_allowed_and_jacrev_never_refuses():
    x = mt.ones(3, dtype=mt.float64)
    mt.manual_seed(5)
    j = mt.func.jacfwd(lambda a: mt.nn.functional.dropout(a, 0.5), randomness="same")(x)
    mt.manual_seed(5)
    mask = mt.nn.functional.dropout(mt.ones(3, dtype=mt.float64), 0.5)
    np.testing.assert_array_equal(j.numpy(), np.diag(mask.numpy()))
    mt.func.jacrev(lambda a: mt.nn.functional.dropout(a, 0.5))(x)  # f runs once, unmapped
    with pytest.raises(RuntimeError, match="randomness error mode"):
        mt.vmap(mt.func.jacfwd(lambda a: a * mt.rand(3), randomness="same"))(mt.ones(2, 3))


def test_in_dims_dict_in_another_key_order_pairs_as_torch():
    x = mt.arange(12.0).reshape(4, 3)
    y = mt.arange(5.0)
    # the dims come in the in_dims dict's order (a: 0, b: None) and pair with the inputs'
    # leaves in theirs (b, a): b is mapped, a is not
    out = mt.vmap(lambda d: d["b"].sum() + d["a"].sum(), in_dims=({"a": 0, "b": None},))(
        {"b": x, "a": y}
    )
    np.testing.assert_allclose(out.numpy(), x.sum(1).numpy() + 10.0)
    with pytest.raises(ValueError) as info:
        mt.vmap(lambda d: d["a"] - d["b"], in_dims=({"a": 1, "b": 0},))(
            collections.OrderedDict(b=x, a=x)
        )
    assert str(info.value) == (
        "vmap: Expected all tensors to have the same size in the mapped dimension, got sizes "
        "[3, 4] for the mapped dimension"
    )
    out = mt.vmap(lambda d: d["a"] - d["b"], in_dims=(collections.OrderedDict(b=0, a=0),))(
        {"a": x, "b": x.flip(0)}
    )
    np.testing.assert_allclose(out.numpy(), (x - x.flip(0)).numpy())
    dd = collections.defaultdict(int, b=x, a=x)
    out = mt.vmap(lambda d: d["a"] * d["b"], in_dims=({"a": 0, "b": 0},))(dd)
    np.testing.assert_allclose(out.numpy(), (x * x).numpy())


def test_out_dims_dict_in_another_key_order_pairs_as_torch():
    x = mt.arange(12.0).reshape(4, 3)
    res = mt.vmap(lambda r: {"p": r * 2, "q": r.sum()}, out_dims={"q": 1, "p": 0})(x)
    # q's dim (1) goes to p (the first output leaf), p's (0) to q
    assert res["p"].shape == (3, 4)
    np.testing.assert_allclose(res["p"].numpy(), (x * 2).t().numpy())
    np.testing.assert_allclose(res["q"].numpy(), x.sum(1).numpy())


def test_dict_key_sets_must_still_match():
    x = mt.ones(4, 3)
    with pytest.raises(ValueError) as info:
        mt.vmap(lambda d: d["a"], in_dims=({"a": 0, "c": 0},))({"b": x, "a": x})
    assert str(info.value) == (
        "vmap(<lambda>, in_dims=({'a': 0, 'c': 0},), ...)(<inputs>): in_dims is not compatible "
        "with the structure of `inputs`. in_dims has structure TreeSpec(tuple, None, "
        "[TreeSpec(dict, ['a', 'c'], [*,\n    *])]) but inputs has structure TreeSpec(tuple, "
        "None, [TreeSpec(dict, ['b', 'a'], [*,\n    *])])."
    )
    with pytest.raises(ValueError, match="out_dims is not compatible"):
        mt.vmap(lambda r: {"p": r, "q": r}, out_dims={"p": 0})(x)
    with pytest.raises(ValueError, match="in_dims is not compatible"):
        mt.vmap(lambda d: d[0], in_dims=([0, 0],))((x, x))  # a list is no tuple


META = "Tensor on device meta is not on the expected device cpu!"


@pytest.mark.parametrize(
    "case, want",
    [
        ("eval_mean", META),
        ("eval_var", META),
        ("train_both", META),
        ("train_one_none", META),
        ("half", META),
        ("double_mixed", META),
        ("int_input", META),
        ("meta_input", "Tensor on device cpu is not on the expected device meta!"),
        ("eval_none", "running_var must be defined in evaluation mode"),
        ("size", "running_mean should contain 3 elements not 5"),
    ],
)
def test_batch_norm_checks_the_running_statistics_device(case, want):
    F = mt.nn.functional
    x = mt.randn(4, 3, generator=mt.Generator().manual_seed(0))
    m = mt.zeros(3, device="meta")
    v = mt.ones(3)
    calls = {
        "eval_mean": lambda: F.batch_norm(x, m, v),
        "eval_var": lambda: F.batch_norm(x, v, m),
        "train_both": lambda: F.batch_norm(x, m, m, training=True),
        "train_one_none": lambda: F.batch_norm(x, m, None, training=True),
        "half": lambda: F.batch_norm(x.half(), m, v),
        "double_mixed": lambda: F.batch_norm(x.double(), m, v.double()),
        "int_input": lambda: F.batch_norm(x.long(), m, v),
        "meta_input": lambda: F.batch_norm(x.to("meta"), v, v, training=True),
        "eval_none": lambda: F.batch_norm(x, m, None),
        "size": lambda: F.batch_norm(x, mt.zeros(5, device="meta"), v),
    }
    with pytest.raises(RuntimeError) as info:
        calls[case]()
    assert str(info.value) == want


def test_meta_base_copy_with_only_the_parameters():
    """The ensembling recipe's meta base run without the BatchNorm buffers."""
    import copy

    mt.manual_seed(0)
    nn = mt.nn
    net = nn.Sequential(nn.Linear(4, 3), nn.BatchNorm1d(3)).eval()
    base = copy.deepcopy(net).to("meta")
    params = dict(net.named_parameters())
    x = mt.randn(5, 4)
    with pytest.raises(RuntimeError) as info:
        mt.func.functional_call(base, params, (x,))
    assert str(info.value) == META
    out = mt.func.functional_call(base, (params, dict(net.named_buffers())), (x,))
    np.testing.assert_allclose(out.detach().numpy(), net(x).detach().numpy(), rtol=1e-6)
