"""Session 29 (helper ode): torch-free regression tests of the library fixes the neural-ODE
reference programs (tests/reference/test_s29_ode_reference.py) led to. The expected values and
messages are torch 2.13's, written as literals."""

from __future__ import annotations

import pytest

import minitorch as mt

_SIZE_FORMS = (
    " * (tuple of ints size, *, torch.Generator generator, Tensor out = None, torch.dtype dtype ="
    " None, torch.layout layout = None, torch.device device = None, bool pin_memory = False, "
    "bool requires_grad = False)\n"
    " * (tuple of ints size, *, Tensor out = None, torch.dtype dtype = None, torch.layout layout "
    "= None, torch.device device = None, bool pin_memory = False, bool requires_grad = False)\n"
)
_LIKE_FORMS = (
    " * (Tensor input, *, torch.Generator generator, torch.memory_format memory_format = None, "
    "torch.dtype dtype = None, torch.layout layout = None, torch.device device = None, bool "
    "pin_memory = False, bool requires_grad = False)\n"
    " * (Tensor input, *, torch.memory_format memory_format = None, torch.dtype dtype = None, "
    "torch.layout layout = None, torch.device device = None, bool pin_memory = False, bool "
    "requires_grad = False)\n"
)
_NORMAL_FORMS = (
    " * (Tensor mean, Tensor std, *, torch.Generator generator = None, Tensor out = None)\n"
    " * (Tensor mean, float std = 1, *, torch.Generator generator = None, Tensor out = None)\n"
    " * (float mean, Tensor std, *, torch.Generator generator = None, Tensor out = None)\n"
    " * (float mean, float std, tuple of ints size, *, torch.Generator generator = None, Tensor "
    "out = None, torch.dtype dtype = None, torch.layout layout = None, torch.device device = "
    "None, bool pin_memory = False, bool requires_grad = False)\n"
)


def _invalid(op, got, forms):
    return (
        f"{op}() received an invalid combination of arguments - got ({got}), but expected one "
        f"of:\n{forms}"
    )


@pytest.mark.parametrize(
    "call, op, got, forms",
    [
        (lambda: mt.randn(2, generator=1), "randn", "int, generator=int", _SIZE_FORMS),
        (lambda: mt.rand(2, 3, generator="a"), "rand", "int, int, generator=str", _SIZE_FORMS),
        (lambda: mt.randn((2,), generator=1), "randn", "tuple, generator=int", _SIZE_FORMS),
        (
            lambda: mt.randn(2, generator=1, dtype=mt.float64),
            "randn",
            "int, dtype=torch.dtype, generator=int",
            _SIZE_FORMS,
        ),
        (
            lambda: mt.randn(size=(2,), generator=1),
            "randn",
            "generator=int, size=tuple, ",
            _SIZE_FORMS,
        ),
        (
            lambda: mt.randn_like(mt.ones(2), generator=1),
            "randn_like",
            "Tensor, generator=int",
            _LIKE_FORMS,
        ),
        (
            lambda: mt.rand_like(mt.ones(2), generator=1, dtype=mt.float64),
            "rand_like",
            "Tensor, dtype=torch.dtype, generator=int",
            _LIKE_FORMS,
        ),
        (
            lambda: mt.normal(mt.zeros(2), 1.0, generator=1),
            "normal",
            "Tensor, float, generator=int",
            _NORMAL_FORMS,
        ),
        (
            lambda: mt.normal(0.0, mt.ones(2), generator="x"),
            "normal",
            "float, Tensor, generator=str",
            _NORMAL_FORMS,
        ),
        (
            lambda: mt.normal(0.0, 1.0, (2,), generator=1),
            "normal",
            "float, float, tuple, generator=int",
            _NORMAL_FORMS,
        ),
    ],
)
def test_a_seed_passed_as_generator_matches_no_overload(call, op, got, forms):
    # sdeint(..., generator=seed): torch's parser finds no overload taking an int generator
    with pytest.raises(TypeError) as e:
        call()
    assert str(e.value) == _invalid(op, got, forms)


def test_normal_size_overload_named_by_a_keyword_names_the_argument():
    # dtype= singles out normal's size overload, so torch names the bad argument instead
    with pytest.raises(TypeError, match=r"^normal\(\): argument 'generator' must be "
                       r"torch.Generator, not int$"):  # fmt: skip
        mt.normal(0.0, 1.0, (2,), generator=1, dtype=mt.float64)


def test_a_real_generator_still_draws():
    g = mt.Generator().manual_seed(0)
    assert mt.randn(3, generator=g).shape == (3,)
    assert mt.rand_like(mt.ones(2), generator=g).shape == (2,)
    assert mt.normal(mt.zeros(2), 1.0, generator=g).shape == (2,)


@pytest.mark.parametrize(
    "max_norm, message",
    [
        ("a", "could not convert string to float: 'a'"),
        (None, "float() argument must be a string or a real number, not 'NoneType'"),
    ],
)
def test_clip_grad_norm_reads_max_norm_before_looking_for_gradients(max_norm, message):
    # torch converts max_norm first: a bad one raises even when no parameter has a gradient
    w = mt.ones(2, requires_grad=True)
    error = ValueError if isinstance(max_norm, str) else TypeError
    for call in (
        lambda: mt.nn.utils.clip_grad_norm_(w, max_norm),
        lambda: mt.nn.utils.clip_grad_norm_([], max_norm),
        lambda: mt.nn.utils.clip_grads_with_norm_([w], max_norm, mt.tensor(1.0)),
    ):
        with pytest.raises(error) as e:
            call()
        assert str(e.value) == message


def test_clip_grad_norm_still_clips():
    w = mt.tensor([3.0, 4.0], requires_grad=True)
    (w * w).sum().backward()  # grad [6, 8], norm 10
    total = mt.nn.utils.clip_grad_norm_([w], 5)
    assert total.item() == 10.0
    assert w.grad.tolist() == [2.999999761581421, 3.999999761581421]


_M, _V = mt.ones(2, 3), mt.ones(3)
_SUM_TUPLE = (
    "sum() received an invalid combination of arguments - got (tuple), but expected one of:\n"
    " * (*, torch.dtype dtype = None)\n"
    " * (tuple of ints dim, bool keepdim = False, *, torch.dtype dtype = None)\n"
)
_STD_LIST = (
    "std() received an invalid combination of arguments - got (list), but expected one of:\n"
    " * (tuple of ints dim, bool unbiased = True, bool keepdim = False)\n"
    " * (tuple of ints dim = None, *, Number correction = None, bool keepdim = False)\n"
    " * (bool unbiased = True)\n"
    "      didn't match because some of the arguments have invalid types: (!list of [float, "
    "int]!)\n"
)
_UNPACK = 'failed to unpack the object at pos 2 with error "type must be tuple of ints,but got'


@pytest.mark.parametrize(
    "call, message",
    [
        # z.repeat(batch / 2): a float where an int[] belongs, worded as torch's parser does
        (lambda: _V.repeat(2.5),
         "repeat(): argument 'repeats' (position 1) must be tuple of ints, not float"),
        (lambda: _V.repeat((2.5,)), "repeat(): argument 'repeats' (position 1) must be tuple of "
         "ints, but found element of type float at pos 0"),
        (lambda: _V.repeat(repeats=2.5),
         "repeat(): argument 'repeats' must be tuple of ints, not float"),
        (lambda: _M.repeat(2.0, 1), "repeat() takes 1 positional argument but 2 were given"),
        (lambda: _V.repeat(mt.tensor(2.0)),
         "repeat(): argument 'repeats' (position 1) must be tuple of ints, not Tensor"),
        (lambda: _V.tile(2.5), "tile(): argument 'dims' (position 1) must be tuple of ints, not "
         "float"),
        (lambda: _V.permute(0.0),
         "permute(): argument 'dims' (position 1) must be tuple of ints, not float"),
        (lambda: _M.permute(None),
         "permute(): argument 'dims' (position 1) must be tuple of ints, not NoneType"),
        (lambda: _M.permute(dims=1.0), "permute(): argument 'dims' must be tuple of ints, not "
         "float"),
        (lambda: mt.permute(_M, 1),
         "permute(): argument 'dims' (position 2) must be tuple of ints, not int"),
        (lambda: mt.permute(_M, (0, 1.0)), f"permute(): argument 'dims' {_UNPACK} float\""),
        (lambda: mt.permute(_M, (None,)), "permute(): argument 'dims' (position 2) must be tuple "
         "of ints, but found element of type NoneType at pos 0"),
        (lambda: _M.sum((0.0,)), _SUM_TUPLE),
        (lambda: _M.std([0.5, 1]), _STD_LIST),
        (lambda: _M.amax((0.0,)), "amax(): argument 'dim' (position 1) must be tuple of ints, "
         "but found element of type float at pos 0"),
        (lambda: mt.amax(_M, dim=(0.0,)), "amax(): argument 'dim' must be tuple of ints, not "
         "tuple"),
        (lambda: _M.logsumexp((0, "a")), f"logsumexp(): argument 'dim' {_UNPACK} str\""),
        (lambda: _M.flip(dims=(0.0,)), "flip(): argument 'dims' must be tuple of ints, not tuple"),
        (lambda: mt.flip(_M, (0.0,)), "flip(): argument 'dims' (position 2) must be tuple of "
         "ints, but found element of type float at pos 0"),
        (lambda: mt.unflatten(_M, 1, (1.5, 3)), "unflatten(): argument 'sizes' (position 3) "
         "must be tuple of ints, but found element of type float at pos 0"),
        (lambda: _M.reshape(x=2), 'reshape() missing 1 required positional arguments: "shape"'),
        (lambda: _M.reshape(shape=(2.5, 1)),
         "reshape(): argument 'shape' must be tuple of ints, not tuple"),
    ],
)  # fmt: skip
def test_int_list_arguments_worded_as_torch(call, message):
    with pytest.raises(TypeError) as e:
        call()
    assert str(e.value) == message


def test_int_list_elements_after_the_first_may_be_bools():
    # torch's parser checks the first element's type and unpacks the rest as ints
    assert _M.sum((0, True)).shape == ()
    assert _M.repeat(1, True).shape == (2, 3)
    assert _M.permute(1, False).shape == (3, 2)
    assert mt.permute(_M, (mt.tensor(1), 0)).shape == (3, 2)
