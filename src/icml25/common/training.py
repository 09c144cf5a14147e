"""A small, seeded classifier training loop and a tiny CNN for 1D, 2D and 3D inputs."""

from __future__ import annotations

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

from icml25.common.checks import (
    check_callable,
    check_choice,
    check_finite_array,
    check_index_array,
    check_instance,
    check_int,
    check_positive,
    check_seed,
)

__all__ = ["SmallCNN", "accuracy", "minibatch_training", "train_classifier"]


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
        ndim = check_choice("ndim", ndim, (1, 2, 3))
        in_channels, width = check_int("in_channels", in_channels), check_int("width", width)
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
    check_instance("model", model, nn.Module)
    check_instance("opt", opt, torch.optim.Optimizer)
    check_callable("loss_fn", loss_fn)
    n, epochs = check_int("n", n, 0), check_int("epochs", epochs, 0)
    batch_size = check_int("batch_size", batch_size)
    check_instance("generator", generator, torch.Generator)
    if clip_norm is not None:
        check_positive("clip_norm", clip_norm)
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


def _check_data(model, X, y) -> tuple[torch.Tensor, torch.Tensor]:
    """X as float32 and y as long tensors, after checking that they fit ``model``."""
    check_instance("model", model, nn.Module)
    check_finite_array("X", X)
    labels = check_index_array("y", y, ndim=1)
    X = torch.as_tensor(np.asarray(X), dtype=torch.float32)
    y = torch.as_tensor(np.asarray(y)).long()
    if X.ndim < 2 or len(X) != len(y):
        raise ValueError(
            f"X (n, ...) and y (n,) must have equal lengths, got {tuple(X.shape)} "
            f"and {tuple(y.shape)}"
        )
    was_training = model.training
    model.eval()  # a probe of one input (no dropout, no batch-norm update): the number of classes
    try:
        with torch.no_grad():
            n_classes = model(X[:1]).shape[-1]
    except RuntimeError as err:
        raise ValueError(f"X of shape {tuple(X.shape)} does not fit the model: {err}") from None
    finally:
        model.train(was_training)
    if labels.max() >= n_classes:
        raise ValueError(f"y must hold class indices in 0..{n_classes - 1}, got {labels.max()}")
    return X, y


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
    """Adam on cross-entropy over (X, y) for ``epochs``; returns batch losses (eval mode after).

    X is (n, ...) finite inputs of the model, y (n,) class indices in 0..n_classes−1.
    """
    X, y = _check_data(model, X, y)
    epochs = check_int("epochs", epochs)
    batch_size = check_int("batch_size", batch_size)
    lr = check_positive("lr", lr)
    seed = check_seed("seed", seed)
    g = torch.Generator().manual_seed(seed)
    torch.manual_seed(seed)
    opt = torch.optim.Adam(model.parameters(), lr=lr)

    def step(idx: torch.Tensor) -> torch.Tensor:
        return F.cross_entropy(model(X[idx]), y[idx])

    return minibatch_training(model, opt, step, len(X), epochs, batch_size, g, progress)


@torch.no_grad()
def accuracy(model: nn.Module, X, y) -> float:
    """Fraction of (X, y) the model classifies correctly."""
    X, y = _check_data(model, X, y)
    return float((model(X).argmax(1) == y).float().mean())
