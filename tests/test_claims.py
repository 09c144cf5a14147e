"""Claims as data: the claim helper, its records in notebooks, and ``python -m icml25 check``."""

import json
import subprocess
import sys

import numpy as np
import pytest

from icml25.common import claims
from icml25.common.claims import claim, greater, less, within
from icml25.common.notebooks import execute
from icml25.common.scorecard import notebook_records

ID = "demo/1_demo/gap"


def _claim(**kw):
    args = dict(
        paper="0.1 (Fig. 1)",
        value=[0.2, 0.25, 0.3],
        check=greater(0.05),
        control=("shuffled labels", [0.0, 0.01, -0.01]),
        verdict="reproduced",
    )
    args.update(kw)
    return claim(ID, "The method beats the baseline", **args)


def test_passing_claim_returns_record(capsys):
    rec = _claim()
    assert rec["passed"] and rec["verdict"] == "reproduced"
    assert rec["seeds"] == 3 and rec["passing"] == 3
    assert rec["value"] == pytest.approx(0.25) and rec["sd"] == pytest.approx(0.05)
    assert rec["control"]["value"] == pytest.approx(0.0) and not rec["control"]["passes"]
    line = capsys.readouterr().out
    assert line.startswith("VERDICT demo/1_demo/gap: reproduced") and "fails" in line


def test_failing_claim_raises():
    with pytest.raises(AssertionError, match="does not hold"):
        _claim(value=[0.2, 0.01, 0.3])  # one seed below the margin


def test_passing_control_makes_it_fail():
    with pytest.raises(AssertionError, match="control shuffled labels"):
        _claim(control=("shuffled labels", [0.2, 0.1, 0.15]))


def test_reproduced_needs_control_and_three_seeds():
    with pytest.raises(ValueError, match="needs a control"):
        _claim(control=None)
    with pytest.raises(ValueError, match="seeds >= 3"):
        _claim(value=[0.2, 0.3])
    with pytest.raises(ValueError, match="seeds >= 3"):
        _claim(value=0.2, seeds=2)
    rec = _claim(value=[0.2, 0.3], verdict="illustrated")  # that is what it is
    assert rec["passed"]


def test_paired_baseline_and_other_comparisons():
    base = np.array([0.5, 0.6, 0.7])
    rec = _claim(value=base + 0.1, check=greater(base, by=0.05, label="best marginal"))
    assert rec["comparison"] == "> best marginal + 0.05"
    with pytest.raises(ValueError, match="replicates"):
        _claim(value=[0.1, 0.2], check=greater(base), verdict="illustrated")
    assert _claim(value=0.01, check=less(0.05), control=None, verdict="illustrated")["passed"]
    rec = _claim(value=[0.9, 0.91, 0.92], check=within(0.9, 0.05), control=("c", 0.5))
    assert rec["comparison"] == "within 0.05 of 0.9"


def test_partly_and_not_reproduced():
    with pytest.raises(ValueError, match="caveat"):
        _claim(verdict="partly")
    assert _claim(verdict="partly", caveat="only at r = 0.8")["caveat"] == "only at r = 0.8"
    rec = _claim(value=[0.0, 0.01, 0.02], control=None, verdict="not reproduced", caveat="small")
    assert rec["passed"]
    with pytest.raises(AssertionError, match="out of date"):
        _claim(control=None, verdict="not reproduced", caveat="small")


def test_partly_with_min_passing():
    """min_passing=k (verdict 'partly' only): the comparison must hold on k of the replicates."""
    rec = _claim(value=[0.2, 0.01, 0.3], verdict="partly", caveat="CPU drift", min_passing=2)
    assert rec["passed"] and rec["passing"] == 2 and rec["min_passing"] == 2
    assert "needs 2" in claims._record_line(rec)
    with pytest.raises(AssertionError, match="holds in 1 of 3, needs 2"):
        _claim(value=[0.2, 0.01, 0.0], verdict="partly", caveat="CPU drift", min_passing=2)
    with pytest.raises(AssertionError, match="and the mean"):  # 2 of 3 hold, the mean does not
        _claim(value=[0.06, 0.06, -1.0], verdict="partly", caveat="CPU drift", min_passing=2)
    with pytest.raises(AssertionError, match="control"):  # the control still must fail
        _claim(
            value=[0.2, 0.01, 0.3],
            control=("c", [0.2, 0.2, 0.2]),
            verdict="partly",
            caveat="CPU drift",
            min_passing=2,
        )
    assert _claim(verdict="partly", caveat="c")["min_passing"] is None


@pytest.mark.parametrize(
    ("kw", "name"),
    [
        ({"min_passing": 2}, "min_passing"),  # verdict 'reproduced'
        ({"min_passing": 0, "verdict": "partly", "caveat": "c"}, "min_passing"),
        ({"min_passing": 1, "verdict": "partly", "caveat": "c"}, "min_passing"),  # no majority
        ({"min_passing": 4, "verdict": "partly", "caveat": "c"}, "min_passing"),
        ({"min_passing": 2.0, "verdict": "partly", "caveat": "c"}, "min_passing"),
        ({"min_passing": True, "verdict": "partly", "caveat": "c"}, "min_passing"),
        ({"verdict": "kind of"}, "verdict"),
        ({"control": ("random", None)}, "control"),
        ({"value": 0.2, "seeds": 0, "verdict": "illustrated", "control": None}, "seeds"),
        ({"value": [0.2, np.nan, 0.3]}, "value"),
        ({"value": "0.2"}, "value"),
        ({"paper": ""}, "paper"),
        ({"fmt": "%d"}, "fmt"),
        ({"check": 0.05}, "check"),
    ],
)
def test_bad_input_names_the_argument(kw, name):
    with pytest.raises((ValueError, TypeError), match=name):
        _claim(**kw)


@pytest.mark.parametrize("bad", ["gap", "demo/gap", "Demo/1_demo/gap", "demo/demo/gap", 3])
def test_bad_id(bad):
    with pytest.raises((ValueError, TypeError), match="id must"):
        claim(bad, "s", paper="p", value=1.0, check=greater(0), verdict="illustrated")


def test_bad_comparisons():
    with pytest.raises(ValueError, match="by"):
        greater(0.0, by=-1)
    with pytest.raises(TypeError, match="than"):
        less("a")
    with pytest.raises(ValueError, match="of"):
        within([np.inf], 0.1)


NOTEBOOK = """\
# ---
# jupyter:
#   jupytext:
#     formats: ipynb,py:percent
#   kernelspec:
#     display_name: Python 3
#     language: python
#     name: python3
# ---

# %% [markdown]
# # A demo claim

# %%
from icml25.common.claims import claim, greater

claim(
    "demo/1_demo/gap",
    "The method beats the baseline",
    paper="0.1",
    value=[0.2, 0.25, {third}],
    check=greater(0.05),
    control=("shuffled", [0.0, 0.01, -0.01]),
    verdict="reproduced",
)
"""


def _book(tmp_path, third: float):
    chapter = tmp_path / "book" / "demo"
    chapter.mkdir(parents=True)
    (chapter / "1_demo.py").write_text(NOTEBOOK.format(third=third), encoding="utf-8")
    return tmp_path / "book"


def test_records_round_trip_from_an_executed_notebook(tmp_path):
    book = _book(tmp_path, 0.3)
    execute(book / "demo" / "1_demo.py", timeout=120)
    (rec,) = notebook_records(book / "demo" / "1_demo.ipynb")
    assert rec["id"] == ID and rec["passed"] and rec["values"] == [0.2, 0.25, 0.3]
    assert rec["control"]["name"] == "shuffled"
    nb = json.loads((book / "demo" / "1_demo.ipynb").read_text())
    shown = [o for o in nb["cells"][-1]["outputs"] if "scrapbook" not in o.get("metadata", {})]
    assert len(shown) == 1, "the returned record must not display a second time"
    (out,) = [o for o in nb["cells"][-1]["outputs"] if claims.MIME_TYPE in o.get("data", {})]
    assert "".join(out["data"]["text/plain"]).startswith("VERDICT demo/1_demo/gap: reproduced")


@pytest.mark.parametrize(("third", "rc"), [(0.3, 0), (0.0, 1)])
def test_check_command_exit_code(tmp_path, third, rc):
    book = _book(tmp_path, third)
    out = tmp_path / "claims.json"
    cmd = [sys.executable, "-m", "icml25", "check", "demo", "--book", str(book), "--json", str(out)]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    assert proc.returncode == rc, proc.stdout + proc.stderr
    assert "demo/1_demo/gap" in proc.stdout
    assert ("FAIL" in proc.stdout) == bool(rc)
    payload = json.loads(out.read_text())
    assert payload["notebooks"][0]["records"][0]["passed"] is (rc == 0)
    assert not (book / "demo" / "1_demo.ipynb").exists(), "check must not write in place"


def test_check_command_unknown_chapter(tmp_path):
    book = _book(tmp_path, 0.3)
    cmd = [sys.executable, "-m", "icml25", "check", "nope", "--book", str(book)]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=60)
    assert proc.returncode == 2 and "unknown chapter" in proc.stderr


def test_module_help():
    proc = subprocess.run(
        [sys.executable, "-m", "icml25"], capture_output=True, text=True, timeout=60
    )
    assert proc.returncode == 2 and "check" in proc.stdout


def test_scorecard_generation(tmp_path):
    from icml25.common import scorecard

    book = _book(tmp_path, 0.3)
    execute(book / "demo" / "1_demo.py", timeout=120)
    data = {
        "chapter": "demo",
        "title": "Demo",
        "cite": "x2025",
        "notebooks": [
            {
                "name": "1_demo",
                "records": notebook_records(book / "demo" / "1_demo.ipynb"),
                "runtime_s": 3.0,
            }
        ],
    }
    table = scorecard.chapter_table(data)
    assert "The method beats the baseline" in table and "**reproduced**" in table
    card = scorecard.scorecard([data])
    assert "1 claims: 1 reproduced, 0 partly, 0 illustrated, 0 not reproduced" in card
    assert "(total 3)" in card
    with pytest.raises(ValueError, match="markers"):
        scorecard._replace("no markers", "x", tmp_path)
    text = f"a\n{scorecard.BEGIN}\nold\n{scorecard.END}\nb"
    assert (
        scorecard._replace(text, "new", tmp_path)
        == f"a\n{scorecard.BEGIN}\nnew\n{scorecard.END}\nb"
    )
