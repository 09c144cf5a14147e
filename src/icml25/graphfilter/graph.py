"""The bipartite sample–n-gram graph and the GraphFilter greedy selection.

``build_graph`` gives the incidence matrix W (n, |V|): ``W[u, v]`` = tf(v, u)·idf(v) (scikit-
learn's tokeniser and smoothed idf, ``norm=None``) or 1 for "binary". ``graphfilter`` is greedy
weighted max coverage with the priority φ(u) = Quality(u) × Diversity(u), where Diversity(u) =
D(u) = Σ_{v uncovered} W[u, v]: take argmax φ, mark its n-grams covered, recompute.
"""

from __future__ import annotations

import heapq
from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp
from sklearn.feature_extraction.text import CountVectorizer, TfidfVectorizer

from icml25.common.checks import check_choice, check_finite_array, check_int

__all__ = ["BipartiteGraph", "build_graph", "graphfilter"]

WEIGHTINGS = ("tfidf", "binary")
COMBINES = ("mul", "add")


@dataclass
class BipartiteGraph:
    """Samples U (rows) and n-grams V (columns): ``incidence`` CSR (n_samples, n_ngrams) of edge
    weights, ``vocabulary`` the n-gram of each column."""

    incidence: sp.csr_matrix
    vocabulary: list[str]
    n_samples: int


def build_graph(texts, n_max: int = 3, weighting: str = "tfidf") -> BipartiteGraph:
    """The graph of ``texts`` (n,) and their 1..``n_max``-grams."""
    if not isinstance(texts, (list, tuple)) or not all(isinstance(t, str) for t in texts):
        raise TypeError("texts must be a list of strings")
    if len(texts) == 0:
        raise ValueError("texts must not be empty")
    n_max = check_int("n_max", n_max, 1)
    weighting = check_choice("weighting", weighting, WEIGHTINGS)
    if weighting == "tfidf":
        vec = TfidfVectorizer(ngram_range=(1, n_max), norm=None)
    else:
        vec = CountVectorizer(ngram_range=(1, n_max), binary=True)
    try:
        W = vec.fit_transform(list(texts))
    except ValueError as err:  # every text empty or stop words only
        raise ValueError(f"texts hold no n-gram ({err})") from None
    W = sp.csr_matrix(W, dtype=np.float64)
    W.sort_indices()
    return BipartiteGraph(W, list(vec.get_feature_names_out()), len(texts))


def _check_graph(graph) -> BipartiteGraph:
    if not isinstance(graph, BipartiteGraph):
        raise TypeError(f"graph must be a BipartiteGraph, got {type(graph).__name__}")
    return graph


def check_quality(quality, n: int) -> np.ndarray:
    """``quality`` as a finite float array of shape (n,) with entries >= 0."""
    q = check_finite_array("quality", quality, ndim=1)
    if q.shape[0] != n:
        raise ValueError(f"quality must have one entry per sample ({n}), got {q.shape[0]}")
    if q.min() < 0:
        raise ValueError(f"quality must be >= 0, got a minimum of {q.min()}")
    return q


class _Priority:
    """φ(u) from the current uncovered mask; one function for lazy, naive and static paths."""

    def __init__(self, W: sp.csr_matrix, q: np.ndarray, combine: str) -> None:
        self.W, self.q, self.combine = W, q, combine
        self.uncovered = np.ones(W.shape[1])
        self.d0 = np.asarray(W.sum(axis=1)).ravel()
        self.q_max = q.max() if q.max() > 0 else 1.0
        self.d_max = self.d0.max() if self.d0.max() > 0 else 1.0

    def diversity(self, u: int) -> float:
        a, b = self.W.indptr[u], self.W.indptr[u + 1]
        return float(self.W.data[a:b] @ self.uncovered[self.W.indices[a:b]])

    def phi(self, u: int, d: float) -> float:
        if self.combine == "mul":
            return float(self.q[u] * d)
        return float(self.q[u] / self.q_max + d / self.d_max)

    def cover(self, u: int) -> None:
        a, b = self.W.indptr[u], self.W.indptr[u + 1]
        self.uncovered[self.W.indices[a:b]] = 0.0


def graphfilter(
    graph: BipartiteGraph,
    quality,
    k: int,
    combine: str = "mul",
    update: bool = True,
    lazy: bool = True,
) -> list[int]:
    """Select up to ``k`` samples of ``graph`` by the priority φ.

    φ(u) = q_u·D(u) ("mul") or q_u/max q + D(u)/max D₀ ("add"), D(u) = Σ_{v uncovered} W[u, v].
    A sample is eligible while D(u) > 0 and φ(u) > 0; each step takes the eligible argmax (ties:
    the lower index) and covers its n-grams, so the list may be shorter than ``k``.
    ``update=False`` ranks once by φ₀ (no recomputation). ``lazy=True`` keeps a max-heap of stale
    priorities (they only decrease as coverage grows, so a popped item whose fresh φ still beats
    the heap top is the true argmax); ``lazy=False`` recomputes every φ at every step; both
    return the same list.
    """
    graph = _check_graph(graph)
    q = check_quality(quality, graph.n_samples)
    k = check_int("k", k, 1)
    combine = check_choice("combine", combine, COMBINES)
    if not isinstance(update, bool):
        raise TypeError(f"update must be a bool, got {type(update).__name__}")
    if not isinstance(lazy, bool):
        raise TypeError(f"lazy must be a bool, got {type(lazy).__name__}")
    P = _Priority(graph.incidence, q, combine)
    n = graph.n_samples
    if not update:
        phi0 = np.array([P.phi(u, P.d0[u]) for u in range(n)])
        ok = (P.d0 > 0) & (phi0 > 0)
        order = sorted(np.flatnonzero(ok), key=lambda u: (-phi0[u], u))
        return [int(u) for u in order[:k]]
    selected: list[int] = []
    if lazy:
        heap = [(-P.phi(u, P.d0[u]), u) for u in range(n) if P.d0[u] > 0]
        heapq.heapify(heap)
        while heap and len(selected) < k:
            neg, u = heapq.heappop(heap)
            d = P.diversity(u)
            p = P.phi(u, d)
            if d <= 0 or p <= 0:
                continue  # never eligible again: coverage only grows
            if heap and (-p, u) > heap[0]:
                heapq.heappush(heap, (-p, u))  # stale: reinsert with its fresh priority
                continue
            selected.append(u)
            P.cover(u)
        return selected
    alive = set(range(n))
    while alive and len(selected) < k:
        best, best_p = -1, 0.0
        for u in sorted(alive):
            d = P.diversity(u)
            p = P.phi(u, d) if d > 0 else 0.0
            if p > best_p:
                best, best_p = u, p
        if best < 0:
            break
        selected.append(best)
        alive.discard(best)
        P.cover(best)
    return selected
