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
# # The attack: Stealix against baselines at equal query budgets
#
# Each method gets the same number of victim queries per class and trains the same surrogate
# (the victim's architecture) on the images it queried and the victim's top-1 labels. Stealix
# starts from one real digit per class, inverts it to prompts, and evolves them by prompt
# consistency; the baselines draw random prompts, use the class names, augment the seeds, invert
# the seeds without feedback, query rendered letters (Knockoff), or query real digits (the
# oracle, an upper bound). Scores: agreement with the victim and accuracy on the digits test
# split, over three seeds (seed images, generator streams and surrogates).

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
from icml25.stealix import (
    GlyphGenerator,
    baseline_attack,
    evaluate_surrogate,
    load_victim_data,
    prompt_consistency,
    stealix_attack,
    train_dual_encoder,
    train_surrogate,
    train_victim,
)

t_start = time.perf_counter()
SCALE = setup(seed=0)
CONFIG = {
    "small": {"budgets": (24, 48, 96), "seeds": (0, 1, 2), "pop_size": 3, "m": 4},
    "large": {"budgets": (24, 48, 96, 192), "seeds": (0, 1, 2, 3, 4), "pop_size": 6, "m": 8},
}[SCALE]
VLM = {"small": {"n_pairs": 10_000, "epochs": 15}, "large": {"n_pairs": 40_000, "epochs": 30}}
print(SCALE, CONFIG)

# %% [markdown]
# The world of notebook 1 (same victim, generator and dual encoder, retrained here in seconds).
# Our hyperparameters, not the paper's: a population of `pop_size` prompts per class, $M$ =
# `m` images per prompt-consistency evaluation, τ = 0.07; a budget of $B$ queries per class then
# allows $B/M$ evaluations, e.g. two generations of three prompts at $B = 24$.

# %%
Xtr, ytr, Xte, yte = load_victim_data(seed=0)
victim = train_victim(Xtr, ytr, hidden=128, seed=0)
gen = GlyphGenerator(seed=0)
vlm = train_dual_encoder(gen, **VLM[SCALE], seed=0)
METHODS = {
    "Stealix": "ours",
    "inversion only": "inversion",
    "seed augmentation": "seed_aug",
    "random prompts (M images)": "random",
    "random prompts (1 image)": "random1",
    "class names": "classname",
    "Knockoff (letters)": "knockoff",
    "oracle (real digits)": "oracle",
}
COLORS = dict(zip(METHODS, [plotting.PALETTE[i] for i in (0, 1, 2, 7, 9, 3, 8, 4)], strict=False))
m, pop = CONFIG["m"], CONFIG["pop_size"]
res = {(b, k): {"agreement": [], "acc": []} for b in CONFIG["budgets"] for k in METHODS}
logs, calls = {}, {}
for s in CONFIG["seeds"]:
    rs = np.random.default_rng(100 + s)
    seeds = np.stack([Xtr[rs.choice(np.flatnonzero(ytr == c))] for c in range(10)])
    for b in CONFIG["budgets"]:
        for name, kind in METHODS.items():
            victim.reset()
            if kind == "ours":
                X, y, log = stealix_attack(victim, gen, vlm, seeds, b, pop, m, seed=s)
                logs[(b, s)] = log
            elif kind == "random1":
                X, y = baseline_attack("random", victim, gen, b, m=1, seed=s)
            else:
                X, y = baseline_attack(kind, victim, gen, b, seeds, vlm, Xtr, m=m, seed=s)
            calls[(b, s, name)] = victim.n_queries
            r = evaluate_surrogate(train_surrogate(X, y, seed=s), victim, Xte, yte)
            for key in r:
                res[(b, name)][key].append(r[key])
res = {k: {kk: np.array(vv) for kk, vv in v.items()} for k, v in res.items()}
for b in CONFIG["budgets"]:
    print(b, {k: round(float(res[(b, k)]["agreement"].mean()), 3) for k in METHODS})
print("victim queries per run:", sorted(set(calls.values())))

# %% tags=["hide-input"]
fig, axes = plt.subplots(1, 2, figsize=plotting.figsize("wide"), sharey=True)
bs = np.array(CONFIG["budgets"])
for ax, key in zip(axes, ("agreement", "acc"), strict=False):
    for name in METHODS:
        vals = np.stack([res[(b, name)][key] for b in bs])
        mu, sd = vals.mean(1), vals.std(1, ddof=1)
        ls = "--" if name.startswith("oracle") else "-"
        ax.plot(
            bs,
            mu,
            ls,
            marker="o",
            color=COLORS[name],
            label=name,
            lw=2.2 if name == "Stealix" else 1.3,
        )
        ax.fill_between(bs, mu - sd, mu + sd, color=COLORS[name], alpha=0.15)
    ax.set(xscale="log", xticks=bs, xlabel="victim queries per class (B)", ylim=(0, 1))
    ax.set_xticklabels([str(b) for b in bs])
    ax.minorticks_off()
axes[0].set(ylabel="agreement with the victim (test split)", title="Agreement with the victim")
axes[1].set(ylabel="surrogate accuracy (test split)", title="Surrogate accuracy")
axes[1].legend(fontsize=7, loc="lower right")
plotting.panel_labels(axes)
fig.suptitle(
    "F1: at equal budget Stealix beats random and class-name prompts; "
    "the seeds inverted without feedback do as well or better"
)
plt.show()

# %% [markdown]
# **What to see.** Lines are the mean over three seeds, bands ± one sd. The oracle (real digits,
# dashed) is on top at every budget. Stealix is well above random prompts, class names and
# rendered letters at every budget. But its own starting point, the seeds inverted to prompts
# without any victim feedback, is as good or better, and so are augmented seeds: in this world
# the one real image per class carries most of what the attack needs.

# %% [markdown]
# ## Inside the loop: prompt consistency per generation (F2)

# %%
b_max = max(CONFIG["budgets"])
pc_mean = np.array([np.mean(logs[(b_max, s)]["pc_mean"], axis=0) for s in CONFIG["seeds"]])
pc_max = np.array([np.mean(logs[(b_max, s)]["pc_max"], axis=0) for s in CONFIG["seeds"]])
# random prompts' PC for comparison (analysis queries, outside every attack's budget)
rand_pc, rand_pc2 = [], []
for s in CONFIG["seeds"]:
    rng = np.random.default_rng(500 + s)
    for out in (rand_pc, rand_pc2):
        pcs = [
            prompt_consistency(gen.random_prompt(rng), c, gen, victim, m, int(rng.integers(2**31)))[
                0
            ]
            for c in range(10)
            for _ in range(pop)
        ]
        out.append(float(np.mean(pcs)))
victim.reset()
rand_pc, rand_pc2 = np.array(rand_pc), np.array(rand_pc2)
print("PC per generation (mean over classes), seeds x generations:\n", pc_mean.round(2))

# %% tags=["hide-input"]
fig, ax = plt.subplots(figsize=plotting.figsize("single"))
gens = np.arange(pc_mean.shape[1])
for arr, lab, ls in ((pc_mean, "population mean PC", "-"), (pc_max, "population max PC", "--")):
    ax.plot(gens, arr.mean(0), ls, marker="o", color=plotting.PALETTE[0], label=lab)
    ax.fill_between(gens, arr.min(0), arr.max(0), color=plotting.PALETTE[0], alpha=0.12)
ax.axhline(rand_pc.mean(), color=plotting.PALETTE[7], ls=":", label="random prompts")
ax.set(
    xlabel="generation",
    ylabel="prompt consistency (mean over classes)",
    ylim=(0, 1),
    xticks=gens,
    title=f"F2: prompt consistency rises over generations (B = {b_max})",
)
ax.legend(fontsize=8)
plt.show()

# %% [markdown]
# **What to see.** Generation 0 is the inverted seeds; the victim's feedback then raises both the
# mean and the best PC of the population (bands: range over three seeds), far above random
# prompts (dotted). Higher PC means more of the queried images carry the class's label, i.e.
# *precision*; whether it also buys agreement is the question of F1 and notebook 3.

# %% [markdown]
# ## Seed → evolved prompt → images (F4)

# %% tags=["hide-input"]
log = logs[(b_max, 0)]
rs = np.random.default_rng(100)
seeds0 = np.stack([Xtr[rs.choice(np.flatnonzero(ytr == c))] for c in range(10)])
fig, axes = plt.subplots(10, 5, figsize=(7, 13))
for c in range(10):
    p = log["best_prompt"][c]
    imgs = gen.generate(p, 4, seed=900 + c)
    labs = victim._labels(imgs)
    axes[c, 0].imshow(seeds0[c].reshape(8, 8), cmap="gray_r", vmin=0, vmax=16)
    axes[c, 0].set_ylabel(f"class {c}")
    for j in range(4):
        axes[c, j + 1].imshow(imgs[j].reshape(8, 8), cmap="gray_r", vmin=0, vmax=16)
        axes[c, j + 1].set_xlabel(f"V: {labs[j]}", fontsize=7)
    axes[c, 1].set_title(
        f"'{p['char']}' {p['font'][:10]} w{p['weight']} sl{p['slant']} r{p['rotation']} "
        f"{p['background']}/{p['polarity'][:3]}/{p['scale']}",
        fontsize=7,
        loc="left",
    )
    for ax in axes[c]:
        ax.set_xticks([])
        ax.set_yticks([])
axes[0, 0].set_title("real seed", fontsize=8)
fig.suptitle("F4: each class's best evolved prompt and four renderings, with the victim's label")
plt.show()
victim.reset()

# %% [markdown]
# **What to see.** The evolved prompts keep a plain context and pick characters and styles that
# the victim labels as the class, often not the digit itself: the attack optimises what the
# victim answers, not what a human would call a 3. (The labels under the images are read
# without counting, for the figure only.)

# %% [markdown]
# ## Claim check
#
# (1) Evolved prompts' consistency: the last generation's mean PC exceeds random prompts' by more
# than 0.2 on every seed (a second draw of random prompts, the null control, fails). (2) It
# rises: last minus first generation > 0.05 on every seed (the null control: two draws of random
# prompts). (3) At the smallest budget Stealix's agreement beats random prompts with M images
# each by more than the spread over seeds (a second random draw fails). (4) The paper's
# comparison with an inversion-style baseline is **not reproduced**: at the smallest budget
# Stealix does not beat the seeds inverted without feedback. Class names, one-image random
# prompts and the larger budgets are reported as measured.

# %%
runtime_s = time.perf_counter() - t_start
assert len(set(calls.values()) - {(b // m) * m * 10 for b in CONFIG["budgets"]}) == 0, calls
b0 = min(CONFIG["budgets"])
ag = {k: res[(b0, k)]["agreement"] for k in METHODS}
claim(
    "stealix/2_attack/pc_above_random",
    "Evolved prompts are far more consistent than random prompts: last-generation mean PC "
    "above random prompts' PC by more than 0.2",
    paper="PC of evolved prompts rises; random or poor prompts have low PC",
    value=pc_mean[:, -1],
    check=greater(rand_pc, by=0.2, label="random prompts' PC"),
    control=("a second draw of random prompts", rand_pc2),
    verdict="reproduced",
    numbers={"generation 0 (inverted seeds)": pc_mean[:, 0], "random prompts": rand_pc},
    fmt=".3f",
)
claim(
    "stealix/2_attack/pc_rises",
    "Prompt consistency rises over the generations: last minus first generation above 0.05",
    paper="PC increases as prompts evolve (the GA's fitness)",
    value=pc_mean[:, -1] - pc_mean[:, 0],
    check=greater(0.05),
    control=("two draws of random prompts", rand_pc2 - rand_pc),
    verdict="reproduced",
    numbers={"best PC, last generation": pc_max[:, -1]},
    fmt=".3f",
)
sd0 = float(np.std(ag["Stealix"] - ag["random prompts (M images)"], ddof=1))
rand_again = []
for s in CONFIG["seeds"]:
    X, y = baseline_attack("random", victim, gen, b0, m=m, seed=1000 + s)
    A = train_surrogate(X, y, seed=s)
    rand_again.append(evaluate_surrogate(A, victim, Xte, yte)["agreement"])
victim.reset()
claim(
    "stealix/2_attack/beats_random_low_budget",
    f"At the smallest budget (B = {b0} per class) Stealix's surrogate agrees with the victim "
    "more than one trained on random prompts, by more than the seed spread",
    paper="Stealix beats baselines at equal budget, most at low budgets (up to +22.2 % acc.)",
    value=ag["Stealix"],
    check=greater(ag["random prompts (M images)"], by=sd0, label="random prompts (M images)"),
    control=("random prompts, another draw", np.array(rand_again)),
    verdict="reproduced",
    numbers={
        "class names": ag["class names"],
        "random prompts, 1 image each": ag["random prompts (1 image)"],
        "Knockoff (letters)": ag["Knockoff (letters)"],
        "seed augmentation": ag["seed augmentation"],
        "oracle": ag["oracle (real digits)"],
        f"Stealix at B = {b_max}": res[(b_max, "Stealix")]["agreement"],
        f"random at B = {b_max}": res[(b_max, "random prompts (M images)")]["agreement"],
    },
    fmt=".3f",
)
claim(
    "stealix/2_attack/beats_inversion_low_budget",
    f"At the smallest budget (B = {b0}) Stealix beats the inversion-only baseline (the seeds "
    "inverted to prompts, no victim feedback) by more than 0.02",
    paper="Stealix beats DA-Fusion-style inversion at equal budget (Table 1)",
    value=ag["Stealix"],
    check=greater(ag["inversion only"], by=0.02, label="inversion only"),
    verdict="not reproduced",
    caveat=f"Stealix {ag['Stealix'].mean():.3f} vs inversion only "
    f"{ag['inversion only'].mean():.3f} (3 seeds): the victim's feedback raises PC, but in "
    "this world that does not buy agreement over the inverted seeds, whose diversity is "
    "not measured here; likely reason: on 8x8 glyphs diverse, roughly right queries already "
    "inform the surrogate",
    fmt=".3f",
)
glue("ag_stealix_b0", float(ag["Stealix"].mean()))
glue("ag_inversion_b0", float(ag["inversion only"].mean()))
glue("ag_random_b0", float(ag["random prompts (M images)"].mean()))
glue("ag_classname_b0", float(ag["class names"].mean()))
glue("ag_oracle_b0", float(ag["oracle (real digits)"].mean()))
acc_gain = res[(b0, "Stealix")]["acc"] - res[(b0, "random prompts (M images)")]["acc"]
glue("acc_gain_random_b0", float(acc_gain.mean()))
glue("b0", b0)
glue("runtime_s", runtime_s)
