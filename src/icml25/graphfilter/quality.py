"""Quality from the Instruction-Following Difficulty IFD(x, y) = PPL(y|x) / PPL(y).

SuperFilter (Li et al., 2024) scores IFD with GPT-2; offline we train a stand-in scorer on the
pool itself. ``lm="ngram"``: PPL(y) from an interpolated word bigram (0.6·bigram + 0.4·add-0.1
unigram), PPL(y|x) mixes it 50/50 with a co-occurrence "translation" table t(w|v) learned from
the pool (IBM-1-like). ``lm="transformer"``: a 2-layer word-level GPT-2 (``common.lm``) trained
on "x SEP y" and "SEP y" (on ``common.runtime.get_device()``), scored on the response tokens.
Higher IFD = the instruction helps less.
"""

from __future__ import annotations

import math
import re
from collections import Counter, defaultdict

import numpy as np
import torch
import torch.nn.functional as F

from icml25.common.checks import check_choice, check_finite_array, check_positive, check_seed
from icml25.graphfilter.data import _check_pairs

__all__ = ["ifd_scores", "quality_from_ifd"]

LMS = ("ngram", "transformer")
ORIENTATIONS = ("inverse", "paper", "superfilter")


def _tok(s: str) -> list[str]:
    return re.findall(r"[a-z0-9']+", s.lower())


def _ifd_ngram(pairs: list[tuple[str, str]]) -> np.ndarray:
    """IFD (n,) from the n-gram scorer. The "translation" score of a response word w given the
    instruction words v is the mean over v of (co(v, w) + 0.01) / (8·count(v) + 0.01·V), with
    co(v, w) the number of pairs holding v in x and w in y: a heuristic, not a normalised
    distribution (the 8 is a fixed guess at the response length, and the score is capped at 1).
    """
    X = [_tok(a) for a, _ in pairs]
    Y = [["<s>"] + _tok(b) for _, b in pairs]
    uni = Counter(w for y in Y for w in y[1:])
    bi = Counter((y[i - 1], y[i]) for y in Y for i in range(1, len(y)))
    ctx = Counter(y[i - 1] for y in Y for i in range(1, len(y)))
    V, tot = len(uni) + 1, sum(uni.values())
    co: dict[str, Counter] = defaultdict(Counter)
    vcount: Counter = Counter()
    for x, y in zip(X, Y, strict=True):
        for v in set(x):
            vcount[v] += 1
            for w in set(y[1:]):
                co[v][w] += 1
    out = np.ones(len(pairs))
    for i, (x, y) in enumerate(zip(X, Y, strict=True)):
        n = len(y) - 1
        if n == 0:
            continue
        lc = lu = 0.0
        for j in range(1, len(y)):
            pu = (uni[y[j]] + 0.1) / (tot + 0.1 * V)
            pb = bi[(y[j - 1], y[j])] / ctx[y[j - 1]] if ctx[y[j - 1]] else 0.0
            p_unc = 0.6 * pb + 0.4 * pu
            if x:
                pt = np.mean([(co[v][y[j]] + 0.01) / (vcount[v] * 8 + 0.01 * V) for v in x])
            else:
                pt = p_unc
            lc += math.log(0.5 * p_unc + 0.5 * min(pt, 1.0))
            lu += math.log(p_unc)
        out[i] = math.exp((lu - lc) / n)
    return out


def _ifd_transformer(pairs, seed: int, epochs: int = 30, lx: int = 16, ly: int = 31) -> np.ndarray:
    from icml25.common.lm import build_causal_lm
    from icml25.common.runtime import get_device
    from icml25.common.training import minibatch_training

    counts = Counter(w for a, b in pairs for w in _tok(a) + _tok(b))
    # ids: 0 BOS, 1 PAD, 2 SEP, 3 UNK (a word beyond the 4000 most frequent), words from 4 on
    vocab = {w: i + 4 for i, (w, _) in enumerate(counts.most_common(4000))}
    ids = lambda s, m: [vocab.get(w, 3) for w in _tok(s)][:m]  # noqa: E731
    L = lx + ly + 1
    cond = np.ones((len(pairs), L), dtype=np.int64)
    unc = np.ones((len(pairs), L), dtype=np.int64)
    mask_c = np.zeros((len(pairs), L), bool)
    mask_u = np.zeros((len(pairs), L), bool)
    for i, (a, b) in enumerate(pairs):
        x, y = ids(a, lx), ids(b, ly)
        c = x + [2] + y
        cond[i, : len(c)] = c
        mask_c[i, len(x) + 1 : len(c)] = True
        unc[i, : len(y) + 1] = [2] + y
        mask_u[i, 1 : len(y) + 1] = True
    dev = get_device()
    model = build_causal_lm(len(vocab) + 4, n_positions=L, seed=seed).to(dev)
    # common.lm.train_lm's loop (AdamW, lr 3e-3, batches of 64, one permutation per epoch from
    # a generator seeded with ``seed``), with the batches moved to the device
    x_all = torch.from_numpy(np.concatenate([cond, unc])).to(dev)
    inp_all = torch.cat([torch.zeros_like(x_all[:, :1]), x_all[:, :-1]], dim=1)  # BOS first
    opt = torch.optim.AdamW(model.parameters(), lr=3e-3)

    def step(idx: torch.Tensor) -> torch.Tensor:
        idx = idx.to(dev)
        logits = model(input_ids=inp_all[idx]).logits
        # PAD (id 1) targets carry no text: left out of the loss, as the masks leave them out
        # of the scores
        return F.cross_entropy(
            logits.reshape(-1, logits.shape[-1]), x_all[idx].reshape(-1), ignore_index=1
        )

    g = torch.Generator().manual_seed(seed)
    minibatch_training(model, opt, step, len(x_all), epochs, 64, g, progress=False)

    def nll(seqs, mask):
        out = []
        for s in range(0, len(seqs), 512):
            x = torch.from_numpy(seqs[s : s + 512]).to(dev)
            inp = torch.cat([torch.zeros_like(x[:, :1]), x[:, :-1]], dim=1)
            with torch.no_grad():
                logits = model(input_ids=inp).logits
                lp = F.log_softmax(logits, -1).gather(-1, x[..., None])[..., 0]
            m = torch.from_numpy(mask[s : s + 512]).to(dev).float()
            out.append((-(lp * m).sum(1) / m.sum(1).clamp(min=1)).cpu().numpy())
        return np.concatenate(out)

    return np.exp(nll(cond, mask_c) - nll(unc, mask_u))


def ifd_scores(pairs, lm: str = "ngram", seed: int = 0) -> np.ndarray:
    """IFD (n,) of every pair, from a scorer trained on ``pairs`` themselves (higher = harder
    or misaligned; a response that ignores its instruction has IFD near or above 1)."""
    pairs = _check_pairs("pairs", pairs)
    lm = check_choice("lm", lm, LMS)
    seed = check_seed("seed", seed)
    if lm == "ngram":
        return _ifd_ngram(pairs)
    return _ifd_transformer(pairs, seed)


def quality_from_ifd(ifd, orientation: str = "inverse", tau: float = 1.0) -> np.ndarray:
    """Quality (n,) from IFD (n,): 1/IFD ("inverse", our main choice), IFD itself ("paper", the
    paper's Eq. 2 read literally: higher IFD = more informative) or IFD·1[IFD < τ]
    ("superfilter", Superfiltering's filter of misaligned pairs)."""
    s = check_finite_array("ifd", ifd, ndim=1)
    if s.min() <= 0:
        raise ValueError(f"ifd must be > 0, got a minimum of {s.min()}")
    orientation = check_choice("orientation", orientation, ORIENTATIONS)
    tau = check_positive("tau", tau)
    if orientation == "inverse":
        return 1.0 / s
    if orientation == "paper":
        return s.copy()
    return s * (s < tau)
