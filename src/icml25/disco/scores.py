"""DIS-CO's scores and its baselines, per movie, and the detection AUC.

A **title model** is any object with

* ``guess(frames, captions=None) -> list[str]``: a greedy free-form title per frame (frames
  (N, 32, 32, 3) as stored in a :class:`~icml25.disco.world.FrameSet`); with ``frames=None`` the
  title is guessed from the captions alone (the caption route of ⌊DIS-CO⌋);
* ``title_logprob(frames, titles) -> ndarray (N,)``: log p(title | frame) (white-box);
* for the VL-MIA-style baselines, ``caption_token_logprobs(frames) -> list[ndarray]``: the
  log-probabilities of the tokens of the model's own greedy caption of each frame.

Every table has a row per movie: ``movie``, ``label`` (1 suspect), ``exposure``, ``n_frames`` and
``score`` (``accuracy`` for DIS-CO and MCQA: the share of frames named).
"""

from __future__ import annotations

import re
import unicodedata

import numpy as np
import pandas as pd
from rapidfuzz import fuzz
from sklearn.metrics import roc_auc_score

from icml25.common.checks import (
    check_choice,
    check_finite_array,
    check_instance,
    check_int,
    check_probability,
    check_real,
    check_seed,
)
from icml25.disco.world import KINDS, Split

__all__ = [
    "METHODS",
    "MIA_METHODS",
    "all_scores",
    "detection_auc",
    "frame_hits",
    "disco_scores",
    "match_title",
    "mcqa_scores",
    "mia_scores",
    "normalise_title",
    "oracle_scores",
]

MIA_METHODS = ("perplexity", "min_k")


def normalise_title(text: str) -> str:
    """Casefold, strip accents and punctuation, squeeze blanks, drop a leading "the"."""
    if not isinstance(text, str):
        raise TypeError(f"text must be a str, got {type(text).__name__}")
    t = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode().casefold()
    t = " ".join(re.sub(r"[^\w\s]|_", " ", t).split())
    return t[4:] if t.startswith("the ") else t


def match_title(guess: str, title: str, threshold: float = 90) -> bool:
    """True if the normalised ``guess`` matches the normalised ``title``: ``fuzz.ratio`` ≥
    ``threshold`` (in (0, 100]; 100 is an exact match after normalisation)."""
    if not isinstance(guess, str):
        raise TypeError(f"guess must be a str, got {type(guess).__name__}")
    if not isinstance(title, str):
        raise TypeError(f"title must be a str, got {type(title).__name__}")
    threshold = check_real("threshold", threshold, 0.0, 100.0, low_open=True)
    g, t = normalise_title(guess), normalise_title(title)
    if not t:
        raise ValueError("title must contain at least one letter or digit")
    return bool(g) and fuzz.ratio(g, t) >= threshold


def detection_auc(scores, labels) -> float:
    """ROC AUC of ``scores`` (M,) separating ``labels`` (M,) 1 (suspect) from 0 (clean);
    boolean labels count as 1 (True) and 0 (False)."""
    s = check_finite_array("scores", scores, ndim=1)
    if isinstance(labels, (list, tuple, np.ndarray, pd.Series)):
        arr = np.asarray(labels)
        if arr.dtype == bool or (
            arr.dtype == object and len(arr) and all(isinstance(v, (bool, np.bool_)) for v in arr)
        ):
            labels = arr.astype(int)
    y = check_finite_array("labels", labels, ndim=1)
    if len(s) != len(y):
        raise ValueError(f"scores ({len(s)}) and labels ({len(y)}) must have equal lengths")
    if not np.isin(y, (0, 1)).all():
        raise ValueError("labels must be 0 (clean) or 1 (suspect)")
    if len(np.unique(y)) < 2:
        raise ValueError("labels must hold both classes (0 and 1), got one class")
    return float(roc_auc_score(y.astype(int), s))


def _check(model, split, frame_kind) -> None:
    if not callable(getattr(model, "guess", None)):
        raise TypeError(f"model must be a title model with guess(), got {type(model).__name__}")
    check_instance("split", split, Split)
    check_choice("frame_kind", frame_kind, KINDS)


def _table(split: Split, ev, values: np.ndarray, name: str) -> pd.DataFrame:
    rows = []
    for i in range(len(split.movies)):
        sel = ev.movie == i
        rows.append(
            {
                "movie": split.movies[i].title,
                "label": int(split.label[i]),
                "exposure": int(split.exposure[i]),
                "text_known": bool(split.text_known[i]),
                "n_frames": int(sel.sum()),
                name: float(values[sel].mean()) if sel.any() else float("nan"),
            }
        )
    return pd.DataFrame(rows)


def frame_hits(model, split: Split, frame_kind: str = "main", route: str = "image") -> np.ndarray:
    """Per eval frame of ``frame_kind``: does the free-form guess name its movie? (N,) bool.
    ``route="image"`` guesses from the frame, ``"caption"`` from its caption only."""
    _check(model, split, frame_kind)
    check_choice("route", route, ("image", "caption"))
    ev = split.eval.subset(split.eval.kind == frame_kind)
    if route == "image":
        guesses = model.guess(ev.frames)
    else:
        guesses = model.guess(None, captions=ev.caption)
    return np.array(
        [match_title(g, split.movies[i].title) for g, i in zip(guesses, ev.movie, strict=True)]
    )


def disco_scores(
    model, split: Split, frame_kind: str = "main", discount_captions: bool = False
) -> pd.DataFrame:
    """DIS-CO (black-box): per movie, the share of eval frames whose free-form guess names it.

    With ``discount_captions`` (⌊DIS-CO⌋) a frame counts only if the image route names the movie
    and the caption route (the frame's caption, no image) does not."""
    _check(model, split, frame_kind)
    hits = frame_hits(model, split, frame_kind, "image")
    if discount_captions:
        hits = hits & ~frame_hits(model, split, frame_kind, "caption")
    ev = split.eval.subset(split.eval.kind == frame_kind)
    return _table(split, ev, hits.astype(float), "accuracy")


def mcqa_scores(
    model,
    split: Split,
    frame_kind: str = "main",
    n_options: int = 4,
    distractors: str = "others",
    seed: int = 0,
    normalise: bool = True,
) -> pd.DataFrame:
    """MCQA: per frame, the argmax of ``title_logprob`` over the true title and
    ``n_options − 1`` distractors: other movies' titles (``"others"``) or never-seen decoy
    titles from :func:`~icml25.disco.world.make_movies` with another seed (``"decoys"``).
    With ``normalise`` (the default) options are compared by log-likelihood per character and
    end token (length-normalised, lm-eval's ``acc_norm``); with ``normalise=False`` by the summed
    ``title_logprob``. The option order is shuffled, so an uninformed model is right
    1/``n_options`` of the time."""
    _check(model, split, frame_kind)
    M = len(split.movies)
    n_options = check_int("n_options", n_options, 2)
    distractors = check_choice("distractors", distractors, ("others", "decoys"))
    if distractors == "others" and n_options > M:
        raise ValueError(f"n_options must be <= the number of movies ({M}), got {n_options}")
    rng = np.random.default_rng(check_seed("seed", seed))
    if not isinstance(normalise, (bool, np.bool_)):
        raise TypeError(f"normalise must be a bool, got {type(normalise).__name__}")
    ev = split.eval.subset(split.eval.kind == frame_kind)
    titles = split.titles
    if distractors == "decoys":
        from icml25.disco.world import make_movies

        pool = [
            m.title
            for m in make_movies(min(4 * M + 4 * n_options, 400), seed=10_007)
            if all(fuzz.ratio(m.title.casefold(), t.casefold()) < 60 for t in titles)
        ]
        if len(pool) < n_options - 1:
            raise ValueError(f"n_options must be at most {len(pool) + 1} with decoys")
    options, answer = [], []
    for i in ev.movie:
        if distractors == "others":
            others = [j for j in range(M) if j != i]
            opts = [titles[i]] + [titles[j] for j in rng.choice(others, n_options - 1, False)]
        else:
            opts = [titles[i]] + [pool[j] for j in rng.choice(len(pool), n_options - 1, False)]
        perm = rng.permutation(n_options)
        options.append([opts[p] for p in perm])
        answer.append(int(np.flatnonzero(perm == 0)[0]))
    N = len(ev)
    flat_frames = np.repeat(ev.frames, n_options, axis=0)
    flat_titles = [t for opts in options for t in opts]
    lp = np.asarray(model.title_logprob(flat_frames, flat_titles), float)
    # per character (and the end token): the options' log-likelihoods are length-normalised,
    # as in lm-eval's acc_norm, so that short titles are not favoured
    if normalise:
        lp = lp / np.array([len(t) + 1 for t in flat_titles])
    lp = lp.reshape(N, n_options)
    # ties (an untrained model scoring options alike) are broken at random, not by position
    noise = rng.random(lp.shape) * 1e-9
    hits = np.argmax(lp + noise, axis=1) == np.asarray(answer)
    return _table(split, ev, hits.astype(float), "accuracy")


def mia_scores(
    model, split: Split, method: str = "perplexity", k: float = 0.2, frame_kind: str = "main"
) -> pd.DataFrame:
    """VL-MIA-style, title-free: the model captions each frame greedily and is scored on its own
    caption's token log-probabilities. ``"perplexity"``: score = −log perplexity (the mean
    log-prob); ``"min_k"``: the mean of the lowest ``k`` fraction of token log-probs (Min-K%).
    Higher score = more member-like. Per movie, the mean over its frames."""
    _check(model, split, frame_kind)
    method = check_choice("method", method, MIA_METHODS)
    k = check_probability("k", k, low_open=True)
    if not callable(getattr(model, "caption_token_logprobs", None)):
        raise TypeError("model must have caption_token_logprobs() for the MIA baselines")
    ev = split.eval.subset(split.eval.kind == frame_kind)
    out = []
    for lp in model.caption_token_logprobs(ev.frames):
        lp = np.sort(np.asarray(lp, float))
        if method == "perplexity":
            out.append(lp.mean())
        else:
            out.append(lp[: max(1, int(np.ceil(k * len(lp))))].mean())
    return _table(split, ev, np.asarray(out), "score")


def oracle_scores(model, split: Split, frame_kind: str = "main") -> pd.DataFrame:
    """White-box oracle: per movie, the mean log p(true title | frame) over its eval frames."""
    _check(model, split, frame_kind)
    ev = split.eval.subset(split.eval.kind == frame_kind)
    lp = np.asarray(model.title_logprob(ev.frames, [split.titles[i] for i in ev.movie]), float)
    return _table(split, ev, lp, "score")


#: The methods of :func:`all_scores`, in the order of the chapter's figures.
METHODS = (
    "DIS-CO",
    "⌊DIS-CO⌋",
    "MCQA (decoys)",
    "MCQA (others)",
    "perplexity",
    "Min-K%",
    "oracle",
)


def all_scores(model, split: Split, frame_kind: str = "main", seed: int = 0) -> dict:
    """Every method's per-movie table on ``frame_kind`` frames, ``{method: DataFrame}``; the
    score column is ``accuracy`` (DIS-CO, ⌊DIS-CO⌋, MCQA) or ``score`` (the others), copied
    into a common column ``value``."""
    _check(model, split, frame_kind)
    seed = check_seed("seed", seed)
    hits = frame_hits(model, split, frame_kind, "image")
    cap = frame_hits(model, split, frame_kind, "caption")
    ev = split.eval.subset(split.eval.kind == frame_kind)
    out = {
        "DIS-CO": _table(split, ev, hits.astype(float), "accuracy"),
        "⌊DIS-CO⌋": _table(split, ev, (hits & ~cap).astype(float), "accuracy"),
        "MCQA (decoys)": mcqa_scores(model, split, frame_kind, distractors="decoys", seed=seed),
        "MCQA (others)": mcqa_scores(model, split, frame_kind, distractors="others", seed=seed),
        "perplexity": mia_scores(model, split, "perplexity", frame_kind=frame_kind),
        "Min-K%": mia_scores(model, split, "min_k", frame_kind=frame_kind),
        "oracle": oracle_scores(model, split, frame_kind),
    }
    for t in out.values():
        t["value"] = t["accuracy"] if "accuracy" in t else t["score"]
    return out
