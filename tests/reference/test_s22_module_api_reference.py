"""A seeded slice of session 22's differential fuzzer of the nn.Module API: random module trees
(containers nested, shared submodules, tied parameters, None entries, non-persistent buffers,
attributes overwritten or deleted) built by the same script in torch and minitorch, then random
API calls; names, orders, values, identities, reprs and error type + message are compared."""

from __future__ import annotations

import copy
import random
import re
from collections import OrderedDict

import pytest

import minitorch

torch = pytest.importorskip("torch")

_CLASSES = """
class Cust(nn.Module):
    depth = 0
    def __init__(self, k=0):
        super().__init__()
        self.k = k
    def forward(self, x, scale=None):
        if Cust.depth > 8:
            return x
        Cust.depth += 1
        try:
            for m in self.children():
                if isinstance(m, (nn.Linear, nn.ReLU, nn.Sequential, Cust)):
                    x = m(x)
        finally:
            Cust.depth -= 1
        return x if scale is None else x * scale
    def extra_repr(self):
        return ["", "k=%d" % self.k, "k=%d\\nline2" % self.k][self.k % 3]
"""


def _gen(seed):
    r = random.Random(seed)
    lines, mods, kinds = [], [], {}
    emit = lines.append

    def new(expr):
        name = f"m{len(mods)}"
        emit(f"{name} = {expr}")
        mods.append(name)
        kinds[name] = expr.split("(")[0]
        return name

    def t():
        return f"torch.randn({r.choice([(3,), (2, 3), ()])!r})"

    def attrs(name):
        for _ in range(r.randrange(5)):
            a = r.choice(["a", "b", "w"])
            emit(
                r.choice(
                    [
                        f"{name}.{a} = nn.Parameter({t()})",
                        f"{name}.register_parameter({a!r}, None)",
                        f"{name}.register_buffer({a!r}, {t()}, persistent={r.random() < 0.6})",
                        f"{name}.register_buffer({a!r}, None)",
                        f"{name}.{a} = {t()}",
                        f"{name}.{a} = None",
                        f"del {name}.{a}",
                        f"{name}.{a} = {r.choice(mods or ['None'])}",
                    ]
                )
            )

    def build(depth):
        k = r.randrange(8) if depth < 3 else r.randrange(4)
        if k == 0:
            return new("nn.Linear(3, 3, bias=%s)" % (r.random() < 0.7))
        if k == 1:
            return new("nn.BatchNorm1d(3, affine=%s)" % (r.random() < 0.5))
        if k == 2:
            return new("nn.ReLU()")
        if k == 3:
            name = new(f"Cust({r.randrange(6)})")
            attrs(name)
            return name
        kids = [build(depth + 1) for _ in range(r.randrange(4))]
        if mods and r.random() < 0.3:
            kids.append(r.choice(mods))
        if k == 4:
            return new(f"nn.Sequential({', '.join(kids)})")
        if k == 5:
            return new(f"nn.ModuleList([{', '.join(kids)}])")
        if k == 6:
            items = ", ".join(f"({r.choice('xyzq')!r}, {v})" for v in kids)
            return new(f"nn.ModuleDict([{items}])")
        items = ", ".join(f"nn.Parameter({t()})" for _ in kids)
        return new(f"nn.ParameterList([{items}])")

    root = build(0)
    if kinds[root] not in ("nn.Sequential", "Cust", "nn.Linear"):
        emit(f"root = Cust(1); root.inner = {root}; root.lin = nn.Linear(3, 3)")
    else:
        emit(f"root = {root}")
    if r.random() < 0.3:
        emit("lin = [m for m in root.modules() if isinstance(m, nn.Linear)]")
        emit("if len(lin) >= 2: lin[0].weight = lin[1].weight")
    for _ in range(r.randrange(4, 10)):
        m = r.choice(["root", *mods])
        rd, rec = r.random() < 0.7, r.random() < 0.7
        pre = r.choice(["''", "'p'"])
        calls = [
            f"L(list({m}.named_parameters({pre}, {rec}, {rd})))",
            f"L(list({m}.named_buffers({pre}, {rec}, {rd})))",
            f"L(list({m}.named_modules(prefix={pre}, remove_duplicate={rd})))",
            f"L(list({m}.named_children()))",
            f"sd = {m}.state_dict(keep_vars={rd}, prefix={pre}); L(list(sd.items()), sd._metadata)",
            f"L(repr({m}))",
            "sd = root.state_dict(); sd.pop(next(iter(sd)), None); sd['zz.q'] = torch.ones(1)"
            f"; L(root.load_state_dict(sd, strict={rec}))",
            "sd = root.state_dict(); sd.update({k: torch.ones(7) for k in list(sd)[-1:]})"
            "; L(root.load_state_dict(sd))",
            f"L(root.load_state_dict({{k: v * 2 for k, v in root.state_dict().items()}}, "
            f"assign={rd}), list(root.state_dict(keep_vars=True).items()))",
            "r2 = copy.deepcopy(root); L(list(r2.named_parameters(remove_duplicate=False)))",
            f"L(root.train({rd}), [x.training for x in root.modules(remove_duplicate=False)])",
            f"{m}.requires_grad_({rd}); L([p.requires_grad for p in root.parameters()])",
            "L(root(torch.ones(2, 3)))",
            f"L(root.get_submodule({r.choice(['0', 'inner.0', 'lin', 'x'])!r}))",
            f"L(root.get_parameter({r.choice(['lin.weight', 'inner.0', 'a', 'w'])!r}))",
        ]
        if kinds.get(m) in ("nn.Sequential", "nn.ModuleList"):
            i = r.choice([0, -1, 2, 5])
            calls += [
                f"L({m}[{i}], {m}[1:], list({m}[::-1]._modules))",
                f"del {m}[{i}]; L(list({m}._modules.items()))",
                f"{m}.insert({i}, nn.ReLU()); L(list({m}._modules.items()))",
                f"L({m}.pop({i}), list({m}._modules.items()))",
                f"{m}.extend([nn.ReLU()]); {m}.append(nn.ReLU()); L(repr({m}))",
            ]
        if kinds.get(m) == "nn.Sequential":
            calls += [f"L(repr({m} + {m}), repr({m} * 2))", f"{m} *= 2; L(list({m}._modules))"]
        emit(r.choice(calls))
    return lines


def _norm(v, lib, ids):
    if isinstance(v, lib.Tensor):
        ident = ids.setdefault(id(v), (len(ids), v))[0]
        vals = [float(x) for x in v.detach().reshape(-1).tolist()]
        kind = "P" if isinstance(v, lib.nn.Parameter) else "T"
        return (kind, ident, tuple(v.shape), str(v.dtype).split(".")[-1], vals, v.requires_grad)
    if isinstance(v, lib.nn.Module):
        return ("M", type(v).__name__, ids.setdefault(id(v), (len(ids), v))[0])
    if isinstance(v, dict):
        return [(k, _norm(x, lib, ids)) for k, x in v.items()]
    if isinstance(v, (list, tuple)):
        return [type(v).__name__, *(_norm(x, lib, ids) for x in v)]
    if isinstance(v, str):
        return v.replace("minitorch", "torch")
    return v


def _run(lines, lib, seed):
    log, ids = [], {}
    ns = {"torch": lib, "nn": lib.nn, "copy": copy, "OrderedDict": OrderedDict}
    ns["L"] = lambda *vals: log.append([_norm(v, lib, ids) for v in vals])
    exec(_CLASSES, ns)
    lib.manual_seed(seed)
    for stmt in lines:
        try:
            exec(stmt, ns)
        except Exception as e:
            msg = re.sub("0x[0-9a-f]+", "0x", str(e).replace("minitorch", "torch"))
            if isinstance(e, RecursionError):  # a module holding itself; the text varies
                msg = ""
            log.append(("EXC", type(e).__name__, msg, stmt))
    return log


def _same(a, b):
    if isinstance(a, float) and isinstance(b, float):
        return abs(a - b) <= 1e-4 * max(1.0, abs(a), abs(b)) or (a != a and b != b)
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b, strict=True))
    return a == b


@pytest.mark.parametrize("chunk", range(4))
def test_module_api_fuzz_slice(chunk):
    for seed in range(chunk * 40, chunk * 40 + 40):
        lines = _gen(seed)
        want, got = _run(lines, torch, seed), _run(lines, minitorch, seed)
        for i, (w, g) in enumerate(zip(want, got, strict=False)):
            assert _same(w, g), (seed, i, "\n".join(lines), w, g)
        assert len(want) == len(got), (seed, "\n".join(lines))
