"""Minimalist concept erasure (Zhang et al., ICML 2025) in a flow-matching digits generator.

* generator: :class:`VelocityMLP`, :func:`train_flow_matching`, :func:`euler_sample`,
  :func:`digits_data`, :data:`NULL` (the unconditional class token);
* erasure: :class:`HardConcreteGate`, :func:`erase_concept` (``"mask"``, ``"finetune"``,
  ``"stepwise"``), :class:`ErasureResult`, :func:`random_masks`;
* evaluation: :func:`fit_judge`, :func:`class_rates`, :func:`erasure_report`,
  :func:`embedding_attack`.
"""

from icml25.concept_erasure.erasure import (
    METHODS,
    ErasureResult,
    HardConcreteGate,
    erase_concept,
    random_masks,
)
from icml25.concept_erasure.evaluation import (
    class_rates,
    embedding_attack,
    erasure_report,
    fit_judge,
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
    "HardConcreteGate",
    "VelocityMLP",
    "class_rates",
    "digits_data",
    "embedding_attack",
    "erase_concept",
    "erasure_report",
    "euler_sample",
    "fit_judge",
    "random_masks",
    "train_flow_matching",
]
