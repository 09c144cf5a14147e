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
# # Sample complexity: $k\log p$ against $k^2\log p$
#
# The paper's headline: when $\lambda\|v\|_\infty \gtrsim 1$, the thresholding estimator
# recovers the spike from $n = \Omega(k\log p)$ samples, whereas diagonal thresholding provably
# needs $n \gtrsim k^2\log p$ (and the other classical polynomial-time methods are only
# guaranteed with that many). This notebook measures the **probability of recovering the exact
# support** against the rescaled sample size $c = n/(k\log p)$ for several $(k, p)$: if a method
# needs $n \propto k\log p$, its curves collapse onto one; if it needs $n \propto k^2\log p$, they
# shift right as $k$ grows. It then fits the sample-size law's exponent and the two-stage
# estimator's error rate, compares our start of the power iterations with the authors' (their
# released code, `jxying/spca`), and ends with the method's condition: a *flat* spike, for which
# $\lambda\|v\|_\infty \gtrsim 1$ fails at fixed $\lambda$ as $k$ grows.
#
# The headline regime here, a **spiky** spike with one entry of size 0.7 and $\lambda = 4$, is
# this chapter's own choice (it puts the theorem's condition comfortably in force at small $n$);
# the authors' demo uses a flat $\pm 1/\sqrt k$ spike with $\lambda = 10$ and
# $n = 1000\,k\log p$, far more samples than a laptop grid affords; the flat spike at
# $\lambda = 10$ is run at the end.
#
# At `small` scale the notebook takes about two minutes on one CPU thread. Set
# `os.environ["ICML25_SCALE"] = "large"` before the set-up cell for larger $p$, more trials and a
# wider grid.

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
import seaborn as sns

from icml25.common import glue, plotting, setup
from icml25.common.claims import claim, greater, less, within
from icml25.sparse_pca import (
    loglog_slope,
    sample_complexity_grid,
    success_table,
    transition_table,
)

t_start = time.perf_counter()
SCALE = setup(seed=0)
CONFIG = {
    "small": {
        "ks": [10, 20, 40],
        "ps": [200, 500],
        "cs": [0.5, 1, 2, 4, 8, 16, 32, 64],
        "trials": 20,
        "lam": 4.0,
        "seeds": 3,
        "init_cs": [1, 2, 4, 8],
        "flat_ps": [500],
        "flat_cs": [0.5, 1, 2, 4, 8, 16, 32],
    },
    "large": {
        "ks": [10, 20, 40],
        "ps": [500, 1000],
        "cs": [0.5, 1, 2, 4, 8, 16, 32, 64, 128],
        "trials": 30,
        "lam": 4.0,
        "seeds": 5,
        "init_cs": [1, 2, 4, 8, 16],
        "flat_ps": [1000],
        "flat_cs": [0.5, 1, 2, 4, 8, 16, 32, 64],
    },
}[SCALE]
SEEDS = list(range(CONFIG["seeds"]))  # grid seeds: every instance of a grid has its own seed
print(SCALE, CONFIG)

# %% [markdown]
# ## The grid
#
# For every $k$, $p$ and $c$ we draw `trials` independent instances of the spiky model
# ($\lambda = 4$, $\|v\|_\infty = 0.7$), set $n = \lceil c\,k\log p\rceil$, and run four
# estimators on the same data: **thresholding** and the **two-stage** estimator of the paper,
# **diagonal thresholding** {cite:p}`johnstone2009consistency`, and **covariance
# thresholding** {cite:p}`krauthgamer2015semidefinite,deshpande2016covariance`. A trial is a
# success when the $k$ largest entries of $\hat v$ are exactly the support of $v$. The figures
# show grid seed 0; thresholding and diagonal thresholding also run on more grid seeds for the
# claim check (three in all at `small` scale).
#
# Our covariance thresholding is a simplified version: it soft-thresholds the off-diagonal of
# $\hat\Sigma - I$ at $\tau/\sqrt n$ and uses no sample splitting. In the spiky model the
# largest entries of $\hat\Sigma - I$ are row and column $i^\star$, $\lambda v_{i^\star} v_j$, so
# the thresholded matrix's top eigenvector points where thresholding's column does: that is why
# the two match below. It is a property of the spiky structure, which the literature's version
# meets too; its sample splitting, left out here, would cost samples.

# %%
methods = ["Thresholding", "Two-stage", "Diagonal thresholding", "Covariance thresholding"]
grid = sample_complexity_grid(
    methods, CONFIG["ks"], CONFIG["ps"], CONFIG["cs"], CONFIG["lam"], CONFIG["trials"], seed=0
)
table = success_table(grid)
c50 = transition_table(grid)
c50_seeds = [c50[c50.method.isin(["Thresholding", "Diagonal thresholding"])].assign(seed=0)]
for seed in SEEDS[1:]:
    more = sample_complexity_grid(
        ["Thresholding", "Diagonal thresholding"],
        CONFIG["ks"],
        CONFIG["ps"],
        CONFIG["cs"],
        CONFIG["lam"],
        CONFIG["trials"],
        seed=seed,
        progress=False,
    )
    c50_seeds.append(transition_table(more).assign(seed=seed))
c50_seeds = pd.concat(c50_seeds, ignore_index=True)
c50.pivot_table(index=["k", "p"], columns="method", values="c50").round(1)

# %% [markdown]
# The table gives $c_{50}$, the rescaled sample size $n/(k\log p)$ at which each method first
# recovers the support in half of the trials (interpolated on the grid; `inf` means never on
# this grid).

# %% tags=["hide-input"]
k_colors = dict(zip(CONFIG["ks"], sns.color_palette("flare", len(CONFIG["ks"])), strict=True))
p_styles = dict(zip(CONFIG["ps"], ["-", "--", ":"], strict=False))


def success_panel(ax, method, scale_k_squared=False):
    for (k, p), g in table[table.method == method].groupby(["k", "p"]):
        x = g.c / k if scale_k_squared else g.c
        ax.plot(x, g.success, p_styles[p], marker="o", ms=3, c=k_colors[k], label=f"k={k}, p={p}")
    ax.set(xscale="log", ylim=(-0.03, 1.03), title=method)
    ax.set_xlabel("$n / (k^2 \\log p)$" if scale_k_squared else "$n / (k \\log p)$")


fig, axes = plt.subplots(2, 2, figsize=plotting.figsize("grid"), sharey=True)
axes = axes.ravel()
success_panel(axes[0], "Thresholding")
success_panel(axes[1], "Covariance thresholding")
success_panel(axes[2], "Diagonal thresholding")
success_panel(axes[3], "Diagonal thresholding", scale_k_squared=True)
axes[3].set_title("Diagonal thresholding, rescaled by $k^2$")
axes[0].set_ylabel("P(support recovered)")
axes[2].set_ylabel("P(support recovered)")
axes[0].legend(fontsize=8)
plotting.panel_labels(axes)
fig.suptitle(
    "Thresholding needs $n \\propto k\\log p$ samples; diagonal thresholding needs $n \\propto "
    "k^2\\log p$"
)
plt.show()

# %% [markdown]
# **What to see.** (a) The thresholding curves for all $k$ and $p$ nearly lie on top of each other:
# the support is found once $n$ is a few times $k\log p$, whatever $k$. (b) Covariance
# thresholding behaves the same way in this spiky regime (see above; its cost, measured in the
# third notebook, is another matter). (c) Diagonal thresholding needs a larger $c$ for every
# $k$, and its curves move right as $k$ grows. (d) Rescaled by $k^2\log p$ instead, its curves
# move much closer together but do not coincide: $k = 10$ still succeeds earlier than $k = 40$,
# which the fitted exponent below (above 2) confirms: diagonal thresholding needs at least
# $n \propto k^2\log p$.

# %% tags=["hide-input"]
fig, ax = plt.subplots(figsize=(7.0, 4.2))
marker_size = {"Covariance thresholding": 9, "Thresholding": 5, "Diagonal thresholding": 5}
for method in ["Covariance thresholding", "Thresholding", "Diagonal thresholding"]:
    for p, g in c50[c50.method == method].groupby("p"):
        finite = np.isfinite(g.c50)
        ax.plot(
            g.k[finite],
            g.c50[finite],
            p_styles[p],
            marker="o",
            ms=marker_size[method],
            c=plotting.method_color(method),
            label=f"{method}, p={p}",
        )
        if (~finite).any():  # never reached on the grid: an arrow above the grid's largest c
            for k in g.k[~finite]:
                ax.annotate(
                    "",
                    (k, 1.6 * max(CONFIG["cs"])),
                    (k, max(CONFIG["cs"])),
                    arrowprops={"arrowstyle": "->", "color": plotting.method_color(method)},
                )
ks = np.array(CONFIG["ks"])
ax.set(
    xscale="log",
    yscale="log",
    xlabel="sparsity k",
    ylabel="$c_{50}$: $n/(k\\log p)$ for 50% success",
    title="Diagonal thresholding needs more samples as k grows; thresholding does not (seed 0)",
)
ax.set_ylim(top=2 * max(CONFIG["cs"]))
plotting.plain_log_ticks(ax)
ax.set_xticks(ks, [str(k) for k in ks])
ax.legend(fontsize=8, loc="center right")
plt.show()

# %% [markdown]
# **What to see.** For thresholding and covariance thresholding $c_{50}$ is nearly flat in $k$: the
# sample size they need is a constant times $k\log p$. For diagonal thresholding $c_{50}$ grows
# faster than linearly in $k$ (the fitted exponent of $n_{50}$ is in the claim check); an arrow
# marks a $k$ for which it never reached 50 % on this grid.

# %% [markdown]
# ## The error rate
#
# The second stage, truncated power iterations started at the thresholding estimate, targets the
# minimax rate $\sin\angle(\hat v, v) \asymp \sqrt{k\log p / n}$. Rather than draw a guide
# line, we **fit** the rate, on several grid seeds: the slope of $\log\sin\angle$ against $\log n$
# over every trial past the transition ($c \ge 8$) for one $(k, p)$, with a 95 % confidence
# interval; and, at fixed $c = n/(k\log p) = 16$, the slope against $\log k$, which the rate
# $\sqrt{k\log p/n} = 1/\sqrt c$ predicts to be 0. One-shot thresholding is fitted too: past the
# transition it falls at the same rate, so the rate is not what sets the two-stage estimator
# apart (its smaller constant is, below). The controls: a **random $k$-sparse unit vector**, a
# null control whose error does not depend on $n$ by construction (it only shows that the check
# needs a falling error), and diagonal thresholding, whose error at fixed $c$ grows with $k$.

# %%
k_show, p_show = CONFIG["ks"][1], CONFIG["ps"][-1]
c_fix = 16
rate_methods = ["Two-stage", "Thresholding", "Random k-sparse", "Diagonal thresholding"]
fits = []
for seed in SEEDS:
    in_n = sample_complexity_grid(
        rate_methods[:3],
        [k_show],
        [p_show],
        [8, 16, 32, 64],
        CONFIG["lam"],
        CONFIG["trials"],
        seed=seed,
        progress=False,
    )
    in_k = sample_complexity_grid(
        [rate_methods[0], rate_methods[1], rate_methods[3]],
        CONFIG["ks"],
        CONFIG["ps"],
        [c_fix],
        CONFIG["lam"],
        CONFIG["trials"],
        seed=seed,
        progress=False,
    )
    for m in rate_methods:
        row = {"seed": seed, "method": m}
        g, h = in_n[in_n.method == m], in_k[in_k.method == m]
        if len(g):
            row |= dict(zip(["n", "n_lo", "n_hi"], loglog_slope(g.n, g.sin_theta), strict=True))
        if len(h):
            row |= dict(zip(["k", "k_lo", "k_hi"], loglog_slope(h.k, h.sin_theta), strict=True))
        fits.append(row)
fits = pd.DataFrame(fits)
fits.groupby("method")[["n", "n_lo", "n_hi", "k", "k_lo", "k_hi"]].mean().round(3)

# %% tags=["hide-input"]
sel = table[(table.k == k_show) & (table.p == p_show)]
fig, ax = plt.subplots(figsize=plotting.figsize("single"))
for method in methods:
    g = sel[sel.method == method]
    ax.plot(g.n, g.sin_theta, marker="o", ms=4, c=plotting.method_color(method), label=method)
f0 = fits[(fits.seed == 0) & (fits.method == "Two-stage")].iloc[0]
past_n = np.sort(sel[sel.c >= 8].n.unique())
g2 = sel[(sel.method == "Two-stage") & (sel.c >= 8)]
anchor = np.exp(np.mean(np.log(g2.sin_theta)) - f0.n * np.mean(np.log(g2.n)))
ax.plot(
    past_n,
    anchor * past_n**f0.n,
    "k:",
    lw=1.5,
    label=f"two-stage fit: slope {f0.n:.2f} [{f0.n_lo:.2f}, {f0.n_hi:.2f}]",
)
ax.set(
    xscale="log",
    yscale="log",
    xlabel="sample size n",
    ylabel="mean $\\sin\\angle(\\hat v, v)$",
    title=f"Past the transition the error falls like $n^{{-1/2}}$ (k={k_show}, p={p_show}, seed 0)",
)
plotting.plain_log_ticks(ax)
ax.legend(fontsize=8)
plt.show()

# %% [markdown]
# **What to see.** Once $n$ is past the transition, every method but diagonal thresholding
# falls like $n^{-1/2}$; the dotted line is the fitted two-stage rate (slope and 95 % interval
# of seed 0 in the legend; all seeds in the table above, next to thresholding and the random
# control). The two-stage estimator is below the one-shot thresholding estimator at every $n$
# past the transition, by a modest factor (the claim check gives it): with
# $\|v\|_\infty = 0.7$ the constant $1/(\lambda|v_{i^\star}|)$ is already small. Covariance
# thresholding ends with the restricted eigenvector, as the two-stage estimator does, so the two
# curves coincide once both have found the support.

# %% [markdown]
# ## Our start and the authors'
#
# Our first stage is the normalised truncated column $T_k(c)/\|T_k(c)\|$. The authors' released
# code starts the power iterations elsewhere: from the top eigenvector of $\hat\Sigma$
# restricted to the entries ranked 2 to $k+1$ of $|\hat\Sigma_{:,i^\star}|$ (its slice drops the
# largest entry, $\hat\Sigma_{i^\star i^\star}$ itself, so $i^\star$ is never in the start's
# support). We run both, as one-shot estimators and as starts of the power stage, near the
# transition ($k = 20$, $p = 500$, the values of $c$ in `CONFIG["init_cs"]`) on several grid
# seeds, paired per trial.

# %%
init_methods = [
    "Thresholding",
    "Thresholding (authors' start)",
    "Two-stage",
    "Two-stage (authors' start)",
]
init_grid = pd.concat(
    [
        sample_complexity_grid(
            init_methods,
            [k_show],
            [p_show],
            CONFIG["init_cs"],
            CONFIG["lam"],
            CONFIG["trials"],
            seed=seed,
            progress=False,
        ).assign(seed=seed)
        for seed in SEEDS
    ],
    ignore_index=True,
)
init_table = init_grid.groupby(["method", "c"])[["success", "sin_theta"]].mean().unstack("method")
init_table.round(3)

# %% tags=["hide-input"]
fig, axes = plt.subplots(1, 2, figsize=plotting.figsize("wide"))
for m in init_methods:
    g = init_grid[init_grid.method == m].groupby("c")[["success", "sin_theta"]].mean()
    style = {
        "c": plotting.method_color(m),
        "marker": "o",
        "ms": 4,
        "ls": "--" if "authors" in m else "-",
        "label": m,
    }
    axes[0].plot(g.index, g.success, **style)
    axes[1].plot(g.index, g.sin_theta, **style)
axes[0].set(
    xscale="log",
    xlabel="$n / (k \\log p)$",
    ylabel="P(support recovered)",
    ylim=(-0.03, 1.03),
    title="Support recovery",
)
axes[1].set(
    xscale="log",
    yscale="log",
    xlabel="$n / (k \\log p)$",
    ylabel="mean $\\sin\\angle(\\hat v, v)$",
    title="Error",
)
axes[0].legend(fontsize=8)
plotting.panel_labels(axes)
fig.suptitle(
    "The authors' start is poor on its own, but the power stage makes the two starts equal"
)
plt.show()

# %% [markdown]
# **What to see.** (a) Alone, the authors' start never recovers the exact support here: it
# leaves out $i^\star$, the largest entry of the spike. (b) Its error is correspondingly large.
# After the power iterations the two starts recover the support about equally often and reach
# nearly the same error: the power stage adds the missing coordinate back. (The comparison is
# in the spiky model, where the dropped $i^\star$ carries half of the spike's mass; in the
# authors' flat regime it carries $1/k$.) Since the start does not matter for the
# two-stage estimator, the package keeps the paper's truncated column, which is also the
# one-shot estimator the theory is about.

# %% [markdown]
# ## The condition: a flat spike
#
# The guarantee needs $\lambda\|v\|_\infty \gtrsim 1$. With a **flat** spike, all $k$ entries
# $\pm 1/\sqrt k$, we have $\lambda\|v\|_\infty = \lambda/\sqrt k$, which falls as $k$ grows at
# fixed $\lambda$: $1.26$, $0.89$, $0.63$ for $k = 10, 20, 40$ at $\lambda = 4$ (and $3.16$,
# $2.24$, $1.58$ at the authors' $\lambda = 10$). The column of $i^\star$ then has signal
# $\lambda/k$ per entry. To test the condition itself, we also hold it fixed:
# $\lambda = 2\sqrt k$, so that $\lambda\|v\|_\infty = 2$ for every $k$.

# %%
flat_settings = {
    "lambda = 4": lambda k: 4.0,
    "lambda ||v||_inf = 2": lambda k: 2.0 * np.sqrt(k),
    "lambda = 10": lambda k: 10.0,
}


def flat_grid(setting, methods_, seed):
    return pd.concat(
        [
            sample_complexity_grid(
                methods_,
                [k],
                CONFIG["flat_ps"],
                CONFIG["flat_cs"],
                flat_settings[setting](k),
                CONFIG["trials"],
                shape="flat",
                seed=seed,
                progress=False,
            )
            for k in CONFIG["ks"]
        ],
        ignore_index=True,
    )


flat_methods = ["Thresholding", "Two-stage", "Diagonal thresholding"]
flat_grids = {name: flat_grid(name, flat_methods, 0) for name in list(flat_settings)[:2]}
flat_table = {name: success_table(g) for name, g in flat_grids.items()}


def growth(c50s, method="Thresholding"):
    """c50 at the largest k over c50 at the smallest k (the smallest over p)."""
    fc = c50s[c50s.method == method].set_index(["k", "p"]).c50
    ps_ = fc.index.get_level_values("p").unique()
    return float(np.min([fc[(CONFIG["ks"][-1], p)] / fc[(CONFIG["ks"][0], p)] for p in ps_]))


flat_growths = {
    name: [growth(transition_table(flat_grid(name, ["Thresholding"], seed))) for seed in SEEDS]
    for name in flat_settings
}
dt_growth_fixed = growth(
    transition_table(flat_grids["lambda ||v||_inf = 2"]), "Diagonal thresholding"
)
pd.DataFrame(flat_growths, index=pd.Index(SEEDS, name="seed")).round(2)

# %% tags=["hide-input"]
fig, axes = plt.subplots(2, 3, figsize=plotting.figsize("grid"), sharey=True, sharex=True)
for row, name in zip(axes, flat_table, strict=True):
    for ax, method in zip(row, flat_methods, strict=True):
        t = flat_table[name]
        for (k, _p), g in t[t.method == method].groupby(["k", "p"]):
            lam = flat_settings[name](k)
            ax.plot(
                g.c,
                g.success,
                marker="o",
                ms=3,
                c=k_colors[k],
                label=f"k={k}: $\\lambda\\|v\\|_\\infty$={lam / np.sqrt(k):.2f}",
            )
        ax.set(xscale="log", title=f"{method}, {name.replace('lambda', 'λ')}", ylim=(-0.03, 1.03))
    row[0].set_ylabel("P(support recovered)")
    row[0].legend(fontsize=7)
for ax in axes[1]:
    ax.set_xlabel("$n / (k \\log p)$")
plotting.panel_labels(axes.ravel())
fig.suptitle(
    "Flat spike: at fixed $\\lambda$ one-shot thresholding loses its $k\\log p$ scaling; with "
    "$\\lambda\\|v\\|_\\infty$ held at 2 it keeps it"
)
plt.show()

# %% [markdown]
# **What to see.** (a) At $\lambda = 4$ the thresholding curves move right as $k$ grows and
# $\lambda\|v\|_\infty$ falls. (d) With $\lambda\|v\|_\infty$ held at 2, they stay together:
# what matters is $\lambda\|v\|_\infty$, not the flatness. The signal argument says
# $c_{50} \propto (\lambda\|v\|_\infty)^{-2}$, so it is the *value* that sets the constant, not a
# threshold at 1: at the authors' $\lambda = 10$ (not drawn; its growth is in the table above)
# $\lambda\|v\|_\infty$ is above 1.5 throughout, yet it still halves from $k = 10$ to 40, and
# $c_{50}$ grows nearly as much as at $\lambda = 4$. Holding $\lambda\|v\|_\infty$ fixed means
# $\lambda = 2\sqrt k$ growing with $k$; with a flat spike that lifts the diagonal's signal
# $\lambda v_j^2 = \lambda/k$ exactly as much, so in that row diagonal thresholding scales like
# $k\log p$ too (f): the $k\log p$ against $k^2\log p$ contrast is a property of fixed $\lambda$.
# (b), (e) The two-stage estimator stays together and succeeds at small $c$ in both rows. The
# reason is the power step: $\hat\Sigma x \approx x + \lambda\langle v, x\rangle v$ gives each
# support entry $\lambda\langle v, x\rangle/\sqrt k$ with $\langle v, x\rangle$ of order 1 once
# the start overlaps the support, against $\lambda/k$ in the column of $i^\star$. And exact
# recovery is limited by the smallest entry of $v$, $1/\sqrt k$ for the flat spike against about
# $0.72/\sqrt k$ for the spiky one, so the flat spike's support is found with fewer samples.
# That is a heuristic reading of what the figure shows at this size, not tested here and not a
# guarantee of the paper. (c) At fixed $\lambda$ diagonal thresholding still needs the most
# samples.

# %% [markdown]
# ## Claim check
#
# The claims, each with a control that must fail the same check, over the grid seeds:
#
# - the **sample-size law**: fitting $\log(c_{50}\,k) = a + b\log k$ over all $(k, p)$ gives the
#   exponent $b$ of $n_{50} \propto k^b\log p$; thresholding's must be nearer 1 than 2
#   ($b < 1.5$), diagonal thresholding's (the control) not;
# - diagonal thresholding's $c_{50}$ grows at least 1.5-fold from $k = 10$ to 20 (both measured
#   on the grid); thresholding's (the control) does not;
# - the **rate** of the two-stage error: slope in $n$ within 0.15 of $-1/2$, with the random
#   $k$-sparse vector as the control; slope in $k$ at fixed $c$ below 0.15 (the error grows at
#   most weakly with $k$), with diagonal thresholding, which needs $n \propto k^2\log p$, as the
#   control;
# - the **start**: after the power stage, the two starts' success rates, averaged over
#   $c \le 8$, differ by at most 0.05 in every seed; as one-shot estimators (the control) they
#   do not;
# - the **condition**: with a flat spike at $\lambda = 4$, thresholding's $c_{50}$ grows at
#   least 2-fold from the smallest to the largest $k$; with $\lambda\|v\|_\infty$ held at 2 (the
#   control) it does not.
#
# Sanity checks, asserted but not counted as evidence: thresholding succeeds in at least 90 % of
# trials at $c = 8$ and diagonal thresholding fails there; covariance thresholding (simplified,
# see above) is within a factor 1.5 of thresholding's $c_{50}$.

# %%
cc = c50.set_index(["method", "k", "p"]).c50
thr, ct = cc["Thresholding"], cc["Covariance thresholding"]
at8 = table[table.c == 8].set_index(["method", "k", "p"]).success
assert np.isfinite(thr).all(), thr
assert (at8["Thresholding"] >= 0.9).all(), at8["Thresholding"]
assert (at8["Diagonal thresholding"] <= 0.1).all(), at8["Diagonal thresholding"]
spread_thr = float(thr.max() / thr.min())
ct_ratio = float((ct / thr).max())
assert ct_ratio < 1.5, f"covariance thresholding needed {ct_ratio:.2f}x thresholding's c50"


def exponent(c50s):
    """b in n_50 = c_50 k log p, proportional to k^b log p, fitted over the finite (k, p)."""
    finite = c50s[np.isfinite(c50s.c50)]
    return loglog_slope(finite.k.to_numpy(float), finite.c50.to_numpy() * finite.k.to_numpy())


def per_seed(method, fn):
    return [fn(g[g.method == method]) for _, g in c50_seeds.groupby("seed")]


b_thr = per_seed("Thresholding", lambda g: exponent(g)[0])
b_dt = per_seed("Diagonal thresholding", lambda g: exponent(g)[0])
b_thr_ci = exponent(c50_seeds[(c50_seeds.method == "Thresholding") & (c50_seeds.seed == 0)])


def step(g, k_lo=CONFIG["ks"][0], k_hi=CONFIG["ks"][1]):
    """c50 at k_hi over c50 at k_lo, the smallest over p (both on the grid for every method)."""
    c = g.set_index(["k", "p"]).c50
    return float(min(c[(k_hi, p)] / c[(k_lo, p)] for p in CONFIG["ps"]))


dt_step, thr_step = per_seed("Diagonal thresholding", step), per_seed("Thresholding", step)
assert np.isfinite(dt_step).all(), dt_step

past = table[table.c >= 8].set_index(["method", "k", "p", "c"]).sin_theta
err_ratio = (past["Two-stage"] / past["Thresholding"]).groupby(["k", "p"]).mean()
mean_err_ratio = float(err_ratio.mean())
slopes = fits.pivot(index="seed", columns="method")
succ = init_grid.groupby(["seed", "c", "method"]).success.mean().unstack("method")
# per seed, the authors' start minus ours, averaged over c (paired per trial)
gap_two = (succ["Two-stage (authors' start)"] - succ["Two-stage"]).groupby("seed").mean()
gap_one = (succ["Thresholding (authors' start)"] - succ["Thresholding"]).groupby("seed").mean()
runtime_s = time.perf_counter() - t_start

thr_c50 = float(thr.median())
dt = cc["Diagonal thresholding"]
dt_c50_small_k = float(dt[(CONFIG["ks"][0], CONFIG["ps"][-1])])
dt_c50_mid_k = float(dt[(CONFIG["ks"][1], CONFIG["ps"][-1])])
dt_c50_big_k = float(dt[(CONFIG["ks"][-1], CONFIG["ps"][-1])])
claim(
    "sparse-pca/2_sample_complexity/sample_size_exponent",
    "The sample size thresholding needs grows like k log p, not k^2 log p: the fitted exponent b "
    "of n_50 ~ k^b log p is nearer 1 than 2 (b < 1.5) in every grid seed; diagonal "
    "thresholding's is not",
    paper="n = Omega(k log p) if lambda = Omega(1/||v||_inf) (theorem), against k^2 log p",
    value=b_thr,
    check=less(1.5),
    control=("diagonal thresholding (finite c50 only)", b_dt),
    verdict="reproduced",
    caveat="c50 is interpolated on a grid of c doubling at each step, and the thresholding c50 "
    "all fall between c = 2 and 4; the confidence interval ignores that",
    numbers={
        "95 % CI low (seed 0)": b_thr_ci[1],
        "high": b_thr_ci[2],
        "thresholding c50 (median, k log p units)": thr_c50,
        "spread of c50 (seed 0)": spread_thr,
    },
    fmt=".2f",
)
claim(
    "sparse-pca/2_sample_complexity/dt_c50_grows_with_k",
    f"Diagonal thresholding's c50 (in k log p units) grows at least 1.5x from k = "
    f"{CONFIG['ks'][0]} to {CONFIG['ks'][1]} in every grid seed, as n of order k^2 log p "
    "predicts; thresholding's does not",
    paper="existing methods need n of order k^2 log p (theory)",
    value=dt_step,
    check=greater(1.5),
    control=("thresholding", thr_step),
    verdict="reproduced",
    numbers={f"DT c50 at k = {k} (seed 0)": dt[(k, CONFIG["ps"][-1])] for k in CONFIG["ks"][:2]},
    fmt=".2f",
)
claim(
    "sparse-pca/2_sample_complexity/two_stage_rate_in_n",
    f"Past the transition (k = {k_show}, p = {p_show}), the two-stage error falls like n^(-1/2): "
    "the fitted slope is within 0.15 of -0.5 in every grid seed; a random k-sparse vector's is "
    "not",
    paper="minimax rate sqrt(k log p / n) for the two-stage estimator",
    value=slopes["n"]["Two-stage"].to_numpy(),
    check=within(-0.5, 0.15),
    control=("random k-sparse vector", slopes["n"]["Random k-sparse"].to_numpy()),
    verdict="reproduced",
    caveat="one-shot thresholding falls at the same rate here "
    f"(slope {slopes['n']['Thresholding'].mean():.2f}); the two-stage estimator's gain is its "
    f"constant: error ratio {mean_err_ratio:.2f} past the transition",
    numbers={
        "95 % CI low (seed 0)": slopes["n_lo"]["Two-stage"].iloc[0],
        "high": slopes["n_hi"]["Two-stage"].iloc[0],
    },
    fmt=".2f",
)
claim(
    "sparse-pca/2_sample_complexity/two_stage_rate_in_k",
    f"At fixed c = n / (k log p) = {c_fix}, the two-stage error grows at most weakly with k: "
    "the fitted slope in k is below 0.15 in every grid seed; diagonal thresholding's is not",
    paper="minimax rate sqrt(k log p / n), i.e. 1/sqrt(c) whatever k",
    value=slopes["k"]["Two-stage"].to_numpy(),
    check=less(0.15),
    control=("diagonal thresholding", slopes["k"]["Diagonal thresholding"].to_numpy()),
    verdict="partly",
    caveat="the slope is positive in every seed (95 % CIs "
    + ", ".join(
        f"{lo:.2f} to {hi:.2f}"
        for lo, hi in zip(slopes["k_lo"]["Two-stage"], slopes["k_hi"]["Two-stage"], strict=True)
    )
    + "): the error grows a little with k at fixed c, where the rate predicts none",
    fmt=".2f",
)
claim(
    "sparse-pca/2_sample_complexity/start_does_not_matter",
    "After the power stage, our start (the truncated column) and the authors' (the restricted "
    "eigenvector on the entries ranked 2 to k+1) recover the support about equally often near the "
    "transition: the success rates, averaged over c <= 8, differ by at most 0.05 in every grid "
    "seed; as one-shot estimators they do not",
    paper="the authors' code starts the power iterations at a restricted top eigenvector",
    value=gap_two.to_numpy(),
    check=within(0.0, 0.05),
    control=("the one-shot estimators", gap_one.to_numpy()),
    verdict="illustrated",
    caveat="a weak control: the authors' one-shot start never contains i* by construction; the "
    "average includes values of c where both succeed always or never; spiky spike, k = 20, "
    "p = 500 only",
    fmt=".3f",
)
claim(
    "sparse-pca/2_sample_complexity/flat_spike_condition",
    "With a flat spike at fixed lambda = 4, lambda ||v||_inf = 4 / sqrt(k) halves from the "
    "smallest to the largest k and thresholding's c50 grows at least 2x, in every grid seed; "
    "with lambda ||v||_inf held at 2 it does not",
    paper="the guarantee needs lambda ||v||_inf of order 1 (assumption of the theorem)",
    value=flat_growths["lambda = 4"],
    check=greater(2.0),
    control=("lambda ||v||_inf = 2", flat_growths["lambda ||v||_inf = 2"]),
    verdict="reproduced",
    caveat="what matters is the value of lambda ||v||_inf, not a threshold at 1: at the "
    f"authors' lambda = 10 (above 1.5 throughout) c50 still grows "
    f"{np.mean(flat_growths['lambda = 10']):.1f}x; and holding lambda ||v||_inf fixed lifts "
    f"diagonal thresholding too (its c50 grows {dt_growth_fixed:.1f}x there, seed 0)",
    fmt=".2f",
)
glue("thr_c50", thr_c50, display=False)
glue("spread_thr", spread_thr, display=False)
glue("b_thr", float(np.mean(b_thr)), display=False)
glue("b_dt", float(np.mean(b_dt)), display=False)
glue("dt_c50_small_k", dt_c50_small_k, display=False)
glue("dt_c50_mid_k", dt_c50_mid_k, display=False)
glue("dt_c50_big_k", dt_c50_big_k, display=False)
glue("ct_ratio", ct_ratio, display=False)
glue("err_ratio", mean_err_ratio, display=False)
glue("err_gain_pct", 100 * (1 - mean_err_ratio), display=False)
glue("rate_n", float(slopes["n"]["Two-stage"].mean()), display=False)
glue("rate_k", float(slopes["k"]["Two-stage"].mean()), display=False)
glue("start_gap_two", float(gap_two.abs().max()), display=False)
glue("start_gap_one", float(gap_one.mean()), display=False)
glue("flat_shift", float(np.mean(flat_growths["lambda = 4"])), display=False)
glue("flat_shift_10", float(np.mean(flat_growths["lambda = 10"])), display=False)
glue("flat_shift_fixed", float(np.mean(flat_growths["lambda ||v||_inf = 2"])), display=False)
glue("trials", CONFIG["trials"], display=False)
glue("runtime_s", runtime_s, display=False)
