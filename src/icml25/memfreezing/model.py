"""TGN-lite: a memory-based temporal GNN (Rossi et al. 2020) without the attention embedding.

Memory s_i ∈ R^d per node; an event (i, j, t, e_ij) sends i the message
m_i = s_i(t⁻) ‖ s_j(t⁻) ‖ cos(w·Δt + b) ‖ e_ij with Δt = t − t_i⁻, the last message of a node in a
batch wins, and s_i(t) = memory_updater(m_i, s_i(t⁻)) (a GRUCell, or an RNNCell as in JODIE).
Links are scored by an MLP on [s_i ‖ s_j].
"""

from __future__ import annotations

import time

import numpy as np
import torch
import torch.nn.functional as F
from sklearn.metrics import average_precision_score, roc_auc_score
from torch import nn

from icml25.common.checks import (
    check_choice,
    check_index_array,
    check_instance,
    check_int,
    check_positive,
    check_probability,
    check_seed,
    check_tensor,
)
from icml25.memfreezing.data import TemporalStream

__all__ = [
    "StaticLinkModel",
    "TGNLite",
    "link_metrics",
    "replay",
    "train_tgn",
    "update_gate_values",
]

UPDATERS = ("gru", "rnn")


class TGNLite(nn.Module):
    """Memory + identity message + last aggregation + MLP decoder (TGN without attention)."""

    def __init__(
        self,
        n_nodes: int,
        mem_dim: int = 32,
        edge_dim: int = 8,
        time_dim: int = 8,
        updater: str = "gru",
        seed: int = 0,
    ):
        super().__init__()
        self.n_nodes = check_int("n_nodes", n_nodes, 2)
        self.mem_dim = check_int("mem_dim", mem_dim, 1)
        self.edge_dim = check_int("edge_dim", edge_dim, 1)
        self.time_dim = check_int("time_dim", time_dim, 1)
        self.updater = check_choice("updater", updater, UPDATERS)
        seed = check_seed("seed", seed)
        gen_state = torch.random.get_rng_state()
        torch.manual_seed(seed)
        self.time_enc = nn.Linear(1, self.time_dim)
        with torch.no_grad():  # TGN's initialisation: frequencies 1, 10^-1/3, ..., 10^-3
            self.time_enc.weight.copy_(1.0 / 10 ** torch.linspace(0, 3, self.time_dim)[:, None])
            self.time_enc.bias.zero_()
        msg_dim = 2 * self.mem_dim + self.time_dim + self.edge_dim
        cell = nn.GRUCell if self.updater == "gru" else nn.RNNCell
        self.memory_updater = cell(msg_dim, self.mem_dim)
        self.decoder = nn.Sequential(nn.Linear(2 * self.mem_dim, 64), nn.ReLU(), nn.Linear(64, 1))
        torch.random.set_rng_state(gen_state)

    @property
    def msg_dim(self) -> int:
        return 2 * self.mem_dim + self.time_dim + self.edge_dim

    def message(self, s_self, s_other, dt, e):
        """m = [s_self ‖ s_other ‖ cos(w·dt + b) ‖ e]; (B, d), (B, d), (B,), (B, edge_dim)."""
        phi = torch.cos(self.time_enc(dt.reshape(-1, 1).to(s_self.dtype)))
        return torch.cat([s_self, s_other, phi, e], dim=1)

    def initial_state(self):
        """(mem, last): zero memories (N, d) and zero last-update times (N,)."""
        return torch.zeros(self.n_nodes, self.mem_dim), torch.zeros(self.n_nodes)

    def update(self, mem, last, src, dst, t, e):
        """Apply a batch of events; returns new (mem, last) (the inputs are not modified).

        Every message uses the memories from before the batch; a node's last message wins.
        """
        src = torch.as_tensor(src, dtype=torch.long)
        dst = torch.as_tensor(dst, dtype=torch.long)
        t = torch.as_tensor(t, dtype=torch.float32)
        e = torch.as_tensor(e, dtype=torch.float32)
        nodes = torch.stack([src, dst], 1).reshape(-1)
        other = torch.stack([dst, src], 1).reshape(-1)
        tt = t.repeat_interleave(2)
        ee = e.repeat_interleave(2, dim=0)
        pos = torch.arange(nodes.numel())
        last_pos = torch.full((self.n_nodes,), -1, dtype=torch.long)
        last_pos = last_pos.scatter_reduce(0, nodes, pos, reduce="amax")
        keep = last_pos[nodes] == pos
        n_k, o_k, t_k = nodes[keep], other[keep], tt[keep]
        s_self = mem[n_k]
        m = self.message(s_self, mem[o_k], t_k - last[n_k], ee[keep])
        new = self.memory_updater(m, s_self)
        return mem.index_copy(0, n_k, new), last.index_copy(0, n_k, t_k)

    def score(self, mem, src, dst):
        """Link logits (B,) of the pairs (src, dst) from their memories."""
        src = torch.as_tensor(src, dtype=torch.long)
        dst = torch.as_tensor(dst, dtype=torch.long)
        return self.decoder(torch.cat([mem[src], mem[dst]], dim=1)).squeeze(-1)


class StaticLinkModel(nn.Module):
    """The memory-less control: one static embedding per node and the same MLP decoder.

    Same interface as :class:`TGNLite` (``update`` leaves the state as it is), so that
    :func:`train_tgn` and :func:`link_metrics` run it unchanged.
    """

    def __init__(self, n_nodes: int, dim: int = 32, seed: int = 0):
        super().__init__()
        self.n_nodes = check_int("n_nodes", n_nodes, 2)
        self.mem_dim = check_int("dim", dim, 1)
        seed = check_seed("seed", seed)
        gen_state = torch.random.get_rng_state()
        torch.manual_seed(seed)
        self.embedding = nn.Embedding(self.n_nodes, self.mem_dim)
        self.decoder = nn.Sequential(nn.Linear(2 * self.mem_dim, 64), nn.ReLU(), nn.Linear(64, 1))
        torch.random.set_rng_state(gen_state)

    def initial_state(self):
        return torch.zeros(self.n_nodes, self.mem_dim), torch.zeros(self.n_nodes)

    def update(self, mem, last, src, dst, t, e):
        return mem, last

    def score(self, mem, src, dst):
        src = torch.as_tensor(src, dtype=torch.long)
        dst = torch.as_tensor(dst, dtype=torch.long)
        z = self.embedding.weight
        return self.decoder(torch.cat([z[src], z[dst]], dim=1)).squeeze(-1)


def _check_model(model):
    return check_instance("model", model, (TGNLite, StaticLinkModel))


def _check_stream(stream) -> TemporalStream:
    return check_instance("stream", stream, TemporalStream)


def _check_pair(model, stream) -> TemporalStream:
    """The stream, checked against the model's node count and edge-feature width."""
    stream = _check_stream(stream)
    if stream.n_nodes != model.n_nodes:
        raise ValueError(f"stream has {stream.n_nodes} nodes, model {model.n_nodes}")
    edge_dim = getattr(model, "edge_dim", None)
    if edge_dim is not None and stream.edge_dim != edge_dim:
        raise ValueError(f"stream has edge_dim {stream.edge_dim}, model {edge_dim}")
    return stream


def _check_state(model, mem, last):
    mem = check_tensor("mem", mem, 2)
    last = check_tensor("last", last, 1)
    if tuple(mem.shape) != (model.n_nodes, model.mem_dim):
        raise ValueError(
            f"mem must have shape ({model.n_nodes}, {model.mem_dim}), got {tuple(mem.shape)}"
        )
    if last.shape[0] != model.n_nodes:
        raise ValueError(f"last must have shape ({model.n_nodes},), got {tuple(last.shape)}")
    return mem, last


def _check_range(stream: TemporalStream, start, end) -> tuple[int, int]:
    start = check_int("start", start, 0, stream.n_events - 1)
    end = check_int("end", end, 1, stream.n_events)
    if start >= end:
        raise ValueError(f"start must be < end, got start={start}, end={end}")
    return start, end


def _batch(stream: TemporalStream, a: int, b: int):
    return (
        torch.from_numpy(stream.src[a:b]),
        torch.from_numpy(stream.dst[a:b]),
        torch.from_numpy(stream.t[a:b]),
        torch.from_numpy(stream.edge_feat[a:b]),
    )


def _check_training_args(
    train_frac: float, epochs: int, batch: int, lr: float, seed: int
) -> tuple[float, int, int, float, int]:
    """The training arguments shared by :func:`train_tgn` and ``pyg_tgn.train_pyg_tgn``."""
    return (
        check_probability("train_frac", train_frac, low_open=True),
        check_int("epochs", epochs, 1),
        check_int("batch", batch, 1),
        check_positive("lr", lr),
        check_seed("seed", seed),
    )


def train_tgn(
    model,
    stream: TemporalStream,
    train_frac: float = 0.6,
    epochs: int = 3,
    batch: int = 200,
    lr: float = 1e-3,
    seed: int = 0,
) -> dict:
    """Train on the first ``train_frac`` of the stream as TGN does (one random negative each).

    Per batch: apply the *previous* batch's events to the memory **with gradient** (so the
    memory updater is trained), score the current batch's positives and negatives (BCE), step,
    then detach the memory. Memories are reset at each epoch. Returns
    ``{"loss": per-epoch mean losses, "seconds": wall time, "n_train": events}``.
    """
    model = _check_model(model)
    stream = _check_pair(model, stream)
    train_frac, epochs, batch, lr, seed = _check_training_args(train_frac, epochs, batch, lr, seed)
    n_train = max(1, int(train_frac * stream.n_events))
    gen = torch.Generator().manual_seed(seed)
    opt = torch.optim.Adam(model.parameters(), lr=lr)
    t0 = time.perf_counter()
    losses = []
    model.train()
    for _ in range(epochs):
        mem, last = model.initial_state()
        prev = None
        epoch_losses = []
        for a in range(0, n_train, batch):
            u, v, t, e = _batch(stream, a, min(a + batch, n_train))
            if prev is not None:
                mem_g, last_g = model.update(mem, last, *prev)
            else:
                mem_g, last_g = mem, last
            neg = torch.randint(0, model.n_nodes, (u.numel(),), generator=gen)
            pos_logit = model.score(mem_g, u, v)
            neg_logit = model.score(mem_g, u, neg)
            logits = torch.cat([pos_logit, neg_logit])
            labels = torch.cat([torch.ones_like(pos_logit), torch.zeros_like(neg_logit)])
            loss = F.binary_cross_entropy_with_logits(logits, labels)
            opt.zero_grad()
            loss.backward()
            opt.step()
            epoch_losses.append(loss.item())
            mem, last = mem_g.detach(), last_g.detach()
            prev = (u, v, t, e)
        losses.append(float(np.mean(epoch_losses)))
    model.eval()
    return {"loss": losses, "seconds": time.perf_counter() - t0, "n_train": n_train}


@torch.no_grad()
def replay(model, stream: TemporalStream, start: int, end: int, mem, last, batch: int = 200):
    """Advance the memory through events [start, end) in batches; returns (mem, last)."""
    model = _check_model(model)
    stream = _check_pair(model, stream)
    start, end = _check_range(stream, start, end)
    mem, last = _check_state(model, mem, last)
    batch = check_int("batch", batch, 1)
    for a in range(start, end, batch):
        mem, last = model.update(mem, last, *_batch(stream, a, min(a + batch, end)))
    return mem, last


def _metrics(pos: list, neg: list) -> dict:
    p = np.concatenate(pos) if pos else np.zeros(0)
    n = np.concatenate(neg) if neg else np.zeros(0)
    if p.size == 0:
        return {"auc": float("nan"), "ap": float("nan"), "n": 0}
    y = np.r_[np.ones(p.size), np.zeros(n.size)]
    s = np.r_[p, n]
    return {
        "auc": float(roc_auc_score(y, s)),
        "ap": float(average_precision_score(y, s)),
        "n": int(p.size),
    }


def _negatives(n_nodes: int, n: int, seed: int) -> torch.Tensor:
    """(n,) uniform random negative destinations drawn from ``seed`` alone."""
    return torch.from_numpy(np.random.default_rng(seed).integers(0, n_nodes, n))


@torch.no_grad()
def _scored_replay(model, stream, start, end, mem, last, node_sets, seed, batch=200):
    """Replay [start, end), scoring events touching each node set (None: every event) against
    one random negative per event drawn from ``seed`` (the same in every condition)."""
    negatives = _negatives(model.n_nodes, end - start, seed)
    masks = []
    for nodes in node_sets:
        if nodes is None:
            masks.append(None)
        else:
            flag = np.zeros(model.n_nodes, dtype=bool)
            flag[np.asarray(nodes, dtype=np.int64)] = True
            masks.append(torch.from_numpy(flag))
    pos = [[] for _ in node_sets]
    neg = [[] for _ in node_sets]
    for a in range(start, end, batch):
        b = min(a + batch, end)
        u, v, t, e = _batch(stream, a, b)
        ng = negatives[a - start : b - start]
        for k, flag in enumerate(masks):
            if flag is None:
                anchor, other, sel = u, v, torch.ones_like(u, dtype=torch.bool)
            else:
                from_src = flag[u]
                sel = from_src | flag[v]
                anchor = torch.where(from_src, u, v)
                other = torch.where(from_src, v, u)
            if bool(sel.any()):
                pos[k].append(model.score(mem, anchor[sel], other[sel]).numpy())
                neg[k].append(model.score(mem, anchor[sel], ng[sel]).numpy())
        mem, last = model.update(mem, last, u, v, t, e)
    return [_metrics(p, n) for p, n in zip(pos, neg, strict=True)], mem, last


def link_metrics(
    model,
    stream: TemporalStream,
    start: int,
    end: int,
    mem,
    last,
    nodes=None,
    seed: int = 0,
):
    """Link-prediction AUC/AP on events [start, end) while replaying them.

    Each event is scored from the memories before its batch against one random negative
    (same source, uniform destination, drawn from ``seed``); with ``nodes`` only events that
    touch those nodes count, anchored at that node. Returns ``({auc, ap, n}, mem, last)``.
    """
    model = _check_model(model)
    stream = _check_pair(model, stream)
    start, end = _check_range(stream, start, end)
    mem, last = _check_state(model, mem, last)
    if nodes is not None:
        nodes = check_index_array("nodes", nodes, model.n_nodes, ndim=1, high_name="n_nodes")
    seed = check_seed("seed", seed)
    out, mem, last = _scored_replay(model, stream, start, end, mem, last, [nodes], seed)
    return out[0], mem, last


@torch.no_grad()
def update_gate_values(model, stream: TemporalStream, start: int, end: int, mem, last):
    """Mean update gate z̄ = mean_k σ(W_z m + U_z s + b_z)_k of every real GRU update in
    [start, end), shape (messages,). Only for ``updater="gru"``."""
    model = check_instance("model", model, TGNLite)
    if model.updater != "gru":
        raise ValueError(
            f"model must have updater='gru' to have an update gate, got {model.updater!r}"
        )
    stream = _check_pair(model, stream)
    start, end = _check_range(stream, start, end)
    mem, last = _check_state(model, mem, last)
    out = []
    for a in range(start, end, 200):
        u, v, t, e = _batch(stream, a, min(a + 200, end))
        nodes = torch.cat([u, v])
        other = torch.cat([v, u])
        tt = torch.cat([t, t])
        m = model.message(mem[nodes], mem[other], tt - last[nodes], torch.cat([e, e]))
        out.append(gate(model, m, mem[nodes]).mean(1).numpy())
        mem, last = model.update(mem, last, u, v, t, e)
    return np.concatenate(out)


def gate(model: TGNLite, m, s):
    """Update gate z (B, d) of the GRUCell for messages m (B, msg_dim) and states s (B, d)."""
    cell = model.memory_updater
    d = model.mem_dim
    gi = F.linear(m, cell.weight_ih[d : 2 * d], cell.bias_ih[d : 2 * d])
    gh = F.linear(s, cell.weight_hh[d : 2 * d], cell.bias_hh[d : 2 * d])
    return torch.sigmoid(gi + gh)
