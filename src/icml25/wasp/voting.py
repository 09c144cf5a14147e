"""WASP's private side: Top-Q votes, their sensitivity, the Gaussian noise, PLM weights, the filter.

Symbols: private embeddings ``priv_emb`` (M, d) with labels ``priv_y`` (M,); synthetic
embeddings ``syn_emb`` (N, d) with labels ``syn_y`` (N,); ``q`` = Q, the votes per private
sample; the vote histogram h (N,); σ the per-bin noise std; K generators ("PLMs").
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from scipy.optimize import brentq
from scipy.stats import norm

from icml25.common.checks import (
    check_array,
    check_callable,
    check_choice,
    check_finite_array,
    check_index_array,
    check_int,
    check_real,
    check_rng,
)

__all__ = [
    "AuditResult",
    "audit_round",
    "contrastive_filter",
    "empirical_epsilon",
    "gaussian_sigma",
    "plm_weights",
    "top_q_votes",
    "vote_sensitivity",
]


def _labelled(emb_name: str, emb: object, y_name: str, y: object, width: int | None = None):
    emb = check_array(emb_name, emb, 2)
    y = check_index_array(y_name, y, ndim=1)
    if len(y) != len(emb):
        raise ValueError(
            f"{y_name} must have one label per row of {emb_name} ({len(emb)}), got {len(y)}"
        )
    if width is not None and emb.shape[1] != width:
        raise ValueError(f"{emb_name} must have {width} columns, got {emb.shape[1]}")
    return emb, y


def top_q_votes(
    priv_emb: np.ndarray,
    priv_y: np.ndarray,
    syn_emb: np.ndarray,
    syn_y: np.ndarray,
    q: int,
    furthest: bool = False,
) -> np.ndarray:
    """The noiseless Top-Q histogram h (N,): each private sample gives 2^-i to the i-th
    nearest (``furthest``: furthest) synthetic sample of its class, i = 0..q-1, by squared
    Euclidean distance; a class with fewer than q candidates gets votes on all of them."""
    priv_emb, priv_y = _labelled("priv_emb", priv_emb, "priv_y", priv_y)
    syn_emb, syn_y = _labelled("syn_emb", syn_emb, "syn_y", syn_y, priv_emb.shape[1])
    q = check_int("q", q, 1)
    votes = np.zeros(len(syn_emb))
    for c in np.unique(priv_y):
        ids = np.flatnonzero(syn_y == c)
        if ids.size == 0:
            continue
        d = ((priv_emb[priv_y == c, None, :] - syn_emb[None, ids, :]) ** 2).sum(-1)  # (M_c, N_c)
        order = np.argsort(-d if furthest else d, axis=1, kind="stable")[:, :q]
        # bincount, not np.add.at: with numpy 2.4.6, np.add.at broadcasting a (q,) value over
        # (M_c, q) indices wrote garbage (measured); an explicit per-entry weight is safe
        w = np.broadcast_to(0.5 ** np.arange(order.shape[1]), order.shape).ravel()
        votes += np.bincount(ids[order].ravel(), weights=w, minlength=len(votes))
    return votes


def vote_sensitivity(q: int, both_histograms: bool = False) -> float:
    """L2 sensitivity of the Top-Q histogram to adding or removing one private sample:
    Δ = sqrt(Σ_{i<q} 4^-i); × √2 when the nearest and furthest histograms are released."""
    q = check_int("q", q, 1)
    if not isinstance(both_histograms, bool):
        raise TypeError(f"both_histograms must be a bool, got {type(both_histograms).__name__}")
    delta = math.sqrt(sum(0.25**i for i in range(q)))
    return delta * (math.sqrt(2.0) if both_histograms else 1.0)


def _gdp_delta(eps: float, mu: float) -> float:
    """δ(ε) of μ-GDP: Φ(-ε/μ + μ/2) - e^ε Φ(-ε/μ - μ/2) (the second term in log space)."""
    return float(norm.cdf(-eps / mu + mu / 2) - np.exp(eps + norm.logcdf(-eps / mu - mu / 2)))


def gaussian_sigma(
    eps: float, delta: float, rounds: int, sensitivity: float, accountant: str = "exact"
) -> float:
    """Per-bin noise std σ for ``rounds`` Gaussian releases of L2 sensitivity Δ to be (ε, δ)-DP.

    ``"exact"``: the composition is μ-GDP with μ = √rounds·Δ/σ; μ solves δ(ε; μ) = δ (brentq).
    ``"zcdp"``: ρ = (√(log(1/δ) + ε) - √log(1/δ))², σ = Δ·√(rounds / (2ρ)) (looser).
    ``eps = inf`` gives σ = 0 (no privacy).
    """
    if isinstance(eps, bool) or not isinstance(eps, (int, float, np.floating, np.integer)):
        raise TypeError(f"eps must be a real number, got {type(eps).__name__}")
    eps = float(eps)
    if math.isnan(eps) or eps <= 0:
        raise ValueError(f"eps must be > 0 (inf allowed), got {eps}")
    delta = check_real("delta", delta, 0.0, 1.0, low_open=True, high_open=True)
    rounds = check_int("rounds", rounds, 1)
    sensitivity = check_real("sensitivity", sensitivity, 0.0, None, low_open=True)
    accountant = check_choice("accountant", accountant, ("exact", "zcdp"))
    if math.isinf(eps):
        return 0.0
    if accountant == "zcdp":
        lg = math.log(1 / delta)
        rho = (math.sqrt(lg + eps) - math.sqrt(lg)) ** 2
        return sensitivity * math.sqrt(rounds / (2 * rho))
    hi = 1.0
    while _gdp_delta(eps, hi) < delta:
        hi *= 2.0
    mu = brentq(lambda m: _gdp_delta(eps, m) - delta, 1e-12, hi, xtol=1e-14, rtol=1e-13)
    return math.sqrt(rounds) * sensitivity / mu


def plm_weights(noisy_votes: np.ndarray, owner: np.ndarray, n_plm: int) -> np.ndarray:
    """PLM weights w (K,): w_k ∝ max(mean noisy vote of generator k's samples, 0).

    The mean is taken before clipping; a generator without samples gets 0; if every mean is
    ≤ 0 the weights are uniform."""
    noisy_votes = check_finite_array("noisy_votes", noisy_votes, ndim=1)
    n_plm = check_int("n_plm", n_plm, 1)
    owner = check_index_array("owner", owner, n_plm, ndim=1, high_name="n_plm")
    if len(owner) != len(noisy_votes):
        raise ValueError(f"owner must have one entry per entry of noisy_votes ({len(noisy_votes)})")
    counts = np.bincount(owner, minlength=n_plm)
    sums = np.bincount(owner, weights=noisy_votes, minlength=n_plm)
    mean = np.divide(sums, counts, out=np.zeros(n_plm), where=counts > 0)
    score = np.maximum(mean, 0.0)
    if score.sum() <= 0:
        return np.full(n_plm, 1.0 / n_plm)
    return score / score.sum()


def contrastive_filter(
    cands: np.ndarray,
    good: np.ndarray,
    bad: np.ndarray,
    m: int,
    embed: Callable[[np.ndarray], np.ndarray] | None = None,
) -> np.ndarray:
    """The ``m`` candidates (rows of ``cands``, (n, p)) with the smallest score
    min_g ‖e - e_g‖² - min_b ‖e - e_b‖² (e = embed(x); identity if None), best first: (m, p).

    The stand-in for contrastive prompting: close to a good (top-voted) sample, far from a bad
    (furthest-voted) one."""
    cands = check_array("cands", cands, 2)
    good = check_array("good", good, 2)
    bad = check_array("bad", bad, 2)
    for name, arr in (("good", good), ("bad", bad)):
        if arr.shape[1] != cands.shape[1]:
            raise ValueError(f"{name} must have {cands.shape[1]} columns like cands")
    m = check_int("m", m, 1, len(cands))
    if embed is not None:
        embed = check_callable("embed", embed)
    f = (lambda a: a) if embed is None else embed
    ec, eg, eb = f(cands), f(good), f(bad)
    d_good = ((ec[:, None] - eg[None]) ** 2).sum(-1).min(1)
    d_bad = ((ec[:, None] - eb[None]) ** 2).sum(-1).min(1)
    return cands[np.argsort(d_good - d_bad, kind="stable")[:m]]


@dataclass(frozen=True)
class AuditResult:
    """ROC of the likelihood-ratio test between noisy histograms on D and on D minus ``drop``.

    ``fpr``, ``tpr`` (T,) over thresholds; ``mu`` = ‖Δh‖/σ (the GDP parameter of one release);
    ``mu_hat`` the measured shift of the test statistic; ``stat_d``, ``stat_minus`` (n_releases,).
    """

    fpr: np.ndarray
    tpr: np.ndarray
    mu: float
    mu_hat: float
    stat_d: np.ndarray
    stat_minus: np.ndarray


def audit_round(
    priv_emb: np.ndarray,
    priv_y: np.ndarray,
    syn_emb: np.ndarray,
    syn_y: np.ndarray,
    drop: int,
    q: int,
    sigma: float,
    n_releases: int,
    rng: np.random.Generator,
) -> AuditResult:
    """Release h(D) + N(0, σ²I) and h(D⁻) + N(0, σ²I) (D⁻: D without private sample ``drop``)
    ``n_releases`` times each; score each release by the likelihood-ratio statistic
    ⟨r - h(D⁻), Δh⟩ / (σ‖Δh‖) (N(0, 1) on D⁻, N(μ, 1) on D) and return the test's ROC."""
    priv_emb, priv_y = _labelled("priv_emb", priv_emb, "priv_y", priv_y)
    drop = check_int("drop", drop, 0, len(priv_emb) - 1)
    sigma = check_real("sigma", sigma, 0.0, None, low_open=True)
    n_releases = check_int("n_releases", n_releases, 1)
    rng = check_rng("rng", rng)
    h_d = top_q_votes(priv_emb, priv_y, syn_emb, syn_y, q)
    keep = np.arange(len(priv_emb)) != drop
    if keep.sum() == 0:
        raise ValueError("drop must leave at least one private sample (priv_emb has one row)")
    h_minus = top_q_votes(priv_emb[keep], priv_y[keep], syn_emb, syn_y, q)
    dh = h_d - h_minus
    norm_dh = float(np.linalg.norm(dh))
    if norm_dh == 0.0:
        raise ValueError(
            f"drop={drop}: removing this private sample changes no vote (its class has no "
            "synthetic sample in syn_y), so there is nothing to audit"
        )
    u = dh / norm_dh
    rel_d = h_d + sigma * rng.standard_normal((n_releases, len(h_d)))
    rel_m = h_minus + sigma * rng.standard_normal((n_releases, len(h_d)))
    stat_d = (rel_d - h_minus) @ u / sigma
    stat_m = (rel_m - h_minus) @ u / sigma
    thresholds = np.sort(np.concatenate([stat_d, stat_m, [-np.inf, np.inf]]))[::-1]
    fpr = (stat_m[None, :] >= thresholds[:, None]).mean(1)
    tpr = (stat_d[None, :] >= thresholds[:, None]).mean(1)
    return AuditResult(
        fpr, tpr, norm_dh / sigma, float(stat_d.mean() - stat_m.mean()), stat_d, stat_m
    )


def empirical_epsilon(audit: AuditResult, delta: float, alpha: float = 0.05) -> float:
    """A (1 - alpha) lower confidence bound on ε from an audit's ROC: the largest
    log((TPR_lo - δ) / FPR_hi) over thresholds (and the same with the roles of the two errors
    swapped), TPR_lo / FPR_hi two-sided Clopper-Pearson bounds; 0 if no threshold gives one."""
    from scipy.stats import beta

    if not isinstance(audit, AuditResult):
        raise TypeError(f"audit must be an AuditResult, got {type(audit).__name__}")
    delta = check_real("delta", delta, 0.0, 1.0, high_open=True)
    alpha = check_real("alpha", alpha, 0.0, 1.0, low_open=True, high_open=True)
    n1, n0 = len(audit.stat_d), len(audit.stat_minus)
    k_tp = np.rint(audit.tpr * n1)
    k_fp = np.rint(audit.fpr * n0)

    def lo(k, n):
        return np.where(k > 0, beta.ppf(alpha / 2, np.maximum(k, 1), n - k + 1), 0.0)

    def hi(k, n):
        return np.where(k < n, beta.ppf(1 - alpha / 2, k + 1, np.maximum(n - k, 1)), 1.0)

    best = 0.0
    # reject if stat >= t: TPR <= e^eps FPR + delta, and 1 - FPR <= e^eps (1 - TPR) + delta
    for num, den in ((lo(k_tp, n1), hi(k_fp, n0)), (lo(n0 - k_fp, n0), hi(n1 - k_tp, n1))):
        ok = (num > delta) & (den > 0)
        if ok.any():
            best = max(best, float(np.log((num[ok] - delta) / den[ok]).max()))
    return best
