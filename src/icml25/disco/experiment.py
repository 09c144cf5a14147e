"""The chapter's per-seed set-up, shared by notebooks 2 and 3: one configuration per scale and,
for every seed, new movies, a new split, an untrained and a trained title model.

:func:`prepare_runs` is the only entry point; :data:`RUN_CONFIGS` holds the settings of each
scale (``small``: the rendered book, CPU; ``large``: a GPU). The settings were frozen on seed 0
(notebook 1's illustration seed; see the chapter's Departures); the reported seeds 3, 4, 5 (and
6, 7 at ``large``) were never looked at while choosing them.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch

from icml25.common.checks import check_choice, check_int, check_seed
from icml25.common.runtime import SCALES
from icml25.disco.checkpoints import load_trained
from icml25.disco.model import TitleVLM, _check_device, build_title_vlm, train_title_vlm
from icml25.disco.world import Split, make_movies, make_split

__all__ = ["RUN_CONFIGS", "SeedRun", "prepare_runs"]

#: Settings per scale: movies, fresh eval frames per kind and movie, training epochs, widths of
#: the CNN encoder and of the GPT-2, and the reported seeds.
RUN_CONFIGS: dict[str, dict] = {
    "small": {
        "n_movies": 40,
        "n_eval": 20,
        "epochs": 30,
        "cnn_width": 32,
        "n_embd": 64,
        "seeds": (3, 4, 5),
    },
    "large": {
        "n_movies": 80,
        "n_eval": 40,
        "epochs": 40,
        "cnn_width": 64,
        "n_embd": 128,
        "seeds": (3, 4, 5, 6, 7),
    },
}

_INT_KEYS = {"n_movies": 4, "n_eval": 1, "epochs": 1, "cnn_width": 1, "n_embd": 4}


@dataclass(frozen=True)
class SeedRun:
    """One seed of the chapter: its ``split`` (movies, training and eval frames), the
    ``untrained`` model (same initialisation as ``model``: the chance reference) and the
    trained ``model``, with the training ``history`` of :func:`train_title_vlm`."""

    seed: int
    split: Split
    untrained: TitleVLM
    model: TitleVLM
    history: dict


def prepare_runs(
    scale: str = "small",
    seeds: tuple[int, ...] | None = None,
    device: str | torch.device | None = None,
    progress: bool = True,
    *,
    pretrained: bool = False,
    n_movies: int | None = None,
    n_eval: int | None = None,
    epochs: int | None = None,
    cnn_width: int | None = None,
    n_embd: int | None = None,
) -> tuple[dict, list[SeedRun]]:
    """The configuration of ``scale`` and one :class:`SeedRun` per seed.

    For every seed s (``seeds``, default the scale's): ``make_movies(n_movies, seed=s)``,
    ``make_split(movies, n_eval=n_eval, seed=s)``, an untrained ``build_title_vlm(split,
    seed=s, cnn_width, n_embd, device)`` and a second one of the same seed trained with
    ``train_title_vlm(..., epochs, seed=s)``. ``n_movies``, ``n_eval``, ``epochs``,
    ``cnn_width`` and ``n_embd``, when given, replace the scale's settings (unit tests use tiny
    ones). ``device`` defaults to :func:`~icml25.common.runtime.get_device`. With
    ``pretrained=True`` the trained model's weights and history are read from the committed
    checkpoint of the seed (:func:`~icml25.disco.checkpoints.load_trained`: the same model this
    function would train, saved by ``python -m icml25.disco.checkpoints``) instead of training;
    a checkpoint that is absent or was trained with other settings raises.

    Returns:
        ``(config, runs)``: the configuration used (a new dict, ``seeds`` included) and the runs
        in the order of the seeds.
    """
    scale = check_choice("scale", scale, SCALES)
    config = dict(RUN_CONFIGS[scale])
    overrides = {
        "n_movies": n_movies,
        "n_eval": n_eval,
        "epochs": epochs,
        "cnn_width": cnn_width,
        "n_embd": n_embd,
    }
    for key, value in overrides.items():
        if value is not None:
            config[key] = check_int(key, value, _INT_KEYS[key])
    if config["n_embd"] % 4:
        raise ValueError(f"n_embd must be divisible by 4 (the heads), got {config['n_embd']}")
    if seeds is not None:
        if isinstance(seeds, (str, bytes)) or not isinstance(seeds, (tuple, list)) or not seeds:
            raise TypeError(f"seeds must be a non-empty tuple of ints, got {seeds!r}")
        config["seeds"] = tuple(check_seed("seeds", s) for s in seeds)
    if device is not None:
        device = _check_device(device)
    if not isinstance(progress, bool):
        raise TypeError(f"progress must be a bool, got {type(progress).__name__}")
    if not isinstance(pretrained, bool):
        raise TypeError(f"pretrained must be a bool, got {type(pretrained).__name__}")
    width = {"cnn_width": config["cnn_width"], "n_embd": config["n_embd"], "device": device}
    seq = config["seeds"]
    if progress:
        from tqdm import tqdm

        seq = tqdm(seq, desc="seeds")
    runs = []
    for seed in seq:
        movies = make_movies(config["n_movies"], seed=seed)
        split = make_split(movies, n_eval=config["n_eval"], seed=seed)
        untrained = build_title_vlm(split, seed=seed, **width)
        model = build_title_vlm(split, seed=seed, **width)
        if pretrained:
            history = load_trained(model, config, scale, seed)
        else:
            history = train_title_vlm(
                model, split, epochs=config["epochs"], seed=seed, progress=False
            )
        runs.append(SeedRun(seed, split, untrained, model, history))
    return config, runs
