"""Validating mechanistic interpretations with axioms (Palumbo et al., ICML 2025), in miniature.

Public API (tokens are (N, 4 m + 1) int arrays in the authors' layout, see :mod:`.data`):

* data: :func:`generate_2cnf`, :func:`sat_oracle`, :func:`clause_ids`, :func:`truth_tables`,
  :func:`clause_truth`, :func:`vocab_size`, :func:`n_tokens`;
* axioms: :class:`Interpretation`, :func:`axiom_epsilons`, :func:`clopper_pearson_upper`;
* the compiled solver: :func:`compiled_2sat_model` (a :class:`LayeredModel`),
  :func:`compiled_interpretation`;
* the transformer: :class:`TinyTransformer`, :func:`train_2sat`, :func:`load_checkpoint`;
* its interpretation: :func:`transformer_interpretation`, :func:`fit_neuron_trees`,
  :func:`sat_coefficients`, :func:`clause_means`.
"""

from icml25.axiomatic_mi.axioms import Interpretation, axiom_epsilons, clopper_pearson_upper
from icml25.axiomatic_mi.compiled import (
    LayeredModel,
    compiled_2sat_model,
    compiled_interpretation,
)
from icml25.axiomatic_mi.data import (
    clause_ids,
    clause_truth,
    generate_2cnf,
    n_tokens,
    sat_oracle,
    truth_tables,
    vocab_size,
)
from icml25.axiomatic_mi.mechanism import (
    clause_means,
    fit_neuron_trees,
    sat_coefficients,
    transformer_interpretation,
)
from icml25.axiomatic_mi.transformer import TinyTransformer, load_checkpoint, train_2sat

__all__ = [
    "Interpretation",
    "LayeredModel",
    "TinyTransformer",
    "axiom_epsilons",
    "clause_ids",
    "clause_means",
    "clause_truth",
    "clopper_pearson_upper",
    "compiled_2sat_model",
    "compiled_interpretation",
    "fit_neuron_trees",
    "generate_2cnf",
    "load_checkpoint",
    "n_tokens",
    "sat_coefficients",
    "sat_oracle",
    "train_2sat",
    "transformer_interpretation",
    "truth_tables",
    "vocab_size",
]
