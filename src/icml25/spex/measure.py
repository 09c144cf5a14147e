"""Measuring SPEX against its task: counted queries, exact recovery, and the interaction-index
baselines (Faith-Banzhaf and Faith-Shap of order 2 by regression and Shapley-Taylor by
permutation sampling, from ``shapiq``; Faith-Banzhaf by ridge regression as in the authors' code).

Spectra and Möbius coefficients are ``{sorted tuple of inputs: value}`` as in the rest of the
package; the empty tuple is the constant term.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np

from icml25.common.checks import (
    check_callable,
    check_choice,
    check_finite_array,
    check_int,
    check_positive,
)
from icml25.spex.inputs import _check_coeffs, _query

__all__ = [
    "QueryCache",
    "QueryCounter",
    "exact_recovery",
    "faith_banzhaf_ridge",
    "faith_interactions",
    "index_size",
    "input_ranking",
]

Coeffs = dict[tuple[int, ...], float]
_FAITH = ("FBII", "FSII", "STII")


class QueryCounter:
    """A value function that counts the masks it is asked for (``n_queries``) and the calls.

    ``QueryCounter(f)(masks)`` returns ``f(masks)`` for (q, n) masks and adds q to
    ``n_queries``: the number of model evaluations a method really made, measured rather than
    computed from a formula.
    """

    def __init__(self, value_fn: Callable[[np.ndarray], np.ndarray]) -> None:
        self.value_fn = check_callable("value_fn", value_fn)
        self.n_queries = 0
        self.n_calls = 0

    def __call__(self, masks: np.ndarray) -> np.ndarray:
        masks = np.asarray(masks)
        y = _query(self.value_fn, masks)
        self.n_queries += len(masks)
        self.n_calls += 1
        return y


class QueryCache:
    """A value function that remembers its answers to whole batches of masks.

    ``QueryCache(f)(masks)`` returns ``f(masks)`` for (q, n) masks; a batch equal to one asked
    before (same shape, dtype and bits) is answered from memory without evaluating ``f``, and
    ``n_hits`` counts those batches. Meant for the held-out masks of :func:`faithfulness_r2`,
    which every method of a comparison is scored on (same seed, so the same batch); it keeps
    every batch it saw, so do not wrap the queries of an explainer in it.
    """

    def __init__(self, value_fn: Callable[[np.ndarray], np.ndarray]) -> None:
        self.value_fn = check_callable("value_fn", value_fn)
        self.n_hits = 0
        self._memo: dict[tuple, np.ndarray] = {}

    def __call__(self, masks: np.ndarray) -> np.ndarray:
        masks = np.asarray(masks)
        key = (masks.shape, masks.dtype.str, masks.tobytes())
        if key in self._memo:
            self.n_hits += 1
        else:
            self._memo[key] = _query(self.value_fn, masks)
        return self._memo[key].copy()


def exact_recovery(found: Coeffs, planted: Coeffs, tol: float = 1e-8) -> bool:
    """True when ``found`` has exactly the support of ``planted`` and every coefficient within
    ``tol``: the non-constant keys with ``|value| > tol`` are the same sets, and
    ``max_k |found(k) - planted(k)| <= tol``."""
    found = _check_coeffs("found", found)
    planted = _check_coeffs("planted", planted)
    tol = check_positive("tol", tol)

    def support(c: Coeffs) -> set[tuple[int, ...]]:
        return {k for k, v in c.items() if k and abs(v) > tol}

    if support(found) != support(planted):
        return False
    return all(abs(found.get(k, 0.0) - v) <= tol for k, v in planted.items() if k)


def faith_interactions(
    value_fn: Callable[[np.ndarray], np.ndarray],
    n: int,
    budget: int,
    index: str = "FBII",
    order: int = 2,
    seed: int = 0,
) -> Coeffs:
    """Faith-Banzhaf (``"FBII"``) or Faith-Shap (``"FSII"``) interactions of order <= ``order``
    from ``budget`` queries, by shapiq's regression estimators (``RegressionFBII``,
    ``RegressionFSII``): a weighted least-squares fit of f on all 1 + n + ... + C(n, order)
    AND features, the explicand being "all inputs kept" and the baseline "all masked"; or
    Shapley-Taylor (``"STII"``) by shapiq's ``PermutationSamplingSTII``.

    With fewer queries than features (:func:`index_size`) the regressions are under-determined;
    shapiq then returns its least-squares solution anyway (notebook 2 runs them only where they
    are not, and uses :func:`faith_banzhaf_ridge` beyond).

    Returns:
        Möbius-form coefficients ``{T: I(T)}`` with ``|T| <= order`` (the empty tuple is the
        intercept), i.e. the surrogate ``g(m) = sum_T I(T) prod_{i in T} m_i``.
    """
    check_callable("value_fn", value_fn)
    n = check_int("n", n, 2)
    budget = check_int("budget", budget, n + 2)
    index = check_choice("index", index, _FAITH)
    order = check_int("order", order, 1, n)
    seed = check_int("seed", seed, 0, 2**32 - 1)
    import warnings

    from shapiq.approximator import PermutationSamplingSTII, RegressionFBII, RegressionFSII

    def game(coalitions: np.ndarray) -> np.ndarray:
        return _query(value_fn, np.atleast_2d(np.asarray(coalitions)).astype(np.int8))

    cls = {"FBII": RegressionFBII, "FSII": RegressionFSII, "STII": PermutationSamplingSTII}[index]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        values = cls(n=n, max_order=order, random_state=seed).approximate(budget=budget, game=game)
    return {tuple(int(i) for i in k): float(v) for k, v in values.dict_values.items()}


def index_size(n: int, order: int = 2) -> int:
    """Number of coefficients ``sum_{r <= order} C(n, r)`` of an interaction index of order
    ``order`` over n inputs (intercept included): a regression for it needs at least as many
    queries to be determined (8,257 at n = 128, order 2)."""
    n = check_int("n", n)
    order = check_int("order", order, 0, n)
    return sum(math.comb(n, r) for r in range(order + 1))


def faith_banzhaf_ridge(
    value_fn: Callable[[np.ndarray], np.ndarray],
    n: int,
    budget: int,
    order: int = 2,
    alphas: tuple[float, ...] = (0.1, 1.0, 10.0),
    seed: int = 0,
) -> Coeffs:
    """Faith-Banzhaf interactions of order ``order`` (1 or 2) by ridge regression, as the
    authors' baseline does (``RidgeCV`` on all AND features, intercept column penalised too).

    ``budget`` uniform random masks M (q, n) are queried; the features are
    ``phi_T(m) = prod_{i in T} m_i`` for ``|T| <= order`` (p = :func:`index_size` of them). The
    fit is solved in its dual, so it costs O(q^3) however large p is: the kernel is
    ``K = phi(M) phi(M)^T = sum_{r <= order} C(M M^T, r)`` (q, q), ``beta = (K + alpha I)^{-1} y``
    and the coefficients are ``w = phi(M)^T beta`` (``w_T = sum_k beta_k prod_{i in T} M_ki``).
    ``alpha`` is chosen from ``alphas`` on a seeded 20 % hold-out of the queries (RidgeCV's
    default grid; it uses leave-one-out), then refitted on all of them.

    Returns:
        Möbius-form coefficients ``{T: w_T}`` for every ``|T| <= order`` (the empty tuple is the
        intercept), for :func:`mobius_eval`.
    """
    check_callable("value_fn", value_fn)
    n = check_int("n", n, 2)
    budget = check_int("budget", budget, 10)
    order = check_int("order", order, 1, 2)
    if isinstance(alphas, (str, dict)) or not isinstance(alphas, (tuple, list)):
        raise TypeError(f"alphas must be a tuple of positive floats, got {alphas!r}")
    grid = check_finite_array("alphas", np.asarray(alphas, dtype=float), ndim=1, min_size=1)
    if (grid <= 0).any():
        raise ValueError(f"alphas must be positive, got {alphas}")
    seed = check_int("seed", seed, 0, 2**32 - 1)
    import scipy.linalg as sl

    rng = np.random.default_rng(seed)
    M = rng.integers(0, 2, size=(budget, n)).astype(np.int8)
    y = _query(value_fn, M)
    Mf = M.astype(float)
    # c = M M^T in float32: its entries are counts <= n, exact in float32 (n < 2^24), and the
    # product is twice as fast; K = 1 + c + c (c - 1) / 2 built in place (integers, exact), so
    # that no further (q, q) array is allocated (each costs page faults, i.e. system time).
    c = M.astype(np.float32) @ M.T.astype(np.float32)
    K = c.astype(float)
    if order == 2:
        K -= 1.0
        K *= c
        K /= 2.0
        K += c
    K += 1.0
    del c

    def solve(A: np.ndarray, rhs: np.ndarray, alpha: float) -> np.ndarray:
        """(A + alpha I)^{-1} rhs by Cholesky; A (a copy or a scratch matrix) is overwritten."""
        A.flat[:: len(A) + 1] += alpha
        # A is symmetric: its transpose is the Fortran-ordered view LAPACK factors in place
        L = sl.cho_factor(A.T, lower=True, overwrite_a=True, check_finite=False)
        return sl.cho_solve(L, rhs, check_finite=False)

    perm = rng.permutation(budget)
    val, train = perm[: budget // 5], perm[budget // 5 :]
    K_tt, K_vt = K[np.ix_(train, train)], K[np.ix_(val, train)]
    scratch = np.empty_like(K_tt)
    errors = []
    for a in grid:
        np.copyto(scratch, K_tt)
        beta_t = solve(scratch, y[train], float(a))
        errors.append(float(((K_vt @ beta_t - y[val]) ** 2).mean()))
    del K_tt, K_vt, scratch
    beta = solve(K, y, float(grid[int(np.argmin(errors))]))  # K is not needed afterwards
    out: dict[tuple[int, ...], float] = {(): float(beta.sum())}
    w1 = Mf.T @ beta
    out.update({(i,): float(w1[i]) for i in range(n)})
    if order == 2:
        W = (Mf * beta[:, None]).T @ Mf  # (n, n): W_ij = sum_k beta_k M_ki M_kj
        i, j = np.triu_indices(n, 1)
        out.update({(int(a), int(b)): float(v) for a, b, v in zip(i, j, W[i, j], strict=True)})
    return out


def input_ranking(ranked: list[tuple[int, ...]]) -> list[tuple[int]]:
    """Single inputs in the order in which they first appear in a ranking of features or
    interactions (``[(3, 7), (1,), (7, 2)] -> [(3,), (7,), (1,), (2,)]``), so that an
    interaction ranking and a marginal ranking are scored on the same target (inputs)."""
    if isinstance(ranked, (str, dict)) or not isinstance(ranked, (list, tuple)):
        raise TypeError(f"ranked must be a list of tuples of inputs, got {type(ranked).__name__}")
    out: dict[int, None] = {}
    for T in ranked:
        if not isinstance(T, tuple) or not all(
            isinstance(i, (int, np.integer)) and not isinstance(i, bool) and i >= 0 for i in T
        ):
            raise ValueError(f"ranked must hold tuples of input indices (ints >= 0), got {T!r}")
        for i in T:
            out.setdefault(int(i), None)
    return [(i,) for i in out]
