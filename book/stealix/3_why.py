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
# # Why it works, and what each ingredient does
#
# Two questions about the mechanism. (1) Is prompt consistency a good fitness, i.e. do prompts
# whose images the victim labels as the class also produce images whose victim features lie
# close to the real class's features (F3)? The distance uses the victim's penultimate layer and
# real training digits: analysis only, never available to an attack. (2) What do the ingredients
# do: Stealix without refinement, without PC-based selection, and without the GA (F5), and how
# do precision (PC) and diversity trade off? Each seed draws its own data split and trains its
# own victim and dual encoder, then its own seed images, generator streams and surrogates.

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
from scipy import stats

from icml25.common import glue, plotting, setup
from icml25.common.claims import claim, greater, less
from icml25.stealix import (
    GlyphGenerator,
    evaluate_surrogate,
    feature_distance,
    invert_prompt,
    load_victim_data,
    prompt_consistency,
    stealix_attack,
    train_cvae,
    train_dual_encoder,
    train_surrogate,
    train_victim,
)
from icml25.stealix.checkpoints import load_dual_encoder

t_start = time.perf_counter()
SCALE = setup(seed=0)
CONFIG = {
    "small": {"budget": 48, "seeds": (0, 1, 2), "pop_size": 3, "m": 4, "n_prompts": 8},
    # four generations at both scales (B / M evaluations of pop_size prompts)
    "large": {"budget": 192, "seeds": (0, 1, 2, 3, 4), "pop_size": 6, "m": 8, "n_prompts": 20},
}[SCALE]
VLM = {"small": {"n_pairs": 10_000, "epochs": 15}, "large": {"n_pairs": 40_000, "epochs": 30}}
# G at `large`: the conditional VAE of notebook 2 (never run on a GPU here); at `small` the renderer
CVAE = {"n_pairs": 40_000, "epochs": 60, "latent": 4, "hidden": 512, "beta": 2.0}
print(SCALE, CONFIG)

# %%
gen = GlyphGenerator(seed=0)
G = gen if SCALE == "small" else train_cvae(gen, **CVAE, seed=0)
worlds = {}  # seed -> (Xtr, ytr, Xte, yte, victim, dual encoder, second MLP)
for s in CONFIG["seeds"]:
    Xtr, ytr, Xte, yte = load_victim_data(seed=s)
    victim = train_victim(Xtr, ytr, hidden=128, seed=s)
    if SCALE == "small":  # the committed weights of train_dual_encoder (see notebook 2)
        vlm = load_dual_encoder(gen, **VLM[SCALE], seed=s)
    else:
        vlm = train_dual_encoder(gen, **VLM[SCALE], seed=s)
    # a second MLP on another split and seed: a feature space the victim's labels are not read
    Xtr2, ytr2, _, _ = load_victim_data(seed=1000 + s)
    worlds[s] = (Xtr, ytr, Xte, yte, victim, vlm, train_victim(Xtr2, ytr2, 128, seed=1000 + s))
m, pop, B = CONFIG["m"], CONFIG["pop_size"], CONFIG["budget"]

# %% [markdown]
# ## F3: prompt consistency against the feature distance
#
# For each seed of the analysis and each class, `n_prompts` random prompts, as many seeds
# inverted from random starts, and the best prompts Stealix evolved (budget $B$): PC over 16
# images, and the distance between the mean victim features of those images and of the real
# training digits of the class. The Spearman correlation is taken over all prompts of one seed,
# and, as a check less tied to the victim, with the distance measured in a second MLP trained on
# another split and seed, and over the evolved prompts alone.

# %%
rows = {s: [] for s in CONFIG["seeds"]}
logs = {}
for s in CONFIG["seeds"]:
    Xtr, ytr, _, _, victim, vlm, other = worlds[s]
    rng = np.random.default_rng(300 + s)
    rs = np.random.default_rng(100 + s)
    seeds = np.stack([Xtr[rs.choice(np.flatnonzero(ytr == c))] for c in range(10)])
    victim.reset()
    logs[s] = stealix_attack(victim, G, vlm, seeds, B, pop, m, seed=s)[2]
    for c in range(10):
        real = Xtr[ytr == c]
        cands = [("random", G.random_prompt(rng)) for _ in range(CONFIG["n_prompts"])]
        cands += [
            ("inverted", invert_prompt(vlm, seeds[c], seed=int(rng.integers(2**31))))
            for _ in range(CONFIG["n_prompts"])
        ]
        cands.append(("evolved", logs[s]["best_prompt"][c]))
        for kind, p in cands:
            pc, imgs, _ = prompt_consistency(p, c, G, victim, 16, int(rng.integers(2**31)))
            d_other = feature_distance(other, imgs, real)
            rows[s].append((kind, pc, feature_distance(victim, imgs, real), d_other))
    victim.reset()
rho, pval, rho_other, rho_evolved = [], [], [], []
for s in CONFIG["seeds"]:
    pc = np.array([r[1] for r in rows[s]])
    dist = np.array([r[2] for r in rows[s]])
    res = stats.spearmanr(pc, dist)
    rho.append(float(res.statistic))
    pval.append(float(res.pvalue))
    rho_other.append(float(stats.spearmanr(pc, [r[3] for r in rows[s]]).statistic))
    ev = [r for r in rows[s] if r[0] == "evolved"]
    rho_evolved.append(float(stats.spearmanr([r[1] for r in ev], [r[2] for r in ev]).statistic))
rho, pval = np.array(rho), np.array(pval)
rho_other, rho_evolved = np.array(rho_other), np.array(rho_evolved)
pc_evolved = np.array([r[1] for s in CONFIG["seeds"] for r in rows[s] if r[0] == "evolved"])
share_high = float(np.mean(pc_evolved >= 0.5))
print("Spearman rho per seed", rho.round(3), "p", pval)
print("in a second MLP's features", rho_other.round(3), "evolved prompts only", rho_evolved)
print("share of evolved prompts with PC >= 0.5:", share_high)

# %% tags=["hide-input"]
fig, ax = plt.subplots(figsize=plotting.figsize("single"))
kinds = {
    "random": plotting.PALETTE[7],
    "inverted": plotting.PALETTE[1],
    "evolved": plotting.PALETTE[0],
}
allrows = [r for s in CONFIG["seeds"] for r in rows[s]]
for kind, col in kinds.items():
    pts = np.array([(r[1], r[2]) for r in allrows if r[0] == kind])
    ax.scatter(
        pts[:, 1],
        pts[:, 0],
        s=14 if kind != "evolved" else 30,
        color=col,
        alpha=0.6,
        label=f"{kind} prompts",
    )
ax.set(
    xlabel="distance of mean victim features to the real class (penultimate layer)",
    ylabel="prompt consistency PC (16 images)",
    ylim=(-0.03, 1.03),
)
ax.set_title(
    f"F3: high-PC prompts draw images close to the real class (Spearman ρ = {rho.mean():.2f})"
)
ax.legend(fontsize=8)
plt.show()

# %% [markdown]
# **What to see.** Each dot is one prompt for one class (all seeds). Random prompts (grey)
# sit at low PC and large distance; inverted seeds (orange) spread over both; of the evolved
# best prompts (blue) a share of {glue:text}`share_pc05:.2f` reach PC ≥ 0.5. PC falls as the
# distance grows, but much of that is built in: the victim's label is a linear readout of the
# same penultimate features the distance uses. Pooling random prompts (far and low) with evolved
# ones does not make it: among the evolved prompts alone (10 per seed, a noisy estimate) the
# correlation is {glue:text}`rho_evolved:.2f`, and measured in a second MLP's features
# {glue:text}`rho_other:.2f`.

# %% [markdown]
# ## F5: ablations, and precision against diversity
#
# The same budget, seeds and surrogate for Stealix and its three ablations. Precision is the
# share of the queried images that the victim labels as the class they were generated for (the
# attack's overall PC); diversity is, per class, the mean pairwise distance between the
# queried images' victim features (higher: more varied queries).

# %%
VARIANTS = {
    "Stealix": None,
    "no refinement": "no_refine",
    "no PC selection": "no_pc",
    "no GA": "no_ga",
}
abl = {k: {"agreement": [], "precision": [], "diversity": []} for k in VARIANTS}
for s in CONFIG["seeds"]:
    Xtr, ytr, Xte, yte, victim, vlm, _ = worlds[s]
    rs = np.random.default_rng(100 + s)
    seeds = np.stack([Xtr[rs.choice(np.flatnonzero(ytr == c))] for c in range(10)])
    for name, ab in VARIANTS.items():
        victim.reset()
        X, y, log = stealix_attack(victim, G, vlm, seeds, B, pop, m, ablation=ab, seed=s)
        target = np.repeat(np.arange(10), (B // m) * m)
        feats = victim.features(X)
        div = []
        for c in range(10):
            f = feats[target == c]
            d = np.linalg.norm(f[:, None] - f[None], axis=-1)
            div.append(d.sum() / (len(f) * (len(f) - 1)))
        r = evaluate_surrogate(train_surrogate(X, y, seed=s), victim, Xte, yte)
        abl[name]["agreement"].append(r["agreement"])
        abl[name]["precision"].append(float(np.mean(y == target)))
        abl[name]["diversity"].append(float(np.mean(div)))
    victim.reset()
abl = {k: {kk: np.array(vv) for kk, vv in v.items()} for k, v in abl.items()}
for k, v in abl.items():
    print(f"{k:16s}", {kk: round(float(vv.mean()), 3) for kk, vv in v.items()})

# %% tags=["hide-input"]
fig, axes = plt.subplots(1, 3, figsize=plotting.figsize("wide"))
names = list(VARIANTS)
for ax, key, lab in zip(
    axes,
    ("agreement", "precision", "diversity"),
    (
        "agreement with the victim",
        "precision (queries labelled as target)",
        "diversity (pairwise feature dist.)",
    ),
    strict=True,
):
    mu = [abl[n][key].mean() for n in names]
    sd = [abl[n][key].std(ddof=1) for n in names]
    # Stealix's colour as in notebook 2, the no-PC ablation's as in F2, the other two in grey
    # (notebook 2's F1 uses every other palette colour for its baselines)
    cols = [plotting.PALETTE[0], "0.35", plotting.PALETTE[6], "0.65"]
    ax.bar(range(4), mu, yerr=sd, capsize=3, color=cols)
    ax.set_xticks(range(4), names, rotation=20, ha="right", fontsize=8)
    ax.set(ylabel=lab, ylim=(0, None))
plotting.panel_labels(axes)
fig.suptitle(
    f"F5: Stealix and its ablations at B = {B} per class "
    f"(mean ± sd over {len(CONFIG['seeds'])} seeds)"
)
plt.show()

# %% [markdown]
# **What to see.** (b, c) Selection by PC together with the GA is what buys precision: without
# PC selection or without the GA the share of queries labelled as their target class falls
# (to {glue:text}`prec_no_pc:.3f` and {glue:text}`prec_no_ga:.3f`, from
# {glue:text}`prec_stealix:.3f`), and the queries become more diverse. Without refinement
# (each child a copy of its first parent's prompt) precision is as high or higher: the GA then
# re-queries the fittest prompts, and its agreement is the lowest and its queries the least
# diverse. (a) Agreement does not follow precision: without PC selection it is higher on
# {glue:text}`n_nopc_up` of the seeds, without the GA on {glue:text}`n_noga_up` (paired by
# seed); without refinement it is lower on {glue:text}`n_norefine_down`, as the paper says. The
# paper's ablation claim (each removal hurts) thus holds here for the refinement only; the
# check below, on PC selection, is **not reproduced** at this scale.

# %% [markdown]
# ## Claim check
#
# (1) PC is negatively correlated with the feature distance of the generated images to the real
# class: Spearman ρ below -0.3 on every seed, each with p < 0.01, **illustrated** only (largely
# by construction, see F3; the correlations in a second MLP's features and among evolved
# prompts alone are reported). (2) The paper's ablation claim, removing PC selection hurts: at
# $B$ = {glue:text}`B` Stealix's agreement exceeds that without PC selection by 0.02 on every
# seed, is **not reproduced**.

# %%
runtime_s = time.perf_counter() - t_start
assert np.all(pval < 0.01), pval
n_seeds = len(CONFIG["seeds"])
SEEDS = "each seed draws its own split and trains its own victim and dual encoder"
ag_st = abl["Stealix"]["agreement"]
n_nopc_up = int(np.sum(abl["no PC selection"]["agreement"] > ag_st))
n_noga_up = int(np.sum(abl["no GA"]["agreement"] > ag_st))
n_norefine_down = int(np.sum(abl["no refinement"]["agreement"] < ag_st))
glue("n_nopc_up", f"{n_nopc_up} of {n_seeds}")
glue("n_noga_up", f"{n_noga_up} of {n_seeds}")
glue("n_norefine_down", f"{n_norefine_down} of {n_seeds}")
claim(
    "stealix/3_why/pc_tracks_distance",
    "Prompt consistency falls as the victim-feature distance of the generated images to the "
    "real class grows: Spearman rho below -0.3 (p < 0.01 on every seed)",
    paper="PC correlates strongly and negatively with the feature distance (Fig. 3)",
    value=rho,
    check=less(-0.3),
    verdict="illustrated",
    caveat="largely by construction: the victim's label is a linear readout of the same "
    "penultimate features the distance uses (pooling random prompts with evolved ones does not "
    f"make it: the evolved prompts alone give {rho_evolved.mean():.2f}); {SEEDS}",
    numbers={
        "largest p-value": float(pval.max()),
        "rho, distance in a second MLP's features": rho_other,
        "rho, evolved prompts alone (10 per seed)": rho_evolved,
        "share of evolved prompts with PC >= 0.5": share_high,
    },
    fmt=".3f",
)
claim(
    "stealix/3_why/ablations_hurt",
    f"Removing PC selection hurts: at B = {B} Stealix's agreement exceeds that of the loop "
    "without PC selection (uniform parents and elite) by more than 0.02",
    paper="each component (refinement, PC selection, the GA) improves the stolen model "
    "(ablations); checked here: PC selection",
    value=abl["Stealix"]["agreement"],
    check=greater(abl["no PC selection"]["agreement"], by=0.02, label="no PC selection"),
    verdict="not reproduced",
    caveat=f"Stealix {abl['Stealix']['agreement'].mean():.3f}, no PC selection "
    f"{abl['no PC selection']['agreement'].mean():.3f}, no GA "
    f"{abl['no GA']['agreement'].mean():.3f}, no refinement "
    f"{abl['no refinement']['agreement'].mean():.3f} ({n_seeds} seeds; {SEEDS}); paired by "
    f"seed, removing PC selection raises agreement on {n_nopc_up} of {n_seeds} seeds and "
    f"removing the GA on {n_noga_up}, while removing the refinement lowers it on "
    f"{n_norefine_down}, as the paper says; PC selection "
    f"raises precision ({abl['Stealix']['precision'].mean():.3f} vs "
    f"{abl['no PC selection']['precision'].mean():.3f}; no refinement "
    f"{abl['no refinement']['precision'].mean():.3f}) and lowers diversity; likely reason: at "
    "this scale the surrogate needs diverse queries more than precise ones",
    numbers={
        **{f"agreement, {k}": v["agreement"] for k, v in abl.items()},
        **{f"precision, {k}": v["precision"] for k, v in abl.items()},
        **{f"diversity, {k}": v["diversity"] for k, v in abl.items()},
    },
    fmt=".3f",
)
for k, key in (
    ("Stealix", "stealix"),
    ("no refinement", "no_refine"),
    ("no PC selection", "no_pc"),
    ("no GA", "no_ga"),
):
    glue(f"abl_{key}", float(abl[k]["agreement"].mean()))
    glue(f"prec_{key}", float(abl[k]["precision"].mean()))
    glue(f"div_{key}", float(abl[k]["diversity"].mean()))
glue("rho_mean", float(rho.mean()))
glue("rho_other", float(rho_other.mean()))
glue("rho_evolved", float(rho_evolved.mean()))
glue("share_pc05", share_high)
glue("B", B)
glue("n_seeds", n_seeds)
glue("runtime_s", runtime_s)
