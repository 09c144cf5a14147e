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
# movie from the caption alone. Three seeds, each with its own movies, split and model.

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
from icml25.disco import (
    build_title_vlm,
    detection_auc,
    disco_scores,
    frame_hits,
    make_movies,
    make_split,
    train_title_vlm,
)

t_start = time.perf_counter()
SCALE = setup(seed=0)
CONFIG = {
    "small": {
        "n_movies": 40,
        "n_eval": 20,
        "epochs": 30,
        "cnn_width": 32,
        "n_embd": 64,
        "seeds": (0, 1, 2),
    },
    "large": {
        "n_movies": 80,
        "n_eval": 40,
        "epochs": 40,
        "cnn_width": 64,
        "n_embd": 128,
        "seeds": (0, 1, 2, 3, 4),
    },
}[SCALE]
print(SCALE, CONFIG)

# %%
runs = []
for seed in tqdm(CONFIG["seeds"]):
    movies = make_movies(CONFIG["n_movies"], seed=seed)
    split = make_split(movies, n_eval=CONFIG["n_eval"], seed=seed)
    width = {"cnn_width": CONFIG["cnn_width"], "n_embd": CONFIG["n_embd"]}
    untrained = build_title_vlm(split, seed=seed, **width)
    model = build_title_vlm(split, seed=seed, **width)
    train_title_vlm(model, split, epochs=CONFIG["epochs"], seed=seed, progress=False)
    t = disco_scores(model, split, "main")
    t["neutral"] = disco_scores(model, split, "neutral").accuracy
    t["floor"] = disco_scores(model, split, "main", discount_captions=True).accuracy
    t["untrained main"] = disco_scores(untrained, split, "main").accuracy
    t["untrained neutral"] = disco_scores(untrained, split, "neutral").accuracy
    t["seed"] = seed
    hits_img = frame_hits(model, split, "main", "image")
    hits_cap = frame_hits(model, split, "main", "caption")
    runs.append({"split": split, "model": model, "table": t, "img": hits_img, "cap": hits_cap})
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
perm = np.random.default_rng(1)
rho_perm = np.array(
    [
        stats.spearmanr(
            perm.permutation(r["table"].exposure[r["table"].label == 1].to_numpy()),
            r["table"].accuracy[r["table"].label == 1],
        )[0]
        for r in runs
    ]
)
gap = sus.groupby("seed").main.mean() - sus.groupby("seed").neutral.mean()
gap0 = (
    sus.groupby("seed")["untrained main"].mean() - sus.groupby("seed")["untrained neutral"].mean()
)
neutral_auc = np.array([detection_auc(r["table"].neutral, r["table"].label) for r in runs])
print("Spearman rho per seed", rho.round(3), "| main - neutral per seed", gap.round(3).tolist())

# %% [markdown]
# Each dot is one suspect movie of one seed (slightly jittered sideways), the black line the
# mean per exposure; clean movies are the grey crosses at the left. Main frames (a) and neutral
# frames (b) both climb with exposure; neutral frames, which show only the background and a
# prop shared by several movies, are named less often at low exposure.

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
ax.set_title("frames removed (seed 0): named from the image and from the caption")
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
pooled_rho = stats.spearmanr(sus.exposure, sus.main)[0]
pooled_perm = stats.spearmanr(perm.permutation(sus.exposure.to_numpy()), sus.main)[0]
claim(
    "disco/3_frames/rises_with_exposure_per_seed",
    "Suspects' DIS-CO accuracy rises with their exposure: Spearman rho between training frames "
    "and free-form accuracy above 0.5 on every seed (the issue's check)",
    paper="accuracy tracks popularity (box-office) of the movies",
    value=rho,
    check=greater(0.5),
    verdict="not reproduced",
    caveat=f"rho per seed {', '.join(f'{v:.2f}' for v in rho)}: 4 suspects per exposure level "
    "and 20 frames per movie make one seed's rho noisy; pooled over the seeds it holds (next row)",
    fmt=".3f",
)
claim(
    "disco/3_frames/rises_with_exposure_pooled",
    "Suspects' DIS-CO accuracy rises with exposure: Spearman rho above 0.5 over the suspects of "
    "all seeds pooled",
    paper="accuracy tracks popularity (box-office) of the movies",
    value=pooled_rho,
    check=greater(0.5),
    control=("exposures permuted among the suspects", pooled_perm),
    verdict="partly",
    caveat="holds pooled over 3 seeds, not on every seed; exposure is a frame count here, not "
    "the paper's box-office popularity",
    seeds=len(runs),
    over="pooled suspects",
    fmt=".3f",
)
claim(
    "disco/3_frames/main_above_neutral",
    "Main frames (with the protagonist) are named more often than neutral frames: suspects' "
    "mean accuracy, main minus neutral, above 0 on every seed",
    paper="neutral frames are recognised less often than main frames, but still often",
    value=gap.to_numpy(),
    check=greater(0.0),
    control=("untrained model", gap0.to_numpy()),
    verdict="partly",
    caveat="main frames carry one more cue (the sprite) by construction of the world",
    numbers={
        "main, suspects": float(sus.main.mean()),
        "neutral, suspects": float(sus.neutral.mean()),
        "AUC from neutral frames": float(neutral_auc.mean()),
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
    verdict="reproduced",
    numbers={"largest change of another movie (frames)": float(moved)},
    fmt=".3f",
)
assert moved <= 1, "the floor moved a movie that has no text knowledge"
assert (table[table.label == 0][["main", "neutral", "floor"]] == 0).all().all()
glue("rho_mean", float(rho.mean()))
glue("main_mean", float(sus.main.mean()))
glue("neutral_mean", float(sus.neutral.mean()))
glue("neutral_auc", float(neutral_auc.mean()))
glue("drop_tk", float(drop_tk.mean()))
glue("runtime_s", runtime_s)
