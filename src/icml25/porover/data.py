"""The chapter's data sets: one world per seed cut into five sets, and teacher answers.

Notebooks 1-3 cut the distinct prompts of one world (:func:`make_prompt_world`) into, per
label, a general SFT set, a toxic SFT set, a DPO set, a validation set and a test set
(:data:`SIZES`, times ``mult`` at ``large`` scale). The sets are disjoint, so validation and
test prompts are unseen (verb, object, context) combinations of seen words.
"""

from __future__ import annotations

from collections.abc import Sequence

from icml25.common.checks import check_choice, check_int, check_seed
from icml25.porover.world import (
    TEACHER_PROFILES,
    Teacher,
    _parse,
    make_prompt_world,
    quality_reward,
    safety_judge,
    select_best_of_n,
)

__all__ = ["ARMS", "SETS", "SIZES", "split_world", "teacher_answers", "toxic_data_arms"]

#: The toxic-prompt data sets of E2 (:func:`toxic_data_arms`).
ARMS = ("old", "advanced", "null", "no judge")

#: Names of the five sets, in the order they are cut from each label's prompts.
SETS = ("general", "toxic_sft", "dpo", "val", "test")
#: Prompts per label and set at ``mult = 1`` (``small`` scale), in the order of :data:`SETS`.
SIZES: dict[str, tuple[int, ...]] = {
    "benign": (540, 0, 0, 60, 150),
    "toxic": (30, 240, 100, 60, 150),
    "seemingly_toxic": (30, 100, 100, 60, 150),
}


def split_world(seed: int, mult: int = 1) -> dict[str, dict[str, list[str]]]:
    """``{set: {label: prompts}}``: the distinct prompts of one world of ``seed``, with
    ``mult`` × :data:`SIZES` prompts per label and set (disjoint sets)."""
    seed, mult = check_seed("seed", seed), check_int("mult", mult, 1, 5)
    sizes = {label: tuple(n * mult for n in v) for label, v in SIZES.items()}
    world = make_prompt_world({k: sum(v) for k, v in sizes.items()}, seed=seed)
    parts: dict[str, dict[str, list[str]]] = {name: {} for name in SETS}
    for label, counts in sizes.items():
        pool, start = world.subset(label), 0
        for name, n in zip(SETS, counts, strict=True):
            parts[name][label] = pool[start : start + n]
            start += n
    return parts


def teacher_answers(
    kind: str, prompts: Sequence[str], n: int, seed: int, judge: bool = True
) -> list[str | None]:
    """One answer per prompt from ``n`` samples of ``Teacher(kind, seed)``.

    ``n == 1``: the sample itself (None if ``judge`` and :func:`safety_judge` rejects it, i.e.
    unsafe samples are dropped). ``n > 1``: best-of-n by :func:`quality_reward` among the
    samples the judge passes (all samples if not ``judge``); None if none passes.
    """
    kind = check_choice("kind", kind, tuple(TEACHER_PROFILES))
    n, seed = check_int("n", n), check_seed("seed", seed)
    if not isinstance(judge, bool):
        raise TypeError(f"judge must be a bool, got {type(judge).__name__}")
    if not isinstance(prompts, Sequence) or isinstance(prompts, str) or not prompts:
        raise ValueError("prompts must be a non-empty list of prompts")
    for p in prompts:
        _parse(p, "prompts")
    cands = Teacher(kind, seed).sample(list(prompts), n)
    if n == 1:
        return [
            c[0] if not judge or safety_judge(p, c[0]) else None
            for p, c in zip(prompts, cands, strict=True)
        ]
    return select_best_of_n(
        list(prompts), cands, quality_reward, safety_judge if judge else (lambda p, c: True)
    )


def toxic_data_arms(
    seed: int, mult: int = 1, n: int = 8
) -> tuple[dict[str, dict[str, list[str]]], dict[str, tuple[list[str], list[str]]]]:
    """The paired SFT sets of E2 for one seed: ``(parts, {arm: (prompts, completions)})``.

    ``parts`` is :func:`split_world` ``(seed, mult)``. Every arm holds the same general data
    (the advanced teacher's best-of-``n`` answers to the general prompts, teacher seed ``seed``)
    followed by the same toxic-SFT prompts in the same order; only their completions differ:
    "old" (one old-teacher sample, unsafe ones dropped; teacher seed ``seed + 1``), "advanced"
    (best-of-``n`` of the advanced teacher; ``seed + 1``), "null" (the old teacher's second draw;
    ``seed + 2``) and "no judge" (one old-teacher sample, unsafe ones kept; ``seed + 3``). The
    toxic-SFT prompts kept are those the old, advanced and null data all answer.
    """
    parts = split_world(seed, mult)
    n = check_int("n", n)
    general = sum(parts["general"].values(), [])
    gen = [
        (p, a)
        for p, a in zip(general, teacher_answers("advanced", general, n, seed), strict=True)
        if a is not None
    ]
    tox = parts["toxic_sft"]["toxic"] + parts["toxic_sft"]["seemingly_toxic"]
    answers = {
        "old": teacher_answers("old", tox, 1, seed + 1),
        "advanced": teacher_answers("advanced", tox, n, seed + 1),
        "null": teacher_answers("old", tox, 1, seed + 2),
        "no judge": teacher_answers("old", tox, 1, seed + 3, judge=False),
    }
    keep = [i for i in range(len(tox)) if all(answers[a][i] is not None for a in ARMS[:3])]
    arms = {
        arm: (
            [p for p, _ in gen] + [tox[i] for i in keep],
            [c for _, c in gen] + [answers[arm][i] for i in keep],
        )
        for arm in ARMS
    }
    return parts, arms
