"""Known-answer tests of icml25.graphfilter (seconds)."""

import itertools

import numpy as np
import pytest

from icml25.graphfilter import (
    build_graph,
    evaluate_sft,
    evaluate_subset,
    graphfilter,
    grow_pool,
    ifd_scores,
    load_pairs,
    plant_noise,
    quality_from_ifd,
    select_baseline,
    split_pairs,
    subset_stats,
)

TOY = [
    "red apple pie",
    "green apple tart",
    "red cherry pie",
    "blue sky",
    "red apple pie",
    "sky blue sea",
    "lemon tart",
    "cherry red wine",
    "green sea",
    "apple",
    "wine tart pie",
    "blue lemon",
]


def test_corpus_counts_and_split():
    pairs = load_pairs()
    assert len(pairs) == 2026
    assert len({x for x, _ in pairs}) == 749
    pool, test = split_pairs(pairs, 0.2, seed=0)
    assert len(test) == 150 and len({x for x, _ in test}) == 150
    assert not {x for x, _ in test} & {x for x, _ in pool}


def test_plant_noise_marks_and_dups():
    pairs = [(f"question number {i} here", f"answer {i}") for i in range(100)]
    out, bad, dup = plant_noise(pairs, 0.25, 0.2, seed=1)
    assert len(out) == 120 and bad[:100].sum() == 25
    assert all(out[i][1] != pairs[i][1] for i in np.flatnonzero(bad[:100]))
    assert (dup[:100] == -1).all() and (dup[100:] >= 0).all()
    assert all(out[i][1] == out[dup[i]][1] for i in range(100, 120))


@pytest.mark.parametrize("combine", ["mul", "add"])
@pytest.mark.parametrize("weighting", ["tfidf", "binary"])
def test_lazy_equals_naive(combine, weighting):
    g = build_graph(TOY, 2, weighting)
    q = np.random.default_rng(0).random(len(TOY)) + 0.1
    assert graphfilter(g, q, 8, combine) == graphfilter(g, q, 8, combine, lazy=False)


def test_greedy_coverage_bound():
    g = build_graph(TOY, 1, "binary")
    W = g.incidence.toarray() > 0
    sel = graphfilter(g, np.ones(len(TOY)), 3)
    cov = W[sel].any(0).sum()
    opt = max(W[list(c)].any(0).sum() for c in itertools.combinations(range(len(TOY)), 3))
    assert cov >= (1 - 1 / np.e) * opt


def test_exact_duplicate_never_taken_and_early_stop():
    g = build_graph(TOY, 3)
    sel = graphfilter(g, np.ones(len(TOY)), 12)
    assert not {0, 4} <= set(sel)  # identical texts: the twin has D = 0
    assert len(sel) < 12  # everything covered before the budget


def test_zero_quality_never_selected_and_static_is_top_phi0():
    g = build_graph(TOY, 2)
    q = np.ones(len(TOY))
    q[[1, 3]] = 0.0
    assert not {1, 3} & set(graphfilter(g, q, 12))
    q = np.linspace(1, 2, len(TOY))
    phi0 = q * np.asarray(g.incidence.sum(1)).ravel()
    assert graphfilter(g, q, 5, update=False) == list(np.argsort(-phi0, kind="stable")[:5])


def test_quality_orientations():
    ifd = np.array([0.5, 1.0, 2.0])
    assert np.allclose(quality_from_ifd(ifd), [2, 1, 0.5])
    assert np.allclose(quality_from_ifd(ifd, "paper"), ifd)
    assert np.allclose(quality_from_ifd(ifd, "superfilter", 1.0), [0.5, 0, 0])


def test_ifd_detects_shuffled_responses():
    pool, _ = split_pairs(load_pairs(), 0.2, 0)
    pairs, bad, _ = plant_noise(pool, 0.25, 0.0, seed=0)
    s = ifd_scores(pairs)
    assert s[bad].mean() > s[~bad].mean() + 0.1
    sel = graphfilter(build_graph([a + " " + b for a, b in pairs]), quality_from_ifd(s), 200)
    assert bad[sel].mean() < bad.mean()


def test_baselines():
    g = build_graph(TOY, 2)
    q = np.arange(len(TOY), dtype=float)
    assert select_baseline("quality_topk", 3, quality=q) == [11, 10, 9]
    assert select_baseline("diversity_only", 4, graph=g) == graphfilter(g, np.ones(12), 4)
    r = select_baseline("random", 5, graph=g, seed=3)
    assert len(set(r)) == 5 and r == select_baseline("random", 5, graph=g, seed=3)
    kc = select_baseline("kcenter", 5, graph=g)
    assert len(set(kc)) == 5


def test_evaluate_subset_is_one_on_itself_and_stats():
    pairs = [(t, f"reply about {t}") for t in dict.fromkeys(TOY)]
    assert evaluate_subset(pairs, list(range(len(pairs))), pairs, "tfidf") == pytest.approx(1.0)
    pairs2 = pairs + [pairs[0]]
    bad = np.zeros(len(pairs2), bool)
    dup = np.full(len(pairs2), -1)
    dup[-1] = 0
    st = subset_stats(pairs2, [0, len(pairs2) - 1], bad, dup, build_graph([a for a, _ in pairs2]))
    assert st["exact_duplicate"] == 1 and st["duplicate"] == 0.5 and st["corrupt"] == 0.0


def test_greedy_lists_are_prefix_consistent():
    """A smaller budget gives the first k of a larger one (the notebooks slice one k_max run)."""
    g = build_graph(TOY, 2)
    q = np.random.default_rng(1).random(len(TOY)) + 0.1
    for kw in ({}, {"combine": "add"}, {"update": False}):
        assert graphfilter(g, q, 3, **kw) == graphfilter(g, q, 8, **kw)[:3]
    assert (
        select_baseline("kcenter", 3, graph=g, seed=2)
        == select_baseline("kcenter", 8, graph=g, seed=2)[:3]
    )


def test_grow_pool():
    pairs = [(f"question number {i} here", f"the answer is {i} today") for i in range(10)]
    assert grow_pool(pairs, 4) == pairs[:4]
    big = grow_pool(pairs, 50, seed=3)
    assert len(big) == 50 and big[:10] == pairs
    assert all(len(x.split()) < 4 and len(y.split()) < 5 for x, y in big[10:])
    assert big == grow_pool(pairs, 50, seed=3)


FACTS = [
    ("what is red", "red is a colour"),
    ("what is an apple", "an apple is a fruit"),
    ("what is an oak", "an oak is a tree"),
    ("what is a cat", "a cat is an animal"),
    ("what is a rose", "a rose is a flower"),
    ("what is iron", "iron is a metal"),
    ("what is a pear", "a pear is a fruit"),
    ("what is a dog", "a dog is an animal"),
]


def test_evaluate_sft_prefers_aligned_training_pairs():
    """Trained on the test pairs themselves, the held-out NLL falls far below that of the same
    responses shuffled across instructions, and both below an (almost) untrained model's."""
    shuffled = [(x, FACTS[(i + 3) % len(FACTS)][1]) for i, (x, _) in enumerate(FACTS)]
    own = evaluate_sft(FACTS, FACTS, steps=40, batch_size=8, seed=0, device="cpu")
    shuf = evaluate_sft(shuffled, FACTS, steps=40, batch_size=8, seed=0, device="cpu")
    untrained = evaluate_sft(FACTS, FACTS, steps=1, batch_size=8, seed=0, device="cpu")
    assert own < 0.5 * shuf and shuf < untrained
    assert untrained == pytest.approx(np.log(62), rel=0.2)  # about uniform over the 62 ids
    assert own == evaluate_sft(FACTS, FACTS, steps=40, batch_size=8, seed=0, device="cpu")


def test_diversity_only_covers_at_least_random():
    """Known answer 4b: with Q = 1 the greedy cover reaches at least random's n-gram coverage."""
    g = build_graph(TOY, 2, "binary")
    W = g.incidence.toarray() > 0
    greedy = W[graphfilter(g, np.ones(len(TOY)), 4)].any(0).sum()
    for seed in range(10):
        assert greedy >= W[select_baseline("random", 4, graph=g, seed=seed)].any(0).sum()


def test_transformer_ifd_runs_and_is_seeded():
    """The `large` scorer on a tiny pool: one finite IFD > 0 per pair, the same for one seed."""
    pairs = [(f"what is item {i}", f"item {i} is a thing number {i % 5}") for i in range(30)]
    s = ifd_scores(pairs, lm="transformer", seed=0)
    assert s.shape == (30,) and np.all(np.isfinite(s)) and np.all(s > 0)
    assert np.array_equal(s, ifd_scores(pairs, lm="transformer", seed=0))
