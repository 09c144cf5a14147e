"""The cases of issue #23, one regression test each (plain pytest): a named error, never a hang.

The hypothesis suite (tests/test_bad_input_*.py) generalises each case to its class.
"""

import math

import numpy as np
import pytest
import torch
from badinput import time_limit

from icml25 import common, rstib, spex, stamp, wam
from icml25 import concept_erasure as ce
from icml25 import privacy_variance as pv
from icml25 import sparse_pca as spca
from icml25 import two_stage_rct as rct
from icml25.common import training
from icml25.spex import text

NAN, INF = float("nan"), float("inf")


def raises(exc, name: str):
    """``pytest.raises(exc)`` whose message names ``name`` (a word of it)."""
    return pytest.raises(exc, match=rf"(?<![A-Za-z0-9_]){name}(?![A-Za-z0-9_])")


# --- hangs: each must fail at once


def test_time_call_with_infinite_min_time_fails_at_once():
    with time_limit(), raises(ValueError, "min_time"):
        common.time_call(lambda: None, min_time=INF)


def test_insertion_deletion_caps_steps_at_the_number_of_features():
    net = torch.nn.Sequential(torch.nn.Flatten(), torch.nn.Linear(64, 3))
    x = torch.rand(2, 1, 8, 8)
    attr = wam.wam(net, x, 1, level=2)
    with time_limit(), raises(ValueError, "steps"):
        wam.insertion_deletion(net, x, 1, attr, level=2, steps=10**6)


def test_fourier_to_mobius_refuses_to_enumerate_2_to_the_30_subsets():
    with time_limit(), raises(ValueError, "F"):
        spex.fourier_to_mobius({tuple(range(30)): 1.0})


# --- silent results


@pytest.mark.parametrize(
    ("kwargs", "name"),
    [({"delta": 1.5}, "delta"), ({"bound": "bogus"}, "bound"), ({"v": np.ones((2, 4))}, "v")],
)
def test_split_scores_validates_its_arguments(kwargs, name):
    args = {"u": np.ones((1, 4)), "v": np.ones((1, 4)), "s2": 20, "delta": 0.1, **kwargs}
    with raises(ValueError, name):
        rct.split_scores(**args)


def test_allocation_rejects_a_first_stage_beyond_the_budget():
    with raises(ValueError, "first_frac"):
        rct.allocation(5, 50, first_frac=1.5)
    per_arm, s2 = rct.allocation(5, 50, first_frac=0.3)
    assert (per_arm, s2) == (3, 35)


def test_hoeffding_certificate_needs_outcomes_in_0_1():
    with raises(ValueError, "samples"):
        rct.certificate(np.array([[0.5, 2.0], [0.0, 1.0]]), 0.1)
    rct.certificate(np.array([[0.5, 2.0], [0.0, 1.0]]), 0.1, bound="subgaussian")


def test_stamp_rejects_nan_delta_and_templates_outside_the_grammar():
    g = stamp.make_synonym_grammar(5, 3)
    with raises(ValueError, "delta"):
        stamp.watermarked_rephrase([0, 1], g, key=1, delta=NAN)
    with raises(ValueError, "delta"):
        stamp.make_items(g, 3, 2, delta=NAN, seed=0)
    with raises(ValueError, "template"):
        stamp.watermarked_rephrase([0, 5], g, key=1)  # group 5 of 0..4: a word beyond the vocab
    with raises(ValueError, "templates"):
        stamp.make_versions(np.array([[0, -1]]), g, [1])


def test_stamp_test_of_identical_versions_is_an_error_not_nan():
    ppl = np.array([5.0, 6.0, 7.0, 8.0])
    with raises(ValueError, "public_ppl"):
        stamp.stamp_test(ppl, np.stack([ppl, ppl], axis=1))


def test_spex_keeps_nan_coefficients_and_negative_inputs_out():
    with raises(ValueError, "F"):
        spex.fourier_to_mobius({(0,): NAN})
    with raises(ValueError, "F"):
        spex.fourier_to_mobius({(-1,): 1.0})
    with raises(ValueError, "mobius"):
        spex.to_index({(-2, 0): 1.0})


def test_masks_with_a_two_are_rejected():
    masks = np.array([[0, 1, 2]])
    with raises(ValueError, "masks"):
        spex.fourier_eval({(0,): 1.0}, masks)
    with raises(ValueError, "masks"):
        spex.mobius_eval({(0,): 1.0}, masks)
    with raises(ValueError, "masks"):
        spex.check_masks(masks, 3)


def test_threshold_column_of_all_zero_data_is_an_error():
    with raises(ValueError, "X"):
        spca.threshold_column(np.zeros((5, 4)), 2)
    with raises(ValueError, "X"):
        spca.two_stage(np.zeros((5, 4)), 2)


def test_concept_erasure_trainer_rejects_nan_data_and_hyperparameters():
    X = np.zeros((10, 64))
    y = np.arange(10)
    with raises(ValueError, "X"):
        ce.train_flow_matching(np.full((10, 64), NAN), y, steps=1)
    with raises(ValueError, "lr"):
        ce.train_flow_matching(X, y, steps=1, lr=NAN)
    with raises(ValueError, "p_uncond"):
        ce.train_flow_matching(X, y, steps=1, p_uncond=NAN)
    model = ce.VelocityMLP(hidden=4)
    with raises(ValueError, "beta_preserve"):
        ce.erase_concept(model, 3, beta_preserve=NAN)
    with raises(ValueError, "l0_weight"):
        ce.erase_concept(model, 3, l0_weight=INF)


def test_privacy_variance_trainer_rejects_nan_hyperparameters_and_bad_records():
    corpus = pv.make_corpus(n_records=64, reps=(1,), n_per_rep=2, n_controls=2, n_test=8)
    with raises(ValueError, "lr"):
        pv.train_dp(corpus, 8, 2, lr=NAN)
    with raises(ValueError, "momentum"):
        pv.train_dp(corpus, 8, 2, lr=0.1, momentum=NAN)
    with raises(ValueError, "sigma"):
        pv.train_dp(corpus, 8, 2, lr=0.1, sigma=INF)
    with raises(ValueError, "eps"):
        pv.calibrate_sigma(NAN, 1e-3, 8, 64, 5)
    bad = pv.Corpus(corpus.train.astype(float) * NAN, *list(vars(corpus).values())[1:])
    with raises(TypeError, "corpus"):
        pv.train_dp(bad, 8, 2, lr=0.1)


def test_wam_rejects_nan_inputs_fractional_targets_and_negative_noise():
    net = torch.nn.Sequential(torch.nn.Flatten(), torch.nn.Linear(64, 3))
    x = torch.rand(2, 1, 8, 8)
    with raises(ValueError, "x"):
        wam.wam(net, x * NAN, 1, level=2)
    with raises(TypeError, "target"):
        wam.wam(net, x, 1.5, level=2)
    with raises(TypeError, "target"):
        wam.wam(net, x, torch.tensor([0.5, 1.0]), level=2)
    with raises(ValueError, "noise"):
        wam.wam(net, x, 1, level=2, method="smooth", noise=-0.25)


# --- wrong exceptions


@pytest.mark.parametrize(
    ("build", "name"),
    [
        (lambda: rstib.STIDMLP(8, d=-1), "d"),
        (lambda: pv.ContextLM(16, d=-2), "d"),
        (lambda: text.TextCNN(channels=-1), "channels"),
        (lambda: training.SmallCNN(width=-1), "width"),
        (lambda: rstib.STGCNLite(4, np.ones((4, 4)), K=0), "K"),
        (lambda: rstib.RSTIBMLP(8, d=0), "d"),
        (lambda: rstib.RSTIBMLP(8, d=3), "d"),
    ],
)
def test_sizes_are_checked_before_torch_sees_them(build, name):
    with raises(ValueError, name):
        build()


def test_out_of_vocabulary_token_ids_are_named_errors():
    with raises(ValueError, "tokens"):
        stamp.kgw_zscore([1, 16], key=1, vocab_size=16)
    with raises(ValueError, "tokens"):
        stamp.kgw_zscore([1, -1], key=1, vocab_size=16)  # not wrapped around
    lm = stamp.BigramLM(16)
    with raises(ValueError, "sequences"):
        lm.fit(np.array([[1, 20]]))
    with raises(ValueError, "sequences"):
        lm.perplexity(np.array([[1, 20]]))
    model = pv.ContextLM(16)
    with raises(ValueError, "prefixes"):
        pv.exposure(model, np.array([10, 99]), np.zeros((1, 4), int))
    with raises(ValueError, "secrets"):
        pv.exposure(model, np.array([10, 11]), np.array([[1, 2, 3, 10]]))


def test_empty_windows_are_a_named_error_not_a_key_error():
    model = rstib.STIDMLP(8)
    with raises(ValueError, "windows"):
        rstib.train_forecaster(model, {}, 1)
    with raises(TypeError, "windows"):
        rstib.evaluate(model, None)


# --- a documented default, and names


def test_watermarked_rephrase_default_rng_is_a_seeded_generator():
    g = stamp.make_synonym_grammar(5, 3)
    words = stamp.watermarked_rephrase([0, 1, 2], g, key=1)
    assert words == stamp.watermarked_rephrase([0, 1, 2], g, 1, rng=np.random.default_rng(0))
    assert all(
        1 + 3 * grp <= w < 1 + 3 * (grp + 1) for grp, w in zip([0, 1, 2], words, strict=True)
    )


def test_make_items_names_n_items():
    g = stamp.make_synonym_grammar(5, 3)
    with raises(ValueError, "n_items"):
        stamp.make_items(g, n_items=0, n_private=2, delta=1.0, seed=0)


@pytest.mark.parametrize(
    "call",
    [
        lambda seed: stamp.sample_templates(stamp.make_synonym_grammar(5, 3), 2, seed=seed),
        lambda seed: spca.spiked_vector(5, 2, seed=seed),
        lambda seed: text.make_reviews(2, 8, n_sentiment=2, seed=seed),
        lambda seed: wam.make_click_audio(2, 64, seed=seed),
        lambda seed: rct.run_design(np.ones(3) / 2, 30, 0.5, 0.1, rng=seed),
    ],
)
@pytest.mark.parametrize("seed", [-1, 1.5, "0", 2**70])
def test_seeds_are_checked_before_numpy_sees_them(call, seed):
    with pytest.raises((TypeError, ValueError), match=r"\b(seed|rng)\b"):
        call(seed)


def test_spex_bch_order_is_at_most_n():
    with raises(ValueError, "t"):
        spex.design_delays(4, "bch", t=5)
    assert math.isfinite(spex.fwht(np.ones(4))[0])
