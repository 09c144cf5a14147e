"""A tiny-LM "SFT" evaluator: fine-tune from scratch on a subset, score held-out response NLL.

The paper fine-tunes 7–8B LLMs on each selected subset and runs six benchmarks. The miniature's
second evaluator (``large`` scale) keeps the shape of that experiment at toy size: a 2-layer
character-level GPT-2 (``common.lm.build_causal_lm``, built from a config, no hub) is trained
from its random initialisation on the selected (instruction x, response y) pairs with the SFT
loss (next-token cross-entropy on the response tokens only, given the instruction), and is
scored by the mean negative log-likelihood per token of the held-out test responses given their
instructions,

    NLL = − Σ_test Σ_t log p(y_t | x, y_<t) / Σ_test (|y| + 1)    (nats per token, lower = better)

(the + 1 is the end-of-response token). Characters keep the vocabulary fixed across subsets, so
the NLLs of different subsets are comparable (a word vocabulary built from each subset would
change the support of the softmax between methods). Every subset gets the same compute: a fixed
number of optimiser steps of a fixed batch size, whatever its size k.

Sequence layout, one row per pair (L = max_instr + max_resp + 3 positions):
``[BOS] x_1 … x_a [SEP] y_1 … y_b [EOS] [PAD] …``, lower-cased, characters outside
:data:`ALPHABET` → UNK, x and y truncated to ``max_instr`` and ``max_resp`` characters.
"""

from __future__ import annotations

import numpy as np
import torch
import torch.nn.functional as F

from icml25.common.checks import check_device, check_int, check_positive, check_seed
from icml25.graphfilter.data import _check_pairs

__all__ = ["ALPHABET", "evaluate_sft"]

ALPHABET = "abcdefghijklmnopqrstuvwxyz0123456789 .,!?'\"-:;()&%$/+=*@#"
BOS, PAD, SEP, EOS, UNK = 0, 1, 2, 3, 4  # BOS = 0 as in common.lm; characters from 5 on
_CHAR_ID = {ch: i + 5 for i, ch in enumerate(ALPHABET)}
VOCAB_SIZE = len(ALPHABET) + 5


def _encode(pairs: list[tuple[str, str]], max_instr: int, max_resp: int):
    """Token ids (N, L) and the loss mask (N, L − 1) over the targets ids[:, 1:]: True on the
    response characters and EOS."""
    length = max_instr + max_resp + 3
    ids = np.full((len(pairs), length), PAD, dtype=np.int64)
    mask = np.zeros((len(pairs), length - 1), dtype=bool)
    for i, (a, b) in enumerate(pairs):
        x = [_CHAR_ID.get(c, UNK) for c in a.lower()][:max_instr]
        y = [_CHAR_ID.get(c, UNK) for c in b.lower()][:max_resp] + [EOS]
        seq = [BOS, *x, SEP, *y]
        ids[i, : len(seq)] = seq
        mask[i, len(x) + 1 : len(seq) - 1] = True  # target t predicts seq[t + 1]: y_1 .. EOS
    return ids, mask


def _masked_nll(model, ids: torch.Tensor, mask: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """Summed NLL of the masked targets and their count, for a batch ids (B, L), mask (B, L−1)
    (trimmed to the batch's longest row: padding after it changes nothing, causal attention)."""
    used = int(mask.any(0).nonzero().max()) + 2 if mask.any() else 2
    ids, mask = ids[:, :used], mask[:, : used - 1]
    logits = model(input_ids=ids[:, :-1]).logits  # (B, L−1, V)
    nll = F.cross_entropy(logits.transpose(1, 2), ids[:, 1:], reduction="none")  # (B, L−1)
    m = mask.to(nll.dtype)
    return (nll * m).sum(), m.sum()


def evaluate_sft(
    selected_pairs,
    test_pairs,
    *,
    steps: int = 200,
    batch_size: int = 32,
    lr: float = 3e-3,
    n_layer: int = 2,
    n_embd: int = 64,
    max_instr: int = 32,
    max_resp: int = 64,
    seed: int = 0,
    device=None,
) -> float:
    """Held-out NLL per token (nats, lower = better) of ``test_pairs``' responses given their
    instructions, after a from-scratch character GPT-2 is trained for ``steps`` AdamW steps of
    ``batch_size`` pairs drawn from ``selected_pairs`` (reshuffled every pass) with the SFT loss.

    Args:
        selected_pairs: the subset, a non-empty list of (instruction, response) strings.
        test_pairs: the held-out pairs, same form.
        steps, batch_size, lr: the training budget (the same for every subset).
        n_layer, n_embd: the model (4 heads; ``n_embd`` divisible by 4).
        max_instr, max_resp: characters kept of each instruction and response.
        seed: seeds the initialisation and the batch order.
        device: a torch device or its name; None = ``common.runtime.get_device()``.
    """
    train = _check_pairs("selected_pairs", selected_pairs)
    test = _check_pairs("test_pairs", test_pairs)
    steps, batch_size = check_int("steps", steps), check_int("batch_size", batch_size)
    lr = check_positive("lr", lr)
    n_layer, n_embd = check_int("n_layer", n_layer), check_int("n_embd", n_embd, 4)
    if n_embd % 4:
        raise ValueError(f"n_embd must be divisible by 4 (the number of heads), got {n_embd}")
    max_instr, max_resp = check_int("max_instr", max_instr), check_int("max_resp", max_resp)
    seed = check_seed("seed", seed)
    dev = check_device("device", device)
    from icml25.common.lm import build_causal_lm

    x_tr, m_tr = (torch.from_numpy(a).to(dev) for a in _encode(train, max_instr, max_resp))
    x_te, m_te = (torch.from_numpy(a).to(dev) for a in _encode(test, max_instr, max_resp))
    model = build_causal_lm(
        VOCAB_SIZE, n_positions=x_tr.shape[1], n_layer=n_layer, n_embd=n_embd, n_head=4, seed=seed
    ).to(dev)
    opt = torch.optim.AdamW(model.parameters(), lr=lr)
    g = torch.Generator().manual_seed(seed)
    order = torch.empty(0, dtype=torch.long)
    model.train()
    for _ in range(steps):
        while len(order) < batch_size:  # a fresh permutation per pass over the subset
            order = torch.cat([order, torch.randperm(len(train), generator=g)])
        idx, order = order[:batch_size].to(dev), order[batch_size:]
        total, count = _masked_nll(model, x_tr[idx], m_tr[idx])
        loss = total / count.clamp(min=1)
        opt.zero_grad()
        loss.backward()
        opt.step()
    model.eval()
    total = count = 0.0
    with torch.no_grad():
        for start in range(0, len(test), 256):
            t, c = _masked_nll(model, x_te[start : start + 256], m_te[start : start + 256])
            total, count = total + float(t), count + float(c)
    return total / count
