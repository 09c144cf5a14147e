"""The RSTIB objective, one training loop for every forecaster, and evaluation on clean targets."""

from __future__ import annotations

import copy
import math

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

from icml25.common.checks import (
    check_array,
    check_choice,
    check_finite_array,
    check_instance,
    check_int,
    check_positive,
    check_real,
    check_seed,
    check_tensor,
)
from icml25.common.training import minibatch_training
from icml25.rstib.models import RSTIBMLP, IBOutput
from icml25.rstib.windows import check_windows

__all__ = [
    "OFFICIAL_MILESTONES",
    "TRACED",
    "anneal_beta",
    "evaluate",
    "forecast_errors",
    "gaussian_kl",
    "predict",
    "rstib_loss",
    "train_forecaster",
]


def gaussian_kl(mu: torch.Tensor, sigma: torch.Tensor) -> torch.Tensor:
    """KL(N(mu, sigma^2) || N(0, 1)) per entry (nats); sigma > 0.

    The closed form 0.5 (sigma^2 + mu^2 - 1 - log sigma^2), in the operation order of
    ``torch.distributions.kl_divergence`` (a unit test checks they agree), without building two
    ``Normal`` objects per batch.
    """
    check_tensor("mu", mu)
    check_tensor("sigma", sigma)
    if not bool((sigma > 0).all()):
        raise ValueError("sigma must be > 0")
    if mu.shape != sigma.shape:
        raise ValueError(f"mu and sigma must have equal shapes, got {mu.shape} and {sigma.shape}")
    var_ratio = sigma.pow(2)
    return 0.5 * (var_ratio + mu.pow(2) - 1 - var_ratio.log())


def rstib_loss(
    out: IBOutput,
    y: torch.Tensor,
    teacher_pred: torch.Tensor | None = None,
    beta: float = 1e-3,
    kd_weight: float = 0.3,
    scale: float = 1.0,
) -> tuple[torch.Tensor, dict[str, float]]:
    """RSTIB's training objective on one batch.

    With forecasts, targets and teacher forecasts in flow units (normalised values times
    ``scale``), target noise ``eps_y ~ N(mu_y, sigma_y^2)``, ``Y' = Y + eps_y`` and
    ``T' = T + eps_y``:

    * difficulty ``d_n = softmax_n(mean_h |T'_{hn} - Y'_{hn}|)`` (B, N), uniform 1/N without a
      teacher;
    * ``L_reg = mean((2 - d) |Y_hat - Y'|)``;
    * ``KL``, ``KL_y``, ``KL_x``: KL to N(0, I) of (mu, sigma), (mu_y, sigma_y), (mu_x, sigma_x),
      summed over features, weighted per sensor by ``1 + d``, averaged, in bits (/ ln 2);
    * ``KD = SmoothL1(Y_hat, T')`` weighted by ``kd_weight`` (the paper's distillation term; the
      released code computes it but leaves it out of the loss, which is ``kd_weight=0``).

    ``L = L_reg / ln 2 + 2 beta (KL + KL_y + KL_x) + kd_weight KD``. Without the bottleneck
    (``out`` from ``ib=False``: no distributions) ``eps_y = 0`` and there is no KL term:
    ``L = L_reg / ln 2 + kd_weight KD``, the plain distillation and L1 loss.

    Args:
        out: RSTIB-MLP's :class:`IBOutput` (pred (B, H, N) in normalised units).
        y: (B, H, N) observed (noisy) targets, normalised.
        teacher_pred: (B, H, N) the teacher's forecasts, normalised, or ``None``.

    Returns:
        the scalar loss and its parts as floats.
    """
    check_instance("out", out, IBOutput)
    check_tensor("y", y)
    if teacher_pred is not None:
        check_tensor("teacher_pred", teacher_pred)
    if y.shape != out.pred.shape:
        raise ValueError(f"y must have shape {tuple(out.pred.shape)}, got {tuple(y.shape)}")
    if teacher_pred is not None and teacher_pred.shape != y.shape:
        raise ValueError(
            f"teacher_pred must have shape {tuple(y.shape)}, got {tuple(teacher_pred.shape)}"
        )
    beta, kd_weight = check_real("beta", beta, 0.0), check_real("kd_weight", kd_weight, 0.0)
    scale = check_positive("scale", scale)
    ib = out.sigma is not None
    if ib:
        eps_y = (out.mu_y + out.sigma_y * torch.randn_like(out.mu_y)).transpose(1, 2)  # (B, H, N)
    else:
        eps_y = torch.zeros_like(y)
    pred = out.pred * scale
    y_noisy = y * scale + eps_y
    B, _, N = y.shape
    if teacher_pred is not None:
        t_noisy = teacher_pred * scale + eps_y
        d = torch.softmax((t_noisy - y_noisy).abs().mean(1), dim=1).detach()  # (B, N)
    else:
        d = torch.full((B, N), 1.0 / N)
    l_reg = ((2 - d)[:, None, :] * (pred - y_noisy).abs()).mean()
    w = (1 + d)[..., None]
    kls = {}
    if ib:
        kls = {
            name: (w * gaussian_kl(m, s)).sum(-1).mean() / math.log(2)
            for name, (m, s) in {
                "kl": (out.mu, out.sigma),
                "kl_y": (out.mu_y, out.sigma_y),
                "kl_x": (out.mu_x, out.sigma_x),
            }.items()
        }
    loss = l_reg / math.log(2) + 2 * beta * sum(kls.values())
    parts = {"reg": l_reg.item(), **{k: v.item() for k, v in kls.items()}}
    if teacher_pred is not None and kd_weight > 0:
        kd = F.smooth_l1_loss(pred, t_noisy)
        loss = loss + kd_weight * kd
        parts["kd"] = kd.item()
    return loss, parts


def _tensors(part: dict) -> tuple[torch.Tensor, ...]:
    return tuple(torch.as_tensor(part[k]) for k in ("x", "tod", "dow", "y"))


def _check_fit(model: nn.Module, windows: dict, split: str, name: str = "model") -> None:
    """One forecast of the first window of ``split``, to fail early (and by name) when the model
    does not fit the windows; in eval mode, without gradients, the torch RNG state restored."""
    x, tod, dow, y = (t[:1] for t in _tensors(windows[split]))
    training = model.training
    try:
        with torch.random.fork_rng(devices=[]), torch.no_grad():
            model.eval()
            shape = tuple(model(x, tod, dow).shape)
    except (RuntimeError, IndexError, ValueError) as err:
        raise ValueError(f"windows[{split!r}] do not fit the {name}: {err}") from None
    finally:
        model.train(training)
    if shape != tuple(y.shape):
        raise ValueError(
            f"the {name} forecasts {shape} but windows[{split!r}] hold y {tuple(y.shape)}"
        )


@torch.no_grad()
def predict(
    model: nn.Module, windows: dict, split: str = "test", batch_size: int = 256
) -> np.ndarray:
    """Forecasts (B, H, N) of ``model`` on ``windows[split]``, normalised units, eval mode."""
    check_instance("model", model, nn.Module)
    split = check_choice("split", split, ("train", "val", "test"))
    check_windows(windows, (split,))
    batch_size = check_int("batch_size", batch_size)
    _check_fit(model, windows, split)
    model.eval()
    x, tod, dow, _ = _tensors(windows[split])
    outs = [
        model(x[s : s + batch_size], tod[s : s + batch_size], dow[s : s + batch_size])
        for s in range(0, len(x), batch_size)
    ]
    return torch.cat(outs).numpy()


def evaluate(
    model: nn.Module, windows: dict, split: str = "test", clean_targets: bool = True
) -> dict:
    """MAE, RMSE and MAPE (%) of ``model`` on ``windows[split]`` in flow units.

    Scored against the **clean** targets by default (robustness), or against the observed noisy
    ones. MAPE is masked to targets above 1 vehicle per 5 minutes.
    """
    split = check_choice("split", split, ("train", "val", "test"))
    check_windows(windows, (split,), ("x", "tod", "dow", "y", "y_clean"))
    pred = predict(model, windows, split) * windows["scale"]
    y = windows[split]["y_clean" if clean_targets else "y"] * windows["scale"]
    return forecast_errors(pred, y)


def forecast_errors(pred: np.ndarray, y: np.ndarray) -> dict:
    """``{"MAE", "RMSE", "MAPE"}`` of forecasts ``pred`` against ``y`` (same shape, flow units).

    MAPE is NaN when no target exceeds 1 (it is undefined there).
    """
    check_finite_array("pred", pred)  # checks only: the metrics keep the arrays' own dtype
    check_finite_array("y", y)
    pred, y = np.asarray(pred), np.asarray(y)
    if pred.shape != y.shape:
        raise ValueError(f"pred and y must have equal shapes, got {pred.shape} and {y.shape}")
    err = pred - y
    mask = np.abs(y) > 1.0
    return {
        "MAE": float(np.abs(err).mean()),
        "RMSE": float(np.sqrt((err**2).mean())),
        "MAPE": float(100 * np.abs(err[mask] / y[mask]).mean()),
    }


OFFICIAL_MILESTONES = (1, 20, 50, 75, 100, 150, 200)
"""The student's learning-rate milestones in the official yaml (halved at each)."""


def anneal_beta(beta: float, epochs: int, beta_init: float = 0.0) -> np.ndarray:
    """Per-epoch KL weights of the official code's annealing option (``info_anneal``).

    ``beta_init`` for the first quarter of the epochs, then a cubic ramp ``beta + (beta_init -
    beta) (1 - u)^3``, ``u`` from 0 to 1 over the second quarter (the official code's Beta(1, 4)
    density, rescaled), then ``beta``. Returns shape (epochs,).
    """
    beta = check_real("beta", beta, 0.0)
    epochs = check_int("epochs", epochs)
    beta_init = check_real("beta_init", beta_init, 0.0)
    q = epochs // 4
    ramp = beta + (beta_init - beta) * (1 - np.linspace(0, 1, q)) ** 3
    return np.concatenate([np.full(q, beta_init), ramp, np.full(epochs - 2 * q, beta)])


def _check_beta_schedule(beta_schedule: object, epochs: int) -> np.ndarray | None:
    if beta_schedule is None:
        return None
    sched = check_finite_array("beta_schedule", beta_schedule, ndim=1)
    if len(sched) < epochs or sched.min() < 0:
        raise ValueError(
            f"beta_schedule must hold >= {epochs} (epochs) weights >= 0, got {len(sched)} "
            f"with minimum {sched.min():g}"
        )
    return sched


TRACED = ("sigma", "sigma_x", "sigma_y", "mu_y", "mu_y_abs", "kl", "kl_y", "kl_x", "reg", "kd")
"""What :func:`train_forecaster` traces per epoch for RSTIB-MLP (means over the batches):
``mu_y`` is the signed mean of the target-noise mean (flow units; training pins only
``pred - mu_y`` to the targets, so ``mu_y`` is the forecast's bias), ``mu_y_abs`` its mean
magnitude."""


def train_forecaster(
    model: nn.Module,
    windows: dict,
    epochs: int,
    teacher: nn.Module | None = None,
    lr: float = 2e-3,
    batch_size: int = 32,
    seed: int = 0,
    beta: float = 1e-3,
    kd_weight: float = 0.3,
    weight_decay: float = 0.0,
    clip_norm: float | None = None,
    milestones: tuple[int, ...] = OFFICIAL_MILESTONES,
    patience: int | None = None,
    beta_schedule: np.ndarray | None = None,
    progress: bool = False,
    teacher_forecasts: np.ndarray | None = None,
) -> dict:
    """Train ``model`` on ``windows["train"]`` with Adam; keep the epoch with the best val MAE.

    Every model is trained in flow units (normalised values times ``windows["scale"]``). Plain
    forecasters minimise the L1 error against the observed (noisy) targets; an
    :class:`RSTIBMLP` minimises :func:`rstib_loss` (whose ``L_reg`` is the same L1 error,
    weighted by ``2 - d``), with the ``teacher``'s forecasts (computed once, without gradients)
    for the difficulty weights and the distillation term. The defaults are the official
    student yaml: ``lr`` 0.002 halved at each of ``milestones`` (epochs 1, 20, 50, ...), no
    weight decay, no gradient clipping (``clip_norm`` clips the gradient norm, as the official
    teacher's ``grad_norm`` does at 5). The KL weight is ``beta``, or ``beta_schedule[epoch]``
    (e.g. :func:`anneal_beta`). ``teacher_forecasts`` (B, H, N), normalised units: the
    ``teacher``'s train-split forecasts as ``predict(teacher, windows, "train")`` returns them,
    to reuse one teacher's forecasts across several students (computed here when ``None``;
    given, they must match the train targets' shape). Early stopping as in the official code:
    the validation MAE (observed targets, one draw of Z for RSTIB-MLP) after every epoch;
    training stops after
    ``patience`` epochs without a new best (``None``: never) and the best epoch is kept.

    Returns:
        ``{"train_loss": [per epoch], "val_mae": [per epoch], "best_epoch": int,
        "beta": [per epoch], "trace": {name: [per epoch]}}``, the trace (RSTIB-MLP with the
        bottleneck only) holding the batch means of sigma, sigma_x, sigma_y, mu_y, |mu_y| and
        of the loss parts (:data:`TRACED`); the model is left with the best epoch's weights, in
        eval mode.
    """
    check_instance("model", model, nn.Module)
    check_windows(windows, ("train", "val"))
    epochs = check_int("epochs", epochs)
    if teacher is not None:
        check_instance("teacher", teacher, nn.Module)
        _check_fit(teacher, windows, "train", "teacher")
    lr, batch_size = check_positive("lr", lr), check_int("batch_size", batch_size)
    seed = check_seed("seed", seed)
    beta, kd_weight = check_real("beta", beta, 0.0), check_real("kd_weight", kd_weight, 0.0)
    weight_decay = check_real("weight_decay", weight_decay, 0.0)
    if clip_norm is not None:
        clip_norm = check_positive("clip_norm", clip_norm)
    if not isinstance(milestones, (tuple, list)):
        raise TypeError(f"milestones must be a tuple of epochs, got {type(milestones).__name__}")
    milestones = tuple(check_int("milestones", m) for m in milestones)
    if list(milestones) != sorted(set(milestones)):
        raise ValueError(f"milestones must be increasing, got {milestones}")
    if patience is not None:
        patience = check_int("patience", patience)
    betas = _check_beta_schedule(beta_schedule, epochs)
    _check_fit(model, windows, "train")
    g = torch.Generator().manual_seed(seed)
    torch.manual_seed(seed)
    x, tod, dow, y = _tensors(windows["train"])
    scale = windows["scale"]
    ib = isinstance(model, RSTIBMLP)
    t_pred = None
    if teacher_forecasts is not None:
        if teacher is None:
            raise ValueError("teacher_forecasts needs the teacher they came from (teacher=None)")
        teacher_forecasts = check_array("teacher_forecasts", teacher_forecasts, 3)
        if teacher_forecasts.shape != tuple(y.shape):
            raise ValueError(
                f"teacher_forecasts must have the train targets' shape {tuple(y.shape)}, "
                f"got {teacher_forecasts.shape}"
            )
        t_pred = torch.as_tensor(teacher_forecasts, dtype=y.dtype)
    elif teacher is not None:
        t_pred = torch.as_tensor(predict(teacher, windows, "train"))
    opt = torch.optim.Adam(model.parameters(), lr=lr, weight_decay=weight_decay)
    sched = torch.optim.lr_scheduler.MultiStepLR(opt, list(milestones), 0.5)
    epoch_parts: list[dict] = []
    beta_now = beta

    def step(idx: torch.Tensor) -> torch.Tensor:
        if ib:
            out = model.forward_ib(x[idx], tod[idx], dow[idx])
            teach = None if t_pred is None else t_pred[idx]
            loss, parts = rstib_loss(out, y[idx], teach, beta_now, kd_weight, scale)
            if out.sigma is not None:
                for name in ("sigma", "sigma_x", "sigma_y"):
                    parts[name] = float(getattr(out, name).detach().mean())
                parts["mu_y"] = float(out.mu_y.detach().mean())
                parts["mu_y_abs"] = float(out.mu_y.detach().abs().mean())
            epoch_parts.append(parts)
            return loss
        return (model(x[idx], tod[idx], dow[idx]) - y[idx]).abs().mean() * scale

    history: dict = {"train_loss": [], "val_mae": [], "best_epoch": 0, "beta": [], "trace": {}}
    best, best_state, since_best = math.inf, None, 0
    for epoch in range(epochs):
        beta_now = beta if betas is None else float(betas[epoch])
        epoch_parts.clear()
        losses = minibatch_training(
            model, opt, step, len(x), 1, batch_size, g, progress, clip_norm=clip_norm
        )
        sched.step()
        if ib:  # one draw of Z, as the official code's validation
            n_eval, model.n_eval_samples = model.n_eval_samples, 1
        val = evaluate(model, windows, "val", clean_targets=False)["MAE"]
        if ib:
            model.n_eval_samples = n_eval
        history["train_loss"].append(float(np.mean(losses)))
        history["val_mae"].append(val)
        history["beta"].append(beta_now)
        for name in TRACED:
            vals = [p[name] for p in epoch_parts if name in p]
            if vals:
                history["trace"].setdefault(name, []).append(float(np.mean(vals)))
        if val < best:
            best, best_state, history["best_epoch"] = val, copy.deepcopy(model.state_dict()), epoch
            since_best = 0
        else:
            since_best += 1
            if patience is not None and since_best >= patience:
                break
    if best_state is None:
        raise ValueError(f"training diverged: the validation MAE was never finite (lr={lr})")
    model.load_state_dict(best_state)
    model.eval()
    return history
