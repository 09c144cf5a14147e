"""From a sparse Fourier spectrum to interaction indices, faithfulness, and marginal baselines.

Möbius (AND) form: ``f(m) = sum_S a(S) prod_{i in S} m_i``. Since ``(-1)^{m_i} = 1 - 2 m_i``,

    a(S) = (-2)^{|S|} sum_{k superset of S} F(k).

Indices follow in closed form from the Möbius coefficients (Grabisch's formulas; the Faith
indices from Tsai, Yeh and Ravikumar, 2023).
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable

import numpy as np

from icml25.common.checks import (
    check_callable,
    check_choice,
    check_finite_array,
    check_index_array,
    check_int,
    check_seed,
)
from icml25.spex.core import fourier_eval
from icml25.spex.inputs import _as_masks, _check_coeffs, _query, check_masks

__all__ = [
    "faithfulness_r2",
    "greedy_removal_order",
    "recovery_rate",
    "removal_drops",
    "fourier_to_mobius",
    "linear_surrogate",
    "marginal_baselines",
    "mobius_eval",
    "to_index",
]

Coeffs = dict[tuple[int, ...], float]
INDICES = ("FBII", "SV", "BV", "STII", "FSII")
_MARGINAL = ("LIME", "Banzhaf", "KernelSHAP")
#: The most subsets (sum over keys of 2^|key|) a transform between bases enumerates.
MAX_SUBSETS = 2**20


def fourier_to_mobius(F: Coeffs) -> Coeffs:
    """Möbius coefficients ``a(S) = (-2)^|S| sum_{k >= S} F(k)`` of a Fourier spectrum.

    Every subset of every key is enumerated, so the keys may hold at most ``MAX_SUBSETS``
    subsets in all (orders up to 20).
    """
    F = _check_coeffs("F", F, max_subsets=MAX_SUBSETS)
    a: dict[tuple[int, ...], float] = {}
    for k, v in F.items():
        for r in range(len(k) + 1):
            for S in itertools.combinations(k, r):
                a[S] = a.get(S, 0.0) + v * (-2.0) ** r
    cut = 1e-12 * max((abs(v) for v in a.values()), default=0.0)
    return {S: v for S, v in a.items() if abs(v) > cut}


def mobius_eval(a: Coeffs, masks: np.ndarray) -> np.ndarray:
    """Evaluate ``sum_S a(S) prod_{i in S} m_i`` on (q, n) masks."""
    masks = _as_masks(masks)
    _check_coeffs("a", a, masks.shape[1], n_name="the number of columns of masks")
    out = np.zeros(len(masks))
    by_size: dict[int, list[tuple[tuple[int, ...], float]]] = {}
    for S, v in a.items():
        by_size.setdefault(len(S), []).append((S, v))
    m = masks.astype(bool)
    for size, items in by_size.items():
        if size == 0:
            out += sum(v for _, v in items)
            continue
        if size == 2:  # pairs as one matrix: sum_{i<j} a_ij m_i m_j = rowsum((m A) * m)
            A = np.zeros((masks.shape[1], masks.shape[1]))
            ij = np.array([S for S, _ in items])
            A[ij[:, 0], ij[:, 1]] = [v for _, v in items]
            mf = masks.astype(float)
            out += ((mf @ A) * mf).sum(1)
            continue
        for s in range(0, len(items), 4096):  # vectorised in chunks of 4096 sets
            chunk = items[s : s + 4096]
            idx = np.array([S for S, _ in chunk])  # (sets, size)
            hit = m[:, idx].all(axis=2)  # (q, sets)
            out += hit @ np.array([v for _, v in chunk])
    return out


def _superset_sum(a: Coeffs, weight: Callable[[int, int], float], order: int) -> Coeffs:
    """``I(T) = sum_{S >= T} weight(|S|, |T|) a(S)`` for every T of size 1..order with I != 0."""
    out: dict[tuple[int, ...], float] = {}
    for S, v in a.items():
        for r in range(1, min(order, len(S)) + 1):
            for T in itertools.combinations(S, r):
                out[T] = out.get(T, 0.0) + weight(len(S), r) * v
    return {T: v for T, v in out.items() if v != 0.0}


def to_index(mobius: Coeffs, index: str = "FBII", order: int = 2) -> Coeffs:
    """Interaction index of every set T with 1 <= |T| <= ``order`` from Möbius coefficients.

    * ``"SV"`` Shapley values (order 1): ``sum_{S >= i} a(S) / |S|``.
    * ``"BV"`` Banzhaf values (order 1): ``sum_{S >= i} a(S) / 2^{|S|-1}``.
    * ``"STII"`` Shapley-Taylor: ``a(T)`` for |T| < order, ``sum_{S >= T} a(S) / C(|S|, order)``
      for |T| = order.
    * ``"FBII"`` Faith-Banzhaf: the best approximation of degree ``order`` under uniform
      masks, i.e. the Möbius form of the Fourier spectrum truncated to ``|k| <= order``.
    * ``"FSII"`` Faith-Shap: ``a(T) + (-1)^{order-|T|} |T|/(order+|T|) C(order, |T|)
      sum_{S > T, |S| > order} C(|S|-1, order) / C(|S|+order-1, order+|T|) a(S)``.
    """
    mobius = _check_coeffs("mobius", mobius, max_subsets=MAX_SUBSETS)
    index = check_choice("index", index, INDICES)
    order = check_int("order", order)
    if index in ("SV", "BV") and order != 1:
        raise ValueError(f"{index} is an order-1 index, got order={order}")
    if index == "SV":
        return _superset_sum(mobius, lambda s, r: 1.0 / s, 1)
    if index == "BV":
        return _superset_sum(mobius, lambda s, r: 2.0 ** (1 - s), 1)
    if index == "STII":
        return _superset_sum(
            mobius,
            lambda s, r: (1.0 if s == r else 0.0) if r < order else 1 / math.comb(s, order),
            order,
        )
    if index == "FBII":
        F = _mobius_to_fourier(mobius)
        low = {k: v for k, v in F.items() if len(k) <= order}
        a = fourier_to_mobius(low)
        return {T: v for T, v in a.items() if 1 <= len(T) <= order}
    if index == "FSII":
        ell = order

        def w(s: int, r: int) -> float:
            if s == r:
                return 1.0
            if s <= ell:
                return 0.0
            return (
                (-1) ** (ell - r)
                * r
                / (ell + r)
                * math.comb(ell, r)
                * math.comb(s - 1, ell)
                / math.comb(s + ell - 1, ell + r)
            )

        return _superset_sum(mobius, w, ell)
    raise ValueError(f"index must be one of 'FBII', 'SV', 'BV', 'STII', 'FSII', got {index!r}")


def _mobius_to_fourier(a: Coeffs) -> Coeffs:
    """Inverse of :func:`fourier_to_mobius`: ``prod_{i in S} m_i = prod (1 - (-1)^{m_i}) / 2``."""
    F: dict[tuple[int, ...], float] = {}
    for S, v in a.items():
        for r in range(len(S) + 1):
            for k in itertools.combinations(S, r):
                F[k] = F.get(k, 0.0) + v * (-1) ** r / 2 ** len(S)
    return {k: v for k, v in F.items() if v != 0.0}


def linear_surrogate(w: np.ndarray) -> Callable[[np.ndarray], np.ndarray]:
    """The additive surrogate ``g(m) = w[0] + sum_i w[i+1] m_i`` of a marginal attribution.

    ``w`` is finite, of shape (n + 1,) with n >= 1: the intercept, then one weight per input.
    """
    w = check_finite_array("w", w, ndim=1, min_size=2)
    return lambda masks: w[0] + np.asarray(masks, dtype=float) @ w[1:]


def faithfulness_r2(
    value_fn: Callable[[np.ndarray], np.ndarray],
    surrogate: Callable[[np.ndarray], np.ndarray] | Coeffs,
    n: int,
    n_masks: int = 2000,
    seed: int = 0,
) -> float:
    """``R^2 = 1 - ||f - g||^2 / ||f - mean f||^2`` on ``n_masks`` uniform random masks.

    ``surrogate`` is a callable on masks, or a Fourier spectrum dict (evaluated exactly). A
    value function that is constant on the masks has no R^2 (``ValueError``).
    """
    check_callable("value_fn", value_fn)
    n = check_int("n", n)
    n_masks = check_int("n_masks", n_masks, 2)
    seed = check_seed("seed", seed)
    if isinstance(surrogate, dict):
        F = _check_coeffs("surrogate", surrogate, n)
        surrogate = lambda m: fourier_eval(F, m)  # noqa: E731
    if not callable(surrogate):
        raise TypeError(f"surrogate must be callable or a dict, got {type(surrogate).__name__}")
    masks = np.random.default_rng(seed).integers(0, 2, size=(n_masks, n)).astype(np.int8)
    y = _query(value_fn, masks)
    g = _query(surrogate, masks, "surrogate")
    if np.all(y == y[0]):
        raise ValueError("value_fn is constant on the sampled masks, so R^2 is undefined")
    return float(1 - ((y - g) ** 2).sum() / ((y - y.mean()) ** 2).sum())


def marginal_baselines(
    value_fn: Callable[[np.ndarray], np.ndarray],
    n: int,
    budget: int,
    seed: int = 0,
    methods: tuple[str, ...] = ("LIME", "Banzhaf", "KernelSHAP"),
) -> dict[str, np.ndarray]:
    """Marginal attributions, each from ``budget`` value-function queries.

    * ``"LIME"``: ridge regression (alpha 1e-3 per query) of f on uniform random masks,
      weighted by LIME's exponential kernel of the fraction of masked inputs (width 0.25).
    * ``"Banzhaf"``: ordinary least squares of f on uniform random masks (the Banzhaf values
      are the OLS slopes under the uniform distribution).
    * ``"KernelSHAP"``: ``shap.KernelExplainer`` (all inputs kept vs all masked), ``nsamples =
      budget``, no L1 selection; intercept = f(all masked).

    Returns ``{name: (n + 1,) array [intercept, w_1 .. w_n]}`` for :func:`linear_surrogate`.
    """
    check_callable("value_fn", value_fn)
    n = check_int("n", n)
    budget = check_int("budget", budget, n + 2)
    seed = check_int("seed", seed, 0, 2**32 - 1)  # shap draws from numpy's legacy global state
    if not isinstance(methods, (tuple, list, set, frozenset)):
        raise TypeError(f"methods must be a tuple of method names, got {methods!r}")
    unknown = [m for m in methods if not isinstance(m, str) or m not in _MARGINAL]
    if unknown or not methods:
        raise ValueError(f"methods must be among 'LIME', 'Banzhaf', 'KernelSHAP', got {methods}")
    out: dict[str, np.ndarray] = {}
    if {"LIME", "Banzhaf"} & set(methods):
        rng = np.random.default_rng(seed)
        masks = rng.integers(0, 2, size=(budget, n)).astype(np.int8)
        y = _query(value_fn, check_masks(masks, n))
        X = np.hstack([np.ones((budget, 1)), masks.astype(float)])
        if "Banzhaf" in methods:
            out["Banzhaf"] = np.linalg.lstsq(X, y, rcond=None)[0]
        if "LIME" in methods:
            dist = 1 - masks.mean(1)
            sw = np.exp(-(dist**2) / 0.25**2)
            A = X * sw[:, None]
            reg = 1e-3 * budget * np.eye(n + 1)
            reg[0, 0] = 0.0
            out["LIME"] = np.linalg.solve(X.T @ A + reg, A.T @ y)
    if "KernelSHAP" in methods:
        out["KernelSHAP"] = _kernel_shap(value_fn, n, budget, seed)
    return {m: out[m] for m in methods}


def _kernel_shap(value_fn: Callable, n: int, budget: int, seed: int) -> np.ndarray:
    import logging
    import warnings

    import shap

    def f(X: np.ndarray) -> np.ndarray:
        return np.asarray(value_fn(np.rint(X).astype(np.int8)), dtype=float)

    np.random.seed(seed)  # noqa: NPY002 (shap samples coalitions with the global generator)
    logging.getLogger("shap").setLevel(logging.ERROR)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        explainer = shap.KernelExplainer(f, np.zeros((1, n)))
        phi = explainer.shap_values(np.ones((1, n)), nsamples=budget, silent=True, l1_reg=False)
    phi = np.asarray(phi, dtype=float).reshape(-1)[:n]
    return np.concatenate([[float(explainer.expected_value)], phi])


def greedy_removal_order(
    surrogate: Callable[[np.ndarray], np.ndarray], n: int, r_max: int
) -> list[int]:
    """Inputs to remove, in order: each step masks the input whose removal lowers the
    surrogate's output most, given the inputs already removed (start: everything kept)."""
    check_callable("surrogate", surrogate)
    n = check_int("n", n)
    r_max = check_int("r_max", r_max, 1, n)
    kept = np.ones(n, dtype=np.int8)
    order: list[int] = []
    for _ in range(r_max):
        cand = np.flatnonzero(kept)
        trial = np.repeat(kept[None], len(cand), axis=0)
        trial[np.arange(len(cand)), cand] = 0
        best = int(cand[np.argmin(_query(surrogate, trial, "surrogate"))])
        kept[best] = 0
        order.append(best)
    return order


def removal_drops(
    value_fn: Callable[[np.ndarray], np.ndarray], n: int, order: list[int]
) -> np.ndarray:
    """``f(1) - f(1 with order[:r] masked)`` for r = 1 .. len(order): the top-r removal curve.

    ``order`` holds distinct inputs in 0..n−1.
    """
    check_callable("value_fn", value_fn)
    n = check_int("n", n)
    idx = check_index_array("order", order, n, ndim=1, min_size=0, high_name="n")
    if len(set(idx.tolist())) != idx.size:
        raise ValueError(f"order must hold distinct inputs, got {list(order)}")
    masks = np.ones((len(order) + 1, n), dtype=np.int8)
    for r in range(1, len(order) + 1):
        masks[r:, order[r - 1]] = 0
    y = _query(value_fn, masks)
    return y[0] - y[1:]


def _check_inputs(name: str, T: object) -> None:
    """``T`` must be a tuple of distinct input indices (ints >= 0)."""
    if not isinstance(T, tuple):
        raise TypeError(f"{name} must hold tuples of inputs, got {T!r}")
    if not all(isinstance(i, (int, np.integer)) and not isinstance(i, bool) and i >= 0 for i in T):
        raise ValueError(f"{name} must hold tuples of input indices (ints >= 0), got {T!r}")
    if len(set(T)) != len(T):
        raise ValueError(f"{name} must hold tuples of distinct inputs, got {T!r}")


def recovery_rate(ranked: list[tuple[int, ...]], support: tuple[int, ...], r: int) -> float:
    """Share of the ``support`` inputs covered by the first ``r`` entries of ``ranked`` (each
    entry a feature or an interaction, as a tuple of inputs): Recovery-rate@r."""
    if isinstance(ranked, (str, dict)) or not isinstance(ranked, (list, tuple)):
        raise TypeError(f"ranked must be a list of tuples of inputs, got {type(ranked).__name__}")
    for T in ranked:
        _check_inputs("ranked", T)
    _check_inputs("support", support)
    if not support:
        raise ValueError("support must hold at least one input")
    r = check_int("r", r)
    covered = set().union(*[set(T) for T in ranked[:r]]) if ranked else set()
    return len(covered & set(support)) / len(support)
