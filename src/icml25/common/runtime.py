"""Run-time set-up shared by every notebook: seeds, threads, device, plotting style, scale.

The scale switch is the environment variable ``ICML25_SCALE``: ``small`` (the default: CPU, CI and
the rendered book) or ``large`` (closer to the paper, meant for a GPU such as Colab's). Every
notebook reads all its sizes from one dict chosen with :func:`scale`.
"""

from __future__ import annotations

import os
import random
from typing import Any

import numpy as np

from icml25.common.checks import check_int, check_seed

SCALES: tuple[str, ...] = ("small", "large")
_ENV = "ICML25_SCALE"


def scale() -> str:
    """Return the scale named by ``ICML25_SCALE``: ``"small"`` (default) or ``"large"``.

    Surrounding blanks and case are ignored; an empty variable counts as unset.

    Raises:
        ValueError: if ``ICML25_SCALE`` holds anything else.
    """
    raw = os.environ.get(_ENV, "")
    value = raw.strip().lower() or "small"
    if value not in SCALES:
        raise ValueError(f"ICML25_SCALE must be one of {SCALES} (or unset), got {raw!r}")
    return value


def seed_everything(seed: int = 0) -> None:
    """Seed Python's ``random``, NumPy's legacy global generator and torch (if installed).

    Package code never relies on these global states (it takes an explicit ``seed``/``rng``);
    seeding them only protects library code that does.
    """
    seed = check_seed("seed", seed)
    random.seed(int(seed))
    np.random.seed(int(seed) % 2**32)  # noqa: NPY002 - the legacy global state, on purpose
    try:
        import torch
    except ImportError:  # pragma: no cover - torch is in requirements.txt
        return
    torch.manual_seed(int(seed))


def get_device() -> Any:
    """Return ``torch.device("cuda")`` when a GPU is visible, else ``torch.device("cpu")``.

    Returns the string ``"cpu"`` if torch is not installed.
    """
    try:
        import torch
    except ImportError:  # pragma: no cover
        return "cpu"
    return torch.device("cuda" if torch.cuda.is_available() else "cpu")


def setup(seed: int = 0, threads: int = 1) -> str:
    """Prepare a notebook: seed everything, use ``threads`` torch threads, set the book's style.

    One torch thread is the default on purpose: on a shared 2-core machine torch's OpenMP threads
    spin-wait and small models run 10-80x slower (see ``reference/toolchain.md``).

    Args:
        seed: seed for ``random``, NumPy and torch.
        threads: number of intra-op torch threads (>= 1).

    Returns:
        The scale, ``"small"`` or ``"large"`` (see :func:`scale`). The device is
        :func:`get_device`.
    """
    threads = check_int("threads", threads)
    seed = check_seed("seed", seed)
    current = scale()  # fail early on a bad ICML25_SCALE
    seed_everything(seed)
    try:
        import torch

        torch.set_num_threads(threads)
    except ImportError:  # pragma: no cover
        pass
    from icml25.common import plotting

    plotting.set_style()
    return current
