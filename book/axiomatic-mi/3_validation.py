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
# each neuron's own mean when firing, or the plain threshold 0.5), with our γ_2 and with the
# authors'; the paper's disjunction-only interpretation; and wrong interpretations that must fail.
# It uses **the authors' checkpoint** (see the opener); its runtime is listed in the opener. Set
# `os.environ["ICML25_SCALE"] = "large"` before the set-up cell for 80,000 test formulas, as in
# the paper.

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
import torch

from icml25.axiomatic_mi import (
    TinyTransformer,
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
    "small": {"n_fit": 3000, "n_test": 5000, "seeds": [0, 1, 2], "devs": [0, 1, 2, 4]},
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
#
# γ_2 maps the abstract state (which evaluating neurons fire) back to the network: the mean
# hidden activations with the evaluating neurons set to 0 or to a "high" level, and a residual
# stream. Ours keeps the mean of block 1's residual after attention (the state t_2 passes on);
# the authors' code keeps only the mean of block 1's attention output. The paper amplifies a
# firing neuron to 2.0; its "without amplification" run sets it to the threshold 0.5.

# %%
fit0, test0 = sets[CONFIG["seeds"][0]]
interp0 = transformer_interpretation(model, fit0, seed=CONFIG["seeds"][0])
dev_eps = [
    axiom_epsilons(interp0, test0, allowable_deviation=d).loc["hidden", "eps_component_equiv"]
    for d in CONFIG["devs"]
]
HIGHS = (2.0, 1.0, "mean", 0.5)
high_eps = {}  # (residual, high) -> hidden-layer replaceability epsilon
for residual in ("resid_mid", "attention"):
    for high in HIGHS:
        interp = transformer_interpretation(model, fit0, high=high, residual=residual)
        high_eps[residual, str(high)] = axiom_epsilons(interp, test0).loc[
            "hidden", "eps_component_replace"
        ]
fig, axes = plt.subplots(1, 2, figsize=plotting.figsize("wide"))
axes[0].plot(CONFIG["devs"], dev_eps, marker="o", color=plotting.method_color("ours"))
axes[0].axhline(floor, color="grey", ls=":", lw=0.8, label="0 failures")
axes[0].set_yscale("log")
axes[0].set_xlabel("allowable deviation (wrong evaluating neurons tolerated)")
axes[0].set_ylabel("hidden-layer equivalence ε")
axes[0].set_title("Tolerating a few wrong neurons closes most of the gap")
axes[0].legend()
x = np.arange(len(HIGHS))
for k, (residual, label) in enumerate(
    [
        ("resid_mid", "ours: mean residual after attention"),
        ("attention", "authors': mean attention out"),
    ]
):
    axes[1].bar(
        x + (k - 0.5) * 0.4,
        [high_eps[residual, str(h)] for h in HIGHS],
        width=0.4,
        color=plotting.method_color("ours") if k == 0 else "tab:orange",
        label=label,
    )
axes[1].scatter([0, 3], [0.0128, 0.249], color="k", marker="_", s=300, zorder=3, label="paper")
axes[1].set_xticks(x, [str(h) for h in HIGHS])
axes[1].set_yscale("log")
axes[1].set_ylim(1e-3, 2)
axes[1].set_xlabel(r"$\gamma_2$'s activation for a firing neuron")
axes[1].set_ylabel("hidden-layer replaceability ε")
axes[1].set_title("Without amplification (0.5) replaceability fails")
axes[1].legend(fontsize="x-small", loc="upper left")
plotting.panel_labels(axes)
plt.show()
pd.Series({f"{r}, high={h}": round(float(v), 4) for (r, h), v in high_eps.items()})

# %% [markdown]
# **What to see.** (a) Equivalence ε falls steeply as one or two wrong neurons are tolerated:
# the trees' misses are spread thinly over formulas. (b) With our γ_2, levels 2.0, 1.0 and each
# neuron's own mean give the same replaceability, but the plain threshold 0.5 (the paper's run
# "without amplification") does not: one firing neuron at 0.5 no longer pushes the output to SAT.
# The authors' γ_2, which drops the layer-1 residual, needs the amplification even more: it
# matches ours at 2.0 and degrades already at 1.0, and at 0.5 it lands near the paper's 0.249.
# So the amplification is needed for the paper's interpretation, and our γ_2 departure matters
# only below level 2.

# %% [markdown]
# ## The disjunction-only interpretation
#
# The paper also reads each evaluating neuron as a plain OR: neuron j fires when the formula is
# satisfied by one of a few assignments S_j, read off the enumeration figure. Here S_j is the set
# of assignments a with P(neuron j fires | a satisfies the formula) ≥ 1/2 on the fit formulas.

# %%
dis_tables = {
    s: axiom_epsilons(
        transformer_interpretation(model, sets[s][0], seed=s, neuron_rule="disjunction"),
        sets[s][1],
    )
    for s in CONFIG["seeds"]
}
dis_equiv = [dis_tables[s].loc["hidden", "eps_component_equiv"] for s in CONFIG["seeds"]]
dis_replace = [dis_tables[s].loc["hidden", "eps_component_replace"] for s in CONFIG["seeds"]]
pd.DataFrame(
    {
        "paper ε": [0.31, 0.0029],
        "disjunction ε (mean)": [np.mean(dis_equiv), np.mean(dis_replace)],
        "trees ε (mean)": [
            np.mean([tables[s].loc["hidden", c] for s in CONFIG["seeds"]])
            for c in ("eps_component_equiv", "eps_component_replace")
        ],
    },
    index=["hidden-layer equivalence", "hidden-layer replaceability"],
)

# %% [markdown]
# **What to read off.** The plain OR of a few assignments describes the neurons about as well as
# the 4-leaf trees do (equivalence is loose for both, as in the paper), and its replaceability
# is, as in the paper, tighter than the trees': the OR over all 34 neurons only needs one right
# neuron per satisfiable formula.

# %% [markdown]
# ## Wrong interpretations that must fail
#
# The controls of the claim checks: the same parse on the layer-1 residual of an **untrained**
# model of the same architecture (three seeds: a parse that could in principle pass, since the
# cosine to the clause means is fitted on that model's own residuals), an h_1 that reads each
# clause from the next position (clause order shifted by one), and an h_2 built on 34 random
# *non*-evaluating neurons.

# %%
s0 = CONFIG["seeds"][0]
shifted = interp0._replace(
    abstract=[lambda x: np.roll(clause_ids(x), 1, axis=1), *interp0.abstract[1:]]
)
df_shift = axiom_epsilons(shifted, test0)
evaluating = np.flatnonzero(sat_coefficients(model) >= 2.9)
untrained_parse = []
for s in CONFIG["seeds"]:
    u_interp = transformer_interpretation(
        TinyTransformer(seed=s), sets[s][0], evaluating=evaluating
    )
    untrained_parse.append(axiom_epsilons(u_interp, sets[s][1]).loc["parse", "eps_prefix_equiv"])
print("untrained model, parse equivalence epsilon per seed:", np.round(untrained_parse, 4))
rng = np.random.default_rng(0)
others = np.flatnonzero(sat_coefficients(model) < 2.9)
random_units = rng.choice(others, size=int((sat_coefficients(model) >= 2.9).sum()), replace=False)
df_random = axiom_epsilons(transformer_interpretation(model, fit0, evaluating=random_units), test0)
pd.concat({"shifted parse": df_shift, "random neurons": df_random}).filter(like="eps_")

# %% [markdown]
# **What to read off.** The untrained model's layer 1 does not carry the clause at 4i+2, so the
# parse fails on (nearly) every formula. Each wrong interpretation fails, but not every axiom
# sees it. The shifted
# parse fails parse equivalence on every formula, yet its *replaceability* is as good as the
# right one's: layer 2 reads the clauses as a set, so writing them back in another order changes
# nothing downstream. The random neurons never fire and their trees learn "never", so hidden-layer
# equivalence holds perfectly; replaceability and the output layer expose the vacuous
# interpretation. That is the paper's point about needing both kinds of axiom.

# %% [markdown]
# ## The output: argmax against s > u
#
# The authors read the network's answer as the argmax over all 16 tokens at the last position;
# this book reads it as the `s` logit above the `u` logit. They disagree on:

# %%
with torch.no_grad():
    last = model.last_logits(torch.as_tensor(test0))
argmax_sat = (last.argmax(-1) == model.sat_token).numpy()
argmax_disagree = int((argmax_sat != model.predict_sat(test0)).sum())
print(f"{argmax_disagree} of {len(test0)} test formulas")

# %% [markdown]
# ## Claim check
#
# The network is one, the authors' checkpoint: the three seeds vary the fit and test formulas,
# not the model, so the learned-half verdicts are "partly".

# %%
ONE_NET = "one network, the authors' checkpoint; 3 data/fit seeds; model seed not varied"
parse_eps = [tables[s].loc["parse", "eps_prefix_equiv"] for s in CONFIG["seeds"]]
replace_eps = [tables[s].loc["hidden", "eps_component_replace"] for s in CONFIG["seeds"]]
output_eps = [tables[s].loc["output", "eps_component_equiv"] for s in CONFIG["seeds"]]
hidden_equiv = [tables[s].loc["hidden", "eps_component_equiv"] for s in CONFIG["seeds"]]
claim(
    "axiomatic-mi/3_validation/parse_eps",
    "Layer-1 prefix equivalence holds with epsilon <= 0.01 on held-out formulas in every seed; "
    "the same parse on an untrained model's layer 1 does not",
    paper="3.7e-5 (0 disagreements on about 80k formulas)",
    value=parse_eps,
    check=less(0.01),
    control=("untrained model's layer 1", untrained_parse),
    verdict="partly",
    caveat=ONE_NET + "; 0 failures on 5,000 formulas bound epsilon at 6e-4, not 3.7e-5",
    numbers={
        "parse replaceability epsilon (paper 0.042)": float(
            np.mean([tables[s].loc["parse", "eps_prefix_replace"] for s in CONFIG["seeds"]])
        ),
    },
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
    verdict="partly",
    caveat=ONE_NET + "; gamma_2 amplifies firing neurons to 2.0 (at 0.5 epsilon is "
    f"{high_eps['resid_mid', '0.5']:.3f} ours, {high_eps['attention', '0.5']:.3f} authors')",
    numbers={
        "disjunction-only interpretation (paper 0.0029)": float(np.mean(dis_replace)),
    },
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
    verdict="partly",
    caveat=ONE_NET,
    numbers={
        "hidden-layer equivalence epsilon (paper 0.18)": float(np.mean(hidden_equiv)),
        "output prefix equivalence epsilon (paper 0.0128)": float(
            np.mean([tables[s].loc["output", "eps_prefix_equiv"] for s in CONFIG["seeds"]])
        ),
    },
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
for (residual, high), eps in high_eps.items():
    key = {"2.0": "2", "1.0": "1", "mean": "mean", "0.5": "half"}[high]
    glue(
        f"high_{key}_{'ours' if residual == 'resid_mid' else 'authors'}_eps",
        float(eps),
        display=False,
    )
glue("dis_equiv_eps", float(np.mean(dis_equiv)), display=False)
glue("dis_replace_eps", float(np.mean(dis_replace)), display=False)
glue("untrained_parse_eps", float(np.mean(untrained_parse)), display=False)
glue("argmax_disagree", argmax_disagree, display=False)
glue("floor", float(floor), display=False)
glue("n_test", CONFIG["n_test"], display=False)
glue("runtime_s", runtime_s, display=False)
print(f"runtime {runtime_s:.0f} s")
