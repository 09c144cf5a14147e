"""Judging generated digits: per-class rates, erasure reports, and an embedding attack.

The judge is a logistic regression on real digits (the stand-in for the paper's NudeNet/CLIP
detectors). A sample "is" class c when the judge predicts c.
"""

from __future__ import annotations

import numpy as np
import torch
import torch.nn.functional as F
from sklearn.linear_model import LogisticRegression

from icml25.common.checks import (
    check_finite_array,
    check_index_array,
    check_instance,
    check_int,
    check_positive,
    check_seed,
)
from icml25.concept_erasure.model import DIM, N_CLASSES, VelocityMLP, euler_sample


def fit_judge(X: np.ndarray, y: np.ndarray) -> LogisticRegression:
    """A multinomial logistic regression on real digits X (n, 64) in [−1, 1]."""
    rows = check_finite_array("X", X, ndim=2)  # checks only: the judge sees X and y as given
    labels = check_index_array("y", y, ndim=1)
    if len(labels) != len(rows) or len(set(labels.tolist())) < 2:
        raise ValueError(f"y must hold one label per row of X ({len(rows)}), of 2 classes or more")
    return LogisticRegression(max_iter=2000, C=1.0).fit(X, y)


def class_rates(
    model: VelocityMLP,
    masks,
    judge: LogisticRegression,
    n_per_class: int = 200,
    seed: int = 1,
    n_steps: int = 8,
) -> np.ndarray:
    """Fraction of samples of each class c = 0..9 that the judge calls c, shape (10,)."""
    check_instance("judge", judge, LogisticRegression)
    n_per_class = check_int("n_per_class", n_per_class)
    g = torch.Generator().manual_seed(check_seed("seed", seed))
    rates = np.zeros(N_CLASSES)
    for c in range(N_CLASSES):
        z = torch.randn(n_per_class, DIM, generator=g)
        with torch.no_grad():
            x = euler_sample(model, z, c, n_steps, masks).clamp(-1, 1)
        rates[c] = float(np.mean(judge.predict(x.numpy()) == c))
    return rates


def erasure_report(
    model: VelocityMLP,
    masks,
    judge: LogisticRegression,
    target: int,
    n_per_class: int = 200,
    seed: int = 1,
    n_steps: int = 8,
) -> dict:
    """Target rate, preservation (mean rate of the other classes), per-class rates, sparsity."""
    target = check_int("target", target, 0, N_CLASSES - 1)
    check_instance("judge", judge, LogisticRegression)
    rates = class_rates(model, masks, judge, n_per_class, seed, n_steps)
    others = np.delete(rates, target)
    sparsity = 0.0 if masks is None else float(1 - torch.cat(list(masks)).mean())
    return {
        "target_rate": float(rates[target]),
        "preservation": float(others.mean()),
        "rates": rates,
        "sparsity": sparsity,
    }


def embedding_attack(
    model: VelocityMLP,
    masks,
    judge: LogisticRegression,
    target: int,
    iters: int = 100,
    n: int = 64,
    lr: float = 0.05,
    n_steps: int = 8,
    seed: int = 0,
) -> float:
    """Re-elicit an erased class by optimising a free class embedding (an adversarial "prompt").

    Starting from the target's own embedding, gradient steps on the judge's cross-entropy for the
    target class (through the sampler and the masks) adapt one shared embedding vector. Returns
    the fraction of n fresh samples from the attacked embedding that the judge calls the target.
    """
    check_instance("model", model, VelocityMLP)
    check_instance("judge", judge, LogisticRegression)
    target = check_int("target", target, 0, N_CLASSES - 1)
    iters = check_int("iters", iters, 0)
    n, lr = check_int("n", n), check_positive("lr", lr)
    n_steps = check_int("n_steps", n_steps)
    g = torch.Generator().manual_seed(check_seed("seed", seed))
    w = torch.tensor(judge.coef_, dtype=torch.float32)
    b = torch.tensor(judge.intercept_, dtype=torch.float32)
    emb = model.cemb.weight[target].detach().clone().requires_grad_(True)
    opt = torch.optim.Adam([emb], lr=lr)
    labels = torch.full((n,), target, dtype=torch.long)
    for _ in range(iters):
        z = torch.randn(n, DIM, generator=g)
        x = euler_sample(model, z, labels, n_steps, masks, class_emb=emb.expand(n, -1))
        loss = F.cross_entropy(x.clamp(-1, 1) @ w.T + b, labels)
        opt.zero_grad()
        loss.backward()
        opt.step()
    with torch.no_grad():
        z = torch.randn(n, DIM, generator=g)
        x = euler_sample(model, z, labels, n_steps, masks, class_emb=emb.expand(n, -1))
    return float(np.mean(judge.predict(x.clamp(-1, 1).numpy()) == target))
