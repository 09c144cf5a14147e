"""Attacking PyG's TGN memory (``torch_geometric.nn.models.tgn.TGNMemory``) with this package.

PyG's ``TGNMemory`` with an ``IdentityMessage`` updates a node's memory by
s' = GRU(m, s), m = [s_src ‖ s_dst ‖ e ‖ cos(w·Δt + b)] (``memory.gru``, ``memory.time_enc``);
TGN-lite's message puts the time encoding before e. :func:`tgnlite_from_pyg` copies the GRU
(with its input columns permuted) and the time encoder into a :class:`TGNLite`, so that
:func:`update_drift`, :func:`find_frozen_state`, :func:`craft_injection` and
:func:`apply_injection` run on PyG's updater unchanged; :func:`pyg_state` and
:func:`write_pyg_state` move the memories in and out. The copy's decoder is untouched (random):
the attack uses only the updater. PyG's timestamps are integers, so craft with an integer
``dt`` (e.g. ``dt=1.0``) from an integer ``t_attack``.
"""

from __future__ import annotations

from types import SimpleNamespace

import torch

from icml25.common.checks import check_instance
from icml25.memfreezing.model import TGNLite, _check_state

__all__ = ["pyg_state", "tgnlite_from_pyg", "write_pyg_state"]


def _check_memory(memory):
    from torch_geometric.nn.models.tgn import IdentityMessage, TGNMemory

    memory = check_instance("memory", memory, TGNMemory)
    if not isinstance(memory.msg_s_module, IdentityMessage):
        raise ValueError(
            "memory must use an IdentityMessage (the message TGN-lite reproduces), got "
            f"{type(memory.msg_s_module).__name__}"
        )
    return memory


def tgnlite_from_pyg(memory) -> TGNLite:
    """A :class:`TGNLite` whose ``memory_updater`` and time encoder equal ``memory``'s.

    PyG's GRU input is [s_src (d) ‖ s_dst (d) ‖ e (edge_dim) ‖ φ (time_dim)]; TGN-lite's is
    [s_self ‖ s_other ‖ φ ‖ e], so the columns of ``weight_ih`` are permuted; every other
    parameter is copied as is. Later changes to ``memory`` are not seen by the copy.
    """
    memory = _check_memory(memory)
    d, e_dim, t_dim = memory.memory_dim, memory.raw_msg_dim, memory.time_dim
    lite = TGNLite(memory.num_nodes, mem_dim=d, edge_dim=e_dim, time_dim=t_dim)
    src, dst = memory.gru, lite.memory_updater
    w = src.weight_ih.detach()
    with torch.no_grad():
        dst.weight_ih.copy_(
            torch.cat([w[:, : 2 * d], w[:, 2 * d + e_dim :], w[:, 2 * d : 2 * d + e_dim]], 1)
        )
        dst.weight_hh.copy_(src.weight_hh)
        dst.bias_ih.copy_(src.bias_ih)
        dst.bias_hh.copy_(src.bias_hh)
        lite.time_enc.weight.copy_(memory.time_enc.lin.weight)
        lite.time_enc.bias.copy_(memory.time_enc.lin.bias)
    return lite.eval()


def pyg_state(memory) -> tuple[torch.Tensor, torch.Tensor]:
    """(mem, last) of ``memory``: CPU float32 copies of its memories (N, d) and last-update
    times (N,), in the form the package's attack functions take."""
    memory = _check_memory(memory)
    mem = memory.memory.detach().float().cpu().clone()
    return mem, memory.last_update.detach().float().cpu().clone()


@torch.no_grad()
def write_pyg_state(memory, mem, last, nodes=None) -> None:
    """Write ``mem``/``last`` (e.g. from :func:`apply_injection`) into ``memory`` in place, for
    ``nodes`` (a 1-D index tensor; all nodes if None). Times are rounded to PyG's integers."""
    memory = _check_memory(memory)
    shape = SimpleNamespace(n_nodes=memory.num_nodes, mem_dim=memory.memory_dim)
    mem, last = _check_state(shape, mem, last)
    if nodes is None:
        nodes = torch.arange(memory.num_nodes)
    else:
        from icml25.common.checks import check_index_array

        nodes = torch.from_numpy(
            check_index_array(
                "nodes",
                nodes.numpy() if isinstance(nodes, torch.Tensor) else nodes,
                memory.num_nodes,
                ndim=1,
                high_name="num_nodes",
            )
        )
    dev = memory.memory.device
    memory.memory[nodes.to(dev)] = mem[nodes].to(dev, memory.memory.dtype)
    memory.last_update[nodes.to(dev)] = torch.round(last[nodes]).to(dev, memory.last_update.dtype)
