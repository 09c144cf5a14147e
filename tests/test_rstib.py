"""Known answers for icml25.rstib: KL helper, generator, noise injector, windows, models, loss."""

import math

import numpy as np
import pytest
import torch

from icml25.rstib import (
    RSTIBMLP,
    STIDMLP,
    STGCNLite,
    add_noise,
    anneal_beta,
    evaluate,
    forecast_errors,
    gaussian_kl,
    make_traffic_graph,
    make_windows,
    rstib_loss,
    seasonal_naive,
    simulate_traffic,
    train_forecaster,
)


@pytest.fixture(scope="module")
def graph():
    return make_traffic_graph(16, "corridors", seed=0)


@pytest.fixture(scope="module")
def windows(graph):
    data = simulate_traffic(graph[1], n_days=9, seed=0)
    return data, make_windows(data, noisy=add_noise(data.x, 0.2, seed=1))


def test_gaussian_kl_known_answers():
    assert float(gaussian_kl(torch.zeros(3), torch.ones(3)).abs().max()) < 1e-7
    g = torch.Generator().manual_seed(0)
    mu = torch.randn(50, generator=g, dtype=torch.float64)
    sigma = torch.rand(50, generator=g, dtype=torch.float64) + 0.05
    closed = -0.5 * (1 + 2 * sigma.log() - mu**2 - sigma**2)
    assert torch.allclose(gaussian_kl(mu, sigma), closed, atol=1e-6)
    with pytest.raises(ValueError, match="mu and sigma"):
        gaussian_kl(torch.zeros(2), torch.ones(3))


def test_gaussian_kl_equals_torch_distributions_bit_for_bit():
    """The closed form replaced ``kl_divergence(Normal, Normal)``: same values, same gradients."""
    from torch.distributions import Normal, kl_divergence

    g = torch.Generator().manual_seed(1)
    mu = torch.randn(4, 7, generator=g).requires_grad_()
    sigma = (torch.rand(4, 7, generator=g) + 0.01).requires_grad_()
    ours = gaussian_kl(mu, sigma)
    ref = kl_divergence(Normal(mu, sigma), Normal(torch.zeros_like(mu), torch.ones_like(mu)))
    assert torch.equal(ours, ref)
    g_ours = torch.autograd.grad(ours.sum(), (mu, sigma))
    g_ref = torch.autograd.grad(ref.sum(), (mu, sigma))
    assert all(torch.equal(a, b) for a, b in zip(g_ours, g_ref, strict=True))


@pytest.mark.parametrize("kind", ["corridors", "knn"])
def test_graph_is_directed_thresholded_kernel(kind):
    coords, W = make_traffic_graph(16, kind, seed=1)
    assert coords.shape == (16, 2) and W.shape == (16, 16)
    assert np.all(W[W > 0] >= 0.1) and np.all(W <= 1)
    assert np.all(np.diag(W) == 0)
    assert not np.any((W > 0) & (W.T > 0))  # one-way: never both i->j and j->i
    assert (W > 0).sum() >= 12


def test_periodic_series_without_shocks_and_noise(graph):
    data = simulate_traffic(graph[1], n_days=8, shock_rate=0.0, ar_std=0.0, seed=0)
    day = 288
    weekday = data.dow < 4  # day d and d + 1 both weekdays
    t = np.flatnonzero(weekday[: len(data.x) - day])
    np.testing.assert_allclose(data.x[t + day], data.x[t], atol=1e-9)
    # seasonal naive at one week is exact as well
    assert np.abs(data.x[7 * day :] - data.x[:day]).max() < 1e-9
    assert np.all(data.congestion == 0)


@pytest.mark.parametrize("lag", [2, 5])
def test_cross_correlation_peaks_at_the_configured_lag(graph, lag):
    coords, W = make_traffic_graph(8, "corridors", seed=0)
    data = simulate_traffic(W, n_days=10, shock_rate=0.01, lag=lag, ar_std=0.0, seed=3)
    up, down = 0, 1  # the first corridor: sensor 0 flows into sensor 1
    assert W[up, down] > 0
    h = data.congestion - data.congestion.mean(0)
    xcorr = [float(h[: len(h) - k, up] @ h[k:, down]) for k in range(0, 3 * lag)]
    assert int(np.argmax(xcorr)) == lag


def test_noise_ratio(windows):
    data, _ = windows
    for r in (0.1, 0.4, 0.8):
        noisy = add_noise(data.x, r, seed=2)
        measured = np.std(noisy - data.x) / np.std(data.x)
        assert abs(measured - r) / r < 0.02
    np.testing.assert_array_equal(add_noise(data.x, 0.0), data.x)


def test_windows_shapes_and_split(windows):
    data, win = windows
    T, N = data.x.shape
    n_win = T - 24 + 1
    sizes = [len(win[s]["x"]) for s in ("train", "val", "test")]
    assert sum(sizes) == n_win and abs(sizes[0] / n_win - 0.6) < 0.01
    assert win["train"]["x"].shape == (sizes[0], 12, N)
    assert win["test"]["y"].shape == (sizes[2], 12, N)
    # the clean target of the first test window is the clean series at its position
    t0 = win["test"]["t"][0]
    np.testing.assert_allclose(
        win["test"]["y_clean"][0] * win["scale"], data.x[t0 : t0 + 12], rtol=1e-5
    )
    assert win["test"]["tod"][0] == data.tod[t0 - 1]
    base = seasonal_naive(data.x, win, "test", period=7 * 288)
    assert base["seasonal naive"].shape == win["test"]["y"].shape


def test_bad_inputs(graph, windows):
    data, _ = windows
    with pytest.raises(ValueError, match="ratio"):
        add_noise(data.x, -0.1)
    with pytest.raises(ValueError, match="lag"):
        make_windows(data, lag=0)
    with pytest.raises(ValueError, match="horizon"):
        make_windows(data, horizon=0)
    with pytest.raises(ValueError, match="split"):
        make_windows(data, split=(0.6, 0.2, 0.1))
    with pytest.raises(ValueError, match="W must be square"):
        simulate_traffic(np.zeros((4, 3)))
    with pytest.raises(ValueError, match="W must be a square"):
        STGCNLite(4, np.zeros((4, 3)))
    with pytest.raises(ValueError, match="lag"):
        simulate_traffic(graph[1], lag=0)
    with pytest.raises(ValueError, match="kind"):
        make_traffic_graph(8, "ring")
    with pytest.raises(TypeError, match="data"):
        make_windows(data.x)


def test_model_shapes(graph):
    B, N = 5, 16
    x = torch.rand(B, 12, N)
    tod, dow = torch.randint(0, 288, (B,)), torch.randint(0, 7, (B,))
    for model in (STIDMLP(N, d=8), STGCNLite(N, graph[1], channels=8), RSTIBMLP(N, d=8)):
        model.eval()
        assert model(x, tod, dow).shape == (B, 12, N)
    out = RSTIBMLP(N, d=8).forward_ib(x, tod, dow)
    assert out.pred.shape == (B, 12, N)
    assert out.mu.shape == out.sigma.shape == (B, N, 20)
    assert out.mu_y.shape == (B, N, 12) and out.mu_x.shape == (B, N, 40)
    for s in (out.sigma, out.sigma_y, out.sigma_x):
        assert float(s.min()) >= 0.01 - 1e-6 and float(s.max()) <= 0.99 + 1e-6
    det = RSTIBMLP(N, d=8, ib=False).eval()
    assert torch.equal(det(x, tod, dow), det(x, tod, dow))


def test_rstib_loss_parts_and_gradient():
    torch.manual_seed(0)
    B, N = 4, 16
    model = RSTIBMLP(N, d=8)
    x, y = torch.rand(B, 12, N), torch.rand(B, 12, N)
    tod, dow = torch.randint(0, 288, (B,)), torch.randint(0, 7, (B,))
    out = model.forward_ib(x, tod, dow)
    loss, parts = rstib_loss(out, y, teacher_pred=y.clone(), scale=100.0)
    assert set(parts) == {"reg", "kl", "kl_y", "kl_x", "kd"}
    assert all(np.isfinite(v) and v >= 0 for v in parts.values())
    loss.backward()
    assert model.head.weight.grad is not None
    _, parts0 = rstib_loss(model.forward_ib(x, tod, dow), y, None)
    assert "kd" not in parts0
    # beta = 0 and no teacher: the loss is L_reg / ln 2 with uniform weights 2 - 1/N
    out = model.forward_ib(x, tod, dow)
    torch.manual_seed(1)
    loss, parts = rstib_loss(out, y, None, beta=0.0)
    assert math.isclose(loss.item(), parts["reg"] / math.log(2), rel_tol=1e-6)
    with pytest.raises(ValueError, match="y must have shape"):
        rstib_loss(out, y[:, :6], None)


def test_without_ib_the_whole_ingredient_is_gone():
    """ib=False: train-mode passes are deterministic, no distributions, and the loss is the plain
    distillation + L1 loss (no sampled target noise, no KL)."""
    torch.manual_seed(0)
    B, N = 4, 16
    x, y, teacher = torch.rand(B, 12, N), torch.rand(B, 12, N), torch.rand(B, 12, N)
    tod, dow = torch.randint(0, 288, (B,)), torch.randint(0, 7, (B,))

    def train_mode_without_dropout(model):  # the MLP's own dropout is not the bottleneck
        model.train()
        for m in model.modules():
            if isinstance(m, torch.nn.Dropout):
                m.eval()
        return model

    stochastic = train_mode_without_dropout(RSTIBMLP(N, d=8))
    assert not torch.equal(stochastic.forward_ib(x, tod, dow).pred, stochastic(x, tod, dow))
    model = train_mode_without_dropout(RSTIBMLP(N, d=8, ib=False))
    a, b = model.forward_ib(x, tod, dow), model.forward_ib(x, tod, dow)
    assert torch.equal(a.pred, b.pred)
    assert a.sigma is None and a.mu_y is None and a.sigma_x is None
    scale, kd_weight = 100.0, 0.3
    loss, parts = rstib_loss(a, y, teacher, beta=1.0, kd_weight=kd_weight, scale=scale)
    assert set(parts) == {"reg", "kd"}
    pred, t, yy = a.pred * scale, teacher * scale, y * scale
    d = torch.softmax((t - yy).abs().mean(1), dim=1)
    l1 = ((2 - d)[:, None, :] * (pred - yy).abs()).mean()
    expected = l1 / math.log(2) + kd_weight * torch.nn.functional.smooth_l1_loss(pred, t)
    assert math.isclose(loss.item(), expected.item(), rel_tol=1e-6)
    # ... and it never touches the noise heads
    loss.backward()
    assert model.noise_x.weight.grad is None and model.noise_y.weight.grad is None


def test_forecast_errors_known_values():
    y = np.array([[10.0, 20.0]])
    e = forecast_errors(np.array([[12.0, 18.0]]), y)
    assert e["MAE"] == 2.0 and e["RMSE"] == 2.0 and abs(e["MAPE"] - 15.0) < 1e-12


def test_training_is_seeded_and_learns(windows):
    _, win = windows
    small = {k: v for k, v in win.items()}
    small["train"] = {k: v[:256] for k, v in win["train"].items()}
    results = []
    for _ in range(2):
        model = STIDMLP(16, d=8)
        torch.manual_seed(0)
        model = STIDMLP(16, d=8)
        hist = train_forecaster(model, small, epochs=2, batch_size=64, seed=0)
        results.append(evaluate(model, small)["MAE"])
    assert results[0] == results[1]
    assert hist["train_loss"][1] < hist["train_loss"][0]
    assert len(hist["val_mae"]) == 2


@pytest.mark.parametrize("average", ["draws", "forecasts"])
def test_batched_evaluation_draws_match_single_passes(average):
    N = 16
    model = RSTIBMLP(N, d=8, n_eval_samples=1, eval_average=average).eval()
    x = torch.rand(3, 12, N)
    tod, dow = torch.randint(0, 288, (3,)), torch.randint(0, 7, (3,))
    torch.manual_seed(5)
    batched = model(x, tod, dow)
    torch.manual_seed(5)
    single = model.forward_ib(x, tod, dow).pred
    assert torch.allclose(batched, single, atol=1e-6)


def test_official_averaging_of_many_draws_tends_to_the_mean_path():
    """eval_average="draws" averages the noise before one pass: with many draws the forecast is
    the mean path's; the Monte Carlo average of forecasts keeps the sampling spread."""
    torch.manual_seed(0)
    N = 16
    model = RSTIBMLP(N, d=8).eval()
    x = torch.rand(3, 12, N)
    tod, dow = torch.randint(0, 288, (3,)), torch.randint(0, 7, (3,))
    model.n_eval_samples = 0
    mean_path = model(x, tod, dow)
    model.n_eval_samples = 1
    one_draw = model(x, tod, dow)
    model.n_eval_samples = 4000
    many = model(x, tod, dow)
    gap_one = (one_draw - mean_path).abs().max()
    assert (many - mean_path).abs().max() < 0.1 * gap_one


def test_scaled_single_draw_has_the_spread_of_the_official_average():
    """One draw scaled by 1/sqrt(S) has the distribution of the mean of S draws."""
    N = 16
    torch.manual_seed(0)
    model = RSTIBMLP(N, d=8, n_eval_samples=12).eval()
    x = torch.rand(2, 12, N)
    tod, dow = torch.randint(0, 288, (2,)), torch.randint(0, 7, (2,))
    spread = {}
    for average in ("draws", "scaled"):
        model.eval_average = average
        with torch.no_grad():
            preds = torch.stack([model(x, tod, dow) for _ in range(400)])
        spread[average] = preds.std(0).mean().item()
    assert abs(spread["scaled"] / spread["draws"] - 1) < 0.15, spread


def test_anneal_beta_follows_the_official_schedule():
    b = anneal_beta(1e-3, 12, beta_init=0.0)
    assert b.shape == (12,)
    assert np.all(b[:3] == 0.0) and np.all(b[6:] == 1e-3)
    assert np.all(np.diff(b) >= 0) and b[3] == 0.0 and math.isclose(b[5], 1e-3)
    assert np.all(anneal_beta(1e-3, 3) == 1e-3)  # under 4 epochs there is nothing to anneal


def test_training_traces_patience_and_schedule(windows):
    _, win = windows
    small = {k: v for k, v in win.items()}
    small["train"] = {k: v[:128] for k, v in win["train"].items()}
    torch.manual_seed(0)
    model = RSTIBMLP(16, d=8)
    sched = np.array([0.0, 0.0, 1e-3, 1e-3])
    hist = train_forecaster(model, small, 4, batch_size=64, beta_schedule=sched, patience=1)
    n = len(hist["val_mae"])
    assert n == 4 or n == hist["best_epoch"] + 2  # stopped one epoch after the last best
    assert hist["beta"] == sched[:n].tolist()
    assert set(hist["trace"]) == {
        "sigma",
        "sigma_x",
        "sigma_y",
        "mu_y",
        "mu_y_abs",
        "kl",
        "kl_y",
        "kl_x",
        "reg",
    }
    assert all(
        abs(m) <= a + 1e-6
        for m, a in zip(hist["trace"]["mu_y"], hist["trace"]["mu_y_abs"], strict=True)
    )
    assert all(len(v) == n for v in hist["trace"].values())
    assert all(0.01 <= v <= 0.99 for k in ("sigma", "sigma_x") for v in hist["trace"][k])
    torch.manual_seed(0)
    plain = train_forecaster(STIDMLP(16, d=8), small, 2, batch_size=64)
    assert plain["trace"] == {}
    # plain models are trained in flow units (like RSTIB-MLP's L_reg and the val MAE)
    assert 0.3 < plain["train_loss"][-1] / plain["val_mae"][-1] < 3
    with pytest.raises(ValueError, match="beta_schedule"):
        train_forecaster(STIDMLP(16, d=8), small, 5, beta_schedule=sched)


def test_teacher_forecasts_reused_give_the_same_training():
    """Passing predict(teacher, windows, "train") once equals letting each call compute it."""
    from icml25.rstib.train import predict

    _, W = make_traffic_graph(8, "corridors", seed=0)
    data = simulate_traffic(W, n_days=2, lag=3, seed=0)
    win = make_windows(data, noisy=add_noise(data.x, 0.5, seed=1))
    torch.manual_seed(0)
    teacher = STIDMLP(8, d=4)
    runs = []
    for forecasts in (None, predict(teacher, win, "train")):
        torch.manual_seed(1)
        student = RSTIBMLP(8, d=4)
        h = train_forecaster(student, win, 2, teacher=teacher, seed=1, teacher_forecasts=forecasts)
        runs.append((h["val_mae"], predict(student, win, "test")))
    assert runs[0][0] == runs[1][0]
    np.testing.assert_array_equal(runs[0][1], runs[1][1])
    with pytest.raises(ValueError, match="teacher_forecasts"):
        train_forecaster(RSTIBMLP(8, d=4), win, 1, teacher_forecasts=runs[0][1])
