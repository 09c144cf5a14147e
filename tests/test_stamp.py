"""Unit tests of icml25.stamp: the paired test, the KGW watermark, the count model."""

import numpy as np
import pytest
from scipy import stats

from icml25.stamp import (
    BigramLM,
    effect_size,
    kgw_green_mask,
    kgw_zscore,
    make_background,
    make_items,
    make_synonym_grammar,
    make_versions,
    sample_templates,
    split_public,
    stamp_test,
    watermarked_rephrase,
)


def test_stamp_test_without_clipping_equals_scipy():
    rng = np.random.default_rng(0)
    pub = rng.normal(10, 1, 100)
    priv = rng.normal(10, 1, (100, 8))
    p, t = stamp_test(pub, priv, clip_frac=0)
    ref = stats.ttest_rel(pub, priv.mean(axis=1), alternative="less")
    assert p == ref.pvalue and t == ref.statistic


def test_stamp_test_planted_signal_and_swap():
    rng = np.random.default_rng(1)
    priv = rng.normal(20, 2, (200, 8))
    pub = priv.mean(axis=1) - 0.1 * np.abs(rng.normal(size=200))
    assert stamp_test(pub, priv)[0] < 1e-6
    swapped = np.repeat(pub[:, None], 8, axis=1)
    assert stamp_test(priv.mean(axis=1), swapped)[0] > 0.5


def test_green_mask_is_deterministic_with_fraction_gamma():
    a = kgw_green_mask(5, 123, 5000)
    assert np.array_equal(a, kgw_green_mask(5, 123, 5000))
    assert not np.array_equal(a, kgw_green_mask(5, 124, 5000))
    assert abs(a.mean() - 0.25) < 0.03


def test_watermark_detector_right_vs_wrong_key():
    g = make_synonym_grammar(300, 4)
    templates = sample_templates(g, 100, length=24, seed=0)
    rng = np.random.default_rng(0)
    seqs = [watermarked_rephrase(t, g, key=7, delta=4.0, rng=rng) for t in templates]
    right = np.array([kgw_zscore(s, 7, g.vocab_size) for s in seqs])
    wrong = np.array([kgw_zscore(s, 8, g.vocab_size) for s in seqs])
    assert right.mean() > 4
    assert np.mean(np.abs(wrong) < 2) > 0.9


def test_plain_rephrase_keeps_the_meaning():
    g = make_synonym_grammar(10, 4)
    t = sample_templates(g, 1, length=12, seed=1)[0]
    words = watermarked_rephrase(t, g, key=1, delta=0.0, rng=np.random.default_rng(0))
    assert [(w - 1) // 4 for w in words] == list(t)


def test_null_calibration_with_the_count_model():
    """A model trained without the public versions gives roughly uniform p-values."""
    g = make_synonym_grammar(100, 4)
    pvals = []
    for seed in range(30):
        bench = sample_templates(g, 60, length=8, seed=seed)
        versions = make_versions(bench, g, list(range(9)), delta=2.0, seed=100 + seed)
        background = make_versions(sample_templates(g, 500, 8, seed=500 + seed), g, [0], 0.0)[0]
        lm = BigramLM(g.vocab_size).fit(background)
        pub = lm.perplexity(versions[0])
        priv = np.stack([lm.perplexity(v) for v in versions[1:]], axis=1)
        pvals.append(stamp_test(pub, priv)[0])
    assert stats.kstest(pvals, "uniform").pvalue > 0.01


def test_count_model_detects_a_single_insertion():
    g = make_synonym_grammar(100, 4)
    bench = sample_templates(g, 100, length=8, seed=0)
    versions = make_versions(bench, g, list(range(9)), delta=2.0, seed=1)
    background = make_versions(sample_templates(g, 2000, 8, seed=2), g, [0], 0.0)[0]
    lm = BigramLM(g.vocab_size).fit(np.concatenate([background, versions[0]]))
    pub = lm.perplexity(versions[0])
    priv = np.stack([lm.perplexity(v) for v in versions[1:]], axis=1)
    assert stamp_test(pub, priv)[0] < 1e-4


@pytest.mark.parametrize(
    ("call", "arg"),
    [
        (lambda: stamp_test(np.ones(3), np.ones((4, 2))), "private_ppls"),
        (lambda: stamp_test(np.ones(3), np.ones((3, 2)), clip_frac=0.6), "clip_frac"),
        (lambda: kgw_green_mask(1, 1, 10, gamma=1.5), "gamma"),
        (lambda: kgw_zscore([], 1, 10), "tokens"),
        (lambda: make_synonym_grammar(0), "n_groups"),
        (lambda: stamp_test(np.ones(1), np.ones((1, 2))), "at least 2 items"),
        (lambda: stamp_test(np.array([1.0, np.nan]), np.ones((2, 2))), "public_ppl"),
        (lambda: stamp_test(np.ones(2), np.full((2, 2), np.inf)), "private_ppls"),
    ],
)
def test_bad_input(call, arg):
    with pytest.raises(ValueError, match=arg):
        call()


def test_make_items_and_background_are_seeded_versions():
    g = make_synonym_grammar(50, 4)
    items = make_items(g, 20, 3, delta=2.0, seed=1)
    assert items.shape == (4, 20, 12)
    np.testing.assert_array_equal(items, make_items(g, 20, 3, delta=2.0, seed=1))
    templates = sample_templates(g, 20, seed=11)
    expected = make_versions(templates, g, [2000, 2001, 2002, 2003], delta=2.0, seed=12)
    np.testing.assert_array_equal(items, expected)
    bg = make_background(g, 30, seed=1)
    assert bg.shape == (30, 12) and bg.min() >= 1


def _mixed_slot(g, delta):
    """A (group, key) whose four synonyms after BOS are partly green, and their exact softmax."""
    for key in range(1, 200):
        for group in range(g.n_groups):
            green = kgw_green_mask(0, key, g.vocab_size)[g.synonyms(group)]
            if 0 < green.sum() < g.n_syn:
                w = np.exp(delta * green)
                return group, key, w / w.sum()
    raise AssertionError("no mixed slot")


@pytest.mark.parametrize("delta", [0.0, 1.0, 3.0])
def test_rephrase_draws_follow_the_kgw_softmax(delta):
    """Chi-square of 20,000 first-word draws against P(w) ∝ exp(δ [w ∈ G]), and a two-sample
    chi-square against numpy's own ``Generator.choice`` with the same probabilities."""
    g = make_synonym_grammar(50, 4)
    group, key, probs = _mixed_slot(g, delta)
    rng = np.random.default_rng(3)
    n = 20_000
    words = [watermarked_rephrase([group], g, key, delta=delta, rng=rng)[0] for _ in range(n)]
    counts = np.bincount(np.array(words) - g.synonyms(group)[0], minlength=g.n_syn)
    assert stats.chisquare(counts, n * probs).pvalue > 1e-3
    ref = np.bincount(np.random.default_rng(4).choice(g.n_syn, size=n, p=probs), minlength=4)
    assert stats.chi2_contingency(np.stack([counts, ref])).pvalue > 1e-3


def test_rephrase_sampler_detects_a_wrong_distribution():
    """Negative control for the test above: the same draws fail against uniform probabilities."""
    g = make_synonym_grammar(50, 4)
    group, key, probs = _mixed_slot(g, 3.0)
    rng = np.random.default_rng(3)
    words = [watermarked_rephrase([group], g, key, delta=3.0, rng=rng)[0] for _ in range(5000)]
    counts = np.bincount(np.array(words) - g.synonyms(group)[0], minlength=g.n_syn)
    assert stats.chisquare(counts, np.full(4, 5000 / 4)).pvalue < 1e-6


def test_green_cache_is_bounded_and_small():
    import tracemalloc

    from icml25.stamp import watermark

    watermark._green_bytes.cache_clear()
    tracemalloc.start()
    for i in range(watermark.GREEN_CACHE_ROWS + 500):
        kgw_green_mask(i % 1201, 10**6 + i // 1201, 1201)
    current, _ = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    info = watermark._green_bytes.cache_info()
    watermark._green_bytes.cache_clear()
    assert info.currsize == watermark.GREEN_CACHE_ROWS
    assert current < 40e6, current  # about 24 MB for 16,384 rows of 1,201 bytes


def test_green_mask_is_read_only():
    mask = kgw_green_mask(3, 5, 100)
    with pytest.raises(ValueError):
        mask[0] = True


@pytest.mark.parametrize("tokens", [[0, 1201], [0, -1], [5000]])
def test_kgw_zscore_rejects_out_of_range_ids(tokens):
    with pytest.raises(ValueError, match="tokens"):
        kgw_zscore(tokens, 1, 1201)


def test_split_public_takes_one_version_per_item_and_keeps_the_rest_in_order():
    versions = np.arange(3 * 4 * 2).reshape(3, 4, 2)  # 3 versions of 4 items of length 2
    public, private = split_public(versions, [0, 1, 2, 1])
    np.testing.assert_array_equal(public, versions[[0, 1, 2, 1], np.arange(4)])
    assert private.shape == (2, 4, 2)
    np.testing.assert_array_equal(private[:, 0], versions[[1, 2], 0])
    np.testing.assert_array_equal(private[:, 2], versions[[0, 1], 2])
    pub0, priv0 = split_public(versions, np.zeros(4, dtype=int))
    np.testing.assert_array_equal(pub0, versions[0])
    np.testing.assert_array_equal(priv0, versions[1:])


def test_official_winsorising_clips_each_private_version_separately():
    rng = np.random.default_rng(2)
    pub = rng.normal(10, 1, 200)
    priv = rng.normal(10, 1, (200, 8))
    priv[0, 3] = 1e3  # one outlier in one private version
    p, _ = stamp_test(pub, priv, clip_frac=0.025)
    from scipy.stats import mstats

    clipped = np.stack([np.asarray(mstats.winsorize(c, (0.025, 0.025))) for c in priv.T], 1)
    ref = stats.ttest_rel(
        np.asarray(mstats.winsorize(pub, (0.025, 0.025))), clipped.mean(1), alternative="less"
    )
    assert p == ref.pvalue
    assert clipped.max() < 20  # the outlier is gone before the mean


def test_effect_size_is_the_mean_paired_difference_with_a_t_interval():
    rng = np.random.default_rng(5)
    pub = rng.normal(10, 1, 50)
    priv = rng.normal(11, 1, (50, 4))
    mean, lo, hi = effect_size(pub, priv)
    d = pub - priv.mean(1)
    assert mean == pytest.approx(d.mean())
    ci = stats.t.interval(0.95, 49, loc=d.mean(), scale=stats.sem(d))
    assert (lo, hi) == pytest.approx(ci)


def test_baseline_scores_known_answers():
    from icml25.stamp import fpr_at_tpr, min_k_prob, perplexity_score, zlib_ratio

    lp = np.log(np.array([[0.5, 0.25, 0.125, 1.0, 1.0]]))
    assert perplexity_score(lp)[0] == pytest.approx(np.exp(-lp.mean()))
    assert min_k_prob(lp, k=0.4)[0] == pytest.approx(-(np.log(0.125) + np.log(0.25)) / 2)
    assert min_k_prob(lp, k=0.01)[0] == pytest.approx(-np.log(0.125))  # at least one token
    seq = np.array([[1, 2, 3, 4, 5]])
    size = len(__import__("zlib").compress(b"1 2 3 4 5"))
    assert zlib_ratio(lp, seq)[0] == pytest.approx(-lp.mean() / size)
    assert fpr_at_tpr(np.arange(10.0), np.arange(10.0) + 100) == 0.0
    assert fpr_at_tpr(np.arange(10.0), np.arange(10.0)) == 0.5


def test_token_logprobs_match_sequence_perplexity():
    from icml25.common.lm import build_causal_lm, sequence_perplexity
    from icml25.stamp import token_logprobs

    model = build_causal_lm(20, n_positions=8, n_layer=1, n_embd=16, n_head=2, seed=0)
    x = np.random.default_rng(0).integers(1, 20, (5, 6))
    lp = token_logprobs(model, x, batch_size=2)
    assert lp.shape == (5, 6) and (lp <= 0).all()
    np.testing.assert_allclose(np.exp(-lp.mean(1)), sequence_perplexity(model, x), rtol=1e-5)


def test_winsorising_sets_each_tail_to_the_last_kept_value():
    """clip_frac = 0.025 of n = 80 clips 2 values per tail to the 3rd smallest / 3rd largest.

    This is one rank further in than the official ``remove_outliers(..., "clip")``, which sets
    them to the innermost *removed* value (the 2nd smallest / 2nd largest).
    """
    rng = np.random.default_rng(3)
    pub = rng.permutation(np.arange(80.0))
    priv = np.repeat(rng.permutation(np.arange(80.0))[:, None] + 0.5, 2, axis=1)
    by_hand = {}
    for name, x in [("pub", pub), ("priv", priv[:, 0])]:
        y = x.copy()
        y[x < 2] = 2.0 + (name == "priv") * 0.5  # the two smallest take the 3rd smallest
        y[x > 77.5] = 77.0 + (name == "priv") * 0.5  # the two largest take the 3rd largest
        by_hand[name] = y
    assert np.sum(by_hand["pub"] == 2.0) == 3 and np.sum(by_hand["pub"] == 77.0) == 3
    ref = stats.ttest_rel(by_hand["pub"], by_hand["priv"], alternative="less")
    p, t = stamp_test(pub, priv, clip_frac=0.025)
    assert p == pytest.approx(ref.pvalue) and t == pytest.approx(ref.statistic)
