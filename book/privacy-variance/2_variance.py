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
# # The headline: same ε, different memorisation
#
# Every model in this notebook is trained with DP-SGD to exactly the same guarantee,
# $\varepsilon$ = 8 at $\delta = 1/n$. The batch size $b$ and the number of steps $T$ change,
# and with them the learning rate $\eta$, tuned for utility per $(b, T)$ (the noise multiplier
# $\sigma$ is recalibrated for each pair so that the accountant lands on $\varepsilon$ = 8).
# The seeds vary the training (sampling, noise, initialisation) on one fixed corpus, not the
# data. If the guarantee told the whole story, the canaries would be
# equally exposed everywhere. They are not.

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
import seaborn as sns

from icml25.common import glue, plotting, setup
from icml25.common.claims import claim, greater
from icml25.privacy_variance import (
    MAX_EXPOSURE,
    calibrate_sigma,
    config_vs_seed_anova,
    make_corpus,
    run_grid,
    tune_lr,
)

t_start = time.perf_counter()
SCALE = setup(seed=0)
CONFIG = {
    "small": {
        "batches": [64, 256, 1024],
        "steps": [40, 80, 160],
        "lrs": [0.125, 0.25, 0.5, 1.0],
        "seeds": [0, 1, 2],
    },
    "large": {
        "batches": [32, 64, 128, 256, 512, 1024],
        "steps": [25, 50, 100, 200, 400],
        "lrs": [0.125, 0.25, 0.5, 1.0, 2.0, 4.0],
        "seeds": [0, 1, 2, 3, 4],
    },
}[SCALE]
EPS, TUNE_SEED, BAND = 8.0, 100, 0.1  # BAND: nats of held-out loss that count as "as useful"
print(SCALE, CONFIG)

corpus = make_corpus(n_records=4096, reps=(1, 4, 16), n_per_rep=20, n_controls=50, seed=0)
DELTA = 1.0 / len(corpus.train)

# %% [markdown]
# The learning rate is **tuned for utility** per $(b, T)$, as practice does: `run_grid` trains
# every $(b, T, \eta)$ once on a separate tuning seed and `tune_lr` keeps, for each $(b, T)$, the
# $\eta$ with the lowest held-out loss. The tuned configurations are then trained on fresh
# seeds; `run_grid` records the spent $\varepsilon$ (opacus's PRV accountant), the held-out loss
# (utility) and the mean exposure of the secrets inserted 1, 4 and 16 times and of the controls.

# %%
grid = [
    {"b": b, "T": T, "lr": lr}
    for b in CONFIG["batches"]
    for T in CONFIG["steps"]
    for lr in CONFIG["lrs"]
]
tuning = run_grid(grid, corpus, EPS, DELTA, seeds=[TUNE_SEED], measure_privacy=False)
configs = tune_lr(tuning)
print("tuned learning rates:", {(c["b"], c["T"]): c["lr"] for c in configs})
edge = sum(c["lr"] in (min(CONFIG["lrs"]), max(CONFIG["lrs"])) for c in configs)
print(f"{edge} of {len(configs)} optima at an end of the learning-rate grid")
df = run_grid(configs, corpus, EPS, DELTA, seeds=CONFIG["seeds"])
df["config"] = [f"b={b}, T={T}" for b, T in zip(df["b"], df["T"], strict=True)]
pd.set_option("display.width", 120)
df.round(3).drop(columns=["config"])

# %% tags=["hide-input"]
mean = df.groupby(["b", "T"], as_index=False)[["test_loss", "exposure_r16"]].mean()
fig, ax = plt.subplots(figsize=plotting.figsize("single"))
for i, b in enumerate(CONFIG["batches"]):
    sub = mean[mean["b"] == b]
    ax.scatter(
        sub["exposure_r16"],
        sub["test_loss"],
        s=20 + 0.3 * sub["T"],
        color=plotting.PALETTE[i],
        label=f"b = {b}",
        alpha=0.85,
    )
    for _, row in sub.iterrows():
        ax.annotate(
            f"T={row['T']:.0f}",
            (row["exposure_r16"], row["test_loss"]),
            textcoords="offset points",
            xytext=(4, 3),
            fontsize=7,
        )
ax.axvline(MAX_EXPOSURE, color="0.3", ls="--", lw=1, label="ceiling (13.3 bits)")
ax.axvline(np.log2(np.e), color="0.4", ls=":", lw=1, label="chance (1.44 bits)")
ax.set(
    xlabel="exposure of the 16-fold canaries (bits)",
    ylabel="held-out loss (nats, lower = better)",
    title=f"All at ε = {EPS:g}: utility vs memorisation",
)
ax.legend(title="batch", fontsize=8)
plt.show()

# %% [markdown]
# **What to see.** Each point is one configuration (mean of the seeds; marker size grows with
# $T$). All spend the same $\varepsilon$, yet the exposure of the repeated canaries spans several
# bits, a factor of many in how highly the model ranks the secret. Over the configurations, the
# rank correlation between held-out loss and exposure is {glue:text}`rho_loss_expo:.2f`
# (Spearman; negative: the more useful models memorise more), so picking for utility alone
# tends to buy memorisation.

# %% tags=["hide-input"]
fig, axes = plt.subplots(1, 2, figsize=plotting.figsize("wide"))
heat = mean.pivot(index="b", columns="T", values="exposure_r16")
sns.heatmap(
    heat,
    annot=True,
    fmt=".1f",
    cmap="viridis",
    ax=axes[0],
    cbar_kws={"label": "exposure, 16-fold canaries (bits)"},
)
axes[0].set(title="Exposure over (batch, steps)", xlabel="steps T", ylabel="batch size b")
axes[0].invert_yaxis()
ax = axes[1]
order = [f"b={b}, T={T}" for b in CONFIG["batches"] for T in CONFIG["steps"]]
for i, cfg in enumerate(order):
    vals = df.loc[df["config"] == cfg, "exposure_r16"]
    ax.scatter([i] * len(vals), vals, color=plotting.PALETTE[0], s=16)
    ax.plot([i - 0.3, i + 0.3], [vals.mean()] * 2, color="k", lw=1.5)
ax.axhline(MAX_EXPOSURE, color="0.3", ls="--", lw=1, label="ceiling")
ax.axhline(np.log2(np.e), color="0.4", ls=":", lw=1, label="chance")
ax.legend(fontsize=7)
ax.set_xticks(range(len(order)), order, rotation=60, ha="right", fontsize=8)
ax.set(ylabel="exposure (bits)", title="Seeds (dots) vary little; configurations a lot")
plt.show()

# %% [markdown]
# **What to see.** Left: at the same $\varepsilon$, exposure rises monotonically with the batch
# size at {glue:text}`n_T_monotone` of {glue:text}`n_T` step counts.
# With the number of steps it depends on the batch: from the fewest to the
# most steps the mean exposure changes by {glue:text}`dT_small:.1f` bits at the smallest batch
# and by {glue:text}`dT_large:.1f` bits at the largest. Right: the seed-to-seed spread within a
# configuration is small compared with the spread between configurations. A one-way ANOVA makes
# that precise.

# %%
anova = config_vs_seed_anova(df, "exposure_r16")
anova_ctrl = config_vs_seed_anova(df, "exposure_control")  # never-inserted secrets
anova_loss = config_vs_seed_anova(df, "test_loss")  # utility
print({k: round(v, 4) for k, v in anova.items()})
print("controls:", {k: round(v, 4) for k, v in anova_ctrl.items()})
print("test loss:", {k: round(v, 4) for k, v in anova_loss.items()})

# %% tags=["hide-input"]
reps_cols = ["exposure_control", "exposure_r1", "exposure_r4", "exposure_r16"]
fig, ax = plt.subplots(figsize=plotting.figsize("single"))
agg = df.groupby(["b", "T"])[reps_cols].mean()
for (b, T), row in agg.iterrows():
    i = CONFIG["batches"].index(b)
    ax.plot(
        [0, 1, 4, 16],
        row.values,
        "o-",
        color=plotting.PALETTE[i],
        alpha=0.4 + 0.2 * CONFIG["steps"].index(T),
        lw=1,
        label=f"b = {b}" if T == CONFIG["steps"][-1] else None,
    )
ax.axhline(np.log2(np.e), color="0.4", ls=":", lw=1, label="chance")
ax.axhline(MAX_EXPOSURE, color="0.3", ls="--", lw=1, label="ceiling (13.3 bits)")
ax.set(
    xscale="symlog",
    xticks=[0, 1, 4, 16],
    xticklabels=["0", "1", "4", "16"],
    xlabel="times the secret was inserted",
    ylabel="mean exposure (bits)",
    title="Exposure against repetition, per configuration",
)
ax.legend(fontsize=8)
plt.show()

# %% [markdown]
# **What to see.** Secrets seen once are at chance in every configuration (configuration means
# {glue:text}`r1_min:.2f` to {glue:text}`r1_max:.2f` bits, against $\log_2 e$ = 1.44); the
# differences open up with repetition, as group privacy predicts (a secret in 16 records enjoys
# no meaningful guarantee at $\varepsilon$ = 8). Darker lines: more steps.

# %% [markdown]
# ## Claim check
#
# Every run spent $\varepsilon$ within 1 % of the target; the controls sit at chance (mean
# exposure in [1.0, 1.9] bits); and the exposure of the 16-fold canaries varies more between
# configurations than between seeds: the between-configuration standard deviation is at least
# twice the within-configuration (seed) one and the ANOVA's p-value is below 0.01. The utility
# spread is reported alongside, and the exposure spread among the configurations whose held-out
# loss is within 0.1 nats of the best (the ones a practitioner would call equally good). The
# control is the same ratio for the never-inserted secrets, whose exposure should not depend on
# the configuration. Over all configurations the held-out loss itself varies between
# configurations more than between seeds (its ratio is in the claim's caveat), so the paper's
# point is then looked at on the **equally useful** configurations: those whose mean held-out
# loss is within 0.1 nats of the best. That second claim has **no control that fails**: inside
# the band the held-out loss also varies between configurations more than between seeds
# (ratio {glue:text}`loss_ratio_band:.1f`), so the same check passes for utility and the band
# is not matched beyond seed noise; the never-inserted secrets fail it by construction and are
# no test. It is therefore only *illustrated*, with the fairest pair reported beside it: among
# the band's pairs whose mean held-out loss differs by less than the seed standard deviation of
# the loss ({glue:text}`loss_seed_sd:.3f` nats), the one with the largest exposure gap,
# {glue:text}`pair_a:s` against {glue:text}`pair_b:s`: {glue:text}`pair_dloss:.3f` nats apart
# in loss, {glue:text}`pair_dexpo:.2f` bits apart in exposure (the gap per seed:
# {glue:text}`pair_seeds:s` bits).

# %%
eps_err = float((df["eps_spent"] - EPS).abs().max() / EPS)
ctrl = float(df["exposure_control"].mean())
span = float(mean["exposure_r16"].max() - mean["exposure_r16"].min())
loss_span = float(mean["test_loss"].max() - mean["test_loss"].min())
assert eps_err < 0.01, eps_err
assert 1.0 <= ctrl <= 1.9, ctrl
assert anova["p"] < 0.01, anova
best_util = mean.loc[mean["test_loss"].idxmin()]
near = mean[mean["test_loss"] <= best_util["test_loss"] + BAND]
near_span = float(near["exposure_r16"].max() - near["exposure_r16"].min())
# matched utility: only the configurations whose mean held-out loss is within BAND of the best
matched = df.merge(near[["b", "T"]], on=["b", "T"])
assert len(near) >= 2, near  # the comparison needs at least two equally useful configurations
an_m = config_vs_seed_anova(matched, "exposure_r16")
an_m_ctrl = config_vs_seed_anova(matched, "exposure_control")
an_m_loss = config_vs_seed_anova(matched, "test_loss")
# the fairest pair: mean loss gap below the seed sd of the loss, largest exposure gap
near_rows = list(near.itertuples(index=False))
pairs = [
    (p, q)
    for i, p in enumerate(near_rows)
    for q in near_rows[i + 1 :]
    if abs(p.test_loss - q.test_loss) < an_m_loss["within_sd"]
]
assert pairs, "no pair of band configurations within seed noise of each other in loss"
pa, pb = max(pairs, key=lambda pq: abs(pq[0].exposure_r16 - pq[1].exposure_r16))
if pa.exposure_r16 < pb.exposure_r16:
    pa, pb = pb, pa


def _at(r, col):
    return df[(df["b"] == r.b) & (df["T"] == r.T)].sort_values("seed")[col].to_numpy()


pair_gap_seeds = _at(pa, "exposure_r16") - _at(pb, "exposure_r16")
lr_of = {(c["b"], c["T"]): c["lr"] for c in configs}
pair_name = [f"(b {r.b:.0f}, T {r.T:.0f}, η {lr_of[(int(r.b), int(r.T))]:g})" for r in (pa, pb)]
# delta = n^-1.1 (the paper) against 1/n (here): the calibrated sigma at two corners of the
# grid, against the sigma the grid's runs used at delta = 1/n
n_train = len(corpus.train)
sig_used = df.groupby(["b", "T"])["sigma"].first()
sig_pairs = [
    (min(CONFIG["batches"]), min(CONFIG["steps"])),
    (max(CONFIG["batches"]), max(CONFIG["steps"])),
]
sig_ratio = np.array(
    [calibrate_sigma(EPS, n_train**-1.1, b, n_train, T) / sig_used[(b, T)] for b, T in sig_pairs]
)
runtime_s = time.perf_counter() - t_start
by_T = mean.pivot(index="b", columns="T", values="exposure_r16")
ratio_loss = anova_loss["between_sd"] / anova_loss["within_sd"]
claim(
    "privacy-variance/2_variance/same_eps_different_exposure",
    f"At the same epsilon = {EPS:g}, exposure varies far more between configurations (batch, "
    "steps, learning rate) than between training seeds: between-configuration sd > 2x seed sd",
    paper="a large spread of empirical privacy (VMR, ACR) across configurations at fixed epsilon",
    value=anova["between_sd"] / anova["within_sd"],
    check=greater(2.0),
    control=(
        "never-inserted secrets' exposure",
        anova_ctrl["between_sd"] / anova_ctrl["within_sd"],
    ),
    verdict="illustrated",
    caveat=f"over all configurations, utility differs too: the same ratio for the held-out loss "
    f"is {ratio_loss:.1f} (the configurations differ up to 64-fold in gradient count), so the "
    "next claim restricts the comparison to equally useful configurations; the seeds vary "
    "training only (one corpus)",
    seeds=len(CONFIG["seeds"]),
    numbers={
        "exposure min (bits)": mean["exposure_r16"].min(),
        "max": mean["exposure_r16"].max(),
        "ANOVA F": anova["F"],
        "span among the near-best-loss configurations": near_span,
    },
    fmt=".2f",
)
claim(
    "privacy-variance/2_variance/matched_utility_different_exposure",
    f"Among the configurations tuned for utility whose held-out loss is within {BAND} nats of the "
    "best (equally useful models at the same epsilon), the 16-fold canaries' exposure varies more "
    "between configurations than between seeds: between-configuration sd > 2x seed sd",
    paper="configurations with the same epsilon and similar utility differ in empirical privacy",
    value=an_m["between_sd"] / an_m["within_sd"],
    check=greater(2.0),
    verdict="illustrated",
    caveat=f"no control fails: the held-out loss passes the same check in the band (ratio "
    f"{an_m_loss['between_sd'] / an_m_loss['within_sd']:.1f}), so the band is not matched in "
    f"utility beyond seed noise; the fairest pair, {pair_name[0]} and {pair_name[1]}, is "
    f"{abs(pa.test_loss - pb.test_loss):.3f} nats apart in loss (seed sd "
    f"{an_m_loss['within_sd']:.3f}) and {pa.exposure_r16 - pb.exposure_r16:.2f} bits apart in "
    f"exposure; {len(near)} configurations of {len(configs)} in the band, "
    f"{len(CONFIG['seeds'])} seeds varying training only (one corpus); {edge} of "
    f"{len(configs)} tuned learning rates sit at an end of the grid",
    seeds=len(CONFIG["seeds"]),
    numbers={
        "exposure span in the band (bits)": near_span,
        "loss ratio in the band": an_m_loss["between_sd"] / an_m_loss["within_sd"],
        "never-inserted secrets' ratio": an_m_ctrl["between_sd"] / an_m_ctrl["within_sd"],
        "fairest pair: exposure gap (bits)": pa.exposure_r16 - pb.exposure_r16,
        "its loss gap (nats)": abs(pa.test_loss - pb.test_loss),
    },
    fmt=".2f",
)
rho = float(mean[["test_loss", "exposure_r16"]].corr(method="spearman").iloc[0, 1])
glue("rho_loss_expo", rho)
glue("n_T_monotone", int(sum(np.all(np.diff(by_T[T].to_numpy()) > 0) for T in by_T.columns)))
glue("n_T", len(by_T.columns))
glue("n_matched", len(near))
glue("lr_edge", int(edge))
glue("matched_ratio", an_m["between_sd"] / an_m["within_sd"])
glue("eps_err_pct", 100 * eps_err)
glue("ctrl", ctrl)
glue("span", span)
glue("expo_min", float(mean["exposure_r16"].min()))
glue("expo_max", float(mean["exposure_r16"].max()))
glue("loss_span", loss_span)
glue("between_sd", anova["between_sd"])
glue("within_sd", anova["within_sd"])
glue("anova_F", anova["F"])
glue("best_util_b", int(best_util["b"]))
glue("best_util_T", int(best_util["T"]))
glue("best_util_expo", float(best_util["exposure_r16"]))
glue("best_util_above", int((mean["exposure_r16"] < best_util["exposure_r16"]).sum()))
glue("n_configs", len(configs))
glue("n_near", len(near))
glue("near_span", near_span)
glue("dT_small", float(by_T.iloc[0, -1] - by_T.iloc[0, 0]))
glue("dT_large", float(by_T.iloc[-1, -1] - by_T.iloc[-1, 0]))
glue("ratio_loss", float(ratio_loss))
r1 = df.groupby(["b", "T"])["exposure_r1"].mean()
glue("r1_min", float(r1.min()))
glue("r1_max", float(r1.max()))
glue("loss_ratio_band", an_m_loss["between_sd"] / an_m_loss["within_sd"])
glue("loss_seed_sd", an_m_loss["within_sd"])
glue("pair_a", pair_name[0])
glue("pair_b", pair_name[1])
glue("pair_dloss", float(abs(pa.test_loss - pb.test_loss)))
glue("pair_dexpo", float(pa.exposure_r16 - pb.exposure_r16))
glue("pair_seeds", ", ".join(f"{v:.2f}" for v in pair_gap_seeds))
glue("sigma_delta_pct_min", float(100 * (sig_ratio.min() - 1)))
glue("sigma_delta_pct_max", float(100 * (sig_ratio.max() - 1)))
glue("extracted_max", float(df["extracted_top"].max()))
glue("runtime_s", runtime_s)
