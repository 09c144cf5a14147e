"""Where perception and reasoning live: per-layer resets and image-token alignment.

The official code has no layer analysis; this one is the book's own. ``layer_ablation`` resets
block i (every ``lm.transformer.h.<i>.*`` key) of a model to the base LM's weights and measures
Δaccuracy_i = acc(model with block i reset) − acc(model). ``image_token_alignment`` compares the
representation of digit *images* with that of digit *tokens* (cosine, 10 × 10).
"""

from __future__ import annotations

import copy

import numpy as np
import pandas as pd
import torch

from icml25.common.checks import check_choice, check_int
from icml25.vlm_merging.merging import _same_keys, _state, layer_index
from icml25.vlm_merging.model import _check_model, _check_suite, evaluate
from icml25.vlm_merging.tasks import IMG, N_IMAGE_TOKENS, TASKS, VOCAB, digit_token

__all__ = ["ALIGN_POSITIONS", "image_token_alignment", "layer_ablation"]

ALIGN_POSITIONS = ("mean", "last", "is")
"""Where :func:`image_token_alignment` reads the residual stream (see there)."""


def layer_ablation(
    model, base, suite, tasks=("perception", "mm_reasoning"), split: str = "test"
) -> pd.DataFrame:
    """Δaccuracy per (layer, task) after resetting that block to ``base``.

    Returns a DataFrame with columns layer, task, accuracy (with block ``layer`` reset) and delta
    (that accuracy minus the intact model's), one row per block and task."""
    model, suite = _check_model(model), _check_suite(suite)
    sd = _state("model", model)
    base = _state("base", base)
    _same_keys("model", sd, base, "base")
    if isinstance(tasks, str) or not isinstance(tasks, (list, tuple)) or not tasks:
        raise TypeError(f"tasks must be a non-empty list of task names, got {tasks!r}")
    tasks = [check_choice("tasks", t, TASKS) for t in tasks]
    split = check_choice("split", split, ("val", "test"))
    intact = evaluate(model, suite, tasks, split)
    probe = copy.deepcopy(model)
    rows = []
    for i in range(model.n_layer):
        reset = {k: (base[k] if layer_index(k) == i else v) for k, v in sd.items()}
        probe.load_state_dict(reset)
        acc = evaluate(probe, suite, tasks, split)
        rows += [
            {"layer": i, "task": t, "accuracy": acc[t], "delta": acc[t] - intact[t]} for t in tasks
        ]
    return pd.DataFrame(rows)


@torch.no_grad()
def image_token_alignment(
    model, suite, layer: int | None = None, position: str = "mean"
) -> np.ndarray:
    """Cosine similarities (10, 10): entry [i, j] compares the mean representation of images of
    digit i with that of the digit token j.

    ``layer=None``: projector outputs (mean over the 4 image tokens and the test images of a
    digit) against the token embeddings ``wte``. ``layer=l``: the residual stream after block l
    (0-based) of "the digit <img> is" against that of "the digit j is", at ``position``:
    ``"mean"`` averages the 4 image tokens (compared with the digit token), ``"last"`` takes the
    last image token, the first that can attend to every patch under causal attention (against
    the digit token), ``"is"`` the "is" token after the image (against "is" after the digit
    token), where the model reads the answer. ``position`` other than ``"mean"`` needs a
    ``layer``."""
    model, suite = _check_model(model), _check_suite(suite)
    position = check_choice("position", position, ALIGN_POSITIONS)
    if layer is not None:
        layer = check_int("layer", layer, 0, model.n_layer - 1)
    elif position != "mean":
        raise ValueError(
            f"position={position!r} needs a layer: the projector output (layer=None) has no "
            "'is' token and is compared as the mean over the image tokens"
        )
    idx = suite.split_index["test"]
    labels = suite.labels[idx]
    images = torch.as_tensor(suite.images[idx])[:, None]  # (N, 1, 1, 8, 8)
    was = model.training
    model.eval()
    if layer is None:
        img = model.image_features(images).mean(dim=2)[:, 0]  # (N, d)
        tok = model.lm.transformer.wte.weight[torch.as_tensor(digit_token(np.arange(10)))]
    else:
        w = {t: VOCAB.index(t) for t in ("the", "digit", "is")}
        prompt = torch.tensor([0, w["the"], w["digit"], *[IMG] * N_IMAGE_TOKENS, w["is"]])
        ids = prompt.repeat(len(idx), 1)
        h = model.hidden_states(ids, images)[layer + 1]  # (N, 3 + n_img + 1, d)
        txt = torch.tensor(
            [[0, w["the"], w["digit"], int(digit_token(d)), w["is"]] for d in range(10)]
        )
        ht = model.hidden_states(txt)[layer + 1]  # (10, 5, d)
        if position == "mean":
            img, tok = h[:, 3 : 3 + N_IMAGE_TOKENS].mean(dim=1), ht[:, 3]
        elif position == "last":
            img, tok = h[:, 2 + N_IMAGE_TOKENS], ht[:, 3]
        else:  # "is"
            img, tok = h[:, 3 + N_IMAGE_TOKENS], ht[:, 4]
    model.train(was)
    means = torch.stack([img[torch.as_tensor(labels == d)].mean(dim=0) for d in range(10)])
    a = torch.nn.functional.normalize(means, dim=1)
    b = torch.nn.functional.normalize(tok, dim=1)
    return (a @ b.T).cpu().numpy().astype(float)
