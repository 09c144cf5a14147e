"""Known answers of icml25.axiomatic_mi: the brief's four, the token layout, the checkpoint."""

import numpy as np
import pytest
import torch
from scipy import stats
from statsmodels.stats.proportion import proportion_confint

from icml25 import axiomatic_mi as ami

N = 2000


@pytest.fixture(scope="module")
def formulas():
    return ami.generate_2cnf(N, seed=3)


def test_layout_and_balance(formulas):
    tokens, labels, tt = formulas
    assert tokens.shape == (N, 41) and tokens.dtype == np.int64
    assert labels.sum() == N // 2 and tt.shape == (N, 32) and tt.dtype == bool
    assert (tokens[:, 0:40:4] == 10).all() and (tokens[:, 3:40:4] == 11).all()
    assert (tokens[:, -1] == 12).all()
    var = tokens[:, 1:40:4] % 5, tokens[:, 2:40:4] % 5
    assert (var[0] < var[1]).all()  # two distinct variables, increasing
    assert (labels == tt.any(1)).all()


def test_decoded_tokens_give_the_truth_table(formulas):
    tokens, _, tt = formulas
    ids = ami.clause_ids(tokens)
    assert (ami.truth_tables(ids) == tt).all()
    # brute force, one formula: x_v = (a >> v) & 1, literal n+v is ¬x_v
    f = tokens[0]
    for a in range(32):
        x = [(a >> v) & 1 for v in range(5)]
        val = lambda lit, x=x: x[lit] if lit < 5 else 1 - x[lit - 5]  # noqa: E731
        sat = all(val(f[4 * i + 1]) or val(f[4 * i + 2]) for i in range(10))
        assert sat == tt[0, a]


def test_labels_agree_with_both_oracles():
    tokens, labels, _ = ami.generate_2cnf(1000, balance=False, seed=4)
    assert (ami.sat_oracle(tokens, method="pysat") == labels.astype(bool)).all()
    assert (ami.sat_oracle(tokens, method="scc") == labels.astype(bool)).all()


def test_unbalanced_sat_rate():
    _, labels, _ = ami.generate_2cnf(20_000, balance=False, seed=5)
    assert abs(labels.mean() - 0.74) < 0.015


def test_clopper_pearson_matches_statsmodels_and_is_monotone():
    n = 500
    bounds = [ami.clopper_pearson_upper(k, n) for k in range(0, n + 1, 25)]
    for k, b in zip(range(0, n + 1, 25), bounds, strict=True):
        assert b == pytest.approx(proportion_confint(k, n, alpha=0.10, method="beta")[1], abs=1e-12)
    assert np.all(np.diff(bounds) > 0)
    assert ami.clopper_pearson_upper(0, 10_000) == pytest.approx(
        1 - 0.05 ** (1 / 10_000), abs=1e-12
    )


def test_exact_interpretation_has_no_failures(formulas):
    tokens, labels, _ = formulas
    model = ami.compiled_2sat_model()
    assert (model(tokens) == labels.astype(bool)).all()
    df = ami.axiom_epsilons(ami.compiled_interpretation(model), tokens)
    assert list(df.index) == ["parse", "hidden", "output"]
    counts = df.filter(like="k_").to_numpy()
    assert np.nansum(counts) == 0 and np.isnan(counts[-1, 2:]).all()
    eps = 1 - 0.05 ** (1 / N)
    assert np.allclose(df["eps_prefix_equiv"], eps, atol=1e-12)
    assert eps == pytest.approx(stats.beta.ppf(0.95, 1, N), abs=1e-12)


def test_dropping_assignments_counts_formulas_satisfiable_only_under_them(formulas):
    tokens, _, tt = formulas
    drop = [0, 7, 31, 12]
    keep = np.setdiff1d(np.arange(32), drop)
    only_dropped = int((tt[:, drop].any(1) & ~tt[:, keep].any(1)).sum())
    assert only_dropped > 0
    df = ami.axiom_epsilons(
        ami.compiled_interpretation(ami.compiled_2sat_model(), drop=drop), tokens
    )
    assert df.loc["hidden", "k_prefix_replace"] == only_dropped
    assert df.loc["hidden", "k_component_replace"] == only_dropped
    assert df.loc["hidden", "k_prefix_equiv"] == int(tt[:, drop].any(1).sum())
    assert df.loc["parse", "k_prefix_equiv"] == 0


def test_pruning_and_and_for_or(formulas):
    tokens, _, tt = formulas
    pruned = ami.compiled_2sat_model(prune=[3, 9])
    df = ami.axiom_epsilons(ami.compiled_interpretation(pruned), tokens)
    assert df.loc["hidden", "k_component_equiv"] == int(tt[:, [3, 9]].any(1).sum())
    df = ami.axiom_epsilons(
        ami.compiled_interpretation(ami.compiled_2sat_model(), combine="and"), tokens
    )
    assert df.loc["output", "k_component_equiv"] == int((tt.any(1) != tt.all(1)).sum())
    assert df.loc["hidden", "k_component_equiv"] == 0


def test_allowable_deviation_tolerates_differing_components(formulas):
    tokens, _, tt = formulas
    interp = ami.compiled_interpretation(ami.compiled_2sat_model(), drop=[1, 2])
    counts = [
        ami.axiom_epsilons(interp, tokens, allowable_deviation=d).loc["hidden", "k_prefix_equiv"]
        for d in (0, 1, 2)
    ]
    assert counts[0] == int(tt[:, [1, 2]].any(1).sum())
    assert counts[1] == int(tt[:, [1, 2]].all(1).sum()) and counts[2] == 0


def test_noise_raises_failures(formulas):
    tokens = formulas[0]
    k = [
        ami.axiom_epsilons(
            ami.compiled_interpretation(ami.compiled_2sat_model(noise=s, seed=1)), tokens
        ).loc["hidden", "k_component_equiv"]
        for s in (0.0, 0.05, 0.2)
    ]
    assert k[0] == 0 < k[1] < k[2]


def test_transformer_shapes_and_cache():
    model = ami.TinyTransformer(d_model=16, heads=(1, 2), d_mlp=32, seed=0)
    tokens, _, _ = ami.generate_2cnf(6, seed=0)
    logits, cache = model.run_with_cache(tokens)
    assert logits.shape == (6, 41, 16)
    assert cache["pattern.1"].shape == (6, 2, 41, 41) and cache["hidden.0"].shape == (6, 41, 32)
    assert torch.allclose(model.last_logits(tokens), logits[:, -1], atol=1e-5)
    assert torch.allclose(cache["pattern.0"].sum(-1), torch.ones(6, 1, 41))
    assert torch.all(cache["pattern.0"][0, 0].triu(1) == 0)  # causal
    assert model.predict_sat(tokens).shape == (6,)


def test_training_lowers_the_loss():
    torch.manual_seed(0)
    model = ami.TinyTransformer(n_vars=3, n_clauses=6, d_model=16, heads=(1, 2), d_mlp=32)
    tokens, labels, _ = ami.generate_2cnf(256, n_vars=3, n_clauses=6, seed=0)
    losses = ami.train_2sat(model, tokens, labels, epochs=30, batch_size=64, lr=3e-3, warmup=2)
    assert losses[-1] < 0.8 * losses[1]


def test_from_sat_mi_round_trip():
    model = ami.TinyTransformer(d_model=16, heads=(1, 4), d_mlp=32, seed=1)
    sd = {
        "embed.W_E": model.embed.weight.T,
        "pos_embed.W_pos": model.pos,
        "unembed.W_U": model.unembed.weight.T,
    }
    for i, b in enumerate(model.blocks):
        for n in "qkv":
            sd[f"blocks.{i}.attn.W_{n.upper()}"] = getattr(b, n).weight.reshape(b.heads, -1, 16)
        sd[f"blocks.{i}.attn.W_O"] = b.o.weight
        sd[f"blocks.{i}.mlp.W_in"], sd[f"blocks.{i}.mlp.b_in"] = b.mlp_in.weight, b.mlp_in.bias
        sd[f"blocks.{i}.mlp.W_out"], sd[f"blocks.{i}.mlp.b_out"] = b.mlp_out.weight, b.mlp_out.bias
    copy = ami.TinyTransformer.from_sat_mi({k: v.detach() for k, v in sd.items()})
    tokens, _, _ = ami.generate_2cnf(4, seed=0)
    assert torch.allclose(copy(tokens), model(tokens), atol=1e-6)
    assert (copy.n_vars, copy.n_clauses) == (5, 10)
    with pytest.raises(ValueError, match="n_vars"):
        ami.TinyTransformer.from_sat_mi({k: v.detach() for k, v in sd.items()}, n_vars=4)


def test_load_checkpoint_rejects_a_non_dict(tmp_path):
    torch.save(torch.zeros(3), tmp_path / "x.pth")
    with pytest.raises(ValueError, match="path"):
        ami.load_checkpoint(tmp_path / "x.pth")


def test_gamma2_residual_options_and_batched_t1():
    torch.set_num_threads(1)
    model = ami.load_checkpoint()
    fit, _, _ = ami.generate_2cnf(600, seed=7)
    test, _, _ = ami.generate_2cnf(400, seed=8)
    from icml25.axiomatic_mi import mechanism

    full = mechanism._t1(model, test)
    old, mechanism.BATCH = mechanism.BATCH, 64
    try:
        assert torch.allclose(mechanism._t1(model, test), full, atol=1e-5)
    finally:
        mechanism.BATCH = old
    for residual, rule in (("resid_mid", "trees"), ("attention", "disjunction")):
        interp = ami.transformer_interpretation(model, fit, residual=residual, neuron_rule=rule)
        eps = ami.axiom_epsilons(interp, test).loc["hidden", "eps_component_replace"]
        assert 0 <= eps <= 1


def test_checkpoint_accuracy_and_mechanism():
    torch.set_num_threads(1)
    model = ami.load_checkpoint()
    tokens, labels, _ = ami.generate_2cnf(2000, seed=6)
    assert (model.predict_sat(tokens) == labels.astype(bool)).mean() >= 0.99
    assert int((ami.sat_coefficients(model) >= 2.9).sum()) == 34


def test_fit_neuron_trees_recovers_a_planted_rule():
    rng = np.random.default_rng(0)
    tt = rng.random((500, 32)) < 0.3
    act = np.stack([(tt[:, 3] | tt[:, 5]).astype(float), tt[:, 7] * 2.0], axis=1)
    trees = ami.fit_neuron_trees(tt, act)
    assert len(trees) == 2
    assert (trees[0].predict(tt) == (tt[:, 3] | tt[:, 5])).all()
    assert (trees[1].predict(tt) == tt[:, 7]).all()


def test_balance_that_cannot_be_met_is_an_error():
    with pytest.raises(ValueError, match="balance"):
        ami.generate_2cnf(10, n_vars=3, n_clauses=1)
