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
# # The watermark: keyed green lists and their detector
#
# STAMP rephrases every item of a dataset several times, each time with the KGW watermark
# under its own secret key: at every step, a pseudo-random "green" share $\gamma$ of the
# vocabulary, seeded by the previous token and the key, gets $\delta$ added to its logits. Here
# an LLM rephraser is replaced by a **synonym grammar**: an item is a sequence of synonym groups,
# a rephrase picks one word per group, and the watermark biases that choice in exactly the KGW
# way. This notebook shows the green lists, a few keyed rephrasings, and the KGW detector's
# z-score under the right and the wrong key.

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
from icml25.common.claims import claim, greater
from icml25.stamp import (
    kgw_green_mask,
    kgw_zscore,
    make_synonym_grammar,
    make_versions,
    sample_templates,
)

t_start = time.perf_counter()
SCALE = setup(seed=0)
CONFIG = {"small": {"n_items": 300}, "large": {"n_items": 1000}}[SCALE]
GAMMA = 0.25
grammar = make_synonym_grammar(300, 4)
V = grammar.vocab_size
print(SCALE, CONFIG, "vocabulary", V)


def show(tokens):
    """Word g<group>.<synonym> for each token id."""
    return " ".join(f"g{(t - 1) // grammar.n_syn}.{(t - 1) % grammar.n_syn}" for t in tokens)


# %% [markdown]
# ## One item, three keys
#
# `sample_templates` draws 12 synonym groups per item with Zipf frequencies (so that contexts
# recur, as in language). `make_versions` rephrases each item once per key with bias $\delta$ =
# 2; below, one item under three keys, each word marked **G** when it is green for its key
# (given the word before it).

# %%
templates = sample_templates(grammar, CONFIG["n_items"], seed=1)
keys = [101, 202, 303]
versions = make_versions(templates, grammar, keys, delta=2.0, gamma=GAMMA, seed=2)
item = 0
for key, version in zip(keys, versions[:, item], strict=True):
    prev, marks = 0, []
    for tok in version:
        marks.append("G" if kgw_green_mask(prev, key, V, GAMMA)[tok] else ".")
        prev = tok
    print(f"key {key}: {show(version)}")
    print(f"          {'     '.join(marks)}")

# %% [markdown]
# The three rephrasings say the same thing (the same groups), with different words, and each
# is green-heavy only under its own key. That is what makes the versions exchangeable before
# release: nobody but the owner can tell which one will be published.

# %% [markdown]
# ## The detector
#
# KGW's detector counts green tokens under a key: $z = (|s|_G - \gamma T) / \sqrt{T \gamma (1 -
# \gamma)}$. A version scored with its own key shows the planted excess; scored with any other
# key it looks like chance ($z \approx 0$).

# %%
deltas = [0.0, 1.0, 2.0, 4.0]
z_right, z_wrong = {}, {}
for delta in deltas:
    vs = make_versions(templates, grammar, [11, 22], delta=delta, gamma=GAMMA, seed=3)
    z_right[delta] = np.array([kgw_zscore(v, 11, V, GAMMA) for v in vs[0]])
    z_wrong[delta] = np.array([kgw_zscore(v, 22, V, GAMMA) for v in vs[0]])
    print(
        f"delta {delta}: right-key z {z_right[delta].mean():.2f}, wrong-key z "
        f"{z_wrong[delta].mean():.2f}, |wrong z| < 2 for {np.mean(np.abs(z_wrong[delta]) < 2):.0%}"
    )

# %% tags=["hide-input"]
fig, axes = plt.subplots(1, 2, figsize=plotting.figsize("wide"))
ax = axes[0]
bins = np.linspace(-3, 8, 34)
ax.hist(z_wrong[2.0], bins=bins, alpha=0.6, color=plotting.PALETTE[7], label="wrong key")
ax.hist(z_right[2.0], bins=bins, alpha=0.6, color=plotting.PALETTE[0], label="right key")
ax.axvline(2, color="k", ls=":", lw=1)
ax.set(
    xlabel="KGW z-score of one 12-word item",
    ylabel="items",
    title="δ = 2: each version carries its own key's mark",
)
ax.legend()
ax = axes[1]
ax.plot(
    deltas, [z_right[d].mean() for d in deltas], "o-", color=plotting.PALETTE[0], label="right key"
)
ax.plot(
    deltas, [z_wrong[d].mean() for d in deltas], "o-", color=plotting.PALETTE[7], label="wrong key"
)
ax.set(xlabel="watermark strength δ", ylabel="mean z-score", title="Stronger bias, stronger mark")
ax.legend()
plt.show()

# %% [markdown]
# **What to see.** Left: at $\delta$ = 2 the right key lifts most items well above chance, the
# wrong key leaves them at 0. Right: the mark grows with $\delta$ and vanishes at $\delta$ = 0
# (plain rephrases). STAMP does not need the detector to fire on a single item: it uses the
# keys only to make versions that a model can memorise distinctly, and tests memorisation with
# perplexities (next notebook). A 12-word item is short, so per-item z-scores are modest; the
# paper's rephrases of whole questions are longer.

# %% [markdown]
# ## Claim check
#
# Right-key z-scores sit far above wrong-key ones: at $\delta \ge 2$ the right-key mean is more
# than 2 above the wrong-key mean, which stays near chance (|mean| < 0.3) at every $\delta$;
# pooled over the whole dataset (the per-item z-scores add up, $z = \sqrt{N}\,\bar z$ for $N$
# items of equal length) the right key gives $z > 10$ and a wrong key $|z| < 3$; and without a
# watermark ($\delta$ = 0) the right key sees nothing ($|z| < 3$ pooled).

# %%
n_items = len(templates)
pooled_right = {d: float(z_right[d].mean() * np.sqrt(n_items)) for d in deltas}
pooled_wrong = {d: float(z_wrong[d].mean() * np.sqrt(n_items)) for d in deltas}
assert all(z_right[d].mean() > z_wrong[d].mean() + 2 for d in (2.0, 4.0))
assert all(abs(z_wrong[d].mean()) < 0.3 for d in deltas)
assert all(abs(pooled_wrong[d]) < 3 for d in deltas), pooled_wrong
assert abs(pooled_right[0.0]) < 3, pooled_right
runtime_s = time.perf_counter() - t_start
claim(
    "stamp/1_watermark/right_key_detects",
    f"Pooled over {n_items} watermarked rephrasings (delta = 2), the KGW z-score under the right "
    "key is above 10; under a wrong key it is not",
    paper="KGW watermarks are detectable with the key (z-test)",
    value=pooled_right[2.0],
    check=greater(10.0),
    control=("wrong key", pooled_wrong[2.0]),
    verdict="illustrated",
    numbers={"z per item, right key": z_right[2.0].mean(), "wrong key": z_wrong[2.0].mean()},
    fmt=".2f",
)
glue("z_right_2", float(z_right[2.0].mean()))
glue("z_right_4", float(z_right[4.0].mean()))
glue("z_wrong_2", float(z_wrong[2.0].mean()))
glue("pooled_right_2", pooled_right[2.0])
glue("pooled_wrong_2", pooled_wrong[2.0])
glue("runtime_s", runtime_s)
