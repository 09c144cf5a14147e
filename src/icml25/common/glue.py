"""Numbers for the book's prose: myst-nb ``glue`` where the book is built, a no-op elsewhere.

A chapter opener shows a notebook's number with ``{glue:text}`notebook.ipynb::key:.2f```. The
value is stored as plain Python (``np.float64(0.5)`` becomes ``0.5``), since myst-nb formats the
stored text and numpy 2 writes scalars as ``np.float64(...)``.
"""

from __future__ import annotations

from typing import Any

import numpy as np


def glue(name: str, value: Any, display: bool = False) -> None:
    """Record ``value`` under ``name`` in the notebook's outputs for the book's prose.

    On Colab or in plain Jupyter without myst-nb this does nothing.

    Raises:
        ValueError: if ``name`` is not a valid identifier (myst-nb needs one).
    """
    if not isinstance(name, str) or not name.isidentifier():
        raise ValueError(f"name must be an identifier such as 'err_ratio', got {name!r}")
    if isinstance(value, np.generic):
        value = value.item()
    try:
        from myst_nb import glue as _glue
    except ImportError:  # Colab / plain Jupyter
        return
    _glue(name, value, display=display)
