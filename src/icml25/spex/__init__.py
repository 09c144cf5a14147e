"""SPEX (Kang et al., ICML 2025): interaction explanations for long inputs by a sparse Boolean
Fourier transform (subsampled queries, delays, Walsh-Hadamard, singleton detection, peeling).

:func:`fwht`, :func:`make_sparse_function`, :func:`spex` (with :class:`SpexResult`),
:func:`design_delays`, :func:`subsampled_transform`, :func:`fourier_eval`; indices
(:func:`fourier_to_mobius`, :func:`to_index`), :func:`faithfulness_r2` and the marginal
baselines (:func:`marginal_baselines`, KernelSHAP from ``shap``); measurement
(:class:`QueryCounter`, :class:`QueryCache`, :func:`exact_recovery`, and the interaction-index
baselines :func:`faith_interactions` from ``shapiq``, :func:`faith_banzhaf_ridge`,
:func:`index_size`); the BCH codes of the delays in ``icml25.spex.bch``.
"""

from icml25.spex.core import (
    SpexResult,
    check_masks,
    design_delays,
    fourier_eval,
    fwht,
    make_sparse_function,
    spex,
    subsampled_transform,
)
from icml25.spex.indices import (
    faithfulness_r2,
    fourier_to_mobius,
    greedy_removal_order,
    linear_surrogate,
    marginal_baselines,
    mobius_eval,
    recovery_rate,
    removal_drops,
    to_index,
)
from icml25.spex.measure import (
    QueryCache,
    QueryCounter,
    exact_recovery,
    faith_banzhaf_ridge,
    faith_interactions,
    index_size,
    input_ranking,
)

__all__ = [
    "QueryCache",
    "QueryCounter",
    "SpexResult",
    "exact_recovery",
    "faith_banzhaf_ridge",
    "faith_interactions",
    "index_size",
    "input_ranking",
    "check_masks",
    "faithfulness_r2",
    "greedy_removal_order",
    "recovery_rate",
    "removal_drops",
    "fourier_to_mobius",
    "linear_surrogate",
    "marginal_baselines",
    "mobius_eval",
    "to_index",
    "design_delays",
    "fourier_eval",
    "fwht",
    "make_sparse_function",
    "spex",
    "subsampled_transform",
]
