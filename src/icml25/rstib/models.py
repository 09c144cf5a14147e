"""Forecasters: the STID-like MLP, the STGCN-lite teacher (PyG ``ChebConv``) and RSTIB-MLP.

Every model maps ``(x, tod, dow)`` with ``x`` (B, L, N) normalised flow, ``tod`` (B,) and ``dow``
(B,) integer indices of the last input step, to a forecast (B, H, N).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch_geometric.nn import ChebConv

from icml25.common.checks import check_choice, check_finite_array, check_instance, check_int

__all__ = ["RSTIBMLP", "STGCNLite", "STIDMLP", "IBOutput", "n_params"]


def n_params(model: nn.Module) -> int:
    """Number of trainable parameters."""
    check_instance("model", model, nn.Module)
    return sum(p.numel() for p in model.parameters() if p.requires_grad)


class _ResidualMLP(nn.Module):
    """STID's encoder block: ``h + W2 Dropout(ReLU(W1 h))`` (the 1x1 convolutions as Linear)."""

    def __init__(self, dim: int, dropout: float = 0.15) -> None:
        super().__init__()
        self.fc1, self.fc2 = nn.Linear(dim, dim), nn.Linear(dim, dim)
        self.drop = nn.Dropout(dropout)

    def forward(self, h: torch.Tensor) -> torch.Tensor:
        return h + self.fc2(self.drop(F.relu(self.fc1(h))))


class _Embeddings(nn.Module):
    """The STID input: per-sensor history embedding, node, time-of-day and day-of-week embeddings,
    and (optionally) RSTIB's dynamic node embedding. Output H0: (B, N, n_parts * d)."""

    def __init__(
        self, n_nodes: int, lag: int, d: int, steps_per_day: int, dynamic: bool = False
    ) -> None:
        super().__init__()
        self.inp = nn.Linear(lag, d)
        self.node = nn.Parameter(torch.empty(n_nodes, d))
        self.tod = nn.Embedding(steps_per_day, d)
        self.dow = nn.Embedding(7, d)
        nn.init.xavier_uniform_(self.node)
        self.dynamic = dynamic
        if dynamic:
            # factorised dynamic node embedding: P1[tod] (d) x Pk (d, d, d) x P2[node] (d)
            self.p1 = nn.Embedding(steps_per_day, d)
            self.p2 = nn.Parameter(torch.empty(n_nodes, d))
            self.pk = nn.Parameter(torch.empty(d, d, d))
            nn.init.xavier_uniform_(self.p2)
            nn.init.xavier_uniform_(self.pk)
        self.dim = (5 if dynamic else 4) * d

    def forward(self, x: torch.Tensor, tod: torch.Tensor, dow: torch.Tensor) -> torch.Tensor:
        B, _, N = x.shape
        parts = [
            self.inp(x.transpose(1, 2)),  # (B, N, d)
            self.node.expand(B, N, -1),
            self.tod(tod)[:, None].expand(B, N, -1),
            self.dow(dow)[:, None].expand(B, N, -1),
        ]
        if self.dynamic:
            dyn = torch.einsum("bi,ijk,nj->bnk", self.p1(tod), self.pk, self.p2)
            parts.append(torch.softmax(dyn, dim=-1))
        return torch.cat(parts, dim=-1)


class STIDMLP(nn.Module):
    """The plain MLP forecaster (STID-like): embeddings, ``n_layers`` residual MLP blocks, a
    linear head to H steps. Each sensor is processed on its own: no information crosses the
    graph, only the learned node embedding tells sensors apart."""

    def __init__(
        self,
        n_nodes: int,
        lag: int = 12,
        horizon: int = 12,
        d: int = 32,
        n_layers: int = 3,
        steps_per_day: int = 288,
    ) -> None:
        super().__init__()
        d, n_layers = check_int("d", d), check_int("n_layers", n_layers, 0)
        steps_per_day = check_int("steps_per_day", steps_per_day)
        self.emb = _Embeddings(
            check_int("n_nodes", n_nodes), check_int("lag", lag), d, steps_per_day
        )
        self.encoder = nn.Sequential(*[_ResidualMLP(self.emb.dim) for _ in range(n_layers)])
        self.head = nn.Linear(self.emb.dim, check_int("horizon", horizon))

    def forward(self, x: torch.Tensor, tod: torch.Tensor, dow: torch.Tensor) -> torch.Tensor:
        return self.head(self.encoder(self.emb(x, tod, dow))).transpose(1, 2)


class _STBlock(nn.Module):
    """STGCN's sandwich: gated temporal conv (GLU), Chebyshev graph conv, temporal conv."""

    def __init__(self, c_in: int, c_hid: int, c_out: int, K: int, kt: int = 3) -> None:
        super().__init__()
        self.t1 = nn.Conv2d(c_in, 2 * c_hid, (kt, 1))
        self.graph = ChebConv(c_hid, c_hid, K=K)
        self.t2 = nn.Conv2d(c_hid, 2 * c_out, (kt, 1))
        self.norm = nn.LayerNorm(c_out)
        self.drop = nn.Dropout(0.1)

    def forward(self, h: torch.Tensor, edge_index, edge_weight) -> torch.Tensor:
        # h: (B, C, T, N)
        h = F.glu(self.t1(h), dim=1)
        B, C, T, N = h.shape
        g = h.permute(0, 2, 3, 1).reshape(B * T, N, C)
        g = F.relu(self.graph(g, edge_index, edge_weight))
        h = g.reshape(B, T, N, C).permute(0, 3, 1, 2)
        h = F.glu(self.t2(h), dim=1)
        return self.drop(self.norm(h.permute(0, 2, 3, 1)).permute(0, 3, 1, 2))


class STGCNLite(nn.Module):
    """A two-block STGCN (the teacher): graph convolutions are PyG's ``ChebConv`` (K-th order
    Chebyshev filters of the symmetrised, normalised Laplacian of ``W``).

    Input channels: flow, (sin, cos) of the time of day, a weekend flag and a learned node
    embedding of ``node_dim`` channels (so the teacher, like the MLP, can tell sensors apart);
    the temporal convolutions consume ``2 * 2 * (kt - 1)`` of the L input steps, a linear layer
    maps the rest to H steps.
    """

    def __init__(
        self,
        n_nodes: int,
        W: np.ndarray,
        lag: int = 12,
        horizon: int = 12,
        channels: int = 32,
        K: int = 3,
        steps_per_day: int = 288,
        node_dim: int = 8,
    ) -> None:
        super().__init__()
        n_nodes = check_int("n_nodes", n_nodes)
        W = check_finite_array("W", W, ndim=2)
        if W.shape[0] != W.shape[1]:
            raise ValueError(f"W must be a square matrix, got shape {W.shape}")
        if W.shape[0] != n_nodes:
            raise ValueError(
                f"W must be ({n_nodes}, {n_nodes}) for n_nodes={n_nodes}, got {W.shape}"
            )
        if W.min() < 0:
            raise ValueError("W must have non-negative weights")
        lag = check_int("lag", lag, 9)
        horizon, channels = check_int("horizon", horizon), check_int("channels", channels, 2)
        K, node_dim = check_int("K", K), check_int("node_dim", node_dim, 0)
        steps_per_day = check_int("steps_per_day", steps_per_day)
        sym = np.maximum(W, W.T)
        src, dst = np.nonzero(sym)
        self.register_buffer("edge_index", torch.tensor(np.stack([src, dst]), dtype=torch.long))
        self.register_buffer("edge_weight", torch.tensor(sym[src, dst], dtype=torch.float32))
        self.steps_per_day = steps_per_day
        self.node = nn.Parameter(0.1 * torch.randn(n_nodes, node_dim))
        c_in = 4 + node_dim
        self.blocks = nn.ModuleList(
            [
                _STBlock(c_in, channels // 2, channels, K),
                _STBlock(channels, channels // 2, channels, K),
            ]
        )
        self.out = nn.Linear(channels * (lag - 8), horizon)

    def forward(self, x: torch.Tensor, tod: torch.Tensor, dow: torch.Tensor) -> torch.Tensor:
        B, L, N = x.shape
        # time of day of each input step (the last one is ``tod``)
        steps = (tod[:, None] - torch.arange(L - 1, -1, -1)) % self.steps_per_day
        phase = 2 * torch.pi * steps.float() / self.steps_per_day  # (B, L)
        weekend = (dow >= 5).float()[:, None].expand(B, L)
        time_feats = torch.stack([torch.sin(phase), torch.cos(phase), weekend], dim=1)  # (B, 3, L)
        h = torch.cat(
            [
                x[:, None],
                time_feats[..., None].expand(B, 3, L, N),
                self.node.T[None, :, None, :].expand(B, -1, L, N),
            ],
            dim=1,
        )  # (B, 4 + node_dim, L, N)
        for block in self.blocks:
            h = block(h, self.edge_index, self.edge_weight)
        h = h.permute(0, 3, 1, 2).reshape(B, N, -1)  # (B, N, C * T')
        return self.out(h).transpose(1, 2)


@dataclass
class IBOutput:
    """RSTIB-MLP's training-time output; every tensor is per sensor: (B, N, ...).

    Without the bottleneck (``ib=False``) only ``pred`` and ``mu`` are set; the distributions
    are ``None``, so that the loss has no noise to sample and no KL term to add.
    """

    pred: torch.Tensor  # (B, H, N) forecast from one sample of Z
    mu: torch.Tensor  # (B, N, D/2) mean of Z (the re-encoded, noise-perturbed input)
    sigma: torch.Tensor | None  # (B, N, D/2)
    mu_y: torch.Tensor | None  # (B, N, H) target-noise distribution
    sigma_y: torch.Tensor | None
    mu_x: torch.Tensor | None  # (B, N, D) input-noise distribution
    sigma_x: torch.Tensor | None


def _clamped_sigma(raw: torch.Tensor) -> torch.Tensor:
    return torch.clamp(F.softplus(raw), 0.01, 0.99)


class RSTIBMLP(nn.Module):
    """RSTIB-MLP: the STID-like MLP made stochastic by the information bottleneck.

    With H0 the embeddings (dimension D) and ``enc`` the residual MLP encoder:

    1. ``enc(H0)`` gives the noise heads: ``(mu_y, sigma_y)`` (H values, target noise) and
       ``(mu_x, sigma_x)`` (D values, input noise); ``eps_x ~ N(mu_x, sigma_x^2)``.
    2. Re-encoding: ``enc(H0 + eps_x)`` split into ``mu`` and ``sigma = clamp(softplus(.), 0.01,
       0.99)`` (D/2 each); ``Z ~ N(mu, sigma^2)`` by reparameterisation.
    3. A linear regression head maps Z to the H-step forecast.

    At evaluation ``n_eval_samples`` draws are averaged (12 in the paper). ``eval_average=
    "draws"`` (the official code): the S draws of ``eps_x`` are averaged before one re-encoding
    and the S draws of Z before one head pass, so the cost is that of one stochastic pass.
    ``eval_average="forecasts"`` (a Monte Carlo average): S re-encodings and S forecasts,
    averaged (batched; S times the work of the second pass). ``eval_average="scaled"``: the mean
    of S iid N(0, 1) draws is exactly N(0, 1/S), so one draw scaled by 1/sqrt(S) gives the
    official forecast's distribution at the cost of one draw (timing reference, this book's
    addition). ``n_eval_samples=0`` uses the means
    instead (``eps_x = mu_x``, ``Z = mu``: one deterministic pass; this book's addition).
    ``ib=False`` (ablation) removes the whole ingredient: no noise heads, no sampled input or
    target noise, no second encoder pass, no KL terms; Z = mu of one deterministic pass (the
    forecast of a distilled MLP with RSTIB-MLP's embeddings and head). ``dynamic=False``
    (ablation) drops the dynamic node embedding. Unlike the released code, sigma_x has its own
    head (the code derives it from the mu head).
    """

    def __init__(
        self,
        n_nodes: int,
        lag: int = 12,
        horizon: int = 12,
        d: int = 32,
        n_layers: int = 3,
        steps_per_day: int = 288,
        ib: bool = True,
        dynamic: bool = True,
        n_eval_samples: int = 12,
        eval_average: str = "draws",
    ) -> None:
        super().__init__()
        self.horizon = check_int("horizon", horizon)
        self.eval_average = check_choice(
            "eval_average", eval_average, ("draws", "forecasts", "scaled")
        )
        d, n_layers = check_int("d", d), check_int("n_layers", n_layers, 0)
        steps_per_day = check_int("steps_per_day", steps_per_day)
        if dynamic and d % 2:
            raise ValueError(
                f"d must be even with dynamic embeddings (5·d is split in two), got {d}"
            )
        n_eval_samples = check_int("n_eval_samples", n_eval_samples, 0)
        self.emb = _Embeddings(
            check_int("n_nodes", n_nodes), check_int("lag", lag), d, steps_per_day, dynamic=dynamic
        )
        D = self.emb.dim
        self.encoder = nn.Sequential(*[_ResidualMLP(D) for _ in range(n_layers)])
        self.ib = ib
        self.noise_y = nn.Linear(D, 2 * horizon)
        self.noise_x = nn.Linear(D, 2 * D)
        self.head = nn.Linear(D // 2, horizon)
        self.n_eval_samples = n_eval_samples

    def forward_ib(self, x: torch.Tensor, tod: torch.Tensor, dow: torch.Tensor) -> IBOutput:
        """One stochastic pass with every distribution the loss needs (deterministic, with the
        distributions ``None``, when ``ib=False``)."""
        h0 = self.emb(x, tod, dow)
        if not self.ib:
            mu, _ = self.encoder(h0).chunk(2, dim=-1)
            return IBOutput(self.head(mu).transpose(1, 2), mu, None, None, None, None, None)
        first = self.encoder(h0)
        mu_y, s_y = self.noise_y(first).chunk(2, dim=-1)
        mu_x, s_x = self.noise_x(first).chunk(2, dim=-1)
        sigma_y, sigma_x = _clamped_sigma(s_y), _clamped_sigma(s_x)
        h0 = h0 + mu_x + sigma_x * torch.randn_like(mu_x)
        mu, s = self.encoder(h0).chunk(2, dim=-1)
        sigma = _clamped_sigma(s)
        z = mu + sigma * torch.randn_like(mu)
        return IBOutput(self.head(z).transpose(1, 2), mu, sigma, mu_y, sigma_y, mu_x, sigma_x)

    def forward(self, x: torch.Tensor, tod: torch.Tensor, dow: torch.Tensor) -> torch.Tensor:
        """Training: one stochastic forecast. Evaluation: ``n_eval_samples`` draws averaged as
        ``eval_average`` says (the first encoder pass is shared), or the mean path when
        ``n_eval_samples == 0``."""
        if self.training or not self.ib:
            return self.forward_ib(x, tod, dow).pred
        S = self.n_eval_samples
        h0 = self.emb(x, tod, dow)
        mu_x, s_x = self.noise_x(self.encoder(h0)).chunk(2, dim=-1)
        if S == 0:  # the mean path: eps_x = mu_x and Z = mu, one deterministic pass
            mu, _ = self.encoder(h0 + mu_x).chunk(2, dim=-1)
            return self.head(mu).transpose(1, 2)
        sigma_x = _clamped_sigma(s_x)
        if self.eval_average == "scaled":  # one draw of N(0, 1/S): the same distribution
            h = h0 + mu_x + sigma_x * torch.randn_like(mu_x) / S**0.5
            mu, s = self.encoder(h).chunk(2, dim=-1)
            z = mu + _clamped_sigma(s) * torch.randn_like(mu) / S**0.5
            return self.head(z).transpose(1, 2)
        if self.eval_average == "draws":  # the official code: average the draws, then one pass
            h = h0 + mu_x + (sigma_x * torch.randn((S, *mu_x.shape), dtype=mu_x.dtype)).mean(0)
            mu, s = self.encoder(h).chunk(2, dim=-1)
            z = mu + (_clamped_sigma(s) * torch.randn((S, *mu.shape), dtype=mu.dtype)).mean(0)
            return self.head(z).transpose(1, 2)
        h = h0 + mu_x + sigma_x * torch.randn((S, *mu_x.shape), dtype=mu_x.dtype)
        mu, s = self.encoder(h).chunk(2, dim=-1)  # (S, B, N, D/2)
        z = mu + _clamped_sigma(s) * torch.randn_like(mu)
        return self.head(z).mean(0).transpose(1, 2)
