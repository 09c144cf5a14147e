"""Claims as data: every claim check in the book is one call of :func:`claim`.

A notebook's last cell states what the paper claims, what this miniature measured, the
comparison that must hold, and a **negative control** that must fail the same comparison
(BOOK_GUIDE §2a). One call checks it, prints the one-line ``VERDICT``, glues the numbers for the
prose, and stores the whole record in the notebook's outputs (the mime type
:data:`MIME_TYPE`), from which ``make book`` writes the scorecard and each chapter's
"Paper vs. this book" table, and ``python -m icml25 check`` prints its claims table::

    from icml25.common.claims import claim, greater

    claim(
        "two-stage-rct/2_main_result/split_beats_single",
        "Sample splitting certifies a larger effect than a single-stage trial (30 % first stage)",
        paper="0.91 vs 0.85 of the best effect (Fig. 1)",
        value=gain_single,                        # one number per seed, shape (seeds,)
        check=greater(0.03),                      # must hold for every seed
        control=("random k", gain_random),        # must fail the same check (on its mean)
        verdict="reproduced",
    )

The rules, enforced here rather than remembered:

- ``value`` is a number or a 1-D array with one entry per independent replicate (a seed of
  data and model, or an independent data set). The comparison must hold for **every**
  replicate; the record keeps the mean, the standard deviation and the range.
- ``check`` is one of :func:`greater`, :func:`less` or :func:`within`; its reference (``than``
  or ``of``) is a number or an array paired with ``value`` (a baseline per seed).
- ``control=(name, values)`` is judged on its **mean** against the mean reference: if the
  control passes, the check measures the data rather than the method, and :func:`claim`
  raises ``AssertionError``.
- ``verdict`` is one of :data:`VERDICTS`. ``"reproduced"`` needs a control and at least
  :data:`MIN_SEEDS` replicates (with less, the verdict is ``"illustrated"``); ``"partly"``
  needs a ``caveat``; ``"not reproduced"`` needs a ``caveat`` (the measured gap and the likely
  reason) and asserts that the comparison **fails**, so a verdict cannot outlive its evidence.
- ``min_passing=k``, for ``"partly"`` only: the comparison must hold for at least ``k`` of the
  replicates instead of all of them, ``k`` a majority (more than half), **and** for their mean.
  It is for a claim whose margin is inside the float32 drift between CPUs (it holds on every
  seed on one CPU and on all but one on another, so neither "reproduced" nor "not reproduced"
  can be asserted on both); the caveat says so, with each CPU's numbers. The check can still
  fail: fewer than ``k`` passing replicates, or a failing mean, raise.

Failures raise ``AssertionError`` (the claim did not hold, or its control passed); malformed
claims raise ``ValueError``/``TypeError`` naming the argument.
"""

from __future__ import annotations

import json
import math
import numbers as _numbers
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from icml25.common.glue import glue

__all__ = [
    "MIME_TYPE",
    "MIN_SEEDS",
    "VERDICTS",
    "Comparison",
    "claim",
    "greater",
    "less",
    "within",
]

MIME_TYPE = "application/vnd.icml25.claim+json"
VERDICTS = ("reproduced", "partly", "illustrated", "not reproduced")
MIN_SEEDS = 3
ID_PATTERN = re.compile(r"^([a-z0-9]+(?:-[a-z0-9]+)*)/(\d+_[a-z0-9_]+)/([a-z][a-z0-9_]*)$")


def _reference(name: str, value: object) -> np.ndarray:
    if isinstance(value, bool):
        raise TypeError(f"{name} must be a number or an array of numbers, got bool")
    arr = np.asarray(value)
    if arr.dtype == object or not np.issubdtype(arr.dtype, np.number) or np.iscomplexobj(arr):
        raise TypeError(f"{name} must be a number or an array of numbers, got {value!r}")
    if arr.ndim > 1 or arr.size == 0:
        raise ValueError(f"{name} must be a number or a non-empty 1-D array, got {arr.shape}")
    arr = arr.astype(float)
    if not np.all(np.isfinite(arr)):
        raise ValueError(f"{name} must be finite (no NaN or inf)")
    return arr


@dataclass(frozen=True)
class Comparison:
    """What must hold between a measured value ``x`` and a reference ``ref``.

    ``op`` is ``">"`` (x > ref + by), ``"<"`` (x < ref - by) or ``"~"`` (|x - ref| <= by);
    ``ref`` has shape () or (seeds,); ``label`` names the reference in messages and tables.
    """

    op: str
    ref: np.ndarray
    by: float
    label: str | None

    def holds(self, x: np.ndarray, ref: np.ndarray | None = None) -> np.ndarray:
        """Elementwise: does the comparison hold for ``x`` (shape (seeds,) or ())?"""
        ref = self.ref if ref is None else ref
        if self.op == ">":
            return x > ref + self.by
        if self.op == "<":
            return x < ref - self.by
        return np.abs(x - ref) <= self.by

    def describe(self, fmt: str = ".3g") -> str:
        """The comparison in words, e.g. ``> best marginal + 0.05`` or ``within 0.03 of 0.91``."""
        if self.label is not None:
            ref = self.label
        elif self.ref.size == 1:
            ref = format(float(self.ref.reshape(-1)[0]), fmt)
        else:
            ref = f"paired baseline (mean {format(float(self.ref.mean()), fmt)})"
        if self.op == "~":
            return f"within {format(self.by, fmt)} of {ref}"
        if self.by == 0:
            return f"{self.op} {ref}"
        sign = "+" if self.op == ">" else "-"
        return f"{self.op} {ref} {sign} {format(self.by, fmt)}"


def _comparison(op: str, ref: object, by: object, label: object, ref_name: str) -> Comparison:
    arr = _reference(ref_name, ref)
    if isinstance(by, bool) or not isinstance(by, _numbers.Real):
        raise TypeError(f"by must be a real number, got {type(by).__name__}")
    by = float(by)
    if not math.isfinite(by) or by < 0:
        raise ValueError(f"by must be a finite number >= 0, got {by}")
    if label is not None and (not isinstance(label, str) or not label.strip()):
        raise TypeError(f"label must be a non-empty string or None, got {label!r}")
    return Comparison(op, arr, by, label)


def greater(than: object, by: float = 0.0, label: str | None = None) -> Comparison:
    """The value must exceed ``than`` (a number, or a per-seed baseline) by more than ``by``."""
    return _comparison(">", than, by, label, "than")


def less(than: object, by: float = 0.0, label: str | None = None) -> Comparison:
    """The value must be below ``than`` (a number, or a per-seed baseline) by more than ``by``."""
    return _comparison("<", than, by, label, "than")


def within(of: object, tol: float, label: str | None = None) -> Comparison:
    """The value must lie within ``tol`` of ``of`` (a reference number or per-seed array)."""
    return _comparison("~", of, tol, label, "of")


class Record(dict):
    """A claim's record (a plain ``dict``) that a notebook does not display a second time: its
    ``VERDICT`` line is already in the cell's output."""

    def _ipython_display_(self) -> None:
        pass


def _text(name: str, value: object, required: bool = True) -> str | None:
    if value is None and not required:
        return None
    if not isinstance(value, str):
        raise TypeError(f"{name} must be a string, got {type(value).__name__}")
    if not value.strip():
        raise ValueError(f"{name} must not be empty")
    return value.strip()


def _fmt(fmt: object) -> str:
    if not isinstance(fmt, str):
        raise TypeError(f"fmt must be a format spec string such as '.3f', got {fmt!r}")
    try:
        format(1.0, fmt)
    except ValueError as err:
        raise ValueError(f"fmt must be a float format spec such as '.3f', got {fmt!r}") from err
    return fmt


def _number(x: float, fmt: str) -> str:
    return format(x, fmt)


def _summary(values: np.ndarray, fmt: str, over: str = "seeds") -> str:
    if values.size == 1:
        return _number(float(values[0]), fmt)
    sd = float(values.std(ddof=1))
    return f"{_number(float(values.mean()), fmt)} ± {_number(sd, fmt)} over {values.size} {over}"


def _record_line(rec: Mapping[str, Any]) -> str:
    """The one-line ``VERDICT`` that a claim prints."""
    status = "" if rec["passed"] else "FAILED "
    line = (
        f"VERDICT {status}{rec['id']}: {rec['verdict']} — measured {rec['measured']} "
        f"(check {rec['comparison']}; holds in {rec['passing']} of {len(rec['values'])}"
        + (f", needs {rec['min_passing']}" if rec.get("min_passing") else "")
        + ")"
    )
    ctrl = rec.get("control")
    if ctrl:
        word = "passes: the check cannot tell" if ctrl["passes"] else "fails"
        line += f"; control {ctrl['name']} {ctrl['measured']} {word}"
    if rec.get("caveat"):
        line += f"; caveat: {rec['caveat']}"
    return line


def _emit(rec: Mapping[str, Any]) -> None:
    """Show the VERDICT line and store the record in the cell's outputs (or print it)."""
    line = _record_line(rec)
    try:
        from IPython import get_ipython
        from IPython.display import display
    except ImportError:  # plain Python without IPython
        print(line)
        return
    if get_ipython() is None:
        print(line)
        return
    display({MIME_TYPE: json.loads(json.dumps(dict(rec))), "text/plain": line}, raw=True)


def claim(
    id: str,
    statement: str,
    *,
    paper: str,
    value: object,
    check: Comparison,
    verdict: str,
    control: tuple[str, object] | None = None,
    caveat: str | None = None,
    numbers: Mapping[str, float] | None = None,
    fmt: str = ".3g",
    seeds: int | None = None,
    over: str = "seeds",
    min_passing: int | None = None,
) -> Record:
    """Check one claim, print its ``VERDICT``, glue its numbers and record it; return the record.

    Args:
        id: ``"<chapter>/<notebook>/<name>"``, e.g. ``"spex/2_faithfulness/beats_marginal"``;
            ``name`` is also the glue key of the mean value (``<name>_control`` for the control).
        statement: the paper's claim, in one sentence, as this notebook tests it.
        paper: the paper's number or words (text), e.g. ``"0.91 of the best effect (Fig. 1)"``.
        value: the measured number, or one per replicate, shape (seeds,).
        check: the comparison that must hold for every replicate (:func:`greater`, :func:`less`,
            :func:`within`).
        verdict: one of :data:`VERDICTS` (rules in the module docstring).
        control: ``(name, values)`` of a negative control that must fail ``check`` on its mean.
        caveat: what qualifies the verdict (required for ``"partly"`` and ``"not reproduced"``).
        numbers: further measured numbers to show in the tables, ``{label: value}``.
        fmt: format spec of the numbers in messages and tables, e.g. ``".2f"``.
        seeds: the number of independent seeds behind ``value`` (e.g. 5 for a mean over 5
            seeds); defaults to the length of ``value`` when ``over="seeds"``, else to 1.
        over: what the entries of ``value`` range over: ``"seeds"`` (the default), or e.g.
            ``"values of k"`` for a sweep of one seed (then pass ``seeds`` if there are more).
        min_passing: for ``"partly"`` only, the number of replicates (a majority, up to their
            number) the comparison must hold for, instead of all; the mean must hold too
            (module docstring).

    Raises:
        AssertionError: if the comparison fails (or, for ``"not reproduced"``, holds) or the
            control passes.
        ValueError, TypeError: if the claim is malformed (naming the argument).
    """
    if not isinstance(id, str):
        raise TypeError(f"id must be a string '<chapter>/<notebook>/<name>', got {id!r}")
    match = ID_PATTERN.match(id)
    if not match:
        raise ValueError(
            f"id must look like '<chapter>/<notebook>/<name>' (e.g. "
            f"'sparse-pca/2_sample_complexity/thr_rate'), got {id!r}"
        )
    statement = _text("statement", statement)
    paper = _text("paper", paper)
    caveat = _text("caveat", caveat, required=False)
    fmt = _fmt(fmt)
    if not isinstance(verdict, str) or verdict not in VERDICTS:
        raise ValueError(f"verdict must be one of {VERDICTS}, got {verdict!r}")
    if not isinstance(check, Comparison):
        raise TypeError("check must be a comparison from greater(), less() or within()")
    values = np.atleast_1d(_reference("value", value))
    if check.ref.size > 1 and check.ref.shape != values.shape:
        raise ValueError(
            f"value has {values.size} replicates but the check's reference has {check.ref.size}"
        )
    over = _text("over", over)
    if seeds is None:
        n_seeds = values.size if over == "seeds" else 1
    else:
        if isinstance(seeds, bool) or not isinstance(seeds, _numbers.Integral):
            raise TypeError(f"seeds must be an int, got {type(seeds).__name__}")
        if seeds < 1:
            raise ValueError(f"seeds must be >= 1, got {seeds}")
        if over == "seeds" and values.size > 1 and seeds != values.size:
            raise ValueError(f"seeds={seeds} but value has {values.size} entries over seeds")
        n_seeds = int(seeds)
    extra: dict[str, float] = {}
    for label, number in (numbers or {}).items():
        if not isinstance(label, str) or not label.strip():
            raise TypeError(f"numbers must map labels (strings) to numbers, got key {label!r}")
        extra[label] = float(_reference(f"numbers[{label!r}]", number).mean())

    ctrl: dict[str, Any] | None = None
    if control is not None:
        if not isinstance(control, tuple) or len(control) != 2:
            raise TypeError("control must be a tuple (name, values)")
        c_name, c_value = control
        c_name = _text("control name", c_name)
        if c_value is None:
            raise ValueError(f"control {c_name!r} needs a value (its measured number(s))")
        c_values = np.atleast_1d(_reference("control value", c_value))
        c_mean = float(c_values.mean())
        c_passes = bool(check.holds(np.array(c_mean), np.array(check.ref.mean())))
        ctrl = {
            "name": c_name,
            "value": c_mean,
            "values": c_values.tolist(),
            "measured": _summary(c_values, fmt, over),
            "passes": c_passes,
        }

    if verdict == "reproduced":
        if ctrl is None:
            raise ValueError(
                "verdict 'reproduced' needs a control (a negative control that fails the same "
                "check); without one the verdict is 'illustrated'"
            )
        if n_seeds < MIN_SEEDS:
            raise ValueError(
                f"verdict 'reproduced' needs seeds >= {MIN_SEEDS}, got {n_seeds}; with fewer "
                "the verdict is 'illustrated'"
            )
    if min_passing is not None:
        if isinstance(min_passing, bool) or not isinstance(min_passing, _numbers.Integral):
            raise TypeError(f"min_passing must be an int, got {type(min_passing).__name__}")
        if verdict != "partly":
            raise ValueError(
                f"min_passing goes with verdict 'partly' (a claim that holds on only some "
                f"replicates), got verdict {verdict!r}"
            )
        if not values.size / 2 < min_passing <= values.size:
            raise ValueError(
                f"min_passing must be a majority of the {values.size} replicates (more than half, "
                f"at most all), got {min_passing}"
            )
        min_passing = int(min_passing)
    if verdict in ("partly", "not reproduced") and caveat is None:
        raise ValueError(f"verdict {verdict!r} needs a caveat saying what does not hold and why")
    if verdict == "not reproduced" and ctrl is not None:
        raise ValueError("verdict 'not reproduced' takes no control")

    ok = check.holds(values)
    passing = int(ok.sum())
    if min_passing is None:
        holds = bool(ok.all())
    else:  # a majority of the replicates, and their mean against the mean reference
        mean_ok = bool(check.holds(np.array(values.mean()), np.array(check.ref.mean())))
        holds = passing >= min_passing and mean_ok
    chapter, notebook, name = match.groups()
    record = Record(
        {
            "id": id,
            "chapter": chapter,
            "notebook": notebook,
            "name": name,
            "statement": statement,
            "paper": paper,
            "value": float(values.mean()),
            "values": values.tolist(),
            "sd": float(values.std(ddof=1)) if values.size > 1 else None,
            "min": float(values.min()),
            "max": float(values.max()),
            "seeds": n_seeds,
            "passing": passing,
            "min_passing": min_passing,
            "measured": _summary(values, fmt, over),
            "over": over,
            "comparison": check.describe(fmt),
            "control": ctrl,
            "verdict": verdict,
            "caveat": caveat,
            "numbers": [[k, _number(v, fmt)] for k, v in extra.items()],  # a list keeps the order
            "fmt": fmt,
        }
    )
    problems = []
    if verdict == "not reproduced":
        if holds:
            problems.append(
                "the comparison now holds for every replicate: the verdict 'not reproduced' is "
                "out of date"
            )
    elif not holds:
        needs = "" if min_passing is None else f", needs {min_passing} and the mean"
        problems.append(
            f"the claim does not hold: {record['measured']} is not {record['comparison']} "
            f"(holds in {passing} of {values.size}{needs})"
        )
    if ctrl is not None and ctrl["passes"]:
        problems.append(
            f"the control {ctrl['name']} ({ctrl['measured']}) passes the same check "
            f"({record['comparison']}): the check does not tell the method from the control"
        )
    record["passed"] = not problems
    _emit(record)
    if problems:
        raise AssertionError(f"{id}: " + "; ".join(problems))
    glue(name, record["value"])
    if ctrl is not None:
        glue(f"{name}_control", ctrl["value"])
    return record
