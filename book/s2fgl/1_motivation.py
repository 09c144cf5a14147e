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
# # Why cutting a graph into clients hurts: label signals and spectra
#
# S2FGL starts from two observations about subgraph federated learning. **Spatially**, the
# edges between clients vanish, so label information no longer flows along them
# (label-signal disruption). **Spectrally**, the clients' subgraphs differ: some are
# homophilous (labels vary slowly over the graph, low frequency), some heterophilous (high
# frequency), so each local GNN learns its own propagation. This notebook measures both on
# the miniature's data: a community-structured contextual SBM with per-community homophily
# $h_q$, split by Louvain into $K$ clients. It shows the dropped-edge share and the PPR
# structure inertia against $K \in \{3, 5, 10, 20\}$ (the paper's Fig. 1a), the client ×
# client KL divergence of the Laplacian eigenvalue histograms (Fig. 1b) and each client's
# label frequency.
#
# At `small` scale the notebook takes well under a minute on one CPU thread.

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

from icml25.common import glue, plotting, setup
from icml25.common.claims import claim, greater, less
from icml25.s2fgl import (
    label_disruption,
    label_frequency,
    louvain_partition,
    make_csbm_communities,
    spectral_stats,
)

t_start = time.perf_counter()
SCALE = setup(seed=0)
CONFIG = {
    "small": {"n_nodes": 1000, "seeds": [0, 1, 2]},
    "large": {"n_nodes": 2000, "seeds": [0, 1, 2, 3, 4]},
}[SCALE]
KS = [3, 5, 10, 20]
DATA = {"p_inter": 0.25, "feat_signal": 0.35}  # the regime of notebook 3
SPLIT = (0.2, 0.2, 0.6)
SEEDS = CONFIG["seeds"]


def graph(seed, **kw):
    return make_csbm_communities(n_nodes=CONFIG["n_nodes"], seed=seed, **{**DATA, **kw})


g0 = graph(SEEDS[0])
print(
    f"N = {g0.n_nodes}, E = {len(g0.edges)}, mean degree {2 * len(g0.edges) / g0.n_nodes:.1f}, "
    f"planted h_q in [{g0.community_homophily.min():.2f}, {g0.community_homophily.max():.2f}]"
)

# %% [markdown]
# ## Label-signal disruption against the number of clients
#
# For each seed and $K$, Louvain (networkx) finds the communities, the largest goes to the
# lightest client, and every edge between two clients is dropped. The *control* graph has no
# inter-community partners ($p_\text{inter} = 0$): Louvain then recovers whole planted
# communities and a split drops (almost) nothing, whatever $K$. Structure inertia of an
# unlabelled node $i$ is $\max_j \alpha P_{ij} t_j$, its personalised-PageRank weight on the
# strongest labelled node ($\alpha = 0.85$, the code's value), on the whole graph and on the
# clients' subgraphs; label coverage is $\sum_j \alpha P_{ij} t_j$.

# %%
rows = {k: [] for k in ("share", "share_ctrl", "inertia_g", "inertia_c", "cover_g", "cover_c")}
for seed in SEEDS:
    g = graph(seed)
    g_ctrl = graph(seed, p_inter=0.0)
    per = {k: [] for k in rows}
    for K in KS:
        d = label_disruption(g, louvain_partition(g, K, seed=seed, split=SPLIT))
        dc = label_disruption(g_ctrl, louvain_partition(g_ctrl, K, seed=seed, split=SPLIT))
        per["share"].append(d["dropped_share"])
        per["share_ctrl"].append(dc["dropped_share"])
        per["inertia_g"].append(d["inertia_graph"])
        per["inertia_c"].append(d["inertia_clients"])
        per["cover_g"].append(d["coverage_graph"])
        per["cover_c"].append(d["coverage_clients"])
    for k in rows:
        rows[k].append(per[k])
R = {k: np.array(v) for k, v in rows.items()}  # (seeds, len(KS))
# The official code's propagation D^-1 A has no self-loops; inertia at K = 10 with it:
CODE_PPR = []
for seed in SEEDS:
    g = graph(seed)
    d = label_disruption(g, louvain_partition(g, 10, seed=seed, split=SPLIT), self_loops=False)
    CODE_PPR.append([d["inertia_clients"], d["inertia_graph"]])
CODE_PPR = np.array(CODE_PPR)  # (seeds, 2): clients, whole graph
print("inertia at K = 10 with the code's D^-1 A (clients, whole graph):", CODE_PPR.round(4))
glue("inertia_code_c", float(CODE_PPR[:, 0].mean()), display=False)
glue("inertia_code_g", float(CODE_PPR[:, 1].mean()), display=False)

fig, axes = plt.subplots(1, 2, figsize=plotting.figsize("wide"))
ax = axes[0]
for key, name, col, mk in [
    # colours outside the chapter's method colours (these are graphs, not methods)
    ("share", "CSBM, $p_{inter}$ = 0.25", plotting.PALETTE[0], "o"),
    ("share_ctrl", "control, $p_{inter}$ = 0", "0.3", "s"),  # dark grey: it lies on y = 0
]:
    m, s = 100 * R[key].mean(0), 100 * R[key].std(0)
    ax.errorbar(KS, m, yerr=s, marker=mk, capsize=3, label=name, color=col)
ax.set(xlabel="number of clients K", ylabel="edges dropped by the split (%)", xscale="log")
ax.set_xticks(KS, [str(k) for k in KS])
ax.minorticks_off()
ax.set_ylim(bottom=0)
ax.legend()
ax = axes[1]
for key, name, col in [
    ("inertia_g", "whole graph", plotting.PALETTE[0]),
    ("inertia_c", "clients' subgraphs", plotting.PALETTE[3]),
]:
    m, s = R[key].mean(0), R[key].std(0)
    ax.errorbar(KS, m, yerr=s, marker="o", capsize=3, label=name, color=col)
ax.set(
    xlabel="number of clients K",
    ylabel=r"mean structure inertia $\max_j \alpha P_{ij} t_j$",
    xscale="log",
)
ax.set_xticks(KS, [str(k) for k in KS])
ax.minorticks_off()
ax.legend()
plotting.panel_labels(axes)
fig.suptitle("More clients drop more edges, but the unlabelled nodes' PPR inertia does not fall")
plt.show()

# %% [markdown]
# (a) The share of edges a split removes grows with $K$ (mean ± sd over the seeds); on the
# control graph without inter-community edges it stays near 0. (b) The mean structure
# inertia of unlabelled nodes, on the whole graph (with the union of the clients' labels) and
# on the clients' own subgraphs. It does **not** fall on the clients: a node that loses an
# edge to a labelled neighbour loses that path, but a node that loses an unlabelled neighbour
# gives *more* PageRank weight to its remaining (labelled) ones, and with $\alpha = 0.85$ the
# walk rarely leaves the 1-hop neighbourhood. The mass on labelled nodes (label coverage)
# does drop a little, see the numbers below.

# %%
print("K:", KS)
print("label coverage whole graph:", np.round(R["cover_g"].mean(0), 4))
print("label coverage clients    :", np.round(R["cover_c"].mean(0), 4))
print("inertia whole graph       :", np.round(R["inertia_g"].mean(0), 4))
print("inertia clients           :", np.round(R["inertia_c"].mean(0), 4))

# %% [markdown]
# ## Spectral heterogeneity between clients
#
# For $K = 10$ clients: the eigenvalues of each client's normalised Laplacian (in $[0, 2]$),
# the KL divergence between their 20-bin histograms (the paper's Fig. 1b), and each client's
# **label frequency** $\sum_c y_c^\top (D - A) y_c / \sum_c y_c^\top D y_c = 1 -$ edge
# homophily: 0 when labels are constant along edges, 1 when every edge joins two classes.
# The control graph draws every community with the same homophily $h_q = 0.5$.

# %%
K = 10
spec = {
    "kl_max": [],
    "kl_mean": [],
    "lf_span": [],
    "kl_max_c": [],
    "kl_mean_c": [],
    "lf_span_c": [],
}
for seed in SEEDS:
    for tag, kw in (("", {}), ("_c", {"homophily_range": (0.5, 0.5)})):
        clients = louvain_partition(graph(seed, **kw), K, seed=seed, split=SPLIT)
        eigs, kl = spectral_stats(clients)
        lf = np.array([label_frequency(c.adj, c.y) for c in clients])
        off = kl[~np.eye(K, dtype=bool)]
        spec["kl_max" + tag].append(kl.max())
        spec["kl_mean" + tag].append(off.mean())
        spec["lf_span" + tag].append(lf.max() - lf.min())
        if seed == SEEDS[0] and tag == "":
            eigs0, kl0, lf0 = eigs, kl, lf
S = {k: np.array(v) for k, v in spec.items()}

# The mean-KL threshold (0.09) was fixed on the regime-fixing seeds 100-102; their values:
FIX_SEEDS = [100, 101, 102]
fix = {"": [], "_c": [], "max_c": []}
for seed in FIX_SEEDS:
    for tag, kw in (("", {}), ("_c", {"homophily_range": (0.5, 0.5)})):
        clients = louvain_partition(graph(seed, **kw), K, seed=seed, split=SPLIT)
        kl = spectral_stats(clients)[1]
        fix[tag].append(kl[~np.eye(K, dtype=bool)].mean())
        if tag == "_c":
            fix["max_c"].append(kl.max())
FIX = {k: np.array(v) for k, v in fix.items()}
glue("kl_mean_fix_min", float(FIX[""].min()), display=False)
glue("kl_mean_fix_max", float(FIX[""].max()), display=False)
glue("kl_mean_fix_c_min", float(FIX["_c"].min()), display=False)
glue("kl_mean_fix_c_max", float(FIX["_c"].max()), display=False)
glue("kl_mean_ratio", float((S["kl_mean"] / S["kl_mean_c"]).mean()), display=False)

order = np.argsort(lf0)
fig, axes = plt.subplots(1, 3, figsize=(12, 3.8), gridspec_kw={"width_ratios": [1.2, 1.1, 1]})
ax = axes[0]
im = ax.imshow(kl0[np.ix_(order, order)], cmap="viridis")
ax.set_xticks(range(K), order)
ax.set_yticks(range(K), order)
ax.set(xlabel="client j", ylabel="client i", title="KL$(p_i \\| p_j)$, eigenvalue histograms")
ax.grid(False)
fig.colorbar(im, ax=ax, fraction=0.046)
ax = axes[1]
cmap = plt.get_cmap("coolwarm")
for rank, i in enumerate(order):
    ev = np.sort(eigs0[i])
    ax.plot(ev, np.linspace(0, 1, len(ev)), color=cmap(rank / (K - 1)), lw=1.2)
ax.set(xlabel=r"normalised-Laplacian eigenvalue $\lambda$", ylabel="cumulative share", xlim=(0, 2))
ax.set_title("eigenvalue CDFs (blue: homophilous)", loc="right")
ax = axes[2]
ax.bar(range(K), lf0[order], color=[cmap(r / (K - 1)) for r in range(K)])
ax.set_xticks(range(K), order)
ax.set(xlabel="client (sorted)", ylabel="label frequency = 1 - homophily", ylim=(0, 1))
plotting.panel_labels(axes)
fig.suptitle(f"Clients differ in spectrum and in label frequency (K = {K}, seed {SEEDS[0]})")
plt.show()

# %% [markdown]
# (a) The KL between the clients' eigenvalue histograms (rows and columns sorted by label
# frequency) is small for most pairs and large for a few. (b) The eigenvalue CDFs themselves
# are close: in this generator a community's homophily changes *which* nodes are joined far
# more than the graph's shape, so the spectra of the subgraphs differ only a little (the mean
# KL is still {glue:text}`kl_mean_ratio:.1f` times that of a constant-homophily control on
# average, see below). (c) What
# differs strongly is where the **labels** sit on these graphs: the label frequency per client
# spans a wide range, so what one client's GNN should smooth, another's should sharpen.

# %%
print("max KL per seed      :", np.round(S["kl_max"], 3), " control:", np.round(S["kl_max_c"], 3))
print("mean KL per seed     :", np.round(S["kl_mean"], 3), " control:", np.round(S["kl_mean_c"], 3))
print("label-frequency span :", np.round(S["lf_span"], 3), " control:", np.round(S["lf_span_c"], 3))
print(
    "mean KL, seeds 100-102 (where the threshold 0.09 was fixed):",
    np.round(FIX[""], 3),
    " control:",
    np.round(FIX["_c"], 3),
)

# %% [markdown]
# The mean-KL check's threshold, 0.09, was set on the regime-fixing seeds 100–102, where the
# graph's mean client-pair KL ranged from {glue:text}`kl_mean_fix_min:.3f` to
# {glue:text}`kl_mean_fix_max:.3f` and the constant-homophily control's from
# {glue:text}`kl_mean_fix_c_min:.3f` to {glue:text}`kl_mean_fix_c_max:.3f` (printed above):
# 0.09 lies between the two ranges, above every control value, so seeds 100–102 alone give it;
# the reported seeds 0–2 (the "mean KL per seed" line) are then checked against it.

# %% [markdown]
# ## Claim checks
#
# Four checks, over the seeds: the dropped share rises from $K = 3$ to $K = 20$ (control:
# the graph without inter-community edges); the clients' structure inertia is below the whole
# graph's (the check; it does not hold here, see above); the spectra differ between
# clients (max KL ≥ 0.1, and a mean KL that a constant-homophily control does not reach); and
# the label frequencies span at least 0.2 (control: constant homophily).

# %%
runtime_s = time.perf_counter() - t_start
cpu_s = time.process_time()  # CPU s (user + system) of the kernel since its start, imports too
rise = R["share"][:, -1] - R["share"][:, 0]
rise_ctrl = R["share_ctrl"][:, -1] - R["share_ctrl"][:, 0]
claim(
    "s2fgl/1_motivation/dropped_share_rises",
    "Splitting the graph into more clients drops more edges: the dropped share rises by more "
    "than 1 point from K = 3 to K = 20",
    paper="label-signal disruption grows with the number of clients (Fig. 1a)",
    value=100 * rise,
    check=greater(1.0),
    control=("no inter-community edges", 100 * rise_ctrl),
    verdict="illustrated",
    caveat="nearly by construction: grouping the same Louvain communities into more clients "
    "cuts more of the edges between them; the control shows only that a graph without "
    "inter-community edges loses none",
    numbers={"share K=3 (%)": 100 * R["share"][:, 0], "share K=20 (%)": 100 * R["share"][:, -1]},
    fmt=".2f",
)
claim(
    "s2fgl/1_motivation/client_inertia_lower",
    "Unlabelled nodes keep less PPR structure inertia on the clients' subgraphs than on the "
    "whole graph (K = 10)",
    paper="cutting edges weakens the label signal that reaches unlabelled nodes (Sec. 3)",
    value=R["inertia_c"][:, KS.index(10)],
    check=less(R["inertia_g"][:, KS.index(10)]),
    verdict="not reproduced",
    caveat="the clients' inertia is higher than the whole graph's "
    f"({R['inertia_c'][:, 2].mean():.4f} vs {R['inertia_g'][:, 2].mean():.4f}): "
    "with alpha = 0.85 the PPR walk stays within a hop, and a lost unlabelled neighbour raises "
    "the weight of the remaining labelled ones; label coverage falls only slightly "
    f"({R['cover_c'][:, 2].mean():.4f} vs {R['cover_g'][:, 2].mean():.4f}); with the official "
    "code's propagation D^-1 A (no self-loops) the clients stay higher "
    f"({CODE_PPR[:, 0].mean():.4f} vs {CODE_PPR[:, 1].mean():.4f})",
    numbers={"whole graph": R["inertia_g"][:, 2], "clients, code's D^-1 A": CODE_PPR[:, 0]},
    fmt=".4f",
)
claim(
    "s2fgl/1_motivation/spectral_kl_max",
    "The clients' Laplacian eigenvalue histograms differ: the largest client-pair KL is at "
    "least 0.1 (K = 10)",
    paper="heat map of KL between clients' eigenvalue distributions (Fig. 1b)",
    value=S["kl_max"],
    check=greater(0.1),
    verdict="illustrated",
    caveat="no control: the constant-homophily graph reaches a max KL of "
    f"{S['kl_max_c'].mean():.3f} on average (up to {S['kl_max_c'].max():.3f}), and "
    f"{FIX['max_c'].min():.3f} to {FIX['max_c'].max():.3f} on the regime-fixing seeds 100-102: "
    "histograms of about 100 eigenvalues are noisy, so the mean-KL check below carries the claim",
    fmt=".3f",
)
claim(
    "s2fgl/1_motivation/spectral_kl_mean",
    "Per-community homophily makes the clients' spectra differ beyond sampling noise: the mean "
    "client-pair KL exceeds 0.09 (K = 10)",
    paper="spectral heterogeneity across clients (Fig. 1b)",
    value=S["kl_mean"],
    check=greater(0.09),
    control=("constant homophily 0.5", S["kl_mean_c"]),
    verdict="illustrated",
    caveat="planted by construction: the generator draws each community's homophily from "
    "U(0.1, 0.95); the check shows that it survives the Louvain split and stands above the "
    "sampling noise of the constant-homophily control, not that real graphs have it",
    numbers={
        "seeds 100-102 (threshold fixed)": FIX[""],
        "control, seeds 100-102": FIX["_c"],
    },
    fmt=".3f",
)
claim(
    "s2fgl/1_motivation/label_frequency_span",
    "Clients' label frequencies (1 - edge homophily) span at least 0.2 (K = 10)",
    paper="clients' signals sit at different graph frequencies (Sec. 3)",
    value=S["lf_span"],
    check=greater(0.2),
    control=("constant homophily 0.5", S["lf_span_c"]),
    verdict="illustrated",
    caveat="true by construction: a client's label frequency is 1 - the edge homophily that the "
    "generator plants per community; the check shows only that the Louvain clients keep that "
    "spread",
    fmt=".3f",
)
glue("share_k3", 100 * float(R["share"][:, 0].mean()), display=False)
glue("share_k20", 100 * float(R["share"][:, -1].mean()), display=False)
glue("kl_max", float(S["kl_max"].mean()), display=False)
glue("lf_span", float(S["lf_span"].mean()), display=False)
glue("runtime_s", runtime_s, display=False)
glue("cpu_s", cpu_s, display=False)
assert np.all(R["share"] >= 0) and np.all(R["share"] <= 1)
print(f"runtime {runtime_s:.1f} s (CPU {cpu_s:.1f} s)")
