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
# # Inside S2FGL: important nodes, the codebook and the frequency bands
#
# S2FGL adds two terms to each client's cross-entropy. The **codebook KL** (the paper's NLIR
# term) compares, over all local nodes, the soft assignment of the local and the global
# model's embeddings to a server codebook of class prototypes; the prototypes come from each
# client's *important* nodes, ranked by personalised PageRank. The **frequency alignment**
# (FGMA) builds a $k$-NN graph on the important nodes' embeddings, once for the local and once
# for the global model, and matches the projections of the embeddings onto the 10 lowest and
# the 10 highest eigenvectors of its Laplacian. This notebook opens each piece: which nodes
# are important, what the codebook looks like, how large each term is next to the
# cross-entropy, whether the terms do hold a local model near the global one, and why this
# book uses the band form of FGMA rather than the code's eigenvector pairs.
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
import copy
import time

import matplotlib.pyplot as plt
import networkx as nx
import numpy as np
import torch
from sklearn.decomposition import PCA

from icml25.common import glue, plotting, setup
from icml25.common.claims import claim, greater, less
from icml25.s2fgl import (
    ACMGCN,
    client_update,
    codebook_kl_loss,
    frequency_alignment_loss,
    important_nodes,
    knn_laplacian_bands,
    louvain_partition,
    make_csbm_communities,
    node_importance,
    run_federated,
)

t_start = time.perf_counter()
SCALE = setup(seed=0)
CONFIG = {
    "small": {"n_nodes": 1000, "rounds": 10, "seeds": [0, 1, 2]},
    "large": {"n_nodes": 2000, "rounds": 40, "seeds": [0, 1, 2, 3, 4]},
}[SCALE]
DATA = {"p_inter": 0.25, "feat_signal": 0.35}  # the regime of notebook 3
SPLIT = (0.2, 0.2, 0.6)
K = 10
SEEDS = CONFIG["seeds"]


def setting(seed):
    g = make_csbm_communities(n_nodes=CONFIG["n_nodes"], seed=seed, **DATA)
    return g, louvain_partition(g, K, seed=seed, split=SPLIT)


graph0, clients0 = setting(SEEDS[0])

# %% [markdown]
# ## Important nodes
#
# $\Lambda_i = \max_j P_{ij} t_j + \alpha \sum_j P_{ij} t_j$ with
# $P = (I - (1 - \alpha) \tilde D^{-1} \tilde A)^{-1}$, $\alpha = 0.85$, $t$ the train mask
# (the official code's formula). The top third of a client's nodes are its important
# nodes: the FGMA term acts on them, and the labelled ones among them give the client's class
# prototypes.

# %%
c = clients0[0]
lam = node_importance(c.adj, c.train_mask)
top = important_nodes(c.adj, c.train_mask)
G = nx.from_numpy_array(c.adj)
pos = nx.spring_layout(G, seed=0)
# classes in a palette of their own (the book's palette marks methods: orange is S2FGL)
CLASS_COLORS = [plt.get_cmap("tab10").colors[i] for i in (0, 2, 4, 8, 9)]  # no orange, pink
colors = [CLASS_COLORS[int(k)] for k in c.y]
fig, axes = plt.subplots(1, 2, figsize=plotting.figsize("wide"))
ax = axes[0]
nx.draw_networkx_edges(G, pos, ax=ax, alpha=0.25, width=0.6)
nx.draw_networkx_nodes(
    G,
    pos,
    ax=ax,
    node_size=15 + 900 * (lam - lam.min()) / np.ptp(lam),
    node_color=colors,
    edgecolors=["k" if t else "none" for t in c.train_mask],
    linewidths=1.0,
)
ax.set_title("client 0: size = importance, colour = class, ring = labelled")
ax.axis("off")
ax = axes[1]
order = np.argsort(-lam)
ax.bar(
    range(len(lam)), lam[order], color=["k" if c.train_mask[i] else "0.7" for i in order], width=1.0
)
ax.axvline(len(lam) // 3 - 0.5, color=plotting.method_color("S2FGL"), ls="--", label="top third")
ax.set(xlabel="node rank", ylabel=r"importance $\Lambda_i$", ylim=(0, None))
ax.legend()
plotting.panel_labels(axes)
fig.suptitle("Labelled nodes and their neighbours carry the PPR importance")
plt.show()
share_lab = c.train_mask[top].mean()
print(
    f"{c.train_mask.mean():.0%} of client 0 is labelled; {share_lab:.0%} of its important nodes are"
)
lab_imp = []  # share of each client's labelled nodes that are important, over all clients
for cl in clients0:
    top_cl = important_nodes(cl.adj, cl.train_mask)
    lab_imp.append(np.isin(np.nonzero(cl.train_mask)[0], top_cl).mean())
print(f"labelled nodes that are important, per client: {np.round(lab_imp, 2)}")
glue("labelled_important", float(np.min(lab_imp)), display=False)

# %% [markdown]
# (a) Client 0's subgraph: big nodes are important. (b) Importance by rank, labelled nodes in
# black: a labelled node has $P_{ii} \ge 1$ on itself, so every labelled node ranks above
# every unlabelled one, and the top third is the labelled nodes plus their best-connected
# neighbours. In this regime (20 % labelled, top third) **every labelled node is important**
# on every client (the smallest share over the clients is
# {glue:text}`labelled_important:.2f`): the repository's prototypes are plain class means over
# all of a client's training nodes, and the PPR ranking only chooses FGMA's node set. In the
# official code's setting (60 % labelled) the top third is a choice *among* labelled nodes.
# The official code takes prototypes from *all* top-ranked nodes with their true labels
# (`data.y[top_indices]`). At its 60 % labelled nodes these are all training nodes, so no
# unlabelled node's label is read; with fewer than a third of the nodes labelled, as here, the
# same line would read the labels of unlabelled nodes (a latent leak). This book keeps only the
# labelled important nodes.
#
# ## The codebook and the size of each term
#
# One S2FGL run with the paper's weights ($w_\text{KL} = 5$, $w_\text{FGMA} = 1$) on the same
# clients. The server's codebook holds 4 repeats × 5 classes of prototypes (each repeat
# averages 70 % of the clients), here projected with the global model's embeddings of client
# 0 onto their first two principal components.

# %%
hist0 = run_federated("s2fgl", clients0, rounds=CONFIG["rounds"], seed=SEEDS[0])
glob0 = ACMGCN(clients0[0].x.shape[1], 64, 5)
glob0.load_state_dict(hist0.extra["global_state"])
glob0.eval()
with torch.no_grad():
    _, h0 = glob0(torch.as_tensor(c.x), torch.as_tensor(c.adj))
cb = hist0.extra["codebook"]
pca = PCA(2).fit(torch.cat([h0, cb.reshape(-1, cb.shape[-1])]).numpy())
z, zc = pca.transform(h0.numpy()), pca.transform(cb.reshape(-1, cb.shape[-1]).numpy())
fig, axes = plt.subplots(1, 2, figsize=plotting.figsize("wide"))
ax = axes[0]
ax.scatter(z[:, 0], z[:, 1], c=colors, s=12, alpha=0.6)
cls = np.repeat(np.arange(cb.shape[0]), cb.shape[1])
ax.scatter(
    zc[:, 0],
    zc[:, 1],
    c=[CLASS_COLORS[k] for k in cls],
    marker="*",
    s=220,
    edgecolors="k",
    linewidths=0.8,
)
ax.set(xlabel="PC 1", ylabel="PC 2", title="client 0 embeddings (dots), codebook (stars)")
ax = axes[1]
r = np.arange(1, CONFIG["rounds"] + 1)
CE_COLOR = plotting.PALETTE[7]  # grey: the cross-entropy term alone (not a method of its own)
ax.plot(r, hist0.ce, marker="o", label="cross-entropy", color=CE_COLOR)
ax.plot(
    r[1:],
    5 * hist0.kl[1:],
    marker="s",
    label=r"$w_{KL}\,$ codebook KL",
    color=plotting.method_color("S2FGL-NLIR"),
)
ax.plot(
    r[1:],
    1 * hist0.fgma[1:],
    marker="^",
    label=r"$w_{FGMA}\,$ FGMA",
    color=plotting.method_color("S2FGL"),
)
ax.set(xlabel="round", ylabel="loss term at the last local step", yscale="log")
ax.legend()
plotting.panel_labels(axes)
fig.suptitle("The codebook sits on the class clusters; FGMA outweighs the cross-entropy")
plt.show()
ratio = hist0.fgma[1:] / hist0.ce[1:]
print("FGMA / CE per round (from round 2):", np.round(ratio, 2))
kl_ce_ratio = 5.0 * hist0.kl[1:] / hist0.ce[1:]
print("5 KL / CE per round (from round 2):", np.round(kl_ce_ratio, 2))

# %% [markdown]
# (a) The 20 codebook entries (stars, coloured by class) sit on the class clusters of the
# global model's embeddings; the 4 repeats of a class nearly coincide. (b) The three terms of
# the local loss, each with its weight, averaged over clients at the last local step. With
# the paper's weights the FGMA term is {glue:text}`fgma_ce_ratio_r2:.1f` times the
# cross-entropy when both S2FGL terms switch on in round 2 (the first global model exists
# then), at most {glue:text}`fgma_ce_ratio_max:.1f` times and at least
# {glue:text}`fgma_ce_ratio_min:.1f` times over the rounds
# ({glue:text}`fgma_ce_ratio_last:.1f` in the last): it is an
# MSE between $n \times d$ projections whose scale follows the embeddings, not the task. The
# weighted codebook KL is below FGMA but not negligible: in the last round it is
# {glue:text}`kl_ce_ratio_last:.1f` times the cross-entropy. It is small, not 0, at a round's
# first local step: the local model starts from the global one but trains with dropout on,
# while the teacher is the global model in eval mode (as in the official code); it grows over
# the five steps.
#
# ## Do the terms hold the local model near the global one?
#
# From the final global model of the run above, each client takes 5 local steps, once with
# the cross-entropy alone (the local drift FedAvg lives with), once with S2FGL's loss, and
# once with each term alone. Then the drift is measured four ways. Two of them are the terms
# themselves: FGMA (band form) on the important nodes and the codebook KL on all nodes; each
# is what one of the terms optimises, so a term that lowers *its own* measure shows only that
# the optimiser works. The other two are optimised by neither term: the share of the client's
# **unlabelled** nodes on which the local model's predicted class differs from the global
# model's (both S2FGL terms act on the embeddings $h$, not on the classifier that turns them
# into predictions, and the cross-entropy sees only the labelled nodes), and the relative
# parameter distance $\|\theta_k - \theta\| / \|\theta\|$.


# %%
METHODS_D = ("fedavg", "s2fgl", "s2fgl-nlir", "s2fgl-fgma")


def band_mse(hl, hg):
    """Per-band MSE(U U^T H_l, U' U'^T H_g), (low, high), and the projections of client hl."""
    ul, ug = knn_laplacian_bands(hl), knn_laplacian_bands(hg)
    proj_l = [u @ (u.T @ hl) for u in ul]
    proj_g = [u @ (u.T @ hg) for u in ug]
    return (
        [float(((a - b) ** 2).mean()) for a, b in zip(proj_l, proj_g, strict=True)],
        proj_l,
        proj_g,
    )


def drift(seed, hist=None):
    g, clients = setting(seed)
    if hist is None:
        hist = run_federated("s2fgl", clients, rounds=CONFIG["rounds"], seed=seed)
    glob = ACMGCN(clients[0].x.shape[1], 64, 5)
    glob.load_state_dict(hist.extra["global_state"])
    cbk = hist.extra["codebook"]
    # the control of the prediction-hold check: S2FGL's loss with a random Gaussian codebook
    # of the same shape and mean entry norm (its own generator: the runs above are unchanged)
    gen = torch.Generator().manual_seed(seed)
    cbk_rand = torch.randn(cbk.shape, generator=gen) * cbk.norm(dim=-1, keepdim=True).mean()
    dis_rand, dis_match, w_match = [], [], []
    out = {m: [] for m in METHODS_D}
    proj = {}
    theta = torch.cat([p.detach().flatten() for p in glob.parameters()])
    for ci, cl in enumerate(clients):
        x, a = torch.as_tensor(cl.x), torch.as_tensor(cl.adj)
        imp = important_nodes(cl.adj, cl.train_mask)
        unl = torch.as_tensor(~cl.train_mask)
        glob.eval()
        with torch.no_grad():
            lg, hg = glob(x, a)
        for m in out:
            torch.manual_seed(seed)
            loc = copy.deepcopy(glob)
            client_update(loc, glob, cl, m, local_steps=5, codebook=cbk)
            loc.eval()
            with torch.no_grad():
                ll, hl = loc(x, a)
            if m == "fedavg":
                hl_ce = hl  # the CE-only local embeddings: where the two codebooks are compared
            (low, high), pl, pg = band_mse(hl[imp], hg[imp])
            if ci == 0:
                proj[m] = (pl, pg)
            out[m].append(
                [
                    float(frequency_alignment_loss(hl[imp], hg[imp])),
                    float(codebook_kl_loss(hl, hg, cbk)),
                    low,
                    high,
                    float((ll.argmax(1) != lg.argmax(1))[unl].float().mean()),
                    float(
                        (torch.cat([p.detach().flatten() for p in loc.parameters()]) - theta).norm()
                        / theta.norm()
                    ),
                ]
            )
        torch.manual_seed(seed)
        loc = copy.deepcopy(glob)
        client_update(loc, glob, cl, "s2fgl", local_steps=5, codebook=cbk_rand)
        loc.eval()
        with torch.no_grad():
            ll, _ = loc(x, a)
        dis_rand.append(float((ll.argmax(1) != lg.argmax(1))[unl].float().mean()))
        # the strength-matched control: the random codebook's KL weight scaled so that its
        # gradient with respect to the local embeddings, at the CE-only model's embeddings, has
        # the norm of the real codebook's (a random codebook's cosine softmax is near uniform,
        # so at the same weight it pulls less)
        w = 5.0 * kl_grad_norm(hl_ce, hg, cbk) / kl_grad_norm(hl_ce, hg, cbk_rand)
        torch.manual_seed(seed)
        loc = copy.deepcopy(glob)
        client_update(loc, glob, cl, "s2fgl", local_steps=5, weights=(w, 1.0), codebook=cbk_rand)
        loc.eval()
        with torch.no_grad():
            ll, _ = loc(x, a)
        dis_match.append(float((ll.argmax(1) != lg.argmax(1))[unl].float().mean()))
        w_match.append(w)
    return (
        {m: np.array(v).mean(0) for m, v in out.items()},
        proj,
        float(np.mean(dis_rand)),
        float(np.mean(dis_match)),
        float(np.mean(w_match)),
    )


def kl_grad_norm(h, hg, cb):
    """||d KL_codebook(h, h_g) / d h||, the pull of the codebook term on the embeddings h."""
    h = h.detach().clone().requires_grad_(True)
    (grad,) = torch.autograd.grad(codebook_kl_loss(h, hg, cb), h)
    return float(grad.norm())


D, PROJ, DIS_RAND, DIS_MATCH, W_MATCH = zip(
    *[drift(s, hist0 if s == SEEDS[0] else None) for s in SEEDS], strict=True
)
DIS_RAND = np.array(DIS_RAND)  # (seeds,): disagreement under S2FGL with a random codebook
DIS_MATCH = np.array(DIS_MATCH)  # the same at the strength-matched KL weight
W_MATCH = np.array(W_MATCH)  # (seeds,): that weight, mean over clients (the real one is 5)
MEAS = {
    name: {m: np.array([d[m][i] for d in D]) for m in METHODS_D}
    for i, name in enumerate(("fgma", "kl", "low", "high", "disagree", "param"))
}
fg, kl, dis, par = MEAS["fgma"], MEAS["kl"], MEAS["disagree"], MEAS["param"]
names = {"fedavg": "CE only", "s2fgl": "S2FGL", "s2fgl-nlir": "CE + KL", "s2fgl-fgma": "CE + FGMA"}
COL = {  # the chapter's method colours; the cross-entropy-only steps in grey
    "fedavg": CE_COLOR,
    "s2fgl": plotting.method_color("S2FGL"),
    "s2fgl-nlir": plotting.method_color("S2FGL-NLIR"),
    "s2fgl-fgma": plotting.method_color("S2FGL-FGMA"),
}
fig, axes = plt.subplots(1, 4, figsize=(14, 3.8))
for ax, vals, lab in (
    (axes[0], fg, "FGMA(local, global), band form"),
    (axes[1], kl, "codebook KL(global || local)"),
    (axes[2], dis, "unlabelled nodes, local pred. != global"),
    (axes[3], par, r"$\|\theta_k - \theta\| / \|\theta\|$"),
):
    xs = np.arange(len(vals))
    ax.bar(
        xs,
        [vals[m].mean() for m in vals],
        yerr=[vals[m].std() for m in vals],
        capsize=4,
        color=[COL[m] for m in vals],
    )
    ax.set_xticks(xs, [names[m] for m in vals], rotation=20)
    ax.set(ylabel=lab, ylim=(0, None))
plotting.panel_labels(axes)
fig.suptitle(
    "After 5 local steps: each term's own measure (a, b), two that neither optimises (c, d)"
)
plt.show()
for m in METHODS_D:
    print(
        f"{names[m]:10s} FGMA {fg[m].mean():.4f}  KL {kl[m].mean():.4f}  "
        f"disagreement {dis[m].mean():.3f} ({(dis[m] / dis['fedavg']).mean():.2f} of CE only)  "
        f"parameter distance {par[m].mean():.3f} ({(par[m] / par['fedavg']).mean():.2f})"
    )

# %% [markdown]
# Mean ± sd over the seeds of the clients' mean. (a) FGMA after 5 local steps: with the
# cross-entropy alone the local embeddings drift away from the global ones in both frequency
# bands; the FGMA term (alone or in S2FGL) keeps them close. This panel is self-referential:
# FGMA is the quantity S2FGL minimises. (b) The codebook KL, likewise the quantity the KL term
# minimises. (c) A measure neither term optimises directly: with the cross-entropy alone the
# local and the global model predict different classes on a share {glue:text}`dis_ce:.2f` of the
# client's unlabelled nodes; S2FGL brings it to {glue:text}`dis_s2fgl:.2f`, and most of that
# hold comes from the codebook KL (CE + KL: {glue:text}`dis_nlir:.2f`). FGMA alone, which cuts
# its own measure (a) to {glue:text}`fgma_self_ratio:.3f` of the cross-entropy-only value,
# leaves {glue:text}`dis_fgma:.2f`. (d) The parameter distance, also optimised by neither term,
# tells the other side: FGMA alone keeps {glue:text}`par_fgma_ratio:.2f` of the
# cross-entropy-only distance, the KL term alone {glue:text}`par_nlir_ratio:.2f`. So FGMA holds
# the parameters and the embeddings' band projections near the global model but hardly the
# predictions; the codebook KL holds the predictions (though, as the claim checks at the end
# show, a random codebook pulling as hard holds them too). The claim checks test the hold on
# (c), where FGMA's own measure cannot vouch for it.
#
# ## The two frequency bands, one client
#
# FGMA sums two bands. Here they are apart, for client 0 of seed {glue:text}`proj_seed:.0f`:
# the projections $U_b U_b^\top H_l$ of the local embeddings after the 5 local steps (CE only,
# and S2FGL) against the global model's $U'_b U_b'^\top H_g$, for the low band (the 10
# smoothest eigenvectors of the important nodes' 3-NN graph) and the high band (the 10 least
# smooth), in the first two principal components of the global projection; lines join a
# node's local and global projection. The bars give each band's MSE over all clients and
# seeds.

# %%
fig, axes = plt.subplots(1, 3, figsize=(12, 3.8))
for ax, b, title in ((axes[0], 0, "low band"), (axes[1], 1, "high band")):
    pg = PROJ[0]["fedavg"][1][b].numpy()
    pca_b = PCA(2).fit(pg)
    zg = pca_b.transform(pg)
    ax.scatter(zg[:, 0], zg[:, 1], s=26, marker="s", color="k", label="global", zorder=3)
    for m, mk in (("fedavg", "o"), ("s2fgl", "^")):
        zl = pca_b.transform(PROJ[0][m][0][b].numpy())
        col = COL[m]
        ax.scatter(zl[:, 0], zl[:, 1], s=22, marker=mk, color=col, label=f"local, {names[m]}")
        for p_, q_ in zip(zg, zl, strict=True):
            ax.plot([p_[0], q_[0]], [p_[1], q_[1]], color=col, lw=0.5, alpha=0.6)
    ax.set(xlabel="PC 1 of the global projection", ylabel="PC 2", title=title)
    ax.legend(fontsize=7)
ax = axes[2]
xs = np.arange(2)
for j, m in enumerate(("fedavg", "s2fgl-nlir", "s2fgl")):
    v = [MEAS["low"][m], MEAS["high"][m]]
    ax.bar(
        xs + (j - 1) * 0.27,
        [u.mean() for u in v],
        0.27,
        yerr=[u.std() for u in v],
        capsize=3,
        color=COL[m],
        label=names[m],
    )
ax.set_xticks(xs, ["low band", "high band"])
ax.set(ylabel="MSE of the band projections", ylim=(0, None))
ax.legend(fontsize=8)
plotting.panel_labels(axes)
fig.suptitle("Local vs global embeddings in the low and high frequency bands")
plt.show()
for m in ("fedavg", "s2fgl-nlir", "s2fgl-fgma", "s2fgl"):
    print(
        f"{names[m]:10s} low band {MEAS['low'][m].mean():.4f}  "
        f"high band {MEAS['high'][m].mean():.4f}"
    )

# %% [markdown]
# (a, b) Lines join a node's local projection to its global one: long lines are drift. (c) Over
# all clients and seeds the low band's MSE is {glue:text}`band_low_ce:.3f` with the
# cross-entropy alone and {glue:text}`band_low_s2fgl:.4f` with S2FGL; the high band's
# {glue:text}`band_high_ce:.4f` and {glue:text}`band_high_s2fgl:.4f`. The cross-entropy-only
# drift sits almost entirely in the low band (the smooth, cluster-level directions of the
# embeddings), and that is the band the alignment pulls back. Like panel (a) of the previous
# figure, these are the two halves of the quantity S2FGL minimises, shown to open the term, not
# as evidence that it helps.
#
# ## Band form or eigenvector pairs?
#
# The official code matches the projections $u_i u_i^\top H$ one eigenvector at a time. A
# $k = 3$ nearest-neighbour graph on ~33 nodes is often disconnected: the eigenvalue 0 is then
# repeated and its eigenvectors are any basis of the components' indicator space, so the
# pairs $u_i \leftrightarrow u'_i$ depend on the solver. The band form compares
# $U U^\top H$ per band of 10 and does not depend on the basis. Test: global embeddings
# $H_g$ against $H_g + 10^{-3}$ noise, on every client's important nodes.

# %%
rng = torch.Generator().manual_seed(0)
zeros, band, pairs = [], [], []
for seed in SEEDS:
    g, clients = setting(seed)
    hist = run_federated("fedavg", clients, rounds=3, seed=seed)
    glob = ACMGCN(clients[0].x.shape[1], 64, 5)
    glob.load_state_dict(hist.extra["global_state"])
    glob.eval()
    zb, bb, pp = [], [], []
    for cl in clients:
        imp = important_nodes(cl.adj, cl.train_mask)
        with torch.no_grad():
            _, hg = glob(torch.as_tensor(cl.x), torch.as_tensor(cl.adj))
        hg = hg[imp]
        hn = hg + 1e-3 * torch.randn(hg.shape, generator=rng)
        hn_ = torch.nn.functional.normalize(hg.double(), dim=1)
        s = hn_ @ hn_.T
        v, idx = s.topk(4, dim=1)
        w = torch.zeros_like(s).scatter_(1, idx, v)
        w = (w + w.T) / 2
        w.fill_diagonal_(0.0)
        ev = torch.linalg.eigvalsh(torch.diag(w.sum(1)) - w)
        zb.append(int((ev < 1e-8).sum()))
        bb.append(float(frequency_alignment_loss(hn, hg)))
        pp.append(float(frequency_alignment_loss(hn, hg, form="pairs")))
    zeros.append(np.mean(np.array(zb) > 1))
    band.append(np.mean(bb))
    pairs.append(np.mean(pp))
band, pairs, zeros = np.array(band), np.array(pairs), np.array(zeros)
print("share of clients whose k-NN graph is disconnected:", np.round(zeros, 2))
print("band  loss at near-equality:", band)
print("pairs loss at near-equality:", pairs)

# %% [markdown]
# On some clients the $k$-NN graph of the important nodes has several components (the share
# is printed), and close eigenvalues are common on all of them; the pairs form reports a loss
# orders of magnitude above the band form for two embeddings that differ by $10^{-3}$ noise:
# part of the code's FGMA gradient pulls towards an arbitrary basis. The band form is not
# immune either: where the 10th and 11th eigenvalues (the band's edge) are close, the noise can
# move an eigenvector across the edge, likely why its loss at near-equality differs by orders
# of magnitude from seed to seed (printed above), though it stays far below the pairs form.
# This book uses the band form (`form="band"`, the default); `form="pairs"` is the code's.
#
# ## Claim checks
#
# The prediction-hold check of S2FGL needs a negative control: the same five steps with
# S2FGL's loss, but with a random Gaussian codebook of the codebook's shape and mean entry
# norm in place of the server's. At the paper's weight it keeps
# {glue:text}`dis_rand_ratio:.2f` of the cross-entropy-only disagreement and would fail the
# check, but that is no fair control: a random codebook's cosine softmax is close to uniform,
# so at the same weight its KL pulls on the embeddings less than the real one's. The fair
# control scales its weight per client so that the pull matches (the KL gradient's norm at
# the cross-entropy-only embeddings; on average {glue:text}`w_match:.1f` instead of 5). With
# that weight the random codebook keeps {glue:text}`dis_match_ratio:.2f` of the
# cross-entropy-only disagreement, below one half on average (and on
# {glue:text}`n_match_pass` seeds): it passes the check too. The real codebook keeps
# {glue:text}`dis_s2fgl_ratio:.2f` and is lower than the matched random one on
# {glue:text}`n_real_below_match` seeds, a comparison read after the run, not a check fixed
# before it. So the check cannot tell the class prototypes from any pull of that strength: the
# hold is **illustrated**, not reproduced. (Permuting the codebook's classes would be no
# control: the KL does not depend on the order of its $C R$ entries.)

# %%
runtime_s = time.perf_counter() - t_start
cpu_s = time.process_time()  # CPU s (user + system) of the kernel since its start, imports too
dis_ratio = {m: dis[m] / dis["fedavg"] for m in METHODS_D}
par_ratio = {m: par[m] / par["fedavg"] for m in METHODS_D}
match_ratio = DIS_MATCH / dis["fedavg"]
n_match_pass = int(np.sum(match_ratio < 0.5))
n_real_below = int(np.sum(dis_ratio["s2fgl"] < match_ratio))
# the prose says that the strength-matched random codebook passes the check (on its mean)
assert match_ratio.mean() < 0.5, "the matched random codebook no longer passes: revise the text"
glue("w_match", float(W_MATCH.mean()), display=False)
glue("dis_match_ratio", float(match_ratio.mean()), display=False)
glue("dis_s2fgl_ratio", float(dis_ratio["s2fgl"].mean()), display=False)
glue("n_match_pass", f"{n_match_pass} of {len(SEEDS)}", display=False)
glue("dis_rand_ratio", float((DIS_RAND / dis["fedavg"]).mean()), display=False)
glue("n_real_below_match", f"{n_real_below} of {len(SEEDS)}", display=False)
glue("kl_ce_ratio_last", float(kl_ce_ratio[-1]), display=False)
claim(
    "s2fgl/2_mechanisms/fgma_holds_drift",
    "Five local steps with S2FGL's loss leave the local embeddings closer to the global ones "
    "than cross-entropy alone, measured by FGMA itself (band form): at most a fifth of the drift",
    paper="frequency alignment mitigates spectral client drift (Sec. 4.2)",
    value=fg["s2fgl"] / fg["fedavg"],
    check=less(0.2),
    control=("CE + codebook KL (no FGMA)", fg["s2fgl-nlir"] / fg["fedavg"]),
    verdict="illustrated",
    caveat="self-referential: the drift is measured by the FGMA term that S2FGL minimises, so "
    "the check shows that the optimiser works; see the two prediction-disagreement checks",
    numbers={"FGMA, CE only": fg["fedavg"], "FGMA, S2FGL": fg["s2fgl"]},
    fmt=".3f",
)
claim(
    "s2fgl/2_mechanisms/s2fgl_holds_predictions",
    "Five local steps with S2FGL's loss keep the local predictions on the client's unlabelled "
    "nodes near the global model's (a measure neither term optimises directly): at most half the "
    "cross-entropy-only disagreement",
    paper="S2FGL's terms mitigate client drift (Sec. 4)",
    value=dis_ratio["s2fgl"],
    check=less(0.5),
    verdict="illustrated",
    caveat="no fair control fails: a random Gaussian codebook (same shape, mean entry norm) "
    "with its KL weight matched to the real codebook's pull "
    f"({W_MATCH.mean():.1f} on average instead of 5) keeps {match_ratio.mean():.2f} of the "
    f"disagreement, also below 0.5 (on {n_match_pass} of {len(SEEDS)} seeds), so the check "
    "cannot tell the class prototypes from any pull of that strength; the real codebook is "
    f"lower than that control on {n_real_below} of {len(SEEDS)} seeds (read after the run); "
    "at the paper's weight the random codebook keeps "
    f"{(DIS_RAND / dis['fedavg']).mean():.2f} (it pulls less)",
    numbers={
        "ratio, random codebook at the matched weight": match_ratio,
        "ratio, random codebook at w_KL = 5": DIS_RAND / dis["fedavg"],
        "disagreement, CE only": dis["fedavg"],
        "disagreement, S2FGL": dis["s2fgl"],
        "ratio, CE + KL": dis_ratio["s2fgl-nlir"],
        "ratio, CE + FGMA": dis_ratio["s2fgl-fgma"],
    },
    fmt=".3f",
)
claim(
    "s2fgl/2_mechanisms/fgma_alone_holds_predictions",
    "The frequency alignment alone (CE + FGMA) keeps the local predictions on unlabelled nodes "
    "near the global model's: at most half the cross-entropy-only disagreement",
    paper="frequency alignment mitigates spectral client drift (Sec. 4.2)",
    value=dis_ratio["s2fgl-fgma"],
    check=less(0.5),
    verdict="not reproduced",
    caveat=f"CE + FGMA keeps {dis_ratio['s2fgl-fgma'].mean():.2f} of the cross-entropy-only "
    "disagreement while it cuts its own measure to "
    f"{(fg['s2fgl-fgma'] / fg['fedavg']).mean():.3f} of the CE-only value; "
    f"the codebook KL alone keeps {dis_ratio['s2fgl-nlir'].mean():.2f}. FGMA does hold the "
    f"parameters ({par_ratio['s2fgl-fgma'].mean():.2f} of the CE-only distance, KL alone "
    f"{par_ratio['s2fgl-nlir'].mean():.2f}), but not the predictions. FGMA acts only on the "
    "important nodes (here every labelled node and its best-connected neighbours, a third of "
    "the client), while the disagreement is measured on all unlabelled nodes, most of them "
    "outside FGMA's node set: part of the result comes from that node set",
    numbers={"parameter distance ratio, CE + FGMA": par_ratio["s2fgl-fgma"]},
    fmt=".3f",
)
claim(
    "s2fgl/2_mechanisms/losses_vanish_at_equality",
    "Both S2FGL terms (FGMA, band form, and the codebook KL) are 0 when the local model equals "
    "the global one (both in eval mode) and > 0 after five local cross-entropy steps: the "
    "smaller of the two terms",
    paper="both terms align local with global knowledge (Sec. 4)",
    value=np.minimum(fg["fedavg"], kl["fedavg"]),
    check=greater(1e-6),
    control=(
        "local = global",
        max(
            float(frequency_alignment_loss(h0[top], h0[top])),
            float(codebook_kl_loss(h0, h0, cb)),
        ),
    ),
    verdict="illustrated",
    fmt=".3g",
)
claim(
    "s2fgl/2_mechanisms/pairs_form_basis_noise",
    "At embeddings equal up to 1e-3 noise the code's eigenvector-pair FGMA is more than 10 "
    "times the band form, log10(pairs / band) > 1 (repeated eigenvalues make the pairing "
    "arbitrary)",
    paper="FGMA as sum_i MSE(u_i u_i^T H_l, u'_i u'_i^T H_g) (official code)",
    value=np.log10(pairs / band),
    check=greater(1.0),
    verdict="illustrated",
    numbers={"band": band, "pairs": pairs, "disconnected share": zeros},
    fmt=".3g",
)
glue("fgma_ce_ratio_r2", float(ratio[0]), display=False)
glue("fgma_ce_ratio_last", float(ratio[-1]), display=False)
glue("fgma_ce_ratio_max", float(ratio.max()), display=False)
glue("fgma_ce_ratio_min", float(ratio.min()), display=False)
glue("dis_ce", float(dis["fedavg"].mean()), display=False)
glue("dis_s2fgl", float(dis["s2fgl"].mean()), display=False)
glue("dis_nlir", float(dis["s2fgl-nlir"].mean()), display=False)
glue("dis_fgma", float(dis["s2fgl-fgma"].mean()), display=False)
glue("fgma_self_ratio", float((fg["s2fgl-fgma"] / fg["fedavg"]).mean()), display=False)
glue("par_fgma_ratio", float(par_ratio["s2fgl-fgma"].mean()), display=False)
glue("par_nlir_ratio", float(par_ratio["s2fgl-nlir"].mean()), display=False)
glue("proj_seed", float(SEEDS[0]), display=False)
for band in ("low", "high"):
    glue(f"band_{band}_ce", float(MEAS[band]["fedavg"].mean()), display=False)
    glue(f"band_{band}_s2fgl", float(MEAS[band]["s2fgl"].mean()), display=False)
    glue(f"band_{band}_fgma", float(MEAS[band]["s2fgl-fgma"].mean()), display=False)
    glue(f"band_{band}_nlir", float(MEAS[band]["s2fgl-nlir"].mean()), display=False)
glue("drift_ce", float(fg["fedavg"].mean()), display=False)
glue("drift_s2fgl", float(fg["s2fgl"].mean()), display=False)
glue("disconnected", float(zeros.mean()), display=False)
glue("runtime_s", runtime_s, display=False)
glue("cpu_s", cpu_s, display=False)
assert np.all(np.isfinite(hist0.accuracy))
print(f"runtime {runtime_s:.1f} s (CPU {cpu_s:.1f} s)")
