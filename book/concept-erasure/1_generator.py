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
# # The generator: class-conditional flow matching on digits
#
# The paper erases concepts from large flow-matching text-to-image models (FLUX). Offline and on
# a CPU we build the same kind of generator in miniature: a **rectified-flow** model that turns
# Gaussian noise into 8×8 digit images, conditioned on the class (the "prompt"), trained from
# scratch on scikit-learn's bundled digits in seconds. This notebook shows how it generates and
# checks it with the **judge**, a logistic-regression classifier on real digits that plays the
# role of the paper's concept detectors.

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
import torch

from icml25.common import glue, plotting, setup
from icml25.common.claims import claim, greater
from icml25.concept_erasure import (
    NULL,
    class_rates,
    digits_data,
    euler_sample,
    fit_judge,
    train_flow_matching,
)

t_start = time.perf_counter()
SCALE = setup(seed=0)
CONFIG = {
    "small": {"hidden": 256, "train_steps": 2000, "n_steps": 8, "n_per_class": 200},
    "large": {"hidden": 256, "train_steps": 6000, "n_steps": 10, "n_per_class": 1000},
}[SCALE]
print(SCALE, CONFIG)

# %% [markdown]
# ## Flow matching in one paragraph
#
# Pair a noise image $x_0 \sim \mathcal N(0, I)$ with a data image $x_1$ of class $c$ and walk the
# straight line $x_t = (1-t)x_0 + t x_1$. A network $v_\theta(x_t, t, c)$ learns the velocity
# $x_1 - x_0$ of that walk (loss $\|v_\theta - (x_1 - x_0)\|^2$); 10 % of the time the class is
# replaced by an "unconditional" token (class 10). Generating is then integrating
# $\dot x = v_\theta(x, t, c)$ from $t = 0$ to 1, here with $K$ Euler steps
# $x_{k+1} = x_k + v_\theta(x_k, k/K, c)/K$. PyTorch does the network and the training; the
# Euler loop is written by hand in `icml25.concept_erasure.euler_sample`, because erasure will
# backpropagate through every one of its steps.

# %%
X, y = digits_data()
model = train_flow_matching(X, y, hidden=CONFIG["hidden"], steps=CONFIG["train_steps"], seed=0)
judge = fit_judge(X, y)
K = CONFIG["n_steps"]
print(f"velocity network: {sum(p.numel() for p in model.parameters())} parameters; K = {K}")

# %% tags=["hide-input"]
g = torch.Generator().manual_seed(0)
z = torch.randn(3, 64, generator=g)
classes = [0, 3, 7]
frames = [z]
x = z
with torch.no_grad():
    for k in range(K):
        x = x + model(x, torch.full((3,), k / K), torch.tensor(classes)) / K
        frames.append(x)
fig, axes = plt.subplots(3, K + 1, figsize=(11, 4.2))
for i in range(3):
    for k in range(K + 1):
        axes[i, k].imshow(frames[k][i].reshape(8, 8).clamp(-1, 1), cmap="gray_r", vmin=-1, vmax=1)
        axes[i, k].set_xticks([])
        axes[i, k].set_yticks([])
        if i == 0:
            axes[i, k].set_title(f"k={k}", fontsize=9)
    axes[i, 0].set_ylabel(f"class {classes[i]}")
fig.suptitle("Euler steps carry the same kind of noise to a 0, a 3 and a 7")
plt.show()

# %% [markdown]
# **What to see.** Each row starts from noise ($k = 0$) and, step by step along the learned
# velocity, becomes a digit of the requested class. The class enters only through the network's
# class embedding, the handle the erasure in the next notebook has to cut.

# %% tags=["hide-input"]
g = torch.Generator().manual_seed(1)
fig, axes = plt.subplots(10, 10, figsize=(7, 7))
with torch.no_grad():
    for c in range(10):
        xs = euler_sample(model, torch.randn(10, 64, generator=g), c, K).clamp(-1, 1)
        for j in range(10):
            axes[c, j].imshow(xs[j].reshape(8, 8), cmap="gray_r", vmin=-1, vmax=1)
            axes[c, j].axis("off")
fig.suptitle("Ten samples per class (rows 0 to 9)")
plt.show()

# %% [markdown]
# **What to see.** Every row is recognisably its digit, with the variety of handwriting; a few
# samples are blurry, as 8×8 digits often are.

# %% [markdown]
# ## The judge
#
# A sample "counts as" class $c$ when the judge predicts $c$. The rate for each class is the
# fraction of samples generated for $c$ that the judge calls $c$; the unconditional token
# shows the floor an erased class could fall to.

# %%
rates = class_rates(model, None, judge, CONFIG["n_per_class"], seed=1, n_steps=K)
g = torch.Generator().manual_seed(2)
with torch.no_grad():
    xs = euler_sample(model, torch.randn(2000, 64, generator=g), NULL, K).clamp(-1, 1)
uncond = np.bincount(judge.predict(xs.numpy()), minlength=10) / 2000
train_acc = float(judge.score(X, y))
print(f"judge accuracy on the real digits it was fit on: {train_acc:.3f}")

# %% tags=["hide-input"]
fig, ax = plt.subplots(figsize=plotting.figsize("single"))
cls = np.arange(10)
ax.bar(cls - 0.2, rates, 0.4, color=plotting.PALETTE[0], label="samples of class c judged c")
ax.bar(cls + 0.2, uncond, 0.4, color=plotting.PALETTE[7], label="unconditional samples judged c")
ax.set(
    xticks=cls,
    xlabel="class c",
    ylabel="rate",
    ylim=(0, 1.05),
    title="The judge recognises the generated class almost always",
)
ax.legend(fontsize=8, loc="center right")
plt.show()

# %% [markdown]
# **What to see.** For every class the judge recognises nearly all conditional samples; without
# a class, each digit appears about a tenth of the time (some more often than others), the
# floor for erasing a class by sending it to the unconditional output.

# %% [markdown]
# ## Claim check
#
# The base generator is good enough to erase from: the judge recognises at least 90 % of the
# samples of every class.

# %%
runtime_s = time.perf_counter() - t_start
assert np.isclose(uncond.sum(), 1.0), uncond  # the unconditional histogram covers every sample
claim(
    "concept-erasure/1_generator/follows_the_class",
    "The class-conditional generator draws what it is asked for: the judge recognises at least "
    "90 % of each class's samples; unconditional samples are not recognised as any one class",
    paper="set-up (the paper erases concepts from FLUX, a text-to-image model)",
    value=rates,
    check=greater(0.9),
    control=("unconditional samples", uncond),
    verdict="illustrated",
    over="classes",
    fmt=".3f",
)
glue("rate_min", float(rates.min()))
glue("uncond_3", float(uncond[3]))
glue("runtime_s", runtime_s)
