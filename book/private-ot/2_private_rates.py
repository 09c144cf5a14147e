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
# # Private rates: a term in $n$ and a term in $n\varepsilon$
#
# The paper's bound is $n^{-1} \vee n^{-2\alpha/(2\alpha-2+d)} \vee
# (n\varepsilon)^{-2\alpha/(2\alpha+d)}$: a statistical term in $n$ and a privacy term in
# $n\varepsilon$. For our finite, smooth net ($\alpha = \infty$) it reads $n^{-1} \vee
# (n\varepsilon)^{-1}$ up to logs. This notebook measures the squared $L^2(P)$ map error of the
# private estimate over $n \in \{10^2, 10^3, 10^4\}$ and $\varepsilon \in \{0.1, 1, 10, 100,
# \infty\}$ (100 data sets per $n$ and seed, a fresh planted $\theta_0$ each, 3 seeds), and checks
# the structure: the error falls with $n$ without privacy; where privacy dominates it depends on
# $n\varepsilon$ only; large $\varepsilon$ costs nothing. The exponents are not measurable on a
# finite net and are not claimed. The reference level is the **best data-free guess**: the
# identity map ($\theta = 0$, the centre of the net), which is exactly 0-DP. Only the cells
# below it are worth their privacy cost; where privacy dominates at small $n\varepsilon$ the
# private estimate is no better than this guess.
#
# At `small` scale the notebook takes well under a minute on one CPU thread.

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
from icml25.common.claims import claim, greater, less, within
from icml25.private_ot import (
    PotentialFamily,
    bump_family,
    candidate_errors,
    error_grid,
    make_grid,
    private_potential,
    report_noisy_min,
    sample_problem,
    transport_map,
)

t_start = time.perf_counter()
SCALE = setup(seed=0)
CONFIG = {
    "small": {"N": 32, "levels": 5, "ns": [100, 1000, 10000], "reps": 100, "seeds": 3},
    "large": {"N": 48, "levels": 7, "ns": [100, 1000, 10000, 30000], "reps": 100, "seeds": 3},
}[SCALE]
CONTROL_REPS = 30  # data sets per n and seed for the control without the conjugate term
EPSS = [0.1, 1.0, 10.0, 100.0, np.inf]
CENTERS = np.array([[0.15, 0.15], [-0.15, -0.15], [0.15, -0.15], [-0.15, 0.15]])
points, axis = make_grid(CONFIG["N"])
family = bump_family(axis, CENTERS, 0.12, np.linspace(-0.006, 0.006, CONFIG["levels"]))
E = candidate_errors(family)  # (M, M) squared L2(P) distances between candidate maps
zero = int(np.flatnonzero(np.all(family.thetas == 0, 1))[0])  # theta = 0: the identity map
zero_level = float(E[zero].mean())  # error of the identity against a uniform planted truth
assert np.isclose(zero_level, E.mean(1).min()), "the identity is the best constant guess"
print(SCALE, CONFIG, f"{family.size} candidates; best data-free guess {zero_level:.2e}")

# %% [markdown]
# ## The private map at $\varepsilon = 1$
#
# The authors' figure: the true displacement $\nabla\varphi_0(x) - x$ next to the private one,
# at their $n = 2\cdot10^5$, and at $n = 10^4$. Their figure is judged by eye; here the match is
# a number, the relative squared error $\|\hat T - T_0\|^2 / \|T_0 - \mathrm{id}\|^2$ (the map
# error over the squared size of the true displacement), on 3 data sets at $n = 2\cdot10^5$.

# %%
target = np.array([0.006, -0.006, 0.003, 0.0])  # the lattice point nearest to it at `large`
t0 = int(np.argmin(np.abs(family.thetas - target).sum(1)))
T0 = transport_map(family.phi[t0], axis)
ests, err_quiver, rel_q, rel_q_ctrl, idx_q = {}, {}, [], [], []
for s in range(CONFIG["seeds"]):  # 3 data sets at the authors' n; the first is drawn in (b)
    rng = np.random.default_rng(s)
    X, Y = sample_problem(family, t0, 200_000, rng)
    est = private_potential(X, Y, family, eps=1.0, rng=rng)
    j_ctrl = report_noisy_min(est.scores, est.sensitivity, 0.01, rng)  # same data, eps = 0.01
    rel_q.append(E[est.index, t0] / E[zero, t0])
    idx_q.append(est.index)
    rel_q_ctrl.append(E[j_ctrl, t0] / E[zero, t0])
    if s == 0:
        ests[200_000] = est
rng = np.random.default_rng(100)
X, Y = sample_problem(family, t0, 10_000, rng)
ests[10_000] = private_potential(X, Y, family, eps=1.0, rng=rng)
rel_q, rel_q_ctrl = np.array(rel_q), np.array(rel_q_ctrl)
exact_q = int(np.sum(np.array(idx_q) == t0))  # data sets whose argmin is the truth itself
# the relative squared error of the nearest wrong candidate: what one lattice step off costs
nearest_wrong = float(np.min(np.delete(E[:, t0], t0)) / E[zero, t0])
for n_q, e in ests.items():
    err_quiver[n_q] = float(np.mean(((e.map(points) - T0(points)) ** 2).sum(1)))
print("relative squared error at n = 2e5, eps = 1:", np.round(rel_q, 4), "eps = 0.01:",
      np.round(rel_q_ctrl, 3))  # fmt: skip
sub = slice(None, None, 2)
G = points.reshape(CONFIG["N"], CONFIG["N"], 2)[sub, sub].reshape(-1, 2)
fig, axes = plt.subplots(1, 3, figsize=(14, 4.6), sharey=True)
for ax, T, title in [
    (axes[0], T0, f"true, $\\theta_0$ = {family.thetas[t0]}"),
    (axes[1], ests[200_000].map, f"private, $n = 2\\cdot10^5$: {ests[200_000].theta}"),
    (axes[2], ests[10_000].map, f"private, $n = 10^4$: {ests[10_000].theta}"),
]:
    D = T(G) - G
    ax.quiver(
        G[:, 0],
        G[:, 1],
        D[:, 0],
        D[:, 1],
        angles="xy",
        scale_units="xy",
        scale=1 / 3,
        color=plotting.PALETTE[0],
    )
    ax.set(title=title, xlabel="$x_1$", aspect="equal")
axes[0].set_ylabel("$x_2$")
plotting.panel_labels(axes)
fig.suptitle("Displacement $\\nabla\\varphi(x) - x$ (arrows 3x), $\\varepsilon = 1$")
plt.show()
step = family.thetas[:, 0].max() / ((CONFIG["levels"] - 1) / 2)  # the lattice step
off_coords = {n: int(np.sum(~np.isclose(ests[n].theta, family.thetas[t0]))) for n in ests}
off_steps = {n: float(np.abs(ests[n].theta - family.thetas[t0]).max() / step) for n in ests}
print({n: f"{e:.2e}" for n, e in err_quiver.items()}, "coordinates off:", off_coords, off_steps)
glue("off_coords_big", off_coords[200_000], display=False)
glue("off_steps_big", off_steps[200_000], display=False)
glue("off_coords_1e4", off_coords[10_000], display=False)
glue("off_steps_1e4", off_steps[10_000], display=False)
glue("rel_q_max", float(rel_q.max()), display=False)
glue("rel_q_ctrl", float(rel_q_ctrl.mean()), display=False)
glue("exact_q", exact_q, display=False)
glue("nearest_wrong", nearest_wrong, display=False)
glue("n_sets_cell", CONFIG["reps"] * CONFIG["seeds"], display=False)
# a description of the measured result for the prose (the verdict below is fixed per scale)
glue("rel_q_side", "above" if rel_q.max() >= 0.1 else "below", display=False)
glue("n_cand", family.size, display=False)

# %% [markdown]
# *What to see:* at the authors' $n = 2\cdot10^5$ the private map (b) is off the true one (a)
# in {glue:text}`off_coords_big` of the 4 coordinates of $\theta$ (at most
# {glue:text}`off_steps_big:.0f` lattice step); at $n = 10^4$ (c) this draw is off in
# {glue:text}`off_coords_1e4` coordinates (at most {glue:text}`off_steps_1e4:.0f` steps). One
# draw is an illustration: over 3 data sets at $n = 2\cdot10^5$ the relative squared error is at
# most {glue:text}`rel_q_max:.3f`, {glue:text}`rel_q_side` the 10 % that the claim below asks
# for (and {glue:text}`rel_q_ctrl:.2f` on average for the same data at $\varepsilon = 0.01$);
# panel (a) below averages over 300 data sets per cell. The arrows are drawn 3x their length (the
# authors' figure uses `scale=1`): the displacements are a few thousandths of the box.
#
# ## Error against $n$ for each $\varepsilon$
#
# Scores are computed once per data set and reused for every $\varepsilon$ (the noise is drawn
# afresh). The grey line is the error of a uniformly random candidate; the black dotted line is
# the best data-free guess, the identity map ($\theta = 0$), which is 0-DP: a private estimate
# above it is worse than ignoring the data.

# %%
runs = [
    error_grid(family, CONFIG["ns"], EPSS, CONFIG["reps"], seed=s, progress=False)
    for s in range(CONFIG["seeds"])
]
err = np.stack([r["err"] for r in runs])  # (seeds, n, eps, reps)
exact = np.stack([r["exact"] for r in runs])
random_level = float(np.mean([r["random"] for r in runs]))
ns = np.array(CONFIG["ns"])
mean = err.mean(-1)  # (seeds, n, eps)
se = err.std(-1, ddof=1) / np.sqrt(err.shape[-1])
pooled = err.transpose(1, 2, 0, 3).reshape(len(ns), len(EPSS), -1)
pm, pse = pooled.mean(-1), pooled.std(-1, ddof=1) / np.sqrt(pooled.shape[-1])
labels = [f"$\\varepsilon = {e:g}$" if np.isfinite(e) else "$\\varepsilon = \\infty$" for e in EPSS]
colors = [plotting.PALETTE[i] for i in (3, 2, 1, 4, 0)]

fig, axes = plt.subplots(1, 3, figsize=(14, 4.2))
for b, (lab, c) in enumerate(zip(labels, colors, strict=True)):
    axes[0].errorbar(ns, pm[:, b], yerr=2 * pse[:, b], marker="o", color=c, label=lab, capsize=3)
    axes[1].errorbar(
        ns * EPSS[b] if np.isfinite(EPSS[b]) else ns * 1e3,
        pm[:, b],
        yerr=2 * pse[:, b],
        marker="o",
        color=c,
        label=lab,
        capsize=3,
        ls="-" if np.isfinite(EPSS[b]) else ":",
    )
    axes[2].plot(
        ns,
        exact.transpose(1, 2, 0, 3).reshape(len(ns), len(EPSS), -1)[:, b].mean(-1),
        marker="o",
        color=c,
        label=lab,
    )
for ax in axes[:2]:
    ax.axhline(random_level, color="grey", lw=1, label="random candidate")
    ax.axhline(zero_level, color="k", ls=":", lw=1.5, label="identity map (data-free, 0-DP)")
    ax.set(xscale="log", yscale="log", ylabel="squared $L^2(P)$ map error")
guide = pm[0, -1] * (ns / ns[0]) ** -1.0
axes[0].plot(ns, guide, "k--", lw=1, label="theory $n^{-1}$ (shape only)")
axes[0].set(
    xlabel="$n$",
    title=f"error against $n$ (mean ± 2 SE, {CONFIG['seeds'] * CONFIG['reps']} data sets)",
)
nes = np.logspace(1, 6, 10)
axes[1].plot(
    nes,
    pm[CONFIG["ns"].index(10000), EPSS.index(1.0)] * (nes / 1e4) ** -1.0,
    "k--",
    lw=1,
    label="theory $(n\\varepsilon)^{-1}$ (shape only)",
)
axes[1].set_ylim(pm.min() / 3, random_level * 2)
axes[1].legend(fontsize=7, loc="lower left")
axes[1].set(
    xlabel="$n\\varepsilon$ ($\\varepsilon = \\infty$ drawn at $10^3 n$)",
    title="error against $n\\varepsilon$",
)
axes[2].set(
    xscale="log",
    xlabel="$n$",
    ylabel="fraction of exact recoveries",
    title="exact recovery of $\\theta_0$",
    ylim=(-0.02, 1.02),
)
axes[0].legend(fontsize=8)
axes[2].legend(fontsize=8)
plotting.panel_labels(axes)
plt.show()


def cell_name(b, a):
    e = "inf" if not np.isfinite(EPSS[b]) else f"{EPSS[b]:g}"
    mantissa, exponent = f"{ns[a]:.0e}".split("e")  # 30000 -> "3e4", not "1e4"
    return f"({mantissa}e{int(exponent)}, {e})"


# a cell beats the data-free guess if its pooled mean is below it by more than 2 pooled SE
beats = [cell_name(b, a) for b in range(len(EPSS)) for a in range(len(ns))
         if pm[a, b] + 2 * pse[a, b] < zero_level]  # fmt: skip
worse = [cell_name(b, a) for b in range(len(EPSS)) for a in range(len(ns))
         if pm[a, b] - 2 * pse[a, b] > zero_level]  # fmt: skip
tie = [cell_name(b, a) for b in range(len(EPSS)) for a in range(len(ns))
       if abs(pm[a, b] - zero_level) <= 2 * pse[a, b]]  # fmt: skip
print("(n, eps) below the identity map:", ", ".join(beats))
print("above it:", ", ".join(worse))
print("not distinguishable from it:", ", ".join(tie))
glue("cells_beat", ", ".join(beats), display=False)
glue("cells_worse", ", ".join(worse), display=False)
glue("cells_tie", ", ".join(tie) if tie else "none", display=False)
# is the pair at n eps = 1e4 below the identity map (more than 2 SE)? Described, not asserted
pair_cells = [cell_name(EPSS.index(1.0), 2), cell_name(EPSS.index(10.0), 1)]
pair_beats = [c in beats for c in pair_cells]
pair_text = {
    (False, False): "no better than the identity map",
    (True, True): "below the identity map",
}.get(tuple(pair_beats), "below the identity map in one of its two cells only")
glue("pair_text", pair_text, display=False)

# %% [markdown]
# *What to see:* (a) without privacy the error falls steeply with $n$; each private curve follows it
# until the privacy term takes over, and $\varepsilon = 0.1$ stays at the level of a random
# candidate (grey) up to $n = 10^4$. The dotted line is the identity map, the best guess that
# ignores the data (0-DP, error {glue:text}`zero_level:.2e`). Only these cells $(n, \varepsilon)$
# are below it by more than 2 SE: {glue:text}`cells_beat`. These are above it (worse than ignoring
# the data): {glue:text}`cells_worse`; not distinguishable from it: {glue:text}`cells_tie`. (b)
# Plotted against $n\varepsilon$, the private curves fall onto one another where privacy dominates,
# each leaving the common curve where it reaches its own $\varepsilon = \infty$ floor. On this
# net the pair at $n\varepsilon = 10^4$, $(10^4, 1)$ and $(10^3, 10)$, agrees at a level
# {glue:text}`pair_text` (at `small` no better: the collapse shows the $n\varepsilon$ structure
# of the privacy term, not a useful estimate); the next section tries the fallback.
# (c) Exact recovery (a log axis could not show an exact 0 error): the oracle
# net contains the truth, so at large $n\varepsilon$ the estimate is the truth itself. The dashed
# lines show the *shape* of the theoretical rates, placed by hand.

# %% [markdown]
# ## The fallback: a wider net, and a control without the conjugate
#
# On the {glue:text}`n_cand`-net the pair that shows the collapse sits at a level
# {glue:text}`pair_text`. The chapter's issue names a fallback: more repetitions (cheap, the
# scores are reused; 100 data sets per cell instead of 30, used above) and lattice levels
# $\pm0.012$ instead of $\pm0.006$ (still convex: $|\theta_k| < w^2 \approx 0.0144$), where the
# candidates are farther apart and the privacy term gives way at a smaller $n\varepsilon$. Both
# were chosen on data seeds 10 to 12, not on the seeds 0 to 2 reported here. The control for the
# fall with $n$ removes the ingredient that carries the data's information about $\theta_0$:
# scores without the conjugate term, $\frac1n\sum_i[\varphi(X_i)]_C$ ($X$ does not depend on
# $\theta_0$), selected without noise.

# %%
wide = bump_family(axis, CENTERS, 0.12, np.linspace(-0.012, 0.012, CONFIG["levels"]))
E_w = candidate_errors(wide)
zero_w = int(np.flatnonzero(np.all(wide.thetas == 0, 1))[0])
zero_level_w = float(E_w[zero_w].mean())
NS_W, EPSS_W = CONFIG["ns"][:3], [1.0, 10.0, np.inf]
err_w = np.stack(
    [
        error_grid(wide, NS_W, EPSS_W, CONFIG["reps"], seed=s, progress=False)["err"]
        for s in range(CONFIG["seeds"])
    ]
)  # (seeds, n, eps, reps)
no_conj = PotentialFamily(axis, points, family.thetas, family.phi, np.zeros_like(family.phistar))
err_nc = np.stack(
    [
        error_grid(no_conj, [ns[0], ns[2]], [np.inf], CONTROL_REPS, seed=s, progress=False)["err"]
        for s in range(CONFIG["seeds"])
    ]
)[:, :, 0]  # (seeds, n, reps)
mean_w, se_w = err_w.mean(-1), err_w.std(-1, ddof=1) / np.sqrt(err_w.shape[-1])
pm_w = err_w.transpose(1, 2, 0, 3).reshape(len(NS_W), len(EPSS_W), -1)
pm_w, pse_w = pm_w.mean(-1), pm_w.std(-1, ddof=1) / np.sqrt(pm_w.shape[-1])
fig, ax = plt.subplots(figsize=(6.5, 4.2))
for b, (lab, c) in enumerate(
    zip(["$\\varepsilon = 1$", "$\\varepsilon = 10$"], colors[1:3], strict=True)
):
    ax.errorbar(np.array(NS_W) * EPSS_W[b], pm_w[:, b], yerr=2 * pse_w[:, b], marker="o",
                color=c, label=f"levels $\\pm0.012$, {lab}", capsize=3)  # fmt: skip
ax.plot(NS_W, pm_w[:, 2], ":", marker="o", color=colors[4], label="levels $\\pm0.012$, "
        "$\\varepsilon = \\infty$ (drawn at $n$)")  # fmt: skip
ax.axhline(zero_level_w, color="k", ls=":", lw=1.5, label="identity map (data-free, 0-DP)")
ax.axhline(float(E_w.mean()), color="grey", lw=1, label="random candidate")
ax.set(xscale="log", yscale="log", xlabel="$n\\varepsilon$", ylabel="squared $L^2(P)$ map error",
       title="the wider net: error against $n\\varepsilon$ (mean ± 2 SE)")  # fmt: skip
ax.legend(fontsize=8)
plt.show()
print("wider net, pooled mean (n x eps):\n", np.array2string(pm_w, precision=2))
print("no conjugate term, mean error at n = 1e2, 1e4:", err_nc.mean((0, 2)))
glue("zero_level_w", zero_level_w, display=False)
glue("err_w_1_1e4", float(pm_w[2, 0]), display=False)
glue("err_w_10_1e3", float(pm_w[1, 1]), display=False)

# %% [markdown]
# *What to see:* on the wider net the points at equal $n\varepsilon$ ($10^4$: $(10^4, 1)$ and
# $(10^3, 10)$, errors {glue:text}`err_w_1_1e4:.2e` and {glue:text}`err_w_10_1e3:.2e`) fall on
# one another well below the identity map ({glue:text}`zero_level_w:.2e`): the collapse now
# happens where the private estimate is worth its privacy cost. The claims below use this net
# for the collapse and the 625-net for everything else.

# %%
runtime_s = time.perf_counter() - t_start
ni = {n: i for i, n in enumerate(CONFIG["ns"])}
ei = {e: i for i, e in enumerate(EPSS)}
inf, big = ei[np.inf], ni[10000]
# a cell where every data set is recovered exactly has mean error 0: the fall is then counted
# against the smallest non-zero mean a cell can have (one data set one candidate off), a lower
# bound on it, so that no record holds inf
resolution = E[E > 0].min() / err.shape[-1]
fall_inf = mean[:, ni[100], inf] / np.maximum(mean[:, big, inf], resolution)
fall_01 = mean[:, ni[100], ei[0.1]] / mean[:, big, ei[0.1]]
fall_nc = err_nc[:, 0].mean(-1) / err_nc[:, 1].mean(-1)  # no conjugate term, eps = inf


def ratio(num, den):
    """num / den elementwise, 0 where both are 0 (two cells identical in every data set differ
    by 0 SE; the old code gave NaN there)."""
    num, den = np.asarray(num, float), np.asarray(den, float)
    return np.divide(num, den, out=np.zeros_like(num), where=(den > 0) | (num != 0))


def z(a, b, m=mean, e=se):
    """Per-seed difference of two cells at different n in standard errors (unpaired: cells at
    different n have independent data sets)."""
    diff = m[:, a[0], a[1]] - m[:, b[0], b[1]]
    return ratio(diff, np.hypot(e[:, a[0], a[1]], e[:, b[0], b[1]]))


z_pair4 = z((big, ei[1.0]), (ni[1000], ei[10.0]))  # n eps = 1e4
z_pair3 = z((ni[1000], ei[1.0]), (ni[100], ei[10.0]))  # n eps = 1e3
z_same_eps = z((big, ei[10.0]), (ni[1000], ei[10.0]))  # same eps, n eps 1e5 vs 1e4
z_same_1 = z((big, ei[1.0]), (ni[1000], ei[1.0]))  # same eps = 1, n eps 1e4 vs 1e3
zw_pair4 = z((2, 0), (1, 1), mean_w, se_w)  # wider net, n eps = 1e4: (1e4, 1) vs (1e3, 10)
zw_pair3 = z((1, 0), (0, 1), mean_w, se_w)  # n eps = 1e3: (1e3, 1) vs (1e2, 10)
zw_same_1 = z((2, 0), (1, 0), mean_w, se_w)  # same eps = 1 at ten times the n
zw_same_10 = z((2, 1), (1, 1), mean_w, se_w)  # same eps = 10 at ten times the n
rel_pair_w = np.stack([mean_w[:, 2, 0], mean_w[:, 1, 1]]).max(0) / zero_level_w  # (seeds,)
lower = mean[:, ni[1000], ei[0.1]] / zero_level  # n eps = 1e2
lower_inf = mean[:, ni[1000], inf] / zero_level


def z_paired(a, e1, e2):
    """Per-seed difference of two eps at the same n in SE of the per-data-set difference (the
    two cells share the data sets and the truths: scores are reused across eps)."""
    d = err[:, a, e1] - err[:, a, e2]  # (seeds, reps)
    return ratio(d.mean(-1), d.std(-1, ddof=1) / np.sqrt(d.shape[-1]))


z_100 = z_paired(big, ei[100.0], inf)
z_1 = z_paired(big, ei[1.0], inf)
useful = mean[:, big, [ei[10.0], ei[100.0], inf]].max(-1) / zero_level  # (seeds,)
useful_1 = mean[:, big, ei[1.0]] / zero_level
slope = np.polyfit(np.log(ns), np.log(pm[:, inf]), 1)[0]
pair_both = {(False, False): "no better than", (True, True): "below"}.get(
    tuple(pair_beats), "not both below"
)
# Verdicts fixed per scale before the result is read: those at `large` are the ones its single
# measured run (N = 48, 2401 candidates) gave, the same as `small` where none is named.
VERDICTS = {
    "small": {"quiver_matches": "not reproduced", "large_eps_free": "reproduced"},
    "large": {"quiver_matches": "partly", "large_eps_free": "not reproduced"},
}[SCALE]
claim(
    "private-ot/2_private_rates/error_falls_with_n",
    "Without privacy (eps = inf) the map error falls at least 10x from n = 1e2 to 1e4 in every "
    "seed; with the conjugate term removed from the scores (no information on theta_0) it does "
    "not",
    paper="error <~ n^-1 v n^(-2a/(2a-2+d)) v (n eps)^(-2a/(2a+d)) (theorem)",
    value=fall_inf,
    check=greater(10.0),
    control=("scores without the conjugate term", fall_nc),
    verdict="partly",
    caveat=f"structure (a term in n) reproduced, exponents not measurable: an oracle net (it "
    f"contains the truth), finite and smooth (alpha = inf); fitted log-log slope at eps = inf "
    f"{slope:.2f}, not asserted",
    fmt=".2f",
    numbers={"fall at eps = 0.1": float(fall_01.mean())},
)
claim(
    "private-ot/2_private_rates/privacy_term_in_n_eps",
    "Where privacy dominates, the error depends on n eps only: on the wider net (levels +-0.012, "
    "the issue's fallback) (n, eps) = (1e4, 1) and (1e3, 10) agree within 3 SE in every seed; "
    "eps = 1 at ten times the n (n eps = 1e4 against 1e3) does not",
    paper="privacy term (n eps)^(-2a/(2a+d)), matched by a lower bound",
    value=np.abs(zw_pair4),
    check=within(0.0, 3.0),
    control=("(1e4, 1) against (1e3, 1)", np.abs(zw_same_1)),
    verdict="partly",
    caveat="structure (a term in n eps) reproduced, exponents not measurable; the fallback "
    "(levels +-0.012, 100 data sets per cell) was chosen on seeds 10-12, not on the reported "
    f"ones; there both cells are {rel_pair_w.mean():.2f} of the identity map's error; on the "
    f"{family.size}-net the pair agrees as well (|z| {np.abs(z_pair4).mean():.2f}, control "
    f"{np.abs(z_same_1).mean():.1f}) but both cells ({pm[big, ei[1.0]]:.2e}, "
    f"{pm[ni[1000], ei[10.0]]:.2e}) are {pair_both} the identity map ({zero_level:.2e})",
    fmt=".2f",
    numbers={
        "|z| at n eps = 1e3, wider net": float(np.abs(zw_pair3).mean()),
        "|z| (1e4, 10) against (1e3, 10), wider net": float(np.abs(zw_same_10).mean()),
        f"{family.size}-net |z| (1e4, 1) against (1e3, 10)": float(np.abs(z_pair4).mean()),
        f"{family.size}-net |z| (1e4, 1) against (1e3, 1)": float(np.abs(z_same_1).mean()),
    },
)
claim(
    "private-ot/2_private_rates/quiver_matches",
    "At the authors' n = 2e5 and eps = 1 the private map matches the true one: its squared error "
    "is below 10 % of the squared size of the true displacement in every data set (3; the "
    "threshold fixed before the run)",
    paper="the private quiver map at eps = 1, n = 2e5 matches the true one (official notebook's "
    "figure, judged by eye)",
    value=rel_q,
    check=less(0.1, label="10 % of the displacement"),
    verdict=VERDICTS["quiver_matches"],
    control=("same data, eps = 0.01", rel_q_ctrl)
    if VERDICTS["quiver_matches"] != "not reproduced"
    else None,
    over="data sets",
    seeds=len(rel_q),
    caveat=(
        f"below 10 % in {int(np.sum(rel_q < 0.1))} of {len(rel_q)} data sets (relative squared "
        f"errors {', '.join(f'{r:.3f}' for r in rel_q)}); the argmin is the truth itself in "
        f"{exact_q} of {len(rel_q)}, and the nearest wrong candidate costs {nearest_wrong:.3f}: "
        "whether a lattice step off passes the fixed 10 % depends on the lattice's step as much "
        "as on the estimator (an oracle net that contains the truth, one planted theta_0); at "
        f"eps = 0.01 on the same data {rel_q_ctrl.mean():.2f}"
        + (
            ""
            if SCALE == "small"
            else "; verdict of the one measured large run (at small, 625 candidates, a step "
            "off costs more than 10 % and the check fails)"
        )
    ),
    fmt=".3g",
    numbers={"map error at 2e5 (first data set)": err_quiver[200_000]},
)
claim(
    "private-ot/2_private_rates/privacy_floor",
    "Lower bound, as far as one estimator can show it: at n eps = 1e2 (n = 1e3, eps = 0.1) the "
    "private estimate is no better than the data-free identity map in every seed; without "
    "privacy at the same n it is",
    paper="a private Fano/Assouad lower bound: no eps-DP estimator beats the (n eps) term up to "
    "logs",
    value=lower,
    check=greater(1.0, label="the identity map's error (ratio 1)"),
    control=("same n, eps = inf", lower_inf),
    verdict="illustrated",
    caveat="a lower bound holds for every eps-DP estimator and cannot be measured by running "
    "one; this shows only that ours does not escape the privacy term at small n eps",
    fmt=".3g",
    numbers={
        "ratio at (1e2, 1), n eps = 1e2": float(mean[:, ni[100], ei[1.0]].mean() / zero_level)
    },
)
claim(
    "private-ot/2_private_rates/large_eps_free",
    f"At n = 1e4, eps = 100 is within 3 SE (paired over the {CONFIG['reps']} data sets) of the "
    "non-private error in every seed; eps = 1 is not",
    paper="the privacy term vanishes once (n eps) dominates n",
    value=np.abs(z_100),
    check=within(0.0, 3.0),
    control=("eps = 1", np.abs(z_1)) if VERDICTS["large_eps_free"] == "reproduced" else None,
    verdict=VERDICTS["large_eps_free"],
    caveat=None
    if SCALE == "small"
    else (
        f"verdict of the one measured large run (N = 48, 2401 candidates): eps = 100 is within "
        f"3 SE of eps = inf in {int(np.sum(np.abs(z_100) <= 3))} of {len(z_100)} seeds (|z| "
        f"{', '.join(f'{v:.2f}' for v in np.abs(z_100))}; eps = 1: |z| "
        f"{np.abs(z_1).mean():.1f}): on the finer net, candidates a lattice step apart differ in "
        "score by less, which is likely why the noise at eps = 100 still moves some estimates off "
        "the truth; at "
        "small (625 candidates) it holds in every seed"
    ),
    fmt=".2f",
)
claim(
    "private-ot/2_private_rates/beats_data_free",
    "At n = 1e4, the private estimate at eps = 10, 100 and inf has a lower error than the best "
    "data-free (0-DP) guess, the identity map, in every seed; at eps = 1 it does not",
    paper="consistency: the error goes to 0 as n eps grows (no number in the paper)",
    value=useful,
    check=less(1.0, label="the identity map's error (ratio 1)"),
    control=("eps = 1, n = 1e4", useful_1),
    verdict="reproduced",
    fmt=".3g",
    numbers={"identity map's error": zero_level, "random candidate's error": random_level},
)
# at `small` the pair at n eps = 1e4 is no better than the identity map (the prose and the
# caveat say which at `large`, from pair_text and pair_both)
assert SCALE != "small" or not any(pair_beats), pair_beats
monotone = bool(np.all(np.diff(pm[big]) <= 2 * np.hypot(pse[big][1:], pse[big][:-1])))
assert monotone, pm[big]
assert abs(pm[big, ei[0.1]] / random_level - 1) < 0.25, (pm[big, ei[0.1]], random_level)
glue("err_inf_1e4", float(pm[big, inf]), display=False)
glue("err_1_1e4", float(pm[big, ei[1.0]]), display=False)
assert np.all(mean[:, [ni[1000], big], inf] < zero_level), "eps = inf must beat the identity"
glue("err_01_1e4", float(pm[big, ei[0.1]]), display=False)
glue("random_level", random_level, display=False)
glue("zero_level", zero_level, display=False)
glue("err_10_1e3", float(pm[ni[1000], ei[10.0]]), display=False)
glue("slope_inf", float(slope), display=False)
glue("exact_inf_1e4", float(exact[:, big, inf].mean()), display=False)
glue("err_quiver_big", err_quiver[200_000], display=False)
glue("err_quiver", err_quiver[10_000], display=False)
glue("rel_pair_w", float(rel_pair_w.mean()), display=False)
glue("runtime_s", runtime_s, display=False)
print(f"runtime {runtime_s:.0f} s")
