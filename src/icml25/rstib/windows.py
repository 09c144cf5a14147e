"""Forecasting windows of a simulated series (chronological split, max-01 scaling), their check,
and the forecasts that need no learning (last value, seasonal naive).

Notation as in :mod:`icml25.rstib.data`: ``T`` steps, ``N`` sensors, ``L`` input lag, ``H`` horizon.
"""

from __future__ import annotations

import numpy as np

from icml25.common.checks import check_array, check_choice, check_instance, check_int
from icml25.rstib.data import TrafficData

__all__ = ["check_windows", "make_windows", "seasonal_naive"]


def make_windows(
    data: TrafficData,
    lag: int = 12,
    horizon: int = 12,
    split: tuple[float, float, float] = (0.6, 0.2, 0.2),
    noisy: np.ndarray | None = None,
    stride: int = 1,
) -> dict:
    """Cut the series into (input, target) windows, chronologically split, max-01 normalised.

    Args:
        data: the simulated series; ``data.x`` gives the **clean** targets used for evaluation.
        lag: input length L (steps).
        horizon: forecast length H (steps).
        split: train/val/test fractions of the windows, in time order; must sum to 1.
        noisy: (T, N) the series the models observe (inputs and training targets), e.g.
            ``add_noise(data.x, r)``; ``None`` means the clean series.
        stride: keep every ``stride``-th training window (consecutive windows share all but
            one step; a stride of 2 halves the training cost). Val and test keep every window.

    Returns:
        ``{"train"|"val"|"test": {"x": (B, L, N), "y": (B, H, N), "y_clean": (B, H, N),
        "tod": (B,), "dow": (B,), "t": (B,)}, "scale": float, "steps_per_day": int,
        "n_nodes": int}``,
        float32 arrays divided by ``scale`` (the max of the observed training series, as in
        the paper's max-01 normalisation); ``tod``/``dow`` are those of the last input step and
        ``t`` the index in the series of the first target step.
    """
    check_instance("data", data, TrafficData)
    lag = check_int("lag", lag)
    horizon = check_int("horizon", horizon)
    if (
        not isinstance(split, (tuple, list))
        or len(split) != 3
        or any(isinstance(f, bool) or not isinstance(f, (int, float, np.floating)) for f in split)
        or any(not 0 < f < 1 for f in split)
        or abs(sum(split) - 1) > 1e-9
    ):
        raise ValueError(f"split must be three fractions in (0, 1) that sum to 1, got {split!r}")
    check_array("data.x", data.x, 2)
    clean = data.x
    obs = clean if noisy is None else check_array("noisy", noisy, 2)
    if obs.shape != clean.shape:
        raise ValueError(f"noisy must have shape {clean.shape}, got {obs.shape}")
    T = len(clean)
    starts = np.arange(0, T - lag - horizon + 1)
    if len(starts) < 3:
        raise ValueError(f"the series ({T} steps) is too short for lag {lag} + horizon {horizon}")
    n_tr = int(round(split[0] * len(starts)))
    n_va = int(round(split[1] * len(starts)))
    if not 0 < n_tr < n_tr + n_va < len(starts):
        raise ValueError(
            f"split {split} leaves an empty part of the {len(starts)} windows of lag {lag} + "
            f"horizon {horizon}"
        )
    stride = check_int("stride", stride)
    parts = {
        "train": starts[:n_tr:stride],
        "val": starts[n_tr : n_tr + n_va],
        "test": starts[n_tr + n_va :],
    }
    scale = float(np.max(obs[: n_tr + lag + horizon - 1]))
    if not scale > 0:
        raise ValueError(
            f"the observed series (noisy, or data.x) must have a positive maximum "
            f"over the training windows, got {scale}"
        )
    idx_in = np.arange(lag)
    idx_out = np.arange(lag, lag + horizon)
    out: dict = {"scale": scale, "steps_per_day": data.steps_per_day, "n_nodes": clean.shape[1]}
    for name, s in parts.items():
        out[name] = {
            "x": (obs[s[:, None] + idx_in] / scale).astype(np.float32),
            "y": (obs[s[:, None] + idx_out] / scale).astype(np.float32),
            "y_clean": (clean[s[:, None] + idx_out] / scale).astype(np.float32),
            "tod": data.tod[s + lag - 1].astype(np.int64),
            "dow": data.dow[s + lag - 1].astype(np.int64),
            "t": (s + lag).astype(np.int64),
        }
    return out


def check_windows(
    windows: object,
    splits: tuple[str, ...] = ("train", "val", "test"),
    keys: tuple[str, ...] = ("x", "tod", "dow", "y"),
) -> dict:
    """Return ``windows`` if it looks like :func:`make_windows`' output: a dict with a positive
    ``"scale"`` and, for each of ``splits``, a dict of equally long finite arrays ``keys``."""
    if not isinstance(windows, dict):
        raise TypeError(f"windows must be the dict of make_windows, got {type(windows).__name__}")
    scale = windows.get("scale")
    if (
        isinstance(scale, bool)
        or not isinstance(scale, (int, float, np.number))
        or not (np.isfinite(scale) and scale > 0)
    ):
        raise ValueError(f"windows must hold a finite 'scale' > 0, got {scale!r}")
    for split in splits:
        part = windows.get(split)
        if not isinstance(part, dict) or not set(keys) <= set(part):
            raise ValueError(f"windows[{split!r}] must be a dict with keys {list(keys)}")
        arrays = {k: np.asarray(part[k]) for k in keys}
        sizes = {len(a) if a.ndim else -1 for a in arrays.values()}
        if len(sizes) != 1 or sizes == {0} or sizes == {-1}:
            raise ValueError(f"windows[{split!r}] must hold non-empty arrays of equal length")
        for k, a in arrays.items():
            if not np.issubdtype(a.dtype, np.number) or not np.all(np.isfinite(a)):
                raise ValueError(f"windows[{split!r}][{k!r}] must hold finite numbers")
    return windows


def seasonal_naive(
    series: np.ndarray, windows: dict, split: str = "test", period: int = 2016
) -> dict:
    """Forecasts without learning for ``windows[split]``, in the windows' (normalised) units.

    Returns ``{"last value": (B, H, N), "seasonal naive": (B, H, N)}``: the last observed input
    repeated over the horizon, and ``series`` (T, N) ``period`` steps before each target step
    (2016 = one week of 5-minute steps; pass the observed series to be fair).
    """
    series = check_array("series", series, 2)
    period = check_int("period", period)
    split = check_choice("split", split, ("train", "val", "test"))
    part = check_windows(windows, (split,), ("x", "y", "t"))[split]
    if series.shape[1] != part["x"].shape[2]:
        raise ValueError(
            f"series must have the windows' {part['x'].shape[2]} sensors, got {series.shape}"
        )
    H = part["y"].shape[1]
    last = np.repeat(part["x"][:, -1:, :], H, axis=1)
    tgt = part["t"][:, None] + np.arange(H)
    if tgt.min() - period < 0:
        raise ValueError(
            f"the series is too short for a seasonal-naive forecast at period {period}"
        )
    if tgt.max() >= len(series):
        raise ValueError(f"series ({len(series)} steps) ends before the windows' targets")
    seasonal = (series[tgt - period] / windows["scale"]).astype(np.float32)
    return {"last value": last, "seasonal naive": seasonal}
