"""Bad-input suite of icml25.vlm_merging: see badinput.py."""

import copy
from functools import cache

import numpy as np
import torch
from badinput import (
    Spec,
    bad_choice,
    bad_index_array,
    bad_input_test,
    bad_int,
    bad_positive,
    bad_probability,
    bad_seed,
    not_a,
    not_none,
    valid_input_test,
)
from hypothesis import strategies as st

import icml25.vlm_merging as vm

P = "icml25.vlm_merging"


@cache
def _suite():
    return vm.make_suite(seed=0, n_operands=2, n_test=20)


@cache
def _trio():
    base = vm.build_model(_suite(), n_layer=2, n_embd=8, n_head=2, seed=0)
    other = copy.deepcopy(base)
    with torch.no_grad():
        for p in other.parameters():
            p.add_(0.01)
    return base, other


def _sd(i):
    return _trio()[i].state_dict()


def _wrong_shape():
    sd = dict(_sd(1))
    sd["lm.transformer.h.0.ln_1.weight"] = torch.zeros(3)
    return sd


def _missing_key():
    sd = dict(_sd(1))
    del sd["proj.bias"]
    return sd


def _non_finite():
    sd = dict(_sd(1))
    sd["lm.transformer.h.0.ln_1.weight"] = torch.full((8,), float("nan"))
    return sd


def _float64():
    sd = dict(_sd(1))
    sd["lm.transformer.h.0.ln_1.weight"] = sd["lm.transformer.h.0.ln_1.weight"].double()
    return sd


BAD_DEVICE = st.sampled_from(["nope", 3, ["cpu"], "cuda:x"])
BAD_SD = st.one_of(
    not_a([1, 2], {}),
    st.builds(_wrong_shape),
    st.builds(_missing_key),
    st.just({"lm.transformer.h.0.x": 1.0}),
)
BAD_TASKS = st.sampled_from(["perception", [], ["nope"], 3, ("Perception",)])

SPECS: dict[str, Spec] = {
    f"{P}.make_suite": Spec(
        vm.make_suite,
        {"seed": 0, "n_operands": 2, "n_test": 10},
        {"seed": bad_seed(), "n_operands": bad_int(2, 6), "n_test": bad_int(1)},
    ),
    f"{P}.TaskSuite.batch": Spec(
        vm.TaskSuite.batch,
        lambda: {"self": _suite(), "task": "mm_reasoning", "split": "val", "n": 4, "seed": 0},
        {
            "task": bad_choice(vm.ALL_TASKS),
            "split": bad_choice(vm.SPLITS),
            "n": st.one_of(bad_int(1), st.just(21)),  # more than n_test fixed items
            "seed": bad_seed(),
        },
        free=("self",),
        finite=True,
    ),
    f"{P}.digit_token": Spec(
        vm.digit_token, {"d": [0, 9]}, {"d": st.one_of(bad_index_array([0, 9], 10), st.just(10))}
    ),
    f"{P}.binomial_se": Spec(
        vm.binomial_se,
        {"p": 0.5, "n": 10},
        {"p": bad_probability(), "n": bad_int(1)},
        finite=True,
    ),
    f"{P}.build_model": Spec(
        vm.build_model,
        lambda: {
            "suite": _suite(),
            "n_layer": 1,
            "n_embd": 8,
            "n_head": 2,
            "seed": 0,
            "device": "cpu",
        },
        {
            "suite": not_a(),
            "n_layer": bad_int(1),
            "n_embd": st.one_of(bad_int(1), st.just(7)),
            "n_head": st.one_of(bad_int(1), st.just(3)),
            "seed": bad_seed(),
            "device": BAD_DEVICE,
        },
    ),
    f"{P}.train": Spec(
        vm.train,
        lambda: {
            "model": copy.deepcopy(_trio()[0]),
            "suite": _suite(),
            "task": {"perception": 1.0, "base": 0.5},
            "steps": 1,
            "lr": 1e-3,
            "params": "layers",
            "batch_size": 4,
            "seed": 0,
            "layers": [1],
        },
        {
            "model": not_a(torch.nn.Linear(2, 2)),
            "suite": not_a(),
            "task": st.sampled_from(["nope", {}, {"nope": 1.0}, {"base": -1.0}, None, 3]),
            "steps": bad_int(1),
            "lr": bad_positive(),
            "params": bad_choice(vm.PARAM_GROUPS),
            "batch_size": bad_int(2),
            "seed": bad_seed(),
            "layers": st.sampled_from([[], [2], [-1], "0", 1, [0.5]]),
        },
        finite=True,
    ),
    f"{P}.evaluate": Spec(
        vm.evaluate,
        lambda: {"model": _trio()[0], "suite": _suite(), "tasks": ["perception"], "split": "val"},
        {
            "model": not_a(),
            "suite": not_a(),
            "tasks": BAD_TASKS,
            "split": st.one_of(bad_choice(("val", "test")), st.just("train")),
        },
        finite=True,
    ),
    f"{P}.mergeable": Spec(
        vm.mergeable, {"key": "proj.weight"}, {"key": st.sampled_from([None, 3, b"x", ["a"]])}
    ),
    f"{P}.layer_index": Spec(
        vm.layer_index, {"key": "lm.transformer.h.0.x"}, {"key": st.sampled_from([None, 3])}
    ),
    f"{P}.task_vector": Spec(
        vm.task_vector,
        lambda: {"ft": _sd(1), "base": _sd(0)},
        {"ft": BAD_SD, "base": BAD_SD},
        finite=True,
    ),
    f"{P}.merge": Spec(
        vm.merge,
        lambda: {
            "base": _sd(0),
            "models": [_sd(1), _sd(0)],
            "method": "layerswap",
            "weights": (0.9, 0.1),
            "density": 1.0,
            "swap_below": 1,
            "seed": 0,
        },
        {
            "base": BAD_SD,
            "models": st.one_of(
                not_a({}, torch.nn.Linear(2, 2)),
                st.just([]),
                st.builds(lambda: [_wrong_shape()]),
                st.builds(lambda: [_non_finite(), _sd(0)]),
                st.builds(lambda: [_sd(1), _float64()]),
            ),
            "method": bad_choice(vm.METHODS),
            "weights": st.sampled_from(
                [(0.9,), (0.9, 0.2), (0.5, float("nan")), "ab", None, 1.0, np.full((1, 2), 0.5)]
            ),
            "density": bad_probability(low_open=True),
            "swap_below": st.one_of(not_none(bad_int(0, 2)), st.just(None)),
            "seed": bad_seed(),
        },
        finite=True,
    ),
    f"{P}.layer_ablation": Spec(
        vm.layer_ablation,
        lambda: {
            "model": _trio()[1],
            "base": _sd(0),
            "suite": _suite(),
            "tasks": ["perception"],
            "split": "val",
        },
        {
            "model": not_a(),
            "base": BAD_SD,
            "suite": not_a(),
            "tasks": BAD_TASKS,
            "split": bad_choice(("val", "test")),
        },
    ),
    f"{P}.image_token_alignment": Spec(
        vm.image_token_alignment,
        lambda: {"model": _trio()[0], "suite": _suite(), "layer": 1, "position": "is"},
        {
            "model": not_a(),
            "suite": not_a(),
            "layer": not_none(bad_int(0, 1)),
            "position": bad_choice(vm.ALIGN_POSITIONS),
        },
        finite=True,
    ),
    f"{P}.probe_batch": Spec(
        vm.probe_batch,
        lambda: {"suite": _suite(), "probe": "oracle_mm", "split": "val"},
        {
            "suite": not_a(),
            "probe": bad_choice(vm.PROBES),
            "split": st.one_of(bad_choice(("val", "test")), st.just("train")),
        },
    ),
    f"{P}.probe_accuracy": Spec(
        vm.probe_accuracy,
        lambda: {
            "model": _trio()[0],
            "suite": _suite(),
            "probe": "perception_bare",
            "split": "val",
        },
        {
            "model": not_a(),
            "suite": not_a(),
            "probe": bad_choice(vm.PROBES),
            "split": st.one_of(bad_choice(("val", "test")), st.just("train")),
        },
        finite=True,
    ),
    f"{P}.skyline": Spec(
        vm.skyline,
        lambda: {
            "model": _trio()[0],
            "suite": _suite(),
            "steps": 1,
            "lr": 1e-3,
            "params": "layers",
            "seed": 0,
        },
        {
            "model": not_a(),
            "suite": not_a(),
            "steps": bad_int(1),
            "lr": bad_positive(),
            "params": bad_choice(vm.PARAM_GROUPS),
            "seed": bad_seed(),
        },
        finite=True,
    ),
    f"{P}.merge_candidates": Spec(
        vm.merge_candidates,
        {"n_layer": 3, "lambdas": [1.0, 0.5]},
        {
            "n_layer": bad_int(1),
            "lambdas": st.sampled_from([[], [1.5], [-0.1, 0.5], ["a"]]),
        },
    ),
    f"{P}.evaluate_merges": Spec(
        vm.evaluate_merges,
        lambda: {
            "models": {"base": _trio()[0], "vlm": _trio()[1], "reason": _trio()[0]},
            "suite": _suite(),
            "candidates": [{"method": "linear", "weights": (0.5, 0.5)}],
            "tasks": ["perception"],
            "split": "val",
        },
        {
            "models": not_a({"base": 1}, {}),
            "suite": not_a(),
            "candidates": st.sampled_from(
                [[], None, [{"weights": (1, 0)}], [{"method": "slerp"}], "linear"]
            ),
            "tasks": BAD_TASKS,
            "split": st.one_of(bad_choice(("val", "test")), st.just("train")),
        },
        finite=True,
    ),
    f"{P}.train_models": Spec(
        vm.train_models,
        lambda: {"suite": _suite(), "seed": 0, "scale": "small", "device": "cpu"},
        {
            "suite": not_a(),
            "seed": bad_seed(),
            "scale": bad_choice(("small", "large")),
            "device": BAD_DEVICE,
        },
        run_valid=False,  # trains three models (a minute)
    ),
    f"{P}.save_models": Spec(
        vm.save_models,
        lambda: {
            "models": dict.fromkeys(("base", "reason", "vlm", "planted"), _trio()[0]),
            "losses": dict.fromkeys(("base", "reason", "vlm", "planted"), [1.0]),
            "seed": 0,
            "directory": "/nonexistent",
        },
        {
            "models": not_a({"base": 1}),
            "losses": not_a({"base": []}),
            "seed": bad_seed(),
            "directory": st.sampled_from([3, 1.5, ["x"]]),
        },
        run_valid=False,  # writes files
    ),
    f"{P}.load_models": Spec(
        vm.load_models,
        lambda: {
            "suite": _suite(),
            "seed": 0,
            "directory": None,
            "scale": "small",
            "device": "cpu",
        },
        {
            "suite": not_a(),
            "seed": bad_seed(),
            "directory": st.sampled_from([3, 1.5, ["x"]]),
            "scale": bad_choice(("small", "large")),
            "device": BAD_DEVICE,
        },
        run_valid=False,  # reads the committed model files
    ),
}

CONSTANTS = {
    f"{P}.{n}" for n in ("IMG", "METHODS", "N_IMAGE_TOKENS", "PARAM_GROUPS", "PROBES", "SPLITS")
}
CONSTANTS |= {
    f"{P}.TASKS",
    f"{P}.ALIGN_TASKS",
    f"{P}.ALIGN_POSITIONS",
    f"{P}.ALL_TASKS",
    f"{P}.VOCAB",
    f"{P}.MODEL_NAMES",
    f"{P}.RECIPES",
}
RESULTS = {f"{P}.Batch": vm.Batch, f"{P}.TaskSuite": vm.TaskSuite}

test_bad_input_is_rejected = bad_input_test(SPECS)
test_valid_input_runs = valid_input_test(SPECS)
