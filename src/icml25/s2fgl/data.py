"""The miniature's data: a community-structured contextual SBM and its Louvain split into clients.

Symbols: N nodes, C classes, d features, Q planted communities, K clients; ``h_q`` the planted
homophily of community q; ``p_inter`` the share of partners drawn from the whole graph.
"""

from __future__ import annotations

from dataclasses import dataclass

import networkx as nx
import numpy as np

from icml25.common import checks

__all__ = ["ClientData", "GraphData", "louvain_partition", "make_csbm_communities"]


@dataclass(frozen=True)
class GraphData:
    """A graph with node features and labels.

    Attributes:
        x: (N, d) float features; y: (N,) int labels in 0..C-1;
        edges: (E, 2) int, unique undirected edges with i < j;
        community: (N,) planted community of each node;
        community_homophily: (Q,) planted homophily h_q of each community.
    """

    x: np.ndarray
    y: np.ndarray
    edges: np.ndarray
    community: np.ndarray
    community_homophily: np.ndarray

    @property
    def n_nodes(self) -> int:
        return int(self.y.shape[0])

    @property
    def n_classes(self) -> int:
        return int(self.y.max()) + 1


@dataclass(frozen=True)
class ClientData:
    """One client's subgraph.

    Attributes:
        nodes: (n,) global ids of its nodes (sorted); x: (n, d); y: (n,);
        adj: (n, n) dense 0/1 induced adjacency without self-loops (cross-client edges dropped);
        train_mask, val_mask, test_mask: (n,) bool, disjoint.
    """

    nodes: np.ndarray
    x: np.ndarray
    y: np.ndarray
    adj: np.ndarray
    train_mask: np.ndarray
    val_mask: np.ndarray
    test_mask: np.ndarray


def _check_range(name: str, value: object) -> tuple[float, float]:
    if not isinstance(value, (tuple, list)) or len(value) != 2:
        raise TypeError(f"{name} must be a pair (low, high), got {value!r}")
    lo = checks.check_real(f"{name}[0]", value[0], 0.0, 1.0)
    hi = checks.check_real(f"{name}[1]", value[1], 0.0, 1.0)
    if lo > hi:
        raise ValueError(f"{name} must have low <= high, got {value!r}")
    return lo, hi


def make_csbm_communities(
    n_nodes: int = 2000,
    n_classes: int = 5,
    n_features: int = 64,
    n_communities: int = 30,
    homophily_range: tuple[float, float] = (0.1, 0.95),
    p_inter: float = 0.1,
    feat_signal: float = 0.35,
    label_skew: float = 0.7,
    partners: int = 5,
    seed: int = 0,
) -> GraphData:
    """Planted community-structured contextual SBM.

    Each community q gets a label distribution ~ Dirichlet(label_skew) and a homophily
    h_q ~ U(homophily_range). Each node draws ``partners`` partners: with probability
    ``p_inter`` anyone in the graph, otherwise a member of its own community, of its own label
    with probability h_q (of another label otherwise; the other pool when one is empty).
    Features x_i = feat_signal * mu_{y_i} + eps, mu_c, eps ~ N(0, I_d).
    """
    n = checks.check_int("n_nodes", n_nodes, 2)
    c = checks.check_int("n_classes", n_classes, 2)
    d = checks.check_int("n_features", n_features, 1)
    q_n = checks.check_int("n_communities", n_communities, 1, n)
    h_lo, h_hi = _check_range("homophily_range", homophily_range)
    p_inter = checks.check_probability("p_inter", p_inter)
    feat_signal = checks.check_real("feat_signal", feat_signal, 0.0)
    label_skew = checks.check_positive("label_skew", label_skew)
    partners = checks.check_int("partners", partners, 1)
    rng = np.random.default_rng(checks.check_seed("seed", seed))

    community = rng.integers(0, q_n, n)
    probs = rng.dirichlet(label_skew * np.ones(c), q_n)
    u = rng.random(n)
    y = (u[:, None] > np.cumsum(probs[community], axis=1)).sum(1).clip(0, c - 1)
    h = rng.uniform(h_lo, h_hi, q_n)
    pools = {}
    for q in range(q_n):
        members = np.nonzero(community == q)[0]
        for k in range(c):
            pools[(q, k, True)] = members[y[members] == k]
            pools[(q, k, False)] = members[y[members] != k]
    edges = []
    for i in range(n):
        q, k = community[i], y[i]
        for _ in range(partners):
            if rng.random() < p_inter:
                j = int(rng.integers(n))
            else:
                same = rng.random() < h[q]
                pool = pools[(q, k, same)]
                if len(pool) == 0 or (same and len(pool) == 1):
                    pool = pools[(q, k, not same)]
                if len(pool) == 0:
                    continue
                j = int(rng.choice(pool))
            if j != i:
                edges.append((min(i, j), max(i, j)))
    e = np.unique(np.array(edges, dtype=np.int64).reshape(-1, 2), axis=0)
    mu = rng.normal(0.0, 1.0, (c, d))
    x = feat_signal * mu[y] + rng.normal(0.0, 1.0, (n, d))
    return GraphData(x.astype(np.float32), y.astype(np.int64), e, community, h)


def _check_graph(graph: object) -> GraphData:
    return checks.check_instance("graph", graph, GraphData)


def louvain_partition(
    graph: GraphData,
    n_clients: int = 10,
    seed: int = 0,
    split: tuple[float, float, float] = (0.6, 0.2, 0.2),
) -> list[ClientData]:
    """Louvain communities (networkx), largest first to the lightest client; cross-client edges
    are dropped (the label-signal disruption); per client a random train/val/test split.
    Every client must get at least one training node, and the val and test shares must be > 0
    (``ValueError`` naming ``split``)."""
    graph = _check_graph(graph)
    n_clients = checks.check_int("n_clients", n_clients, 1)
    seed = checks.check_seed("seed", seed)
    if not isinstance(split, (tuple, list)) or len(split) != 3:
        raise TypeError(f"split must be a triple (train, val, test), got {split!r}")
    fr = [checks.check_probability(f"split[{i}]", s) for i, s in enumerate(split)]
    if abs(sum(fr) - 1.0) > 1e-6:
        raise ValueError(f"split must sum to 1, got {split!r} (sum {sum(fr)})")
    if fr[0] <= 0:
        raise ValueError(f"split[0] (the train share) must be > 0, got {split!r}")
    if fr[1] <= 0 or fr[2] <= 0:  # run_federated reports pooled val and test accuracy
        raise ValueError(f"split[1] and split[2] (val and test shares) must be > 0, got {split!r}")
    n = graph.n_nodes
    g = nx.Graph()
    g.add_nodes_from(range(n))
    g.add_edges_from(graph.edges.tolist())
    comms = sorted(nx.community.louvain_communities(g, seed=seed), key=lambda s: (-len(s), min(s)))
    if n_clients > len(comms):
        raise ValueError(
            f"n_clients must be <= the number of Louvain communities ({len(comms)}), "
            f"got {n_clients}"
        )
    owner = np.empty(n, dtype=np.int64)
    loads = np.zeros(n_clients, dtype=np.int64)
    for com in comms:
        k = int(np.argmin(loads))
        owner[list(com)] = k
        loads[k] += len(com)
    rng = np.random.default_rng(seed)
    a_full = np.zeros((n, n), dtype=np.float32)
    a_full[graph.edges[:, 0], graph.edges[:, 1]] = 1.0
    a_full[graph.edges[:, 1], graph.edges[:, 0]] = 1.0
    clients = []
    for k in range(n_clients):
        idx = np.nonzero(owner == k)[0]
        m = len(idx)
        perm = rng.permutation(m)
        n_tr, n_va = int(round(fr[0] * m)), int(round(fr[1] * m))
        if n_tr == 0:
            raise ValueError(
                f"split gives client {k} ({m} nodes) no training node: raise split[0] "
                f"(got {split!r}) or lower n_clients"
            )
        masks = [np.zeros(m, dtype=bool) for _ in range(3)]
        masks[0][perm[:n_tr]] = True
        masks[1][perm[n_tr : n_tr + n_va]] = True
        masks[2][perm[n_tr + n_va :]] = True
        clients.append(
            ClientData(
                idx,
                graph.x[idx],
                graph.y[idx],
                a_full[np.ix_(idx, idx)].copy(),
                *masks,
            )
        )
    return clients
