"""The miniature's data and its weak "pre-trained" generators (stand-ins for the paper's PLMs).

* :func:`style_digits`: scikit-learn digits (/16, ``p = 64`` pixels). The *private* pool and the
  test set are written in a style the public data lacks: shifted right by ``shift`` pixels.
* :func:`fit_generator`: a class-conditional Gaussian pre-fit on public data — the "PLM". Its
  ``zero_shot(label, n, rng)`` samples a class; ``vary(exemplars, label, n, rng)`` is the
  in-context analogue (mean ``(1 - s)·exemplar + s·class mean``, covariance ``× s``, ``s`` =
  ``var_scale``). ``label_noise`` draws that share of samples from a random class but labels
  them ``label`` (a generator that mislabels).
* :func:`make_generators`: G0..G3 with the planted biases of :data:`GENERATOR_SPECS`.
* :func:`public_embedding`: PCA(``dim``) fitted on public data (the sentence embedder's stand-in).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from scipy.ndimage import shift as nd_shift
from sklearn.datasets import load_digits
from sklearn.decomposition import PCA

from icml25.common.checks import (
    check_array,
    check_index_array,
    check_instance,
    check_int,
    check_probability,
    check_real,
    check_rng,
    check_seed,
)

__all__ = [
    "GENERATOR_SPECS",
    "DigitsSplit",
    "WeakGenerator",
    "fit_generator",
    "make_generators",
    "public_embedding",
    "shift_images",
    "style_digits",
]

#: The planted biases, fixed before any run: which classes a generator writes in the private
#: style (the others shifted the wrong way), its covariance inflation and its label noise.
GENERATOR_SPECS: dict[str, dict] = {
    "G0": {"right_classes": (0, 1, 2, 3, 4), "inflate": 1.0, "label_noise": 0.0},
    "G1": {"right_classes": (5, 6, 7, 8, 9), "inflate": 1.0, "label_noise": 0.0},
    "G2": {"right_classes": (), "inflate": 3.0, "label_noise": 0.0},
    "G3": {"right_classes": tuple(range(10)), "inflate": 1.0, "label_noise": 0.6},
}


@dataclass(frozen=True)
class DigitsSplit:
    """Test (600), private pool (400) and public (797) digits; shapes (n, 64), labels (n,).

    ``X_test`` and ``X_priv`` are in the private style (shifted right by ``shift`` px);
    ``X_pub`` is unshifted.
    """

    X_test: np.ndarray
    y_test: np.ndarray
    X_priv: np.ndarray
    y_priv: np.ndarray
    X_pub: np.ndarray
    y_pub: np.ndarray
    shift: float


def shift_images(X: np.ndarray, dx: float) -> np.ndarray:
    """Shift every 8×8 image (a row of ``X``, shape (n, 64)) by ``dx`` px along x (order 1)."""
    X = check_array("X", X, 2)
    if X.shape[1] != 64:
        raise ValueError(f"X must have 64 columns (8x8 images), got {X.shape[1]}")
    dx = check_real("dx", dx, -8.0, 8.0)
    return np.stack([nd_shift(x.reshape(8, 8), (0, dx), order=1).ravel() for x in X])


def style_digits(seed: int = 0, shift: float = 1.0) -> DigitsSplit:
    """The split: a permutation by ``seed``; test and private pool shifted right by ``shift``."""
    seed = check_seed("seed", seed)
    shift = check_real("shift", shift, -4.0, 4.0)
    digits = load_digits()
    X, y = digits.data / 16.0, digits.target.astype(np.int64)
    perm = np.random.default_rng(seed).permutation(len(X))
    test, priv, pub = perm[:600], perm[600:1000], perm[1000:]
    styled = shift_images(X[np.concatenate([test, priv])], shift)
    return DigitsSplit(styled[:600], y[test], styled[600:], y[priv], X[pub], y[pub], shift)


class WeakGenerator:
    """A class-conditional Gaussian ``N(mu_c, inflate · Sigma_c)``, samples clipped to [0, 1].

    ``mu`` (C, p), ``chol`` (C, p, p) Cholesky factors of ``inflate · (Sigma_c + 1e-3 I)``.
    """

    def __init__(
        self, mu: np.ndarray, chol: np.ndarray, label_noise: float = 0.0, var_scale: float = 0.3
    ):
        self.mu = check_array("mu", mu, 2)
        self.chol = check_array("chol", chol, 3)
        if self.chol.shape != (*self.mu.shape, self.mu.shape[1]):
            raise ValueError(
                f"chol must have shape (C, p, p) = {self.mu.shape + self.mu.shape[1:]}"
            )
        self.label_noise = check_probability("label_noise", label_noise)
        self.var_scale = check_real("var_scale", var_scale, 0.0, 1.0, low_open=True)

    @property
    def n_classes(self) -> int:
        return self.mu.shape[0]

    def _labels(self, label: int, n: int, rng: np.random.Generator) -> np.ndarray:
        cs = np.full(n, label)
        flip = rng.random(n) < self.label_noise
        cs[flip] = rng.integers(self.n_classes, size=int(flip.sum()))
        return cs

    def _check(self, label: object, n: object, rng: object) -> tuple[int, int, np.random.Generator]:
        label = check_int("label", label, 0, self.n_classes - 1)
        return label, check_int("n", n, 1), check_rng("rng", rng)

    def _draw(self, means: np.ndarray, cs: np.ndarray, scale: np.ndarray, rng) -> np.ndarray:
        z = rng.standard_normal(means.shape)
        noise = np.einsum("nij,nj->ni", self.chol[cs], z)
        return np.clip(means + scale[:, None] * noise, 0.0, 1.0)

    def zero_shot(self, label: int, n: int, rng: np.random.Generator) -> np.ndarray:
        """``n`` samples meant to be of class ``label``, shape (n, p)."""
        label, n, rng = self._check(label, n, rng)
        cs = self._labels(label, n, rng)
        return self._draw(self.mu[cs], cs, np.ones(n), rng)

    def vary(
        self, exemplars: np.ndarray, label: int, n: int, rng: np.random.Generator
    ) -> np.ndarray:
        """``n`` variations of random rows of ``exemplars`` (k, p), shape (n, p)."""
        label, n, rng = self._check(label, n, rng)
        exemplars = check_array("exemplars", exemplars, 2)
        if exemplars.shape[1] != self.mu.shape[1]:
            raise ValueError(f"exemplars must have {self.mu.shape[1]} columns")
        cs = self._labels(label, n, rng)
        ex = exemplars[rng.integers(len(exemplars), size=n)]
        s = self.var_scale
        on = cs == label
        means = np.where(on[:, None], (1 - s) * ex + s * self.mu[label], self.mu[cs])
        return self._draw(means, cs, np.where(on, np.sqrt(s), 1.0), rng)


def fit_generator(
    X: np.ndarray,
    y: np.ndarray,
    inflate: float = 1.0,
    label_noise: float = 0.0,
    var_scale: float = 0.3,
) -> WeakGenerator:
    """Fit per-class mean and covariance (+ 1e-3 I) of ``X`` (n, p) with labels ``y`` in 0..C-1."""
    X = check_array("X", X, 2)
    y = check_index_array("y", y, ndim=1)
    if len(y) != len(X):
        raise ValueError(f"y must have one label per row of X ({len(X)}), got {len(y)}")
    inflate = check_real("inflate", inflate, 0.0, 1e6, low_open=True)
    n_classes = int(y.max()) + 1
    if n_classes < 2 or any(np.sum(y == c) < 2 for c in range(n_classes)):
        raise ValueError("y must hold labels 0..C-1 (C >= 2), each at least twice")
    p = X.shape[1]
    mu = np.stack([X[y == c].mean(0) for c in range(n_classes)])
    cov = [np.cov(X[y == c].T).reshape(p, p) + 1e-3 * np.eye(p) for c in range(n_classes)]
    chol = np.stack([np.linalg.cholesky(inflate * S) for S in cov])
    return WeakGenerator(mu, chol, label_noise=label_noise, var_scale=var_scale)


def make_generators(split: DigitsSplit) -> list[WeakGenerator]:
    """G0..G3 of :data:`GENERATOR_SPECS`, fitted on ``split``'s public digits."""
    split = check_instance("split", split, DigitsSplit)
    right = shift_images(split.X_pub, split.shift)
    wrong = shift_images(split.X_pub, -split.shift)
    gens = []
    for spec in GENERATOR_SPECS.values():
        use_right = np.isin(split.y_pub, spec["right_classes"])[:, None]
        X = np.where(use_right, right, wrong)
        gens.append(fit_generator(X, split.y_pub, spec["inflate"], spec["label_noise"]))
    return gens


def public_embedding(X_pub: np.ndarray, dim: int = 16) -> Callable[[np.ndarray], np.ndarray]:
    """PCA(``dim``) fitted on ``X_pub`` (n, p); returns ``embed``: (m, p) -> (m, dim)."""
    X_pub = check_array("X_pub", X_pub, 2)
    dim = check_int("dim", dim, 1, min(X_pub.shape))
    return PCA(dim, random_state=0).fit(X_pub).transform
