"""The CLIP stand-in and Stealix's prompt refinement.

A :class:`DualEncoder` maps an image x (64 pixels) to I(x) and a prompt p (one token per slot) to
T(p), both unit vectors of ``dim`` entries, trained with the symmetric InfoNCE loss on rendered
(image, prompt) pairs of the glyph generator only: it never sees a digit from the victim's data.
Prompt refinement minimises the Stealix contrastive loss

    L(p) = -log[(e^{s(p, x_s)/τ} + e^{s(p, x⁺)/τ}) / (e^{s(p, x_s)/τ} + e^{s(p, x⁺)/τ}
                 + e^{s(p, x⁻)/τ})],   s(p, x) = T(p)·I(x),

by coordinate descent over the slots (the vocabulary is small, so each slot is set to its best
token in turn; L never increases).
"""

from __future__ import annotations

import numpy as np
import torch
from torch import nn

from icml25.common.checks import check_instance, check_int, check_positive, check_seed
from icml25.stealix.world import GlyphGenerator, check_images


class DualEncoder(nn.Module):
    """I: MLP 64 → 128 → dim on x/16; T: the sum of one embedding per slot token → MLP → dim."""

    def __init__(self, vocab: dict[str, tuple], dim: int = 32) -> None:
        if not isinstance(vocab, dict) or not vocab:
            raise TypeError("vocab must be a non-empty dict slot -> tuple of tokens")
        if not all(isinstance(v, (tuple, list)) and v for v in vocab.values()):
            raise ValueError("vocab must map every slot to a non-empty tuple of tokens")
        dim = check_int("dim", dim, 1)
        super().__init__()
        self.vocab = {s: tuple(v) for s, v in vocab.items()}
        self.slots = tuple(self.vocab)
        sizes = [len(v) for v in self.vocab.values()]
        self._offsets = np.cumsum([0] + sizes[:-1])
        # (type, token) -> index per slot: a token matches only a value of its own type
        self._lookup = [{(type(v), v): k for k, v in enumerate(t)} for t in self.vocab.values()]
        self.tokens = nn.Embedding(sum(sizes), 64)
        self.text = nn.Sequential(nn.ReLU(), nn.Linear(64, 128), nn.ReLU(), nn.Linear(128, dim))
        self.image = nn.Sequential(nn.Linear(64, 128), nn.ReLU(), nn.Linear(128, dim))
        self.history: list[float] = []  # mean loss per epoch, set by train_dual_encoder

    def token_ids(self, prompts: list[dict]) -> np.ndarray:
        """(n, n_slots) global token ids of ``prompts``."""
        if not isinstance(prompts, (list, tuple)) or not prompts:
            raise TypeError("prompts must be a non-empty list of prompt dicts")
        ids = np.empty((len(prompts), len(self.slots)), int)
        slots = set(self.slots)
        for i, p in enumerate(prompts):
            if not isinstance(p, dict) or p.keys() != slots:
                raise ValueError(f"prompts[{i}] must be a dict over the slots {self.slots}")
            for j, s in enumerate(self.slots):
                v = p[s]
                try:
                    k = self._lookup[j].get((type(v), v))
                except TypeError:  # an unhashable value is no token
                    k = None
                if k is None:
                    k = _index(self.vocab[s], v, f"prompts[{i}]", s)  # raises ValueError
                ids[i, j] = self._offsets[j] + k
        return ids

    def _text(self, ids: np.ndarray) -> torch.Tensor:
        z = self.text(self.tokens(torch.as_tensor(ids)).sum(1))
        return nn.functional.normalize(z, dim=1)

    def _image(self, X: np.ndarray | torch.Tensor) -> torch.Tensor:
        z = self.image(torch.as_tensor(X, dtype=torch.float32) / 16.0)
        return nn.functional.normalize(z, dim=1)

    @torch.no_grad()
    def encode_text(self, prompts: list[dict]) -> np.ndarray:
        """T(p) for each prompt: (n, dim) unit rows."""
        return self._encode_ids(self.token_ids(prompts))

    @torch.no_grad()
    def _encode_ids(self, ids: np.ndarray) -> np.ndarray:
        """T(p) from the (n, n_slots) global token ids of :meth:`token_ids`: (n, dim)."""
        return self._text(ids).numpy().astype(float)

    @torch.no_grad()
    def encode_image(self, X: np.ndarray) -> np.ndarray:
        """I(x) for each row of ``X`` (N, 64) in 0..16: (N, dim) unit rows."""
        return self._image(check_images("X", X)).numpy().astype(float)


def _index(tokens: tuple, value: object, name: str, slot: str) -> int:
    for k, v in enumerate(tokens):
        if type(v) is type(value) and v == value:
            return k
    raise ValueError(f"{name} has unknown token {value!r} in slot {slot!r}")


def train_dual_encoder(
    generator: GlyphGenerator,
    n_pairs: int = 20_000,
    epochs: int = 20,
    dim: int = 32,
    seed: int = 0,
) -> DualEncoder:
    """Train I and T with symmetric InfoNCE (τ = 0.1, batch 256, Adam 3e-3) on ``n_pairs``
    (rendering of a random prompt, that prompt) pairs of ``generator``; the returned model's
    ``history`` holds the mean batch loss of each epoch."""
    check_instance("generator", generator, GlyphGenerator)
    n_pairs = check_int("n_pairs", n_pairs, 2)
    epochs = check_int("epochs", epochs, 1)
    dim = check_int("dim", dim, 2)
    seed = check_seed("seed", seed)
    rng = np.random.default_rng(seed)
    prompts = [generator.random_prompt(rng) for _ in range(n_pairs)]
    X = np.concatenate([generator.generate(p, 1, seed=int(rng.integers(2**31))) for p in prompts])
    torch.manual_seed(seed)
    model = DualEncoder(generator.vocab, dim)
    ids = torch.as_tensor(model.token_ids(prompts))
    Xt = torch.as_tensor(X, dtype=torch.float32)
    opt = torch.optim.Adam(model.parameters(), lr=3e-3)
    g = torch.Generator().manual_seed(seed)
    for _ in range(epochs):
        losses = []
        for idx in torch.randperm(n_pairs, generator=g).split(256):
            if len(idx) < 2:
                continue
            logits = model._image(Xt[idx]) @ model._text(ids[idx].numpy()).T / 0.1
            target = torch.arange(len(idx))
            loss = nn.functional.cross_entropy(logits, target)
            loss = (loss + nn.functional.cross_entropy(logits.T, target)) / 2
            opt.zero_grad()
            loss.backward()
            opt.step()
            losses.append(float(loss.detach()))
        model.history.append(float(np.mean(losses)))
    return model.eval()


def _check_vlm(vlm: object) -> DualEncoder:
    return check_instance("vlm", vlm, DualEncoder)


def _check_prompt(vlm: DualEncoder, prompt: object, name: str) -> dict:
    if not isinstance(prompt, dict):
        raise TypeError(f"{name} must be a dict over the slots {vlm.slots}")
    if set(prompt) != set(vlm.slots):
        raise ValueError(f"{name} must have exactly the slots {vlm.slots}, got {list(prompt)}")
    for s in vlm.slots:
        _index(vlm.vocab[s], prompt[s], name, s)
    return dict(prompt)


def _check_set(name: str, X: object) -> np.ndarray:
    """A set of images (K, 64) in 0..16, possibly empty (K = 0)."""
    if isinstance(X, np.ndarray) and X.ndim == 2 and X.shape == (0, 64):
        return X.astype(float)
    return check_images(name, X)


def _losses(T: np.ndarray, s_img: np.ndarray, pos: np.ndarray, neg: np.ndarray, tau: float):
    """L for each row of T (K, dim), given I(x_s) (dim,), I(x⁺) (P, dim), I(x⁻) (N, dim).

    With several positives and negatives, e^{s(p, x⁺)/τ} and e^{s(p, x⁻)/τ} are their means
    (one positive and one negative give the paper's triplet loss); an empty set drops its term.
    """
    terms = [T @ s_img / tau]
    if len(pos):
        terms.append(np.log(np.mean(np.exp(T @ pos.T / tau), axis=1)))
    num = np.logaddexp.reduce(np.stack(terms), axis=0)
    if not len(neg):
        return np.zeros(len(T))
    den = np.logaddexp(num, np.log(np.mean(np.exp(T @ neg.T / tau), axis=1)))
    return den - num


def stealix_loss(
    vlm: DualEncoder,
    prompt: dict,
    seed_img: np.ndarray,
    positives: np.ndarray,
    negatives: np.ndarray,
    tau: float = 0.07,
) -> float:
    """The Stealix contrastive loss L of ``prompt`` for the seed x_s (64,), positives (P, 64)
    and negatives (N, 64) in 0..16 (P or N may be 0: an empty set drops its term)."""
    vlm = _check_vlm(vlm)
    prompt = _check_prompt(vlm, prompt, "prompt")
    s_img = vlm.encode_image(check_images("seed_img", _row(seed_img, "seed_img")))[0]
    pos = _encode_set(vlm, _check_set("positives", positives))
    neg = _encode_set(vlm, _check_set("negatives", negatives))
    tau = check_positive("tau", tau)
    return float(_losses(vlm.encode_text([prompt]), s_img, pos, neg, tau)[0])


def _row(x: object, name: str) -> np.ndarray:
    if not isinstance(x, np.ndarray):
        raise TypeError(f"{name} must be a numpy array of shape (64,)")
    if x.shape != (64,):
        raise ValueError(f"{name} must have shape (64,), got {x.shape}")
    return x[None]


def _encode_set(vlm: DualEncoder, X: np.ndarray) -> np.ndarray:
    return vlm.encode_image(X) if len(X) else np.zeros((0, vlm.image[-1].out_features))


def _descend(vlm: DualEncoder, prompt: dict, objective, sweeps: int) -> dict:
    """Coordinate descent: set each slot in turn to the token of lowest ``objective`` (T → (K,));
    a slot changes only if the objective strictly decreases, so it never increases."""
    prompt = dict(prompt)
    ids = vlm.token_ids([prompt])  # (1, n_slots), kept in step with ``prompt``
    best = objective(vlm._encode_ids(ids))[0]
    for _ in range(sweeps):
        changed = False
        for j, s in enumerate(vlm.slots):
            # every token of slot s in the current prompt: the ids of [{**prompt, s: v}, ...]
            cands = np.repeat(ids, len(vlm.vocab[s]), axis=0)
            cands[:, j] = vlm._offsets[j] + np.arange(len(vlm.vocab[s]))
            vals = objective(vlm._encode_ids(cands))
            k = int(np.argmin(vals))
            if vals[k] < best - 1e-12:
                prompt, ids = {**prompt, s: vlm.vocab[s][k]}, cands[k : k + 1]
                best, changed = vals[k], True
        if not changed:
            break
    return prompt


def refine_prompt(
    vlm: DualEncoder,
    seed_img: np.ndarray,
    positives: np.ndarray,
    negatives: np.ndarray,
    init_prompt: dict,
    tau: float = 0.07,
    sweeps: int = 1,
) -> dict:
    """Stealix's prompt refinement: ``sweeps`` rounds of coordinate descent on L from
    ``init_prompt`` (towards the seed and the positives, away from the negatives)."""
    vlm = _check_vlm(vlm)
    s_img = vlm.encode_image(check_images("seed_img", _row(seed_img, "seed_img")))[0]
    pos = _encode_set(vlm, _check_set("positives", positives))
    neg = _encode_set(vlm, _check_set("negatives", negatives))
    init_prompt = _check_prompt(vlm, init_prompt, "init_prompt")
    tau = check_positive("tau", tau)
    sweeps = check_int("sweeps", sweeps, 1)
    return _descend(vlm, init_prompt, lambda T: _losses(T, s_img, pos, neg, tau), sweeps)


def invert_prompt(vlm: DualEncoder, image: np.ndarray, seed: int = 0) -> dict:
    """The prompt nearest to ``image`` (64,) in the VLM space (max T(p)·I(x)), by coordinate
    ascent from a random prompt drawn with ``seed`` (up to 4 sweeps); no victim feedback."""
    vlm = _check_vlm(vlm)
    e = vlm.encode_image(check_images("image", _row(image, "image")))[0]
    rng = np.random.default_rng(check_seed("seed", seed))
    start = {s: v[int(rng.integers(len(v)))] for s, v in vlm.vocab.items()}
    return _descend(vlm, start, lambda T: -(T @ e), 4)
