"""Session 25 (vision utilities written with tensor ops): interpolate's mode='lanczos' (torch
2.13's antialiased Lanczos-3 resize), grid_sample's order of shape checks, and affine_grid's
messages showing size as it was passed. Expected values were taken from torch 2.13."""

from __future__ import annotations

import numpy as np
import pytest

import minitorch as mt
import minitorch.nn.functional as F
from minitorch.autograd import gradcheck, gradgradcheck

_X = (mt.arange(20, dtype=mt.float64).reshape(1, 1, 4, 5) ** 1.5) / 10

_LANCZOS_3x7 = [
    0.10454503393177275, 0.1741005037857277, 0.32225683157313323, 0.48065224830408393,
    0.6499751084678199, 0.9163253329350862, 1.0759440015796995, 2.0216153521602713,
    2.2369582528335155, 2.621311730812183, 2.924275526698127, 3.2336392948369497,
    3.6710858558034256, 3.9256807945764782, 5.321144269040278, 5.611093966090041,
    6.124663849862238, 6.520943036718049, 6.922170471103556, 7.478505535879965,
    7.800238815128271,
]  # fmt: skip
_LANCZOS_GRAD = [
    -1.025276333800889, -0.78846479579973, -0.6301806692389659, -0.40622722185203763,
    -0.2086156853881327, -0.619558525020745, -0.37328331206291304, -0.1701107843057869,
    0.05078850057966832, 0.2864820766644695, 0.6682495064901263, 0.8736118388799377,
    1.1453231670090624, 1.2976836515225192, 1.574290108175342, 1.0691640011136763,
    1.2394364392004849, 1.5091893751593048, 1.6216740131481768, 1.885824649526434,
]  # fmt: skip


def test_interpolate_lanczos_values_and_gradient_match_torch():
    x = _X.clone().requires_grad_()
    y = F.interpolate(x, size=(3, 7), mode="lanczos", antialias=True)
    assert y.grad_fn.name() == "UpsampleLanczos2DAaBackward0"
    np.testing.assert_allclose(y.detach().numpy().ravel(), _LANCZOS_3x7, rtol=1e-12, atol=1e-12)
    g = mt.arange(21, dtype=mt.float64).reshape(1, 1, 3, 7) / 7 - 1
    y.backward(g)
    np.testing.assert_allclose(x.grad.numpy().ravel(), _LANCZOS_GRAD, rtol=1e-12, atol=1e-12)
    down = F.interpolate(_X, scale_factor=0.5, mode="lanczos", antialias=True)
    expect = [0.6466354494122657, 1.3083148179372517, 4.5398817054118075, 5.8032375051705385]
    np.testing.assert_allclose(down.numpy().ravel(), expect, rtol=1e-12, atol=1e-12)
    y32 = F.interpolate(_X.float(), size=(2, 3), mode="lanczos", antialias=True)
    assert y32.dtype is mt.float32
    expect = [0.6325203776359558, 1.090421199798584, 1.66758394241333]
    expect += [4.4946160316467285, 5.424715995788574, 6.4068121910095215]
    np.testing.assert_allclose(y32.numpy().ravel(), expect, rtol=1e-6, atol=1e-6)


def test_interpolate_lanczos_uint8_and_double_backward():
    u = (mt.arange(36).reshape(1, 1, 6, 6) * 7 % 256).to(mt.uint8)
    y = F.interpolate(u, size=(4, 9), mode="lanczos", antialias=True)
    assert y.dtype is mt.uint8
    assert y.flatten().tolist() == [
        11, 14, 19, 24, 29, 33, 38, 43, 46, 72, 75, 80, 85, 90, 94, 99, 104, 107,
        138, 141, 146, 151, 156, 160, 165, 170, 173, 199, 202, 207, 212, 217, 221, 226, 231, 234,
    ]  # fmt: skip
    x = mt.rand(1, 2, 5, 6, dtype=mt.float64, generator=mt.Generator().manual_seed(0))
    x.requires_grad_()

    def f(t):
        return F.interpolate(t, size=(3, 8), mode="lanczos", antialias=True)

    assert gradcheck(f, (x,))
    assert gradgradcheck(f, (x,))


@pytest.mark.parametrize(
    "shape, kwargs, exc, message",
    [
        ((1, 3, 6, 6), {"antialias": False}, ValueError, "Lanczos mode requires antialias=True"),
        (
            (1, 3, 6, 6),
            {"antialias": True, "align_corners": True},
            ValueError,
            "Lanczos mode does not support align_corners=True",
        ),
        (
            (1, 3, 6),
            {"antialias": True},
            ValueError,
            "Anti-alias option is restricted to bilinear, bicubic, and lanczos modes and requires "
            "a 4-D tensor as input",
        ),
        (
            (1, 3, 6, 6, 6),
            {"antialias": False},
            NotImplementedError,
            "Input Error: Only 3D, 4D and 5D input Tensors supported (got 5D) for the modes: "
            "nearest | linear | bilinear | bicubic | trilinear | lanczos | area | nearest-exact "
            "(got lanczos)",
        ),
    ],
)
def test_interpolate_lanczos_errors_match_torch(shape, kwargs, exc, message):
    size = (4,) * (len(shape) - 2)
    with pytest.raises(exc) as info:
        F.interpolate(mt.rand(shape), size=size, mode="lanczos", **kwargs)
    assert str(info.value) == message


def test_interpolate_antialias_mode_error_is_torchs():
    with pytest.raises(ValueError) as info:
        F.interpolate(mt.rand(1, 3, 6, 6), size=(4, 4), mode="nearest", antialias=True)
    assert str(info.value) == (
        "Anti-alias option is restricted to bilinear, bicubic, and lanczos modes and requires a "
        "4-D tensor as input"
    )


@pytest.mark.parametrize(
    "xs, gs, message",
    [
        (
            (3, 5, 6),
            (4, 7, 2),
            "grid_sampler(): expected grid and input to have same batch size, but got input "
            "with sizes [3, 5, 6] and grid with sizes [4, 7, 2]",
        ),
        (
            (3, 5, 6),
            (3, 7, 2),
            "grid_sampler(): expected grid to have size 1 in last dimension, but got grid with "
            "sizes [3, 7, 2]",
        ),
        (
            (3, 5, 6),
            (3, 7, 1),
            "grid_sampler(): expected 5D input and grid with same number of dimensions, but got "
            "input with sizes [3, 5, 6] and grid with sizes [3, 7, 1]",
        ),
        (
            (2, 3, 5, 6),
            (2, 4, 7, 2, 2),
            "grid_sampler(): expected 4D input and grid with same number of dimensions, but got "
            "input with sizes [2, 3, 5, 6] and grid with sizes [2, 4, 7, 2, 2]",
        ),
        (
            (2, 3, 0, 6),
            (2, 4, 7, 2, 2),
            "grid_sampler(): expected input to have non-empty spatial dimensions, but input has "
            "sizes [2, 3, 0, 6] with dimension 2 being empty",
        ),
        (
            (2, 3, 5, 6, 4, 2),
            (2, 1, 1, 1, 1, 4),
            "grid_sampler(): expected 5D input and grid with same number of dimensions, but got "
            "input with sizes [2, 3, 5, 6, 4, 2] and grid with sizes [2, 1, 1, 1, 1, 4]",
        ),
    ],
)
def test_grid_sample_checks_shapes_in_torchs_order(xs, gs, message):
    with pytest.raises(RuntimeError) as info:
        F.grid_sample(mt.rand(xs), mt.rand(gs), align_corners=False)
    assert str(info.value) == message


def test_grid_sample_of_a_0d_tensor_is_an_index_error():
    with pytest.raises(IndexError, match="Dimension specified as 0 but tensor has no dimensions"):
        F.grid_sample(mt.rand(2, 3, 4, 4), mt.tensor(1.0), align_corners=False)


def test_affine_grid_messages_show_size_as_passed():
    theta = mt.rand(2, 2, 2)
    with pytest.raises(ValueError) as info:
        F.affine_grid(theta, mt.rand(2, 3, 8, 8).size(), align_corners=False)
    assert str(info.value) == (
        "Expected a batch of 2D affine matrices of shape Nx2x3 for size torch.Size([2, 3, 8, 8]). "
        "Got torch.Size([2, 2, 2])."
    )
    with pytest.raises(ValueError) as info:
        F.affine_grid(mt.rand(2, 2, 3), [2, 3, 0, 8], align_corners=False)
    assert str(info.value) == "Expected non-zero, positive output size. Got [2, 3, 0, 8]"
    with pytest.raises(NotImplementedError) as info:
        F.affine_grid(mt.rand(2, 2, 3), mt.Size([2, 3, 8]), align_corners=False)
    assert str(info.value) == (
        "affine_grid only supports 4D and 5D sizes, for 2D and 3D affine transforms, "
        "respectively. Got size torch.Size([2, 3, 8])."
    )
    with pytest.raises(AttributeError, match="'list' object has no attribute 'is_floating_point'"):
        F.affine_grid([[1.0, 0.0, 0.0]], (1, 1, 2, 2), align_corners=False)
