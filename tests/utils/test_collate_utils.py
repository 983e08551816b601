"""torch.utils.data._utils's module layout: the collate module and its registry as the documented
way to extend default_collate, and the pin_memory and worker modules."""

from __future__ import annotations

import numpy as np
import pytest

import minitorch
from minitorch.utils import data


class Point:
    def __init__(self, v):
        self.v = v


def collate_point_fn(batch, *, collate_fn_map=None):
    return minitorch.tensor([p.v for p in batch])


def test_collate_module_is_reachable_as_in_torch():
    C = data._utils.collate
    for name in (
        "collate",
        "default_collate",
        "default_convert",
        "default_collate_fn_map",
        "collate_tensor_fn",
        "collate_numpy_array_fn",
        "collate_numpy_scalar_fn",
        "collate_float_fn",
        "collate_int_fn",
        "collate_str_fn",
        "np_str_obj_array_pattern",
        "default_collate_err_msg_format",
    ):
        assert hasattr(C, name), name
    assert C.default_collate is data.default_collate
    assert C.default_convert is data.default_convert
    from minitorch.utils.data._utils.collate import default_collate_fn_map

    assert default_collate_fn_map is C.default_collate_fn_map


def test_extending_default_collate_with_a_collate_fn_map():
    C = data._utils.collate
    fn_map = {**C.default_collate_fn_map, Point: collate_point_fn}
    out = C.collate(
        [(Point(1), minitorch.ones(2)), (Point(2), minitorch.zeros(2))], collate_fn_map=fn_map
    )
    assert isinstance(out, list) and len(out) == 2
    np.testing.assert_array_equal(out[0].numpy(), [1, 2])
    assert out[0].dtype == minitorch.int64
    np.testing.assert_array_equal(out[1].numpy(), [[1.0, 1.0], [0.0, 0.0]])
    # the map is per call: default_collate still refuses the type
    with pytest.raises(TypeError, match="Point"):
        data.default_collate([Point(1), Point(2)])


def test_registering_in_default_collate_fn_map_extends_default_collate():
    C = data._utils.collate
    C.default_collate_fn_map[Point] = collate_point_fn
    try:
        out = data.default_collate([{"p": Point(3)}, {"p": Point(4)}])
        np.testing.assert_array_equal(out["p"].numpy(), [3, 4])
        loader = data.DataLoader([Point(5), Point(6), Point(7)], batch_size=2)
        assert [b.tolist() for b in loader] == [[5, 6], [7]]
    finally:
        del C.default_collate_fn_map[Point]


def test_a_subclass_key_matches_by_isinstance():
    class Sub(Point):
        pass

    fn_map = {Point: collate_point_fn}
    out = data._utils.collate.collate([Sub(1), Sub(2)], collate_fn_map=fn_map)
    np.testing.assert_array_equal(out.numpy(), [1, 2])


def test_pin_memory_and_worker_modules():
    from minitorch.utils.data import _collate

    U = data._utils
    assert U.pin_memory.pin_memory is _collate.pin_memory
    assert U.pin_memory.pin_memory("a") == "a"
    assert U.worker.get_worker_info() is None  # not in a worker process
    assert U.worker.get_worker_info is data.get_worker_info
    assert U.HAS_NUMPY and isinstance(U.IS_WINDOWS, bool) and U.MP_STATUS_CHECK_INTERVAL > 0
