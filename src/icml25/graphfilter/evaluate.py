"""The downstream proxy (a retrieval responder scored by MiniLM) and subset composition."""

from __future__ import annotations

import numpy as np
from sklearn.feature_extraction.text import TfidfVectorizer
from sklearn.preprocessing import normalize

from icml25.common.checks import check_choice, check_index_array
from icml25.graphfilter.data import _check_pairs
from icml25.graphfilter.graph import BipartiteGraph, _check_graph

__all__ = ["ENCODERS", "evaluate_subset", "subset_stats"]

ENCODERS = ("minilm", "tfidf")
_MINILM: dict = {}  # the model and an embedding cache keyed by text (texts recur across calls)


def _embed(texts: list[str], encoder: str, fit: list[str]) -> np.ndarray:
    """Unit vectors (T, d) of ``texts``; for "tfidf" fitted on ``fit`` (the call's own texts,
    the test responses included: the optional tf-idf encoder's idf sees the gold answers)."""
    if encoder == "tfidf":
        vec = TfidfVectorizer().fit(fit)
        return normalize(vec.transform(texts)).toarray()
    if "model" not in _MINILM:
        from icml25.common.pretrained import load_minilm

        _MINILM["model"] = load_minilm()
        _MINILM["cache"] = {}
    cache = _MINILM["cache"]
    missing = sorted({t for t in texts if t not in cache})
    if missing:
        emb = _MINILM["model"].encode(missing, normalize_embeddings=True, batch_size=64)
        cache.update(zip(missing, np.asarray(emb, dtype=np.float64), strict=True))
    return np.stack([cache[t] for t in texts])


def _check_selected(selected, n: int) -> np.ndarray:
    sel = check_index_array("selected", selected, n, ndim=1, high_name="len(pairs)")
    if len(np.unique(sel)) != len(sel):
        raise ValueError("selected must not repeat an index")
    return sel


def evaluate_subset(pairs, selected, test_pairs, encoder: str = "minilm") -> float:
    """Mean cosine between answer and gold response over ``test_pairs``: each test instruction
    is answered with the response of the selected pair whose instruction is nearest (cosine)."""
    pairs = _check_pairs("pairs", pairs)
    sel = _check_selected(selected, len(pairs))
    test = _check_pairs("test_pairs", test_pairs)
    encoder = check_choice("encoder", encoder, ENCODERS)
    sx = [pairs[i][0] for i in sel]
    sy = [pairs[i][1] for i in sel]
    tx, ty = [a for a, _ in test], [b for _, b in test]
    fit = sx + sy + tx + ty
    nearest = np.argmax(_embed(tx, encoder, fit) @ _embed(sx, encoder, fit).T, axis=1)
    answers = [sy[j] for j in nearest]
    cos = np.sum(_embed(answers, encoder, fit) * _embed(ty, encoder, fit), axis=1)
    return float(np.mean(cos))


def subset_stats(pairs, selected, is_corrupt, dup_of, graph: BipartiteGraph | None = None) -> dict:
    """Composition of a subset: ``corrupt`` (share of corrupted pairs), ``duplicate`` (share of
    items whose planted near-duplicate family — a source and its copies — is already represented
    earlier in the selection), ``exact_duplicate`` (count of pairs identical to an earlier
    selected pair), ``coverage`` (share of the graph's n-grams covered; NaN without a graph)."""
    pairs = _check_pairs("pairs", pairs)
    n = len(pairs)
    sel = _check_selected(selected, n)
    bad = np.asarray(is_corrupt)
    if bad.dtype != bool or bad.shape != (n,):
        raise ValueError(f"is_corrupt must be a bool array of shape ({n},)")
    dup = check_index_array("dup_of", dup_of, n, low=-1, ndim=1, high_name="len(pairs)")
    if dup.shape != (n,):
        raise ValueError(f"dup_of must have shape ({n},), got {dup.shape}")
    family = np.where(dup >= 0, dup, np.arange(n))
    seen_f, seen_p = set(), set()
    n_dup = n_exact = 0
    for i in sel:
        n_dup += int(family[i] in seen_f)
        n_exact += int(pairs[i] in seen_p)
        seen_f.add(family[i])
        seen_p.add(pairs[i])
    coverage = float("nan")
    if graph is not None:
        graph = _check_graph(graph)
        if graph.n_samples != n:
            raise ValueError(f"graph must have {n} samples, got {graph.n_samples}")
        cols = np.unique(graph.incidence[sel].indices)
        coverage = len(cols) / max(graph.incidence.shape[1], 1)
    return {
        "corrupt": float(bad[sel].mean()) if len(sel) else 0.0,
        "duplicate": n_dup / max(len(sel), 1),
        "exact_duplicate": n_exact,
        "coverage": coverage,
    }
