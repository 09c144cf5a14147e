"""Re-execute the book's notebooks in place: ``python -m icml25.common.notebooks [CHAPTER ...]``.

For each jupytext source ``book/<chapter>/<name>.py`` this writes the paired ``.ipynb`` from the
``.py`` (the source of truth), executes it top to bottom with nbclient in the notebook's own
folder, saves it with its outputs, and prints its wall time. ``make execute`` calls this with
``OMP_NUM_THREADS=1 TQDM_DISABLE=1``; never export ``MPLBACKEND`` (figures would vanish).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from icml25.common.paths import book_dir


def notebook_sources(chapters: list[str] | None = None, root: Path | None = None) -> list[Path]:
    """Return the jupytext ``.py`` sources under ``root`` (default ``book/``): all of them, or
    those of the named chapters.

    Raises:
        ValueError: if a named chapter is not a folder under ``root``.
    """
    root = book_dir() if root is None else Path(root)
    if chapters:
        folders = []
        for name in chapters:
            folder = root / name.strip("/").removeprefix("book/")
            if not folder.is_dir():
                raise ValueError(f"chapter {name!r} is not a folder under {root}")
            folders.append(folder)
    else:
        folders = [root]
    found: list[Path] = []
    for folder in folders:
        for path in sorted(folder.rglob("*.py")):
            if ".ipynb_checkpoints" in path.parts:
                continue
            if "jupytext" in path.read_text(encoding="utf-8")[:600]:
                found.append(path)
    return found


def execute(source: Path, timeout: int = 900, out: Path | None = None) -> float:
    """Pair ``source`` (.py) to its .ipynb, execute it and return the wall time (s).

    The executed notebook is written next to ``source`` (in place) or to ``out``. If a cell
    fails, nbclient's ``CellExecutionError`` is raised; a notebook written to ``out`` keeps its
    outputs up to the error, an in-place one is left as it was.
    """
    import jupytext
    import nbformat
    from nbclient import NotebookClient

    nb = jupytext.read(source)
    nb.metadata.setdefault(
        "kernelspec", {"display_name": "Python 3", "language": "python", "name": "python3"}
    )
    start = time.perf_counter()
    client = NotebookClient(
        nb,
        timeout=timeout,
        kernel_name="python3",
        resources={"metadata": {"path": str(source.parent)}},
    )
    ok = False
    try:
        client.execute()
        ok = True
    finally:
        elapsed = time.perf_counter() - start
        # Drop per-run noise from the metadata so that re-executions diff cleanly.
        for cell in nb.cells:
            cell.metadata.pop("execution", None)
        if ok or out is not None:  # a failed run never overwrites the committed notebook
            target = source.with_suffix(".ipynb") if out is None else Path(out)
            target.parent.mkdir(parents=True, exist_ok=True)
            nbformat.write(nb, target)
    return elapsed


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "chapters", nargs="*", help="chapter folders, e.g. sparse-pca (default: all)"
    )
    parser.add_argument("--timeout", type=int, default=900, help="per-cell timeout in seconds")
    args = parser.parse_args(argv)
    sources = notebook_sources(args.chapters or None)
    if not sources:
        print("no notebooks found", file=sys.stderr)
        return 1
    total = 0.0
    for source in sources:
        rel = source.relative_to(book_dir().parent).with_suffix(".ipynb")
        print(f"executing {rel} ...", flush=True)
        elapsed = execute(source, timeout=args.timeout)
        total += elapsed
        print(f"  {elapsed:7.1f} s  {rel}", flush=True)
    print(f"  {total:7.1f} s  total ({len(sources)} notebooks)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
