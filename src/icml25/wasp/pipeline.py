"""WASP-mini and its baselines: ZeroGen, Aug-PE (one or several generators), WASP.

Every generator follows the protocol ``zero_shot(label, n, rng)`` and
``vary(exemplars, label, n, rng)`` -> (n, p); the ``run_*`` functions call nothing else.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from icml25.common.checks import (
    check_array,
    check_callable,
    check_index_array,
    check_int,
    check_seed,
)
from icml25.wasp.voting import (
    contrastive_filter,
    gaussian_sigma,
    plm_weights,
    top_q_votes,
    vote_sensitivity,
)

__all__ = ["SynthResult", "run_aug_pe", "run_wasp", "run_zerogen"]


@dataclass(frozen=True)
class SynthResult:
    """A synthetic data set: ``X`` (N, p), labels ``y`` (N,), ``owner`` (N,) the generator that
    wrote each sample, ``round`` (N,) when (0 = zero-shot); ``weights`` (rounds + 1, K), row 0
    uniform, row r the weights that allocated round r; ``sigma`` the per-bin noise std."""

    X: np.ndarray
    y: np.ndarray
    owner: np.ndarray
    round: np.ndarray
    weights: np.ndarray
    sigma: float


def _check_generators(generators: object) -> list:
    if not isinstance(generators, Sequence) or isinstance(generators, str) or not generators:
        raise TypeError("generators must be a non-empty list of generators")
    for k, g in enumerate(generators):
        for method in ("zero_shot", "vary"):
            if not callable(getattr(g, method, None)):
                raise TypeError(f"generators[{k}] has no method {method}(...)")
    return list(generators)


def _check_flag(name: str, value: object) -> bool:
    if not isinstance(value, bool):
        raise TypeError(f"{name} must be a bool, got {type(value).__name__}")
    return value


def _check_eps(eps: object) -> float:
    if isinstance(eps, bool) or not isinstance(eps, (int, float, np.floating, np.integer)):
        raise TypeError(f"eps must be a real number, got {type(eps).__name__}")
    eps = float(eps)
    if math.isnan(eps) or eps <= 0:
        raise ValueError(f"eps must be > 0 (inf allowed), got {eps}")
    return eps


def _check_labels(y: object, n: int) -> tuple[np.ndarray, int]:
    y = check_index_array("y_priv", y, ndim=1)
    if len(y) != n:
        raise ValueError(f"y_priv must have one label per row of X_priv ({n}), got {len(y)}")
    n_classes = int(y.max()) + 1
    if n_classes < 2:
        raise ValueError("y_priv must hold labels 0..C-1 with C >= 2 classes")
    missing = np.flatnonzero(np.bincount(y, minlength=n_classes) == 0)
    if missing.size:
        # a class without private samples would be written from noise-only votes
        raise ValueError(
            f"y_priv must hold every label 0..C-1 (C = {n_classes}) at least once; "
            f"missing {missing.tolist()}"
        )
    return y, n_classes


def _top_voted(votes: np.ndarray, ids: np.ndarray, n: int, rng: np.random.Generator) -> np.ndarray:
    """The ``n`` entries of ``ids`` (N_c,) with the largest ``votes`` (N_c,), ties broken at
    random with ``rng`` (not by pool order): without noise most of a class's pool has no vote,
    and a stable sort would fill the exemplars with the first generator's zero-vote samples.
    A sample with a vote always ranks ahead of one with less."""
    perm = rng.permutation(len(ids))
    return ids[perm[np.argsort(-votes[perm], kind="stable")[:n]]]


def run_wasp(
    generators: Sequence,
    X_priv: np.ndarray,
    y_priv: np.ndarray,
    eps: float,
    delta: float = 1e-5,
    *,
    rounds: int = 3,
    q: int = 8,
    n_init: int = 20,
    budget: int = 300,
    n_exemplars: int = 8,
    oversample: int = 3,
    furthest: bool = True,
    contrastive: bool = True,
    weighted: bool = True,
    embed: Callable[[np.ndarray], np.ndarray] | None = None,
    seed: int = 0,
) -> SynthResult:
    """WASP-mini: (ε, δ)-DP synthetic data from K generators and M private samples (M, p).

    Start with ``n_init`` zero-shot samples per class and generator. Each of ``rounds`` rounds:
    Top-Q votes of the private samples on the pool (nearest, and furthest if ``furthest``),
    + N(0, σ²) per bin, σ = ``gaussian_sigma(eps, delta, rounds, vote_sensitivity(q,
    furthest))``; weights w from the noisy near votes (uniform if not ``weighted``); per class,
    good / bad = the ``n_exemplars`` top near- / far-voted samples (ties broken at random);
    generator k adds round(budget / C · w_k) samples by ``vary(good)`` (``oversample``× and
    filtered by :func:`contrastive_filter` if ``contrastive``). Privacy covers the votes only:
    the generators never see private data.
    """
    gens = _check_generators(generators)
    X_priv = check_array("X_priv", X_priv, 2)
    y_priv, n_classes = _check_labels(y_priv, len(X_priv))
    eps = _check_eps(eps)
    rounds = check_int("rounds", rounds, 1)
    q = check_int("q", q, 1)
    n_init = check_int("n_init", n_init, 1)
    budget = check_int("budget", budget, 1)
    n_exemplars = check_int("n_exemplars", n_exemplars, 1)
    oversample = check_int("oversample", oversample, 1)
    furthest = _check_flag("furthest", furthest)
    contrastive = _check_flag("contrastive", contrastive)
    weighted = _check_flag("weighted", weighted)
    if contrastive and not furthest:
        raise ValueError("contrastive=True needs furthest=True (the bad examples are far-voted)")
    f = (lambda a: a) if embed is None else check_callable("embed", embed)
    rng = np.random.default_rng(check_seed("seed", seed))
    sigma = gaussian_sigma(eps, delta, rounds, vote_sensitivity(q, furthest))

    K = len(gens)
    parts, ys, owners, rnds = [], [], [], []

    def add(x: np.ndarray, c: int, k: int, r: int) -> None:
        parts.append(x)
        ys.append(np.full(len(x), c))
        owners.append(np.full(len(x), k))
        rnds.append(np.full(len(x), r))

    for k, g in enumerate(gens):
        for c in range(n_classes):
            add(np.asarray(g.zero_shot(c, n_init, rng), float), c, k, 0)
    weights = [np.full(K, 1.0 / K)]
    priv_e = f(X_priv)
    for r in range(1, rounds + 1):
        S, Sy, Sk = np.concatenate(parts), np.concatenate(ys), np.concatenate(owners)
        syn_e = f(S)
        near = top_q_votes(priv_e, y_priv, syn_e, Sy, q) + rng.normal(0, sigma, len(S))
        far = None
        if furthest:
            far = top_q_votes(priv_e, y_priv, syn_e, Sy, q, furthest=True)
            far = far + rng.normal(0, sigma, len(S))
        w = plm_weights(near, Sk, K) if weighted else np.full(K, 1.0 / K)
        weights.append(w)
        for c in range(n_classes):
            ids = np.flatnonzero(Sy == c)
            good = S[_top_voted(near[ids], ids, n_exemplars, rng)]
            bad = S[_top_voted(far[ids], ids, n_exemplars, rng)] if far is not None else None
            for k, g in enumerate(gens):
                m = int(round(budget / n_classes * w[k]))
                if m == 0:
                    continue
                cands = np.asarray(
                    g.vary(good, c, oversample * m if contrastive else m, rng), float
                )
                if contrastive:
                    cands = contrastive_filter(cands, good, bad, m, embed)
                add(cands, c, k, r)
    return SynthResult(
        np.concatenate(parts),
        np.concatenate(ys),
        np.concatenate(owners),
        np.concatenate(rnds),
        np.stack(weights),
        sigma,
    )


def run_aug_pe(
    generators: Sequence,
    X_priv: np.ndarray,
    y_priv: np.ndarray,
    eps: float,
    delta: float = 1e-5,
    *,
    rounds: int = 3,
    n_init: int = 20,
    budget: int = 300,
    n_exemplars: int = 8,
    embed: Callable[[np.ndarray], np.ndarray] | None = None,
    seed: int = 0,
) -> SynthResult:
    """Aug-PE (Private Evolution): the WASP path with top-1 votes, no furthest votes, no filter
    and equal budgets, i.e. ``run_wasp(q=1, furthest=False, contrastive=False,
    weighted=False)``."""
    return run_wasp(
        generators,
        X_priv,
        y_priv,
        eps,
        delta,
        rounds=rounds,
        q=1,
        n_init=n_init,
        budget=budget,
        n_exemplars=n_exemplars,
        furthest=False,
        contrastive=False,
        weighted=False,
        embed=embed,
        seed=seed,
    )


def run_zerogen(
    generators: Sequence, n_per_class: int, n_classes: int, seed: int = 0
) -> SynthResult:
    """ZeroGen: ``n_per_class`` zero-shot samples per class from each generator, no private
    data (σ = 0, one uniform weight row)."""
    gens = _check_generators(generators)
    n_per_class = check_int("n_per_class", n_per_class, 1)
    n_classes = check_int("n_classes", n_classes, 2)
    rng = np.random.default_rng(check_seed("seed", seed))
    parts, ys, owners = [], [], []
    for k, g in enumerate(gens):
        for c in range(n_classes):
            parts.append(np.asarray(g.zero_shot(c, n_per_class, rng), float))
            ys.append(np.full(n_per_class, c))
            owners.append(np.full(n_per_class, k))
    n = sum(len(p) for p in parts)
    K = len(gens)
    return SynthResult(
        np.concatenate(parts),
        np.concatenate(ys),
        np.concatenate(owners),
        np.zeros(n, dtype=int),
        np.full((1, K), 1.0 / K),
        0.0,
    )
