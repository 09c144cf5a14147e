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
    predict,
    simulate_traffic,
    train_forecaster,
)

t_start, cpu_start = time.perf_counter(), time.process_time()
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
        "betas": [0.0],
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
print("official patience of 20 epochs can trigger:", CONFIG["epochs"] > 20)

coords, W = make_traffic_graph(CONFIG["n_nodes"], "corridors", seed=0)
data = simulate_traffic(W, n_days=CONFIG["n_days"], lag=3, seed=0)
N = W.shape[0]
win = make_windows(data, noisy=add_noise(data.x, CONFIG["ratio"], seed=1))
EPOCHS = CONFIG["epochs"]

# %% [markdown]
# The teacher is trained once (with the official teacher yaml: weight decay 1e-4, gradient norm
# clipped at 5) and cached; every variant that uses it gets the same forecasts. The students use
# the official student yaml (no weight decay, no clipping, the learning rate halved at epochs 1,
# 20, 50, ...) and keep the epoch with the best validation MAE (this book's choice: the official
# early stopping keeps the *current* epoch before its start epoch 150, so at this budget it would
# keep the last epoch; its patience of 20 epochs cannot trigger in a run of fewer epochs, printed
# below with the configuration). The teacher is one run (seed 0) for every student, and the
# seeds vary the model only: graph, traffic and noise are the same in every run. "Without KD"
# trains with no teacher at all (uniform sensor weights, no distillation term); "without IB"
# keeps the teacher
# but removes the whole bottleneck: no noise heads, no sampled input or target noise, no second
# encoder pass, no KL terms; what is left is an MLP with RSTIB-MLP's embeddings, distilled from
# the teacher. (An earlier version of this chapter still computed the noise heads, added the
# sampled target noise and kept all three KL terms in its "without IB" run; the package now
# removes them all, and a unit test checks it.) "Without dynamic embeddings" drops the
# time-dependent node embedding, which also narrows the representation from $5d$ to $4d$ (80 to
# 64 at small scale), so width and embedding are confounded in that ablation. The plain MLP,
# RSTIB-MLP, the model without IB, the model without KD and RSTIB-MLP with $\beta = 0$ are
# trained on three seeds; the model without dynamic embeddings and the annealing schedule on
# the first seed only (the time budget), so those are single-seed observations.

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
teacher_train = predict(teacher, win, "train")  # its forecasts, computed once for every student


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
        teacher_forecasts=teacher_train if use_teacher and name != "MLP" else None,
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
        if name == "without dynamic embeddings" and seed != CONFIG["seeds"][0]:
            continue
        m, h = run(name, seed, **dict(kwargs))
        mae[name].append(m)
        hist[name].append(h)
    print(seed, {k: round(v[-1], 2) for k, v in mae.items() if len(v) == len(mae["MLP"])})

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
# RSTIB-MLP, the model without IB and the model without KD, one for the model without dynamic
# embeddings), the dashed line the teacher;
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
# epoch, and both students are still falling at the last epoch; the teacher falls fastest in
# the first epochs but is still improving slowly too (its best epoch is the last,
# {glue:text}`teacher_best_epoch`, and it gains {glue:text}`teacher_gain_after3:.2f` in
# validation MAE after epoch 3). Read horizontally, RSTIB-MLP trails: it reaches the error the
# model without IB had some epochs earlier (the delay is measured below). (b) the
# representation's and the input noise's scales $\sigma$ and $\sigma_x$ collapse towards the
# lower clamp within a few epochs, so the sampled noise soon becomes small, while the KL term
# holds the target noise's $\sigma_y$ at {glue:text}`sigma_y_mean_last:.2f` at the last epoch (in
# flow units: a fraction of a vehicle, negligible against the sensor noise); (c) the KL terms
# of $Z$ and of the input noise grow mainly because their scales collapse: each of the $D$
# features contributes $-\log \sigma$, so at the last epoch's mean $\sigma_x$ =
# {glue:text}`sigma_x_last:.3f` the input-noise term is {glue:text}`kl_x_last:.0f` bits per
# sensor (weighted). Even so, at $\beta = 10^{-3}$ the KL terms are
# {glue:text}`kl_share_pct:.1f` % of the loss at the last epoch: the regression term dominates.
# The difficulty weight $d = \mathrm{softmax}_n(\mathrm{mean}_h |T' - Y'|)$ does not depend on
# the target noise: $\varepsilon_y$ is added to both $T$ and $Y$ and cancels in the difference.

# %% [markdown]
# ## The KL weight: a sweep and the official annealing schedule
#
# If the KL terms were what costs accuracy, a smaller $\beta$ would help. On three seeds:
# $\beta = 0$ (no KL term, the stochastic passes kept) against $10^{-3}$ (the paper's,
# above); on the first seed only: the official `info_anneal` schedule (0 for the first quarter
# of the epochs, a cubic ramp to $10^{-3}$ over the second; at `large` scale also
# $\beta \in \{10^{-4}, 10^{-2}, 10^{-1}\}$). One candidate
# mechanism is the target noise's mean: with $Y' = Y + \varepsilon_y$ and a learned $\mu_y$,
# training pins only $\hat Y - \mu_y$ to the targets, so at $\beta = 0$ nothing holds $\mu_y$
# at 0 and it could bias the forecast. Two traces check that: the batch mean of $\mu_y$ (a
# common offset) and the mean of $|\mu_y|$ (offsets per sensor and horizon, which cancel in the
# signed mean), both in flow units.

# %%
seed0 = CONFIG["seeds"][0]
sweep = {1e-3: mae["RSTIB-MLP"][0]}
sweep_sigma_y = {1e-3: hist["RSTIB-MLP"][0]["trace"]["sigma_y"]}
for beta in CONFIG["betas"]:
    m, h = run("RSTIB-MLP", seed0, beta=beta)
    sweep[beta], sweep_sigma_y[beta] = m, h["trace"]["sigma_y"]
    if beta == 0.0:
        beta0_mae, beta0_hist = [m], [h]
for seed in CONFIG["seeds"][1:]:
    m, h = run("RSTIB-MLP", seed, beta=0.0)
    beta0_mae.append(m)
    beta0_hist.append(h)
annealed, h_anneal = run("RSTIB-MLP", seed0, beta_schedule=anneal_beta(1e-3, EPOCHS))
print({f"{b:g}": round(v, 2) for b, v in sorted(sweep.items())}, "annealed", round(annealed, 2))
print("beta = 0 per seed", np.round(beta0_mae, 2), "beta = 1e-3", np.round(mae["RSTIB-MLP"], 2))
mu_y_last = {
    "beta 1e-3": [h["trace"]["mu_y"][-1] for h in hist["RSTIB-MLP"]],
    "beta 0": [h["trace"]["mu_y"][-1] for h in beta0_hist],
}
mu_y_abs_last = {
    "beta 1e-3": [h["trace"]["mu_y_abs"][-1] for h in hist["RSTIB-MLP"]],
    "beta 0": [h["trace"]["mu_y_abs"][-1] for h in beta0_hist],
}
mu_y_abs_max = max(abs(v) for vs in mu_y_last.values() for v in vs)
print(
    "mean mu_y at the last epoch (flow units):", {k: np.round(v, 2) for k, v in mu_y_last.items()}
)
print(
    "mean |mu_y| at the last epoch (flow units):",
    {k: np.round(v, 2) for k, v in mu_y_abs_last.items()},
)

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
for i in range(len(CONFIG["seeds"])):  # each seed's beta = 0 next to its own without IB
    xs = x[betas.index(0.0)] + 0.08 * (i + 1)
    ax.scatter(
        [xs],
        [beta0_mae[i]],
        marker="x",
        color=plotting.method_color("RSTIB-MLP"),
        label=r"$\beta$ = 0, per seed" if i == 0 else None,
    )
    ax.scatter(
        [xs],
        [mae["without IB"][i]],
        marker="_",
        s=120,
        color=plotting.PALETTE[4],
        label="without IB, per seed" if i == 0 else None,
    )
ax.axhline(mae["without IB"][0], color=plotting.PALETTE[4], ls="--", label="without IB (seed 0)")
ax.axhline(mae["MLP"][0], color=plotting.method_color("MLP"), ls=":", label="plain MLP (seed 0)")
ax.set_xticks(x, [f"{b:g}" for b in betas])
ax.set(
    xlabel=r"KL weight $\beta$",
    ylabel="test MAE vs clean targets",
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
# **What to see.** (a) On seed 0 (line) the error moves by {glue:text}`beta_range:.2f` between
# $\beta = 0$ and $10^{-3}$, the annealing schedule (star) changes little, and every setting
# stays above the model without the bottleneck; for each seed (crosses, with that seed's own
# model without IB as a dash beside it) $\beta = 0$ is again close to $\beta = 10^{-3}$ and
# above the model without IB, by less on seeds 1 and 2 than on seed 0, which has the largest
# gap of the three. The target-noise mean: at the last epoch the signed batch mean of $\mu_y$
# stays within {glue:text}`mu_y_abs_max:.2f` vehicles of 0, and the mean of $|\mu_y|$, which
# also sees offsets per sensor and horizon, is {glue:text}`mu_y_abs_b3:.2f` vehicles with the
# KL term and {glue:text}`mu_y_abs_b0:.2f` without it (training batches, mean over the seeds).
# Since training pins $\hat Y - \mu_y$ to the targets, a learned bias can change the MAE by at
# most the mean of $|\mu_y|$ (triangle inequality): on the training batches it accounts for at
# most that much of a gap of several vehicles, so it is not the main mechanism there; it is
# not measured on the test windows, and per-sensor offsets of the test forecast are not ruled
# out beyond that. What is left (noise heads, sampled input noise, a second pass through the
# encoder and a sampled $Z$) is not separated further here. (b) What $\beta$ visibly changes
# is the target noise: without the KL term $\sigma_y$ shrinks to about
# {glue:text}`sigma_y_b0_last:.2f`, with it $\sigma_y$ stays at about
# {glue:text}`sigma_y_last:.2f` (seed 0).

# %% [markdown]
# ## Claim check
#
# The paper reports that each part helps on PEMS. Here: the bottleneck's effect over three
# seeds (the comparison is expected to fail, and the check asserts that it does); the
# distilled MLP without the bottleneck against the teacher over three seeds; how far
# RSTIB-MLP's training trails the model without IB (the gap, expressed in epochs); the KL
# weight over three seeds; the teacher's effect (without KD) over three seeds; and the
# one-seed ablation of the dynamic embedding.
#
# The delay is read horizontally off the validation curves, each taken as its running best
# (the epoch a forecaster keeps): for RSTIB-MLP's best error by epoch $t$, the (interpolated)
# epoch $e^*$ at which the model without IB first reached it; the delay is $t - e^*$. A
# bottleneck that only slows learning shows a delay; one that costs accuracy for good shows a
# delay that keeps growing, until the model without IB's curve has flattened below RSTIB-MLP's.
# While both curves still fall, the two readings cannot be told apart. The delay is not
# specific to the bottleneck: the plain MLP trails the model without IB by a similar number of
# epochs (printed and reported next to the claim).


# %%
def delay(v_full: np.ndarray, v_ref: np.ndarray) -> np.ndarray:
    """Epochs by which running-best curve ``v_full`` trails ``v_ref``, per epoch (NaN: never)."""
    best_full, best_ref = np.minimum.accumulate(v_full), np.minimum.accumulate(v_ref)
    out = np.full(len(best_full), np.nan)
    for t, target in enumerate(best_full):
        hit = np.flatnonzero(best_ref <= target)
        if hit.size == 0:
            continue
        j = hit[0]
        e = 0.0 if j == 0 else j - 1 + (best_ref[j - 1] - target) / (best_ref[j - 1] - best_ref[j])
        out[t] = t - e
    return out


full = np.array(mae["RSTIB-MLP"])
no_ib = np.array(mae["without IB"])
mlp = np.array(mae["MLP"])
beta0 = np.array(beta0_mae)
n_seeds = len(full)
delta = {"without dynamic embeddings": float(np.mean(mae["without dynamic embeddings"]) - full[0])}
val = {n: np.array([h["val_mae"] for h in hist[n]]) for n in ("RSTIB-MLP", "without IB", "MLP")}
lags = np.array([delay(a, b) for a, b in zip(val["RSTIB-MLP"], val["without IB"], strict=True)])
lags_mlp = np.array([delay(a, b) for a, b in zip(val["MLP"], val["without IB"], strict=True)])
mid = EPOCHS // 2 - 1
print("delay in epochs per epoch (rows: seeds)\n", np.round(lags, 2))
print("plain MLP's delay behind the model without IB\n", np.round(lags_mlp, 2))
teacher_best_epoch = int(np.argmin(teacher_hist["val_mae"])) + 1
teacher_gain_after3 = float(teacher_hist["val_mae"][2] - min(teacher_hist["val_mae"]))
print(
    f"teacher: best epoch {teacher_best_epoch}, val MAE gained after epoch 3 "
    f"{teacher_gain_after3:.2f}"
)
kd_delta = np.array(mae["without KD"]) - full  # paired per seed
sd_full = float(full.std(ddof=1))
mu_y_abs_b3 = float(np.mean(mu_y_abs_last["beta 1e-3"]))
mu_y_abs_b0 = float(np.mean(mu_y_abs_last["beta 0"]))
SEEDS_NOTE = "the seeds vary the model only (graph, traffic, noise and the one teacher run fixed)"
beta_range = max(sweep.values()) - min(sweep.values())
n_lower = int(np.sum(no_ib < full))
assert len(full) == len(no_ib) == len(mlp) == len(beta0) == len(CONFIG["seeds"]) >= 3, mae
assert np.all(np.isfinite(lags[:, -1])), lags
runtime_s = time.perf_counter() - t_start
cpu_s = time.process_time() - cpu_start  # the kernel's CPU time: the idle-machine wall time
claim(
    "rstib/3_ablations/ib_helps",
    "Removing the information bottleneck (noise heads, sampled noise and KL terms) raises the MAE",
    paper="removing the IB costs accuracy (ablation)",
    value=no_ib - full,
    check=greater(0.0),
    verdict="not reproduced",
    caveat=f"without the bottleneck the MAE is lower in {n_lower} of {n_seeds} seeds, by "
    f"{-np.mean(no_ib - full):.1f} on average, after {EPOCHS} epochs with both students still "
    "improving (whether the gap closes with longer training is undetermined, see the delay "
    f"claim); {SEEDS_NOTE}",
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
    caveat=f"the distilled MLP ({no_ib.mean():.1f}) is below RSTIB-MLP ({full.mean():.1f}) and "
    f"the plain MLP ({mlp.mean():.1f}) but above the teacher ({teacher_mae:.1f}, one run, "
    f"seed 0) in {int(np.sum(no_ib >= teacher_mae))} of {n_seeds} seeds after {EPOCHS} epochs "
    f"of the official schedule; {SEEDS_NOTE}",
    fmt=".2f",
)
claim(
    "rstib/3_ablations/ib_delays_learning",
    f"Diagnosis: RSTIB-MLP's gap to the model without IB, expressed in epochs: its best "
    f"validation error by epoch {EPOCHS} had been reached by the model without IB more than one "
    "epoch earlier",
    paper="(a diagnosis of this book; the paper trains up to 300 epochs)",
    value=lags[:, -1],
    check=greater(1.0),
    verdict="illustrated",
    caveat=f"a delay of {lags[:, -1].mean():.1f} epochs at epoch {EPOCHS}, up from "
    f"{lags[:, mid].mean():.1f} at epoch {mid + 1}, with both curves still falling: whether the "
    "bottleneck only slows learning or costs accuracy for good is undetermined at this budget; "
    "no control, and not specific to the bottleneck: the plain MLP trails the model without IB "
    f"by {np.nanmean(lags_mlp[:, -1]):.1f} epochs at epoch {EPOCHS}; {SEEDS_NOTE}",
    numbers={
        f"delay at epoch {mid + 1}": lags[:, mid].mean(),
        f"delay at epoch {EPOCHS}": lags[:, -1].mean(),
        f"plain MLP's delay at epoch {EPOCHS}": np.nanmean(lags_mlp[:, -1]),
    },
    fmt=".2f",
)
claim(
    "rstib/3_ablations/kl_weight_not_the_cause",
    "Dropping only the KL terms (beta = 0, the stochastic passes kept) leaves the MAE more than 1 "
    "above the model without IB in every seed: the KL weight alone does not explain the gap",
    paper="(a diagnosis of this book; the paper uses beta = 1e-3)",
    value=beta0 - no_ib,
    check=greater(1.0),
    verdict="illustrated",
    caveat=f"the margin varies a lot over the seeds ({np.min(beta0 - no_ib):.2f} to "
    f"{np.max(beta0 - no_ib):.2f}): the smallest is close to the threshold of 1, so this is "
    "fragile; the annealing schedule is one seed; the signed mean of mu_y stays within "
    f"{mu_y_abs_max:.2f} vehicles of 0 and the mean |mu_y| is {mu_y_abs_b3:.2f} (beta 1e-3) and "
    f"{mu_y_abs_b0:.2f} (beta 0) vehicles at the last epoch (training batches): a learned "
    "target-noise bias moves the MAE by at most that much, so it is not the main mechanism, "
    "though it is not measured on the test windows; the stochastic parts are not separated "
    f"further; {SEEDS_NOTE}",
    numbers={
        "beta 0": beta0.mean(),
        "beta 1e-3": full.mean(),
        "annealed (seed 0)": annealed,
        "without IB": no_ib.mean(),
        "max |mean mu_y|": mu_y_abs_max,
        "mean |mu_y|, beta 1e-3": mu_y_abs_b3,
        "mean |mu_y|, beta 0": mu_y_abs_b0,
    }
    | ({"beta 1e-2 (seed 0)": sweep[1e-2]} if 1e-2 in sweep else {}),
    fmt=".2f",
)
claim(
    "rstib/3_ablations/kd_helps",
    "Removing a part of RSTIB-MLP (without KD: no teacher, so no difficulty weights and no "
    "distillation term) raises the MAE at the largest noise ratio, in every seed (paired)",
    paper="removing KD, the IB or the dynamic embedding costs accuracy (ablations)",
    value=kd_delta,
    check=greater(0.0),
    verdict="illustrated",
    caveat=f"no control; the gain is small ({kd_delta.min():.2f} to {kd_delta.max():.2f} per "
    f"seed) against RSTIB-MLP's own seed spread ({sd_full:.2f}, sd), though the paired "
    f"differences all have the same sign; {SEEDS_NOTE}",
    fmt=".2f",
)
claim(
    "rstib/3_ablations/dynamic_embedding_helps",
    "Removing a part of RSTIB-MLP (without dynamic embeddings) raises the MAE at the largest "
    "noise ratio",
    paper="removing KD, the IB or the dynamic embedding costs accuracy (ablations)",
    value=np.array(mae["without dynamic embeddings"]) - full[0],
    check=greater(0.0),
    verdict="illustrated",
    caveat=f"one seed, inconclusive: RSTIB-MLP's own MAE spans {sd_full:.2f} (sd) over "
    f"{n_seeds} seeds; dropping the embedding also narrows the representation (5d to 4d)",
    fmt=".2f",
)
glue("full_mae", full.mean())
glue("mlp_mae", mlp.mean())
glue("no_ib_mae", no_ib.mean())
glue("beta0_mae", beta0.mean())
glue("teacher_mae", teacher_mae)
glue("delta_kd", float(kd_delta.mean()))
glue("n_kd_pos", int(np.sum(kd_delta > 0)))
glue("n_epochs", EPOCHS)
glue("mlp_delay_last", float(np.nanmean(lags_mlp[:, -1])))
glue("teacher_gain_after3", teacher_gain_after3)
glue("mu_y_abs_b3", mu_y_abs_b3)
glue("mu_y_abs_b0", mu_y_abs_b0)
glue("sigma_y_last", hist["RSTIB-MLP"][0]["trace"]["sigma_y"][-1])
glue("sigma_y_b0_last", beta0_hist[0]["trace"]["sigma_y"][-1])
glue("sigma_x_last", tr["sigma_x"][-1])
glue("sigma_y_mean_last", tr["sigma_y"][-1])
glue("kl_x_last", tr["kl_x"][-1])
glue("delta_dyn", delta["without dynamic embeddings"])
glue("delay_last", lags[:, -1].mean())
glue("delay_mid", lags[:, mid].mean())
glue("delay_mid_epoch", mid + 1)
glue("teacher_best_epoch", teacher_best_epoch)
glue("kl_share_pct", 100 * kl_share)
glue("beta_range", beta_range)
glue("mu_y_abs_max", mu_y_abs_max)
glue("sd_full", sd_full)
glue("runtime_s", runtime_s)
glue("cpu_s", cpu_s)
