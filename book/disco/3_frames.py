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
# # Frames: exposure, main against neutral frames, and what ⌊DIS-CO⌋ removes
#
# Inside DIS-CO's score: per movie, how the share of frames named grows with the number of
# training frames (the paper's "popularity"), how much less a neutral frame (no protagonist)
# reveals than a main frame, and which frames ⌊DIS-CO⌋ discards because the model names the
# movie from the caption alone. Three seeds (3, 4 and 5: never looked at while the settings
# were chosen on seed 0), each with its own movies, split and model.

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

from icml25.common import get_device, glue, plotting, setup
from icml25.common.claims import claim, greater
from icml25.disco import detection_auc, disco_scores, frame_hits, prepare_runs

t_start = time.perf_counter()
SCALE = setup(seed=0)

# %% [markdown]
# The seeds, the split and both models of every seed come from `prepare_runs`, the set-up
# shared with notebook 2 (same settings, same seeds, so the same trained models; at `small`
# scale their weights are read from `data/disco/`, see notebook 2).

# %%
CONFIG, seed_runs = prepare_runs(SCALE, pretrained=SCALE == "small")
print(SCALE, get_device(), CONFIG)
runs = []
for sr in seed_runs:
    seed, split, model, untrained = sr.seed, sr.split, sr.model, sr.untrained
    t = disco_scores(model, split, "main")
    t["neutral"] = disco_scores(model, split, "neutral").accuracy
    t["floor"] = disco_scores(model, split, "main", discount_captions=True).accuracy
    t["untrained main"] = disco_scores(untrained, split, "main").accuracy
    t["untrained neutral"] = disco_scores(untrained, split, "neutral").accuracy
    t["seed"] = seed
    hits_img = frame_hits(model, split, "main", "image")
    hits_cap = frame_hits(model, split, "main", "caption")
    runs.append(
        {"seed": seed, "split": split, "model": model, "table": t, "img": hits_img, "cap": hits_cap}
    )
table = pd.concat([r["table"] for r in runs], ignore_index=True)
table = table.rename(columns={"accuracy": "main"})
sus = table[table.label == 1]
sus.groupby("exposure")[["main", "neutral", "floor"]].mean().round(3)

# %% [markdown]
# ## F2: per-movie accuracy against exposure, main against neutral frames

# %%
exposures = sorted(sus.exposure.unique())
fig, axes = plt.subplots(1, 2, figsize=plotting.figsize("wide"), sharey=True)
jit = np.random.default_rng(0)
for ax, kind, col in zip(
    axes, ("main", "neutral"), (plotting.method_color("ours"), plotting.PALETTE[1]), strict=True
):
    x = sus.exposure * np.exp(jit.uniform(-0.12, 0.12, len(sus)))
    ax.scatter(x, sus[kind], s=14, color=col, alpha=0.6, label="one suspect movie (3 seeds)")
    g = sus.groupby("exposure")[kind].mean()
    ax.plot(g.index, g.values, color="black", marker="o", label="mean")
    ax.scatter(
        np.full((table.label == 0).sum(), 1.0),
        table[table.label == 0][kind],
        s=14,
        color="grey",
        marker="x",
        label="clean movies (drawn at x = 1)",
    )
    ax.set_xscale("log", base=2)
    ax.set_xticks([1, *exposures], ["clean", *[str(e) for e in exposures]])
    ax.set_xlabel("training frames of the movie (exposure, log scale)")
    ax.set_title(f"{kind} frames")
    ax.set_ylim(-0.03, 1.03)
axes[0].set_ylabel("share of fresh frames named (DIS-CO)")
axes[0].legend(fontsize=8, loc="upper left")
plotting.panel_labels(axes)
fig.suptitle("A movie's free-form accuracy grows with its exposure; clean movies stay at 0")
fig.tight_layout()
plt.show()

rho = np.array(
    [
        stats.spearmanr(
            r["table"].exposure[r["table"].label == 1], r["table"].accuracy[r["table"].label == 1]
        )[0]
        for r in runs
    ]
)
gap = sus.groupby("seed").main.mean() - sus.groupby("seed").neutral.mean()
neutral_auc = np.array([detection_auc(r["table"].neutral, r["table"].label) for r in runs])
print("Spearman rho per seed", rho.round(3), "| main - neutral per seed", gap.round(3).tolist())
by_e = sus.groupby("exposure").main.mean()
for e in exposures:
    glue(f"acc_e{e}", float(by_e.loc[e]))
glue("rho_min", float(rho.min()))
glue("rho_max", float(rho.max()))

# %% [markdown]
# Each dot is one suspect movie of one seed (slightly jittered sideways), the black line the
# mean per exposure; clean movies are the grey crosses at the left. Mean main-frame accuracy is
# {glue:text}`acc_e2:.3f`, {glue:text}`acc_e4:.3f`, {glue:text}`acc_e8:.3f`,
# {glue:text}`acc_e16:.3f` and {glue:text}`acc_e32:.3f` at 2, 4, 8, 16 and 32 training frames:
# it rises up to 8 frames and then **saturates**, so a rank correlation over all five levels is
# driven by the two lowest ones and by noise among the saturated movies. The per-seed Spearman
# ρ ranges from {glue:text}`rho_min:.2f` to {glue:text}`rho_max:.2f`. Neutral frames (b), which
# show only the background and a prop shared by several movies, follow the same curve.

# %% [markdown]
# ## What ⌊DIS-CO⌋ removes
#
# A frame counts for ⌊DIS-CO⌋ only if the image route names the movie and the caption route
# (the same frame's caption, no image) does not. The caption route can only name the
# **text-known** suspects, whose captions were paired with their titles in training.

# %%
drop = table.main - table.floor
tk = table.text_known.to_numpy()
n_eval = CONFIG["n_eval"]
fig, axes = plt.subplots(1, 2, figsize=plotting.figsize("wide"))
ax = axes[0]
for known, col, lab in (
    (False, plotting.PALETTE[7], "other movies"),
    (True, plotting.PALETTE[3], "text-known suspects"),
):
    sel = tk == known
    ax.scatter(table.main[sel], table.floor[sel], s=16, color=col, label=lab, alpha=0.7)
ax.plot([0, 1], [0, 1], color="grey", ls="--", lw=1, label="no change")
ax.set_xlabel("DIS-CO accuracy (main frames)")
ax.set_ylabel("⌊DIS-CO⌋ accuracy")
ax.set_title("⌊DIS-CO⌋ moves only the text-known suspects")
ax.legend(fontsize=8)
r0 = runs[0]
ev = r0["split"].eval.subset(r0["split"].eval.kind == "main")
removed = np.flatnonzero(r0["img"] & r0["cap"])
ax = axes[1]
ax.axis("off")
if len(removed):
    picks = removed[np.linspace(0, len(removed) - 1, 3).astype(int)]
    for j, i in enumerate(picks):
        sub = ax.inset_axes([j / 3 + 0.01, 0.3, 0.3, 0.65])
        sub.imshow(ev.frames[i])
        sub.set_xticks([])
        sub.set_yticks([])
        sub.set_title(r0["split"].movies[ev.movie[i]].title, fontsize=8)
        words = ev.caption[i].split()
        sub.set_xlabel(" ".join(words[:4]) + "\n" + " ".join(words[4:]), fontsize=7)
ax.set_title(f"frames removed (seed {r0['seed']}): named from the image and the caption")
plotting.panel_labels(axes)
fig.tight_layout()
plt.show()
moved = np.abs(drop[~tk]).max() * n_eval
print(f"largest change of any other movie: {moved:.0f} frames of {n_eval}")

# %% [markdown]
# (a) Each dot is a movie of one seed: the text-known suspects fall below the diagonal (their
# frames are named from the caption too, and ⌊DIS-CO⌋ discards them), every other movie stays
# on it. (b) Frames that both routes name: the caption carries the colours that the training
# text tied to the title.

# %%
runtime_s = time.perf_counter() - t_start
n_seeds = len(runs)
claim(
    "disco/3_frames/rises_with_exposure_per_seed",
    "Suspects' DIS-CO accuracy rises with their exposure: Spearman rho between training frames "
    "and free-form accuracy above 0.5 on every seed (the issue's check)",
    paper="accuracy tracks popularity (box-office) of the movies",
    value=rho,
    check=greater(0.5),
    verdict="partly",
    caveat=f"rho per seed {', '.join(f'{v:.2f}' for v in rho)}: accuracy rises up to 8 "
    "training frames and saturates above, so rho over five levels rests on the two lowest; "
    "exposures of 1-4 frames would test the trend",
    fmt=".3f",
)
# post hoc (added after the per-seed check failed on the first seeds): rho over the suspects
# of all seeds pooled, with a bootstrap CI (movies resampled within each seed) and the
# permutation null (exposures permuted among the suspects within each seed)
boot = np.random.default_rng(2)
groups = [sus[sus.seed == s_][["exposure", "main"]].to_numpy() for s_ in CONFIG["seeds"]]
pooled_rho = stats.spearmanr(sus.exposure, sus.main)[0]
rho_boot, rho_null = [], []
for _ in range(1000):
    b = np.concatenate([g[boot.integers(0, len(g), len(g))] for g in groups])
    rho_boot.append(stats.spearmanr(b[:, 0], b[:, 1])[0])
    p = np.concatenate([np.c_[boot.permutation(g[:, 0]), g[:, 1]] for g in groups])
    rho_null.append(stats.spearmanr(p[:, 0], p[:, 1])[0])
rho_lo, rho_hi = np.nanpercentile(rho_boot, [2.5, 97.5])
null_99 = float(np.nanpercentile(rho_null, 99))
claim(
    "disco/3_frames/rises_with_exposure_pooled",
    "Suspects' DIS-CO accuracy rises with exposure: the lower end of the 95 % bootstrap CI of "
    "Spearman rho over the suspects of all seeds pooled is above 0.5 (post hoc)",
    paper="accuracy tracks popularity (box-office) of the movies",
    value=rho_lo,
    check=greater(0.5),
    control=("99th percentile of the permutation null", null_99),
    verdict="partly",
    caveat="post hoc: added after the per-seed check failed on the earlier seeds 0-2; pooled "
    f"rho {pooled_rho:.2f}, "
    f"95 % CI [{rho_lo:.2f}, {rho_hi:.2f}] (movies resampled within seeds), permutation "
    f"null's 99th percentile {null_99:.2f}; accuracy saturates from 8 frames; exposure is a "
    "frame count here, not the paper's box-office popularity",
    numbers={"pooled rho": float(pooled_rho), "CI upper end": float(rho_hi)},
    seeds=n_seeds,
    over="pooled suspects",
    fmt=".3f",
)
# main minus neutral per seed: paired bootstrap over the suspects (95 % CI lower end), and the
# same statistic with main/neutral swapped at random per movie (sign flip) as the control
diffs = [(g.main - g.neutral).to_numpy() for _, g in sus.groupby("seed")]
flip = np.random.default_rng(3)


def ci_low(d: np.ndarray) -> float:
    """Lower end of the 95 % paired-bootstrap CI of the mean difference over suspects."""
    idx = boot.integers(0, len(d), (2000, len(d)))
    return float(np.percentile(d[idx].mean(axis=1), 2.5))


gap_lo = np.array([ci_low(d) for d in diffs])
gap_flip = np.array([ci_low(d * flip.choice([-1, 1], len(d))) for d in diffs])
claim(
    "disco/3_frames/main_above_neutral",
    "Main frames (with the protagonist) are named more often than neutral frames: on every "
    "seed the lower end of the 95 % paired-bootstrap CI (over suspects) of main minus neutral "
    "accuracy is above 0",
    paper="neutral frames are recognised less often than main frames, but still often",
    value=gap_lo,
    check=greater(0.0),
    verdict="not reproduced",
    caveat=f"CI lower end above 0 on {int((gap_lo > 0).sum())} of {len(gap_lo)} seeds; the "
    f"mean gap per seed ({', '.join(f'{v:.3f}' for v in gap)}) is positive but within the "
    "noise of about 20 suspects with 20 frames each; main frames carry one more cue (the "
    "sprite) by construction, and 30 epochs were chosen on seed 0 because at 20 epochs main "
    "scored below neutral there, so the sign depends on training length",
    numbers={
        "mean gap main - neutral": float(gap.mean()),
        "main, suspects": float(sus.main.mean()),
        "neutral, suspects": float(sus.neutral.mean()),
        "AUC from neutral frames": float(neutral_auc.mean()),
        "the same CI end, main/neutral swapped at random per movie": float(gap_flip.mean()),
    },
    fmt=".3f",
)
drop_tk = np.array([drop[(table.seed == s) & tk].mean() for s in CONFIG["seeds"]])
drop_other = np.array(
    [drop[(table.seed == s) & ~tk & (table.label == 1)].mean() for s in CONFIG["seeds"]]
)
claim(
    "disco/3_frames/floor_removes_text_known",
    "⌊DIS-CO⌋ lowers the text-known suspects' scores (mean drop above 0.1 on every seed) and "
    "moves no other movie's score by more than one frame",
    paper="⌊DIS-CO⌋ discounts frames the model names from the caption alone",
    value=drop_tk,
    check=greater(0.1),
    control=("the other suspects' mean drop", drop_other),
    verdict="illustrated",
    caveat="true by construction: the caption route is trained only on the text-known "
    "suspects' caption-to-title pairs, and eval captions are the same template strings seen in "
    "training, so the drop is a lookup and the other movies' zero drop is guaranteed",
    numbers={"largest change of another movie (frames)": float(moved)},
    fmt=".3f",
)
assert moved <= 1, "the floor moved a movie that has no text knowledge"
assert (table[table.label == 0][["main", "neutral", "floor"]] == 0).all().all()
glue("rho_mean", float(rho.mean()))
glue("rho_pooled", float(pooled_rho))
glue("rho_pooled_lo", float(rho_lo))
glue("rho_pooled_hi", float(rho_hi))
glue("rho_n_fail", int((rho <= 0.5).sum()))
glue("main_mean", float(sus.main.mean()))
glue("neutral_mean", float(sus.neutral.mean()))
glue("neutral_auc", float(neutral_auc.mean()))
glue("drop_tk", float(drop_tk.mean()))
glue("runtime_s", runtime_s)
