"""Known answers for icml25.privacy_variance: accounting, clipping, exposure, corpus, bad input."""

import numpy as np
import pandas as pd
import pytest
import torch

from icml25.privacy_variance import (
    MAX_EXPOSURE,
    ContextLM,
    calibrate_sigma,
    config_vs_seed_anova,
    exposure,
    extracted,
    fit_privacy_regression,
    make_corpus,
    secret_loglik,
    train_dp,
    tune_lr,
)


@pytest.fixture(scope="module")
def corpus():
    return make_corpus(n_records=1024, reps=(1, 16), n_per_rep=10, n_controls=50, seed=0)


def test_corpus_layout(corpus):
    assert corpus.train.shape == (1024, 12) and corpus.test.shape == (1024, 12)
    assert corpus.secrets.shape == (70, 4) and len(np.unique(corpus.secrets, axis=0)) == 70
    rows = {tuple(r) for r in corpus.train.tolist()}
    for p, s, r in zip(corpus.prefixes, corpus.secrets, corpus.reps, strict=True):
        canary = np.concatenate([p, s])
        count = int(np.all(corpus.train == canary, axis=1).sum())
        assert count == r
        assert (tuple(canary) in rows) == (r > 0)
    assert corpus.prefixes.min() >= 10  # letters only, so a secret cannot start early
    # every secret has its own prefix, distinct in the last 4 tokens (the LM's context)
    assert len({tuple(p[-4:]) for p in corpus.prefixes.tolist()}) == len(corpus.secrets)
    null = make_corpus(
        n_records=1024, reps=(1, 16), n_per_rep=10, n_controls=50, seed=0, insert=False
    )
    assert np.array_equal(null.secrets, corpus.secrets) and np.array_equal(null.test, corpus.test)
    for p, s in zip(null.prefixes, null.secrets, strict=True):
        assert not np.all(null.train == np.concatenate([p, s]), axis=1).any()


def test_calibration_matches_opacus_and_a_second_accountant():
    from opacus.accountants import PRVAccountant
    from prv_accountant import PRVAccountant as RefPRV
    from prv_accountant.privacy_random_variables import PoissonSubsampledGaussianMechanism

    n, b, T, eps, delta = 4096, 256, 100, 8.0, 1 / 4096
    sigma = calibrate_sigma(eps, delta, b, n, T)
    acc = PRVAccountant()
    acc.history = [(sigma, b / n, T)]
    assert abs(acc.get_epsilon(delta) - eps) / eps < 0.01
    prv = PoissonSubsampledGaussianMechanism(sampling_probability=b / n, noise_multiplier=sigma)
    ref = RefPRV(prvs=[prv], max_self_compositions=[T], eps_error=0.01, delta_error=1e-10)
    lo, est, hi = ref.compute_epsilon(delta=delta, num_self_compositions=[T])
    assert abs(est - eps) / eps < 0.02


def test_clipping_bounds_every_per_sample_gradient():
    from opacus import GradSampleModule
    from opacus.optimizers import DPOptimizer

    torch.manual_seed(0)
    model = GradSampleModule(ContextLM(16))
    opt = DPOptimizer(
        torch.optim.SGD(model.parameters(), lr=1.0),
        noise_multiplier=0.0,
        max_grad_norm=0.5,
        expected_batch_size=8,
    )
    x = torch.randint(0, 16, (8, 12))
    logits = model(x)
    torch.nn.functional.cross_entropy(logits.reshape(-1, 16), x[:, 1:].reshape(-1)).backward()
    raw = torch.stack(
        [p.grad_sample.reshape(8, -1).norm(dim=1) for p in model.parameters()], 1
    ).norm(dim=1)
    assert raw.max() > 0.5  # clipping is active
    opt.clip_and_accumulate()
    summed = torch.cat([p.summed_grad.reshape(-1) for p in model.parameters()])
    factors = (0.5 / (raw + 1e-6)).clamp(max=1.0)
    expected = torch.cat(
        [
            torch.einsum("i,i...->...", factors, p.grad_sample).reshape(-1)
            for p in model.parameters()
        ]
    )
    assert torch.allclose(summed, expected, atol=1e-5)
    assert float((raw * factors).max()) <= 0.5 + 1e-5


def test_exposure_known_answers(corpus):
    # a model that puts all its mass on the secret after its prefix: the maximum, log2 10^4
    p, s = corpus.prefixes[0], corpus.secrets[0]
    seq = np.concatenate([p, s])
    target = {tuple(seq[: k + 1].tolist()): int(seq[k + 1]) for k in range(len(p) - 1, 11)}

    class Sharp(torch.nn.Module):
        vocab = 16

        def forward(self, x):
            B, L = x.shape
            out = torch.full((B, L - 1, 16), -30.0)
            for i in range(B):
                for t in range(L - 1):
                    out[i, t, target.get(tuple(x[i, : t + 1].tolist()), 0)] = 0.0
            return out

    assert exposure(Sharp(), p[None], s[None])[0] == pytest.approx(MAX_EXPOSURE)
    assert extracted(Sharp(), p[None], s[None])[0]
    assert MAX_EXPOSURE == pytest.approx(np.log2(1e4))
    # an untrained model ranks secrets at random: 50 controls average ~ log2(e) = 1.44 bits
    torch.manual_seed(0)
    model = ContextLM(16)
    ex = exposure(model, corpus.prefixes, corpus.secrets)
    assert ex.shape == (70,) and ex.max() <= MAX_EXPOSURE + 1e-9 and ex.min() >= 0
    assert 0.8 < ex[corpus.reps == 0].mean() < 2.2
    assert not extracted(model, corpus.prefixes, corpus.secrets).all()


class _Constant(torch.nn.Module):
    """Constant logits: exactly uniform over the digits, or NaN."""

    vocab = 16

    def __init__(self, value: float = 0.0):
        super().__init__()
        self.value = value

    def forward(self, x):
        B, L = x.shape
        return torch.full((B, L - 1, 16), self.value)


def test_exposure_of_an_exactly_uniform_model_is_one_bit(corpus):
    # every candidate ties: the mid-rank (N + 1) / 2 gives log2(2N / (N + 1)), about 1 bit
    # (a rank of 1 + #strictly greater would give every secret the ceiling, 13.3 bits)
    N = 10**4
    ex = exposure(_Constant(), corpus.prefixes, corpus.secrets)
    assert ex == pytest.approx(np.full(len(ex), np.log2(N / ((N + 1) / 2))), abs=1e-9)


def test_exposure_rejects_non_finite_outputs(corpus):
    with pytest.raises(ValueError, match="non-finite"):
        exposure(_Constant(float("nan")), corpus.prefixes[:2], corpus.secrets[:2])


def test_secret_loglik_matches_the_full_sequence_likelihood(corpus):
    torch.manual_seed(0)
    model = ContextLM(16)
    ll = secret_loglik(model, corpus.prefixes[:3])
    assert ll.shape == (3, 10**4)
    assert (np.logaddexp.reduce(ll, axis=1) <= 1e-6).all()  # digit strings share mass <= 1
    for i, code in [(0, 0), (1, 4711), (2, 9999)]:
        digits = [(code // 10**k) % 10 for k in (3, 2, 1, 0)]
        seq = torch.tensor(np.concatenate([corpus.prefixes[i], digits]))[None]
        with torch.no_grad():
            logp = torch.log_softmax(model(seq), -1)[0]
        direct = sum(float(logp[len(seq[0]) - 5 + j, digits[j]]) for j in range(4))
        assert ll[i, code] == pytest.approx(direct, abs=1e-4)


def test_memorisation_and_null():
    from scipy.stats import mannwhitneyu

    c = make_corpus(n_records=2048, reps=(16,), n_per_rep=20, n_controls=50, seed=1)
    res = train_dp(c, 128, 400, 0.5, eps=None, seed=0)
    ex = exposure(res.model, c.prefixes, c.secrets)
    assert ex[c.reps == 16].mean() >= 10  # non-private: repeated canaries memorised
    assert 1.0 <= ex[c.reps == 0].mean() <= 1.9
    assert extracted(res.model, c.prefixes[c.reps == 16], c.secrets[c.reps == 16]).mean() > 0.5
    # the null: the same training on the corpus without the canaries; "inserted" and control
    # secrets are indistinguishable
    null = make_corpus(
        n_records=2048, reps=(16,), n_per_rep=20, n_controls=50, seed=1, insert=False
    )
    res0 = train_dp(null, 128, 400, 0.5, eps=None, seed=0)
    ex0 = exposure(res0.model, null.prefixes, null.secrets)
    assert mannwhitneyu(ex0[null.reps == 16], ex0[null.reps == 0]).pvalue > 0.01


def test_train_dp_takes_eps_or_sigma_and_records_norms(corpus):
    with pytest.raises(ValueError, match="eps or sigma"):
        train_dp(corpus, 64, 5, 0.5, eps=4.0, sigma=1.0)
    res = train_dp(corpus, 64, 6, 0.5, eps=None, sigma=1.0, norm_every=3)
    assert np.isfinite(res.eps_spent) and res.sigma == 1.0
    assert sorted(res.grad_norms) == [1, 3, 6]
    assert all(v.ndim == 1 and (v > 0).all() for v in res.grad_norms.values())


def test_tune_lr_picks_the_lowest_loss():
    df = pd.DataFrame(
        [
            {"b": b, "T": 10, "lr": lr, "seed": 0, "test_loss": (lr - b / 64) ** 2}
            for b in (64, 128)
            for lr in (0.5, 1.0, 2.0)
        ]
    )
    assert tune_lr(df) == [{"b": 64, "T": 10, "lr": 1.0}, {"b": 128, "T": 10, "lr": 2.0}]


def test_dp_training_spends_the_target_epsilon(corpus):
    res = train_dp(corpus, 64, 40, 0.5, eps=4.0, seed=0)
    assert abs(res.eps_spent - 4.0) / 4.0 < 0.01
    assert np.isfinite(res.test_loss) and res.sigma > 0
    again = train_dp(corpus, 64, 40, 0.5, eps=4.0, seed=0)
    assert again.test_loss == res.test_loss  # seeded


def test_regression_and_anova():
    rng = np.random.default_rng(0)
    rows = []
    for b in (32, 128, 512):
        for T in (50, 200):
            for seed in range(3):
                rows.append(
                    {
                        "b": b,
                        "T": T,
                        "lr": 1.0 + 0.1 * seed,
                        "seed": seed,
                        "exposure_r16": np.log(b) + 0.1 * rng.normal(),
                    }
                )
    df = pd.DataFrame(rows)
    fit = fit_privacy_regression(df)
    assert abs(fit.params["np.log(b)"] - 1.0) < 0.1
    assert fit.conf_int().shape == (4, 2)
    df["cfg_lr"] = 1.0
    stats = config_vs_seed_anova(df.assign(lr=df["cfg_lr"]), "exposure_r16")
    assert stats["between_sd"] > 5 * stats["within_sd"] and stats["p"] < 1e-6


def test_bad_inputs(corpus):
    with pytest.raises(ValueError, match="eps"):
        calibrate_sigma(0.0, 1e-5, 64, 1000, 10)
    with pytest.raises(ValueError, match="delta"):
        calibrate_sigma(8.0, 1.5, 64, 1000, 10)
    with pytest.raises(ValueError, match="batch_size"):
        calibrate_sigma(8.0, 1e-5, 2000, 1000, 10)
    with pytest.raises(ValueError, match="steps"):
        calibrate_sigma(8.0, 1e-5, 64, 1000, 0)
    with pytest.raises(ValueError, match="batch_size"):
        train_dp(corpus, 5000, 10, 0.5)
    with pytest.raises(ValueError, match="steps"):
        train_dp(corpus, 64, 0, 0.5)
    with pytest.raises(ValueError, match="eps"):
        train_dp(corpus, 64, 10, 0.5, eps=-1.0)
    with pytest.raises(ValueError, match="delta"):
        train_dp(corpus, 64, 10, 0.5, eps=1.0, delta=0.0)
    with pytest.raises(ValueError, match="secrets"):
        exposure(ContextLM(16), corpus.prefixes[:3], np.zeros((3, 5), int))
    with pytest.raises(ValueError, match="reps"):
        make_corpus(reps=())


def test_per_sample_grad_norms_match_single_record_gradients():
    from icml25.privacy_variance import per_sample_grad_norms

    torch.manual_seed(0)
    model = ContextLM(16)
    x = torch.randint(0, 16, (4, 12))
    norms = per_sample_grad_norms(model, x)
    for i in range(4):
        model.zero_grad()
        logits = model(x[i : i + 1])
        torch.nn.functional.cross_entropy(logits.reshape(-1, 16), x[i, 1:]).backward()
        direct = torch.cat([p.grad.reshape(-1) for p in model.parameters()]).norm()
        assert abs(float(direct) - norms[i]) < 1e-4 * max(1.0, float(direct))


def test_unigram_loss_flags_a_model_that_ignores_the_context(corpus):
    from icml25.privacy_variance.study import _unigram_loss

    u = _unigram_loss(corpus)
    # below the uniform loss log V, and equal to the loss of the best context-free predictor
    # (the test tokens' own frequencies) up to the train/test difference
    assert 0 < u < np.log(corpus.vocab)
    f = np.bincount(corpus.test[:, 1:].ravel(), minlength=corpus.vocab) / corpus.test[:, 1:].size
    entropy = -np.sum(f[f > 0] * np.log(f[f > 0]))
    assert entropy <= u < entropy + 0.05
