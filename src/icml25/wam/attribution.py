"""WAM: attributions with respect to wavelet coefficients, scale importance, insertion/deletion.

``wam(model, x, target)`` differentiates the class-``target`` logit of ``model(idwt(z))`` with
respect to every coefficient of z = dwt(x) (Kasmi et al., ICML 2025). Variants:
``"grad"`` (the plain gradient, signed), ``"smooth"`` (SmoothGrad: mean |gradient| over
``n_samples`` copies of x with Gaussian noise of std ``noise``·(max − min)), ``"integrated"``
(Integrated Gradients along α·z, α ∈ [0, 1], baseline 0, trapezoidal rule, times z); each in
this book's ``variant="signed"`` or the authors' ``variant="official"`` (normalised |gradient|
layouts, see :func:`wam`). :func:`to_pixels` reprojects a wavelet attribution onto the input
grid so that it can be scored in the pixel domain.
"""

from __future__ import annotations

import numpy as np
import torch
import torch.nn.functional as F

from icml25.common.checks import check_choice, check_int, check_real, check_seed, check_tensor
from icml25.wam.transform import BANDS, dwt, idwt, level_labels, n_levels

METHODS = ("grad", "smooth", "integrated")
VARIANTS = ("signed", "official")


def _check_model(model) -> None:
    if not callable(model) or isinstance(model, type):
        raise TypeError(f"model must be a torch module (a callable), got {type(model).__name__}")


def _targets(model, x: torch.Tensor, target) -> torch.Tensor:
    """Class indices (B,) from an int or an integer tensor/array of shape (B,) (never rounded)."""
    if isinstance(target, (torch.Tensor, np.ndarray)):
        integral = (
            not target.is_floating_point() and not target.is_complex()
            if isinstance(target, torch.Tensor)
            else np.issubdtype(target.dtype, np.integer)
        )
        if not integral or target.dtype in (torch.bool, np.bool_):
            raise TypeError(f"target must hold integer class indices, got dtype {target.dtype}")
    else:
        target = check_int("target", target, None)
    try:
        with torch.no_grad():
            n_classes = model(x[:1]).shape[1]
    except RuntimeError as err:
        raise ValueError(f"x of shape {tuple(x.shape)} does not fit the model: {err}") from None
    if not isinstance(target, (torch.Tensor, np.ndarray)):
        check_int("target", target, 0, n_classes - 1)
    t = torch.as_tensor(target).long().reshape(-1)
    if t.numel() == 1:
        t = t.expand(x.shape[0])
    if t.shape != (x.shape[0],):
        raise ValueError(f"target must be an int or a ({x.shape[0]},) tensor, got {tuple(t.shape)}")
    if int(t.min()) < 0 or int(t.max()) >= n_classes:
        raise ValueError(f"target must lie in 0..{n_classes - 1}, got {t.tolist()}")
    return t


def _grads(model, coeffs, target, wavelet, ndim):
    z = [c.detach().clone().requires_grad_(True) for c in coeffs]
    out = model(idwt(z, wavelet, ndim))
    score = out.gather(1, target[:, None]).sum()
    return list(torch.autograd.grad(score, z))


def _normalised_abs(coeffs: list[torch.Tensor]) -> list[torch.Tensor]:
    """The official code's layout of a coefficient list: per image and sub-band, |channel mean|
    divided by its maximum (a sub-band that is all zero stays zero), broadcast back to (B, C, ...).
    """
    out = []
    for c in coeffs:
        m = c.mean(dim=1, keepdim=True).abs()
        peak = m.flatten(1).amax(dim=1).reshape(-1, *[1] * (m.ndim - 1))
        out.append((m / torch.where(peak > 0, peak, torch.ones_like(peak))).expand_as(c))
    return out


def wam(
    model,
    x: torch.Tensor,
    target,
    wavelet: str = "haar",
    level: int = 3,
    ndim: int = 2,
    method: str = "grad",
    n_samples: int = 25,
    noise: float = 0.25,
    variant: str = "signed",
    seed: int = 0,
) -> list[torch.Tensor]:
    """Wavelet attribution map of ``model`` at x (B, C, *spatial): same structure as ``dwt(x)``.

    ``target`` is an int class or an integer tensor (B,); ``noise`` >= 0 (a fraction of the
    range of x) sets SmoothGrad's noise, drawn from a generator seeded by ``seed``.

    ``variant="signed"`` (this book's default) is the textbook estimator: the signed gradient
    ∂f_y/∂z; SmoothGrad's mean |gradient| with σ = noise·(max − min) over the batch; IG as
    z ⊙ ∫ ∂f_y(IDWT(αz))/∂z dα (trapezoid on ``n_samples`` + 1 points), which is complete
    (sums to f_y(x) − f_y(0)).

    ``variant="official"`` follows ``lib/wam_2D.py`` of the authors' code: every gradient is
    replaced by its *layout*, |channel mean| normalised by its maximum per image and sub-band;
    SmoothGrad averages those layouts with σ_i = noise·(max x_i − min x_i) per image; IG is the
    layout of |z| times the trapezoidal integral of the layouts at αz, α on ``n_samples``
    points of [0, 1] (so ``n_samples`` >= 2), which is not signed and not complete. The channel
    mean is broadcast back, so the output keeps dwt(x)'s shapes.
    """
    _check_model(model)
    method = check_choice("method", method, METHODS)
    variant = check_choice("variant", variant, VARIANTS)
    n_samples = check_int(
        "n_samples", n_samples, 2 if (variant, method) == ("official", "integrated") else 1
    )
    noise = check_real("noise", noise, 0.0)
    seed = check_seed("seed", seed)
    coeffs = dwt(x, wavelet, level, ndim)
    t = _targets(model, x, target)
    official = variant == "official"

    def grads(z: list[torch.Tensor]) -> list[torch.Tensor]:
        g_ = _grads(model, z, t, wavelet, ndim)
        return _normalised_abs(g_) if official else g_

    if method == "grad":
        return grads(coeffs)
    if method == "smooth":
        dims = tuple(range(1, x.ndim))
        if official:  # one σ per image, as the official smooth_gradcam
            span = (x.amax(dim=dims, keepdim=True) - x.amin(dim=dims, keepdim=True)).detach()
        else:
            span = (x.max() - x.min()).detach()
        sigma = noise * span
        g = torch.Generator().manual_seed(seed)
        acc = [torch.zeros_like(c) for c in coeffs]
        for _ in range(n_samples):
            noisy = x + sigma * torch.randn(x.shape, generator=g, dtype=x.dtype)
            for a, gr in zip(acc, grads(dwt(noisy, wavelet, level, ndim)), strict=True):
                a += gr.abs() / n_samples
        return acc
    if official:
        alphas = torch.linspace(0, 1, n_samples)
        weights = torch.full((n_samples,), 1.0 / (n_samples - 1))
        weights[0] = weights[-1] = 0.5 / (n_samples - 1)
    else:
        alphas = torch.linspace(0, 1, n_samples + 1)
        weights = torch.full((n_samples + 1,), 1.0 / n_samples)
        weights[0] = weights[-1] = 0.5 / n_samples
    acc = [torch.zeros_like(c) for c in coeffs]
    for a_, w_ in zip(alphas, weights, strict=True):
        for a, gr in zip(acc, grads([a_ * c for c in coeffs]), strict=True):
            a += w_ * gr
    scale = _normalised_abs(coeffs) if official else coeffs
    return [a * c for a, c in zip(acc, scale, strict=True)]


def to_pixels(attr: list[torch.Tensor], ndim: int = 2) -> torch.Tensor:
    """Wavelet attributions reprojected onto the input grid, for pixel-domain evaluation.

    Each coefficient's |attribution| is spread over the block of input samples that its Haar
    support covers (nearest upsampling: a level-j coefficient covers 2^j samples per axis, the
    approximation 2^J) and the sub-bands and levels are summed, as the official reprojection
    sums its upsampled per-level maps. Returns a tensor (B, C, *spatial) shaped like the input.
    """
    level = n_levels(attr, ndim, "attr")
    size = tuple(attr[0].shape[2:])
    full = tuple(s * 2**level for s in size)
    out = torch.zeros(attr[0].shape[:2] + full, dtype=attr[0].dtype)
    for a in attr:
        out += F.interpolate(a.detach().abs(), size=full, mode="nearest")
    return out


BASELINES = ("magnitude", "random")


def model_free_attribution(
    x: torch.Tensor,
    kind: str = "magnitude",
    wavelet: str = "haar",
    level: int = 3,
    ndim: int = 2,
    seed: int = 0,
) -> list[torch.Tensor]:
    """Attributions that use no model, shaped like :func:`wam`'s: the controls of the chapter.

    ``"magnitude"``: |z|, the input's own wavelet coefficients (energy compaction alone);
    ``"random"``: i.i.d. U(0, 1) scores (a random ranking), seeded by ``seed``. With
    ``"random"`` a level's share of the mass is its share of the coefficients (level 1 of a 2-D
    transform holds 3/4 of them).
    """
    kind = check_choice("kind", kind, BASELINES)
    seed = check_seed("seed", seed)
    coeffs = dwt(x, wavelet, level, ndim)
    if kind == "magnitude":
        return [c.abs() for c in coeffs]
    g = torch.Generator().manual_seed(seed)
    return [torch.rand(c.shape, generator=g, dtype=c.dtype) for c in coeffs]


def _check_attr_like(attr, coeffs: list[torch.Tensor], where: str = "") -> None:
    """``attr`` must be a list of finite tensors shaped like ``coeffs`` (= dwt(x))."""
    if (
        not isinstance(attr, list)
        or len(attr) != len(coeffs)
        or any(
            not isinstance(a, torch.Tensor) or a.shape != c.shape
            for a, c in zip(attr, coeffs, strict=True)
        )
    ):
        raise ValueError(f"attr must be a list shaped like dwt(x){where}")
    for a in attr:
        check_tensor("attr", a)


def region_mass_ratio(
    attr: list[torch.Tensor], region: torch.Tensor, ndim: int = 2, levels=None
) -> float:
    """How much more of |attr| sits over a region than a uniform attribution would put there.

    ``region`` is a boolean tensor (B, *spatial) on the input grid (the planted clicks, the
    object). A coefficient is "over the region" if its Haar support (a block of 2^j samples per
    axis at level j, 2^J for the approximation) touches it. Returns (share of |attr| over the
    region) / (share of coefficients over it), pooled over the batch, channels summed: 1 for a
    random ranking in expectation, larger when the mass concentrates there. ``levels`` restricts
    both shares to some labels of :func:`level_labels` (e.g. ``["level 1"]``); None: all.
    """
    level = n_levels(attr, ndim, "attr")
    labels = level_labels(level, ndim)
    check_tensor("region", region)
    size = tuple(s * 2**level for s in attr[0].shape[2:])
    if region.dtype != torch.bool or tuple(region.shape) != (attr[0].shape[0], *size):
        raise ValueError(
            f"region must be a boolean tensor (B, *spatial) = {(attr[0].shape[0], *size)}, got "
            f"{region.dtype} {tuple(region.shape)}"
        )
    if levels is None:
        levels = sorted(set(labels))
    if (
        not isinstance(levels, (list, tuple))
        or not levels
        or any(lv not in labels for lv in levels)
    ):
        raise ValueError(f"levels must be a non-empty list of labels from {sorted(set(labels))}")
    on_mass = total_mass = on_cells = cells = 0.0
    for lab, a in zip(labels, attr, strict=True):
        if lab not in levels:
            continue
        shape = a.shape[2:]
        # any() over each coefficient's block of samples: max-pool the region by the block size
        covered = (
            F.adaptive_max_pool3d(
                region.float().reshape(region.shape[0], 1, *[1] * (3 - ndim), *size),
                (*[1] * (3 - ndim), *shape),
            )
            .reshape(region.shape[0], *shape)
            .bool()
        )
        m = a.detach().abs().sum(1)
        on_mass += float((m * covered).sum())
        total_mass += float(m.sum())
        on_cells += float(covered.sum())
        cells += covered.numel()
    if total_mass == 0:
        raise ValueError("attr is all zeros on the chosen levels")
    if on_cells == 0:
        raise ValueError("region covers no coefficient")
    return (on_mass / total_mass) / (on_cells / cells)


def keep_top(
    x: torch.Tensor,
    attr: list[torch.Tensor],
    keep: float,
    wavelet: str = "haar",
    level: int = 3,
    ndim: int = 2,
) -> torch.Tensor:
    """x rebuilt from only the fraction ``keep`` ∈ (0, 1] of its wavelet coefficients with the
    largest |attr| (per example, all sub-bands pooled); the others are set to 0. Shape of x."""
    keep = check_real("keep", keep, 0.0, 1.0, low_open=True)
    coeffs = dwt(x, wavelet, level, ndim)
    _check_attr_like(attr, coeffs)
    score = torch.cat([a.detach().abs().flatten(1) for a in attr], 1)
    k = max(1, int(keep * score.shape[1]))
    mask = torch.zeros_like(score, dtype=torch.bool).scatter_(1, score.topk(k, 1).indices, True)
    flat = torch.cat([c.flatten(1) for c in coeffs], 1) * mask
    parts = torch.split(flat, [c[0].numel() for c in coeffs], 1)
    return idwt([p.reshape(c.shape) for p, c in zip(parts, coeffs, strict=True)], wavelet, ndim)


def scale_importance(attr: list[torch.Tensor], ndim: int = 2) -> dict[str, float]:
    """Share of the total |attribution| per scale: {"approx", "level J", ..., "level 1"}, sum 1."""
    level = n_levels(attr, ndim, "attr")
    labels = level_labels(level, ndim)
    mass: dict[str, float] = {}
    for lab, a in zip(labels, attr, strict=True):
        mass[lab] = mass.get(lab, 0.0) + float(a.detach().abs().sum())
    total = sum(mass.values())
    if total == 0:
        raise ValueError("attr is all zeros")
    return {k: v / total for k, v in mass.items()}


def insertion_deletion(
    model,
    x: torch.Tensor,
    target,
    attr,
    domain: str = "wavelet",
    steps: int = 16,
    wavelet: str = "haar",
    level: int = 3,
    ndim: int = 2,
    spacing: str = "linear",
) -> dict:
    """Insertion and deletion curves (Petsiuk et al.): the target's softmax probability as the
    most-attributed features are inserted into a zero input / deleted from x, in ``steps`` chunks.

    ``spacing="linear"`` inserts n/steps features per step; ``"log"`` spaces the fractions
    geometrically from 1/n to 1, which resolves the first few percent of the features, where a
    wavelet ranking decides (with linear steps the first step may already reach the curve's
    ceiling). The AUCs are trapezoids over the actual fractions in both cases.

    ``domain="wavelet"``: features are the wavelet coefficients, ``attr`` a list like ``dwt(x)``;
    ``domain="pixel"``: features are the input entries, ``attr`` a tensor shaped like x. Returns
    curves (steps + 1,) averaged over the batch (fewer with ``"log"`` when rounding merges
    points), their areas (trapezoid on [0, 1]) and
    ``faithfulness`` = insertion AUC − deletion AUC, and the ``fractions`` (steps + 1,) of
    features inserted at each point. The two domains are different experiments. ``steps`` is at
    most the number of features (one feature per step at most).
    """
    _check_model(model)
    domain = check_choice("domain", domain, ("wavelet", "pixel"))
    spacing = check_choice("spacing", spacing, ("linear", "log"))
    steps = check_int("steps", steps)
    check_tensor("x", x)
    t = _targets(model, x, target)
    if domain == "wavelet":
        coeffs = dwt(x, wavelet, level, ndim)
        _check_attr_like(attr, coeffs, " for domain='wavelet'")
        flat = torch.cat([c.reshape(x.shape[0], -1) for c in coeffs], dim=1)
        score = torch.cat([a.detach().abs().reshape(x.shape[0], -1) for a in attr], dim=1)
        sizes = [c[0].numel() for c in coeffs]

        def rebuild(v):
            parts = torch.split(v, sizes, dim=1)
            return idwt(
                [p.reshape(c.shape) for p, c in zip(parts, coeffs, strict=True)], wavelet, ndim
            )
    else:
        if not isinstance(attr, torch.Tensor) or attr.shape != x.shape:
            raise ValueError("attr must be a tensor shaped like x for domain='pixel'")
        check_tensor("attr", attr)
        flat = x.reshape(x.shape[0], -1)
        score = attr.detach().abs().reshape(x.shape[0], -1)

        def rebuild(v):
            return v.reshape(x.shape)

    order = score.argsort(dim=1, descending=True)
    n = flat.shape[1]
    if steps > n:
        raise ValueError(f"steps must be at most the number of features ({n}), got {steps}")
    if spacing == "linear":
        ks = [round(s * n / steps) for s in range(steps + 1)]
    else:
        ks = [0, *np.unique(np.round(np.geomspace(1, n, steps)).astype(int)).tolist()]
    fracs = np.array(ks, dtype=float) / n
    ins, dele = [], []
    with torch.no_grad():
        for k in ks:
            keep = torch.zeros_like(flat, dtype=torch.bool)
            keep.scatter_(1, order[:, :k], True)
            for curve, v in ((ins, flat * keep), (dele, flat * ~keep)):
                p = F.softmax(model(rebuild(v)), dim=1).gather(1, t[:, None]).mean()
                curve.append(float(p))
    ins_arr, del_arr = np.array(ins), np.array(dele)
    ins_auc = float(np.trapezoid(ins_arr, fracs))
    del_auc = float(np.trapezoid(del_arr, fracs))
    return {
        "insertion": ins_arr,
        "deletion": del_arr,
        "fractions": fracs,
        "insertion_auc": ins_auc,
        "deletion_auc": del_auc,
        "faithfulness": ins_auc - del_auc,
    }


__all__ = [
    "BANDS",
    "BASELINES",
    "METHODS",
    "VARIANTS",
    "insertion_deletion",
    "keep_top",
    "model_free_attribution",
    "region_mass_ratio",
    "scale_importance",
    "to_pixels",
    "wam",
]
