"""S2FGL: spatial spectral federated graph learning (Tan et al., ICML 2025), in miniature: a
community-structured contextual SBM split by Louvain into clients, a dense ACM-GCN, and an
in-process federated loop.

Public API:

* data: :func:`make_csbm_communities` (:class:`GraphData`), :func:`louvain_partition`
  (:class:`ClientData`);
* motivation: :func:`label_disruption`, :func:`spectral_stats`, :func:`label_frequency`,
  :func:`ppr_matrix`, :func:`node_importance`, :func:`important_nodes`;
* method: :class:`ACMGCN`, :func:`build_codebook`, :func:`codebook_kl_loss`,
  :func:`frequency_alignment_loss`, :func:`knn_laplacian_bands`, :func:`fedavg`;
* federated loop: :func:`run_federated` (:class:`History`, :data:`METHODS`), :func:`client_update`.
"""

from icml25.s2fgl.data import ClientData, GraphData, louvain_partition, make_csbm_communities
from icml25.s2fgl.federated import METHODS, History, client_update, run_federated
from icml25.s2fgl.model import (
    ACMGCN,
    build_codebook,
    codebook_kl_loss,
    fedavg,
    frequency_alignment_loss,
    knn_laplacian_bands,
)
from icml25.s2fgl.spectral import (
    important_nodes,
    label_disruption,
    label_frequency,
    node_importance,
    ppr_matrix,
    spectral_stats,
)

__all__ = [
    "ACMGCN",
    "METHODS",
    "ClientData",
    "GraphData",
    "History",
    "build_codebook",
    "client_update",
    "codebook_kl_loss",
    "fedavg",
    "frequency_alignment_loss",
    "important_nodes",
    "knn_laplacian_bands",
    "label_disruption",
    "label_frequency",
    "louvain_partition",
    "make_csbm_communities",
    "node_importance",
    "ppr_matrix",
    "run_federated",
    "spectral_stats",
]
