"""Sweep 8 odds and ends: NumPy argument aliases only where torch's parser gives them, ints
beyond a Scalar in fill values, C++ node names."""

import pickle

import pytest

import minitorch as torch


def test_python_level_functions_take_no_numpy_aliases():
    # torch writes norm/split/unique/unique_consecutive in Python, past its argument parser
    x = torch.ones(4, 3)
    for call in (
        lambda: torch.norm(x, dim=1, keepdims=True),
        lambda: torch.norm(x, axis=1),
        lambda: x.norm(dim=1, keepdims=True),
        lambda: torch.split(x, 1, axis=0),
        lambda: x.split(1, axis=0),
        lambda: torch.unique(x, axis=0),
        lambda: x.unique(axis=0),
        lambda: torch.unique_consecutive(x, axis=0),
    ):
        with pytest.raises(TypeError, match="unexpected keyword argument"):
            call()
    assert x.sum(axis=1, keepdims=True).shape == (4, 1)  # parsed functions keep them


def test_linalg_norms_take_numpy_aliases():
    x = torch.arange(12.0).reshape(4, 3)
    assert torch.linalg.norm(x, axis=0).tolist() == torch.linalg.norm(x, dim=0).tolist()
    assert torch.linalg.vector_norm(x, dim=0, keepdims=True).shape == (1, 3)
    assert torch.linalg.matrix_norm(x, axis=(0, 1), keepdims=True).shape == (1, 1)
    assert torch.linalg.vecdot(x, x, axis=0).tolist() == (x * x).sum(0).tolist()
    a = torch.eye(3)
    assert (
        torch.linalg.cross(a, a.flip(0), axis=1).tolist()
        == torch.linalg.cross(a, a.flip(0), dim=1).tolist()
    )
    for fn in (torch.linalg.norm, torch.linalg.vector_norm, torch.linalg.cross):
        assert pickle.loads(pickle.dumps(fn)) is fn


def test_ints_beyond_a_scalar_in_fill_values():
    for call in (
        lambda: torch.full((2,), 2**64),
        lambda: torch.zeros(2).new_full((2,), 2**64),
        lambda: torch.where(torch.tensor([True, False]), torch.zeros(2), 2**64),
    ):
        with pytest.raises(OverflowError, match="int too big to convert"):
            call()
    with pytest.raises(OverflowError, match="negative int to unsigned"):
        torch.full((2,), -(2**63) - 1)
    # inside the Scalar range, a float result holds the number
    assert torch.full((1,), 2**63, dtype=torch.float64).item() == 2.0**63
    w = torch.where(torch.tensor([True, False]), torch.zeros(2), -(2**63))
    assert w.tolist() == [0.0, -(2.0**63)]


def test_not_implemented_node_has_its_cpp_name():
    a = torch.ones(2, requires_grad=True)
    assert torch.floor_divide(a, 2).grad_fn.name() == "torch::autograd::NotImplemented"


def test_numpy_arrays_are_new_objects_over_the_memory():
    import numpy as np

    w = torch.ones(2, 3)
    a = w.numpy()
    assert a is not w.numpy() and np.shares_memory(a, w.numpy())
    a.shape = (6,)  # reshaping the array leaves the tensor alone
    a.flags.writeable = False
    assert w.shape == (2, 3)
    w.add_(1)  # still writable
    assert np.asarray(w) is not np.asarray(w)
    src = np.zeros(6, dtype=np.float32)
    t = torch.from_numpy(src)
    src.shape = (2, 3)
    src.flags.writeable = False
    assert t.shape == (6,)
    t.add_(1)
    assert src.sum() == 6  # memory still shared
    assert torch.as_tensor(src.copy()).shape == (2, 3)


def test_requires_grad_setter_checks():
    out = torch.ones(2, requires_grad=True) * 2
    with pytest.raises(RuntimeError, match=r"^you can only change requires_grad flags of leaf"):
        out.requires_grad = True
    with pytest.raises(RuntimeError, match="use var_no_grad = var.detach()"):
        out.requires_grad = False
    leaf = torch.ones(2)
    for value in (1, None, 0.5):
        with pytest.raises(RuntimeError, match="requires_grad must be a bool"):
            leaf.requires_grad = value
        with pytest.raises(TypeError, match="argument 'requires_grad' .* must be bool"):
            leaf.requires_grad_(value)
    leaf.requires_grad = True
    assert leaf.requires_grad


def test_linear_with_a_zero_one_by_one_weight_keeps_nan():
    # NumPy's dot reads a 1x1 operand as a scalar and writes 0 * nan as 0
    lin = torch.nn.Linear(1, 1)
    with torch.no_grad():
        lin.weight.zero_()
        lin.bias.zero_()
    out = lin(torch.tensor([[float("nan")], [1.0]]))
    assert out[0, 0].isnan() and out[1, 0].item() == 0.0


def test_torch_group_norm_does_not_check_values_per_group():
    x = torch.ones(1, 4)
    assert torch.group_norm(x, 4).tolist() == [[0.0, 0.0, 0.0, 0.0]]
    assert torch.native_group_norm(x, None, None, 1, 4, 1, 4, 1e-5)[0].shape == (1, 4)
    with pytest.raises(ValueError, match="Expected more than 1 value per channel"):
        torch.nn.functional.group_norm(x, 4)


def test_lu_pivot_must_be_a_bool():
    x = torch.eye(3) + 1
    cases = [
        (lambda: torch.lu(x, 1), "_lu_with_info"),
        (lambda: torch.linalg.lu_factor(x, pivot=1), "linalg_lu_factor"),
        (lambda: torch.linalg.lu_factor_ex(x, pivot=1), "linalg_lu_factor_ex"),
        (lambda: torch.linalg.lu(x, pivot=1), "linalg_lu"),
    ]
    for call, name in cases:
        with pytest.raises(
            TypeError, match=rf"^{name}\(\): argument 'pivot' must be bool, not int"
        ):
            call()
    assert torch.linalg.lu_factor(x, pivot=True).LU.shape == (3, 3)


def test_nextafter_reports_shapes_before_dtype():
    a, b = torch.ones(3, dtype=torch.int64), torch.ones(4, dtype=torch.int64)
    with pytest.raises(RuntimeError, match="must match the size of tensor b"):
        torch.nextafter(a, b)
    with pytest.raises(NotImplementedError, match='"nextafter_cpu" not implemented'):
        torch.nextafter(a, a)
