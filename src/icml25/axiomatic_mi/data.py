"""Random 2-CNF formulas in the authors' token layout, their truth tables and two SAT oracles.

Symbols: ``n_vars`` variables x_0..x_{n-1}; ``n_clauses`` clauses of two literals each.
Tokens: x_v = v, ¬x_v = n_vars + v, then ``( ) : s u pad`` = 2 n_vars ... 2 n_vars + 5.
Clause i sits at positions 4i..4i+3 as ``( a b )``; the last token is ``:``, so a formula is
4 n_clauses + 1 tokens. Assignment a (an int in [0, 2^n_vars)) sets x_v = (a >> v) & 1.
A *clause id* is the unordered pair of literal tokens, ``min * 2 n_vars + max``.
"""

from __future__ import annotations

import numpy as np

from icml25.common.checks import check_choice, check_int, check_seed

__all__ = [
    "clause_ids",
    "clause_truth",
    "generate_2cnf",
    "n_tokens",
    "sat_oracle",
    "truth_tables",
    "vocab_size",
]

N_VARS_RANGE = (2, 8)


def vocab_size(n_vars: int) -> int:
    """Vocabulary size 2 n_vars + 6 (literals, ``( ) : s u pad``)."""
    n_vars = check_int("n_vars", n_vars, *N_VARS_RANGE)
    return 2 * n_vars + 6


def n_tokens(n_clauses: int) -> int:
    """Formula length 4 n_clauses + 1 (the last token is ``:``)."""
    return 4 * check_int("n_clauses", n_clauses, 1) + 1


def _check_tokens(tokens: object, n_vars: int) -> np.ndarray:
    """Validate a (N, 4 m + 1) int array of formulas in the layout above; return it as int64."""
    import torch

    if isinstance(tokens, torch.Tensor):
        tokens = tokens.detach().cpu().numpy()
    if not isinstance(tokens, np.ndarray):
        raise TypeError(
            f"tokens must be an int array (N, 4*n_clauses+1), got {type(tokens).__name__}"
        )
    if tokens.ndim != 2 or tokens.shape[0] == 0:
        raise ValueError(
            f"tokens must have shape (N, 4*n_clauses+1) with N >= 1, got {tokens.shape}"
        )
    if tokens.dtype == bool or not np.issubdtype(tokens.dtype, np.integer):
        raise TypeError(f"tokens must hold integers, got dtype {tokens.dtype}")
    width = tokens.shape[1]
    if width < 5 or (width - 1) % 4:
        raise ValueError(f"tokens must have width 4*n_clauses+1, got {width}")
    tokens = tokens.astype(np.int64, copy=False)
    lits = literals(tokens)
    if tokens.min() < 0 or tokens.max() >= 2 * n_vars + 6:
        raise ValueError(
            f"tokens must hold ids in [0, {2 * n_vars + 6}) for n_vars={n_vars}, got "
            f"[{tokens.min()}, {tokens.max()}]"
        )
    if lits.min() < 0 or lits.max() >= 2 * n_vars:
        raise ValueError(f"tokens must hold literal ids < 2*n_vars={2 * n_vars} at 4i+1, 4i+2")
    return tokens


def literals(tokens: np.ndarray) -> np.ndarray:
    """(N, m, 2) the literal tokens of each clause (positions 4i+1 and 4i+2)."""
    m = (tokens.shape[1] - 1) // 4
    return np.stack([tokens[:, 1 : 4 * m : 4], tokens[:, 2 : 4 * m : 4]], axis=-1)


def clause_ids(tokens: object, n_vars: int = 5) -> np.ndarray:
    """h_1, the exact parse: (N, m) int64 clause ids ``min(a, b) * 2 n_vars + max(a, b)``."""
    n_vars = check_int("n_vars", n_vars, *N_VARS_RANGE)
    lits = literals(_check_tokens(tokens, n_vars))
    return lits.min(-1) * 2 * n_vars + lits.max(-1)


def _literal_values(n_vars: int) -> np.ndarray:
    """(2^n, 2 n) bool: the value of literal l under assignment a."""
    a = np.arange(2**n_vars)[:, None]
    x = ((a >> np.arange(n_vars)[None, :]) & 1).astype(bool)
    return np.concatenate([x, ~x], axis=1)


def clause_truth(n_vars: int = 5) -> np.ndarray:
    """(2^n, (2 n)^2) bool: clause id k is satisfied by assignment a (one literal true)."""
    n_vars = check_int("n_vars", n_vars, *N_VARS_RANGE)
    val = _literal_values(n_vars)
    return (val[:, :, None] | val[:, None, :]).reshape(2**n_vars, -1)


def truth_tables(ids: object, n_vars: int = 5) -> np.ndarray:
    """h_2's features φ: (N, 2^n) bool, formula k (clause ids (N, m)) satisfied by assignment a."""
    n_vars = check_int("n_vars", n_vars, *N_VARS_RANGE)
    ids = np.asarray(ids)
    if ids.ndim != 2 or ids.size == 0 or not np.issubdtype(ids.dtype, np.integer):
        raise ValueError(f"ids must be a non-empty (N, m) int array, got {ids.shape} {ids.dtype}")
    if ids.min() < 0 or ids.max() >= (2 * n_vars) ** 2:
        raise ValueError(f"ids must be clause ids in [0, {(2 * n_vars) ** 2})")
    table = clause_truth(n_vars)  # (2^n, K)
    return table[:, ids].all(axis=-1).T  # (N, 2^n)


def generate_2cnf(
    n: int, n_vars: int = 5, n_clauses: int = 10, balance: bool = True, seed: int = 0
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Draw ``n`` random 2-CNF formulas.

    Each clause: two distinct variables in increasing order, each negated with probability 1/2;
    repeated clauses allowed. With ``balance`` exactly n // 2 are SAT and the rest UNSAT, drawn
    from the same distribution by rejection, then shuffled.

    Returns:
        tokens (n, 4 n_clauses + 1) int64, labels (n,) int64 (1 = SAT), truth_table (n, 2^n_vars)
        bool (``truth_table[k, a]``: formula k is satisfied by assignment a).
    """
    n_vars = check_int("n_vars", n_vars, *N_VARS_RANGE)
    n_clauses = check_int("n_clauses", n_clauses, 1)
    if not isinstance(balance, bool):
        raise TypeError(f"balance must be a bool, got {type(balance).__name__}")
    n = check_int("n", n, 2 if balance else 1)
    rng = np.random.default_rng(check_seed("seed", seed))
    table = clause_truth(n_vars)
    want = (n - n // 2, n // 2) if balance else None  # (UNSAT, SAT)
    kept: list[tuple[np.ndarray, np.ndarray]] = []
    counts = [0, 0]
    total = 0
    rounds = 0
    while (want is None and total < n) or (want is not None and counts != list(want)):
        batch = max(2 * n, 1024)
        u = rng.random((batch, n_clauses, n_vars)).argsort(-1)[..., :2]
        v = np.sort(u, axis=-1)  # two distinct variables, increasing
        lits = v + n_vars * rng.integers(0, 2, size=v.shape)
        ids = lits.min(-1) * 2 * n_vars + lits.max(-1)
        tt = table[:, ids].all(axis=-1).T
        sat = tt.any(axis=1)
        if want is None:
            take = np.arange(min(batch, n - total))
            total += take.size
        else:
            take_parts = []
            for label in (0, 1):
                idx = np.flatnonzero(sat == bool(label))[: want[label] - counts[label]]
                counts[label] += idx.size
                take_parts.append(idx)
            take = np.sort(np.concatenate(take_parts))
        kept.append((lits[take], tt[take]))
        rounds += 1
        if want is not None and rounds >= 50 and counts != list(want):
            raise ValueError(
                f"balance=True could not draw {want[1]} SAT and {want[0]} UNSAT formulas with "
                f"n_vars={n_vars}, n_clauses={n_clauses}: one label is (nearly) impossible"
            )
    lits = np.concatenate([k[0] for k in kept])
    tt = np.concatenate([k[1] for k in kept])
    if balance:
        perm = rng.permutation(n)
        lits, tt = lits[perm], tt[perm]
    tokens = np.empty((n, 4 * n_clauses + 1), dtype=np.int64)
    tokens[:, 0 : 4 * n_clauses : 4] = 2 * n_vars
    tokens[:, 1 : 4 * n_clauses : 4] = lits[..., 0]
    tokens[:, 2 : 4 * n_clauses : 4] = lits[..., 1]
    tokens[:, 3 : 4 * n_clauses : 4] = 2 * n_vars + 1
    tokens[:, -1] = 2 * n_vars + 2
    return tokens, tt.any(axis=1).astype(np.int64), tt


def _scc_satisfiable(lits: np.ndarray, n_vars: int) -> bool:
    """Aspvall-Plass-Tarjan: unsatisfiable iff some x and ¬x share a strongly connected
    component of the implication graph (¬a -> b, ¬b -> a per clause a ∨ b)."""
    import networkx as nx

    neg = lambda lit: lit + n_vars if lit < n_vars else lit - n_vars  # noqa: E731
    g = nx.DiGraph()
    g.add_nodes_from(range(2 * n_vars))
    for a, b in lits:
        g.add_edge(neg(int(a)), int(b))
        g.add_edge(neg(int(b)), int(a))
    comp = {}
    for i, scc in enumerate(nx.strongly_connected_components(g)):
        for node in scc:
            comp[node] = i
    return all(comp[v] != comp[v + n_vars] for v in range(n_vars))


def _pysat_satisfiable(lits: np.ndarray, n_vars: int) -> bool:
    from pysat.solvers import Minisat22

    dimacs = lambda lit: int(lit) + 1 if lit < n_vars else -(int(lit) - n_vars + 1)  # noqa: E731
    with Minisat22(bootstrap_with=[[dimacs(a), dimacs(b)] for a, b in lits]) as solver:
        return bool(solver.solve())


def sat_oracle(tokens: object, n_vars: int = 5, method: str = "pysat") -> np.ndarray:
    """Label formulas with an independent solver: ``"pysat"`` (MiniSat 2.2 via python-sat) or
    ``"scc"`` (implication-graph SCCs via networkx). Returns (N,) bool, True = SAT."""
    method = check_choice("method", method, ("pysat", "scc"))
    n_vars = check_int("n_vars", n_vars, *N_VARS_RANGE)
    lits = literals(_check_tokens(tokens, n_vars))
    solve = _pysat_satisfiable if method == "pysat" else _scc_satisfiable
    return np.array([solve(f, n_vars) for f in lits], dtype=bool)
