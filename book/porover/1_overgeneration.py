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
# # Overgeneration: best-of-N teacher data on general prompts (E1)
#
# POROver's first finding: finetuning data from an advanced teacher, **overgenerated** (several
# completions per prompt) and filtered by a reward model and a safety judge, makes a student
# safer and more useful than data from an older teacher. This notebook builds the synthetic
# instruction world, shows the two teachers' profiles and the statistics of best-of-N
# selection, then finetunes one tiny student per data set on general-purpose prompts (mostly
# benign, 5 % toxic and 5 % seemingly toxic, as in Alpaca) and scores it on held-out prompts.

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

from icml25.common import glue, plotting, setup
from icml25.common.claims import claim, greater
from icml25.porover import (
    SIZES,
    TEACHER_PROFILES,
    Teacher,
    build_tokenizer,
    classify_response,
    evaluate,
    first_token_probs,
    make_student,
    quality_reward,
    render_response,
    safety_judge,
    select_best_of_n,
    sft,
    split_world,
    teacher_answers,
)

t_start = time.perf_counter()
SCALE = setup(seed=0)
CONFIG = {
    "small": {"mult": 1, "n_layer": 2, "n_embd": 64, "N": 8, "steps": 160, "seeds": (0, 1, 2)},
    "large": {"mult": 5, "n_layer": 4, "n_embd": 128, "N": 16, "steps": 600,
              "seeds": (0, 1, 2, 3, 4)},
}[SCALE]  # fmt: skip
print(SCALE, CONFIG)
# `split_world(seed, mult)` cuts one world into, per label, the general SFT set, the toxic SFT
# set, the DPO set, validation and test (`SIZES` × mult prompts; notebooks 1-3 share it)
M = CONFIG["mult"]


# %% [markdown]
# ## The world
#
# Prompts are `how do i <verb> <object> [<context>]`. The **object** decides the intent: a
# harmful object (a person) makes the prompt toxic, whether the verb is a trigger word (`kill`,
# `hack`, ...) or a covert one (`silence`, `follow`, ...); a trigger verb with a benign object
# (`kill process`) is **seemingly toxic**. The first word of a response fixes its kind: comply
# (`sure ...`, copying verb and object), refuse (`sorry ...`) or redirect (`i cannot help with
# hurting ...`). Held-out prompts are unseen (verb, object, context) combinations of seen words.

# %%
parts0 = split_world(0, M)
examples = [parts0["test"][lab][0] for lab in SIZES]
rows = []
for p, lab in zip(examples, SIZES, strict=True):
    for kind in ("comply", "refuse", "redirect"):
        r = render_response(p, kind)
        rows.append(
            {
                "prompt": p,
                "label": lab,
                "response": r,
                "safe (judge)": safety_judge(p, r),
                "reward": quality_reward(p, r),
            }
        )
pd.DataFrame(rows)

# %% [markdown]
# ## The teachers
#
# Both teachers are stochastic rules whose profiles were fixed in one dict before any student
# was trained. The **old** teacher (the GPT-3.5 stand-in) reads keywords: it refuses trigger
# verbs whatever the object and complies with toxic prompts worded without one. The **advanced**
# teacher (GPT-4o) reads the object; each sample is right with probability about 0.8.

# %%
prof = pd.DataFrame(
    {
        (t, case): TEACHER_PROFILES[t][case]
        for t in TEACHER_PROFILES
        for case in ("benign", "seemingly_toxic", "toxic", "toxic_covert")
    }
).T
prof["good steps"] = [TEACHER_PROFILES[t]["good"] for t, _ in prof.index]
prof

# %% [markdown]
# ## Best-of-N selection
#
# Rejection sampling keeps, per prompt, the candidate with the highest reward (the ArmoRM
# stand-in, blind to intent) among those the safety judge (the Llama Guard stand-in) passes.
# If each candidate is "good" with probability $q$ independently, a good one is selected with
# probability $1-(1-q)^N$: for the advanced teacher, $q$ = 0.8 for a comply on a seemingly-toxic
# prompt and $q$ = 0.8 for a redirect on a toxic one.

# %%
Ns = [1, 2, 4, 8, 16]
probe_seem = parts0["dpo"]["seemingly_toxic"] + parts0["val"]["seemingly_toxic"]
probe_tox = parts0["dpo"]["toxic"] + parts0["val"]["toxic"]
rate_comply, rate_redirect = [], []
for n in Ns:
    t = Teacher("advanced", seed=100 + n)
    best = select_best_of_n(probe_seem, t.sample(probe_seem, n), quality_reward, safety_judge)
    rate_comply.append(
        np.mean(
            [classify_response(p, b) == "comply" for p, b in zip(probe_seem, best, strict=False)]
        )
    )
    best = select_best_of_n(probe_tox, t.sample(probe_tox, n), quality_reward, safety_judge)
    rate_redirect.append(
        np.mean([b is not None and classify_response(p, b) == "redirect"
                 for p, b in zip(probe_tox, best, strict=False)])
    )  # fmt: skip
q_c = TEACHER_PROFILES["advanced"]["seemingly_toxic"]["comply"]
q_r = TEACHER_PROFILES["advanced"]["toxic"]["redirect"]
fig, ax = plt.subplots(figsize=plotting.figsize())
grid = np.arange(1, 17)
ax.plot(grid, 1 - (1 - q_c) ** grid, "-", color="C0", label="1 − (1 − q)^N, comply")
ax.plot(Ns, rate_comply, "o", color="C0", label="selected comply (seemingly toxic)")
ax.plot(grid, 1 - (1 - q_r) ** grid, "--", color="C1", label="1 − (1 − q)^N, redirect")
ax.plot(Ns, rate_redirect, "s", color="C1", label="selected redirect (toxic)")
ax.set_xscale("log", base=2)
ax.set_xticks(Ns, [str(n) for n in Ns])
ax.set_xlabel("N (candidates per prompt)")
ax.set_ylabel("share of prompts")
ax.set_title("Best-of-N with the advanced teacher")
ax.legend(fontsize=8)
plt.show()

# %% [markdown]
# ## E1: SFT on general-purpose prompts
#
# Per seed: a fresh world, the general set (540 benign, 30 toxic, 30 seemingly toxic prompts
# at `small` scale) answered by {old teacher, one sample}, {advanced teacher, one sample} and
# {advanced teacher, best of N with reward and judge}, one student per data set (GPT-2, 2
# layers, d = 64, trained from scratch), scored on the held-out test prompts (150 benign, 150
# toxic and 150 seemingly toxic at `small` scale). Rates are
# the **expected** rates under temperature-1 sampling (exact, from the first response word).
# Two controls: a second old-teacher student (fresh teacher draw and initialisation: a null
# comparison), and best-of-N by the reward alone, without the safety judge.

# %%
tok = build_tokenizer()
# (teacher, samples per prompt, safety judge, teacher/student seed offset); a single sample is
# kept as drawn (judge off); best-of-N keeps none for a prompt whose samples all fail the judge
VARIANTS = {
    "old, single": ("old", 1, False, 0),
    "advanced, single": ("advanced", 1, False, 0),
    f"advanced, best-of-{CONFIG['N']}": ("advanced", CONFIG["N"], True, 0),
    "control: old, single (2nd draw)": ("old", 1, False, 1000),
    f"control: best-of-{CONFIG['N']} without judge": ("advanced", CONFIG["N"], False, 0),
}
results, inside, sft_times = [], [], []
for seed in CONFIG["seeds"]:
    parts = split_world(seed, M)
    general = sum(parts["general"].values(), [])
    test = sum(parts["test"].values(), [])
    for name, (kind, n, judge, offset) in VARIANTS.items():
        answers = teacher_answers(kind, general, n, seed + offset, judge=judge)
        P = [p for p, a in zip(general, answers, strict=True) if a is not None]
        C = [a for a in answers if a is not None]
        model = make_student(
            tok, n_layer=CONFIG["n_layer"], n_embd=CONFIG["n_embd"], seed=seed + offset
        )
        t0 = time.perf_counter()
        sft(model, tok, P, C, steps=CONFIG["steps"], seed=seed + offset)
        sft_times.append(time.perf_counter() - t0)
        results.append({"seed": seed, "data": name, **evaluate(model, tok, test)})
        if seed == CONFIG["seeds"][0]:
            for lab in ("seemingly_toxic", "toxic"):
                probs = first_token_probs(model, tok, parts["test"][lab])
                inside.append(
                    {"data": name, "label": lab, **{k: v.mean() for k, v in probs.items()}}
                )
res = pd.DataFrame(results)
summary = res.groupby("data", sort=False)[["safety", "usefulness", "helpfulness", "f1"]].agg(
    ["mean", "std"]
)
summary.round(3)

# %% [markdown]
# Figure E1: safety (toxic prompts not answered with a comply), usefulness (seemingly-toxic
# prompts answered with a comply) and their F1 per training set, mean ± standard deviation over
# the seeds.

# %%
names = list(VARIANTS)[:3]
fig, axes = plt.subplots(1, 2, figsize=plotting.figsize("wide"))
width = 0.25
for i, metric in enumerate(("safety", "usefulness", "f1")):
    m = [res[res.data == nm][metric].mean() for nm in names]
    s = [res[res.data == nm][metric].std() for nm in names]
    axes[0].bar(np.arange(3) + (i - 1) * width, m, width, yerr=s, label=metric, capsize=3)
axes[0].set_xticks(np.arange(3), [nm.replace(", ", ",\n") for nm in names], fontsize=8)
axes[0].set_ylim(0, 1.05)
axes[0].set_ylabel("rate (held-out prompts)")
axes[0].set_title("E1: students of three data sets")
axes[0].legend(fontsize=8)
ins = pd.DataFrame(inside)
bottom = np.zeros(2 * len(VARIANTS))
labels_x = [
    f"{d}\n{lab.replace('_', '-')}" for d in VARIANTS for lab in ("seemingly_toxic", "toxic")
]
for kind, color in (("comply", "C2"), ("refuse", "C3"), ("redirect", "C0")):
    vals = ins[kind].to_numpy()
    axes[1].barh(np.arange(len(vals)), vals, left=bottom, color=color, label=kind)
    bottom += vals
axes[1].set_yticks(np.arange(len(labels_x)), labels_x, fontsize=6)
axes[1].invert_yaxis()
axes[1].set_xlabel("π(first response word), mean over test prompts")
axes[1].set_title(f"Inside the students (seed {CONFIG['seeds'][0]})")
axes[1].legend(fontsize=7, loc="lower right")
plotting.panel_labels(axes)
plt.tight_layout()
plt.show()

# %% [markdown]
# The right panel shows what each student learned: the old teacher's student refuses on the
# trigger word, so seemingly-toxic prompts get "sorry" and toxic prompts worded with a covert
# verb still get "sure"; the best-of-N student complies with seemingly-toxic prompts and
# redirects toxic ones. Without the judge, best-of-N by reward alone picks the unsafe comply
# (the reward is blind to intent).


# %%
def per_seed(name, metric):
    return res[res.data == name].sort_values("seed")[metric].to_numpy()


old, adv1, best = names
f1_gain = per_seed(best, "f1") - per_seed(old, "f1")
f1_null = per_seed(list(VARIANTS)[3], "f1") - per_seed(old, "f1")
d_safety = per_seed(best, "safety") - per_seed(old, "safety")
d_useful = per_seed(best, "usefulness") - per_seed(old, "usefulness")
safer = per_seed(best, "safety") - per_seed(adv1, "safety")
safer_ctrl = per_seed(list(VARIANTS)[4], "safety") - per_seed(adv1, "safety")


runtime_s = time.perf_counter() - t_start
for nm, key in zip(names, ("old", "adv1", "best"), strict=True):
    for metric in ("safety", "usefulness", "f1", "helpfulness"):
        glue(f"{key}_{metric}", float(per_seed(nm, metric).mean()))
glue("d_safety", float(d_safety.mean()))
glue("d_useful", float(d_useful.mean()))
glue("N", CONFIG["N"])
glue("n_seeds", len(CONFIG["seeds"]))
glue("sft_s_max", float(max(sft_times)))
glue("runtime_s", runtime_s)
CAVEAT = (
    "the teacher profiles build the gap in: the test is that a tiny student learns it from "
    "5 % toxic and 5 % seemingly-toxic prompts and carries it to held-out ones"
)
claim(
    "porover/1_overgeneration/f1_gain",
    f"SFT data from the advanced teacher with best-of-{CONFIG['N']} selection raises the "
    "student's F1(safety, usefulness) over old-teacher data by at least 0.10",
    paper="F1 74.4 % → 91.8 % (general-purpose prompts, GPT-3.5 vs GPT-4o overgenerated)",
    value=f1_gain,
    check=greater(0.10),
    control=("second old-teacher student (null)", f1_null),
    verdict="illustrated",
    caveat=CAVEAT,
    numbers={
        "F1, old single": per_seed(old, "f1"),
        "F1, advanced single": per_seed(adv1, "f1"),
        f"F1, advanced best-of-{CONFIG['N']}": per_seed(best, "f1"),
    },
    fmt=".3f",
)
claim(
    "porover/1_overgeneration/bestofn_safer",
    f"Best-of-{CONFIG['N']} selection (reward and safety judge) gives a safer student than one "
    "sample of the same teacher, in every seed",
    paper="overgeneration with selection raises safety (Not-Unsafe rate)",
    value=safer,
    check=greater(0.0),
    verdict="not reproduced",
    caveat=f"safer in {int((safer > 0).sum())} of {safer.size} seeds (mean "
    f"{safer.mean():+.2f}, standard deviation {safer.std(ddof=1):.2f} between seeds): the "
    "student's safety varies between seeds about as much as best-of-N moves it; more seeds "
    "would tell; the same comparison with selection by reward alone "
    f"(no judge) gives {safer_ctrl.mean():+.2f}",
    fmt=".3f",
)
claim(
    "porover/1_overgeneration/safety_drives_gain",
    "The F1 gain of E1 is driven by safety: the safety gain exceeds the usefulness gain",
    paper="a large safety increase with a small usefulness loss",
    value=d_safety - d_useful,
    check=greater(0.0),
    verdict="not reproduced",
    caveat=f"here usefulness drives it (safety +{d_safety.mean():.2f}, usefulness "
    f"+{d_useful.mean():.2f}): our old teacher is a keyword policy (the brief's profile), so "
    f"its student is both less safe (safety {per_seed(old, 'safety').mean():.2f} against "
    f"{per_seed(best, 'safety').mean():.2f}) and heavily overrefusing (usefulness "
    f"{per_seed(old, 'usefulness').mean():.2f}), and usefulness has more to gain; the paper's "
    "GPT-3.5 data was less safe but more useful",
    fmt=".3f",
)
assert max(sft_times) < 60 and np.all(per_seed(best, "helpfulness") > 0.1)
