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
# # Audit and limits: is it ε-DP, and what if the net misses the truth?
#
# Three checks of the estimator from outside its proof. (1) The exponential mechanism's output
# law is known exactly, so its privacy loss $\log p_D(m)/p_{D'}(m)$ can be computed on
# neighbouring data sets, both the worst neighbour that the data allow and the worst score
# vectors the sensitivity allows. (2) The Laplace report-noisy-min is audited as a black box:
# 20 000 releases on $D$ and on $D'$ (one $X_i$ moved to a corner of the box), an output set
# chosen on one half of the releases, and a Clopper–Pearson lower bound on $\varepsilon$ from
# the other half (`audit_epsilon`). The audit must stay below $\varepsilon$ for the correct
# mechanism and must catch a planted bug that drops the $1/n$ from the noise. (3) Two limits:
# a truth half a lattice step off the net (misspecified) leaves an error floor, and the
# non-private POT maps (EMD, Sinkhorn), which do not know the family, are far worse at
# $n \le 2000$: a comparison that favours our oracle net by construction.
#
# At `small` scale the notebook takes about a minute on one CPU thread.

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

from icml25.common import glue, plotting, setup
from icml25.common.claims import claim, greater, less
from icml25.private_ot import (
    audit_epsilon,
    bump_family,
    error_grid,
    make_grid,
    map_l2_error,
    ot_baseline,
    potential_family,
    report_noisy_min,
    sample_problem,
    selection_probabilities,
    semi_dual_scores,
    transport_map,
    worst_neighbour,
)

t_start = time.perf_counter()
SCALE = setup(seed=0)
CONFIG = {
    "small": {"N": 32, "levels": 5, "reps": 30, "seeds": 3, "releases": 20000},
    "large": {"N": 48, "levels": 7, "reps": 100, "seeds": 3, "releases": 50000},
}[SCALE]
CLIP, N_AUDIT, EPS_AUDIT = 0.3, 1000, 0.5
CENTERS = np.array([[0.15, 0.15], [-0.15, -0.15], [0.15, -0.15], [-0.15, 0.15]])
WIDTH = 0.12
LEVELS = np.linspace(-0.006, 0.006, CONFIG["levels"])
points, axis = make_grid(CONFIG["N"])
family = bump_family(axis, CENTERS, WIDTH, LEVELS)
print(SCALE, CONFIG, f"{family.size} candidates")

# %% [markdown]
# ## Exact privacy loss of the exponential mechanism
#
# For the exponential mechanism $p_m \propto \exp(-\varepsilon s_m / 2\Delta)$ the privacy
# loss of every output is exact. Two neighbours of one data set ($n = 1000$): the worst one
# the data allow (one $X_i$ moved to a corner, searched over all $i$ and corners by
# `worst_neighbour`), and the worst score vectors the sensitivity allows ($s'_m = s_m - \Delta$
# for one output, $+\Delta$ for all others), for each output $m$.

# %%
rng = np.random.default_rng(0)
X, Y = sample_problem(family, int(rng.integers(family.size)), N_AUDIT, rng)
scores = semi_dual_scores(family, X, Y, CLIP)
sens = 2 * CLIP / N_AUDIT
X_far, spread_all = worst_neighbour(family, X, Y, CLIP)
scores_far = semi_dual_scores(family, X_far, Y, CLIP)
eps_grid = np.array([0.1, 0.3, 1.0, 3.0, 10.0])
loss_data, loss_adv = [], []
for eps in eps_grid:
    p, p_far = (
        selection_probabilities(scores, sens, eps),
        selection_probabilities(scores_far, sens, eps),
    )
    loss_data.append(np.abs(np.log(p / p_far)).max())
    worst = 0.0
    for m in np.argsort(scores)[:50]:  # the likeliest outputs; all others behave alike
        s_adv = scores + sens
        s_adv[m] -= 2 * sens
        q = selection_probabilities(s_adv, sens, eps)
        worst = max(worst, float(np.log(q[m] / p[m])))
    loss_adv.append(worst)
loss_data, loss_adv = np.array(loss_data), np.array(loss_adv)
fig, ax = plt.subplots(figsize=(6, 4.2))
ax.plot(eps_grid, eps_grid, "k--", lw=1, label="$\\varepsilon$ (the guarantee)")
ax.plot(eps_grid, loss_adv, "o-", color=plotting.PALETTE[3], label="worst score vectors")
ax.plot(eps_grid, loss_data, "s-", color=plotting.PALETTE[0], label="worst data neighbour")
ax.set(
    xscale="log",
    yscale="log",
    xlabel="$\\varepsilon$",
    ylabel="max$_m$ |log $p_D(m)/p_{D'}(m)$|",
    title="exact privacy loss, exponential mechanism",
)
ax.legend(fontsize=8)
plt.show()
print("spread of the score change / Delta:", f"{spread_all:.4f}")
print(
    "loss / eps, data:",
    np.round(loss_data / eps_grid, 4),
    "adversarial:",
    np.round(loss_adv / eps_grid, 4),
)

# %% [markdown]
# *What to see:* the worst score vectors come close to the guarantee for small $\varepsilon$
# (the loss approaches $\varepsilon$ from below) and never cross it; real neighbours are far
# from it, because
# moving one sample shifts all 625 scores almost equally (the spread of the change is a few
# per cent of $\Delta$), and a common shift changes no selection.
#
# ## Auditing the Laplace mechanism, and a planted bug
#
# The neighbour for the audit moves the $X_i$ that most changes the contest between the two
# best candidates of $D$ to a corner. The planted bug scores by sums $n S_n$ but keeps the
# noise calibrated to the mean's sensitivity $\Delta = 2C/n$: the $1/n$ is gone from the
# noise, which is then $n$ times too small. $\varepsilon = 0.5$, $n = 1000$, 3 data seeds.

# %%
audit_ok, audit_bug, top_share = [], [], []
for seed in range(CONFIG["seeds"]):
    rng = np.random.default_rng(100 + seed)
    X, Y = sample_problem(family, int(rng.integers(family.size)), N_AUDIT, rng)
    s = semi_dual_scores(family, X, Y, CLIP)
    X_p, _ = worst_neighbour(family, X, Y, CLIP, among=np.argsort(s)[:2])
    s_p = semi_dual_scores(family, X_p, Y, CLIP)
    for out, factor in ((audit_ok, 1.0), (audit_bug, float(N_AUDIT))):
        a = np.array(
            [report_noisy_min(factor * s, sens, EPS_AUDIT, rng) for _ in range(CONFIG["releases"])]
        )
        b = np.array(
            [
                report_noisy_min(factor * s_p, sens, EPS_AUDIT, rng)
                for _ in range(CONFIG["releases"])
            ]
        )
        out.append(audit_epsilon(a, b))
        if factor > 1:
            top_share.append(np.bincount(a).max() / a.size)
audit_ok, audit_bug = np.array(audit_ok), np.array(audit_bug)
fig, ax = plt.subplots(figsize=(6, 4))
ax.bar(np.arange(3) - 0.2, audit_ok, 0.4, color=plotting.PALETTE[0], label="correct mechanism")
ax.bar(np.arange(3) + 0.2, audit_bug, 0.4, color=plotting.PALETTE[3], label="bug: no 1/n")
ax.axhline(EPS_AUDIT, color="k", ls="--", lw=1, label=f"$\\varepsilon$ = {EPS_AUDIT}")
ax.set(
    xticks=range(3),
    xticklabels=[f"seed {s}" for s in range(3)],
    ylabel="95 % lower bound on $\\varepsilon$",
    title="black-box audit, 2 x 20 000 releases",
)
ax.legend(fontsize=8)
plt.show()
print("audit bound, correct:", audit_ok, "bug:", np.round(audit_bug, 3))

# %% [markdown]
# *What to see:* the correct mechanism's audit bound is 0 (no evidence against
# $\varepsilon$-DP; the audit is loose, since real neighbours barely move the scores, see
# above), while the bug's bound exceeds $\varepsilon$ in every seed: a valid 95 % lower bound
# above the claimed $\varepsilon$ is proof, at that confidence, that the code is not
# $\varepsilon$-DP.
#
# ## Misspecification: a truth off the net
#
# The truths are moved half a lattice step off the net in every coordinate; the net (the
# mechanism's candidates) stays the same 625 lattice potentials. For the well-specified
# control the truths are lattice points. $\varepsilon \in \{1, \infty\}$, 30 data sets per
# $n$ and seed, 3 seeds.

# %%
step = LEVELS[1] - LEVELS[0]
off = (
    np.array([[0.5, -0.5, 0.5, -0.5], [-1.5, 0.5, 1.5, -0.5], [0.5, 1.5, -0.5, -1.5]]) * step
)  # (3, K) truths, half a step off the lattice in every coordinate
bumps = np.exp(-((points[:, None] - CENTERS[None]) ** 2).sum(-1) / (2 * WIDTH**2))  # (N^2, K)
both = potential_family(
    np.concatenate([family.phi, 0.5 * (points**2).sum(1)[None] + off @ bumps.T]),
    axis,
    np.concatenate([family.thetas, off]),
)
net, truths = np.arange(family.size), family.size + np.arange(off.shape[0])
NS_MIS = [1000, 10000, 30000]
mis = [
    error_grid(
        both,
        NS_MIS,
        [1.0, np.inf],
        CONFIG["reps"],
        truths=truths,
        candidates=net,
        seed=s,
        progress=False,
    )
    for s in range(CONFIG["seeds"])
]
well = [
    error_grid(family, NS_MIS, [1.0, np.inf], CONFIG["reps"], seed=s, progress=False)
    for s in range(CONFIG["seeds"])
]
err_mis = np.stack([r["err"] for r in mis]).mean(-1)  # (seeds, n, eps)
err_well = np.stack([r["err"] for r in well]).mean(-1)
floor = float(np.mean([r["floor"].mean() for r in mis]))
fig, ax = plt.subplots(figsize=(6.5, 4.2))
for b, (lab, ls) in enumerate([("$\\varepsilon = 1$", ":"), ("$\\varepsilon = \\infty$", "-")]):
    ax.plot(
        NS_MIS,
        err_mis[:, :, b].mean(0),
        ls=ls,
        marker="o",
        color=plotting.PALETTE[3],
        label=f"misspecified, {lab}",
    )
    ax.plot(
        NS_MIS,
        err_well[:, :, b].mean(0),
        ls=ls,
        marker="s",
        color=plotting.PALETTE[0],
        label=f"well-specified, {lab}",
    )
ax.axhline(floor, color="grey", lw=1, label="best candidate of the net (floor)")
ax.set(
    xscale="log",
    yscale="log",
    xlabel="$n$",
    ylabel="squared $L^2(P)$ map error",
    title="a truth half a lattice step off the net",
)
ax.legend(fontsize=8)
plt.show()
drop_mis = 1 - err_mis[:, 2, 1] / err_mis[:, 1, 1]  # fraction of the error removed 1e4 -> 3e4
drop_well = 1 - err_well[:, 2, 1] / err_well[:, 1, 1]
print("drop 1e4 -> 3e4, misspecified:", np.round(drop_mis, 3), "well:", np.round(drop_well, 3))
print(
    f"floor {floor:.2e}; misspecified error at 3e4 / floor:", np.round(err_mis[:, 2, 1] / floor, 3)
)

# %% [markdown]
# *What to see:* with the truth off the net the error stops falling at the floor of the best
# candidate (grey): more data only make the selection of the nearest lattice point surer. The
# well-specified control keeps falling, to exact recovery. The paper's net grows with $n$
# (its approximation error is part of the rate); a fixed net's floor is exactly this term.
#
# ## Non-private POT baselines
#
# POT's barycentric maps of the empirical plan (EMD; Sinkhorn with $\varepsilon_{reg} =
# 10^{-2}$, only up to $n = 1000$, as it is slow) against ours at $\varepsilon = \infty$ and
# $\varepsilon = 1$ on the same data. The POT maps do not know the family; ours searches an
# oracle net that contains the truth, so **the comparison favours ours** by construction: it
# shows what the net buys, not that the private estimator beats optimal transport.

# %%
NS_POT = [250, 500, 1000, 2000]
rng = np.random.default_rng(7)
x_eval = rng.uniform(-0.5, 0.5, (2000, 2))
rows = {"EMD": [], "Sinkhorn": [], "ours, eps = inf": [], "ours, eps = 1": []}
for n in NS_POT:
    t = int(rng.integers(family.size))
    X, Y = sample_problem(family, t, n, rng)
    T0 = transport_map(family.phi[t], axis)
    rows["EMD"].append(map_l2_error(ot_baseline(X, Y, "emd"), T0, x_eval))
    rows["Sinkhorn"].append(
        map_l2_error(ot_baseline(X, Y, "sinkhorn", reg=1e-2), T0, x_eval) if n <= 1000 else np.nan
    )
    s = semi_dual_scores(family, X, Y, CLIP)
    for key, eps in (("ours, eps = inf", np.inf), ("ours, eps = 1", 1.0)):
        j = report_noisy_min(s, 2 * CLIP / n, eps, rng)
        rows[key].append(map_l2_error(transport_map(family.phi[j], axis), T0, x_eval))
fig, ax = plt.subplots(figsize=(6.5, 4.2))
for (key, vals), c in zip(rows.items(), [plotting.PALETTE[i] for i in (1, 2, 0, 3)], strict=True):
    v = np.array(vals)
    ax.plot(
        np.array(NS_POT)[np.isfinite(v)],
        np.maximum(v[np.isfinite(v)], 1e-9),
        "o-",
        color=c,
        label=key,
    )
ax.set(
    xscale="log",
    yscale="log",
    xlabel="$n$",
    ylabel="squared $L^2(P)$ map error (floor 1e-9)",
    title="POT baselines (one data set per n)",
)
ax.legend(fontsize=8)
plt.show()
for key, vals in rows.items():
    print(f"{key:16s}", " ".join(f"{v:.1e}" for v in vals))

# %% [markdown]
# *What to see:* the POT maps are worse than ours at $\varepsilon = \infty$ at every $n$, and
# worse than ours even at $\varepsilon = 1$: a nonparametric map from $n \le 2000$ points
# carries a bias and variance that the oracle net does not have. One data set per $n$, an
# illustration only.

# %%
runtime_s = time.perf_counter() - t_start
claim(
    "private-ot/3_audit_and_limits/audit_below_eps",
    "A black-box audit of the Laplace report-noisy-min (2 x 20 000 releases, worst X moved to a "
    "corner) gives a 95 % lower bound on eps that stays below eps = 0.5 in every seed; the same "
    "audit of the planted bug (no 1/n in the noise) does not",
    paper="report-noisy-min of the clipped semi-dual is pure eps-DP (theorem)",
    value=audit_ok,
    check=less(EPS_AUDIT),
    control=("bug: noise without 1/n", audit_bug),
    verdict="reproduced",
    caveat="the audit is loose (bound 0): real neighbours move the scores by a few per cent of "
    "the sensitivity; the exact exponential-mechanism loss reaches eps only on score vectors",
    fmt=".3f",
)
claim(
    "private-ot/3_audit_and_limits/audit_catches_bug",
    "The same audit of the planted bug gives a 95 % lower bound above eps = 0.5 in every seed "
    "(proof that it is not eps-DP); of the correct mechanism it does not",
    paper="the noise scale 2 Delta / eps with Delta = 2C/n is what makes it private",
    value=audit_bug,
    check=greater(EPS_AUDIT),
    control=("correct mechanism", audit_ok),
    verdict="reproduced",
    fmt=".3f",
)
claim(
    "private-ot/3_audit_and_limits/misspecified_floor",
    "With the truth half a lattice step off the net, the error at eps = inf stops falling: less "
    "than half of it goes from n = 1e4 to 3e4 in every seed; with the truth on the net it does",
    paper="the rate includes the net's approximation error (the paper's net grows with n)",
    value=drop_mis,
    check=less(0.5),
    control=("well-specified", drop_well),
    verdict="reproduced",
    fmt=".3f",
    numbers={
        "floor (best candidate)": floor,
        "error at 3e4 / floor": float(err_mis[:, 2, 1].mean() / floor),
    },
)
assert np.all(loss_adv <= eps_grid * (1 + 1e-9)) and np.all(loss_data <= loss_adv), (
    loss_adv,
    loss_data,
)
assert np.nanmax(rows["EMD"]) > max(rows["ours, eps = inf"]), rows
glue("loss_adv_ratio", float((loss_adv / eps_grid).max()), display=False)
glue("loss_data_ratio", float((loss_data / eps_grid).max()), display=False)
glue("spread_all", spread_all, display=False)
glue("floor", floor, display=False)
glue("emd_2000", float(rows["EMD"][-1]), display=False)
glue("ours_1_2000", float(rows["ours, eps = 1"][-1]), display=False)
glue("runtime_s", runtime_s, display=False)
print(f"runtime {runtime_s:.0f} s")
