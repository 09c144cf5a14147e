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
# # Downstream accuracy against ε
#
# The paper's headline: a classifier trained on WASP's synthetic data is more accurate than one
# trained on Aug-PE's (one generator, or several with equal budgets) or on ZeroGen's. Here every
# method gets the same private digits (M = 200), the same generators and 3 rounds of 300 new
# samples. WASP and Aug-PE-all start from 20 zero-shot samples per class and generator (800 in
# all); each single-generator Aug-PE runs twice: with 20 per class (200, 1/K of WASP's initial
# budget) and with K · 20 = 80 per class (800, WASP's initial budget: the matched arm). A
# logistic regression trained on each synthetic set is scored on 600 test digits. Ten paired
# seeds (private subset, generation and noise) give 95 % confidence intervals of the paired
# differences. Two non-synthetic references: the logistic regression on the 200 private digits
# themselves (not private), and DP-SGD on them at the same (ε, δ) (opacus).
#
# At `small` scale the notebook takes about a minute on one CPU thread. The weights, the
# distances and the ablations behind these scores are in notebook 3.

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
import math
import time
import warnings

import matplotlib.pyplot as plt
import numpy as np
from scipy import stats
from tqdm import tqdm

from icml25.common import glue, plotting, setup
from icml25.common.claims import claim, greater
from icml25.wasp import (
    downstream_accuracy,
    dp_sgd_accuracy,
    make_generators,
    public_embedding,
    run_aug_pe,
    run_wasp,
    run_zerogen,
    style_digits,
)

warnings.filterwarnings("ignore", module="opacus")
warnings.filterwarnings("ignore", message="Full backward hook")
t_start = time.perf_counter()
SCALE = setup(seed=0)
CONFIG = {
    "small": {"M": 200, "eps": [4.0, 16.0, 64.0, math.inf], "seeds": 10, "rounds": 3},
    "large": {"M": 200, "eps": [1.0, 4.0, 16.0, 64.0, math.inf], "seeds": 30, "rounds": 5},
}[SCALE]
DELTA = 1e-5
EPS = CONFIG["eps"]
split = style_digits(seed=0)
gens = make_generators(split)
embed = public_embedding(split.X_pub, dim=16)
Xt, yt = split.X_test, split.y_test


def acc(res):
    return downstream_accuracy(res.X, res.y, Xt, yt)


# %% [markdown]
# ## Every method at every ε, ten paired seeds

# %%
S, E_ = CONFIG["seeds"], len(EPS)
R = {
    name: np.zeros((S, E_))
    for name in ["WASP", "Aug-PE-all", "Aug-PE-all (2nd run)", "DP-SGD"]
    + [f"Aug-PE-G{k}" for k in range(4)]
    + [f"Aug-PE-G{k} (matched)" for k in range(4)]
}
N_MATCHED = len(gens) * 20  # WASP's initial zero-shot budget per class (K generators x 20)
zerogen = np.zeros((S, 4))
real = np.zeros(S)
g2_weight = np.zeros((S, E_))
kw = {"rounds": CONFIG["rounds"], "embed": embed}
for s in tqdm(range(S), desc="seeds"):
    idx = np.random.default_rng(s).choice(len(split.X_priv), CONFIG["M"], replace=False)
    Xp, yp = split.X_priv[idx], split.y_priv[idx]
    real[s] = downstream_accuracy(Xp, yp, Xt, yt)
    for k, g in enumerate(gens):
        zerogen[s, k] = acc(run_zerogen([g], 100, 10, seed=s))
    for j, eps in enumerate(EPS):
        w = run_wasp(gens, Xp, yp, eps, DELTA, seed=s, **kw)
        R["WASP"][s, j] = acc(w)
        g2_weight[s, j] = w.weights[1:, 2].mean()
        R["Aug-PE-all"][s, j] = acc(run_aug_pe(gens, Xp, yp, eps, DELTA, seed=s, **kw))
        R["Aug-PE-all (2nd run)"][s, j] = acc(
            run_aug_pe(gens, Xp, yp, eps, DELTA, seed=1000 + s, **kw)
        )
        for k, g in enumerate(gens):
            R[f"Aug-PE-G{k}"][s, j] = acc(run_aug_pe([g], Xp, yp, eps, DELTA, seed=s, **kw))
            R[f"Aug-PE-G{k} (matched)"][s, j] = acc(
                run_aug_pe([g], Xp, yp, eps, DELTA, seed=s, n_init=N_MATCHED, **kw)
            )
        R["DP-SGD"][s, j] = dp_sgd_accuracy(Xp, yp, Xt, yt, eps, DELTA, seed=s)
single = np.stack([R[f"Aug-PE-G{k}"] for k in range(4)])  # (4, S, E)
best_single = single.max(0)  # the best generator per seed and eps: generous to the baseline
matched = np.stack([R[f"Aug-PE-G{k} (matched)"] for k in range(4)])  # (4, S, E)
best_matched = matched.max(0)  # same, at WASP's initial budget


def paired_ci(d):
    """Mean and 95 % t-interval half-width of paired differences d (S,)."""
    return d.mean(), stats.t.ppf(0.975, len(d) - 1) * d.std(ddof=1) / np.sqrt(len(d))


diff = R["WASP"] - R["Aug-PE-all"]
null = R["Aug-PE-all (2nd run)"] - R["Aug-PE-all"]
ci = np.array([paired_ci(diff[:, j]) for j in range(E_)])
ci_null = np.array([paired_ci(null[:, j]) for j in range(E_)])
diff_zg = R["WASP"] - zerogen[:, 3:4]  # (S, E): WASP - ZeroGen-G3, same seeds
ci_zg = np.array([paired_ci(diff_zg[:, j]) for j in range(E_)])
for j, eps in enumerate(EPS):
    print(
        f"eps={eps:>5}: WASP {R['WASP'][:, j].mean():.3f}  Aug-PE-all "
        f"{R['Aug-PE-all'][:, j].mean():.3f}  best single {best_single[:, j].mean():.3f} "
        f"(matched {best_matched[:, j].mean():.3f})  WASP - ZeroGen-G3 {ci_zg[j, 0]:+.3f} "
        f"+- {ci_zg[j, 1]:.3f}  "
        f"DP-SGD {R['DP-SGD'][:, j].mean():.3f}  WASP - Aug-PE-all {ci[j, 0]:+.3f} "
        f"+- {ci[j, 1]:.3f}  G2 weight {g2_weight[:, j].mean():.3f}"
    )
print("ZeroGen G0..G3:", zerogen.mean(0).round(3), " real-only:", real.mean().round(3))

# %%
xs = np.arange(E_)
labels = [r"$\infty$" if math.isinf(e) else f"{e:g}" for e in EPS]
fig, axes = plt.subplots(1, 2, figsize=plotting.figsize("wide"))
ax = axes[0]
show = [
    ("WASP", "WASP"),
    ("Aug-PE-all", "Aug-PE (all, equal)"),
    ("best single", "Aug-PE (best single, 1/K initial budget)"),
    ("best matched", "Aug-PE (best single, matched budget)"),
    ("DP-SGD", "DP-SGD on the private data"),
]
for key, label in show:
    vals = {"best single": best_single, "best matched": best_matched}.get(key, R.get(key))
    m = vals.mean(0)
    h = stats.t.ppf(0.975, S - 1) * vals.std(0, ddof=1) / np.sqrt(S)
    ax.errorbar(xs, m, yerr=h, marker="o", ms=4, capsize=3, label=label)
ax.axhline(real.mean(), color="k", ls="--", lw=1, label="real-only (not private)")
ax.axhline(zerogen[:, 3].mean(), color="grey", ls=":", lw=1, label="ZeroGen-G3 (no private data)")
ax.set_xticks(xs, labels)
ax.set_xlabel(r"$\varepsilon$ ($\delta = 10^{-5}$)")
ax.set_ylabel("test accuracy")
ax.set_ylim(0, 1)
ax.set_title("Accuracy against ε (mean, 95 % CI)")
ax.legend(fontsize=7, loc="lower right")
ax = axes[1]
ax.errorbar(xs - 0.08, ci[:, 0], yerr=ci[:, 1], marker="o", capsize=3, label="WASP - Aug-PE-all")
ax.errorbar(
    xs + 0.08,
    ci_null[:, 0],
    yerr=ci_null[:, 1],
    marker="s",
    capsize=3,
    color="grey",
    label="null: Aug-PE-all, 2nd run",
)
ax.axhline(0, color="k", lw=0.8)
ax.set_xticks(xs, labels)
ax.set_xlabel(r"$\varepsilon$")
ax.set_ylabel("paired accuracy difference")
ax.set_title("WASP's gain over equal-weight Aug-PE")
ax.legend(fontsize=8)
plotting.panel_labels(axes)
plt.show()

# %% [markdown]
# (a) Every synthetic method against ε (the best single generator at 1/K of WASP's initial
# budget and at WASP's initial budget), with the two references: the private digits used
# directly (dashed, not private) and ZeroGen on G3 alone (dotted, no private data at all). (b)
# The paired difference WASP − Aug-PE-all with its 95 % interval, next to a null difference (a
# second Aug-PE-all run with other seeds), which shows how large a difference chance makes.
# The numbers are printed above the figure; the claim check below says which comparisons hold.
#
# ## Claim check

# %%
runtime_s = time.perf_counter() - t_start
assert np.all((R["WASP"] > 0.1) & (R["WASP"] <= 1.0)), "accuracies out of range"
# the old arm: single generators at 1/K of WASP's initial budget (reported, not the claim)
gain_small = R["WASP"] - best_single  # (S, E)
ci_single = np.array([paired_ci(gain_small[:, j]) for j in range(E_)])
# the claim: against the best single generator at WASP's initial budget (matched)
gain_single = R["WASP"] - best_matched  # (S, E)
gap_single = gain_single.min(1)  # per seed, the smallest gain over the eps grid
hi = [j for j, e in enumerate(EPS) if e >= 64]
ci_lo = ci[hi, 0] - ci[hi, 1]
ci_lo_null = ci_null[hi, 0] - ci_null[hi, 1]
ci_matched = np.array([paired_ci(gain_single[:, j]) for j in range(E_)])
single_lo = ci_matched[:, 0] - ci_matched[:, 1]
n_margin = int((gap_single > 0.05).sum())  # seeds with a gain > 0.05 at every eps
single_numbers = {f"gain at eps={EPS[j]:g}": ci_matched[j, 0] for j in range(E_)}
single_numbers.update(
    {
        f"gain over 1/K-budget single at eps={EPS[j]:g} (1/K of WASP's initial budget)": ci_single[
            j, 0
        ]
        for j in range(E_)
    }
)
single_numbers[f"smallest gain over eps, mean over {S} seeds"] = gap_single.mean()
single_statement = (
    "Fusing four biased generators (WASP) beats the best single-generator Aug-PE at WASP's "
    f"initial budget ({N_MATCHED} zero-shot samples per class; the best of four, chosen per seed "
    f"and eps) at every eps: the lower end of the paired 95 % CI ({S} seeds) of the gain is "
    "above 0 at each eps"
)
gap_text = ", ".join(
    f"eps={EPS[j]:g}: {ci_matched[j, 0]:+.3f} +- {ci_matched[j, 1]:.3f}" for j in range(E_)
)
old_text = (
    "against single generators at 1/K of WASP's initial budget (20 per class, the old "
    "unmatched arm) the gain was " + ", ".join(f"{ci_single[j, 0]:+.3f}" for j in range(E_))
)
single_margin = (
    f"the declared margin (a gain above 0.05 at every eps in every seed) holds in {n_margin} "
    f"of {S} seeds (smallest gain over eps {gap_single.mean():.3f} on average, minimum "
    f"{gap_single.min():.3f}), and the issue's 0.2 margin is far off: the best matched single "
    f"generator reaches {best_matched.mean():.2f} here; " + old_text
)
claim(
    "wasp/2_accuracy/fusion_beats_single",
    single_statement,
    paper="multi-PLM fusion beats single-PLM Aug-PE (main table)",
    value=single_lo,
    check=greater(0.0),
    verdict="not reproduced",
    over="values of eps",
    seeds=S,
    caveat="at a matched initial budget the paired interval of WASP - best single reaches "
    f"0 at some eps ({gap_text}); " + single_margin,
    numbers=single_numbers,
    fmt=".3f",
)
claim(
    "wasp/2_accuracy/wasp_beats_equal_pe",
    "At eps >= 64 WASP's accuracy exceeds equal-weight Aug-PE over all four generators: the "
    f"lower end of the paired 95 % CI ({S} seeds) is above 0 at eps = 64 and inf; a second "
    "Aug-PE run's null difference is not",
    paper="WASP beats Aug-PE with several PLMs (main table)",
    value=ci_lo,
    check=greater(0.0),
    control=("null: Aug-PE-all 2nd run", ci_lo_null),
    verdict="reproduced",
    over="values of eps",
    seeds=S,
    numbers={f"gain at eps={EPS[j]:g}": ci[j, 0] for j in range(E_)},
    fmt=".3f",
)
for j, e in enumerate(EPS):
    tag = "inf" if math.isinf(e) else f"{e:g}"
    glue(f"gain_{tag}", float(ci[j, 0]), display=False)
    glue(f"gain_ci_{tag}", float(ci[j, 1]), display=False)
    glue(f"wasp_{tag}", float(R["WASP"][:, j].mean()), display=False)
    glue(f"pe_all_{tag}", float(R["Aug-PE-all"][:, j].mean()), display=False)
    glue(f"dpsgd_{tag}", float(R["DP-SGD"][:, j].mean()), display=False)
    glue(f"single_gain_{tag}", float(ci_single[j, 0]), display=False)
    glue(f"single_gain_ci_{tag}", float(ci_single[j, 1]), display=False)
    glue(f"matched_gain_{tag}", float(ci_matched[j, 0]), display=False)
    glue(f"matched_gain_ci_{tag}", float(ci_matched[j, 1]), display=False)
    glue(f"zg_gain_{tag}", float(ci_zg[j, 0]), display=False)
    glue(f"zg_gain_ci_{tag}", float(ci_zg[j, 1]), display=False)
    glue(f"zg_lo_{tag}", float(ci_zg[j, 0] - ci_zg[j, 1]), display=False)
glue("single_gap_min", float(gap_single.mean()), display=False)
glue("single_margin_seeds", n_margin, display=False)
glue("best_single", float(best_single.mean()), display=False)
glue("best_matched", float(best_matched.mean()), display=False)
glue("fusion_verdict", "partly" if np.all(single_lo > 0) else "not reproduced", display=False)
zg_not_worse = [f"{e:g}" for j, e in enumerate(EPS) if ci_zg[j, 0] - ci_zg[j, 1] <= 0]
glue("zg_match_eps", ", ".join(zg_not_worse) if zg_not_worse else "none", display=False)
glue("zerogen_g3", float(zerogen[:, 3].mean()), display=False)
glue("real_only", float(real.mean()), display=False)
glue("runtime_s", runtime_s, display=False)
