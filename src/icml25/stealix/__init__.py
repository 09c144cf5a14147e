"""Stealix (Zhuang et al., ICML 2025): model stealing by prompt evolution, in a glyph world.

* world: :func:`load_victim_data`, :func:`train_victim`, :class:`BlackBoxVictim`,
  :class:`BudgetExceeded`, :class:`GlyphGenerator` (the text-to-image stand-in), :data:`SLOTS`,
  :data:`FONTS`;
* learned G (``large`` scale): :func:`train_cvae`, :class:`CVAEGenerator` (a conditional VAE
  with the renderer's interface);
* VLM: :func:`train_dual_encoder` (the CLIP stand-in, :class:`DualEncoder`),
  :func:`stealix_loss`, :func:`refine_prompt`, :func:`invert_prompt`;
* attack: :func:`prompt_consistency`, :func:`ga_select`, :func:`stealix_attack`,
  :func:`baseline_attack`, :func:`train_surrogate`, :func:`evaluate_surrogate`,
  :func:`feature_distance`.
"""

from icml25.stealix.attack import (
    ABLATIONS,
    KINDS,
    Surrogate,
    baseline_attack,
    evaluate_surrogate,
    feature_distance,
    ga_select,
    prompt_consistency,
    stealix_attack,
    train_surrogate,
)
from icml25.stealix.cvae import CVAEGenerator, train_cvae
from icml25.stealix.vlm import (
    DualEncoder,
    invert_prompt,
    refine_prompt,
    stealix_loss,
    train_dual_encoder,
)
from icml25.stealix.world import (
    FONTS,
    SLOTS,
    BlackBoxVictim,
    BudgetExceeded,
    GlyphGenerator,
    load_victim_data,
    train_victim,
)

__all__ = [
    "ABLATIONS",
    "FONTS",
    "KINDS",
    "SLOTS",
    "BlackBoxVictim",
    "BudgetExceeded",
    "CVAEGenerator",
    "DualEncoder",
    "GlyphGenerator",
    "Surrogate",
    "baseline_attack",
    "evaluate_surrogate",
    "feature_distance",
    "ga_select",
    "invert_prompt",
    "load_victim_data",
    "prompt_consistency",
    "refine_prompt",
    "stealix_attack",
    "stealix_loss",
    "train_cvae",
    "train_dual_encoder",
    "train_surrogate",
    "train_victim",
]
