"""Grids, the discrete Legendre transform and the finite-difference transport map.

Grid values are flat arrays over :func:`make_grid` points: in d = 2, point ``i * n + j`` is
``(axis[i], axis[j])`` (``meshgrid(indexing="ij")``). ``phi`` is a potential φ on the grid, shape
(n**d,) or (M, n**d) for M candidates; ``phistar`` is its conjugate φ* on the same points.
"""

from __future__ import annotations

import numbers
from collections.abc import Callable

import numpy as np
from scipy.interpolate import RegularGridInterpolator

from icml25.common.checks import check_finite_array, check_int, check_real

__all__ = ["legendre_conjugate", "make_grid", "transport_map"]


def make_grid(
    n: int, d: int = 2, lo: float = -0.5, hi: float = 0.5
) -> tuple[np.ndarray, np.ndarray]:
    """The regular grid of ``n`` points per axis on [lo, hi]^d.

    Returns:
        ``points`` (n**d, d), point ``i * n + j`` = (axis[i], axis[j]) in d = 2, and ``axis`` (n,).
    """
    n = check_int("n", n, low=3)
    d = _check_d(d)
    lo = check_real("lo", lo)
    hi = check_real("hi", hi)
    if not hi > lo:
        raise ValueError(f"hi must be > lo, got lo={lo}, hi={hi}")
    axis = np.linspace(lo, hi, n)
    mesh = np.meshgrid(*([axis] * d), indexing="ij")
    return np.stack(mesh, -1).reshape(-1, d), axis


def _check_d(d: object) -> int:
    if isinstance(d, bool) or not isinstance(d, numbers.Integral):
        raise TypeError(f"d must be an int (1 or 2), got {type(d).__name__}")
    if int(d) not in (1, 2):
        raise ValueError(f"d must be 1 or 2, got {d}")
    return int(d)


def check_axis(axis: object) -> np.ndarray:
    """``axis`` as a finite, strictly increasing float array of at least 3 grid points."""
    axis = check_finite_array("axis", axis, ndim=1)
    if axis.size < 3:
        raise ValueError(f"axis must hold at least 3 grid points, got {axis.size}")
    if np.any(np.diff(axis) <= 0):
        raise ValueError("axis must be strictly increasing")
    return axis


def check_phi(phi: object, axis: np.ndarray, name: str = "phi", batch: bool = True) -> tuple:
    """``phi`` as a finite float array (n**d,) or (M, n**d) on the grid of ``axis``, and ``d``."""
    phi = check_finite_array(name, phi)
    if phi.ndim not in ((1, 2) if batch else (1,)):
        shapes = "(n**d,) or (M, n**d)" if batch else "(n**d,)"
        raise ValueError(f"{name} must have shape {shapes}, got {phi.shape}")
    n = axis.size
    if phi.shape[-1] == n:
        return phi, 1
    if phi.shape[-1] == n * n:
        return phi, 2
    raise ValueError(
        f"{name} must hold values on the grid (n or n**2 = {n} or {n * n} per row), "
        f"got shape {phi.shape}"
    )


def grid_points(axis: np.ndarray, d: int) -> np.ndarray:
    """The (n**d, d) points of the grid of ``axis`` (``meshgrid(indexing="ij")``, flattened)."""
    return np.stack(np.meshgrid(*([axis] * d), indexing="ij"), -1).reshape(-1, d)


def _gradient(values: np.ndarray, axis: np.ndarray, d: int) -> list[np.ndarray]:
    """Finite-difference gradient of (M, n, ..., n) grid values (second order at the edges)."""
    if d == 1:
        return [np.gradient(values, axis, axis=1, edge_order=2)]
    return list(np.gradient(values, axis, axis, axis=(1, 2), edge_order=2))


def _plain_conjugate(phi: np.ndarray, axis: np.ndarray, d: int) -> tuple[np.ndarray, np.ndarray]:
    """max over grid x of <x, y> - phi(x) for every grid y, and the flat index of the maximiser.

    No library has a discrete Legendre transform, so it is written here. In d = 2 the max over
    the product grid is taken one axis at a time (exact: a max over a product set), O(M n^3)
    instead of the O(M n^4) of the full (n^2, n^2) matrix of <x, y>.
    """
    m, n = phi.shape[0], axis.size
    if d == 1:
        t = axis[None, None, :] * axis[None, :, None] - phi[:, None, :]  # (M, y, x)
        return t.max(-1), t.argmax(-1)
    p = phi.reshape(m, n, n)  # [m, i1, i2]
    inner = np.empty((m, n, n))  # [m, i1, j2] = max_i2 a[i2] a[j2] - p[m, i1, i2]
    arg2 = np.empty((m, n, n), dtype=np.int64)
    for j2 in range(n):
        t = axis[None, None, :] * axis[j2] - p
        inner[:, :, j2] = t.max(-1)
        arg2[:, :, j2] = t.argmax(-1)
    out = np.empty((m, n, n))  # [m, j1, j2]
    arg1 = np.empty((m, n, n), dtype=np.int64)
    for j1 in range(n):
        t = axis[None, :, None] * axis[j1] + inner  # [m, i1, j2]
        out[:, j1, :] = t.max(1)
        arg1[:, j1, :] = t.argmax(1)
    i2 = np.take_along_axis(arg2, arg1, axis=1)  # arg2[m, arg1[m, j1, j2], j2]
    return out.reshape(m, n * n), (arg1 * n + i2).reshape(m, n * n)


def legendre_conjugate(phi: np.ndarray, axis: np.ndarray, refine: bool = True) -> np.ndarray:
    """The discrete Legendre transform φ*(y) = max_x <x, y> - φ(x) over the grid, at grid y.

    Args:
        phi: φ on the grid of ``axis``, shape (n**d,) or (M, n**d), d in {1, 2}.
        axis: the grid's 1-D axis (n,), n >= 3.
        refine: add one Newton step from the discrete maximiser x*: with r = y - ∇φ(x*) and
            H the Hessian at x* (both by ``np.gradient(edge_order=2)``), φ*(y) gains r^T H^-1 r / 2
            where H is positive definite. This makes the transform exact for quadratics (the
            plain one is below it by up to λmax(A) h² d / 8) and lets the semi-dual see
            displacements smaller than a grid cell.

    Returns:
        φ* on the same points, same shape as ``phi``.
    """
    axis = check_axis(axis)
    phi, d = check_phi(phi, axis)
    if not isinstance(refine, (bool, np.bool_)):
        raise TypeError(f"refine must be a bool, got {type(refine).__name__}")
    single = phi.ndim == 1
    p = phi[None] if single else phi
    m, n = p.shape[0], axis.size
    out, arg = _plain_conjugate(p, axis, d)
    if refine:
        shape = (m,) + (n,) * d
        grads = _gradient(p.reshape(shape), axis, d)
        hess = [_gradient(g, axis, d) for g in grads]  # hess[a][b] = ∂_b ∂_a φ
        points = grid_points(axis, d)
        if d == 1:
            h = np.take_along_axis(hess[0][0].reshape(m, -1), arg, 1)
            r = points[None, :, 0] - np.take_along_axis(grads[0].reshape(m, -1), arg, 1)
            gain = np.where(h > 0, 0.5 * r**2 / np.where(h > 0, h, 1.0), 0.0)
        else:
            g = [np.take_along_axis(gr.reshape(m, -1), arg, 1) for gr in grads]
            h11 = np.take_along_axis(hess[0][0].reshape(m, -1), arg, 1)
            h22 = np.take_along_axis(hess[1][1].reshape(m, -1), arg, 1)
            h12 = 0.5 * (
                np.take_along_axis(hess[0][1].reshape(m, -1), arg, 1)
                + np.take_along_axis(hess[1][0].reshape(m, -1), arg, 1)
            )
            r1 = points[None, :, 0] - g[0]
            r2 = points[None, :, 1] - g[1]
            det = h11 * h22 - h12**2
            pd = (det > 0) & (h11 > 0)
            safe = np.where(pd, det, 1.0)
            quad = (h22 * r1**2 - 2 * h12 * r1 * r2 + h11 * r2**2) / safe  # r^T H^-1 r
            gain = np.where(pd, 0.5 * quad, 0.0)
        out = out + gain
    return out[0] if single else out


def transport_map(phi: np.ndarray, axis: np.ndarray) -> Callable[[np.ndarray], np.ndarray]:
    """T = ∇φ: finite-difference gradient on the grid, multilinearly interpolated.

    Args:
        phi: one potential on the grid, shape (n**d,).
        axis: the grid's axis (n,).

    Returns:
        A function (m, d) -> (m, d); points outside the box are clipped to it first. Exact for
        quadratics inside the box (their gradient is linear, which both steps reproduce).
    """
    axis = check_axis(axis)
    phi, d = check_phi(phi, axis, batch=False)
    n = axis.size
    grads = _gradient(phi.reshape((1,) + (n,) * d), axis, d)
    values = np.stack([g[0] for g in grads], -1)  # (n, ..., n, d)
    interp = RegularGridInterpolator((axis,) * d, values, method="linear")
    lo, hi = float(axis[0]), float(axis[-1])

    def T(x: np.ndarray) -> np.ndarray:
        x = check_finite_array("x", x, ndim=2)
        if x.shape[1] != d:
            raise ValueError(f"x must have shape (m, {d}), got {x.shape}")
        return interp(np.clip(x, lo, hi))

    return T
