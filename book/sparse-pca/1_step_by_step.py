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
# # Thresholding, step by step
#
# This notebook builds the paper's thresholding estimator on **one planted instance** of the
# single-spiked model and shows what each step does: which coordinate the diagonal of the
# sample covariance points to, why the *column* of that coordinate carries the whole spike, and
# how the truncated power method polishes the result (the two-stage estimator). Diagonal
# thresholding, the classical baseline, is built next to it on the same data.
#
# Everything runs on a laptop CPU in seconds. To run it closer to the paper's sizes, set
# `os.environ["ICML25_SCALE"] = "large"` in a cell before the set-up cell.

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
    sys.path.insert(0, "/content/icml25/src")

# %%
import time

import matplotlib.pyplot as plt
import numpy as np

from icml25.common import glue, plotting, setup
from icml25.common.claims import claim, greater, less
from icml25.sparse_pca import (
    column_statistics,
    diagonal_thresholding,
    sample_covariance,
    sin_theta,
    spiked_covariance_data,
    support_recovered,
    threshold_column,
    truncated_power_path,
    two_stage,
)

t_start = time.perf_counter()
SCALE = setup(seed=0)
CONFIG = {
    "small": {"p": 500, "k": 20, "lam": 4.0, "c": 4.0, "check_trials": 20},
    "large": {"p": 2000, "k": 40, "lam": 4.0, "c": 4.0, "check_trials": 100},
}[SCALE]
print(SCALE, CONFIG)

# %% [markdown]
# ## The model and one planted instance
#
# We observe $n$ samples $x_i \sim \mathcal N(0, \Sigma)$ with $\Sigma = I_p + \lambda v v^\top$,
# where the spike $v$ is a unit vector with only $k$ non-zero entries. The task is to recover
# $v$ (up to sign) from far fewer samples than dimensions. We draw a **spiky** $v$: one entry
# equal to $0.7$ and $k-1$ small entries of size $\sqrt{0.51/(k-1)}$, so that the paper's
# condition $\lambda\|v\|_\infty \gtrsim 1$ holds with $\lambda = 4$. The sample size is
# $n = c\,k\log p$ with a small constant $c$.

# %%
p, k, lam = CONFIG["p"], CONFIG["k"], CONFIG["lam"]
n = int(np.ceil(CONFIG["c"] * k * np.log(p)))
X, v, support = spiked_covariance_data(n, p, k, lam, shape="spiky", seed=1)
print(f"n = {n} samples in p = {p} dimensions, k = {k} non-zeros, lambda = {lam}")
print(f"lambda * ||v||_inf = {lam * np.abs(v).max():.2f}")

# %% [markdown]
# ## Step 1: the diagonal picks one coordinate
#
# The diagonal of $\hat\Sigma = X^\top X / n$ has population value $1 + \lambda v_j^2$. Diagonal
# thresholding {cite:p}`johnstone2009consistency` keeps the $k$ largest diagonal entries, so it
# must see *every* support entry above the noise, including the smallest with signal
# $\lambda v_j^2 \approx \lambda / k$. The thresholding estimator of {cite:t}`cai2025sparsepca`
# asks the diagonal for much less: only its **largest** entry $i^\star$, whose signal is
# $\lambda\|v\|_\infty^2$.

# %%
d, i_star, column = column_statistics(X)
print(f"i* = {i_star}; on the support: {i_star in support}; |v_i*| = {abs(v[i_star]):.2f}")

# %% tags=["hide-input"]
on = np.isin(np.arange(p), support)
fig, axes = plt.subplots(1, 3, figsize=plotting.figsize("wide"), sharex=True)
axes[0].stem(np.flatnonzero(on), v[on], basefmt=" ", linefmt="k-", markerfmt="ko")
axes[0].set(title="The planted spike v", xlabel="coordinate j", ylabel="$v_j$")
dt_cut = np.sort(d - 1)[-k]
axes[1].scatter(np.flatnonzero(~on), d[~on] - 1, s=6, c="0.6", label="off the support")
axes[1].scatter(
    np.flatnonzero(on),
    d[on] - 1,
    s=14,
    c=plotting.method_color("Diagonal thresholding"),
    label="on the support",
)
axes[1].axhline(
    dt_cut, ls="--", c=plotting.method_color("Diagonal thresholding"), label="k-th largest (DT cut)"
)
axes[1].annotate("$i^\\star$", (i_star, d[i_star] - 1), xytext=(8, -4), textcoords="offset points")
axes[1].set(
    title="Diagonal $\\hat\\Sigma_{jj} - 1$",
    xlabel="coordinate j",
    ylabel="$\\hat\\Sigma_{jj} - 1$",
)
axes[1].legend(loc="center right")
col_cut = np.sort(np.abs(column))[-k]
axes[2].scatter(np.flatnonzero(~on), column[~on], s=6, c="0.6")
axes[2].scatter(np.flatnonzero(on), column[on], s=14, c=plotting.method_color("Thresholding"))
for sgn in (1, -1):
    axes[2].axhline(sgn * col_cut, ls="--", c=plotting.method_color("Thresholding"))
axes[2].set(
    title="Column $\\hat\\Sigma_{:,i^\\star} - e_{i^\\star}$",
    xlabel="coordinate j",
    ylabel="$(\\hat\\Sigma_{:,i^\\star} - e_{i^\\star})_j$",
)
plotting.panel_labels(axes)
fig.suptitle(
    "The column of the largest diagonal entry separates the support; the diagonal does not"
)
plt.show()

# %% [markdown]
# **What to see.** (a) The spike has one large and $k-1$ small entries. (b) On the diagonal the
# small support entries (orange) drown in the noise of the $p-k$ other coordinates: the dashed
# line, the $k$-th largest diagonal entry, lets many wrong coordinates in. Only the single large
# entry stands out, and that is all the thresholding estimator takes from the diagonal. (c) The
# column $\hat\Sigma_{:,i^\star} - e_{i^\star}$ has population value $\lambda v_{i^\star} v$: every
# support entry is multiplied by the *large* $|v_{i^\star}|$ instead of by itself, so the $k$
# largest entries in absolute value (outside the dashed lines) are the support.

# %% [markdown]
# ## Step 2: threshold the column
#
# Keeping the $k$ largest $|c_j|$ and normalising gives the thresholding estimator
# $\hat v = T_k(c)/\|T_k(c)\|$. It costs $O(np)$: one pass for the diagonal, one for the
# column; the $p \times p$ covariance is never formed. Diagonal thresholding, for comparison,
# takes the top eigenvector of $\hat\Sigma$ restricted to the $k$ largest diagonal entries.

# %%
v_thr = threshold_column(X, k)
v_dt = diagonal_thresholding(sample_covariance(X), k)
for name, est in [("Thresholding", v_thr), ("Diagonal thresholding", v_dt)]:
    print(
        f"{name:24s} sin(theta) = {sin_theta(est, v):.3f}  "
        f"support recovered: {support_recovered(est, support)}"
    )

# %% [markdown]
# ## Step 3: polish with the truncated power method (the two-stage estimator)
#
# The second stage runs the truncated power method {cite:p}`yuan2013truncated`,
# $v_{t+1} = T_k(\hat\Sigma v_t)/\|T_k(\hat\Sigma v_t)\|$, from the thresholding estimate. We
# trace its error per iteration, and for contrast start it from the diagonal-thresholding
# estimate and from a random unit vector.

# %%
S = sample_covariance(X)
starts = {
    "Two-stage": v_thr,
    "Diagonal thresholding": v_dt,
    "random start": np.random.default_rng(0).standard_normal(p),
}
paths = {name: truncated_power_path(S, x0, k, iters=15) for name, x0 in starts.items()}
errors = {name: [sin_theta(x, v) for x in path] for name, path in paths.items()}
v_two = two_stage(X, k)
print(f"two-stage sin(theta) = {sin_theta(v_two, v):.3f}")

# %% tags=["hide-input"]
fig, ax = plt.subplots(figsize=plotting.figsize("single"))
for name, err in errors.items():
    color = "0.5" if name == "random start" else plotting.method_color(name)
    label = {
        "Two-stage": "start: thresholding (two-stage)",
        "Diagonal thresholding": "start: diagonal thresholding",
    }.get(name, "start: random")
    ax.plot(range(len(err)), err, marker="o", ms=3, c=color, label=label)
ax.set(
    yscale="log",
    xlabel="truncated power iteration t",
    ylabel="$\\sin\\angle(v_t, v)$",
    title="From the thresholding start, truncated power iterations converge in a few steps",
)
ax.legend()
plt.show()

# %% [markdown]
# **What to see.** Started from the thresholding estimate, the error drops in one or two
# iterations and then stays flat: the iterate has found the support, and the remaining error is
# the statistical error of the top eigenvector of $\hat\Sigma$ on that support. On this instance
# the truncated power method also repairs the poor diagonal-thresholding start (one instance:
# how often that happens is not measured here), while from a random start it locks
# onto noise coordinates and never finds the spike ($\sin\angle = 1$): the method is only as
# good as its start, and the paper's guarantee is for the thresholding start.

# %% [markdown]
# ## Claim check
#
# The chapter's claim on this miniature: at $n = c\,k\log p$ with the small $c$ above, the
# thresholding estimator recovers the support on most instances while diagonal thresholding
# almost never does, and the two-stage estimator's error is below the thresholding estimator's.
# One instance proves nothing, so the check repeats the experiment over fresh seeds.

# %%
trials = CONFIG["check_trials"]
ok_thr, ok_dt, err_thr, err_two = [], [], [], []
for t in range(trials):
    Xt, vt, st = spiked_covariance_data(n, p, k, lam, shape="spiky", seed=1000 + t)
    thr = threshold_column(Xt, k)
    ok_thr.append(support_recovered(thr, st))
    ok_dt.append(support_recovered(diagonal_thresholding(sample_covariance(Xt), k), st))
    err_thr.append(sin_theta(thr, vt))
    err_two.append(sin_theta(two_stage(Xt, k), vt))
rate_thr, rate_dt = float(np.mean(ok_thr)), float(np.mean(ok_dt))
assert all(0 <= e <= 1 for e in err_thr + err_two), "sin(theta) must lie in [0, 1]"
mean_thr, mean_two = float(np.mean(err_thr)), float(np.mean(err_two))
runtime_s = time.perf_counter() - t_start

claim(
    "sparse-pca/1_step_by_step/thr_recovers_support",
    f"At n = {CONFIG['c']:g} k log p, thresholding recovers the spike's support in most trials; "
    "diagonal thresholding, which needs n of order k^2 log p, does not",
    paper="n = Omega(k log p) samples suffice for thresholding (theorem)",
    value=rate_thr,
    check=greater(0.6),
    control=("diagonal thresholding", rate_dt),
    verdict="reproduced",
    seeds=trials,
    fmt=".2f",
)
claim(
    "sparse-pca/1_step_by_step/two_stage_lowers_error",
    "The two-stage estimator has a lower mean sin(theta) error than thresholding alone",
    paper="two-stage attains the minimax rate sqrt(k log p / n)",
    value=mean_two,
    check=less(mean_thr, label="thresholding's error"),
    verdict="illustrated",
    seeds=trials,
    numbers={"two-stage": mean_two, "thresholding": mean_thr},
)
glue("n", n, display=False)
glue("c", CONFIG["c"], display=False)
glue("trials", trials, display=False)
glue("rate_thr", 100 * rate_thr, display=False)
glue("rate_dt", 100 * rate_dt, display=False)
glue("err_thr", mean_thr, display=False)
glue("err_two", mean_two, display=False)
glue("runtime_s", runtime_s, display=False)
