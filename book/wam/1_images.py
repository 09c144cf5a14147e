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
    to_pixels,
    wam,
)

t_start = time.perf_counter()
SCALE = setup(seed=0)
CONFIG = {
    "small": {"epochs": 4, "n_eval": 64, "steps": 24, "n_samples": 16, "seeds": [0, 1, 2]},
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
im = axes[1].imshow(sal[0, 0], cmap="magma")
fig.colorbar(im, ax=axes[1], shrink=0.7, label="|gradient|")
axes[1].set_title("pixel saliency")
im = axes[2].imshow(dyadic_layout(attr), cmap="magma", vmin=0, vmax=1)
fig.colorbar(im, ax=axes[2], shrink=0.7, label="|WAM-IG| / sub-band max")
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
# this digit most of the integrated attribution sits in the approximation. Read it with care:
# WAM-IG multiplies by z, and an upsampled 8×8 digit keeps most of its energy there too
# (notebook 2 compares such shares with the input's own |z|).

# %% tags=["hide-input"]
maps = scale_maps(attr)
fig, axes = plt.subplots(1, len(maps), figsize=plotting.figsize("wide"))
for ax, (lab, m) in zip(axes, maps.items(), strict=True):
    ax.imshow(x[0, 0], cmap="gray_r", alpha=0.35)
    im = ax.imshow(m, cmap="magma", alpha=0.75)
    fig.colorbar(im, ax=ax, shrink=0.6)
    ax.set_title(f"{lab}: {100 * share[lab]:.0f} % of |WAM|")
    ax.set_xticks([])
    ax.set_yticks([])
fig.suptitle("Per-scale maps: where each scale's evidence lies")
plt.show()

# %% [markdown]
# **What to see.** Each map sums one scale's coefficients back onto the image grid: the coarse
# maps light up broad parts of the stroke, the finest one its edges. The percentages are the
# scale shares of panel (d) above; the colour bars are in units of |WAM-IG| (each map has its
# own range). Summing all four maps gives `to_pixels(attr)`, the pixel-domain reprojection
# scored below.

# %% [markdown]
# ## Faithfulness: insertion and deletion
#
# Rank the features by |attribution|, then **insert** them, most important first, into an empty
# input, or **delete** them from the real one, and follow the softmax probability of the true
# class: a faithful attribution makes insertion rise fast and deletion fall fast. Faithfulness is
# insertion AUC − deletion AUC. We use the standard trapezoid AUC, not the paper's curve-max
# normalisation, and repeat over three training seeds. The fractions of features are spaced
# **logarithmically** (from one feature to all of them): with 16 equal steps, the first step
# would insert 64 of the 1,024 coefficients, about the whole approximation and level 3, and
# every ranking that starts there would hit the curve's ceiling at once.
#
# **Two protocols.** For WAM the paper's features are wavelet coefficients, for the pixel
# methods pixels: the two are not the same experiment (a deleted coefficient removes a pattern,
# a deleted pixel a point), as the paper also notes. So every WAM is scored twice: on the
# **wavelet protocol**, and on the **pixel protocol** after `to_pixels` reprojects it onto the
# image grid (each coefficient's |attribution| spread over the pixels it covers, summed over
# scales). Each protocol gets its model-free controls: |z| (the image's own wavelet
# magnitudes) and a random ranking of coefficients; |x| (the pixel intensities) and a random
# ranking of pixels.
#
# **Two estimators.** `variant="signed"` is the textbook WAM (signed gradient, IG = z ⊙ the
# path integral, complete); `variant="official"` is what the authors' `lib/wam_2D.py` computes
# for Table 1: |gradient| layouts normalised per sub-band, averaged for SmoothGrad, and for IG
# the normalised |z| times the integral of those layouts. µ-fidelity, the paper's third metric,
# is not computed here: it needs hundreds of forward passes per image on random superpixel
# subsets, more than this notebook's budget, and it is exercise 5.

# %%
FREE_W = ("|z| (no model)", "random coefficients")
FREE_P = ("|x| (no model)", "random pixels")
rows = []
curves = {}
for seed in CONFIG["seeds"]:
    model = SmallCNN(1, 10, size=32, ndim=2)
    train_classifier(model, Xtr, ytr, epochs=CONFIG["epochs"], seed=seed, progress=False)
    xe = torch.tensor(Xte[: CONFIG["n_eval"]])
    te = torch.tensor(yte[: CONFIG["n_eval"]])
    ns, steps = CONFIG["n_samples"], CONFIG["steps"]
    pixel_methods = {
        "Saliency": Saliency(model).attribute(xe, target=te, abs=True),
        "Integrated Gradients": IntegratedGradients(model).attribute(xe, target=te, n_steps=ns),
        "SmoothGrad": NoiseTunnel(Saliency(model)).attribute(
            xe, nt_type="smoothgrad", nt_samples=ns, stdevs=0.25, target=te
        ),
        # model-free controls on the pixel protocol: the intensities, and chance
        FREE_P[0]: xe.abs(),
        FREE_P[1]: torch.rand(xe.shape, generator=torch.Generator().manual_seed(seed)),
    }
    wavelet_methods = {
        "WAM (gradient)": wam(model, xe, te, method="grad"),
        "WAM-SG": wam(model, xe, te, method="smooth", n_samples=ns, seed=seed),
        "WAM-IG": wam(model, xe, te, method="integrated", n_samples=ns),
        "WAM-SG (official)": wam(
            model, xe, te, method="smooth", n_samples=ns, seed=seed, variant="official"
        ),
        "WAM-IG (official)": wam(
            model, xe, te, method="integrated", n_samples=ns, variant="official"
        ),
        # model-free controls on the wavelet protocol: the input's own wavelet energy, and chance
        FREE_W[0]: model_free_attribution(xe, "magnitude"),
        FREE_W[1]: model_free_attribution(xe, "random", seed=seed),
    }
    scored = [(name, "pixel", a) for name, a in pixel_methods.items()]
    for name, a in wavelet_methods.items():
        scored += [(name, "wavelet", a), (name, "pixel", to_pixels(a))]
    for name, protocol, a in scored:
        res = insertion_deletion(model, xe, te, a, domain=protocol, steps=steps, spacing="log")
        rows.append(
            {
                "method": name,
                "protocol": protocol,
                "seed": seed,
                "insertion": res["insertion_auc"],
                "deletion": res["deletion_auc"],
                "faithfulness": res["faithfulness"],
            }
        )
        curves[name, protocol] = res  # the last seed's curves are drawn
table = pd.DataFrame(rows)
summary = table.groupby(["protocol", "method"])[["insertion", "deletion", "faithfulness"]].mean()
summary.round(3)

# %% tags=["hide-input"]
fig, axes = plt.subplots(1, 3, figsize=(12, 4.6), gridspec_kw={"width_ratios": [1, 1, 0.9]})
spread = table.groupby(["protocol", "method"]).faithfulness.std()
for ax, protocol, free in ((axes[0], "wavelet", FREE_W), (axes[1], "pixel", FREE_W + FREE_P)):
    s_ = summary.loc[protocol].faithfulness.sort_values()
    colors = [
        plotting.PALETTE[3]
        if m in free
        else plotting.PALETTE[0]
        if m.startswith("WAM")
        else plotting.PALETTE[7]
        for m in s_.index
    ]
    ax.barh(list(s_.index), s_, xerr=spread.loc[protocol].loc[s_.index], color=colors, capsize=3)
    ax.set(xlabel="faithfulness = insertion − deletion AUC", xlim=(-0.1, 0.9))
    ax.tick_params(axis="y", labelsize=8)
axes[0].set_title("wavelet protocol (features: coefficients)")
axes[1].set_title("pixel protocol (WAM reprojected)")
with torch.no_grad():  # the curves' ceiling (the whole image) and floor (an all-zero input)
    ceiling = float(torch.softmax(model(xe), 1).gather(1, te[:, None]).mean())
    floor = float(torch.softmax(model(torch.zeros_like(xe)), 1).gather(1, te[:, None]).mean())
for (name, protocol), c in [
    (("WAM-IG", "wavelet"), plotting.PALETTE[0]),
    (("WAM-IG", "pixel"), plotting.PALETTE[2]),
    (("Integrated Gradients", "pixel"), plotting.PALETTE[7]),
]:
    res = curves[name, protocol]
    f_ = res["fractions"]
    axes[2].plot(f_, res["insertion"], c=c, label=f"{name}, {protocol}: insertion")
    axes[2].plot(f_, res["deletion"], c=c, ls="--", label=f"{name}, {protocol}: deletion")
axes[2].axhline(ceiling, c="k", lw=0.8, ls=":", label="ceiling: the whole image")
axes[2].axhline(floor, c="0.5", lw=0.8, ls=":", label="floor: an all-zero input")
axes[2].set(
    xlim=(0, 1),
    xlabel="fraction of features inserted / deleted (log scale)",
    ylabel="p(true class)",
    title="Curves (last seed)",
)
axes[2].set_xscale("symlog", linthresh=1e-3)
axes[2].set_xticks([0, 1e-3, 1e-2, 1e-1, 1], ["0", "0.001", "0.01", "0.1", "1"])
axes[2].legend(fontsize=7)
plotting.panel_labels(axes)
fig.suptitle("WAM leads only on its own protocol, and there |z| without a model does as well")
plt.show()

# %% [markdown]
# **What to see.** (a) On the wavelet protocol WAM-IG, WAM-SG and WAM (gradient) score above
# every pixel method's score in (b), as in the paper's image column, where the gap was larger
# still (0.37 against at most 0.06 with an ImageNet EfficientNet); the official WAM-SG does not
# ({glue:text}`wamsgoff_fai:.3f`). Ranking the coefficients by the input's own magnitude |z|,
# with no model at all (red), is as faithful as WAM-IG ({glue:text}`z_fai:.3f` against
# {glue:text}`wamig_fai:.3f`), even with the first percent of the features resolved: on small
# digits, energy compaction alone does it; a random ranking (red, at the bottom) does not. The
# official estimators (normalised |gradient| layouts) score below the signed ones here:
# WAM-IG (official) {glue:text}`wamigoff_fai:.3f`. (b) On the pixel protocol, reprojected
# WAM-IG ({glue:text}`px_wamig_fai:.3f`) falls below pixel Integrated Gradients
# ({glue:text}`px_ig_fai:.3f`), and ranking the pixels by their intensity |x| with no model
# ({glue:text}`px_x_fai:.3f`) is about as good as pixel IG: on these digits, the ink is the
# evidence. (c) Inserting the top 1 % of the wavelet coefficients already brings the class
# probability most of the way to its ceiling (dotted: the whole image), and deleting them takes
# it near the floor (an all-zero input); pixels need far more.

# %% [markdown]
# ## Claim check
#
# In every seed, WAM-IG's faithfulness on its wavelet protocol is above every pixel baseline's
# on theirs (different protocols: an illustration). Then the two tests on *one* protocol each:
# on the wavelet protocol, WAM-IG must beat the model-free |z| ranking by at least 0.01 in
# every seed; on the pixel protocol, reprojected WAM-IG must beat the best pixel method in every
# seed. Each is *not reproduced* if it does not hold.

# %%
wide = table[table.protocol == "wavelet"].pivot(
    index="seed", columns="method", values="faithfulness"
)
wide_px = table[table.protocol == "pixel"].pivot(
    index="seed", columns="method", values="faithfulness"
)
pixel = ["Saliency", "Integrated Gradients", "SmoothGrad"]
margin = wide["WAM-IG"] - wide_px[pixel].max(axis=1)
fw, fp = summary.loc["wavelet"].faithfulness, summary.loc["pixel"].faithfulness
assert np.isfinite(table.faithfulness.to_numpy()).all()  # every method scored on every seed
assert len(table) == len(CONFIG["seeds"]) * (5 + 2 * 7), len(table)
runtime_s = time.perf_counter() - t_start
claim(
    "wam/1_images/wam_ig_more_faithful",
    "WAM-IG's faithfulness (insertion minus deletion AUC) on the wavelet protocol exceeds the "
    "best pixel-domain method's on the pixel protocol, for every training seed of the digits CNN",
    paper="faithfulness WAM-IG 0.370 vs best pixel method 0.061 (Table 1, ImageNet)",
    value=margin.to_numpy(),
    check=greater(0.0),
    verdict="illustrated",
    caveat="the two domains are not one protocol: deleting a wavelet coefficient removes a "
    f"pattern, a pixel a point; ranking by |z| with no model scores {fw[FREE_W[0]]:.3f} on the "
    f"wavelet protocol, as much as WAM-IG, and on the pixel protocol WAM-IG falls behind "
    "(next two claims)",
    numbers={
        "WAM-IG": fw["WAM-IG"],
        "best pixel method": fp[pixel].max(),
        "WAM-SG": fw["WAM-SG"],
        "WAM-IG (official)": fw["WAM-IG (official)"],
    },
    fmt=".3f",
)
claim(
    "wam/1_images/wam_ig_beats_energy",
    "On the same wavelet-domain protocol, WAM-IG is more faithful than ranking the coefficients "
    "by the input's own magnitude |z| (no model): by at least 0.01, in every training seed",
    paper="faithfulness WAM-IG 0.370 (Table 1; no model-free ranking in the paper)",
    value=(wide["WAM-IG"] - wide[FREE_W[0]]).to_numpy(),
    check=greater(0.01),
    verdict="not reproduced",
    caveat=f"|z| alone scores {fw[FREE_W[0]]:.3f}, WAM-IG {fw['WAM-IG']:.3f} and the official "
    f"estimator {fw['WAM-IG (official)']:.3f}: on this protocol the model adds nothing "
    f"measurable to the ranking (a random ranking scores {fw[FREE_W[1]]:.3f}); the lead over "
    "pixel methods comes from the wavelet protocol and energy compaction",
    numbers={"|z|": fw[FREE_W[0]], "WAM-IG (official)": fw["WAM-IG (official)"]},
    fmt=".3f",
)
claim(
    "wam/1_images/wam_ig_pixel_protocol",
    "On the pixel protocol (WAM-IG reprojected onto the pixels with to_pixels), WAM-IG is more "
    "faithful than the best pixel-domain method, in every training seed",
    paper="WAM is more faithful than pixel-domain methods (Table 1)",
    value=(wide_px["WAM-IG"] - wide_px[pixel].max(axis=1)).to_numpy(),
    check=greater(0.0),
    verdict="not reproduced",
    caveat=f"reprojected WAM-IG scores {fp['WAM-IG']:.3f} (official {fp['WAM-IG (official)']:.3f}) "
    f"against pixel Integrated Gradients' {fp['Integrated Gradients']:.3f}, and ranking pixels by "
    f"intensity |x| with no model scores {fp[FREE_P[0]]:.3f}: on small digits the ink is the "
    "evidence, so this protocol cannot separate the methods from the input; an ImageNet-scale "
    "model is needed to test the claim",
    numbers={
        "WAM-IG on pixels": fp["WAM-IG"],
        "pixel IG": fp["Integrated Gradients"],
        "|x|": fp[FREE_P[0]],
    },
    fmt=".3f",
)
glue("acc", acc)
glue("faith_wam_ig", float(fw["WAM-IG"]))
glue("faith_wam_sg", float(fw["WAM-SG"]))
glue("faith_ig", float(fp["Integrated Gradients"]))
glue("faith_pixel_best", float(fp[pixel].max()))
glue("ins_wam_ig", float(summary.loc[("wavelet", "WAM-IG"), "insertion"]))
glue("del_wam_ig", float(summary.loc[("wavelet", "WAM-IG"), "deletion"]))
glue("margin_min", float(margin.min()))
for protocol, name, key in [
    ("pixel", "Saliency", "sal"),
    ("pixel", "Integrated Gradients", "ig"),
    ("pixel", "SmoothGrad", "sg"),
    ("pixel", FREE_P[0], "x"),
    ("wavelet", "WAM-IG", "wamig"),
    ("wavelet", "WAM-SG", "wamsg"),
    ("wavelet", "WAM-IG (official)", "wamigoff"),
    ("wavelet", "WAM-SG (official)", "wamsgoff"),
    ("wavelet", FREE_W[0], "z"),
    ("pixel", "WAM-IG", "px_wamig"),
    ("pixel", "WAM-SG", "px_wamsg"),
    ("pixel", "WAM-IG (official)", "px_wamigoff"),
    ("pixel", "WAM-SG (official)", "px_wamsgoff"),
]:
    for col in ("insertion", "deletion", "faithfulness"):
        glue(f"{key}_{col[:3]}", float(summary.loc[(protocol, name), col]))
glue("px_ig_fai", float(fp["Integrated Gradients"]))
glue("px_x_fai", float(fp[FREE_P[0]]))
glue("runtime_s", runtime_s)
