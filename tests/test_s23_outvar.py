"""Session 23: out= arguments and in-place variants against torch 2.13 (values stated as literals
obtained by running torch)."""

import warnings

import numpy as np
import pytest

import minitorch as torch

NO_AUTOGRAD = (
    "functions with out=... arguments don't support automatic differentiation, but one of the "
    "arguments requires grad."
)
OVERLAP = (
    "unsupported operation: some elements of the input tensor and the written-to tensor refer to "
    "a single memory location. Please clone() the tensor before performing the operation."
)


def test_out_resize_warning_has_torchs_full_text():
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        torch.sin(torch.ones(3), out=torch.zeros(2))
    assert [str(x.message) for x in w] == [
        "An output with one or more elements was resized since it had shape [2], which does not "
        "match the required output shape [3]. This behavior is deprecated, and in a future "
        "PyTorch release outputs will not be resized unless they have zero elements. You can "
        "explicitly reuse an out tensor t by resizing it, inplace, to zero elements with "
        "t.resize_(0)."
    ]


def _x():
    return torch.tensor([0.5, 0.25, 0.75], requires_grad=True)


def _a():
    return torch.tensor([[2.0, 1.0], [1.0, 3.0]], requires_grad=True)


@pytest.mark.parametrize(
    "name, call",
    [
        ("log1p", lambda: torch.log1p(_x(), out=torch.zeros(3))),
        ("deg2rad", lambda: torch.deg2rad(_x(), out=torch.zeros(3))),
        ("special_i0e", lambda: torch.special.i0e(_x(), out=torch.zeros(3))),
        ("special_xlog1py", lambda: torch.special.xlog1py(_x(), _x(), out=torch.zeros(3))),
        ("_linalg_det", lambda: torch.linalg.det(_a(), out=torch.zeros(()))),
        ("_linalg_eigh", lambda: torch.linalg.eigh(_a(), out=(torch.zeros(2), torch.zeros(2, 2)))),
        ("_linalg_solve_ex", lambda: torch.linalg.solve(_a(), _a(), out=torch.zeros(2, 2))),
        (
            "_linalg_svd",
            lambda: torch.linalg.svd(
                _a(), out=(torch.zeros(2, 2), torch.zeros(2), torch.zeros(2, 2))
            ),
        ),
    ],
)
def test_out_autograd_error_names_torchs_op(name, call):
    # the op's name came from its node's class name: Log1PBackward0 gave "log1_p"
    with pytest.raises(RuntimeError) as e:
        call()
    assert str(e.value) == f"{name}(): {NO_AUTOGRAD}"


@pytest.mark.parametrize(
    "call",
    [
        lambda x: torch.outer(x, x, out=x),
        lambda x: torch.ger(x, x, out=x),
        lambda x: torch.kron(x, x, out=x),
        lambda x: torch.linalg.cross(x, x + 1, out=x),
        lambda x: torch.cross(x, x + 1, dim=0, out=x),
    ],
)
def test_out_sharing_an_inputs_memory_is_refused(call):
    x = torch.tensor([1.0, -2.0, 3.0])
    with pytest.raises(RuntimeError) as e:
        call(x)
    assert str(e.value) == OVERLAP


def test_out_of_other_memory_still_written():
    base = torch.zeros(12)
    v = torch.tensor([1.0, 2.0])
    out = torch.outer(v, v, out=base[:4].view(2, 2))
    np.testing.assert_array_equal(base[:4].numpy(), [1.0, 2.0, 2.0, 4.0])
    assert out._base is base
    x = torch.tensor([1.0, 0.0, 0.0])
    r = torch.linalg.cross(x, torch.tensor([0.0, 1.0, 0.0]), out=base[6:9])
    np.testing.assert_array_equal(r.numpy(), [0.0, 0.0, 1.0])


@pytest.mark.parametrize(
    "call, want",
    [
        (lambda x, o: torch.sgn(x, out=o(torch.float64)), "Found dtype Double but expected Float"),
        (
            lambda x, o: torch.sgn(x.long(), out=o(torch.float32)),
            "Found dtype Float but expected Long",
        ),
        (
            lambda x, o: torch.lerp(x, x, x, out=o(torch.float64)),
            "Found dtype Double but expected Float",
        ),
        (
            lambda x, o: torch.conj_physical(x, out=o(torch.float64)),
            "Found dtype Double but expected Float",
        ),
        (
            lambda x, o: torch.frexp(x, out=(o(torch.float64), o(torch.int32))),
            "torch.frexp() expects mantissa to have dtype float but got double",
        ),
        (
            lambda x, o: torch.frexp(x.double(), out=(o(torch.float16), o(torch.int32))),
            "torch.frexp() expects mantissa to have dtype double but got c10::Half",
        ),
        (
            lambda x, o: torch.frexp(x, out=(o(torch.float32), o(torch.int64))),
            "torch.frexp() expects exponent to have int dtype but got long int",
        ),
        (
            lambda x, o: torch.max(x, out=torch.zeros((), dtype=torch.long)),
            "Expected canCast( typeMetaToScalarType(self.dtype()), "
            "typeMetaToScalarType(out.dtype())) to be true, but got false.  (Could this error "
            "message be improved?  If so, please report an enhancement request to PyTorch.)",
        ),
        (
            lambda x, o: torch.mvlgamma(x.double() + 3, 2, out=o(torch.long)),
            "mvlgamma: result type Double can't be cast to the desired output type Double",
        ),
        (
            lambda x, o: torch.inner(x, x, out=torch.zeros((), dtype=torch.float64)),
            "tensordot: Expected the output tensor to have dtype Float, but got an output tensor "
            "with dtype Double",
        ),
        (
            lambda x, o: torch.linalg.matrix_rank(
                torch.eye(3), out=torch.zeros((), dtype=torch.bool)
            ),
            "torch.linalg.matrix_rank: Expected result to be safely castable from Long dtype, but "
            "got result with dtype Bool",
        ),
    ],
)
def test_out_dtype_refusals(call, want):
    x = torch.tensor([1.0, -2.0, 3.0])
    with pytest.raises(RuntimeError) as e:
        call(x, lambda dt: torch.zeros(3, dtype=dt))
    assert str(e.value) == want


def test_out_dtype_casts_torch_allows():
    x = torch.tensor([1.0, -2.0, 3.0])
    o = torch.zeros(3, dtype=torch.float64)
    assert torch.lerp(x, x + 2, 0.5, out=o) is o  # a number weight casts
    np.testing.assert_array_equal(o.numpy(), [2.0, -1.0, 4.0])
    m = torch.zeros(())
    assert torch.min(torch.tensor([4, -2, 3]), out=m) is m  # an integer min into a float out
    assert m.item() == -2.0
    f = torch.zeros(3, dtype=torch.float64)
    e = torch.zeros(3, dtype=torch.int32)
    r = torch.frexp(x.double(), out=(f, e))
    assert r.mantissa is f and r.exponent is e
    np.testing.assert_array_equal(f.numpy(), [0.5, -0.5, 0.75])
    np.testing.assert_array_equal(e.numpy(), [1, 2, 2])


def test_conj_physical_inplace_is_an_inplace_op():
    x = torch.ones(3)
    v = x._version
    assert x.conj_physical_() is x
    assert torch.conj_physical_(x) is x
    assert x._version == v + 2
    with pytest.raises(RuntimeError, match="a leaf Variable that requires grad is being used"):
        torch.ones(2, requires_grad=True).conj_physical_()
    y = torch.ones(3, requires_grad=True).exp()  # exp saves its output
    y.conj_physical_()
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        y.sum().backward()


@pytest.mark.parametrize(
    "call, want",
    [
        (lambda i: i.clamp_(-0.5, 0.5), "Float can't be cast to the desired output type long int"),
        (lambda i: i.clamp_min_(0.5), "Float can't be cast to the desired output type long int"),
        (lambda i: i.int().clamp_max_(0.5), "Float can't be cast to the desired output type int"),
        (lambda i: i.clip_(-0.5, 0.5), "Float can't be cast to the desired output type long int"),
        (lambda i: (i > 0).clamp_(0, 1), "Long can't be cast to the desired output type bool"),
        (
            lambda i: i.clamp_(torch.tensor(0.5)),
            "Float can't be cast to the desired output type Long",  # a tensor bound: torch's usual
        ),
    ],
)
def test_inplace_clamp_with_number_bounds_names_the_type_in_cpp(call, want):
    with pytest.raises(RuntimeError) as e:
        call(torch.tensor([1, -2, 3]))
    assert str(e.value) == "result type " + want


def test_bfloat16_clamp_refuses_an_out_of_another_dtype():
    x = torch.tensor([1.0, -2.0, 3.0]).bfloat16()
    with pytest.raises(RuntimeError) as e:
        torch.clamp(x, -0.5, 0.5, out=torch.zeros(3))
    assert str(e.value) == "Found dtype Float but expected BFloat16"
    o = torch.zeros(3, dtype=torch.bfloat16)
    assert torch.clamp(x, -0.5, 0.5, out=o) is o
    np.testing.assert_array_equal(o.float().numpy(), [0.5, -0.5, 0.5])


@pytest.mark.parametrize(
    "call, want",
    [
        (
            lambda: torch.zeros(1, 5).addmm_(torch.ones(3, 4), torch.ones(4, 5)),
            "Bad in-place call: input tensor size [1, 5] and output tensor size [3, 5] should "
            "match",
        ),
        (
            lambda: torch.zeros(()).addmv_(torch.ones(3, 4), torch.ones(4)),
            "Bad in-place call: input tensor size [] and output tensor size [3] should match",
        ),
        (
            lambda: torch.zeros(3, 4).baddbmm_(torch.ones(2, 3, 5), torch.ones(2, 5, 4)),
            "Bad in-place call: input tensor size [3, 4] and output tensor size [2, 3, 4] should "
            "match",
        ),
        (
            lambda: torch.zeros(4).addr_(torch.ones(3), torch.ones(4)),
            "2D tensor expected, got 1D tensor for input",
        ),
        (
            lambda: torch.zeros(1, 4).addr_(torch.ones(3), torch.ones(4)),
            "size mismatch, input: [1, 4], v1: [3], v2: [4]",
        ),
        (
            lambda: torch.zeros(3).scatter_add_(0, torch.tensor([0]), torch.ones(1).double()),
            "scatter(): Expected self.dtype to be equal to src.dtype",
        ),
        (
            lambda: torch.scatter_reduce(
                torch.zeros(3), 0, torch.tensor([0]), torch.ones(1).double(), "amax"
            ),
            "scatter(): Expected self.dtype to be equal to src.dtype",
        ),
        (
            lambda: torch.ones(3, dtype=torch.long).mvlgamma_(2),
            "mvlgamma: result type Long can't be cast to the desired output type Float",
        ),
        (
            lambda: torch.ones(3, dtype=torch.bool).mvlgamma_(2),
            "The input tensor may not be a boolean tensor.",
        ),
    ],
)
def test_inplace_kernel_refusals(call, want):
    with pytest.raises(RuntimeError) as e:
        call()
    assert str(e.value) == want


def test_inplace_products_of_the_right_shape_still_work():
    x = torch.ones(3, 5)
    assert x.addmm_(torch.ones(3, 4), torch.ones(4, 5), beta=2) is x
    np.testing.assert_array_equal(x.numpy(), np.full((3, 5), 6.0))
    v = torch.ones(3)
    assert v.addmv_(torch.ones(3, 4), torch.ones(4)) is v
    np.testing.assert_array_equal(v.numpy(), [5.0, 5.0, 5.0])
    m = torch.zeros(3, 4)
    assert m.addr_(torch.ones(3), torch.arange(4.0)) is m
    np.testing.assert_array_equal(m.numpy()[0], [0.0, 1.0, 2.0, 3.0])
