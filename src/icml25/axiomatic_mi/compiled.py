"""A hand-compiled 2-SAT solver with a known mechanism, and its exact interpretation.

t_1 parses each clause into a one-hot over clause ids, (N, m, K) with K = (2 n_vars)^2;
t_2 has one ReLU neuron per assignment a, activation ReLU(b_a − Σ_k W[a, k] c_k) with c_k the
number of clauses with id k, W[a, k] = 1 if a violates clause k and b_a = 1, so the neuron is 1
when a satisfies every clause and 0 otherwise, (N, 2^n); t_3 is the OR, Σ_a act_a > 1/2, (N,).
The interpretation: h_1 = the clause ids in clause order, h_2 = truth table, h_3 = OR.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from icml25.axiomatic_mi.axioms import Interpretation
from icml25.axiomatic_mi.data import N_VARS_RANGE, _check_tokens, clause_ids, clause_truth
from icml25.axiomatic_mi.data import truth_tables as _truth_tables
from icml25.common.checks import check_choice, check_instance, check_int, check_real, check_seed

__all__ = ["LayeredModel", "compiled_2sat_model", "compiled_interpretation"]


def _check_assignments(name: str, values: object, n_vars: int) -> tuple[int, ...]:
    if isinstance(values, (str, bytes)) or not hasattr(values, "__iter__"):
        raise TypeError(f"{name} must be a sequence of assignments (ints), got {values!r}")
    return tuple(sorted({check_int(name, v, 0, 2**n_vars - 1) for v in values}))


@dataclass(frozen=True)
class LayeredModel:
    """A network given as its layers (what :func:`compiled_2sat_model` returns): ``layers`` =
    [t_1, t_2, t_3] on batched states; calling it on tokens (N, 4 m + 1) returns
    t_3 ∘ t_2 ∘ t_1, (N,) bool. ``W`` (2^n, K) and ``b`` (2^n,) are t_2's weights and biases."""

    layers: list[Callable]
    n_vars: int
    n_clauses: int
    W: np.ndarray
    b: np.ndarray
    prune: tuple[int, ...]
    noise: float

    def __call__(self, tokens: object) -> np.ndarray:
        state = _check_tokens(tokens, self.n_vars)
        for layer in self.layers:
            state = layer(state)
        return np.asarray(state)


def compiled_2sat_model(
    n_vars: int = 5,
    n_clauses: int = 10,
    noise: float = 0.0,
    prune: Sequence[int] = (),
    seed: int = 0,
) -> LayeredModel:
    """The compiled solver; ``noise`` = σ of Gaussian noise on t_2's weights W (2^n, K) and biases
    b (2^n,) only; neurons (assignments) in ``prune`` output 0."""
    n_vars = check_int("n_vars", n_vars, *N_VARS_RANGE)
    n_clauses = check_int("n_clauses", n_clauses, 1)
    noise = check_real("noise", noise, 0.0)
    prune = _check_assignments("prune", prune, n_vars)
    rng = np.random.default_rng(check_seed("seed", seed))
    K = (2 * n_vars) ** 2
    W = (~clause_truth(n_vars)).astype(np.float64)  # (2^n, K): a violates clause k
    b = np.ones(2**n_vars)
    if noise > 0:
        W = W + noise * rng.standard_normal(W.shape)
        b = b + noise * rng.standard_normal(b.shape)
    alive = np.ones(2**n_vars)
    alive[list(prune)] = 0.0

    def t1(tokens: np.ndarray) -> np.ndarray:
        ids = clause_ids(tokens, n_vars)
        onehot = np.zeros((*ids.shape, K), dtype=np.float64)
        np.put_along_axis(onehot, ids[..., None], 1.0, axis=-1)
        return onehot

    def t2(onehot: np.ndarray) -> np.ndarray:
        counts = onehot.sum(axis=1)  # (N, K)
        return np.maximum(b - counts @ W.T, 0.0) * alive

    def t3(hidden: np.ndarray) -> np.ndarray:
        return hidden.sum(axis=1) > 0.5

    return LayeredModel([t1, t2, t3], n_vars, n_clauses, W, b, prune, noise)


def compiled_interpretation(
    model: LayeredModel, drop: Sequence[int] = (), combine: str = "or"
) -> Interpretation:
    """The exact interpretation of :func:`compiled_2sat_model`, optionally made wrong.

    h_1 = the clause ids (N, m) in clause order (each id orders its own two literals);
    h_2 = truth table (N, 2^n), with the assignments in ``drop``
    forced to False; h_3 = ``"or"`` (any) or ``"and"`` (all) of h_2. α_1 = argmax of the one-hot,
    α_2 = activation ≥ 1/2; γ_1 = one-hot of the ids, γ_2 = the Boolean as 0.0 / 1.0.
    """
    check_instance("model", model, LayeredModel)
    n_vars = model.n_vars
    drop = _check_assignments("drop", drop, n_vars)
    combine = check_choice("combine", combine, ("or", "and"))
    K = (2 * n_vars) ** 2

    def h1(tokens: np.ndarray) -> np.ndarray:
        return clause_ids(tokens, n_vars)

    def h2(ids: np.ndarray) -> np.ndarray:
        tt = _truth_tables(ids, n_vars)
        tt[:, list(drop)] = False
        return tt

    def h3(tt: np.ndarray) -> np.ndarray:
        return tt.any(axis=1) if combine == "or" else tt.all(axis=1)

    def gamma1(ids: np.ndarray) -> np.ndarray:
        onehot = np.zeros((*ids.shape, K), dtype=np.float64)
        np.put_along_axis(onehot, ids[..., None], 1.0, axis=-1)
        return onehot

    return Interpretation(
        concrete=model.layers,
        abstract=[h1, h2, h3],
        alphas=[
            lambda tokens: tokens,
            lambda onehot: onehot.argmax(axis=-1),
            lambda hidden: hidden >= 0.5,
            lambda out: np.asarray(out, dtype=bool),
        ],
        gammas=[gamma1, lambda tt: np.asarray(tt, dtype=np.float64)],
        names=["parse", "hidden", "output"],
    )
