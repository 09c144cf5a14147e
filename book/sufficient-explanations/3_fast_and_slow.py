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
# # Fast and slow: at which abstraction each pixel is freed
#
# Abstraction and refinement records, for every freed feature, the reduction rate $\rho$ at
# which its query verified: pixels that a network with 10 % of its neurons already proves
# irrelevant are freed "fast", those that need the full network "slow". This notebook draws
# that picture for a few digits (the image, the explanation, and $\rho$ per pixel), and then
# tests the explanations where the truth is known: a planted task with 16 features whose
# label depends on features 0 to 3 only.
#
# At `small` scale the notebook takes well under a minute on one CPU thread.

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
from icml25.common.claims import claim, less
from icml25.sufficient_explanations import (
    digits_data,
    falsify,
    minimal_explanation,
    planted_data,
    sensitivity,
    train_mlp,
)

t_start = time.perf_counter()
SCALE = setup(seed=0)
CONFIG = {
    "small": {"hidden": 128, "shown": 4, "seeds": 3, "planted_points": 20},
    "large": {"hidden": 512, "shown": 6, "seeds": 5, "planted_points": 100},
}[SCALE]
EPS = 0.1
Xtr, ytr, Xte, yte = digits_data(0)
print(SCALE, CONFIG)

# %% [markdown]
# ## The picture: image, explanation, and ρ per freed pixel

# %%
net = train_mlp(Xtr, ytr, hidden=(CONFIG["hidden"],) * 2, seed=0)
shown = [
    minimal_explanation(net, Xte[i], EPS, method="abstract_refine") for i in range(CONFIG["shown"])
]
fig, axes = plt.subplots(3, CONFIG["shown"], figsize=(2.4 * CONFIG["shown"], 7.2))
for c, e in enumerate(shown):
    x = Xte[c]
    axes[0, c].imshow(x.reshape(8, 8), cmap="gray_r", vmin=0, vmax=1)
    axes[0, c].set_title(f"digit, predicted {e.target}")
    mask = np.zeros(64)
    mask[e.fixed] = 1
    axes[1, c].imshow(mask.reshape(8, 8), cmap="Reds", vmin=0, vmax=1)
    axes[1, c].set_title(f"explanation: {len(e.fixed)} fixed")
    im = axes[2, c].imshow(
        np.ma.masked_invalid(e.level).reshape(8, 8), cmap="viridis", vmin=0.1, vmax=1.0
    )
    axes[2, c].set_title("ρ at which freed")
for ax in axes.ravel():
    ax.set_xticks([])
    ax.set_yticks([])
fig.colorbar(im, ax=axes[2, :], label="reduction rate ρ (blank: fixed)", shrink=0.8)
plt.show()
levels = np.concatenate([e.level[e.freed] for e in shown])
glue("share_fast", float(np.mean(levels <= 0.1 + 1e-9)), display=False)

# %% [markdown]
# Top: the digit. Middle: the explanation, the pixels that must stay fixed (red). Bottom: for
# the freed pixels, the coarsest abstraction that proved them free (dark: 10 % of the neurons;
# yellow: the full network). Much of the blank border of the 8×8 digits (the left column
# most clearly) is freed on the coarsest networks; most other pixels need finer ones, and the
# map is far from a clean coarse-to-fine picture: the search frees the least sensitive pixels
# first and the rate only climbs, so "slow" here mostly means "late in the order". A digit
# whose middle panel is empty needs no fixed pixel at all at ε = 0.1.
#
# ## Planted relevance
#
# Features uniform in [0, 1], label $y = \arg\max_{i < 4} x_i$: features 4 to 15 are noise.
# A 16-32-32-4 network per seed; the explanation of a correctly classified test point at
# ε = 0.1 must contain no noise feature. The control fixes a random set of the same size.

# %%
noise_share, ctrl_share, accs, sizes = [], [], [], []
n_noise_fixed = n_confirmed = 0  # fixed noise features; those a real counterexample confirms
for seed in range(CONFIG["seeds"]):
    X, y = planted_data(4000, seed=seed)
    Xp, yp = planted_data(500, seed=100 + seed)
    pnet = train_mlp(X, y, hidden=(32, 32), epochs=30, seed=seed)
    pred = pnet.forward(Xp).argmax(1)
    accs.append(float(np.mean(pred == yp)))
    idx = np.nonzero(pred == yp)[0][: CONFIG["planted_points"]]
    rng = np.random.default_rng(seed)
    has_noise, ctrl = [], []
    for i in idx:
        e = minimal_explanation(pnet, Xp[i], EPS, method="abstract_refine")
        sizes.append(len(e.fixed))
        has_noise.append(bool(np.any(e.fixed >= 4)))
        for j in e.fixed[e.fixed >= 4]:  # free it on top of the freed set: a counterexample?
            n_noise_fixed += 1
            n_confirmed += falsify(pnet, Xp[i], [*e.freed, int(j)], EPS) is not None
        ctrl.append(
            bool(np.any(rng.permutation(16)[: len(e.fixed)] >= 4)) if len(e.fixed) else False
        )
    noise_share.append(np.mean(has_noise))
    ctrl_share.append(np.mean(ctrl))
print("test accuracy per seed:", np.round(accs, 3))
print("mean explanation size:", np.mean(sizes))
print("share of explanations with a noise feature:", noise_share, "control:", ctrl_share)
print(f"fixed noise features with a real counterexample when freed too: {n_confirmed}")
print(f"of {n_noise_fixed}")
sens = sensitivity(pnet, Xp[idx[0]])
fig, ax = plt.subplots(figsize=plotting.figsize("single"))
ax.bar(range(16), sens, color=["#D55E00"] * 4 + ["#999999"] * 12)
ax.set_xlabel("feature (0-3 planted, 4-15 noise)")
ax.set_ylabel("sensitivity: mean |∂(f_j − f_t)/∂x_i|")
ax.set_title("The network ignores the noise features")
plt.show()

# %% [markdown]
# The last seed's network, at one test point: the sensitivity of the planted features (red)
# dwarfs the noise features' (grey), so the search tries the noise features first and
# usually frees them. Not always: the claim below counts the explanations that still fix a
# noise feature. A sufficient explanation is faithful to the network, and a trained network
# is not exactly the planted rule; near its decision boundary even its small dependence on a
# noise feature can be necessary, given the noise features already freed. We test that: for
# each fixed noise feature, freeing it on top of the freed set must admit a real
# counterexample (found by `falsify`); the count is printed above.

# %%
runtime_s = time.perf_counter() - t_start
assert min(accs) > 0.85, accs
assert np.mean(sizes) > 0.5, "the explanations must not be empty for the check to mean anything"
n_with_noise = int(round(sum(np.array(noise_share) * CONFIG["planted_points"])))
claim(
    "sufficient-explanations/3_fast_and_slow/no_noise_feature",
    "On the planted task (label from features 0-3 of 16), no abstract-refine explanation at "
    "eps = 0.1 contains a noise feature (share below 0.01), in every seed of data and network",
    paper="explanations are minimal and sufficient (qualitative; the planted task is the "
    "chapter's)",
    value=np.array(noise_share),
    check=less(0.01),
    verdict="not reproduced",
    caveat=f"{n_with_noise} of {CONFIG['seeds'] * CONFIG['planted_points']} explanations fix a "
    "noise feature (share per seed "
    + ", ".join(f"{v:.2f}" for v in noise_share)
    + "; random same-size sets "
    + ", ".join(f"{v:.2f}" for v in ctrl_share)
    + f"): the trained network depends a little on the noise features, and near its decision "
    "boundary that is enough to make one of them necessary given the noise features already "
    f"freed (freeing it too admits a real counterexample for {n_confirmed} of "
    f"{n_noise_fixed} fixed noise features); the explanation is then faithful to the network, "
    "not to the planted rule",
    numbers={
        "mean size": float(np.mean(sizes)),
        "accuracy": float(np.mean(accs)),
        "fixed noise features confirmed by a counterexample": n_confirmed,
    },
    fmt=".2f",
)
glue("planted_size", float(np.mean(sizes)), display=False)
glue("runtime_s", runtime_s, display=False)
print(f"runtime {runtime_s:.0f} s")
