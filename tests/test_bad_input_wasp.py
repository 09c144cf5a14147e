"""Bad-input suite of icml25.wasp (see badinput.py), and the package's own coverage check."""

import math

import numpy as np
from badinput import (
    NOT_NUMBERS,
    Spec,
    bad_array,
    bad_choice,
    bad_index_array,
    bad_input_test,
    bad_int,
    bad_positive,
    bad_real,
    bad_seed,
    good_input_test,
    not_a,
    valid_input_test,
)
from hypothesis import strategies as st

from icml25 import wasp

P = "icml25.wasp"
SPLIT = wasp.style_digits(0)
GENS = wasp.make_generators(SPLIT)
EMBED = wasp.public_embedding(SPLIT.X_pub)
XP, YP = SPLIT.X_priv[:30], SPLIT.y_priv[:30]
XT, YT = SPLIT.X_test[:50], SPLIT.y_test[:50]
POOL = wasp.run_zerogen(GENS, 3, 10, seed=0)
EP, ES = EMBED(XP), EMBED(POOL.X)
VOTES = np.array([1.0, 2.0, 0.5])
OWNER = np.array([0, 1, 1])
CANDS = np.random.default_rng(0).random((6, 4))
G = wasp.fit_generator(SPLIT.X_pub, SPLIT.y_pub)
EC, YC = EMBED(SPLIT.X_priv[:100]), SPLIT.y_priv[:100]  # >= 2 rows of every class
# a pool without any sample of drop=0's class: removing that private sample moves no vote
SYN_Y_GAP = np.where(POOL.y == YP[0], (YP[0] + 1) % 10, POOL.y)
AUDIT = wasp.audit_round(EP, YP, ES, POOL.y, 0, 8, 1.0, 50, np.random.default_rng(0))

BAD_EPS = st.one_of(
    st.sampled_from([math.nan, -math.inf, 0.0, -1.0, -1e-9]),
    NOT_NUMBERS,
    st.sampled_from([True, False]),
)
BAD_FLAG = st.sampled_from([1, 0, "yes", None, np.bool_(True)])
BAD_GENS = st.sampled_from([[], [object()], "G0", None, 3, [GENS[0], "x"]])
BAD_DELTA = bad_real(0.0, 1.0, low_open=True, high_open=True)

RUN_COMMON = {"generators": GENS, "X_priv": XP, "y_priv": YP, "eps": 4.0, "delta": 1e-5}
RUN_BAD = {
    "generators": BAD_GENS,
    "X_priv": bad_array(XP),
    "y_priv": st.one_of(
        bad_index_array(YP, None),
        st.just(YP[:10]),
        st.just(np.zeros(30, int)),
        st.just(np.where(YP == 1, 0, YP)),  # a gap: no 1s among labels 0..9
    ),
    "eps": BAD_EPS,
    "delta": BAD_DELTA,
    "rounds": bad_int(1),
    "n_init": bad_int(1),
    "budget": bad_int(1),
    "n_exemplars": bad_int(1),
    "embed": not_a(none=False),
    "seed": bad_seed(),
}

ALL_SPECS: dict[str, Spec] = {
    f"{P}.style_digits": Spec(
        wasp.style_digits,
        {"seed": 0, "shift": 1.0},
        {"seed": bad_seed(), "shift": bad_real(-4.0, 4.0)},
        finite=True,
    ),
    f"{P}.shift_images": Spec(
        wasp.shift_images,
        {"X": XP, "dx": 1.0},
        {"X": st.one_of(bad_array(XP), st.just(XP[:, :10])), "dx": bad_real(-8.0, 8.0)},
        finite=True,
    ),
    f"{P}.fit_generator": Spec(
        wasp.fit_generator,
        {"X": SPLIT.X_pub, "y": SPLIT.y_pub, "inflate": 1.0, "label_noise": 0.0, "var_scale": 0.3},
        {
            "X": bad_array(SPLIT.X_pub),
            "y": st.one_of(
                bad_index_array(SPLIT.y_pub, None),
                st.just(SPLIT.y_pub[:5]),
                st.just(np.zeros(797, int)),
            ),
            "inflate": bad_positive(),
            "label_noise": bad_real(0.0, 1.0),
            "var_scale": bad_real(0.0, 1.0, low_open=True),
        },
    ),
    f"{P}.WeakGenerator": Spec(
        wasp.WeakGenerator,
        {"mu": G.mu, "chol": G.chol, "label_noise": 0.0, "var_scale": 0.3},
        {
            "mu": bad_array(G.mu),
            "chol": st.one_of(bad_array(G.chol), st.just(G.chol[:, :3])),
            "label_noise": bad_real(0.0, 1.0),
            "var_scale": bad_real(0.0, 1.0, low_open=True),
        },
    ),
    f"{P}.WeakGenerator.zero_shot": Spec(
        wasp.WeakGenerator.zero_shot,
        lambda: {"self": G, "label": 0, "n": 3, "rng": np.random.default_rng(0)},
        {"label": bad_int(0, 9), "n": bad_int(1), "rng": not_a(0)},
        free=("self",),
        finite=True,
    ),
    f"{P}.WeakGenerator.vary": Spec(
        wasp.WeakGenerator.vary,
        lambda: {
            "self": G,
            "exemplars": XP[:4],
            "label": 0,
            "n": 3,
            "rng": np.random.default_rng(0),
        },
        {
            "exemplars": st.one_of(bad_array(XP[:4]), st.just(XP[:4, :5])),
            "label": bad_int(0, 9),
            "n": bad_int(1),
            "rng": not_a(0),
        },
        free=("self",),
        finite=True,
    ),
    f"{P}.make_generators": Spec(
        wasp.make_generators, {"split": SPLIT}, {"split": not_a(XP, {"X_pub": XP})}
    ),
    f"{P}.public_embedding": Spec(
        wasp.public_embedding,
        {"X_pub": SPLIT.X_pub, "dim": 16},
        {"X_pub": bad_array(SPLIT.X_pub), "dim": bad_int(1, 64)},
    ),
    f"{P}.top_q_votes": Spec(
        wasp.top_q_votes,
        {"priv_emb": EP, "priv_y": YP, "syn_emb": ES, "syn_y": POOL.y, "q": 8, "furthest": False},
        {
            "priv_emb": bad_array(EP),
            "priv_y": st.one_of(bad_index_array(YP, None), st.just(YP[:3])),
            "syn_emb": st.one_of(bad_array(ES), st.just(ES[:, :4])),
            "syn_y": st.one_of(bad_index_array(POOL.y, None), st.just(POOL.y[:3])),
            "q": bad_int(1),
        },
        free=("furthest",),
        finite=True,
    ),
    f"{P}.vote_sensitivity": Spec(
        wasp.vote_sensitivity,
        {"q": 8, "both_histograms": False},
        {"q": bad_int(1), "both_histograms": BAD_FLAG},
        good={"q": st.integers(1, 10_000)},
        finite=True,
    ),
    f"{P}.gaussian_sigma": Spec(
        wasp.gaussian_sigma,
        {"eps": 4.0, "delta": 1e-5, "rounds": 3, "sensitivity": 1.0, "accountant": "exact"},
        {
            "eps": BAD_EPS,
            "delta": BAD_DELTA,
            "rounds": bad_int(1),
            "sensitivity": bad_positive(),
            "accountant": bad_choice(("exact", "zcdp")),
        },
        good={"eps": st.floats(1e-3, 1e4), "rounds": st.integers(1, 1000)},
        finite=True,
    ),
    f"{P}.plm_weights": Spec(
        wasp.plm_weights,
        {"noisy_votes": VOTES, "owner": OWNER, "n_plm": 3},
        {
            "noisy_votes": st.one_of(bad_array(VOTES), st.just(VOTES[:2])),
            "owner": st.one_of(bad_index_array(OWNER, 3), st.just(OWNER[:2])),
            "n_plm": st.one_of(bad_int(1), st.just(1)),
        },
        finite=True,
    ),
    f"{P}.contrastive_filter": Spec(
        wasp.contrastive_filter,
        {"cands": CANDS, "good": CANDS[:2], "bad": CANDS[4:], "m": 2, "embed": None},
        {
            "cands": bad_array(CANDS),
            "good": st.one_of(bad_array(CANDS[:2]), st.just(CANDS[:2, :3])),
            "bad": st.one_of(bad_array(CANDS[4:]), st.just(CANDS[4:, :3])),
            "m": bad_int(1, 6),
            "embed": not_a(none=False),
        },
        finite=True,
    ),
    f"{P}.audit_round": Spec(
        wasp.audit_round,
        lambda: {
            "priv_emb": EP,
            "priv_y": YP,
            "syn_emb": ES,
            "syn_y": POOL.y,
            "drop": 0,
            "q": 8,
            "sigma": 1.0,
            "n_releases": 10,
            "rng": np.random.default_rng(0),
        },
        {
            "priv_emb": bad_array(EP),
            "priv_y": bad_index_array(YP, None),
            "syn_emb": bad_array(ES),
            "syn_y": st.one_of(bad_index_array(POOL.y, None), st.just(SYN_Y_GAP)),
            "drop": bad_int(0, 29),
            "q": bad_int(1),
            "sigma": bad_positive(),
            "n_releases": bad_int(1),
            "rng": not_a(0),
        },
        finite=True,
    ),
    f"{P}.empirical_epsilon": Spec(
        wasp.empirical_epsilon,
        {"audit": AUDIT, "delta": 1e-5, "alpha": 0.05},
        {
            "audit": not_a(EP),
            "delta": bad_real(0.0, 1.0, high_open=True),
            "alpha": bad_real(0.0, 1.0, low_open=True, high_open=True),
        },
        finite=True,
    ),
    f"{P}.run_wasp": Spec(
        wasp.run_wasp,
        {
            **RUN_COMMON,
            "rounds": 1,
            "q": 2,
            "n_init": 2,
            "budget": 20,
            "n_exemplars": 2,
            "oversample": 2,
            "furthest": True,
            "contrastive": True,
            "weighted": True,
            "embed": EMBED,
            "seed": 0,
        },
        {
            **RUN_BAD,
            "q": bad_int(1),
            "oversample": bad_int(1),
            "furthest": st.one_of(BAD_FLAG, st.just(False)),  # False: contrastive needs it
            "contrastive": BAD_FLAG,
            "weighted": BAD_FLAG,
        },
        finite=True,
    ),
    f"{P}.run_aug_pe": Spec(
        wasp.run_aug_pe,
        {
            **RUN_COMMON,
            "rounds": 1,
            "n_init": 2,
            "budget": 20,
            "n_exemplars": 2,
            "embed": None,
            "seed": 0,
        },
        RUN_BAD,
        finite=True,
    ),
    f"{P}.run_zerogen": Spec(
        wasp.run_zerogen,
        {"generators": GENS, "n_per_class": 2, "n_classes": 10, "seed": 0},
        {
            "generators": BAD_GENS,
            "n_per_class": bad_int(1),
            "n_classes": bad_int(2),
            "seed": bad_seed(),
        },
        finite=True,
    ),
    f"{P}.downstream_accuracy": Spec(
        wasp.downstream_accuracy,
        {"X": XP, "y": YP, "X_test": XT, "y_test": YT, "sample_weight": None},
        {
            "X": bad_array(XP),
            "y": st.one_of(bad_index_array(YP, None), st.just(YP[:5]), st.just(0 * YP)),
            "X_test": st.one_of(bad_array(XT), st.just(XT[:, :5])),
            "y_test": st.one_of(bad_index_array(YT, None), st.just(YT[:5])),
            "sample_weight": st.one_of(
                bad_array(np.ones(30), none=False), st.just(-np.ones(30)), st.just(np.ones(4))
            ),
        },
        finite=True,
    ),
    f"{P}.dp_sgd_accuracy": Spec(
        wasp.dp_sgd_accuracy,
        {
            "X_priv": XP,
            "y_priv": YP,
            "X_test": XT,
            "y_test": YT,
            "eps": math.inf,
            "delta": 1e-5,
            "seed": 0,
        },
        {
            "X_priv": bad_array(XP),
            "y_priv": st.one_of(bad_index_array(YP, None), st.just(YP[:5])),
            "X_test": st.one_of(bad_array(XT), st.just(XT[:, :5])),
            "y_test": st.one_of(bad_index_array(YT, None), st.just(YT[:5])),
            "eps": BAD_EPS,
            "delta": BAD_DELTA,
            "seed": bad_seed(),
        },
        finite=True,
    ),
    f"{P}.frechet_distance": Spec(
        wasp.frechet_distance,
        {"A": EP, "B": ES},
        {
            "A": st.one_of(bad_array(EP), st.just(EP[:1])),
            "B": st.one_of(bad_array(ES), st.just(ES[:, :3]), st.just(ES[:1])),
        },
        finite=True,
    ),
    f"{P}.class_frechet_distance": Spec(
        wasp.class_frechet_distance,
        {"A": EC, "y_a": YC, "B": EC, "y_b": YC},
        {
            "A": bad_array(EC),
            "y_a": st.one_of(bad_index_array(YC, None), st.just(YC[:5]), st.just(YC + 20)),
            "B": st.one_of(bad_array(EC), st.just(EC[:, :3])),
            "y_b": st.one_of(bad_index_array(YC, None), st.just(YC[:5])),
        },
        finite=True,
    ),
    f"{P}.paired_ci": Spec(
        wasp.paired_ci,
        {"d": VOTES, "level": 0.95},
        {
            "d": st.one_of(bad_array(VOTES), st.just(VOTES[:1])),
            "level": bad_real(0.0, 1.0, low_open=True, high_open=True),
        },
        finite=True,
    ),
}
ALL_CONSTANTS = {f"{P}.GENERATOR_SPECS"}
ALL_RESULTS = {
    f"{P}.DigitsSplit": wasp.DigitsSplit,
    f"{P}.SynthResult": wasp.SynthResult,
    f"{P}.AuditResult": wasp.AuditResult,
}
SPECS = ALL_SPECS
CONSTANTS = ALL_CONSTANTS
RESULTS = ALL_RESULTS

test_bad_input_is_rejected = bad_input_test(ALL_SPECS)
test_valid_input_runs = valid_input_test(ALL_SPECS)
test_good_input_is_finite = good_input_test(ALL_SPECS)


def test_every_public_name_of_wasp_is_covered():
    """The coverage rule of tests/test_bad_input_coverage.py for this package, also while that
    file does not list it: every public name has a spec, or is a constant or a result record,
    and every argument of every spec has bad values or is free."""
    import inspect

    covered = set(ALL_SPECS) | ALL_CONSTANTS | set(ALL_RESULTS)
    public = {f"{P}.{name}" for name in wasp.__all__}
    assert public <= covered, sorted(public - covered)
    for key, spec in ALL_SPECS.items():
        params = set(inspect.signature(spec.fn).parameters)
        assert params == set(spec.bad) | set(spec.free), key
