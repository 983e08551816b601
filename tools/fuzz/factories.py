"""Differential fuzzer: tensor factories, conversions and dtypes.

Code strings (tensor/as_tensor/asarray from nested lists and NumPy arrays/scalars, lists of
tensors, zeros/ones/full/empty(_like), arange/linspace/logspace, eye/tril_indices, to()/type()/
.double()..., item/tolist/int/float, new_*, randint, default dtype) run under torch and minitorch;
the result's dtype, shape, strides, requires_grad, bitwise values, warnings and exceptions are
compared. Adapted from session 22's h7 fuzzer (gen.py, harness.py).
"""

import math
import random
import warnings

import _harness as H
import numpy as np
from _harness import minitorch, torch

# ----------------------------------------------------------------------

# Differential harness: run code strings under torch and minitorch, compare.


def canon(x, mod, depth=0):
    if isinstance(x, mod.Tensor):
        dt = str(x.dtype).replace("minitorch.", "torch.")
        try:
            st = tuple(x.stride())
        except Exception as e:  # noqa: BLE001
            st = ("stride-err", type(e).__name__)
        d = x.detach()
        if d.dtype == mod.bfloat16:
            d = d.float()
        if d.dtype == mod.float16:
            a = d.numpy()
        else:
            a = d.numpy()
        a = np.ascontiguousarray(a)
        if a.dtype.kind == "f":
            nanmask = np.isnan(a)
            b = a.copy()
            b[nanmask] = np.nan
            vals = (b.tobytes(), nanmask.tobytes())
        else:
            vals = a.tobytes()
        return ("T", dt, tuple(x.shape), st, bool(x.requires_grad), vals)
    if isinstance(x, (list, tuple)):
        return (type(x).__name__, tuple(canon(v, mod, depth + 1) for v in x))
    if isinstance(x, mod.dtype):
        return ("dtype", str(x).replace("minitorch.", "torch."))
    if isinstance(x, mod.Size):
        return ("Size", tuple(x))
    if isinstance(x, float):
        return ("float", "nan" if math.isnan(x) else repr(x))
    if isinstance(x, np.ndarray):
        return ("nd", str(x.dtype), x.shape, x.strides, x.tobytes())
    if isinstance(x, (bool, int, complex, str, type(None))):
        if isinstance(x, str):
            x = x.replace("minitorch", "torch")
        return (type(x).__name__, repr(x))
    if isinstance(x, np.generic):
        return ("npscalar", type(x).__name__, repr(x))
    return ("other", type(x).__name__)


def run(code, mod, setup=None):
    g = {"T": mod, "np": np, "math": math, "r": None}
    old_dd = mod.get_default_dtype()
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        try:
            exec(code, g)
            out = ("ok", canon(g["r"], mod))
        except Exception as e:  # noqa: BLE001
            msg = str(e).replace("minitorch", "torch")
            out = ("exc", type(e).__name__, msg.strip().splitlines()[0] if msg.strip() else "")
        finally:
            mod.set_default_dtype(old_dd)
    ws = tuple(
        (c.category.__name__, str(c.message).replace("minitorch", "torch").splitlines()[0][:120])
        for c in w
    )
    return out, ws


def compare(code):
    t = run(code, torch)
    m = run(code, minitorch)
    return t, m


def classify(t, m):
    (to, tw), (mo, mw) = t, m
    if to[0] == "ok" and mo[0] == "ok":
        if to == mo:
            return None if tw == mw else "warn"
        a, b = to[1], mo[1]
        return "value:" + diffkind(a, b)
    if to[0] == "exc" and mo[0] == "exc":
        if to[1] != mo[1]:
            return "exc-type"
        if to[2] != mo[2]:
            return "exc-msg"
        return None if tw == mw else "warn"
    if to[0] == "exc":
        return "missing-error"
    return "spurious-error"


def diffkind(a, b):
    if type(a) is not type(b) or len(a) != len(b):
        return "structure"
    if a[0] == "T" and b[0] == "T":
        for i, k in ((1, "dtype"), (2, "shape"), (5, "values"), (3, "stride"), (4, "rg")):
            if a[i] != b[i]:
                return k
        return "?"
    if a[0] in ("list", "tuple") and a[0] == b[0]:
        for x, y in zip(a[1], b[1], strict=False):
            if x != y:
                return diffkind(x, y) if isinstance(x, tuple) else "scalar"
    return a[0] if a != b else "?"


# ----------------------------------------------------------------------

# Case generators: yield code strings that set r.

DT = [
    "float32",
    "float64",
    "float16",
    "bfloat16",
    "int64",
    "int32",
    "int16",
    "int8",
    "uint8",
    "bool",
]
NPDT = [
    "float32",
    "float64",
    "float16",
    "int64",
    "int32",
    "int16",
    "int8",
    "uint8",
    "bool",
    "uint16",
    "uint32",
    "uint64",
    ">f4",
    ">i8",
    ">f8",
    "<i4",
    ">i2",
]
SPECIAL = [
    "float('nan')",
    "float('inf')",
    "-float('inf')",
    "1e10",
    "-1e10",
    "3.7",
    "-3.7",
    "0.5",
    "-0.5",
    "2.5",
    "255.9",
    "256.0",
    "-129.0",
    "128.0",
    "70000.0",
    "1e300",
    "-0.0",
    "2147483648.0",
    "-2147483649.0",
    "9.3e18",
    "-9.3e18",
    "65504.0",
    "65520.0",
    "1e-8",
    "300",
    "-300",
    "2**40",
    "-2**40",
    "127",
    "-128",
    "True",
    "False",
    "0",
    "1",
    "-1",
]


def scalar(rng):
    k = rng.random()
    if k < 0.3:
        return str(rng.randint(-5, 5))
    if k < 0.55:
        return repr(round(rng.uniform(-5, 5), rng.choice([0, 1, 3])))
    if k < 0.7:
        return rng.choice(["True", "False"])
    return rng.choice(SPECIAL)


def nested(rng, depth, shape=None):
    if shape is None:
        nd = rng.randint(0, 3)
        shape = [rng.randint(0, 3) for _ in range(nd)]
    if not shape:
        return scalar(rng)
    seq = rng.choice(["[", "("])
    close = "]" if seq == "[" else ")"
    items = [nested(rng, depth + 1, shape[1:]) for _ in range(shape[0])]
    if seq == "(" and len(items) == 1:
        return "(" + items[0] + ",)"
    return seq + ", ".join(items) + close


def dt(rng, none=0.4):
    return "None" if rng.random() < none else "T." + rng.choice(DT)


def g_tensor(rng):
    data = nested(rng, 0)
    if rng.random() < 0.1:  # ragged
        data = "[[1, 2], [3]]" if rng.random() < 0.5 else "[[1, 2], 3]"
    if rng.random() < 0.05:
        data = rng.choice(
            [
                "[2**63]",
                "[-2**63-1]",
                "2**64",
                "[1, 2**70]",
                "[[1], [2**63-1]]",
                "[-2**63]",
                "[1.0, 2**65]",
            ]
        )
    fn = rng.choice(["tensor", "as_tensor", "asarray"])
    extra = ""
    if rng.random() < 0.5:
        extra += f", dtype={dt(rng, 0)}"
    if fn != "as_tensor" and rng.random() < 0.2:
        extra += ", requires_grad=True"
    pre = ""
    if rng.random() < 0.25:
        pre = f"T.set_default_dtype(T.{rng.choice(['float64', 'float16', 'bfloat16'])})\n"
    return f"{pre}r = T.{fn}({data}{extra})"


def ndarray(rng):
    npdt = rng.choice(NPDT)
    nd = rng.randint(0, 3)
    shape = tuple(rng.randint(0, 3) for _ in range(nd))
    vals = rng.choice(
        [
            "np.arange({n}) - 2",
            "np.linspace(-3, 3, {n})",
            "np.ones({n})",
            "np.array([0.5, -1.5, 300, -7, 2.5, 1e5][:{n}] + [0]*max(0, {n}-6))",
        ]
    )
    n = 1
    for s in shape:
        n *= s
    code = f"np.asarray({vals.format(n=n)}).astype('{npdt}').reshape({shape})"
    k = rng.random()
    if k < 0.15 and nd >= 2:
        code += ".T"
    elif k < 0.25 and nd >= 1:
        code += "[::-1]"
    elif k < 0.35 and nd >= 1:
        code += "[::2]"
    return code


def g_numpy(rng):
    a = ndarray(rng)
    fn = rng.choice(["tensor", "as_tensor", "asarray", "from_numpy", "from_numpy"])
    extra = ""
    if fn != "from_numpy" and rng.random() < 0.4:
        extra += f", dtype={dt(rng, 0)}"
    if fn == "asarray" and rng.random() < 0.4:
        extra += f", copy={rng.choice(['True', 'False', 'None'])}"
    pre = f"a = {a}\n"
    if rng.random() < 0.15:
        pre += "a.flags.writeable = False\n"
    alias = ""
    if rng.random() < 0.5:
        alias = (
            "\nsame = (t.numel() > 0 and a.size > 0 and np.shares_memory(t.numpy(), a))"
            if True
            else ""
        )
        return pre + f"t = T.{fn}(a{extra}){alias}\nr = (t, same)"
    return pre + f"r = T.{fn}(a{extra})"


def g_npscalar(rng):
    npdt = rng.choice(NPDT[:12])
    v = rng.choice(["3", "-2", "0", "1", "2.5", "300"])
    kind = rng.random()
    if kind < 0.4:
        x = f"np.{np.dtype_name(npdt)}({v})" if False else f"np.array({v}).astype('{npdt}')[()]"
    elif kind < 0.7:
        x = f"np.array({v}).astype('{npdt}')"
    else:
        x = f"[np.array({v}).astype('{npdt}')[()], 1]"
    fn = rng.choice(["tensor", "as_tensor", "asarray"])
    extra = f", dtype={dt(rng, 0)}" if rng.random() < 0.3 else ""
    return f"r = T.{fn}({x}{extra})"


def g_list_of_tensors(rng):
    k = rng.random()
    d = rng.choice(DT)
    if k < 0.4:
        items = ", ".join(f"T.tensor({scalar(rng)}, dtype=T.{d})" for _ in range(rng.randint(1, 3)))
        x = f"[{items}]"
    elif k < 0.7:
        x = f"[T.tensor([1, 2], dtype=T.{d}), T.tensor([3, 4])]"
    elif k < 0.85:
        x = f"[T.tensor([1.5], dtype=T.{d}), 2]"
    else:
        x = f"[[T.tensor(1.5, dtype=T.{d}), 2], [3, T.tensor(True)]]"
    fn = rng.choice(["tensor", "as_tensor", "asarray"])
    extra = f", dtype={dt(rng, 0)}" if rng.random() < 0.3 else ""
    return f"r = T.{fn}({x}{extra})"


def g_fill(rng):
    fn = rng.choice(["zeros", "ones", "full", "empty", "full", "full"])
    shape = tuple(rng.randint(0, 3) for _ in range(rng.randint(0, 3)))
    if fn == "full":
        val = scalar(rng)
        if rng.random() < 0.1:
            val = rng.choice(
                [
                    "T.tensor(3)",
                    "T.tensor(2.5)",
                    "T.tensor([1.0])",
                    "2**63",
                    "np.float32(2.5)",
                    "np.int8(3)",
                    "np.bool_(True)",
                    "'a'",
                ]
            )
        args = f"{shape}, {val}"
    else:
        args = repr(shape) if rng.random() < 0.5 else ", ".join(map(str, shape))
    extra = f", dtype={dt(rng)}" if rng.random() < 0.5 else ""
    pre = ""
    if rng.random() < 0.2:
        pre = f"T.set_default_dtype(T.{rng.choice(['float64', 'float16'])})\n"
    if fn == "empty":
        return f"{pre}t = T.empty({args}{extra})\nr = (t.dtype, t.shape, t.stride())"
    return f"{pre}r = T.{fn}({args}{extra})"


def g_like(rng):
    fn = rng.choice(
        ["zeros_like", "ones_like", "empty_like", "full_like", "rand_like", "randint_like"]
    )
    src = rng.choice(
        [
            "T.ones(2, 3).t()",
            "T.ones(2, 3, 4).permute(2, 0, 1)",
            "T.ones(3, 4)[:, ::2]",
            "T.ones(2, 3, dtype=T.int32)",
            "T.ones(1, 3, 1, 2).permute(0, 3, 1, 2)",
            "T.ones(2, 3, 4, 5).permute(0, 2, 3, 1)",
            "T.ones(4)[::2]",
            "T.ones(2, 3).expand(4, 2, 3)",
            "T.ones(2, 1, 3)[:, :, ::2]",
            "T.tensor(True)",
            "T.ones(2, 3, requires_grad=True)",
        ]
    )
    args = ""
    if fn == "full_like":
        args = ", " + scalar(rng)
    if fn == "randint_like":
        args = ", 5"
    if rng.random() < 0.4:
        args += f", dtype={dt(rng, 0)}"
    if rng.random() < 0.4:
        args += ", memory_format=T." + rng.choice(
            ["preserve_format", "contiguous_format", "channels_last"]
        )
    if rng.random() < 0.2:
        args += ", requires_grad=True"
    if fn in ("empty_like", "rand_like", "randint_like"):
        return f"t = T.{fn}({src}{args})\nr = (t.dtype, t.shape, t.stride(), t.requires_grad)"
    return f"r = T.{fn}({src}{args})"


def num(rng):
    k = rng.random()
    if k < 0.5:
        return str(rng.randint(-6, 10))
    if k < 0.85:
        return repr(round(rng.uniform(-6, 10), rng.choice([1, 2, 3])))
    return rng.choice(
        [
            "0.1",
            "0.3",
            "1e-3",
            "2**40",
            "1/3",
            "True",
            "np.float32(0.1)",
            "T.tensor(2)",
            "T.tensor(0.5)",
            "np.int64(3)",
            "float('inf')",
            "float('nan')",
        ]
    )


def g_arange(rng):
    n = rng.randint(1, 3)
    args = [num(rng) for _ in range(n)]
    extra = f", dtype={dt(rng, 0.5)}" if rng.random() < 0.4 else ""
    pre = ""
    if rng.random() < 0.15:
        pre = "T.set_default_dtype(T.float64)\n"
    fn = rng.choice(["arange", "arange", "arange", "range"])
    if fn == "range":
        pre += "import warnings\n"
        if "dtype=T." in extra and "float" not in extra:
            extra = ""  # torch.range with an integer dtype and a fractional step hangs
    return f"{pre}r = T.{fn}({', '.join(args)}{extra})"


def g_linspace(rng):
    fn = rng.choice(["linspace", "logspace"])
    a, b = num(rng), num(rng)
    steps = rng.choice(["0", "1", "2", "5", "7", "-1", "3.0"])
    extra = ""
    if fn == "logspace" and rng.random() < 0.5:
        extra += f", base={rng.choice(['2', '2.5', '10', '0.5', '-2', '1'])}"
    if rng.random() < 0.5:
        extra += f", dtype={dt(rng, 0)}"
    return f"r = T.{fn}({a}, {b}, {steps}{extra})"


def g_eye_tri(rng):
    k = rng.random()
    if k < 0.4:
        n = rng.choice(["0", "1", "3", "-1", "2.0"])
        m = rng.choice(["", ", 0", ", 2", ", 5", ", -2"])
        extra = f", dtype={dt(rng, 0)}" if rng.random() < 0.4 else ""
        return f"r = T.eye({n}{m}{extra})"
    fn = rng.choice(["tril_indices", "triu_indices"])
    r_, c_ = rng.randint(0, 5), rng.randint(0, 5)
    off = rng.randint(-6, 6)
    extra = f", dtype={dt(rng, 0)}" if rng.random() < 0.3 else ""
    return f"r = T.{fn}({r_}, {c_}, {off}{extra})"


def g_to(rng):
    src_dt = rng.choice(DT)
    vals = ", ".join(rng.choice(SPECIAL) for _ in range(rng.randint(1, 6)))
    dst = rng.choice(DT)
    how = rng.random()
    pre = f"x = T.tensor([{vals}], dtype=T.float64).to(T.{src_dt})\n"
    if how < 0.5:
        conv = f"x.to(T.{dst})"
    elif how < 0.6:
        conv = f"x.type(T.{dst})"
    elif how < 0.7:
        conv = "x." + rng.choice(
            [
                "double()",
                "half()",
                "bfloat16()",
                "bool()",
                "float()",
                "int()",
                "long()",
                "short()",
                "char()",
                "byte()",
            ]
        )
    elif how < 0.8:
        names = [
            "FloatTensor",
            "DoubleTensor",
            "HalfTensor",
            "BFloat16Tensor",
            "LongTensor",
            "IntTensor",
            "ShortTensor",
            "CharTensor",
            "ByteTensor",
            "BoolTensor",
        ]
        conv = f"x.type('torch.{rng.choice(names)}')"
    elif how < 0.9:
        conv = f"x.to(dtype=T.{dst}, copy={rng.choice(['True', 'False'])})"
    else:
        return (
            pre + f"y = x.to(T.{dst}, copy={rng.choice(['True', 'False'])})\n"
            "r = (y, y is x, y.data_ptr() == x.data_ptr())"
        )
    return pre + f"r = {conv}"


def g_int_src(rng):
    src_dt = rng.choice(["int64", "int32", "int16", "int8", "uint8"])
    vals = ", ".join(
        str(
            rng.choice(
                [
                    0,
                    1,
                    -1,
                    127,
                    128,
                    -129,
                    255,
                    256,
                    32767,
                    32768,
                    -32769,
                    2**31,
                    -(2**31) - 1,
                    2**53 + 1,
                    2**62,
                    -(2**63),
                    2**63 - 1,
                    65505,
                    70000,
                    16777217,
                ]
            )
        )
        for _ in range(rng.randint(1, 5))
    )
    dst = rng.choice(DT)
    return f"x = T.tensor([{vals}]).to(T.{src_dt})\nr = x.to(T.{dst})"


def g_item(rng):
    shape = rng.choice(["()", "(1,)", "(1, 1)", "(2,)", "(0,)", "(2, 2)"])
    d = rng.choice(DT)
    val = rng.choice(
        ["2.7", "-2.7", "0", "1", "300", "1e10", "float('nan')", "float('inf')", "-0.0", "True"]
    )
    op = rng.choice(
        [
            "x.item()",
            "x.tolist()",
            "int(x)",
            "float(x)",
            "bool(x)",
            "x.__index__()",
            "complex(x)",
            "[1, 2, 3, 4][x]",
            "range(10)[x]",
            "x.numpy()",
            "np.asarray(x)",
            "x.requires_grad_().numpy()",
            "x.detach().requires_grad_().numpy(force=True)",
            "hex(x)",
            "operator.index(x)",
            "math.floor(x)",
            "round(x)",
            "abs(x)",
            "x.__float__()",
            "x.__int__()",
            "divmod(x, 2)",
            "math.trunc(x)",
        ]
    )
    pre = "import operator\n"
    if "requires_grad_" in op and d not in ("float32", "float64", "float16", "bfloat16"):
        d = "float32"
    return pre + f"x = T.full({shape}, {val}, dtype=T.float64).to(T.{d})\nr = {op}"


def g_new(rng):
    fn = rng.choice(["new_tensor", "new_zeros", "new_ones", "new_full", "new_empty", "new"])
    src = rng.choice(
        [
            "T.ones(2, dtype=T.int32)",
            "T.ones(2, dtype=T.float64)",
            "T.ones(2, dtype=T.float16)",
            "T.tensor([True])",
            "T.ones(2, requires_grad=True)",
        ]
    )
    if fn == "new_tensor":
        arg = rng.choice(
            [
                "[1, 2]",
                "[1.5, 2]",
                "[True]",
                "3",
                "2.5",
                "T.tensor([1, 2])",
                "np.array([1.5])",
                "[]",
            ]
        )
    elif fn == "new_full":
        arg = f"(2, 3), {scalar(rng)}"
    elif fn == "new":
        arg = rng.choice(["", "2, 3", "[1, 2]", "(2, 3)", "T.Size([2])"])
    else:
        arg = rng.choice(["(2, 3)", "2, 3", "()", "[2]", "T.Size([1, 2])"])
    extra = ""
    if fn != "new" and rng.random() < 0.3:
        extra = f", dtype={dt(rng, 0)}"
    if fn != "new" and rng.random() < 0.2:
        extra += ", requires_grad=True"
    if fn in ("new_empty", "new"):
        return (
            f"s = {src}\nt = s.{fn}({arg}{extra})\n"
            "r = (t.dtype, t.shape, t.stride(), t.requires_grad)"
        )
    return f"s = {src}\nr = s.{fn}({arg}{extra})"


def g_randint(rng):
    args = rng.choice(
        [
            "10, (3,)",
            "3, 10, (2, 2)",
            "0, 1, (0,)",
            "-5, 5, (3,)",
            "5, 3, (2,)",
            "10, (2,), dtype=T.float32",
            "10, (2,), dtype=T.uint8",
            "10, (2,), dtype=T.bool",
            "2, (3,), dtype=T.bool",
            "300, (2,), dtype=T.uint8",
            "-1, 5, (2,), dtype=T.uint8",
            "0, (2,)",
            "2**63, (2,)",
            "10, (2,), dtype=T.float16",
            "10.5, (2,)",
            "10, 3",
        ]
    )
    return f"T.manual_seed(0)\nt = T.randint({args})\nr = (t.dtype, t.shape, t.requires_grad)"


GENS = [
    g_tensor,
    g_numpy,
    g_npscalar,
    g_list_of_tensors,
    g_fill,
    g_like,
    g_arange,
    g_linspace,
    g_eye_tri,
    g_to,
    g_int_src,
    g_item,
    g_new,
    g_randint,
]


def cases(seed, n):
    rng = random.Random(seed)
    for i in range(n):
        g = GENS[i % len(GENS)]
        yield g.__name__, g(rng)


def g_to_sig(rng):
    src = rng.choice(
        [
            "T.ones(2, 3)",
            "T.ones(2, 3, dtype=T.float64, requires_grad=True)",
            "T.ones(2, 3).t()",
            "T.arange(6).view(2, 3)",
            "T.ones(1, 2, 2, 3)",
            "T.ones(2, 3, 4, 5).permute(0, 2, 3, 1)",
            "T.tensor(2.5)",
        ]
    )
    arg = rng.choice(
        [
            "T.float64",
            "T.float32",
            "'cpu'",
            "'cpu', T.float16",
            "T.device('cpu')",
            "dtype=T.int32",
            "device='cpu', dtype=T.float64",
            "T.ones(1, dtype=T.int8)",
            "T.float32, True",
            "T.float32, False, True",
            "T.float32, copy=True",
            "memory_format=T.channels_last",
            "T.float64, memory_format=T.contiguous_format",
            "T.float32, memory_format=T.preserve_format",
            "None",
            "'float'",
            "T.float32, T.float64",
            "dtype=T.float32, copy=True, memory_format=T.channels_last",
            "'cpu', non_blocking=True",
            "other=T.ones(1)",
            "T.ones(1, dtype=T.float64), copy=True",
            "'cpu', 'cpu'",
            "device=None",
            "T.float64, 'cpu'",
        ]
    )
    meth = rng.choice(["to", "to", "to", "type", "type_as", "double", "float", "new_tensor"])
    if meth == "to":
        call = f"x.to({arg})"
    elif meth == "type":
        call = (
            "x.type("
            + rng.choice(
                [
                    "",
                    "T.float64",
                    "'torch.IntTensor'",
                    "T.FloatTensor",
                    "'float'",
                    "T.int8, True",
                    "dtype=T.float64",
                    "'torch.DoubleTensor', non_blocking=True",
                    "T.DoubleTensor",
                ]
            )
            + ")"
        )
    elif meth == "type_as":
        call = "x.type_as(" + rng.choice(["T.ones(1, dtype=T.int8)", "x", "1", "T.ones(1)"]) + ")"
    elif meth == "new_tensor":
        call = "x.new_tensor(x)"
    else:
        call = (
            f"x.{meth}("
            + rng.choice(["", "memory_format=T.channels_last", "memory_format=T.preserve_format"])
            + ")"
        )
    return (
        f"x = {src}\ny = {call}\n"
        "r = (y, y is x, getattr(y, 'grad_fn', None).__class__.__name__ if not "
        "isinstance(y, str) else None, y.is_leaf if not isinstance(y, str) else None)"
    )


def g_default(rng):
    d = rng.choice(["float64", "float16", "bfloat16", "float32"])
    expr = rng.choice(
        [
            "T.tensor([1, 2.5])",
            "T.tensor(1.5)",
            "T.tensor([True, 1.0])",
            "T.tensor([])",
            "T.tensor([[]])",
            "T.zeros(2)",
            "T.ones(())",
            "T.full((2,), 1.5)",
            "T.full((2,), 1)",
            "T.arange(3.0)",
            "T.arange(3)",
            "T.linspace(0, 1, 3)",
            "T.eye(2)",
            "T.empty(2).dtype",
            "T.rand(2).dtype",
            "T.tensor(1e5)",
            "T.tensor(70000.0)",
            "T.tensor([1, 2]) / 2",
            "T.tensor(np.float32(1.5))",
            "T.tensor(np.array([1.5]))",
            "T.as_tensor([1.5])",
            "T.scalar_tensor(3)",
            "T.tensor([1e-8])",
            "T.full((1,), 1e39)",
            "T.tensor(1e39)",
            "T.zeros(2, dtype=None)",
            "T.tensor([T.tensor(1.5), 2.0])",
            "T.get_default_dtype()",
            "T.tensor(2**70 * 1.0)",
            "T.empty(0).is_floating_point()",
            "T.tensor([1, 2.5], requires_grad=True)",
            "T.randn(2).dtype",
            "T.ones(2).new_tensor([1.5])",
            "T.ones(2, dtype=T.int64).new_tensor([1.5])",
            "T.tensor(3).float().dtype",
            "T.promote_types(T.int64, T.float16)",
            "T.logspace(0, 1, 3)",
            "T.tensor(1) * 1.5",
            "T.tensor([1]) + 0.5",
        ]
    )
    return f"T.set_default_dtype(T.{d})\nr = {expr}"


def g_setdd(rng):
    arg = rng.choice(
        [
            "T.int64",
            "T.float64",
            "T.float16",
            "T.bfloat16",
            "T.bool",
            "'float64'",
            "np.float64",
            "float",
            "None",
            "T.uint8",
            "T.float32",
        ]
    )
    return f"T.set_default_dtype({arg})\nr = (T.get_default_dtype(), T.tensor([1.5]).dtype)"


GENS += [g_to_sig, g_default, g_setdd]


def main():
    args = H.cli(
        "factories",
        default_cases=20000,
        extra=lambda p: p.add_argument("--only", help="one generator, e.g. g_arange"),
    )
    rep = args.report
    cmp = H.limited(compare, args.timeout, lambda e: (("exc", "CaseTimeout", str(e)), ()))
    seen = set()
    for name, code in cases(args.seed, args.cases):
        if args.only and name != args.only:
            continue
        if code in seen:
            continue
        seen.add(code)
        rep.case()
        r = cmp(code)
        if len(r) == 2 and r[0][0] == "exc" and r[0][1] == "CaseTimeout":
            rep.add((name, "timeout"), "CODE: " + code.replace("\n", " ; "))
            continue
        t, m = r
        k = classify(t, m)
        if k:
            rep.add(
                (name, k),
                "CODE: " + code.replace("\n", " ; "),
                "TORCH: " + str(t)[:400],
                "MINI:  " + str(m)[:400],
            )
    return rep.finish()


if __name__ == "__main__":
    H.main_guard(main)
