"""Monte Carlo experiments of the sparse PCA chapter: sample-complexity grids and timings.

Every instance of a grid gets its own seed from ``numpy.random.SeedSequence`` (seed, k, p, the
index of c, trial), so all methods see the same data and a grid is reproducible cell by cell.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np
import pandas as pd

from icml25.common.checks import (
    check_array,
    check_choice,
    check_finite_array,
    check_index_array,
    check_int,
    check_positive,
    check_probabilities,
    check_real,
    check_seed,
)
from icml25.common.timing import time_call
from icml25.sparse_pca.estimators import (
    covariance_thresholding,
    diagonal_thresholding,
    threshold_column,
    two_stage,
)
from icml25.sparse_pca.model import (
    sample_covariance,
    sin_theta,
    spiked_covariance_data,
    support_recovered,
)

#: An estimator of the grid: (X of shape (n, p), k) -> v̂ of shape (p,).
Estimator = Callable[[np.ndarray, int], np.ndarray]


def sklearn_sparse_pca(X: np.ndarray, k: int, alpha: float = 1.0, seed: int = 0) -> np.ndarray:
    """scikit-learn's ``SparsePCA`` (ℓ₁-penalised dictionary learning) with one component.

    A *different* estimator from the spiked-model methods (its sparsity is set by the penalty
    ``alpha``, not by k); it serves as the widely used library baseline of the speed panel. The
    returned unit vector is truncated to its k largest entries so that it is comparable.
    """
    X = check_array("X", X, 2)
    k = check_int("k", k, 1, X.shape[1])
    alpha = check_positive("alpha", alpha)
    seed = check_int("seed", seed, 0, 2**32 - 1)  # scikit-learn's random_state range
    from sklearn.decomposition import SparsePCA

    model = SparsePCA(n_components=1, alpha=alpha, random_state=seed, max_iter=100)
    model.fit(X)
    comp = model.components_[0]
    if not np.any(comp):
        out = np.zeros(X.shape[1])
        out[int(np.argmax(np.einsum("ij,ij->j", X, X)))] = 1.0
        return out
    idx = np.argpartition(-np.abs(comp), k - 1)[:k]
    out = np.zeros_like(comp)
    out[idx] = comp[idx]
    return out / np.linalg.norm(out)


def random_sparse(X: np.ndarray, k: int) -> np.ndarray:
    """A model-free control: a random unit vector with k non-zeros, shape (p,), seeded by the
    data's bytes (so that a grid stays reproducible)."""
    import zlib

    X = check_array("X", X, 2)
    k = check_int("k", k, 1, X.shape[1])
    rng = np.random.default_rng(zlib.crc32(np.ascontiguousarray(X).tobytes()))
    out = np.zeros(X.shape[1])
    out[rng.choice(X.shape[1], size=k, replace=False)] = rng.standard_normal(k)
    return out / np.linalg.norm(out)


def _from_cov(fn: Callable[[np.ndarray, int], np.ndarray]) -> Estimator:
    return lambda X, k: fn(sample_covariance(X), k)


#: The estimators of the chapter by display name (the names match ``plotting.METHOD_COLORS``).
METHODS: dict[str, Estimator] = {
    "Thresholding": threshold_column,
    "Thresholding (authors' start)": lambda X, k: threshold_column(X, k, init="authors"),
    "Two-stage": two_stage,
    "Two-stage (authors' start)": lambda X, k: two_stage(X, k, init="authors"),
    "Random k-sparse": lambda X, k: random_sparse(X, k),
    "Diagonal thresholding": _from_cov(diagonal_thresholding),
    "Covariance thresholding": lambda X, k: covariance_thresholding(
        sample_covariance(X), k, X.shape[0]
    ),
    "SparsePCA (scikit-learn)": sklearn_sparse_pca,
}


def instance_seed(seed: int, *keys: int) -> int:
    """A seed for one instance, derived from the grid seed and the instance's integer keys."""
    seed = check_seed("seed", seed)
    keys = tuple(check_int("keys", key, 0) for key in keys)
    return int(np.random.SeedSequence([seed, *keys]).generate_state(1)[0])


def _check_methods(methods: object) -> None:
    if (
        isinstance(methods, str)
        or not isinstance(methods, (Sequence, np.ndarray))
        or not len(methods)
    ):
        raise TypeError(f"methods must be a non-empty list of names from METHODS, got {methods!r}")
    unknown = [m for m in methods if not isinstance(m, str) or m not in METHODS]
    if unknown:
        raise ValueError(f"methods must be names from METHODS {sorted(METHODS)}, got {unknown}")


def sample_complexity_grid(
    methods: Sequence[str],
    ks: Sequence[int],
    ps: Sequence[int],
    cs: Sequence[float],
    lam: float,
    trials: int,
    shape: str = "spiky",
    seed: int = 0,
    progress: bool = True,
) -> pd.DataFrame:
    """Run every method on ``trials`` instances per (k, p, c), with n = ⌈c · k log p⌉.

    Returns:
        One row per (method, k, p, c, trial) with columns ``method, k, p, c, n, trial,
        sin_theta, success`` (success = the exact support is the k largest entries of v̂).
    """
    _check_methods(methods)
    trials = check_int("trials", trials)
    lam = check_positive("lam", lam)
    ks_arr = check_index_array("ks", ks, low=1, ndim=1)
    ps_arr = check_index_array("ps", ps, low=1, ndim=1)
    if ks_arr.max() > ps_arr.min():
        raise ValueError(f"ks must not exceed ps (k <= p), got ks {list(ks)} and ps {list(ps)}")
    check_finite_array("cs", cs, ndim=1)
    for c in cs:
        check_positive("cs[i]", c)
    check_choice("shape", shape, ("spiky", "flat"))
    check_seed("seed", seed)
    cells = [(k, p, ci, c) for k in ks for p in ps for ci, c in enumerate(cs)]
    if progress:
        from tqdm import tqdm

        cells = tqdm(cells, desc="grid")
    rows = []
    for k, p, ci, c in cells:
        n = int(np.ceil(c * k * np.log(p)))
        for t in range(trials):
            X, v, support = spiked_covariance_data(
                n, p, k, lam, shape=shape, seed=instance_seed(seed, k, p, ci, t)
            )
            for name in methods:
                v_hat = METHODS[name](X, k)
                rows.append(
                    {
                        "method": name,
                        "k": k,
                        "p": p,
                        "c": float(c),
                        "n": n,
                        "trial": t,
                        "sin_theta": sin_theta(v_hat, v),
                        "success": support_recovered(v_hat, support),
                    }
                )
    return pd.DataFrame(rows)


def timing_sweep(
    methods: Sequence[str],
    ps: Sequence[int],
    k: int,
    c: float,
    lam: float,
    repeats: int = 3,
    seed: int = 0,
) -> pd.DataFrame:
    """Time every method from the raw data X (n = ⌈c · k log p⌉), one p after the other.

    All methods are timed side by side in the same run on the same X, best of ``repeats``.

    Returns:
        One row per (method, p) with columns ``method, p, n, seconds, sin_theta``.
    """
    _check_methods(methods)
    k = check_int("k", k)
    check_index_array("ps", ps, low=1, ndim=1)
    check_positive("c", c)
    check_positive("lam", lam)
    check_int("repeats", repeats)
    check_seed("seed", seed)
    rows = []
    for p in ps:
        p = check_int("ps[i]", p, k)
        n = int(np.ceil(c * k * np.log(p)))
        X, v, _ = spiked_covariance_data(n, p, k, lam, seed=instance_seed(seed, p))
        for name in methods:
            est = METHODS[name]
            seconds = time_call(lambda est=est, X=X: est(X, k), repeats=repeats, min_time=0.01)
            err = sin_theta(est(X, k), v)
            rows.append({"method": name, "p": p, "n": n, "seconds": seconds, "sin_theta": err})
    return pd.DataFrame(rows)


def success_table(grid: pd.DataFrame) -> pd.DataFrame:
    """Mean success and mean sin θ per (method, k, p, c) of a :func:`sample_complexity_grid`."""
    needed = {"method", "k", "p", "c", "sin_theta", "success"}
    if not isinstance(grid, pd.DataFrame) or not needed <= set(grid.columns):
        raise ValueError(f"grid must be a DataFrame with columns {sorted(needed)}")
    return (
        grid.groupby(["method", "k", "p", "c"], as_index=False)
        .agg(success=("success", "mean"), sin_theta=("sin_theta", "mean"), n=("n", "first"))
        .sort_values(["method", "k", "p", "c"], ignore_index=True)
    )


def transition_point(cs: Sequence[float], success: Sequence[float], level: float = 0.5) -> float:
    """The rescaled sample size c at which the success probability first reaches ``level``.

    Linear interpolation in log c between the two grid points around the crossing; ``inf`` if
    ``level`` is never reached on the grid, ``cs[0]`` if it is reached at the first point.

    Args:
        cs: increasing grid of c = n / (k log p), shape (m,).
        success: success probabilities at ``cs``, shape (m,).
        level: the success level in (0, 1].
    """
    cs_arr = check_finite_array("cs", cs, ndim=1)
    s_arr = check_probabilities("success", success, ndim=1)
    if cs_arr.shape != s_arr.shape:
        raise ValueError("cs and success must be 1-d arrays of the same non-zero length")
    if np.any(np.diff(cs_arr) <= 0) or np.any(cs_arr <= 0):
        raise ValueError("cs must be positive and strictly increasing")
    level = check_real("level", level, 0.0, 1.0, low_open=True)
    above = np.flatnonzero(s_arr >= level)
    if above.size == 0:
        return float("inf")
    j = int(above[0])
    if j == 0:
        return float(cs_arr[0])
    s0, s1 = s_arr[j - 1], s_arr[j]
    frac = (level - s0) / (s1 - s0)
    return float(np.exp(np.log(cs_arr[j - 1]) + frac * np.log(cs_arr[j] / cs_arr[j - 1])))


def transition_table(grid: pd.DataFrame, level: float = 0.5) -> pd.DataFrame:
    """:func:`transition_point` per (method, k, p) of a grid; columns ``method, k, p, c50``."""
    check_real("level", level, 0.0, 1.0, low_open=True)
    table = success_table(grid)
    rows = [
        {"method": m, "k": k, "p": p, "c50": transition_point(g["c"], g["success"], level)}
        for (m, k, p), g in table.groupby(["method", "k", "p"])
    ]
    return pd.DataFrame(rows)


def loglog_slope(x: np.ndarray, y: np.ndarray, level: float = 0.95) -> tuple[float, float, float]:
    """Least-squares slope b of log y = a + b log x, with its ``level`` confidence interval.

    Used for rates: the error's exponent in n (minimax: -1/2) and the sample-size law's
    exponent in k (thresholding: 1, diagonal thresholding: 2).

    Args:
        x, y: positive, finite arrays of the same shape (n_points,), n_points >= 3.
        level: confidence level in (0, 1).

    Returns:
        ``(slope, lower, upper)``.
    """
    import statsmodels.api as sm

    x = check_finite_array("x", x, ndim=1)
    y = check_finite_array("y", y, ndim=1)
    if x.shape != y.shape or x.size < 3:
        raise ValueError(f"x and y must have the same length >= 3, got {x.shape} and {y.shape}")
    if (x <= 0).any() or (y <= 0).any():
        raise ValueError("x and y must be positive (they are fitted on log scales)")
    level = check_real("level", level, 0.0, 1.0, low_open=True, high_open=True)
    if np.ptp(np.log(x)) == 0:
        raise ValueError("x must take at least two different values")
    fit = sm.OLS(np.log(y), sm.add_constant(np.log(x))).fit()
    lo, hi = fit.conf_int(alpha=1 - level)[1]
    return float(fit.params[1]), float(lo), float(hi)
