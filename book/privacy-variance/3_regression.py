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
# # Which hyperparameters cost privacy? Regressions and a held-out selection rule
#
# The paper explains the variance of empirical privacy at fixed $\varepsilon$ by regressing it
# on the hyperparameters, individual and composite, and turns the fitted signs into selection
# heuristics. This notebook trains a grid of batch sizes $b$, step counts $T$ and learning rates
# $\eta$, all at $\varepsilon$ = 8, on three seeds, and fits three regressions of the exposure of
# the 16-fold canaries (statsmodels OLS; `selection.MODELS`):
#
# $$
# \begin{aligned}
# \text{individual:}\quad & \beta_0 + \beta_b \log b + \beta_T \log T + \beta_\eta \log \eta,\\
# \text{composite:}\quad & \beta_0 + \beta_{bT} \log (bT) + \beta_{\nu} \log \frac{\sigma C}{b}
#   + \beta_\eta \log \eta,\\
# \text{interaction:}\quad & \text{individual} + \beta_{b\eta} \log b \cdot \log \eta,
# \end{aligned}
# $$
#
# where $bT$ is the compute (gradients computed) and $\sigma C / b$ the noise-to-signal ratio
# (the noise standard deviation of the averaged gradient relative to the clipped signal; with
# $C$ = 1 fixed it is $\sigma / b$). The intervals come from two sources: statsmodels' OLS
# intervals and a bootstrap that resamples **configurations** (a configuration brings its three
# seeds along). Then the selection rule: among the configurations whose held-out loss is within
# `TOL` of the best, pick the one the regression predicts to memorise least, and score it on
# configurations **and** seeds the regression was not fitted on.

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
        " && pip install -q opacus prv-accountant statsmodels",
        shell=True,
        check=True,
    )

# %%
import time

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from icml25.common import glue, plotting, setup
from icml25.common.claims import claim, greater
from icml25.privacy_variance import (
    MAX_EXPOSURE,
    MODELS,
    bootstrap_coefficients,
    fit_privacy_regression,
    heldout_selection,
    make_corpus,
    run_grid,
)

t_start = time.perf_counter()
SCALE = setup(seed=0)
CONFIG = {
    "small": {
        "batches": [32, 128, 512],
        "steps": [25, 100],
        "lrs": [0.25, 1.0],
        "seeds": [0, 1, 2],
    },
    "large": {
        "batches": [32, 64, 128, 256, 512, 1024],
        "steps": [25, 50, 100, 200],
        "lrs": [0.25, 0.5, 1.0, 2.0],
        "seeds": [0, 1, 2, 3, 4],
    },
}[SCALE]
EPS, TOL, N_BOOT, N_PERM = 8.0, 0.1, 1000, 200  # TOL: nats of held-out loss, as notebook 2
print(SCALE, CONFIG)

corpus = make_corpus(n_records=4096, reps=(1, 4, 16), n_per_rep=20, n_controls=50, seed=0)
DELTA = 1.0 / len(corpus.train)
configs = [
    {"b": b, "T": T, "lr": lr}
    for b in CONFIG["batches"]
    for T in CONFIG["steps"]
    for lr in CONFIG["lrs"]
]
runs = run_grid(configs, corpus, EPS, DELTA, seeds=CONFIG["seeds"])
cols = ["sigma", "test_loss", "exposure_r16", "exposure_control", "diverged"]
KEYS = ["b", "T", "lr"]
# a configuration any of whose seeds did not train (held-out loss >= the unigram loss) is left
# out of the regressions and the selection: its exposure measures a broken model
bad_cfg = runs.groupby(KEYS)["diverged"].transform("any")
df = runs[~bad_cfg].reset_index(drop=True)
dropped = runs[bad_cfg].groupby(KEYS, as_index=False)["test_loss"].agg(["mean", "max"])
print("configurations left out (a seed diverged):")
print(dropped.round(2).to_string(index=False))
runs.groupby(KEYS)[cols].agg(["mean", "std"]).round(2)

# %% [markdown]
# Each row is one configuration (mean and standard deviation over the three seeds). The
# learning rates are not tuned here: the grid spans them on purpose, because the regression
# needs $\eta$ to vary (notebook 2 is the tuned, matched-utility comparison). Some runs did not
# train: `run_grid` flags a run as **diverged** when its held-out loss is at least the unigram
# loss (a model that ignores the context). {glue:text}`n_dropped` configurations, all at
# $b$ = {glue:text}`dropped_b:s`, have a diverged seed (mean held-out losses
# {glue:text}`dropped_losses:s` nats against {glue:text}`best_loss:.2f` for the best); they are
# left out of everything below, which uses the {glue:text}`n_trained` configurations that
# trained ({glue:text}`n_runs` runs). Figure (b) shows every run.
#
# ## Three regressions, two kinds of interval

# %%
fits = {m: fit_privacy_regression(df, model=m) for m in MODELS}
boots = {m: bootstrap_coefficients(df, model=m, n_boot=N_BOOT, seed=0) for m in MODELS}
quality = pd.DataFrame(
    {m: {"R2": f.rsquared, "adj. R2": f.rsquared_adj, "AIC": f.aic} for m, f in fits.items()}
).T
print(quality.round(3))
for m in MODELS:
    table = boots[m].join(fits[m].conf_int().set_axis(["ols_lo", "ols_hi"], axis=1))
    print(f"\n{m}: coefficient, bootstrap 95 % interval (resampling configurations), OLS interval")
    print(table[["coef", "lo", "hi", "ols_lo", "ols_hi"]].round(2))

# %% tags=["hide-input"]
LABELS = {
    "np.log(b)": r"$\log b$",
    "np.log(T)": r"$\log T$",
    "np.log(lr)": r"$\log \eta$",
    "np.log(bT)": r"$\log bT$ (compute)",
    "np.log(nsr)": r"$\log \sigma C/b$ (noise-to-signal)",
    "np.log(b):np.log(lr)": r"$\log b \cdot \log \eta$",
}
fig, axes = plt.subplots(1, 3, figsize=plotting.figsize("wide"), sharex=True)
for panel, (ax, m) in enumerate(zip(axes, MODELS, strict=True)):
    terms = [t for t in boots[m].index if t != "Intercept"]
    ols = fits[m].conf_int()
    for i, t in enumerate(terms):
        c = boots[m].loc[t, "coef"]
        lo, hi = boots[m].loc[t, ["lo", "hi"]]
        ax.errorbar(
            c,
            i - 0.12,
            xerr=[[c - lo], [hi - c]],
            fmt="o",
            color=plotting.PALETTE[0],
            capsize=3,
            label="bootstrap over configurations" if i == 0 else None,
        )
        lo, hi = ols.loc[t]
        ax.errorbar(
            c,
            i + 0.12,
            xerr=[[c - lo], [hi - c]],
            fmt="s",
            color=plotting.PALETTE[1],
            capsize=3,
            label="OLS" if i == 0 else None,
        )
    ax.axvline(0, color="k", lw=1)
    ax.set_yticks(range(len(terms)), [LABELS[t] for t in terms])
    ax.set_ylim(len(terms) - 0.5, -0.5)
    ax.set(title=f"({'abc'[panel]}) {m}, R² = {fits[m].rsquared:.2f}")
axes[1].set_xlabel("bits of exposure per unit of log (95 % interval)")
axes[0].legend(fontsize=7, loc="lower right")
plt.show()

# %% [markdown]
# **What to see.** A coefficient to the right of zero means that raising that quantity (at the
# same $\varepsilon$) raises the exposure of the 16-fold canaries. Blue: the bootstrap interval
# over configurations; orange: the OLS interval, which treats the {glue:text}`n_runs` runs as
# independent and is narrower where configurations, not seeds, carry the variation. In the
# individual model the batch size has {glue:text}`beta_b:.2f` bits per unit of $\log b$
# (bootstrap interval {glue:text}`beta_b_lo:.2f` to {glue:text}`beta_b_hi:.2f`), the steps
# {glue:text}`beta_T:.2f` ({glue:text}`beta_T_lo:.2f` to {glue:text}`beta_T_hi:.2f`) and the
# learning rate {glue:text}`beta_lr:.2f` ({glue:text}`beta_lr_lo:.2f` to
# {glue:text}`beta_lr_hi:.2f`). The interaction $\log b \cdot \log \eta$ is
# {glue:text}`beta_blr:.2f` (bootstrap {glue:text}`beta_blr_lo:.2f` to
# {glue:text}`beta_blr_hi:.2f`, OLS {glue:text}`beta_blr_ols_lo:.2f` to
# {glue:text}`beta_blr_ols_hi:.2f`); an interval that contains 0 does not resolve the term.
# (Before the diverged runs were left out, the batch-size coefficient looked larger and was
# resolved: the runs that did not train at $b$ = 32 had low exposure for a reason that is not
# privacy.)
# In the composite model the compute $bT$ has coefficient {glue:text}`beta_bT:.2f`
# ({glue:text}`beta_bT_lo:.2f` to {glue:text}`beta_bT_hi:.2f`) and the noise-to-signal ratio
# {glue:text}`beta_nsr:.2f` ({glue:text}`beta_nsr_lo:.2f` to {glue:text}`beta_nsr_hi:.2f`). At a
# fixed
# $\varepsilon$ the
# calibrated $\sigma$ is a function of $(b, T)$, so $\log(bT)$ and $\log(\sigma C/b)$ are a
# re-coordinatisation of $\log b, \log T$ (not an exact one: $\sigma$ is not a power law in
# $b$ and $T$), and the two models fit about equally well (R² in the table).
#
# The same regression on the never-inserted secrets, whose exposure should not depend on the
# configuration, is the control of the batch-size claim below; and the fit is repeated on each
# seed alone, so that the claim holds seed by seed.

# %%
per_seed = pd.DataFrame(
    [
        {
            "seed": s,
            "beta_b": fit_privacy_regression(g, model="individual").params["np.log(b)"],
            "beta_b_control": fit_privacy_regression(
                g, response="exposure_control", model="individual"
            ).params["np.log(b)"],
        }
        for s, g in df.groupby("seed")
    ]
)
per_seed.round(3)

# %% [markdown]
# ## Selecting on held-out configurations
#
# The rule (`select_configuration`): among the candidates whose held-out loss is within
# `TOL` = 0.1 nats of the best, pick the one with the lowest **predicted** exposure (a
# practitioner measures utility for every candidate, but not memorisation). `heldout_selection`
# evaluates it honestly: for each seed $s$ in turn, each candidate's exposure is predicted by the
# interaction regression fitted on the **other two seeds** and the **other configurations**
# (leave one configuration out), and the pick is scored by its measured exposure at seed $s$.
# The references on the same band and seed are a random pick (the band's mean exposure; its
# median is reported too), a **trivial rule** that needs no regression (the band member with
# the smallest $b \cdot T \cdot \eta$), the utility-only pick (lowest loss), the oracle (the
# band's least exposed), the in-sample pick (the
# regression fitted on everything, seed $s$ and the candidate included) and, as the negative
# control, the same held-out rule with the regression fitted on a permuted response
# (`N_PERM` = 200 permutations), which knows nothing about the configurations.

# %%
PICKS = ["utility", "random", "median", "trivial", "permuted", "insample", "heldout", "best"]
sel = {m: heldout_selection(df, model=m, tol=TOL, n_perm=N_PERM, seed=0) for m in MODELS}
main = sel["interaction"]
print(main.round(2).to_string(index=False))
summary = pd.DataFrame({m: r[PICKS].mean() for m, r in sel.items()}).T
summary["pair_acc"] = [sel[m]["pair_acc"].mean() for m in summary.index]
print("\nmean over held-out seeds (exposure in bits):")
print(summary.round(2))

# %% tags=["hide-input"]
refs = [
    ("utility", "utility-only pick", plotting.PALETTE[3]),
    ("random", "random pick (band mean)", plotting.PALETTE[7]),
    ("trivial", "trivial rule (smallest b·T·η)", plotting.PALETTE[5]),
    ("permuted", "held-out rule, permuted fit (control)", plotting.PALETTE[4]),
    ("insample", "in-sample pick", plotting.PALETTE[1]),
    ("heldout", "held-out pick", plotting.PALETTE[0]),
    ("best", "oracle (least exposed in band)", plotting.PALETTE[2]),
]
fig, axes = plt.subplots(1, 2, figsize=plotting.figsize("wide"))
ax = axes[0]
for j, (col, name, color) in enumerate(refs):
    x = np.arange(len(main)) + (j - 3) * 0.12
    ax.scatter(x, main[col], color=color, s=30, label=name, zorder=3)
ax.axhline(MAX_EXPOSURE, color="0.3", ls="--", lw=1, label="ceiling (13.3 bits)")
ax.axhline(np.log2(np.e), color="0.4", ls=":", lw=1, label="chance")
ax.set_xticks(range(len(main)), [f"held-out seed {s}" for s in main["seed"]])
ax.set(
    ylim=(0, MAX_EXPOSURE + 0.5),
    ylabel="measured exposure of the pick (bits)",
    title="(a) the interaction model's picks, per held-out seed",
)
ax.legend(fontsize=6.5, loc="upper right", ncol=2)
ax = axes[1]
cfg = df.groupby(["b", "T", "lr"], as_index=False)[["test_loss", "exposure_r16"]].mean()
ax.scatter(cfg["exposure_r16"], cfg["test_loss"], color="0.6", s=18, label="configurations")
div = runs[bad_cfg]
ax.scatter(
    div["exposure_r16"],
    div["test_loss"],
    marker="x",
    color=plotting.PALETTE[3],
    s=22,
    label="runs of configurations with a diverged seed (left out)",
)
ax.axhline(float(np.log(corpus.vocab)), color="0.4", ls=":", lw=1, label="uniform loss (log vocab)")
band = cfg[cfg["test_loss"] <= cfg["test_loss"].min() + TOL]
ax.scatter(
    band["exposure_r16"],
    band["test_loss"],
    color=plotting.PALETTE[0],
    s=26,
    label=f"within {TOL} nats of the best (seed mean)",
)
ax.axvline(MAX_EXPOSURE, color="0.3", ls="--", lw=1)
ax.set(
    xlabel="exposure of the 16-fold canaries (bits; dots: seed mean, crosses: runs)",
    ylabel="held-out loss (nats)",
    xlim=(0, MAX_EXPOSURE + 0.5),
    yscale="log",
    title="(b) utility against exposure, every run",
)
ax.set_yticks([2, 2.5, 3, 4, 5, 6], ["2", "2.5", "3", "4", "5", "6"])
ax.minorticks_off()
ax.legend(fontsize=7, loc="upper right")
plt.show()

# %% [markdown]
# **What to see.** (a) For each held-out seed, the measured exposure of each pick from the same
# band of equally useful configurations. The distance between the random pick (grey) and the
# held-out pick (blue) is what the rule buys on configurations and seeds it did not see; the
# permuted fit (purple) is the same rule without information and should sit with the random
# pick; the in-sample pick (orange) is what the notebook reported before, fitted and scored on
# the same runs; the trivial rule (brown) needs no regression at all. (b) The configurations
# that trained (mean over seeds): the band a practitioner would choose from, and how far apart
# in exposure its members are; the crosses are the individual runs of the configurations left
# out, whose held-out loss sits at or above the unigram loss (log scale: the worst run reaches
# {glue:text}`worst_loss:.2f` nats).

# %% [markdown]
# ## Claim check
#
# Three claims over the three seeds, on the configurations that trained.
#
# 1. **Batch size.** Fitted on each seed alone, the individual regression's $\log b$
#    coefficient exceeds 0.5 bits per unit of $\log b$ (0.35 bits per doubling) in every seed.
#    It does not (verdict *not reproduced*); the same fit on the never-inserted secrets is
#    reported alongside.
# 2. **Selection on held-out configurations.** The held-out pick of the interaction regression
#    exposes at least 0.5 bits less than a random pick from the same band, for every held-out
#    seed; the same rule with a permuted fit must not. The random pick's mean is inflated by
#    the band's one most exposed corner (large $b$, $T$ and $\eta$), which any monotone rule
#    avoids, so the verdict is *illustrated*: the trivial rule is the fair comparison
#    ({glue:text}`pick_trivial:.2f` bits, against {glue:text}`pick_heldout:.2f` for the held-out
#    pick and a band median of {glue:text}`pick_median:.2f`).
# 3. **Against utility-only selection**, the paper's point: the held-out pick must expose at
#    least 0.5 bits less than the lowest-loss configuration of the same band.
#
# The margins (0.5 bits, a factor $\sqrt 2$ in the secret's rank) were set before the grid was
# run; the in-sample pick is reported alongside
# ({glue:text}`saving_in:.2f` bits below the random pick, against {glue:text}`saving_perm:.2f`
# for the permuted control).

# %%
saving = (main["random"] - main["heldout"]).to_numpy()
saving_perm = (main["random"] - main["permuted"]).to_numpy()
saving_in = (main["random"] - main["insample"]).to_numpy()
assert not df["diverged"].any() and len(df) + len(runs[bad_cfg]) == len(runs)
assert (main["n_band"] >= 2).all(), main  # the rule needs a choice in every held-out seed
assert all(np.isfinite(f.params).all() for f in fits.values())
runtime_s = time.perf_counter() - t_start
b_ind, b_int, b_comp = boots["individual"], boots["interaction"], boots["composite"]
claim(
    "privacy-variance/3_regression/batch_raises_exposure",
    "At fixed epsilon, exposure rises with the batch size: fitted on each seed alone (on the "
    "configurations that trained), the log-batch coefficient of the individual regression "
    "exceeds 0.5 bits per unit of log b",
    paper="hyperparameters predict empirical privacy (regression); larger batches memorise more",
    value=per_seed["beta_b"].to_numpy(),
    check=greater(0.5),
    verdict="not reproduced",
    caveat=f"measured {per_seed['beta_b'].mean():.2f} bits per unit of log b once the "
    f"{len(dropped)} configurations with a diverged seed (b = "
    f"{', '.join(str(b) for b in sorted(set(dropped['b'])))}) are left out; with them "
    "the coefficient looked larger, driven by runs that did not train; the steps "
    f"({b_ind.loc['np.log(T)', 'coef']:.2f}) and the learning rate "
    f"({b_ind.loc['np.log(lr)', 'coef']:.2f}) carry more of the variation in this small grid, "
    "and seeds vary training only (one corpus)",
    numbers={
        "never-inserted secrets' log b coefficient": per_seed["beta_b_control"].mean(),
        "pooled log b coefficient (bits)": b_ind.loc["np.log(b)", "coef"],
        "bootstrap 95 % low": b_ind.loc["np.log(b)", "lo"],
        "high": b_ind.loc["np.log(b)", "hi"],
        "R2 individual": fits["individual"].rsquared,
        "R2 interaction": fits["interaction"].rsquared,
    },
    fmt=".2f",
)
claim(
    "privacy-variance/3_regression/heldout_pick_beats_random",
    "Among the configurations within 0.1 nats of the best loss, the pick of the interaction "
    "regression, fitted without the candidate configuration and without the held-out seed, "
    "exposes at least 0.5 bits less than a random pick from the same band",
    paper="refined selection heuristics are precise and practically useful",
    value=saving,
    check=greater(0.5),
    control=("the same rule fitted on a permuted response", saving_perm),
    verdict="illustrated",
    caveat=f"the random pick's mean is inflated by the band's most exposed corner, which any "
    f"monotone rule avoids: the trivial rule (smallest b·T·lr) scores "
    f"{main['trivial'].mean():.2f} bits and the band median is {main['median'].mean():.2f}, "
    f"against {main['heldout'].mean():.2f} for the held-out pick and "
    f"{main['utility'].mean():.2f} for the utility-only pick; the held-out predictions order "
    f"the band's pairs correctly {main['pair_acc'].mean():.2f} of the time (chance 0.5); the "
    f"oracle reaches {main['best'].mean():.2f}",
    numbers={
        "held-out pick (bits)": main["heldout"].mean(),
        "random pick": main["random"].mean(),
        "band median": main["median"].mean(),
        "trivial rule": main["trivial"].mean(),
        "utility-only pick": main["utility"].mean(),
        "in-sample pick": main["insample"].mean(),
        "oracle": main["best"].mean(),
        "pair accuracy": main["pair_acc"].mean(),
    },
    fmt=".2f",
)
claim(
    "privacy-variance/3_regression/heldout_pick_beats_utility",
    "Among the configurations within 0.1 nats of the best loss, the held-out pick of the "
    "interaction regression exposes at least 0.5 bits less than the utility-only pick",
    paper="tuning for utility alone costs empirical privacy; the refined heuristics recover it",
    value=(main["utility"] - main["heldout"]).to_numpy(),
    check=greater(0.5),
    verdict="not reproduced",
    caveat=f"measured {(main['utility'] - main['heldout']).mean():.2f} bits: here the "
    "lowest-loss configuration is already among the less exposed of its band; with "
    f"{df.groupby(KEYS).ngroups} configurations that trained the band has "
    f"{'/'.join(str(n) for n in sorted(set(main['n_band'])))} members",
    fmt=".2f",
)
for key, table, term in [
    ("beta_b", b_ind, "np.log(b)"),
    ("beta_T", b_ind, "np.log(T)"),
    ("beta_lr", b_ind, "np.log(lr)"),
    ("beta_blr", b_int, "np.log(b):np.log(lr)"),
    ("beta_bT", b_comp, "np.log(bT)"),
    ("beta_nsr", b_comp, "np.log(nsr)"),
]:
    glue(key, float(table.loc[term, "coef"]))
    glue(f"{key}_lo", float(table.loc[term, "lo"]))
    glue(f"{key}_hi", float(table.loc[term, "hi"]))
ols_blr = fits["interaction"].conf_int().loc["np.log(b):np.log(lr)"]
glue("beta_blr_ols_lo", float(ols_blr.iloc[0]))
glue("beta_blr_ols_hi", float(ols_blr.iloc[1]))
for m in MODELS:
    glue(f"r2_{m}", float(fits[m].rsquared))
glue("n_band", int(main["n_band"].min()))
glue("n_configs", len(configs))
glue("saving_perm", float(saving_perm.mean()))
glue("saving_in", float(saving_in.mean()))
glue("pick_heldout", float(main["heldout"].mean()))
glue("pick_random", float(main["random"].mean()))
glue("pick_utility", float(main["utility"].mean()))
glue("pick_insample", float(main["insample"].mean()))
glue("pick_best", float(main["best"].mean()))
glue("pick_permuted", float(main["permuted"].mean()))
glue("pick_trivial", float(main["trivial"].mean()))
glue("pick_median", float(main["median"].mean()))
glue("n_dropped", len(dropped))
glue("dropped_b", ", ".join(str(b) for b in sorted(set(dropped["b"]))))
glue("dropped_losses", ", ".join(f"{v:.2f}" for v in dropped["mean"]))
glue("best_loss", float(cfg["test_loss"].min()))
glue("worst_loss", float(runs["test_loss"].max()))
glue("n_trained", int(df.groupby(KEYS).ngroups))
glue("n_runs", len(df))
glue("pair_acc", float(main["pair_acc"].mean()))
glue("runtime_s", runtime_s)
