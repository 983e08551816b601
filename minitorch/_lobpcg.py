"""torch.lobpcg: the locally optimal block preconditioned conjugate gradient eigensolver (Knyazev
2001; the "ortho" basis selection of Duersch, Shao, Yang and Gu 2018), composed from minitorch's
dense linear algebra, with the backward of the k computed eigenpairs of a symmetric A."""

from __future__ import annotations

import minitorch
from minitorch import _dtype
from minitorch._tensor import Tensor
from minitorch.autograd.function import Function

__all__ = ["lobpcg", "LOBPCG"]

_FEPS = {_dtype.float32: 1.2e-07, _dtype.float64: 2.23e-16}  # torch's rounded epsilons


def _mm(M: Tensor | None, X: Tensor) -> Tensor:
    """M @ X, where M None stands for the identity (an absent B or iK)."""
    return X if M is None else minitorch.matmul(M, X)


def _host(t: Tensor) -> list:
    # NOTE [ lobpcg reads to the host ]
    # An iterative solver decides on the host when to stop: each LOBPCG step reads its n
    # convergence flags, and the "ortho" step each of its orthogonality checks (a few floats),
    # as torch's does. Every such read goes through here, one explicit transfer each.
    return t.tolist()


def _ritz(M: Tensor, largest: bool) -> tuple[Tensor, Tensor]:
    """Eigenpairs of the small symmetric M, the wanted end of the spectrum first."""
    vals, vecs = minitorch.linalg.eigh(M)
    if largest:
        return vals.flip(-1), vecs.flip(-1)
    return vals, vecs


def _basis(M: Tensor) -> Tensor:
    """Orthonormal columns spanning M's columns (M of full column rank)."""
    return minitorch.linalg.qr(M).Q


class LOBPCG:
    """The state of one LOBPCG run, as torch's worker exposes it to a `tracker`.

    Attributes: `A`, `B`, `iK` (inputs; None for an identity), `iparams`, `fparams`, `bparams`
    (parameters), `ivars` ("istep", "iterations_left", "converged_count", "converged_end",
    and "ortho_i"/"ortho_j" for method "ortho"), `fvars` (the orthogonality checks of the last
    "ortho" step, e.g. "ortho_VBU_rerr[0]"), `bvars` (a tracker sets bvars["force_stop"] = True
    to stop), `tvars` ("rerr": the relative residuals; "X_norm", "A_norm", "B_norm" as 0-d
    tensors), and the iterates `E` (n,), `X` (m, n), `R` (m, n), `S` (m, 3n; its first
    ivars["converged_end"] columns hold [X, P, W]).

    Differences from torch: the norms torch keeps as floats in fvars are 0-d tensors in tvars
    (no host read); the "ortho" method applies iK to the residuals too (torch's uses iK only
    in "basic").
    """

    def __init__(self, A, B, X, iK, iparams, fparams, bparams, method, tracker):
        self.A, self.B, self.iK = A, B, iK
        self.iparams, self.fparams, self.bparams = iparams, fparams, bparams
        self.method = method
        self.tracker = tracker
        m, n = iparams["m"], iparams["n"]
        opts = {"dtype": X.dtype, "device": X.device}
        self.X = X
        self.E = minitorch.zeros((n,), **opts)
        self.R = minitorch.zeros((m, n), **opts)
        self.S = minitorch.zeros((m, 3 * n), **opts)
        self.tvars: dict = {}
        self.ivars: dict = {"istep": 0}
        self.fvars: dict = {"_": 0.0}
        self.bvars: dict = {"_": False}

    def __str__(self):
        names = ("iparams", "fparams", "bparams", "ivars", "fvars", "bvars", "tvars")
        lines = ["LOBPCG:"] + [f"  {name}={getattr(self, name)}" for name in names]
        lines += [f"  {name}={getattr(self, name)}" for name in ("A", "B", "iK", "X", "E")]
        return "\n".join(lines) + "\n"

    # --- the iteration ---

    def run(self) -> None:
        """Iterates until the first k pairs converge, niter steps pass, or the tracker stops."""
        self.update()
        if self.tracker is not None:
            self.tracker(self)
        while not self.stop_iteration():
            self.update()
            if self.tracker is not None:
                self.tracker(self)

    def stop_iteration(self) -> bool:
        return (
            self.bvars.get("force_stop", False)
            or self.ivars["iterations_left"] == 0
            or self.ivars["converged_count"] >= self.iparams["k"]
        )

    def update(self) -> None:
        """One LOBPCG step (the first one sets up the norms and the search basis)."""
        if self.ivars["istep"] == 0:
            X_norm = self.X.norm()
            self.tvars["X_norm"] = X_norm
            self.tvars["A_norm"] = _mm(self.A, self.X).norm() / X_norm
            self.tvars["B_norm"] = _mm(self.B, self.X).norm() / X_norm
            self.ivars["iterations_left"] = self.iparams["niter"]
            self.ivars["converged_count"] = 0
            self.ivars["converged_end"] = 0
            self._first_step()
        elif self.method == "ortho":
            self._step_ortho()
        else:
            self._step_basic()
        self.ivars["iterations_left"] -= 1
        self.ivars["istep"] += 1

    def update_residual(self) -> None:
        self.R = _mm(self.A, self.X) - _mm(self.B, self.X) * self.E

    def update_converged_count(self) -> int:
        """The number of leading pairs whose backward-stable relative residual
        |r| / (|x| (|A| + |e| |B|)) is below tol (Duersch et al., Sec. 4.3); a pair after an
        unconverged one does not count, so the converged pairs stay in order."""
        t = self.tvars
        rerr = self.R.norm(dim=0) / (
            self.X.norm(dim=0) * (t["A_norm"] + self.E.abs() * t["B_norm"])
        )
        self.tvars["rerr"] = rerr
        count = 0
        for ok in _host(rerr < self.fparams["tol"]):
            if not ok:
                break
            count += 1
        self.ivars["converged_count"] = count = max(count, self.ivars["converged_count"])
        return count

    def _set_basis(self, blocks) -> None:
        """S[:, :ns] = [X, P, W]."""
        S = minitorch.cat(blocks, dim=1)
        ns = S.shape[-1]
        self.S = minitorch.cat([S, self.S[:, ns:]], dim=1)
        self.ivars["converged_end"] = ns

    def _rayleigh_ritz(self, S: Tensor) -> tuple[Tensor, Tensor]:
        """Ritz values and coefficients C (B-orthonormal Ritz vectors S C) of A on span(S), for a
        basis S that need not be B-orthonormal: S^T B S, diagonally scaled to unit diagonal
        (Duersch et al., Sec. 3), is factored by Cholesky, R^T R, and the standard problem
        T^T S^T A S T, T = D R^-1, is solved."""
        G = S.mT @ _mm(self.B, S)
        d = G.diagonal(0, -2, -1).rsqrt()
        R = minitorch.linalg.cholesky(G * d * d.unsqueeze(-1), upper=True)
        T = minitorch.linalg.solve_triangular(R, d.diag_embed(), upper=True, left=False)
        H = T.mT @ (S.mT @ _mm(self.A, S)) @ T
        vals, Z = _ritz((H + H.mT) / 2, self.bparams["largest"])
        return vals, T @ Z

    def _first_step(self) -> None:
        vals, C = self._rayleigh_ritz(self.X)
        self.X = self.X @ C
        self.E = vals
        self.update_residual()
        nc = self.update_converged_count()
        W = _mm(self.iK, self.R[:, nc:])
        if self.method == "ortho":
            W = self._ortho(W, self.X)
        elif nc > 0:
            W = self._lock(W, nc)
        self._set_basis([self.X, W])

    def _lock(self, U: Tensor, nc: int) -> Tensor:
        """U made B-orthogonal to the nc converged (B-orthonormal) vectors, so that the basic
        step's Rayleigh-Ritz does not find them again."""
        Xc = self.X[:, :nc]
        return U - Xc @ (Xc.mT @ _mm(self.B, U))

    def _step_basic(self) -> None:
        """Knyazev's LOBPCG: Rayleigh-Ritz on [X, P, W] of the unconverged pairs, then
        P = the P- and W-part of the new X."""
        n, nc, ns = self.iparams["n"], self.ivars["converged_count"], self.ivars["converged_end"]
        S = self.S[:, nc:ns]
        vals, C = self._rayleigh_ritz(S)
        Cx = C[:, : n - nc]
        X_new = S @ Cx
        P = S[:, n - nc :] @ Cx[n - nc :]
        self.X = minitorch.cat([self.X[:, :nc], X_new], dim=1)
        self.E = minitorch.cat([self.E[:nc], vals[: n - nc]])
        self.update_residual()
        nc2 = self.update_converged_count()
        P = P[:, nc2 - nc :]
        W = _mm(self.iK, self.R[:, nc2:])
        if nc2 > 0:
            P, W = self._lock(P, nc2), self._lock(W, nc2)
        self._set_basis([self.X, P, W])

    def _step_ortho(self) -> None:
        """Duersch et al.'s step: S = [X, P, W] is B-orthonormal, so Rayleigh-Ritz is a standard
        eigenproblem; P spans the part of the old X orthogonal to the new X (span[X, P] =
        span[X_old, X_new]); W, the residuals, is B-orthonormalized against [X, P]."""
        n, nc, ns = self.iparams["n"], self.ivars["converged_count"], self.ivars["converged_end"]
        S = self.S[:, nc:ns]
        H = S.mT @ _mm(self.A, S)
        vals, Z = _ritz((H + H.mT) / 2, self.bparams["largest"])
        a = n - nc  # the active (unconverged) pairs
        self.X = minitorch.cat([self.X[:, :nc], S @ Z[:, :a]], dim=1)
        self.E = minitorch.cat([self.E[:nc], vals[:a]])
        rest = Z[:, a:]
        P = S @ (rest @ _basis(rest[:a].mT))
        self.update_residual()
        nc = self.update_converged_count()
        W = self._ortho(_mm(self.iK, self.R[:, nc:]), minitorch.cat([self.X, P], dim=1))
        self._set_basis([self.X, P, W])

    # --- B-orthonormalization (Duersch et al., Algorithms 4 and 5) ---

    def _svqb(self, U: Tensor, drop: bool, tau: float) -> Tensor:
        """B-orthonormal columns spanning U's (SVQB): with D the inverse square root of
        diag(U^T B U) and D U^T B U D = Z diag(t) Z^T, U D Z diag(t)^-1/2; eigenvalues below
        tau * max|t| are dropped (drop) or raised to it."""
        if U.shape[-1] == 0:
            return U
        UBU = U.mT @ _mm(self.B, U)
        d = UBU.diagonal(0, -2, -1)
        # a zero column stays zero (its scale is taken as one), as a zero residual may be
        d = minitorch.where(d == 0, minitorch.ones_like(d), d).rsqrt()
        M = UBU * d * d.unsqueeze(-1)
        t, Z = minitorch.linalg.eigh((M + M.mT) / 2)
        floor = tau * t.abs().max()
        if drop:
            keep = [i for i, ok in enumerate(_host(t > floor)) if ok]
            index = minitorch.tensor(keep, dtype=_dtype.int64, device=U.device)
            t, Z = t.index_select(0, index), Z.index_select(1, index)
        else:
            t = minitorch.where(t < floor, floor, t)
        return (U * d) @ (Z * t.rsqrt())

    def _ortho(self, U: Tensor, V: Tensor) -> Tensor:
        """U B-orthonormalized and made B-orthogonal to the B-orthonormal V: project out V,
        then SVQB, each repeated while the checks exceed ortho_tol (at most ortho_i_max outer
        and ortho_j_max inner rounds)."""
        ip, fp = self.iparams, self.fparams
        tau, tau_drop, tau_replace = fp["ortho_tol"], fp["ortho_tol_drop"], fp["ortho_tol_replace"]
        use_drop = self.bparams["ortho_use_drop"]
        for key in [key for key in self.fvars if key.startswith("ortho_")]:
            del self.fvars[key]
        BV_norm = _mm(self.B, V).norm()
        i = j = 0
        for i in range(ip["ortho_i_max"]):
            U = U - V @ (V.mT @ _mm(self.B, U))
            for j in range(ip["ortho_j_max"]):
                if use_drop:
                    U = self._svqb(U, True, tau_drop if j == 0 else tau_replace)
                else:
                    U = self._svqb(U, False, tau_replace)
                if U.numel() == 0:  # every column of U was in span(V)
                    self.ivars["ortho_i"], self.ivars["ortho_j"] = i, j
                    return U
                BU = _mm(self.B, U)
                eye = minitorch.eye(U.shape[-1], dtype=U.dtype, device=U.device)
                rerr = (U.mT @ BU - eye).norm() / (BU.norm() * U.norm())
                rerr = self.fvars[f"ortho_UBUmI_rerr[{i}, {j}]"] = _host(rerr)
                if rerr < tau:
                    break
            rerr = (V.mT @ BU).norm() / (BV_norm * U.norm())
            rerr = self.fvars[f"ortho_VBU_rerr[{i}]"] = _host(rerr)
            if rerr < tau:
                break
        self.ivars["ortho_i"], self.ivars["ortho_j"] = i, j
        return U


def _run(A, k, B, X, n, iK, niter, tol, largest, method, tracker, iparams, fparams, bparams):
    """(E, X) of lobpcg, without autograd."""
    if A.shape[-2] != A.shape[-1]:
        raise AssertionError(f"A must be square, got shape {A.shape}")
    if B is not None and A.shape != B.shape:
        raise AssertionError(f"A and B must have same shape, got {A.shape} vs {B.shape}")
    dtype = A.dtype if A.dtype.is_floating_point else _dtype.float32
    if tol is None:
        tol = _FEPS.get(dtype, _FEPS[_dtype.float32]) ** 0.5
    m = A.shape[-1]
    if k is None:
        k = 1 if X is None else X.shape[-1]
    n = (k if n is None else n) if X is None else X.shape[-1]
    if m < 3 * n:
        raise ValueError(
            f"LOBPCG algorithm is not applicable when the number of A rows (={m}) is smaller "
            f"than 3 x the number of requested eigenpairs (={n})"
        )
    method = "ortho" if method is None else method
    ip = {"m": m, "n": n, "k": k, "niter": 1000 if niter is None else niter}
    fp = {"tol": tol}
    bp = {"largest": True if largest is None else largest}
    if method == "ortho":
        ip.update(iparams or {})
        fp.update(fparams or {})
        bp.update(bparams or {})
        ip.setdefault("ortho_i_max", 3)
        ip.setdefault("ortho_j_max", 3)
        for key in ("ortho_tol", "ortho_tol_drop", "ortho_tol_replace"):
            fp.setdefault(key, tol)
        bp.setdefault("ortho_use_drop", False)

    def solve(A_, B_, X_):
        if X_ is None:
            X_ = minitorch.randn((m, n), dtype=dtype, device=A.device)
        if X_.ndim != 2 or tuple(X_.shape) != (m, n):
            raise AssertionError(f"X shape mismatch: got {X_.shape}, expected {(m, n)}")
        if n == 0:  # torch's worker divides by the norm of the empty X
            raise ZeroDivisionError("0.0 cannot be raised to a negative power")
        worker = LOBPCG(A_, B_, X_, iK, ip, fp, bp, method, tracker)
        worker.run()
        return worker.E[:k], worker.X[:, :k]

    if A.ndim == 2:
        return solve(A, B, X)
    batch = tuple(A.shape[:-2])
    N = 1
    for size in batch:
        N *= size
    bA = A.reshape((N, m, m))
    bB = None if B is None else B.reshape((N, m, m))
    bX = None if X is None else X.reshape((N,) + tuple(X.shape[-2:]))
    Es, Xs = [], []
    for i in range(N):
        ip["batch_index"] = i
        E_, X_ = solve(bA[i], None if bB is None else bB[i], None if bX is None else bX[i])
        Es.append(E_)
        Xs.append(X_)
    kk = min(k, n)
    if N == 0:
        opts = {"dtype": dtype, "device": A.device}
        return minitorch.empty(batch + (kk,), **opts), minitorch.empty(batch + (m, kk), **opts)
    return minitorch.stack(Es).reshape(batch + (kk,)), minitorch.stack(Xs).reshape(batch + (m, kk))


def _symeig_grad(gD, gU, A: Tensor, D: Tensor, U: Tensor) -> Tensor:
    """grad_A of the eigenpairs (D, U) (k of them) of the symmetric A, in Tensor ops.

    Within span(U): U (diag(gD) + (U^T gU) o F) U^T, F_ij = 1 / (d_j - d_i), F_ii = 0. For
    k < m, the orthogonal complement adds, column i, y_i u_i^T, where y_i solves
    (d_i - A) y = P gU_i on the complement of span(U) (P = I - U U^T); the solve uses the
    matrix P (d_i - A) P + U U^T, which is A's restriction there and the identity on span(U).
    """
    m, k = U.shape[-2], U.shape[-1]
    eye_k = minitorch.eye(k, dtype=U.dtype, device=U.device)
    inner = minitorch.zeros_like(eye_k) if gD is None else gD.diag_embed()
    if gU is not None:
        diff = D.unsqueeze(-2) - D.unsqueeze(-1) + eye_k  # d_j - d_i, one on the diagonal
        inner = inner + (U.mT @ gU) * (1 - eye_k) / diff
    grad = U @ inner @ U.mT
    if gU is None or k == m:
        return grad
    UUt = U @ U.mT
    P = minitorch.eye(m, dtype=U.dtype, device=U.device) - UUt
    PAP = P @ A @ P
    K = D.unsqueeze(-1).unsqueeze(-1) * P.unsqueeze(-3) - PAP.unsqueeze(-3) + UUt.unsqueeze(-3)
    rhs = (P @ gU).mT.unsqueeze(-1)  # (*, k, m, 1)
    Y = minitorch.linalg.solve(K, rhs).squeeze(-1).mT  # (*, m, k)
    return grad + P @ Y @ U.mT


class LOBPCGAutogradFunction(Function):
    """(E, X) = lobpcg(A, ...);  grad_A by symmetric eigenvalue perturbation of the k pairs
    (_symeig_grad); B, X and iK get no gradient (torch refuses a B at backward)."""

    @staticmethod
    def forward(ctx, A, k, B, X, n, iK, niter, tol, largest, method, tracker, ip, fp, bp):
        with minitorch.no_grad():
            D, U = _run(A, k, B, X, n, iK, niter, tol, largest, method, tracker, ip, fp, bp)
            # fresh tensors, not views of the worker's: saved outputs then lead back to this
            # node, so the backward is differentiable through D and U
            D, U = D.clone(), U.clone()
        ctx.save_for_backward(A, D, U)
        ctx.has_B = B is not None
        return D, U

    @staticmethod
    def backward(ctx, gD, gU):
        A, D, U = ctx.saved_tensors
        if ctx.has_B:
            raise ValueError("lobpcg.backward does not support backward with B != I yet.")
        grad = _symeig_grad(gD, gU, A, D, U)
        return (grad,) + (None,) * 13


LOBPCGAutogradFunction._builtin = False  # its forward computes with Tensor ops, like a user's


def lobpcg(
    A: Tensor,
    k: int | None = None,
    B: Tensor | None = None,
    X: Tensor | None = None,
    n: int | None = None,
    iK: Tensor | None = None,
    niter: int | None = None,
    tol: float | None = None,
    largest: bool | None = None,
    method: str | None = None,
    tracker=None,
    ortho_iparams: dict | None = None,
    ortho_fparams: dict | None = None,
    ortho_bparams: dict | None = None,
) -> tuple[Tensor, Tensor]:
    """(E, X): the k largest (or smallest) eigenvalues of the symmetric generalized problem
    A x = e B x (B positive definite, default the identity) and their B-orthonormal
    eigenvectors, by LOBPCG. Mirrors torch.lobpcg (same defaults: k = X's columns or 1, n = k,
    niter 1000 (-1: no limit), tol sqrt(eps), largest True, method "ortho"; any other method
    name runs "basic"; E is descending for largest, ascending otherwise). When A or B requires
    grad, A is replaced by (A + A^T) / 2 (and B alike) so A.grad is symmetric; backward
    differentiates the k computed pairs of A (torch's formula's values); a B refuses backward.

    Differences from torch: sparse A is not supported (minitorch's sparse tensors are limited);
    the random initial X comes from minitorch's generator, so a run from X=None takes other
    steps than torch's for the same seed (the converged pairs agree, the signs of the vectors
    may not); each step reads its convergence flags to the host (NOTE [ lobpcg reads to the
    host ]), as torch's does; see also LOBPCG's docstring (the tracker's worker).
    """
    args = (k, B, X, n, iK, niter, tol, largest, method, tracker)
    params = (ortho_iparams, ortho_fparams, ortho_bparams)
    if A.requires_grad or (B is not None and B.requires_grad):
        A_sym = (A + A.mT) / 2
        B_sym = None if B is None else (B + B.mT) / 2
        args = (k, B_sym) + args[2:]
        return LOBPCGAutogradFunction.apply(A_sym, *args, *params)
    return _run(A, *args, *params)
