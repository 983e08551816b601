"""A second backward through an op that reads an index raises, as torch's (which saved the index
as a tensor and freed it): NOTE [ Watched index tensors ]."""

import pytest

import minitorch
import minitorch.nn.functional as F

_X = minitorch.arange(6.0).reshape(2, 3)
_I = minitorch.tensor([1, 0])
_COL = minitorch.tensor([[0], [2]])


def _setitem(x):
    y = x * 1
    y[_I] = 5.0
    return y.sum()


CASES = {
    "index_tensor": lambda x: x[_I].sum(),
    "index_list": lambda x: x[[1, 0]].sum(),
    "index_mask": lambda x: x[x > 2].sum(),
    "gather": lambda x: x.gather(1, _COL).sum(),
    "index_select": lambda x: x.index_select(1, _I).sum(),
    "take": lambda x: x.take(_I).sum(),
    "take_along_dim": lambda x: minitorch.take_along_dim(x, _COL, 1).sum(),
    "masked_select": lambda x: x.masked_select(x > 2).sum(),
    "sort": lambda x: x.sort(1).values.sum(),
    "topk": lambda x: x.topk(2).values.sum(),
    "kthvalue": lambda x: x.kthvalue(2, 1).values.sum(),
    "max_dim": lambda x: x.max(1).values.sum(),
    "median_dim": lambda x: x.median(1).values.sum(),
    "cummax": lambda x: x.cummax(1).values.sum(),
    "embedding": lambda x: F.embedding(_I, x).sum(),
    "max_pool1d": lambda x: F.max_pool1d(x[None], 2).sum(),
    "scatter_add": lambda x: minitorch.zeros(2, 3).scatter_add(1, _COL, x[:, :1]).sum(),
    "index_add": lambda x: minitorch.zeros(2, 3).index_add(1, _I, x[:, :2]).sum(),
    "setitem": _setitem,
}


@pytest.mark.parametrize("name", list(CASES))
def test_second_backward_raises(name):
    x = _X.clone().requires_grad_()
    loss = CASES[name](x)
    loss.backward()
    first = x.grad.clone()
    with pytest.raises(RuntimeError, match="backward through the graph a second time"):
        loss.backward()
    assert minitorch.equal(x.grad, first)  # nothing was added before the error


@pytest.mark.parametrize("name", ["index_tensor", "index_list", "sort", "max_pool1d", "gather"])
def test_retain_graph_allows_a_second_backward(name):
    x = _X.clone().requires_grad_()
    loss = CASES[name](x)
    loss.backward(retain_graph=True)
    first = x.grad.clone()
    loss.backward()
    assert minitorch.equal(x.grad, 2 * first)


def test_ops_that_keep_nothing_still_run_twice():
    # a select, a sum and an unfold save no tensor in torch either: two backwards add up
    x = _X.clone().requires_grad_()
    loss = x[0].sum() + x.unfold(1, 2, 1).sum()
    loss.backward()
    loss.backward()
    assert minitorch.equal(x.grad, 2 * minitorch.tensor([[2.0, 3.0, 2.0], [1.0, 2.0, 1.0]]))
