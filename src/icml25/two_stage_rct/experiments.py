"""Monte Carlo comparison of two-stage RCT designs: one row per (design, trial)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd

from icml25.common.checks import check_choice, check_int, check_positive, check_rng
from icml25.two_stage_rct.bounds import check_delta
from icml25.two_stage_rct.design import POLICIES, _check_first_frac, run_batch
from icml25.two_stage_rct.tape import OutcomeTape

#: Display names of the designs in the chapter's figures.
LABELS: dict[str, dict] = {
    "Sample split": {"policy": "split"},
    "Best arm (k=1)": {"policy": "fixed_k", "k": 1},
    "Single stage": {"policy": "single_stage"},
    "Random k": {"policy": "random_k"},
    "Omniscient k": {"policy": "omniscient"},
}

_DESIGN_KW = ("k", "bound", "correction", "outcome", "alpha", "beta", "n_mc")


def draw_arm_means(
    n_trials: int, n_arms: int, rng: np.random.Generator, dist: str = "uniform", **params
) -> np.ndarray:
    """Draw arm effects μ of shape (n_trials, n_arms): ``"uniform"`` U(0, 1) or ``"beta"``.

    ``dist="beta"`` takes ``alpha`` and ``beta`` (both > 0; ignored by ``"uniform"``).
    """
    n_trials = check_int("n_trials", n_trials)
    n_arms = check_int("n_arms", n_arms)
    rng = check_rng("rng", rng)
    dist = check_choice("dist", dist, ("uniform", "beta"))
    unknown = sorted(set(params) - {"alpha", "beta"})
    if unknown:
        raise TypeError(f"draw_arm_means got unknown parameters {unknown}; allowed: alpha, beta")
    a = check_positive("alpha", params.get("alpha", 1.0))
    b = check_positive("beta", params.get("beta", 1.0))
    if dist == "uniform":
        return rng.uniform(size=(n_trials, n_arms))
    return rng.beta(a, b, size=(n_trials, n_arms))


def simulate(
    policies: Sequence[str] | Mapping[str, Mapping],
    n_trials: int,
    rng: np.random.Generator,
    *,
    n_arms: int = 10,
    budget: int = 500,
    first_frac: float = 0.3,
    delta: float = 0.1,
    mu_dist: str = "uniform",
    paired: bool = True,
    **setting,
) -> pd.DataFrame:
    """Run every design on the same ``n_trials`` draws of the arm effects.

    With ``paired=True`` (common random numbers) every design of a trial also reads the same
    patients' outcomes (one :class:`OutcomeTape`), so that differences between designs are
    paired per trial; ``paired=False`` draws each design's outcomes independently. Random k and
    the prior's Monte Carlo still draw from ``rng`` in the order of ``policies``, so adding or
    reordering designs changes their draws (not the patients).

    Args:
        policies: design names from :data:`POLICIES`, or a mapping from a display label to the
            design's keyword arguments (with ``"policy"``), e.g. :data:`LABELS`.
        n_trials: number of trials.
        rng: a ``numpy.random.Generator``.
        n_arms, budget, first_frac, delta: the setting (the paper's Figure 1: 10 arms, 50
            pulls per arm, first stages of 30, 50 and 70 %, δ = 0.1).
        mu_dist: ``"uniform"`` or ``"beta"`` (then ``alpha``/``beta`` in ``setting`` also set the
            prior of ``prior_beta``).
        **setting: defaults for every design: ``bound``, ``correction``, ``outcome``, ``k``,
            ``alpha``, ``beta``, ``n_mc``.

    Returns:
        One row per (design, trial): ``design, trial, cert, k, arm, width, mu_max, mu_arm,
        normalized`` (cert / max μ), ``miss`` (cert > μ of the certified arm) and ``planned``
        (the prior design's planning estimate / max μ; NaN for the other designs).
    """
    rng = check_rng("rng", rng)
    unknown = [key for key in setting if key not in _DESIGN_KW]
    if unknown:
        raise ValueError(f"unknown setting(s) {unknown}; allowed: {list(_DESIGN_KW)}")
    if isinstance(policies, Mapping):
        if not all(isinstance(spec, Mapping) for spec in policies.values()):
            raise TypeError("policies must map each label to a dict of design arguments")
        specs = {label: dict(spec) for label, spec in policies.items()}
    elif isinstance(policies, str) or not isinstance(policies, Sequence):
        raise TypeError(f"policies must be a list of names or a dict, got {policies!r}")
    else:
        specs = {name: {"policy": name} for name in policies}
    if not specs:
        raise ValueError("policies must name at least one design")
    for label, spec in specs.items():
        if not isinstance(spec.get("policy"), str) or spec["policy"] not in POLICIES:
            raise ValueError(f"policies: {label!r} needs a policy in {POLICIES}, got {spec}")
    check_int("n_trials", n_trials)
    check_int("budget", budget)
    _check_first_frac(first_frac)
    check_delta(delta)
    check_choice("mu_dist", mu_dist, ("uniform", "beta"))
    dist_params = {key: setting[key] for key in ("alpha", "beta") if key in setting}
    mu = draw_arm_means(n_trials, n_arms, rng, mu_dist, **dist_params)
    mu_max = mu.max(axis=1)
    if not isinstance(paired, bool):
        raise TypeError(f"paired must be a bool, got {type(paired).__name__}")
    tape = None
    if paired:  # every design reads the same patients: at most `budget` on one arm
        tape = OutcomeTape(mu, budget, setting.get("outcome", "bernoulli"), rng)
    frames = []
    for label, spec in specs.items():
        kw = {**setting, **{key: val for key, val in spec.items() if key != "policy"}}
        out = run_batch(mu, budget, first_frac, delta, spec["policy"], rng, tape=tape, **kw)
        mu_arm = mu[np.arange(n_trials), out["arm"]]
        frames.append(
            pd.DataFrame(
                {
                    "design": label,
                    "trial": np.arange(n_trials),
                    "cert": out["cert"],
                    "k": out["k"],
                    "arm": out["arm"],
                    "width": out["width"],
                    "mu_max": mu_max,
                    "mu_arm": mu_arm,
                    "normalized": out["cert"] / mu_max,
                    "miss": out["cert"] > mu_arm,
                    "planned": out.get("planned", np.full(n_trials, np.nan)) / mu_max,
                }
            )
        )
    return pd.concat(frames, ignore_index=True)
