"""Concept erasure by neuron masking, trained end to end through the sampler.

Objective (the paper's, in class-conditional miniature): with shared noise z and the frozen
original generator G₀,

    L = E_z ‖G_m(z, target) − G₀(z, anchor)‖² + β · E_{z, c′≠target} ‖G_m(z, c′) − G₀(z, c′)‖²
        + λ_L0 · (expected fraction of open gates),

where G_m is the K-step Euler sampler with neuron masks m on the two hidden layers and
``anchor`` is the concept-free "prompt" (by default the unconditional token). Methods:

* ``"mask"``: hard-concrete gates (Louizos et al. 2018; temperature 0.83, stretch (−0.1, 1.1),
  logits initialised at 3, i.e. almost all open), end-to-end loss through all K steps;
* ``"finetune"``: the same end-to-end loss on all weights of a copy of the model;
* ``"stepwise"``: gates trained with a per-step loss (match the velocity v_m(x_k, t_k, target) to
  v₀(x_k, t_k, anchor) on states of the original trajectory) — no backprop through the sampler.
"""

from __future__ import annotations

import copy
import math
from dataclasses import dataclass, field

import torch
import torch.nn as nn

from icml25.common.checks import (
    check_choice,
    check_instance,
    check_int,
    check_positive,
    check_real,
    check_seed,
)
from icml25.concept_erasure.model import DIM, N_CLASSES, NULL, VelocityMLP, euler_sample

METHODS: tuple[str, ...] = ("mask", "finetune", "stepwise")


class HardConcreteGate(nn.Module):
    """Hard-concrete gates m ∈ [0, 1]^n with logits λ (Louizos, Welling & Kingma 2018)."""

    def __init__(
        self,
        n: int,
        init: float = 3.0,
        temperature: float = 0.83,
        stretch: tuple[float, float] = (-0.1, 1.1),
    ) -> None:
        super().__init__()
        init = check_real("init", init)
        temperature = check_positive("temperature", temperature)
        if not isinstance(stretch, (tuple, list)) or len(stretch) != 2:
            raise TypeError(f"stretch must be a pair (lo, hi), got {stretch!r}")
        lo, hi = check_real("stretch", stretch[0]), check_real("stretch", stretch[1])
        if not lo < 0 < 1 < hi:
            raise ValueError(f"stretch must be (lo, hi) with lo < 0 and hi > 1, got {stretch}")
        self.logits = nn.Parameter(torch.full((check_int("n", n),), float(init)))
        self.temperature = temperature
        self.lo, self.hi = stretch

    def sample(self, generator: torch.Generator | None = None) -> torch.Tensor:
        """A stochastic gate: s = σ((log u − log(1 − u) + λ)/τ), stretched and clamped to [0, 1]."""
        if generator is not None:
            check_instance("generator", generator, torch.Generator)
        u = torch.rand(self.logits.shape, generator=generator).clamp(1e-6, 1 - 1e-6)
        s = torch.sigmoid((u.log() - (1 - u).log() + self.logits) / self.temperature)
        return (s * (self.hi - self.lo) + self.lo).clamp(0, 1)

    def deterministic(self) -> torch.Tensor:
        """The gate without noise: clamp(σ(λ)(hi − lo) + lo, 0, 1)."""
        return (torch.sigmoid(self.logits) * (self.hi - self.lo) + self.lo).clamp(0, 1)

    def binary(self) -> torch.Tensor:
        """The gate used at inference: 1 where λ > 0, else 0."""
        return (self.logits > 0).float()

    def l0_penalty(self) -> torch.Tensor:
        """Expected fraction of non-zero gates, P(m_i > 0) averaged over i."""
        return torch.sigmoid(self.logits - self.temperature * math.log(-self.lo / self.hi)).mean()


@dataclass
class ErasureResult:
    """Outcome of :func:`erase_concept`.

    ``masks``: binary masks [m₁, m₂] (None for fine-tuning); ``model``: the generator to sample
    from (the original for mask methods, the fine-tuned copy otherwise); ``history``: loss per
    iteration; ``sparsity``: fraction of hidden neurons masked (0 for fine-tuning).
    """

    method: str
    masks: list[torch.Tensor] | None
    model: VelocityMLP
    history: list[float] = field(default_factory=list)
    sparsity: float = 0.0


def erase_concept(
    model: VelocityMLP,
    target: int,
    anchor: int | None = None,
    method: str = "mask",
    n_steps: int = 8,
    iters: int = 300,
    beta_preserve: float = 2.0,
    seed: int = 0,
    l0_weight: float = 0.01,
    lr: float | None = None,
    batch: int = 64,
    checkpoint: bool = False,
) -> ErasureResult:
    """Erase class ``target`` from the generator (see the module docstring for the loss).

    Args:
        model: the trained, frozen generator G₀.
        target: the class to erase, 0..9.
        anchor: the concept-free class to imitate (default: the unconditional token 10).
        method: ``"mask"``, ``"finetune"`` or ``"stepwise"``.
        n_steps: K, Euler steps of the sampler.
        iters: optimisation steps; ``batch`` noises for the target and for other classes each.
        beta_preserve: β, weight of the preservation term.
        seed: seed of the noise, the gates and the classes drawn for preservation.
        l0_weight: weight of the L0 term (mask methods).
        lr: learning rate (default 0.1 for gates, 1e-3 for fine-tuning).
        checkpoint: recompute each sampler step in the backward pass (same gradients).
    """
    check_instance("model", model, VelocityMLP)
    target = check_int("target", target, 0, N_CLASSES - 1)
    anchor = NULL if anchor is None else check_int("anchor", anchor, 0, NULL)
    if anchor == target:
        raise ValueError("anchor must differ from target")
    method = check_choice("method", method, METHODS)
    n_steps = check_int("n_steps", n_steps)
    iters = check_int("iters", iters)
    beta_preserve = check_positive("beta_preserve", beta_preserve)
    seed = check_seed("seed", seed)
    l0_weight = check_real("l0_weight", l0_weight, 0.0)
    if lr is not None:
        check_positive("lr", lr)
    batch = check_int("batch", batch)
    g = torch.Generator().manual_seed(seed)
    others = torch.tensor([c for c in range(N_CLASSES) if c != target])
    hidden = model.hidden
    gates = [HardConcreteGate(hidden), HardConcreteGate(hidden)]
    if method == "finetune":
        edited = copy.deepcopy(model)
        for p in edited.parameters():
            p.requires_grad_(True)
        params = list(edited.parameters())
        lr = 1e-3 if lr is None else lr
    else:
        edited = model
        params = [gate.logits for gate in gates]
        lr = 0.1 if lr is None else lr
    opt = torch.optim.Adam(params, lr=check_positive("lr", lr))
    history: list[float] = []
    for _ in range(iters):
        z = torch.randn(batch, DIM, generator=g)
        z2 = torch.randn(batch, DIM, generator=g)
        c2 = others[torch.randint(0, len(others), (batch,), generator=g)]
        masks = None if method == "finetune" else [gate.sample(g) for gate in gates]
        if method == "stepwise":
            loss = _stepwise_loss(
                model, z, z2, target, anchor, c2, masks, n_steps, beta_preserve, g
            )
        else:
            with torch.no_grad():
                ref_t = euler_sample(model, z, anchor, n_steps)
                ref_o = euler_sample(model, z2, c2, n_steps)
            x_t = euler_sample(edited, z, target, n_steps, masks, checkpoint=checkpoint)
            x_o = euler_sample(edited, z2, c2, n_steps, masks, checkpoint=checkpoint)
            loss = ((x_t - ref_t) ** 2).mean() + beta_preserve * ((x_o - ref_o) ** 2).mean()
        if method != "finetune":
            loss = loss + l0_weight * sum(gate.l0_penalty() for gate in gates)
        opt.zero_grad()
        loss.backward()
        opt.step()
        history.append(loss.item())
    if method == "finetune":
        edited.eval()
        for p in edited.parameters():
            p.requires_grad_(False)
        return ErasureResult(method, None, edited, history, 0.0)
    final = [gate.binary() for gate in gates]
    sparsity = float(1 - torch.cat(final).mean())
    return ErasureResult(method, final, model, history, sparsity)


def _stepwise_loss(model, z, z2, target, anchor, c2, masks, n_steps, beta, g):
    """Per-step velocity matching on states of the original trajectories (no sampler backprop)."""
    k = int(torch.randint(0, n_steps, (1,), generator=g))
    with torch.no_grad():
        x_t = euler_sample(model, z, target, k) if k else z
        x_o = euler_sample(model, z2, c2, k) if k else z2
        t = torch.full((z.shape[0],), k / n_steps)
        v_ref_t = model(x_t, t, torch.full_like(c2, anchor))
        v_ref_o = model(x_o, t, c2)
    v_t = model(x_t, t, torch.full_like(c2, target), masks)
    v_o = model(x_o, t, c2, masks)
    return ((v_t - v_ref_t) ** 2).mean() + beta * ((v_o - v_ref_o) ** 2).mean()


def random_masks(masks: list[torch.Tensor], seed: int = 0) -> list[torch.Tensor]:
    """Masks with the same number of zeros per layer as ``masks``, at random positions."""
    if isinstance(masks, torch.Tensor) or not isinstance(masks, (list, tuple)) or not masks:
        raise TypeError(f"masks must be a list of mask tensors, got {type(masks).__name__}")
    for m in masks:
        check_instance("masks", m, torch.Tensor)
    g = torch.Generator().manual_seed(check_seed("seed", seed))
    out = []
    for m in masks:
        perm = torch.randperm(m.numel(), generator=g)
        r = torch.ones_like(m)
        r[perm[: int((m == 0).sum())]] = 0
        out.append(r)
    return out
