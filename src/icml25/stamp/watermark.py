"""KGW watermarking over a synonym grammar: the miniature stand-in for an LLM rephraser.

A :class:`Grammar` has ``n_groups`` synonym groups of ``n_syn`` words; word ids are
``1 + group · n_syn + synonym`` (0 is the language model's BOS), so the vocabulary has
``1 + n_groups · n_syn`` ids. A *template* is a sequence of group ids (the meaning); a
*rephrase* picks one synonym per slot. KGW (Kirchenbauer et al. 2023): at each slot a green list
G(prev, key), a pseudo-random γ-fraction of the vocabulary seeded by the previous token and the
secret key, gets +δ added to its logits; δ = 0 is a plain (unwatermarked) rephrase. The detector
counts green tokens: z = (|s|_G − γT) / sqrt(T γ (1 − γ)).
"""

from __future__ import annotations

import bisect
import hashlib
import math
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from icml25.common.checks import (
    check_index,
    check_index_array,
    check_instance,
    check_int,
    check_probability,
    check_real,
    check_rng,
    check_seed,
)


@dataclass(frozen=True)
class Grammar:
    """``n_groups`` synonym groups of ``n_syn`` words each; ids 1..n_groups·n_syn."""

    n_groups: int = 300
    n_syn: int = 4

    def __post_init__(self) -> None:
        check_int("n_groups", self.n_groups)
        check_int("n_syn", self.n_syn, 2)

    @property
    def vocab_size(self) -> int:
        """Number of ids including BOS (0)."""
        return 1 + self.n_groups * self.n_syn

    def synonyms(self, group: int) -> np.ndarray:
        """Ids of the words of ``group``, shape (n_syn,)."""
        group = check_index("group", group, self.n_groups)
        return 1 + group * self.n_syn + np.arange(self.n_syn)


def make_synonym_grammar(n_groups: int = 300, n_syn: int = 4) -> Grammar:
    """A synonym grammar (see :class:`Grammar`)."""
    return Grammar(check_int("n_groups", n_groups), check_int("n_syn", n_syn, 2))


def sample_templates(
    grammar: Grammar, n: int, length: int = 12, zipf_a: float = 0.8, seed: int = 0
) -> np.ndarray:
    """(n, length) group ids drawn with p(g) ∝ 1/(g+1)^zipf_a, so that contexts recur."""
    _check_grammar(grammar)
    n = check_int("n", n)
    length = check_int("length", length)
    zipf_a = check_real("zipf_a", zipf_a)
    seed = check_seed("seed", seed)
    probs = 1.0 / np.arange(1, grammar.n_groups + 1) ** zipf_a
    rng = np.random.default_rng(seed)
    return rng.choice(grammar.n_groups, size=(n, length), p=probs / probs.sum())


def _check_grammar(grammar: object) -> Grammar:
    return check_instance("grammar", grammar, Grammar)


def _check_key(key: object) -> int:
    return check_int("key", key, None)


def _check_delta(delta: object) -> float:
    return check_real("delta", delta, 0.0)


def _check_gamma(gamma: object) -> float:
    return check_probability("gamma", gamma, low_open=True, high_open=True)


def _check_templates(name: str, templates: object, grammar: Grammar, ndim: int) -> np.ndarray:
    """Group ids of the grammar (ids outside it would give words outside the vocabulary)."""
    return check_index_array(name, templates, grammar.n_groups, ndim=ndim)


# One green row is vocab_size bytes (1201 B for the chapter's grammar); the cache keeps at most
# GREEN_CACHE_ROWS of them, about 24 MB when full (measured with tracemalloc in
# tests/test_stamp.py). A benchmark of 9 keyed versions needs at most 9 · vocab_size rows, so the
# bound never evicts rows while one benchmark is being rephrased.
GREEN_CACHE_ROWS = 16_384


@lru_cache(maxsize=GREEN_CACHE_ROWS)
def _green_bytes(prev_token: int, key: int, vocab_size: int, gamma: float) -> bytes:
    digest = hashlib.sha256(f"{key}-{prev_token}".encode()).hexdigest()[:8]
    return (np.random.default_rng(int(digest, 16)).random(vocab_size) < gamma).tobytes()


def _green(prev_token: int, key: int, vocab_size: int, gamma: float) -> np.ndarray:
    """The cached row as a read-only boolean array (a view of the cached bytes, no copy)."""
    return np.frombuffer(_green_bytes(prev_token, key, vocab_size, gamma), dtype=bool)


def kgw_green_mask(prev_token: int, key: int, vocab_size: int, gamma: float = 0.25) -> np.ndarray:
    """The green list G(prev_token, key): a boolean mask of shape (vocab_size,), ~γ of it True.

    Seeded by sha256 of ``f"{key}-{prev_token}"``, so it is a deterministic function of both.
    """
    vocab_size = check_int("vocab_size", vocab_size, 2)
    prev_token = check_index("prev_token", prev_token, vocab_size)
    return _green(prev_token, _check_key(key), vocab_size, _check_gamma(gamma))


def watermarked_rephrase(
    template,
    grammar: Grammar,
    key: int,
    delta: float = 1.0,
    gamma: float = 0.25,
    rng: np.random.Generator | None = None,
) -> list[int]:
    """Rephrase ``template`` (group ids): at each slot choose among the group's synonyms with
    probabilities ∝ exp(δ · [word ∈ G(prev, key)]). δ = 0 gives a plain uniform rephrase.

    ``template`` holds group ids in 0..n_groups−1; ``rng`` defaults to
    ``numpy.random.default_rng(0)``. Each slot costs one ``rng.random()`` draw, mapped to a
    synonym by inverse-transform sampling (the method is in :func:`_rephrase`).
    """
    template = _check_templates("template", template, _check_grammar(grammar), 1)
    key, delta, gamma = _check_key(key), _check_delta(delta), _check_gamma(gamma)
    return _rephrase(template, grammar, key, delta, gamma, check_rng("rng", rng, default_seed=0))


def _rephrase(template, grammar: Grammar, key: int, delta: float, gamma: float, rng) -> list[int]:
    """:func:`watermarked_rephrase` without argument checks (the inner loop of the chapter)."""
    # Inverse-transform sampling of a discrete distribution (Devroye 1986, Non-Uniform Random
    # Variate Generation, §III.2.1): candidate j has weight w_j = 1 if it is green, else e^−δ
    # (∝ exp(δ·[green]), so P(j) = w_j / Σ w); one uniform u ~ U[0, 1) from ``rng.random()``
    # picks the first j whose cumulative weight W_j = w_1 + … + w_j exceeds u · W_n. Equal in
    # distribution to ``rng.choice(cands, p=softmax(δ · green))`` (tested statistically), and
    # written out because the loop runs once per word of every version.
    red = math.exp(-float(delta))
    out: list[int] = []
    prev = 0
    vocab, key, gamma, n_syn = grammar.vocab_size, int(key), float(gamma), grammar.n_syn
    for group in np.asarray(template).tolist():
        first = 1 + int(group) * n_syn
        green = _green_bytes(prev, key, vocab, gamma)[first : first + n_syn]
        cumulative, acc = [], 0.0
        for g in green:
            acc += 1.0 if g else red
            cumulative.append(acc)
        word = first + min(bisect.bisect_right(cumulative, rng.random() * acc), n_syn - 1)
        out.append(word)
        prev = word
    return out


def kgw_zscore(tokens, key: int, vocab_size: int, gamma: float = 0.25) -> float:
    """KGW detector: z = (green count − γT) / sqrt(Tγ(1 − γ)) over T tokens (BOS first).

    ``tokens`` are ids in 0..vocab_size−1; an id outside that range (negative, or >= vocab_size)
    raises ``ValueError`` naming ``tokens`` rather than indexing past the green list.
    """
    vocab_size = check_int("vocab_size", vocab_size, 2)
    tokens = check_index_array("tokens", tokens, vocab_size, ndim=1, high_name="vocab_size")
    tokens = tokens.tolist()
    key, gamma = _check_key(key), _check_gamma(gamma)
    prev = 0
    green = 0
    for tok in tokens:
        green += _green_bytes(prev, key, vocab_size, gamma)[tok]
        prev = tok
    T = len(tokens)
    return float((green - gamma * T) / np.sqrt(T * gamma * (1 - gamma)))


def make_versions(
    templates: np.ndarray,
    grammar: Grammar,
    keys: list[int],
    delta: float = 1.0,
    gamma: float = 0.25,
    seed: int = 0,
) -> np.ndarray:
    """One rephrase of every template per key: int array (len(keys), n, length)."""
    templates = _check_templates("templates", templates, _check_grammar(grammar), 2)
    if isinstance(keys, (str, bytes)) or not hasattr(keys, "__iter__"):
        raise TypeError(f"keys must be a list of int keys, got {type(keys).__name__}")
    keys = [check_int("keys", k, None) for k in keys]
    if not keys:
        raise ValueError("keys must hold at least one key")
    delta, gamma = _check_delta(delta), _check_gamma(gamma)
    rng = np.random.default_rng(check_seed("seed", seed))
    return np.array(
        [[_rephrase(t, grammar, k, delta, gamma, rng) for t in templates] for k in keys]
    )


def make_items(
    grammar: Grammar, n_items: int, n_private: int, delta: float, seed: int, gamma: float = 0.25
) -> np.ndarray:
    """A benchmark of ``n_items`` templates and its 1 + ``n_private`` keyed versions.

    Version 0 is the public one. Keys are ``1000 (seed + 1) + 0 .. n_private``; templates and
    rephrasings are seeded from ``seed``. Returns (1 + n_private, n_items, length) ids.
    """
    n_items, n_private = check_int("n_items", n_items), check_int("n_private", n_private)
    delta, gamma, seed = _check_delta(delta), _check_gamma(gamma), check_seed("seed", seed)
    templates = sample_templates(grammar, n_items, seed=10 * seed + 1)
    keys = list(range(1000 * (seed + 1), 1000 * (seed + 1) + n_private + 1))
    return make_versions(templates, grammar, keys, delta=delta, gamma=gamma, seed=10 * seed + 2)


def make_background(grammar: Grammar, n: int, seed: int) -> np.ndarray:
    """``n`` plain (unwatermarked) background sentences, seeded from ``seed``: (n, length) ids."""
    n, seed = check_int("n", n), check_seed("seed", seed)
    templates = sample_templates(grammar, n, seed=10 * seed + 3)
    return make_versions(templates, grammar, [7], delta=0.0, seed=10 * seed + 4)[0]
