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
# # Ablations: watermark strength and number of copies
#
# Does the watermark help the test, or would any set of private rephrasings do? And how does
# the evidence grow when the public versions appear more than once? Each setting below trains
# its own small GPT-2 suspect (as in the previous notebook) and reports STAMP's p-value on all
# 300 items; the fast count model repeats the sweep over more settings and seeds.

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
from icml25.common.claims import claim, greater, less
from icml25.common.lm import build_causal_lm, sequence_perplexity, train_lm
from icml25.stamp import BigramLM, make_background, make_items, make_synonym_grammar, stamp_test

t_start = time.perf_counter()
SCALE = setup(seed=0)
CONFIG = {
    "small": {
        "n_background": 3000,
        "epochs": 5,
        "d": 128,
        "lm_settings": [(0.0, 1), (2.0, 1), (2.0, 2)],
        "count_seeds": 10,
    },
    "large": {
        "n_background": 30000,
        "epochs": 10,
        "d": 256,
        "lm_settings": [(0.0, 1), (1.0, 1), (2.0, 1), (4.0, 1), (2.0, 2), (2.0, 4)],
        "count_seeds": 50,
    },
}[SCALE]
N_ITEMS, N_PRIVATE = 300, 8
grammar = make_synonym_grammar(300, 4)
print(SCALE, CONFIG)


# %% [markdown]
# ## The small GPT-2 suspect
#
# Half the training of the previous notebook (5 epochs), so that the effects of the watermark
# and of repetition are not drowned in an overwhelming signal.

# %%
lm_p = {}
background = make_background(grammar, CONFIG["n_background"], 0)
for delta, copies in CONFIG["lm_settings"]:
    versions = make_items(grammar, N_ITEMS, N_PRIVATE, delta, seed=0)
    corpus = np.concatenate([background] + [versions[0]] * copies)
    corpus = corpus[np.random.default_rng(5).permutation(len(corpus))]
    model = build_causal_lm(
        grammar.vocab_size, n_positions=16, n_layer=2, n_embd=CONFIG["d"], n_head=4, seed=0
    )
    train_lm(model, corpus, epochs=CONFIG["epochs"], batch_size=64, lr=3e-3, seed=0, progress=False)
    pub = sequence_perplexity(model, versions[0])
    priv = np.stack([sequence_perplexity(model, v) for v in versions[1:]], axis=1)
    lm_p[(delta, copies)] = stamp_test(pub, priv, clip_frac=0.0)[0]
    print(f"delta {delta}, copies {copies}: p = {lm_p[(delta, copies)]:.1e}")

# %% [markdown]
# ## The same sweep with the count model, over seeds
#
# The add-0.1 bigram model trained with the public versions, over watermark strengths and
# copies, several seeds each (median log10 p).

# %%
deltas, copies_list = [0.0, 1.0, 2.0, 4.0], [1, 2, 4]
logs = np.zeros((CONFIG["count_seeds"], len(deltas), len(copies_list)))
for seed in range(CONFIG["count_seeds"]):
    background = make_background(grammar, CONFIG["n_background"], seed)
    for i, delta in enumerate(deltas):
        versions = make_items(grammar, N_ITEMS, N_PRIVATE, delta, seed)
        for j, copies in enumerate(copies_list):
            lm = BigramLM(grammar.vocab_size).fit(
                np.concatenate([background] + [versions[0]] * copies)
            )
            pub = lm.perplexity(versions[0])
            priv = np.stack([lm.perplexity(v) for v in versions[1:]], axis=1)
            logs[seed, i, j] = np.log10(max(stamp_test(pub, priv, clip_frac=0.0)[0], 1e-300))
count_logp = np.median(logs, axis=0)
print(np.round(count_logp, 1))

# %% tags=["hide-input"]
fig, axes = plt.subplots(1, 2, figsize=plotting.figsize("wide"))
labels = [f"δ={d:g}, ×{c}" for d, c in CONFIG["lm_settings"]]
axes[0].bar(
    labels,
    [np.log10(lm_p[s]) for s in CONFIG["lm_settings"]],
    color=[
        plotting.PALETTE[7] if s[0] == 0 else plotting.PALETTE[0] for s in CONFIG["lm_settings"]
    ],
)
axes[0].axhline(np.log10(0.05), color="k", ls=":", lw=1)
axes[0].set(ylabel="log10 p (300 items)", title="Small GPT-2 suspect")
for j, c in enumerate(copies_list):
    axes[1].plot(
        deltas,
        count_logp[:, j],
        "o-",
        color=plotting.PALETTE[j],
        label=f"{c} cop{'y' if c == 1 else 'ies'}",
    )
axes[1].set(xlabel="watermark strength δ", ylabel="median log10 p", title="Count model, over seeds")
axes[1].legend()
plt.show()

# %% [markdown]
# **What to see.** More copies always strengthen the evidence, for both suspects. The
# watermark itself makes little difference here: plain rephrases ($\delta$ = 0) already differ
# from each other in their word choices, and a suspect that memorised the public one can tell
# it apart from the private ones whether or not the choices were biased by a key. The count
# model's evidence grows only slightly with $\delta$, and the GPT-2's plain and watermarked
# p-values lie within a few orders of magnitude of each other, far less than what a second copy
# adds (one training seed: which of the two is smaller is not stable between runs). In the
# paper the watermark matters more: an LLM's free rephrasings are less distinctive than the
# public/private split of a synonym grammar, and the keyed bias makes the public version's
# token choices systematically different.

# %% [markdown]
# ## Claim check
#
# Reported as measured; asserted is only what the figures must show for the text to hold: with
# the watermark, a second copy gives the GPT-2 suspect a smaller p-value than one copy, and
# for the count model, more copies give a smaller median p at every $\delta$.

# %%
assert np.all(np.diff(count_logp, axis=1) < 0), count_logp
runtime_s = time.perf_counter() - t_start
wm_gain_lm = float(np.log10(lm_p[(0.0, 1)]) - np.log10(lm_p[(2.0, 1)]))
wm_gain_count = float(count_logp[0, 0] - count_logp[2, 0])
claim(
    "stamp/3_ablations/more_copies_more_evidence",
    "Two copies of the public versions in the corpus give a smaller p-value than one",
    paper="more copies, more evidence (ablation)",
    value=float(np.log10(lm_p[(2.0, 2)])),
    check=less(float(np.log10(lm_p[(2.0, 1)])), label="log10 p with one copy"),
    verdict="illustrated",
    fmt=".1f",
)
claim(
    "stamp/3_ablations/watermark_helps",
    "Watermarked rephrasings (delta = 2) give a clearly smaller p-value than plain ones "
    "(delta = 0): at least 3 orders of magnitude (log10 p plain - log10 p watermarked > 3)",
    paper="watermarked rephrases beat plain ones (ablation)",
    value=wm_gain_lm,
    check=greater(3.0),
    verdict="not reproduced",
    caveat=f"{wm_gain_lm:+.1f} orders of magnitude for the 5-epoch GPT-2, against "
    f"{np.log10(lm_p[(2.0, 1)]) - np.log10(lm_p[(2.0, 2)]):.0f} for a second copy; one "
    f"training seed, and the sign of this small gap changed between runs; the count model gains "
    f"{wm_gain_count:.1f} in median log10 p",
    fmt=".1f",
)
glue("lm_logp_plain", float(np.log10(lm_p[(0.0, 1)])))
glue("lm_logp_wm", float(np.log10(lm_p[(2.0, 1)])))
glue("lm_logp_two", float(np.log10(lm_p[(2.0, 2)])))
glue("wm_gain_lm", wm_gain_lm)
glue("wm_gain_count", wm_gain_count)
glue("runtime_s", runtime_s)
