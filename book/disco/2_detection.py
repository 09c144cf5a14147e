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
# has never seen, where multiple choice has a 25 % floor. This notebook uses the tiny VLM trained
# on three seeds (movies, split, frames and model all re-drawn) and scores every movie with six
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

from icml25.common import get_device, glue, plotting, setup
from icml25.common.claims import claim, greater, within
from icml25.disco import METHODS, all_scores, detection_auc, mcqa_scores, prepare_runs

t_start = time.perf_counter()
SCALE = setup(seed=0)

# %% [markdown]
# ## Three seeds, seven scores per movie
#
# For each seed: new movies, a new split and new frames, a new model trained for the same
# number of epochs (`prepare_runs`, the set-up shared with notebook 3, on `get_device()`: the
# CPU here, a GPU at `large` scale when one is visible). At `small` scale the trained weights
# are read from `data/disco/` (`pretrained=True`): they are the models `prepare_runs` trains
# (about 25 s of CPU each, fully seeded; `python -m icml25.disco.checkpoints` regenerates them,
# and a unit test checks that a fresh first epoch repeats their stored losses), committed so
# that notebooks 2 and 3 do not both train them. Every method scores the same held-out
# main frames. The settings (30 epochs, MCQA by log-likelihood per character) were fixed on
# seed 0, the illustration seed of notebook 1; the seeds here were never looked at before.
# The untrained model of the same seed gives the chance reference of MCQA; MCQA with the summed
# log-likelihood (the issue's `title_logprob`, not length-normalised) is computed next to it.

# %%
CONFIG, seed_runs = prepare_runs(SCALE, pretrained=SCALE == "small")
print(SCALE, get_device(), CONFIG)
runs = []
for sr in seed_runs:
    seed, split, model = sr.seed, sr.split, sr.model
    q_untrained = mcqa_scores(sr.untrained, split, distractors="decoys", seed=seed)
    tables = all_scores(model, split, seed=seed)
    summed = mcqa_scores(model, split, distractors="decoys", seed=seed, normalise=False)
    # negative control: the same AUCs with the labels permuted among the movies
    y_perm = np.random.default_rng(seed).permutation(split.label)
    runs.append(
        {
            "seed": seed,
            "split": split,
            "tables": tables,
            "untrained_decoys": q_untrained,
            "summed_auc": detection_auc(summed.accuracy, summed.label),
            "summed_clean": float(summed.accuracy[summed.label == 0].mean()),
            "perm_auc": {m: detection_auc(t["value"], y_perm) for m, t in tables.items()},
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
# The title-free baselines are weak here for a reason of the synthetic world: captions are
# templates over colours and props that several movies share, so the model's confidence in its
# own caption says little about whether it saw that movie. With the summed log-likelihood
# instead of the per-character one, MCQA (decoys) has AUC {glue:text}`auc_mcqa_summed:.3f`
# (per character {glue:text}`auc_mcqa_decoys:.3f`).

# %% [markdown]
# ## F3: the floor on clean movies, free form against multiple choice


# %%
def movie_level(acc: np.ndarray) -> tuple[float, float, float]:
    """Mean of per-movie accuracies (n_movies,), its 99 % t-interval half-width, and the t
    statistic against 1/4 (clipped to ±100: a zero spread gives an infinite t)."""
    n = len(acc)
    se = acc.std(ddof=1) / np.sqrt(n)
    half = stats.t.ppf(0.995, n - 1) * se
    t = (acc.mean() - 0.25) / se if se > 0 else np.sign(acc.mean() - 0.25) * np.inf
    return float(acc.mean()), float(half), float(np.clip(t, -100, 100))


F3_METHODS = ("DIS-CO", "MCQA (decoys)", "MCQA (others)")
clean, per_movie = [], []
for r in runs:
    L = r["tables"]["DIS-CO"].label.to_numpy()
    sources = {m: r["tables"][m] for m in F3_METHODS}
    sources["untrained MCQA (decoys)"] = r["untrained_decoys"]
    for m, t in sources.items():
        acc = t.accuracy.to_numpy()[L == 0]
        mean, half, tstat = movie_level(acc)
        clean.append(
            {
                "seed": r["seed"],
                "method": m,
                "mean over clean movies": mean,
                "99 % half-width (movies)": half,
                "t against 1/4": tstat,
                "max over clean movies": float(acc.max()),
            }
        )
        per_movie += [{"seed": r["seed"], "method": m, "accuracy": a} for a in acc]
clean, per_movie = pd.DataFrame(clean), pd.DataFrame(per_movie)
n_clean = int((runs[0]["split"].label == 0).sum())
t_crit = float(stats.t.ppf(0.995, n_clean - 1))
fig, axes = plt.subplots(1, 2, figsize=plotting.figsize("wide"))
ax = axes[0]
shown = (*F3_METHODS, "untrained MCQA (decoys)")
col = {**colors, "untrained MCQA (decoys)": plotting.PALETTE[7]}
for i, m in enumerate(shown):
    c = clean[clean.method == m]
    ax.bar(i, c["mean over clean movies"].mean(), color=col[m], alpha=0.6)
    ax.errorbar(
        i + np.linspace(-0.2, 0.2, len(c)),
        c["mean over clean movies"],
        yerr=c["99 % half-width (movies)"],
        fmt="o",
        color="black",
        ms=3,
        capsize=2,
    )
ax.axhline(0.25, color="grey", ls="--", lw=1, label="1/4")
ax.set_xticks(range(len(shown)), ["DIS-CO", "MCQA\ndecoys", "MCQA\nothers", "untrained\ndecoys"])
ax.set_ylim(-0.02, 0.6)
ax.set_ylabel("mean accuracy over clean movies")
ax.set_title("per seed: mean and 99 % t-interval over movies", fontsize=9)
ax.legend(loc="upper right")
ax = axes[1]
jit = np.random.default_rng(0)
for i, m in enumerate(F3_METHODS):
    v = per_movie[per_movie.method == m].accuracy.to_numpy()
    ax.scatter(i + jit.uniform(-0.25, 0.25, len(v)), v, s=10, color=col[m], alpha=0.6)
ax.axhline(0.25, color="grey", ls="--", lw=1)
ax.set_xticks(range(3), ["DIS-CO\n(free form)", "MCQA\n(decoys)", "MCQA\n(other titles)"])
ax.set_ylim(-0.03, 1.03)
ax.set_ylabel("accuracy of one clean movie")
ax.set_title("what detection ranks: every clean movie, all seeds", fontsize=9)
plotting.panel_labels(axes)
fig.suptitle("Clean movies: free form stays at 0; MCQA scatters around 1/4 or below it")
fig.tight_layout()
plt.show()
dec_t = clean[clean.method == "MCQA (decoys)"]["t against 1/4"].to_numpy()
oth_t = clean[clean.method == "MCQA (others)"]["t against 1/4"].to_numpy()
unt_t = clean[clean.method == "untrained MCQA (decoys)"]["t against 1/4"].to_numpy()
dec = clean[clean.method == "MCQA (decoys)"]["mean over clean movies"].to_numpy()
oth = clean[clean.method == "MCQA (others)"]["mean over clean movies"].to_numpy()
unt = clean[clean.method == "untrained MCQA (decoys)"]["mean over clean movies"].to_numpy()
dec_movie_max = float(per_movie[per_movie.method == "MCQA (decoys)"].accuracy.max())
glue("clean_decoys", float(dec.mean()))
glue("clean_decoys_min", float(dec.min()))
glue("clean_decoys_max", float(dec.max()))
glue("clean_decoys_inside", int((np.abs(dec_t) <= t_crit).sum()))
glue("clean_decoys_movie_max", dec_movie_max)
glue("clean_others", float(oth.mean()))
glue("clean_untrained", float(unt.mean()))
glue("n_clean", n_clean)
clean.round(3)

# %% [markdown]
# On movies the model never saw, free-form naming is never right: no clean movie has a single
# frame named, on any seed. MCQA with never-seen decoys averages
# {glue:text}`clean_decoys:.3f` over the clean movies (per seed from
# {glue:text}`clean_decoys_min:.3f` to {glue:text}`clean_decoys_max:.3f`; the movie-level
# 99 % t-interval over the {glue:text}`n_clean:.0f` clean movies contains 1/4 on
# {glue:text}`clean_decoys_inside:.0f` of the seeds), like the untrained model
# ({glue:text}`clean_untrained:.3f`). The frames of one movie share its title, so a movie-level
# interval is the right one; a frame-level binomial interval is too narrow. What detection ranks
# is panel (b): single clean movies reach an MCQA accuracy of up to
# {glue:text}`clean_decoys_movie_max:.2f` by chance, while DIS-CO keeps every one at 0 (the
# paper's floor argument). With other movies' titles as distractors, MCQA on clean movies falls
# **below** 1/4 ({glue:text}`clean_others:.3f`): the options include suspects' titles, which the
# model has learned to like, so it picks them. Either way MCQA's floor is a property of the
# options, not of the model.

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
ax.axhline(1.0, color="grey", ls=":", lw=1)
ax.set_xscale("log", base=2)
ax.set_xticks(exposures, [str(e) for e in exposures])
ax.set_ylim(0, 1.05)
ax.set_xlabel("training frames per suspect movie (exposure, log scale)")
ax.set_ylabel("AUC, suspects at this exposure vs clean")
ax.set_title("Detection grows with exposure (mean ± sd over seeds)")
ax.legend(fontsize=8, loc="lower right")
plt.show()
auc_exp = by_exp.pivot_table(index="exposure", columns="method", values="auc")
e_lo = exposures[0]
glue("e_lo", int(e_lo))
glue("auc_disco_elo", float(auc_exp.loc[e_lo, "DIS-CO"]))
glue("auc_mcqa_elo", float(auc_exp.loc[e_lo, "MCQA (decoys)"]))
glue("auc_ppl_elo", float(auc_exp.loc[e_lo, "perplexity"]))
sat = auc_exp.index[(auc_exp["DIS-CO"] >= 0.999)]
glue("e_sat_disco", int(sat.min()) if len(sat) else 0)
auc_exp.round(3)

# %% [markdown]
# The x-axis is the number of training frames of the suspects compared (each level has a fifth
# of the suspects); the dotted line is the ceiling, AUC 1. At the lowest exposure,
# {glue:text}`e_lo:.0f` frames, DIS-CO has AUC {glue:text}`auc_disco_elo:.3f` against
# {glue:text}`auc_mcqa_elo:.3f` for MCQA (decoys) and {glue:text}`auc_ppl_elo:.3f` for caption
# perplexity. DIS-CO reaches the ceiling (mean over seeds) from {glue:text}`e_sat_disco:.0f`
# training frames (0 means never); above the exposure where a method sits at the ceiling its
# comparison with the others is saturated and says nothing.

# %%
runtime_s = time.perf_counter() - t_start
title_free = auc[["perplexity", "Min-K%"]].max(axis=1).to_numpy()
ratio = auc["DIS-CO"].to_numpy() / title_free
free_max = clean[clean.method == "DIS-CO"]["max over clean movies"].to_numpy()
claim(
    "disco/2_detection/zero_floor",
    "Free-form answers have a zero floor: no frame of any clean movie is named, on every seed",
    paper="free-form answers on unseen (clean) movies are about 0 %, MCQA's floor is 25 %",
    value=free_max,
    check=within(0.0, 0.0),
    control=(
        "MCQA with decoys, max over clean movies",
        clean[clean.method == "MCQA (decoys)"]["max over clean movies"].to_numpy(),
    ),
    verdict="illustrated",
    caveat="close to true by construction: the model cannot write a title it never saw, and "
    "titles are pairwise far apart (rapidfuzz ratio < 60)",
    fmt=".3f",
)
claim(
    "disco/2_detection/mcqa_chance_floor",
    "MCQA with never-seen decoys keeps clean movies at chance: the t statistic of the clean "
    "movies' mean accuracy against 1/4 lies inside the movie-level 99 % interval on every seed",
    paper="MCQA has a 25 % floor on content the model never saw",
    value=dec_t,
    check=within(0.0, t_crit, label="0 (99 % t-interval over clean movies)"),
    control=("MCQA with other movies' titles as options", oth_t),
    verdict="illustrated",
    caveat="true by exchangeability: clean titles and decoys are i.i.d. draws of the same "
    "generator and neither was ever seen; the untrained model is at chance the same way "
    "(its numbers below)",
    numbers={
        "mean clean accuracy, decoys": float(dec.mean()),
        "mean clean accuracy, others": float(oth.mean()),
        "mean clean accuracy, untrained (decoys)": float(unt.mean()),
        "max |t|, untrained (decoys)": float(np.abs(unt_t).max()),
        "99 % critical t": t_crit,
    },
    fmt=".3f",
)
auc_perm = np.array([r["perm_auc"]["DIS-CO"] for r in runs])
auc_perm_free = np.array([max(r["perm_auc"]["perplexity"], r["perm_auc"]["Min-K%"]) for r in runs])
claim(
    "disco/2_detection/beats_title_free",
    "DIS-CO's AUC (all exposures) exceeds every title-free baseline's (perplexity and Min-K% of "
    "the model's own caption, VL-MIA-style) on every seed",
    paper="DIS-CO nearly doubles the average AUC of the best prior method (models with logits)",
    value=auc["DIS-CO"].to_numpy(),
    check=greater(title_free, label="best title-free AUC"),
    control=("DIS-CO with labels permuted among movies", auc_perm),
    verdict="partly",
    caveat=f"measured on {len(runs)} seeds never used for tuning; the ratio to the best "
    f"title-free baseline is {ratio.mean():.2f}x, not ~2x, and the paper's best prior method "
    "includes MCQA, which beats DIS-CO here (next row); the title-free baselines are weak "
    "because template captions over shared colours barely separate members, a property of "
    "the synthetic world",
    numbers={
        "AUC ratio DIS-CO / best title-free": float(ratio.mean()),
        "best title-free AUC, labels permuted": float(auc_perm_free.mean()),
        **{f"AUC {m}": float(auc[m].mean()) for m in METHODS},
        "AUC MCQA (decoys), summed log-lik.": float(np.mean([r["summed_auc"] for r in runs])),
    },
    fmt=".3f",
)
claim(
    "disco/2_detection/beats_mcqa",
    "DIS-CO's AUC exceeds MCQA's (never-seen decoys) on every seed",
    paper="nearly doubles the average AUC of the best prior method (MCQA among the baselines) on "
    "models with logits (abstract)",
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
glue("auc_mcqa_summed", float(np.mean([r["summed_auc"] for r in runs])))
glue("clean_summed", float(np.mean([r["summed_clean"] for r in runs])))
glue("auc_perm", float(auc_perm.mean()))
glue("n_seeds", len(runs))
glue("runtime_s", runtime_s)
