"""STAMP (Rastogi, Maini & Pruthi, ICML 2025): proving a dataset was in a model's training data.

* watermark: :func:`make_synonym_grammar`, :func:`sample_templates`, :func:`kgw_green_mask`,
  :func:`watermarked_rephrase`, :func:`kgw_zscore`, :func:`make_versions`, :func:`make_items`,
  :func:`make_background`;
* test: :func:`stamp_test`, :func:`effect_size`, :func:`split_public` (which version of each
  item is public), :class:`BigramLM` (a fast count model for null calibration);
* baselines: :func:`token_logprobs`, :func:`perplexity_score`, :func:`min_k_prob`,
  :func:`zlib_ratio`, :func:`fpr_at_tpr` (membership scores without a p-value).

The transformer suspect model is the book's shared one: :mod:`icml25.common.lm`. The real-LLM
path (an instruction model rephrasing with ``transformers``' watermark) is
:mod:`icml25.stamp.llm`, imported on its own.
"""

from icml25.stamp.baselines import (
    fpr_at_tpr,
    min_k_prob,
    perplexity_score,
    token_logprobs,
    zlib_ratio,
)
from icml25.stamp.test import BigramLM, effect_size, split_public, stamp_test
from icml25.stamp.watermark import (
    Grammar,
    kgw_green_mask,
    kgw_zscore,
    make_background,
    make_items,
    make_synonym_grammar,
    make_versions,
    sample_templates,
    watermarked_rephrase,
)

__all__ = [
    "BigramLM",
    "Grammar",
    "effect_size",
    "fpr_at_tpr",
    "kgw_green_mask",
    "kgw_zscore",
    "make_background",
    "make_items",
    "make_synonym_grammar",
    "make_versions",
    "min_k_prob",
    "perplexity_score",
    "sample_templates",
    "split_public",
    "stamp_test",
    "token_logprobs",
    "watermarked_rephrase",
    "zlib_ratio",
]
