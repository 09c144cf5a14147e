"""Argument validation shared by the sparse PCA functions (clear errors naming the argument)."""

from __future__ import annotations

import numbers

import numpy as np


def check_int(name: str, value: object, low: int = 1, high: int | None = None) -> int:
    """Return ``value`` as an int if it is an integer in ``[low, high]``; raise otherwise."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise TypeError(f"{name} must be an int, got {type(value).__name__}")
    value = int(value)
    if value < low or (high is not None and value > high):
        bound = f"in [{low}, {high}]" if high is not None else f">= {low}"
        raise ValueError(f"{name} must be {bound}, got {value}")
    return value


def check_positive(name: str, value: object) -> float:
    """Return ``value`` as a float if it is a finite real number > 0; raise otherwise."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"{name} must be a real number, got {type(value).__name__}")
    value = float(value)
    if not np.isfinite(value) or value <= 0:
        raise ValueError(f"{name} must be a finite number > 0, got {value}")
    return value


def check_array(name: str, value: object, ndim: int) -> np.ndarray:
    """Return ``value`` as a finite float array with ``ndim`` dimensions; raise otherwise."""
    if not isinstance(value, np.ndarray):
        raise TypeError(f"{name} must be a numpy array, got {type(value).__name__}")
    if value.ndim != ndim:
        raise ValueError(f"{name} must have {ndim} dimension(s), got shape {value.shape}")
    if value.size == 0:
        raise ValueError(f"{name} must not be empty, got shape {value.shape}")
    if not np.issubdtype(value.dtype, np.number) or np.iscomplexobj(value):
        raise TypeError(f"{name} must hold real numbers, got dtype {value.dtype}")
    value = value.astype(float, copy=False)
    if not np.all(np.isfinite(value)):
        raise ValueError(f"{name} must be finite (no NaN or inf)")
    return value


def check_data(X: object) -> np.ndarray:
    """Validate a data matrix ``X`` of shape (n, p) with n >= 1 and p >= 1."""
    return check_array("X", X, 2)


def check_covariance(S: object) -> np.ndarray:
    """Validate a symmetric (p, p) matrix ``S``."""
    S = check_array("S", S, 2)
    if S.shape[0] != S.shape[1]:
        raise ValueError(f"S must be square (p, p), got shape {S.shape}")
    if not np.allclose(S, S.T, rtol=1e-8, atol=1e-10 * max(1.0, float(np.abs(S).max()))):
        raise ValueError("S must be symmetric")
    return S
