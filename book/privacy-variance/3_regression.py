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
# # Which hyperparameters cost privacy? A regression, and a better selection rule
#
# The paper explains the variance of empirical privacy at fixed $\varepsilon$ by regressing it
# on the hyperparameters. Here the grid adds a second axis, the learning rate $\eta$, to batch
# size $b$ and steps $T$, all at $\varepsilon$ = 8, and statsmodels fits
#
# $$
# \text{exposure}_{16} = \beta_0 + \beta_b \log b + \beta_T \log T + \beta_\eta \log \eta
# + \text{noise},
# $$
#
# with 95 % confidence intervals. Then the fitted signs become a selection rule: among the
# configurations whose utility is as good as the best (within a tolerance), prefer the one the
# regression expects to memorise least.

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

from icml25.common import glue, plotting, setup
from icml25.common.claims import claim, greater
from icml25.privacy_variance import fit_privacy_regression, make_corpus, run_grid

t_start = time.perf_counter()
SCALE = setup(seed=0)
CONFIG = {
    "small": {"batches": [64, 256, 1024], "steps": [50, 100, 200], "lrs": [0.5, 2.0], "seeds": [0]},
    "large": {
        "batches": [64, 128, 256, 512, 1024],
        "steps": [50, 100, 200, 400],
        "lrs": [0.25, 0.5, 1.0, 2.0],
        "seeds": [0, 1],
    },
}[SCALE]
EPS, TOL = 8.0, 0.05
print(SCALE, CONFIG)

corpus = make_corpus(n_records=4096, reps=(1, 4, 16), n_per_rep=20, n_controls=50, seed=0)
DELTA = 1.0 / len(corpus.train)
configs = [
    {"b": b, "T": T, "lr": lr}
    for b in CONFIG["batches"]
    for T in CONFIG["steps"]
    for lr in CONFIG["lrs"]
]
df = run_grid(configs, corpus, EPS, DELTA, seeds=CONFIG["seeds"])
df.round(3)[["b", "T", "lr", "seed", "sigma", "test_loss", "exposure_r16"]]

# %% [markdown]
# ## The regression

# %%
fit = fit_privacy_regression(df)  # exposure_r16 ~ log b + log T + log lr
print(fit.summary().tables[1])
ci = fit.conf_int()

# %% tags=["hide-input"]
terms = ["np.log(b)", "np.log(T)", "np.log(lr)"]
labels = [r"$\log b$ (batch)", r"$\log T$ (steps)", r"$\log \eta$ (learning rate)"]
fig, ax = plt.subplots(figsize=plotting.figsize("single"))
for i, term in enumerate(terms):
    lo, hi = ci.loc[term]
    ax.errorbar(
        fit.params[term],
        i,
        xerr=[[fit.params[term] - lo], [hi - fit.params[term]]],
        fmt="o",
        color=plotting.PALETTE[0],
        capsize=4,
    )
ax.axvline(0, color="k", lw=1)
ax.set_yticks(range(3), labels)
ax.invert_yaxis()
ax.set(
    xlabel="bits of exposure per unit of log (95 % CI)",
    title=f"What raises memorisation at ε = {EPS:g} (R² = {fit.rsquared:.2f})",
)
plt.show()

# %% [markdown]
# **What to see.** A coefficient to the right of zero means that raising that hyperparameter
# (at the same $\varepsilon$) raises the exposure of the repeated canaries. Bigger batches have
# the strongest effect; the other two are read off their intervals.

# %% [markdown]
# ## Selecting a configuration
#
# The utility-only rule picks the configuration with the lowest held-out loss. The
# privacy-aware rule keeps every configuration within `TOL` = 0.05 nats of that loss and, among
# them, picks the one with the lowest exposure *predicted* by the regression (a practitioner
# would not measure exposure for every candidate). Both picks are then scored by their measured
# exposure. The fit and the selection use the same grid (in-sample), so this shows what the
# rule does, not how well it generalises.

# %%
cfg = df.groupby(["b", "T", "lr"], as_index=False)[["test_loss", "exposure_r16"]].mean()
cfg["predicted"] = fit.predict(cfg)
utility_pick = cfg.loc[cfg["test_loss"].idxmin()]
pool = cfg[cfg["test_loss"] <= utility_pick["test_loss"] + TOL]
privacy_pick = pool.loc[pool["predicted"].idxmin()]
print("utility-only: ", utility_pick.round(3).to_dict())
print("privacy-aware:", privacy_pick.round(3).to_dict())

# %% tags=["hide-input"]
fig, ax = plt.subplots(figsize=plotting.figsize("single"))
ax.scatter(cfg["exposure_r16"], cfg["test_loss"], color="0.7", s=18, label="all configurations")
ax.scatter(
    pool["exposure_r16"],
    pool["test_loss"],
    color=plotting.PALETTE[0],
    s=24,
    label=f"within {TOL} nats of the best loss",
)
for pick, name, color in [
    (utility_pick, "utility-only pick", plotting.PALETTE[3]),
    (privacy_pick, "privacy-aware pick", plotting.PALETTE[2]),
]:
    ax.scatter(
        pick["exposure_r16"],
        pick["test_loss"],
        s=140,
        facecolors="none",
        edgecolors=color,
        lw=2,
        label=f"{name}: b={pick['b']:.0f}, T={pick['T']:.0f}, η={pick['lr']:g}",
    )
ax.set(
    xlabel="exposure of the 16-fold canaries (bits)",
    ylabel="held-out loss (nats)",
    ylim=(cfg["test_loss"].min() - 0.05, min(cfg["test_loss"].max(), cfg["test_loss"].min() + 1)),
    title="Selecting under a fixed ε",
)
ax.legend(fontsize=7, loc="upper right")
plt.show()

# %% [markdown]
# **What to see.** The configurations with (nearly) the best utility (blue) differ by several
# bits of exposure: choosing among them matters. Whether the regression-guided pick actually
# lands on a less exposed one is measured, not guaranteed: with one seed per configuration and
# a model that is linear in the log hyperparameters, it can miss, and the claim check below
# reports which way it went; because the fit and the pick use the same grid, a win here is an
# illustration, not evidence that the rule generalises.

# %% [markdown]
# ## Claim check
#
# The regression's signs are reported as measured. What is asserted is what the coefficient
# figure shows: the batch-size coefficient is positive with its 95 % interval above zero
# (bigger batches memorise more at equal $\varepsilon$); the model explains a substantial part
# of the variation (R² > 0.3). The selection rule's result is reported either way.

# %%
beta_b, beta_T, beta_lr = (float(fit.params[t]) for t in terms)
ci_b = ci.loc["np.log(b)"].to_numpy()
saved = float(utility_pick["exposure_r16"] - privacy_pick["exposure_r16"])
assert fit.rsquared > 0.3, fit.rsquared
runtime_s = time.perf_counter() - t_start
claim(
    "privacy-variance/3_regression/batch_raises_exposure",
    "At fixed epsilon, exposure rises with the batch size: the lower end of the 95 % confidence "
    "interval of the log-batch coefficient is above 0",
    paper="hyperparameters predict empirical privacy (regression); larger batches memorise more",
    value=float(ci_b[0]),
    check=greater(0.0),
    verdict="illustrated",
    caveat="the steps and learning-rate coefficients are not resolved at this size",
    numbers={
        "log b coefficient (bits)": beta_b,
        "log T": beta_T,
        "log lr": beta_lr,
        "R2": fit.rsquared,
    },
    fmt=".2f",
)
claim(
    "privacy-variance/3_regression/privacy_aware_pick",
    "Among the near-best-loss configurations, the regression-guided pick exposes less than the "
    "utility-only pick",
    paper="refined selection heuristics are precise and useful",
    value=saved,
    check=greater(0.0),
    verdict="illustrated",
    caveat=f"the pick exposes {privacy_pick['exposure_r16']:.1f} bits vs "
    f"{utility_pick['exposure_r16']:.1f} for the utility-only one, but the regression is fitted "
    "and the pick scored on the same grid (in-sample), with one seed per configuration and no "
    "control: not yet a test of the paper's heuristic on configurations it has not seen",
    fmt=".2f",
)
glue("beta_b", beta_b)
glue("beta_T", beta_T)
glue("beta_lr", beta_lr)
glue("beta_b_lo", float(ci_b[0]))
glue("beta_b_hi", float(ci_b[1]))
glue("beta_T_lo", float(ci.loc["np.log(T)", 0]))
glue("beta_T_hi", float(ci.loc["np.log(T)", 1]))
glue("beta_lr_lo", float(ci.loc["np.log(lr)", 0]))
glue("beta_lr_hi", float(ci.loc["np.log(lr)", 1]))
glue("r2", float(fit.rsquared))
glue("saved_bits", saved)
glue("util_pick_expo", float(utility_pick["exposure_r16"]))
glue("priv_pick_expo", float(privacy_pick["exposure_r16"]))
glue("loss_cost", float(privacy_pick["test_loss"] - utility_pick["test_loss"]))
glue("runtime_s", runtime_s)
