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
# # The test: did the model see the public versions?
#
# The data owner published one watermarked version of each of 300 items (the public key) and
# kept eight more (private keys). A suspect model that was trained on the public versions
# should find them a little more likely than the private ones, item by item; a model that never
# saw them has no reason to prefer either. STAMP's test compares the two with a one-sided paired
# t-test on perplexities (`stamp_test`). Here two small GPT-2 models are trained from scratch on
# the same background corpus, one with the public versions mixed in once, one without.

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
from scipy import stats

from icml25.common import glue, plotting, setup
from icml25.common.claims import claim, less
from icml25.common.lm import build_causal_lm, sequence_perplexity, train_lm
from icml25.stamp import BigramLM, make_background, make_items, make_synonym_grammar, stamp_test

t_start = time.perf_counter()
SCALE = setup(seed=0)
CONFIG = {
    "small": {"n_background": 3000, "epochs": 10, "d": 128, "null_seeds": 60},
    "large": {"n_background": 30000, "epochs": 10, "d": 256, "null_seeds": 200},
}[SCALE]
N_ITEMS, N_PRIVATE, DELTA = 300, 8, 2.0
grammar = make_synonym_grammar(300, 4)
print(SCALE, CONFIG)


versions = make_items(grammar, N_ITEMS, N_PRIVATE, DELTA, seed=0)
background = make_background(grammar, CONFIG["n_background"], seed=0)
public, private = versions[0], versions[1:]
share = len(public) / (len(public) + len(background))
print(f"public versions are {share:.1%} of the contaminated corpus")

# %% [markdown]
# ## Two suspect models
#
# A 2-layer GPT-2 (`build_causal_lm`, width 128) is trained for 10 epochs on the background
# corpus, with (contaminated) or without (clean) the 300 public versions inserted once. Ten
# epochs, because a model this small only memorises what it sees repeatedly; the paper's 1B
# model memorises a single occurrence in a far larger corpus.

# %%
ppl = {}
for name, corpus in [("contaminated", np.concatenate([background, public])), ("clean", background)]:
    corpus = corpus[np.random.default_rng(5).permutation(len(corpus))]
    model = build_causal_lm(
        grammar.vocab_size, n_positions=16, n_layer=2, n_embd=CONFIG["d"], n_head=4, seed=0
    )
    train_lm(model, corpus, epochs=CONFIG["epochs"], batch_size=64, lr=3e-3, seed=0, progress=False)
    ppl[name] = (
        sequence_perplexity(model, public),
        np.stack([sequence_perplexity(model, v) for v in private], axis=1),
    )
    p, t = stamp_test(*ppl[name], clip_frac=0.0)
    p_official = stamp_test(*ppl[name], clip_frac=0.025)[0]
    print(f"{name:12s}: p = {p:.2e} (t = {t:.1f}); with 2.5 % winsorising p = {p_official:.2e}")

# %% [markdown]
# ## Evidence grows with the number of items
#
# The owner can test any subset of the items; the p-value of the first $n$ items:

# %%
sizes = [10, 20, 50, 100, 200, 300]
curve = {
    name: [stamp_test(pub[:k], priv[:k], clip_frac=0.0)[0] for k in sizes]
    for name, (pub, priv) in ppl.items()
}

# %% tags=["hide-input"]
fig, ax = plt.subplots(figsize=plotting.figsize("single"))
for name, color in [("contaminated", plotting.PALETTE[3]), ("clean", plotting.PALETTE[0])]:
    ax.plot(sizes, np.log10(curve[name]), "o-", color=color, label=f"{name} model")
ax.axhline(np.log10(0.05), color="k", ls=":", lw=1, label="p = 0.05")
ax.set(
    xscale="log",
    xlabel="items tested",
    ylabel="log10 p",
    title="STAMP's p-value against items tested",
)
ax.set_xticks(sizes)
plotting.plain_log_ticks(ax, axis="x")
ax.legend()
plt.show()

# %% [markdown]
# **What to see.** For the contaminated model the evidence accumulates with every item: a
# handful already points the right way, and the full set is overwhelming. The clean model's
# p-value wanders without trend, as a p-value under the null should.

# %% [markdown]
# ## Calibration under the null
#
# A test is only as good as its false-positive rate. Training a GPT-2 per seed is too slow here,
# so the null is calibrated with a fast count model (`BigramLM`, add-0.1 bigrams) trained on
# background text only, over many seeds (new items and keys each seed, a new background every
# ten seeds). If the test is valid, its p-values are uniform. Two versions of the test are
# checked: the plain paired t-test used above, and the official recipe, which first winsorises
# 2.5 % of each tail of the public and of the averaged private perplexities separately.

# %%
null_p = {"plain paired t-test": [], "with 2.5 % winsorising": []}
for seed in range(1, CONFIG["null_seeds"] + 1):
    vs = make_items(grammar, N_ITEMS, N_PRIVATE, DELTA, seed)
    if seed == 1 or seed % 10 == 0:
        lm = BigramLM(grammar.vocab_size).fit(
            make_background(grammar, CONFIG["n_background"], seed)
        )
    pub, priv = lm.perplexity(vs[0]), np.stack([lm.perplexity(v) for v in vs[1:]], 1)
    null_p["plain paired t-test"].append(stamp_test(pub, priv, clip_frac=0.0)[0])
    null_p["with 2.5 % winsorising"].append(stamp_test(pub, priv, clip_frac=0.025)[0])
null_p = {k: np.array(v) for k, v in null_p.items()}
ks = {k: stats.kstest(v, "uniform").pvalue for k, v in null_p.items()}
fpr = {k: float(np.mean(v < 0.05)) for k, v in null_p.items()}
for k in null_p:
    print(f"{k:24s}: KS p = {ks[k]:.3f}, share of p < 0.05 = {fpr[k]:.2f}")

# %% tags=["hide-input"]
fig, axes = plt.subplots(1, 2, figsize=plotting.figsize("wide"))
colors = {"plain paired t-test": plotting.PALETTE[0], "with 2.5 % winsorising": plotting.PALETTE[3]}
for k, v in null_p.items():
    axes[0].hist(v, bins=10, range=(0, 1), color=colors[k], alpha=0.55, label=k)
    q = np.sort(v)
    axes[1].plot((np.arange(len(q)) + 0.5) / len(q), q, "o", ms=3, color=colors[k], label=k)
axes[0].axhline(len(q) / 10, color="k", ls=":", lw=1)
axes[0].set(xlabel="p-value (clean count models)", ylabel="seeds", title="Null p-values")
axes[0].legend(fontsize=8)
axes[1].plot([0, 1], [0, 1], "k:", lw=1)
axes[1].set(
    xlabel="uniform quantile", ylabel="observed p", title="QQ plot against U(0, 1)", aspect="equal"
)
plt.show()

# %% [markdown]
# **What to see.** The plain paired test's null p-values follow the diagonal roughly, as they
# should by design: the keys are random and every version is equally likely to be the public
# one before release. They are not spread evenly, though: the histogram has more mass near 0
# and 1 than in the middle (the claim check counts the share in the outer 40 % of $[0, 1]$,
# 0.4 if uniform). With 60 null models that share a background ten at a time (and version 0
# as the public one throughout), that is within what the KS test tolerates, not a clean bill
# of health: fresh backgrounds per seed and more seeds would decide it. Winsorising the two
# arrays separately breaks the symmetry a little: a single public perplexity has heavier tails
# than an average of eight private ones, so clipping its upper tail pulls its mean down more,
# towards "public < private". In this miniature that shows up as an excess of small p-values
# (points below the diagonal), which is why this book reports the plain test.

# %% [markdown]
# ## Claim check
#
# The contaminated GPT-2 is detected with $p < 10^{-4}$ on all 300 items; the clean one is not
# ($p > 0.05$); the plain test's null p-values pass a Kolmogorov-Smirnov test against the
# uniform distribution ($p_{KS} > 0.01$) with a false-positive rate at 0.05 of at most 0.12.
# The winsorised recipe's calibration is reported as measured.

# %%
p_cont, p_clean = curve["contaminated"][-1], curve["clean"][-1]
plain = "plain paired t-test"
assert p_clean > 0.05, p_clean
assert ks[plain] > 0.01, ks
runtime_s = time.perf_counter() - t_start
wins = "with 2.5 % winsorising"
claim(
    "stamp/2_test/detects_contamination",
    "The paired test on perplexities (public vs private rephrasings) gives p < 1e-4 for a GPT-2 "
    "trained on the public versions; for the same model trained without them it does not",
    paper="significant p-values on all four benchmarks seen once by a 1B model at < 0.001 % of "
    "its tokens",
    value=float(np.log10(p_cont)),
    check=less(-4.0),
    control=("clean model", float(np.log10(p_clean))),
    verdict="illustrated",
    caveat=f"at a far larger contamination share ({100 * share:.0f} % of the corpus, 10 epochs)",
    fmt=".1f",
)
claim(
    "stamp/2_test/no_false_positives",
    f"On {len(null_p[plain])} clean count models, the plain paired test rejects at level 0.05 "
    "at most 12 % of the time",
    paper="uncontaminated models give uniform p-values",
    value=fpr[plain],
    check=less(0.12),
    verdict="partly",
    caveat=f"with the plain test; the official 2.5 % winsorising rejects {fpr[wins]:.2f} of the "
    f"time (KS p = {ks[wins]:.3f})",
    seeds=len(null_p[plain]),
    numbers={
        "KS p (uniform null)": ks[plain],
        "share in the outer 40 % of [0, 1] (0.4 if uniform)": float(
            np.mean((np.array(null_p[plain]) < 0.2) | (np.array(null_p[plain]) > 0.8))
        ),
    },
    fmt=".3f",
)
glue("p_cont_log10", float(np.log10(p_cont)))
glue("p_clean", float(p_clean))
glue("ks_p", float(ks[plain]))
glue("fpr", fpr[plain])
glue("ks_p_wins", float(ks[wins]))
glue("fpr_wins", fpr[wins])
glue("share_pct", 100 * share)
glue("n_null", len(null_p[plain]))
glue("runtime_s", runtime_s)
