"""Confidence widths and the certificate of the two-stage RCT chapter.

Symbols: ``m`` pulls per arm in the certifying stage, ``delta`` δ the miss probability,
``k`` the number of arms certified. The certificate of arms B from their sample means x̄_i is

    cert = max_{i ∈ B} (x̄_i − w(m, δ)),

a high-probability lower bound on the effect μ_arm of the arm that attains the max. With no
correction each arm's bound holds with probability 1 − δ, but the *max* over k arms can miss with
probability up to 1 − (1 − δ)^k; the Bonferroni correction uses δ/k per arm and restores 1 − δ.
"""

from __future__ import annotations

import numpy as np
from scipy import stats

from icml25.common.checks import (
    check_array,
    check_choice,
    check_index_array,
    check_int,
    check_probability,
    check_rng,
)

BOUNDS: tuple[str, ...] = ("hoeffding", "subgaussian", "gaussian_exact")
CORRECTIONS: tuple[str, ...] = ("none", "bonferroni")


def check_delta(delta: object) -> float:
    """Return δ as a float if 0 < δ < 1; raise ``ValueError`` naming ``delta`` otherwise."""
    return check_probability("delta", delta, low_open=True, high_open=True)


def width_array(m: np.ndarray, delta: float, bound: str, k_correction: np.ndarray | int = 1):
    """Vectorised :func:`width` (no argument checks): ``m`` and ``k_correction`` broadcast."""
    m = np.asarray(m, dtype=float)
    level = delta / np.asarray(k_correction, dtype=float)
    if bound == "hoeffding":  # outcomes in [0, 1]
        return np.sqrt(np.log(1.0 / level) / (2.0 * m))
    if bound == "subgaussian":  # σ = 1
        return np.sqrt(2.0 * np.log(1.0 / level) / m)
    return stats.norm.ppf(1.0 - level) / np.sqrt(m)  # gaussian_exact, σ = 1


def width(m: int, delta: float, bound: str = "hoeffding", k_correction: int = 1) -> float:
    """The one-sided confidence width w(m, δ) of a mean of ``m`` outcomes.

    * ``"hoeffding"`` (outcomes in [0, 1]): sqrt(log(k/δ) / (2m));
    * ``"subgaussian"`` (σ = 1): sqrt(2 log(k/δ) / m);
    * ``"gaussian_exact"`` (Normal outcomes, σ = 1): z_{1−δ/k} / sqrt(m).

    ``k_correction`` k = 1 is no correction; k > 1 is Bonferroni over k arms (level δ/k).
    """
    m = check_int("m", m)
    delta = check_delta(delta)
    bound = check_choice("bound", bound, BOUNDS)
    k_correction = check_int("k_correction", k_correction)
    return float(width_array(m, delta, bound, k_correction))


def certificate(
    samples: np.ndarray, delta: float, bound: str = "hoeffding", correction: str = "none"
) -> tuple[float, int]:
    """The certificate of k arms from their outcomes ``samples`` of shape (k, m).

    cert = max_i (x̄_i − w(m, δ')) with δ' = δ (``correction="none"``) or δ/k
    (``"bonferroni"``).

    Hoeffding's width holds for outcomes in [0, 1] only, so other samples are an error there.

    Returns:
        ``(cert, arm)``: the certificate and the row index of the arm that attains it.
    """
    samples = check_array("samples", samples, 2)
    delta = check_delta(delta)
    bound = check_choice("bound", bound, BOUNDS)
    correction = check_choice("correction", correction, CORRECTIONS)
    if bound == "hoeffding" and (samples.min() < 0 or samples.max() > 1):
        raise ValueError("samples must lie in [0, 1] for bound='hoeffding'")
    k, m = samples.shape
    w = width_array(m, delta, bound, k if correction == "bonferroni" else 1)
    lower = samples.mean(axis=1) - w
    arm = int(np.argmax(lower))
    return float(lower[arm]), arm


def coverage_vs_k(
    ks: list[int],
    m: int,
    delta: float,
    n_trials: int,
    rng: np.random.Generator,
    bound: str = "gaussian_exact",
) -> dict[str, np.ndarray]:
    """Miss rates P(cert > μ_arm) of the max-certificate over k equal arms, both corrections.

    All arms have μ = 0 and Normal(0, 1) outcomes, so a sample mean is N(0, 1/m) and the miss
    event is max_i x̄_i > w. Returns ``{"k", "none", "bonferroni", "se_none", "se_bonferroni"}``
    (miss rates and their Monte Carlo standard errors, each of shape (len(ks),)).
    """
    m = check_int("m", m)
    delta = check_delta(delta)
    n_trials = check_int("n_trials", n_trials)
    bound = check_choice("bound", bound, BOUNDS)
    rng = check_rng("rng", rng)
    ks = [int(k) for k in check_index_array("ks", ks, low=1, ndim=1)]
    out = {"k": np.array(ks), "none": [], "bonferroni": []}
    for k in ks:
        best = (rng.standard_normal((n_trials, k)) / np.sqrt(m)).max(axis=1)
        out["none"].append(np.mean(best > width_array(m, delta, bound, 1)))
        out["bonferroni"].append(np.mean(best > width_array(m, delta, bound, k)))
    for key in ("none", "bonferroni"):
        rates = np.array(out[key])
        out[key] = rates
        out[f"se_{key}"] = np.sqrt(np.maximum(rates * (1 - rates), 1e-12) / n_trials)
    return out
