"""The set-up every attack notebook shares: stream, trained TGN-lite, memories at t_a, victims."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import torch

from icml25.common.checks import (
    check_choice,
    check_device,
    check_int,
    check_probability,
    check_seed,
)
from icml25.memfreezing.data import TemporalStream, make_temporal_sbm
from icml25.memfreezing.model import UPDATERS, TGNLite, _check_stream, replay, train_tgn

__all__ = ["BACKBONES", "VICTIM_CHOICES", "AttackSetup", "choose_victims", "prepare_attack"]

VICTIM_CHOICES = ("most_active", "least_active")
BACKBONES = ("tgnlite", "pyg")
PYG_TIME_UNIT = 1000.0  # ticks per time unit of the PyG stream (TGNMemory keeps integer times)


@dataclass(frozen=True)
class AttackSetup:
    """One seed's attack scene at the attack time t_a (the end of the training part).

    Attributes:
        stream: the temporal SBM of this seed (for the PyG backbone with integer times, see
            :func:`integer_times`).
        model: the model under attack, trained on the first ``n_train`` events (eval mode):
            a :class:`TGNLite`, or a :class:`PygTGN` (memory + attention embedding).
        n_train: E_train = int(train_frac · E); the attack happens after event n_train − 1.
        t_attack: t_a, the time of event n_train − 1.
        mem, last: (N, d) memories and (N,) last-update times after replaying [0, n_train).
        victims: (V,) int64 victim ids (see :func:`choose_victims`).
        edge_bank: (n_train, edge_dim) edge features known at t_a (the frozen-state search's
            surrogate edges).
        train_log: what :func:`train_tgn` (or :func:`train_pyg_tgn`) returned.
        attacker: the :class:`TGNLite` whose updater the attack differentiates: ``model``
            itself, or :func:`tgnlite_from_pyg` of the PyG model's memory (same GRU and time
            encoder; its decoder is unused).
        score_fn: the greedy baseline's pair scorer (None: the attacker's decoder; for PyG
            :func:`pyg_link_scorer`, through the attention embedding).
        time_unit: stream time units per unit of the TGN-lite scale (1 for TGN-lite, 1000
            ticks for PyG): multiply the attack's δ and Δt ranges by it.
    """

    stream: TemporalStream
    model: TGNLite
    n_train: int
    t_attack: float
    mem: torch.Tensor
    last: torch.Tensor
    victims: np.ndarray
    edge_bank: torch.Tensor
    train_log: dict
    attacker: TGNLite | None = None
    score_fn: Callable | None = None
    time_unit: float = 1.0


def choose_victims(
    stream: TemporalStream, end: int, n_victims: int = 40, choice: str = "most_active"
) -> np.ndarray:
    """The ``n_victims`` nodes with most (``"most_active"``) or fewest (``"least_active"``)
    events among the first ``end``, ties broken by node id; shape (V,), int64."""
    stream = _check_stream(stream)
    end = check_int("end", end, 1, stream.n_events)
    n_victims = check_int("n_victims", n_victims, 1, stream.n_nodes)
    choice = check_choice("choice", choice, VICTIM_CHOICES)
    deg = stream.degree(end)
    order = np.argsort(-deg if choice == "most_active" else deg, kind="stable")
    return order[:n_victims].astype(np.int64)


def prepare_attack(
    seed: int = 0,
    n_events: int = 40_000,
    mem_dim: int = 32,
    updater: str = "gru",
    n_nodes: int = 400,
    train_frac: float = 0.6,
    epochs: int = 3,
    n_victims: int = 40,
    victim_choice: str = "most_active",
    backbone: str = "tgnlite",
    device=None,
) -> AttackSetup:
    """Build one seed's scene: ``make_temporal_sbm(n_nodes, n_events=n_events, seed=seed)``, a
    model trained on the first ``train_frac`` of it, its memories replayed up to t_a, and the
    victims (:func:`choose_victims`).

    ``backbone="tgnlite"``: ``TGNLite(mem_dim, updater, seed)`` trained by :func:`train_tgn`.
    ``backbone="pyg"``: ``PygTGN(mem_dim = time_dim = emb_dim)`` on ``device`` (None: a GPU
    if visible) trained by :func:`train_pyg_tgn` on the stream in integer ticks (1000 per time
    unit), memories by :func:`replay_pyg`; only ``updater="gru"`` (PyG's memory is a GRU).
    """
    seed = check_seed("seed", seed)
    n_events = check_int("n_events", n_events, 2)
    mem_dim = check_int("mem_dim", mem_dim, 1)
    updater = check_choice("updater", updater, UPDATERS)
    n_nodes = check_int("n_nodes", n_nodes, 4)
    train_frac = check_probability("train_frac", train_frac, low_open=True, high_open=True)
    epochs = check_int("epochs", epochs, 1)
    n_victims = check_int("n_victims", n_victims, 1, n_nodes)
    victim_choice = check_choice("victim_choice", victim_choice, VICTIM_CHOICES)
    backbone = check_choice("backbone", backbone, BACKBONES)
    device = check_device("device", device)
    if backbone == "pyg" and updater != "gru":
        raise ValueError(f"updater must be 'gru' for backbone='pyg', got {updater!r}")
    stream = make_temporal_sbm(n_nodes=n_nodes, n_events=n_events, seed=seed)
    n_train = int(train_frac * stream.n_events)
    if n_train < 1:
        raise ValueError(f"train_frac={train_frac} leaves no training event of {n_events}")
    score_fn, unit = None, 1.0
    if backbone == "tgnlite":
        model = TGNLite(stream.n_nodes, mem_dim=mem_dim, updater=updater, seed=seed)
        log = train_tgn(model, stream, train_frac=train_frac, epochs=epochs, seed=seed)
        mem, last = replay(model, stream, 0, n_train, *model.initial_state())
        attacker = model
    else:
        from icml25.memfreezing.pyg import tgnlite_from_pyg
        from icml25.memfreezing.pyg_tgn import (
            PygTGN,
            integer_times,
            pyg_link_scorer,
            replay_pyg,
            train_pyg_tgn,
        )

        unit = PYG_TIME_UNIT
        stream = integer_times(stream, unit)
        emb = mem_dim + mem_dim % 2
        model = PygTGN(
            stream.n_nodes, mem_dim, stream.edge_dim, mem_dim, emb, seed=seed, device=device
        )
        log = train_pyg_tgn(model, stream, train_frac=train_frac, epochs=epochs, seed=seed)
        mem, last = replay_pyg(model, stream, n_train)
        attacker = tgnlite_from_pyg(model.memory)
        score_fn = pyg_link_scorer(model, stream, n_train, mem, last)
    return AttackSetup(
        stream=stream,
        model=model,
        n_train=n_train,
        t_attack=float(stream.t[n_train - 1]),
        mem=mem,
        last=last,
        victims=choose_victims(stream, n_train, n_victims, victim_choice),
        edge_bank=torch.from_numpy(stream.edge_feat[:n_train]),
        train_log=log,
        attacker=attacker,
        score_fn=score_fn,
        time_unit=unit,
    )
