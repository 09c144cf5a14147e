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
# # "What": a decision planted at a known scale
#
# WAM's second promise is to say *what* the model uses, in terms of scale. We test it where the
# answer is known: two synthetic image sets in which the class lives at a planted scale. In
# **texture**, a disk is filled either with a fine checkerboard or with a smooth fill of the same
# mean brightness, so only the finest details tell the classes apart. In **shape**, a plain disk
# is small or large, so only the coarse shape matters. The same small CNN learns each task;
# WAM-IG's share of attribution per scale should land where the decision was planted.

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
        " && pip install -q ptwt captum",
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
from icml25.common.training import SmallCNN, accuracy, train_classifier
from icml25.wam import make_scale_dataset, scale_importance, wam

t_start = time.perf_counter()
SCALE = setup(seed=0)
CONFIG = {
    "small": {"n": 1000, "n_eval": 64, "epochs": 4, "n_samples": 16, "seeds": [0, 1, 2]},
    "large": {"n": 4000, "n_eval": 256, "epochs": 6, "n_samples": 25, "seeds": [0, 1, 2, 3, 4]},
}[SCALE]
print(SCALE, CONFIG)

# %% tags=["hide-input"]
fig, axes = plt.subplots(2, 6, figsize=(11, 4))
for row, kind in enumerate(["texture", "shape"]):
    X, y = make_scale_dataset(kind, 12, seed=1)
    for j in range(6):
        k = [i for i in range(12) if y[i] == j % 2][j // 2]
        axes[row, j].imshow(X[k, 0], cmap="gray_r", vmin=0, vmax=1)
        axes[row, j].set_title(f"{kind}, class {y[k]}", fontsize=9)
        axes[row, j].axis("off")
fig.suptitle("Texture: checkerboard vs smooth fill (fine scale); shape: small vs large (coarse)")
plt.show()

# %%
shares = {kind: [] for kind in ("texture", "shape")}
accs = {kind: [] for kind in ("texture", "shape")}
for kind in shares:
    X, y = make_scale_dataset(kind, CONFIG["n"], seed=0)
    cut = int(0.8 * len(y))
    for seed in CONFIG["seeds"]:
        net = SmallCNN(1, 2, size=32, ndim=2)
        train_classifier(net, X[:cut], y[:cut], epochs=CONFIG["epochs"], seed=seed, progress=False)
        accs[kind].append(accuracy(net, X[cut:], y[cut:]))
        xe = torch.tensor(X[cut : cut + CONFIG["n_eval"]])
        ye = torch.tensor(y[cut : cut + CONFIG["n_eval"]])
        attr = wam(net, xe, ye, method="integrated", n_samples=CONFIG["n_samples"])
        shares[kind].append(scale_importance(attr))
print({kind: np.round(a, 3).tolist() for kind, a in accs.items()})

# %% tags=["hide-input"]
labels = list(shares["texture"][0])
fig, ax = plt.subplots(figsize=plotting.figsize("single"))
for i, (kind, color) in enumerate(
    [("texture", plotting.PALETTE[3]), ("shape", plotting.PALETTE[0])]
):
    vals = np.array([[s[lab] for lab in labels] for s in shares[kind]])
    ax.bar(
        np.arange(len(labels)) + (i - 0.5) * 0.4,
        vals.mean(0),
        0.4,
        yerr=vals.std(0),
        capsize=3,
        color=color,
        label=f"{kind} task",
    )
ax.set(
    xticks=np.arange(len(labels)),
    xticklabels=labels,
    ylim=(0, 1),
    ylabel="share of |WAM-IG|",
    title="WAM's scale histogram moves to where the class lives",
)
ax.legend()
plt.show()

# %% [markdown]
# **What to see.** For the texture task the attribution mass sits in the finest details
# (level 1); for the shape task in the approximation, the coarsest scale. The same method, on
# the same architecture, reports the scale that the data made decisive (error bars: training
# seeds).

# %% [markdown]
# ## Claim check
#
# Both tasks are learnt (test accuracy ≥ 0.95) and, in every seed, at least 60 % of WAM-IG's
# mass lies at the planted scale: level 1 for texture, the approximation for shape.

# %%
fine = np.array([s["level 1"] for s in shares["texture"]])
coarse = np.array([s["approx"] for s in shares["shape"]])
fine_on_shape = np.array([s["level 1"] for s in shares["shape"]])
coarse_on_texture = np.array([s["approx"] for s in shares["texture"]])
assert min(min(a) for a in accs.values()) >= 0.95, accs
runtime_s = time.perf_counter() - t_start
claim(
    "wam/2_scales/texture_on_finest_level",
    "When the class is planted in a fine texture, at least 60 % of WAM-IG's mass lies on the "
    "finest wavelet level; on the shape task it does not",
    paper="qualitative: WAM tells at which scale the evidence lies (texture vs shape)",
    value=fine,
    check=greater(0.6),
    control=("the same share on the shape task", fine_on_shape),
    verdict="illustrated",
    fmt=".2f",
)
claim(
    "wam/2_scales/shape_on_approximation",
    "When the class is planted in a coarse shape, at least 60 % of WAM-IG's mass lies on the "
    "approximation coefficients; on the texture task it does not",
    paper="qualitative: WAM tells at which scale the evidence lies (texture vs shape)",
    value=coarse,
    check=greater(0.6),
    control=("the same share on the texture task", coarse_on_texture),
    verdict="illustrated",
    fmt=".2f",
)
glue("texture_fine_pct", float(100 * fine.mean()))
glue("shape_coarse_pct", float(100 * coarse.mean()))
glue("runtime_s", runtime_s)
