"""Known-answer tests of icml25.sufficient_explanations (seconds)."""

import numpy as np
import pytest

from icml25.sufficient_explanations import (
    Net,
    crown_bounds,
    digits_data,
    falsify,
    ibp_bounds,
    input_box,
    is_sufficient,
    margin_net,
    milp_bounds,
    minimal_explanation,
    planted_data,
    reduce_network,
    sensitivity,
    train_mlp,
)

RATES = (0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0)


def random_net(sizes=(64, 128, 128, 10), seed=0):
    rng = np.random.default_rng(seed)
    Ws = [rng.normal(size=(b, a)) / np.sqrt(a) for a, b in zip(sizes[:-1], sizes[1:], strict=False)]
    bs = [0.1 * rng.normal(size=b) for b in sizes[1:]]
    return Net(Ws, bs)


@pytest.fixture(scope="module")
def digits_net():
    Xtr, ytr, Xte, yte = digits_data(0)
    return train_mlp(Xtr, ytr, hidden=(64, 64), epochs=8, seed=0), Xte


def box(n=64, n_free=30, eps=0.1, seed=1):
    rng = np.random.default_rng(seed)
    x = rng.random(n)
    return x, *input_box(x, list(range(n_free)), eps)


def test_forward_matches_torch_export_and_work():
    net = random_net((5, 4, 3))
    X = np.random.default_rng(0).random((7, 5))
    manual = net.Ws[1] @ np.maximum(net.Ws[0] @ X.T + net.bs[0][:, None], 0) + net.bs[1][:, None]
    np.testing.assert_allclose(net.forward(X), manual.T)
    assert net.work == 5 * 4 + 4 * 3
    with pytest.raises(ValueError, match="interval"):
        Net(net.Ws, net.bs, [None, (np.zeros(3), np.ones(3))]).forward(X)


def test_input_box_clips_to_domain_and_fixes_the_rest():
    x = np.array([0.05, 0.5, 0.97])
    lo, hi = input_box(x, [0, 2], 0.1)
    np.testing.assert_allclose(lo, [0.0, 0.5, 0.87])
    np.testing.assert_allclose(hi, [0.15, 0.5, 1.0])


@pytest.mark.parametrize("rate", [0.1, 0.3, 0.5, 0.7, 0.9, 1.0])
def test_ibp_is_invariant_under_the_reduction(rate):
    net = random_net()
    x, lo, hi = box()
    ref = ibp_bounds(net, lo, hi)[-1]
    red = reduce_network(net, lo, hi, rate)
    assert red.widths == [int(np.ceil(rate * 128 - 1e-12))] * 2
    out = ibp_bounds(red, lo, hi)[-1]
    np.testing.assert_allclose(out[0], ref[0], atol=1e-9, rtol=0)
    np.testing.assert_allclose(out[1], ref[1], atol=1e-9, rtol=0)


def test_rate_one_changes_nothing():
    net = random_net()
    _, lo, hi = box()
    red = reduce_network(net, lo, hi, 1.0)
    assert not red.abstract and all(
        np.array_equal(a, b) for a, b in zip(red.Ws, net.Ws, strict=False)
    )


@pytest.mark.parametrize("trained", [False, True])
@pytest.mark.parametrize("bucket", ["static", "dynamic"])
@pytest.mark.parametrize("rate", RATES)
def test_abstract_bounds_contain_sampled_original_logits(rate, bucket, trained, digits_net):
    net = digits_net[0] if trained else random_net()
    x, lo, hi = box(n_free=40)
    if trained:
        x = digits_net[1][0]
        lo, hi = input_box(x, list(range(40)), 0.1)
    red = reduce_network(net, lo, hi, rate, bucket=bucket)
    P = lo + (hi - lo) * np.random.default_rng(2).random((1000, 64))
    P[:500] = np.where(P[:500] < (lo + hi)[None] / 2, lo, hi)  # vertices of the box
    Y = net.forward(P)
    for slope in ("adaptive", "parallel"):
        low, up = crown_bounds(red, lo, hi, lower_slope=slope)
        assert np.all(Y >= low - 1e-9) and np.all(Y <= up + 1e-9)
    low, up = ibp_bounds(red, lo, hi)[-1]
    assert np.all(Y >= low - 1e-9) and np.all(Y <= up + 1e-9)


def test_crown_is_tighter_than_ibp_and_loses_precision_when_reduced():
    net = random_net()
    _, lo, hi = box(n_free=40)
    low, up = crown_bounds(net, lo, hi)
    il, iu = ibp_bounds(net, lo, hi)[-1]
    assert np.all(low >= il - 1e-9) and np.all(up <= iu + 1e-9)
    widths = [
        np.mean(np.subtract(*crown_bounds(reduce_network(net, lo, hi, r), lo, hi)[::-1]))
        for r in (0.1, 0.5, 1.0)
    ]
    assert widths[0] > widths[1] > widths[2]


@pytest.mark.parametrize(("adaptive", "slope"), [(True, "adaptive"), (False, "parallel")])
def test_crown_matches_bound_propagation(adaptive, slope):
    torch = pytest.importorskip("torch")
    bp = pytest.importorskip("bound_propagation")
    net = random_net()
    _, lo, hi = box(n_free=40)
    layers = []
    for k, (W, b) in enumerate(zip(net.Ws, net.bs, strict=False)):
        lin = torch.nn.Linear(W.shape[1], W.shape[0]).double()
        with torch.no_grad():
            lin.weight.copy_(torch.tensor(W))
            lin.bias.copy_(torch.tensor(b))
        layers += [lin] + ([torch.nn.ReLU()] if k < len(net.Ws) - 1 else [])
    model = bp.BoundModelFactory(adaptive_relu=adaptive).build(torch.nn.Sequential(*layers))
    region = bp.HyperRectangle(torch.tensor(lo)[None], torch.tensor(hi)[None])
    ref = model.crown(region).concretize()
    low, up = crown_bounds(net, lo, hi, lower_slope=slope)
    np.testing.assert_allclose(low, ref.lower[0].detach().numpy(), atol=1e-9, rtol=0)
    np.testing.assert_allclose(up, ref.upper[0].detach().numpy(), atol=1e-9, rtol=0)


def test_crown_with_C_is_C_of_the_spec():
    net = random_net((6, 8, 8, 3))
    x = np.full(6, 0.5)
    lo, hi = input_box(x, [0, 1, 2], 0.2)
    C = np.array([[1.0, -1.0, 0.0], [0.0, 2.0, -1.0]])
    low, up = crown_bounds(net, lo, hi, C=C)
    P = lo + (hi - lo) * np.random.default_rng(0).random((2000, 6))
    V = net.forward(P) @ C.T
    assert np.all(V >= low - 1e-9) and np.all(V <= up + 1e-9)


def test_milp_is_exact_on_a_tiny_net_and_agrees_with_crown():
    net = random_net((6, 8, 8, 3), seed=3)
    x = np.full(6, 0.5)
    lo, hi = input_box(x, [0, 1, 2, 3], 0.2)
    ml, mu = milp_bounds(net, lo, hi)
    cl, cu = crown_bounds(net, lo, hi)
    assert np.all(ml >= cl - 1e-7) and np.all(mu <= cu + 1e-7)
    # exact: sampled extremes approach the MILP values from inside
    P = lo + (hi - lo) * (np.random.default_rng(0).random((20000, 6)) < 0.5)
    Y = net.forward(np.vstack([P, lo + (hi - lo) * np.random.default_rng(1).random((20000, 6))]))
    assert np.all(Y >= ml - 1e-6) and np.all(Y <= mu + 1e-6)
    assert np.max(Y.min(0) - ml) < 0.05 * np.max(mu - ml)


def test_milp_agrees_wherever_crown_verifies(digits_net):
    rng = np.random.default_rng(0)
    net = random_net((16, 12, 12, 4), seed=5)
    for _trial in range(6):
        x = rng.random(16)
        free = list(rng.choice(16, size=6, replace=False))
        for eps in (0.05, 0.2):
            crown = is_sufficient(net, x, free, eps, verifier="crown")
            ibp = is_sufficient(net, x, free, eps, verifier="ibp")
            # the MILP itself, big-M constants from IBP only: independent of CROWN
            t = int(np.argmax(net.forward(x)))
            lo, hi = input_box(x, free, eps)
            exact = milp_bounds(margin_net(net, t), lo, hi, big_m="ibp")[0].min()
            assert exact > 0 or not crown
            assert crown or not ibp
            cl = crown_bounds(margin_net(net, t), lo, hi)[0].min()
            assert exact >= cl - 1e-7


def test_milp_big_m_from_ibp_or_crown_gives_the_same_exact_bounds():
    net = random_net((6, 8, 8, 3), seed=4)
    lo, hi = input_box(np.full(6, 0.5), [0, 1, 2, 3, 4], 0.3)
    a = milp_bounds(net, lo, hi, big_m="crown")
    b = milp_bounds(net, lo, hi, big_m="ibp")
    np.testing.assert_allclose(a, b, atol=1e-6)


def test_dropping_the_interval_bias_is_unsound():
    net = random_net((6, 12, 12, 3), seed=2)
    lo, hi = input_box(np.full(6, 0.5), range(6), 0.4)
    P = lo + (hi - lo) * np.random.default_rng(0).random((5000, 6))
    Y = net.forward(P)
    dropped = reduce_network(net, lo, hi, 0.3, interval_bias=False)
    low, up = crown_bounds(dropped, lo, hi)
    assert np.any(Y < low - 1e-6) or np.any(Y > up + 1e-6)


def test_rates_one_is_standard_and_ibp_explanations_equal_at_every_rate(digits_net):
    net, Xte = digits_net
    for x in Xte[:3]:
        std = minimal_explanation(net, x, 0.1)
        one = minimal_explanation(net, x, 0.1, method="abstract_refine", rates=(1.0,))
        np.testing.assert_array_equal(std.fixed, one.fixed)
        assert std.n_queries == one.n_queries == 64 and std.work == one.work
        ibp_std = minimal_explanation(net, x, 0.1, verifier="ibp")
        ibp_ar = minimal_explanation(net, x, 0.1, method="abstract_refine", verifier="ibp")
        np.testing.assert_array_equal(ibp_std.fixed, ibp_ar.fixed)


def test_explanations_are_sufficient_and_not_falsified(digits_net):
    net, Xte = digits_net
    x = Xte[0]
    for method in ("standard", "abstract_refine"):
        e = minimal_explanation(net, x, 0.1, method=method, counterexample="pgd")
        assert is_sufficient(net, x, e.freed, 0.1)
        assert falsify(net, x, e.freed, 0.1, n_random=2000) is None
        assert np.all(np.isnan(e.level[e.fixed])) and np.all(e.level[e.freed] > 0)
        assert sum(e.queries_per_rate.values()) == e.n_queries
        assert set(e.fixed) | set(e.freed) == set(range(64))


def test_falsify_finds_a_flip_when_everything_is_free(digits_net):
    net, Xte = digits_net
    x = Xte[0]
    cex = falsify(net, x, list(range(64)), 0.5)
    assert cex is not None and np.argmax(net.forward(cex)) != np.argmax(net.forward(x))
    assert np.all(np.abs(cex - x) <= 0.5 + 1e-12)


def test_sensitivity_is_the_exact_jacobian():
    net = random_net((5, 7, 3))
    x = np.random.default_rng(0).random(5)
    h = 1e-6
    J = np.stack([(net.forward(x + h * e) - net.forward(x - h * e)) / (2 * h) for e in np.eye(5)])
    np.testing.assert_allclose(sensitivity(net, x, of="logits"), np.abs(J).mean(1), atol=1e-6)
    # the default is CORA's order: mean over the rows of the logit-difference Jacobian
    t = int(np.argmax(net.forward(x)))
    D = J - J[:, [t]]
    np.testing.assert_allclose(sensitivity(net, x), np.abs(D).mean(1), atol=1e-6)
    D0 = np.abs(J - J[:, [0]]).mean(1)
    np.testing.assert_allclose(sensitivity(net, x, target=0), D0, atol=1e-6)


def test_sensitivity_orders_feed_the_search():
    net = random_net((5, 7, 3))
    x = np.random.default_rng(1).random(5)
    for order, of in (("sensitivity", "difference"), ("sensitivity_logits", "logits")):
        e = minimal_explanation(net, x, 0.05, order=order)
        want = np.argsort(sensitivity(net, x, of=of), kind="stable")
        np.testing.assert_array_equal(e.order, want)


def test_margin_net_outputs_logit_differences():
    net = random_net((5, 7, 4))
    x = np.random.default_rng(0).random(5)
    f = net.forward(x)
    np.testing.assert_allclose(margin_net(net, 2).forward(x), f[2] - np.delete(f, 2))


def test_planted_noise_features_are_freed():
    X, y = planted_data(3000, seed=0)
    net = train_mlp(X, y, hidden=(32, 32), epochs=20, seed=0)
    assert (net.forward(X).argmax(1) == y).mean() > 0.9
    for x in X[:5]:
        e = minimal_explanation(net, x, 0.2)
        assert set(e.fixed.tolist()) <= {0, 1, 2, 3}
    assert any(minimal_explanation(net, x, 0.2).fixed.size for x in X[:5])


def test_train_mlp_is_seeded():
    X, y = planted_data(200, seed=0)
    a = train_mlp(X, y, hidden=(8,), epochs=2, seed=1)
    b = train_mlp(X, y, hidden=(8,), epochs=2, seed=1)
    assert all(np.array_equal(u, v) for u, v in zip(a.Ws, b.Ws, strict=False))
