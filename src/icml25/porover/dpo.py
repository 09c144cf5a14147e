"""POROver: preference pairs (Algorithm 1), the DPO loss and loop, containment selection.

DPO (Rafailov et al.) with an NLL term on the chosen completion, as TRL's
``loss_type=["sigmoid", "sft"]``:

.. math::

    \\Delta = [\\log\\pi_\\theta(y_w|x) - \\log\\pi_{ref}(y_w|x)]
            - [\\log\\pi_\\theta(y_l|x) - \\log\\pi_{ref}(y_l|x)],\\qquad
    L = -\\mathbb E \\log\\sigma(\\beta\\Delta) + \\lambda\\,\\mathrm{NLL}(y_w|x).

Containment (our reading of the paper's containment threshold τ): among checkpoints evaluated on
validation prompts, keep the most useful one whose safety is at least the start's minus τ.
"""

from __future__ import annotations

import copy
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
import pandas as pd
import torch
import torch.nn.functional as F

from icml25.common.checks import (
    check_choice,
    check_instance,
    check_int,
    check_positive,
    check_probability,
    check_real,
    check_seed,
)
from icml25.porover.student import (
    _batch,
    _batches,
    _check_model,
    _check_prompts,
    _check_tokenizer,
    _device,
    _token_logps,
    evaluate,
    generate,
)
from icml25.porover.world import (
    Teacher,
    _parse,
    classify_response,
    label_prompt,
    quality_reward,
    render_response,
    safety_judge,
    select_best_of_n,
)

__all__ = [
    "DPOResult",
    "PreferencePair",
    "build_porover_pairs",
    "dpo",
    "dpo_loss",
    "select_by_containment",
]


@dataclass(frozen=True)
class PreferencePair:
    """One preference pair: ``chosen`` ≻ ``rejected`` for ``prompt``; ``source`` is
    "overrefusal" (a seemingly-toxic prompt the student refused) or "asd" (added safety data)."""

    prompt: str
    chosen: str
    rejected: str
    source: str = "overrefusal"

    def __post_init__(self) -> None:
        _parse(self.prompt)
        for name in ("chosen", "rejected"):
            if not isinstance(getattr(self, name), str):
                raise TypeError(f"{name} must be a str")
        check_choice("source", self.source, ("overrefusal", "asd"))


def _complies(prompt: str, response: str) -> bool:
    return classify_response(prompt, response) == "comply"


def build_porover_pairs(
    student,
    tokenizer,
    teacher: Teacher,
    seemingly_toxic: Sequence[str],
    toxic: Sequence[str],
    asd_fraction: float,
    n_samples: int = 8,
    seed: int = 0,
) -> list[PreferencePair]:
    """Algorithm 1 (our reading): preference data against overrefusal plus added safety data.

    1. Sample the student (temperature 1) once on every seemingly-toxic prompt.
    2. Where it does not comply, overgenerate ``n_samples`` teacher completions and keep the
       best comply by :func:`quality_reward`: chosen = that comply, rejected = the student's
       answer (prompts without a teacher comply are skipped).
    3. ASD: ``round(asd_fraction × #pairs of step 2)`` toxic prompts (the first ones): chosen =
       the teacher's best safe completion (reward among those passing :func:`safety_judge`),
       rejected = a comply (unsafe).
    """
    _check_model(student, "student")
    _check_tokenizer(tokenizer)
    check_instance("teacher", teacher, Teacher)
    asd_fraction = check_probability("asd_fraction", asd_fraction)
    n_samples = check_int("n_samples", n_samples)
    seed = check_seed("seed", seed)
    for name, prompts, label in (
        ("seemingly_toxic", seemingly_toxic, "seemingly_toxic"),
        ("toxic", toxic, "toxic"),
    ):
        if not isinstance(prompts, Sequence) or isinstance(prompts, str) or not prompts:
            raise ValueError(f"{name} must be a non-empty list of prompts")
        for p in prompts:
            _parse(p, name)
            if label_prompt(p) != label:
                raise ValueError(f"{name} holds a prompt labelled {label_prompt(p)!r}: {p!r}")
    answers = generate(student, tokenizer, list(seemingly_toxic), do_sample=True, seed=seed)
    refused = [
        (p, a) for p, a in zip(seemingly_toxic, answers, strict=False) if not _complies(p, a)
    ]
    pairs: list[PreferencePair] = []
    if refused:
        prompts = [p for p, _ in refused]
        best = select_best_of_n(
            prompts, teacher.sample(prompts, n_samples), quality_reward, _complies
        )
        pairs = [
            PreferencePair(p, c, a, "overrefusal")
            for (p, a), c in zip(refused, best, strict=False)
            if c is not None
        ]
    n_asd = min(int(round(asd_fraction * len(pairs))), len(toxic))
    if n_asd:
        prompts = list(toxic[:n_asd])
        best = select_best_of_n(
            prompts, teacher.sample(prompts, n_samples), quality_reward, safety_judge
        )
        pairs += [
            PreferencePair(p, c, render_response(p, "comply"), "asd")
            for p, c in zip(prompts, best, strict=False)
            if c is not None
        ]
    return pairs


def dpo_loss(
    policy_chosen_logps,
    policy_rejected_logps,
    ref_chosen_logps,
    ref_rejected_logps,
    beta: float = 0.1,
) -> tuple[torch.Tensor, torch.Tensor]:
    """(mean −log σ(βΔ), margins βΔ per pair) with
    Δ = (π_c − ref_c) − (π_r − ref_r) of summed log-probabilities, each of shape (B,)."""
    beta = check_positive("beta", beta)
    names = (
        "policy_chosen_logps",
        "policy_rejected_logps",
        "ref_chosen_logps",
        "ref_rejected_logps",
    )
    values = []
    for name, v in zip(
        names,
        (policy_chosen_logps, policy_rejected_logps, ref_chosen_logps, ref_rejected_logps),
        strict=False,
    ):
        if not isinstance(v, torch.Tensor):
            try:
                v = torch.as_tensor(np.asarray(v, dtype=float))
            except (TypeError, ValueError):
                raise TypeError(f"{name} must be a 1-D tensor of log-probabilities") from None
        if v.dtype == torch.bool or not torch.is_floating_point(v):
            v = v.double()
        if v.ndim != 1 or v.numel() == 0:
            raise ValueError(f"{name} must be a non-empty 1-D tensor, got shape {tuple(v.shape)}")
        if not torch.isfinite(v).all():
            raise ValueError(f"{name} must be finite (no NaN or inf)")
        values.append(v)
    if len({v.shape for v in values}) != 1:
        raise ValueError(f"{', '.join(names)} have mismatched lengths {[len(v) for v in values]}")
    pc, pr, rc, rr = values
    margins = beta * ((pc - rc) - (pr - rr))
    return -F.logsigmoid(margins).mean(), margins


@dataclass
class DPOResult:
    """What :func:`dpo` returns: ``history`` (one row per evaluation: step, loss, margin and the
    evaluation rates) and ``checkpoints`` {step: state dict}, from step 0."""

    history: pd.DataFrame
    checkpoints: dict[int, dict] = field(default_factory=dict)
    losses: list[float] = field(default_factory=list)


def _pair_batch(tokenizer, pairs):
    prompts = [p.prompt for p in pairs]
    return (
        _batch(tokenizer, prompts, [p.chosen for p in pairs]),
        _batch(tokenizer, prompts, [p.rejected for p in pairs]),
    )


def _logps_and_nll(model, batch):
    logp, mask = _token_logps(model, *batch)
    return (logp * mask).sum(dim=1), -(logp * mask).sum() / mask.sum()


def dpo(
    policy,
    ref,
    tokenizer,
    pairs: Sequence[PreferencePair],
    beta: float = 0.1,
    sft_weight: float = 1.0,
    steps: int = 200,
    lr: float = 3e-4,
    batch_size: int = 32,
    seed: int = 0,
    eval_prompts=None,
    eval_every: int = 20,
) -> DPOResult:
    """DPO + ``sft_weight`` × NLL(chosen) with AdamW; trains ``policy`` in place, never ``ref``.

    Runs on the policy's device (``ref`` may live on another one; see :func:`make_student`).

    Every ``eval_every`` steps (and at step 0) it stores a checkpoint and, if ``eval_prompts``
    is given, the expected rates of :func:`evaluate` on them. ``loss``/``margin`` in a row are
    those of the batch drawn at that step (before its update; the last row: after training).
    """
    _check_model(policy, "policy")
    _check_model(ref, "ref")
    if policy is ref:
        raise ValueError("ref must be a separate copy of the policy (policy is ref)")
    _check_tokenizer(tokenizer)
    if not isinstance(pairs, Sequence) or not pairs:
        raise ValueError("pairs must be a non-empty list of PreferencePair")
    for p in pairs:
        check_instance("pairs", p, PreferencePair)
    beta = check_positive("beta", beta)
    sft_weight = check_real("sft_weight", sft_weight, 0.0)
    steps, batch_size = check_int("steps", steps), check_int("batch_size", batch_size)
    lr, seed = check_positive("lr", lr), check_seed("seed", seed)
    eval_every = check_int("eval_every", eval_every)
    if eval_prompts is not None:
        eval_prompts = _check_prompts(eval_prompts, "eval_prompts")
    chosen, rejected = _pair_batch(tokenizer, list(pairs))
    ref.eval()
    with torch.no_grad():
        dev = _device(policy)  # the policy's device; ref may live elsewhere
        ref_c = _logps_and_nll(ref, chosen)[0].to(dev)
        ref_r = _logps_and_nll(ref, rejected)[0].to(dev)
    g = torch.Generator().manual_seed(seed)
    torch.manual_seed(seed)
    opt = torch.optim.AdamW(policy.parameters(), lr=lr, weight_decay=0.0)
    rows, checkpoints, losses = [], {}, []

    def loss_at(idx):
        pc, nll = _logps_and_nll(policy, tuple(t[idx] for t in chosen))
        pr, _ = _logps_and_nll(policy, tuple(t[idx] for t in rejected))
        loss, margins = dpo_loss(pc, pr, ref_c[idx.to(dev)], ref_r[idx.to(dev)], beta)
        return loss + sft_weight * nll, margins

    def record(step, loss, margin):
        checkpoints[step] = copy.deepcopy(policy.state_dict())
        row = {"step": step, "loss": loss, "margin": margin}
        if eval_prompts is not None:
            row.update(evaluate(policy, tokenizer, eval_prompts, "expected"))
        rows.append(row)

    batches = list(_batches(len(pairs), steps + 1, batch_size, g))
    for step in range(steps + 1):
        idx = batches[step]
        if step == steps:
            policy.eval()
            with torch.no_grad():
                loss, margins = loss_at(idx)
            record(step, loss.item(), margins.mean().item())
            break
        policy.train()
        loss, margins = loss_at(idx)
        if step % eval_every == 0:
            policy.eval()
            record(step, loss.item(), margins.mean().item())
            policy.train()
        opt.zero_grad()
        loss.backward()
        opt.step()
        losses.append(loss.item())
    policy.eval()
    return DPOResult(pd.DataFrame(rows), checkpoints, losses)


def select_by_containment(history, base_safety: float, tau: float) -> pd.Series:
    """The most useful row of ``history`` (columns step, safety, usefulness) whose safety is at
    least ``base_safety − tau`` (the earliest step on ties); ValueError if no row is."""
    if not isinstance(history, pd.DataFrame):
        raise TypeError(f"history must be a pandas DataFrame, got {type(history).__name__}")
    missing = {"step", "safety", "usefulness"} - set(history.columns)
    if missing:
        raise ValueError(f"history lacks the columns {sorted(missing)}")
    base_safety = check_probability("base_safety", base_safety)
    tau = check_real("tau", tau, 0.0, 1.0)
    ok = history[history["safety"] >= base_safety - tau - 1e-12]
    if ok.empty:
        raise ValueError(f"no row of history has safety >= base_safety - tau = {base_safety - tau}")
    ok = ok.sort_values("step", kind="stable")
    return ok.loc[ok["usefulness"].idxmax()]
