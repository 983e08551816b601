"""Session 33 (helper hyperbolic): torch-free regression tests of the library fixes the
hyperbolic and Riemannian programs of tests/reference/test_s33_hyperbolic_reference.py found:
Tensor._make_subclass's argument errors (geoopt's ManifoldParameter builds its instances with
it); Tensor.renorm/renorm_ called with too few or too many arguments; embedding_renorm_'s
checks of the weight (its rank, an integer weight's norm() error, an empty index);
linalg.solve/solve_ex/lu_solve's bool flags; and the private helpers of torch.optim.optimizer
that copies of torch's optimizers call (_accelerator_graph_capture_health_check and its
deprecated alias _cuda_graph_capture_health_check, _optimizer_step_code, _to_scalar,
_get_capturable_supported_devices), with the check the built-in optimizers now run at each step
(its warning tested with a stand-in accelerator). torch's messages are written here as
literals."""

from __future__ import annotations

import pickle
import warnings

import numpy as np
import pytest

import minitorch as mt
from minitorch.optim import optimizer as opt_mod


def _message(exc_type, fn):
    with pytest.raises(exc_type) as info:
        fn()
    return str(info.value)


# --- Tensor._make_subclass ---


class _ManifoldParameter(mt.nn.Parameter):
    def __new__(cls, data, manifold=None, requires_grad=True):
        instance = mt.Tensor._make_subclass(cls, data, requires_grad)
        instance.manifold = manifold
        return instance


def test_make_subclass_builds_a_parameter_subclass():
    x = mt.randn(3, 2, generator=mt.Generator().manual_seed(0))
    p = _ManifoldParameter(x, manifold="ball")
    assert type(p) is _ManifoldParameter and p.requires_grad and p.manifold == "ball"
    assert p.data_ptr() == x.data_ptr()
    q = mt.Tensor._make_subclass(mt.nn.Parameter, x, dispatch_device=True)
    assert not q.requires_grad


def test_make_subclass_argument_errors():
    x = mt.ones(2)
    make = mt.Tensor._make_subclass
    P = mt.nn.Parameter
    assert _message(TypeError, lambda: make(P, x, True, None, False)) == (
        "_make_subclass() takes from 2 to 3 positional arguments but 5 were given"
    )
    assert _message(TypeError, lambda: make(P, x, True, foo=1)) == (
        "_make_subclass() got an unexpected keyword argument 'foo'"
    )
    assert _message(TypeError, lambda: make(P, x, 1)) == (
        "_make_subclass(): argument 'require_grad' (position 3) must be bool, not int"
    )
    assert _message(TypeError, lambda: make(P, x, require_grad=2)) == (
        "_make_subclass(): argument 'require_grad' must be bool, not int"
    )
    assert _message(TypeError, lambda: make(P, x, None)) == (
        "_make_subclass(): argument 'require_grad' (position 3) must be bool, not NoneType"
    )
    assert _message(TypeError, lambda: make(P, x, np.bool_(True))) == (
        "_make_subclass(): argument 'require_grad' (position 3) must be bool, not numpy.bool"
    )
    # the data's type is reported before require_grad's
    assert _message(TypeError, lambda: make(P, 3, 1)) == (
        "_make_subclass(): argument 'data' (position 2) must be Tensor, not int"
    )
    assert _message(RuntimeError, lambda: make(mt.Tensor, mt.tensor([1]), True)) == (
        "Only Tensors of floating point and complex dtype can require gradients"
    )
    assert make(P, mt.tensor([1]), False).dtype == mt.int64


# --- Tensor.renorm / renorm_ with too few or too many arguments ---


@pytest.mark.parametrize(
    "call, message",
    [
        (lambda x: x.renorm(), 'renorm() missing 3 required positional argument: "p", "dim", '
         '"maxnorm"'),
        (lambda x: x.renorm(2), 'renorm() missing 2 required positional argument: "dim", '
         '"maxnorm"'),
        (lambda x: x.renorm(2, 0), 'renorm() missing 1 required positional arguments: "maxnorm"'),
        (lambda x: x.renorm(p=2, maxnorm=1), 'renorm() missing 2 required positional argument: '
         '"dim", "maxnorm"'),
        (lambda x: x.renorm_(2, 0), 'renorm_() missing 1 required positional arguments: '
         '"maxnorm"'),
        (lambda x: x.renorm(2, 0, 1, 3), "renorm() takes 3 positional arguments but 4 were "
         "given"),
        (lambda x: x.renorm("a", 0, 1, 3), "renorm() takes 3 positional arguments but 4 were "
         "given"),
        (lambda x: x.renorm(2, "a"), "renorm(): argument 'dim' (position 2) must be int, not "
         "str"),
        (lambda x: x.renorm_(2, 1.0), "renorm_(): argument 'dim' (position 2) must be int, not "
         "float"),
        (lambda x: x.renorm(2, dim=1.0), "renorm(): argument 'dim' must be int, not float"),
        (lambda x: x.renorm("a"), "renorm(): argument 'p' (position 1) must be Number, not str"),
    ],
)  # fmt: skip
def test_renorm_method_argument_counts(call, message):
    x = mt.ones(2, 3)
    assert _message(TypeError, lambda: call(x)) == message


def test_renorm_method_keywords_still_work():
    x = mt.tensor([[3.0, 4.0], [0.3, 0.4]])
    out = x.renorm(maxnorm=1.0, dim=0, p=2)
    np.testing.assert_allclose(out.numpy(), [[0.6, 0.8], [0.3, 0.4]], rtol=1e-6)


# --- embedding_renorm_ ---


def test_embedding_renorm_weight_checks():
    w = mt.ones(3, 2, dtype=mt.long)
    assert _message(RuntimeError, lambda: mt.embedding_renorm_(w, mt.tensor([0]), 1.0, 2.0)) == (
        "norm(): input dtype should be either floating point or complex. Got Long instead."
    )
    assert (
        _message(RuntimeError, lambda: mt.embedding_renorm_(w.bool(), mt.tensor([0]), 1.0, 2.0))
        == "norm(): input dtype should be either floating point or complex. Got Bool instead."
    )
    for weight, rank in ((mt.ones(3), 1), (mt.ones(3, 2, 2), 3)):
        assert _message(
            RuntimeError,
            lambda weight=weight: mt.embedding_renorm_(weight, mt.tensor([0]), 1.0, 2.0),
        ) == (
            f"Expected 2-dimensional tensor, but got {rank}-dimensional tensor for argument #1 "
            "'self' (while checking arguments for embedding_renorm_)"
        )
    # the weight's rank is checked before the indices' dtype
    assert "Expected 2-dimensional" in _message(
        RuntimeError, lambda: mt.embedding_renorm_(mt.ones(3), mt.tensor([0.0]), 1.0, 2.0)
    )
    # no index: nothing to renormalise, an integer weight included
    out = mt.embedding_renorm_(w, mt.tensor([], dtype=mt.long), 1.0, 2.0)
    assert out is w and out.tolist() == [[1, 1]] * 3
    assert (
        _message(
            RuntimeError,
            lambda: mt.nn.functional.embedding(mt.tensor([0]), w, max_norm=1.0),
        )
        == "norm(): input dtype should be either floating point or complex. Got Long instead."
    )


def test_embedding_renorm_values():
    w = mt.ones(3, 2)
    mt.embedding_renorm_(w, mt.tensor([0]), 1.0, 0.0)  # the count of nonzeros, 2, as the norm
    np.testing.assert_allclose(w.numpy(), [[0.5, 0.5], [1.0, 1.0], [1.0, 1.0]], rtol=1e-6)


# --- the private optimizer helpers copies of torch's optimizers call ---


class _CopiedSGD(opt_mod.Optimizer):
    def __init__(self, params, lr=0.1, capturable=False):
        super().__init__(params, dict(lr=lr, capturable=capturable))

    @opt_mod._use_grad_for_differentiable
    def step(self, closure=None):
        self._accelerator_graph_capture_health_check()
        for group in self.param_groups:
            lr = opt_mod._to_scalar(group["lr"])
            for p in group["params"]:
                if p.grad is not None:
                    p.add_(p.grad, alpha=-opt_mod._get_value(lr))
        self._optimizer_step_code()


def test_copied_optimizer_steps_on_cpu():
    p = mt.nn.Parameter(mt.tensor([1.0, 2.0]))
    opt = _CopiedSGD([p], lr=mt.tensor([0.5]))
    (p * p).sum().backward()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        opt.step()
    np.testing.assert_allclose(p.detach().numpy(), [0.0, 0.0])
    assert opt._accelerator_graph_capture_health_check() is None
    assert opt._optimizer_step_code() is None


def test_to_scalar_and_capturable_devices():
    t = opt_mod._to_scalar(mt.tensor([[0.5]]))
    assert t.shape == () and float(t) == 0.5
    zero_d = mt.tensor(0.25)
    assert opt_mod._to_scalar(zero_d) is zero_d
    assert opt_mod._to_scalar(0.1) == 0.1
    assert opt_mod._get_capturable_supported_devices() == [
        "cuda", "xpu", "hpu", "privateuseone", "xla"
    ]  # fmt: skip
    assert opt_mod._get_capturable_supported_devices(supports_xla=False)[-1] == "privateuseone"


class _FakeAccelerator:
    type = "cuda"


def test_health_check_on_an_accelerator(monkeypatch):
    monkeypatch.setattr(
        mt.accelerator, "current_accelerator", lambda check_available=False: _FakeAccelerator()
    )
    p = mt.nn.Parameter(mt.ones(2))
    opt = _CopiedSGD([p], capturable=True)
    assert opt._warned_capturable_if_run_uncaptured is True  # torch's __init__ sets it
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        opt._accelerator_graph_capture_health_check()  # so a new optimizer never warns
    opt = pickle.loads(pickle.dumps(opt))  # (the flag is not part of the pickled state)
    assert "_warned_capturable_if_run_uncaptured" not in vars(opt)
    with pytest.warns(UserWarning) as caught:
        opt._accelerator_graph_capture_health_check()
    assert len(caught) == 1
    assert str(caught[0].message) == (
        "This instance was constructed with capturable=True or some of all the param_groups came "
        "with capturable=True, but step() is running without CUDA graph capture. If you never "
        "intend to graph-capture this instance, capturable=True can impair performance, and you "
        "should set capturable=False."
    )
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        opt._accelerator_graph_capture_health_check()  # once per optimizer
        plain = pickle.loads(pickle.dumps(_CopiedSGD([p])))
        plain._accelerator_graph_capture_health_check()  # not capturable: no warning
    bare = opt_mod.Optimizer([p], {})
    bare._accelerator_graph_capture_health_check()
    del bare._warned_capturable_if_run_uncaptured
    with pytest.raises(KeyError):
        bare._accelerator_graph_capture_health_check()  # torch reads group["capturable"]


# --- linalg.solve's bool flags ---


@pytest.mark.parametrize(
    "call, message",
    [
        (lambda A, B: mt.linalg.solve(A, B, left=1), "linalg_solve(): argument 'left' must be "
         "bool, not int"),
        (lambda A, B: mt.linalg.solve(A, B, left=None), "linalg_solve(): argument 'left' must be "
         "bool, not NoneType"),
        (lambda A, B: mt.linalg.solve(A.long(), B, left=1), "linalg_solve(): argument 'left' "
         "must be bool, not int"),
        (lambda A, B: mt.linalg.solve(A, [1.0], left=1), "linalg_solve(): argument 'B' "
         "(position 2) must be Tensor, not list"),
        (lambda A, B: mt.linalg.solve_ex(A, B, left=1), "linalg_solve_ex(): argument 'left' must "
         "be bool, not int"),
        (lambda A, B: mt.linalg.solve_ex(A, B, check_errors=1), "linalg_solve_ex(): argument "
         "'check_errors' must be bool, not int"),
        (lambda A, B: mt.linalg.lu_solve(*mt.linalg.lu_factor(A), B, left=1), "linalg_lu_solve(): "
         "argument 'left' must be bool, not int"),
        (lambda A, B: mt.linalg.lu_solve(*mt.linalg.lu_factor(A), B, adjoint=1),
         "linalg_lu_solve(): argument 'adjoint' must be bool, not int"),
    ],
)  # fmt: skip
def test_solve_flags_must_be_bool(call, message):
    A, B = mt.eye(2), mt.ones(2, 1)
    assert _message(TypeError, lambda: call(A, B)) == message


def test_solve_flags_still_work():
    A = mt.tensor([[2.0, 0.0], [0.0, 4.0]])
    B = mt.ones(2, 2)
    np.testing.assert_allclose(mt.linalg.solve(A, B, left=False).numpy(), [[0.5, 0.25]] * 2)
    x, info = mt.linalg.solve_ex(A, B, left=True, check_errors=True)
    np.testing.assert_allclose(x.numpy(), [[0.5, 0.5], [0.25, 0.25]])
    assert int(info) == 0


def test_old_health_check_name_is_deprecated():
    opt = _CopiedSGD([mt.nn.Parameter(mt.ones(2))])
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert opt._cuda_graph_capture_health_check() is None
        opt._cuda_graph_capture_health_check()
    assert [(w.category, str(w.message)) for w in caught] == [
        (DeprecationWarning, "Use _accelerator_graph_capture_health_check instead")
    ] * 2
    assert caught[0].filename == __file__


@pytest.mark.parametrize(
    "name", ["Adadelta", "Adam", "AdamW", "Adamax", "ASGD", "NAdam", "RAdam", "RMSprop", "Rprop"]
)
def test_builtin_optimizers_run_the_health_check(name, monkeypatch):
    # torch's step of these optimizers starts with the check: on an accelerator, a capturable
    # optimizer without the warn-once flag (unpickled) run without graph capture warns once
    monkeypatch.setattr(
        mt.accelerator, "current_accelerator", lambda check_available=False: _FakeAccelerator()
    )
    p = mt.nn.Parameter(mt.ones(2, device="strict"))
    opt = getattr(mt.optim, name)([p], capturable=True)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        p.grad = mt.ones(2, device="strict")
        opt.step()  # a new optimizer starts with the warn-once flag set, as torch's
    del opt._warned_capturable_if_run_uncaptured  # (as an unpickled one lacks it)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for _ in range(2):
            p.grad = mt.ones(2, device="strict")
            opt.step()
    texts = [str(w.message) for w in caught]
    assert len(texts) == 1 and "capturable=True can impair performance" in texts[0], texts
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        getattr(mt.optim, name)([p]).step()  # not capturable: no warning
