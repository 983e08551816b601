"""Differential fuzzer: the storage model.

Random programs of 12 steps over a few tensors and their views: resize_/resize_as_, set_ (from
tensors, storages, with offsets/sizes/strides), untyped_storage()/storage() reads and writes,
copy_ between overlapping/aliasing tensors, as_strided, storage offsets, data_ptr relations,
share/clone/detach, in-place ops through views. After each step every tensor's shape, strides,
offset, storage span, values and the storages' bytes are compared, plus errors. Each program runs
in a forked child (crash isolation). Kinds marked KNOWN are documented differences (minitorch
storages cannot grow). Adapted from session 22's h13 fuzzer.
"""

import math
import random
import warnings

import _harness as H
import numpy as np
from _harness import minitorch, torch

# ----------------------------------------------------------------------

T = torch
M = minitorch


# ----------------------------------------------------------------------

# Differential fuzzer: storage model (resize_, set_, storages, copy_, aliasing) torch vs minitorch.
# usage: python fuzz.py START COUNT [verbose]


warnings.filterwarnings("ignore")
T.use_deterministic_algorithms(True)

DTS = ["float32", "float64", "int64", "bool", "float16"]
INTMAX = 2**63 - 1


def make_code(rng, name, dt, shape):
    n = math.prod(shape)
    if dt == "bool":
        body = f"(torch.arange({n}) % 3 == 0)"
    elif dt in ("float32", "float64", "float16"):
        body = f"(torch.arange({n}, dtype=torch.{dt}) * 0.5 + 1)"
    else:
        body = f"(torch.arange({n}) + 1)"
    return f"{name} = {body}.reshape({shape})"


def rshape(rng, maxd=3, maxs=4):
    d = rng.randint(0, maxd)
    return tuple(
        rng.randint(0, maxs) if rng.random() < 0.1 else rng.randint(1, maxs) for _ in range(d)
    )


def val(rng, t):
    if t.dtype == T.bool:
        return rng.choice(["True", "False"])
    if t.dtype.is_floating_point:
        return str(rng.choice([-2.5, 7.0, 0.25, 11.0]))
    return str(rng.choice([-3, 9, 42]))


def tensors(ns):
    return {k: v for k, v in ns.items() if isinstance(v, T.Tensor)}


def gen_step(rng, ns, counter):
    ts = tensors(ns)
    names = sorted(ts)
    new = f"t{counter[0]}"
    counter[0] += 1
    if not names or rng.random() < 0.08:
        dt = rng.choice(DTS)
        shape = rshape(rng)
        code = make_code(rng, new, dt, shape)
        r = rng.random()
        if r < 0.1 and dt != "bool":
            code += f"; {new} = {new}.float().requires_grad_()" if dt.startswith("float") else ""
        elif r < 0.25:
            npdt = {"float16": "float16"}.get(dt, dt)
            code = (
                f"{new} = torch.from_numpy(np.arange({math.prod(shape)}).astype('{npdt}')"
                f".reshape({shape}))"
            )
            code += f"; a_{new} = {new}.numpy()"
        return code
    a = rng.choice(names)
    t = ts[a]
    b = rng.choice(names)
    u = ts[b]
    nd = t.dim()
    shape = tuple(t.shape)
    kind = rng.choice(
        [
            "view",
            "view",
            "view",
            "resize",
            "resize",
            "resize_as",
            "set",
            "storage",
            "storage",
            "copy",
            "copy",
            "as_strided",
            "detach",
            "data",
            "write",
            "write",
            "write",
            "clone",
            "new",
            "numpy",
            "stats",
        ]
    )
    if kind == "view":
        opts = []
        if nd:
            d = rng.randrange(nd)
            s = shape[d]
            lo = rng.randint(0, max(s, 0))
            step = rng.choice([1, 1, 2, 3])
            idx = ", ".join([":"] * d + [f"{lo}::{step}"])
            opts.append(f"{new} = {a}[{idx}]")
            opts.append(f"{new} = {a}.narrow({d}, {min(lo, s)}, {max(0, s - lo)})")
            if s == 1:
                ns_ = list(shape)
                ns_[d] = rng.randint(0, 3)
                opts.append(f"{new} = {a}.expand({tuple(ns_)})")
            if s > 0:
                opts.append(f"{new} = {a}.select({d}, {rng.randrange(s)})")
        if nd >= 2:
            i, j = rng.sample(range(nd), 2)
            opts.append(f"{new} = {a}.transpose({i}, {j})")
            opts.append(f"{new} = {a}.diagonal(0, {i}, {j})")
        opts.append(f"{new} = {a}.unsqueeze({rng.randint(0, nd)})")
        opts.append(f"{new} = {a}.view(-1)")
        opts.append(f"{new} = {a}.reshape(-1)")
        opts.append(f"{new} = {a}.t()" if nd <= 2 else f"{new} = {a}.permute(2, 0, 1)")
        return rng.choice(opts)
    if kind == "resize":
        n = t.numel()
        target = rng.choice([0, 1, max(n // 2, 0), n, n + 1, 2 * n + 3, rng.randint(0, 12)])
        # a shape of that many elements
        d = rng.randint(0, 3) if target else rng.randint(1, 3)
        if target == 1:
            shp = tuple([1] * d)
        elif d == 0:
            shp = (target,) if target != 1 else ()
        elif d == 1 or target == 0:
            shp = (target,) + tuple([rng.randint(0, 2)] * (d - 1)) if target == 0 else (target,)
        else:
            f = [k for k in range(1, target + 1) if target % k == 0]
            k = rng.choice(f)
            shp = (k, target // k)
        r = rng.random()
        if r < 0.3:
            return f"{a}.resize_{shp!r}" if len(shp) > 1 else f"{a}.resize_({list(shp)})"
        if r < 0.4:
            return f"{a}.resize_({list(shp)}); R = {a}.data_ptr() == 0"
        return f"{a}.resize_({list(shp)})"
    if kind == "resize_as":
        return f"{a}.resize_as_({b})"
    if kind == "set":
        r = rng.random()
        if r < 0.35:
            return f"{a}.set_({b})"
        if r < 0.45:
            return f"{a}.set_()"
        st = u.untyped_storage()
        nel = st.nbytes() // max(t.element_size(), 1)
        off = rng.randint(0, nel + 1)
        size = rshape(rng, 2, 3)
        stride = tuple(rng.choice([0, 1, 2, 3]) for _ in size)
        if r < 0.6:
            return f"{a}.set_({b}.untyped_storage())"
        if r < 0.75:
            return f"{a}.set_({b}.untyped_storage(), {off})"
        if r < 0.85:
            return f"{a}.set_({b}.untyped_storage(), {off}, {size})"
        return f"{a}.set_({b}.untyped_storage(), {off}, {size}, {stride})"
    if kind == "storage":
        nb = t.untyped_storage().nbytes()
        r = rng.random()
        i = rng.randint(-1, nb)
        if r < 0.2:
            return (
                f"s = {a}.untyped_storage(); R = (s.nbytes(), s.size(), len(s), "
                f"s.data_ptr() == {a}.data_ptr() - {a}.storage_offset() * {a}.element_size()"
                f" or {a}.data_ptr() == 0)"
            )
        if r < 0.3:
            return f"s = {a}.untyped_storage(); R = s.tolist()"
        if r < 0.4:
            return f"s = {a}.untyped_storage(); s[{i}] = {rng.randint(0, 255)}; R = s[{i}]"
        if r < 0.5:
            return f"s = {a}.untyped_storage(); s.fill_({rng.randint(0, 3)})"
        if r < 0.6:
            return f"s = {a}.untyped_storage(); s.copy_({b}.untyped_storage())"
        if r < 0.7:
            return f"s = {a}.untyped_storage(); s.resize_({rng.choice([0, nb, nb + 8])})"
        if r < 0.8:
            return f"s = {a}.storage(); R = (s.size(), s.tolist(), s.dtype, s.element_size())"
        if r < 0.9:
            j = rng.randint(0, 3)
            return (
                f"s = {a}.untyped_storage()[{j}:{j + 8}]; R = (s.nbytes(), s.tolist()); s.fill_(1)"
            )
        return (
            f"R = ({a}.untyped_storage().data_ptr() == {b}.untyped_storage().data_ptr(), "
            f"{a}.is_set_to({b}))"
        )
    if kind == "copy":
        r = rng.random()
        if r < 0.4:
            return f"{a}.copy_({b})"
        if r < 0.5:
            return f"{a}.copy_({b}, non_blocking=True)"
        if r < 0.6:
            return f"{a}.copy_({val(rng, t)})"
        if r < 0.8 and nd:
            d = rng.randrange(nd)
            k = rng.randint(0, 2)
            if shape[d] > k:
                i1 = ", ".join([":"] * d + [f"{k}:"])
                i2 = ", ".join([":"] * d + [f":{shape[d] - k}"])
                return rng.choice([f"{a}[{i1}].copy_({a}[{i2}])", f"{a}[{i2}].copy_({a}[{i1}])"])
        if nd >= 2:
            return f"{a}.copy_({a}.transpose(0, 1))"
        return f"{a}.copy_({a})"
    if kind == "as_strided":
        nel = t.untyped_storage().nbytes() // max(t.element_size(), 1)
        size = rshape(rng, 2, 3)
        stride = tuple(rng.choice([0, 1, 2]) for _ in size)
        off = rng.choice([None, 0, rng.randint(0, nel + 1), t.storage_offset() + 1])
        offs = "" if off is None else f", {off}"
        m = rng.choice(["as_strided", "as_strided", "as_strided_"])
        if m == "as_strided":
            return f"{new} = {a}.as_strided({size}, {stride}{offs})"
        return f"{a}.as_strided_({size}, {stride}{offs})"
    if kind == "detach":
        return f"{new} = {a}.detach(); R = ({new}._version == {a}._version)"
    if kind == "data":
        r = rng.random()
        if r < 0.5:
            return f"{new} = {a}.data"
        return f"{a}.data = {b}"
    if kind == "write":
        v = val(rng, t)
        opts = [f"{a}.fill_({v})", f"{a}.zero_()", f"{a}[...] = {v}"]
        if nd and shape[0] > 0:
            opts.append(f"{a}[{rng.randrange(shape[0])}] = {v}")
        if t.dtype != T.bool:
            opts.append(f"{a}.add_(1)")
        opts.append(f"with torch.no_grad(): {a}.fill_({v})")
        return rng.choice(opts)
    if kind == "clone":
        r = rng.random()
        if r < 0.3:
            c = f"{new} = {a}.clone()"
        elif r < 0.5:
            c = f"{new} = {a}.contiguous()"
        elif r < 0.6 and nd == 3:
            c = f"{new} = {a}.unsqueeze(0).contiguous(memory_format=torch.channels_last)"
        elif r < 0.7 and nd == 3:
            c = f"{new} = {a}.unsqueeze(0).clone(memory_format=torch.channels_last)"
        elif r < 0.8:
            c = f"{new} = {a}.clone(memory_format=torch.preserve_format)"
        else:
            c = f"{new} = {a}.contiguous(); R = {new} is {a}"
        return c
    if kind == "new":
        sz = rshape(rng, 2, 3)
        r = rng.random()
        if r < 0.3:
            return f"{new} = {a}.new()"
        if r < 0.5:
            return f"{new} = {a}.new_empty({sz})"
        if r < 0.7:
            return f"{new} = {a}.new({list(sz)})" if sz else f"{new} = {a}.new(2, 3)"
        return f"{new} = {a}.new({b})"
    if kind == "numpy":
        arrs = [k for k in ns if k.startswith("a_")]
        if arrs and rng.random() < 0.6:
            arr = rng.choice(arrs)
            return f"{arr}[...] = {rng.randint(0, 5)}"
        return f"a_{a} = {a}.numpy()"
    if kind == "stats":
        return (
            f"R = ({a}.is_contiguous(), {a}.storage_offset(), {a}.stride(), "
            f"{a}.is_set_to({b}), {a}._version)"
        )
    return "pass"


def norm_exc(e):
    return (type(e).__name__, str(e).split("\n")[0][:300])


def snap_tensor(t, lib):
    try:
        out = [
            tuple(t.shape),
            tuple(t.stride()),
            t.storage_offset(),
            str(t.dtype).split(".")[-1],
            t.is_contiguous(),
        ]
        x = t.detach()
        if x.dtype == lib.float16:
            x = x.float()
        out.append(x.tolist())
        return out
    except Exception as e:  # noqa: BLE001
        return ("EXC", norm_exc(e))


def span(t):
    if t.numel() == 0:
        return None
    p = t.data_ptr()
    lo = hi = 0
    for s, st in zip(t.shape, t.stride(), strict=False):
        if st > 0:
            hi += (s - 1) * st
        else:
            lo += (s - 1) * st
    e = t.element_size()
    return (p + lo * e, p + (hi + 1) * e)


def arr_span(a):
    if a.size == 0:
        return None
    p = a.__array_interface__["data"][0]
    lo = sum((s - 1) * st for s, st in zip(a.shape, a.strides, strict=False) if st < 0)
    hi = sum((s - 1) * st for s, st in zip(a.shape, a.strides, strict=False) if st > 0)
    return (p + lo, p + hi + a.itemsize)


def snapshot(ns, lib, names):
    res = {}
    spans = {}
    for k in names:
        v = ns.get(k)
        if isinstance(v, lib.Tensor):
            res[k] = snap_tensor(v, lib)
            try:
                spans[k] = span(v)
            except Exception:  # noqa: BLE001
                spans[k] = None
        elif isinstance(v, np.ndarray):
            res[k] = ("np", v.shape, v.dtype.str, v.astype("float64").tolist())
            spans[k] = arr_span(v)
        else:
            res[k] = ("?", type(v).__name__)
    keys = sorted(spans)
    ov = set()
    for i, x in enumerate(keys):
        for y in keys[i + 1 :]:
            a, b = spans[x], spans[y]
            if a and b and a[0] < b[1] and b[0] < a[1]:
                ov.add((x, y))
    return res, ov


def vals_eq(tv, mv):
    if isinstance(tv, list):
        if not isinstance(mv, list) or len(tv) != len(mv):
            return False
        return all(vals_eq(a, b) for a, b in zip(tv, mv, strict=False))
    if isinstance(tv, float) and math.isnan(tv):
        return True  # uninitialised in torch
    if isinstance(tv, (int, float)) and tv >= 9e18 and not isinstance(tv, bool):
        return True
    if tv is True:
        return True  # torch's deterministic fill of uninitialised bools

    if isinstance(tv, float) and isinstance(mv, (int, float)):
        return abs(tv - mv) <= 1e-3 * (1 + abs(tv))
    return tv == mv


def cmp_snap(ts, ms):
    diffs = []
    for k, tv in ts.items():
        mv = ms.get(k)
        if tv == mv:
            continue
        if isinstance(tv, list) and isinstance(mv, list):
            same1 = tv[0] == mv[0] and all(
                a == b or n == 1 for n, a, b in zip(tv[0], tv[1], mv[1], strict=False)
            )
            if (
                tv[:5] != mv[:5]
                and not (0 in tv[0] and tv[0] == mv[0] and tv[2:] == mv[2:])
                and not (same1 and tv[2:] == mv[2:])
            ):
                diffs.append(("meta", k, tv[:5], mv[:5]))
            elif not vals_eq(tv[5], mv[5]):
                diffs.append(("values", k, tv[5], mv[5]))
        elif isinstance(tv, tuple) and tv and tv[0] == "np" and isinstance(mv, tuple):
            if tv[:3] != mv[:3] or not vals_eq(tv[3], mv[3]):
                diffs.append(("npvalues", k, tv, mv))
        else:
            diffs.append(("other", k, tv, mv))
    return diffs


def run_prog(seed, nsteps=12):
    rng = random.Random(seed)
    tns = {"torch": T, "np": np}
    counter = [0]
    steps = []
    # torch first, generating as we go
    trecs = []
    stale = set()  # tensors whose storage torch reallocated under them (minitorch cannot follow)
    for _ in range(nsteps):
        code = gen_step(rng, tns, counter)

        def sto(v):
            st = v.untyped_storage()
            return (st.data_ptr(), st.nbytes())

        before = {k: sto(v) for k, v in tensors(tns).items() if v.untyped_storage().nbytes()}
        tns.pop("R", None)
        try:
            exec(code, tns)
            err = None
        except Exception as e:  # noqa: BLE001
            err = norm_exc(e)
        subject = code.split(".")[0].split("[")[0]
        for k, (sp, nb) in before.items():
            v = tns.get(k)
            if isinstance(v, T.Tensor) and sto(v) != (sp, nb) and k == subject:
                for k2, (sp2, _) in before.items():
                    if k2 != k and sp2 == sp:
                        stale.add(k2)
        if "resize_" in code or "set_" in code:
            pass
        import re

        toks = set(re.findall(r"\b(?:a_)?t\d+\b", code))
        if toks & stale:
            stale |= toks
            stale |= {"R"}
        R = tns.get("R", "<none>")
        steps.append(code)
        names = sorted(
            k for k in tns if (k.startswith("t") or k.startswith("a_")) and k not in ("torch",)
        )
        snap, ov = snapshot(tns, T, names)
        trecs.append((err, repr(R), snap, ov, set(stale)))
        stale.discard("R")
    mns = {"torch": M, "np": np}
    out = []
    for i, code in enumerate(steps):
        mns.pop("R", None)
        try:
            exec(code, mns)
            err = None
        except Exception as e:  # noqa: BLE001
            err = norm_exc(e)
        terr, tR, tsnap, tov, stale = trecs[i]
        R = repr(mns.get("R", "<none>")).replace("minitorch", "torch")
        if terr != err:
            out.append(("error", i, code, terr, err))
            return out, steps
        if tR != R and "R" not in stale:
            out.append(("R", i, code, tR, R))
            return out, steps
        msnap, mov = snapshot(mns, M, sorted(tsnap))
        for k in stale:
            tsnap.pop(k, None)
            msnap.pop(k, None)
        tov = {p for p in tov if p[0] not in stale and p[1] not in stale}
        mov = {p for p in mov if p[0] not in stale and p[1] not in stale}
        d = cmp_snap(tsnap, msnap)
        if d:
            out.append(("state", i, code, d[0]))
            return out, steps
        if tov != mov:
            out.append(("alias", i, code, sorted(tov - mov), sorted(mov - tov)))
            return out, steps
    return out, steps


def forked(seed):
    import os
    import pickle

    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(r)
        try:
            res = run_prog(seed)
        except Exception as e:  # noqa: BLE001
            res = [("crash", 0, "", norm_exc(e))], []
        try:
            data = pickle.dumps(res)
        except Exception:  # noqa: BLE001
            data = pickle.dumps(
                (
                    [(res[0][0][0], res[0][0][1], res[0][0][2], repr(res[0][0][3:]))]
                    if res[0]
                    else [],
                    res[1],
                )
            )
        with os.fdopen(w, "wb") as f:
            f.write(data)
        os._exit(0)
    os.close(w)
    with os.fdopen(r, "rb") as f:
        data = f.read()
    _, status = os.waitpid(pid, 0)
    if not data:
        return [("torchcrash", 0, "", status)], []
    return pickle.loads(data)


def main():
    args = H.cli("storage", default_cases=300)
    rep = args.report
    for seed in range(args.seed, args.seed + args.cases):
        rep.case()
        out, steps = forked(seed)
        if out:
            o = out[0]
            code = o[2]
            key = (o[0], code.split("(")[0].split(".")[-1][:20] if o[0] != "state" else o[3][0])
            ro = repr(o)
            if (
                o[0] == "state"
                and o[3][0] == "meta"
                and 0 in o[3][2][0]
                and o[3][2][:2] == o[3][3][:2]
            ):
                key = ("KNOWN", "empty view storage_offset")
            elif o[0] == "error" and (
                "s.resize_(" in code
                or ("setStorage" in ro and "set_(" in code)
                or "resizable" in ro
            ):
                key = ("KNOWN", "storage cannot grow/resize: " + code.split("(")[0][-12:])
            rep.add(
                key, f"seed {seed}", *[f"   {s}" for s in steps[: o[1] + 1]][-6:], f"-> {ro[:600]}"
            )
    return rep.finish()


if __name__ == "__main__":
    H.main_guard(main)
