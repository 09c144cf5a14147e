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
# # Images: where and at which scale
#
# WAM {cite:p}`kasmi2025wam` attributes a classifier's decision to the **wavelet coefficients** of
# its input: it decomposes the image with a discrete wavelet transform, reconstructs it, and takes
# the gradient of the class score with respect to every coefficient. The coefficients are
# localised in space *and* in scale, so the map says where the evidence is and whether it is a
# fine detail or a coarse shape. Here: scikit-learn's digits, upsampled to 32×32, a small CNN
# trained in seconds, and WAM next to the pixel-domain methods it is compared with
# (Saliency, Integrated Gradients and SmoothGrad from **captum**), scored by insertion and deletion.
# The wavelet transforms are **ptwt**'s (differentiable, in PyTorch).

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
        " && pip install -q ptwt captum",
        shell=True,
        check=True,
    )

# %%
import time
import warnings

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import torch

# captum loads tqdm's widget front end, which warns without ipywidgets; its saliency warns on inputs
warnings.filterwarnings("ignore", message="IProgress not found")
warnings.filterwarnings("ignore", message="Input Tensor 0 did not already require gradients")
from captum.attr import IntegratedGradients, NoiseTunnel, Saliency

from icml25.common import glue, plotting, setup
from icml25.common.claims import claim, greater
from icml25.common.training import SmallCNN, accuracy, train_classifier
from icml25.wam import (
    digits_32,
    dyadic_layout,
    insertion_deletion,
    model_free_attribution,
    scale_importance,
    scale_maps,
    wam,
)

t_start = time.perf_counter()
SCALE = setup(seed=0)
CONFIG = {
    "small": {"epochs": 4, "n_eval": 64, "steps": 16, "n_samples": 16, "seeds": [0, 1, 2]},
    "large": {"epochs": 8, "n_eval": 256, "steps": 64, "n_samples": 25, "seeds": [0, 1, 2, 3, 4]},
}[SCALE]
print(SCALE, CONFIG)

# %%
Xtr, ytr, Xte, yte = digits_32(seed=0)
net = SmallCNN(1, 10, size=32, ndim=2)
train_classifier(net, Xtr, ytr, epochs=CONFIG["epochs"], seed=0)
acc = accuracy(net, Xte, yte)
print(f"test accuracy {acc:.3f} on {len(yte)} digits")

# %% [markdown]
# ## A WAM, laid out
#
# The Haar transform to level $J = 3$ turns a 32×32 image into a 4×4 approximation and, per level,
# horizontal, vertical and diagonal details (level 1 the finest, 16×16). The "wavelet image" puts
# them in the standard dyadic layout; each sub-band is normalised by its maximum. Next to it: the
# image, pixel saliency, and WAM summed back per scale.

# %% tags=["hide-input"]
i = 0
x = torch.tensor(Xte[i : i + 1])
target = int(yte[i])
attr = wam(net, x, target, method="integrated", n_samples=CONFIG["n_samples"])
sal = Saliency(net).attribute(x, target=target, abs=True)
fig, axes = plt.subplots(1, 4, figsize=plotting.figsize("wide"))
axes[0].imshow(x[0, 0], cmap="gray_r")
axes[0].set_title(f"input (class {target})")
axes[1].imshow(sal[0, 0], cmap="magma")
axes[1].set_title("pixel saliency")
axes[2].imshow(dyadic_layout(attr), cmap="magma")
axes[2].set_title("WAM-IG, dyadic layout")
for s in (4, 8, 16):
    axes[2].axhline(s - 0.5, c="w", lw=0.5)
    axes[2].axvline(s - 0.5, c="w", lw=0.5)
share = scale_importance(attr)
axes[3].bar(list(share), list(share.values()), color=plotting.PALETTE[0])
axes[3].set(title="share of |WAM| per scale", ylim=(0, 1))
axes[3].tick_params(axis="x", rotation=30)
for ax in axes[:3]:
    ax.set_xticks([])
    ax.set_yticks([])
plotting.panel_labels(axes)
fig.suptitle("WAM says where the evidence is and at which scale")
plt.show()

# %% [markdown]
# **What to see.** (b) Pixel saliency is a speckled map on and around the strokes. (c) In the
# wavelet image the top-left corner is the coarse approximation (a blurred digit), the larger
# blocks the finer details; bright cells mark the coefficients the decision rests on. (d) For
# this digit most of the integrated attribution sits in the approximation: the CNN reads the
# coarse stroke layout more than fine edges.

# %% tags=["hide-input"]
maps = scale_maps(attr)
fig, axes = plt.subplots(1, len(maps), figsize=plotting.figsize("wide"))
for ax, (lab, m) in zip(axes, maps.items(), strict=True):
    ax.imshow(x[0, 0], cmap="gray_r", alpha=0.35)
    ax.imshow(m, cmap="magma", alpha=0.75)
    ax.set_title(f"{lab}: {100 * share[lab]:.0f} % of |WAM|")
    ax.set_xticks([])
    ax.set_yticks([])
fig.suptitle("Per-scale maps: where each scale's evidence lies")
plt.show()

# %% [markdown]
# **What to see.** Each map sums one scale's coefficients back onto the image grid: the coarse
# maps light up broad parts of the stroke, the finest one its edges. The percentages are the
# scale shares of panel (d) above.

# %% [markdown]
# ## Faithfulness: insertion and deletion
#
# Rank the features by |attribution|, then **insert** them, most important first, into an empty
# input, or **delete** them from the real one, and follow the softmax probability of the true
# class: a faithful attribution makes insertion rise fast and deletion fall fast. Faithfulness is
# insertion AUC − deletion AUC. For WAM the features are wavelet coefficients, for the pixel
# methods pixels: **the two domains are not the same experiment** (a deleted coefficient removes a
# pattern, a deleted pixel a point), as the paper also notes. We use the standard trapezoid AUC,
# not the paper's curve-max normalisation, and repeat over three training seeds.

# %%
rows = []
curves = {}
for seed in CONFIG["seeds"]:
    model = SmallCNN(1, 10, size=32, ndim=2)
    train_classifier(model, Xtr, ytr, epochs=CONFIG["epochs"], seed=seed, progress=False)
    xe = torch.tensor(Xte[: CONFIG["n_eval"]])
    te = torch.tensor(yte[: CONFIG["n_eval"]])
    ns, steps = CONFIG["n_samples"], CONFIG["steps"]
    methods = {
        "Saliency": ("pixel", Saliency(model).attribute(xe, target=te, abs=True)),
        "Integrated Gradients": (
            "pixel",
            IntegratedGradients(model).attribute(xe, target=te, n_steps=ns),
        ),
        "SmoothGrad": (
            "pixel",
            NoiseTunnel(Saliency(model)).attribute(
                xe, nt_type="smoothgrad", nt_samples=ns, stdevs=0.25, target=te
            ),
        ),
        "WAM (gradient)": ("wavelet", wam(model, xe, te, method="grad")),
        "WAM-SG": ("wavelet", wam(model, xe, te, method="smooth", n_samples=ns)),
        "WAM-IG": ("wavelet", wam(model, xe, te, method="integrated", n_samples=ns)),
        # model-free controls on the same protocol: the input's own wavelet energy, and chance
        "|z| (no model)": ("wavelet", model_free_attribution(xe, "magnitude")),
        "random ranking": ("wavelet", model_free_attribution(xe, "random", seed=seed)),
    }
    for name, (domain, a) in methods.items():
        res = insertion_deletion(model, xe, te, a, domain=domain, steps=steps)
        rows.append(
            {
                "method": name,
                "seed": seed,
                "insertion": res["insertion_auc"],
                "deletion": res["deletion_auc"],
                "faithfulness": res["faithfulness"],
            }
        )
        if seed == CONFIG["seeds"][0]:
            curves[name] = res
table = pd.DataFrame(rows)
summary = table.groupby("method")[["insertion", "deletion", "faithfulness"]].mean()
summary.sort_values("faithfulness").round(3)

# %% tags=["hide-input"]
order = list(summary.sort_values("faithfulness").index)
FREE = ("|z| (no model)", "random ranking")
colors = [
    plotting.PALETTE[0]
    if m.startswith("WAM")
    else plotting.PALETTE[3]
    if m in FREE
    else plotting.PALETTE[7]
    for m in order
]
fig, axes = plt.subplots(1, 2, figsize=plotting.figsize("wide"))
err = table.groupby("method").faithfulness.std().loc[order]
axes[0].barh(order, summary.faithfulness.loc[order], xerr=err, color=colors, capsize=3)
axes[0].set(xlabel="faithfulness = insertion AUC − deletion AUC", title="Table 1 in miniature")
frac = np.linspace(0, 1, CONFIG["steps"] + 1)
for name in ("WAM-IG", "Integrated Gradients"):
    c = plotting.PALETTE[0] if name.startswith("WAM") else plotting.PALETTE[7]
    axes[1].plot(frac, curves[name]["insertion"], c=c, label=f"{name}: insertion")
    axes[1].plot(frac, curves[name]["deletion"], c=c, ls="--", label=f"{name}: deletion")
axes[1].set(
    xlabel="fraction of features inserted / deleted",
    ylabel="p(true class)",
    title="Curves (first seed)",
)
axes[1].legend(fontsize=8)
plotting.panel_labels(axes)
fig.suptitle("In the wavelet domain, insertion rises and deletion falls faster")
plt.show()

# %% [markdown]
# **What to see.** (a) The three WAM variants score higher than the pixel methods (error bars:
# spread over training seeds), as in the paper's image column, where the gap was much larger
# (0.37 against at most 0.06 with an ImageNet EfficientNet). But so does ranking the wavelet
# coefficients by the input's own magnitude |z|, with no model at all (red): on small digits,
# energy compaction alone is as faithful as WAM-IG on this protocol; a random ranking (red,
# at the bottom) is not. (b) A few percent of the wavelet
# coefficients, inserted first, already restore the class; deleting them destroys it.

# %% [markdown]
# ## Claim check
#
# In every seed, WAM-IG's faithfulness is above every pixel baseline's (different protocols: an
# illustration). And the test that decides whether the model matters: on one protocol, WAM-IG
# must beat the model-free |z| ranking by at least 0.01 in every seed (*not reproduced* if it
# does not).

# %%
wide = table.pivot(index="seed", columns="method", values="faithfulness")
pixel = ["Saliency", "Integrated Gradients", "SmoothGrad"]
margin = wide["WAM-IG"] - wide[pixel].max(axis=1)
assert np.isfinite(wide.to_numpy()).all(), wide  # every method scored on every seed
runtime_s = time.perf_counter() - t_start
claim(
    "wam/1_images/wam_ig_more_faithful",
    "WAM-IG's faithfulness (insertion minus deletion AUC) exceeds the best pixel-domain method's "
    "for every training seed of the digits CNN",
    paper="faithfulness WAM-IG 0.370 vs best pixel method 0.061 (Table 1, ImageNet)",
    value=margin.to_numpy(),
    check=greater(0.0),
    verdict="illustrated",
    caveat="the two domains are not one protocol: deleting a wavelet coefficient removes a "
    f"pattern, a pixel a point; ranking by |z| with no model scores "
    f"{summary.faithfulness['|z| (no model)']:.3f} on the wavelet protocol, as much as WAM-IG "
    "(next claim)",
    numbers={
        "WAM-IG": summary.faithfulness["WAM-IG"],
        "best pixel method": summary.faithfulness[pixel].max(),
        "WAM-SG": summary.faithfulness["WAM-SG"],
    },
    fmt=".3f",
)
claim(
    "wam/1_images/wam_ig_beats_energy",
    "On the same wavelet-domain protocol, WAM-IG is more faithful than ranking the coefficients "
    "by the input's own magnitude |z| (no model): by at least 0.01, in every training seed",
    paper="faithfulness WAM-IG 0.370 (Table 1; no model-free ranking in the paper)",
    value=(wide["WAM-IG"] - wide["|z| (no model)"]).to_numpy(),
    check=greater(0.01),
    verdict="not reproduced",
    caveat=f"|z| alone scores {summary.faithfulness['|z| (no model)']:.3f}, WAM-IG "
    f"{summary.faithfulness['WAM-IG']:.3f}: on this protocol the model adds nothing measurable "
    "to the ranking (a random ranking scores "
    f"{summary.faithfulness['random ranking']:.3f}); the lead over pixel methods comes from "
    "the wavelet protocol and energy compaction",
    numbers={"|z|": summary.faithfulness["|z| (no model)"]},
    fmt=".3f",
)
glue("acc", acc)
glue("faith_wam_ig", float(summary.faithfulness["WAM-IG"]))
glue("faith_wam_sg", float(summary.faithfulness["WAM-SG"]))
glue("faith_ig", float(summary.faithfulness["Integrated Gradients"]))
glue("faith_pixel_best", float(summary.faithfulness[pixel].max()))
glue("ins_wam_ig", float(summary.insertion["WAM-IG"]))
glue("del_wam_ig", float(summary.deletion["WAM-IG"]))
glue("margin_min", float(margin.min()))
for name, key in [
    ("Saliency", "sal"),
    ("Integrated Gradients", "ig"),
    ("SmoothGrad", "sg"),
    ("WAM-IG", "wamig"),
    ("WAM-SG", "wamsg"),
]:
    for col in ("insertion", "deletion", "faithfulness"):
        glue(f"{key}_{col[:3]}", float(summary.loc[name, col]))
glue("runtime_s", runtime_s)
