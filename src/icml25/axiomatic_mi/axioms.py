"""The four axioms of a mechanistic interpretation and their ε bounds (Palumbo et al., §3).

A network t = t_n ∘ … ∘ t_1 (``concrete``), an interpretation h = h_n ∘ … ∘ h_1
(``abstract``), abstractions α_0..α_n (concrete state -> abstract state) and concretisations
γ_1..γ_{n-1} (abstract -> concrete). For every layer i and input x:

* A1 prefix equivalence      α_i(t_{≤i}(x)) = h_{≤i}(α_0(x));
* A2 component equivalence   α_i(t_i(t_{<i}(x))) = h_i(α_{i-1}(t_{<i}(x)));
* A3 prefix replaceability    t_{>i}(γ_i(h_{≤i}(α_0(x)))) = t(x);
* A4 component replaceability t_{>i}(γ_i(h_i(α_{i-1}(t_{<i}(x))))) = t(x).

Each holds ε-approximately: ε is the one-sided Clopper-Pearson upper bound on the rate of
inputs where it fails. Abstract states are arrays with one row per input; an equivalence fails
on an input whose two abstract states differ in more than ``allowable_deviation`` components.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, NamedTuple

import numpy as np
import pandas as pd
from scipy import stats

from icml25.common.checks import check_int, check_real

__all__ = ["Interpretation", "axiom_epsilons", "clopper_pearson_upper"]

AXIOMS = ("prefix_equiv", "component_equiv", "prefix_replace", "component_replace")


def clopper_pearson_upper(k: int, n: int, confidence: float = 0.95) -> float:
    """One-sided Clopper-Pearson upper bound on a failure rate from ``k`` failures in ``n``.

    ε = Beta⁻¹(confidence; k + 1, n − k), and 1 when k = n; with k = 0 it is
    1 − (1 − confidence)^{1/n}.
    """
    n = check_int("n", n, 1)
    k = check_int("k", k, 0, n)
    confidence = check_real("confidence", confidence, 0.0, 1.0, low_open=True, high_open=True)
    if k == n:
        return 1.0
    return float(stats.beta.ppf(confidence, k + 1, n - k))


class _Fields(NamedTuple):
    concrete: Sequence[Callable[[Any], Any]]
    abstract: Sequence[Callable[[Any], Any]]
    alphas: Sequence[Callable[[Any], Any]]
    gammas: Sequence[Callable[[Any], Any]]
    names: Sequence[str]


class Interpretation(_Fields):
    """A network, an interpretation of it and the maps between them (a NamedTuple).

    Attributes:
        concrete: [t_1..t_n], each a batched map of concrete states (t_1 takes tokens).
        abstract: [h_1..h_n], each a batched map of abstract states (arrays, a row per input).
        alphas: [α_0..α_n]; α_0 maps tokens to the abstract input, α_n the output.
        gammas: [γ_1..γ_{n−1}], abstract state of layer i -> concrete state of layer i.
        names: n layer names (the index of :func:`axiom_epsilons`' table).
    """

    __slots__ = ()

    def __new__(cls, concrete, abstract, alphas, gammas, names):
        for field, value in zip(
            cls._fields, (concrete, abstract, alphas, gammas, names), strict=True
        ):
            if isinstance(value, (str, bytes)) or not isinstance(value, Sequence):
                raise TypeError(f"{field} must be a list, got {type(value).__name__}")
            kind = str if field == "names" else Callable
            if not all(isinstance(f, kind) for f in value):
                what = "strings" if field == "names" else "callables"
                raise TypeError(f"{field} must hold {what}")
        n = len(concrete)
        if n < 1:
            raise ValueError("concrete must hold at least one layer")
        for field, value, want in (
            ("abstract", abstract, n),
            ("alphas", alphas, n + 1),
            ("gammas", gammas, n - 1),
            ("names", names, n),
        ):
            if len(value) != want:
                raise ValueError(
                    f"{field} must hold {want} entries for {n} layers, got {len(value)}"
                )
        return super().__new__(
            cls, list(concrete), list(abstract), list(alphas), list(gammas), list(names)
        )


def _check_interp(interp: object) -> int:
    if not isinstance(interp, Interpretation):
        raise TypeError(f"interp must be an Interpretation, got {type(interp).__name__}")
    return len(interp.concrete)


def _differing(a: Any, b: Any) -> np.ndarray:
    """(N,) number of differing components between two batched abstract states."""
    a, b = np.asarray(a), np.asarray(b)
    if a.shape != b.shape:
        raise ValueError(f"abstract states of different shapes {a.shape} and {b.shape}")
    return (a != b).reshape(a.shape[0], -1).sum(axis=1)


def _run(layers: Sequence[Callable[[Any], Any]], state: Any) -> Any:
    for layer in layers:
        state = layer(state)
    return state


def axiom_epsilons(
    interp: Interpretation,
    tokens: Any,
    confidence: float = 0.95,
    allowable_deviation: int = 0,
) -> pd.DataFrame:
    """Failure counts and ε of the four axioms at every layer, on the inputs ``tokens``.

    Returns a DataFrame indexed by ``interp.names`` with columns ``k_prefix_equiv``,
    ``k_component_equiv``, ``k_prefix_replace``, ``k_component_replace`` (failures), the matching
    ``eps_*`` (Clopper-Pearson bounds at ``confidence``) and ``n``; replaceability of the last
    layer is NaN (there is no γ_n). Equivalence tolerates ``allowable_deviation`` differing
    components; replaceability compares outputs exactly.
    """
    n_layers = _check_interp(interp)
    confidence = check_real("confidence", confidence, 0.0, 1.0, low_open=True, high_open=True)
    dev = check_int("allowable_deviation", allowable_deviation, 0)
    if not hasattr(tokens, "shape") or len(tokens.shape) < 1 or tokens.shape[0] < 1:
        raise TypeError("tokens must be a non-empty batched array of inputs")
    t, h, alpha, gamma = interp.concrete, interp.abstract, interp.alphas, interp.gammas
    concrete = [tokens]  # t_{≤i}(x), i = 0..n
    for layer in t:
        concrete.append(layer(concrete[-1]))
    output = np.asarray(concrete[-1])
    n = output.shape[0]
    prefix = [alpha[0](tokens)]  # h_{≤i}(α_0(x))
    for layer in h:
        prefix.append(layer(prefix[-1]))
    rows = []
    for i in range(1, n_layers + 1):
        lhs = alpha[i](concrete[i])
        component = h[i - 1](alpha[i - 1](concrete[i - 1]))
        row = {
            "k_prefix_equiv": int((_differing(lhs, prefix[i]) > dev).sum()),
            "k_component_equiv": int((_differing(lhs, component) > dev).sum()),
        }
        if i < n_layers:
            rest = t[i:]
            for key, state in (("k_prefix_replace", prefix[i]), ("k_component_replace", component)):
                replaced = np.asarray(_run(rest, gamma[i - 1](state)))
                row[key] = int((_differing(replaced, output) > 0).sum())
        else:
            row["k_prefix_replace"] = np.nan
            row["k_component_replace"] = np.nan
        rows.append(row)
    df = pd.DataFrame(rows, index=pd.Index(list(interp.names), name="layer"))
    for axiom in AXIOMS:
        df[f"eps_{axiom}"] = [
            np.nan if np.isnan(k) else clopper_pearson_upper(int(k), n, confidence)
            for k in df[f"k_{axiom}"].astype(float)
        ]
    df["n"] = n
    return df
