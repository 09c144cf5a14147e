"""Bad-input suite of icml25.private_ot (see badinput.py)."""

import numpy as np
import ot  # noqa: F401  (imported here: its torch backend takes longer than the time limit)
from badinput import (
    Spec,
    bad_array,
    bad_choice,
    bad_index_array,
    bad_input_test,
    bad_int,
    bad_positive,
    bad_real,
    bad_seed,
    good_input_test,
    not_a,
    valid_input_test,
)
from hypothesis import strategies as st

from icml25 import private_ot as po

P = "icml25.private_ot"
PTS, AXIS = po.make_grid(5)
CENTERS = np.array([[0.1, 0.1]])
FAM = po.bump_family(AXIS, CENTERS, 0.12, np.array([-0.006, 0.0, 0.006]))
PHI = FAM.phi[1]
X, Y = po.sample_problem(FAM, 1, 6, np.random.default_rng(0))
SCORES = po.semi_dual_scores(FAM, X, Y, 0.3)
DRAWS = np.array([0, 1, 0, 2, 1, 0, 0, 1])

BAD_EPS = st.one_of(
    st.sampled_from([0.0, -1.0, np.nan, -np.inf, "1", None, True]),
    st.floats(max_value=0.0, allow_nan=False),
)
BAD_AXIS = st.one_of(bad_array(AXIS), st.just(AXIS[:2]), st.just(AXIS[::-1]), st.just(np.zeros(5)))
BAD_PHI = st.one_of(
    bad_array(PHI, shape=False),
    st.sampled_from([PHI[:-1], np.ones((2, 2, 25)), PHI[:0], np.float64(1.0)]),
)
BAD_X = st.one_of(bad_array(X), st.just(X[:, :1]), st.just(X[:3]), st.just(np.ones((6, 3))))
BAD_Y = st.one_of(bad_array(Y), st.just(Y[:3]), st.just(Y[:, :1]))
BAD_FAMILY = not_a(PHI, {"phi": PHI})
BAD_RNG = st.sampled_from([0, None, "rng", np.random.RandomState(0)])


def _tmap(x):
    return po.transport_map(PHI, AXIS)(x)


SPECS: dict[str, Spec] = {
    f"{P}.make_grid": Spec(
        po.make_grid,
        {"n": 4, "d": 2, "lo": -0.5, "hi": 0.5},
        {
            "n": bad_int(3),
            "d": st.one_of(bad_int(1, 2), st.just(3)),
            "lo": st.one_of(bad_real(), st.just(0.5)),
            "hi": st.one_of(bad_real(), st.just(-0.5)),
        },
        good={"n": st.integers(3, 30), "d": st.sampled_from([1, 2])},
        finite=True,
    ),
    f"{P}.legendre_conjugate": Spec(
        po.legendre_conjugate,
        {"phi": FAM.phi, "axis": AXIS, "refine": True},
        {"phi": BAD_PHI, "axis": BAD_AXIS, "refine": st.sampled_from([None, "yes", 1.0])},
        good={"refine": st.booleans()},
        finite=True,
    ),
    f"{P}.transport_map": Spec(
        po.transport_map,
        {"phi": PHI, "axis": AXIS},
        {"phi": st.one_of(BAD_PHI, st.just(FAM.phi)), "axis": BAD_AXIS},
    ),
    f"{P}.potential_family": Spec(
        po.potential_family,
        {"phi": FAM.phi, "axis": AXIS, "thetas": FAM.thetas, "refine": True},
        {
            "phi": BAD_PHI,
            "axis": BAD_AXIS,
            "thetas": st.one_of(bad_array(FAM.thetas, none=False), st.just(FAM.thetas[:2])),
            "refine": st.sampled_from([None, "yes"]),
        },
        finite=True,
    ),
    f"{P}.bump_family": Spec(
        po.bump_family,
        {"axis": AXIS, "centers": CENTERS, "width": 0.12, "levels": np.array([0.0, 0.01])},
        {
            "axis": BAD_AXIS,
            "centers": st.one_of(bad_array(CENTERS), st.just(np.zeros((1, 3)))),
            "width": bad_positive(),
            "levels": bad_array(np.array([0.0, 0.01])),
            "refine": st.sampled_from([None, "yes"]),
        },
        finite=True,
    ),
    f"{P}.sample_problem": Spec(
        po.sample_problem,
        lambda: {"family": FAM, "index": 1, "n": 5, "rng": np.random.default_rng(0)},
        {"family": BAD_FAMILY, "index": bad_int(0, 2), "n": bad_int(1), "rng": BAD_RNG},
        good={"n": st.integers(1, 50)},
        finite=True,
    ),
    f"{P}.semi_dual_scores": Spec(
        po.semi_dual_scores,
        {"family": FAM, "X": X, "Y": Y, "clip": 0.3},
        {"family": BAD_FAMILY, "X": BAD_X, "Y": BAD_Y, "clip": bad_positive()},
        good={"clip": st.floats(1e-6, 1e6)},
        finite=True,
    ),
    f"{P}.selection_probabilities": Spec(
        po.selection_probabilities,
        {"scores": SCORES, "sensitivity": 0.1, "eps": 1.0},
        {"scores": bad_array(SCORES), "sensitivity": bad_positive(), "eps": BAD_EPS},
        good={"eps": st.one_of(st.floats(1e-6, 1e6), st.just(np.inf))},
        finite=True,
    ),
    f"{P}.report_noisy_min": Spec(
        po.report_noisy_min,
        lambda: {
            "scores": SCORES,
            "sensitivity": 0.1,
            "eps": 1.0,
            "rng": np.random.default_rng(0),
            "mechanism": "laplace",
        },
        {
            "scores": bad_array(SCORES),
            "sensitivity": bad_positive(),
            "eps": BAD_EPS,
            "rng": BAD_RNG,
            "mechanism": bad_choice(po.MECHANISMS),
        },
        good={"mechanism": st.sampled_from(po.MECHANISMS), "eps": st.just(np.inf)},
        finite=True,
    ),
    f"{P}.noisy_min_releases": Spec(
        po.noisy_min_releases,
        lambda: {
            "scores": SCORES,
            "sensitivity": 0.1,
            "eps": 1.0,
            "releases": 5,
            "rng": np.random.default_rng(0),
        },
        {
            "scores": bad_array(SCORES),
            "sensitivity": bad_positive(),
            "eps": BAD_EPS,
            "releases": bad_int(1),
            "rng": BAD_RNG,
        },
        good={"eps": st.just(np.inf), "releases": st.integers(1, 50)},
        finite=True,
    ),
    f"{P}.private_potential": Spec(
        po.private_potential,
        lambda: {
            "X": X,
            "Y": Y,
            "family": FAM,
            "eps": 1.0,
            "clip": 0.3,
            "rng": None,
            "mechanism": "laplace",
        },
        {
            "X": BAD_X,
            "Y": BAD_Y,
            "family": BAD_FAMILY,
            "eps": BAD_EPS,
            "clip": bad_positive(),
            "rng": st.sampled_from([0, "rng"]),
            "mechanism": bad_choice(po.MECHANISMS),
        },
        good={"eps": st.just(np.inf)},
        finite=True,
    ),
    f"{P}.PotentialEstimate.map": Spec(
        po.PotentialEstimate.map,
        {"self": po.private_potential(X, Y, FAM, 1.0), "x": X},
        {"x": st.one_of(bad_array(X), st.just(np.ones((3, 1))))},
        free=("self",),
        finite=True,
    ),
    f"{P}.audit_epsilon": Spec(
        po.audit_epsilon,
        {"draws": DRAWS, "draws_prime": DRAWS[::-1], "alpha": 0.05},
        {
            "draws": st.one_of(bad_index_array(DRAWS, None), st.just(DRAWS[:3])),
            "draws_prime": st.one_of(bad_index_array(DRAWS, None), st.just(DRAWS[:2])),
            "alpha": bad_real(0.0, 1.0),
        },
        finite=True,
    ),
    f"{P}.map_l2_error": Spec(
        po.map_l2_error,
        {"T_hat": _tmap, "T_true": lambda x: x, "x_eval": X},
        {
            "T_hat": st.sampled_from([X[:3], "abc", None, np.full_like(X, np.nan)]),
            "T_true": st.sampled_from([X[:, :1], "abc", None]),
            "x_eval": st.one_of(bad_array(X), st.just(np.ones((3, 1)))),
        },
        finite=True,
    ),
    f"{P}.ot_baseline": Spec(
        po.ot_baseline,
        {"X": X, "Y": Y, "method": "emd", "reg": 0.01},
        {"X": BAD_X, "Y": BAD_Y, "method": bad_choice(po.OT_METHODS), "reg": bad_positive()},
    ),
    f"{P}.candidate_errors": Spec(
        po.candidate_errors, {"family": FAM}, {"family": BAD_FAMILY}, finite=True
    ),
    f"{P}.error_grid": Spec(
        po.error_grid,
        {
            "family": FAM,
            "ns": [5],
            "epss": [1.0, np.inf],
            "reps": 2,
            "clip": 0.3,
            "truths": None,
            "seed": 0,
            "progress": False,
            "candidates": None,
        },
        {
            "family": BAD_FAMILY,
            "ns": st.sampled_from([[0], [2.5], 5, [], None, "5"]),
            "epss": st.sampled_from([[0.0], [-1.0], [np.nan], ["1"], 1.0, []]),
            "reps": bad_int(1),
            "clip": bad_positive(),
            "truths": st.sampled_from(
                [np.array([5]), np.array([-1]), np.array([np.nan]), np.array([1.7]), "a"]
            ),
            "seed": bad_seed(),
            "candidates": st.sampled_from(
                [
                    np.array([5]),
                    np.array([-1]),
                    np.array([0, 0]),
                    np.array([np.nan]),
                    np.array([0.5, 1.9]),
                    "a",
                ]
            ),
        },
        free=("progress",),
    ),
    f"{P}.worst_neighbour": Spec(
        po.worst_neighbour,
        {"family": FAM, "X": X, "Y": Y, "clip": 0.3, "among": None},
        {
            "family": BAD_FAMILY,
            "X": bad_array(X),
            "Y": bad_array(Y),
            "clip": bad_positive(),
            "among": st.sampled_from([np.array([0]), np.array([3, 0]), np.array([0.5, 1.0])]),
        },
        finite=True,
    ),
    f"{P}.hessian_range": Spec(
        po.hessian_range,
        {"family": FAM, "chunk": 2},
        {"family": BAD_FAMILY, "chunk": bad_int(1)},
        finite=True,
    ),
    f"{P}.population_semi_dual": Spec(
        po.population_semi_dual,
        {"family": FAM, "index": 0, "m": 10, "clip": 0.3},
        {"family": BAD_FAMILY, "index": bad_int(0, 2), "m": bad_int(2), "clip": bad_positive()},
        finite=True,
    ),
}

CONSTANTS = {f"{P}.MECHANISMS", f"{P}.OT_METHODS"}
RESULTS = {
    f"{P}.PotentialFamily": "built by potential_family and bump_family",
    f"{P}.PotentialEstimate": "returned by private_potential",
}

test_bad_input_is_rejected = bad_input_test(SPECS)
test_valid_input_runs = valid_input_test(SPECS)
test_good_input_is_finite = good_input_test(SPECS)
