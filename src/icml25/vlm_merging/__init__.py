"""Bring Reason to Vision (Chen et al., ICML 2025) in miniature: merging a reasoning LM into a
VLM built from the same base, and where perception and reasoning live in the layers."""

from icml25.vlm_merging.analysis import ALIGN_POSITIONS, image_token_alignment, layer_ablation
from icml25.vlm_merging.checkpoints import (
    MODEL_NAMES,
    RECIPES,
    load_models,
    save_models,
    train_models,
)
from icml25.vlm_merging.merging import METHODS, layer_index, merge, mergeable, task_vector
from icml25.vlm_merging.model import PARAM_GROUPS, binomial_se, build_model, evaluate, train
from icml25.vlm_merging.probes import PROBES, probe_accuracy, probe_batch, skyline
from icml25.vlm_merging.sweep import evaluate_merges, merge_candidates
from icml25.vlm_merging.tasks import (
    ALIGN_TASKS,
    ALL_TASKS,
    IMG,
    N_IMAGE_TOKENS,
    SPLITS,
    TASKS,
    VOCAB,
    Batch,
    TaskSuite,
    digit_token,
    make_suite,
)

__all__ = [
    "ALIGN_POSITIONS",
    "ALIGN_TASKS",
    "ALL_TASKS",
    "IMG",
    "METHODS",
    "MODEL_NAMES",
    "N_IMAGE_TOKENS",
    "PARAM_GROUPS",
    "PROBES",
    "RECIPES",
    "SPLITS",
    "TASKS",
    "VOCAB",
    "Batch",
    "TaskSuite",
    "binomial_se",
    "build_model",
    "digit_token",
    "evaluate",
    "evaluate_merges",
    "image_token_alignment",
    "layer_ablation",
    "layer_index",
    "load_models",
    "make_suite",
    "merge",
    "merge_candidates",
    "mergeable",
    "probe_accuracy",
    "probe_batch",
    "save_models",
    "skyline",
    "task_vector",
    "train",
    "train_models",
]
