"""Session 39 (helper ipfuzz): torch-free regression tests of the library fixes the fuzzed
programs of in-place ops on views of tests/reference/test_s39_ipfuzz_reference.py found: the
gradient through an as_strided of a view (regenerated, or written in place); torch's backward
refusal of a write into an expanded view (fill_, masked_fill_, index_put_, which torch writes
with its deprecation warnings); the node a saved result of an in-place op on a view names while
it lives; a view taken before its base gained history is a leaf to an in-place op until its
node is looked up; a retained gradient of a view that a write went through; a no_grad view of a
base that gained history; an in-place op with an operand of a wider dtype keeps its own node;
the multi-output view refusal before index_put_'s dtype error and the overlap error; a failed
write keeps no saved view node alive. torch 2.13's values and messages are written here as
literals."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import minitorch as torch

F64 = torch.float64
OVERLAP = (
    "unsupported operation: more than one element of the written-to tensor refers to a single "
    "memory location. Please clone() the tensor before performing the operation."
)
LEAF = "a leaf Variable that requires grad is being used in an in-place operation."
MULTI = (
    "Output 0 of Split is a view and is being modified inplace. This view is the output of a "
    "function that returns multiple views. Such functions do not allow the output views to be "
    "modified inplace. You should replace the inplace operation by an out-of-place one."
)


def _warnings(fn) -> list[str]:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        fn()
    return [str(w.message).split(" on expanded")[0] for w in caught]


def test_regenerated_as_strided_of_a_view_reaches_the_whole_base():
    # torch regenerates the view as one as_strided of the base: its gradient reaches memory
    # the inner view base[5:6] does not cover (a replay through it dropped it: a4.grad was 0)
    a1 = torch.arange(6.0, dtype=F64).requires_grad_()
    base = a1.clone()
    v3 = base[5:6].as_strided((1, 3), (3, 1), 2)
    a4 = torch.ones((1, 1), dtype=F64, requires_grad=True)
    v3[...] = a4 * 10
    assert v3.grad_fn.name() == "AsStridedBackward0"
    (v3 * torch.tensor([1.0, 2, 3], dtype=F64)).sum().backward()
    np.testing.assert_array_equal(a4.grad.numpy(), [[60.0]])
    np.testing.assert_array_equal(a1.grad.numpy(), np.zeros(6))


def test_as_strided_of_a_view_written_in_place():
    # the old value's gradient goes to the base's memory (torch's CopySlices), not through
    # the view's node, whose input base[:2] does not cover elements 2 and 3
    a = torch.arange(1.0, 7.0, dtype=F64).requires_grad_()
    base = a.clone()
    base[:2].as_strided((3,), (1,), 1).mul_(2)
    (base * torch.tensor([1.0, 2, 3, 4, 5, 6], dtype=F64)).sum().backward()
    np.testing.assert_array_equal(base.detach().numpy(), [1.0, 4, 6, 8, 5, 6])
    np.testing.assert_array_equal(a.grad.numpy(), [1.0, 4, 6, 8, 5, 6])


def test_fill_of_an_expanded_view_is_refused_by_backward():
    # before: the forward worked and the backward went on to the saved exp output's version
    a = torch.tensor([1.0, 2.0, 3.0], dtype=F64, requires_grad=True)
    base = a.exp()
    base[:1].expand(3).fill_(0.25)
    np.testing.assert_allclose(base.detach().numpy(), [0.25, np.exp(2), np.exp(3)])
    with pytest.raises(RuntimeError) as info:
        base.sum().backward()
    assert str(info.value) == OVERLAP


def test_masked_fill_of_an_expanded_view_with_grad():
    # was refused at once (the overlap error); torch warns, writes, and its backward refuses
    a = torch.tensor([1.0, -2.0, 3.0], dtype=F64, requires_grad=True)
    base = a * 1
    v = base.expand(2, 3)
    assert _warnings(lambda: v.masked_fill_(v.detach() > 0, 0.5)) == ["Use of masked_fill_"]
    np.testing.assert_array_equal(base.detach().numpy(), [0.5, -2.0, 0.5])
    assert base.grad_fn.name() == "torch::autograd::CopySlices"
    with pytest.raises(RuntimeError) as info:
        base.sum().backward()
    assert str(info.value) == OVERLAP


def test_index_put_of_an_expanded_view_with_grad():
    a = torch.tensor([1.0, -2.0, 3.0], dtype=F64, requires_grad=True)
    s = torch.tensor(0.7, dtype=F64, requires_grad=True)
    base = a * 1
    v = base.expand(2, 3)
    assert _warnings(lambda: v.__setitem__(torch.tensor([1]), s * 2)) == ["Use of index_put_"]
    np.testing.assert_allclose(base.detach().numpy(), [1.4, 1.4, 1.4])
    with pytest.raises(RuntimeError) as info:
        base.sum().backward()
    assert str(info.value) == OVERLAP
    base = a * 1
    v = base.expand(2, 3)
    assert _warnings(lambda: v.index_put_((torch.tensor([0]),), s * 2)) == ["Use of index_put_"]


def test_mask_put_into_an_expanded_tensor_warns_as_index_put_then_masked_fill():
    want = ["Use of index_put_", "Use of masked_fill_"]
    a = torch.tensor([1.0, -2.0, 3.0], dtype=F64, requires_grad=True)
    s = torch.tensor(0.7, dtype=F64, requires_grad=True)
    base = a * 1
    v = base.expand(2, 3)
    assert _warnings(lambda: v.__setitem__(v.detach() > 0, s)) == want
    np.testing.assert_allclose(base.detach().numpy(), [0.7, -2.0, 0.7])
    b = torch.zeros(3)
    v = b.expand(2, 3)
    assert _warnings(lambda: v.__setitem__(v > -1, 0.5)) == want  # (no warning before)
    assert _warnings(lambda: v.index_put_((v > -1,), torch.tensor(0.5))) == want
    np.testing.assert_array_equal(b.numpy(), [0.5, 0.5, 0.5])


def _relu_then(then: str, create_graph: bool) -> str:
    a = torch.tensor([[0.5, -1.0, 2.0], [1.5, -0.25, 0.75]], dtype=F64, requires_grad=True)
    base = a.clone()
    v = base[1:]
    v.relu_()
    exec(then, {"v": v, "base": base})  # noqa: S102
    with pytest.raises(RuntimeError) as info:
        torch.autograd.grad(base.sum(), a, create_graph=create_graph)
    msg = str(info.value)
    return msg[msg.index("which is") : msg.index(", is at")]


@pytest.mark.parametrize(
    "then, create_graph, named",
    [
        # a later write through v: torch's CopySlices keeps the view's node only until a
        # backward without retain_graph frees it (was AsStrided)
        ("v.mul_(2)", False, "Relu"),
        ("v.mul_(2)", True, "AsStrided"),
        # the view still holds its node (never looked up since)
        ("base.mul_(2)", False, "AsStrided"),
        # its node regenerated by the look-up: the old one is gone (was AsStrided)
        ("base.mul_(2); v.grad_fn", False, "Relu"),
    ],
)
def test_saved_result_of_inplace_on_view_names_the_node_while_it_lives(then, create_graph, named):
    assert _relu_then(then, create_graph) == f"which is output 0 of {named}"


@pytest.mark.parametrize(
    "code, error",
    [
        ("u.copy_(s); v.mul_(s)", LEAF),  # v was taken before base gained history (no error)
        ("base.add_(s); v.add_(1)", LEAF),
        ("u.copy_(s); v.grad_fn; v.mul_(s)", None),  # a look-up gives it its node
        ("u.copy_(s); v.is_leaf; v.mul_(2)", None),
        ("u.copy_(s); u.mul_(s)", None),  # the written view has its node
    ],
)
def test_view_taken_before_its_base_gained_history_is_a_leaf_to_inplace(code, error):
    base = torch.zeros(2, 3, dtype=F64)
    env = {"base": base, "v": base[1], "u": base[0]}
    env["s"] = torch.tensor(0.5, dtype=F64, requires_grad=True)
    if error is None:
        exec(code, env)  # noqa: S102
        return
    with pytest.raises(RuntimeError) as info:
        exec(code, env)  # noqa: S102
    assert str(info.value) == error


def test_retained_grad_of_a_view_a_write_went_through_is_none():
    # a write through u = v[1:] sends the gradient of u's old value to the base directly: v's
    # node sees none of it (v.grad was zeros)
    a = torch.tensor([[0.5, -1.0, 2.0], [1.5, -0.25, 0.75]], dtype=F64, requires_grad=True)
    base = a * 1.5
    v = base[1]
    v.retain_grad()
    u = v[1:]
    u[0] = 0.5
    (base * 2).sum().backward()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # (torch warns at .grad of a regenerated non-leaf)
        assert v.grad is None
    np.testing.assert_array_equal(a.grad.numpy(), [[3.0, 3.0, 3.0], [3.0, 0.0, 3.0]])


def test_no_grad_view_of_a_base_that_gained_history():
    base = torch.zeros(2, 3, dtype=F64)
    s = torch.tensor(0.5, dtype=F64, requires_grad=True)
    with torch.no_grad():
        v = base[1:]
    base.mul_(s)
    with pytest.raises(RuntimeError) as info:
        v.grad_fn  # noqa: B018
    assert str(info.value).startswith(
        "A view was created in no_grad mode and its base or another view of its base has been "
        "modified inplace with grad mode enabled. Given that this use case is ambiguous"
    )


def test_inplace_with_a_wider_operand_keeps_its_node():
    # float32 self, float64 operand: the op's node is self's (was ToCopyBackward0 after it)
    a = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    d = torch.tensor([0.5, 2.0, -1.0], dtype=F64, requires_grad=True)
    b = a * 1
    b.mul_(d)
    assert (b.grad_fn.name(), b.dtype) == ("MulBackward0", torch.float32)
    ga, gd = torch.autograd.grad((b * b).sum(), [a, d])
    assert (ga.dtype, gd.dtype) == (torch.float32, F64)
    np.testing.assert_allclose(ga.numpy(), [0.5, 16.0, 6.0])
    np.testing.assert_allclose(gd.numpy(), [1.0, 16.0, -18.0])
    b = a * 1
    v = b[1:]
    v.add_(d[1:])
    assert (b.grad_fn.name(), v.grad_fn.name()) == (
        "torch::autograd::CopySlices",
        "AsStridedBackward0",
    )


def test_multi_output_view_refusal_before_index_put_dtype_error():
    a = torch.ones(4, 3, requires_grad=True)
    p = (a * 1).split(2)[0]
    value = torch.ones(3, dtype=F64)
    for fn in (
        lambda: p.__setitem__(torch.tensor([1]), value),
        lambda: p.index_put_((torch.tensor([1]),), value),
    ):
        with pytest.raises(RuntimeError) as info:
            fn()
        assert str(info.value) == MULTI
    with pytest.raises(RuntimeError) as info:
        a[torch.tensor([1])] = value
    assert str(info.value) == LEAF


def test_split_output_taken_before_its_base_gained_history():
    # torch's multi-output refusal comes before its leaf check (was the leaf message)
    base = torch.zeros(2, 3, dtype=F64)
    p = base.split(1, 0)[0]
    s = torch.tensor(0.5, dtype=F64, requires_grad=True)
    base[1] = s
    with pytest.raises(RuntimeError) as info:
        p.mul_(s)
    assert str(info.value) == (
        "A view was created in no_grad mode and is being modified inplace with grad mode "
        "enabled. This view is the output of a function that returns multiple views. Such "
        "functions do not allow the output views to be modified inplace. You should replace the "
        "inplace operation by an out-of-place one."
    )


def test_split_output_refusal_before_the_overlap_error():
    a = torch.ones(1, 4, dtype=F64, requires_grad=True)
    p = (a * 1).expand(3, 4).chunk(2, 0)[0]
    with pytest.raises(RuntimeError) as info:
        p.copy_(torch.ones(2, 4, dtype=F64))
    assert str(info.value) == MULTI  # was the overlap error


def test_failed_write_keeps_no_saved_view_node_alive():
    # index_add_ refuses the float64 source after the view's history was taken: the view's
    # node the tanh_ result names is gone once the base is written (was AsStrided)
    a1 = torch.ones(4, 4, requires_grad=True)
    base = a1 + 0.0
    v = base[-3]
    v.tanh_()
    with pytest.raises(RuntimeError, match="must have the same scalar type"):
        v.index_add_(0, torch.tensor([2]), torch.ones(1, dtype=F64, requires_grad=True))
    v.mul_(2)
    with pytest.raises(RuntimeError, match="which is output 0 of Tanh, is at version 2"):
        base.sum().backward()
