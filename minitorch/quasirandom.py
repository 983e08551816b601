"""torch.quasirandom: Sobol' sequences (SobolEngine), the same points as torch's.

A Sobol' point in dimension d is the XOR of direction numbers V[d][j] (30-bit integers) chosen by
the bits of the point's index in Gray-code order, so point k+1 is point k XOR V[d][c] with c the
lowest zero bit of k. The direction numbers come from S. Joe and F. Y. Kuo's table
("new-joe-kuo-6.21201", https://web.maths.unsw.edu.au/~fkuo/sobol/), packed into
_sobol_directions.bin by tools/sobol_directions.py. Scrambling (Owen) multiplies each dimension's
direction numbers, as bit vectors, by a random unit lower-triangular matrix over GF(2) and starts
the sequence at a random shift, both drawn with `randint(2, ...)` in torch's order, so a seeded
engine gives torch's points. Like torch's, the engine's state lives on the CPU."""

from __future__ import annotations

import functools
import operator
import zlib
from pathlib import Path

import numpy as np

import minitorch
from minitorch import _dtype

__all__ = ["SobolEngine"]


@functools.lru_cache(maxsize=1)
def _table():
    """(degrees of the primitive polynomials, the packed bits after them) of every dimension."""
    raw = zlib.decompress((Path(__file__).parent / "_sobol_directions.bin").read_bytes())
    if raw[:6] != b"SOBOL1":
        raise RuntimeError("minitorch/_sobol_directions.bin is not a Sobol' direction table")
    count = int.from_bytes(raw[6:10], "little")
    degrees = np.frombuffer(raw, np.uint8, count, 10).astype(np.int64)
    return degrees, np.frombuffer(raw, np.uint8, offset=10 + count)


def _initial_numbers(dimension):
    """(inner coefficient bits a_1..a_{s-1}, initial numbers m_1..m_s), each (dimension, 18)
    and zero-padded, and the degrees s, of the first `dimension` dimensions."""
    degrees, packed = _table()
    s = degrees[:dimension]
    width = int(degrees.max())
    lengths = np.where(s > 0, (s - 1) + s * (s - 1) // 2, 0)  # bits each dimension holds
    starts = np.concatenate(([0], np.cumsum(lengths)[:-1]))
    bits = np.unpackbits(packed[: (int(lengths.sum()) + 7) // 8]).astype(np.int64)
    coeffs = np.zeros((dimension, width), np.int64)
    inits = np.zeros((dimension, width), np.int64)
    for degree in np.unique(s[s > 0]):  # dimensions of one degree share one field layout
        rows = np.flatnonzero(s == degree)
        field = bits[starts[rows, None] + np.arange(lengths[rows[0]])]
        coeffs[rows, : degree - 1] = field[:, : degree - 1]
        at = degree - 1
        for k in range(1, degree + 1):  # m_k: its k - 1 high bits, then the low bit 1
            high = field[:, at : at + k - 1] @ (1 << np.arange(k - 2, -1, -1)) if k > 1 else 0
            inits[rows, k - 1] = (high << 1) | 1
            at += k - 1
    return coeffs, inits, s


def _direction_numbers(dimension, bits):
    """V (dimension, bits) int64: V[d][j] = m_{j+1} << (bits - 1 - j), the m_k extended past the
    table by the recurrence of each dimension's polynomial x^s + a_1 x^(s-1) + ... + 1:
    m_k = 2 a_1 m_(k-1) ^ 4 a_2 m_(k-2) ^ ... ^ 2^s m_(k-s) ^ m_(k-s)."""
    coeffs, inits, s = _initial_numbers(dimension)
    m = np.ones((dimension, bits), np.int64)  # the first dimension: every m_k is 1
    m[:, : inits.shape[1]] = np.where(inits > 0, inits, 1)[:, : min(bits, inits.shape[1])]
    rows = np.arange(dimension)
    for k in range(bits):  # 0-based: m[:, k] is m_(k+1)
        fresh = (s > 0) & (k >= s)
        if not fresh.any():
            continue
        back = m[rows, np.maximum(k - s, 0)]
        value = back ^ (back << s)
        for i in range(1, coeffs.shape[1]):
            use = (i < s) & (k >= i)
            value ^= np.where(use & (coeffs[:, i - 1] == 1), m[:, max(k - i, 0)] << i, 0)
        m[:, k] = np.where(fresh, value, m[:, k])
    return m << (bits - 1 - np.arange(bits))


def _count(n, op):
    """n as the int torch's parser takes for `op`'s argument n (an int-like, no bool or float)."""
    if n.__class__ is not bool and not isinstance(n, float):
        try:
            return operator.index(n)
        except TypeError:
            pass
    raise TypeError(f"{op}(): argument 'n' (position 2) must be int, not {type(n).__name__}")


def _lowest_zero_bits(start, n):
    """The index of the lowest zero bit of each of start, start + 1, ..., start + n - 1."""
    k = np.arange(start, start + n, dtype=np.int64)
    low = ~k & (k + 1)  # the lowest zero bit of k, as a power of two
    return np.log2(low.astype(np.float64)).astype(np.int64)


class SobolEngine:
    """An engine for (scrambled) Sobol' sequences of up to 21201 dimensions, drawn in the same
    order and with the same scrambling as torch.quasirandom.SobolEngine (Joe and Kuo's direction
    numbers, search criterion D(6)).

    Args:
        dimension (int): the dimension of each point.
        scramble (bool): scramble the sequence (a random linear matrix scramble and digital
            shift). Default: False.
        seed (int, optional): the seed of the scrambling's random draws; the default generator's
            stream when None."""

    MAXBIT = 30
    MAXDIM = 21201

    def __init__(self, dimension, scramble=False, seed=None):
        if dimension > self.MAXDIM or dimension < 1:
            raise ValueError(
                f"Supported range of dimensionality for SobolEngine is [1, {self.MAXDIM}]"
            )
        self.seed = seed
        self.scramble = scramble
        self.dimension = dimension
        # (allocated first, as torch: a dimension that is no int fails in zeros' words)
        self.sobolstate = minitorch.zeros(dimension, self.MAXBIT, dtype=minitorch.long)
        state = _direction_numbers(dimension, self.MAXBIT)
        if scramble:
            state, self.shift = self._scrambled(state)
        else:
            self.shift = minitorch.zeros(dimension, dtype=minitorch.long)
        self.sobolstate.numpy()[...] = state
        self.quasi = self.shift.clone(memory_format=minitorch.contiguous_format)
        # (true division: the first point is in the default dtype of this moment, as torch's)
        self._first_point = (self.quasi / 2**self.MAXBIT).reshape(1, -1)
        self.num_generated = 0

    def _scrambled(self, state):
        """Owen's scrambling: the direction numbers times random unit lower-triangular bit
        matrices (row r of a matrix makes bit r, counted from the most significant), and a random
        digital shift; drawn shift first, as torch."""
        generator = None
        if self.seed is not None:
            generator = minitorch.Generator()
            generator.manual_seed(self.seed)
        bits = self.MAXBIT
        shift_bits = minitorch.randint(2, (self.dimension, bits), generator=generator)
        shift = minitorch.mv(shift_bits, minitorch.pow(2, minitorch.arange(0, bits)))
        lower = minitorch.randint(2, (self.dimension, bits, bits), generator=generator)
        lower = np.tril(lower.numpy())
        lower[:, np.arange(bits), np.arange(bits)] = 1
        weights = 1 << (bits - 1 - np.arange(bits))  # bit r of a number, from the top
        state_bits = (state[:, :, None] >> (bits - 1 - np.arange(bits))) & 1
        # new bit r of V[d][j] = XOR over c of lower[d][r][c] * bit c of V[d][j]
        # (a float32 batched product: exact, the sums are at most 30)
        mixed = state_bits.astype(np.float32) @ lower.astype(np.float32).transpose(0, 2, 1)
        return (mixed.astype(np.int64) & 1) @ weights, shift

    def _advance(self, n, start):
        """The next n values of quasi (n, dimension), starting after point index `start`: int32
        (the numbers have 30 bits), gathered row-wise and accumulated in place, so that a large
        draw holds little more than its result."""
        table = np.ascontiguousarray(self.sobolstate.numpy().T, np.int32)  # (bit, dimension)
        steps = table[_lowest_zero_bits(start, n)]
        steps[0] ^= self.quasi.numpy().astype(np.int32)
        return np.bitwise_xor.accumulate(steps, axis=0, out=steps)

    def _draw_ints(self, n, start, dtype):
        """The next n points as integers, quasi moved to the last; torch's checks first (n an
        int, not negative, then the dtype of the result), leaving the state as it was."""
        n = _count(n, "_sobol_engine_draw")
        if n < 0:
            raise RuntimeError(
                f"Trying to create tensor with negative dimension {n}: [{n}, {self.dimension}]"
            )
        if dtype is not None and dtype not in (minitorch.float32, minitorch.float64):
            raise NotImplementedError(
                f"\"_sobol_engine_draw\" not implemented for '{_dtype.scalar_name(dtype)}'"
            )
        if n == 0:
            return np.empty((0, self.dimension), np.int32)
        points = self._advance(n, start)
        self.quasi.numpy()[...] = points[-1]
        return points

    def draw(self, n=1, out=None, dtype=None):
        """The next n points of the sequence, an (n, dimension) tensor of `dtype` (default: the
        default dtype). The points depend on those drawn before."""
        if dtype is None:
            dtype = minitorch.get_default_dtype()
        if self.num_generated == 0:
            if n == 1:  # (torch's first point, in any dtype)
                result = self._first_point.to(dtype)
            else:
                ints = self._draw_ints(n - 1, 0, dtype)
                result = minitorch.cat((self._first_point.to(dtype), self._scaled(ints, dtype)))
        else:
            result = self._scaled(self._draw_ints(n, self.num_generated - 1, dtype), dtype)
        self.num_generated += n
        if out is not None:
            out.resize_as_(result).copy_(result)
            return out
        return result

    def _scaled(self, ints, dtype):
        values = ints.astype(dtype.np)  # (the scaling by a power of two is exact)
        values *= values.dtype.type(1.0 / (1 << self.MAXBIT))
        return minitorch.from_numpy(values)

    def draw_base2(self, m, out=None, dtype=None):
        """The next 2**m points (the sequence's balance wants the total drawn a power of 2)."""
        n = 2**m
        total_n = self.num_generated + n
        if total_n & (total_n - 1) != 0:
            raise ValueError(
                "The balance properties of Sobol' points require n to be a power of 2. "
                f"{self.num_generated} points have been previously generated, then: "
                f"n={self.num_generated}+2**{m}={total_n}. If you still want to do this, please "
                "use 'SobolEngine.draw()' instead."
            )
        return self.draw(n=n, out=out, dtype=dtype)

    def reset(self):
        """Back to the sequence's first point."""
        self.quasi.copy_(self.shift)
        self.num_generated = 0
        return self

    def fast_forward(self, n):
        """Skip n points, as drawing them would."""
        fresh = self.num_generated == 0
        count = _count(n - 1 if fresh else n, "_sobol_engine_ff_")
        if count > 0:  # (torch's kernel skips no points for a negative count)
            self._draw_ints(count, 0 if fresh else self.num_generated - 1, None)
        self.num_generated += n
        return self

    def __repr__(self):
        parts = [f"dimension={self.dimension}"]
        if self.scramble:
            parts.append("scramble=True")
        if self.seed is not None:
            parts.append(f"seed={self.seed}")
        return f"{type(self).__name__}({', '.join(parts)})"
