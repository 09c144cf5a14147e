"""Tests of icml25.stealix.cvae: the learned generator G of the ``large`` scale (seconds each)."""

from functools import cache

import numpy as np
import pytest
import torch

from icml25 import stealix as sx

PLAIN = {
    "font": "DejaVuSans",
    "weight": 0,
    "slant": 0.0,
    "rotation": 0,
    "aspect": 1.0,
    "background": "none",
    "polarity": "normal",
    "scale": "full",
}


@cache
def _gen():
    return sx.GlyphGenerator(seed=0)


@cache
def _cvae():
    """A tiny cVAE of the full world (for the interface): 1000 pairs, about a second."""
    return sx.train_cvae(_gen(), n_pairs=1000, epochs=4, latent=4, hidden=64, seed=0, device="cpu")


@cache
def _narrow():
    """A narrow world (the ten digits, two fonts) where 3000 pairs suffice to learn the chars."""
    gen = sx.GlyphGenerator(fonts=("DejaVuSans", "DejaVuSerif"), seed=0)
    gen.vocab["char"] = tuple("0123456789")
    return gen


@cache
def _narrow_cvae(seed: int = 0):
    kw = {"n_pairs": 3000, "epochs": 15, "latent": 4, "hidden": 128, "device": "cpu"}
    return sx.train_cvae(_narrow(), seed=seed, **kw)


def test_interface_matches_the_renderer():
    gen, cv = _gen(), _cvae()
    assert cv.vocab == gen.vocab and cv.slots == gen.slots
    p = gen.random_prompt(np.random.default_rng(0))
    assert cv.random_prompt(np.random.default_rng(0)) == p
    assert cv.check_prompt(p) == p
    x = cv.generate(p, 5, seed=1)
    assert x.shape == (5, 64) and x.dtype == float
    assert x.min() >= 0 and x.max() <= 16 and np.array_equal(x, np.rint(x))
    assert next(cv.parameters()).device.type == "cpu" and not cv.training


def test_generate_is_deterministic_by_seed():
    cv = _cvae()
    p = {**PLAIN, "char": "5"}
    a, b = cv.generate(p, 6, seed=3), cv.generate(p, 6, seed=3)
    assert np.array_equal(a, b)
    assert not np.array_equal(a, cv.generate(p, 6, seed=4))
    assert len({row.tobytes() for row in a}) > 1  # images of one prompt differ (z varies)


def test_training_is_deterministic_and_lowers_its_loss():
    kw = {"n_pairs": 400, "epochs": 4, "latent": 2, "hidden": 32, "seed": 1, "device": "cpu"}
    a, b = sx.train_cvae(_gen(), **kw), sx.train_cvae(_gen(), **kw)
    assert a.history == b.history and len(a.history) == 4
    assert a.history[-1] < a.history[0]
    p = {**PLAIN, "char": "2"}
    assert np.array_equal(a.generate(p, 3, seed=0), b.generate(p, 3, seed=0))
    assert _narrow_cvae().history[-1] < 0.85 * _narrow_cvae().history[0]


def _distances(cv: sx.CVAEGenerator) -> tuple[np.ndarray, np.ndarray]:
    """Per prompt of the narrow world: L1 distance (mean per pixel) of the mean of 8 cVAE images
    to the mean of 8 renderings of the same prompt, and to those of the same prompt with another
    digit (the renderer against itself: 0.69 and 2.03)."""
    gen, rng = _narrow(), np.random.default_rng(7)
    same, other = [], []
    for i in range(40):
        c = i % 10
        p = {**gen.random_prompt(rng), "char": str(c)}
        q = {**p, "char": str((c + 1 + int(rng.integers(9))) % 10)}
        mu = cv.generate(p, 8, seed=i).mean(0)
        same.append(np.abs(mu - gen.generate(p, 8, seed=100 + i).mean(0)).mean())
        other.append(np.abs(mu - gen.generate(q, 8, seed=200 + i).mean(0)).mean())
    return np.array(same), np.array(other)


@pytest.mark.parametrize("seed", [0, 1])
def test_learned_images_are_closer_to_their_own_prompt(seed):
    """The trained cVAE's images of a prompt are nearer the renderer's images of that prompt than
    of the same prompt with another digit; an untrained cVAE (the control) shows no such gap."""
    same, other = _distances(_narrow_cvae(seed))
    assert np.mean(same) < 0.9 * np.mean(other), (same.mean(), other.mean())
    assert np.mean(same < other) >= 0.65, np.mean(same < other)
    untrained = sx.CVAEGenerator(_narrow().vocab, latent=4, hidden=128, seed=seed).eval()
    same0, other0 = _distances(untrained)
    assert np.mean(same0 < other0) < 0.65 and np.mean(same0) > np.mean(same) + 1.0


def test_the_attack_and_the_baselines_accept_the_cvae():
    Xtr, ytr, Xte, yte = sx.load_victim_data(seed=0)
    victim = sx.train_victim(Xtr[:400], ytr[:400], hidden=16, seed=0)
    vlm = sx.train_dual_encoder(_gen(), n_pairs=200, epochs=1, dim=8, seed=0)
    seeds = np.stack([Xtr[np.flatnonzero(ytr == c)[0]] for c in range(10)])
    X, y, log = sx.stealix_attack(victim, _cvae(), vlm, seeds, 8, pop_size=2, m=2, seed=0)
    assert log["queries"] == 80 and X.shape == (80, 64) and y.shape == (80,)
    victim.reset()
    X, y = sx.baseline_attack("classname", victim, _cvae(), 8, m=2, seed=0)
    assert victim.n_queries == 80 and X.shape == (80, 64)
    pc, img, lab = sx.prompt_consistency({**PLAIN, "char": "0"}, 0, _cvae(), victim, 4, 0)
    assert 0 <= pc <= 1 and img.shape == (4, 64)


def test_device_argument():
    kw = {"n_pairs": 8, "epochs": 1, "latent": 2, "hidden": 4}
    cv = sx.train_cvae(_gen(), device=torch.device("cpu"), **kw)
    assert next(cv.parameters()).device.type == "cpu"
    with pytest.raises(ValueError, match="device"):
        sx.train_cvae(_gen(), device="no-such-device", **kw)
    with pytest.raises(TypeError, match="device"):
        sx.train_cvae(_gen(), device=3, **kw)
    with pytest.raises(TypeError, match="generator"):
        sx.train_cvae(_cvae(), **kw)
