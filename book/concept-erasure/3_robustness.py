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
# again, and we measure how often fresh samples from that embedding are judged 3. We attack the
# end-to-end mask and the fine-tuned model of the previous notebook, and the original model as a
# reference.

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
import pandas as pd

from icml25.common import glue, plotting, setup
from icml25.common.claims import claim, less
from icml25.concept_erasure import (
    digits_data,
    embedding_attack,
    erase_concept,
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
        "iters": 400,
        "beta": 1.0,
        "attack_steps": [0, 5, 10, 20, 40],
        "seeds": 3,
    },
    "large": {
        "hidden": 256,
        "train_steps": 6000,
        "n_steps": 10,
        "iters": 1000,
        "beta": 1.0,
        "attack_steps": [0, 5, 10, 20, 40, 80, 160],
        "seeds": 10,
    },
}[SCALE]
TARGET = 3
print(SCALE, CONFIG)

# %%
X, y = digits_data()
model = train_flow_matching(X, y, hidden=CONFIG["hidden"], steps=CONFIG["train_steps"], seed=0)
judge = fit_judge(X, y)
K = CONFIG["n_steps"]
erasers = {
    "mask (end to end)": erase_concept(
        model, TARGET, method="mask", n_steps=K, iters=CONFIG["iters"], beta_preserve=CONFIG["beta"]
    ),
    "fine-tuning": erase_concept(
        model,
        TARGET,
        method="finetune",
        n_steps=K,
        iters=CONFIG["iters"],
        beta_preserve=CONFIG["beta"],
    ),
}

# %% [markdown]
# ## The attack
#
# For each budget of attack steps and each attack seed, the attacker optimises one shared
# 32-dimensional embedding (Adam, step 0.05, 64 noises per step) and we judge 64 fresh samples.

# %%
rows = []
for name, res in [("original", None), *erasers.items()]:
    gen, masks = (model, None) if res is None else (res.model, res.masks)
    for steps in CONFIG["attack_steps"]:
        for seed in range(CONFIG["seeds"]):
            rate = embedding_attack(gen, masks, judge, TARGET, iters=steps, n_steps=K, seed=seed)
            rows.append({"model": name, "attack_steps": steps, "seed": seed, "rate": rate})
attack = pd.DataFrame(rows)
curve = attack.groupby(["model", "attack_steps"]).rate.agg(["mean", "std"]).unstack("model")
curve["mean"].round(3)

# %% tags=["hide-input"]
fig, ax = plt.subplots(figsize=plotting.figsize("single"))
colors = {
    "original": "#000000",
    "mask (end to end)": plotting.PALETTE[0],
    "fine-tuning": plotting.PALETTE[2],
}
for name in colors:
    m, s = curve["mean"][name], curve["std"][name]
    ax.errorbar(m.index, m.values, yerr=s.values, marker="o", capsize=3, c=colors[name], label=name)
ax.set(
    xlabel="attack steps on the class embedding",
    ylabel="samples judged 3",
    ylim=(-0.02, 1.05),
    title="A few dozen embedding steps bring the 3s back for both erasers",
)
ax.legend(fontsize=8)
plt.show()

# %% [markdown]
# **What to see.** Without an attack (0 steps) both erased models rarely make a 3, fine-tuning
# more rarely than the mask. Within a few dozen gradient steps on the embedding, the attacker
# recovers the 3s from both; the mask gives way at least as fast as fine-tuning. In this
# miniature, masking is **not** more robust to re-elicitation than fine-tuning. One reason may
# be that our "prompt" is a free 32-dimensional vector fed straight into the first layer, a far
# stronger handle than the discrete tokens of the paper's adversarial prompts; another, that an
# MLP with 512 hidden neurons has little room to route the class around a mask.

# %% [markdown]
# ## Claim check
#
# What the figure shows, asserted: before the attack both erasers keep the 3-rate below 0.6;
# after the largest attack budget both are back above 0.8 on average, so neither erasure
# resists this attack; and the mask does not end lower than fine-tuning.

# %%
mean = curve["mean"]
first, last = CONFIG["attack_steps"][0], CONFIG["attack_steps"][-1]
for name in erasers:
    assert mean[name].loc[first] < 0.6, (name, mean[name].loc[first])
    assert mean[name].loc[last] > 0.8, (name, mean[name].loc[last])
assert mean["mask (end to end)"].loc[last] >= mean["fine-tuning"].loc[last] - 0.05
runtime_s = time.perf_counter() - t_start
claim(
    "concept-erasure/3_robustness/stays_erased_under_attack",
    f"After an embedding attack of {last} steps the masked generator still draws the erased "
    "class rarely (rate below 0.6)",
    paper="erased concepts stay erased under adversarial prompt sets",
    value=mean["mask (end to end)"].loc[last],
    check=less(0.6),
    verdict="not reproduced",
    caveat=f"the attack brings the 3s back: mask {mean['mask (end to end)'].loc[first]:.2f} -> "
    f"{mean['mask (end to end)'].loc[last]:.2f}, fine-tuning {mean['fine-tuning'].loc[first]:.2f}"
    f" -> {mean['fine-tuning'].loc[last]:.2f}; our attack optimises a free embedding, far "
    "stronger than a text prompt",
    fmt=".2f",
)
glue("attack_steps_max", last)
glue("mask_before", float(mean["mask (end to end)"].loc[first]))
glue("mask_after", float(mean["mask (end to end)"].loc[last]))
glue("ft_before", float(mean["fine-tuning"].loc[first]))
glue("ft_after", float(mean["fine-tuning"].loc[last]))
glue("runtime_s", runtime_s)
