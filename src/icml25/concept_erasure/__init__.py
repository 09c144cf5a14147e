"""Minimalist concept erasure (Zhang et al., ICML 2025) in a flow-matching digits generator.

* generator: :class:`VelocityMLP`, :func:`train_flow_matching`, :func:`euler_sample`,
  :func:`digits_data`, :data:`NULL` (the unconditional class token);
* erasure: :class:`HardConcreteGate`, :func:`erase_concept` (``"mask"``, ``"finetune"``,
  ``"stepwise"``), :class:`ErasureResult`, :func:`masks_at_sparsity`, :func:`random_masks`;
* evaluation: :func:`fit_judge` (attacked), :func:`fit_independent_judge`, :class:`FrechetSpace`,
  :func:`generate`, :func:`class_rates`, :func:`erasure_report`, :func:`at_matched_preservation`,
  :func:`embedding_attack`, :func:`neuron_selectivity`.
"""

from icml25.concept_erasure.erasure import (
    METHODS,
    ErasureResult,
    HardConcreteGate,
    erase_concept,
    masks_at_sparsity,
    random_masks,
)
from icml25.concept_erasure.evaluation import (
    FrechetSpace,
    at_matched_preservation,
    class_rates,
    embedding_attack,
    erasure_report,
    fit_independent_judge,
    fit_judge,
    generate,
    neuron_selectivity,
)
from icml25.concept_erasure.model import (
    NULL,
    VelocityMLP,
    digits_data,
    euler_sample,
    train_flow_matching,
)

__all__ = [
    "METHODS",
    "NULL",
    "ErasureResult",
    "FrechetSpace",
    "HardConcreteGate",
    "VelocityMLP",
    "at_matched_preservation",
    "class_rates",
    "digits_data",
    "embedding_attack",
    "erase_concept",
    "erasure_report",
    "euler_sample",
    "fit_independent_judge",
    "fit_judge",
    "generate",
    "masks_at_sparsity",
    "neuron_selectivity",
    "random_masks",
    "train_flow_matching",
]
