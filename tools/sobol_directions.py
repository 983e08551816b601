"""Write minitorch/_sobol_directions.bin: the Sobol' direction numbers of S. Joe and F. Y. Kuo
("new-joe-kuo-6.21201", https://web.maths.unsw.edu.au/~fkuo/sobol/) packed for
minitorch.quasirandom.SobolEngine.

    python tools/sobol_directions.py new-joe-kuo-6.21201      # their text table
    python tools/sobol_directions.py path/to/_sobol_direction_numbers.npz   # SciPy's copy of it

Layout (zlib-compressed): b"SOBOL1", the number of dimensions D (uint32, little-endian), the degree
s of each dimension's primitive polynomial (D uint8; 0 for the first dimension, whose direction
numbers are all 1), then one bit string, most significant bit first, holding for each dimension
d >= 1 the polynomial's inner coefficients a_1 .. a_{s-1} (s - 1 bits) followed by the initial
direction numbers m_1 .. m_s, each m_k (odd, below 2^k) written without its low bit in k - 1 bits.
minitorch/quasirandom.py reads it back (`_initial_numbers`)."""

from __future__ import annotations

import sys
import zlib
from pathlib import Path

import numpy as np

OUT = Path(__file__).resolve().parents[1] / "minitorch" / "_sobol_directions.bin"


def read_table(path):
    """(polynomials with their leading and trailing 1 bits, initial numbers per dimension)."""
    if path.endswith(".npz"):
        z = np.load(path)
        polys = [int(p) for p in z["poly"]]
        degrees = [p.bit_length() - 1 for p in polys]
        inits = [[int(v) for v in row[:s]] for row, s in zip(z["vinit"], degrees, strict=True)]
        polys[0], inits[0] = 1, []  # the first dimension: no polynomial
        return polys, inits
    polys, inits = [1], [[]]
    for line in Path(path).read_text().splitlines()[1:]:  # d s a m_1 .. m_s
        fields = [int(v) for v in line.split()]
        if not fields:
            continue
        _, s, a, *m = fields
        polys.append((1 << s) | (a << 1) | 1)
        inits.append(m[:s])
    return polys, inits


def pack(polys, inits):
    degrees = bytearray()
    bits = []
    for d, (p, m) in enumerate(zip(polys, inits, strict=True)):
        s = p.bit_length() - 1
        degrees.append(s)
        if d == 0:
            continue
        assert len(m) == s and all(v % 2 == 1 and v < (1 << k) for k, v in enumerate(m, 1))
        bits += [(p >> (s - i)) & 1 for i in range(1, s)]
        for k, v in enumerate(m, 1):
            bits += [((v >> 1) >> (k - 2 - j)) & 1 for j in range(k - 1)]
    header = b"SOBOL1" + len(polys).to_bytes(4, "little")
    body = bytes(degrees) + np.packbits(np.array(bits, np.uint8)).tobytes()
    return zlib.compress(header + body, 9)


if __name__ == "__main__":
    data = pack(*read_table(sys.argv[1]))
    OUT.write_bytes(data)
    print(f"{OUT}: {len(data)} bytes")
