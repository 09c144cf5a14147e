"""Bad-input suite of icml25.memfreezing (see badinput.py), and the package's own coverage check."""

import numpy as np
import pytest
import torch
from badinput import (
    Spec,
    bad_array,
    bad_choice,
    bad_index_array,
    bad_input_test,
    bad_int,
    bad_positive,
    bad_probability,
    bad_real,
    bad_seed,
    bad_tensor,
    good_input_test,
    not_a,
    not_none,
    valid_input_test,
)
from hypothesis import strategies as st

from icml25 import memfreezing as mf

tgn = pytest.importorskip("torch_geometric.nn.models.tgn")

torch.set_num_threads(1)
P = "icml25.memfreezing"
STREAM = mf.make_temporal_sbm(n_nodes=30, n_comm=3, n_events=600, edge_dim=4, seed=0)
E = STREAM.n_events
MODEL = mf.TGNLite(30, mem_dim=4, edge_dim=4, time_dim=2, seed=0)
RNN = mf.TGNLite(30, mem_dim=4, edge_dim=4, time_dim=2, updater="rnn", seed=0)
MEM, LAST = mf.replay(MODEL, STREAM, 0, 300, *MODEL.initial_state())
T_A = float(STREAM.t[299])
VIC = np.array([1, 2])
BANK = MEM[:20].clone()
EDGES = torch.from_numpy(STREAM.edge_feat[:50])
S_STAR = torch.zeros(4)
INJ = mf.random_injection(MODEL, MEM, LAST, VIC, STREAM, T_A, k_events=2)


class _OtherMessage(torch.nn.Module):
    """A message module that is not IdentityMessage (rejected by the PyG adapter)."""

    out_channels = 2 * 4 + 3 + 2

    def forward(self, z_src, z_dst, raw_msg, t_enc):
        return torch.cat([z_src, z_dst, raw_msg, t_enc], dim=-1)


torch.manual_seed(0)
PYG = tgn.TGNMemory(12, 3, 4, 2, tgn.IdentityMessage(3, 4, 2), tgn.LastAggregator())
PYG.reset_state()
PYG_BAD = not_a(MODEL, tgn.TGNMemory(12, 3, 4, 2, _OtherMessage(), tgn.LastAggregator()))

BAD_MODEL = not_a(RNN.decoder)
BAD_STREAM = not_a(STREAM.src)
STREAM_INT = mf.integer_times(STREAM)
PYG_TGN = mf.PygTGN(30, mem_dim=4, edge_dim=4, time_dim=2, emb_dim=4, n_neighbors=3, device="cpu")
MEM_P, LAST_P = mf.replay_pyg(PYG_TGN, STREAM_INT, 300)
BAD_DEVICE = st.sampled_from([3, "not-a-device", ["cpu"], 1.5])
BAD_PYG_MODEL = not_a(MODEL, PYG)
BAD_INT_STREAM = st.one_of(
    BAD_STREAM,
    st.just(STREAM),  # times not integer
    st.just(mf.integer_times(mf.make_temporal_sbm(n_nodes=12, n_events=50, edge_dim=4))),
    st.just(mf.integer_times(mf.make_temporal_sbm(n_nodes=30, n_events=50, edge_dim=3))),
)

BAD_PAIR_STREAM = st.one_of(
    BAD_STREAM,
    st.just(mf.make_temporal_sbm(n_nodes=12, n_events=50, edge_dim=4)),
    st.just(mf.make_temporal_sbm(n_nodes=30, n_events=600, edge_dim=3)),
)
BAD_MEM = bad_tensor(MEM)
BAD_LAST = bad_tensor(LAST)
BAD_VIC = st.one_of(bad_index_array(VIC, 30), st.just(np.array([1, 1])), st.just(torch.ones(2)))
BAD_FLAG = st.sampled_from([1, 0, "yes", None, np.bool_(True)])
STATE = {"model": MODEL, "mem": MEM, "last": LAST}
STATE_BAD = {"model": BAD_MODEL, "mem": BAD_MEM, "last": BAD_LAST}
ATTACK = {**STATE, "victims": VIC, "t_attack": T_A, "k_events": 2, "dt": 0.1}
ATTACK_BAD = {
    **STATE_BAD,
    "victims": BAD_VIC,
    "t_attack": bad_real(),
    "k_events": bad_int(1),
    "dt": bad_positive(),
}
OPT = {"steps": 3, "lr": 0.1, "clip": 4.0, "seed": 0, "learn_fake_memory": True}
OPT_BAD = {
    "steps": bad_int(1),
    "lr": bad_positive(),
    "clip": bad_positive(),
    "seed": bad_seed(),
    "learn_fake_memory": BAD_FLAG,
}


def range_bad(start: int, end: int) -> dict:
    """Bad start/end for a valid call over [start, end): out of range, or start >= end."""
    return {
        "start": st.one_of(bad_int(0, E - 1), st.just(end)),
        "end": st.one_of(bad_int(1, E), st.just(start)),
    }


DRIFT = {"neighbor_bank": BANK, "edge_bank": EDGES, "frozen_neighbor_frac": 0.5, "seed": 0}
DRIFT_BAD = {
    "neighbor_bank": st.one_of(bad_tensor(BANK), st.just(torch.zeros(5, 3))),
    "edge_bank": st.one_of(bad_tensor(EDGES), st.just(torch.zeros(5, 3))),
    "frozen_neighbor_frac": bad_probability(),
    "seed": bad_seed(),
    "n_samples": bad_int(1),
    "dt_max": bad_positive(),
}

ALL_SPECS: dict[str, Spec] = {
    f"{P}.make_temporal_sbm": Spec(
        mf.make_temporal_sbm,
        {"n_nodes": 30, "n_comm": 3, "n_events": 300, "edge_dim": 4, "p_in": 0.9},
        {
            "n_nodes": bad_int(2),
            "n_comm": st.one_of(bad_int(2), st.just(31)),
            "n_events": bad_int(2),
            "edge_dim": bad_int(1),
            "p_in": bad_probability(),
            "switch_frac": bad_probability(),
            "seed": bad_seed(),
        },
        finite=True,
    ),
    f"{P}.TGNLite": Spec(
        mf.TGNLite,
        {"n_nodes": 10, "mem_dim": 4, "edge_dim": 3, "time_dim": 2},
        {
            "n_nodes": bad_int(2),
            "mem_dim": bad_int(1),
            "edge_dim": bad_int(1),
            "time_dim": bad_int(1),
            "updater": bad_choice(("gru", "rnn")),
            "seed": bad_seed(),
        },
    ),
    f"{P}.StaticLinkModel": Spec(
        mf.StaticLinkModel,
        {"n_nodes": 10, "dim": 4},
        {"n_nodes": bad_int(2), "dim": bad_int(1), "seed": bad_seed()},
    ),
    f"{P}.train_tgn": Spec(
        mf.train_tgn,
        lambda: {
            "model": mf.TGNLite(30, mem_dim=4, edge_dim=4, time_dim=2),
            "stream": STREAM,
            "epochs": 1,
            "batch": 200,
        },
        {
            "model": BAD_MODEL,
            "stream": BAD_PAIR_STREAM,
            "train_frac": bad_probability(low_open=True),
            "epochs": bad_int(1),
            "batch": bad_int(1),
            "lr": bad_positive(),
            "seed": bad_seed(),
        },
        finite=True,
    ),
    f"{P}.replay": Spec(
        mf.replay,
        {**STATE, "stream": STREAM, "start": 0, "end": 100},
        {**STATE_BAD, "stream": BAD_PAIR_STREAM, **range_bad(0, 100), "batch": bad_int(1)},
        finite=True,
    ),
    f"{P}.link_metrics": Spec(
        mf.link_metrics,
        {**STATE, "stream": STREAM, "start": 300, "end": 400, "nodes": VIC},
        {
            **STATE_BAD,
            "stream": BAD_PAIR_STREAM,
            **range_bad(300, 400),
            "nodes": not_none(bad_index_array(VIC, 30)),
            "seed": bad_seed(),
        },
    ),
    f"{P}.update_gate_values": Spec(
        mf.update_gate_values,
        {**STATE, "stream": STREAM, "start": 300, "end": 400},
        {**STATE_BAD, "model": not_a(RNN), "stream": BAD_STREAM, **range_bad(300, 400)},
        finite=True,
    ),
    f"{P}.update_drift": Spec(
        mf.update_drift,
        {"model": MODEL, "states": MEM[:5], "n_samples": 8, **DRIFT},
        {"model": BAD_MODEL, "states": bad_tensor(MEM[:5]), **DRIFT_BAD},
        finite=True,
    ),
    f"{P}.find_frozen_state": Spec(
        mf.find_frozen_state,
        {"model": MODEL, "steps": 2, "n_samples": 8, "restarts": 2, **DRIFT},
        {
            "model": BAD_MODEL,
            **DRIFT_BAD,
            "steps": bad_int(1),
            "lr": bad_positive(),
            "restarts": bad_int(1),
        },
        finite=True,
    ),
    f"{P}.craft_injection": Spec(
        mf.craft_injection,
        {**ATTACK, "target": S_STAR, **OPT},
        {
            **ATTACK_BAD,
            "target": st.one_of(bad_tensor(S_STAR), st.just(torch.zeros(3, 4))),
            **OPT_BAD,
        },
        finite=True,
    ),
    f"{P}.apply_injection": Spec(
        mf.apply_injection,
        {**STATE, "injection": INJ},
        {**STATE_BAD, "injection": not_a(INJ.edge_feat)},
        finite=True,
    ),
    f"{P}.random_injection": Spec(
        mf.random_injection,
        {**ATTACK, "stream": STREAM},
        {**ATTACK_BAD, "stream": BAD_STREAM, "seed": bad_seed()},
    ),
    f"{P}.greedy_injection": Spec(
        mf.greedy_injection,
        {**ATTACK, "stream": STREAM, **OPT, "n_partners": 3},
        {
            **ATTACK_BAD,
            "stream": BAD_STREAM,
            **OPT_BAD,
            "n_partners": bad_int(1),
            "score_fn": not_a(none=False),
        },
        finite=True,
    ),
    f"{P}.shift_update_gate": Spec(
        mf.shift_update_gate,
        {"model": MODEL, "beta": 1.0},
        {"model": not_a(RNN), "beta": bad_real()},
    ),
    f"{P}.evaluate_after_attack": Spec(
        mf.evaluate_after_attack,
        {
            **STATE,
            "stream": STREAM,
            "start": 300,
            "victims": VIC,
            "n_windows": 2,
            "reference_state": S_STAR + 0.1,
        },
        {
            **STATE_BAD,
            "stream": BAD_STREAM,
            "start": bad_int(0, E - 1),
            "victims": BAD_VIC,
            "n_windows": st.one_of(bad_int(1), st.just(10**6)),
            "reference_state": not_none(bad_tensor(S_STAR)),
            "frozen_cos": bad_real(-1.0, 1.0),
            "seed": bad_seed(),
        },
    ),
    f"{P}.cos_trace": Spec(
        mf.cos_trace,
        {**STATE, "stream": STREAM, "start": 300, "victims": VIC, "reference_state": S_STAR + 0.1},
        {
            **STATE_BAD,
            "stream": BAD_STREAM,
            "start": bad_int(0, E - 1),
            "end": not_none(st.one_of(bad_int(1, E), st.just(300))),
            "victims": BAD_VIC,
            "reference_state": st.one_of(bad_tensor(S_STAR), st.just(torch.zeros(3))),
            "batch": bad_int(1),
        },
        finite=True,
    ),
    f"{P}.choose_victims": Spec(
        mf.choose_victims,
        {"stream": STREAM, "end": 300, "n_victims": 3},
        {
            "stream": BAD_STREAM,
            "end": bad_int(1, E),
            "n_victims": bad_int(1, 30),
            "choice": bad_choice(mf.VICTIM_CHOICES),
        },
    ),
    f"{P}.prepare_attack": Spec(
        mf.prepare_attack,
        {"n_events": 300, "mem_dim": 4, "n_nodes": 20, "epochs": 1, "n_victims": 3},
        {
            "seed": bad_seed(),
            "n_events": bad_int(2),
            "mem_dim": bad_int(1),
            "updater": bad_choice(("gru", "rnn")),
            "n_nodes": bad_int(4),
            "train_frac": bad_probability(low_open=True, high_open=True),
            "epochs": bad_int(1),
            "n_victims": bad_int(1, 400),
            "victim_choice": bad_choice(mf.VICTIM_CHOICES),
            "backbone": bad_choice(mf.BACKBONES),
            "device": BAD_DEVICE,
        },
    ),
    f"{P}.PygTGN": Spec(
        mf.PygTGN,
        {"n_nodes": 10, "mem_dim": 4, "edge_dim": 3, "time_dim": 2, "emb_dim": 4, "device": "cpu"},
        {
            "n_nodes": bad_int(2),
            "mem_dim": bad_int(1),
            "edge_dim": bad_int(1),
            "time_dim": bad_int(1),
            "emb_dim": st.one_of(bad_int(2), st.just(5)),
            "n_neighbors": bad_int(1),
            "seed": bad_seed(),
            "device": BAD_DEVICE,
        },
    ),
    f"{P}.integer_times": Spec(
        mf.integer_times,
        {"stream": STREAM, "unit": 100.0},
        {"stream": BAD_STREAM, "unit": st.one_of(bad_positive(), st.just(1e9))},
    ),
    f"{P}.train_pyg_tgn": Spec(
        mf.train_pyg_tgn,
        lambda: {
            "model": mf.PygTGN(30, 4, 4, 2, 4, n_neighbors=3, device="cpu"),
            "stream": STREAM_INT,
            "epochs": 1,
        },
        {
            "model": BAD_PYG_MODEL,
            "stream": BAD_INT_STREAM,
            "train_frac": bad_probability(low_open=True),
            "epochs": bad_int(1),
            "batch": bad_int(1),
            "lr": bad_positive(),
            "seed": bad_seed(),
        },
        finite=True,
    ),
    f"{P}.replay_pyg": Spec(
        mf.replay_pyg,
        {"model": PYG_TGN, "stream": STREAM_INT, "end": 300},
        {
            "model": BAD_PYG_MODEL,
            "stream": BAD_INT_STREAM,
            "end": bad_int(1, E),
            "batch": bad_int(1),
        },
        finite=True,
    ),
    f"{P}.pyg_link_scorer": Spec(
        mf.pyg_link_scorer,
        {"model": PYG_TGN, "stream": STREAM_INT, "end": 300, "mem": MEM_P, "last": LAST_P},
        {
            "model": BAD_PYG_MODEL,
            "stream": BAD_INT_STREAM,
            "end": bad_int(1, E),
            "mem": BAD_MEM,
            "last": BAD_LAST,
        },
    ),
    f"{P}.tgnlite_from_pyg": Spec(mf.tgnlite_from_pyg, {"memory": PYG}, {"memory": PYG_BAD}),
    f"{P}.pyg_state": Spec(mf.pyg_state, {"memory": PYG}, {"memory": PYG_BAD}),
    f"{P}.write_pyg_state": Spec(
        mf.write_pyg_state,
        lambda: {"memory": PYG, "mem": torch.zeros(12, 4), "last": torch.zeros(12)},
        {
            "memory": PYG_BAD,
            "mem": st.one_of(bad_tensor(torch.zeros(12, 4)), st.just(torch.zeros(11, 4))),
            "last": st.one_of(bad_tensor(torch.zeros(12)), st.just(torch.zeros(3))),
            "nodes": not_none(bad_index_array(np.array([0, 1]), 12)),
        },
    ),
    f"{P}.half_life": Spec(
        mf.half_life,
        {"excess": np.array([1.0, 0.6, 0.2])},
        {"excess": st.one_of(bad_array(np.array([1.0, 0.5])), st.just(np.array([1.0])))},
        finite=True,
    ),
}
ALL_CONSTANTS: set[str] = {f"{P}.VICTIM_CHOICES", f"{P}.BACKBONES"}
ALL_RESULTS = {
    f"{P}.TemporalStream": mf.TemporalStream,
    f"{P}.Injection": mf.Injection,
    f"{P}.AttackSetup": mf.AttackSetup,
}
SPECS = ALL_SPECS
CONSTANTS = ALL_CONSTANTS
RESULTS = ALL_RESULTS

test_bad_input_is_rejected = bad_input_test(ALL_SPECS)
test_valid_input_runs = valid_input_test(ALL_SPECS)
test_good_input_is_finite = good_input_test(ALL_SPECS)


def test_every_public_name_of_memfreezing_is_covered():
    """Every public name has a spec, or is a result record, and every argument of every spec
    has bad values or is free."""
    import inspect

    covered = set(ALL_SPECS) | ALL_CONSTANTS | set(ALL_RESULTS)
    public = {f"{P}.{name}" for name in mf.__all__}
    assert public <= covered, sorted(public - covered)
    for key, spec in ALL_SPECS.items():
        params = set(inspect.signature(spec.fn).parameters)
        assert params == set(spec.bad) | set(spec.free), key
