"""einsum in torch's notation: one Function whose gradients are einsums again."""

from __future__ import annotations

from minitorch import _autocast_state as _autocast
from minitorch import _dtype
from minitorch._ops._common import cast, check_tensor_list, opmath_dtype, quiet, type_name
from minitorch._tensor import Tensor, _make
from minitorch.autograd.function import Function, name_node

__all__ = ["einsum"]


_LETTERS = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"


class Einsum(Function):
    """out = einsum(eq, *ops) (explicit output, no ellipsis, no letter repeated within a term);
    the gradient of each operand is the einsum of grad with the other operands onto that
    operand's subscripts"""

    _saves_views = True  # See NOTE [ Ops that save views ] (in _ops/linalg.py)

    @staticmethod
    def forward(ctx, *ops, eq):
        ctx.eq = eq
        ctx.shapes = [t._data.shape for t in ops]
        # See NOTE [ Einsum saves what the other gradients read ]
        needs = ctx.needs_input_grad
        n_needs = sum(needs)
        if n_needs == len(ops) > 1:  # each is read by another's gradient and kept whole
            ctx.save_for_backward(*ops)
        else:
            kept = [_kept(ctx, ops, k) if n_needs > needs[k] else None for k in range(len(ops))]
            ctx.save_for_backward(*kept)
        arrays = [t._data for t in ops]
        dt = arrays[0].dtype
        if opmath_dtype(dt):
            # half: NumPy's einsum refuses bfloat16; torch sums in float32 and rounds once
            arrays = [a.astype("float32") for a in arrays]
        if len(arrays) == 1:
            out = ctx.xp.einsum(eq, *arrays)
        else:
            # the contraction's products and sums run inside NumPy's einsumfunc module, whose
            # overflow warnings the filter for kernels (minitorch/__init__.py) does not reach
            with quiet(ctx.xp, over="ignore", invalid="ignore"):
                out = ctx.xp.einsum(eq, *arrays, optimize=True)
        if len(arrays) == 1:
            # a sum of one operand ('ijk->kj'; einsum() makes the ones without a sum views):
            # NumPy may hand back the input's dim order or an alias of it; torch's result is
            # new row-major memory
            return ctx.xp.array(out, dtype=dt, copy=True, order="C")
        # row-major, as torch's (NumPy's contraction may come out transposed: .view() failed)
        out = ctx.xp.asarray(out, dtype=dt)
        return out if out.flags.c_contiguous else ctx.xp.ascontiguousarray(out)

    @staticmethod
    def backward(ctx, grad):
        ops = ctx._stored_tensors
        lhs, out_subs = ctx.eq.split("->")
        terms = lhs.split(",")
        sizes = {}
        for shape, term in zip(ctx.shapes, terms, strict=True):
            sizes.update(zip(term, shape, strict=True))
        summed = getattr(ctx, "summed", None)
        if summed:  # operands kept with their own summed letters already summed out
            terms = [summed.get(k, term) for k, term in enumerate(terms)]
        grads = []
        for k in range(len(terms)):
            if not ctx.needs_input_grad[k]:
                grads.append(None)
                continue
            grads.append(_einsum_grad(grad, ops, terms, out_subs, k, sizes))
        return tuple(grads)


# NOTE [ Einsum saves what the other gradients read ]
# torch's einsum is a chain of pairwise products (mul/bmm) after summing out each operand's own
# letters (those in no other operand and not in the output), and each product saves an operand
# only for the other's gradient. So an operand that no other requested gradient reads is not
# saved, and changing it in place before backward is allowed (y = einsum('ij,j->i', A, x) with
# only A requiring grad keeps x, not A); an operand with letters of its own is saved only as its
# sum, new memory that an in-place change of the operand does not reach. minitorch keeps the
# same: operand k when another operand needs its gradient, as the sum over its own letters when
# it has some and needs no gradient itself (a constant, so double backward is unchanged).
# Differences from torch: with three or more operands torch's later products save the running
# product (new memory) instead of the earlier operands; minitorch keeps every operand another
# requested gradient reads, so an in-place change of an earlier operand can raise where torch's
# does not. An operand with letters of its own that needs its gradient is kept whole.


def _kept(ctx, ops, k):
    """What Einsum keeps of ops[k] for the other operands' gradients: the operand, or, when it
    has letters of its own and needs no gradient, its sum over them (recorded in ctx.summed)."""
    t = ops[k]
    if ctx.needs_input_grad[k]:
        return t
    lhs, out = ctx.eq.split("->")
    terms = lhs.split(",")
    others = out + "".join(term for j, term in enumerate(terms) if j != k)
    term = terms[k]
    if all(c in others for c in term):
        return t
    keep = "".join(dict.fromkeys(c for c in term if c in others))
    data = t._data
    dt = data.dtype
    if opmath_dtype(dt):  # half: NumPy's einsum refuses bfloat16; summed in float32
        data = data.astype("float32")
    summed = ctx.xp.asarray(ctx.xp.einsum(f"{term}->{keep}", data), dtype=dt)
    if getattr(ctx, "summed", None) is None:
        ctx.summed = {}
    ctx.summed[k] = keep
    return _make(summed, t._device, False, None)


def _einsum_grad(grad, ops, terms, out_subs, k, sizes):
    """d out / d ops[k] contracted with grad, as one more einsum (ones fill in the letters only
    ops[k] has: they were summed inside it)."""
    xp = grad._device.backend.xp
    dt = grad._data.dtype
    subs = [out_subs] + [t for j, t in enumerate(terms) if j != k]
    inputs = [grad] + [t for j, t in enumerate(ops) if j != k]
    present = set("".join(subs))
    for c in terms[k]:
        if c not in present:
            subs.append(c)
            inputs.append(_make(xp.ones(sizes[c], dtype=dt), grad._device, False, None))
    return Einsum.apply(*inputs, eq=",".join(subs) + "->" + terms[k])


def _sublist(dims) -> str:
    """A sublist ([0, 1], [Ellipsis, 2]) as equation letters: 0-25 are A-Z, 26-51 a-z, as torch
    maps them (so an implicit output, in label order, lists them in number order)."""
    out = []
    for d in dims:
        if d is Ellipsis:
            out.append("...")
            continue
        # torch's order: the range comparisons first (a str's TypeError, a tensor's bool error,
        # a float out of range's ValueError), then chr (a float's TypeError in range)
        if d >= 0 and d < 26:
            out.append(chr(ord("A") + d))
        elif d >= 26 and d < 52:
            out.append(chr(ord("a") + d - 26))
        else:
            raise ValueError(
                "einsum(): subscript in subscript list is not within the valid range [0, 52)"
            )
    return "".join(out)


def _from_sublists(args):
    """(equation, operands) of einsum(op1, sublist1, op2, sublist2, ..., [out sublist])."""
    operands = args[0::2][: len(args) // 2]
    terms = [_sublist(s) for s in args[1::2][: len(operands)]]
    eq = ",".join(terms)
    if len(args) % 2:  # a trailing output sublist
        eq += "->" + _sublist(args[-1])
    return eq, tuple(operands)


_NO_OPERANDS = (
    "einsum(): must specify the equation string and at least one operand, or at least one "
    "operand and its subscripts list"
)
_LHS_CHARS = frozenset(_LETTERS + ".,")
_RHS_CHARS = frozenset(_LETTERS + ".")


def _einsum_args(args):
    """(equation, operands) of einsum's arguments, with torch's errors for what its argument
    parser refuses (no operand, a non-str equation, an operand that is not a Tensor)."""
    if len(args) < 2:
        raise ValueError(_NO_OPERANDS)
    if isinstance(args[0], Tensor):  # the sublist form: op1, [0, 1], op2, [1, 2], [0, 2]
        equation, operands = _from_sublists(args)
    else:
        equation, operands = args[0], args[1:]
        if len(operands) == 1 and isinstance(operands[0], (list, tuple)):
            return _einsum_args((equation, *operands[0]))  # the old form: one list of operands
        if isinstance(equation, bytes):  # (torch's argument parser reads bytes as a str)
            equation = equation.decode()
        elif not isinstance(equation, str):
            raise TypeError(
                f"einsum(): argument 'equation' (position 1) must be str, not {type_name(equation)}"
            )
    check_tensor_list(operands, 1)
    return equation, operands


def einsum(*args):
    """Einstein summation in torch's notation (implicit output, `...`, size-1 broadcasting).
    Mirrors torch.einsum: einsum(equation, *operands), einsum(equation, [operands]) or the
    sublist form einsum(op1, sublist1, ..., [out sublist]).

    One operand without a sum ('ij->ji', 'ii->i') gives a view of it, as torch's does.
    Differences from torch: with operands of different dtypes, each is cast to the result dtype
    before any sum, where torch sums an operand's own letters in its dtype first (an integer one
    in int64): the same values up to rounding.
    """
    if len(args) == 2 and args[0].__class__ is str and isinstance(args[1], Tensor):
        equation, operands = args  # the common call, one operand: no parsing of the arguments
        operands = (operands,)
    else:
        equation, operands = _einsum_args(args)
    if _autocast.state.any_enabled:
        return _autocast.call(einsum, _autocast.EINSUM, (equation, *operands))
    key = None
    for t in operands:  # plain tensors only: a subclass may show other shapes than its array's
        if t.__class__ is not Tensor:
            break
    else:
        key = (equation, *[(t._data.shape, t._data.dtype) for t in operands])
        plan = _PLANS.get(key)
        if plan is not None:  # NOTE [ Einsum's plans ]
            if plan[0] is None:  # a permutation of the one operand
                return name_node(operands[0].permute(plan[1]), "PermuteBackward0")
            return name_node(Einsum.apply(*operands, eq=plan[0]), plan[1])
    given = operands
    # (the arrow is found before spaces go: torch's parser reads "- >" as two bad subscripts)
    lhs, arrow, rhs = equation.partition("->")
    eq = equation
    if " " in equation:
        eq, lhs, rhs = equation.replace(" ", ""), lhs.replace(" ", ""), rhs.replace(" ", "")
    terms = lhs.split(",")
    # One set test per side in the common case; torch's error, in its order, only on failure.
    if (
        len(terms) != len(operands)
        or not _LHS_CHARS.issuperset(lhs)
        or (arrow and not _RHS_CHARS.issuperset(rhs))
    ):
        _equation_error(equation, operands)
    if "." in eq:
        _check_dots(terms, rhs if arrow else None)
    # Ellipsis dims get letters of their own, aligned from the right across operands.
    used = set(eq)
    spare = [c for c in _LETTERS if c not in used]
    n_ell = 0
    for k, (term, t) in enumerate(zip(terms, operands, strict=False)):
        n_letters = len(term.replace("...", ""))
        if n_letters != t.ndim and ("..." not in term or n_letters > t.ndim):
            _ndim_error(k, term, t)
        n_ell = max(n_ell, t.ndim - n_letters)
    ell = "".join(spare[:n_ell])
    terms = [
        term.replace("...", ell[n_ell - (t.ndim - len(term.replace("...", ""))) :])
        for term, t in zip(terms, operands, strict=False)
    ]
    if arrow:
        out = rhs.replace("...", ell)
        for c in out:
            if out.count(c) > 1:
                raise RuntimeError(
                    f"einsum(): output subscript {c} appears more than once in the output"
                )
            if not any(c in term for term in terms):
                raise RuntimeError(
                    f"einsum(): output subscript {c} does not appear in the "
                    "equation for any input operand"
                )
    else:
        joined = "".join(terms)
        once = sorted(c for c in set(joined) if joined.count(c) == 1 and c not in ell)
        out = ell + "".join(once)
    for term in terms:  # (a loop, not any(): this runs on every call)
        if len(set(term)) != len(term):  # a letter repeated within an operand: its diagonal
            terms, operands = _diagonals(terms, operands)
            break
    if len(terms) == 1 and len(terms[0]) == len(out):
        # nothing summed: torch's result is a view of the operand, its dims permuted
        dims = [terms[0].index(c) for c in out]
        if key is not None and operands[0] is given[0]:  # (not a diagonal)
            _keep_plan(key, (None, dims))
        return name_node(operands[0].permute(dims), "PermuteBackward0")
    terms, operands = _einsum_broadcast(terms, operands, ell)
    dt = operands[0].dtype
    if not dt.is_floating_point or any(t.dtype is not dt for t in operands):
        # rare: integer, bool or mixed operands follow torch's pairwise plan
        dt = _plan_dtype(terms, operands, out, ell)
        operands = [cast(t, dt) for t in operands]
    eq = ",".join(terms) + "->" + out
    name = _torch_node_name(terms, out)
    if key is not None and all(t is g for t, g in zip(operands, given, strict=True)):
        _keep_plan(key, (eq, name))  # (the operands as given: no diagonal, reshape or cast)
    return name_node(Einsum.apply(*operands, eq=eq), name)


def _keep_plan(key, plan):
    if len(_PLANS) >= _MAX_PLANS:
        _PLANS.clear()
    _PLANS[key] = plan


# NOTE [ Einsum's plans ]
# einsum's reading of its equation (terms, ellipsis letters, the implicit output, torch's
# checks, the node's name) depends on the equation and the operands' shapes and dtypes only,
# and costs more than the contraction of small operands (einsum('ij,kj->ik') of two (3, 4):
# ~27 of ~40 us). So the einsums of plain tensors (a subclass may show other shapes than its
# array's) that end in one Einsum of the operands as given (no diagonal view, no size-1 dim
# dropped, no cast), or in a permutation of the one operand, keep their equation and node name
# (or the permutation) under that key (the arrays' dtypes: one each per minitorch dtype), and a
# later call with the same key goes straight to Einsum.apply or permute (einsum('ij,kj->ik')
# of two (3, 4): ~35 -> ~18 us): a call that raises is never kept, and a kept one would pass
# every check again. Up to _MAX_PLANS are kept, then all are forgotten.
_PLANS: dict = {}
_MAX_PLANS = 256


def _ndim_error(k, term, t):
    """torch's error for operand k, whose term (spaces removed) does not fit its dims."""
    n_letters = len(term.replace("...", ""))
    if "..." not in term and n_letters != t.ndim:
        raise RuntimeError(
            f"einsum(): the number of subscripts in the equation ({n_letters}) does not match "
            f"the number of dimensions ({t.ndim}) for operand {k} and no ellipsis was given"
        )
    if n_letters > t.ndim:
        raise RuntimeError(
            f"einsum(): the number of subscripts in the equation ({n_letters}) is more than "
            f"the number of dimensions ({t.ndim}) for operand {k}"
        )


def _invalid_subscript(i) -> RuntimeError:
    return RuntimeError(
        f"einsum(): invalid subscript given at index {i} in the equation string, subscripts must "
        "be in [a-zA-Z]"
    )


def _equation_error(equation, operands):
    """torch's first error for an equation with a bad character or the wrong number of terms.

    torch's parser reads the inputs' subscripts left to right (a bad character, a stray '.', a
    term with no operand left), then checks the operand count and each operand's dims, then reads
    the output: the first of these to fail names the error. Index i is into the equation as given,
    spaces included. Only called when einsum's one-line test has failed."""
    arrow = equation.find("->")
    lhs_end = len(equation) if arrow < 0 else arrow
    n, k, ell, i = len(operands), 0, False, 0
    while i < lhs_end:
        ch = equation[i]
        if ch == ",":
            k, ell = k + 1, False
            if k >= n:
                raise RuntimeError(
                    "einsum(): fewer operands were provided than specified in the equation"
                )
        elif ch == ".":
            if ell:
                raise RuntimeError(
                    f"einsum(): found '.' for operand {k} for which an ellipsis was already found"
                )
            if equation[i + 1 : i + 3] != "..":
                raise RuntimeError(
                    f"einsum(): found '.' for operand {k} that is not part of any ellipsis"
                )
            ell, i = True, i + 2
        elif ch != " " and ch not in _LETTERS:
            raise _invalid_subscript(i)
        i += 1
    if k < n - 1:
        raise RuntimeError("einsum(): more operands were provided than specified in the equation")
    lhs = equation[:lhs_end].replace(" ", "")
    for k, (term, t) in enumerate(zip(lhs.split(","), operands, strict=True)):
        _ndim_error(k, term, t)
    if arrow < 0:
        return
    seen, ell, i = set(), False, arrow + 2
    while i < len(equation):
        ch = equation[i]
        if ch == ".":
            if ell:
                raise RuntimeError(
                    "einsum(): found '.' for output but an ellipsis (...) was already found"
                )
            if equation[i + 1 : i + 3] != "..":
                raise RuntimeError(
                    "einsum(): found '.' for output that is not part of any ellipsis (...)"
                )
            ell, i = True, i + 2
        elif ch in _LETTERS:
            if ch in seen:
                raise RuntimeError(
                    f"einsum(): output subscript {ch} appears more than once in the output"
                )
            if ch not in lhs:
                raise RuntimeError(
                    f"einsum(): output subscript {ch} does not appear in the equation for any "
                    "input operand"
                )
            seen.add(ch)
        elif ch != " ":
            raise _invalid_subscript(i)
        i += 1


def _check_dots(terms, out):
    """torch's errors for a '.' outside one '...' per term (out: the output, None if implicit)."""
    for k, term in enumerate((*terms, out) if out is not None else terms):
        where = "output" if k == len(terms) else f"operand {k}"
        found = False
        i = 0
        while i < len(term):
            if term[i] != ".":
                i += 1
                continue
            if found:
                if k == len(terms):
                    raise RuntimeError(
                        "einsum(): found '.' for output but an ellipsis (...) was already found"
                    )
                raise RuntimeError(
                    f"einsum(): found '.' for {where} for which an ellipsis was already found"
                )
            if term[i : i + 3] != "...":
                tail = " (...)" if k == len(terms) else ""
                raise RuntimeError(
                    f"einsum(): found '.' for {where} that is not part of any ellipsis{tail}"
                )
            found = True
            i += 3


def _diagonals(terms, operands):
    """Each operand with a repeated letter replaced by its diagonal view over that letter, as
    torch takes it (the diagonal dim last), so its gradient is zero (+0.) off the diagonal."""
    new_terms, new_ops = [], []
    for k, (term, t) in enumerate(zip(terms, operands, strict=True)):
        shape = t.shape
        for c in dict.fromkeys(term):
            first = shape[term.index(c)]
            for i, d in enumerate(term):
                if d == c and shape[i] != first:
                    raise RuntimeError(
                        f"einsum(): subscript {c} is repeated for operand {k} but the sizes "
                        f"don't match, {shape[i]} != {first}"
                    )
        while len(set(term)) != len(term):
            c = next(c for c in term if term.count(c) > 1)
            d1 = term.index(c)
            d2 = term.index(c, d1 + 1)
            t = t.diagonal(0, d1, d2)
            term = term[:d1] + term[d1 + 1 : d2] + term[d2 + 1 :] + c
        new_terms.append(term)
        new_ops.append(t)
    return new_terms, new_ops


def _torch_node_name(terms, out) -> str:
    """The grad_fn name torch's einsum result shows: torch contracts the operands pairwise,
    by bmm and a final view when the last pair sums a letter (ViewBackward0), else by a
    broadcast multiply (MulBackward0); one operand is summed (SumBackward1) or permuted."""
    if len(terms) == 1:
        return "SumBackward1" if any(c not in out for c in terms[0]) else "PermuteBackward0"
    # the last pair sums every letter still present that the output lacks: with two operands,
    # every such letter; with more, the earlier ones were summed at earlier pairs unless the
    # last operand has them
    last = terms[-1] if len(terms) > 2 else "".join(terms)
    return "ViewBackward0" if any(c not in out for c in last) else "MulBackward0"


# NOTE [ Einsum dtypes follow torch's pairwise plan ]
# torch's einsum first sums each operand over its own letters (those in no other operand and
# not in the output) with torch.sum, which makes an integer or bool operand int64; then it joins
# the operands left to right. A pair that sums no letter is a broadcast multiply, which promotes
# ('i,j->ij' of int64 and float32 is float32); one that sums a letter is a bmm, which refuses
# a bool left side and operands of different dtypes, unless a dim of the pair is empty (bmm
# returns early then, in the right side's dtype). minitorch replays that plan on dtypes only,
# raising where torch's would, and casts every operand to the dtype it ends in. A summed letter
# of size 1 is squeezed from both sides (one of size 1 on one side only is summed out of the
# other) before the pair is joined, so a pair whose summed letters all have size 1 is a multiply
# too ('e,aea' of int64 and float32 is float32 when e is of size 1, a bmm error when larger).


def _plan_dtype(terms, operands, out, ell=""):
    """The dtype torch's pairwise plan gives einsum (see NOTE [ Einsum dtypes follow torch's
    pairwise plan ]), raising its errors."""
    sizes = {}
    for term, t in zip(terms, operands, strict=True):
        sizes.update(zip(term, t._data.shape, strict=True))
    sets = [set(term) for term in terms]
    kept = []
    for k, t in enumerate(operands):
        own = {
            c for c in sets[k] if c not in out and all(c not in s for s in sets if s is not sets[k])
        }
        dt = t.dtype
        if own and t._data.dtype.kind in "biu":  # torch.sum of an integer or bool operand
            dt = _dtype.int64
        kept.append((sets[k] - own, dt))
    left, dt = kept[0]
    for k in range(1, len(kept)):
        right, right_dt = kept[k]
        later = set().union(*sets[k + 1 :])
        both = left | right
        summed = {c for c in both if c not in out and c not in later}
        paired = set()  # the letters torch's bmm sums: size > 1 on both sides
        for c in summed:
            if sizes[c] == 1:  # squeezed from both sides
                continue
            if c not in left:  # (a size-1 dim dropped there) the right side summed alone
                right_dt = _dtype.int64 if right_dt._kind != _dtype._FLOAT else right_dt
            elif c not in right:  # the left side summed alone (sum's int64)
                dt = _dtype.int64 if dt._kind != _dtype._FLOAT else dt
            else:
                paired.add(c)
        if not paired:  # a broadcast multiply, which promotes
            dt = _dtype.promote_types(dt, right_dt)
        elif any(sizes[c] == 0 for c in both):
            dt = right_dt
        else:
            first, second = dt, right_dt
            if dt is not right_dt and _bmm_swaps(left, right, paired, out, sizes, sets, ell):
                first, second = right_dt, dt
            if first is not second or first is _dtype.bool:
                _bmm_error(first, second, left, right, summed, paired, sizes)
        left = both - summed
    return dt


def _bmm_error(first, second, left, right, summed, paired, sizes):
    """torch's bmm error for a pair of two dtypes (first: its batch1's) or of two bool sides:
    its wording depends on the kernel, chosen by the size of each matrix product (as
    linalg._check_bmm). The bmm multiplies each side's kept letters (those of one side only)
    by the paired ones."""
    from minitorch._ops.linalg import BMM_GEMM_MIN, bmm_dtype_error

    work = 1
    for c in ((left ^ right) - summed) | paired:
        work *= sizes[c]
    by_gemm = work >= BMM_GEMM_MIN
    if first is _dtype.bool and (second is first or not by_gemm):
        # the naive kernel's dispatch on batch1's dtype speaks first; the gemm path's addmm
        kernel = "addmm_impl_cpu_" if by_gemm else "bmm"
        raise NotImplementedError(f"\"{kernel}\" not implemented for 'Bool'")
    raise bmm_dtype_error(first, second, by_gemm)


def _bmm_swaps(left, right, paired, out, sizes, sets, ell) -> bool:
    """Whether torch's pairwise product runs bmm(right, left), which decides the order its
    dtype error names the two dtypes in: sumproduct_pair swaps the sides when every kept dim
    only the right side has comes before every one only the left side has, in its dim order
    (the output's letters, then the others alphabetically, capitals first); a dim of size 1 on
    both sides counts as the right side's. Not for an ellipsis the output drops.
    Differences from torch: torch 2.13 swaps in some further cases not pinned down here
    ('A,efdA->dfe'), so a few mixed-dtype equations name the dtypes the other way round."""
    letters = set().union(*sets)
    rest = sorted(letters - set(out))
    if any(c in ell for c in rest):
        return False
    order = {c: i for i, c in enumerate([*out, *rest])}
    lhs = {c for c in left if sizes[c] != 1}
    rhs = {c for c in right if sizes[c] != 1}
    lo = [order[c] for c in lhs - rhs]
    ro = [order[c] for c in letters - lhs - paired]
    return bool(lo) and bool(ro) and max(ro) < min(lo)


def _einsum_broadcast(terms, operands, ell):
    """Size-1 dims against a larger size of the same letter elsewhere are dropped (broadcast)."""
    sizes = {}
    for k, (term, t) in enumerate(zip(terms, operands, strict=False)):
        for c, s in zip(term, t._data.shape, strict=False):
            seen = sizes.get(c)
            if seen is None or seen == 1:
                sizes[c] = s
            elif s != seen and s != 1:
                if c in ell:  # torch counts the dim within this operand's ellipsis
                    n = sum(x in ell for x in term)
                    # (sic: torch's message lacks the space after the operand number)
                    raise RuntimeError(
                        f"einsum(): dimension {ell.index(c) - (len(ell) - n)} covered by "
                        f"ellipsis in operand {k}has size {s} which does not broadcast with "
                        f"previously seen ellipsis with size {seen} for the respective dimension"
                    )
                raise RuntimeError(
                    f"einsum(): subscript {c} has size {s} for operand {k} which does not "
                    f"broadcast with previously seen size {seen}"
                )
    new_terms, new_ops = [], []
    for term, t in zip(terms, operands, strict=False):
        shape = t._data.shape
        drop = [
            i for i, (c, s) in enumerate(zip(term, shape, strict=True)) if s == 1 and sizes[c] != 1
        ]
        if drop:
            term = "".join(c for i, c in enumerate(term) if i not in drop)
            t = t.reshape(tuple(s for i, s in enumerate(shape) if i not in drop))
        new_terms.append(term)
        new_ops.append(t)
    return new_terms, new_ops
