"""Binary BCH codes for SPEX's delays: the parity-check matrix and a hard syndrome decoder.

A narrow-sense binary BCH code of length ``N = 2^m - 1`` and designed distance ``2t + 1`` is
the set of words ``c in F_2^N`` whose polynomial vanishes at ``alpha^1 .. alpha^(2t)``, with
``alpha`` a root of the primitive polynomial that defines ``GF(2^m)`` (:data:`PRIMITIVE`).
Its parity-check matrix ``H`` (p, N) is the reduced row-echelon form of the binary rows of
``alpha^(l (N - 1 - j))`` (l = 1, 3, .., 2t - 1; column j holds the coefficient of degree
``N - 1 - j``); decoding a syndrome ``s = H e`` back to an error pattern ``e`` of weight
``<= t`` is Berlekamp-Massey on the power syndromes ``S_l = e(alpha^l)`` followed by a Chien
search for the roots of the error locator.

Why by hand rather than with galois (which the tests use as the reference: the same ``H``,
bit for bit, and the same decoded patterns): galois compiles its decoder with numba for every
field, about 2 s to build each code, 2 s at its first decode and about 17 s at the first decode
in a process. In this chapter that came to about 40 s per notebook, more than all of SPEX's
transforms and refits; in numpy both take milliseconds.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

#: The primitive polynomials of GF(2^m) (bit i = coefficient of x^i) that galois' BCH codes use
#: (MATLAB's defaults, ``galois.matlab_primitive_poly``); m = 16 allows inputs up to n = 65,535.
PRIMITIVE = {
    3: 0xB,
    4: 0x13,
    5: 0x25,
    6: 0x43,
    7: 0x89,
    8: 0x11D,
    9: 0x211,
    10: 0x409,
    11: 0x805,
    12: 0x1053,
    13: 0x201B,
    14: 0x4443,
    15: 0x8003,
    16: 0x1100B,
}


@dataclass(frozen=True)
class BCHCode:
    """A binary BCH code: ``H`` (p, N) int8 in reduced row-echelon form, its pivot columns, and
    the exp / log tables of GF(2^m) (``exp[i] = alpha^i`` as an m-bit integer, i < 2N)."""

    m: int
    t: int
    H: np.ndarray
    pivots: np.ndarray
    exp: np.ndarray
    log: np.ndarray

    @property
    def length(self) -> int:
        return 2**self.m - 1

    @property
    def k(self) -> int:
        return self.length - len(self.H)


def _field_tables(m: int) -> tuple[np.ndarray, np.ndarray]:
    N = 2**m - 1
    exp = np.zeros(2 * N, dtype=np.int64)
    x = 1
    for i in range(N):
        exp[i] = x
        x <<= 1
        if x >> m:
            x ^= PRIMITIVE[m]
    exp[N:] = exp[:N]
    log = np.zeros(N + 1, dtype=np.int64)
    log[exp[:N]] = np.arange(N)
    return exp, log


def _rref(A: np.ndarray) -> np.ndarray:
    """Reduced row-echelon form over GF(2) of a 0/1 matrix, zero rows dropped."""
    A = A.astype(np.uint8, copy=True)
    r = 0
    for c in range(A.shape[1]):
        if r == len(A):
            break
        nz = np.flatnonzero(A[r:, c])
        if not len(nz):
            continue
        A[[r, r + nz[0]]] = A[[r + nz[0], r]]
        others = np.flatnonzero(A[:, c])
        A[others[others != r]] ^= A[r]
        r += 1
    return A[:r].astype(np.int8)


@lru_cache(maxsize=16)
def bch_code(n: int, t: int) -> BCHCode:
    """The shortest narrow-sense binary BCH code of length ``2^m - 1 >= n`` (m >= 3) that
    corrects ``t`` errors and has at least one message bit (``k >= 1``)."""
    m = max(3, math.ceil(math.log2(n + 1)))
    while True:
        if m not in PRIMITIVE:
            raise ValueError(f"BCH delays need n < 2^{max(PRIMITIVE)}, got n = {n} with t = {t}")
        N = 2**m - 1
        if 2 * t + 1 <= N:
            exp, log = _field_tables(m)
            deg = N - 1 - np.arange(N)
            rows = [
                (exp[(ell * deg) % N][None, :] >> np.arange(m)[:, None]) & 1
                for ell in range(1, 2 * t, 2)
            ]
            H = _rref(np.vstack(rows))
            if N - len(H) >= 1:
                pivots = np.array([int(np.flatnonzero(row)[0]) for row in H])
                return BCHCode(m, t, H, pivots, exp, log)
        m += 1


def _berlekamp_massey(S: list[int], exp: np.ndarray, log: np.ndarray) -> list[int]:
    """The shortest connection polynomial ``C(x) = 1 + C_1 x + .. + C_L x^L`` (ascending, length
    L + 1) generating the sequence S over GF(2^m)."""
    N = len(log) - 1

    def mul(a: int, b: int) -> int:
        return 0 if a == 0 or b == 0 else int(exp[log[a] + log[b]])

    C, B, L, shift, b = [1], [1], 0, 1, 1
    for i, s in enumerate(S):
        d = s
        for j in range(1, min(L, len(C) - 1) + 1):
            d ^= mul(C[j], S[i - j])
        if d == 0:
            shift += 1
            continue
        coef = int(exp[(log[d] - log[b]) % N])
        T = C.copy()
        C = C + [0] * max(0, len(B) + shift - len(C))
        for j, bj in enumerate(B):
            C[j + shift] ^= mul(coef, bj)
        if 2 * L <= i:
            L, B, b, shift = i + 1 - L, T, d, 1
        else:
            shift += 1
    return (C + [0] * (L + 1))[: L + 1]


def bch_decode(code: BCHCode, syndromes: np.ndarray) -> list[np.ndarray | None]:
    """Error patterns ``e`` (length N, weight <= t) with ``H e = s`` for each row ``s`` of
    ``syndromes`` (q, p), or None where the decoder fails (no such pattern)."""
    N, t = code.length, code.t
    r = np.zeros((len(syndromes), N), dtype=np.int64)
    r[:, code.pivots] = syndromes  # H r = s: the pivot columns of H form an identity
    deg = N - 1 - np.arange(N)
    S = np.stack(
        [
            np.bitwise_xor.reduce(code.exp[(ell * deg) % N] * r, axis=1)
            for ell in range(1, 2 * t + 1)
        ],
        axis=1,
    )
    i = np.arange(N)
    out: list[np.ndarray | None] = []
    for row in S:
        e = np.zeros(N, dtype=np.int8)
        if not row.any():
            out.append(e)
            continue
        lam = _berlekamp_massey([int(v) for v in row], code.exp, code.log)
        v = len(lam) - 1
        if v > t:
            out.append(None)
            continue
        val = np.zeros(N, dtype=np.int64)  # Chien search: lam(alpha^-i) for every degree i
        for k, c in enumerate(lam):
            if c:
                val ^= code.exp[(code.log[c] - i * k) % N]
        roots = np.flatnonzero(val == 0)
        if len(roots) != v:
            out.append(None)
            continue
        e[N - 1 - roots] = 1
        out.append(e)
    return out
