"""Session 35 (helper qsim): quantum-circuit simulators written with real tensors, the way such
code is written in torch without complex dtypes, run under torch and minitorch with the same
seeds and compared record by record: state vectors as separate real and imaginary tensors of
shape (2,)*n and as a trailing dim of size 2; single- and two-qubit gates applied by tensordot
+ movedim, by einsum with built subscripts, by reshape + permute + matmul, and as full 2^n
matrices from kron; controlled gates by index_select and cat; measurement probabilities and
marginals, outcomes sampled with multinomial from a seeded Generator; Pauli expectation values
and transverse-field Ising energies; variational circuits (angles through cos/sin) trained with
Adam; parameter-shift gradients against autograd; density matrices (trace, diagonal, purity,
matrix_power, partial traces, Kraus channels); the quantum Fourier transform, Grover search,
time evolution by matrix_exp, entanglement entropy; gradcheck/hessian of circuits; and the
errors users hit (einsum/tensordot dims, kron/multinomial/index_select arguments).
float64 must agree to 1e-10 of each record's scale, float32 to 1e-4; texts exactly.

Found and fixed:
- tensordot checked its operands' types before reading dims and named them 'a'/'b': torch's
  Python reads an int dims first (a negative one refused at once) and then calls a.dim() and
  b.dim() (a non-tensor's AttributeError "'str' object has no attribute 'dim'"); a list or
  tensor dims is read first and the kernel's parser then names "argument 'input' (position 1)"
  and "argument 'other' (position 2)" before the dims' element types.
- einsum's sublist form index()ed each subscript first: torch compares it with 0, 26 and 52
  before chr() (a str's "'>=' not supported ..." TypeError, a float out of range's ValueError,
  a many-element tensor's "Boolean value of Tensor ..." RuntimeError, as when a tensor lands
  in the output sublist's place: einsum(a, [0, 1], b)).
- unravel_index of a Python int (a basis state's number) or list raised "expected 'indices' to
  be a Tensor" TypeError; torch reads indices.is_complex() first: "'int' object has no
  attribute 'is_complex'" (AttributeError).

Known and left (documented):
- torch.kron of a transposed (non-contiguous) operand raises "view size is not compatible ..."
  (torch issue #54135, its product keeps the operand's layout and is then viewed); minitorch
  computes the product. The programs pass contiguous operands (see s33_numla).
- vmap(randomness="same") over a random op whose tensor input is batched (multinomial,
  bernoulli, poisson, normal with a tensor mean/std, binomial): torch refuses ("Vmap does not
  currently support same randomness with a batched tensor input ..."); minitorch's vmap loops
  over samples and has no notion of a batched tensor, so it samples each. Not recorded.
- A pointwise out= partly overlapping an input (torch.mul(x, 2, out=x[:4]) with x[1:5]) is not
  refused (known from s29_graphalgo); not recorded.
- Indexing with two Ellipses (x[..., ..., 1]): torch adds the ellipsis width twice and raises
  "Dimension out of range ..."; minitorch reads them as one. Not recorded.
- minitorch has no complex dtypes, so the programs keep real and imaginary parts apart (as the
  domain's code does) and use svdvals/eigvalsh instead of eig/eigvals.
- The records run on the CPU only; the strict test device and CuPy are not exercised here."""

from __future__ import annotations

import math

import pytest

from tests.reference._one_thread import one_torch_thread  # noqa: F401 - an autouse fixture
from tests.reference._programs import assert_calls_match, assert_program_matches, run_calls
from tests.reference._programs import seeded_gen as _gen
from tests.reference._programs import seeded_randn as _randn

torch = pytest.importorskip("torch")


PROGRAMS = [
    "tensordot_gates", "einsum_gates", "kron_full", "permute_matmul", "controlled",
    "trailing_dim", "measure_sample", "expectations", "vqe_adam", "param_shift",
    "density", "partial_trace", "kraus", "qft", "grover", "time_evolution", "entropy",
    "batched", "gradcheck", "hessian", "collapse", "errors", "unitarity", "matrix_power",
    "vqe_lbfgs", "func_transforms", "custom_shift", "qaoa", "mps", "generator_state",
    "basis_bits", "ground_state",
]  # fmt: skip


@pytest.mark.parametrize("dt", ["float64", "float32"])
@pytest.mark.parametrize("name", PROGRAMS)
def test_program_matches_torch(name, dt):
    assert_program_matches(globals()["p_" + name], torch, dt)


def test_calls_match_torch():
    assert_calls_match(p_calls, torch)


# the argument errors of the contractions a simulator writes (compiled as written, so the
# library reads the keywords from the call's bytecode)
CALLS = [
    # tensordot: an int dims reads a.dim() and b.dim() in torch's Python; other dims go to the
    # kernel, whose parser names input, other, dims_self, dims_other in that order
    "lib.tensordot(a, 'b')", "lib.tensordot([1.0], b)", "lib.tensordot(None, b, dims=0)",
    "lib.tensordot(a, None, dims=-1)", "lib.tensordot('a', 'b', dims=1)",
    "lib.tensordot(a, 'b', dims=([1], [0]))", "lib.tensordot('a', b, dims=([1], [0]))",
    "lib.tensordot(a, 3, dims=[[1], [0]])", "lib.tensordot(a, 'b', dims=lib.tensor(1))",
    "lib.tensordot('a', b, dims=lib.tensor([[1], [0]]))", "lib.tensordot('a', b, dims=1.5)",
    "lib.tensordot('a', b, dims=([1.5], [0]))", "lib.tensordot(a, b, dims=([1.5], [0]))",
    "lib.tensordot(a, b, dims=([1], 0))", "lib.tensordot(a, b, dims=([1], [0], [1]))",
    "lib.tensordot(a, b, dims=lib.tensor([[1, 2, 0]]))",
    "lib.tensordot(a, b, dims=lib.tensor(-1))", "lib.tensordot('a', b, dims=lib.tensor(-1))",
    "lib.tensordot(a, b, dims=lib.tensor([[1], [5]]))",
    "lib.tensordot(a, b, dims=([0], [0]))", "lib.tensordot(a, b, dims=3)",
    "lib.tensordot(a, b, dims=1, out=[1])", "lib.tensordot(a, b.double(), dims=1)",
    # einsum's sublist form: torch compares each subscript with 0, 26 and 52, then chr()s it
    "lib.einsum(a, [0, 1], b)", "lib.einsum(a, [0, 1.5])", "lib.einsum(a, [0, 60.0])",
    "lib.einsum(a, [0, 'x'])", "lib.einsum(a, [0, None])", "lib.einsum(a, [0, -1])",
    "lib.einsum(a, [0, 52])", "lib.einsum(a, [0, lib.tensor([1, 2])])",
    "lib.einsum(a, [0, lib.tensor(1.0)])", "lib.einsum(a, [0, 1], b, [1, 2], [2, 0.5])",
    "lib.einsum(a, [0, 1], b, [1, 2], [2, 0])", "lib.einsum(a, [0, 51], b, [51, 3])",
    "lib.einsum(a, [0, True])", "lib.einsum(a, [Ellipsis, 1], [Ellipsis])",
    "lib.einsum(a, 5)",
    # unravel_index reads indices.is_complex() first (basis states as Python ints)
    "lib.unravel_index(5, (2, 2, 2))", "lib.unravel_index([5, 6], (2, 2, 2))",
    "lib.unravel_index(None, (2, 2, 2))", "lib.unravel_index(lib.tensor([5.0]), (2, 2, 2))",
    "lib.unravel_index(lib.tensor([5]), (2, -2))", "lib.unravel_index(lib.tensor([5]), 2.0)",
    "lib.unravel_index(lib.tensor([5]), (2, 2.0))",
]  # fmt: skip


def p_calls(lib, rec):
    env = {"lib": lib, "a": lib.ones(2, 3), "b": lib.ones(3, 4)}
    run_calls(CALLS, env, rec)


# --- a small simulator, written once for both libraries ---


def _zero_state(lib, dt, n):
    re = lib.zeros([2] * n, dtype=dt)
    re[(0,) * n] = 1.0
    return re, lib.zeros_like(re)


def _gates(lib, dt):
    s = 1.0 / math.sqrt(2.0)
    return {
        "H": (lib.tensor([[s, s], [s, -s]], dtype=dt), lib.zeros(2, 2, dtype=dt)),
        "X": (lib.tensor([[0.0, 1.0], [1.0, 0.0]], dtype=dt), lib.zeros(2, 2, dtype=dt)),
        "Y": (lib.zeros(2, 2, dtype=dt), lib.tensor([[0.0, -1.0], [1.0, 0.0]], dtype=dt)),
        "Z": (lib.tensor([[1.0, 0.0], [0.0, -1.0]], dtype=dt), lib.zeros(2, 2, dtype=dt)),
        "S": (lib.tensor([[1.0, 0.0], [0.0, 0.0]], dtype=dt),
              lib.tensor([[0.0, 0.0], [0.0, 1.0]], dtype=dt)),
    }  # fmt: skip


def _rx(lib, theta):
    c, s = lib.cos(theta / 2), lib.sin(theta / 2)
    z = lib.zeros_like(c)
    return lib.stack([lib.stack([c, z]), lib.stack([z, c])]), lib.stack(
        [lib.stack([z, -s]), lib.stack([-s, z])]
    )


def _ry(lib, theta):
    c, s = lib.cos(theta / 2), lib.sin(theta / 2)
    z = lib.zeros_like(c)
    return lib.stack([lib.stack([c, -s]), lib.stack([s, c])]), lib.stack(
        [lib.stack([z, z]), lib.stack([z, z])]
    )


def _rz(lib, theta):
    c, s = lib.cos(theta / 2), lib.sin(theta / 2)
    z = lib.zeros_like(c)
    return lib.stack([lib.stack([c, z]), lib.stack([z, c])]), lib.stack(
        [lib.stack([-s, z]), lib.stack([z, s])]
    )


def _apply1(lib, gate, state, q):
    """One-qubit gate (real, imag) on qubit q of (real, imag) state by tensordot + movedim."""
    gr, gi = gate
    re, im = state

    def td(g, x):
        return lib.movedim(lib.tensordot(g, x, dims=([1], [q])), 0, q)

    return td(gr, re) - td(gi, im), td(gr, im) + td(gi, re)


def _apply2(lib, gate, state, q0, q1):
    """Two-qubit gate (4x4 real, imag) on qubits q0, q1 by tensordot over both axes."""
    gr, gi = (g.reshape(2, 2, 2, 2) for g in gate)
    re, im = state

    def td(g, x):
        return lib.movedim(lib.tensordot(g, x, dims=([2, 3], [q0, q1])), (0, 1), (q0, q1))

    return td(gr, re) - td(gi, im), td(gr, im) + td(gi, re)


def _cnot(lib, dt):
    m = lib.eye(4, dtype=dt)[[0, 1, 3, 2]]
    return m, lib.zeros(4, 4, dtype=dt)


def _probs(state):
    re, im = state
    return re * re + im * im


def _ansatz(lib, dt, params, n):
    """Layers of RY, RZ on every qubit and a CNOT ladder."""
    state = _zero_state(lib, dt, n)
    cx = _cnot(lib, dt)
    for layer in range(params.shape[0]):
        for q in range(n):
            state = _apply1(lib, _ry(lib, params[layer, q, 0]), state, q)
            state = _apply1(lib, _rz(lib, params[layer, q, 1]), state, q)
        for q in range(n - 1):
            state = _apply2(lib, cx, state, q, q + 1)
    return state


def _expect_z(lib, state, q):
    p = _probs(state)
    p = p.movedim(q, 0).reshape(2, -1).sum(1)
    return p[0] - p[1]


def _expect_zz(lib, state, q0, q1):
    p = _probs(state)
    n = p.dim()
    sign = lib.ones([2] * n, dtype=p.dtype)
    zq = lib.tensor([1.0, -1.0], dtype=p.dtype)
    shape0 = [1] * n
    shape0[q0] = 2
    shape1 = [1] * n
    shape1[q1] = 2
    sign = sign * zq.reshape(shape0) * zq.reshape(shape1)
    return (p * sign).sum()


def _expect_x(lib, dt, state, q):
    h = _gates(lib, dt)["H"]
    return _expect_z(lib, _apply1(lib, h, state, q), q)


def _ising_energy(lib, dt, state, n, hfield=0.7):
    e = 0.0
    for q in range(n - 1):
        e = e - _expect_zz(lib, state, q, q + 1)
    for q in range(n):
        e = e - hfield * _expect_x(lib, dt, state, q)
    return e


def _ising_matrix(lib, dt, n, hfield=0.7):
    i2 = lib.eye(2, dtype=dt)
    z = lib.tensor([[1.0, 0.0], [0.0, -1.0]], dtype=dt)
    x = lib.tensor([[0.0, 1.0], [1.0, 0.0]], dtype=dt)

    def op(ops):
        out = ops[0]
        for o in ops[1:]:
            out = lib.kron(out, o)
        return out

    h = lib.zeros(2**n, 2**n, dtype=dt)
    for q in range(n - 1):
        h = h - op([z if k in (q, q + 1) else i2 for k in range(n)])
    for q in range(n):
        h = h - hfield * op([x if k == q else i2 for k in range(n)])
    return h


def _cmatvec(lib, mr, mi, vr, vi):
    return mr @ vr - mi @ vi, mr @ vi + mi @ vr


def _cmatmul(mr, mi, nr, ni):
    return mr @ nr - mi @ ni, mr @ ni + mi @ nr


def _random_state(lib, dt, seed, n):
    re = _randn(lib, dt, seed, *[2] * n)
    im = _randn(lib, dt, seed + 1, *[2] * n)
    norm = (re.pow(2).sum() + im.pow(2).sum()).sqrt()
    return re / norm, im / norm


# --- the programs: each takes the library, a dtype and a recorder ---


def p_tensordot_gates(lib, dt, rec):
    g = _gates(lib, dt)
    n = 4
    state = _zero_state(lib, dt, n)
    state = _apply1(lib, g["H"], state, 0)
    state = _apply1(lib, g["Y"], state, 2)
    state = _apply1(lib, g["S"], state, 0)
    state = _apply1(lib, _rx(lib, lib.tensor(0.37, dtype=dt)), state, 3)
    state = _apply1(lib, _rz(lib, lib.tensor(-1.2, dtype=dt)), state, 1)
    state = _apply2(lib, _cnot(lib, dt), state, 0, 3)
    state = _apply2(lib, _cnot(lib, dt), state, 2, 1)
    rec("re", state[0])
    rec("im", state[1])
    rec("norm", _probs(state).sum())
    rec("shape", str(state[0].shape))
    rec("contig", state[0].is_contiguous())
    # tensordot with an int dims and with lists
    a = _randn(lib, dt, 1, 2, 3, 4)
    b = _randn(lib, dt, 2, 3, 4, 5)
    rec("td2", lib.tensordot(a, b, dims=2))
    rec("td0", lib.tensordot(a[0, 0], b[0, 0], dims=0))
    rec("tdl", lib.tensordot(a, b, dims=[[1, 2], [0, 1]]))
    rec("tdt", lib.tensordot(a, b.permute(1, 0, 2), dims=((2, 1), (0, 1))))


def p_einsum_gates(lib, dt, rec):
    n = 5
    letters = "abcdefghij"
    state = _random_state(lib, dt, 3, n)
    u = _rx(lib, lib.tensor(0.9, dtype=dt))
    for q in (0, 2, 4):
        idx = letters[:n]
        spec = f"z{idx[q]},{idx}->{idx.replace(idx[q], 'z')}"
        re, im = state
        state = (
            lib.einsum(spec, u[0], re) - lib.einsum(spec, u[1], im),
            lib.einsum(spec, u[0], im) + lib.einsum(spec, u[1], re),
        )
    rec("re", state[0])
    rec("im", state[1])
    # a two-qubit gate as a (2,2,2,2) tensor with ellipsis
    g = _randn(lib, dt, 5, 2, 2, 2, 2)
    rec("ell", lib.einsum("ijkl,...kl->...ij", g, state[0]))
    rec("ell_mid", lib.einsum("ijkl,ak...l->ai...j", g, state[0]))
    # the same as tensordot + movedim
    td = lib.movedim(lib.tensordot(g, state[0], dims=([2, 3], [1, 3])), (0, 1), (1, 3))
    rec("vs_td", (lib.einsum("ijkl,akblc->aibjc", g, state[0]) - td).abs().max())
    # list-of-operands form
    rec("sublist", lib.einsum(g, [0, 1, 2, 3], state[0], [4, 2, 5, 3, 6], [4, 0, 5, 1, 6]))
    # the norm via einsum
    rec("norm", lib.einsum("abcde,abcde->", state[0], state[0]) + (state[1] ** 2).sum())


def p_kron_full(lib, dt, rec):
    g = _gates(lib, dt)
    n = 3
    i2 = lib.eye(2, dtype=dt)
    hr = g["H"][0]
    # H on qubit 1 as a full matrix
    full = lib.kron(lib.kron(i2, hr), i2)
    rec("full", full)
    state = _random_state(lib, dt, 7, n)
    vr, vi = state[0].reshape(-1), state[1].reshape(-1)
    out = full @ vr, full @ vi
    ref = _apply1(lib, g["H"], state, 1)
    rec(
        "match",
        (out[0] - ref[0].reshape(-1)).abs().max() + (out[1] - ref[1].reshape(-1)).abs().max(),
    )
    # complex kron: (a + ib) x (c + id)
    yr, yi = g["Y"]
    sr, si = g["S"]
    kr = lib.kron(yr, sr) - lib.kron(yi, si)
    ki = lib.kron(yr, si) + lib.kron(yi, sr)
    rec("kr", kr)
    rec("ki", ki)
    # batched kron, kron of vectors, kron of different ranks
    rec("kvec", lib.kron(lib.tensor([1.0, 2.0], dtype=dt), lib.tensor([3.0, -1.0, 0.5], dtype=dt)))
    rec("k3", lib.kron(_randn(lib, dt, 8, 2, 2, 2), _randn(lib, dt, 9, 3, 1)))
    # the Ising Hamiltonian and its ground energy
    h = _ising_matrix(lib, dt, 4)
    rec("h", h)
    rec("sym", (h - h.T).abs().max())
    rec("e0", lib.linalg.eigvalsh(h)[:3])
    rec("tr", lib.trace(h))
    # kron with gradients
    a = _randn(lib, dt, 10, 2, 2).requires_grad_(True)
    b = _randn(lib, dt, 11, 3, 2).requires_grad_(True)
    w = _randn(lib, dt, 12, 6, 4)
    (lib.kron(a, b) * w).sum().backward()
    rec("ga", a.grad)
    rec("gb", b.grad)


def p_permute_matmul(lib, dt, rec):
    """Gates applied by moving the target axis last, reshaping to (-1, 2) and matmul."""
    n = 4
    state = _random_state(lib, dt, 13, n)
    u = _ry(lib, lib.tensor(0.61, dtype=dt))
    q = 1
    perm = [k for k in range(n) if k != q] + [q]
    inv = [perm.index(k) for k in range(n)]
    re, im = (s.permute(*perm).reshape(-1, 2) for s in state)
    nr, ni = re @ u[0].T - im @ u[1].T, re @ u[1].T + im @ u[0].T
    out = nr.reshape([2] * n).permute(*inv), ni.reshape([2] * n).permute(*inv)
    ref = _apply1(lib, u, state, q)
    rec("out_re", out[0])
    rec("out_im", out[1])
    rec("diff", (out[0] - ref[0]).abs().max())
    rec("contig", out[0].is_contiguous())
    rec("strides", str(out[0].stride()))
    # the state as a flat vector with view / transpose
    flat = state[0].reshape(2, 2, 4).transpose(0, 1).contiguous().view(-1)
    rec("flat", flat)
    rec.err("view_err", lambda: state[0].permute(1, 0, 2, 3).view(-1))
    # matmul against a batch of gates
    gates = lib.stack([_rx(lib, lib.tensor(t, dtype=dt))[1] for t in (0.1, 0.2, 0.3)])
    rec("bmm", lib.matmul(gates, state[0].reshape(2, 8)))
    rec("bmm_shape", str(lib.matmul(gates, state[0].reshape(2, 8)).shape))


def p_controlled(lib, dt, rec):
    n = 3
    state = _random_state(lib, dt, 14, n)
    re = state[0].reshape(-1)
    # CNOT (control 0, target 2) as a permutation of the basis by index_select
    idx = []
    for k in range(2**n):
        bits = [(k >> (n - 1 - j)) & 1 for j in range(n)]
        if bits[0]:
            bits[2] ^= 1
        idx.append(sum(b << (n - 1 - j) for j, b in enumerate(bits)))
    perm = lib.tensor(idx)
    rec("perm", perm)
    rec("cnot", lib.index_select(re, 0, perm))
    ref = _apply2(lib, _cnot(lib, dt), state, 0, 2)
    rec("cnot_ref", ref[0].reshape(-1))
    # controlled-U by cat of the untouched half and the gated half
    u = _ry(lib, lib.tensor(1.3, dtype=dt))
    r0, r1 = state[0][0], state[0][1]
    i0, i1 = state[1][0], state[1][1]
    g = _apply1(lib, u, (r1, i1), 1)
    cu = (
        lib.cat([r0.unsqueeze(0), g[0].unsqueeze(0)]),
        lib.cat([i0.unsqueeze(0), g[1].unsqueeze(0)]),
    )
    rec("cu_re", cu[0])
    rec("cu_im", cu[1])
    # CZ as a sign flip on |11>
    sign = lib.ones(2, 2, 1, dtype=dt)
    sign[1, 1] = -1.0
    rec("cz", state[0] * sign)
    # Toffoli via index_select along a dim of the (2,2,2) tensor
    t = state[0].clone()
    t[1, 1] = lib.index_select(t[1, 1], 0, lib.tensor([1, 0]))
    rec("toffoli", t)
    # SWAP by transpose and by index_select on the flat vector
    rec("swap", state[0].transpose(0, 2).reshape(-1))
    rec("swap2", lib.index_select(re, 0, lib.tensor([0, 4, 2, 6, 1, 5, 3, 7])))
    # gradient through index_select and cat
    w = state[0].clone().requires_grad_(True)
    out = lib.cat([lib.index_select(w.reshape(-1), 0, perm), w.reshape(-1)[:3]])
    (out * lib.arange(11, dtype=dt)).sum().backward()
    rec("grad", w.grad)
    rec.err("idx_float", lambda: lib.index_select(re, 0, lib.tensor([0.0, 1.0])))
    rec.err("idx_oob", lambda: lib.index_select(re, 0, lib.tensor([0, 8])))
    rec.err("idx_2d", lambda: lib.index_select(re, 0, lib.tensor([[0, 1]])))


def p_trailing_dim(lib, dt, rec):
    """Amplitudes with a trailing dim of 2 (real, imag)."""
    n = 3
    psi = lib.zeros(*[2] * n, 2, dtype=dt)
    psi[0, 0, 0, 0] = 1.0

    def cmul(a, b):
        ar, ai = a.unbind(-1)
        br, bi = b.unbind(-1)
        return lib.stack([ar * br - ai * bi, ar * bi + ai * br], dim=-1)

    def apply(g, psi, q):
        # g: (2, 2, 2), contract g[i, j] with psi's axis q
        gr, gi = g[..., 0], g[..., 1]
        pr, pi = psi[..., 0], psi[..., 1]
        pr_ = pr.movedim(q, -1)
        pi_ = pi.movedim(q, -1)
        nr = lib.einsum("ij,...j->...i", gr, pr_) - lib.einsum("ij,...j->...i", gi, pi_)
        ni = lib.einsum("ij,...j->...i", gr, pi_) + lib.einsum("ij,...j->...i", gi, pr_)
        return lib.stack([nr.movedim(-1, q), ni.movedim(-1, q)], dim=-1)

    h = lib.stack(_gates(lib, dt)["H"], dim=-1)
    y = lib.stack(_gates(lib, dt)["Y"], dim=-1)
    rz = lib.stack(_rz(lib, lib.tensor(0.4, dtype=dt)), dim=-1)
    for q in range(n):
        psi = apply(h, psi, q)
    psi = apply(y, psi, 1)
    psi = apply(rz, psi, 2)
    rec("psi", psi)
    rec("probs", psi.pow(2).sum(-1))
    rec("norm", lib.linalg.vector_norm(psi))
    phase = lib.tensor([math.cos(0.3), math.sin(0.3)], dtype=dt)
    rec("global_phase", cmul(psi, phase.expand_as(psi)))
    rec("overlap_re", (psi[..., 0] * psi[..., 0] + psi[..., 1] * psi[..., 1]).sum())
    # view_as_real-like flattening
    rec("flat", psi.reshape(-1, 2).T)
    rec("angle", lib.atan2(psi[..., 1], psi[..., 0]))
    rec("abs", lib.hypot(psi[..., 0], psi[..., 1]))


def p_measure_sample(lib, dt, rec):
    n = 4
    params = _randn(lib, dt, 15, 2, n, 2)
    state = _ansatz(lib, dt, params, n)
    p = _probs(state)
    rec("p", p)
    rec("sum", p.sum())
    for q in range(n):
        dims = [k for k in range(n) if k != q]
        rec(f"marg{q}", p.sum(dim=dims))
    rec("marg01", p.sum(dim=(2, 3)))
    flat = p.reshape(-1)
    gen = _gen(lib, 123)
    samples = lib.multinomial(flat, 500, replacement=True, generator=gen)
    rec("samples", samples[:40])
    counts = lib.bincount(samples, minlength=16)
    rec("counts", counts)
    rec("freq", counts.to(dt) / 500)
    bits = (samples.unsqueeze(-1) >> lib.arange(n - 1, -1, -1)) & 1
    rec("bits_mean", bits.to(dt).mean(0))
    # a batch of shots from several distributions
    pb = lib.stack([flat, flat.flip(0), lib.ones(16, dtype=dt)])
    rec("batch", lib.multinomial(pb, 6, generator=_gen(lib, 5)))
    rec("norepl", lib.multinomial(flat + 1e-3, 8, replacement=False, generator=_gen(lib, 6)))
    rec("one", lib.multinomial(flat, 1, generator=_gen(lib, 7)))
    # argmax of a distinct distribution
    rec("most_likely", lib.argmax(flat))
    rec.err("neg", lambda: lib.multinomial(flat - 1.0, 3))
    rec.err("toomany", lambda: lib.multinomial(lib.tensor([0.5, 0.5, 0.0], dtype=dt), 3))
    rec.err("zero", lambda: lib.multinomial(lib.zeros(4, dtype=dt), 2))
    rec.err("dim3", lambda: lib.multinomial(p.reshape(2, 2, 4), 2))
    rec.err("nsamp0", lambda: lib.multinomial(flat, 0))
    rec.err("int", lambda: lib.multinomial(lib.tensor([1, 2, 3]), 2))


def p_expectations(lib, dt, rec):
    n = 4
    params = _randn(lib, dt, 16, 3, n, 2)
    state = _ansatz(lib, dt, params, n)
    for q in range(n):
        rec(f"z{q}", _expect_z(lib, state, q))
        rec(f"x{q}", _expect_x(lib, dt, state, q))
    rec("zz01", _expect_zz(lib, state, 0, 1))
    e = _ising_energy(lib, dt, state, n)
    rec("energy", e)
    # the same energy as psi^T H psi with the full Hamiltonian
    h = _ising_matrix(lib, dt, n)
    vr, vi = state[0].reshape(-1), state[1].reshape(-1)
    rec("energy_mat", vr @ h @ vr + vi @ h @ vi)
    rec("energy_dot", lib.dot(vr, h.mv(vr)) + lib.vdot(vi, lib.mv(h, vi)))
    rec("energy_einsum", lib.einsum("i,ij,j->", vr, h, vr) + lib.einsum("i,ij,j->", vi, h, vi))
    # <Y> on qubit 2: apply S^dagger H
    g = _gates(lib, dt)
    sdg = (g["S"][0], -g["S"][1])
    st = _apply1(lib, g["H"], _apply1(lib, sdg, state, 2), 2)
    rec("y2", _expect_z(lib, st, 2))
    rec("bounds", lib.stack([_expect_z(lib, state, q) for q in range(n)]).abs().le(1.0).all())


def p_vqe_adam(lib, dt, rec):
    n = 3
    params = (_randn(lib, dt, 17, 2, n, 2) * 0.3).requires_grad_(True)
    opt = lib.optim.Adam([params], lr=0.05)
    energies = []
    for _ in range(8):
        opt.zero_grad()
        e = _ising_energy(lib, dt, _ansatz(lib, dt, params, n), n)
        e.backward()
        opt.step()
        energies.append(e.detach())
    rec("energies", lib.stack(energies))
    rec("params", params)
    rec("grad", params.grad)
    rec("state", opt.state[params]["exp_avg_sq"])
    rec("step", opt.state[params]["step"])
    # a module holding the angles, AdamW with a scheduler
    lib.manual_seed(0)

    class Circuit(lib.nn.Module):
        def __init__(self):
            super().__init__()
            self.theta = lib.nn.Parameter(
                lib.linspace(-0.5, 0.5, 2 * n * 2, dtype=dt).reshape(2, n, 2)
            )

        def forward(self):
            return _ising_energy(lib, dt, _ansatz(lib, dt, self.theta, n), n)

    model = Circuit()
    opt = lib.optim.AdamW(model.parameters(), lr=0.1, weight_decay=0.01)
    sched = lib.optim.lr_scheduler.StepLR(opt, step_size=3, gamma=0.5)
    hist = []
    for _ in range(5):
        opt.zero_grad()
        loss = model()
        loss.backward()
        opt.step()
        sched.step()
        hist.append(loss.item())
    rec("hist", hist)
    rec("theta", model.theta)
    rec("lr", sched.get_last_lr())


def p_param_shift(lib, dt, rec):
    n = 3
    params = _randn(lib, dt, 18, 1, n, 2)

    def energy(p):
        return _ising_energy(lib, dt, _ansatz(lib, dt, p, n), n)

    p = params.clone().requires_grad_(True)
    e = energy(p)
    (g_auto,) = lib.autograd.grad(e, p)
    rec("auto", g_auto)
    g_shift = lib.zeros_like(params)
    with lib.no_grad():
        for idx in range(params.numel()):
            shift = lib.zeros(params.numel(), dtype=dt)
            shift[idx] = math.pi / 2
            shift = shift.view_as(params)
            g_shift.view(-1)[idx] = (energy(params + shift) - energy(params - shift)) / 2
    rec("shift", g_shift)
    rec("agree", (g_shift - g_auto).abs().max())
    # finite differences as a third opinion (float64 only, a coarse step)
    if dt == lib.float64:
        eps = 1e-6
        fd = lib.zeros_like(params)
        for idx in range(params.numel()):
            d = lib.zeros(params.numel(), dtype=dt)
            d[idx] = eps
            d = d.view_as(params)
            fd.view(-1)[idx] = (energy(params + d) - energy(params - d)) / (2 * eps)
        rec("fd_close", lib.allclose(fd, g_auto, atol=1e-6))
    # a vectorised parameter shift with a batch dimension
    k = params.numel()
    shifts = lib.eye(k, dtype=dt).reshape(k, *params.shape) * (math.pi / 2)
    plus = lib.stack([energy(params + s) for s in shifts.unbind(0)])
    minus = lib.stack([energy(params - s) for s in shifts.unbind(0)])
    rec("vec", ((plus - minus) / 2).reshape(params.shape))


def _density(lib, state):
    vr, vi = state[0].reshape(-1), state[1].reshape(-1)
    # rho = psi psi^dagger
    rr = lib.outer(vr, vr) + lib.outer(vi, vi)
    ri = lib.outer(vi, vr) - lib.outer(vr, vi)
    return rr, ri


def p_density(lib, dt, rec):
    n = 3
    state = _random_state(lib, dt, 19, n)
    rr, ri = _density(lib, state)
    rec("rr", rr)
    rec("ri", ri)
    rec("trace", lib.trace(rr))
    rec("diag", lib.diagonal(rr))
    rec("diag_vs_probs", (rr.diagonal() - _probs(state).reshape(-1)).abs().max())
    rec("herm", (rr - rr.T).abs().max() + (ri + ri.T).abs().max())
    # purity tr(rho^2) = 1 for a pure state
    sq = _cmatmul(rr, ri, rr, ri)
    rec("purity", lib.trace(sq[0]))
    # a mixed state: average of two pure states
    other = _density(lib, _random_state(lib, dt, 21, n))
    mr, mi = 0.3 * rr + 0.7 * other[0], 0.3 * ri + 0.7 * other[1]
    rec("mixed_purity", lib.trace(_cmatmul(mr, mi, mr, mi)[0]))
    rec("mixed_trace", mr.trace())
    # expectation tr(rho H)
    h = _ising_matrix(lib, dt, n)
    rec("tr_rho_h", lib.trace(mr @ h))
    rec("einsum_tr", lib.einsum("ij,ji->", mr, h))
    # eigenvalues of the real embedding [[Re, -Im], [Im, Re]] come in pairs
    emb = lib.cat([lib.cat([mr, -mi], 1), lib.cat([mi, mr], 1)], 0)
    ev = lib.linalg.eigvalsh(emb)
    rec("ev", ev[-4:])
    rec("ev_sum", ev.sum())
    # diag_embed / diagonal with offsets and dims
    rec("diag_embed", lib.diag_embed(mr.diagonal()[:4]))
    rec("diag_off", mr.diagonal(offset=1))
    rec("diag_3d", mr.reshape(2, 4, 8).diagonal(dim1=1, dim2=2))
    rec("trace_grad", lib.autograd.grad(lib.trace(mr.requires_grad_(True) @ h), mr)[0])


def p_partial_trace(lib, dt, rec):
    n = 3
    params = _randn(lib, dt, 22, 2, n, 2)
    state = _ansatz(lib, dt, params, n)
    rr, ri = _density(lib, state)
    t = rr.reshape(2, 2, 2, 2, 2, 2)
    ti = ri.reshape(2, 2, 2, 2, 2, 2)
    # trace out qubit 2: rho_AB = sum_c rho[a b c, a' b' c]
    rab = lib.einsum("abcxyc->abxy", t).reshape(4, 4)
    rabi = lib.einsum("abcxyc->abxy", ti).reshape(4, 4)
    rec("rab", rab)
    rec("rabi", rabi)
    rec("rab_tr", rab.trace())
    # trace out qubits 1, 2 by diagonal + sum
    ra = t.diagonal(dim1=2, dim2=5).diagonal(dim1=1, dim2=3).sum((-1, -2))
    rec("ra", ra)
    rec("ra_einsum", lib.einsum("abcxbc->ax", t))
    # reduced purity = entanglement witness
    pur = lib.trace(rab @ rab - rabi @ rabi)
    rec("purity_ab", pur)
    # the same by tensordot: contract a state with itself over qubit 2
    re, im = state
    rt = lib.tensordot(re, re, dims=([2], [2])) + lib.tensordot(im, im, dims=([2], [2]))
    rec("td", rt.reshape(4, 4))
    rec.err("ein_bad", lambda: lib.einsum("abcxyc->abxy", rr.reshape(2, 2, 2, 2, 4, 2)))


def p_kraus(lib, dt, rec):
    """Noise channels on a single-qubit and two-qubit density matrix."""
    p = 0.2
    g = _gates(lib, dt)
    i2 = lib.eye(2, dtype=dt)
    kr = lib.stack([math.sqrt(1 - 3 * p / 4) * i2, math.sqrt(p / 4) * g["X"][0],
                    lib.zeros(2, 2, dtype=dt), math.sqrt(p / 4) * g["Z"][0]])  # fmt: skip
    ki = lib.stack([lib.zeros(2, 2, dtype=dt), lib.zeros(2, 2, dtype=dt),
                    math.sqrt(p / 4) * g["Y"][1], lib.zeros(2, 2, dtype=dt)])  # fmt: skip
    rr, ri = _density(lib, _random_state(lib, dt, 23, 1))
    # sum_k K rho K^dagger with batched matmul
    kt_r, kt_i = kr.transpose(-1, -2), -ki.transpose(-1, -2)
    a = _cmatmul(kr, ki, rr.expand(4, 2, 2), ri.expand(4, 2, 2))
    b = _cmatmul(a[0], a[1], kt_r, kt_i)
    out_r, out_i = b[0].sum(0), b[1].sum(0)
    rec("out_r", out_r)
    rec("out_i", out_i)
    rec("trace", out_r.trace())
    # completeness sum K^dagger K = I
    comp = _cmatmul(kt_r, kt_i, kr, ki)
    rec("complete", comp[0].sum(0))
    # amplitude damping with einsum
    gamma = lib.tensor(0.3, dtype=dt)
    k0 = lib.stack([lib.stack([lib.ones_like(gamma), lib.zeros_like(gamma)]),
                    lib.stack([lib.zeros_like(gamma), lib.sqrt(1 - gamma)])])  # fmt: skip
    k1 = lib.stack([lib.stack([lib.zeros_like(gamma), lib.sqrt(gamma)]),
                    lib.stack([lib.zeros_like(gamma), lib.zeros_like(gamma)])])  # fmt: skip
    ks = lib.stack([k0, k1])
    rec("damp", lib.einsum("kij,jl,kml->im", ks, rr, ks))
    # repeated channel: fixed point by matrix_power of the superoperator
    sup = lib.einsum("kij,kml->imjl", ks, ks).reshape(4, 4)
    rec("sup", sup)
    rec("sup_pow", lib.matrix_power(sup, 20) @ rr.reshape(-1))
    rec("sup_pow0", lib.linalg.matrix_power(sup, 0))
    # the channel on qubit 1 of a two-qubit rho
    r2, _ = _density(lib, _random_state(lib, dt, 25, 2))
    t = r2.reshape(2, 2, 2, 2)
    rec("on_q1", lib.einsum("kij,ajbl,kml->aibm", ks, t, ks).reshape(4, 4))


def p_qft(lib, dt, rec):
    n = 3
    dim = 2**n
    state = _random_state(lib, dt, 26, n)
    g = _gates(lib, dt)

    def cphase(phi):
        d = lib.tensor([0.0, 0.0, 0.0, phi], dtype=dt)
        return lib.diag(lib.cos(d)), lib.diag(lib.sin(d))

    s = state
    for j in range(n):
        s = _apply1(lib, g["H"], s, j)
        for k in range(j + 1, n):
            s = _apply2(lib, cphase(math.pi / 2 ** (k - j)), s, k, j)
    # reverse the qubit order
    s = tuple(x.permute(*reversed(range(n))) for x in s)
    rec("qft_re", s[0].reshape(-1))
    rec("qft_im", s[1].reshape(-1))
    # the DFT matrix from cos/sin of an outer product
    k = lib.arange(dim, dtype=dt)
    ang = 2 * math.pi * lib.outer(k, k) / dim
    fr, fi = lib.cos(ang) / math.sqrt(dim), lib.sin(ang) / math.sqrt(dim)
    ref = _cmatvec(lib, fr, fi, state[0].reshape(-1), state[1].reshape(-1))
    rec(
        "dft_diff",
        (ref[0] - s[0].reshape(-1)).abs().max() + (ref[1] - s[1].reshape(-1)).abs().max(),
    )
    # the DFT of the real part vs fft's
    rec("dft_re", fr @ state[0].reshape(-1))


def p_grover(lib, dt, rec):
    n = 4
    dim = 2**n
    marked = 11
    psi = lib.full((dim,), 1.0 / math.sqrt(dim), dtype=dt)
    oracle = lib.ones(dim, dtype=dt)
    oracle[marked] = -1.0
    s = psi.clone()
    hist = []
    iters = int(math.floor(math.pi / 4 * math.sqrt(dim)))
    for _ in range(iters):
        psi = psi * oracle
        psi = 2 * lib.dot(s, psi) * s - psi
        hist.append(psi[marked] ** 2)
    rec("hist", lib.stack(hist))
    rec("psi", psi)
    rec("found", lib.argmax(psi.abs()))
    # diffusion as a matrix
    diff = 2 * lib.outer(s, s) - lib.eye(dim, dtype=dt)
    g_op = diff @ lib.diag(oracle)
    rec("g_pow", lib.matrix_power(g_op, iters) @ s)
    rec("g_sv", lib.linalg.svdvals(g_op))
    samples = lib.multinomial(psi**2, 20, replacement=True, generator=_gen(lib, 9))
    rec("samples", samples)
    rec("hits", (samples == marked).sum())
    # topk of the probabilities (distinct values)
    top = lib.topk(psi**2 + lib.arange(dim, dtype=dt) * 1e-3, 3)
    rec("top_idx", top.indices)


def p_time_evolution(lib, dt, rec):
    n = 3
    h = _ising_matrix(lib, dt, n)
    t = 0.4
    # exp(-iHt) via the real embedding: [[cos, sin], [-sin, cos]] = matrix_exp([[0, Ht], [-Ht, 0]])
    z = lib.zeros_like(h)
    big = lib.cat([lib.cat([z, h * t], 1), lib.cat([-h * t, z], 1)], 0)
    u = lib.matrix_exp(big)
    ur, ui = u[: 2**n, : 2**n], -u[: 2**n, 2**n :]
    rec("ur", ur)
    rec("ui", ui)
    # the same from the eigendecomposition
    w, v = lib.linalg.eigh(h)
    cr = v @ lib.diag(lib.cos(w * t)) @ v.T
    ci = -(v @ lib.diag(lib.sin(w * t)) @ v.T)
    rec("eig_diff", (cr - ur).abs().max() + (ci - ui).abs().max())
    # Trotterised evolution of |000>
    psi = _zero_state(lib, dt, n)
    vr, vi = psi[0].reshape(-1), psi[1].reshape(-1)
    exact = _cmatvec(lib, ur, ui, vr, vi)
    rec("exact", lib.stack(exact))
    steps = 20
    dt_ = t / steps
    i2 = lib.eye(2, dtype=dt)
    hx = _gates(lib, dt)["X"][0]
    s = psi
    for _ in range(steps):
        for q in range(n - 1):
            # exp(i dt Z Z) is diagonal
            zz = lib.tensor([1.0, -1.0, -1.0, 1.0], dtype=dt) * dt_
            s = _apply2(lib, (lib.diag(lib.cos(zz)), lib.diag(lib.sin(zz))), s, q, q + 1)
        for q in range(n):
            s = _apply1(lib, (math.cos(0.7 * dt_) * i2, math.sin(0.7 * dt_) * hx), s, q)
    rec("trotter", lib.stack([s[0].reshape(-1), s[1].reshape(-1)]))
    rec("trotter_err", (s[0].reshape(-1) - exact[0]).abs().max())
    # matrix_exp gradient
    a = (h * 0.1).requires_grad_(True)
    lib.matrix_exp(a).trace().backward()
    rec("mexp_grad", a.grad)


def p_entropy(lib, dt, rec):
    n = 4
    params = _randn(lib, dt, 27, 2, n, 2)
    # a real state (RY and CNOTs only) so that reduced density matrices are real symmetric
    params[..., 1] = 0.0
    state = _ansatz(lib, dt, params, n)
    psi = state[0].reshape(4, 4)
    rho_a = psi @ psi.T
    ev = lib.linalg.eigvalsh(rho_a)
    rec("ev", ev)
    ent = -lib.xlogy(ev.clamp(min=0), ev.clamp(min=0)).sum()
    rec("entropy", ent)
    sv = lib.linalg.svdvals(psi)
    rec("schmidt", sv)
    rec("ent_sv", -(sv**2 * lib.log(sv**2)).sum())
    rec("renyi2", -lib.log((ev**2).sum()))
    # the entropy as a loss, differentiated through eigvalsh
    p = params.clone().requires_grad_(True)
    st = _ansatz(lib, dt, p, n)
    m = st[0].reshape(4, 4)
    w = lib.linalg.eigvalsh(m @ m.T)
    loss = -(w * lib.log(w)).sum()
    loss.backward()
    rec("gent", p.grad)
    # a product state has one nonzero Schmidt value
    prod = lib.outer(lib.tensor([0.6, 0.8], dtype=dt), lib.tensor([1.0, 0.0, 0.0, 0.0], dtype=dt))
    rec("rank", lib.linalg.matrix_rank(prod))


def p_batched(lib, dt, rec):
    """A batch of circuits: the batch is axis 0 of the state; the angles a vector."""
    b, n = 5, 3
    theta = lib.linspace(0.0, math.pi, b, dtype=dt)
    re = lib.zeros(b, *[2] * n, dtype=dt)
    re[:, 0, 0, 0] = 1.0
    im = lib.zeros_like(re)
    c, s = lib.cos(theta / 2), lib.sin(theta / 2)
    ry = lib.stack([lib.stack([c, -s], -1), lib.stack([s, c], -1)], -2)  # (b, 2, 2)
    for q in range(n):
        spec = (
            "bij,"
            + "b"
            + "xyz"[:q]
            + "j"
            + "xyz"[q + 1 : n]
            + "->b"
            + "xyz"[:q]
            + "i"
            + "xyz"[q + 1 : n]
        )
        re = lib.einsum(spec, ry, re)
        im = lib.einsum(spec, ry, im)
    rec("re", re)
    p = re**2 + im**2
    rec("p0", p[:, 0, 0, 0])
    rec("z", (p[:, 0] - p[:, 1]).sum((1, 2)))
    # bmm form
    flat = re.reshape(b, 2, 4)
    rec("bmm", lib.bmm(ry, flat))
    rec("baddbmm", lib.baddbmm(flat, ry, flat, beta=0.5, alpha=2.0))

    # vmap over the angles
    def circuit(t):
        st = _apply1(lib, _ry(lib, t), _zero_state(lib, dt, 2), 0)
        st = _apply2(lib, _cnot(lib, dt), st, 0, 1)
        return _probs(st).reshape(-1)

    rec("loop", lib.stack([circuit(t) for t in theta]))
    rec("samples", lib.multinomial(p.reshape(b, -1), 4, replacement=True, generator=_gen(lib, 11)))
    rec.err("bmm_err", lambda: lib.bmm(ry, flat.transpose(1, 2)))


def p_gradcheck(lib, dt, rec):
    if dt != lib.float64:
        rec("skip", "float64 only")
        return
    n = 2

    def f(params):
        st = _ansatz(lib, dt, params, n)
        return lib.stack([_expect_z(lib, st, 0), _expect_zz(lib, st, 0, 1)])

    p = _randn(lib, dt, 28, 1, n, 2).requires_grad_(True)
    rec("gc", lib.autograd.gradcheck(f, (p,)))
    rec("ggc", lib.autograd.gradgradcheck(f, (p,)))

    def g(a, b):
        return lib.kron(a, b).pow(2).sum(0)

    a = _randn(lib, dt, 29, 2, 2).requires_grad_(True)
    b = _randn(lib, dt, 30, 2, 3).requires_grad_(True)
    rec("gc_kron", lib.autograd.gradcheck(g, (a, b)))
    rec("ggc_kron", lib.autograd.gradgradcheck(g, (a, b)))
    x = _randn(lib, dt, 31, 2, 3, 4).requires_grad_(True)
    y = _randn(lib, dt, 32, 4, 3).requires_grad_(True)
    rec(
        "gc_td",
        lib.autograd.gradcheck(lambda x, y: lib.tensordot(x, y, dims=([1, 2], [1, 0])), (x, y)),
    )
    rec(
        "ggc_td",
        lib.autograd.gradgradcheck(lambda x, y: lib.tensordot(x, y, dims=([1, 2], [1, 0])), (x, y)),
    )
    m = (_randn(lib, dt, 33, 3, 3) * 0.3).requires_grad_(True)
    rec("gc_mpow", lib.autograd.gradcheck(lambda m: lib.matrix_power(m, 3), (m,)))
    rec("ggc_mpow", lib.autograd.gradgradcheck(lambda m: lib.matrix_power(m, 3), (m,)))
    rec("gc_mexp", lib.autograd.gradcheck(lib.matrix_exp, (m,)))
    rec("gc_trace", lib.autograd.gradgradcheck(lambda m: lib.trace(m @ m), (m,)))


def p_hessian(lib, dt, rec):
    n = 2
    p0 = _randn(lib, dt, 34, 1, n, 2)

    def energy(flat):
        return _ising_energy(lib, dt, _ansatz(lib, dt, flat.reshape(1, n, 2), n), n)

    hs = lib.autograd.functional.hessian(energy, p0.reshape(-1))
    rec("hess", hs)
    rec("sym", (hs - hs.T).abs().max())
    jac = lib.autograd.functional.jacobian(energy, p0.reshape(-1))
    rec("jac", jac)
    # double backward by hand
    x = p0.reshape(-1).clone().requires_grad_(True)
    (g,) = lib.autograd.grad(energy(x), x, create_graph=True)
    (gg,) = lib.autograd.grad(g.sum(), x)
    rec("gg", gg)
    rec("hsum", hs.sum(0))


def p_collapse(lib, dt, rec):
    """Mid-circuit measurement: sample qubit 0, project, renormalise, continue."""
    n = 3
    params = _randn(lib, dt, 35, 1, n, 2)
    state = _ansatz(lib, dt, params, n)
    gen = _gen(lib, 42)
    outcomes = []
    for q in range(n):
        p = _probs(state)
        pq = p.movedim(q, 0).reshape(2, -1).sum(1)
        m = lib.multinomial(pq, 1, generator=gen)
        outcomes.append(m)
        mask = lib.zeros(2, dtype=dt).index_fill(0, m, 1.0)
        shape = [1] * n
        shape[q] = 2
        re, im = (s * mask.reshape(shape) for s in state)
        norm = lib.sqrt(pq.gather(0, m))
        state = re / norm, im / norm
        rec(f"p{q}", pq)
    rec("outcomes", lib.cat(outcomes))
    rec("final", _probs(state))
    # a projective measurement of many shots: bernoulli on a marginal
    p1 = _probs(_ansatz(lib, dt, params, n)).sum((1, 2))[1]
    shots = lib.bernoulli(p1.expand(30), generator=_gen(lib, 43))
    rec("shots", shots)
    rec("rand_outcomes", lib.rand(4, generator=_gen(lib, 44), dtype=dt) < p1)
    # where-based projection
    rec(
        "where",
        lib.where(lib.arange(8).reshape(2, 2, 2) % 2 == 0, state[0], lib.zeros((), dtype=dt)),
    )


def p_errors(lib, dt, rec):
    a = _randn(lib, dt, 36, 2, 2)
    st = _randn(lib, dt, 37, 2, 3, 2)
    rec.err("ein_dim", lambda: lib.einsum("ij,jkl->ikl", a, st.transpose(0, 1)))
    rec.err("ein_nops", lambda: lib.einsum("ij,jk->ik", a))
    rec.err("ein_rank", lambda: lib.einsum("ijk,jk->i", a, a))
    rec.err("ein_out", lambda: lib.einsum("ij,jk->iz", a, a))
    rec.err("ein_rep_out", lambda: lib.einsum("ij,jk->ii", a, a))
    rec.err("ein_arrow", lambda: lib.einsum("ij,jk-ik", a, a))
    rec.err("ein_char", lambda: lib.einsum("i1,jk->ik", a, a))
    rec.err("ein_ell2", lambda: lib.einsum("...i...,i->", a, a[0]))
    rec.err("ein_dtype", lambda: lib.einsum("ij,jk->ik", a, a.to(lib.float16)))
    rec.err("ein_int", lambda: lib.einsum("ij,jk->ik", a, lib.ones(2, 2, dtype=lib.int64)))
    rec.err("td_size", lambda: lib.tensordot(a, st, dims=([1], [1])))
    rec.err("td_len", lambda: lib.tensordot(a, st, dims=([1, 0], [0])))
    rec.err("td_neg", lambda: lib.tensordot(a, st, dims=-1))
    rec.err("td_big", lambda: lib.tensordot(a, st, dims=3))
    rec.err("td_dtype", lambda: lib.tensordot(a, st.to(lib.float16), dims=1))
    rec.err("td_dim", lambda: lib.tensordot(a, st, dims=([2], [0])))
    rec.err("td_rep", lambda: lib.tensordot(st, st, dims=([0, 0], [0, 2])))
    rec.err("kron_dtype", lambda: lib.kron(a, lib.ones(2, 2, dtype=lib.int64)))
    rec.err("mpow_sq", lambda: lib.matrix_power(st, 2))
    rec.err("mpow_int", lambda: lib.matrix_power(lib.ones(2, 2, dtype=lib.int64), -1))
    rec.err("mpow_1d", lambda: lib.linalg.matrix_power(a[0], 2))
    rec.err("trace_3d", lambda: lib.trace(st))
    rec.err("diag_dims", lambda: st.diagonal(dim1=1, dim2=1))
    rec.err("movedim", lambda: lib.movedim(st, (0, 1), (2,)))
    rec.err("movedim_rep", lambda: lib.movedim(st, (0, 0), (1, 2)))
    rec.err("permute", lambda: st.permute(0, 1))
    rec.err("cat", lambda: lib.cat([a, st]))
    rec.err("reshape", lambda: st.reshape(2, 2, 2))
    rec.err("mexp", lambda: lib.matrix_exp(st))
    rec.err("outer", lambda: lib.outer(a, a))
    rec("mpow_neg", lib.matrix_power(a + 3 * lib.eye(2, dtype=dt), -2))


def p_unitarity(lib, dt, rec):
    """Gates built from parameters stay unitary: U^dagger U = I in real blocks."""
    angles = _randn(lib, dt, 38, 3)
    u = _rz(lib, angles[0])
    u = _cmatmul(*_ry(lib, angles[1]), *u)
    u = _cmatmul(*_rz(lib, angles[2]), *u)
    rec("u_re", u[0])
    rec("u_im", u[1])
    ud = u[0].mT, -u[1].mT
    prod = _cmatmul(*ud, *u)
    rec("eye", prod[0])
    rec("zero_im", prod[1])
    rec(
        "det_abs", lib.linalg.det(lib.cat([lib.cat([u[0], -u[1]], 1), lib.cat([u[1], u[0]], 1)], 0))
    )
    # a random unitary from QR of a Gaussian (real orthogonal) and its gate action
    q, r = lib.linalg.qr(_randn(lib, dt, 39, 4, 4))
    q = q * lib.sign(lib.diagonal(r)).unsqueeze(0)
    rec("q", q)
    rec("orth", (q.T @ q - lib.eye(4, dtype=dt)).abs().max())
    st = _random_state(lib, dt, 40, 3)
    out = _apply2(lib, (q, lib.zeros_like(q)), st, 2, 0)
    rec("out", out[0])
    rec("norm", _probs(out).sum())
    # allclose / isclose checks users write
    rec("allclose", lib.allclose(prod[0], lib.eye(2, dtype=dt), atol=1e-5))
    rec("isclose", lib.isclose(prod[0], lib.eye(2, dtype=dt), atol=1e-5))


def p_matrix_power(lib, dt, rec):
    # powers of a gate: H^2 = I, S^4 = I (real block form), a rotation to the n-th power
    g = _gates(lib, dt)
    rec("h2", lib.matrix_power(g["H"][0], 2))
    rec("h0", lib.matrix_power(g["H"][0], 0))
    s_emb = lib.cat([lib.cat([g["S"][0], -g["S"][1]], 1), lib.cat([g["S"][1], g["S"][0]], 1)], 0)
    rec("s4", lib.matrix_power(s_emb, 4))
    rec("s3", lib.linalg.matrix_power(s_emb, 3))
    ry = _ry(lib, lib.tensor(0.3, dtype=dt))[0]
    rec("ry10", lib.matrix_power(ry, 10))
    rec("ry10_ref", _ry(lib, lib.tensor(3.0, dtype=dt))[0])
    rec("ry_inv", lib.matrix_power(ry, -3))
    # batched powers and a power with gradient
    batch = lib.stack([ry, g["H"][0], lib.eye(2, dtype=dt)])
    rec("batch5", lib.matrix_power(batch, 5))
    m = (_randn(lib, dt, 41, 3, 3) * 0.5).requires_grad_(True)
    out = lib.matrix_power(m, 4)
    out.sum().backward()
    rec("grad4", m.grad)
    m.grad = None
    lib.matrix_power(m, -2).sum().backward()
    rec("grad_neg", m.grad)
    rec("empty", lib.matrix_power(lib.zeros(0, 0, dtype=dt), 3))
    rec("empty_b", lib.matrix_power(lib.zeros(2, 0, 0, dtype=dt), -1).shape)
    # the trace of a transfer matrix's power (a classical Ising partition function)
    beta = 0.4
    tm = lib.tensor(
        [[math.exp(beta), math.exp(-beta)], [math.exp(-beta), math.exp(beta)]], dtype=dt
    )
    rec("z", lib.trace(lib.matrix_power(tm, 12)))
    rec("z_ref", lib.linalg.eigvalsh(tm).pow(12).sum())


def p_vqe_lbfgs(lib, dt, rec):
    n = 3
    params = (_randn(lib, dt, 42, 1, n, 2) * 0.5).requires_grad_(True)
    opt = lib.optim.LBFGS([params], lr=0.5, max_iter=4, history_size=5)
    calls = []

    def closure():
        opt.zero_grad()
        e = _ising_energy(lib, dt, _ansatz(lib, dt, params, n), n)
        e.backward()
        calls.append(e.detach())
        return e

    for _ in range(2):
        opt.step(closure)
    rec("calls", lib.stack(calls))
    rec("params", params)
    # SGD with momentum and nesterov on the same energy
    q = (_randn(lib, dt, 43, 1, n, 2) * 0.5).requires_grad_(True)
    sgd = lib.optim.SGD([q], lr=0.1, momentum=0.9, nesterov=True)
    hist = []
    for _ in range(6):
        sgd.zero_grad()
        e = _ising_energy(lib, dt, _ansatz(lib, dt, q, n), n)
        e.backward()
        sgd.step()
        hist.append(e.detach())
    rec("sgd", lib.stack(hist))
    rec("q", q)
    # Adam with amsgrad and per-group learning rates (the RY and RZ angles apart)
    ry = (_randn(lib, dt, 44, 1, n) * 0.5).requires_grad_(True)
    rz = (_randn(lib, dt, 45, 1, n) * 0.5).requires_grad_(True)
    adam = lib.optim.Adam([{"params": [ry]}, {"params": [rz], "lr": 0.01}], lr=0.1, amsgrad=True)
    for _ in range(5):
        adam.zero_grad()
        e = _ising_energy(lib, dt, _ansatz(lib, dt, lib.stack([ry, rz], -1), n), n)
        e.backward()
        adam.step()
    rec("ry", ry)
    rec("rz", rz)
    rec("max_sq", adam.state[ry]["max_exp_avg_sq"])


def p_func_transforms(lib, dt, rec):
    n = 2

    def probs(theta):
        st = _apply1(lib, _ry(lib, theta[0]), _zero_state(lib, dt, n), 0)
        st = _apply1(lib, _rx(lib, theta[1]), st, 1)
        st = _apply2(lib, _cnot(lib, dt), st, 0, 1)
        return _probs(st).reshape(-1)

    def energy(theta):
        return (probs(theta) * lib.tensor([1.0, -1.0, -1.0, 1.0], dtype=dt)).sum()

    thetas = _randn(lib, dt, 46, 5, 2)
    rec("vmap", lib.func.vmap(probs)(thetas))
    rec("grad", lib.func.grad(energy)(thetas[0]))
    rec("vmap_grad", lib.func.vmap(lib.func.grad(energy))(thetas))
    rec("jacrev", lib.func.jacrev(probs)(thetas[0]))
    rec("jacfwd", lib.func.jacfwd(probs)(thetas[0]))
    rec("hessian", lib.func.hessian(energy)(thetas[0]))
    val, g = lib.func.grad_and_value(energy)(thetas[1])
    rec("gv", lib.stack([g, *val]))
    # parameter shift vectorised by vmap over the shifts
    shifts = lib.eye(2, dtype=dt) * (math.pi / 2)
    ps = (lib.func.vmap(energy)(thetas[0] + shifts) - lib.func.vmap(energy)(thetas[0] - shifts)) / 2
    rec("ps", ps)
    rec("ps_vs_grad", (ps - lib.func.grad(energy)(thetas[0])).abs().max())
    # vmap over the state with in_dims and a gate shared by all samples
    states = _randn(lib, dt, 47, 4, 2, 2)
    g_ = _ry(lib, lib.tensor(0.3, dtype=dt))[0]
    rec("vmap_td", lib.func.vmap(lambda s: lib.tensordot(g_, s, dims=([1], [1])))(states))
    rec("vmap_in1", lib.func.vmap(lambda s: lib.kron(s, g_), in_dims=1)(states))
    rec("vmap_ein", lib.func.vmap(lambda s: lib.einsum("ij,jk->ik", s, g_), out_dims=1)(states))

    # functional_call of a module holding the angles
    class Angles(lib.nn.Module):
        def __init__(self):
            super().__init__()
            self.theta = lib.nn.Parameter(thetas[2].clone())

        def forward(self):
            return energy(self.theta)

    m = Angles()
    rec("fcall", lib.func.functional_call(m, {"theta": thetas[3]}, ()))
    rec(
        "fcall_grad",
        lib.func.grad(lambda p: lib.func.functional_call(m, p, ()))({"theta": thetas[3]})["theta"],
    )


def p_custom_shift(lib, dt, rec):
    """A user autograd.Function whose backward is the parameter-shift rule."""

    def expval(theta):
        st = _apply1(lib, _ry(lib, theta[0]), _zero_state(lib, dt, 2), 0)
        st = _apply1(lib, _ry(lib, theta[1]), st, 1)
        st = _apply2(lib, _cnot(lib, dt), st, 0, 1)
        zz = _expect_zz(lib, st, 0, 1)
        return zz + 0.5 * _expect_x(lib, dt, st, 1) + 0.3 * _expect_z(lib, st, 0)

    class Circuit(lib.autograd.Function):
        @staticmethod
        def forward(ctx, theta):
            ctx.save_for_backward(theta)
            return expval(theta)

        @staticmethod
        def backward(ctx, grad):
            (theta,) = ctx.saved_tensors
            g = []
            for k in range(theta.numel()):
                e = lib.zeros_like(theta)
                e[k] = math.pi / 2
                g.append((expval(theta + e) - expval(theta - e)) / 2)
            return grad * lib.stack(g)

    theta = _randn(lib, dt, 48, 2).requires_grad_(True)
    out = Circuit.apply(theta)
    out.backward()
    rec("out", out)
    rec("g_shift", theta.grad)
    t2 = theta.detach().clone().requires_grad_(True)
    expval(t2).backward()
    rec("g_auto", t2.grad)
    rec("grad_fn", type(out.grad_fn).__name__)
    # in a training loop
    theta = _randn(lib, dt, 49, 2).requires_grad_(True)
    opt = lib.optim.Adam([theta], lr=0.1)
    hist = []
    for _ in range(6):
        opt.zero_grad()
        loss = Circuit.apply(theta)
        loss.backward()
        opt.step()
        hist.append(loss.detach())
    rec("hist", lib.stack(hist))
    rec("theta", theta)
    if dt == lib.float64:  # the shift rule is exact: gradcheck passes with the custom backward
        t64 = theta.detach().clone().requires_grad_(True)
        rec("gradcheck", lib.autograd.gradcheck(Circuit.apply, (t64,)))


def p_qaoa(lib, dt, rec):
    """MaxCut QAOA on a 4-node ring: a diagonal cost from bit arithmetic, mixers as RX."""
    n = 4
    edges = [(0, 1), (1, 2), (2, 3), (3, 0), (0, 2)]
    idx = lib.arange(2**n)
    bits = (idx.unsqueeze(-1) >> lib.arange(n - 1, -1, -1)) & 1
    cost = lib.zeros(2**n, dtype=dt)
    for i, j in edges:
        cost = cost + (bits[:, i] != bits[:, j]).to(dt)
    rec("cost", cost)
    cost = cost.reshape([2] * n)

    def run(gamma, beta):
        re = lib.full([2] * n, 0.25, dtype=dt)
        im = lib.zeros_like(re)
        for layer in range(gamma.shape[0]):
            c, s = lib.cos(gamma[layer] * cost), lib.sin(gamma[layer] * cost)
            re, im = re * c + im * s, im * c - re * s
            for q in range(n):
                re, im = _apply1(lib, _rx(lib, 2 * beta[layer]), (re, im), q)
        return re, im

    gamma = lib.tensor([0.4, 0.7], dtype=dt, requires_grad=True)
    beta = lib.tensor([0.6, 0.3], dtype=dt, requires_grad=True)
    opt = lib.optim.Adam([gamma, beta], lr=0.05)
    hist = []
    for _ in range(10):
        opt.zero_grad()
        loss = -(_probs(run(gamma, beta)) * cost).sum()
        loss.backward()
        opt.step()
        hist.append(loss.detach())
    rec("hist", lib.stack(hist))
    rec("gamma", gamma)
    rec("beta", beta)
    p = _probs(run(gamma, beta)).detach().reshape(-1)
    rec("p", p)
    shots = lib.multinomial(p, 64, replacement=True, generator=_gen(lib, 50))
    rec("shots", shots)
    rec("shot_cost", cost.reshape(-1)[shots].mean())
    rec("best", cost.reshape(-1).max())


def p_mps(lib, dt, rec):
    """A state split into a matrix product state by SVDs, truncated and contracted back."""
    n = 5
    re = _randn(lib, dt, 51, *[2] * n)
    re = re / re.norm()
    cores = []
    rest = re.reshape(1, -1)
    for k in range(n - 1):
        rest = rest.reshape(rest.shape[0] * 2, -1)
        u, s, vh = lib.linalg.svd(rest, full_matrices=False)
        chi = min(3, s.shape[0])
        cores.append(u[:, :chi].reshape(-1, 2, chi))
        rest = lib.diag(s[:chi]) @ vh[:chi]
        rec(f"s{k}", s)
    cores.append(rest.reshape(-1, 2, 1))
    rec("shapes", str([tuple(c.shape) for c in cores]))
    out = cores[0]
    for c in cores[1:]:
        out = lib.tensordot(out, c, dims=([-1], [0]))
    out = out.reshape([2] * n)
    rec("approx", out)
    rec("fidelity", (out * re).sum() ** 2)
    rec("trunc_err", (out - re).norm())
    # the norm by contracting the transfer matrices with einsum
    env = lib.ones(1, 1, dtype=dt)
    for c in cores:
        env = lib.einsum("ab,aic,bid->cd", env, c, c)
    rec("norm2", env)
    rec("svdvals", lib.linalg.svdvals(re.reshape(4, 8)))


def p_generator_state(lib, dt, rec):
    p = _probs(_random_state(lib, dt, 52, 3)).reshape(-1)
    g = _gen(lib, 7)
    first = lib.multinomial(p, 10, replacement=True, generator=g)
    state = g.get_state()
    second = lib.multinomial(p, 10, replacement=True, generator=g)
    g.set_state(state)
    again = lib.multinomial(p, 10, replacement=True, generator=g)
    rec("first", first)
    rec("second", second)
    rec("replay", lib.equal(second, again))
    rec("seed", g.initial_seed())
    lib.manual_seed(11)
    a = lib.multinomial(p, 5, replacement=True)
    with lib.random.fork_rng():
        b = lib.multinomial(p, 5, replacement=True)
    c = lib.multinomial(p, 5, replacement=True)
    rec("a", a)
    rec("b", b)
    rec("fork_same", lib.equal(b, c))
    # shots from distributions, with the batch of circuits as the batch shape
    batch = lib.stack([p, p.flip(0)])
    lib.manual_seed(12)
    cat = lib.distributions.Categorical(probs=batch)
    s = cat.sample((6,))
    rec("cat", s)
    rec("logp", cat.log_prob(s))
    rec("entropy", cat.entropy())
    lib.manual_seed(13)
    mult = lib.distributions.Multinomial(100, probs=batch)
    counts = mult.sample()
    rec("counts", counts)
    rec("mult_logp", mult.log_prob(counts))
    rec("est_p", counts / 100)
    rec.err("bad_probs", lambda: lib.distributions.Categorical(probs=p - 0.5))


def p_basis_bits(lib, dt, rec):
    """Basis indices and bit strings: unravel_index, shifts, xor flips, searchsorted sampling."""
    n = 4
    p = _probs(_ansatz(lib, dt, _randn(lib, dt, 53, 1, n, 2), n)).reshape(-1)
    idx = lib.arange(2**n)
    bits = lib.stack(lib.unravel_index(idx, (2,) * n), -1)
    rec("bits", bits)
    rec("same_as_shift", lib.equal(bits, (idx.unsqueeze(-1) >> lib.arange(n - 1, -1, -1)) & 1))
    rec("one", lib.stack(lib.unravel_index(lib.tensor(11), [2] * n)))
    rec("big", lib.stack(lib.unravel_index(lib.tensor([[3], [12]]), (4, 4)), -1))
    # X on qubit 1 is a permutation of the amplitudes by an xor of the index
    flip = 1 << (n - 1 - 1)
    rec("x1", p[idx ^ flip])
    rec("x1_ref", p.reshape(2, 2, 2, 2).flip(1).reshape(-1))
    # parity (Z...Z) of every basis state and its expectation
    parity = 1 - 2 * (bits.sum(-1) % 2)
    rec("parity", parity)
    rec("zzzz", (p * parity.to(dt)).sum())
    # inverse-CDF sampling with searchsorted (the probabilities as a cumulative sum)
    cdf = lib.cumsum(p, 0)
    u = lib.rand(20, generator=_gen(lib, 54), dtype=dt) * cdf[-1]
    shots = lib.searchsorted(cdf, u).clamp(max=2**n - 1)
    rec("shots", shots)
    rec("shot_bits", bits[shots])
    rec("hamming", bits[shots].sum(-1).bincount(minlength=n + 1))
    rec("unique", lib.unique(shots, return_counts=True)[1].sum())


def p_ground_state(lib, dt, rec):
    """A ground energy by LBFGS with a strong-Wolfe line search (float64 only: float32 line
    searches stop where rounding decides) and its derivative in the couplings by eigh."""
    n = 3
    if dt == lib.float64:
        params = (_randn(lib, dt, 55, 1, n, 2) * 0.5).requires_grad_(True)
        opt = lib.optim.LBFGS([params], lr=1, max_iter=10, line_search_fn="strong_wolfe")

        def closure():
            opt.zero_grad()
            e = _ising_energy(lib, dt, _ansatz(lib, dt, params, n), n)
            e.backward()
            return e

        for k in range(2):
            rec(f"e{k}", opt.step(closure))
        rec("params", params)
        rec("n_iter", opt.state[params]["n_iter"])
        rec("func_evals", opt.state[params]["func_evals"])
    # d E0 / d J by the eigenvalue's gradient (Hellmann-Feynman)
    couplings = lib.tensor([1.0, 0.5], dtype=dt, requires_grad=True)
    z = lib.tensor([[1.0, 0.0], [0.0, -1.0]], dtype=dt)
    x = lib.tensor([[0.0, 1.0], [1.0, 0.0]], dtype=dt)
    i2 = lib.eye(2, dtype=dt)
    h = -couplings[0] * lib.kron(z, z) - couplings[1] * (lib.kron(x, i2) + lib.kron(i2, x))
    w, v = lib.linalg.eigh(h)
    w[0].backward()
    rec("w", w)
    rec("g_couplings", couplings.grad)
    rec("gs_abs", v[:, 0].abs())
    zz = lib.kron(z, z)
    rec("hf", -(v[:, 0] @ zz @ v[:, 0]))
