"""Bad-input suite of icml25.axiomatic_mi (see badinput.py).

| argument | bad values | error |
| --- | --- | --- |
| n_vars | outside 2..8, non-int | ValueError / TypeError naming n_vars |
| n_clauses | < 1, non-int | n_clauses |
| n | < 2 with balance (< 1 without) | n |
| tokens | wrong width, ids outside the vocabulary, floats, strings, no array | tokens |
| k | outside 0..n | k |
| confidence | outside (0, 1), NaN | confidence |
| allowable_deviation | < 0, non-int | allowable_deviation |
| drop / prune | outside 0..2^n - 1, non-int, no sequence | drop / prune |
| combine / method | unknown name | combine / method |
"""

import numpy as np
import torch
from badinput import (
    Spec,
    bad_array,
    bad_choice,
    bad_index_array,
    bad_input_test,
    bad_int,
    bad_positive,
    bad_real,
    bad_seed,
    not_a,
    valid_input_test,
)
from hypothesis import strategies as st

from icml25 import axiomatic_mi as ami

P = "icml25.axiomatic_mi"
TOK, LABELS, TT = ami.generate_2cnf(20, seed=0)
BAD_TOK = st.one_of(bad_index_array(TOK, high=16), st.just(TOK[:, :-1]), st.just(TOK[0]))
MODEL = ami.compiled_2sat_model()
INTERP = ami.compiled_interpretation(MODEL)
NET = ami.TinyTransformer(d_model=8, heads=(1, 2), d_mlp=8, seed=0)
BAD_ASSIGN = st.sampled_from(["ab", 3, None, [32], [-1], [1.5]])
IDS = ami.clause_ids(TOK)
ACT = np.random.default_rng(0).random((20, 3))


def _f(x):
    return x


SPECS: dict[str, Spec] = {
    f"{P}.generate_2cnf": Spec(
        ami.generate_2cnf,
        {"n": 4, "n_vars": 5, "n_clauses": 10, "balance": True, "seed": 0},
        {
            "n": bad_int(2),
            "n_vars": bad_int(2, 8),
            "n_clauses": bad_int(1),
            "balance": st.sampled_from([1, "yes", None]),
            "seed": bad_seed(),
        },
    ),
    f"{P}.sat_oracle": Spec(
        ami.sat_oracle,
        {"tokens": TOK[:3], "n_vars": 5, "method": "scc"},
        {"tokens": BAD_TOK, "n_vars": bad_int(2, 8), "method": bad_choice(("pysat", "scc"))},
    ),
    f"{P}.clause_ids": Spec(
        ami.clause_ids, {"tokens": TOK, "n_vars": 5}, {"tokens": BAD_TOK, "n_vars": bad_int(2, 8)}
    ),
    f"{P}.truth_tables": Spec(
        ami.truth_tables,
        {"ids": IDS, "n_vars": 5},
        {"ids": bad_index_array(IDS, high=100), "n_vars": bad_int(2, 8)},
    ),
    f"{P}.clause_truth": Spec(ami.clause_truth, {"n_vars": 3}, {"n_vars": bad_int(2, 8)}),
    f"{P}.vocab_size": Spec(ami.vocab_size, {"n_vars": 3}, {"n_vars": bad_int(2, 8)}),
    f"{P}.n_tokens": Spec(ami.n_tokens, {"n_clauses": 3}, {"n_clauses": bad_int(1)}),
    f"{P}.clopper_pearson_upper": Spec(
        ami.clopper_pearson_upper,
        {"k": 2, "n": 10, "confidence": 0.95},
        {
            "k": bad_int(0, 10),
            "n": bad_int(1),
            "confidence": bad_real(0.0, 1.0, low_open=True, high_open=True),
        },
        finite=True,
    ),
    f"{P}.Interpretation": Spec(
        ami.Interpretation,
        {"concrete": [_f], "abstract": [_f], "alphas": [_f, _f], "gammas": [], "names": ["a"]},
        {
            "concrete": st.sampled_from(["abc", None, [1], []]),
            "abstract": st.sampled_from(["abc", None, [1], [_f, _f]]),
            "alphas": st.sampled_from(["abc", None, [1, _f], [_f]]),
            "gammas": st.sampled_from(["abc", None, [_f]]),
            "names": st.sampled_from(["abc", None, [1], []]),
        },
    ),
    f"{P}.axiom_epsilons": Spec(
        ami.axiom_epsilons,
        {"interp": INTERP, "tokens": TOK, "confidence": 0.95, "allowable_deviation": 0},
        {
            "interp": not_a(MODEL),
            "tokens": st.one_of(BAD_TOK, st.just(TOK[:0])),
            "confidence": bad_real(0.0, 1.0, low_open=True, high_open=True),
            "allowable_deviation": bad_int(0),
        },
    ),
    f"{P}.compiled_2sat_model": Spec(
        ami.compiled_2sat_model,
        {"n_vars": 5, "n_clauses": 10, "noise": 0.1, "prune": (1,), "seed": 0},
        {
            "n_vars": bad_int(2, 8),
            "n_clauses": bad_int(1),
            "noise": bad_real(0.0),
            "prune": BAD_ASSIGN,
            "seed": bad_seed(),
        },
    ),
    f"{P}.compiled_interpretation": Spec(
        ami.compiled_interpretation,
        {"model": MODEL, "drop": (3,), "combine": "and"},
        {"model": not_a(NET), "drop": BAD_ASSIGN, "combine": bad_choice(("or", "and"))},
    ),
    f"{P}.LayeredModel.__call__": Spec(
        ami.LayeredModel.__call__, {"self": MODEL, "tokens": TOK}, {"tokens": BAD_TOK}, ("self",)
    ),
    f"{P}.TinyTransformer": Spec(
        ami.TinyTransformer,
        {"n_vars": 5, "n_clauses": 10, "d_model": 8, "heads": (1, 2), "d_mlp": 8, "seed": 0},
        {
            "n_vars": bad_int(2, 8),
            "n_clauses": bad_int(1),
            "d_model": bad_int(1),
            "heads": st.sampled_from(["ab", None, (), (3,), (0,), 2]),
            "d_mlp": bad_int(1),
            "seed": bad_seed(),
        },
    ),
    f"{P}.TinyTransformer.predict_sat": Spec(
        ami.TinyTransformer.predict_sat,
        {"self": NET, "tokens": TOK, "batch_size": 7},
        {"tokens": BAD_TOK, "batch_size": bad_int(1)},
        ("self",),
    ),
    f"{P}.TinyTransformer.run_with_cache": Spec(
        ami.TinyTransformer.run_with_cache,
        {"self": NET, "tokens": TOK},
        {"tokens": BAD_TOK},
        ("self",),
    ),
    f"{P}.train_2sat": Spec(
        ami.train_2sat,
        lambda: {
            "model": ami.TinyTransformer(d_model=8, heads=(1, 2), d_mlp=8, seed=0),
            "tokens": TOK[:8],
            "labels": LABELS[:8],
            "epochs": 1,
            "batch_size": 4,
            "lr": 1e-3,
            "weight_decay": 1.0,
            "warmup": 2,
            "seed": 0,
        },
        {
            "model": not_a(MODEL),
            "tokens": BAD_TOK,
            "labels": st.sampled_from([LABELS[:7], LABELS[:8] + 2, "abc", None]),
            "epochs": bad_int(1),
            "batch_size": bad_int(1),
            "lr": bad_positive(),
            "weight_decay": bad_real(0.0),
            "warmup": bad_int(0),
            "seed": bad_seed(),
        },
    ),
    f"{P}.load_checkpoint": Spec(
        ami.load_checkpoint,
        {"path": None},
        {"path": st.sampled_from([3, "/nonexistent/x.pth", object()])},
    ),
    f"{P}.transformer_interpretation": Spec(
        ami.transformer_interpretation,
        {
            "model": NET,
            "tokens": TOK,
            "evaluating": [0, 1],
            "high": "mean",
            "max_leaf_nodes": 4,
            "seed": 0,
            "residual": "attention",
            "neuron_rule": "disjunction",
        },
        {
            "model": not_a(MODEL),
            "tokens": BAD_TOK,
            "evaluating": st.sampled_from(["ab", 3, [-1], [10_000], [], [1.5]]),
            "high": st.one_of(bad_real(0.0), st.sampled_from(["max", "Mean"])),
            "max_leaf_nodes": bad_int(2),
            "seed": bad_seed(),
            "residual": st.sampled_from(["mid", "", 3, None]),
            "neuron_rule": st.sampled_from(["tree", "", 3, None]),
        },
    ),
    f"{P}.fit_neuron_trees": Spec(
        ami.fit_neuron_trees,
        {
            "truth_tables": TT,
            "activations": ACT,
            "threshold": 0.5,
            "max_leaf_nodes": 4,
            "random_state": 0,
        },
        {
            "truth_tables": st.sampled_from([TT * 2, TT[0], "abc", None]),
            "activations": st.one_of(bad_array(ACT), st.just(ACT[:5])),
            "threshold": bad_real(),
            "max_leaf_nodes": bad_int(2),
            "random_state": bad_seed(),
        },
    ),
    f"{P}.sat_coefficients": Spec(ami.sat_coefficients, {"model": NET}, {"model": not_a(MODEL)}),
    f"{P}.clause_means": Spec(
        ami.clause_means,
        {"model": NET, "tokens": TOK, "resid": None},
        {
            "model": not_a(MODEL),
            "tokens": BAD_TOK,
            "resid": st.sampled_from(["abc", 3, torch.zeros(2, 2)]),
        },
    ),
}

RESULTS = {f"{P}.LayeredModel": "returned by compiled_2sat_model"}

test_bad_input_is_rejected = bad_input_test(SPECS)
test_valid_input_runs = valid_input_test(SPECS)
