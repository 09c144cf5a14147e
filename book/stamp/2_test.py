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
from icml25.stamp import (
    BigramLM,
    effect_size,
    make_background,
    make_items,
    make_synonym_grammar,
    split_public,
    stamp_test,
)

t_start = time.perf_counter()
SCALE = setup(seed=0)
CONFIG = {
    "small": {"n_background": 3000, "epochs": 10, "d": 128, "null_seeds": 150},
    "large": {"n_background": 30000, "epochs": 10, "d": 256, "null_seeds": 500},
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
# ## Inside the test: the per-item differences
#
# What `ttest_rel` sees is one number per item, $d_i = p_i - q_i$: the public version's
# perplexity minus the mean of its eight private versions' perplexities. The test asks whether
# their mean is below 0.

# %%
d = {name: pub - priv.mean(axis=1) for name, (pub, priv) in ppl.items()}
eff = {name: effect_size(*v) for name, v in ppl.items()}
for name, (m, lo, hi) in eff.items():
    print(f"{name:12s}: mean d = {m:6.2f}, 95 % CI [{lo:.2f}, {hi:.2f}]")

# %% tags=["hide-input"]
fig, axes = plt.subplots(1, 2, figsize=plotting.figsize("wide"), sharey=True)
bins = np.histogram_bin_edges(np.concatenate(list(d.values())), 40)
for ax, (name, color) in zip(
    axes, [("contaminated", plotting.PALETTE[3]), ("clean", plotting.PALETTE[0])], strict=True
):
    m, lo, hi = eff[name]
    ax.hist(d[name], bins, color=color, alpha=0.7)
    ax.axvline(0, color="k", lw=1, ls=":")
    ax.axvline(m, color="k", lw=1.5)
    ax.axvspan(lo, hi, color="k", alpha=0.15)
    below = np.mean(d[name] < 0)
    ax.set(
        xlabel="d = public − mean private perplexity",
        title=f"{name}: mean {m:.1f}, {below:.0%} of items below 0",
    )
axes[0].set_ylabel("items")
plt.show()

# %% [markdown]
# **What to see.** The clean model's mean difference is {glue:text}`d_clean:+.1f` (line: the
# mean, band: its 95 % interval, {glue:text}`d_clean_low:+.2f` to {glue:text}`d_clean_high:+.1f`):
# not significantly different from 0, but not centred on it either; if anything this clean
# model finds the public versions slightly *less* likely. The contaminated model's differences
# (mean {glue:text}`d_cont:+.1f`) are shifted left by a small amount compared with their
# spread ({glue:text}`share_below_cont:.0%` of items below 0, against
# {glue:text}`share_below_clean:.0%` for the clean model): no single item proves anything,
# but 300 small, same-signed shifts do. Each difference is taken within one item, so the large
# item-to-item spread of perplexities (some templates are simply harder) cancels out.

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
# log10 p rises steadily, from {glue:text}`clean_log10p_first:.2f` at 10 items to
# {glue:text}`clean_log10p_last:.2f` at 300: its mean difference is positive (above), so the
# one-sided test moves towards p = 1 as items accumulate. That is not what a p-value under the
# null does (it would wander without trend); this one clean GPT-2 leans the other way.


# %% [markdown]
# ## Calibration under the null
#
# A test is only as good as its false-positive rate. Training a GPT-2 per seed is too slow here,
# so the null is calibrated with a fast count model (`BigramLM`, add-0.1 bigrams) trained on
# background text only. Every seed draws **fresh** items, keys and background sentences, and
# the public version of each item is drawn at random among its nine versions (`split_public`),
# so that no key plays the public role throughout. If the test is valid, its p-values are
# uniform. Two versions of the test are checked: the plain paired t-test used above, and the
# official recipe, which first winsorises 2.5 % of each tail of the public perplexities and of
# each private version's perplexities separately. The same seeds with the public versions
# added to the count model's training text are the control: there the test must reject.

# %%
TESTS = {"plain paired t-test": 0.0, "with 2.5 % winsorising": 0.025}
null_p = {k: [] for k in TESTS}
fixed_p = []  # version 0 public for every item (one public key, as in the paper)
contaminated_p = []
for seed in range(1, CONFIG["null_seeds"] + 1):
    vs = make_items(grammar, N_ITEMS, N_PRIVATE, DELTA, seed)
    public_index = np.random.default_rng(10_000 + seed).integers(0, 1 + N_PRIVATE, N_ITEMS)
    pub_v, priv_v = split_public(vs, public_index)
    lm = BigramLM(grammar.vocab_size).fit(make_background(grammar, CONFIG["n_background"], seed))
    per_version = np.stack([lm.perplexity(v) for v in vs], axis=1)  # (n, 9)
    rows = np.arange(N_ITEMS)
    pub = per_version[rows, public_index]
    priv = np.stack([np.delete(per_version[i], public_index[i]) for i in rows])
    for k, clip in TESTS.items():
        null_p[k].append(stamp_test(pub, priv, clip_frac=clip)[0])
    fixed_p.append(stamp_test(per_version[:, 0], per_version[:, 1:])[0])
    lm.fit(pub_v)  # the control: the same count model, now also trained on the public versions
    seen = np.stack([lm.perplexity(v) for v in priv_v], axis=1)
    contaminated_p.append(stamp_test(lm.perplexity(pub_v), seen)[0])
null_p = {k: np.array(v) for k, v in null_p.items()}
fixed_p, contaminated_p = np.array(fixed_p), np.array(contaminated_p)
n_null = len(fixed_p)
ks = {k: stats.kstest(v, "uniform").pvalue for k, v in null_p.items()}
fpr = {k: float(np.mean(v < 0.05)) for k, v in null_p.items()}
outer = {k: float(np.mean((v < 0.2) | (v > 0.8))) for k, v in null_p.items()}
fpr_hi = {
    k: stats.binomtest(int(round(v * n_null)), n_null).proportion_ci().high for k, v in fpr.items()
}
for k in null_p:
    print(
        f"{k:24s}: KS p = {ks[k]:.3f}, share of p < 0.05 = {fpr[k]:.3f} (95 % CI up to "
        f"{fpr_hi[k]:.3f}), share in the outer 40 % = {outer[k]:.2f}"
    )
both = null_p["plain paired t-test"] < 0.05, null_p["with 2.5 % winsorising"] < 0.05
print(f"rejected by winsorising only: {np.sum(~both[0] & both[1])}, by the plain test only: "
      f"{np.sum(both[0] & ~both[1])}")  # fmt: skip
# Does winsorising reject more often? The paired quantity is the rejection at 0.05, seed by
# seed: only the discordant seeds carry information (exact binomial / McNemar test).
n_wins_only, n_plain_only = int(np.sum(~both[0] & both[1])), int(np.sum(both[0] & ~both[1]))
mcnemar_p = stats.binomtest(n_wins_only, n_wins_only + n_plain_only).pvalue
rej_diff = fpr["with 2.5 % winsorising"] - fpr["plain paired t-test"]
print(f"paired rejection difference {rej_diff:+.3f}: discordant seeds {n_wins_only} "
      f"(winsorising only) vs {n_plain_only}, exact binomial p = {mcnemar_p:.3f}")  # fmt: skip
ks_fixed = stats.kstest(fixed_p, "uniform").pvalue
outer_fixed = float(np.mean((fixed_p < 0.2) | (fixed_p > 0.8)))
print(f"one public key throughout: share of p < 0.05 = {np.mean(fixed_p < 0.05):.3f}, "
      f"KS p = {ks_fixed:.3f}, share in the outer 40 % = {outer_fixed:.2f}")  # fmt: skip
print(f"control (count model saw the public versions): share of p < 0.05 = "
      f"{np.mean(contaminated_p < 0.05):.3f}")  # fmt: skip

# %% tags=["hide-input"]
fig, axes = plt.subplots(1, 2, figsize=plotting.figsize("wide"))
colors = {"plain paired t-test": plotting.PALETTE[0], "with 2.5 % winsorising": plotting.PALETTE[3]}
for k, v in null_p.items():
    axes[0].hist(v, bins=10, range=(0, 1), color=colors[k], alpha=0.55, label=k)
    q = np.sort(v)
    axes[1].plot((np.arange(len(q)) + 0.5) / len(q), q, "o", ms=2.5, color=colors[k], label=k)
axes[0].axhline(n_null / 10, color="k", ls=":", lw=1, label="uniform")
axes[0].set(
    xlabel="p-value (clean count models)",
    ylabel="seeds",
    title=f"Flat within noise over {n_null} seeds (KS p {ks['plain paired t-test']:.2f})",
)
axes[0].legend(fontsize=8)
axes[1].plot([0, 1], [0, 1], "k:", lw=1)
axes[1].set(
    xlabel="uniform quantile",
    ylabel="observed p",
    title="Both tests close to the diagonal",
    aspect="equal",
)
plt.show()

# %% [markdown]
# **What to see.** With a fresh background per seed and the public role spread over the keys,
# both tests' null p-values lie close to the diagonal of the QQ plot (a little below it in the
# middle, within what the KS test tolerates) and fill the histogram's bins evenly within the
# noise of {glue:text}`n_null:d` seeds: the share in the outer 40 % of
# $[0, 1]$ is {glue:text}`outer_plain:.2f` for the plain test (0.4 if uniform; the U shape that
# the previous version of this notebook found, with 60 seeds sharing six backgrounds, is gone).
# The official winsorising rejects at level 0.05 on {glue:text}`fpr_wins:.3f` of the seeds
# against {glue:text}`fpr:.3f` for the plain test, and the two disagree on
# {glue:text}`n_disagree:d` seeds: {glue:text}`n_wins_only:d` rejected by winsorising only,
# {glue:text}`n_plain_only:d` by the plain test only. Those discordant seeds are what a paired
# comparison of rejection rates rests on, and {glue:text}`n_wins_only:d` against
# {glue:text}`n_plain_only:d` is no evidence either way (exact binomial p
# {glue:text}`mcnemar_p:.3f`): whether winsorising over-rejects is **undecided at
# {glue:text}`n_null:d` seeds**; deciding a difference of this size would take thousands. The
# over-rejection by winsorising that the previous version reported is therefore neither
# confirmed nor excluded; it differed in two ways, which are not separated here:
# it clipped the *mean* of the private perplexities instead of each private version (as the
# official code does), and its seeds shared backgrounds. With one public key for every item
# (the paper's design) the share of p < 0.05 is {glue:text}`fpr_fixed:.3f` (KS p
# {glue:text}`ks_fixed:.2f`, share in the outer 40 % {glue:text}`outer_fixed:.2f`). The control, the
# same count models trained once more on the public versions, rejects on
# {glue:text}`fpr_control:.2f` of the seeds.

# %% [markdown]
# ## Claim check
#
# The contaminated GPT-2 is detected with $p < 10^{-4}$ on all 300 items; the clean one is not.
# On the clean count models, each version of the test rejects at level 0.05 at most 10 % of the
# time (a tolerance of twice the nominal level, fixed before the run; it is not a confidence
# bound: with {glue:text}`n_null:d` seeds, a test of exact level 0.05 exceeds
# {glue:text}`fpr_tol_087:.3f` at most 2.5 % of the time), while the same count models trained on
# the public versions reject far more often. The measured rates are below 10 %, but their 95 %
# intervals reach above it, so a false-positive rate of 10 % or more is not excluded; and the
# null is checked on count models, not on the GPT-2 suspects (one clean GPT-2 above, whose mean
# difference leans positive). Hence "partly".

# %%
p_cont, p_clean = curve["contaminated"][-1], curve["clean"][-1]
plain, wins = "plain paired t-test", "with 2.5 % winsorising"
assert p_clean > 0.05, p_clean
assert min(ks.values()) > 1e-3, ks
runtime_s = time.perf_counter() - t_start
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
    caveat=f"one training seed, at a far larger contamination share ({100 * share:.0f} % of the "
    "corpus, 10 epochs); three seeds in the next notebook",
    fmt=".1f",
)
control_rate = float(np.mean(contaminated_p < 0.05))
for key, name, text in [
    ("no_false_positives", plain, "the plain paired test"),
    ("winsorised_no_false_positives", wins, "the official recipe (2.5 % winsorising per tail)"),
]:
    claim(
        f"stamp/2_test/{key}",
        f"On {n_null} clean count models (fresh backgrounds, the public version drawn per item), "
        f"{text} rejects at level 0.05 at most 10 % of the time",
        paper="uncontaminated models give uniform p-values",
        value=fpr[name],
        check=less(0.10),
        control=("count models that saw the public versions", control_rate),
        verdict="partly",
        caveat=f"the 95 % CI of the rate reaches {fpr_hi[name]:.3f}, above 0.10; the null is "
        "on bigram count models, not GPT-2 (the one clean GPT-2 has mean d "
        f"{eff['clean'][0]:+.1f}, CI [{eff['clean'][1]:.2f}, {eff['clean'][2]:.1f}]); the "
        f"paper's one-key design is checked only as a rate ({np.mean(fixed_p < 0.05):.3f})",
        seeds=n_null,
        numbers={
            "KS p (uniform null)": ks[name],
            "upper end of the 95 % CI": fpr_hi[name],
            "winsorised minus plain rejection rate": fpr[wins] - fpr[plain],
            "exact binomial p on the discordant seeds": float(mcnemar_p),
            "share in the outer 40 % of [0, 1] (0.4 if uniform)": outer[name],
        },
        fmt=".3f",
    )
glue("p_cont_log10", float(np.log10(p_cont)))
glue("p_clean", float(p_clean))
glue("ks_p", float(ks[plain]))
glue("fpr", fpr[plain])
glue("ks_p_wins", float(ks[wins]))
glue("fpr_wins", fpr[wins])
glue("fpr_fixed", float(np.mean(fixed_p < 0.05)))
glue("fpr_control", control_rate)
glue("outer_plain", outer[plain])
glue("share_below_cont", float(np.mean(d["contaminated"] < 0)))
glue("share_below_clean", float(np.mean(d["clean"] < 0)))
glue("d_cont", eff["contaminated"][0])
glue("share_pct", 100 * share)
glue("n_null", n_null)
glue("n_wins_only", n_wins_only)
glue("n_plain_only", n_plain_only)
glue("mcnemar_p", float(mcnemar_p))
glue("ks_fixed", float(ks_fixed))
glue("outer_fixed", outer_fixed)
glue("fpr_tol_087", float(stats.binom.ppf(0.975, n_null, 0.05) / n_null))
glue("d_clean", eff["clean"][0])
glue("d_clean_low", eff["clean"][1])
glue("d_clean_high", eff["clean"][2])
glue("clean_log10p_first", float(np.log10(curve["clean"][0])))
glue("clean_log10p_last", float(np.log10(curve["clean"][-1])))
glue("n_disagree", int(np.sum(both[0] != both[1])))
glue("runtime_s", runtime_s)
