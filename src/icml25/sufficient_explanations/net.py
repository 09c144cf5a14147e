"""ReLU networks with interval biases, their training, and the input box of a query.

Notation (Bassan et al., ICML 2025; CORA's ``computeReducedNetwork``): a network of ``L`` affine
layers, ``Ws[k]`` of shape (n_{k+1}, n_k) and ``bs[k]`` of shape (n_{k+1},),

    z_{k+1} = Ws[k] a_k + bs[k] (+ d_k),   a_{k+1} = ReLU(z_{k+1}) for hidden layers,

with no activation after the last layer (the logits, n_L of them). ``ds[k]`` is ``None`` or an
interval bias ``(d_lo, d_hi)``, both (n_{k+1},): an *abstract* network adds some unknown
``d_k`` in that box. An ordinary network has every ``ds[k] = None``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from icml25.common.checks import check_finite_array, check_int, check_positive, check_seed

__all__ = ["Net", "input_box", "train_mlp"]


def _check_domain(domain: object) -> tuple[float, float]:
    arr = check_finite_array("domain", domain, ndim=1)
    if arr.shape != (2,) or not arr[0] < arr[1]:
        raise ValueError(f"domain must be a pair (low, high) with low < high, got {domain!r}")
    return float(arr[0]), float(arr[1])


@dataclass
class Net:
    """A ReLU network ``Ws``, ``bs`` with optional interval biases ``ds`` (module docstring).

    Attributes:
        Ws: weight matrices, ``Ws[k]`` (n_{k+1}, n_k).
        bs: biases, ``bs[k]`` (n_{k+1},).
        ds: ``None`` (no interval bias anywhere) or one entry per layer, ``None`` or
            ``(d_lo, d_hi)`` with ``d_lo <= d_hi`` elementwise, both (n_{k+1},).
    """

    Ws: list[np.ndarray]
    bs: list[np.ndarray]
    ds: list[tuple[np.ndarray, np.ndarray] | None] | None = field(default=None)

    def __post_init__(self) -> None:
        if not isinstance(self.Ws, (list, tuple)) or len(self.Ws) == 0:
            raise TypeError("Ws must be a non-empty list of 2-D arrays")
        if not isinstance(self.bs, (list, tuple)) or len(self.bs) != len(self.Ws):
            raise TypeError(
                f"bs must be a list of 1-D arrays, one per matrix of Ws ({len(self.Ws)})"
            )
        Ws = [check_finite_array(f"Ws[{k}]", W, ndim=2) for k, W in enumerate(self.Ws)]
        bs = [check_finite_array(f"bs[{k}]", b, ndim=1) for k, b in enumerate(self.bs)]
        for k, (W, b) in enumerate(zip(Ws, bs, strict=True)):
            if b.shape[0] != W.shape[0]:
                raise ValueError(f"bs[{k}] must have {W.shape[0]} entries, got {b.shape[0]}")
            if k and W.shape[1] != Ws[k - 1].shape[0]:
                raise ValueError(
                    f"Ws[{k}] must have {Ws[k - 1].shape[0]} columns, got {W.shape[1]}"
                )
        ds = self.ds
        if ds is None:
            ds = [None] * len(Ws)
        if not isinstance(ds, (list, tuple)) or len(ds) != len(Ws):
            raise TypeError(f"ds must be None or a list of {len(Ws)} entries (None or (lo, hi))")
        out: list[tuple[np.ndarray, np.ndarray] | None] = []
        for k, d in enumerate(ds):
            if d is None:
                out.append(None)
                continue
            if not isinstance(d, (list, tuple)) or len(d) != 2:
                raise TypeError(f"ds[{k}] must be None or a pair (d_lo, d_hi)")
            dl = check_finite_array(f"ds[{k}][0]", d[0], ndim=1)
            du = check_finite_array(f"ds[{k}][1]", d[1], ndim=1)
            if dl.shape != (Ws[k].shape[0],) or du.shape != dl.shape:
                raise ValueError(f"ds[{k}] must hold two arrays of {Ws[k].shape[0]} entries")
            if np.any(dl > du):
                raise ValueError(f"ds[{k}] must satisfy d_lo <= d_hi elementwise")
            out.append((dl, du))
        self.Ws, self.bs, self.ds = Ws, bs, out

    @property
    def n_in(self) -> int:
        """n_0, the number of input features."""
        return int(self.Ws[0].shape[1])

    @property
    def n_out(self) -> int:
        """n_L, the number of outputs (logits)."""
        return int(self.Ws[-1].shape[0])

    @property
    def widths(self) -> list[int]:
        """[n_1, ..., n_{L-1}]: the hidden layers' widths."""
        return [int(W.shape[0]) for W in self.Ws[:-1]]

    @property
    def work(self) -> int:
        """Σ_k Ws[k].size: the multiply-adds of one forward pass, our unit of verifier work."""
        return int(sum(W.size for W in self.Ws))

    @property
    def abstract(self) -> bool:
        """True if some layer has an interval bias."""
        return any(d is not None for d in self.ds)

    def forward(self, X: np.ndarray) -> np.ndarray:
        """Logits of the inputs ``X`` (N, n_0) -> (N, n_L) (a (n_0,) input gives (n_L,)).

        Raises ``ValueError`` on a network with interval biases (its output is a set).
        """
        if self.abstract:
            raise ValueError("forward needs a network without interval biases (ds all None)")
        X = check_finite_array("X", X)
        if X.ndim not in (1, 2) or X.shape[-1] != self.n_in:
            raise ValueError(f"X must have shape (N, {self.n_in}) or ({self.n_in},), got {X.shape}")
        a = X.T
        for k, (W, b) in enumerate(zip(self.Ws, self.bs, strict=True)):
            a = W @ a + (b[:, None] if a.ndim == 2 else b)
            if k < len(self.Ws) - 1:
                a = np.maximum(a, 0.0)
        return a.T


def input_box(
    x: np.ndarray, free: Sequence[int], eps: float, domain: Sequence[float] = (0.0, 1.0)
) -> tuple[np.ndarray, np.ndarray]:
    """The query's input set: free features x_i ± ε clipped to the domain, the others fixed.

    Args:
        x: the input, (n_0,), inside ``domain``.
        free: indices of the free features (unique, in [0, n_0)).
        eps: ε > 0, the perturbation radius.
        domain: (low, high) of every feature.

    Returns:
        ``(lo, hi)``, both (n_0,).
    """
    dom = _check_domain(domain)
    x = check_finite_array("x", x, ndim=1).copy()
    if x.min() < dom[0] or x.max() > dom[1]:
        raise ValueError(f"x must lie in the domain {dom}, got values in [{x.min()}, {x.max()}]")
    free_idx = check_indices("free", free, x.size, min_size=0)
    eps = check_positive("eps", eps)
    lo, hi = x.copy(), x.copy()
    lo[free_idx] = np.maximum(x[free_idx] - eps, dom[0])
    hi[free_idx] = np.minimum(x[free_idx] + eps, dom[1])
    return lo, hi


def check_indices(name: str, value: object, n: int, min_size: int = 0) -> np.ndarray:
    """``value`` as unique int64 indices in [0, n); raise a named error otherwise."""
    if isinstance(value, (str, bytes, dict, set)) or value is None or np.isscalar(value):
        raise TypeError(f"{name} must be a sequence of int indices, got {type(value).__name__}")
    arr = np.asarray(value)
    if arr.size == 0:
        if min_size > 0:
            raise ValueError(f"{name} must hold at least {min_size} index")
        return np.zeros(0, dtype=np.int64)
    if arr.dtype == bool or not np.issubdtype(arr.dtype, np.integer):
        raise TypeError(f"{name} must hold integers, got dtype {arr.dtype}")
    if arr.ndim != 1:
        raise ValueError(f"{name} must be 1-D, got shape {arr.shape}")
    if arr.min() < 0 or arr.max() >= n:
        raise ValueError(f"{name} must hold indices in [0, {n}), got [{arr.min()}, {arr.max()}]")
    if np.unique(arr).size != arr.size:
        raise ValueError(f"{name} must not repeat an index")
    return arr.astype(np.int64)


def train_mlp(
    X: np.ndarray,
    y: np.ndarray,
    hidden: Sequence[int] = (128, 128),
    epochs: int = 30,
    lr: float = 1e-3,
    seed: int = 0,
) -> Net:
    """Train a ReLU MLP n_0-hidden-...-n_classes in torch (Adam, batches of 64, cross-entropy)
    and export it to a float64 :class:`Net`.

    Args:
        X: (N, n_0) features; y: (N,) integer labels 0..n_classes-1.
        hidden: widths of the hidden layers; epochs, lr: Adam's budget; seed: torch's seed
            (initialisation and batch order).
    """
    X = check_finite_array("X", X, ndim=2)
    y_arr = np.asarray(y)
    if y_arr.dtype == bool or not np.issubdtype(y_arr.dtype, np.integer):
        raise TypeError(f"y must hold integer labels, got dtype {y_arr.dtype}")
    if y_arr.shape != (X.shape[0],):
        raise ValueError(f"y must have shape ({X.shape[0]},), got {y_arr.shape}")
    if y_arr.min() < 0:
        raise ValueError("y must hold labels >= 0")
    if isinstance(hidden, (str, bytes)) or not isinstance(hidden, Sequence) or not hidden:
        raise TypeError("hidden must be a non-empty sequence of ints")
    widths = [check_int("hidden", h, 1, 4096) for h in hidden]
    epochs = check_int("epochs", epochs, 1, 10_000)
    lr = check_positive("lr", lr)
    seed = check_seed("seed", seed)
    n_classes = int(y_arr.max()) + 1
    if n_classes < 2:
        raise ValueError("y must hold at least two classes")
    sizes = [X.shape[1], *widths, n_classes]
    import torch  # after the checks: bad input fails fast

    with torch.random.fork_rng():
        torch.manual_seed(seed)
        layers: list[torch.nn.Module] = []
        for k in range(len(sizes) - 1):
            layers.append(torch.nn.Linear(sizes[k], sizes[k + 1]))
            if k < len(sizes) - 2:
                layers.append(torch.nn.ReLU())
        model = torch.nn.Sequential(*layers)
        opt = torch.optim.Adam(model.parameters(), lr=lr)
        Xt = torch.as_tensor(X, dtype=torch.float32)
        yt = torch.as_tensor(y_arr, dtype=torch.long)
        for _ in range(epochs):
            perm = torch.randperm(len(Xt))
            for i in range(0, len(Xt), 64):
                idx = perm[i : i + 64]
                opt.zero_grad()
                loss = torch.nn.functional.cross_entropy(model(Xt[idx]), yt[idx])
                loss.backward()
                opt.step()
    lin = [m for m in model if isinstance(m, torch.nn.Linear)]
    return Net(
        [m.weight.detach().double().numpy().copy() for m in lin],
        [m.bias.detach().double().numpy().copy() for m in lin],
    )
