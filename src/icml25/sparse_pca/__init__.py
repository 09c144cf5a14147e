"""Sparse PCA with improved sample complexity (Cai, Xian & Ying, ICML 2025), in miniature.

Public API (``X`` is (n, p) data, ``S`` a (p, p) covariance, every ``v_hat`` a unit (p,) vector):

* data and metrics: :func:`spiked_covariance_data`, :func:`spiked_vector`,
  :func:`sample_covariance`, :func:`sin_theta`, :func:`support_recovered`;
* the paper's estimators: :func:`threshold_column` (with :func:`column_statistics`),
  :func:`two_stage`;
* baselines: :func:`truncated_power` (and :func:`truncated_power_path`),
  :func:`diagonal_thresholding`, :func:`covariance_thresholding`, :func:`sklearn_sparse_pca`;
* experiments: :data:`METHODS`, :func:`sample_complexity_grid`, :func:`timing_sweep`,
  :func:`success_table`, :func:`transition_point`, :func:`transition_table`.
"""

from icml25.sparse_pca.estimators import (
    INITS,
    column_statistics,
    covariance_thresholding,
    diagonal_thresholding,
    threshold_column,
    truncated_power,
    truncated_power_path,
    two_stage,
)
from icml25.sparse_pca.experiments import (
    METHODS,
    instance_seed,
    loglog_slope,
    random_sparse,
    sample_complexity_grid,
    sklearn_sparse_pca,
    success_table,
    timing_sweep,
    transition_point,
    transition_table,
)
from icml25.sparse_pca.model import (
    sample_covariance,
    sin_theta,
    spiked_covariance_data,
    spiked_vector,
    support_recovered,
)

__all__ = [
    "METHODS",
    "column_statistics",
    "covariance_thresholding",
    "diagonal_thresholding",
    "instance_seed",
    "loglog_slope",
    "random_sparse",
    "sample_complexity_grid",
    "sample_covariance",
    "sin_theta",
    "sklearn_sparse_pca",
    "spiked_covariance_data",
    "spiked_vector",
    "success_table",
    "support_recovered",
    "INITS",
    "threshold_column",
    "timing_sweep",
    "transition_point",
    "transition_table",
    "truncated_power",
    "truncated_power_path",
    "two_stage",
]
