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
# # Erasing a digit with a few masked neurons
#
# The paper's method in miniature: erase the digit **3** from the generator by learning a sparse
# mask over the velocity network's 2 × 256 hidden neurons so that the *final samples* for class 3
# match what the original generator makes from the **same noise** without a class (the
# "concept-free prompt"), while samples of the other classes stay as they were:
#
# $$\mathcal L = \mathbb E_z \big\|G_m(z, 3) - G_0(z, \varnothing)\big\|^2
#   + \beta\, \mathbb E_{z,\,c'\neq 3} \big\|G_m(z, c') - G_0(z, c')\big\|^2 .$$
#
# $G$ is the whole 8-step Euler sampler, so the gradient flows back through every step (end to
# end); the mask uses hard-concrete gates {cite:p}`louizos2018learning`; as in the official code
# there is no sparsity term, the noise is the same at every iteration, and the optimiser is
# AdamW. We compare it with a **step-wise** loss that trains the same gates to match velocities
# at **all 8 steps** of every iteration, on the edited sampler's own (detached) states, but does
# not backpropagate through the sampler; with **fine-tuning** all weights on the end-to-end loss;
# and with a **random mask** of the same size. Both mask methods get the same iterations, the
# same grid of $\beta$ and a learning rate tuned on a separate seed; they are compared at the
# same preservation and at the same number of masked neurons, over three seeds (each seed
# trains its own base generator). Every result is scored by two judges: the logistic regression
# and an independent RBF support-vector machine.

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
from sklearn.model_selection import train_test_split

from icml25.common import glue, plotting, setup
from icml25.common.claims import claim, greater, less
from icml25.concept_erasure import (
    FrechetSpace,
    at_matched_preservation,
    digits_data,
    erase_concept,
    erasure_report,
    euler_sample,
    fit_independent_judge,
    fit_judge,
    masks_at_sparsity,
    neuron_selectivity,
    random_masks,
    train_flow_matching,
)

t_start = time.perf_counter()
SCALE = setup(seed=0)
CONFIG = {
    "small": {
        "hidden": 256,
        "train_steps": 2000,
        "n_steps": 8,
        "iters": 200,
        "betas": [0.1, 0.3, 1.0, 3.0],
        "lrs": [0.03, 0.1, 0.5, 2.0],
        "beta": 1.0,
        "seeds": [0, 1, 2],
        "tune_seed": 3,
        "n_per_class": 200,
    },
    "large": {
        "hidden": 256,
        "train_steps": 6000,
        "n_steps": 10,
        "iters": 600,
        "betas": [0.03, 0.1, 0.3, 1.0, 3.0, 10.0],
        "lrs": [0.03, 0.1, 0.5, 2.0],
        "beta": 1.0,
        "seeds": [0, 1, 2, 3, 4],
        "tune_seed": 5,
        "n_per_class": 1000,
    },
}[SCALE]
TARGET, DROP = 3, 0.05  # erase the 3s; compare at preservation = original - DROP
EVAL_SEED = 1000  # evaluation noise (seeds 1000 + c), disjoint from the training seeds 0-5
METHODS = {"mask": "end to end", "stepwise": "step-wise (all K steps)"}
print(SCALE, CONFIG)

# %% [markdown]
# ## Judges and base generators
#
# Both judges are fit on 70 % of the real digits; their accuracy on the held-out 30 % is the
# ceiling of every rate below. The Fréchet distance (FD) is computed in a fixed 10-component PCA
# space of the real digits, between generated samples of a class and the real digits of it.

# %%
X, y = digits_data()
X_fit, X_out, y_fit, y_out = train_test_split(X, y, test_size=0.3, stratify=y, random_state=0)
judge, indep = fit_judge(X_fit, y_fit), fit_independent_judge(X_fit, y_fit)
space = FrechetSpace(X_fit, y_fit)
acc = {"logistic": judge.score(X_out, y_out), "SVM": indep.score(X_out, y_out)}
print("held-out accuracy on real digits:", {k: round(v, 3) for k, v in acc.items()})
K, n_eval = CONFIG["n_steps"], CONFIG["n_per_class"]
models = {
    s: train_flow_matching(X, y, hidden=CONFIG["hidden"], steps=CONFIG["train_steps"], seed=s)
    for s in [*CONFIG["seeds"], CONFIG["tune_seed"]]
}


def report(seed, model, masks):
    return erasure_report(
        model,
        masks,
        judge,
        TARGET,
        n_eval,
        seed=EVAL_SEED,
        n_steps=K,
        independent=indep,
        space=space,
    )


original = {s: report(s, models[s], None) for s in CONFIG["seeds"]}


def sweep(seed, method, lr):
    """Erase with every beta of the grid; the runs and their reports (independent judge)."""
    out = []
    for beta in CONFIG["betas"]:
        res = erase_concept(
            models[seed],
            TARGET,
            method=method,
            n_steps=K,
            iters=CONFIG["iters"],
            beta_preserve=beta,
            lr=lr,
            seed=seed,
        )
        out.append((beta, res, report(seed, models[seed], res.masks)))
    return out


def matched(points, level):
    """Class-3 rate at preservation ``level`` (NaN where the sweep does not reach it)."""
    pres = [r["ind_preservation"] for _, _, r in points]
    rate = [r["ind_target_rate"] for _, _, r in points]
    try:
        return at_matched_preservation(pres, rate, level)
    except ValueError:
        return np.nan


# %% [markdown]
# ## Tuning the learning rate (on a separate seed)
#
# For each mask method and each learning rate of the grid we run the whole $\beta$ grid on the
# tuning seed's generator and read off the class-3 rate at matched preservation (the original
# rate of the other classes minus 0.05, read by the independent judge); the lowest wins.

# %%
ts = CONFIG["tune_seed"]
level_t = report(ts, models[ts], None)["ind_preservation"] - DROP
tuning = pd.DataFrame(
    [
        {
            "method": m,
            "lr": lr,
            "class-3 rate at matched preservation": matched(sweep(ts, m, lr), level_t),
        }
        for m in METHODS
        for lr in CONFIG["lrs"]
    ]
)
best_lr = tuning.fillna(np.inf)
best_lr = best_lr.loc[best_lr.groupby("method")["class-3 rate at matched preservation"].idxmin()]
best_lr = dict(zip(best_lr.method, best_lr.lr, strict=True))
print("tuned learning rates:", best_lr)
tuning.round(3)

# %% [markdown]
# ## The erasures, over three seeds
#
# Each mask method runs the $\beta$ grid at its tuned learning rate on each seed's generator;
# fine-tuning runs at $\beta = 1$ (AdamW, learning rate $10^{-3}$), and a random mask with as many
# zeros as the end-to-end mask at $\beta = 1$. For the comparison at **matched sparsity**, the
# step-wise gates of every run are binarised to close exactly as many neurons as the end-to-end
# mask at $\beta = 1$ closes on that seed (the lowest logits, the official code's `binarize`),
# and the end-to-end gates likewise.

# %%
rows, runs = [], {}
for s in CONFIG["seeds"]:
    for m in METHODS:
        runs[(s, m)] = sweep(s, m, best_lr[m])
    head = next(res for beta, res, _ in runs[(s, "mask")] if beta == CONFIG["beta"])
    n_closed = int(sum((mk == 0).sum() for mk in head.masks))
    for m in METHODS:
        for beta, res, rep in runs[(s, m)]:
            same = report(s, models[s], masks_at_sparsity(res.logits, n_closed))
            rows.append(
                {
                    "seed": s,
                    "method": m,
                    "beta": beta,
                    "sparsity": res.sparsity,
                    **{
                        k: rep[k]
                        for k in (
                            "target_rate",
                            "preservation",
                            "ind_target_rate",
                            "ind_preservation",
                            "fd_target",
                            "fd_others",
                        )
                    },
                    "ind_target_rate_same_n": same["ind_target_rate"],
                    "ind_preservation_same_n": same["ind_preservation"],
                }
            )
    ft = erase_concept(
        models[s],
        TARGET,
        method="finetune",
        n_steps=K,
        iters=CONFIG["iters"],
        beta_preserve=CONFIG["beta"],
        seed=s,
    )
    rnd = random_masks(head.masks, seed=s)
    for m, gen, masks in [
        ("finetune", ft.model, None),
        ("random mask", models[s], rnd),
        ("original", models[s], None),
    ]:
        rep = original[s] if m == "original" else report(s, gen, masks)
        rows.append(
            {
                "seed": s,
                "method": m,
                "beta": CONFIG["beta"],
                "sparsity": rep["sparsity"],
                **{
                    k: rep[k]
                    for k in (
                        "target_rate",
                        "preservation",
                        "ind_target_rate",
                        "ind_preservation",
                        "fd_target",
                        "fd_others",
                    )
                },
            }
        )
    runs[(s, "finetune")] = ft
table = pd.DataFrame(rows)
summary = table.groupby(["method", "beta"])[
    ["sparsity", "target_rate", "ind_target_rate", "ind_preservation", "fd_target", "fd_others"]
].mean()
summary.round(3)

# %% [markdown]
# **Matched preservation**: per seed, each method's class-3 rate read off its $\beta$ sweep at
# the preservation (independent judge) of the original generator minus 0.05. **Matched
# sparsity**: both methods' gates binarised to close as many neurons as the end-to-end mask at
# $\beta = 1$, and both sweeps read off at the same level (original minus 0.05), or at the highest
# preservation both reach where one of them does not reach it.

# %%
seeds = CONFIG["seeds"]


def rate_at(s, m, level, same_n=False):
    t = table[(table.seed == s) & (table.method == m)]
    sfx = "_same_n" if same_n else ""
    try:
        return at_matched_preservation(
            t["ind_preservation" + sfx], t["ind_target_rate" + sfx], level
        )
    except ValueError:
        return np.nan


pick = table[table.beta == CONFIG["beta"]].set_index(["method", "seed"])
orig_rate = pick.loc["original"].ind_target_rate.to_numpy()
orig_pres = pick.loc["original"].ind_preservation.to_numpy()
head_rate = pick.loc["mask"].ind_target_rate.to_numpy()
head_pres = pick.loc["mask"].ind_preservation.to_numpy()
e2e_m = np.array([rate_at(s, "mask", p - DROP) for s, p in zip(seeds, orig_pres, strict=True)])
step_m = np.array([rate_at(s, "stepwise", p - DROP) for s, p in zip(seeds, orig_pres, strict=True)])
level_n = [  # the same level as above, or the highest that both same-n sweeps reach
    min(
        p - DROP,
        *(
            table[(table.seed == s) & (table.method == m)].ind_preservation_same_n.max()
            for m in METHODS
        ),
    )
    for s, p in zip(seeds, orig_pres, strict=True)
]
e2e_n = np.array([rate_at(s, "mask", lv, True) for s, lv in zip(seeds, level_n, strict=True)])
step_n = np.array([rate_at(s, "stepwise", lv, True) for s, lv in zip(seeds, level_n, strict=True)])
sp_m = {
    m: [
        at_matched_preservation(
            table[(table.seed == s) & (table.method == m)].ind_preservation,
            table[(table.seed == s) & (table.method == m)].sparsity,
            p - DROP,
        )
        for s, p in zip(seeds, orig_pres, strict=True)
    ]
    for m in METHODS
}
comparison = pd.DataFrame(
    {
        "e2e, matched pres.": e2e_m,
        "step-wise, matched pres.": step_m,
        "e2e sparsity there": sp_m["mask"],
        "step-wise sparsity there": sp_m["stepwise"],
        "matched pres., same n": level_n,
        "e2e, same n": e2e_n,
        "step-wise, same n": step_n,
    },
    index=pd.Index(seeds, name="seed"),
)
comparison.round(3)

# %% [markdown]
# ## Inside: which neurons does the mask close?
#
# For every hidden neuron, its mean activation on the unmasked sampler's trajectories of each
# class, and its **selectivity for 3**: how far its mean activation on 3s lies above its mean
# over the other nine classes, in units of their spread. If the mask cuts the concept, the
# neurons it closes should be 3-selective; a random set of as many neurons should not be.

# %%
sel_rows, act0 = [], None
for s in seeds:
    act, sel = neuron_selectivity(models[s], TARGET, n_steps=K)
    head = next(res for beta, res, _ in runs[(s, "mask")] if beta == CONFIG["beta"])
    closed = torch.cat(head.masks).numpy() == 0
    rand = torch.cat(random_masks(head.masks, seed=s)).numpy() == 0
    sel_rows.append(
        {
            "seed": s,
            "closed": sel[closed].mean(),
            "open": sel[~closed].mean(),
            "random": sel[rand].mean(),
            "n_closed": int(closed.sum()),
        }
    )
    if s == seeds[0]:
        act0, sel0, closed0 = act, sel, closed
selectivity = pd.DataFrame(sel_rows).set_index("seed")
selectivity.round(3)

# %% [markdown]
# ## Before and after (the teaser in miniature)

# %% tags=["hide-input"]
s0 = seeds[0]
g = torch.Generator().manual_seed(5)
z = torch.randn(8, 64, generator=g)
show = [(TARGET, "class 3"), (5, "class 5"), (8, "class 8")]
step0 = next(res for beta, res, _ in runs[(s0, "stepwise")] if beta == CONFIG["beta"])
head0 = next(res for beta, res, _ in runs[(s0, "mask")] if beta == CONFIG["beta"])
panels = [
    ("original", models[s0], None),
    ("masked, end to end", models[s0], head0.masks),
    ("masked, step-wise", models[s0], step0.masks),
    ("fine-tuned", runs[(s0, "finetune")].model, None),
]
fig, axes = plt.subplots(3, 4, figsize=(12, 2.4))
for col, (name, gen, masks) in enumerate(panels):
    for row, (c, label) in enumerate(show):
        with torch.no_grad():
            xs = euler_sample(gen, z, c, K, masks).clamp(-1, 1)
        strip = torch.cat([xs[j].reshape(8, 8) for j in range(8)], dim=1)
        axes[row, col].imshow(strip, cmap="gray_r", vmin=-1, vmax=1)
        axes[row, col].set_xticks([])
        axes[row, col].set_yticks([])
        if row == 0:
            axes[row, col].set_title(name, fontsize=9)
        if col == 0:
            axes[row, col].set_ylabel(label)
fig.suptitle(f"Same noise, same prompts (seed {s0}, β = {CONFIG['beta']:g})")
plt.show()

# %% [markdown]
# **What to see.** With the same noise, the end-to-end mask asked for a 3 often draws another
# shape (what the class-free generator makes from that noise), while the 5s and 8s stay as they
# were. The step-wise mask at the same $\beta$ closes fewer neurons and leaves more 3s; fine-tuning
# all weights erases the most.

# %% tags=["hide-input"]
colors = {"mask": plotting.PALETTE[0], "stepwise": plotting.PALETTE[1]}
fig, axes = plt.subplots(1, 3, figsize=(13, 4))
for ax, sfx, title in [
    (axes[0], "", "(a) each method's own mask (λ > 0)"),
    (axes[1], "_same_n", "(b) same number of masked neurons"),
]:
    for m, label in METHODS.items():
        for i, s in enumerate(seeds):
            t = table[(table.seed == s) & (table.method == m)]
            t = t.sort_values("ind_preservation" + sfx)
            ax.plot(
                t["ind_preservation" + sfx],
                t["ind_target_rate" + sfx],
                marker="o",
                ms=4,
                c=colors[m],
                alpha=0.8,
                label=label if i == 0 else None,
            )
    o = table[table.method == "original"]
    ax.scatter(
        o.ind_preservation, o.ind_target_rate, marker="*", s=150, c="k", label="original", zorder=3
    )
    for m, mk, col, label in [
        ("finetune", "s", plotting.PALETTE[2], "fine-tuning (all weights)"),
        ("random mask", "X", plotting.PALETTE[7], "random mask, same size"),
    ]:
        t = table[table.method == m]
        ax.scatter(
            t.ind_preservation, t.ind_target_rate, marker=mk, s=50, c=col, label=label, zorder=3
        )
    if not sfx:
        band = orig_pres.mean() - DROP
        ax.axvspan(band - 0.005, band + 0.005, color="0.85", label="matched preservation")
    else:
        for lv in level_n:
            ax.axvline(lv, c="0.7", lw=1, ls=":")
    ax.set(
        xlabel="other classes judged correct (SVM)",
        ylabel="class 3 judged 3 (SVM)",
        ylim=(0, 1.02),
        title=title,
    )
axes[0].legend(fontsize=7, loc="upper left")
ax = axes[2]
x = np.arange(len(seeds))
for j, (vals, label, col) in enumerate(
    [
        (e2e_m, "end to end, matched preservation", plotting.PALETTE[0]),
        (step_m, "step-wise, matched preservation", plotting.PALETTE[1]),
        (e2e_n, "end to end, same n (same level or highest both reach)", plotting.PALETTE[0]),
        (step_n, "step-wise, same n (same level or highest both reach)", plotting.PALETTE[1]),
    ]
):
    ax.bar(
        x + (j - 1.5) * 0.2,
        vals,
        0.2,
        color=col,
        label=label,
        hatch="//" if j >= 2 else None,
        edgecolor="w",
    )
ax.set(
    xticks=x,
    xticklabels=[f"seed {s}" for s in seeds],
    ylabel="class 3 judged 3 (SVM)",
    ylim=(0, 1),
    title="(c) matched comparisons",
)
ax.legend(fontsize=7)
fig.suptitle("End to end against step-wise: each method's own sparsity, and the same sparsity")
plt.show()

# %% [markdown]
# **What to see.** (a) Down is more erasure, right better preservation; each line is one seed's
# $\beta$ sweep (joined in order of preservation), the grey band the matched preservation. At
# its own binarisation ($\lambda > 0$) the step-wise loss erases less than end to end at the same
# preservation on these seeds, but it also closes fewer neurons there, and on the tuning seed the
# order is reversed (see the tuning table). (b) Binarised to close exactly as many neurons as the
# end-to-end mask, no difference between the two is detected (dotted lines: each seed's level,
# the matched preservation or the highest both sweeps reach; more on one seed, less on
# another). (c) The matched numbers per seed. Fine-tuning erases more at high
# preservation; a random mask of the same size erases almost nothing.

# %% tags=["hide-input"]
fig, axes = plt.subplots(1, 2, figsize=plotting.figsize("wide"))
ax = axes[0]
bins = np.linspace(-3, 6, 37)
ax.hist(
    sel0[~closed0],
    bins=bins,
    density=True,
    color=plotting.PALETTE[7],
    alpha=0.7,
    label=f"open neurons ({int((~closed0).sum())})",
)
ax.hist(
    sel0[closed0],
    bins=bins,
    density=True,
    color=plotting.PALETTE[0],
    alpha=0.8,
    label=f"closed by the mask ({int(closed0.sum())})",
)
ax.set(
    xlabel="selectivity for 3 (spread units)",
    ylabel="density",
    title=f"seed {s0}: closed neurons prefer 3s",
)
ax.legend(fontsize=8)
ax = axes[1]
order = np.argsort(-sel0[closed0])
rows_c = act0[closed0][order]
norm = (rows_c - rows_c.mean(1, keepdims=True)) / (rows_c.std(1, keepdims=True) + 1e-8)
im = ax.imshow(norm, aspect="auto", cmap="RdBu_r", vmin=-3, vmax=3)
ax.grid(False)
ax.set(
    xticks=range(10),
    xlabel="generated class",
    ylabel="closed neuron (by selectivity)",
    title="mean activation per class, standardised",
)
fig.colorbar(im, ax=ax, label="z-score across classes")
plotting.panel_labels(axes)
fig.suptitle("The mask closes neurons that fire for 3s more than for other digits")
plt.show()

# %% [markdown]
# **What to see.** (a) The open neurons' selectivity for 3 centres near zero; the neurons the
# end-to-end mask closes sit to the right: on average they fire more for 3s than for the other
# classes. (b) The more selective half of the closed neurons is most active in column 3; the
# others are not 3-neurons in this sense (closing them still moves the 3s towards the
# unconditional output, which is all the loss asks).

# %% [markdown]
# ## Two ablations of the official choices
#
# At $\beta = 1$ and the tuned learning rate, on each seed: the end-to-end mask with an L0 term
# ($\lambda_{L0} = 0.01$, which the official loss does not have) and with fresh noise at every
# iteration (the official code re-uses the same noise).

# %%
abl_rows = []
for s in seeds:
    for name, kw in [
        ("official", None),
        ("L0 = 0.01", {"l0_weight": 0.01}),
        ("fresh noise", {"fixed_noise": False}),
    ]:
        if kw is None:
            r = pick.loc[("mask", s)]
            rate, pres, sp = r.ind_target_rate, r.ind_preservation, r.sparsity
        else:
            res = erase_concept(
                models[s],
                TARGET,
                n_steps=K,
                iters=CONFIG["iters"],
                beta_preserve=CONFIG["beta"],
                lr=best_lr["mask"],
                seed=s,
                **kw,
            )
            rep = report(s, models[s], res.masks)
            rate, pres, sp = rep["ind_target_rate"], rep["ind_preservation"], res.sparsity
        abl_rows.append(
            {"seed": s, "variant": name, "class-3 rate": rate, "others": pres, "sparsity": sp}
        )
ablation = pd.DataFrame(abl_rows)
abl_mean = ablation.groupby("variant")[["class-3 rate", "others", "sparsity"]].agg(["mean", "std"])
ablation_glue = {}
for name, key in [("official", "off"), ("L0 = 0.01", "l0"), ("fresh noise", "fresh")]:
    ablation_glue[f"abl_{key}_rate"] = float(abl_mean.loc[name, ("class-3 rate", "mean")])
    ablation_glue[f"abl_{key}_rate_sd"] = float(abl_mean.loc[name, ("class-3 rate", "std")])
    ablation_glue[f"abl_{key}_others"] = float(abl_mean.loc[name, ("others", "mean")])
    ablation_glue[f"abl_{key}_pct"] = float(100 * abl_mean.loc[name, ("sparsity", "mean")])
abl_mean.round(3)

# %% [markdown]
# ## Claim check
#
# Over three seeds (each its own generator), scored by the independent judge: the end-to-end
# mask at $\beta = 1$ lowers the class-3 rate by at least 0.3 (a random mask of the same size
# does not), while the other classes lose at most 0.10 (with the preservation term almost off,
# $\beta = 0.1$, they lose more); end to end against step-wise at matched preservation (own
# sparsity) and at matched sparsity; masking against fine-tuning; and the closed neurons'
# selectivity against open ones (a random set of neurons as the control).

# %%
rnd_rate = pick.loc["random mask"].ind_target_rate.to_numpy()
low_beta = table[(table.method == "mask") & (table.beta == min(CONFIG["betas"]))]
low_beta_pres = low_beta.sort_values("seed").ind_preservation.to_numpy()
ft_rate = pick.loc["finetune"].ind_target_rate.to_numpy()
assert np.all(pick.loc["mask"].sparsity.to_numpy() <= 0.10), pick.loc["mask"].sparsity
assert np.all(np.isfinite(np.r_[e2e_m, step_m, e2e_n, step_n])), comparison
gap_n = step_n - e2e_n
tune_at = tuning.set_index(["method", "lr"])["class-3 rate at matched preservation"]
tune_at = {m: float(tune_at.loc[(m, best_lr[m])]) for m in METHODS}
runtime_s = time.perf_counter() - t_start
claim(
    "concept-erasure/2_erasure/mask_erases_target",
    f"Masking {100 * pick.loc['mask'].sparsity.mean():.1f} % of the neurons, trained end to end, "
    "lowers the rate of the erased class by at least 0.3; a random mask of the same size does not",
    paper="concepts erased in FLUX by masking a small share of neurons",
    value=orig_rate - head_rate,
    check=greater(0.3),
    control=("random mask, same size", orig_rate - rnd_rate),
    verdict="partly",
    caveat=f"the erasure is clear but incomplete: {head_rate.mean():.2f} of the 3s remain "
    "(independent judge)",
    numbers={
        "class-3 rate before": orig_rate,
        "after": head_rate,
        "logistic judge (attacked in nb 3), after": pick.loc["mask"].target_rate.to_numpy(),
        "class-3 FD before": pick.loc["original"].fd_target.to_numpy(),
        "after ": pick.loc["mask"].fd_target.to_numpy(),
    },
    fmt=".2f",
)
claim(
    "concept-erasure/2_erasure/others_kept",
    "The other classes' rates drop by at most 0.10 under the mask",
    paper="image quality (FID, CLIP score) kept",
    value=orig_pres - head_pres,
    check=less(0.10),
    control=("preservation term almost off (beta = 0.1)", orig_pres - low_beta_pres),
    verdict="partly",
    caveat="the judges still recognise the other digits, but their Fréchet distance to the real "
    f"digits rises from {pick.loc['original'].fd_others.mean():.2f} to "
    f"{pick.loc['mask'].fd_others.mean():.2f} (a random mask: "
    f"{pick.loc['random mask'].fd_others.mean():.2f})",
    numbers={"other classes before": orig_pres, "after": head_pres},
    fmt=".3f",
)
claim(
    "concept-erasure/2_erasure/end_to_end_beats_stepwise",
    "At matched preservation, the end-to-end mask erases more (class-3 rate lower by at least "
    "0.1) than a mask trained with the step-wise loss at all K steps, each binarised at lambda > 0",
    paper="the tractable end-to-end loss is needed (backpropagation through all steps)",
    value=step_m - e2e_m,
    check=greater(0.1),
    verdict="illustrated",
    caveat="no like-for-like negative control, and confounded: at their own threshold the "
    f"step-wise gates close fewer neurons ({100 * np.mean(sp_m['stepwise']):.1f} % against "
    f"{100 * np.mean(sp_m['mask']):.1f} %), which may only be binarisation (logits start at 3, "
    f"step-wise learning rate {best_lr['stepwise']} against {best_lr['mask']}); on the tuning seed "
    f"the step-wise loss wins ({tune_at['stepwise']:.2f} against {tune_at['mask']:.2f}); at the "
    "same number of neurons no difference is detected (next claim)",
    numbers={"end to end": e2e_m, "step-wise": step_m},
    fmt=".2f",
)
claim(
    "concept-erasure/2_erasure/end_to_end_beats_stepwise_same_sparsity",
    "At the same number of masked neurons and matched preservation, the end-to-end mask erases "
    "more (class-3 rate lower by at least 0.1) than the step-wise one",
    paper="the tractable end-to-end loss is needed (backpropagation through all steps)",
    value=step_n - e2e_n,
    check=greater(0.1),
    verdict="not reproduced",
    caveat=f"no difference detected at the same sparsity (gap {gap_n.mean():+.2f}, sd "
    f"{gap_n.std(ddof=1):.2f}, 3 seeds; {step_n.mean():.2f} of the 3s remain step-wise against "
    f"{e2e_n.mean():.2f}): in an 8-step sampler of a small MLP the end-to-end loss is not needed "
    "to pick the neurons",
    numbers={"end to end": e2e_n, "step-wise": step_n},
    fmt=".2f",
)
claim(
    "concept-erasure/2_erasure/mask_beats_finetuning",
    "Masking erases at least as much as fine-tuning the weights with the same loss",
    paper="masks are the better, more robust edit than fine-tuning",
    value=head_rate,
    check=less(ft_rate, label="fine-tuning's class-3 rate"),
    verdict="not reproduced",
    caveat=f"fine-tuning erases more here ({ft_rate.mean():.2f} of the 3s remain vs "
    f"{head_rate.mean():.2f}) and keeps the others "
    f"({pick.loc['finetune'].ind_preservation.mean():.3f}); at this size the full weights are an "
    "easy edit",
    fmt=".2f",
)
claim(
    "concept-erasure/2_erasure/closed_neurons_selective",
    "The neurons the end-to-end mask closes are selective for the erased class: their mean "
    "selectivity for 3 exceeds that of the open neurons by at least 0.5 (spread units)",
    paper="a minimal mask cuts the concept, not the generator (no selectivity number in the paper)",
    value=(selectivity.closed - selectivity.open).to_numpy(),
    check=greater(0.5),
    control=("random neurons, as many", (selectivity.random - selectivity.open).to_numpy()),
    verdict="illustrated",
    caveat="the paper makes no such claim; the random set is mostly open neurons (the mask closes "
    "a few %), so its control is close to the open set by construction",
    fmt=".2f",
)
glue("orig_target", float(orig_rate.mean()))
glue("orig_other", float(orig_pres.mean()))
glue("mask_target", float(head_rate.mean()))
glue("mask_other", float(head_pres.mean()))
glue("mask_sparsity_pct", float(100 * pick.loc["mask"].sparsity.mean()))
glue("step_sparsity_pct", float(100 * np.mean(sp_m["stepwise"])))
glue("e2e_sparsity_pct", float(100 * np.mean(sp_m["mask"])))
glue("e2e_matched", float(e2e_m.mean()))
glue("step_matched", float(step_m.mean()))
glue("e2e_same_n", float(e2e_n.mean()))
glue("step_same_n", float(step_n.mean()))
glue("ft_target", float(ft_rate.mean()))
glue("rnd_target", float(rnd_rate.mean()))
glue("lr_mask", best_lr["mask"])
glue("lr_step", best_lr["stepwise"])
glue("gap_n_mean", float(gap_n.mean()))
glue("gap_n_sd", float(gap_n.std(ddof=1)))
glue("tune_e2e", tune_at["mask"])
glue("tune_step", tune_at["stepwise"])
for name, v in ablation_glue.items():
    glue(name, v)
glue("runtime_s", runtime_s)
