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
# # The sample–n-gram graph, the greedy steps, and the quality signal
#
# GraphFilter sees the training pool as a **bipartite graph**: samples on one side, their
# n-grams on the other, an edge weighted by tf·idf where a sample contains an n-gram. Its
# priority is $\varphi(u) = \text{Quality}(u) \times \text{Diversity}(u)$, the diversity being
# the weight of $u$'s n-grams that no selected sample covers yet. This notebook draws a toy graph
# and runs the greedy steps by hand, checks on the real pool (chatterbot-corpus with planted
# noise) that the lazy max-heap returns exactly the list of naive recomputation, and measures
# how well the offline stand-in for the SuperFilter score (IFD from an n-gram scorer trained on
# the pool) finds the planted corrupted responses.
#
# At `small` scale the notebook takes about ten seconds of CPU time on one thread.

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
        " && pip install -q --no-deps -e /content/icml25 chatterbot-corpus",
        shell=True,
        check=True,
    )

# %%
import time
from collections import Counter

import matplotlib.pyplot as plt
import networkx as nx
import numpy as np
import pandas as pd
from sklearn.metrics import roc_auc_score

from icml25.common import glue, plotting, setup
from icml25.common.claims import claim, greater, within
from icml25.graphfilter import (
    build_graph,
    graphfilter,
    ifd_scores,
    load_pairs,
    plant_noise,
    quality_from_ifd,
    split_pairs,
    subset_stats,
)

t_start = time.perf_counter()  # wall time of the cells from here to the claim cell
SCALE = setup(seed=0)
CONFIG = {
    "small": {"seeds": [0, 1, 2], "k": 200, "lm": "ngram"},
    "large": {"seeds": list(range(10)), "k": 200, "lm": "transformer"},
}[SCALE]
pairs = load_pairs()
pool, test = split_pairs(pairs, test_frac=0.2, seed=0)
print(f"{len(pairs)} pairs, {len({x for x, _ in pairs})} distinct instructions;")
print(f"pool {len(pool)} pairs, clean test set {len(test)} instructions")

# %% [markdown]
# ## A toy graph, step by step
#
# Six short samples and their unigrams (binary weights, quality 1 for all): GraphFilter is then
# greedy max coverage. Each step takes the sample with the most uncovered n-grams (ties: the
# lower index) and removes those n-grams from the graph.

# %%
toy = [
    "red apple pie",
    "green apple tart",
    "red cherry pie",
    "red apple pie",
    "blue sky sea",
    "green sea",
]
g_toy = build_graph(toy, n_max=1, weighting="binary")
W = g_toy.incidence.toarray()
order = graphfilter(g_toy, np.ones(len(toy)), k=len(toy))
covered = np.zeros(W.shape[1], bool)
steps = []
for u in order:
    steps.append(W[:, ~covered].sum(1))  # D(u) of every sample before this step
    covered |= W[u] > 0
print("greedy order:", order, "(", len(order), "of", len(toy), "samples; the rest has D = 0 )")
for t, (u, d) in enumerate(zip(order, steps, strict=True)):
    print(f"step {t + 1}: D = {d.astype(int).tolist()} -> take {u}: {toy[u]!r}")

G = nx.Graph()
G.add_nodes_from((f"u{i}" for i in range(len(toy))), side=0)
G.add_nodes_from(g_toy.vocabulary, side=1)
G.add_edges_from((f"u{i}", g_toy.vocabulary[j]) for i, j in zip(*np.nonzero(W), strict=True))
pos = nx.bipartite_layout(G, [f"u{i}" for i in range(len(toy))])
fig, axes = plt.subplots(1, 2, figsize=plotting.figsize("wide"))
step_of = {u: t + 1 for t, u in enumerate(order)}
colors = [
    plotting.method_color("ours") if n.startswith("u") and int(n[1:]) in step_of else "#cccccc"
    for n in G.nodes
]
nx.draw_networkx(G, pos, ax=axes[0], node_color=colors, node_size=420, font_size=8)
axes[0].set_title("Samples (left) and their unigrams (right)")
axes[0].axis("off")
D = np.array(steps)
im = axes[1].imshow(D, cmap="Blues", aspect="auto")
axes[1].set_xticks(range(len(toy)), [f"u{i}" for i in range(len(toy))])
axes[1].set_yticks(range(len(order)), [f"step {t + 1}: take u{u}" for t, u in enumerate(order)])
axes[1].set_xlabel("sample")
axes[1].set_title("Uncovered n-grams D(u) before each step")
axes[1].grid(False)
fig.colorbar(im, ax=axes[1], label="D(u)")
plotting.panel_labels(axes)
fig.suptitle("Greedy cover: each pick removes its n-grams; the twin u3 of u0 drops to D = 0")
plt.show()

# %% [markdown]
# (a) The graph; coloured samples are the ones GraphFilter takes. (b) The diversity D(u) of each
# sample before each step (a row per step). After u0 is taken, its exact twin u3 has nothing
# left to cover and is never taken; u2 keeps only "cherry". Once every n-gram is covered the
# loop stops early, before the budget of six.
#
# ## Lazy heap = naive recomputation on the real pool
#
# The pool gets 25 % shuffled responses and 20 % near-duplicates (word dropout); the graph has
# 1–3-grams of instruction + response with tf·idf weights; quality is 1/IFD. Priorities only
# decrease as coverage grows, so a lazy max-heap that re-evaluates only the popped sample is
# exact. Static ranking by $\varphi_0$ (no recomputation) is the negative control.

# %%
diff_lazy, diff_static, t_lazy, t_naive, ifd_all, bad_all, cov = [], [], [], [], [], [], []
noisy_all = []
for seed in CONFIG["seeds"]:
    noisy, bad, dup = plant_noise(pool, corrupt_frac=0.25, dup_frac=0.2, seed=seed)
    graph = build_graph([x + " " + y for x, y in noisy], n_max=3)
    ifd = ifd_scores(noisy, lm=CONFIG["lm"], seed=seed)
    q = quality_from_ifd(ifd, "inverse")
    t0 = time.perf_counter()
    lazy = graphfilter(graph, q, CONFIG["k"])
    t1 = time.perf_counter()
    naive = graphfilter(graph, q, CONFIG["k"], lazy=False)
    t2 = time.perf_counter()
    static = graphfilter(graph, q, CONFIG["k"], update=False)
    t_lazy.append(t1 - t0)
    t_naive.append(t2 - t1)
    diff_lazy.append(np.mean(np.array(lazy) != np.array(naive)))
    diff_static.append(np.mean(np.array(static) != np.array(naive)))
    ifd_all.append(ifd)
    bad_all.append(bad)
    noisy_all.append(noisy)
    cov.append(
        (
            subset_stats(noisy, lazy, bad, dup, graph)["coverage"],
            subset_stats(noisy, static, bad, dup, graph)["coverage"],
        )
    )
diff_lazy, diff_static = np.array(diff_lazy), np.array(diff_static)
speedup = np.array(t_naive) / np.array(t_lazy)
print(f"pool after noise: {len(noisy)} pairs, {graph.incidence.shape[1]} n-grams")
print("share of positions where lazy != naive:  ", diff_lazy.round(3))
print("share of positions where static != naive:", diff_static.round(3))
print("time lazy [s]:", np.round(t_lazy, 3), " naive [s]:", np.round(t_naive, 2))
print("n-gram coverage, lazy vs static:", np.round(cov, 3).tolist())

# %% [markdown]
# The two greedy variants return the same list in every seed; the static ranking differs in
# most positions (and covers fewer n-grams: it keeps taking samples whose n-grams are already
# covered). Of the timings, only a bound is asserted (naive at least 10× slower, in every
# seed): the lazy heap is {glue:text}`speedup:.0f`× faster on average here, because naive
# recomputation touches every sample at every step.
#
# ## IFD finds the shuffled responses
#
# IFD(x, y) = PPL(y | x) / PPL(y), from a word-bigram scorer and a co-occurrence "translation"
# table learned on the noisy pool itself (a stand-in for SuperFilter's GPT-2). A response that
# belongs to another instruction gets no help from its instruction, so its IFD is higher.
# The model-free comparison is the word overlap of instruction and response: 1 − Jaccard of
# their word sets, also higher when the response belongs elsewhere.


# %%
def words(t):
    return set(t.lower().split())


auroc = np.array([roc_auc_score(b, s) for b, s in zip(bad_all, ifd_all, strict=True)])
auroc_overlap = np.array(
    [
        roc_auc_score(
            b, [1 - len(words(x) & words(y)) / max(len(words(x) | words(y)), 1) for x, y in nz]
        )
        for b, nz in zip(bad_all, noisy_all, strict=True)
    ]
)
ifd_clean = np.mean([s[~b].mean() for b, s in zip(bad_all, ifd_all, strict=True)])
ifd_bad = np.mean([s[b].mean() for b, s in zip(bad_all, ifd_all, strict=True)])
keep_tau = np.mean([np.mean(s < 1.0) for s in ifd_all])  # share of the pool with IFD < 1
keep_tau_clean = np.mean([np.mean(s[~b] < 1.0) for b, s in zip(bad_all, ifd_all, strict=True)])
print("AUROC of IFD for the planted corruptions:          ", auroc.round(3))
print("AUROC of 1 - word Jaccard(x, y) (model-free control):", auroc_overlap.round(3))
print(f"mean IFD clean {ifd_clean:.2f}, corrupted {ifd_bad:.2f}")
print(
    f"IFD < 1 (kept by Superfiltering's tau = 1): {keep_tau:.2f} of the pool, "
    f"{keep_tau_clean:.2f} of the clean pairs"
)

fig, ax = plt.subplots(figsize=plotting.figsize("single"))
s, b = ifd_all[0], bad_all[0]
bins = np.linspace(np.percentile(s, 1), np.percentile(s, 99), 40)
ax.hist(s[~b], bins, alpha=0.7, label="clean pairs", color=plotting.method_color("ours"))
ax.hist(s[b], bins, alpha=0.7, label="shuffled responses", color=plotting.PALETTE[3])
ax.axvline(1.0, color="k", lw=1, ls="--", label="IFD = 1 (Superfiltering's cut)")
ax.set_xlabel("IFD = PPL(y|x) / PPL(y)")
ax.set_ylabel("pairs")
ax.set_title("Shuffled responses have higher IFD (noise seed 0)")
ax.legend()
plt.show()

# %% [markdown]
# Clean pairs (blue) sit lower than the shuffled ones (orange), but most clean pairs are also
# above 1: Superfiltering's cut at τ = 1 would keep only {glue:text}`keep_tau:.2f` of the pool
# ({glue:text}`keep_tau_clean:.2f` of the clean pairs) with this stand-in scorer. That comes from
# how the scorer is built, not from the data: $\mathrm{PPL}(y \mid x)$ mixes the bigram half and
# half with a capped, unnormalised translation score, so wherever the bigram alone is confident
# (a low $\mathrm{PPL}(y)$) the conditional model is *worse* than the unconditional one and the
# IFD exceeds 1; the IFD = 1 of GPT-2's scale does not carry over. The chapter uses the monotone
# map quality = 1/IFD instead, and keeps the paper's literal orientation (higher IFD = better)
# as an ablation in notebook 2.
#
# ## What else the stand-in IFD sees: how often a pair repeats
#
# The chatterbot pool repeats some pairs many times (the tech-support file about 100×). The
# scorer is trained on the pool itself, so a repeated pair is well known to both of its
# models, and the conditional model adds little on top: its IFD is high. Below, the mean IFD of the
# clean pairs by how many exact copies of the pair the noisy pool holds (mean over seeds).

# %%
copy_rows = []
for seed, (nz, b, s) in enumerate(zip(noisy_all, bad_all, ifd_all, strict=True)):
    counts = Counter(nz)
    n_copies = np.array([counts[p] for p in nz])
    for label, sel in [
        ("1 (a singleton)", n_copies == 1),
        ("2-5", (n_copies >= 2) & (n_copies <= 5)),
        (">= 6", n_copies >= 6),
    ]:
        copy_rows.append(
            {
                "seed": seed,
                "copies": label,
                "mean IFD": s[~b & sel].mean(),
                "clean pairs": int((~b & sel).sum()),
            }
        )
    copy_rows.append(
        {"seed": seed, "copies": "shuffled responses", "mean IFD": s[b].mean(), "clean pairs": 0}
    )
copy_table = pd.DataFrame(copy_rows).groupby("copies", sort=False)[["mean IFD", "clean pairs"]]
print(copy_table.mean().round(2).to_string())
ifd_single = copy_table.mean().loc["1 (a singleton)", "mean IFD"]
ifd_many = copy_table.mean().loc[">= 6", "mean IFD"]

# %% [markdown]
# Clean singletons have a mean IFD of {glue:text}`ifd_single:.2f`, clean pairs with six or more
# copies {glue:text}`ifd_many:.2f`, about as high as the shuffled responses. So
# $q = 1/\mathrm{IFD}$ also rates repeated clean pairs low, which flatters the "quality" half in
# notebook 2: quality top-k takes few repeated pairs. (The cover step already removes most
# repeats: a copy of a taken pair has nothing left to cover.) $q$ is also heavy-tailed, which
# sets the scale of the additive ablation's $q/\max q$.
#
# ## Claim check

# %%
runtime_s = time.perf_counter() - t_start  # wall s of the cells after the imports
cpu_s = time.process_time()  # CPU s (user + system) of the kernel since its start, imports too
assert len(order) < len(toy) and 3 not in order, "the toy twin must never be taken"
assert np.all(speedup >= 10), f"naive / lazy time ratio below 10x: {speedup.round(1)}"
claim(
    "graphfilter/1_graph/lazy_equals_naive",
    "The lazy max-heap returns exactly the selection of naive full recomputation (k = 200 on the "
    "noisy chatterbot pool, quality 1/IFD): no position differs; a static ranking by the initial "
    "priority (no recomputation) does differ",
    paper="take the top sample, remove its n-grams, recompute the priorities (Sec. 3, unverified)",
    value=diff_lazy,
    check=within(0.0, 0.0),
    control=("static ranking by phi_0", diff_static),
    verdict="illustrated",
    caveat="true by construction (priorities only fall as coverage grows, so the lazy heap is "
    "exact; also a unit test); the static control is the method without its update step; of "
    "the speed, only the bound naive / lazy >= 10x in every seed is checked (an assert)",
    numbers={
        "lazy time [s]": float(np.mean(t_lazy)),
        "naive time [s]": float(np.mean(t_naive)),
        "speed-up": float(np.mean(speedup)),
    },
    fmt=".3f",
)
LM_NAME, SCORER = {
    "ngram": ("n-gram", "a bigram scorer trained on the pool itself"),
    "transformer": ("transformer", "a 2-layer word transformer trained on the pool itself"),
}[CONFIG["lm"]]
claim(
    "graphfilter/1_graph/ifd_detects_corruption",
    f"IFD from the {LM_NAME} stand-in scorer ranks the planted shuffled responses above the clean "
    "pairs: AUROC > 0.7 in every noise seed; the model-free word overlap of instruction and "
    "response does not",
    paper="SuperFilter/IFD as the quality score (Eq. 2); the paper does not test detection",
    value=auroc,
    check=greater(0.7),
    control=("1 - word Jaccard(x, y)", auroc_overlap),
    verdict="illustrated",
    numbers={
        "mean IFD clean": float(ifd_clean),
        "mean IFD corrupted": float(ifd_bad),
        "mean IFD clean singletons": float(ifd_single),
        "mean IFD clean pairs with >= 6 copies": float(ifd_many),
    },
    caveat=f"a check of our stand-in ({SCORER}, not GPT-2), not a paper claim; the 0.7 "
    "threshold was set after the pilot's 0.78 on this corpus"
    + ("" if CONFIG["lm"] == "ngram" else " (bigram scorer) and is untested with the transformer")
    + "; the IFD is also high for pairs that repeat in the pool",
    fmt=".3f",
)
glue("n_pool", len(pool), display=False)
glue("n_test", len(test), display=False)
glue("auroc", float(auroc.mean()), display=False)
glue("ifd_clean", float(ifd_clean), display=False)
glue("ifd_bad", float(ifd_bad), display=False)
glue("keep_tau", float(keep_tau), display=False)
glue("keep_tau_clean", float(keep_tau_clean), display=False)
glue("ifd_single", float(ifd_single), display=False)
glue("ifd_many", float(ifd_many), display=False)
glue("speedup", float(np.mean(speedup)), display=False)
glue("t_lazy", float(np.mean(t_lazy)), display=False)
glue("t_naive", float(np.mean(t_naive)), display=False)
glue("runtime_s", runtime_s, display=False)
glue("cpu_s", cpu_s, display=False)
