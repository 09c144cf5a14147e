"""Probes of what the miniature's design lets a merge show (no training, except the skyline).

* :func:`probe_batch` ``"oracle_mm"``: the fixed ``text_reasoning`` items re-laid out as
  ``mm_reasoning`` items, each operand written as ``N_IMAGE_TOKENS`` copies of its digit token at
  the image-token positions (2 + 5k tokens with the answer for k operands, against 2 + 2k in
  the text layout). A reasoning LM
  scored on it shows the most a merge could transfer if the VLM's image tokens were exactly the
  digit tokens: its arithmetic in the image layout with perfect perception.
* ``"oracle_text"``: the same items in the text layout the reasoning LM was trained on.
* ``"perception_bare"``: the fixed ``perception`` items without the "the digit" prefix,
  ``[bos] <img>×4 is`` → d: whether image tokens name digits outside the VLM's one template.

:func:`skyline` trains a copy of a model directly on ``mm_reasoning``: whether the architecture
learns image arithmetic at all at a given budget.
"""

from __future__ import annotations

import copy

import torch

from icml25.common.checks import check_choice, check_int, check_positive, check_seed
from icml25.common.vlm import TinyVLM
from icml25.vlm_merging.model import PARAM_GROUPS, _check_model, _check_suite, evaluate, train
from icml25.vlm_merging.tasks import N_IMAGE_TOKENS, Batch, TaskSuite

__all__ = ["PROBES", "probe_accuracy", "probe_batch", "skyline"]

PROBES = ("oracle_mm", "oracle_text", "perception_bare")


def probe_batch(suite: TaskSuite, probe: str, split: str = "test") -> Batch:
    """The fixed items of ``probe`` (``PROBES``) on ``split`` (val or test), ``suite.n_test``
    of them; same answers as the task they are built from."""
    suite = _check_suite(suite)
    probe = check_choice("probe", probe, PROBES)
    split = check_choice("split", split, ("val", "test"))
    if probe == "perception_bare":
        b = suite.batch("perception", split, suite.n_test)
        ids = torch.cat([b.input_ids[:, :1], b.input_ids[:, 3:]], dim=1)  # drop "the digit"
        return TaskSuite._pack(ids.numpy(), b.images.numpy(), None, b.answer.numpy())
    b = suite.batch("text_reasoning", split, suite.n_test)
    if probe == "oracle_text":
        return b
    ids = b.input_ids  # [bos, a, op, b, ..., is, answer]
    k = suite.n_operands
    cols = [ids[:, :1]]
    for j in range(k):
        if j:
            cols.append(ids[:, 2 * j : 2 * j + 1])
        cols.append(ids[:, 2 * j + 1 : 2 * j + 2].repeat(1, N_IMAGE_TOKENS))
    cols.append(ids[:, -2:])
    out = torch.cat(cols, dim=1)
    return TaskSuite._pack(out.numpy(), None, None, b.answer.numpy())


@torch.no_grad()
def probe_accuracy(model: TinyVLM, suite: TaskSuite, probe: str, split: str = "test") -> float:
    """Answer accuracy of ``model`` on the items of :func:`probe_batch` (chance 0.1)."""
    model = _check_model(model)
    b = probe_batch(suite, probe, split)
    if b.input_ids.shape[1] > model.n_positions:
        raise ValueError(
            f"probe {probe!r} items have {b.input_ids.shape[1]} tokens, more than the model's "
            f"n_positions ({model.n_positions}): suite and model differ in n_operands"
        )
    was = model.training
    model.eval()
    logits = model(b.input_ids, b.images)
    pred = logits[torch.arange(len(b)), b.answer_pos - 1].argmax(-1).cpu()
    model.train(was)
    return float((pred == b.answer).float().mean())


def skyline(
    model: TinyVLM,
    suite: TaskSuite,
    steps: int = 400,
    lr: float = 1e-3,
    params: str = "all",
    seed: int = 0,
) -> tuple[float, list[float]]:
    """(test mm_reasoning accuracy, losses) of a *copy* of ``model`` trained directly on
    ``mm_reasoning`` for ``steps`` AdamW steps at ``lr`` on ``params``; ``model`` is unchanged."""
    model, suite = _check_model(model), _check_suite(suite)
    steps = check_int("steps", steps, 1)
    lr = check_positive("lr", lr)
    params = check_choice("params", params, PARAM_GROUPS)
    seed = check_seed("seed", seed)
    twin = copy.deepcopy(model)
    losses = train(twin, suite, "mm_reasoning", steps, lr, params=params, seed=seed)
    return evaluate(twin, suite, ["mm_reasoning"])["mm_reasoning"], losses
