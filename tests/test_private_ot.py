"""Known answers of icml25.private_ot (the brief's five, plus the issue's exact ones)."""

import numpy as np
import pytest
from scipy.interpolate import RegularGridInterpolator

from icml25 import private_ot as po
from icml25.private_ot import mechanisms
from icml25.private_ot.experiments import population_semi_dual
from icml25.private_ot.mechanisms import _clipped_mean_per_sample, interpolation_matrix

CENTERS = np.array([[0.15, 0.15], [-0.15, -0.15], [0.15, -0.15], [-0.15, 0.15]])


@pytest.fixture(scope="module")
def grid():
    return po.make_grid(16)


@pytest.fixture(scope="module")
def family(grid):
    return po.bump_family(grid[1], CENTERS[:2], 0.12, np.linspace(-0.006, 0.006, 5))


def test_make_grid_layout():
    pts, axis = po.make_grid(4, 2)
    assert pts.shape == (16, 2) and axis.shape == (4,)
    assert np.allclose(pts[1 * 4 + 2], [axis[1], axis[2]])
    pts1, _ = po.make_grid(5, 1, 0.0, 1.0)
    assert pts1.shape == (5, 1) and pts1[-1, 0] == 1.0


def _quadratic(pts, A, b):
    return 0.5 * np.einsum("ni,ij,nj->n", pts, A, pts) + pts @ b


def test_conjugate_of_half_square(grid):
    pts, axis = grid
    half = 0.5 * (pts**2).sum(1)
    h = axis[1] - axis[0]
    plain = po.legendre_conjugate(half, axis, refine=False)
    assert np.abs(plain - half).max() <= h**2  # O(h^2), exact at grid y here
    assert np.allclose(po.legendre_conjugate(half, axis), half, atol=1e-12)
    x = np.random.default_rng(0).uniform(-0.5, 0.5, (50, 2))
    assert np.allclose(po.transport_map(half, axis)(x), x, atol=1e-12)


def test_refined_conjugate_exact_for_quadratics(grid):
    pts, axis = grid
    A = np.array([[1.2, 0.3], [0.3, 0.8]])
    b = np.array([0.05, -0.02])
    phi = _quadratic(pts, A, b)
    y = pts
    exact = 0.5 * np.einsum("ni,ij,nj->n", y - b, np.linalg.inv(A), y - b)
    assert np.abs(po.legendre_conjugate(phi, axis) - exact).max() < 1e-10
    # plain: below the truth by at most lambda_max h^2 / 4 where the maximiser is inside the box
    inside = np.all(np.abs((y - b) @ np.linalg.inv(A).T) <= 0.5, axis=1)
    gap = exact - po.legendre_conjugate(phi, axis, refine=False)
    h = axis[1] - axis[0]
    assert gap.min() >= -1e-12
    assert gap[inside].max() <= np.linalg.eigvalsh(A).max() * h**2 / 4 + 1e-12
    x = np.random.default_rng(1).uniform(-0.5, 0.5, (40, 2))
    assert np.allclose(po.transport_map(phi, axis)(x), x @ A.T + b, atol=1e-10)


def test_conjugate_in_1d_and_batches(grid):
    pts, axis = po.make_grid(21, 1)
    phi = 0.5 * 1.5 * pts[:, 0] ** 2 + 0.1 * pts[:, 0]
    exact = (pts[:, 0] - 0.1) ** 2 / (2 * 1.5)
    assert np.abs(po.legendre_conjugate(phi, axis) - exact).max() < 1e-10
    both = po.legendre_conjugate(np.stack([phi, 2 * phi]), axis)
    assert both.shape == (2, 21) and np.allclose(both[0], po.legendre_conjugate(phi, axis))


def test_interpolation_matrix_matches_scipy(family):
    axis = family.axis
    x = np.random.default_rng(2).uniform(-0.6, 0.6, (100, 2))
    W = interpolation_matrix(axis, x)
    interp = RegularGridInterpolator((axis, axis), family.phi[3].reshape(16, 16))
    assert np.allclose(W @ family.phi[3], interp(np.clip(x, -0.5, 0.5)), atol=1e-14)


@pytest.fixture(scope="module")
def net625():
    """The brief's net: N = 32, four bumps (w = 0.12), levels {-0.006, ..., 0.006}^4."""
    _, axis = po.make_grid(32)
    return po.bump_family(axis, CENTERS, 0.12, np.linspace(-0.006, 0.006, 5))


@pytest.mark.parametrize(
    "theta0", [(0.0, 0.0, 0.0, 0.0), (0.003, -0.006, 0.0, 0.006), (-0.006, 0.003, 0.006, -0.003)]
)
def test_planted_recovery(net625, theta0):
    """The brief's known answer 2 at its sizes: the 625-net, eps = inf, n = 1e5, 50 data sets."""
    index = int(np.flatnonzero(np.all(np.isclose(net625.thetas, theta0), axis=1))[0])
    rng = np.random.default_rng(3)
    hits = [
        po.private_potential(*po.sample_problem(net625, index, 10**5, rng), net625, np.inf).index
        == index
        for _ in range(50)
    ]
    assert np.mean(hits) >= 0.95
    S = population_semi_dual(net625, index)
    assert np.all(S >= S[index]) and np.sum(S == S[index]) == 1  # Fenchel-Young, unique


def test_sensitivity_invariant(family):
    rng = np.random.default_rng(4)
    n, clip = 50, 0.3
    X, Y = po.sample_problem(family, 7, n, rng)
    base = po.semi_dual_scores(family, X, Y, clip)
    for _ in range(1000):  # the brief's 1000 neighbouring pairs
        X2, Y2 = X.copy(), Y.copy()
        (X2 if rng.random() < 0.5 else Y2)[rng.integers(n)] = rng.uniform(-0.7, 0.7, 2)
        assert np.abs(po.semi_dual_scores(family, X2, Y2, clip) - base).max() <= 2 * clip / n


def test_sensitivity_invariant_with_a_binding_clip(family):
    """|phi| reaches about 0.25 on the box, so C = 0.05 binds: the bound 2C/n then holds only
    because of the clip (without it, moving a sample from the centre to a corner breaks it)."""
    rng = np.random.default_rng(14)
    n, clip = 50, 0.05
    X, Y = po.sample_problem(family, 7, n, rng)
    X[0] = Y[0] = 0.0
    base = po.semi_dual_scores(family, X, Y, clip)
    corners = np.array([[-0.5, -0.5], [0.5, 0.5], [0.5, -0.5], [-0.5, 0.5]])
    for k in range(8):
        X2, Y2 = X.copy(), Y.copy()
        (X2 if k % 2 else Y2)[0] = corners[k // 2] * 1.4  # far outside: clipped to the box
        assert np.abs(po.semi_dual_scores(family, X2, Y2, clip) - base).max() <= 2 * clip / n
    # the same replacement without clipping moves the scores by more than 2C/n
    X2 = X.copy()
    X2[0] = corners[1]
    moved = po.semi_dual_scores(family, X2, Y, 1e6) - po.semi_dual_scores(family, X, Y, 1e6)
    assert np.abs(moved).max() > 2 * 2 * clip / n


def _per_sample_scores(family, X, Y, clip):
    """The scores by the per-sample path: every sample interpolated and clipped one by one."""
    return _clipped_mean_per_sample(family.phi, family.axis, X, clip) + _clipped_mean_per_sample(
        family.phistar, family.axis, Y, clip
    )


def test_fast_scores_equal_the_per_sample_path(family):
    """Where no grid value of a candidate exceeds C the clip cannot bind (an interpolant is a
    convex combination of grid values) and S_n is values @ mean weights; with a clip that binds
    for no, some and every candidate the scores are those of the per-sample path."""
    rng = np.random.default_rng(15)
    X, Y = po.sample_problem(family, 7, 3000, rng)
    X[:3] = [[0.8, -0.9], [0.5, 0.5], [-0.5, 0.1]]  # outside the box and on its edges
    phi_max = family.absmax[0]
    mixed = float(np.median(phi_max))
    assert 0 < np.sum(phi_max <= mixed) < family.size  # some candidates bind, some do not
    for clip in (0.3, mixed, 0.05):
        fast = po.semi_dual_scores(family, X, Y, clip)
        assert np.abs(fast - _per_sample_scores(family, X, Y, clip)).max() <= 1e-15
    S = population_semi_dual(family, 3)
    mu = np.linspace(-0.5 + 1 / 400, 0.5 - 1 / 400, 200)
    U = np.stack(np.meshgrid(mu, mu, indexing="ij"), -1).reshape(-1, 2)
    T = po.transport_map(family.phi[3], family.axis)
    assert np.abs(S - _per_sample_scores(family, U, T(U), 0.3)).max() <= 1e-15


def test_error_grid_fast_path_equals_the_per_sample_path(family, monkeypatch):
    """For a fixed seed the error grid is exactly the one of the per-sample scores."""
    kw = {"ns": [200, 3000], "epss": [1.0, 30.0, np.inf], "reps": 8, "seed": 3}
    fast = po.error_grid(family, progress=False, **kw)
    monkeypatch.setattr(
        mechanisms,
        "_clipped_mean",
        lambda values, axis, pts, clip, absmax=None: _clipped_mean_per_sample(
            values, axis, pts, clip
        ),
    )
    slow = po.error_grid(family, progress=False, **kw)
    for key in ("err", "chosen", "truth", "exact", "floor"):
        assert np.array_equal(fast[key], slow[key]), key
    assert fast["random"] == slow["random"]
    E = po.candidate_errors(family)
    E[0, 1] = -1.0  # a copy: the family's stored matrix is not changed
    assert po.candidate_errors(family)[0, 1] >= 0


def test_noisy_min_releases_matches_the_loop():
    scores = np.random.default_rng(3).uniform(size=40)
    fast = po.noisy_min_releases(scores, 0.1, 1.0, 3000, np.random.default_rng(9))
    rng = np.random.default_rng(9)
    slow = np.array([po.report_noisy_min(scores, 0.1, 1.0, rng) for _ in range(3000)])
    assert np.array_equal(fast, slow)
    assert np.all(po.noisy_min_releases(scores, 0.1, np.inf, 4, rng) == np.argmin(scores))


def test_sinkhorn_with_a_tiny_reg_raises():
    rng = np.random.default_rng(0)
    U1, U2 = rng.uniform(size=(50, 2)), rng.uniform(size=(50, 2))
    with pytest.raises(ValueError, match="reg"):
        po.ot_baseline(U1, U2, "sinkhorn", reg=1e-8)
    assert np.all(np.isfinite(po.ot_baseline(U1, U2, "sinkhorn", reg=1e-2)(U1)))


def test_error_grid_rejects_non_integer_indices(family):
    with pytest.raises(TypeError, match="truths"):
        po.error_grid(family, [10], [1.0], 1, truths=[1.7], progress=False)
    with pytest.raises(TypeError, match="candidates"):
        po.error_grid(family, [10], [1.0], 1, candidates=[0.5, 1.9], progress=False)


def test_exponential_mechanism_is_eps_dp(family):
    rng = np.random.default_rng(5)
    n, clip, eps = 40, 0.3, 1.0
    X, Y = po.sample_problem(family, 3, n, rng)
    p = po.selection_probabilities(po.semi_dual_scores(family, X, Y, clip), 2 * clip / n, eps)
    for _ in range(50):
        X2 = X.copy()
        X2[rng.integers(n)] = rng.choice([-0.5, 0.5], 2)
        q = po.selection_probabilities(po.semi_dual_scores(family, X2, Y, clip), 2 * clip / n, eps)
        assert np.abs(np.log(p / q)).max() <= eps + 1e-9
    # Gumbel-max draws follow the law
    scores = np.array([0.0, 0.01, 0.02])
    law = po.selection_probabilities(scores, 0.01, 2.0)
    draws = [po.report_noisy_min(scores, 0.01, 2.0, rng, "exponential") for _ in range(20000)]
    assert np.allclose(np.bincount(draws, minlength=3) / 20000, law, atol=0.015)


def test_laplace_two_candidates_closed_form():
    g, sens, eps = 0.01, 0.01, 1.5
    b = 2 * sens / eps
    rng = np.random.default_rng(6)
    r = 40000
    worse = np.mean([po.report_noisy_min(np.array([0.0, g]), sens, eps, rng) for _ in range(r)])
    p = 0.5 * np.exp(-g / b) * (1 + g / (2 * b))
    assert abs(worse - p) < 4 * np.sqrt(p * (1 - p) / r)
    assert po.report_noisy_min(np.array([0.2, 0.1, 0.1]), 0.1, np.inf, rng) == 1


def test_error_monotone_in_eps(family):
    out = po.error_grid(family, [2000], [0.3, 3.0, np.inf], 50, seed=7, progress=False)
    err = out["err"][0]
    mean, se = err.mean(1), err.std(1, ddof=1) / np.sqrt(50)
    assert mean[1] <= mean[0] + 2 * np.hypot(se[0], se[1])
    assert mean[2] <= mean[1] + 2 * np.hypot(se[1], se[2])
    E = po.candidate_errors(family)
    assert np.allclose(np.diag(E), 0) and np.allclose(E, E.T)


def test_map_error_and_estimate(family):
    x = np.random.default_rng(8).uniform(-0.5, 0.5, (30, 2))
    assert po.map_l2_error(lambda z: z + 0.1, lambda z: z, x) == pytest.approx(0.02)
    X, Y = po.sample_problem(family, 5, 500, np.random.default_rng(9))
    est = po.private_potential(X, Y, family, 1.0, rng=np.random.default_rng(0))
    assert est.sensitivity == pytest.approx(2 * 0.3 / 500) and est.scores.shape == (25,)
    assert est.map(x).shape == (30, 2) and np.allclose(est.theta, family.thetas[est.index])


def test_ot_baseline_recovers_a_shift():
    rng = np.random.default_rng(10)
    X = rng.uniform(-0.5, 0.5, (200, 2))
    Y = X + np.array([0.05, 0.0])
    for method in ("emd", "sinkhorn"):
        T = po.ot_baseline(X, Y, method=method, reg=1e-2)
        assert po.map_l2_error(T, lambda z: z + np.array([0.05, 0.0]), X) < 1e-3


def test_audit_epsilon():
    rng = np.random.default_rng(11)
    a = rng.integers(0, 2, 4000)
    assert po.audit_epsilon(a, rng.integers(0, 2, 4000)) < 0.2
    # randomised response with eps = 1: the bound is below 1 and not far from it
    p = np.exp(1) / (1 + np.exp(1))
    d = (rng.random(20000) > p).astype(int)
    d2 = (rng.random(20000) < p).astype(int)
    lb = po.audit_epsilon(d, d2)
    assert 0.8 < lb <= 1.0


def test_error_grid_misspecified_and_worst_neighbour(family):
    out = po.error_grid(
        family, [500], [np.inf], 4, truths=[3], candidates=[0, 1, 2], seed=1, progress=False
    )
    assert set(out["chosen"].ravel()) <= {0, 1, 2} and np.all(out["truth"] == 3)
    E = po.candidate_errors(family)
    assert np.allclose(out["floor"], E[[0, 1, 2], 3].min())
    assert np.all(out["err"] >= E[[0, 1, 2], 3].min() - 1e-15)
    X, Y = po.sample_problem(family, 5, 50, np.random.default_rng(2))
    Xp, spread = po.worst_neighbour(family, X, Y, 0.3)
    changed = np.flatnonzero(np.any(Xp != X, 1))
    assert changed.size == 1 and np.all(np.abs(Xp[changed[0]]) == 0.5)
    d = po.semi_dual_scores(family, Xp, Y, 0.3) - po.semi_dual_scores(family, X, Y, 0.3)
    assert spread == pytest.approx(np.ptp(d) / (2 * 0.3 / 50)) and 0 <= spread <= 2
    _, top = po.worst_neighbour(family, X, Y, 0.3, among=[0, 1])
    assert top <= spread + 1e-12


def test_hessian_range_of_quadratics_and_the_stability_bound(grid, family):
    pts, axis = grid
    A = np.array([[2.0, 0.5], [0.5, 1.0]])
    fam = po.potential_family(_quadratic(pts, A, np.array([0.1, -0.2])), axis)
    assert np.allclose(po.hessian_range(fam), np.linalg.eigvalsh(A), atol=1e-9)
    pts1, axis1 = po.make_grid(9, 1)
    assert np.allclose(po.hessian_range(po.potential_family(1.5 * pts1[:, 0] ** 2, axis1)), 3.0)
    # chunks do not change the answer; the bump net is convex, around the identity's Hessian
    mu, L = po.hessian_range(family)
    assert (mu, L) == po.hessian_range(family, chunk=7) and 0 < mu < 1 < L
    # the population stability ratio of the net lies in [1/(2L), 1/(2 mu)]
    S = population_semi_dual(family, 0)
    E = po.candidate_errors(family)
    ratio = np.delete((S - S[0]) / np.maximum(E[:, 0], 1e-300), 0)
    assert ratio.min() >= 1 / (2 * L) and ratio.max() <= 1 / (2 * mu)
