"""nn.utils.parametrizations: weight_norm, spectral_norm and orthogonal as parametrizations."""

from __future__ import annotations

from enum import Enum, auto

import minitorch
import minitorch.nn.functional as F
from minitorch import _dtype
from minitorch._tensor import Tensor
from minitorch.autograd.function import name_node
from minitorch.autograd.grad_mode import no_grad
from minitorch.nn.modules.module import Module
from minitorch.nn.utils import parametrize

__all__ = ["orthogonal", "spectral_norm", "weight_norm"]


def _norm_except_dim(v: Tensor, dim: int, pow: int = 2) -> Tensor:
    """The `pow`-norm of v over every dim but `dim`, shaped to broadcast against v (over all
    dims, a 0-d tensor, when dim == -1), as torch.norm_except_dim(v, pow, dim).

    As in torch, only -1, 0 and the last dim are read directly; any other dim goes through a
    transpose with dim 0, which is what reads a negative dim and raises torch's IndexError for
    one out of range (weight_norm's dim check is this one)."""
    if dim == -1:
        return name_node(minitorch.linalg.vector_norm(v, pow), "NormBackward0", (v,))
    if dim == 0 and v.dim() == 0:
        raise IndexError("Dimension specified as 0 but tensor has no dimensions")
    shape = [1] * v.dim()
    if dim == 0:
        shape[0] = v.shape[0]
        return minitorch.linalg.vector_norm(v.reshape(v.shape[0], -1), pow, dim=1).reshape(shape)
    if dim == v.dim() - 1:
        shape[dim] = v.shape[dim]
        return minitorch.linalg.vector_norm(v.reshape(-1, v.shape[-1]), pow, dim=0).reshape(shape)
    return _norm_except_dim(v.transpose(0, dim), 0, pow).transpose(0, dim)


def _weight_norm(v: Tensor, g: Tensor, dim: int) -> Tensor:
    """v * (g / ||v||), the norm over every dim but `dim`, as torch._weight_norm: for dim 0 or
    the last, torch's one fused node (WeightNormInterfaceBackward0); for any other dim torch
    composes it, ending in a mul (which promotes a g of another dtype; the fused kernel refuses
    it)."""
    if dim != 0 and dim != v.dim() - 1:
        return v * (g / _norm_except_dim(v, dim))
    if v.dim() == 0:  # dim is 0 or -1 here: the fused kernel wraps it, a 0-d v has no dims
        raise IndexError(f"Dimension specified as {dim} but tensor has no dimensions")
    if not v.dtype.is_floating_point:
        name = _dtype.scalar_name(v.dtype)
        raise NotImplementedError(f"\"weight_norm_kernel\" not implemented for '{name}'")
    if g.dtype != v.dtype:  # model.double() then a float32 weight_g assigned through .data
        raise RuntimeError(
            f"expected scalar type {_dtype.scalar_name(v.dtype)} but found "
            f"{_dtype.scalar_name(g.dtype)}"
        )
    if v.dtype in _dtype.HALF_FLOATS:
        # torch's fused kernel works in float32 (norm, g / norm, and the products) and rounds
        # to half once, in its backward too: rounding ||v|| and g / ||v|| to half first moves a
        # third of the weight's elements by an ulp
        v32 = v.float()
        out = (v32 * (g.float() / _norm_except_dim(v32, dim))).to(v.dtype)
    else:
        out = v * (g / _norm_except_dim(v, dim))
    return name_node(out, "WeightNormInterfaceBackward0", (v, g))


class _WeightNorm(Module):
    """weight = g * v / ||v|| from original0 = g, original1 = v."""

    def __init__(self, dim: int | None = 0) -> None:
        super().__init__()
        self.dim = -1 if dim is None else dim

    def forward(self, weight_g: Tensor, weight_v: Tensor) -> Tensor:
        return _weight_norm(weight_v, weight_g, self.dim)

    def right_inverse(self, weight: Tensor) -> tuple[Tensor, Tensor]:
        return _norm_except_dim(weight, self.dim), weight


def weight_norm(module: Module, name: str = "weight", dim: int | None = 0) -> Module:
    """Reparametrizes `name` as g * v / ||v|| (g = parametrizations.<name>.original0, v =
    original1), the norm taken over every dim but `dim` (all dims when dim is None). Mirrors
    torch.nn.utils.parametrizations.weight_norm; loading a legacy state_dict with <name>_g and
    <name>_v entries works as in torch."""
    parametrize.register_parametrization(module, name, _WeightNorm(dim), unsafe=True)

    def load_legacy_keys(state_dict, prefix, local_metadata, strict, missing, unexpected, errors):
        g_key, v_key = f"{prefix}{name}_g", f"{prefix}{name}_v"
        if g_key in state_dict and v_key in state_dict:
            state_dict[f"{prefix}parametrizations.{name}.original0"] = state_dict.pop(g_key)
            state_dict[f"{prefix}parametrizations.{name}.original1"] = state_dict.pop(v_key)

    module._register_load_state_dict_pre_hook(load_legacy_keys)
    return module


class _SpectralNorm(Module):
    """weight / sigma, sigma = u^T W v estimated by power iteration on the buffers _u and _v
    (one step per forward in training mode); 1-d weights are simply normalized."""

    def __init__(
        self, weight: Tensor, n_power_iterations: int = 1, dim: int = 0, eps: float = 1e-12
    ) -> None:
        super().__init__()
        ndim = weight.ndim
        if dim >= ndim or dim < -ndim:
            raise IndexError(
                "Dimension out of range (expected to be in range of "
                f"[-{ndim}, {ndim - 1}] but got {dim})"
            )
        if n_power_iterations <= 0:
            raise ValueError(
                "Expected n_power_iterations to be positive, but got "
                f"n_power_iterations={n_power_iterations}"
            )
        self.dim = dim if dim >= 0 else dim + ndim
        self.eps = eps
        if ndim > 1:
            self.n_power_iterations = n_power_iterations
            weight_mat = self._reshape_weight_to_matrix(weight)
            h, w = weight_mat.shape
            u = weight_mat.new_empty(h).normal_(0, 1)
            v = weight_mat.new_empty(w).normal_(0, 1)
            self.register_buffer("_u", F.normalize(u, dim=0, eps=self.eps))
            self.register_buffer("_v", F.normalize(v, dim=0, eps=self.eps))
            # start from a good estimate of the singular vectors
            self._power_method(weight_mat, 15)

    def _reshape_weight_to_matrix(self, weight: Tensor) -> Tensor:
        if self.dim != 0:
            weight = weight.permute(self.dim, *(d for d in range(weight.dim()) if d != self.dim))
        return weight.flatten(1)

    def _power_method(self, weight_mat: Tensor, n_power_iterations: int) -> None:
        with no_grad():
            for _ in range(n_power_iterations):
                mv = minitorch.mv(weight_mat, self._v)
                self._u = F.normalize(mv, dim=0, eps=self.eps, out=self._u)
                mv = minitorch.mv(weight_mat.mH, self._u)
                self._v = F.normalize(mv, dim=0, eps=self.eps, out=self._v)

    def forward(self, weight: Tensor) -> Tensor:
        if weight.ndim == 1:
            return F.normalize(weight, dim=0, eps=self.eps)
        weight_mat = self._reshape_weight_to_matrix(weight)
        if self.training:
            self._power_method(weight_mat, self.n_power_iterations)
        # clones: the buffers change in place at the next training forward, and sigma's graph
        # must not see that
        u = self._u.clone()
        v = self._v.clone()
        sigma = minitorch.vdot(u, minitorch.mv(weight_mat, v))
        return weight / sigma

    def right_inverse(self, value: Tensor) -> Tensor:
        return value


def spectral_norm(
    module: Module,
    name: str = "weight",
    n_power_iterations: int = 1,
    eps: float = 1e-12,
    dim: int | None = None,
) -> Module:
    """Reparametrizes `name` as weight / sigma (sigma its largest singular value, estimated by
    power iteration; buffers parametrizations.<name>.0._u and _v). dim defaults to 1 for
    ConvTranspose modules, 0 otherwise. Mirrors torch.nn.utils.parametrizations.spectral_norm.

    Differences from torch: the random start of _u and _v comes from minitorch's generator, so
    it differs from torch's for the same seed.
    """
    weight = getattr(module, name, None)
    if not isinstance(weight, Tensor):
        raise ValueError(f"Module '{module}' has no parameter or buffer with name '{name}'")
    if dim is None:
        dim = 1 if _is_conv_transpose(module) else 0
    parametrize.register_parametrization(
        module, name, _SpectralNorm(weight, n_power_iterations, dim, eps)
    )
    return module


def _is_conv_transpose(module: Module) -> bool:
    nn = minitorch.nn
    return isinstance(module, (nn.ConvTranspose1d, nn.ConvTranspose2d, nn.ConvTranspose3d))


class _OrthMaps(Enum):
    matrix_exp = auto()
    cayley = auto()
    householder = auto()


def _is_orthogonal(Q: Tensor) -> bool:
    n, k = Q.shape[-2], Q.shape[-1]
    eye = minitorch.eye(k, dtype=Q.dtype, device=Q.device)
    eps = 10.0 * n * minitorch.finfo(Q.dtype).eps
    return minitorch.allclose(Q.mH @ Q, eye, atol=eps)


def _make_orthogonal(A: Tensor) -> Tensor:
    """The Q of A = QR (A tall) with diag(R) >= 0."""
    X, tau = minitorch.geqrf(A)
    Q = minitorch.linalg.householder_product(X, tau)
    return Q * X.diagonal(dim1=-2, dim2=-1).sgn().unsqueeze(-2)


class _Orthogonal(Module):
    """Maps a matrix (or batch) to an orthogonal one: the matrix exponential or Cayley map of
    the skew-symmetric matrix built from its lower triangle, or a product of Householder
    reflections; with use_trivialization the result is multiplied by the buffer `base`."""

    def __init__(
        self, weight: Tensor, orthogonal_map: _OrthMaps, *, use_trivialization: bool = True
    ) -> None:
        super().__init__()
        if weight.is_complex() and orthogonal_map == _OrthMaps.householder:
            raise ValueError("The householder parametrization does not support complex tensors.")
        self.shape = weight.shape
        self.orthogonal_map = orthogonal_map
        if use_trivialization:
            self.register_buffer("base", None)

    def forward(self, X: Tensor) -> Tensor:
        n, k = X.shape[-2], X.shape[-1]
        transposed = n < k
        if transposed:
            X = X.mT
            n, k = k, n
        if self.orthogonal_map in (_OrthMaps.matrix_exp, _OrthMaps.cayley):
            X = X.tril()
            if n != k:
                pad = X.new_zeros(n, n - k).expand(*X.shape[:-2], -1, -1)
                X = minitorch.cat([X, pad], dim=-1)
            A = X - X.mH
            if self.orthogonal_map == _OrthMaps.matrix_exp:
                Q = minitorch.linalg.matrix_exp(A)
            else:
                eye = minitorch.eye(n, dtype=A.dtype, device=A.device)
                Q = minitorch.linalg.solve(
                    minitorch.add(eye, A, alpha=-0.5), minitorch.add(eye, A, alpha=0.5)
                )
            if n != k:
                Q = Q[..., :k]
        else:
            A = X.tril(diagonal=-1)
            tau = 2.0 / (1.0 + (A * A).sum(dim=-2))
            Q = minitorch.linalg.householder_product(A, tau)
            # the signs on X's diagonal pick each column's sign (not differentiated)
            Q = Q * X.diagonal(dim1=-2, dim2=-1).int().unsqueeze(-2)
        if hasattr(self, "base"):
            Q = self.base @ Q
        if transposed:
            Q = Q.mT
        return Q

    def right_inverse(self, Q: Tensor) -> Tensor:
        with no_grad():
            return self._right_inverse(Q)

    def _right_inverse(self, Q: Tensor) -> Tensor:
        if Q.shape != self.shape:
            raise ValueError(
                f"Expected a matrix or batch of matrices of shape {self.shape}. "
                f"Got a tensor of shape {Q.shape}."
            )
        Q_init = Q
        n, k = Q.shape[-2], Q.shape[-1]
        transpose = n < k
        if transpose:
            Q = Q.mT
            n, k = k, n
        if not hasattr(self, "base"):
            if self.orthogonal_map != _OrthMaps.householder:
                raise NotImplementedError(
                    "It is not possible to assign to the matrix exponential or the Cayley "
                    "parametrizations when use_trivialization=False."
                )
            # Householder: the reflectors of Q's QR decomposition, with diag(R) > 0 encoded
            # as +-1 on the diagonal (a reflection LAPACK skipped, tau == 0, flips the sign)
            A, tau = minitorch.geqrf(Q)
            signs = A.diagonal(dim1=-2, dim2=-1).sign()
            signs = minitorch.where(tau == 0.0, -signs, signs)
            idx = minitorch.arange(k, device=A.device)
            A = A.clone()
            A[..., idx, idx] = signs
            return A.mT if transpose else A
        if n == k:
            Q = _make_orthogonal(Q) if not _is_orthogonal(Q) else Q.clone()
        else:
            # complete Q to a square orthogonal matrix with random columns
            N = minitorch.randn(*Q.shape[:-2], n, n - k, dtype=Q.dtype, device=Q.device)
            Q = _make_orthogonal(minitorch.cat([Q, N], dim=-1))
        self.base = Q
        # -Id: then householder(zeros) == eye, and every map starts at base
        return minitorch.zeros_like(Q_init) - minitorch.eye(
            Q_init.shape[-2], Q_init.shape[-1], dtype=Q_init.dtype, device=Q_init.device
        )


def orthogonal(
    module: Module,
    name: str = "weight",
    orthogonal_map: str | None = None,
    *,
    use_trivialization: bool = True,
) -> Module:
    """Reparametrizes the matrix (or batch) `name` to stay orthogonal, through "matrix_exp",
    "cayley" or "householder" (default: matrix_exp for square or complex, else householder).
    Mirrors torch.nn.utils.parametrizations.orthogonal.

    Differences from torch: for a non-square matrix with use_trivialization, the random
    completion of `base` comes from minitorch's generator.
    """
    weight = getattr(module, name, None)
    if not isinstance(weight, Tensor):
        raise ValueError(f"Module '{module}' has no parameter or buffer with name '{name}'")
    if weight.ndim < 2:
        raise ValueError(
            f"Expected a matrix or batch of matrices. Got a tensor of {weight.ndim} dimensions."
        )
    if orthogonal_map is None:
        square = weight.shape[-2] == weight.shape[-1]
        orthogonal_map = "matrix_exp" if square or weight.is_complex() else "householder"
    orth_enum = getattr(_OrthMaps, orthogonal_map, None)
    if orth_enum is None:
        raise ValueError(
            'orthogonal_map has to be one of "matrix_exp", "cayley", "householder". '
            f"Got: {orthogonal_map}"
        )
    orth = _Orthogonal(weight, orth_enum, use_trivialization=use_trivialization)
    parametrize.register_parametrization(module, name, orth, unsafe=True)
    return module
