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
# # Interactions that matter: a multi-hop question in miniature
#
# On HotpotQA the paper asks whether an explanation points at the sentences a human marked as
# needed to answer (Recovery-rate@r) and how much the answer suffers when the top-ranked
# sentences are removed. The miniature plants that structure directly: a "question" over $n$
# sentences whose answer needs **all three** supporting sentences (a three-way AND worth 4),
# and distracting sentences with main effects and pairwise interactions of their own
# (`make_multihop_task`). It is a planted value function, not a trained model.
#
# **Fairness.** The chapter's first version added a "shortcut" sentence whose main effect
# (1.5) exceeds each hop's Banzhaf value (4 / 2² = 1.0), and counted a three-way interaction
# as one entry of the ranking: marginal methods then could not win by construction. Here
# every method is scored on the **same target**, a ranking of single sentences (SPEX's
# sentences in the order in which they appear in its strongest interactions,
# `input_ranking`), and the main task has **no shortcut** (`shortcut_effect=0`). The shortcut
# task is kept as a labelled illustration of what the built-in advantage did, and a **harder
# task** adds three strong distractor sentences, swept in strength, so that the comparison can
# fail either way.

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
        " && pip install -q --no-deps -e /content/icml25"
        " && pip install -q shap",
        shell=True,
        check=True,
    )

# %%
import time

import matplotlib.pyplot as plt
import numpy as np

from icml25.common import glue, plotting, setup
from icml25.common.claims import claim, greater
from icml25.spex import (
    fourier_eval,
    fourier_to_mobius,
    greedy_removal_order,
    input_ranking,
    marginal_baselines,
    recovery_rate,
    removal_drops,
    spex,
    to_index,
)
from icml25.spex.text import make_multihop_task

t_start = time.perf_counter()
SCALE = setup(seed=0)
CONFIG = {
    "small": {"ns": [32, 64, 128], "tasks": [0, 1, 2, 3, 4], "r_max": 5, "n_hard": 64},
    "large": {"ns": [32, 64, 128, 256, 512], "tasks": list(range(20)), "r_max": 8, "n_hard": 256},
}[SCALE]
MARGINAL = ["LIME", "Banzhaf", "KernelSHAP"]
METHODS = ["SPEX", *MARGINAL, "random"]
TASKS = {"fair": 0.0, "shortcut": 1.5}  # the shortcut sentence's main effect
STRENGTHS = [0.5, 0.9, 1.1, 1.5, 2.5, 3.5, 3.9, 4.1, 5.0]  # distractor main effects (hard task)
MID = [1.5, 2.5, 3.5]  # between a hop's Banzhaf value (1) and the AND's weight (4)
print(SCALE, CONFIG)

# %% [markdown]
# For every task: SPEX (BCH delays, $b$ = 6, $t$ = 3) gives Faith-Banzhaf interactions up to
# order 3, ranked by magnitude, and `input_ranking` turns them into a ranking of sentences;
# each marginal method, with SPEX's query budget, ranks sentences by its attribution; a
# **random ranking** is the model-free control. **Recovery-rate@r**: the share of the three
# supporting sentences among a method's first $r$ sentences. **Top-r removal**: the drop of
# the answer's score when $r$ sentences are masked (SPEX: greedily by its surrogate; the
# others: their top $r$). An ingredient-removed control for the interaction itself: SPEX
# decoding only up to $t$ = 2, which cannot read a three-way support.

# %%
recovery = {(task, m): {n: [] for n in CONFIG["ns"]} for task in TASKS for m in METHODS}
drops = {(task, m): [] for task in TASKS for m in METHODS}
top_is_support = {"t = 3": [], "t = 2": []}  # SPEX's strongest interaction is S itself?
top_distractor_bv = {n: [] for n in CONFIG["ns"]}  # largest Banzhaf value of a non-hop (fair)
n_big = CONFIG["ns"][-1]
for task_name, effect in TASKS.items():
    for n in CONFIG["ns"]:
        for task in CONFIG["tasks"]:
            f, support, shortcut = make_multihop_task(n, seed=task, shortcut_effect=effect)
            res = spex(f, n, b=6, C=3, delays="bch", t=3)
            fbii = to_index(fourier_to_mobius(res.fourier), "FBII", 3)
            ranked = sorted(fbii, key=lambda T, fb=fbii: -abs(fb[T]))
            rankings = {"SPEX": input_ranking(ranked)}
            weights = marginal_baselines(f, n, res.n_queries, seed=task)
            for m in MARGINAL:
                rankings[m] = [(int(i),) for i in np.argsort(-weights[m][1:])]
            perm = np.random.default_rng(10_000 + task).permutation(n)
            rankings["random"] = [(int(i),) for i in perm]
            for m, rk in rankings.items():
                rec = [recovery_rate(rk, support, r) for r in range(1, CONFIG["r_max"] + 1)]
                recovery[task_name, m][n].append(rec)
            if task_name == "fair":
                top_is_support["t = 3"].append(float(ranked[0] == support))
                bv = to_index(fourier_to_mobius(res.fourier), "BV", 1)  # exact: noiseless
                top_distractor_bv[n].append(
                    max(bv.get((i,), 0.0) for i in range(n) if i not in support)
                )
                res2 = spex(f, n, b=6, C=3, delays="bch", t=2)
                fb2 = to_index(fourier_to_mobius(res2.fourier), "FBII", 3)
                top2 = max(fb2, key=lambda T, fb=fb2: abs(fb[T])) if fb2 else ()
                top_is_support["t = 2"].append(float(top2 == support))
            if n == n_big:
                order = greedy_removal_order(
                    lambda x, F=res.fourier: fourier_eval(F, x), n, CONFIG["r_max"]
                )
                drops[task_name, "SPEX"].append(removal_drops(f, n, order))
                for m in [*MARGINAL, "random"]:
                    top = [i for (i,) in rankings[m][: CONFIG["r_max"]]]
                    drops[task_name, m].append(removal_drops(f, n, top))
        print(
            task_name,
            n,
            {m: round(float(np.mean(recovery[task_name, m][n], 0)[2]), 2) for m in METHODS},
        )

# %% tags=["hide-input"]
fig, axes = plt.subplots(1, 2, figsize=plotting.figsize("wide"), sharey=True)
rs = np.arange(1, CONFIG["r_max"] + 1)
for ax, (task_name, effect) in zip(axes, TASKS.items(), strict=True):
    for k, m in enumerate(METHODS):
        color = "0.5" if m == "random" else plotting.method_color("ours" if m == "SPEX" else m)
        vals = np.array(recovery[task_name, m][n_big])  # (tasks, r)
        ax.errorbar(
            rs + 0.06 * (k - 2),
            vals.mean(0),
            yerr=[vals.mean(0) - vals.min(0), vals.max(0) - vals.mean(0)],
            marker="o",
            capsize=2,
            color=color,
            ls="--" if m == "random" else "-",
            label=m,
        )
    ax.set(
        xticks=rs,
        ylim=(-0.05, 1.05),
        xlabel="r (sentences of the ranking)",
        title=f"{task_name} task (shortcut effect {effect}), n = {n_big}",
    )
axes[0].set_ylabel("Recovery-rate@r (share of supporting sentences)")
axes[1].legend(fontsize=8, loc="center right")
plotting.panel_labels(axes)
plt.show()

# %% [markdown]
# **What to see.** (a) On the fair task SPEX lists the three supporting sentences first in
# every task, and so does the best of the three marginal methods per task. That ceiling is not
# guaranteed for each marginal method: a hop's Banzhaf value is 1.0, but a distractor in two
# pair terms can exceed it (the largest distractor Banzhaf value, computed from the recovered
# spectrum, reaches {glue:text}`max_distractor_bv:.2f`), and KernelSHAP gives each hop the
# Shapley value 4/3 of the three-way AND rather than 1.0. The best marginal method is the
# per-task maximum over three methods, chosen after seeing the answer; its lowest single
# method has mean Recovery-rate@3 {glue:text}`fair_worst_r3:.2f` ({glue:text}`fair_worst:s`,
# over every $n$ and task). Saturated: this task cannot separate SPEX from the best marginal
# method, so it carries no claim. The random ranking, the floor, stays far below.
# (b) With the shortcut, the marginal methods put it first by construction and need a fourth
# sentence; SPEX does not.
# Error bars: range over the five tasks; the ceiling is 1 and the floor is the random
# ranking.

# %% [markdown]
# ## A harder task: strong distractors
#
# The fair task is saturated. To make a comparison that can fail, three distractor sentences
# get a strong main effect $d \cdot U(0.9, 1.1)$ (`n_distractors=3`), swept over
# $d$ = 0.5 to 5 (with points at 0.9, 1.1, 3.9 and 4.1 around the two expected steps) at
# $n$ = {glue:}`n_hard`, five tasks each. A marginal ranking puts them
# above the hops once $d$ exceeds a hop's Banzhaf value (1.0); SPEX's ranking puts them above
# the supporting set once $d$ exceeds the set's Faith-Banzhaf interaction (the AND's weight,
# 4). Controls: the random ranking, and SPEX decoding only up to $t$ = 2 (no three-way term).

# %%
HARD = ["SPEX", "SPEX t = 2", *MARGINAL, "random"]
hard = {m: {d: [] for d in STRENGTHS} for m in HARD}  # Recovery-rate@3 per task
nh = CONFIG["n_hard"]
for d in STRENGTHS:
    for task in CONFIG["tasks"]:
        f, support, _ = make_multihop_task(nh, seed=task, n_distractors=3, distractor_effect=d)
        for name, t in (("SPEX", 3), ("SPEX t = 2", 2)):
            res = spex(f, nh, b=6, C=3, delays="bch", t=t)
            fb = to_index(fourier_to_mobius(res.fourier), "FBII", 3)
            rk = input_ranking(sorted(fb, key=lambda T, fb=fb: -abs(fb[T])))
            hard[name][d].append(recovery_rate(rk, support, 3))
        weights = marginal_baselines(f, nh, res.n_queries, seed=task)
        for m in MARGINAL:
            rk = [(int(i),) for i in np.argsort(-weights[m][1:])]
            hard[m][d].append(recovery_rate(rk, support, 3))
        perm = np.random.default_rng(10_000 + task).permutation(nh)
        hard["random"][d].append(recovery_rate([(int(i),) for i in perm], support, 3))
    print(d, {m: round(float(np.mean(hard[m][d])), 2) for m in HARD})

# %% tags=["hide-input"]
fig, ax = plt.subplots(figsize=plotting.figsize("single"))
for k, m in enumerate(HARD):
    color = {"random": "0.5", "SPEX t = 2": plotting.PALETTE[3]}.get(
        m, plotting.method_color("ours" if m == "SPEX" else m)
    )
    vals = np.array([hard[m][d] for d in STRENGTHS])  # (strengths, tasks)
    ax.errorbar(
        np.array(STRENGTHS) + 0.05 * (k - 2.5),
        vals.mean(1),
        yerr=[vals.mean(1) - vals.min(1), vals.max(1) - vals.mean(1)],
        marker="o",
        capsize=2,
        color=color,
        ls="--" if m in ("random", "SPEX t = 2") else "-",
        label=m,
    )
for x, text in ((1.0, "hop's Banzhaf value"), (4.0, "AND weight")):
    ax.axvline(x, color="0.7", lw=0.8)
    ax.text(x + 0.05, 0.5, text, rotation=90, fontsize=7, color="0.4")
ax.set(
    ylim=(-0.05, 1.05),
    xlabel="distractor main effect d",
    ylabel="Recovery-rate@3",
    title=f"Distractors beat marginal rankings near d = 1, SPEX near 4 (n = {nh})",
)
ax.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.01, 1.0))
plt.show()

# %% [markdown]
# **What to see.** At $d$ = 0.5 the best marginal method finds the hops as SPEX does
# (Recovery-rate@3 {glue:text}`hard_marg_low:.2f`). Between 1 and 4 the marginal methods list
# the distractors first (best of them {glue:text}`hard_marg_mid:.2f` on average) while SPEX
# still lists the supporting set first ({glue:text}`hard_spex_mid:.2f`); above 4 SPEX fails too
# ({glue:text}`hard_spex_top:.2f` at $d$ = 5). SPEX without three-way terms ($t$ = 2) keeps the
# set only at the weakest of these strengths ({glue:text}`hard_t2_mid:.2f` on average between
# 1 and 4). The two steps sit where the planted weights put them: on a noiseless planted
# task the plot shows the weights, not an estimation effect; at $d$ = 0.9, 1.1, 3.9 and 4.1 the
# factor $U(0.9, 1.1)$ puts some distractors on either side of a step, so the steps are
# blurred there. Error bars: range over the five tasks.

# %% [markdown]
# ## Claim check
#
# **The comparison the paper makes** (SPEX's Recovery-rate above the marginal methods') is
# tested on the harder task only: on the fair task SPEX and the best marginal method both
# reach the ceiling in every task (above), so a gain there could not occur and it carries no
# claim. **The harder task**: for distractor strengths between the hops' Banzhaf value and
# the AND's weight ($d$ = 1.5, 2.5, 3.5), SPEX's Recovery-rate@3 must be 1 in every task; the
# best marginal method's must fail the same check (SPEX with $t$ = 2 is reported);
# illustrated, because where it holds follows from the planted weights. **What only SPEX
# reports**: its strongest interaction is the supporting set itself, in every task and at
# every $n$; SPEX decoding only up to $t$ = 2 must fail that check; illustrated (the AND,
# weighted 4, tops every other term of a noiseless degree-3 function). **The shortcut task**
# is reported as illustrated (by construction).


# %%
def rec_at(task_name, m, r):
    """Recovery-rate@r of method m per (n, task), in a fixed order."""
    return np.array([row[r - 1] for n in CONFIG["ns"] for row in recovery[task_name, m][n]])


best_fair = np.max([rec_at("fair", m, 3) for m in MARGINAL], axis=0)
gap_fair = rec_at("fair", "SPEX", 3) - best_fair
random_r3 = rec_at("fair", "random", 3)
d_fair = {m: np.array(drops["fair", m])[:, 0] for m in METHODS}
d_short = {m: np.array(drops["shortcut", m])[:, 0] for m in METHODS}
assert rec_at("fair", "SPEX", 3).min() == 1.0
assert random_r3.mean() < 0.5  # the random floor is far from the ceiling
runtime_s = time.perf_counter() - t_start
fair_by_method = {m: rec_at("fair", m, 3).mean() for m in MARGINAL}
fair_worst = min(MARGINAL, key=fair_by_method.get)
print("fair task, mean Recovery-rate@3 per method:", fair_by_method, "gap", gap_fair.mean())
print("largest distractor Banzhaf value per n:", {n: max(v) for n, v in top_distractor_bv.items()})
claim(
    "spex/3_interactions/top_interaction_is_support",
    "On the fair task, SPEX's strongest Faith-Banzhaf interaction is exactly the set of three "
    "supporting sentences, in every task and at every n; decoding only up to t = 2 it is not",
    paper="SPEX finds the interactions between supporting facts (HotpotQA)",
    value=np.array(top_is_support["t = 3"]),
    check=greater(0.99),
    control=("SPEX with t = 2", np.array(top_is_support["t = 2"])),
    verdict="illustrated",
    caveat="true by construction: the task is noiseless and of degree <= 3, with the 3-way AND "
    "of the supporting sentences weighted 4 against distractor terms of at most 0.8, so exact "
    "recovery makes it the top set; the t = 2 control cannot return a set of three at all",
    over="(n, task) pairs",
    seeds=len(CONFIG["tasks"]),
    fmt=".2f",
)
best_hard = {d: np.max([hard[m][d] for m in MARGINAL], axis=0) for d in STRENGTHS}
spex_mid = np.concatenate([hard["SPEX"][d] for d in MID])
marg_mid = np.concatenate([best_hard[d] for d in MID])
assert np.mean(hard["random"][STRENGTHS[0]]) < 0.5  # the floor
claim(
    "spex/3_interactions/hard_recovery_gain",
    "With three distractor sentences whose main effects (d = 1.5 to 3.5) exceed a hop's "
    "Banzhaf value but not the AND's weight, SPEX's three top-ranked sentences are the three "
    "supporting ones (Recovery-rate@3 = 1) in every task; the best marginal method's are not",
    paper="Recovery-rate@10 +6.2 to +9.2 % over marginal methods (HotpotQA)",
    value=spex_mid,
    check=greater(0.99),
    control=("best marginal method", marg_mid),
    verdict="illustrated",
    caveat="where it holds follows from the planted weights of a noiseless task (a marginal "
    "ranking fails once d > 1, a hop's Banzhaf value; SPEX once d > 4, the AND's weight: "
    f"Recovery-rate@3 {np.mean(hard['SPEX'][STRENGTHS[-1]]):.2f} at d = {STRENGTHS[-1]}), so "
    "it shows what an interaction ranking can see, not SPEX's accuracy on real data",
    over="(d, task) pairs",
    seeds=len(CONFIG["tasks"]),
    numbers={
        "SPEX Recovery-rate@3 (d = 1.5-3.5)": np.mean([hard["SPEX"][d] for d in MID]),
        "best marginal": np.mean([best_hard[d] for d in MID]),
        "SPEX t = 2": np.mean([hard["SPEX t = 2"][d] for d in MID]),
        f"SPEX at d = {STRENGTHS[-1]}": np.mean(hard["SPEX"][STRENGTHS[-1]]),
        f"best marginal at d = {STRENGTHS[0]}": best_hard[STRENGTHS[0]].mean(),
    },
    fmt=".2f",
)
glue("n_hard", nh)
glue("hard_marg_mid", float(np.mean([best_hard[d] for d in MID])))
glue("hard_spex_mid", float(np.mean([hard["SPEX"][d] for d in MID])))
glue("hard_t2_mid", float(np.mean([hard["SPEX t = 2"][d] for d in MID])))
glue("hard_spex_top", float(np.mean(hard["SPEX"][STRENGTHS[-1]])))
glue("hard_marg_low", float(best_hard[STRENGTHS[0]].mean()))
best_short = max(MARGINAL, key=lambda m: d_short[m].mean())
claim(
    "spex/3_interactions/shortcut_task",
    "With a shortcut sentence whose main effect (1.5) exceeds a hop's Banzhaf value (1.0), "
    "removing SPEX's top sentence lowers the answer's score more than removing the best "
    "marginal method's top sentence, in every task (true by construction of the task)",
    paper="interactions found by SPEX matter for the answer (HotpotQA)",
    value=d_short["SPEX"],
    check=greater(d_short[best_short], label="best marginal method's drop"),
    verdict="illustrated",
    seeds=len(CONFIG["tasks"]),
    numbers={
        "SPEX": d_short["SPEX"].mean(),
        "best marginal": d_short[best_short].mean(),
        "same on the fair task: SPEX": d_fair["SPEX"].mean(),
        "best marginal (fair)": max(d_fair[m].mean() for m in MARGINAL),
    },
    fmt=".2f",
)
glue("fair_spex_r3", float(rec_at("fair", "SPEX", 3).mean()))
glue("fair_marg_r3", float(best_fair.mean()))
glue("fair_random_r3", float(random_r3.mean()))
glue("fair_worst", fair_worst)
glue("fair_worst_r3", float(fair_by_method[fair_worst]))
glue("fair_gap", float(gap_fair.mean()))
glue("max_distractor_bv", float(max(max(v) for v in top_distractor_bv.values())))
glue("short_marg_r3", float(np.max([rec_at("shortcut", m, 3) for m in MARGINAL], 0).mean()))
glue("spex_drop1", float(d_short["SPEX"].mean()))
glue("marg_drop1", float(d_short[best_short].mean()))
glue("fair_spex_drop1", float(d_fair["SPEX"].mean()))
glue("fair_marg_drop1", float(max(d_fair[m].mean() for m in MARGINAL)))
glue("n_tasks", len(CONFIG["tasks"]))
glue("n_big", n_big)
glue("runtime_s", runtime_s)
