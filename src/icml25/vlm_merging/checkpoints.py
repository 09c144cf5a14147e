"""The three models of one seed (base LM, reasoning LM, VLM): trained by :func:`train_models`,
stored as safetensors in ``data/vlm_merging/`` by :func:`save_models`, read by
:func:`load_models`. Three seeds of training take several minutes on one CPU thread (the CPU
time is in ``data/vlm_merging/README.md``), more than the chapter may spend twice, so the
notebooks load the committed files; regenerate them with

    python -m icml25.vlm_merging.checkpoints            # small scale, seeds 0 1 2

Recipe (the brief's recommendations; ``RECIPES``): base LM on "base" (all parameters); the
reasoning LM continues from it on text reasoning (80 %) and base (20 %), layers only (embeddings
and head frozen); the VLM continues from it in two stages on ``ALIGN_MIX`` (perception plus the
alignment tasks "<img> is d" and single-step items with one image operand): projector only,
then projector and layers (embeddings and head frozen). A fourth model, the *planted* control,
is trained like the VLM but its second stage trains only the last block, so its perception
lives there by construction.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path

import torch

from icml25.common.checks import check_choice, check_seed
from icml25.common.paths import data_dir
from icml25.vlm_merging.model import _check_model, _check_suite, _device, build_model, train

__all__ = ["MODEL_NAMES", "RECIPES", "load_models", "save_models", "train_models"]

MODEL_NAMES = ("base", "reason", "vlm", "planted")

#: The VLM's training mixture: perception plus the alignment stage (``ALIGN_TASKS``: "<img> is
#: d" and single-step items with one image operand). Chosen on seed 100 (not a reported seed)
#: among four variants: this mixture with stage 2 on layers + projector for 600 steps at 1e-3
#: gave the best val perception, bare perception and merge (see data/vlm_merging/README.md).
ALIGN_MIX = {"perception": 0.25, "image_is": 0.25, "mm_single": 0.5}

#: Model sizes and (task, steps, lr, params) of every stage, per scale.
RECIPES: dict[str, dict] = {
    "small": {
        "model": {"n_layer": 6, "n_embd": 64, "n_head": 4},
        "n_operands": 2,
        "base": [("base", 600, 2e-3, "all")],
        "reason": [({"text_reasoning": 0.8, "base": 0.2}, 900, 1e-3, "layers")],
        "vlm": [(ALIGN_MIX, 300, 2e-3, "projector"), (ALIGN_MIX, 600, 1e-3, "layers+projector")],
        "planted": [(ALIGN_MIX, 300, 2e-3, "projector"), (ALIGN_MIX, 600, 1e-3, "last")],
    },
    "large": {
        "model": {"n_layer": 8, "n_embd": 128, "n_head": 4},
        "n_operands": 2,
        "base": [("base", 2400, 1e-3, "all")],
        "reason": [({"text_reasoning": 0.8, "base": 0.2}, 3600, 5e-4, "layers")],
        "vlm": [(ALIGN_MIX, 1200, 1e-3, "projector"), (ALIGN_MIX, 2400, 5e-4, "layers+projector")],
        "planted": [(ALIGN_MIX, 1200, 1e-3, "projector"), (ALIGN_MIX, 2400, 5e-4, "last")],
    },
}


def train_models(suite, seed: int = 0, scale: str = "small", device=None) -> tuple[dict, dict]:
    """(models, losses): the base LM, reasoning LM and VLM of ``seed`` (``MODEL_NAMES``), and the
    loss of every training step of each (stages concatenated), trained on ``device`` (None:
    ``get_device()``, a GPU when one is visible)."""
    suite = _check_suite(suite)
    seed = check_seed("seed", seed)
    recipe = RECIPES[check_choice("scale", scale, tuple(RECIPES))]
    device = _device(device)
    base = build_model(suite, seed=seed, device=device, **recipe["model"])
    models, losses = {"base": base}, {}
    for name in MODEL_NAMES:
        model = base if name == "base" else copy.deepcopy(base)
        losses[name] = []
        for j, (task, steps, lr, params) in enumerate(recipe[name]):
            layers = None
            if params == "last":  # the planted control: perception trained into the last block
                params, layers = "layers", [model.n_layer - 1]
            losses[name] += train(
                model, suite, task, steps, lr, params, seed=seed * 10 + j, layers=layers
            )
        models[name] = model
    return models, losses


def _directory(directory) -> Path:
    if directory is None:
        return data_dir() / "vlm_merging"
    if not isinstance(directory, (str, Path)):
        raise TypeError(f"directory must be a path or None, got {type(directory).__name__}")
    return Path(directory)


def _path(directory: Path, seed: int, name: str) -> Path:
    return directory / f"seed{seed}_{name}.safetensors"


def save_models(models: dict, losses: dict, seed: int, directory=None) -> list[Path]:
    """Write each model's state dict (without the tied ``lm.lm_head.weight``) and its losses."""
    from safetensors.torch import save_file

    seed = check_seed("seed", seed)
    directory = _directory(directory)
    for arg, d in (("models", models), ("losses", losses)):
        if not isinstance(d, dict) or set(d) != set(MODEL_NAMES):
            raise TypeError(f"{arg} must be a dict with the keys {MODEL_NAMES}")
    directory.mkdir(parents=True, exist_ok=True)
    out = []
    for name in MODEL_NAMES:
        sd = _check_model(models[name]).state_dict()
        sd = {k: v.detach().cpu().contiguous() for k, v in sd.items() if k != "lm.lm_head.weight"}
        meta = {"losses": json.dumps([round(x, 5) for x in losses[name]])}
        save_file(sd, str(_path(directory, seed, name)), metadata=meta)
        out.append(_path(directory, seed, name))
    return out


def load_models(
    suite, seed: int = 0, directory=None, scale: str = "small", device=None
) -> tuple[dict, dict]:
    """(models, losses) of ``seed`` as saved by :func:`save_models` (FileNotFoundError with the
    command that regenerates them if absent), on ``device`` (None: ``get_device()``)."""
    from safetensors import safe_open

    suite = _check_suite(suite)
    seed = check_seed("seed", seed)
    recipe = RECIPES[check_choice("scale", scale, tuple(RECIPES))]
    device = _device(device)
    directory = _directory(directory)
    models, losses = {}, {}
    for name in MODEL_NAMES:
        path = _path(directory, seed, name)
        if not path.exists():
            raise FileNotFoundError(
                f"{path} is missing: run `python -m icml25.vlm_merging.checkpoints`"
            )
        with safe_open(str(path), framework="pt") as f:
            sd = {k: f.get_tensor(k) for k in f.keys()}
            losses[name] = json.loads(f.metadata()["losses"])
        sd["lm.lm_head.weight"] = sd["lm.transformer.wte.weight"]
        model = build_model(suite, seed=seed, device=device, **recipe["model"])
        model.load_state_dict(sd)
        models[name] = model.eval()
    return models, losses


if __name__ == "__main__":
    import sys
    import time

    from icml25.vlm_merging.tasks import make_suite

    torch.set_num_threads(1)
    seeds = [int(s) for s in sys.argv[1:]] or [0, 1, 2]
    for s in seeds:
        t0 = time.time()
        suite = make_suite(seed=s, n_operands=RECIPES["small"]["n_operands"])
        models, losses = train_models(suite, seed=s)
        print(s, save_models(models, losses, s), f"{time.time() - t0:.0f} s", flush=True)
