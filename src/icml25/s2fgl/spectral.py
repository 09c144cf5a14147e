"""Motivation analyses: label-signal disruption (PPR structure inertia) and spectral heterogeneity.

``P = (I - (1 - alpha) D~^-1 A~)^-1`` with ``A~ = A + I``; ``alpha`` is the restart probability
(0.85 in the official code); ``t`` the (n,) 0/1 train mask.
"""

from __future__ import annotations

import networkx as nx
import numpy as np
from scipy.special import rel_entr

from icml25.common import checks
from icml25.s2fgl.data import ClientData, GraphData

__all__ = [
    "important_nodes",
    "label_disruption",
    "label_frequency",
    "node_importance",
    "ppr_matrix",
    "spectral_stats",
]


def _check_adj(adj: object) -> np.ndarray:
    a = checks.check_array("adj", adj, 2)
    if a.shape[0] != a.shape[1]:
        raise ValueError(f"adj must be square, got shape {a.shape}")
    if not np.allclose(a, a.T):
        raise ValueError("adj must be symmetric")
    if a.min() < 0:
        raise ValueError("adj must be non-negative")
    return a


def _propagation(a: np.ndarray, alpha: float, self_loops: bool = True) -> np.ndarray:
    """(I - (1 - alpha) W)^-1 with W = D~^-1 (A + I), or the official code's D^-1 A (degree
    + 1e-6, no self-loops) when ``self_loops`` is False."""
    if self_loops:
        at = a + np.eye(a.shape[0])
        w = at / at.sum(1, keepdims=True)
    else:
        w = a / (a.sum(1, keepdims=True) + 1e-6)
    return np.linalg.inv(np.eye(a.shape[0]) - (1.0 - alpha) * w)


def ppr_matrix(adj: np.ndarray, alpha: float = 0.85) -> np.ndarray:
    """Personalised PageRank alpha (I - (1 - alpha) D~^-1 A~)^-1, (n, n), rows sum to 1."""
    a = _check_adj(adj)
    alpha = checks.check_real("alpha", alpha, 0.0, 1.0, low_open=True, high_open=True)
    return alpha * _propagation(a, alpha)


def node_importance(adj: np.ndarray, train_mask: np.ndarray, alpha: float = 0.85) -> np.ndarray:
    """Lambda_i = max_j P_ij t_j + alpha sum_j P_ij t_j (structure inertia + label coverage), (n,).

    The official code's formula, with P = (I - (1 - alpha) D~^-1 A~)^-1 (no alpha in front).
    """
    a = _check_adj(adj)
    t = _check_mask("train_mask", train_mask, a.shape[0])
    alpha = checks.check_real("alpha", alpha, 0.0, 1.0, low_open=True, high_open=True)
    p = _propagation(a, alpha) * t[None, :]
    return p.max(1) + alpha * p.sum(1)


def important_nodes(adj: np.ndarray, train_mask: np.ndarray, alpha: float = 0.85) -> np.ndarray:
    """The client's important nodes I_k: the indices of the top floor(n / 3) nodes by
    :func:`node_importance` (ties in index order), sorted, (floor(n / 3),) int."""
    lam = node_importance(adj, train_mask, alpha)
    return np.sort(np.argsort(-lam, kind="stable")[: len(lam) // 3])


def _check_mask(name: str, mask: object, n: int) -> np.ndarray:
    if not isinstance(mask, np.ndarray) or mask.dtype != bool:
        raise TypeError(f"{name} must be a bool numpy array")
    if mask.shape != (n,):
        raise ValueError(f"{name} must have shape ({n},), got {mask.shape}")
    return mask.astype(float)


def label_frequency(adj: np.ndarray, y: np.ndarray) -> float:
    """Sum_c y_c^T (D - A) y_c / sum_c y_c^T D y_c for one-hot labels y_c: the share of the
    labels' energy at high graph frequency (= 1 - edge homophily)."""
    a = _check_adj(adj)
    y = checks.check_index_array("y", y, None)
    if y.shape != (a.shape[0],):
        raise ValueError(f"y must have shape ({a.shape[0]},), got {y.shape}")
    onehot = np.eye(int(y.max()) + 1)[y]
    deg = a.sum(1)
    den = float((onehot * (deg[:, None] * onehot)).sum())
    if den == 0:
        raise ValueError("adj has no edges: the label frequency is undefined")
    num = float((onehot * ((deg[:, None] * onehot) - a @ onehot)).sum())
    return num / den


def _check_clients(clients: object) -> list[ClientData]:
    if not isinstance(clients, (list, tuple)) or len(clients) == 0:
        raise TypeError("clients must be a non-empty list of ClientData")
    for c in clients:
        checks.check_instance("clients", c, ClientData)
    return list(clients)


def spectral_stats(
    clients: list[ClientData], bins: int = 20
) -> tuple[list[np.ndarray], np.ndarray]:
    """Eigenvalues of each client's normalised Laplacian (networkx) and the (K, K) matrix of
    KL(p_i || p_j) between their histograms on [0, 2] (``bins`` bins, +1e-3 smoothing)."""
    clients = _check_clients(clients)
    bins = checks.check_int("bins", bins, 1)
    eigs, hists = [], []
    for c in clients:
        lap = nx.normalized_laplacian_matrix(nx.from_numpy_array(c.adj)).toarray()
        ev = np.clip(np.linalg.eigvalsh(lap), 0.0, 2.0)
        eigs.append(ev)
        hist = np.histogram(ev, bins=bins, range=(0.0, 2.0))[0].astype(float) + 1e-3
        hists.append(hist / hist.sum())
    k = len(clients)
    kl = np.array([[rel_entr(hists[i], hists[j]).sum() for j in range(k)] for i in range(k)])
    return eigs, kl


def label_disruption(
    graph: GraphData, clients: list[ClientData], alpha: float = 0.85, self_loops: bool = True
) -> dict:
    """Dropped-edge share and the structure inertia of unlabelled nodes, whole graph vs clients.

    Structure inertia of node i: max_j alpha P_ij t_j (PPR from i to its strongest labelled
    node); on the whole graph with the union of the clients' train masks, and on the clients'
    own subgraphs (cross-client edges gone). Returns ``dropped_share``, ``n_edges``,
    ``n_dropped``, ``inertia_graph``, ``inertia_clients`` (means over unlabelled nodes) and
    ``coverage_graph``/``coverage_clients`` (sum_j alpha P_ij t_j, same nodes).
    ``self_loops=False`` uses the official code's propagation D^-1 A (no self-loops).
    """
    graph = checks.check_instance("graph", graph, GraphData)
    clients = _check_clients(clients)
    alpha = checks.check_real("alpha", alpha, 0.0, 1.0, low_open=True, high_open=True)
    if not isinstance(self_loops, bool):
        raise TypeError(f"self_loops must be a bool, got {type(self_loops).__name__}")
    n = graph.n_nodes
    nodes = np.concatenate([c.nodes for c in clients])
    if len(nodes) != n or len(np.unique(nodes)) != n or nodes.min() < 0 or nodes.max() >= n:
        raise ValueError("clients must partition the nodes of graph")
    train = np.zeros(n, dtype=bool)
    for c in clients:
        train[c.nodes[c.train_mask]] = True
    a = np.zeros((n, n))
    a[graph.edges[:, 0], graph.edges[:, 1]] = 1.0
    a = a + a.T
    p = alpha * _propagation(a, alpha, self_loops) * train[None, :]
    unl = ~train
    kept = sum(int(c.adj.sum()) // 2 for c in clients)
    inert_c, cover_c = [], []
    for c in clients:
        pc = alpha * _propagation(c.adj.astype(float), alpha, self_loops) * c.train_mask[None, :]
        inert_c.append(pc.max(1)[~c.train_mask])
        cover_c.append(pc.sum(1)[~c.train_mask])
    n_edges = int(len(graph.edges))
    return {
        "n_edges": n_edges,
        "n_dropped": n_edges - kept,
        "dropped_share": (n_edges - kept) / max(n_edges, 1),
        "inertia_graph": float(p.max(1)[unl].mean()),
        "inertia_clients": float(np.concatenate(inert_c).mean()),
        "coverage_graph": float(p.sum(1)[unl].mean()),
        "coverage_clients": float(np.concatenate(cover_c).mean()),
    }
