"""Argument validation for public functions: clear ``TypeError``/``ValueError`` naming the argument.

Every chapter's public functions validate their inputs with these (or in the same style): wrong
type -> ``TypeError``, wrong value, shape, NaN or inf -> ``ValueError``, each message naming the
argument and what was expected.
"""

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


def check_symmetric(name: str, value: object) -> np.ndarray:
    """Return ``value`` as a finite float array if it is a symmetric square matrix."""
    value = check_array(name, value, 2)
    if value.shape[0] != value.shape[1]:
        raise ValueError(f"{name} must be square, got shape {value.shape}")
    scale = max(1.0, float(np.abs(value).max()))
    if not np.allclose(value, value.T, rtol=1e-8, atol=1e-10 * scale):
        raise ValueError(f"{name} must be symmetric")
    return value


def check_texts(name: str, value: object) -> list[str]:
    """Return ``value`` as a list of strings if it is a non-empty list, tuple or 1-D array of
    non-blank strings; a bare string is a ``TypeError`` (a list of one is meant)."""
    if isinstance(value, str) or not isinstance(value, (list, tuple, np.ndarray)):
        raise TypeError(f"{name} must be a list of strings, got {type(value).__name__}")
    texts = list(value)
    if not texts or not all(isinstance(t, str) and t.strip() for t in texts):
        raise ValueError(f"{name} must be a non-empty list of non-empty strings")
    return texts
