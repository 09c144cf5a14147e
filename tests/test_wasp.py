"""Known-answer and property tests of icml25.wasp (fast)."""

import math

import numpy as np
import pytest
from scipy import stats

from icml25 import wasp

RNG = np.random.default_rng(0)


@pytest.fixture(scope="module")
def split():
    return wasp.style_digits(0)


@pytest.fixture(scope="module")
def gens(split):
    return wasp.make_generators(split)


def _toy(m=30, n=60, d=3, c=2, seed=0):
    rng = np.random.default_rng(seed)
    return (
        rng.normal(size=(m, d)),
        rng.integers(c, size=m),
        rng.normal(size=(n, d)),
        np.arange(n) % c,
    )


def test_split_shapes_and_style(split):
    assert split.X_test.shape == (600, 64) and split.X_priv.shape == (400, 64)
    assert split.X_pub.shape == (797, 64) and set(split.y_pub) == set(range(10))
    # private style = public style shifted right: column 0 of every image is dimmer
    assert (
        split.X_priv.reshape(-1, 8, 8)[:, :, 0].mean()
        < split.X_pub.reshape(-1, 8, 8)[:, :, 0].mean()
    )


def test_top_q_votes_known_answer():
    priv = np.array([[0.0], [10.0]])
    syn = np.array([[0.1], [1.0], [3.0], [9.0]])
    y = np.zeros(2, int)
    near = wasp.top_q_votes(priv, y, syn, np.zeros(4, int), q=2)
    np.testing.assert_allclose(near, [1.0, 0.5, 0.5, 1.0])
    far = wasp.top_q_votes(priv, y, syn, np.zeros(4, int), q=1, furthest=True)
    np.testing.assert_allclose(far, [1.0, 0.0, 0.0, 1.0])
    # votes stay inside the class
    other = wasp.top_q_votes(priv, np.array([0, 1]), syn, np.array([0, 0, 1, 1]), q=1)
    np.testing.assert_allclose(other, [1.0, 0.0, 0.0, 1.0])


@pytest.mark.parametrize("q", [1, 3, 8])
@pytest.mark.parametrize("furthest", [False, True])
def test_removal_moves_histogram_by_sensitivity(q, furthest):
    """Brief test 1: a removal moves the histogram by exactly sqrt(sum 4^-i) in L2 (and by
    2 - 2^(1-q) in L1) when the class has >= q candidates, over 200 random removals."""
    P, py, S, sy = _toy(m=40, n=60)
    h = wasp.top_q_votes(P, py, S, sy, q, furthest=furthest)
    delta = wasp.vote_sensitivity(q)
    for _ in range(200):
        i = int(RNG.integers(len(P)))
        keep = np.arange(len(P)) != i
        dh = h - wasp.top_q_votes(P[keep], py[keep], S, sy, q, furthest=furthest)
        assert np.linalg.norm(dh) == pytest.approx(delta, rel=1e-12)
        assert np.abs(dh).sum() == pytest.approx(2 - 2 ** (1 - q), rel=1e-12)


def test_vote_sensitivity_values():
    assert wasp.vote_sensitivity(1) == 1.0
    assert wasp.vote_sensitivity(8) < math.sqrt(4 / 3)
    assert wasp.vote_sensitivity(8, True) == pytest.approx(math.sqrt(2) * wasp.vote_sensitivity(8))


@pytest.mark.parametrize("eps", [1.0, 4.0, 16.0, 64.0])
def test_gaussian_sigma_matches_opacus_prv(eps):
    """Brief test 2: opacus' PRV accountant on `rounds` full-batch Gaussian releases with noise
    multiplier sigma / Delta gives back eps within 1 % (its own error bound set to 1e-3)."""
    from opacus.accountants import PRVAccountant

    rounds, sens = 3, wasp.vote_sensitivity(8, True)
    sigma = wasp.gaussian_sigma(eps, 1e-5, rounds, sens)
    acc = PRVAccountant()
    acc.history = [(sigma / sens, 1.0, rounds)]
    assert acc.get_epsilon(delta=1e-5, eps_error=1e-3) == pytest.approx(eps, rel=0.01)


def test_gaussian_sigma_limits():
    assert wasp.gaussian_sigma(math.inf, 1e-5, 3, 1.0) == 0.0
    exact = wasp.gaussian_sigma(4.0, 1e-5, 3, 1.0)
    assert exact < wasp.gaussian_sigma(4.0, 1e-5, 3, 1.0, accountant="zcdp")
    # sigma scales with sensitivity and with sqrt(rounds)
    assert wasp.gaussian_sigma(4.0, 1e-5, 3, 2.0) == pytest.approx(2 * exact)
    assert wasp.gaussian_sigma(4.0, 1e-5, 12, 1.0) == pytest.approx(
        2 * wasp.gaussian_sigma(4.0, 1e-5, 3, 1.0)
    )


def test_plm_weights_rules():
    votes = np.array([1.0, 3.0, -5.0, 2.0, 0.0])
    owner = np.array([0, 0, 1, 1, 2])
    w = wasp.plm_weights(votes, owner, 4)  # means 2, -1.5, 0, (none)
    np.testing.assert_allclose(w, [1.0, 0.0, 0.0, 0.0])
    np.testing.assert_allclose(wasp.plm_weights(-np.ones(3), np.arange(3), 3), np.ones(3) / 3)
    w = wasp.plm_weights(np.array([1.0, 1.0, 3.0]), np.array([0, 0, 1]), 2)
    np.testing.assert_allclose(w, [0.25, 0.75])


def test_contrastive_filter_known_answer():
    cands = np.array([[0.0], [5.0], [9.0], [1.0]])
    good, bad = np.array([[0.0]]), np.array([[10.0]])
    out = wasp.contrastive_filter(cands, good, bad, 2)
    np.testing.assert_allclose(out, [[0.0], [1.0]])
    out = wasp.contrastive_filter(cands, good, bad, 1, embed=lambda a: -a)
    np.testing.assert_allclose(out, [[0.0]])


def test_generator_protocol_and_label_noise(split, gens):
    rng = np.random.default_rng(0)
    x = gens[0].zero_shot(3, 50, rng)
    v = gens[0].vary(x[:8], 3, 20, rng)
    assert x.shape == (50, 64) and v.shape == (20, 64)
    assert 0 <= x.min() and x.max() <= 1
    # same rng state -> same samples; nothing hidden in the generator
    a = gens[1].zero_shot(2, 5, np.random.default_rng(1))
    b = gens[1].zero_shot(2, 5, np.random.default_rng(1))
    np.testing.assert_array_equal(a, b)
    noisy = wasp.fit_generator(split.X_pub, split.y_pub, label_noise=1.0)
    clean = wasp.fit_generator(split.X_pub, split.y_pub)
    far_n = np.linalg.norm(noisy.zero_shot(0, 400, rng).mean(0) - clean.mu[0])
    far_c = np.linalg.norm(clean.zero_shot(0, 400, rng).mean(0) - clean.mu[0])
    assert far_n > 3 * far_c


def test_generator_specs_fixed():
    assert list(wasp.GENERATOR_SPECS) == ["G0", "G1", "G2", "G3"]
    assert wasp.GENERATOR_SPECS["G3"]["label_noise"] == 0.6
    assert wasp.GENERATOR_SPECS["G2"]["inflate"] == 3.0


def test_run_aug_pe_is_wasp_without_ingredients(split, gens):
    idx = np.arange(60)
    Xp, yp = split.X_priv[idx], split.y_priv[idx]
    kw = dict(rounds=2, n_init=5, budget=60, seed=3)
    a = wasp.run_aug_pe(gens, Xp, yp, 8.0, **kw)
    b = wasp.run_wasp(
        gens, Xp, yp, 8.0, q=1, furthest=False, contrastive=False, weighted=False, **kw
    )
    np.testing.assert_array_equal(a.X, b.X)
    np.testing.assert_array_equal(a.owner, b.owner)
    assert a.sigma == b.sigma == wasp.gaussian_sigma(8.0, 1e-5, 2, 1.0)


def test_run_wasp_shapes_and_weights(split, gens):
    Xp, yp = split.X_priv[:100], split.y_priv[:100]
    r = wasp.run_wasp(gens, Xp, yp, math.inf, rounds=2, n_init=5, budget=50, seed=0)
    assert r.weights.shape == (3, 4) and r.sigma == 0.0
    np.testing.assert_allclose(r.weights.sum(1), 1.0)
    np.testing.assert_allclose(r.weights[0], 0.25)
    assert set(r.round) == {0, 1, 2} and len(r.X) == len(r.y) == len(r.owner) == len(r.round)
    assert (r.round == 0).sum() == 4 * 10 * 5
    with pytest.raises(ValueError, match="furthest"):
        wasp.run_wasp(gens, Xp, yp, 1.0, furthest=False)
    with pytest.raises(TypeError, match="generators"):
        wasp.run_wasp([object()], Xp, yp, 1.0)
    gap = np.where(yp == 1, 0, yp)  # labels 0..9 without a 1: no silent noise-only class
    with pytest.raises(ValueError, match=r"y_priv.*missing \[1\]"):
        wasp.run_wasp(gens, Xp, gap, 1.0)
    with pytest.raises(ValueError, match="y_priv"):
        wasp.run_aug_pe(gens, Xp, gap, 1.0)


def test_oracle_generator_gets_the_largest_weight(split, gens):
    """Brief test 3 (as corrected in the issue): a generator fitted on private-style data
    against three junk ones, eps = inf: its weight is the largest in every round."""
    oracle = wasp.fit_generator(split.X_priv[200:], split.y_priv[200:])
    junk = [gens[2], gens[2], gens[2]]
    for seed in range(3):
        r = wasp.run_wasp(
            [junk[0], oracle, junk[1], junk[2]],
            split.X_priv[:200],
            split.y_priv[:200],
            math.inf,
            rounds=4,
            seed=seed,
        )
        assert np.all(r.weights[1:].argmax(1) == 1)
        assert r.weights[1, 1] >= 0.6


def test_noise_dominated_weights(split, gens):
    """Corrected test 4: at eps = 1e-3 the round-1 weights of two disjoint private sets agree
    (the noise swamps the votes) and vary across seeds (they are random, not uniform)."""
    kw = dict(rounds=1, n_init=20, budget=30)
    A = [
        wasp.run_wasp(gens, split.X_priv[:150], split.y_priv[:150], 1e-3, seed=s, **kw)
        for s in (0, 1)
    ]
    B = wasp.run_wasp(gens, split.X_priv[150:300], split.y_priv[150:300], 1e-3, seed=0, **kw)
    np.testing.assert_allclose(A[0].weights[1], B.weights[1], atol=1e-2)
    assert np.abs(A[0].weights[1] - A[1].weights[1]).max() > 0.05


def test_zerogen(gens):
    r = wasp.run_zerogen(gens[:2], 7, 10, seed=0)
    assert r.X.shape == (140, 64) and set(r.owner) == {0, 1} and r.weights.shape == (1, 2)


def test_downstream_and_frechet(split):
    acc = wasp.downstream_accuracy(split.X_priv, split.y_priv, split.X_test, split.y_test)
    assert 0.85 < acc <= 1.0
    A = np.random.default_rng(0).normal(size=(4000, 3))
    assert wasp.frechet_distance(A, A) == pytest.approx(0.0, abs=1e-6)
    assert wasp.frechet_distance(A, A + 2.0) == pytest.approx(12.0, rel=1e-6)


def test_class_frechet_distance_sees_labels():
    rng = np.random.default_rng(0)
    A = rng.normal(size=(3000, 2))
    y = np.repeat([0, 1], 1500)
    A[y == 1] += 5.0
    assert wasp.class_frechet_distance(A, y, A, y) == pytest.approx(0.0, abs=1e-6)
    # a class shifted by c adds |c|^2 / C; swapped labels are far class by class, not pooled
    B = A.copy()
    B[y == 0] += np.array([1.0, 0.0])
    assert wasp.class_frechet_distance(B, y, A, y) == pytest.approx(0.5, rel=1e-6)
    assert wasp.class_frechet_distance(A, 1 - y, A, y) > 40
    assert wasp.frechet_distance(A[::-1], A) == pytest.approx(0.0, abs=1e-6)
    with pytest.raises(ValueError, match="class 1"):
        wasp.class_frechet_distance(A[y == 0], y[y == 0], A, y)


def test_paired_ci_matches_scipy():
    d = np.array([0.01, 0.03, -0.02, 0.04, 0.02])
    mean, half = wasp.paired_ci(d)
    lo, hi = stats.t.interval(0.95, len(d) - 1, loc=d.mean(), scale=stats.sem(d))
    assert mean == pytest.approx(d.mean())
    assert (mean - half, mean + half) == pytest.approx((lo, hi))


def test_audit_round_mu(split, gens):
    embed = wasp.public_embedding(split.X_pub)
    pool = wasp.run_zerogen(gens, 20, 10, seed=0)
    sigma = 2.0
    res = wasp.audit_round(
        embed(split.X_priv[:100]),
        split.y_priv[:100],
        embed(pool.X),
        pool.y,
        0,
        8,
        sigma,
        500,
        np.random.default_rng(0),
    )
    assert res.mu == pytest.approx(wasp.vote_sensitivity(8) / sigma)
    assert abs(res.mu_hat - res.mu) < 0.25
    assert res.fpr[0] == 0 and res.fpr[-1] == 1 and np.all(np.diff(res.tpr) >= 0)


def test_audit_round_raises_when_drop_moves_no_vote(split, gens):
    """Audit MUST-FIX 3: if drop's class has no synthetic sample, ||dh|| = 0 and the audit
    would silently return NaN statistics (read as 'no leakage'): it must raise instead."""
    embed = wasp.public_embedding(split.X_pub)
    pool = wasp.run_zerogen(gens, 5, 10, seed=0)
    yp = split.y_priv[:50]
    syn_y = np.where(pool.y == yp[0], (yp[0] + 1) % 10, pool.y)
    with pytest.raises(ValueError, match="drop"):
        wasp.audit_round(
            embed(split.X_priv[:50]),
            yp,
            embed(pool.X),
            syn_y,
            0,
            8,
            1.0,
            10,
            np.random.default_rng(0),
        )


def test_top_voted_ranks_votes_first_and_breaks_ties_at_random():
    """Audit MUST-FIX 2: a zero-vote sample never becomes an exemplar ahead of a voted one,
    and the zero-vote slots are not filled in pool order."""
    from icml25.wasp.pipeline import _top_voted

    votes = np.zeros(40)
    votes[[5, 17, 33]] = [1.0, 0.5, 0.25]
    ids = np.arange(100, 140)
    picks = []
    for s in range(30):
        top = _top_voted(votes, ids, 8, np.random.default_rng(s))
        assert len(top) == 8 and len(set(top)) == 8
        np.testing.assert_array_equal(top[:3], [105, 117, 133])  # voted ones, by vote
        picks.append(tuple(sorted(top[3:])))
    assert len(set(picks)) > 20  # the ties differ between seeds
    first = np.array([p for t in picks for p in t])
    assert (first < 108).mean() < 0.5  # not the lowest pool indices
    noisy = np.random.default_rng(1).normal(size=40)
    np.testing.assert_array_equal(
        _top_voted(noisy, ids, 8, np.random.default_rng(2)), ids[np.argsort(-noisy)[:8]]
    )


def test_dp_sgd_runs(split):
    acc = wasp.dp_sgd_accuracy(
        split.X_priv[:100], split.y_priv[:100], split.X_test, split.y_test, math.inf, 1e-5, 0
    )
    assert 0.5 < acc <= 1.0
