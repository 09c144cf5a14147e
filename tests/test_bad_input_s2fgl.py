"""Bad-input suite of icml25.s2fgl (see badinput.py), and the package's own coverage check."""

import dataclasses

import networkx as nx
import numpy as np
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
    valid_input_test,
)
from hypothesis import strategies as st

from icml25 import s2fgl

P = "icml25.s2fgl"
torch.set_num_threads(1)
GRAPH = s2fgl.make_csbm_communities(n_nodes=120, n_features=8, n_communities=4, seed=0)
N_COMMS = len(nx.community.louvain_communities(nx.Graph(GRAPH.edges.tolist()), seed=0))
CLIENTS = s2fgl.louvain_partition(GRAPH, n_clients=2, seed=0)
KARATE = nx.to_numpy_array(nx.karate_club_graph(), weight=None)
MASK = np.arange(34) < 6
Y34 = np.arange(34) % 3
H = torch.randn(24, 6)
H2 = torch.randn(24, 6)
CB = torch.randn(3, 2, 6)
PROTO = np.random.default_rng(0).normal(size=(3, 2, 4))
COUNTS = np.ones((3, 2))
MODEL = s2fgl.ACMGCN(4, 3, 2)
STATE = MODEL.state_dict()

BAD_ADJ = st.one_of(
    bad_array(KARATE),
    st.just(KARATE[:5]),
    st.just(np.triu(KARATE)),
    st.just(-KARATE),
)
BAD_MASK = st.sampled_from([MASK.astype(int), MASK[:10], None, "x", MASK[None]])
BAD_CLIENTS = st.sampled_from([[], None, "c", [GRAPH], (CLIENTS[0], 3)])
BAD_GRAPH = not_a(CLIENTS[0])
BAD_ALPHA = bad_real(0.0, 1.0, low_open=True, high_open=True)
BAD_H = st.one_of(bad_tensor(H), st.just(H[:, :3]))
NO_TRAIN = dataclasses.replace(CLIENTS[0], train_mask=np.zeros_like(CLIENTS[0].train_mask))
_C = CLIENTS[0]
_TR9 = np.arange(9) == 0  # 9 nodes, one labelled: too small for FGMA's k = 3 on n // 3 nodes
TINY = s2fgl.ClientData(
    _C.nodes[:9], _C.x[:9], _C.y[:9], _C.adj[:9, :9], _TR9, np.zeros(9, bool), ~_TR9
)


def _pair(lo, hi):
    return st.sampled_from([(lo, hi), (0.2,), "ab", None, (0.5, "x")])


ALL_SPECS: dict[str, Spec] = {
    f"{P}.make_csbm_communities": Spec(
        s2fgl.make_csbm_communities,
        {"n_nodes": 60, "n_features": 4, "n_communities": 3, "seed": 0},
        {
            "n_nodes": bad_int(2),
            "n_classes": bad_int(2),
            "n_features": bad_int(1),
            "n_communities": st.one_of(bad_int(1), st.just(61)),
            "homophily_range": st.one_of(
                _pair(-0.1, 0.5), st.just((0.2, 1.5)), st.just((0.8, 0.2))
            ),
            "p_inter": bad_probability(),
            "feat_signal": bad_real(0.0, None),
            "label_skew": bad_positive(),
            "partners": bad_int(1),
            "seed": bad_seed(),
        },
        names={"homophily_range": "homophily_range"},
    ),
    f"{P}.louvain_partition": Spec(
        s2fgl.louvain_partition,
        {"graph": GRAPH, "n_clients": 2, "seed": 0},
        {
            "graph": BAD_GRAPH,
            "n_clients": st.one_of(bad_int(1), st.just(N_COMMS + 1)),
            "seed": bad_seed(),
            "split": st.sampled_from(
                [(0.5, 0.2, 0.2), (0.6, 0.4), "abc", (1.2, -0.1, -0.1), (0.0, 0.5, 0.5)]
                + [(0.001, 0.499, 0.5)]  # rounds to no training node on a 60-node client
            ),
        },
    ),
    f"{P}.label_disruption": Spec(
        s2fgl.label_disruption,
        {"graph": GRAPH, "clients": CLIENTS},
        {
            "graph": BAD_GRAPH,
            "clients": st.one_of(BAD_CLIENTS, st.just(CLIENTS[:1])),
            "alpha": BAD_ALPHA,
            "self_loops": st.sampled_from([1, "no", None]),
        },
        finite=True,
    ),
    f"{P}.spectral_stats": Spec(
        s2fgl.spectral_stats,
        {"clients": CLIENTS, "bins": 10},
        {"clients": BAD_CLIENTS, "bins": bad_int(1)},
        finite=True,
    ),
    f"{P}.label_frequency": Spec(
        s2fgl.label_frequency,
        {"adj": KARATE, "y": Y34},
        {
            "adj": st.one_of(BAD_ADJ, st.just(np.zeros((34, 34)))),
            "y": st.one_of(bad_index_array(Y34, None), st.just(Y34[:5])),
        },
        finite=True,
    ),
    f"{P}.ppr_matrix": Spec(
        s2fgl.ppr_matrix,
        {"adj": KARATE, "alpha": 0.85},
        {"adj": BAD_ADJ, "alpha": BAD_ALPHA},
        finite=True,
    ),
    f"{P}.node_importance": Spec(
        s2fgl.node_importance,
        {"adj": KARATE, "train_mask": MASK, "alpha": 0.85},
        {"adj": BAD_ADJ, "train_mask": BAD_MASK, "alpha": BAD_ALPHA},
        finite=True,
    ),
    f"{P}.important_nodes": Spec(
        s2fgl.important_nodes,
        {"adj": KARATE, "train_mask": MASK, "alpha": 0.85},
        {"adj": BAD_ADJ, "train_mask": BAD_MASK, "alpha": BAD_ALPHA},
    ),
    f"{P}.ACMGCN": Spec(
        s2fgl.ACMGCN,
        {"in_dim": 4, "hidden": 3, "n_classes": 2},
        {
            "in_dim": bad_int(1),
            "hidden": bad_int(1),
            "n_classes": bad_int(2),
            "dropout": bad_real(0.0, 1.0, high_open=True),
        },
    ),
    f"{P}.build_codebook": Spec(
        s2fgl.build_codebook,
        {"prototypes": PROTO, "counts": COUNTS},
        {
            "prototypes": bad_array(PROTO),
            "counts": st.one_of(bad_array(COUNTS), st.just(-COUNTS), st.just(COUNTS[:2])),
            "n_repeats": bad_int(1),
            "frac": bad_real(0.0, 1.0, low_open=True),
            "seed": bad_seed(),
        },
        finite=True,
    ),
    f"{P}.codebook_kl_loss": Spec(
        s2fgl.codebook_kl_loss,
        {"h_local": H, "h_global": H2, "codebook": CB},
        {
            "h_local": BAD_H,
            "h_global": BAD_H,
            "codebook": st.one_of(bad_tensor(CB), st.just(CB[..., :2])),
            "T": bad_positive(),
        },
        finite=True,
    ),
    f"{P}.frequency_alignment_loss": Spec(
        s2fgl.frequency_alignment_loss,
        {"h_local": H, "h_global": H2, "k": 3, "m": 5},
        {
            "h_local": BAD_H,
            "h_global": BAD_H,
            "k": st.one_of(bad_int(1), st.just(24)),
            "m": st.one_of(bad_int(1), st.just(13)),
            "form": bad_choice(("band", "pairs")),
        },
        finite=True,
    ),
    f"{P}.knn_laplacian_bands": Spec(
        s2fgl.knn_laplacian_bands,
        {"h": H, "k": 3, "m": 5},
        {"h": bad_tensor(H), "k": st.one_of(bad_int(1), st.just(24)), "m": bad_int(1, 12)},
        finite=True,
    ),
    f"{P}.fedavg": Spec(
        s2fgl.fedavg,
        {"states": [STATE, STATE], "weights": [1.0, 2.0]},
        {
            "states": st.sampled_from([[], None, "s", [STATE, 3], [STATE, {"a": 1}]]),
            "weights": st.one_of(
                bad_array(np.array([1.0, 2.0])),
                st.sampled_from([[1.0], [-1.0, 2.0], [0.0, 0.0]]),
            ),
        },
        finite=True,
    ),
    f"{P}.client_update": Spec(
        s2fgl.client_update,
        lambda: {
            "model": s2fgl.ACMGCN(8, 4, 5),
            "global_model": s2fgl.ACMGCN(8, 4, 5),
            "client": CLIENTS[0],
            "local_steps": 1,
            "codebook": torch.randn(5, 2, 4),
        },
        {
            "model": not_a(MODEL.state_dict()),
            "global_model": not_a(MODEL.state_dict()),
            "client": st.one_of(not_a(GRAPH), st.just(NO_TRAIN), st.just(TINY)),
            "method": bad_choice(s2fgl.METHODS),
            "local_steps": bad_int(1),
            "lr": bad_positive(),
            "weights": st.sampled_from([(1.0,), "ab", None, (-1.0, 1.0), (1.0, float("nan"))]),
            "prox_mu": bad_real(0.0, None),
            "codebook": st.sampled_from([torch.randn(5, 4), "cb", torch.zeros(0)]),
        },
    ),
    f"{P}.run_federated": Spec(
        s2fgl.run_federated,
        {
            "method": "s2fgl",
            "clients": CLIENTS,
            "rounds": 2,
            "local_steps": 1,
            "hidden": 4,
            "device": "cpu",
        },
        {
            "method": bad_choice(s2fgl.METHODS),
            "clients": st.one_of(
                BAD_CLIENTS, st.just([CLIENTS[0], NO_TRAIN]), st.just([CLIENTS[1], TINY])
            ),
            "rounds": bad_int(1),
            "local_steps": bad_int(1),
            "lr": bad_positive(),
            "hidden": bad_int(1),
            "weights": st.one_of(
                st.sampled_from([(1.0,), "ab", None]),
                st.tuples(bad_real(0.0, None), st.just(1.0)),
            ),
            "prox_mu": bad_real(0.0, None),
            "seed": bad_seed(),
            "device": st.sampled_from([3, "not-a-device", ["cpu"], 1.5]),
        },
    ),
}
ALL_CONSTANTS = {f"{P}.METHODS"}
ALL_RESULTS = {
    f"{P}.GraphData": s2fgl.GraphData,
    f"{P}.ClientData": s2fgl.ClientData,
    f"{P}.History": s2fgl.History,
}
SPECS = ALL_SPECS
CONSTANTS = ALL_CONSTANTS
RESULTS = ALL_RESULTS

test_bad_input_is_rejected = bad_input_test(ALL_SPECS)
test_valid_input_runs = valid_input_test(ALL_SPECS)
test_good_input_is_finite = good_input_test(ALL_SPECS)


def test_every_public_name_of_s2fgl_is_covered():
    """Every public name has a spec, or is a constant or a result record, and every argument of
    every spec has bad values or is free."""
    import inspect

    covered = set(ALL_SPECS) | ALL_CONSTANTS | set(ALL_RESULTS)
    public = {f"{P}.{name}" for name in s2fgl.__all__}
    assert public <= covered, sorted(public - covered)
    for key, spec in ALL_SPECS.items():
        params = set(inspect.signature(spec.fn).parameters)
        assert params == set(spec.bad) | set(spec.free), key


def test_acmgcn_forward_rejects_bad_adj():
    """A negative adj gave a degree <= 0 and NaN filters; a one-way edge an asymmetric filter."""
    import pytest

    model = s2fgl.ACMGCN(8, 4, 5)
    x = torch.as_tensor(CLIENTS[0].x, dtype=torch.float32)
    a = torch.as_tensor(CLIENTS[0].adj, dtype=torch.float32)
    for bad in (-a, torch.triu(a), a[:5], a * float("nan"), a[None]):
        with pytest.raises(ValueError, match="adj"):
            model(x, bad)
