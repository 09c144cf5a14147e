"""Seeded synthetic data sets whose decision lives at a planted scale."""

from __future__ import annotations

import numpy as np

from icml25.common.checks import check_int


def make_scale_dataset(
    kind: str = "texture", n: int = 1000, size: int = 32, seed: int = 0
) -> tuple[np.ndarray, np.ndarray]:
    """Images (n, 1, size, size) in [0, 1] with labels (n,) in {0, 1}.

    ``"texture"``: a disk at a random position filled with a fine checkerboard (class 1) or a
    smooth fill of the same mean (class 0): the decision lives in the finest details.
    ``"shape"``: a uniform disk, small (class 0) or large (class 1), no texture: the decision lives
    in the approximation and coarse levels. Gaussian noise (std 0.05) is added to both.
    """
    if kind not in ("texture", "shape"):
        raise ValueError(f"kind must be 'texture' or 'shape', got {kind!r}")
    n = check_int("n", n)
    size = check_int("size", size, 8)
    rng = np.random.default_rng(seed)
    yy, xx = np.mgrid[:size, :size]
    checker = ((yy + xx) % 2).astype(float)
    X = np.zeros((n, 1, size, size))
    y = rng.integers(0, 2, size=n)
    for i in range(n):
        if kind == "texture":
            r = rng.uniform(0.2, 0.3) * size
            fill = checker if y[i] else np.full((size, size), 0.5)
        else:
            r = (rng.uniform(0.28, 0.34) if y[i] else rng.uniform(0.12, 0.18)) * size
            fill = np.full((size, size), 0.8)
        cy, cx = rng.uniform(r, size - r, size=2)
        disk = (yy - cy) ** 2 + (xx - cx) ** 2 <= r**2
        X[i, 0] = np.where(disk, fill, 0.0)
    X += rng.normal(0, 0.05, X.shape)
    return np.clip(X, 0, 1).astype(np.float32), y
