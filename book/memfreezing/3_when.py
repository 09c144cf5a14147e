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
# memories of models trained on real data) and maps, for β ∈ {0, 2, 4} ({0, …, 4} at `large`)
# and K ∈ {2, 4, 8} fake events, two things: **persistence**, the half-life (in windows of
# 2,000 events) of the victims' excess cosine to s\* over the clean run, read from their mean
# cosine after every replay batch of 200 events (`cos_trace`; resolution 0.1 window; an earlier
# version sampled window ends only, which put every half-life below one window at a floor of
# 0.5), and
# **reachability**, the crafting residual relative to the victims' pre-attack distance to s\*.
# Nothing is re-trained: β is applied to the model of each seed after training, and s\* is
# searched again for each β.
#
# It then varies, one at a time around notebook 2's setting (β = 0, K = 4, memory 32,
# frozen-neighbour fraction ρ = 0.5, the 40 most active victims, GRU), the four other factors
# the issue names: the **memory size** (16, 32, 64; re-trained), the **frozen-neighbour
# fraction** ρ of the frozen-state search (0, 0.25, 0.5, 1), the **victims** (the 40 least
# active nodes instead of the 40 most active) and the **updater** (an `RNNCell`, JODIE-like,
# re-trained, instead of the GRU).

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
    apply_injection,
    choose_victims,
    cos_trace,
    craft_injection,
    evaluate_after_attack,
    find_frozen_state,
    half_life,
    link_metrics,
    prepare_attack,
    random_injection,
    replay,
    shift_update_gate,
)

t_start = time.perf_counter()
SCALE = setup(seed=0)
# `small` is cut to fit the time budget: 3 values of β (not 5), 3 of ρ (not 4) and a
# frozen-state search with 2 restarts (not notebook 2's 4); `large` runs the full grid.
CONFIG = {
    "small": {
        "n_events": 40_000,
        "mem_dim": 32,
        "seeds": (0, 1, 2),
        "betas": (0.0, 2.0, 4.0),
        "fracs": (0.0, 0.5, 1.0),
        "mem_dims": (16, 32, 64),
        "restarts": 2,
    },
    "large": {
        "n_events": 40_000,
        "mem_dim": 100,
        "seeds": (0, 1, 2, 3, 4),
        "betas": (0.0, 1.0, 2.0, 3.0, 4.0),
        "fracs": (0.0, 0.25, 0.5, 1.0),
        "mem_dims": (32, 64, 100),
        "restarts": 4,
    },
}[SCALE]
BETAS, KS, FRACS, MEM_DIMS = CONFIG["betas"], (2, 4, 8), CONFIG["fracs"], CONFIG["mem_dims"]
N_WINDOWS, K_BASE, FRAC_BASE, RESTARTS = 8, 4, 0.5, CONFIG["restarts"]
BATCH = 200  # replay batch = resolution of the cosine trace (events)
print(SCALE, CONFIG)


def trace_half_life(trace, clean_trace, n_test):
    """Half-life in windows of the excess cosine trace (one point per batch of BATCH events)."""
    return half_life(trace - clean_trace) * BATCH / (n_test / N_WINDOWS)


# %%
rows, sweeps, setups, base_runs = [], [], {}, {}
for seed in CONFIG["seeds"]:
    S = prepare_attack(seed, n_events=CONFIG["n_events"], mem_dim=CONFIG["mem_dim"])
    setups[seed] = S
    stream, n_train, t_a, victims = S.stream, S.n_train, S.t_attack, S.victims
    v = torch.from_numpy(victims)
    for beta in BETAS:
        model = shift_update_gate(S.model, beta)
        mem, last = replay(model, stream, 0, n_train, *model.initial_state())
        clean_auc = link_metrics(model, stream, n_train, stream.n_events, mem, last)[0]["auc"]
        s_star = find_frozen_state(model, mem.clone(), S.edge_bank, seed=seed, restarts=RESTARTS)
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
        clean_tr = cos_trace(model, stream, n_train, mem, last, victims, s_star, batch=BATCH)
        n_test = stream.n_events - n_train
        for k in KS:
            crafts = [("main", seed)] + ([("null", seed + 100)] if beta == 0 and k == 4 else [])
            for tag, craft_seed in crafts:
                inj = craft_injection(model, mem, last, victims, s_star, t_a, k, seed=craft_seed)
                state = apply_injection(model, mem, last, inj)
                df = evaluate_after_attack(
                    model,
                    stream,
                    n_train,
                    *state,
                    victims,
                    N_WINDOWS,
                    reference_state=s_star,
                    seed=seed,
                )
                tr = cos_trace(model, stream, n_train, *state, victims, s_star, batch=BATCH)
                excess = tr - clean_tr
                hl = trace_half_life(tr, clean_tr, n_test)
                if beta == 0 and k == K_BASE and tag == "main":  # the sweeps' base setting
                    base_runs[seed] = {
                        "residual": inj.loss / pre,
                        "half_life": hl,
                        "w1_drop": float((clean.auc - df.auc).iloc[1]),
                        "late_drop": float((clean.auc - df.auc).iloc[5:].mean()),
                        "drop_curve": (clean.auc - df.auc).to_numpy(),
                        "excess_curve": excess,
                        "events_per_window": float(df.n.iloc[1:].mean() / len(victims)),
                        "clean_auc": clean_auc,
                        "s_star": s_star,
                    }
                rows.append(
                    {
                        "seed": seed,
                        "beta": beta,
                        "K": k,
                        "tag": tag,
                        "residual": inj.loss / pre,
                        "half_life": hl,
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
    (axes[0], "half_life", "persistence: half-life (windows, step 0.1)", "viridis"),
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
# (the memory keeps more of its past; read after every batch of 200 events, so 0.1 window is
# its step and 0.05 its floor). (b) The crafting residual,
# relative to the pre-attack squared distance to s\*, also grows with β: with z near one each
# fake event moves the memory only a little, so K events no longer reach s\*. (c) The late drop
# in victim AUC, the paper's persistence, stays small everywhere (at most
# {glue:text}`late_max:.3f`); the shifted gate also costs clean AUC (printed above). The
# trained model (β = 0) is in the bottom row.*

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
# ## Four more factors, one at a time
#
# Each run below searches s\* for its model (Adam, 600 steps; at `small` scale two restarts,
# from zero and from the bank row of least drift, for time), crafts K = 4 events onto it and
# replays the 16,000 test events against the clean run with the same s\* and the same
# negatives. The base setting (memory 32, ρ = 0.5, most active victims, GRU) is the β = 0,
# K = 4 cell of the map above; the least active victims are attacked with its s\* (the state
# does not depend on the victims). Two runs also get a random injection with the same budget
# (the control of their AUC claims): the least active victims and the RNN.


# %%
def attack(
    model, stream, n_train, mem, last, victims, edge_bank, seed, frac=FRAC_BASE, s_star=None
):
    """Search s* with frozen-neighbour fraction ``frac`` (unless given), craft K = 4 events onto
    it, replay; returns the summary numbers and the per-window curves (against the clean run)."""
    t_a = float(stream.t[n_train - 1])
    v = torch.from_numpy(victims)
    if s_star is None:
        s_star = find_frozen_state(
            model, mem.clone(), edge_bank, frozen_neighbor_frac=frac, seed=seed, restarts=RESTARTS
        )
    pre = float(((mem[v] - s_star) ** 2).sum(1).mean())
    kw = {"reference_state": s_star, "seed": seed}
    clean = evaluate_after_attack(model, stream, n_train, mem, last, victims, N_WINDOWS, **kw)
    inj = craft_injection(model, mem, last, victims, s_star, t_a, K_BASE, seed=seed)
    state = apply_injection(model, mem, last, inj)
    df = evaluate_after_attack(model, stream, n_train, *state, victims, N_WINDOWS, **kw)
    drop = (clean.auc - df.auc).to_numpy()
    clean_tr = cos_trace(model, stream, n_train, mem, last, victims, s_star, batch=BATCH)
    tr = cos_trace(model, stream, n_train, *state, victims, s_star, batch=BATCH)
    excess = tr - clean_tr
    out = {
        "residual": inj.loss / pre,
        "half_life": trace_half_life(tr, clean_tr, stream.n_events - n_train),
        "w1_drop": float(drop[1]),
        "late_drop": float(drop[5:].mean()),
        "drop_curve": drop,
        "excess_curve": excess,
        "events_per_window": float(df.n.iloc[1:].mean() / len(victims)),
    }
    return out, clean


def random_late_drop(model, stream, n_train, mem, last, victims, clean, seed):
    """The control: a random injection with the same budget, late (windows 5-8) AUC drop."""
    t_a = float(stream.t[n_train - 1])
    inj = random_injection(model, mem, last, victims, stream, t_a, K_BASE, seed=seed)
    state = apply_injection(model, mem, last, inj)
    df = evaluate_after_attack(model, stream, n_train, *state, victims, N_WINDOWS, seed=seed)
    return float((clean.auc - df.auc).iloc[5:].mean())


for seed in CONFIG["seeds"]:
    S = setups[seed]
    stream, n_train = S.stream, S.n_train
    scene = (S.stream, S.n_train, S.mem, S.last)
    base = dict(base_runs[seed])  # the map's β = 0, K = 4 cell
    s_base = base.pop("s_star")
    for dim in MEM_DIMS:
        if dim == CONFIG["mem_dim"]:
            out = base
        else:
            T = prepare_attack(seed, n_events=CONFIG["n_events"], mem_dim=dim)
            out = attack(T.model, T.stream, n_train, T.mem, T.last, T.victims, T.edge_bank, seed)[0]
            auc = link_metrics(T.model, T.stream, n_train, stream.n_events, T.mem, T.last)[0]
            out["clean_auc"] = auc["auc"]
        sweeps.append({"sweep": "memory size", "level": dim, "seed": seed, **out})
    for frac in FRACS:
        out = (
            base
            if frac == FRAC_BASE
            else attack(S.model, *scene, S.victims, S.edge_bank, seed, frac)[0]
        )
        sweeps.append({"sweep": "frozen-neighbour fraction", "level": frac, "seed": seed, **out})
    low = choose_victims(stream, n_train, len(S.victims), "least_active")
    out, clean = attack(S.model, *scene, low, S.edge_bank, seed, s_star=s_base)
    out["random_late"] = random_late_drop(S.model, *scene, low, clean, seed + 100)
    for level, o in (("most active", base), ("least active", out)):
        sweeps.append({"sweep": "victims", "level": level, "seed": seed, **o})
    R = prepare_attack(seed, n_events=CONFIG["n_events"], mem_dim=CONFIG["mem_dim"], updater="rnn")
    out, clean = attack(R.model, R.stream, n_train, R.mem, R.last, R.victims, R.edge_bank, seed)
    out["random_late"] = random_late_drop(
        R.model, R.stream, n_train, R.mem, R.last, R.victims, clean, seed + 100
    )
    out["clean_auc"] = link_metrics(R.model, R.stream, n_train, stream.n_events, R.mem, R.last)[0][
        "auc"
    ]
    for level, o in (("GRU", base), ("RNN", out)):
        sweeps.append({"sweep": "updater", "level": level, "seed": seed, **o})
    print(f"seed {seed}: sweeps done ({time.perf_counter() - t_start:.0f} s)")
sw = pd.DataFrame(sweeps)
summary = sw.groupby(["sweep", "level"], sort=False)[
    ["half_life", "residual", "w1_drop", "late_drop", "events_per_window", "clean_auc"]
].mean()
print(summary.round(3).to_string())

# %%
SWEEPS = ("memory size", "frozen-neighbour fraction", "victims", "updater")
fig, axes = plt.subplots(2, 4, figsize=(14.0, 6.4), sharex=True, layout="constrained")
w = np.arange(N_WINDOWS + 1)
for j, name in enumerate(SWEEPS):
    sub = sw[sw.sweep == name]
    for i, lev in enumerate(dict.fromkeys(sub.level)):
        runs_l = sub[sub.level == lev]
        color = plotting.PALETTE[i]
        for ax, column in ((axes[0, j], "drop_curve"), (axes[1, j], "excess_curve")):
            curves = np.stack(runs_l[column].to_list())
            # the excess cosine is traced after every batch: 10 points per window
            x = w[1:] if column == "drop_curve" else np.arange(curves.shape[1]) / 10
            y = curves[:, 1:] if column == "drop_curve" else curves
            ax.errorbar(
                x,
                y.mean(0),
                yerr=y.std(0),
                marker="o",
                ms=3,
                capsize=2,
                color=color,
                label=f"{lev:g}" if isinstance(lev, float | int) else lev,
            )
    axes[0, j].set(title=name)
    axes[0, j].axhline(0.0, color="grey", lw=1)
    axes[1, j].axhline(0.0, color="grey", lw=1)
    axes[1, j].set(xlabel="window after the attack")
    axes[0, j].legend(fontsize=8)
axes[0, 0].set_ylabel("victim AUC drop vs clean")
axes[1, 0].set_ylabel("excess cos(s_v, s*) vs clean")
fig.suptitle(
    f"Does any factor make the damage outlast the first window? (K = 4, β = 0, "
    f"{len(CONFIG['seeds'])} seeds)"
)
plotting.panel_labels(axes.ravel())
plt.show()

# %% [markdown]
# *Top: the victims' link-AUC drop against the clean run per window (mean ± sd over seeds);
# bottom: how far above the clean run the victims' cosine to s\* stays, after every batch of
# 200 events (0 = just after the injection; the half-lives are read from these traces). One
# column per factor, the other factors at notebook 2's setting. The table printed above has
# the half-lives, crafting residuals, window-1 and late drops, and the victims' events per
# window (the least active victims see far fewer events per window).*
#
# Measured (means over seeds): the half-life is {glue:text}`hl_mem_small:.2f` and
# {glue:text}`hl_mem_big:.2f` windows for the smallest and largest memory,
# {glue:text}`hl_frac0:.2f` and {glue:text}`hl_frac1:.2f` for ρ = 0 and ρ = 1, and
# {glue:text}`hl_rnn:.2f` for the RNN. The least active victims keep s\* for
# {glue:text}`hl_low:.2f` windows against {glue:text}`hl_top:.2f`, but they see only
# {glue:text}`ev_low:.1f` events per window against {glue:text}`ev_top:.1f`.
# Their window-1 AUC drop is {glue:text}`w1_low:.3f` and their late drop
# {glue:text}`late_low:.3f`; the RNN's are {glue:text}`w1_rnn:.3f` and {glue:text}`late_rnn:.3f`.
# The claim checks below say which of the hypotheses hold.
#
# ## Claim check
#
# Both sides of the trade-off, at K = 4 on every seed: (1) the half-life rises with β: β = 4
# minus β = 0 above 0.5 windows; (2) the relative residual rises with β: β = 4 minus β = 0
# above 0.1. The control for both is the same difference between two crafting seeds at β = 0,
# which must fail.
#
# The four sweeps, each stated before the run as the hypothesis it tests, with the verdict
# **not reproduced** fixed in the code (the outcome of the runs that designed the chapter, with
# the measured gap; if a hypothesis held on every seed, at another scale, the notebook would
# stop there and the verdict would need revisiting): (3) a larger memory (64 against 16
# dimensions) keeps s\* longer, half-life up by more than 0.5 windows (our hypothesis, no
# paper number); (4) cross-freezing helps: s\* searched with ρ = 1 outlasts ρ = 0 by more than
# 0.5 windows (the paper's mechanism); (5) the least active victims keep s\* longer than the
# most active, by more than 0.5 windows (the brief's hypothesis), and (6) their
# late (windows 5-8) AUC drop exceeds 0.02 (the paper's persistence, on other victims); (7)
# the RNN updater (JODIE-like) shows the paper's persistence: late AUC drop above 0.02. The
# reference of (3)-(5), kept in the record, is the two-crafting-seed difference above; that of
# (6)-(7) a random injection on the same victims.

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
    verdict="illustrated",
    caveat="β is our probe of the mechanism, not a setting of the paper; z = σ(… + b_z + β) "
    "makes every memory keep more of its past, so any perturbation of the victims decays more "
    "slowly: this follows from the gate's equation, not from s*",
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
    verdict="illustrated",
    caveat="β is our probe of the mechanism, not a setting of the paper",
    numbers={
        "residual at β = 0": at(0.0, 4, "residual"),
        "residual at β = 4": at(4.0, 4, "residual"),
    },
    fmt=".3f",
)


def level(sweep, lev, column):
    sub = sw[(sw.sweep == sweep) & (sw.level == lev)].sort_values("seed")
    return sub[column].to_numpy(dtype=float)


def sweep_claim(name, statement, paper, value, check, control, caveat, numbers):
    """Record a sweep's hypothesis as *not reproduced*, the verdict fixed in the code from the
    runs that designed this chapter: the check must fail on some seed (if it holds on every
    seed, at another scale, the claim helper stops the notebook and the verdict must be
    revisited with its control). The control's values are kept in the record's numbers."""
    label, values = control
    return claim(
        f"memfreezing/3_when/{name}",
        statement,
        paper=paper,
        value=value,
        check=check,
        verdict="not reproduced",
        caveat=f"as measured: {caveat}",
        numbers={**numbers, f"control: {label}": values},
        fmt=".3f",
    )


assert len(sw) == len(CONFIG["seeds"]) * (len(MEM_DIMS) + len(FRACS) + 4)
M0, M1 = MEM_DIMS[0], MEM_DIMS[-1]
hl_mem = level("memory size", M1, "half_life") - level("memory size", M0, "half_life")
sweep_claim(
    "memory_size",
    "A larger memory keeps the frozen state longer: half-life up by more than 0.5 windows from "
    f"{M0} to {M1} dimensions (K = 4, β = 0)",
    "(no number in the paper: a factor of our sweep)",
    hl_mem,
    greater(0.5),
    ("two crafting seeds at β = 0", hl_null),
    f"half-life {level('memory size', M0, 'half_life').mean():.2f} ({M0}) vs "
    f"{level('memory size', M1, 'half_life').mean():.2f} ({M1}) windows; late drop at {M1} "
    f"{level('memory size', M1, 'late_drop').mean():.3f}; each size re-trained",
    {
        f"late drop, {M0} dims": level("memory size", M0, "late_drop"),
        f"late drop, {M1} dims": level("memory size", M1, "late_drop"),
        f"clean AUC, {M1} dims": level("memory size", M1, "clean_auc"),
    },
)
hl_frac = level("frozen-neighbour fraction", 1.0, "half_life") - level(
    "frozen-neighbour fraction", 0.0, "half_life"
)
sweep_claim(
    "cross_freezing",
    "Cross-freezing helps: s* searched with all surrogate neighbours frozen (ρ = 1) outlasts "
    "s* searched with none (ρ = 0) by more than 0.5 windows of half-life",
    "frozen neighbours keep each other frozen, which is what makes the state spread (method)",
    hl_frac,
    greater(0.5),
    ("two crafting seeds at β = 0", hl_null),
    f"half-life {level('frozen-neighbour fraction', 0.0, 'half_life').mean():.2f} (ρ = 0) vs "
    f"{level('frozen-neighbour fraction', 1.0, 'half_life').mean():.2f} (ρ = 1) windows; the "
    "real neighbours are not frozen, whatever ρ the search assumed",
    {
        "late drop, ρ = 0": level("frozen-neighbour fraction", 0.0, "late_drop"),
        "late drop, ρ = 1": level("frozen-neighbour fraction", 1.0, "late_drop"),
    },
)
hl_low = level("victims", "least active", "half_life") - level(
    "victims", "most active", "half_life"
)


sweep_claim(
    "low_activity_half_life",
    "Low-activity victims keep the frozen state longer: half-life of the 40 least active nodes "
    "above that of the 40 most active by more than 0.5 windows",
    "(not in the paper: the brief's hypothesis on victim choice)",
    hl_low,
    greater(0.5),
    ("two crafting seeds at β = 0", hl_null),
    f"half-life {level('victims', 'most active', 'half_life').mean():.2f} (most active) vs "
    f"{level('victims', 'least active', 'half_life').mean():.2f} (least active) windows, with "
    f"{level('victims', 'most active', 'events_per_window').mean():.0f} vs "
    f"{level('victims', 'least active', 'events_per_window').mean():.0f} events per victim "
    "per window",
    {
        "events per victim and window, most active": level(
            "victims", "most active", "events_per_window"
        ),
        "events per victim and window, least active": level(
            "victims", "least active", "events_per_window"
        ),
    },
)
late_low = level("victims", "least active", "late_drop")
sweep_claim(
    "low_activity_persistence",
    "On the 40 least active victims MemFreezing's damage persists: mean AUC drop over windows "
    "5-8 above 0.02",
    "victim performance stays degraded long after the attack (the paper's central plot)",
    late_low,
    greater(0.02),
    ("random injection on the same victims", level("victims", "least active", "random_late")),
    f"mean late drop {late_low.mean():.3f}, window-1 drop "
    f"{level('victims', 'least active', 'w1_drop').mean():.3f}",
    {"window-1 drop": level("victims", "least active", "w1_drop")},
)
late_rnn = level("updater", "RNN", "late_drop")
sweep_claim(
    "rnn_persistence",
    "With an RNN updater (JODIE-like) MemFreezing's damage persists: mean victim AUC drop over "
    "windows 5-8 above 0.02",
    "MemFreezing works across memory-based TGNNs (TGN, JODIE, DyRep, ROLAND)",
    late_rnn,
    greater(0.02),
    ("random injection on the same victims", level("updater", "RNN", "random_late")),
    f"mean late drop {late_rnn.mean():.3f}, window-1 drop "
    f"{level('updater', 'RNN', 'w1_drop').mean():.3f}, half-life "
    f"{level('updater', 'RNN', 'half_life').mean():.2f} windows (GRU "
    f"{level('updater', 'GRU', 'half_life').mean():.2f}); crafting residual "
    f"{level('updater', 'RNN', 'residual').mean():.3f}",
    {"clean AUC, RNN": level("updater", "RNN", "clean_auc")},
)
for key, (sweep, lev, column) in {
    "hl_mem_small": ("memory size", M0, "half_life"),
    "hl_mem_big": ("memory size", M1, "half_life"),
    "hl_frac0": ("frozen-neighbour fraction", 0.0, "half_life"),
    "hl_frac1": ("frozen-neighbour fraction", 1.0, "half_life"),
    "hl_top": ("victims", "most active", "half_life"),
    "hl_low": ("victims", "least active", "half_life"),
    "late_low": ("victims", "least active", "late_drop"),
    "w1_low": ("victims", "least active", "w1_drop"),
    "ev_top": ("victims", "most active", "events_per_window"),
    "ev_low": ("victims", "least active", "events_per_window"),
    "hl_rnn": ("updater", "RNN", "half_life"),
    "late_rnn": ("updater", "RNN", "late_drop"),
    "w1_rnn": ("updater", "RNN", "w1_drop"),
    "res_rnn": ("updater", "RNN", "residual"),
    "clean_rnn": ("updater", "RNN", "clean_auc"),
    "late_mem_big": ("memory size", M1, "late_drop"),
}.items():
    glue(key, float(level(sweep, lev, column).mean()))
glue("late_max", float(grid["late_drop"].max()))
glue("hl_b0", float(at(0.0, 4, "half_life").mean()))
glue("hl_b4", float(at(4.0, 4, "half_life").mean()))
glue("res_b0", float(at(0.0, 4, "residual").mean()))
glue("res_b4", float(at(4.0, 4, "residual").mean()))
glue("late_b4k8", float(at(4.0, 8, "late_drop").mean()))
glue("late_b0k4", float(at(0.0, 4, "late_drop").mean()))
glue("clean_b4", float(at(4.0, 4, "clean_auc").mean()))
glue("clean_b0", float(at(0.0, 4, "clean_auc").mean()))
glue("runtime_s", runtime_s)
