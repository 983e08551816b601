"""Drop-in differences found by sweeps of generative-model code and course assignments: float
sizes that torch refuses, foreach ops, argument errors, fill values that overflow their dtype,
gradcheck's fast-mode message."""

from __future__ import annotations

import numpy as np
import pytest

import minitorch as torch
import minitorch.nn.functional as F
from minitorch.autograd import gradcheck, gradgradcheck
from minitorch.autograd.gradcheck import GradcheckError

# --- float sizes and indices: TypeError, never a truncated size ---


@pytest.mark.parametrize(
    "pad, at",
    [(((4 - 1) / 2, (4 - 1) / 2), 0), ((0.5, 0.5), 0), ((1, 1.0), 1), ((True, 1), 0)],
)
@pytest.mark.parametrize("mode", ["constant", "reflect"])
def test_pad_refuses_float_sizes(pad, at, mode):
    x = torch.ones(2, 4, 6, 6)
    name = type(pad[at]).__name__
    msg = (
        "pad(): argument 'pad' (position 2) must be tuple of ints, but found element of type "
        f"{name} at pos {at}"
    )
    if at:  # torch's parser checks the first element, then unpacks the rest (torch 2.13's text)
        msg = (
            f"pad(): argument 'pad' failed to unpack the object at pos {at + 1} with error "
            f'"type must be tuple of ints,but got {name}"'
        )
    with pytest.raises(TypeError) as info:
        F.pad(x, pad, mode=mode)
    assert str(info.value) == msg


@pytest.mark.parametrize(
    "pad, name", [(1, "int"), (None, "NoneType"), (torch.tensor([1, 1]), "Tensor")]
)
def test_pad_refuses_non_sequences(pad, name):
    with pytest.raises(TypeError) as info:
        F.pad(torch.ones(2, 3), pad)
    assert (
        str(info.value) == f"pad(): argument 'pad' (position 2) must be tuple of ints, not {name}"
    )


def test_pad_reads_int_likes():
    x = torch.arange(6.0, dtype=torch.float64).reshape(2, 3).requires_grad_()
    out = F.pad(x, (np.int64(1), torch.tensor(2)))
    assert out.shape == (2, 6)
    np.testing.assert_array_equal(out.detach().numpy()[:, 1:4], x.detach().numpy())
    out = F.pad(x, torch.Size([1, 0]), mode="reflect")
    np.testing.assert_array_equal(out.detach().numpy(), [[1, 0, 1, 2], [4, 3, 4, 5]])
    assert gradcheck(lambda t: F.pad(t, [np.int64(1), 1], mode="reflect"), (x,))
    assert gradgradcheck(lambda t: F.pad(t, (1, np.int64(1)), value=2.0), (x,))


@pytest.mark.parametrize(
    "call, msg",
    [
        (
            lambda x: x.split(4 / 2, 1),
            "split_with_sizes(): argument 'split_sizes' (position 2) must be tuple of ints, not "
            "float",
        ),
        (
            lambda x: x.split([2.0, 2], 1),
            "split_with_sizes(): argument 'split_sizes' must be tuple of ints, but found element "
            "of type float at pos 0",
        ),
        (lambda x: x.unfold(2, 4 / 2, 2), "unfold(): argument 'size' (position 2) must be int, not float"),  # noqa: E501
        (lambda x: x.unfold(2, 2, 2.0), "unfold(): argument 'step' (position 3) must be int, not float"),  # noqa: E501
        (lambda x: x.unfold(2.0, 2, 2), "unfold(): argument 'dimension' (position 1) must be int, not float"),  # noqa: E501
        (
            lambda x: F.one_hot(torch.tensor([0, 1]), 6 / 2),
            "one_hot(): argument 'num_classes' (position 2) must be int, not float",
        ),
        (
            lambda x: torch.rot90(x, 1.0, (1, 2)),
            "rot90(): argument 'k' (position 2) must be int, not float",
        ),
        (
            lambda x: torch.rot90(x, 1, (1.0, 2)),
            "rot90(): argument 'dims' (position 3) must be tuple of ints, but found element of "
            "type float at pos 0",
        ),
        (
            lambda x: F.embedding(torch.tensor([0]), torch.ones(3, 2), padding_idx=1.0),
            "embedding(): argument 'padding_idx' (position 3) must be int, not float",
        ),
        (
            lambda x: F.embedding_bag(torch.tensor([[0, 1]]), torch.ones(3, 2), padding_idx=1.0),
            "embedding_bag(): argument 'padding_idx' (position 9) must be int, not float",
        ),
        (
            lambda x: x.as_strided((2.0,), (1,)),
            "as_strided(): argument 'size' (position 1) must be tuple of ints, but found "
            "element of type float at pos 0",
        ),
        (
            lambda x: x.as_strided((2,), (1.0,)),
            "as_strided(): argument 'stride' (position 2) must be tuple of ints, but found "
            "element of type float at pos 0",
        ),
        (
            lambda x: x.as_strided((2,), (1,), 1.0),
            "as_strided(): argument 'storage_offset' (position 3) must be int, not float",
        ),
    ],
)
def test_float_sizes_raise_type_error(call, msg):
    with pytest.raises(TypeError) as info:
        call(torch.ones(2, 4, 6))
    assert str(info.value) == msg


def test_int_likes_still_accepted_as_sizes():
    x = torch.arange(48.0).reshape(2, 4, 6)
    assert [t.shape[1] for t in x.split(torch.tensor(3.0), 1)] == [3, 1]  # torch: int(tensor)
    # (a NumPy integer alone is no split size to torch: split_with_sizes refuses it)
    assert [t.shape[1] for t in x.split([np.int64(3), np.int64(1)], 1)] == [3, 1]
    assert [t.shape[1] for t in x.split([np.int64(3), torch.tensor(1)], 1)] == [3, 1]
    assert x.unfold(np.int64(2), torch.tensor(2), np.int64(3)).shape == (2, 4, 2, 2)
    np.testing.assert_array_equal(
        torch.rot90(x, torch.tensor(1), [1, np.int64(2)]).numpy(), np.rot90(x.numpy(), 1, (1, 2))
    )
    out = x.as_strided([2, torch.tensor(2)], (np.int64(6), 1), np.int64(1))
    np.testing.assert_array_equal(out.numpy(), [[1, 2], [7, 8]])
    assert F.one_hot(torch.tensor([0, 2]), np.int64(3)).tolist() == [[1, 0, 0], [0, 0, 1]]
    w = torch.ones(3, 2, requires_grad=True)
    F.embedding(torch.tensor([0, 1]), w, padding_idx=np.int64(1)).sum().backward()
    assert w.grad.tolist() == [[1, 1], [0, 0], [0, 0]]


def test_split_unfold_rot90_gradients():
    x = torch.randn(2, 4, 6, dtype=torch.float64, generator=torch.Generator().manual_seed(0))
    x.requires_grad_()
    assert gradcheck(lambda t: t.split([np.int64(1), 3], 1)[1], (x,))
    assert gradcheck(lambda t: t.unfold(2, np.int64(2), 2), (x,))
    assert gradgradcheck(lambda t: torch.rot90(t, np.int64(1), (1, 2)), (x,))


# --- foreach ---


def test_foreach_pow_scalar_base():
    steps = [torch.tensor(3.0), torch.tensor([1.0, 5.0])]
    out = torch._foreach_pow(0.9, steps)
    assert isinstance(out, tuple) and len(out) == 2
    np.testing.assert_allclose(out[0].numpy(), np.float32(0.9) ** 3, rtol=1e-6)
    np.testing.assert_allclose(out[1].numpy(), np.float32(0.9) ** np.array([1, 5]), rtol=1e-6)
    ints = torch._foreach_pow(2, [torch.tensor([1, 2, 3])])
    assert ints[0].dtype == torch.int64 and ints[0].tolist() == [2, 4, 8]
    e = torch.tensor([0.5, 2.0], dtype=torch.float64, requires_grad=True)
    assert gradcheck(lambda t: torch._foreach_pow(3.0, [t])[0], (e,))


def test_foreach_max():
    a = [torch.tensor([1.0, 2.0]), torch.tensor([[3, 9], [-1, 0]])]
    out = torch._foreach_max(a)
    assert out[0].shape == () and out[0].item() == 2.0
    assert out[1].dtype == torch.int64 and out[1].item() == 9
    with pytest.raises(RuntimeError, match="_foreach_max cannot compute the maximum of an empty"):
        torch._foreach_max([torch.tensor([])])


@pytest.mark.parametrize("op", ["addcdiv", "addcmul"])
def test_foreach_ternary_packed_scalars(op):
    a = [torch.tensor([1.0, 2.0]), torch.tensor([3.0])]
    b = [torch.tensor([0.5, 4.0]), torch.tensor([2.0])]
    scalars = torch.tensor([0.1, 0.2])
    want = {
        "addcdiv": [[1.2, 2.05], [3.3]],
        "addcmul": [[1.05, 2.8], [4.2]],
    }[op]
    out = getattr(torch, f"_foreach_{op}")(a, a, b, scalars)
    for o, w in zip(out, want, strict=True):
        np.testing.assert_allclose(o.numpy(), w, rtol=1e-6)
    xs = [t.clone() for t in a]
    assert getattr(torch, f"_foreach_{op}_")(xs, a, b, scalars) is xs
    for o, w in zip(xs, want, strict=True):
        np.testing.assert_allclose(o.numpy(), w, rtol=1e-6)
    with pytest.raises(RuntimeError, match="Expected packed scalar Tensor to be of dimension 1"):
        getattr(torch, f"_foreach_{op}")(a, a, b, torch.tensor(0.1))
    with pytest.raises(RuntimeError, match="match input of length 2 but got 3 instead"):
        getattr(torch, f"_foreach_{op}")(a, a, b, torch.tensor([0.1, 0.2, 0.3]))


@pytest.mark.parametrize(
    "call",
    [
        lambda: torch._foreach_add([], []),
        lambda: torch._foreach_add_([], 1),
        lambda: torch._foreach_mul([], 2.0),
        lambda: torch._foreach_exp([]),
        lambda: torch._foreach_zero_([]),
        lambda: torch._foreach_norm([]),
        lambda: torch._foreach_max([]),
        lambda: torch._foreach_addcmul_([], [], [], 1),
        lambda: torch._foreach_lerp_([], [], 0.5),
        lambda: torch._foreach_copy_([], []),
        lambda: torch._foreach_pow(2.0, []),
    ],
)
def test_foreach_empty_list_raises(call):
    with pytest.raises(RuntimeError, match=r"^Tensor list must have at least one tensor\.$"):
        call()


# --- argument errors ---


@pytest.mark.parametrize("op", ["batch_norm", "instance_norm"])
def test_norm_momentum_none_raises(op):
    x = torch.ones(4, 4, 3)
    kw = {"training": True} if op == "batch_norm" else {"use_input_stats": True}
    with pytest.raises(TypeError) as info:
        getattr(F, op)(x, torch.zeros(4), torch.ones(4), momentum=None, **kw)
    assert (
        str(info.value) == f"{op}(): argument 'momentum' (position 7) must be float, not NoneType"
    )


def test_batch_norm_module_momentum_none_still_works():
    bn = torch.nn.BatchNorm1d(2, momentum=None)  # the cumulative average
    bn(torch.tensor([[1.0, 2.0], [3.0, 6.0]]))
    bn(torch.tensor([[5.0, 2.0], [7.0, 2.0]]))
    np.testing.assert_allclose(bn.running_mean.numpy(), [4.0, 3.0], rtol=1e-6)


@pytest.mark.parametrize(
    "call, msg",
    [
        (
            lambda x: F.leaky_relu(x, None),
            "leaky_relu(): argument 'negative_slope' (position 2) must be Number, not NoneType",
        ),
        (
            lambda x: F.leaky_relu(x, "a"),
            "leaky_relu(): argument 'negative_slope' (position 2) must be Number, not str",
        ),
        (
            lambda x: F.elu(x, None),
            "elu(): argument 'alpha' (position 2) must be Number, not NoneType",
        ),
        (
            lambda x: F.softshrink(x, None),
            "softshrink(): argument 'lambd' (position 2) must be Number, not NoneType",
        ),
    ],
)
def test_activation_none_parameter(call, msg):
    with pytest.raises(TypeError) as info:
        call(torch.ones(3))
    assert str(info.value) == msg


def test_leaky_relu_numbers_still_accepted():
    x = torch.tensor([-2.0, 3.0])
    assert F.leaky_relu(x, np.float32(0.5)).tolist() == [-1.0, 3.0]
    assert F.leaky_relu(x, torch.tensor(0.25)).tolist() == [-0.5, 3.0]
    assert F.leaky_relu(x, 1).tolist() == [-2.0, 3.0]


@pytest.mark.parametrize("data, name", [([1.0, 2.0], "list"), (np.ones(2), "numpy.ndarray")])
def test_parameter_of_non_tensor_is_attribute_error(data, name):
    with pytest.raises(AttributeError) as info:
        torch.nn.Parameter(data)
    assert str(info.value) == f"'{name}' object has no attribute 'detach'"


# --- fill values that overflow the dtype ---


def _overflow(name):
    return pytest.raises(RuntimeError, match=f"^value cannot be converted to type {name} without")


MASK = [True, False, True]


@pytest.mark.parametrize(
    "dtype, value, name",
    [
        ("int8", torch.tensor(1000), "int8_t"),
        ("uint8", torch.tensor(256), "uint8_t"),
        ("int8", torch.tensor(200.0), "int8_t"),
        ("int32", torch.tensor(2**40), "int"),
        ("float32", torch.tensor(-1e39, dtype=torch.float64), "float"),
        ("float16", torch.tensor(-1e9), "c10::Half"),
        ("bfloat16", torch.tensor(-1e39, dtype=torch.float64), "c10::BFloat16"),
        ("float16", -1e9, "c10::Half"),
        ("int8", 1000, "int8_t"),
    ],
)
def test_fill_value_overflow(dtype, value, name):
    x = torch.zeros(3, dtype=getattr(torch, dtype))
    mask = torch.tensor(MASK)
    with _overflow(name):
        x.masked_fill(mask, value)
    with _overflow(name):
        x.clone().masked_fill_(mask, value)
    with _overflow(name):
        x.index_fill(0, torch.tensor([0]), value)


def test_fill_value_in_range_tensor():
    mask = torch.tensor(MASK)
    z = torch.zeros(3, dtype=torch.uint8)
    assert z.masked_fill(mask, torch.tensor(-1)).tolist() == [255, 0, 255]  # c10 wraps -1
    z = torch.zeros(3, dtype=torch.int8)
    assert z.masked_fill(mask, torch.tensor(-1.5)).tolist() == [-1, 0, -1]
    assert z.masked_fill(mask, torch.tensor(True)).tolist() == [1, 0, 1]
    h = torch.zeros(3, dtype=torch.float16)
    assert h.masked_fill(mask, torch.tensor(float("-inf"))).tolist() == [-np.inf, 0.0, -np.inf]
    assert h.masked_fill(mask, torch.tensor(-65504.0)).tolist() == [-65504.0, 0.0, -65504.0]
    f = torch.zeros(3)
    got = f.masked_fill(mask, torch.tensor(-1e30, dtype=torch.float64)).tolist()
    np.testing.assert_allclose(got, [np.float32(-1e30), 0.0, np.float32(-1e30)])


def test_masked_fill_tensor_value_gradient():
    x = torch.randn(3, dtype=torch.float64, generator=torch.Generator().manual_seed(1))
    v = torch.tensor(2.0, dtype=torch.float32, requires_grad=True)
    mask = torch.tensor(MASK)
    x.requires_grad_()
    assert gradcheck(lambda a: a.masked_fill(mask, v.detach()), (x,))
    x.masked_fill(mask, v).sum().backward()
    assert v.grad.item() == 2.0


@pytest.mark.parametrize(
    "dtype, kw, name",
    [
        ("float16", {"min": -1e9}, "c10::Half"),
        ("float16", {"max": 1e9}, "c10::Half"),
        ("float16", {"min": -65519.0}, "c10::Half"),
        ("float16", {"max": 100000}, "c10::Half"),
        ("bfloat16", {"min": -1e39}, "c10::BFloat16"),
        ("float32", {"min": -1e39}, "float"),
    ],
)
def test_clamp_bound_overflow(dtype, kw, name):
    x = torch.zeros(3, dtype=getattr(torch, dtype))
    with _overflow(name):
        x.clamp(**kw)
    with _overflow(name):
        x.clone().clamp_(**kw)


def test_clamp_bounds_in_range():
    h = torch.tensor([-6e4, 0.0, 6e4], dtype=torch.float16)
    assert h.clamp(min=float("-inf"), max=1.0).tolist() == [-6e4, 0.0, 1.0]
    np.testing.assert_allclose(torch.zeros(2).clamp(min=-1e30).numpy(), [0.0, 0.0])
    assert torch.zeros(2, dtype=torch.float64).clamp(min=-1e39).tolist() == [0.0, 0.0]
    assert torch.zeros(2, dtype=torch.uint8).clamp(min=-1).tolist() == [255, 255]
    x = torch.tensor([-2.0, 0.5, 2.0], dtype=torch.float64, requires_grad=True)
    assert gradcheck(lambda t: t.clamp(min=-1.0, max=1e30), (x,))


def test_hardtanh_half_bound_overflow():
    with _overflow("c10::Half"):
        F.hardtanh(torch.zeros(3, dtype=torch.float16), -1e9, 1e9)
    assert F.hardtanh(torch.tensor([-2e9, 2e9]), -1e9, 1e9).tolist() == [-1e9, 1e9]


# --- gradcheck messages ---


class _Doubled(torch.autograd.Function):
    """A wrong backward: twice the true gradient."""

    @staticmethod
    def forward(ctx, x):
        return x * 1

    @staticmethod
    def backward(ctx, g):
        return g * 2


def test_fast_gradcheck_prints_floats():
    x = torch.ones(3, dtype=torch.float64, requires_grad=True)
    with pytest.raises(GradcheckError) as info:
        gradcheck(_Doubled.apply, (x,), fast_mode=True)
    lines = str(info.value).splitlines()
    assert lines[0] == "Jacobian mismatch for output 0 with respect to input 0,"
    assert lines[1].startswith("numerical:") and lines[2].startswith("analytical:")
    numerical = float(lines[1][len("numerical:") :])  # a plain float, not tensor(...)
    analytical = float(lines[2][len("analytical:") :])
    np.testing.assert_allclose(analytical, 2 * numerical, rtol=1e-6)


def test_not_reentrant_message_has_torch_note():
    calls = [0]

    class Noisy(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 1

        @staticmethod
        def backward(ctx, g):
            calls[0] += 1
            return g + (1e-3 if calls[0] % 2 else 0.0)

    x = torch.ones(2, dtype=torch.float64, requires_grad=True)
    with pytest.raises(GradcheckError) as info:
        gradcheck(Noisy.apply, (x,), fast_mode=True, atol=1e-2)
    msg = str(info.value)
    assert msg.startswith("Backward is not reentrant")
    assert "The tolerance for nondeterminism was 0.0.\n\nNOTE: If your op relies on" in msg
    assert msg.endswith("module_test entry to have `gradcheck_nondet_tol=<tol>`\n")
