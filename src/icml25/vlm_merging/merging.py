"""Merging state dicts key by key over the language-model layers (peft's ``merge_utils``).

Notation: θ_base the base LM, θ_i the fine-tuned models (``models[0]`` the VLM, ``models[1]`` the
reasoning LM), τ_i = θ_i − θ_base their task vectors, w_i the ``weights``. Only *mergeable* keys
(``lm.transformer.h.<i>.*`` and ``lm.transformer.ln_f.*``) are merged; embeddings, ``lm_head``,
``encoder`` and ``proj`` are the VLM's, as in the paper (``embed_tokens``/``lm_head`` excluded).

* "linear": Σ w_i θ_i with Σ w_i = 1 (the paper's α·θ_VLM + (1 − α)·θ_reason), computed on the
  weights themselves, so (1, 0) returns the VLM bit for bit;
* "task_arithmetic": θ_base + Σ w_i τ_i;
* "ties", "dare_linear", "dare_ties": θ_base + peft's function of the τ_i of each tensor (top-k
  trimming / random drop with rescaling at ``density``, sign election, disjoint mean);
* "layerswap": blocks i < ``swap_below`` from the VLM, the rest (and ``ln_f``) linear.
"""

from __future__ import annotations

import re
import warnings
from collections.abc import Mapping, Sequence

import numpy as np
import torch

from icml25.common.checks import check_choice, check_int, check_real, check_seed

__all__ = ["METHODS", "layer_index", "merge", "mergeable", "task_vector"]

METHODS = ("linear", "task_arithmetic", "ties", "dare_linear", "dare_ties", "layerswap")
_LAYER = re.compile(r"^lm\.transformer\.h\.(\d+)\.")


def _key(key: object) -> str:
    if not isinstance(key, str):
        raise TypeError(f"key must be a str, got {type(key).__name__}")
    return key


def mergeable(key: str) -> bool:
    """True for ``lm.transformer.h.<i>.*`` and ``lm.transformer.ln_f.*``; never for the
    embeddings (``wte``, ``wpe``), ``lm_head``, ``encoder`` or ``proj``."""
    key = _key(key)
    return bool(_LAYER.match(key)) or key.startswith("lm.transformer.ln_f.")


def layer_index(key: str) -> int | None:
    """Block index i of ``lm.transformer.h.<i>.*``; None for any other key."""
    m = _LAYER.match(_key(key))
    return int(m.group(1)) if m else None


def _state(name: str, sd: object) -> dict[str, torch.Tensor]:
    if isinstance(sd, torch.nn.Module):
        sd = sd.state_dict()
    if not isinstance(sd, Mapping) or not sd:
        raise TypeError(f"{name} must be a state dict (a non-empty mapping) or a model")
    for k, v in sd.items():
        if not isinstance(v, torch.Tensor):
            raise TypeError(f"{name}[{k!r}] must be a tensor, got {type(v).__name__}")
    return dict(sd)


def _same_keys(name: str, sd: Mapping, ref: Mapping, ref_name: str) -> None:
    if set(sd) != set(ref):
        diff = sorted(set(sd) ^ set(ref))[:3]
        raise ValueError(f"{name} and {ref_name} have different keys (e.g. {diff})")
    for k in sd:
        if sd[k].shape != ref[k].shape:
            raise ValueError(
                f"{name}[{k!r}] has shape {tuple(sd[k].shape)}, {ref_name} {tuple(ref[k].shape)}"
            )


def _finite_same_dtype(name: str, sd: Mapping, ref: Mapping) -> None:
    """ValueError if a mergeable tensor of ``sd`` is not finite or its dtype differs from
    ``ref``'s (a silently NaN or up-cast merge otherwise)."""
    for k, v in sd.items():
        if not mergeable(k):
            continue
        if v.dtype != ref[k].dtype:
            raise ValueError(f"{name}[{k!r}] has dtype {v.dtype}, base {ref[k].dtype}")
        if v.is_floating_point() and not bool(torch.isfinite(v).all()):
            raise ValueError(f"{name}[{k!r}] has non-finite entries (NaN or inf)")


def task_vector(ft, base) -> dict[str, torch.Tensor]:
    """τ = θ_ft − θ_base on the mergeable keys (state dicts or models with equal keys/shapes)."""
    ft, base = _state("ft", ft), _state("base", base)
    _same_keys("ft", ft, base, "base")
    return {k: ft[k] - base[k] for k in ft if mergeable(k)}


def _peft(method: str, taus: list[torch.Tensor], w: torch.Tensor, density: float, seed: int):
    from peft.utils import merge_utils

    fn = {"ties": merge_utils.ties, "dare_linear": merge_utils.dare_linear}.get(
        method, merge_utils.dare_ties
    )
    with warnings.catch_warnings():  # at density 1 peft warns once per tensor that it keeps all
        warnings.filterwarnings("ignore", message="The density")
        if method == "ties":
            return fn(taus, w, density)
        with torch.random.fork_rng(devices=[]):  # peft draws DARE's mask from the global RNG
            torch.manual_seed(seed)
            return fn(taus, w, density)


def merge(
    base,
    models: Sequence,
    method: str = "linear",
    weights: Sequence[float] = (0.9, 0.1),
    density: float = 1.0,
    swap_below: int | None = None,
    seed: int = 0,
) -> dict[str, torch.Tensor]:
    """The merged state dict (keys of ``models[0]``; load it into a copy of the VLM).

    Args:
        base: θ_base, the common base (state dict or model).
        models: θ_1 .. θ_k (one weight each); ``models[0]`` (the VLM) gives every
            non-mergeable key unchanged. Mergeable tensors must be finite and of the base's
            dtype (ValueError otherwise).
        method: one of :data:`METHODS`.
        weights: w_1 .. w_k; for "linear" and "layerswap" they must sum to 1.
        density: fraction kept by TIES / DARE, in (0, 1] (1: nothing trimmed or dropped).
        swap_below: "layerswap" only: blocks i < swap_below keep the VLM's weights, in
            [0, n_layer].
        seed: DARE's random mask (drawn inside ``torch.random.fork_rng``).
    """
    method = check_choice("method", method, METHODS)
    base = _state("base", base)
    if isinstance(models, (Mapping, torch.nn.Module)) or not isinstance(models, Sequence):
        raise TypeError("models must be a list of state dicts (one per weight)")
    if not models:
        raise ValueError("models must hold at least one state dict")
    sds = [_state(f"models[{i}]", m) for i, m in enumerate(models)]
    for i, sd in enumerate(sds):
        _same_keys(f"models[{i}]", sd, base, "base")
        _finite_same_dtype(f"models[{i}]", sd, base)
    _finite_same_dtype("base", base, base)
    if isinstance(weights, np.ndarray):  # a 1-D array of weights is a sequence too
        if weights.ndim != 1:
            raise ValueError(f"weights must be 1-D, got an array of shape {weights.shape}")
        weights = weights.tolist()
    if isinstance(weights, (str, bytes)) or not isinstance(weights, Sequence):
        raise TypeError(f"weights must be a sequence of numbers, got {type(weights).__name__}")
    w = [check_real(f"weights[{i}]", x) for i, x in enumerate(weights)]
    if len(w) != len(sds):
        raise ValueError(f"weights has {len(w)} entries but models has {len(sds)}")
    if method in ("linear", "layerswap") and abs(sum(w) - 1.0) > 1e-6:
        raise ValueError(f"weights of a {method} merge must sum to 1, got {sum(w):g}")
    density = check_real("density", density, 0.0, 1.0, low_open=True)
    seed = check_seed("seed", seed)
    n_layer = 1 + max((layer_index(k) for k in base if layer_index(k) is not None), default=-1)
    if method == "layerswap":
        if swap_below is None:
            raise ValueError("swap_below is required for method 'layerswap'")
        swap_below = check_int("swap_below", swap_below, 0, n_layer)
    elif swap_below is not None:
        raise ValueError(f"swap_below is only used by method 'layerswap', got {swap_below!r}")

    wt = torch.tensor(w)
    out = {}
    for k, v0 in sds[0].items():
        if not mergeable(k):
            out[k] = v0.clone()
            continue
        thetas = [sd[k] for sd in sds]
        i = layer_index(k)
        if method == "layerswap" and i is not None and i < swap_below:
            out[k] = v0.clone()
        elif method in ("linear", "layerswap"):
            acc = w[0] * thetas[0]
            for wi, th in zip(w[1:], thetas[1:], strict=True):
                acc = acc + wi * th
            out[k] = acc
        else:
            taus = [th - base[k] for th in thetas]
            if method == "task_arithmetic":
                mixed = sum(wi * t for wi, t in zip(w, taus, strict=True))
            else:
                wk = wt.to(taus[0].device, taus[0].dtype)
                mixed = _peft(method, taus, wk, density, seed + len(out))
            out[k] = base[k] + mixed
    return out
