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
