"""DP-SGD at a fixed (epsilon, delta) with opacus: the noise multiplier, training, and the
per-record gradient norms that DP-SGD clips.

Everything private is done by **opacus**: per-sample gradients, clipping, noise, Poisson
sampling and the PRV accountant (``PrivacyEngine(accountant="prv")``, ``get_noise_multiplier``).
opacus's repeated notices (secure RNG off, the accountant's discretisation) are silenced where
they are raised: around ``PrivacyEngine``'s construction and ``get_noise_multiplier``.

Notation: ``n`` training records, batch size ``b`` (expected, Poisson sampling rate ``q = b/n``),
``T`` steps, learning rate ``eta``, noise multiplier ``sigma``, clipping norm ``C``.
"""

from __future__ import annotations

import copy
import logging
import time
import warnings
from contextlib import contextmanager
from dataclasses import dataclass, field

import numpy as np
import torch
import torch.nn as nn

from icml25.common.checks import (
    check_choice,
    check_index_array,
    check_instance,
    check_int,
    check_positive,
    check_real,
    check_seed,
)
from icml25.privacy_variance.corpus import Corpus, _check_corpus
from icml25.privacy_variance.model import ContextLM, _lm_loss

__all__ = ["TrainResult", "calibrate_sigma", "per_sample_grad_norms", "train_dp"]


@contextmanager
def _quiet_opacus():
    """Silence opacus's own warnings and log notices inside the block only: warnings raised
    from opacus modules, torch's notice about opacus's backward hooks, and the ``opacus``
    loggers below ERROR (their level is restored)."""
    logger = logging.getLogger("opacus")
    level = logger.level
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", module=r"opacus(\.|$)")
        # torch's notice about opacus's backward hooks on an embedding input, once per step
        warnings.filterwarnings(
            "ignore", message="Full backward hook is firing", category=UserWarning
        )
        logger.setLevel(logging.ERROR)
        try:
            yield
        finally:
            logger.setLevel(level)


def _check_delta(delta: object) -> float:
    return check_real("delta", delta, 0.0, 1.0, low_open=True, high_open=True)


def _check_eps_delta(eps: float, delta: float) -> tuple[float, float]:
    return check_positive("eps", eps), _check_delta(delta)


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

    with _quiet_opacus():
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
        grad_norms: {step: (B,) per-record gradient norms of that step's batch, before
            clipping}, recorded every ``norm_every`` steps of a private run (empty otherwise).
    """

    model: ContextLM
    eps_spent: float
    test_loss: float
    sigma: float
    seconds: float
    grad_norms: dict[int, np.ndarray] = field(default_factory=dict)


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
    norm_every: int | None = None,
) -> TrainResult:
    """Train a :class:`ContextLM` on ``corpus.train`` with DP-SGD (opacus) to (eps, delta).

    Poisson sampling at rate b/n (empty batches are skipped but counted as steps, as the
    accountant counts them), per-sample clipping at ``clip``, Gaussian noise, SGD with momentum.
    The noise is set by **one** of ``eps`` (sigma from :func:`calibrate_sigma`) or ``sigma``
    (then pass ``eps=None``; the accountant still reports the epsilon spent); giving both is an
    error, as in the official code. ``eps=None`` and ``sigma=None`` train without privacy on
    shuffled batches of size b. ``delta`` defaults to 1/n (the official code's default).
    ``norm_every``: record the per-record gradient norms every that many steps (private runs).
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
    if norm_every is not None:
        norm_every = check_int("norm_every", norm_every)
    if eps is not None and sigma is not None:
        raise ValueError(
            f"give eps or sigma, not both: eps={eps!r} (the default is 8.0) calibrates sigma; "
            f"to set sigma={sigma!r} directly, pass eps=None as well"
        )
    delta = _check_delta(1.0 / n if delta is None else delta)
    if eps is not None:
        eps = check_positive("eps", eps)
    if sigma is not None:
        sigma = check_positive("sigma", sigma)
    private = eps is not None or sigma is not None
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
        with _quiet_opacus():
            engine = PrivacyEngine(accountant="prv")
            model, opt, loader = engine.make_private(
                module=model,
                optimizer=opt,
                data_loader=loader,
                noise_multiplier=sigma,
                max_grad_norm=clip,
                noise_generator=g,
            )
    start = time.perf_counter()
    done = 0
    norms: dict[int, np.ndarray] = {}
    model.train()
    with _quiet_opacus():  # opacus's backward-hook notices, once per step
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
                if engine is not None and norm_every and (done == 1 or done % norm_every == 0):
                    sq = sum(
                        p.grad_sample.reshape(len(xb), -1).pow(2).sum(1)
                        for p in model.parameters()
                        if p.grad_sample is not None
                    )
                    norms[done] = sq.sqrt().detach().numpy()
                opt.step()
    seconds = time.perf_counter() - start
    base = model._module if hasattr(model, "_module") else model
    base.eval()
    with torch.no_grad():
        test_loss = float(_lm_loss(base, torch.as_tensor(corpus.test)))
    if engine is not None:
        with _quiet_opacus():
            eps_spent = float(engine.get_epsilon(delta))
    else:
        eps_spent = float("inf")
    return TrainResult(base, eps_spent, test_loss, float(sigma or 0.0), seconds, norms)


def per_sample_grad_norms(model: nn.Module, x: torch.Tensor) -> np.ndarray:
    """L2 norms of the per-record gradients of the LM loss, (B,), computed by opacus's
    ``GradSampleModule`` (the quantity DP-SGD clips at C). ``model`` is left unchanged."""
    check_instance("model", model, ContextLM)
    check_index_array("x", x, model.vocab, ndim=2, high_name="model.vocab")
    x = torch.as_tensor(x)
    if x.shape[1] < 2:
        raise ValueError(f"x must be a (B, L) token batch with L >= 2, got shape {tuple(x.shape)}")
    from opacus import GradSampleModule

    with _quiet_opacus():
        gsm = GradSampleModule(copy.deepcopy(model))
        _lm_loss(gsm, x).backward()
    B = len(x)
    # opacus rescales grad_sample for the mean reduction: it holds each record's own gradient
    sq = sum(p.grad_sample.reshape(B, -1).pow(2).sum(1) for p in gsm.parameters())
    return sq.sqrt().detach().numpy()
