"""A seeded random sweep of the recurrent layers and cells against torch: nn.RNN (tanh, relu),
nn.LSTM (with proj_size), nn.GRU and RNNCell/LSTMCell/GRUCell over random sizes, layers, bias,
batch_first, bidirectional, unbatched inputs, given or default initial states and packed
sequences (pack_padded_sequence sorted or not, pad_packed_sequence with total_length and
padding_value, pack_sequence, pad_sequence on either side). Both libraries load the same state
dict; outputs, final states, the gradients of inputs, initial states and every weight, the state
dict's keys and the flat weights' order are compared, and for invalid inputs the exception's
type and message. Run as a script (`python -m tests.reference.test_s41_rnnfuzz_reference N SEED`)
it prints how many cases of a longer sweep match.

Counts (N=600, seeds 7 and 13): valid calls, float64 and float32, 1200/1200 each before and after
the fixes this sweep led to (other seeds: a float32 weight gradient summed over many steps may
differ by ~2e-5 of its scale); invalid inputs 557/600 and 555/600 before, 600/600 after (LSTM's
hx read as torch's forward reads it, with its kernel's errors; RNN/GRU and cells given a
non-Tensor hx; a packed LSTM's dtype and feature-size errors; meta lengths; the unsorted packing
order). Left out: a length above the padded length, a packed LSTM's states of the wrong size and
a cell's 2-D states for a 1-D input, which torch's kernels read unchecked (undefined behaviour,
some crash the process)."""

from __future__ import annotations

import random

import numpy as np
import pytest

from tests.reference._programs import Rec, record_diffs, run_program

torch = pytest.importorskip("torch")

LAYERS = ("RNN_TANH", "RNN_RELU", "LSTM", "GRU")
CELLS = ("RNNCell_tanh", "RNNCell_relu", "LSTMCell", "GRUCell")


# --- the cases: plain dicts drawn from a seeded generator ---


def _layer_case(r: random.Random) -> dict:
    mode = r.choice(LAYERS)
    hidden = r.randint(2, 6)
    case = dict(
        kind="layer",
        mode=mode,
        input_size=r.randint(1, 5),
        hidden_size=hidden,
        num_layers=r.randint(1, 3),
        bias=r.random() < 0.7,
        batch_first=r.random() < 0.5,
        bidirectional=r.random() < 0.5,
        proj_size=r.randint(1, hidden - 1) if mode == "LSTM" and r.random() < 0.4 else 0,
        seq=r.randint(1, 5),
        batch=r.randint(1, 4),
        given_state=r.random() < 0.5,
        form=r.choice(("batched", "batched", "unbatched", "packed", "packed", "pack_sequence")),
        enforce_sorted=r.random() < 0.5,
        total_extra=r.choice((None, 0, 2)),
        padding_value=r.choice((0.0, -1.5)),
        padding_side=r.choice(("right", "left")),
        seed=r.randrange(1 << 30),
    )
    case["lengths"] = [r.randint(1, case["seq"]) for _ in range(case["batch"])]
    case["lengths"][r.randrange(case["batch"])] = case["seq"]
    if case["enforce_sorted"]:
        case["lengths"].sort(reverse=True)
    return case


def _cell_case(r: random.Random) -> dict:
    return dict(
        kind="cell",
        mode=r.choice(CELLS),
        input_size=r.randint(1, 5),
        hidden_size=r.randint(1, 6),
        bias=r.random() < 0.7,
        batch=r.randint(1, 4),
        unbatched=r.random() < 0.3,
        given_state=r.random() < 0.6,
        seed=r.randrange(1 << 30),
    )


def cases(n: int, seed: int) -> list:
    r = random.Random(seed)
    return [_layer_case(r) if r.random() < 0.75 else _cell_case(r) for _ in range(n)]


# --- the program of a case, written once for both libraries ---


def _module(lib, case, dt):
    nn = lib.nn
    if case["kind"] == "cell":
        if case["mode"].startswith("RNNCell"):
            nl = case["mode"].split("_")[1]
            return nn.RNNCell(case["input_size"], case["hidden_size"], case["bias"], nl, dtype=dt)
        cls = getattr(nn, case["mode"])
        return cls(case["input_size"], case["hidden_size"], case["bias"], dtype=dt)
    kw = dict(
        num_layers=case["num_layers"],
        bias=case["bias"],
        batch_first=case["batch_first"],
        dropout=0.0,
        bidirectional=case["bidirectional"],
        dtype=dt,
    )
    args = (case["input_size"], case["hidden_size"])
    if case["mode"] == "LSTM":
        return nn.LSTM(*args, proj_size=case["proj_size"], **kw)
    if case["mode"] == "GRU":
        return nn.GRU(*args, **kw)
    nl = "tanh" if case["mode"] == "RNN_TANH" else "relu"
    return nn.RNN(*args, nonlinearity=nl, **kw)


def _load(lib, m, rng, dt):
    """The same weights in both libraries: a state dict drawn from NumPy."""
    sd = {
        k: lib.tensor(rng.uniform(-0.8, 0.8, tuple(v.shape)), dtype=dt)
        for k, v in m.state_dict().items()
    }
    m.load_state_dict(sd)


def _leaf(lib, rng, shape, dt):
    return lib.tensor(rng.standard_normal(shape), dtype=dt, requires_grad=True)


def _state_shapes(case):
    d = 2 if case["bidirectional"] else 1
    h = case["proj_size"] or case["hidden_size"]
    lead = (case["num_layers"] * d,)
    batch = () if case["form"] == "unbatched" else (case["batch"],)
    shapes = [lead + batch + (h,)]
    if case["mode"] == "LSTM":
        shapes.append(lead + batch + (case["hidden_size"],))
    return shapes


def _layer_inputs(lib, case, rng, dt, rec):
    """(module input, leaves whose grads are compared, how to read the output as a tensor)."""
    U = lib.nn.utils.rnn
    T, B, H = case["seq"], case["batch"], case["input_size"]
    form = case["form"]
    if form == "unbatched":
        x = _leaf(lib, rng, (T, H), dt)
        return x, [x], lambda out: out
    if form == "batched":
        shape = (B, T, H) if case["batch_first"] else (T, B, H)
        x = _leaf(lib, rng, shape, dt)
        return x, [x], lambda out: out
    lengths = case["lengths"]
    extra = case["total_extra"]
    total = None if extra is None else T + extra

    def unpack(out):
        padded, lens = U.pad_packed_sequence(
            out,
            batch_first=case["batch_first"],
            padding_value=case["padding_value"],
            total_length=total,
        )
        rec("lengths", lens)
        return padded

    if form == "pack_sequence":
        seqs = [_leaf(lib, rng, (n, H), dt) for n in lengths]
        padded = U.pad_sequence(
            seqs,
            batch_first=case["batch_first"],
            padding_value=case["padding_value"],
            padding_side=case["padding_side"],
        )
        rec("pad_sequence", padded)
        packed = U.pack_sequence(seqs, enforce_sorted=case["enforce_sorted"])
        return packed, seqs, unpack
    shape = (B, T, H) if case["batch_first"] else (T, B, H)
    x = _leaf(lib, rng, shape, dt)
    lens = lib.tensor(lengths) if rng.random() < 0.5 else list(lengths)
    packed = U.pack_padded_sequence(
        x, lens, batch_first=case["batch_first"], enforce_sorted=case["enforce_sorted"]
    )
    rec("batch_sizes", packed.batch_sizes)
    rec("sorted_indices", "None" if packed.sorted_indices is None else packed.sorted_indices)
    return packed, [x], unpack


def _program(case, dtype_name):
    def prog(lib, rec):
        dt = getattr(lib, dtype_name)
        rng = np.random.default_rng(case["seed"])
        m = _module(lib, case, dt)
        rec("keys", str(list(m.state_dict().keys())))
        _load(lib, m, rng, dt)
        if case["kind"] == "layer":
            rec("flat", str(list(m._flat_weights_names)))
            rec("all_weights", str([[tuple(w.shape) for w in ws] for ws in m.all_weights]))
            x, leaves, as_tensor = _layer_inputs(lib, case, rng, dt, rec)
            states = []
            if case["given_state"]:
                states = [_leaf(lib, rng, s, dt) for s in _state_shapes(case)]
            hx = None if not states else states[0] if len(states) == 1 else tuple(states)
            out, hn = m(x) if hx is None else m(x, hx)
            outs = [as_tensor(out), *(hn if isinstance(hn, tuple) else (hn,))]
        else:
            shape = (
                (case["input_size"],) if case["unbatched"] else (case["batch"], case["input_size"])
            )
            x = _leaf(lib, rng, shape, dt)
            leaves = [x]
            hshape = shape[:-1] + (case["hidden_size"],)
            states = []
            if case["given_state"]:
                n = 2 if case["mode"] == "LSTMCell" else 1
                states = [_leaf(lib, rng, hshape, dt) for _ in range(n)]
            hx = None if not states else states[0] if len(states) == 1 else tuple(states)
            out = m(x) if hx is None else m(x, hx)
            outs = list(out) if isinstance(out, tuple) else [out]
        loss = 0
        for i, o in enumerate(outs):
            rec(f"out{i}", o)
            loss = loss + (o * lib.tensor(rng.standard_normal(tuple(o.shape)), dtype=dt)).sum()
        loss.backward()
        for i, leaf in enumerate(leaves + states):
            rec(f"grad{i}", leaf.grad if leaf.grad is not None else "None")
        for name, p in m.named_parameters():
            rec("grad." + name, p.grad if p.grad is not None else "None")

    return prog


def case_diffs(case, dtype_name="float64"):
    import minitorch

    tol = 1e-10 if dtype_name == "float64" else 1e-5
    prog = _program(case, dtype_name)
    want = run_program(prog, torch, rec=Rec())
    got = run_program(prog, minitorch, rec=Rec())
    return record_diffs(want, got, tol, rename=True)


# --- invalid inputs: one fault in an otherwise valid call; the error's type and message ---

FAULTS_LAYER = (
    "input_size",
    "input_rank",
    "hx_shape",
    "hx_dtype",
    "hx_rank",
    "input_dtype",
    "unsorted",
    "lengths_float",
    "lengths_int32",
    "lengths_2d",
    "lengths_meta",
    "lengths_zero",
    "lengths_count",
    "total_length",
    "hx_form",
    "cx_shape",
    "empty_seq",
    "unsorted_sequences",
    "cx_dtype",
    "pad_trailing",
    "padding_side",
)
FAULTS_CELL = (
    "input_size",
    "input_rank",
    "hx_batch",
    "hx_hidden",
    "hx_dtype",
    "hx_rank",
    "hx_form",
    "input_dtype",
    "cx_dtype",
)
# The forms of a wrong hx: a stacked Tensor, a tuple of 1 or 3, a list, a None inside, an int.
HX_FORMS = ("stacked", "one", "three", "list", "none", "int")
# Left out: a length above the padded length (torch packs reading past its data, undefined) and
# a packed LSTM's states of the wrong size, a cell's 2-D states for a 1-D input (torch's kernels
# read them unchecked; some crash the process).


def fault_cases(n: int, seed: int) -> list:
    r = random.Random(seed)
    out = []
    while len(out) < n:
        if r.random() < 0.75:
            case = _layer_case(r)
            case["fault"] = r.choice(FAULTS_LAYER)
            packed = case["fault"].startswith(("unsorted", "lengths", "total"))
            if packed:
                case["form"] = "packed"
            if case["fault"] in ("cx_shape", "cx_dtype"):
                case["mode"] = "LSTM"
            if case["fault"].startswith(("hx", "cx")):
                case["given_state"] = True
            lstm_sizes = case["fault"] in ("hx_shape", "cx_shape", "hx_rank")
            if lstm_sizes and case["mode"] == "LSTM" and case["form"] == "packed":
                continue
            if case["fault"] == "hx_form" and case["form"] == "packed" and case["proj_size"]:
                continue  # (the wrong forms repeat h, of another size than c)
            ranked = case["fault"] == "input_rank" and case["mode"] == "LSTM"
            if ranked and case["form"] == "packed" and case["input_size"] == 1:
                continue  # (packed rows (N, 1, 1): torch fails deep in its kernel)
            if case["fault"].startswith("unsorted"):
                if len(set(case["lengths"])) < 2:
                    continue
                case["enforce_sorted"] = True
                case["lengths"].sort()
        else:
            case = _cell_case(r)
            case["fault"] = r.choice(FAULTS_CELL)
            if case["fault"].startswith("hx"):
                case["given_state"] = True
            if case["fault"] in ("hx_batch", "hx_rank") and case["unbatched"]:
                continue  # (a 2-D state of a 1-D input: see the note above FAULTS_LAYER)
        case["hx_form"] = r.choice(HX_FORMS)
        out.append(case)
    return out


def _wrong_hx(lib, form, states):
    h = states[0]
    if form == "stacked":
        return lib.stack([h, h])
    if form == "one":
        return (h,)
    if form == "three":
        return (h, h, h)
    if form == "list":
        return list(states)
    if form == "none":
        return (h, None)
    return 3


def _fault_program(case, dtype_name="float64"):
    def prog(lib, rec):
        dt = getattr(lib, dtype_name)
        other = lib.float32 if dtype_name == "float64" else lib.float64
        rng = np.random.default_rng(case["seed"])
        m = _module(lib, case, dt)
        fault = case["fault"]
        U = lib.nn.utils.rnn
        if case["kind"] == "cell":
            B, H, Hh = case["batch"], case["input_size"], case["hidden_size"]
            xs = (H,) if case["unbatched"] else (B, H)
            hs = xs[:-1] + (Hh,)
            if fault == "input_size":
                xs = xs[:-1] + (H + 1,)
            if fault == "input_rank":
                xs = (1,) + (B,) + (H,)
            if fault == "hx_batch":
                hs = (B + 1, Hh)
            if fault == "hx_hidden":
                hs = hs[:-1] + (Hh + 1,)
            if fault == "hx_rank":
                hs = (1,) + hs
            x = lib.tensor(rng.standard_normal(xs), dtype=other if fault == "input_dtype" else dt)
            hdt = other if fault == "hx_dtype" else dt
            states = [lib.tensor(rng.standard_normal(hs), dtype=hdt)]
            if case["mode"] == "LSTMCell":
                cdt = other if fault == "cx_dtype" else dt
                states.append(lib.tensor(rng.standard_normal(hs), dtype=cdt))
            hx = states[0] if len(states) == 1 else tuple(states)
            if fault == "hx_form":
                hx = _wrong_hx(lib, case["hx_form"], states)
            rec.err("call", lambda: m(x, hx))
            return
        T, B, H = case["seq"], case["batch"], case["input_size"]
        if fault == "empty_seq":
            T = 0
        form = case["form"]
        xs = (T, H) if form == "unbatched" else (B, T, H) if case["batch_first"] else (T, B, H)
        if fault == "input_size":
            xs = xs[:-1] + (H + 2,)
        if fault == "input_rank":
            xs = xs + (1,) if rng.random() < 0.5 else xs[-1:]
        xdt = other if fault == "input_dtype" else dt
        x = lib.tensor(rng.standard_normal(xs), dtype=xdt)
        shapes = _state_shapes(case)
        if fault == "hx_shape":
            k = int(rng.integers(len(shapes[0])))
            shapes[0] = tuple(s + (1 if j == k else 0) for j, s in enumerate(shapes[0]))
        if fault == "cx_shape":
            shapes[1] = shapes[1][:-1] + (shapes[1][-1] + 1,)
        if fault == "hx_rank":
            shapes[0] = shapes[0][1:] if rng.random() < 0.5 else (1,) + shapes[0]
        states = []
        if case["given_state"]:
            states = [lib.tensor(rng.standard_normal(s), dtype=dt) for s in shapes]
            if fault == "hx_dtype":
                states[0] = states[0].to(other)
            if fault == "cx_dtype":
                states[1] = states[1].to(other)
        if fault == "hx_form":
            hx = _wrong_hx(lib, case["hx_form"], states)
        else:
            hx = None if not states else states[0] if len(states) == 1 else tuple(states)
        if fault in ("pad_trailing", "padding_side"):
            n = len(case["lengths"])
            seqs = [
                lib.zeros(k, H + (i == n - 1 and fault == "pad_trailing"))
                for i, k in enumerate(case["lengths"])
            ]
            side = "middle" if fault == "padding_side" else "right"
            rec.err("pad", lambda: U.pad_sequence(seqs, padding_side=side))
            return
        if fault == "unsorted_sequences":
            seqs = [lib.tensor(rng.standard_normal((n, H)), dtype=dt) for n in case["lengths"]]
            rec.err("pack", lambda: U.pack_sequence(seqs, enforce_sorted=True))
            return
        if form == "packed":
            lengths = list(case["lengths"])
            lens = lib.tensor(lengths)
            if fault == "lengths_float":
                lens = lens.to(lib.float32)
            elif fault == "lengths_int32":
                lens = lens.to(lib.int32)
            elif fault == "lengths_2d":
                lens = lens[None]
            elif fault == "lengths_meta":
                lens = lens.to("meta")
            elif fault == "lengths_zero":
                lens[-1 if case["enforce_sorted"] else 0] = 0
            elif fault == "lengths_count":
                lens = lib.cat([lens, lens[-1:]])
            packed = rec.err(
                "pack",
                lambda: U.pack_padded_sequence(
                    x, lens, batch_first=case["batch_first"], enforce_sorted=case["enforce_sorted"]
                ),
            )
            if packed is None:
                return
            rec("batch_sizes", packed.batch_sizes)
            out = rec.err("call", lambda: m(packed) if hx is None else m(packed, hx))
            if out is not None:
                total = T - 1 if fault == "total_length" else None
                rec.err(
                    "pad",
                    lambda: U.pad_packed_sequence(
                        out[0], batch_first=case["batch_first"], total_length=total
                    ),
                )
            return
        rec.err("call", lambda: m(x) if hx is None else m(x, hx))

    return prog


def fault_diffs(case, dtype_name="float64"):
    import minitorch

    prog = _fault_program(case, dtype_name)
    want = run_program(prog, torch, rec=Rec())
    got = run_program(prog, minitorch, rec=Rec())
    return record_diffs(want, got, 1e-10, rename=True)


SWEEP = cases(150, 41)
FAULTS = fault_cases(300, 41)


@pytest.mark.parametrize("i", range(len(SWEEP)))
def test_sweep_float64(i):
    diffs = case_diffs(SWEEP[i])
    assert not diffs, f"{SWEEP[i]}\n" + "\n".join(diffs[:8])


@pytest.mark.parametrize("i", range(0, len(SWEEP), 3))
def test_sweep_float32(i):
    diffs = case_diffs(SWEEP[i], "float32")
    assert not diffs, f"{SWEEP[i]}\n" + "\n".join(diffs[:8])


@pytest.mark.parametrize("i", range(0, len(FAULTS), 10))
def test_invalid_inputs(i):
    bad = [(c, d) for c in FAULTS[i : i + 10] if (d := fault_diffs(c))]
    assert not bad, "\n".join(f"{c}\n" + "\n".join(d[:4]) for c, d in bad)


def _unchecked_in_float32(case) -> bool:
    """A packed float32 LSTM of the wrong feature size: torch's oneDNN kernel runs it unchecked
    when the lengths are equal (undefined), so it is compared in float64 only."""
    packed_lstm = case["mode"] == "LSTM" and case["form"] == "packed"
    return packed_lstm and case["fault"] in ("input_size", "input_rank")


@pytest.mark.parametrize("i", range(0, len(FAULTS), 30))
def test_invalid_inputs_float32(i):
    run = [c for c in FAULTS[i : i + 10] if not _unchecked_in_float32(c)]
    bad = [(c, d) for c in run if (d := fault_diffs(c, "float32"))]
    assert not bad, "\n".join(f"{c}\n" + "\n".join(d[:4]) for c, d in bad)


def test_sweeps_cover_every_fault_and_form():
    """The drawn cases reach every fault, layer, cell and input form."""
    assert {c["fault"] for c in FAULTS} == set(FAULTS_LAYER) | set(FAULTS_CELL)
    assert {c["mode"] for c in SWEEP} == set(LAYERS) | set(CELLS)
    layers = [c for c in SWEEP if c["kind"] == "layer"]
    assert {c["form"] for c in layers} == {"batched", "unbatched", "packed", "pack_sequence"}
    assert any(c["proj_size"] for c in layers) and any(c["bidirectional"] for c in layers)
    assert {c["enforce_sorted"] for c in layers if c["form"] == "packed"} == {True, False}
    assert {c["hx_form"] for c in FAULTS if c["fault"] == "hx_form"} == set(HX_FORMS)


if __name__ == "__main__":
    import sys

    n = int(sys.argv[1]) if len(sys.argv) > 1 else 400
    seed = int(sys.argv[2]) if len(sys.argv) > 2 else 7
    bad = 0
    for dtn in ("float64", "float32"):
        for c in cases(n, seed):
            try:
                d = case_diffs(c, dtn)
            except Exception as e:  # noqa: BLE001
                d = [f"raised {type(e).__name__}: {e}"]
            if d:
                bad += 1
                print(dtn, c, "\n   ", "\n    ".join(d[:4]))
    print(f"valid: {2 * n - bad} / {2 * n} match")
    bad = 0
    for c in fault_cases(n, seed):
        try:
            d = fault_diffs(c)
        except Exception as e:  # noqa: BLE001
            d = [f"raised {type(e).__name__}: {e}"]
        if d:
            bad += 1
            print(c["fault"], c, "\n   ", "\n    ".join(d[:4]))
    print(f"invalid: {n - bad} / {n} match")
