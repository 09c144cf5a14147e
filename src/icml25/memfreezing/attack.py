"""MemFreezing (our reconstruction): a frozen state s*, fake events that put victims on it, and
the baselines (random and greedy injection with the same budget).

Frozen state: s* = argmin_s D(s), D(s) = E ‖memory_updater(m(s, s_nbr, Δt, e), s) − s‖², with
surrogate neighbours s_nbr drawn from the memories at attack time, or s itself with probability
``frozen_neighbor_frac`` (cross-freezing). Injection: K fake events (fake node memory, edge
features within ±clip, times t_a + k·dt) per victim, optimised through the unrolled updater so
that the victim's memory lands on s*.
"""

from __future__ import annotations

import copy
from contextlib import contextmanager
from dataclasses import dataclass

import numpy as np
import torch
import torch.nn.functional as F

from icml25.common.checks import (
    check_instance,
    check_int,
    check_positive,
    check_probability,
    check_real,
    check_seed,
    check_tensor,
)
from icml25.memfreezing.data import TemporalStream
from icml25.memfreezing.model import TGNLite, _check_state, _check_stream

__all__ = [
    "Injection",
    "apply_injection",
    "craft_injection",
    "find_frozen_state",
    "greedy_injection",
    "random_injection",
    "shift_update_gate",
    "update_drift",
]


@dataclass
class Injection:
    """K fake events per victim.

    Attributes:
        victims: (V,) long node ids.
        edge_feat: (V, K, edge_dim) edge features of the fake events.
        fake_memory: (V, K, d) memories of the fake partner nodes.
        times: (K,) event times t_a + dt·k, k = 1..K.
        loss: mean ‖s_v − target‖² after the K events (NaN for the baselines without a target).
    """

    victims: torch.Tensor
    edge_feat: torch.Tensor
    fake_memory: torch.Tensor
    times: torch.Tensor
    loss: float

    @property
    def k_events(self) -> int:
        return int(self.times.numel())


@contextmanager
def _no_param_grad(model):
    flags = [p.requires_grad for p in model.parameters()]
    for p in model.parameters():
        p.requires_grad_(False)
    try:
        yield
    finally:
        for p, f in zip(model.parameters(), flags, strict=True):
            p.requires_grad_(f)


def _check_tgn(model) -> TGNLite:
    return check_instance("model", model, TGNLite)


def _bank(name: str, value, dim: int) -> torch.Tensor:
    value = check_tensor(name, value, 2)
    if value.shape[1] != dim:
        raise ValueError(f"{name} must have {dim} columns, got shape {tuple(value.shape)}")
    return value.float()


def update_drift(
    model,
    states,
    neighbor_bank,
    edge_bank,
    n_samples: int = 256,
    frozen_neighbor_frac: float = 0.0,
    dt_max: float = 5.0,
    seed: int = 0,
):
    """D(s) for each state, shape (S,): the sample mean over ``n_samples`` draws of
    ‖memory_updater(message(s, s_nbr, Δt, e), s) − s‖² (summed over coordinates), with s_nbr a
    row of ``neighbor_bank`` (or s itself w.p. ``frozen_neighbor_frac``), Δt ~ U(0, dt_max), e a
    row of ``edge_bank``. Differentiable in ``states``; the draws depend only on ``seed``."""
    model = _check_tgn(model)
    states = check_tensor("states", states, 2)
    if states.shape[1] != model.mem_dim:
        raise ValueError(f"states must have shape (S, {model.mem_dim}), got {tuple(states.shape)}")
    nb = _bank("neighbor_bank", neighbor_bank, model.mem_dim)
    eb = _bank("edge_bank", edge_bank, model.edge_dim)
    n_samples = check_int("n_samples", n_samples, 1)
    frac = check_probability("frozen_neighbor_frac", frozen_neighbor_frac)
    dt_max = check_positive("dt_max", dt_max)
    seed = check_seed("seed", seed)
    return _drift(model, states, nb, eb, n_samples, frac, dt_max, seed)


def _drift(model, states, nb, eb, n_samples, frac, dt_max, seed):
    gen = torch.Generator().manual_seed(seed)
    S, d = states.shape
    i_nb = torch.randint(0, nb.shape[0], (S, n_samples), generator=gen)
    i_e = torch.randint(0, eb.shape[0], (S, n_samples), generator=gen)
    own = torch.rand(S, n_samples, 1, generator=gen) < frac
    dt = torch.rand(S, n_samples, generator=gen) * dt_max
    s = states[:, None, :].expand(S, n_samples, d)
    s_nbr = torch.where(own, s, nb[i_nb])
    flat = s.reshape(-1, d)
    m = model.message(flat, s_nbr.reshape(-1, d), dt.reshape(-1), eb[i_e].reshape(-1, eb.shape[1]))
    new = model.memory_updater(m, flat)
    return ((new - flat) ** 2).sum(1).reshape(S, n_samples).mean(1)


def find_frozen_state(
    model,
    neighbor_bank,
    edge_bank,
    frozen_neighbor_frac: float = 0.5,
    steps: int = 600,
    lr: float = 0.05,
    seed: int = 0,
    n_samples: int = 256,
    dt_max: float = 5.0,
    restarts: int = 4,
):
    """s* = tanh(z*), z* = argmin_z D(tanh z) by Adam with fresh draws each step, restarted from
    z = 0 and from the ``restarts − 1`` bank rows of least drift (from zero alone the search can
    stop in a local minimum worse than some real memories); the restart of least drift on a
    common evaluation draw wins. Returns s* of shape (mem_dim,) in (−1, 1)."""
    model = _check_tgn(model)
    nb = _bank("neighbor_bank", neighbor_bank, model.mem_dim)
    eb = _bank("edge_bank", edge_bank, model.edge_dim)
    frac = check_probability("frozen_neighbor_frac", frozen_neighbor_frac)
    steps = check_int("steps", steps, 1)
    lr = check_positive("lr", lr)
    seed = check_seed("seed", seed)
    n_samples = check_int("n_samples", n_samples, 1)
    dt_max = check_positive("dt_max", dt_max)
    restarts = check_int("restarts", restarts, 1)
    starts = [torch.zeros(model.mem_dim)]
    if restarts > 1:
        with torch.no_grad():
            d0 = _drift(model, nb, nb, eb, 64, frac, dt_max, seed + 10**6)
        best = torch.argsort(d0)[: restarts - 1]
        starts += [torch.atanh(nb[int(i)].clamp(-0.99, 0.99)) for i in best]
    found = []
    with _no_param_grad(model), torch.enable_grad():
        for z0 in starts:
            z = z0.clone()[None].requires_grad_(True)
            opt = torch.optim.Adam([z], lr=lr)
            for step in range(steps):
                loss = _drift(model, torch.tanh(z), nb, eb, n_samples, frac, dt_max, seed + step)
                opt.zero_grad()
                loss.sum().backward()
                opt.step()
            found.append(torch.tanh(z.detach())[0])
    cand = torch.stack(found)
    with torch.no_grad():
        score = _drift(model, cand, nb, eb, 4 * n_samples, frac, dt_max, seed + 2 * 10**6)
    return cand[int(score.argmin())]


def _victims(victims, n_nodes: int) -> torch.Tensor:
    if isinstance(victims, torch.Tensor):
        if victims.is_floating_point() or victims.dtype == torch.bool:
            raise TypeError(f"victims must hold integers, got dtype {victims.dtype}")
        victims = victims.detach().cpu().numpy()
    from icml25.common.checks import check_index_array

    arr = check_index_array("victims", victims, n_nodes, ndim=1, high_name="n_nodes")
    if np.unique(arr).size != arr.size:
        raise ValueError("victims must not repeat a node")
    return torch.from_numpy(arr)


def _unroll(model, s, last_v, fake, edge, times):
    """The victims' memories after the K fake events, (V, d)."""
    t_prev = last_v
    for k in range(times.numel()):
        dt = times[k] - t_prev
        s = model.memory_updater(model.message(s, fake[:, k], dt, edge[:, k]), s)
        t_prev = times[k].expand_as(last_v)
    return s


def _common(model, mem, last, victims, t_attack, k_events, dt):
    model = _check_tgn(model)
    mem, last = _check_state(model, mem, last)
    vic = _victims(victims, model.n_nodes)
    t_attack = check_real("t_attack", t_attack)
    k_events = check_int("k_events", k_events, 1)
    dt = check_positive("dt", dt)
    times = t_attack + dt * torch.arange(1, k_events + 1, dtype=torch.float32)
    return model, mem, last, vic, times


def _optimise(model, mem, last, vic, times, objective, learn_fake_memory, steps, lr, clip, seed):
    """Adam on the K fake events' edge features (clipped to ±clip) and fake memories (tanh)."""
    gen = torch.Generator().manual_seed(seed)
    V, K = vic.numel(), times.numel()
    edge = (0.1 * torch.randn(V, K, model.edge_dim, generator=gen)).requires_grad_(True)
    theta = torch.zeros(V, K, model.mem_dim, requires_grad=learn_fake_memory)
    params = [edge] + ([theta] if learn_fake_memory else [])
    opt = torch.optim.Adam(params, lr=lr)
    s0, l0 = mem[vic].detach(), last[vic].detach()
    with _no_param_grad(model), torch.enable_grad():
        for _ in range(steps):
            s = _unroll(model, s0, l0, torch.tanh(theta), edge, times)
            loss = objective(s)
            opt.zero_grad()
            loss.backward()
            opt.step()
            with torch.no_grad():
                edge.clamp_(-clip, clip)
    return edge.detach(), torch.tanh(theta).detach()


def craft_injection(
    model,
    mem,
    last,
    victims,
    target,
    t_attack: float,
    k_events: int = 4,
    dt: float = 0.1,
    learn_fake_memory: bool = True,
    steps: int = 400,
    lr: float = 0.1,
    clip: float = 4.0,
    seed: int = 0,
) -> Injection:
    """MemFreezing's injection: K fake events per victim whose edge features (and fake-node
    memories if ``learn_fake_memory``) minimise mean_v ‖s_v after the K events − target‖²,
    by back-propagation through the unrolled memory updater."""
    model, mem, last, vic, times = _common(model, mem, last, victims, t_attack, k_events, dt)
    target = check_tensor("target", target).float()
    if target.shape not in ((model.mem_dim,), (vic.numel(), model.mem_dim)):
        raise ValueError(
            f"target must have shape ({model.mem_dim},) or ({vic.numel()}, {model.mem_dim}), "
            f"got {tuple(target.shape)}"
        )
    if not isinstance(learn_fake_memory, bool):
        raise TypeError(f"learn_fake_memory must be a bool, got {type(learn_fake_memory).__name__}")
    steps = check_int("steps", steps, 1)
    lr = check_positive("lr", lr)
    clip = check_positive("clip", clip)
    seed = check_seed("seed", seed)
    target = target.expand(vic.numel(), model.mem_dim).detach()

    def objective(s):
        return ((s - target) ** 2).sum(1).mean()

    edge, fake = _optimise(
        model, mem, last, vic, times, objective, learn_fake_memory, steps, lr, clip, seed
    )
    with torch.no_grad():
        loss = float(objective(_unroll(model, mem[vic], last[vic], fake, edge, times)))
    return Injection(vic, edge, fake, times, loss)


@torch.no_grad()
def apply_injection(model, mem, last, injection: Injection):
    """Apply the fake events: only the victims' memories and last times change; returns new
    (mem, last). An injection with K = 0 events is a no-op."""
    model = _check_tgn(model)
    mem, last = _check_state(model, mem, last)
    injection = check_instance("injection", injection, Injection)
    if injection.k_events == 0:
        return mem.clone(), last.clone()
    vic = injection.victims
    if int(vic.max()) >= model.n_nodes:
        raise ValueError(f"injection.victims must be < n_nodes={model.n_nodes}")
    s = _unroll(
        model, mem[vic], last[vic], injection.fake_memory, injection.edge_feat, injection.times
    )
    new_last = last.clone()
    new_last[vic] = injection.times[-1]
    return mem.index_copy(0, vic, s), new_last


def random_injection(
    model,
    mem,
    last,
    victims,
    stream: TemporalStream,
    t_attack: float,
    k_events: int = 4,
    dt: float = 0.1,
    seed: int = 0,
) -> Injection:
    """Baseline: K fake events per victim with real edge features drawn from the events before
    ``t_attack`` and zero (new-node) fake memories. ``loss`` is NaN (no target)."""
    model, mem, last, vic, times = _common(model, mem, last, victims, t_attack, k_events, dt)
    stream = _check_stream(stream)
    seed = check_seed("seed", seed)
    n_known = max(1, int(np.searchsorted(stream.t, t_attack, side="right")))
    rng = np.random.default_rng(seed)
    rows = rng.integers(0, n_known, (vic.numel(), times.numel()))
    edge = torch.from_numpy(stream.edge_feat[rows]).float()
    fake = torch.zeros(vic.numel(), times.numel(), model.mem_dim)
    return Injection(vic, edge, fake, times, float("nan"))


def _partners(stream: TemporalStream, n_known: int, vic: torch.Tensor, n_partners: int):
    """(V, P) most recent distinct partners of each victim before event ``n_known`` and mask."""
    src, dst = stream.src[:n_known], stream.dst[:n_known]
    out = np.zeros((vic.numel(), n_partners), dtype=np.int64)
    mask = np.zeros((vic.numel(), n_partners), dtype=bool)
    for row, v in enumerate(vic.tolist()):
        idx = np.flatnonzero((src == v) | (dst == v))[::-1]
        other = np.where(src[idx] == v, dst[idx], src[idx])
        _, first = np.unique(other, return_index=True)
        recent = other[np.sort(first)][:n_partners]
        out[row, : recent.size] = recent
        mask[row, : recent.size] = True
    return torch.from_numpy(out), torch.from_numpy(mask)


def greedy_injection(
    model,
    mem,
    last,
    victims,
    stream: TemporalStream,
    t_attack: float,
    k_events: int = 4,
    dt: float = 0.1,
    learn_fake_memory: bool = True,
    steps: int = 400,
    lr: float = 0.1,
    clip: float = 4.0,
    n_partners: int = 10,
    seed: int = 0,
    score_fn=None,
) -> Injection:
    """Baseline with MemFreezing's budget (K events, same optimiser, steps and clip): maximise
    the immediate link loss −log σ(score(s_v, s_p)) on each victim's ``n_partners`` most recent
    partners known at ``t_attack``. ``loss`` is that link loss after the injection.

    ``score_fn(s, victims, partners) -> (V, P)`` logits, differentiable in the victims'
    memories ``s`` (V, d), scores the pairs; None: ``model.decoder`` on [s_v ‖ s_p]. For a PyG
    TGN pass :func:`icml25.memfreezing.pyg_link_scorer` (its attention embedding and decoder).
    """
    model, mem, last, vic, times = _common(model, mem, last, victims, t_attack, k_events, dt)
    stream = _check_stream(stream)
    if not isinstance(learn_fake_memory, bool):
        raise TypeError(f"learn_fake_memory must be a bool, got {type(learn_fake_memory).__name__}")
    steps = check_int("steps", steps, 1)
    lr = check_positive("lr", lr)
    clip = check_positive("clip", clip)
    n_partners = check_int("n_partners", n_partners, 1)
    seed = check_seed("seed", seed)
    n_known = max(1, int(np.searchsorted(stream.t, t_attack, side="right")))
    partners, pmask = _partners(stream, n_known, vic, n_partners)
    if score_fn is not None and not callable(score_fn):
        raise TypeError(f"score_fn must be callable or None, got {type(score_fn).__name__}")
    s_p = mem[partners].detach()  # (V, P, d)
    w = pmask.float() / pmask.float().sum().clamp(min=1.0)

    def link_loss(s):
        if score_fn is None:
            pair = torch.cat([s[:, None, :].expand_as(s_p), s_p], dim=2)
            logit = model.decoder(pair).squeeze(-1)
        else:
            logit = score_fn(s, vic, partners)
        return (F.softplus(-logit) * w).sum()

    edge, fake = _optimise(
        model,
        mem,
        last,
        vic,
        times,
        lambda s: -link_loss(s),
        learn_fake_memory,
        steps,
        lr,
        clip,
        seed,
    )
    with torch.no_grad():
        loss = float(link_loss(_unroll(model, mem[vic], last[vic], fake, edge, times)))
    return Injection(vic, edge, fake, times, loss)


def shift_update_gate(model, beta: float) -> TGNLite:
    """A copy of ``model`` with β added to the GRU's update-gate bias b_z (z = σ(… + b_z + β)):
    β > 0 makes every memory keep more of its past."""
    model = _check_tgn(model)
    if model.updater != "gru":
        raise ValueError(
            f"model must have updater='gru' to shift an update gate, got {model.updater!r}"
        )
    beta = check_real("beta", beta)
    out = copy.deepcopy(model)
    d = out.mem_dim
    with torch.no_grad():
        out.memory_updater.bias_ih[d : 2 * d] += beta
    return out
