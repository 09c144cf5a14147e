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
# # A temporal GNN whose memory matters
#
# MemFreezing attacks the **memory** of a temporal graph network: the vector $s_i$ that each
# node carries from event to event. Before attacking it, this notebook builds a stream where
# that memory is needed and a model that uses it: a temporal stochastic block model whose
# communities **switch** half-way, and TGN-lite (a GRU memory, identity messages, an MLP
# decoder) trained as TGN is trained, with the memory updater inside the gradient. A
# memory-less control (one static embedding per node) learns the communities of the past and
# falls behind on the nodes that switched. The last figure shows the quantity the attack will
# manipulate: the GRU's update gate $z$, which decides how much of the old memory each event
# keeps.

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
from icml25.common.claims import claim, greater
from icml25.memfreezing import (
    StaticLinkModel,
    TGNLite,
    link_metrics,
    make_temporal_sbm,
    replay,
    train_tgn,
    update_gate_values,
)

t_start = time.perf_counter()
SCALE = setup(seed=0)
CONFIG = {
    "small": {"n_events": 40_000, "mem_dim": 32, "epochs": 3, "seeds": (0, 1, 2)},
    "large": {"n_events": 40_000, "mem_dim": 100, "epochs": 3, "seeds": (0, 1, 2, 3, 4)},
}[SCALE]
STATIC_GRID = ({"lr": 1e-2, "epochs": 3}, {"lr": 1e-2, "epochs": 10}, {"lr": 3e-2, "epochs": 10})
TRAIN_FRAC, VAL_FRAC, N_WIN, SELECT_SEED = 0.6, 0.5, 20, 10
print(SCALE, CONFIG)

# %% [markdown]
# **The control's settings, chosen on a validation split.** The memory-less control (one
# static embedding per node and the same decoder) needs a learning rate and a number of epochs.
# They are chosen here, before anything is scored on the test part: on a seed that is never
# reported (seed 10), each of three settings trains on the first 50 % of the stream and is
# scored on the next 10 % (events 20,000 to 24,000, the validation split, right after the
# switch); the best validation AUC wins and is then used, trained on the first 60 %, on every
# reported seed.

# %%
sel_stream = make_temporal_sbm(n_events=CONFIG["n_events"], seed=SELECT_SEED)
n_val0, n_val1 = int(VAL_FRAC * sel_stream.n_events), int(TRAIN_FRAC * sel_stream.n_events)
val_auc = []
for cfg in STATIC_GRID:
    probe = StaticLinkModel(sel_stream.n_nodes, dim=CONFIG["mem_dim"], seed=SELECT_SEED)
    train_tgn(probe, sel_stream, VAL_FRAC, cfg["epochs"], lr=cfg["lr"], seed=SELECT_SEED)
    res_val = link_metrics(probe, sel_stream, n_val0, n_val1, *probe.initial_state())[0]
    val_auc.append(res_val["auc"])
    print(f"static lr {cfg['lr']:g}, {cfg['epochs']} epochs: validation AUC {res_val['auc']:.3f}")
STATIC = STATIC_GRID[int(np.argmax(val_auc))]
print("chosen:", STATIC)

# %% [markdown]
# ## The stream
#
# 400 nodes in 4 communities, 40,000 events on $[0, 1000]$. A source is drawn by its activity
# (Pareto(1.5) + 1, so a few nodes are very active); its destination lies in the source's
# current community with probability 0.9. Edge features are the mean of the two endpoints'
# community centroids plus noise. At event 20,000, 80 nodes (20 %) move to another community.
# The model trains on the first 60 % (24,000 events, so 4,000 after the switch) and is scored
# on the last 40 %.

# %%
stream = make_temporal_sbm(n_events=CONFIG["n_events"], seed=0)
E = stream.n_events
n_train = int(TRAIN_FRAC * E)
movers = np.flatnonzero(stream.comm != stream.comm_after)
stayers = np.flatnonzero(stream.comm == stream.comm_after)
edges = np.linspace(0, E, N_WIN + 1).astype(int)
moved_src = np.isin(stream.src, movers)
old_share, new_share = [], []
for a, b in zip(edges[:-1], edges[1:], strict=True):
    sel = slice(a, b)
    m = moved_src[sel]
    old_share.append(np.mean(stream.comm[stream.src[sel]][m] == stream.comm[stream.dst[sel]][m]))
    new_share.append(
        np.mean(stream.comm_after[stream.src[sel]][m] == stream.comm_after[stream.dst[sel]][m])
    )
deg = stream.degree(E)
fig, axes = plt.subplots(1, 2, figsize=plotting.figsize("wide"))
mid = (edges[:-1] + edges[1:]) / 2
axes[0].plot(mid, old_share, "o-", label="partner in the old community")
axes[0].plot(mid, new_share, "s-", label="partner in the new community")
axes[0].axvline(stream.switch_at, color="k", ls="--", lw=1)
axes[0].axvline(n_train, color="grey", ls=":", lw=1)
axes[0].text(stream.switch_at, 0.5, " switch", va="center")
axes[0].text(n_train, 0.3, " test starts", va="center", color="grey")
axes[0].set(
    xlabel="event index",
    ylabel="share of the movers' events",
    title="The 80 movers change partners at the switch",
    ylim=(0, 1),
)
axes[0].legend(loc="center left")
axes[1].hist(deg, bins=40, color=plotting.PALETTE[1])
axes[1].set(
    xlabel="events per node (whole stream)",
    ylabel="nodes",
    yscale="log",
    title="Activity is heavy-tailed",
)
plotting.panel_labels(axes)
plt.tight_layout()
plt.show()

# %% [markdown]
# *(a) Among the events sent by the nodes that will move, the share whose partner is in the old
# community drops from about 0.9 to chance and the share in the new one jumps to 0.9 at the
# switch (dashed). (b) A handful of nodes take part in thousands of events, most in a few
# hundred: the attack's victims will be the 40 most active.*
#
# ## Training TGN-lite, with the memory updater in the gradient
#
# Per batch of 200 events: apply the *previous* batch's events to the memory **with
# gradient**, score the current batch (each positive against one random destination), take an
# Adam step and detach the memory, as TGN does. (Updating the memory under `no_grad`, as both
# feasibility pilots did, leaves the GRU at its random initialisation.)


# %%
def auc_windows(model, mem, last):
    """AUC per window over the whole stream (all, movers, stayers), replaying from zero."""
    rows = []
    for a, b in zip(edges[:-1], edges[1:], strict=True):
        before_mem, before_last = mem, last
        all_, mem, last = link_metrics(model, stream, a, b, before_mem, before_last, seed=a)
        mv, _, _ = link_metrics(model, stream, a, b, before_mem, before_last, movers, seed=a)
        sy, _, _ = link_metrics(model, stream, a, b, before_mem, before_last, stayers, seed=a)
        rows.append((all_["auc"], mv["auc"], sy["auc"]))
    return np.array(rows)


results = {}
for seed in CONFIG["seeds"]:
    st_seed = make_temporal_sbm(n_events=CONFIG["n_events"], seed=seed)
    tgn = TGNLite(stream.n_nodes, mem_dim=CONFIG["mem_dim"], seed=seed)
    log = train_tgn(tgn, st_seed, train_frac=TRAIN_FRAC, epochs=CONFIG["epochs"], seed=seed)
    static = StaticLinkModel(stream.n_nodes, dim=CONFIG["mem_dim"], seed=seed)
    train_tgn(static, st_seed, TRAIN_FRAC, STATIC["epochs"], lr=STATIC["lr"], seed=seed)
    mv = np.flatnonzero(st_seed.comm != st_seed.comm_after)
    sy = np.flatnonzero(st_seed.comm == st_seed.comm_after)
    mem, last = replay(tgn, st_seed, 0, n_train, *tgn.initial_state())
    out = {"loss": log["loss"], "train_s": log["seconds"]}
    for name, model, state in (("tgn", tgn, (mem, last)), ("static", static, None)):
        state = state or model.initial_state()
        for part, nodes in (("all", None), ("movers", mv), ("stayers", sy)):
            res, _, _ = link_metrics(model, st_seed, n_train, E, *state, nodes=nodes, seed=seed)
            out[f"{name}_{part}"] = res["auc"]
    # control: the same architecture at its random initialisation (memory replayed, no training)
    fresh = TGNLite(stream.n_nodes, mem_dim=CONFIG["mem_dim"], seed=seed)
    f_mem, f_last = replay(fresh, st_seed, 0, n_train, *fresh.initial_state())
    out["untrained"] = link_metrics(fresh, st_seed, n_train, E, f_mem, f_last, seed=seed)[0]["auc"]
    if seed == CONFIG["seeds"][0]:
        curves = {
            "tgn": auc_windows(tgn, *tgn.initial_state()),
            "static": auc_windows(static, *static.initial_state()),
        }
        z_trained = update_gate_values(tgn, stream, n_train, E, mem, last)
        z_random = update_gate_values(fresh, stream, n_train, E, f_mem, f_last)
    results[seed] = out
    print(
        f"seed {seed}: loss {' '.join(f'{x:.3f}' for x in log['loss'])} ({log['seconds']:.1f} s)"
        f" | test AUC TGN {out['tgn_all']:.3f} (movers {out['tgn_movers']:.3f}), static"
        f" {out['static_all']:.3f} (movers {out['static_movers']:.3f}), untrained"
        f" {out['untrained']:.3f}"
    )


def col(key):
    return np.array([results[s][key] for s in CONFIG["seeds"]])


# %%
fig, axes = plt.subplots(1, 2, figsize=plotting.figsize("wide"), sharey=True)
for ax, j, title in ((axes[0], 1, "movers"), (axes[1], 2, "stayers")):
    for name, label, color in (
        ("tgn", "TGN-lite (memory)", plotting.PALETTE[0]),
        ("static", "static embeddings (no memory)", plotting.PALETTE[3]),
    ):
        ax.plot(mid, curves[name][:, j], "o-", color=color, label=label, ms=4)
    ax.axvline(stream.switch_at, color="k", ls="--", lw=1)
    ax.axvspan(n_train, E, color="grey", alpha=0.12, lw=0)
    ax.axhline(0.5, color="grey", lw=1)
    ax.set(xlabel="event index", title=f"Link AUC of the {title}", ylim=(0.3, 1.0))
axes[0].set_ylabel("AUC per window of 2,000 events")
axes[0].text(n_train + 300, 0.35, "test", color="grey")
axes[1].legend(loc="lower left")
fig.suptitle("Without memory, the nodes that switched community are mispredicted")
plotting.panel_labels(axes)
plt.tight_layout()
plt.show()

# %% [markdown]
# *Seed 0, every event scored before the model sees it (the first 60 % is in-sample for both
# models; grey: test). (a) The 80 movers: after the switch (dashed) the static embeddings keep
# predicting the old community and fall towards chance, while the memory follows the new
# partners within a window. (b) The stayers: the static model loses less (some of their
# partners are movers), and the gap is much smaller. Chance (0.5) is the grey line.*
#
# ## The update gate: how much of the old memory an event keeps
#
# A GRU memory $s' = (1-z)\odot n + z\odot s$ keeps a share $z$ of its past at every event. A
# memory that should resist later events needs $z$ near 1. The histogram is the mean gate
# $\bar z$ of every real update in the test part, for the trained updater and for the same
# architecture at its random initialisation (what the pilots attacked).

# %%
fig, ax = plt.subplots(figsize=plotting.figsize("single"))
bins = np.linspace(0, 1, 51)
ax.hist(z_random, bins=bins, alpha=0.6, color=plotting.PALETTE[3], label="random GRU (untrained)")
ax.hist(z_trained, bins=bins, alpha=0.6, color=plotting.PALETTE[0], label="trained GRU")
ax.axvline(0.9, color="k", ls=":", lw=1)
ax.set(
    xlabel=r"mean update gate $\bar z$ of one memory update",
    ylabel="updates (test part)",
    title="No real event leaves a memory nearly unchanged",
)
ax.legend()
plt.tight_layout()
plt.show()
zbar, z_high = float(z_trained.mean()), float((z_trained > 0.9).mean())
zbar_random = float(z_random.mean())
print(f"trained z̄ {zbar:.3f} (share > 0.9: {z_high:.4f}); random GRU z̄ {zbar_random:.3f}")

# %% [markdown]
# *Training moves the gate a little below one half ($\bar z$ {glue:text}`zbar:.2f` against
# {glue:text}`zbar_random:.2f` at initialisation) and essentially no update has
# $\bar z > 0.9$ (dotted): the trained memory forgets fast. A frozen state therefore cannot rely
# on a saturated gate; it has to be a state that the updater maps (nearly) onto itself. Whether
# such states exist, and can be reached, is notebook 2.*
#
# ## Claim check
#
# Two set-up claims (not the paper's result; they make the attack meaningful): (1) TGN-lite
# predicts future links (test AUC ≥ 0.75 on every seed); the control is the same
# architecture at its random initialisation (memory replayed, nothing trained), which must
# fail. (2) The memory is what tracks the switch: on the movers TGN-lite beats the static
# embeddings by more than 0.1; the control is the same gap on the stayers, where a memory
# should not be needed.

# %%
runtime_s = time.perf_counter() - t_start
assert np.all(np.isfinite(col("tgn_all"))) and len(results) == len(CONFIG["seeds"])
claim(
    "memfreezing/1_memory/clean_auc",
    "TGN-lite (trained with its memory updater in the gradient) predicts future links: test "
    "AUC at least 0.75",
    paper="the attacked models are competent link predictors (a premise; no number of the "
    "paper is quoted, the PDF was not read)",
    value=col("tgn_all"),
    check=greater(0.75),
    control=("untrained TGN-lite (random weights)", col("untrained")),
    verdict="reproduced",
    caveat="a competence check on our synthetic stream, not a number of the paper",
    numbers={"static embeddings": col("static_all"), "trained mean z": zbar},
    fmt=".3f",
)
claim(
    "memfreezing/1_memory/memory_tracks_switch",
    "On the nodes that switched community the memory model beats the static embeddings by "
    "more than 0.1 test AUC",
    paper="memory lets TGNs follow evolving graphs (the premise of the attack)",
    value=col("tgn_movers") - col("static_movers"),
    check=greater(0.1),
    control=("the same gap on the stayers", col("tgn_stayers") - col("static_stayers")),
    verdict="reproduced",
    caveat=(
        f"the static control's settings (lr {STATIC['lr']:g}, {STATIC['epochs']} epochs) were "
        "chosen on a validation split of a seed that is not reported (10), not on test AUC"
    ),
    numbers={
        "TGN-lite, movers": col("tgn_movers"),
        "static, movers": col("static_movers"),
        "TGN-lite, stayers": col("tgn_stayers"),
        "static, stayers": col("static_stayers"),
    },
    fmt=".3f",
)
glue("clean_auc_mean", float(col("tgn_all").mean()))
glue("static_auc_mean", float(col("static_all").mean()))
glue("static_movers", float(col("static_movers").mean()))
glue("tgn_movers", float(col("tgn_movers").mean()))
glue("zbar", zbar)
glue("zbar_random", zbar_random)
glue("z_high", z_high)
glue("train_s", float(col("train_s").mean()))
glue("static_lr", f"{STATIC['lr']:g}")
glue("static_epochs", f"{STATIC['epochs']}")
glue("static_val_auc", float(max(val_auc)))
glue("n_seeds", len(CONFIG["seeds"]))
glue("runtime_s", runtime_s)
