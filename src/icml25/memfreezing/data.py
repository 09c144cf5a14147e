"""A synthetic continuous-time dynamic graph: a temporal SBM with a mid-stream community switch."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from icml25.common.checks import check_int, check_probability, check_seed

__all__ = ["TemporalStream", "make_temporal_sbm"]


@dataclass(frozen=True)
class TemporalStream:
    """A stream of E events (i, j, t, e_ij), sorted by time.

    Attributes:
        src, dst: (E,) int64 endpoints (no self-loops).
        t: (E,) float32 timestamps, non-decreasing, in [0, 1000].
        edge_feat: (E, edge_dim) float32 edge features.
        comm: (N,) community of each node before the switch.
        comm_after: (N,) community from event ``switch_at`` on.
        switch_at: index of the first event after the switch (E // 2).
        n_nodes: N.
    """

    src: np.ndarray
    dst: np.ndarray
    t: np.ndarray
    edge_feat: np.ndarray
    comm: np.ndarray
    comm_after: np.ndarray
    switch_at: int
    n_nodes: int

    @property
    def n_events(self) -> int:
        return int(self.src.size)

    @property
    def edge_dim(self) -> int:
        return int(self.edge_feat.shape[1])

    def degree(self, end: int) -> np.ndarray:
        """(N,) number of events of each node among the first ``end``."""
        ends = np.concatenate([self.src[:end], self.dst[:end]])
        return np.bincount(ends, minlength=self.n_nodes)


def make_temporal_sbm(
    n_nodes: int = 400,
    n_comm: int = 4,
    n_events: int = 40_000,
    edge_dim: int = 8,
    p_in: float = 0.9,
    switch_frac: float = 0.2,
    seed: int = 0,
) -> TemporalStream:
    """Temporal stochastic block model with a community switch half-way (our generator).

    Sources are drawn by activity ~ Pareto(1.5) + 1; the destination lies in the source's
    *current* community with probability ``p_in``, else in one of the other communities
    (uniformly), never the source itself. At ``switch_at = E // 2`` exactly
    ``round(switch_frac * N)`` nodes move to another community. Edge feature = mean of the two
    endpoints' community centroids (N(0, 1)) + N(0, 0.5²) noise. Times ~ U(0, 1000), sorted.
    """
    n_nodes = check_int("n_nodes", n_nodes, 2)
    n_comm = check_int("n_comm", n_comm, 2)
    if n_comm > n_nodes:
        raise ValueError(f"n_comm must be <= n_nodes={n_nodes}, got {n_comm}")
    n_events = check_int("n_events", n_events, 2)
    edge_dim = check_int("edge_dim", edge_dim, 1)
    p_in = check_probability("p_in", p_in)
    switch_frac = check_probability("switch_frac", switch_frac)
    seed = check_seed("seed", seed)
    rng = np.random.default_rng(seed)

    comm = rng.permutation(np.arange(n_nodes) % n_comm)  # balanced, every community non-empty
    comm_after = comm.copy()
    n_switch = int(round(switch_frac * n_nodes))
    movers = rng.choice(n_nodes, n_switch, replace=False)
    comm_after[movers] = (comm[movers] + rng.integers(1, n_comm, n_switch)) % n_comm
    centroids = rng.normal(0.0, 1.0, (n_comm, edge_dim))
    act = rng.pareto(1.5, n_nodes) + 1.0
    act /= act.sum()

    switch_at = n_events // 2
    src = rng.choice(n_nodes, n_events, p=act)
    t = np.sort(rng.uniform(0.0, 1000.0, n_events)).astype(np.float32)
    c_src = np.where(np.arange(n_events) < switch_at, comm[src], comm_after[src])
    inside = rng.random(n_events) < p_in
    target = np.where(inside, c_src, (c_src + rng.integers(1, n_comm, n_events)) % n_comm)
    dst = np.empty(n_events, dtype=np.int64)
    before = np.arange(n_events) < switch_at
    for sel, table in ((before, comm), (~before, comm_after)):
        for c in range(n_comm):
            members = np.flatnonzero(table == c)
            idx = np.flatnonzero(sel & (target == c))
            dst[idx] = members[rng.integers(0, members.size, idx.size)]
            clash = idx[dst[idx] == src[idx]]
            for i in clash:  # redraw a self-loop inside the community, else anywhere
                pool = members[members != src[i]]
                if pool.size == 0:
                    pool = np.flatnonzero(np.arange(n_nodes) != src[i])
                dst[i] = pool[rng.integers(0, pool.size)]
    c_dst = np.where(np.arange(n_events) < switch_at, comm[dst], comm_after[dst])
    noise = rng.normal(0.0, 0.5, (n_events, edge_dim))
    edge_feat = (0.5 * (centroids[c_src] + centroids[c_dst]) + noise).astype(np.float32)
    return TemporalStream(
        src=src.astype(np.int64),
        dst=dst,
        t=t,
        edge_feat=edge_feat,
        comm=comm,
        comm_after=comm_after,
        switch_at=switch_at,
        n_nodes=n_nodes,
    )
