"""torch.func against torch 2.13: None is a pytree leaf, structure errors print TreeSpec reprs,
jvp's non-tensor errors, and vmap's randomness checked when the transform is made."""

from __future__ import annotations

import re

import numpy as np
import pytest

import minitorch

F = minitorch.func


def _x():
    return minitorch.tensor([1.0, 2.0, 3.0], dtype=minitorch.float64)


# --- None is a leaf of the inputs and outputs, as in torch's pytree ---


def test_vmap_refuses_in_dim_for_a_none_input():
    x = _x()
    msg = (
        "vmap(<lambda>, in_dims=0, ...)(<inputs>): Got in_dim=0 for an input but the input is of "
        "type <class 'NoneType'>. We cannot vmap over non-Tensor arguments, please use None as "
        "the respective in_dim"
    )
    with pytest.raises(ValueError, match=re.escape(msg)):
        minitorch.vmap(lambda a, b: a)(x, None)
    with pytest.raises(ValueError, match=re.escape(msg)):
        minitorch.vmap(lambda a, b: a)(x, (None, x))
    out = minitorch.vmap(lambda a, b: a * 2, in_dims=(0, None))(x, None)
    np.testing.assert_allclose(out.numpy(), [2.0, 4.0, 6.0], err_msg="in_dim None for None")


def test_transforms_refuse_none_inputs_and_outputs():
    x = _x()
    with pytest.raises(ValueError, match="Thing passed to transform API must be Tensor, got "):
        F.grad(lambda p: p[0].sum())((x, None))
    with pytest.raises(ValueError, match="got <class 'NoneType'>"):
        F.vjp(lambda a: a * 2, (x, None))
    with pytest.raises(ValueError, match="got <class 'NoneType'>"):
        F.jacrev(lambda p: p[0] * 2)((x, None))
    only = "expected f(*primals) to return only tensors, got unsupported type <class 'NoneType'>"
    with pytest.raises(RuntimeError, match=re.escape("vjp(f, *primals): " + only)):
        F.vjp(lambda a: (a * 2, None), x)
    with pytest.raises(RuntimeError, match=re.escape("vjp(f, *primals): " + only)):
        F.jacrev(lambda a: (a * 2, None))(x)
    with pytest.raises(RuntimeError, match=re.escape("jvp(f, primals, tangents): " + only)):
        F.jvp(lambda a: (a, None), (x,), (x,))
    empty = "Expected f to be a function that has non-empty output (got output = [None])"
    with pytest.raises(RuntimeError, match=re.escape("vjp(f, *primals): " + empty)):
        F.vjp(lambda a: None, x)
    with pytest.raises(RuntimeError, match=re.escape("vjp(f, *primals): " + empty)):
        F.jacrev(lambda a: None)(x)
    with pytest.raises(RuntimeError, match=re.escape("jvp(f, primals, tangents): " + empty)):
        F.jacfwd(lambda a: None)(x)
    with pytest.raises(RuntimeError, match=re.escape("jvp(f, primals, tangents): " + empty)):
        F.jvp(lambda a: None, (x,), (x,))
    # linearize's tracer lets a None output through, as torch's does
    out, fn = F.linearize(lambda a: (a * 2, None), x)
    assert out[1] is None
    np.testing.assert_allclose(out[0].numpy(), [2.0, 4.0, 6.0], err_msg="linearize None output")


def test_jvp_non_tensor_messages_name_primals_or_tangents():
    x = _x()
    with pytest.raises(
        RuntimeError,
        match=re.escape(
            "jvp(f, primals, tangents): Expected primals to only contain Tensors, got <class "
            "'float'>"
        ),
    ):
        F.jvp(lambda a, b: a * 2, (x, 3.0), (x, 3.0))
    with pytest.raises(
        RuntimeError,
        match=re.escape("Expected tangents to only contain Tensors, got <class 'NoneType'>"),
    ):
        F.jvp(lambda a, b: a * 2, (x, x), (x, None))


# --- structure errors print torch's TreeSpec repr ---


def test_vmap_structure_errors_print_treespec():
    x = _x()
    with pytest.raises(ValueError) as e:
        minitorch.vmap(lambda a: a, in_dims=(0, 0))(x)
    assert str(e.value) == (
        "vmap(<lambda>, in_dims=(0, 0), ...)(<inputs>): in_dims is not compatible with the "
        "structure of `inputs`. in_dims has structure TreeSpec(tuple, None, [*,\n  *]) but "
        "inputs has structure TreeSpec(tuple, None, [*])."
    )
    with pytest.raises(ValueError) as e:
        minitorch.vmap(lambda a: a, in_dims=({"a": 0, "b": None},))({"a": x, "c": x})
    assert str(e.value).endswith(
        "in_dims has structure TreeSpec(tuple, None, [TreeSpec(dict, ['a', 'b'], [*,\n    *])]) "
        "but inputs has structure TreeSpec(tuple, None, [TreeSpec(dict, ['a', 'c'], [*,\n    "
        "*])])."
    )
    with pytest.raises(ValueError) as e:
        minitorch.vmap(lambda a: (a, a), out_dims=[0, 0])(x)
    assert str(e.value).endswith(
        "out_dims has structure TreeSpec(list, None, [*,\n  *]) but outputs has structure "
        "TreeSpec(tuple, None, [*,\n  *])."
    )
    with pytest.raises(ValueError) as e:
        minitorch.vmap(lambda a: a, out_dims=(0, 0))(x)
    assert str(e.value).endswith(
        "out_dims has structure TreeSpec(tuple, None, [*,\n  *]) but outputs has structure *."
    )


def test_jvp_and_linearize_structure_errors_print_treespec():
    x = _x()
    with pytest.raises(RuntimeError) as e:
        F.jvp(lambda a, b: a, (x, x), (x,))
    assert str(e.value).endswith(
        "Got primals with structure TreeSpec(tuple, None, [*,\n  *]) and tangents with "
        "structure TreeSpec(tuple, None, [*])"
    )
    _, fn = F.linearize(lambda a, b: a * b, x, x)
    with pytest.raises(RuntimeError) as e:
        fn(x)
    assert str(e.value) == (
        "Expected the tangents TreeSpec(tuple, None, [*]) to have the same argspec as the "
        "primals TreeSpec(tuple, None, [*,\n  *])"
    )
    # vjp's cotangent check keeps torch's short form
    _, vjp_fn = F.vjp(lambda a: (a, {"k": a}), x)
    with pytest.raises(RuntimeError, match=re.escape("cotangents: (*, *), primal output: (*, {")):
        vjp_fn((x, x))


# --- vmap validates randomness when the transform is made, before chunk_size ---


def test_vmap_randomness_checked_at_construction():
    bad = "Only allowed values for randomness are 'error', 'different', or 'same'. Got bad"
    with pytest.raises(RuntimeError, match=bad):
        minitorch.vmap(lambda a: a, randomness="bad")
    with pytest.raises(RuntimeError, match=bad):
        minitorch.vmap(lambda a: a, chunk_size=0, randomness="bad")
    with pytest.raises(ValueError, match=re.escape("chunk_size should be None or greater than 0")):
        minitorch.vmap(lambda a: a, chunk_size=0)
