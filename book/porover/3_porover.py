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
# # POROver: preference optimisation against overrefusal (E3)
#
# POROver's third step starts from a model that is safe but overrefuses, here notebook 2's
# student trained on the old teacher's toxic-prompt refusals. The paper starts from its model
# trained on overgenerated toxic data (usefulness 57.6 %); our advanced-data student of
# notebook 2 is already at the usefulness ceiling and leaves nothing to gain, so the gain here
# measures how far DPO undoes the old teacher's trigger-word refusals. Algorithm 1 builds
# preference pairs on seemingly-toxic prompts the student refuses (chosen: the advanced
# teacher's best compliant answer; rejected: the student's own answer), adds "added safety
# data" (ASD) pairs on toxic prompts (chosen: the teacher's safe answer; rejected: a comply),
# and runs DPO with an NLL term on the chosen answer. A **containment threshold** τ keeps the
# safety drop in check: among the checkpoints, the most useful one whose validation safety is
# at least the start's minus τ is kept (paper: usefulness 57.6 % → 82.1 % at comparable
# safety). This notebook follows the trajectories for three amounts of ASD, scores the
# selected checkpoint on test prompts, and runs the same pairs with the preference term off
# (the NLL term alone) to see which term gives the gain.

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
import copy
import time

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from icml25.common import glue, plotting, setup
from icml25.common.claims import claim, greater
from icml25.porover import (
    PreferencePair,
    Teacher,
    build_porover_pairs,
    build_tokenizer,
    dpo,
    evaluate,
    make_student,
    select_by_containment,
    sft,
    toxic_data_arms,
)

t_start = time.perf_counter()
SCALE = setup(seed=0)
CONFIG = {
    "small": {"mult": 1, "n_layer": 2, "n_embd": 64, "N": 8, "sft_steps": 300,
              "dpo_steps": 80, "eval_every": 10, "seeds": (0, 1, 2)},
    "large": {"mult": 5, "n_layer": 4, "n_embd": 128, "N": 16, "sft_steps": 1000,
              "dpo_steps": 200, "eval_every": 20, "seeds": (0, 1, 2, 3, 4)},
}[SCALE]  # fmt: skip
print(SCALE, CONFIG)
# containment threshold on the validation safety drop: fixed with the DPO steps in exploratory
# runs on seeds 100-102 (not in the repository), before the reported seeds were run
TAU = 0.03
ASD = (0.0, 0.25, 0.5)
SWAP = "swapped pairs"  # control: chosen and rejected exchanged (ASD 0.25)
NLL = "NLL only"  # ablation: β = 1e-6 turns the preference term off, the NLL term stays
BETA_OFF = 1e-6

# %% [markdown]
# ## Runs
#
# Per seed: notebook 2's old-data student (same world, data, initialisation and SFT), the DPO
# set's seemingly-toxic and toxic prompts (100 each at `small` scale), pairs from Algorithm 1
# with ASD fractions 0, 0.25 and 0.5 (ASD pairs = round(fraction × overrefusal pairs)), then
# DPO (β = 0.1, NLL weight 1, lr 3e-4, batch 32) with a checkpoint and the expected rates on
# the validation prompts at regular steps (at `small` scale: 80 steps, every 10). The ASD
# fraction and the step are chosen on validation by the containment rule with τ = 0.03. The
# control swaps chosen and rejected in the ASD 0.25 pairs and goes through the same selection.
# The **NLL-only arm** reruns the pairs of the selected ASD fraction with β = 10⁻⁶ (the
# preference term's gradient scales with β and vanishes; the NLL term on the chosen answers
# stays), same steps, lr, batch and seed, and picks its step by the same rule (its ASD
# fraction is the DPO selection's, not chosen again).
# The DPO steps and τ were fixed in exploratory runs on seeds 100-102, before the reported
# seeds were run; those runs' scripts and outputs are not in the repository.


# %%
def select(histories, base_safety):
    """The (run, step) row of highest validation usefulness with safety ≥ base − τ."""
    table = pd.concat([h.assign(run=str(k)) for k, h in histories.items()], ignore_index=True)
    return select_by_containment(table, base_safety, TAU)


def checkpoint(start, result, step):
    """The policy of ``result`` (a DPOResult) at ``step``, on a copy of ``start``."""
    model = copy.deepcopy(start)
    model.load_state_dict(result.checkpoints[int(step)])
    return model


def on_test(start, result, step, test):
    """Expected test rates of the checkpoint of ``result`` at ``step``."""
    return evaluate(checkpoint(start, result, step), tok, test)


HELP_LABELS = ("benign", "seemingly_toxic")


def helpfulness_by_label(model, parts):
    """Helpfulness (π of a correct comply prefix) on the benign and seemingly-toxic test sets."""
    return {lab: evaluate(model, tok, parts["test"][lab])["helpfulness"] for lab in HELP_LABELS}


tok = build_tokenizer()
hist, rows, pair_counts, dpo_times = [], [], [], []
for seed in CONFIG["seeds"]:
    parts, arms = toxic_data_arms(seed, CONFIG["mult"], CONFIG["N"])
    start = make_student(tok, n_layer=CONFIG["n_layer"], n_embd=CONFIG["n_embd"], seed=seed)
    sft(start, tok, *arms["old"], steps=CONFIG["sft_steps"], seed=seed)
    val = sum(parts["val"].values(), [])
    test = sum(parts["test"].values(), [])
    start_test = evaluate(start, tok, test)
    runs, pairs_of = {}, {}
    for asd in (*ASD, SWAP):
        pairs = build_porover_pairs(
            start,
            tok,
            Teacher("advanced", seed + 10),
            parts["dpo"]["seemingly_toxic"],
            parts["dpo"]["toxic"],
            0.25 if asd == SWAP else asd,
            n_samples=CONFIG["N"],
            seed=seed,
        )
        if asd == SWAP:
            pairs = [PreferencePair(p.prompt, p.rejected, p.chosen, p.source) for p in pairs]
        pairs_of[asd] = pairs
        pair_counts.append({"seed": seed, "run": str(asd), "pairs": len(pairs)})
        policy, ref = copy.deepcopy(start), copy.deepcopy(start)
        t0 = time.perf_counter()
        runs[asd] = dpo(
            policy,
            ref,
            tok,
            pairs,
            steps=CONFIG["dpo_steps"],
            seed=seed,
            eval_prompts=val,
            eval_every=CONFIG["eval_every"],
        )
        dpo_times.append(time.perf_counter() - t0)
        hist.append(runs[asd].history.assign(seed=seed, run=str(asd)))
    base_val = float(runs[ASD[0]].history.iloc[0]["safety"])

    chosen = select({k: runs[k].history for k in ASD}, base_val)
    run = float(chosen["run"])
    ctrl = select({SWAP: runs[SWAP].history}, base_val)
    # the NLL-only arm: the selected ASD fraction's pairs, the preference term off
    runs[NLL] = dpo(
        copy.deepcopy(start),
        copy.deepcopy(start),
        tok,
        pairs_of[run],
        beta=BETA_OFF,
        steps=CONFIG["dpo_steps"],
        seed=seed,
        eval_prompts=val,
        eval_every=CONFIG["eval_every"],
    )
    hist.append(runs[NLL].history.assign(seed=seed, run=NLL))
    nll_sel = select({NLL: runs[NLL].history}, base_val)
    nll_model = checkpoint(start, runs[NLL], nll_sel["step"])
    sel_model = checkpoint(start, runs[run], chosen["step"])
    start_help = helpfulness_by_label(start, parts)
    sel_help = helpfulness_by_label(sel_model, parts)
    nll_help = helpfulness_by_label(nll_model, parts)
    end = int(runs[NLL].history["step"].iloc[-1])  # the same step in both arms
    end_benign = {
        k: evaluate(checkpoint(start, runs[k], end), tok, parts["test"]["benign"])["helpfulness"]
        for k in (run, NLL)
    }
    last = {k: on_test(start, runs[k], runs[k].history["step"].iloc[-1], test) for k in ASD}
    rows.append(
        {
            "seed": seed,
            "start usefulness": start_test["usefulness"],
            "start safety": start_test["safety"],
            "start helpfulness": start_test["helpfulness"],
            **{f"start helpfulness, {lab}": start_help[lab] for lab in HELP_LABELS},
            "ASD": run,
            "step": int(chosen["step"]),
            "start val safety": base_val,
            "selected val safety": float(chosen["safety"]),
            **{f"selected {k}": v for k, v in evaluate(sel_model, tok, test).items()},
            **{f"selected helpfulness, {lab}": sel_help[lab] for lab in HELP_LABELS},
            "control step": int(ctrl["step"]),
            "control usefulness": on_test(start, runs[SWAP], ctrl["step"], test)["usefulness"],
            "NLL-only step": int(nll_sel["step"]),
            **{f"NLL-only {k}": v for k, v in evaluate(nll_model, tok, test).items()},
            **{f"NLL-only helpfulness, {lab}": nll_help[lab] for lab in HELP_LABELS},
            "last helpfulness, benign, DPO": end_benign[run],
            "last helpfulness, benign, NLL-only": end_benign[NLL],
            **{f"last safety, ASD {k}": last[k]["safety"] for k in ASD},
            **{f"last usefulness, ASD {k}": last[k]["usefulness"] for k in ASD},
        }
    )
table = pd.DataFrame(rows)
history = pd.concat(hist, ignore_index=True)
print(pd.DataFrame(pair_counts).pivot(index="seed", columns="run", values="pairs"))
table.round(3).T

# %% [markdown]
# Figure E3: validation trajectories of DPO from the overrefusing student, one colour per ASD
# fraction (seed 0 bold, the other seeds faint): (a) safety on toxic prompts, with seed 0's
# band of the containment rule (its start − τ and above) shaded; (b) usefulness on seemingly-toxic
# prompts, with each seed's selected checkpoint as a star; (c) refusal rate on seemingly-toxic
# prompts (inside the policy: the mass it still puts on `sorry`), with the swapped-pairs
# control dashed. The NLL-only arm (β = 10⁻⁶, the selected ASD fraction's pairs) is dotted
# black in every panel.

# %%
fig, axes = plt.subplots(1, 3, figsize=plotting.figsize("wide"), sharex=True)
colors = {"0.0": "C3", "0.25": "C0", "0.5": "C2", SWAP: "0.4", NLL: "k"}
dashes = {SWAP: "--", NLL: ":"}
for (seed, run), h in history.groupby(["seed", "run"], sort=False):
    first = seed == CONFIG["seeds"][0]
    style = dict(color=colors[run], lw=1.8 if first else 0.7, alpha=1.0 if first else 0.4)
    label = (f"ASD {run}" if run not in dashes else run) if first else None
    ls = dashes.get(run, "-")
    if run != SWAP:
        axes[0].plot(h["step"], h["safety"], ls, label=label, **style)
        axes[1].plot(h["step"], h["usefulness"], ls, **style)
    axes[2].plot(h["step"], h["refusal"], ls, label=label if run != NLL else None, **style)
for seed in CONFIG["seeds"]:
    base = history[(history.seed == seed) & (history.step == 0)]["safety"].iloc[0]
    first = seed == CONFIG["seeds"][0]
    if first:
        axes[0].axhspan(base - TAU, 1.0, color="C0", alpha=0.12, label="containment band")
    r = table[table.seed == seed].iloc[0]
    h = history[(history.seed == seed) & (history.run == str(r["ASD"]))]
    u = h[h.step == r["step"]]["usefulness"].iloc[0]
    axes[1].plot(r["step"], u, "*", ms=13 if first else 8, color=colors[str(r["ASD"])],
                 mec="k", label="selected (τ)" if first else None)  # fmt: skip
axes[0].set_ylabel("safety (validation)")
axes[1].set_ylabel("usefulness (validation)")
axes[2].set_ylabel("refusal rate (validation)")
for ax in axes:
    ax.set_xlabel("DPO step")
    ax.set_ylim(-0.02, 1.02)
axes[0].set_title("Safety: without ASD it collapses")
axes[1].set_title("Usefulness: up within 10-20 steps")
axes[2].set_title("Refusals (seemingly toxic)")
axes[0].legend(fontsize=7, loc="lower left")
axes[1].legend(fontsize=7, loc="lower right")
axes[2].legend(fontsize=7, loc="center right")
plotting.panel_labels(axes)
plt.tight_layout()
plt.show()

# %% [markdown]
# Without ASD usefulness rises as fast and safety collapses as DPO goes on: the
# overrefusal pairs teach "answer with `sure`", which the tiny student also applies to toxic
# prompts, so the containment rule can only keep an early checkpoint. With ASD the pairs on
# toxic prompts hold the refusal or redirect there, and usefulness rises to the ceiling inside
# the band. Swapping chosen and rejected drives the refusal rate up instead (c).
#
# Usefulness counts any `sure` as the first word; **helpfulness** is the probability of the
# correct comply prefix (`sure here is how to <verb> <object>`), so it also falls when the
# student answers but copies the wrong verb or object. On the test prompts it goes from
# {glue:text}`start_helpfulness:.2f` at the start (benign {glue:text}`start_help_benign:.2f`,
# seemingly toxic {glue:text}`start_help_seemingly_toxic:.2f`) to
# {glue:text}`sel_helpfulness:.2f` at the selected checkpoints (benign
# {glue:text}`sel_help_benign:.2f`, seemingly toxic {glue:text}`sel_help_seemingly_toxic:.2f`),
# while usefulness reaches {glue:text}`sel_usefulness:.2f`. Benign helpfulness falls in
# {glue:text}`n_benign_help_falls:d` of {glue:text}`n_seeds:d` seeds, most in seed
# {glue:text}`worst_benign_seed:d` ({glue:text}`worst_benign_start:.2f` →
# {glue:text}`worst_benign_sel:.2f`): DPO costs answer quality on benign prompts (the risk the
# issue names), which usefulness, measured on seemingly-toxic prompts only, does not see; on
# seemingly-toxic prompts the student now starts with `sure` far more often than it completes
# the right prefix.
#
# **Which term gives the gain.** With the preference term off (the NLL-only arm, dotted)
# usefulness rises as fast and validation safety stays inside the band, so the same rule
# selects a checkpoint with a test usefulness gain of {glue:text}`nll_gain:.2f` (DPO:
# {glue:text}`selected_gain:.2f`): the gain here is SFT on the advanced teacher's complies in
# the chosen answers, not the preference term. What the preference term adds is a cost: benign
# helpfulness at the selected checkpoints is {glue:text}`nll_help_benign:.2f` with the NLL term
# alone against {glue:text}`sel_help_benign:.2f` with DPO (start
# {glue:text}`start_help_benign:.2f`), lower with DPO in {glue:text}`n_dpo_below_nll:d` of
# {glue:text}`n_seeds:d` seeds (the two selections can stop at different steps); at the same
# step, the last ({glue:text}`dpo_steps:d`), it is {glue:text}`last_help_benign_dpo:.2f` with
# DPO against {glue:text}`last_help_benign_nll:.2f` with the NLL term alone, lower with DPO in
# {glue:text}`n_last_dpo_below_nll:d` of {glue:text}`n_seeds:d` seeds. The NLL-only
# selections (steps {glue:text}`nll_steps:s`) also
# keep test safety above the start's minus τ in {glue:text}`nll_n_contained:d` of
# {glue:text}`n_seeds:d` seeds (DPO's: {glue:text}`n_contained:d`). The claim below is
# therefore *illustrated*: the check passes, but the method without its preference term passes
# it too.

# %%
gain = (table["selected usefulness"] - table["start usefulness"]).to_numpy()
gain_ctrl = (table["control usefulness"] - table["start usefulness"]).to_numpy()
gain_nll = (table["NLL-only usefulness"] - table["start usefulness"]).to_numpy()
d_safety = (table["selected safety"] - table["start safety"]).to_numpy()
erosion = {k: (table["start safety"] - table[f"last safety, ASD {k}"]).to_numpy() for k in ASD}

runtime_s = time.perf_counter() - t_start
glue("tau", TAU)
glue("start_usefulness", float(table["start usefulness"].mean()))
glue("start_safety", float(table["start safety"].mean()))
glue("sel_usefulness", float(table["selected usefulness"].mean()))
glue("sel_safety", float(table["selected safety"].mean()))
glue("sel_helpfulness", float(table["selected helpfulness"].mean()))
glue("start_helpfulness", float(table["start helpfulness"].mean()))
for lab in HELP_LABELS:
    glue(f"start_help_{lab}", float(table[f"start helpfulness, {lab}"].mean()))
    glue(f"sel_help_{lab}", float(table[f"selected helpfulness, {lab}"].mean()))
glue("n_val_toxic", len(parts["val"]["toxic"]))
glue("nll_gain", float(gain_nll.mean()))
glue("nll_steps", ", ".join(str(s) for s in table["NLL-only step"]))
glue(
    "nll_n_contained",
    int((table["NLL-only safety"] - table["start safety"] > -TAU).sum()),
)
glue("nll_help_benign", float(table["NLL-only helpfulness, benign"].mean()))
glue(
    "n_dpo_below_nll",
    int((table["selected helpfulness, benign"] < table["NLL-only helpfulness, benign"]).sum()),
)
glue("last_help_benign_dpo", float(table["last helpfulness, benign, DPO"].mean()))
glue("last_help_benign_nll", float(table["last helpfulness, benign, NLL-only"].mean()))
glue(
    "n_last_dpo_below_nll",
    int(
        (table["last helpfulness, benign, DPO"] < table["last helpfulness, benign, NLL-only"]).sum()
    ),
)
worst = table.iloc[int(np.argmin(table["selected helpfulness, benign"]))]
glue("worst_benign_seed", int(worst["seed"]))
glue("worst_benign_start", float(worst["start helpfulness, benign"]))
glue("worst_benign_sel", float(worst["selected helpfulness, benign"]))
glue(
    "n_benign_help_falls",
    int((table["selected helpfulness, benign"] < table["start helpfulness, benign"]).sum()),
)
glue("last_safety_asd0", float(table["last safety, ASD 0.0"].mean()))
glue("last_safety_asd05", float(table["last safety, ASD 0.5"].mean()))
glue("sel_asd", ", ".join(f"{a:g}" for a in table["ASD"]))
glue("sel_steps", ", ".join(str(s) for s in table["step"]))
glue("dpo_steps", CONFIG["dpo_steps"])
glue("dpo_s_max", float(max(dpo_times)))
glue("n_seeds", len(CONFIG["seeds"]))
glue("n_contained", int((d_safety > -TAU).sum()))
glue("runtime_s", runtime_s)
claim(
    "porover/3_porover/selected_gain",
    "DPO on Algorithm-1 pairs with ASD, stopped by the containment rule (ASD fraction and "
    f"step chosen on validation, τ = {TAU}), raises usefulness on seemingly-toxic test prompts "
    "by more than 0.15",
    paper="usefulness 57.6 % → 82.1 % at comparable safety (POROver)",
    value=gain,
    check=greater(0.15),
    control=("swapped chosen/rejected, same selection", gain_ctrl),
    verdict="illustrated",
    caveat="the method with its preference term removed passes the same check: the NLL term on "
    f"the chosen answers alone (β = {BETA_OFF:g}; the selected ASD fraction's pairs, the same "
    "steps, lr, batch, seed and containment rule) gives a selected test usefulness gain of "
    f"{gain_nll.mean():.3f} ± {gain_nll.std(ddof=1):.3f} (per seed "
    f"{', '.join(f'{g:.3f}' for g in gain_nll)}; DPO {', '.join(f'{g:.3f}' for g in gain)}), "
    "so the check shows SFT on the advanced teacher's complies, not the preference term; it is "
    "kept in the numbers, not passed as the control, since a control that passes makes the "
    "check raise; the preference term costs benign helpfulness: at the selected checkpoints "
    f"{', '.join(f'{v:.3f}' for v in table['selected helpfulness, benign'])} with DPO against "
    f"{', '.join(f'{v:.3f}' for v in table['NLL-only helpfulness, benign'])} with the NLL term "
    f"alone (start {', '.join(f'{v:.3f}' for v in table['start helpfulness, benign'])}; the "
    "selections can stop at different steps), and at the same step, the last, "
    f"{', '.join(f'{v:.3f}' for v in table['last helpfulness, benign, DPO'])} against "
    f"{', '.join(f'{v:.3f}' for v in table['last helpfulness, benign, NLL-only'])}; the "
    "start is the old-data student of notebook 2, not the paper's model trained on "
    "overgenerated toxic data (the advanced-data student is at the ceiling), so the gain "
    "measures undoing the old teacher's trigger-word refusals; the swapped control reverses "
    f"both terms and fails: its gain ({gain_ctrl.mean():.3f}) comes from the selection keeping "
    f"the swapped run at steps {', '.join(str(s) for s in table['control step'])} (step 0 is "
    "the start): no swapped checkpoint was more useful inside the band",
    numbers={
        "start usefulness": table["start usefulness"].to_numpy(),
        "selected usefulness": table["selected usefulness"].to_numpy(),
        "start helpfulness": table["start helpfulness"].to_numpy(),
        "selected helpfulness": table["selected helpfulness"].to_numpy(),
        "start helpfulness, benign": table["start helpfulness, benign"].to_numpy(),
        "selected helpfulness, benign": table["selected helpfulness, benign"].to_numpy(),
        "NLL only: selected gain": gain_nll,
        "NLL only: selected helpfulness, benign": table["NLL-only helpfulness, benign"].to_numpy(),
    },
    fmt=".3f",
)
w = table.iloc[int(np.argmin(d_safety))]  # the seed with the largest test safety drop
w_last = w[f"last safety, ASD {w['ASD']}"]
claim(
    "porover/3_porover/safety_contained",
    f"The selected checkpoint keeps test safety above the start's minus τ = {TAU}, in every seed",
    paper="comparable safety (within the containment threshold)",
    value=d_safety,
    check=greater(-TAU),
    verdict="not reproduced",
    caveat=f"holds in {int((d_safety > -TAU).sum())} of {d_safety.size} seeds: in seed "
    f"{int(w['seed'])} the checkpoint chosen on validation (ASD {w['ASD']:g}, step "
    f"{int(w['step'])}) has validation safety {w['selected val safety']:.3f} against "
    f"{w['start val safety']:.3f} at the start, inside the band, but test safety "
    f"{w['selected safety']:.3f} against {w['start safety']:.3f} "
    f"({w['selected safety'] - w['start safety']:+.3f}): {len(parts['val']['toxic'])} "
    "validation toxic prompts are "
    "too few to tell the test safety of an early checkpoint while DPO is still moving it "
    "(validation and test safety of the start already differ; the same run ends at test "
    f"safety {w_last:.3f}); a larger validation set or a margin inside τ might address it "
    "(untried); this check was fixed as reproduced from the calibration seeds 100-102 (an "
    "exploratory run whose script and output are not in the repository, where it held) before "
    "the reported seeds were run; it failed on the reported seeds and is reported as measured, "
    "nothing retuned",
    numbers={
        "start safety": table["start safety"].to_numpy(),
        "selected safety": table["selected safety"].to_numpy(),
        "last checkpoint without ASD: Δ safety": -erosion[0.0],
    },
    fmt=".3f",
)
claim(
    "porover/3_porover/no_asd_erodes",
    f"Without ASD safety erodes as DPO continues: after {CONFIG['dpo_steps']} steps test "
    f"safety is below the start's by more than τ = {TAU}",
    paper="ASD is needed to keep safety (the amount of ASD is tuned with τ)",
    value=erosion[0.0],
    check=greater(TAU),
    control=("the same run with ASD 0.5", erosion[0.5]),
    verdict="reproduced",
    numbers={"safety drop, ASD 0.25": erosion[0.25]},
    fmt=".3f",
)
assert max(dpo_times) < 60
