"""Bad-input suite of icml25.spex and icml25.spex.text (see badinput.py)."""

from functools import cache

import numpy as np
from badinput import (
    Spec,
    bad_array,
    bad_choice,
    bad_index_array,
    bad_input_test,
    bad_int,
    bad_positive,
    bad_probability,
    bad_real,
    bad_seed,
    good_input_test,
    not_a,
    valid_input_test,
)
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from icml25 import spex
from icml25.spex import text

P = "icml25.spex"
N = 6
F_FN, F = spex.make_sparse_function(N, 3, 2, seed=0)
MASKS = np.array([[0, 1, 1, 0, 1, 0], [1, 1, 1, 1, 1, 1]], dtype=np.int8)
M = np.array([[1, 0, 1, 0, 1, 1], [0, 1, 1, 0, 0, 1]], dtype=np.int8)
D = spex.design_delays(N)
W = np.arange(N + 1.0)
BAD_MASKS = st.one_of(
    bad_index_array(MASKS, 2),
    st.just(MASKS * 2),
    st.just(MASKS[0]),
    st.just(MASKS[:, :5]),
)
BAD_COEFFS = st.sampled_from(
    [
        {(0,): np.nan},
        {(1,): np.inf},
        {(-1,): 1.0},
        {(2, 1): 1.0},
        {(1, 1): 1.0},
        {(1.0,): 1.0},
        {(1,): "a"},
        {1: 1.0},
        {tuple(range(21)): 1.0},
        [((0,), 1.0)],
        None,
    ]
)
BAD_SPECTRA = BAD_COEFFS.filter(lambda c: c != {tuple(range(21)): 1.0})  # any order is fine
BAD_COEFFS_N = st.one_of(BAD_COEFFS, st.just({(0, N): 1.0}))  # an input beyond the n inputs
BAD_FN = not_a(F)
REVIEWS_X, REVIEWS_Y = text.make_reviews(4, 8, n_sentiment=2, seed=0)
TOKENS = REVIEWS_X[0]


@cache
def _text_model():
    return text.TextCNN(d=2, channels=2).eval()


def _constant(masks):
    return np.ones(len(masks))


def _faith_kwargs() -> dict:
    """Valid arguments of faith_interactions, after importing shapiq (its cold import takes about
    a second, more on a loaded machine, and must not count against the bad-input time limit)."""
    import shapiq.approximator  # noqa: F401

    return {"value_fn": F_FN, "n": N, "budget": 40, "index": "FBII", "order": 2, "seed": 0}


def _nan(masks):
    return np.full(len(masks), np.nan)


SPECS: dict[str, Spec] = {
    f"{P}.fwht": Spec(
        spex.fwht,
        {"a": np.arange(8.0)},
        {"a": st.one_of(bad_array(np.arange(8.0), shape=False), st.just(np.ones(6)))},
        good={"a": arrays(float, 16, elements=st.floats(-1e100, 1e100))},
        finite=True,
    ),
    f"{P}.check_masks": Spec(
        spex.check_masks,
        {"masks": MASKS, "n": N, "name": "masks"},
        {"masks": BAD_MASKS, "n": st.one_of(bad_int(0), st.just(5))},
        free=("name",),
    ),
    f"{P}.fourier_eval": Spec(
        spex.fourier_eval,
        {"F": F, "masks": MASKS},
        {"F": BAD_COEFFS_N, "masks": BAD_MASKS},
        finite=True,
    ),
    f"{P}.mobius_eval": Spec(
        spex.mobius_eval,
        {"a": F, "masks": MASKS},
        {"a": BAD_COEFFS_N, "masks": BAD_MASKS},
        finite=True,
    ),
    f"{P}.make_sparse_function": Spec(
        spex.make_sparse_function,
        {"n": N, "s": 3, "max_order": 2, "basis": "mobius", "seed": 0},
        {
            "n": bad_int(1),
            "s": st.one_of(bad_int(1), st.just(10**6)),
            "max_order": bad_int(1, N),
            "basis": bad_choice(("fourier", "mobius")),
            "seed": bad_seed(),
        },
    ),
    f"{P}.design_delays": Spec(
        spex.design_delays,
        {"n": N, "delays": "identity", "t": 2},  # "bch" builds a code with galois: seconds
        {"n": bad_int(1), "delays": bad_choice(("identity", "bch")), "t": bad_int(1)},
    ),
    f"{P}.subsampled_transform": Spec(
        spex.subsampled_transform,
        {"value_fn": F_FN, "M": M, "D": D},
        {
            "value_fn": st.one_of(BAD_FN, st.just(_nan)),
            "M": st.one_of(BAD_MASKS, st.just(np.ones((21, N), np.int8))),
            "D": st.one_of(BAD_MASKS, st.just(D[:0])),
        },
        finite=True,
    ),
    f"{P}.spex": Spec(
        spex.spex,
        {
            "value_fn": F_FN,
            "n": N,
            "b": 2,
            "C": 2,
            "delays": "identity",
            "t": 2,
            "seed": 0,
            "refit": True,
            "tol": 1e-6,
            "noise_tol": 1e-3,
            "refit_support": "found+linear",
            "max_rounds": 100,
        },
        {
            "value_fn": st.one_of(BAD_FN, st.just(_nan)),
            "n": st.one_of(bad_int(1), st.just(5)),
            "b": bad_int(1, 20),
            "C": bad_int(1),
            "delays": bad_choice(("identity", "bch")),
            "t": bad_int(1),
            "seed": bad_seed(),
            "tol": bad_positive(),
            "noise_tol": bad_probability(low_open=True, high_open=True),
            "refit_support": bad_choice(("found", "found+linear")),
            "max_rounds": bad_int(1),
        },
        free=("refit",),
        finite=True,
    ),
    f"{P}.fourier_to_mobius": Spec(
        spex.fourier_to_mobius, {"F": F}, {"F": BAD_COEFFS}, finite=True
    ),
    f"{P}.to_index": Spec(
        spex.to_index,
        {"mobius": F, "index": "FBII", "order": 2},
        {
            "mobius": BAD_COEFFS,
            "index": bad_choice(("FBII", "SV", "BV", "STII", "FSII")),
            "order": bad_int(1),
        },
        good={"index": st.sampled_from(["FBII", "STII", "FSII"]), "order": st.integers(1, 6)},
        finite=True,
    ),
    f"{P}.linear_surrogate": Spec(
        spex.linear_surrogate,
        {"w": W},
        {"w": st.one_of(bad_array(W, shape=False), st.just(W[:1]), st.just(np.ones((2, 2))))},
    ),
    f"{P}.faithfulness_r2": Spec(
        spex.faithfulness_r2,
        {"value_fn": F_FN, "surrogate": F, "n": N, "n_masks": 20, "seed": 0},
        {
            "value_fn": st.one_of(BAD_FN, st.sampled_from([_constant, _nan])),
            "surrogate": st.one_of(not_a(), BAD_COEFFS_N, st.just(_nan)),
            "n": st.one_of(bad_int(1), st.just(5)),
            "n_masks": bad_int(2),
            "seed": bad_seed(),
        },
        good={"seed": st.integers(0, 2**64 - 1)},
        finite=True,
    ),
    f"{P}.marginal_baselines": Spec(
        spex.marginal_baselines,
        {"value_fn": F_FN, "n": N, "budget": 16, "seed": 0, "methods": ("LIME", "Banzhaf")},
        {
            "value_fn": st.one_of(BAD_FN, st.just(_nan)),
            "n": st.one_of(bad_int(1), st.just(5)),
            "budget": bad_int(N + 2),
            "seed": st.one_of(bad_seed(), st.just(2**32)),
            "methods": st.sampled_from(["LIME", (), ("lime",), (3,), None]),
        },
        finite=True,
    ),
    f"{P}.greedy_removal_order": Spec(
        spex.greedy_removal_order,
        {"surrogate": F_FN, "n": N, "r_max": 2},
        {"surrogate": BAD_FN, "n": st.one_of(bad_int(1), st.just(5)), "r_max": bad_int(1, N)},
    ),
    f"{P}.removal_drops": Spec(
        spex.removal_drops,
        {"value_fn": F_FN, "n": N, "order": [3, 1]},
        {
            "value_fn": BAD_FN,
            "n": st.one_of(bad_int(1), st.just(3)),
            "order": st.one_of(bad_index_array([3, 1], N), st.just([1, 1])),
        },
        finite=True,
    ),
    f"{P}.recovery_rate": Spec(
        spex.recovery_rate,
        {"ranked": [(0, 2), (4,)], "support": (2, 4), "r": 1},
        {
            "ranked": st.sampled_from([[[0, 2]], [(0, -1)], [(1, 1)], [(1.5,)], "ab", None]),
            "support": st.sampled_from([(), [2, 4], (2, 2), (-1,), None]),
            "r": bad_int(1),
        },
        finite=True,
    ),
    f"{P}.QueryCounter": Spec(spex.QueryCounter, {"value_fn": F_FN}, {"value_fn": BAD_FN}),
    f"{P}.QueryCache": Spec(spex.QueryCache, {"value_fn": F_FN}, {"value_fn": BAD_FN}),
    f"{P}.exact_recovery": Spec(
        spex.exact_recovery,
        {"found": F, "planted": F, "tol": 1e-8},
        {"found": BAD_SPECTRA, "planted": BAD_SPECTRA, "tol": bad_positive()},
    ),
    f"{P}.faith_interactions": Spec(
        spex.faith_interactions,
        _faith_kwargs,
        {
            "value_fn": st.one_of(BAD_FN, st.just(_nan)),
            "n": st.one_of(bad_int(2), st.just(5)),
            "budget": bad_int(N + 2),
            "index": bad_choice(("FBII", "FSII", "STII")),
            "order": bad_int(1, N),
            "seed": st.one_of(bad_seed(), st.just(2**32)),
        },
        finite=True,
    ),
    f"{P}.faith_banzhaf_ridge": Spec(
        spex.faith_banzhaf_ridge,
        {"value_fn": F_FN, "n": N, "budget": 40, "order": 2, "alphas": (0.1, 1.0), "seed": 0},
        {
            "value_fn": st.one_of(BAD_FN, st.just(_nan)),
            "n": st.one_of(bad_int(2), st.just(5)),
            "budget": bad_int(10),
            "order": bad_int(1, 2),
            "alphas": st.sampled_from([(), (0.0,), (-1.0,), (float("nan"),), "ab", None, {1: 2}]),
            "seed": st.one_of(bad_seed(), st.just(2**32)),
        },
        finite=True,
    ),
    f"{P}.index_size": Spec(
        spex.index_size, {"n": N, "order": 2}, {"n": bad_int(1), "order": bad_int(0, N)}
    ),
    f"{P}.input_ranking": Spec(
        spex.input_ranking,
        {"ranked": [(0, 2), (4,), (2, 5)]},
        {"ranked": st.sampled_from([[[0, 2]], [(0, -1)], [(1.5,)], "ab", None, {(1,): 1}])},
    ),
    # --- the text explicand
    f"{P}.text.word": Spec(text.word, {"token": 3}, {"token": bad_int(0, text.VOCAB - 1)}),
    f"{P}.text.make_reviews": Spec(
        text.make_reviews,
        {"n_reviews": 2, "length": 8, "n_sentiment": 2, "p_not": 0.4, "seed": 0},
        {
            "n_reviews": bad_int(1),
            "length": bad_int(4),
            "n_sentiment": st.one_of(bad_int(1), st.just(4)),
            "p_not": bad_probability(),
            "seed": bad_seed(),
        },
    ),
    f"{P}.text.TextCNN": Spec(
        text.TextCNN, {"d": 2, "channels": 2}, {"d": bad_int(1), "channels": bad_int(1)}
    ),
    f"{P}.text.AttentionClassifier": Spec(
        text.AttentionClassifier,
        {"d": 4, "heads": 2, "max_len": 8},
        {"d": st.one_of(bad_int(1), st.just(3)), "heads": bad_int(1), "max_len": bad_int(1)},
    ),
    f"{P}.text.train_text_model": Spec(
        text.train_text_model,
        {
            "X": REVIEWS_X,
            "y": REVIEWS_Y,
            "epochs": 1,
            "seed": 0,
            "lr": 1e-3,
            "mask_rate": 0.5,
            "arch": "cnn",
        },
        {
            "arch": bad_choice(("cnn", "attention")),
            "X": st.one_of(bad_index_array(REVIEWS_X, text.VOCAB), st.just(REVIEWS_X[0])),
            "y": st.one_of(bad_array(REVIEWS_Y), st.just(REVIEWS_Y + 2), st.just(REVIEWS_Y[:3])),
            "epochs": bad_int(1),
            "seed": bad_seed(),
            "lr": bad_positive(),
            "mask_rate": bad_probability(high_open=True),
        },
    ),
    f"{P}.text.masked_value_fn": Spec(
        text.masked_value_fn,
        lambda: {"model": _text_model(), "tokens": TOKENS, "batch_size": 4},
        {
            "model": not_a(),
            "tokens": st.one_of(bad_index_array(TOKENS, text.VOCAB), st.just(REVIEWS_X)),
            "batch_size": bad_int(1),
        },
    ),
    f"{P}.text.make_multihop_task": Spec(
        text.make_multihop_task,
        {
            "n": 8,
            "hops": 2,
            "seed": 0,
            "shortcut_effect": 1.5,
            "n_distractors": 2,
            "distractor_effect": 2.0,
        },
        {
            "n": bad_int(8),
            "hops": bad_int(2, 5),
            "seed": bad_seed(),
            "shortcut_effect": bad_real(),
            "n_distractors": bad_int(0, 5),
            "distractor_effect": bad_real(),
        },
    ),
}

CONSTANTS = {f"{P}.text.{name}" for name in ("MASK", "NOT", "VOCAB")}
RESULTS = {f"{P}.SpexResult": "returned by spex"}

test_bad_input_is_rejected = bad_input_test(SPECS)
test_valid_input_runs = valid_input_test(SPECS)
test_good_input_is_finite = good_input_test(SPECS)
