"""Sound output bounds of a :class:`Net` over an input box: IBP, CROWN and an exact MILP.

All three accept **interval biases** ``d_k`` (abstract networks), which is why they are written
here: no maintained package verifies such networks, and ``auto-LiRPA`` 0.3, the PyPI release,
cannot import on torch 2 (it needs torch < 1.13 and private ``torch.onnx`` functions). CROWN
{cite:p}`zhang2018crown` follows ``bound-propagation`` 0.4.7 (its ``crown`` with
``BoundModelFactory(adaptive_relu=...)``): intermediate bounds by CROWN, intersected with IBP;
the unit tests compare the two to 1e-9. The MILP is the big-M encoding of Tjeng et al. solved
by ``scipy.optimize.milp`` (HiGHS), for tiny networks only.

Shapes: ``lo``, ``hi`` (n_0,); ``C`` (m, n_L); bounds of layer k are (n_{k+1},).
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp
from scipy.optimize import Bounds, LinearConstraint, milp

from icml25.common.checks import check_choice, check_finite_array, check_positive
from icml25.sufficient_explanations.net import Net

__all__ = ["crown_bounds", "ibp_bounds", "milp_bounds"]

SLOPES = ("adaptive", "parallel")
#: where the MILP's big-M constants (the pre-activation boxes) come from
BIG_M = ("crown", "ibp")
#: |u - l| below this counts as a constant neuron (bound-propagation's ``torch.isclose`` atol)
ZERO_WIDTH = 1e-8


def _check_box(net: object, lo: object, hi: object) -> tuple[Net, np.ndarray, np.ndarray]:
    if not isinstance(net, Net):
        raise TypeError(f"net must be a Net, got {type(net).__name__}")
    lo = check_finite_array("lo", lo, ndim=1)
    hi = check_finite_array("hi", hi, ndim=1)
    for name, arr in (("lo", lo), ("hi", hi)):
        if arr.shape != (net.n_in,):
            raise ValueError(f"{name} must have shape ({net.n_in},), got {arr.shape}")
    if np.any(lo > hi):
        raise ValueError("lo must be <= hi elementwise (lo > hi at some feature)")
    return net, lo, hi


def _check_C(C: object, n_out: int) -> np.ndarray:
    if C is None:
        return np.eye(n_out)
    C = check_finite_array("C", C, ndim=2)
    if C.shape[1] != n_out:
        raise ValueError(f"C must have {n_out} columns (the net's outputs), got {C.shape[1]}")
    return C


def _affine_interval(W, b, d, lo, hi):
    """Bounds of W a + b (+ d) for a in [lo, hi] (interval arithmetic)."""
    Wp, Wn = np.maximum(W, 0.0), np.minimum(W, 0.0)
    zl, zu = Wp @ lo + Wn @ hi + b, Wp @ hi + Wn @ lo + b
    if d is not None:
        zl, zu = zl + d[0], zu + d[1]
    return zl, zu


def ibp_bounds(net: Net, lo: np.ndarray, hi: np.ndarray) -> list[tuple[np.ndarray, np.ndarray]]:
    """Interval bound propagation: the pre-activation bounds ``(l_k, u_k)`` of every layer,
    logits last, over the box [lo, hi]; interval biases are added as intervals."""
    net, lo, hi = _check_box(net, lo, hi)
    return _ibp(net, lo, hi)


def _ibp(net: Net, lo: np.ndarray, hi: np.ndarray) -> list[tuple[np.ndarray, np.ndarray]]:
    out = []
    a_lo, a_hi = lo, hi
    for k, (W, b) in enumerate(zip(net.Ws, net.bs, strict=True)):
        zl, zu = _affine_interval(W, b, net.ds[k], a_lo, a_hi)
        out.append((zl, zu))
        a_lo, a_hi = np.maximum(zl, 0.0), np.maximum(zu, 0.0)
    return out


def _relaxation(zl: np.ndarray, zu: np.ndarray, slope: str):
    """Linear bounds α_l z + β_l <= ReLU(z) <= α_u z + β_u on [zl, zu] (bound-propagation's
    regimes: constant if zu - zl <= 1e-8, inactive if zu <= 0, active if zl >= 0)."""
    const = np.abs(zu - zl) <= ZERO_WIDTH
    act = ~const & (zl >= 0)
    unst = ~const & (zl < 0) & (zu > 0)
    al, bl = np.zeros_like(zl), np.zeros_like(zl)
    au, bu = np.zeros_like(zl), np.zeros_like(zl)
    bl[const], bu[const] = np.maximum(zl[const], 0), np.maximum(zu[const], 0)
    al[act], au[act] = 1.0, 1.0
    s = zu[unst] / (zu[unst] - zl[unst])
    au[unst], bu[unst] = s, -zl[unst] * s
    al[unst] = (zu[unst] >= -zl[unst]).astype(float) if slope == "adaptive" else s
    return al, bl, au, bu


def _backward(net: Net, relax: list, k: int, C: np.ndarray, lo: np.ndarray, hi: np.ndarray):
    """CROWN bounds of C z_k (z_k: layer k's pre-activation) given the ReLU relaxations of
    layers 0..k-1. Lower and upper bounds carry their own linear coefficients."""
    Al, Au = C.copy(), C.copy()
    cl, cu = np.zeros(C.shape[0]), np.zeros(C.shape[0])
    for j in range(k, -1, -1):
        W, b, d = net.Ws[j], net.bs[j], net.ds[j]
        cl += Al @ b
        cu += Au @ b
        if d is not None:
            cl += np.maximum(Al, 0) @ d[0] + np.minimum(Al, 0) @ d[1]
            cu += np.maximum(Au, 0) @ d[1] + np.minimum(Au, 0) @ d[0]
        Al, Au = Al @ W, Au @ W
        if j == 0:
            break
        al, bl, au, bu = relax[j - 1]
        neg = Al < 0  # lower bound: negative coefficients take the upper relaxation
        cl += np.where(neg, Al * bu, Al * bl).sum(1)
        Al = np.where(neg, Al * au, Al * al)
        neg = Au < 0  # upper bound: negative coefficients take the lower relaxation
        cu += np.where(neg, Au * bl, Au * bu).sum(1)
        Au = np.where(neg, Au * al, Au * au)
    mid, rad = (lo + hi) / 2, (hi - lo) / 2
    return cl + Al @ mid - np.abs(Al) @ rad, cu + Au @ mid + np.abs(Au) @ rad


def _crown(net: Net, lo, hi, C, slope):
    ibp = _ibp(net, lo, hi)
    relax, pre = [], []
    for k in range(len(net.Ws) - 1):
        zl, zu = _backward(net, relax, k, np.eye(net.Ws[k].shape[0]), lo, hi)
        zl, zu = np.maximum(zl, ibp[k][0]), np.minimum(zu, ibp[k][1])
        pre.append((zl, zu))
        relax.append(_relaxation(zl, zu, slope))
    lower, upper = _backward(net, relax, len(net.Ws) - 1, C, lo, hi)
    return lower, upper, pre


def crown_bounds(
    net: Net,
    lo: np.ndarray,
    hi: np.ndarray,
    C: np.ndarray | None = None,
    lower_slope: str = "adaptive",
) -> tuple[np.ndarray, np.ndarray]:
    """CROWN bounds ``(lower, upper)``, each (m,), of C·f(x) over the box [lo, hi].

    Args:
        net: the network (interval biases allowed).
        lo, hi: the input box, (n_0,) each.
        C: (m, n_L) specification matrix; ``None`` is the identity (bounds of the logits).
        lower_slope: slope of the unstable ReLUs' lower line: ``"adaptive"`` (1 if u >= -l
            else 0) or ``"parallel"`` (u / (u - l), parallel to the upper line).
    """
    net, lo, hi = _check_box(net, lo, hi)
    C = _check_C(C, net.n_out)
    slope = check_choice("lower_slope", lower_slope, SLOPES)
    lower, upper, _ = _crown(net, lo, hi, C, slope)
    return lower, upper


def milp_bounds(
    net: Net,
    lo: np.ndarray,
    hi: np.ndarray,
    C: np.ndarray | None = None,
    time_limit: float = 60.0,
    big_m: str = "crown",
) -> tuple[np.ndarray, np.ndarray]:
    """Exact bounds ``(lower, upper)`` of C·f(x) over [lo, hi] by a big-M MILP (HiGHS).

    Each unstable ReLU a = max(z, 0) with l < 0 < u gets a binary δ and a >= z, a >= 0,
    a <= z - l(1 - δ), a <= u δ, with l, u from CROWN (``big_m="crown"``, fewer binaries) or
    from IBP alone (``big_m="ibp"``: a check that shares no code with CROWN); interval biases
    are continuous variables in their box. One MILP per row of C and side, solved to a zero
    relative gap; the reported value is HiGHS's dual bound (sound even when ``time_limit``
    seconds stop the solve). Tiny networks only: the number of binaries is the number of
    unstable neurons.
    """
    net, lo, hi = _check_box(net, lo, hi)
    C = _check_C(C, net.n_out)
    time_limit = check_positive("time_limit", time_limit)
    big_m = check_choice("big_m", big_m, BIG_M)
    return _milp(net, lo, hi, C, time_limit, big_m=big_m)


def _milp(net, lo, hi, C, time_limit, upper_too=True, which=None, stop_at=None, big_m="crown"):
    """The MILP of :func:`milp_bounds`; ``which`` limits the rows of C solved (the others get
    -inf/inf), ``stop_at``: stop after the first row whose lower bound is <= it."""
    ibp_all = _ibp(net, lo, hi)
    ibp_out = ibp_all[-1]
    if big_m == "crown":
        pre = _crown(net, lo, hi, np.eye(net.n_out), "adaptive")[2]
    else:
        pre = ibp_all[:-1]
    var_lo, var_hi, integ = list(lo), list(hi), [0] * len(lo)
    rows, cols, vals, b_lo, b_hi = [], [], [], [], []
    n_rows = 0

    def new_vars(lows, highs, integer=0):
        start = len(var_lo)
        var_lo.extend(lows)
        var_hi.extend(highs)
        integ.extend([integer] * len(lows))
        return np.arange(start, start + len(lows))

    def add_row(coef: dict, low: float, high: float):
        nonlocal n_rows
        for c, v in coef.items():
            rows.append(n_rows)
            cols.append(c)
            vals.append(v)
        b_lo.append(low)
        b_hi.append(high)
        n_rows += 1

    a_idx = np.arange(len(lo))  # variable index of each entry of a_k (-1: the constant 0)
    z_idx = a_idx
    for k, (W, b) in enumerate(zip(net.Ws, net.bs, strict=True)):
        zl, zu = pre[k] if k < len(pre) else ibp_out
        z_idx = new_vars(zl - 1e-9, zu + 1e-9)
        d = net.ds[k]
        d_idx = new_vars(d[0], d[1]) if d is not None else None
        for i in range(W.shape[0]):  # z_i - W_i a - d_i = b_i
            coef = {int(z_idx[i]): 1.0}
            for j in np.nonzero((W[i] != 0) & (a_idx >= 0))[0]:
                coef[int(a_idx[j])] = coef.get(int(a_idx[j]), 0.0) - W[i, j]
            if d_idx is not None:
                coef[int(d_idx[i])] = -1.0
            add_row(coef, b[i], b[i])
        if k == len(net.Ws) - 1:
            break
        new_a = np.full(W.shape[0], -1)
        for i in range(W.shape[0]):
            if zu[i] <= 0:
                continue
            if zl[i] >= 0:
                new_a[i] = z_idx[i]
                continue
            ai, di = new_vars([0.0], [zu[i]])[0], new_vars([0.0], [1.0], 1)[0]
            add_row({int(ai): 1.0, int(z_idx[i]): -1.0}, 0.0, np.inf)
            add_row({int(ai): 1.0, int(z_idx[i]): -1.0, int(di): -zl[i]}, -np.inf, -zl[i])
            add_row({int(ai): 1.0, int(di): -zu[i]}, -np.inf, 0.0)
            new_a[i] = ai
        a_idx = new_a
    n_var = len(var_lo)
    A = sp.csr_matrix((vals, (rows, cols)), shape=(n_rows, n_var))
    cons = LinearConstraint(A, b_lo, b_hi)
    bnds = Bounds(np.array(var_lo), np.array(var_hi))
    integrality = np.array(integ)
    lower, upper = np.full(C.shape[0], -np.inf), np.full(C.shape[0], np.inf)
    sides = ((1.0, lower), (-1.0, upper)) if upper_too else ((1.0, lower),)
    for r in range(C.shape[0]) if which is None else which:
        crow = C[r]
        for sign, out in sides:
            c = np.zeros(n_var)
            c[z_idx] = sign * crow
            res = milp(
                c,
                constraints=cons,
                bounds=bnds,
                integrality=integrality,
                options={"time_limit": time_limit, "mip_rel_gap": 0.0},
            )
            # the dual bound, not res.fun (the best feasible point): sound at any gap
            best = getattr(res, "mip_dual_bound", None)
            if best is None or not np.isfinite(best):
                best = res.fun if res.status == 0 and res.fun is not None else -np.inf
            out[r] = sign * best
        if stop_at is not None and lower[r] <= stop_at:
            break
    return lower, upper
