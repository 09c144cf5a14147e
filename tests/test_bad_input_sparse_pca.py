"""Bad-input suite of icml25.sparse_pca (see badinput.py)."""

import numpy as np
import pandas as pd
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
from hypothesis.extra.numpy import arrays

from icml25 import sparse_pca as spca

P = "icml25.sparse_pca"
X, V, SUPPORT = spca.spiked_covariance_data(12, 6, 2, 4.0, seed=0)
S = spca.sample_covariance(X)
X0 = np.ones(6)
BAD_X = st.one_of(bad_array(X), st.just(np.zeros((3, 6))))
BAD_S = st.one_of(bad_array(S), st.just(np.triu(S)), st.just(S[:, :5]))
FINITE_X = arrays(float, (12, 6), elements=st.floats(-1e6, 1e6)).filter(lambda a: np.any(a))
GRID = spca.sample_complexity_grid(["Thresholding"], [2], [6], [1, 4], 4.0, 2, progress=False)
METHOD_NAMES = st.sampled_from(["Thresholding", ["bogus"], [], None, [3]])

SPECS: dict[str, Spec] = {
    f"{P}.spiked_vector": Spec(
        spca.spiked_vector,
        {"p": 6, "k": 2, "shape": "spiky", "a": 0.7, "seed": 0},
        {
            "p": bad_int(1),
            "k": bad_int(1, 6),
            "shape": bad_choice(("spiky", "flat")),
            "a": bad_real(0.0, 1.0, low_open=True),
            "seed": bad_seed(),
        },
        finite=True,
    ),
    f"{P}.spiked_covariance_data": Spec(
        spca.spiked_covariance_data,
        {"n": 5, "p": 6, "k": 2, "lam": 4.0, "shape": "flat", "seed": 0, "a": 0.7},
        {
            "n": bad_int(1),
            "p": bad_int(1),
            "k": bad_int(1, 6),
            "lam": bad_positive(),
            "shape": bad_choice(("spiky", "flat")),
            "seed": bad_seed(),
            "a": bad_real(0.0, 1.0, low_open=True),
        },
        good={"lam": st.floats(1e-9, 1e9), "seed": st.integers(0, 2**64 - 1)},
        finite=True,
    ),
    f"{P}.sample_covariance": Spec(
        spca.sample_covariance, {"X": X}, {"X": bad_array(X)}, finite=True
    ),
    f"{P}.sin_theta": Spec(
        spca.sin_theta,
        {"u": V, "v": X0},
        {
            "u": st.one_of(bad_array(V), st.just(V * 0), st.just(V[:5])),
            "v": st.one_of(bad_array(X0), st.just(X0 * 0), st.just(X0[:5])),
        },
        good={"u": arrays(float, 6, elements=st.floats(-1e100, 1e100)).filter(np.any)},
        finite=True,
    ),
    f"{P}.support_recovered": Spec(
        spca.support_recovered,
        {"u": V, "support": SUPPORT},
        {
            "u": bad_array(V),
            "support": st.one_of(
                bad_index_array(SUPPORT, 6), st.just(np.array([1, 1])), st.just(np.arange(7))
            ),
        },
    ),
    f"{P}.column_statistics": Spec(
        spca.column_statistics, {"X": X}, {"X": bad_array(X)}, good={"X": FINITE_X}, finite=True
    ),
    f"{P}.threshold_column": Spec(
        spca.threshold_column,
        {"X": X, "k": 2, "init": "column"},
        {"X": BAD_X, "k": bad_int(1, 6), "init": bad_choice(spca.INITS)},
        good={"X": FINITE_X, "k": st.integers(1, 6), "init": st.sampled_from(spca.INITS)},
        finite=True,
    ),
    f"{P}.two_stage": Spec(
        spca.two_stage,
        {"X": X, "k": 2, "iters": 5, "tol": 1e-10, "init": "authors"},
        {
            "X": BAD_X,
            "k": bad_int(1, 6),
            "iters": bad_int(0),
            "tol": bad_positive(),
            "init": bad_choice(spca.INITS),
        },
        good={"k": st.integers(1, 5), "iters": st.integers(0, 50)},
        finite=True,
    ),
    f"{P}.truncated_power": Spec(
        spca.truncated_power,
        {"S": S, "x0": X0, "k": 2, "iters": 5, "tol": 1e-10},
        {
            "S": BAD_S,
            "x0": st.one_of(bad_array(X0), st.just(X0 * 0), st.just(X0[:5])),
            "k": bad_int(1, 6),
            "iters": bad_int(0),
            "tol": bad_positive(),
        },
        good={"k": st.integers(1, 6)},
        finite=True,
    ),
    f"{P}.truncated_power_path": Spec(
        spca.truncated_power_path,
        {"S": S, "x0": X0, "k": 2, "iters": 5, "tol": 1e-10},
        {
            "S": BAD_S,
            "x0": st.one_of(bad_array(X0), st.just(X0 * 0)),
            "k": bad_int(1, 6),
            "iters": bad_int(0),
            "tol": bad_positive(),
        },
        finite=True,
    ),
    f"{P}.diagonal_thresholding": Spec(
        spca.diagonal_thresholding,
        {"S": S, "k": 2},
        {"S": BAD_S, "k": bad_int(1, 6)},
        good={"k": st.integers(1, 6)},
        finite=True,
    ),
    f"{P}.covariance_thresholding": Spec(
        spca.covariance_thresholding,
        {"S": S, "k": 2, "n": 12, "tau": 4.0},
        {"S": BAD_S, "k": bad_int(1, 6), "n": bad_int(1), "tau": bad_positive()},
        good={"tau": st.floats(1e-6, 1e6), "k": st.integers(1, 6)},
        finite=True,
    ),
    f"{P}.sklearn_sparse_pca": Spec(
        spca.sklearn_sparse_pca,
        {"X": X, "k": 2, "alpha": 1.0, "seed": 0},
        {
            "X": bad_array(X),
            "k": bad_int(1, 6),
            "alpha": bad_positive(),
            "seed": st.one_of(bad_seed(), st.just(2**32)),
        },
        finite=True,
    ),
    f"{P}.instance_seed": Spec(
        spca.instance_seed,
        {"seed": 0},
        {"seed": bad_seed()},
        good={"seed": st.integers(0, 2**64 - 1)},
    ),
    f"{P}.sample_complexity_grid": Spec(
        spca.sample_complexity_grid,
        {
            "methods": ["Two-stage"],
            "ks": [2],
            "ps": [6],
            "cs": [1.0],
            "lam": 4.0,
            "trials": 1,
            "shape": "spiky",
            "seed": 0,
            "progress": False,
        },
        {
            "methods": METHOD_NAMES,
            "ks": st.sampled_from([[0], [7], [1.5], "2", [], None]),
            "ps": st.sampled_from([[0], [1], [6.0], 6, [], None]),
            "cs": st.sampled_from([[0.0], [-1.0], [np.nan], ["1"], 1.0, None]),
            "lam": bad_positive(),
            "trials": bad_int(1),
            "shape": bad_choice(("spiky", "flat")),
            "seed": bad_seed(),
        },
        free=("progress",),
    ),
    f"{P}.timing_sweep": Spec(
        spca.timing_sweep,
        {
            "methods": ["Thresholding"],
            "ps": [6],
            "k": 2,
            "c": 1.0,
            "lam": 4.0,
            "repeats": 1,
            "seed": 0,
        },
        {
            "methods": METHOD_NAMES,
            "ps": st.sampled_from([[1], [0], [6.5], 6, [], None]),
            "k": bad_int(1),
            "c": bad_positive(),
            "lam": bad_positive(),
            "repeats": bad_int(1),
            "seed": bad_seed(),
        },
    ),
    f"{P}.success_table": Spec(
        spca.success_table,
        {"grid": GRID},
        {"grid": not_a(GRID.drop(columns="success"), GRID.to_dict())},
    ),
    f"{P}.transition_point": Spec(
        spca.transition_point,
        {"cs": [1.0, 2.0, 4.0], "success": [0.0, 0.4, 0.9], "level": 0.5},
        {
            "cs": st.sampled_from(
                [[1.0, 2.0], [2.0, 1.0, 4.0], [0.0, 1.0, 2.0], [1, np.nan, 3], "abc", None]
            ),
            "success": st.sampled_from([[0.0, 0.4], [0.0, 1.5, 0.9], [0, np.nan, 1], None]),
            "level": bad_real(0.0, 1.0, low_open=True),
        },
        good={"level": st.floats(1e-9, 1.0)},
    ),
    f"{P}.transition_table": Spec(
        spca.transition_table,
        {"grid": GRID, "level": 0.5},
        {"grid": not_a(pd.DataFrame({"x": [1]})), "level": bad_real(0.0, 1.0, low_open=True)},
    ),
}

SPECS[f"{P}.random_sparse"] = Spec(
    spca.random_sparse, {"X": X, "k": 2}, {"X": bad_array(X), "k": bad_int(1, 6)}, finite=True
)
_XS = np.array([1.0, 2.0, 4.0, 8.0])
SPECS[f"{P}.loglog_slope"] = Spec(
    spca.loglog_slope,
    {"x": _XS, "y": 1 / np.sqrt(_XS) * np.array([1.0, 1.01, 0.99, 1.0]), "level": 0.95},
    {
        "x": st.one_of(bad_array(_XS), st.just(-_XS), st.just(_XS[:2]), st.just(np.ones(4))),
        "y": st.one_of(bad_array(_XS), st.just(-_XS), st.just(_XS[:3])),
        "level": bad_real(0.0, 1.0),
    },
    finite=True,
)

CONSTANTS = {f"{P}.METHODS", f"{P}.INITS"}

test_bad_input_is_rejected = bad_input_test(SPECS)
test_valid_input_runs = valid_input_test(SPECS)
test_good_input_is_finite = good_input_test(SPECS)
