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
# # The headline in miniature: faithfulness as the input grows
#
# The paper explains LLMs on inputs of up to about a thousand words and measures how well each
# explanation reconstructs the model's output on random masks ($R^2$). Here the explicand is a
# small sentiment classifier trained from scratch on synthetic reviews in which "not" flips the
# next sentiment word, so its decisions contain pairwise interactions. Each review of $n$
# tokens (16 to 256) is explained by SPEX, by three marginal methods and by two interaction
# indices of order 2 (Faith-Banzhaf and Faith-Shap by regression, from `shapiq`), every
# method with the same number of model queries (SPEX's), and scored on fresh random masks.
#
# **What the explicand guarantees.** A width-3 convolution with sum pooling makes the logit a
# sum of functions of three consecutive tokens: its interactions have order at most 3 and are
# local *by construction*, so SPEX's sparse, low-degree assumption holds by design here. An
# LLM gives no such guarantee; the last section looks at an attention classifier without it.

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
        " && pip install -q galois shap",
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
from icml25.spex import (
    design_delays,
    faith_interactions,
    faithfulness_r2,
    fourier_to_mobius,
    linear_surrogate,
    marginal_baselines,
    mobius_eval,
    spex,
    to_index,
)
from icml25.spex.text import NOT, make_reviews, masked_value_fn, train_text_model, word

t_start = time.perf_counter()
SCALE = setup(seed=0)
CONFIG = {
    "small": {"ns": [16, 32, 64, 128, 256], "reviews": [0, 1, 2, 3, 4], "b": 6, "faith_max": 64},
    "large": {
        "ns": [16, 32, 64, 128, 256, 512, 1024],
        "reviews": [0, 1, 2, 3, 4],
        "b": 8,
        "faith_max": 128,
    },
}[SCALE]
print(SCALE, CONFIG)

# %% [markdown]
# ## The explicand
#
# `make_reviews` writes 64-token reviews: filler words, six sentiment words, each negated by a
# preceding "not" with probability 0.4; the label is the sign of the negation-aware sentiment
# sum. `TextCNN` (an embedding, one convolution of width 3, sum pooling, a linear read-out) is
# trained with fillers randomly replaced by `<mask>` so that masking an irrelevant word is
# neutral to it, roughly as it is to a large language model. The value function of a review is
# the model's logit with masked words replaced by `<mask>`.

# %%
X, y = make_reviews(4000, 64, seed=0)
model = train_text_model(X[:3200], y[:3200], epochs=24, seed=0)
with torch.no_grad():
    test_acc = float(((model(torch.as_tensor(X[3200:])) > 0).numpy() == y[3200:]).mean())
print(f"held-out accuracy {test_acc:.3f}")

# %% [markdown]
# ## Faithfulness against input length
#
# For each length and each of five reviews: SPEX with BCH delays ($b$ = 6, $C$ = 3, $t$ = 3,
# singleton tolerance 0.5 because the model is only approximately sparse), then LIME (weighted
# ridge), Banzhaf (OLS) and KernelSHAP (`shap`), and the order-2 Faith-Banzhaf (FB-2) and
# Faith-Shap (FS-2) indices by shapiq's regression estimators, each with SPEX's number of
# queries; $R^2$ on 2,000 fresh uniform masks. An order-2 index has $1 + n + \binom n2$
# coefficients; at $n$ = 128 that is {glue:}`faith_coeffs_128` against SPEX's
# {glue:}`budget_128` queries, so the regressions are run up to $n$ =
# {glue:}`faith_max` only (the authors' experiments also stop them at $n \ge 64$).
#
# Galois builds one BCH code per input length the first time it is needed. That one-off cost
# is timed separately (below), so SPEX's time per explanation is the transform, the decoding
# and the refit.

# %%
t0 = time.perf_counter()
for n in CONFIG["ns"]:
    design_delays(n, "bch", 3)  # builds and caches the code (galois)
compile_s = time.perf_counter() - t0
print(f"building the BCH codes for {len(CONFIG['ns'])} lengths: {compile_s:.1f} s (once)")

# %%
METHODS = ["SPEX", "LIME", "Banzhaf", "KernelSHAP", "FB-2", "FS-2"]
FAITH = {"FB-2": "FBII", "FS-2": "FSII"}
r2 = {m: {n: [] for n in CONFIG["ns"]} for m in METHODS}
seconds = {m: {n: [] for n in CONFIG["ns"]} for m in METHODS}
budget = {}
negated = {n: [] for n in CONFIG["ns"]}  # does the review contain a "not"?
for n in CONFIG["ns"]:
    for review in CONFIG["reviews"]:
        tokens = make_reviews(1, n, n_sentiment=min(6, n // 4), seed=1000 * n + review)[0][0]
        negated[n].append(bool((tokens == NOT).any()))
        f = masked_value_fn(model, tokens)
        t0 = time.perf_counter()
        res = spex(f, n, b=CONFIG["b"], C=3, delays="bch", t=3, noise_tol=0.5, tol=1e-3)
        seconds["SPEX"][n].append(time.perf_counter() - t0)
        r2["SPEX"][n].append(faithfulness_r2(f, res.fourier, n, seed=review + 1))
        budget[n] = res.n_queries
        for name in ("LIME", "Banzhaf", "KernelSHAP"):
            t0 = time.perf_counter()
            w = marginal_baselines(f, n, res.n_queries, seed=review, methods=(name,))[name]
            seconds[name][n].append(time.perf_counter() - t0)
            r2[name][n].append(faithfulness_r2(f, linear_surrogate(w), n, seed=review + 1))
        for name, index in FAITH.items():
            if n > CONFIG["faith_max"]:
                continue
            t0 = time.perf_counter()
            a = faith_interactions(f, n, res.n_queries, index=index, order=2, seed=review)
            seconds[name][n].append(time.perf_counter() - t0)
            g = lambda m, a=a: mobius_eval(a, m)  # noqa: E731
            r2[name][n].append(faithfulness_r2(f, g, n, seed=review + 1))
    print(n, budget[n], {m: np.round(r2[m][n], 3).tolist() for m in METHODS if r2[m][n]})

# %% tags=["hide-input"]
ns = np.array(CONFIG["ns"])
fig, axes = plt.subplots(1, 2, figsize=plotting.figsize("wide"))
for m in METHODS:
    nm = np.array([n for n in ns if r2[m][n]])
    vals = np.array([r2[m][n] for n in nm])
    mean = vals.mean(1)
    color = {"FB-2": plotting.PALETTE[3], "FS-2": plotting.PALETTE[7]}.get(
        m, plotting.method_color("ours" if m == "SPEX" else m)
    )
    ls = "--" if m in FAITH else "-"
    marker = {"FB-2": "s", "FS-2": "^"}.get(m, "o")
    axes[0].errorbar(
        nm,
        mean,
        yerr=[mean - vals.min(1), vals.max(1) - mean],
        marker=marker,
        capsize=3,
        color=color,
        ls=ls,
        label=m,
    )
    times = [np.median(seconds[m][n]) for n in nm]
    axes[1].plot(nm, times, marker=marker, ls=ls, color=color, label=m)
axes[0].set(
    xscale="log",
    xlabel="input length n (tokens)",
    ylabel="faithfulness $R^2$",
    ylim=(min(0.0, axes[0].get_ylim()[0]), 1.02),
    title="Reconstructing the classifier on random masks",
)
axes[1].set(
    xscale="log",
    yscale="log",
    xlabel="input length n (tokens)",
    ylabel="wall time per explanation (s)",
    title="Time per explanation (BCH code built once, not included)",
)
for ax in axes:
    ax.set_xticks(ns)
    plotting.plain_log_ticks(ax, axis="x")
axes[0].legend(fontsize=8)
plotting.panel_labels(axes)
plt.show()

# %% [markdown]
# **What to see.** (a) The marginal methods can only add up one number per word, so they
# miss the "not" x word interactions and stay well below 1; SPEX reconstructs the classifier
# almost perfectly on short reviews and stays ahead of them as the reviews grow, with the same
# number of queries. Its $R^2$ falls at the longest reviews, where the filler words' small
# effects add up to a dense "noise floor" in the spectrum that the bins cannot separate (error
# bars: range over the five reviews). The order-2 interaction indices (dashed) are **more**
# faithful than SPEX wherever they were run (at $n$ = {glue:}`faith_max`: Faith-Banzhaf-2
# $R^2$ {glue:text}`r2_fb2_faith_max:.3f`, SPEX {glue:text}`r2_spex_faith_max:.3f`): this
# explicand's interactions are mostly pairs, which an order-2 index represents exactly. They
# are not run beyond $n$ = {glue:}`faith_max`, by this chapter's configuration, because from
# $n$ = 128 on they have more coefficients than there are queries
# ({glue:}`faith_coeffs_128` against {glue:}`budget_128`); the figure does not show them
# failing anywhere, so the paper's "about 20 features" limit is **not reproduced** at this
# scale. (b) Their time grows fastest
# ({glue:text}`s_fb2_faith_max:.2f` s at $n$ = {glue:}`faith_max` against SPEX's
# {glue:text}`s_spex_faith_max:.3f` s); among the methods run at every length, KernelSHAP is
# the slowest at the longest reviews ({glue:text}`s_kernelshap_n_max:.2f` s at $n$ = 256,
# SPEX {glue:text}`s_spex_n_max:.2f` s; the printout of the claim cell names the slowest
# method per length). SPEX's times exclude galois' one-off construction of the
# BCH codes ({glue:text}`compile_s:.1f` s for all five lengths, printed above).

# %% [markdown]
# ## What SPEX finds
#
# The recovered spectrum, converted to Möbius coefficients and then to second-order
# Faith-Banzhaf interactions (`to_index(..., "FBII", order=2)`), for one 32-token review:

# %%
tokens = make_reviews(1, 32, n_sentiment=6, seed=32000)[0][0]
f = masked_value_fn(model, tokens)
res = spex(f, 32, b=CONFIG["b"], C=3, delays="bch", t=3, noise_tol=0.5, tol=1e-3)
fbii = to_index(fourier_to_mobius(res.fourier), "FBII", order=2)
print(" ".join(word(t) for t in tokens))
pairs = sorted(((T, v) for T, v in fbii.items() if len(T) == 2), key=lambda kv: -abs(kv[1]))[:5]
for T, v in pairs:
    print(f"{v:+.2f}  {' x '.join(f'{word(tokens[i])}@{i}' for i in T)}")
top_pair_has_not = all(any(word(tokens[i]) == "not" for i in T) for T, _ in pairs[:3])

# %% [markdown]
# **What to see.** The strongest pairwise interactions are "not" with the sentiment word that
# follows it, the structure the labels were built with, and exactly what an additive
# explanation has no place for.

# %% [markdown]
# ## An explicand without the guarantee
#
# The CNN's interactions are of order $\le 3$ by construction. `AttentionClassifier` (token and
# position embeddings, one two-head self-attention block, mean pooling) has no such bound: the
# softmax couples every position with every other. It is trained on the same reviews in the
# same way and explained at its training length, $n$ = 64, by SPEX (same settings), the best
# of LIME and Banzhaf, and Faith-Banzhaf-2, all at SPEX's budget (one model seed, five
# reviews: an illustration, not a claim).

# %%
att = train_text_model(X[:3200], y[:3200], epochs=24, seed=0, arch="attention")
with torch.no_grad():
    att_acc = float(((att(torch.as_tensor(X[3200:])) > 0).numpy() == y[3200:]).mean())
att_r2 = {"SPEX": [], "best marginal": [], "FB-2": []}
att_terms = []
for review in CONFIG["reviews"]:
    tokens = make_reviews(1, 64, n_sentiment=6, seed=64000 + review)[0][0]
    f = masked_value_fn(att, tokens)
    res = spex(f, 64, b=CONFIG["b"], C=3, delays="bch", t=3, noise_tol=0.5, tol=1e-3)
    att_terms.append(len(res.fourier))
    att_r2["SPEX"].append(faithfulness_r2(f, res.fourier, 64, seed=review + 1))
    w = marginal_baselines(f, 64, res.n_queries, seed=review, methods=("LIME", "Banzhaf"))
    att_r2["best marginal"].append(
        max(faithfulness_r2(f, linear_surrogate(v), 64, seed=review + 1) for v in w.values())
    )
    a = faith_interactions(f, 64, res.n_queries, index="FBII", order=2, seed=review)
    g = lambda m, a=a: mobius_eval(a, m)  # noqa: E731
    att_r2["FB-2"].append(faithfulness_r2(f, g, 64, seed=review + 1))
print(f"attention classifier: held-out accuracy {att_acc:.3f}; terms found by SPEX {att_terms}")
print({m: np.round(v, 3).tolist() for m, v in att_r2.items()})

# %% [markdown]
# **What to see.** The attention classifier learned little of the task in this budget
# (held-out accuracy {glue:text}`att_acc:.2f`, against the CNN's {glue:text}`test_acc:.2f`), so
# it is a weak stand-in for an LLM; but its value function has no order bound, and there
# SPEX's near-perfect reconstruction is gone: mean $R^2$ {glue:text}`att_r2_spex:.2f` at
# $n$ = 64 (the CNN: {glue:text}`r2_spex_faith_max:.2f`), against
# {glue:text}`att_r2_marginal:.2f` for the best marginal method and
# {glue:text}`att_r2_fb2:.2f` for Faith-Banzhaf-2. Without sparsity and low degree given by
# construction, SPEX's advantage is not guaranteed.

# %% [markdown]
# ## Claim check
#
# At the largest length, SPEX's $R^2$ is above every marginal method's by at least 0.05 for
# every review that contains a negation (an interaction); reviews without one are reported, not
# asserted. At every length SPEX's mean $R^2$ over the reviews is above every marginal
# method's, and the three strongest recovered pairwise interactions of the example all involve
# "not". **Interaction indices**: at the largest length where the order-2 regressions were run,
# the time per explanation of Faith-Banzhaf-2 against SPEX's, per review (one machine's
# timings: illustrated).

# %%
n_max = CONFIG["ns"][-1]
spex_max = np.array(r2["SPEX"][n_max])
MARGINAL = ["LIME", "Banzhaf", "KernelSHAP"]
best_marginal = np.max([r2[m][n_max] for m in MARGINAL], axis=0)
neg = np.array(negated[n_max])
assert neg.any() and (~neg).any(), negated
assert all(np.mean(r2["SPEX"][n]) > max(np.mean(r2[m][n]) for m in MARGINAL) for n in CONFIG["ns"])
assert top_pair_has_not, pairs
runtime_s = time.perf_counter() - t_start
gain = float(np.mean(spex_max) - np.mean(best_marginal))
claim(
    "spex/2_faithfulness/beats_marginal_with_interactions",
    f"At n = {n_max} tokens, SPEX reconstructs the classifier on held-out masks better (R2) than "
    "the best marginal method, by more than 0.05, on every review with a negation; on a review "
    "without one it does not",
    paper="up to 20 % higher R2 than marginal methods at large n (sentiment, HotpotQA, DROP)",
    value=spex_max[neg] - best_marginal[neg],
    check=greater(0.05),
    control=("reviews without a negation", spex_max[~neg] - best_marginal[~neg]),
    verdict="illustrated",
    over="reviews with a negation",
    numbers={"SPEX R2": spex_max.mean(), "best marginal R2": best_marginal.mean()},
    fmt=".3f",
)
nf = CONFIG["faith_max"]
time_ratio = np.array(seconds["FB-2"][nf]) / np.array(seconds["SPEX"][nf])
claim(
    "spex/2_faithfulness/indices_stop_scaling",
    f"At n = {nf} tokens, order-2 Faith-Banzhaf interactions by regression are no longer "
    "usable: SPEX is more faithful (R2) at the same query budget, in every review",
    paper="interaction indices are computable only up to about 20 features",
    value=np.array(r2["SPEX"][nf]) - np.array(r2["FB-2"][nf]),
    check=greater(0.0),
    verdict="not reproduced",
    caveat=f"not reproduced at this scale: at n = {nf} FB-2 is still computable and more faithful "
    f"than SPEX (timings, not asserted, in the numbers); beyond {nf} it was not run (by "
    f"configuration: at n = 128 an order-2 index has {1 + 128 + 128 * 127 // 2} coefficients "
    f"against {budget[128]} queries), so nothing here shows where it stops",
    over="reviews",
    numbers={
        "FB-2 s": np.median(seconds["FB-2"][nf]),
        "SPEX s": np.median(seconds["SPEX"][nf]),
        "FB-2 R2": np.mean(r2["FB-2"][nf]),
        "FS-2 R2": np.mean(r2["FS-2"][nf]),
        "SPEX R2": np.mean(r2["SPEX"][nf]),
    },
    fmt=".3g",
)
glue("time_ratio_fb2", float(np.median(time_ratio)))
slowest = {n: max(METHODS[:4], key=lambda m, n=n: np.median(seconds[m][n])) for n in CONFIG["ns"]}
print("slowest of SPEX and the marginal methods, per n:", slowest)
glue("compile_s", compile_s)
glue("faith_max", nf)
glue("faith_coeffs_128", 1 + 128 + 128 * 127 // 2)
glue("budget_128", budget[128])
for m in METHODS:
    key = m.replace("-", "").lower()
    glue(f"r2_{key}_faith_max", float(np.mean(r2[m][nf])))
    glue(f"s_{key}_faith_max", float(np.median(seconds[m][nf])))
    glue(f"s_{key}_n_max", float(np.median(seconds[m][n_max])) if seconds[m][n_max] else 0.0)
glue("r2_fb2_16", float(np.mean(r2["FB-2"][CONFIG["ns"][0]])))
assert all(np.isfinite(v).all() for v in att_r2.values())
glue("att_acc", att_acc)
glue("att_r2_spex", float(np.mean(att_r2["SPEX"])))
glue("att_r2_marginal", float(np.mean(att_r2["best marginal"])))
glue("att_r2_fb2", float(np.mean(att_r2["FB-2"])))
glue("test_acc", test_acc)
glue("n_max", n_max)
glue("spex_r2_max", float(spex_max.mean()))
glue("marginal_r2_max", float(best_marginal.mean()))
glue("gain_r2", gain)
glue("gain_rel_pct", 100 * gain / float(best_marginal.mean()))
glue("n_reviews", len(neg))
glue("n_negated", int(neg.sum()))
glue("n_plain", int((~neg).sum()))
glue("budget_min", budget[CONFIG["ns"][0]])
glue("budget_max", budget[n_max])
glue("runtime_s", runtime_s)
