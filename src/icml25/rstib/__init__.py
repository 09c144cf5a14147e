"""RSTIB-MLP (Chen et al., ICML 2025): information-bottleneck MLPs for robust spatio-temporal
forecasting, on a synthetic road network whose congestion waves travel downstream.

Data: :func:`make_traffic_graph`, :func:`simulate_traffic`, :func:`add_noise` (dual noise),
:func:`make_windows`, :func:`seasonal_naive`. Models: :class:`STIDMLP` (plain MLP),
:class:`STGCNLite` (graph teacher, PyG ``ChebConv``), :class:`RSTIBMLP`. Training:
:func:`rstib_loss`, :func:`anneal_beta`, :func:`train_forecaster`, :func:`evaluate`.
"""

from icml25.rstib.data import TrafficData, add_noise, make_traffic_graph, simulate_traffic
from icml25.rstib.models import RSTIBMLP, STIDMLP, IBOutput, STGCNLite, n_params
from icml25.rstib.train import (
    OFFICIAL_MILESTONES,
    TRACED,
    anneal_beta,
    evaluate,
    forecast_errors,
    gaussian_kl,
    predict,
    rstib_loss,
    train_forecaster,
)
from icml25.rstib.windows import make_windows, seasonal_naive

__all__ = [
    "IBOutput",
    "OFFICIAL_MILESTONES",
    "TRACED",
    "RSTIBMLP",
    "STGCNLite",
    "STIDMLP",
    "TrafficData",
    "add_noise",
    "anneal_beta",
    "evaluate",
    "forecast_errors",
    "gaussian_kl",
    "make_traffic_graph",
    "make_windows",
    "n_params",
    "predict",
    "rstib_loss",
    "seasonal_naive",
    "simulate_traffic",
    "train_forecaster",
]
