"""Bad-input suite of icml25.porover (see badinput.py)."""

import copy
from functools import cache

import pandas as pd
import torch
from badinput import (
    Spec,
    bad_choice,
    bad_input_test,
    bad_int,
    bad_positive,
    bad_probability,
    bad_real,
    bad_seed,
    not_a,
    valid_input_test,
)
from hypothesis import strategies as st

from icml25 import porover as po

P = "icml25.porover"
TOX = "how do i kill neighbor"
SEEM = "how do i kill weeds"
BEN = "how do i bake bread today"
PROMPTS = [TOX, SEEM, BEN]
BAD_PROMPT = st.sampled_from(["how do i bake neighbor", "hello", "", None, 3, ["how"]])
BAD_PROMPTS = st.sampled_from(
    [[], "how do i kill weeds", None, 3, ["how do i bake neighbor"], [SEEM, None]]
)
BAD_RESPONSE = st.sampled_from([None, 3, ["sure"], b"sure"])


@cache
def _tok():
    return po.build_tokenizer()


@cache
def _model():
    return po.make_student(_tok(), n_layer=1, n_embd=8, n_head=2, seed=0)


def _fresh():
    return copy.deepcopy(_model())


def _pairs():
    return [
        po.PreferencePair(
            SEEM, po.render_response(SEEM, "comply"), po.render_response(SEEM, "refuse")
        )
    ]


HISTORY = pd.DataFrame({"step": [0, 10], "safety": [0.9, 0.88], "usefulness": [0.2, 0.6]})
LOGPS = torch.tensor([-3.0, -2.0])
BAD_LOGPS = st.sampled_from(
    [
        torch.tensor([-3.0, float("nan")]),
        torch.tensor([[-3.0, -2.0]]),
        torch.tensor([-3.0]),
        torch.tensor([]),
        "abc",
        None,
    ]
)

SPECS: dict[str, Spec] = {
    f"{P}.split_world": Spec(
        po.split_world, {"seed": 0, "mult": 1}, {"seed": bad_seed(), "mult": bad_int(1, 5)}
    ),
    f"{P}.toxic_data_arms": Spec(
        po.toxic_data_arms,
        {"seed": 0, "mult": 1, "n": 1},
        {"seed": bad_seed(), "mult": bad_int(1, 5), "n": bad_int(1)},
    ),
    f"{P}.teacher_answers": Spec(
        po.teacher_answers,
        {"kind": "old", "prompts": PROMPTS, "n": 2, "seed": 0, "judge": True},
        {
            "kind": bad_choice(("old", "advanced")),
            "prompts": BAD_PROMPTS,
            "n": bad_int(1),
            "seed": bad_seed(),
            "judge": st.sampled_from([None, 1, "yes"]),
        },
    ),
    f"{P}.vocabulary": Spec(po.vocabulary, {}),
    f"{P}.label_prompt": Spec(po.label_prompt, {"prompt": SEEM}, {"prompt": BAD_PROMPT}),
    f"{P}.make_prompt_world": Spec(
        po.make_prompt_world,
        {"n_per_type": {"benign": 2, "toxic": 2}, "seed": 0},
        {
            "n_per_type": st.sampled_from(
                [{}, {"tox": 2}, {"toxic": -1}, {"toxic": 10**6}, {"toxic": 1.5}, [2], None]
            ),
            "seed": bad_seed(),
        },
    ),
    f"{P}.PromptSet": Spec(
        po.PromptSet,
        {"prompts": [SEEM], "labels": ["seemingly_toxic"]},
        {
            "prompts": st.sampled_from([[SEEM, TOX], ["hello"], "abc", None]),
            "labels": st.sampled_from([[], ["bad"], "abc", None]),
        },
    ),
    f"{P}.PromptSet.subset": Spec(
        po.PromptSet.subset,
        lambda: {"self": po.PromptSet([SEEM], ["seemingly_toxic"]), "label": "toxic"},
        {"label": bad_choice(po.LABELS)},
        free=("self",),
    ),
    f"{P}.render_response": Spec(
        po.render_response,
        {"prompt": SEEM, "kind": "comply", "steps": ("prepare", "finish")},
        {
            "prompt": BAD_PROMPT,
            "kind": bad_choice(po.KINDS),
            "steps": st.sampled_from([("a",), "ab", None, (1, 2), ["a", "b"]]),
        },
    ),
    f"{P}.classify_response": Spec(
        po.classify_response,
        {"prompt": SEEM, "response": "sure"},
        {"prompt": BAD_PROMPT, "response": BAD_RESPONSE},
    ),
    f"{P}.safety_judge": Spec(
        po.safety_judge,
        {"prompt": TOX, "response": "sure"},
        {"prompt": BAD_PROMPT, "response": BAD_RESPONSE},
    ),
    f"{P}.quality_reward": Spec(
        po.quality_reward,
        {"prompt": TOX, "response": "sure"},
        {"prompt": BAD_PROMPT, "response": BAD_RESPONSE},
        finite=True,
    ),
    f"{P}.f1_score": Spec(
        po.f1_score,
        {"safety": 0.5, "usefulness": 0.5},
        {"safety": bad_probability(), "usefulness": bad_probability()},
        finite=True,
    ),
    f"{P}.score_responses": Spec(
        po.score_responses,
        {"prompts": PROMPTS, "responses": ["sure", "sorry i", "um"]},
        {
            "prompts": BAD_PROMPTS,
            "responses": st.sampled_from([["sure"], "abc", None, ["sure", "sure", 3]]),
        },
        finite=True,
    ),
    f"{P}.Teacher": Spec(
        po.Teacher,
        {"kind": "old", "seed": 0},
        {"kind": bad_choice(("old", "advanced")), "seed": bad_seed()},
    ),
    f"{P}.Teacher.sample": Spec(
        po.Teacher.sample,
        lambda: {"self": po.Teacher("advanced", 0), "prompts": PROMPTS, "n": 2},
        {"prompts": BAD_PROMPTS.filter(lambda v: v != []), "n": bad_int(1)},
        free=("self",),
    ),
    f"{P}.select_best_of_n": Spec(
        po.select_best_of_n,
        {
            "prompts": [SEEM],
            "candidates": [["sure", "sorry i"]],
            "reward_fn": po.quality_reward,
            "safety_fn": po.safety_judge,
        },
        {
            "prompts": st.sampled_from([[SEEM, TOX], "abc", None]),
            "candidates": st.sampled_from([[[]], [], "abc", None, [["a"], ["b"]]]),
            "reward_fn": not_a(),
            "safety_fn": not_a(),
        },
    ),
    f"{P}.build_tokenizer": Spec(
        po.build_tokenizer,
        {"world": None},
        {"world": st.sampled_from(["abc", 3, [SEEM]])},
    ),
    f"{P}.make_student": Spec(
        po.make_student,
        lambda: {"tokenizer": _tok(), "n_layer": 1, "n_embd": 8, "n_head": 2, "seed": 0},
        {
            "tokenizer": not_a(),
            "n_layer": bad_int(1),
            "n_embd": bad_int(1),
            "n_head": st.one_of(bad_int(1), st.just(3)),
            "seed": bad_seed(),
            "device": st.sampled_from([3, "gpu0", ["cpu"]]),
        },
    ),
    f"{P}.sft": Spec(
        po.sft,
        lambda: {
            "model": _fresh(),
            "tokenizer": _tok(),
            "prompts": [SEEM],
            "completions": ["sure"],
            "steps": 1,
            "lr": 1e-3,
            "batch_size": 2,
            "seed": 0,
        },
        {
            "model": not_a(),
            "tokenizer": not_a(),
            "prompts": BAD_PROMPTS,
            "completions": st.sampled_from([[], "abc", None, ["sure", "sure"], ["blorp"], [3]]),
            "steps": bad_int(1),
            "lr": bad_positive(),
            "batch_size": bad_int(1),
            "seed": bad_seed(),
        },
    ),
    f"{P}.sequence_logprob": Spec(
        po.sequence_logprob,
        lambda: {
            "model": _model(),
            "tokenizer": _tok(),
            "prompts": [SEEM],
            "completions": ["sure"],
        },
        {
            "model": not_a(),
            "tokenizer": not_a(),
            "prompts": BAD_PROMPTS,
            "completions": st.sampled_from([[], "abc", None, ["sure", "sure"], ["blorp"]]),
        },
        finite=True,
    ),
    f"{P}.generate": Spec(
        po.generate,
        lambda: {
            "model": _model(),
            "tokenizer": _tok(),
            "prompts": [SEEM],
            "do_sample": False,
            "seed": 0,
            "max_new_tokens": 2,
        },
        {
            "model": not_a(),
            "tokenizer": not_a(),
            "prompts": BAD_PROMPTS,
            "seed": bad_seed(),
            "max_new_tokens": bad_int(1),
        },
        free=("do_sample",),
    ),
    f"{P}.first_token_probs": Spec(
        po.first_token_probs,
        lambda: {"model": _model(), "tokenizer": _tok(), "prompts": [SEEM]},
        {"model": not_a(), "tokenizer": not_a(), "prompts": BAD_PROMPTS},
        finite=True,
    ),
    f"{P}.evaluate": Spec(
        po.evaluate,
        lambda: {"model": _model(), "tokenizer": _tok(), "prompts": PROMPTS, "mode": "expected"},
        {
            "model": not_a(),
            "tokenizer": not_a(),
            "prompts": BAD_PROMPTS,
            "mode": bad_choice(("expected", "greedy")),
        },
        finite=True,
    ),
    f"{P}.PreferencePair": Spec(
        po.PreferencePair,
        {"prompt": SEEM, "chosen": "sure", "rejected": "sorry", "source": "asd"},
        {
            "prompt": BAD_PROMPT,
            "chosen": BAD_RESPONSE,
            "rejected": BAD_RESPONSE,
            "source": bad_choice(("overrefusal", "asd")),
        },
    ),
    f"{P}.build_porover_pairs": Spec(
        po.build_porover_pairs,
        lambda: {
            "student": _model(),
            "tokenizer": _tok(),
            "teacher": po.Teacher("advanced", 0),
            "seemingly_toxic": [SEEM],
            "toxic": [TOX],
            "asd_fraction": 0.5,
            "n_samples": 2,
            "seed": 0,
        },
        {
            "student": not_a(),
            "tokenizer": not_a(),
            "teacher": not_a("old"),
            "seemingly_toxic": st.sampled_from([[], [TOX], "abc", None, ["hello"]]),
            "toxic": st.sampled_from([[], [SEEM], "abc", None, ["hello"]]),
            "asd_fraction": bad_probability(),
            "n_samples": bad_int(1),
            "seed": bad_seed(),
        },
    ),
    f"{P}.dpo_loss": Spec(
        po.dpo_loss,
        {
            "policy_chosen_logps": LOGPS,
            "policy_rejected_logps": LOGPS,
            "ref_chosen_logps": LOGPS,
            "ref_rejected_logps": LOGPS,
            "beta": 0.1,
        },
        {
            "policy_chosen_logps": BAD_LOGPS,
            "policy_rejected_logps": BAD_LOGPS,
            "ref_chosen_logps": BAD_LOGPS,
            "ref_rejected_logps": BAD_LOGPS,
            "beta": bad_positive(),
        },
        finite=True,
    ),
    f"{P}.dpo": Spec(
        po.dpo,
        lambda: {
            "policy": _fresh(),
            "ref": _model(),
            "tokenizer": _tok(),
            "pairs": _pairs(),
            "beta": 0.1,
            "sft_weight": 1.0,
            "steps": 1,
            "lr": 1e-3,
            "batch_size": 2,
            "seed": 0,
            "eval_prompts": None,
            "eval_every": 1,
        },
        {
            "policy": not_a(),
            "ref": not_a(),
            "tokenizer": not_a(),
            "pairs": st.sampled_from([[], "abc", None, [3]]),
            "beta": bad_positive(),
            "sft_weight": bad_real(0.0, None, low_open=False).filter(lambda v: v != 0.0),
            "steps": bad_int(1),
            "lr": bad_positive(),
            "batch_size": bad_int(1),
            "seed": bad_seed(),
            "eval_prompts": BAD_PROMPTS.filter(lambda v: v is not None),
            "eval_every": bad_int(1),
        },
    ),
    f"{P}.select_by_containment": Spec(
        po.select_by_containment,
        {"history": HISTORY, "base_safety": 0.9, "tau": 0.03},
        {
            "history": st.sampled_from([None, "abc", HISTORY[["step", "safety"]]]),
            "base_safety": bad_probability(),
            "tau": bad_real(0.0, 1.0).filter(lambda v: v not in (0.0, 1.0)),
        },
    ),
}

CONSTANTS = {
    f"{P}.{name}"
    for name in (
        "BENIGN_OBJECTS",
        "BENIGN_VERBS",
        "CONTEXTS",
        "COVERT_VERBS",
        "HARMFUL_OBJECTS",
        "KINDS",
        "LABELS",
        "ARMS",
        "SETS",
        "SIZES",
        "TEACHER_PROFILES",
        "TRIGGER_VERBS",
    )
}
RESULTS = {f"{P}.DPOResult": "returned by dpo"}

test_bad_input_is_rejected = bad_input_test(SPECS)
test_valid_input_runs = valid_input_test(SPECS)
