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
# # Ablations and a diagnosis: which part of RSTIB-MLP does the work?
#
# RSTIB-MLP differs from the plain MLP in three ways: the **information bottleneck** (stochastic
# representations, learned input and target noise, three KL terms), the **teacher** (a graph
# network whose forecasts weight the sensors by difficulty and enter a distillation term), and
# the **dynamic node embedding** (a time-of-day-dependent embedding of each sensor). Here each
# is removed in turn at the largest noise ratio, with the same data and teacher. Then the
# bottleneck is looked at from inside: training curves of every model, the learned noise
# scales $\sigma$, $\sigma_x$, $\sigma_y$ and the three KL terms per epoch, and a sweep (and the
# official annealing schedule) of the KL weight $\beta$.

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
        " && pip install -q --no-deps -e /content/icml25"
        " && pip install -q torch-geometric",
        shell=True,
        check=True,
    )

# %%
import time

import matplotlib.pyplot as plt
import numpy as np
import torch

from icml25.common import glue, plotting, setup
from icml25.common.claims import claim, greater, less
from icml25.rstib import (
    RSTIBMLP,
    STIDMLP,
    STGCNLite,
    add_noise,
    anneal_beta,
    evaluate,
    make_traffic_graph,
    make_windows,
    simulate_traffic,
    train_forecaster,
)

t_start = time.perf_counter()
SCALE = setup(seed=0)
CONFIG = {
    "small": {
        "n_nodes": 32,
        "n_days": 12,
        "epochs": 10,
        "d": 16,
        "channels": 16,
        "ratio": 0.8,
        "seeds": [0, 1, 2],
        "betas": [0.0, 1e-2],
    },
    "large": {
        "n_nodes": 64,
        "n_days": 21,
        "epochs": 30,
        "d": 32,
        "channels": 32,
        "ratio": 0.8,
        "seeds": [0, 1, 2, 3, 4],
        "betas": [0.0, 1e-4, 1e-2, 1e-1],
    },
}[SCALE]
print(SCALE, CONFIG)

coords, W = make_traffic_graph(CONFIG["n_nodes"], "corridors", seed=0)
data = simulate_traffic(W, n_days=CONFIG["n_days"], lag=3, seed=0)
N = W.shape[0]
win = make_windows(data, noisy=add_noise(data.x, CONFIG["ratio"], seed=1))
EPOCHS = CONFIG["epochs"]

# %% [markdown]
# The teacher is trained once (with the official teacher yaml: weight decay 1e-4, gradient norm
# clipped at 5) and cached; every variant that uses it gets the same forecasts. The students
# use the official student yaml (no weight decay, no clipping, the learning rate halved at
# epochs 1, 20, 50, ...) and keep the epoch with the best validation MAE (the official early
# stopping; its patience of 20 epochs never triggers in 10). "Without KD" trains with no
# teacher at all (uniform sensor weights, no distillation term); "without IB" keeps the teacher
# but removes the whole bottleneck: no noise heads, no sampled input or target noise, no second
# encoder pass, no KL terms; what is left is an MLP with RSTIB-MLP's embeddings, distilled from
# the teacher. (An earlier version of this chapter still computed the noise heads, added the
# sampled target noise and kept all three KL terms in its "without IB" run; the package now
# removes them all, and a unit test checks it.) "Without dynamic embeddings" drops the
# time-dependent node embedding. The plain MLP, RSTIB-MLP and the model without IB are trained
# on three seeds; the two other ablations and the KL-weight sweep on the first seed only (the
# time budget).

# %%
torch.manual_seed(0)
teacher = STGCNLite(N, W, channels=CONFIG["channels"])
teacher_hist = train_forecaster(
    teacher,
    win,
    EPOCHS,
    batch_size=64,
    seed=0,
    weight_decay=1e-4,
    clip_norm=5.0,
    milestones=(1, 50, 100),
)
teacher_mae = evaluate(teacher, win)["MAE"]


def run(name, seed, use_teacher=True, **kwargs):
    """Train one variant (RSTIB-MLP with ``kwargs``, or the plain MLP); MAE and history."""
    torch.manual_seed(seed)
    if name == "MLP":
        model = STIDMLP(N, d=CONFIG["d"])
    else:
        model_kw = {k: kwargs.pop(k) for k in ("ib", "dynamic") if k in kwargs}
        model = RSTIBMLP(N, d=CONFIG["d"], **model_kw)
    hist = train_forecaster(
        model,
        win,
        EPOCHS,
        batch_size=64,
        seed=seed,
        teacher=teacher if use_teacher and name != "MLP" else None,
        **kwargs,
    )
    return evaluate(model, win)["MAE"], hist


VARIANTS = {
    "MLP": {},
    "RSTIB-MLP": {},
    "without IB": {"ib": False},
    "without KD": {"use_teacher": False},
    "without dynamic embeddings": {"dynamic": False},
}
mae = {name: [] for name in VARIANTS}
hist = {name: [] for name in VARIANTS}
for seed in CONFIG["seeds"]:
    for name, kwargs in VARIANTS.items():
        if name in ("without KD", "without dynamic embeddings") and seed != CONFIG["seeds"][0]:
            continue
        m, h = run(name, seed, **dict(kwargs))
        mae[name].append(m)
        hist[name].append(h)
    print(seed, {k: round(v[-1], 2) for k, v in mae.items()})

# %% tags=["hide-input"]
names = list(mae)
means = np.array([np.mean(mae[n]) for n in names])
fig, ax = plt.subplots(figsize=plotting.figsize("single"))
colors = [plotting.method_color("MLP"), plotting.method_color("RSTIB-MLP")] + [
    plotting.PALETTE[k] for k in (4, 5, 8)
]
ax.barh(names, means, color=colors, alpha=0.85)
for i, n in enumerate(names):
    ax.plot(mae[n], [i] * len(mae[n]), "k|", ms=10)
ax.axvline(
    teacher_mae,
    color=plotting.method_color("STGCN-lite"),
    ls="--",
    label=f"STGCN-lite teacher ({teacher_mae:.1f})",
)
ax.invert_yaxis()
ax.set(
    xlabel=f"test MAE vs clean targets at r = {CONFIG['ratio']}",
    title="Removing one part at a time",
)
ax.legend(loc="lower right", fontsize=8)
plt.show()

# %% [markdown]
# **What to see.** Bars are means, ticks the individual seeds (three for the plain MLP,
# RSTIB-MLP and the model without IB, one for the other two), the dashed line the teacher;
# the axis starts at 0. A bar to the right of RSTIB-MLP's means the removed part was helping;
# to the left, that the miniature does better without it.

# %% [markdown]
# ## Inside the training
#
# Validation MAE (noisy targets, as a forecaster sees them) after every epoch, for every model
# (mean over the three seeds; the teacher on its one run), and what the bottleneck learns:
# the mean noise scales and the three KL terms of RSTIB-MLP per epoch.

# %% tags=["hide-input"]
epochs = np.arange(1, EPOCHS + 1)
last = {k: np.mean([h["trace"][k][-1] for h in hist["RSTIB-MLP"]]) for k in ("kl", "kl_y", "kl_x")}
reg_last = np.mean([h["trace"]["reg"][-1] for h in hist["RSTIB-MLP"]])
kd_last = np.mean([h["trace"]["kd"][-1] for h in hist["RSTIB-MLP"]])
kl_part = 2e-3 * sum(last.values())
kl_share = kl_part / (reg_last / np.log(2) + kl_part + 0.3 * kd_last)
print(f"share of the KL terms in RSTIB-MLP's loss at the last epoch: {100 * kl_share:.1f} %")
fig, axes = plt.subplots(1, 3, figsize=plotting.figsize("wide"))
ax = axes[0]
curves = {"STGCN-lite": [teacher_hist]} | {n: hist[n] for n in ("MLP", "RSTIB-MLP", "without IB")}
for name, hs in curves.items():
    v = np.mean([h["val_mae"] for h in hs], axis=0)
    color = plotting.PALETTE[4] if name == "without IB" else plotting.method_color(name)
    ax.plot(epochs, v, marker="o", ms=3, label=name, color=color)
ax.set(xlabel="epoch", ylabel="validation MAE (noisy targets)", title="Training curves")
ax.legend(fontsize=7)
tr = {
    k: np.mean([h["trace"][k] for h in hist["RSTIB-MLP"]], axis=0)
    for k in ("sigma", "sigma_x", "sigma_y", "kl", "kl_y", "kl_x")
}
ax = axes[1]
for k, lab in [
    ("sigma", r"$\sigma$ (of $Z$)"),
    ("sigma_x", r"$\sigma_x$"),
    ("sigma_y", r"$\sigma_y$"),
]:
    ax.plot(epochs, tr[k], marker="o", ms=3, label=lab)
ax.axhline(0.01, color="grey", ls=":", lw=1, label="clamp 0.01, 0.99")
ax.axhline(0.99, color="grey", ls=":", lw=1)
ax.set(xlabel="epoch", ylabel="mean noise scale", ylim=(0, 1.05), title="Learned noise scales")
ax.legend(fontsize=7)
ax = axes[2]
for k, lab in [("kl", r"KL($Z$)"), ("kl_x", r"KL$_x$"), ("kl_y", r"KL$_y$")]:
    ax.plot(epochs, tr[k], marker="o", ms=3, label=lab)
ax.set(
    xlabel="epoch",
    ylabel="KL per sensor (bits, weighted)",
    ylim=(0, None),
    title="The three KL terms",
)
ax.legend(fontsize=7)
plotting.panel_labels(axes)
plt.show()

# %% [markdown]
# **What to see.** (a) RSTIB-MLP's validation error is above the model without IB's at every
# epoch, by a roughly constant margin after the first: the gap does not close within the
# budget (the claim check measures its trend); (b) the representation's and the input noise's
# scales $\sigma$ and $\sigma_x$ collapse towards the lower clamp within a few epochs, so
# the sampled noise soon becomes small, while the KL term keeps the target noise's $\sigma_y$
# near 1 (in flow units: a fraction of a vehicle, negligible against the sensor noise); (c)
# the KL terms of $Z$ and of the input noise grow as their means drift from 0, yet at
# $\beta = 10^{-3}$ they remain a small share of the loss (printed above the figure): the
# regression term dominates.

# %% [markdown]
# ## The KL weight: a sweep and the official annealing schedule
#
# If the KL terms were what costs accuracy, a smaller $\beta$ would help. On the first seed:
# $\beta = 0$ (no KL term, the stochastic passes kept), $10^{-3}$ (the paper's, above),
# $10^{-2}$, and the official `info_anneal` schedule (0 for the first quarter of the epochs,
# a cubic ramp to $10^{-3}$ over the second).

# %%
seed0 = CONFIG["seeds"][0]
sweep = {1e-3: mae["RSTIB-MLP"][0]}
sweep_sigma_y = {1e-3: hist["RSTIB-MLP"][0]["trace"]["sigma_y"]}
for beta in CONFIG["betas"]:
    m, h = run("RSTIB-MLP", seed0, beta=beta)
    sweep[beta], sweep_sigma_y[beta] = m, h["trace"]["sigma_y"]
annealed, h_anneal = run("RSTIB-MLP", seed0, beta_schedule=anneal_beta(1e-3, EPOCHS))
print({f"{b:g}": round(v, 2) for b, v in sorted(sweep.items())}, "annealed", round(annealed, 2))

# %% tags=["hide-input"]
betas = sorted(sweep)
fig, axes = plt.subplots(1, 2, figsize=plotting.figsize("wide"))
ax = axes[0]
x = np.arange(len(betas))
ax.plot(
    x,
    [sweep[b] for b in betas],
    "D-",
    color=plotting.method_color("RSTIB-MLP"),
    label="RSTIB-MLP, constant $\\beta$",
)
ax.scatter(
    [x[betas.index(1e-3)]],
    [annealed],
    marker="*",
    s=120,
    color="k",
    zorder=3,
    label="annealed to $10^{-3}$ (official)",
)
ax.axhline(mae["without IB"][0], color=plotting.PALETTE[4], ls="--", label="without IB")
ax.axhline(mae["MLP"][0], color=plotting.method_color("MLP"), ls=":", label="plain MLP")
ax.set_xticks(x, [f"{b:g}" for b in betas])
ax.set(
    xlabel=r"KL weight $\beta$",
    ylabel="test MAE vs clean targets (seed 0)",
    title="The KL weight does not decide it",
    ylim=(0, None),
)
ax.legend(fontsize=7)
ax = axes[1]
for b in betas:
    ax.plot(epochs, sweep_sigma_y[b], marker="o", ms=3, label=f"$\\beta$ = {b:g}")
ax.plot(epochs, h_anneal["trace"]["sigma_y"], "k--", label="annealed")
ax.set(
    xlabel="epoch",
    ylabel=r"mean $\sigma_y$",
    ylim=(0, 1.05),
    title=r"$\beta$ moves the target noise",
)
ax.legend(fontsize=7)
plotting.panel_labels(axes)
plt.show()

# %% [markdown]
# **What to see.** (a) The error moves by a couple of units with $\beta$ (the largest weight is
# a little better on this one seed), the annealing schedule changes nothing, and every setting
# stays far above the model without the bottleneck, $\beta = 0$ included: what costs accuracy
# is the stochastic architecture (noise heads, sampled noise and a second pass through the
# encoder), not the KL terms. (b) What $\beta$ visibly changes
# is the target noise: without the KL term $\sigma_y$ shrinks, with it $\sigma_y$ stays near 1.

# %% [markdown]
# ## Claim check
#
# The paper reports that each part helps on PEMS. Here: the bottleneck's effect over three
# seeds (the comparison is expected to fail, and the check asserts that it does); the
# distilled MLP without the bottleneck against the teacher over three seeds, with the plain
# MLP (no teacher) as the control that must fail; whether the bottleneck only slows learning
# (its gap to the model without IB closes over the epochs) or hurts at this budget; the KL
# weight; and the two one-seed ablations.

# %%
full = np.array(mae["RSTIB-MLP"])
no_ib = np.array(mae["without IB"])
mlp = np.array(mae["MLP"])
delta = {
    name: float(np.mean(mae[name]) - full[0])
    for name in ("without KD", "without dynamic embeddings")
}
val = {n: np.array([h["val_mae"] for h in hist[n]]) for n in ("RSTIB-MLP", "without IB")}
gap = val["RSTIB-MLP"] - val["without IB"]  # (seeds, epochs)
gap_slope = float(np.polyfit(np.arange(2, EPOCHS + 1), gap[:, 1:].mean(0), 1)[0])
print("val gap per epoch (mean over seeds)", np.round(gap.mean(0), 2))
beta_range = max(sweep.values()) - min(sweep.values())
assert len(full) == len(no_ib) == len(mlp) == len(CONFIG["seeds"]) >= 3, mae
assert np.all(np.isfinite(gap))
runtime_s = time.perf_counter() - t_start
claim(
    "rstib/3_ablations/ib_helps",
    "Removing the information bottleneck (noise heads, sampled noise and KL terms) raises the MAE",
    paper="removing the IB costs accuracy (ablation)",
    value=no_ib - full,
    check=greater(0.0),
    verdict="not reproduced",
    caveat=f"without the bottleneck the MAE is lower in every seed, by "
    f"{-np.mean(no_ib - full):.1f} on average: at this budget the bottleneck hurts",
    numbers={"full model": full.mean(), "without IB": no_ib.mean(), "MLP": mlp.mean()},
    fmt=".2f",
)
claim(
    "rstib/3_ablations/distilled_mlp_beats_teacher",
    f"Distillation alone (RSTIB-MLP without the bottleneck) beats the STGCN-lite teacher at "
    f"r = {CONFIG['ratio']} in every seed (the paper's headline, an MLP beating the graph network "
    "under noise, without the IB)",
    paper="RSTIB-MLP beats STGCN under noise",
    value=no_ib,
    check=less(teacher_mae, label="the teacher's MAE"),
    verdict="not reproduced",
    caveat=f"the distilled MLP ({no_ib.mean():.1f}) is well below RSTIB-MLP ({full.mean():.1f}) "
    f"and the plain MLP ({mlp.mean():.1f}) but above the teacher ({teacher_mae:.1f}) in every "
    "seed at ten epochs of the official schedule",
    fmt=".2f",
)
claim(
    "rstib/3_ablations/ib_only_slows_learning",
    "Diagnosis: the bottleneck only slows learning, i.e. RSTIB-MLP's validation gap to the model "
    "without IB shrinks over the epochs after the first (slope of the seed-mean gap < 0)",
    paper="(a diagnosis of this book; the paper trains up to 300 epochs)",
    value=gap_slope,
    check=less(0.0),
    verdict="not reproduced",
    seeds=len(full),
    caveat=f"the gap stays at {gap[:, 1:].mean():.1f} (validation MAE) from the second epoch on "
    f"and does not shrink (slope {gap_slope:+.2f} per epoch): within this budget the bottleneck "
    "hurts rather than merely slowing learning; whether it catches up after many more epochs is "
    "not tested at small scale",
    fmt=".3f",
)
claim(
    "rstib/3_ablations/kl_weight_not_the_cause",
    "Dropping only the KL terms (beta = 0, the stochastic passes kept) leaves the MAE more than 2 "
    "above the model without IB: the KL weight is not what costs accuracy",
    paper="(a diagnosis of this book; the paper uses beta = 1e-3)",
    value=sweep[0.0] - mae["without IB"][0],
    check=greater(2.0),
    verdict="illustrated",
    numbers={
        "beta 0": sweep[0.0],
        "beta 1e-3": sweep[1e-3],
        "beta 1e-2": sweep[1e-2],
        "annealed": annealed,
        "without IB": mae["without IB"][0],
    },
    fmt=".2f",
)
for name, key in [
    ("without dynamic embeddings", "dynamic_embedding_helps"),
    ("without KD", "kd_helps"),
]:
    claim(
        f"rstib/3_ablations/{key}",
        f"Removing a part of RSTIB-MLP ({name}) raises the MAE at the largest noise ratio",
        paper="removing KD, the IB or the dynamic embedding costs accuracy (ablations)",
        value=np.array(mae[name]) - full[0],
        check=greater(0.0),
        verdict="illustrated",
        fmt=".2f",
    )
glue("full_mae", full.mean())
glue("mlp_mae", mlp.mean())
glue("no_ib_mae", no_ib.mean())
glue("teacher_mae", teacher_mae)
glue("delta_kd", delta["without KD"])
glue("delta_dyn", delta["without dynamic embeddings"])
glue("gap_after_first", gap[:, 1:].mean())
glue("kl_share_pct", 100 * kl_share)
glue("beta_range", beta_range)
glue("runtime_s", runtime_s)
