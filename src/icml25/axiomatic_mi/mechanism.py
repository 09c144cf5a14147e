"""The paper's interpretation of the 2-SAT transformer: parse, enumerate, OR.

t_1 = embeddings + block 0 -> residual R (N, L, d); t_2 = block-1 attention + MLP hidden layer at
the last position -> (resid_mid (N, d), hidden (N, d_mlp)); t_3 = MLP output + unembedding,
``s`` logit > ``u`` logit -> (N,) bool.

h_1 = the clause ids (N, m); h_2 = one decision tree per *evaluating* neuron over the truth
table φ (N, 2^n), predicting "activation ≥ 1/2"; h_3 = OR.
α_1 = at positions 4i+2, the clause whose mean residual has the highest cosine with R;
α_2 = evaluating activation ≥ 1/2. γ_1 = the mean residual with positions 4i+2 replaced by the
clauses' mean residuals; γ_2 = the mean (resid_mid, hidden) with evaluating neurons set to 0 or
``high``. Means, evaluating neurons and trees are fitted on the ``tokens`` given.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import torch
from sklearn.tree import DecisionTreeClassifier

from icml25.axiomatic_mi.axioms import Interpretation
from icml25.axiomatic_mi.data import _check_tokens, clause_ids, truth_tables
from icml25.axiomatic_mi.transformer import TinyTransformer
from icml25.common.checks import (
    check_finite_array,
    check_instance,
    check_int,
    check_real,
    check_seed,
)

__all__ = [
    "clause_means",
    "fit_neuron_trees",
    "sat_coefficients",
    "transformer_interpretation",
]

COEFFICIENT_THRESHOLD = 2.9


def sat_coefficients(model: TinyTransformer) -> np.ndarray:
    """(d_mlp,) direct effect of each last-block neuron on the ``s`` − ``u`` logit:
    (W_U[s] − W_U[u]) · W_out[:, j]."""
    check_instance("model", model, TinyTransformer)
    U = model.unembed.weight.detach()
    direction = U[model.sat_token] - U[model.unsat_token]
    return (direction @ model.blocks[-1].mlp_out.weight.detach()).cpu().numpy()


BATCH = 4096


def _t1(model: TinyTransformer, tokens: np.ndarray) -> torch.Tensor:
    """Embeddings + block 0, in batches of :data:`BATCH` formulas -> (N, L, d)."""
    out = []
    block = model.blocks[0]
    with torch.no_grad():
        for start in range(0, len(tokens), BATCH):
            x = model.embed(model._tokens(tokens[start : start + BATCH])) + model.pos
            mid = x + block.attend(x)[0]
            out.append(mid + block.mlp_out(torch.relu(block.mlp_in(mid))))
    return torch.cat(out)


def _attention_out(model: TinyTransformer, resid: torch.Tensor) -> torch.Tensor:
    """Block 1's attention output at the last position (without the skip), (N, d)."""
    with torch.no_grad():
        return model.blocks[1].attend(resid, last_only=True)[0][:, 0]


def _t2(model: TinyTransformer, resid: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    with torch.no_grad():
        block = model.blocks[1]
        mid = resid[:, -1] + block.attend(resid, last_only=True)[0][:, 0]
        return mid, torch.relu(block.mlp_in(mid))


def _t3(model: TinyTransformer, state: tuple[torch.Tensor, torch.Tensor]) -> np.ndarray:
    with torch.no_grad():
        mid, hidden = state
        logits = model.unembed(mid + model.blocks[1].mlp_out(hidden))
        return (logits[:, model.sat_token] > logits[:, model.unsat_token]).cpu().numpy()


def clause_means(
    model: TinyTransformer, tokens: object, resid: torch.Tensor | None = None
) -> tuple[np.ndarray, torch.Tensor]:
    """(clause ids seen (K',), their mean layer-1 residual at positions 4i+2, (K', d))."""
    check_instance("model", model, TinyTransformer)
    tokens = _check_tokens(tokens, model.n_vars)
    if resid is None:
        resid = _t1(model, tokens)
    elif not isinstance(resid, torch.Tensor) or resid.shape[:2] != tokens.shape:
        raise ValueError(f"resid must be None or the (N, L, d) = {tokens.shape} + (d,) residual")
    ids = torch.as_tensor(clause_ids(tokens, model.n_vars)).reshape(-1)
    at = resid[:, 2 : 4 * model.n_clauses : 4].reshape(ids.numel(), -1)
    K = (2 * model.n_vars) ** 2
    sums = torch.zeros(K, at.shape[1]).index_add_(0, ids, at)
    counts = torch.bincount(ids, minlength=K)
    seen = torch.nonzero(counts).flatten()
    return seen.numpy(), sums[seen] / counts[seen, None]


def fit_neuron_trees(
    truth_tables: object,
    activations: object,
    threshold: float = 0.5,
    max_leaf_nodes: int = 4,
    random_state: int = 0,
) -> list[DecisionTreeClassifier]:
    """One ``DecisionTreeClassifier(max_leaf_nodes)`` per neuron (column of ``activations``,
    (N, J)) predicting activation ≥ ``threshold`` from the truth table φ (N, 2^n) of 0/1;
    ``random_state`` breaks ties between equally good splits."""
    tt = np.asarray(truth_tables)
    if tt.ndim != 2 or tt.size == 0 or not (tt.dtype == bool or np.isin(tt, (0, 1)).all()):
        raise ValueError("truth_tables must be a non-empty (N, 2^n) array of 0/1 or bool")
    act = check_finite_array("activations", activations, ndim=2)
    if act.shape[0] != tt.shape[0]:
        raise ValueError(f"activations must have {tt.shape[0]} rows, got {act.shape[0]}")
    threshold = check_real("threshold", threshold)
    max_leaf_nodes = check_int("max_leaf_nodes", max_leaf_nodes, 2)
    random_state = check_seed("random_state", random_state)
    trees = []
    for j in range(act.shape[1]):
        tree = DecisionTreeClassifier(max_leaf_nodes=max_leaf_nodes, random_state=random_state)
        trees.append(tree.fit(tt, act[:, j] >= threshold))
    return trees


def transformer_interpretation(
    model: TinyTransformer,
    tokens: object,
    evaluating: Sequence[int] | None = None,
    high: float | str = 2.0,
    max_leaf_nodes: int = 4,
    seed: int = 0,
    residual: str = "resid_mid",
    neuron_rule: str = "trees",
) -> Interpretation:
    """Fit the interpretation's α, γ and h_2 on ``tokens`` (N, L) and return it.

    ``evaluating``: the neurons of h_2 (default: coefficient on ``s`` − ``u`` ≥ 2.9, see
    :func:`sat_coefficients`); ``high``: γ_2's activation of a firing neuron, a number, or
    ``"mean"`` (each neuron's mean activation over the fit formulas on which it fires).
    ``seed`` is the decision trees' ``random_state`` (ties between equally good splits).
    ``residual``: the residual stream that γ_2 returns next to the activations: ``"resid_mid"``
    (the mean of block 1's residual after attention, the state t_2 passes on) or
    ``"attention"`` (the mean of block 1's attention output alone, as in the authors' code).
    """
    check_instance("model", model, TinyTransformer)
    if len(model.blocks) != 2:
        raise ValueError("model must have 2 blocks (the paper's architecture)")
    tokens = _check_tokens(tokens, model.n_vars)
    d_mlp = model.blocks[1].mlp_in.out_features
    if evaluating is None:
        evaluating = np.flatnonzero(sat_coefficients(model) >= COEFFICIENT_THRESHOLD)
    elif isinstance(evaluating, (str, bytes)) or not hasattr(evaluating, "__iter__"):
        raise TypeError(f"evaluating must be a sequence of neuron indices, got {evaluating!r}")
    units = np.array(
        sorted(
            {
                check_int("evaluating", int(u) if isinstance(u, np.integer) else u, 0, d_mlp - 1)
                for u in evaluating
            }
        ),
        dtype=np.int64,
    )
    if units.size == 0:
        raise ValueError("evaluating must name at least one neuron")
    if isinstance(high, str):
        if high != "mean":
            raise ValueError(f"high must be a number or 'mean', got {high!r}")
    else:
        high = check_real("high", high, 0.0)
    max_leaf_nodes = check_int("max_leaf_nodes", max_leaf_nodes, 2)
    seed = check_seed("seed", seed)
    if residual not in ("resid_mid", "attention"):
        raise ValueError(f"residual must be 'resid_mid' or 'attention', got {residual!r}")
    if neuron_rule not in ("trees", "disjunction"):
        raise ValueError(f"neuron_rule must be 'trees' or 'disjunction', got {neuron_rule!r}")
    n_vars, m = model.n_vars, model.n_clauses

    resid = _t1(model, tokens)
    seen, means = clause_means(model, tokens, resid)
    mean_resid = resid.mean(0)
    mid, hidden = _t2(model, resid)
    mean_hidden = hidden.mean(0)
    mean_mid = mid.mean(0) if residual == "resid_mid" else _attention_out(model, resid).mean(0)
    act = hidden[:, units].numpy()
    fires = act >= 0.5
    if high == "mean":
        level = np.where(fires.any(0), (act * fires).sum(0) / np.maximum(fires.sum(0), 1), 0.0)
    else:
        level = np.full(units.size, high)
    level = torch.as_tensor(level, dtype=mean_hidden.dtype)
    phi = truth_tables(clause_ids(tokens, n_vars), n_vars)
    trees = fit_neuron_trees(phi, act, 0.5, max_leaf_nodes, random_state=seed)
    sat_by = phi.astype(bool)  # (N, 2^n)
    rate = (sat_by.T.astype(float) @ fires) / np.maximum(sat_by.sum(0), 1)[:, None]  # (2^n, J)
    sets = [
        np.flatnonzero(r >= 0.5) if (r >= 0.5).any() else np.array([r.argmax()]) for r in rate.T
    ]
    unit_means = torch.nn.functional.normalize(means, dim=-1)

    def alpha1(r: torch.Tensor) -> np.ndarray:
        at = torch.nn.functional.normalize(r[:, 2 : 4 * m : 4], dim=-1)  # (N, m, d)
        return seen[(at @ unit_means.T).argmax(-1).numpy()]

    def gamma1(ids: np.ndarray) -> torch.Tensor:
        out = mean_resid.expand(ids.shape[0], -1, -1).clone()
        lookup = np.full((2 * n_vars) ** 2, -1)
        lookup[seen] = np.arange(seen.size)
        rows = lookup[ids]
        if (rows < 0).any():
            raise ValueError("gamma_1 got a clause never seen when the means were fitted")
        out[:, 2 : 4 * m : 4] = means[torch.as_tensor(rows)]
        return out

    def h2(ids: np.ndarray) -> np.ndarray:
        features = truth_tables(ids, n_vars)
        if neuron_rule == "disjunction":
            on = features.astype(bool)
            return np.stack([on[:, S].any(axis=1) for S in sets], axis=1)
        return np.stack([tree.predict(features) for tree in trees], axis=1).astype(bool)

    def gamma2(on: np.ndarray) -> tuple[torch.Tensor, torch.Tensor]:
        n = on.shape[0]
        h = mean_hidden.expand(n, -1).clone()
        h[:, torch.as_tensor(units)] = torch.as_tensor(on, dtype=h.dtype) * level
        return mean_mid.expand(n, -1).clone(), h

    return Interpretation(
        concrete=[
            lambda x: _t1(model, x),
            lambda r: _t2(model, r),
            lambda s: _t3(model, s),
        ],
        abstract=[lambda x: clause_ids(x, n_vars), h2, lambda on: on.any(axis=1)],
        alphas=[
            lambda x: x,
            alpha1,
            lambda s: (s[1][:, torch.as_tensor(units)] >= 0.5).numpy(),
            lambda out: np.asarray(out, dtype=bool),
        ],
        gammas=[gamma1, gamma2],
        names=["parse", "hidden", "output"],
    )
