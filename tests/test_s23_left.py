"""Session 23 leftovers: grad_fn names, untracked logical in-place ops, type names in errors,
multinomial of no categories, tensor() of mixed data, factories' out=, Size, return types.
Expected values are torch 2.13's, obtained by running it."""

import collections
import warnings

import numpy as np
import pytest

import minitorch as torch
from minitorch.autograd import gradcheck, gradgradcheck


class NT:
    pass


def _x(shift=1.5, n=3):
    g = torch.Generator().manual_seed(0)
    return (torch.rand(n, dtype=torch.float64, generator=g) + shift).requires_grad_()


def _names(fn):
    return [None if f is None else type(f).__name__ for f, _ in fn.next_functions]


# --- 1. grad_fn names ---


@pytest.mark.parametrize(
    "op,node,shift", [("acosh_", "AcoshBackward1", 1.5), ("asinh_", "AsinhBackward1", 1.5),
                      ("atanh_", "AtanhBackward1", -0.5)]
)  # fmt: skip
def test_inverse_hyperbolic_inplace_nodes(op, node, shift):
    x = _x(shift)
    a = x * 1
    getattr(a, op)()
    assert type(a.grad_fn).__name__ == node
    assert _names(a.grad_fn) == ["MulBackward0"]
    b = x * 1
    getattr(b[:2], op)()
    assert type(b.grad_fn).__name__ == "CopySlices"
    # minitorch computes the gradient (torch's node raises NotImplementedError)
    assert gradcheck(lambda t: getattr(t * 1, op)(), (x,))
    assert gradgradcheck(lambda t: getattr(t * 1, op)(), (x,))


def test_conj_physical_inplace_node():
    x = _x()
    a = x * 1
    a.conj_physical_()
    assert type(a.grad_fn).__name__ == "ConjPhysicalBackward1"
    assert _names(a.grad_fn) == ["MulBackward0"]
    assert a._version == 1
    a.sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [1.0, 1.0, 1.0])
    with pytest.raises(RuntimeError, match="a leaf Variable that requires grad"):
        x.conj_physical_()


def test_fill_nodes():
    x = _x()
    r = torch.fill(x, 2.0)
    assert type(r.grad_fn).__name__ == "FillBackward0"
    assert _names(r.grad_fn) == ["AccumulateGrad"]
    v = torch.tensor(2.0, dtype=torch.float64, requires_grad=True)
    r = torch.fill(x, v)
    assert type(r.grad_fn).__name__ == "FillBackward1"
    assert _names(r.grad_fn) == ["AccumulateGrad", "AccumulateGrad"]
    assert _names(torch.fill(x.detach(), v).grad_fn) == [None, "AccumulateGrad"]
    r.sum().backward()
    assert v.grad.item() == 3.0
    np.testing.assert_array_equal(x.grad.numpy(), [0.0, 0.0, 0.0])
    with pytest.raises(TypeError, match=r"got \(Tensor, NoneType\)"):
        torch.fill(x, None)


def test_fill_diagonal_node():
    g = torch.Generator().manual_seed(0)
    m = torch.rand(3, 3, dtype=torch.float64, generator=g, requires_grad=True)
    b = m * 1
    b.fill_diagonal_(2.0)
    assert type(b.grad_fn).__name__ == "CopySlices"
    assert _names(b.grad_fn) == ["MulBackward0"]
    b.sum().backward()
    np.testing.assert_array_equal(m.grad.numpy(), 1 - np.eye(3))
    v = torch.tensor(2.0, requires_grad=True)
    with pytest.raises(TypeError, match="'fill_value' \\(position 1\\) must be Number, not Tensor"):
        (m * 1).fill_diagonal_(v)


def test_trapezoid_nodes():
    x = _x()
    assert type(torch.trapezoid(x).grad_fn).__name__ == "MulBackward1"
    assert type(torch.trapz(x, dx=2.0).grad_fn).__name__ == "MulBackward1"
    pts = torch.arange(3.0, dtype=torch.float64)
    r = torch.trapezoid(x, pts)
    assert type(r.grad_fn).__name__ == "DivBackward1"
    assert _names(r.grad_fn.next_functions[0][0].next_functions[0][0]) == ["AddBackward0", None]
    c = torch.cumulative_trapezoid(x, x * 2)
    assert type(c.grad_fn).__name__ == "DivBackward1"
    assert type(torch.cumulative_trapezoid(x).grad_fn).__name__ == "CumsumBackward0"
    e = torch.trapezoid(x[:0])
    assert e.grad_fn is None and not e.requires_grad
    y = torch.tensor([1.0, 2.0, 4.0], dtype=torch.float64)
    assert torch.trapezoid(y, torch.tensor([0.0, 1.0, 3.0], dtype=torch.float64)).item() == 7.5
    assert gradcheck(lambda t: torch.trapezoid(t, dx=0.5), (x,))


# --- 2. logical in-place ops record nothing ---


@pytest.mark.parametrize("op", ["logical_and_", "logical_or_", "logical_xor_", "logical_not_"])
def test_logical_inplace_untracked(op):
    x = _x()
    a = x * 2
    args = () if op == "logical_not_" else (a > 2.0,)
    getattr(a, op)(*args)
    assert type(a.grad_fn).__name__ == "MulBackward0" and a.requires_grad
    assert a._version == 1
    (g,) = torch.autograd.grad(a.sum(), x)
    np.testing.assert_array_equal(g.numpy(), [2.0, 2.0, 2.0])  # as torch: the old graph
    b = x * 1
    getattr(b[:2], op)(*(() if op == "logical_not_" else (b[:2] > 2.0,)))
    assert type(b.grad_fn).__name__ == "MulBackward0"


def test_logical_inplace_leaf_and_other():
    x = _x()
    x.logical_not_()  # torch allows it on a leaf that requires grad
    assert x.grad_fn is None and x.requires_grad and x._version == 1
    y = _x().detach().clone()
    y.logical_and_(_x())
    assert not y.requires_grad


# --- 3. type names in stack/cat errors ---


def test_stack_cat_type_names():
    t = torch.zeros(2)
    for f in ("stack", "cat", "hstack", "vstack", "dstack", "column_stack"):
        with pytest.raises(
            TypeError, match=r"^expected Tensor as element 1 in argument 0, but got NT$"
        ):
            getattr(torch, f)([t, NT()])
        with pytest.raises(TypeError, match=r"must be tuple of Tensors, not NT$"):
            getattr(torch, f)(NT())
    with pytest.raises(TypeError, match=r"but got collections.OrderedDict$"):
        torch.stack([t, collections.OrderedDict()])
    for f in ("concat", "concatenate", "row_stack"):
        with pytest.raises(TypeError, match=rf"^{f}\(\): argument 'tensors' \(position 1\)"):
            getattr(torch, f)(NT())
    np.testing.assert_array_equal(torch.concat([t, t]).numpy(), np.zeros(4))


# --- 4. multinomial of no categories ---


def test_multinomial_no_categories():
    for shape in [(0,), (2, 0)]:
        with pytest.raises(RuntimeError, match=r"^aminmax\(\): cannot compute aminmax over an"):
            torch.multinomial(torch.zeros(shape), 1, replacement=True)
        with pytest.raises(RuntimeError, match="sum of probabilities <= 0"):
            torch.multinomial(torch.zeros(shape), 2, replacement=True)
        with pytest.raises(RuntimeError, match="without replacement"):
            torch.multinomial(torch.zeros(shape), 1)
    r = torch.multinomial(torch.zeros(0, 0), 2, replacement=True)
    assert r.shape == (0, 2) and r.dtype == torch.int64
    with pytest.raises(RuntimeError, match="without replacement"):
        torch.multinomial(torch.zeros(0, 0), 1)


# --- 5. tensor() of mixed data ---


@pytest.mark.parametrize(
    "data,kwargs,exc,msg",
    [
        ([0.5, None], {"dtype": torch.float64}, TypeError, "must be real number, not NoneType"),
        ([1, None], {"dtype": torch.int64}, TypeError,
         "'NoneType' object cannot be interpreted as an integer"),
        ([2, -3, (), 2], {}, TypeError, "must be real number, not tuple"),
        ([2, -3, [], 2], {}, TypeError, "must be real number, not list"),
        ([1, np.zeros(2)], {}, TypeError,
         "only 0-dimensional arrays can be converted to Python scalars"),
        ([1, np.zeros(2, dtype=np.int64)], {}, TypeError,
         "only integer scalar arrays can be converted to a scalar index"),
        ([1, collections.OrderedDict()], {}, RuntimeError,
         "Could not infer dtype of collections.OrderedDict"),
        ([1, collections.OrderedDict()], {"dtype": torch.int64}, TypeError,
         "'collections.OrderedDict' object cannot be interpreted as an integer"),
        ([1, NT()], {"dtype": torch.float32}, TypeError, "must be real number, not NT"),
        ([1, "2"], {"dtype": torch.float32}, TypeError, "must be real number, not str"),
        ([1, "2"], {"dtype": torch.int64}, TypeError,
         "'str' object cannot be interpreted as an integer"),
        ([(1,), None], {}, RuntimeError, "Could not infer dtype of NoneType"),
    ],
)  # fmt: skip
def test_tensor_mixed_data_errors(data, kwargs, exc, msg):
    for f in (torch.tensor, torch.as_tensor):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            with pytest.raises(exc) as info:
                f(data, **kwargs)
        assert str(info.value) == msg


def test_tensor_mixed_data_values():
    class F:
        def __float__(self):
            return 2.5

    class I:  # noqa: E742
        def __index__(self):
            return 3

    r = torch.tensor([1, F()], dtype=torch.float32)
    assert r.dtype == torch.float32 and r.tolist() == [1.0, 2.5]
    assert torch.tensor([1, I()], dtype=torch.int64).tolist() == [1, 3]
    assert torch.tensor([1, I()], dtype=torch.float32).tolist() == [1.0, 3.0]
    e = torch.tensor([(), 2])  # no element is stored: nothing to refuse
    assert e.shape == (2, 0) and e.dtype == torch.float32
    assert torch.tensor([[], [1]]).shape == (2, 0)
    assert torch.tensor([np.zeros(0), 2]).dtype == torch.float64
    with pytest.raises(RuntimeError, match="Could not infer dtype of NoneType"):
        torch.tensor([[], None])


# --- 6. factories with out= ---


def test_arange_out_resize_warning():
    out = torch.zeros(3)
    with pytest.warns(UserWarning) as rec:
        torch.arange(5, out=out)
    assert str(rec[0].message) == (
        "The number of elements in the out tensor of shape [3] is 3 which does not match the "
        "computed number of elements 5. Note that this may occur as a result of rounding error. "
        "The out tensor will be resized to a tensor of shape (5,)."
    )
    assert out.tolist() == [0.0, 1.0, 2.0, 3.0, 4.0]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        torch.arange(5, out=torch.zeros(0))  # an empty out resizes silently
        torch.linspace(0, 4, 5, out=torch.zeros(3))  # only arange warns
        assert torch.arange(6, out=torch.zeros(2, 3)).shape == (2, 3)


def test_factories_expanded_out():
    overlap = "more than one element of the written-to tensor refers to a single memory location"
    for f in (lambda o: torch.arange(3, out=o), lambda o: torch.linspace(0, 1, 3, out=o),
              lambda o: torch.logspace(0, 1, 3, out=o)):  # fmt: skip
        with pytest.raises(RuntimeError, match=overlap):
            f(torch.zeros(1).expand(3))
    base = torch.zeros(1)
    torch.full((3,), 2.0, out=base.expand(3))
    assert base.tolist() == [2.0]
    base = torch.zeros(1)
    torch.ones(3, out=base.expand(3))
    assert base.tolist() == [1.0]
    assert torch.eye(2, 3, out=torch.zeros(1).expand(2, 3)).tolist() == [[1.0] * 3] * 2
    assert torch.zeros(2, out=torch.zeros(1).expand(3)).tolist() == [0.0, 0.0]


def test_factories_out_requires_grad():
    for f in (lambda o, **k: torch.arange(3.0, out=o, **k),
              lambda o, **k: torch.zeros(3, out=o, **k),
              lambda o, **k: torch.full((3,), 2.0, out=o, **k),
              lambda o, **k: torch.eye(3, out=o, **k)):  # fmt: skip
        with torch.no_grad():
            o = torch.zeros(3).requires_grad_()
            assert not f(o).requires_grad  # reset, as torch's requires_grad=False sets it
            o = torch.zeros(3).requires_grad_()
            assert f(o, requires_grad=True).requires_grad
        assert f(torch.zeros(3), requires_grad=True).requires_grad
        x = torch.zeros(3, requires_grad=True)
        y = x * 1
        with torch.no_grad():
            assert f(y).requires_grad  # a non-leaf keeps its flag
    with pytest.raises(RuntimeError, match="^cannot resize variables that require grad$"):
        torch.empty(3, out=torch.zeros(3, requires_grad=True))


# --- 7. torch.Size ---


def test_size_overflow_and_arguments():
    for v in (2**63, -(2**63) - 1, 2**64):
        with pytest.raises(ValueError, match="^Overflow when unpacking long long$"):
            torch.Size([v])
        with pytest.raises(ValueError, match="^Overflow when unpacking long long$"):
            torch.Size((v,))
    assert torch.Size([2**63 - 1]) == (2**63 - 1,)
    with pytest.raises(TypeError, match=r"^tuple\(\) takes no keyword arguments$"):
        torch.Size(sizes=[1])
    with pytest.raises(TypeError, match="^tuple expected at most 1 argument, got 3$"):
        torch.Size([1], [2], [3])
    with pytest.raises(TypeError, match=r"\(item 0 is 'numpy.float64'\)"):
        torch.Size([np.float64(3)])


def test_size_operators():
    s = torch.Size([2])
    cases = [
        (lambda: s + [3], "can only concatenate tuple (not list) to torch.Size"),
        (lambda: s + 3, "can only concatenate tuple (not int) to torch.Size"),
        (lambda: s + None, "can only concatenate tuple (not NoneType) to torch.Size"),
        (lambda: [3] + s, 'can only concatenate list (not "torch.Size") to list'),
        (lambda: "a" + s, 'can only concatenate str (not "torch.Size") to str'),
        (lambda: 3 + s, "unsupported operand type(s) for +: 'int' and 'torch.Size'"),
        (lambda: s * s, "can't multiply sequence by non-int of type 'torch.Size'"),
        (lambda: s * 2.5, "can't multiply sequence by non-int of type 'float'"),
        (lambda: 2.5 * s, "can't multiply sequence by non-int of type 'float'"),
        (lambda: format(s, "d"), "unsupported format string passed to torch.Size.__format__"),
    ]
    for f, msg in cases:
        with pytest.raises(TypeError) as info:
            f()
        assert str(info.value) == msg
    assert (3,) + s == (3, 2) and type((3,) + s) is torch.Size
    assert s * np.int64(2) == (2, 2)
    assert format(s, "") == "torch.Size([2])"
    np.testing.assert_array_equal(s + np.array([3]), [5])


def test_size_numel_wraps():
    assert torch.Size([2**40, 2**40]).numel() == 0
    assert torch.Size([2**62, 4]).numel() == 0
    assert torch.Size([2**62, 2]).numel() == -(2**63)
    assert torch.Size([-1, 3]).numel() == -3
    assert torch.Size([]).numel() == 1


# --- 8. Parameter repr, return types ---


def test_parameter_repr_takes_no_tensor_contents():
    p = torch.nn.Parameter(torch.ones(2))
    with pytest.raises(TypeError, match="unexpected keyword argument 'tensor_contents'"):
        p.__repr__(tensor_contents="x")
    assert repr(p) == "Parameter containing:\ntensor([1., 1.], requires_grad=True)"


def test_return_type_attribute_errors():
    r = torch.max(torch.tensor([[1.0, 2.0]]), 1)
    with pytest.raises(AttributeError) as info:
        r.foo  # noqa: B018
    assert str(info.value) == "'torch.return_types.max' object has no attribute 'foo'"
    with pytest.raises(AttributeError, match="^readonly attribute$"):
        r.values = 1
    with pytest.raises(AttributeError, match="^readonly attribute$"):
        del r.values
    with pytest.raises(AttributeError, match="'torch.return_types.max' object attribute 'n_f"):
        r.n_fields = 1
    with pytest.raises(AttributeError, match="'torch.return_types.max' object has no attrib"):
        r.foo = 1
    out = (torch.empty(1), torch.empty(1, dtype=torch.int64))
    r = torch.max(torch.tensor([[1.0, 2.0]]), 1, out=out)
    with pytest.raises(AttributeError, match="^'torch.return_types.max_out' object has no"):
        r.foo  # noqa: B018
    assert r.values.tolist() == [2.0]
