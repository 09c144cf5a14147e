"""MemFreezing (Dai et al., ICML 2025), our reconstruction: freezing a temporal GNN's memories.

* data: :func:`make_temporal_sbm` (:class:`TemporalStream`), a temporal SBM with a switch;
* model: :class:`TGNLite` (GRU/RNN memory, identity message, MLP decoder),
  :class:`StaticLinkModel` (the memory-less control), :func:`train_tgn`, :func:`replay`,
  :func:`link_metrics`, :func:`update_gate_values`;
* attack: :func:`update_drift`, :func:`find_frozen_state`, :func:`craft_injection`,
  :class:`Injection`, :func:`apply_injection`, baselines :func:`random_injection`,
  :func:`greedy_injection`, and :func:`shift_update_gate`;
* evaluation: :func:`evaluate_after_attack`, :func:`cos_trace`, :func:`half_life`;
* set-up shared by the attack notebooks: :func:`prepare_attack` (:class:`AttackSetup`),
  :func:`choose_victims`;
* PyG's ``TGNMemory`` under the same attack: :func:`tgnlite_from_pyg`, :func:`pyg_state`,
  :func:`write_pyg_state`;
* a trained PyG TGN with the attention embedding (the `large` model): :class:`PygTGN`,
  :func:`integer_times`, :func:`train_pyg_tgn`, :func:`replay_pyg`, :func:`pyg_link_scorer`
  (``prepare_attack(backbone="pyg")`` builds the whole scene).
"""

from icml25.memfreezing.attack import (
    Injection,
    apply_injection,
    craft_injection,
    find_frozen_state,
    greedy_injection,
    random_injection,
    shift_update_gate,
    update_drift,
)
from icml25.memfreezing.data import TemporalStream, make_temporal_sbm
from icml25.memfreezing.evaluate import cos_trace, evaluate_after_attack, half_life
from icml25.memfreezing.experiment import (
    BACKBONES,
    VICTIM_CHOICES,
    AttackSetup,
    choose_victims,
    prepare_attack,
)
from icml25.memfreezing.model import (
    StaticLinkModel,
    TGNLite,
    link_metrics,
    replay,
    train_tgn,
    update_gate_values,
)
from icml25.memfreezing.pyg import pyg_state, tgnlite_from_pyg, write_pyg_state
from icml25.memfreezing.pyg_tgn import (
    PygTGN,
    integer_times,
    pyg_link_scorer,
    replay_pyg,
    train_pyg_tgn,
)

__all__ = [
    "BACKBONES",
    "VICTIM_CHOICES",
    "AttackSetup",
    "Injection",
    "PygTGN",
    "StaticLinkModel",
    "TGNLite",
    "TemporalStream",
    "apply_injection",
    "choose_victims",
    "cos_trace",
    "craft_injection",
    "evaluate_after_attack",
    "find_frozen_state",
    "greedy_injection",
    "half_life",
    "integer_times",
    "link_metrics",
    "make_temporal_sbm",
    "prepare_attack",
    "pyg_link_scorer",
    "pyg_state",
    "random_injection",
    "replay",
    "replay_pyg",
    "shift_update_gate",
    "tgnlite_from_pyg",
    "train_pyg_tgn",
    "train_tgn",
    "update_drift",
    "update_gate_values",
    "write_pyg_state",
]
