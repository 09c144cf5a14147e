# ---
# jupyter:
#   jupytext:
#     formats: ipynb,py:percent
#     text_representation:
#       extension: .py
#       format_name: percent
#       format_version: '1.3'
#       jupytext_version: 1.19.6
#   kernelspec:
#     display_name: Python 3 (ipykernel)
#     language: python
#     name: python3
# ---

# %% [markdown]
# # The semi-dual and its conjugate: why the net needs a refined Legendre transform
#
# The private estimator picks, from a finite net of smooth potentials, the one with the smallest
# clipped empirical semi-dual $S_n(\varphi) = \frac1n\sum_i \varphi(X_i) + \frac1n\sum_j
# \varphi^*(Y_j)$. This notebook builds the net ({glue:text}`n_cand` potentials
# $\varphi_\theta = |x|^2/2 + \sum_k \theta_k g_k$ with four Gaussian bumps $g_k$), shows the
# data and the maps, and checks the two facts the method stands on: the true potential
# $\varphi_0$ **minimises** the semi-dual,
# and the excess semi-dual $S(\varphi) - S(\varphi_0)$ **controls the map error**
# $\|\nabla\varphi - \nabla\varphi_0\|^2_{L^2(P)}$ (the stability inequality). Both fail with the
# plain discrete Legendre transform (a max over grid points, as in the authors' notebook): it
# cannot see displacements smaller than a grid cell. One Newton step from the discrete maximiser
# repairs it.
#
# At `small` scale the notebook takes well under a minute on one CPU thread. Set
# `os.environ["ICML25_SCALE"] = "large"` before the set-up cell for the finer grid and net.

# %% tags=["remove-cell"]
# Colab only: clone the book and install its package. Keeps Colab's own torch and numpy.
import os
import subprocess
import sys

if "google.colab" in sys.modules:
    REPO = os.environ.get(
        "ICML25_REPO", "https://github.com/icml25-in-miniature/icml25-in-miniature"
    )
    subprocess.run(
        f"git clone --depth 1 {REPO} /content/icml25"
        " && pip install -q --no-deps -e /content/icml25",
        shell=True,
        check=True,
    )

# %%
import time

import matplotlib.pyplot as plt
import numpy as np

from icml25.common import glue, plotting, setup
from icml25.common.claims import claim, greater
from icml25.private_ot import (
    bump_family,
    candidate_errors,
    hessian_range,
    make_grid,
    population_semi_dual,
    sample_problem,
    semi_dual_scores,
    transport_map,
)

t_start = time.perf_counter()
SCALE = setup(seed=0)
CONFIG = {
    "small": {"N": 32, "levels": 5, "n_big": 200_000, "data_seeds": 3, "truth_seeds": 3},
    "large": {"N": 48, "levels": 7, "n_big": 200_000, "data_seeds": 5, "truth_seeds": 5},
}[SCALE]
CENTERS = np.array([[0.15, 0.15], [-0.15, -0.15], [0.15, -0.15], [-0.15, 0.15]])
WIDTH, CLIP, LEVEL = 0.12, 0.3, 0.006
print(SCALE, CONFIG)

# %% [markdown]
# ## The net and the data
#
# The grid has $N$ points per axis on $[-\frac12, \frac12]^2$; every potential and its conjugate
# is stored as its $N^2$ grid values. The net is every $\theta \in \{-0.006, \dots, 0.006\}^4$
# ({glue:text}`n_levels` levels, {glue:text}`n_cand` candidates; 5 levels and $5^4 = 625$ at
# `small`, 7 and $7^4 = 2401$ at `large`; bumps of width $w = 0.12$ centred at
# $(\pm0.15, \pm0.15)$), built twice: with the plain conjugate and with the refined one.

# %%
points, axis = make_grid(CONFIG["N"])
levels = np.linspace(-LEVEL, LEVEL, CONFIG["levels"])
t0 = time.perf_counter()
family = bump_family(axis, CENTERS, WIDTH, levels, refine=True)
family_plain = bump_family(axis, CENTERS, WIDTH, levels, refine=False)
conj_s = time.perf_counter() - t0
E = candidate_errors(family)  # (M, M) squared L2(P) distances between candidate maps
zero = int(np.flatnonzero(np.all(family.thetas == 0, axis=1))[0])
extreme = int(np.flatnonzero(np.all(family.thetas == [LEVEL, -LEVEL, LEVEL, -LEVEL], axis=1))[0])
print(f"{family.size} candidates, conjugates of both nets in {conj_s:.1f} s")
glue("n_cand", family.size, display=False)
glue("n_levels", CONFIG["levels"], display=False)
print(f"random-candidate error level: {E.mean():.2e}; largest pairwise error: {E.max():.2e}")

# %%
rng = np.random.default_rng(0)
X, Y = sample_problem(family, extreme, 20_000, rng)
T = transport_map(family.phi[extreme], axis)
fig, axes = plt.subplots(1, 3, figsize=(12, 3.9))
edges = np.linspace(-0.5, 0.5, 21)
for ax, data, title in [
    (axes[0], X, "source $X \\sim P$ (uniform)"),
    (axes[1], Y, "target $Y = \\nabla\\varphi_0(U)$"),
]:
    h = ax.hist2d(
        data[:, 0], data[:, 1], bins=edges, density=True, cmap="viridis", vmin=0.4, vmax=1.6
    )
    ax.set(title=title, xlabel="$x_1$", ylabel="$x_2$", aspect="equal")
fig.colorbar(h[3], ax=axes[:2], label="density (histogram, 20,000 samples)")
sub = slice(None, None, 2)
G = points.reshape(CONFIG["N"], CONFIG["N"], 2)[sub, sub].reshape(-1, 2)
D = T(G) - G
step = int(np.flatnonzero(np.all(np.isclose(family.thetas, [levels[-2], 0, 0, 0]), axis=1))[0])
step_disp = float(np.abs(transport_map(family.phi[step], axis)(points) - points).max())
axes[2].quiver(
    G[:, 0],
    G[:, 1],
    D[:, 0],
    D[:, 1],
    angles="xy",
    scale_units="xy",
    scale=1 / 3,
    color=plotting.PALETTE[0],
)
axes[2].scatter(*CENTERS.T, marker="x", color="k", label="bump centres")
axes[2].set(
    title="displacement $\\nabla\\varphi_0(x) - x$ (arrows 3x)",
    xlabel="$x_1$",
    ylabel="$x_2$",
    aspect="equal",
)
axes[2].legend(loc="lower right")
plotting.panel_labels(axes)
cell = float(axis[1] - axis[0])
glue("dens_min", float(h[0].min()), display=False)  # h: the histogram of Y (the last panel)
glue("dens_max", float(h[0].max()), display=False)
glue("disp_cells", float(np.abs(D).max() / cell), display=False)
glue("step_cells", step_disp / cell, display=False)
fig.suptitle(
    f"The extreme candidate moves mass by up to {np.abs(D).max():.3f}, the nearest neighbours of "
    f"theta = 0 by {step_disp:.3f}: under half a grid cell ({axis[1] - axis[0]:.3f})"
)
plt.show()

# %% [markdown]
# *What to see:* (a) the source is uniform; (b) the target, pushed by the candidate with
# $\theta = (0.006, -0.006, 0.006, -0.006)$, is denser around the attracting bumps
# ($\theta_k > 0$, right) and thinner around the repelling ones (the histogram of $Y$ ranges
# from {glue:text}`dens_min:.2f` to {glue:text}`dens_max:.2f`, sampling noise included);
# (c) the displacement field, magnified three times. The largest displacement of this candidate
# is {glue:text}`disp_cells:.2f` grid cells, and the map of a nearest lattice neighbour of
# $\theta = 0$ moves points by {glue:text}`step_cells:.2f` of a cell: the regime in which the
# plain discrete Legendre transform goes blind.

# %% [markdown]
# ## Plain against refined conjugate, at $\theta_0 = 0$
#
# For $\varphi_\theta$ close to $|x|^2/2$, the maximiser of $\langle x, y\rangle -
# \varphi_\theta(x)$ moves by less than a cell, so the plain max over grid points stays at
# $x = y$ and returns $|y|^2/2 - \theta\cdot g(y)$: correct to first order in $\theta$, and missing
# the second-order term $\frac12|\nabla\varphi_\theta(y) - y|^2$, which is exactly what makes
# $S(\varphi_\theta) > S(\varphi_0)$. The refined transform adds $\frac12 r^\top H^{-1} r$ with
# $r = y - \nabla\varphi(x^\star)$ at the discrete maximiser $x^\star$ (exact for quadratics).
# We draw $n = 2\cdot10^5$ samples from $\theta_0 = 0$ and score all {glue:text}`n_cand`
# candidates both ways.

# %%
gaps = {"refined": [], "plain": []}
excess0 = {}
below = {"refined": [], "plain": []}
for seed in range(CONFIG["data_seeds"]):
    Xb, Yb = sample_problem(family, zero, CONFIG["n_big"], np.random.default_rng(100 + seed))
    for name, fam in [("refined", family), ("plain", family_plain)]:
        s = semi_dual_scores(fam, Xb, Yb, CLIP)
        others = np.delete(s - s[zero], zero)
        gaps[name].append(others.min())
        below[name].append(int((others <= 0).sum()))
        if seed == 0:
            excess0[name] = s - s[zero]
gaps = {k: np.array(v) for k, v in gaps.items()}
print("smallest S_n(phi) - S_n(phi_0) over the other candidates, per data seed:")
for name in gaps:
    print(
        f"  {name:8s}",
        np.array2string(gaps[name], precision=2),
        "at or below the truth:",
        below[name],
    )

# %%
fig, axes = plt.subplots(1, 2, figsize=(11, 4))
err0 = E[:, zero]
for name, color in [("refined", plotting.PALETTE[0]), ("plain", plotting.PALETTE[1])]:
    order = np.argsort(excess0[name])
    axes[0].plot(
        np.arange(family.size),
        excess0[name][order],
        ".",
        ms=3,
        color=color,
        label=f"{name} conjugate",
    )
    axes[1].scatter(err0, excess0[name], s=6, color=color, label=f"{name} conjugate")
axes[0].axhline(0, color="k", lw=0.8)
axes[0].set(
    xlabel="candidate, sorted by score",
    ylabel="$S_n(\\varphi) - S_n(\\varphi_0)$",
    title="$\\theta_0 = 0$, $n = 2\\cdot10^5$: plain ties or beats the truth",
)
axes[0].set_xlim(-5, 80)
axes[0].set_ylim(-3e-6, 3e-5)
xs = np.linspace(0, err0.max(), 10)
axes[1].plot(
    xs, xs / 2, "k--", lw=1, label="$\\frac{1}{2}\\|\\nabla\\varphi - \\nabla\\varphi_0\\|^2$"
)
axes[1].set(
    xlabel="map error $\\|\\nabla\\varphi - \\nabla\\varphi_0\\|^2_{L^2(P)}$",
    ylabel="$S_n(\\varphi) - S_n(\\varphi_0)$",
    title="excess semi-dual against map error",
)
axes[1].legend()
axes[0].legend()
plotting.panel_labels(axes)
plt.show()

# %% [markdown]
# *What to see:* (a) the 80 best-scoring candidates (of {glue:text}`n_cand`) at
# $\theta_0 = 0$, zoomed on the bottom: with the plain conjugate {glue:text}`n_below_plain:.0f`
# score at or below the truth (points under the black line), so even $n = 2\cdot10^5$
# noiseless samples cannot single out
# $\theta_0$; with the refined one the truth is the unique minimiser, by a clear gap. (b) inside the
# method: over all {glue:text}`n_cand` candidates, the refined excess semi-dual lies close to
# half the squared map error (dashed), the stability inequality in its sharpest form (for
# $\varphi_0 = |x|^2/2$, $S(\varphi) - S(\varphi_0) \approx
# \frac12\|\nabla\varphi - \nabla\varphi_0\|^2$); the plain one
# sits below it, flattened towards zero.
#
# ## The stability inequality on the population, for several $\theta_0$
#
# Without sampling noise (the semi-dual integrated by the midpoint rule on a $200^2$ grid), the
# ratio of excess semi-dual to map error over all other candidates, for $\theta_0 = 0$ and
# random lattice points.

# %%
truths = [zero] + list(np.random.default_rng(1).integers(family.size, size=CONFIG["truth_seeds"]))
ratios, shuffled, ratios_plain = [], [], []
perm_rng = np.random.default_rng(2)
for t in truths:
    mask = np.arange(family.size) != t
    excess = population_semi_dual(family, int(t), clip=CLIP)
    excess = (excess - excess[t])[mask]
    plain = population_semi_dual(family_plain, int(t), clip=CLIP)
    plain = (plain - plain[t])[mask]
    err = E[mask, t]
    ratios.append((excess / err).min())
    ratios_plain.append((plain / err).min())
    shuffled.append((perm_rng.permutation(excess) / err).min())
ratios, shuffled, ratios_plain = map(np.array, (ratios, shuffled, ratios_plain))
# the constant of the inequality, derived from the net: S(phi) - S(phi_0) is the mean of a
# Bregman divergence of phi*, which is 1/L-strongly convex when every Hessian of phi is <= L
mu_h, L_h = hessian_range(family)
c_stab = 1 / (2 * L_h)
print(f"Hessian eigenvalues of the net in [{mu_h:.3f}, {L_h:.3f}]: ratio bounds "
      f"[{c_stab:.3f}, {1 / (2 * mu_h):.3f}]")  # fmt: skip
print("theta_0:", [family.thetas[t].tolist() for t in truths])
print("min excess / error, refined:", np.round(ratios, 3))
print("                     plain :", np.round(ratios_plain, 3))
print("   refined, shuffled pairing:", np.round(shuffled, 4))

# %% [markdown]
# The constant is derived, not chosen: with $Q = \nabla\varphi_0 \# P$, $S(\varphi) -
# S(\varphi_0) = \int D_{\varphi^*}(\nabla\varphi_0(x), \nabla\varphi(x))\,dP(x)$, a Bregman
# divergence of $\varphi^*$, and $\varphi^*$ is $1/L$-strongly convex (and $1/\mu$-smooth) when
# the Hessians of $\varphi$ have eigenvalues in $[\mu, L]$. On this net (finite differences,
# `hessian_range`) $\mu$ = {glue:text}`hess_mu:.3f` and $L$ = {glue:text}`hess_L:.3f`, so the
# ratio must lie in $[1/(2L), 1/(2\mu)]$ = [{glue:text}`c_stab:.3f`,
# {glue:text}`c_stab_hi:.3f`] (away from the box's edges, where the conjugate over a box is
# not strongly convex). The refined ratio stays above $1/(2L)$ for every planted $\theta_0$
# (its smallest value is {glue:text}`ratio_min:.3f`); the plain one reaches 0 at $\theta_0 = 0$
# (a tie) and falls below the bound on average ({glue:text}`ratio_plain_mean:.3f`): without the
# Newton step the discrete semi-dual loses the second-order term that the inequality needs.

# %%
runtime_s = time.perf_counter() - t_start
_words = {3: "three", 5: "five"}
claim(
    "private-ot/1_semi_dual/truth_unique_minimiser",
    "With the refined Legendre transform, the planted potential theta_0 = 0 is the unique "
    f"minimiser of the clipped empirical semi-dual over the {family.size}-candidate net at "
    "n = 2e5 (the "
    "smallest gap to another candidate is > 0 in every data seed); with the plain transform it "
    "is not",
    paper="phi_0 minimises the semi-dual S (Kantorovich duality), the basis of the estimator",
    value=gaps["refined"],
    check=greater(0.0),
    control=("plain conjugate", gaps["plain"]),
    verdict="illustrated",
    caveat=f"a check of the discretisation (one theta_0 = 0, {_words[CONFIG['data_seeds']]} "
    "data seeds), not of the "
    "paper: Kantorovich duality makes phi_0 the minimiser; the authors' notebook uses the "
    "plain transform, under which it is not the unique one",
    fmt=".2e",
    numbers={
        "candidates at or below the truth, plain (seed 0)": below["plain"][0],
        "candidates at or below the truth, refined (seed 0)": below["refined"][0],
    },
)
claim(
    "private-ot/1_semi_dual/stability_inequality",
    "Stability inequality: on the population semi-dual, S(phi) - S(phi_0) >= ||grad phi - "
    "grad phi_0||^2 / (2L) for every candidate and each planted theta_0 (0 and random lattice "
    "points), L the largest Hessian eigenvalue of the net (derived, not chosen); with the plain "
    "conjugate (no Newton step) it does not hold",
    paper="||grad phi_hat - grad phi_0||^2 <~ S(phi_hat) - S(phi_0) for smooth, strongly convex "
    "phi_0 (from Divol et al. 2022)",
    value=ratios,
    check=greater(c_stab, label="1/(2L)"),
    control=("plain conjugate", ratios_plain),
    verdict="illustrated",
    caveat="true by construction for a net of smooth, strongly convex candidates: the ratio "
    "must lie in [1/(2L), 1/(2 mu)] (derived above), so this checks the discretisation and the "
    "conjugate's accuracy, not an estimator; the plain-conjugate control passes the bound at "
    f"{int(np.sum(ratios_plain > c_stab))} of {len(ratios_plain)} planted theta_0 and fails "
    "only on its mean",
    over="planted theta_0",
    seeds=len(ratios),
    fmt=".3f",
    numbers={
        "1/(2L)": c_stab,
        "1/(2 mu)": 1 / (2 * mu_h),
        "shuffled pairing, min ratio (mean)": float(shuffled.mean()),
    },
)
assert np.all(ratios <= 1 / (2 * mu_h)), (ratios, mu_h)
assert below["refined"][0] == 0 and below["plain"][0] > 0, below
glue("n_below_plain", below["plain"][0], display=False)
glue("gap_refined", float(gaps["refined"].mean()), display=False)
glue("ratio_min", float(ratios.min()), display=False)
glue("ratio_plain_mean", float(ratios_plain.mean()), display=False)
glue("hess_mu", mu_h, display=False)
glue("hess_L", L_h, display=False)
glue("c_stab", c_stab, display=False)
glue("c_stab_hi", 1 / (2 * mu_h), display=False)
glue("random_level", float(E.mean()), display=False)
glue("conj_s", conj_s, display=False)
glue("runtime_s", runtime_s, display=False)
print(f"runtime {runtime_s:.0f} s")
