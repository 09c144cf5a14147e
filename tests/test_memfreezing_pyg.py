"""PyG's TGNMemory attacked through the package's API (icml25.memfreezing.pyg), tiny stream."""

import numpy as np
import pytest
import torch

from icml25.memfreezing import (
    apply_injection,
    craft_injection,
    find_frozen_state,
    make_temporal_sbm,
    pyg_state,
    tgnlite_from_pyg,
    update_drift,
    write_pyg_state,
)

tgn = pytest.importorskip("torch_geometric.nn.models.tgn")
torch.set_num_threads(1)
N, D, EDGE, TIME, V, K = 20, 8, 4, 4, 3, 2


def _memory(extra: int = 0):
    torch.manual_seed(0)
    memory = tgn.TGNMemory(
        N + extra, EDGE, D, TIME, tgn.IdentityMessage(EDGE, D, TIME), tgn.LastAggregator()
    )
    memory.eval()
    memory.reset_state()
    stream = make_temporal_sbm(n_nodes=N, n_comm=2, n_events=200, edge_dim=EDGE, seed=0)
    with torch.no_grad():
        for a in range(0, 200, 20):
            b = a + 20
            memory.update_state(
                torch.from_numpy(stream.src[a:b]),
                torch.from_numpy(stream.dst[a:b]),
                torch.arange(a, b, dtype=torch.long),
                torch.from_numpy(stream.edge_feat[a:b]),
            )
    return memory, stream


def test_copy_updates_memories_as_pyg_does():
    memory, _ = _memory()
    lite = tgnlite_from_pyg(memory)
    mem, last = pyg_state(memory)
    src, dst = torch.tensor([0, 2, 5]), torch.tensor([1, 3, 7])
    t = torch.full((3,), 300, dtype=torch.long)
    e = torch.randn(3, EDGE, generator=torch.Generator().manual_seed(1))
    with torch.no_grad():
        new_mem, new_last = lite.update(mem, last, src, dst, t.float(), e)
        memory.update_state(src, dst, t, e)
    nodes = torch.cat([src, dst])
    assert torch.allclose(memory.memory[nodes], new_mem[nodes], atol=1e-5)
    assert torch.equal(memory.last_update[nodes].float(), new_last[nodes])
    untouched = torch.tensor([4, 6])
    assert torch.equal(memory.memory[untouched], mem[untouched])


def test_attack_on_pyg_memory_in_a_few_lines():
    """Frozen state and crafted events from the package, written back into PyG's memory; PyG's
    own update path, fed the same fake events (fake partners as spare nodes), agrees."""
    memory, stream = _memory(extra=V * K)
    victims = torch.tensor([0, 1, 2])
    # the attack, with the package's API
    lite = tgnlite_from_pyg(memory)
    mem, last = pyg_state(memory)
    bank, edges = mem[:N].clone(), torch.from_numpy(stream.edge_feat)
    s_star = find_frozen_state(lite, bank, edges, steps=60, n_samples=32, restarts=2)
    t_a = float(memory.last_update.max())
    inj = craft_injection(lite, mem, last, victims, s_star, t_a, K, dt=1.0, steps=150)
    new_mem, new_last = apply_injection(lite, mem, last, inj)
    pre = float(((mem[victims] - s_star) ** 2).sum(1).mean())
    assert inj.loss < 0.5 * pre
    with torch.no_grad():
        d_star = update_drift(lite, s_star[None], bank, edges, 512, 0.5, seed=3)
        d_mem = update_drift(lite, bank, bank, edges, 64, 0.5, seed=3)
    assert float(d_star[0]) < float(d_mem.median())
    # PyG's own update path with the same fake events
    fake_ids = N + torch.arange(V * K).reshape(V, K)
    with torch.no_grad():
        memory.memory[fake_ids.reshape(-1)] = inj.fake_memory.reshape(-1, D)
        for k in range(K):
            memory.update_state(
                victims, fake_ids[:, k], inj.times[k].round().long().expand(V), inj.edge_feat[:, k]
            )
    assert torch.allclose(memory.memory[victims], new_mem[victims], atol=1e-4)
    # write_pyg_state writes the package's result back (here: restores the same values)
    memory.memory[victims] = 0.0
    write_pyg_state(memory, new_mem, new_last, victims)
    assert torch.allclose(memory.memory[victims], new_mem[victims])
    assert np.array_equal(memory.last_update[victims].numpy(), np.full(V, int(t_a) + K))


# ---------------------------------------------------------------- the trained PyG TGN (`large`)


@pytest.fixture(scope="module")
def pyg_scene():
    from icml25.memfreezing import prepare_attack

    return prepare_attack(
        0, n_events=1000, mem_dim=8, n_nodes=30, epochs=2, n_victims=4, backbone="pyg", device="cpu"
    )


def test_pyg_scene_is_trained_on_integer_ticks(pyg_scene):
    from icml25.memfreezing import PygTGN, TGNLite

    S = pyg_scene
    assert isinstance(S.model, PygTGN) and isinstance(S.attacker, TGNLite)
    assert S.model.device == torch.device("cpu") and S.time_unit == 1000.0
    assert np.array_equal(S.stream.t, np.floor(S.stream.t)) and np.all(np.diff(S.stream.t) >= 0)
    assert S.t_attack == float(S.stream.t[S.n_train - 1])
    loss = S.train_log["loss"]
    assert len(loss) == 2 and np.all(np.isfinite(loss)) and loss[-1] < np.log(4.0)
    # the attacker is PyG's updater: one update through TGN-lite equals PyG's
    assert torch.equal(S.attacker.memory_updater.weight_hh, S.model.memory.gru.weight_hh)
    assert float(S.last.max()) <= S.t_attack and float(S.mem.abs().max()) > 0


def test_pyg_tgn_is_attacked_and_evaluated_like_tgnlite(pyg_scene):
    from icml25.memfreezing import evaluate_after_attack, greedy_injection, random_injection

    S = pyg_scene
    u = S.time_unit
    s_star = find_frozen_state(
        S.attacker, S.mem, S.edge_bank, steps=60, n_samples=32, restarts=2, dt_max=5 * u
    )
    inj = craft_injection(
        S.attacker, S.mem, S.last, S.victims, s_star, S.t_attack, 4, dt=0.1 * u, steps=150
    )
    pre = float(((S.mem[S.victims] - s_star) ** 2).sum(1).mean())
    assert inj.loss < 0.1 * pre
    attacked = apply_injection(S.attacker, S.mem, S.last, inj)
    kw = {"n_windows": 3, "reference_state": s_star, "seed": 0}
    df = evaluate_after_attack(S.model, S.stream, S.n_train, *attacked, S.victims, **kw)
    clean = evaluate_after_attack(S.model, S.stream, S.n_train, S.mem, S.last, S.victims, **kw)
    again = evaluate_after_attack(S.model, S.stream, S.n_train, S.mem, S.last, S.victims, **kw)
    lite = evaluate_after_attack(
        S.attacker, S.stream, S.n_train, S.mem, S.last, S.victims, n_windows=3
    )
    assert list(df.columns) == list(lite.columns) and len(df) == 4
    assert df.frozen.iloc[0] == 1.0 and df.cos.iloc[0] > 0.999  # PyG's memory holds s*
    assert clean.cos.iloc[0] < 0.999
    assert clean.equals(again)  # memory and neighbours are rebuilt: deterministic
    assert np.all(clean.auc.iloc[1:].between(0.0, 1.0)) and np.all(clean.n.iloc[1:] > 0)
    # the greedy baseline scores pairs through PyG's attention embedding and decoder
    kwg = {"dt": 0.1 * u, "n_partners": 3, "score_fn": S.score_fn}
    S.model.zero_grad(set_to_none=True)
    g1 = greedy_injection(
        S.attacker, S.mem, S.last, S.victims, S.stream, S.t_attack, 4, steps=1, **kwg
    )
    g = greedy_injection(
        S.attacker, S.mem, S.last, S.victims, S.stream, S.t_attack, 4, steps=40, **kwg
    )
    assert g.loss > g1.loss
    assert all(p.grad is None for p in S.model.parameters())
    r = random_injection(S.attacker, S.mem, S.last, S.victims, S.stream, S.t_attack, 4, dt=0.1 * u)
    assert np.isnan(r.loss)


def test_score_fn_is_differentiable_in_the_victims_memories(pyg_scene):
    S = pyg_scene
    vic = torch.from_numpy(S.victims)
    s = S.mem[vic].clone().requires_grad_(True)
    partners = torch.tensor([[5, 6], [7, 8], [9, 10], [11, 12]])
    logits = S.score_fn(s, vic, partners)
    assert logits.shape == (4, 2)
    logits.sum().backward()
    assert s.grad is not None and float(s.grad.abs().sum()) > 0


def test_pyg_replay_of_a_clean_window_matches_a_continuous_replay(pyg_scene):
    """Writing the memory at t_a and replaying on equals replaying from the start (t_a at a
    batch boundary: 600 of 1,000 events, batches of 200)."""
    from icml25.memfreezing import evaluate_after_attack, replay_pyg

    S = pyg_scene
    E = S.stream.n_events
    evaluate_after_attack(S.model, S.stream, S.n_train, S.mem, S.last, S.victims, n_windows=1)
    after = pyg_state(S.model.memory)
    full = replay_pyg(S.model, S.stream, E)
    assert torch.allclose(after[0], full[0], atol=1e-5) and torch.equal(after[1], full[1])
