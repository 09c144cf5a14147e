# ---
# jupyter:
#   jupytext:
#     formats: ipynb,py:percent
#     text_representation:
#       extension: .py
#       format_name: percent
#       format_version: '1.3'
#       jupytext_version: 1.19.6
#   kernelspec:
#     display_name: Python 3 (ipykernel)
#     language: python
#     name: python3
# ---

# %% [markdown]
# # The four axioms on a solver whose mechanism we know
#
# Before trusting ε numbers for a learned transformer, this notebook runs the paper's axioms on a
# network whose mechanism is known exactly: a hand-compiled 2-SAT solver with the paper's
# decomposition (t_1 parses clauses, t_2 has one ReLU neuron per assignment, t_3 is an OR). It
# checks the data first (labels against two independent solvers), then shows that the exact
# interpretation has no failure at all (ε is then the Clopper-Pearson bound of 0 failures), that a
# *wrong* interpretation (assignments dropped from h_2, or AND in place of OR) is caught by
# exactly the axioms and layers it should be, and that ε grows as noise σ on t_2's weights
# makes the interpretation less true. At `small` scale it takes well under a minute on one CPU
# thread; set `os.environ["ICML25_SCALE"] = "large"` before the set-up cell for more formulas.

# %% tags=["remove-cell"]
# Colab only: clone the book and install its package. Keeps Colab's own torch and numpy.
import os
import subprocess
import sys

if "google.colab" in sys.modules:
    REPO = os.environ.get(
        "ICML25_REPO", "https://github.com/icml25-in-miniature/icml25-in-miniature"
    )
    subprocess.run(
        f"git clone --depth 1 {REPO} /content/icml25"
        " && pip install -q --no-deps -e /content/icml25 && pip install -q 'python-sat==1.9.dev24'",
        shell=True,
        check=True,
    )

# %%
import time

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from icml25.axiomatic_mi import (
    axiom_epsilons,
    clopper_pearson_upper,
    compiled_2sat_model,
    compiled_interpretation,
    generate_2cnf,
    sat_oracle,
)
from icml25.common import glue, plotting, setup
from icml25.common.claims import claim, greater, less, within

t_start = time.perf_counter()
SCALE = setup(seed=0)
CONFIG = {
    "small": {
        "n": 10_000,
        "n_oracle": 1_000,
        "seeds": [0, 1, 2],
        "sigmas": [0, 0.02, 0.05, 0.1, 0.2],
    },
    "large": {
        "n": 80_000,
        "n_oracle": 5_000,
        "seeds": [0, 1, 2, 3, 4],
        "sigmas": [0, 0.01, 0.02, 0.05, 0.1, 0.2, 0.3],
    },
}[SCALE]
print(SCALE, CONFIG)

# %% [markdown]
# ## The data and two independent oracles
#
# Formulas have 5 variables and 10 clauses; each clause draws two distinct variables (in
# increasing order) and a random polarity for each. The generator labels them by brute force over
# the 32 assignments (its truth table). MiniSat (python-sat) and the implication-graph SCC test
# (networkx) must agree on every label; without balancing about three formulas in four are
# satisfiable.

# %%
tok_raw, y_raw, _ = generate_2cnf(CONFIG["n_oracle"], balance=False, seed=100)
agree_pysat = float((sat_oracle(tok_raw, method="pysat") == y_raw.astype(bool)).mean())
agree_scc = float((sat_oracle(tok_raw, method="scc") == y_raw.astype(bool)).mean())
_, y_big, _ = generate_2cnf(CONFIG["n"], balance=False, seed=101)
sat_rate = float(y_big.mean())
print(
    f"agreement with MiniSat {agree_pysat:.4f}, with SCC {agree_scc:.4f}; SAT rate {sat_rate:.4f}"
)

# %% [markdown]
# ## The exact interpretation
#
# The balanced test set (half SAT) is what every ε below is computed on. With the exact
# interpretation every count is 0 and every ε equals $1 - 0.05^{1/n}$, the bound that zero
# failures in $n$ draws allow; replaceability of the output layer is undefined (no γ_3).

# %%
data = {s: generate_2cnf(CONFIG["n"], seed=s) for s in CONFIG["seeds"]}
tokens, labels, tt = data[CONFIG["seeds"][0]]
n = len(tokens)
exact = compiled_2sat_model()
assert (exact(tokens) == labels.astype(bool)).all()
table_exact = axiom_epsilons(compiled_interpretation(exact), tokens)
eps_zero = 1 - 0.05 ** (1 / n)
table_exact

# %% [markdown]
# ## Wrong interpretations are caught where they are wrong
#
# Dropping a set $S$ of assignments from h_2 (forcing "a satisfies the formula" to False for
# $a \in S$) breaks hidden-layer equivalence on every formula that some $a \in S$ satisfies, but
# breaks replaceability only on formulas that are satisfiable *only* under assignments in $S$:
# there the OR flips. Replacing the OR by an AND leaves the parse and the hidden layer intact and
# fails at the output on exactly the satisfiable formulas (the SAT half of the test set): ten
# clauses always rule out some assignment, so the AND of the 32 entries is never true, and on
# UNSAT formulas the AND's "false" agrees with the network.

# %%
S = [0, 5, 10, 15, 16, 21, 26, 31]  # 8 of the 32 assignments
keep = np.setdiff1d(np.arange(32), S)
only_S = int((tt[:, S].any(1) & ~tt[:, keep].any(1)).sum())
any_S = int(tt[:, S].any(1).sum())
table_drop = axiom_epsilons(compiled_interpretation(exact, drop=S), tokens)
table_and = axiom_epsilons(compiled_interpretation(exact, combine="and"), tokens)
print(f"formulas satisfiable only under S: {only_S}; satisfied by some a in S: {any_S}")
pd.concat({"drop S": table_drop, "AND for OR": table_and}).filter(like="k_")

# %% [markdown]
# Replaceability against the known answer over the three data seeds: the count must equal the
# number of formulas satisfiable only under $S$, exactly.

# %%
drop_gap, drop_equiv_gap = [], []
for s in CONFIG["seeds"]:
    tk, _, t_s = data[s]
    df = axiom_epsilons(compiled_interpretation(exact, drop=S), tk)
    expected = int((t_s[:, S].any(1) & ~t_s[:, keep].any(1)).sum())
    drop_gap.append(int(abs(df.loc["hidden", "k_component_replace"] - expected)))
    drop_equiv_gap.append(int(abs(df.loc["hidden", "k_component_equiv"] - expected)))
print("replaceability - known answer:", drop_gap, "; equivalence - same answer:", drop_equiv_gap)

# %% [markdown]
# ## ε against weight noise, right and wrong interpretation
#
# Noise $\sigma$ on t_2's weights and biases makes the neurons' activations drift away from 0 and
# 1: some cross the 1/2 threshold of α_2 (hidden-layer equivalence fails), and the OR in t_3,
# which sums 32 slightly positive activations, starts to call UNSAT formulas SAT (hidden-layer
# replaceability fails, because γ_2's clean 0/1 state does not reproduce the noisy output). The
# parse layer is untouched by this noise. Each point is the mean over the three data seeds, each
# with its own noise draw.

# %%
rows = []
for sigma in CONFIG["sigmas"]:
    for s in CONFIG["seeds"]:
        tk = data[s][0]
        model = compiled_2sat_model(noise=sigma, seed=s)
        for label, interp in (
            ("exact", compiled_interpretation(model)),
            ("drop S", compiled_interpretation(model, drop=S)),
        ):
            df = axiom_epsilons(interp, tk).reset_index()
            df["sigma"], df["seed"], df["interpretation"] = sigma, s, label
            rows.append(df)
sweep = pd.concat(rows, ignore_index=True)
eps_cols = [
    "eps_prefix_equiv",
    "eps_component_equiv",
    "eps_prefix_replace",
    "eps_component_replace",
]
mean_sweep = sweep.groupby(["interpretation", "layer", "sigma"])[eps_cols].mean()

# %%
fig, axes = plt.subplots(1, 2, figsize=plotting.figsize("wide"), sharey=True)
styles = {
    ("parse", "eps_prefix_equiv"): ("parse, equivalence", "C0", "-"),
    ("parse", "eps_prefix_replace"): ("parse, replaceability", "C0", "--"),
    ("hidden", "eps_component_equiv"): ("hidden, equivalence", "C1", "-"),
    ("hidden", "eps_component_replace"): ("hidden, replaceability", "C1", "--"),
    ("output", "eps_component_equiv"): ("output, equivalence", "C2", "-"),
}
for ax, label in zip(axes, ["exact", "drop S"], strict=True):
    for (layer, col), (name, color, ls) in styles.items():
        series = mean_sweep.loc[(label, layer), col]
        ax.plot(series.index, series.to_numpy(), marker="o", color=color, ls=ls, label=name)
    ax.axhline(eps_zero, color="grey", lw=0.8, ls=":", label="0 failures ($1-0.05^{1/n}$)")
    ax.set_yscale("log")
    ax.set_xlabel("noise σ on $t_2$'s weights and biases")
    ax.set_title(f"{label} interpretation")
axes[0].set_ylabel("ε (95 % upper bound on the failure rate)")
axes[1].legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.02, 1.0))
plotting.panel_labels(axes)
fig.suptitle("ε grows with the noise in the hidden layer and stays at its floor for the parse")
plt.show()
print("output-layer equivalence ε (exact interpretation) by σ:")
print(mean_sweep.loc[("exact", "output"), "eps_component_equiv"].round(4).to_dict())

# %% [markdown]
# **What to see.** (a) With the exact interpretation and no noise every ε sits on the dotted floor
# of zero failures; as σ grows the hidden layer's equivalence ε climbs by three orders of
# magnitude (from the floor, 3e-4, to about 0.46 at σ = 0.1) while the parse stays on the
# floor. (b) Dropping 8 of the 32 assignments lifts hidden-layer equivalence at σ = 0 already
# (to the share of formulas some dropped assignment satisfies) and replaceability to the
# smaller share satisfiable only under them. The output layer's component equivalence (the OR
# of α_2's Booleans against t_3) is where the OR's sensitivity to many small activations
# shows; its curve is not monotone in σ (printed below the figure): it peaks near σ = 0.05 and
# falls again by σ = 0.2, likely because at large noise both α_2's OR and t_3's sum call most
# formulas SAT, and so agree again (often on the wrong answer).

# %% [markdown]
# ## Inside t_2: why α_2 fails under noise
#
# The activations of all 32 neurons at σ = 0.1, split by whether the neuron's assignment satisfies
# the formula. α_2 reads "fires" at 1/2; the overlap of the two histograms across that line is
# hidden-layer equivalence's failure.

# %%
noisy = compiled_2sat_model(noise=0.1, seed=0)
hidden = noisy.layers[1](noisy.layers[0](tokens))
fig, ax = plt.subplots(figsize=plotting.figsize("single"))
bins = np.linspace(-0.05, 2.0, 60)
ax.hist(hidden[tt].ravel(), bins=bins, alpha=0.6, label="assignment satisfies the formula")
ax.hist(hidden[~tt].ravel(), bins=bins, alpha=0.6, label="assignment violates a clause")
ax.axvline(0.5, color="k", ls="--", lw=1, label=r"$\alpha_2$ threshold 1/2")
ax.set_yscale("log")
ax.set_xlabel("activation of the assignment's neuron (σ = 0.1)")
ax.set_ylabel("count (neuron × formula)")
ax.set_title(r"Noise spreads both groups across $\alpha_2$'s threshold")
ax.legend(fontsize=8)
plt.show()

# %% [markdown]
# ## ε against allowable deviation
#
# Equivalence of a vector-valued state can tolerate a few differing components. With $S$ dropped,
# a formula fails hidden-layer equivalence with tolerance $d$ when more than $d$ of the dropped
# assignments satisfy it; ε falls to the floor once $d$ reaches the most that any formula has.

# %%
devs = list(range(0, 9))
dev_counts = [
    int(
        axiom_epsilons(compiled_interpretation(exact, drop=S), tokens, allowable_deviation=d).loc[
            "hidden", "k_component_equiv"
        ]
    )
    for d in devs
]
expected_dev = [int((tt[:, S].sum(1) > d).sum()) for d in devs]
fig, ax = plt.subplots(figsize=plotting.figsize("single"))
ax.plot(devs, [clopper_pearson_upper(k, n) for k in dev_counts], marker="o", label="measured ε")
ax.plot(
    devs,
    [clopper_pearson_upper(k, n) for k in expected_dev],
    ls="",
    marker="x",
    color="k",
    label="known answer: formulas with > d satisfying a in S",
)
ax.axhline(eps_zero, color="grey", lw=0.8, ls=":", label="0 failures")
ax.set_yscale("log")
ax.set_xlabel("allowable deviation d (differing neurons tolerated)")
ax.set_ylabel("hidden-layer equivalence ε")
ax.set_title("Tolerating d differing components lowers equivalence ε to its floor")
ax.legend(fontsize=8)
plt.show()

# %% [markdown]
# ## Claim check
#
# The compiled half tests the *machinery*, so its first two checks are known answers (true by
# construction of a correct implementation: verdict *illustrated*). The third shows that ε of the
# hidden layer rises with σ in every seed; the parse layer is shown next to it, but it cannot
# move (the noise is only in t_2's weights), so that check is *illustrated* too.

# %%
max_count_exact = [
    float(np.nansum(axiom_epsilons(compiled_interpretation(exact), data[s][0]).filter(like="k_")))
    for s in CONFIG["seeds"]
]
max_count_drop = [
    float(
        np.nansum(
            axiom_epsilons(compiled_interpretation(exact, drop=S), data[s][0]).filter(like="k_")
        )
    )
    for s in CONFIG["seeds"]
]
eps_gap = float(np.nanmax(np.abs(table_exact.filter(like="eps_").to_numpy() - eps_zero)))
claim(
    "axiomatic-mi/1_axioms/exact_has_no_failures",
    "The exact interpretation of the compiled solver fails no axiom at any layer on any of the "
    "test formulas, in every data seed; an interpretation with 8 assignments dropped does",
    paper="an interpretation is validated when every axiom holds with small ε (Section 3)",
    value=max_count_exact,
    check=less(1.0),
    control=("8 assignments dropped from h_2", max_count_drop),
    verdict="illustrated",
    caveat="true by construction of the compiled solver: it checks the implementation",
    fmt=".0f",
)
claim(
    "axiomatic-mi/1_axioms/drop_known_answer",
    "With assignments S dropped from h_2, hidden-layer replaceability fails on exactly the "
    "formulas satisfiable only under S, in every data seed; the equivalence count does not",
    paper="replaceability asks whether the abstract state suffices to reproduce the output",
    value=drop_gap,
    check=within(0.0, 0.0),
    control=("hidden-layer equivalence count", drop_equiv_gap),
    verdict="illustrated",
    caveat="a known answer of the implementation, exact by construction",
    fmt=".0f",
)
rise = (
    sweep[(sweep.interpretation == "exact") & (sweep.layer == "hidden") & (sweep.sigma == 0.1)]
    .sort_values("seed")["eps_component_equiv"]
    .to_numpy()
    - eps_zero
)
rise_parse = (
    sweep[(sweep.interpretation == "exact") & (sweep.layer == "parse") & (sweep.sigma == 0.1)]
    .sort_values("seed")["eps_component_equiv"]
    .to_numpy()
    - eps_zero
)
claim(
    "axiomatic-mi/1_axioms/eps_rises_with_noise",
    "Noise sigma = 0.1 on the hidden layer's weights raises that layer's equivalence epsilon by "
    "more than 0.05 above the zero-failure floor in every seed; the parse layer's does not move",
    paper="epsilon measures how far the interpretation is from the network (Section 3)",
    value=rise,
    check=greater(0.05),
    control=("parse layer, same noise", rise_parse),
    verdict="illustrated",
    caveat="the control is true by construction: the noise is only in t_2's weights, so the "
    "parse layer cannot move",
    fmt=".3f",
)
runtime_s = time.perf_counter() - t_start
assert agree_pysat == 1.0 and agree_scc == 1.0, "labels disagree with an oracle"
assert abs(sat_rate - 0.74) < 0.02, sat_rate
assert eps_gap < 1e-12 and table_drop.loc["hidden", "k_component_replace"] == only_S
assert table_and.loc["output", "k_component_equiv"] == labels.sum(), "AND fails on the SAT half"
glue("agree_pysat", agree_pysat, display=False)
glue("agree_scc", agree_scc, display=False)
glue("sat_rate", sat_rate, display=False)
glue("n_compiled", n, display=False)
glue("eps_zero", eps_zero, display=False)
glue("eps_gap", eps_gap, display=False)
glue("only_S", only_S, display=False)
glue("any_S", any_S, display=False)
glue("drop_replace_eps", float(table_drop.loc["hidden", "eps_component_replace"]), display=False)
glue("drop_equiv_eps", float(table_drop.loc["hidden", "eps_component_equiv"]), display=False)
glue("and_output_eps", float(table_and.loc["output", "eps_component_equiv"]), display=False)
glue("runtime_s", runtime_s, display=False)
print(f"runtime {runtime_s:.0f} s")
