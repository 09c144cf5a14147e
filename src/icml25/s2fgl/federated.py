"""The in-process federated loop: local-only, FedAvg, FedProx and S2FGL with its two ablations.

One round: every client starts from the global model theta, takes ``local_steps`` Adam steps on
CE (+ prox_mu ||theta_k - theta||^2 for FedProx, + w_KL KL_codebook + w_FGMA FGMA for S2FGL),
sends its state and (S2FGL) class prototypes of its labelled important nodes; the server
averages the states weighted by the number of training nodes (:func:`fedavg`) and builds the
codebook (:func:`build_codebook`) used from the next round on. ``client_update`` and ``fedavg``
are plain functions an exercise can wrap in Flower's ``NumPyClient``/``Strategy``.
"""

from __future__ import annotations

import copy
import time
import weakref
from dataclasses import dataclass, field

import numpy as np
import torch
import torch.nn.functional as F

from icml25.common import checks
from icml25.s2fgl.data import ClientData
from icml25.s2fgl.model import (
    ACMGCN,
    _acm_filters,
    _band_targets,
    _bands,
    _codebook_kl,
    _fgma,
    _kl_teacher,
    build_codebook,
    fedavg,
)
from icml25.s2fgl.spectral import _check_clients, important_nodes

__all__ = ["METHODS", "History", "client_update", "run_federated"]

METHODS = ("local", "fedavg", "fedprox", "s2fgl", "s2fgl-nlir", "s2fgl-fgma")

# each model's submodules, listed once (weak keys: nothing here keeps a model alive)
_SUBMODULES: weakref.WeakKeyDictionary[torch.nn.Module, tuple[torch.nn.Module, ...]] = (
    weakref.WeakKeyDictionary()
)


def _set_mode(model: torch.nn.Module, training: bool) -> None:
    """``model.train(training)``: the same ``training`` flag on the model and every submodule,
    set directly (``Module.train`` walks the module tree and goes through ``__setattr__`` at
    every node, a few per cent of a round on these ~100-node clients)."""
    subs = _SUBMODULES.get(model)
    if subs is None:
        subs = _SUBMODULES[model] = tuple(model.modules())[1:]
    model.__dict__["training"] = training
    for m in subs:
        m.__dict__["training"] = training


@dataclass
class History:
    """What one federated run measured, one entry per round.

    ``accuracy``: pooled test accuracy over all clients of the global model (of the local models
    for ``"local"``); ``val_accuracy``: the same on the validation nodes; ``ce``, ``kl``,
    ``fgma``: mean unweighted loss terms over the clients' last local step (0 where unused);
    ``extra``: the last ``codebook`` (C, R, d) or None, and the final ``global_state`` (for
    ``"local"`` the untouched initial model: no global model is trained).
    """

    method: str
    accuracy: np.ndarray
    val_accuracy: np.ndarray
    ce: np.ndarray
    kl: np.ndarray
    fgma: np.ndarray
    seconds: float
    extra: dict = field(default_factory=dict)


def _tensors(
    c: ClientData, model: ACMGCN, alpha: float = 0.85, device: torch.device | None = None
) -> dict:
    """One client's tensors, once per run, on ``device`` (that of ``model`` when None):
    features, labels, masks, important nodes, and the ACM-GCN filters (A_low, A_high), which
    depend only on the fixed subgraph. ``model``'s ``forward`` runs once on them (eval mode, no
    dropout draw) to check x and adj."""
    dev = next(model.parameters()).device if device is None else device
    imp = important_nodes(c.adj, c.train_mask, alpha)
    x = torch.as_tensor(c.x, dtype=torch.float32, device=dev)
    adj = torch.as_tensor(c.adj, dtype=torch.float32, device=dev)
    was_training = model.training
    model.eval()
    with torch.no_grad():
        model(x, adj)  # the public checks (x columns, adj square/symmetric/non-negative/size)
    model.train(was_training)
    low, high = _acm_filters(adj)
    return {
        "x": x,
        "adj": adj,
        "low": low,
        "high": high,
        "y": torch.as_tensor(c.y, device=dev),
        "tr": torch.as_tensor(c.train_mask, device=dev),
        "y_tr": torch.as_tensor(c.y[c.train_mask], device=dev),
        "va": torch.as_tensor(c.val_mask, device=dev),
        "te": torch.as_tensor(c.test_mask, device=dev),
        "imp": torch.as_tensor(imp, device=dev),
        "lab": torch.as_tensor(imp[c.train_mask[imp]], device=dev),  # imp is sorted
    }


def _accuracy(
    models: list, data: list[dict], keys: tuple[str, ...]
) -> tuple[list[float], list[torch.Tensor]]:
    """Pooled accuracy on each mask in ``keys``, one eval forward per client, and each
    client's embeddings h (n_k, hidden) from that forward (the next round's teacher
    embeddings, when ``models`` is the global model)."""
    correct, total = [0] * len(keys), [0] * len(keys)
    hs = []
    with torch.no_grad():
        for model, d in zip(models, data, strict=True):
            _set_mode(model, False)
            logits, h = model._forward(d["x"], d["low"], d["high"])
            pred = logits.argmax(1)
            hs.append(h)
            for i, key in enumerate(keys):
                mask = d[key]
                correct[i] += int((pred[mask] == d["y"][mask]).sum())
                total[i] += int(mask.sum())
    return [c / max(t, 1) for c, t in zip(correct, total, strict=True)], hs


class _FlatAdam:
    """``torch.optim.Adam(params, lr, weight_decay=weight_decay, foreach=True)`` with a fresh
    state, on one flat buffer: the parameters become views of one contiguous tensor (their
    values unchanged), so a step is a few elementwise ops on it, where torch's multi-tensor
    Adam runs the same ops, with the same scalars and in the same order, over every parameter
    tensor one by one, and the Optimizer class adds its per-step bookkeeping (together most of
    a local step on these ~100-node clients). Every op is elementwise, so the update is the
    same number for number (tests/test_s2fgl.py compares it with torch's Adam).
    ``step(grads)`` takes the gradients of ``params``, in order.
    """

    def __init__(
        self,
        params: list[torch.Tensor],
        lr: float,
        weight_decay: float,
        betas: tuple[float, float] = (0.9, 0.999),
        eps: float = 1e-8,
    ) -> None:
        self.lr, self.wd, self.betas, self.eps = lr, weight_decay, betas, eps
        # each parameter starts on a 64-byte boundary, as a tensor of its own does: BLAS
        # kernels may round differently on unaligned data; the zero padding stays zero
        sizes = [p.numel() for p in params]
        pads = [-n % 16 for n in sizes]
        self.zeros = [params[0].new_zeros(k) for k in pads]
        pieces = [
            t for p, z in zip(params, self.zeros, strict=True) for t in (p.detach().reshape(-1), z)
        ]
        self.flat = torch.cat(pieces)
        views = self.flat.split([x for n, k in zip(sizes, pads, strict=True) for x in (n, k)])
        for p, v in zip(params, views[::2], strict=True):
            p.data = v.view_as(p)
        self.m = torch.zeros_like(self.flat)
        self.v = torch.zeros_like(self.flat)
        self.t = 0.0

    def flatten(self, tensors: list[torch.Tensor]) -> torch.Tensor:
        """Tensors shaped as the parameters, in order, as one buffer with the same layout."""
        pieces = [t for x, z in zip(tensors, self.zeros, strict=True) for t in (x.reshape(-1), z)]
        return torch.cat(pieces)

    @torch.no_grad()
    def step(
        self, grads: tuple[torch.Tensor, ...], prox: tuple[torch.Tensor, float] | None = None
    ) -> None:
        """One Adam step on the gradients ``grads``; ``prox = (theta_flat, mu)`` adds FedProx's
        mu ||theta_k - theta||^2 term's gradient, mu (2 (theta_k - theta)), on the flat buffer
        (``theta_flat`` from :meth:`flatten`): the number autograd gives for that term (the
        doubling is exact, one rounding in the product) and adds to the CE's gradient, each
        parameter being used once in the forward pass."""
        beta1, beta2 = self.betas
        self.t += 1.0
        g = self.flatten(list(grads))
        if prox is not None:
            g.add_((self.flat - prox[0]).mul_(2.0).mul_(prox[1]))
        g.add_(self.flat, alpha=self.wd)
        self.m.lerp_(g, 1 - beta1)
        self.v.mul_(beta2).addcmul_(g, g, value=1 - beta2)
        step_size = (self.lr / (1 - beta1**self.t)) * -1
        denom = self.v.sqrt().div_((1 - beta2**self.t) ** 0.5).add_(self.eps)
        self.flat.addcdiv_(self.m, denom, value=step_size)


def _local_steps(
    model: ACMGCN,
    glob: ACMGCN,
    d: dict,
    h_glob: torch.Tensor | None,
    method: str,
    local_steps: int,
    lr: float,
    weights: tuple[float, float],
    prox_mu: float,
    codebook: torch.Tensor | None,
    align: bool,
) -> tuple[float, float, float]:
    """``local_steps`` Adam steps on one client's loss; returns the last (CE, KL, FGMA)."""
    params = list(model.parameters())
    opt = _FlatAdam(params, lr=lr, weight_decay=5e-4)
    prox = None
    if method == "fedprox":  # the frozen global parameters theta, in the flat layout
        prox = (opt.flatten([p.detach() for p in glob.parameters()]), prox_mu)
    # what stays fixed over the local steps is computed once: the teacher's codebook softmax
    # and the global embeddings' k-NN Laplacian bands (h_glob is the frozen global model's)
    if codebook is not None:
        b = codebook.reshape(-1, codebook.shape[-1]).to(h_glob.dtype)
        with torch.no_grad():
            log_tea = _kl_teacher(h_glob.detach(), b, 1.0)
    if align:
        m = min(10, len(d["imp"]) // 2)  # 10 (the code's); fewer on tiny clients
        hg_imp = h_glob[d["imp"]].detach()
        bands_g = _bands(hg_imp, 3, m)
        target_g = _band_targets(hg_imp, bands_g)
    _set_mode(model, True)
    for _ in range(local_steps):
        logits, h = model._forward(d["x"], d["low"], d["high"])
        ce = F.cross_entropy(logits[d["tr"]], d["y_tr"])
        kl = fg = torch.zeros((), device=ce.device)
        loss = ce
        if codebook is not None:
            kl = _codebook_kl(h, log_tea, b, 1.0)
            loss = loss + weights[0] * kl
        if align:
            fg = _fgma(h[d["imp"]], hg_imp, bands_g, 3, m, target_g=target_g)
            loss = loss + weights[1] * fg
        # FedProx's term enters at the step (its gradient, exactly as autograd gives it)
        opt.step(torch.autograd.grad(loss, params), prox)
    return ce.item(), float(kl.detach()), float(fg.detach())


def client_update(
    model: ACMGCN,
    global_model: ACMGCN,
    client: ClientData,
    method: str = "s2fgl",
    local_steps: int = 5,
    lr: float = 0.01,
    weights: tuple[float, float] = (5.0, 1.0),
    prox_mu: float = 0.005,
    codebook: torch.Tensor | None = None,
) -> tuple[float, float, float]:
    """One client's local update, in place on ``model`` (from its current parameters): CE, plus
    the method's terms against the frozen ``global_model`` (FedProx: prox_mu ||theta_k -
    theta||^2; S2FGL: w_KL KL_codebook when a codebook is given, w_FGMA FGMA on the important
    nodes). Returns the last step's (CE, KL, FGMA). The plain function a Flower client wraps.
    Device: both models must be on one device; the client's arrays and the codebook are moved
    to it.
    """
    model = checks.check_instance("model", model, ACMGCN)
    global_model = checks.check_instance("global_model", global_model, ACMGCN)
    client = checks.check_instance("client", client, ClientData)
    method = checks.check_choice("method", method, METHODS)
    _check_trainable("client", [client], method)
    local_steps = checks.check_int("local_steps", local_steps, 1)
    lr = checks.check_positive("lr", lr)
    w_kl, w_fg = _check_weights(weights)
    prox_mu = checks.check_real("prox_mu", prox_mu, 0.0)
    if codebook is not None:
        codebook = checks.check_tensor("codebook", codebook, ndim=3)
    dev = next(global_model.parameters()).device
    if next(model.parameters()).device != dev:
        raise ValueError(
            f"model and global_model must be on the same device, got "
            f"{next(model.parameters()).device} and {dev}"
        )
    d = _tensors(client, global_model)
    _tensors(client, model)  # the same checks against the local model's input width
    if codebook is not None and codebook.shape[-1] != global_model.l2.w[0].out_features:
        raise ValueError(
            f"codebook must be (C, R, {global_model.l2.w[0].out_features}), "
            f"got {tuple(codebook.shape)}"
        )
    global_model.eval()
    with torch.no_grad():
        _, h_glob = global_model._forward(d["x"], d["low"], d["high"])
    use_kl = method in ("s2fgl", "s2fgl-nlir") and codebook is not None
    return _local_steps(
        model,
        global_model,
        d,
        h_glob,
        method,
        local_steps,
        lr,
        (w_kl, w_fg),
        prox_mu,
        codebook.to(dev) if use_kl else None,
        method in ("s2fgl", "s2fgl-fgma"),
    )


def _check_trainable(name: str, clients: list[ClientData], method: str) -> None:
    """Every client needs a training node (an empty CE is NaN, and fedavg's weight 0 times a NaN
    state is NaN); FGMA needs at least 4 important nodes (n // 3 > k = 3), i.e. 12 nodes."""
    for i, c in enumerate(clients):
        if not bool(np.asarray(c.train_mask).any()):
            raise ValueError(
                f"{name}: client {i} has no training nodes (its cross-entropy would be NaN); "
                "give every client a labelled node (louvain_partition's split[0] > 0)"
            )
        if method in ("s2fgl", "s2fgl-fgma") and len(c.nodes) // 3 <= 3:
            raise ValueError(
                f"{name}: client {i} has {len(c.nodes)} nodes; the FGMA term needs >= 12 "
                "(more than k = 3 important nodes)"
            )


def _check_weights(weights: object) -> tuple[float, float]:
    if not isinstance(weights, (tuple, list)) or len(weights) != 2:
        raise TypeError(f"weights must be a pair (w_kl, w_fgma), got {weights!r}")
    return (
        checks.check_real("weights[0]", weights[0], 0.0),
        checks.check_real("weights[1]", weights[1], 0.0),
    )


def run_federated(
    method: str,
    clients: list[ClientData],
    rounds: int = 30,
    local_steps: int = 5,
    lr: float = 0.01,
    hidden: int = 64,
    weights: tuple[float, float] = (5.0, 1.0),
    prox_mu: float = 0.005,
    seed: int = 0,
    device: str | torch.device | None = None,
) -> History:
    """Run one method for ``rounds`` rounds on the clients; ``weights`` = (w_KL, w_FGMA).

    Important nodes: the top n/3 of :func:`node_importance` per client; prototypes use its
    labelled training nodes, FGMA all of them (k = 3, m = 10, or n/6 on clients below 60 nodes).
    Both S2FGL terms start in round 2 (the codebook and the global model of round 1 exist
    then), as in the official code. Adam, weight decay 5e-4, a fresh optimiser per round.
    ``device``: where the models and the clients' tensors live (None =
    :func:`icml25.common.runtime.get_device`, a GPU when one is visible); the returned
    ``extra`` tensors are on the CPU.
    """
    method = checks.check_choice("method", method, METHODS)
    clients = _check_clients(clients)
    _check_trainable("clients", clients, method)
    rounds = checks.check_int("rounds", rounds, 1)
    local_steps = checks.check_int("local_steps", local_steps, 1)
    lr = checks.check_positive("lr", lr)
    hidden = checks.check_int("hidden", hidden, 1)
    w_kl, w_fg = _check_weights(weights)
    prox_mu = checks.check_real("prox_mu", prox_mu, 0.0)
    seed = checks.check_seed("seed", seed)
    dev = checks.check_device("device", device)
    if dev.type == "cuda" and not torch.cuda.is_available():
        raise ValueError("device is 'cuda' but no GPU is visible (torch.cuda.is_available())")
    t0 = time.perf_counter()
    torch.manual_seed(seed)
    n_classes = int(max(int(c.y.max()) for c in clients)) + 1
    in_dim = int(clients[0].x.shape[1])
    glob = ACMGCN(in_dim, hidden, n_classes).to(dev)
    locals_ = [copy.deepcopy(glob) for _ in clients]
    data = [_tensors(c, glob) for c in clients]
    use_kl, use_fg = method in ("s2fgl", "s2fgl-nlir"), method in ("s2fgl", "s2fgl-fgma")
    vol = np.array([int(c.train_mask.sum()) for c in clients], dtype=float)
    codebook = None
    hist = {k: [] for k in ("acc", "val", "ce", "kl", "fgma")}
    h_eval: list[torch.Tensor] = []  # the last evaluation's embeddings, per client
    for r in range(rounds):
        states, protos, counts, terms = [], [], [], []
        if method != "local":
            g_params = list(glob.parameters())
            _set_mode(glob, False)  # the frozen teacher of this round (it changes only at fedavg)
        # the teacher's embeddings are needed once a term uses them (round 2 on); they are the
        # global model's eval-mode forward (no dropout), which the last round's evaluation
        # has just run on the same model and inputs: reused, the same numbers
        teacher = (use_kl and codebook is not None) or (use_fg and r > 0)
        for i, (model, d) in enumerate(zip(locals_, data, strict=True)):
            h_glob = None
            if method != "local":
                with torch.no_grad():  # = load_state_dict(glob.state_dict()): all parameters
                    torch._foreach_copy_(list(model.parameters()), g_params)
                if teacher:
                    h_glob = h_eval[i]
            cb = codebook if use_kl else None
            terms.append(
                _local_steps(
                    model,
                    glob,
                    d,
                    h_glob,
                    method,
                    local_steps,
                    lr,
                    (w_kl, w_fg),
                    prox_mu,
                    cb,
                    use_fg and r > 0,
                )
            )
            states.append(model.state_dict())
            if use_kl:
                _set_mode(model, False)
                with torch.no_grad():
                    _, h = model._forward(d["x"], d["low"], d["high"])
                lab = d["lab"]
                onehot = F.one_hot(d["y"][lab], n_classes).float()  # (n_lab, C)
                cnt = onehot.sum(0)
                protos.append((onehot.T @ h[lab]) / cnt.clamp(min=1)[:, None])
                counts.append(cnt)
        if method == "local":
            evaluated = locals_
        else:
            glob.load_state_dict(fedavg(states, vol))
            evaluated = [glob] * len(data)
        if use_kl:
            codebook = build_codebook(
                torch.stack(protos).cpu().numpy(),
                torch.stack(counts).cpu().numpy(),
                seed=seed * 1000 + r,
            ).to(dev)
        (acc_te, acc_va), h_eval = _accuracy(evaluated, data, ("te", "va"))
        hist["acc"].append(acc_te)
        hist["val"].append(acc_va)
        t = np.array(terms).mean(0)
        hist["ce"].append(t[0])
        hist["kl"].append(t[1])
        hist["fgma"].append(t[2])
    return History(
        method,
        np.array(hist["acc"]),
        np.array(hist["val"]),
        np.array(hist["ce"]),
        np.array(hist["kl"]),
        np.array(hist["fgma"]),
        time.perf_counter() - t0,
        {
            "codebook": None if codebook is None else codebook.cpu(),
            "global_state": {k: v.detach().cpu().clone() for k, v in glob.state_dict().items()},
        },
    )
