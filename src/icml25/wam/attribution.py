"""WAM: attributions with respect to wavelet coefficients, scale importance, insertion/deletion.

``wam(model, x, target)`` differentiates the class-``target`` logit of ``model(idwt(z))`` with
respect to every coefficient of z = dwt(x) (Kasmi et al., ICML 2025). Variants:
``"grad"`` (the plain gradient, signed), ``"smooth"`` (SmoothGrad: mean |gradient| over
``n_samples`` copies of x with Gaussian noise of std ``noise``·(max − min)), ``"integrated"``
(Integrated Gradients along α·z, α ∈ [0, 1], baseline 0, trapezoidal rule, times z).
"""

from __future__ import annotations

import numpy as np
import torch
import torch.nn.functional as F

from icml25.common.checks import check_choice, check_int, check_real, check_seed, check_tensor
from icml25.wam.transform import BANDS, dwt, idwt, level_labels, n_levels

METHODS = ("grad", "smooth", "integrated")


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
) -> list[torch.Tensor]:
    """Wavelet attribution map of ``model`` at x (B, C, *spatial): same structure as ``dwt(x)``.

    ``target`` is an int class or an integer tensor (B,); ``noise`` >= 0 (a fraction of the
    range of x) sets SmoothGrad's noise.
    """
    _check_model(model)
    method = check_choice("method", method, METHODS)
    n_samples = check_int("n_samples", n_samples)
    noise = check_real("noise", noise, 0.0)
    coeffs = dwt(x, wavelet, level, ndim)
    t = _targets(model, x, target)
    if method == "grad":
        return _grads(model, coeffs, t, wavelet, ndim)
    if method == "smooth":
        sigma = noise * float(x.max() - x.min())
        g = torch.Generator().manual_seed(0)
        acc = [torch.zeros_like(c) for c in coeffs]
        for _ in range(n_samples):
            noisy = x + sigma * torch.randn(x.shape, generator=g)
            for a, gr in zip(
                acc, _grads(model, dwt(noisy, wavelet, level, ndim), t, wavelet, ndim), strict=True
            ):
                a += gr.abs() / n_samples
        return acc
    alphas = torch.linspace(0, 1, n_samples + 1)
    weights = torch.full((n_samples + 1,), 1.0 / n_samples)
    weights[0] = weights[-1] = 0.5 / n_samples
    acc = [torch.zeros_like(c) for c in coeffs]
    for a_, w_ in zip(alphas, weights, strict=True):
        for a, gr in zip(
            acc, _grads(model, [a_ * c for c in coeffs], t, wavelet, ndim), strict=True
        ):
            a += w_ * gr
    return [a * c for a, c in zip(acc, coeffs, strict=True)]


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


def _auc(curve: np.ndarray) -> float:
    return float(np.trapezoid(curve, dx=1.0 / (len(curve) - 1)))


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
) -> dict:
    """Insertion and deletion curves (Petsiuk et al.): the target's softmax probability as the
    most-attributed features are inserted into a zero input / deleted from x, in ``steps`` chunks.

    ``domain="wavelet"``: features are the wavelet coefficients, ``attr`` a list like ``dwt(x)``;
    ``domain="pixel"``: features are the input entries, ``attr`` a tensor shaped like x. Returns
    curves (steps + 1,) averaged over the batch, their areas (trapezoid on [0, 1]) and
    ``faithfulness`` = insertion AUC − deletion AUC. The two domains are different experiments.
    ``steps`` is at most the number of features (one feature per step at most).
    """
    _check_model(model)
    domain = check_choice("domain", domain, ("wavelet", "pixel"))
    steps = check_int("steps", steps)
    check_tensor("x", x)
    t = _targets(model, x, target)
    if domain == "wavelet":
        coeffs = dwt(x, wavelet, level, ndim)
        if (
            not isinstance(attr, list)
            or len(attr) != len(coeffs)
            or any(
                not isinstance(a, torch.Tensor) or a.shape != c.shape
                for a, c in zip(attr, coeffs, strict=True)
            )
        ):
            raise ValueError("attr must be a list shaped like dwt(x) for domain='wavelet'")
        for a in attr:
            check_tensor("attr", a)
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
    ins, dele = [], []
    with torch.no_grad():
        for s in range(steps + 1):
            k = round(s * n / steps)
            keep = torch.zeros_like(flat, dtype=torch.bool)
            keep.scatter_(1, order[:, :k], True)
            for curve, v in ((ins, flat * keep), (dele, flat * ~keep)):
                p = F.softmax(model(rebuild(v)), dim=1).gather(1, t[:, None]).mean()
                curve.append(float(p))
    ins_arr, del_arr = np.array(ins), np.array(dele)
    return {
        "insertion": ins_arr,
        "deletion": del_arr,
        "insertion_auc": _auc(ins_arr),
        "deletion_auc": _auc(del_arr),
        "faithfulness": _auc(ins_arr) - _auc(del_arr),
    }


__all__ = [
    "BANDS",
    "BASELINES",
    "METHODS",
    "insertion_deletion",
    "model_free_attribution",
    "scale_importance",
    "wam",
]
