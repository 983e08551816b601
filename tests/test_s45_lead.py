"""Session 45, lead: what dir() lists of a graph node (NOTE [ What dir() shows of a node ])."""

from __future__ import annotations

import minitorch as mt


def _public(obj):
    return sorted(n for n in dir(obj) if not n.startswith("__"))


_API = ["metadata", "name", "next_functions", "register_hook", "register_prehook", "requires_grad"]


def test_a_builtin_node_lists_torchs_api_and_its_saved_values():
    x = mt.randn(3, requires_grad=True)
    node = (x * x).grad_fn
    want = ["_raw_saved_other", "_raw_saved_self", "_saved_other", "_saved_self", "_sequence_nr"]
    assert _public(node) == sorted(want + _API)
    # the engine's attributes stay reachable, only unlisted
    assert node._next is not None and node.xp is not None and hasattr(node, "needs_input_grad")
    assert "_saved" not in dir(node) and "save_for_backward" not in dir(node)


def test_a_nodes_forward_attributes_are_not_listed():
    x = mt.randn(2, 3, requires_grad=True)
    node = mt.nn.functional.softmax(x, 1).grad_fn
    assert node.dim == 1  # ctx.dim, set by the forward
    assert _public(node) == sorted(
        ["_raw_saved_result", "_saved_dim", "_saved_result", "_sequence_nr", *_API]
    )


def test_an_accumulator_lists_its_variable():
    x = mt.randn(3, requires_grad=True)
    acc = x.sum().grad_fn.next_functions[0][0]
    assert type(acc).__name__ == "AccumulateGrad"
    assert _public(acc) == sorted(["_sequence_nr", "variable", *_API])
    assert acc.variable is x


def test_a_custom_nodes_list_keeps_the_ctx_api_and_the_users_attributes():
    class Double(mt.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.scale = 2
            ctx._private = "kept"
            ctx.save_for_backward(x)
            return x * 2

        @staticmethod
        def backward(ctx, g):
            return g * ctx.scale

    x = mt.randn(3, requires_grad=True)
    node = Double.apply(x).grad_fn
    names = dir(node)
    for n in (
        "scale",
        "_private",
        "save_for_backward",
        "saved_tensors",
        "needs_input_grad",
        "mark_dirty",
        "_forward_cls",
        "_sequence_nr",
        "apply",
        *_API,
    ):
        assert n in names, n
    for n in (
        "_next",
        "_in_meta",
        "_saved",
        "_to_save",
        "_prio",
        "_data_bw",
        "xp",
        "_hooked",
        "_stored_tensors",
        "_out_device",
    ):
        assert n not in names, n


# --- the registry of views taken with grad mode on (GradViews, NOTE [ Views and grad mode ]) ---


def test_views_taken_sample_by_sample_leave_a_short_registry():
    x = mt.randn(500, 3)
    for _ in range(3):  # three epochs of per-sample indexing
        for i in range(500):
            x[i]
    reg = x.__dict__["_grad_views"]
    assert len(reg) < 2 * reg._MIN  # the dead references were dropped as it grew
    assert reg.live() == []


def test_live_views_survive_pruning_and_follow_their_base():
    x = mt.zeros(400, 2)
    kept = [x[i] for i in range(0, 400, 4)]  # 100 live views among 300 dead ones
    for i in range(300):
        x[i]
    reg = x.__dict__["_grad_views"]
    assert len(reg.live()) == 100
    assert reg.limit >= 2 * 100  # the limit follows the live count
    w = mt.ones(400, 2, requires_grad=True)
    x.add_(w)  # the base gains history: every registered view requires grad
    assert all(v.requires_grad for v in kept)
    assert kept[7].grad_fn is not None
    kept[7].sum().backward()
    want = mt.zeros(400, 2)
    want[28] = 1.0
    assert mt.equal(w.grad, want)


def test_requires_grad_on_the_base_reaches_the_registered_views():
    x = mt.zeros(3, 2)
    v = x[1]
    x.requires_grad_()
    assert v.requires_grad and v.grad_fn is None  # an inherited flag, as torch's
    x.requires_grad_(False)
    assert not v.requires_grad


def test_tensor_dataset_samples():
    x, y = mt.randn(5, 3), mt.arange(5)
    ds = mt.utils.data.TensorDataset(x, y)
    s = ds[2]
    assert type(s) is tuple and len(s) == 2
    assert mt.equal(s[0], x[2]) and s[1].item() == 2 and s[0]._base is x


def test_small_random_tensors_own_their_memory():
    # shaped in place, not a reshape() view: the owned-array routes (expand's view) take them
    for make in (
        lambda: mt.randn(3, 4),
        lambda: mt.rand(4),
        lambda: mt.randn(2, 3, dtype=mt.float16),
        lambda: mt.rand(5, 2, dtype=mt.float64),
        lambda: mt.randn(()),
    ):
        mt.manual_seed(3)
        t = make()
        assert t._data.base is None and t._data.flags.owndata and t.is_contiguous()
    mt.manual_seed(3)
    a = mt.randn(12)
    mt.manual_seed(3)
    b = mt.randn(3, 4)
    assert mt.equal(a.view(3, 4), b)  # the same draws, only shaped
    e = mt.randn(4).expand(3, 4)
    assert e.stride() == (0, 1) and not e.is_contiguous()
