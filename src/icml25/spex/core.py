"""SPEX's sparse Boolean Fourier transform: subsampled queries, delays, WHT, singletons, peeling.

Conventions (the chapter's): a mask ``m`` in {0,1}^n keeps input i when ``m_i = 1``; the value
function ``f`` maps a (q, n) array of masks to q outputs. Its Boolean Fourier (Walsh-Hadamard)
expansion is

    f(m) = sum_k F(k) (-1)^<m, k>,   k in F_2^n,

stored as ``{tuple_of_sorted_indices_of_k: F(k)}``. Bit vectors of length b are indexed by
integers with bit i holding coordinate i.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from icml25.common.checks import (
    check_callable,
    check_choice,
    check_finite_array,
    check_int,
    check_positive,
    check_probability,
    check_seed,
)
from icml25.spex.bch import bch_code, bch_decode
from icml25.spex.inputs import _as_masks, _check_coeffs, _query, check_masks

__all__ = [
    "SpexResult",
    "check_masks",
    "design_delays",
    "fourier_eval",
    "fwht",
    "make_sparse_function",
    "spex",
    "subsampled_transform",
]


def fwht(a: np.ndarray) -> np.ndarray:
    """Unnormalised fast Walsh-Hadamard transform along axis 0.

    ``out[j] = sum_l (-1)^popcount(l & j) a[l]`` (Sylvester order); the length of axis 0 must
    be a power of two. Other axes are transformed independently. ``a`` must be finite.
    """
    a = np.array(check_finite_array("a", a), dtype=float, copy=True)
    return _fwht(a)


def _fwht(a: np.ndarray) -> np.ndarray:
    """:func:`fwht` of a float array, without argument checks."""
    if a.ndim == 0:
        raise ValueError("a must have at least one dimension")
    N = a.shape[0]
    if N < 1 or N & (N - 1):
        raise ValueError(f"the length of axis 0 must be a power of two, got {N}")
    rest = a.shape[1:]
    h = 1
    while h < N:
        a = a.reshape(N // (2 * h), 2, h, *rest)
        a = np.stack([a[:, 0] + a[:, 1], a[:, 0] - a[:, 1]], axis=1)
        h *= 2
    return a.reshape(N, *rest)


def _key_matrix(keys: list[tuple[int, ...]], n: int) -> np.ndarray:
    K = np.zeros((len(keys), n), dtype=np.int8)
    for r, k in enumerate(keys):
        K[r, list(k)] = 1
    return K


def fourier_eval(F: dict[tuple[int, ...], float], masks: np.ndarray) -> np.ndarray:
    """Evaluate ``sum_k F(k) (-1)^<m, k>`` on (q, n) masks; returns (q,)."""
    masks = _as_masks(masks)
    _check_coeffs("F", F, masks.shape[1], n_name="the number of columns of masks")
    if not F:
        return np.zeros(len(masks))
    keys = list(F)
    K = _key_matrix(keys, masks.shape[1]).astype(np.int32)
    parity = (masks.astype(np.int32) @ K.T) & 1  # (q, s)
    return (1 - 2 * parity) @ np.array([F[k] for k in keys])


def _mobius_eval(a: dict[tuple[int, ...], float], masks: np.ndarray) -> np.ndarray:
    keys = list(a)
    K = _key_matrix(keys, masks.shape[1]).astype(np.int32)
    hits = masks.astype(np.int32) @ K.T  # how many of S's inputs are kept
    return (hits == K.sum(1)).astype(float) @ np.array([a[k] for k in keys])


def make_sparse_function(
    n: int, s: int, max_order: int, basis: str = "fourier", seed: int = 0
) -> tuple[Callable[[np.ndarray], np.ndarray], dict[tuple[int, ...], float]]:
    """A planted value function with ``s`` random terms of order 1..``max_order``.

    ``basis="fourier"``: ``f(m) = sum_k F(k) (-1)^<m,k>``; ``basis="mobius"``:
    ``f(m) = sum_S a(S) prod_{i in S} m_i`` (AND terms, the form of interaction indices).
    Coefficients are ``+-U(0.5, 1.5)``; supports are distinct.

    Returns:
        ``(value_fn, coeffs)``: ``value_fn`` maps (q, n) 0/1 masks to (q,) outputs, ``coeffs``
        is ``{tuple_of_sorted_indices: value}`` in the chosen basis.
    """
    n = check_int("n", n)
    s = check_int("s", s)
    max_order = check_int("max_order", max_order, 1, n)
    basis = check_choice("basis", basis, ("fourier", "mobius"))
    seed = check_seed("seed", seed)
    n_possible = sum(math.comb(n, k) for k in range(1, max_order + 1))
    if s > n_possible:
        raise ValueError(
            f"s={s} exceeds the {n_possible} possible supports of order <= {max_order}"
        )
    rng = np.random.default_rng(seed)
    coeffs: dict[tuple[int, ...], float] = {}
    while len(coeffs) < s:
        order = int(rng.integers(1, max_order + 1))
        key = tuple(sorted(rng.choice(n, size=order, replace=False).tolist()))
        if key not in coeffs:
            coeffs[key] = float(rng.choice([-1, 1]) * rng.uniform(0.5, 1.5))
    evaluate = fourier_eval if basis == "fourier" else _mobius_eval

    def value_fn(masks: np.ndarray) -> np.ndarray:
        return evaluate(coeffs, check_masks(masks, n))

    return value_fn, dict(coeffs)


def design_delays(n: int, delays: str = "identity", t: int = 3) -> np.ndarray:
    """The delay vectors d (rows, each in {0,1}^n), the zero delay first.

    ``"identity"``: 0 and the n unit vectors (n + 1 delays: reads k bit by bit).
    ``"bch"``: 0 and the p rows of a BCH parity-check matrix restricted to n columns
    (p ~ t log2 n delays: their signs give the syndrome of k, decoded for |k| <= t <= n).
    """
    n = check_int("n", n)
    delays = check_choice("delays", delays, ("identity", "bch"))
    t = check_int("t", t, 1, n if delays == "bch" else None)
    if delays == "identity":
        return np.vstack([np.zeros((1, n), np.int8), np.eye(n, dtype=np.int8)])
    H = bch_code(n, t).H
    return np.vstack([np.zeros((1, n), np.int8), H[:, :n]])


def _group_masks(M: np.ndarray, D: np.ndarray) -> np.ndarray:
    """Masks ``M^T l XOR d`` for every delay d (outer) and l in F_2^b (inner): (n_delays 2^b, n)."""
    b, n = M.shape
    L = ((np.arange(2**b)[:, None] >> np.arange(b)) & 1).astype(np.int32)  # (2^b, b)
    base = (L @ M.astype(np.int32)) & 1  # (2^b, n)
    return (base[None] ^ D[:, None].astype(np.int32)).reshape(-1, n).astype(np.int8)


def subsampled_transform(
    value_fn: Callable[[np.ndarray], np.ndarray], M: np.ndarray, D: np.ndarray
) -> np.ndarray:
    """Query ``f(M^T l XOR d)`` for every l in F_2^b and delay d, then WHT over l.

    Returns U (2^b, n_delays) with ``U[j, r] = sum_{k : M k = j} (-1)^<D[r], k> F(k)``
    (aliasing and shift), using ``2^b * n_delays`` queries. M is (b, n) with b <= 20, D
    (n_delays, n), both of zeros and ones.
    """
    check_callable("value_fn", value_fn)
    M = _as_masks(M, "M")
    if not 1 <= M.shape[0] <= 20:
        raise ValueError(f"M must have 1 to 20 rows (2^b queries per delay), got {M.shape[0]}")
    if isinstance(D, np.ndarray) and D.ndim == 2 and D.shape[1] != M.shape[1]:
        raise ValueError(f"D must have as many columns as M ({M.shape[1]}), got {D.shape}")
    D = check_masks(D, M.shape[1], "D")
    if len(D) == 0:
        raise ValueError("D must hold at least one delay (the zero delay first)")
    y = _query(value_fn, _group_masks(M, D))
    a = np.array(y.reshape(len(D), 2 ** M.shape[0]).T, dtype=float, copy=True)
    return _fwht(a) / 2 ** M.shape[0]


@dataclass
class SpexResult:
    """What :func:`spex` recovered.

    Attributes:
        fourier: ``{tuple_of_sorted_indices: F(k)}`` (the empty tuple is the mean).
        n_queries: number of value-function evaluations, ``C 2^b (n_delays)``.
        n_delays: delays per group (``n + 1`` identity, ``p + 1`` BCH).
        peeling_rounds: passes over the bins until no new singleton appeared.
        masks: (n_queries, n) the queried masks (for the refit and for plots).
        values: (n_queries,) the value function on them.
        n_found: keys recovered by peeling (``fourier`` also holds the constant and first-order
            keys that ``refit_support="found+linear"`` adds).
    """

    fourier: dict[tuple[int, ...], float]
    n_queries: int
    n_delays: int
    peeling_rounds: int
    masks: np.ndarray = field(repr=False)
    values: np.ndarray = field(repr=False)
    n_found: int = 0


def _decode_bch(signs: np.ndarray, n: int, t: int) -> list[np.ndarray | None]:
    """Syndromes (rows of 0/1 bits) -> error patterns k of weight <= t on the first n columns."""
    out: list[np.ndarray | None] = []
    for e in bch_decode(bch_code(n, t), signs):
        out.append(e[:n] if e is not None and not e[n:].any() else None)
    return out


def spex(
    value_fn: Callable[[np.ndarray], np.ndarray],
    n: int,
    b: int = 6,
    C: int = 3,
    delays: str = "identity",
    t: int = 3,
    seed: int = 0,
    refit: bool = True,
    tol: float = 1e-6,
    noise_tol: float = 1e-3,
    refit_support: str = "found+linear",
    max_rounds: int = 100,
) -> SpexResult:
    """Recover a sparse, low-degree Boolean Fourier spectrum of ``value_fn`` (SPEX).

    1. For each of ``C`` groups draw ``M_c`` uniform in F_2^{b x n} and query
       ``f(M_c^T l XOR d)`` for all 2^b ``l`` and every delay ``d`` (:func:`design_delays`).
    2. A 2^b-point WHT gives ``U_c(j, d) = sum_{k: M_c k = j} (-1)^<d,k> F(k)``.
    3. A bin is non-empty when ``|U(j, 0)|`` exceeds ``tol`` times the largest bin, and a
       **singleton** when every delay's ratio ``U(j, d) / U(j, 0)`` is +-1 within
       ``noise_tol`` (raise it for value functions that are only approximately sparse): its
       signs spell k (identity delays) or k's BCH syndrome (decoded up to |k| = t); k is kept
       if ``M_c k = j``.
    4. **Peeling**: each new k is subtracted from its bin in every group, which can turn
       multitons into singletons; repeat until no new singleton appears.
    5. ``refit``: least squares of all queried values on the Fourier features of the support:
       the recovered keys (``refit_support="found"``) or, as the authors' ``fit_regression``
       does, the recovered keys plus the constant and all n first-order keys
       (``"found+linear"``, the default).

    Args:
        value_fn: maps (q, n) 0/1 masks to (q,) outputs.
        n: number of inputs. b: bins per group are 2^b. C: groups. t: maximum order (BCH).
        max_rounds: cap on the peeling passes (the authors' qsft ``max_iter`` = 100).

    Returns:
        a :class:`SpexResult`.
    """
    check_callable("value_fn", value_fn)
    n = check_int("n", n)
    b = check_int("b", b, 1, 20)
    C = check_int("C", C)
    delays = check_choice("delays", delays, ("identity", "bch"))
    t = check_int("t", t, 1, n if delays == "bch" else None)
    tol = check_positive("tol", tol)
    noise_tol = check_probability("noise_tol", noise_tol, low_open=True, high_open=True)
    refit_support = check_choice("refit_support", refit_support, ("found", "found+linear"))
    max_rounds = check_int("max_rounds", max_rounds, 1)
    rng = np.random.default_rng(check_seed("seed", seed))
    D = design_delays(n, delays, t)
    Ms = rng.integers(0, 2, size=(C, b, n)).astype(np.int8)
    group_masks = [_group_masks(M, D) for M in Ms]
    group_values = [_query(value_fn, m) for m in group_masks]
    U = [
        _fwht(np.array(y.reshape(len(D), 2**b).T, dtype=float, copy=True)) / 2**b
        for y in group_values
    ]
    all_masks = np.concatenate(group_masks)
    values = np.concatenate(group_values)
    scale = max(float(np.abs(u).max()) for u in U) or 1.0
    pow2 = 1 << np.arange(b)
    found: dict[tuple[int, ...], float] = {}
    rounds = 0
    while rounds < max_rounds:
        rounds += 1
        new = 0
        for c in range(C):
            u = U[c]
            u0 = u[:, 0]
            live = np.flatnonzero(np.abs(u0) > tol * scale)
            if len(live) == 0:
                continue
            ratio = u[live, 1:] / u0[live, None]
            single = np.all(np.abs(np.abs(ratio) - 1) < noise_tol, axis=1)
            if not single.any():
                continue
            bins = live[single]
            bits = (ratio[single] < 0).astype(np.int8)
            if delays == "identity":
                ks: list[np.ndarray | None] = list(bits)
            else:
                ks = _decode_bch(bits, n, t)
            for j, k in zip(bins, ks, strict=True):
                if k is None:
                    continue
                if int(((Ms[c].astype(np.int32) @ k) & 1) @ pow2) != j:
                    continue
                key = tuple(np.flatnonzero(k).tolist())
                if key in found or len(key) > (t if delays == "bch" else n):
                    continue
                value = float(U[c][j, 0])
                found[key] = value
                new += 1
                sign = 1 - 2 * ((D.astype(np.int32) @ k) & 1)  # (-1)^<d, k> per delay
                for c2 in range(C):
                    j2 = int(((Ms[c2].astype(np.int32) @ k) & 1) @ pow2)
                    U[c2][j2] -= value * sign
        if new == 0:
            break
    n_found = len(found)
    if refit and (found or refit_support == "found+linear"):
        keys = list(found)
        if refit_support == "found+linear":
            keys += [k for k in [(), *((i,) for i in range(n))] if k not in found]
        K = _key_matrix(keys, n).astype(float)
        # <m, k> mod 2 by a float (BLAS) product: exact for counts <= n, far faster than int
        X = 1 - 2 * np.mod(all_masks.astype(float) @ K.T, 2)
        coef, *_ = np.linalg.lstsq(X, values, rcond=None)
        found = {k: float(v) for k, v in zip(keys, coef, strict=True)}
    return SpexResult(found, len(all_masks), len(D), rounds, all_masks, values, n_found)
