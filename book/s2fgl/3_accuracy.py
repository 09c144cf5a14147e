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
# # Accuracy: S2FGL against FL baselines
#
# The paper's headline: S2FGL beats FL and FGL baselines on node classification. Here five
# methods share the same clients, the same ACM-GCN (hidden 64), the same budget (20 rounds ×
# 5 local Adam steps, lr 0.01, weight decay 5e-4) and the same metric, the test accuracy
# pooled over all clients of the global model after each round (of the local models for
# local-only training): **local** only, **FedAvg**, **FedProx** (the term
# $\mu \|\theta_k - \theta\|^2$ with $\mu = 0.005$, which is $\mu = 0.01$ in the FedProx
# paper's $\frac{\mu}{2}\|\cdot\|^2$ convention; not tuned), **S2FGL**
# (codebook KL + FGMA), and its half **S2FGL-NLIR** (codebook KL only), all with the paper's
# weights $w_\text{KL} = 5$, $w_\text{FGMA} = 1$ (the other half, FGMA alone, is measured in
# notebook 4's ablation, at 10 rounds, to keep this notebook within its time budget); and
# S2FGL once more with the weights picked on the validation nodes
# of seeds 100–102 (never on the reported seeds 0–2), from a grid of three pairs. The paper's
# pair is left out of the grid to pay for this notebook's control (it runs on seeds 0–2
# anyway; it scored lowest of four on seeds 100–102 when the grid was first run, at 20 rounds,
# in an earlier version of this notebook). The pairs are scored after notebook 4's budget of
# 10 rounds, half the reported runs', to keep the chapter within its time budget: a cheaper
# score that need not agree with the 20-round one (see below).
#
# The regime (20 % labelled nodes per client, feature signal σ = 0.35, 25 % inter-community
# partners, N = 1000, K = 10) was fixed on seeds 100–102 too.
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
import dataclasses
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
    "small": {"n_nodes": 1000, "rounds": 20, "tune_rounds": 10, "seeds": [0, 1, 2]},
    "large": {"n_nodes": 2000, "rounds": 100, "tune_rounds": 50, "seeds": [0, 1, 2, 3, 4]},
}[SCALE]
DATA = {"p_inter": 0.25, "feat_signal": 0.35}
SPLIT = (0.2, 0.2, 0.6)
K = 10
PAPER_WEIGHTS = (5.0, 1.0)
# (w_KL, w_FGMA) candidates; the paper's (5, 1) scored lowest of four on seeds 100-102 when the
# grid was first run, and is left out to pay for notebook 3's control (it runs on seeds 0-2)
GRID = [(5.0, 0.1), (5.0, 0.01), (1.0, 0.1)]
TUNING_SEEDS = [100, 101, 102]
SEEDS = CONFIG["seeds"]


def setting(seed):
    g = make_csbm_communities(n_nodes=CONFIG["n_nodes"], seed=seed, **DATA)
    return louvain_partition(g, K, seed=seed, split=SPLIT)


def permuted_labels(clients, seed):
    """The control: every client renames its classes by its own random permutation, so the
    clients share graphs and features but no label semantics (federation should not help)."""
    rng = np.random.default_rng(seed)
    return [dataclasses.replace(c, y=rng.permutation(int(c.y.max()) + 1)[c.y]) for c in clients]


# %% [markdown]
# ## Picking S2FGL's weights on other seeds
#
# Each candidate pair of weights runs on seeds 100–102 for half the reported runs' rounds
# and is scored by the pooled **validation** accuracy (mean of the last 5 of those rounds);
# the best pair is then used on the reported seeds, for the full number of rounds.

# %%
tune = {w: [] for w in GRID}
for seed in TUNING_SEEDS:
    clients = setting(seed)
    for w in GRID:
        h = run_federated("s2fgl", clients, rounds=CONFIG["tune_rounds"], weights=w, seed=seed)
        tune[w].append(h.val_accuracy[-5:].mean())
for w, v in tune.items():
    print(
        f"w_KL = {w[0]:g}, w_FGMA = {w[1]:g}: validation accuracy {np.mean(v):.3f} "
        f"(seeds {', '.join(f'{x:.3f}' for x in v)})"
    )
TUNED_WEIGHTS = max(GRID, key=lambda w: np.mean(tune[w]))
tune_sorted = sorted((np.mean(v) for v in tune.values()), reverse=True)
RUNNER_UP = sorted(GRID, key=lambda w: np.mean(tune[w]))[-2]
tune_lead = np.array(tune[TUNED_WEIGHTS]) - np.array(tune[RUNNER_UP])  # per tuning seed
print("picked", TUNED_WEIGHTS, f"(ahead of the next pair by {tune_sorted[0] - tune_sorted[1]:.4f})")
print("its lead over", RUNNER_UP, "per tuning seed:", np.round(tune_lead, 4))

# %% [markdown]
# The pick leads the next pair by {glue:text}`tune_gap:.4f` of validation accuracy on average;
# per tuning seed its lead runs from {glue:text}`tune_lead_min:+.4f` to
# {glue:text}`tune_lead_max:+.4f` (printed above). It may depend on the tuning budget: an
# earlier version of this notebook, on another CPU, scored the same pairs after the full 20
# rounds and picked $(1, 0.1)$ instead, by a lead of about 0.001, inside the drift between CPUs
# (that run is not kept and was not repeated). The pairs differ mostly in $w_\text{FGMA}$, and
# notebook 4 shows that FGMA's cost grows with its weight.
#
# ## The reported seeds

# %%
RUNS = {
    "local": ("local", PAPER_WEIGHTS),
    "FedAvg": ("fedavg", PAPER_WEIGHTS),
    "FedProx": ("fedprox", PAPER_WEIGHTS),
    "S2FGL": ("s2fgl", PAPER_WEIGHTS),
    "S2FGL-NLIR": ("s2fgl-nlir", PAPER_WEIGHTS),
    "S2FGL (w tuned)": ("s2fgl", TUNED_WEIGHTS),
}
H = {name: [] for name in RUNS}
H_PERM = []  # the control: FedAvg on per-client permuted label ids, the same 20 rounds
for seed in tqdm(SEEDS):
    clients = setting(seed)
    for name, (method, w) in RUNS.items():
        H[name].append(
            run_federated(method, clients, rounds=CONFIG["rounds"], weights=w, seed=seed)
        )
    H_PERM.append(
        run_federated("fedavg", permuted_labels(clients, seed), rounds=CONFIG["rounds"], seed=seed)
    )
ACC_PERM = np.array([h.accuracy for h in H_PERM])
ACC = {name: np.array([h.accuracy for h in hs]) for name, hs in H.items()}  # (seeds, rounds)
FINAL = {name: a[:, -5:].mean(1) for name, a in ACC.items()}  # mean of the last 5 rounds

# %%
# the chapter's colours (notebooks 2 and 4 use the same): one per method name; the tuned
# S2FGL run is S2FGL's colour, dashed
COLORS = {name: plotting.method_color(name) for name in RUNS}
COLORS["S2FGL (w tuned)"] = plotting.method_color("S2FGL")
COLORS["local"] = plotting.PALETTE[7]  # grey: no federation (its hashed colour is FedProx's)
fig, ax = plt.subplots(figsize=plotting.figsize("wide"))
r = np.arange(1, CONFIG["rounds"] + 1)
for name, a in ACC.items():
    style = "--" if name in ("S2FGL-NLIR", "S2FGL (w tuned)") else "-"
    col = COLORS[name]
    ax.plot(r, a.mean(0), style, color=col, label=name, lw=1.6)
    ax.fill_between(r, a.min(0), a.max(0), color=col, alpha=0.12)
ax.plot(r, ACC_PERM.mean(0), ":", color="0.35", label="FedAvg, permuted labels (control)", lw=1.4)
ax.axhline(0.2, color="0.5", lw=0.8, ls=":", label="chance (5 classes)")
ax.set(xlabel="round", ylabel="pooled test accuracy", ylim=(0, 1), xticks=r[::2])
ax.legend(ncol=2, fontsize=8)
ax.set_title(
    "FedAvg and FedProx beat local training; S2FGL at the paper's weights stays below FedAvg "
    f"(pooled test accuracy, K = {K}, {len(SEEDS)} seeds)",
    fontsize=10,
)
plt.show()

# %% [markdown]
# Mean over the seeds (lines) and their range (bands); chance is 0.2. Local-only training
# has 20 labelled nodes per client and sees no other client. The dashed lines are S2FGL's codebook
# half (S2FGL-NLIR) and S2FGL with the weights picked on seeds 100–102; the dotted grey line is the
# control of the claim check below (FedAvg on per-client permuted label ids). The codebook
# KL alone (S2FGL-NLIR) tracks FedAvg ({glue:text}`diff_nlir:+.3f` ±
# {glue:text}`diff_nlir_ci:.3f`, 95 % interval over the seeds), while S2FGL, whose FGMA term
# runs at the paper's weight 1, stays far below it ({glue:text}`diff_fedavg:+.3f` ±
# {glue:text}`diff_fedavg_ci:.3f`): in notebook 2 FGMA is
# {glue:text}`2_mechanisms.ipynb::fgma_ce_ratio_min:.1f` to
# {glue:text}`2_mechanisms.ipynb::fgma_ce_ratio_max:.1f` times the cross-entropy and holds
# every local model on the global embeddings of the round. The table gives each seed's
# numbers.

# %%
table = pd.DataFrame(
    {
        "mean": {n: v.mean() for n, v in FINAL.items()},
        "sd": {n: v.std(ddof=1) for n, v in FINAL.items()},
        **{f"seed {s}": {n: v[i] for n, v in FINAL.items()} for i, s in enumerate(SEEDS)},
    }
)
table.round(3)

# %% [markdown]
# Test accuracy, mean of the last five rounds, per seed; mean and standard deviation over the
# seeds. The S2FGL − FedAvg difference below carries a 95 % $t$-interval over the seeds.


# %%
def t_interval(d):
    half = stats.t.ppf(0.975, len(d) - 1) * d.std(ddof=1) / np.sqrt(len(d))
    return float(d.mean()), float(half)


diff = FINAL["S2FGL"] - FINAL["FedAvg"]
diff_t = FINAL["S2FGL (w tuned)"] - FINAL["FedAvg"]
diff_prox = FINAL["S2FGL"] - FINAL["FedProx"]
for lab, d in (
    ("S2FGL - FedAvg", diff),
    ("S2FGL (w tuned) - FedAvg", diff_t),
    ("S2FGL - FedProx", diff_prox),
):
    m, h = t_interval(d)
    print(f"{lab:26s} {m:+.3f} +- {h:.3f}  (95 % CI [{m - h:+.3f}, {m + h:+.3f}])")

# %% [markdown]
# ## Claim checks
#
# Federation helps here: FedAvg and FedProx beat local-only training. The control gets the
# same 20 rounds of FedAvg on the same graphs and features, but every client renames its
# classes by its own random permutation, so there is no shared label meaning to pool: if
# FedAvg beat local training there too, the gain would come from the extra averaging or the
# budget, not from federation. (Local-only training does not care about the names; the
# control is compared with the same local-only runs.) The control falls far below local
# training, because averaging models whose class ids mean different things is destructive: it
# shows that the gain needs a shared label meaning, not what the extra averaging alone would
# give. The verdict is *illustrated*, not reproduced: the paper's tables were not read, so it
# is not known whether the paper makes this comparison. The 5-point margin and this control were
# checked on seeds 100–102, with a separate exploratory script that is not kept in the
# repository, before the reported seeds ran: the
# permuted-label FedAvg fell far below local-only training there. The paper's claim, S2FGL
# beating FedAvg (and FedProx, the second FL baseline), is checked seed by seed with the verdict
# *not reproduced* fixed in the code
# (the outcome of the runs that designed the chapter): if S2FGL ever beat FedAvg on every seed,
# at another scale, the check would stop the notebook and the verdict would need revisiting.

# %%
runtime_s = time.perf_counter() - t_start
cpu_s = time.process_time()  # CPU s (user + system) of the kernel since its start, imports too
fed_gain = (FINAL["FedAvg"] + FINAL["FedProx"]) / 2 - FINAL["local"]
perm_gain = ACC_PERM[:, -5:].mean(1) - FINAL["local"]
claim(
    "s2fgl/3_accuracy/federation_beats_local",
    "FedAvg and FedProx (their mean) beat local-only training by more than 5 points",
    paper="(a premise of the paper's comparison with FL baselines; its tables were not read)",
    value=fed_gain,
    check=greater(0.05),
    control=("FedAvg on per-client permuted label ids, 20 rounds", perm_gain),
    verdict="illustrated",
    caveat="not a comparison read in the paper (its tables were not read): a premise of its "
    "comparison with FL baselines, checked over the seeds against a control that fails; the "
    "control falls far below local training, since averaging models whose class ids mean "
    "different things is destructive, so it shows that the gain needs shared label meaning, "
    "not what the gain of the extra averaging alone would be",
    numbers={
        "local": FINAL["local"],
        "FedAvg": FINAL["FedAvg"],
        "FedProx": FINAL["FedProx"],
        "FedAvg, permuted labels": ACC_PERM[:, -5:].mean(1),
    },
    fmt=".3f",
)
m, h = t_interval(diff)
mt, ht = t_interval(diff_t)
mn, hn = t_interval(FINAL["S2FGL-NLIR"] - FINAL["FedAvg"])
claim(
    "s2fgl/3_accuracy/s2fgl_beats_fedavg",
    "S2FGL (paper's weights) beats FedAvg in pooled test accuracy",
    paper='"Extensive experiments on multiple datasets demonstrate the superiority of S2FGL" '
    "(abstract; the tables were not read); the official Cora log reaches about 83-84 % mean "
    "local validation accuracy after 200 rounds, the paper's only number checked here",
    value=diff,
    check=greater(0.0),
    verdict="not reproduced",
    caveat=f"S2FGL - FedAvg is {m:+.3f} +- {h:.3f} (95 % CI over {len(SEEDS)} seeds); with "
    f"the weights tuned on seeds 100-102 {tuple(TUNED_WEIGHTS)} it is {mt:+.3f} +- "
    f"{ht:.3f}; codebook KL alone - FedAvg is {mn:+.3f} +- {hn:.3f}: at this scale FGMA "
    "at weight 1 outweighs the cross-entropy (notebook 2), and its two bands of 10 "
    "eigenvectors span about 60 % of the ~33 important nodes' space (the code's top n/5 on a "
    "Cora client: about 37 %; Departures table)",
    numbers={
        "S2FGL": FINAL["S2FGL"],
        "FedAvg": FINAL["FedAvg"],
        "S2FGL (w tuned)": FINAL["S2FGL (w tuned)"],
    },
    fmt=".3f",
)
mp, hp = t_interval(diff_prox)
claim(
    "s2fgl/3_accuracy/s2fgl_beats_fedprox",
    "S2FGL (paper's weights) beats FedProx in pooled test accuracy",
    paper='"Extensive experiments on multiple datasets demonstrate the superiority of S2FGL" '
    "(abstract; the tables were not read)",
    value=diff_prox,
    check=greater(0.0),
    verdict="not reproduced",
    caveat=f"S2FGL - FedProx is {mp:+.3f} +- {hp:.3f} (95 % CI over {len(SEEDS)} seeds); "
    "FedProx (mu = 0.005) tracks FedAvg here, so the reason is the same: FGMA at weight 1 "
    "outweighs the cross-entropy",
    numbers={"S2FGL": FINAL["S2FGL"], "FedProx": FINAL["FedProx"]},
    fmt=".3f",
)
glue("diff_fedprox", mp, display=False)
glue("diff_fedprox_ci", hp, display=False)
for name, v in FINAL.items():
    key = name.lower().replace(" (w tuned)", "_tuned").replace("-", "_")
    glue(f"acc_{key}", float(v.mean()), display=False)
    glue(f"sd_{key}", float(v.std(ddof=1)), display=False)
glue("acc_fedavg_perm", float(ACC_PERM[:, -5:].mean()), display=False)
glue("diff_fedavg", m, display=False)
glue("diff_fedavg_ci", h, display=False)
glue("diff_tuned", mt, display=False)
glue("diff_tuned_ci", ht, display=False)
glue("tuned_ci_word", "excludes" if abs(mt) > ht else "contains", display=False)
glue("diff_nlir", mn, display=False)
glue("diff_nlir_ci", hn, display=False)
glue("w_fgma_tuned", TUNED_WEIGHTS[1], display=False)
glue("w_kl_tuned", TUNED_WEIGHTS[0], display=False)
glue("tune_gap", float(tune_sorted[0] - tune_sorted[1]), display=False)
glue("tune_lead_min", float(tune_lead.min()), display=False)
glue("tune_lead_max", float(tune_lead.max()), display=False)
glue("tune_rounds", CONFIG["tune_rounds"], display=False)
glue("runtime_s", runtime_s, display=False)
glue("cpu_s", cpu_s, display=False)
assert all(np.all((a >= 0) & (a <= 1)) for a in ACC.values())
print(f"runtime {runtime_s:.1f} s (CPU {cpu_s:.1f} s)")
