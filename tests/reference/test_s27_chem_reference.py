"""Session 27 (chem): computational chemistry and biology programs written in plain torch, each
written once against a `torch`-like module and run under torch and minitorch after the same
manual_seed: SchNet-style continuous-filter convolutions (Gaussian RBF of distances, cosine
cutoffs, scatter_add / index_add_ aggregation, per-molecule sums over a batch index), energies and
forces by autograd.grad with create_graph and force-matching losses (second derivatives),
periodic minimum images, radius graphs, DimeNet-lite angles, rotation-equivariance checks,
hand-written spherical harmonics and einsum tensor products, EGNN and PaiNN-lite updates,
backbone frames with quaternion updates and FAPE/lDDT, normal modes, Ewald sums, one-hot
DNA/protein encodings and motif scanners, reverse complements, contact maps, MSA axial
attention, Kabsch RMSD, torsions, fingerprints and Tanimoto similarity, scaffold splits,
GaussianNLLLoss ensembles (also with torch.func), and the errors of typical mistakes. Every
recorded value, dtype and repr must agree: float64 to 1e-9 of its scale, float32 to 1e-4;
integers, strings and errors exactly."""

from __future__ import annotations

import math

import pytest

import minitorch
from tests.reference._programs import Rec, assert_records_match, run_program

torch = pytest.importorskip("torch")


def molecules(lib, dt, sizes):
    """Random coordinates of a batch of molecules: pos (N, 3), atomic numbers z (N,), batch (N,)."""
    n = sum(sizes)
    pos = lib.randn(n, 3, dtype=dt) * 1.2
    z = lib.randint(1, 10, (n,))
    batch = lib.repeat_interleave(lib.arange(len(sizes)), lib.tensor(sizes))
    return pos, z, batch


def radius_graph(lib, pos, batch, cutoff):
    """Directed edges (2, E) between atoms of one molecule closer than cutoff."""
    d = lib.cdist(pos, pos)
    same = batch.unsqueeze(0) == batch.unsqueeze(1)
    mask = (d < cutoff) & same & ~lib.eye(pos.shape[0], dtype=lib.bool, device=pos.device)
    return mask.nonzero().t()


def cosine_cutoff(lib, r, rc):
    return lib.where(r < rc, 0.5 * (lib.cos(math.pi * r / rc) + 1.0), lib.zeros_like(r))


def p_schnet(lib, dt, rec):
    """A SchNet-lite: RBF of edge lengths, filter network, cosine cutoff, scatter_add messages,
    energy per molecule with index_add_, forces with create_graph, force-matching loss and Adam."""
    lib.manual_seed(0)
    pos, z, batch = molecules(lib, dt, [5, 4, 6])
    n, nmol, f, nrbf, rc = pos.shape[0], 3, 8, 6, 3.0
    emb = lib.nn.Embedding(10, f, dtype=dt)
    filt = lib.nn.Sequential(
        lib.nn.Linear(nrbf, f, dtype=dt), lib.nn.Softplus(), lib.nn.Linear(f, f, dtype=dt)
    )
    out = lib.nn.Sequential(
        lib.nn.Linear(f, f, dtype=dt), lib.nn.SiLU(), lib.nn.Linear(f, 1, dtype=dt)
    )
    mu = lib.linspace(0, rc, nrbf, dtype=dt)
    params = list(emb.parameters()) + list(filt.parameters()) + list(out.parameters())
    opt = lib.optim.Adam(params, lr=1e-2)
    ei = radius_graph(lib, pos, batch, rc)
    rec("edges", ei)
    e_ref = lib.randn(nmol, dtype=dt)
    f_ref = lib.randn(n, 3, dtype=dt) * 0.1

    def energy(p):
        src, dst = ei
        vec = p[dst] - p[src]
        r = vec.norm(dim=-1)
        rbf = lib.exp(-4.0 * (r.unsqueeze(-1) - mu) ** 2)
        w = filt(rbf) * cosine_cutoff(lib, r, rc).unsqueeze(-1)
        h = emb(z)
        for _ in range(2):
            msg = h[src] * w
            agg = lib.zeros_like(h).scatter_add_(0, dst.unsqueeze(-1).expand_as(msg), msg)
            h = h + agg
        atom_e = out(h).squeeze(-1)
        return lib.zeros(nmol, dtype=dt).index_add_(0, batch, atom_e)

    for step in range(3):
        p = pos.clone().requires_grad_(True)
        e = energy(p)
        (g,) = lib.autograd.grad(e.sum(), p, create_graph=True)
        forces = -g
        loss = lib.nn.functional.mse_loss(e, e_ref) + 10 * lib.nn.functional.mse_loss(forces, f_ref)
        opt.zero_grad()
        loss.backward()
        rec(f"e{step}", e)
        rec(f"f{step}", forces)
        rec(f"loss{step}", loss)
        rec(f"gw{step}", filt[0].weight.grad)
        rec(f"gemb{step}", emb.weight.grad)
        opt.step()
    rec("fsum", forces.sum(0))


def p_segment_sums(lib, dt, rec):
    """Per-molecule readouts: index_add, scatter_reduce, segment sums with cumsum and
    bincount, segment_reduce-free means, to_dense-like padding."""
    lib.manual_seed(1)
    pos, z, batch = molecules(lib, dt, [3, 1, 4, 2])
    x = lib.randn(pos.shape[0], 4, dtype=dt, requires_grad=True)
    nmol = int(batch.max()) + 1
    s = lib.zeros(nmol, 4, dtype=dt).index_add(0, batch, x)
    cnt = lib.bincount(batch, minlength=nmol)
    rec("sum", s)
    rec("cnt", cnt)
    rec("mean", s / cnt.unsqueeze(-1))
    mx = lib.zeros(nmol, 4, dtype=dt).scatter_reduce(
        0, batch.unsqueeze(-1).expand_as(x), x, "amax", include_self=False
    )
    rec("max", mx)
    cs = lib.cat([lib.zeros(1, 4, dtype=dt), x.cumsum(0)])
    ptr = lib.cat([lib.zeros(1, dtype=lib.long), cnt.cumsum(0)])
    rec("ptr", ptr)
    rec("seg", cs[ptr[1:]] - cs[ptr[:-1]])
    com = lib.zeros(nmol, 3, dtype=dt).index_add_(0, batch, pos * z.unsqueeze(-1)) / lib.zeros(
        nmol, dtype=dt
    ).index_add_(0, batch, z.to(dt)).unsqueeze(-1)
    rec("com", com)
    centered = pos - com[batch]
    rec("centered", centered)
    loss = (mx**2).sum() + (s * lib.arange(4, dtype=dt)).sum()
    loss.backward()
    rec("grad", x.grad)
    sizes = cnt.tolist()
    parts = lib.split(x.detach(), sizes)
    padded = lib.nn.utils.rnn.pad_sequence(list(parts), batch_first=True, padding_value=0.0)
    rec("padded", padded)
    rank = lib.arange(x.shape[0]) - ptr[batch]
    dense = lib.zeros(nmol, int(cnt.max()), 4, dtype=dt)
    dense[batch, rank] = x.detach()
    rec("dense", dense)
    rec("eq", lib.equal(dense, padded))
    e = lib.randn(x.shape[0], dtype=dt)
    rec(
        "seg_sum_torch",
        lib.segment_reduce(e, "sum", lengths=cnt) if hasattr(lib, "segment_reduce") else "absent",
    )


def p_pbc(lib, dt, rec):
    """Periodic boundaries: wrapping with remainder/fmod, minimum image with round and with
    remainder, triclinic cell via cell inverse, radius graph with triu, energies and stress-like
    cell gradients."""
    lib.manual_seed(2)
    n = 10
    cell = lib.tensor([[4.0, 0.0, 0.0], [0.5, 4.2, 0.0], [0.3, -0.2, 3.9]], dtype=dt)
    frac = lib.rand(n, 3, dtype=dt) * 1.4 - 0.2
    rec("wrapped", lib.remainder(frac, 1.0))
    rec("fmod", lib.fmod(frac, 1.0))
    rec("floor_wrap", frac - lib.floor(frac))
    cell = cell.clone().requires_grad_(True)
    f = lib.remainder(frac, 1.0)
    pos = f @ cell
    d = f.unsqueeze(1) - f.unsqueeze(0)
    d_round = d - lib.round(d)
    d_rem = lib.remainder(d + 0.5, 1.0) - 0.5
    rec("mi_round", d_round)
    rec("mi_rem", d_rem)
    vec = d_round @ cell
    iu = lib.triu_indices(n, n, 1)
    r = vec[iu[0], iu[1]].norm(dim=-1)
    rec("r", r)
    near = r < 2.5
    rec("pairs", iu[:, near])
    rec("n_near", near.sum())
    e = (lib.exp(-r) * near).sum()
    e.backward()
    rec("e", e)
    rec("dE_dcell", cell.grad)
    rec("pos", pos)
    inv = lib.linalg.inv(cell.detach())
    rec("frac_back", pos.detach() @ inv)
    rec("vol", lib.linalg.det(cell.detach()))
    rec("round_half", lib.round(lib.tensor([-1.5, -0.5, 0.5, 1.5, 2.5], dtype=dt)))
    rec("rem_neg", lib.remainder(lib.tensor([-0.0, -1e-20, -3.0, 3.0], dtype=dt), 1.0))


def p_dimenet_angles(lib, dt, rec):
    """Triplets from an edge list, angles by acos of clamped cosines and by atan2(|cross|, dot),
    Bessel-like radial basis, angle gradients and second derivatives."""
    lib.manual_seed(3)
    pos = (lib.randn(6, 3, dtype=dt) * 1.0).requires_grad_(True)
    n = pos.shape[0]
    ei = radius_graph(lib, pos.detach(), lib.zeros(n, dtype=lib.long), 2.5)
    src, dst = ei
    rec("ei", ei)
    # triplets k->j->i: edges (k, j) and (j, i) with k != i
    e_in = (dst.unsqueeze(1) == src.unsqueeze(0)).nonzero()
    kj, ji = e_in[:, 0], e_in[:, 1]
    keep = src[kj] != dst[ji]
    kj, ji = kj[keep], ji[keep]
    rec("n_trip", kj.shape[0])
    v1 = pos[src[kj]] - pos[dst[kj]]
    v2 = pos[dst[ji]] - pos[src[ji]]
    cos = (v1 * v2).sum(-1) / (v1.norm(dim=-1) * v2.norm(dim=-1))
    ang = lib.acos(cos.clamp(-1 + 1e-7, 1 - 1e-7))
    ang2 = lib.atan2(lib.linalg.cross(v1, v2).norm(dim=-1), (v1 * v2).sum(-1))
    rec("ang", ang)
    rec("ang2", ang2)
    r = (pos[dst] - pos[src]).norm(dim=-1)
    k = lib.arange(1, 5, dtype=dt)
    rbf = math.sqrt(2 / 2.5) * lib.sin(k * math.pi * r.unsqueeze(-1) / 2.5) / r.unsqueeze(-1)
    rec("rbf", rbf)
    sbf = lib.cos(k * ang.unsqueeze(-1)) * rbf[kj]
    e = sbf.sum() + (ang2**2).sum()
    (g,) = lib.autograd.grad(e, pos, create_graph=True)
    rec("g", g)
    (gg,) = lib.autograd.grad((g**2).sum(), pos)
    rec("gg", gg)
    # acos exactly at the clamp boundaries: gradient of clamp is zero there
    c = lib.tensor([1.0, -1.0, 0.3], dtype=dt, requires_grad=True)
    a = lib.acos(c.clamp(-1 + 1e-7, 1 - 1e-7))
    a.sum().backward()
    rec("acos_edge", a)
    rec("acos_edge_g", c.grad)
    c2 = lib.tensor([1.0, -1.0], dtype=dt, requires_grad=True)
    lib.acos(c2).sum().backward()
    rec("acos_raw_g", c2.grad)


def random_rotation(lib, dt):
    q, r = lib.linalg.qr(lib.randn(3, 3, dtype=dt))
    q = q * lib.sign(lib.diagonal(r)).unsqueeze(0)
    if lib.det(q) < 0:
        q = q.clone()
        q[:, 0] = -q[:, 0]
    return q


def p_equivariance(lib, dt, rec):
    """Random rotations by QR with sign and det fixes; invariance of a distance-based energy and
    equivariance of its forces; an EGNN layer's coordinate update."""
    lib.manual_seed(4)
    R = random_rotation(lib, dt)
    rec("R", R)
    rec("orth", R.T @ R)
    rec("det", lib.linalg.det(R))
    pos = lib.randn(7, 3, dtype=dt)
    h0 = lib.randn(7, 4, dtype=dt)
    phi_e = lib.nn.Sequential(
        lib.nn.Linear(9, 8, dtype=dt), lib.nn.SiLU(), lib.nn.Linear(8, 8, dtype=dt)
    )
    phi_x = lib.nn.Linear(8, 1, dtype=dt)
    phi_h = lib.nn.Linear(12, 4, dtype=dt)
    iu = lib.ones(7, 7, dtype=lib.bool).triu(1) | lib.ones(7, 7, dtype=lib.bool).tril(-1)
    src, dst = iu.nonzero(as_tuple=True)

    def egnn(x, h):
        rel = x[dst] - x[src]
        d2 = (rel**2).sum(-1, keepdim=True)
        m = phi_e(lib.cat([h[dst], h[src], d2], -1))
        upd = lib.zeros_like(x).index_add_(0, dst, rel * phi_x(m)) / 6.0
        agg = lib.zeros(7, 8, dtype=dt).index_add_(0, dst, m)
        return x + upd, h + phi_h(lib.cat([h, agg], -1))

    def energy(x):
        d = lib.cdist(x, x) + lib.eye(7, dtype=dt)
        return (1.0 / d).triu(1).sum()

    x1, h1 = egnn(pos, h0)
    x2, h2 = egnn(pos @ R.T, h0)
    rec("x1", x1)
    rec("eq_err", (x1 @ R.T - x2).abs().max())
    rec("inv_err", (h1 - h2).abs().max())
    p = pos.clone().requires_grad_(True)
    pr = (pos @ R.T).requires_grad_(True)
    e1, e2 = energy(p), energy(pr)
    (f1,) = lib.autograd.grad(-e1, p)
    (f2,) = lib.autograd.grad(-e2, pr)
    rec("e1", e1)
    rec("e_err", (e1 - e2).abs())
    rec("f_err", (f1 @ R.T - f2).abs().max())
    rec("f1", f1)
    # rotation by a matrix_exp of a skew matrix
    w = lib.randn(3, dtype=dt)
    K = lib.zeros(3, 3, dtype=dt)
    K[0, 1], K[0, 2], K[1, 2] = -w[2], w[1], -w[0]
    K = K - K.T
    R2 = lib.matrix_exp(K)
    rec("R2", R2)
    rec("R2det", lib.det(R2))


def sph_harm(lib, v):
    """Real spherical harmonics l<=2 of unit vectors (N, 3) -> (N, 9), e3nn-style order."""
    x, y, z = v.unbind(-1)
    s3, s15, s5 = math.sqrt(3), math.sqrt(15), math.sqrt(5)
    return lib.stack(
        [
            lib.ones_like(x),
            s3 * x, s3 * y, s3 * z,
            s15 * x * z, s15 * x * y, s5 * (y ** 2 - 0.5 * (x ** 2 + z ** 2)),
            s15 * y * z, s15 / 2 * (z ** 2 - x ** 2),
        ],
        -1,
    )  # fmt: skip


def p_sph_tensor_product(lib, dt, rec):
    """Spherical harmonics by hand, an einsum tensor product with a constant coupling tensor,
    gated nonlinearity, and gradients through normalised edge vectors."""
    lib.manual_seed(5)
    pos = lib.randn(6, 3, dtype=dt, requires_grad=True)
    i, j = lib.triu_indices(6, 6, 1)
    vec = pos[j] - pos[i]
    u = vec / vec.norm(dim=-1, keepdim=True)
    u2 = lib.nn.functional.normalize(vec, dim=-1)
    rec("norm_eq", (u - u2).abs().max())
    Y = sph_harm(lib, u)
    rec("Y", Y)
    rec("Ynorm", (Y[:, 1:4] ** 2).sum(-1))
    C = lib.randn(4, 9, 5, dtype=dt)  # "Clebsch-Gordan-like" constant
    feats = lib.randn(i.shape[0], 4, dtype=dt)
    w = lib.randn(i.shape[0], 1, 1, 1, dtype=dt)
    tp = lib.einsum("ei,ej,ijk->ek", feats, Y, C)
    tp2 = lib.einsum("ei,ej,eijk->ek", feats, Y, C.unsqueeze(0) * w)
    rec("tp", tp)
    rec("tp2", tp2)
    outer = lib.einsum("ni,nj->nij", Y[:, 1:4], Y[:, 1:4])
    rec("outer_trace", lib.einsum("nii->n", outer))
    gate = lib.sigmoid(tp[:, :1]) * tp[:, 1:]
    agg = lib.zeros(6, 4, dtype=dt).index_add_(0, j, gate)
    loss = (agg**2).sum()
    (g,) = lib.autograd.grad(loss, pos, create_graph=True)
    rec("g", g)
    (gg,) = lib.autograd.grad(g.abs().sum(), pos)
    rec("gg", gg)
    rec("bmm", lib.einsum("bij,bjk->bik", outer, outer)[:2])


def p_dna_motif(lib, dt, rec):
    """One-hot DNA from strings, conv1d motif scanner with max pooling, reverse complement by
    flip and index permutation, strand-symmetric scores, BCE training."""
    lib.manual_seed(6)
    alphabet = "ACGT"
    seqs = ["ACGTTGCAAC", "GGGTACCATT", "TTTTACGTAA", "CAGTCAGTCA"]
    idx = lib.tensor([[alphabet.index(c) for c in s] for s in seqs])
    oh = lib.nn.functional.one_hot(idx, 4)
    rec("oh.dtype", str(oh.dtype))
    x = oh.to(dt).permute(0, 2, 1)
    rec("x", x)
    rc_idx = lib.tensor([3, 2, 1, 0])
    rc = x.flip(-1)[:, rc_idx]
    rc2 = lib.flip(x, dims=(1, 2))
    rec("rc", rc)
    rec("rc_eq", lib.equal(rc, rc2))
    rec("rc_str", ["".join(alphabet[k] for k in row) for row in rc.argmax(1).tolist()])
    conv = lib.nn.Conv1d(4, 3, 5, padding=2, dtype=dt)
    head = lib.nn.Linear(3, 1, dtype=dt)
    y = lib.tensor([1.0, 0.0, 1.0, 0.0], dtype=dt)
    opt = lib.optim.SGD(list(conv.parameters()) + list(head.parameters()), lr=0.1, momentum=0.9)
    for step in range(4):
        s_f = lib.relu(conv(x))
        s_r = lib.relu(conv(rc))
        s = lib.maximum(s_f, s_r.flip(-1))
        pooled = lib.nn.functional.max_pool1d(s, kernel_size=s.shape[-1]).squeeze(-1)
        pooled2, arg = s.max(-1)
        logit = head(pooled).squeeze(-1)
        loss = lib.nn.functional.binary_cross_entropy_with_logits(logit, y)
        opt.zero_grad()
        loss.backward()
        rec(f"pool{step}", pooled)
        rec(f"arg{step}", arg)
        rec(f"pool_eq{step}", lib.equal(pooled, pooled2))
        rec(f"loss{step}", loss)
        rec(f"gconv{step}", conv.weight.grad)
        opt.step()
    mp = lib.nn.functional.max_pool1d(s_f.detach(), 3, stride=2, return_indices=True)
    rec("mp", mp[0])
    rec("mp_idx", mp[1])
    rec("gc", x[:, 1:3].sum((1, 2)) / x.shape[-1])
    kmers = x.unfold(-1, 3, 1)
    rec("kmers.shape", list(kmers.shape))
    code = (x.argmax(1).unfold(-1, 3, 1) * lib.tensor([16, 4, 1])).sum(-1)
    rec("kmer_codes", code)
    rec(
        "kmer_counts",
        lib.stack([lib.bincount(c, minlength=64) for c in code]).sum(0).nonzero().squeeze(-1),
    )


def p_protein_contacts(lib, dt, rec):
    """Protein one-hot with an unknown token, padded batch with masks, pairwise CA distance maps,
    contact maps with a sequence-separation mask, masked BCE contact loss, distogram binning with
    bucketize and cross entropy with ignore_index."""
    lib.manual_seed(7)
    aa = "ACDEFGHIKLMNPQRSTVWY"
    seqs = ["MKTAYIAKQR", "GSXLLV", "PEPTIDEW"]
    toks = [lib.tensor([aa.index(c) if c in aa else 20 for c in s]) for s in seqs]
    lens = lib.tensor([len(s) for s in seqs])
    tok = lib.nn.utils.rnn.pad_sequence(toks, batch_first=True, padding_value=21)
    rec("tok", tok)
    oh = lib.nn.functional.one_hot(tok, 22)[..., :21].to(dt)
    mask = lib.arange(tok.shape[1]).unsqueeze(0) < lens.unsqueeze(1)
    rec("mask", mask)
    L = tok.shape[1]
    ca = lib.cumsum(lib.randn(3, L, 3, dtype=dt) * 1.5, dim=1)
    d = lib.cdist(ca, ca)
    rec("d", d)
    pm = mask.unsqueeze(1) & mask.unsqueeze(2)
    sep = (lib.arange(L).unsqueeze(0) - lib.arange(L).unsqueeze(1)).abs() >= 3
    valid = pm & sep
    contact = ((d < 4.0) & valid).to(dt)
    rec("n_contacts", contact.sum((1, 2)))
    emb = lib.nn.Linear(21, 8, dtype=dt)
    h = emb(oh)
    logits = lib.einsum("bic,bjc->bij", h, h) / math.sqrt(8)
    bce = lib.nn.functional.binary_cross_entropy_with_logits(logits, contact, reduction="none")
    loss = (bce * valid).sum() / valid.sum()
    loss.backward()
    rec("loss", loss)
    rec("gW", emb.weight.grad)
    bins = lib.linspace(2.0, 12.0, 6, dtype=dt)
    dbin = lib.bucketize(d, bins)
    rec("dbin", dbin[0])
    target = dbin.masked_fill(~valid, -100)
    head = lib.nn.Linear(8, 7, dtype=dt)
    pair = h.unsqueeze(1) + h.unsqueeze(2)
    ce = lib.nn.functional.cross_entropy(head(pair).permute(0, 3, 1, 2), target, ignore_index=-100)
    rec("ce", ce)
    rec("sel", lib.masked_select(d, valid)[:10])
    rec("searchsorted", lib.searchsorted(bins, d[0, 0, :4].contiguous(), right=True))


def p_msa_axial(lib, dt, rec):
    """Axial attention over an MSA tensor (B, S, L, C): row attention by einsum over 4-d inputs,
    column attention, softmax over dims 1 and 2, masking of gap tokens, tied row attention, and
    an outer-product-mean to a pair representation."""
    lib.manual_seed(8)
    B, S, L, C, H = 2, 4, 5, 8, 2
    msa = lib.randn(B, S, L, C, dtype=dt, requires_grad=True)
    gap = lib.rand(B, S, L) < 0.2
    q_lin = lib.nn.Linear(C, C, dtype=dt)
    k_lin = lib.nn.Linear(C, C, dtype=dt)
    v_lin = lib.nn.Linear(C, C, dtype=dt)
    q = q_lin(msa).view(B, S, L, H, C // H)
    k = k_lin(msa).view(B, S, L, H, C // H)
    v = v_lin(msa).view(B, S, L, H, C // H)
    row = lib.einsum("bsihd,bsjhd->bshij", q, k) / math.sqrt(C // H)
    row = row.masked_fill(gap[:, :, None, None, :], float("-inf"))
    a_row = row.softmax(-1)
    o_row = lib.einsum("bshij,bsjhd->bsihd", a_row, v)
    col = lib.einsum("bsihd,btihd->bihst", q, k)
    a_col = lib.softmax(col, dim=-1)
    o_col = lib.einsum("bihst,btihd->bsihd", a_col, v)
    tied = lib.einsum("bsihd,bsjhd->bhij", q, k) / math.sqrt(S * C // H)
    a_tied = tied.softmax(-1)
    rec("a_row", a_row[0, 0, 0])
    rec("a_col", a_col[1, 2])
    rec("a_tied", a_tied)
    sm12 = lib.softmax(msa.sum(-1), dim=1) + lib.softmax(msa.sum(-1), dim=2)
    rec("sm12", sm12)
    lsm = lib.log_softmax(msa[..., 0].reshape(B, -1), dim=-1).view(B, S, L)
    rec("lsm", lsm)
    opm = lib.einsum("bsic,bsjd->bijcd", msa, msa).reshape(B, L, L, C * C) / S
    out = o_row.reshape(B, S, L, C).sum() + o_col.reshape(B, S, L, C).pow(2).sum() + opm.mean()
    out.backward()
    rec("out", out)
    rec("g_msa", msa.grad)
    rec("g_q", q_lin.weight.grad)
    # a query row whose keys are all gaps gives NaN rows, as torch does
    rec("nan_rows", lib.isnan(a_row).any(-1).sum())


def kabsch(lib, P, Q):
    """RMSD after optimal superposition of P onto Q (both (N, 3)); rotation with the det fix."""
    pc, qc = P - P.mean(0), Q - Q.mean(0)
    Hm = pc.T @ qc
    U, S, Vh = lib.linalg.svd(Hm)
    d = lib.sign(lib.linalg.det(Vh.T @ U.T))
    D = lib.diag(lib.stack([lib.ones_like(d), lib.ones_like(d), d]))
    R = Vh.T @ D @ U.T
    diff = pc @ R.T - qc
    return lib.sqrt((diff**2).sum(-1).mean()), R


def p_kabsch_torsion(lib, dt, rec):
    """Kabsch RMSD with svd and the det sign, its gradient, a reflection case, torsion angles with
    atan2 of cross products and their gradients, and a batched svd alignment."""
    lib.manual_seed(9)
    P = lib.randn(8, 3, dtype=dt)
    R0 = random_rotation(lib, dt)
    Q = P @ R0.T + 0.05 * lib.randn(8, 3, dtype=dt) + lib.tensor([1.0, -2.0, 0.5], dtype=dt)
    Pg = P.clone().requires_grad_(True)
    rmsd, R = kabsch(lib, Pg, Q)
    rec("rmsd", rmsd)
    rec("R", R)
    rec("R_err", (R - R0).abs().max())
    rmsd.backward()
    rec("g", Pg.grad)
    Qm = Q * lib.tensor([-1.0, 1.0, 1.0], dtype=dt)  # a mirror image
    rmsd_m, Rm = kabsch(lib, P, Qm)
    rec("rmsd_mirror", rmsd_m)
    rec("det_mirror", lib.linalg.det(Rm))
    # torsions of a backbone
    x = lib.cumsum(lib.randn(7, 3, dtype=dt), 0).requires_grad_(True)
    b1, b2, b3 = x[1:-2] - x[:-3], x[2:-1] - x[1:-2], x[3:] - x[2:-1]
    n1, n2 = lib.linalg.cross(b1, b2), lib.cross(b2, b3, dim=-1)
    m1 = lib.cross(n1, b2 / b2.norm(dim=-1, keepdim=True), dim=-1)
    tors = lib.atan2((m1 * n2).sum(-1), (n1 * n2).sum(-1))
    rec("tors", tors)
    feat = lib.stack([lib.sin(tors), lib.cos(tors)], -1)
    (g,) = lib.autograd.grad((feat[:, 0] * lib.arange(4, dtype=dt)).sum(), x, create_graph=True)
    rec("tors_g", g)
    (gg,) = lib.autograd.grad(g.pow(2).sum(), x)
    rec("tors_gg", gg)
    # batched
    A = lib.randn(3, 5, 3, dtype=dt)
    Bt = lib.randn(3, 5, 3, dtype=dt)
    Hb = (A - A.mean(1, keepdim=True)).transpose(1, 2) @ (Bt - Bt.mean(1, keepdim=True))
    U, S, Vh = lib.linalg.svd(Hb)
    rec("S", S)
    d = lib.sign(lib.linalg.det(Vh.transpose(-1, -2) @ U.transpose(-1, -2)))
    rec("dsign", d)
    rec("svdvals", lib.linalg.svdvals(Hb))


def p_fingerprints(lib, dt, rec):
    """Bit-vector fingerprints: hashing substructure ids into bits with bitwise ops, packing into
    uint8 and int64 words, popcount by bit tricks and by unpacking, Tanimoto by matmul on float
    bits and by popcounts, nearest neighbours with topk."""
    lib.manual_seed(10)
    nmol, nbits = 6, 64
    ids = lib.randint(0, 2**31 - 1, (nmol, 12))
    h = (ids * 2654435761) & 0xFFFFFFFF
    h = h ^ (h >> 13)
    bit = h % nbits
    fp = lib.zeros(nmol, nbits, dtype=lib.bool)
    fp[lib.arange(nmol).unsqueeze(1).expand_as(bit), bit] = True
    rec("fp_count", fp.sum(1))
    f = fp.to(dt)
    inter = f @ f.T
    cnt = f.sum(1)
    tan = inter / (cnt.unsqueeze(0) + cnt.unsqueeze(1) - inter)
    rec("tanimoto", tan)
    sims, nn = tan.fill_diagonal_(-1.0).topk(2, dim=1)
    rec("nn", nn)
    rec("sims", sims)
    # pack 8 bits into uint8
    w8 = lib.tensor([1, 2, 4, 8, 16, 32, 64, 128], dtype=lib.uint8)
    packed = (fp.view(nmol, 8, 8).to(lib.uint8) * w8).sum(-1, dtype=lib.uint8)
    rec("packed", packed)
    unpacked = (packed.unsqueeze(-1) & w8).ne(0).view(nmol, nbits)
    rec("unpack_eq", lib.equal(unpacked, fp))
    # popcount on uint8 by bit tricks
    v = packed.clone()
    v = v - ((v >> 1) & 0x55)
    v = (v & 0x33) + ((v >> 2) & 0x33)
    v = (v + (v >> 4)) & 0x0F
    rec("pop8", v.sum(1))
    # int64 words: 4 x 16-bit chunks
    w16 = 2 ** lib.arange(16)
    words = (fp.view(nmol, 4, 16).long() * w16).sum(-1)
    rec("words", words)
    a, b = words[0], words[1:]
    both = a & b
    either = a | b
    xo = a ^ b

    def pop(x):
        bits = (x.unsqueeze(-1) >> lib.arange(16)) & 1
        return bits.sum((-1, -2))

    rec("tan_words", pop(both).to(dt) / pop(either).to(dt))
    rec("hamming", pop(xo))
    rec("not", (~packed[0]))
    rec("shift", lib.bitwise_left_shift(packed[0], 1))
    rec("rshift_i64", lib.tensor([-17, 17, 2**40]) >> 3)
    rec("bitwise_and_bool", lib.bitwise_and(fp[0], fp[1]).sum())
    rec("count_nonzero", lib.count_nonzero(fp, dim=1))
    rec("sum_u8", packed.sum(1))
    rec("sum_u8.dtype", str(packed.sum(1).dtype))


def p_scaffold_split(lib, dt, rec):
    """Scaffold splits: group ids by unique with inverse and counts, order groups by size with a
    stable sort, random permutations with Generators, greedy filling of train/valid/test."""
    gen = lib.Generator().manual_seed(11)
    scaffold = lib.randint(0, 7, (30,), generator=gen)
    uniq, inv, counts = lib.unique(scaffold, return_inverse=True, return_counts=True)
    rec("uniq", uniq)
    rec("inv", inv)
    rec("counts", counts)
    order = lib.sort(counts, descending=True, stable=True).indices
    rec("order", order)
    perm = lib.randperm(len(uniq), generator=gen)
    rec("perm", perm)
    split = lib.empty(30, dtype=lib.long)
    filled = [0, 0, 0]
    caps = [21, 5, 4]
    for gi in order.tolist():
        members = (inv == gi).nonzero().squeeze(-1)
        k = (
            0
            if filled[0] + len(members) <= caps[0]
            else (1 if filled[1] + len(members) <= caps[1] else 2)
        )
        split[members] = k
        filled[k] += len(members)
    rec("split", split)
    rec("filled", filled)
    g2 = lib.Generator()
    g2.manual_seed(12)
    idx = lib.randperm(30, generator=g2)
    tr, va, te = lib.split(idx, [21, 5, 4])
    rec("random_split", [tr, va, te])
    rec("state_eq", lib.equal(g2.get_state(), g2.get_state()))
    ds = lib.utils.data.TensorDataset(lib.arange(30))
    parts = lib.utils.data.random_split(
        ds, [0.7, 0.2, 0.1], generator=lib.Generator().manual_seed(3)
    )
    rec("rs", [list(p.indices) for p in parts])
    rec("multinomial", lib.multinomial(counts.to(dt), 4, replacement=True, generator=gen))


def p_gnll_ensemble(lib, dt, rec):
    """Heteroscedastic property regression: an MLP predicting mean and log-variance, GaussianNLLLoss
    (full, eps, per-feature var), a 3-member deep ensemble with mixture mean/variance, and
    calibration by z-scores."""
    lib.manual_seed(12)
    x = lib.randn(20, 5, dtype=dt)
    y = (x[:, :1] * 2 - x[:, 1:2] ** 2) + 0.3 * lib.randn(20, 1, dtype=dt)
    members = []
    for m in range(3):
        lib.manual_seed(100 + m)
        net = lib.nn.Sequential(
            lib.nn.Linear(5, 16, dtype=dt), lib.nn.Tanh(), lib.nn.Linear(16, 2, dtype=dt)
        )
        opt = lib.optim.Adam(net.parameters(), lr=0.01)
        crit = lib.nn.GaussianNLLLoss(full=(m == 1), eps=1e-4)
        for _ in range(5):
            out = net(x)
            mu, var = out[:, :1], lib.nn.functional.softplus(out[:, 1:]) + 1e-6
            loss = crit(mu, y, var)
            opt.zero_grad()
            loss.backward()
            opt.step()
        rec(f"loss{m}", loss)
        rec(f"g{m}", net[0].weight.grad)
        members.append((mu.detach(), var.detach()))
    mus = lib.stack([m for m, _ in members])
    vars_ = lib.stack([v for _, v in members])
    mean = mus.mean(0)
    var = (vars_ + mus**2).mean(0) - mean**2
    rec("mean", mean)
    rec("var", var)
    z = (y - mean) / var.sqrt()
    rec("z", z)
    rec("cover", ((z.abs() < 1.96).to(dt)).mean())
    F = lib.nn.functional
    mu = lib.randn(4, 3, dtype=dt, requires_grad=True)
    v = lib.rand(4, 1, dtype=dt, requires_grad=True)
    t = lib.randn(4, 3, dtype=dt)
    for red in ["mean", "sum", "none"]:
        rec(f"gnll_{red}", F.gaussian_nll_loss(mu, t, v, reduction=red))
    nll = F.gaussian_nll_loss(mu, t, v, full=True)
    gm, gv = lib.autograd.grad(nll, (mu, v), create_graph=True)
    rec("gm", gm)
    rec("gv", gv)
    (ggv,) = lib.autograd.grad(gv.sum(), v)
    rec("ggv", ggv)
    rec("gnll_vec_var", F.gaussian_nll_loss(mu[0], t[0], v[:, 0][:1].expand(3).contiguous()))
    rec("gnll_scalar_var_err", _err(lambda: F.gaussian_nll_loss(mu, t, lib.rand(4, 2, dtype=dt))))
    rec("gnll_neg_var", _err(lambda: F.gaussian_nll_loss(mu, t, -v.detach())))


def _err(fn):
    try:
        fn()
    except Exception as e:  # noqa: BLE001
        return f"{type(e).__name__}: {e}"
    return "no error"


def p_vib_modes(lib, dt, rec):
    """Normal modes: the Hessian of a Morse/harmonic bond energy by autograd.functional.hessian,
    by torch.func.hessian and by rows of autograd.grad (is_grads_batched too), mass weighting,
    eigvalsh frequencies and the six near-zero rigid modes; jacrev of forces under vmap."""
    lib.manual_seed(13)
    pos0 = lib.randn(4, 3, dtype=dt) * 0.8
    i, j = lib.triu_indices(4, 4, 1)
    r0 = (pos0[i] - pos0[j]).norm(dim=-1) * 1.05
    masses = lib.tensor([12.0, 1.0, 16.0, 14.0], dtype=dt)

    def energy(flat):
        x = flat.view(4, 3)
        r = (x[i] - x[j]).norm(dim=-1)
        return (2.0 * (1 - lib.exp(-1.3 * (r - r0))) ** 2).sum()

    flat = pos0.reshape(-1)
    H = lib.autograd.functional.hessian(energy, flat)
    rec("H", H)
    H2 = lib.func.hessian(energy)(flat)
    rec("H_eq", (H - H2).abs().max())
    x = flat.clone().requires_grad_(True)
    (g,) = lib.autograd.grad(energy(x), x, create_graph=True)
    eye = lib.eye(12, dtype=dt)
    rows = lib.stack([lib.autograd.grad(g, x, e, retain_graph=True)[0] for e in eye])
    rec("rows_err", (rows - H).abs().max())
    (hb,) = lib.autograd.grad(g, x, eye, is_grads_batched=True)
    rec("batched_err", (hb - H).abs().max())
    mw = masses.repeat_interleave(3).rsqrt()
    Hm = H * mw.unsqueeze(0) * mw.unsqueeze(1)
    w = lib.linalg.eigvalsh(Hm)
    rec("eig", w)
    rec("n_zero", (w.abs() < 1e-3).sum())
    freq = lib.sqrt(w[6:].clamp(min=0.0))  # the six rigid modes are rounding noise
    rec("freq", freq)
    J = lib.autograd.functional.jacobian(lambda f: -lib.func.grad(energy)(f), flat)
    rec("J_err", (J + H).abs().max())
    batch = flat.unsqueeze(0) + 0.01 * lib.randn(3, 12, dtype=dt)
    Fs = lib.func.vmap(lib.func.grad(energy))(batch)
    rec("vmap_grad", Fs)
    Js = lib.func.vmap(lib.func.jacrev(lib.func.grad(energy)))(batch)
    rec("vmap_hess_diag", lib.diagonal(Js, dim1=-2, dim2=-1))
    e_, gr = lib.func.grad_and_value(energy)(flat)
    rec("gav", [gr, e_])


def p_ewald(lib, dt, rec):
    """Ewald-like electrostatics: real-space erfc(alpha r)/r over minimum images, reciprocal-space
    structure factors with complex exponentials, self energy, forces by autograd and charge
    neutrality via mean subtraction."""
    lib.manual_seed(14)
    n, box, alpha = 6, 5.0, 0.7
    pos = (lib.rand(n, 3, dtype=dt) * box).requires_grad_(True)
    q = lib.randn(n, dtype=dt)
    q = q - q.mean()
    iu = lib.triu_indices(n, n, 1)
    d = pos[iu[0]] - pos[iu[1]]
    d = d - box * lib.round(d / box)
    r = d.norm(dim=-1)
    e_real = (q[iu[0]] * q[iu[1]] * lib.special.erfc(alpha * r) / r).sum()
    rng = lib.arange(-2, 3, dtype=dt)
    kv = lib.stack(lib.meshgrid(rng, rng, rng, indexing="ij"), -1).reshape(-1, 3)
    kv = kv[(kv != 0).any(-1)] * (2 * math.pi / box)
    k2 = (kv**2).sum(-1)
    phase = pos @ kv.T
    # complex dtypes are out of minitorch's scope (README): the structure factor in cos/sin parts
    s_re = (q.unsqueeze(-1) * lib.cos(phase)).sum(0)
    s_im = (q.unsqueeze(-1) * lib.sin(phase)).sum(0)
    s2 = s_re**2 + s_im**2
    rec("S_abs", s2.sqrt())
    rec("S_angle", lib.atan2(s_im, s_re)[:8])
    e_rec = (2 * math.pi / box**3) * (lib.exp(-k2 / (4 * alpha**2)) / k2 * s2).sum()
    e_self = -alpha / math.sqrt(math.pi) * (q**2).sum()
    e = e_real + e_rec + e_self
    rec("parts", lib.stack([e_real, e_rec]).detach())
    rec("e", e)
    (f,) = lib.autograd.grad(-e, pos)
    rec("f", f)
    rec("fsum", f.sum(0))
    rec("erf_pair", lib.erf(r.detach()) + lib.erfc(r.detach()))


def p_md_nograd(lib, dt, rec):
    """An MD loop under no_grad with forces by enable_grad inside, set_grad_enabled, inference_mode
    tensors refused by autograd, hooks on positions, thermostat rescaling in place, and the
    Maxwell-Boltzmann velocities with normal_ and a Generator."""
    lib.manual_seed(15)
    n = 5
    pos = lib.randn(n, 3, dtype=dt) * 1.5
    gen = lib.Generator().manual_seed(3)
    vel = lib.empty(n, 3, dtype=dt).normal_(0.0, 0.3, generator=gen)
    rec("vel", vel)
    masses = lib.ones(n, 1, dtype=dt)

    def energy(x):
        r = lib.pdist(x)
        return ((r - 1.5) ** 2).sum()

    hooks = []
    with lib.no_grad():
        for step in range(5):
            with lib.enable_grad():
                p = pos.clone().requires_grad_(True)
                p.register_hook(lambda gr: hooks.append(gr.norm()) or gr)
                e = energy(p)
                (g,) = lib.autograd.grad(e, p)
            rec(f"g.req{step}", str(g.requires_grad))
            vel.add_(-0.01 * g / masses)
            ke = 0.5 * (masses * vel**2).sum()
            T = 2 * ke / (3 * n)
            vel.mul_(lib.sqrt(0.1 / T))
            pos += 0.01 * vel
            rec(f"e{step}", e.detach())
            rec(f"T{step}", T)
    rec("hooks", lib.stack(hooks))
    rec("pos", pos)
    with lib.set_grad_enabled(False):
        p = pos.clone().requires_grad_(True)
        rec("inside", str(energy(p).requires_grad))
    with lib.inference_mode():
        pi = pos.clone()
        rec("inf_e", energy(pi))
    # an inference tensor is used in autograd through a clone
    p2 = pi.clone().requires_grad_(True)
    rec("clone_ok", energy(p2))


def p_rdf(lib, dt, rec):
    """Radial distribution function: histc and histogram of pair distances with shell-volume
    normalisation, a differentiable Gaussian-smeared RDF, and its gradient."""
    lib.manual_seed(16)
    pos = (lib.rand(12, 3, dtype=dt) * 4.0).requires_grad_(True)
    r = lib.pdist(pos)
    h = lib.histc(r.detach(), bins=8, min=0.0, max=4.0)
    rec("histc", h)
    hist, edges = lib.histogram(r.detach(), bins=8, range=(0.0, 4.0))
    rec("histogram", hist)
    rec("edges", edges)
    centers = 0.5 * (edges[1:] + edges[:-1])
    shell = 4.0 / 3.0 * math.pi * (edges[1:] ** 3 - edges[:-1] ** 3)
    g = hist / shell / (12 * 11 / 2 / 64.0)
    rec("g", g)
    smear = lib.exp(-((r.unsqueeze(-1) - centers) ** 2) / (2 * 0.1**2)).sum(0)
    rec("smear", smear)
    target = lib.linspace(0, 2, 8, dtype=dt)
    loss = ((smear / shell - target) ** 2).sum()
    loss.backward()
    rec("grad", pos.grad)
    rec(
        "hist_w", lib.histogram(r.detach(), bins=edges, weight=lib.ones_like(r.detach()) * 0.5).hist
    )
    rec(
        "bincount_w",
        lib.bincount((r.detach() / 0.5).long().clamp(max=7), weights=r.detach(), minlength=8),
    )
    rec("dens", lib.histogram(r.detach(), bins=4, density=True).hist)


def p_seq_bytes(lib, dt, rec):
    """Sequences from bytes: frombuffer and a 256-entry lookup table, lowercase and N handling,
    reverse complement by a complement table, k-mer one-hots, int64 words viewed as bytes and
    unpacked to bits, Hamming distances by cdist p=0 and p=1 on bit vectors."""
    lib.manual_seed(17)
    seqs = ["ACGTNacgtRA", "TTGACCGTAAC", "acgtacgtacg"]
    lut = lib.full((256,), 4, dtype=lib.long)
    lut[lib.tensor(list(b"ACGTacgt"))] = lib.arange(8) % 4
    raw = lib.stack([lib.frombuffer(bytearray(s.encode()), dtype=lib.uint8) for s in seqs])
    rec("raw", raw)
    codes = lut[raw.long()]
    rec("codes", codes)
    rec.err("codes_u8_mask", lambda: lut[raw])  # a uint8 index is a (deprecated) mask
    rec("codes_u8_1d", lut[raw[0].long()])
    rec("tensor_bytes", lib.tensor(list(seqs[0].encode())))
    comp = lib.tensor([3, 2, 1, 0, 4])
    rc = comp[codes.flip(-1)]
    rec("rc", rc)
    rec("rc_str", ["".join("ACGTN"[k] for k in row) for row in rc.tolist()])
    oh = lib.nn.functional.one_hot(codes, 5)[..., :4].to(dt)
    rec("oh_N", oh.sum(-1))
    pwm = lib.log_softmax(lib.arange(24).view(2, 4, 3).to(dt).sin(), dim=1)
    rec("pwm_score", lib.nn.functional.conv1d(oh.transpose(1, 2), pwm, padding=1))
    words = lib.randint(-(2**62), 2**62, (4, 2))
    b = words.view(lib.uint8)
    rec("bytes", b)
    bits = (b.unsqueeze(-1) >> lib.arange(8, dtype=lib.uint8)) & 1
    rec("bits.dtype", str(bits.dtype))
    fb = bits.reshape(4, -1).to(dt)
    rec("popcount", fb.sum(-1))
    rec("ham0", lib.cdist(fb, fb, p=0))
    rec("ham1", lib.cdist(fb, fb, p=1))
    rec("words_i32", words.view(lib.int32))
    rec("words_f64_finite", lib.isfinite(words.view(lib.float64)).sum())
    rec("bool_u8", (fb > 0).view(lib.uint8).sum())
    rec("view_err", _err(lambda: b[:, :3].view(lib.int16)))
    rec(
        "frombuffer_off", lib.frombuffer(bytearray(b"ACGTACGT"), dtype=lib.int16, count=2, offset=2)
    )


def p_func_ensemble(lib, dt, rec):
    """A deep ensemble of energy models with torch.func: stack_module_state, vmap over
    functional_call, per-member forces by func.grad inside vmap, an uncertainty from the
    spread, and the same numbers from a plain loop."""
    import copy

    lib.manual_seed(18)
    models = [
        lib.nn.Sequential(
            lib.nn.Linear(3, 6, dtype=dt), lib.nn.Tanh(), lib.nn.Linear(6, 1, dtype=dt)
        )
        for _ in range(4)
    ]
    params, buffers = lib.func.stack_module_state(models)
    rec("keys", str(sorted(params)))
    rec("req", str([p.requires_grad for p in params.values()]))
    base = copy.deepcopy(models[0])
    x = lib.randn(5, 3, dtype=dt)

    def fmodel(p, b, xx):
        return lib.func.functional_call(base, (p, b), (xx,))

    def forces(p, b, xx):
        return -lib.func.grad(lambda y: fmodel(p, b, y).sum())(xx)

    e = lib.func.vmap(fmodel, in_dims=(0, 0, None))(params, buffers, x)
    f = lib.func.vmap(forces, in_dims=(0, 0, None))(params, buffers, x)
    rec("e", e)
    rec("f", f)
    rec("f_std", f.std(0))
    loop = lib.stack([m(x) for m in models])
    rec("loop_err", (loop - e).abs().max())
    xg = x.clone().requires_grad_(True)
    (fl,) = lib.autograd.grad(-models[2](xg).sum(), xg)
    rec("f_loop_err", (fl - f[2]).abs().max())

    def loss(p, b, xx):
        return fmodel(p, b, xx).pow(2).mean()

    grads = lib.func.vmap(lib.func.grad(loss), in_dims=(0, 0, None))(params, buffers, x)
    for k in sorted(grads):
        rec("g." + k, grads[k])  # values only: vmap outputs have other grad_fns (README)
    total = e.pow(2).mean(dim=(1, 2)).sum()
    total.backward()
    rec("stacked_grad", params["0.weight"].grad)


def p_mistakes(lib, dt, rec):
    """Errors of typical mistakes in chemistry code: one_hot out of range or on floats, cdist
    feature mismatch, index_add_/scatter_add_ with a float index or another dtype, einsum
    subscripts, cross of 2-vectors, a second autograd.grad without create_graph, GaussianNLLLoss
    variance shapes, mixed float32/float64 matrix products, removed linalg functions."""
    F = lib.nn.functional
    x = lib.randn(4, 3, dtype=dt)
    cases = {
        "oh_oob": lambda: F.one_hot(lib.tensor([0, 4]), 4),
        "oh_neg": lambda: F.one_hot(lib.tensor([0, -1]), 4),
        "oh_float": lambda: F.one_hot(lib.tensor([0.0, 1.0]), 4),
        "oh_empty": lambda: F.one_hot(lib.tensor([], dtype=lib.long)),
        "cdist_dim": lambda: lib.cdist(x, lib.randn(4, 2, dtype=dt)),
        "cdist_1d": lambda: lib.cdist(x[0], x),
        "cdist_int": lambda: lib.cdist(x.long(), x.long()),
        "index_add_float": lambda: lib.zeros(4, 3, dtype=dt).index_add_(
            0, lib.tensor([0.0]), x[:1]
        ),
        "index_add_dtype": lambda: lib.zeros(4, 3).index_add_(
            0, lib.tensor([0, 1]), x[:2].double()
        ),
        "index_add_oob": lambda: lib.zeros(4, 3, dtype=dt).index_add_(0, lib.tensor([0, 5]), x[:2]),
        "scatter_dtype": lambda: lib.zeros(4, 3).scatter_add_(
            0, lib.zeros(2, 3, dtype=lib.long), x[:2].double()
        ),
        "scatter_ndim": lambda: lib.zeros(4, 3, dtype=dt).scatter_add_(
            0, lib.zeros(2, dtype=lib.long), x[:2]
        ),
        "einsum_bad": lambda: lib.einsum("ij,jk->ik", x, x),
        "einsum_ops": lambda: lib.einsum("ij,jk->ik", x),
        "einsum_out": lambda: lib.einsum("ij->k", x),
        "cross2": lambda: lib.linalg.cross(lib.randn(4, 2, dtype=dt), lib.randn(4, 2, dtype=dt)),
        "acos_int": lambda: lib.acos(lib.tensor([1, 0])),
        "det_nonsq": lambda: lib.linalg.det(x),
        "svd_1d": lambda: lib.linalg.svd(x[0]),
        "gnll_var": lambda: F.gaussian_nll_loss(x, x, lib.rand(3, 3, dtype=dt)),
        "gnll_neg": lambda: F.gaussian_nll_loss(x, x, -lib.rand(4, 3, dtype=dt)),
        "mm_mixed": lambda: x.float() @ lib.eye(3, dtype=lib.float64),
        "bmm_mixed": lambda: lib.bmm(x.float()[None], lib.eye(3, dtype=lib.float64)[None]),
        "lstsq": lambda: lib.lstsq(lib.eye(3), lib.eye(3)),
        "symeig": lambda: lib.symeig(lib.eye(3)),
        "matrix_rank": lambda: lib.matrix_rank(lib.eye(3)),
        "rep_len": lambda: lib.repeat_interleave(lib.arange(3), lib.tensor([1, 2])),
        "bitwise_float": lambda: x & x,
        "invert_float": lambda: ~x,
        "conv_long": lambda: lib.nn.Conv1d(4, 2, 3, dtype=dt)(
            F.one_hot(lib.tensor([[0, 1, 2, 3]]), 4).permute(0, 2, 1)
        ),
        "bucketize_2d": lambda: lib.bucketize(x, lib.tensor([[0.0, 1.0]])),
        "histc_int": lambda: lib.histc(lib.tensor([1, 2, 3]), bins=3),
        "split_sizes": lambda: lib.utils.data.random_split(range(10), [5, 4]),
        "segment_len": lambda: lib.segment_reduce(x[:, 0], "sum", lengths=lib.tensor([1, 2])),
    }
    for name, fn in cases.items():
        rec.err(name, fn)
    p = lib.randn(3, 3, dtype=dt, requires_grad=True)
    y = (p**3).sum()
    (g,) = lib.autograd.grad(y, p)
    rec.err("second_no_create", lambda: lib.autograd.grad(g.sum(), p))
    y = (p**3).sum()
    lib.autograd.grad(y, p)
    rec.err("no_retain", lambda: lib.autograd.grad(y, p))
    rec.err(
        "unused", lambda: lib.autograd.grad((p * 2).sum(), [p, lib.ones(2, requires_grad=True)])
    )
    rec.err("nonscalar", lambda: lib.autograd.grad(p * 2, p))
    rec.err("no_req", lambda: lib.autograd.grad(x.sum(), x))


def rigid_from_3_points(lib, x1, x2, x3, eps=1e-8):
    """Gram-Schmidt backbone frames: rotations (..., 3, 3) with columns e1, e2, e3; origin x2."""
    v1, v2 = x3 - x2, x1 - x2
    e1 = v1 / (v1.norm(dim=-1, keepdim=True) + eps)
    u2 = v2 - e1 * (e1 * v2).sum(-1, keepdim=True)
    e2 = u2 / (u2.norm(dim=-1, keepdim=True) + eps)
    e3 = lib.cross(e1, e2, dim=-1)
    return lib.stack([e1, e2, e3], dim=-1), x2


def quat_to_rot(lib, q):
    q = q / q.norm(dim=-1, keepdim=True)
    w, x, y, z = q.unbind(-1)
    rows = [
        1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y),
        2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x),
        2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y),
    ]  # fmt: skip
    return lib.stack(rows, -1).unflatten(-1, (3, 3))


def p_frames_fape(lib, dt, rec):
    """Structure-module-lite: backbone frames by Gram-Schmidt, quaternion updates composed with
    einsum, points in local frames, FAPE with a clamp, lDDT-like scores with masks, pLDDT bins
    with cross entropy, and the gradient of the whole through two update steps."""
    lib.manual_seed(19)
    L = 7
    bb = lib.cumsum(lib.randn(L, 3, 3, dtype=dt) * 1.2, dim=0)  # N, CA, C per residue
    R_t, t_t = rigid_from_3_points(lib, bb[:, 0], bb[:, 1], bb[:, 2])
    rec("R_t", R_t)
    rec("orth", lib.einsum("lij,lik->ljk", R_t, R_t))
    rec("det", lib.linalg.det(R_t))
    s = lib.randn(L, 8, dtype=dt)
    lin = lib.nn.Linear(8, 6, dtype=dt)
    R = lib.eye(3, dtype=dt).expand(L, 3, 3)
    t = lib.zeros(L, 3, dtype=dt)
    for step in range(2):
        u = lin(s) * 0.3
        q = lib.cat([lib.ones(L, 1, dtype=dt), u[:, :3]], -1)
        dR = quat_to_rot(lib, q)
        t = t + lib.einsum("lij,lj->li", R, u[:, 3:])
        R = lib.einsum("lij,ljk->lik", R, dR)
        rec(f"t{step}", t)
    x_pred = t
    x_true = t_t

    def local(Rm, tv, x):  # x in every frame: (L frames, L points, 3)
        return lib.einsum("fji,fpj->fpi", Rm, x.unsqueeze(0) - tv.unsqueeze(1))

    d = (local(R, t, x_pred) - local(R_t, t_t, x_true)).pow(2).sum(-1).add(1e-8).sqrt()
    fape = d.clamp(max=10.0).mean() / 10.0
    rec("fape", fape)
    dt_true = lib.cdist(x_true, x_true)
    dt_pred = lib.cdist(x_pred, x_pred)
    mask = (dt_true < 15.0) & ~lib.eye(L, dtype=lib.bool)
    diff = (dt_true - dt_pred).abs()
    scores = lib.stack([(diff < c).to(dt) for c in (0.5, 1.0, 2.0, 4.0)]).mean(0)
    lddt = (scores * mask).sum(-1) / mask.sum(-1).clamp(min=1)
    rec("lddt", lddt)
    bins = lib.clamp((lddt * 50).long(), max=49)
    rec("bins", bins)
    plddt_head = lib.nn.Linear(8, 50, dtype=dt)
    ce = lib.nn.functional.cross_entropy(plddt_head(s), bins)
    loss = fape + 0.01 * ce
    loss.backward()
    rec("loss", loss)
    rec("g_lin", lin.weight.grad)
    rec("g_head_b", plddt_head.bias.grad)
    probs = lib.softmax(plddt_head(s), -1)
    centers = (lib.arange(50, dtype=dt) + 0.5) / 50
    rec("plddt", (probs * centers).sum(-1) * 100)


def p_painn(lib, dt, rec):
    """PaiNN-lite: scalar and vector features, messages with RBF filters times unit vectors,
    equivariant updates with vector norms, an equivariance check under a random rotation, and
    forces plus a force-matching gradient."""
    lib.manual_seed(20)
    n, F_ = 6, 4
    pos = lib.randn(n, 3, dtype=dt) * 1.3
    z = lib.randint(0, 5, (n,))
    emb = lib.nn.Embedding(5, F_, dtype=dt)
    phi = lib.nn.Linear(F_, 3 * F_, dtype=dt)
    W = lib.nn.Linear(8, 3 * F_, dtype=dt)
    U = lib.nn.Linear(F_, F_, bias=False, dtype=dt)
    Vl = lib.nn.Linear(F_, F_, bias=False, dtype=dt)
    upd = lib.nn.Linear(2 * F_, 3 * F_, dtype=dt)
    src, dst = (~lib.eye(n, dtype=lib.bool)).nonzero().unbind(-1)

    def model(p):
        vec = p[dst] - p[src]
        r = vec.norm(dim=-1, keepdim=True)
        unit = vec / r
        k = lib.arange(1, 9, dtype=dt)
        rbf = lib.sin(k * math.pi * r / 5.0) / r * cosine_cutoff(lib, r, 5.0)
        s = emb(z)
        v = lib.zeros(n, 3, F_, dtype=dt)
        x = phi(s)[src] * W(rbf)
        ds, dvv, dvs = x.split(F_, dim=-1)
        dv = dvv.unsqueeze(1) * v[src] + dvs.unsqueeze(1) * unit.unsqueeze(-1)
        s = s + lib.zeros_like(s).index_add(0, dst, ds)
        v = v + lib.zeros_like(v).index_add(0, dst, dv)
        Uv, Vv = U(v), Vl(v)
        vn = lib.sqrt((Vv**2).sum(1) + 1e-8)
        a = upd(lib.cat([s, vn], -1))
        avv, asv, ass = a.split(F_, dim=-1)
        v = v + avv.unsqueeze(1) * Uv
        s = s + asv * (Uv * Vv).sum(1) + ass
        return s.sum(), v

    p = pos.clone().requires_grad_(True)
    e, v = model(p)
    (g,) = lib.autograd.grad(e, p, create_graph=True)
    rec("e", e)
    rec("forces", -g)
    lib.manual_seed(21)
    R = random_rotation(lib, dt)
    e2, v2 = model(pos @ R.T)
    rec("e_inv", (e - e2).abs())
    rec("v_eq", (lib.einsum("ij,njf->nif", R, v) - v2).abs().max())
    f_ref = lib.randn(n, 3, dtype=dt)
    loss = (-g - f_ref).pow(2).mean()
    loss.backward()
    rec("g_W", W.weight.grad)
    rec("g_emb", emb.weight.grad)


PROGRAMS = [
    "schnet", "segment_sums", "pbc", "dimenet_angles", "equivariance", "sph_tensor_product",
    "dna_motif", "protein_contacts", "msa_axial", "kabsch_torsion", "fingerprints",
    "scaffold_split", "gnll_ensemble", "vib_modes", "ewald", "md_nograd", "rdf", "seq_bytes",
    "func_ensemble", "frames_fape", "painn", "mistakes",
]  # fmt: skip


@pytest.mark.parametrize("dt", ["float64", "float32"])
@pytest.mark.parametrize("name", PROGRAMS)
def test_program_matches_torch(name, dt):
    prog = globals()["p_" + name]
    want = run_program(prog, torch, dt, rec=Rec(dtypes=True, reprs=True))
    got = run_program(prog, minitorch, dt, rec=Rec(dtypes=True, reprs=True))
    assert_records_match(want, got, 1e-9 if dt == "float64" else 1e-4, dtypes=True)
