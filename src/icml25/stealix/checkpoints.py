"""The trained dual encoders of the reported seeds, committed as safetensors in ``data/stealix/``.

Notebooks 2 and 3 build the same world for each seed 0, 1, 2 at ``small`` scale: a victim (about
1 s of training) and a dual encoder, the CLIP stand-in (about 8 s: 10,000 rendered pairs and
15 epochs). Training the three dual encoders in both notebooks cost about 50 s of the chapter's
240 s budget, so the notebooks load the committed weights instead (:func:`load_dual_encoder`);
notebook 1 still trains its dual encoder (seed 0, the same settings) live, and ``large`` scale
always trains. Training is fully seeded (prompts, renderings, initial weights, batches), so a
loaded model is the model :func:`~icml25.stealix.vlm.train_dual_encoder` returns on this machine
(other machines or thread counts may differ in the last bits). Regenerate the files with

    OMP_NUM_THREADS=1 python -m icml25.stealix.checkpoints        # small scale, seeds 0 1 2

Each file holds the ``DualEncoder`` state dict of one seed and, as metadata, the settings it was
trained with (pairs, epochs, dim, seed, the generator's fonts and noise) and its loss per epoch.
"""

from __future__ import annotations

import json
from pathlib import Path

import torch

from icml25.common.checks import check_instance, check_int, check_seed
from icml25.common.paths import data_dir
from icml25.stealix.vlm import DualEncoder, train_dual_encoder
from icml25.stealix.world import GlyphGenerator

__all__ = ["SMALL", "checkpoint_path", "load_dual_encoder", "save_dual_encoder"]

#: The ``small``-scale settings of notebooks 2 and 3 and the seeds whose encoders are committed.
SMALL = {"n_pairs": 10_000, "epochs": 15, "dim": 32, "seeds": (0, 1, 2)}


def _directory(directory: str | Path | None) -> Path:
    if directory is None:
        return data_dir() / "stealix"
    if not isinstance(directory, (str, Path)):
        raise TypeError(f"directory must be a path or None, got {type(directory).__name__}")
    return Path(directory)


def checkpoint_path(seed: int, directory: str | Path | None = None) -> Path:
    """``<directory>/dual_encoder_seed<seed>.safetensors`` (directory default: ``data/stealix``)."""
    seed = check_seed("seed", seed)
    return _directory(directory) / f"dual_encoder_seed{seed}.safetensors"


def _settings(generator: GlyphGenerator, n_pairs: int, epochs: int, dim: int, seed: int) -> dict:
    return {
        "n_pairs": n_pairs,
        "epochs": epochs,
        "dim": dim,
        "seed": seed,
        "fonts": list(generator.vocab["font"]),
        "noise": generator.noise,
    }


def save_dual_encoder(
    model: DualEncoder,
    generator: GlyphGenerator,
    n_pairs: int,
    epochs: int,
    seed: int,
    directory: str | Path | None = None,
) -> Path:
    """Write ``model`` (trained by ``train_dual_encoder(generator, n_pairs, epochs, dim, seed)``),
    its settings and its loss per epoch to :func:`checkpoint_path`; returns the path."""
    from safetensors.torch import save_file

    check_instance("model", model, DualEncoder)
    check_instance("generator", generator, GlyphGenerator)
    n_pairs = check_int("n_pairs", n_pairs, 2)
    epochs = check_int("epochs", epochs, 1)
    seed = check_seed("seed", seed)
    if model.vocab != generator.vocab:
        raise ValueError("model must be trained on this generator's vocabulary")
    dim = model.image[-1].out_features
    path = checkpoint_path(seed, directory)
    sd = {k: v.detach().cpu().contiguous() for k, v in model.state_dict().items()}
    meta = {
        "settings": json.dumps(_settings(generator, n_pairs, epochs, dim, seed), sort_keys=True),
        "history": json.dumps([float(x) for x in model.history]),
    }
    path.parent.mkdir(parents=True, exist_ok=True)
    save_file(sd, str(path), metadata=meta)
    return path


def load_dual_encoder(
    generator: GlyphGenerator,
    n_pairs: int = SMALL["n_pairs"],
    epochs: int = SMALL["epochs"],
    dim: int = SMALL["dim"],
    seed: int = 0,
    directory: str | Path | None = None,
) -> DualEncoder:
    """The committed dual encoder that ``train_dual_encoder(generator, n_pairs, epochs, dim,
    seed)`` trains, loaded (eval mode, with its ``history``) instead of trained.

    Raises ``FileNotFoundError`` (with the command that regenerates it) if the file is absent
    and ``ValueError`` if it was trained with other settings or another generator.
    """
    from safetensors import safe_open

    check_instance("generator", generator, GlyphGenerator)
    n_pairs = check_int("n_pairs", n_pairs, 2)
    epochs = check_int("epochs", epochs, 1)
    dim = check_int("dim", dim, 2)
    seed = check_seed("seed", seed)
    wanted = _settings(generator, n_pairs, epochs, dim, seed)
    path = checkpoint_path(seed, directory)
    if not path.exists():
        raise FileNotFoundError(f"{path} is missing: run `python -m icml25.stealix.checkpoints`")
    with safe_open(str(path), framework="pt") as f:
        meta = f.metadata()
        stored = json.loads(meta["settings"])
        if stored != wanted:
            raise ValueError(
                f"settings {wanted} do not match {path}, trained with {stored}: run "
                "`python -m icml25.stealix.checkpoints` or train_dual_encoder instead"
            )
        sd = {k: f.get_tensor(k) for k in f.keys()}
    model = DualEncoder(generator.vocab, dim)
    model.load_state_dict(sd)
    model.history = json.loads(meta["history"])
    return model.eval()


def main() -> None:  # pragma: no cover - the regenerating script (about 25 s of CPU)
    torch.set_num_threads(1)
    gen = GlyphGenerator(seed=0)
    for seed in SMALL["seeds"]:
        model = train_dual_encoder(gen, SMALL["n_pairs"], SMALL["epochs"], SMALL["dim"], seed)
        print(save_dual_encoder(model, gen, SMALL["n_pairs"], SMALL["epochs"], seed))


if __name__ == "__main__":  # pragma: no cover
    main()
