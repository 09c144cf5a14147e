"""The STAMP membership test and a fast count language model for null calibration."""

from __future__ import annotations

import numpy as np
from scipy import stats
from scipy.stats import mstats

from icml25.common.checks import (
    check_finite_array,
    check_index_array,
    check_int,
    check_positive,
    check_probability,
    check_real,
)


def stamp_test(public_ppl, private_ppls, clip_frac: float = 0.0) -> tuple[float, float]:
    """One-sided paired t-test of H₁: public perplexity < mean private perplexity.

    Args:
        public_ppl: (n,) perplexity p_i of each item's public (released) version.
        private_ppls: (n, K) perplexities of its K private versions; q_i is their row mean.
        clip_frac: winsorise this fraction at each tail of the public array and of each of the
            K private columns separately, before the row mean (as the official code's
            ``remove_outliers(..., outliers="clip")`` does). 0, the default and the plain test
            the chapter reports, gives exactly ``scipy.stats.ttest_rel(p, q,
            alternative="less")``; 0.025 is the official recipe.

    Returns:
        ``(pvalue, t)``; identical public and private perplexities (no variance of the paired
        differences p_i − q_i) have no t-test and raise ``ValueError``.
    """
    public = check_finite_array("public_ppl", public_ppl, 1)
    private = check_finite_array("private_ppls", private_ppls, 2)
    if public.shape[0] < 2:
        raise ValueError(f"public_ppl must hold at least 2 items, got {public.shape[0]}")
    if private.shape[0] != public.shape[0]:
        raise ValueError(
            f"private_ppls must have shape ({public.shape[0]}, K) to match public_ppl, "
            f"got {private.shape}"
        )
    clip_frac = check_real("clip_frac", clip_frac, 0.0, 0.5, high_open=True)
    p = public
    if clip_frac > 0:
        p = np.asarray(mstats.winsorize(p, limits=(clip_frac, clip_frac)))
        private = np.stack(
            [np.asarray(mstats.winsorize(c, limits=(clip_frac, clip_frac))) for c in private.T],
            axis=1,
        )
    q = private.mean(axis=1)
    res = stats.ttest_rel(p, q, alternative="less")
    if np.isnan(res.pvalue):
        raise ValueError(
            "public_ppl and private_ppls: the paired differences have no variance (identical "
            "versions?), so the t-test is undefined"
        )
    return float(res.pvalue), float(res.statistic)


def split_public(versions, public_index) -> tuple[np.ndarray, np.ndarray]:
    """Pick each item's public version: item i publishes version ``public_index[i]``.

    Args:
        versions: (V, n, L) ids, V keyed versions of n items (as :func:`make_items` returns).
        public_index: (n,) ints in 0..V−1; all zeros is "version 0 is public" (one public key
            for the whole benchmark, as in the paper), a random draw per item spreads the
            public role over the keys.

    Returns:
        ``(public, private)``: (n, L) and (V−1, n, L), the private versions in key order.
    """
    x = check_index_array("versions", versions, None, ndim=3)
    if x.shape[0] < 2:
        raise ValueError(f"versions must hold at least 2 versions, got {x.shape[0]}")
    idx = check_index_array("public_index", public_index, x.shape[0], ndim=1)
    if idx.shape[0] != x.shape[1]:
        raise ValueError(
            f"public_index must have one entry per item ({x.shape[1]}), got {idx.shape[0]}"
        )
    items = np.arange(x.shape[1])
    public = x[idx, items]
    keep = np.arange(x.shape[0])[None, :] != idx[:, None]  # (n, V)
    order = np.argsort(~keep, axis=1, kind="stable")[:, : x.shape[0] - 1]  # (n, V−1)
    private = np.moveaxis(x[order, items[:, None]], 1, 0)
    return public, private


def effect_size(public_ppl, private_ppls, level: float = 0.95) -> tuple[float, float, float]:
    """Mean paired difference d̄ = mean_i (p_i − q_i) and its t confidence interval.

    The quantity whose sign :func:`stamp_test` tests: negative when the suspect prefers the
    public versions. ``public_ppl`` (n,), ``private_ppls`` (n, K); returns ``(d̄, low, high)``
    at confidence ``level``.
    """
    public = check_finite_array("public_ppl", public_ppl, 1)
    private = check_finite_array("private_ppls", private_ppls, 2)
    if public.shape[0] < 2 or private.shape[0] != public.shape[0]:
        raise ValueError(
            f"public_ppl (n >= 2) and private_ppls (n, K) must match, got {public.shape} and "
            f"{private.shape}"
        )
    level = check_probability("level", level, low_open=True, high_open=True)
    d = public - private.mean(axis=1)
    half = stats.t.ppf(0.5 + level / 2, len(d) - 1) * d.std(ddof=1) / np.sqrt(len(d))
    return float(d.mean()), float(d.mean() - half), float(d.mean() + half)


class BigramLM:
    """An add-α bigram count model over ids 0..vocab_size−1 (0 = BOS): a fast suspect model."""

    def __init__(self, vocab_size: int, alpha: float = 0.1) -> None:
        self.vocab_size = check_int("vocab_size", vocab_size, 2)
        self.alpha = check_positive("alpha", alpha)
        self.counts = np.zeros((vocab_size, vocab_size))

    def _check(self, sequences) -> np.ndarray:
        check_index_array("sequences", sequences, self.vocab_size, ndim=2, high_name="vocab_size")
        return np.asarray(sequences)

    def fit(self, sequences) -> BigramLM:
        """Count bigrams of the (N, L) id array (ids < vocab_size), with BOS before each."""
        x = self._check(sequences)
        prev = np.concatenate([np.zeros((len(x), 1), dtype=x.dtype), x[:, :-1]], axis=1)
        np.add.at(self.counts, (prev.ravel(), x.ravel()), 1)
        return self

    def perplexity(self, sequences) -> np.ndarray:
        """Per-sequence perplexity, shape (N,)."""
        x = self._check(sequences)
        prev = np.concatenate([np.zeros((len(x), 1), dtype=x.dtype), x[:, :-1]], axis=1)
        row = self.counts[prev, x] + self.alpha
        total = self.counts.sum(axis=1)[prev] + self.alpha * self.vocab_size
        return np.exp(-np.log(row / total).mean(axis=1))
