"""Bad-input suite of icml25.two_stage_rct (see badinput.py)."""

import numpy as np
from badinput import (
    Spec,
    bad_array,
    bad_choice,
    bad_input_test,
    bad_int,
    bad_positive,
    bad_probability,
    good_input_test,
    not_a,
    valid_input_test,
)
from hypothesis import strategies as st

from icml25 import two_stage_rct as rct

P = "icml25.two_stage_rct"
MU = np.linspace(0.1, 0.9, 4)
U = np.array([[0.2, 0.5, 0.4, 0.9]])
SAMPLES = np.array([[0, 1, 1, 0], [1, 1, 0, 1]])
RNG = st.builds(np.random.default_rng, st.integers(0, 9))
BAD_RNG = not_a(0, np.random.RandomState(0))
BAD_DELTA = bad_probability(low_open=True, high_open=True)
BAD_FRAC = bad_probability(high_open=True)
GOOD_DELTA = st.floats(1e-12, 1 - 1e-9)


def _batch():
    return {
        "mu": MU[None],
        "budget": 40,
        "first_frac": 0.5,
        "delta": 0.1,
        "policy": "split",
        "rng": np.random.default_rng(0),
        "k": 1,
        "bound": "hoeffding",
        "correction": "none",
        "outcome": "bernoulli",
        "alpha": 1.0,
        "beta": 1.0,
        "n_mc": 5,
        "tape": None,
    }


BATCH_BAD = {
    "mu": st.one_of(bad_array(MU[None]), st.just(MU[None] + 1)),
    "budget": st.one_of(bad_int(1), st.just(3)),
    "first_frac": st.one_of(BAD_FRAC, st.just(0.01)),
    "delta": BAD_DELTA,
    "policy": bad_choice(rct.POLICIES),
    "rng": BAD_RNG,
    "k": bad_int(1),
    "bound": bad_choice(rct.BOUNDS),
    "correction": bad_choice(rct.CORRECTIONS),
    "outcome": bad_choice(rct.OUTCOMES),
    "alpha": bad_positive(),
    "beta": bad_positive(),
    "n_mc": bad_int(1),
    "tape": not_a(np.zeros((1, 4)), none=False),
}

SPECS: dict[str, Spec] = {
    f"{P}.width": Spec(
        rct.width,
        {"m": 10, "delta": 0.1, "bound": "hoeffding", "k_correction": 1},
        {
            "m": bad_int(1),
            "delta": BAD_DELTA,
            "bound": bad_choice(rct.BOUNDS),
            "k_correction": bad_int(1),
        },
        good={
            "m": st.integers(1, 10**12),
            "delta": GOOD_DELTA,
            "bound": st.sampled_from(rct.BOUNDS),
            "k_correction": st.integers(1, 10**6),
        },
        finite=True,
    ),
    f"{P}.certificate": Spec(
        rct.certificate,
        {"samples": SAMPLES, "delta": 0.1, "bound": "hoeffding", "correction": "none"},
        {
            "samples": st.one_of(bad_array(SAMPLES), st.just(SAMPLES * 2.0), st.just(-SAMPLES)),
            "delta": BAD_DELTA,
            "bound": bad_choice(rct.BOUNDS),
            "correction": bad_choice(rct.CORRECTIONS),
        },
        good={"delta": GOOD_DELTA, "correction": st.sampled_from(rct.CORRECTIONS)},
        finite=True,
    ),
    f"{P}.coverage_vs_k": Spec(
        rct.coverage_vs_k,
        lambda: {
            "ks": [1, 2],
            "m": 5,
            "delta": 0.1,
            "n_trials": 20,
            "rng": np.random.default_rng(0),
            "bound": "gaussian_exact",
        },
        {
            "ks": st.sampled_from([[0], [1, -2], [1.5], 3, "12", [], None]),
            "m": bad_int(1),
            "delta": BAD_DELTA,
            "n_trials": bad_int(1),
            "rng": BAD_RNG,
            "bound": bad_choice(rct.BOUNDS),
        },
        finite=True,
    ),
    f"{P}.allocation": Spec(
        rct.allocation,
        {"n": 5, "budget": 50, "first_frac": 0.3},
        {"n": bad_int(1), "budget": bad_int(1), "first_frac": BAD_FRAC},
        good={"first_frac": st.floats(0, 1, exclude_max=True), "budget": st.integers(1, 10**9)},
        finite=True,
    ),
    f"{P}.split_scores": Spec(
        rct.split_scores,
        {
            "u": U,
            "v": U[:, ::-1],
            "s2": 20,
            "delta": 0.1,
            "bound": "hoeffding",
            "correction": "none",
        },
        {
            "u": bad_array(U),
            "v": st.one_of(bad_array(U), st.just(U[:, :3]), st.just(np.vstack([U, U]))),
            "s2": bad_int(1),
            "delta": BAD_DELTA,
            "bound": bad_choice(rct.BOUNDS),
            "correction": bad_choice(rct.CORRECTIONS),
        },
        good={"delta": GOOD_DELTA, "s2": st.integers(4, 10**9)},
        finite=True,
    ),
    f"{P}.run_batch": Spec(rct.run_batch, _batch, BATCH_BAD, finite=True),
    f"{P}.run_design": Spec(
        rct.run_design,
        lambda: (
            {
                k: v
                for k, v in _batch().items()
                if k in ("budget", "first_frac", "delta", "policy", "rng")
            }
            | {"mu": MU}
        ),
        {"mu": st.one_of(bad_array(MU), st.just(MU + 1)), "rng": not_a(0)}
        | {k: BATCH_BAD[k] for k in ("budget", "first_frac", "delta", "policy")},
        finite=True,
    ),
    f"{P}.draw_arm_means": Spec(
        rct.draw_arm_means,
        lambda: {"n_trials": 2, "n_arms": 3, "rng": np.random.default_rng(0), "dist": "beta"},
        {
            "n_trials": bad_int(1),
            "n_arms": bad_int(1),
            "rng": BAD_RNG,
            "dist": bad_choice(("uniform", "beta")),
        },
        finite=True,
    ),
    f"{P}.simulate": Spec(
        rct.simulate,
        lambda: {
            "policies": ["split", "single_stage"],
            "n_trials": 3,
            "rng": np.random.default_rng(0),
            "n_arms": 4,
            "budget": 40,
            "first_frac": 0.5,
            "delta": 0.1,
            "mu_dist": "uniform",
            "paired": True,
        },
        {
            "policies": st.sampled_from(
                ["split", [], ["bogus"], {"a": {"k": 1}}, {"a": "split"}, None, 3]
            ),
            "n_trials": bad_int(1),
            "rng": BAD_RNG,
            "n_arms": bad_int(1),
            "budget": bad_int(1),
            "first_frac": BAD_FRAC,
            "delta": BAD_DELTA,
            "mu_dist": bad_choice(("uniform", "beta")),
            "paired": st.sampled_from([1, 0, "yes", None, 1.0]),
        },
    ),
    f"{P}.OutcomeTape": Spec(
        rct.OutcomeTape,
        lambda: {
            "mu": MU[None],
            "length": 10,
            "outcome": "bernoulli",
            "rng": np.random.default_rng(0),
        },
        {
            "mu": st.one_of(bad_array(MU[None]), st.just(MU[None] + 1)),
            "length": bad_int(1),
            "outcome": bad_choice(rct.OUTCOMES),
            "rng": BAD_RNG,
        },
    ),
}

CONSTANTS = {f"{P}.{name}" for name in ("BOUNDS", "CORRECTIONS", "LABELS", "OUTCOMES", "POLICIES")}
RESULTS = {f"{P}.DesignResult": "returned by run_design"}

test_bad_input_is_rejected = bad_input_test(SPECS)
test_valid_input_runs = valid_input_test(SPECS)
test_good_input_is_finite = good_input_test(SPECS)
