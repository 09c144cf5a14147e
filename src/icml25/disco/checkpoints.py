"""The trained title models of the reported seeds, committed as safetensors in ``data/disco/``.

Notebooks 2 and 3 use the same three trained models (``small`` scale, seeds 3, 4, 5). Training
one takes about 25 s of CPU on one thread, so training them in both notebooks put the chapter
over its time budget; the notebooks load the committed weights instead (``prepare_runs(...,
pretrained=True)``) and notebook 1 still trains its model live. Training is fully seeded (no
dropout, seeded initialisation and batches), so a loaded model is the model ``prepare_runs``
would train on this machine. Regenerate the files with

    OMP_NUM_THREADS=1 python -m icml25.disco.checkpoints          # small scale, seeds 3 4 5

Each file holds the ``TinyVLM`` state dict of one seed (the tied ``lm.lm_head.weight`` left out)
and, as metadata, the settings it was trained with and its batch losses.
"""

from __future__ import annotations

import json
from pathlib import Path

import torch

from icml25.common.checks import check_choice, check_seed
from icml25.common.paths import data_dir
from icml25.disco.model import TitleVLM

__all__ = ["CONFIG_KEYS", "checkpoint_path", "load_trained", "save_trained"]

#: The settings a checkpoint must share with the run that loads it.
CONFIG_KEYS = ("n_movies", "n_eval", "epochs", "cnn_width", "n_embd")
_TIED = "lm.lm_head.weight"


def _directory(directory) -> Path:
    if directory is None:
        return data_dir() / "disco"
    if not isinstance(directory, (str, Path)):
        raise TypeError(f"directory must be a path or None, got {type(directory).__name__}")
    return Path(directory)


def checkpoint_path(scale: str, seed: int, directory=None) -> Path:
    """``<directory>/<scale>_seed<seed>.safetensors`` (directory default: ``data/disco``)."""
    scale = check_choice("scale", scale, ("small", "large"))
    seed = check_seed("seed", seed)
    return _directory(directory) / f"{scale}_seed{seed}.safetensors"


def _settings(config: dict) -> dict:
    if not isinstance(config, dict) or not set(CONFIG_KEYS) <= set(config):
        raise TypeError(f"config must be a dict with the keys {CONFIG_KEYS}")
    return {k: int(config[k]) for k in CONFIG_KEYS}


def save_trained(
    model: TitleVLM, history: dict, config: dict, scale: str, seed: int, directory=None
) -> Path:
    """Write ``model``'s weights, the ``config`` settings (:data:`CONFIG_KEYS`) and
    ``history["loss"]`` to :func:`checkpoint_path`; returns the path."""
    from safetensors.torch import save_file

    if not isinstance(model, TitleVLM):
        raise TypeError(f"model must be a TitleVLM, got {type(model).__name__}")
    if not isinstance(history, dict) or "loss" not in history:
        raise TypeError("history must be the dict train_title_vlm returns (with 'loss')")
    path = checkpoint_path(scale, seed, directory)
    sd = {k: v.detach().cpu().contiguous() for k, v in model.net.state_dict().items()}
    sd.pop(_TIED, None)
    meta = {
        "config": json.dumps(_settings(config), sort_keys=True),
        "seed": str(seed),
        "history": json.dumps(
            {"loss": [float(x) for x in history["loss"]], "n_sequences": history["n_sequences"]}
        ),
    }
    path.parent.mkdir(parents=True, exist_ok=True)
    save_file(sd, str(path), metadata=meta)
    return path


def load_trained(model: TitleVLM, config: dict, scale: str, seed: int, directory=None) -> dict:
    """Load the committed weights of ``seed`` into ``model`` (built by ``build_title_vlm`` with
    the same split, widths and seed) in place and return the training history stored with them.

    Raises ``FileNotFoundError`` (with the command that regenerates the file) if it is absent and
    ``ValueError`` if it was trained with other settings than ``config``'s.
    """
    from safetensors import safe_open

    if not isinstance(model, TitleVLM):
        raise TypeError(f"model must be a TitleVLM, got {type(model).__name__}")
    wanted = _settings(config)
    path = checkpoint_path(scale, seed, directory)
    if not path.exists():
        raise FileNotFoundError(f"{path} is missing: run `python -m icml25.disco.checkpoints`")
    with safe_open(str(path), framework="pt") as f:
        meta = f.metadata()
        stored = json.loads(meta["config"])
        if stored != wanted or int(meta["seed"]) != seed:
            raise ValueError(
                f"config {wanted} (seed {seed}) does not match {path}, trained with {stored} "
                f"(seed {meta['seed']}): run `python -m icml25.disco.checkpoints` or train instead"
            )
        sd = {k: f.get_tensor(k) for k in f.keys()}
    sd[_TIED] = sd["lm.transformer.wte.weight"]
    net = model.net
    device = next(net.parameters()).device
    net.load_state_dict({k: v.to(device) for k, v in sd.items()})
    net.eval()
    return json.loads(meta["history"])


def main() -> None:  # pragma: no cover - the regenerating script (about 80 s of CPU)
    from icml25.disco.experiment import prepare_runs

    torch.set_num_threads(1)
    config, runs = prepare_runs("small", device="cpu", progress=False)
    for run in runs:
        print(save_trained(run.model, run.history, config, "small", run.seed))


if __name__ == "__main__":  # pragma: no cover
    main()
