"""Repository paths, found from the installed package rather than the working directory.

A notebook's kernel runs in the notebook's own folder (book build, nbval, Jupyter, Colab), so a
relative ``../../data`` breaks as soon as anything runs from elsewhere. Use :func:`data_dir`.
"""

from __future__ import annotations

import os
from pathlib import Path

_MARKER = "_config.yml"
_ENV = "ICML25_ROOT"


def _is_root(path: Path) -> bool:
    return (path / _MARKER).is_file() and (path / "src" / "icml25").is_dir()


def repo_root() -> Path:
    """Return the repository root (the folder holding ``_config.yml`` and ``src/icml25``).

    Looks, in order: above this installed file (editable install or a source checkout), above
    the current working directory, then at the environment variable ``ICML25_ROOT``.

    Raises:
        FileNotFoundError: if none of these is a repository root.
    """
    here = Path(__file__).resolve()
    for candidate in here.parents:
        if _is_root(candidate):
            return candidate
    for candidate in (Path.cwd(), *Path.cwd().parents):
        if _is_root(candidate):
            return candidate
    env = os.environ.get(_ENV)
    if env and _is_root(Path(env)):
        return Path(env).resolve()
    raise FileNotFoundError(
        "could not find the icml25 repository root (a folder with _config.yml and src/icml25); "
        f"install the package with `pip install -e .` from a clone or set {_ENV}"
    )


def data_dir() -> Path:
    """Return ``<repo>/data``, the folder of small committed data files."""
    return repo_root() / "data"


def book_dir() -> Path:
    """Return ``<repo>/book``, the folder of chapters."""
    return repo_root() / "book"
