"""Sweep 7: tensordot's dims checks and broadcasting, einsum's and block_diag's argument errors."""

from __future__ import annotations

import numpy as np
import pytest

import minitorch as mt
from minitorch.autograd import gradcheck, gradgradcheck

_RANGE = r"Dimension out of range \(expected to be in range of \[-2, 1\], but got {}\)"


def _sq():
    return mt.arange(9.0).reshape(3, 3)


@pytest.mark.parametrize(
    "dims, bad", [(([2], [0]), 2), (([0], [2]), 2), (([-3], [0]), -3), (([1], [5]), 5)]
)
def test_tensordot_out_of_range_dim_raises(dims, bad):
    with pytest.raises(IndexError, match=_RANGE.format(bad)):
        mt.tensordot(_sq(), _sq(), dims=dims)


def test_tensordot_dims_of_a_0d_tensor():
    with pytest.raises(IndexError, match="Dimension specified as 0 but tensor has no dimensions"):
        mt.tensordot(mt.tensor(2.0), mt.tensor(2.0), dims=([0], [0]))


def test_tensordot_negative_dims_and_int_dims_bounds():
    a, b = _sq(), _sq()
    np.testing.assert_allclose(
        mt.tensordot(a, b, dims=([-1], [-2])).numpy(), a.numpy() @ b.numpy(), err_msg="neg"
    )
    with pytest.raises(RuntimeError, match="expects dims < ndim_a or ndim_b, but got dims=3"):
        mt.tensordot(a, b, dims=3)
    with pytest.raises(RuntimeError, match="expects dims >= 0, but got dims=-1"):
        mt.tensordot(a, b, dims=-1)
    # a Tensor count means negative dims of a, with no separate bound
    with pytest.raises(IndexError, match=_RANGE.format(-3)):
        mt.tensordot(a, b, dims=mt.tensor(3))


@pytest.mark.parametrize(
    "dims, d", [(([0, 0], [0, 1]), 0), (([0, 1], [1, 1]), 1), (([1, -1], [0, 1]), 1)]
)
def test_tensordot_repeated_dim_raises(dims, d):
    a = mt.arange(4.0).reshape(2, 2)
    with pytest.raises(RuntimeError, match=f"dim {d} appears multiple times in the list of dims"):
        mt.tensordot(a, a, dims=dims)


def test_tensordot_range_checked_before_repeats_and_bool():
    a = _sq()
    with pytest.raises(IndexError, match=_RANGE.format(2)):
        mt.tensordot(a, a, dims=([0, 2], [0, 0]))
    with pytest.raises(IndexError, match=_RANGE.format(5)):
        mt.tensordot(a.bool(), a.bool(), dims=([5], [0]))


def test_tensordot_size_mismatch_names_the_dims_as_given():
    a, c = _sq(), mt.arange(6.0).reshape(3, 2)
    msg = "contracted dimensions need to match, but first has size 3 in dim -2 and second has "
    with pytest.raises(RuntimeError, match=msg + "size 2 in dim -1"):
        mt.tensordot(a, c, dims=([-2], [-1]))
    with pytest.raises(RuntimeError, match="size 3 in dim -1 and second has size 2 in dim 0"):
        mt.tensordot(mt.ones(2, 3), mt.ones(2, 4), dims=1)
    with pytest.raises(RuntimeError, match="both dimension lists should have same length"):
        mt.tensordot(a, a, dims=([0, 1], [0]))
    with pytest.raises(RuntimeError, match="both inputs should have same dtype"):
        mt.tensordot(a, a.double(), dims=([0], [0]))


def test_tensordot_size_one_contracted_dim_broadcasts():
    a = np.arange(6.0).reshape(3, 2)
    b1 = np.arange(4.0).reshape(1, 4)
    out = mt.tensordot(mt.tensor(a), mt.tensor(b1), dims=([0], [0]))
    np.testing.assert_allclose(out.numpy(), np.outer(a.sum(0), b1[0]), err_msg="b size 1")
    a1 = np.arange(4.0).reshape(4, 1)
    out = mt.tensordot(mt.tensor(a1), mt.tensor(a), dims=([1], [0]))
    np.testing.assert_allclose(out.numpy(), np.outer(a1[:, 0], a.sum(0)), err_msg="a size 1")
    rng = np.random.default_rng(0)
    x = mt.tensor(rng.standard_normal((3, 2)), requires_grad=True)
    y = mt.tensor(rng.standard_normal((2, 1, 4)), requires_grad=True)

    def f(x, y):
        return mt.tensordot(x, y, dims=([0, 1], [1, 0]))

    assert f(x, y).shape == (4,)
    assert gradcheck(f, (x, y))
    assert gradgradcheck(f, (x, y))


@pytest.mark.parametrize("dims", [None, 1.0, "ab", np.int64(1)])
def test_tensordot_dims_of_a_wrong_kind(dims):
    x = mt.ones(2, 3)
    with pytest.raises(RuntimeError, match=r"tensordot expects dims to be int or tuple\[list"):
        mt.tensordot(x, x.T, dims=dims)


def test_tensordot_dims_list_elements():
    a = mt.ones(2, 3)
    with pytest.raises(TypeError, match="found element of type float at pos 0"):
        mt.tensordot(a, a.T, dims=([1.0], [0]))
    with pytest.raises(
        TypeError, match=r"'dims_self' \(position 3\) must be tuple of ints, not set"
    ):
        mt.tensordot(a, a.T, dims=({1}, [0]))
    out = mt.tensordot(a, a.T, dims=([mt.tensor(1)], [np.int64(0)]))
    np.testing.assert_allclose(out.numpy(), np.full((2, 2), 3.0), err_msg="int-like dims")


_NO_OPERANDS = "must specify the equation string and at least one operand"


@pytest.mark.parametrize(
    "args",
    [("ij",), (), ("ij", []), ("ij", ()), (mt.ones(2, 3),)],
    ids=["eq", "none", "l", "t", "x"],
)
def test_einsum_without_operands_is_a_value_error(args):
    with pytest.raises(ValueError, match=_NO_OPERANDS):
        mt.einsum(*args)


@pytest.mark.parametrize("eq, name", [(1, "int"), (None, "NoneType"), (["ij"], "list")])
def test_einsum_equation_must_be_str(eq, name):
    with pytest.raises(TypeError, match=rf"'equation' \(position 1\) must be str, not {name}$"):
        mt.einsum(eq, mt.ones(2, 3))


def test_einsum_operands_must_be_tensors_and_bytes_equation():
    x = mt.ones(2, 3)
    with pytest.raises(
        TypeError, match="expected Tensor as element 1 in argument 1, but got float"
    ):
        mt.einsum("i1", x, 1.0)  # the arguments are checked before the equation is read
    with pytest.raises(TypeError, match="expected Tensor as element 1 in argument 1, but got list"):
        mt.einsum("ij,jk", [x, [1.0]])
    assert mt.einsum(b"ij->j", x).tolist() == [2.0, 2.0, 2.0]


@pytest.mark.parametrize(
    "eq, n, msg",
    [
        ("ij->j->i", 1, "invalid subscript given at index 5"),
        ("ij-j", 1, "invalid subscript given at index 2"),
        ("ij->i,j", 1, "invalid subscript given at index 5"),
        ("i j -> j 1", 1, "invalid subscript given at index 9"),  # spaces count
        ("ij- >j", 1, "invalid subscript given at index 2"),
        ("i1,j", 1, "invalid subscript given at index 1"),  # before the operand count
        ("i,j1", 1, "fewer operands were provided"),
        ("i1", 2, "invalid subscript given at index 1"),
        ("ij->j1", 2, "more operands were provided"),
        ("i.j1", 1, "found '.' for operand 0 that is not part of any ellipsis"),
        ("ijk->1", 1, r"the number of subscripts in the equation \(3\) does not match"),
        ("ij->jj1", 1, "output subscript j appears more than once"),
        ("ij->k1", 1, "output subscript k does not appear in the equation"),
    ],
)
def test_einsum_equation_errors_in_torch_order(eq, n, msg):
    with pytest.raises(RuntimeError, match=msg):
        mt.einsum(eq, *[mt.ones(2, 3)] * n)


def test_einsum_sublists_map_like_torch():
    x = mt.tensor(np.arange(6.0).reshape(2, 3))
    # 0-25 are A-Z and 26-51 a-z, so the implicit output lists the numbers in order
    np.testing.assert_allclose(mt.einsum(x, [30, 0]).numpy(), x.numpy().T, err_msg="order")
    with pytest.raises(RuntimeError, match="subscript B has size 2 for operand 1"):
        mt.einsum(x, [0, 1], x, [1, 2])
    with pytest.raises(ValueError, match=r"not within the valid range \[0, 52\)"):
        mt.einsum(x, [0, 52])
    with pytest.raises(TypeError, match="'float' object cannot be interpreted as an integer"):
        mt.einsum(x, [0, 1.5])


def test_block_diag_refuses_non_tensors():
    with pytest.raises(TypeError, match="expected Tensor as element 0 in argument 0, but got list"):
        mt.block_diag([1.0, 2.0])
    with pytest.raises(TypeError, match="element 1 in argument 0, but got float"):
        mt.block_diag(mt.ones(2, 2, 2), 1.0)  # before the ndim check of element 0
