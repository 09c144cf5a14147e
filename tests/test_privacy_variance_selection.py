"""Known answers for icml25.privacy_variance.selection: regressions, bootstrap, held-out pick."""

import numpy as np
import pandas as pd
import pytest

from icml25.privacy_variance import (
    MODELS,
    bootstrap_coefficients,
    fit_privacy_regression,
    heldout_selection,
    select_configuration,
)


def _grid(response, noise=0.05, seeds=3, seed=0):
    """A (b, T, lr) x seeds table whose exposure is response(b, T, lr) + seed noise and whose
    loss is 1 everywhere (every configuration equally useful)."""
    rng = np.random.default_rng(seed)
    rows = []
    for b in (32, 128, 512):
        for T in (25, 100):
            for lr in (0.25, 1.0):
                for s in range(seeds):
                    rows.append(
                        {
                            "b": b,
                            "T": T,
                            "lr": lr,
                            "seed": s,
                            "sigma": 0.01 * b * np.sqrt(T),
                            "test_loss": 1.0 + 0.001 * rng.normal(),
                            "exposure_r16": response(b, T, lr) + noise * rng.normal(),
                        }
                    )
    return pd.DataFrame(rows)


def test_models_recover_planted_coefficients():
    df = _grid(lambda b, T, lr: 2.0 * np.log(b) - 0.5 * np.log(b) * np.log(lr))
    fit = fit_privacy_regression(df, model="interaction")
    assert abs(fit.params["np.log(b)"] - 2.0) < 0.05
    assert abs(fit.params["np.log(b):np.log(lr)"] + 0.5) < 0.05
    assert abs(fit.params["np.log(T)"]) < 0.05
    # composite: sigma C / b = 0.01 sqrt(T), so exposure = 2 log(bT) - 2 log T is planted as
    df = _grid(lambda b, T, lr: 2.0 * np.log(b * T) - 4.0 * np.log(0.01 * np.sqrt(T)))
    comp = fit_privacy_regression(df, model="composite")
    assert abs(comp.params["np.log(bT)"] - 2.0) < 0.05
    assert abs(comp.params["np.log(nsr)"] + 4.0) < 0.1
    assert set(MODELS) == {"individual", "composite", "interaction"}


def test_bootstrap_interval_covers_and_resamples_configurations():
    df = _grid(lambda b, T, lr: 1.0 * np.log(b), noise=0.2)
    boot = bootstrap_coefficients(df, n_boot=200, seed=0)
    row = boot.loc["np.log(b)"]
    assert row["lo"] < 1.0 < row["hi"] and row["lo"] < row["coef"] < row["hi"]
    assert (boot["sd"] > 0).all()
    again = bootstrap_coefficients(df, n_boot=200, seed=0)
    pd.testing.assert_frame_equal(boot, again)  # seeded
    # a response with no configuration effect: the interval of log b straddles 0
    flat = bootstrap_coefficients(_grid(lambda b, T, lr: 0.0, noise=0.2), n_boot=200, seed=1)
    assert flat.loc["np.log(b)", "lo"] < 0 < flat.loc["np.log(b)", "hi"]


def test_select_configuration_uses_the_band():
    loss = np.array([1.0, 1.05, 1.3, 1.02])
    pred = np.array([5.0, 3.0, 0.0, 4.0])
    assert select_configuration(loss, pred, 0.1) == 1  # index 2 is cheaper but outside the band
    assert select_configuration(loss, pred, 0.0) == 0
    assert select_configuration(loss, pred, 1.0) == 2
    with pytest.raises(ValueError, match="predicted"):
        select_configuration(loss, pred[:2], 0.1)


def test_heldout_pick_finds_the_planted_minimum_and_the_control_does_not():
    df = _grid(lambda b, T, lr: 2.0 * np.log(b), noise=0.05)
    res = heldout_selection(df, model="individual", tol=0.1, n_perm=50, seed=0)
    assert list(res["seed"]) == [0, 1, 2] and (res["n_band"] == 12).all()
    assert all(p[0] == 32 for p in res["pick"])  # the smallest batch, never seen by its fit
    assert np.allclose(res["heldout"], res["best"], atol=0.3)
    saving = res["random"] - res["heldout"]
    assert (saving > 1.5).all()
    assert abs((res["random"] - res["permuted"]).mean()) < 0.5  # no information: a random pick
    assert (res["pair_acc"] > 0.8).all()


def test_heldout_selection_trivial_and_median_baselines():
    # exposure planted in lr alone: the trivial rule (smallest b * T * lr, here b=32, T=25,
    # lr=0.25) is at the smallest exposure; the median is the band's median
    df = _grid(lambda b, T, lr: 3.0 * np.log(lr) + 0.1 * np.log(b), noise=0.0)
    res = heldout_selection(df, model="individual", tol=0.1, n_perm=5, seed=0)
    expect = 3.0 * np.log(0.25) + 0.1 * np.log(32)
    assert np.allclose(res["trivial"], expect)
    at0 = df[df.seed == 0]["exposure_r16"]
    assert res["median"].iloc[0] == pytest.approx(float(np.median(at0)))


def test_heldout_selection_rejects_bad_tables():
    df = _grid(lambda b, T, lr: np.log(b))
    with pytest.raises(ValueError, match="seeds"):
        heldout_selection(df[df.seed == 0])
    with pytest.raises(ValueError, match="one row per configuration"):
        heldout_selection(pd.concat([df, df[df.seed == 0].head(1)]))
    with pytest.raises(ValueError, match="sigma"):
        fit_privacy_regression(df.drop(columns="sigma"), model="composite")
    with pytest.raises(ValueError, match="model"):
        fit_privacy_regression(df, model="quadratic")
