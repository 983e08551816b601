"""Calling conventions torch 2.13 accepts (argument names, positional-or-keyword parameters, out=)
and a few small missing names: linalg.vector_norm(input=), hardshrink(out=), histogramdd's
positional range/weight/density, Tensor.resize_(size=), Tensor.map_(other=),
Tensor.storage_type(), torch.is_distributed; and float32 ** a number rounded once from double,
as torch's kernel computes it. Expected values were printed by torch for the same calls."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import minitorch


def _x():
    return minitorch.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 7.0]])


def test_vector_norm_takes_input_keyword():
    A = minitorch.tensor([[4.0, 1.0], [1.0, 3.0]])
    np.testing.assert_allclose(minitorch.linalg.vector_norm(input=A).item(), 5.196152, rtol=1e-6)
    np.testing.assert_allclose(minitorch.linalg.vector_norm(x=A).item(), 5.196152, rtol=1e-6)
    r = minitorch.linalg.vector_norm(input=A, ord=1, axis=0, keepdims=True)
    np.testing.assert_array_equal(r.numpy(), [[5.0, 4.0]])


@pytest.mark.parametrize("fn", [minitorch.hardshrink, minitorch.nn.functional.hardshrink])
def test_hardshrink_out(fn):
    out = minitorch.empty(0)
    r = fn(_x(), 2.5, out=out)
    assert r is out
    np.testing.assert_array_equal(out.numpy(), [[0.0, 0.0, 3.0], [4.0, 5.0, 7.0]])
    with pytest.raises(RuntimeError, match="^Found dtype Long but expected Float$"):
        fn(_x(), 2.5, out=minitorch.empty(2, 3, dtype=minitorch.int64))


def test_histogramdd_range_weight_density_positional():
    pts = _x().t().contiguous()
    r = minitorch.histogramdd(pts[:, :2], [2, 2], [0.0, 8.0, 0.0, 8.0])
    np.testing.assert_array_equal(r.hist.numpy(), [[0.0, 3.0], [0.0, 0.0]])
    r = minitorch.histogramdd(pts, [2, 2], [0.0, 8.0, 0.0, 8.0], None, True)
    np.testing.assert_allclose(r.hist.numpy(), [[0.0, 0.0625], [0.0, 0.0]])
    np.testing.assert_array_equal(r.bin_edges[1].numpy(), [0.0, 4.0, 8.0])


def test_resize_size_keyword():
    x = _x().resize_(size=(3, 2))
    np.testing.assert_array_equal(x.numpy(), [[1.0, 2.0], [3.0, 4.0], [5.0, 7.0]])
    assert _x().resize_(size=[6]).shape == (6,)
    with pytest.raises(TypeError, match="^resize_\\(\\) got multiple values for argument 'size'$"):
        _x().resize_((3, 2), size=(3, 2))
    with pytest.raises(
        TypeError, match='^resize_\\(\\) missing 1 required positional arguments: "size"$'
    ):
        _x().resize_()


def test_map_other_keyword():
    x = _x()
    r = x.map_(other=_x(), callable=lambda a, b: a + b)
    assert r is x
    np.testing.assert_array_equal(x.numpy(), [[2.0, 4.0, 6.0], [8.0, 10.0, 14.0]])
    with pytest.raises(TypeError):
        _x().map_(tensor=_x(), callable=lambda a, b: a + b)  # torch's name is `other`


def test_storage_type():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # TypedStorage's deprecation warning, as torch gives
        x = _x()
        assert x.storage_type() is minitorch.FloatStorage  # torch's legacy classes (s31)
        assert minitorch.tensor([1]).storage_type() is minitorch.LongStorage


def test_is_distributed():
    assert minitorch.is_distributed(_x()) is False
    with pytest.raises(
        TypeError,
        match=r"^is_distributed\(\): argument 'input' \(position 1\) "
        "must be Tensor, not int$",
    ):
        minitorch.is_distributed(3)


# float32 ** number: C's pow(float, double), rounded once (NumPy's powf is an ulp off in some)
# fmt: off
_BASES = [1.5509469509124756, 2.81467342376709, 1.1846749782562256, 0.6501215100288391,
          1.2763586044311523, 2.2954630851745605, 2.452414035797119, 1.8467495441436768]
_POWERS = {
    0.75: [1.3897852897644043, 2.1730563640594482, 1.1355321407318115, 0.7240122556686401,
           1.200824499130249, 1.8648879528045654, 1.9597259759902954, 1.5841853618621826],
    0.25: [1.1159615516662598, 1.2952601909637451, 1.043277382850647, 0.8979427218437195,
           1.0629018545150757, 1.2308852672576904, 1.2514066696166992, 1.1657408475875854],
    4: [5.7861247062683105, 62.76420593261719, 1.969685435295105, 0.17863976955413818,
        2.6539385318756104, 27.76395034790039, 36.17222213745117, 11.631400108337402],
}
# fmt: on


@pytest.mark.parametrize("e", sorted(_POWERS))
def test_float32_pow_number_rounds_once(e, device):
    x = minitorch.tensor(_BASES, device=device)
    np.testing.assert_array_equal((x**e).cpu().numpy(), np.array(_POWERS[e], np.float32))
    np.testing.assert_array_equal(minitorch.pow(x, e).cpu().numpy(), (x**e).cpu().numpy())


def test_float32_pow_brief_example():
    r = minitorch.tensor([1.0000040531158447]) ** 0.75
    assert r.item() == 1.0000029802322388
