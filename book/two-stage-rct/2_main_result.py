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
# # The main result: two stages certify more than one
#
# The paper's Figure 1 in miniature: the certificate, as a share of the best arm's true effect,
# for sample splitting and four reference designs, at first-stage shares of 30, 50 and 70 % of
# the budget; then the certificate against the first-stage share from 10 to 90 %. Setting as in
# the paper: 10 arms with effects drawn from $U(0,1)$, Bernoulli outcomes, 50 patients per arm,
# $\delta = 0.1$, Hoeffding widths.
#
# The designs: **sample split** (the paper's), **best arm** (keep $k = 1$), **single stage** (no
# screening), **random $k$** and **omniscient $k$** (the best $k$ for the same ranking, chosen
# with the true effects: an upper reference, not a usable design). All two-stage designs share
# the stage-1 ranking and differ only in how many arms they keep.

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
        " && pip install -q --no-deps -e /content/icml25",
        shell=True,
        check=True,
    )

# %%
import time

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from icml25.common import glue, plotting, setup
from icml25.common.claims import claim, greater
from icml25.two_stage_rct import LABELS, simulate

t_start = time.perf_counter()
SCALE = setup(seed=0)
CONFIG = {
    "small": {"trials": 2000, "seeds": 10, "fracs": [0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9]},
    "large": {"trials": 20000, "seeds": 20, "fracs": [0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9]},
}[SCALE]
SETTING = {"n_arms": 10, "budget": 500, "delta": 0.1}
# Values read off the bars of the paper's Figure 1 (approximate, from the figure image).
PAPER = pd.DataFrame(
    {
        "Sample split": [0.91, 0.905, 0.885],
        "Best arm (k=1)": [0.89, 0.875, 0.88],
        "Single stage": [0.85, 0.855, 0.875],
        "Random k": [0.85, 0.845, 0.835],
        "Omniscient k": [0.93, 0.915, 0.90],
    },
    index=[0.3, 0.5, 0.7],
)
# The paper's five designs, plus the best fixed k in hindsight (k = 2 here), a design that uses
# no data to choose k but is not a strawman: sample splitting must beat it too.
RUN = {**LABELS, "Fixed k (k=2)": {"policy": "fixed_k", "k": 2}}
print(SCALE, CONFIG)

# %% [markdown]
# ## All designs, many trials, several seeds
#
# Every design sees the same arm effects **and the same patients** in each trial (common random
# numbers: arm $i$'s $j$-th patient has the same outcome whichever design enrols them), so the
# difference between two designs is paired per trial and reflects their decisions, not their
# luck. We repeat the whole simulation for several seeds and report the mean normalised
# certificate (certificate / best true effect), its spread over seeds, and, per seed, the paired
# difference to the single-stage trial with its 95 % confidence interval over trials.

# %%
rows, pairs = [], []
for frac in CONFIG["fracs"]:
    for seed in range(CONFIG["seeds"]):
        df = simulate(
            RUN, CONFIG["trials"], np.random.default_rng(seed), first_frac=frac, **SETTING
        )
        means = df.groupby("design").agg(
            normalized=("normalized", "mean"), k=("k", "mean"), miss=("miss", "mean")
        )
        rows.append(means.assign(frac=frac, seed=seed).reset_index())
        per_trial = df.pivot(index="trial", columns="design", values="normalized")
        for design in RUN:
            diff = per_trial[design] - per_trial["Single stage"]
            se = float(diff.std(ddof=1) / np.sqrt(len(diff)))
            pairs.append(
                {"frac": frac, "seed": seed, "design": design, "diff": diff.mean(), "se": se}
            )
results = pd.concat(rows, ignore_index=True)
paired = pd.DataFrame(pairs).assign(lo=lambda d: d["diff"] - 1.96 * d["se"])
table = results.groupby(["frac", "design"]).normalized.agg(["mean", "std"]).unstack("design")
table["mean"].loc[[0.3, 0.5, 0.7]].round(3)

# %% [markdown]
# The paired differences to the single-stage trial (mean over seeds of the per-seed mean, and
# the smallest per-seed lower end of the 95 % interval over trials):

# %%
paired_table = (
    paired[paired.design != "Single stage"]
    .groupby(["frac", "design"])
    .agg(diff=("diff", "mean"), worst_lo=("lo", "min"), se=("se", "mean"))
    .unstack("design")
)
paired_table.loc[[0.3, 0.5, 0.7]].round(3)

# %% tags=["hide-input"]
designs = list(LABELS)
fig, ax = plt.subplots(figsize=plotting.figsize("wide"))
offset = 0.14
for i, design in enumerate(designs):
    xs = np.arange(3) + (i - 2) * offset
    ours = table["mean"][design].loc[[0.3, 0.5, 0.7]]
    ci = 1.96 * table["std"][design].loc[[0.3, 0.5, 0.7]] / np.sqrt(CONFIG["seeds"])
    ax.errorbar(
        xs,
        ours,
        yerr=ci,
        fmt="o",
        ms=6,
        color=plotting.method_color(design),
        label=design,
        capsize=3,
    )
    ax.scatter(
        xs,
        PAPER[design],
        marker="_",
        s=160,
        c="k",
        zorder=3,
        label="paper (read off Fig. 1)" if i == 0 else None,
    )
ax.set(
    xticks=np.arange(3),
    xticklabels=["30 %", "50 %", "70 %"],
    ylim=(0.76, 0.95),
    xlabel="share of the budget spent in stage 1",
    ylabel="certificate / best effect",
    title="Sample splitting certifies more than a single stage at 30, 50 and 70 % first stages",
)
ax.legend(fontsize=8, ncol=3, loc="upper right")
plt.show()

# %% [markdown]
# **What to see.** Dots are our means over seeds (error bars: 95 % intervals over seeds; a dot
# plot, so the axis need not start at 0), black ticks the paper's values read off its
# Figure 1. Sample splitting is above the single-stage trial at every
# share, a little below the omniscient choice of $k$, and above keeping only the best arm; a
# random $k$ is the worst two-stage choice. Most of our bars land within about two hundredths
# of the paper's (the claim check counts them). Two baselines differ more at a 70 % first
# stage, and our reading of the official code explains only part of that. Its single-stage
# certificate takes the arms' means from the stage-2 pulls only (fewer as stage 1 grows) but
# the width of all $T/n$ pulls per arm; ours spends all $T/n$ pulls per arm and uses their
# width. Its random $k$ is drawn from $1, \dots, n-1$, ours from $1, \dots, n$. A rerun of the
# released code (outside this book, by a reviewer) put its own random-$k$ bar at 70 % close to
# ours and below the published one, and its single stage only part of the way up to it: the
# rest of the gap is unexplained here.

# %% tags=["hide-input"]
fig, ax = plt.subplots(figsize=plotting.figsize("single"))
for design in designs:
    g = table["mean"][design]
    ax.plot(
        g.index * 100,
        g.values,
        marker="o",
        ms=4,
        c=plotting.method_color(design),
        label=design,
        ls="--" if design == "Omniscient k" else "-",
    )
ax.set(
    xlabel="share of the budget spent in stage 1 (%)",
    ylabel="certificate / best effect",
    title="Spend about a third of the budget on screening",
)
ax.legend(fontsize=8)
plt.show()

# %% [markdown]
# **What to see.** The two-stage designs gain most with a first stage of roughly 20 to 60 % of
# the budget: less, and the ranking is too noisy; more, and too little is left to certify with,
# until at 90 % the single-stage trial wins. The single-stage design does not depend on the share
# (it has no stage 1). Sample splitting stays close to the omniscient choice of $k$ from a
# 20 % first stage on; with 10 % the stage-1 ranking is too noisy for it.

# %% [markdown]
# ## Claim check
#
# At a 30 % first stage, in **every** seed, the paired 95 % interval of sample splitting minus
# the single-stage trial lies above 0.03; the control is the same two-stage design with a
# random $k$ (a two-stage design is not enough: it must keep a sensible number of arms). The
# sharper test of *choosing* $k$ from the data: sample splitting beats the best fixed $k$ in
# hindsight ($k = 2$) in every seed, paired; keeping only the best arm ($k = 1$) is the
# control. Figure 1: at least two thirds of our 15 bars lie within 0.02 of the paper's; bars
# that ignore the design (all at our single-stage value) are the control. The certificate's
# miss rate stays below $\delta$ for every design; with Hoeffding widths and $U(0,1)$ effects
# that is nearly automatic (observed at most a few in a thousand), so it is a sanity check, not
# evidence.

# %%
at30 = results[results.frac == 0.3].pivot(index="seed", columns="design", values="normalized")
p30 = paired[paired.frac == 0.3].pivot(index="seed", columns="design", values="lo")
d30 = paired[paired.frac == 0.3].pivot(index="seed", columns="design", values="diff")
gain_single = at30["Sample split"] - at30["Single stage"]
gain_best = at30["Sample split"] - at30["Best arm (k=1)"]
gap_omni = float((at30["Omniscient k"] - at30["Sample split"]).mean())
max_miss = float(results.miss.max())
assert max_miss <= SETTING["delta"], max_miss
runtime_s = time.perf_counter() - t_start
m30 = table["mean"].loc[0.3]
claim(
    "two-stage-rct/2_main_result/split_beats_single",
    "At a 30 % first stage, the paired 95 % interval of sample splitting minus a single-stage "
    "trial lies above 0.03 of the best effect in every seed; a two-stage design that keeps a "
    "random number of arms does not",
    paper=f"{PAPER.loc[0.3, 'Sample split']} vs {PAPER.loc[0.3, 'Single stage']} (Fig. 1)",
    value=p30["Sample split"].to_numpy(),
    check=greater(0.03),
    control=("random k", p30["Random k"].to_numpy()),
    verdict="reproduced",
    fmt=".3f",
    numbers={
        "paired gain (mean)": d30["Sample split"].mean(),
        "sample split": m30["Sample split"],
        "single stage": m30["Single stage"],
        "omniscient k": m30["Omniscient k"],
    },
)
gain_fixed2 = at30["Sample split"] - at30["Fixed k (k=2)"]
claim(
    "two-stage-rct/2_main_result/split_beats_best_fixed_k",
    "At a 30 % first stage, choosing k from the data beats the best fixed k in hindsight (k = 2) "
    "in every seed (paired); keeping only the best arm (k = 1) does not",
    paper=f"{PAPER.loc[0.3, 'Sample split']} vs {PAPER.loc[0.3, 'Best arm (k=1)']} for k = 1 "
    "(Fig. 1; the paper shows no other fixed k)",
    value=gain_fixed2.to_numpy(),
    check=greater(0.0),
    control=("k = 1", (at30["Best arm (k=1)"] - at30["Fixed k (k=2)"]).to_numpy()),
    verdict="reproduced",
    fmt=".3f",
    numbers={
        "sample split - best arm": gain_best.mean(),
        "fixed k = 2": m30["Fixed k (k=2)"],
        "gap to omniscient k": gap_omni,
    },
)
gaps = (table["mean"].loc[[0.3, 0.5, 0.7], list(PAPER.columns)] - PAPER).abs()
# null control: every design replaced by our single-stage value (as if the design did not matter)
flat = pd.DataFrame({d: table["mean"]["Single stage"].loc[[0.3, 0.5, 0.7]] for d in PAPER.columns})
gaps_null = (flat - PAPER).abs()
close, close_null = (
    float((gaps < 0.02).to_numpy().mean()),
    float((gaps_null < 0.02).to_numpy().mean()),
)
far = [
    f"{d} at {int(100 * f)} %" for f in gaps.index for d in gaps.columns if gaps.loc[f, d] >= 0.02
]
claim(
    "two-stage-rct/2_main_result/figure1_bars",
    "At least two thirds of the 15 bars of Figure 1 (five designs at 30, 50 and 70 %) come out "
    "within 0.02 of the paper's; bars that ignore the design (all at our single-stage value) "
    "do not",
    paper="bars read off Figure 1 (approximate)",
    value=close,
    check=greater(2 / 3),
    control=("every bar at the single-stage value", close_null),
    verdict="partly",
    fmt=".2f",
    caveat=f"the bars that miss: {', '.join(far)}; the definitions that differ from the official "
    "code explain only part of that",
    numbers={"median gap": float(np.median(gaps.to_numpy()))},
    seeds=CONFIG["seeds"],
)
for design, key in [
    ("Sample split", "split"),
    ("Single stage", "single"),
    ("Best arm (k=1)", "best"),
    ("Random k", "random"),
    ("Omniscient k", "omni"),
]:
    for frac in (0.3, 0.5, 0.7):
        glue(f"{key}_{int(frac * 100)}", float(table["mean"][design].loc[frac]))
        glue(f"paper_{key}_{int(frac * 100)}", float(PAPER.loc[frac, design]))
glue("median_gap", float(np.median(gaps.to_numpy())))
glue("gain_single_30", float(gain_single.mean()))
glue("gap_omni_30", gap_omni)
glue("max_miss", max_miss)
glue("trials", CONFIG["trials"])
glue("seeds", CONFIG["seeds"])
glue("runtime_s", runtime_s)
