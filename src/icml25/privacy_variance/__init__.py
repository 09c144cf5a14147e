"""Empirical privacy variance (Hu, Wu et al., ICML 2025): models trained with DP-SGD to the
same (epsilon, delta) memorise very differently, depending on batch size, steps and learning rate.

DP-SGD and accounting come from opacus; this package adds, by topic:

* corpus: the canary corpus (:func:`make_corpus`, :class:`Corpus`);
* model: a small context LM (:class:`ContextLM`);
* training: :func:`calibrate_sigma`, :func:`train_dp` (:class:`TrainResult`),
  :func:`per_sample_grad_norms`;
* exposure: :func:`exposure`, :func:`secret_loglik`, verbatim :func:`extracted`;
* study (analysis): the grid (:func:`run_grid`), :func:`tune_lr`, :func:`config_vs_seed_anova`;
* selection: the regressions (:data:`MODELS`, :func:`fit_privacy_regression`,
  :func:`bootstrap_coefficients`) and the selection rule (:func:`select_configuration`)
  evaluated on held-out configurations and seeds (:func:`heldout_selection`).
"""

from icml25.privacy_variance.corpus import Corpus, make_corpus
from icml25.privacy_variance.exposure import MAX_EXPOSURE, exposure, extracted, secret_loglik
from icml25.privacy_variance.model import ContextLM
from icml25.privacy_variance.selection import (
    MODELS,
    bootstrap_coefficients,
    fit_privacy_regression,
    heldout_selection,
    select_configuration,
)
from icml25.privacy_variance.study import config_vs_seed_anova, run_grid, tune_lr
from icml25.privacy_variance.training import (
    TrainResult,
    calibrate_sigma,
    per_sample_grad_norms,
    train_dp,
)

__all__ = [
    "MAX_EXPOSURE",
    "MODELS",
    "ContextLM",
    "Corpus",
    "TrainResult",
    "bootstrap_coefficients",
    "calibrate_sigma",
    "config_vs_seed_anova",
    "exposure",
    "extracted",
    "fit_privacy_regression",
    "heldout_selection",
    "make_corpus",
    "per_sample_grad_norms",
    "run_grid",
    "secret_loglik",
    "select_configuration",
    "train_dp",
    "tune_lr",
]
