"""Stealix's loop (prompt consistency, genetic reproduction), the baselines and the surrogate.

Per class c, with the one seed image x_s of c, a population of ``pop_size`` prompts is evolved:
each prompt's **prompt consistency** PC(p, c) = (1/M) Σ_j 1[V(G(p)_j) = c] over M generated
images is its fitness; the queried images become its positives (labelled c) and negatives
(labelled otherwise) and the surrogate's training data; parents are selected with probability
∝ PC, children mix their parents' positives and negatives (crossover), members are replaced at
random (mutation), and each child's prompt is refined with the contrastive loss L. The best
prompt of a generation is kept (elitism). Until the class's budget is spent.
"""

from __future__ import annotations

import warnings

import numpy as np
from scipy import ndimage
from sklearn.exceptions import ConvergenceWarning
from sklearn.neural_network import MLPClassifier

from icml25.common.checks import (
    check_choice,
    check_instance,
    check_int,
    check_rng,
    check_seed,
)
from icml25.stealix.cvae import CVAEGenerator
from icml25.stealix.vlm import DualEncoder, invert_prompt, refine_prompt
from icml25.stealix.world import BlackBoxVictim, GlyphGenerator, _check_labels, check_images

ABLATIONS = (None, "no_refine", "no_pc", "no_ga")
KINDS = ("random", "classname", "classname_plain", "seed_aug", "inversion", "knockoff", "oracle")
PLAIN_CONTEXT = {"background": "none", "polarity": "normal", "scale": "full"}
GENERATORS = (GlyphGenerator, CVAEGenerator)  # G: the renderer or the learned cVAE
MUTATION = 0.2  # ours: the chance that a child's positive/negative is replaced at random
KEEP = 8  # ours: at most this many positives and negatives per triplet set


def prompt_consistency(
    prompt: dict,
    cls: int,
    generator: GlyphGenerator | CVAEGenerator,
    victim: BlackBoxVictim,
    m: int = 8,
    seed: int = 0,
) -> tuple[float, np.ndarray, np.ndarray]:
    """PC(p, c): the share of ``m`` images G(p) that V labels ``cls``; also the images (m, 64)
    and V's labels (m,). Costs m victim queries."""
    check_instance("generator", generator, GENERATORS)
    prompt = generator.check_prompt(prompt)
    cls = check_int("cls", cls, 0, 9)
    check_instance("victim", victim, BlackBoxVictim)
    m = check_int("m", m, 1)
    seed = check_seed("seed", seed)
    images = generator.generate(prompt, m, seed=seed)
    labels = victim.query(images)
    return float(np.mean(labels == cls)), images, labels


def ga_select(fitness: np.ndarray, k: int, rng: np.random.Generator) -> np.ndarray:
    """``k`` indices drawn with replacement, probability ∝ ``fitness`` (n,) >= 0; uniform when
    every fitness is 0."""
    f = np.asarray(fitness) if isinstance(fitness, (list, tuple, np.ndarray)) else fitness
    if not isinstance(f, np.ndarray) or not np.issubdtype(f.dtype, np.number) or f.dtype == bool:
        raise TypeError("fitness must be an array of numbers")
    if f.ndim != 1 or f.size == 0:
        raise ValueError(f"fitness must be a non-empty 1-D array, got shape {f.shape}")
    f = f.astype(float)
    if not np.all(np.isfinite(f)) or f.min() < 0:
        raise ValueError("fitness must be finite and >= 0")
    k = check_int("k", k, 0)
    rng = check_rng("rng", rng)
    p = f / f.sum() if f.sum() > 0 else np.full(f.size, 1 / f.size)
    return rng.choice(f.size, size=k, p=p)


def _check_seeds(seeds: object) -> np.ndarray:
    seeds = check_images("seeds", seeds)
    if seeds.shape != (10, 64):
        raise ValueError(f"seeds must have shape (10, 64), one image per class, got {seeds.shape}")
    return seeds


def _check_budget(budget: object, m: int) -> int:
    budget = check_int("budget_per_class", budget, 1)
    if budget < m:
        raise ValueError(f"budget_per_class must allow one evaluation of m = {m}, got {budget}")
    return budget


def _mix(rng: np.random.Generator, a: np.ndarray, b: np.ndarray, pool: list) -> np.ndarray:
    """Crossover of two image sets (K, 64) and mutation from ``pool`` (arrays of the class)."""
    both = np.concatenate([a, b])
    if len(both) > KEEP:
        both = both[rng.choice(len(both), KEEP, replace=False)]
    pool_x = np.concatenate(pool) if pool else np.zeros((0, 64))
    for i in range(len(both)):
        if len(pool_x) and rng.random() < MUTATION:
            both[i] = pool_x[int(rng.integers(len(pool_x)))]
    return both


def _evolve_class(victim, generator, vlm, seed_img, c, budget, pop_size, m, ablation, rng):
    """One class of :func:`stealix_attack`: the images, labels and per-generation PCs."""
    n_evals = budget // m
    pop = [invert_prompt(vlm, seed_img, seed=int(rng.integers(2**31))) for _ in range(pop_size)]
    pos = [np.zeros((0, 64)) for _ in pop]
    neg = [np.zeros((0, 64)) for _ in pop]
    Xs, ys, pc_mean, pc_max = [], [], [], []
    seen: dict[tuple, list] = {}  # prompt -> its PCs (the elite is evaluated again each generation)
    n_repeat = 0  # evaluations of a prompt already evaluated
    while n_evals > 0:
        fit = []
        for i in range(min(len(pop), n_evals)):
            pc, img, lab = prompt_consistency(
                pop[i], c, generator, victim, m, int(rng.integers(2**31))
            )
            Xs.append(img)
            ys.append(lab)
            pos[i], neg[i] = img[lab == c][:KEEP], img[lab != c][:KEEP]
            fit.append(pc)
            key = tuple(sorted(pop[i].items()))
            n_repeat += key in seen
            seen.setdefault(key, [pop[i]]).append(pc)
        n_evals -= len(fit)
        pc_mean.append(float(np.mean(fit)))
        pc_max.append(float(np.max(fit)))
        if n_evals <= 0:
            break
        fit = np.asarray(fit)
        if ablation == "no_ga":  # independent lineages: each prompt refined on its own triplet
            pop = [refine_prompt(vlm, seed_img, pos[i], neg[i], pop[i]) for i in range(len(fit))]
            continue
        sel_fit = np.zeros_like(fit) if ablation == "no_pc" else fit
        elite = int(rng.integers(len(fit))) if ablation == "no_pc" else int(np.argmax(fit))
        parents = ga_select(sel_fit, 2 * (pop_size - 1), rng).reshape(-1, 2)
        new_pop, new_pos, new_neg = [pop[elite]], [pos[elite]], [neg[elite]]
        all_pos = [p for p in pos if len(p)]
        all_neg = [q for q in neg if len(q)]
        for a, b in parents:
            cp = _mix(rng, pos[a], pos[b], all_pos)
            cn = _mix(rng, neg[a], neg[b], all_neg)
            if ablation == "no_refine":  # no loss L: the child is parent a's prompt
                child = dict(pop[a])
            else:
                child = refine_prompt(vlm, seed_img, cp, cn, pop[a])
            new_pop.append(child)
            new_pos.append(cp)
            new_neg.append(cn)
        pop, pos, neg = new_pop, new_pos, new_neg
    # the best prompt by its mean PC over all its evaluations (not one noisy evaluation's
    # maximum: that would be the winner's curse)
    best = max(seen.values(), key=lambda v: (float(np.mean(v[1:])), len(v)))[0]
    n_total = sum(len(v) - 1 for v in seen.values())
    return Xs, ys, pc_mean, pc_max, best, n_repeat / n_total


def stealix_attack(
    victim: BlackBoxVictim,
    generator: GlyphGenerator | CVAEGenerator,
    vlm: DualEncoder,
    seeds: np.ndarray,
    budget_per_class: int,
    pop_size: int = 6,
    m: int = 8,
    ablation: str | None = None,
    seed: int = 0,
) -> tuple[np.ndarray, np.ndarray, dict]:
    """Stealix: evolve ``pop_size`` prompts per class from ``seeds`` (10, 64), one real image
    per class, within ``budget_per_class`` victim queries per class (PC evaluations included).

    Returns ``(X, y, log)``: the queried images (n, 64), V's labels (n,), and ``log`` with
    ``pc_mean``/``pc_max`` (per class, a list over generations), ``best_prompt`` (10 prompts,
    each the prompt with the highest mean PC over its evaluations), ``repeat_share`` (per class,
    the share of PC evaluations spent on a prompt already evaluated, e.g. the elite) and
    ``queries`` (victim queries used). ``ablation``: ``"no_refine"`` (no loss L: each child is
    a copy of its first parent's prompt; the triplets are still crossed over and mutated),
    ``"no_pc"`` (parents and elite chosen uniformly, PC ignored), ``"no_ga"`` (no selection,
    crossover or mutation: each prompt is refined on its own triplet).
    """
    check_instance("victim", victim, BlackBoxVictim)
    check_instance("generator", generator, GENERATORS)
    vlm = check_instance("vlm", vlm, DualEncoder)
    seeds = _check_seeds(seeds)
    m = check_int("m", m, 1)
    budget = _check_budget(budget_per_class, m)
    pop_size = check_int("pop_size", pop_size, 2)
    ablation = check_choice("ablation", ablation, ABLATIONS)
    seed = check_seed("seed", seed)
    if vlm.vocab != generator.vocab:
        raise ValueError("vlm must be trained on this generator's vocabulary")
    start = victim.n_queries
    X, y, log = [], [], {"pc_mean": [], "pc_max": [], "best_prompt": [], "repeat_share": []}
    for c in range(10):
        rng = np.random.default_rng([seed, c])
        out = _evolve_class(victim, generator, vlm, seeds[c], c, budget, pop_size, m, ablation, rng)
        X += out[0]
        y += out[1]
        log["pc_mean"].append(out[2])
        log["pc_max"].append(out[3])
        log["best_prompt"].append(out[4])
        log["repeat_share"].append(out[5])
    log["queries"] = victim.n_queries - start
    return np.concatenate(X), np.concatenate(y), log


def _augment(x: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """A random affine copy of one 8×8 image (rotation ±15°, shift ±1 px, scale 0.9-1.1, noise)."""
    a = np.deg2rad(rng.uniform(-15, 15))
    s = rng.uniform(0.9, 1.1)
    mat = np.array([[np.cos(a), -np.sin(a)], [np.sin(a), np.cos(a)]]) / s
    centre = np.array([3.5, 3.5])
    off = centre - mat @ centre + rng.uniform(-1, 1, 2)
    out = ndimage.affine_transform(x.reshape(8, 8), mat, off, order=1, mode="constant")
    return np.clip(out.reshape(64) + rng.normal(0, 1.0, 64), 0, 16)


def baseline_attack(
    kind: str,
    victim: BlackBoxVictim,
    generator: GlyphGenerator | CVAEGenerator,
    budget_per_class: int,
    seeds: np.ndarray | None = None,
    vlm: DualEncoder | None = None,
    pool: np.ndarray | None = None,
    m: int = 8,
    seed: int = 0,
) -> tuple[np.ndarray, np.ndarray]:
    """A baseline with the same number of victim queries as :func:`stealix_attack`,
    (budget_per_class // m) · m per class, returning ``(X, y)`` with y = V's labels.

    ``kind``: ``"random"`` (random prompts, m images each), ``"classname"`` (char = the class's
    digit, the other slots random: the attacker knows the names), ``"classname_plain"`` (char =
    the class's digit, plain context, random style), ``"seed_aug"`` (affine copies
    of ``seeds``), ``"inversion"`` (prompts inverted from ``seeds`` by ``vlm``, each from its own
    random start, no feedback), ``"knockoff"`` (random prompts of letters only: a mismatched
    public set), ``"oracle"`` (real images drawn from ``pool``: the upper bound).
    """
    kind = check_choice("kind", kind, KINDS)
    check_instance("victim", victim, BlackBoxVictim)
    check_instance("generator", generator, GENERATORS)
    m = check_int("m", m, 1)
    budget = _check_budget(budget_per_class, m)
    seed = check_seed("seed", seed)
    if kind in ("seed_aug", "inversion"):
        seeds = _check_seeds(seeds)
    if kind == "inversion":
        check_instance("vlm", vlm, DualEncoder)
    if kind == "oracle":
        pool = check_images("pool", pool)
    n = (budget // m) * m  # per class, the same as Stealix's
    rng = np.random.default_rng(seed)
    letters = tuple(ch for ch in generator.vocab["char"] if ch.isalpha())
    X = []
    for c in range(10):
        if kind == "oracle":
            X.append(pool[rng.choice(len(pool), n, replace=len(pool) < 10 * n)])
            continue
        if kind == "seed_aug":
            X.append(np.stack([_augment(seeds[c], rng) for _ in range(n)]))
            continue
        for _ in range(n // m):
            if kind == "inversion":
                p = invert_prompt(vlm, seeds[c], seed=int(rng.integers(2**31)))
            else:
                p = generator.random_prompt(rng)
                if kind in ("classname", "classname_plain"):
                    p["char"] = str(c)
                if kind == "classname_plain":
                    p.update(PLAIN_CONTEXT)
                elif kind == "knockoff":
                    p["char"] = letters[int(rng.integers(len(letters)))]
            X.append(generator.generate(p, m, seed=int(rng.integers(2**31))))
    X = np.concatenate(X)
    return X, victim.query(X)


class Surrogate:
    """The stolen copy A: ``predict(X)`` (N,) labels; a constant if only one label was seen."""

    def __init__(self, model: MLPClassifier | None, label: int = 0) -> None:
        if model is not None:
            check_instance("model", model, MLPClassifier)
        self._model, self._label = model, check_int("label", label, 0, 9)

    def predict(self, X: np.ndarray) -> np.ndarray:
        X = check_images("X", X)
        if self._model is None:
            return np.full(len(X), self._label)
        return self._model.predict(X / 16.0).astype(int)


def train_surrogate(X: np.ndarray, y: np.ndarray, hidden: int = 128, seed: int = 0) -> Surrogate:
    """Train A (the victim's architecture: one ``hidden`` layer) on ``X`` (n, 64) and V's labels
    ``y`` (n,) with cross-entropy (scikit-learn's Adam, 300 epochs at most)."""
    X = check_images("X", X)
    y = _check_labels("y", y, len(X))
    hidden = check_int("hidden", hidden, 1)
    seed = check_seed("seed", seed)
    if len(np.unique(y)) < 2:
        return Surrogate(None, int(y[0]))
    model = MLPClassifier((hidden,), max_iter=300, random_state=seed % 2**32)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        model.fit(X / 16.0, y)
    return Surrogate(model)


def evaluate_surrogate(
    model: Surrogate, victim: BlackBoxVictim, Xte: np.ndarray, yte: np.ndarray
) -> dict:
    """``{"acc": test accuracy, "agreement": share of test images where A and V agree}``; the
    victim's test labels are read without counting (evaluation, not part of any attack)."""
    check_instance("model", model, Surrogate)
    check_instance("victim", victim, BlackBoxVictim)
    Xte = check_images("Xte", Xte)
    yte = _check_labels("yte", yte, len(Xte))
    pred = model.predict(Xte)
    return {
        "acc": float(np.mean(pred == yte)),
        "agreement": float(np.mean(pred == victim._labels(Xte))),
    }


def feature_distance(victim: BlackBoxVictim, images: np.ndarray, real: np.ndarray) -> float:
    """‖mean f(images) − mean f(real)‖ in V's penultimate features f (analysis only)."""
    check_instance("victim", victim, BlackBoxVictim)
    f_gen = victim.features(check_images("images", images)).mean(0)
    return float(np.linalg.norm(f_gen - victim.features(check_images("real", real)).mean(0)))
