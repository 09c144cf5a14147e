"""A small, seeded classifier training loop and a tiny CNN for 1D, 2D and 3D inputs."""

from __future__ import annotations

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

from icml25.common.checks import check_int, check_positive


class SmallCNN(nn.Module):
    """Two conv blocks (conv 3, ReLU, max-pool 2) and a 64-unit head, for 1D, 2D or 3D inputs.

    Input (B, in_channels, *spatial) with every spatial size ``size`` divisible by 4; output
    (B, n_classes) logits.
    """

    def __init__(
        self,
        in_channels: int = 1,
        n_classes: int = 10,
        size: int = 32,
        ndim: int = 2,
        width: int = 16,
    ) -> None:
        super().__init__()
        if ndim not in (1, 2, 3):
            raise ValueError(f"ndim must be 1, 2 or 3, got {ndim!r}")
        size = check_int("size", size, 4)
        if size % 4:
            raise ValueError(f"size must be divisible by 4, got {size}")
        conv = {1: nn.Conv1d, 2: nn.Conv2d, 3: nn.Conv3d}[ndim]
        pool = {1: nn.MaxPool1d, 2: nn.MaxPool2d, 3: nn.MaxPool3d}[ndim]
        self.net = nn.Sequential(
            conv(in_channels, width, 3, padding=1),
            nn.ReLU(),
            pool(2),
            conv(width, 2 * width, 3, padding=1),
            nn.ReLU(),
            pool(2),
            nn.Flatten(),
            nn.Linear(2 * width * (size // 4) ** ndim, 64),
            nn.ReLU(),
            nn.Linear(64, check_int("n_classes", n_classes, 2)),
        )

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.net(x)


def minibatch_training(
    model: nn.Module,
    opt: torch.optim.Optimizer,
    loss_fn,
    n: int,
    epochs: int,
    batch_size: int,
    generator: torch.Generator,
    progress: bool = True,
    clip_norm: float | None = None,
) -> list[float]:
    """The book's minibatch loop: a fresh permutation of the n examples per epoch (drawn from
    ``generator``), ``loss_fn(idx)`` on each batch of indices, one optimiser step per batch
    (after clipping the gradient norm to ``clip_norm`` if given), a tqdm bar when ``progress``.
    Returns the batch losses; leaves the model in eval mode."""
    steps = [(e, s) for e in range(epochs) for s in range(0, n, batch_size)]
    if progress:
        from tqdm import tqdm

        steps = tqdm(steps, desc="train")
    model.train()
    losses: list[float] = []
    perm = torch.randperm(n, generator=generator)
    for epoch, start in steps:
        if start == 0 and epoch > 0:
            perm = torch.randperm(n, generator=generator)
        loss = loss_fn(perm[start : start + batch_size])
        opt.zero_grad()
        loss.backward()
        if clip_norm is not None:
            nn.utils.clip_grad_norm_(model.parameters(), clip_norm)
        opt.step()
        losses.append(loss.item())
    model.eval()
    return losses


def train_classifier(
    model: nn.Module,
    X,
    y,
    epochs: int = 4,
    batch_size: int = 64,
    lr: float = 1e-3,
    seed: int = 0,
    progress: bool = True,
) -> list[float]:
    """Adam on cross-entropy over (X, y) for ``epochs``; returns batch losses (eval mode after)."""
    X = torch.as_tensor(np.asarray(X), dtype=torch.float32)
    y = torch.as_tensor(np.asarray(y)).long()
    if len(X) != len(y) or len(X) == 0:
        raise ValueError(f"X and y must be non-empty with equal lengths, got {len(X)} and {len(y)}")
    epochs = check_int("epochs", epochs)
    batch_size = check_int("batch_size", batch_size)
    g = torch.Generator().manual_seed(seed)
    torch.manual_seed(seed)
    opt = torch.optim.Adam(model.parameters(), lr=check_positive("lr", lr))

    def step(idx: torch.Tensor) -> torch.Tensor:
        return F.cross_entropy(model(X[idx]), y[idx])

    return minibatch_training(model, opt, step, len(X), epochs, batch_size, g, progress)


@torch.no_grad()
def accuracy(model: nn.Module, X, y) -> float:
    """Fraction of (X, y) the model classifies correctly."""
    X = torch.as_tensor(np.asarray(X), dtype=torch.float32)
    y = torch.as_tensor(np.asarray(y)).long()
    return float((model(X).argmax(1) == y).float().mean())
