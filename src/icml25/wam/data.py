"""Seeded synthetic data sets whose decision lives at a planted scale."""

from __future__ import annotations

import numpy as np

from icml25.common.checks import check_choice, check_int, check_seed


def make_scale_dataset(
    kind: str = "texture", n: int = 1000, size: int = 32, seed: int = 0
) -> tuple[np.ndarray, np.ndarray]:
    """Images (n, 1, size, size) in [0, 1] with labels (n,) in {0, 1}.

    ``"texture"``: a disk at a random position filled with a fine checkerboard (class 1) or a
    smooth fill of the same mean (class 0): the decision lives in the finest details.
    ``"shape"``: a uniform disk, small (class 0) or large (class 1), no texture: the decision lives
    in the approximation and coarse levels. Gaussian noise (std 0.05) is added to both.
    """
    kind = check_choice("kind", kind, ("texture", "shape"))
    n = check_int("n", n)
    size = check_int("size", size, 8)
    rng = np.random.default_rng(check_seed("seed", seed))
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


def digits_32(seed: int = 0) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """sklearn digits in [0, 1], bilinearly upsampled to 32×32 (a power of 2 for Haar).

    Returns ``(X_train, y_train, X_test, y_test)``: 1400 training images, the rest for test;
    X is (n, 1, 32, 32) float32.
    """
    seed = check_seed("seed", seed)
    import torch
    import torch.nn.functional as F
    from sklearn.datasets import load_digits

    X, y = load_digits(return_X_y=True)
    x = torch.tensor(X, dtype=torch.float32).view(-1, 1, 8, 8) / 16.0
    x = F.interpolate(x, size=32, mode="bilinear", align_corners=False).numpy()
    perm = np.random.default_rng(seed).permutation(len(y))
    tr, te = perm[:1400], perm[1400:]
    return x[tr], y[tr], x[te], y[te]


def make_click_audio(n: int = 400, length: int = 2048, seed: int = 0):
    """1D "audio" (n, 1, length): a low tone plus noise; class 1 adds 3 short clicks.

    Returns ``(X, y, clicks)`` with ``clicks`` (n, length) boolean, True at click samples.
    """
    n = check_int("n", n)
    length = check_int("length", length, 64)
    rng = np.random.default_rng(check_seed("seed", seed))
    t = np.arange(length)
    y = rng.integers(0, 2, size=n)
    X = np.zeros((n, 1, length), dtype=np.float32)
    clicks = np.zeros((n, length), dtype=bool)
    for i in range(n):
        f = rng.uniform(2, 6) / length
        X[i, 0] = 0.5 * np.sin(2 * np.pi * f * t + rng.uniform(0, 2 * np.pi))
        X[i, 0] += rng.normal(0, 0.1, length)
        if y[i]:
            for c in rng.integers(16, length - 16, size=3):
                X[i, 0, c : c + 4] += np.array([1.0, -1.0, 1.0, -1.0])
                clicks[i, c : c + 4] = True
    return X, y, clicks


def make_shape_volumes(n: int = 300, size: int = 16, seed: int = 0):
    """3D volumes (n, 1, size, size, size): a ball (class 0) or a cube (class 1) of similar volume
    at a random position, plus noise. The decision lives in the coarse shape."""
    n = check_int("n", n)
    size = check_int("size", size, 8)
    rng = np.random.default_rng(check_seed("seed", seed))
    z, yy, xx = np.mgrid[:size, :size, :size]
    y = rng.integers(0, 2, size=n)
    X = np.zeros((n, 1, size, size, size), dtype=np.float32)
    for i in range(n):
        r = rng.uniform(0.22, 0.3) * size
        c = rng.uniform(r + 1, size - r - 1, size=3)
        if y[i]:
            h = r * 0.806  # a cube of the ball's volume: (4/3 π)^(1/3) / 2
            inside = (np.abs(z - c[0]) <= h) & (np.abs(yy - c[1]) <= h) & (np.abs(xx - c[2]) <= h)
        else:
            inside = (z - c[0]) ** 2 + (yy - c[1]) ** 2 + (xx - c[2]) ** 2 <= r**2
        X[i, 0] = inside
    X += rng.normal(0, 0.1, X.shape).astype(np.float32)
    return X, y
