"""A synthetic road network whose congestion waves travel downstream, dual noise, and windows.

Real traffic sets (PEMS04, METR-LA) cannot be downloaded here, so the chapter builds a generator
in which the graph matters: a congestion wave that starts at sensor ``i`` reaches each downstream
neighbour ``j`` exactly ``lag`` steps later. A model that reads only sensor ``j``'s own history
cannot see a wave before it arrives; a graph model that reads the upstream sensors can.

Notation (the chapter's): ``T`` time steps, ``N`` sensors, ``L`` input lag (steps), ``H`` horizon
(steps). Flow is in vehicles per 5 minutes.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from icml25.common.checks import check_array, check_int

__all__ = [
    "TrafficData",
    "add_noise",
    "make_traffic_graph",
    "make_windows",
    "seasonal_naive",
    "simulate_traffic",
]


def make_traffic_graph(
    n_nodes: int = 64, kind: str = "corridors", seed: int = 0
) -> tuple[np.ndarray, np.ndarray]:
    """Sensor positions and a directed, PEMS-style weighted adjacency.

    ``kind="corridors"``: four straight one-way corridors of ``n_nodes / 4`` sensors, one unit
    apart. ``kind="knn"``: sensors uniform in the unit square, each linked to its three nearest
    neighbours that lie further east (traffic flows west to east).

    Weights are the thresholded Gaussian kernel of PEMS, ``W_ij = exp(-d_ij^2 / sigma^2)`` kept
    where it is at least 0.1, for edges ``i -> j`` with ``j`` downstream of ``i``.

    Returns:
        coords: (N, 2) positions.
        W: (N, N) weights; ``W[i, j] > 0`` means traffic flows from sensor i to sensor j.
    """
    n_nodes = check_int("n_nodes", n_nodes, 4)
    rng = np.random.default_rng(seed)
    W = np.zeros((n_nodes, n_nodes))
    if kind == "corridors":
        if n_nodes % 4:
            raise ValueError(f"n_nodes must be divisible by 4 for kind='corridors', got {n_nodes}")
        per = n_nodes // 4
        coords = np.zeros((n_nodes, 2))
        for c in range(4):
            angle = rng.uniform(0, 2 * np.pi)
            start = rng.uniform(-per, per, size=2)
            direction = np.array([np.cos(angle), np.sin(angle)])
            for k in range(per):
                i = c * per + k
                coords[i] = start + k * direction + rng.normal(0, 0.05, size=2)
                for step in (1, 2):  # the kernel below drops neighbours 3 or more units away
                    if k + step < per:
                        W[i, i + step] = 1.0  # marked; weighted below
        sigma = 1.5
    elif kind == "knn":
        coords = rng.uniform(0, 1, size=(n_nodes, 2))
        dist = np.linalg.norm(coords[:, None] - coords[None], axis=-1)
        for i in range(n_nodes):
            east = np.flatnonzero(coords[:, 0] > coords[i, 0])
            for j in east[np.argsort(dist[i, east])][:3]:
                W[i, j] = 1.0
        sigma = float(np.std(dist[W > 0])) + float(np.mean(dist[W > 0]))
    else:
        raise ValueError(f"kind must be 'corridors' or 'knn', got {kind!r}")
    dist = np.linalg.norm(coords[:, None] - coords[None], axis=-1)
    W = np.where(W > 0, np.exp(-(dist**2) / sigma**2), 0.0)
    W[W < 0.1] = 0.0
    return coords, W


@dataclass
class TrafficData:
    """A simulated traffic series.

    Attributes:
        x: (T, N) clean flow (vehicles per 5 minutes), the quantity every model forecasts.
        tod: (T,) time-of-day index in ``[0, steps_per_day)``.
        dow: (T,) day-of-week index in ``[0, 7)``; 5 and 6 are the weekend.
        base: (T, N) the periodic profile without congestion or AR noise.
        congestion: (T, N) congestion level h in [0, 1] (flow is scaled by ``1 - c h``).
        W: (N, N) the adjacency the waves travelled on.
        lag: steps a wave takes from a sensor to each downstream neighbour.
        steps_per_day: steps per day (288 = 5-minute steps).
    """

    x: np.ndarray
    tod: np.ndarray
    dow: np.ndarray
    base: np.ndarray
    congestion: np.ndarray
    W: np.ndarray
    lag: int
    steps_per_day: int


def _bump(tod_hours: np.ndarray, centre: np.ndarray, width_hours: float) -> np.ndarray:
    return np.exp(-0.5 * ((tod_hours - centre) / width_hours) ** 2)


def simulate_traffic(
    W: np.ndarray,
    n_days: int = 21,
    steps_per_day: int = 288,
    shock_rate: float = 0.004,
    lag: int = 3,
    seed: int = 0,
    attenuation: float = 0.9,
    drop: float = 0.6,
    ar_std: float = 0.03,
) -> TrafficData:
    """Simulate flow on the network ``W``: daily/weekly profiles, travelling congestion, AR(1).

    * Profile: ``base_i(t) = a_i [0.25 + 0.75 day(t) + A_m g(8:00 + d_i, 45 min)
      + A_e g(17:30 + d_i, 60 min)] w(dow)`` with ``a_i ~ 200 LogNormal(0, 0.3)``, a daytime
      plateau ``day`` (6:00 to 22:00), rush-hour peaks ``g`` shifted per sensor by ``d_i`` and a
      weekend factor ``w = 0.7``.
    * Congestion: shock events ``e_i(t)`` (Bernoulli(``shock_rate``) times U(0.5, 1)) start at
      random sensors; the propagated events are ``e'(t) = e(t) + attenuation * P^T e'(t - lag)``
      where ``P_ij = 1`` if j is i's strongest (nearest) downstream link, so a wave reaches the
      next sensor ``lag`` steps later, the one after ``2 lag`` steps later, weaker each time.
      ``h`` is ``e'`` smoothed by the causal kernel ``(tau / 4) exp(1 - tau / 4)``
      (20-minute rise, slow decay), clipped to [0, 1].
    * Flow: ``x_i(t) = max(0, base_i(t) (1 - drop h_i(t)) + a_i u_i(t))`` with AR(1) noise
      ``u`` (coefficient 0.8, stationary std ``ar_std``).

    With ``shock_rate = 0`` and ``ar_std = 0`` every weekday repeats exactly.
    """
    W = check_array("W", W, 2)
    if W.shape[0] != W.shape[1]:
        raise ValueError(f"W must be square, got shape {W.shape}")
    if np.any(W < 0):
        raise ValueError("W must have non-negative weights")
    n_days = check_int("n_days", n_days)
    steps_per_day = check_int("steps_per_day", steps_per_day, 24)
    lag = check_int("lag", lag)
    if not 0 <= shock_rate < 1:
        raise ValueError(f"shock_rate must be in [0, 1), got {shock_rate}")
    if not 0 <= attenuation < 1:
        raise ValueError(f"attenuation must be in [0, 1), got {attenuation}")
    if not 0 <= drop <= 1:
        raise ValueError(f"drop must be in [0, 1], got {drop}")
    if not ar_std >= 0:
        raise ValueError(f"ar_std must be >= 0, got {ar_std}")
    rng = np.random.default_rng(seed)
    n = W.shape[0]
    T = n_days * steps_per_day
    t = np.arange(T)
    tod = t % steps_per_day
    dow = (t // steps_per_day) % 7
    hours = tod * 24.0 / steps_per_day

    a = 200.0 * rng.lognormal(0.0, 0.3, size=n)
    shift = rng.normal(0.0, 0.25, size=n)
    a_m, a_e = rng.uniform(0.6, 1.0, size=n), rng.uniform(0.5, 0.9, size=n)
    day = 1 / (1 + np.exp(-(hours - 6.0) * 2)) * 1 / (1 + np.exp((hours - 22.0) * 2))
    profile = (
        0.25
        + 0.75 * day[:, None]
        + a_m * _bump(hours[:, None], 8.0 + shift, 0.75)
        + a_e * _bump(hours[:, None], 17.5 + shift, 1.0)
    )
    weekend = np.where(dow >= 5, 0.7, 1.0)[:, None]
    base = a * profile * weekend

    events = (rng.random((T, n)) < shock_rate) * rng.uniform(0.5, 1.0, size=(T, n))
    # waves follow each sensor's strongest (nearest) downstream link
    P = np.zeros_like(W)
    has_out = W.max(1) > 0
    P[np.flatnonzero(has_out), W.argmax(1)[has_out]] = 1.0
    prop = events.copy()
    for s in range(lag, T):
        prop[s] += attenuation * prop[s - lag] @ P
    tau = np.arange(0, 48)
    kernel = (tau / 4.0) * np.exp(1 - tau / 4.0)
    h = np.zeros_like(prop)
    for i in range(n):
        h[:, i] = np.convolve(prop[:, i], kernel)[:T]
    h = np.clip(h, 0.0, 1.0)

    u = np.zeros((T, n))
    if ar_std > 0:
        innov = rng.normal(0.0, ar_std * np.sqrt(1 - 0.8**2), size=(T, n))
        u[0] = rng.normal(0.0, ar_std, size=n)
        for s in range(1, T):
            u[s] = 0.8 * u[s - 1] + innov[s]
    x = np.maximum(0.0, base * (1 - drop * h) + a * u)
    return TrafficData(x, tod, dow, base, h, W, lag, steps_per_day)


def add_noise(x: np.ndarray, ratio: float, seed: int = 0) -> np.ndarray:
    """The dual-noise corruption: ``x + N(0, (ratio std(x))^2)`` on the whole observed series.

    The same corrupted series supplies the models' input windows *and* their training targets;
    that is the "dual noise effect". ``std(x)`` is the standard deviation over all entries.
    """
    x = check_array("x", x, 2)
    if isinstance(ratio, bool) or not isinstance(ratio, (int, float, np.floating)):
        raise TypeError(f"ratio must be a real number, got {type(ratio).__name__}")
    if not np.isfinite(ratio) or ratio < 0:
        raise ValueError(f"ratio must be a finite number >= 0, got {ratio}")
    rng = np.random.default_rng(seed)
    return x + rng.normal(0.0, float(ratio) * float(np.std(x)), size=x.shape)


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
    if not isinstance(data, TrafficData):
        raise TypeError(f"data must be a TrafficData, got {type(data).__name__}")
    lag = check_int("lag", lag)
    horizon = check_int("horizon", horizon)
    if len(split) != 3 or any(not 0 < f < 1 for f in split) or abs(sum(split) - 1) > 1e-9:
        raise ValueError(f"split must be three fractions in (0, 1) that sum to 1, got {split}")
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
    stride = check_int("stride", stride)
    parts = {
        "train": starts[:n_tr:stride],
        "val": starts[n_tr : n_tr + n_va],
        "test": starts[n_tr + n_va :],
    }
    scale = float(np.max(obs[: n_tr + lag + horizon - 1]))
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
    if split not in ("train", "val", "test"):
        raise ValueError(f"split must be 'train', 'val' or 'test', got {split!r}")
    part = windows[split]
    H = part["y"].shape[1]
    last = np.repeat(part["x"][:, -1:, :], H, axis=1)
    tgt = part["t"][:, None] + np.arange(H)
    if tgt.min() - period < 0:
        raise ValueError(
            f"the series is too short for a seasonal-naive forecast at period {period}"
        )
    seasonal = (series[tgt - period] / windows["scale"]).astype(np.float32)
    return {"last value": last, "seasonal naive": seasonal}
