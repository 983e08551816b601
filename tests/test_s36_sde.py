"""Session 36 (helper sde): torch-free regression tests of the library fixes the score-based and
diffusion SDE programs of tests/reference/test_s36_sde_reference.py found: fork_rng's handling
of device_type as torch's (meta forks nothing; the device module is looked up first, so an
unknown type raises even when disabled; minitorch.cpu has no get_rng_state; mps/xpu devices),
get_device_module's error for a device that is neither a str nor a torch.device, and random
ops on the meta device taking a Generator of another device. torch's messages are written here
as literals."""

from __future__ import annotations

import pytest

import minitorch as mt


def _message(exc_type, fn):
    with pytest.raises(exc_type) as info:
        fn()
    return str(info.value)


def _forked(**kw):
    """(inside, after) draws of a fork_rng block started from seed 0."""
    mt.manual_seed(0)
    with mt.random.fork_rng(**kw):
        inside = mt.rand(3)
    return inside, mt.rand(3)


def test_fork_rng_restores_the_cpu_stream():
    inside, after = _forked(devices=[])
    assert mt.equal(inside, after)
    inside, after = _forked()
    assert mt.equal(inside, after)


def test_fork_rng_meta_forks_nothing():
    # torch returns at once for device_type="meta": the CPU stream is not restored
    inside, after = _forked(device_type="meta", devices=[0])
    mt.manual_seed(0)
    first, second = mt.rand(3), mt.rand(3)
    assert mt.equal(inside, first)
    assert mt.equal(after, second)


@pytest.mark.parametrize("enabled", [True, False])
def test_fork_rng_unknown_device_type_raises_even_when_disabled(enabled):
    msg = _message(RuntimeError, lambda: _forked(device_type="hpu", enabled=enabled))
    assert msg == "Device 'hpu' does not have a corresponding module registered as 'torch.hpu'."
    msg = _message(RuntimeError, lambda: _forked(device_type="foo", enabled=enabled))
    assert msg.startswith("Expected one of cpu, cuda, ipu, xpu,")
    assert msg.endswith("device type at start of device string: foo")
    msg = _message(RuntimeError, lambda: _forked(device_type=3, enabled=enabled))
    assert msg == "Invalid value of device '3', expect torch.device, str, or None"


def test_fork_rng_device_modules_as_torch():
    # torch asks torch.cpu.get_rng_state for cpu's one device: it has none
    msg = _message(AttributeError, lambda: _forked(device_type="cpu"))
    assert msg == "module 'minitorch.cpu' has no attribute 'get_rng_state'"
    _forked(device_type="cpu", enabled=False)
    _forked(device_type="cpu", devices=[])
    msg = _message(RuntimeError, lambda: _forked(device_type="mps", devices=[0]))
    assert msg == "Cannot execute getDefaultGenerator() without MPS backend."
    msg = _message(AssertionError, lambda: _forked(device_type="xpu", devices=[0]))
    assert msg == "Torch not compiled with XPU enabled"
    inside, after = _forked(device_type="mps")  # no mps devices: only the CPU stream
    assert mt.equal(inside, after)


@pytest.mark.parametrize("device", [0, 1.5, b"cpu", True])
def test_get_device_module_refuses_other_types(device):
    msg = _message(RuntimeError, lambda: mt.get_device_module(device))
    assert msg == f"Invalid value of device '{device}', expect torch.device, str, or None"


def test_get_device_module_of_str_and_device():
    assert mt.get_device_module("cuda:1") is mt.cuda
    assert mt.get_device_module(mt.device("cpu")) is mt.cpu
    assert mt.get_device_module(None) is mt.cpu


def test_meta_random_ops_take_any_generator_and_draw_nothing():
    g = mt.Generator().manual_seed(9)
    state = g.get_state()
    assert mt.randn(4, 2, generator=g, device="meta").shape == (4, 2)
    m = mt.empty(3, device="meta")
    assert mt.rand_like(m, generator=g).device.type == "meta"
    assert mt.randint(0, 5, (3,), generator=g, device="meta").dtype == mt.int64
    assert m.normal_(generator=g).shape == (3,)
    assert mt.bernoulli(m, generator=g).shape == (3,)
    assert mt.equal(g.get_state(), state)
    # an argument that is no Generator is still refused by the parser
    msg = _message(TypeError, lambda: mt.randn(2, generator=5, device="meta"))
    assert msg.startswith("randn() received an invalid combination of arguments")


@pytest.mark.parametrize(
    "call, bad",
    [
        (lambda: mt.randint(0, 10, (4, 2.0)), "float"),
        (lambda: mt.randint(0, 10, [4, "a"]), "str"),
        (lambda: mt.randint(0, 10, size=(4, None)), "NoneType"),
        (lambda: mt.randint(0, 10, (4, 2.5), generator=mt.Generator()), "float"),
        (lambda: mt.randint(0, 10, (4, 2.0), dtype=mt.int32), "float"),
        (lambda: mt.randint(10, (4, 2.0)), "float"),
    ],
)
def test_randint_unpacks_a_size_whose_later_element_is_bad(call, bad):
    # torch's overload check reads the size's first element only; the overload that matched
    # names the bad element as it unpacks the size
    assert _message(TypeError, call) == (
        "randint(): argument 'size' failed to unpack the object at pos 2 with error "
        f'"type must be tuple of ints,but got {bad}"'
    )


def test_randint_lists_overloads_for_a_bad_first_size_element_or_low():
    for call in (lambda: mt.randint(0, 10, (2.0, 4)), lambda: mt.randint(0.5, 10, (4, 2.0))):
        msg = _message(TypeError, call)
        assert msg.startswith("randint() received an invalid combination of arguments - got (")
    msg = _message(RuntimeError, lambda: mt.randint(0, 10, (2, -1)))
    assert msg == "Trying to create tensor with negative dimension -1: [2, -1]"
    assert mt.randint(0, 10, (2, True)).shape == (2, 1)
