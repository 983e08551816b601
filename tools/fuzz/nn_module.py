"""Differential fuzzer: the nn.Module API.

Each seed generates a random script (building Linear/Sequential/ModuleList/ModuleDict/
ParameterList/ParameterDict/custom modules, then add_module/register_*/apply/to/named_*/
state_dict/load_state_dict/train/eval/requires_grad_/zero_grad/copy/pickle/hooks/...), runs it
statement by statement with each library and compares the logs (values, shapes, dtypes,
identities, module types, exceptions). Kinds: (first differing log tag, exception type, mt tag).
Adapted from session 22's h8 fuzzer.
"""

# ruff: noqa: B007, E501  (code adapted as-is from the session fuzzers)

import copy
import pickle
import random
import re
import sys
import warnings

import _harness as H
from _harness import minitorch, torch

# ----------------------------------------------------------------------

# Differential fuzzer of the nn.Module API: torch vs minitorch. Generates a random script per
# seed, runs it with each library in one process, compares the logs.


warnings.simplefilter("ignore")

PRELUDE = """
nn = torch.nn
class Cust(nn.Module):
    def __init__(self, k=0):
        super().__init__()
        self.k = k
    depth = 0
    def forward(self, x, scale=None):
        if Cust.depth > 12:
            return x
        Cust.depth += 1
        try:
            return self._fwd(x, scale)
        finally:
            Cust.depth -= 1
    def _fwd(self, x, scale):
        for m in self.children():
            if isinstance(m, (nn.Linear, nn.ReLU, nn.Sequential, Cust, nn.Tanh)):
                try:
                    x = m(x)
                except Exception:
                    pass
        if scale is not None:
            x = x * scale
        return x
    def extra_repr(self):
        return ("k=%d" % self.k) if self.k % 3 else ("k=%d\\nline2" % self.k if self.k % 3 == 1 else "")

class Extra(nn.Module):
    def __init__(self):
        super().__init__()
        self.st = 5
    def get_extra_state(self):
        return {"st": self.st}
    def set_extra_state(self, s):
        self.st = s["st"]
    def forward(self, x):
        return x
"""


def gen_case(seed):
    r = random.Random(seed)
    lines = []
    emit = lines.append
    emit(f"torch.manual_seed({seed})")
    mods = []  # names of module vars
    kinds = {}
    n = [0]

    def new(expr):
        name = f"m{n[0]}"
        n[0] += 1
        emit(f"{name} = {expr}")
        mods.append(name)
        kinds[name] = expr.split("(")[0]
        return name

    def leaf():
        k = r.randrange(6)
        if k == 0:
            return new("nn.Linear(3, 3, bias={})".format(r.choice(["True", "False"])))
        if k == 1:
            return new(
                "nn.BatchNorm1d(3, affine={}, track_running_stats={})".format(
                    r.choice(["True", "False"]), r.choice(["True", "False"])
                )
            )
        if k == 2:
            return new(r.choice(["nn.ReLU()", "nn.Tanh()", "nn.Identity()", "Extra()"]))
        if k == 3:
            name = new(f"Cust({r.randrange(6)})")
            custom_attrs(name)
            return name
        if k == 4:
            return new("nn.Module()")
        return new("nn.Linear(3, 3)")

    def tensor_expr():
        shape = r.choice([(3,), (2, 3), (), (1,)])
        return f"torch.randn({shape!r})"

    def custom_attrs(name):
        for _ in range(r.randrange(5)):
            a = r.choice(["a", "b", "c", "w", "k2"])
            k = r.randrange(12)
            if k == 0:
                emit(f"{name}.{a} = nn.Parameter({tensor_expr()})")
            elif k == 1:
                emit(f"{name}.register_parameter({a!r}, None)")
            elif k == 2:
                emit(
                    f"{name}.register_buffer({a!r}, {tensor_expr()}, persistent={r.random() < 0.6})"
                )
            elif k == 3:
                emit(f"{name}.register_buffer({a!r}, None)")
            elif k == 4:
                emit(f"{name}.{a} = {tensor_expr()}")
            elif k == 5:
                emit(f"{name}.{a} = None")
            elif k == 6:
                emit(f"del {name}.{a}")
            elif k == 7 and mods:
                emit(f"{name}.{a} = {r.choice(mods)}")
            elif k == 8:
                emit(f"{name}.{a} = nn.Buffer({tensor_expr()}, persistent={r.random() < 0.5})")
            elif k == 9:
                emit(f"{name}.{a} = 7")
            elif k == 10 and mods:
                other = r.choice(mods)
                emit(f"{name}.{a} = next(iter({other}.parameters()), nn.Parameter(torch.ones(2)))")
            else:
                emit(f"{name}.add_module({a!r}, {r.choice(mods + ['None'])})")
            emit(
                f"L('attr', {name}._parameters, {name}._buffers, sorted({name}._non_persistent_buffers_set), list({name}._modules))"
            )

    def container(depth):
        k = r.randrange(6)
        kids = [build(depth + 1) for _ in range(r.randrange(4))]
        if kids and r.random() < 0.3 and mods:
            kids.append(r.choice(mods))  # shared
        if k == 0:
            return new(f"nn.Sequential({', '.join(kids)})")
        if k == 1:
            return new(f"nn.ModuleList([{', '.join(kids)}])")
        if k == 2:
            keys = [r.choice(["x", "y", "z", "q", "b1"]) for _ in kids]
            items = ", ".join(f"({kk!r}, {v})" for kk, v in zip(keys, kids, strict=False))
            return new(f"nn.ModuleDict([{items}])")
        if k == 3:
            items = [f"nn.Parameter({tensor_expr()})" for _ in range(r.randrange(4))]
            if r.random() < 0.3:
                items.append(tensor_expr())
            return new(f"nn.ParameterList([{', '.join(items)}])")
        if k == 4:
            items = ", ".join(
                f"({r.choice(['p', 'q', 'r', 's'])!r}, nn.Parameter({tensor_expr()}))"
                for _ in range(r.randrange(4))
            )
            return new(f"nn.ParameterDict([{items}])")
        name = new(f"Cust({r.randrange(6)})")
        for i, kid in enumerate(kids):
            emit(f"{name}.c{i} = {kid}")
        custom_attrs(name)
        return name

    def build(depth):
        if depth >= 3 or r.random() < 0.4:
            return leaf()
        return container(depth)

    root = build(0)
    if kinds[root] not in ("nn.Sequential", "Cust", "nn.Linear"):
        root = new("Cust(1)")
        emit(f"{root}.inner = {mods[-2]}")
        emit(f"{root}.lin = nn.Linear(3, 3)")
    emit(f"root = {root}")
    # tied params
    if r.random() < 0.3:
        emit("ps = list(root.modules())")
        emit("lin = [m for m in ps if isinstance(m, nn.Linear)]")
        emit("if len(lin) >= 2: lin[0].weight = lin[1].weight")
    for _ in range(r.randrange(4, 14)):
        if r.random() < 0.35:
            conts = [
                m
                for m in mods
                if kinds[m]
                in (
                    "nn.Sequential",
                    "nn.ModuleList",
                    "nn.ModuleDict",
                    "nn.ParameterList",
                    "nn.ParameterDict",
                )
            ]
            if conts:
                c = r.choice(conts)
                seq_op(r, emit, c, kinds[c])
                continue
        api_call(r, emit, mods)
    return "\n".join(lines)


def api_call(r, emit, mods):
    k = r.randrange(40)
    pre = r.choice(["''", "'pre'", "'a.b'"])
    rd = r.random() < 0.7
    rec = r.random() < 0.7
    m = r.choice(["root"] + mods)
    if k == 0:
        emit(
            f"L('np', list({m}.named_parameters(prefix={pre}, recurse={rec}, remove_duplicate={rd})))"
        )
    elif k == 1:
        emit(
            f"L('nb', list({m}.named_buffers(prefix={pre}, recurse={rec}, remove_duplicate={rd})))"
        )
    elif k == 2:
        emit(f"L('nc', list({m}.named_children()))")
    elif k == 3:
        emit(f"L('nm', list({m}.named_modules(prefix={pre}, remove_duplicate={rd})))")
    elif k == 4:
        kv = r.random() < 0.5
        emit(f"sd = {m}.state_dict(keep_vars={kv}, prefix={pre})")
        emit("L('sd', list(sd.items()), dict(sd._metadata))")
    elif k == 5:
        emit("sd = root.state_dict()")
        j = r.randrange(6)
        if j == 0:
            emit("if sd: sd.pop(list(sd)[0])")
        elif j == 1:
            emit("sd['zz.extra'] = torch.ones(1)")
        elif j == 2:
            emit("if sd: k0 = list(sd)[-1]; sd[k0] = torch.ones(7)")
        elif j == 3:
            emit("sd = OrderedDict(reversed(list(sd.items())))")
        elif j == 4:
            emit("if sd: k0 = list(sd)[0]; sd[k0] = 3")
        else:
            emit(
                "sd = {k: v * 2 for k, v in sd.items() if hasattr(v, 'dtype') and v.is_floating_point()}"
            )
        st = r.random() < 0.6
        asg = r.random() < 0.3
        emit(f"L('load', root.load_state_dict(sd, strict={st}, assign={asg}))")
        emit("L('after', list(root.state_dict(keep_vars=True).items()))")
    elif k == 6:
        emit(f"L('repr', repr({m}))")
    elif k == 7:
        emit(
            f"L('dir', [d for d in dir({m}) if not d.startswith('_') and d not in ('ipu', 'mtia', 'T_destination')])"
        )
    elif k == 8:
        t = r.choice(["'0'", "'c0'", "'c0.c1'", "'x'", "'0.0'", "'c1.weight'", "''", "'nope.x'"])
        f = r.choice(["get_submodule", "get_parameter", "get_buffer"])
        emit(f"L('get', root.{f}({t}))")
    elif k == 9:
        emit(
            f"L('train', root.train({r.random() < 0.5}) is root, [x.training for x in root.modules()])"
        )
    elif k == 10:
        emit(
            f"{m}.requires_grad_({r.random() < 0.5}); L('rg', [p.requires_grad for p in root.parameters()])"
        )
    elif k == 11:
        emit("for p in root.parameters(): p.grad = torch.ones_like(p)")
        emit(
            f"root.zero_grad(set_to_none={r.random() < 0.5}); L('zg', [p.grad for p in root.parameters()])"
        )
    elif k == 12:
        emit("seen = []; root.apply(lambda x: seen.append(x)); L('apply', seen)")
    elif k == 13:
        emit(
            f"root.to({r.choice(['torch.float64', 'torch.float32', 'torch.int64', 'dtype=torch.float64'])}); L('to', list(root.state_dict().items()))"
        )
    elif k == 14:
        emit(
            "r2 = copy.deepcopy(root); L('dc', list(r2.state_dict(keep_vars=True).items()), repr(r2), list(r2.named_modules(remove_duplicate=False)))"
        )
    elif k == 15:
        emit(
            "r2 = pickle.loads(pickle.dumps(root)); L('pk', list(r2.state_dict(keep_vars=True).items()), repr(r2), [n for n, _ in r2.named_parameters(remove_duplicate=False)])"
        )
    elif k in (16, 17, 18):
        seq_op(r, emit, m)
    elif k in (19, 20):
        hook_op(r, emit, m)
    elif k == 21:
        emit("x = torch.randn(2, 3, requires_grad=True)")
        emit("out = root(x); L('fwd', out)")
        emit(
            "if isinstance(out, torch.Tensor) and out.requires_grad: out.sum().backward(); L('bwd', x.grad)"
        )
    elif k == 22:
        emit(
            f"L('mods', list({m}.modules()), list({m}.children()), list({m}.buffers(recurse={rec})), list({m}.parameters(recurse={rec})))"
        )
    elif k == 23:
        emit("sd = OrderedDict(); root.state_dict(sd, 'pp.'); L('sdpos', list(sd.items()))")
    elif k == 24:
        emit(
            "dst = OrderedDict(); r_ = root.state_dict(destination=dst, prefix='q.'); L('sddst', r_ is dst, list(dst.items()), getattr(dst, '_metadata', None))"
        )
    elif k == 25:
        emit(
            f"memo = set(); L('memo', list({m}.named_modules(memo=memo)), list(root.named_modules(memo=memo)))"
        )
    elif k == 26:
        attr = r.choice(["a", "b", "c0", "weight", "training", "k"])
        emit(f"delattr({m}, {attr!r}); L('del', {m}._parameters, {m}._buffers, list({m}._modules))")
    elif k == 27:
        emit(
            f"L('setattr', setattr({m}, {r.choice(['a', 'weight', 'b', 'c0'])!r}, {r.choice(['torch.ones(3)', 'None', 'nn.Parameter(torch.ones(3))', 'nn.ReLU()', '3', 'nn.Buffer(torch.zeros(2))'])}), {m}._parameters, {m}._buffers, list({m}._modules))"
        )
    elif k == 28:
        emit(
            f"L('regp', {m}.register_parameter({r.choice(['a', 'weight', '', 'a.b', '0', 'training'])!r}, {r.choice(['None', 'torch.ones(2)', 'nn.Parameter(torch.ones(2))', '(torch.ones(2, requires_grad=True)*2)'])}))"
        )
    elif k == 29:
        emit(
            f"L('regb', {m}.register_buffer({r.choice(['a', 'weight', '', 'a.b', 'bb', 'training'])!r}, {r.choice(['None', 'torch.ones(2)', '3', 'nn.Parameter(torch.ones(2))'])}, {r.random() < 0.5}))"
        )
    elif k == 30:
        emit(
            f"L('addm', {m}.add_module({r.choice(['a', 'weight', '', 'a.b', 'mm', 'training', '1'])!r}, {r.choice(['None', 'nn.ReLU()', '3', 'torch.ones(1)'])}))"
        )
    elif k == 31:
        emit(
            f"L('ssm', root.set_submodule({r.choice(['c0', '0', 'c0.c1', 'x', 'nope', ''])!r}, nn.Tanh(), strict={r.random() < 0.5}), repr(root))"
        )
    elif k == 32:
        emit(
            "bh = []; h = root.register_full_backward_hook(lambda mod, gi, go: bh.append(('bh', type(mod).__name__, gi, go)))"
        )
        emit("h2 = root.register_full_backward_pre_hook(lambda mod, go: bh.append(('bph', go)))")
        emit("x = torch.randn(2, 3, requires_grad=True); out = root(x)")
        emit("if isinstance(out, torch.Tensor) and out.requires_grad: out.sum().backward()")
        emit("L('bhooks', bh); h.remove(); h2.remove()")
    elif k == 33:
        emit("calls = []")
        emit(
            "sh = root.register_state_dict_pre_hook(lambda mod, prefix, kv: calls.append(('pre', prefix, kv)))"
        )
        emit(
            "sh2 = root.register_state_dict_post_hook(lambda mod, sd, prefix, md: calls.append(('post', prefix, list(sd), md)))"
        )
        emit(
            "lh = root.register_load_state_dict_pre_hook(lambda mod, sd, prefix, md, strict, mk, uk, em: calls.append(('lpre', prefix, list(sd), strict, list(mk), list(uk))))"
        )
        emit(
            "lh2 = root.register_load_state_dict_post_hook(lambda mod, ik: calls.append(('lpost', ik.missing_keys[:], ik.unexpected_keys[:])))"
        )
        emit(
            "sd = root.state_dict(); sd['extra.k'] = torch.ones(1); L('sdh', root.load_state_dict(sd, strict=False), calls)"
        )
    elif k == 34:
        emit("gcalls = []")
        emit(
            "g1 = nn.modules.module.register_module_forward_pre_hook(lambda mod, a: gcalls.append(('gpre', type(mod).__name__)))"
        )
        emit(
            "g2 = nn.modules.module.register_module_forward_hook(lambda mod, a, o: gcalls.append(('gfwd', type(mod).__name__, o)))"
        )
        emit("try:\n    L('gout', root(torch.randn(2, 3)))\nfinally:\n    g1.remove(); g2.remove()")
        emit("L('gcalls', gcalls)")
    elif k == 36:
        emit(
            f"L('regbp', {m}.register_buffer('bp', nn.Parameter(torch.ones(2))), {m}._buffers, {m}._parameters, list({m}.state_dict()))"
        )
        emit(
            f"{m}.bp = nn.Parameter(torch.zeros(2)); L('regbp2', {m}._buffers, {m}._parameters, list({m}.state_dict()))"
        )
    elif k == 37:
        emit(
            "sd = root.state_dict(keep_vars=True); L('ldself', root.load_state_dict(sd, assign=True), [(n, p is sd.get(n)) for n, p in root.named_parameters(remove_duplicate=False)], [(n, b is sd.get(n)) for n, b in root.named_buffers(remove_duplicate=False)])"
        )
    elif k == 38:
        emit(
            "r2 = copy.deepcopy(root); ids1 = {id(p): i for i, p in enumerate(root.parameters())}; L('share', [(n, ids1.get(id(p))) for n, p in root.named_parameters(remove_duplicate=False)], [n for n, p in r2.named_parameters(remove_duplicate=False)], [len(set(map(id, r2.parameters()))), len(list(r2.parameters(recurse=True)))])"
        )
    elif k == 39:
        emit(f"L('half', {m}.half() is {m}, [(n, v.dtype) for n, v in root.state_dict().items()])")
    elif k == 35:
        emit(
            f"L('len', len({m}) if hasattr({m}, '__len__') else -1, list(iter({m})) if hasattr({m}, '__iter__') else None)"
        )
    else:
        seq_op(r, emit, m)


UPD = [
    '{"x": nn.ReLU(), "n": nn.Tanh()}',
    '[("y", nn.ReLU())]',
    '[("p", nn.Parameter(torch.ones(1)))]',
    "3",
    "[1]",
    '{"p": torch.ones(2)}',
]


def seq_op(r, emit, m, kind=None):
    k = r.randrange(26)
    i = r.choice([0, 1, -1, 2, -3, 5])
    ops = [
        f"L('gi', {m}[{i}])",
        f"L('sl', {m}[{r.choice(['1:', ':-1', '::2', '::-1'])}])",
        f"del {m}[{i}]; L('deli', repr({m}))",
        f"del {m}[{r.choice(['1:', ':-1', '::2'])}]; L('dels', repr({m}), list({m}._modules))",
        f"L('ins', {m}.insert({i}, nn.ReLU()), repr({m}), list({m}._modules))",
        f"L('app', {m}.append(nn.Tanh()), list({m}._modules))",
        f"L('ext', {m}.extend([nn.ReLU(), nn.Tanh()]), list({m}._modules))",
        f"L('pop', {m}.pop({r.choice([i, repr('x'), repr('p')])}), repr({m}))",
        f"L('add', repr({m} + {m}))",
        f"L('add2', repr({m} + nn.Sequential(nn.ReLU())))",
        f"L('mul', repr({m} * {r.choice([0, 1, 2, -1])}))",
        f"tmp = {m}; tmp += nn.Sequential(nn.ReLU()); L('iadd', tmp is {m}, repr(tmp))",
        f"tmp = {m}; tmp *= 2; L('imul', tmp is {m}, repr(tmp))",
        f"{m}[{i}] = nn.ReLU(); L('seti', repr({m}))",
        f"{m}[{r.choice(['x', 'p', 'new'])!r}] = {r.choice(['nn.ReLU()', 'nn.Parameter(torch.ones(2))', 'torch.ones(2)', '3'])}; L('setk', repr({m}), list({m}.named_parameters()))",
        f"L('upd', {m}.update({r.choice(UPD)}), repr({m}), list({m}.keys()))",
        f"L('keys', list({m}.keys()), list({m}.values()), list({m}.items()))",
        f"L('in', 'x' in {m}, nn.ReLU() in {m})",
        f"L('clr', {m}.clear(), repr({m}))",
        f"L('rep', repr({m}))",
        f"L('idx', {m}.index({m}[0]) if len({m}) else None)",
        f"L('ple', {m}.extend([nn.Parameter(torch.ones(1)), torch.zeros(2)]), list({m}.named_parameters()), repr({m}))",
        f"L('pla', {m}.append(torch.ones(2)), list({m}.named_parameters()), repr({m}))",
        f"L('setdef', {m}.setdefault('s', nn.Parameter(torch.ones(1))), list({m}.keys()))",
        f"L('fk', {m}.fromkeys(['a', 'b']), repr({m}.copy()))",
        f"L('or', repr({m} | {m}))",
    ]
    if kind is not None:
        allowed = {
            "nn.Sequential": [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 19, 20],
            "nn.ModuleList": [0, 1, 2, 3, 4, 5, 6, 7, 8, 13, 11, 19, 20, 17],
            "nn.ModuleDict": [7, 14, 15, 16, 17, 18, 19],
            "nn.ParameterList": [0, 1, 5, 13, 21, 22, 8, 19, 11, 10],
            "nn.ParameterDict": [7, 14, 15, 16, 17, 18, 19, 23, 24, 25],
        }[kind]
        k = r.choice(allowed)
    emit(ops[k])


def hook_op(r, emit, m):
    emit("hc = []")
    for j in range(r.randrange(1, 4)):
        kind = r.randrange(4)
        prepend = r.random() < 0.3
        wk = r.random() < 0.4
        if kind == 0:
            if wk:
                emit(
                    f"root.register_forward_pre_hook(lambda mod, a, kw: (hc.append(('pre{j}', a, dict(kw))), (a, dict(kw, scale=2.0)))[1] if {r.random() < 0.4} else hc.append(('pre{j}', a, dict(kw))), prepend={prepend}, with_kwargs=True)"
                )
            else:
                emit(
                    f"root.register_forward_pre_hook(lambda mod, a: (hc.append(('pre{j}', a)), (a[0] + 1,) if {r.random() < 0.4} else None)[1], prepend={prepend})"
                )
        elif kind == 1:
            ac = r.random() < 0.3
            if wk:
                emit(
                    f"root.register_forward_hook(lambda mod, a, kw, o: (hc.append(('fw{j}', a, dict(kw), o)), o * 3 if {r.random() < 0.4} else None)[1], prepend={prepend}, with_kwargs=True, always_call={ac})"
                )
            else:
                emit(
                    f"root.register_forward_hook(lambda mod, a, o: (hc.append(('fw{j}', a, o)), o + 1 if {r.random() < 0.4} else None)[1], prepend={prepend}, always_call={ac})"
                )
        elif kind == 2:
            emit(
                f"root.register_full_backward_hook(lambda mod, gi, go: (hc.append(('bw{j}', gi, go)), tuple(g * 2 if g is not None else None for g in gi) if {r.random() < 0.3} else None)[1], prepend={prepend})"
            )
        else:
            emit(
                f"root.register_full_backward_pre_hook(lambda mod, go: (hc.append(('bp{j}', go)), tuple(g * 2 if g is not None else None for g in go) if {r.random() < 0.3} else None)[1], prepend={prepend})"
            )
    emit("x = torch.randn(2, 3, requires_grad=True)")
    kw = r.choice(["", ", scale=0.5"])
    emit(f"out = root(x{kw}); L('hout', out)")
    emit(
        "if isinstance(out, torch.Tensor) and out.requires_grad: out.sum().backward(); L('hgrad', x.grad)"
    )
    emit("L('hc', hc)")


def _ident(ids, v):
    if ids is None:
        return -1
    if id(v) not in ids:
        ids[id(v)] = (len(ids), v)
    return ids[id(v)][0]


def norm(v, lib, ids, depth=0):
    T = lib.Tensor
    if depth > 12:
        return "<deep>"
    if isinstance(v, T):
        kind = "P" if isinstance(v, lib.nn.Parameter) else "T"
        try:
            vals = [float(x) for x in v.detach().reshape(-1).tolist()]
        except Exception as e:
            vals = repr(e)
        return (
            kind,
            _ident(ids, v),
            tuple(v.shape),
            str(v.dtype).replace("torch.", "").replace("minitorch.", ""),
            vals,
            v.requires_grad,
        )
    if isinstance(v, lib.nn.Module):
        return ("M", type(v).__name__, _ident(ids, v))
    if isinstance(v, dict):
        return (
            "D",
            type(v).__name__ if type(v).__name__ in ("dict", "OrderedDict") else "dictlike",
            [(norm(k, lib, ids, depth + 1), norm(x, lib, ids, depth + 1)) for k, x in v.items()],
        )
    if isinstance(v, (list, tuple)):
        tn = type(v).__name__
        if tn not in ("list", "tuple"):
            tn = "nt:" + tn
        return (tn, [norm(x, lib, ids, depth + 1) for x in v])
    if isinstance(v, str):
        return re.sub(r"0x[0-9a-f]+", "0x", v.replace("minitorch", "torch"))
    if isinstance(v, (int, float, bool, type(None))):
        return v
    if isinstance(v, type):
        return ("type", v.__name__)
    return ("obj", type(v).__name__)


NOID = {"bhooks", "hc", "hgrad", "hout", "gcalls", "gout"}


def run(src, lib, fresh=False):
    from collections import OrderedDict

    log = []
    ids = {}

    def L(tag, *vals):
        log.append(
            (
                tag,
                [
                    norm(v, lib, ids if tag not in NOID and not fresh else ({} if fresh else None))
                    for v in vals
                ],
            )
        )

    ns = {"torch": lib, "copy": copy, "pickle": pickle, "OrderedDict": OrderedDict, "L": L}
    ns.update(classes(lib))
    for stmt in split(src):
        if fresh:
            lib.manual_seed(0)
        try:
            exec(stmt, ns)
        except Exception as e:
            msg = re.sub(r"0x[0-9a-f]+", "0x", str(e).replace("minitorch", "torch"))
            if isinstance(e, RecursionError):
                msg = ""
            log.append(("EXC", type(e).__name__, msg, stmt.split("\n")[0][:80]))
    return log


def split(src):
    out = []
    for line in src.split("\n"):
        if line.startswith((" ", "finally")) and out:
            out[-1] += "\n" + line
        else:
            out.append(line)
    return out


def same(a, b):
    if isinstance(a, float) and isinstance(b, float):
        return a == b or abs(a - b) <= 1e-4 * max(1.0, abs(a), abs(b)) or (a != a and b != b)
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        return (
            type(a) is type(b)
            and len(a) == len(b)
            and all(same(x, y) for x, y in zip(a, b, strict=False))
        )
    return a == b


# ----------------------------------------------------------------------

_cache = {}


def classes(lib):
    if lib.__name__ in _cache:
        return _cache[lib.__name__]
    ns = {"torch": lib, "__name__": __name__}
    exec(PRELUDE, ns)
    mod = sys.modules[__name__]
    out = {}
    for name in ("Cust", "Extra"):
        cls = ns[name]
        qual = f"{name}_{lib.__name__}"
        cls.__qualname__ = qual
        cls.__module__ = __name__
        setattr(mod, qual, cls)
        out[name] = cls
    out["nn"] = lib.nn
    _cache[lib.__name__] = out
    return out


def main():
    args = H.cli("nn_module", default_cases=1000)
    rep = args.report
    runl = H.limited(run, args.timeout, lambda e: [("EXC", "CaseTimeout", str(e), "")])
    for seed in range(args.seed, args.seed + args.cases):
        rep.case()
        src = gen_case(seed)
        lt = runl(src, torch)
        lm = runl(src, minitorch)
        if not same(lt, lm):
            for i, (a, b) in enumerate(zip(lt, lm, strict=False)):
                if not same(a, b):
                    break
            else:
                i = min(len(lt), len(lm))
                a = lt[i] if i < len(lt) else None
                b = lm[i] if i < len(lm) else None
            tag = a[0] if a else "END"
            key = (tag, a[1] if a and a[0] == "EXC" else "", b[0] if b else "END")
            rep.add(
                key, f"seed {seed} entry {i}", "torch: " + str(a)[:800], "mini:  " + str(b)[:800]
            )
    return rep.finish()


if __name__ == "__main__":
    H.main_guard(main)
