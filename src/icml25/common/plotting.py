"""The book's one plotting style, and one colour per method name across all chapters.

* seaborn ``whitegrid`` with the colour-blind-safe palette, white figure and axes background (the
  figures stay readable in the book's dark mode), fixed font sizes, PNG at 100 dpi.
* :func:`method_color` gives every method the same colour on every page: ``"ours"`` and the
  paper's own method names always get the first palette colour; other names are either in
  :data:`METHOD_COLORS` or get a stable colour derived from the name.
"""

from __future__ import annotations

import zlib
from collections.abc import Iterable, Sequence

import matplotlib as mpl
import seaborn as sns

from icml25.common.checks import check_choice

#: Colour-blind-safe palette (seaborn "colorblind", 10 colours), as hex strings.
PALETTE: tuple[str, ...] = tuple(sns.color_palette("colorblind", 10).as_hex())

#: Figure sizes in inches, by name: one panel, a wide row of panels, a tall grid.
FIGSIZES: dict[str, tuple[float, float]] = {
    "single": (5.5, 3.8),
    "wide": (11.0, 3.8),
    "grid": (11.0, 7.0),
}

#: Fixed colours of methods that recur across chapters. "ours" is always PALETTE[0].
METHOD_COLORS: dict[str, str] = {
    "ours": PALETTE[0],
    # sparse PCA
    "Thresholding": PALETTE[0],
    "Two-stage": PALETTE[2],
    "Thresholding (authors' start)": PALETTE[9],
    "Two-stage (authors' start)": PALETTE[5],
    "Random k-sparse": PALETTE[7],
    "Diagonal thresholding": PALETTE[1],
    "Covariance thresholding": PALETTE[4],
    "Truncated power": PALETTE[2],
    "SparsePCA (scikit-learn)": PALETTE[7],
    # two-stage RCT designs
    "Sample split": PALETTE[0],
    "Prior (Beta)": PALETTE[2],
    "Prior (flat)": "#7a0177",
    "Best arm (k=1)": PALETTE[4],
    "Single stage": PALETTE[1],
    "Random k": PALETTE[7],
    "Omniscient k": "#000000",
    # SPEX baselines
    "LIME": PALETTE[1],
    "Banzhaf": PALETTE[2],
    "KernelSHAP": PALETTE[4],
    # RSTIB-MLP forecasters
    "RSTIB-MLP": PALETTE[0],
    "RSTIB-MLP (mean path)": PALETTE[9],
    "MLP": PALETTE[1],
    "STGCN-lite": PALETTE[2],
    "last value": PALETTE[7],
    "seasonal naive": "#555555",
    "oracle": "#000000",
}


def set_style() -> None:
    """Apply the book's matplotlib/seaborn style (idempotent)."""
    sns.set_theme(style="whitegrid", palette=list(PALETTE), font_scale=1.0)
    mpl.rcParams.update(
        {
            "figure.facecolor": "white",
            "axes.facecolor": "white",
            "savefig.facecolor": "white",
            "figure.dpi": 100,
            "savefig.dpi": 100,
            "figure.figsize": FIGSIZES["single"],
            "font.size": 10,
            "axes.titlesize": 11,
            "axes.labelsize": 10,
            "legend.fontsize": 9,
            "xtick.labelsize": 9,
            "ytick.labelsize": 9,
            "figure.autolayout": False,
            "figure.constrained_layout.use": True,
        }
    )
    # Inline figures in Jupyter: PNG at the dpi above (keeps the committed notebooks small).
    try:
        from matplotlib_inline.backend_inline import set_matplotlib_formats

        set_matplotlib_formats("png")
    except ImportError:  # pragma: no cover - outside IPython
        pass


def method_color(name: str) -> str:
    """Return the hex colour of method ``name``; the same name always gets the same colour.

    Raises:
        TypeError: if ``name`` is not a string.
        ValueError: if ``name`` is empty.
    """
    if not isinstance(name, str):
        raise TypeError(f"name must be a str, got {type(name).__name__}")
    if not name.strip():
        raise ValueError("name must be a non-empty method name")
    if name in METHOD_COLORS:
        return METHOD_COLORS[name]
    # Stable across runs and machines (unlike hash()); skip PALETTE[0], reserved for "ours".
    return PALETTE[1 + zlib.crc32(name.encode("utf-8")) % (len(PALETTE) - 1)]


def method_colors(names: Iterable[str]) -> dict[str, str]:
    """Return ``{name: method_color(name)}`` for a seaborn ``palette=`` argument."""
    if isinstance(names, str) or not isinstance(names, Iterable):
        raise TypeError(f"names must be an iterable of method names, got {type(names).__name__}")
    names = list(names)
    if not all(isinstance(name, str) and name.strip() for name in names):
        raise ValueError(f"names must hold non-empty method names (str), got {names!r}")
    return {name: method_color(name) for name in names}


def figsize(kind: str = "single") -> tuple[float, float]:
    """Return a figure size from :data:`FIGSIZES` (``"single"``, ``"wide"`` or ``"grid"``)."""
    return FIGSIZES[check_choice("kind", kind, sorted(FIGSIZES))]


def panel_labels(axes: Sequence, start: str = "a") -> None:
    """Write panel letters (a), (b), ... in the top-left corner of each axes (a 1-D sequence,
    such as the array of ``plt.subplots(1, n)`` or ``axes.ravel()`` of a grid)."""
    from matplotlib.axes import Axes

    if not isinstance(start, str):
        raise TypeError(f"start must be a str, got {type(start).__name__}")
    if len(start) != 1 or not start.isalpha():
        raise ValueError(f"start must be a single letter, got {start!r}")
    if isinstance(axes, Axes) or not isinstance(axes, Iterable):
        raise TypeError(f"axes must be a sequence of matplotlib Axes, got {type(axes).__name__}")
    axes = list(axes)
    if not all(isinstance(ax, Axes) for ax in axes):
        raise TypeError("axes must hold matplotlib Axes only (pass axes.ravel() for a grid)")
    for i, ax in enumerate(axes):
        ax.text(
            -0.02,
            1.02,
            f"({chr(ord(start) + i)})",
            transform=ax.transAxes,
            ha="right",
            va="bottom",
            fontweight="bold",
        )


def plain_log_ticks(ax, axis: str = "both") -> None:
    """Label log-scaled axes with plain numbers (0.1, 3, 40) instead of powers of ten."""
    from matplotlib.axes import Axes
    from matplotlib.ticker import FuncFormatter, NullFormatter

    if not isinstance(ax, Axes):
        raise TypeError(f"ax must be a matplotlib Axes, got {type(ax).__name__}")
    check_choice("axis", axis, ("x", "y", "both"))
    fmt = FuncFormatter(lambda value, _pos: f"{value:g}")
    targets = [ax.xaxis, ax.yaxis] if axis == "both" else [getattr(ax, f"{axis}axis")]
    for target in targets:
        target.set_major_formatter(fmt)
        target.set_minor_formatter(NullFormatter())
