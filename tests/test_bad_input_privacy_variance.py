"""Bad-input suite of icml25.privacy_variance (see badinput.py)."""

import dataclasses
from functools import cache

import numpy as np
import pandas as pd
import pytest
import torch
from badinput import (
    Spec,
    bad_choice,
    bad_index_array,
    bad_input_test,
    bad_int,
    bad_positive,
    bad_probability,
    bad_real,
    bad_seed,
    not_a,
    not_none,
    valid_input_test,
)
from hypothesis import strategies as st

from icml25 import privacy_variance as pv

P = "icml25.privacy_variance"
CORPUS = pv.make_corpus(n_records=64, reps=(1, 2), n_per_rep=2, n_controls=2, n_test=8, seed=0)
BAD_DELTA = bad_probability(low_open=True, high_open=True)
BAD_CORPUS = st.one_of(
    not_a(CORPUS.train),
    st.sampled_from(
        [
            dataclasses.replace(CORPUS, train=CORPUS.train + 100),
            dataclasses.replace(CORPUS, train=CORPUS.train.astype(float)),
            dataclasses.replace(CORPUS, test=CORPUS.test[:, :1]),
        ]
    ),
)
ROWS = [
    {"b": b, "T": T, "lr": lr, "seed": s, "exposure_r4": float(b + T + s), "x": 1.0}
    for b in (8, 16)
    for T in (5, 10)
    for lr in (0.5, 2.0)
    for s in (0, 1)
]
DF = pd.DataFrame(ROWS)
GRID = DF.assign(sigma=DF["b"] / 8.0, test_loss=1.0 + DF["lr"] / 10 + DF["seed"] / 100)
BAD_GRID = st.one_of(
    not_a(ROWS),
    st.sampled_from(
        [
            GRID.drop(columns="exposure_r4"),
            GRID.head(4),
            GRID.assign(b=0),
            GRID.assign(exposure_r4=np.nan),
            GRID.drop(columns="lr"),
        ]
    ),
)


@cache
def _model():
    torch.manual_seed(0)
    return pv.ContextLM(CORPUS.vocab, d=2, hidden=4)


SPECS: dict[str, Spec] = {
    f"{P}.make_corpus": Spec(
        pv.make_corpus,
        {
            "n_records": 64,
            "reps": (1, 2),
            "n_per_rep": 2,
            "n_controls": 2,
            "seed": 0,
            "length": 8,
            "vocab": 14,
            "n_test": 8,
            "insert": False,
        },
        {
            "n_records": st.one_of(bad_int(2), st.just(6)),
            "reps": st.sampled_from([(), (0,), (1.5,), "12", None, (True,)]),
            "n_per_rep": st.one_of(bad_int(1), st.just(10**4)),
            "n_controls": st.one_of(bad_int(1), st.just(10**4)),
            "seed": bad_seed(),
            "length": bad_int(6),
            "vocab": bad_int(12),
            "n_test": bad_int(1),
            "insert": st.sampled_from([1, 0, "yes", None]),
        },
    ),
    f"{P}.ContextLM": Spec(
        pv.ContextLM,
        {"vocab": 14, "context": 2, "d": 2, "hidden": 4},
        {"vocab": bad_int(2), "context": bad_int(1), "d": bad_int(1), "hidden": bad_int(1)},
    ),
    f"{P}.calibrate_sigma": Spec(
        pv.calibrate_sigma,
        {"eps": 8.0, "delta": 1e-3, "batch_size": 8, "n": 64, "steps": 5, "accountant": "rdp"},
        {
            "eps": bad_positive(),
            "delta": BAD_DELTA,
            "batch_size": st.one_of(bad_int(1), st.just(65)),
            "n": bad_int(1),
            "steps": bad_int(1),
            "accountant": bad_choice(("prv", "rdp", "gdp")),
        },
        finite=True,
    ),
    f"{P}.train_dp": Spec(
        pv.train_dp,
        {
            "corpus": CORPUS,
            "batch_size": 8,
            "steps": 2,
            "lr": 0.5,
            "eps": None,
            "delta": None,
            "clip": 1.0,
            "seed": 0,
            "momentum": 0.9,
            "sigma": None,
            "norm_every": None,
        },
        {
            "corpus": BAD_CORPUS,
            "batch_size": st.one_of(bad_int(1), st.just(65)),
            "steps": bad_int(1),
            "lr": bad_positive(),
            "eps": not_none(bad_positive()),
            "delta": not_none(BAD_DELTA),
            "clip": bad_positive(),
            "seed": bad_seed(),
            "momentum": bad_real(0.0),
            "sigma": not_none(bad_positive()),
            "norm_every": not_none(bad_int(1)),
        },
    ),  # not finite: eps_spent is inf without privacy
    f"{P}.per_sample_grad_norms": Spec(
        pv.per_sample_grad_norms,
        lambda: {"model": _model(), "x": CORPUS.train[:4]},
        {
            "model": not_a(torch.nn.Linear(2, 2)),
            "x": st.one_of(
                bad_index_array(CORPUS.train[:4], CORPUS.vocab), st.just(CORPUS.train[:4, :1])
            ),
        },
        finite=True,
    ),
    f"{P}.exposure": Spec(
        pv.exposure,
        lambda: {"model": _model(), "prefixes": CORPUS.prefixes, "secrets": CORPUS.secrets},
        {
            "model": not_a(),
            "prefixes": st.one_of(
                bad_index_array(CORPUS.prefixes, CORPUS.vocab), st.just(CORPUS.prefixes[:1])
            ),
            "secrets": st.one_of(
                bad_index_array(CORPUS.secrets, 10), st.just(CORPUS.secrets[:, :3])
            ),
        },
        finite=True,
    ),
    f"{P}.extracted": Spec(
        pv.extracted,
        lambda: {"model": _model(), "prefixes": CORPUS.prefixes, "secrets": CORPUS.secrets},
        {
            "model": not_a(),
            "prefixes": st.one_of(
                bad_index_array(CORPUS.prefixes, CORPUS.vocab), st.just(CORPUS.prefixes[:1])
            ),
            "secrets": st.one_of(
                bad_index_array(CORPUS.secrets, 10), st.just(CORPUS.secrets[:, :3])
            ),
        },
    ),
    f"{P}.secret_loglik": Spec(
        pv.secret_loglik,
        lambda: {"model": _model(), "prefixes": CORPUS.prefixes},
        {
            "model": not_a(),
            "prefixes": st.one_of(
                bad_index_array(CORPUS.prefixes, CORPUS.vocab), st.just(CORPUS.prefixes[0])
            ),
        },
        finite=True,
    ),
    f"{P}.tune_lr": Spec(
        pv.tune_lr,
        {"df": DF.assign(test_loss=DF["x"] + DF["lr"])},
        {
            "df": st.one_of(
                not_a(ROWS),
                st.sampled_from(
                    [DF, DF.head(0).assign(test_loss=1.0), DF.assign(test_loss=np.nan)]
                ),
            )
        },
    ),
    f"{P}.run_grid": Spec(
        pv.run_grid,
        {
            "configs": [{"b": 8, "T": 1, "lr": 0.5}],
            "corpus": CORPUS,
            "eps": 8.0,
            "delta": 1e-2,
            "seeds": [0],
            "measure_privacy": True,
        },
        {
            "measure_privacy": st.sampled_from([1, "no", None]),
            "configs": st.sampled_from(
                [
                    [],
                    None,
                    [{"b": 8}],
                    [{"b": 0, "T": 1, "lr": 0.5}],
                    [{"b": 8, "T": 1.5, "lr": 0.5}],
                    [{"b": 8, "T": 1, "lr": -1.0}],
                    ["abc"],
                ]
            ),
            "corpus": BAD_CORPUS,
            "eps": bad_positive(),
            "delta": BAD_DELTA,
            "seeds": st.sampled_from([[], [-1], [1.5], 0, "0", None]),
        },
        finite=True,
    ),
    f"{P}.fit_privacy_regression": Spec(
        pv.fit_privacy_regression,
        {"df": DF, "response": None},
        {
            "df": st.one_of(
                not_a(ROWS),
                st.sampled_from(
                    [
                        DF.drop(columns="exposure_r4"),
                        DF.head(4),
                        DF.assign(b=0),
                        DF.assign(exposure_r4=np.nan),
                        DF.drop(columns="lr"),
                    ]
                ),
            ),
            "response": st.sampled_from(["missing", "a b", 3, "seed; x"]),
            "model": bad_choice(pv.MODELS),
        },
        finite=True,
    ),
    f"{P}.bootstrap_coefficients": Spec(
        pv.bootstrap_coefficients,
        {"df": GRID, "response": None, "model": "interaction", "n_boot": 10, "seed": 0},
        {
            "df": BAD_GRID,
            "response": st.sampled_from(["missing", "a b", 3]),
            "model": bad_choice(pv.MODELS),
            "n_boot": bad_int(10),
            "level": bad_probability(low_open=True, high_open=True),
            "seed": bad_seed(),
        },
        finite=True,
    ),
    f"{P}.select_configuration": Spec(
        pv.select_configuration,
        {"loss": [1.0, 1.05, 1.3], "predicted": [3.0, 2.0, 0.0], "tol": 0.1},
        {
            "loss": st.sampled_from([[], [1.0, np.nan, 1.0], [[1.0, 2.0, 3.0]]]),
            "predicted": st.sampled_from([[1.0], [1.0, np.inf, 2.0]]),
            "tol": bad_real(0.0),
        },
        names={"loss": "loss"},
    ),
    f"{P}.heldout_selection": Spec(
        pv.heldout_selection,
        {"df": GRID, "model": "individual", "tol": 0.5, "n_perm": 2, "seed": 0},
        {
            "df": st.one_of(
                BAD_GRID,
                st.sampled_from(
                    [GRID[GRID.seed == 0], GRID.drop(columns="test_loss"), GRID.iloc[:-1]]
                ),
            ),
            "response": st.sampled_from(["missing", "a b", 3]),
            "model": bad_choice(pv.MODELS),
            "tol": bad_real(0.0),
            "n_perm": bad_int(1),
            "seed": bad_seed(),
        },
    ),
    f"{P}.config_vs_seed_anova": Spec(
        pv.config_vs_seed_anova,
        {"df": DF, "column": "exposure_r4"},
        {
            "df": st.one_of(
                not_a(ROWS),
                st.sampled_from(
                    [
                        DF.drop(columns="b"),
                        DF[DF.seed == 0],
                        DF.assign(exposure_r4=np.inf),
                        DF[(DF.b == 8) & (DF["T"] == 5) & (DF.lr == 0.5)],
                    ]
                ),
            ),
            "column": st.sampled_from(["missing", None, 3]),
        },
    ),
}

CONSTANTS = {f"{P}.MAX_EXPOSURE", f"{P}.MODELS"}
RESULTS = {f"{P}.Corpus": "returned by make_corpus", f"{P}.TrainResult": "returned by train_dp"}

test_bad_input_is_rejected = bad_input_test(SPECS)
test_valid_input_runs = valid_input_test(SPECS)


@pytest.mark.parametrize("df", [GRID.drop(columns="sigma"), GRID.assign(sigma=-1.0)])
def test_composite_regression_needs_a_valid_sigma(df):
    """The composite model reads sigma (log sigma C / b): missing or negative raises."""
    with pytest.raises(ValueError, match="sigma|df"):
        pv.fit_privacy_regression(df, model="composite")
