"""Empirical privacy variance (Hu, Wu et al., ICML 2025): models trained with DP-SGD to the
same (epsilon, delta) memorise very differently, depending on batch size, steps and learning rate.

DP-SGD and accounting come from opacus; this package adds the canary corpus
(:func:`make_corpus`), a small context LM (:class:`ContextLM`), :func:`calibrate_sigma`,
:func:`train_dp`, exposure (:func:`exposure`), the study grid
(:func:`run_grid`) and its analysis (:func:`fit_privacy_regression`,
:func:`config_vs_seed_anova`).
"""

from icml25.privacy_variance.core import (
    ContextLM,
    TrainResult,
    calibrate_sigma,
    exposure,
    per_sample_grad_norms,
    train_dp,
)
from icml25.privacy_variance.corpus import Corpus, make_corpus
from icml25.privacy_variance.study import config_vs_seed_anova, fit_privacy_regression, run_grid

__all__ = [
    "ContextLM",
    "Corpus",
    "TrainResult",
    "calibrate_sigma",
    "config_vs_seed_anova",
    "exposure",
    "fit_privacy_regression",
    "make_corpus",
    "per_sample_grad_norms",
    "run_grid",
    "train_dp",
]
