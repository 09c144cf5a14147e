"""The pool: chatterbot-corpus instruction/response pairs, the clean test split, planted noise.

``load_pairs`` reads the YAML files of the ``chatterbot-corpus`` wheel with pyyaml (data only,
chatterbot itself is never imported). ``split_pairs`` holds out a fraction of the *distinct*
instructions (one response each) as the clean test set, and removes every copy of them from the
pool. ``plant_noise`` then shuffles a fraction of the responses (the low-quality items) and
appends near-duplicates made by word dropout (the redundancy).
"""

from __future__ import annotations

import glob
import importlib.util
import os

import numpy as np
import yaml

from icml25.common.checks import check_choice, check_int, check_probability, check_seed

__all__ = ["grow_pool", "load_pairs", "plant_noise", "split_pairs"]

SOURCES = ("chatterbot",)
LANGS = ("english",)


def _check_pairs(name: str, pairs) -> list[tuple[str, str]]:
    if not isinstance(pairs, (list, tuple)):
        raise TypeError(f"{name} must be a list of (instruction, response) pairs")
    if len(pairs) == 0:
        raise ValueError(f"{name} must not be empty")
    out = []
    for p in pairs:
        ok = isinstance(p, (list, tuple)) and len(p) == 2
        if not (ok and all(isinstance(s, str) for s in p)):
            raise TypeError(f"{name} must hold (str, str) pairs, got {p!r}")
        out.append((p[0], p[1]))
    return out


def load_pairs(source: str = "chatterbot", lang: str = "english") -> list[tuple[str, str]]:
    """All (instruction, response) pairs of the installed corpus: the first two turns of every
    conversation, files in sorted order (English: 2,026 pairs, 749 distinct instructions)."""
    check_choice("source", source, SOURCES)
    check_choice("lang", lang, LANGS)
    spec = importlib.util.find_spec("chatterbot_corpus")
    if spec is None:
        raise ImportError("chatterbot-corpus is not installed; run: pip install chatterbot-corpus")
    root = list(spec.submodule_search_locations)[0]
    pairs = []
    for path in sorted(glob.glob(os.path.join(root, "data", lang, "*.yml"))):
        with open(path, encoding="utf-8") as f:
            doc = yaml.safe_load(f) or {}
        for conv in doc.get("conversations", []) or []:
            if len(conv) >= 2 and isinstance(conv[0], str) and isinstance(conv[1], str):
                pairs.append((conv[0].strip(), conv[1].strip()))
    return pairs


def split_pairs(pairs, test_frac: float = 0.2, seed: int = 0):
    """(pool, test): ``test`` holds ``round(test_frac · m)`` of the m distinct instructions with
    one response each (their first); ``pool`` every pair whose instruction is not in ``test``."""
    pairs = _check_pairs("pairs", pairs)
    test_frac = check_probability("test_frac", test_frac, low_open=True, high_open=True)
    rng = np.random.default_rng(check_seed("seed", seed))
    first: dict[str, str] = {}
    for x, y in pairs:
        first.setdefault(x, y)
    distinct = list(first)
    n_test = int(round(test_frac * len(distinct)))
    if n_test < 1 or n_test >= len(distinct):
        raise ValueError(f"test_frac={test_frac} leaves no test or no pool instruction")
    chosen = {distinct[i] for i in rng.choice(len(distinct), n_test, replace=False)}
    test = [(x, first[x]) for x in distinct if x in chosen]
    pool = [(x, y) for x, y in pairs if x not in chosen]
    return pool, test


def _dropout(text: str, rng: np.random.Generator, p: float = 0.2) -> str:
    """``text`` with each word dropped with probability ``p`` (at least one dropped, one kept)."""
    words = text.split()
    if len(words) < 2:
        return text
    keep = rng.random(len(words)) >= p
    if keep.all():
        keep[rng.integers(len(words))] = False
    if not keep.any():
        keep[0] = True
    return " ".join(w for w, k in zip(words, keep, strict=True) if k)


def plant_noise(pairs, corrupt_frac: float = 0.25, dup_frac: float = 0.2, seed: int = 0):
    """Shuffle responses and add near-duplicates.

    ``round(corrupt_frac · n)`` pairs get a response drawn from another pair (a random
    permutation among them; ``is_corrupt`` marks those whose response changed), then
    ``round(dup_frac · n)`` near-duplicates are appended: a copy of a random item with 20 % of
    its instruction's words dropped and the same response. Returns (pairs, is_corrupt (N,) bool,
    dup_of (N,) int: the source index of an appended copy, -1 for originals), N = n + n_dup.
    """
    pairs = _check_pairs("pairs", pairs)
    corrupt_frac = check_probability("corrupt_frac", corrupt_frac)
    dup_frac = check_probability("dup_frac", dup_frac)
    rng = np.random.default_rng(check_seed("seed", seed))
    n = len(pairs)
    out = list(pairs)
    idx = rng.choice(n, int(round(corrupt_frac * n)), replace=False)
    perm = rng.permutation(idx)
    for i, j in zip(idx, perm, strict=True):
        out[i] = (pairs[i][0], pairs[j][1])
    is_corrupt = np.array([out[i][1] != pairs[i][1] for i in range(n)], dtype=bool)
    src = rng.choice(n, int(round(dup_frac * n)), replace=True)
    dup_of = np.full(n + len(src), -1, dtype=np.int64)
    corrupt = list(is_corrupt)
    for t, s in enumerate(src):
        out.append((_dropout(out[s][0], rng), out[s][1]))
        dup_of[n + t] = s
        corrupt.append(is_corrupt[s])
    return out, np.array(corrupt, dtype=bool), dup_of


def grow_pool(pairs, n: int, p: float = 0.2, seed: int = 0) -> list[tuple[str, str]]:
    """A pool of exactly ``n`` pairs for timing runs: the first ``n`` of ``pairs`` if there are
    enough, else all of them followed by ``n - len(pairs)`` copies of random pairs with each word
    of both the instruction and the response dropped with probability ``p``."""
    pairs = _check_pairs("pairs", pairs)
    n = check_int("n", n, 1)
    p = check_probability("p", p, low_open=True, high_open=True)
    rng = np.random.default_rng(check_seed("seed", seed))
    if n <= len(pairs):
        return pairs[:n]
    src = rng.choice(len(pairs), n - len(pairs), replace=True)
    extra = [(_dropout(pairs[s][0], rng, p), _dropout(pairs[s][1], rng, p)) for s in src]
    return pairs + extra
