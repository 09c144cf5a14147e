"""Regressions of empirical privacy on the hyperparameters, bootstrap intervals, and the
regression-guided selection rule evaluated on configurations and seeds it was not fitted on.

Notation as in :mod:`icml25.privacy_variance.training`: batch size ``b``, steps ``T``, learning
rate ``lr`` (η), noise multiplier ``sigma`` (σ), clipping norm ``C``. A *configuration* is one
``(b, T, lr)``; a table has one row per (configuration, seed), as :func:`run_grid` returns.

Three regressions (``MODELS``), all on the natural logs of the hyperparameters:

* ``"individual"``: ``log b + log T + log η``;
* ``"composite"``: the paper's composite hyperparameters, ``log(b·T)`` (the compute, gradients
  computed) + ``log(σC/b)`` (the noise-to-signal ratio: the standard deviation of the noise in
  the averaged gradient, relative to the clipped signal) + ``log η``. With a fixed ``C``,
  ``log(σC/b)`` and ``log(σ/b)`` differ by the constant ``log C``: one regressor, not two;
* ``"interaction"``: ``individual`` plus the ``log b × log η`` interaction.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from icml25.common.checks import (
    check_choice,
    check_finite_array,
    check_instance,
    check_int,
    check_real,
    check_seed,
)
from icml25.privacy_variance.study import _check_numeric

__all__ = [
    "MODELS",
    "bootstrap_coefficients",
    "fit_privacy_regression",
    "heldout_selection",
    "select_configuration",
]

MODELS = {
    "individual": "np.log(b) + np.log(T) + np.log(lr)",
    "composite": "np.log(bT) + np.log(nsr) + np.log(lr)",
    "interaction": "np.log(b) + np.log(T) + np.log(lr) + np.log(b):np.log(lr)",
}
KEYS = ["b", "T", "lr"]


def _top_exposure(df: pd.DataFrame) -> str:
    cols = sorted(
        (
            c
            for c in df.columns
            if isinstance(c, str) and c[:10] == "exposure_r" and c[10:].isdigit()
        ),
        key=lambda c: int(c[10:]),
    )
    if not cols:
        raise ValueError("df has no exposure_r* column; pass response=")
    return cols[-1]


def _prepare(df: object, response: object, model: object, clip: float = 1.0):
    """Validate a grid table and return (table with composites, response column, model)."""
    check_instance("df", df, pd.DataFrame)
    model = check_choice("model", model, tuple(MODELS))
    if response is None:
        response = _top_exposure(df)
    if not isinstance(response, str) or not response.isidentifier():
        raise ValueError(f"response must name a column of df (an identifier), got {response!r}")
    if response not in df.columns:
        raise ValueError(f"response {response!r} is not a column of df")
    needed = set(KEYS) | ({"sigma"} if model == "composite" else set())
    missing = needed - set(df.columns)
    if missing:
        raise ValueError(f"df is missing columns {sorted(missing)} (model {model!r})")
    if len(df) < 6:
        raise ValueError(f"df needs at least 6 rows to fit a regression, got {len(df)}")
    _check_numeric(df, [response] + (["sigma"] if model == "composite" else []))
    positive = KEYS + (["sigma"] if model == "composite" else [])
    if not (df[positive].to_numpy(dtype=float) > 0).all():
        raise ValueError(f"df columns {positive} must be > 0 (their logs are regressors)")
    out = df.copy()
    out["bT"] = out["b"] * out["T"]  # compute: gradients computed over training
    if "sigma" in out.columns:
        out["nsr"] = out["sigma"] * clip / out["b"]  # noise-to-signal ratio sigma C / b
    return out, response, model


def _design(df: pd.DataFrame, model: str) -> pd.DataFrame:
    """The design matrix of ``MODELS[model]`` (patsy, the same one the formula fit uses)."""
    from patsy import dmatrix

    return dmatrix(MODELS[model], df, return_type="dataframe")


def fit_privacy_regression(
    df: pd.DataFrame, response: str | None = None, model: str = "individual"
):
    """OLS of empirical privacy on the hyperparameters (statsmodels formula API):
    ``response ~ MODELS[model]``.

    ``response`` defaults to the exposure of the most repeated canaries; ``model="composite"``
    needs a ``sigma`` column (C = 1). Returns the fitted ``RegressionResults`` (``.params``,
    ``.conf_int()``, ``.pvalues``, ``.rsquared``, ``.predict(table)``).
    """
    data, response, model = _prepare(df, response, model)
    import statsmodels.formula.api as smf

    return smf.ols(f"{response} ~ {MODELS[model]}", data=data).fit()


def bootstrap_coefficients(
    df: pd.DataFrame,
    response: str | None = None,
    model: str = "individual",
    n_boot: int = 1000,
    level: float = 0.95,
    seed: int = 0,
) -> pd.DataFrame:
    """Percentile bootstrap intervals of the regression coefficients, **resampling
    configurations** (a resampled configuration brings all its seeds along), so that the
    interval reflects which configurations happened to be in the grid, not only seed noise.

    Returns a table indexed by term with ``coef`` (the fit on ``df``), ``lo``, ``hi`` (the
    ``level`` interval) and ``sd`` (bootstrap standard deviation). Resamples whose design is
    rank-deficient (too few distinct configurations drawn) are redrawn.
    """
    data, response, model = _prepare(df, response, model)
    n_boot = check_int("n_boot", n_boot, 10)
    level = check_real("level", level, 0.0, 1.0, low_open=True, high_open=True)
    rng = np.random.default_rng(check_seed("seed", seed))
    X = _design(data, model)
    y = data[response].to_numpy(dtype=float)
    groups = data.groupby(KEYS).indices
    idx = [np.asarray(v) for v in groups.values()]
    if len(idx) < 2 or np.linalg.matrix_rank(X.to_numpy()) < X.shape[1]:
        raise ValueError(f"df has too few distinct configurations to fit model {model!r}")
    coef = np.linalg.lstsq(X.to_numpy(), y, rcond=None)[0]
    draws: list[np.ndarray] = []
    tries = 0
    while len(draws) < n_boot:
        tries += 1
        if tries > 100 * n_boot:
            raise ValueError("df: almost every resample of its configurations is rank-deficient")
        rows = np.concatenate([idx[i] for i in rng.integers(0, len(idx), len(idx))])
        Xb = X.to_numpy()[rows]
        if np.linalg.matrix_rank(Xb) < Xb.shape[1]:
            continue
        draws.append(np.linalg.lstsq(Xb, y[rows], rcond=None)[0])
    draws = np.array(draws)
    a = (1 - level) / 2
    return pd.DataFrame(
        {
            "coef": coef,
            "lo": np.quantile(draws, a, axis=0),
            "hi": np.quantile(draws, 1 - a, axis=0),
            "sd": draws.std(axis=0, ddof=1),
        },
        index=X.columns,
    )


def select_configuration(loss, predicted, tol: float) -> int:
    """The privacy-aware selection rule: among the candidates whose held-out ``loss`` is within
    ``tol`` of the best, the index of the one with the lowest ``predicted`` exposure.

    ``loss`` and ``predicted``: (K,) one entry per candidate configuration.
    """
    loss = check_finite_array("loss", loss, 1)
    predicted = check_finite_array("predicted", predicted, 1)
    if predicted.shape != loss.shape:
        raise ValueError(
            f"predicted must have one entry per candidate like loss {loss.shape}, "
            f"got {predicted.shape}"
        )
    tol = check_real("tol", tol, 0.0)
    band = np.flatnonzero(loss <= loss.min() + tol)
    return int(band[np.argmin(predicted[band])])


def _loco(X: np.ndarray, y: np.ndarray, cfg: np.ndarray, k: int) -> np.ndarray:
    """Leave-one-configuration-out predictions: for each of the k configurations, the mean
    prediction at its rows of the least-squares fit on the rows of every other configuration."""
    pred = np.empty(k)
    for c in range(k):
        out = cfg == c
        beta = np.linalg.lstsq(X[~out], y[~out], rcond=None)[0]
        pred[c] = (X[out] @ beta).mean()
    return pred


def heldout_selection(
    df: pd.DataFrame,
    response: str | None = None,
    model: str = "interaction",
    tol: float = 0.1,
    n_perm: int = 200,
    seed: int = 0,
) -> pd.DataFrame:
    """Evaluate :func:`select_configuration` on configurations and seeds it was not fitted on.

    For each seed ``s`` of ``df`` (the held-out seed): the candidates are the configurations,
    their utility is their held-out loss at seed ``s`` (measured, as a practitioner would), and
    each candidate's exposure is predicted by the regression ``MODELS[model]`` fitted on the
    **other seeds** and the **other configurations** (leave one configuration out). The pick is
    scored by its measured exposure at seed ``s``. Alongside, per held-out seed:

    * ``random``: the expected exposure of a uniformly random pick from the same band;
    * ``median``: the median measured exposure of the band;
    * ``trivial``: a rule that needs no regression: the band member with the smallest
      ``b * T * lr`` (ties: the smaller ``b``);
    * ``utility``: the lowest-loss candidate (utility-only selection);
    * ``best``: the least exposed candidate of the band (the oracle);
    * ``insample``: the same rule with the regression fitted on every row (seed ``s`` and the
      candidate itself included), scored on the same data: the optimistic in-sample number;
    * ``permuted``: the held-out rule with the fitted response permuted across the fit rows,
      averaged over ``n_perm`` permutations (a regression that knows nothing: a negative
      control);
    * ``pair_acc``: over pairs of band candidates, the fraction that the held-out predictions
      order as the measured exposures do (ties count 1/2); ``nan`` for a band of one.

    Returns one row per held-out seed with ``seed, n_band, pick`` (the (b, T, lr) picked) and
    the exposures ``heldout, random, median, trivial, utility, best, insample, permuted``, and
    ``pair_acc``.
    """
    data, response, model = _prepare(df, response, model)
    if "seed" not in data.columns or "test_loss" not in data.columns:
        raise ValueError("df needs 'seed' and 'test_loss' columns")
    _check_numeric(data, ["test_loss"])
    tol = check_real("tol", tol, 0.0)
    n_perm = check_int("n_perm", n_perm, 1)
    rng = np.random.default_rng(check_seed("seed", seed))
    seeds = sorted(data["seed"].unique())
    if len(seeds) < 2:
        raise ValueError("df needs at least 2 seeds (one held out, the others to fit)")
    cfg_index = {c: i for i, c in enumerate(sorted(data.groupby(KEYS).groups))}
    k = len(cfg_index)
    if k < 4:
        raise ValueError(f"df needs at least 4 configurations, got {k}")
    cfg = np.array([cfg_index[tuple(r)] for r in data[KEYS].itertuples(index=False)])
    X = _design(data, model).to_numpy()
    y = data[response].to_numpy(dtype=float)
    names = sorted(cfg_index, key=cfg_index.get)
    for s in seeds:
        if sorted(cfg[(data["seed"] == s).to_numpy()]) != list(range(k)):
            raise ValueError(f"df: seed {s} must have exactly one row per configuration")
    rows = []
    for s in seeds:
        held = (data["seed"] == s).to_numpy()
        at_s = data[held]
        order = np.argsort(cfg[held])
        loss = at_s["test_loss"].to_numpy(dtype=float)[order]
        expo = y[held][order]
        band = np.flatnonzero(loss <= loss.min() + tol)
        fit_X, fit_y, fit_c = X[~held], y[~held], cfg[~held]
        pred = _loco(fit_X, fit_y, fit_c, k)
        pick = select_configuration(loss, pred, tol)
        beta_all = np.linalg.lstsq(X, y, rcond=None)[0]
        pred_in = np.array([(X[cfg == c] @ beta_all).mean() for c in range(k)])
        perm = np.mean(
            [
                expo[select_configuration(loss, _loco(fit_X, p, fit_c, k), tol)]
                for p in (rng.permutation(fit_y) for _ in range(n_perm))
            ]
        )
        size = np.array([n[0] * n[1] * n[2] for n in names], dtype=float)
        trivial = band[np.lexsort((np.array([n[0] for n in names])[band], size[band]))[0]]
        pairs = [(i, j) for a, i in enumerate(band) for j in band[a + 1 :]]
        agree = [
            0.5
            if pred[i] == pred[j] or expo[i] == expo[j]
            else float((pred[i] < pred[j]) == (expo[i] < expo[j]))
            for i, j in pairs
        ]
        rows.append(
            {
                "seed": s,
                "n_band": len(band),
                "pick": names[pick],
                "heldout": float(expo[pick]),
                "random": float(expo[band].mean()),
                "median": float(np.median(expo[band])),
                "trivial": float(expo[trivial]),
                "utility": float(expo[np.argmin(loss)]),
                "best": float(expo[band].min()),
                "insample": float(expo[select_configuration(loss, pred_in, tol)]),
                "permuted": float(perm),
                "pair_acc": float(np.mean(agree)) if agree else float("nan"),
            }
        )
    return pd.DataFrame(rows)
