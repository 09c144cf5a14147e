"""Downstream evaluation: a logistic regression on synthetic data, DP-SGD on the private data
directly (opacus), the Fréchet distance in embedding space (the FID analogue), overall and per
class, and the paired t-interval that compares two methods over seeds."""

from __future__ import annotations

import functools
import math

import numpy as np
from scipy import linalg, stats
from sklearn.linear_model import LogisticRegression

from icml25.common.checks import (
    check_array,
    check_finite_array,
    check_real,
    check_seed,
)
from icml25.wasp.pipeline import _check_eps
from icml25.wasp.voting import _labelled as _xy  # (X, y) rows and labels, checked

__all__ = [
    "class_frechet_distance",
    "downstream_accuracy",
    "dp_sgd_accuracy",
    "frechet_distance",
    "paired_ci",
]


@functools.lru_cache(maxsize=64)
def _noise_multiplier(eps: float, delta: float, sample_rate: float, steps: int) -> float:
    """opacus' PRV calibration of the DP-SGD noise multiplier (cached: the search is slow)."""
    from opacus.accountants.utils import get_noise_multiplier

    return float(
        get_noise_multiplier(
            target_epsilon=eps,
            target_delta=delta,
            sample_rate=sample_rate,
            steps=steps,
            accountant="prv",
        )
    )


def downstream_accuracy(
    X: np.ndarray,
    y: np.ndarray,
    X_test: np.ndarray,
    y_test: np.ndarray,
    sample_weight: np.ndarray | None = None,
) -> float:
    """Test accuracy of ``LogisticRegression(max_iter=300, C=0.5)`` trained on (X, y)."""
    X, y = _xy("X", X, "y", y)
    X_test, y_test = _xy("X_test", X_test, "y_test", y_test, X.shape[1])
    if np.unique(y).size < 2:
        raise ValueError("y must hold at least 2 classes")
    if sample_weight is not None:
        sample_weight = check_finite_array("sample_weight", sample_weight, ndim=1)
        if len(sample_weight) != len(X) or sample_weight.min() < 0 or sample_weight.sum() <= 0:
            raise ValueError("sample_weight must be >= 0, not all 0, one per row of X")
    model = LogisticRegression(max_iter=300, C=0.5).fit(X, y, sample_weight=sample_weight)
    return float(model.score(X_test, y_test))


def dp_sgd_accuracy(
    X_priv: np.ndarray,
    y_priv: np.ndarray,
    X_test: np.ndarray,
    y_test: np.ndarray,
    eps: float,
    delta: float,
    seed: int,
) -> float:
    """Test accuracy of a softmax regression trained on the private data by DP-SGD (opacus:
    Poisson batches of 50, clip 1, PRV accountant, 30 epochs, SGD lr 1.0); eps = inf: the same
    training without noise or clipping. Fixed hyperparameters (not tuned on the test set)."""
    X_priv, y_priv = _xy("X_priv", X_priv, "y_priv", y_priv)
    X_test, y_test = _xy("X_test", X_test, "y_test", y_test, X_priv.shape[1])
    eps = _check_eps(eps)
    delta = check_real("delta", delta, 0.0, 1.0, low_open=True, high_open=True)
    seed = check_seed("seed", seed)
    import torch
    from opacus import PrivacyEngine

    torch.manual_seed(seed % 2**63)
    n_classes = int(max(y_priv.max(), y_test.max())) + 1
    data = torch.utils.data.TensorDataset(
        torch.tensor(X_priv, dtype=torch.float32), torch.tensor(y_priv)
    )
    loader = torch.utils.data.DataLoader(data, batch_size=50, shuffle=True)
    model = torch.nn.Linear(X_priv.shape[1], n_classes)
    opt = torch.optim.SGD(model.parameters(), lr=1.0)
    epochs = 30
    if math.isfinite(eps):
        engine = PrivacyEngine(accountant="prv")
        sigma = _noise_multiplier(eps, delta, 1 / len(loader), epochs * len(loader))
        model, opt, loader = engine.make_private(
            module=model,
            optimizer=opt,
            data_loader=loader,
            noise_multiplier=sigma,
            max_grad_norm=1.0,
        )
    loss_fn = torch.nn.CrossEntropyLoss()
    for _ in range(epochs):
        for xb, yb in loader:
            if len(xb) == 0:
                continue
            opt.zero_grad()
            loss_fn(model(xb), yb).backward()
            opt.step()
    with torch.no_grad():
        pred = model(torch.tensor(X_test, dtype=torch.float32)).argmax(1).numpy()
    return float((pred == y_test).mean())


def frechet_distance(A: np.ndarray, B: np.ndarray) -> float:
    """‖μ_A - μ_B‖² + tr(Σ_A + Σ_B - 2(Σ_A Σ_B)^½) between the rows of A (n, d) and B (m, d)."""
    A = check_array("A", A, 2)
    B = check_array("B", B, 2)
    if A.shape[1] != B.shape[1]:
        raise ValueError(f"B must have {A.shape[1]} columns like A, got {B.shape[1]}")
    if len(A) < 2 or len(B) < 2:
        raise ValueError("A and B need at least 2 rows each (a covariance)")
    d = A.shape[1]
    sa, sb = np.cov(A.T).reshape(d, d), np.cov(B.T).reshape(d, d)
    root = linalg.sqrtm(sa @ sb)
    root = np.real(root)
    value = float(((A.mean(0) - B.mean(0)) ** 2).sum() + np.trace(sa + sb - 2 * root))
    return max(value, 0.0)


def class_frechet_distance(A: np.ndarray, y_a: np.ndarray, B: np.ndarray, y_b: np.ndarray) -> float:
    """Mean over the classes c of ``y_b`` of ``frechet_distance(A[y_a == c], B[y_b == c])``:
    A (n, d) with labels ``y_a`` (n,), B (m, d) with labels ``y_b`` (m,).

    Unlike the distance of the pooled rows it sees labels: a generator that writes good images
    under wrong labels is far from B class by class. Every class of ``y_b`` needs >= 2 rows in
    both sets. The estimate is biased upwards for few rows, so compare sets of similar size."""
    A, y_a = _xy("A", A, "y_a", y_a)
    B, y_b = _xy("B", B, "y_b", y_b, A.shape[1])
    classes = np.unique(y_b)
    for c in classes:
        if np.sum(y_a == c) < 2 or np.sum(y_b == c) < 2:
            raise ValueError(f"y_a and y_b need at least 2 rows of class {c} each")
    return float(np.mean([frechet_distance(A[y_a == c], B[y_b == c]) for c in classes]))


def paired_ci(d: np.ndarray, level: float = 0.95) -> tuple[float, float]:
    """Mean and half-width of the two-sided t-interval at ``level`` of paired differences
    ``d`` (S,), one per seed: ``mean ± t_{S-1} · sd / √S``."""
    d = check_finite_array("d", d, ndim=1)
    if len(d) < 2:
        raise ValueError(f"d must hold at least 2 paired differences, got {len(d)}")
    level = check_real("level", level, 0.0, 1.0, low_open=True, high_open=True)
    half = stats.t.ppf(0.5 + level / 2, len(d) - 1) * d.std(ddof=1) / math.sqrt(len(d))
    return float(d.mean()), float(half)
