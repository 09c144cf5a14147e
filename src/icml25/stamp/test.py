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
    check_real,
)


def stamp_test(public_ppl, private_ppls, clip_frac: float = 0.0) -> tuple[float, float]:
    """One-sided paired t-test of H₁: public perplexity < mean private perplexity.

    Args:
        public_ppl: (n,) perplexity of each item's public (released) version.
        private_ppls: (n, K) perplexities of its K private versions.
        clip_frac: winsorise this fraction at each tail of both arrays; 0 (the default, the
            plain test the chapter reports) gives exactly ``scipy.stats.ttest_rel(public,
            private_mean, alternative="less")``; 0.025 is the official recipe, which the chapter
            finds rejects too often under the null.

    Returns:
        ``(pvalue, t)``; identical public and private perplexities (no variance of the paired
        differences) have no t-test and raise ``ValueError``.
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
    q = private.mean(axis=1)
    p = public
    if clip_frac > 0:
        p = np.asarray(mstats.winsorize(p, limits=(clip_frac, clip_frac)))
        q = np.asarray(mstats.winsorize(q, limits=(clip_frac, clip_frac)))
    res = stats.ttest_rel(p, q, alternative="less")
    if np.isnan(res.pvalue):
        raise ValueError(
            "public_ppl and private_ppls: the paired differences have no variance (identical "
            "versions?), so the t-test is undefined"
        )
    return float(res.pvalue), float(res.statistic)


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
        total = self.counts[prev].sum(axis=-1) + self.alpha * self.vocab_size
        return np.exp(-np.log(row / total).mean(axis=1))
