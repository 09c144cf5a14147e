"""Known answers for icml25.spex: WHT, aliasing, planted recovery, query counts, indices."""

import numpy as np
import pytest
from scipy.linalg import hadamard

from icml25.spex import (
    design_delays,
    faithfulness_r2,
    fourier_eval,
    fourier_to_mobius,
    fwht,
    linear_surrogate,
    make_sparse_function,
    marginal_baselines,
    spex,
    subsampled_transform,
    to_index,
)


def test_fwht_is_the_hadamard_matrix():
    a = np.random.default_rng(0).normal(size=(32, 3))
    np.testing.assert_allclose(fwht(a), hadamard(32) @ a, atol=1e-12)
    np.testing.assert_allclose(fwht(fwht(a)) / 32, a, atol=1e-12)
    with pytest.raises(ValueError, match="power of two"):
        fwht(np.ones(6))


def test_aliasing_and_shift_identity():
    n, b = 20, 4
    f, F = make_sparse_function(n, 15, 3, basis="fourier", seed=0)
    rng = np.random.default_rng(1)
    M = rng.integers(0, 2, size=(b, n)).astype(np.int8)
    D = np.vstack([np.zeros((1, n), np.int8), rng.integers(0, 2, size=(3, n)).astype(np.int8)])
    U = subsampled_transform(f, M, D)
    expected = np.zeros((2**b, len(D)))
    for k, v in F.items():
        kv = np.zeros(n, int)
        kv[list(k)] = 1
        j = int(((M @ kv) % 2) @ (1 << np.arange(b)))
        expected[j] += v * (-1.0) ** ((D @ kv) % 2)
    assert np.abs(U - expected).max() < 1e-10


def test_planted_recovery_identity_delays():
    n, b, C = 128, 6, 3
    f, F = make_sparse_function(n, 20, 3, basis="fourier", seed=3)
    res = spex(f, n, b=b, C=C, delays="identity")
    assert set(F) <= set(res.fourier)
    assert max(abs(res.fourier[k] - v) for k, v in F.items()) < 1e-8
    assert faithfulness_r2(f, res.fourier, n) > 0.9999
    assert res.n_queries == C * 2**b * (n + 1)


def test_planted_recovery_bch_delays():
    n, b, C, t = 48, 6, 3, 3
    f, F = make_sparse_function(n, 20, t, basis="fourier", seed=4)
    res = spex(f, n, b=b, C=C, delays="bch", t=t)
    p = len(design_delays(n, "bch", t)) - 1
    assert res.n_queries == C * 2**b * (p + 1) and p < n
    assert max(abs(res.fourier.get(k, 0.0) - v) for k, v in F.items()) < 1e-8
    assert faithfulness_r2(f, res.fourier, n) > 0.9999


def test_index_sanity():
    n = 16
    f, a = make_sparse_function(n, 8, 3, basis="mobius", seed=5)
    res = spex(f, n, b=7)
    m = fourier_to_mobius(res.fourier)
    for S, v in a.items():
        assert abs(m[S] - v) < 1e-8
    sv = to_index(m, "SV", 1)
    full, empty = np.ones((1, n), np.int8), np.zeros((1, n), np.int8)
    total = f(full)[0] - f(empty)[0]
    assert abs(sum(sv.values()) - total) < 1e-8  # efficiency
    fs1 = to_index(m, "FSII", 1)
    assert all(abs(fs1[k] - sv[k]) < 1e-10 for k in sv)  # Faith-Shap of order 1 = Shapley
    assert abs(sum(to_index(m, "FSII", 2).values()) - total) < 1e-8
    assert abs(sum(to_index(m, "STII", 2).values()) - total) < 1e-8
    # a purely additive function: FBII of order 1 = its coefficients, higher orders vanish
    w = np.random.default_rng(0).normal(size=n)
    additive = {(i,): float(w[i]) for i in range(n)}
    fb = to_index(additive, "FBII", 3)
    assert all(len(T) == 1 and abs(fb[T] - w[T[0]]) < 1e-12 for T in fb)


def test_marginal_baselines_on_an_additive_function():
    n = 12
    w = np.random.default_rng(0).normal(size=n)

    def f(masks):
        return 0.5 + masks @ w

    base = marginal_baselines(f, n, budget=400, seed=0)
    assert set(base) == {"LIME", "Banzhaf", "KernelSHAP"}
    np.testing.assert_allclose(base["Banzhaf"], np.concatenate([[0.5], w]), atol=1e-8)
    np.testing.assert_allclose(base["KernelSHAP"], np.concatenate([[0.5], w]), atol=1e-6)
    assert faithfulness_r2(f, linear_surrogate(base["LIME"]), n) > 0.99  # ridge shrinks a little


def test_bad_inputs():
    f, _ = make_sparse_function(8, 4, 2, seed=0)
    with pytest.raises(ValueError, match="0 and 1"):
        f(np.full((2, 8), 2))
    with pytest.raises(ValueError, match="shape"):
        f(np.zeros((2, 7), int))
    with pytest.raises(ValueError, match="b must be"):
        spex(f, 8, b=0)
    with pytest.raises(ValueError, match="n must be"):
        spex(f, 0)
    with pytest.raises(ValueError, match="value_fn must return shape"):
        spex(lambda m: np.zeros(3), 8, b=2)
    with pytest.raises(TypeError, match="value_fn"):
        spex("not a function", 8)
    with pytest.raises(ValueError, match="delays"):
        spex(f, 8, delays="random")
    with pytest.raises(ValueError, match="index"):
        to_index({(0,): 1.0}, "XYZ", 1)


def test_multihop_removal_and_recovery():
    from icml25.spex import greedy_removal_order, recovery_rate, removal_drops
    from icml25.spex.text import make_multihop_task

    n = 24
    f, support, shortcut = make_multihop_task(n, seed=0, shortcut_effect=1.5)
    full = np.ones((1, n), np.int8)
    one_out = full.copy()
    one_out[0, support[0]] = 0
    assert f(full)[0] - f(one_out)[0] >= 4.0 - 0.7  # every hop is needed
    res = spex(f, n, b=6)
    order = greedy_removal_order(lambda m: fourier_eval(res.fourier, m), n, 2)
    assert order[0] in support and order[1] == shortcut
    drops = removal_drops(f, n, order)
    assert drops.shape == (2,) and drops[0] >= 3.3
    fb = to_index(fourier_to_mobius(res.fourier), "FBII", 3)
    ranked = sorted(fb, key=lambda k: -abs(fb[k]))
    assert ranked[0] == support and recovery_rate(ranked, support, 1) == 1.0
    assert recovery_rate([(shortcut,)], support, 1) == 0.0


def test_fair_multihop_task_has_no_shortcut():
    from icml25.spex.text import make_multihop_task

    n = 24
    f, support, shortcut = make_multihop_task(n, seed=0)  # default: shortcut_effect = 0
    full = np.ones((1, n), np.int8)
    one_out = full.copy()
    one_out[0, shortcut] = 0
    only_pairs = f(full)[0] - f(one_out)[0]  # the shortcut sentence keeps only its pair terms
    f15, _, _ = make_multihop_task(n, seed=0, shortcut_effect=1.5)
    assert abs((f15(full)[0] - f15(one_out)[0]) - only_pairs - 1.5) < 1e-12


@pytest.mark.parametrize(
    ("index", "order"), [("FBII", 2), ("FBII", 3), ("FSII", 2), ("STII", 2), ("SV", 1), ("BV", 1)]
)
def test_to_index_matches_shapiq_exact_computer(index, order):
    """Our closed forms against shapiq's brute-force computer on all 2^8 coalitions."""
    import shapiq

    n = 8
    f, a = make_sparse_function(n, 6, 3, basis="mobius", seed=0)
    exact = shapiq.ExactComputer(lambda m: f(np.asarray(m).astype(np.int8)), n_players=n)
    ref = {tuple(int(i) for i in k): v for k, v in exact(index, order).dict_values.items() if k}
    ours = to_index(a, index, order)
    assert max(abs(ref.get(k, 0.0) - ours.get(k, 0.0)) for k in set(ref) | set(ours)) < 1e-8


def test_query_counter_and_exact_recovery():
    from icml25.spex import QueryCounter, exact_recovery

    n = 64
    f, F = make_sparse_function(n, 10, 3, basis="fourier", seed=2)
    counted = QueryCounter(f)
    res = spex(counted, n, b=5, C=3, delays="bch", t=3)
    assert counted.n_queries == res.n_queries == len(res.values)
    assert exact_recovery(res.fourier, F)
    wrong = dict(F)
    wrong[next(iter(F))] += 1e-3
    assert not exact_recovery(wrong, F)  # a coefficient off
    assert not exact_recovery({**F, (0, 1, 2, 3): 0.5}, F)  # an extra term
    too_few = spex(f, n, b=2, C=3, delays="bch", t=3)
    assert not exact_recovery(too_few.fourier, F)


def test_faith_interactions_recover_a_pairwise_function():
    from icml25.spex import faith_interactions, mobius_eval

    n = 10
    a = {(): 0.3, (1,): 1.0, (4,): -0.5, (2, 7): 2.0, (0, 9): -1.0}

    def f(m):
        return mobius_eval(a, m)

    for index in ("FBII", "FSII"):
        got = faith_interactions(f, n, 600, index=index, order=2, seed=0)
        assert all(abs(got.get(k, 0.0) - v) < 1e-6 for k, v in a.items()), index
        assert faithfulness_r2(f, lambda m, g=got: mobius_eval(g, m), n) > 0.9999


def test_faith_banzhaf_ridge_and_stii_recover_a_pairwise_function():
    from icml25.spex import faith_banzhaf_ridge, faith_interactions, index_size, mobius_eval

    n = 10
    a = {(): 0.3, (1,): 1.0, (4,): -0.5, (2, 7): 2.0, (0, 9): -1.0}

    def f(m):
        return mobius_eval(a, m)

    got = faith_banzhaf_ridge(f, n, 400, order=2, alphas=(1e-8,), seed=0)
    assert len(got) == index_size(n, 2) == 1 + n + n * (n - 1) // 2
    assert all(abs(got.get(k, 0.0) - a.get(k, 0.0)) < 1e-5 for k in set(got) | set(a))
    first = faith_banzhaf_ridge(f, n, 400, order=1, seed=0)
    assert len(first) == index_size(n, 1) == n + 1
    st = faith_interactions(f, n, 400, index="STII", order=2, seed=0)
    assert all(abs(st.get(k, 0.0) - v) < 1e-6 for k, v in a.items() if k)
    assert index_size(128, 2) == 8257


def test_multihop_distractors_outrank_hops_only_in_marginal_rankings():
    from icml25.spex import input_ranking, marginal_baselines
    from icml25.spex.text import make_multihop_task

    n = 32
    f0, s0, _ = make_multihop_task(n, seed=0)
    f1, s1, _ = make_multihop_task(n, seed=0, n_distractors=3, distractor_effect=2.0)
    assert s0 == s1
    m = np.random.default_rng(0).integers(0, 2, size=(50, n))
    assert not np.allclose(f0(m), f1(m))
    w = marginal_baselines(f1, n, 2000, seed=0, methods=("Banzhaf",))["Banzhaf"][1:]
    top3 = {int(i) for i in np.argsort(-w)[:3]}
    assert not top3 & set(s1)  # the three distractors come first
    res = spex(f1, n, b=6, C=3, delays="bch", t=3)
    fb = to_index(fourier_to_mobius(res.fourier), "FBII", 3)
    rk = input_ranking(sorted(fb, key=lambda T: -abs(fb[T])))
    assert {i for (i,) in rk[:3]} == set(s1)


def test_input_ranking_flattens_in_order():
    from icml25.spex import input_ranking

    assert input_ranking([(3, 7), (1,), (7, 2)]) == [(3,), (7,), (1,), (2,)]
    assert input_ranking([]) == []


def test_attention_classifier_shapes_and_mask_check():
    import torch

    from icml25.spex.text import AttentionClassifier, masked_value_fn

    torch.manual_seed(0)
    model = AttentionClassifier(d=8, heads=2, max_len=16).eval()
    assert model(torch.zeros((3, 10), dtype=torch.long)).shape == (3,)
    with pytest.raises(ValueError, match="max_len"):
        model(torch.zeros((1, 17), dtype=torch.long))
    f = masked_value_fn(model, np.arange(3, 13))
    assert f(np.ones((4, 10), np.int8)).shape == (4,)
    with pytest.raises(ValueError, match="0 and 1"):
        f(np.full((2, 10), 2))


def test_refit_support_adds_the_linear_terms():
    """Dense small first-order weights + six strong inputs + one pair (n = 256): the peeled
    support misses most weak inputs, and only the official refit (found + constant + all
    first-order keys, as the authors' fit_regression) reconstructs f."""
    n = 256
    rng = np.random.default_rng(0)
    w = rng.normal(0, 0.1, n)
    strong = rng.choice(n, 7, replace=False)
    w[strong[:6]] = rng.choice([-1, 1], 6) * rng.uniform(1, 2, 6)
    i, j = strong[5], strong[6]

    def f(m):
        m = np.asarray(m, float)
        return m @ w + 1.5 * m[:, i] * m[:, j]

    kw = dict(b=6, C=3, delays="bch", t=3, noise_tol=0.5, tol=1e-3)
    found = spex(f, n, refit_support="found", **kw)
    lin = spex(f, n, **kw)  # the default is the official one
    assert found.n_found == lin.n_found == len(found.fourier) < n
    assert len(lin.fourier) >= n + 1 and all((k,) in lin.fourier for k in range(n))
    r2_found, r2_lin = faithfulness_r2(f, found.fourier, n), faithfulness_r2(f, lin.fourier, n)
    assert r2_lin > 0.999 and r2_found < r2_lin - 0.05


def test_max_rounds_caps_peeling():
    n = 32
    f, F = make_sparse_function(n, 40, 3, basis="fourier", seed=2)
    full = spex(f, n, b=4, C=3, refit=False)
    assert 2 <= full.peeling_rounds <= 100
    one = spex(f, n, b=4, C=3, refit=False, max_rounds=1)
    assert one.peeling_rounds == 1 and one.n_found <= full.n_found
    with pytest.raises(ValueError, match="max_rounds"):
        spex(f, n, max_rounds=0)


def test_bch_decoder_is_a_bounded_distance_decoder():
    """Every pattern of weight <= t (N = 31, t = 3: all 4,992) decodes to itself; a syndrome
    outside that set fails (no pattern of weight <= t has it)."""
    import itertools

    from icml25.spex.bch import bch_code, bch_decode

    code = bch_code(16, 3)
    assert (code.length, code.k) == (31, 16)
    H = code.H.astype(int)
    E = []
    for w in range(4):
        for pos in itertools.combinations(range(31), w):
            e = np.zeros(31, np.int8)
            e[list(pos)] = 1
            E.append(e)
    E = np.array(E)
    S = (E @ H.T) % 2
    assert len({s.tobytes() for s in S.astype(np.int8)}) == len(E)  # distance >= 2t + 1
    assert all(np.array_equal(d, e) for d, e in zip(bch_decode(code, S), E, strict=True))
    known = {s.tobytes() for s in S.astype(np.int8)}
    rng = np.random.default_rng(0)
    R = rng.integers(0, 2, size=(400, len(H))).astype(np.int8)
    out = bch_decode(code, R)
    for s, d in zip(R, out, strict=True):
        assert (d is not None) == (s.tobytes() in known)


def test_bch_parity_check_matches_galois():
    """Our H is galois' (null space of the BCH generator matrix, row-reduced), bit for bit, on
    the same fields (galois' MATLAB primitive polynomials)."""
    import galois

    from icml25.spex.bch import PRIMITIVE, bch_code

    assert all(int(galois.matlab_primitive_poly(2, m)) == p for m, p in PRIMITIVE.items())
    for n, t in ((32, 3), (64, 2)):
        code = bch_code(n, t)
        ref = galois.BCH(code.length, d=2 * t + 1)
        H = np.asarray(galois.GF2(ref.G).null_space().row_reduce(), dtype=np.int8)
        assert ref.k == code.k and np.array_equal(H[H.any(1)], code.H)
    assert bch_code(1024, 3).length == 2047 and bch_code(4, 3).k == 1  # repetition code
    with pytest.raises(ValueError, match="n <"):
        design_delays(70000, "bch", 3)


def test_query_cache_answers_repeated_batches_from_memory():
    from icml25.spex import QueryCache, QueryCounter

    n = 8
    f, _ = make_sparse_function(n, 5, 2, seed=0)
    counted = QueryCounter(f)
    cached = QueryCache(counted)
    m = np.random.default_rng(0).integers(0, 2, size=(30, n)).astype(np.int8)
    y = cached(m)
    y[:] = 0.0  # the caller's copy, not the memory
    np.testing.assert_array_equal(cached(m.copy()), f(m))
    assert counted.n_queries == 30 and cached.n_hits == 1
    cached(m[:10])
    assert counted.n_queries == 40


def test_mobius_eval_pairs_match_the_products():
    from icml25.spex import mobius_eval

    n = 12
    rng = np.random.default_rng(0)
    a = {(): 0.5, (3,): -1.0, (1, 2, 5): 0.7}
    a.update({(int(i), int(j)): float(rng.normal()) for i in range(n) for j in range(i + 1, n)})
    m = rng.integers(0, 2, size=(40, n)).astype(np.int8)
    direct = np.array([sum(v * np.prod(row[list(S)]) for S, v in a.items()) for row in m])
    np.testing.assert_allclose(mobius_eval(a, m), direct, atol=1e-12)
