"""Session 39 (helper methwordb): torch-free regression tests of the argument-error wording of
Tensor methods named m-z (tests/reference/test_s39_methwordb_reference.py compares them with
torch); torch's messages are written as literals."""

from __future__ import annotations

import pytest

import minitorch


def _env():
    x = minitorch.arange(12, dtype=minitorch.float64).reshape(3, 4) / 7 + 0.1
    return {
        "x": x,
        "q": x.T.contiguous(),
        "v": minitorch.ones(4, dtype=minitorch.float64),
        "j": minitorch.tensor([0, 2]),
        "torch": minitorch,
    }


CASES = [
    # the ill-typed argument before the missing one (NOTE [ Types before a missing argument ])
    ("x.transpose('a')", "transpose(): argument 'dim0' (position 1) must be int, not str"),
    ("x.transpose(dim1='a')", 'transpose() missing 2 required positional argument: "dim0", '
     '"dim1"'),
    ("torch.transpose(x, 'a')", "transpose(): argument 'dim0' (position 2) must be int, not str"),
    ("x.swapaxes(1.5)", "swapaxes(): argument 'axis0' (position 1) must be int, not float"),
    ("x.select('a')", "select(): argument 'dim' (position 1) must be int, not str"),
    ("torch.select(x, 'a')", "select(): argument 'dim' (position 2) must be int, not str"),
    ("x.select(0)", 'select() missing 1 required positional arguments: "index"'),
    ("x.put('a')", "put(): argument 'index' (position 1) must be Tensor, not str"),
    ("x.put_([])", "put_(): argument 'index' (position 1) must be Tensor, not list"),
    ("x.scatter_add(0, 1.5)", "scatter_add(): argument 'index' (position 2) must be Tensor, "
     "not float"),
    ("x.scatter_add_([])", "scatter_add_(): argument 'dim' (position 1) must be int, not list"),
    ("x.scatter_reduce_(1.5)", "scatter_reduce_(): argument 'dim' (position 1) must be int, "
     "not float"),
    # in-place methods named as called
    ("x.unsqueeze_(1.5)", "unsqueeze_(): argument 'dim' (position 1) must be int, not float"),
    ("x.transpose_(0, 1.5)", "transpose_(): argument 'dim1' (position 2) must be int, not "
     "float"),
    ("x.squeeze_(1.5)", "squeeze_() received an invalid combination of arguments - got (float),"
     " but expected one of:\n * ()\n      didn't match because some of the arguments have "
     "invalid types: (!float!)\n * (int dim)\n      didn't match because some of the arguments "
     "have invalid types: (!float!)\n * (tuple of ints dim)\n      didn't match because some of "
     "the arguments have invalid types: (!float!)\n"),
    ("x.mvlgamma(1.5)", "mvlgamma(): argument 'p' (position 1) must be int, not float"),
    ("x.mvlgamma(p=1.5)", "mvlgamma(): argument 'p' must be int, not float"),
    ("x.mvlgamma_(1.5)", "mvlgamma_(): argument 'p' (position 1) must be int, not float"),
    ("torch.mvlgamma(x, 1.5)", "mvlgamma(): argument 'p' (position 2) must be int, not float"),
    # the deprecated number-first overloads given too many arguments
    ("x.sub(x, 1, 2)", "sub() received an invalid combination of arguments - got (Tensor, !int!,"
     " !int!), but expected (Tensor other, *, Number alpha = 1)"),
    ("x.sub_(0, 0, 0, 0)", "sub_() received an invalid combination of arguments - got (int, int,"
     " int, int), but expected (Tensor other, *, Number alpha = 1)"),
    ("x.addcmul_(1, x, x, x)", "addcmul_() received an invalid combination of arguments - got "
     "(!int!, Tensor, !Tensor!, !Tensor!), but expected (Tensor tensor1, Tensor tensor2, *, "
     "Number value = 1)"),
    # tensors checked before shapes
    ("q.orgqr('a')", "orgqr(): argument 'input2' (position 1) must be Tensor, not str"),
    ("torch.orgqr(q, 'a')", "orgqr(): argument 'input2' (position 2) must be Tensor, not str"),
    ("q.ormqr(v[:3], 'a')", "ormqr(): argument 'input3' (position 2) must be Tensor, not str"),
    ("torch.linalg.householder_product(q, 'a')", "linalg_householder_product(): argument 'tau' "
     "(position 2) must be Tensor, not str"),
    ("x.slice_scatter('a')", "slice_scatter(): argument 'src' (position 1) must be Tensor, not "
     "str"),
    ("torch.slice_scatter(x, 'a')", "slice_scatter(): argument 'src' (position 2) must be "
     "Tensor, not str"),
    # sizes
    ("x.split_with_sizes(1.5)", "split_with_sizes(): argument 'split_sizes' (position 1) must be"
     " tuple of ints, not float"),
    ("x.unsafe_split_with_sizes('a')", "unsafe_split_with_sizes(): argument 'split_sizes' "
     "(position 1) must be tuple of ints, not str"),
    ("x.sum_to_size('a')", "sum_to_size(): argument 'size' (position 1) must be tuple of ints, "
     "not str"),
    ("x.sum_to_size([1.5])", "sum_to_size(): argument 'size' (position 1) must be tuple of ints,"
     " but found element of type float at pos 0"),
    ("x.sum_to_size(1, 1.5)", "sum_to_size(): argument 'size' failed to unpack the object at pos"
     ' 2 with error "type must be tuple of ints,but got float"'),
    ("x.sum_to_size(1.5, 1)", "sum_to_size() takes 1 positional argument but 2 were given"),
    ("x.unsafe_chunk(1.5)", "unsafe_chunk(): argument 'chunks' (position 1) must be int, not "
     "float"),
    ("x.unsafe_split(1.5)", "unsafe_split(): argument 'split_size' (position 1) must be int, "
     "not float"),
    # listed overloads
    ("x.set_('a')", "set_() received an invalid combination of arguments - got (str), but "
     "expected one of:\n * ()\n      didn't match because some of the arguments have invalid "
     "types: (!str!)\n * (torch.Storage source)\n      didn't match because some of the "
     "arguments have invalid types: (!str!)\n * (torch.Storage source, int storage_offset, tuple "
     "of ints size, tuple of ints stride = None)\n * (Tensor source)\n      didn't match because"
     " some of the arguments have invalid types: (!str!)\n * (Tensor source, int storage_offset,"
     " tuple of ints size, tuple of ints stride = None)\n"),
    ("x.set_(x, 'a', (2,))", "set_() received an invalid combination of arguments - got (Tensor,"
     " str, tuple), but expected one of:\n * ()\n * (torch.Storage source)\n * (torch.Storage "
     "source, int storage_offset, tuple of ints size, tuple of ints stride = None)\n * (Tensor "
     "source)\n * (Tensor source, int storage_offset, tuple of ints size, tuple of ints stride "
     "= None)\n"),
    ("x.new(foo=1)", "new() received an invalid combination of arguments - got (foo=int, ), but "
     "expected one of:\n * (*, torch.device device = None)\n * (torch.Storage storage)\n      "
     "didn't match because some of the keywords were incorrect: foo\n * (Tensor other)\n      "
     "didn't match because some of the keywords were incorrect: foo\n * (tuple of ints size, *,"
     " torch.device device = None)\n * (object data, *, torch.device device = None)\n"),
    ("x.random_(1.5)", "random_() received an invalid combination of arguments - got (float), "
     "but expected one of:\n * (*, torch.Generator generator = None)\n * (int from, int to, *, "
     "torch.Generator generator = None)\n * (int to, *, torch.Generator generator = None)\n"),
    ("x.random_(0, 1.5)", "random_() received an invalid combination of arguments - got (int, "
     "float), but expected one of:\n * (*, torch.Generator generator = None)\n      didn't match"
     " because some of the arguments have invalid types: (!int!, !float!)\n * (int from, int to,"
     " *, torch.Generator generator = None)\n * (int to, *, torch.Generator generator = None)\n"),
    ("x.random_(0, 1, 2)", "random_() takes 2 positional arguments but 3 were given"),
    ("x.random_(1, foo=2)", "random_() received an invalid combination of arguments - got (int, "
     "foo=int), but expected one of:\n * (*, torch.Generator generator = None)\n      didn't "
     "match because some of the keywords were incorrect: foo\n * (int from, int to, *, "
     "torch.Generator generator = None)\n * (int to, *, torch.Generator generator = None)\n"),
    ("x.max(foo=1)", "max() received an invalid combination of arguments - got (foo=int, ), but"
     " expected one of:\n * ()\n      didn't match because some of the keywords were incorrect:"
     " foo\n * (Tensor other)\n      didn't match because some of the keywords were incorrect: "
     "foo\n * (int dim, bool keepdim = False)\n"),
    ("x.min(v, foo=1)", "min(): argument 'dim' (position 1) must be int, not Tensor"),
    ("x.min(foo=1, bar=2)", 'min() missing 1 required positional arguments: "dim"'),
    # device and dtype arguments
    ("x.pin_memory(1.5)", "pin_memory(): argument 'device' (position 1) must be torch.device, "
     "not float"),
    ("x.pin_memory(device=[])", "pin_memory(): argument 'device' must be torch.device, not list"),
    ("x.to_dense('a')", "to_dense(): argument 'dtype' (position 1) must be torch.dtype, not str"),
]  # fmt: skip


@pytest.mark.parametrize("code, message", CASES, ids=[c for c, _ in CASES])
def test_argument_error_wording(code, message):
    with pytest.raises(TypeError) as info:
        eval(code, _env())  # noqa: S307 - the user's call, compiled as written
    assert str(info.value) == message


def test_correct_calls_still_work():
    env = _env()
    x = env["x"]
    assert x.sum_to_size(1, 4).shape == (1, 4)
    assert x.sum_to_size((3, 1)).shape == (3, 1)
    assert [t.shape[0] for t in x.split_with_sizes([1, 2])] == [1, 2]
    assert [t.shape[0] for t in x.unsafe_split(2)] == [2, 1]
    assert [t.shape[0] for t in x.unsafe_chunk(minitorch.tensor(2))] == [2, 1]
    assert x.to_dense(float).dtype is minitorch.float64
    assert x.to_dense(minitorch.float32).dtype is minitorch.float32
    g = minitorch.Generator().manual_seed(0)
    r = minitorch.empty(50, dtype=minitorch.float64).random_(0, 5, generator=g)
    assert 0 <= float(r.min()) and float(r.max()) < 5
    assert float(r.random_(3, None, generator=g).min()) >= 3  # (from, to=None: to the dtype's top)
    assert x.transpose(0, 1).shape == (4, 3) and x.select(0, 1).shape == (4,)
    y = x.clone().set_(x, 2, (2,))
    assert y.tolist() == x.flatten()[2:4].tolist()
    with pytest.raises(RuntimeError, match="random_ expects 'from' to be less than 'to'"):
        x.clone().random_(5, 0)  # (int bounds pass the overload check: the value check runs)
