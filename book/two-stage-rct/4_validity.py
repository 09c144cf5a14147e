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
# # Validity: a maximum of lower bounds needs a correction
#
# Every design here certifies $\max_{i\in B}(\bar x_i - w(m, \delta))$. Each arm's bound
# $\bar x_i - w$ falls below $\mu_i$ with probability at least $1-\delta$, but the certificate
# takes the **largest** of $k$ such bounds, and the largest is the one most likely to have come
# out too high. With $k$ equal arms and exact widths it misses with probability
# $1-(1-\delta)^k$, 0.41 for $k = 5$ at $\delta = 0.1$. A Bonferroni correction (width at level
# $\delta/k$) restores the $1-\delta$ guarantee for the maximum.
#
# What the paper guarantees: its abstract speaks of "high probability lower bounds on the
# treatment effect"; the official code applies the per-arm $\delta$ to the maximum without a
# correction. We did not verify the exact statement of the paper's theorem. This notebook shows
# the size of the effect and whether correcting it changes the comparison between designs.

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
from icml25.common.claims import claim, greater, less
from icml25.two_stage_rct import LABELS, coverage_vs_k, simulate

t_start = time.perf_counter()
SCALE = setup(seed=0)
CONFIG = {
    "small": {"ks": [1, 2, 3, 5, 8, 10, 15, 20], "cov_trials": 20000, "trials": 2000, "seeds": 3},
    "large": {
        "ks": [1, 2, 3, 5, 8, 10, 15, 20, 30, 50],
        "cov_trials": 200000,
        "trials": 20000,
        "seeds": 10,
    },
}[SCALE]
DELTA = 0.1
print(SCALE, CONFIG)

# %% [markdown]
# ## The worst case: equal arms, exact widths
#
# All $k$ arms have effect 0 and Normal$(0, 1)$ outcomes, 30 per arm, and the width is the
# exact Gaussian one, $z_{1-\delta}/\sqrt m$: each single bound misses with probability exactly
# $\delta$.

# %%
cov = coverage_vs_k(CONFIG["ks"], 30, DELTA, CONFIG["cov_trials"], np.random.default_rng(0))
pd.DataFrame({k: cov[k] for k in ("k", "none", "bonferroni")}).round(3).set_index("k").T

# %% tags=["hide-input"]
ks = cov["k"]
fig, ax = plt.subplots(figsize=plotting.figsize("single"))
ax.errorbar(
    ks,
    cov["none"],
    yerr=2 * cov["se_none"],
    marker="o",
    capsize=3,
    c=plotting.PALETTE[3],
    label="uncorrected max-certificate",
)
ax.plot(ks, 1 - (1 - DELTA) ** ks, "k:", label="$1-(1-\\delta)^k$")
ax.errorbar(
    ks,
    cov["bonferroni"],
    yerr=2 * cov["se_bonferroni"],
    marker="s",
    capsize=3,
    c=plotting.PALETTE[2],
    label="Bonferroni ($\\delta/k$ per arm)",
)
ax.axhline(DELTA, c="0.5", ls="--", label="target $\\delta$")
ax.set(
    xlabel="number of arms certified, k",
    ylabel="P(certificate > certified arm's effect)",
    title="Without a correction the max-certificate misses far more often than $\\delta$",
)
ax.legend(fontsize=8)
plt.show()

# %% [markdown]
# **What to see.** The uncorrected miss rate follows $1-(1-\delta)^k$ (dotted) and passes 0.5
# for $k$ around 7; the Bonferroni certificate stays at or below $\delta$ for every $k$ (error
# bars: two Monte Carlo standard errors).

# %% [markdown]
# ## In the designs: does the correction change the ranking?
#
# The Bernoulli designs of the previous notebooks use Hoeffding widths, which are conservative
# unless effects are near 0.5, so their miss rates are usually well below $\delta$. Below, the
# designs run uncorrected and Bonferroni-corrected for effects drawn from $U(0,1)$ and from
# Beta(8, 8) and Beta(32, 32) (effects bunched near 0.5, where Hoeffding is nearly tight).

# %%
settings = {
    "U(0,1)": {"mu_dist": "uniform"},
    "Beta(8,8)": {"mu_dist": "beta", "alpha": 8, "beta": 8},
    "Beta(32,32)": {"mu_dist": "beta", "alpha": 32, "beta": 32},
}
designs = {k: LABELS[k] for k in ("Sample split", "Best arm (k=1)", "Random k", "Single stage")}
rows = []
for name, setting in settings.items():
    for correction in ("none", "bonferroni"):
        for seed in range(CONFIG["seeds"]):
            df = simulate(
                designs,
                CONFIG["trials"],
                np.random.default_rng(seed),
                n_arms=10,
                budget=500,
                first_frac=0.3,
                delta=DELTA,
                correction=correction,
                **setting,
            )
            agg = df.groupby("design").agg(normalized=("normalized", "mean"), miss=("miss", "mean"))
            rows.append(agg.assign(effects=name, correction=correction, seed=seed).reset_index())
res = pd.concat(rows, ignore_index=True)
summary = res.groupby(["effects", "correction", "design"])[["normalized", "miss"]].mean()
summary.unstack("design").round(3)

# %% tags=["hide-input"]
fig, axes = plt.subplots(1, 2, figsize=plotting.figsize("wide"))
names = list(settings)
for ax, metric, label in [
    (axes[0], "normalized", "certificate / best effect"),
    (axes[1], "miss", "miss rate"),
]:
    for i, design in enumerate(designs):
        for j, correction in enumerate(("none", "bonferroni")):
            vals = [summary.loc[(n_, correction, design), metric] for n_ in names]
            xs = np.arange(len(names)) + (2 * i + j - 3.5) * 0.1
            style = {
                "color": plotting.method_color(design),
                "alpha": 1.0 if correction == "none" else 0.45,
                "label": f"{design}, {'uncorrected' if correction == 'none' else 'Bonferroni'}",
            }
            if metric == "miss":  # rates: bars from 0
                ax.bar(xs, vals, 0.1, **style)
            else:  # certificates: dots, so the axis need not start at 0
                ax.plot(xs, vals, "o" if correction == "none" else "s", ms=7, ls="none", **style)
    ax.set(
        xticks=np.arange(len(names)),
        xticklabels=names,
        ylabel=label,
        xlabel="distribution of the arm effects",
    )
axes[0].set_ylim(0.6, 0.95)
axes[1].axhline(DELTA, c="0.5", ls="--")
axes[0].set_title("Certificates (faded squares: Bonferroni)")
axes[1].set_title("Miss rates (dashed: $\\delta$)")
axes[1].legend(fontsize=7, ncol=1, loc="upper left")
plotting.panel_labels(axes)
fig.suptitle("The correction costs the single-stage trial most, so two stages gain more")
plt.show()

# %% [markdown]
# **What to see.** (b) Uncorrected, the single-stage certificate, a maximum over all ten arms,
# misses most often, reaching about $\delta$ when the effects are bunched; the two-stage designs
# keep few arms and miss less. With the correction every miss rate is well below $\delta$.
# (a) The correction lowers every certificate, but the single stage's most, since it corrects
# for ten arms: corrected, sample splitting beats the single stage in all three settings,
# including Beta(32, 32), where uncorrected it did not. Keeping only the best arm needs no
# correction at all ($k = 1$), and with bunched effects it is then the best of the four. Even a
# random $k$ beats the corrected single stage, by less: against a single stage, any screening
# gains once the certificates are made valid for the maximum, so this comparison says little
# about *how* $k$ is chosen.

# %% [markdown]
# ## Claim check
#
# The Bonferroni certificate misses at most $\delta$ (plus three Monte Carlo standard errors) for
# every $k$; the uncorrected one matches $1-(1-\delta)^k$ within four standard errors and
# exceeds $\delta$ from $k = 2$ on. With the correction, sample splitting beats the single stage
# in every setting and seed, and no corrected design misses more than $\delta$.

# %%
theory = 1 - (1 - DELTA) ** ks
assert np.all(cov["none"][ks >= 2] > DELTA), cov["none"]  # the caveat below
assert np.all(np.abs(cov["none"] - theory) <= 4 * cov["se_none"] + 1e-3), cov["none"] - theory
corr = res[res.correction == "bonferroni"].pivot_table(
    index=["effects", "seed"], columns="design", values="normalized"
)
gain_corrected = corr["Sample split"] - corr["Single stage"]
gain_random_corrected = corr["Random k"] - corr["Single stage"]
max_miss_corrected = float(res[res.correction == "bonferroni"].miss.max())
assert max_miss_corrected <= DELTA, max_miss_corrected
unc = summary.xs("none", level="correction")
runtime_s = time.perf_counter() - t_start
k5 = int(np.flatnonzero(ks == 5)[0])
claim(
    "two-stage-rct/4_validity/max_certificate_valid",
    "The certificate of the best kept arm is a valid (1 - delta) lower bound: over k equal arms "
    "it misses at most delta of the time (within 3 standard errors)",
    paper='"high probability lower bounds" on the best effect',
    value=cov["bonferroni"],
    check=less(DELTA + 3 * cov["se_bonferroni"], label="delta + 3 se"),
    control=("uncorrected maximum, k equal arms (worst case)", cov["none"]),
    verdict="illustrated",
    fmt=".3f",
    caveat=f"true by construction for the corrected bound (1 - (1 - delta/k)^k <= delta; the "
    f"simulation checks the code); the point is the worst case without it: the uncorrected "
    f"maximum over k equal arms misses {cov['none'][k5]:.2f} of the time at k = 5 (theory "
    f"{theory[k5]:.2f}); the Bernoulli designs with Hoeffding widths miss far less (figure "
    "above); we did not verify the paper's theorem statement",
    over="values of k",
)
claim(
    "two-stage-rct/4_validity/corrected_split_beats_single",
    "With the corrected certificate, sample splitting still beats a single stage in every "
    "setting and seed",
    paper="two-stage designs beat single-stage ones (Fig. 1)",
    value=gain_corrected.to_numpy(),
    check=greater(0.0),
    verdict="illustrated",
    caveat="not a test of the design: the corrected single stage pays for ten arms, so any "
    f"two-stage design that keeps fewer wins here (a random k by {gain_random_corrected.mean():.3f}"
    f" on average, sample splitting by {gain_corrected.mean():.3f})",
    fmt=".3f",
    over="(effects, seed) pairs",
    seeds=int(corr.index.get_level_values("seed").nunique()),
)
glue("miss_none_k5", float(cov["none"][k5]))
glue("miss_bonf_k5", float(cov["bonferroni"][k5]))
glue("miss_none_kmax", float(cov["none"][-1]))
glue("kmax", int(ks[-1]))
glue("gain_corrected_min", float(gain_corrected.min()))
glue("miss_single_unc_b32", float(unc.loc[("Beta(32,32)", "Single stage"), "miss"]))
glue("runtime_s", runtime_s)
