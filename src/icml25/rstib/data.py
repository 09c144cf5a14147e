"""A synthetic road network whose congestion waves travel downstream, and dual noise.

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

from icml25.common.checks import (
    check_array,
    check_choice,
    check_int,
    check_probability,
    check_real,
    check_seed,
)

__all__ = ["TrafficData", "add_noise", "make_traffic_graph", "simulate_traffic"]


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
    kind = check_choice("kind", kind, ("corridors", "knn"))
    if kind == "corridors" and n_nodes % 4:
        raise ValueError(f"n_nodes must be divisible by 4 for kind='corridors', got {n_nodes}")
    rng = np.random.default_rng(check_seed("seed", seed))
    W = np.zeros((n_nodes, n_nodes))
    if kind == "corridors":
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
    else:  # knn
        coords = rng.uniform(0, 1, size=(n_nodes, 2))
        dist = np.linalg.norm(coords[:, None] - coords[None], axis=-1)
        for i in range(n_nodes):
            east = np.flatnonzero(coords[:, 0] > coords[i, 0])
            for j in east[np.argsort(dist[i, east])][:3]:
                W[i, j] = 1.0
        sigma = float(np.std(dist[W > 0])) + float(np.mean(dist[W > 0]))
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
    shock_rate = check_probability("shock_rate", shock_rate, high_open=True)
    attenuation = check_probability("attenuation", attenuation, high_open=True)
    drop = check_probability("drop", drop)
    ar_std = check_real("ar_std", ar_std, 0.0)
    rng = np.random.default_rng(check_seed("seed", seed))
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
    ratio = check_real("ratio", ratio, 0.0)
    rng = np.random.default_rng(check_seed("seed", seed))
    return x + rng.normal(0.0, float(ratio) * float(np.std(x)), size=x.shape)
