"""Session 61: a tensor made by a recorded op whose shape or dtype changes without a record
(unsqueeze_/t_/as_strided_/set_ under no_grad, `.data =`). Its node gets gradients summed back to
the shape its op made, or torch's error naming the node that sent one that does not fit; before,
a cumsum's gradient ran along the wrong dim (NOTE [ Outputs reshaped in place ];
tests/reference/test_s61_reshaped_reference.py compares with torch)."""

import pytest

import minitorch as torch

W = [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]


def _x():
    return torch.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], dtype=torch.float64, requires_grad=True)


def _reverse_cumsum(rows):
    return [[sum(r[j:]) for j in range(len(r))] for r in rows]


@pytest.mark.parametrize(
    "op",
    [
        lambda x: x.cumsum(1),
        lambda x: x[torch.tensor([0, 1])],
        lambda x: x.sort(1).values,
        lambda x: torch.cat([x[:1], x[1:]]),
        lambda x: x.gather(1, torch.tensor([[0, 1, 2], [0, 1, 2]])),
    ],
)
def test_a_new_leading_dim_is_summed_back(op):
    # d/dx of sum(w * op(x)) for ops that act as the identity or a cumsum on these inputs: the
    # gradient reaching op's node has shape (1, 2, 3) and is summed to (2, 3) before it runs
    x = _x()
    y = op(x)
    with torch.no_grad():
        y.unsqueeze_(0)
    assert y.shape == (1, 2, 3)
    (y * torch.tensor([W], dtype=torch.float64)).sum().backward()
    expected = _reverse_cumsum(W) if y.grad_fn.name() == "CumsumBackward0" else W
    assert x.grad.tolist() == expected


def test_gradients_from_before_and_after_the_change_add_up():
    x = _x()
    y = x.cumsum(1)
    a = (y * 2).sum()
    with torch.no_grad():
        y.unsqueeze_(0)
    b = (y * torch.tensor([W], dtype=torch.float64)).sum()
    (a + b).backward()
    assert x.grad.tolist() == [[6.0 + 6, 5.0 + 4, 3.0 + 2], [15.0 + 6, 11.0 + 4, 6.0 + 2]]


def test_a_shape_broadcasting_cannot_explain_names_the_sender():
    x = _x()
    y = x.cumsum(1)
    with torch.no_grad():
        y.t_()
    with pytest.raises(
        RuntimeError,
        match=r"^Function SumBackward0 returned an invalid gradient at index 0 - got \[3, 2\] but "
        r"expected shape compatible with \[2, 3\]$",
    ):
        y.sum().backward()
    y = x.cumsum(1)
    with torch.no_grad():
        y.t_()
    with pytest.raises(RuntimeError, match=r"^Function MmBackward0 returned an invalid gradient"):
        (y @ torch.ones(2, 2, dtype=torch.float64)).sum().backward()
    y = x.cumsum(1)
    with torch.no_grad():
        y.as_strided_((1, 3), (3, 1))
    with pytest.raises(RuntimeError, match=r"got \[1, 3\] but expected shape compatible with"):
        (y * 3).sum().backward()


def test_a_root_gradient_is_summed_back_or_refused():
    x = _x()
    y = x.cumsum(1)
    with torch.no_grad():
        y.unsqueeze_(0)
    y.backward(torch.ones(1, 2, 3, dtype=torch.float64))
    assert x.grad.tolist() == [[3.0, 2.0, 1.0], [3.0, 2.0, 1.0]]
    y = x.cumsum(1)
    with torch.no_grad():
        y.t_()
    with pytest.raises(
        RuntimeError, match=r"^invalid gradient at index 0 - got \[3, 2\] but expected shape"
    ):
        y.backward(torch.ones(3, 2, dtype=torch.float64))
    with pytest.raises(RuntimeError, match=r"^invalid gradient at index 1 - got \[3, 2\]"):
        grads = [torch.ones(2, 3, dtype=torch.float64), torch.ones(3, 2, dtype=torch.float64)]
        torch.autograd.backward([x * 2, y], grads)  # (the root's place among the roots)


def test_create_graph_sums_back_differentiably():
    x = _x()
    y = x.cumsum(1)
    with torch.no_grad():
        y.unsqueeze_(0)
    (g,) = torch.autograd.grad((y**2).sum(), x, create_graph=True)
    # y = cumsum(x) along rows: g = reverse_cumsum(2 * cumsum(x))
    assert g.tolist() == [[20.0, 18.0, 12.0], [56.0, 48.0, 30.0]]
    g.sum().backward()
    assert x.grad.tolist() == [[12.0, 10.0, 6.0], [12.0, 10.0, 6.0]]


def test_data_and_set_change_shape_and_dtype():
    x = _x()
    y = x.cumsum(1)
    y.data = torch.ones(1, 2, 3, dtype=torch.float32)
    (y * 3).sum().backward()
    assert x.grad.dtype == torch.float64
    assert x.grad.tolist() == [[9.0, 6.0, 3.0], [9.0, 6.0, 3.0]]
    x = _x()
    y = x.cumsum(1)
    with torch.no_grad():
        y.set_(torch.ones(1, 2, 3, dtype=torch.float64))
    (y * 3).sum().backward()
    assert x.grad.tolist() == [[9.0, 6.0, 3.0], [9.0, 6.0, 3.0]]


def test_hooks_retained_grads_and_autograd_grad_see_the_made_shape():
    x = _x()
    y = x.cumsum(1)
    y.retain_grad()
    seen = []
    with torch.no_grad():
        y.unsqueeze_(0)
    y.register_hook(lambda g: seen.append(tuple(g.shape)))
    (y * 3).sum().backward()
    assert seen == [(2, 3)] and y.grad.shape == (2, 3)
    assert x.grad.tolist() == [[9.0, 6.0, 3.0], [9.0, 6.0, 3.0]]
    y = x.cumsum(1)
    with torch.no_grad():
        y.unsqueeze_(0)
    gy, gx = torch.autograd.grad((y * 3).sum(), [y, x])
    assert gy.shape == (2, 3) and gx.tolist() == [[9.0, 6.0, 3.0], [9.0, 6.0, 3.0]]


def test_a_change_undone_and_a_multi_output_node():
    x = _x()
    y = (x * 1).unsqueeze(0).cumsum(2)
    with torch.no_grad():
        y.squeeze_(0)
        y.unsqueeze_(0)
    (y * 3).sum().backward()
    assert x.grad.tolist() == [[9.0, 6.0, 3.0], [9.0, 6.0, 3.0]]
    x = _x()
    y = x.max(1)[0]
    with torch.no_grad():
        y.unsqueeze_(0)
    (y * 3).sum().backward()
    assert x.grad.tolist() == [[0.0, 0.0, 3.0], [0.0, 0.0, 3.0]]


def test_a_recorded_change_and_a_view_are_not_marked():
    x = _x()
    y = x.cumsum(1)
    y.unsqueeze_(0)  # recorded: y's node is UnsqueezeBackward1, cumsum's keeps its shape
    assert y.grad_fn.name() == "UnsqueezeBackward1"
    assert y.grad_fn.next_functions[0][0]._out_fixed is None
    (y * 3).sum().backward()
    assert x.grad.tolist() == [[9.0, 6.0, 3.0], [9.0, 6.0, 3.0]]
    base = x * 1
    v = base[0]
    with torch.no_grad():
        v.unsqueeze_(0)
    assert base.grad_fn._out_fixed is None


def _leaf():
    return torch.tensor([0.5, -1.0, 2.0], dtype=torch.float64, requires_grad=True)


def test_a_leaf_whose_accumulator_a_graph_holds_gets_gradients_of_its_old_shape():
    b = _leaf()
    kept = b.sigmoid()  # a live graph holds b's accumulator, made for shape (3,)
    b.data = torch.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], dtype=torch.float64)
    b.pow(2).sum().backward()
    # 2 * b summed over the new leading dim to (3,), then copied into b's shape (2, 3)
    assert b.grad.shape == (2, 3)
    assert b.grad.tolist() == [[10.0, 14.0, 18.0], [10.0, 14.0, 18.0]]
    del kept


def test_a_leaf_whose_accumulator_no_graph_holds_gets_a_new_one():
    b = _leaf()
    b.sigmoid().sum().backward()  # the graph is gone after the line
    b.grad = None
    b.data = torch.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], dtype=torch.float64)
    b.pow(2).sum().backward()
    assert b.grad.tolist() == [[2.0, 4.0, 6.0], [8.0, 10.0, 12.0]]


def test_a_leaf_reshaped_under_no_grad_and_one_that_cannot_broadcast():
    b = _leaf()
    t1 = b * 2
    with torch.no_grad():
        b.unsqueeze_(0)
    (t1.sum() + b.sum()).backward()
    assert b.grad.shape == (1, 3) and b.grad.tolist() == [[3.0, 3.0, 3.0]]
    b = _leaf()
    t1 = b * 2
    b.data = torch.ones(2, 2, dtype=torch.float64)
    with pytest.raises(
        RuntimeError,
        match=r"^Function SumBackward0 returned an invalid gradient at index 0 - got \[2, 2\]",
    ):
        (t1.sum() + b.sum()).backward()


def test_a_leaf_that_changes_dtype_gets_a_new_accumulator():
    b = _leaf()
    t1 = b * 2
    b.data = b.data.float()
    (b * 3).sum().backward()
    assert b.grad.dtype == torch.float32 and b.grad.tolist() == [3.0, 3.0, 3.0]
    del t1
