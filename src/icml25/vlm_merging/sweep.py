"""The merges the chapter compares, and their accuracies: a grid per method, chosen on val.

A *candidate* is ``(method, weights, density, swap_below)``; :func:`merge_candidates` lists the
book's grid (linear λ, task-arithmetic (λ1, λ2), TIES with the repo's weights and densities,
layer swap at every depth with the paper's α = 0.9) and :func:`evaluate_merges` scores each
merge of (base, VLM, reasoning LM) on one split.
"""

from __future__ import annotations

import copy

import numpy as np
import pandas as pd

from icml25.common.checks import check_finite_array, check_int
from icml25.vlm_merging.merging import merge
from icml25.vlm_merging.model import _check_model, _check_suite, evaluate

__all__ = ["evaluate_merges", "merge_candidates"]


def merge_candidates(n_layer: int, lambdas=None) -> list[dict]:
    """The grid: linear at each λ of ``lambdas`` (default 1.0, 0.9, ..., 0.0; λ is the VLM's
    weight), task arithmetic on (λ1, λ2) ∈ {0.5, 1.0, 1.5}², TIES at densities 0.2 / 0.5 / 1.0
    with weights (1, 1) and the repo's (1.6, 0.2), layer swap below 1..n_layer − 1 at α = 0.9."""
    n_layer = check_int("n_layer", n_layer, 1)
    if lambdas is None:
        lambdas = np.round(np.linspace(1.0, 0.0, 11), 2)
    lambdas = [float(x) for x in check_finite_array("lambdas", lambdas, ndim=1, min_size=0)]
    if not lambdas or any(not 0.0 <= x <= 1.0 for x in lambdas):
        raise ValueError(f"lambdas must be a non-empty list of numbers in [0, 1], got {lambdas}")
    out = [{"method": "linear", "weights": (x, round(1 - x, 10))} for x in lambdas]
    for l1 in (0.5, 1.0, 1.5):
        for l2 in (0.5, 1.0, 1.5):
            out.append({"method": "task_arithmetic", "weights": (l1, l2)})
    for w in ((1.0, 1.0), (1.6, 0.2)):
        for dens in (0.2, 0.5, 1.0):
            out.append({"method": "ties", "weights": w, "density": dens})
    for k in range(1, n_layer):
        out.append({"method": "layerswap", "weights": (0.9, 0.1), "swap_below": k})
    return out


def evaluate_merges(models: dict, suite, candidates: list[dict], tasks, split: str = "val"):
    """One row per candidate: method, weights, density, swap_below and one accuracy column per
    task of the merge of ``models`` ("base", "vlm", "reason") on ``split``."""
    if not isinstance(models, dict) or not {"base", "vlm", "reason"} <= set(models):
        raise TypeError("models must be a dict with the keys 'base', 'vlm' and 'reason'")
    vlm = _check_model(models["vlm"])
    suite = _check_suite(suite)
    if not isinstance(candidates, list) or not candidates:
        raise TypeError("candidates must be a non-empty list of dicts (merge_candidates)")
    base, sv, sr = (models[k].state_dict() for k in ("base", "vlm", "reason"))
    probe = copy.deepcopy(vlm)
    rows = []
    for c in candidates:
        if not isinstance(c, dict) or "method" not in c:
            raise TypeError(f"candidates must be dicts with a 'method', got {c!r}")
        try:
            merged = merge(base, [sv, sr], **c)
        except (TypeError, ValueError) as err:
            raise type(err)(f"candidates: {c!r}: {err}") from None
        probe.load_state_dict(merged)
        acc = evaluate(probe, suite, tasks, split)
        rows.append(
            {
                "method": c["method"],
                "weights": tuple(c.get("weights", (0.9, 0.1))),
                "density": c.get("density", 1.0),
                "swap_below": c.get("swap_below"),
                **acc,
            }
        )
    return pd.DataFrame(rows)
