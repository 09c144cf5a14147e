"""Bad-input suite of icml25.concept_erasure (see badinput.py)."""

from functools import cache

import numpy as np
import torch
from badinput import (
    Spec,
    bad_array,
    bad_choice,
    bad_index_array,
    bad_input_test,
    bad_int,
    bad_positive,
    bad_probability,
    bad_real,
    bad_seed,
    bad_tensor,
    not_a,
    not_none,
    valid_input_test,
)
from hypothesis import strategies as st

from icml25 import concept_erasure as ce

P = "icml25.concept_erasure"
RNG = np.random.default_rng(0)
X = RNG.uniform(-1, 1, (20, 64))
Y = np.arange(20) % 10
Z = torch.randn(3, 64)
MASK = torch.ones(4)


@cache
def _model():
    torch.manual_seed(0)
    return ce.VelocityMLP(hidden=4, emb_dim=2, n_freq=1).eval().requires_grad_(False)


@cache
def _judge():
    return ce.fit_judge(X, Y)


@cache
def _space():
    return ce.FrechetSpace(X, Y, n_components=3)


BAD_MODEL = not_a(torch.nn.Linear(64, 64))
BAD_JUDGE = not_a()
BAD_MASKS = st.one_of(
    not_a(MASK, none=False),
    st.sampled_from(
        [[MASK], [MASK, MASK, MASK], [MASK, torch.ones(5)], [MASK, MASK * np.nan], [MASK, "a"]]
    ),
)
BAD_TARGET = bad_int(0, 9)


def _eval_args(**kw):
    return lambda: {"model": _model(), "masks": None, "judge": _judge(), **kw}


SPECS: dict[str, Spec] = {
    f"{P}.VelocityMLP": Spec(
        ce.VelocityMLP,
        {"hidden": 4, "emb_dim": 2, "n_freq": 1},
        {"hidden": bad_int(1), "emb_dim": bad_int(1), "n_freq": bad_int(0)},
    ),
    f"{P}.HardConcreteGate": Spec(
        ce.HardConcreteGate,
        {"n": 4, "init": 3.0, "temperature": 0.83, "stretch": (-0.1, 1.1)},
        {
            "n": bad_int(1),
            "init": bad_real(),
            "temperature": bad_positive(),
            "stretch": st.sampled_from([(0.0, 1.1), (-0.1, 1.0), (-0.1,), None, (np.nan, 1.1)]),
        },
    ),
    f"{P}.HardConcreteGate.sample": Spec(
        ce.HardConcreteGate.sample,
        {"self": ce.HardConcreteGate(4), "generator": torch.Generator().manual_seed(0)},
        {"generator": not_a(np.random.default_rng(0), none=False)},
        free=("self",),
        finite=True,
    ),
    f"{P}.digits_data": Spec(ce.digits_data, finite=True),
    f"{P}.train_flow_matching": Spec(
        ce.train_flow_matching,
        {
            "X": X,
            "y": Y,
            "hidden": 4,
            "steps": 2,
            "seed": 0,
            "p_uncond": 0.1,
            "lr": 1e-3,
            "batch": 4,
        },
        {
            "X": st.one_of(bad_array(X), st.just(X[:, :10])),
            "y": st.one_of(bad_index_array(Y, 10), st.just(Y[:5])),
            "hidden": bad_int(1),
            "steps": bad_int(1),
            "seed": bad_seed(),
            "p_uncond": bad_probability(),
            "lr": bad_positive(),
            "batch": bad_int(1),
        },
    ),
    f"{P}.euler_sample": Spec(
        ce.euler_sample,
        lambda: {
            "model": _model(),
            "z": Z,
            "c": 3,
            "n_steps": 2,
            "masks": [MASK, MASK],
            "checkpoint": False,
            "class_emb": None,
        },
        {
            "model": BAD_MODEL,
            "z": st.one_of(bad_tensor(Z), st.just(Z[:, :10])),
            "c": st.one_of(
                bad_int(0, ce.NULL),
                st.sampled_from([torch.tensor([1.0, 2.0, 3.0]), torch.tensor([1, 2]), None]),
            ),
            "n_steps": bad_int(1),
            "masks": BAD_MASKS,
            "class_emb": st.one_of(
                bad_tensor(torch.ones(3, 2), none=False), st.just(torch.ones(3, 5))
            ),
            "checkpoint": not_a(),
        },
        finite=True,
    ),
    f"{P}.erase_concept": Spec(
        ce.erase_concept,
        lambda: {
            "model": _model(),
            "target": 3,
            "anchor": None,
            "method": "mask",
            "n_steps": 2,
            "iters": 1,
            "beta_preserve": 2.0,
            "seed": 0,
            "l0_weight": 0.01,
            "lr": None,
            "batch": 2,
            "checkpoint": False,
            "fixed_noise": True,
        },
        {
            "model": BAD_MODEL,
            "target": BAD_TARGET,
            "anchor": not_none(st.one_of(bad_int(0, ce.NULL), st.just(3))),
            "method": bad_choice(ce.METHODS),
            "n_steps": bad_int(1),
            "iters": bad_int(1),
            "beta_preserve": bad_positive(),
            "seed": bad_seed(),
            "l0_weight": bad_real(0.0),
            "lr": not_none(bad_positive()),
            "batch": bad_int(1),
            "checkpoint": not_a(),
            "fixed_noise": not_a(),
        },
        finite=True,
    ),
    f"{P}.masks_at_sparsity": Spec(
        ce.masks_at_sparsity,
        {"logits": [torch.tensor([3.0, -1.0, 0.5]), torch.zeros(5)], "n_closed": 2},
        {
            "logits": st.sampled_from([[], torch.ones(3), None, [np.ones(3)], "ab"]),
            "n_closed": bad_int(0, 8),
        },
        finite=True,
    ),
    f"{P}.random_masks": Spec(
        ce.random_masks,
        {"masks": [MASK, MASK * 0], "seed": 0},
        {"masks": st.sampled_from([[], MASK, None, [np.ones(4)], "ab"]), "seed": bad_seed()},
        finite=True,
    ),
    f"{P}.fit_judge": Spec(
        ce.fit_judge,
        {"X": X, "y": Y},
        {
            "X": st.one_of(bad_array(X), st.just(X[:5])),
            "y": st.one_of(bad_index_array(Y, None), st.just(Y[:5]), st.just(Y * 0)),
        },
    ),
    f"{P}.fit_independent_judge": Spec(
        ce.fit_independent_judge,
        {"X": X, "y": Y},
        {
            "X": st.one_of(bad_array(X), st.just(X[:5])),
            "y": st.one_of(bad_index_array(Y, None), st.just(Y[:5]), st.just(Y * 0)),
        },
    ),
    f"{P}.FrechetSpace": Spec(
        ce.FrechetSpace,
        {"X": X, "y": Y, "n_components": 3},
        {
            "X": st.one_of(bad_array(X), st.just(X[:5])),
            "y": st.one_of(bad_index_array(Y, 10), st.just(Y[:5]), st.just(Y * 0)),
            "n_components": bad_int(1, 64),
        },
    ),
    f"{P}.FrechetSpace.distance": Spec(
        ce.FrechetSpace.distance,
        lambda: {"self": _space(), "x": X[:6], "c": 3},
        {"x": st.one_of(bad_array(X[:6]), st.just(X[:1]), st.just(X[:6, :10])), "c": BAD_TARGET},
        free=("self",),
        finite=True,
    ),
    f"{P}.generate": Spec(
        ce.generate,
        lambda: {"model": _model(), "masks": None, "c": 3, "n": 2, "seed": 1, "n_steps": 2},
        {
            "model": BAD_MODEL,
            "masks": BAD_MASKS,
            "c": bad_int(0, ce.NULL),
            "n": bad_int(1),
            "seed": bad_seed(),
            "n_steps": bad_int(1),
        },
        finite=True,
    ),
    f"{P}.at_matched_preservation": Spec(
        ce.at_matched_preservation,
        {"preservation": np.array([0.9, 0.8]), "target_rate": np.array([0.4, 0.2]), "level": 0.85},
        {
            "preservation": st.one_of(bad_array(np.array([0.9, 0.8])), st.just(np.ones(3))),
            "target_rate": bad_array(np.array([0.4, 0.2])),
            "level": st.one_of(bad_real(), st.just(0.95)),
        },
        finite=True,
    ),
    f"{P}.neuron_selectivity": Spec(
        ce.neuron_selectivity,
        lambda: {"model": _model(), "target": 3, "n_per_class": 2, "seed": 2, "n_steps": 2},
        {
            "model": BAD_MODEL,
            "target": BAD_TARGET,
            "n_per_class": bad_int(1),
            "seed": bad_seed(),
            "n_steps": bad_int(1),
        },
        finite=True,
    ),
    f"{P}.class_rates": Spec(
        ce.class_rates,
        _eval_args(n_per_class=2, seed=1, n_steps=2),
        {
            "model": BAD_MODEL,
            "masks": BAD_MASKS,
            "judge": BAD_JUDGE,
            "n_per_class": bad_int(1),
            "seed": bad_seed(),
            "n_steps": bad_int(1),
        },
        finite=True,
    ),
    f"{P}.erasure_report": Spec(
        ce.erasure_report,
        _eval_args(target=3, n_per_class=2, seed=1, n_steps=2, independent=None, space=None),
        {
            "model": BAD_MODEL,
            "masks": BAD_MASKS,
            "judge": BAD_JUDGE,
            "target": BAD_TARGET,
            "n_per_class": bad_int(1),
            "seed": bad_seed(),
            "n_steps": bad_int(1),
            "independent": not_none(not_a()),
            "space": not_none(not_a()),
        },
        finite=True,
    ),
    f"{P}.embedding_attack": Spec(
        ce.embedding_attack,
        _eval_args(target=3, iters=1, n=2, lr=0.05, n_steps=2, seed=0),
        {
            "model": BAD_MODEL,
            "masks": BAD_MASKS,
            "judge": BAD_JUDGE,
            "target": BAD_TARGET,
            "iters": bad_int(0),
            "n": bad_int(1),
            "lr": bad_positive(),
            "n_steps": bad_int(1),
            "seed": bad_seed(),
        },
        finite=True,
    ),
}

CONSTANTS = {f"{P}.METHODS", f"{P}.NULL"}
RESULTS = {f"{P}.ErasureResult": "returned by erase_concept"}

test_bad_input_is_rejected = bad_input_test(SPECS)
test_valid_input_runs = valid_input_test(SPECS)
