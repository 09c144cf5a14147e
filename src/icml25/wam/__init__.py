"""WAM (Kasmi et al., ICML 2025): feature attribution in the wavelet domain, in miniature.

* transforms (ptwt): :func:`dwt`, :func:`idwt`, :func:`dyadic_layout`, :func:`scale_maps`,
  :func:`level_labels`;
* attribution: :func:`wam` (``"grad"``, ``"smooth"``, ``"integrated"``; estimator
  ``variant="signed"`` or the official code's ``"official"``), :func:`scale_importance`,
  :func:`insertion_deletion`, :func:`to_pixels` (pixel-domain reprojection),
  :func:`region_mass_ratio` and :func:`keep_top` (the "where" statistics of audio and
  volumes); the model-free controls
  :func:`model_free_attribution` (|z| and a random ranking);
* data: :func:`digits_32`, :func:`make_scale_dataset`, :func:`make_click_audio`,
  :func:`make_shape_volumes`.
"""

from icml25.wam.attribution import (
    BASELINES,
    METHODS,
    VARIANTS,
    insertion_deletion,
    keep_top,
    model_free_attribution,
    region_mass_ratio,
    scale_importance,
    to_pixels,
    wam,
)
from icml25.wam.data import digits_32, make_click_audio, make_scale_dataset, make_shape_volumes
from icml25.wam.transform import BANDS, dwt, dyadic_layout, idwt, level_labels, scale_maps

__all__ = [
    "BANDS",
    "BASELINES",
    "METHODS",
    "VARIANTS",
    "digits_32",
    "dwt",
    "dyadic_layout",
    "idwt",
    "insertion_deletion",
    "keep_top",
    "level_labels",
    "make_click_audio",
    "make_scale_dataset",
    "make_shape_volumes",
    "model_free_attribution",
    "region_mass_ratio",
    "scale_importance",
    "scale_maps",
    "to_pixels",
    "wam",
]
