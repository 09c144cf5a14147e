"""Finite nets of smooth potentials (candidate families) and the planted transport problem.

A family holds M candidate potentials φ_θ and their conjugates φ*_θ on the grid, computed once;
every data set then only needs interpolation. ``thetas`` (M, K) are the candidates' parameters.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from functools import cached_property

import numpy as np

from icml25.common.checks import check_finite_array, check_int, check_positive, check_rng
from icml25.private_ot.grid import (
    _gradient,
    check_axis,
    check_phi,
    grid_points,
    legendre_conjugate,
)
from icml25.private_ot.grid import transport_map as _transport_map

__all__ = [
    "PotentialFamily",
    "bump_family",
    "hessian_range",
    "potential_family",
    "sample_problem",
]


@dataclass(frozen=True)
class PotentialFamily:
    """M candidate potentials on a grid.

    Attributes:
        axis: the grid's axis (n,).
        points: grid points (n**d, d).
        thetas: parameters of the candidates (M, K).
        phi: potentials φ_θ on the grid (M, n**d).
        phistar: their conjugates φ*_θ on the same points (M, n**d).
    """

    axis: np.ndarray
    points: np.ndarray
    thetas: np.ndarray
    phi: np.ndarray
    phistar: np.ndarray

    @property
    def d(self) -> int:
        """Dimension of the grid."""
        return int(self.points.shape[1])

    @property
    def size(self) -> int:
        """Number of candidates M."""
        return int(self.phi.shape[0])

    @cached_property
    def absmax(self) -> tuple[np.ndarray, np.ndarray]:
        """max over the grid of |φ_m| and of |φ*_m|, each (M,); computed once per family (the
        arrays are not to be changed after construction). Where it is <= C the clip of
        :func:`semi_dual_scores` cannot bind for that candidate."""
        return np.abs(self.phi).max(1), np.abs(self.phistar).max(1)

    @cached_property
    def _map_distances(self) -> np.ndarray:
        """The (M, M) matrix of :func:`~icml25.private_ot.candidate_errors`, computed once."""
        n, d, m = self.axis.size, self.d, self.size
        grads = _gradient(self.phi.reshape((m,) + (n,) * d), self.axis, d)
        G = np.concatenate([g.reshape(m, -1) for g in grads], 1)  # (M, d n**d)
        sq = (G**2).sum(1)
        E = (sq[:, None] + sq[None] - 2 * G @ G.T) / n**d
        return np.maximum(E, 0.0)


def potential_family(
    phi: np.ndarray, axis: np.ndarray, thetas: np.ndarray | None = None, refine: bool = True
) -> PotentialFamily:
    """A family from any candidate potentials ``phi`` (M, n**d) on the grid of ``axis``.

    ``thetas`` (M, K) labels the candidates (default: their index, shape (M, 1)); ``refine`` is
    passed to :func:`legendre_conjugate`.
    """
    axis = check_axis(axis)
    phi, d = check_phi(phi, axis)
    phi = np.atleast_2d(phi)
    if thetas is None:
        thetas = np.arange(phi.shape[0], dtype=float)[:, None]
    else:
        thetas = check_finite_array("thetas", thetas)
        if thetas.ndim == 1:
            thetas = thetas[:, None]
        if thetas.ndim != 2 or thetas.shape[0] != phi.shape[0]:
            raise ValueError(
                f"thetas must have shape (M, K) with M = {phi.shape[0]} rows, got {thetas.shape}"
            )
    points = grid_points(axis, d)
    phistar = legendre_conjugate(phi, axis, refine=refine)
    return PotentialFamily(axis, points, thetas, phi, phistar)


def bump_family(
    axis: np.ndarray,
    centers: np.ndarray,
    width: float,
    levels: np.ndarray,
    refine: bool = True,
) -> PotentialFamily:
    """φ_θ(x) = |x|²/2 + Σ_k θ_k exp(-|x - c_k|² / 2w²), θ over ``product(levels, repeat=K)``.

    Args:
        axis: the grid's axis (n,); the grid's dimension d is that of ``centers``.
        centers: bump centres c_k, shape (K, d), d in {1, 2}.
        width: w > 0, the bumps' width (φ_θ stays convex while every |θ_k| < w² roughly).
        levels: the values each θ_k takes (L,); M = L**K candidates.
        refine: passed to :func:`legendre_conjugate`.
    """
    axis = check_axis(axis)
    centers = check_finite_array("centers", centers, ndim=2)
    if centers.shape[1] not in (1, 2):
        raise ValueError(f"centers must have shape (K, d) with d in {{1, 2}}, got {centers.shape}")
    width = check_positive("width", width)
    levels = check_finite_array("levels", levels, ndim=1)
    k, d = centers.shape
    if levels.size**k > 20000:
        raise ValueError(f"levels: {levels.size}**{k} candidates is too many (at most 20000)")
    points = grid_points(axis, d)
    bumps = np.exp(-((points[:, None, :] - centers[None]) ** 2).sum(-1) / (2 * width**2))
    thetas = np.array(list(itertools.product(levels, repeat=k)), dtype=float)  # (M, K)
    phi = 0.5 * (points**2).sum(1)[None] + thetas @ bumps.T  # (M, n**d)
    return potential_family(phi, axis, thetas=thetas, refine=refine)


def check_family(family: object) -> PotentialFamily:
    """``family`` if it is a :class:`PotentialFamily`; a TypeError naming it otherwise."""
    if not isinstance(family, PotentialFamily):
        raise TypeError(f"family must be a PotentialFamily, got {type(family).__name__}")
    return family


def sample_problem(
    family: PotentialFamily, index: int, n: int, rng: np.random.Generator
) -> tuple[np.ndarray, np.ndarray]:
    """n source samples X ~ Unif(box) and n targets Y = ∇φ_index(U), U ~ Unif(box) independent.

    Returns:
        ``(X, Y)``, each (n, d).
    """
    family = check_family(family)
    index = check_int("index", index, low=0, high=family.size - 1)
    n = check_int("n", n)
    rng = check_rng("rng", rng)
    lo, hi, d = float(family.axis[0]), float(family.axis[-1]), family.d
    X = rng.uniform(lo, hi, (n, d))
    U = rng.uniform(lo, hi, (n, d))
    return X, _transport_map(family.phi[index], family.axis)(U)


def hessian_range(family: PotentialFamily, chunk: int = 256) -> tuple[float, float]:
    """(μ, L): the smallest and the largest eigenvalue of ∇²φ_θ over all candidates and grid points.

    The Hessians are finite differences of the gradients (``np.gradient(edge_order=2)`` twice, as
    in :func:`transport_map`), symmetrised; in d = 1 they are second derivatives. For the
    population semi-dual, S(φ) - S(φ₀) = ∫ D_φ*(∇φ₀(x), ∇φ(x)) dP(x) (a Bregman divergence of
    φ*), and φ* is 1/L-strongly convex and 1/μ-smooth, so the stability ratio
    (S(φ) - S(φ₀)) / ‖∇φ - ∇φ₀‖² lies in [1/(2L), 1/(2μ)] (μ > 0; away from the box's edges).
    """
    family = check_family(family)
    chunk = check_int("chunk", chunk)
    n, d, m = family.axis.size, family.d, family.size
    lo, hi = np.inf, -np.inf
    for start in range(0, m, chunk):
        vals = family.phi[start : start + chunk].reshape((-1,) + (n,) * d)
        grads = _gradient(vals, family.axis, d)
        if d == 1:
            h = _gradient(grads[0], family.axis, 1)[0]
            lo, hi = min(lo, float(h.min())), max(hi, float(h.max()))
            continue
        (h11, h12), (h21, h22) = (_gradient(g, family.axis, 2) for g in grads)
        half_tr, off = (h11 + h22) / 2, (h12 + h21) / 2
        disc = np.sqrt(((h11 - h22) / 2) ** 2 + off**2)
        lo, hi = min(lo, float((half_tr - disc).min())), max(hi, float((half_tr + disc).max()))
    return lo, hi
