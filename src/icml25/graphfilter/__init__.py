"""GraphFilter (Wu et al., ICML 2025): quality × diversity data selection on a bipartite graph of
samples and their n-grams, with its baselines, the chatterbot pool, a retrieval proxy and a
tiny-LM "SFT" evaluator (held-out response NLL)."""

from icml25.graphfilter.baselines import BASELINES, select_baseline
from icml25.graphfilter.data import grow_pool, load_pairs, plant_noise, split_pairs
from icml25.graphfilter.evaluate import ENCODERS, evaluate_subset, subset_stats
from icml25.graphfilter.graph import BipartiteGraph, build_graph, graphfilter
from icml25.graphfilter.quality import ifd_scores, quality_from_ifd
from icml25.graphfilter.sft import evaluate_sft

__all__ = [
    "BASELINES",
    "ENCODERS",
    "BipartiteGraph",
    "build_graph",
    "evaluate_sft",
    "evaluate_subset",
    "graphfilter",
    "grow_pool",
    "ifd_scores",
    "load_pairs",
    "plant_noise",
    "quality_from_ifd",
    "select_baseline",
    "split_pairs",
    "subset_stats",
]
