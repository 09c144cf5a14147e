"""Concept erasure by neuron masking, trained end to end through the sampler.

Objective (the official ``scripts/train.py`` loss, in class-conditional miniature): with noise z
shared between the edited generator G_m and the frozen original G₀,

    L = E_z ‖G_m(z, target) − G₀(z, anchor)‖² + β · E_{z, c′≠target} ‖G_m(z, c′) − G₀(z, c′)‖²
        (+ λ_L0 · expected fraction of open gates, off by default: not in the official loss),

where G_m is the K-step Euler sampler with neuron masks m on the two hidden layers and
``anchor`` is the concept-free "prompt" (by default the unconditional token). Methods:

* ``"mask"``: hard-concrete gates (Louizos et al. 2018; temperature 0.83, stretch (−0.1, 1.1),
  logits λ initialised at 3, i.e. almost all open), end-to-end loss through all K steps;
* ``"finetune"``: the same end-to-end loss on all weights of a copy of the model;
* ``"stepwise"``: gates trained with a per-step loss at **all K steps** of every iteration,
  Σ_k ‖v_m(x_k, t_k, c) − v₀(x_k, t_k, ref)‖² on the edited sampler's own states x_k (detached,
  as in ESD): the same targets as end to end, without backpropagation through the sampler.

As in the official code the optimiser is AdamW (weight decay 0.01) with a 10-step linear warm-up,
and by default the same noise (and the same preservation classes) is used at every iteration
(``fixed_noise=True``; the official code re-seeds its generator before every step).
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
WARMUP = 10  # linear learning-rate warm-up steps (official: lr_scheduler.warmup_steps = 10)


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

    ``masks``: binary masks [m₁, m₂] (λ > 0; None for fine-tuning); ``logits``: the learned gate
    logits [λ₁, λ₂] (None for fine-tuning); ``model``: the generator to sample from (the original
    for mask methods, the fine-tuned copy otherwise); ``history``: loss per iteration;
    ``sparsity``: fraction of hidden neurons masked (0 for fine-tuning).
    """

    method: str
    masks: list[torch.Tensor] | None
    model: VelocityMLP
    history: list[float] = field(default_factory=list)
    sparsity: float = 0.0
    logits: list[torch.Tensor] | None = None


def erase_concept(
    model: VelocityMLP,
    target: int,
    anchor: int | None = None,
    method: str = "mask",
    n_steps: int = 8,
    iters: int = 200,
    beta_preserve: float = 1.0,
    seed: int = 0,
    l0_weight: float = 0.0,
    lr: float | None = None,
    batch: int = 64,
    checkpoint: bool = False,
    fixed_noise: bool = True,
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
        l0_weight: weight of an L0 term on the gates (0: the official loss has none).
        lr: AdamW learning rate (default 0.5 for gates, as in the official config; 1e-3 for
            fine-tuning).
        checkpoint: recompute each sampler step in the backward pass (same gradients).
        fixed_noise: the same noises and preservation classes at every iteration (official).
    """
    check_instance("model", model, VelocityMLP)
    target = check_int("target", target, 0, N_CLASSES - 1)
    anchor = NULL if anchor is None else check_int("anchor", anchor, 0, NULL)
    if anchor == target:
        raise ValueError("anchor must differ from target")
    method = check_choice("method", method, METHODS)
    n_steps, iters = check_int("n_steps", n_steps), check_int("iters", iters)
    beta_preserve = check_positive("beta_preserve", beta_preserve)
    seed = check_seed("seed", seed)
    l0_weight = check_real("l0_weight", l0_weight, 0.0)
    if lr is not None:
        check_positive("lr", lr)
    batch = check_int("batch", batch)
    checkpoint = check_instance("checkpoint", checkpoint, bool)
    fixed_noise = check_instance("fixed_noise", fixed_noise, bool)
    g = torch.Generator().manual_seed(seed)
    others = torch.tensor([c for c in range(N_CLASSES) if c != target])
    gates = [HardConcreteGate(model.hidden), HardConcreteGate(model.hidden)]
    if method == "finetune":
        edited = copy.deepcopy(model).requires_grad_(True)
        params, lr = list(edited.parameters()), 1e-3 if lr is None else lr
    else:
        edited, params, lr = model, [gate.logits for gate in gates], 0.5 if lr is None else lr
    opt = torch.optim.AdamW(params, lr=lr)
    sched = torch.optim.lr_scheduler.LambdaLR(opt, lambda i: min(1.0, (i + 1) / WARMUP))
    # rows 0..B-1 ask for the target (reference: the anchor), rows B..2B-1 for other classes
    weight = torch.cat([torch.ones(batch), torch.full((batch,), beta_preserve)]) / batch

    def draw():
        z = torch.randn(2 * batch, DIM, generator=g)
        c2 = others[torch.randint(0, len(others), (batch,), generator=g)]
        c = torch.cat([torch.full((batch,), target), c2])
        ref_c = torch.cat([torch.full((batch,), anchor), c2])
        return z, c, ref_c

    z, c, ref_c = draw()
    ref = None
    history: list[float] = []
    for _ in range(iters):
        if not fixed_noise and history:
            z, c, ref_c = draw()
            ref = None
        masks = None if method == "finetune" else [gate.sample(g) for gate in gates]
        if method == "stepwise":
            per_row = _stepwise_error(model, z, c, ref_c, masks, n_steps)
        else:
            if ref is None:
                with torch.no_grad():
                    ref = euler_sample(model, z, ref_c, n_steps)
            per_row = _end_to_end_error(edited, z, c, ref, masks, n_steps, checkpoint)
        loss = (weight * per_row).sum()
        if l0_weight > 0 and method != "finetune":
            loss = loss + l0_weight * sum(gate.l0_penalty() for gate in gates)
        opt.zero_grad()
        loss.backward()
        opt.step()
        sched.step()
        history.append(loss.item())
    if method == "finetune":
        edited.eval().requires_grad_(False)
        return ErasureResult(method, None, edited, history, 0.0)
    final = [gate.binary() for gate in gates]
    logits = [gate.logits.detach().clone() for gate in gates]
    sparsity = float(1 - torch.cat(final).mean())
    return ErasureResult(method, final, model, history, sparsity, logits)


def _end_to_end_error(edited, z, c, ref, masks, n_steps, checkpoint=False):
    """Per-row ‖G_m(z, c) − G₀(z, ref_c)‖²/64, shape (B,), with ``ref`` = G₀(z, ref_c) (B, 64)
    precomputed: the gradient flows back through all K steps of the edited sampler."""
    x = euler_sample(edited, z, c, n_steps, masks, checkpoint=checkpoint)
    return ((x - ref) ** 2).mean(dim=1)


def _stepwise_error(model, z, c, ref_c, masks, n_steps):
    """Per-row mean over the K steps of ‖v_m(x_k, t_k, c) − v₀(x_k, t_k, ref_c)‖²/64, shape (B,).

    The states x_k are the edited sampler's own (x₀ = z, x_{k+1} = x_k + v_m/K), without grad:
    every step is trained, but no gradient flows from one step to the next."""
    b = z.shape[0]
    with torch.no_grad():
        xs = [z]
        for k in range(n_steps - 1):
            t = torch.full((b,), k / n_steps)
            xs.append(xs[-1] + model(xs[-1], t, c, masks) / n_steps)
        x_all = torch.cat(xs)
        t_all = torch.arange(n_steps).repeat_interleave(b).float() / n_steps
        v_ref = model(x_all, t_all, ref_c.repeat(n_steps))
    v = model(x_all, t_all, c.repeat(n_steps), masks)
    return ((v - v_ref) ** 2).mean(dim=1).reshape(n_steps, b).mean(dim=0)


def masks_at_sparsity(logits: list[torch.Tensor], n_closed: int) -> list[torch.Tensor]:
    """Binary masks that close the ``n_closed`` neurons with the lowest logits λ over both layers
    (the official ``binarize(scope="global", ratio)``, counted in neurons)."""
    if isinstance(logits, torch.Tensor) or not isinstance(logits, (list, tuple)) or not logits:
        raise TypeError(f"logits must be a list of logit tensors, got {type(logits).__name__}")
    for lg in logits:
        check_instance("logits", lg, torch.Tensor)
    flat = torch.cat([lg.reshape(-1) for lg in logits])
    n_closed = check_int("n_closed", n_closed, 0, flat.numel())
    keep = torch.ones_like(flat)
    keep[torch.argsort(flat, stable=True)[:n_closed]] = 0
    return list(keep.split([lg.numel() for lg in logits]))


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
