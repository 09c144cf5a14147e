"""Empirical privacy variance (Hu, Wu et al., ICML 2025): models trained with DP-SGD to the
same (epsilon, delta) memorise very differently, depending on batch size, steps and learning rate.

DP-SGD and accounting come from opacus; this package adds, by topic:

* corpus: the canary corpus (:func:`make_corpus`, :class:`Corpus`);
* model: a small context LM (:class:`ContextLM`);
* training: :func:`calibrate_sigma`, :func:`train_dp` (:class:`TrainResult`),
  :func:`per_sample_grad_norms`;
* exposure: :func:`exposure`, :func:`secret_loglik`, verbatim :func:`extracted`;
* study (analysis): the grid (:func:`run_grid`), :func:`tune_lr`, :func:`fit_privacy_regression`,
  :func:`config_vs_seed_anova`.
"""

from icml25.privacy_variance.corpus import Corpus, make_corpus
from icml25.privacy_variance.exposure import MAX_EXPOSURE, exposure, extracted, secret_loglik
from icml25.privacy_variance.model import ContextLM
from icml25.privacy_variance.study import (
    config_vs_seed_anova,
    fit_privacy_regression,
    run_grid,
    tune_lr,
)
from icml25.privacy_variance.training import (
    TrainResult,
    calibrate_sigma,
    per_sample_grad_norms,
    train_dp,
)

__all__ = [
    "MAX_EXPOSURE",
    "ContextLM",
    "Corpus",
    "TrainResult",
    "calibrate_sigma",
    "config_vs_seed_anova",
    "exposure",
    "extracted",
    "fit_privacy_regression",
    "make_corpus",
    "per_sample_grad_norms",
    "run_grid",
    "secret_loglik",
    "train_dp",
    "tune_lr",
]
