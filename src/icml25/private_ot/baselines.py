"""The squared L²(P) map error and the non-private POT baselines."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from icml25.common.checks import check_choice, check_finite_array, check_positive
from icml25.private_ot.mechanisms import check_samples

__all__ = ["OT_METHODS", "map_l2_error", "ot_baseline"]

OT_METHODS = ("emd", "sinkhorn")


def _values(name: str, T: object, x: np.ndarray) -> np.ndarray:
    if callable(T):
        try:
            out = np.asarray(T(x), dtype=float)
        except (ValueError, TypeError) as err:
            raise ValueError(f"{name} cannot be evaluated at x_eval {x.shape}: {err}") from None
    else:
        out = check_finite_array(name, T, ndim=2)
    if out.shape != x.shape:
        raise ValueError(f"{name} must give an array of shape {x.shape} at x_eval, got {out.shape}")
    if not np.all(np.isfinite(out)):
        raise ValueError(f"{name} must give finite values at x_eval")
    return out


def map_l2_error(T_hat, T_true, x_eval: np.ndarray) -> float:
    """mean_i ‖T̂(x_i) - T(x_i)‖², the squared L²(P) error for x_eval (m, d) drawn from P.

    ``T_hat`` and ``T_true`` are maps (m, d) -> (m, d), or their values at ``x_eval`` (m, d).
    """
    x_eval = check_finite_array("x_eval", x_eval, ndim=2)
    a = _values("T_hat", T_hat, x_eval)
    b = _values("T_true", T_true, x_eval)
    return float(((a - b) ** 2).sum(1).mean())


def ot_baseline(
    X: np.ndarray, Y: np.ndarray, method: str = "emd", reg: float = 1e-2
) -> Callable[[np.ndarray], np.ndarray]:
    """A non-private map estimate: POT's barycentric map of the empirical plan from X to Y.

    ``method="emd"`` is ``ot.da.EMDTransport`` (exact OT), ``"sinkhorn"`` is
    ``ot.da.SinkhornTransport(reg_e=reg)``; new points are mapped as POT does (the nearest
    training source point, shifted). X, Y: (n, d); returns (m, d) -> (m, d). Raises ValueError
    naming ``reg`` if Sinkhorn's map is not finite (reg too small: the kernel underflows).
    """
    X, Y = check_samples(X, Y)
    method = check_choice("method", method, OT_METHODS)
    reg = check_positive("reg", reg)
    import ot  # lazily: POT imports its torch backend (seconds)

    if method == "emd":
        model = ot.da.EMDTransport()
    else:
        model = ot.da.SinkhornTransport(reg_e=reg, max_iter=2000)
    model.fit(Xs=X, Xt=Y)
    if not np.all(np.isfinite(model.coupling_)) or not np.all(
        np.isfinite(model.transform(Xs=X))
    ):  # POT only warns: an underflowing Sinkhorn kernel gives a NaN map
        raise ValueError(
            f"reg={reg} is too small for Sinkhorn on this data (the fitted map is not finite); "
            "use a larger reg or method='emd'"
        )
    d = X.shape[1]

    def T(x: np.ndarray) -> np.ndarray:
        x = check_finite_array("x", x, ndim=2)
        if x.shape[1] != d:
            raise ValueError(f"x must have shape (m, {d}), got {x.shape}")
        return np.asarray(model.transform(Xs=x), dtype=float)

    return T
