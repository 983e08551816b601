"""Drop-in gaps found by the sixth sweep (semi-supervised training code, legacy code, 3-D code):
AveragedModel's first update, _foreach_* keyword operands, torch.functional, torch.typename,
the has_* build flags, nn.init's _no_grad_* helpers, nn.parallel.data_parallel as a module."""

from __future__ import annotations

import importlib
import warnings

import numpy as np
import pytest

import minitorch as torch
from minitorch import nn


def test_averaged_model_first_update_only_copies():
    # torch copies the model in on the first call; avg_fn first runs at the second, with n = 1
    seen = []

    def ema(avg, cur, n):
        seen.append(int(n))
        return avg + (cur - avg) / n  # a user's 1 / n: fine for n >= 1

    model = nn.Linear(2, 2)
    swa = torch.optim.swa_utils.AveragedModel(model, avg_fn=ema)
    for step in range(3):
        with torch.no_grad():
            model.weight.fill_(float(step))
        swa.update_parameters(model)
    assert seen == [1, 1, 2, 2]  # weight and bias, at the second and third updates
    np.testing.assert_allclose(
        swa.module.weight.detach().numpy(), np.full((2, 2), 1.5)
    )  # 0, 1, 1.5
    assert int(swa.n_averaged) == 3


def test_averaged_model_first_update_skips_multi_avg_fn():
    calls = []

    def multi(avg_list, cur_list, n):
        calls.append(int(n))
        for a, c in zip(avg_list, cur_list, strict=True):
            a.add_(c - a, alpha=1.0 / int(n))

    model = nn.Linear(2, 1)
    swa = torch.optim.swa_utils.AveragedModel(model, multi_avg_fn=multi)
    swa.update_parameters(model)
    swa.update_parameters(model)
    assert calls == [1]


def test_foreach_operands_by_keyword():
    xs = [torch.ones(2), torch.ones(3)]
    torch._foreach_mul_(xs, scalar=0.5)
    torch._foreach_mul_(xs, scalars=[2.0, 4.0])
    assert [x.tolist() for x in xs] == [[1.0, 1.0], [2.0, 2.0, 2.0]]
    ys = torch._foreach_add(xs, other=[torch.ones(2), torch.ones(3)], alpha=2)
    assert [y.tolist() for y in ys] == [[3.0, 3.0], [4.0, 4.0, 4.0]]
    assert torch._foreach_pow(xs, exponent=2.0)[1].tolist() == [4.0, 4.0, 4.0]
    # no overload takes them: the parser lists mul_'s four, as torch's
    refused = r"_foreach_mul_\(\) received an invalid combination of arguments - got \(list, "
    with pytest.raises(TypeError, match=refused + r"exponent=float\)"):
        torch._foreach_mul_(xs, exponent=2.0)
    with pytest.raises(TypeError, match=refused + r"float, scalar=float\)"):
        torch._foreach_mul_(xs, 2.0, scalar=2.0)


def test_foreach_scalar_tensor_must_be_0d():
    xs = [torch.ones(2)]
    with pytest.raises(RuntimeError, match="scalar tensor expected to be 0 dim but it has 1"):
        torch._foreach_mul_(xs, torch.tensor([2.0]))
    torch._foreach_mul_(xs, torch.tensor(2.0))
    assert xs[0].tolist() == [2.0, 2.0]


def test_torch_functional_module():
    import minitorch.functional as tf

    x = torch.tensor([[1.0, -2.0], [3.0, 4.0]])
    assert torch.functional is tf
    assert tf.F is torch.nn.functional
    assert tf.F.relu(x).tolist() == [[1.0, 0.0], [3.0, 4.0]]
    np.testing.assert_allclose(tf.norm(x, dim=-1).numpy(), [5**0.5, 5.0], rtol=1e-6)
    assert [t.tolist() for t in tf.split(x, 1)] == [[[1.0, -2.0]], [[3.0, 4.0]]]
    assert tf.einsum("ij->ji", x).tolist() == [[1.0, 3.0], [-2.0, 4.0]]
    assert tf.Tensor is torch.Tensor
    with pytest.raises(AttributeError):
        tf.relu  # noqa: B018 (torch.functional has no relu of its own)


def test_typename_is_dotted():
    assert torch.typename(np.zeros(1)) == "numpy.ndarray"
    assert torch.typename(nn.Linear(1, 1)) == "minitorch.nn.modules.linear.Linear"
    assert torch.typename(nn.Linear) == "minitorch.nn.modules.linear.Linear"
    assert torch.typename(1) == "int"
    assert torch.typename(len) == "len"
    assert torch.typename(torch.zeros(1)) == "torch.FloatTensor"


def test_build_flags():
    with pytest.warns(UserWarning, match="'has_cuda' is deprecated"):
        assert torch.has_cuda is torch.backends.cuda.is_built()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert torch.has_lapack is True
        assert torch.has_mkl is torch.backends.mkl.is_available()


def test_init_no_grad_helpers():
    torch.manual_seed(0)
    w = torch.empty(200, 50, requires_grad=True)
    nn.init._no_grad_trunc_normal_(w, 0.0, 1.0, -0.5, 0.5)
    assert w.requires_grad and w.grad_fn is None
    assert -0.5 <= w.min().item() and w.max().item() <= 0.5
    nn.init._no_grad_uniform_(w, 2.0, 3.0)
    assert 2.0 <= w.min().item() and w.max().item() < 3.0
    nn.init._no_grad_normal_(w, 10.0, 0.1)
    assert abs(w.mean().item() - 10.0) < 0.01
    nn.init._no_grad_fill_(w, 7.0)
    assert (w == 7.0).all()
    nn.init._no_grad_zero_(w)
    assert (w == 0).all()


def test_data_parallel_is_a_module_too():
    mod = importlib.import_module("minitorch.nn.parallel.data_parallel")
    assert mod.DataParallel is nn.DataParallel
    # the package attribute stays the function (as torch's)
    assert callable(nn.parallel.data_parallel) and nn.parallel.data_parallel is mod.data_parallel


def test_detach_in_place_after_forward_freezes_the_leaf():
    # a teacher's parameters frozen with detach_() between forward and backward get no .grad
    p = nn.Parameter(torch.ones(2))
    q = nn.Parameter(torch.ones(2))
    y = (p * p + q).sum()
    p.detach_()
    y.backward()
    assert p.grad is None and not p.requires_grad
    assert q.grad.tolist() == [1.0, 1.0]
    p.requires_grad_()  # and it can learn again
    (p * 3).sum().backward()
    assert p.grad.tolist() == [3.0, 3.0]


def test_torch_types_aliases():
    import typing

    from minitorch.types import Device, Number, _size

    assert torch.types._dtype is torch.dtype and torch.types._device is torch.device
    assert isinstance(3.5, torch.types._Number) and not isinstance("3", torch.types._Number)
    assert set(typing.get_args(Number)) == {int, float, bool}
    assert torch.Size in typing.get_args(_size)
    assert torch.device in typing.get_args(Device) and type(None) in typing.get_args(Device)


def test_parameter_rebuilt_from_a_used_parameters_dict():
    # accelerate / HF loading: type(p)(new, requires_grad=..., **p.__dict__) after p was used
    model = nn.Linear(3, 2)
    model(torch.ones(1, 3)).sum().backward()
    old = model._parameters["weight"]
    new = type(old)(torch.zeros(2, 3), requires_grad=old.requires_grad, **old.__dict__)
    assert isinstance(new, nn.Parameter) and new.requires_grad and new.grad is None
    model._parameters["weight"] = new
    model(torch.ones(1, 3)).sum().backward()
    assert model.weight.grad.tolist() == [[1.0, 1.0, 1.0], [1.0, 1.0, 1.0]]
    with pytest.raises(TypeError, match="unexpected keyword argument 'scale'"):
        nn.Parameter(torch.zeros(2), scale=2)


def test_numpy_subclasses_are_read_as_plain_arrays():
    # scipy.sparse's todense() gives np.matrix, whose * is a matrix product and whose rows are 2-d
    m = np.matrix([[0.0, 1.0], [2.0, 3.0]])
    for t in (torch.from_numpy(m), torch.as_tensor(m)):
        assert (t * t).tolist() == [[0.0, 1.0], [4.0, 9.0]]
        assert t[0].shape == (2,) and t.unsqueeze(0).shape == (1, 2, 2)
        assert type(t.numpy()) is np.ndarray
        t[0, 0] = 5.0
        assert m[0, 0] == 5.0  # still the matrix's memory
        m[0, 0] = 0.0
    batch = torch.utils.data.default_collate([m, m])
    assert batch.shape == (2, 2, 2)
    masked = np.ma.masked_array([1.0, 2.0, 3.0], mask=[False, True, False])
    assert (torch.from_numpy(masked) * 2).tolist() == [2.0, 4.0, 6.0]  # the data, as torch


def test_tensor_of_an_object_pandas_column():
    pd = pytest.importorskip("pandas")
    t = torch.tensor(pd.Series([0.5, 0.0, 2.0], dtype=object))
    assert t.dtype == torch.float32 and t.tolist() == [0.5, 0.0, 2.0]
    t = torch.tensor(pd.Series([1, 0, 1]).astype(object))
    assert t.dtype == torch.int64 and t.tolist() == [1, 0, 1]
    with pytest.raises(ValueError, match="too many dimensions 'str'"):
        torch.tensor(pd.Series(["a", "b"]))


def test_vdot_node_name_and_sparse_torch_alias():
    a = torch.tensor([1.0, 2.0], requires_grad=True)
    out = torch.vdot(a, torch.tensor([3.0, 4.0]))
    assert out.grad_fn.name() == "VdotBackward0"
    out.backward()
    assert a.grad.tolist() == [3.0, 4.0]
    # CapsNet code's one-hot: torch.sparse.torch.eye(n).index_select(0, labels)
    one_hot = torch.sparse.torch.eye(3).index_select(0, torch.tensor([2, 0]))
    assert one_hot.tolist() == [[0.0, 0.0, 1.0], [1.0, 0.0, 0.0]]


def test_structured_array_fields_are_refused_as_torch():
    ev = np.zeros(4, dtype=[("x", np.int16), ("y", np.int16), ("t", np.int64), ("p", bool)])
    for make in (torch.from_numpy, torch.tensor, torch.as_tensor):
        with pytest.raises(ValueError, match="strides not a multiple of the element byte size"):
            make(ev["x"])
    assert torch.from_numpy(ev["x"].copy()).tolist() == [0, 0, 0, 0]
    assert torch.from_numpy(np.arange(6)[::2]).stride() == (2,)  # whole-element strides pass


def test_writes_into_a_reductions_spread_gradient():
    # after loss = y.sum(), grad_output is one element spread over y's shape: a custom backward
    # writing into it (no clone) writes that element, as torch's (which warns it is deprecated)
    class ClampBackward(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            y = torch.clamp(x, min=0)
            ctx.save_for_backward(y)
            return y

        @staticmethod
        def backward(ctx, grad_output):
            (y,) = ctx.saved_tensors
            grad_output[y == 0] = 0
            return grad_output

    x = torch.tensor([[-1.0, 2.0], [4.0, 6.0]], requires_grad=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ClampBackward.apply(x).sum().backward()
    assert x.grad.tolist() == [[0.0, 0.0], [0.0, 0.0]]  # torch's numbers: the one element is 0
    x2 = torch.ones(2, 2, requires_grad=True)
    y = x2 * 2
    y.register_hook(lambda g: g.masked_fill_(g > 0, 0.5))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        y.sum().backward()
    assert x2.grad.tolist() == [[1.0, 1.0], [1.0, 1.0]]
    (x2 * 3).sum().backward()  # the next backward starts from fresh ones
    assert x2.grad.tolist() == [[4.0, 4.0], [4.0, 4.0]]


def test_hf_modeling_error_paths():
    # GPT-2's Conv1D without x.view(-1, nx): torch blames mat1, not the (fine) bias
    with pytest.raises(RuntimeError, match="mat1 must be a matrix, got 3-D tensor"):
        torch.addmm(torch.zeros(4), torch.zeros(2, 3, 4), torch.zeros(4, 4))
    with pytest.raises(RuntimeError, match="mat2 must be a matrix, got 1-D tensor"):
        torch.addmm(torch.zeros(4), torch.zeros(2, 3), torch.zeros(4))
    # a config's approximate=True
    with pytest.raises(TypeError, match="argument 'approximate' must be str, not bool"):
        torch.nn.functional.gelu(torch.zeros(2), approximate=True)
    with pytest.raises(RuntimeError, match="approximate argument must be either none or tanh"):
        torch.nn.functional.gelu(torch.zeros(2), approximate="x")
    assert torch._dynamo.mark_static_address(torch.zeros(2)) is None  # HF's StaticCache


def test_arithmetic_functions_of_two_python_numbers():
    # HF Longformer / wav2vec2: torch.div(seq_len, window, rounding_mode="trunc") on .size() ints
    r = torch.div(8, 3, rounding_mode="trunc")
    assert r.dtype == torch.int64 and r.item() == 2 and r.ndim == 0
    assert torch.div(8, 3).dtype == torch.float32
    assert torch.true_divide(1, 2).item() == 0.5
    assert torch.add(1, 2, alpha=3).item() == 7 and torch.add(1, 2).dtype == torch.int64
    assert torch.mul(2.5, 3).dtype == torch.float32 and torch.sub(5, 2).item() == 3
    assert torch.floor_divide(7, 2).item() == 3
    with pytest.raises(TypeError, match=r"neg\(\): argument 'input' \(position 1\) must be Tensor"):
        torch.neg(1)
    with pytest.raises(TypeError, match=r"got \(int, int\)"):
        torch.pow(2, 3)
    with pytest.raises(TypeError):
        torch.maximum(1, 2)


def test_keyword_forms_of_torch_level_inplace_functions():
    x = torch.tensor([1.0, float("nan"), -2.0])
    assert torch.relu_(input=x.clone()).tolist()[::2] == [1.0, 0.0]
    assert torch.clamp_(input=x.clone(), min=0.0).tolist()[::2] == [1.0, 0.0]
    assert torch.fill_(input=x.clone(), value=2.0).tolist() == [2.0, 2.0, 2.0]
    assert torch.zero_(input=x.clone()).tolist() == [0.0, 0.0, 0.0]
    assert torch.nan_to_num_(input=x.clone()).tolist() == [1.0, 0.0, -2.0]
    assert torch.nan_to_num(x, nan=None).tolist() == [1.0, 0.0, -2.0]
    assert x.nan_to_num(nan=None, posinf=None, neginf=None).tolist() == [1.0, 0.0, -2.0]
    assert torch.logit_(input=torch.tensor([0.5])).tolist() == [0.0]
    assert torch.result_type(tensor=x, other=1) == torch.float32
