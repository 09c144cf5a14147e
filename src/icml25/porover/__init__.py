"""POROver (Karaman et al., ICML 2025): overgeneration and preference optimisation against
over-refusal, in a synthetic instruction world.

* world: :func:`make_prompt_world` (:class:`PromptSet`), :func:`label_prompt` (the oracle),
  :func:`render_response`, :func:`classify_response`, :func:`safety_judge`,
  :func:`quality_reward`, :func:`score_responses`, :func:`f1_score`, :class:`Teacher`
  (:data:`TEACHER_PROFILES`), :func:`select_best_of_n`;
* student: :func:`build_tokenizer`, :func:`make_student`, :func:`sft`,
  :func:`sequence_logprob`, :func:`generate`, :func:`first_token_probs`, :func:`evaluate`;
* data: :func:`split_world` (:data:`SIZES`, :data:`SETS`), :func:`teacher_answers`,
  :func:`toxic_data_arms` (:data:`ARMS`);
* POROver: :class:`PreferencePair`, :func:`build_porover_pairs`, :func:`dpo_loss`, :func:`dpo`
  (:class:`DPOResult`), :func:`select_by_containment`.
"""

from icml25.porover.data import (
    ARMS,
    SETS,
    SIZES,
    split_world,
    teacher_answers,
    toxic_data_arms,
)
from icml25.porover.dpo import (
    DPOResult,
    PreferencePair,
    build_porover_pairs,
    dpo,
    dpo_loss,
    select_by_containment,
)
from icml25.porover.student import (
    build_tokenizer,
    evaluate,
    first_token_probs,
    generate,
    make_student,
    sequence_logprob,
    sft,
)
from icml25.porover.world import (
    BENIGN_OBJECTS,
    BENIGN_VERBS,
    CONTEXTS,
    COVERT_VERBS,
    HARMFUL_OBJECTS,
    KINDS,
    LABELS,
    TEACHER_PROFILES,
    TRIGGER_VERBS,
    PromptSet,
    Teacher,
    classify_response,
    f1_score,
    label_prompt,
    make_prompt_world,
    quality_reward,
    render_response,
    safety_judge,
    score_responses,
    select_best_of_n,
    vocabulary,
)

__all__ = [
    "ARMS",
    "BENIGN_OBJECTS",
    "BENIGN_VERBS",
    "CONTEXTS",
    "COVERT_VERBS",
    "DPOResult",
    "HARMFUL_OBJECTS",
    "KINDS",
    "LABELS",
    "PreferencePair",
    "PromptSet",
    "SETS",
    "SIZES",
    "TEACHER_PROFILES",
    "TRIGGER_VERBS",
    "Teacher",
    "build_porover_pairs",
    "build_tokenizer",
    "classify_response",
    "dpo",
    "dpo_loss",
    "evaluate",
    "f1_score",
    "first_token_probs",
    "generate",
    "label_prompt",
    "make_prompt_world",
    "make_student",
    "quality_reward",
    "render_response",
    "safety_judge",
    "score_responses",
    "select_best_of_n",
    "select_by_containment",
    "sequence_logprob",
    "sft",
    "split_world",
    "teacher_answers",
    "toxic_data_arms",
    "vocabulary",
]
