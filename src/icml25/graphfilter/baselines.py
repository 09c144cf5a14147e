"""Baselines: random, quality top-k, diversity only (GraphFilter with Q ≡ 1), k-center greedy."""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp
from sklearn.metrics import pairwise_distances
from sklearn.preprocessing import normalize

from icml25.common.checks import check_choice, check_finite_array, check_int, check_seed
from icml25.graphfilter.graph import BipartiteGraph, _check_graph, check_quality, graphfilter

__all__ = ["BASELINES", "select_baseline"]

BASELINES = ("random", "quality_topk", "diversity_only", "kcenter")


def _kcenter(V, k: int, rng: np.random.Generator) -> list[int]:
    """Greedy k-center (Gonzalez): start at a random row, then the row farthest from the chosen."""
    V = normalize(V)  # L2-normalised rows
    n = V.shape[0]
    first = int(rng.integers(n))
    sel = [first]
    dmin = pairwise_distances(V, V[first : first + 1]).ravel()
    while len(sel) < min(k, n):
        u = int(np.argmax(dmin))
        if dmin[u] <= 0:
            break
        sel.append(u)
        dmin = np.minimum(dmin, pairwise_distances(V, V[u : u + 1]).ravel())
    return sel


def select_baseline(
    name: str,
    k: int,
    *,
    graph: BipartiteGraph | None = None,
    quality=None,
    vectors=None,
    seed: int = 0,
) -> list[int]:
    """Indices of up to ``k`` samples chosen by the baseline ``name``.

    "random": k uniformly without replacement (n from whichever input is given);
    "quality_topk": the k highest ``quality`` (ties: lower index); "diversity_only":
    ``graphfilter(graph, 1, k)``; "kcenter": greedy k-center on the L2-normalised rows of
    ``vectors`` (default: the TF-IDF incidence of ``graph``).
    """
    name = check_choice("name", name, BASELINES)
    k = check_int("k", k, 1)
    seed = check_seed("seed", seed)
    if graph is not None:
        graph = _check_graph(graph)
    n = graph.n_samples if graph is not None else None
    if quality is not None:
        q = check_finite_array("quality", quality, ndim=1)
        q = check_quality(q, n if n is not None else len(q))
        n = len(q) if n is None else n
    if vectors is not None:
        if not sp.issparse(vectors):
            vectors = check_finite_array("vectors", vectors, ndim=2)
        if n is not None and vectors.shape[0] != n:
            raise ValueError(f"vectors must have {n} rows, got {vectors.shape[0]}")
        n = vectors.shape[0] if n is None else n
    rng = np.random.default_rng(seed)
    if name == "random":
        if n is None:
            raise ValueError("random needs graph, quality or vectors (to know n)")
        return [int(i) for i in rng.choice(n, min(k, n), replace=False)]
    if name == "quality_topk":
        if quality is None:
            raise ValueError("quality_topk needs quality")
        return [int(i) for i in np.argsort(-q, kind="stable")[:k]]
    if name == "diversity_only":
        if graph is None:
            raise ValueError("diversity_only needs graph")
        return graphfilter(graph, np.ones(graph.n_samples), k)
    if vectors is None:
        if graph is None:
            raise ValueError("kcenter needs vectors or graph")
        vectors = graph.incidence
    return _kcenter(vectors, k, rng)
