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
# # Ablation: which half of S2FGL costs accuracy here
#
# The paper ablates its two modules, the spatial one (the global knowledge repository, the
# codebook KL) and the spectral one (the frequency alignment, FGMA). This notebook does the
# same in the miniature, as one $3 \times 3$ grid of the two loss weights
# $w_\text{KL} \in \{0, 1, 5\}$ and $w_\text{FGMA} \in \{0, 0.1, 1\}$, whose four corners are
# the ablation: **FedAvg** (both off), **without FGMA** (codebook KL only, S2FGL-NLIR),
# **without the knowledge repository** (FGMA only, S2FGL-FGMA) and **S2FGL** (both, the
# paper's weights 5 and 1). A zero weight removes its whole term (the method without it runs;
# no codebook or eigenvectors are computed), so the both-off corner *is* FedAvg; a first cell
# checks that S2FGL with both weights at 0 gives FedAvg's numbers.
#
# Everything else is notebook 3's setting (the regime fixed on seeds 100–102: 20 % labelled
# nodes, σ = 0.35, 25 % inter-community partners, N = 1000, K = 10 Louvain clients, 5 Adam
# steps per round), with **10 rounds instead of 20** to fit the chapter's time budget. The
# numbers are therefore not notebook 3's: three of the corners (FedAvg, without FGMA, S2FGL)
# also run there for 20 rounds, and its table is the one to compare with; a shorter budget
# can change the order of near-tied settings. Nothing here is picked: the grid is measured on
# the reported seeds 0–2 and shown whole. Every comparison with FedAvg is paired by seed and
# carries a 95 % $t$-interval over the seeds.
#
# Its measured time at `small` scale, on one CPU thread, is in the chapter opener.

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
from scipy import stats
from tqdm import tqdm

from icml25.common import glue, plotting, setup
from icml25.common.claims import claim, greater
from icml25.s2fgl import louvain_partition, make_csbm_communities, run_federated

t_start = time.perf_counter()
SCALE = setup(seed=0)
CONFIG = {
    "small": {"n_nodes": 1000, "rounds": 10, "seeds": [0, 1, 2], "w_fgma": [0.0, 0.1, 1.0]},
    "large": {
        "n_nodes": 2000,
        "rounds": 100,
        "seeds": [0, 1, 2, 3, 4],
        "w_fgma": [0.0, 0.01, 0.1, 1.0],
    },
}[SCALE]
DATA = {"p_inter": 0.25, "feat_signal": 0.35}  # notebook 3's regime (fixed on seeds 100-102)
SPLIT = (0.2, 0.2, 0.6)
K = 10
ROUNDS = CONFIG["rounds"]
SEEDS = CONFIG["seeds"]
W_KL = [0.0, 1.0, 5.0]
W_FGMA = CONFIG["w_fgma"]
PAPER_WEIGHTS = (5.0, 1.0)
CELLS = [(a, b) for a in W_KL for b in W_FGMA]


def setting(seed):
    g = make_csbm_communities(n_nodes=CONFIG["n_nodes"], seed=seed, **DATA)
    return louvain_partition(g, K, seed=seed, split=SPLIT)


def method_for(w):
    """The run_federated method that drops a zero-weighted term entirely."""
    w_kl, w_fgma = w
    if w_kl == 0 and w_fgma == 0:
        return "fedavg"
    if w_fgma == 0:
        return "s2fgl-nlir"
    if w_kl == 0:
        return "s2fgl-fgma"
    return "s2fgl"


# %% [markdown]
# ## Both weights at 0 is FedAvg
#
# Two rounds on seed 0: S2FGL with $w_\text{KL} = w_\text{FGMA} = 0$ (both terms computed and
# multiplied by 0) against FedAvg (no terms at all).

# %%
clients0 = setting(SEEDS[0])
zero = run_federated("s2fgl", clients0, rounds=2, weights=(0.0, 0.0), seed=SEEDS[0])
plain = run_federated("fedavg", clients0, rounds=2, seed=SEEDS[0])
same_as_fedavg = bool(
    np.allclose(zero.accuracy, plain.accuracy) and np.allclose(zero.ce, plain.ce, atol=1e-6)
)
print("accuracy per round, S2FGL at (0, 0):", zero.accuracy, " FedAvg:", plain.accuracy)
print("same as FedAvg:", same_as_fedavg)

# %% [markdown]
# ## The grid on the reported seeds

# %%
H = {w: [] for w in CELLS}
for seed in tqdm(SEEDS):
    clients = setting(seed)
    for w in CELLS:
        H[w].append(run_federated(method_for(w), clients, rounds=ROUNDS, weights=w, seed=seed))
FINAL = {w: np.array([h.accuracy[-5:].mean() for h in hs]) for w, hs in H.items()}  # (seeds,)


def term_share(h, w):
    """Weighted S2FGL terms / the whole local loss, mean over rounds 2.. (terms start there)."""
    extra = w[0] * h.kl[1:] + w[1] * h.fgma[1:]
    return float(np.mean(extra / (h.ce[1:] + extra)))


SHARE = {w: np.array([term_share(h, w) for h in hs]) for w, hs in H.items()}


def t_interval(d):
    half = stats.t.ppf(0.975, len(d) - 1) * d.std(ddof=1) / np.sqrt(len(d))
    return float(d.mean()), float(half)


FEDAVG = FINAL[(0.0, 0.0)]
DIFF = {w: t_interval(FINAL[w] - FEDAVG) for w in CELLS}  # paired by seed

# %% [markdown]
# ## F5: the ablation

# %%
CORNERS = {
    # the chapter's colours, as in notebooks 2 and 3 (plotting.method_color of each method)
    "FedAvg (both off)": ((0.0, 0.0), plotting.method_color("FedAvg")),
    "without FGMA\n(codebook KL only)": ((5.0, 0.0), plotting.method_color("S2FGL-NLIR")),
    "without repository\n(FGMA only)": ((0.0, 1.0), plotting.method_color("S2FGL-FGMA")),
    "S2FGL (both)": (PAPER_WEIGHTS, plotting.method_color("S2FGL")),
}
tcrit = stats.t.ppf(0.975, len(SEEDS) - 1)
fig, axes = plt.subplots(1, 2, figsize=plotting.figsize("wide"))
x = np.arange(len(CORNERS))
for i, (w, col) in enumerate(CORNERS.values()):
    v = FINAL[w]
    half = tcrit * v.std(ddof=1) / np.sqrt(len(v))
    axes[0].bar(i, v.mean(), yerr=half, color=col, alpha=0.8, capsize=4)
    axes[0].plot(np.full(len(v), i), v, "o", color="k", ms=3)
    if w != (0.0, 0.0):
        m, h = DIFF[w]
        axes[1].errorbar(i, m, yerr=h, fmt="o", color=col, capsize=4, ms=7)
        axes[1].plot(np.full(len(v), i), v - FEDAVG, "x", color="k", ms=4)
axes[0].axhline(0.2, color="0.5", lw=0.8, ls=":", label="chance (5 classes)")
axes[0].set(ylim=(0, 1), ylabel="pooled test accuracy (last 5 rounds)")
axes[0].legend(loc="upper right", fontsize=8)
axes[0].set_title(f"Accuracy, K = {K}, {ROUNDS} rounds: mean, 95 % interval, seeds")
axes[1].axhline(0, color="0.3", lw=0.8)
axes[1].set(ylabel="accuracy − FedAvg (paired by seed)", xlim=(-0.5, len(CORNERS) - 0.5))
axes[1].set_title("Difference from FedAvg: mean and 95 % interval")
for ax in axes:
    ax.set_xticks(x, list(CORNERS), fontsize=8)
plotting.panel_labels(axes)
plt.show()

# %% [markdown]
# (a) Bars: mean over the seeds of the pooled test accuracy of the global model (mean of the
# last five rounds), whiskers its 95 % $t$-interval, dots the seeds; chance is 0.2.
# (b) Each variant minus FedAvg on the same seed (crosses) and the 95 % interval of the mean
# difference; above the line would be a gain. With three seeds the interval is wide
# ($t_{0.975, 2} \approx 4.3$), so only large effects exclude 0.

# %% [markdown]
# ## The two weights

# %%
grid_diff = np.array([[DIFF[(a, b)][0] for b in W_FGMA] for a in W_KL])
grid_half = np.array([[DIFF[(a, b)][1] for b in W_FGMA] for a in W_KL])
grid_share = np.array([[SHARE[(a, b)].mean() for b in W_FGMA] for a in W_KL])
fig, axes = plt.subplots(1, 2, figsize=plotting.figsize("wide"))
vmax = max(0.05, float(np.abs(grid_diff).max()))
im0 = axes[0].imshow(grid_diff, cmap="RdBu", vmin=-vmax, vmax=vmax, origin="lower")
im1 = axes[1].imshow(grid_share, cmap="viridis", vmin=0, vmax=1, origin="lower")
for i in range(len(W_KL)):
    for j in range(len(W_FGMA)):
        dark = abs(grid_diff[i, j]) > 0.6 * vmax
        axes[0].text(
            j,
            i,
            f"{grid_diff[i, j]:+.3f}\n± {grid_half[i, j]:.3f}",
            ha="center",
            va="center",
            fontsize=8,
            color="w" if dark else "k",
        )
        axes[1].text(
            j,
            i,
            f"{grid_share[i, j]:.2f}",
            ha="center",
            va="center",
            fontsize=9,
            color="w" if grid_share[i, j] < 0.5 else "k",
        )
pi, pj = W_KL.index(PAPER_WEIGHTS[0]), W_FGMA.index(PAPER_WEIGHTS[1])
for ax in axes:
    ax.add_patch(plt.Rectangle((pj - 0.5, pi - 0.5), 1, 1, fill=False, ec="k", lw=2))
    ax.set_xticks(range(len(W_FGMA)), [f"{b:g}" for b in W_FGMA])
    ax.set_yticks(range(len(W_KL)), [f"{a:g}" for a in W_KL])
    ax.set(xlabel=r"$w_\mathrm{FGMA}$", ylabel=r"$w_\mathrm{KL}$")
axes[0].grid(False)
axes[1].grid(False)
fig.colorbar(im0, ax=axes[0], fraction=0.046, label="accuracy − FedAvg")
fig.colorbar(im1, ax=axes[1], fraction=0.046, label="share of the local loss")
axes[0].set_title("S2FGL − FedAvg:\nmean ± 95 % half-width")
axes[1].set_title("Weighted S2FGL terms\n/ local loss")
plotting.panel_labels(axes)
plt.show()

# %% [markdown]
# (a) Pooled test accuracy minus FedAvg's, per pair of weights: the mean over the seeds and
# the half-width of its 95 % interval (paired by seed); blue is a gain, red a loss; the
# framed cell is the paper's pair (5, 1), the bottom-left cell is FedAvg itself (0 by
# definition). (b) Inside the local loss: the weighted S2FGL terms
# $w_\text{KL}\,\mathrm{KL} + w_\text{FGMA}\,\mathrm{FGMA}$ as a share of the whole loss
# (cross-entropy included), at each client's last local step, averaged over rounds 2 to
# the last and over the seeds. Read the two panels together: the size of a term alone does not
# explain the loss. The codebook KL alone takes about half of the local loss or more and costs
# nothing; FGMA's share is not largest at weight 1 (a larger weight drives the term itself
# down), yet its cost grows with the weight in every row. Notebook 3 picks its weights from
# three pairs on the validation nodes of seeds 100–102, at this notebook's budget of
# {glue:text}`3_accuracy.ipynb::tune_rounds:.0f` rounds; its pick
# ($w_\text{KL}$ = {glue:text}`3_accuracy.ipynb::w_kl_tuned:g`,
# $w_\text{FGMA}$ = {glue:text}`3_accuracy.ipynb::w_fgma_tuned:g`) led the second pair there
# by only {glue:text}`3_accuracy.ipynb::tune_gap:.4f` of validation accuracy, a near-tie at
# three seeds.

# %%
table = pd.DataFrame(
    {
        "w_KL": [w[0] for w in CELLS],
        "w_FGMA": [w[1] for w in CELLS],
        "method": [method_for(w) for w in CELLS],
        "accuracy": [FINAL[w].mean() for w in CELLS],
        "sd": [FINAL[w].std(ddof=1) for w in CELLS],
        "− FedAvg": [DIFF[w][0] for w in CELLS],
        "95 % ±": [DIFF[w][1] for w in CELLS],
        "term share": [SHARE[w].mean() for w in CELLS],
    }
)
table.round(3)

# %% [markdown]
# The grid as a table: accuracy (mean and standard deviation over the seeds), the paired
# difference from FedAvg with the half-width of its 95 % interval, and the share of the
# weighted S2FGL terms in the local loss.

# %% [markdown]
# ## Claim checks
#
# The paper's ablation: each module adds accuracy, and both together beat each one alone.
# Each comparison is checked seed by seed, paired, with the verdict *not reproduced* fixed in
# the code (the outcome of the runs that designed the chapter: a module that beat its reference
# on every seed would stop the notebook), and the caveat gives the 95 % interval. A diagnosis of the
# miniature closes the notebook: the FGMA weight, not the KL weight, sets the gap; its control,
# raising $w_\text{KL}$ instead, must fail the same check.

# %%
runtime_s = time.perf_counter() - t_start
cpu_s = time.process_time()  # CPU s (user + system) of the kernel since its start, imports too
PAPER_ABL = "ablation over the spatial and spectral modules (the paper's table; not checked)"
SETUP = f"synthetic CSBM, {ROUNDS} rounds, {len(SEEDS)} seeds, no FGL baselines"


def ablation_claim(name, statement, d, what, numbers):
    """One paired comparison d = variant - reference per seed, with the verdict *not
    reproduced* fixed in the code (the check must fail on some seed)."""
    m, h = t_interval(d)
    n_pos = int(np.sum(d > 0))
    ci = f"{what} is {m:+.3f} +- {h:.3f} (95 % CI over {len(d)} seeds, > 0 in {n_pos})"
    claim(
        f"s2fgl/4_ablation/{name}",
        statement,
        paper=PAPER_ABL,
        value=d,
        check=greater(0.0),
        verdict="not reproduced",
        caveat=f"{ci}; {SETUP}",
        numbers=numbers,
        fmt=".3f",
    )
    return m, h


LABELS = ("fedavg", "nlir", "fgma", "full")
acc = {lab: FINAL[w] for lab, (w, _) in zip(LABELS, CORNERS.values(), strict=True)}
share_full = float(SHARE[PAPER_WEIGHTS].mean())
m_nlir, h_nlir = ablation_claim(
    "repository_adds",
    f"The knowledge repository alone (codebook KL, w_KL = 5) beats FedAvg ({ROUNDS} rounds)",
    acc["nlir"] - acc["fedavg"],
    "without FGMA - FedAvg",
    {"without FGMA": acc["nlir"], "FedAvg": acc["fedavg"]},
)
m_fgma, h_fgma = ablation_claim(
    "alignment_adds",
    f"The frequency alignment alone (FGMA, w_FGMA = 1) beats FedAvg ({ROUNDS} rounds)",
    acc["fgma"] - acc["fedavg"],
    "without the repository - FedAvg",
    {"without the repository": acc["fgma"], "FedAvg": acc["fedavg"]},
)
both_vs_halves = np.minimum(acc["full"] - acc["nlir"], acc["full"] - acc["fgma"])
m_both, h_both = ablation_claim(
    "both_beat_halves",
    "S2FGL with both modules beats each module alone (the smaller of the two paired gains)",
    both_vs_halves,
    "S2FGL - the better half",
    {"S2FGL": acc["full"], "without FGMA": acc["nlir"], "without the repository": acc["fgma"]},
)
lo, hi = W_FGMA[0], W_FGMA[-1]
fgma_cost = np.mean([FINAL[(a, lo)] - FINAL[(a, hi)] for a in W_KL], axis=0)  # (seeds,)
kl_cost = np.mean([FINAL[(W_KL[0], b)] - FINAL[(W_KL[-1], b)] for b in W_FGMA], axis=0)
mc, hc = t_interval(fgma_cost)
mk, hk = t_interval(kl_cost)
claim(
    "s2fgl/4_ablation/fgma_weight_sets_gap",
    f"Diagnosis: raising w_FGMA from {lo:g} to {hi:g} costs more than 5 points of pooled test "
    f"accuracy (mean over w_KL in {W_KL}); raising w_KL from {W_KL[0]:g} to {W_KL[-1]:g} "
    "instead does not",
    paper="(a diagnosis of this book; the official code uses w_KL = 5, w_FGMA = 1)",
    value=fgma_cost,
    check=greater(0.05),
    control=(f"raising w_KL from {W_KL[0]:g} to {W_KL[-1]:g} (mean over w_FGMA)", kl_cost),
    verdict="illustrated",
    caveat=f"not a claim of the paper: FGMA's cost {mc:+.3f} +- {hc:.3f}, w_KL's {mk:+.3f} +- "
    f"{hk:.3f} (95 % CI over {len(SEEDS)} seeds); at the paper's weights the S2FGL terms are "
    f"{share_full:.0%} of the local loss; {SETUP}",
    numbers={"cost of w_FGMA": fgma_cost, "cost of w_KL": kl_cost, "term share (5, 1)": share_full},
    fmt=".3f",
)
m_full, h_full = DIFF[PAPER_WEIGHTS]
glue("abl_rounds", ROUNDS, display=False)
glue("acc_fedavg", float(acc["fedavg"].mean()), display=False)
glue("acc_nlir", float(acc["nlir"].mean()), display=False)
glue("acc_fgma", float(acc["fgma"].mean()), display=False)
glue("acc_full", float(acc["full"].mean()), display=False)
glue("diff_nlir", m_nlir, display=False)
glue("diff_nlir_ci", h_nlir, display=False)
glue("diff_fgma", m_fgma, display=False)
glue("diff_fgma_ci", h_fgma, display=False)
glue("diff_full", m_full, display=False)
glue("diff_full_ci", h_full, display=False)
glue("diff_both_halves", m_both, display=False)
glue("diff_both_halves_ci", h_both, display=False)
glue("fgma_cost", mc, display=False)
glue("fgma_cost_ci", hc, display=False)
glue("kl_cost", mk, display=False)
glue("kl_cost_ci", hk, display=False)
glue("share_full", share_full, display=False)
glue("n_cells_gain", int(sum(DIFF[w][0] - DIFF[w][1] > 0 for w in CELLS)), display=False)
glue("n_cells", len(CELLS) - 1, display=False)  # the cells other than FedAvg's own (0, 0)
glue("runtime_s", runtime_s, display=False)
glue("cpu_s", cpu_s, display=False)
assert same_as_fedavg, "S2FGL with both weights at 0 must give FedAvg's numbers"
assert all(np.all((v >= 0) & (v <= 1)) for v in FINAL.values())
print(f"runtime {runtime_s:.1f} s (CPU {cpu_s:.1f} s)")
