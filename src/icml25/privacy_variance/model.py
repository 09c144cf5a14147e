"""The small language model of the privacy-variance chapter and its loss.

A fixed-context character LM that opacus handles cheaply (no recurrent layers); one record is one
row, so opacus's per-sample privacy is per-record privacy.
"""

from __future__ import annotations

import torch
import torch.nn as nn
import torch.nn.functional as F

from icml25.common.checks import check_int

__all__ = ["ContextLM"]


class ContextLM(nn.Module):
    """A fixed-context character LM that opacus handles cheaply (no recurrent layers).

    Position ``t`` is predicted from the ``context`` tokens before it (padded with a start token
    at the beginning): embedding (vocab + 1, d), a hidden ReLU layer, logits over ``vocab``.
    Input (B, L) int64 tokens; output (B, L - 1, vocab) logits for tokens 1 .. L - 1. One record
    is one row, so opacus's per-sample privacy is per-record privacy.
    """

    def __init__(self, vocab: int = 16, context: int = 4, d: int = 16, hidden: int = 128) -> None:
        super().__init__()
        self.vocab, self.context = check_int("vocab", vocab, 2), check_int("context", context)
        d, hidden = check_int("d", d), check_int("hidden", hidden)
        self.emb = nn.Embedding(vocab + 1, d)
        self.fc = nn.Linear(context * d, hidden)
        self.out = nn.Linear(hidden, vocab)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        B, L = x.shape
        xp = F.pad(x, (self.context, 0), value=self.vocab)
        # the context of target t (1..L-1) is tokens t-context .. t-1
        ctx = torch.stack([xp[:, i : i + L - 1] for i in range(1, self.context + 1)], -1)
        return self.out(torch.relu(self.fc(self.emb(ctx).reshape(B, L - 1, -1))))


def _lm_loss(model: nn.Module, x: torch.Tensor) -> torch.Tensor:
    logits = model(x)
    return F.cross_entropy(logits.reshape(-1, logits.shape[-1]), x[:, 1:].reshape(-1))
