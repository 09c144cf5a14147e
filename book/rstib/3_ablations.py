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
# # Ablations: which part of RSTIB-MLP does the work?
#
# RSTIB-MLP differs from the plain MLP in three ways: the **information bottleneck** (stochastic
# representations, learned input and target noise, three KL terms), the **teacher** (a graph
# network whose forecasts weight the sensors by difficulty and enter a distillation term), and
# the **dynamic node embedding** (a time-of-day-dependent embedding of each sensor). Here each
# is removed in turn at the largest noise ratio, with the same data, teacher and seeds.

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
from icml25.common.claims import claim, greater
from icml25.rstib import (
    RSTIBMLP,
    STIDMLP,
    STGCNLite,
    add_noise,
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
        "seeds": [0],
    },
    "large": {
        "n_nodes": 64,
        "n_days": 21,
        "epochs": 30,
        "d": 32,
        "channels": 32,
        "ratio": 0.8,
        "seeds": [0, 1, 2, 3, 4],
    },
}[SCALE]
print(SCALE, CONFIG)

coords, W = make_traffic_graph(CONFIG["n_nodes"], "corridors", seed=0)
data = simulate_traffic(W, n_days=CONFIG["n_days"], lag=3, seed=0)
N = W.shape[0]
win = make_windows(data, noisy=add_noise(data.x, CONFIG["ratio"], seed=1))

# %% [markdown]
# The teacher is trained once and cached; every variant that uses it gets the same forecasts.
# "Without KD" trains with no teacher at all (uniform sensor weights, no distillation term);
# "without IB" keeps the teacher but removes the whole bottleneck: no noise heads, no sampled
# input or target noise, no second encoder pass, no KL terms; what is left is an MLP with
# RSTIB-MLP's embeddings, distilled from the teacher. (An earlier version of this chapter still
# computed the noise heads, added the sampled target noise and kept all three KL terms in its
# "without IB" run; the package now removes them all, and a unit test checks it.) "Without
# dynamic embeddings" drops the time-dependent node embedding.

# %%
torch.manual_seed(0)
teacher = STGCNLite(N, W, channels=CONFIG["channels"])
train_forecaster(teacher, win, CONFIG["epochs"], batch_size=64, seed=0)
teacher_mae = evaluate(teacher, win)["MAE"]

VARIANTS = {
    "RSTIB-MLP": ({}, True),
    "without KD": ({}, False),
    "without IB": ({"ib": False}, True),
    "without dynamic embeddings": ({"dynamic": False}, True),
}
mae = {name: [] for name in ["MLP", *VARIANTS]}
for seed in CONFIG["seeds"]:
    torch.manual_seed(seed)
    mlp = STIDMLP(N, d=CONFIG["d"])
    train_forecaster(mlp, win, CONFIG["epochs"], batch_size=64, seed=seed)
    mae["MLP"].append(evaluate(mlp, win)["MAE"])
    for name, (kwargs, use_teacher) in VARIANTS.items():
        torch.manual_seed(seed)
        model = RSTIBMLP(N, d=CONFIG["d"], **kwargs)
        train_forecaster(
            model,
            win,
            CONFIG["epochs"],
            batch_size=64,
            seed=seed,
            teacher=teacher if use_teacher else None,
        )
        mae[name].append(evaluate(model, win)["MAE"])
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
    xlim=(0.8 * min(means.min(), teacher_mae), None),
    xlabel=f"test MAE vs clean targets at r = {CONFIG['ratio']}",
    title="Removing one part at a time",
)
ax.legend(loc="lower right", fontsize=8)
plt.show()

# %% [markdown]
# **What to see.** Bars are means over seeds, ticks the individual seeds, the dashed line the
# teacher. A bar to the right of RSTIB-MLP's means the removed part was helping; to the left,
# that the miniature does better without it.

# %% [markdown]
# ## Claim check
#
# Every variant is compared with the full model and the verdicts are reported as measured
# (the paper reports that each part helps on PEMS). What is asserted is what the figure must
# show for the chapter's text to hold: the full model beats the plain MLP in every seed.

# %%
full = np.array(mae["RSTIB-MLP"])
delta = {name: float(np.mean(mae[name]) - full.mean()) for name in VARIANTS if name != "RSTIB-MLP"}
assert np.all(full < np.array(mae["MLP"])), mae
runtime_s = time.perf_counter() - t_start
for name, key in [
    ("without dynamic embeddings", "dynamic_embedding_helps"),
    ("without KD", "kd_helps"),
]:
    claim(
        f"rstib/3_ablations/{key}",
        f"Removing a part of RSTIB-MLP ({name}) raises the MAE at the largest noise ratio",
        paper="removing KD, the IB or the dynamic embedding costs accuracy (ablations)",
        value=np.array(mae[name]) - full,
        check=greater(0.0),
        verdict="illustrated",
        fmt=".2f",
    )
claim(
    "rstib/3_ablations/ib_helps",
    "Removing the information bottleneck (noise heads, sampled noise and KL terms) raises the MAE",
    paper="removing the IB costs accuracy (ablation)",
    value=np.array(mae["without IB"]) - full,
    check=greater(0.0),
    verdict="not reproduced",
    caveat=f"without the bottleneck the MAE is {-delta['without IB']:.1f} lower (one seed at "
    f"small scale); the distilled MLP without it reaches {np.mean(mae['without IB']):.1f} "
    f"against the teacher's {teacher_mae:.1f}; why the bottleneck does not help (training "
    "budget, KL weight) is not diagnosed here",
    numbers={"full model": full.mean(), "MLP": np.mean(mae["MLP"]), "teacher": teacher_mae},
    fmt=".2f",
)
glue("full_mae", full.mean())
glue("mlp_mae", np.mean(mae["MLP"]))
glue("teacher_mae", teacher_mae)
glue("delta_kd", delta["without KD"])
glue("delta_ib", delta["without IB"])
glue("delta_dyn", delta["without dynamic embeddings"])
glue("runtime_s", runtime_s)
