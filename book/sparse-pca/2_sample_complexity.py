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
# fits the two-stage estimator's error rate in $n$ and in $k$, compares our initialiser with the
# authors' (their released code, `jxying/spca`), and ends with the method's limit: a *flat*
# spike, for which $\lambda\|v\|_\infty \gtrsim 1$ fails at $\lambda = 4$ and holds again at
# the $\lambda = 10$ of the authors' demo.
#
# The headline regime here, a **spiky** spike with one entry of size 0.7 and $\lambda = 4$, is
# this chapter's own choice (it puts the theorem's condition $\lambda\|v\|_\infty \gtrsim 1$
# comfortably in force at small $n$); the authors' demo uses a flat $\pm 1/\sqrt k$ spike with
# $\lambda = 10$ and $n = 1000\,k\log p$, far more samples than a laptop grid affords.
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
        "flat_ps": [500],
        "flat_cs": [0.5, 1, 2, 4, 8, 16, 32],
        "flat_lams": [4.0, 10.0],
        "flat_seeds": 3,
    },
    "large": {
        "ks": [10, 20, 40],
        "ps": [500, 1000],
        "cs": [0.5, 1, 2, 4, 8, 16, 32, 64, 128],
        "trials": 30,
        "lam": 4.0,
        "flat_ps": [1000],
        "flat_cs": [0.5, 1, 2, 4, 8, 16, 32, 64],
        "flat_lams": [4.0, 10.0],
        "flat_seeds": 5,
    },
}[SCALE]
SEED = 0
print(SCALE, CONFIG)

# %% [markdown]
# ## The grid
#
# For every $k$, $p$ and $c$ we draw `trials` independent instances of the spiky model
# ($\lambda = 4$, $\|v\|_\infty = 0.7$), set $n = \lceil c\,k\log p\rceil$, and run the
# estimators on the same data: **thresholding** and the **two-stage** estimator of the paper,
# each with our initialiser (the normalised truncated column) and with the authors' (the top
# eigenvector of $\hat\Sigma$ restricted to the column's top-$k$ support, "eigen init"),
# **diagonal thresholding** {cite:p}`johnstone2009consistency`, and **covariance
# thresholding** {cite:p}`krauthgamer2015semidefinite,deshpande2016covariance`. A trial is a
# success when the $k$ largest entries of $\hat v$ are exactly the support of $v$.
#
# Our covariance thresholding is a simplified version: it soft-thresholds the off-diagonal of
# $\hat\Sigma - I$ at $\tau/\sqrt n$ (about 0.13 here) but not the diagonal, and uses no sample
# splitting. In the spiky model that keeps essentially row and column $i^\star$, whose entries
# are $\lambda v_{i^\star} v_j$: it then does what thresholding does, which is why the two
# match below. That is a teaching point about this regime, not a property of the literature's
# version.

# %%
methods = [
    "Thresholding",
    "Thresholding (eigen init)",
    "Two-stage",
    "Two-stage (eigen init)",
    "Diagonal thresholding",
    "Covariance thresholding",
]
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
# one-shot estimator, whose error carries a factor $1/(\lambda |v_{i^\star}|)$. Rather than
# draw a guide line, we **fit** the rate: the slope of $\log\sin\angle$ against $\log n$ over
# every trial past the transition ($c \ge 8$) for one $(k, p)$, with a 95 % confidence interval;
# and, at fixed $c = n/(k\log p) = 16$, the slope against $\log k$, which the rate
# $\sqrt{k\log p/n} = 1/\sqrt c$ predicts to be 0. Diagonal thresholding, which has not found
# the support at these $c$ for the larger $k$, is the control of both fits.

# %%
k_show, p_show = CONFIG["ks"][1], CONFIG["ps"][-1]
c_fix = 16


def rate_in_n(method):
    g = grid[(grid.method == method) & (grid.k == k_show) & (grid.p == p_show) & (grid.c >= 8)]
    return loglog_slope(g.n.to_numpy(), g.sin_theta.to_numpy())


def rate_in_k(method):
    g = grid[(grid.method == method) & (grid.c == c_fix)]
    return loglog_slope(g.k.to_numpy(), g.sin_theta.to_numpy())


rates = pd.DataFrame(
    {m: [*rate_in_n(m), *rate_in_k(m)] for m in ["Two-stage", "Diagonal thresholding"]},
    index=["slope in n", "lo", "hi", f"slope in k (c={c_fix})", "lo ", "hi "],
)
rates.round(3)

# %% tags=["hide-input"]
sel = table[(table.k == k_show) & (table.p == p_show)]
fig, ax = plt.subplots(figsize=plotting.figsize("single"))
for method in methods:
    g = sel[sel.method == method]
    ax.plot(g.n, g.sin_theta, marker="o", ms=4, c=plotting.method_color(method), label=method)
b, lo, hi = rate_in_n("Two-stage")
past_n = np.sort(sel[sel.c >= 8].n.unique())
g2 = sel[(sel.method == "Two-stage") & (sel.c >= 8)]
anchor = np.exp(np.mean(np.log(g2.sin_theta)) - b * np.mean(np.log(g2.n)))
ax.plot(past_n, anchor * past_n**b, "k:", lw=1.5, label=f"fit: slope {b:.2f} [{lo:.2f}, {hi:.2f}]")
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
# falls like $n^{-1/2}$; the dotted line is the fitted two-stage rate (its slope and 95 %
# interval in the legend, and in the table above, next to the control). The two-stage
# estimator is below the one-shot thresholding estimator at every $n$ past the transition, but
# by a modest factor here (glued below): with
# $\|v\|_\infty = 0.7$ the constant $1/(\lambda|v_{i^\star}|)$ is already small. Covariance
# thresholding ends with the same restricted eigenvector as the two-stage estimator, so the two
# curves coincide once both have found the support.

# %% [markdown]
# ## The limit: a flat spike
#
# The guarantee needs $\lambda\|v\|_\infty \gtrsim 1$. With a **flat** spike, all $k$ entries
# $\pm 1/\sqrt k$, we have $\lambda\|v\|_\infty = \lambda/\sqrt k$, which falls below 1 as $k$
# grows at fixed $\lambda = 4$ ($1.26$, $0.89$, $0.63$ for $k = 10, 20, 40$). The column of
# $i^\star$ then has signal $\lambda/k$ per entry, no better than the diagonal. At the
# authors' $\lambda = 10$ the condition holds again ($3.16$, $2.24$, $1.58$).

# %%
flat, flat_table, flat_c50 = {}, {}, {}
for lam in CONFIG["flat_lams"]:
    flat[lam] = sample_complexity_grid(
        ["Thresholding", "Two-stage", "Diagonal thresholding"],
        CONFIG["ks"],
        CONFIG["flat_ps"],
        CONFIG["flat_cs"],
        lam,
        CONFIG["trials"],
        shape="flat",
        seed=SEED,
    )
    flat_table[lam] = success_table(flat[lam])
    flat_c50[lam] = transition_table(flat[lam])
pd.concat(
    {lam: t.set_index(["method", "k", "p"]).c50 for lam, t in flat_c50.items()}, axis=1
).round(1)

# %% tags=["hide-input"]
flat_methods = ["Thresholding", "Two-stage", "Diagonal thresholding"]
fig, axes = plt.subplots(2, 3, figsize=plotting.figsize("grid"), sharey=True, sharex=True)
for row, lam in zip(axes, CONFIG["flat_lams"], strict=True):
    for ax, method in zip(row, flat_methods, strict=True):
        t = flat_table[lam]
        for (k, _p), g in t[t.method == method].groupby(["k", "p"]):
            ax.plot(
                g.c,
                g.success,
                marker="o",
                ms=3,
                c=k_colors[k],
                label=f"k={k}: $\\lambda\\|v\\|_\\infty$={lam / np.sqrt(k):.2f}",
            )
        ax.set(xscale="log", title=f"{method}, $\\lambda$ = {lam:g}", ylim=(-0.03, 1.03))
    row[0].set_ylabel("P(support recovered)")
    row[0].legend(fontsize=7)
for ax in axes[1]:
    ax.set_xlabel("$n / (k \\log p)$")
plotting.panel_labels(axes.ravel())
fig.suptitle(
    "Flat spike: at $\\lambda = 4$ ($\\lambda\\|v\\|_\\infty < 1$ for large k) one-shot "
    "thresholding loses its $k\\log p$ scaling; at $\\lambda = 10$ it loses less"
)
plt.show()

# %% [markdown]
# **What to see.** (a) At $\lambda = 4$ the thresholding curves no longer collapse: they move
# right as $k$ grows and $\lambda\|v\|_\infty$ falls, as the theory's condition predicts.
# (b) The truncated power stage rescues it here: the two-stage curves stay together and
# succeed at small $c$. The reason is the power step itself:
# $\hat\Sigma x \approx x + \lambda\langle v, x\rangle v$, so every correctly chosen coordinate
# of $x$ adds to the signal that all the other support coordinates receive. With a flat spike
# all $k$ entries are equal, so a start that holds only part of the support already lifts every
# missing entry to $\lambda\langle v, x\rangle/\sqrt k$, above the noise, and the next
# truncation picks them up; with a spiky spike the small entries receive only their own small
# $v_j$. That is an observation at this size, not a guarantee of the paper. (c) Diagonal
# thresholding still needs the most samples. (d)-(f) At the authors' $\lambda = 10$ the
# condition holds for every $k$; the thresholding curves move right much less than at
# $\lambda = 4$, but not as little as with the spiky spike (the claim check gives the numbers,
# over several grid seeds): $\lambda\|v\|_\infty$ still halves from $k = 10$ to $k = 40$.

# %% [markdown]
# ## Claim check
#
# The claims, each with a control that must fail the same check:
#
# - the **sample-size law**: fitting $\log(c_{50}\,k) = a + b\log k$ over all $(k, p)$ gives the
#   exponent $b$ of $n_{50} \propto k^b\log p$; thresholding's must be nearer 1 than 2 ($b < 1.5$),
#   diagonal thresholding's (the control) not;
# - diagonal thresholding's $c_{50}$ grows at least 1.5-fold at each step of $k$; thresholding's
#   (the control) does not;
# - the **rate** of the two-stage error: slope in $n$ within 0.15 of $-1/2$ and slope in $k$ at
#   fixed $c$ within 0.15 of 0; diagonal thresholding is the control of both;
# - the authors' initialiser against ours: the two-stage error with our start is at most 1 %
#   above the one with the authors' start, past the transition (if not, their start should be
#   the default);
# - the condition $\lambda\|v\|_\infty \gtrsim 1$: with a flat spike at $\lambda = 4$,
#   thresholding's $c_{50}$ grows at least 2-fold from the smallest to the largest $k$, in every
#   grid seed; with the spiky spike (the control, where the condition holds) it does not. The
#   same growth at the authors' $\lambda = 10$ is reported next to it.
#
# Sanity checks, asserted but not counted as evidence: thresholding succeeds in at least 90 % of
# trials at $c = 8$ and diagonal thresholding fails there; covariance thresholding (simplified, see
# above) is within a factor 1.5 of thresholding's $c_{50}$.

# %%
cc = c50.set_index(["method", "k", "p"]).c50
thr, dt, ct = cc["Thresholding"], cc["Diagonal thresholding"], cc["Covariance thresholding"]
at8 = table[table.c == 8].set_index(["method", "k", "p"]).success
assert np.isfinite(thr).all(), thr
assert (at8["Thresholding"] >= 0.9).all(), at8["Thresholding"]
assert (at8["Diagonal thresholding"] <= 0.1).all(), at8["Diagonal thresholding"]
spread_thr = float(thr.max() / thr.min())
ct_ratio = float((ct / thr).max())
assert ct_ratio < 1.5, f"covariance thresholding needed {ct_ratio:.2f}x thresholding's c50"


def exponent(c50s):
    """b in n_50 = c_50 k log p  proportional to  k^b log p, fitted over the finite (k, p)."""
    finite = c50s[np.isfinite(c50s)]
    ks_ = finite.index.get_level_values("k").to_numpy(dtype=float)
    return loglog_slope(ks_, finite.to_numpy() * ks_)


b_thr, b_thr_lo, b_thr_hi = exponent(thr)
b_dt, b_dt_lo, b_dt_hi = exponent(dt)
dt_growth, thr_growth = [], []
for p in CONFIG["ps"]:
    for k_lo, k_hi in zip(CONFIG["ks"][:-1], CONFIG["ks"][1:], strict=True):
        if np.isfinite(dt[(k_lo, p)]):
            # inf (not reached on the grid): the growth is at least max(c) / c50 at k_lo
            hi = dt[(k_hi, p)] if np.isfinite(dt[(k_hi, p)]) else max(CONFIG["cs"])
            dt_growth.append(hi / dt[(k_lo, p)])
            thr_growth.append(thr[(k_hi, p)] / thr[(k_lo, p)])

past = table[table.c >= 8].set_index(["method", "k", "p", "c"]).sin_theta
err_ratio = (past["Two-stage"] / past["Thresholding"]).groupby(["k", "p"]).mean()
mean_err_ratio = float(err_ratio.mean())
init_ratio = (past["Two-stage"] / past["Two-stage (eigen init)"]).groupby(["k", "p"]).mean()
oneshot_init_ratio = float(
    (past["Thresholding"] / past["Thresholding (eigen init)"]).groupby(["k", "p"]).mean().mean()
)

n_rate, k_rate = rates.loc["slope in n"], rates.loc[f"slope in k (c={c_fix})"]


def growth(c50s):
    """c50 at the largest k over c50 at the smallest k (the smallest over p)."""
    fc = c50s.set_index(["method", "k", "p"]).c50["Thresholding"]
    ps_ = fc.index.get_level_values("p").unique()
    return float(np.min([fc[(CONFIG["ks"][-1], p)] / fc[(CONFIG["ks"][0], p)] for p in ps_]))


flat_growths = {lam: [growth(flat_c50[lam])] for lam in CONFIG["flat_lams"]}
for seed in range(1, CONFIG["flat_seeds"]):  # more grid seeds, thresholding only
    for lam in CONFIG["flat_lams"]:
        g = sample_complexity_grid(
            ["Thresholding"],
            CONFIG["ks"],
            CONFIG["flat_ps"],
            CONFIG["flat_cs"],
            lam,
            CONFIG["trials"],
            shape="flat",
            seed=SEED + seed,
            progress=False,
        )
        flat_growths[lam].append(growth(transition_table(g)))
flat_shift, flat_shift_10 = np.mean(flat_growths[4.0]), np.mean(flat_growths[10.0])
spiky_growth = growth(c50)
runtime_s = time.perf_counter() - t_start

thr_c50 = float(thr.median())
dt_c50_small_k = float(dt[(CONFIG["ks"][0], CONFIG["ps"][-1])])
dt_c50_mid_k = float(dt[(CONFIG["ks"][1], CONFIG["ps"][-1])])
dt_c50_big_k = float(dt[(CONFIG["ks"][-1], CONFIG["ps"][-1])])
claim(
    "sparse-pca/2_sample_complexity/sample_size_exponent",
    "The sample size thresholding needs grows like k log p, not k^2 log p: the fitted exponent b "
    "of n_50 ~ k^b log p is nearer 1 than 2 (b < 1.5); diagonal thresholding's is not",
    paper="n = Omega(k log p) if lambda = Omega(1/||v||_inf) (theorem), against k^2 log p",
    value=b_thr,
    check=less(1.5),
    control=("diagonal thresholding (finite c50 only)", b_dt),
    verdict="reproduced",
    seeds=CONFIG["trials"],
    numbers={
        "95 % CI low": b_thr_lo,
        "high": b_thr_hi,
        "thresholding c50 (median, k log p units)": thr_c50,
        "spread of c50": spread_thr,
    },
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
    "sparse-pca/2_sample_complexity/two_stage_rate_in_n",
    f"Past the transition (k = {k_show}, p = {p_show}), the two-stage error falls like n^(-1/2): "
    "the fitted slope is within 0.15 of -0.5; diagonal thresholding's is not",
    paper="minimax rate sqrt(k log p / n) for the two-stage estimator",
    value=n_rate["Two-stage"],
    check=within(-0.5, 0.15),
    control=("diagonal thresholding", n_rate["Diagonal thresholding"]),
    verdict="reproduced",
    seeds=CONFIG["trials"],
    numbers={"95 % CI low": rates.loc["lo", "Two-stage"], "high": rates.loc["hi", "Two-stage"]},
    fmt=".2f",
)
claim(
    "sparse-pca/2_sample_complexity/two_stage_rate_in_k",
    f"At fixed c = n / (k log p) = {c_fix}, the two-stage error does not grow with k: the fitted "
    "slope in k is within 0.15 of 0; diagonal thresholding's is not",
    paper="minimax rate sqrt(k log p / n), i.e. 1/sqrt(c)",
    value=k_rate["Two-stage"],
    check=within(0.0, 0.15),
    control=("diagonal thresholding", k_rate["Diagonal thresholding"]),
    verdict="reproduced",
    seeds=CONFIG["trials"],
    fmt=".2f",
)
claim(
    "sparse-pca/2_sample_complexity/our_init_as_good",
    "Past the transition, the two-stage error with our initialiser (the truncated column) is at "
    "most 1 % above the one with the authors' (the restricted top eigenvector), at every (k, p)",
    paper="the authors' code starts the power iterations at the restricted top eigenvector",
    value=init_ratio.to_numpy(),
    check=less(1.01),
    verdict="illustrated",
    caveat=f"the one-shot estimator itself is better with the authors' start (error ratio "
    f"{oneshot_init_ratio:.2f}), as it must be: the restricted eigenvector is the best unit "
    "vector on the same support",
    over="(k, p) settings",
    seeds=CONFIG["trials"],
    numbers={"two-stage / thresholding error": mean_err_ratio},
    fmt=".3f",
)
claim(
    "sparse-pca/2_sample_complexity/flat_spike_condition",
    "With a flat spike at lambda = 4 (lambda ||v||_inf = 4 / sqrt(k), below 1 for large k), "
    "thresholding's c50 grows at least 2x from the smallest to the largest k, in every grid "
    "seed; with the spiky spike, where the condition holds, it does not",
    paper="the guarantee needs lambda ||v||_inf of order 1 (assumption of the theorem)",
    value=flat_growths[4.0],
    check=greater(2.0),
    control=("spiky spike (seed 0)", spiky_growth),
    verdict="reproduced",
    caveat=f"at the authors' lambda = 10 (lambda ||v||_inf >= 1.58) the growth is smaller but "
    f"still {min(flat_growths[10.0]):.1f}x to {max(flat_growths[10.0]):.1f}x over the seeds",
    numbers={"growth at lambda = 10": flat_shift_10},
    fmt=".2f",
)
glue("thr_c50", thr_c50, display=False)
glue("spread_thr", spread_thr, display=False)
glue("b_thr", b_thr, display=False)
glue("b_dt", b_dt, display=False)
glue("dt_c50_small_k", dt_c50_small_k, display=False)
glue("dt_c50_mid_k", dt_c50_mid_k, display=False)
glue("dt_c50_big_k", dt_c50_big_k, display=False)
glue("dt_growth_min", float(np.min(dt_growth)), display=False)
glue("ct_ratio", ct_ratio, display=False)
glue("err_ratio", mean_err_ratio, display=False)
glue("err_gain_pct", 100 * (1 - mean_err_ratio), display=False)
glue("rate_n", float(n_rate["Two-stage"]), display=False)
glue("rate_k", float(k_rate["Two-stage"]), display=False)
glue("init_ratio_max", float(init_ratio.max()), display=False)
glue("oneshot_init_ratio", oneshot_init_ratio, display=False)
glue("flat_shift", flat_shift, display=False)
glue("flat_shift_10", flat_shift_10, display=False)
glue("trials", CONFIG["trials"], display=False)
glue("runtime_s", runtime_s, display=False)
