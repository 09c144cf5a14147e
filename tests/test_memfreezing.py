"""Unit tests of icml25.memfreezing: the brief's known answers and the model's basic contracts."""

import numpy as np
import pytest
import torch

from icml25.memfreezing import (
    Injection,
    StaticLinkModel,
    TGNLite,
    apply_injection,
    cos_trace,
    craft_injection,
    evaluate_after_attack,
    find_frozen_state,
    half_life,
    link_metrics,
    make_temporal_sbm,
    random_injection,
    replay,
    shift_update_gate,
    train_tgn,
    update_drift,
)

torch.set_num_threads(1)


@pytest.fixture(scope="module")
def trained():
    stream = make_temporal_sbm(seed=0)
    model = TGNLite(stream.n_nodes, seed=0)
    train_tgn(model, stream, epochs=3, seed=0)
    n_train = int(0.6 * stream.n_events)
    mem, last = replay(model, stream, 0, n_train, *model.initial_state())
    return stream, model, n_train, mem, last


def test_stream_contract():
    s = make_temporal_sbm(n_nodes=200, n_comm=4, n_events=6000, p_in=0.9, switch_frac=0.2, seed=3)
    assert s.n_events == 6000 and s.switch_at == 3000 and s.n_nodes == 200
    assert np.all(np.diff(s.t) >= 0)
    assert np.all(s.src != s.dst)
    assert int((s.comm != s.comm_after).sum()) == 40
    before = slice(0, s.switch_at)
    after = slice(s.switch_at, None)
    inside_before = np.mean(s.comm[s.src[before]] == s.comm[s.dst[before]])
    inside_after = np.mean(s.comm_after[s.src[after]] == s.comm_after[s.dst[after]])
    assert abs(inside_before - 0.9) < 0.03 and abs(inside_after - 0.9) < 0.03
    again = make_temporal_sbm(n_nodes=200, n_comm=4, n_events=6000, seed=3)
    assert np.array_equal(again.dst, s.dst)


def test_update_last_message_wins_and_new_tensors():
    model = TGNLite(5, mem_dim=4, edge_dim=2, seed=0)
    mem = torch.randn(5, 4)
    last = torch.zeros(5)
    src, dst = torch.tensor([0, 0]), torch.tensor([1, 2])
    t = torch.tensor([1.0, 2.0])
    e = torch.randn(2, 2)
    new, new_last = model.update(mem, last, src, dst, t, e)
    assert new is not mem and torch.equal(last, torch.zeros(5))
    m = model.message(mem[[0]], mem[[2]], torch.tensor([2.0]), e[[1]])
    assert torch.allclose(new[0], model.memory_updater(m, mem[[0]])[0])
    assert torch.equal(new[3], mem[3]) and new_last[0] == 2.0 and new_last[1] == 1.0


def _zero(model):
    for p in model.memory_updater.parameters():
        torch.nn.init.zeros_(p)


def test_saturated_gate_has_no_drift():
    model = TGNLite(10, mem_dim=8, edge_dim=3, seed=0)
    d = model.mem_dim
    with torch.no_grad():
        model.memory_updater.weight_hh[d : 2 * d].zero_()
        model.memory_updater.bias_ih[d : 2 * d] = 20.0
    bank = torch.rand(30, d) * 2 - 1
    edges = torch.randn(20, 3)
    assert float(update_drift(model, bank, bank, edges).detach().max()) < 1e-6
    s = find_frozen_state(model, bank, edges, steps=20)
    assert float(update_drift(model, s[None], bank, edges)) < 1e-6


def test_zero_weights_drift_and_frozen_state_are_exact():
    model = TGNLite(10, mem_dim=6, edge_dim=3, seed=0)
    d = model.mem_dim
    c = torch.linspace(-0.8, 0.8, d)
    _zero(model)
    with torch.no_grad():
        model.memory_updater.bias_ih[d : 2 * d] = -20.0
        model.memory_updater.bias_ih[2 * d :] = c
    bank = torch.rand(30, d) * 2 - 1
    edges = torch.randn(20, 3)
    states = torch.rand(7, d) * 2 - 1
    D = update_drift(model, states, bank, edges, frozen_neighbor_frac=0.3)
    assert torch.allclose(D, ((torch.tanh(c) - states) ** 2).sum(1), atol=1e-6)
    s = find_frozen_state(model, bank, edges, steps=600)
    assert torch.allclose(s, torch.tanh(c), atol=1e-3)


def test_fixed_point_with_frozen_neighbours():
    model = TGNLite(10, mem_dim=6, edge_dim=3, seed=1)
    d = model.mem_dim
    with torch.no_grad():
        model.memory_updater.bias_ih[d : 2 * d] = -20.0
    bank = torch.rand(30, d) * 2 - 1
    edge = torch.randn(1, 3)
    s = find_frozen_state(model, bank, edge, frozen_neighbor_frac=1.0, steps=1500, dt_max=1e-6)
    m = model.message(s[None], s[None], torch.zeros(1), edge)
    with torch.no_grad():
        assert float((model.memory_updater(m, s[None])[0] - s).norm()) < 1e-3


def test_craft_reaches_a_reachable_target_and_apply_reproduces_loss():
    model = TGNLite(12, mem_dim=6, edge_dim=3, seed=2)
    mem = torch.rand(12, 6) * 2 - 1
    last = torch.rand(12)
    victims = np.array([1, 4, 7])
    g = torch.Generator().manual_seed(0)
    truth = Injection(
        torch.from_numpy(victims),
        torch.randn(3, 3, 3, generator=g),
        torch.tanh(torch.randn(3, 3, 6, generator=g)),
        2.0 + 0.1 * torch.arange(1, 4, dtype=torch.float32),
        float("nan"),
    )
    target_mem, _ = apply_injection(model, mem, last, truth)
    target = target_mem[torch.from_numpy(victims)]
    inj = craft_injection(model, mem, last, victims, target, 2.0, k_events=3, steps=1500, lr=0.05)
    assert inj.loss < 1e-6
    new, new_last = apply_injection(model, mem, last, inj)
    got = float(((new[torch.from_numpy(victims)] - target) ** 2).sum(1).mean())
    assert abs(got - inj.loss) < 1e-9
    others = np.setdiff1d(np.arange(12), victims)
    assert torch.equal(new[others], mem[others]) and torch.equal(new_last[others], last[others])
    assert float(inj.edge_feat.abs().max()) <= 4.0


def test_zero_event_injection_is_a_noop(trained):
    stream, model, n_train, mem, last = trained
    vic = torch.tensor([0, 1])
    empty = Injection(vic, torch.zeros(2, 0, 8), torch.zeros(2, 0, 32), torch.zeros(0), 0.0)
    m2, l2 = apply_injection(model, mem, last, empty)
    a = evaluate_after_attack(model, stream, n_train, mem, last, vic, n_windows=2)
    b = evaluate_after_attack(model, stream, n_train, m2, l2, vic, n_windows=2)
    assert a.equals(b)


def test_model_competence_and_memory_matters(trained):
    stream, model, n_train, mem, last = trained
    clean, _, _ = link_metrics(model, stream, n_train, stream.n_events, mem, last)
    assert clean["auc"] >= 0.75
    zero, _ = model.initial_state()
    # the same decoder on memories that never move (zero) gives every pair the same score: a
    # constant-input sanity check, true by construction; the real memory-matters test is the
    # static-embedding comparison below
    scores = model.score(zero, stream.src[n_train:], stream.dst[n_train:])
    assert float(scores.std()) < 1e-6
    static = StaticLinkModel(stream.n_nodes, seed=0)
    train_tgn(static, stream, epochs=2, lr=1e-2, seed=0)
    movers = np.flatnonzero(stream.comm != stream.comm_after)
    s_m, _, _ = link_metrics(
        static, stream, n_train, stream.n_events, *static.initial_state(), nodes=movers
    )
    t_m, _, _ = link_metrics(model, stream, n_train, stream.n_events, mem, last, nodes=movers)
    assert t_m["auc"] > s_m["auc"] + 0.1


def test_random_injection_uses_real_edges_and_shift_gate(trained):
    stream, model, n_train, mem, last = trained
    inj = random_injection(model, mem, last, [3, 5], stream, float(stream.t[n_train - 1]))
    rows = stream.edge_feat[:n_train]
    first = inj.edge_feat[0, 0].numpy()
    assert np.any(np.all(np.isclose(rows, first), axis=1)) and np.isnan(inj.loss)
    shifted = shift_update_gate(model, 2.0)
    d = model.mem_dim
    diff = shifted.memory_updater.bias_ih - model.memory_updater.bias_ih
    assert torch.allclose(diff[d : 2 * d], torch.full((d,), 2.0))
    assert torch.all(diff[:d] == 0) and torch.all(diff[2 * d :] == 0)


def test_evaluate_columns_and_half_life(trained):
    stream, model, n_train, mem, last = trained
    df = evaluate_after_attack(
        model, stream, n_train, mem, last, [0, 1, 2], n_windows=3, reference_state=mem[0]
    )
    assert list(df.window) == [0, 1, 2, 3]
    assert {"auc", "ap", "drift", "cos", "frozen", "cos_nbr", "frozen_nbr", "auc_nbr"} <= set(df)
    assert df.drift.iloc[0] == 0.0 and np.isnan(df.auc.iloc[0])
    assert half_life([1.0, 0.5, 0.0]) == pytest.approx(1.0)
    assert half_life([1.0, 0.75, 0.25]) == pytest.approx(1.5)
    assert half_life([1.0, 0.9, 0.8]) == 2.0 and half_life([-1.0, 0.0]) == 0.0


def test_cos_trace_agrees_with_the_evaluation_at_window_ends(trained):
    """The fine trace replays exactly as evaluate_after_attack does: at every window end its
    cosine equals the window's (16,000 test events, windows of 2,000, batches of 200)."""
    stream, model, n_train, mem, last = trained
    ref = mem[5].clone()
    vic = [0, 1, 2]
    df = evaluate_after_attack(model, stream, n_train, mem, last, vic, 8, reference_state=ref)
    tr = cos_trace(model, stream, n_train, mem, last, vic, ref)
    assert tr.shape == (1 + (stream.n_events - n_train) // 200,)
    np.testing.assert_allclose(tr[::10], df.cos.to_numpy(), atol=1e-6)
    short = cos_trace(model, stream, n_train, mem, last, vic, ref, end=n_train + 450, batch=100)
    assert short.shape == (6,) and short[0] == pytest.approx(tr[0])


def test_prepare_attack_is_the_notebooks_set_up():
    """prepare_attack = stream + train_tgn + replay to t_a + top-degree victims, step by step."""
    from icml25.memfreezing import choose_victims, prepare_attack

    setup = prepare_attack(seed=3, n_events=2000, mem_dim=8, n_nodes=60, epochs=1, n_victims=5)
    stream = make_temporal_sbm(n_nodes=60, n_events=2000, seed=3)
    model = TGNLite(60, mem_dim=8, seed=3)
    train_tgn(model, stream, train_frac=0.6, epochs=1, seed=3)
    mem, last = replay(model, stream, 0, 1200, *model.initial_state())
    assert setup.n_train == 1200 and setup.t_attack == float(stream.t[1199])
    assert torch.equal(setup.mem, mem) and torch.equal(setup.last, last)
    assert np.array_equal(setup.stream.dst, stream.dst)
    deg = stream.degree(1200)
    assert np.array_equal(setup.victims, np.argsort(-deg, kind="stable")[:5])
    assert deg[setup.victims].min() >= np.sort(deg)[-5]
    low = choose_victims(stream, 1200, 5, "least_active")
    assert deg[low].max() <= np.sort(deg)[4] and np.unique(low).size == 5
    assert setup.edge_bank.shape == (1200, stream.edge_dim)
    rnn = prepare_attack(
        seed=3, n_events=600, mem_dim=4, updater="rnn", n_nodes=20, epochs=1, n_victims=3
    )
    assert isinstance(rnn.model.memory_updater, torch.nn.RNNCell)
