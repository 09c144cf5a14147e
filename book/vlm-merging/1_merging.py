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
# # Merging a reasoning LM into a VLM, without training
#
# Three models grow from one base language model: the **base LM** (filler text and copy
# sentences "the digit 3 is 3"), a **reasoning LM** (its layers fine-tuned on text arithmetic
# "4 plus 5 is 9", mod 10) and a **VLM** (a linear projector, then projector and layers, trained
# to name digit images, "the digit <img> is 3" and "<img> is 3", and on single-step items with
# one image operand, "<img> plus 4 is": the *alignment stage*, so that an image acts as a digit
# token in more than one context). The paper's recipe merges the two fine-tunes key by key
# over the LM layers, $\theta = \lambda\,\theta_\mathrm{VLM} + (1-\lambda)\,\theta_\mathrm{reason}$,
# keeping the VLM's embeddings, head and projector, and asks whether the merged model can now do
# **arithmetic on two digit images**, which neither fine-tune was trained on (the VLM saw
# one-image items only). This notebook shows
# the task suite, the three models, accuracy against λ (F1), the task-arithmetic grid, TIES and
# layer swap, and tests the transfer on the merge chosen on validation items.
#
# The models are read from `data/vlm_merging/` (three seeds; `python -m
# icml25.vlm_merging.checkpoints` regenerates them, CPU time in that folder's README); at
# `large` scale the notebook trains them itself, on a GPU when one is visible.

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
import time

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from icml25.common import glue, plotting, setup
from icml25.common.claims import claim, greater
from icml25.vlm_merging import (
    ALIGN_TASKS,
    RECIPES,
    VOCAB,
    evaluate,
    evaluate_merges,
    load_models,
    make_suite,
    merge_candidates,
    probe_accuracy,
    train_models,
)

t_start = time.perf_counter()
SCALE = setup(seed=0)
CONFIG = {"small": {"seeds": [0, 1, 2]}, "large": {"seeds": [0, 1, 2, 3, 4]}}[SCALE]
SEEDS = CONFIG["seeds"]
RECIPE = RECIPES[SCALE]
TASKS3 = ["perception", "mm_reasoning", "text_reasoning"]
suites, models, losses = {}, {}, {}
for s in SEEDS:
    suites[s] = make_suite(seed=s, n_operands=RECIPE["n_operands"])
    if SCALE == "small":
        models[s], losses[s] = load_models(suites[s], seed=s)
    else:
        models[s], losses[s] = train_models(suites[s], seed=s, scale=SCALE)
suite = suites[0]
N_TEST = suite.n_test
print({k: len(v) for k, v in suite.split_index.items()}, "images per split;", N_TEST, "items")

# %% [markdown]
# ## The task suite
#
# One item of each task (images shown below their token sequence). Every answer is one digit
# token, so chance is 1/10. Images are split by image into train / val / test; the val and test
# items are fixed.

# %%
fig, axes = plt.subplots(1, 4, figsize=(9, 1.9))
for ax, task in zip(axes, ["base", "text_reasoning", "perception", "mm_reasoning"], strict=True):
    b = suite.batch(task, "test", 1)
    words = [VOCAB[i] for i in b.input_ids[0].tolist()[1:]]
    text = " ".join(words).replace("<img> <img> <img> <img>", "[img]")
    print(f"{task:15s} {text}")
    if b.images is not None:
        ax.imshow(np.concatenate(list(b.images[0, :, 0].numpy()), axis=1), cmap="gray_r")
    ax.set_title(task, fontsize=9)
    ax.set_xticks([])
    ax.set_yticks([])
    ax.grid(False)
fig.suptitle("Test items: the images of perception and multimodal reasoning (text items have none)")
plt.show()

# %% [markdown]
# ## The three models
#
# Accuracy on the test items (mean ± sd over the seeds; each seed has its own split, base LM,
# reasoning LM and VLM). The reasoning LM trains only `lm.transformer.h.*` and `ln_f`
# (embeddings and head frozen, so its tokens keep the base's meaning); the VLM trains its
# projector first, then projector and layers, on perception mixed with the two alignment tasks
# (`ALIGN_TASKS`: "<img> is d", and one step of arithmetic with one image operand and one digit
# token); it never sees the two-image items of mm_reasoning. The second table is the VLM on its
# training tasks (test items).

# %%
acc = {
    name: pd.DataFrame([evaluate(models[s][name], suites[s], TASKS3) for s in SEEDS])
    for name in ("base", "reason", "vlm")
}
table = pd.DataFrame(
    {
        name: [f"{df[t].mean():.3f} ± {df[t].std(ddof=1):.3f}" for t in TASKS3]
        for name, df in acc.items()
    },
    index=TASKS3,
)
print(table.to_string())
vlm_align = pd.DataFrame(
    [evaluate(models[s]["vlm"], suites[s], ["perception", *ALIGN_TASKS]) for s in SEEDS]
)
print("VLM on its training tasks (test):", vlm_align.mean().round(3).to_dict())

fig, axes = plt.subplots(1, 3, figsize=plotting.figsize("wide"), sharey=True)
for ax, name in zip(axes, ("base", "reason", "vlm"), strict=True):
    for s in SEEDS:
        y = pd.Series(losses[s][name]).rolling(25, min_periods=1).mean()
        ax.plot(y, lw=1, label=f"seed {s}")
    ax.set_title({"base": "base LM", "reason": "reasoning LM", "vlm": "VLM (2 stages)"}[name])
    ax.set_xlabel("step")
axes[0].set_ylabel("training loss (nats per target, 25-step mean)")
axes[0].legend()
plotting.panel_labels(axes)
fig.suptitle("Training curves: the VLM's second stage starts at step 300 (projector and layers)")
plt.show()

# %% [markdown]
# The base LM copies ("the digit 3 is 3") but knows no arithmetic; the reasoning LM's layers
# learn two-operand arithmetic on digit *tokens*; the VLM names digit *images* in both of its
# contexts, and the table shows what it makes of image arithmetic. (The chapter uses two
# operands: at three the reasoning LM did not learn in this budget in an exploratory run on
# seed 0, one of the reported seeds, that is not recorded.)

# %% [markdown]
# ## Accuracy against λ (F1)
#
# The linear merge over the LM layers, λ the VLM's weight: λ = 1 is the VLM, λ = 0 the
# reasoning LM's layers behind the VLM's embeddings, head and projector. Lines are the mean over
# seeds, shading the range; the grey band is chance ± 2 binomial standard errors at 1,000 items.

# %%
cands = merge_candidates(models[0]["vlm"].n_layer)
linear = [c for c in cands if c["method"] == "linear"]
lin_test = {s: evaluate_merges(models[s], suites[s], linear, TASKS3, "test") for s in SEEDS}
lam = np.array([c["weights"][0] for c in linear])
band = 2 * np.sqrt(0.1 * 0.9 / N_TEST)
fig, ax = plt.subplots(figsize=plotting.figsize("single"))
ax.axhspan(0.1 - band, 0.1 + band, color="0.85", label="chance ± 2 s.e.")
for t in TASKS3:
    y = np.stack([lin_test[s][t].to_numpy() for s in SEEDS])
    ax.plot(lam, y.mean(0), marker="o", ms=3, label=t)
    ax.fill_between(lam, y.min(0), y.max(0), alpha=0.2)
ax.set_xlabel("λ (weight of the VLM; 1 − λ on the reasoning LM)")
ax.set_ylabel("test accuracy")
ax.set_ylim(0, 1.02)
ax.invert_xaxis()
ax.legend(fontsize=8)
ax.set_title("Perception falls and text arithmetic rises as λ drops; image arithmetic barely moves")
plt.show()
mm_lin = np.stack([lin_test[s]["mm_reasoning"].to_numpy() for s in SEEDS])
print(
    "mm_reasoning by lambda (mean over seeds):",
    dict(zip(lam, mm_lin.mean(0).round(3), strict=True)),
)

# %% [markdown]
# ## The other merges, on validation items
#
# Task arithmetic
# $\theta_\mathrm{base} + \lambda_1\tau_\mathrm{VLM} + \lambda_2\tau_\mathrm{reason}$ on a
# grid, TIES (peft's `ties`: trim each task vector to its top `density` by magnitude, elect a
# sign per parameter, average the agreeing entries) with weights (1, 1) and the repo's (1.6, 0.2),
# and layer swap (blocks below k from the VLM, the rest linear at the paper's α = 0.9). All on
# the **val** items, from which the merge is chosen.

# %%
val = {s: evaluate_merges(models[s], suites[s], cands, TASKS3, "val") for s in SEEDS}
mean_val = sum(v[TASKS3] for v in val.values()) / len(SEEDS)
grid = pd.concat([val[0][["method", "weights", "density", "swap_below"]], mean_val], axis=1)
fig, axes = plt.subplots(1, 3, figsize=plotting.figsize("wide"))
ta = grid[grid.method == "task_arithmetic"]
mat = np.array(
    [
        [ta[ta.weights == (a, b)]["mm_reasoning"].item() for b in (0.5, 1.0, 1.5)]
        for a in (0.5, 1.0, 1.5)
    ]
)
im = axes[0].imshow(mat, cmap="viridis", vmin=0.05, vmax=max(0.25, mat.max()), origin="lower")
axes[0].set_xticks(range(3), ["0.5", "1.0", "1.5"])
axes[0].set_yticks(range(3), ["0.5", "1.0", "1.5"])
axes[0].set_xlabel("λ2 (reasoning LM)")
axes[0].set_ylabel("λ1 (VLM)")
axes[0].grid(False)
for (i, j), v in np.ndenumerate(mat):
    axes[0].text(j, i, f"{v:.2f}", ha="center", va="center", color="w", fontsize=8)
fig.colorbar(im, ax=axes[0], label="val mm_reasoning")
axes[0].set_title("Task arithmetic")
ties = grid[grid.method == "ties"]
for w, mk in (((1.0, 1.0), "o"), ((1.6, 0.2), "s")):
    sub = ties[ties.weights == w]
    for t in ("perception", "mm_reasoning"):
        axes[1].plot(sub.density, sub[t], marker=mk, label=f"{t}, w = {w}")
axes[1].set_xlabel("TIES density")
axes[1].set_ylabel("val accuracy")
axes[1].set_ylim(0, 1.02)
axes[1].legend(fontsize=6)
axes[1].set_title("TIES")
ls = grid[grid.method == "layerswap"]
for t in TASKS3:
    axes[2].plot(ls.swap_below, ls[t], marker="o", label=t)
axes[2].axhline(0.1, color="0.5", ls=":", label="chance")
axes[2].set_xlabel("blocks below k kept from the VLM")
axes[2].set_ylim(0, 1.02)
axes[2].legend(fontsize=6)
axes[2].set_title("Layer swap (α = 0.9)")
plotting.panel_labels(axes)
fig.suptitle("Validation accuracy of every merge (mean over seeds)")
plt.show()

# %% [markdown]
# ## Does reasoning transfer? The val-chosen merge on test
#
# Per seed, the merge with the best **val** mm_reasoning accuracy (any method, the VLM itself
# excluded) is evaluated once on the test items. The control runs the same selection with the
# reasoning LM replaced by the base LM (no arithmetic in the second task vector): whatever it
# gains is selection among noisy merges, not reasoning.


# %%
def chosen(table):
    rows = table[~((table.method == "linear") & (table.weights == (1.0, 0.0)))]
    return rows.loc[rows["mm_reasoning"].idxmax()]


def test_of(s, row, reason_key="reason"):
    ms = {"base": models[s]["base"], "vlm": models[s]["vlm"], "reason": models[s][reason_key]}
    cand = {"method": row.method, "weights": row.weights}
    if row.method in ("ties", "dare_linear", "dare_ties"):
        cand["density"] = row.density
    if row.method == "layerswap":
        cand["swap_below"] = int(row.swap_below)
    return evaluate_merges(ms, suites[s], [cand], TASKS3, "test").iloc[0]


best, best_test, ctrl_test = {}, {}, {}
for s in SEEDS:
    best[s] = chosen(val[s])
    best_test[s] = test_of(s, best[s])
    ctrl_models = {"base": models[s]["base"], "vlm": models[s]["vlm"], "reason": models[s]["base"]}
    ctrl_val = evaluate_merges(ctrl_models, suites[s], cands, ["mm_reasoning"], "val")
    row = chosen(ctrl_val)
    models[s]["_base_as_reason"] = models[s]["base"]
    ctrl_test[s] = test_of(s, row, "_base_as_reason")
    print(
        f"seed {s}: chose {best[s].method} {best[s].weights} d={best[s].density} "
        f"k={best[s].swap_below}; test mm {best_test[s]['mm_reasoning']:.3f} "
        f"(VLM {acc['vlm']['mm_reasoning'][SEEDS.index(s)]:.3f}, control "
        f"{ctrl_test[s]['mm_reasoning']:.3f}); perception {best_test[s]['perception']:.3f}"
    )

# %% [markdown]
# ## How much power has the transfer test? Oracle and bare perception
#
# A merge can only add image arithmetic if (a) the reasoning LM's arithmetic still works where
# image operands sit, and (b) the VLM's image tokens act as digit tokens outside the
# "the digit <img> is" template. Two probes of the committed models, on the same fixed test
# items, next to the VLM's own two-image arithmetic:
#
# * **oracle** (one of several possible): the reasoning LM on its text arithmetic items re-laid
#   out as image arithmetic, each operand written as four copies of its digit token at the
#   image-token positions (`[bos] a a a a plus b b b b is`, 11 input tokens, against
#   `[bos] a plus b is`, 5): roughly what a merge could reach if the VLM's image tokens were
#   exactly the digit tokens (other layouts, such as the digit token in the last of the four
#   slots, score differently). Where the oracle is not above the VLM's own accuracy by the
#   check's 3 s.e., the transfer check has no power on that seed;
# * **bare perception**: the VLM naming an image without the "the digit" prefix
#   (`[bos] <img>×4 is`; since the alignment stage this is one of the VLM's training contexts,
#   here on the test images of the perception items).
#
# (An earlier revision also had a "skyline", a copy of the VLM trained on image arithmetic
# alone for 300 steps. It forgot perception and ended below the VLM it started from, so it
# measured forgetting rather than what the architecture can learn; it was dropped. A fair one is
# an exercise in the opener.)

# %%
probes = pd.DataFrame(
    [
        {
            "seed": s,
            "reasoning LM, text layout": probe_accuracy(
                models[s]["reason"], suites[s], "oracle_text"
            ),
            "oracle (reasoning LM, image layout)": probe_accuracy(
                models[s]["reason"], suites[s], "oracle_mm"
            ),
            "VLM, two-image arithmetic": acc["vlm"]["mm_reasoning"][SEEDS.index(s)],
            "VLM perception, template": acc["vlm"]["perception"][SEEDS.index(s)],
            "VLM perception, no prefix": probe_accuracy(
                models[s]["vlm"], suites[s], "perception_bare"
            ),
        }
        for s in SEEDS
    ]
).set_index("seed")
print(probes.round(3).to_string())
fig, ax = plt.subplots(figsize=plotting.figsize("single"))
ax.axhspan(0.1 - band, 0.1 + band, color="0.85", label="chance ± 2 s.e.")
xs = np.arange(len(probes.columns))
for j, s in enumerate(SEEDS):
    ax.scatter(xs + 0.1 * (j - 1), probes.loc[s], s=18, label=f"seed {s}")
ax.bar(xs, probes.mean(), color="none", edgecolor="k", width=0.5, label="mean")
ax.set_xticks(xs, [c.replace(", ", ",\n").replace(" (", "\n(") for c in probes.columns], fontsize=6)
ax.set_ylabel("test accuracy")
ax.set_ylim(0, 1.02)
ax.legend(fontsize=6)
ax.set_title("The reasoning LM loses its arithmetic in the image layout", fontsize=9)
plt.show()

# %% [markdown]
# ## Claim check
#
# Transfer would be asserted if the val-chosen merge beat the VLM's test mm_reasoning by three
# binomial standard errors of the difference on **every** seed, and the base-LM control did not.
# The verdict is fixed in the code, not chosen from the result: "not reproduced", from the
# executed record of the previous revision (the same committed models). The check asserts that
# the comparison fails on at least one seed, so if a change ever made the merge pass it, the
# notebook would fail and the verdict would have to be revisited, not silently upgraded.

# %%
vlm_mm = acc["vlm"]["mm_reasoning"].to_numpy()
mm = np.array([best_test[s]["mm_reasoning"] for s in SEEDS])
mm_ctrl = np.array([ctrl_test[s]["mm_reasoning"] for s in SEEDS])
perc_vlm = acc["vlm"]["perception"].to_numpy()
perc = np.array([best_test[s]["perception"] for s in SEEDS])
text_reason = acc["reason"]["text_reasoning"].to_numpy()
se = np.sqrt(vlm_mm * (1 - vlm_mm) / N_TEST + mm * (1 - mm) / N_TEST)
gain, gain_ctrl = mm - vlm_mm, mm_ctrl - vlm_mm
oracle_text = probes["reasoning LM, text layout"].to_numpy()
oracle_mm = probes["oracle (reasoning LM, image layout)"].to_numpy()
bare = probes["VLM perception, no prefix"].to_numpy()
power = oracle_mm - vlm_mm  # > 3 s.e.: room for a merge to pass the check on that seed
check = greater(3 * se, label=f"3 binomial s.e. of the difference (mean {3 * se.mean():.3f})")
runtime_s = time.perf_counter() - t_start
assert np.all(oracle_mm < oracle_text), (oracle_mm, oracle_text)  # the layout costs every seed
assert np.all(text_reason > 0.3) and np.all(perc_vlm > 0.6), (text_reason, perc_vlm)
single = vlm_align["mm_single"].to_numpy()
common = {
    "VLM test mm_reasoning": float(vlm_mm.mean()),
    "chosen merge test mm_reasoning": float(mm.mean()),
    "mm_reasoning / chance": float(mm.mean() / 0.1),
    "reasoning LM text accuracy": float(text_reason.mean()),
    "VLM perception": float(perc_vlm.mean()),
    "chosen merge perception": float(perc.mean()),
    "control gain (base LM as second task vector)": float(gain_ctrl.mean()),
    "oracle: reasoning LM, text layout": float(oracle_text.mean()),
    "oracle: reasoning LM, image layout": float(oracle_mm.mean()),
    "VLM perception without 'the digit' (a trained context)": float(bare.mean()),
    "VLM single-step items, one image operand (trained)": float(single.mean()),
    **{f"oracle minus VLM, seed {s}": float(g) for s, g in zip(SEEDS, power, strict=True)},
}
statement = (
    "Merging the reasoning LM into the VLM (the merge chosen on val) raises test accuracy on "
    "arithmetic over digit images above the VLM's by 3 binomial s.e. on every seed"
)
paper = "MathVista 37.1 for TIES LLaVA-Next-8B + Dart-Math (repo); gains on math-heavy sets"
claim(
    "vlm-merging/1_merging/transfer",
    statement,
    paper=paper,
    value=gain,
    check=check,
    verdict="not reproduced",
    caveat="the val-chosen merge does not beat the VLM's arithmetic on images by 3 s.e. on "
    "every seed, also after the alignment stage (the issue's first fallback: the VLM also "
    f"trained on '<img> is d', {bare.mean():.3f}, and on single-step items with one image "
    f"operand, {single.mean():.3f}). The test has little power here, a property of the "
    "miniature, not evidence about the method: with its operands as perfect digit tokens in "
    f"the image layout the reasoning LM falls from {oracle_text.mean():.3f} to "
    f"{oracle_mm.mean():.3f} (one oracle), per seed "
    + ", ".join(f"{o:.3f}" for o in oracle_mm)
    + " against the VLM's own "
    + ", ".join(f"{v:.3f}" for v in vlm_mm)
    + f"; on {int((power <= 3 * se).sum())} seed(s) even perfect perception would not clear "
    "the 3 s.e., so 'every seed' could not pass there",
    numbers=common,
    fmt=".3f",
)
glue("mm_vlm", float(vlm_mm.mean()), display=False)
glue("mm_merged", float(mm.mean()), display=False)
glue("mm_ratio", float(mm.mean() / 0.1), display=False)
glue("mm_control", float(mm_ctrl.mean()), display=False)
glue("perc_vlm", float(perc_vlm.mean()), display=False)
glue("perc_merged", float(perc.mean()), display=False)
glue("text_reason", float(text_reason.mean()), display=False)
glue("mm_best_linear", float(mm_lin.mean(0)[1:].max()), display=False)
glue("n_seeds", len(SEEDS), display=False)
glue("oracle_text", float(oracle_text.mean()), display=False)
glue("oracle_mm", float(oracle_mm.mean()), display=False)
glue("oracle_mm_min", float(oracle_mm.min()), display=False)
glue("oracle_mm_max", float(oracle_mm.max()), display=False)
glue("perc_bare", float(bare.mean()), display=False)
glue("perc_bare_min", float(bare.min()), display=False)
glue("perc_bare_max", float(bare.max()), display=False)
glue("mm_single_vlm", float(single.mean()), display=False)
glue("mm_single_min", float(single.min()), display=False)
glue("mm_single_max", float(single.max()), display=False)
for s, o, v in zip(SEEDS, oracle_mm, vlm_mm, strict=True):
    glue(f"oracle_mm_s{s}", float(o), display=False)
    glue(f"mm_vlm_s{s}", float(v), display=False)
glue("no_power_seeds", int((power <= 3 * se).sum()), display=False)
glue("se3_mean", float(3 * se.mean()), display=False)
glue("runtime_s", runtime_s, display=False)
print(f"runtime {runtime_s:.0f} s")
