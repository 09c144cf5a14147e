"""Wavelet transforms as flat lists of tensors (1D, 2D, 3D), via ptwt; and their layouts.

``dwt(x)`` returns ``[a_J, details of level J, ..., details of level 1]``: the approximation, then
the detail sub-bands from the coarsest level J to the finest level 1; a level holds 1 sub-band in
1D, 3 (horizontal, vertical, diagonal) in 2D and 7 in 3D. Shapes: x is (B, C, *spatial) with
every spatial size divisible by 2^level; a level-j sub-band has spatial size size / 2^j.
"""

from __future__ import annotations

import numpy as np
import ptwt
import pywt
import torch
from ptwt.constants import WaveletDetailTuple2d

from icml25.common.checks import check_int

BANDS = {1: 1, 2: 3, 3: 7}
_KEYS_3D = ("aad", "ada", "add", "daa", "dad", "dda", "ddd")


def _check(x: torch.Tensor, wavelet: str, level: int, ndim: int) -> int:
    if ndim not in BANDS:
        raise ValueError(f"ndim must be 1, 2 or 3, got {ndim!r}")
    if wavelet not in pywt.wavelist(kind="discrete"):
        raise ValueError(f"wavelet must be a discrete wavelet name such as 'haar', got {wavelet!r}")
    level = check_int("level", level)
    if not isinstance(x, torch.Tensor) or x.ndim != ndim + 2:
        raise ValueError(f"x must be a tensor (B, C, *spatial) with {ndim} spatial dims")
    for size in x.shape[2:]:
        if size % 2**level:
            raise ValueError(
                f"x's spatial size {tuple(x.shape[2:])} cannot be decomposed to level {level}: "
                f"each size must be divisible by 2^level = {2**level}"
            )
    return level


def n_levels(coeffs: list[torch.Tensor], ndim: int) -> int:
    """The number of levels J of a flat coefficient list."""
    if ndim not in BANDS:
        raise ValueError(f"ndim must be 1, 2 or 3, got {ndim!r}")
    if (len(coeffs) - 1) % BANDS[ndim]:
        raise ValueError(
            f"coeffs has {len(coeffs)} tensors, not 1 + {BANDS[ndim]}·J for ndim={ndim}"
        )
    return (len(coeffs) - 1) // BANDS[ndim]


def level_labels(level: int, ndim: int) -> list[str]:
    """Label of each tensor of ``dwt``'s list: "approx", then "level J" ... "level 1"."""
    return ["approx"] + [f"level {j}" for j in range(level, 0, -1) for _ in range(BANDS[ndim])]


def dwt(
    x: torch.Tensor, wavelet: str = "haar", level: int = 3, ndim: int = 2
) -> list[torch.Tensor]:
    """Multilevel DWT of x (B, C, *spatial) as a flat list (see the module docstring)."""
    level = _check(x, wavelet, level, ndim)
    if ndim == 1:
        return list(ptwt.wavedec(x, wavelet, level=level, mode="reflect"))
    if ndim == 2:
        c = ptwt.wavedec2(x, wavelet, level=level, mode="reflect")
        return [c[0]] + [t for d in c[1:] for t in d]
    c = ptwt.wavedec3(x, wavelet, level=level, mode="reflect")
    return [c[0]] + [d[k] for d in c[1:] for k in _KEYS_3D]


def idwt(coeffs: list[torch.Tensor], wavelet: str = "haar", ndim: int = 2) -> torch.Tensor:
    """Inverse of :func:`dwt` (exact for orthogonal wavelets on power-of-2 sizes)."""
    level = n_levels(coeffs, ndim)
    b = BANDS[ndim]
    groups = [coeffs[1 + j * b : 1 + (j + 1) * b] for j in range(level)]
    if ndim == 1:
        return ptwt.waverec([coeffs[0], *[g[0] for g in groups]], wavelet)
    if ndim == 2:
        return ptwt.waverec2((coeffs[0], *[WaveletDetailTuple2d(*g) for g in groups]), wavelet)
    return ptwt.waverec3(
        (coeffs[0], *[dict(zip(_KEYS_3D, g, strict=True)) for g in groups]), wavelet
    )


def dyadic_layout(attr: list[torch.Tensor]) -> np.ndarray:
    """2D attributions placed in the standard wavelet image: approximation top left, then the
    horizontal, vertical, diagonal details of each level; |attr| averaged over batch and channels
    and each sub-band normalised by its maximum. Returns an array (size, size)."""
    level = n_levels(attr, 2)
    bands = [a.detach().abs().mean(dim=(0, 1)).numpy() for a in attr]
    bands = [b / b.max() if b.max() > 0 else b for b in bands]
    n = bands[0].shape[0] * 2**level
    out = np.zeros((n, n))
    s = bands[0].shape[0]
    out[:s, :s] = bands[0]
    for j in range(level):
        h, v, d = bands[1 + 3 * j : 4 + 3 * j]
        s = h.shape[0]
        out[:s, s : 2 * s] = h
        out[s : 2 * s, :s] = v
        out[s : 2 * s, s : 2 * s] = d
    return out


def scale_maps(attr: list[torch.Tensor]) -> dict[str, np.ndarray]:
    """Per-scale heatmaps of 2D attributions: for the approximation and each level, the |attr|
    of its sub-bands summed, averaged over batch and channels, and upsampled (nearest) to the
    input size. Returns {"approx": (n, n), "level J": ..., "level 1": ...}."""
    level = n_levels(attr, 2)
    labels = level_labels(level, 2)
    n = attr[0].shape[-1] * 2**level
    maps: dict[str, np.ndarray] = {}
    for lab, a in zip(labels, attr, strict=True):
        m = a.detach().abs().mean(dim=(0, 1)).numpy()
        f = n // m.shape[0]
        up = np.kron(m, np.ones((f, f)))
        maps[lab] = maps.get(lab, 0) + up
    return maps
