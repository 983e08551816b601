"""The op families minitorch loads on first use (NOTE [ Lazy op families ] in minitorch/_ops)."""

import importlib
import json
import subprocess
import sys

import numpy as np
import pytest

import minitorch as mt
from minitorch import _ops


def _run(code: str):
    """Run code in a fresh interpreter (nothing imported yet); return what it prints, as JSON."""
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return json.loads(out.stdout)


# the op families loaded so far, and whether the torch.linalg namespace is
_LOADED = (
    "sorted(m.rpartition('.')[2] for m in sys.modules if m.startswith('minitorch._ops.')) "
    "+ ['minitorch.linalg'] * ('minitorch.linalg' in sys.modules)"
)


def test_the_table_is_each_familys_public_names():
    for family, names in _ops._LAZY_FAMILIES.items():
        module = importlib.import_module(f"minitorch._ops.{family}")
        assert sorted(names.split()) == sorted(module.__all__), family
    # a lazy name is bound by its family alone
    assert not set(_ops._LAZY_OPS) & set(_ops.__all__)
    assert all(mt._LAZY_NAMES[n] == "_ops" for n in _ops._LAZY_OPS)


def test_import_loads_no_lazy_family():
    loaded = _run(f"import json, sys, minitorch; print(json.dumps({_LOADED}))")
    assert "linalg" in loaded  # the eager family of matmul, minitorch._ops.linalg
    assert not set(loaded) & (set(_ops._LAZY_FAMILIES) | {"minitorch.linalg"})


@pytest.mark.parametrize(
    "use, family",
    [
        ("minitorch.sort(minitorch.tensor([2., 1.]))", "sorting"),
        ("minitorch.tensor([2., 1.]).cumsum(0)", "cumulative"),  # a Tensor method
        ("__import__('minitorch._ops', fromlist=['svd']).svd", "linalg_factor"),
        ("minitorch.linalg.inv(minitorch.eye(2))", "minitorch.linalg"),
    ],
)
def test_first_use_loads_the_family(use, family):
    before, after = _run(
        f"import json, sys, minitorch; before = {_LOADED}; {use}; "
        f"print(json.dumps([before, {_LOADED}]))"
    )
    assert family not in before and family in after


def test_lazy_ops_work_by_every_route():
    x = mt.tensor([[3.0, 1.0, 2.0], [0.5, 4.0, -1.0]])
    expected = np.sort(x.numpy(), axis=1)
    np.testing.assert_array_equal(mt.sort(x).values.numpy(), expected)
    np.testing.assert_array_equal(x.sort().values.numpy(), expected)
    np.testing.assert_array_equal(_ops.sort(x)[0].numpy(), expected)
    # the NumPy spellings of NOTE [ NumPy argument aliases ] reach the lazy ops too
    np.testing.assert_array_equal(mt.sort(x, axis=0).values.numpy(), np.sort(x.numpy(), 0))
    np.testing.assert_allclose(
        mt.std(x, axis=1, keepdims=True).numpy(), x.numpy().std(1, ddof=1, keepdims=True)
    )
    np.testing.assert_allclose(mt.cumsum(x, axis=1).numpy(), np.cumsum(x.numpy(), 1))
    # one function object, wherever it is reached from; minitorch keeps it after the first use
    assert mt.cumsum is _ops.cumsum is vars(mt)["cumsum"]
    assert mt.sort is _ops.sort is vars(_ops)["sort"]
    np.testing.assert_allclose(mt.linalg.det(mt.tensor([[2.0, 1.0], [1.0, 3.0]])).item(), 5.0)
    assert {"sort", "cumsum", "svd", "linalg"} <= set(dir(mt))
    assert {"sort", "cumsum", "svd"} <= set(dir(_ops))


def test_family_modules_load_as_attributes():
    # Tensor methods reach some ops through their family's module (x.normal_() calls
    # _ops.random_ops.normal_): in a fresh process that attribute loads the family
    families = sorted(_ops._LAZY_FAMILIES)
    got = _run(
        "import json, minitorch; from minitorch import _ops; x = minitorch.zeros(4); "
        "x.normal_(); x.uniform_(); x.exponential_(); x.bernoulli_(0.5); x.logical_not(); "
        f"print(json.dumps([getattr(_ops, f).__name__ for f in {families!r}]))"
    )
    assert got == [f"minitorch._ops.{f}" for f in families]


def test_no_op_module_is_named_like_an_op():
    # Importing a submodule binds it on its package: a module `_ops.scatter` imported by another
    # family (sorting's `from minitorch._ops.scatter import ...`) replaced the function, and
    # torch.scatter / x.scatter raised "'module' object is not callable" after any sort
    import pkgutil

    modules = {m.name for m in pkgutil.iter_modules(_ops.__path__)}
    assert not modules & (set(_ops._LAZY_OPS) | set(_ops.__all__) | set(dir(mt.Tensor)) - {"shape"})
    got = _run(
        "import json, minitorch; x = minitorch.tensor([3., 1., 2.]); v, i = x.sort(); "
        "print(json.dumps([minitorch.zeros(3).scatter(0, i, v).tolist(), "
        "minitorch.scatter(minitorch.zeros(3), 0, i, v).tolist()]))"
    )
    assert got == [[3.0, 1.0, 2.0]] * 2


def test_unknown_names_still_raise():
    with pytest.raises(AttributeError, match="has no attribute 'not_an_op'"):
        _ops.not_an_op  # noqa: B018
    with pytest.raises(AttributeError, match="has no attribute 'not_an_op'"):
        mt.not_an_op  # noqa: B018


def test_return_types_are_made_once_on_first_use():
    made = _run(
        "import json, minitorch; rt = minitorch.return_types; a = sorted(vars(rt)); "
        "minitorch.tensor([[1., 2.]]).max(1); print(json.dumps([a, sorted(vars(rt))]))"
    )
    assert "max" not in made[0] and "max" in made[1] and "sort" not in made[1]
    x = mt.tensor([[1.0, 5.0], [4.0, 2.0]])
    assert type(mt.max(x, 1)) is mt.return_types.max is type(x.max(0))
    assert "svd" in dir(mt.return_types)
    with pytest.raises(AttributeError, match="no attribute 'maxx'"):
        mt.return_types.maxx  # noqa: B018


def test_every_public_function_pickles_by_name():
    # as torch's do: pickle stores a reference that finds the same function again (NumPy-alias
    # wrappers and factory-made functions included), for eager and lazy families alike
    import pickle
    import types

    names = [n for n in dir(mt) if not n.startswith("_")]
    functions = [f for f in map(lambda n: getattr(mt, n), names) if type(f) is types.FunctionType]
    assert len(functions) > 600
    for fn in functions:
        assert pickle.loads(pickle.dumps(fn)) is fn, fn.__name__
    assert pickle.loads(pickle.dumps(mt.Tensor.cumsum)) is mt.Tensor.cumsum
