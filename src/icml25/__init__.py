"""ICML 2025 in Miniature: compact, tested re-implementations of ICML 2025 papers.

One subpackage per paper (``icml25.sparse_pca``, ...) and the shared helpers in
``icml25.common``. Notebooks in ``book/`` import from here and define no algorithm themselves.
"""

__version__ = "0.1.0"

import warnings as _warnings

# Some libraries (torch_geometric, shap) import ``tqdm.auto``, which warns inside Jupyter when
# ipywidgets is absent; the book uses plain text bars, so the notice is noise on every page.
_warnings.filterwarnings("ignore", message="IProgress not found")
