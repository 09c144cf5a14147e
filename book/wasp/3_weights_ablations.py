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
# # Inside WASP: the weights, the distances, the ablations and the number of private samples
#
# Notebook 2 scored the final synthetic sets. This one opens the loop. It follows the
# generator weights round by round (does the bad generator G2 lose its share, and is that the
# private data's doing?); it measures how close the samples written *with* private feedback
# come to the private distribution, by a class-conditional Fréchet distance in the embedding
# space (the analogue of the paper's FID); it removes WASP's three ingredients one at a time
# (the PLM weights, Top-Q voting, the furthest votes with the contrastive filter); and it
# repeats the WASP − Aug-PE comparison with M = 100, 200 and 400 private digits. Comparisons
# use 20 paired seeds (private subset, generation and noise) and paired 95 % t-intervals.
#
# At `small` scale the notebook takes about two minutes on one CPU thread.

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

import matplotlib.pyplot as plt
import numpy as np
from tqdm import tqdm

from icml25.common import glue, plotting, setup
from icml25.common.claims import claim, greater, less
from icml25.wasp import (
    class_frechet_distance,
    downstream_accuracy,
    make_generators,
    paired_ci,
    public_embedding,
    run_aug_pe,
    run_wasp,
    style_digits,
)

t_start = time.perf_counter()
SCALE = setup(seed=0)
CONFIG = {
    "small": {
        "M": 200,
        "M_grid": [100, 200, 400],
        "eps": [16.0, 64.0, math.inf],
        "seeds": 20,
        "rounds": 3,
        "traj_eps": [4.0, 16.0, math.inf],
        "traj_rounds": 6,
        "traj_seeds": 10,
    },
    "large": {
        "M": 200,
        "M_grid": [100, 200, 400],
        "eps": [1.0, 4.0, 16.0, 64.0, math.inf],
        "seeds": 30,
        "rounds": 5,
        "traj_eps": [1.0, 4.0, 16.0, math.inf],
        "traj_rounds": 10,
        "traj_seeds": 30,
    },
}[SCALE]
DELTA = 1e-5
EPS, S = CONFIG["eps"], CONFIG["seeds"]
split = style_digits(seed=0)
left = style_digits(seed=0, shift=-1.0)  # the same private digits, in G2's (wrong) style
gens = make_generators(split)
embed = public_embedding(split.X_pub, dim=16)
Xt, yt = split.X_test, split.y_test
Et = embed(Xt)
KW = {"rounds": CONFIG["rounds"], "embed": embed}


def acc(res):
    return downstream_accuracy(res.X, res.y, Xt, yt)


def feedback_fd(res):
    """Class-conditional Fréchet distance of the samples written with private feedback
    (rounds >= 1) to the test digits, in the PCA(16) embedding."""
    m = res.round >= 1
    return class_frechet_distance(embed(res.X[m]), res.y[m], Et, yt)


def private_subset(seed, M):
    idx = np.random.default_rng(seed).choice(len(split.X_priv), M, replace=False)
    return idx, split.X_priv[idx], split.y_priv[idx]


def eps_label(e):
    return r"$\infty$" if math.isinf(e) else f"{e:g}"


# %% [markdown]
# ## The weights, round by round
#
# Each round WASP sets generator $k$'s share of the next round's budget to
# $w_k \propto \max(\text{mean noisy vote of its samples}, 0)$. Here the loop runs for more
# rounds than elsewhere (`traj_rounds` in the configuration, σ calibrated for that many).

# %%
TR = CONFIG["traj_rounds"]
traj = np.zeros((len(CONFIG["traj_eps"]), CONFIG["traj_seeds"], TR + 1, len(gens)))
for i, eps in enumerate(CONFIG["traj_eps"]):
    for s in range(CONFIG["traj_seeds"]):
        _, Xp, yp = private_subset(s, CONFIG["M"])
        res = run_wasp(gens, Xp, yp, eps, DELTA, rounds=TR, embed=embed, seed=s)
        traj[i, s] = res.weights

fig, axes = plt.subplots(1, len(CONFIG["traj_eps"]), figsize=plotting.figsize("wide"), sharey=True)
names = ["G0 (right style 0-4)", "G1 (right style 5-9)", "G2 (wrong, blurry)", "G3 (label noise)"]
rounds_axis = np.arange(TR + 1)
for ax, eps, w in zip(axes, CONFIG["traj_eps"], traj, strict=True):
    for k, name in enumerate(names):
        m, sd = w[:, :, k].mean(0), w[:, :, k].std(0)
        ax.plot(rounds_axis, m, marker="o", ms=3, label=name)
        ax.fill_between(rounds_axis, m - sd, m + sd, alpha=0.2)
    ax.set_title(f"ε = {eps_label(eps)}")
    ax.set_xlabel("round (0 = before any vote)")
    ax.set_ylim(0, 0.7)
axes[0].set_ylabel("generator weight $w_k$ (share of the budget)")
axes[0].legend(fontsize=7, loc="upper left")
fig.suptitle("The votes take G2's share away; noise (small ε) scatters the weights")
plotting.panel_labels(axes)
plt.show()

# %% [markdown]
# The weights $w_k$ that allocate each round (mean over ten seeds, band ± one standard
# deviation); round 0 is the uniform start. Without noise (right) G2, whose samples are in the
# wrong style and blurred, drops to zero after one round, and G3 (the right style, but 60 % of
# its samples carry a wrong label) gains the largest share: its correctly labelled samples are
# the closest to the private digits, and votes do not see the mislabelled ones, which lie far
# from every private digit of the class. At ε = 4 the noise makes the shares of G0, G1 and G3
# a lottery with a wide spread (notebook 2: no gain there), yet G2 stays low: a weight is a
# mean over hundreds of noisy votes, so the noise averages out far more than on one vote.
#
# ## Twenty seeds: WASP, its ablations and Aug-PE at ε ∈ {16, 64, ∞}
#
# Every run below uses the same private subset, generators and budget (3 rounds). The
# ablations each remove one ingredient completely: *no weights* (uniform budgets), *top-1*
# (Q = 1: one vote per private sample, and σ scaled to its sensitivity), *no filter* (no
# furthest votes, no contrastive filter, σ for one histogram). Aug-PE removes all three. A
# second run of full WASP and of Aug-PE with other seeds gives the null differences.

# %%
VARIANTS = {
    "WASP": {},
    "no weights": {"weighted": False},
    "top-1": {"q": 1},
    "no filter": {"furthest": False, "contrastive": False},
}
E_ = len(EPS)
A = {v: np.zeros((S, E_)) for v in [*VARIANTS, "Aug-PE-all", "WASP (2nd run)"]}
FD = {
    v: np.zeros((S, E_))
    for v in [*VARIANTS, "Aug-PE-all", "Aug-PE-all (2nd run)"] + [f"Aug-PE-G{k}" for k in range(4)]
}
FD_noise = np.zeros(S)  # WASP with votes drowned in noise (eps = 1e-3)
G2 = np.zeros((S, E_))
G2_left = np.zeros((S, E_))
FD_private = np.zeros(S)
for s in tqdm(range(S), desc="seeds"):
    idx, Xp, yp = private_subset(s, CONFIG["M"])
    FD_private[s] = class_frechet_distance(embed(Xp), yp, Et, yt)
    for j, eps in enumerate(EPS):
        for v, kw in VARIANTS.items():
            res = run_wasp(gens, Xp, yp, eps, DELTA, seed=s, **kw, **KW)
            A[v][s, j] = acc(res)
            FD[v][s, j] = feedback_fd(res)
            if v == "WASP":
                G2[s, j] = res.weights[1:, 2].mean()
        A["WASP (2nd run)"][s, j] = acc(run_wasp(gens, Xp, yp, eps, DELTA, seed=1000 + s, **KW))
        res = run_aug_pe(gens, Xp, yp, eps, DELTA, seed=s, **KW)
        A["Aug-PE-all"][s, j] = acc(res)
        FD["Aug-PE-all"][s, j] = feedback_fd(res)
        FD["Aug-PE-all (2nd run)"][s, j] = feedback_fd(
            run_aug_pe(gens, Xp, yp, eps, DELTA, seed=1000 + s, **KW)
        )
        for k, g in enumerate(gens):
            single = run_aug_pe([g], Xp, yp, eps, DELTA, seed=s, **KW)
            FD[f"Aug-PE-G{k}"][s, j] = feedback_fd(single)
        res_left = run_wasp(gens, left.X_priv[idx], yp, eps, DELTA, seed=s, **KW)
        G2_left[s, j] = res_left.weights[1:, 2].mean()
    FD_noise[s] = feedback_fd(run_wasp(gens, Xp, yp, 1e-3, DELTA, seed=s, **KW))
best_single_fd = np.min([FD[f"Aug-PE-G{k}"] for k in range(4)], axis=0)  # (S, E)
for j, eps in enumerate(EPS):
    print(
        f"eps={eps:>5}: G2 weight {G2[:, j].mean():.3f} (private in G2's style "
        f"{G2_left[:, j].mean():.3f})  FD WASP {FD['WASP'][:, j].mean():.2f}  Aug-PE-all "
        f"{FD['Aug-PE-all'][:, j].mean():.2f}  best single {best_single_fd[:, j].mean():.2f}"
    )
print(f"FD with noise-only votes {FD_noise.mean():.2f}; private digits {FD_private.mean():.2f}")
for v in ("no weights", "top-1", "no filter"):
    print(f"FD of the ablation '{v}':", " ".join(f"{x:.2f}" for x in FD[v].mean(0)))

# %% [markdown]
# ## How close the feedback samples come to the private distribution

# %%
j64 = EPS.index(64.0)
fig, axes = plt.subplots(1, 2, figsize=plotting.figsize("wide"))
ax = axes[0]
bars = [(f"Aug-PE\nG{k}", FD[f"Aug-PE-G{k}"][:, j64]) for k in range(4)] + [
    ("Aug-PE\nall", FD["Aug-PE-all"][:, j64]),
    ("WASP", FD["WASP"][:, j64]),
    ("WASP,\nnoise votes", FD_noise),
]
colors = ["C7"] * 4 + ["C1", "C0", "C4"]
drawn = ax.bar(
    range(len(bars)),
    [b[1].mean() for b in bars],
    yerr=[b[1].std(ddof=1) for b in bars],
    color=colors,
    capsize=3,
)
drawn[-1].set_hatch("//")
ax.axhline(FD_private.mean(), color="k", ls="--", lw=1, label="the 200 private digits")
ax.set_xticks(range(len(bars)), [b[0] for b in bars], fontsize=7)
ax.set_ylabel("class-conditional Fréchet distance\nto the test digits (PCA(16) space)")
ax.set_title("ε = 64: feedback samples (rounds ≥ 1)")
ax.legend(fontsize=7)
ax = axes[1]
xs = np.arange(E_)
for key, label, color in [
    ("best single", "Aug-PE, best single generator", "C7"),
    ("Aug-PE-all", "Aug-PE, all four, equal", "C1"),
    ("WASP", "WASP", "C0"),
]:
    vals = best_single_fd if key == "best single" else FD[key]
    half = [paired_ci(vals[:, j])[1] for j in range(E_)]
    ax.errorbar(xs, vals.mean(0), yerr=half, marker="o", capsize=3, label=label, color=color)
ax.axhline(FD_private.mean(), color="k", ls="--", lw=1)
ax.set_xticks(xs, [eps_label(e) for e in EPS])
ax.set_xlabel(r"$\varepsilon$ ($\delta = 10^{-5}$)")
ax.set_ylim(0, None)
ax.set_title("Feedback samples against ε (mean, 95 % CI)")
ax.legend(fontsize=7)
plotting.panel_labels(axes)
plt.show()

# %% [markdown]
# (a) At ε = 64, the distance to the test digits (class by class, then averaged) of the
# samples each method wrote in rounds 1–3, mean ± standard deviation over 20 seeds. Three of
# the four single generators stay far from the private distribution even with private
# feedback, as in the paper's motivating figure (FID of single-PLM Aug-PE); G3 alone comes
# close, and WASP closer still. When the votes carry no information (ε = 10⁻³, purple,
# hatched) WASP writes samples far off, though not as far as G0 or G1 alone (the numbers are
# printed above, with the distances of the three ablations). The dashed line is the distance
# of the 200 private digits themselves: with about 20 digits per class against the others' 90
# it is biased upwards, so it marks the scale, not a floor. (b) The same against ε. All sets
# compared here have about 90 samples per class, so the estimator's bias is similar.
#
# ## Ablations: what is each ingredient worth?

# %%
fig, ax = plt.subplots(figsize=plotting.figsize("single"))
diffs = [
    ("no weights", "no PLM weights"),
    ("top-1", "Q = 1 (top-1 votes)"),
    ("no filter", "no furthest votes, no filter"),
    ("Aug-PE-all", "Aug-PE (all removed)"),
    ("WASP (2nd run)", "null: WASP, 2nd run"),
]
width = 0.15
abl = {}
for i, (key, label) in enumerate(diffs):
    ci = np.array([paired_ci(A[key][:, j] - A["WASP"][:, j]) for j in range(E_)])
    abl[key] = ci
    ax.errorbar(
        xs + (i - 2) * width,
        ci[:, 0],
        yerr=ci[:, 1],
        marker="os^Dx"[i],
        ls="none",
        capsize=3,
        label=label,
        color="grey" if key == "WASP (2nd run)" else None,
    )
ax.axhline(0, color="k", lw=0.8)
ax.set_xticks(xs, [eps_label(e) for e in EPS])
ax.set_xlabel(r"$\varepsilon$")
ax.set_ylabel("accuracy: ablated − full WASP")
ax.set_title(f"What each ingredient is worth ({S} seeds, 95 % CI)")
ax.legend(fontsize=7)
plt.show()
for key, _ in diffs:
    print(key, " ".join(f"{m:+.3f}±{h:.3f}" for m, h in abl[key]))

# %% [markdown]
# Each point is the paired accuracy difference between an ablated WASP and the full one
# (below 0: the ingredient helps), with its 95 % interval over 20 seeds; the grey null is a
# second run of full WASP. Exemplars are the top-voted samples with ties broken at random:
# without noise most of a class's pool has no vote at all, and a tie broken by pool order
# would hand the first generator's zero-shot digits to the Top-1 arm as its "bad" examples.
# The numbers are printed above; the claim check at the end says which removals cost accuracy
# beyond the null. The "no filter" arm also drops the furthest votes, so its σ is that of one
# histogram: at finite ε it changes two things at once (the filter, and half the noise), and
# a change there may come from either.
#
# ## The number of private samples M

# %%
MG = CONFIG["M_grid"]
hi = [j for j, e in enumerate(EPS) if e >= 64]
gain = np.zeros((len(MG), len(hi), S))
null_m = np.zeros((len(MG), len(hi), S))
for i, M in enumerate(MG):
    for jj, j in enumerate(hi):
        if M == CONFIG["M"]:  # already run above with the same seeds
            gain[i, jj] = A["WASP"][:, j] - A["Aug-PE-all"][:, j]
            null_m[i, jj] = A["WASP (2nd run)"][:, j] - A["WASP"][:, j]
            continue
        for s in tqdm(range(S), desc=f"M={M}, eps={EPS[j]:g}"):
            _, Xp, yp = private_subset(s, M)
            a = acc(run_wasp(gens, Xp, yp, EPS[j], DELTA, seed=s, **KW))
            gain[i, jj, s] = a - acc(run_aug_pe(gens, Xp, yp, EPS[j], DELTA, seed=s, **KW))
            null_m[i, jj, s] = acc(run_wasp(gens, Xp, yp, EPS[j], DELTA, seed=1000 + s, **KW)) - a
gain_ci = np.array([[paired_ci(g) for g in row] for row in gain])  # (M, eps, 2)
null_ci = np.array([[paired_ci(g) for g in row] for row in null_m])

fig, ax = plt.subplots(figsize=plotting.figsize("single"))
xm = np.arange(len(MG))
for jj, j in enumerate(hi):
    ax.errorbar(
        xm + 0.1 * (jj - 0.5),
        gain_ci[:, jj, 0],
        yerr=gain_ci[:, jj, 1],
        marker="o",
        capsize=3,
        label=f"WASP − Aug-PE-all, ε = {eps_label(EPS[j])}",
    )
    ax.errorbar(
        xm + 0.1 * (jj - 0.5) + 0.25,
        null_ci[:, jj, 0],
        yerr=null_ci[:, jj, 1],
        marker="s",
        ls="none",
        capsize=3,
        color="grey",
        alpha=0.5 + 0.5 * jj,
        label=f"null: WASP 2nd run, ε = {eps_label(EPS[j])}",
    )
ax.axhline(0, color="k", lw=0.8)
ax.set_xticks(xm + 0.1, [str(M) for M in MG])
ax.set_xlabel("private samples M")
ax.set_ylabel("paired accuracy difference")
ax.set_title(f"WASP's gain over equal-weight Aug-PE against M ({S} seeds)")
ax.legend(fontsize=7)
plt.show()
for i, M in enumerate(MG):
    print(
        f"M={M}: "
        + "  ".join(
            f"eps={EPS[j]:g} {gain_ci[i, jj, 0]:+.3f}±{gain_ci[i, jj, 1]:.3f}"
            for jj, j in enumerate(hi)
        )
    )

# %% [markdown]
# The paired gain of WASP over equal-weight Aug-PE with its 95 % interval, for each M, next to
# the null (grey, a second WASP run with other seeds). The numbers are printed above; the
# claim checks below say which comparisons hold, under privacy (ε = 64) and without it.
#
# ## Claim check

# %%
runtime_s = time.perf_counter() - t_start
assert np.all((A["WASP"] > 0.1) & (A["WASP"] <= 1.0)), "accuracies out of range"
assert np.allclose(traj.sum(-1), 1.0), "weights must sum to 1"
j_inf = EPS.index(math.inf)


def ci_lo(d):
    m, h = paired_ci(d)
    return m - h


g2 = G2[:, hi].mean(1)
claim(
    "wasp/3_weights_ablations/g2_weight_small",
    "The learned weight of the bad generator G2 (wrong style, blurry), averaged over the rounds "
    "and over eps = 64 and inf, stays below 0.05 in every seed; with the same private digits "
    "written in G2's style (shifted left), G2's weight does not",
    paper="dynamic weighting gives low-quality PLMs a small share",
    value=g2,
    check=less(0.05),
    control=("private digits in G2's style", G2_left[:, hi].mean(1)),
    verdict="reproduced",
    numbers={"G2 weight at eps=16": G2[:, EPS.index(16.0)].mean()},
    fmt=".3f",
)
j16 = [j for j, e in enumerate(EPS) if e >= 16]  # the statement's eps in {16, 64, inf}
d_fd = (FD["WASP"] - FD["Aug-PE-all"])[:, j16].max(1)  # the worst of those eps per seed
d_fd_noise = FD_noise - FD["Aug-PE-all"][:, j64]  # control: WASP with noise-only votes
fd_numbers = {
    "FD WASP at eps=64": FD["WASP"][:, j64].mean(),
    "FD Aug-PE-all at eps=64": FD["Aug-PE-all"][:, j64].mean(),
    "FD best single Aug-PE at eps=64": best_single_fd[:, j64].mean(),
    "FD no weights at eps=64": FD["no weights"][:, j64].mean(),
    "FD no filter at eps=64": FD["no filter"][:, j64].mean(),
    "FD top-1 at eps=64": FD["top-1"][:, j64].mean(),
    "FD Aug-PE-all 2nd run - 1st run (worst eps)": (FD["Aug-PE-all (2nd run)"] - FD["Aug-PE-all"])[
        :, j16
    ]
    .max(1)
    .mean(),
}
fd_statement = (
    "The samples WASP writes with private feedback are closer to the private distribution than "
    "those of equal-weight Aug-PE: their class-conditional Fréchet distance to the test digits "
    "is lower by more than 0.05 at every eps in {16, 64, inf}, in every seed"
)
fd_paper = (
    "not a number of the paper: its Fig. 1(a) (read in a secondary summary) shows single-PLM "
    "Aug-PE data far from the private data (FID); that WASP closes the gap is this book's "
    "inference"
)
claim(
    "wasp/3_weights_ablations/closer_than_equal_pe",
    fd_statement + "; WASP with noise-only votes (eps = 1e-3) is not",
    paper=fd_paper,
    value=d_fd,
    check=less(0.0, by=0.05),
    control=("WASP with noise-only votes - Aug-PE-all at eps=64", d_fd_noise),
    verdict="partly",
    caveat="the comparison is the book's inference, not checked against the paper's "
    "figures; the distance is measured in the PCA(16) space in which the contrastive "
    "filter selects, and much of the gap is G2's equal share in Aug-PE (see the distances "
    "of the ablations)",
    numbers=fd_numbers,
    fmt=".3f",
)
abl_lo = np.array([ci_lo(A["WASP"][:, j_inf] - A[v][:, j_inf]) for v in ("top-1", "no filter")])
null_lo = ci_lo(A["WASP"][:, j_inf] - A["WASP (2nd run)"][:, j_inf])
w_inf, w_64 = abl["no weights"][j_inf], abl["no weights"][j64]
f_16 = abl["no filter"][EPS.index(16.0)]
pe_inf = paired_ci(A["Aug-PE-all"][:, j_inf] - A["WASP"][:, j_inf])
abl_statement = (
    "Without DP noise (eps = inf), removing Top-Q voting (Q = 1) or the furthest votes with the "
    f"contrastive filter each costs accuracy: the lower end of the paired 95 % CI ({S} seeds) of "
    "full WASP minus the ablation is above 0"
)
abl_numbers = {
    "top-1 minus WASP at eps=inf": abl["top-1"][j_inf, 0],
    "no filter minus WASP at eps=inf": abl["no filter"][j_inf, 0],
    "no weights minus WASP at eps=inf": w_inf[0],
    "Aug-PE-all (all three removed) minus WASP at eps=inf": pe_inf[0],
}
abl_caveat = (
    f"removing all three ingredients (Aug-PE-all) changes accuracy by "
    f"{pe_inf[0]:+.4f} +- {pe_inf[1]:.4f} at eps = inf, against "
    f"{abl['top-1'][j_inf, 0]:+.4f} +- {abl['top-1'][j_inf, 1]:.4f} (top-1) and "
    f"{abl['no filter'][j_inf, 0]:+.4f} +- {abl['no filter'][j_inf, 1]:.4f} (no filter) alone; "
    f"the PLM weights alone are worth {-w_inf[0]:+.4f} +- {w_inf[1]:.4f} at eps = inf and "
    f"{-w_64[0]:+.4f} +- {w_64[1]:.4f} at eps = 64; at eps = 16 removing the filter and the "
    f"furthest votes (half the noise) changes accuracy by {f_16[0]:+.4f} +- {f_16[1]:.4f}"
)
claim(
    "wasp/3_weights_ablations/topq_and_filter_each_help",
    abl_statement,
    paper="each of WASP's ingredients contributes (the paper's ablations; not checked "
    "against the PDF here)",
    value=abl_lo,
    check=greater(0.0),
    verdict="not reproduced",
    over="ablations",
    seeds=S,
    caveat=abl_caveat,
    numbers=abl_numbers,
    fmt=".4f",
)
jj_inf, jj_64 = hi.index(j_inf), hi.index(j64)
# the check (paired CI above 0 at eps = 64 and inf) on 20 seeds at every M; at
# M = 200 it supersedes notebook 2's 10 seeds
gain_lo = (gain_ci[:, :, 0] - gain_ci[:, :, 1]).ravel()  # (M x eps >= 64,)
null_lo_m = (null_ci[:, :, 0] - null_ci[:, :, 1]).ravel()
m_statement = (
    "At eps = 64 and inf, WASP beats equal-weight Aug-PE over all four generators at every "
    "number of private samples M in {100, 200, 400}: the lower end of the paired 95 % CI "
    f"({S} seeds) is above 0 in all six settings"
)
m_numbers = {
    f"gain at M={M}, eps={EPS[j]:g}": gain_ci[i, jj, 0]
    for i, M in enumerate(MG)
    for jj, j in enumerate(hi)
}
m_text = "; ".join(
    f"M = {M}: "
    + ", ".join(
        f"{gain_ci[i, jj, 0]:+.4f} +- {gain_ci[i, jj, 1]:.4f} (eps = {EPS[j]:g})"
        for jj, j in enumerate(hi)
    )
    for i, M in enumerate(MG)
)
claim(
    "wasp/3_weights_ablations/gain_every_m",
    m_statement + "; for a second WASP run against the first it is not",
    paper="WASP beats Aug-PE with several PLMs when private samples are few (main table)",
    value=gain_lo,
    check=greater(0.0),
    control=("WASP 2nd run - 1st run", null_lo_m),
    verdict="reproduced",
    over="values of M and eps",
    seeds=S,
    caveat="at weak privacy only: the gain is one to three points, and at eps <= 16 there "
    "is none (notebook 2, reported, not asserted)",
    numbers=m_numbers,
    fmt=".4f",
)
glue("g2_weight_left", float(G2_left[:, hi].mean()), display=False)
glue("fd_wasp_64", float(FD["WASP"][:, j64].mean()), display=False)
glue("fd_pe_64", float(FD["Aug-PE-all"][:, j64].mean()), display=False)
glue("fd_best_single_64", float(best_single_fd[:, j64].mean()), display=False)
glue("fd_noise", float(FD_noise.mean()), display=False)
glue("abl_pe_inf", float(pe_inf[0]), display=False)
glue("abl_pe_inf_ci", float(pe_inf[1]), display=False)
for v, tag in [("no weights", "weights"), ("no filter", "filter"), ("top-1", "topq")]:
    glue(f"fd_{tag}_64", float(FD[v][:, j64].mean()), display=False)
for key, tag in [("no weights", "weights"), ("top-1", "topq"), ("no filter", "filter")]:
    for j, e in enumerate(EPS):
        etag = "inf" if math.isinf(e) else f"{e:g}"
        glue(f"abl_{tag}_{etag}", float(abl[key][j, 0]), display=False)
        glue(f"abl_{tag}_{etag}_ci", float(abl[key][j, 1]), display=False)
for i, M in enumerate(MG):
    glue(f"gain_inf_m{M}", float(gain_ci[i, jj_inf, 0]), display=False)
    glue(f"gain_inf_m{M}_ci", float(gain_ci[i, jj_inf, 1]), display=False)
    glue(f"gain_64_m{M}", float(gain_ci[i, jj_64, 0]), display=False)
    glue(f"gain_64_m{M}_ci", float(gain_ci[i, jj_64, 1]), display=False)
glue("runtime_s", runtime_s, display=False)
