"""DIS-CO (Duarte et al., ICML 2025): detecting copyrighted content in a VLM's training data from
free-form answers, on MovieTection-Synth (synthetic movies, no real frame or title).

* world: :func:`make_movies`, :func:`render_frame`, :func:`caption`, :func:`make_split`
  (:class:`MovieSpec`, :class:`FrameSet`, :class:`Split`);
* model: :func:`build_title_vlm`, :func:`train_title_vlm` (:class:`TitleVLM`, on the book's
  :class:`~icml25.common.vlm.TinyVLM`);
* scores: :func:`match_title`, :func:`disco_scores` (DIS-CO, ⌊DIS-CO⌋), :func:`mcqa_scores`,
  :func:`mia_scores` (perplexity, Min-K%), :func:`oracle_scores`, :func:`detection_auc`;
* experiment: :func:`prepare_runs` (the per-seed set-up of notebooks 2 and 3, :class:`SeedRun`,
  :data:`RUN_CONFIGS`);
* checkpoints: :func:`save_trained`, :func:`load_trained`, :func:`checkpoint_path` (the committed
  trained models of the reported seeds, ``data/disco/``).
"""

from icml25.disco.checkpoints import checkpoint_path, load_trained, save_trained
from icml25.disco.experiment import RUN_CONFIGS, SeedRun, prepare_runs
from icml25.disco.model import TitleVLM, build_title_vlm, train_title_vlm
from icml25.disco.scores import (
    METHODS,
    MIA_METHODS,
    all_scores,
    detection_auc,
    disco_scores,
    frame_hits,
    match_title,
    mcqa_scores,
    mia_scores,
    normalise_title,
    oracle_scores,
)
from icml25.disco.world import (
    COLOURS,
    KINDS,
    PROPS,
    FrameSet,
    MovieSpec,
    Split,
    caption,
    make_movies,
    make_split,
    render_frame,
)

__all__ = [
    "COLOURS",
    "KINDS",
    "METHODS",
    "MIA_METHODS",
    "PROPS",
    "RUN_CONFIGS",
    "FrameSet",
    "MovieSpec",
    "SeedRun",
    "Split",
    "TitleVLM",
    "all_scores",
    "build_title_vlm",
    "caption",
    "checkpoint_path",
    "detection_auc",
    "disco_scores",
    "frame_hits",
    "load_trained",
    "make_movies",
    "make_split",
    "match_title",
    "mcqa_scores",
    "mia_scores",
    "normalise_title",
    "oracle_scores",
    "prepare_runs",
    "render_frame",
    "save_trained",
    "train_title_vlm",
]
