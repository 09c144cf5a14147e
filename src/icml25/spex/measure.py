"""Measuring SPEX against its task: counted queries, exact recovery, and the interaction-index
baselines (Faith-Banzhaf and Faith-Shap of order 2 by regression, from ``shapiq``).

Spectra and Möbius coefficients are ``{sorted tuple of inputs: value}`` as in the rest of the
package; the empty tuple is the constant term.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from icml25.common.checks import check_callable, check_choice, check_int, check_positive
from icml25.spex.inputs import _check_coeffs, _query

__all__ = ["QueryCounter", "exact_recovery", "faith_interactions", "input_ranking"]

Coeffs = dict[tuple[int, ...], float]
_FAITH = ("FBII", "FSII")


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
    AND features, the explicand being "all inputs kept" and the baseline "all masked".

    With fewer queries than features the fit is under-determined; shapiq then returns its
    least-squares solution anyway (the chapter does not run that regime: notebook 2 stops the
    order-2 regressions at n = 64).

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

    from shapiq.approximator import RegressionFBII, RegressionFSII

    def game(coalitions: np.ndarray) -> np.ndarray:
        return _query(value_fn, np.atleast_2d(np.asarray(coalitions)).astype(np.int8))

    cls = RegressionFBII if index == "FBII" else RegressionFSII
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        values = cls(n=n, max_order=order, random_state=seed).approximate(budget=budget, game=game)
    return {tuple(int(i) for i in k): float(v) for k, v in values.dict_values.items()}


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
