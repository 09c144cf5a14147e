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
# # When does memory freezing work? The gate that keeps a state also resists putting it there
#
# Notebook 2 found no persistence: the trained GRU's update gate sits near one half, so any
# state, s\* included, is mostly overwritten by the next events. This notebook asks what would
# have to change. It adds β to the update-gate bias of the trained model (`shift_update_gate`:
# z = σ(… + b_z + β), so every memory keeps more of its past, a stand-in for the saturated
# memories of models trained on real data) and maps, for β ∈ {0, …, 4} and K ∈ {2, 4, 8} fake
# events, two things: **persistence**, the half-life (in windows of 2,000 events) of the
# victims' excess cosine to s\* over the clean run, and **reachability**, the crafting residual
# relative to the victims' pre-attack distance to s\*. Nothing is re-trained: β is applied to
# the model of each seed after training, and s\* is searched again for each β.

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
import torch

from icml25.common import glue, plotting, setup
from icml25.common.claims import claim, greater
from icml25.memfreezing import (
    TGNLite,
    apply_injection,
    craft_injection,
    evaluate_after_attack,
    find_frozen_state,
    half_life,
    link_metrics,
    make_temporal_sbm,
    replay,
    shift_update_gate,
    train_tgn,
)

t_start = time.perf_counter()
SCALE = setup(seed=0)
CONFIG = {
    "small": {"n_events": 40_000, "mem_dim": 32, "seeds": (0, 1, 2)},
    "large": {"n_events": 40_000, "mem_dim": 100, "seeds": (0, 1, 2, 3, 4)},
}[SCALE]
BETAS, KS = (0.0, 1.0, 2.0, 3.0, 4.0), (2, 4, 8)
TRAIN_FRAC, N_VICTIMS, N_WINDOWS = 0.6, 40, 8
print(SCALE, CONFIG)

# %%
rows = []
for seed in CONFIG["seeds"]:
    stream = make_temporal_sbm(n_events=CONFIG["n_events"], seed=seed)
    n_train = int(TRAIN_FRAC * stream.n_events)
    base = TGNLite(stream.n_nodes, mem_dim=CONFIG["mem_dim"], seed=seed)
    train_tgn(base, stream, train_frac=TRAIN_FRAC, seed=seed)
    t_a = float(stream.t[n_train - 1])
    victims = np.argsort(-stream.degree(n_train), kind="stable")[:N_VICTIMS]
    v = torch.from_numpy(victims)
    edge_bank = torch.from_numpy(stream.edge_feat[:n_train])
    for beta in BETAS:
        model = shift_update_gate(base, beta)
        mem, last = replay(model, stream, 0, n_train, *model.initial_state())
        clean_auc = link_metrics(model, stream, n_train, stream.n_events, mem, last)[0]["auc"]
        s_star = find_frozen_state(model, mem.clone(), edge_bank, seed=seed)
        pre = float(((mem[v] - s_star) ** 2).sum(1).mean())
        clean = evaluate_after_attack(
            model,
            stream,
            n_train,
            mem,
            last,
            victims,
            N_WINDOWS,
            reference_state=s_star,
            seed=seed,
        )
        for k in KS:
            crafts = [("main", seed)] + ([("null", seed + 100)] if beta == 0 and k == 4 else [])
            for tag, craft_seed in crafts:
                inj = craft_injection(model, mem, last, victims, s_star, t_a, k, seed=craft_seed)
                df = evaluate_after_attack(
                    model,
                    stream,
                    n_train,
                    *apply_injection(model, mem, last, inj),
                    victims,
                    N_WINDOWS,
                    reference_state=s_star,
                    seed=seed,
                )
                excess = df.cos.to_numpy() - clean.cos.to_numpy()
                rows.append(
                    {
                        "seed": seed,
                        "beta": beta,
                        "K": k,
                        "tag": tag,
                        "residual": inj.loss / pre,
                        "half_life": half_life(excess),
                        "cos0": float(df.cos.iloc[0]),
                        "late_drop": float((clean.auc - df.auc).iloc[5:].mean()),
                        "w1_drop": float((clean.auc - df.auc).iloc[1]),
                        "clean_auc": clean_auc,
                    }
                )
    print(f"seed {seed} done ({time.perf_counter() - t_start:.0f} s)")
res = pd.DataFrame(rows)
main = res[res.tag == "main"]
grid = main.groupby(["beta", "K"])[["half_life", "residual", "late_drop", "clean_auc"]].mean()
print(grid.round(3).to_string())

# %% [markdown]
# ## F4: the persistence/reachability map

# %%
fig, axes = plt.subplots(1, 3, figsize=(12.0, 4.0), layout="constrained")
for ax, column, title, cmap in (
    (axes[0], "half_life", "persistence: half-life (windows)", "viridis"),
    (axes[1], "residual", "reachability: relative residual", "magma_r"),
    (axes[2], "late_drop", "victim AUC drop, windows 5-8", "viridis"),
):
    mat = grid[column].unstack("K").to_numpy()
    im = ax.imshow(mat, origin="lower", aspect="auto", cmap=cmap)
    for (i, j), val in np.ndenumerate(mat):
        ax.text(
            j,
            i,
            f"{val:.2f}",
            ha="center",
            va="center",
            color="w" if column != "residual" else "k",
            fontsize=8,
        )
    ax.set(
        xticks=range(len(KS)),
        xticklabels=KS,
        yticks=range(len(BETAS)),
        yticklabels=[f"{b:g}" for b in BETAS],
        xlabel="fake events K",
        title=title,
    )
    plt.colorbar(im, ax=ax, fraction=0.046)
axes[0].set_ylabel("update-gate bias shift β")
fig.suptitle("A more conservative gate keeps s* longer but makes it harder to reach")
plotting.panel_labels(axes)
plt.show()

# %% [markdown]
# *Means over three seeds. (a) The half-life of the victims' excess cosine to s\* grows with β
# (the memory keeps more of its past) and with K (a better landing). (b) The crafting residual,
# relative to the pre-attack squared distance to s\*, also grows with β: with z near one each
# fake event moves the memory only a little, so K events no longer reach s\*. (c) The late drop
# in victim AUC, the paper's persistence, stays below 0.01 everywhere; it is largest where the
# gate is shifted far and K is large, and the shifted gate also costs clean AUC (printed
# above). The trained model (β = 0) is in the bottom row.*

# %%
fig, ax = plt.subplots(figsize=plotting.figsize("single"))
for k, marker in zip(KS, "os^", strict=True):
    sub = main[main.K == k].groupby("beta")
    ax.errorbar(
        sub.residual.mean(),
        sub.half_life.mean(),
        xerr=sub.residual.std(),
        yerr=sub.half_life.std(),
        marker=marker,
        capsize=3,
        label=f"K = {k}",
    )
    for beta, r, h in zip(BETAS, sub.residual.mean(), sub.half_life.mean(), strict=True):
        ax.annotate(f"β={beta:g}", (r, h), textcoords="offset points", xytext=(4, 4), fontsize=7)
ax.set(
    xlabel="relative crafting residual (0 = s* reached)",
    ylabel="half-life (windows)",
    title="Persistence is bought with reachability",
)
ax.legend()
plt.tight_layout()
plt.show()

# %% [markdown]
# *Each point is one (β, K), mean ± sd over seeds. Moving up (longer persistence) moves right
# (s\* missed by more); more events move the curve left. Within a budget of 8 events, no setting
# is both reachable and persistent for many windows.*
#
# ## Claim check
#
# Both sides of the trade-off, at K = 4 on every seed: (1) the half-life rises with β: β = 4
# minus β = 0 above 0.5 windows; (2) the relative residual rises with β: β = 4 minus β = 0
# above 0.1. The control for both is the same difference between two crafting seeds at β = 0,
# which must fail.

# %%
runtime_s = time.perf_counter() - t_start


def at(beta, k, column, tag="main"):
    sub = res[(res.beta == beta) & (res.K == k) & (res.tag == tag)].sort_values("seed")
    return sub[column].to_numpy()


assert len(main) == len(CONFIG["seeds"]) * len(BETAS) * len(KS)
hl_rise = at(4.0, 4, "half_life") - at(0.0, 4, "half_life")
res_rise = at(4.0, 4, "residual") - at(0.0, 4, "residual")
hl_null = at(0.0, 4, "half_life", "null") - at(0.0, 4, "half_life")
res_null = at(0.0, 4, "residual", "null") - at(0.0, 4, "residual")
claim(
    "memfreezing/3_when/half_life_rises",
    "A more conservative update gate (β = 4 added to b_z) makes the frozen state last longer: "
    "half-life of the victims' excess cosine to s* up by more than 0.5 windows (K = 4)",
    paper="frozen memories persist because they barely react to later events (mechanism)",
    value=hl_rise,
    check=greater(0.5),
    control=("two crafting seeds at β = 0", hl_null),
    verdict="reproduced",
    caveat="β is our probe of the mechanism, not a setting of the paper",
    numbers={
        "half-life at β = 0": at(0.0, 4, "half_life"),
        "half-life at β = 4": at(4.0, 4, "half_life"),
    },
    fmt=".3f",
)
claim(
    "memfreezing/3_when/residual_rises",
    "The same gate resists the injection: relative crafting residual up by more than 0.1 from "
    "β = 0 to β = 4 (K = 4)",
    paper="(not in the paper: the trade-off this miniature finds)",
    value=res_rise,
    check=greater(0.1),
    control=("two crafting seeds at β = 0", res_null),
    verdict="reproduced",
    caveat="β is our probe of the mechanism, not a setting of the paper",
    numbers={
        "residual at β = 0": at(0.0, 4, "residual"),
        "residual at β = 4": at(4.0, 4, "residual"),
    },
    fmt=".3f",
)
glue("hl_b0", float(at(0.0, 4, "half_life").mean()))
glue("hl_b4", float(at(4.0, 4, "half_life").mean()))
glue("res_b0", float(at(0.0, 4, "residual").mean()))
glue("res_b4", float(at(4.0, 4, "residual").mean()))
glue("late_b4k8", float(at(4.0, 8, "late_drop").mean()))
glue("late_b0k4", float(at(0.0, 4, "late_drop").mean()))
glue("clean_b4", float(at(4.0, 4, "clean_auc").mean()))
glue("clean_b0", float(at(0.0, 4, "clean_auc").mean()))
glue("runtime_s", runtime_s)
