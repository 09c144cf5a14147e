"""Experiments of the chapter: candidate map errors and the error grid over (n, ε)."""

from __future__ import annotations

import numpy as np
from tqdm import tqdm

from icml25.common.checks import check_index_array, check_int, check_positive, check_seed
from icml25.private_ot.family import PotentialFamily, check_family, sample_problem
from icml25.private_ot.mechanisms import (
    MECHANISMS,
    check_eps,
    report_noisy_min,
    semi_dual_scores,
)

__all__ = ["candidate_errors", "error_grid", "population_semi_dual"]


def candidate_errors(family: PotentialFamily) -> np.ndarray:
    """E[j, k] = mean over grid points of ‖∇φ_j - ∇φ_k‖², shape (M, M).

    The squared L²(P) distance between candidate maps for P uniform on the box, on the grid
    (finite-difference gradients, as in :func:`transport_map`). Computed once per family (a
    copy of the stored matrix is returned; :func:`error_grid` reuses it).
    """
    family = check_family(family)
    return family._map_distances.copy()


def error_grid(
    family: PotentialFamily,
    ns,
    epss,
    reps: int,
    clip: float = 0.3,
    truths=None,
    seed: int = 0,
    progress: bool = True,
    candidates=None,
) -> dict:
    """Map errors of the private estimate over a grid of n and ε, ``reps`` data sets per n.

    Each repetition draws a planted index θ₀ (uniform over the family, or from ``truths``), a
    data set of size n, computes the clipped semi-dual once, and selects with report-noisy-min
    (Laplace) at every ε (scores are reused across ε; ε = ∞ is the argmin).

    ``candidates`` (indices into the family, default all) restricts the mechanism's net: with
    ``truths`` outside it, the model is misspecified (the truth is not among the candidates).

    Returns:
        dict with ``err`` (len(ns), len(epss), reps) squared L²(P) errors, ``exact`` (same shape,
        bool: the planted candidate was selected), ``chosen`` (same shape, selected indices),
        ``truth`` (len(ns), reps) planted indices,
        ``random`` the mean error of a uniformly random candidate of the net (against the
        planted truths), ``floor`` (len(ns), reps) the error of the best candidate of the net,
        ``ns``, ``epss``.
    """
    family = check_family(family)
    ns = [check_int("ns", n) for n in _listed("ns", ns)]
    epss = [check_eps(e, "epss") for e in _listed("epss", epss)]
    reps = check_int("reps", reps)
    clip = check_positive("clip", clip)
    seed = check_seed("seed", seed)
    if truths is not None:
        truths = check_index_array("truths", truths, high=family.size, ndim=1)
    if candidates is None:
        net, sub = np.arange(family.size), family
    else:
        net = check_index_array("candidates", candidates, high=family.size, ndim=1)
        if np.unique(net).size != net.size:
            raise ValueError(f"candidates must hold distinct indices in [0, {family.size})")
        sub = PotentialFamily(
            family.axis, family.points, family.thetas[net], family.phi[net], family.phistar[net]
        )
    E = family._map_distances  # (M, M), read only here
    rng = np.random.default_rng(seed)
    err = np.zeros((len(ns), len(epss), reps))
    truth = np.zeros((len(ns), reps), dtype=int)
    chosen = np.zeros((len(ns), len(epss), reps), dtype=int)
    bar = tqdm(total=len(ns) * reps, disable=not progress, desc="data sets")
    for a, n in enumerate(ns):
        for r in range(reps):
            t = int(rng.integers(family.size)) if truths is None else int(rng.choice(truths))
            X, Y = sample_problem(family, t, n, rng)
            scores = semi_dual_scores(sub, X, Y, clip)
            truth[a, r] = t
            for b, eps in enumerate(epss):
                j = int(net[report_noisy_min(scores, 2 * clip / n, eps, rng, MECHANISMS[0])])
                err[a, b, r] = E[j, t]
                chosen[a, b, r] = j
            bar.update()
    bar.close()
    if truths is None and candidates is None:
        rand = float(E.mean())  # every candidate against every candidate
    else:
        rand = float(E[np.ix_(net, truth.ravel())].mean())
    return {
        "err": err,
        "exact": chosen == truth[:, None, :],
        "chosen": chosen,
        "truth": truth,
        "random": rand,
        "floor": E[np.ix_(net, truth.ravel())].min(0).reshape(truth.shape),
        "ns": ns,
        "epss": [float(e) for e in epss],
    }


def _listed(name: str, value: object) -> list:
    if isinstance(value, (str, bytes)) or not hasattr(value, "__iter__"):
        raise TypeError(f"{name} must be a list of numbers, got {type(value).__name__}")
    out = list(value)
    if not out:
        raise ValueError(f"{name} must not be empty")
    return out


def population_semi_dual(
    family: PotentialFamily, index: int, m: int = 200, clip: float = 0.3
) -> np.ndarray:
    """S(φ) = ∫[φ]_C dP + ∫[φ*]_C dQ of every candidate, shape (M,), for Q = ∇φ_index # P.

    P is uniform on the box; both integrals use the midpoint rule on an m**d grid of U
    (X = U for the first term, Y = ∇φ_index(U) for the second): no sampling noise.
    """
    from icml25.private_ot.grid import transport_map
    from icml25.private_ot.mechanisms import _clipped_mean

    family = check_family(family)
    index = check_int("index", index, low=0, high=family.size - 1)
    m = check_int("m", m, low=2)
    clip = check_positive("clip", clip)
    lo, hi, d = float(family.axis[0]), float(family.axis[-1]), family.d
    h = (hi - lo) / m
    mid = np.linspace(lo + h / 2, hi - h / 2, m)
    U = np.stack(np.meshgrid(*([mid] * d), indexing="ij"), -1).reshape(-1, d)
    Y = transport_map(family.phi[index], family.axis)(U)
    phi_max, phistar_max = family.absmax
    return _clipped_mean(family.phi, family.axis, U, clip, phi_max) + _clipped_mean(
        family.phistar, family.axis, Y, clip, phistar_max
    )
