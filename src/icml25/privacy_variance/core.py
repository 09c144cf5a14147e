"""DP-SGD at a fixed (epsilon, delta) with different hyperparameters, and what it memorises.

Everything private is done by **opacus**: per-sample gradients, clipping, noise, Poisson
sampling and the PRV accountant (``PrivacyEngine(accountant="prv")``, ``get_noise_multiplier``).
This module supplies the synthetic corpus with planted canaries, the small context LM, Carlini
et al.'s exposure and the study's grid and regression.

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
import pandas as pd
import torch
import torch.nn as nn
import torch.nn.functional as F

from icml25.common.checks import check_int, check_positive

__all__ = [
    "ContextLM",
    "Corpus",
    "TrainResult",
    "calibrate_sigma",
    "config_vs_seed_anova",
    "exposure",
    "fit_privacy_regression",
    "make_corpus",
    "per_sample_grad_norms",
    "run_grid",
    "train_dp",
]

N_DIGITS = 10  #: tokens 0-9 are digits; secrets are digit strings
SECRET_LEN = 4


@dataclass
class Corpus:
    """Training records with planted canaries, held-out records, and the secrets.

    Attributes:
        train: (n_records, length) int64 token rows; canary rows are mixed in at random places.
        test: (n_test, length) rows from the same Markov chain, without canaries.
        prefix: (length - 4,) the fixed canary prefix ("my number is ..."); letters only.
        secrets: (n_secrets, 4) the secret digit strings: inserted ones first, then controls.
        reps: (n_secrets,) how often each secret was inserted (0: a never-inserted control).
        vocab: vocabulary size (digits 0-9, then letters).
    """

    train: np.ndarray
    test: np.ndarray
    prefix: np.ndarray
    secrets: np.ndarray
    reps: np.ndarray
    vocab: int


def _check_eps_delta(eps: float, delta: float) -> tuple[float, float]:
    eps = check_positive("eps", eps)
    if isinstance(delta, bool) or not isinstance(delta, (int, float, np.floating)):
        raise TypeError(f"delta must be a real number, got {type(delta).__name__}")
    if not 0 < delta < 1:
        raise ValueError(f"delta must be in (0, 1), got {delta}")
    return eps, float(delta)


def make_corpus(
    n_records: int = 4096,
    reps: tuple[int, ...] = (1, 4, 16),
    n_per_rep: int = 20,
    n_controls: int = 20,
    seed: int = 0,
    length: int = 12,
    vocab: int = 16,
    n_test: int = 1024,
) -> Corpus:
    """Synthetic records from a sparse random Markov chain, plus canaries.

    Background rows follow a Markov chain over ``vocab`` tokens whose transition rows are
    Dirichlet(0.3). A canary is ``prefix + secret``: a fixed prefix of ``length - 4`` letters and
    4 random digits; ``n_per_rep`` distinct secrets are inserted ``r`` times each for every ``r``
    in ``reps``, replacing background rows. ``n_controls`` further secrets are never inserted.
    """
    n_records = check_int("n_records", n_records, 2)
    n_per_rep = check_int("n_per_rep", n_per_rep)
    n_controls = check_int("n_controls", n_controls)
    length = check_int("length", length, SECRET_LEN + 2)
    vocab = check_int("vocab", vocab, N_DIGITS + 2)
    if not reps or any(isinstance(r, bool) or not isinstance(r, int) or r < 1 for r in reps):
        raise ValueError(f"reps must be a non-empty tuple of ints >= 1, got {reps!r}")
    n_canary_rows = n_per_rep * sum(reps)
    if n_canary_rows >= n_records:
        raise ValueError(f"{n_canary_rows} canary rows do not fit in n_records={n_records}")
    rng = np.random.default_rng(seed)
    P = rng.dirichlet(np.full(vocab, 0.3), size=vocab)

    def chain(n: int) -> np.ndarray:
        out = np.zeros((n, length), dtype=np.int64)
        out[:, 0] = rng.integers(vocab, size=n)
        for j in range(1, length):
            cum = P[out[:, j - 1]].cumsum(1)
            out[:, j] = np.minimum((rng.random((n, 1)) > cum).sum(1), vocab - 1)
        return out

    background = chain(n_records - n_canary_rows)
    test = chain(check_int("n_test", n_test))
    letters = np.arange(N_DIGITS, vocab)
    prefix = rng.choice(letters, size=length - SECRET_LEN)
    # distinct secrets: sample without replacement from the 10^4 candidates
    n_secrets = n_per_rep * len(reps) + n_controls
    codes = rng.choice(N_DIGITS**SECRET_LEN, size=n_secrets, replace=False)
    secrets = np.stack([(codes // 10**k) % 10 for k in range(SECRET_LEN - 1, -1, -1)], axis=1)
    rep_of = np.concatenate([np.repeat(np.array(reps), n_per_rep), np.zeros(n_controls, int)])
    canary_rows = [
        np.concatenate([prefix, s]) for s, r in zip(secrets, rep_of, strict=True) for _ in range(r)
    ]
    train = np.concatenate([background, np.array(canary_rows, dtype=np.int64)])
    train = train[rng.permutation(len(train))]
    return Corpus(train, test, prefix.astype(np.int64), secrets.astype(np.int64), rep_of, vocab)


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
    from opacus.accountants.utils import get_noise_multiplier

    eps, delta = _check_eps_delta(eps, delta)
    n = check_int("n", n)
    batch_size = check_int("batch_size", batch_size)
    if batch_size > n:
        raise ValueError(f"batch_size ({batch_size}) must not exceed the data size n ({n})")
    steps = check_int("steps", steps)
    if accountant not in ("prv", "rdp", "gdp"):
        raise ValueError(f"accountant must be 'prv', 'rdp' or 'gdp', got {accountant!r}")
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
    if not isinstance(corpus, Corpus):
        raise TypeError(f"corpus must be a Corpus, got {type(corpus).__name__}")
    n = len(corpus.train)
    batch_size = check_int("batch_size", batch_size)
    if batch_size > n:
        raise ValueError(f"batch_size ({batch_size}) must not exceed the data size ({n})")
    steps = check_int("steps", steps)
    lr = check_positive("lr", lr)
    clip = check_positive("clip", clip)
    delta = 1.0 / n if delta is None else delta
    private = eps is not None or sigma is not None
    if private:
        _check_eps_delta(8.0 if eps is None else eps, delta)
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

    from opacus import GradSampleModule

    x = torch.as_tensor(x)
    if x.ndim != 2:
        raise ValueError(f"x must be a (B, L) token batch, got shape {tuple(x.shape)}")
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
    secrets = np.asarray(secrets)
    if secrets.ndim != 2 or secrets.shape[1] != SECRET_LEN:
        raise ValueError(f"secrets must have shape (S, {SECRET_LEN}), got {secrets.shape}")
    if secrets.min() < 0 or secrets.max() >= N_DIGITS:
        raise ValueError("secrets must be digits 0-9")
    cands = _all_candidates()
    ll = _secret_loglik(model, np.asarray(prefix), cands).numpy()
    idx = secrets @ (10 ** np.arange(SECRET_LEN - 1, -1, -1))
    sorted_ll = np.sort(ll)
    # rank = 1 + #candidates with strictly larger log-likelihood
    rank = 1 + len(ll) - np.searchsorted(sorted_ll, ll[idx], side="right")
    return np.log2(len(ll)) - np.log2(rank)


def run_grid(
    configs: list[dict],
    corpus: Corpus,
    eps: float,
    delta: float,
    seeds: tuple[int, ...] | list[int] = (0,),
) -> pd.DataFrame:
    """Train every configuration ``{"b", "T", "lr"}`` for every seed at the same (eps, delta).

    Returns one row per (config, seed) with ``b, T, lr, seed, sigma, eps_spent, test_loss,
    seconds``, the mean exposure of the secrets inserted ``r`` times (``exposure_r{r}``) and
    of the controls (``exposure_control``).
    """
    eps, delta = _check_eps_delta(eps, delta)
    if not configs:
        raise ValueError("configs must be a non-empty list of {'b', 'T', 'lr'} dicts")
    rows = []
    sigmas: dict[tuple[int, int], float] = {}
    levels = sorted(set(corpus.reps.tolist()) - {0})
    for cfg in configs:
        if not {"b", "T", "lr"} <= set(cfg):
            raise ValueError(f"each config needs keys 'b', 'T', 'lr', got {cfg}")
        key = (cfg["b"], cfg["T"])
        if key not in sigmas:  # sigma depends on (b, T) only: calibrate once
            sigmas[key] = calibrate_sigma(eps, delta, cfg["b"], len(corpus.train), cfg["T"])
        for seed in seeds:
            res = train_dp(
                corpus, cfg["b"], cfg["T"], cfg["lr"], eps, delta, seed=seed, sigma=sigmas[key]
            )
            ex = exposure(res.model, corpus.prefix, corpus.secrets)
            row = {
                "b": cfg["b"],
                "T": cfg["T"],
                "lr": cfg["lr"],
                "seed": seed,
                "sigma": res.sigma,
                "eps_spent": res.eps_spent,
                "test_loss": res.test_loss,
                "seconds": res.seconds,
            }
            for r in levels:
                row[f"exposure_r{r}"] = float(ex[corpus.reps == r].mean())
            row["exposure_control"] = float(ex[corpus.reps == 0].mean())
            rows.append(row)
    return pd.DataFrame(rows)


def fit_privacy_regression(df: pd.DataFrame, response: str | None = None):
    """OLS of empirical privacy on the log hyperparameters (statsmodels formula API):
    ``response ~ np.log(b) + np.log(T) + np.log(lr)``.

    ``response`` defaults to the exposure of the most repeated canaries. Returns the fitted
    ``RegressionResults`` (``.params``, ``.conf_int()``, ``.pvalues``, ``.rsquared``).
    """
    import statsmodels.formula.api as smf

    if not isinstance(df, pd.DataFrame):
        raise TypeError(f"df must be a pandas DataFrame, got {type(df).__name__}")
    if response is None:
        cols = sorted(
            (c for c in df.columns if c.startswith("exposure_r")), key=lambda c: int(c[10:])
        )
        if not cols:
            raise ValueError("df has no exposure_r* column; pass response=")
        response = cols[-1]
    missing = {"b", "T", "lr", response} - set(df.columns)
    if missing:
        raise ValueError(f"df is missing columns {sorted(missing)}")
    if len(df) < 5:
        raise ValueError(f"need at least 5 rows to fit 4 coefficients, got {len(df)}")
    return smf.ols(f"{response} ~ np.log(b) + np.log(T) + np.log(lr)", data=df).fit()


def config_vs_seed_anova(df: pd.DataFrame, column: str) -> dict:
    """One-way ANOVA of ``column`` with the configuration (b, T, lr) as the factor.

    Returns ``{"between_sd", "within_sd", "F", "p"}``: the standard deviation of the
    configuration means, the pooled within-configuration (seed-to-seed) standard deviation,
    and scipy's ``f_oneway`` statistic and p-value.
    """
    from scipy.stats import f_oneway

    if column not in df.columns:
        raise ValueError(f"df has no column {column!r}")
    groups = [g[column].to_numpy() for _, g in df.groupby(["b", "T", "lr"])]
    if len(groups) < 2 or min(len(g) for g in groups) < 2:
        raise ValueError("need at least 2 configurations with at least 2 seeds each")
    means = np.array([g.mean() for g in groups])
    within = np.sqrt(np.mean([g.var(ddof=1) for g in groups]))
    stat = f_oneway(*groups)
    return {
        "between_sd": float(means.std(ddof=1)),
        "within_sd": float(within),
        "F": float(stat.statistic),
        "p": float(stat.pvalue),
    }
