"""Sufficient explanations: the verifier query, the greedy minimal explanation (Algorithm 1)
and its abstraction-refinement version (Algorithm 2), and an attack as an independent check.

A set S of fixed features is a *sufficient explanation* of t = argmax f(x) at radius ε if
every x' with x'_S = x_S and x'_i ∈ [x_i - ε, x_i + ε] ∩ domain for i ∉ S keeps
argmax f(x') = t. A query proves it when every lower bound of f_t - f_j (j ≠ t) is > 0. The
queries run on the **margin network**: the last layer replaced by its logit differences
(C W_L, C b_L), C the (n_L - 1, n_L) rows e_t - e_j, as CORA's appended layer does; the
abstraction is built on it.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from icml25.common.checks import (
    check_choice,
    check_finite_array,
    check_index,
    check_instance,
    check_int,
    check_seed,
)
from icml25.sufficient_explanations.bounds import _crown, _ibp, _milp
from icml25.sufficient_explanations.net import Net, _check_domain, check_indices, input_box
from icml25.sufficient_explanations.reduce import reduce_network

__all__ = [
    "Explanation",
    "falsify",
    "is_sufficient",
    "margin_net",
    "minimal_explanation",
    "sensitivity",
]

VERIFIERS = ("crown", "ibp", "milp")
METHODS = ("standard", "abstract_refine", "abstract_only")
COUNTEREXAMPLES = (None, "fgsm", "pgd")
DEFAULT_RATES = (0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0)
MILP_TIME_LIMIT_S = 60.0
ORDERS = ("sensitivity", "sensitivity_logits")


def _check_net(net: object, concrete: bool = False) -> Net:
    if not isinstance(net, Net):
        raise TypeError(f"net must be a Net, got {type(net).__name__}")
    if concrete and net.abstract:
        raise ValueError("net must have no interval biases here")
    return net


def _target(net: Net, x: np.ndarray, target: object) -> int:
    if x.shape != (net.n_in,):
        raise ValueError(f"x must have shape ({net.n_in},), got {x.shape}")
    if target is None:
        return int(np.argmax(net.forward(x)))
    return check_index("target", target, net.n_out)


def margin_net(net: Net, target: int) -> Net:
    """The network whose outputs are f_t - f_j for every j ≠ t (n_L - 1 outputs, j ascending)."""
    net = _check_net(net)
    t = check_index("target", target, net.n_out)
    C = np.delete(np.eye(net.n_out), t, axis=0) * -1.0
    C[:, t] += 1.0
    d = net.ds[-1]
    if d is not None:
        Cp, Cn = np.maximum(C, 0), np.minimum(C, 0)
        d = (Cp @ d[0] + Cn @ d[1], Cp @ d[1] + Cn @ d[0])
    return Net(net.Ws[:-1] + [C @ net.Ws[-1]], net.bs[:-1] + [C @ net.bs[-1]], net.ds[:-1] + [d])


def _verify(mnet: Net, lo: np.ndarray, hi: np.ndarray, verifier: str) -> bool:
    """All margins > 0 on [lo, hi]? (``mnet`` a margin network.)"""
    if verifier == "ibp":
        return bool(_ibp(mnet, lo, hi)[-1][0].min() > 0)
    lower = _crown(mnet, lo, hi, np.eye(mnet.n_out), "adaptive")[0]
    if verifier == "crown" or lower.min() > 0:
        return bool(lower.min() > 0)
    rows = np.nonzero(lower <= 0)[0]
    exact = _milp(mnet, lo, hi, np.eye(mnet.n_out), MILP_TIME_LIMIT_S, False, rows, 0.0)[0]
    return bool(exact[rows].min() > 0)


def is_sufficient(
    net: Net,
    x: np.ndarray,
    free: Sequence[int],
    eps: float,
    target: int | None = None,
    verifier: str = "crown",
    domain: Sequence[float] = (0.0, 1.0),
) -> bool:
    """Is the complement of ``free`` a sufficient explanation of ``target`` at x (module doc)?

    ``verifier``: ``"crown"`` or ``"ibp"`` (sound, incomplete: False may be a false alarm) or
    ``"milp"`` (exact up to its 60 s time limit, after which it answers False). ``target``
    defaults to argmax f(x) (which needs a network without interval biases).
    """
    net = _check_net(net)
    verifier = check_choice("verifier", verifier, VERIFIERS)
    lo, hi = input_box(x, free, eps, domain)
    t = _target(net, input_box(x, [], eps, domain)[0], target)
    return _verify(margin_net(net, t), lo, hi, verifier)


SENSITIVITIES = ("difference", "logits")


def sensitivity(
    net: Net, x: np.ndarray, of: str = "difference", target: int | None = None
) -> np.ndarray:
    """Input sensitivity at x from the exact Jacobian J = ∂f/∂x (n_L, n_0) of the ReLU net, (n_0,).

    ``of="difference"`` (the default, CORA's order: ``explain.m`` appends the logit-difference
    layer before ``getInputNeuronOrder``): the mean over the n_L rows j of |∂(f_j - f_t)/∂x_i|,
    t = ``target`` (default argmax f(x)); the row j = t is zero and is kept in the mean, as in
    CORA, which does not change the order. ``of="logits"``: the mean over the logits of
    |∂f_j/∂x_i| (this book's earlier order).
    """
    net = _check_net(net, concrete=True)
    x = check_finite_array("x", x, ndim=1)
    if x.shape != (net.n_in,):
        raise ValueError(f"x must have shape ({net.n_in},), got {x.shape}")
    of = check_choice("of", of, SENSITIVITIES)
    t = _target(net, x, target)
    J = np.eye(net.n_in)
    a = x.astype(float)
    for k, (W, b) in enumerate(zip(net.Ws, net.bs, strict=True)):
        z = W @ a + b
        J = W @ J
        if k < len(net.Ws) - 1:
            J = J * (z > 0)[:, None]
            a = np.maximum(z, 0.0)
    if of == "difference":
        J = J - J[t]
    return np.abs(J).mean(axis=0)


@dataclass
class Explanation:
    """A minimal sufficient explanation and what it cost.

    Attributes:
        fixed: sorted indices of the fixed features (the explanation).
        freed: the freed features, in the order they were freed.
        level: (n_0,) the reduction rate ρ at which each freed feature verified (1.0 for
            ``"standard"``), NaN for fixed features.
        n_queries: verifier queries; ``queries_per_rate``: {ρ: queries at that rate}.
        work: Σ ``.work`` of the (margin) networks queried; ``reduction_work``: Σ of the weight
            sizes the reductions' IBP passes touched (the abstraction's own cost).
        seconds: wall time; target: the explained class; n_counterexamples: features stopped
            by a counterexample confirmed on the original network.
    """

    fixed: np.ndarray
    freed: np.ndarray
    level: np.ndarray
    n_queries: int
    queries_per_rate: dict[float, int]
    work: int
    seconds: float
    target: int
    reduction_work: int = 0
    n_counterexamples: int = 0
    order: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))


def _margin_and_grad(mnet: Net, x: np.ndarray) -> tuple[float, np.ndarray]:
    """min_j margin_j at x and its gradient (interval biases at their centre)."""
    a, masks = x, []
    for k, (W, b) in enumerate(zip(mnet.Ws, mnet.bs, strict=True)):
        d = mnet.ds[k]
        z = W @ a + b + (0.0 if d is None else (d[0] + d[1]) / 2)
        if k < len(mnet.Ws) - 1:
            masks.append(z > 0)
            a = np.maximum(z, 0.0)
        else:
            a = z
    j = int(np.argmin(a))
    g = mnet.Ws[-1][j].copy()
    for k in range(len(mnet.Ws) - 2, -1, -1):
        g = (g * masks[k]) @ mnet.Ws[k]
    return float(a[j]), g


def _attack(mnet: Net, x0: np.ndarray, lo, hi, steps: int) -> np.ndarray:
    """Signed-gradient descent on the smallest margin inside [lo, hi], from x0; ``steps`` = 1
    is FGSM (straight to the box's vertex)."""
    x = x0.copy()
    step = 1.0 if steps == 1 else 2.5 / steps
    for _ in range(steps):
        _, g = _margin_and_grad(mnet, x)
        x = np.clip(x - step * (hi - lo) * np.sign(g), lo, hi)
    return x


def _is_counterexample(mnet: Net, x: np.ndarray) -> bool:
    return bool(mnet.forward(x).min() < 0)


def minimal_explanation(
    net: Net,
    x: np.ndarray,
    eps: float,
    method: str = "standard",
    order: str | Sequence[int] = "sensitivity",
    rates: Sequence[float] = DEFAULT_RATES,
    verifier: str = "crown",
    counterexample: str | None = None,
    domain: Sequence[float] = (0.0, 1.0),
    seed: int = 0,
    interval_bias: bool = True,
) -> Explanation:
    """Greedy subset-minimal sufficient explanation (Algorithm 1), or by abstraction and
    refinement (Algorithm 2).

    Features are tried one at a time in ``order`` (``"sensitivity"``: ascending
    ``sensitivity(net, x)``, CORA's logit-difference order; ``"sensitivity_logits"``: ascending
    ``sensitivity(net, x, of="logits")``; ties by index; or an explicit sequence of feature
    indices; the others stay fixed); a feature is
    freed if the query with it free verifies. ``"standard"`` queries the original network.
    ``"abstract_refine"`` queries ``reduce_network(·, ρ)`` for ρ in ``rates`` (increasing,
    ending at 1.0 = the original network), starting each feature at the last ρ used; on a
    failed query, ``counterexample`` (``"fgsm"``/``"pgd"``: an attack on the abstract network,
    interval biases at their centre, confirmed on the original) may stop the feature's
    refinement, otherwise ρ moves up. ``"abstract_only"`` is the ablation without refinement:
    every query at ``rates[0]`` (a feature failing there stays fixed). ``seed`` drives the
    random start of ``"pgd"``. ``interval_bias=False`` is the **unsound** control: the
    reduced networks drop the merged neurons' interval bias (see :func:`reduce_network`).
    """
    net = _check_net(net, concrete=True)
    x_arr = input_box(x, [], eps, domain)[0]  # validates x, eps and domain; a float copy
    dom = _check_domain(domain)
    method = check_choice("method", method, METHODS)
    verifier = check_choice("verifier", verifier, VERIFIERS)
    counterexample = check_choice("counterexample", counterexample, COUNTEREXAMPLES)
    seed = check_seed("seed", seed)
    interval_bias = check_instance("interval_bias", interval_bias, bool)
    rates_t = _check_rates(rates)
    _target(net, x_arr, None)  # checks x's length
    if isinstance(order, str):
        check_choice("order", order, ORDERS)
        of = "difference" if order == "sensitivity" else "logits"
        feats = np.argsort(sensitivity(net, x_arr, of=of), kind="stable")
    else:
        feats = check_indices("order", order, net.n_in, min_size=1)
    rng = np.random.default_rng(seed)
    t0 = time.perf_counter()
    t = _target(net, x_arr, None)
    mnet = margin_net(net, t)
    level = np.full(net.n_in, np.nan)
    free: list[int] = []
    per_rate = {float(r): 0 for r in rates_t}
    n_q = work = red_work = n_cex = 0
    ri = 0
    if method == "standard":
        rates_t, per_rate = (1.0,), {1.0: 0}
    elif method == "abstract_only":  # the ablation: no refinement, every query at rates[0]
        rates_t, per_rate = rates_t[:1], {rates_t[0]: 0}
    for f in feats:
        lo, hi = input_box(x_arr, [*free, int(f)], eps, dom)
        while True:
            rate = rates_t[ri]
            if rate == 1.0:
                qnet = mnet
            else:
                qnet = reduce_network(mnet, lo, hi, rate, interval_bias=interval_bias)
                red_work += sum(W.size for W in mnet.Ws[:-1])
            n_q += 1
            work += qnet.work
            per_rate[float(rate)] += 1
            if _verify(qnet, lo, hi, verifier):
                free.append(int(f))
                level[f] = rate
                break
            if ri == len(rates_t) - 1:
                break
            if counterexample is not None:
                steps = 1 if counterexample == "fgsm" else 20
                starts = [x_arr] if counterexample == "fgsm" else [x_arr, rng.uniform(lo, hi)]
                if any(_is_counterexample(mnet, _attack(qnet, s, lo, hi, steps)) for s in starts):
                    n_cex += 1
                    break
            ri += 1
    fixed = np.setdiff1d(np.arange(net.n_in), np.array(free, dtype=np.int64))
    return Explanation(
        fixed=fixed.astype(np.int64),
        freed=np.array(free, dtype=np.int64),
        level=level,
        n_queries=n_q,
        queries_per_rate=per_rate,
        work=int(work),
        seconds=time.perf_counter() - t0,
        target=t,
        reduction_work=int(red_work),
        n_counterexamples=n_cex,
        order=np.asarray(feats, dtype=np.int64),
    )


def _check_rates(rates: object) -> tuple[float, ...]:
    if isinstance(rates, (str, bytes)) or not isinstance(rates, (Sequence, np.ndarray)):
        raise TypeError(f"rates must be a sequence of numbers, got {type(rates).__name__}")
    vals = []
    for r in rates:
        if isinstance(r, bool) or not isinstance(r, (int, float, np.integer, np.floating)):
            raise TypeError(f"rates must hold numbers, got {r!r}")
        vals.append(float(r))
    if not vals:
        raise ValueError("rates must not be empty")
    if not all(0 < r <= 1 for r in vals):
        raise ValueError(f"rates must lie in (0, 1], got {vals}")
    if any(b <= a for a, b in zip(vals, vals[1:], strict=False)):
        raise ValueError(f"rates must be strictly increasing, got {vals}")
    if vals[-1] != 1.0:
        raise ValueError(f"rates must end at 1.0 (the original network), got {vals[-1]}")
    return tuple(vals)


def falsify(
    net: Net,
    x: np.ndarray,
    free: Sequence[int],
    eps: float,
    target: int | None = None,
    n_random: int = 10_000,
    pgd_steps: int = 20,
    domain: Sequence[float] = (0.0, 1.0),
    seed: int = 0,
) -> np.ndarray | None:
    """Look for x' in the query's box with argmax f(x') ≠ target: ``n_random`` points (half
    uniform in the box, half random vertices), then signed-gradient descent (``pgd_steps``)
    on the smallest margin from x, from the best random point and from the vertex the
    gradient at x points to. Returns x' (n_0,) or None (nothing found: no proof either)."""
    net = _check_net(net, concrete=True)
    lo, hi = input_box(x, free, eps, domain)
    x0 = input_box(x, [], eps, domain)[0]
    t = _target(net, x0, target)
    n_random = check_int("n_random", n_random, 0, 10_000_000)
    pgd_steps = check_int("pgd_steps", pgd_steps, 0, 100_000)
    seed = check_seed("seed", seed)
    rng = np.random.default_rng(seed)
    mnet = margin_net(net, t)
    best, best_m = lo.copy(), np.inf
    for start in range(0, n_random, 2048):
        n = min(2048, n_random - start)
        u = rng.random((n, lo.size))
        u[: n // 2] = u[: n // 2] < 0.5  # vertices
        P = lo + (hi - lo) * u
        m = mnet.forward(P).min(axis=1)
        i = int(np.argmin(m))
        if m[i] < 0:
            return P[i]
        if m[i] < best_m:
            best, best_m = P[i], m[i]
    if pgd_steps == 0:
        return None
    for start in (x0, best, _attack(mnet, x0, lo, hi, 1)):
        cand = _attack(mnet, start, lo, hi, pgd_steps)
        if _is_counterexample(mnet, cand):
            return cand
    return None
