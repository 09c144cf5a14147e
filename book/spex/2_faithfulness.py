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
# tokens (16 to 256) is explained by SPEX, by three marginal methods and by interaction
# indices of order 2 (Faith-Banzhaf and Faith-Shap by shapiq's regressions, Shapley-Taylor by
# shapiq's permutation sampling, and Faith-Banzhaf by ridge regression as in the authors'
# code), every method with the same number of model queries (SPEX's), and scored on fresh
# random masks.
#
# **What the explicand guarantees.** A width-3 convolution with sum pooling makes the logit a
# sum of functions of three consecutive tokens: its interactions have order at most 3 and are
# local *by construction*. Sparsity is not guaranteed: the spectrum can have up to about
# $7n + 1$ nonzero coefficients (about 1,800 at $n$ = 256), against $2^b$ = 64 bins per group.
# An LLM does not guarantee low degree either; the last section looks at an attention
# classifier without that bound.

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
        " && pip install -q shap shapiq",
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
from icml25.common.pretrained import load_smollm2, smollm2_available
from icml25.spex import (
    QueryCache,
    design_delays,
    faith_banzhaf_ridge,
    faith_interactions,
    faithfulness_r2,
    fourier_to_mobius,
    index_size,
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
    "small": {
        "ns": [16, 32, 64, 128, 256],
        "reviews": [0, 1, 2, 3, 4],
        "b": 6,
        "faith_max": 64,
        "ridge_min": 64,
        "att_seeds": [0, 1, 2],
        "att_reviews": [0, 1],
        "att_epochs": 12,
        "plain_reviews": [0, 1, 2],
    },
    "large": {
        "ns": [16, 32, 64, 128, 256, 512, 1024],
        "reviews": [0, 1, 2, 3, 4],
        "b": 8,
        "faith_max": 128,
        "ridge_min": 16,
        "att_seeds": [0, 1, 2, 3, 4],
        "att_reviews": [0, 1, 2, 3, 4],
        "att_epochs": 40,
        "plain_reviews": [0, 1, 2, 3, 4],
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
# ridge), Banzhaf (OLS) and KernelSHAP (`shap`), the order-2 Faith-Banzhaf (FB-2) and
# Faith-Shap (FS-2) indices by shapiq's regression estimators and Shapley-Taylor (ST-2) by
# shapiq's permutation sampling, each with SPEX's number of queries (SPEX's refit, as in the
# authors' `fit_regression`, is least squares on the recovered keys plus the constant and all
# $n$ first-order keys); $R^2$ on 2,000 fresh
# uniform masks. An order-2 index has $1 + n + \binom n2$ coefficients; at $n$ = 128 that is
# {glue:}`faith_coeffs_128` against SPEX's {glue:}`budget_128` queries. Shapiq's regressions
# (a least-squares solve over all coefficients) are run up to $n$ = {glue:}`faith_max`
# (the authors' experiments stop them at $n \ge 64$); beyond, Faith-Banzhaf-2 is fitted by
# **ridge regression** (FB-2 ridge, `faith_banzhaf_ridge`, the authors' estimator: `RidgeCV`
# on all AND features), solved in its dual so that it costs $O(q^3)$ in the $q$ queries
# however many coefficients there are, from $n$ = {glue:}`ridge_min` on.
#
# The BCH code of each input length is built once, the first time it is needed (`icml25.spex.bch`,
# in numpy); that one-off cost is timed separately (below), so SPEX's time per explanation is
# the transform, the decoding and the refit. Every method is scored on the same 2,000 held-out
# masks per review, so the model's answers on them are computed once (`QueryCache`); the
# explainers' own queries are never cached.

# %%
t0 = time.perf_counter()
for n in CONFIG["ns"]:
    design_delays(n, "bch", 3)  # builds and caches the code
compile_s = time.perf_counter() - t0
print(f"building the BCH codes for {len(CONFIG['ns'])} lengths: {compile_s:.3f} s (once)")

# %%
METHODS = ["SPEX", "LIME", "Banzhaf", "KernelSHAP", "FB-2", "FS-2", "ST-2", "FB-2 ridge"]
FAITH = {"FB-2": "FBII", "FS-2": "FSII", "ST-2": "STII"}
INDEX_METHODS = [*FAITH, "FB-2 ridge"]
r2 = {m: {n: [] for n in CONFIG["ns"]} for m in METHODS}
seconds = {m: {n: [] for n in CONFIG["ns"]} for m in METHODS}
budget = {}
negated = {n: [] for n in CONFIG["ns"]}  # does the review contain a "not"?
for n in CONFIG["ns"]:
    for review in CONFIG["reviews"]:
        tokens = make_reviews(1, n, n_sentiment=min(6, n // 4), seed=1000 * n + review)[0][0]
        negated[n].append(bool((tokens == NOT).any()))
        f = masked_value_fn(model, tokens)
        f_test = QueryCache(f)  # the held-out masks (seed review + 1), shared by every method
        t0 = time.perf_counter()
        res = spex(f, n, b=CONFIG["b"], C=3, delays="bch", t=3, noise_tol=0.5, tol=1e-3)
        seconds["SPEX"][n].append(time.perf_counter() - t0)
        r2["SPEX"][n].append(faithfulness_r2(f_test, res.fourier, n, seed=review + 1))
        budget[n] = res.n_queries
        for name in ("LIME", "Banzhaf", "KernelSHAP"):
            t0 = time.perf_counter()
            w = marginal_baselines(f, n, res.n_queries, seed=review, methods=(name,))[name]
            seconds[name][n].append(time.perf_counter() - t0)
            r2[name][n].append(faithfulness_r2(f_test, linear_surrogate(w), n, seed=review + 1))
        for name, index in FAITH.items():
            if n > CONFIG["faith_max"] and name != "ST-2":
                continue
            t0 = time.perf_counter()
            a = faith_interactions(f, n, res.n_queries, index=index, order=2, seed=review)
            seconds[name][n].append(time.perf_counter() - t0)
            g = lambda m, a=a: mobius_eval(a, m)  # noqa: E731
            r2[name][n].append(faithfulness_r2(f_test, g, n, seed=review + 1))
        if n >= CONFIG["ridge_min"]:
            t0 = time.perf_counter()
            a = faith_banzhaf_ridge(f, n, res.n_queries, order=2, seed=review)
            seconds["FB-2 ridge"][n].append(time.perf_counter() - t0)
            g = lambda m, a=a: mobius_eval(a, m)  # noqa: E731
            r2["FB-2 ridge"][n].append(faithfulness_r2(f_test, g, n, seed=review + 1))
    print(n, budget[n], {m: np.round(r2[m][n], 3).tolist() for m in METHODS if r2[m][n]})

# %% [markdown]
# The claim check's control needs reviews in which "not" flips nothing. At the largest length
# only {glue:}`n_plain_sweep` of the five reviews happens to have no negation, so
# {glue:}`n_plain_extra` more are written without any (`p_not=0`, seeds of their own) and
# explained in the same way by SPEX and the marginal methods.

# %%
n_max = CONFIG["ns"][-1]
plain_r2 = {m: [] for m in ["SPEX", "LIME", "Banzhaf", "KernelSHAP"]}
for review in CONFIG["plain_reviews"]:
    tokens = make_reviews(1, n_max, n_sentiment=6, p_not=0.0, seed=7000 + review)[0][0]
    assert not (tokens == NOT).any()
    f = masked_value_fn(model, tokens)
    f_test = QueryCache(f)
    res = spex(f, n_max, b=CONFIG["b"], C=3, delays="bch", t=3, noise_tol=0.5, tol=1e-3)
    plain_r2["SPEX"].append(faithfulness_r2(f_test, res.fourier, n_max, seed=review + 1))
    w = marginal_baselines(f, n_max, res.n_queries, seed=review)
    for name, v in w.items():
        plain_r2[name].append(faithfulness_r2(f_test, linear_surrogate(v), n_max, seed=review + 1))
print({m: np.round(v, 3).tolist() for m, v in plain_r2.items()})

# %% tags=["hide-input"]
ns = np.array(CONFIG["ns"])
fig, axes = plt.subplots(1, 3, figsize=(13, 3.8))
STYLE = {"FB-2": (3, "s"), "FS-2": (7, "^"), "ST-2": (5, "v"), "FB-2 ridge": (6, "D")}
for m in METHODS:
    nm = np.array([n for n in ns if r2[m][n]])
    vals = np.array([r2[m][n] for n in nm])
    mean = vals.mean(1)
    color = (
        plotting.PALETTE[STYLE[m][0]]
        if m in STYLE
        else plotting.method_color("ours" if m == "SPEX" else m)
    )
    ls = "--" if m in STYLE else "-"
    marker = STYLE[m][1] if m in STYLE else "o"
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
    ylim=(-0.5, 1.02),
    title="Reconstructing the classifier on random masks",
)
axes[0].axhline(0, color="0.7", lw=0.8)
axes[2].plot(ns, [index_size(n, 2) for n in ns], "k--", marker="s", label="order-2 coefficients")
axes[2].plot(
    ns,
    [budget[n] for n in ns],
    color=plotting.method_color("ours"),
    marker="o",
    label="SPEX's queries (the budget)",
)
axes[2].set(
    xscale="log",
    yscale="log",
    xlabel="input length n (tokens)",
    ylabel="count",
    title="Coefficients of an order-2 index vs. queries",
)
axes[2].legend(fontsize=8)
axes[1].set(
    xscale="log",
    yscale="log",
    xlabel="input length n (tokens)",
    ylabel="wall time per explanation (s)",
    title="Time per explanation (BCH build excluded)",
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
# number of queries. Its $R^2$ falls at the longest reviews; our hypothesis (not tested here) is
# that the filler words' small effects add up to a dense "noise floor" in the spectrum that
# the bins cannot separate (error bars: range over the five reviews; the axis is cut at
# $-0.5$). At $n$ = 16 and 32 SPEX and shapiq's order-2 regressions (dashed) both reconstruct
# the classifier almost exactly (printout above); at $n$ = {glue:}`faith_max`, where the index
# still has fewer coefficients than queries, Faith-Banzhaf-2 reaches $R^2$
# {glue:text}`r2_fb2_faith_max:.3f` against SPEX's {glue:text}`r2_spex_faith_max:.3f` (the ridge
# fit {glue:text}`r2_fb2ridge_faith_max:.3f`): this explicand's interactions are mostly pairs,
# which an order-2 index represents exactly. (c)
# From $n$ = 128 on they have more coefficients than there are queries. The ridge fit, the
# only one still run there, reaches $R^2$ {glue:text}`r2_fb2ridge_128:.3f` (SPEX
# {glue:text}`r2_spex_128:.3f`) at $n$ = 128 and {glue:text}`r2_fb2ridge_256:.3f` (SPEX
# {glue:text}`r2_spex_256:.3f`) at $n$ = 256: under-determined, it loses faithfulness, and
# SPEX is ahead in {glue:text}`ridge_behind:s` of {glue:text}`ridge_pairs:s` (length, review)
# pairs (the claim check). Shapley-Taylor by permutation sampling is faithful on the shortest
# reviews (the printout above) but not from $n$ = {glue:}`faith_max` on ($R^2$
# {glue:text}`r2_st2_faith_max:.2f` there): at this budget `PermutationSamplingSTII` gets only a
# handful of permutations, each costing about $n^2$ queries. So the order-2 index does not stop
# being computable at these lengths (the dual ridge fit costs only $O(q^3)$); it stops being
# determined by the queries where its coefficient count crosses the budget, between $n$ = 64
# and 128 here; the paper's "about 20 features" point is not reproduced. (b) Times (one
# machine, not asserted): shapiq's Faith-Banzhaf-2 takes {glue:text}`s_fb2_faith_max:.2f` s at $n$ =
# {glue:}`faith_max` against SPEX's {glue:text}`s_spex_faith_max:.3f` s; the dual ridge
# fit, whose cost grows with the queries rather than the coefficients, takes
# {glue:text}`s_fb2ridge_n_max:.2f` s at $n$ = 256; among the methods run at every length,
# KernelSHAP is the slowest at the longest reviews ({glue:text}`s_kernelshap_n_max:.2f` s,
# SPEX {glue:text}`s_spex_n_max:.2f` s; the printout of the claim cell names the slowest
# method per length). SPEX's times exclude the one-off construction of the BCH codes
# ({glue:text}`compile_s:.3f` s for all five lengths in numpy, printed above; with galois, which
# this chapter used before, it was about 2 s per length plus about 17 s for galois' first
# decode in a process, see `icml25.spex.bch`).

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
# same way, with {glue:}`att_n_seeds` model seeds ({glue:}`att_epochs` epochs each), and
# explained at its training length, $n$ = 64, on {glue:}`att_n_reviews` reviews per model, by
# SPEX (same settings), the best of LIME and Banzhaf, and Faith-Banzhaf-2, all at SPEX's
# budget (an illustration, not a claim).

# %%
att_r2 = {"SPEX": [], "best marginal": [], "FB-2": []}
att_terms, att_accs = [], []
for seed in CONFIG["att_seeds"]:
    att = train_text_model(
        X[:3200], y[:3200], epochs=CONFIG["att_epochs"], seed=seed, arch="attention"
    )
    with torch.no_grad():
        att_accs.append(float(((att(torch.as_tensor(X[3200:])) > 0).numpy() == y[3200:]).mean()))
    for review in CONFIG["att_reviews"]:
        tokens = make_reviews(1, 64, n_sentiment=6, seed=64000 + review)[0][0]
        f = masked_value_fn(att, tokens)
        f_test = QueryCache(f)
        res = spex(f, 64, b=CONFIG["b"], C=3, delays="bch", t=3, noise_tol=0.5, tol=1e-3)
        att_terms.append(res.n_found)
        att_r2["SPEX"].append(faithfulness_r2(f_test, res.fourier, 64, seed=review + 1))
        w = marginal_baselines(f, 64, res.n_queries, seed=review, methods=("LIME", "Banzhaf"))
        att_r2["best marginal"].append(
            max(
                faithfulness_r2(f_test, linear_surrogate(v), 64, seed=review + 1)
                for v in w.values()
            )
        )
        a = faith_interactions(f, 64, res.n_queries, index="FBII", order=2, seed=review)
        g = lambda m, a=a: mobius_eval(a, m)  # noqa: E731
        att_r2["FB-2"].append(faithfulness_r2(f_test, g, 64, seed=review + 1))
print(f"attention classifier: held-out accuracy per seed {np.round(att_accs, 3).tolist()}")
print(f"terms found by SPEX {att_terms}")
print({m: np.round(v, 3).tolist() for m, v in att_r2.items()})

# %% [markdown]
# **What to see.** The attention classifier learned little of the task in this budget
# (held-out accuracy {glue:text}`att_acc:.2f` on average over the seeds, range
# {glue:text}`att_acc_min:.2f` to {glue:text}`att_acc_max:.2f`, near chance, against the CNN's
# {glue:text}`test_acc:.2f`), so it is a weak stand-in for an LLM and its $R^2$ below describes
# a model that is near chance; but
# its value function has no order bound, and there SPEX's near-perfect reconstruction is gone:
# mean $R^2$ {glue:text}`att_r2_spex:.2f` at $n$ = 64 (the CNN:
# {glue:text}`r2_spex_faith_max:.2f`), against {glue:text}`att_r2_marginal:.2f` for the best
# marginal method and {glue:text}`att_r2_fb2:.2f` for Faith-Banzhaf-2. Without sparsity and
# low degree given by construction, SPEX's advantage is not guaranteed.
#
# **Why not an LLM.** SmolLM2-135M (the book's offline LLM) would be the natural explicand.
# One query is one forward pass; the cell below times a batch of
# {glue:}`llm_batch` masked 64-token inputs on this CPU thread.

# %%
llm_per_query = float("nan")
if smollm2_available():
    lm, tok = load_smollm2()
    text = " ".join(word(t) for t in make_reviews(1, 64, seed=64000)[0][0])
    ids = tok(text, return_tensors="pt").input_ids[:, :64]
    batch = ids.repeat(8, 1)
    batch[:, ::2] = tok.unk_token_id or 0  # half the tokens masked, as SPEX's queries do
    with torch.no_grad():
        lm(batch[:1])  # warm-up
        t0 = time.perf_counter()
        lm(batch)
        llm_per_query = (time.perf_counter() - t0) / len(batch)
    del lm
print(f"SmolLM2-135M: {llm_per_query:.3f} s per query; SPEX at n = 64 needs {budget[64]} queries")

# %% [markdown]
# At {glue:text}`llm_per_query:.2f` s per query, one SPEX explanation at $n$ = 64 (its
# {glue:}`budget_64` queries) would take about {glue:text}`llm_spex_min:.0f` minutes, and
# the baselines as long again each: far beyond the three-minute budget of a notebook, so the
# LLM is not explained here (at `large` scale on a GPU it would be the next experiment).

# %% [markdown]
# ## Claim check
#
# At the largest length, SPEX's $R^2$ is above every marginal method's by at least 0.05 for every
# review that contains a negation (an interaction); the control is the same difference on the
# {glue:}`n_plain` reviews without one (the {glue:}`n_plain_sweep` of the sweep and the
# {glue:}`n_plain_extra` written without "not"), asserted to fail on its mean. At every length
# SPEX's mean $R^2$ over the reviews is above every marginal method's, and the three strongest
# recovered pairwise interactions of the example all involve "not". **Interaction indices** (no
# timing is asserted): at the lengths where an order-2 index has more coefficients than SPEX's
# budget ($n$ = 128, 256), SPEX's $R^2$ minus the ridge Faith-Banzhaf-2's must be positive for
# every review; the control is the same difference at
# $n$ = 64, where the index has fewer coefficients than queries, and must fail. The verdict is
# fixed in the code, *not reproduced* (the outcome of the runs that built the chapter: SPEX is not
# ahead on every pair); if SPEX were ahead on every pair the check would stop the notebook and the
# verdict would need its control.

# %%
spex_max = np.array(r2["SPEX"][n_max])
MARGINAL = ["LIME", "Banzhaf", "KernelSHAP"]
best_marginal = np.max([r2[m][n_max] for m in MARGINAL], axis=0)
neg = np.array(negated[n_max])
plain_gap = np.concatenate(
    [
        spex_max[~neg] - best_marginal[~neg],
        np.array(plain_r2["SPEX"]) - np.max([plain_r2[m] for m in MARGINAL], axis=0),
    ]
)
assert neg.sum() >= 3 and plain_gap.size >= 3, (negated, plain_gap)
assert all(np.mean(r2["SPEX"][n]) > max(np.mean(r2[m][n]) for m in MARGINAL) for n in CONFIG["ns"])
assert top_pair_has_not, pairs
runtime_s = time.perf_counter() - t_start
gain = float(np.mean(spex_max) - np.mean(best_marginal))
claim(
    "spex/2_faithfulness/beats_marginal_with_interactions",
    f"At n = {n_max} tokens, SPEX reconstructs the classifier on held-out masks better (R2) than "
    "the best marginal method, by more than 0.05, on every review with a negation; on reviews "
    "without one it does not",
    paper="up to 20 % higher R2 than marginal methods at large n (sentiment, HotpotQA, DROP)",
    value=spex_max[neg] - best_marginal[neg],
    check=greater(0.05),
    control=("reviews without a negation", plain_gap),
    verdict="illustrated",
    over="reviews",
    numbers={"SPEX R2": spex_max.mean(), "best marginal R2": best_marginal.mean()},
    fmt=".3f",
)
nf = CONFIG["faith_max"]
over_n = [n for n in CONFIG["ns"] if index_size(n, 2) > budget[n] and r2["FB-2 ridge"][n]]
under_n = [n for n in CONFIG["ns"] if index_size(n, 2) <= budget[n] and r2["FB-2 ridge"][n]]
assert over_n and under_n, (over_n, under_n)


def ridge_gap(lengths):
    return np.concatenate(
        [np.array(r2["SPEX"][n]) - np.array(r2["FB-2 ridge"][n]) for n in lengths]
    )


gap_over, gap_under = ridge_gap(over_n), ridge_gap(under_n)
ahead = f"SPEX is ahead in {int((gap_over > 0).sum())} of {gap_over.size} (n, review) pairs"
counts = (
    f"1 + n + n(n-1)/2 = {index_size(over_n[0], 2)} coefficients against {budget[over_n[0]]} "
    f"queries at n = {over_n[0]}, {index_size(under_n[-1], 2)} against {budget[under_n[-1]]} "
    f"at n = {under_n[-1]}"
)
under_txt = (
    f"where the index has fewer coefficients than queries (n = {', '.join(map(str, under_n))}) "
    f"SPEX is behind in {int((gap_under < 0).sum())} of {gap_under.size} reviews (mean gap "
    f"{gap_under.mean():.3f})"
)
over_pairs = [(n, i) for n in over_n for i in range(len(r2["SPEX"][n]))]
behind_txt = "; ".join(
    f"n = {n}, review {i}, {'with' if negated[n][i] else 'without'} a negation: SPEX R2 "
    f"{r2['SPEX'][n][i]:.3f}, ridge {r2['FB-2 ridge'][n][i]:.3f}"
    for (n, i), g in zip(over_pairs, gap_over, strict=True)
    if g <= 0
)
ctrl_kw = {}
stop_verdict = "not reproduced"
stop_caveat = (
    f"{ahead}, not in all ({behind_txt}). Once the order-2 index has more coefficients "
    f"than SPEX has queries ({counts}), the ridge fit loses faithfulness on the other "
    "reviews but stays computable (dual, O(q^3)): the index becomes under-determined, it "
    f"does not stop being computable; {under_txt}. Timings are reported, not asserted"
)
print("indices_stop_scaling:", stop_verdict, np.round(gap_over, 3), np.round(gap_under, 3))
claim(
    "spex/2_faithfulness/indices_stop_scaling",
    f"Where an order-2 index has more coefficients than SPEX's query budget (n = "
    f"{', '.join(map(str, over_n))}), Faith-Banzhaf-2 by ridge regression at that budget is "
    "less faithful (R2) than SPEX in every review; where it has fewer (n = "
    f"{', '.join(map(str, under_n))}) it is not",
    paper="interaction indices are computable only up to about 20 features",
    value=gap_over,
    check=greater(0.0),
    verdict=stop_verdict,
    caveat=stop_caveat,
    over="(n, review) pairs",
    numbers={
        **{f"FB-2 ridge R2 at n = {n}": np.mean(r2["FB-2 ridge"][n]) for n in over_n},
        **{f"SPEX R2 at n = {n}": np.mean(r2["SPEX"][n]) for n in over_n},
        f"FB-2 (shapiq) R2 at n = {nf}": np.mean(r2["FB-2"][nf]),
        f"FB-2 ridge s at n = {n_max}": np.median(seconds["FB-2 ridge"][n_max]),
        f"SPEX s at n = {n_max}": np.median(seconds["SPEX"][n_max]),
    },
    fmt=".3g",
    **ctrl_kw,
)
glue("ridge_min", CONFIG["ridge_min"])
glue("ridge_behind", int((ridge_gap(over_n) > 0).sum()))
glue("ridge_pairs", int(ridge_gap(over_n).size))
slowest = {n: max(METHODS[:4], key=lambda m, n=n: np.median(seconds[m][n])) for n in CONFIG["ns"]}
print("slowest of SPEX and the marginal methods, per n:", slowest)
glue("compile_s", compile_s)
glue("faith_max", nf)
glue("faith_coeffs_128", 1 + 128 + 128 * 127 // 2)
glue("budget_128", budget[128])
glue("budget_64", budget[64])
for m in METHODS:
    key = m.replace("-", "").replace(" ", "").lower()
    glue(f"r2_{key}_faith_max", float(np.mean(r2[m][nf])))
    glue(f"s_{key}_faith_max", float(np.median(seconds[m][nf])))
    glue(f"s_{key}_n_max", float(np.median(seconds[m][n_max])) if seconds[m][n_max] else 0.0)
for n in (128, 256):
    glue(f"r2_fb2ridge_{n}", float(np.mean(r2["FB-2 ridge"][n])))
    glue(f"r2_spex_{n}", float(np.mean(r2["SPEX"][n])))
    glue(f"coeffs_{n}", index_size(n, 2))
glue("coeffs_64", index_size(64, 2))
glue("r2_fb2_16", float(np.mean(r2["FB-2"][CONFIG["ns"][0]])))
assert all(np.isfinite(v).all() for v in att_r2.values())
glue("att_acc", float(np.mean(att_accs)))
glue("att_acc_min", float(np.min(att_accs)))
glue("att_acc_max", float(np.max(att_accs)))
glue("att_n_seeds", len(CONFIG["att_seeds"]))
glue("att_n_reviews", len(CONFIG["att_reviews"]))
glue("att_epochs", CONFIG["att_epochs"])
glue("llm_batch", 8)
glue("llm_per_query", llm_per_query)
glue("llm_spex_min", llm_per_query * budget[64] / 60)
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
glue("n_plain", int(plain_gap.size))
glue("n_plain_sweep", int((~neg).sum()))
glue("n_plain_extra", len(CONFIG["plain_reviews"]))
glue("budget_min", budget[CONFIG["ns"][0]])
glue("budget_max", budget[n_max])
glue("runtime_s", runtime_s)
