"""STAMP (Rastogi, Maini & Pruthi, ICML 2025): proving a dataset was in a model's training data.

* watermark: :func:`make_synonym_grammar`, :func:`sample_templates`, :func:`kgw_green_mask`,
  :func:`watermarked_rephrase`, :func:`kgw_zscore`, :func:`make_versions`, :func:`make_items`,
  :func:`make_background`;
* test: :func:`stamp_test`, :class:`BigramLM` (a fast count model for null calibration).

The transformer suspect model is the book's shared one: :mod:`icml25.common.lm`. The real-LLM
path (an instruction model rephrasing with ``transformers``' watermark) is
:mod:`icml25.stamp.llm`, imported on its own.
"""

from icml25.stamp.test import BigramLM, stamp_test
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
    "kgw_green_mask",
    "kgw_zscore",
    "make_background",
    "make_items",
    "make_synonym_grammar",
    "make_versions",
    "sample_templates",
    "stamp_test",
    "watermarked_rephrase",
]
