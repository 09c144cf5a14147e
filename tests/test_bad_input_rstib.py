"""Bad-input suite of icml25.rstib (see badinput.py)."""

from functools import cache

import numpy as np
import torch
from badinput import (
    Spec,
    bad_array,
    bad_choice,
    bad_input_test,
    bad_int,
    bad_positive,
    bad_probability,
    bad_real,
    bad_seed,
    bad_tensor,
    not_a,
    valid_input_test,
)
from hypothesis import strategies as st

from icml25 import rstib

P = "icml25.rstib"
_, W = rstib.make_traffic_graph(8, seed=0)
DATA = rstib.simulate_traffic(W, n_days=2, steps_per_day=24, seed=0)
WIN = rstib.make_windows(DATA, lag=9, horizon=2)
WIN_LAG10 = rstib.make_windows(DATA, lag=10, horizon=2)
KW = {"lag": 9, "horizon": 2, "steps_per_day": 24}
SPLITS = ("train", "val", "test")


def bad_windows(*splits: str, tod: bool = True) -> st.SearchStrategy:
    """Windows that are wrong for a function reading ``splits`` (and "scale"); ``tod``: times of
    day beyond steps_per_day too (wrong for a model with a time-of-day embedding)."""
    bad = [{}, None, [WIN], {**WIN, "scale": 0.0}, {**WIN, "scale": np.nan}]
    for s in splits:
        part = WIN[s]
        bad += [
            {**WIN, s: {}},
            {**WIN, s: {**part, "x": part["x"][:2]}},
            {**WIN, s: {**part, "x": np.full_like(part["x"], np.nan)}},
            {**WIN, s: {**part, "x": part["x"][..., :5]}},
        ]
        bad += [{**WIN, s: {**part, "tod": part["tod"] + 24}}] if tod else []
    return st.sampled_from(bad)


MU = torch.zeros(2, 3)


@cache
def _models():
    torch.manual_seed(0)
    return {
        "mlp": rstib.STIDMLP(8, d=2, n_layers=1, **KW),
        "stgcn": rstib.STGCNLite(8, W, channels=2, node_dim=1, **KW),
        "rstib": rstib.RSTIBMLP(8, d=2, n_layers=1, n_eval_samples=2, **KW),
    }


def _ib_out():
    model = _models()["rstib"]
    x, tod, dow = (torch.as_tensor(WIN["train"][k][:3]) for k in ("x", "tod", "dow"))
    return model.forward_ib(x, tod, dow)


def _loss():
    out = _ib_out()
    return {
        "out": out,
        "y": out.pred.detach() + 0.1,
        "teacher_pred": out.pred.detach(),
        "beta": 1e-3,
        "kd_weight": 0.3,
        "scale": 2.0,
    }


SPECS: dict[str, Spec] = {
    f"{P}.make_traffic_graph": Spec(
        rstib.make_traffic_graph,
        {"n_nodes": 8, "kind": "corridors", "seed": 0},
        {
            "n_nodes": st.one_of(bad_int(4), st.just(6)),  # corridors: a multiple of 4
            "kind": bad_choice(("corridors", "knn")),
            "seed": bad_seed(),
        },
        finite=True,
    ),
    f"{P}.simulate_traffic": Spec(
        rstib.simulate_traffic,
        {
            "W": W,
            "n_days": 1,
            "steps_per_day": 24,
            "shock_rate": 0.004,
            "lag": 3,
            "seed": 0,
            "attenuation": 0.9,
            "drop": 0.6,
            "ar_std": 0.03,
        },
        {
            "W": st.one_of(bad_array(W), st.just(-W), st.just(W[:, :7])),
            "n_days": bad_int(1),
            "steps_per_day": bad_int(24),
            "shock_rate": bad_probability(high_open=True),
            "lag": bad_int(1),
            "seed": bad_seed(),
            "attenuation": bad_probability(high_open=True),
            "drop": bad_probability(),
            "ar_std": bad_real(0.0),
        },
        finite=True,
    ),
    f"{P}.add_noise": Spec(
        rstib.add_noise,
        {"x": DATA.x, "ratio": 0.4, "seed": 0},
        {"x": bad_array(DATA.x), "ratio": bad_real(0.0), "seed": bad_seed()},
        finite=True,
    ),
    f"{P}.make_windows": Spec(
        rstib.make_windows,
        {
            "data": DATA,
            "lag": 9,
            "horizon": 2,
            "split": (0.6, 0.2, 0.2),
            "noisy": None,
            "stride": 1,
        },
        {
            "data": not_a(DATA.x),
            "lag": st.one_of(bad_int(1), st.just(47)),
            "horizon": st.one_of(bad_int(1), st.just(40)),
            "split": st.sampled_from(
                [
                    (0.5, 0.5),
                    (0.6, 0.3, 0.3),
                    (0.0, 0.5, 0.5),
                    (0.98, 0.01, 0.01),
                    "abc",
                    None,
                    (0.6, "0.2", 0.2),
                ]
            ),
            "noisy": st.one_of(
                bad_array(DATA.x, none=False), st.just(DATA.x[:, :7]), st.just(DATA.x * 0)
            ),
            "stride": bad_int(1),
        },
        finite=True,
    ),
    f"{P}.seasonal_naive": Spec(
        rstib.seasonal_naive,
        {"series": DATA.x, "windows": WIN, "split": "test", "period": 24},
        {
            "series": st.one_of(bad_array(DATA.x), st.just(DATA.x[:, :7]), st.just(DATA.x[:30])),
            "windows": bad_windows("test", tod=False),
            "split": bad_choice(SPLITS),
            "period": st.one_of(bad_int(1), st.just(10**4)),
        },
        finite=True,
    ),
    f"{P}.STIDMLP": Spec(
        rstib.STIDMLP,
        {"n_nodes": 8, "lag": 9, "horizon": 2, "d": 2, "n_layers": 1, "steps_per_day": 24},
        {
            "n_nodes": bad_int(1),
            "lag": bad_int(1),
            "horizon": bad_int(1),
            "d": bad_int(1),
            "n_layers": bad_int(0),
            "steps_per_day": bad_int(1),
        },
    ),
    f"{P}.STGCNLite": Spec(
        rstib.STGCNLite,
        {
            "n_nodes": 8,
            "W": W,
            "lag": 9,
            "horizon": 2,
            "channels": 2,
            "K": 2,
            "steps_per_day": 24,
            "node_dim": 1,
        },
        {
            "n_nodes": st.one_of(bad_int(1), st.just(7)),
            "W": st.one_of(bad_array(W), st.just(-W), st.just(W[:, :7])),
            "lag": bad_int(9),
            "horizon": bad_int(1),
            "channels": bad_int(2),
            "K": bad_int(1),
            "steps_per_day": bad_int(1),
            "node_dim": bad_int(0),
        },
    ),
    f"{P}.RSTIBMLP": Spec(
        rstib.RSTIBMLP,
        {
            "n_nodes": 8,
            "lag": 9,
            "horizon": 2,
            "d": 2,
            "n_layers": 1,
            "steps_per_day": 24,
            "ib": True,
            "dynamic": True,
            "n_eval_samples": 2,
            "eval_average": "draws",
        },
        {
            "n_nodes": bad_int(1),
            "lag": bad_int(1),
            "horizon": bad_int(1),
            "d": st.one_of(bad_int(1), st.just(3)),  # 5·d must be even
            "n_layers": bad_int(0),
            "steps_per_day": bad_int(1),
            "n_eval_samples": bad_int(0),
            "eval_average": bad_choice(("draws", "forecasts", "scaled")),
        },
        free=("ib", "dynamic"),
    ),
    f"{P}.anneal_beta": Spec(
        rstib.anneal_beta,
        {"beta": 1e-3, "epochs": 8, "beta_init": 0.0},
        {"beta": bad_real(0.0), "epochs": bad_int(1), "beta_init": bad_real(0.0)},
        finite=True,
    ),
    f"{P}.n_params": Spec(rstib.n_params, lambda: {"model": _models()["mlp"]}, {"model": not_a()}),
    f"{P}.gaussian_kl": Spec(
        rstib.gaussian_kl,
        {"mu": MU, "sigma": MU + 0.5},
        {
            "mu": st.one_of(bad_tensor(MU), st.just(MU[0])),
            "sigma": st.one_of(
                bad_tensor(MU + 0.5), st.just(MU), st.just(MU - 1), st.just(MU[0] + 1)
            ),
        },
        finite=True,
    ),
    f"{P}.rstib_loss": Spec(
        rstib.rstib_loss,
        _loss,
        {
            "out": not_a(MU),
            "y": st.one_of(bad_tensor(torch.ones(3, 2, 8)), st.just(torch.ones(3, 2, 7))),
            "teacher_pred": st.one_of(
                bad_tensor(torch.ones(3, 2, 8), none=False), st.just(torch.ones(3, 2, 7))
            ),
            "beta": bad_real(0.0),
            "kd_weight": bad_real(0.0),
            "scale": bad_positive(),
        },
        finite=True,
    ),
    f"{P}.predict": Spec(
        rstib.predict,
        lambda: {"model": _models()["mlp"], "windows": WIN, "split": "val", "batch_size": 4},
        {
            "model": not_a(),
            "windows": bad_windows("val"),
            "split": bad_choice(SPLITS),
            "batch_size": bad_int(1),
        },
        finite=True,
    ),
    f"{P}.evaluate": Spec(
        rstib.evaluate,
        lambda: {
            "model": _models()["rstib"],
            "windows": WIN,
            "split": "test",
            "clean_targets": True,
        },
        {"model": not_a(), "windows": bad_windows("test"), "split": bad_choice(SPLITS)},
        free=("clean_targets",),
    ),
    f"{P}.forecast_errors": Spec(
        rstib.forecast_errors,
        {"pred": WIN["test"]["y"] + 0.1, "y": WIN["test"]["y"] * 100},
        {
            "pred": st.one_of(bad_array(WIN["test"]["y"]), st.just(WIN["test"]["y"][:1])),
            "y": st.one_of(bad_array(WIN["test"]["y"]), st.just(WIN["test"]["y"][:1])),
        },
        finite=True,
    ),
    f"{P}.train_forecaster": Spec(
        rstib.train_forecaster,
        lambda: {
            "model": rstib.RSTIBMLP(8, d=2, n_layers=1, **KW),
            "windows": WIN,
            "epochs": 1,
            "teacher": _models()["mlp"],
            "lr": 1e-3,
            "batch_size": 8,
            "seed": 0,
            "beta": 1e-3,
            "kd_weight": 0.3,
            "weight_decay": 1e-4,
            "clip_norm": 5.0,
            "milestones": (1, 20),
            "patience": 3,
            "beta_schedule": np.array([0.0, 1e-3]),
            "progress": False,
            "teacher_forecasts": None,
        },
        {
            "model": st.one_of(not_a(), st.just(rstib.STIDMLP(7, **KW))),
            "windows": st.one_of(bad_windows("train", "val"), st.just(WIN_LAG10)),
            "epochs": bad_int(1),
            "teacher": st.one_of(not_a(none=False), st.just(rstib.STIDMLP(8, lag=10))),
            "lr": bad_positive(),
            "batch_size": bad_int(1),
            "seed": bad_seed(),
            "teacher_forecasts": st.one_of(
                bad_array(WIN["train"]["y"], none=False), st.just(WIN["train"]["y"][:1])
            ),
            "beta": bad_real(0.0),
            "kd_weight": bad_real(0.0),
            "weight_decay": bad_real(0.0),
            "clip_norm": bad_positive().filter(lambda v: v is not None),
            "milestones": st.sampled_from(["abc", 3, None, (0,), (3, 2), (1.5,), (2, 2)]),
            "patience": st.one_of(bad_int(1).filter(lambda v: v is not None)),
            "beta_schedule": st.sampled_from(
                ["abc", np.array([]), np.array([np.nan]), np.array([-1.0]), np.ones((2, 2))]
            ),
        },
        free=("progress",),
        finite=True,
    ),
}

CONSTANTS = {f"{P}.OFFICIAL_MILESTONES", f"{P}.TRACED"}

RESULTS = {
    f"{P}.IBOutput": "returned by RSTIBMLP.forward_ib",
    f"{P}.TrafficData": "returned by simulate_traffic",
}

test_bad_input_is_rejected = bad_input_test(SPECS)
test_valid_input_runs = valid_input_test(SPECS)
