"""Membership scores that STAMP is compared with: loss (perplexity), Min-K% prob, zlib ratio.

Each scores one sequence from the suspect model's token log-probabilities
log p(x_t | x_<t), t = 1..L (BOS first, as in :mod:`icml25.common.lm`); a *lower* score means
"more likely seen". None of them comes with a p-value: a threshold has to be chosen, and the
false-positive rate at that threshold depends on the model and the data (measured in the
chapter). Definitions as in the official code's ``src/metrics.py`` (adapted there from
``llm_dataset_inference``):

* perplexity: exp(−(1/L) Σ_t log p_t);
* Min-K% prob (Shi et al. 2024): the mean negative log-probability of the k·L least likely
  tokens (at least one), written here as a loss, so lower is "seen";
* zlib ratio (Carlini et al. 2021): the mean token loss divided by the zlib-compressed length
  (bytes) of the sequence's text (here the ids joined by spaces).

Shapes: ``logprobs`` is (N, L); every score is (N,).
"""

from __future__ import annotations

import zlib

import numpy as np

from icml25.common.checks import (
    check_finite_array,
    check_index_array,
    check_instance,
    check_int,
    check_probability,
    check_real,
)

__all__ = ["fpr_at_tpr", "min_k_prob", "perplexity_score", "token_logprobs", "zlib_ratio"]


def _check_logprobs(logprobs) -> np.ndarray:
    lp = check_finite_array("logprobs", logprobs, 2)
    if (lp > 0).any():
        raise ValueError("logprobs must be log-probabilities (<= 0)")
    return lp


def token_logprobs(model, sequences, batch_size: int = 512) -> np.ndarray:
    """log p(x_t | BOS, x_<t) of every token under a causal LM: (N, L) from (N, L) ids >= 1."""
    import torch
    import torch.nn.functional as F

    check_instance("model", model, torch.nn.Module)
    vocab = getattr(getattr(model, "config", None), "vocab_size", None)
    if vocab is None:
        raise TypeError("model must be a transformers causal LM with config.vocab_size")
    x = torch.from_numpy(check_index_array("sequences", sequences, vocab, low=1, ndim=2))
    batch_size = check_int("batch_size", batch_size)
    model.eval()
    out = []
    with torch.no_grad():
        for start in range(0, len(x), batch_size):
            xb = x[start : start + batch_size]
            inp = torch.cat([torch.zeros((len(xb), 1), dtype=xb.dtype), xb[:, :-1]], dim=1)
            logp = F.log_softmax(model(input_ids=inp).logits, dim=-1)
            out.append(logp.gather(-1, xb[..., None]).squeeze(-1))
    return torch.cat(out).double().numpy()


def perplexity_score(logprobs) -> np.ndarray:
    """exp(−mean_t log p_t) per sequence, (N,)."""
    return np.exp(-_check_logprobs(logprobs).mean(axis=1))


def min_k_prob(logprobs, k: float = 0.2) -> np.ndarray:
    """Mean of −log p_t over the max(1, ⌊k·L⌋) least likely tokens of each sequence, (N,)."""
    lp = _check_logprobs(logprobs)
    k = check_real("k", k, 0.0, 1.0, low_open=True)
    m = max(1, int(lp.shape[1] * k))
    return -np.sort(lp, axis=1)[:, :m].mean(axis=1)


def zlib_ratio(logprobs, sequences) -> np.ndarray:
    """Mean token loss / zlib-compressed byte length of the ids written as text, (N,)."""
    lp = _check_logprobs(logprobs)
    x = check_index_array("sequences", sequences, None, ndim=2)
    if x.shape[0] != lp.shape[0]:
        raise ValueError(
            f"sequences must have one row per row of logprobs ({lp.shape[0]}), got {x.shape[0]}"
        )
    size = np.array([len(zlib.compress(" ".join(map(str, row)).encode())) for row in x.tolist()])
    return -lp.mean(axis=1) / size


def fpr_at_tpr(seen, unseen, tpr: float = 0.5) -> float:
    """False-positive rate of a "lower is seen" score at the threshold that flags ``tpr`` of
    the seen items: τ = the ``tpr`` quantile of ``seen`` (n,), FPR = share of ``unseen`` (m,)
    at or below τ."""
    a = check_finite_array("seen", seen, 1)
    b = check_finite_array("unseen", unseen, 1)
    tpr = check_probability("tpr", tpr, low_open=True)
    return float(np.mean(b <= np.quantile(a, tpr)))
