"""The checks of SPEX's inputs: 0/1 masks, spectra ``{sorted tuple of inputs: value}``, and the
answers of a value function (its errors named, its outputs finite)."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from icml25.common.checks import check_int

__all__ = ["check_masks"]


def check_masks(masks: object, n: int, name: str = "masks") -> np.ndarray:
    """Return ``masks`` as a (q, n) int8 array of zeros and ones; raise a clear error otherwise
    (naming the argument ``name``)."""
    n = check_int("n", n, 0)
    if not isinstance(masks, np.ndarray):
        raise TypeError(f"{name} must be a numpy array, got {type(masks).__name__}")
    if masks.ndim != 2 or masks.shape[1] != n:
        raise ValueError(f"{name} must have shape (q, n={n}), got {masks.shape}")
    if not np.issubdtype(masks.dtype, np.number) and masks.dtype != bool:
        raise TypeError(f"{name} must hold 0 and 1 as numbers, got dtype {masks.dtype}")
    if masks.size and not np.isin(masks, (0, 1)).all():
        raise ValueError(f"{name} must contain only 0 and 1")
    return masks.astype(np.int8)


def _as_masks(masks: object, name: str = "masks") -> np.ndarray:
    """(q, n) 0/1 masks from an array or a nested list, any n."""
    if isinstance(masks, (list, tuple)):
        masks = np.asarray(masks)
    if isinstance(masks, np.ndarray) and masks.ndim != 2:
        raise ValueError(f"{name} must be a 2-D (q, n) array, got shape {masks.shape}")
    return check_masks(masks, masks.shape[1] if isinstance(masks, np.ndarray) else 0, name)


def _check_coeffs(
    name: str,
    F: object,
    n: int | None = None,
    max_subsets: int | None = None,
    n_name: str = "n",
):
    """Return ``F`` if it is a spectrum ``{sorted tuple of distinct indices >= 0 (< n): finite
    value}``; ``max_subsets`` caps sum_k 2^|k| (transforms that enumerate every subset of a key).
    ``n_name`` is what n is called in the message.
    """
    if not isinstance(F, dict):
        raise TypeError(
            f"{name} must be a dict {{tuple_of_indices: value}}, got {type(F).__name__}"
        )
    subsets = 0
    for k, v in F.items():
        if (
            not isinstance(k, tuple)
            or not all(isinstance(i, (int, np.integer)) and not isinstance(i, bool) for i in k)
            or list(k) != sorted(set(k))
            or (k and (k[0] < 0 or (n is not None and k[-1] >= n)))
        ):
            top = f" < {n_name} = {n}" if n is not None else ""
            raise ValueError(
                f"{name} keys must be sorted tuples of distinct int indices >= 0{top}, got {k!r}"
            )
        if isinstance(v, bool) or not isinstance(v, (int, float, np.number)) or not np.isfinite(v):
            raise ValueError(f"{name} values must be finite numbers, got {v!r} at {k!r}")
        subsets += 2 ** len(k)
    if max_subsets is not None and subsets > max_subsets:
        raise ValueError(
            f"{name} has keys of too high an order: their transform enumerates {subsets} subsets "
            f"(at most {max_subsets})"
        )
    return F


def _query(
    value_fn: Callable[[np.ndarray], np.ndarray], masks: np.ndarray, name: str = "value_fn"
) -> np.ndarray:
    """``value_fn(masks)`` as a finite float array of shape (q,); an error of the function on the
    (q, n) masks becomes a ``ValueError`` that names it and n."""
    try:
        y = np.asarray(value_fn(masks), dtype=float)
    except Exception as err:
        raise ValueError(
            f"{name} failed on masks of shape {masks.shape} (n = {masks.shape[1]}): "
            f"{type(err).__name__}: {err}"
        ) from err
    if y.shape != (len(masks),):
        raise ValueError(
            f"{name} must return shape ({len(masks)},) for {len(masks)} masks, got {y.shape}"
        )
    if not np.all(np.isfinite(y)):
        raise ValueError(f"{name} returned non-finite values")
    return y
