"""Known answers for icml25.privacy_variance: accounting, clipping, exposure, corpus, bad input."""

import numpy as np
import pandas as pd
import pytest
import torch

from icml25.privacy_variance import (
    ContextLM,
    calibrate_sigma,
    config_vs_seed_anova,
    exposure,
    fit_privacy_regression,
    make_corpus,
    train_dp,
)


@pytest.fixture(scope="module")
def corpus():
    return make_corpus(n_records=1024, reps=(1, 16), n_per_rep=10, n_controls=50, seed=0)


def test_corpus_layout(corpus):
    assert corpus.train.shape == (1024, 12) and corpus.test.shape == (1024, 12)
    assert corpus.secrets.shape == (70, 4) and len(np.unique(corpus.secrets, axis=0)) == 70
    rows = {tuple(r) for r in corpus.train.tolist()}
    for s, r in zip(corpus.secrets, corpus.reps, strict=True):
        canary = np.concatenate([corpus.prefix, s])
        count = int(np.all(corpus.train == canary, axis=1).sum())
        assert count == r
        assert (tuple(canary) in rows) == (r > 0)
    assert corpus.prefix.min() >= 10  # letters only, so a secret cannot start early


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
    torch.manual_seed(0)
    model = ContextLM(16)
    # a model that has seen nothing: exposures of 50 controls average ~ log2(e) = 1.44 bits
    ex = exposure(model, corpus.prefix, corpus.secrets)
    assert ex.shape == (70,) and ex.max() <= np.log2(1e4) + 1e-9 and ex.min() >= 0
    assert 0.8 < ex[corpus.reps == 0].mean() < 2.2


def test_memorisation_and_null():
    from scipy.stats import mannwhitneyu

    c = make_corpus(n_records=2048, reps=(16,), n_per_rep=20, n_controls=50, seed=1)
    res = train_dp(c, 128, 400, 0.5, eps=None, seed=0)
    ex = exposure(res.model, c.prefix, c.secrets)
    assert ex[c.reps == 16].mean() >= 10  # non-private: repeated canaries memorised
    assert 1.0 <= ex[c.reps == 0].mean() <= 1.9
    # huge noise: inserted and control secrets are indistinguishable
    noisy = train_dp(c, 128, 100, 0.5, sigma=50.0, seed=0)
    ex = exposure(noisy.model, c.prefix, c.secrets)
    assert mannwhitneyu(ex[c.reps == 16], ex[c.reps == 0]).pvalue > 0.01


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
        exposure(ContextLM(16), corpus.prefix, np.zeros((3, 5), int))
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
