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
# # Domain knowledge: a prior on the effects
#
# The paper's second claim: two-stage designs help *especially* when domain knowledge is
# available as a prior. Here the arm effects are drawn from $\mathrm{Beta}(\alpha, \alpha)$ and
# the designer knows it. The **prior** design forms each arm's posterior
# $\mathrm{Beta}(\alpha + \text{successes}, \alpha + \text{failures})$ after stage 1 and adds arms
# to the kept set greedily while the posterior expected certificate (Monte Carlo, 100 draws)
# increases; it then runs stage 2 on that set and certifies as usual. A larger $\alpha$ means
# effects bunched more tightly around 0.5: a more informative prior, and arms that are harder to
# tell apart.
#
# The prior design's result can be read two ways. The official code reports the greedy's
# **planning estimate**, the posterior expected certificate of the chosen set (Monte Carlo). We
# also run stage 2 on the chosen set and report the **realised** certificate it actually yields,
# like every other design; both are shown below. And to see whether the *knowledge* in the
# prior is what helps, a **control** runs the same greedy design with a flat Beta(1, 1) prior
# whatever the true $\alpha$. All designs of a trial see the same patients (paired).

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
import pandas as pd

from icml25.common import glue, plotting, setup
from icml25.common.claims import claim, greater
from icml25.two_stage_rct import simulate

t_start = time.perf_counter()
SCALE = setup(seed=0)
CONFIG = {
    "small": {"alphas": [1, 2, 4, 8, 16, 32], "trials": 2000, "seeds": 3, "n_mc": 100},
    "large": {"alphas": [1, 2, 4, 8, 16, 32], "trials": 10000, "seeds": 5, "n_mc": 100},
}[SCALE]
SETTING = {"n_arms": 10, "budget": 500, "delta": 0.1, "first_frac": 0.3}
DESIGNS = {
    "Prior (Beta)": {"policy": "prior_beta"},  # the true Beta(alpha, alpha)
    "Prior (flat)": {"policy": "prior_beta", "alpha": 1.0, "beta": 1.0},  # knows nothing
    "Sample split": {"policy": "split"},
    "Random k": {"policy": "random_k"},  # a two-stage design that chooses k blindly
    "Single stage": {"policy": "single_stage"},
}
print(SCALE, CONFIG)

# %%
rows = []
for alpha in CONFIG["alphas"]:
    for seed in range(CONFIG["seeds"]):
        df = simulate(
            DESIGNS,
            CONFIG["trials"],
            np.random.default_rng(seed),
            mu_dist="beta",
            alpha=alpha,
            beta=alpha,
            n_mc=CONFIG["n_mc"],
            **SETTING,
        )
        means = df.groupby("design").agg(
            normalized=("normalized", "mean"),
            planned=("planned", "mean"),
            k=("k", "mean"),
            miss=("miss", "mean"),
        )
        rows.append(means.assign(alpha=alpha, seed=seed).reset_index())
results = pd.concat(rows, ignore_index=True)
table = results.groupby(["alpha", "design"])[["normalized", "k"]].mean().unstack("design")
both = (
    results[results.design == "Prior (Beta)"]
    .groupby("alpha")[["planned", "normalized"]]
    .mean()
    .rename(columns={"planned": "planning estimate", "normalized": "realised"})
)
print("prior design, certificate / best effect, two ways:")
print(both.round(3).to_string())
table.round(3)

# %% tags=["hide-input"]
fig, axes = plt.subplots(1, 2, figsize=plotting.figsize("wide"))
wide = results.pivot_table(index=["alpha", "seed"], columns="design", values="normalized")
for design in DESIGNS:
    g = table["normalized"][design]
    axes[0].plot(g.index, g.values, marker="o", c=plotting.method_color(design), label=design)
    if design not in ("Single stage", "Random k"):
        gain = (wide[design] - wide["Sample split"]).groupby("alpha")
        if design != "Sample split":
            axes[1].errorbar(
                gain.mean().index,
                gain.mean().values,
                yerr=gain.std().values,
                marker="o",
                capsize=3,
                c=plotting.method_color(design),
                label=f"{design} − sample split",
            )
axes[0].plot(
    both.index,
    both["planning estimate"],
    ls="--",
    marker="x",
    c=plotting.method_color("Prior (Beta)"),
    label="Prior (Beta), planning estimate (official)",
)
gain = (wide["Sample split"] - wide["Single stage"]).groupby("alpha")
axes[1].errorbar(
    gain.mean().index,
    gain.mean().values,
    yerr=gain.std().values,
    marker="s",
    capsize=3,
    c=plotting.method_color("Single stage"),
    label="Sample split − single stage",
)
axes[1].axhline(0, c="0.5", lw=1)
for ax in axes:
    ax.set(
        xscale="log", xlabel="prior concentration $\\alpha$ (effects ~ Beta($\\alpha$, $\\alpha$))"
    )
    ax.set_xticks(CONFIG["alphas"], [str(a) for a in CONFIG["alphas"]])
    ax.minorticks_off()
    ax.legend(fontsize=7)
axes[0].set(ylabel="certificate / best effect", title="Certificates")
axes[1].set(ylabel="paired gain (share of the best effect)", title="Who gains over whom")
plotting.panel_labels(axes)
fig.suptitle("The greedy prior design beats splitting, but a flat prior does as well")
plt.show()

# %% [markdown]
# **What to see.** (a) Both prior designs certify more than sample splitting at every $\alpha$;
# the dashed line is the correct-prior design's planning estimate, which the official code
# reports: it sits above the certificate that stage 2 then yields. (b) Paired gains (error bars:
# spread over seeds). The design with the *correct* prior gains no more over splitting than the
# same design with a *flat* prior: at this size the gain comes from the greedy, Bayesian use of
# all stage-1 patients (splitting ranks on half of them), not from the knowledge in the prior.
# What two stages add over a single stage shrinks as $\alpha$ grows: when all effects are near
# 0.5 there is little to screen out, and for the most concentrated effects sample splitting even
# falls below the single-stage trial.

# %% [markdown]
# ## Claim check
#
# Claims on paired differences per $(\alpha, \text{seed})$. The prior design beats sample
# splitting for every seed and $\alpha$ (a two-stage design that picks $k$ at random does not;
# but see the next claim for what the gain is due to). The **knowledge** in the prior helps: the
# correct prior beats the flat one (the paper's claim; *not reproduced* if it fails). The
# official planning estimate is above the realised certificate. Sample splitting beats the
# single stage in every seed for $\alpha \le 4$, but not with effects bunched at $\alpha = 32$
# (uncorrected certificates; see notebook 4 for the corrected ones).
# Printed, not asserted: how often each certificate exceeded the certified arm's true effect.
# With effects bunched near 0.5 the uncorrected single-stage certificate, a maximum over ten
# near-equal arms, misses about $\delta$ of the time, the most of all designs; the last notebook
# of the chapter is about that.

# %%
gain_prior = wide["Prior (Beta)"] - wide["Sample split"]
gain_flat = wide["Prior (flat)"] - wide["Sample split"]
knowledge = (wide["Prior (Beta)"] - wide["Prior (flat)"])[
    lambda d: d.index.get_level_values("alpha") > 1  # at alpha = 1 the two priors coincide
]
split_single = wide["Sample split"] - wide["Single stage"]
gain_split_single = split_single.groupby("alpha").mean()
alpha_of = gain_prior.index.get_level_values("alpha")
per_seed = gain_prior
random_vs_split = wide["Random k"] - wide["Sample split"]
optimism = both["planning estimate"] - both["realised"]
assert (gain_prior.groupby("alpha").mean() > 0).all(), gain_prior.groupby("alpha").mean()
miss = results.pivot_table(index="alpha", columns="design", values="miss")
print("miss rate (certificate above the certified arm's effect):")
print(miss.round(3).to_string())
runtime_s = time.perf_counter() - t_start
a_lo, a_hi = CONFIG["alphas"][0], CONFIG["alphas"][-1]
claim(
    "two-stage-rct/3_priors/prior_design_beats_split",
    "The greedy prior design certifies more than sample splitting, for every seed and every "
    "prior concentration alpha (paired)",
    paper='two-stage designs help "especially ... where domain knowledge is available in the form '
    'of a prior" (no number for the gain)',
    value=per_seed.to_numpy(),
    check=greater(0.0),
    control=("random k, a blind two-stage design", random_vs_split.to_numpy()),
    verdict="partly",
    caveat=f"a flat Beta(1, 1) prior gains as much ({gain_flat.mean():.3f} vs "
    f"{gain_prior.mean():.3f} on average), so the gain is the greedy design's, not the prior's",
    fmt=".3f",
    over="(alpha, seed) pairs",
    seeds=CONFIG["seeds"],
    numbers={"mean gain, all alpha": gain_prior.mean(), "smallest gain": gain_prior.min()},
)
claim(
    "two-stage-rct/3_priors/prior_knowledge_helps",
    "Knowing the effects' distribution helps: the greedy design with the correct Beta(alpha, "
    "alpha) prior beats the same design with a flat prior, in every seed and alpha > 1",
    paper='"especially ... where domain knowledge is available in the form of a prior"',
    value=knowledge.to_numpy(),
    check=greater(0.0),
    verdict="not reproduced",
    caveat=f"correct minus flat prior is {knowledge.mean():+.4f} on average (standard error "
    f"{knowledge.std(ddof=1) / np.sqrt(len(knowledge)):.4f} over the pairs; between "
    f"{knowledge.min():+.3f} and {knowledge.max():+.3f}): no measurable gain from the knowledge "
    "at 10 arms and 50 patients per arm, in our Beta(alpha, alpha) setting (the paper's prior "
    "figure uses Beta(1, beta) and a 50 % first stage)",
    fmt=".4f",
    over="(alpha, seed) pairs",
    seeds=CONFIG["seeds"],
)
claim(
    "two-stage-rct/3_priors/planning_estimate_optimistic",
    "The prior design's planning estimate (what the official code reports) is above the "
    "certificate that stage 2 then yields, at every alpha",
    paper="the prior design's curve is its posterior expected certificate",
    value=optimism.to_numpy(),
    check=greater(0.0),
    verdict="illustrated",
    caveat="built in: the greedy picks the set and when to stop on the same Monte Carlo draws "
    "it scores them with (a winner's curse), so the gap depends on n_mc; for a fixed set the "
    "posterior expectation is unbiased",
    fmt=".4f",
    over="values of alpha",
    seeds=CONFIG["seeds"],
)
spread = split_single[alpha_of <= 4]
bunched = split_single[alpha_of == a_hi]
claim(
    "two-stage-rct/3_priors/two_stage_gain_at_spread_effects",
    "Two stages beat one in every seed while the effects are spread out (alpha <= 4); with "
    f"effects bunched near 0.5 (alpha = {a_hi}) they do not",
    paper="two-stage designs beat single-stage ones (Fig. 1, U(0, 1) effects)",
    value=spread.to_numpy(),
    check=greater(0.0),
    control=(f"alpha = {a_hi} (bunched effects)", bunched.to_numpy()),
    verdict="partly",
    caveat="with uncorrected certificates: at alpha = 32 the single stage's maximum over ten "
    "near-equal arms is the most optimistic; with a Bonferroni correction sample splitting beats "
    "it there too (notebook 4)",
    fmt=".3f",
    over="(alpha, seed) pairs",
    seeds=CONFIG["seeds"],
    numbers={
        f"gain at alpha {a_lo}": gain_split_single.loc[a_lo],
        f"at alpha {a_hi}": gain_split_single.loc[a_hi],
    },
)
glue("gain_prior_mean", float(gain_prior.mean()))
glue("gain_flat_mean", float(gain_flat.mean()))
glue("knowledge_mean", float(knowledge.mean()))
glue("optimism_mean", float(optimism.mean()))
glue("split_single_lo", float(gain_split_single.loc[a_lo]))
glue("split_single_hi", float(gain_split_single.loc[a_hi]))
glue("miss_single_hi", float(miss["Single stage"].loc[a_hi]))
glue("runtime_s", runtime_s)
