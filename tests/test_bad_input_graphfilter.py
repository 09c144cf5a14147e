"""Bad-input suite of icml25.graphfilter (see badinput.py), and the package's own coverage check."""

import numpy as np
from badinput import (
    Spec,
    bad_array,
    bad_choice,
    bad_input_test,
    bad_int,
    bad_positive,
    bad_probability,
    bad_seed,
    good_input_test,
    not_a,
    valid_input_test,
)
from hypothesis import strategies as st

from icml25 import graphfilter as gf

P = "icml25.graphfilter"
TEXTS = ["red apple pie", "green apple tart", "red cherry pie", "blue sky", "sky blue sea"]
PAIRS = [(t, f"reply about {t}") for t in TEXTS]
G = gf.build_graph(TEXTS, 2)
Q = np.ones(len(TEXTS))
IFD = np.array([0.8, 1.2, 1.0, 0.9, 1.5])
BAD_FLAG = st.sampled_from([1, 0, "yes", None, np.bool_(True)])
BAD_PAIRS = st.sampled_from([[], "ab", None, [("a",)], [("a", 1)], [["a", "b", "c"]], 3])
BAD_QUALITY = st.one_of(
    bad_array(Q),
    st.just(Q[:3]),
    st.just(-Q),
    st.just(np.array([1.0, -0.1, 1.0, 1.0, 1.0])),
)
BAD_SELECTED = st.sampled_from([[0, 0], [0, 5], [-1], [0.5], "0", None, [[0, 1]], [0, 9]])
BAD_TEXTS = st.sampled_from([[], "abc", None, [1, 2], ["a", None], ["", " "], ["a b", 3]])

ALL_SPECS: dict[str, Spec] = {
    f"{P}.load_pairs": Spec(
        gf.load_pairs,
        {"source": "chatterbot", "lang": "english"},
        {"source": bad_choice(["chatterbot"]), "lang": bad_choice(["english"])},
        run_valid=False,
    ),
    f"{P}.split_pairs": Spec(
        gf.split_pairs,
        {"pairs": PAIRS, "test_frac": 0.4, "seed": 0},
        {
            "pairs": BAD_PAIRS,
            "test_frac": st.one_of(bad_probability(True, True), st.just(0.01)),
            "seed": bad_seed(),
        },
    ),
    f"{P}.plant_noise": Spec(
        gf.plant_noise,
        {"pairs": PAIRS, "corrupt_frac": 0.25, "dup_frac": 0.2, "seed": 0},
        {
            "pairs": BAD_PAIRS,
            "corrupt_frac": bad_probability(),
            "dup_frac": bad_probability(),
            "seed": bad_seed(),
        },
    ),
    f"{P}.grow_pool": Spec(
        gf.grow_pool,
        {"pairs": PAIRS, "n": 8, "p": 0.2, "seed": 0},
        {
            "pairs": BAD_PAIRS,
            "n": bad_int(1),
            "p": bad_probability(True, True),
            "seed": bad_seed(),
        },
    ),
    f"{P}.build_graph": Spec(
        gf.build_graph,
        {"texts": TEXTS, "n_max": 2, "weighting": "tfidf"},
        {"texts": BAD_TEXTS, "n_max": bad_int(1), "weighting": bad_choice(["tfidf", "binary"])},
    ),
    f"{P}.graphfilter": Spec(
        gf.graphfilter,
        {"graph": G, "quality": Q, "k": 2, "combine": "mul", "update": True, "lazy": True},
        {
            "graph": not_a(TEXTS),
            "quality": BAD_QUALITY,
            "k": bad_int(1),
            "combine": bad_choice(["mul", "add"]),
            "update": BAD_FLAG,
            "lazy": BAD_FLAG,
        },
    ),
    f"{P}.select_baseline": Spec(
        gf.select_baseline,
        {"name": "kcenter", "k": 2, "graph": G, "quality": Q, "vectors": None, "seed": 0},
        {
            "name": bad_choice(gf.BASELINES),
            "k": bad_int(1),
            "graph": not_a(TEXTS, none=False),
            "quality": BAD_QUALITY,
            "vectors": st.one_of(bad_array(np.ones((5, 3)), none=False), st.just(np.ones((4, 3)))),
            "seed": bad_seed(),
        },
    ),
    f"{P}.ifd_scores": Spec(
        gf.ifd_scores,
        {"pairs": PAIRS, "lm": "ngram", "seed": 0},
        {"pairs": BAD_PAIRS, "lm": bad_choice(["ngram", "transformer"]), "seed": bad_seed()},
        finite=True,
    ),
    f"{P}.quality_from_ifd": Spec(
        gf.quality_from_ifd,
        {"ifd": IFD, "orientation": "inverse", "tau": 1.0},
        {
            "ifd": st.one_of(bad_array(IFD), st.just(-IFD), st.just(IFD * 0)),
            "orientation": bad_choice(["inverse", "paper", "superfilter"]),
            "tau": bad_positive(),
        },
        finite=True,
    ),
    f"{P}.evaluate_subset": Spec(
        gf.evaluate_subset,
        {"pairs": PAIRS, "selected": [0, 1, 2], "test_pairs": PAIRS, "encoder": "tfidf"},
        {
            "pairs": BAD_PAIRS,
            "selected": BAD_SELECTED,
            "test_pairs": BAD_PAIRS,
            "encoder": bad_choice(gf.ENCODERS),
        },
        finite=True,
    ),
    f"{P}.evaluate_sft": Spec(
        gf.evaluate_sft,
        {
            "selected_pairs": PAIRS,
            "test_pairs": PAIRS[:2],
            "steps": 2,
            "batch_size": 4,
            "lr": 3e-3,
            "n_layer": 1,
            "n_embd": 8,
            "max_instr": 8,
            "max_resp": 8,
            "seed": 0,
            "device": "cpu",
        },
        {
            "selected_pairs": BAD_PAIRS,
            "test_pairs": BAD_PAIRS,
            "steps": bad_int(1),
            "batch_size": bad_int(1),
            "lr": bad_positive(),
            "n_layer": bad_int(1),
            "n_embd": st.one_of(bad_int(4), st.just(6)),
            "max_instr": bad_int(1),
            "max_resp": bad_int(1),
            "seed": bad_seed(),
            "device": st.sampled_from([3, "not-a-device", ["cpu"], 1.5]),
        },
        finite=True,
    ),
    f"{P}.subset_stats": Spec(
        gf.subset_stats,
        {
            "pairs": PAIRS,
            "selected": [0, 1],
            "is_corrupt": np.zeros(5, bool),
            "dup_of": np.full(5, -1),
            "graph": G,
        },
        {
            "pairs": BAD_PAIRS,
            "selected": BAD_SELECTED,
            "is_corrupt": st.sampled_from([np.zeros(4, bool), np.zeros(5), None, "x"]),
            "dup_of": st.sampled_from([np.full(4, -1), np.full(5, -2), np.full(5, 5), None]),
            "graph": not_a(TEXTS, none=False),
        },
    ),
}
ALL_CONSTANTS = {f"{P}.BASELINES", f"{P}.ENCODERS"}
ALL_RESULTS = {f"{P}.BipartiteGraph": gf.BipartiteGraph}
SPECS = ALL_SPECS
CONSTANTS = ALL_CONSTANTS
RESULTS = ALL_RESULTS

test_bad_input_is_rejected = bad_input_test(ALL_SPECS)
test_valid_input_runs = valid_input_test(ALL_SPECS)
test_good_input_is_finite = good_input_test(ALL_SPECS)


def test_every_public_name_of_graphfilter_is_covered():
    """Every public name has a spec, or is a constant or a result record, and every argument of
    every spec has bad values or is free."""
    import inspect

    covered = set(ALL_SPECS) | ALL_CONSTANTS | set(ALL_RESULTS)
    public = {f"{P}.{name}" for name in gf.__all__}
    assert public <= covered, sorted(public - covered)
    for key, spec in ALL_SPECS.items():
        params = set(inspect.signature(spec.fn).parameters)
        assert params == set(spec.bad) | set(spec.free), key
