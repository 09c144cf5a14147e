"""A trained PyG TGN (memory + attention embedding), the `large` model of the chapter.

Rossi et al.'s TGN as PyG assembles it (the pattern of PyG's ``examples/tgn.py``, written here):

* memory: ``torch_geometric.nn.models.tgn.TGNMemory`` with an ``IdentityMessage`` and a
  ``LastAggregator``: s_i(t) = GRU([s_i ‖ s_j ‖ e_ij ‖ cos(w·Δt + b)], s_i(t⁻));
* embedding: one ``TransformerConv`` layer (2 heads) over each node's ``n_neighbors`` most recent
  temporal neighbours (``LastNeighborLoader``), edge attribute [cos(w·(t_j⁻ − t_ij) + b) ‖ e_ij],
  z_i = Σ_j α_ij (W_v s_j + W_e a_ij) + W_r s_i;
* decoder: MLP on (z_src, z_dst) → logit.

Trained as PyG trains it (:func:`train_pyg_tgn`: per batch, embeddings from the memory after
the *previous* batch's messages, applied with gradient; one random negative per positive).
PyG's memory keeps integer timestamps: :func:`integer_times` rescales a stream's times to
integer ticks (``unit`` ticks per time unit). The attack runs on the updater through
:func:`icml25.memfreezing.tgnlite_from_pyg`; :func:`icml25.memfreezing.evaluate_after_attack`
accepts a :class:`PygTGN` and replays the stream through PyG's own update path.
"""

from __future__ import annotations

import copy
import dataclasses
import time

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

from icml25.common.checks import (
    check_device,
    check_instance,
    check_int,
    check_positive,
    check_seed,
)
from icml25.memfreezing.data import TemporalStream
from icml25.memfreezing.model import _check_training_args

__all__ = [
    "PygTGN",
    "integer_times",
    "pyg_link_scorer",
    "replay_pyg",
    "train_pyg_tgn",
]


class _AttentionEmbedding(nn.Module):
    """z = TransformerConv(s, edges to the recent neighbours, [φ(t_j⁻ − t_ij) ‖ e_ij])."""

    def __init__(self, mem_dim: int, emb_dim: int, edge_dim: int, time_enc):
        super().__init__()
        from torch_geometric.nn import TransformerConv

        self.time_enc = time_enc
        self.conv = TransformerConv(
            mem_dim, emb_dim // 2, heads=2, dropout=0.1, edge_dim=edge_dim + time_enc.out_channels
        )

    def forward(self, x, last_update, edge_index, t, msg):
        rel_t = (last_update[edge_index[0]] - t).to(x.dtype)
        edge_attr = torch.cat([self.time_enc(rel_t), msg], dim=-1)
        return self.conv(x, edge_index, edge_attr)


class _LinkDecoder(nn.Module):
    """logit = w·ReLU(W_s z_src + W_d z_dst) + b."""

    def __init__(self, emb_dim: int):
        super().__init__()
        self.src = nn.Linear(emb_dim, emb_dim)
        self.dst = nn.Linear(emb_dim, emb_dim)
        self.out = nn.Linear(emb_dim, 1)

    def forward(self, z_src, z_dst):
        return self.out(F.relu(self.src(z_src) + self.dst(z_dst))).squeeze(-1)


class PygTGN(nn.Module):
    """PyG's TGN: ``TGNMemory`` + attention embedding + link decoder + ``LastNeighborLoader``.

    Attributes:
        memory: the ``TGNMemory`` (``memory.gru`` is the updater the attack differentiates).
        gnn: the attention embedding (one ``TransformerConv``, 2 heads, dropout 0.1).
        decoder: the link decoder on (z_src, z_dst).
        loader: the ``LastNeighborLoader`` (its state is rebuilt from the stream by every
            function of this module that needs it).
        n_nodes, mem_dim, edge_dim, time_dim, emb_dim, n_neighbors, device.
    """

    def __init__(
        self,
        n_nodes: int,
        mem_dim: int = 100,
        edge_dim: int = 8,
        time_dim: int = 100,
        emb_dim: int = 100,
        n_neighbors: int = 10,
        seed: int = 0,
        device=None,
    ):
        super().__init__()
        from torch_geometric.nn.models.tgn import (
            IdentityMessage,
            LastAggregator,
            LastNeighborLoader,
            TGNMemory,
        )

        self.n_nodes = check_int("n_nodes", n_nodes, 2)
        self.mem_dim = check_int("mem_dim", mem_dim, 1)
        self.edge_dim = check_int("edge_dim", edge_dim, 1)
        self.time_dim = check_int("time_dim", time_dim, 1)
        self.emb_dim = check_int("emb_dim", emb_dim, 2)
        if self.emb_dim % 2:
            raise ValueError(f"emb_dim must be even (two attention heads), got {emb_dim}")
        self.n_neighbors = check_int("n_neighbors", n_neighbors, 1)
        seed = check_seed("seed", seed)
        self.device = check_device("device", device)
        gen_state = torch.random.get_rng_state()
        torch.manual_seed(seed)
        self.memory = TGNMemory(
            self.n_nodes,
            self.edge_dim,
            self.mem_dim,
            self.time_dim,
            message_module=IdentityMessage(self.edge_dim, self.mem_dim, self.time_dim),
            aggregator_module=LastAggregator(),
        )
        self.gnn = _AttentionEmbedding(
            self.mem_dim, self.emb_dim, self.edge_dim, self.memory.time_enc
        )
        self.decoder = _LinkDecoder(self.emb_dim)
        torch.random.set_rng_state(gen_state)
        self.to(self.device)
        self.loader = LastNeighborLoader(self.n_nodes, self.n_neighbors, device=self.device)
        self.register_buffer(
            "_assoc", torch.empty(self.n_nodes, dtype=torch.long, device=self.device), False
        )
        self.eval()

    def embed(self, x, last_update, edge_index, e_id, events, gnn=None):
        """Embeddings (n, emb_dim) of n nodes from their memories ``x`` (n, d) and last-update
        times (n,), the neighbour edges ``edge_index`` (2, m) in local ids with event ids
        ``e_id`` (m,), and ``events`` = the stream's (t, e) on the device."""
        t_all, msg_all = events
        return (gnn or self.gnn)(x, last_update, edge_index, t_all[e_id], msg_all[e_id])


def _check_pyg(model) -> PygTGN:
    return check_instance("model", model, PygTGN)


def _check_stream(stream) -> TemporalStream:
    return check_instance("stream", stream, TemporalStream)


def _check_integer_stream(model: PygTGN, stream) -> TemporalStream:
    stream = _check_stream(stream)
    if stream.n_nodes != model.n_nodes:
        raise ValueError(f"stream has {stream.n_nodes} nodes, model {model.n_nodes}")
    if stream.edge_dim != model.edge_dim:
        raise ValueError(f"stream has edge_dim {stream.edge_dim}, model {model.edge_dim}")
    if not np.array_equal(stream.t, np.floor(stream.t)):
        raise ValueError("stream must have integer times for PyG's TGNMemory: use integer_times")
    return stream


def integer_times(stream: TemporalStream, unit: float = 1000.0) -> TemporalStream:
    """The same stream with times t ↦ ⌊unit · t⌋ (integer ticks, float32, still sorted), as
    PyG's ``TGNMemory`` keeps integer last-update times."""
    stream = _check_stream(stream)
    unit = check_positive("unit", unit)
    ticks = np.floor(stream.t.astype(np.float64) * unit)
    if ticks.size and ticks[-1] >= 2**24:
        raise ValueError(f"unit={unit} gives ticks beyond float32's exact integers (2**24)")
    return dataclasses.replace(stream, t=ticks.astype(np.float32))


def _device_stream(model: PygTGN, stream: TemporalStream):
    dev = model.device
    return (
        torch.from_numpy(stream.src).to(dev),
        torch.from_numpy(stream.dst).to(dev),
        torch.from_numpy(stream.t).long().to(dev),
        torch.from_numpy(stream.edge_feat).float().to(dev),
    )


def _neighbourhood(model: PygTGN, n_id):
    """The loader's neighbourhood of ``n_id``: (all nodes, edge_index in local ids, e_id)."""
    n_all, edge_index, e_id = model.loader(n_id)
    model._assoc[n_all] = torch.arange(n_all.numel(), device=n_all.device)
    return n_all, edge_index, e_id


def _rebuild_loader(model: PygTGN, ds, end: int, batch: int = 200) -> None:
    """Neighbour loader after inserting events [0, end) in batches (the order of training)."""
    src, dst = ds[0], ds[1]
    model.loader.reset_state()
    for a in range(0, end, batch):
        b = min(a + batch, end)
        model.loader.insert(src[a:b], dst[a:b])


def train_pyg_tgn(
    model,
    stream: TemporalStream,
    train_frac: float = 0.6,
    epochs: int = 3,
    batch: int = 200,
    lr: float = 1e-3,
    seed: int = 0,
) -> dict:
    """Train on the first ``train_frac`` of an integer-time stream as PyG's TGN example does.

    Per batch: the memory after the previous batch's messages (``TGNMemory`` in training mode
    applies them with gradient), attention embeddings over the recent neighbours, BCE on the
    positives and one uniform random negative each, then ``update_state`` and ``insert`` the
    batch, step, detach. Memory and neighbours are reset at each epoch. Returns
    ``{"loss": per-epoch mean losses, "seconds": wall time, "n_train": events}``.
    """
    model = _check_pyg(model)
    stream = _check_integer_stream(model, stream)
    train_frac, epochs, batch, lr, seed = _check_training_args(train_frac, epochs, batch, lr, seed)
    n_train = max(1, int(train_frac * stream.n_events))
    ds = _device_stream(model, stream)
    gen = torch.Generator().manual_seed(seed)
    params = {id(p): p for m in (model.memory, model.gnn, model.decoder) for p in m.parameters()}
    opt = torch.optim.Adam(list(params.values()), lr=lr)  # time_enc is shared: once
    cuda = [model.device.index or 0] if model.device.type == "cuda" else []
    t0 = time.perf_counter()
    losses = []
    with torch.random.fork_rng(devices=cuda):
        torch.manual_seed(seed)  # the attention's dropout
        for _ in range(epochs):
            model.train()
            model.memory.reset_state()
            model.loader.reset_state()
            epoch_losses = []
            for a in range(0, n_train, batch):
                b = min(a + batch, n_train)
                src, dst, t, msg = (x[a:b] for x in ds)
                neg = torch.randint(0, model.n_nodes, (b - a,), generator=gen).to(model.device)
                opt.zero_grad()
                n_all, edge_index, e_id = _neighbourhood(model, torch.cat([src, dst, neg]).unique())
                x, last = model.memory(n_all)
                z = model.embed(x, last, edge_index, e_id, (ds[2], ds[3]))
                loc = model._assoc
                pos_logit = model.decoder(z[loc[src]], z[loc[dst]])
                neg_logit = model.decoder(z[loc[src]], z[loc[neg]])
                logits = torch.cat([pos_logit, neg_logit])
                labels = torch.cat([torch.ones_like(pos_logit), torch.zeros_like(neg_logit)])
                loss = F.binary_cross_entropy_with_logits(logits, labels)
                model.memory.update_state(src, dst, t, msg)
                model.loader.insert(src, dst)
                loss.backward()
                opt.step()
                model.memory.detach()
                epoch_losses.append(loss.item())
            losses.append(float(np.mean(epoch_losses)))
    model.eval()
    return {"loss": losses, "seconds": time.perf_counter() - t0, "n_train": n_train}


@torch.no_grad()
def replay_pyg(model, stream: TemporalStream, end: int, batch: int = 200):
    """Reset the memory and the neighbours, replay events [0, end) through PyG's eval-mode
    ``update_state`` and ``insert``; returns ``(mem, last)`` as CPU float32 copies, (N, d)
    and (N,), in the form the package's attack functions take."""
    model = _check_pyg(model)
    stream = _check_integer_stream(model, stream)
    end = check_int("end", end, 1, stream.n_events)
    batch = check_int("batch", batch, 1)
    ds = _device_stream(model, stream)
    model.eval()
    model.memory.reset_state()
    model.loader.reset_state()
    for a in range(0, end, batch):
        b = min(a + batch, end)
        src, dst, t, msg = (x[a:b] for x in ds)
        model.memory.update_state(src, dst, t, msg)
        model.loader.insert(src, dst)
    return _state(model)


def _state(model: PygTGN):
    m = model.memory
    return m.memory.detach().float().cpu().clone(), m.last_update.detach().float().cpu().clone()


def _write(model: PygTGN, mem, last) -> None:
    """Reset PyG's memory (message stores included) and write (mem, last) into it."""
    m = model.memory
    m.reset_state()
    m.memory.copy_(mem.to(m.memory.device, m.memory.dtype))
    m.last_update.copy_(torch.round(last).to(m.last_update.device, m.last_update.dtype))


@torch.no_grad()
def _scored_replay_pyg(
    model: PygTGN, stream, start, end, mem, last, node_sets, negatives, batch=200
):
    """Like TGN-lite's scored replay, through PyG: per batch, embed from the memories and
    neighbours before the batch, score the events touching each node set (anchored there)
    against ``negatives``, then ``update_state`` and ``insert``. ``mem``/``last`` (CPU) are
    written in first, the neighbours rebuilt to ``start``; returns (pos, neg) score lists per
    set and the final (mem, last)."""
    ds = _device_stream(model, stream)
    model.eval()
    _write(model, mem, last)
    _rebuild_loader(model, ds, start, batch)
    masks = []
    for nodes in node_sets:
        if nodes is None:
            masks.append(None)
        else:
            flag = torch.zeros(model.n_nodes, dtype=torch.bool, device=model.device)
            flag[torch.as_tensor(np.asarray(nodes, dtype=np.int64), device=model.device)] = True
            masks.append(flag)
    negatives = negatives.to(model.device)
    pos = [[] for _ in node_sets]
    neg = [[] for _ in node_sets]
    for a in range(start, end, batch):
        b = min(a + batch, end)
        u, v, t, e = (x[a:b] for x in ds)
        ng = negatives[a - start : b - start]
        n_all, edge_index, e_id = _neighbourhood(model, torch.cat([u, v, ng]).unique())
        x, lu = model.memory(n_all)
        z = model.embed(x, lu, edge_index, e_id, (ds[2], ds[3]))
        loc = model._assoc
        for k, flag in enumerate(masks):
            if flag is None:
                anchor, other, sel = u, v, torch.ones_like(u, dtype=torch.bool)
            else:
                from_src = flag[u]
                sel = from_src | flag[v]
                anchor = torch.where(from_src, u, v)
                other = torch.where(from_src, v, u)
            if bool(sel.any()):
                za = z[loc[anchor[sel]]]
                pos[k].append(model.decoder(za, z[loc[other[sel]]]).cpu().numpy())
                neg[k].append(model.decoder(za, z[loc[ng[sel]]]).cpu().numpy())
        model.memory.update_state(u, v, t, e)
        model.loader.insert(u, v)
    new_mem, new_last = _state(model)
    return pos, neg, new_mem, new_last


def pyg_link_scorer(model, stream: TemporalStream, end: int, mem, last):
    """A ``score_fn`` for :func:`icml25.memfreezing.greedy_injection` on a :class:`PygTGN`.

    Returns ``score_fn(s, victims, partners) -> (V, P)`` logits of (victim, partner) pairs: the
    victims' memories set to ``s`` (V, d) (differentiable), the others from ``mem``/``last``
    (CPU, the state at the attack), attention embeddings over the neighbours known after
    events [0, end), then the decoder. Runs the embedding in eval mode (no dropout).
    """
    model = _check_pyg(model)
    stream = _check_integer_stream(model, stream)
    end = check_int("end", end, 1, stream.n_events)
    from icml25.memfreezing.model import _check_state

    mem, last = _check_state(model, mem, last)
    ds = _device_stream(model, stream)
    model.eval()
    _rebuild_loader(model, ds, end)
    nbrs, eids = model.loader.neighbors.clone(), model.loader.e_id.clone()
    mem_d, last_d = mem.detach().float().to(model.device), last.detach().to(model.device)
    # frozen copies: the greedy attack differentiates through them, never trains them
    gnn = copy.deepcopy(model.gnn).requires_grad_(False).eval()
    decoder = copy.deepcopy(model.decoder).requires_grad_(False).eval()

    def score_fn(s, victims, partners):
        vic = torch.as_tensor(victims, device=model.device)
        par = torch.as_tensor(partners, device=model.device)
        x_all = mem_d.index_put((vic,), s.to(model.device))
        n_id = torch.cat([vic, par.reshape(-1)]).unique()
        # the loader's neighbourhood from the snapshot at `end`
        e_id = eids[n_id]
        ok = e_id >= 0
        centre = n_id[:, None].expand_as(e_id)[ok]
        nb, e_id = nbrs[n_id][ok], e_id[ok]
        n_all = torch.cat([n_id, nb]).unique()
        loc = torch.empty(model.n_nodes, dtype=torch.long, device=model.device)
        loc[n_all] = torch.arange(n_all.numel(), device=model.device)
        edge_index = torch.stack([loc[nb], loc[centre]])
        z = model.embed(x_all[n_all], last_d[n_all], edge_index, e_id, (ds[2], ds[3]), gnn)
        zv = z[loc[vic]][:, None, :].expand(-1, par.shape[1], -1)
        return decoder(zv, z[loc[par]]).cpu()

    return score_fn
