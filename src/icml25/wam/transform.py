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

from icml25.common.checks import check_choice, check_int, check_tensor

BANDS = {1: 1, 2: 3, 3: 7}
_KEYS_3D = ("aad", "ada", "add", "daa", "dad", "dda", "ddd")


def _check_wavelet(wavelet: object) -> str:
    if not isinstance(wavelet, str):
        raise TypeError(f"wavelet must be a wavelet name (str), got {type(wavelet).__name__}")
    if wavelet not in pywt.wavelist(kind="discrete"):
        raise ValueError(f"wavelet must be a discrete wavelet name such as 'haar', got {wavelet!r}")
    return wavelet


def _check(x: torch.Tensor, wavelet: str, level: int, ndim: int) -> int:
    ndim = check_choice("ndim", ndim, tuple(BANDS))
    _check_wavelet(wavelet)
    level = check_int("level", level)
    check_tensor("x", x, finite=True)
    if x.ndim != ndim + 2:
        raise ValueError(
            f"x must be a tensor (B, C, *spatial) with ndim={ndim} spatial dims, got shape "
            f"{tuple(x.shape)}"
        )
    if not x.is_floating_point():
        raise TypeError(f"x must be a floating-point tensor, got {x.dtype}")
    for size in x.shape[2:]:
        if size % 2**level:
            raise ValueError(
                f"x's spatial size {tuple(x.shape[2:])} cannot be decomposed to level {level}: "
                f"each size must be divisible by 2^level = {2**level}"
            )
    return level


def n_levels(coeffs: list[torch.Tensor], ndim: int, name: str = "coeffs") -> int:
    """The number of levels J >= 1 of a flat coefficient list (named ``name`` in errors): finite
    tensors (B, C, *spatial) of ``ndim`` spatial dimensions, the bands of a level alike."""
    ndim = check_choice("ndim", ndim, tuple(BANDS))
    if not isinstance(coeffs, (list, tuple)):
        raise TypeError(
            f"{name} must be a list of tensors like dwt(x), got {type(coeffs).__name__}"
        )
    if len(coeffs) < 1 + BANDS[ndim] or (len(coeffs) - 1) % BANDS[ndim]:
        raise ValueError(
            f"{name} has {len(coeffs)} tensors, not 1 + {BANDS[ndim]}·J (J >= 1) for ndim={ndim}"
        )
    for c in coeffs:
        check_tensor(name, c)
        if c.ndim != ndim + 2:
            raise ValueError(
                f"{name} must hold tensors (B, C, *spatial) with ndim={ndim} spatial dims, got "
                f"shape {tuple(c.shape)}"
            )
    level = (len(coeffs) - 1) // BANDS[ndim]
    groups = [coeffs[0:1]] + [
        coeffs[1 + j * BANDS[ndim] : 1 + (j + 1) * BANDS[ndim]] for j in range(level)
    ]
    if any(c.shape[:2] != coeffs[0].shape[:2] for c in coeffs) or any(
        c.shape != g[0].shape for g in groups for c in g
    ):
        raise ValueError(f"{name} must share (B, C), and the bands of each level their shape")
    return level


def level_labels(level: int, ndim: int) -> list[str]:
    """Label of each tensor of ``dwt``'s list: "approx", then "level J" ... "level 1"."""
    level = check_int("level", level)
    ndim = check_choice("ndim", ndim, tuple(BANDS))
    return ["approx"] + [f"level {j}" for j in range(level, 0, -1) for _ in range(BANDS[ndim])]


def dwt(
    x: torch.Tensor, wavelet: str = "haar", level: int = 3, ndim: int = 2
) -> list[torch.Tensor]:
    """Multilevel DWT of x (B, C, *spatial) as a flat list (see the module docstring)."""
    level = _check(x, wavelet, level, ndim)
    try:
        return _dwt(x, wavelet, level, ndim)
    except (RuntimeError, ValueError, AssertionError) as err:  # too short for the filter
        raise ValueError(
            f"x of shape {tuple(x.shape)} cannot be decomposed with wavelet {wavelet!r} to "
            f"level {level}: {err}"
        ) from None


def _dwt(x: torch.Tensor, wavelet: str, level: int, ndim: int) -> list[torch.Tensor]:
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
    _check_wavelet(wavelet)
    try:
        return _idwt(coeffs, wavelet, ndim, level)
    except (RuntimeError, ValueError, AssertionError) as err:
        raise ValueError(
            f"coeffs are not a decomposition that wavelet {wavelet!r} inverts: {err}"
        ) from None


def _idwt(coeffs: list[torch.Tensor], wavelet: str, ndim: int, level: int) -> torch.Tensor:
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
    level = n_levels(attr, 2, "attr")
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
    level = n_levels(attr, 2, "attr")
    labels = level_labels(level, 2)
    n = attr[0].shape[-1] * 2**level
    maps: dict[str, np.ndarray] = {}
    for lab, a in zip(labels, attr, strict=True):
        m = a.detach().abs().mean(dim=(0, 1)).numpy()
        f = n // m.shape[0]
        up = np.kron(m, np.ones((f, f)))
        maps[lab] = maps.get(lab, 0) + up
    return maps
