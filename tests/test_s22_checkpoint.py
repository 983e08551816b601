"""Session 22 (h14): torch.utils.checkpoint / _pytree / weak / hooks behaviours found by
differential fuzzing against torch 2.13 (expected values and messages obtained from torch)."""

import collections
import contextlib
import warnings

import pytest

import minitorch as torch
from minitorch.utils import _pytree as pytree
from minitorch.utils import checkpoint as ckpt
from minitorch.utils.hooks import unserializable_hook, warn_if_has_hooks
from minitorch.utils.weak import WeakIdKeyDictionary

# --- checkpoint ---


def _x():
    return torch.tensor([0.5, -1.0, 2.0], dtype=torch.float64, requires_grad=True)


def test_reentrant_refuses_kwargs_before_context_fn():
    # torch checks the unexpected keyword arguments first
    def ctx():
        return contextlib.nullcontext(), contextlib.nullcontext()

    with pytest.raises(ValueError, match=r"^Unexpected keyword arguments: scale$"):
        ckpt.checkpoint(
            lambda a, scale: a * scale, _x(), use_reentrant=True, context_fn=ctx, scale=2
        )


def _ctx():
    return contextlib.nullcontext(), contextlib.nullcontext()


def test_debug_refuses_a_custom_context_fn():
    msg = r"^debug=True is incompatible with non-default context_fn$"
    with pytest.raises(ValueError, match=msg):
        ckpt.checkpoint(torch.sin, _x(), use_reentrant=False, debug=True, context_fn=_ctx)
    # set_checkpoint_debug_enabled(True) turns debug on for the block ...
    with pytest.raises(ValueError, match=msg), ckpt.set_checkpoint_debug_enabled(True):
        ckpt.checkpoint(torch.sin, _x(), use_reentrant=False, context_fn=_ctx)
    # ... and False turns it off whatever the argument says
    with ckpt.set_checkpoint_debug_enabled(False):
        out = ckpt.checkpoint(torch.sin, _x(), use_reentrant=False, debug=True, context_fn=_ctx)
    assert out.requires_grad


def _growing(calls, more):
    # saves one tensor more (more=True) or one fewer (False) when it runs again
    def f(x):
        calls.append("start")
        y = x.sin()
        if len(calls) > 1 and more:
            y = y.sin()
        if len(calls) > 1 and not more:
            return y
        calls.append("after")
        return y.exp()

    return f


@pytest.mark.parametrize("check", ["default", "none"])
def test_recompute_saving_more_raises_at_once_without_early_stop(check):
    calls = []

    def f(x):
        calls.append("start")
        y = x.sin()
        if len(calls) > 1:
            y = y.sin()  # one save more when recomputed
        y = y.exp()
        calls.append("after")
        return y

    x = _x()
    with ckpt.set_checkpoint_early_stop(False):
        out = ckpt.checkpoint(f, x, use_reentrant=False, determinism_check=check)
    with pytest.raises(
        ckpt.CheckpointError,
        match=r"^torch.utils.checkpoint: trying to save more tensors during recomputation than "
        r"during the original forward pass\.",
    ):
        out.sum().backward()
    # stopped at the extra save (exp's): the rest of the function did not run again
    assert calls == ["start", "after", "start"]


@pytest.mark.parametrize("early", [True, False])
def test_recompute_saving_fewer_raises_whatever_determinism_check(early):
    # determinism_check="none" only skips the metadata comparison; the count is always checked
    # (it used to give an IndexError)
    x = _x()
    with ckpt.set_checkpoint_early_stop(early):
        out = ckpt.checkpoint(_growing([], False), x, use_reentrant=False, determinism_check="none")
    with pytest.raises(
        ckpt.CheckpointError,
        match=r"^torch.utils.checkpoint: A different number of tensors was saved during the "
        r"original forward and recomputation.\nNumber of tensors saved during forward: 2\n"
        r"Number of tensors saved during recomputation: 1.",
    ):
        out.sum().backward()


def test_determinism_check_none_does_not_hide_an_extra_save():
    # it used to use the first two recomputed tensors silently (a wrong gradient)
    x = _x()
    with ckpt.set_checkpoint_early_stop(False):
        out = ckpt.checkpoint(_growing([], True), x, use_reentrant=False, determinism_check="none")
    with pytest.raises(ckpt.CheckpointError, match="trying to save more tensors"):
        out.sum().backward()
    assert x.grad is None


def test_no_grad_checkpoint_runs_outside_the_forward_context():
    log = []

    @contextlib.contextmanager
    def cm(tag):
        log.append(tag)
        yield

    x = _x()
    with torch.no_grad():
        out = ckpt.checkpoint(
            torch.sin, x, use_reentrant=False, context_fn=lambda: (cm("fwd"), cm("re"))
        )
    assert log == [] and not out.requires_grad
    ckpt.checkpoint(torch.sin, x, use_reentrant=False, context_fn=lambda: (cm("fwd"), cm("re")))
    assert log == ["fwd"]


# --- _pytree ---


def test_flatten_up_to_checks_arity_before_keys():
    spec = pytree.tree_structure({"a": 1, "b": 2})
    with pytest.raises(ValueError, match=r"^Node arity mismatch; expected 2, but got 1\.$"):
        spec.flatten_up_to(collections.OrderedDict(a=1))
    with pytest.raises(ValueError, match=r"^Node arity mismatch; expected 2, but got 3\.$"):
        spec.flatten_up_to({"a": 1, "b": 2, "c": 3})
    with pytest.raises(
        ValueError,
        match=r"^Node keys mismatch; missing key\(s\): \{'b'\}; extra key\(s\): "
        r"\{'c'\}\.$",
    ):
        spec.flatten_up_to({"a": 1, "c": 2})
    assert spec.flatten_up_to(collections.OrderedDict(b=[5], a=(6,))) == [(6,), [5]]


def test_flatten_up_to_custom_nodes_must_match_exactly():
    spec = pytree.tree_structure(torch.Size([2, 3]))
    with pytest.raises(ValueError, match=r"^Type mismatch; expected <class '.*Size'>, but got "):
        spec.flatten_up_to((2, 3))
    with pytest.raises(ValueError, match=r"^Node arity mismatch; expected 2, but got 1\.$"):
        spec.flatten_up_to(torch.Size([2]))


def test_children_specs_is_deprecated():
    spec = pytree.tree_structure([1, (2, 3)])
    with pytest.warns(FutureWarning, match=r"^`treespec.children_specs` is deprecated\. Use "):
        kids = spec.children_specs
    assert len(kids) == 2
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert spec.children() == kids and spec.child(1) == kids[1]


# --- weak / hooks ---


def test_weak_id_key_dictionary_union_keyrefs_and_identity_equality():
    a, b = torch.ones(2), torch.ones(2)
    d = WeakIdKeyDictionary({a: 1})
    e = d | {b: 2}
    assert type(e) is WeakIdKeyDictionary and len(e) == 2 and len(d) == 1
    f = {b: 3} | d
    assert type(f) is WeakIdKeyDictionary and f[a] == 1 and f[b] == 3
    d |= {b: 4}
    assert d[b] == 4 and len(d.keyrefs()) == 2 and d.keyrefs()[0]() is a
    assert d == {a: 1, b: 4}
    assert d != {b: 1, a: 4}
    assert (d == 3) is False


def test_warn_if_has_hooks():
    x = torch.ones(2, requires_grad=True)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        warn_if_has_hooks(x)  # no hooks: nothing
        x.register_hook(unserializable_hook(lambda g: g))
        warn_if_has_hooks(x)  # marked: nothing

    def hook(g):
        return g

    x.register_hook(hook)
    with pytest.warns(UserWarning) as rec:
        warn_if_has_hooks(x)
    assert len(rec) == 1
    assert str(rec[0].message) == (
        f"backward hook {hook!r} on tensor will not be serialized.  If this is expected, you can "
        "decorate the function with @torch.utils.hooks.unserializable_hook to suppress this "
        "warning"
    )


def test_checkpoint_sequential_needs_len_and_indexing():
    x = torch.tensor([[0.5, -1.0, 2.0]], dtype=torch.float64, requires_grad=True)
    mods = [torch.nn.Tanh(), torch.nn.Sigmoid(), torch.nn.Softplus()]
    with pytest.raises(TypeError, match=r"^object of type 'list_iterator' has no len\(\)$"):
        ckpt.checkpoint_sequential(iter(mods), 2, x, use_reentrant=False)
    out = ckpt.checkpoint_sequential(torch.nn.ModuleList(mods), 2, x, use_reentrant=False)
    out.sum().backward()
    # torch's values
    assert out.tolist()[0] == pytest.approx([1.046236, 0.864909, 1.119237], abs=1e-6)
    assert x.grad.tolist()[0] == pytest.approx([0.120976, 0.052755, 0.009509], abs=1e-6)


def test_forward_context_swallowing_an_exception_raises():
    @contextlib.contextmanager
    def swallow():
        try:
            yield
        except ValueError:
            pass

    def boom(a):
        raise ValueError("boom")

    with pytest.raises(
        RuntimeError,
        match=r"^torch.utils.checkpoint: the forward context provided by context_fn suppressed an "
        r"exception raised during the checkpointed forward\. This is not supported because "
        r"checkpoint cannot return a value for a failed forward\.$",
    ):
        ckpt.checkpoint(
            boom,
            _x(),
            use_reentrant=False,
            context_fn=lambda: (swallow(), contextlib.nullcontext()),
        )


def test_autograd_grad_inside_the_checkpointed_function_without_early_stop():
    # the inner grad recomputes before the forward has saved everything; without early stop the
    # recomputation saves more than the forward had so far, which torch allows there
    x = _x()

    def f(a):
        b = a.sin()
        g = torch.autograd.grad(b.sum(), a, create_graph=True)[0]
        return g * b

    with ckpt.set_checkpoint_early_stop(False):
        out = ckpt.checkpoint(f, x, use_reentrant=False)
    out.sum().backward()
    # torch's values: d/dx (cos x sin x) = cos 2x
    assert x.grad.tolist() == pytest.approx([0.540302, -0.416147, -0.653644], abs=1e-6)
