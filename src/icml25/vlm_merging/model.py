"""The model, its training stages and its evaluation.

:func:`build_model` is :class:`icml25.common.vlm.TinyVLM` with the parameter-free patch encoder
(an 8×8 digit → four 4×4 patches) and a *linear* projector, so that digit identity must be
assembled by the LM layers (an MLP projector would hide perception in the projector).
:func:`train` minimises the mean negative log-likelihood of each batch's targets (every token for
"base", the answer token otherwise) with AdamW over one parameter group; :func:`evaluate` is
answer accuracy (argmax over the whole vocabulary; chance 0.1).
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import torch

from icml25.common.checks import (
    check_choice,
    check_device,
    check_int,
    check_positive,
    check_probability,
    check_seed,
)
from icml25.common.vlm import TinyVLM
from icml25.vlm_merging.tasks import ALL_TASKS, IMG, N_IMAGE_TOKENS, TASKS, TaskSuite

__all__ = ["PARAM_GROUPS", "build_model", "evaluate", "train"]

#: Parameter groups of :func:`train`: "layers" = ``lm.transformer.h.*`` and ``ln_f``;
#: "layers+projector" = those and ``proj`` (LLaVA's stage 2: embeddings and head frozen).
PARAM_GROUPS = ("all", "layers", "projector", "layers+projector")


def _check_suite(suite: object) -> TaskSuite:
    if not isinstance(suite, TaskSuite):
        raise TypeError(f"suite must be a TaskSuite (make_suite), got {type(suite).__name__}")
    return suite


def _check_model(model: object) -> TinyVLM:
    if not isinstance(model, TinyVLM):
        raise TypeError(f"model must be a TinyVLM (build_model), got {type(model).__name__}")
    return model


def _device(device: object) -> torch.device:
    """``device`` as a torch.device; None: :func:`icml25.common.runtime.get_device` (a GPU when
    one is visible)."""
    return check_device("device", device)


def build_model(
    suite: TaskSuite,
    n_layer: int = 6,
    n_embd: int = 64,
    n_head: int = 4,
    seed: int = 0,
    device=None,
) -> TinyVLM:
    """A :class:`TinyVLM` over the suite's vocabulary: patch encoder, linear ``proj``, GPT-2
    with ``n_layer`` blocks of width ``n_embd``, context 8 + 5 · n_operands, on ``device``
    (None: ``get_device()``, a GPU when one is visible; training and evaluation batches follow
    the model's device)."""
    suite = _check_suite(suite)
    device = _device(device)
    model = TinyVLM(
        suite.vocab_size,
        IMG,
        image_shape=(1, 8, 8),
        encoder="patches",
        n_image_tokens=N_IMAGE_TOKENS,
        n_layer=n_layer,
        n_embd=n_embd,
        n_head=n_head,
        n_positions=8 + 5 * suite.n_operands,
        seed=seed,
    )
    return model.to(device)


def _params(model: TinyVLM, params: str, layers=None) -> list[torch.nn.Parameter]:
    params = check_choice("params", params, PARAM_GROUPS)
    if layers is not None:
        if params != "layers":
            raise ValueError(f"layers is only used with params='layers', got params={params!r}")
        if isinstance(layers, (str, bytes)) or not isinstance(layers, (list, tuple)) or not layers:
            raise TypeError(f"layers must be a non-empty list of block indices, got {layers!r}")
        layers = [check_int("layers", i, 0, model.n_layer - 1) for i in layers]
        prefixes = tuple(f"lm.transformer.h.{i}." for i in layers)
        return [p for k, p in model.named_parameters() if k.startswith(prefixes)]
    if params == "all":
        return list(model.parameters())
    if params == "projector":
        return list(model.proj.parameters())
    prefixes = ("lm.transformer.h.", "lm.transformer.ln_f.")
    if params == "layers+projector":
        prefixes = (*prefixes, "proj.")
    return [p for k, p in model.named_parameters() if k.startswith(prefixes)]


def _mixture(task: str | Mapping[str, float]) -> dict[str, float]:
    if isinstance(task, str):
        return {check_choice("task", task, ALL_TASKS): 1.0}
    if not isinstance(task, Mapping) or not task:
        raise TypeError(f"task must be a task name or a dict task -> weight, got {task!r}")
    out = {}
    for name, w in task.items():
        out[check_choice("task", name, ALL_TASKS)] = check_positive(f"task[{name!r}]", w)
    return out


def train(
    model: TinyVLM,
    suite: TaskSuite,
    task: str | Mapping[str, float],
    steps: int,
    lr: float,
    params: str = "all",
    batch_size: int = 64,
    seed: int = 0,
    layers=None,
) -> list[float]:
    """Train ``params`` of ``model`` for ``steps`` AdamW steps (no weight decay) on ``task`` (a
    name, or a dict task -> weight: each batch is split between the tasks in proportion); returns
    the loss of every step. The other parameters are frozen (their gradients are not computed).
    ``layers`` (with ``params="layers"``): train only these blocks (not ``ln_f``), e.g. ``[5]``
    to plant a skill in one block."""
    model, suite = _check_model(model), _check_suite(suite)
    mixture = _mixture(task)
    steps = check_int("steps", steps, 1)
    lr = check_positive("lr", lr)
    batch_size = check_int("batch_size", batch_size, len(mixture))
    seed = check_seed("seed", seed)
    group = _params(model, params, layers)
    chosen = {id(p) for p in group}
    for p in model.parameters():
        p.requires_grad_(id(p) in chosen)
    total = sum(mixture.values())
    sizes = {t: max(1, int(round(batch_size * w / total))) for t, w in mixture.items()}
    opt = torch.optim.AdamW(group, lr=lr, weight_decay=0.0)
    model.train()
    losses = []
    try:
        for step in range(steps):
            loss = 0.0
            for j, (t, n) in enumerate(sizes.items()):
                b = suite.batch(t, "train", n, seed=int(seed * 1_000_003 + step * 17 + j) % 2**63)
                lp = model.sequence_logprob(b.input_ids, b.images, b.target_mask)
                loss = loss - lp.sum() / b.target_mask.sum() * (n / batch_size)
            opt.zero_grad()
            loss.backward()
            opt.step()
            losses.append(float(loss.detach()))
    finally:
        for p in model.parameters():
            p.requires_grad_(True)
    model.eval()
    return losses


@torch.no_grad()
def evaluate(model: TinyVLM, suite: TaskSuite, tasks=None, split: str = "test") -> dict[str, float]:
    """Answer accuracy per task on the fixed items of ``split`` (val or test; all ``n_test`` of
    them); ``tasks`` defaults to every task of ``TASKS`` (``ALIGN_TASKS`` may be named)."""
    model, suite = _check_model(model), _check_suite(suite)
    split = check_choice("split", split, ("val", "test"))
    if tasks is None:
        tasks = TASKS
    if isinstance(tasks, str) or not isinstance(tasks, (list, tuple)) or not tasks:
        raise TypeError(f"tasks must be a non-empty list of task names, got {tasks!r}")
    was = model.training
    model.eval()
    out = {}
    for t in tasks:
        b = suite.batch(check_choice("tasks", t, ALL_TASKS), split, suite.n_test)
        if b.input_ids.shape[1] > model.n_positions:
            raise ValueError(
                f"task {t!r} items have {b.input_ids.shape[1]} tokens, more than the model's "
                f"n_positions ({model.n_positions}): suite and model differ in n_operands"
            )
        logits = model(b.input_ids, b.images)
        pred = logits[torch.arange(len(b)), b.answer_pos - 1].argmax(-1).cpu()
        out[t] = float((pred == b.answer).float().mean())
    model.train(was)
    return out


def binomial_se(p: float, n: int) -> float:
    """Standard error sqrt(p (1 − p) / n) of an accuracy ``p`` on ``n`` items."""
    p = check_probability("p", p)
    n = check_int("n", n, 1)
    return float(np.sqrt(p * (1 - p) / n))
