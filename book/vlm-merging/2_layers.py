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
# # Where perception and reasoning live: layer resets and image-token alignment
#
# The paper ablates layers of the merged models and finds perception in early layers,
# reasoning in middle-to-late ones, and, after merging, every layer contributing to reasoning
# while perception's profile stays. The official code has no layer analysis; ours is the book's
# own: **reset block i to the base LM's weights** and measure the change in accuracy, for the
# VLM, the reasoning LM, the merge at the paper's α = 0.9 and an even merge, α = 0.5 (F2). A
# *planted* control, trained like the VLM but with only its last block learning perception,
# shows what the same check gives when perception is late by construction. F3 measures how
# close the VLM's image tokens come to digit tokens, block by block: the diagnostic of whether
# a reasoning LM's layers, which compute on digit tokens, can read the images at all.
#
# Why α = 0.9 and not the val-chosen merge of notebook 1 (which the issue names for F2): that
# merge is chosen by its val accuracy on image arithmetic, and every merge is at chance there
# (notebook 1), so the choice is noise and its profile would describe an arbitrary merge. The
# paper's α = 0.9 is the merge every one of its scripts runs; α = 0.5, where both task vectors
# weigh the same, is the merge far from the VLM that tests whether merging keeps perception's
# profile (at α = 0.9 the merge is 90 % the VLM, which keeps its profile almost by
# construction).

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
        " && pip install -q --no-deps -e /content/icml25 && pip install -q peft",
        shell=True,
        check=True,
    )

# %%
import copy
import time

import matplotlib.pyplot as plt
import numpy as np
from scipy.stats import pearsonr

from icml25.common import glue, plotting, setup
from icml25.common.claims import claim, greater
from icml25.vlm_merging import (
    RECIPES,
    image_token_alignment,
    layer_ablation,
    load_models,
    make_suite,
    merge,
    train_models,
)

t_start = time.perf_counter()
SCALE = setup(seed=0)
SEEDS = {"small": [0, 1, 2], "large": [0, 1, 2, 3, 4]}[SCALE]
RECIPE = RECIPES[SCALE]
TASKS3 = ["perception", "mm_reasoning", "text_reasoning"]
ALPHA = 0.9  # the paper's weight of the VLM in every script
ALPHA_FAR = 0.5  # an even merge: the test of "merging keeps perception's profile"
ALPHAS = [0.9, 0.7, 0.5, 0.3]  # perception's profile against the merge weight
suites, models = {}, {}
for s in SEEDS:
    suites[s] = make_suite(seed=s, n_operands=RECIPE["n_operands"])
    if SCALE == "small":
        models[s], _ = load_models(suites[s], seed=s)
    else:
        models[s], _ = train_models(suites[s], seed=s, scale=SCALE)
    m = models[s]
    for key, a in (("merged", ALPHA), ("merged_far", ALPHA_FAR)):
        merged = copy.deepcopy(m["vlm"])
        merged.load_state_dict(merge(m["base"], [m["vlm"], m["reason"]], "linear", (a, 1 - a)))
        m[key] = merged.eval()
N_LAYER = models[0]["vlm"].n_layer
N_TEST = suites[0].n_test

# %% [markdown]
# ## Δaccuracy per reset block (F2)

# %%
NAMES = {
    "vlm": "VLM",
    "reason": "reasoning LM",
    "merged": f"merge α = {ALPHA}",
    "merged_far": f"merge α = {ALPHA_FAR}",
    "planted": "planted (last block)",
}
abl = {
    (s, name): layer_ablation(models[s][name], models[s]["base"], suites[s], TASKS3)
    for s in SEEDS
    for name in NAMES
}
mean = {
    name: sum(abl[(s, name)].pivot(index="task", columns="layer", values="delta") for s in SEEDS)
    / len(SEEDS)
    for name in NAMES
}
fig, axes = plt.subplots(1, len(NAMES), figsize=(13, 2.6), sharey=True)
for ax, name in zip(axes, NAMES, strict=True):
    mat = mean[name].loc[TASKS3]
    im = ax.imshow(mat, cmap="RdBu", vmin=-1, vmax=1, aspect="auto")
    for (i, j), v in np.ndenumerate(mat.to_numpy()):
        ax.text(j, i, f"{v:+.2f}", ha="center", va="center", fontsize=7)
    ax.set_xticks(range(N_LAYER))
    ax.set_xlabel("block reset to the base LM")
    ax.set_title(NAMES[name], fontsize=10)
    ax.grid(False)
axes[0].set_yticks(range(3), TASKS3)
fig.colorbar(im, ax=axes, label="Δ test accuracy (mean over seeds)", shrink=0.9)
plotting.panel_labels(axes)
fig.suptitle("Resetting one block to the base LM: Δaccuracy per block and model")
plt.show()

# %% [markdown]
# Read each panel by row. The VLM's perception row shows which blocks its naming of images
# needs (the claim checks below compare block 0 or 1 with the last block); the planted control
# loses only at the block it trained. The reasoning LM's text-arithmetic row shows where its
# arithmetic lives. Image arithmetic (mm_reasoning) is near chance in every model (notebook 1),
# so its row cannot move much. The reasoning LM's perception row is the reset profile of a model
# that cannot name images (its projector is the base LM's, never trained): noise around 0.
#
# ## Perception's profile against the merge weight
#
# Per seed, the Pearson correlation between the VLM's per-block Δperception and that of the
# linear merge at weight α (α = 0.9 and 0.5 from F2, 0.7 and 0.3 reset for perception only),
# next to the merge's perception accuracy. The dotted line is the same correlation for the
# reasoning LM's own reset profile, a model that cannot name images: what a profile unrelated
# to perception gives.


# %%
def delta(s, name, task):
    df = abl[(s, name)]
    return df[df.task == task].sort_values("layer")["delta"].to_numpy()


def merged_at(s, a):
    m = models[s]
    out = copy.deepcopy(m["vlm"])
    out.load_state_dict(merge(m["base"], [m["vlm"], m["reason"]], "linear", (a, 1 - a)))
    return out.eval()


sweep = {}  # (seed, α) -> (Δperception per block, intact perception accuracy)
for s in SEEDS:
    for a in ALPHAS:
        key = {ALPHA: "merged", ALPHA_FAR: "merged_far"}.get(a)
        if key is not None:
            df = abl[(s, key)]
            df = df[df.task == "perception"]
        else:
            df = layer_ablation(merged_at(s, a), models[s]["base"], suites[s], ["perception"])
        df = df.sort_values("layer")
        sweep[(s, a)] = (df["delta"].to_numpy(), float((df.accuracy - df.delta).iloc[0]))
r_alpha = np.array(
    [[pearsonr(delta(s, "vlm", "perception"), sweep[(s, a)][0])[0] for a in ALPHAS] for s in SEEDS]
)
perc_alpha = np.array([[sweep[(s, a)][1] for a in ALPHAS] for s in SEEDS])
pear_reason = np.array(
    [pearsonr(delta(s, "vlm", "perception"), delta(s, "reason", "perception"))[0] for s in SEEDS]
)
fig, axes = plt.subplots(1, 2, figsize=plotting.figsize("wide"))
for j, s in enumerate(SEEDS):
    axes[0].plot(ALPHAS, r_alpha[j], marker="o", ms=3, lw=1, label=f"seed {s}")
    axes[1].plot(ALPHAS, perc_alpha[j], marker="o", ms=3, lw=1, label=f"seed {s}")
axes[0].axhline(0.8, color="k", ls="--", lw=1, label="the check's 0.8")
axes[0].axhline(pear_reason.mean(), color="0.5", ls=":", label="reasoning LM (mean)")
axes[0].set_ylabel("Pearson of Δperception per block, merge vs VLM")
axes[1].axhline(0.1, color="0.5", ls=":", label="chance")
axes[1].set_ylabel("merge's test perception")
axes[1].set_ylim(0, 1.02)
for ax in axes:
    ax.set_xlabel("α (weight of the VLM)")
    ax.invert_xaxis()
    ax.legend(fontsize=7)
plotting.panel_labels(axes)
fig.suptitle("Perception's layer profile after merging, against the merge weight")
plt.show()
print("Pearson by α:", dict(zip(ALPHAS, r_alpha.mean(0).round(3), strict=True)))
print("perception by α:", dict(zip(ALPHAS, perc_alpha.mean(0).round(3), strict=True)))

# %%
early_cost = {
    name: np.array(
        [delta(s, name, "perception")[-1] - min(delta(s, name, "perception")[:2]) for s in SEEDS]
    )
    for name in NAMES
}
# The same statistic on another skill: the reasoning LM's text arithmetic. If it passes too,
# resetting block 0 or 1 breaks any skill fine-tuned into this base, not perception only.
early_cost_text = np.array(
    [
        delta(s, "reason", "text_reasoning")[-1] - min(delta(s, "reason", "text_reasoning")[:2])
        for s in SEEDS
    ]
)
pear = r_alpha[:, ALPHAS.index(ALPHA)]
pear_far = r_alpha[:, ALPHAS.index(ALPHA_FAR)]
text_prof = np.stack([delta(s, "reason", "text_reasoning") for s in SEEDS])
half = N_LAYER // 2
# late-block cost minus early-block cost (Δ < 0 is a cost): > 0 means the late blocks matter more
late_minus_early = text_prof[:, :half].mean(1) - text_prof[:, half:].mean(1)
mm_merged = np.stack([delta(s, "merged", "mm_reasoning") for s in SEEDS])
se_mm = np.sqrt(0.1 * 0.9 / N_TEST) * np.sqrt(2)
layers_hurting = (mm_merged < -2 * se_mm).sum(1)
print("perception: Δlast − min(Δ0, Δ1) per seed:", {k: v.round(3) for k, v in early_cost.items()})
print("the same on the reasoning LM's text arithmetic:", early_cost_text.round(3))
print(
    f"Pearson of Δperception, VLM vs merge α = {ALPHA}:",
    pear.round(3),
    f"α = {ALPHA_FAR}:",
    pear_far.round(3),
    "reasoning LM:",
    pear_reason.round(3),
)
print("reasoning LM Δtext by block (mean):", text_prof.mean(0).round(3))
print("blocks whose reset costs the merge > 2 s.e. of mm_reasoning:", layers_hurting)

# %% [markdown]
# ## Image tokens against digit tokens (F3)
#
# Entry [i, j] of each matrix is the cosine between the mean representation of images of digit
# i and that of the digit token j: at the projector output against the token embeddings, or in
# the residual stream after block l of "the digit <img> is" against "the digit j is", read at
# one of three positions: the mean of the four image tokens; the **last image token**, the
# first that can attend to all four patches (causal attention), both against the digit token;
# and the **"is" token**, where the model reads out the answer, against "is" after the digit
# token. The score below is the mean diagonal minus the mean off-diagonal cosine: above 0, an
# image of a 3 looks more like the token "3" than like the other digits. At the "is" position
# the two prompts must also predict the same answer, so a high score there is partly what the
# VLM was trained for; the image positions are the stricter test of whether an image *acts as*
# a digit token.


# %%
def score(a):
    return float(np.diag(a).mean() - a[~np.eye(10, dtype=bool)].mean())


where = [None, *range(N_LAYER)]
POSITIONS = {"mean": "mean image token", "last": "last image token", "is": '"is" token'}
align = {
    (name, pos): np.array(
        [
            [
                score(image_token_alignment(models[s][name], suites[s], lay, pos))
                if lay is not None
                else score(image_token_alignment(models[s][name], suites[s]))
                for lay in where
            ]
            for s in SEEDS
        ]
    )
    for name in ("vlm", "merged")
    for pos in POSITIONS
}
fig, axes = plt.subplots(1, 3, figsize=plotting.figsize("wide"))
for ax, (lay, pos) in zip(axes[:2], ((None, "mean"), (1, "is")), strict=True):
    a = image_token_alignment(models[0]["vlm"], suites[0], lay, pos)
    im = ax.imshow(a, cmap="RdBu", vmin=-1, vmax=1)
    ax.set_xlabel("digit token j")
    ax.set_ylabel("image digit i")
    ax.set_title(
        "projector output" if lay is None else f"after block {lay}, {POSITIONS[pos]}", fontsize=9
    )
    ax.grid(False)
fig.colorbar(im, ax=axes[:2], label="cosine (VLM, seed 0)", shrink=0.8)
x = np.arange(len(where))
for (name, pos), a in align.items():
    axes[2].errorbar(
        x + (0.08 if name == "merged" else 0.0),
        a.mean(0),
        yerr=a.std(0, ddof=1),
        marker="o",
        ms=3,
        capsize=2,
        ls="-" if name == "vlm" else "--",
        color={"mean": "C0", "last": "C1", "is": "C2"}[pos],
        label=f"{NAMES[name]}, {POSITIONS[pos]}",
    )
axes[2].axhline(0, color="0.5", ls=":")
axes[2].set_xticks(x, ["proj", *[str(i) for i in range(N_LAYER)]])
axes[2].set_xlabel("representation (after block)")
axes[2].set_ylabel("diagonal − off-diagonal cosine")
axes[2].legend(fontsize=5)
plotting.panel_labels(axes)
fig.suptitle("How much an image of digit d resembles the token d, block by block")
plt.show()
print({f"{k[0]}, {k[1]}": v.mean(0).round(3) for k, v in align.items()})

# %% [markdown]
# F3 was meant to tell whether alignment predicts transfer. It cannot here: no merge transfers
# (notebook 1), so there is no variation in transfer for the alignment to predict, across seeds
# or merges. What F3 shows is how far the image tokens are from acting as digit tokens inside
# the VLM and the α = 0.9 merge.
#
# ## Claim checks
#
# The verdicts are fixed in the code before the results are read (from the executed record of
# the previous revision, and for the α = 0.5 profile and the text-arithmetic control from
# exploratory runs on the same committed models): the checks assert them, so a change in the
# data fails the notebook instead of changing the verdict. `perception_early` is "illustrated":
# its check holds on every seed and the planted control fails it, but the same statistic on the
# reasoning LM's text arithmetic passes it too (asserted below), so block 0 is what every
# fine-tune of this base leans on, not perception alone: a control that passes means the check
# measures the data, not the method (BOOK_GUIDE §2a).

# %%
runtime_s = time.perf_counter() - t_start
# the caveat of perception_early rests on this: the text-arithmetic control passes the check
assert early_cost_text.mean() > 0.3, early_cost_text
planted = np.stack([delta(s, "planted", "perception") for s in SEEDS])
assert np.all(planted[:, :-1] == 0.0) and np.all(planted[:, -1] < -0.1), planted  # planted
claim(
    "vlm-merging/2_layers/perception_early",
    "Perception is encoded in early layers: resetting block 0 or 1 of the VLM costs at least "
    "0.3 more perception accuracy than resetting its last block",
    paper="perception mostly in early layers (layer ablation, Sec. 5)",
    value=early_cost["vlm"],
    check=greater(0.3),
    control=("planted: perception trained into the last block", early_cost["planted"]),
    verdict="illustrated",
    caveat="block 0 matters most for every skill fine-tuned into this base, not for perception "
    "only: the same statistic on the reasoning LM's text arithmetic is "
    f"{early_cost_text.mean():.3f} (> 0.3 on {int((early_cost_text > 0.3).sum())} of "
    f"{early_cost_text.size} seeds), so it passes the same check; the planted control only "
    "shows that the reset ablation can see a skill in the last block",
    numbers={
        "VLM Δperception, block 0": float(
            np.mean([delta(s, "vlm", "perception")[0] for s in SEEDS])
        ),
        "VLM Δperception, last block": float(
            np.mean([delta(s, "vlm", "perception")[-1] for s in SEEDS])
        ),
        "the same statistic, reasoning LM on text arithmetic": float(early_cost_text.mean()),
    },
    fmt=".3f",
)
perc_far = perc_alpha[:, ALPHAS.index(ALPHA_FAR)]
perc_vlm = np.array(
    [
        float((df.accuracy - df.delta)[df.task == "perception"].iloc[0])
        for df in (abl[(s, "vlm")] for s in SEEDS)
    ]
)
claim(
    "vlm-merging/2_layers/perception_profile_kept",
    "Merging keeps perception's layer profile: the per-block Δperception of an even merge "
    f"(α = {ALPHA_FAR}) correlates with the VLM's (Pearson ≥ 0.8) on every seed",
    paper="after merging, the layer profile of perception stays the same",
    value=pear_far,
    check=greater(0.8),
    verdict="not reproduced",
    caveat=f"Pearson ≥ 0.8 on {int((pear_far > 0.8).sum())} of {pear_far.size} seeds at "
    f"α = {ALPHA_FAR}, where the merge's perception falls to {perc_far.mean():.3f} (VLM "
    f"{perc_vlm.mean():.3f}) and its profile flattens; "
    f"near the VLM the profile is kept (α = {ALPHA}: {pear.mean():.3f}, α = 0.7: "
    f"{r_alpha[:, ALPHAS.index(0.7)].mean():.3f}, every seed), close to true by construction "
    f"for a merge that is mostly the VLM; a profile unrelated to perception (the reasoning "
    f"LM's, which cannot name images) gives {pear_reason.mean():.3f}",
    numbers={
        f"Pearson at α = {ALPHA} (the paper's merge)": float(pear.mean()),
        "Pearson at α = 0.7": float(r_alpha[:, ALPHAS.index(0.7)].mean()),
        f"merge perception at α = {ALPHA_FAR}": float(perc_far.mean()),
        "Pearson, reasoning LM's own profile": float(pear_reason.mean()),
    },
    fmt=".3f",
)
claim(
    "vlm-merging/2_layers/reasoning_late",
    "Reasoning lives in middle-to-late layers: resetting a late block of the reasoning LM "
    "costs more text-arithmetic accuracy than resetting an early one",
    paper="reasoning in middle-to-late layers",
    value=late_minus_early,
    check=greater(0.0),
    verdict="not reproduced",
    caveat="the reasoning LM's two-operand arithmetic over a 10 × 10 table is computed in "
    "its early blocks (as in the brief's pilot B): a lookup needs no depth",
    fmt=".3f",
)
glue("early_cost", float(early_cost["vlm"].mean()), display=False)
glue("early_cost_planted", float(early_cost["planted"].mean()), display=False)
glue("early_cost_text", float(early_cost_text.mean()), display=False)
glue("early_text_ok", int(np.sum(early_cost_text > 0.3)), display=False)
glue("early_ok", int(np.sum(early_cost["vlm"] > 0.3)), display=False)
glue("pearson_ok", int(np.sum(pear > 0.8)), display=False)
glue("pearson", float(pear.mean()), display=False)
glue("pearson_07", float(r_alpha[:, ALPHAS.index(0.7)].mean()), display=False)
glue("pearson_far", float(pear_far.mean()), display=False)
glue("pearson_far_ok", int(np.sum(pear_far > 0.8)), display=False)
glue("perc_far", float(perc_far.mean()), display=False)
glue("pearson_reason", float(pear_reason.mean()), display=False)
glue("text_late_minus_early", float(late_minus_early.mean()), display=False)
glue("layers_hurting_mm", float(layers_hurting.mean()), display=False)
glue("align_proj", float(align[("vlm", "mean")][:, 0].mean()), display=False)
for pos in POSITIONS:
    glue(f"align_best_{pos}", float(align[("vlm", pos)].mean(0)[1:].max()), display=False)
glue("align_best", float(align[("vlm", "mean")].mean(0).max()), display=False)
assert np.all(np.isfinite(r_alpha)) and r_alpha.shape == (len(SEEDS), len(ALPHAS)), r_alpha
glue("runtime_s", runtime_s, display=False)
print(f"runtime {runtime_s:.0f} s")
