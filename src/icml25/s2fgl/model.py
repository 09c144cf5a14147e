"""ACM-GCN backbone and the two S2FGL loss terms, on dense per-client adjacency.

Shapes: n nodes of one client, d embedding width, C classes, R codebook repeats, K clients.
ACM-GCN is not in PyG; a client has about 100-200 nodes, so dense n x n filters are the simplest
exact form (and the FGMA term needs dense eigenvectors anyway).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

from icml25.common import checks

__all__ = [
    "ACMGCN",
    "build_codebook",
    "codebook_kl_loss",
    "fedavg",
    "frequency_alignment_loss",
    "knn_laplacian_bands",
]


def _acm_filters(adj: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """A_low = D~^-1/2 (A + I) D~^-1/2 and A_high = I - A_low, both (n, n)."""
    adj = checks.check_tensor("adj", adj, ndim=2)
    if adj.shape[0] != adj.shape[1]:
        raise ValueError(f"adj must be square, got shape {tuple(adj.shape)}")
    if bool(adj.min() < 0):  # cheap checks: this runs at every forward pass
        raise ValueError("adj must be non-negative (a negative degree gives NaN filters)")
    if not torch.equal(adj, adj.T):
        raise ValueError("adj must be (exactly) symmetric: an undirected subgraph")
    eye = torch.eye(adj.shape[0], device=adj.device)
    at = adj.float() + eye
    dinv = at.sum(1).rsqrt()
    low = dinv[:, None] * at * dinv[None, :]
    return low, eye - low


class _ACMLayer(nn.Module):
    """H_L = relu(A_low X W_L), H_H = relu(A_high X W_H), H_I = relu(X W_I), mixed per node by
    softmax(sigmoid([H_L a_L, H_H a_H, H_I a_I]) M / 3) and scaled by 3 (the official form)."""

    def __init__(self, in_dim: int, out_dim: int) -> None:
        super().__init__()
        self.w = nn.ModuleList([nn.Linear(in_dim, out_dim) for _ in range(3)])
        self.a = nn.ModuleList([nn.Linear(out_dim, 1) for _ in range(3)])
        self.mix = nn.Linear(3, 3, bias=False)

    def forward(self, x: torch.Tensor, low: torch.Tensor, high: torch.Tensor) -> torch.Tensor:
        # F.linear on the submodules' parameters: the same ops as calling them, without the
        # Module call overhead (a large share of a forward pass on ~100-node clients)
        w, a = tuple(self.w), tuple(self.a)
        h0 = F.relu(low @ F.linear(x, w[0].weight, w[0].bias))
        h1 = F.relu(high @ F.linear(x, w[1].weight, w[1].bias))
        h2 = F.relu(F.linear(x, w[2].weight, w[2].bias))
        s = torch.sigmoid(
            torch.cat(
                [
                    F.linear(h0, a[0].weight, a[0].bias),
                    F.linear(h1, a[1].weight, a[1].bias),
                    F.linear(h2, a[2].weight, a[2].bias),
                ],
                dim=1,
            )
        )
        att = torch.softmax(F.linear(s, self.mix.weight) / 3.0, dim=1)
        return 3.0 * (att[:, 0:1] * h0 + att[:, 1:2] * h1 + att[:, 2:3] * h2)


class ACMGCN(nn.Module):
    """Two ACM layers (low-pass, high-pass, identity channels) and a linear classifier.

    ``forward(x (n, in_dim), adj (n, n) 0/1) -> (logits (n, C), h (n, hidden))``; ``h`` is the
    final-layer embedding that both S2FGL terms act on. ``adj`` must be finite, square,
    symmetric and non-negative (``ValueError`` naming ``adj`` otherwise).
    """

    def __init__(self, in_dim: int, hidden: int, n_classes: int, dropout: float = 0.1) -> None:
        super().__init__()
        in_dim = checks.check_int("in_dim", in_dim, 1)
        hidden = checks.check_int("hidden", hidden, 1)
        n_classes = checks.check_int("n_classes", n_classes, 2)
        self.dropout = checks.check_real("dropout", dropout, 0.0, 1.0, high_open=True)
        self.l1 = _ACMLayer(in_dim, hidden)
        self.l2 = _ACMLayer(hidden, hidden)
        self.fc = nn.Linear(hidden, n_classes)

    def forward(self, x: torch.Tensor, adj: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        x = checks.check_tensor("x", x, ndim=2)
        if x.shape[1] != self.l1.w[0].in_features:
            raise ValueError(f"x must have {self.l1.w[0].in_features} columns, got {x.shape[1]}")
        low, high = _acm_filters(adj)
        if low.shape[0] != x.shape[0]:
            raise ValueError(f"adj must be ({x.shape[0]}, {x.shape[0]}), got {tuple(adj.shape)}")
        return self._forward(x, low, high)

    def _forward(
        self, x: torch.Tensor, low: torch.Tensor, high: torch.Tensor
    ) -> tuple[torch.Tensor, torch.Tensor]:
        """``forward`` on inputs already checked, with the filters of :func:`_acm_filters`
        (the federated loop computes them once per client)."""
        # the layers' forward called directly: no hooks are registered, and Module.__call__'s
        # checks for them cost more than the layer on these small clients
        h = F.dropout(self.l1.forward(x, low, high), self.dropout, self.training)
        h = self.l2.forward(h, low, high)
        return F.linear(h, self.fc.weight, self.fc.bias), h


def build_codebook(
    prototypes: np.ndarray | torch.Tensor,
    counts: np.ndarray | torch.Tensor,
    n_repeats: int = 4,
    frac: float = 0.7,
    seed: int = 0,
) -> torch.Tensor:
    """Global knowledge repository (C, R, d): repeat r samples round(frac K) clients and takes the
    count-weighted class means of their prototypes (K, C, d) with counts (K, C); a class no
    sampled client has stays 0 (as in the official code)."""
    if isinstance(prototypes, torch.Tensor):  # a CUDA tensor cannot go through np.asarray
        prototypes = prototypes.detach().cpu()
    if isinstance(counts, torch.Tensor):
        counts = counts.detach().cpu()
    p = torch.as_tensor(checks.check_finite_array("prototypes", np.asarray(prototypes), 3))
    n = torch.as_tensor(checks.check_finite_array("counts", np.asarray(counts), 2))
    if n.shape != p.shape[:2]:
        raise ValueError(f"counts must have shape {tuple(p.shape[:2])}, got {tuple(n.shape)}")
    if bool((n < 0).any()):
        raise ValueError("counts must be >= 0")
    n_repeats = checks.check_int("n_repeats", n_repeats, 1)
    frac = checks.check_real("frac", frac, 0.0, 1.0, low_open=True)
    rng = np.random.default_rng(checks.check_seed("seed", seed))
    k = p.shape[0]
    m = max(1, int(round(frac * k)))
    out = torch.zeros(p.shape[1], n_repeats, p.shape[2], dtype=torch.float32)
    for r in range(n_repeats):
        sub = torch.as_tensor(np.sort(rng.choice(k, m, replace=False)))
        num = (p[sub] * n[sub][..., None]).sum(0)
        den = n[sub].sum(0)
        out[:, r] = torch.where(den[:, None] > 0, num / den.clamp(min=1e-12)[:, None], 0.0).float()
    return out


def _check_pair(h_local: object, h_global: object) -> tuple[torch.Tensor, torch.Tensor]:
    hl = checks.check_tensor("h_local", h_local, ndim=2)
    hg = checks.check_tensor("h_global", h_global, ndim=2)
    if hl.shape != hg.shape:
        raise ValueError(
            f"h_local and h_global must have the same shape, got {tuple(hl.shape)} and "
            f"{tuple(hg.shape)} (h_global)"
        )
    return hl, hg.detach()


def codebook_kl_loss(
    h_local: torch.Tensor, h_global: torch.Tensor, codebook: torch.Tensor, T: float = 1.0
) -> torch.Tensor:
    """KL(softmax(cos(h_g, B)/T) || softmax(cos(h_l, B)/T)) over the C R codebook entries B,
    batch mean; h_global (teacher) is detached. (The official code multiplies by T^2, the usual
    distillation scaling; the book follows the issue's plain KL: the same at T = 1, the only
    temperature the chapter uses.)"""
    hl, hg = _check_pair(h_local, h_global)
    cb = checks.check_tensor("codebook", codebook, ndim=3)
    if cb.shape[-1] != hl.shape[1]:
        raise ValueError(f"codebook must be (C, R, {hl.shape[1]}), got {tuple(cb.shape)}")
    T = checks.check_positive("T", T)
    b = cb.reshape(-1, cb.shape[-1]).to(hl.device, hl.dtype)
    return _codebook_kl(hl, _kl_teacher(hg, b, T), b, T)


def _kl_teacher(hg: torch.Tensor, b: torch.Tensor, T: float) -> torch.Tensor:
    """log softmax(cos(h_g, B)/T), (n, C R): fixed while h_g is (once per client and round)."""
    return F.log_softmax(F.cosine_similarity(hg[:, None, :], b[None], dim=-1) / T, 1)


def _codebook_kl(hl: torch.Tensor, log_tea: torch.Tensor, b: torch.Tensor, T: float):
    """:func:`codebook_kl_loss` on checked inputs, B flattened (C R, d), teacher precomputed."""
    stu = F.cosine_similarity(hl[:, None, :], b[None], dim=-1) / T
    return F.kl_div(F.log_softmax(stu, 1), log_tea, reduction="batchmean", log_target=True)


@torch.no_grad()
def knn_laplacian_bands(
    h: torch.Tensor, k: int = 3, m: int = 10
) -> tuple[torch.Tensor, torch.Tensor]:
    """Low- and high-frequency eigenvectors (n, m) each of L = D - S, S the symmetrised k-NN
    cosine-similarity graph of the rows of h (n, d); ``torch.linalg.eigh``, no gradient."""
    h = checks.check_tensor("h", h, ndim=2)
    n = h.shape[0]
    k = checks.check_int("k", k, 1, max(n - 1, 1))
    m = checks.check_int("m", m, 1)
    if 2 * m > n:
        raise ValueError(f"m must satisfy 2 m <= n = {n}, got m = {m}")
    return _bands(h, k, m)


@torch.no_grad()
def _bands(h: torch.Tensor, k: int, m: int) -> tuple[torch.Tensor, torch.Tensor]:
    """:func:`knn_laplacian_bands` on checked inputs."""
    hn = F.normalize(h.detach().double(), dim=1)
    s = hn @ hn.T
    val, idx = s.topk(k + 1, dim=1)
    w = torch.zeros_like(s).scatter_(1, idx, val)
    w = (w + w.T) / 2
    w.fill_diagonal_(0.0)
    lap = torch.diag(w.sum(1)) - w
    _, u = torch.linalg.eigh(lap)
    return u[:, :m].float(), u[:, -m:].float()


def frequency_alignment_loss(
    h_local: torch.Tensor, h_global: torch.Tensor, k: int = 3, m: int = 10, form: str = "band"
) -> torch.Tensor:
    """FGMA: align local and global embeddings in the low and high frequency bands of their own
    k-NN graphs. ``form="band"``: sum over bands of MSE(U U^T H_l, U' U'^T H_g) (basis-free);
    ``form="pairs"``: the code's sum_i MSE(u_i u_i^T H_l, u'_i u'_i^T H_g). h_global is detached.
    """
    hl, hg = _check_pair(h_local, h_global)
    n = hl.shape[0]
    k = checks.check_int("k", k, 1)
    m = checks.check_int("m", m, 1)
    if k >= n:
        raise ValueError(f"k must be < n = {n}, got {k}")
    if 2 * m > n:
        raise ValueError(f"m must satisfy 2 m <= n = {n}, got m = {m}")
    form = checks.check_choice("form", form, ("band", "pairs"))
    return _fgma(hl, hg, _bands(hg, k, m), k, m, form)


def _band_targets(
    hg: torch.Tensor, bands_g: tuple[torch.Tensor, torch.Tensor]
) -> tuple[torch.Tensor, torch.Tensor]:
    """U' U'^T H_g for the low and high bands of h_global, (n, d) each: FGMA's fixed targets."""
    with torch.no_grad():
        return tuple(ug @ (ug.T @ hg.detach()) for ug in bands_g)


def _fgma(
    hl: torch.Tensor,
    hg: torch.Tensor,
    bands_g: tuple[torch.Tensor, torch.Tensor],
    k: int,
    m: int,
    form: str = "band",
    target_g: tuple[torch.Tensor, torch.Tensor] | None = None,
) -> torch.Tensor:
    """:func:`frequency_alignment_loss` on checked inputs, the global bands precomputed (they
    are fixed while h_global is: once per client and round), and for ``form="band"`` their
    projections ``target_g`` of h_global too (:func:`_band_targets`; computed here if None)."""
    bands_l = _bands(hl, k, m)
    loss = hl.new_zeros(())
    if form == "band" and target_g is None:
        target_g = _band_targets(hg, bands_g)
    for j, (ul, ug) in enumerate(zip(bands_l, bands_g, strict=True)):
        if form == "band":
            loss = loss + F.mse_loss(ul @ (ul.T @ hl), target_g[j])
        else:
            for i in range(m):
                a, b = ul[:, i : i + 1], ug[:, i : i + 1]
                loss = loss + F.mse_loss(a @ (a.T @ hl), b @ (b.T @ hg))
    return loss


def fedavg(
    states: Sequence[Mapping[str, torch.Tensor]], weights: Sequence[float] | np.ndarray
) -> dict[str, torch.Tensor]:
    """Weighted mean of model states with weights normalised to sum 1."""
    if not isinstance(states, (list, tuple)) or len(states) == 0:
        raise TypeError("states must be a non-empty list of state dicts")
    for s in states:
        if not isinstance(s, Mapping):
            raise TypeError("states must be a list of state dicts (mappings)")
        if set(s) != set(states[0]):
            raise ValueError("states must all have the same keys")
    w = checks.check_finite_array("weights", weights, 1)
    if len(w) != len(states):
        raise ValueError(f"weights must have {len(states)} entries, got {len(w)}")
    if w.min() < 0 or w.sum() <= 0:
        raise ValueError("weights must be >= 0 with a positive sum")
    w = w / w.sum()
    out = {}
    for key in states[0]:
        total = sum(float(wi) * s[key].float() for wi, s in zip(w, states, strict=True))
        out[key] = total.to(states[0][key].dtype)
    return out
