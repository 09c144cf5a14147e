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
# # Robustness: can an adversarial "prompt" bring the digit back?
#
# The paper's case for masking neurons rather than fine-tuning is robustness: erased concepts
# should stay erased under adversarial prompts. Our analogue of an adversarial prompt is a free
# class **embedding**: starting from the erased class's own embedding, the attacker takes
# gradient steps (through the whole sampler and the erased model) to make the judge see a 3
# again, and we measure how often fresh samples from that embedding are judged 3. The attack
# differentiates through the logistic-regression judge, so it could merely fool that judge: every
# result is therefore also scored by the independent SVM judge, which the attack never sees, and
# by the Fréchet distance of the attacked samples to the real 3s in a fixed PCA space. We attack
# the end-to-end mask and the fine-tuned model of the previous notebook ($\beta = 1$, the tuned
# learning rate), and the original model as a reference, on three seeds (each its own generator).

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
import pandas as pd
from sklearn.model_selection import train_test_split

from icml25.common import glue, plotting, setup
from icml25.common.claims import claim, greater, less
from icml25.concept_erasure import (
    FrechetSpace,
    digits_data,
    embedding_attack,
    erase_concept,
    fit_independent_judge,
    fit_judge,
    train_flow_matching,
)

t_start = time.perf_counter()
SCALE = setup(seed=0)
CONFIG = {
    "small": {
        "hidden": 256,
        "train_steps": 2000,
        "n_steps": 8,
        "iters": 200,
        "lr": 0.5,  # = lr_mask, the end-to-end rate tuned in notebook 2 (its glue `lr_mask`)
        "beta": 1.0,
        "attack_steps": [0, 5, 10, 20, 40],
        "seeds": [0, 1, 2],
        "n": 64,
    },
    "large": {
        "hidden": 256,
        "train_steps": 6000,
        "n_steps": 10,
        "iters": 600,
        "lr": 0.5,
        "beta": 1.0,
        "attack_steps": [0, 5, 10, 20, 40, 80, 160],
        "seeds": [0, 1, 2, 3, 4],
        "n": 128,
    },
}[SCALE]
TARGET = 3
print(SCALE, CONFIG)

# %%
X, y = digits_data()
X_fit, X_out, y_fit, y_out = train_test_split(X, y, test_size=0.3, stratify=y, random_state=0)
judge, indep = fit_judge(X_fit, y_fit), fit_independent_judge(X_fit, y_fit)
space = FrechetSpace(X_fit, y_fit)
K, n = CONFIG["n_steps"], CONFIG["n"]
generators = {}
for s in CONFIG["seeds"]:
    model = train_flow_matching(X, y, hidden=CONFIG["hidden"], steps=CONFIG["train_steps"], seed=s)
    kw = dict(n_steps=K, iters=CONFIG["iters"], beta_preserve=CONFIG["beta"], seed=s)
    mask = erase_concept(model, TARGET, method="mask", lr=CONFIG["lr"], **kw)
    ft = erase_concept(model, TARGET, method="finetune", **kw)
    generators[s] = {
        "original": (model, None),
        "mask (end to end)": (model, mask.masks),
        "fine-tuning": (ft.model, None),
    }

# %% [markdown]
# ## The attack
#
# For each budget of attack steps and each seed, the attacker optimises one shared
# 32-dimensional embedding (Adam, step 0.05, 64 noises per step) against the logistic judge, and
# we score 64 fresh samples from the attacked embedding with both judges and by their Fréchet
# distance to the real 3s. The floor of that distance is the one of 64 held-out real 3s.

# %%
rows, grids = [], {}
for s, gens in generators.items():
    for name, (gen, masks) in gens.items():
        for steps in CONFIG["attack_steps"]:
            x = embedding_attack(gen, masks, judge, TARGET, iters=steps, n=n, n_steps=K, seed=s)
            rows.append(
                {
                    "seed": s,
                    "model": name,
                    "attack_steps": steps,
                    "logistic": np.mean(judge.predict(x) == TARGET),
                    "SVM": np.mean(indep.predict(x) == TARGET),
                    "FD to real 3s": space.distance(x, TARGET),
                }
            )
            if s == CONFIG["seeds"][0] and steps in (0, CONFIG["attack_steps"][-1]):
                grids[(name, steps)] = x[:16]
attack = pd.DataFrame(rows)
real3 = X_out[y_out == TARGET]
fd_floor = space.distance(real3[:n], TARGET)
curve = attack.groupby(["model", "attack_steps"])[["logistic", "SVM", "FD to real 3s"]].agg(
    ["mean", "std"]
)
curve.round(3)

# %% tags=["hide-input"]
colors = {
    "original": "#000000",
    "mask (end to end)": plotting.PALETTE[0],
    "fine-tuning": plotting.PALETTE[2],
}
fig, axes = plt.subplots(1, 3, figsize=(13, 3.8))
for ax, col, ylabel in [
    (axes[0], "logistic", "judged 3 by the attacked judge"),
    (axes[1], "SVM", "judged 3 by the independent SVM"),
    (axes[2], "FD to real 3s", "Fréchet distance to real 3s"),
]:
    for name, c in colors.items():
        m, sd = curve[(col, "mean")][name], curve[(col, "std")][name]
        ax.errorbar(m.index, m.values, yerr=sd.values, marker="o", capsize=3, c=c, label=name)
    ax.set(xlabel="attack steps on the class embedding", ylabel=ylabel)
    if col != "FD to real 3s":
        ax.set_ylim(-0.02, 1.05)
axes[2].axhline(fd_floor, c="0.5", ls=":", label="64 held-out real 3s")
axes[2].set_ylim(0, None)
axes[2].legend(fontsize=7)
plotting.panel_labels(axes)
fig.suptitle("A few dozen embedding steps bring the 3s back for both erasers (mean ± sd, 3 seeds)")
plt.show()

# %% [markdown]
# **What to see.** (a) Scored by the judge it optimises against, the attack recovers the 3s from
# both erased models within a few dozen steps. (b) The independent SVM, which the attack never
# sees, also calls them 3s; that alone does not show they are more than images that fool a
# classifier (no control here asks whether the SVM rejects adversarial non-3s). (c) In the PCA space
# the erased models' samples first move towards the real 3s, then away again, and the same
# attack pushes the *original* generator's 3s away from the real ones: the attacker overshoots
# towards exaggerated 3s, recognisable (b) but atypical (dotted: the floor of 64 real 3s). In this
# miniature,
# masking is **not** more robust to re-elicitation than fine-tuning. One reason may be that our
# "prompt" is a free 32-dimensional vector fed straight into the first layer, a far stronger
# handle than the discrete tokens of the paper's adversarial prompts; another, that an MLP with
# 512 hidden neurons has little room to route the class around a mask.

# %% tags=["hide-input"]
last = CONFIG["attack_steps"][-1]
fig, axes = plt.subplots(2, 3, figsize=(12, 3.2))
for col, name in enumerate(colors):
    for row, steps in enumerate([0, last]):
        x = grids[(name, steps)]
        strip = np.concatenate(
            [np.concatenate([x[j].reshape(8, 8) for j in range(r, r + 8)], 1) for r in (0, 8)]
        )
        axes[row, col].imshow(strip, cmap="gray_r", vmin=-1, vmax=1)
        axes[row, col].set_xticks([])
        axes[row, col].set_yticks([])
        if row == 0:
            axes[row, col].set_title(name, fontsize=9)
        if col == 0:
            axes[row, col].set_ylabel(f"{steps} attack steps", fontsize=8)
fig.suptitle(f"Samples asked for a 3, before and after {last} attack steps (seed 0)")
plt.show()

# %% [markdown]
# **What to see.** Top row (two rows of eight samples each): the erased models' "3"s are mostly
# other shapes; bottom row: after the attack, both erased models draw recognisable 3s again,
# bolder and more uniform than real ones, as the attacked original does too.

# %% [markdown]
# ## Claim check
#
# What the figures show, asserted over three seeds, with the independent judge: before the
# attack the mask keeps the 3-rate below 0.6, after the largest budget it is back above 0.8
# (the paper's claim, that it stays erased, therefore fails), for fine-tuning too; and the
# independent judge sees the recovered 3s, with the Fréchet distance as the caveat.

# %%
per_seed = attack.set_index(["model", "attack_steps", "seed"]).sort_index()
mask_before = per_seed.loc[("mask (end to end)", 0)].SVM.to_numpy()
mask_after = per_seed.loc[("mask (end to end)", last)].SVM.to_numpy()
ft_before = per_seed.loc[("fine-tuning", 0)].SVM.to_numpy()
ft_after = per_seed.loc[("fine-tuning", last)].SVM.to_numpy()
fd_before = per_seed.loc[("mask (end to end)", 0)]["FD to real 3s"].to_numpy()
fd_after = per_seed.loc[("mask (end to end)", last)]["FD to real 3s"].to_numpy()
fd_orig_att = per_seed.loc[("original", last)]["FD to real 3s"].to_numpy()
fd_orig0 = per_seed.loc[("original", 0)]["FD to real 3s"].to_numpy()
assert np.all(mask_before < 0.6) and np.all(ft_before < 0.6), (mask_before, ft_before)
assert np.all(mask_after > 0.8) and np.all(ft_after > 0.8), (mask_after, ft_after)
assert mask_after.mean() >= ft_after.mean() - 0.05, (mask_after, ft_after)  # mask no more robust
runtime_s = time.perf_counter() - t_start
claim(
    "concept-erasure/3_robustness/stays_erased_under_attack",
    f"After an embedding attack of {last} steps the masked generator still draws the erased "
    "class rarely (independent judge: rate below 0.6)",
    paper="erased concepts stay erased under adversarial prompt sets",
    value=mask_after,
    check=less(0.6),
    verdict="not reproduced",
    caveat=f"the attack brings the 3s back: mask {mask_before.mean():.2f} -> "
    f"{mask_after.mean():.2f}, fine-tuning {ft_before.mean():.2f} -> {ft_after.mean():.2f} "
    "(independent SVM judge); our attack optimises a free embedding, far stronger than a text "
    "prompt",
    numbers={
        "logistic judge (the one attacked), after": per_seed.loc[
            ("mask (end to end)", last)
        ].logistic.to_numpy()
    },
    fmt=".2f",
)
claim(
    "concept-erasure/3_robustness/independent_judge_sees_threes",
    f"The {last}-step attack brings back samples that the independent judge, which the attack "
    "never sees, also calls 3 (rate above 0.8 on every seed); without the attack it does not",
    paper="(the book's check of its own attack; the paper scores with NudeNet and CLIP)",
    value=mask_after,
    check=greater(0.8),
    control=("the masked generator before the attack", mask_before),
    verdict="illustrated",
    caveat="the control shows only that the attack changes the samples, not that the SVM would "
    "reject images that merely fool the logistic judge (no such control here); the SVM also "
    "accepts atypical 3s: the recovered ones' Fréchet distance to real 3s falls from "
    f"{fd_before.mean():.1f} to {fd_after.mean():.1f} but stays far above the original's "
    f"unattacked 3s ({fd_orig0.mean():.2f}), and the same attack on the original raises its "
    f"distance to {fd_orig_att.mean():.1f}: it exaggerates what the logistic judge takes for a 3",
    numbers={
        "FD before the attack": fd_before,
        "after": fd_after,
        "original, unattacked": fd_orig0,
        "64 held-out real 3s": fd_floor,
    },
    fmt=".2f",
)
glue("attack_steps_max", last)
glue("mask_before", float(mask_before.mean()))
glue("mask_after", float(mask_after.mean()))
glue("ft_before", float(ft_before.mean()))
glue("ft_after", float(ft_after.mean()))
glue("fd_before", float(fd_before.mean()))
glue("fd_after", float(fd_after.mean()))
glue("fd_orig_unattacked", float(fd_orig0.mean()))
glue("fd_orig_attacked", float(fd_orig_att.mean()))
glue("runtime_s", runtime_s)
