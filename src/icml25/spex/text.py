"""A small sentiment classifier whose decisions contain interactions: the explicand of the
chapter's headline experiment (in place of the paper's LLMs).

Reviews are token sequences: mostly filler words, a few sentiment words, and negators ("not")
that flip the sentiment word right after them. The label is the sign of the summed (negated)
sentiment, so "not" x "good" is a genuine pairwise interaction that additive explanations
cannot represent. The model is a 1-D CNN (kernel 3) with sum pooling, trained from scratch.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

from icml25.common.checks import (
    check_choice,
    check_index,
    check_index_array,
    check_instance,
    check_int,
    check_positive,
    check_probabilities,
    check_probability,
    check_real,
    check_seed,
)
from icml25.common.training import minibatch_training
from icml25.spex.inputs import check_masks

__all__ = [
    "AttentionClassifier",
    "MASK",
    "NOT",
    "VOCAB",
    "TextCNN",
    "make_multihop_task",
    "make_reviews",
    "masked_value_fn",
    "train_text_model",
    "word",
]

PAD, MASK, NOT = 0, 1, 2
POSITIVE = tuple(range(3, 8))
NEGATIVE = tuple(range(8, 13))
FILLERS = tuple(range(13, 63))
VOCAB = 63
_WORDS = (
    ["<pad>", "<mask>", "not"]
    + ["good", "great", "superb", "lovely", "fun"]
    + ["bad", "awful", "boring", "dull", "poor"]
    + [f"w{i}" for i in range(len(FILLERS))]
)


def word(token: int) -> str:
    """The display word of a token id (0..VOCAB−1)."""
    return _WORDS[check_index("token", token, VOCAB)]


def make_reviews(
    n_reviews: int, length: int, n_sentiment: int = 6, p_not: float = 0.4, seed: int = 0
) -> tuple[np.ndarray, np.ndarray]:
    """Synthetic reviews (n_reviews, length) of token ids and their labels (n_reviews,) in {0,1}.

    Each review places ``n_sentiment`` sentiment words at random positions (each preceded by
    "not" with probability ``p_not``) among filler words. Label: 1 if the sum of +1 (positive)
    and -1 (negative) words, each flipped when negated, is positive; ties are broken at random.
    """
    n_reviews = check_int("n_reviews", n_reviews)
    length = check_int("length", length, 4)
    n_sentiment = check_int("n_sentiment", n_sentiment, 1)
    if n_sentiment > length // 2 - 1:  # the even slots 2, 4, .. below length hold them
        raise ValueError(
            f"length {length} is too short for n_sentiment={n_sentiment} (negated) sentiment "
            f"words: at most length // 2 - 1 = {length // 2 - 1}"
        )
    p_not = check_probability("p_not", p_not)
    rng = np.random.default_rng(check_seed("seed", seed))
    X = rng.choice(FILLERS, size=(n_reviews, length))
    score = np.zeros(n_reviews)
    for r in range(n_reviews):
        slots = rng.choice(np.arange(1, length // 2), size=n_sentiment, replace=False) * 2
        for pos in slots:
            polarity = rng.choice([-1, 1])
            X[r, pos] = rng.choice(POSITIVE if polarity > 0 else NEGATIVE)
            if rng.random() < p_not:
                X[r, pos - 1] = NOT
                polarity = -polarity
            score[r] += polarity
    y = np.where(score == 0, rng.integers(0, 2, n_reviews), score > 0).astype(np.int64)
    return X.astype(np.int64), y


class TextCNN(nn.Module):
    """Embedding (VOCAB, d) -> Conv1d(kernel 3) -> ReLU -> sum over positions -> logit.

    Input (B, L) token ids of any length L; output (B,) the positive-class logit. With sum
    pooling the logit is a sum of functions of three consecutive tokens, so its interactions
    are local and of order at most 3.
    """

    def __init__(self, d: int = 16, channels: int = 32) -> None:
        super().__init__()
        d, channels = check_int("d", d), check_int("channels", channels)
        self.emb = nn.Embedding(VOCAB, d)
        self.conv = nn.Conv1d(d, channels, 3, padding=1)
        self.out = nn.Linear(channels, 1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        h = F.relu(self.conv(self.emb(x).transpose(1, 2)))  # (B, channels, L)
        return self.out(h.sum(-1)).squeeze(-1)


class AttentionClassifier(nn.Module):
    """Embedding + learned positions (VOCAB, d), one self-attention block (``heads`` heads,
    residual, then a ReLU feed-forward layer) -> mean over positions -> logit.

    Input (B, L) token ids with L <= ``max_len``; output (B,) the positive-class logit. Unlike
    :class:`TextCNN` nothing bounds the order or the locality of its interactions: the softmax
    couples every position with every other.
    """

    def __init__(self, d: int = 32, heads: int = 2, max_len: int = 256) -> None:
        super().__init__()
        d, heads = check_int("d", d), check_int("heads", heads)
        self.max_len = check_int("max_len", max_len)
        if d % heads:
            raise ValueError(f"d must be a multiple of heads ({heads}), got {d}")
        self.emb = nn.Embedding(VOCAB, d)
        self.pos = nn.Embedding(self.max_len, d)
        self.attn = nn.MultiheadAttention(d, heads, batch_first=True)
        self.ff = nn.Sequential(nn.Linear(d, d), nn.ReLU())
        self.out = nn.Linear(d, 1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if x.shape[1] > self.max_len:
            raise ValueError(f"x has {x.shape[1]} positions, more than max_len={self.max_len}")
        h = self.emb(x) + self.pos(torch.arange(x.shape[1]))
        h = h + self.attn(h, h, h, need_weights=False)[0]
        h = h + self.ff(h)
        return self.out(h.mean(1)).squeeze(-1)


def train_text_model(
    X: np.ndarray,
    y: np.ndarray,
    epochs: int = 12,
    seed: int = 0,
    lr: float = 3e-3,
    mask_rate: float = 0.5,
    arch: str = "cnn",
) -> nn.Module:
    """Train a :class:`TextCNN` (``arch="cnn"``) or an :class:`AttentionClassifier`
    (``"attention"``) with logistic loss (the book's minibatch loop); eval mode.

    Each batch replaces filler words by ``<mask>`` with probability ``mask_rate``, so the model
    learns that masking an irrelevant word changes nothing (as a large LM roughly does); the
    labels are unaffected because fillers carry no sentiment. X is (n, L) token ids, y (n,)
    labels in [0, 1].
    """
    check_index_array("X", X, VOCAB, ndim=2, high_name="VOCAB")
    labels = check_probabilities("y", y, ndim=1)
    if len(labels) != len(X):
        raise ValueError(f"y must have one label per row of X ({len(X)}), got {len(labels)}")
    epochs, seed = check_int("epochs", epochs), check_seed("seed", seed)
    lr = check_positive("lr", lr)
    mask_rate = check_probability("mask_rate", mask_rate, high_open=True)
    arch = check_choice("arch", arch, ("cnn", "attention"))
    torch.manual_seed(seed)
    model = TextCNN() if arch == "cnn" else AttentionClassifier(max_len=max(256, X.shape[1]))
    Xt, yt = torch.as_tensor(X), torch.as_tensor(y).float()
    opt = torch.optim.Adam(model.parameters(), lr=lr)
    g = torch.Generator().manual_seed(seed)

    def step(idx: torch.Tensor) -> torch.Tensor:
        x = Xt[idx]
        drop = (x >= FILLERS[0]) & (torch.rand(x.shape, generator=g) < mask_rate)
        x = torch.where(drop, torch.tensor(MASK), x)
        return F.binary_cross_entropy_with_logits(model(x), yt[idx])

    minibatch_training(model, opt, step, len(Xt), epochs, 64, g, False)
    return model


def masked_value_fn(
    model: nn.Module, tokens: np.ndarray, batch_size: int = 2048
) -> Callable[[np.ndarray], np.ndarray]:
    """The value function of one review: masks (q, n) -> the model's logit with every masked
    token (``m_i = 0``) replaced by the ``<mask>`` token."""
    check_instance("model", model, nn.Module)
    tokens = check_index_array("tokens", tokens, VOCAB, ndim=1, high_name="VOCAB")
    batch_size = check_int("batch_size", batch_size)
    n = len(tokens)
    base = torch.as_tensor(tokens)

    @torch.no_grad()
    def value_fn(masks: np.ndarray) -> np.ndarray:
        m = torch.as_tensor(check_masks(masks, n).astype(bool))
        out = []
        for s in range(0, len(m), batch_size):
            x = torch.where(m[s : s + batch_size], base, torch.tensor(MASK))
            out.append(model(x))
        return torch.cat(out).numpy().astype(float) if out else np.zeros(0)

    return value_fn


def make_multihop_task(
    n: int,
    hops: int = 3,
    seed: int = 0,
    shortcut_effect: float = 0.0,
    n_distractors: int = 0,
    distractor_effect: float = 0.0,
) -> tuple[Callable[[np.ndarray], np.ndarray], tuple[int, ...], int]:
    """A planted "multi-hop question" over ``n`` sentences (the HotpotQA analogue).

    The answer's score is ``4 prod_{i in S} m_i`` for a supporting set S of ``hops`` sentences
    (every hop is needed), plus a **shortcut** sentence whose main effect is
    ``shortcut_effect``, plus distractors: a main effect ``U(-0.4, 0.6)`` for every other
    sentence and five random pairs with ``U(0.3, 0.8)``. Each supporting sentence's marginal
    (Banzhaf) value is ``4 / 2^(hops - 1)`` (1.0 for three hops). The default
    ``shortcut_effect=0`` is the fair task; a shortcut above the hops' Banzhaf value (1.5, the
    chapter's first version) makes every marginal method rank it first by construction.

    ``n_distractors`` further sentences (not the hops, not the shortcut) get a strong main
    effect ``distractor_effect * U(0.9, 1.1)`` instead: above the hops' Banzhaf value they
    outrank the hops in any marginal ranking, and above the AND's weight (4) they also outrank
    the supporting set itself (its Faith-Banzhaf interaction). The defaults (none) leave the
    task and its random draws unchanged.

    Returns ``(value_fn, S, shortcut)``.
    """
    n = check_int("n", n, 8)
    hops = check_int("hops", hops, 2, 5)
    shortcut_effect = check_real("shortcut_effect", shortcut_effect)
    n_distractors = check_int("n_distractors", n_distractors, 0, n - hops - 1)
    distractor_effect = check_real("distractor_effect", distractor_effect)
    rng = np.random.default_rng(check_seed("seed", seed))
    order = rng.permutation(n)
    support = tuple(sorted(order[:hops].tolist()))
    shortcut = int(order[hops])
    main = rng.uniform(-0.4, 0.6, size=n)
    main[list(support)] = 0.0
    main[shortcut] = shortcut_effect
    others = order[hops + 1 :]
    pairs = [tuple(rng.choice(others, size=2, replace=False)) for _ in range(5)]
    pair_w = rng.uniform(0.3, 0.8, size=len(pairs))
    strong = order[hops + 1 : hops + 1 + n_distractors]
    main[strong] = distractor_effect * rng.uniform(0.9, 1.1, size=n_distractors)

    def value_fn(masks: np.ndarray) -> np.ndarray:
        m = check_masks(masks, n).astype(float)
        out = 4.0 * m[:, list(support)].prod(1) + m @ main
        for (i, j), w in zip(pairs, pair_w, strict=True):
            out += w * m[:, i] * m[:, j]
        return out

    return value_fn, support, shortcut
