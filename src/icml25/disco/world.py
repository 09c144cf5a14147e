"""MovieTection-Synth: synthetic movies, their frames and captions, and the suspect/clean split.

No real movie, frame or title is used anywhere (MovieTection's frames are copyrighted and its hub
copy is not reachable offline). A movie is

* a **title**: two pseudo-words from a syllable generator, pairwise ``rapidfuzz`` ratio < 60 so
  that no fuzzy match confuses two titles;
* a **palette** of three named colours, a smooth **texture** (its own seed), a **sprite** (one
  fixed scikit-learn ``load_digits`` image, upscaled ×2 and tinted: the "main character") and a
  **prop** glyph (a 5×5 pattern: what a neutral frame shows).

Frames are (32, 32, 3) floats in [0, 1]; ``kind="main"`` shows the sprite, ``"neutral"`` only the
background and the prop. Captions describe colours, prop and (main) the figure, never the title.
"""

from __future__ import annotations

import string
from dataclasses import dataclass, field
from functools import cache

import numpy as np
from rapidfuzz import fuzz

from icml25.common.checks import (
    check_choice,
    check_index_array,
    check_instance,
    check_int,
    check_rng,
    check_seed,
)

__all__ = [
    "COLOURS",
    "KINDS",
    "PROPS",
    "FrameSet",
    "MovieSpec",
    "Split",
    "caption",
    "make_movies",
    "make_split",
    "render_frame",
]

KINDS = ("main", "neutral")
SIZE = 32
#: Named colours of the palettes (RGB in [0, 1]); captions use the names.
COLOURS: dict[str, tuple[float, float, float]] = {
    "red": (0.85, 0.15, 0.15),
    "orange": (0.95, 0.55, 0.1),
    "yellow": (0.95, 0.9, 0.2),
    "green": (0.2, 0.7, 0.25),
    "teal": (0.1, 0.6, 0.6),
    "blue": (0.15, 0.3, 0.85),
    "purple": (0.55, 0.2, 0.75),
    "pink": (0.95, 0.5, 0.7),
    "brown": (0.5, 0.3, 0.15),
    "grey": (0.55, 0.55, 0.55),
}
#: Props are drawn in one near-white for every movie (the third palette colour is the sprite's).
PROP_COLOUR = (0.97, 0.97, 0.97)
#: Prop glyphs (5×5 binary patterns) by name.
PROPS: dict[str, tuple[str, ...]] = {
    "cross": ("..#..", "..#..", "#####", "..#..", "..#.."),
    "ring": (".###.", "#...#", "#...#", "#...#", ".###."),
    "bar": (".....", "#####", "#####", "#####", "....."),
    "arrow": ("..#..", ".###.", "#.#.#", "..#..", "..#.."),
    "star": ("#...#", ".#.#.", "..#..", ".#.#.", "#...#"),
    "box": ("#####", "#...#", "#...#", "#...#", "#####"),
    "steps": ("#....", "##...", "###..", "####.", "#####"),
    "gate": ("#####", "#...#", "#...#", "#...#", "#...#"),
}
_ONSETS = ("b", "d", "f", "g", "k", "l", "m", "n", "p", "r", "s", "t", "v", "z", "br", "tr", "st")
_VOWELS = ("a", "e", "i", "o", "u")
_CODAS = ("", "", "n", "r", "l", "s", "x")
#: Characters titles and captions are written in (the tokenizer's alphabet adds markers).
ALPHABET = string.ascii_lowercase + string.ascii_uppercase + " ,"


@dataclass(frozen=True)
class MovieSpec:
    """One synthetic movie: ``title``, ``palette`` (3 colour names), ``texture`` (seed),
    ``sprite`` (index into ``load_digits``), ``prop`` (a key of :data:`PROPS`)."""

    title: str
    palette: tuple[str, str, str]
    texture: int
    sprite: int
    prop: str


@dataclass
class FrameSet:
    """Frames with their movie and kind: ``frames`` (N, 32, 32, 3) in [0, 1], ``movie`` (N,)
    indexes ``Split.movies``, ``kind`` (N,) of "main"/"neutral", ``caption`` list of N strings."""

    frames: np.ndarray
    movie: np.ndarray
    kind: np.ndarray
    caption: list[str]

    def __len__(self) -> int:
        return len(self.movie)

    def subset(self, mask: np.ndarray) -> FrameSet:
        """The rows where ``mask`` (N,) is true."""
        idx = np.flatnonzero(mask)
        return FrameSet(
            self.frames[idx], self.movie[idx], self.kind[idx], [self.caption[i] for i in idx]
        )


@dataclass
class Split:
    """Suspect/clean split: ``movies``; ``label`` (M,) 1 = suspect; ``exposure`` (M,) training
    frames per movie (0 for clean); ``train`` and ``eval`` frame sets; ``text_known`` (M,) bool,
    the suspects whose caption → title text is in the training data (planted text knowledge)."""

    movies: list[MovieSpec]
    label: np.ndarray
    exposure: np.ndarray
    train: FrameSet
    eval: FrameSet
    text_known: np.ndarray
    text_pairs: list[tuple[str, str]] = field(default_factory=list)

    @property
    def titles(self) -> list[str]:
        return [m.title for m in self.movies]


def _word(rng: np.random.Generator) -> str:
    n = int(rng.integers(2, 4))
    parts = [
        _ONSETS[rng.integers(len(_ONSETS))] + _VOWELS[rng.integers(len(_VOWELS))] for _ in range(n)
    ]
    return ("".join(parts) + _CODAS[rng.integers(len(_CODAS))]).capitalize()


def make_movies(n_movies: int = 40, seed: int = 0) -> list[MovieSpec]:
    """``n_movies`` synthetic movies; titles pairwise ``fuzz.ratio`` < 60 (rejection sampling)."""
    n_movies = check_int("n_movies", n_movies, 2, 400)
    rng = np.random.default_rng(check_seed("seed", seed))
    n_digits = len(_digits())
    titles: list[str] = []
    while len(titles) < n_movies:
        t = f"{_word(rng)} {_word(rng)}"
        if all(fuzz.ratio(t.casefold(), u.casefold()) < 60 for u in titles):
            titles.append(t)
    names = list(COLOURS)
    sprites = rng.choice(n_digits, size=n_movies, replace=False)
    movies = []
    for i, t in enumerate(titles):
        pal = tuple(names[j] for j in rng.choice(len(names), 3, replace=False))
        movies.append(
            MovieSpec(
                t,
                pal,
                int(rng.integers(2**31)),
                int(sprites[i]),
                list(PROPS)[int(rng.integers(len(PROPS)))],
            )
        )
    return movies


def _texture(movie: MovieSpec) -> np.ndarray:
    """The movie's smooth 48×48×3 background: a few low-frequency waves mixing its palette."""
    r = np.random.default_rng(movie.texture)
    yy, xx = np.mgrid[0:48, 0:48] / 48.0
    w = []
    for _ in range(2):
        fx, fy, ph = r.uniform(0.5, 2.5), r.uniform(0.5, 2.5), r.uniform(0, 2 * np.pi)
        w.append(0.5 + 0.5 * np.sin(2 * np.pi * (fx * xx + fy * yy) + ph))
    c0, c1, _ = (np.array(COLOURS[c]) for c in movie.palette)
    mix = (w[0] * w[1])[..., None]
    return (1 - mix) * c0 + mix * c1


@cache
def _digits() -> np.ndarray:
    from sklearn.datasets import load_digits

    return load_digits().images / 16.0


def _sprite(movie: MovieSpec) -> np.ndarray:
    """The protagonist: the movie's digit image, 16×16 (×2), intensity in [0, 1]."""
    return np.kron(_digits()[movie.sprite], np.ones((2, 2)))


def _check_movie(movie) -> MovieSpec:
    return check_instance("movie", movie, MovieSpec)


def render_frame(
    movie: MovieSpec, kind: str = "main", rng: np.random.Generator | None = None
) -> np.ndarray:
    """One frame (32, 32, 3) in [0, 1]: a random 32×32 crop of the texture, brightness jitter,
    N(0, 0.05²) noise; ``main`` adds the sprite tinted in the third palette colour (random
    position), ``neutral`` the near-white prop.
    ``rng`` defaults to ``default_rng(0)``."""
    movie = _check_movie(movie)
    kind = check_choice("kind", kind, KINDS)
    rng = check_rng("rng", rng, default_seed=0)
    tex = _texture(movie)
    y, x = rng.integers(0, 48 - SIZE + 1, 2)
    img = tex[y : y + SIZE, x : x + SIZE] * rng.uniform(0.8, 1.1)
    if kind == "main":
        s = _sprite(movie)[..., None]
        py, px = rng.integers(0, SIZE - 16 + 1, 2)
        tint = np.array(COLOURS[movie.palette[2]])
        patch = img[py : py + 16, px : px + 16]
        img[py : py + 16, px : px + 16] = (1 - s) * patch + s * tint
    else:
        g = np.array([[c == "#" for c in row] for row in PROPS[movie.prop]], float)
        g = np.kron(g, np.ones((2, 2)))[..., None]
        py, px = rng.integers(0, SIZE - 10 + 1, 2)
        tint = np.array(PROP_COLOUR)
        patch = img[py : py + 10, px : px + 10]
        img[py : py + 10, px : px + 10] = (1 - g) * patch + g * tint
    img = img + rng.normal(0, 0.05, img.shape)
    return np.clip(img, 0.0, 1.0)


_TEMPLATES = {
    "main": ("a figure in {c2} on {c0} and {c1}", "{c0} and {c1} scene, a {c2} figure"),
    "neutral": ("a white {prop} on {c0} and {c1}", "{c0} and {c1} scene, a white {prop}"),
}


def caption(movie: MovieSpec, kind: str = "main", rng: np.random.Generator | None = None) -> str:
    """A template caption of a frame: its colours and figure or prop; never the title.
    ``rng`` (default ``default_rng(0)``) picks the template."""
    movie = _check_movie(movie)
    kind = check_choice("kind", kind, KINDS)
    rng = check_rng("rng", rng, default_seed=0)
    tpl = _TEMPLATES[kind][int(rng.integers(len(_TEMPLATES[kind])))]
    c0, c1, c2 = movie.palette
    return tpl.format(c0=c0, c1=c1, c2=c2, prop=movie.prop)


def _frames(movies, idx, kinds, rng) -> FrameSet:
    frames = np.stack([render_frame(movies[i], k, rng) for i, k in zip(idx, kinds, strict=True)])
    caps = [caption(movies[i], k, rng) for i, k in zip(idx, kinds, strict=True)]
    return FrameSet(frames.astype(np.float32), np.asarray(idx, int), np.asarray(kinds), caps)


def make_split(
    movies: list[MovieSpec],
    exposures: tuple[int, ...] = (2, 4, 8, 16, 32),
    n_suspect: int | None = None,
    n_eval: int = 20,
    seed: int = 0,
) -> Split:
    """The suspect/clean split and its frames.

    The first ``n_suspect`` movies (default half) are suspects, with exposure e cycling over
    ``exposures``: e training frames each, main and neutral 3:1 (ceil(3e/4) main), with their
    captions; a third of the suspects (every third) also get caption → title text pairs, one per
    training frame. Clean movies appear nowhere in ``train`` (asserted). ``eval`` holds ``n_eval``
    fresh main and ``n_eval`` fresh neutral frames per movie.
    """
    if not isinstance(movies, list) or not movies:
        raise TypeError("movies must be a non-empty list of MovieSpec")
    for m in movies:
        check_instance("movies", m, MovieSpec)
    M = len(movies)
    if M < 2:
        raise ValueError(f"movies must hold at least 2 movies, got {M}")
    if isinstance(exposures, (str, bytes)) or not isinstance(exposures, (tuple, list)):
        raise TypeError(f"exposures must be a tuple of ints, got {type(exposures).__name__}")
    if not exposures:
        raise ValueError("exposures must not be empty")
    exposures = tuple(check_int("exposures", e, 1, 10_000) for e in exposures)
    if n_suspect is None:
        n_suspect = M // 2
    n_suspect = check_int("n_suspect", n_suspect, 1)
    if n_suspect >= M:
        raise ValueError(f"n_suspect must be < n_movies = {M} (some clean movies), got {n_suspect}")
    n_eval = check_int("n_eval", n_eval, 1, 10_000)
    rng = np.random.default_rng(check_seed("seed", seed))
    label = np.zeros(M, int)
    label[:n_suspect] = 1
    exposure = np.zeros(M, int)
    exposure[:n_suspect] = [exposures[i % len(exposures)] for i in range(n_suspect)]
    text_known = np.zeros(M, bool)
    text_known[:n_suspect:3] = True
    idx, kinds = [], []
    for i in range(n_suspect):
        n_main = -(-3 * int(exposure[i]) // 4)
        idx += [i] * int(exposure[i])
        kinds += ["main"] * n_main + ["neutral"] * (int(exposure[i]) - n_main)
    train = _frames(movies, idx, kinds, rng)
    text_pairs = [
        (c, movies[i].title)
        for c, i in zip(train.caption, train.movie, strict=True)
        if text_known[i]
    ]
    clean = {movies[i].title for i in range(n_suspect, M)}
    seen = {movies[i].title for i in train.movie} | {t for _, t in text_pairs}
    assert not clean & seen, "leakage: a clean title is a training target"
    assert not (label[train.movie] == 0).any(), "leakage: a clean movie's frame is in training"
    idx = [i for i in range(M) for _ in range(2 * n_eval)]
    kinds = [k for _ in range(M) for k in KINDS for _ in range(n_eval)]
    ev = _frames(movies, idx, kinds, rng)
    return Split(list(movies), label, exposure, train, ev, text_known, text_pairs)


def check_frames(name: str, frames: object) -> np.ndarray:
    """``frames`` as a float32 array (N, 32, 32, 3) in [0, 1]; raise naming ``name`` otherwise."""
    if not isinstance(frames, np.ndarray):
        raise TypeError(f"{name} must be a numpy array (N, 32, 32, 3), got {type(frames).__name__}")
    if frames.ndim != 4 or frames.shape[1:] != (SIZE, SIZE, 3) or len(frames) == 0:
        raise ValueError(f"{name} must have shape (N, 32, 32, 3), got {frames.shape}")
    if not np.issubdtype(frames.dtype, np.floating):
        raise TypeError(f"{name} must hold floats in [0, 1], got dtype {frames.dtype}")
    if not np.all(np.isfinite(frames)) or frames.min() < 0 or frames.max() > 1:
        raise ValueError(f"{name} must be finite and lie in [0, 1]")
    return frames.astype(np.float32, copy=False)


def check_movie_index(name: str, movie: object, n: int) -> np.ndarray:
    """``movie`` as int indices in [0, n)."""
    return check_index_array(name, movie, n, ndim=1)
