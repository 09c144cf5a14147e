"""On the private estimation of smooth transport maps (Lalanne, Iutzeler, Loubes & Chhor, ICML
2025), in miniature.

The Brenier potential φ₀ (T₀ = ∇φ₀) minimises the semi-dual S(φ) = ∫φ dP + ∫φ* dQ. Clipping φ and
φ* to [-C, C] bounds the change of its empirical version S_n by Δ = 2C/n when one sample is
replaced; report-noisy-min over a finite net of smooth potentials is then pure ε-DP.

Grid values are flat arrays over :func:`make_grid` points (point i·n + j = (axis[i], axis[j])).

* grid: :func:`make_grid`, :func:`legendre_conjugate`, :func:`transport_map`;
* families: :class:`PotentialFamily`, :func:`potential_family`, :func:`bump_family`,
  :func:`sample_problem`, :func:`hessian_range`;
* privacy: :func:`semi_dual_scores`, :func:`report_noisy_min`, :func:`selection_probabilities`,
  :func:`private_potential` (a :class:`PotentialEstimate`), :func:`audit_epsilon`,
  :func:`noisy_min_releases`,
  :func:`worst_neighbour`;
* evaluation: :func:`map_l2_error`, :func:`ot_baseline` (POT), :func:`candidate_errors`,
  :func:`error_grid`.
"""

from icml25.private_ot.baselines import OT_METHODS, map_l2_error, ot_baseline
from icml25.private_ot.experiments import candidate_errors, error_grid, population_semi_dual
from icml25.private_ot.family import (
    PotentialFamily,
    bump_family,
    hessian_range,
    potential_family,
    sample_problem,
)
from icml25.private_ot.grid import legendre_conjugate, make_grid, transport_map
from icml25.private_ot.mechanisms import (
    MECHANISMS,
    PotentialEstimate,
    audit_epsilon,
    noisy_min_releases,
    private_potential,
    report_noisy_min,
    selection_probabilities,
    semi_dual_scores,
    worst_neighbour,
)

__all__ = [
    "MECHANISMS",
    "OT_METHODS",
    "PotentialEstimate",
    "PotentialFamily",
    "audit_epsilon",
    "bump_family",
    "candidate_errors",
    "error_grid",
    "hessian_range",
    "legendre_conjugate",
    "make_grid",
    "map_l2_error",
    "noisy_min_releases",
    "ot_baseline",
    "potential_family",
    "population_semi_dual",
    "private_potential",
    "report_noisy_min",
    "sample_problem",
    "selection_probabilities",
    "semi_dual_scores",
    "transport_map",
    "worst_neighbour",
]
