"""grad_fn introspection of nn.functional, linalg and matmul-family ops: the node's name, its
next_functions and its _saved_<name> attributes as torch 2.13 shows them (values checked
against torch once; tests/reference/test_s49_svb_reference.py compares over more call forms),
with float64 gradcheck and gradgradcheck of each op touched."""

from __future__ import annotations

import numpy as np
import pytest

import minitorch as torch
import minitorch.nn.functional as F
from minitorch.autograd import gradcheck, gradgradcheck

U64 = 2**64


def mk(shape, seed, rg=True, lo=None):
    a = np.random.default_rng(seed).standard_normal(shape)
    if lo is not None:
        a = np.abs(a) + lo
    return torch.tensor(a, dtype=torch.float64, requires_grad=rg)


def edges(node):
    return tuple(None if f is None else f.name() for f, _ in node.next_functions)


def saved(node):
    """The node's _saved_<name> attributes as dir() lists them: tensors as (shape, dtype)."""
    out = {}
    for k in dir(node):
        if k.startswith("_saved_"):
            v = getattr(node, k)
            if isinstance(v, torch.Tensor):
                v = (tuple(v.shape), str(v.dtype).split(".")[-1])
            out[k[len("_saved_") :]] = v
    return out


ACC = "torch::autograd::AccumulateGrad"
T = lambda *shape, dt="float64": (shape, dt)  # noqa: E731


def check_grads(f, *inputs):
    assert gradcheck(f, inputs)
    assert gradgradcheck(f, inputs)


# --- interpolate ---


@pytest.mark.parametrize(
    "kw, shape, name, attrs",
    [
        (
            {"scale_factor": 2},
            (1, 2, 3, 3),
            "UpsampleNearest2DBackward0",
            {"output_size": (6, 6), "scales_h": 2.0, "scales_w": 2.0,
             "self_sym_sizes": (1, 2, 3, 3)},
        ),
        (
            {"size": (4, 5), "mode": "bilinear", "align_corners": True},
            (1, 2, 3, 3),
            "UpsampleBilinear2DBackward0",
            {"align_corners": True, "output_size": (4, 5), "scales_h": None, "scales_w": None,
             "self_sym_sizes": (1, 2, 3, 3)},
        ),
        (
            {"scale_factor": 2, "mode": "linear"},
            (1, 2, 3),
            "UpsampleLinear1DBackward0",
            {"align_corners": False, "output_size": (6,), "scales": 2.0,
             "self_sym_sizes": (1, 2, 3)},
        ),
        (
            {"scale_factor": (2, 1.5, 2), "mode": "trilinear"},
            (1, 1, 2, 2, 2),
            "UpsampleTrilinear3DBackward0",
            {"align_corners": False, "output_size": (4, 3, 4), "scales_d": 2.0,
             "scales_h": 1.5, "scales_w": 2.0, "self_sym_sizes": (1, 1, 2, 2, 2)},
        ),
        (
            {"scale_factor": 1.7, "mode": "bicubic", "recompute_scale_factor": True},
            (1, 1, 3, 3),
            "UpsampleBicubic2DBackward0",
            {"align_corners": False, "output_size": (5, 5), "scales_h": None,
             "scales_w": None, "self_sym_sizes": (1, 1, 3, 3)},
        ),
        (
            {"size": (3, 3), "mode": "bilinear", "antialias": True},
            (1, 1, 6, 6),
            "UpsampleBilinear2DAaBackward0",
            {"align_corners": False, "output_size": (3, 3), "scales_h": None,
             "scales_w": None, "self_sym_sizes": (1, 1, 6, 6)},
        ),
        (
            {"scale_factor": 1.5, "mode": "nearest-exact"},
            (1, 1, 2, 2, 2),
            "UpsampleNearestExact3DBackward0",
            {"output_size": (3, 3, 3), "scales_d": 1.5, "scales_h": 1.5, "scales_w": 1.5,
             "self_sym_sizes": (1, 1, 2, 2, 2)},
        ),
    ],
)  # fmt: skip
def test_interpolate_saved(kw, shape, name, attrs):
    x = mk(shape, 1)
    y = F.interpolate(x, **kw)
    assert y.grad_fn.name() == name
    assert edges(y.grad_fn) == (ACC,)
    assert saved(y.grad_fn) == attrs
    check_grads(lambda t: F.interpolate(t, **kw), mk(shape, 2))


def test_interpolate_no_grad_keeps_nothing():
    y = F.interpolate(mk((1, 2, 3, 3), 1, rg=False), scale_factor=2)
    assert y.grad_fn is None


# --- glu, unfold / fold, pixel shuffle ---


def test_glu_saved():
    x = mk((2, 4), 1)
    y = F.glu(x)
    assert (y.grad_fn.name(), edges(y.grad_fn)) == ("GluBackward0", (ACC,))
    assert saved(y.grad_fn) == {"dim": U64 - 1, "self": T(2, 4)}
    assert y.grad_fn._saved_self is x
    assert F.glu(x, 0).grad_fn._saved_dim == 0
    check_grads(F.glu, mk((2, 4), 2))
    check_grads(lambda t: F.glu(t, 0), mk((2, 4), 3))


def test_glu_input_changed_in_place_refused():
    x = mk((2, 4), 1)
    a = x * 1
    y = F.glu(a)
    a.add_(1)
    with pytest.raises(
        RuntimeError, match=r"\[torch.DoubleTensor \[2, 4\]\], which is output 0 of Add,"
    ):
        y.sum().backward()


BLOCKS = {"dilation": (1, 2), "kernel_size": (2, 3), "padding": (1, 1), "stride": (2, 2)}
ARGS = {"dilation": (1, 2), "padding": 1, "stride": 2}


def test_unfold_saved():
    y = F.unfold(mk((1, 2, 5, 5), 1), (2, 3), **ARGS)
    assert (y.grad_fn.name(), edges(y.grad_fn)) == ("Im2ColBackward0", (ACC,))
    assert type(y.grad_fn).__mro__[1].__name__ == "Node"  # Im2Col's own node
    sizes = {"self_sym_argsize_minus_1": 5, "self_sym_argsize_minus_2": 5}
    assert saved(y.grad_fn) == {**BLOCKS, **sizes}
    check_grads(lambda t: F.unfold(t, (2, 3), **ARGS), mk((1, 2, 5, 5), 2))


def test_unfold_unbatched_one_node():
    x = mk((2, 5, 4), 1)
    y = F.unfold(x, (2, 3), **ARGS)
    assert (y.grad_fn.name(), edges(y.grad_fn)) == ("Im2ColBackward0", (ACC,))
    assert y.grad_fn.next_functions[0][0].variable is x
    sizes = {"self_sym_argsize_minus_1": 4, "self_sym_argsize_minus_2": 5}
    assert saved(y.grad_fn) == {**BLOCKS, **sizes}
    check_grads(lambda t: F.unfold(t, (2, 3), **ARGS), mk((2, 5, 4), 2))


def test_fold_saved():
    y = F.fold(mk((1, 8, 9), 1), (4, 4), 2)
    assert (y.grad_fn.name(), edges(y.grad_fn)) == ("Col2ImBackward0", (ACC,))
    geometry = {"dilation": (1, 1), "kernel_size": (2, 2), "padding": (0, 0), "stride": (1, 1)}
    assert saved(y.grad_fn) == geometry
    x = mk((8, 9), 1)
    y = F.fold(x, (4, 4), 2)  # unbatched: one node, as torch's kernel
    assert (y.grad_fn.name(), edges(y.grad_fn)) == ("Col2ImBackward0", (ACC,))
    assert saved(y.grad_fn) == geometry
    check_grads(lambda t: F.fold(t, (4, 4), 2), mk((1, 8, 9), 2))
    check_grads(lambda t: F.fold(t, (4, 4), 2), mk((8, 9), 3))


def test_pixel_shuffle_saved():
    y = F.pixel_shuffle(mk((1, 4, 2, 2), 1), 2)
    assert (y.grad_fn.name(), edges(y.grad_fn)) == ("PixelShuffleBackward0", (ACC,))
    assert saved(y.grad_fn) == {"upscale_factor": 2}
    # a 0-d tensor factor is a number to torch: no edge of its own
    y = F.pixel_shuffle(mk((1, 4, 2, 2), 1), torch.tensor(2))
    assert edges(y.grad_fn) == (ACC,)
    y = F.pixel_unshuffle(mk((1, 1, 4, 4), 1), 2)
    assert (y.grad_fn.name(), edges(y.grad_fn)) == ("PixelUnshuffleBackward0", (ACC,))
    assert saved(y.grad_fn) == {"downscale_factor": 2}
    x = mk((1, 4, 2, 2), 1).detach().to(memory_format=torch.channels_last).requires_grad_()
    assert F.pixel_shuffle(x, 2).grad_fn._saved_upscale_factor == 2  # channels-last route
    check_grads(lambda t: F.pixel_shuffle(t, 2), mk((1, 4, 2, 2), 2))
    check_grads(lambda t: F.pixel_unshuffle(t, 2), mk((1, 1, 4, 4), 2))


# --- the add*mm family, matmul, kron ---


@pytest.mark.parametrize("rg", [(1, 1, 1), (0, 1, 0), (1, 0, 0)])
def test_baddbmm_saved(rg):
    a, b, c = (mk(s, i, bool(r)) for i, (s, r) in enumerate(zip(
        [(2, 2, 4), (2, 2, 3), (2, 3, 4)], rg, strict=True)))  # fmt: skip
    y = torch.baddbmm(a, b, c, beta=0.5, alpha=2)
    assert y.grad_fn.name() == "BaddbmmBackward0"
    assert saved(y.grad_fn) == {
        "alpha": 2, "beta": 0.5,
        "batch1": T(2, 2, 3) if rg[2] else None, "batch2": T(2, 3, 4) if rg[1] else None,
    }  # fmt: skip


def test_addbmm_addmv_addr_saved():
    y = torch.addbmm(mk((2, 4), 1), mk((2, 2, 3), 2), mk((2, 3, 4), 3, rg=False))
    assert saved(y.grad_fn) == {
        "alpha": 1, "beta": 1, "batch1": None, "batch2": T(2, 3, 4),
        "batch1_sym_argsize_0": 2, "batch1_sym_argsize_1": 2, "batch2_sym_argsize_2": 4,
    }  # fmt: skip
    y = torch.addmv(mk((2,), 1), mk((2, 3), 2), mk((3,), 3), alpha=2.5)
    assert saved(y.grad_fn) == {"alpha": 2.5, "beta": 1, "mat": T(2, 3), "vec": T(3)}
    y = torch.addr(mk((2, 3), 1), mk((2,), 2), mk((3,), 3), beta=0)
    assert saved(y.grad_fn) == {"alpha": 1, "beta": 0, "vec1": T(2), "vec2": T(3)}
    check_grads(lambda a, b, c: torch.baddbmm(a, b, c, beta=0.5, alpha=2),
                mk((2, 2, 4), 1), mk((2, 2, 3), 2), mk((2, 3, 4), 3))  # fmt: skip
    check_grads(torch.addbmm, mk((2, 4), 1), mk((2, 2, 3), 2), mk((2, 3, 4), 3))
    check_grads(lambda a, b, c: torch.addmv(a, b, c, alpha=2.5),
                mk((2,), 1), mk((2, 3), 2), mk((3,), 3))  # fmt: skip
    check_grads(lambda a, b, c: torch.addr(a, b, c, beta=0), mk((2, 3), 1), mk((2,), 2),
                mk((3,), 3))  # fmt: skip


def test_addr_half_edges_to_its_arguments():
    # the half kernel scales vec1 by alpha first: the node's edge is still vec1's own
    a, v1, v2 = (
        mk(s, i).detach().half().requires_grad_() for i, s in enumerate([(2, 3), (2,), (3,)])
    )
    y = torch.addr(a, v1, v2, alpha=2)
    assert edges(y.grad_fn) == (ACC, ACC, ACC)
    assert y.grad_fn.next_functions[1][0].variable is v1
    assert y.grad_fn._saved_vec1 is v1 and y.grad_fn._saved_alpha == 2


def test_matmul_vector_matrix_squeeze_dim():
    x, w = mk((3,), 1), mk((3, 4), 2)
    y = torch.matmul(x, w)
    assert (y.grad_fn.name(), edges(y.grad_fn)) == ("SqueezeBackward4", ("MmBackward0",))
    assert saved(y.grad_fn) == {"dim": 0, "self_sym_sizes": (1, 4)}
    assert y._version == 1  # torch's squeeze_ in place of the row
    y = F.linear(x, mk((4, 3), 3))  # a 1-d input's linear without a bias: the same squeeze_
    assert y.grad_fn.name() == "SqueezeBackward4"
    assert saved(y.grad_fn) == {"dim": 0, "self_sym_sizes": (1, 4)}
    check_grads(torch.matmul, mk((3,), 1), mk((3, 4), 2))
    check_grads(F.linear, mk((3,), 1), mk((4, 3), 2))


def test_kron_graph():
    y = torch.kron(mk((2, 2), 1), mk((2, 1), 2))
    assert (y.grad_fn.name(), edges(y.grad_fn)) == ("UnsafeViewBackward0", ("MulBackward0",))
    mul = y.grad_fn.next_functions[0][0]
    assert edges(mul) == ("UnsafeViewBackward0", "UnsafeViewBackward0")
    assert saved(mul) == {"other": T(1, 2, 1, 1), "self": T(2, 1, 2, 1)}
    assert [saved(f) for f, _ in mul.next_functions] == [
        {"self_sym_sizes": (2, 2)},
        {"self_sym_sizes": (2, 1)},
    ]
    assert y._base is None
    check_grads(torch.kron, mk((2, 2), 1), mk((2, 1), 2))
    check_grads(torch.kron, mk((2, 3), 1), mk((3,), 2))


def test_kron_values_unchanged():
    a, b = mk((3, 4), 1), mk((2, 5), 2)
    expected = np.kron(a.detach().numpy(), b.detach().numpy())
    assert np.array_equal(torch.kron(a, b).detach().numpy(), expected)
    ints = torch.kron(torch.tensor([1, 2]), torch.tensor([[3], [4]]))
    assert ints.dtype == torch.int64 and ints.tolist() == [[3, 6], [4, 8]]


# --- distances ---


def test_cdist_saved():
    x1, x2 = mk((2, 3), 1), mk((4, 3), 2, rg=False)
    y = torch.cdist(x1, x2)
    assert (y.grad_fn.name(), edges(y.grad_fn)) == ("CdistBackward0", (ACC, None))
    assert saved(y.grad_fn) == {"p": 2.0, "result": T(2, 4), "x1": T(2, 3), "x2": T(4, 3)}
    assert y.grad_fn._saved_x2 is x2 and y.grad_fn._saved_result.grad_fn is y.grad_fn
    assert torch.cdist(x1, x2, p=1).grad_fn._saved_p == 1.0
    # the matrix-product form: a view of EuclideanDistBackward0, which saves the same three
    y = torch.cdist(x1, x2, compute_mode="use_mm_for_euclid_dist")
    assert (y.grad_fn.name(), edges(y.grad_fn)) == ("ViewBackward0", ("EuclideanDistBackward0",))
    node = y.grad_fn.next_functions[0][0]
    assert saved(node) == {"result": T(2, 4), "x1": T(2, 3), "x2": T(4, 3)}
    for p in (1.0, 2.0, 3.0):
        check_grads(lambda a, b, p=p: torch.cdist(a, b, p=p), mk((2, 3), 1), mk((4, 3), 2))
    check_grads(lambda a, b: torch.cdist(a, b, compute_mode="use_mm_for_euclid_dist"),
                mk((2, 3), 1), mk((4, 3), 2))  # fmt: skip


def test_dist_and_pdist_saved():
    x, o = mk((2, 3), 1), mk((3,), 2)
    y = torch.dist(x, o)
    assert (y.grad_fn.name(), edges(y.grad_fn)) == ("DistBackward0", (ACC, ACC))
    assert saved(y.grad_fn) == {"other": T(3), "p": 2, "result": T(), "self": T(2, 3)}
    assert torch.dist(x, o, np.float32(1.5)).grad_fn._saved_p == 1.5
    assert torch.dist(x, o, True).grad_fn._saved_p is True
    y = F.pdist(mk((4, 3), 1))
    assert (y.grad_fn.name(), edges(y.grad_fn)) == ("PdistBackward0", (ACC,))
    assert saved(y.grad_fn) == {"p": 2.0, "result": T(6), "self": T(4, 3)}
    assert F.pdist(mk((4, 3), 1), 1).grad_fn._saved_p == 1.0
    for p in (1, 2, 3.5):
        check_grads(lambda a, b, p=p: torch.dist(a, b, p), mk((2, 3), 1), mk((3,), 2))
        check_grads(lambda a, p=p: F.pdist(a, p), mk((4, 3), 3))


def test_dist_saved_changed_in_place_refused():
    x = mk((2, 3), 1)
    a = x * 1
    y = torch.dist(a, mk((3,), 2))
    a.mul_(2)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        y.backward()


def test_cosine_similarity_divides_by_a_clone():
    y = F.cosine_similarity(mk((4, 3), 1), mk((4, 3), 2))
    div = y.grad_fn.next_functions[0][0].next_functions[0][0]
    assert (div.name(), edges(div)) == ("DivBackward0", (ACC, "CloneBackward0"))
    clone = div.next_functions[1][0]
    assert edges(clone) == ("LinalgVectorNormBackward0",) and saved(clone) == {}
    check_grads(F.cosine_similarity, mk((4, 3), 1), mk((4, 3), 2))
    check_grads(lambda a, b: F.cosine_similarity(a, b, dim=-1), mk((4, 3), 1), mk((1, 3), 2))


def test_cosine_similarity_clamp_values():
    x = torch.tensor([[1e-9, 0, 0], [1e30, 2, 3], [1, 2, 3]], requires_grad=True)
    z = torch.tensor([[1e-9, 1, 0], [1, 2, 3], [3, 2, 1]], requires_grad=True)
    y = F.cosine_similarity(x, z)
    y.sum().backward()
    assert y.tolist() == [1.000000013351432e-10, 0.0, 0.714285671710968]
    assert x.grad.tolist()[0] == [0.09000000357627869, 100000000.0, 0.0]


# --- linalg: det, solve, solve_triangular ---


def test_det_saved():
    a = mk((3, 3), 1)
    y = torch.linalg.det(a)
    assert (y.grad_fn.name(), edges(y.grad_fn)) == ("LinalgDetBackward0", (ACC,))
    attrs = {"A": T(3, 3), "LU": T(3, 3), "pivots": T(3, dt="int32"), "result": T()}
    assert saved(y.grad_fn) == attrs
    assert saved(torch.det(mk((2, 3, 3), 2)).grad_fn)["pivots"] == T(2, 3, dt="int32")
    check_grads(torch.linalg.det, mk((3, 3), 1))


def test_det_and_slogdet_factor_the_transpose():
    # torch's det and slogdet factor A^T (the row-major A its LAPACK reads), solve factors A
    a = torch.tensor([[1.0, 2.0, 0.5], [3.0, -1.0, 2.0], [0.5, 4.0, 1.0]], dtype=torch.float64)
    lu_t, piv_t = torch.linalg.lu_factor(a.mT)
    a.requires_grad_()
    for node in (torch.linalg.det(a).grad_fn, torch.linalg.slogdet(a)[1].grad_fn):
        assert torch.equal(node._saved_LU, lu_t) and torch.equal(node._saved_pivots, piv_t)
    assert piv_t.tolist() == [2, 2, 3]
    assert torch.linalg.solve(a, a).grad_fn._saved_pivots.tolist() == [2, 3, 3]
    check_grads(lambda t: torch.linalg.slogdet(t)[1], mk((3, 3), 1))


SOLVE = {"A": T(3, 3), "LU": T(3, 3), "left": True, "pivots": T(3, dt="int32"), "result": T(3)}


@pytest.mark.parametrize("rg", [(1, 1), (1, 0), (0, 1)])
def test_solve_vector_one_node(rg):
    A, B = mk((3, 3), 1, bool(rg[0])), mk((3,), 2, bool(rg[1]))
    y = torch.linalg.solve(A, B)
    node = y.grad_fn
    assert (node.name(), edges(node)) == (
        "LinalgSolveExBackward0",
        tuple(ACC if r else None for r in rg),
    )
    if rg[1]:
        assert node.next_functions[1][0].variable is B  # the vector itself, not a column
    assert saved(node) == SOLVE
    assert node._saved_A is A
    assert torch.equal(node._saved_LU, torch.linalg.lu_factor(A.detach())[0])
    assert y.shape == (3,)
    assert saved(torch.linalg.solve_ex(A, B)[0].grad_fn) == SOLVE


def test_solve_left_false_saved():
    y = torch.linalg.solve(mk((3, 3), 1), mk((2, 3), 2), left=False)
    assert (y.grad_fn.name(), edges(y.grad_fn)) == ("LinalgSolveExBackward0", (ACC, ACC))
    assert saved(y.grad_fn) == {**SOLVE, "left": False, "result": T(2, 3)}
    check_grads(torch.linalg.solve, mk((3, 3), 1), mk((3,), 2))
    check_grads(torch.linalg.solve, mk((2, 3, 3), 1), mk((2, 3), 2))
    check_grads(lambda a, b: torch.linalg.solve(a, b, left=False), mk((3, 3), 1), mk((2, 3), 2))


def test_solve_ex_singular_vector_one_node():
    A = torch.tensor([[1.0, 2.0], [2.0, 4.0]], dtype=torch.float64, requires_grad=True)
    x, info = torch.linalg.solve_ex(A, mk((2,), 2))
    assert info.item() > 0  # the unchecked route
    assert (x.grad_fn.name(), edges(x.grad_fn)) == ("LinalgSolveExBackward0", (ACC, ACC))
    assert saved(x.grad_fn)["result"] == T(2)


def test_solve_triangular_saved():
    A, B = mk((3, 3), 1), mk((3, 2), 2)
    y = torch.linalg.solve_triangular(A, B, upper=True)
    assert (y.grad_fn.name(), edges(y.grad_fn)) == ("LinalgSolveTriangularBackward0", (ACC, ACC))
    flags = {"left": True, "unitriangular": False, "upper": True}
    assert saved(y.grad_fn) == {**flags, "result": T(3, 2), "self": T(3, 3)}
    y = torch.linalg.solve_triangular(A, mk((2, 3), 2), upper=False, left=False,
                                      unitriangular=True)  # fmt: skip
    assert (y.grad_fn.name(), edges(y.grad_fn)) == ("LinalgSolveTriangularBackward0", (ACC, ACC))
    flags = {"left": False, "unitriangular": True, "upper": False}
    assert saved(y.grad_fn) == {**flags, "result": T(2, 3), "self": T(3, 3)}
    assert y.grad_fn._saved_self is A
    spd = mk((3, 3), 3).detach() + 3 * torch.eye(3, dtype=torch.float64)
    check_grads(lambda a, b: torch.linalg.solve_triangular(a, b, upper=True),
                spd.clone().requires_grad_(), mk((3, 2), 2))  # fmt: skip
    check_grads(lambda a, b: torch.linalg.solve_triangular(a, b, upper=False, left=False),
                spd.clone().requires_grad_(), mk((2, 3), 2))  # fmt: skip


def test_saved_freed_after_backward():
    y = torch.linalg.solve(mk((3, 3), 1), mk((3,), 2))
    y.sum().backward()
    with pytest.raises(RuntimeError, match="backward through the graph a second time"):
        y.grad_fn._saved_A  # noqa: B018
    assert y.grad_fn._saved_left is True
