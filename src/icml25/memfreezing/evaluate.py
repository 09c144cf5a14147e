"""After the attack: per-window victim and neighbour link prediction, drift and frozen share."""

from __future__ import annotations

import numpy as np
import pandas as pd
import torch
import torch.nn.functional as F

from icml25.common.checks import (
    check_finite_array,
    check_instance,
    check_int,
    check_real,
    check_seed,
    check_tensor,
)
from icml25.memfreezing.attack import _victims
from icml25.memfreezing.model import (
    TGNLite,
    _batch,
    _check_state,
    _check_stream,
    _metrics,
    _negatives,
    _scored_replay,
)

__all__ = ["cos_trace", "evaluate_after_attack", "half_life"]


def _cos(mem, nodes, ref):
    if ref is None or nodes.size == 0:
        return float("nan"), float("nan")
    c = F.cosine_similarity(mem[torch.from_numpy(nodes)], ref[None], dim=1)
    return float(c.mean()), c


@torch.no_grad()
def evaluate_after_attack(
    model,
    stream,
    start: int,
    mem,
    last,
    victims,
    n_windows: int = 8,
    reference_state=None,
    frozen_cos: float = 0.9,
    seed: int = 0,
) -> pd.DataFrame:
    """Replay events [start, E) in ``n_windows`` equal windows and record, per window:

    - ``auc``, ``ap``, ``n``: link prediction on events touching a victim (anchored there);
    - ``auc_nbr``, ``ap_nbr``: the same for the victims' post-attack 1-hop neighbours known at the
      window's start (victims excluded; NaN in window 1);
    - ``drift``: mean ‖s_v(end of window) − s_v(start)‖ over victims;
    - ``cos``, ``frozen``: mean cos(s_v, reference_state) and the share above ``frozen_cos``, of
      victims, and ``cos_nbr``, ``frozen_nbr`` of the neighbours so far (NaN without a reference).

    Row ``window = 0`` is the state at ``start`` (after the attack), without link metrics.
    Negatives come from ``seed`` and the window only, so every condition sees the same ones.
    ``model`` is a :class:`TGNLite` or a :class:`PygTGN`; for the latter (an integer-time
    stream, see :func:`integer_times`) ``mem``/``last`` are written into its ``TGNMemory``,
    its neighbours rebuilt from events [0, start), and the replay runs through PyG's own
    update path and the attention embedding.
    """
    from icml25.memfreezing.pyg_tgn import PygTGN, _check_integer_stream, _scored_replay_pyg

    model = check_instance("model", model, (TGNLite, PygTGN))
    stream = _check_stream(stream)
    if isinstance(model, PygTGN):
        stream = _check_integer_stream(model, stream)
    start = check_int("start", start, 0, stream.n_events - 1)
    mem, last = _check_state(model, mem, last)
    vic = _victims(victims, model.n_nodes).numpy()
    n_windows = check_int("n_windows", n_windows, 1)
    if (stream.n_events - start) // n_windows < 1:
        raise ValueError(f"n_windows={n_windows} leaves no event per window after start={start}")
    if reference_state is not None:
        reference_state = check_tensor("reference_state", reference_state, 1).float()
        if reference_state.numel() != model.mem_dim:
            raise ValueError(
                f"reference_state must have shape ({model.mem_dim},), "
                f"got {tuple(reference_state.shape)}"
            )
    frozen_cos = check_real("frozen_cos", frozen_cos, -1.0, 1.0)
    seed = check_seed("seed", seed)
    size = (stream.n_events - start) // n_windows
    s0 = mem[torch.from_numpy(vic)].clone()
    is_vic = np.zeros(model.n_nodes, dtype=bool)
    is_vic[vic] = True
    nbr = np.zeros(model.n_nodes, dtype=bool)

    def state_row(window, metrics_v, metrics_n):
        c_v, cv = _cos(mem, vic, reference_state)
        nodes = np.flatnonzero(nbr)
        c_n, cn = _cos(mem, nodes, reference_state)
        drift = float((mem[torch.from_numpy(vic)] - s0).norm(dim=1).mean())
        return {
            "window": window,
            "auc": metrics_v["auc"],
            "ap": metrics_v["ap"],
            "n": metrics_v["n"],
            "auc_nbr": metrics_n["auc"],
            "ap_nbr": metrics_n["ap"],
            "drift": drift,
            "cos": c_v,
            "frozen": float((cv > frozen_cos).float().mean())
            if reference_state is not None
            else float("nan"),
            "cos_nbr": c_n,
            "frozen_nbr": float((cn > frozen_cos).float().mean())
            if reference_state is not None and nodes.size
            else float("nan"),
            "n_nbr": int(nodes.size),
        }

    empty = {"auc": float("nan"), "ap": float("nan"), "n": 0}
    rows = [state_row(0, empty, empty)]
    for w in range(n_windows):
        a = start + w * size
        b = stream.n_events if w == n_windows - 1 else a + size
        known = np.flatnonzero(nbr)
        sets = [vic, known if known.size else None]
        if isinstance(model, PygTGN):
            negatives = _negatives(model.n_nodes, b - a, seed * 1000 + w)
            pos, neg, mem, last = _scored_replay_pyg(
                model, stream, a, b, mem, last, sets, negatives
            )
            out = [_metrics(p, n) for p, n in zip(pos, neg, strict=True)]
        else:
            out, mem, last = _scored_replay(model, stream, a, b, mem, last, sets, seed * 1000 + w)
        m_n = out[1] if known.size else empty
        src, dst = stream.src[a:b], stream.dst[a:b]
        nbr[dst[is_vic[src]]] = True
        nbr[src[is_vic[dst]]] = True
        nbr &= ~is_vic
        rows.append(state_row(w + 1, out[0], m_n))
    return pd.DataFrame(rows)


@torch.no_grad()
def cos_trace(
    model,
    stream,
    start: int,
    mem,
    last,
    victims,
    reference_state,
    end: int | None = None,
    batch: int = 200,
) -> np.ndarray:
    """Mean cos(s_v, reference_state) over the victims at ``start`` and after every replay batch
    of ``batch`` events in [start, end) (end None: the stream's end); shape (1 + n_batches,).

    The replay is the one :func:`evaluate_after_attack` runs (batches of 200 by default), so
    the trace resolves the decay of a frozen state within a window (one point per batch)
    instead of at window ends only.
    """
    model = check_instance("model", model, TGNLite)
    stream = _check_stream(stream)
    start = check_int("start", start, 0, stream.n_events - 1)
    end = stream.n_events if end is None else check_int("end", end, 1, stream.n_events)
    if start >= end:
        raise ValueError(f"start must be < end, got start={start}, end={end}")
    mem, last = _check_state(model, mem, last)
    vic = _victims(victims, model.n_nodes)
    ref = check_tensor("reference_state", reference_state, 1).float()
    if ref.numel() != model.mem_dim:
        raise ValueError(
            f"reference_state must have shape ({model.mem_dim},), got {tuple(ref.shape)}"
        )
    batch = check_int("batch", batch, 1)

    def mean_cos(m):
        return float(F.cosine_similarity(m[vic], ref[None], dim=1).mean())

    out = [mean_cos(mem)]
    for a in range(start, end, batch):
        mem, last = model.update(mem, last, *_batch(stream, a, min(a + batch, end)))
        out.append(mean_cos(mem))
    return np.array(out)


def half_life(excess) -> float:
    """Windows until ``excess`` (values at windows 0..n, e.g. cos to s* above the clean run)
    first falls to half of ``excess[0]``, linearly interpolated; ``n`` (censored) if never,
    0 if ``excess[0] <= 0``."""
    x = check_finite_array("excess", excess, 1, min_size=2)
    if x[0] <= 0:
        return 0.0
    half = 0.5 * x[0]
    for i in range(1, x.size):
        if x[i] <= half:
            return float(i - 1 + (x[i - 1] - half) / (x[i - 1] - x[i]))
    return float(x.size - 1)
