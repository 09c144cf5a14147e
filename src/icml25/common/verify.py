"""Check a paper on your own machine: ``python -m icml25 check [CHAPTER ...]``.

Runs the chapters' notebooks headless (the machinery of ``make execute``: each jupytext ``.py``
executed top to bottom by nbclient), by default into a temporary copy so that the committed
notebooks stay as they are, then prints one table of the claims the notebooks recorded
(:mod:`icml25.common.claims`) with each notebook's wall time, and exits 1 if a claim failed or a
notebook raised. ``--scale large`` runs the larger configuration (meant for a GPU); ``--json``
writes the records, so that runs at two scales can be compared.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
from pathlib import Path
from typing import Any

from icml25.common.notebooks import execute, notebook_sources
from icml25.common.paths import book_dir
from icml25.common.runtime import SCALES
from icml25.common.scorecard import notebook_records

# Same environment as `make execute`: one thread (torch spin-waits on shared cores), no bars in
# the notebooks, no network.
_ENV = {
    "OMP_NUM_THREADS": "1",
    "TQDM_DISABLE": "1",
    "HF_HUB_OFFLINE": "1",
    "TRANSFORMERS_OFFLINE": "1",
}


def _chapters(root: Path) -> list[str]:
    return sorted(p.parent.name for p in notebook_sources(root=root))


def run_notebooks(
    chapters: list[str], root: Path, out_dir: Path | None, timeout: int
) -> list[dict[str, Any]]:
    """Execute the chapters' notebooks; return one result per notebook (records, time, error)."""
    from tqdm import tqdm

    results = []
    sources = notebook_sources(chapters or None, root=root)
    bar = tqdm(sources, desc="notebooks", unit="nb", file=sys.stderr, disable=None)
    for source in bar:
        rel = f"{source.parent.name}/{source.stem}"
        bar.set_postfix_str(rel)
        target = source.with_suffix(".ipynb") if out_dir is None else out_dir / f"{rel}.ipynb"
        error = None
        try:
            elapsed = execute(source, timeout=timeout, out=target)
        except Exception as err:  # a failing cell: report it, go on with the next notebook
            elapsed = float("nan")
            error = f"{type(err).__name__}: {_last_line(err)}"
        records = notebook_records(target) if target.exists() else []
        results.append({"notebook": rel, "seconds": elapsed, "error": error, "records": records})
    return results


def _last_line(err: Exception) -> str:
    text = str(err).strip()
    lines = [ln for ln in text.splitlines() if ln.strip()]
    for ln in reversed(lines):  # nbclient puts the cell's own exception on the last lines
        if "Error" in ln:
            return ln.strip()[:300]
    return (lines[-1] if lines else text)[:300]


def table(results: list[dict[str, Any]]) -> str:
    """One line per claim (id, measured, control, verdict, pass/fail), then notebook times."""
    rows = [("claim", "measured", "control", "verdict", "result")]
    for res in results:
        for rec in res["records"]:
            ctrl = rec.get("control")
            rows.append(
                (
                    rec["id"],
                    rec["measured"],
                    f"{ctrl['name']}: {ctrl['measured']}" if ctrl else "-",
                    rec["verdict"],
                    "pass" if rec["passed"] else "FAIL",
                )
            )
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    lines = ["  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)) for r in rows]
    lines.insert(1, "  ".join("-" * w for w in widths))
    lines.append("")
    for res in results:
        status = f"ERROR {res['error']}" if res["error"] else "ok"
        lines.append(f"{res['seconds']:8.1f} s  {res['notebook']}  {status}")
    return "\n".join(lines)


def failed(results: list[dict[str, Any]]) -> bool:
    """True if a notebook raised or a recorded claim did not pass."""
    return any(res["error"] or not all(r["passed"] for r in res["records"]) for res in results)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m icml25 check", description=__doc__.splitlines()[0]
    )
    parser.add_argument("chapters", nargs="*", help="chapter folders, e.g. sparse-pca (all)")
    parser.add_argument("--scale", choices=SCALES, default="small", help="ICML25_SCALE")
    parser.add_argument("--json", type=Path, help="write the claim records to this file")
    parser.add_argument(
        "--in-place", action="store_true", help="overwrite the committed .ipynb (make execute)"
    )
    parser.add_argument("--timeout", type=int, default=900, help="per-cell timeout (s)")
    parser.add_argument("--book", type=Path, default=None, help="book folder (default: book/)")
    args = parser.parse_args(argv)
    root = book_dir() if args.book is None else args.book
    known = _chapters(root)
    unknown = [c for c in args.chapters if c.strip("/").removeprefix("book/") not in known]
    if unknown:
        parser.error(f"unknown chapter(s) {', '.join(unknown)}; chapters: {', '.join(known)}")
    chapters = [c.strip("/").removeprefix("book/") for c in args.chapters]
    for key, value in _ENV.items():
        os.environ.setdefault(key, value)
    os.environ["ICML25_SCALE"] = args.scale  # the kernels inherit it
    with tempfile.TemporaryDirectory(prefix="icml25-check-") as tmp:
        out_dir = None if args.in_place else Path(tmp)
        results = run_notebooks(chapters, root, out_dir, args.timeout)
    print(table(results))
    if args.json:
        payload = {"scale": args.scale, "notebooks": results}
        args.json.write_text(json.dumps(payload, indent=1), encoding="utf-8")
    bad = failed(results)
    print("check FAILED" if bad else "check passed: every claim holds")
    return 1 if bad else 0


if __name__ == "__main__":
    raise SystemExit(main())
