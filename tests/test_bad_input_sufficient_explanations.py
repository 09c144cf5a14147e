"""Bad-input suite of icml25.sufficient_explanations (see badinput.py)."""

import numpy as np
from badinput import (
    Spec,
    bad_array,
    bad_choice,
    bad_index_array,
    bad_input_test,
    bad_int,
    bad_positive,
    bad_seed,
    not_a,
    not_none,
    valid_input_test,
)
from hypothesis import strategies as st

from icml25 import sufficient_explanations as se

P = "icml25.sufficient_explanations"
RNG = np.random.default_rng(0)
SIZES = (16, 8, 8, 4)
WS = [RNG.normal(size=(b, a)) / np.sqrt(a) for a, b in zip(SIZES[:-1], SIZES[1:], strict=False)]
BS = [0.1 * RNG.normal(size=b) for b in SIZES[1:]]
NET = se.Net(WS, BS)
ABSTRACT = se.Net(WS, BS, [None, (-np.ones(8), np.ones(8)), None])
X = RNG.random(16)
LO, HI = se.input_box(X, [0, 1, 2, 3], 0.1)
XS, YS = se.planted_data(60, seed=0)
BAD_NET = not_a(WS, X)
BAD_X = st.one_of(
    bad_array(X),
    st.sampled_from([X[:-1], X + 2.0, X - 2.0, np.concatenate([X, X])]),
)
BAD_FREE = st.one_of(
    bad_index_array([0, 1, 2], 16),
    st.sampled_from([[0, 0], [1, 2, 1], np.array([[0, 1]]), "0,1", None, 3]),
)
BAD_EPS = bad_positive()
BAD_BOOL = st.sampled_from([None, 1, 0, "yes", 0.5])
BAD_DOMAIN = st.sampled_from([(1.0, 0.0), (0.5, 0.5), (0.0,), "01", None, (0.0, np.nan)])
BAD_TARGET = st.one_of(not_none(bad_int(0, 3)), st.sampled_from([4, -1, 1.0, "1"]))
BAD_BOX = st.one_of(bad_array(LO), st.sampled_from([LO[:-1], LO + 5.0]))
BAD_BOX_HI = st.one_of(bad_array(HI), st.sampled_from([HI[:-1], HI - 5.0]))
BAD_RATES = st.sampled_from(
    [
        (),
        (0.5,),
        (0.0, 1.0),
        (0.5, 0.2, 1.0),
        (0.5, 0.5, 1.0),
        (0.5, 1.2),
        "0.1",
        None,
        (0.5, "1"),
        (True, 1.0),
        (0.5, np.nan),
    ]
)

SPECS: dict[str, Spec] = {
    f"{P}.Net": Spec(
        se.Net,
        {"Ws": WS, "bs": BS, "ds": None},
        {
            "Ws": st.sampled_from(
                [[], None, "W", [WS[0], WS[2]], [w[:, :-1] for w in WS], [np.full((2, 2), np.nan)]]
            ),
            "bs": st.sampled_from(
                [BS[:-1], None, [b[:-1] for b in BS], "b", [np.full(8, np.inf), *BS[1:]]]
            ),
            "ds": st.sampled_from(
                [
                    [None],
                    "d",
                    [None, (np.ones(8), -np.ones(8)), None],
                    [None, (np.ones(3), np.ones(3)), None],
                    [None, 1, None],
                ]
            ),
        },
    ),
    f"{P}.Net.forward": Spec(
        se.Net.forward,
        {"self": NET, "X": XS[:3]},
        {"X": st.one_of(bad_array(XS[:3], shape=False), st.sampled_from([XS[:3, :-1], XS[None]]))},
        free=("self",),
        finite=True,
    ),
    f"{P}.train_mlp": Spec(
        se.train_mlp,
        {"X": XS, "y": YS, "hidden": (4,), "epochs": 1, "lr": 1e-3, "seed": 0},
        {
            "X": bad_array(XS),
            "y": st.sampled_from([YS[:-1], YS.astype(float), -YS - 1, np.zeros_like(YS), None]),
            "hidden": st.sampled_from([(), (0,), (4.5,), "4", None, (-1, 4)]),
            "epochs": bad_int(1, 10_000),
            "lr": bad_positive(),
            "seed": bad_seed(),
        },
    ),
    f"{P}.input_box": Spec(
        se.input_box,
        {"x": X, "free": [0, 1], "eps": 0.1, "domain": (0.0, 1.0)},
        {
            "x": st.one_of(bad_array(X), st.sampled_from([X + 2.0, X - 2.0])),
            "free": BAD_FREE,
            "eps": BAD_EPS,
            "domain": BAD_DOMAIN,
        },
        finite=True,
    ),
    f"{P}.ibp_bounds": Spec(
        se.ibp_bounds,
        {"net": NET, "lo": LO, "hi": HI},
        {"net": BAD_NET, "lo": BAD_BOX, "hi": BAD_BOX_HI},
        finite=True,
    ),
    f"{P}.crown_bounds": Spec(
        se.crown_bounds,
        {"net": ABSTRACT, "lo": LO, "hi": HI, "C": None, "lower_slope": "adaptive"},
        {
            "net": BAD_NET,
            "lo": BAD_BOX,
            "hi": BAD_BOX_HI,
            "C": st.one_of(bad_array(np.eye(4), none=False), st.just(np.eye(3))),
            "lower_slope": bad_choice(("adaptive", "parallel")),
        },
        finite=True,
    ),
    f"{P}.milp_bounds": Spec(
        se.milp_bounds,
        {"net": NET, "lo": LO, "hi": HI, "C": np.eye(4)[:1], "time_limit": 5.0, "big_m": "ibp"},
        {
            "net": BAD_NET,
            "lo": BAD_BOX,
            "hi": BAD_BOX_HI,
            "C": st.one_of(bad_array(np.eye(4), none=False), st.just(np.eye(5))),
            "time_limit": bad_positive(),
            "big_m": bad_choice(("crown", "ibp")),
        },
        finite=True,
    ),
    f"{P}.reduce_network": Spec(
        se.reduce_network,
        {"net": NET, "lo": LO, "hi": HI, "rate": 0.5, "bucket": "static", "interval_bias": True},
        {
            "net": BAD_NET,
            "lo": BAD_BOX,
            "hi": BAD_BOX_HI,
            "rate": st.sampled_from([0.0, -0.1, 1.5, np.nan, "0.5", None, True]),
            "bucket": bad_choice(("static", "dynamic")),
            "interval_bias": BAD_BOOL,
        },
    ),
    f"{P}.margin_net": Spec(
        se.margin_net, {"net": NET, "target": 1}, {"net": BAD_NET, "target": BAD_TARGET}
    ),
    f"{P}.is_sufficient": Spec(
        se.is_sufficient,
        {
            "net": NET,
            "x": X,
            "free": [0, 1],
            "eps": 0.1,
            "target": None,
            "verifier": "crown",
            "domain": (0.0, 1.0),
        },
        {
            "net": BAD_NET,
            "x": BAD_X,
            "free": BAD_FREE,
            "eps": BAD_EPS,
            "target": BAD_TARGET,
            "verifier": bad_choice(("crown", "ibp", "milp")),
            "domain": BAD_DOMAIN,
        },
    ),
    f"{P}.sensitivity": Spec(
        se.sensitivity,
        {"net": NET, "x": X, "of": "difference", "target": None},
        {
            "net": st.one_of(BAD_NET, st.just(ABSTRACT)),
            "x": st.one_of(bad_array(X), st.just(X[:-1])),
            "of": bad_choice(("difference", "logits")),
            "target": BAD_TARGET,
        },
        finite=True,
    ),
    f"{P}.minimal_explanation": Spec(
        se.minimal_explanation,
        {
            "net": NET,
            "x": X,
            "eps": 0.1,
            "method": "abstract_refine",
            "order": "sensitivity",
            "rates": (0.5, 1.0),
            "verifier": "crown",
            "counterexample": "fgsm",
            "domain": (0.0, 1.0),
            "seed": 0,
            "interval_bias": True,
        },
        {
            "net": st.one_of(BAD_NET, st.just(ABSTRACT)),
            "x": BAD_X,
            "eps": BAD_EPS,
            "method": bad_choice(("standard", "abstract_refine", "abstract_only")),
            "order": st.one_of(bad_choice(("sensitivity", "sensitivity_logits")), BAD_FREE),
            "rates": BAD_RATES,
            "verifier": bad_choice(("crown", "ibp", "milp")),
            "counterexample": st.sampled_from(["FGSM", "bogus", 1, "none"]),
            "domain": BAD_DOMAIN,
            "seed": bad_seed(),
            "interval_bias": BAD_BOOL,
        },
    ),
    f"{P}.falsify": Spec(
        se.falsify,
        {
            "net": NET,
            "x": X,
            "free": [0, 1],
            "eps": 0.1,
            "target": None,
            "n_random": 100,
            "pgd_steps": 3,
            "domain": (0.0, 1.0),
            "seed": 0,
        },
        {
            "net": st.one_of(BAD_NET, st.just(ABSTRACT)),
            "x": BAD_X,
            "free": BAD_FREE,
            "eps": BAD_EPS,
            "target": BAD_TARGET,
            "n_random": bad_int(0, 10_000_000),
            "pgd_steps": bad_int(0, 100_000),
            "domain": BAD_DOMAIN,
            "seed": bad_seed(),
        },
    ),
    f"{P}.digits_data": Spec(se.digits_data, {"seed": 0}, {"seed": bad_seed()}),
    f"{P}.planted_data": Spec(
        se.planted_data,
        {"n": 50, "n_features": 8, "n_relevant": 3, "seed": 0},
        {
            "n": bad_int(2, 10_000_000),
            "n_features": bad_int(2, 100_000),
            "n_relevant": st.one_of(bad_int(2, 8), st.just(9)),
            "seed": bad_seed(),
        },
        finite=True,
    ),
}
RESULTS = {f"{P}.Explanation": "returned by minimal_explanation"}

test_bad_input_is_rejected = bad_input_test(SPECS)
test_valid_input_runs = valid_input_test(SPECS)
