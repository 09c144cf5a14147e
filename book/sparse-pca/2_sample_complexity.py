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
# recovers the spike from $n = \Omega(k\log p)$ samples, where the classical polynomial-time
# methods are analysed, and diagonal thresholding provably needs, $n \gtrsim k^2$. This notebook
# measures the **probability of recovering the exact support** against the rescaled sample size
# $c = n/(k\log p)$ for several $(k, p)$: if a method needs $n \propto k\log p$, its curves
# collapse onto one; if it needs $n \propto k^2\log p$, they shift right as $k$ grows. It then
# compares the estimation error of the one-shot and two-stage estimators, and ends with the
# method's limit: a *flat* spike, for which $\lambda\|v\|_\infty \gtrsim 1$ fails.
#
# At `small` scale the grid takes about a minute on one CPU thread. Set
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
import seaborn as sns

from icml25.common import glue, plotting, setup
from icml25.common.claims import claim, greater, less
from icml25.sparse_pca import sample_complexity_grid, success_table, transition_table

t_start = time.perf_counter()
SCALE = setup(seed=0)
CONFIG = {
    "small": {
        "ks": [10, 20, 40],
        "ps": [200, 500],
        "cs": [0.5, 1, 2, 4, 8, 16, 32, 64],
        "trials": 20,
        "lam": 4.0,
        "flat_ps": [500],
        "flat_cs": [1, 2, 4, 8, 16, 32],
    },
    "large": {
        "ks": [10, 20, 40],
        "ps": [500, 1000],
        "cs": [0.5, 1, 2, 4, 8, 16, 32, 64, 128],
        "trials": 30,
        "lam": 4.0,
        "flat_ps": [1000],
        "flat_cs": [1, 2, 4, 8, 16, 32, 64],
    },
}[SCALE]
SEED = 0
print(SCALE, CONFIG)

# %% [markdown]
# ## The grid
#
# For every $k$, $p$ and $c$ we draw `trials` independent instances of the spiky model
# ($\lambda = 4$, $\|v\|_\infty = 0.7$), set $n = \lceil c\,k\log p\rceil$, and run four
# estimators on the same data: **thresholding** and the **two-stage** estimator of the paper,
# **diagonal thresholding** {cite:p}`johnstone2009consistency`, and **covariance
# thresholding** {cite:p}`krauthgamer2015semidefinite,deshpande2016covariance`. A trial is a
# success when the $k$ largest entries of $\hat v$ are exactly the support of $v$.

# %%
methods = ["Thresholding", "Two-stage", "Diagonal thresholding", "Covariance thresholding"]
grid = sample_complexity_grid(
    methods, CONFIG["ks"], CONFIG["ps"], CONFIG["cs"], CONFIG["lam"], CONFIG["trials"], seed=SEED
)
table = success_table(grid)
c50 = transition_table(grid)
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
# **What to see.** (a) The thresholding curves for all $k$ and $p$ lie on top of each other:
# the support is found once $n$ is a few times $k\log p$, whatever $k$. (b) Covariance
# thresholding behaves the same way in this spiky regime: it matches thresholding's accuracy
# here (its cost, measured in the third notebook, is another matter). (c) Diagonal thresholding
# needs a larger $c$ for every $k$, and its curves move right as $k$ grows. (d) Rescaled by
# $k^2\log p$ instead, the diagonal-thresholding curves come together: it needs
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
    title="Diagonal thresholding needs more samples as k grows; thresholding does not",
)
ax.set_ylim(top=2 * max(CONFIG["cs"]))
plotting.plain_log_ticks(ax)
ax.set_xticks(ks, [str(k) for k in ks])
ax.legend(fontsize=8, loc="center right")
plt.show()

# %% [markdown]
# **What to see.** For thresholding and covariance thresholding $c_{50}$ is flat in $k$: the
# sample size they need is a constant times $k\log p$. For diagonal thresholding $c_{50}$ grows
# about linearly in $k$, i.e. $n \propto k^2\log p$; an arrow marks a $k$ for which it never
# reached 50% on this grid.

# %% [markdown]
# ## The two-stage estimator's error
#
# The second stage, truncated power iterations started at the thresholding estimate, targets the
# minimax rate $\sin\angle(\hat v, v) \asymp \sqrt{k\log p / n}$ with a better constant than the
# one-shot estimator, whose error carries a factor $1/(\lambda |v_{i^\star}|)$. Below: the mean
# error against $n$ for one $(k, p)$, on log-log axes, with a slope $-1/2$ guide.

# %% tags=["hide-input"]
k_show, p_show = CONFIG["ks"][1], CONFIG["ps"][-1]
sel = table[(table.k == k_show) & (table.p == p_show)]
fig, ax = plt.subplots(figsize=plotting.figsize("single"))
for method in methods:
    g = sel[sel.method == method]
    ax.plot(g.n, g.sin_theta, marker="o", ms=4, c=plotting.method_color(method), label=method)
n_ref = sel.n.unique()
ref = sel[(sel.method == "Two-stage")].sin_theta.to_numpy()[-1] * np.sqrt(n_ref[-1] / n_ref)
ax.plot(n_ref, ref, "k:", lw=1, label="slope $-1/2$")
ax.set(
    xscale="log",
    yscale="log",
    xlabel="sample size n",
    ylabel="mean $\\sin\\angle(\\hat v, v)$",
    title=f"Two-stage error sits below thresholding's and falls like $n^{{-1/2}}$ (k={k_show}, "
    f"p={p_show})",
)
plotting.plain_log_ticks(ax)
ax.legend(fontsize=8)
plt.show()

# %% [markdown]
# **What to see.** Once $n$ is past the transition, every method but diagonal thresholding
# falls along the $n^{-1/2}$ guide. The two-stage estimator is below the one-shot thresholding
# estimator at every $n$ past the transition, but by a modest factor here (glued below): with
# $\|v\|_\infty = 0.7$ the constant $1/(\lambda|v_{i^\star}|)$ is already small. Covariance
# thresholding ends with the same restricted eigenvector as the two-stage estimator, so the two
# curves coincide once both have found the support.

# %% [markdown]
# ## The limit: a flat spike
#
# The guarantee needs $\lambda\|v\|_\infty \gtrsim 1$. With a **flat** spike, all $k$ entries
# $\pm 1/\sqrt k$, we have $\lambda\|v\|_\infty = \lambda/\sqrt k$, which falls below 1 as $k$
# grows at fixed $\lambda = 4$ ($1.26$, $0.89$, $0.63$ for $k = 10, 20, 40$). The column of
# $i^\star$ then has signal $\lambda/k$ per entry, no better than the diagonal.

# %%
flat = sample_complexity_grid(
    ["Thresholding", "Two-stage", "Diagonal thresholding"],
    CONFIG["ks"],
    CONFIG["flat_ps"],
    CONFIG["flat_cs"],
    CONFIG["lam"],
    CONFIG["trials"],
    shape="flat",
    seed=SEED,
)
flat_table = success_table(flat)
flat_c50 = transition_table(flat)
flat_c50.pivot_table(index=["k", "p"], columns="method", values="c50").round(1)

# %% tags=["hide-input"]
fig, axes = plt.subplots(1, 3, figsize=plotting.figsize("wide"), sharey=True)
for ax, method in zip(axes, ["Thresholding", "Two-stage", "Diagonal thresholding"], strict=True):
    for (k, _p), g in flat_table[flat_table.method == method].groupby(["k", "p"]):
        ax.plot(
            g.c,
            g.success,
            marker="o",
            ms=3,
            c=k_colors[k],
            label=f"k={k}: $\\lambda\\|v\\|_\\infty$={CONFIG['lam'] / np.sqrt(k):.2f}",
        )
    ax.set(xscale="log", xlabel="$n / (k \\log p)$", title=method, ylim=(-0.03, 1.03))
axes[0].set_ylabel("P(support recovered)")
axes[0].legend(fontsize=8)
plotting.panel_labels(axes)
fig.suptitle(
    "With a flat spike ($\\lambda\\|v\\|_\\infty < 1$) one-shot thresholding loses its "
    "$k\\log p$ scaling"
)
plt.show()

# %% [markdown]
# **What to see.** (a) With a flat spike the thresholding curves no longer collapse: they move
# right as $k$ grows and $\lambda\|v\|_\infty$ falls, as the theory's condition predicts. (b) In
# this miniature the truncated power stage rescues it: the two-stage curves stay together. That
# is an observation at $\lambda = 4$, not a guarantee of the paper. (c) Diagonal thresholding
# still needs the most samples.

# %% [markdown]
# ## Claim check
#
# What the figures show, asserted with margins that held over several grid seeds:
# thresholding's $c_{50}$ is the same for all $(k, p)$ within a factor 2, and it succeeds in
# at least 90% of trials at $c = 8$; diagonal thresholding's $c_{50}$ grows at least 1.5-fold
# from each $k$ to the next (or is never reached) and it fails at $c = 8$; covariance
# thresholding's $c_{50}$ is within a factor 1.5 of thresholding's; the two-stage error is below
# thresholding's in every $(k, p)$ cell past the transition ($c \ge 8$); and with a flat spike
# thresholding's $c_{50}$ at the largest $k$ is at least twice that at the smallest.

# %%
cc = c50.set_index(["method", "k", "p"]).c50
thr, dt, ct = cc["Thresholding"], cc["Diagonal thresholding"], cc["Covariance thresholding"]
at8 = table[table.c == 8].set_index(["method", "k", "p"]).success
spread_thr = float(thr.max() / thr.min())
assert np.isfinite(thr).all(), thr
dt_finite = dt[np.isfinite(dt)]
spread_dt = float(dt_finite.max() / dt_finite.min())
assert (at8["Thresholding"] >= 0.9).all(), at8["Thresholding"]
assert (at8["Diagonal thresholding"] <= 0.1).all(), at8["Diagonal thresholding"]
dt_growth, thr_growth = [], []
for p in CONFIG["ps"]:
    for k_lo, k_hi in zip(CONFIG["ks"][:-1], CONFIG["ks"][1:], strict=True):
        if np.isfinite(dt[(k_lo, p)]):
            # inf (not reached on the grid): the growth is at least max(c) / c50 at k_lo
            hi = dt[(k_hi, p)] if np.isfinite(dt[(k_hi, p)]) else max(CONFIG["cs"])
            dt_growth.append(hi / dt[(k_lo, p)])
            thr_growth.append(thr[(k_hi, p)] / thr[(k_lo, p)])
ct_ratio = float((ct / thr).max())
assert ct_ratio < 1.5, f"covariance thresholding needed {ct_ratio:.2f}x thresholding's c50"

past = table[table.c >= 8].set_index(["method", "k", "p", "c"]).sin_theta
err_ratio = (past["Two-stage"] / past["Thresholding"]).groupby(["k", "p"]).mean()
assert (err_ratio < 1).all(), err_ratio
mean_err_ratio = float(err_ratio.mean())

fc = flat_c50.set_index(["method", "k", "p"]).c50["Thresholding"]
flat_shift = float(
    np.min([fc[(CONFIG["ks"][-1], p)] / fc[(CONFIG["ks"][0], p)] for p in CONFIG["flat_ps"]])
)
assert flat_shift >= 2, f"flat spike: thresholding c50 grew only {flat_shift:.2f}x with k"
runtime_s = time.perf_counter() - t_start

thr_c50 = float(thr.median())
dt_c50_small_k = float(dt[(CONFIG["ks"][0], CONFIG["ps"][-1])])
dt_c50_mid_k = float(dt[(CONFIG["ks"][1], CONFIG["ps"][-1])])
dt_c50_big_k = float(dt[(CONFIG["ks"][-1], CONFIG["ps"][-1])])
claim(
    "sparse-pca/2_sample_complexity/thr_c50_flat_in_klogp",
    "Thresholding's 50 % success point sits at the same n / (k log p) for every k and p "
    "(spread of c50 below 2x); diagonal thresholding's does not",
    paper="n = Omega(k log p) if lambda = Omega(1/||v||_inf) (theorem)",
    value=spread_thr,
    check=less(2.0),
    control=("diagonal thresholding (finite c50 only)", spread_dt),
    verdict="reproduced",
    seeds=CONFIG["trials"],
    numbers={"thresholding c50 (median, k log p units)": thr_c50},
    fmt=".2f",
)
claim(
    "sparse-pca/2_sample_complexity/dt_c50_grows_with_k",
    "Diagonal thresholding's c50 (in k log p units) grows at least 1.5x at each step of k "
    "(a lower bound where c50 lies beyond the grid), "
    "as n of order k^2 log p predicts; thresholding's does not",
    paper="existing methods need n of order k^2 log p (theory)",
    value=dt_growth,
    check=greater(1.5),
    control=("thresholding", thr_growth),
    verdict="reproduced",
    over="(k, p) steps",
    seeds=CONFIG["trials"],
    numbers={f"DT c50 at k = {k}": dt[(k, CONFIG["ps"][-1])] for k in CONFIG["ks"][:2]},
    fmt=".2f",
)
claim(
    "sparse-pca/2_sample_complexity/two_stage_error_ratio",
    "Past the transition, the two-stage estimator's error is below thresholding's at every (k, p)",
    paper="minimax rate sqrt(k log p / n) for the two-stage estimator",
    value=err_ratio.to_numpy(),
    check=less(1.0),
    verdict="illustrated",
    over="(k, p) settings",
    seeds=CONFIG["trials"],
    numbers={"covariance thresholding / thresholding c50 (max)": ct_ratio},
    fmt=".2f",
)
glue("thr_c50", thr_c50, display=False)
glue("spread_thr", spread_thr, display=False)
glue("dt_c50_small_k", dt_c50_small_k, display=False)
glue("dt_c50_mid_k", dt_c50_mid_k, display=False)
glue("dt_c50_big_k", dt_c50_big_k, display=False)
glue("dt_growth_min", float(np.min(dt_growth)), display=False)
glue("ct_ratio", ct_ratio, display=False)
glue("err_ratio", mean_err_ratio, display=False)
glue("err_gain_pct", 100 * (1 - mean_err_ratio), display=False)
glue("flat_shift", flat_shift, display=False)
glue("trials", CONFIG["trials"], display=False)
glue("runtime_s", runtime_s, display=False)
