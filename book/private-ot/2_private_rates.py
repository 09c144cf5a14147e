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
# \infty\}$ (30 data sets per $n$ and seed, a fresh planted $\theta_0$ each, 3 seeds), and checks
# the structure: the error falls with $n$ without privacy; where privacy dominates it depends on
# $n\varepsilon$ only; large $\varepsilon$ costs nothing. The exponents are not measurable on a
# finite net and are not claimed. The reference level is the **best data-free guess**: the
# identity map ($\theta = 0$, the centre of the net), which is exactly 0-DP. Only the cells
# below it are worth their privacy cost; where privacy dominates at small $n\varepsilon$ the
# private estimate is no better than this guess.
#
# At `small` scale the notebook takes under a minute on one CPU thread.

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
    bump_family,
    candidate_errors,
    error_grid,
    make_grid,
    private_potential,
    sample_problem,
    transport_map,
)

t_start = time.perf_counter()
SCALE = setup(seed=0)
CONFIG = {
    "small": {"N": 32, "levels": 5, "ns": [100, 1000, 10000], "reps": 30, "seeds": 3},
    "large": {"N": 48, "levels": 7, "ns": [100, 1000, 10000, 30000], "reps": 100, "seeds": 3},
}[SCALE]
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
# at their $n = 2\cdot10^5$, and at $n = 10^4$.

# %%
rng = np.random.default_rng(0)
t0 = int(np.flatnonzero(np.all(np.isclose(family.thetas, [0.006, -0.006, 0.003, 0.0]), 1))[0])
T0 = transport_map(family.phi[t0], axis)
ests, err_quiver = {}, {}
for n_q in (200_000, 10_000):
    X, Y = sample_problem(family, t0, n_q, rng)
    ests[n_q] = private_potential(X, Y, family, eps=1.0, rng=rng)
    err_quiver[n_q] = float(np.mean(((ests[n_q].map(points) - T0(points)) ** 2).sum(1)))
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

# %% [markdown]
# *What to see:* at the authors' $n = 2\cdot10^5$ the private map (b) is off the true one (a)
# in {glue:text}`off_coords_big` of the 4 coordinates of $\theta$ (at most
# {glue:text}`off_steps_big:.0f` lattice step); at $n = 10^4$ (c) this draw is off in
# {glue:text}`off_coords_1e4` coordinates (at most {glue:text}`off_steps_1e4:.0f` steps). One
# draw is an illustration; panel (a) below averages over 90 data sets. The arrows are drawn 3x
# their length (the authors' figure uses `scale=1`): the displacements are a few thousandths of
# the box.
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
axes[0].set(xlabel="$n$", title="error against $n$ (mean ± 2 SE, 90 data sets)")
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
    return f"(1e{int(np.log10(ns[a]))}, {e})"


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

# %% [markdown]
# *What to see:* (a) without privacy the error falls steeply with $n$; each private curve follows it
# until the privacy term takes over, and $\varepsilon = 0.1$ stays at the level of a random
# candidate (grey) up to $n = 10^4$. The dotted line is the identity map, the best guess that
# ignores the data (0-DP, error {glue:text}`zero_level:.2e`). Only these cells $(n, \varepsilon)$
# are below it by more than 2 SE: {glue:text}`cells_beat`. These are above it (worse than ignoring
# the data): {glue:text}`cells_worse`; not distinguishable from it: {glue:text}`cells_tie`. (b)
# Plotted against $n\varepsilon$, the private curves fall onto one another where privacy dominates,
# each leaving the common curve where it reaches its own $\varepsilon = \infty$ floor. The pair that
# the claim below compares, $(10^4, 1)$ and $(10^3, 10)$, agrees at a level no better than the
# identity map: the collapse shows the $n\varepsilon$ structure of the privacy term, not a useful
# estimate. The fallback for an unresolved collapse (more repetitions, levels $\pm0.012$)
# was not tried: the claim on it stays *partly*, and only the monotonicity in $\varepsilon$ is
# asserted beyond it. (c) Exact recovery (a log axis could not show an exact 0 error): the oracle
# net contains the truth, so at large $n\varepsilon$ the estimate is the truth itself. The dashed
# lines show the *shape* of the theoretical rates, placed by hand.

# %%
runtime_s = time.perf_counter() - t_start
ni = {n: i for i, n in enumerate(CONFIG["ns"])}
ei = {e: i for i, e in enumerate(EPSS)}
inf, big = ei[np.inf], ni[10000]
fall_inf = mean[:, ni[100], inf] / mean[:, big, inf]
fall_01 = mean[:, ni[100], ei[0.1]] / mean[:, big, ei[0.1]]


def z(a, b):
    """Per-seed difference of two cells of the grid in standard errors."""
    return (mean[:, a[0], a[1]] - mean[:, b[0], b[1]]) / np.hypot(
        se[:, a[0], a[1]], se[:, b[0], b[1]]
    )


z_pair4 = z((big, ei[1.0]), (ni[1000], ei[10.0]))  # n eps = 1e4
z_pair3 = z((ni[1000], ei[1.0]), (ni[100], ei[10.0]))  # n eps = 1e3
z_same_eps = z((big, ei[10.0]), (ni[1000], ei[10.0]))  # same eps, n eps 1e5 vs 1e4
z_same_1 = z((big, ei[1.0]), (ni[1000], ei[1.0]))  # same eps = 1, n eps 1e4 vs 1e3


def z_paired(a, e1, e2):
    """Per-seed difference of two eps at the same n in SE of the per-data-set difference (the
    two cells share the data sets and the truths: scores are reused across eps)."""
    d = err[:, a, e1] - err[:, a, e2]  # (seeds, reps)
    return d.mean(-1) / (d.std(-1, ddof=1) / np.sqrt(d.shape[-1]))


z_100 = z_paired(big, ei[100.0], inf)
z_1 = z_paired(big, ei[1.0], inf)
useful = mean[:, big, [ei[10.0], ei[100.0], inf]].max(-1) / zero_level  # (seeds,)
useful_1 = mean[:, big, ei[1.0]] / zero_level
slope = np.polyfit(np.log(ns), np.log(pm[:, inf]), 1)[0]
claim(
    "private-ot/2_private_rates/error_falls_with_n",
    "Without privacy (eps = inf) the map error falls at least 10x from n = 1e2 to 1e4 in every "
    "seed; at eps = 0.1 (privacy term dominating) it does not",
    paper="error <~ n^-1 v n^(-2a/(2a-2+d)) v (n eps)^(-2a/(2a+d)) (theorem)",
    value=fall_inf,
    check=greater(10.0),
    control=("eps = 0.1", fall_01),
    verdict="reproduced",
    caveat=f"an oracle net (it contains the truth), finite and smooth (alpha = inf): the "
    f"exponents are not measurable; fitted log-log slope at eps = inf {slope:.2f}, not asserted",
    fmt=".2f",
)
claim(
    "private-ot/2_private_rates/privacy_term_in_n_eps",
    "Where privacy dominates, the error depends on n eps only: (n, eps) = (1e4, 1) and (1e3, 10) "
    "agree within 3 SE in every seed; eps = 10 at ten times the n (n eps = 1e5 against 1e4) "
    "does not",
    paper="privacy term (n eps)^(-2a/(2a+d)), matched by a lower bound",
    value=np.abs(z_pair4),
    check=within(0.0, 3.0),
    control=("(1e4, 10) against (1e3, 10)", np.abs(z_same_eps)),
    verdict="partly",
    caveat="structure (a term in n v a term in n eps) reproduced, exponents not measurable; "
    f"weak power: at eps = 1 the same eps at ten times the n differs by only "
    f"{np.abs(z_same_1).mean():.1f} SE, so agreement within 3 SE there is not resolved; both "
    f"cells ({pm[big, ei[1.0]]:.2e}, {pm[ni[1000], ei[10.0]]:.2e}) are no better than the "
    f"data-free identity map ({zero_level:.2e}): the collapse is in a regime where the "
    "private estimate is not worth its privacy cost",
    fmt=".2f",
    numbers={
        "|z| at n eps = 1e3": float(np.abs(z_pair3).mean()),
        "|z| (1e4, 1) against (1e3, 1)": float(np.abs(z_same_1).mean()),
    },
)
claim(
    "private-ot/2_private_rates/large_eps_free",
    "At n = 1e4, eps = 100 is within 3 SE (paired over the 30 data sets) of the non-private "
    "error in every seed; eps = 1 is not",
    paper="the privacy term vanishes once (n eps) dominates n",
    value=np.abs(z_100),
    check=within(0.0, 3.0),
    control=("eps = 1", np.abs(z_1)),
    verdict="reproduced",
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
assert cell_name(ei[1.0], big) not in beats and cell_name(ei[10.0], ni[1000]) not in beats
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
glue("runtime_s", runtime_s, display=False)
print(f"runtime {runtime_s:.0f} s")
