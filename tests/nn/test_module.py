"""nn.Module and nn.Parameter: registration, traversal, state dicts, casting, hooks, repr."""

from __future__ import annotations

import copy
import pickle
import warnings
from collections import OrderedDict

import numpy as np
import pytest

import minitorch
import minitorch.nn as nn


class Scale(nn.Module):
    """y = x * w + b, elementwise: a layer that needs only pointwise ops."""

    def __init__(self, n=3, bias=True):
        super().__init__()
        self.w = nn.Parameter(minitorch.arange(1.0, n + 1.0))
        if bias:
            self.b = nn.Parameter(minitorch.zeros(n))
        else:
            self.register_parameter("b", None)
        self.register_buffer("count", minitorch.zeros((), dtype=minitorch.int64))
        self.register_buffer("scratch", minitorch.zeros(n), persistent=False)

    def forward(self, x):
        out = x * self.w
        return out if self.b is None else out + self.b


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.first = Scale()
        self.blocks = nn.Sequential(Scale(), nn.Identity(), Scale(bias=False))
        self.head = nn.Parameter(minitorch.ones(3))

    def forward(self, x):
        return self.blocks(self.first(x)) * self.head


def _values(t):
    return t.detach().cpu().numpy()


# --- Parameter ---


def test_parameter_is_a_tensor_sharing_memory_and_version():
    t = minitorch.zeros(3)
    p = nn.Parameter(t)
    assert isinstance(p, minitorch.Tensor) and type(p).__name__ == "Parameter"
    assert p.requires_grad and p.is_leaf and p.grad_fn is None
    t.add_(1)
    assert p._version == 1
    np.testing.assert_array_equal(_values(p), [1, 1, 1])


def test_parameter_repr_and_requires_grad_false():
    p = nn.Parameter(minitorch.tensor([1.0, 2.0]))
    assert repr(p) == "Parameter containing:\ntensor([1., 2.], requires_grad=True)"
    q = nn.Parameter(minitorch.tensor([1, 2]), requires_grad=False)
    assert repr(q) == "Parameter containing:\ntensor([1, 2])"
    assert repr(nn.Parameter()) == "Parameter containing:\ntensor([], requires_grad=True)"


def test_parameter_of_integer_tensor_cannot_require_grad():
    with pytest.raises(RuntimeError, match="Only Tensors of floating point and complex dtype"):
        nn.Parameter(minitorch.tensor([1, 2]))


def test_ops_on_parameters_return_plain_tensors():
    p = nn.Parameter(minitorch.ones(2))
    for out in (p * 2, p + p, p.detach(), p.data, -p, p.sum()):
        assert type(out) is minitorch.Tensor


def test_parameter_deepcopy_and_pickle_keep_the_class():
    p = nn.Parameter(minitorch.tensor([1.0, 2.0]))
    p.grad = minitorch.ones(2)
    q = copy.deepcopy(p)
    assert type(q) is nn.Parameter and q.requires_grad and q.grad is None  # as torch
    np.testing.assert_array_equal(_values(q), [1, 2])
    r = pickle.loads(pickle.dumps(nn.Parameter(minitorch.ones(2), requires_grad=False)))
    assert type(r) is nn.Parameter and not r.requires_grad


def test_buffer_marker_registers_with_persistence():
    m = nn.Module()
    m.a = nn.Buffer(minitorch.ones(2))
    m.b = nn.Buffer(minitorch.zeros(2), persistent=False)
    assert type(m.a) is minitorch.Tensor and isinstance(m.a, nn.Buffer)
    assert not isinstance(minitorch.ones(1), nn.Buffer)
    assert list(m._buffers) == ["a", "b"] and list(m.state_dict()) == ["a"]


# --- registration ---


def test_registration_goes_to_ordered_registries():
    m = Scale()
    assert list(m._parameters) == ["w", "b"]
    assert list(m._buffers) == ["count", "scratch"]
    assert "w" not in m.__dict__ and m.w is m._parameters["w"]
    m.b = None  # stays a (None) parameter
    assert list(m._parameters) == ["w", "b"] and m.b is None
    assert [n for n, _ in m.named_parameters()] == ["w"]
    m.count = minitorch.ones(())  # a plain tensor assigned to a buffer name stays a buffer
    assert m._buffers["count"] is m.count
    m.child = nn.Identity()
    assert list(m._modules) == ["child"]
    m.plain = 3
    assert m.__dict__["plain"] == 3


def test_reassigning_a_name_moves_it_between_registries():
    m = nn.Module()
    m.x = nn.Identity()
    m.x = nn.Parameter(minitorch.ones(1))
    assert "x" not in m._modules and "x" in m._parameters
    del m.x
    assert not hasattr(m, "x")
    m.register_buffer("y", minitorch.ones(1), persistent=False)
    del m.y
    assert "y" not in m._non_persistent_buffers_set


@pytest.mark.parametrize(
    "action, exc, msg",
    [
        (
            lambda m: setattr(m, "w", 3),
            TypeError,
            "cannot assign 'int' as parameter 'w' (torch.nn.Parameter or None expected)",
        ),
        (
            lambda m: setattr(m, "w", minitorch.ones(3)),
            TypeError,
            "cannot assign 'torch.FloatTensor' as parameter 'w' (torch.nn.Parameter or None "
            "expected)",
        ),
        (
            lambda m: m.register_parameter("x", minitorch.ones(2)),
            TypeError,
            "cannot assign 'torch.FloatTensor' object to parameter 'x' (torch.nn.Parameter or None "
            "required)",
        ),
        (
            lambda m: m.register_buffer("x", 3),
            TypeError,
            "cannot assign 'int' object to buffer 'x' (torch Tensor or None required)",
        ),
        (
            lambda m: setattr(m, "count", "no"),
            TypeError,
            "cannot assign 'str' as buffer 'count' (torch.nn.Buffer, torch.Tensor or None "
            "expected)",
        ),
        (lambda m: m.add_module("x", 3), TypeError, "int is not a Module subclass"),
        (lambda m: m.register_buffer("a.b", None), KeyError, 'buffer name can\'t contain "."'),
        (lambda m: m.add_module("a.b", None), KeyError, 'module name can\'t contain ".", got: a.b'),
        (
            lambda m: m.register_parameter("", None),
            KeyError,
            'parameter name can\'t be empty string ""',
        ),
        (
            lambda m: m.register_buffer("training", None),
            KeyError,
            "attribute 'training' already exists",
        ),
        (
            lambda m: m.register_parameter(1, None),
            TypeError,
            "parameter name should be a string. Got int",
        ),
        (lambda m: m.missing, AttributeError, "'Scale' object has no attribute 'missing'"),
    ],
)
def test_bad_registration_errors_match_torch(action, exc, msg):
    with pytest.raises(exc) as info:
        action(Scale())
    text = info.value.args[0]
    assert text == msg


def test_non_leaf_parameter_is_refused():
    m = nn.Module()
    x = minitorch.ones(2, requires_grad=True)
    p = nn.Parameter(x)
    p._grad_fn = (x * 2)._grad_fn  # a Parameter that is not a leaf
    with pytest.raises(ValueError, match="Cannot assign non-leaf Tensor to parameter 'p'"):
        m.register_parameter("p", p)


def test_assigning_before_init_raises():
    class Bad(nn.Module):
        def __init__(self):
            self.w = nn.Parameter(minitorch.ones(1))

    with pytest.raises(AttributeError, match=r"cannot assign parameters before Module.__init__"):
        Bad()


def test_init_rejects_arguments():
    with pytest.raises(TypeError, match=r"Module.__init__\(\) takes 1 positional argument but 2"):
        nn.Module(3)
    with pytest.raises(TypeError, match="unexpected keyword argument 'a'"):
        nn.Module(a=3)


def test_forward_not_implemented():
    with pytest.raises(
        NotImplementedError, match=r'Module \[Module\] is missing the required "forward" function'
    ):
        nn.Module()(1)


def test_dir_lists_registered_names():
    names = dir(Scale())
    for n in ("w", "b", "count", "forward", "training"):
        assert n in names


# --- traversal ---


def test_named_parameters_buffers_modules_children():
    net = Net()
    assert [n for n, _ in net.named_parameters()] == [
        "head",
        "first.w",
        "first.b",
        "blocks.0.w",
        "blocks.0.b",
        "blocks.2.w",
    ]
    assert [n for n, _ in net.named_parameters(prefix="model", recurse=False)] == ["model.head"]
    assert [n for n, _ in net.named_buffers()] == [
        "first.count",
        "first.scratch",
        "blocks.0.count",
        "blocks.0.scratch",
        "blocks.2.count",
        "blocks.2.scratch",
    ]
    assert [n for n, _ in net.named_modules()] == [
        "",
        "first",
        "blocks",
        "blocks.0",
        "blocks.1",
        "blocks.2",
    ]
    assert [n for n, _ in net.named_children()] == ["first", "blocks"]
    assert len(list(net.parameters())) == 6 and len(list(net.modules())) == 6


def test_shared_submodules_and_parameters_are_deduplicated():
    shared = Scale()
    seq = nn.Sequential(shared, shared)
    assert len(list(seq.parameters())) == 2
    assert [n for n, _ in seq.named_parameters()] == ["0.w", "0.b"]
    assert [n for n, _ in seq.named_parameters(remove_duplicate=False)] == [
        "0.w",
        "0.b",
        "1.w",
        "1.b",
    ]
    assert len(list(seq.modules())) == 2
    assert len(list(seq.modules(remove_duplicate=False))) == 3
    assert len(list(seq.children())) == 1
    # the same Parameter under two names
    m = nn.Module()
    m.a = m.b = nn.Parameter(minitorch.ones(1))
    assert [n for n, _ in m.named_parameters()] == ["a"]
    assert list(m.state_dict()) == ["a", "b"]  # state_dict keeps both names, as torch


def test_get_submodule_parameter_buffer():
    net = Net()
    assert net.get_submodule("blocks.0") is net.blocks[0]
    assert net.get_submodule("") is net
    assert net.get_parameter("blocks.0.w") is net.blocks[0].w
    assert net.get_buffer("first.count") is net.first.count
    for call, msg in [
        (lambda: net.get_submodule("blocks.x"), "Sequential has no attribute `x`"),
        (lambda: net.get_submodule("head"), "`head` is not an nn.Module"),
        (lambda: net.get_parameter("first.nope"), "Scale has no attribute `nope`"),
        (lambda: net.get_parameter("first.count"), "`count` is not an nn.Parameter"),
        (lambda: net.get_buffer("first.w"), "`w` is not a buffer"),
    ]:
        with pytest.raises(AttributeError) as info:
            call()
        assert info.value.args[0] == msg


def test_set_submodule():
    net = Net()
    new = nn.Identity()
    net.set_submodule("blocks.1", new)
    assert net.blocks[1] is new
    with pytest.raises(AttributeError, match="Sequential has no attribute `9`"):
        net.set_submodule("blocks.9", new, strict=True)


def test_apply_visits_children_first():
    seen = []
    Net().apply(lambda m: seen.append(type(m).__name__))
    assert seen == ["Scale", "Scale", "Identity", "Scale", "Sequential", "Net"]


# --- state dict ---


def test_state_dict_keys_order_and_detachment():
    net = Net()
    sd = net.state_dict()
    assert isinstance(sd, OrderedDict)
    assert list(sd) == [
        "head",
        "first.w",
        "first.b",
        "first.count",
        "blocks.0.w",
        "blocks.0.b",
        "blocks.0.count",
        "blocks.2.w",
        "blocks.2.count",
    ]
    assert not sd["head"].requires_grad and type(sd["head"]) is minitorch.Tensor
    assert sd["head"].data_ptr() == net.head.data_ptr()  # shares memory
    kept = net.state_dict(keep_vars=True)
    assert kept["head"] is net.head
    assert list(net.state_dict(prefix="m."))[0] == "m.head"
    assert dict(sd._metadata) == {
        "": {"version": 1},
        "first": {"version": 1},
        "blocks": {"version": 1},
        "blocks.0": {"version": 1},
        "blocks.1": {"version": 1},
        "blocks.2": {"version": 1},
    }


def test_load_state_dict_copies_in_place():
    src, dst = Net(), Net()
    with minitorch.no_grad():
        for p in src.parameters():
            p.mul_(3)
    w = dst.first.w
    version = w._version
    result = dst.load_state_dict(src.state_dict())
    assert repr(result) == "<All keys matched successfully>"
    assert dst.first.w is w and w._version > version and w.requires_grad
    for (n, a), (_, b) in zip(src.state_dict().items(), dst.state_dict().items(), strict=True):
        np.testing.assert_array_equal(_values(a), _values(b), err_msg=n)


def test_load_state_dict_strict_errors_match_torch():
    m = Scale()
    bad = {"w": minitorch.zeros(4), "extra": minitorch.zeros(1), "child.x": minitorch.zeros(1)}
    with pytest.raises(RuntimeError) as info:
        m.load_state_dict(bad)
    assert str(info.value) == (
        "Error(s) in loading state_dict for Scale:\n"
        '\tMissing key(s) in state_dict: "b", "count". \n'
        '\tUnexpected key(s) in state_dict: "extra", "child.x". \n'
        "\tsize mismatch for w: copying a param with shape torch.Size([4]) from checkpoint, the "
        "shape in current model is torch.Size([3])."
    )


def test_load_state_dict_non_strict_returns_incompatible_keys():
    m = Scale()
    result = m.load_state_dict(
        {"w": minitorch.full((3,), 7.0), "zzz": minitorch.ones(1)}, strict=False
    )
    assert result.missing_keys == ["b", "count"] and result.unexpected_keys == ["zzz"]
    assert repr(result) == (
        "_IncompatibleKeys(missing_keys=['b', 'count'], unexpected_keys=['zzz'])"
    )
    np.testing.assert_array_equal(_values(m.w), [7, 7, 7])
    net = Net()
    sd = net.state_dict()
    del sd["first.b"]
    sd["foo"] = minitorch.ones(1)
    out = net.load_state_dict(sd, strict=False)
    assert out == (["first.b"], ["foo"])  # recorded, not raised
    with pytest.raises(RuntimeError, match='Missing key\\(s\\) in state_dict: "first.b". '):
        net.load_state_dict(sd)


def test_load_state_dict_size_mismatch_raises_even_when_not_strict():
    with pytest.raises(RuntimeError, match="size mismatch for w"):
        Scale().load_state_dict({"w": minitorch.zeros(2)}, strict=False)


def test_load_state_dict_rejects_non_tensors_and_non_mappings():
    with pytest.raises(
        RuntimeError,
        match='While copying the parameter named "w", expected '
        "torch.Tensor or Tensor-like object from checkpoint "
        "but received <class 'list'>",
    ):
        Scale().load_state_dict({"w": [1, 2, 3]}, strict=False)
    with pytest.raises(TypeError, match="Expected state_dict to be dict-like, got <class 'list'>"):
        Scale().load_state_dict([1])


def test_load_state_dict_casts_and_accepts_old_scalar_shape():
    m = Scale()
    m.load_state_dict(
        {
            "w": minitorch.tensor([1.0, 2.0, 3.0], dtype=minitorch.float64),
            "count": minitorch.tensor([5]),
        },
        strict=False,
    )
    assert m.w.dtype is minitorch.float32 and m.count.item() == 5 and m.count.ndim == 0


def test_load_state_dict_assign_replaces_tensors():
    m = Scale()
    new_w = minitorch.full((3,), 2.0, dtype=minitorch.float64)
    m.load_state_dict({"w": new_w}, strict=False, assign=True)
    assert type(m.w) is nn.Parameter and m.w.requires_grad and m.w.dtype is minitorch.float64
    assert m.w.data_ptr() == new_w.data_ptr()
    m.w.requires_grad_(False)
    m.load_state_dict({"w": nn.Parameter(minitorch.ones(3))}, strict=False, assign=True)
    assert not m.w.requires_grad  # keeps the module's requires_grad, as torch


def test_state_dict_roundtrip_for_subclass_that_saves_extra_entries():
    class WithCounter(Scale):
        # the BatchNorm pattern: an extra entry saved and loaded by overriding the two hooks
        def _save_to_state_dict(self, destination, prefix, keep_vars):
            super()._save_to_state_dict(destination, prefix, keep_vars)
            destination[prefix + "steps"] = minitorch.tensor(42)

        def _load_from_state_dict(
            self, state_dict, prefix, local_metadata, strict, missing, unexpected, errors
        ):
            self.loaded_steps = state_dict.pop(prefix + "steps").item()
            super()._load_from_state_dict(
                state_dict, prefix, local_metadata, strict, missing, unexpected, errors
            )

    outer = nn.Sequential(WithCounter())
    sd = outer.state_dict()
    assert list(sd) == ["0.w", "0.b", "0.count", "0.steps"]
    outer.load_state_dict(sd)
    assert outer[0].loaded_steps == 42


def test_extra_state_is_saved_and_loaded():
    class Extra(nn.Module):
        def get_extra_state(self):
            return {"answer": 42}

        def set_extra_state(self, state):
            self.got = state

    m = nn.Sequential(Extra())
    sd = m.state_dict()
    assert sd["0._extra_state"] == {"answer": 42}
    m.load_state_dict(sd)
    assert m[0].got == {"answer": 42}


def test_state_dict_hooks():
    m = Scale()
    calls = []
    m.register_state_dict_pre_hook(lambda mod, prefix, keep_vars: calls.append(("pre", prefix)))
    m.register_state_dict_post_hook(lambda mod, sd, prefix, meta: calls.append(("post", len(sd))))
    m.register_load_state_dict_pre_hook(lambda mod, sd, prefix, *rest: calls.append("load-pre"))
    m.register_load_state_dict_post_hook(lambda mod, keys: calls.append(("load-post", keys)))
    m.load_state_dict(m.state_dict())
    assert calls[:3] == [("pre", ""), ("post", 3), "load-pre"]
    assert calls[3][0] == "load-post" and repr(calls[3][1]) == "<All keys matched successfully>"


# --- modes, grads, casting ---


def test_train_eval_and_requires_grad():
    net = Net()
    assert net.training and net.blocks[0].training
    assert net.eval() is net and not net.blocks[2].training
    net.train()
    assert net.first.training
    with pytest.raises(ValueError, match="training mode is expected to be boolean"):
        net.train("yes")
    net.requires_grad_(False)
    assert not any(p.requires_grad for p in net.parameters())


def test_zero_grad_to_none_and_to_zeros():
    m = Scale()
    x = minitorch.ones(3)
    m(x).sum().backward()
    np.testing.assert_array_equal(_values(m.w.grad), [1, 1, 1])
    g = m.w.grad
    m.zero_grad(set_to_none=False)
    assert m.w.grad is g
    np.testing.assert_array_equal(_values(g), [0, 0, 0])
    m.zero_grad()
    assert m.w.grad is None and m.b.grad is None


def test_to_dtype_keeps_parameter_identity_and_casts_grads():
    m = Scale()
    m(minitorch.ones(3)).sum().backward()
    w = m.w
    assert m.to(minitorch.float64) is m
    assert m.w is w and type(w) is nn.Parameter and w.requires_grad and w.is_leaf
    assert w.dtype is minitorch.float64 and w.grad.dtype is minitorch.float64
    assert m.count.dtype is minitorch.int64  # integer buffers are not cast
    m.float()
    assert m.w.dtype is minitorch.float32 and m.scratch.dtype is minitorch.float32
    m.half()
    assert m.w.dtype is minitorch.float16
    m.double()
    assert m.b.dtype is minitorch.float64
    m.to(dtype=minitorch.float32)
    assert m.w.dtype is minitorch.float32
    m.to(minitorch.zeros(1, dtype=minitorch.float64))
    assert m.w.dtype is minitorch.float64


def test_to_rejects_integer_dtypes_and_bad_arguments():
    with pytest.raises(
        TypeError,
        match="nn.Module.to only accepts floating point or complex "
        "dtypes, but got desired dtype=torch.int64",
    ):
        Scale().to(minitorch.int64)
    with pytest.raises(TypeError, match=r"invalid combination of arguments - got \(foo=int, \)"):
        Scale().to(foo=1)
    with pytest.raises(TypeError, match="invalid combination of arguments"):
        Scale().to(minitorch.float32, minitorch.float64)


def test_to_device_keeps_identity(device):
    m = Net()
    params = list(m.parameters())
    m.to(device)
    assert all(a is b for a, b in zip(m.parameters(), params, strict=True))
    assert all(p.device == minitorch.device(device) for p in m.parameters())
    assert all(b.device == minitorch.device(device) for b in m.buffers())
    out = m(minitorch.ones(3, device=device))
    assert out.device == minitorch.device(device)
    m.cpu()
    assert m.head.device.type == "cpu" and m.head is params[0]


def test_pickle_and_deepcopy_module_keep_sharing():
    m = nn.Module()
    m.a = nn.Parameter(minitorch.ones(2))
    m.sub = nn.Module()
    m.sub.b = m.a
    for clone in (copy.deepcopy(m), pickle.loads(pickle.dumps(m))):
        assert type(clone.a) is nn.Parameter and clone.sub.b is clone.a and clone.a is not m.a


# --- calling and hooks ---


def test_forward_pre_hook_and_forward_hook():
    m = Scale()
    calls = []

    def pre(mod, args):
        calls.append(("pre", len(args)))
        return args[0] * 2  # a non-tuple result becomes the single argument

    def post(mod, args, out):
        calls.append(("post", _values(args[0]).tolist()))
        return out + 100

    h1 = m.register_forward_pre_hook(pre)
    h2 = m.register_forward_hook(post)
    out = m(minitorch.ones(3))
    np.testing.assert_array_equal(_values(out), [102, 104, 106])
    assert calls == [("pre", 1), ("post", [2, 2, 2])]
    h1.remove()
    h2.remove()
    np.testing.assert_array_equal(_values(m(minitorch.ones(3))), [1, 2, 3])


def test_hooks_with_kwargs_and_prepend_order():
    class KW(nn.Module):
        def forward(self, x, *, scale=1.0):
            return x * scale

    m = KW()
    order = []

    def pre_kwargs(mod, args, kwargs):
        order.append("pre_kwargs")
        return args, {**kwargs, "scale": 10.0}

    m.register_forward_pre_hook(pre_kwargs, with_kwargs=True)
    m.register_forward_pre_hook(lambda mod, args: order.append("first"), prepend=True)
    m.register_forward_hook(
        lambda mod, args, kwargs, out: order.append(("post", kwargs["scale"])), with_kwargs=True
    )
    out = m(minitorch.ones(2), scale=2.0)
    np.testing.assert_array_equal(_values(out), [10, 10])
    assert order == ["first", "pre_kwargs", ("post", 10.0)]


def test_pre_hook_with_kwargs_must_return_a_pair():
    m = nn.Identity()
    m.register_forward_pre_hook(lambda mod, args, kwargs: 3, with_kwargs=True)
    with pytest.raises(
        RuntimeError,
        match="forward pre-hook must return None or a tuple of "
        r"\(new_args, new_kwargs\), but got 3.",
    ):
        m(1)


def test_forward_hook_always_call_runs_on_error():
    class Boom(nn.Module):
        def forward(self, x):
            raise ValueError("boom")

    m = Boom()
    seen = []
    m.register_forward_hook(lambda mod, args, out: seen.append(out), always_call=True)
    with pytest.raises(ValueError, match="boom"):
        m(1)
    assert seen == [None]


def test_handle_is_a_context_manager():
    m = nn.Identity()
    seen = []
    with m.register_forward_hook(lambda mod, args, out: seen.append(out)):
        m(1)
    m(2)
    assert seen == [1] and not m._forward_hooks


def test_global_forward_hook():
    seen = []
    handle = nn.modules.module.register_module_forward_hook(
        lambda mod, args, out: seen.append(type(mod).__name__)
    )
    try:
        nn.Sequential(nn.Identity())(1)
    finally:
        handle.remove()
    assert seen == ["Identity", "Sequential"]


class TwoInOut(nn.Module):
    def __init__(self):
        super().__init__()
        self.w = nn.Parameter(minitorch.tensor([2.0, 3.0]))

    def forward(self, x, y):
        return x * self.w + y, x * 2


def _lists(grads):
    return [None if g is None else _values(g).tolist() for g in grads]


def test_full_backward_hooks_see_and_replace_gradients():
    m = TwoInOut()
    log = []
    m.register_full_backward_pre_hook(lambda mod, go: log.append(("pre", _lists(go))))

    def hook(mod, grad_input, grad_output):
        assert mod is m
        log.append(("full", _lists(grad_input), _lists(grad_output)))
        return (grad_input[0] * 10, grad_input[1])

    m.register_full_backward_hook(hook)
    x = minitorch.tensor([1.0, 1.0], requires_grad=True)
    y = minitorch.tensor([1.0, 5.0])
    a, b = m(x, y)
    assert type(a.grad_fn).__name__ == "BackwardHookFunctionBackward"
    a.sum().backward()
    # b got no gradient: None for the pre-hook; y needs none: zeros in grad_input (as torch)
    assert log == [
        ("pre", [[1.0, 1.0], None]),
        ("full", [[2.0, 3.0], [0.0, 0.0]], [[1.0, 1.0], None]),
    ]
    np.testing.assert_array_equal(_values(x.grad), [20, 30])
    np.testing.assert_array_equal(_values(m.w.grad), [1, 1])


def test_module_hooks_on_device_read_nothing_back(device):
    from minitorch._backend.strict import count_transfers

    m = TwoInOut().to(device)
    seen = []
    m.register_full_backward_pre_hook(lambda mod, go: seen.append("pre"))
    m.register_full_backward_hook(lambda mod, gi, go: seen.append(gi[1].device.type))
    m.register_forward_hook(lambda mod, args, out: seen.append("fwd"))
    x = minitorch.ones(2, device=device, requires_grad=True)
    with count_transfers() as transfers:
        a, _ = m(x, minitorch.ones(2, device=device))
        a.sum().backward()
    assert transfers.count == 0
    assert seen == ["fwd", "pre", minitorch.device(device).type]
    assert x.grad.device == minitorch.device(device)


def test_backward_pre_hook_replaces_grad_output():
    m = TwoInOut()
    m.register_full_backward_pre_hook(lambda mod, go: (go[0] * 2, go[1]))
    x = minitorch.tensor([1.0, 1.0], requires_grad=True)
    a, _ = m(x, minitorch.zeros(2))
    a.sum().backward()
    np.testing.assert_array_equal(_values(x.grad), [4, 6])
    np.testing.assert_array_equal(_values(m.w.grad), [2, 2])


def test_full_backward_hook_without_inputs_requiring_grad_warns():
    m = TwoInOut()
    seen = []
    m.register_full_backward_hook(lambda mod, gi, go: seen.append((gi, _lists(go))))
    a, _ = m(minitorch.ones(2), minitorch.ones(2))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        a.sum().backward()
    assert seen == [((None, None), [[1.0, 1.0], None])]
    assert any("Full backward hook is firing" in str(w.message) for w in caught)


def test_full_backward_hook_wrong_length_raises():
    m = TwoInOut()
    m.register_full_backward_hook(lambda mod, gi, go: (gi[0],))
    a, _ = m(minitorch.ones(2, requires_grad=True), minitorch.ones(2))
    with pytest.raises(
        RuntimeError,
        match="Backward hook returned an invalid number of grad_input, got 1, but expected 2",
    ):
        a.sum().backward()


def test_regular_and_full_backward_hooks_do_not_mix():
    m = TwoInOut()
    m.register_full_backward_hook(lambda *a: None)
    with pytest.raises(RuntimeError, match="Cannot use both regular backward hooks and full"):
        m.register_backward_hook(lambda *a: None)


def test_deprecated_backward_hook_runs_on_the_output_grad_fn():
    m = Scale()
    seen = []
    m.register_backward_hook(lambda mod, gi, go: seen.append((mod, _lists(go))))
    m(minitorch.ones(3, requires_grad=True)).sum().backward()
    assert seen == [(m, [[1.0, 1.0, 1.0]])]


def test_no_backward_hook_machinery_under_no_grad():
    m = TwoInOut()
    m.register_full_backward_hook(lambda *a: None)
    with minitorch.no_grad():
        a, _ = m(minitorch.ones(2, requires_grad=True), minitorch.ones(2))
    assert a.grad_fn is None


# --- repr ---


def test_repr_nested_with_extra_repr():
    class Multi(nn.Module):
        def extra_repr(self):
            return "a=1\nb=2"

    class One(nn.Module):
        def extra_repr(self):
            return "k=3"

    m = nn.Module()
    m.one = One()
    m.multi = Multi()
    m.seq = nn.Sequential(One(), Multi())
    assert repr(m) == (
        "Module(\n"
        "  (one): One(k=3)\n"
        "  (multi): Multi(\n"
        "    a=1\n"
        "    b=2\n"
        "  )\n"
        "  (seq): Sequential(\n"
        "    (0): One(k=3)\n"
        "    (1): Multi(\n"
        "      a=1\n"
        "      b=2\n"
        "    )\n"
        "  )\n"
        ")"
    )
    assert repr(nn.Module()) == "Module()"
