"""Unit tests of icml25.stamp: the paired test, the KGW watermark, the count model."""

import numpy as np
import pytest
from scipy import stats

from icml25.stamp import (
    BigramLM,
    kgw_green_mask,
    kgw_zscore,
    make_background,
    make_items,
    make_synonym_grammar,
    make_versions,
    sample_templates,
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
