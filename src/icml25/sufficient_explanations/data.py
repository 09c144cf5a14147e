"""The chapter's data: scikit-learn's digits in [0, 1], and a planted-relevance task."""

from __future__ import annotations

import numpy as np

from icml25.common.checks import check_int, check_seed

__all__ = ["digits_data", "planted_data"]


def digits_data(seed: int = 0) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """scikit-learn's 8×8 digits scaled to [0, 1] (64 features), split 70/30 (stratified,
    ``seed``): ``(X_train, y_train, X_test, y_test)``."""
    seed = check_seed("seed", seed)
    from sklearn.datasets import load_digits
    from sklearn.model_selection import train_test_split

    X, y = load_digits(return_X_y=True)
    Xtr, Xte, ytr, yte = train_test_split(
        X / 16.0, y, test_size=0.3, random_state=seed % 2**32, stratify=y
    )
    return Xtr, ytr, Xte, yte


def planted_data(
    n: int = 2000, n_features: int = 16, n_relevant: int = 4, seed: int = 0
) -> tuple[np.ndarray, np.ndarray]:
    """Planted relevance: features uniform in [0, 1], label y = argmax_{i < n_relevant} x_i,
    so only the first ``n_relevant`` features matter and the others are noise.

    Returns ``(X, y)``: X (n, n_features) in [0, 1], y (n,) in {0, ..., n_relevant - 1}.
    """
    n = check_int("n", n, 2, 10_000_000)
    n_features = check_int("n_features", n_features, 2, 100_000)
    n_relevant = check_int("n_relevant", n_relevant, 2, n_features)
    seed = check_seed("seed", seed)
    rng = np.random.default_rng(seed)
    X = rng.random((n, n_features))
    y = np.argmax(X[:, :n_relevant], axis=1).astype(np.int64)
    return X, y
