"""The glyph world: a toy victim on scikit-learn digits and a stochastic glyph renderer.

* The **victim** V is an MLP on the 8×8 digits (pixels 0..16) behind a black box that answers
  the top-1 label only, counts every queried row and can enforce a query budget.
* The **generator** G stands in for a text-to-image model: a *prompt* is a dict over the slots
  :data:`SLOTS` (a glyph's character, font, weight, slant, rotation, aspect, and three context
  slots, ``background``, ``polarity``, ``scale``, a T2I prompt's scene and style); G renders it
  with Pillow from matplotlib's bundled text fonts and applies the UCI digits preprocessing
  (crop → 32 px height → 4×4 block counts → 8×8 in 0..16), with nuisance jitter per image.
  It knows nothing about the victim or about which characters are its classes.
"""

from __future__ import annotations

import os
import warnings
from functools import lru_cache

import matplotlib
import numpy as np
from PIL import Image, ImageDraw, ImageFilter, ImageFont
from sklearn.datasets import load_digits
from sklearn.exceptions import ConvergenceWarning
from sklearn.model_selection import train_test_split
from sklearn.neural_network import MLPClassifier

from icml25.common.checks import check_instance, check_int, check_real, check_rng, check_seed

FONT_DIR = os.path.join(os.path.dirname(matplotlib.__file__), "mpl-data", "fonts", "ttf")
#: The 20 text fonts bundled with matplotlib (symbol fonts excluded).
FONTS: tuple[str, ...] = (
    "DejaVuSans",
    "DejaVuSans-Bold",
    "DejaVuSans-Oblique",
    "DejaVuSans-BoldOblique",
    "DejaVuSerif",
    "DejaVuSerif-Bold",
    "DejaVuSerif-Italic",
    "DejaVuSerif-BoldItalic",
    "DejaVuSansMono",
    "DejaVuSansMono-Bold",
    "DejaVuSansMono-Oblique",
    "DejaVuSansMono-BoldOblique",
    "STIXGeneral",
    "STIXGeneralBol",
    "STIXGeneralItalic",
    "cmr10",
    "cmss10",
    "cmtt10",
    "cmb10",
    "cmti10",
)
CHARS = tuple("0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz")
#: Slot -> its tokens (the generator's vocabulary, before a font subset is chosen).
SLOTS: dict[str, tuple] = {
    "char": CHARS,
    "font": FONTS,
    "weight": (0, 1, 2, 3),
    "slant": (-0.3, -0.15, 0.0, 0.15, 0.3),
    "rotation": (-20, -10, 0, 10, 20),
    "aspect": (0.6, 0.8, 1.0, 1.25),
    "background": ("none", "speckle", "stripes", "frame"),
    "polarity": ("normal", "inverted"),
    "scale": ("full", "small"),
}


class BudgetExceeded(RuntimeError):
    """A query that would exceed the victim's budget (it is neither answered nor counted)."""

    def __init__(self, message: str = "the query would exceed the victim's budget") -> None:
        if not isinstance(message, str):
            raise TypeError(f"message must be a string, got {type(message).__name__}")
        super().__init__(message)


def check_images(name: str, X: object) -> np.ndarray:
    """``X`` as a float array (N, 64) of pixels in 0..16; raise naming ``name`` otherwise."""
    if not isinstance(X, np.ndarray):
        raise TypeError(f"{name} must be a numpy array of shape (N, 64), got {type(X).__name__}")
    if not np.issubdtype(X.dtype, np.number) or np.iscomplexobj(X) or X.dtype == bool:
        raise TypeError(f"{name} must hold real numbers, got dtype {X.dtype}")
    if X.ndim != 2 or X.shape[1] != 64 or X.shape[0] == 0:
        raise ValueError(f"{name} must have shape (N >= 1, 64), got {X.shape}")
    X = X.astype(float)
    if not np.all(np.isfinite(X)) or X.min() < 0 or X.max() > 16:
        raise ValueError(f"{name} must hold finite pixels in 0..16")
    return X


def load_victim_data(seed: int = 0) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """``(Xtr, ytr, Xte, yte)``: scikit-learn digits, stratified 70/30 split; X (N, 64) in 0..16."""
    seed = check_seed("seed", seed)
    X, y = load_digits(return_X_y=True)
    Xtr, Xte, ytr, yte = train_test_split(
        X.astype(float), y, test_size=0.3, stratify=y, random_state=seed % 2**32
    )
    return Xtr, ytr, Xte, yte


class BlackBoxVictim:
    """The victim V behind a query counter: ``query(X)`` returns top-1 labels only.

    Every queried row is counted in :attr:`n_queries`; with :attr:`budget` set, a query that
    would exceed it raises :class:`BudgetExceeded` and is neither answered nor counted.
    """

    def __init__(self, model: MLPClassifier, budget: int | None = None) -> None:
        self._model = check_instance("model", model, MLPClassifier)
        self.n_queries = 0
        self.budget = None if budget is None else check_int("budget", budget, 0)

    def reset(self, budget: int | None = None) -> None:
        """Set the counter to 0 and the budget to ``budget`` (None: unlimited)."""
        self.budget = None if budget is None else check_int("budget", budget, 0)
        self.n_queries = 0

    def query(self, X: np.ndarray) -> np.ndarray:
        """Top-1 labels (N,) int of ``X`` (N, 64) in 0..16; counts N queries."""
        X = check_images("X", X)
        if self.budget is not None and self.n_queries + len(X) > self.budget:
            raise BudgetExceeded(
                f"query of {len(X)} rows exceeds the budget "
                f"({self.n_queries} of {self.budget} used)"
            )
        self.n_queries += len(X)
        return self._model.predict(X / 16.0).astype(int)

    def _labels(self, X: np.ndarray) -> np.ndarray:
        """Labels without counting: for evaluation on the test split only, never for an attack."""
        return self._model.predict(check_images("X", X) / 16.0).astype(int)

    def features(self, X: np.ndarray) -> np.ndarray:
        """Penultimate activations (N, hidden) of ``X`` (analysis only: not counted)."""
        X = check_images("X", X) / 16.0
        return np.maximum(X @ self._model.coefs_[0] + self._model.intercepts_[0], 0.0)


def train_victim(
    Xtr: np.ndarray, ytr: np.ndarray, hidden: int = 128, seed: int = 0
) -> BlackBoxVictim:
    """Train V, an MLP with one ``hidden`` layer, on ``Xtr`` (N, 64) in 0..16 and ``ytr`` (N,)."""
    Xtr = check_images("Xtr", Xtr)
    ytr = _check_labels("ytr", ytr, len(Xtr))
    hidden = check_int("hidden", hidden, 1)
    seed = check_seed("seed", seed)
    model = MLPClassifier((hidden,), max_iter=400, random_state=seed % 2**32)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        model.fit(Xtr / 16.0, ytr)
    return BlackBoxVictim(model)


def _check_labels(name: str, y: object, n: int) -> np.ndarray:
    if not isinstance(y, np.ndarray) or not np.issubdtype(y.dtype, np.integer):
        raise TypeError(f"{name} must be an int numpy array of labels")
    if y.shape != (n,):
        raise ValueError(f"{name} must have shape ({n},), got {y.shape}")
    if y.min() < 0 or y.max() > 9:
        raise ValueError(f"{name} must hold labels in 0..9")
    return y.astype(int)


@lru_cache(maxsize=64)
def _font(name: str) -> ImageFont.FreeTypeFont:
    return ImageFont.truetype(os.path.join(FONT_DIR, name + ".ttf"), 44)


@lru_cache(maxsize=2048)
def _glyph(char: str, font: str) -> Image.Image:
    """The 72×72 raster of ``char`` in ``font`` before any jitter (deterministic, so drawn once
    per pair; at most 62 × 20 of them). Callers must not draw on it."""
    img = Image.new("L", (72, 72), 0)
    ImageDraw.Draw(img).text((36, 36), char, fill=255, font=_font(font), anchor="mm")
    return img


class PromptSlots:
    """What every generator shares: :attr:`vocab` (slot -> tuple of tokens), :attr:`slots`, and
    the prompt methods :meth:`check_prompt` and :meth:`random_prompt` (a base class only: the
    generators are :class:`GlyphGenerator` and ``icml25.stealix.cvae.CVAEGenerator``)."""

    vocab: dict[str, tuple]
    slots: tuple[str, ...]

    def check_prompt(self, prompt: object, name: str = "prompt") -> dict:
        """``prompt`` if it is a dict with a known token in every slot; raise naming ``name``."""
        if not isinstance(prompt, dict):
            raise TypeError(f"{name} must be a dict over the slots {self.slots}")
        if set(prompt) != set(self.slots):
            raise ValueError(f"{name} must have exactly the slots {self.slots}, got {list(prompt)}")
        for slot, value in prompt.items():
            if not any(type(value) is type(v) and value == v for v in self.vocab[slot]):
                raise ValueError(f"{name} has unknown token {value!r} in slot {slot!r}")
        return dict(prompt)

    def random_prompt(self, rng: np.random.Generator) -> dict:
        """A prompt with every slot drawn uniformly from its tokens."""
        rng = check_rng("rng", rng)
        return {s: v[int(rng.integers(len(v)))] for s, v in self.vocab.items()}


class GlyphGenerator(PromptSlots):
    """G, the text-to-image stand-in: ``generate(prompt, m)`` renders m glyph images (m, 64).

    ``fonts``: a subset of :data:`FONTS` (None: all 20); ``noise``: nuisance jitter per image
    (rotation ±30·noise degrees, shear ±noise, a shift of up to 20·noise px on the 32 px canvas
    and a share noise/20 of flipped pixels); ``seed``: the default stream of :meth:`generate`.
    """

    def __init__(self, fonts: tuple[str, ...] | None = None, noise: float = 0.1, seed: int = 0):
        if fonts is not None:
            if isinstance(fonts, str) or not isinstance(fonts, (tuple, list)) or not fonts:
                raise TypeError("fonts must be a non-empty tuple of font names or None")
            bad = [f for f in fonts if not isinstance(f, str) or f not in FONTS]
            if bad:
                raise ValueError(f"fonts has unknown font(s) {bad!r}; choose from FONTS")
        self.noise = check_real("noise", noise, 0.0, 1.0)
        self._rng = np.random.default_rng(check_seed("seed", seed))
        self.vocab: dict[str, tuple] = dict(SLOTS)
        self.vocab["font"] = tuple(fonts) if fonts is not None else FONTS
        self.slots: tuple[str, ...] = tuple(self.vocab)

    def generate(self, prompt: dict, m: int, seed: int | None = None) -> np.ndarray:
        """``m`` renderings (m, 64) in 0..16 of ``prompt``, each with its own nuisance jitter."""
        prompt = self.check_prompt(prompt)
        m = check_int("m", m, 1)
        rng = self._rng if seed is None else np.random.default_rng(check_seed("seed", seed))
        return np.stack([self._render(prompt, rng) for _ in range(m)])

    def _render(self, p: dict, rng: np.random.Generator) -> np.ndarray:
        img = _glyph(p["char"], p["font"])
        angle = np.deg2rad(p["rotation"] + rng.uniform(-30, 30) * self.noise)
        shear = p["slant"] + rng.uniform(-1, 1) * self.noise
        rot = np.array([[np.cos(angle), -np.sin(angle)], [np.sin(angle), np.cos(angle)]])
        inv = np.linalg.inv(rot @ np.array([[1.0, -shear], [0.0, 1.0]]))  # output -> input
        c = np.array([36.0, 36.0])
        off = c - inv @ c
        coeffs = (inv[0, 0], inv[0, 1], off[0], inv[1, 0], inv[1, 1], off[1])
        a = np.asarray(img.transform(img.size, Image.AFFINE, coeffs, Image.BILINEAR)) > 127
        canvas = np.zeros((32, 32), bool)
        if a.any():
            ys, xs = np.nonzero(a)
            a = a[ys.min() : ys.max() + 1, xs.min() : xs.max() + 1]
            h = 32 if p["scale"] == "full" else 18
            w = min(max(round(h * a.shape[1] / a.shape[0] * p["aspect"]), 2), 32)
            glyph = Image.fromarray((a * 255).astype(np.uint8)).resize((w, h), Image.BILINEAR)
            shift = int(rng.integers(-1, 2) * round(20 * self.noise)) if self.noise else 0
            x0 = min(max((32 - w) // 2 + shift, 0), 32 - w)
            y0 = (32 - h) // 2
            canvas[y0 : y0 + h, x0 : x0 + w] = np.asarray(glyph) > 127
        if p["weight"]:
            im = Image.fromarray((canvas * 255).astype(np.uint8))
            for _ in range(p["weight"]):
                im = im.filter(ImageFilter.MaxFilter(3))
            canvas = np.asarray(im) > 127
        if p["background"] == "speckle":
            canvas = canvas | (rng.random((32, 32)) < 0.1)
        elif p["background"] == "stripes":
            canvas[(np.arange(32) + int(rng.integers(6))) % 6 < 2, :] = True
        elif p["background"] == "frame":
            canvas[:3, :] = canvas[-3:, :] = canvas[:, :3] = canvas[:, -3:] = True
        if p["polarity"] == "inverted":
            canvas = ~canvas
        canvas = canvas ^ (rng.random((32, 32)) < self.noise / 20)
        return canvas.reshape(8, 4, 8, 4).sum(axis=(1, 3)).reshape(64).astype(float)
