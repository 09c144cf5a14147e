"""Unit tests of icml25.sparse_pca: known answers, statistical behaviour, invariances, errors."""

import re

import numpy as np
import pytest

from icml25.sparse_pca import (
    column_statistics,
    covariance_thresholding,
    diagonal_thresholding,
    loglog_slope,
    random_sparse,
    sample_complexity_grid,
    sample_covariance,
    sin_theta,
    sklearn_sparse_pca,
    spiked_covariance_data,
    spiked_vector,
    success_table,
    support_recovered,
    threshold_column,
    timing_sweep,
    transition_point,
    transition_table,
    truncated_power,
    truncated_power_path,
    two_stage,
)

P, K, LAM = 60, 5, 3.0


def population(p=P, k=K, lam=LAM, seed=1):
    """Σ = I + λ v vᵀ and an X with XᵀX/n = Σ exactly (n = p)."""
    v, support = spiked_vector(p, k, seed=seed)
    sigma = np.eye(p) + lam * np.outer(v, v)
    X = np.sqrt(p) * np.linalg.cholesky(sigma).T
    return sigma, X, v, support


# --- data ------------------------------------------------------------------------------------


def test_spiked_vector_shapes():
    v, support = spiked_vector(100, 10, shape="spiky", a=0.7, seed=0)
    assert v.shape == (100,) and support.shape == (10,)
    assert np.isclose(np.linalg.norm(v), 1.0)
    assert np.array_equal(np.flatnonzero(v), support)
    assert np.isclose(np.abs(v).max(), 0.7)
    flat, _ = spiked_vector(100, 16, shape="flat", seed=0)
    assert np.allclose(np.abs(flat[flat != 0]), 0.25)
    one, s1 = spiked_vector(10, 1, seed=0)
    assert np.abs(one).max() == 1.0 and s1.size == 1


def test_spiked_covariance_data_is_seeded_and_has_the_planted_covariance():
    X, v, support = spiked_covariance_data(20000, 30, 3, 2.0, seed=5)
    X2, v2, _ = spiked_covariance_data(20000, 30, 3, 2.0, seed=5)
    assert np.array_equal(X, X2) and np.array_equal(v, v2)
    assert X.shape == (20000, 30) and support.shape == (3,)
    sigma = np.eye(30) + 2.0 * np.outer(v, v)
    assert np.abs(sample_covariance(X) - sigma).max() < 0.1


# --- known answers on the population covariance ----------------------------------------------


def test_population_input_gives_v_exactly():
    sigma, X, v, support = population()
    for v_hat in (
        threshold_column(X, K),
        two_stage(X, K),
        truncated_power(sigma, np.ones(P), K),
        diagonal_thresholding(sigma, K),
        covariance_thresholding(sigma, K, n=10**6),
    ):
        assert sin_theta(v_hat, v) < 1e-7
        assert support_recovered(v_hat, support)


def test_column_statistics_population_values():
    sigma, X, v, _ = population()
    d, i_star, c = column_statistics(X)
    assert np.allclose(d, np.diag(sigma))
    assert i_star == int(np.argmax(np.abs(v)))
    assert np.allclose(c, LAM * v[i_star] * v)


def test_truncated_power_path_starts_at_x0_and_converges():
    sigma, _, v, _ = population()
    x0 = np.ones(P)
    path = truncated_power_path(sigma, x0, K, iters=60)
    assert path.shape[1] == P and 2 <= path.shape[0] <= 61
    assert np.allclose(np.linalg.norm(path, axis=1), 1.0)
    assert sin_theta(path[-1], v) < 1e-7
    assert np.allclose(path[-1], truncated_power(sigma, x0, K, iters=60))


def test_transition_point_interpolates_in_log_c():
    assert transition_point([1, 2, 4], [0.0, 0.4, 0.8]) == pytest.approx(2 * 2**0.25)
    assert transition_point([1, 2], [0.6, 1.0]) == 1.0
    assert transition_point([1, 2], [0.0, 0.2]) == float("inf")
    with pytest.raises(ValueError, match="cs"):
        transition_point([2, 1], [0.0, 1.0])
    with pytest.raises(ValueError, match="level"):
        transition_point([1, 2], [0.0, 1.0], level=0)


def test_success_and_transition_tables():
    import pandas as pd

    grid = pd.DataFrame(
        {
            "method": ["A"] * 4,
            "k": [5] * 4,
            "p": [50] * 4,
            "c": [1.0, 1.0, 2.0, 2.0],
            "n": [20, 20, 40, 40],
            "trial": [0, 1, 0, 1],
            "sin_theta": [0.5, 0.7, 0.1, 0.3],
            "success": [False, False, True, True],
        }
    )
    table = success_table(grid)
    assert table.success.tolist() == [0.0, 1.0]
    assert table.sin_theta.tolist() == pytest.approx([0.6, 0.2])
    assert transition_table(grid).c50.tolist() == pytest.approx([2**0.5])
    with pytest.raises(ValueError, match="grid"):
        success_table(grid.drop(columns="success"))


def test_sin_theta_known_values():
    e1, e2 = np.eye(2)
    assert sin_theta(e1, e1) == 0.0
    assert sin_theta(e1, -3 * e1) == 0.0
    assert np.isclose(sin_theta(e1, e2), 1.0)
    assert np.isclose(sin_theta(e1, e1 + e2), np.sqrt(0.5))


# --- invariances -----------------------------------------------------------------------------


def test_estimates_have_k_nonzeros_unit_norm():
    X, _, _ = spiked_covariance_data(300, 80, 6, 3.0, seed=2)
    S = sample_covariance(X)
    for v_hat in (
        threshold_column(X, 6),
        two_stage(X, 6),
        truncated_power(S, X[0], 6),
        diagonal_thresholding(S, 6),
        covariance_thresholding(S, 6, 300),
    ):
        assert v_hat.shape == (80,)
        assert np.count_nonzero(v_hat) == 6
        assert np.isclose(np.linalg.norm(v_hat), 1.0)


def test_permutation_and_sign_equivariance():
    X, _, _ = spiked_covariance_data(400, 50, 5, 3.0, seed=3)
    perm = np.random.default_rng(0).permutation(50)
    for est in (threshold_column, two_stage):
        base = est(X, 5)
        assert np.allclose(np.abs(est(X[:, perm], 5)), np.abs(base[perm]))
        assert sin_theta(est(-X, 5), base) < 1e-12


# --- statistical behaviour (the chapter's claims, at test size) ------------------------------


def test_scaling_collapse_thresholding_vs_diagonal():
    """λ = 4, spiky v, n = 4 k log p: two-stage error small for every k; DT fails at k = 40."""
    p, lam = 500, 4.0
    for k in (10, 20, 40):
        n = int(4 * k * np.log(p))
        errs, dt_errs = [], []
        for t in range(8):
            X, v, _ = spiked_covariance_data(n, p, k, lam, seed=100 + t)
            errs.append(sin_theta(two_stage(X, k), v) ** 2)
            if k == 40:
                dt_errs.append(sin_theta(diagonal_thresholding(sample_covariance(X), k), v) ** 2)
        assert np.mean(errs) < 0.05, (k, np.mean(errs))
    assert np.mean(dt_errs) > 0.2


def test_two_stage_attains_the_parametric_rate():
    """Regress log sin θ on log n over n ∈ [4, 64] k log p: slope −1/2 ± 0.1."""
    p, k, lam = 200, 8, 4.0
    ns = [int(c * k * np.log(p)) for c in (4, 8, 16, 32, 64)]
    mean_err = []
    for n in ns:
        errs = [
            sin_theta(two_stage(X, k), v)
            for X, v, _ in (spiked_covariance_data(n, p, k, lam, seed=t) for t in range(12))
        ]
        mean_err.append(np.mean(errs))
    slope = np.polyfit(np.log(ns), np.log(mean_err), 1)[0]
    assert -0.6 < slope < -0.4, slope


def test_grid_and_timing_helpers():
    df = sample_complexity_grid(
        ["Thresholding", "Diagonal thresholding"], [4], [40], [2.0], 3.0, trials=2, progress=False
    )
    assert len(df) == 4
    assert set(df.columns) >= {"method", "k", "p", "c", "n", "trial", "sin_theta", "success"}
    again = sample_complexity_grid(
        ["Thresholding", "Diagonal thresholding"], [4], [40], [2.0], 3.0, trials=2, progress=False
    )
    assert df.equals(again)
    tim = timing_sweep(["Thresholding"], [50], k=4, c=4.0, lam=3.0, repeats=1)
    assert list(tim.columns) == ["method", "p", "n", "seconds", "sin_theta"]
    with pytest.raises(ValueError, match="methods"):
        sample_complexity_grid(["SDP"], [4], [40], [2.0], 3.0, trials=1)


def test_sklearn_baseline_returns_k_sparse_unit_vector():
    X, _, _ = spiked_covariance_data(200, 30, 4, 4.0, seed=0)
    v_hat = sklearn_sparse_pca(X, 4)
    assert np.count_nonzero(v_hat) <= 4 and np.isclose(np.linalg.norm(v_hat), 1.0)


def test_authors_start_replicates_the_released_slice():
    """The released code ranks |Sigma_hat[:, i*]| and keeps ranks 2..k+1: i* itself is dropped;
    the start is the top eigenvector of Sigma_hat on that set."""
    X, v, support = spiked_covariance_data(3000, 120, 8, 4.0, seed=3)
    d, i_star, c = column_statistics(X)
    v_hat = threshold_column(X, 8, init="authors")
    idx = np.flatnonzero(v_hat)
    assert i_star not in idx and len(idx) == 8
    raw = np.abs(X.T @ X[:, i_star] / X.shape[0])
    assert set(idx) == set(np.argsort(raw)[-9:-1])
    S = X[:, idx].T @ X[:, idx] / X.shape[0]
    assert np.isclose(abs(np.linalg.eigh(S)[1][:, -1] @ v_hat[idx]), 1.0)
    # the power stage repairs the missing coordinate
    assert sin_theta(two_stage(X, 8, init="authors"), v) < 0.1
    with pytest.raises(ValueError, match="init"):
        threshold_column(X, 8, init="power")


def test_random_sparse_control():
    X, v, _ = spiked_covariance_data(200, 50, 5, 4.0, seed=1)
    r = random_sparse(X, 5)
    assert np.count_nonzero(r) == 5 and np.isclose(np.linalg.norm(r), 1.0)
    assert np.array_equal(r, random_sparse(X, 5))  # reproducible


def test_loglog_slope_known_answers():
    x = np.array([100.0, 200, 400, 800, 1600])
    slope, lo, hi = loglog_slope(x, 3.0 * x**-0.5 * np.exp([0.01, -0.01, 0.02, 0.0, -0.02]))
    assert lo < -0.5 < hi and abs(slope + 0.5) < 0.03
    assert loglog_slope(x, x**2)[0] == pytest.approx(2.0)
    with pytest.raises(ValueError, match="positive"):
        loglog_slope(x, -x)
    with pytest.raises(ValueError, match="length"):
        loglog_slope(x[:2], x[:2])


# --- bad input -------------------------------------------------------------------------------

X_OK = np.ones((10, 6))
S_OK = np.eye(6)


@pytest.mark.parametrize(
    ("call", "exc", "arg"),
    [
        (lambda: spiked_covariance_data(0, 10, 2, 1.0), ValueError, "n"),
        (lambda: spiked_covariance_data(10, -1, 2, 1.0), ValueError, "p"),
        (lambda: spiked_covariance_data(10, 5, 6, 1.0), ValueError, "k"),
        (lambda: spiked_covariance_data(10, 5, 2, 0.0), ValueError, "lam"),
        (lambda: spiked_covariance_data(10, 5, 2, float("nan")), ValueError, "lam"),
        (lambda: spiked_covariance_data(10, 5, 2, 1.0, shape="round"), ValueError, "shape"),
        (lambda: spiked_covariance_data(10.5, 5, 2, 1.0), TypeError, "n"),
        (lambda: threshold_column(X_OK, 7), ValueError, "k"),
        (lambda: threshold_column(X_OK, 0), ValueError, "k"),
        (lambda: threshold_column(np.ones(6), 2), ValueError, "X"),
        (lambda: threshold_column(np.full((3, 3), np.nan), 2), ValueError, "X"),
        (lambda: threshold_column([[1.0]], 1), TypeError, "X"),
        (lambda: two_stage(X_OK, 7), ValueError, "k"),
        (lambda: truncated_power(np.ones((3, 4)), np.ones(3), 1), ValueError, "S"),
        (lambda: truncated_power(S_OK, np.ones(5), 2), ValueError, "x0"),
        (lambda: truncated_power(S_OK, np.zeros(6), 2), ValueError, "x0"),
        (lambda: truncated_power(S_OK, np.ones(6), 2, iters=-1), ValueError, "iters"),
        (lambda: diagonal_thresholding(S_OK, 7), ValueError, "k"),
        (lambda: diagonal_thresholding(np.triu(np.ones((3, 3))), 1), ValueError, "S"),
        (lambda: covariance_thresholding(S_OK, 2, 0), ValueError, "n"),
        (lambda: covariance_thresholding(S_OK, 2, 10, tau=-1.0), ValueError, "tau"),
        (lambda: sin_theta(np.ones(3), np.ones(4)), ValueError, "u and v"),
        (lambda: sin_theta(np.zeros(3), np.ones(3)), ValueError, "u"),
        (lambda: support_recovered(np.ones(3), np.array([0, 1, 2, 3])), ValueError, "support"),
    ],
)
def test_bad_input_raises_naming_the_argument(call, exc, arg):
    # the argument's name as a whole word: "k" must not match the k of "kind" or "k-th"
    with pytest.raises(exc, match=rf"(?<![\w-]){re.escape(arg)}(?![\w-])"):
        call()
