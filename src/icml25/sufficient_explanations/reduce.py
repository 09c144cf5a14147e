"""The abstraction: CORA's neuron merging (Ladner & Althoff), in numpy.

Per hidden layer k (first to last), on the network reduced so far: IBP gives the
post-activation bounds [l_i, u_i] = ReLU of the pre-activation bounds; a neuron is *merged*
if [l_i, u_i] ⊆ [b - tol, b + tol] for a bucket b. For ReLU the static bucket is {0}, so the
test reads u_i <= tol. CORA binary-searches tol until the kept fraction is <= ρ and merges
every neuron with u_i <= tol, ties included; here exactly the m_k - ceil(ρ m_k) =
floor((1 - ρ) m_k) neurons with the smallest u_i are merged (ties by index), so ceil(ρ m_k)
are kept. A merged neuron's row leaves W_k, its column leaves W_{k+1}, and its effect becomes
the interval bias W_{k+1}[:, merged]·[l, u] added to d_{k+1}: every output of the original
network lies inside the reduced network's output set (soundness), and a property verified on
the reduced network holds on the original.
"""

from __future__ import annotations

import math

import numpy as np

from icml25.common.checks import check_choice, check_instance, check_real
from icml25.sufficient_explanations.bounds import _affine_interval, _check_box
from icml25.sufficient_explanations.net import Net

__all__ = ["reduce_network"]

BUCKETS = ("static", "dynamic")


def reduce_network(
    net: Net,
    lo: np.ndarray,
    hi: np.ndarray,
    rate: float,
    bucket: str = "static",
    interval_bias: bool = True,
) -> Net:
    """The abstract network that keeps ceil(rate·m_k) neurons of every hidden layer k.

    Args:
        net: the network (it may already carry interval biases).
        lo, hi: the input box the abstraction is built for, (n_0,) each.
        rate: ρ in (0, 1], the fraction of neurons kept; 1 returns an unchanged copy.
        bucket: ``"static"`` merges the neurons with the smallest post-activation upper bound
            (the bucket {0}); ``"dynamic"`` those with the narrowest post-activation interval
            (each neuron's own centre as its bucket: a simplification of CORA's option, which
            draws up to 100 neurons' centres as buckets).
        interval_bias: ``False`` is the **unsound** ablation used as a control: the merged
            neurons are simply deleted, their interval bias dropped.

    Returns:
        A :class:`Net` with ``ds[k]`` set where neurons were merged into layer k.
    """
    net, lo, hi = _check_box(net, lo, hi)
    rate = check_real("rate", rate, 0.0, 1.0, low_open=True)
    bucket = check_choice("bucket", bucket, BUCKETS)
    interval_bias = check_instance("interval_bias", interval_bias, bool)
    Ws = [W.copy() for W in net.Ws]
    bs = [b.copy() for b in net.bs]
    ds = [None if d is None else (d[0].copy(), d[1].copy()) for d in net.ds]
    if rate == 1.0:
        return Net(Ws, bs, ds)
    a_lo, a_hi = lo, hi
    for k in range(len(Ws) - 1):
        zl, zu = _affine_interval(Ws[k], bs[k], ds[k], a_lo, a_hi)
        al, au = np.maximum(zl, 0.0), np.maximum(zu, 0.0)
        m = al.size
        keep_n = max(1, math.ceil(rate * m - 1e-12))  # 1e-12: 0.3 * 10 = 3.0000000000000004
        key = au if bucket == "static" else au - al
        merged = np.zeros(m, dtype=bool)
        merged[np.argsort(key, kind="stable")[: m - keep_n]] = True
        W2 = Ws[k + 1][:, merged]
        dl, du = _affine_interval(W2, np.zeros(W2.shape[0]), ds[k + 1], al[merged], au[merged])
        if interval_bias:
            ds[k + 1] = (dl, du)
        Ws[k], bs[k] = Ws[k][~merged], bs[k][~merged]
        if ds[k] is not None:
            ds[k] = (ds[k][0][~merged], ds[k][1][~merged])
        Ws[k + 1] = Ws[k + 1][:, ~merged]
        a_lo, a_hi = al[~merged], au[~merged]
    return Net(Ws, bs, ds)
