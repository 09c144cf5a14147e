"""Estimators of the sparse spike v: the paper's thresholding and two-stage methods, baselines.

Paper: Cai, Xian & Ying, *Fast and Provable Algorithms for Sparse PCA with Improved Sample
Complexity*, ICML 2025; authors' code `jxying/spca` (read, not copied; the chapter's Departures
table lists every difference):

* :func:`threshold_column` (the paper's thresholding idea): pick i* = argmax_i Σ̂_ii, take the
  column Σ̂_{:, i*}, whose population value is λ v_{i*} v + e_{i*}; subtract e_{i*} and keep its
  k largest entries, S. ``init="column"`` (default) returns that truncated column, normalised;
  ``init="authors"`` is the released code's start (`jxying/spca`): the entries ranked 2 to k+1
  of |Σ̂_{:, i*}| (its slice drops the largest, Σ̂_{i*i*} itself) and the top eigenvector of Σ̂
  restricted to them. Costs O(np) (+ O(nk²) for "authors"): only the diagonal and one column of
  Σ̂ are formed.
* :func:`two_stage`: :func:`threshold_column` as the start of the truncated power method.
* :func:`truncated_power`: Yuan & Zhang (2013), v_{t+1} = T_k(Σ̂ v_t) / ‖T_k(Σ̂ v_t)‖.
* :func:`diagonal_thresholding`: Johnstone & Lu (2009), the k largest Σ̂_ii, then the top
  eigenvector of Σ̂ on that support.
* :func:`covariance_thresholding`: Krauthgamer, Nadler & Vilenchik (2015) / Deshpande &
  Montanari (2016), soft-threshold the off-diagonal of Σ̂ − I at τ/√n, top eigenvector, keep
  its k largest entries, then the top eigenvector of Σ̂ on that support.

Every estimator returns a unit vector of shape (p,) with exactly k non-zeros (up to ties).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import scipy.linalg
import scipy.sparse
import scipy.sparse.linalg

from icml25.common.checks import (
    check_array,
    check_choice,
    check_int,
    check_positive,
    check_symmetric,
)


def _top_k(x: np.ndarray, k: int) -> np.ndarray:
    """Indices of the k largest |x_j|, sorted."""
    return np.sort(np.argpartition(-np.abs(x), k - 1)[:k])


def _truncate(x: np.ndarray, k: int) -> np.ndarray:
    """T_k(x): keep the k largest-magnitude entries of x, zero the rest."""
    out = np.zeros_like(x)
    idx = _top_k(x, k)
    out[idx] = x[idx]
    return out


def _top_eigvec_on(S: np.ndarray, idx: np.ndarray) -> np.ndarray:
    """Top eigenvector of the principal submatrix S[idx, idx], embedded in ℝ^p."""
    sub = S[np.ix_(idx, idx)]
    _, vecs = scipy.linalg.eigh(sub, subset_by_index=[len(idx) - 1, len(idx) - 1])
    out = np.zeros(S.shape[0])
    out[idx] = vecs[:, 0]
    return out


def column_statistics(X: np.ndarray) -> tuple[np.ndarray, int, np.ndarray]:
    """The two O(np) statistics the thresholding estimator reads from the data X of shape (n, p).

    Returns:
        ``(d, i_star, c)``: d of shape (p,) the diagonal of Σ̂ (d_j = (1/n) Σ_i x_ij²),
        i_star = argmax_j d_j, and c of shape (p,) the column Σ̂_{:, i*} − e_{i*}, whose
        population value is λ v_{i*} v.
    """
    X = check_array("X", X, 2)
    n = X.shape[0]
    d = np.einsum("ij,ij->j", X, X) / n
    i_star = int(np.argmax(d))
    c = X.T @ X[:, i_star] / n
    c[i_star] -= 1.0
    return d, i_star, c


INITS: tuple[str, ...] = ("column", "authors")


def threshold_column(X: np.ndarray, k: int, init: str = "column") -> np.ndarray:
    """The thresholding estimator v̂ of the paper, from the data X of shape (n, p).

    1. d_j = Σ̂_jj for all j, and i* = argmax_j d_j (w.h.p. an entry with large |v_{i*}|).
    2. c = Σ̂_{:, i*} − e_{i*} ≈ λ v_{i*} v + noise of size sqrt(log p / n) per entry
       (see :func:`column_statistics`).
    3. ``init="column"``: v̂ = T_k(c) / ‖T_k(c)‖. ``init="authors"`` (the released code's
       start, replicated literally): S = the entries ranked 2..k+1 of |Σ̂_{:, i*}| = |c + e_{i*}|
       (the code's ``argsort(...)[-k-1:-1]``, which drops Σ̂_{i*i*}, the largest), and v̂ = the
       top eigenvector of Σ̂_{S,S}, embedded in ℝ^p.

    Args:
        X: data of shape (n, p), zero-mean rows.
        k: sparsity, 1 <= k <= p.
        init: ``"column"`` or ``"authors"`` (see above).

    Returns:
        v̂ of shape (p,), unit norm, k non-zeros. Sign is arbitrary (v is defined up to sign).
    """
    X = check_array("X", X, 2)
    k = check_int("k", k, 1, X.shape[1])
    if not np.any(X):
        raise ValueError("X must not be all zeros (its column statistics carry no spike)")
    init = check_choice("init", init, INITS)
    _, i_star, column = column_statistics(X)
    if init == "authors":
        if k >= X.shape[1]:
            raise ValueError(
                f"k must be < p = {X.shape[1]} with init='authors' (its slice drops "
                f"one entry), got {k}"
            )
        raw = column.copy()
        raw[i_star] += 1.0  # the code ranks Σ̂_{:, i*} itself
        idx = np.sort(np.argsort(np.abs(raw), kind="stable")[-k - 1 : -1])
        sub = X[:, idx].T @ X[:, idx] / X.shape[0]  # Σ̂_{S,S}, O(n k²)
        _, vecs = scipy.linalg.eigh(sub, subset_by_index=[k - 1, k - 1])
        v_hat = np.zeros(X.shape[1])
        v_hat[idx] = vecs[:, 0]
        return v_hat
    v_hat = _truncate(column, k)
    norm = np.linalg.norm(v_hat)
    if norm == 0:  # c = 0 exactly: only for degenerate, non-random data; fall back to e_{i*}
        v_hat[i_star] = 1.0
        return v_hat
    return v_hat / norm


def _power_iterations(
    matvec: Callable[[np.ndarray], np.ndarray],
    x0: np.ndarray,
    k: int,
    iters: int,
    tol: float,
    path: list[np.ndarray] | None = None,
) -> np.ndarray:
    """Truncated power iterations x ← T_k(M x)/‖T_k(M x)‖ for the operator ``matvec``.

    If ``path`` is a list, every iterate (the start included) is appended to it.
    """
    x = _truncate(x0, k)
    x /= np.linalg.norm(x)
    if path is not None:
        path.append(x)
    for _ in range(iters):
        y = _truncate(matvec(x), k)
        norm = np.linalg.norm(y)
        if norm == 0:
            break
        y /= norm
        if y @ x < 0:  # fix the sign so that convergence can be measured
            y = -y
        done = np.linalg.norm(y - x) < tol
        x = y
        if path is not None:
            path.append(x)
        if done:
            break
    return x


def _check_power_args(
    S: np.ndarray, x0: np.ndarray, k: int, iters: int, tol: float
) -> tuple[np.ndarray, np.ndarray, int, int, float]:
    S = check_symmetric("S", S)
    x0 = check_array("x0", x0, 1)
    p = S.shape[0]
    if x0.shape != (p,):
        raise ValueError(f"x0 must have shape ({p},) to match S, got {x0.shape}")
    k = check_int("k", k, 1, p)
    iters = check_int("iters", iters, 0)
    tol = check_positive("tol", tol)
    if not np.any(x0):
        raise ValueError("x0 must be non-zero")
    if not np.any(_truncate(x0, k)):
        raise ValueError("x0 must have a non-zero entry among its k largest")
    return S, x0, k, iters, tol


def truncated_power(
    S: np.ndarray, x0: np.ndarray, k: int, iters: int = 100, tol: float = 1e-10
) -> np.ndarray:
    """Truncated power method (Yuan & Zhang 2013) on a (p, p) covariance S from x0 of shape (p,).

    v_{t+1} = T_k(S v_t) / ‖T_k(S v_t)‖, v_0 = T_k(x0)/‖T_k(x0)‖; stops after ``iters``
    iterations or when ‖v_{t+1} − v_t‖ < tol.

    Returns:
        The last iterate, shape (p,), unit norm, k non-zeros.
    """
    S, x0, k, iters, tol = _check_power_args(S, x0, k, iters, tol)
    return _power_iterations(lambda x: S @ x, x0, k, iters, tol)


def truncated_power_path(
    S: np.ndarray, x0: np.ndarray, k: int, iters: int = 20, tol: float = 1e-10
) -> np.ndarray:
    """Every iterate of :func:`truncated_power`, shape (t + 1, p) with t <= ``iters``."""
    S, x0, k, iters, tol = _check_power_args(S, x0, k, iters, tol)
    path: list[np.ndarray] = []
    _power_iterations(lambda x: S @ x, x0, k, iters, tol, path)
    return np.stack(path)


def two_stage(
    X: np.ndarray, k: int, iters: int = 100, tol: float = 1e-10, init: str = "column"
) -> np.ndarray:
    """The paper's two-stage estimator: :func:`threshold_column`, then truncated power iterations.

    Σ̂ is never formed: Σ̂ x = Xᵀ(X x)/n costs O(np) per iteration.

    Args:
        X: data of shape (n, p).
        k: sparsity, 1 <= k <= p.
        iters, tol: as in :func:`truncated_power`.
        init: the first stage's ``init`` (:func:`threshold_column`).

    Returns:
        v̂ of shape (p,), unit norm, k non-zeros.
    """
    X = check_array("X", X, 2)
    n, p = X.shape
    k = check_int("k", k, 1, p)
    iters = check_int("iters", iters, 0)
    tol = check_positive("tol", tol)
    v0 = threshold_column(X, k, init=init)
    return _power_iterations(lambda x: X.T @ (X @ x) / n, v0, k, iters, tol)


def diagonal_thresholding(S: np.ndarray, k: int) -> np.ndarray:
    """Diagonal thresholding (Johnstone & Lu 2009) on a (p, p) covariance S.

    Support Ĵ = the k largest Σ̂_jj (population value 1 + λ v_j²); v̂ = top eigenvector of
    Σ̂_{ĴĴ}. Its weak point: the smallest support entries have diagonal signal λ v_j² ~ λ/k.

    Returns:
        v̂ of shape (p,), unit norm, k non-zeros.
    """
    S = check_symmetric("S", S)
    k = check_int("k", k, 1, S.shape[0])
    return _top_eigvec_on(S, _top_k(np.diag(S) - 1.0, k))


def covariance_thresholding(S: np.ndarray, k: int, n: int, tau: float = 4.0) -> np.ndarray:
    """Covariance thresholding (Krauthgamer et al. 2015; Deshpande & Montanari 2016).

    1. η(Σ̂ − I): soft-threshold every off-diagonal entry at τ/√n (the diagonal Σ̂_jj − 1 is
       kept); the result is sparse, so its top eigenvector comes from ARPACK (``eigsh``).
    2. Ĵ = the k largest entries of that eigenvector; v̂ = top eigenvector of Σ̂_{ĴĴ}.

    Args:
        S: (p, p) sample covariance.
        k: sparsity, 1 <= k <= p.
        n: the sample size S was computed from (sets the threshold τ/√n).
        tau: τ > 0, the threshold constant.

    Returns:
        v̂ of shape (p,), unit norm, k non-zeros.
    """
    S = check_symmetric("S", S)
    p = S.shape[0]
    k = check_int("k", k, 1, p)
    n = check_int("n", n)
    tau = check_positive("tau", tau)
    M = S - np.eye(p)
    thr = tau / np.sqrt(n)
    M = np.sign(M) * np.maximum(np.abs(M) - thr, 0.0)
    np.fill_diagonal(M, np.diag(S) - 1.0)
    if p <= 3:
        lead = scipy.linalg.eigh(M)[1][:, -1]
    else:
        try:
            # A fixed start vector keeps ARPACK deterministic.
            _, vecs = scipy.sparse.linalg.eigsh(
                scipy.sparse.csr_array(M), k=1, which="LA", v0=np.full(p, p**-0.5)
            )
            lead = vecs[:, 0]
        except scipy.sparse.linalg.ArpackNoConvergence:
            lead = scipy.linalg.eigh(M, subset_by_index=[p - 1, p - 1])[1][:, 0]
    return _top_eigvec_on(S, _top_k(lead, k))
