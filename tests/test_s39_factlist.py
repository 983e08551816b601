"""Session 39 (helper factlist): torch-free regression tests of the library fixes the factory
and overload-listing sweep of tests/reference/test_s39_factlist_reference.py found: layout=
checked by every factory (torch's "argument 'layout' must be torch.layout" for one overload,
the overload listing for several; torch.strided passes, values unchanged), the listing for
unknown keywords and ill-typed options of rand/randn/randint/randperm/eye/normal and the
random *_like (NOTE [ Factory option errors ]), positional counts of asarray/scalar_tensor/
tril_indices/empty_strided, repeat_interleave's listing, torch.signal.windows'
layout check and torch.layout() refused. torch's messages are written here as literals."""

from __future__ import annotations

import pytest

import minitorch as mt

_OPTIONS = (
    "Tensor out = None, torch.dtype dtype = None, torch.layout layout = None, torch.device "
    "device = None, bool pin_memory = False, bool requires_grad = False"
)
_LIKE = (
    "torch.memory_format memory_format = None, torch.dtype dtype = None, torch.layout layout = "
    "None, torch.device device = None, bool pin_memory = False, bool requires_grad = False"
)
_WINDOW = (
    "*, torch.dtype dtype = None, torch.layout layout = None, torch.device device = None, "
    "bool pin_memory = False, bool requires_grad = False"
)


def _message(exc_type, fn):
    with pytest.raises(exc_type) as info:
        fn()
    return str(info.value)


def _listing(op, got, forms):
    listed = "".join(f" * ({form})\n" for form in forms)
    return (
        f"{op}() received an invalid combination of arguments - got ({got}), but expected one "
        f"of:\n{listed}"
    )


def _sized(op, got):
    forms = (f"tuple of ints size, *, torch.Generator generator, {_OPTIONS}",
             f"tuple of ints size, *, {_OPTIONS}")  # fmt: skip
    return _listing(op, got, forms)


def _randint(got):
    heads = ("int high, tuple of ints size", "int low, int high, tuple of ints size")
    forms = [f"{h}, *, {g}{_OPTIONS}" for h in heads for g in ("torch.Generator generator, ", "")]
    return _listing("randint", got, forms)


def _randperm(got):
    forms = (f"int n, *, torch.Generator generator, {_OPTIONS}", f"int n, *, {_OPTIONS}")
    return _listing("randperm", got, forms)


def _eye(got):
    return _listing("eye", got, (f"int n, *, {_OPTIONS}", f"int n, int m, *, {_OPTIONS}"))


def _x():
    return mt.ones(2, 3)


@pytest.mark.parametrize(
    "fn, op, got",
    [
        (lambda: mt.zeros(2, 3, layout=5), "zeros", "int"),
        (lambda: mt.ones(2, layout="strided"), "ones", "str"),
        (lambda: mt.empty(2, layout=5), "empty", "int"),
        (lambda: mt.full((2,), 1.0, layout=5), "full", "int"),
        (lambda: mt.zeros_like(_x(), layout=5), "zeros_like", "int"),
        (lambda: mt.full_like(_x(), 1.0, layout=5), "full_like", "int"),
        (lambda: mt.empty_strided((2,), (1,), layout=5), "empty_strided", "int"),
        (lambda: mt.empty_permuted((2, 3), (1, 0), layout=5), "empty_permuted", "int"),
        (lambda: mt.scalar_tensor(1.0, layout=5), "scalar_tensor", "int"),
        (lambda: mt.tril_indices(3, 3, layout=[1]), "tril_indices", "list"),
        (lambda: _x().new_zeros(2, layout=5), "new_zeros", "int"),
        (lambda: _x().new_full((2,), 1.0, layout=5), "new_full", "int"),
        (lambda: _x().new_empty_strided((2,), (1,), layout=5), "new_empty_strided", "int"),
    ],
)
def test_layout_named(fn, op, got):
    text = f"{op}(): argument 'layout' must be torch.layout, not {got}"
    assert _message(TypeError, fn) == text


def test_layout_after_dtype_and_new_tensor():
    text = "zeros(): argument 'dtype' must be torch.dtype, not str"
    assert _message(TypeError, lambda: mt.zeros(2, dtype="a", layout=5)) == text
    text = "new_tensor() got an unexpected keyword argument 'layout'"
    assert _message(TypeError, lambda: _x().new_tensor([1], layout=mt.strided)) == text


def test_range_layout_named():
    with pytest.warns(UserWarning):  # (range's deprecation comes after the parser)
        mt.range(0, 1)
    text = "range(): argument 'layout' must be torch.layout, not int"
    assert _message(TypeError, lambda: mt.range(0, 3, layout=5)) == text


@pytest.mark.parametrize(
    "fn, text",
    [
        (lambda: mt.rand(2, 3, layout=5), _sized("rand", "int, int, layout=int")),
        (lambda: mt.rand(2, 3, foo=1), _sized("rand", "int, int, foo=int")),
        (lambda: mt.rand(size=(2,), foo=1), _sized("rand", "foo=int, size=tuple, ")),
        (lambda: mt.randn((2, 3), names=None), _sized("randn", "tuple, names=NoneType")),
        (lambda: mt.rand(2, 3, dtype="float32"), _sized("rand", "int, int, dtype=str")),
        (lambda: mt.randn(2, 3, out=5), _sized("randn", "int, int, out=int")),
        (
            lambda: mt.randn(2, 3, requires_grad=1),
            _sized("randn", "int, int, requires_grad=int"),
        ),
        (lambda: mt.randn(2, 3, pin_memory=1), _sized("randn", "int, int, pin_memory=int")),
        (
            lambda: mt.rand(2, 3, generator=mt.Generator(), dtype="a"),
            _sized("rand", "int, int, dtype=str, generator=torch._C.Generator"),
        ),
        (lambda: mt.randint(10, (3,), foo=1), _randint("int, tuple, foo=int")),
        (lambda: mt.randint(10, (3,), layout=5), _randint("int, tuple, layout=int")),
        (lambda: mt.randint(10, (3,), out=5), _randint("int, tuple, out=int")),
        (
            lambda: mt.randint(0, 10, (3,), requires_grad=1),
            _randint("int, int, tuple, requires_grad=int"),
        ),
        (lambda: mt.randperm(5, layout=5), _randperm("int, layout=int")),
        (lambda: mt.randperm(n=5, foo=1), _randperm("foo=int, n=int, ")),
        (lambda: mt.randperm(5, dtype="a"), _randperm("int, dtype=str")),
        (lambda: mt.eye(3, dtype="a"), _eye("int, dtype=str")),
        (lambda: mt.eye(3, 4, layout=5), _eye("int, int, layout=int")),
    ],
)  # fmt: skip
def test_factory_listing(fn, text):
    assert _message(TypeError, fn) == text


def test_missing_size_before_unknown_keyword():
    text = 'rand() missing 1 required positional arguments: "size"'
    assert _message(TypeError, lambda: mt.rand(foo=1)) == text


def test_likes_listing():
    forms = (f"Tensor input, *, torch.Generator generator, {_LIKE}", f"Tensor input, *, {_LIKE}")
    text = _listing("rand_like", "Tensor, layout=int", forms)
    assert _message(TypeError, lambda: mt.rand_like(_x(), layout=5)) == text
    text = _listing("randn_like", "Tensor, dtype=str", [f.replace("rand", "randn") for f in forms])
    assert _message(TypeError, lambda: mt.randn_like(_x(), dtype="a")) == text


def test_normal_unknown_keyword():
    tail = "*, torch.Generator generator = None, Tensor out = None"
    forms = (
        f"Tensor mean, Tensor std, {tail}", f"Tensor mean, float std = 1, {tail}",
        f"float mean, Tensor std, {tail}",
        f"float mean, float std, tuple of ints size, {tail}, {_OPTIONS[19:]}",
    )  # fmt: skip
    text = _listing("normal", "Tensor, float, foo=int", forms)
    assert _message(TypeError, lambda: mt.normal(mt.arange(3.0), 1.0, foo=1)) == text


def test_windows():
    forms = (f"int window_length, {_WINDOW}", f"int window_length, bool periodic, {_WINDOW}")
    text = _listing("hann_window", "int, bool, layout=int", forms)
    assert _message(TypeError, lambda: mt.hann_window(5, True, layout=5)) == text
    text = _listing("hann_window", "int, dtype=str", forms)
    assert _message(TypeError, lambda: mt.hann_window(5, dtype="a")) == text
    w = mt.signal.windows
    text = "general_cosine is implemented for strided tensors only, got: 5"
    assert _message(ValueError, lambda: w.hann(5, layout=5)) == text
    text = "kaiser is implemented for strided tensors only, got: None"
    assert _message(ValueError, lambda: w.kaiser(5, layout=None)) == text
    assert w.hann(4, layout=mt.strided).tolist() == w.hann(4).tolist()


_ONE = "takes 1 positional argument but 2 were given"


@pytest.mark.parametrize(
    "fn, text",
    [
        (lambda: mt.asarray([1.0], mt.float64), f"asarray() {_ONE}"),
        (lambda: mt.scalar_tensor(1.0, 2), f"scalar_tensor() {_ONE}"),
        (
            lambda: mt.tril_indices(3, 3, 0, 5),
            "tril_indices() takes from 2 to 3 positional arguments but 4 were given",
        ),
        (
            lambda: mt.empty_strided((2, 3)),
            'empty_strided() missing 1 required positional arguments: "stride"',
        ),
        (
            lambda: mt.empty_strided((2, 3), "a"),
            "empty_strided(): argument 'stride' (position 2) must be tuple of ints, not str",
        ),
    ],
)
def test_positional_counts(fn, text):
    assert _message(TypeError, fn) == text


def test_repeat_interleave_listing():
    forms = (
        "Tensor input, Tensor repeats, int dim = None, *, int output_size = None",
        "Tensor repeats, *, int output_size = None",
        "Tensor input, int repeats, int dim = None, *, int output_size = None",
    )
    text = _listing("repeat_interleave", "Tensor, int, int, int", forms)
    assert _message(TypeError, lambda: mt.repeat_interleave(_x(), 2, 0, 5)) == text
    text = _listing("repeat_interleave", "Tensor, int, output_size=str", forms).replace(
        "output_size = None)\n * (Tensor input, int",
        "output_size = None)\n      didn't match because some of the keywords were incorrect: "
        "output_size\n * (Tensor input, int",
    )
    assert _message(TypeError, lambda: mt.repeat_interleave(_x(), 2, output_size="a")) == text
    assert mt.repeat_interleave(_x(), 2, output_size=12).shape == (12,)


def test_layout_objects():
    assert repr(mt.strided) == "torch.strided" and mt.zeros(2).layout is mt.strided
    assert isinstance(mt.strided, mt.layout)
    for args in ((), ("strided",)):
        assert _message(TypeError, lambda a=args: mt.layout(*a)) == (
            "cannot create 'torch.layout' instances"
        )


def test_strided_accepted_values_unchanged():
    s = mt.strided
    a = mt.randn(2, 3, generator=mt.Generator().manual_seed(0), layout=s)
    b = mt.randn(2, 3, generator=mt.Generator().manual_seed(0))
    assert a.tolist() == b.tolist()
    a = mt.randint(0, 9, (4,), generator=mt.Generator().manual_seed(1), layout=s)
    b = mt.randint(0, 9, (4,), generator=mt.Generator().manual_seed(1))
    assert a.tolist() == b.tolist()
    assert mt.eye(2, layout=s).tolist() == [[1.0, 0.0], [0.0, 1.0]]
    assert mt.zeros_like(a, layout=s, dtype=mt.float64).dtype is mt.float64
    assert mt.rand(2, dtype=float).dtype is mt.float64  # (Python types are dtypes to the parser)
    assert mt.asarray([1.0], dtype=mt.float64).dtype is mt.float64
