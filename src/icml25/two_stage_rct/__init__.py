"""Two-stage RCT design with certified treatment effects (Cortes-Gomez et al., ICML 2025).

Public API:

* bounds: :func:`width`, :func:`certificate`, :func:`coverage_vs_k`;
* designs: :func:`run_design` (one trial, returns a :class:`DesignResult`), :func:`run_batch`
  (t trials at once), :func:`allocation`, :func:`split_scores`,
  :data:`POLICIES`;
* experiments: :func:`simulate` (paired by default: common random numbers through an
  :class:`OutcomeTape`), :func:`draw_arm_means`, :data:`LABELS`.
"""

from icml25.two_stage_rct.bounds import BOUNDS, CORRECTIONS, certificate, coverage_vs_k, width
from icml25.two_stage_rct.design import (
    OUTCOMES,
    POLICIES,
    DesignResult,
    allocation,
    run_batch,
    run_design,
    split_scores,
)
from icml25.two_stage_rct.experiments import LABELS, draw_arm_means, simulate
from icml25.two_stage_rct.tape import OutcomeTape

__all__ = [
    "BOUNDS",
    "CORRECTIONS",
    "LABELS",
    "OUTCOMES",
    "OutcomeTape",
    "POLICIES",
    "DesignResult",
    "allocation",
    "certificate",
    "coverage_vs_k",
    "draw_arm_means",
    "run_batch",
    "run_design",
    "simulate",
    "split_scores",
    "width",
]
