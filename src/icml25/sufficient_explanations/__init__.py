"""Explaining, fast and slow: provably sufficient explanations by abstraction and refinement
(Bassan, Elboher, Ladner, Althoff & Katz, ICML 2025), in miniature.

Public API (``x`` an input (n_0,) in the domain, ``lo``/``hi`` an input box (n_0,)):

* networks: :class:`Net` (weights ``Ws``, biases ``bs``, interval biases ``ds``),
  :func:`train_mlp`, :func:`margin_net`;
* verifiers: :func:`ibp_bounds`, :func:`crown_bounds`, :func:`milp_bounds` (exact, tiny nets);
* the abstraction: :func:`reduce_network` (CORA's neuron merging);
* explanations: :func:`input_box`, :func:`is_sufficient`, :func:`sensitivity`,
  :func:`minimal_explanation` (standard or abstract-refine), :class:`Explanation`,
  :func:`falsify` (an attack, as an independent soundness check);
* data: :func:`digits_data`, :func:`planted_data`.
"""

from icml25.sufficient_explanations.bounds import crown_bounds, ibp_bounds, milp_bounds
from icml25.sufficient_explanations.data import digits_data, planted_data
from icml25.sufficient_explanations.explain import (
    Explanation,
    falsify,
    is_sufficient,
    margin_net,
    minimal_explanation,
    sensitivity,
)
from icml25.sufficient_explanations.net import Net, input_box, train_mlp
from icml25.sufficient_explanations.reduce import reduce_network

__all__ = [
    "Explanation",
    "Net",
    "crown_bounds",
    "digits_data",
    "falsify",
    "ibp_bounds",
    "input_box",
    "is_sufficient",
    "margin_net",
    "milp_bounds",
    "minimal_explanation",
    "planted_data",
    "reduce_network",
    "sensitivity",
    "train_mlp",
]
