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
        "ratios": [0.0, 0.8],
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


def fit(model, win, seed, teacher=None):
    """Train one forecaster (seeded), return it with its clean-target MAE."""
    train_forecaster(model, win, CONFIG["epochs"], teacher=teacher, batch_size=64, seed=seed)
    return model, evaluate(model, win)["MAE"]


# %% [markdown]
# ## Error against noise ratio
#
# At each ratio: the graph teacher once (seed 0), the MLP and RSTIB-MLP for every seed at the
# largest ratio (where the claim is checked) and for the first seed elsewhere.

# %%
r_max = CONFIG["ratios"][-1]
mae = {name: {} for name in ("MLP", "STGCN-lite", "RSTIB-MLP")}
mean_path = {}
models = {}
for r in CONFIG["ratios"]:
    win = make_windows(data, noisy=add_noise(data.x, r, seed=1))
    torch.manual_seed(0)
    teacher, mae["STGCN-lite"][r] = fit(STGCNLite(N, W, channels=CONFIG["channels"]), win, 0)
    seeds = CONFIG["seeds"] if r == r_max else CONFIG["seeds"][:1]
    mae["MLP"][r], mae["RSTIB-MLP"][r] = [], []
    for seed in seeds:
        torch.manual_seed(seed)
        mlp, m = fit(STIDMLP(N, d=CONFIG["d"]), win, seed)
        mae["MLP"][r].append(m)
        torch.manual_seed(seed)
        student, m = fit(RSTIBMLP(N, d=CONFIG["d"]), win, seed, teacher=teacher)
        mae["RSTIB-MLP"][r].append(m)
        student.n_eval_samples = 0  # the one-pass mean path, for the speed comparison below
        mean_path.setdefault(r, []).append(evaluate(student, win)["MAE"])
        student.n_eval_samples = 12
    print(r, {k: np.round(v[r], 2).tolist() for k, v in mae.items()}, np.round(mean_path[r], 2))
    if r == r_max:
        models = {"MLP": mlp, "STGCN-lite": teacher, "RSTIB-MLP": student}
        win_max = win

# %% tags=["hide-input"]
ratios = np.array(CONFIG["ratios"])
fig, ax = plt.subplots(figsize=plotting.figsize("single"))
for name, marker in [("MLP", "o"), ("STGCN-lite", "s"), ("RSTIB-MLP", "D")]:
    vals = [np.atleast_1d(mae[name][r]) for r in ratios]
    mean = np.array([v.mean() for v in vals])
    lo = mean - np.array([v.min() for v in vals])
    hi = np.array([v.max() for v in vals]) - mean
    ax.errorbar(
        ratios,
        mean,
        yerr=[lo, hi],
        marker=marker,
        capsize=3,
        color=plotting.method_color(name),
        label=name,
    )
ax.set(
    xlabel="noise ratio r (inputs and targets)",
    ylabel="test MAE vs clean targets",
    title="Error against noise: the MLP degrades fastest",
)
ax.legend()
plt.show()

# %% [markdown]
# **What to see.** Without noise the MLPs are about as accurate as the graph network: the
# node and time embeddings capture most of each sensor's traffic. As the noise grows, the plain
# MLP's error grows fastest and the graph network's least; RSTIB-MLP ends in between, closing
# part of the gap but not all of it (error bars: the spread over training seeds at the largest
# ratio).

# %% [markdown]
# ## Accuracy against inference time
#
# The trained models of the largest ratio forecast the same 64 test windows, timed side by
# side in this run (best of three). RSTIB-MLP is timed twice: averaging 12 draws of its
# stochastic representation (the paper's evaluation; the 12 draws are batched into one
# pass), and on its **mean path** (input noise and representation set to their means: one
# deterministic pass), whose accuracy was measured above as well.

# %%
test = win_max["test"]
xb = [torch.as_tensor(test[k][:64]) for k in ("x", "tod", "dow")]
student_mean = copy.deepcopy(models["RSTIB-MLP"])
student_mean.n_eval_samples = 0
models["RSTIB-MLP (mean path)"] = student_mean
mae["RSTIB-MLP (mean path)"] = {r_max: mean_path[r_max]}
infer_ms = {}
for name, model in models.items():
    model.eval()
    with torch.no_grad():
        infer_ms[name] = 1000 * time_call(lambda m=model: m(*xb), repeats=3, min_time=0.2)
params = {name: n_params(model) for name, model in models.items()}
print({k: round(v, 2) for k, v in infer_ms.items()}, params)

# %% tags=["hide-input"]
fig, ax = plt.subplots(figsize=plotting.figsize("single"))
for name in models:
    m = np.mean(mae[name][r_max])
    ax.scatter(
        infer_ms[name],
        m,
        s=40 + params[name] / 1000,
        color=plotting.method_color(name),
        alpha=0.8,
        label=f"{name.replace('MLP', 'MLP, 12 draws') if name == 'RSTIB-MLP' else name}"
        f" ({params[name] / 1000:.0f}k params)",
    )
ax.set(
    xscale="log",
    xlabel="inference time per batch of 64 windows (ms, log)",
    ylabel=f"test MAE at r = {r_max}",
    title="The trade-off: accuracy against speed",
)
ax.set_xticks([1, 2, 5, 10, 20, 50, 100])
plotting.plain_log_ticks(ax, axis="x")
ax.legend(fontsize=8, loc="upper right")
plt.show()

# %% [markdown]
# **What to see.** Down and to the left is better. The graph network pays for its robustness
# with graph convolutions at every time step. RSTIB-MLP's mean path keeps (almost) the
# accuracy of its 12-draw average at the cost of two MLP passes; averaging 12 draws multiplies
# the work by about 12 and, at this tiny size, is not faster than the graph network (bubble
# area: parameter count; the MLPs carry more parameters, mostly embeddings, and are still fast).

# %% [markdown]
# ## Claim check
#
# At the largest noise ratio, RSTIB-MLP's error is below the plain MLP's for every seed, by at
# least 5 % of the MLP's error (worst RSTIB seed against best MLP seed), with the 12-draw
# average and with the mean path; the mean path's inference is faster than the graph
# network's in the same run. How RSTIB-MLP compares with the graph network, and the speed of
# the 12-draw average, are reported, not asserted.

# %%
rstib_hi = np.array(mae["RSTIB-MLP"][r_max])
mean_hi = np.array(mean_path[r_max])
mlp_hi = np.array(mae["MLP"][r_max])
gnn_hi = float(mae["STGCN-lite"][r_max])
margin = 1 - rstib_hi.max() / mlp_hi.min()
margin_mean = 1 - mean_hi.max() / mlp_hi.min()
speedup = infer_ms["STGCN-lite"] / infer_ms["RSTIB-MLP (mean path)"]
speedup_12 = infer_ms["STGCN-lite"] / infer_ms["RSTIB-MLP"]
assert margin_mean > 0.05, (mean_hi, mlp_hi)
runtime_s = time.perf_counter() - t_start
claim(
    "rstib/2_robustness/beats_mlp_under_noise",
    f"At r = {r_max}, RSTIB-MLP's worst seed has an MAE more than 5 % below the plain MLP's best "
    "seed (1 - max RSTIB / min MLP > 0.05)",
    paper="better MAE/RMSE/MAPE than STID and other MLPs on PEMS under noise",
    value=margin,
    check=greater(0.05),
    verdict="illustrated",
    seeds=len(rstib_hi),
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
    caveat=f"RSTIB-MLP ({rstib_hi.mean():.1f}) lands between the plain MLP ({mlp_hi.mean():.1f}) "
    f"and the graph network ({gnn_hi:.1f}); without noise all three are within a few percent",
    fmt=".2f",
)
claim(
    "rstib/2_robustness/faster_than_stgnn",
    "RSTIB-MLP's inference is faster than the graph network's (time ratio, measured side by side)",
    paper="much faster inference than STGNNs",
    value=speedup,
    check=greater(1.0),
    verdict="partly",
    caveat=f"only on the mean path (no sampling); the paper's 12-draw average is "
    f"{speedup_12:.2f}x the graph network's speed, slower than our tiny STGCN",
    fmt=".2f",
)
glue("r_max", r_max)
glue("rstib_hi", rstib_hi.mean())
glue("rstib_mean_hi", mean_hi.mean())
glue("mlp_hi", mlp_hi.mean())
glue("gnn_hi", gnn_hi)
glue("rstib_vs_mlp_pct", 100 * (1 - rstib_hi.mean() / mlp_hi.mean()))
glue("rstib_vs_gnn_pct", 100 * (rstib_hi.mean() / gnn_hi - 1))
glue("rstib_r0", mae["RSTIB-MLP"][0.0][0])
glue("mlp_r0", mae["MLP"][0.0][0])
glue("gnn_r0", mae["STGCN-lite"][0.0])
glue("speedup_vs_gnn", speedup)
glue("speedup_12_vs_gnn", speedup_12)
glue("mean_path_vs_mlp_time", infer_ms["RSTIB-MLP (mean path)"] / infer_ms["MLP"])
glue("n_seeds", len(rstib_hi))
glue("runtime_s", runtime_s)
