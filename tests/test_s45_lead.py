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
