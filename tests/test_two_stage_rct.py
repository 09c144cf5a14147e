"""Unit tests of icml25.two_stage_rct: closed forms, known answers, coverage, bad input."""

import numpy as np
import pytest
from scipy import stats

from icml25.two_stage_rct import (
    LABELS,
    OutcomeTape,
    allocation,
    certificate,
    coverage_vs_k,
    run_batch,
    run_design,
    simulate,
    width,
)

# --- widths ----------------------------------------------------------------------------------


def test_width_closed_forms():
    assert width(50, 0.1) == pytest.approx(np.sqrt(np.log(10) / 100), abs=1e-12)
    assert width(50, 0.1, "subgaussian") == pytest.approx(np.sqrt(2 * np.log(10) / 50), abs=1e-12)
    assert width(25, 0.05, "gaussian_exact") == pytest.approx(stats.norm.ppf(0.95) / 5, abs=1e-12)
    assert width(50, 0.1, k_correction=5) == pytest.approx(np.sqrt(np.log(50) / 100), abs=1e-12)


@pytest.mark.parametrize("bound", ["hoeffding", "subgaussian", "gaussian_exact"])
def test_width_decreasing_in_m_increasing_under_correction(bound):
    ws = [width(m, 0.1, bound) for m in (1, 2, 10, 100)]
    assert all(a > b for a, b in zip(ws, ws[1:], strict=False))
    assert width(10, 0.1, bound, k_correction=4) > width(10, 0.1, bound)


def test_certificate_is_max_of_lower_bounds():
    samples = np.array([[1.0, 1.0, 0.0, 0.0], [1.0, 1.0, 1.0, 0.0]])
    cert, arm = certificate(samples, 0.1)
    assert arm == 1
    assert cert == pytest.approx(0.75 - width(4, 0.1))
    cert_b, _ = certificate(samples, 0.1, correction="bonferroni")
    assert cert_b == pytest.approx(0.75 - width(4, 0.1, k_correction=2))


# --- designs ---------------------------------------------------------------------------------


def test_degenerate_one_good_arm():
    """Bernoulli, μ = (1, 0, ..., 0): the split keeps k = 1 and cert = 1 − w(s₂, δ) exactly."""
    mu = np.array([1.0] + [0.0] * 9)
    budget, frac = 500, 0.3
    _, s2 = allocation(10, budget, frac)
    for seed in range(20):
        res = run_design(mu, budget, frac, 0.1, "split", np.random.default_rng(seed))
        assert res.k == 1 and res.arm == 0
        assert res.cert == pytest.approx(1 - width(s2, 0.1), abs=1e-12)


def test_fixed_k_all_arms_without_first_stage_is_single_stage():
    mu = np.random.default_rng(0).uniform(size=(50, 10))
    single = run_batch(mu, 500, 0.0, 0.1, "single_stage", np.random.default_rng(7))
    fixed = run_batch(mu, 500, 0.0, 0.1, "fixed_k", np.random.default_rng(7), k=10)
    for key in ("cert", "k", "arm", "width"):
        assert np.array_equal(single[key], fixed[key]), key


def test_batch_matches_single_trials_in_shape_and_range():
    rng = np.random.default_rng(1)
    mu = rng.uniform(size=(200, 10))
    for policy in ("split", "omniscient", "random_k", "prior_beta"):
        out = run_batch(mu, 500, 0.3, 0.1, policy, np.random.default_rng(2), n_mc=20)
        assert out["cert"].shape == (200,)
        assert ((out["k"] >= 1) & (out["k"] <= 10)).all()
        assert (out["cert"] <= 1).all()


def test_split_beats_single_stage_in_the_default_setting():
    df = simulate(LABELS, 1000, np.random.default_rng(3))
    means = df.groupby("design").normalized.mean()
    assert means["Sample split"] > means["Single stage"] + 0.03
    assert means["Omniscient k"] >= means["Sample split"] - 0.005


def test_simulate_is_reproducible_and_has_columns():
    a = simulate(["split", "single_stage"], 30, np.random.default_rng(4))
    b = simulate(["split", "single_stage"], 30, np.random.default_rng(4))
    assert a.equals(b)
    assert set(a.columns) >= {"design", "trial", "cert", "k", "normalized", "miss", "mu_arm"}


# --- validity --------------------------------------------------------------------------------


def test_coverage_uncorrected_vs_bonferroni():
    """Equal Normal arms, exact width: uncorrected misses ≈ 1 − (1 − δ)^k, Bonferroni ≤ δ."""
    cov = coverage_vs_k([1, 5], 30, 0.1, 20000, np.random.default_rng(5))
    expected = 1 - 0.9 ** np.array([1, 5])
    assert np.all(np.abs(cov["none"] - expected) < 3 * cov["se_none"] + 1e-3)
    assert np.all(cov["bonferroni"] <= 0.1 + 3 * cov["se_bonferroni"])


def test_certificate_coverage_with_raw_samples():
    rng = np.random.default_rng(6)
    misses = [
        certificate(rng.standard_normal((5, 20)), 0.1, "gaussian_exact")[0] > 0 for _ in range(4000)
    ]
    assert abs(np.mean(misses) - (1 - 0.9**5)) < 0.03


# --- bad input -------------------------------------------------------------------------------

MU = np.full(4, 0.5)
RNG = np.random.default_rng(0)


def test_tape_means_and_bounds():
    mu = np.array([[0.2, 0.8]])
    tape = OutcomeTape(mu, 20000, "bernoulli", np.random.default_rng(0))
    assert np.allclose(tape.mean(0, 20000), mu, atol=0.02)
    assert np.allclose(tape.mean(0, 0), 0.0)
    # consecutive windows add up to the whole: [0, 10) + [10, 30) = [0, 30)
    whole = tape.mean(0, 30) * 30
    assert np.allclose(tape.mean(0, 10) * 10 + tape.mean(10, 20) * 20, whole)
    ranked = tape.mean(0, 30, arms=np.array([[1, 0]]))
    assert np.allclose(ranked, whole[:, ::-1] / 30)
    with pytest.raises(ValueError, match="tape holds"):
        tape.mean(19990, 20)
    with pytest.raises(ValueError, match="outcome"):
        OutcomeTape(mu, 5, "poisson", RNG)


def test_common_random_numbers_pair_the_designs():
    mu = np.random.default_rng(1).uniform(size=(300, 10))
    tape = OutcomeTape(mu, 500, "bernoulli", np.random.default_rng(2))
    # the same patients whatever the generator: a single-stage trial is fully determined
    a = run_batch(mu, 500, 0.3, 0.1, "single_stage", np.random.default_rng(3), tape=tape)
    b = run_batch(mu, 500, 0.3, 0.1, "single_stage", np.random.default_rng(4), tape=tape)
    assert np.array_equal(a["cert"], b["cert"])
    # keeping k = n arms after stage 1 reads the same stage-2 patients as fixed_k with k = n
    c = run_batch(mu, 500, 0.3, 0.1, "fixed_k", np.random.default_rng(5), k=10, tape=tape)
    d = run_batch(mu, 500, 0.3, 0.1, "fixed_k", np.random.default_rng(6), k=10, tape=tape)
    assert np.array_equal(c["cert"], d["cert"])
    with pytest.raises(ValueError, match="tape"):
        run_batch(mu[:5], 500, 0.3, 0.1, "split", RNG, tape=tape)


def test_paired_differences_have_smaller_variance():
    kw = dict(n_arms=10, budget=500, delta=0.1, first_frac=0.3)
    designs = {"a": {"policy": "split"}, "b": {"policy": "fixed_k", "k": 3}}
    sd = {}
    for paired in (True, False):
        df = simulate(designs, 3000, np.random.default_rng(0), paired=paired, **kw)
        wide = df.pivot(index="trial", columns="design", values="normalized")
        sd[paired] = float((wide["a"] - wide["b"]).std())
    assert sd[True] < 0.8 * sd[False], sd


def test_tape_stage_two_reads_the_next_patients():
    """fixed_k with k = n keeps every arm: its certificate is the best of the stage-2 means of
    patients [per_arm, per_arm + s2 // n) minus their width."""
    mu = np.random.default_rng(7).uniform(size=(50, 10))
    tape = OutcomeTape(mu, 500, "bernoulli", np.random.default_rng(8))
    out = run_batch(mu, 500, 0.3, 0.1, "fixed_k", RNG, k=10, tape=tape)
    per_arm, s2 = allocation(10, 500, 0.3)
    m = s2 // 10
    expected = tape.mean(per_arm, m).max(axis=1) - width(m, 0.1)
    assert np.allclose(out["cert"], expected)


def test_prior_design_without_stage_one_plans_with_the_prior():
    """Known answer: with no stage 1 (first_frac = 0) the posterior is the prior; a near-certain
    Beta prior around 0.2 keeps one arm and plans alpha / (alpha + beta) - w(s2)."""
    mu = np.full((40, 10), 0.2)
    out = run_batch(
        mu, 500, 0.0, 0.1, "prior_beta", np.random.default_rng(2), alpha=2000.0, beta=8000.0
    )
    assert np.all(out["k"] == 1)
    assert np.allclose(out["planned"], 0.2 - width(500, 0.1), atol=0.005)


def test_prior_design_near_certain_posterior_keeps_the_best_arm():
    """Known answer: with 6,000 stage-1 patients per arm the posterior is near-certain and the
    arms are far apart, so the greedy keeps one arm (k = 1), the best, and its planning estimate
    is on average close to the certificate it then yields."""
    mu = np.tile(np.linspace(0.8, 0.2, 10), (50, 1))
    out = run_batch(mu, 20000, 0.3, 0.1, "prior_beta", np.random.default_rng(1), n_mc=200)
    assert np.mean(out["k"] == 1) >= 0.9, np.bincount(out["k"])
    assert np.all(out["arm"] == 0)
    assert abs(out["planned"].mean() - out["cert"].mean()) < 0.01


@pytest.mark.parametrize(
    ("call", "exc", "arg"),
    [
        (lambda: width(10, 0.0), ValueError, "delta"),
        (lambda: width(10, 1.0), ValueError, "delta"),
        (lambda: width(0, 0.1), ValueError, "m"),
        (lambda: width(10, 0.1, "bernstein"), ValueError, "bound"),
        (lambda: certificate(np.ones((2, 3)), 0.1, correction="holm"), ValueError, "correction"),
        (lambda: certificate(np.ones(3), 0.1), ValueError, "samples"),
        (lambda: run_design(MU, 3, 0.3, 0.1, "split", RNG), ValueError, "budget"),
        (lambda: run_design(MU, 100, 1.0, 0.1, "split", RNG), ValueError, "first_frac"),
        (lambda: run_design(MU, 100, -0.1, 0.1, "split", RNG), ValueError, "first_frac"),
        (lambda: run_design(MU, 100, 0.3, 1.5, "split", RNG), ValueError, "delta"),
        (lambda: run_design(MU, 100, 0.3, 0.1, "ucb", RNG), ValueError, "policy"),
        (lambda: run_design(MU, 100, 0.3, 0.1, "split", RNG, bound="x"), ValueError, "bound"),
        (
            lambda: run_design(np.array([0.5, np.nan]), 100, 0.3, 0.1, "split", RNG),
            ValueError,
            "mu",
        ),
        (lambda: run_design(np.array([0.5, 1.5]), 100, 0.3, 0.1, "split", RNG), ValueError, "mu"),
        (lambda: run_design(MU, 100, 0.3, 0.1, "fixed_k", RNG, k=5), ValueError, "k"),
        (lambda: run_design(MU, 100, 0.3, 0.1, "split"), TypeError, "rng"),
        (lambda: simulate(["split"], 5, RNG, colour="red"), ValueError, "setting"),
        (lambda: simulate(["nope"], 5, RNG), ValueError, "policy"),
    ],
)
def test_bad_input_raises_naming_the_argument(call, exc, arg):
    with pytest.raises(exc, match=arg):
        call()
