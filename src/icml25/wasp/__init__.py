"""WASP: contrastive private data synthesis via weighted multi-PLM fusion (Zou et al., ICML
2025), in miniature: weak Gaussian generators stand in for the PLMs, digits for the texts.

Public API:

* data and generators: :func:`style_digits` (:class:`DigitsSplit`), :func:`fit_generator`
  (:class:`WeakGenerator`), :func:`make_generators` (:data:`GENERATOR_SPECS`),
  :func:`public_embedding`, :func:`shift_images`;
* the private side: :func:`top_q_votes`, :func:`vote_sensitivity`, :func:`gaussian_sigma`,
  :func:`plm_weights`, :func:`contrastive_filter`, :func:`audit_round` (:class:`AuditResult`),
  :func:`empirical_epsilon`;
* methods: :func:`run_wasp`, :func:`run_aug_pe`, :func:`run_zerogen` (:class:`SynthResult`);
* evaluation: :func:`downstream_accuracy`, :func:`dp_sgd_accuracy`, :func:`frechet_distance`,
  :func:`class_frechet_distance`, :func:`paired_ci`.
"""

from icml25.wasp.data import (
    GENERATOR_SPECS,
    DigitsSplit,
    WeakGenerator,
    fit_generator,
    make_generators,
    public_embedding,
    shift_images,
    style_digits,
)
from icml25.wasp.evaluate import (
    class_frechet_distance,
    downstream_accuracy,
    dp_sgd_accuracy,
    frechet_distance,
    paired_ci,
)
from icml25.wasp.pipeline import SynthResult, run_aug_pe, run_wasp, run_zerogen
from icml25.wasp.voting import (
    AuditResult,
    audit_round,
    contrastive_filter,
    empirical_epsilon,
    gaussian_sigma,
    plm_weights,
    top_q_votes,
    vote_sensitivity,
)

__all__ = [
    "GENERATOR_SPECS",
    "AuditResult",
    "DigitsSplit",
    "SynthResult",
    "WeakGenerator",
    "audit_round",
    "class_frechet_distance",
    "contrastive_filter",
    "downstream_accuracy",
    "empirical_epsilon",
    "dp_sgd_accuracy",
    "fit_generator",
    "frechet_distance",
    "gaussian_sigma",
    "make_generators",
    "paired_ci",
    "plm_weights",
    "public_embedding",
    "run_aug_pe",
    "run_wasp",
    "run_zerogen",
    "shift_images",
    "style_digits",
    "top_q_votes",
    "vote_sensitivity",
]
