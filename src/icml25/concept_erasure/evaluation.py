"""Judging generated digits: two judges, a Fréchet distance, erasure reports, an attack, and the
class selectivity of hidden neurons.

Two judges play the paper's concept detectors (NudeNet, CLIP): the **attacked judge**, a
logistic regression on pixels (:func:`fit_judge`), which the embedding attack differentiates
through, and an **independent judge**, an RBF support-vector machine (:func:`fit_independent_judge`)
that the attack never sees. A sample "is" class c when a judge predicts c. The Fréchet distance is
computed in a fixed PCA space of real digits (:class:`FrechetSpace`), per class.
"""

from __future__ import annotations

import numpy as np
import scipy.linalg
import torch
import torch.nn.functional as F
from sklearn.decomposition import PCA
from sklearn.linear_model import LogisticRegression
from sklearn.svm import SVC

from icml25.common.checks import (
    check_finite_array,
    check_index_array,
    check_instance,
    check_int,
    check_positive,
    check_real,
    check_seed,
)
from icml25.concept_erasure.model import DIM, N_CLASSES, NULL, VelocityMLP, euler_sample

JUDGES = (LogisticRegression, SVC)


def _check_xy(X, y):
    rows = check_finite_array("X", X, ndim=2)
    labels = check_index_array("y", y, ndim=1)
    if len(labels) != len(rows) or len(set(labels.tolist())) < 2:
        raise ValueError(f"y must hold one label per row of X ({len(rows)}), of 2 classes or more")
    return rows, labels


def fit_judge(X: np.ndarray, y: np.ndarray) -> LogisticRegression:
    """The attacked judge: a multinomial logistic regression on real digits X (n, 64) in [−1, 1]."""
    _check_xy(X, y)  # checks only: the judge sees X and y as given
    return LogisticRegression(max_iter=2000, C=1.0).fit(X, y)


def fit_independent_judge(X: np.ndarray, y: np.ndarray) -> SVC:
    """The independent judge: an RBF support-vector machine (C = 10) on real digits X (n, 64)."""
    _check_xy(X, y)
    return SVC(C=10.0, gamma="scale").fit(X, y)


class FrechetSpace:
    """A fixed PCA space (``n_components``, fit on real digits X) with the real per-class means
    and covariances, for the Fréchet distance FD = ‖μ − μ_c‖² + tr(Σ + Σ_c − 2 (Σ Σ_c)^½)."""

    def __init__(self, X: np.ndarray, y: np.ndarray, n_components: int = 10) -> None:
        X, y = _check_xy(X, y)
        check_index_array("y", y, N_CLASSES, ndim=1)
        n_components = check_int("n_components", n_components, 1, DIM)
        self.pca = PCA(n_components, random_state=0).fit(X)
        f = self.pca.transform(X)
        self.stats = {int(c): (f[y == c].mean(0), np.cov(f[y == c].T)) for c in np.unique(y)}

    def distance(self, x: np.ndarray, c: int) -> float:
        """FD between samples x (n, 64) and the real digits of class c."""
        x = check_finite_array("x", x, ndim=2)
        c = check_int("c", c, 0, N_CLASSES - 1)
        if c not in self.stats or len(x) < 2 or x.shape[1] != DIM:
            raise ValueError(f"x must be (n >= 2, {DIM}) samples and c a class of the real data")
        f = self.pca.transform(x)
        mu, sigma = f.mean(0), np.cov(f.T)
        mu_c, sigma_c = self.stats[c]
        root = scipy.linalg.sqrtm(sigma @ sigma_c).real
        return float(((mu - mu_c) ** 2).sum() + np.trace(sigma + sigma_c - 2 * root))


def generate(
    model: VelocityMLP, masks, c: int, n: int, seed: int = 1, n_steps: int = 8
) -> np.ndarray:
    """n samples (n, 64) of class c (0..10) from fresh noise of ``seed``, clamped to [−1, 1]."""
    check_instance("model", model, VelocityMLP)
    c, n = check_int("c", c, 0, NULL), check_int("n", n)
    z = torch.randn(n, DIM, generator=torch.Generator().manual_seed(check_seed("seed", seed)))
    with torch.no_grad():
        return euler_sample(model, z, c, n_steps, masks).clamp(-1, 1).numpy()


def class_rates(
    model: VelocityMLP,
    masks,
    judge,
    n_per_class: int = 200,
    seed: int = 1,
    n_steps: int = 8,
) -> np.ndarray:
    """Fraction of samples of each class c = 0..9 that the judge calls c, shape (10,)."""
    check_instance("judge", judge, JUDGES)
    n_per_class = check_int("n_per_class", n_per_class)
    seed = check_seed("seed", seed)
    return np.array(
        [
            np.mean(judge.predict(generate(model, masks, c, n_per_class, seed + c, n_steps)) == c)
            for c in range(N_CLASSES)
        ]
    )


def erasure_report(
    model: VelocityMLP,
    masks,
    judge,
    target: int,
    n_per_class: int = 200,
    seed: int = 1,
    n_steps: int = 8,
    independent=None,
    space: FrechetSpace | None = None,
) -> dict:
    """Target rate, preservation (mean rate of the other classes), per-class rates, sparsity.

    With ``independent`` (a second judge) also ``ind_target_rate``, ``ind_preservation`` and
    ``ind_rates``; with ``space`` the per-class Fréchet distance ``fd`` (10,), ``fd_target`` and
    ``fd_others`` (mean over the other classes). Every judge scores the same samples."""
    target = check_int("target", target, 0, N_CLASSES - 1)
    check_instance("judge", judge, JUDGES)
    if independent is not None:
        check_instance("independent", independent, JUDGES)
    if space is not None:
        check_instance("space", space, FrechetSpace)
    n_per_class, seed = check_int("n_per_class", n_per_class), check_seed("seed", seed)
    xs = [generate(model, masks, c, n_per_class, seed + c, n_steps) for c in range(N_CLASSES)]
    sparsity = 0.0 if masks is None else float(1 - torch.cat(list(masks)).mean())
    out: dict = {"sparsity": sparsity}
    for prefix, j in [("", judge), ("ind_", independent)]:
        if j is None:
            continue
        rates = np.array([np.mean(j.predict(x) == c) for c, x in enumerate(xs)])
        out[prefix + "rates"] = rates
        out[prefix + "target_rate"] = float(rates[target])
        out[prefix + "preservation"] = float(np.delete(rates, target).mean())
    if space is not None:
        fd = np.array([space.distance(x, c) for c, x in enumerate(xs)])
        out.update(
            fd=fd, fd_target=float(fd[target]), fd_others=float(np.delete(fd, target).mean())
        )
    return out


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
) -> np.ndarray:
    """Re-elicit an erased class by optimising a free class embedding (an adversarial "prompt").

    Starting from the target's own embedding, gradient steps on the attacked judge's
    cross-entropy for the target class (through the sampler and the masks) adapt one shared
    embedding vector. Returns n fresh samples (n, 64) from the attacked embedding, in [−1, 1],
    to be scored by both judges (the independent one never enters the attack)."""
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
    return x.clamp(-1, 1).numpy()


def neuron_selectivity(
    model: VelocityMLP, target: int, n_per_class: int = 64, seed: int = 2, n_steps: int = 8
) -> tuple[np.ndarray, np.ndarray]:
    """Mean activation of every hidden neuron per generated class, and its target selectivity.

    Runs the unmasked sampler for each class c = 0..9 and averages SiLU(·) of both hidden layers
    over samples and steps: ``act`` (2·hidden, 10). The selectivity of neuron i for ``target`` is
    (act[i, target] − mean_{c≠target} act[i, c]) / std_{c≠target} act[i, c], shape (2·hidden,)."""
    check_instance("model", model, VelocityMLP)
    target = check_int("target", target, 0, N_CLASSES - 1)
    n_per_class, n_steps = check_int("n_per_class", n_per_class), check_int("n_steps", n_steps)
    g = torch.Generator().manual_seed(check_seed("seed", seed))
    act = np.zeros((2 * model.hidden, N_CLASSES))
    with torch.no_grad():
        for c in range(N_CLASSES):
            x = torch.randn(n_per_class, DIM, generator=g)
            cc = torch.full((n_per_class,), c)
            for k in range(n_steps):
                t = torch.full((n_per_class,), k / n_steps)
                h1 = F.silu(model.l1(torch.cat([x, model.cemb(cc), model.time_features(t)], -1)))
                h2 = F.silu(model.l2(h1))
                act[:, c] += torch.cat([h1, h2], 1).mean(0).numpy() / n_steps
                x = x + model.l3(h2) / n_steps
    rest = np.delete(act, target, axis=1)
    return act, (act[:, target] - rest.mean(1)) / (rest.std(1) + 1e-8)


def at_matched_preservation(preservation, target_rate, level: float) -> float:
    """The target rate of a sweep (e.g. over β) read off at preservation ``level``.

    ``preservation`` and ``target_rate`` (n,) are the sweep's points; the rate is interpolated
    linearly in preservation between the two points around ``level`` (the points are sorted by
    preservation). A level outside the sweep's range raises ``ValueError``: the sweep does not
    reach it, and extrapolating would flatter or punish a method."""
    p = check_finite_array("preservation", preservation, ndim=1)
    r = check_finite_array("target_rate", target_rate, ndim=1)
    if p.shape != r.shape or len(p) < 2:
        raise ValueError("preservation and target_rate must be (n,) arrays of n >= 2 points")
    level = check_real("level", level)
    if not p.min() <= level <= p.max():
        raise ValueError(f"level {level:.3f} is outside the sweep's preservation range")
    order = np.argsort(p, kind="stable")
    return float(np.interp(level, p[order], r[order]))
