"""Empirical privacy of a trained LM: Carlini et al.'s exposure of planted secrets, and verbatim
extraction by greedy decoding.

Every secret ``s`` (4 digits) follows its own prefix ``p_s`` (letters). Exposure ranks ``s``
among all ``|R| = 10^4`` digit strings by the model's likelihood after ``p_s``; the maximum is
``log2 |R|`` (13.3 bits), reached when ``s`` is ranked first.
"""

from __future__ import annotations

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

from icml25.common.checks import check_index_array, check_instance
from icml25.privacy_variance.corpus import N_DIGITS, SECRET_LEN

__all__ = ["MAX_EXPOSURE", "exposure", "extracted", "secret_loglik"]

MAX_EXPOSURE = float(np.log2(N_DIGITS**SECRET_LEN))  #: log2 10^4, about 13.29 bits


def _check(model, prefixes, secrets) -> tuple[np.ndarray, np.ndarray]:
    check_instance("model", model, nn.Module)
    vocab = getattr(model, "vocab", None)
    prefixes = np.asarray(check_index_array("prefixes", prefixes, vocab, high_name="model.vocab"))
    secrets = np.asarray(check_index_array("secrets", secrets, N_DIGITS, ndim=2))
    if secrets.shape[1] != SECRET_LEN:
        raise ValueError(f"secrets must have shape (S, {SECRET_LEN}), got {secrets.shape}")
    if prefixes.ndim == 1:
        prefixes = np.broadcast_to(prefixes, (len(secrets), len(prefixes)))
    if prefixes.ndim != 2 or len(prefixes) != len(secrets) or prefixes.shape[1] < 1:
        raise ValueError(
            f"prefixes must be (P,) or (S, P) with S = {len(secrets)} secrets, got shape "
            f"{prefixes.shape}"
        )
    return prefixes, secrets


@torch.no_grad()
def _next_digit_logp(model: nn.Module, seqs: torch.Tensor) -> torch.Tensor:
    """log p(next token = d | seq) for the digits d, (N, 10), from a model mapping (N, L)
    tokens to (N, L - 1, V) next-token logits (a dummy token is appended and ignored)."""
    context = getattr(model, "context", None)
    if isinstance(context, int) and seqs.shape[1] > context:  # only the last tokens matter
        seqs = seqs[:, -context:]
    x = torch.cat([seqs, torch.zeros(len(seqs), 1, dtype=seqs.dtype)], 1)
    return F.log_softmax(model(x)[:, -1], -1)[:, :N_DIGITS]


@torch.no_grad()
def secret_loglik(model: nn.Module, prefixes) -> np.ndarray:
    """log p(c | p_s) for every candidate digit string c after each prefix p_s of ``prefixes``
    (S, P): (S, 10^4), candidates in numeric order (c = 0000 .. 9999). Computed level by level
    (10, 100, 1000 digit prefixes per secret), which for a model with a fixed ``context`` costs
    about 1,111 forward positions per prefix instead of 40,000."""
    check_instance("model", model, nn.Module)
    prefixes = np.asarray(
        check_index_array(
            "prefixes", prefixes, getattr(model, "vocab", None), ndim=2, high_name="model.vocab"
        )
    )
    if prefixes.shape[1] < 1:
        raise ValueError(f"prefixes must be (S, P) with P >= 1, got shape {prefixes.shape}")
    return _loglik(model, prefixes)


@torch.no_grad()
def _loglik(model: nn.Module, prefixes: np.ndarray) -> np.ndarray:
    was_training = model.training
    model.eval()
    S = len(prefixes)
    pre = torch.as_tensor(np.ascontiguousarray(prefixes), dtype=torch.int64)
    ll = torch.zeros(S, 1)
    digits = torch.zeros(S, 1, 0, dtype=torch.int64)  # (S, 10^j, j) digit prefixes
    for _ in range(SECRET_LEN):
        m = digits.shape[1]
        seqs = torch.cat([pre[:, None, :].expand(S, m, pre.shape[1]), digits], 2)
        logp = _next_digit_logp(model, seqs.reshape(S * m, -1)).reshape(S, m, N_DIGITS)
        ll = (ll[:, :, None] + logp).reshape(S, m * N_DIGITS)
        new = torch.arange(N_DIGITS).repeat(m)[None, :, None].expand(S, -1, 1)
        digits = torch.cat([digits.repeat_interleave(N_DIGITS, 1), new], 2)
    model.train(was_training)
    return ll.numpy()


def exposure(model: nn.Module, prefixes, secrets) -> np.ndarray:
    """Carlini et al.'s exposure of each secret after its own prefix, exact over all 10^4
    candidate digit strings.

    ``exposure(s) = log2 |R| - log2 rank(s)`` where ``rank(s)`` is the **mid-rank** of ``s``
    among the ``|R| = N`` candidates after ``p_s``: 1 + the number strictly more likely +
    (the number tied with ``s``, itself excluded) / 2. Ties are shared, so a model that is
    exactly uniform over the candidates ranks every secret at ``(N + 1) / 2`` and scores
    ``log2(2N / (N + 1)) ~ 1`` bit, not the ceiling. A secret the model has not seen has a rank
    ~ uniform, so its expected exposure is about ``log2 e ~ 1.44`` bits; the maximum is
    :data:`MAX_EXPOSURE` = ``log2 10^4 ~ 13.3`` bits (``s`` strictly most likely).

    Args:
        model: maps (B, L) tokens to (B, L - 1, vocab) logits.
        prefixes: (S, P) one prefix per secret, or (P,) one shared by all.
        secrets: (S, 4) digit strings.

    Returns:
        (S,) exposures in bits.

    Raises:
        ValueError: if the model's log-likelihoods are not finite (NaN or inf outputs).
    """
    prefixes, secrets = _check(model, prefixes, secrets)
    ll = _loglik(model, prefixes)
    if not np.all(np.isfinite(ll)):
        raise ValueError("model gives non-finite log-likelihoods (NaN or inf outputs)")
    idx = secrets @ (10 ** np.arange(SECRET_LEN - 1, -1, -1))
    own = ll[np.arange(len(secrets)), idx][:, None]
    rank = 1 + (ll > own).sum(1) + 0.5 * ((ll == own).sum(1) - 1)
    return MAX_EXPOSURE - np.log2(rank)


@torch.no_grad()
def extracted(model: nn.Module, prefixes, secrets) -> np.ndarray:
    """Verbatim extraction: does greedy decoding of 4 tokens after ``p_s`` (argmax over the
    whole vocabulary) reproduce the secret ``s`` exactly? Returns (S,) booleans."""
    prefixes, secrets = _check(model, prefixes, secrets)
    was_training = model.training
    model.eval()
    seqs = torch.as_tensor(np.ascontiguousarray(prefixes), dtype=torch.int64)
    for _ in range(SECRET_LEN):
        x = torch.cat([seqs, torch.zeros(len(seqs), 1, dtype=torch.int64)], 1)
        seqs = torch.cat([seqs, model(x)[:, -1].argmax(-1, keepdim=True)], 1)
    model.train(was_training)
    return (seqs[:, -SECRET_LEN:].numpy() == secrets).all(1)
