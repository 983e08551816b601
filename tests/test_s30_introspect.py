"""Session 30 (helper introspect): torch-free checks of the introspection fixes found by the
programs in tests/reference/test_s30_introspect_reference.py; the expected values are torch
2.13's, written as literals."""

from __future__ import annotations

import minitorch as mt


def _walk_names(fn, depth):
    names = []
    for _ in range(depth):
        names.append(fn.name())
        fn = fn.next_functions[0][0]
    return names


def test_reshape_copy_records_clone_under_unsafe_view():
    # torch: a reshape that cannot view copies as clone + _unsafe_view (two nodes)
    w = mt.zeros(3, 2, requires_grad=True)
    y = w.t().reshape(6)
    assert _walk_names(y.grad_fn, 3) == ["UnsafeViewBackward0", "CloneBackward0", "TBackward0"]
    assert y.grad_fn._saved_self_sym_sizes == (2, 3)
    f = w.t().flatten()
    assert _walk_names(f.grad_fn, 2) == ["UnsafeViewBackward0", "CloneBackward0"]
    y.backward(mt.arange(6.0))
    assert w.grad.tolist() == [[0.0, 3.0], [1.0, 4.0], [2.0, 5.0]]
    # a viewable reshape stays one view node
    v = w.reshape(6).grad_fn
    assert (v.name(), v.next_functions[0][0].name()) == (
        "ViewBackward0",
        "torch::autograd::AccumulateGrad",
    )


def _saved(fn):
    return {a: getattr(fn, a) for a in dir(fn) if a.startswith("_saved_")}


def test_saved_attributes_of_shape_and_reduction_nodes():
    x = mt.zeros(3, 4, requires_grad=True)
    assert _saved(x.view(12).grad_fn) == {"_saved_self_sym_sizes": (3, 4)}
    assert _saved(x.sum().grad_fn) == {"_saved_self_sym_sizes": (3, 4)}
    assert _saved(x.sum(1, keepdim=True).grad_fn) == {
        "_saved_dim": (1,),
        "_saved_keepdim": True,
        "_saved_self_sym_sizes": (3, 4),
    }
    assert _saved(x.mean().grad_fn) == {
        "_saved_self_sym_numel": 12,
        "_saved_self_sym_sizes": (3, 4),
    }
    assert _saved(x.mean(0).grad_fn) == {
        "_saved_dim": (0,),
        "_saved_keepdim": False,
        "_saved_self_sym_numel": 12,
        "_saved_self_sym_sizes": (3, 4),
    }
    assert _saved(x.transpose(0, 1).grad_fn) == {"_saved_dim0": 0, "_saved_dim1": 1}
    assert _saved(x.permute(1, 0).grad_fn) == {"_saved_dims": (1, 0)}
    assert _saved(x.unsqueeze(1).grad_fn) == {"_saved_dim": 1}
    assert _saved(mt.cat([x, x], 1).grad_fn) == {"_saved_dim": 1}
    assert _saved(x[:1].expand(3, 4).grad_fn) == {"_saved_self_sym_sizes": (1, 4)}
    assert _saved(x.t().reshape(2, 1, 6).grad_fn) == {"_saved_self_sym_sizes": (4, 3)}


def test_custom_function_node_hooks_see_tensor_inputs_only():
    class Scale(mt.autograd.Function):
        @staticmethod
        def forward(ctx, x, k):
            ctx.k = k
            return x * k

        @staticmethod
        def backward(ctx, g):
            return g * ctx.k, None

    x = mt.ones(2, requires_grad=True)
    y = Scale.apply(x, 3.0)
    seen = []
    y.grad_fn.register_hook(lambda gi, go: seen.append(len(gi)) or (gi[0] * 5,))
    y.sum().backward()
    assert seen == [1]
    assert x.grad.tolist() == [15.0, 15.0]
    y = Scale.apply(x, 3.0)
    y.grad_fn.register_hook(lambda gi, go: (gi[0], None))
    try:
        y.sum().backward()
    except RuntimeError as e:
        msg = str(e)
    assert (
        msg == "hook '<lambda>' has returned an incorrect number of values (got 2, but expected 1)"
    )


def test_profiler_events_report_a_device_type_enum():
    D = mt.autograd.DeviceType
    assert mt.profiler.DeviceType is D
    assert (repr(D.CPU), str(D.CUDA), int(D.MPS), D(20).name) == (
        "<DeviceType.CPU: 0>",
        "DeviceType.CUDA",
        13,
        "PrivateUse1",
    )
    with mt.profiler.profile() as prof:
        with mt.profiler.record_function("step"):
            mt.ones(2) + 1
    assert {e.device_type for e in prof.events()} == {D.CPU}
    assert {e.device_type for e in prof.key_averages()} == {D.CPU}
    assert str(prof.key_averages().total_average().device_type) == "DeviceType.CPU"


def test_add_and_sub_with_alpha_record_one_node():
    a = mt.tensor([1.0, 2.0], dtype=mt.float64, requires_grad=True)
    b = mt.tensor([3.0, 4.0], dtype=mt.float64, requires_grad=True)
    acc = "torch::autograd::AccumulateGrad"
    for y, name in [(mt.add(a, b, alpha=2), "AddBackward0"), (a.sub(b, alpha=0.5), "SubBackward0")]:
        assert y.grad_fn.name() == name
        assert [f.name() for f, _ in y.grad_fn.next_functions] == [acc, acc]
    y = mt.add(a, b.detach(), alpha=2)
    assert [f and f.name() for f, _ in y.grad_fn.next_functions] == [acc, None]
    # torch's node saves no tensor: a second backward needs no retain_graph
    s = mt.sub(a, b, alpha=3).sum()
    s.backward()
    s.backward()
    assert (a.grad.tolist(), b.grad.tolist()) == ([2.0, 2.0], [-6.0, -6.0])
    (g,) = mt.autograd.grad(mt.sub(a * a, b * b, alpha=3).sum(), b, create_graph=True)
    assert mt.autograd.grad(g.sum(), b)[0].tolist() == [-6.0, -6.0]


PACK_MODIFIED = (
    "A saved tensor pack hook is modifying its input in place. Tensors provided as input to pack "
    "hook cannot be modified by in-place operations as this can lead to unexpected side-effects. "
    "Please open an issue if you need to perform in-place operations on the input to a pack hook."
)


def _raises(fn):
    try:
        fn()
    except RuntimeError as e:
        return str(e)
    return "no error"


def test_pack_hook_modifying_its_input_in_place_raises():
    x = mt.ones(3, requires_grad=True)
    w = mt.ones(3)
    hooks = mt.autograd.graph.saved_tensors_hooks(
        lambda t: t if t.requires_grad else t.mul_(2), lambda t: t
    )
    with hooks:
        assert _raises(lambda: x * w) == PACK_MODIFIED
    s = (x * 1).exp()
    raw = s.grad_fn._raw_saved_result
    assert _raises(lambda: raw.register_hooks(lambda t: t.add_(1), lambda t: t)) == PACK_MODIFIED
    assert w.tolist() == [2.0, 2.0, 2.0]  # (the refused hook ran)
    # a pack hook that changes a copy is fine: backward reads the copy
    with mt.autograd.graph.saved_tensors_hooks(lambda t: t.clone().mul_(2), lambda t: t):
        y = x * w
    y.sum().backward()
    assert x.grad.tolist() == [4.0, 4.0, 4.0]


def test_set_anomaly_enabled_takes_python_bools_only():
    import numpy as np

    cases = [
        ((1,), "argument 'enabled' (position 1) must be bool, not int"),
        (
            (np.True_,),
            f"argument 'enabled' (position 1) must be bool, not numpy.{type(np.True_).__name__}",
        ),
        ((True, "no"), "argument 'check_nan' (position 2) must be bool, not str"),
    ]
    for args, msg in cases:
        try:
            mt.autograd.set_detect_anomaly(*args)
        except TypeError as e:
            assert str(e) == "set_anomaly_enabled(): " + msg
        else:
            raise AssertionError(f"no error for {args}")
    assert not mt.is_anomaly_enabled()
    with mt.autograd.set_detect_anomaly(True, check_nan=False):
        assert mt.is_anomaly_enabled() and not mt.is_anomaly_check_nan_enabled()
    assert not mt.is_anomaly_enabled()
