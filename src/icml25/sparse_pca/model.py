"""The single-spiked covariance model and the error metrics of the sparse PCA chapter.

Model (Johnstone & Lu 2009): x_i ~ N(0, Σ), Σ = I_p + λ v vᵀ, i = 1..n, with ‖v‖₂ = 1 and
‖v‖₀ = k. Symbols: ``n`` samples, ``p`` dimension, ``k`` sparsity, ``lam`` λ the spike strength,
``v`` the k-sparse unit spike. The paper's condition for thresholding is λ‖v‖_∞ ≳ 1.
"""

from __future__ import annotations

from typing import Literal

import numpy as np

from icml25.common.checks import (
    check_array,
    check_choice,
    check_index_array,
    check_int,
    check_positive,
    check_seed,
)

Shape = Literal["spiky", "flat"]


def spiked_vector(
    p: int, k: int, shape: Shape = "spiky", a: float = 0.7, seed: int = 0
) -> tuple[np.ndarray, np.ndarray]:
    """Draw a k-sparse unit vector v ∈ ℝ^p on a random support.

    ``shape="spiky"``: one entry equal to ``a`` and k − 1 entries ±sqrt((1 − a²)/(k − 1)), so
    ‖v‖_∞ = a does not shrink with k. ``shape="flat"``: all k entries ±1/√k, so ‖v‖_∞ = 1/√k.

    Returns:
        ``(v, support)``: v of shape (p,), support the sorted indices of its k non-zeros.
    """
    p = check_int("p", p)
    k = check_int("k", k, 1, p)
    shape = check_choice("shape", shape, ("spiky", "flat"))
    a = check_positive("a", a)
    if a > 1:
        raise ValueError(f"a must be in (0, 1], got {a}")
    seed = check_seed("seed", seed)
    rng = np.random.default_rng(seed)
    support = rng.choice(p, size=k, replace=False)
    signs = rng.choice([-1.0, 1.0], size=k)
    values = np.full(k, 1.0 / np.sqrt(k))
    if shape == "spiky" and k > 1:
        values[0] = a
        values[1:] = np.sqrt((1.0 - a**2) / (k - 1))
    elif k == 1:
        values[:] = 1.0
    v = np.zeros(p)
    v[support] = signs * values
    return v, np.sort(support)


def spiked_covariance_data(
    n: int,
    p: int,
    k: int,
    lam: float,
    shape: Shape = "spiky",
    seed: int = 0,
    a: float = 0.7,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Sample n points of the single-spiked model x = z + √λ · u · v, z ~ N(0, I_p), u ~ N(0, 1).

    Args:
        n: sample size (>= 1).
        p: dimension (>= 1).
        k: sparsity of v, 1 <= k <= p.
        lam: λ > 0, the spike strength (Σ = I_p + λ v vᵀ).
        shape: ``"spiky"`` (λ‖v‖_∞ ≳ 1 holds for λ of order 1) or ``"flat"`` (needs λ ≳ √k).
        seed: seed of the generator; the same seed gives the same (X, v, support).
        a: the largest entry of a spiky v.

    Returns:
        ``(X, v, support)``: X of shape (n, p), v of shape (p,) with ‖v‖₂ = 1, support of
        shape (k,) (sorted indices of v's non-zeros).
    """
    n = check_int("n", n)
    lam = check_positive("lam", lam)
    rng = np.random.default_rng(check_seed("seed", seed))
    v, support = spiked_vector(p, k, shape=shape, a=a, seed=int(rng.integers(2**31)))
    z = rng.standard_normal((n, v.shape[0]))
    u = rng.standard_normal(n)
    X = z + np.sqrt(lam) * u[:, None] * v[None, :]
    return X, v, support


def sample_covariance(X: np.ndarray) -> np.ndarray:
    """Return Σ̂ = XᵀX / n, shape (p, p), for zero-mean data X of shape (n, p) (no centring)."""
    X = check_array("X", X, 2)
    return X.T @ X / X.shape[0]


def _with_norm(name: str, w: np.ndarray) -> tuple[np.ndarray, float]:
    """``(w, ‖w‖)``, w rescaled by max |w_j| only when ‖w‖ underflows to 0 (sin θ ignores scale)."""
    norm = np.linalg.norm(w)
    if norm == 0:
        top = np.abs(w).max()
        if top == 0:
            raise ValueError(f"{name} must be non-zero")
        w = w / top
        norm = np.linalg.norm(w)
    return w, norm


def sin_theta(u: np.ndarray, v: np.ndarray) -> float:
    """Return |sin ∠(u, v)| = sqrt(1 − ⟨u, v⟩² / (‖u‖²‖v‖²)), in [0, 1], sign-invariant."""
    u = check_array("u", u, 1)
    v = check_array("v", v, 1)
    if u.shape != v.shape:
        raise ValueError(f"u and v must have the same shape, got {u.shape} and {v.shape}")
    u, nu = _with_norm("u", u)
    v, nv = _with_norm("v", v)
    cos2 = min(1.0, float(u @ v / (nu * nv)) ** 2)
    return float(np.sqrt(1.0 - cos2))


def support_recovered(u: np.ndarray, support: np.ndarray) -> bool:
    """True if the k largest-magnitude entries of u are exactly ``support`` (k = len(support)):
    distinct indices into u."""
    u = check_array("u", u, 1)
    support = check_index_array("support", support, u.size, ndim=1)
    if len(set(support.tolist())) != support.size:
        raise ValueError(f"support must hold distinct indices into u, got {support}")
    top = np.argpartition(-np.abs(u), support.size - 1)[: support.size]
    return set(top.tolist()) == set(support.tolist())
