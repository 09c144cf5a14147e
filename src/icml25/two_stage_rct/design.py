"""Two-stage RCT designs (Cortes-Gomez, Raman, Singh & Wilder, ICML 2025), vectorised over trials.

Symbols: ``n`` arms with effects ``mu`` μ_i, a total ``budget`` T of pulls (patients),
``first_frac`` the share of T spent in stage 1 (uniformly over all arms), s₂ the pulls left for
stage 2, spent uniformly over the selected set B with |B| = k; ``delta`` δ.

Stage 1 gives every arm ⌊first_frac·T / n⌋ pulls. The designs differ in how they choose B:

* ``"split"`` (the paper's sample splitting): split each arm's stage-1 pulls into halves U and V,
  rank arms by their U-means, and choose k̂ = argmax_k [max_{top-k by U} x̄^V_i − w(s₂/k, δ)];
  B = the top-k̂ arms by U. (The official code scores with sqrt(k / (2 s₂)), dropping the
  log(1/δ) factor; we score with the same width the certificate uses.)
* ``"omniscient"``: the same ranking, k chosen with the true μ (an upper reference);
* ``"fixed_k"`` (``k=1`` is "best arm"), ``"random_k"``: the same ranking, k fixed or uniform;
* ``"single_stage"``: no screening, all T pulls spread over the n arms;
* ``"prior_beta"``: with a Beta(α, β) prior on each μ_i, add arms greedily to B while the
  posterior expected certificate (Monte Carlo, ``n_mc`` draws) increases. That expectation is
  the design's *planning estimate* (returned as ``"planned"``; it is what the official code
  reports); ``"cert"`` is the certificate that stage 2 then actually yields.

Then stage 2 pulls each arm of B ⌊s₂/k⌋ times and certifies max_{i∈B}(x̄_i − w). Without a
``tape`` the designs work on sample means drawn exactly (a mean of m Bernoulli(μ) outcomes is
Binomial(m, μ)/m, of m Normal(μ, 1) outcomes N(μ, 1/m)); with an :class:`OutcomeTape` they read
the same patients' outcomes (common random numbers, for paired comparisons). Arrays are (t, n):
t trials at once.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from icml25.common.checks import (
    check_array,
    check_choice,
    check_int,
    check_positive,
    check_real,
    check_rng,
)
from icml25.two_stage_rct.bounds import BOUNDS, CORRECTIONS, check_delta, width_array
from icml25.two_stage_rct.tape import OutcomeTape

POLICIES: tuple[str, ...] = (
    "split",
    "omniscient",
    "fixed_k",
    "random_k",
    "single_stage",
    "prior_beta",
)
OUTCOMES: tuple[str, ...] = ("bernoulli", "normal")


@dataclass(frozen=True)
class DesignResult:
    """One trial of a design: certificate, number of arms kept, certified arm, width used."""

    cert: float
    k: int
    arm: int
    width: float


def allocation(n: int, budget: int, first_frac: float) -> tuple[int, int]:
    """Return (stage-1 pulls per arm, stage-2 pulls in total) for n arms and budget T.

    ``first_frac`` is in [0, 1), so stage 2 always keeps at least one pull.
    """
    n, budget = check_int("n", n), check_int("budget", budget)
    first_frac = _check_first_frac(first_frac)
    per_arm = int(np.floor(first_frac * budget + 1e-9)) // n
    return per_arm, budget - per_arm * n


def _check_first_frac(first_frac: object) -> float:
    return check_real("first_frac", first_frac, 0.0, 1.0, high_open=True)


def _means(rng: np.random.Generator, mu: np.ndarray, m, outcome: str) -> np.ndarray:
    """Sample means of ``m`` outcomes per arm (m broadcasts against mu); 0 where m = 0."""
    m = np.broadcast_to(np.asarray(m), mu.shape)
    if outcome == "bernoulli":
        return rng.binomial(m, mu) / np.maximum(m, 1)
    return mu + rng.standard_normal(mu.shape) / np.sqrt(np.maximum(m, 1))


def split_scores(
    u: np.ndarray,
    v: np.ndarray,
    s2: int,
    delta: float,
    bound: str = "hoeffding",
    correction: str = "none",
) -> tuple[np.ndarray, np.ndarray]:
    """Sample-splitting scores of every k, from stage-1 half-means ``u`` and ``v`` of shape (t, n).

    Arms are ranked by ``u`` (descending); the score of k is
    value(k) = max_{top-k by u} v_i − w(⌊s₂/k⌋, δ), an unbiased-ranking estimate of the
    certificate that k arms would give. k̂ = argmax_k value(k) (``scores.argmax(1) + 1``).

    Returns:
        ``(order, scores)``: order (t, n) the ranking by u, scores (t, n) value(k) for k = 1..n.
        A k with ⌊s₂/k⌋ = 0 pulls scores −inf.
    """
    check_array("u", u, 2)  # checks only: the scores keep the arrays' own dtype
    check_array("v", v, 2)
    if v.shape != u.shape:
        raise ValueError(f"v must have the shape of u {u.shape}, got {v.shape}")
    s2 = check_int("s2", s2)
    delta = check_delta(delta)
    bound = check_choice("bound", bound, BOUNDS)
    correction = check_choice("correction", correction, CORRECTIONS)
    n = u.shape[1]
    sizes = np.arange(1, n + 1)
    w_k = width_array(s2 // sizes, delta, bound, sizes if correction == "bonferroni" else 1)
    order = np.argsort(-u, axis=1, kind="stable")
    v_sorted = np.take_along_axis(v, order, axis=1)
    return order, np.maximum.accumulate(v_sorted, axis=1) - w_k


def _prior_greedy(
    successes: np.ndarray,
    pulls: int,
    s2: int,
    delta: float,
    bound: str,
    correction: str,
    alpha: float,
    beta: float,
    n_mc: int,
    rng: np.random.Generator,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Greedy prior design: (order of arms, k, planned value) per trial; B = order[:, :k].

    The planned value is the Monte-Carlo posterior expectation of the certificate of B."""
    t, n = successes.shape
    a = alpha + successes
    b = beta + pulls - successes
    theta = rng.beta(a[:, None, :], b[:, None, :], size=(t, n_mc, n))  # posterior draws
    chosen = np.zeros((t, n), dtype=bool)
    order = np.zeros((t, n), dtype=int)
    k = np.zeros(t, dtype=int)
    value = np.full(t, -np.inf)
    active = np.ones(t, dtype=bool)
    rows = np.arange(t)
    for size in range(1, n + 1):
        m = s2 // size
        if m < 1:
            break
        w = width_array(m, delta, bound, size if correction == "bonferroni" else 1)
        xbar = rng.binomial(m, theta) / m  # (t, n_mc, n)
        current = np.where(chosen[:, None, :], xbar, -np.inf).max(axis=2)  # (t, n_mc)
        cand = np.maximum(current[:, :, None], xbar).mean(axis=1) - w  # (t, n)
        cand[chosen] = -np.inf
        best = cand.argmax(axis=1)
        gain = active & (cand[rows, best] > value)
        chosen[rows[gain], best[gain]] = True
        order[rows[gain], size - 1] = best[gain]
        value[gain] = cand[rows[gain], best[gain]]
        k[gain] = size
        active = gain
        if not active.any():
            break
    for i in range(t):  # append the unchosen arms after the chosen ones
        order[i, k[i] :] = np.flatnonzero(~chosen[i])
    return order, k, value


def run_batch(
    mu: np.ndarray,
    budget: int,
    first_frac: float,
    delta: float,
    policy: str,
    rng: np.random.Generator,
    *,
    k: int = 1,
    bound: str = "hoeffding",
    correction: str = "none",
    outcome: str = "bernoulli",
    alpha: float = 1.0,
    beta: float = 1.0,
    n_mc: int = 100,
    tape: OutcomeTape | None = None,
) -> dict[str, np.ndarray]:
    """Run ``policy`` on t trials at once; ``mu`` has shape (t, n).

    ``tape`` (an :class:`OutcomeTape` built on the same ``mu``) makes every design read the same
    patients' outcomes; ``rng`` then only drives random k and the prior's Monte Carlo.

    Returns:
        ``{"cert", "k", "arm", "width"}``, each of shape (t,), and for ``"prior_beta"`` also
        ``"planned"``, the posterior expected certificate the greedy planned with.
    """
    mu = check_array("mu", mu, 2)
    t, n = mu.shape
    budget = check_int("budget", budget)
    if budget < n:
        raise ValueError(f"budget must be at least the number of arms ({n}), got {budget}")
    _check_first_frac(first_frac)
    delta = check_delta(delta)
    policy = check_choice("policy", policy, POLICIES)
    bound = check_choice("bound", bound, BOUNDS)
    correction = check_choice("correction", correction, CORRECTIONS)
    outcome = check_choice("outcome", outcome, OUTCOMES)
    if outcome == "bernoulli" and (mu.min() < 0 or mu.max() > 1):
        raise ValueError("mu must lie in [0, 1] for Bernoulli outcomes")
    rng = check_rng("rng", rng)
    k = check_int("k", k, 1, n if policy == "fixed_k" else None)
    alpha, beta = check_positive("alpha", alpha), check_positive("beta", beta)
    n_mc = check_int("n_mc", n_mc)
    if tape is not None:
        if not isinstance(tape, OutcomeTape):
            raise TypeError(f"tape must be an OutcomeTape or None, got {type(tape).__name__}")
        if tape.shape != mu.shape or tape.outcome != outcome:
            raise ValueError(
                f"tape must be built on mu's shape {mu.shape} with outcome {outcome!r}, got "
                f"{tape.shape} and {tape.outcome!r}"
            )
    bonf = correction == "bonferroni"

    if policy == "single_stage":
        m = budget // n
        w = float(width_array(m, delta, bound, n if bonf else 1))
        lower = (_means(rng, mu, m, outcome) if tape is None else tape.mean(0, m)) - w
        arm = lower.argmax(axis=1)
        return {
            "cert": lower[np.arange(t), arm],
            "k": np.full(t, n),
            "arm": arm,
            "width": np.full(t, w),
        }

    per_arm, s2 = allocation(n, budget, first_frac)
    h1 = per_arm // 2
    h2 = per_arm - h1
    if policy == "split" and h1 < 1:
        raise ValueError(
            f"first_frac must leave at least 2 stage-1 pulls per arm for 'split', got {first_frac}"
        )
    if tape is None:
        u = _means(rng, mu, h1, outcome) if h1 else np.zeros_like(mu)
        v = _means(rng, mu, h2, outcome) if h2 else np.zeros_like(mu)
    else:  # U: patients [0, h1), V: [h1, per_arm) of every arm
        u, v = tape.mean(0, h1), tape.mean(h1, h2)
    planned = None
    sizes = np.arange(1, n + 1)
    order, scores = split_scores(u, v, s2, delta, bound, correction)  # ranking by the U half
    if policy == "split":
        k_hat = scores.argmax(axis=1) + 1
    elif policy == "omniscient":  # the same score with the true effects in place of v
        k_hat = split_scores(u, mu, s2, delta, bound, correction)[1].argmax(axis=1) + 1
    elif policy == "fixed_k":
        k_hat = np.full(t, k)
    elif policy == "random_k":
        k_hat = rng.integers(1, n + 1, size=t)
    else:  # prior_beta
        if outcome != "bernoulli":
            raise ValueError("policy 'prior_beta' needs outcome='bernoulli'")
        successes = np.rint(u * h1 + v * h2)
        order, k_hat, planned = _prior_greedy(
            successes,
            per_arm,
            s2,
            delta,
            bound,
            correction,
            alpha,
            beta,
            n_mc,
            rng,
        )
    m = s2 // k_hat  # (t,)
    if m.min() < 1:
        raise ValueError("budget leaves no stage-2 pull per selected arm; raise budget")
    w = width_array(m, delta, bound, k_hat if bonf else 1)
    if tape is None:
        mu_sorted = np.take_along_axis(mu, order, axis=1)
        means = _means(rng, mu_sorted, m[:, None], outcome)
    else:  # stage 2: the next m patients of each ranked arm
        means = tape.mean(per_arm, m[:, None], arms=order)
    lower = np.where(sizes[None, :] <= k_hat[:, None], means - w[:, None], -np.inf)
    j = lower.argmax(axis=1)
    rows = np.arange(t)
    out = {"cert": lower[rows, j], "k": k_hat, "arm": order[rows, j], "width": w}
    if planned is not None:
        out["planned"] = planned
    return out


def run_design(
    mu: np.ndarray,
    budget: int,
    first_frac: float,
    delta: float,
    policy: str = "split",
    rng: np.random.Generator | None = None,
    **kw,
) -> DesignResult:
    """Run one trial of a design on arms with effects ``mu`` of shape (n,).

    Args:
        mu: the n arms' true effects (in [0, 1] for Bernoulli outcomes).
        budget: T, total pulls over both stages (>= n).
        first_frac: share of T spent in stage 1, in [0, 1).
        delta: δ in (0, 1).
        policy: one of :data:`POLICIES`.
        rng: a ``numpy.random.Generator`` (required: no global randomness).
        **kw: ``k`` (fixed_k), ``bound``, ``correction``, ``outcome``, ``alpha``, ``beta``,
            ``n_mc`` (prior_beta); see :func:`run_batch`.
    """
    mu = check_array("mu", mu, 1)
    rng = check_rng("rng", rng)
    out = run_batch(mu[None, :], budget, first_frac, delta, policy, rng, **kw)
    return DesignResult(
        cert=float(out["cert"][0]),
        k=int(out["k"][0]),
        arm=int(out["arm"][0]),
        width=float(out["width"][0]),
    )
