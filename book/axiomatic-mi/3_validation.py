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
# # Validating the interpretation: the transformer's ε table
#
# The interpretation of notebook 2 (parse, one decision tree per evaluating neuron, OR), with its
# abstractions and concretisations fitted on one set of formulas, is checked against the four
# axioms on another: the ε table next to the paper's, over three data seeds; what happens when
# the hidden-layer equivalence tolerates a few wrong neurons; γ_2's "high activation" (2.0, 1.0,
# or each neuron's own mean when firing); and two wrong interpretations that must fail. It uses
# **the authors' checkpoint** (see the opener). About 1-2 minutes at `small` scale on one CPU
# thread; set `os.environ["ICML25_SCALE"] = "large"` before the set-up cell for 80,000 test
# formulas, as in the paper.

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
    clause_ids,
    clopper_pearson_upper,
    generate_2cnf,
    load_checkpoint,
    sat_coefficients,
    transformer_interpretation,
)
from icml25.common import glue, plotting, setup
from icml25.common.claims import claim, less

t_start = time.perf_counter()
SCALE = setup(seed=0)
CONFIG = {
    "small": {"n_fit": 3000, "n_test": 3000, "seeds": [0, 1, 2], "devs": [0, 1, 2, 4]},
    "large": {"n_fit": 20_000, "n_test": 80_000, "seeds": [0, 1, 2], "devs": [0, 1, 2, 3, 4, 6]},
}[SCALE]
print(SCALE, CONFIG)
model = load_checkpoint()
PAPER = {
    ("parse", "eps_prefix_equiv"): 3.7e-5,
    ("parse", "eps_prefix_replace"): 0.042,
    ("hidden", "eps_component_equiv"): 0.18,
    ("hidden", "eps_component_replace"): 0.0128,
    ("output", "eps_prefix_equiv"): 0.0128,
    ("output", "eps_component_equiv"): 0.0043,
}

# %% [markdown]
# ## The ε table, three data seeds

# %%
tables, sets = {}, {}
for s in CONFIG["seeds"]:
    fit_tok, _, _ = generate_2cnf(CONFIG["n_fit"], seed=3000 + s)
    test_tok, _, _ = generate_2cnf(CONFIG["n_test"], seed=4000 + s)
    sets[s] = (fit_tok, test_tok)
    tables[s] = axiom_epsilons(transformer_interpretation(model, fit_tok, seed=s), test_tok)
table0 = tables[CONFIG["seeds"][0]]
rows = []
for (layer, col), paper in PAPER.items():
    ours = [tables[s].loc[layer, col] for s in CONFIG["seeds"]]
    counts = [tables[s].loc[layer, col.replace("eps_", "k_")] for s in CONFIG["seeds"]]
    rows.append(
        {
            "layer": layer,
            "axiom": col[4:],
            "paper ε": paper,
            "ours ε (mean)": np.mean(ours),
            "ours failures (per seed)": [int(k) for k in counts],
        }
    )
eps_table = pd.DataFrame(rows)
floor = clopper_pearson_upper(0, CONFIG["n_test"])
print(f"zero-failure floor at n = {CONFIG['n_test']}: {floor:.2e}")
eps_table

# %% [markdown]
# Hidden-layer equivalence is the loosest axiom, as in the paper: the trees miss some of the
# neurons' firings (notebook 2), and one missed neuron among 34 is enough for a formula to count.
# Replaceability is much tighter, because an OR only needs *some* evaluating neuron to fire.

# %% [markdown]
# ## ε against the tolerated number of wrong neurons, and γ_2's high activation

# %%
fit0, test0 = sets[CONFIG["seeds"][0]]
interp0 = transformer_interpretation(model, fit0, seed=CONFIG["seeds"][0])
dev_eps = [
    axiom_epsilons(interp0, test0, allowable_deviation=d).loc["hidden", "eps_component_equiv"]
    for d in CONFIG["devs"]
]
high_eps = {"2.0": table0.loc["hidden", "eps_component_replace"]}
for high in (1.0, "mean"):
    df = axiom_epsilons(transformer_interpretation(model, fit0, high=high), test0)
    high_eps[str(high)] = df.loc["hidden", "eps_component_replace"]
fig, axes = plt.subplots(1, 2, figsize=plotting.figsize("wide"))
axes[0].plot(CONFIG["devs"], dev_eps, marker="o", color=plotting.method_color("ours"))
axes[0].axhline(floor, color="grey", ls=":", lw=0.8, label="0 failures")
axes[0].set_yscale("log")
axes[0].set_xlabel("allowable deviation (wrong evaluating neurons tolerated)")
axes[0].set_ylabel("hidden-layer equivalence ε")
axes[0].set_title("Tolerating a few wrong neurons closes most of the gap")
axes[0].legend()
axes[1].bar(list(high_eps), list(high_eps.values()), color=plotting.method_color("ours"))
axes[1].axhline(0.0128, color="k", ls="--", lw=1, label="paper, high = 2.0")
axes[1].set_xlabel(r"$\gamma_2$'s activation for a firing neuron")
axes[1].set_ylabel("hidden-layer replaceability ε")
axes[1].set_title("Replaceability does not depend on the high level here")
axes[1].legend()
plotting.panel_labels(axes)
plt.show()
print({k: round(float(v), 4) for k, v in high_eps.items()})

# %% [markdown]
# **What to see.** (a) Equivalence ε falls steeply as one or two wrong neurons are tolerated:
# the trees' misses are spread thinly over formulas. (b) Setting firing neurons to 2.0, 1.0 or
# their own mean activation gives the same replaceability here, unlike the paper's 0.249 without
# the amplification; our γ_2 keeps the mean residual stream of the layer (see Departures), which
# may be why a firing neuron at its plain level already pushes the output to SAT.

# %% [markdown]
# ## Two wrong interpretations that must fail
#
# The controls of the claim check: an h_1 that reads each clause from the next position (clause
# order shifted by one), and an h_2 built on 34 random *non*-evaluating neurons.

# %%
s0 = CONFIG["seeds"][0]
shifted = interp0._replace(
    abstract=[lambda x: np.roll(clause_ids(x), 1, axis=1), *interp0.abstract[1:]]
)
df_shift = axiom_epsilons(shifted, test0)
rng = np.random.default_rng(0)
others = np.flatnonzero(sat_coefficients(model) < 2.9)
random_units = rng.choice(others, size=int((sat_coefficients(model) >= 2.9).sum()), replace=False)
df_random = axiom_epsilons(transformer_interpretation(model, fit0, evaluating=random_units), test0)
pd.concat({"shifted parse": df_shift, "random neurons": df_random}).filter(like="eps_")

# %% [markdown]
# **What to read off.** Each wrong interpretation fails, but not every axiom sees it. The shifted
# parse fails parse equivalence on every formula, yet its *replaceability* is as good as the
# right one's: layer 2 reads the clauses as a set, so writing them back in another order changes
# nothing downstream. The random neurons never fire and their trees learn "never", so hidden-layer
# equivalence holds perfectly; replaceability and the output layer expose the vacuous
# interpretation. That is the paper's point about needing both kinds of axiom.

# %% [markdown]
# ## Claim check

# %%
parse_eps = [tables[s].loc["parse", "eps_prefix_equiv"] for s in CONFIG["seeds"]]
replace_eps = [tables[s].loc["hidden", "eps_component_replace"] for s in CONFIG["seeds"]]
output_eps = [tables[s].loc["output", "eps_component_equiv"] for s in CONFIG["seeds"]]
hidden_equiv = [tables[s].loc["hidden", "eps_component_equiv"] for s in CONFIG["seeds"]]
claim(
    "axiomatic-mi/3_validation/parse_eps",
    "Layer-1 prefix equivalence holds with epsilon <= 0.01 on held-out formulas in every seed; "
    "an interpretation that shifts the clause order does not",
    paper="3.7e-5 (0 disagreements on about 80k formulas)",
    value=parse_eps,
    check=less(0.01),
    control=("shifted clause order", [df_shift.loc["parse", "eps_prefix_equiv"]]),
    verdict="reproduced",
    caveat="the authors' checkpoint; 0 failures on a smaller test set give a larger bound",
    fmt=".2e",
)
claim(
    "axiomatic-mi/3_validation/hidden_replaceability_eps",
    "Hidden-layer component replaceability (trees, then gamma_2, then the network's output layer) "
    "holds with epsilon <= 0.05 in every seed; with 34 random non-evaluating neurons it does not",
    paper="0.0128",
    value=replace_eps,
    check=less(0.05),
    control=("34 random neurons", [df_random.loc["hidden", "eps_component_replace"]]),
    verdict="reproduced",
    caveat="the authors' checkpoint; our means, neurons and trees",
    fmt=".4f",
)
claim(
    "axiomatic-mi/3_validation/output_equivalence_eps",
    "Output-layer component equivalence (OR of the evaluating neurons against the output) holds "
    "with epsilon <= 0.05 in every seed; with 34 random neurons it does not",
    paper="0.0043",
    value=output_eps,
    check=less(0.05),
    control=("34 random neurons", [df_random.loc["output", "eps_component_equiv"]]),
    verdict="reproduced",
    caveat="the authors' checkpoint",
    numbers={"hidden-layer equivalence epsilon (paper 0.18)": float(np.mean(hidden_equiv))},
    fmt=".4f",
)
runtime_s = time.perf_counter() - t_start
assert all(np.isfinite(parse_eps)) and floor > 0
glue("hidden_equiv_eps", float(np.mean(hidden_equiv)), display=False)
glue(
    "parse_replace_eps",
    float(np.mean([tables[s].loc["parse", "eps_prefix_replace"] for s in CONFIG["seeds"]])),
    display=False,
)
glue("high_1_eps", float(high_eps["1.0"]), display=False)
glue("high_mean_eps", float(high_eps["mean"]), display=False)
glue("n_test", CONFIG["n_test"], display=False)
glue("runtime_s", runtime_s, display=False)
print(f"runtime {runtime_s:.0f} s")
