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
# # Detection: DIS-CO against MCQA, VL-MIA-style metrics and a white-box oracle
#
# The paper's headline: a movie's DIS-CO score (the share of its frames the model names in free
# form) tells suspect movies (in the training data) from clean ones better than the prior
# methods, by AUC over movies, and free-form answers have a **zero floor** on content the model
# has never seen, where multiple choice has a 25 % floor. This notebook trains the tiny VLM on
# three seeds (movies, split, frames and model all re-drawn) and scores every movie with six
# methods: DIS-CO, ⌊DIS-CO⌋ (caption-known frames removed), MCQA (four options, with never-seen
# decoy titles or with other movies' titles), perplexity and Min-K% of the model's own caption
# (VL-MIA-style, title-free), and the white-box title log-likelihood (oracle).

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
from scipy import stats
from tqdm import tqdm

from icml25.common import glue, plotting, setup
from icml25.common.claims import claim, greater, within
from icml25.disco import (
    METHODS,
    all_scores,
    build_title_vlm,
    detection_auc,
    disco_scores,
    make_movies,
    make_split,
    train_title_vlm,
)

t_start = time.perf_counter()
SCALE = setup(seed=0)
CONFIG = {
    "small": {
        "n_movies": 40,
        "n_eval": 20,
        "epochs": 30,
        "cnn_width": 32,
        "n_embd": 64,
        "seeds": (0, 1, 2),
    },
    "large": {
        "n_movies": 80,
        "n_eval": 40,
        "epochs": 40,
        "cnn_width": 64,
        "n_embd": 128,
        "seeds": (0, 1, 2, 3, 4),
    },
}[SCALE]
print(SCALE, CONFIG)

# %% [markdown]
# ## Three seeds, seven scores per movie
#
# For each seed: new movies, a new split and new frames, a new model trained for the same
# number of epochs. Every method scores the same held-out main frames. The untrained model of
# the same seed gives the negative control.

# %%
runs = []
for seed in tqdm(CONFIG["seeds"]):
    split = make_split(
        make_movies(CONFIG["n_movies"], seed=seed), n_eval=CONFIG["n_eval"], seed=seed
    )
    width = {"cnn_width": CONFIG["cnn_width"], "n_embd": CONFIG["n_embd"]}
    untrained = build_title_vlm(split, seed=seed, **width)
    d_untrained = disco_scores(untrained, split)
    model = build_title_vlm(split, seed=seed, **width)
    train_title_vlm(model, split, epochs=CONFIG["epochs"], seed=seed, progress=False)
    runs.append(
        {
            "seed": seed,
            "split": split,
            "tables": all_scores(model, split, seed=seed),
            "untrained_auc": detection_auc(d_untrained.accuracy, d_untrained.label),
        }
    )

auc = pd.DataFrame(
    [{m: detection_auc(t["value"], t["label"]) for m, t in r["tables"].items()} for r in runs],
    index=[r["seed"] for r in runs],
)
auc.index.name = "seed"
auc.round(3)

# %% [markdown]
# ## F1: detection AUC per method

# %%
colors = plotting.method_colors(METHODS)
colors["DIS-CO"] = plotting.method_color("ours")
fig, ax = plt.subplots(figsize=plotting.figsize("wide"))
x = np.arange(len(METHODS))
mean, sd = auc[list(METHODS)].mean(), auc[list(METHODS)].std(ddof=1)
ax.bar(x, mean, yerr=sd, color=[colors[m] for m in METHODS], capsize=4, alpha=0.85)
for i, m in enumerate(METHODS):
    ax.scatter(np.full(len(auc), i), auc[m], color="black", s=12, zorder=3)
ax.axhline(0.5, color="grey", ls="--", lw=1, label="chance (AUC 0.5)")
ax.axhline(1.0, color="grey", ls=":", lw=1, label="ceiling (AUC 1)")
ax.set_xticks(x, METHODS)
ax.set_ylim(0, 1.05)
ax.set_ylabel("AUC, suspect vs clean movies")
ax.set_title(f"Detection AUC over {len(auc)} seeds (bars: mean ± sd, dots: seeds), main frames")
ax.legend(loc="lower left")
plt.show()

# %% [markdown]
# Bars are the mean AUC over seeds, dots the single seeds, the dashed line chance. The
# title-free VL-MIA-style scores (perplexity and Min-K% of the model's own caption) sit
# closest to chance; the methods that use the title (DIS-CO, MCQA, the oracle) are far above.

# %% [markdown]
# ## F3: the floor on clean movies, free form against multiple choice

# %%
clean = []
for r in runs:
    L = r["tables"]["DIS-CO"].label.to_numpy()
    for m in ("DIS-CO", "MCQA (decoys)", "MCQA (others)"):
        t = r["tables"][m]
        sel = L == 0
        n = t.n_frames[sel].sum()
        clean.append(
            {
                "seed": r["seed"],
                "method": m,
                "pooled accuracy on clean movies": float((t.accuracy * t.n_frames)[sel].sum() / n),
                "max over clean movies": float(t.accuracy[sel].max()),
                "n": int(n),
            }
        )
clean = pd.DataFrame(clean)
n_clean = int(clean.n.iloc[0])
lo, hi = stats.binom.ppf([0.005, 0.995], n_clean, 0.25) / n_clean
fig, ax = plt.subplots(figsize=plotting.figsize("single"))
for i, m in enumerate(("DIS-CO", "MCQA (decoys)", "MCQA (others)")):
    v = clean[clean.method == m]["pooled accuracy on clean movies"]
    ax.bar(i, v.mean(), color=colors[m], alpha=0.85)
    ax.scatter(np.full(len(v), i), v, color="black", s=12, zorder=3)
ax.axhspan(lo, hi, color="grey", alpha=0.2, label="99 % interval around 1/4")
ax.axhline(0.25, color="grey", ls="--", lw=1)
ax.set_xticks(range(3), ["DIS-CO\n(free form)", "MCQA\n(decoys)", "MCQA\n(other titles)"])
ax.set_ylim(0, 0.5)
ax.set_ylabel("accuracy on clean movies (pooled frames)")
ax.set_title("Free-form answers have a zero floor; MCQA has a 1/4 floor")
ax.legend(loc="upper right")
plt.show()
clean.groupby("method")[["pooled accuracy on clean movies", "max over clean movies"]].mean()

# %% [markdown]
# On movies the model never saw, free-form naming is never right (no clean movie has a
# single frame named, on any seed), while MCQA with never-seen decoys sits at chance, inside the
# grey 99 % band. With other movies' titles as distractors, MCQA on clean movies falls **below**
# 1/4: the options include suspects' titles, which the model has learned to like, so it picks
# them. Either way MCQA's clean movies carry a floor that the per-movie score must rise above,
# and that floor is a property of the options, not of the model.

# %% [markdown]
# ## F4: AUC against exposure
#
# Each exposure level's suspects against all clean movies: how many training frames a movie
# needs before each method detects it.

# %%
exposures = sorted(set(runs[0]["split"].exposure[runs[0]["split"].label == 1]))
show = ("DIS-CO", "MCQA (decoys)", "perplexity", "Min-K%", "oracle")
rows = []
for r in runs:
    for m in show:
        t = r["tables"][m]
        for e in exposures:
            sel = (t.exposure == e) | (t.label == 0)
            rows.append(
                {
                    "seed": r["seed"],
                    "method": m,
                    "exposure": e,
                    "auc": detection_auc(t.value[sel], t.label[sel]),
                }
            )
by_exp = pd.DataFrame(rows)
fig, ax = plt.subplots(figsize=plotting.figsize("single"))
for m in show:
    g = by_exp[by_exp.method == m].groupby("exposure").auc
    ax.errorbar(
        exposures, g.mean(), yerr=g.std(ddof=1), marker="o", capsize=3, label=m, color=colors[m]
    )
ax.axhline(0.5, color="grey", ls="--", lw=1)
ax.set_xscale("log", base=2)
ax.set_xticks(exposures, [str(e) for e in exposures])
ax.set_ylim(0, 1.05)
ax.set_xlabel("training frames per suspect movie (exposure, log scale)")
ax.set_ylabel("AUC, suspects at this exposure vs clean")
ax.set_title("Detection grows with exposure (mean ± sd over seeds)")
ax.legend(fontsize=8, loc="lower right")
plt.show()
by_exp.pivot_table(index="exposure", columns="method", values="auc").round(3)

# %% [markdown]
# The x-axis is the number of training frames of the suspects compared (each level has a
# quarter of the suspects). The curves show where each method's margin appears.

# %%
runtime_s = time.perf_counter() - t_start
title_free = auc[["perplexity", "Min-K%"]].max(axis=1).to_numpy()
ratio = auc["DIS-CO"].to_numpy() / title_free
dec = clean[clean.method == "MCQA (decoys)"]["pooled accuracy on clean movies"].to_numpy()
oth = clean[clean.method == "MCQA (others)"]["pooled accuracy on clean movies"].to_numpy()
free_max = clean[clean.method == "DIS-CO"]["max over clean movies"].to_numpy()
claim(
    "disco/2_detection/zero_floor",
    "Free-form answers have a zero floor: no frame of any clean movie is named, on every seed",
    paper="free-form answers on unseen (clean) movies are about 0 %, MCQA's floor is 25 %",
    value=free_max,
    check=within(0.0, 0.0),
    control=("MCQA with decoys, pooled clean accuracy", dec),
    verdict="illustrated",
    caveat="close to true by construction: the model cannot write a title it never saw, and "
    "titles are pairwise far apart (rapidfuzz ratio < 60)",
    fmt=".3f",
)
in_binom = np.array([lo <= v <= hi for v in dec])
claim(
    "disco/2_detection/mcqa_chance_floor",
    "MCQA with never-seen decoys keeps clean movies at chance: pooled clean accuracy inside the "
    "99 % binomial interval around 1/4 on every seed",
    paper="MCQA has a 25 % floor on content the model never saw",
    value=dec,
    check=within(0.25, (hi - lo) / 2, label="1/4 (99 % binomial interval)"),
    verdict="not reproduced",
    caveat=f"inside the interval in {int(in_binom.sum())} of {len(dec)} seeds (pooled "
    f"{', '.join(f'{v:.3f}' for v in dec)}): frames of one movie share its true title, so they "
    "are not independent draws and the binomial interval is too narrow; the mean over seeds "
    f"is {dec.mean():.3f}. With other movies' titles as options, the seen titles pull clean "
    f"movies below 1/4 ({oth.mean():.3f})",
    fmt=".3f",
)
claim(
    "disco/2_detection/beats_title_free",
    "DIS-CO's AUC (all exposures) exceeds every title-free baseline's (perplexity and Min-K% of "
    "the model's own caption, VL-MIA-style) on every seed",
    paper="DIS-CO nearly doubles the average AUC of the best prior method (models with logits)",
    value=auc["DIS-CO"].to_numpy(),
    check=greater(title_free, label="best title-free AUC"),
    control=("untrained model's DIS-CO", np.array([r["untrained_auc"] for r in runs])),
    verdict="reproduced",
    numbers={
        "AUC ratio DIS-CO / best title-free": float(ratio.mean()),
        **{f"AUC {m}": float(auc[m].mean()) for m in METHODS},
    },
    fmt=".3f",
)
claim(
    "disco/2_detection/beats_mcqa",
    "DIS-CO's AUC exceeds MCQA's (never-seen decoys) on every seed",
    paper="DIS-CO beats MCQA on every model with logits (main table)",
    value=auc["DIS-CO"].to_numpy(),
    check=greater(auc["MCQA (decoys)"].to_numpy(), label="MCQA (decoys) AUC"),
    verdict="not reproduced",
    caveat="the tiny model ranks a seen title first even when it cannot write it out, so MCQA "
    "detects suspects at lower exposure; the white-box oracle is also at least as strong. "
    "DIS-CO's point here is that it needs no logits and has a zero floor",
    fmt=".3f",
)
assert (auc.to_numpy() >= 0).all() and (auc.to_numpy() <= 1).all()
KEYS = {
    "DIS-CO": "disco",
    "⌊DIS-CO⌋": "floor",
    "MCQA (decoys)": "mcqa_decoys",
    "MCQA (others)": "mcqa_others",
    "perplexity": "ppl",
    "Min-K%": "mink",
    "oracle": "oracle",
}
for m, key in KEYS.items():
    glue(f"auc_{key}", float(auc[m].mean()))
glue("auc_ratio", float(ratio.mean()))
glue("clean_decoys", float(dec.mean()))
glue("clean_others", float(oth.mean()))
glue("n_seeds", len(runs))
glue("runtime_s", runtime_s)
