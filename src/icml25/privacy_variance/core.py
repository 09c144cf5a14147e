"""DP-SGD at a fixed (epsilon, delta) with different hyperparameters, and what it memorises.

Everything private is done by **opacus**: per-sample gradients, clipping, noise, Poisson
sampling and the PRV accountant (``PrivacyEngine(accountant="prv")``, ``get_noise_multiplier``).
This module supplies the synthetic corpus with planted canaries, the small context LM and
Carlini et al.'s exposure; :mod:`icml25.privacy_variance.study` the study's grid and regression.

Notation: ``n`` training records, batch size ``b`` (expected, Poisson sampling rate ``q = b/n``),
``T`` steps, learning rate ``eta``, noise multiplier ``sigma``, clipping norm ``C``.
"""

from __future__ import annotations

import itertools
import logging
import time
import warnings
from dataclasses import dataclass

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

from icml25.common.checks import (
    check_choice,
    check_index_array,
    check_instance,
    check_int,
    check_positive,
    check_real,
    check_seed,
)
from icml25.privacy_variance.corpus import N_DIGITS, SECRET_LEN, Corpus, _check_corpus

__all__ = [
    "ContextLM",
    "TrainResult",
    "calibrate_sigma",
    "exposure",
    "per_sample_grad_norms",
    "train_dp",
]


def _check_delta(delta: object) -> float:
    return check_real("delta", delta, 0.0, 1.0, low_open=True, high_open=True)


def _check_eps_delta(eps: float, delta: float) -> tuple[float, float]:
    return check_positive("eps", eps), _check_delta(delta)


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


def calibrate_sigma(
    eps: float, delta: float, batch_size: int, n: int, steps: int, accountant: str = "prv"
) -> float:
    """The noise multiplier sigma at which T = ``steps`` Poisson-sampled steps (rate b/n) spend
    exactly ``eps`` at ``delta`` (opacus's ``get_noise_multiplier``)."""
    eps, delta = _check_eps_delta(eps, delta)
    n = check_int("n", n)
    batch_size = check_int("batch_size", batch_size)
    if batch_size > n:
        raise ValueError(f"batch_size ({batch_size}) must not exceed the data size n ({n})")
    steps = check_int("steps", steps)
    accountant = check_choice("accountant", accountant, ("prv", "rdp", "gdp"))
    from opacus.accountants.utils import get_noise_multiplier

    return float(
        get_noise_multiplier(
            target_epsilon=eps,
            target_delta=delta,
            sample_rate=batch_size / n,
            steps=steps,
            accountant=accountant,
            epsilon_tolerance=0.005,
        )
    )


@dataclass
class TrainResult:
    """A trained model and its privacy and utility.

    Attributes:
        model: the trained :class:`ContextLM` (unwrapped from opacus), eval mode.
        eps_spent: epsilon reported by opacus's PRV accountant at ``delta`` (inf if non-private).
        test_loss: mean next-token cross-entropy (nats) on the held-out records.
        sigma: the noise multiplier used (0 if non-private).
        seconds: training wall time.
    """

    model: ContextLM
    eps_spent: float
    test_loss: float
    sigma: float
    seconds: float


def _lm_loss(model: nn.Module, x: torch.Tensor) -> torch.Tensor:
    logits = model(x)
    return F.cross_entropy(logits.reshape(-1, logits.shape[-1]), x[:, 1:].reshape(-1))


def train_dp(
    corpus: Corpus,
    batch_size: int,
    steps: int,
    lr: float,
    eps: float | None = 8.0,
    delta: float | None = None,
    clip: float = 1.0,
    seed: int = 0,
    momentum: float = 0.9,
    sigma: float | None = None,
) -> TrainResult:
    """Train a :class:`ContextLM` on ``corpus.train`` with DP-SGD (opacus) to (eps, delta).

    Poisson sampling at rate b/n (empty batches are skipped but counted as steps, as the
    accountant counts them), per-sample clipping at ``clip``, Gaussian noise with sigma from
    :func:`calibrate_sigma` (or the given ``sigma``), SGD with momentum. ``eps=None`` trains
    without privacy on shuffled batches of size b. ``delta`` defaults to 1/n.
    """
    _check_corpus(corpus)
    n = len(corpus.train)
    batch_size = check_int("batch_size", batch_size)
    if batch_size > n:
        raise ValueError(f"batch_size ({batch_size}) must not exceed the data size ({n})")
    steps = check_int("steps", steps)
    lr = check_positive("lr", lr)
    clip = check_positive("clip", clip)
    seed = check_seed("seed", seed)
    momentum = check_real("momentum", momentum, 0.0)
    if sigma is not None:
        check_positive("sigma", sigma)
    delta = 1.0 / n if delta is None else delta
    private = eps is not None or sigma is not None
    if private:
        _check_eps_delta(8.0 if eps is None else eps, delta)
    else:
        _check_delta(delta)
    torch.manual_seed(seed)
    g = torch.Generator().manual_seed(seed)
    model = ContextLM(corpus.vocab)
    opt = torch.optim.SGD(model.parameters(), lr=lr, momentum=momentum)
    X = torch.as_tensor(corpus.train)
    loader = torch.utils.data.DataLoader(
        torch.utils.data.TensorDataset(X), batch_size=batch_size, shuffle=True, generator=g
    )
    engine = None
    if private:
        from opacus import PrivacyEngine

        if sigma is None:
            sigma = calibrate_sigma(eps, delta, batch_size, n, steps)
        engine = PrivacyEngine(accountant="prv")
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            logging.disable(logging.WARNING)
            try:
                model, opt, loader = engine.make_private(
                    module=model,
                    optimizer=opt,
                    data_loader=loader,
                    noise_multiplier=sigma,
                    max_grad_norm=clip,
                    noise_generator=g,
                )
            finally:
                logging.disable(logging.NOTSET)
    start = time.perf_counter()
    done = 0
    model.train()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # opacus's backward-hook and secure-RNG notices
        while done < steps:
            for (xb,) in loader:
                if done >= steps:
                    break
                done += 1
                if len(xb) == 0:
                    # an empty Poisson batch: the accountant still counts the step
                    if engine is not None:
                        engine.accountant.step(noise_multiplier=sigma, sample_rate=batch_size / n)
                    continue
                opt.zero_grad()
                _lm_loss(model, xb).backward()
                opt.step()
    seconds = time.perf_counter() - start
    base = model._module if hasattr(model, "_module") else model
    base.eval()
    with torch.no_grad():
        test_loss = float(_lm_loss(base, torch.as_tensor(corpus.test)))
    if engine is not None:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            eps_spent = float(engine.get_epsilon(delta))
    else:
        eps_spent = float("inf")
    return TrainResult(base, eps_spent, test_loss, float(sigma or 0.0), seconds)


def per_sample_grad_norms(model: nn.Module, x: torch.Tensor) -> np.ndarray:
    """L2 norms of the per-record gradients of the LM loss, (B,), computed by opacus's
    ``GradSampleModule`` (the quantity DP-SGD clips at C). ``model`` is left unchanged."""
    import copy

    check_instance("model", model, ContextLM)
    check_index_array("x", x, model.vocab, ndim=2, high_name="model.vocab")
    x = torch.as_tensor(x)
    if x.shape[1] < 2:
        raise ValueError(f"x must be a (B, L) token batch with L >= 2, got shape {tuple(x.shape)}")
    from opacus import GradSampleModule

    gsm = GradSampleModule(copy.deepcopy(model))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        _lm_loss(gsm, x).backward()
    B = len(x)
    # opacus rescales grad_sample for the mean reduction: it holds each record's own gradient
    sq = sum(p.grad_sample.reshape(B, -1).pow(2).sum(1) for p in gsm.parameters())
    return sq.sqrt().detach().numpy()


def _all_candidates() -> torch.Tensor:
    digits = list(itertools.product(range(N_DIGITS), repeat=SECRET_LEN))
    return torch.tensor(digits, dtype=torch.int64)  # (10^4, 4)


@torch.no_grad()
def _secret_loglik(model: nn.Module, prefix: np.ndarray, cands: torch.Tensor) -> torch.Tensor:
    model.eval()
    seq = torch.cat([torch.as_tensor(prefix).repeat(len(cands), 1), cands], 1)
    logp = F.log_softmax(model(seq), -1)  # (C, L-1, V)
    tok = seq[:, 1:]
    ll = logp.gather(-1, tok[..., None])[..., 0]
    return ll[:, -SECRET_LEN:].sum(1)  # log p(secret | prefix)


def exposure(model: nn.Module, prefix: np.ndarray, secrets: np.ndarray) -> np.ndarray:
    """Carlini et al.'s exposure of each secret, exact over all 10^4 candidate digit strings.

    ``exposure(s) = log2 |R| - log2 rank(s)`` where ``rank(s)`` is 1 + the number of candidates
    the model finds strictly more likely than ``s`` after ``prefix``. A secret the model has not
    seen has rank ~ uniform, so its expected exposure is about ``log2 e ~ 1.44`` bits; the
    maximum is ``log2 10^4 ~ 13.3`` bits.

    Args:
        model: maps (B, L) tokens to (B, L - 1, vocab) logits.
        prefix: (L - 4,) the canary prefix.
        secrets: (S, 4) digit strings.

    Returns:
        (S,) exposures in bits.
    """
    check_instance("model", model, nn.Module)
    vocab = getattr(model, "vocab", None)
    check_index_array("prefix", prefix, vocab, ndim=1, high_name="model.vocab")
    check_index_array("secrets", secrets, N_DIGITS, ndim=2)
    secrets = np.asarray(secrets)
    if secrets.shape[1] != SECRET_LEN:
        raise ValueError(f"secrets must have shape (S, {SECRET_LEN}), got {secrets.shape}")
    cands = _all_candidates()
    ll = _secret_loglik(model, np.asarray(prefix), cands).numpy()
    idx = secrets @ (10 ** np.arange(SECRET_LEN - 1, -1, -1))
    sorted_ll = np.sort(ll)
    # rank = 1 + #candidates with strictly larger log-likelihood
    rank = 1 + len(ll) - np.searchsorted(sorted_ll, ll[idx], side="right")
    return np.log2(len(ll)) - np.log2(rank)
