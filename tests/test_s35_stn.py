"""Session 35 (helper stn): torch-free regression tests of the library fixes the spatial
transformer programs of tests/reference/test_s35_stn_reference.py found: affine_grid's size
read as torch's affine_grid_generator parser reads an int[] (a float element, a tensor), and
grid_sample's nearest-mode grid gradient under create_graph carrying the double-backward node,
as torch's does. torch's messages are written here as literals."""

from __future__ import annotations

import pytest

import minitorch as mt

F = mt.nn.functional


def _message(exc_type, fn):
    with pytest.raises(exc_type) as info:
        fn()
    return str(info.value)


THETA = mt.eye(2, 3).unsqueeze(0).repeat(2, 1, 1)


@pytest.mark.parametrize(
    "size, message",
    [
        (
            (2, 1, 3.0, 4),
            "affine_grid_generator(): argument 'size' failed to unpack the object at pos 3 with "
            'error "type must be tuple of ints,but got float"',
        ),
        (
            mt.tensor([2, 1, 3, 4]),
            "affine_grid_generator(): argument 'size' (position 2) must be tuple of ints, not "
            "Tensor",
        ),
    ],
)
def test_affine_grid_size_parsed_as_int_list(size, message):
    assert _message(TypeError, lambda: F.affine_grid(THETA, size, align_corners=False)) == message


def test_affine_grid_size_of_numpy_ints():
    np = pytest.importorskip("numpy")
    size = tuple(np.int64(v) for v in (2, 1, 3, 4))
    grid = F.affine_grid(THETA, size, align_corners=True)
    assert tuple(grid.shape) == (2, 3, 4, 2)
    assert grid[0, 0, 0].tolist() == [-1.0, -1.0]


@pytest.mark.parametrize("ndim", [4, 5])
def test_nearest_grid_gradient_has_the_double_backward_node(ndim):
    n = ndim - 2
    gen = mt.Generator().manual_seed(0)
    x = mt.randn(1, 2, *([3] * n), generator=gen, dtype=mt.float64, requires_grad=True)
    g = mt.rand(1, *([2] * n), n, generator=gen, dtype=mt.float64) * 2 - 1
    g.requires_grad_(True)
    out = F.grid_sample(x, g, mode="nearest", align_corners=False)
    gx, gg = mt.autograd.grad(out.pow(2).sum(), (x, g), create_graph=True)
    name = f"GridSampler{n}DBackwardBackward0"
    assert type(gg.grad_fn).__name__ == name
    assert type(gx.grad_fn).__name__ == name
    assert gg.requires_grad and not gg.any()
    hx, hg = mt.autograd.grad(gg.sum() + gx.sum(), (x, g), materialize_grads=True)
    assert not hg.any()
    # gx = 2 * out scattered onto the sampled pixels: its gradient in x counts the samples
    assert hx.sum().item() == 2 * out.numel()
