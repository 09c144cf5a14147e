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
# split, over {glue:text}`n_seeds` seeds; each seed draws its own data split, trains its own
# victim and dual encoder, and then its own seed images, generator streams and surrogates, so the
# spread includes a new victim.

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
    train_cvae,
    train_dual_encoder,
    train_surrogate,
    train_victim,
)
from icml25.stealix.checkpoints import load_dual_encoder

t_start = time.perf_counter()
SCALE = setup(seed=0)
CONFIG = {
    "small": {"budgets": (24, 48, 96), "seeds": (0, 1, 2), "pop_size": 3, "m": 4},
    # at `large` B = 96 allows 12 evaluations, two generations of six prompts, as B = 24 does at
    # `small` (three prompts, M = 4); B = 24 or 48 would not leave a single generation to evolve
    "large": {"budgets": (96, 192, 384, 768), "seeds": (0, 1, 2, 3, 4), "pop_size": 6, "m": 8},
}[SCALE]
VLM = {"small": {"n_pairs": 10_000, "epochs": 15}, "large": {"n_pairs": 40_000, "epochs": 30}}
# G at `large`: a conditional VAE learned from rendered (prompt, image) pairs (never run on a GPU
# here); at `small` G is the renderer itself
CVAE = {"n_pairs": 40_000, "epochs": 60, "latent": 4, "hidden": 512, "beta": 2.0}
print(SCALE, CONFIG)

# %% [markdown]
# The world of notebook 1, one per seed: seed $s$ draws the data split, trains the victim and
# the dual encoder with seed $s$ (seconds each; at `small` scale the dual encoders of seeds 0-2
# are loaded from `data/stealix/`, the weights `train_dual_encoder` gives with these settings,
# committed so that notebooks 2 and 3 do not both train them; notebook 1 trains its own live);
# the generator $G$ is the same for every seed:
# the renderer at `small` scale; at `large` scale a conditional VAE (`train_cvae`) learned once
# from rendered (prompt, image) pairs, with the renderer's interface (the dual encoder is still
# trained on the renderer, as CLIP is not trained on Stable Diffusion's images).
# Our hyperparameters, not the paper's: a population of {glue:text}`pop_size` prompts per class,
# $M$ = {glue:text}`m` images per prompt-consistency evaluation, τ = 0.07; a budget of $B$ queries
# per class then allows $B/M$ evaluations, e.g. two generations of three prompts at $B = 24$.

# %%
gen = GlyphGenerator(seed=0)
G = gen if SCALE == "small" else train_cvae(gen, **CVAE, seed=0)
worlds = {}  # seed -> (Xtr, ytr, Xte, yte, victim, dual encoder)
for s in CONFIG["seeds"]:
    Xtr, ytr, Xte, yte = load_victim_data(seed=s)
    victim = train_victim(Xtr, ytr, hidden=128, seed=s)
    if SCALE == "small":  # the committed weights of train_dual_encoder(gen, **VLM, seed=s)
        vlm = load_dual_encoder(gen, **VLM[SCALE], seed=s)
    else:
        vlm = train_dual_encoder(gen, **VLM[SCALE], seed=s)
    worlds[s] = (Xtr, ytr, Xte, yte, victim, vlm)
victim_acc = np.array([np.mean(w[4]._labels(w[2]) == w[3]) for w in worlds.values()])
print("victim test accuracy per seed:", victim_acc.round(3))
METHODS = {
    "Stealix": "ours",
    "inversion only": "inversion",
    "seed augmentation": "seed_aug",
    "random prompts (M images)": "random",
    "random prompts (1 image)": "random1",
    "class names": "classname",
    "class names, plain context": "classname_plain",
    "Knockoff (letters)": "knockoff",
    "oracle (real digits)": "oracle",
}
COLORS = dict(
    zip(METHODS, [plotting.PALETTE[i] for i in (0, 1, 2, 7, 9, 3, 5, 8, 4)], strict=False)
)
NOPC_COLOR = plotting.PALETTE[6]  # the no-PC ablation, here and in notebook 3 (unused in F1)
m, pop = CONFIG["m"], CONFIG["pop_size"]
res = {(b, k): {"agreement": [], "acc": []} for b in CONFIG["budgets"] for k in METHODS}
logs, nopc_logs, calls = {}, {}, {}
b_max = max(CONFIG["budgets"])
for s in CONFIG["seeds"]:
    Xtr, ytr, Xte, yte, victim, vlm = worlds[s]
    rs = np.random.default_rng(100 + s)
    seeds = np.stack([Xtr[rs.choice(np.flatnonzero(ytr == c))] for c in range(10)])
    for b in CONFIG["budgets"]:
        for name, kind in METHODS.items():
            victim.reset()
            if kind == "ours":
                X, y, log = stealix_attack(victim, G, vlm, seeds, b, pop, m, seed=s)
                logs[(b, s)] = log
            elif kind == "random1":  # the same budget as Stealix's, (B // M) M per class
                X, y = baseline_attack("random", victim, G, (b // m) * m, m=1, seed=s)
            else:
                X, y = baseline_attack(kind, victim, G, b, seeds, vlm, Xtr, m=m, seed=s)
            calls[(b, s, name)] = victim.n_queries
            r = evaluate_surrogate(train_surrogate(X, y, seed=s), victim, Xte, yte)
            for key in r:
                res[(b, name)][key].append(r[key])
        if b == b_max:  # the no-PC ablation's PC trajectory, the control of F2
            victim.reset()
            nopc_logs[s] = stealix_attack(
                victim, G, vlm, seeds, b, pop, m, ablation="no_pc", seed=s
            )[2]
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
    "F1: at equal budget Stealix beats random prompts and class names with random context on "
    "average; class names with a plain context and augmented seeds do better at every budget"
)
plt.show()

# %% [markdown]
# **What to see.** Lines are the mean over the seeds (each with its own victim), bands ± one sd.
# The oracle (real digits, dashed) is on top at every budget. On average Stealix is above
# random prompts, class names with random context and rendered letters at every budget, but not
# on every seed (its band is wide: on one victim it stays near random prompts), none of those is
# a baseline of the paper, and the ranking is partly built into this world (its context slots;
# see the opener). Against the strongest baselines it loses: class names with a plain context
# and the augmented seeds are ahead of it at every budget, and its own starting point, the seeds
# inverted to prompts without any victim feedback, ties it at the smallest budget and is ahead at
# the larger ones: in this world the one real image per class, or the class name drawn plainly,
# carries most of what the attack needs.

# %% [markdown]
# ## Inside the loop: prompt consistency per generation (F2)

# %%
pc_mean = np.array([np.mean(logs[(b_max, s)]["pc_mean"], axis=0) for s in CONFIG["seeds"]])
pc_max = np.array([np.mean(logs[(b_max, s)]["pc_max"], axis=0) for s in CONFIG["seeds"]])
nopc_mean = np.array([np.mean(nopc_logs[s]["pc_mean"], axis=0) for s in CONFIG["seeds"]])
repeat = np.array([np.mean(logs[(b_max, s)]["repeat_share"]) for s in CONFIG["seeds"]])
repeat_b0 = np.array(
    [np.mean(logs[(min(CONFIG["budgets"]), s)]["repeat_share"]) for s in CONFIG["seeds"]]
)
# random prompts' PC for comparison (analysis queries, outside every attack's budget)
rand_pc = []
for s in CONFIG["seeds"]:
    victim = worlds[s][4]
    rng = np.random.default_rng(500 + s)
    pcs = [
        prompt_consistency(G.random_prompt(rng), c, G, victim, m, int(rng.integers(2**31)))[0]
        for c in range(10)
        for _ in range(pop)
    ]
    rand_pc.append(float(np.mean(pcs)))
    victim.reset()
rand_pc = np.array(rand_pc)
print("no-PC ablation, PC per generation:\n", nopc_mean.round(2))
print("share of PC evaluations on an already evaluated prompt:", repeat.round(3))
print("PC per generation (mean over classes), seeds x generations:\n", pc_mean.round(2))

# %% tags=["hide-input"]
fig, ax = plt.subplots(figsize=plotting.figsize("single"))
gens = np.arange(pc_mean.shape[1])
for arr, lab, ls in ((pc_mean, "population mean PC", "-"), (pc_max, "population max PC", "--")):
    ax.plot(gens, arr.mean(0), ls, marker="o", color=plotting.PALETTE[0], label=lab)
    ax.fill_between(gens, arr.min(0), arr.max(0), color=plotting.PALETTE[0], alpha=0.12)
ax.plot(gens, nopc_mean.mean(0), marker="s", color=NOPC_COLOR, label="no PC selection, mean")
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
# mean and the best PC of the population (bands: range over the seeds), far above random
# prompts (dotted). Without PC selection (pink: parents and elite drawn uniformly) the mean PC
# rises less on every seed, by {glue:text}`rise_lead_min:.2f` to {glue:text}`rise_lead_max:.2f`,
# but it still rises on {glue:text}`n_nopc_up` of the {glue:text}`n_seeds` seeds (per seed
# {glue:text}`nopc_rise_text`): the
# refinement, which also reads the victim's labels, lifts PC on its own, and PC selection adds
# to that. Higher PC means more of the
# queried images carry the class's label, i.e. *precision*; whether it also buys agreement is
# the question of F1 and notebook 3.

# %% [markdown]
# ## Seed → evolved prompt → images (F4)

# %% tags=["hide-input"]
log = logs[(b_max, 0)]
Xtr, ytr, _, _, victim, _ = worlds[0]
rs = np.random.default_rng(100)
seeds0 = np.stack([Xtr[rs.choice(np.flatnonzero(ytr == c))] for c in range(10)])
fig, axes = plt.subplots(10, 5, figsize=(7, 13))
f4_right, f4_plain, f4_digit = 0, 0, 0
for c in range(10):
    p = log["best_prompt"][c]
    imgs = G.generate(p, 4, seed=900 + c)
    labs = victim._labels(imgs)
    f4_right += int(np.sum(labs == c))
    f4_plain += int(p["background"] == "none" and p["polarity"] == "normal")
    f4_digit += int(p["char"] == str(c))
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
glue("f4_right", f4_right)
glue("f4_plain", f4_plain)
glue("f4_digit", f4_digit)

# %% [markdown]
# **What to see.** Each row's prompt is the one with the highest mean PC over its evaluations
# (seed 0, $B$ = {glue:text}`b_max`). The victim labels {glue:text}`f4_right` of the 40
# renderings as the row's class; {glue:text}`f4_plain` of the 10 prompts have no background and
# normal polarity, and only {glue:text}`f4_digit` uses the class's own digit. Some rows are
# clear successes (an 'o' for 0, an 'i' for 1, an 'a' for 4); others are not: the victim reads
# class 3's 'j' mostly as 5, class 6's 'L' mostly as 1 and class 8's 'r' mostly as 4. The attack
# optimises what the victim answers, not what a human would call a 3, and within this budget it
# does not succeed for every class. (The labels under the images are read without counting, for
# the figure only.)

# %% [markdown]
# ## Claim check
#
# (1) Evolved prompts' consistency: the last generation's mean PC exceeds random prompts' by more
# than 0.2 on every seed (the control, generation 0, the seeds inverted without feedback, fails).
# (2) It rises: last minus first generation > 0.05 on every seed (the control, the same loop with
# parents and elite drawn uniformly, no PC selection, fails on its mean but only just, and rises
# by more than 0.05 on {glue:text}`n_nopc_above` of the seeds; hence **partly**, with the paired
# difference, Stealix's rise minus the control's, kept as a number). (3) The paper's headline,
# Stealix beats the baselines at equal budget, is **not reproduced**: at the smallest budget
# Stealix does not beat the best baseline (inversion only or seed augmentation, per seed) by 0.02.
# (4) Against random prompts, not a baseline of the paper, Stealix was to win by more than 0.1,
# a margin fixed before the run (a second draw of random prompts is kept as a number): with a new
# victim per seed this is **not reproduced**: the margin holds on {glue:text}`n_win_random` of
# {glue:text}`n_seeds` seeds. (5) The oracle (real
# digits) is on top of every method at every budget (seed augmentation, the strongest other
# method, in its place fails). Class names and one-image random prompts are reported as measured.

# %%
runtime_s = time.perf_counter() - t_start
assert len(set(calls.values()) - {(b // m) * m * 10 for b in CONFIG["budgets"]}) == 0, calls
n_seeds = len(CONFIG["seeds"])
b0 = min(CONFIG["budgets"])
ag = {k: res[(b0, k)]["agreement"] for k in METHODS}
SEEDS = "each seed draws its own split and trains its own victim and dual encoder"
nopc_rise = nopc_mean[:, -1] - nopc_mean[:, 0]
rise_lead = (pc_mean[:, -1] - pc_mean[:, 0]) - nopc_rise
nopc_rise_text = ", ".join(f"{v:+.3f}" for v in nopc_rise)
glue("nopc_rise_text", nopc_rise_text)
glue("n_nopc_up", int(np.sum(nopc_rise > 0)))
glue("n_nopc_above", int(np.sum(nopc_rise > 0.05)))
assert np.all(rise_lead > 0), rise_lead  # the prose says the control rises less on every seed
glue("rise_lead_min", float(rise_lead.min()))
glue("rise_lead_max", float(rise_lead.max()))
claim(
    "stealix/2_attack/pc_above_random",
    f"Evolved prompts are far more consistent than random prompts: last-generation mean PC "
    f"(B = {b_max}) above random prompts' PC by more than 0.2",
    paper="PC of evolved prompts rises; random or poor prompts have low PC",
    value=pc_mean[:, -1],
    check=greater(rand_pc, by=0.2, label="random prompts' PC"),
    control=("generation 0 (inverted seeds, no feedback)", pc_mean[:, 0]),
    verdict="reproduced",
    caveat=f"{SEEDS}, then its seed images, streams and surrogate; the loop without PC "
    f"selection reaches a last-generation PC of {nopc_mean[:, -1].mean():.3f} "
    f"({', '.join(f'{v:.3f}' for v in nopc_mean[:, -1])} per seed; above random prompts' PC "
    f"+ 0.2 on {int(np.sum(nopc_mean[:, -1] > rand_pc + 0.2))} of {n_seeds}): part of the "
    "margin comes from the inverted seeds and the refinement on the victim's labels, not from "
    "PC selection",
    numbers={"random prompts": rand_pc, "no PC selection, last generation": nopc_mean[:, -1]},
    fmt=".3f",
)
claim(
    "stealix/2_attack/pc_rises",
    f"Prompt consistency rises over the generations (B = {b_max}): last minus first generation "
    "above 0.05",
    paper="PC increases as prompts evolve (the GA's fitness)",
    value=pc_mean[:, -1] - pc_mean[:, 0],
    check=greater(0.05),
    control=("no PC selection (uniform parents and elite)", nopc_rise),
    verdict="partly",
    caveat=f"the control fails on its mean ({nopc_rise.mean():.3f} < 0.05) but only just: "
    f"without PC selection PC rises by {nopc_rise_text} per seed, more than 0.05 on "
    f"{int(np.sum(nopc_rise > 0.05))} of {n_seeds} (the refinement also reads the victim's "
    f"labels); Stealix's rise exceeds the no-PC rise on every seed (by "
    f"{rise_lead.min():.3f} to {rise_lead.max():.3f}), a paired comparison chosen after this "
    f"run, not fixed in advance; {SEEDS}, then its seed images, streams and surrogate",
    numbers={
        "best PC, last generation": pc_max[:, -1],
        "Stealix's rise minus the no-PC rise (mean of the per-seed differences)": rise_lead,
    },
    fmt=".3f",
)
best_base = np.maximum(ag["inversion only"], ag["seed augmentation"])
n_aug_best = int(np.sum(ag["seed augmentation"] >= ag["inversion only"]))
gap_best = ag["Stealix"] - best_base
lead = {
    b: np.mean(
        [
            np.maximum(
                res[(b, "inversion only")]["agreement"], res[(b, "seed augmentation")]["agreement"]
            )
            - res[(b, "Stealix")]["agreement"]
        ]
    )
    for b in CONFIG["budgets"]
}
claim(
    "stealix/2_attack/beats_best_baseline_low_budget",
    f"At the smallest budget (B = {b0} per class) Stealix's surrogate agrees with the victim "
    "more than the best baseline's (inversion only or seed augmentation, per seed) by 0.02",
    paper="Stealix beats every baseline at equal budget, most at low budgets "
    "(up to +22.2 % accuracy, Table 1)",
    value=ag["Stealix"],
    check=greater(best_base, by=0.02, label="best baseline"),
    verdict="not reproduced",
    caveat=f"Stealix {ag['Stealix'].mean():.3f} vs best baseline {best_base.mean():.3f} "
    f"(gap {gap_best.mean():+.3f}, {n_seeds} seeds; {SEEDS}); the baselines stay ahead at every "
    f"budget. The best baseline is seed augmentation on {n_aug_best} of {n_seeds} seeds: "
    "perturbed copies of the real seed digits, in the victim's own distribution, where "
    "Stealix's rendered glyphs start far from it (notebook 1's domain gap); its "
    f"feedback-free start, inversion only, scores {ag['inversion only'].mean():.3f}. With "
    f"pop_size {pop} the elite is evaluated again every generation ({repeat_b0.mean():.0%} of "
    f"Stealix's PC evaluations at B = {b0}, {repeat.mean():.0%} at B = {b_max}, re-query a "
    "prompt); its effect on agreement was not measured",
    numbers={
        "inversion only": ag["inversion only"],
        "seed augmentation": ag["seed augmentation"],
        **{f"best baseline minus Stealix, B = {b}": v for b, v in lead.items()},
    },
    fmt=".3f",
)
rand_again = []
for s in CONFIG["seeds"]:
    _, _, Xte, yte, victim, _ = worlds[s]
    X, y = baseline_attack("random", victim, G, b0, m=m, seed=1000 + s)
    A = train_surrogate(X, y, seed=s)
    rand_again.append(evaluate_surrogate(A, victim, Xte, yte)["agreement"])
    victim.reset()
lead_random = ag["Stealix"] - ag["random prompts (M images)"]
n_win = int(np.sum(lead_random > 0.1))
claim(
    "stealix/2_attack/beats_random_low_budget",
    f"At the smallest budget (B = {b0} per class) Stealix's surrogate agrees with the victim "
    "more than one trained on random prompts, by more than 0.1 (a margin fixed in advance)",
    paper="random prompts (not a paper baseline)",
    value=ag["Stealix"],
    check=greater(ag["random prompts (M images)"], by=0.1, label="random prompts (M images)"),
    verdict="not reproduced",
    caveat=f"Stealix {ag['Stealix'].mean():.3f} vs random prompts "
    f"{ag['random prompts (M images)'].mean():.3f} on average, but the 0.1 margin holds on "
    f"{n_win} of {n_seeds} seeds (smallest lead {lead_random.min():+.3f}; {SEEDS}): on one "
    "victim Stealix stays below its own starting point, the inverted seeds. Where it wins, the "
    "ranking is partly built into the world: its context slots were added because without them "
    "random prompts out-stole Stealix, and random context makes random prompts poor",
    numbers={
        "Stealix minus random prompts (mean of the per-seed differences)": lead_random,
        "random prompts, another draw": np.array(rand_again),
        "class names (random context)": ag["class names"],
        "class names, plain context": ag["class names, plain context"],
        "random prompts, 1 image each": ag["random prompts (1 image)"],
        "Knockoff (letters)": ag["Knockoff (letters)"],
        f"Stealix at B = {b_max}": res[(b_max, "Stealix")]["agreement"],
        f"random at B = {b_max}": res[(b_max, "random prompts (M images)")]["agreement"],
    },
    fmt=".3f",
)
others = [k for k in METHODS if not k.startswith("oracle")]


def margin(top: str) -> np.ndarray:
    """Per seed: the smallest lead of method ``top`` over every other method at every budget."""
    rest = [k for k in others if k != top]
    return np.min(
        [res[(b, top)]["agreement"] - res[(b, k)]["agreement"] for b in bs for k in rest], axis=0
    )


claim(
    "stealix/2_attack/oracle_on_top",
    "The oracle (real digits) agrees with the victim more than every method at every budget",
    paper="real data is the upper bound of the stealing methods",
    value=np.min(
        [
            res[(b, "oracle (real digits)")]["agreement"] - res[(b, k)]["agreement"]
            for b in bs
            for k in others
        ],
        axis=0,
    ),
    check=greater(0.0),
    control=("seed augmentation in the oracle's place", margin("seed augmentation")),
    verdict="reproduced",
    caveat=SEEDS,
    fmt=".3f",
)
glue("ag_stealix_b0", float(ag["Stealix"].mean()))
glue("ag_inversion_b0", float(ag["inversion only"].mean()))
glue("ag_seedaug_b0", float(ag["seed augmentation"].mean()))
glue("ag_best_b0", float(best_base.mean()))
glue("gap_best_b0", float(gap_best.mean()))
glue("ag_random_b0", float(ag["random prompts (M images)"].mean()))
glue("ag_classname_b0", float(ag["class names"].mean()))
glue("ag_classname_plain_b0", float(ag["class names, plain context"].mean()))
glue("ag_oracle_b0", float(ag["oracle (real digits)"].mean()))
glue("repeat_b0", float(repeat_b0.mean()))
acc_gain = res[(b0, "Stealix")]["acc"] - res[(b0, "random prompts (M images)")]["acc"]
glue("acc_gain_random_b0", float(acc_gain.mean()))
glue("b0", b0)
glue("b_max", b_max)
glue("budgets", ", ".join(str(b) for b in CONFIG["budgets"]))
glue("n_seeds", n_seeds)
glue("pop_size", pop)
glue("m", m)
glue("vlm_pairs", VLM[SCALE]["n_pairs"])
glue("vlm_epochs", VLM[SCALE]["epochs"])
glue("cvae_pairs", CVAE["n_pairs"])  # G at `large` (the renderer at `small`)
glue("cvae_epochs", CVAE["epochs"])
glue("ag_stealix_bmax", float(res[(b_max, "Stealix")]["agreement"].mean()))
glue("ag_best_bmax", float(lead[b_max] + res[(b_max, "Stealix")]["agreement"].mean()))
glue("lead_random_min", float(lead_random.min()))
glue("n_win_random", n_win)
glue("victim_acc_min", float(victim_acc.min()))
glue("victim_acc_max", float(victim_acc.max()))
glue("runtime_s", runtime_s)
