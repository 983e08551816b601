"""Shared machinery of the program-comparison reference tests: a program is written once as a
function of the library module (`prog(lib, dt, rec)` or `prog(lib, rec)`), run under torch and
under minitorch by `run_program`, and what it recorded is compared by `assert_records_match`.

A record is a list of (name, value) pairs in program order. `Rec` turns a tensor into a NumPy
array (bfloat16 through float32), a number or a list of numbers into an array, and keeps a string
or any other object as it is; `Rec.err` records "Type: message" (or "no error"), `Rec.warns` the
warnings a call gives. The comparison wants the same names in the same order; for an array the
same shape (and dtype, when asked), integers and booleans exactly, NaN and infinities at the same
places, and the finite values within `tol` times the largest magnitude of torch's value (at least
`floor`); anything else must print the same (optionally with "torch" read as "minitorch")."""

from __future__ import annotations

import contextlib
import io
import warnings

import numpy as np


def warning_text(w):
    """'Category: message' of a caught warning, without the build-tree location torch's C++
    warnings end with."""
    return f"{w.category.__name__}: {str(w.message).split(' (Triggered internally')[0]}"


class Rec:
    """Collects (name, value) pairs in program order.

    dtypes: a tensor also records `name.dtype` (its dtype's short name).
    first_line: an exception's message is cut at its first line.
    reprs: a value that is not a tensor is recorded as its repr (compared exactly).
    err_warnings: `err` also records how many warnings the call gave."""

    def __init__(self, *, dtypes=False, first_line=False, reprs=False, err_warnings=False):
        self.items = []
        self.dtypes = dtypes
        self.first_line = first_line
        self.reprs = reprs
        self.err_warnings = err_warnings

    def __call__(self, name, v):
        if isinstance(v, str):
            self.items.append((name, v))
            return
        if hasattr(v, "detach"):
            v = v.detach().cpu()
            if self.dtypes:
                self.items.append((name + ".dtype", str(v.dtype).split(".")[-1]))
            if str(v.dtype).endswith("bfloat16"):
                v = v.float()
            v = np.array(v.numpy())
        elif self.reprs:
            v = repr(v)
        elif not isinstance(v, np.ndarray):
            try:
                arr = np.asarray(v)
            except (ValueError, TypeError):
                arr = None
            if arr is not None and arr.dtype.kind in "biufc":
                v = arr
        else:
            v = v.copy()
        self.items.append((name, v))

    def err(self, name, fn):
        """Calls fn and records 'no error' or 'Type: message'; returns fn's result (or None)."""
        try:
            with warnings.catch_warnings(record=self.err_warnings) as caught:
                if self.err_warnings:
                    warnings.simplefilter("always")
                out = fn()
        except Exception as e:  # noqa: BLE001 - the exception is the record
            msg = str(e).splitlines()[0] if self.first_line and str(e) else str(e)
            self.items.append((name, f"{type(e).__name__}: {msg}"))
            return None
        self.items.append((name, f"no error ({len(caught)} warnings)" if caught else "no error"))
        return out

    def warns(self, name, fn):
        """Calls fn and records the list of warnings it gave; returns fn's result."""
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            out = fn()
        self.items.append((name, str([warning_text(w) for w in caught])))
        return out

    def params(self, prefix, model, grads=False, view=None):
        """Records each named parameter as prefix.name (and its gradient as prefix.g.name); view,
        if given, maps (name, parameter) to the tensor to record."""
        for n, p in model.named_parameters():
            self(prefix + "." + n, p if view is None else view(n, p))
            if grads and p.grad is not None:
                self(prefix + ".g." + n, p.grad if view is None else view(n, p.grad))


def run_program(prog, lib, dt=None, *, rec=None, keep_warnings=None, quiet=False):
    """Runs prog(lib, getattr(lib, dt), rec) (prog(lib, rec) when dt is None) and returns the
    records. Warnings are ignored; with keep_warnings (a predicate on caught warnings) the ones it
    keeps are recorded last as "warnings", the sorted set of their `warning_text`. Distributions
    validate their arguments during the run (torch's compiler stack, imported by flex_attention
    and torch.compile, turns that off process-wide) and the previous setting and the library's
    thread count are restored after it. quiet: what the program prints is swallowed. The program
    runs under lib.set_warn_always(True): both libraries give the warnings they give once per
    process (torch's TORCH_WARN_ONCE, minitorch's warn_once) at every call, so what a program
    records does not depend on the tests its worker ran before (one that gave the warning in one
    library only, a torch-free test say)."""
    rec = Rec() if rec is None else rec
    dist = lib.distributions.Distribution
    validate = dist._validate_args
    threads = lib.get_num_threads()
    warn_always = lib.is_warn_always_enabled()
    args = (lib, rec) if dt is None else (lib, getattr(lib, dt), rec)
    out = contextlib.redirect_stdout(io.StringIO()) if quiet else contextlib.nullcontext()
    dist.set_default_validate_args(True)
    lib.set_warn_always(True)
    try:
        with out, warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always" if keep_warnings else "ignore")
            prog(*args)
    finally:
        lib.set_warn_always(warn_always)
        dist.set_default_validate_args(validate)
        if lib.get_num_threads() != threads:
            lib.set_num_threads(threads)
    if keep_warnings:
        rec("warnings", str(sorted({warning_text(w) for w in caught if keep_warnings(w)})))
    return rec.items


def _array_diff(n, a, b, tol, floor, dtypes, rel):
    """The difference of two recorded arrays as a message, or None when they agree."""
    if not isinstance(b, np.ndarray):
        return f"{n}: torch recorded an array, minitorch {type(b).__name__} {b!r:.200}"
    if a.shape != b.shape:
        return f"{n}: shapes {a.shape} (torch) != {b.shape} (minitorch)"
    if dtypes and a.dtype != b.dtype:
        return f"{n}: dtypes {a.dtype} (torch) != {b.dtype} (minitorch)"
    if a.dtype.kind not in "fc" or b.dtype.kind not in "fc":
        if a.shape == b.shape and np.array_equal(a, b):
            return None
        return f"{n}: not equal\n  torch:     {a!r:.300}\n  minitorch: {b!r:.300}"
    if not np.array_equal(np.isnan(a), np.isnan(b)):
        return f"{n}: NaN at other places\n  torch:     {a!r:.300}\n  minitorch: {b!r:.300}"
    inf = np.isinf(a) | np.isinf(b)
    if not np.array_equal(a[inf], b[inf]):
        return f"{n}: infinities differ\n  torch:     {a!r:.300}\n  minitorch: {b!r:.300}"
    fin = np.isfinite(a) & np.isfinite(b)
    if not fin.any():
        return None
    scale = max(float(np.max(np.abs(a[fin]))), floor)
    diff = np.abs(a[fin] - b[fin])
    bound = tol * (scale + (np.abs(a[fin]) if rel else 0.0))
    if np.all(diff <= bound):
        return None
    err = float(np.max(diff)) / scale if scale else float("inf")
    return f"{n}: off by {err:.3g} of scale {scale:.3g} (tolerance {tol:.3g})"


def record_diffs(want, got, tol, *, floor=1e-2, dtypes=False, rel=False, rename=False, skip=()):
    """The differences of minitorch's records (got) from torch's (want), as messages.

    tol: a number, or a function of (name, torch's value) giving the item's tolerance.
    floor: the least scale a tolerance is relative to. dtypes: arrays' dtypes must be equal.
    rel: each element may also differ by tol times its own magnitude (NumPy's allclose with
    rtol=tol, atol=tol*scale). rename: a text may read "minitorch" where torch's reads "torch".
    skip: names not compared."""
    names_w, names_g = [n for n, _ in want], [n for n, _ in got]
    if names_w != names_g:
        pairs = enumerate(zip(names_w, names_g, strict=False))
        i = next((i for i, (x, y) in pairs if x != y), min(len(names_w), len(names_g)))
        return [
            f"records differ from #{i}: torch {names_w[i : i + 3]} ({len(names_w)} in all), "
            f"minitorch {names_g[i : i + 3]} ({len(names_g)} in all)"
        ]
    diffs = []
    for (n, a), (_, b) in zip(want, got, strict=True):
        if n in skip:
            continue
        if isinstance(a, np.ndarray):
            t = tol(n, a) if callable(tol) else tol
            d = _array_diff(n, a, b, t, floor, dtypes, rel)
        else:
            sa, sb = str(a), str(b)
            ok = sb == sa or (rename and sb == sa.replace("torch", "minitorch"))
            d = None if ok else f"{n}:\n  torch:     {sa[:400]!r}\n  minitorch: {sb[:400]!r}"
        if d is not None:
            diffs.append(d)
    return diffs


def assert_records_match(want, got, tol, **options):
    """Fails naming each record of minitorch's (got) that differs from torch's (want) (the first
    ten of them); the options are record_diffs's."""
    diffs = record_diffs(want, got, tol, **options)
    assert not diffs, f"{len(diffs)} record(s) differ:\n" + "\n".join(diffs[:10])


def assert_program_matches(prog, torch, dt, tol=None, **options):
    """Runs prog(lib, dtype, rec) under torch and minitorch (records with dtypes) and asserts the
    records match: to 1e-10 of each record's scale in float64, 1e-4 in float32 unless tol is
    given, torch read as minitorch in texts; the options are run_program's."""
    import minitorch

    want = run_program(prog, torch, dt, rec=Rec(dtypes=True), **options)
    got = run_program(prog, minitorch, dt, rec=Rec(dtypes=True), **options)
    if tol is None:
        tol = 1e-10 if dt == "float64" else 1e-4
    assert_records_match(want, got, tol, rename=True)


def run_calls(cases, env, rec):
    """Records each call in `cases` (source texts) evaluated in `env`: its error or "no error".
    Each is compiled as written, so the library reads the call's keywords from its bytecode, as
    it does from a user's line (the argument-error sweeps)."""
    for code in cases:
        rec.err(code, lambda code=code: eval(code, env))  # noqa: S307


def arity_calls(op, args, method=True):
    """Call texts for run_calls: `op` (a function's text) with each trailing run of `args` left
    out, and with one and three positional arguments too many; with method, the same of
    args[0].op(...) (the argument-count sweeps)."""
    cases = [f"{op}({', '.join(args[:n])})" for n in range(len(args))]
    cases += [f"{op}({', '.join([*args, '0'])})", f"{op}({', '.join([*args, '0', '0', '0'])})"]
    if method:
        name = op.rsplit(".", 1)[-1]
        rest = args[1:]
        cases += [f"{args[0]}.{name}({', '.join(rest[:n])})" for n in range(len(rest))]
        cases += [
            f"{args[0]}.{name}({', '.join([*rest, '1'])})",
            f"{args[0]}.{name}({', '.join([*rest, '1', '1', '1'])})",
        ]
    return cases


def assert_calls_match(prog, torch):
    """Runs prog(lib, rec) (calls recorded by run_calls) under torch and minitorch and asserts
    every record is the same text."""
    import minitorch

    want = run_program(prog, torch, rec=Rec())
    got = run_program(prog, minitorch, rec=Rec())
    assert_records_match(want, got, 0.0)


def assert_sweep_matches(records, calls, torch):
    """Asserts records(lib, calls), the records of an argument-error sweep's calls (run_calls),
    are the same texts under torch and minitorch, listing the first ten that differ."""
    import minitorch

    diffs = record_diffs(records(torch, calls), records(minitorch, calls), 0.0)
    assert not diffs, "\n".join(diffs[:10])


def seeded_gen(lib, seed):
    """A new generator of `lib` seeded with `seed` (the programs draw with one per call)."""
    return lib.Generator().manual_seed(seed)


def seeded_randn(lib, dt, seed, *shape):
    """lib.randn(*shape) of dtype dt from a generator seeded with `seed`."""
    return lib.randn(*shape, generator=seeded_gen(lib, seed), dtype=dt)


def seeded_rand(lib, dt, seed, *shape):
    """lib.rand(*shape) of dtype dt from a generator seeded with `seed`."""
    return lib.rand(*shape, generator=seeded_gen(lib, seed), dtype=dt)
