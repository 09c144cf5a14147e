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
# sentences whose answer needs **all three** supporting sentences (a three-way AND), a
# **shortcut** sentence that alone gives a partial answer, and distracting sentences with
# main effects and pairwise interactions of their own (`make_multihop_task`). It is a planted
# value function, not a trained model: the point is to see what each kind of explanation can
# represent.

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
        " && pip install -q galois shap",
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
    "small": {"ns": [32, 64, 128], "tasks": [0, 1, 2, 3, 4], "r_max": 5},
    "large": {"ns": [32, 64, 128, 256, 512], "tasks": list(range(20)), "r_max": 8},
}[SCALE]
MARGINAL = ["LIME", "Banzhaf", "KernelSHAP"]
print(SCALE, CONFIG)

# %% [markdown]
# For every task: SPEX (BCH delays, $b$ = 6) gives Faith-Banzhaf interactions up to order 3,
# ranked by magnitude; each marginal method, with SPEX's query budget, ranks single sentences.
# **Recovery-rate@r** is the share of the supporting sentences covered by the first $r$
# entries of a ranking (an entry is an interaction for SPEX, a sentence for the others).
# **Top-r removal** masks $r$ sentences and measures the drop of the answer's score: SPEX
# removes greedily what its surrogate says hurts most; the marginal methods remove their top
# $r$ sentences.

# %%
recovery = {m: {n: [] for n in CONFIG["ns"]} for m in ["SPEX", *MARGINAL]}
drops = {m: [] for m in ["SPEX", *MARGINAL]}
n_big = CONFIG["ns"][-1]
for n in CONFIG["ns"]:
    for task in CONFIG["tasks"]:
        f, support, shortcut = make_multihop_task(n, seed=task)
        res = spex(f, n, b=6, C=3, delays="bch", t=3)
        fbii = to_index(fourier_to_mobius(res.fourier), "FBII", 3)
        ranked = sorted(fbii, key=lambda T, fb=fbii: -abs(fb[T]))
        rankings = {"SPEX": ranked}
        weights = marginal_baselines(f, n, res.n_queries, seed=task)
        for m in MARGINAL:
            rankings[m] = [(int(i),) for i in np.argsort(-weights[m][1:])]
        for m, rk in rankings.items():
            recovery[m][n].append([recovery_rate(rk, support, r) for r in range(1, 5)])
        if n == n_big:
            order = greedy_removal_order(
                lambda x, F=res.fourier: fourier_eval(F, x), n, CONFIG["r_max"]
            )
            drops["SPEX"].append(removal_drops(f, n, order))
            for m in MARGINAL:
                top = [i for (i,) in rankings[m][: CONFIG["r_max"]]]
                drops[m].append(removal_drops(f, n, top))
    print(n, {m: np.mean(recovery[m][n], 0).round(2).tolist() for m in recovery})

# %% tags=["hide-input"]
fig, axes = plt.subplots(1, 2, figsize=plotting.figsize("wide"))
rs = np.arange(1, 5)
for m in ["SPEX", *MARGINAL]:
    color = plotting.method_color("ours" if m == "SPEX" else m)
    axes[0].plot(rs, np.mean(recovery[m][n_big], 0), "o-", color=color, label=m)
    d = np.array(drops[m])
    axes[1].plot(np.arange(1, CONFIG["r_max"] + 1), d.mean(0), "o-", color=color, label=m)
axes[0].set(
    xticks=rs,
    ylim=(-0.05, 1.05),
    xlabel="r (entries of the ranking)",
    ylabel="share of supporting sentences covered",
    title=f"Recovery-rate@r, n = {n_big} sentences",
)
axes[1].set(
    xlabel="r (sentences removed)", ylabel="drop of the answer's score", title="Top-r removal"
)
for ax in axes:
    ax.legend(fontsize=8)
plt.show()

# %% [markdown]
# **What to see.** Left: SPEX's first entry is the three-way interaction itself, so it covers
# the whole supporting set at $r$ = 1; the marginal methods usually put the shortcut sentence
# first (its main effect is the largest single number) and need four entries to cover the
# three supporting sentences, which they can only list, not tie together. Right: removing one
# sentence chosen by SPEX's surrogate breaks the answer (any one hop kills the AND); the
# marginal rankings first remove the shortcut and catch up from $r$ = 2 on (curves: mean of
# five tasks).

# %% [markdown]
# ## Claim check
#
# At every $n$ and for every task, SPEX's top interaction is exactly the supporting set
# (Recovery-rate@1 = 1); every marginal method's mean Recovery-rate@3 is below 1 at every $n$
# (three sentences do not reliably cover the three supporting ones); and at $r$ = 1 SPEX's
# removal drop is larger than every marginal method's on average, and never smaller on average
# at any $r$.

# %%
spex_r1 = min(min(row[0] for row in recovery["SPEX"][n]) for n in CONFIG["ns"])
marg_r3 = {
    m: max(np.mean([row[2] for row in recovery[m][n]]) for n in CONFIG["ns"]) for m in MARGINAL
}
d_spex = np.array(drops["SPEX"])
d_marg = {m: np.array(drops[m]) for m in MARGINAL}
assert all(np.all(d_spex.mean(0) >= d.mean(0) - 1e-9) for d in d_marg.values())
runtime_s = time.perf_counter() - t_start
claim(
    "spex/3_interactions/recovers_supporting_set",
    "On a planted three-hop question, SPEX's strongest interaction is the supporting set of "
    "facts in every task (Recovery-rate@1 = 1); the best marginal method's Recovery-rate@3 is not",
    paper="Recovery-rate@10 +6.2 to +9.2 % over marginal methods (HotpotQA)",
    value=spex_r1,
    check=greater(0.99),
    control=("best marginal method, Recovery-rate@3", max(marg_r3.values())),
    verdict="illustrated",
    seeds=len(CONFIG["tasks"]),
    fmt=".2f",
)
best_drop = max(d[:, 0].mean() for d in d_marg.values())
claim(
    "spex/3_interactions/top_removal_drop",
    "Removing SPEX's top sentence lowers the answer's score more than removing the best marginal "
    "method's top sentence",
    paper="interactions found by SPEX matter for the answer (HotpotQA)",
    value=d_spex[:, 0].mean(),
    check=greater(best_drop, label="best marginal method's drop"),
    verdict="illustrated",
    seeds=len(CONFIG["tasks"]),
    numbers={"SPEX": d_spex[:, 0].mean(), "best marginal": best_drop},
    fmt=".2f",
)
glue("marg_r3", max(marg_r3.values()))
glue("spex_drop1", float(d_spex[:, 0].mean()))
glue("marg_drop1", float(max(d[:, 0].mean() for d in d_marg.values())))
glue("n_tasks", len(CONFIG["tasks"]))
glue("n_big", n_big)
glue("runtime_s", runtime_s)
