"""The study of empirical privacy variance: a grid of DP-SGD configurations at one (epsilon,
delta), and its analysis (learning-rate tuning for utility, regression of exposure on the
hyperparameters, config-vs-seed ANOVA). The regressions and the selection rule are in
:mod:`icml25.privacy_variance.selection`.

Notation as in :mod:`icml25.privacy_variance.training`: batch size ``b``, steps ``T``, learning
rate ``lr``.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from icml25.common.checks import check_instance, check_int, check_positive, check_seed
from icml25.privacy_variance.corpus import Corpus, _check_corpus
from icml25.privacy_variance.exposure import exposure, extracted
from icml25.privacy_variance.training import _check_eps_delta, calibrate_sigma, train_dp

__all__ = ["config_vs_seed_anova", "run_grid", "tune_lr"]


def run_grid(
    configs: list[dict],
    corpus: Corpus,
    eps: float,
    delta: float,
    seeds: tuple[int, ...] | list[int] = (0,),
    measure_privacy: bool = True,
) -> pd.DataFrame:
    """Train every configuration ``{"b", "T", "lr"}`` for every seed at the same (eps, delta).

    Returns one row per (config, seed) with ``b, T, lr, seed, sigma, eps_spent, test_loss,
    seconds, diverged``, the mean exposure of the secrets inserted ``r`` times
    (``exposure_r{r}``) and of the controls (``exposure_control``), and the fraction of the
    most repeated secrets that greedy decoding extracts verbatim (``extracted_top``).
    ``measure_privacy=False`` skips exposure and extraction (a tuning run needs only the loss).

    ``diverged`` flags a run that did not train: its held-out loss is at least the unigram
    loss (the cross-entropy on ``corpus.test`` of the training tokens' frequencies, which a
    model reaches by ignoring the context; below the uniform ``log vocab``). Such a run's
    exposure measures a broken model, not memorisation; analyses should leave it out.
    """
    if not isinstance(measure_privacy, bool):
        raise TypeError(f"measure_privacy must be a bool, got {type(measure_privacy).__name__}")
    eps, delta = _check_eps_delta(eps, delta)
    _check_corpus(corpus)
    if not isinstance(configs, (list, tuple)) or not configs:
        raise ValueError("configs must be a non-empty list of {'b', 'T', 'lr'} dicts")
    for cfg in configs:
        if not isinstance(cfg, dict) or not {"b", "T", "lr"} <= set(cfg):
            raise ValueError(f"each of configs needs keys 'b', 'T', 'lr', got {cfg!r}")
        check_int("configs: b", cfg["b"])
        check_int("configs: T", cfg["T"])
        check_positive("configs: lr", cfg["lr"])
    if isinstance(seeds, (str, bytes)) or not isinstance(seeds, (list, tuple, range)) or not seeds:
        raise ValueError(f"seeds must be a non-empty list of seeds, got {seeds!r}")
    for seed in seeds:
        check_seed("seeds", seed)
    rows = []
    sigmas: dict[tuple[int, int], float] = {}
    levels = sorted(set(corpus.reps.tolist()) - {0})
    unigram = _unigram_loss(corpus)
    for cfg in configs:
        key = (cfg["b"], cfg["T"])
        if key not in sigmas:  # sigma depends on (b, T) only: calibrate once
            sigmas[key] = calibrate_sigma(eps, delta, cfg["b"], len(corpus.train), cfg["T"])
        for seed in seeds:
            res = train_dp(
                corpus, cfg["b"], cfg["T"], cfg["lr"], None, delta, seed=seed, sigma=sigmas[key]
            )
            row = {
                "b": cfg["b"],
                "T": cfg["T"],
                "lr": cfg["lr"],
                "seed": seed,
                "sigma": res.sigma,
                "eps_spent": res.eps_spent,
                "test_loss": res.test_loss,
                "seconds": res.seconds,
                "diverged": bool(res.test_loss >= unigram),
            }
            if measure_privacy:
                ex = exposure(res.model, corpus.prefixes, corpus.secrets)
                top = corpus.reps == max(levels)
                for r in levels:
                    row[f"exposure_r{r}"] = float(ex[corpus.reps == r].mean())
                row["exposure_control"] = float(ex[corpus.reps == 0].mean())
                row["extracted_top"] = float(
                    extracted(res.model, corpus.prefixes[top], corpus.secrets[top]).mean()
                )
            rows.append(row)
    return pd.DataFrame(rows)


def _unigram_loss(corpus: Corpus) -> float:
    """Cross-entropy (nats per predicted token) on ``corpus.test`` of the unigram frequencies
    of the predicted tokens of ``corpus.train`` (positions 1 .. L - 1)."""
    counts = np.bincount(corpus.train[:, 1:].ravel(), minlength=corpus.vocab) + 0.5
    logp = np.log(counts / counts.sum())
    return float(-logp[corpus.test[:, 1:].ravel()].mean())


def tune_lr(df: pd.DataFrame) -> list[dict]:
    """Utility-driven tuning: for every (b, T) of a :func:`run_grid` table, the learning rate
    with the lowest mean held-out loss. Returns the chosen configurations ``{"b", "T", "lr"}``,
    sorted by (b, T)."""
    check_instance("df", df, pd.DataFrame)
    missing = {"b", "T", "lr", "test_loss"} - set(df.columns)
    if missing:
        raise ValueError(f"df is missing columns {sorted(missing)}")
    if df.empty:
        raise ValueError("df has no rows")
    _check_numeric(df, ["test_loss"])
    mean = df.groupby(["b", "T", "lr"], as_index=False)["test_loss"].mean()
    best = mean.loc[mean.groupby(["b", "T"])["test_loss"].idxmin()].sort_values(["b", "T"])
    return [{"b": int(r.b), "T": int(r.T), "lr": float(r.lr)} for r in best.itertuples(index=False)]


def _check_numeric(df: pd.DataFrame, columns: list[str]) -> None:
    for col in ["b", "T", "lr", *columns]:
        values = pd.to_numeric(df[col], errors="coerce").to_numpy(dtype=float)
        if not np.all(np.isfinite(values)):
            raise ValueError(f"df column {col!r} must hold finite numbers")


def config_vs_seed_anova(df: pd.DataFrame, column: str) -> dict:
    """One-way ANOVA of ``column`` with the configuration (b, T, lr) as the factor.

    Returns ``{"between_sd", "within_sd", "F", "p"}``: the standard deviation of the
    configuration means, the pooled within-configuration (seed-to-seed) standard deviation,
    and scipy's ``f_oneway`` statistic and p-value.
    """
    check_instance("df", df, pd.DataFrame)
    if not isinstance(column, str) or column not in df.columns:
        raise ValueError(f"column must name a column of df, got {column!r}")
    missing = {"b", "T", "lr"} - set(df.columns)
    if missing:
        raise ValueError(f"df is missing columns {sorted(missing)}")
    _check_numeric(df, [column])
    groups = [g[column].to_numpy() for _, g in df.groupby(["b", "T", "lr"])]
    if len(groups) < 2 or min(len(g) for g in groups) < 2:
        raise ValueError("df needs at least 2 configurations with at least 2 seeds each")
    from scipy.stats import f_oneway

    means = np.array([g.mean() for g in groups])
    within = np.sqrt(np.mean([g.var(ddof=1) for g in groups]))
    stat = f_oneway(*groups)
    return {
        "between_sd": float(means.std(ddof=1)),
        "within_sd": float(within),
        "F": float(stat.statistic),
        "p": float(stat.pvalue),
    }
