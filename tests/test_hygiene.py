"""Notebook hygiene (BOOK_GUIDE §5): pairs in sync, executed in order, in the toc, claim checks.

Plus the book's wiring: the Colab cell clones the repository named once in ``_config.yml``, and
every chapter opener names its notebooks.
"""

import json
import re
from pathlib import Path

import jupytext
import nbformat
import pytest
import yaml

from icml25.common import claims, scorecard
from icml25.common.scorecard import notebook_records

ROOT = Path(__file__).resolve().parents[1]
BOOK = ROOT / "book"


def _sources() -> list[Path]:
    return sorted(
        p
        for p in BOOK.rglob("*.py")
        if ".ipynb_checkpoints" not in p.parts and "jupytext" in p.read_text(encoding="utf-8")[:600]
    )


SOURCES = _sources()
NOTEBOOKS = sorted(p for p in BOOK.rglob("*.ipynb") if ".ipynb_checkpoints" not in p.parts)
IDS = [str(p.relative_to(ROOT)) for p in SOURCES]


def _toc_files() -> set[str]:
    toc = yaml.safe_load((ROOT / "_toc.yml").read_text())
    files: set[str] = {toc["root"]}

    def walk(entries):
        for entry in entries or []:
            if "file" in entry:
                files.add(entry["file"])
            walk(entry.get("sections"))
            walk(entry.get("chapters"))

    walk(toc.get("parts"))
    walk(toc.get("chapters"))
    return files


def test_book_has_notebooks():
    assert SOURCES, "no jupytext notebooks found under book/"


def test_every_ipynb_has_a_py_source():
    for nb in NOTEBOOKS:
        assert nb.with_suffix(".py").exists(), f"{nb} has no jupytext .py source"


@pytest.mark.parametrize("py", SOURCES, ids=IDS)
def test_pair_in_sync(py):
    ipynb = py.with_suffix(".ipynb")
    assert ipynb.exists(), f"missing pair: {ipynb} (run make execute)"
    a = [(c.cell_type, c.source.strip()) for c in jupytext.read(py).cells]
    b = [(c.cell_type, c.source.strip()) for c in nbformat.read(ipynb, as_version=4).cells]
    assert a == b, f"{py} and {ipynb.name} differ: run `make execute CHAPTER={py.parent.name}`"


@pytest.mark.parametrize("py", SOURCES, ids=IDS)
def test_executed_top_to_bottom_with_kernel_python3(py):
    nb = nbformat.read(py.with_suffix(".ipynb"), as_version=4)
    assert nb.metadata.get("kernelspec", {}).get("name") == "python3", "kernelspec must be python3"
    counts = [c.execution_count for c in nb.cells if c.cell_type == "code"]
    assert counts == list(range(1, len(counts) + 1)), f"{py}: not executed top to bottom in one run"
    for cell in nb.cells:
        if cell.cell_type == "code":
            errors = [o for o in cell.outputs if o.get("output_type") == "error"]
            assert not errors, f"{py}: a committed output is an error"


@pytest.mark.parametrize("py", SOURCES, ids=IDS)
def test_has_figures(py):
    nb = nbformat.read(py.with_suffix(".ipynb"), as_version=4)
    images = [
        o
        for c in nb.cells
        if c.cell_type == "code"
        for o in c.outputs
        if "image/png" in o.get("data", {})
    ]
    assert images, f"{py}: the committed notebook has no figure (was MPLBACKEND set?)"


@pytest.mark.parametrize("py", SOURCES, ids=IDS)
def test_in_toc(py):
    assert str(py.relative_to(ROOT).with_suffix("")) in _toc_files(), f"{py} is not in _toc.yml"


@pytest.mark.parametrize("py", SOURCES, ids=IDS)
def test_ends_in_a_claim_check(py):
    """The last code cell checks the notebook's claims with icml25.common.claims and glues."""
    code = [c.source for c in jupytext.read(py).cells if c.cell_type == "code"]
    last = code[-1]
    assert re.search(r"^\s*claim\(", last, re.M), f"{py}: the last code cell must call claim()"
    assert "from icml25.common.claims import" in "\n".join(code), f"{py}: import the helper"
    assert 'glue("runtime_s"' in last, f"{py}: the claim-check cell must glue runtime_s"
    nb = nbformat.read(py.with_suffix(".ipynb"), as_version=4)
    last_cell = [c for c in nb.cells if c.cell_type == "code"][-1]
    stored = [o for o in last_cell.outputs if claims.MIME_TYPE in o.get("data", {})]
    assert stored, f"{py}: the executed claim cell stores no claim record (run make execute)"


@pytest.mark.parametrize("py", SOURCES, ids=IDS)
def test_claim_records_follow_the_rules(py):
    """Every record: id of this notebook, a verdict from the vocabulary, passed; 'reproduced'
    only with a failing control and >= 3 seeds."""
    records = notebook_records(py.with_suffix(".ipynb"))
    assert records, f"{py}: no claim record"
    prefix = f"{py.parent.name}/{py.stem}/"
    for rec in records:
        assert rec["id"].startswith(prefix), f"{rec['id']}: ids in {py.name} start with {prefix}"
        assert rec["verdict"] in claims.VERDICTS, rec["verdict"]
        assert rec["passed"], f"{rec['id']}: the committed record did not pass"
        if rec["verdict"] == "reproduced":
            assert rec["control"] and not rec["control"]["passes"], rec["id"]
            assert rec["seeds"] >= claims.MIN_SEEDS, rec["id"]
        if rec["verdict"] in ("partly", "not reproduced"):
            assert rec["caveat"], rec["id"]


def test_claim_ids_are_unique():
    ids = [r["id"] for py in SOURCES for r in notebook_records(py.with_suffix(".ipynb"))]
    dupes = sorted({i for i in ids if ids.count(i) > 1})
    assert not dupes, f"claim ids used twice: {dupes}"


def test_generated_tables_are_up_to_date():
    old = scorecard.stale(ROOT)
    assert not old, f"run `python -m icml25.common.scorecard` (or make book): stale {old}"


def test_summary_line_counts_the_records():
    records = [r for py in SOURCES for r in notebook_records(py.with_suffix(".ipynb"))]
    intro = (BOOK / "intro.md").read_text(encoding="utf-8")
    counts = {v: sum(r["verdict"] == v for r in records) for v in claims.VERDICTS}
    line = f"{len(records)} claims: " + ", ".join(f"{counts[v]} {v}" for v in claims.VERDICTS)
    assert line in intro, f"intro.md lacks the summary line {line!r}"


@pytest.mark.parametrize("py", SOURCES, ids=IDS)
def test_notebook_template(py):
    """Title, a Colab cell that clones the configured repository, set-up through icml25."""
    cells = jupytext.read(py).cells
    assert cells[0].cell_type == "markdown" and cells[0].source.startswith("# ")
    colab = [c for c in cells if "remove-cell" in c.metadata.get("tags", [])]
    assert len(colab) == 1, f"{py}: needs exactly one hidden (remove-cell) Colab set-up cell"
    url = yaml.safe_load((ROOT / "_config.yml").read_text())["repository"]["url"]
    src = colab[0].source
    assert "google.colab" in src and url in src, f"{py}: the Colab cell must clone {url}"
    # torch-geometric is fine (it does not pin torch); torch itself must not be reinstalled
    assert "--no-deps" in src and not re.search(r"pip install[^\n]*(?<![\w-])torch(?![\w-])", src)
    code = "\n".join(c.source for c in cells if c.cell_type == "code")
    assert "setup(" in code, f"{py}: call icml25.common.setup()"
    assert "tqdm.auto" not in code, f"{py}: use plain tqdm (tqdm.auto pulls widgets)"


def test_toc_entries_exist():
    for entry in _toc_files():
        matches = [p for p in (ROOT / entry).parent.glob((ROOT / entry).name + ".*")]
        assert any(p.suffix in (".md", ".ipynb") for p in matches), f"_toc.yml: {entry} missing"


@pytest.mark.parametrize("chapter", sorted({p.parent for p in SOURCES}), ids=lambda p: p.name)
def test_chapter_opener_lists_its_notebooks_and_runtimes(chapter):
    opener = (chapter / "index.md").read_text(encoding="utf-8")
    for py in sorted(chapter.glob("*.py")):
        assert f"{py.stem}.ipynb::runtime_s" in opener, (
            f"{chapter}/index.md: glue {py.stem} runtime"
        )
    assert "Paper vs. this book" in opener


def test_committed_notebooks_are_small():
    for nb in NOTEBOOKS:
        size = nb.stat().st_size
        assert size < 2_000_000, f"{nb} is {size / 1e6:.1f} MB: lower the figure dpi or count"
        json.loads(nb.read_text(encoding="utf-8"))


_GLUE_ROLE = re.compile(r"\{glue(?::(\w+))?\}`([^`]*)`")


def _glue_keys(nb: Path) -> set[str]:
    data = json.loads(nb.read_text(encoding="utf-8"))
    return {
        out["metadata"]["scrapbook"]["name"]
        for cell in data["cells"]
        for out in cell.get("outputs", [])
        if "scrapbook" in out.get("metadata", {})
    }


def test_every_glue_reference_resolves_as_myst_nb_parses_it():
    """myst-nb splits ``{glue:text}`` on the *last* colon, so ``nb.ipynb::key`` with no format
    reads as key ``nb.ipynb:`` (write ``nb.ipynb::key:s``); ``{glue:}`` takes no format at all.
    ``jupyter-book build -W`` fails on either, so catch them here, seconds before the build."""
    problems = []
    for doc in sorted(BOOK.rglob("*")):
        if doc.suffix not in (".md", ".py") or ".ipynb_checkpoints" in doc.parts:
            continue
        for m in _GLUE_ROLE.finditer(doc.read_text(encoding="utf-8")):
            role, text = m.group(1) or "any", m.group(2)
            if role == "text":
                head, _, fmt = text.rpartition(":")
                key = head if head else fmt
            else:
                key = text
            path, sep, name = key.rpartition("::")
            target = (doc.parent / path) if sep else doc.with_suffix(".ipynb")
            if not sep and doc.suffix == ".md":
                problems.append(f"{doc.relative_to(ROOT)}: `{text}` needs a notebook path")
            elif not target.exists() or name not in _glue_keys(target):
                problems.append(f"{doc.relative_to(ROOT)}: {{glue:{role}}}`{text}` -> key {name!r}")
    assert not problems, "unresolved glue:\n" + "\n".join(problems)


@pytest.mark.parametrize("nb", NOTEBOOKS, ids=lambda p: str(p.relative_to(ROOT)))
def test_each_glue_key_is_glued_once(nb):
    """myst-nb warns on a key glued twice in one notebook (``glue key 'x' duplicate``), and the
    ``-W`` book build then fails."""
    data = json.loads(nb.read_text(encoding="utf-8"))
    names = [
        out["metadata"]["scrapbook"]["name"]
        for cell in data["cells"]
        for out in cell.get("outputs", [])
        if "scrapbook" in out.get("metadata", {})
    ]
    dupes = sorted({n for n in names if names.count(n) > 1})
    assert not dupes, f"{nb.relative_to(ROOT)}: glued more than once: {dupes}"


_LINK = re.compile(r"\]\(([^)#\s]+\.(?:ipynb|md))(?:#[^)]*)?\)")


def test_links_to_book_pages_resolve():
    """A markdown link to a page that does not exist (``Unknown source document``) fails the
    ``-W`` build: every relative ``.ipynb``/``.md`` link in the book must name a file."""
    problems = []
    for doc in sorted(BOOK.rglob("*")):
        if doc.suffix not in (".md", ".py") or ".ipynb_checkpoints" in doc.parts:
            continue
        for m in _LINK.finditer(doc.read_text(encoding="utf-8")):
            target = m.group(1)
            if "://" in target:
                continue
            if not (doc.parent / target).exists():
                problems.append(f"{doc.relative_to(ROOT)}: link to missing {target}")
    assert not problems, "\n".join(problems)
