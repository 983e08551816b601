"""Session 23 (l3): binary cross entropy's and nll loss's gradients and double backward.

Expected values were obtained by running torch 2.13 (CPU) on the same inputs.
"""

import warnings

import numpy as np

import minitorch as torch
import minitorch.nn.functional as F
from minitorch.autograd import gradcheck, gradgradcheck

X7 = [0.0, 1.0, 0.0, 1.0, 0.5, 1e-7, 1 - 1e-7]
T7 = [0.3, 0.3, 0.0, 1.0, 0.2, 0.9, 0.1]


def _bce_grads(dtype=torch.float64):
    x = torch.tensor(X7, dtype=dtype, requires_grad=True)
    t = torch.tensor(T7, dtype=dtype, requires_grad=True)
    loss = F.binary_cross_entropy(x, t, reduction="sum")
    gx, gt = torch.autograd.grad(loss, (x, t), create_graph=True)
    return x, t, gx, gt


def test_bce_grad_clamps_at_float32_eps():
    # torch clamps x (1 - x) at 1e-12 rounded to float32 (9.99999996e-13), also in float64
    _, _, gx, _ = _bce_grads()
    assert gx.tolist()[:2] == [-300000001198.74084, 700000002797.0619]
    _, _, gx32, _ = _bce_grads(torch.float32)
    assert gx32.tolist()[:2] == [-300000018432.0, 699999977472.0]


def test_bce_double_backward_is_torchs_second_derivative():
    x, t, gx, _ = _bce_grads()
    assert type(gx.grad_fn).__name__ == "BinaryCrossEntropyBackwardBackward0"
    g2x, g2t = torch.autograd.grad(gx.sum(), (x, t))
    expected = [2.9999999999939995e23, 6.999999999985999e23, 0.0, 0.0, 3.9999999999680007]
    assert g2x.tolist()[:5] == expected
    np.testing.assert_allclose(g2x.tolist()[5:], [89998200026819.73, 89998200121560.95], rtol=1e-14)
    assert g2t.tolist()[:5] == [-1e12, -1e12, -1e12, -1e12, -4.0]
    # (the checks pass on interior inputs with a composed backward too)
    gen = torch.Generator().manual_seed(0)
    x = (torch.rand(3, 4, generator=gen, dtype=torch.float64) * 0.8 + 0.1).requires_grad_()
    t = torch.rand(3, 4, generator=gen, dtype=torch.float64).requires_grad_()
    w = torch.rand(4, generator=gen, dtype=torch.float64)
    for red in ("mean", "sum", "none"):

        def fn(a, b, red=red):
            return F.binary_cross_entropy(a, b, weight=w, reduction=red)

        assert gradcheck(fn, (x, t))
        assert gradgradcheck(fn, (x, t))


def test_bce_double_backward_wrt_upstream_gradient():
    x = torch.tensor([0.0, 1.0, 0.5, 1e-3, 0.999], dtype=torch.float64, requires_grad=True)
    t = torch.tensor([0.3, 0.3, 0.2, 0.9, 0.1], dtype=torch.float64)
    g = torch.tensor([1.5, 2, 3, 4, 5], dtype=torch.float64, requires_grad=True)
    loss = F.binary_cross_entropy(x, t, reduction="none")
    (gx,) = torch.autograd.grad(loss, x, g, create_graph=True)
    u = torch.tensor([0.25, 0.5, 2, 3, 7], dtype=torch.float64)
    (gg,) = torch.autograd.grad(gx, g, u)
    expected = [-74999999999.92499, 349999999999.64996, 2.3999999999904]
    np.testing.assert_allclose(gg.tolist()[:3], expected, rtol=1e-15)


def test_bce_weight_scales_last_like_torch():
    # torch multiplies by the weight after the division: (g (x - t) / d) w, not (g w)(x - t) / d
    x = torch.tensor(
        [0.49625658988952637, 0.7682217955589294, 0.08847743272781372, 0.13203048706054688,
         0.30742281675338745, 0.6340786814689636, 0.4900934100151062, 0.8964447379112244],
        requires_grad=True,
    )  # fmt: skip
    t = torch.tensor(
        [0.455627977848053, 0.6323062777519226, 0.3488934636116028, 0.40171730518341064,
         0.022325754165649414, 0.16885894536972046, 0.2938884496688843, 0.518521785736084]
    )  # fmt: skip
    w = torch.tensor(
        [1.3953351974487305, 1.600022792816162, 0.32205891609191895, 0.5645371675491333,
         1.3632171154022217, 1.8303879499435425, 0.7941998243331909, 1.7483117580413818]
    )  # fmt: skip
    F.binary_cross_entropy(x, t, weight=w, reduction="sum").backward()
    assert x.grad.tolist() == [
        0.22677482664585114, 1.2213382720947266, -1.03992760181427, -1.3285366296768188,
        1.825380802154541, 3.670036792755127, 0.6235485672950745, 7.117483139038086,
    ]  # fmt: skip


def test_bce_saturated_inputs_no_numpy_warnings():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        x = torch.tensor([0.0, 1.0, 0.0, 0.5], requires_grad=True)
        t = torch.tensor([0.3, 0.3, 0.5, 0.5], requires_grad=True)
        w = torch.tensor([0.0, 1.0, 2.0, 1.0])
        F.binary_cross_entropy(x, t, weight=w, reduction="sum").backward()
        xh = torch.tensor([0.0, 0.5], dtype=torch.float16, requires_grad=True)
        th = torch.tensor([0.3, 0.5], dtype=torch.float16)
        F.binary_cross_entropy(xh, th, reduction="sum").backward()
    assert x.grad.tolist() == [-0.0, 699999977472.0, -999999995904.0, 0.0]
    g = t.grad.tolist()
    assert np.isnan(g[0]) and g[1:3] == [-float("inf"), float("inf")] and g[3] == 0.0
    assert xh.grad.tolist() == [-float("inf"), 0.0]  # half: 1e-12 rounds to 0, as torch


def _nll_case(shape, reduction):
    gen = torch.Generator().manual_seed(1)
    x = torch.randn(*shape, generator=gen, dtype=torch.float64, requires_grad=True)
    t_shape = (shape[0],) + shape[2:]
    t = torch.randint(0, shape[1], t_shape, generator=gen)
    logp = F.log_softmax(x, 1)
    loss = F.nll_loss(logp, t, reduction=reduction)
    return x, logp, loss


def test_nll_double_backward_has_graph():
    for shape, name in (((3, 4), "NllLossBackwardBackward0"), ((2, 4, 3, 2), None)):
        for red in ("mean", "sum", "none"):
            x, logp, loss = _nll_case(shape, red)
            g = torch.ones_like(loss) * 2
            (gx,) = torch.autograd.grad(loss, logp, g, create_graph=True)
            assert gx.requires_grad
            if name is not None:
                assert type(gx.grad_fn).__name__ == name
            gx.pow(2).sum().backward()  # torch: zeros (raised before)
            assert x.grad is not None and x.grad.abs().sum().item() == 0.0
    x, logp, loss = _nll_case((2, 4, 3, 2), "sum")
    (gx,) = torch.autograd.grad(loss, logp, create_graph=True)
    assert type(gx.grad_fn).__name__ == "NllLoss2DBackwardBackward0"


def test_nll_double_backward_values_and_gradgradcheck():
    gen = torch.Generator().manual_seed(2)
    x = torch.randn(3, 4, generator=gen, dtype=torch.float64, requires_grad=True)
    t = torch.tensor([0, 3, 1])
    w = torch.tensor([1.0, 2.0, 3.0, 4.0], dtype=torch.float64)
    for red in ("mean", "sum", "none"):

        def fn(a, red=red):
            return F.nll_loss(a, t, weight=w, reduction=red)

        assert gradcheck(fn, (x,))
        assert gradgradcheck(fn, (x,))
        # the input's second derivative is zeros (the old code had no path to it: None)
        (gx,) = torch.autograd.grad(fn(x).sum(), x, create_graph=True)
        (g2,) = torch.autograd.grad(gx.pow(2).sum(), x)
        assert g2.tolist() == [[0.0] * 4] * 3
    # and the upstream gradient's, torch's values
    x = torch.tensor([[0.1, 0.2, 0.3, 0.4]] * 3, dtype=torch.float64, requires_grad=True)
    for red, expected in (("mean", 0.857142857142857), ("sum", 42.0), ("none", [2.0, 32.0, 8.0])):
        loss = F.nll_loss(x, t, weight=w, reduction=red)
        g = (torch.ones_like(loss) * 2).requires_grad_()
        (gx,) = torch.autograd.grad(loss, x, g, create_graph=True)
        (gg,) = torch.autograd.grad(gx.pow(2).sum() / 2, g)
        np.testing.assert_allclose(gg.tolist(), expected, rtol=1e-15)
