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
# # The headline: robustness at MLP speed
#
# The paper's claim has two halves. Under noise, RSTIB-MLP keeps close to (or beats) the
# accuracy of a spatio-temporal graph network, and it does so at the inference cost of an MLP.
# This notebook trains the three forecasters on the same noisy series at each noise ratio:
#
# * **MLP**: `STIDMLP`, the STID-like plain MLP (each sensor on its own);
# * **STGCN-lite**: `STGCNLite`, a two-block STGCN whose graph convolutions are PyG's
#   `ChebConv` (the teacher; trained once per noise ratio and cached for the student);
# * **RSTIB-MLP**: `RSTIBMLP`, the same kind of MLP with stochastic representations, learned
#   noise, the three KL terms and the teacher's guidance (`rstib_loss`).
#
# Every model sees only the noisy series; errors are against the clean test targets. Then the
# three are timed side by side on the same test batches.

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
import copy
import time

import matplotlib.pyplot as plt
import numpy as np
import torch

from icml25.common import glue, plotting, setup, time_call
from icml25.common.claims import claim, greater, less
from icml25.rstib import (
    RSTIBMLP,
    STIDMLP,
    STGCNLite,
    add_noise,
    evaluate,
    make_traffic_graph,
    make_windows,
    n_params,
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
        "ratios": [0.0, 0.2, 0.4, 0.8],
        "seeds": [0, 1, 2],
    },
    "large": {
        "n_nodes": 64,
        "n_days": 21,
        "epochs": 30,
        "d": 32,
        "channels": 32,
        "ratios": [0.0, 0.2, 0.4, 0.8],
        "seeds": [0, 1, 2, 3, 4],
    },
}[SCALE]
print(SCALE, CONFIG)

coords, W = make_traffic_graph(CONFIG["n_nodes"], "corridors", seed=0)
data = simulate_traffic(W, n_days=CONFIG["n_days"], lag=3, seed=0)
N = W.shape[0]


# The official yaml files: the students (MLP, RSTIB-MLP) with the package's defaults (Adam at
# 0.002 halved at epochs 1, 20, 50, ..., no weight decay, no clipping); the teacher with its own
# yaml (weight decay 1e-4, gradient norm clipped at 5, halved at epochs 1, 50, 100).
TEACHER = {"weight_decay": 1e-4, "clip_norm": 5.0, "milestones": (1, 50, 100)}


def fit(model, win, seed, teacher=None, **kwargs):
    """Train one forecaster (seeded), return it with its clean-target MAE."""
    train_forecaster(
        model, win, CONFIG["epochs"], teacher=teacher, batch_size=64, seed=seed, **kwargs
    )
    return model, evaluate(model, win)["MAE"]


# %% [markdown]
# ## Error against noise ratio
#
# At each ratio: the graph teacher once (seed 0), the MLP and RSTIB-MLP for every seed at the
# largest ratio (where the claim is checked) and for the first seed elsewhere.

# %%
r_max = CONFIG["ratios"][-1]
mae = {name: {} for name in ("MLP", "STGCN-lite", "RSTIB-MLP")}
mean_path, mc_avg = {}, {}
models = {}
for r in CONFIG["ratios"]:
    win = make_windows(data, noisy=add_noise(data.x, r, seed=1))
    torch.manual_seed(0)
    teacher, mae["STGCN-lite"][r] = fit(
        STGCNLite(N, W, channels=CONFIG["channels"]), win, 0, **TEACHER
    )
    teacher_train = predict(teacher, win, "train")  # computed once for the students below
    seeds = CONFIG["seeds"] if r == r_max else CONFIG["seeds"][:1]
    mae["MLP"][r], mae["RSTIB-MLP"][r] = [], []
    for seed in seeds:
        torch.manual_seed(seed)
        mlp, m = fit(STIDMLP(N, d=CONFIG["d"]), win, seed)
        mae["MLP"][r].append(m)
        torch.manual_seed(seed)
        student, m = fit(
            RSTIBMLP(N, d=CONFIG["d"]), win, seed, teacher=teacher, teacher_forecasts=teacher_train
        )
        mae["RSTIB-MLP"][r].append(m)
        student.n_eval_samples = 0  # the one-pass mean path, for the speed comparison below
        mean_path.setdefault(r, []).append(evaluate(student, win)["MAE"])
        student.n_eval_samples, student.eval_average = 12, "forecasts"  # 12 forecasts averaged
        mc_avg.setdefault(r, []).append(evaluate(student, win)["MAE"])
        student.eval_average = "draws"
    print(r, {k: np.round(v[r], 2).tolist() for k, v in mae.items()}, np.round(mean_path[r], 2))
    print("  12 forecasts averaged", np.round(mc_avg[r], 2))
    if r == r_max:
        models = {"MLP": mlp, "STGCN-lite": teacher, "RSTIB-MLP": student}
        win_max = win

# %% tags=["hide-input"]
ratios = np.array(CONFIG["ratios"])
fig, ax = plt.subplots(figsize=plotting.figsize("single"))
for name, marker in [("MLP", "o"), ("STGCN-lite", "s"), ("RSTIB-MLP", "D")]:
    vals = [np.atleast_1d(mae[name][r]) for r in ratios]
    color = plotting.method_color(name)
    # the line: seed 0 at every ratio (the teacher is one run, seed 0)
    ax.plot(ratios, [v[0] for v in vals], marker=marker, color=color, label=f"{name}, seed 0")
    top = vals[-1]
    if top.size > 1:  # the largest ratio: the mean over the seeds, range as error bar
        ax.errorbar(
            ratios[-1] + 0.02,
            top.mean(),
            yerr=[[top.mean() - top.min()], [top.max() - top.mean()]],
            marker=marker,
            mfc="white",
            capsize=3,
            color=color,
            ls="none",
            label=f"{name}, mean of {top.size} seeds",
        )
ax.set(
    xlabel="noise ratio r (inputs and targets)",
    ylabel="test MAE vs clean targets",
    title="Error against noise: both MLPs degrade faster than the graph network",
)
ax.legend(fontsize=7)
plt.show()

# %% [markdown]
# **What to see.** Lines are the first seed at every ratio; at the largest ratio the open
# markers (shifted right a little) are the mean over {glue:text}`n_seeds` model seeds, with
# their range. Without noise the two MLPs are somewhat less accurate than the graph
# network. As the noise grows, the MLPs' error grows much faster than the graph
# network's. RSTIB-MLP starts worse than the plain MLP without noise and ends close to it at
# the largest ratio: at {glue:text}`n_epochs` epochs with the official training schedule the
# bottleneck buys little robustness here. From $r = 0$ (one seed) to $r$ =
# {glue:text}`r_max` (mean of the seeds) RSTIB-MLP's error grows
# {glue:text}`degr_rstib:.2f`× and the plain MLP's {glue:text}`degr_mlp:.2f`× (the graph
# network's {glue:text}`degr_gnn:.2f`×): RSTIB-MLP degrades less, partly because it starts
# higher. Only the model seed varies over the seeds: the graph, the traffic, the noise and the
# teacher (one run) are the same for all.

# %% [markdown]
# ## Accuracy against inference time
#
# The trained models of the largest ratio forecast the same 64 test windows, timed side by
# side in this run, in three rounds (each round times every model once, the graph network first
# and last, so a burst of load on the shared machine hits all models alike; the best round per
# model is kept). RSTIB-MLP is timed four ways:
#
# * **12 draws, as the official code averages them** (the paper's model): the 12 draws of the
#   input noise are averaged before one re-encoding, and the 12 draws of $Z$ before one
#   regression head, so the cost is that of one stochastic pass (`eval_average="draws"`, the
#   default);
# * **12 forecasts averaged** (a Monte Carlo average: 12 re-encodings, batched;
#   `eval_average="forecasts"`), what "averaging 12 samples" would mean literally;
# * **one scaled draw** (`eval_average="scaled"`, a timing reference): the mean of 12 iid
#   $\mathcal N(0, 1)$ draws is exactly $\mathcal N(0, 1/12)$, so one draw scaled by
#   $1/\sqrt{12}$ gives the official forecast's distribution at the cost of one draw;
# * the **mean path** (this book's addition: input noise and representation set to their
#   means, one deterministic pass, `n_eval_samples=0`), whose accuracy was measured above.
#
# The graph network is timed twice: the ratio of its two timings is the null control of a
# speed comparison (it is 1 up to timing noise).

# %%
test = win_max["test"]
xb = [torch.as_tensor(test[k][:64]) for k in ("x", "tod", "dow")]
student = models["RSTIB-MLP"]
student_mc = copy.deepcopy(student)
student_mc.eval_average = "forecasts"
student_mean = copy.deepcopy(student)
student_mean.n_eval_samples = 0
student_scaled = copy.deepcopy(student)
student_scaled.eval_average = "scaled"
models["RSTIB-MLP (12 forecasts)"] = student_mc
models["RSTIB-MLP (mean path)"] = student_mean
models["RSTIB-MLP (one scaled draw)"] = student_scaled
models["STGCN-lite (again)"] = models["STGCN-lite"]
mae["RSTIB-MLP (12 forecasts)"] = {r_max: mc_avg[r_max]}
mae["RSTIB-MLP (mean path)"] = {r_max: mean_path[r_max]}
infer_ms = {name: float("inf") for name in models}
for model in models.values():
    model.eval()
for _ in range(3):  # rounds: every model once per round, the graph network first and last
    for name, model in models.items():
        with torch.no_grad():
            t = 1000 * time_call(lambda m=model: m(*xb), repeats=1, min_time=0.2)
        infer_ms[name] = min(infer_ms[name], t)
params = {name: n_params(model) for name, model in models.items()}
print({k: round(v, 2) for k, v in infer_ms.items()}, params)

# %% tags=["hide-input"]
fig, ax = plt.subplots(figsize=plotting.figsize("single"))
shown = ["MLP", "STGCN-lite", "RSTIB-MLP", "RSTIB-MLP (12 forecasts)", "RSTIB-MLP (mean path)"]
labels = {
    "RSTIB-MLP": "RSTIB-MLP, 12 draws (official)",
    "RSTIB-MLP (12 forecasts)": "RSTIB-MLP, 12 forecasts",
    "RSTIB-MLP (mean path)": "RSTIB-MLP, mean path (ours)",
}
markers = {"RSTIB-MLP (12 forecasts)": "s", "RSTIB-MLP (mean path)": "^"}
for name in shown:
    m = np.mean(mae[name][r_max])
    ax.scatter(
        infer_ms[name],
        m,
        s=40 + params[name] / 1000,
        marker=markers.get(name, "o"),
        color=plotting.method_color("RSTIB-MLP" if "forecasts" in name else name),
        edgecolor="k" if name in markers else "none",
        alpha=0.8,
        label=f"{labels.get(name, name)} ({params[name] / 1000:.0f}k params)",
    )
ax.set(
    xscale="log",
    xlabel="inference time per batch of 64 windows (ms, log)",
    ylabel=f"test MAE at r = {r_max}",
    title="The trade-off: accuracy against speed",
)
ax.set_xticks([1, 2, 5, 10, 20, 50, 100])
plotting.plain_log_ticks(ax, axis="x")
ax.legend(fontsize=7, loc="center right")
plt.show()

# %% [markdown]
# **What to see.** Down and to the left is better. The graph network pays for its robustness
# with graph convolutions at every time step, but ours is tiny (two blocks whose graph
# convolutions have {glue:text}`gnn_graph_channels` channels,
# {glue:text}`gnn_params_k:.1f`k parameters in all).
# The three RSTIB-MLP points are one trained model evaluated three ways (bubble area:
# parameter count). The official 12-draw evaluation runs one re-encoding, but it draws 12
# noise tensors of the embedding's size for every sensor, which on a CPU takes
# {glue:text}`draws_vs_mean_time:.1f`× the mean path's time; one scaled draw, with the same
# distribution, takes {glue:text}`scaled_vs_mean_time:.1f`× (speed ratio to the graph network
# {glue:text}`speedup_scaled_vs_gnn:.2f`); averaging 12 *forecasts* costs more still. Their
# errors hardly differ (12 draws {glue:text}`rstib_hi:.2f`, 12 forecasts
# {glue:text}`rstib_mc_hi:.2f`, mean path {glue:text}`rstib_mean_hi:.2f`): the learned
# $\sigma$ and $\sigma_x$ are small by the end of training (notebook 3 traces them).

# %% [markdown]
# ## Claim check
#
# At the largest noise ratio: RSTIB-MLP's error against the plain MLP's, as a paired gain
# $1 - \text{MAE}_\text{RSTIB} / \text{MAE}_\text{MLP}$ for the same model seed (on seed
# means it is {glue:text}`mean_gain:.3f`), and against the graph network's, for every seed;
# the speed of the paper's 12-draw model (averaged as in the official code) against the graph
# network's; and,
# separately labelled, the speed of the mean path (this book's addition), with the graph
# network timed twice as the null control.

# %%
rstib_hi = np.array(mae["RSTIB-MLP"][r_max])
mean_hi = np.array(mean_path[r_max])
mlp_hi = np.array(mae["MLP"][r_max])
gnn_hi = float(mae["STGCN-lite"][r_max])
gain = 1 - rstib_hi / mlp_hi  # paired: the same model seed (data, noise and teacher fixed)
mean_gain = 1 - rstib_hi.mean() / mlp_hi.mean()  # the same gain on seed means, reported only
speedup_12 = infer_ms["STGCN-lite"] / infer_ms["RSTIB-MLP"]
speedup_mean = infer_ms["STGCN-lite"] / infer_ms["RSTIB-MLP (mean path)"]
speedup_mc = infer_ms["STGCN-lite"] / infer_ms["RSTIB-MLP (12 forecasts)"]
speedup_scaled = infer_ms["STGCN-lite"] / infer_ms["RSTIB-MLP (one scaled draw)"]
speedup_null = infer_ms["STGCN-lite"] / infer_ms["STGCN-lite (again)"]
assert np.all(np.isfinite(rstib_hi)) and len(rstib_hi) == len(CONFIG["seeds"])
print(
    f"paired gains {np.round(gain, 3)}; speed-ups 12 draws {speedup_12:.2f}, "
    f"mean path {speedup_mean:.2f}, "
    f"12 forecasts {speedup_mc:.2f}, one scaled draw {speedup_scaled:.2f}, null {speedup_null:.2f}"
)
degr = {
    name: float(np.mean(mae[name][r_max]) / np.atleast_1d(mae[name][0.0])[0])
    for name in ("RSTIB-MLP", "MLP", "STGCN-lite")
}
SEEDS_NOTE = "the seeds vary the model only (graph, traffic, noise and the one teacher run fixed)"
runtime_s = time.perf_counter() - t_start
cpu_s = time.process_time() - cpu_start  # the kernel's CPU time: the idle-machine wall time
claim(
    "rstib/2_robustness/beats_mlp_under_noise",
    f"At r = {r_max}, RSTIB-MLP has a lower MAE than the plain MLP trained with the same seed, "
    "in every seed (paired gain 1 - RSTIB / MLP > 0)",
    paper="better MAE/RMSE/MAPE than STID and other MLPs on PEMS under noise",
    value=gain,
    check=greater(0.0),
    verdict="not reproduced",
    caveat=f"the paired gain is {', '.join(f'{100 * g:+.1f} %' for g in gain)} per seed: it "
    f"holds in {int(np.sum(gain > 0))} of {len(gain)} (on seed means {100 * mean_gain:.1f} %); "
    f"{SEEDS_NOTE}; from r = 0 (one seed) to r = {r_max} RSTIB-MLP's MAE grows "
    f"{degr['RSTIB-MLP']:.2f}x, the plain MLP's {degr['MLP']:.2f}x, but without noise RSTIB-MLP "
    f"is worse ({mae['RSTIB-MLP'][0.0][0]:.1f} vs {mae['MLP'][0.0][0]:.1f}); {CONFIG['epochs']} "
    "epochs with the official schedule, at which the bottleneck costs accuracy (notebook 3)",
    numbers={"RSTIB-MLP MAE": rstib_hi.mean(), "MLP MAE": mlp_hi.mean()},
    fmt=".3f",
)
claim(
    "rstib/2_robustness/beats_stgnn_under_noise",
    f"At r = {r_max}, RSTIB-MLP has a lower MAE than the graph network (STGCN-lite) in every seed",
    paper="beats STGCN and other STGNNs under noise",
    value=rstib_hi,
    check=less(gnn_hi, label="STGCN-lite's MAE"),
    verdict="not reproduced",
    caveat=f"RSTIB-MLP's MAE ({rstib_hi.mean():.1f}) is {rstib_hi.mean() / gnn_hi:.2f}x the graph "
    f"network's ({gnn_hi:.1f}), close to the plain MLP ({mlp_hi.mean():.1f}); a distilled MLP "
    f"without the bottleneck comes closer but does not beat it either (notebook 3); {SEEDS_NOTE}",
    fmt=".2f",
)
claim(
    "rstib/2_robustness/faster_than_stgnn",
    "RSTIB-MLP (12 draws averaged as in the official code) infers faster than the graph network "
    "(time ratio STGCN-lite / RSTIB-MLP > 1.2, measured side by side)",
    paper="much faster inference than STGNNs",
    value=speedup_12,
    check=greater(1.2),
    verdict="not reproduced",
    caveat=f"an artefact of the sampling implementation and of the tiny teacher: the 12-draw "
    f"model runs at {speedup_12:.2f}x the speed of our graph network "
    f"({n_params(models['STGCN-lite']) / 1000:.1f}k parameters), the cost of generating "
    "12 x B x N x D random numbers; the mean of 12 iid N(0, 1) draws is exactly N(0, 1/12), so "
    "one draw scaled by 1/sqrt(12) gives the same forecast distribution, at "
    f"{speedup_scaled:.2f}x; "
    f"averaging 12 forecasts is {speedup_mc:.2f}x; the mean path (this book's addition) "
    f"{speedup_mean:.2f}x",
    numbers={
        "one scaled draw": speedup_scaled,
        "mean path": speedup_mean,
        "12 forecasts": speedup_mc,
    },
    fmt=".2f",
)
claim(
    "rstib/2_robustness/mean_path_faster",
    "This book's addition: RSTIB-MLP's mean path (no sampling) infers faster than the graph "
    "network (time ratio > 1.2), the graph network timed against itself as the control",
    paper="(not in the paper: the paper averages 12 draws)",
    value=speedup_mean,
    check=greater(1.2),
    control=("STGCN-lite timed against itself", speedup_null),
    verdict="illustrated",
    numbers={"MAE, mean path": mean_hi.mean(), "MAE, 12 draws": rstib_hi.mean()},
    fmt=".2f",
)
glue("r_max", r_max)
glue("n_epochs", CONFIG["epochs"])
glue("mean_gain", mean_gain)
glue("rstib_hi", rstib_hi.mean())
glue("rstib_mean_hi", mean_hi.mean())
glue("rstib_mc_hi", np.mean(mc_avg[r_max]))
glue("mlp_hi", mlp_hi.mean())
glue("gnn_hi", gnn_hi)
glue("rstib_vs_mlp_pct", 100 * (1 - rstib_hi.mean() / mlp_hi.mean()))
glue("rstib_vs_gnn_pct", 100 * (rstib_hi.mean() / gnn_hi - 1))
for r in CONFIG["ratios"][:-1]:
    tag = f"{round(100 * r):02d}"
    glue(f"rstib_r{tag}", mae["RSTIB-MLP"][r][0])
    glue(f"mlp_r{tag}", mae["MLP"][r][0])
    glue(f"gnn_r{tag}", mae["STGCN-lite"][r])
glue("rstib_r0", mae["RSTIB-MLP"][0.0][0])
glue("mlp_r0", mae["MLP"][0.0][0])
glue("gnn_r0", mae["STGCN-lite"][0.0])
glue("speedup_mean_vs_gnn", speedup_mean)
glue("speedup_scaled_vs_gnn", speedup_scaled)
glue("draws_vs_mean_time", infer_ms["RSTIB-MLP"] / infer_ms["RSTIB-MLP (mean path)"])
glue(
    "scaled_vs_mean_time",
    infer_ms["RSTIB-MLP (one scaled draw)"] / infer_ms["RSTIB-MLP (mean path)"],
)
glue("gnn_graph_channels", CONFIG["channels"] // 2)
glue("gnn_params_k", n_params(models["STGCN-lite"]) / 1000)
glue("degr_rstib", degr["RSTIB-MLP"])
glue("degr_mlp", degr["MLP"])
glue("degr_gnn", degr["STGCN-lite"])
glue("gain_min_pct", 100 * gain.min())
glue("gain_max_pct", 100 * gain.max())
glue("n_gain_pos", int(np.sum(gain > 0)))
glue("speedup_mc_vs_gnn", speedup_mc)
glue("mean_path_vs_mlp_time", infer_ms["RSTIB-MLP (mean path)"] / infer_ms["MLP"])
glue("n_seeds", len(rstib_hi))
glue("runtime_s", runtime_s)
glue("cpu_s", cpu_s)
